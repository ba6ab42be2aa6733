# randn-2: where the shipped normal kernel's time goes (variants of cusci_random_normal_f32).
import cupy as cp, numpy as np, os, re
root = os.getcwd()
src = open(root + '/crates/core/src/random/ziggurat.cuh').read() + open(root + '/crates/core/src/random/philox.cuh').read()
body = src[src.index('extern "C" __global__ void __launch_bounds__(256) cusci_random_normal_f32'):]
body = body[:body.index('extern "C" __global__ void __launch_bounds__(256) cusci_random_normal_f64')]
def var(name, subs):
    b = body.replace('cusci_random_normal_f32', name)
    for a, c in subs:
        assert a in b, a
        b = b.replace(a, c)
    return b
V = {
 'noslow': [('const float z = cusci_zig_slow_f32(cusci_raw_word(seed, stream, e), zkey, e);', 'const float z = (float)e;')],
 'noflush': [('if (qn >= CUSCI_ZIG_WARP_FLUSH) {', 'if (qn >= CUSCI_ZIG_WARP_FLUSH) { qn = 0u; } if (false) {'),
             ('if (qn > 0u) cusci_zig_flush_f32', 'if (false) cusci_zig_flush_f32')],
 'noqueue': [('if (__any_sync(0xffffffffu, rej != 0u)) {', 'if (rej == 12345u) {'),
             ('if (qn > 0u) cusci_zig_flush_f32', 'if (false) cusci_zig_flush_f32')],
}
# the slow path inlined, without the raw-word recomputation, and a flush helper that passes the word
FL = r'''
__device__ __forceinline__ float zslow_inl(unsigned int w, uint2 zkey, cusci_u64 i)
{
    const float r = __uint_as_float(CUSCI_ZIG_R_F32);
    unsigned int k = 0u;
    for (;;) {
        const unsigned int l = w & 255u;
        const bool neg = (w & 256u) != 0u;
        const unsigned int j = w >> 9;
        const float x = __fmul_rn(__uint2float_rn(j), __uint_as_float(cusci_zig_w_f32[l]));
        if (j < cusci_zig_k_f32[l]) return neg ? -x : x;
        uint4 b = cusci_zig_block(zkey, CUSCI_ZIG_TAG, i, k++);
        if (l == 0u) return cusci_zig_slow_f32(w, zkey, i);
        const float fl = __uint_as_float(cusci_zig_f_f32[l]);
        const float fp = __uint_as_float(cusci_zig_f_f32[l - 1u]);
        if (__fadd_rn(fl, __fmul_rn(cusci_u32_to_f32_open(b.x), __fsub_rn(fp, fl))) <
            cusci_exp_f32(-__fmul_rn(__fmul_rn(x, x), 0.5f)))
            return neg ? -x : x;
        w = b.z;
    }
}
'''
# flush_f32 is a separate function: patch a copy of it
flush = src[src.index('__device__ __forceinline__ void cusci_zig_flush_f32'):]
flush = flush[:flush.index('__device__ __forceinline__ void cusci_zig_flush_f64')]
fl_inl = flush.replace('cusci_zig_flush_f32', 'flush_inl').replace('cusci_zig_slow_f32(', 'zslow_inl(')
fl_nos = flush.replace('cusci_zig_flush_f32', 'flush_nos').replace('const float z = cusci_zig_slow_f32(cusci_raw_word(seed, stream, e), zkey, e);', 'const float z = (float)e;')
fl_raw = flush.replace('cusci_zig_flush_f32', 'flush_raw').replace('const float z = cusci_zig_slow_f32(cusci_raw_word(seed, stream, e), zkey, e);', 'const float z = __uint_as_float(cusci_raw_word(seed, stream, e));')
v2 = body.replace('cusci_random_normal_f32', 'v_inline').replace('cusci_zig_flush_f32', 'flush_inl')
v3 = body.replace('cusci_random_normal_f32', 'v_noslow').replace('cusci_zig_flush_f32', 'flush_nos')
v4 = body.replace('cusci_random_normal_f32', 'v_rawonly').replace('cusci_zig_flush_f32', 'flush_raw')
extra = ''.join(var('v_' + k, s) for k, s in V.items() if k != 'noslow')
mod = cp.RawModule(code=src + FL + fl_inl + fl_nos + fl_raw + v2 + v3 + v4 + extra, options=('--std=c++17',))
N = 1 << 28
out = cp.empty(N, cp.float32); ref = cp.empty(N, cp.float32)
sms = cp.cuda.Device().attributes['MultiProcessorCount']
def timeit(fn, reps=20):
    fn(); cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))
names = ['cusci_random_normal_f32', 'v_inline', 'v_noslow', 'v_rawonly', 'v_noflush', 'v_noqueue']
for nm in names:
    f = mod.get_function(nm)
    a = f.attributes
    for g in (4, 8):
        args = (out, np.uint64(N), np.uint64(1), np.uint64(0), np.uint64(0), np.float32(0), np.float32(1))
        t = timeit(lambda: f((sms * g,), (256,), args))
        print('%-26s grid %d/SM: %.3f ms  regs %d local %d' % (nm, g, t, a['num_regs'], a['local_size_bytes']))
f0 = mod.get_function('cusci_random_normal_f32'); f1 = mod.get_function('v_inline')
args = lambda o: (o, np.uint64(N - 3), np.uint64(5), np.uint64(2), np.uint64(7), np.float32(0), np.float32(1))
f0((sms * 8,), (256,), args(ref)); f1((sms * 8,), (256,), args(out))
print('inline bit-identical:', bool(cp.all(out.view(cp.uint32)[:N-3] == ref.view(cp.uint32)[:N-3])))
import shutil; print('ncu', shutil.which('ncu'), 'nsys', shutil.which('nsys'))
