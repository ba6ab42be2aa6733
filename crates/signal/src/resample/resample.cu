// Polyphase resampling (upfirdn). Prepended defines: T, TZERO, NAME(x), TMAKE(re, im).
// x is C-contiguous (outer, n, inner); y is (outer, nout, inner). Output k of a signal is the
// point t = (k + start) * down of the upsampled-by-up, FIR-filtered signal:
//   y[k] = sum_{i : 0 <= t - i*up < m} h[t - i*up] * xe[i],
// xe the signal extended past its ends by `mode` (0 constant cval, 1 edge, 2 line, 3 wrap,
// 4 symmetric, 5 reflect), minus the signal's background value bg[sig] (0 without bg), which
// is added back to the output.

__device__ __forceinline__ i64 ufd_floordiv(i64 a, i64 b) {
  i64 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
__device__ __forceinline__ i64 ufd_pmod(i64 a, i64 m) {
  i64 r = a % m;
  return r < 0 ? r + m : r;
}

__device__ __forceinline__ T ufd_xval(const T* __restrict__ x, i64 base, i64 inner, i64 n, i64 i,
                                       int mode, T cval, T bgv) {
  if (i >= 0 && i < n) return x[base + i * inner] - bgv;
  switch (mode) {
    case 1: return x[base + (i < 0 ? 0 : n - 1) * inner] - bgv;
    case 2: {
      const T x0 = x[base], xl = x[base + (n - 1) * inner];
      const T slope = n > 1 ? (xl - x0) * TMAKE(1.0 / (double)(n - 1), 0.0) : TZERO;
      const T d = TMAKE((double)(i < 0 ? i : i - (n - 1)), 0.0);
      return (i < 0 ? x0 : xl) + d * slope - bgv;
    }
    case 3: return x[base + ufd_pmod(i, n) * inner] - bgv;
    case 4: {
      const i64 j = ufd_pmod(i, 2 * n);
      return x[base + (j < n ? j : 2 * n - 1 - j) * inner] - bgv;
    }
    case 5: {
      if (n == 1) return x[base] - bgv;
      const i64 j = ufd_pmod(i, 2 * n - 2);
      return x[base + (j < n ? j : 2 * n - 2 - j) * inner] - bgv;
    }
    default: return cval;
  }
}

// One thread per output sample (grid-stride). With hshared the taps are staged in dynamic
// shared memory once per block. cval_zero: constant mode with a zero fill (the sum skips the
// padding).
extern "C" __global__ void NAME(upfirdn)(const T* __restrict__ x, const T* __restrict__ h, i64 m,
                                         T* __restrict__ y, i64 outer, i64 n, i64 inner, i64 nout,
                                         i64 start, i64 up, i64 down, int mode, double cval_re,
                                         double cval_im, int cval_zero, const T* __restrict__ bg,
                                         int hshared) {
  extern __shared__ __align__(16) unsigned char ufd_smem[];
  const T* hh = h;
  if (hshared) {
    T* hs = reinterpret_cast<T*>(ufd_smem);
    for (i64 j = threadIdx.x; j < m; j += blockDim.x) hs[j] = h[j];
    __syncthreads();
    hh = hs;
  }
  const T cval = TMAKE(cval_re, cval_im);
  const i64 total = outer * nout * inner;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    const i64 i = idx % inner, r = idx / inner;
    const i64 k = r % nout, o = r / nout;
    const T bgv = bg != nullptr ? bg[o * inner + i] : TZERO;
    const i64 base = o * n * inner + i;
    const i64 t = (k + start) * down;
    i64 ilo = ufd_floordiv(t - m + up, up);
    i64 ihi = ufd_floordiv(t, up);
    T acc = TZERO;
    if (mode == 0 && cval_zero) {
      if (ilo < 0) ilo = 0;
      if (ihi > n - 1) ihi = n - 1;
      for (i64 ii = ilo; ii <= ihi; ++ii) acc = acc + hh[t - ii * up] * (x[base + ii * inner] - bgv);
    } else {
      for (i64 ii = ilo; ii <= ihi; ++ii)
        acc = acc + hh[t - ii * up] * ufd_xval(x, base, inner, n, ii, mode, cval, bgv);
    }
    y[(o * nout + k) * inner + i] = acc + bgv;
  }
}
