// cusci-linalg kernels (module "cusci-linalg/kernels"): the passes around the vendor calls.
// Every kernel exists for the four element types (suffix _f32, _f64, _c32, _c64).
//
// status words: kernels that detect a problem set or lower a device word that the host reads
// once, together with cuSOLVER's info, at the one synchronisation of the call.

__device__ __forceinline__ bool la_finite(float v) { return isfinite(v); }
__device__ __forceinline__ bool la_finite(double v) { return isfinite(v); }
__device__ __forceinline__ bool la_finite(cplx32 v) { return isfinite(v.re) && isfinite(v.im); }
__device__ __forceinline__ bool la_finite(cplx64 v) { return isfinite(v.re) && isfinite(v.im); }

template <class T> __device__ __forceinline__ T la_zero() { return cusci_cast(T, 0.0); }
template <class T> __device__ __forceinline__ T la_one() { return cusci_cast(T, 1.0); }

// out[i] = in[i] (when out != 0) for i < n; *flag = 1 when any element is not finite.
template <class T>
__device__ void la_finite_copy(const T* __restrict__ in, T* __restrict__ out, i64 n, int* flag) {
  bool bad = false;
  i64 stride = (i64)gridDim.x * blockDim.x;
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    T v = in[i];
    bad |= !la_finite(v);
    if (out) out[i] = v;
  }
  if (__syncthreads_or(bad) && threadIdx.x == 0) *flag = 1;
}

// Zeroes, in place, the part of each row-major rows x cols matrix (count of them, back to back)
// outside the triangle: keep_lower keeps j - i <= k, else j - i >= k. Only zeros are written; one
// block per row at a time (no per-element division), its threads along the row's zero range.
template <class T>
__device__ void la_tri_zero(T* a, i64 rows, i64 cols, i64 count, int keep_lower, i64 k) {
  for (i64 row = blockIdx.x; row < rows * count; row += gridDim.x) {
    const i64 i = row % rows;
    // zero range [lo, hi) of this row
    i64 lo = keep_lower ? i + k + 1 : 0;
    i64 hi = keep_lower ? cols : i + k;
    lo = lo < 0 ? 0 : lo;
    hi = hi > cols ? cols : hi;
    T* r = a + row * cols;
    for (i64 j = lo + threadIdx.x; j < hi; j += blockDim.x) r[j] = la_zero<T>();
  }
}

// out (contiguous count x rows x cols) = the strided matrices of `in` (element strides sb, si, sj),
// conjugated when conj, with the part outside the triangle zeroed (mode 0: everything kept;
// 1: j - i <= k kept; 2: j - i >= k kept). 32 x 32 tiles through shared memory, so that reads are
// coalesced whether the input's rows or its columns are contiguous. Block (32, 8); grid
// (ceil(cols / 32), ceil(rows / 32), min(count, 65535)).
template <class T>
__device__ void la_tile_copy(const T* __restrict__ in, T* __restrict__ out, i64 rows, i64 cols,
                             i64 count, i64 sb, i64 si, i64 sj, int mode, i64 k, int conj) {
  __shared__ T tile[32][33];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const i64 i0 = (i64)blockIdx.y * 32, j0 = (i64)blockIdx.x * 32;
  const bool by_rows = !(si == 1 && sj != 1);  // read along j (rows contiguous) or along i
  for (i64 b = blockIdx.z; b < count; b += gridDim.z) {
    const T* src = in + b * sb;
    T* dst = out + b * rows * cols;
    for (int r = ty; r < 32; r += 8) {
      int il = by_rows ? r : tx, jl = by_rows ? tx : r;
      i64 i = i0 + il, j = j0 + jl;
      if (i < rows && j < cols) tile[il][jl] = src[i * si + j * sj];
    }
    __syncthreads();
    for (int r = ty; r < 32; r += 8) {
      i64 i = i0 + r, j = j0 + tx;
      if (i < rows && j < cols) {
        T v = tile[r][tx];
        if (conj) v = cusci_conj(v);
        i64 d = j - i;
        bool keep = mode == 0 || (mode == 1 ? d <= k : d >= k);
        dst[i * cols + j] = keep ? v : la_zero<T>();
      }
    }
    __syncthreads();
  }
}

// count identity matrices n x n, back to back: one block per row at a time (no per-element
// division), coalesced writes along the row.
template <class T> __device__ void la_eye(T* out, i64 n, i64 count) {
  for (i64 row = blockIdx.x; row < n * count; row += gridDim.x) {
    const i64 i = row % n;
    T* r = out + row * n;
    for (i64 j = threadIdx.x; j < n; j += blockDim.x) r[j] = i == j ? la_one<T>() : la_zero<T>();
  }
}

// The diagonal of each n x n matrix (element strides sb, si, sj) into out (count x n), and
// *first = max over zeros on it of ~(matrix << 32 | position) (first starts at 0: none).
template <class T>
__device__ void la_diag(const T* __restrict__ a, T* __restrict__ out, i64 n, i64 count, i64 sb,
                        i64 si, i64 sj, unsigned long long* first) {
  i64 total = n * count;
  i64 stride = (i64)gridDim.x * blockDim.x;
  for (i64 idx = (i64)blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += stride) {
    i64 b = idx / n, i = idx % n;
    T v = a[b * sb + i * (si + sj)];
    if (out) out[idx] = v;
    if (first && v == la_zero<T>())
      atomicMax(first, ~(((unsigned long long)b << 32) | (unsigned long long)i));
  }
}

// Drops the imaginary part of the diagonal of each contiguous n x n matrix (count of them), in
// place: LAPACK's Hermitian routines read only the real part of the diagonal.
__device__ __forceinline__ void la_drop_im(float&) {}
__device__ __forceinline__ void la_drop_im(double&) {}
__device__ __forceinline__ void la_drop_im(cplx32& v) { v.im = 0.0f; }
__device__ __forceinline__ void la_drop_im(cplx64& v) { v.im = 0.0; }
template <class T> __device__ void la_diag_real(T* a, i64 n, i64 count) {
  i64 total = n * count;
  i64 stride = (i64)gridDim.x * blockDim.x;
  for (i64 idx = (i64)blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += stride) {
    i64 b = idx / n, i = idx % n;
    la_drop_im(a[b * n * n + i * (n + 1)]);
  }
}

#define LA_INST(T, S)                                                                            \
  extern "C" __global__ void la_finite_copy_##S(const T* in, T* out, i64 n, int* flag) {        \
    la_finite_copy<T>(in, out, n, flag);                                                         \
  }                                                                                              \
  extern "C" __global__ void la_tri_zero_##S(T* a, i64 rows, i64 cols, i64 count,               \
                                             int keep_lower, i64 k) {                            \
    la_tri_zero<T>(a, rows, cols, count, keep_lower, k);                                         \
  }                                                                                              \
  extern "C" __global__ void la_tile_copy_##S(const T* in, T* out, i64 rows, i64 cols,          \
                                              i64 count, i64 sb, i64 si, i64 sj, int mode,       \
                                              i64 k, int conj) {                                 \
    la_tile_copy<T>(in, out, rows, cols, count, sb, si, sj, mode, k, conj);                      \
  }                                                                                              \
  extern "C" __global__ void la_eye_##S(T* out, i64 n, i64 count) { la_eye<T>(out, n, count); } \
  extern "C" __global__ void la_diag_##S(const T* a, T* out, i64 n, i64 count, i64 sb, i64 si,  \
                                         i64 sj, unsigned long long* first) {                    \
    la_diag<T>(a, out, n, count, sb, si, sj, first);                                             \
  }                                                                                              \
  extern "C" __global__ void la_diag_real_##S(T* a, i64 n, i64 count) {                          \
    la_diag_real<T>(a, n, count);                                                                \
  }
LA_INST(float, f32)
LA_INST(double, f64)
LA_INST(cplx32, c32)
LA_INST(cplx64, c64)
