# bm1 (2026-12-03, third session): f32 normals by Box-Muller with the project's deterministic
# ln/sincospi polynomials (no ziggurat, no rejection, no second kernel) vs the current two-kernel
# ziggurat fill and CuPy's standard_normal, 2^28 f32; moments and tail fractions of each.
import cupy as cp, numpy as np, os, math
root = os.getcwd()
src = open(root + '/crates/core/src/random/ziggurat.cuh').read() + open(root + '/crates/core/src/random/philox.cuh').read()
bm = r'''
__device__ __forceinline__ float2 bm_pair(unsigned int wr, unsigned int wa)
{
    const float u = __fadd_rn(__fmul_rn(__uint2float_rz(wr), 2.3283064365386963e-10f), 1.1641532182693481e-10f);
    const float r = __fsqrt_rn(__fmul_rn(-2.0f, cusci_ln_f32(u)));
    const int s = ((int)(wa << 2)) >> 9;
    const float rr = __fmul_rn(__fadd_rn(__int2float_rn(s), 0.5f), 5.9604644775390625e-8f);
    const unsigned int q = (wa + 0x20000000u) >> 30;
    const float z = __fmul_rn(rr, rr);
    const float sp = __fadd_rn(__fmul_rn(2.0f, rr), __fmul_rn(rr, cusci_sin_poly_f32(z)));
    const float cp = __fsub_rn(1.0f, __fmul_rn(z, cusci_cos_poly_f32(z)));
    float sn, cs;
    if (q == 0u) { sn = sp; cs = cp; } else if (q == 1u) { sn = cp; cs = -sp; }
    else if (q == 2u) { sn = -sp; cs = -cp; } else { sn = -cp; cs = sp; }
    return make_float2(__fmul_rn(r, cs), __fmul_rn(r, sn));
}
extern "C" __global__ void __launch_bounds__(256) bm_fill(float* out, unsigned long long n, unsigned long long seed,
    unsigned long long stream, float mean, float std)
{
    const unsigned long long nb = n >> 2;
    for (unsigned long long t = cusci_thread_index(); t < nb; t += cusci_thread_stride()) {
        const uint4 w = cusci_raw_block(seed, stream, t);
        const float2 a = bm_pair(w.x, w.y), b = bm_pair(w.z, w.w);
        *reinterpret_cast<float4*>(out + 4 * t) = make_float4(__fadd_rn(mean, __fmul_rn(std, a.x)), __fadd_rn(mean, __fmul_rn(std, a.y)),
            __fadd_rn(mean, __fmul_rn(std, b.x)), __fadd_rn(mean, __fmul_rn(std, b.y)));
    }
}
extern "C" __global__ void __launch_bounds__(256) bm_fill_std1(float* out, unsigned long long n, unsigned long long seed,
    unsigned long long stream)
{
    const unsigned long long nb = n >> 2;
    for (unsigned long long t = cusci_thread_index(); t < nb; t += cusci_thread_stride()) {
        const uint4 w = cusci_raw_block(seed, stream, t);
        const float2 a = bm_pair(w.x, w.y), b = bm_pair(w.z, w.w);
        *reinterpret_cast<float4*>(out + 4 * t) = make_float4(a.x, a.y, b.x, b.y);
    }
}
extern "C" __global__ void __launch_bounds__(256) raw_fill(unsigned int* out, unsigned long long n, unsigned long long seed,
    unsigned long long stream)
{
    const unsigned long long nb = n >> 2;
    for (unsigned long long t = cusci_thread_index(); t < nb; t += cusci_thread_stride())
        *reinterpret_cast<uint4*>(out + 4 * t) = cusci_raw_block(seed, stream, t);
}
'''
m = cp.RawModule(code=src + bm, options=('--std=c++17',))
N = 1 << 28
out = cp.empty(N, cp.float32)
sms = cp.cuda.Device().attributes['MultiProcessorCount']
def timeit(fn, reps=20):
    fn(); cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))
def stats(name, x):
    x64 = x.astype(cp.float64)
    mu = float(x64.mean()); v = float(((x64 - mu) ** 2).mean())
    sk = float(((x64 - mu) ** 3).mean()) / v ** 1.5; ku = float(((x64 - mu) ** 4).mean()) / v ** 2 - 3
    ax = cp.abs(x)
    tails = [float((ax > k).sum()) / N for k in (1, 2, 3, 4, 5, 6)]
    exp = [math.erfc(k / math.sqrt(2)) for k in (1, 2, 3, 4, 5, 6)]
    print('%-10s mean %+.2e var-1 %+.2e skew %+.2e exkurt %+.2e max|z| %.3f' % (name, mu, v - 1, sk, ku, float(ax.max())))
    print('           tails/expected:', ' '.join('%.5f' % (a / b) for a, b in zip(tails, exp)))
    # 64-bin histogram of the CDF values vs uniform: chi2
    h = cp.histogram(x[: 1 << 26], bins=cp.linspace(-4, 4, 65))[0].get()
    edges = np.linspace(-4, 4, 65); cdf = np.array([0.5 * math.erfc(-e / math.sqrt(2)) for e in edges])
    ex = np.diff(cdf) * (1 << 26)
    print('           chi2(64 bins, 2^26) = %.1f' % float(((h - ex) ** 2 / ex).sum()))
raw = cp.empty(N, cp.uint32)
f = m.get_function('raw_fill')
for g in (4, 8, 16):
    print('raw philox grid %2d/SM: %.3f ms' % (g, timeit(lambda: f((sms * g,), (256,), (raw, np.uint64(N), np.uint64(7), np.uint64(0)))) ))
for name in ('bm_fill', 'bm_fill_std1'):
    f = m.get_function(name)
    print(name, 'regs', f.attributes['num_regs'])
    for g in (2, 4, 8, 16, 32):
        if name == 'bm_fill':
            fn = lambda: f((sms * g,), (256,), (out, np.uint64(N), np.uint64(7), np.uint64(0), np.float32(0), np.float32(1)))
        else:
            fn = lambda: f((sms * g,), (256,), (out, np.uint64(N), np.uint64(7), np.uint64(0)))
        print('%-13s grid %2d/SM: %.3f ms' % (name, g, timeit(fn)))
stats('boxmuller', out)
r = cp.random.default_rng(7)
print('cupy standard_normal f32: %.3f ms' % timeit(lambda: r.standard_normal(out=out, dtype=cp.float32)))
stats('cupy', out)
# current zig fill (two kernels)
zf = m.get_function('cusci_random_normal_f32'); fix = m.get_function('cusci_random_normal_f32_fix')
cap = N // 64 + 4096
lst = cp.empty(cap, cp.int64); st = cp.zeros(2, cp.int64)
base = (out, np.uint64(N), np.uint64(7), np.uint64(0), np.uint64(0), np.float32(0), np.float32(1))
def both():
    st.fill(0); zf((N // 4 // 65536 + 1,), (256,), base + (lst, st, np.uint64(cap))); fix((sms * 8,), (256,), base + (lst, st))
print('ziggurat two kernels: %.3f ms' % timeit(both))
stats('ziggurat', out)
