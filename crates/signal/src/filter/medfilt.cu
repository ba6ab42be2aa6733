// 1-D median filter with zero padding (SciPy's medfilt). Prepended defines: T (float or double),
// K (the odd kernel size), NAME(x). One thread per output; K <= 31 sorts in registers with an
// odd-even transposition network, larger K with an insertion sort.
__device__ __forceinline__ void cswap(T& a, T& b) {
  const T lo = a < b ? a : b;
  const T hi = a < b ? b : a;
  a = lo;
  b = hi;
}

extern "C" __global__ void NAME(medfilt)(const T* __restrict__ x, T* __restrict__ y, i64 rows,
                                         i64 n) {
  const i64 total = rows * n;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    const i64 r = idx / n, t = idx % n;
    const T* xr = x + r * n;
    T w[K];
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const i64 s = t + j - K / 2;
      w[j] = (s >= 0 && s < n) ? xr[s] : (T)0;
    }
#if K <= 31
#pragma unroll
    for (int p = 0; p < K; ++p) {
#pragma unroll
      for (int j = p & 1; j + 1 < K; j += 2) cswap(w[j], w[j + 1]);
    }
#else
    for (int i = 1; i < K; ++i) {
      T v = w[i];
      int j = i - 1;
      while (j >= 0 && w[j] > v) { w[j + 1] = w[j]; --j; }
      w[j + 1] = v;
    }
#endif
    y[idx] = w[K / 2];
  }
}
