// Table FIR along one axis (savgol_filter, sepfir2d). Prepended defines: T, TZERO, NAME(x).
// x, y: C-contiguous (outer, n, inner). w: rows of m taps (dot form: y = sum_j w[j] x[s + j]),
// then one trailing value, cval. For output index i along the axis:
//   interp && i < h:        row i,            window start 0
//   interp && i >= n - h:   row i - (n - m),  window start n - m
//   else:                   row `centre`,      window start i - lead
// Out-of-range indices follow `mode`: 0 constant (cval), 1 mirror (d c b | a b c d),
// 2 nearest, 3 wrap, 4 reflect (c b a | a b c d).
__device__ __forceinline__ i64 NAME(map)(i64 j, i64 n, int mode) {
  if (j >= 0 && j < n) return j;
  if (mode == 0) return -1;
  if (mode == 2) return j < 0 ? 0 : n - 1;
  if (mode == 3) {
    i64 r = j % n;
    return r < 0 ? r + n : r;
  }
  if (mode == 1) {
    if (n == 1) return 0;
    const i64 p = 2 * n - 2;
    i64 r = j % p;
    if (r < 0) r += p;
    return r >= n ? p - r : r;
  }
  const i64 p = 2 * n;
  i64 r = j % p;
  if (r < 0) r += p;
  return r >= n ? p - 1 - r : r;
}

extern "C" __global__ void NAME(table_fir)(const T* __restrict__ x, T* __restrict__ y,
                                           const T* __restrict__ w, i64 outer, i64 n, i64 inner,
                                           int m, int centre, int lead, int interp, int h,
                                           int mode, i64 ntab) {
  const i64 total = outer * n * inner;
  const T cval = w[ntab];
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    const i64 in = idx % inner;
    const i64 i = (idx / inner) % n;
    const i64 o = idx / (inner * n);
    const T* xr = x + o * n * inner + in;
    i64 row = centre, s = i - lead;
    if (interp && i < h) {
      row = i;
      s = 0;
    } else if (interp && i >= n - h) {
      row = i - (n - m);
      s = n - m;
    }
    const T* wr = w + row * m;
    T acc = TZERO;
    for (int j = 0; j < m; ++j) {
      const i64 q = NAME(map)(s + j, n, mode);
      const T v = q < 0 ? cval : xr[q * inner];
      acc = acc + wr[j] * v;
    }
    y[idx] = acc;
  }
}
