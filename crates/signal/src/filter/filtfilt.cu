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

// The small per-signal dense products of Gustafsson's filtfilt: for signal s (rows of in_len /
// out_len contiguous samples) and j < J,
//   out[s, opos(j)] (+)= sum_k A[j*K + k] * in[s, ipos(k)],   pos(k) = k < split ? k : k + shift
// (the first m and the last m samples of a signal when the impulse response is truncated).
// acc: 0 store, 1 add to what is there. One thread per (s, j).
extern "C" __global__ void NAME(gust_matvec)(const T* __restrict__ in, i64 in_len,
                                             const T* __restrict__ A, T* __restrict__ out,
                                             i64 out_len, i64 nsig, i64 J, i64 K, i64 isplit,
                                             i64 ishift, i64 osplit, i64 oshift, int acc) {
  const i64 total = nsig * J;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    const i64 s = idx / J, j = idx % J;
    const T* row = in + s * in_len;
    const T* a = A + j * K;
    T sum = TZERO;
    for (i64 k = 0; k < K; ++k) sum = sum + a[k] * row[k < isplit ? k : k + ishift];
    T* o = out + s * out_len + (j < osplit ? j : j + oshift);
    *o = acc ? *o + sum : sum;
  }
}
