// Overlap-add helpers of oaconvolve. Prepended defines: T, TZERO, NAME(x).

// Zero padding at the end of one axis: in (outer, n, inner) -> out (outer, npad, inner).
extern "C" __global__ void NAME(pad)(const T* __restrict__ in, T* __restrict__ out, i64 outer,
                                     i64 n, i64 npad, i64 inner) {
  const i64 total = outer * npad * inner;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    const i64 i = idx % inner;
    const i64 rest = idx / inner;
    const i64 t = rest % npad;
    const i64 o = rest / npad;
    out[idx] = t < n ? in[(o * n + t) * inner + i] : TZERO;
  }
}

// The overlap-add along one axis: the block convolutions r (outer, nsteps, block, inner), block j
// starting at j * step, give out (outer, len, inner) with len <= nsteps * step. Since
// overlap = block - step < step, an output point gets its block's value plus, for its first
// `overlap` points, the tail of the previous block; the last block's tail lies past len.
extern "C" __global__ void NAME(oa)(const T* __restrict__ r, T* __restrict__ out, i64 outer,
                                    i64 nsteps, i64 block, i64 step, i64 overlap, i64 len,
                                    i64 inner) {
  const i64 total = outer * len * inner;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    const i64 i = idx % inner;
    const i64 rest = idx / inner;
    const i64 t = rest % len;
    const i64 o = rest / len;
    const i64 j = t / step;
    const i64 q = t - j * step;
    T v = r[((o * nsteps + j) * block + q) * inner + i];
    if (q < overlap && j > 0) v = v + r[((o * nsteps + j - 1) * block + q + step) * inner + i];
    out[idx] = v;
  }
}
