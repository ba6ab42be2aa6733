# randn-8 (2026-12-03, third session): where the f32 ziggurat fill spends its issue slots.
# Variants of cusci_random_normal_f32 (text replacements), each timed alone (fill only) and with
# the fix kernel, and checked bit for bit against the current kernel where they are meant to be exact.
import cupy as cp, numpy as np, os
root = os.getcwd()
src = open(root + '/crates/core/src/random/ziggurat.cuh').read() + open(root + '/crates/core/src/random/philox.cuh').read()
a = src.index('extern "C" __global__ void __launch_bounds__(256) cusci_random_normal_f32(')
b = src.index('extern "C" __global__ void __launch_bounds__(256) cusci_random_normal_f32_fix(')
k = src[a:b]
LOOP_X = 'const float x = __fmul_rn(__uint2float_rn(j), __uint_as_float(kw.y));'
LOOP_Z = 'z[c] = __fadd_rn(mean, __fmul_rn(std, (ws[c] & CUSCI_ZIG_SIGN_F32) != 0u ? -x : x));'
TAB = 'skw[t] = make_uint2(cusci_zig_k_f32[t], cusci_zig_w_f32[t]);'
TAB_S = 'skw[t] = make_uint2(cusci_zig_k_f32[t], __float_as_uint(__fmul_rn(__uint_as_float(cusci_zig_w_f32[t]), 1048576.0f)));'
# exact: x = (1 + j 2^-20) W - W with W = w 2^20 (one rounding of j w), the sign folded into W
FMA = [(TAB, TAB_S), (LOOP_X + '\n', ''), (LOOP_Z,
    'const float wsg = __uint_as_float(kw.y ^ ((ws[c] << (31u - CUSCI_ZIG_LB_F32)) & 0x80000000u));\n'
    '            const float x = __fmaf_rn(__uint_as_float(0x3f800000u | (j << 3)), wsg, -wsg);\n'
    '            z[c] = std1 ? x : __fadd_rn(mean, __fmul_rn(std, x));')]
STD1 = [('const cusci_u64 stride = cusci_thread_stride();', 'const cusci_u64 stride = cusci_thread_stride();\n    const bool std1 = mean == 0.0f && std == 1.0f;')]
V = {
    'lb8': [('__launch_bounds__(256)', '__launch_bounds__(256, 8)')],
    'fma_std1': FMA + STD1,
    'fma_std1_lb8': FMA + STD1 + [('__launch_bounds__(256)', '__launch_bounds__(256, 8)')],
    'fma_nostd': FMA + STD1[:0] + [('z[c] = std1 ? x :', 'z[c] = true ? x :')],
    # timing only (wrong values): no table read / no Philox
    'T_nolut': [('const uint2 kw = skw[l];', 'const uint2 kw = make_uint2(1u << 19, 0x35000000u + l);')],
    'T_nophilox': [('const uint4 w4 = cusci_raw_block(seed, stream, b);', 'const uint4 w4 = make_uint4((unsigned)b * 0x9E3779B9u, (unsigned)b * 0x85EBCA6Bu, (unsigned)b * 0xC2B2AE35u, (unsigned)b * 0x27D4EB2Fu);')],
}
def var(name, reps):
    s = k.replace('cusci_random_normal_f32(', name + '(')
    for x, y in reps:
        assert x in s, (name, x)
        s = s.replace(x, y)
    return s
extra = ''.join(var('v_' + n, r) for n, r in V.items())
m = cp.RawModule(code=src + extra, options=('--std=c++17',))
fix = m.get_function('cusci_random_normal_f32_fix')
N = 1 << 28
out = cp.empty(N, cp.float32); ref = cp.empty(N, cp.float32)
cap = N // 64 + 4096
lst = cp.empty(cap, cp.int64); st = cp.zeros(2, cp.int64)
sms = cp.cuda.Device().attributes['MultiProcessorCount']
def timeit(fn, reps=20):
    fn(); cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))
base = lambda o: (o, np.uint64(N), np.uint64(7), np.uint64(0), np.uint64(0), np.float32(0), np.float32(1))
G0 = N // 4 // 65536 + 1
for name in ['cusci_random_normal_f32'] + ['v_' + n for n in V]:
    f = m.get_function(name)
    for g in (G0, sms * 16):
        def fill(o=out):
            st.fill(0); f((g,), (256,), base(o) + (lst, st, np.uint64(cap)))
        def both(o=out):
            fill(o); fix((sms * 8,), (256,), base(o) + (lst, st))
        print('%-26s grid %5d: fill %.3f ms, fill+fix %.3f ms (regs %d)' % (name, g, timeit(fill), timeit(both), f.attributes['num_regs']))
    if name == 'cusci_random_normal_f32':
        both(ref)
    elif not name.startswith('v_T_'):
        both(out); print('   bit-identical:', bool(cp.all(out.view(cp.uint32) == ref.view(cp.uint32))))
# mean/std path of the fma variant against the current kernel
f = m.get_function('v_fma_std1')
for mu, sd in ((1.5, 0.25), (0.0, -2.0)):
    bb = (out, np.uint64(N), np.uint64(7), np.uint64(0), np.uint64(0), np.float32(mu), np.float32(sd))
    st.fill(0); f((G0,), (256,), bb + (lst, st, np.uint64(cap))); fix((sms * 8,), (256,), bb + (lst, st))
    o2 = out.copy()
    st.fill(0); m.get_function('cusci_random_normal_f32')((G0,), (256,), (ref,) + bb[1:] + (lst, st, np.uint64(cap))); fix((sms * 8,), (256,), (ref,) + bb[1:] + (lst, st))
    print('mean %g std %g bit-identical:' % (mu, sd), bool(cp.all(o2.view(cp.uint32) == ref.view(cp.uint32))))
