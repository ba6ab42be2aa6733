// cusci-sparse: y = A x for CSR matrices with short rows ("CSR-stream" by warps).
// The Rust side prepends the element prelude (T, R, TZERO) and `typedef int|long long I;`;
// one module per (element, index) pair, key cusci_sparse_spmv_<t>_<i>.
//
// Each warp takes tiles of 32 * RPT consecutive rows (lane l owns rows r0 + l + 32 j, j < RPT).
// It reads the tile's nonzeros [indptr[r0], indptr[r1]) in chunks of SPMV_CH entries with
// coalesced streaming loads,
// multiplies each by the gathered x (read-only cache) into a per-warp shared buffer, then every
// lane sums its rows' products in stored order: the CPU's order, so real results are bitwise
// the CPU's. A chunk that lies inside one row (a long row) is summed by the whole warp instead
// (tree order). Rows past the matrix end read indptr[m] and stay empty. y is written with
// streaming stores, every row exactly once (no fill pass needed).

#ifndef SPMV_WARPS
#define SPMV_WARPS 8
#endif
// bytes of one warp's product buffer for 8-byte elements (the entries per chunk are the same
// for f32; half as many for 16-byte elements)
#ifndef SPMV_CHB
#define SPMV_CHB 2048
#endif
// minimum resident blocks per SM asked of the register allocator
#ifndef SPMV_MINB
#define SPMV_MINB 4
#endif
#ifndef SPMV_LD
#define SPMV_LD(p) __ldcs(p)
#endif
#ifndef SPMV_LDX
#define SPMV_LDX(p) __ldg(p)
#endif
#ifndef SPMV_ST
#define SPMV_ST(p, v) __stcs(p, v)
#endif
#define SPMV_FULL 0xffffffffu

constexpr int SPMV_CH = SPMV_CHB / (sizeof(T) > 8 ? (int)sizeof(T) : 8);

// streaming loads of the matrix arrays
__device__ __forceinline__ float spmv_ld(const float* p) { return SPMV_LD(p); }
__device__ __forceinline__ double spmv_ld(const double* p) { return SPMV_LD(p); }
__device__ __forceinline__ int spmv_ld(const int* p) { return SPMV_LD(p); }
__device__ __forceinline__ long long spmv_ld(const long long* p) { return SPMV_LD(p); }
__device__ __forceinline__ cplx32 spmv_ld(const cplx32* p) {
  float2 v = SPMV_LD(reinterpret_cast<const float2*>(p)); return mk(v.x, v.y); }
__device__ __forceinline__ cplx64 spmv_ld(const cplx64* p) {
  double2 v = SPMV_LD(reinterpret_cast<const double2*>(p)); return mk(v.x, v.y); }

// gathers of x through the read-only cache
__device__ __forceinline__ float spmv_ldx(const float* p) { return SPMV_LDX(p); }
__device__ __forceinline__ double spmv_ldx(const double* p) { return SPMV_LDX(p); }
__device__ __forceinline__ cplx32 spmv_ldx(const cplx32* p) {
  float2 v = SPMV_LDX(reinterpret_cast<const float2*>(p)); return mk(v.x, v.y); }
__device__ __forceinline__ cplx64 spmv_ldx(const cplx64* p) {
  double2 v = SPMV_LDX(reinterpret_cast<const double2*>(p)); return mk(v.x, v.y); }

// streaming stores of y
__device__ __forceinline__ void spmv_st(float* p, float v) { SPMV_ST(p, v); }
__device__ __forceinline__ void spmv_st(double* p, double v) { SPMV_ST(p, v); }
__device__ __forceinline__ void spmv_st(cplx32* p, cplx32 v) {
  SPMV_ST(reinterpret_cast<float2*>(p), make_float2(v.re, v.im)); }
__device__ __forceinline__ void spmv_st(cplx64* p, cplx64 v) {
  SPMV_ST(reinterpret_cast<double2*>(p), make_double2(v.re, v.im)); }

// warp shuffles of an element
__device__ __forceinline__ float spmv_shx(float v, int m) { return __shfl_xor_sync(SPMV_FULL, v, m); }
__device__ __forceinline__ double spmv_shx(double v, int m) { return __shfl_xor_sync(SPMV_FULL, v, m); }
__device__ __forceinline__ cplx32 spmv_shx(cplx32 v, int m) {
  return mk(__shfl_xor_sync(SPMV_FULL, v.re, m), __shfl_xor_sync(SPMV_FULL, v.im, m)); }
__device__ __forceinline__ cplx64 spmv_shx(cplx64 v, int m) {
  return mk(__shfl_xor_sync(SPMV_FULL, v.re, m), __shfl_xor_sync(SPMV_FULL, v.im, m)); }

template <int RPT>
__device__ __forceinline__ void spmv_tiles(const I* __restrict__ indptr, const I* __restrict__ indices,
                                           const T* __restrict__ data, const T* __restrict__ x,
                                           T* __restrict__ y, i64 m, i64 ntiles) {
  __shared__ T buf[SPMV_WARPS * SPMV_CH];
  const int lane = threadIdx.x & 31;
  T* b = buf + (threadIdx.x >> 5) * SPMV_CH;
  for (i64 tile = (i64)blockIdx.x * SPMV_WARPS + (threadIdx.x >> 5); tile < ntiles;
       tile += (i64)gridDim.x * SPMV_WARPS) {
    const i64 r0 = tile * (32 * RPT);
    const i64 r1 = min(r0 + 32 * RPT, m);
    i64 lo[RPT], hi[RPT];
    T acc[RPT];
#pragma unroll
    for (int j = 0; j < RPT; ++j) {
      lo[j] = (i64)spmv_ld(indptr + min(r0 + lane + 32 * j, r1));
      acc[j] = TZERO;
    }
    const i64 e = (i64)spmv_ld(indptr + r1);
#pragma unroll
    for (int j = 0; j < RPT; ++j) {
      const i64 nx = __shfl_down_sync(SPMV_FULL, lo[j], 1);
      i64 first_next = e;
      if (j + 1 < RPT) first_next = __shfl_sync(SPMV_FULL, lo[j + 1 < RPT ? j + 1 : j], 0);
      hi[j] = lane < 31 ? nx : first_next;
    }
    const i64 s = __shfl_sync(SPMV_FULL, lo[0], 0);
    for (i64 cs = s; cs < e; cs += SPMV_CH) {
      const i64 ce = cs + SPMV_CH;
      {
        constexpr int STEPS = SPMV_CH / 32;
        I c[STEPS];
        T v[STEPS];
#pragma unroll
        for (int q = 0; q < STEPS; ++q) {
          const i64 k = cs + lane + 32 * q;
          const bool in = k < e;
          c[q] = in ? spmv_ld(indices + k) : (I)0;
          v[q] = in ? spmv_ld(data + k) : TZERO;
        }
#pragma unroll
        for (int q = 0; q < STEPS; ++q) b[lane + 32 * q] = v[q] * spmv_ldx(x + c[q]);
      }
      __syncwarp();
      // a chunk inside one row: the whole warp sums it (at most one (lane, j) owns it)
      int own = -1;
#pragma unroll
      for (int j = 0; j < RPT; ++j)
        if (lo[j] <= cs && hi[j] >= ce) own = j;
      if (__any_sync(SPMV_FULL, own >= 0)) {
        T part = TZERO;
#pragma unroll
        for (int q = 0; q < SPMV_CH / 32; ++q) part = part + b[lane + 32 * q];
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) part = part + spmv_shx(part, o);
#pragma unroll
        for (int j = 0; j < RPT; ++j)
          if (own == j) acc[j] = acc[j] + part;
      } else {
#pragma unroll
        for (int j = 0; j < RPT; ++j) {
          const i64 kb = max(lo[j], cs), ke = min(hi[j], ce);
          for (i64 k = kb; k < ke; ++k) acc[j] = acc[j] + b[k - cs];
        }
      }
      __syncwarp();
    }
#pragma unroll
    for (int j = 0; j < RPT; ++j) {
      const i64 r = r0 + lane + 32 * j;
      if (r < r1) spmv_st(y + r, acc[j]);
    }
  }
}

// sp_spmv_r<RPT>: scalar coalesced loads, any alignment. Block: SPMV_WARPS * 32 threads; any
// grid. (16-byte vector loads were measured on the H200 and were not faster: Poisson 4096² f64
// 0.438 ms against 0.372 ms scalar; f32 and random matrices within 2 %.)
#define SPMV_KERNELS(R)                                                                       \
  extern "C" __global__ void __launch_bounds__(SPMV_WARPS * 32, SPMV_MINB)                    \
  sp_spmv_r##R(const I* indptr, const I* indices, const T* data, const T* x, T* y, i64 m,     \
               i64 ntiles) {                                                                  \
    spmv_tiles<R>(indptr, indices, data, x, y, m, ntiles);                                    \
  }
// every instance, unless the including side instantiates only the one it launches
#ifndef SPMV_CUSTOM_INSTANCES
SPMV_KERNELS(1)
SPMV_KERNELS(2)
SPMV_KERNELS(3)
SPMV_KERNELS(4)
SPMV_KERNELS(6)
SPMV_KERNELS(8)
#endif
