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

// N-D convolution, direct method (any number of axes): out[o] = sum_j a[c(o) - c(j)] * w[j] over
// the kernel's points j with the input point inside a, where c(o) is output point o's coordinate
// in the full result (per axis: its coordinate in the output window plus the window's start).
// dims holds 4 * nd values: a's shape, w's shape, the window's starts, the window's lengths.
extern "C" __global__ void NAME(direct_nd)(const T* __restrict__ a, const T* __restrict__ w,
                                           const i64* __restrict__ dims, int nd,
                                           T* __restrict__ out, i64 total, i64 wsize) {
  const i64 *as = dims, *ws = dims + nd, *st = dims + 2 * nd, *len = dims + 3 * nd;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    T acc = TZERO;
    for (i64 j = 0; j < wsize; ++j) {
      i64 oi = idx, jj = j, off = 0, stride = 1;
      bool inside = true;
      for (int d = nd - 1; d >= 0; --d) {
        const i64 c = oi % len[d] + st[d] - jj % ws[d];
        oi /= len[d];
        jj /= ws[d];
        if (c < 0 || c >= as[d]) {
          inside = false;
          break;
        }
        off += c * stride;
        stride *= as[d];
      }
      if (inside) acc = acc + a[off] * w[j];
    }
    out[idx] = acc;
  }
}
