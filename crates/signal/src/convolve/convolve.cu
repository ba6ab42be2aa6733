// 1-D convolution and correlation, direct method. Prepended defines: T, TZERO, NAME(x).
// out[idx] = sum_j a[k - j] * w[j] for k = start + idx, with w = v (convolution) or
// w[j] = conj(v[m - 1 - j]) (correlation): the full result's window [start, start + len).
extern "C" __global__ void NAME(direct)(const T* __restrict__ a, i64 n, const T* __restrict__ v,
                                        i64 m, int corr, T* __restrict__ out, i64 start, i64 len) {
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < len;
       idx += (i64)gridDim.x * blockDim.x) {
    const i64 k = start + idx;
    const i64 j0 = k - n + 1 > 0 ? k - n + 1 : 0;
    const i64 j1 = k < m - 1 ? k : m - 1;
    T acc = TZERO;
    for (i64 j = j0; j <= j1; ++j) {
      const T w = corr ? cusci_conj(v[m - 1 - j]) : v[j];
      acc = acc + a[k - j] * w;
    }
    out[idx] = acc;
  }
}

// w[j] = conj(v[m - 1 - j]).
extern "C" __global__ void NAME(revconj)(const T* __restrict__ v, T* __restrict__ w, i64 m) {
  for (i64 j = blockIdx.x * (i64)blockDim.x + threadIdx.x; j < m;
       j += (i64)gridDim.x * blockDim.x)
    w[j] = cusci_conj(v[m - 1 - j]);
}
