// envelope: a two-tap weighted gather along the last axis of complex rows. Prepended defines:
// T (float or double, the real type), NAME(x). Complex arrays are (re, im) pairs of T.
//
// out[r, j] = sum_{t < 2, idx[2j+t] >= 0} w[2j+t] * src[r, idx[2j+t]]; one thread per output.
extern "C" __global__ void NAME(gather2)(const T* __restrict__ src, i64 rows, i64 nsrc, i64 nout,
                                         const i64* __restrict__ idx,
                                         const double* __restrict__ w, T* __restrict__ out) {
  const i64 total = rows * nout;
  for (i64 id = blockIdx.x * (i64)blockDim.x + threadIdx.x; id < total;
       id += (i64)gridDim.x * blockDim.x) {
    const i64 j = id % nout, r = id / nout;
    double ar = 0.0, ai = 0.0;
    for (int t = 0; t < 2; ++t) {
      const i64 i = idx[2 * j + t];
      if (i >= 0) {
        const T* s = src + 2 * (r * nsrc + i);
        const double wt = w[2 * j + t];
        ar += wt * (double)s[0];
        ai += wt * (double)s[1];
      }
    }
    out[2 * id] = (T)ar;
    out[2 * id + 1] = (T)ai;
  }
}
