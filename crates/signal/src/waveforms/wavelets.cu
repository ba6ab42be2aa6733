// The continuous wavelet transform (cwt): row w of the output is data correlated with the
// conjugated wavelet w ('same' size, zero outside). Prepended defines: T (data and wavelet
// type), ACC (double or cplx64: the sum is accumulated there and rounded to T once), NAME(x).
//
// wav holds every wavelet, already conjugated, at off[w] with len[w] points; y is (nw, n).
// y[w, i] = sum_j data[i - len/2 + j] * wav[off + j] over the j that fall inside data.
extern "C" __global__ void NAME(cwt)(const T* __restrict__ data, i64 n,
                                     const T* __restrict__ wav, const i64* __restrict__ off,
                                     const i64* __restrict__ len, i64 nw, T* __restrict__ y) {
  const i64 total = nw * n;
  for (i64 g = blockIdx.x * (i64)blockDim.x + threadIdx.x; g < total;
       g += (i64)gridDim.x * blockDim.x) {
    const i64 w = g / n;
    const i64 i = g % n;
    const i64 L = len[w];
    const T* k = wav + off[w];
    const i64 s = i - L / 2;
    const i64 j0 = s < 0 ? -s : 0;
    const i64 j1 = (n - s) < L ? (n - s) : L;
    ACC acc = cusci_cast(ACC, 0.0);
    for (i64 j = j0; j < j1; ++j) acc += cusci_cast(ACC, data[s + j]) * cusci_cast(ACC, k[j]);
    y[g] = cusci_cast(T, acc);
  }
}
