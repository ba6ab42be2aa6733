# randn-3: the shipped normal f32 kernel with 512/1024/2048-layer ziggurat tables (fewer rejections).
import cupy as cp, numpy as np, os, re
root = os.getcwd()
zig = open(root + '/crates/core/src/random/ziggurat.cuh').read()
ph = open(root + '/crates/core/src/random/philox.cuh').read()
kern = ph[ph.index('__device__ __noinline__ float cusci_zig_slow_f32'):ph.index('/* Standard normal f32 number i from its raw word w')]
q = ph[ph.index('#define CUSCI_ZIG_WARP_QUEUE'):ph.index('__device__ __forceinline__ void cusci_zig_flush_f64')]
body = ph[ph.index('extern "C" __global__ void __launch_bounds__(256) cusci_random_normal_f32'):ph.index('extern "C" __global__ void __launch_bounds__(256) cusci_random_normal_f64')]
pre = ph[:ph.index('/* Normal (ziggurat; the tables are ziggurat.cuh')]
zk = ph[ph.index('#define CUSCI_ZIG_TAG'):ph.index('/* The whole ziggurat for raw word w')]
helpers = ph[ph.index('__device__ __forceinline__ bool cusci_aligned16'):ph.index('/* ------------------------------------------------------------------------- */\n/* Kernels')]
def patch(s, LB):
    s = s.replace('& 255u', '& %du' % ((1 << LB) - 1)).replace('& 256u', '& %du' % (1 << LB)).replace('>> 9', '>> %d' % (LB + 1))
    s = s.replace('t < 256u', 't < %du' % (1 << LB)).replace('sk[256]', 'sk[%d]' % (1 << LB)).replace('sw[256]', 'sw[%d]' % (1 << LB))
    return s
N = 1 << 28
out = cp.empty(N, cp.float32)
sms = cp.cuda.Device().attributes['MultiProcessorCount']
def timeit(fn, reps=20):
    fn(); cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))
for LB in (8, 9, 10, 11):
    tb = zig if LB == 8 else open(root + '/.gpu-req/zig_%d.cuh' % LB).read()
    if LB != 8:
        tb = tb + '\n'.join(l for l in zig.splitlines() if l.startswith('__device__ const unsigned long long') or 'R_F64' in l) + '\n'
    code = tb + pre + zk + patch(kern, LB) + helpers + patch(q, LB) + patch(body, LB) + '\n#endif\n'
    m = cp.RawModule(code=code, options=('--std=c++17',))
    fn = m.get_function('cusci_random_normal_f32')
    for g in (4, 8):
        args = (out, np.uint64(N), np.uint64(1), np.uint64(0), np.uint64(0), np.float32(0), np.float32(1))
        t = timeit(lambda: fn((sms * g,), (256,), args))
        print('layers %4d grid %d/SM: %.3f ms (regs %d)' % (1 << LB, g, t, fn.attributes['num_regs']))
    x = out[:1 << 24].astype(cp.float64)
    print('   mean %.5f var %.5f skew %.5f kurt %.5f  P(|z|>3) %.6f (0.002700)' % (float(x.mean()), float(x.var()),
          float((x**3).mean()), float((x**4).mean()), float((cp.abs(x) > 3).mean())))
