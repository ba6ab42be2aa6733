// Edge extension of filtfilt. Prepended defines: T, TZERO, NAME(x).
// x is C-contiguous (outer, n, inner); e is (outer, n + 2*edge, inner). mode: 0 odd, 1 even,
// 2 constant (SciPy's odd_ext, even_ext, const_ext).
extern "C" __global__ void NAME(pad_ext)(const T* __restrict__ x, T* __restrict__ e, i64 outer,
                                         i64 n, i64 inner, i64 edge, int mode) {
  const i64 ne = n + 2 * edge;
  const i64 total = outer * ne * inner;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    const i64 i = idx % inner, r = idx / inner;
    const i64 t = r % ne, o = r / ne;
    const i64 base = o * n * inner + i;
    const i64 s = t - edge;
    T v;
    if (s >= 0 && s < n) {
      v = x[base + s * inner];
    } else {
      const i64 pe = s < 0 ? 0 : n - 1;           // the edge sample
      const i64 j = s < 0 ? -s : 2 * (n - 1) - s;  // its mirror
      const T xe = x[base + pe * inner];
      if (mode == 0) v = xe + xe - x[base + j * inner];
      else if (mode == 1) v = x[base + j * inner];
      else v = xe;
    }
    e[idx] = v;
  }
}
