# randn-6: the shipped two-kernel f32 normal fill (2048 layers) timed kernel by kernel, no allocations.
import cupy as cp, numpy as np, os
root = os.getcwd()
src = open(root + '/crates/core/src/random/ziggurat.cuh').read() + open(root + '/crates/core/src/random/philox.cuh').read()
a = src.index('extern "C" __global__ void __launch_bounds__(256) cusci_random_normal_f32(')
b = src.index('extern "C" __global__ void __launch_bounds__(256) cusci_random_normal_f32_fix(')
k = src[a:b]
reps = [('__shared__ unsigned int sk[CUSCI_ZIG_LAYERS_F32];\n    __shared__ float sw[CUSCI_ZIG_LAYERS_F32];', '__shared__ uint2 skw[CUSCI_ZIG_LAYERS_F32];'),
        ('sk[t] = cusci_zig_k_f32[t];\n        sw[t] = __uint_as_float(cusci_zig_w_f32[t]);', 'skw[t] = make_uint2(cusci_zig_k_f32[t], cusci_zig_w_f32[t]);'),
        ('const float x = __fmul_rn(__uint2float_rn(j), sw[l]);', 'const uint2 kw = skw[l];\n                const float x = __fmul_rn(__uint2float_rn(j), __uint_as_float(kw.y));'),
        ('rej |= (j >= sk[l] ? 1u : 0u) << c;', 'rej |= (j >= kw.x ? 1u : 0u) << c;')]
k2 = k.replace('cusci_random_normal_f32(', 'packed_normal_f32(')
for x, y in reps:
    assert x in k2, x
    k2 = k2.replace(x, y)
m = cp.RawModule(code=src + k2, options=('--std=c++17',))
fill = m.get_function('cusci_random_normal_f32'); fix = m.get_function('cusci_random_normal_f32_fix')
packed = m.get_function('packed_normal_f32')
raw = m.get_function('cusci_random_raw_u32')
print('fill regs', fill.attributes['num_regs'], 'local', fill.attributes['local_size_bytes'], 'fix regs', fix.attributes['num_regs'])
N = 1 << 28
out = cp.empty(N, cp.float32)
cap = N // 16 + 1024
lst = cp.empty(cap, cp.int64); st = cp.zeros(2, cp.int64)
sms = cp.cuda.Device().attributes['MultiProcessorCount']
def timeit(fn, reps=20):
    fn(); cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))
base = lambda: (out, np.uint64(N), np.uint64(1), np.uint64(0), np.uint64(0), np.float32(0), np.float32(1))
for g in (4, 6, 8):
    def f1():
        st.fill(0); fill((sms * g,), (256,), base() + (lst, st, np.uint64(cap)))
    def both():
        f1(); fix((sms * 8,), (256,), base() + (lst, st))
    t1 = timeit(f1); tb = timeit(both)
    print('grid %d/SM: memset+fill %.3f ms, +fix %.3f ms, rejects listed %d' % (g, t1, tb, int(st[0])))
def pk():
    st.fill(0); packed((sms * 8,), (256,), base() + (lst, st, np.uint64(cap)))
ref = out.copy(); pk(); fix((sms * 8,), (256,), base() + (lst, st)); same = bool(cp.all(out.view(cp.uint32) == ref.view(cp.uint32)))
print('packed (k, w) table: memset+fill %.3f ms (bit-identical %s)' % (timeit(pk), same))
def alloc_both():
    l2 = cp.empty(cap, cp.int64); s2 = cp.zeros(2, cp.int64)
    fill((sms * 8,), (256,), base() + (l2, s2, np.uint64(cap))); fix((sms * 8,), (256,), base() + (l2, s2))
print('with allocations each call: %.3f ms' % timeit(alloc_both))
print('raw words: %.3f ms' % timeit(lambda: raw((sms * 8,), (256,), (out.view(cp.uint32), np.uint64(N), np.uint64(1), np.uint64(0), np.uint64(0)))))
print('cupy standard_normal f32 (generator): %.3f ms' % timeit(lambda: cp.random.standard_normal(N, dtype=cp.float32)))
