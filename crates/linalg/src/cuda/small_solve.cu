// cusci-linalg: batched LU solve of small systems (n <= 32), one module per element type and
// width. The host prepends: #define LT <element type>, #define LR <its real type>,
// #define LW <lanes per system: a power of two, 1..32>.
//
// A system of order n <= LW is held by LW consecutive lanes of a warp (32 / LW systems per warp):
// lane r keeps row r of the matrix in registers (rows n..LW-1 are padding: rows of the identity,
// never chosen as pivots for the first n columns, so they change nothing). Gaussian elimination
// with partial pivoting as LAPACK's getrf: the pivot of column c is the row of largest
// |re| + |im| among the rows not yet used, ties going to the row LAPACK's swaps would have put
// first (each lane tracks the position its row would have after getrf's interchanges), a zero
// pivot column is skipped and recorded. Rows are never moved: lane r remembers the step at which
// its row became a pivot, and the substitutions follow that order. Then, for each right-hand
// side column, L y = P b and U x = y with warp shuffles.
//
// a: count x n x n, b: count x n x k (unused when b_ident: the identity, k = n), x: count x n x k,
// all contiguous row-major. status[0] (starts 0): max over singular systems of
// ~(system << 32 | first zero pivot); status[1] (starts 0): set when any input is not finite.

__device__ __forceinline__ float la_shfl(float v, int src) { return __shfl_sync(0xffffffffu, v, src, LW); }
__device__ __forceinline__ double la_shfl(double v, int src) { return __shfl_sync(0xffffffffu, v, src, LW); }
__device__ __forceinline__ int la_shfl(int v, int src) { return __shfl_sync(0xffffffffu, v, src, LW); }
__device__ __forceinline__ cplx32 la_shfl(cplx32 v, int src) {
  return mk(__shfl_sync(0xffffffffu, v.re, src, LW), __shfl_sync(0xffffffffu, v.im, src, LW));
}
__device__ __forceinline__ cplx64 la_shfl(cplx64 v, int src) {
  return mk(__shfl_sync(0xffffffffu, v.re, src, LW), __shfl_sync(0xffffffffu, v.im, src, LW));
}
__device__ __forceinline__ bool la_fin(float v) { return isfinite(v); }
__device__ __forceinline__ bool la_fin(double v) { return isfinite(v); }
__device__ __forceinline__ bool la_fin(cplx32 v) { return isfinite(v.re) && isfinite(v.im); }
__device__ __forceinline__ bool la_fin(cplx64 v) { return isfinite(v.re) && isfinite(v.im); }
__device__ __forceinline__ LR la_abs1(LT v) { return fabs(cusci_real(v)) + fabs(cusci_imag(v)); }

extern "C" __global__ void __launch_bounds__(128)
la_small_solve(const LT* __restrict__ a, const LT* __restrict__ b, LT* __restrict__ x, i64 count,
               int n, int k, int b_ident, unsigned long long* status) {
  const LT zero = cusci_cast(LT, 0.0), one = cusci_cast(LT, 1.0);
  const int lane = threadIdx.x & 31;
  const int r = lane % LW;
  const i64 per_warp = 32 / LW;
  const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
  bool bad = false;
  // the loop bound is the same for every lane of a warp: the shuffles below see all 32 lanes
  for (i64 base = warp * per_warp; base < count; base += warps * per_warp) {
    const i64 s = base + lane / LW;
    const bool live = s < count;
    const bool real_row = live && r < n;
    LT row[LW];
    const LT* ar = a + (s * n + r) * n;
#pragma unroll
    for (int j = 0; j < LW; ++j) {
      if (real_row && j < n) {
        row[j] = ar[j];
        bad |= !la_fin(row[j]);
      } else {
        row[j] = (j == r) ? one : zero;
      }
    }
    int pos = r;    // where getrf's row interchanges would have put this row
    int step = LW;  // the column at which this row became the pivot row (LW: not yet)
    int pl[LW];     // the pivot lane of each column
    int info = -1;
#pragma unroll
    for (int c = 0; c < LW; ++c) {
      // candidates: rows not yet pivots (their positions are >= c); key = position, lane
      const bool cand = step == LW;
      LR mag = cand ? la_abs1(row[c]) : (LR)-1;
      int key = ((cand ? pos : 255) << 8) | r;
#pragma unroll
      for (int off = LW / 2; off >= 1; off >>= 1) {
        LR om = __shfl_xor_sync(0xffffffffu, mag, off, LW);
        int ok = __shfl_xor_sync(0xffffffffu, key, off, LW);
        if (om > mag || (om == mag && ok < key)) {
          mag = om;
          key = ok;
        }
      }
      const int p = key & 255, ppos = key >> 8;
      pl[c] = p;
      // a zero (or NaN) pivot: the column is skipped, as getrf does (its row stays in place)
      const bool zcol = !(mag != (LR)0);
      if (zcol && info < 0) info = c;
      if (r == p) {
        pos = c;
        step = c;
      } else if (pos == c) {
        pos = ppos;
      }
      const LT d = la_shfl(row[c], p);
      const bool elim = !zcol && step == LW;
      LT l = zero;
      if (elim) {
        l = row[c] / d;
        row[c] = l;
      }
#pragma unroll
      for (int j = c + 1; j < LW; ++j) {
        LT pj = la_shfl(row[j], p);
        if (elim && l != zero) row[j] = row[j] - l * pj;
      }
    }
    if (live && r == 0 && info >= 0 && info < n)
      atomicMax(&status[0], ~(((unsigned long long)s << 32) | (unsigned long long)info));
    // right-hand sides, one column at a time: L y = P b, then U x = y; lane r starts with
    // b's row r and ends with x's row `step`
    const LT* br = b_ident ? nullptr : b + s * n * k;
    LT* xr = x + s * n * k;
    for (int q = 0; q < k; ++q) {
      LT v = zero;
      if (real_row) {
        if (b_ident) {
          v = (r == q) ? one : zero;
        } else {
          v = br[(i64)r * k + q];
          bad |= !la_fin(v);
        }
      }
#pragma unroll
      for (int c = 0; c < LW; ++c) {
        LT yc = la_shfl(v, pl[c]);
        if (step > c) v = v - row[c] * yc;
      }
#pragma unroll
      for (int c = LW - 1; c >= 0; --c) {
        if (step == c) v = v / row[c];
        LT xc = la_shfl(v, pl[c]);
        if (step < c) v = v - row[c] * xc;
      }
      if (live && step < n) xr[(i64)step * k + q] = v;
    }
  }
  if (__syncthreads_or(bad) && threadIdx.x == 0) atomicOr((unsigned int*)&status[1], 1u);
}
