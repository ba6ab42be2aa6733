# randn-9 (2026-12-03, third session): the f32 normal fill in ONE kernel: each block finishes its own
# queued failures after its main loop (no list, no fix kernel, no state memset); x = (1 + j 2^-20) W - W
# by one FMA with the sign folded into W (exact: bit-identical); a std-normal instantiation; 32-bit
# block counters when the launch's blocks share their high word (Philox's counter word 1 uniform).
import cupy as cp, numpy as np, os
root = os.getcwd()
src = open(root + '/crates/core/src/random/ziggurat.cuh').read() + open(root + '/crates/core/src/random/philox.cuh').read()
K = r'''
template <bool STD1, bool U32>
__device__ __forceinline__ void inb_fill(float* out, unsigned long long n, unsigned long long seed,
    unsigned long long stream, unsigned long long start, float mean, float std)
{
    __shared__ uint2 skw[CUSCI_ZIG_LAYERS_F32];
    __shared__ unsigned int qs[CUSCI_ZIG_BLOCK_QUEUE];
    __shared__ unsigned int qn;
    for (unsigned int t = threadIdx.x; t < CUSCI_ZIG_LAYERS_F32; t += blockDim.x)
        skw[t] = make_uint2(cusci_zig_k_f32[t], __float_as_uint(__fmul_rn(__uint_as_float(cusci_zig_w_f32[t]), 1048576.0f)));
    if (threadIdx.x == 0u) qn = 0u;
    __syncthreads();
    if (n == 0ULL) return;
    const cusci_u64 end = start + n;
    const cusci_u64 first = start >> 2;
    const cusci_u64 nb = ((end - 1ULL) >> 2) - first + 1ULL;
    const bool vec = ((start & 3ULL) == 0ULL) && cusci_aligned16(out);
    const cusci_u64 stride = cusci_thread_stride();
    const cusci_u64 t0 = (cusci_u64)blockIdx.x * blockDim.x;
    const uint2 key = cusci_seed_key(seed);
    const unsigned int s0 = (unsigned int)stream, s1 = (unsigned int)(stream >> 32);
    const unsigned int fhi = (unsigned int)(first >> 32), flo = (unsigned int)first;
    unsigned int it = 0u;
    for (cusci_u64 t = t0 + threadIdx.x; t < nb; t += stride, ++it) {
        const cusci_u64 b = first + t;
        uint4 w4;
        if (U32) w4 = cusci_philox4x32_10(make_uint4(flo + (unsigned int)t, fhi, s0, s1), key);
        else w4 = cusci_raw_block(seed, stream, b);
        const unsigned int ws[4] = {w4.x, w4.y, w4.z, w4.w};
        float z[4];
        unsigned int rej = 0u;
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            const unsigned int l = ws[c] & CUSCI_ZIG_LAYER_MASK_F32, j = ws[c] >> CUSCI_ZIG_J_SHIFT_F32;
            const uint2 kw = skw[l];
            const float wsg = __uint_as_float(kw.y ^ ((ws[c] << (31u - CUSCI_ZIG_LB_F32)) & 0x80000000u));
            const float x = __fmaf_rn(__uint_as_float(0x3f800000u | (j << 3)), wsg, -wsg);
            z[c] = STD1 ? x : __fadd_rn(mean, __fmul_rn(std, x));
            rej |= (j >= kw.x ? 1u : 0u) << c;
        }
        const cusci_u64 i0 = b << 2;
        if (vec && i0 + 4ULL <= end) {
            *reinterpret_cast<float4*>(out + (i0 - start)) = make_float4(z[0], z[1], z[2], z[3]);
        } else {
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                const cusci_u64 e = i0 + (cusci_u64)c;
                if (e >= start && e < end) out[e - start] = z[c];
                else rej &= ~(1u << c);
            }
        }
        if (rej != 0u) {
            unsigned int p = atomicAdd(&qn, (unsigned int)__popc(rej));
            for (; rej != 0u; rej &= rej - 1u, ++p)
                if (p < CUSCI_ZIG_BLOCK_QUEUE) qs[p] = (it << 10) | (threadIdx.x << 2) | (unsigned int)(__ffs(rej) - 1);
        }
    }
    __syncthreads();
    const unsigned int m = qn;
    if (m == 0u) return;
    const uint2 zkey = cusci_zig_key(seed, stream);
    if (m <= CUSCI_ZIG_BLOCK_QUEUE) {
        for (unsigned int s = threadIdx.x; s < m; s += blockDim.x) {
            const unsigned int code = qs[s];
            const cusci_u64 b = first + t0 + ((code >> 2) & 255u) + (cusci_u64)(code >> 10) * stride;
            const cusci_u64 e = (b << 2) + (cusci_u64)(code & 3u);
            out[e - start] = __fadd_rn(mean, __fmul_rn(std, cusci_zig_slow_f32(cusci_raw_word(seed, stream, e), zkey, e)));
        }
        return;
    }
    for (cusci_u64 t = t0 + threadIdx.x; t < nb; t += stride) {
        const cusci_u64 b = first + t;
        const uint4 w4 = cusci_raw_block(seed, stream, b);
        const unsigned int ws[4] = {w4.x, w4.y, w4.z, w4.w};
        for (int c = 0; c < 4; ++c) {
            const cusci_u64 e = (b << 2) + (cusci_u64)c;
            if (e < start || e >= end) continue;
            if ((ws[c] >> CUSCI_ZIG_J_SHIFT_F32) >= cusci_zig_k_f32[ws[c] & CUSCI_ZIG_LAYER_MASK_F32])
                out[e - start] = __fadd_rn(mean, __fmul_rn(std, cusci_zig_slow_f32(ws[c], zkey, e)));
        }
    }
}
#define INB(name, S, U) extern "C" __global__ void __launch_bounds__(256) name(float* out, unsigned long long n, \
    unsigned long long seed, unsigned long long stream, unsigned long long start, float mean, float std) \
    { inb_fill<S, U>(out, n, seed, stream, start, mean, std); }
INB(inb_gen, false, false)
INB(inb_std1, true, false)
INB(inb_std1_u32, true, true)
INB(inb_gen_u32, false, true)
'''
m = cp.RawModule(code=src + K, options=('--std=c++17',))
fix = m.get_function('cusci_random_normal_f32_fix')
zf = m.get_function('cusci_random_normal_f32')
N = 1 << 28
out = cp.empty(N, cp.float32); ref = cp.empty(N, cp.float32)
cap = N // 64 + 4096
lst = cp.empty(cap, cp.int64); st = cp.zeros(2, cp.int64)
sms = cp.cuda.Device().attributes['MultiProcessorCount']
def timeit(fn, reps=30):
    fn(); cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))
def cur(o, n, mu, sd, start=0):
    b = (o, np.uint64(n), np.uint64(7), np.uint64(0), np.uint64(start), np.float32(mu), np.float32(sd))
    st.fill(0); zf((max(n // 4 // 65536 + 1, sms * 16),), (256,), b + (lst, st, np.uint64(cap))); fix((sms * 8,), (256,), b + (lst, st))
print('current two kernels 16/SM: %.3f ms' % timeit(lambda: cur(out, N, 0, 1)))
r = cp.random.default_rng(7)
print('cupy standard_normal f32: %.3f ms' % timeit(lambda: r.standard_normal(out=out, dtype=cp.float32)))
for name in ('inb_gen', 'inb_std1', 'inb_std1_u32', 'inb_gen_u32'):
    f = m.get_function(name)
    for g in (8, 16, 32, 64):
        G = max(sms * g, N // 4 // 65536 + 1)
        t = timeit(lambda: f((G,), (256,), (out, np.uint64(N), np.uint64(7), np.uint64(0), np.uint64(0), np.float32(0), np.float32(1))))
        print('%-14s grid %2d/SM: %.3f ms (regs %d)' % (name, g, t, f.attributes['num_regs']))
# bit identity on several shapes/offsets/means
ok = True
for (n, start, mu, sd) in ((N, 0, 0, 1), (N, 0, 1.5, 0.25), (1000003, 5, 0, 1), (77, 2, -1, 3), (4 * 65536 * 300 + 3, 1, 0, 1)):
    cur(ref, n, mu, sd, start)
    for name in ('inb_gen', 'inb_std1', 'inb_std1_u32', 'inb_gen_u32'):
        if 'std1' in name and (mu, sd) != (0, 1): continue
        if n < N: out[:n] = 0
        f = m.get_function(name)
        G = max(sms * 16, n // 4 // 65536 + 1) if n > 100000 else 3
        f((G,), (256,), (out, np.uint64(n), np.uint64(7), np.uint64(0), np.uint64(start), np.float32(mu), np.float32(sd)))
        same = bool(cp.all(out[:n].view(cp.uint32) == ref[:n].view(cp.uint32)))
        ok &= same
        if not same: print('MISMATCH', name, n, start, mu, sd, int((out[:n].view(cp.uint32) != ref[:n].view(cp.uint32)).sum()))
print('all bit-identical:', ok)
# overflow path: a grid of 1 block with > 1536 failures (n = 2^22 gives ~9600)
n = 1 << 22
cur(ref, n, 0, 1)
out[:n] = 0
m.get_function('inb_gen')((1,), (256,), (out, np.uint64(n), np.uint64(7), np.uint64(0), np.uint64(0), np.float32(0), np.float32(1)))
print('overflow path bit-identical:', bool(cp.all(out[:n].view(cp.uint32) == ref[:n].view(cp.uint32))))
