# randn-1: prototype of a smem-tiled ziggurat normal fill (issue 2: core.randn < 1x CuPy).
# Variants against the shipped kernel cusci_random_normal_f32 (bit-identical check) and timed.
import cupy as cp, numpy as np, os
root = os.getcwd()
src = open(root + '/crates/core/src/random/ziggurat.cuh').read() + open(root + '/crates/core/src/random/philox.cuh').read()
K = r'''
extern "C" __global__ void __launch_bounds__(256) zig_tile(float* out, unsigned long long n,
    unsigned long long seed, unsigned long long stream, unsigned long long start, float mean, float std)
{
    __shared__ unsigned int sk[256];
    __shared__ float sw[256];
    __shared__ float4 tiles[8][TT * 32];
    __shared__ unsigned short qs[8][QCAP];
    for (unsigned int t = threadIdx.x; t < 256u; t += blockDim.x) {
        sk[t] = cusci_zig_k_f32[t];
        sw[t] = __uint_as_float(cusci_zig_w_f32[t]);
    }
    __syncthreads();
    if (n == 0ULL) return;
    const unsigned int lane = threadIdx.x & 31u, wid = threadIdx.x >> 5;
    float4* tile = tiles[wid];
    float* tf = reinterpret_cast<float*>(tile);
    unsigned short* q = qs[wid];
    const cusci_u64 end = start + n;
    const cusci_u64 first = start >> 2;
    const cusci_u64 nb = ((end - 1ULL) >> 2) - first + 1ULL;
    const bool vec = ((start & 3ULL) == 0ULL) && cusci_aligned16(out);
    const uint2 zkey = cusci_zig_key(seed, stream);
    const cusci_u64 gw = (cusci_u64)blockIdx.x * (blockDim.x >> 5) + wid;
    const cusci_u64 wstride = (cusci_u64)gridDim.x * (blockDim.x >> 5) * (TT * 32u);
    for (cusci_u64 tb = gw * (TT * 32u); tb < nb; tb += wstride) {
        unsigned long long rej = 0ULL;
#pragma unroll
        for (unsigned int t = 0; t < TT; ++t) {
            const cusci_u64 bi = tb + t * 32u + lane;
            float z[4] = {0.f, 0.f, 0.f, 0.f};
            if (bi < nb) {
                const uint4 w4 = cusci_raw_block(seed, stream, first + bi);
                const unsigned int ws[4] = {w4.x, w4.y, w4.z, w4.w};
#pragma unroll
                for (int c = 0; c < 4; ++c) {
                    const unsigned int l = ws[c] & 255u, j = ws[c] >> 9;
                    const float x = __fmul_rn(__uint2float_rn(j), sw[l]);
                    const bool r = j >= sk[l];
                    z[c] = r ? __uint_as_float(ws[c]) : __fadd_rn(mean, __fmul_rn(std, (ws[c] & 256u) != 0u ? -x : x));
                    rej |= (r ? 1ULL : 0ULL) << (t * 4u + c);
                }
            }
            tile[t * 32u + lane] = make_float4(z[0], z[1], z[2], z[3]);
        }
        if (__any_sync(0xffffffffu, rej != 0ULL)) {
            /* rej bit (t*4+c) is tile float (t*32+lane)*4+c */
            const unsigned int cnt = __popcll(rej);
            unsigned int incl = cnt;
#pragma unroll
            for (unsigned int o = 1u; o < 32u; o <<= 1) {
                const unsigned int v = __shfl_up_sync(0xffffffffu, incl, o);
                if (lane >= o) incl += v;
            }
            const unsigned int total = __shfl_sync(0xffffffffu, incl, 31);
            for (unsigned int p0 = 0u; p0 < total; p0 += QCAP) {
                unsigned int k = incl - cnt; unsigned long long rr = rej;
                while (rr != 0ULL) {
                    const unsigned int bit = __ffsll(rr) - 1u;
                    if (k >= p0 && k < p0 + QCAP) q[k - p0] = (unsigned short)(((bit >> 2) * 32u + lane) * 4u + (bit & 3u));
                    ++k;
                    rr &= rr - 1u;
                }
                __syncwarp();
                const unsigned int m = min(QCAP, total - p0);
                for (unsigned int s = lane; s < m; s += 32u) {
                    const unsigned int id = q[s];
                    const cusci_u64 e = ((first + tb) << 2) + id;
                    const float zz = cusci_zig_slow_f32(__float_as_uint(tf[id]), zkey, e);
                    tf[id] = __fadd_rn(mean, __fmul_rn(std, zz));
                }
                __syncwarp();
            }
        }
        __syncwarp();
#pragma unroll
        for (unsigned int t = 0; t < TT; ++t) {
            const cusci_u64 bi = tb + t * 32u + lane;
            if (bi < nb) {
                const cusci_u64 i0 = (first + bi) << 2;
                const float4 v = tile[t * 32u + lane];
                if (vec && i0 >= start && i0 + 4ULL <= end) {
                    *reinterpret_cast<float4*>(out + (i0 - start)) = v;
                } else {
                    const float zv[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
                    for (int c = 0; c < 4; ++c) {
                        const cusci_u64 e = i0 + (cusci_u64)c;
                        if (e >= start && e < end) out[e - start] = zv[c];
                    }
                }
            }
        }
        __syncwarp();
    }
}
'''
FAST = r'''
extern "C" __global__ void __launch_bounds__(256) zig_fastonly(float* out, unsigned long long n,
    unsigned long long seed, unsigned long long stream, unsigned long long start, float mean, float std)
{
    __shared__ unsigned int sk[256];
    __shared__ float sw[256];
    for (unsigned int t = threadIdx.x; t < 256u; t += blockDim.x) { sk[t] = cusci_zig_k_f32[t]; sw[t] = __uint_as_float(cusci_zig_w_f32[t]); }
    __syncthreads();
    const cusci_u64 nb = n >> 2;
    for (cusci_u64 b = cusci_thread_index(); b < nb; b += cusci_thread_stride()) {
        const uint4 w4 = cusci_raw_block(seed, stream, b);
        const unsigned int ws[4] = {w4.x, w4.y, w4.z, w4.w};
        float z[4];
        for (int c = 0; c < 4; ++c) { const unsigned int l = ws[c] & 255u, j = ws[c] >> 9;
            const float x = __fmul_rn(__uint2float_rn(j), sw[l]); z[c] = (ws[c] & 256u) ? -x : x; }
        *reinterpret_cast<float4*>(out + 4 * b) = make_float4(z[0], z[1], z[2], z[3]);
    }
}
'''
opts = ('--std=c++17',)
base = cp.RawModule(code=src, options=opts)
ref = base.get_function('cusci_random_normal_f32')
raw = base.get_function('cusci_random_raw_u32')
fast = cp.RawModule(code=src + FAST, options=opts).get_function('zig_fastonly')
variants = {}
for TT in (4, 8):
    for QC in (32, 64):
        m = cp.RawModule(code=src + K.replace('TT', str(TT)).replace('QCAP', str(QC) + 'u'), options=opts)
        variants[(TT, QC)] = m.get_function('zig_tile')
N = 1 << 28
out = cp.empty(N, cp.float32)
outr = cp.empty(N, cp.float32)
sms = cp.cuda.Device().attributes['MultiProcessorCount']
def launch(f, o, n, seed, stream, start, grid):
    f((grid,), (256,), (o, np.uint64(n), np.uint64(seed), np.uint64(stream), np.uint64(start), np.float32(0), np.float32(1)))
def timeit(fn, reps=20):
    fn(); cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))
# correctness: against the shipped kernel
ok = True
for (TT, QC), f in variants.items():
    for (n, seed, stream, start) in [(N, 1, 0, 0), (N - 7, 2, 3, 5), ((1 << 20) + 3, 7, 1, 2), (5, 9, 0, 1), (1, 3, 2, 7)]:
        o = out[:n]; orf = outr[:n]
        o.fill(np.nan); orf.fill(np.nan)
        launch(ref, orf, n, seed, stream, start, sms * 8)
        launch(f, o, n, seed, stream, start, sms * 6)
        same = bool(cp.all(o.view(cp.uint32) == orf.view(cp.uint32)))
        if not same:
            ok = False
            print('MISMATCH', TT, QC, n, seed, stream, start, int(cp.sum(o.view(cp.uint32) != orf.view(cp.uint32))))
print('bit-identical to shipped kernel:', ok)
print('std of one output', float(out.std()), 'mean', float(out.mean()))
outu = out.view(cp.uint32)
for g in (2, 4, 6, 8):
    print('shipped grid %d/SM: %.3f ms' % (g, timeit(lambda: launch(ref, out, N, 1, 0, 0, sms * g))))
print('raw u32 words (%d/SM): %.3f ms' % (8, timeit(lambda: launch(raw, outu, N, 1, 0, 0, sms * 8))))
print('fast path only, no fix: %.3f ms' % timeit(lambda: launch(fast, out, N, 1, 0, 0, sms * 8)))
for (TT, QC), f in variants.items():
    for g in (2, 4, 6, 8):
        print('tile T=%d Q=%d grid %d/SM: %.3f ms' % (TT, QC, g, timeit(lambda: launch(f, out, N, 1, 0, 0, sms * g))))
g = cp.random.default_rng(1) if False else None
print('cupy.random.standard_normal f32: %.3f ms' % timeit(lambda: cp.random.standard_normal(N, dtype=cp.float32)))
rs = cp.random.RandomState(1)
print('cupy RandomState.standard_normal f32: %.3f ms' % timeit(lambda: rs.standard_normal(N, dtype=cp.float32)))
