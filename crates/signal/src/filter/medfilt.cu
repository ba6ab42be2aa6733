// Median filter with zero padding along one axis (SciPy's medfilt with a window longer than 1
// along one axis at most). Prepended defines: T (float or double), K (the odd kernel size),
// NAME(x). The array is [outer, n, inner] (C order), filtered along n. One thread per output;
// K <= 31 sorts in registers with an odd-even transposition network, larger K with an insertion
// sort. NaN sorts above +inf (NumPy's order), as on the CPU.
__device__ __forceinline__ void cswap(T& a, T& b) {
  // keep the order when a <= b or b is NaN (NaN last)
  const bool keep = a < b || b != b;
  const T lo = keep ? a : b;
  const T hi = keep ? b : a;
  a = lo;
  b = hi;
}

// a < b with NaN above every number
__device__ __forceinline__ bool med_lt(const T a, const T b) {
  return a < b || (b != b && a == a);
}

extern "C" __global__ void NAME(medfilt)(const T* __restrict__ x, T* __restrict__ y, i64 outer,
                                         i64 n, i64 inner) {
  const i64 total = outer * n * inner;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    i64 r, t, i;
    if (inner == 1) {
      r = idx / n;
      t = idx - r * n;
      i = 0;
    } else {
      const i64 q = idx / inner;
      i = idx - q * inner;
      r = q / n;
      t = q - r * n;
    }
    const T* xr = x + r * n * inner + i;
    T w[K];
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const i64 s = t + j - K / 2;
      w[j] = (s >= 0 && s < n) ? xr[s * inner] : (T)0;
    }
#if K <= 31
#pragma unroll
    for (int p = 0; p < K; ++p) {
#pragma unroll
      for (int j = p & 1; j + 1 < K; j += 2) cswap(w[j], w[j + 1]);
    }
#else
    for (int a = 1; a < K; ++a) {
      const T v = w[a];
      int j = a - 1;
      while (j >= 0 && med_lt(v, w[j])) {
        w[j + 1] = w[j];
        --j;
      }
      w[j + 1] = v;
    }
#endif
    y[idx] = w[K / 2];
  }
}
