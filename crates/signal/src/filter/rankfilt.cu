// N-D rank filter with zero padding (SciPy's order_filter, medfilt2d). Prepended defines: T,
// KMAX (capacity of the per-thread window), NAME(x). off: `cnt` rows of `nd` signed offsets
// (the domain's true elements relative to its centre); shape: nd lengths. One thread per output:
// gather the window (0 outside the array), then quickselect the element of rank `rank`. NaN
// sorts above every number (NumPy's order), as on the CPU.
__device__ __forceinline__ bool rank_lt(const T a, const T b) {
  return a < b || (b != b && a == a);
}

extern "C" __global__ void NAME(rank_filter)(const T* __restrict__ x, T* __restrict__ y,
                                             const long long* __restrict__ shape,
                                             const long long* __restrict__ off, int nd, int cnt,
                                             int rank, i64 total) {
  T w[KMAX];
  long long idx_nd[8];
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    i64 r = idx;
    for (int d = nd - 1; d >= 0; --d) {
      idx_nd[d] = r % shape[d];
      r /= shape[d];
    }
    for (int k = 0; k < cnt; ++k) {
      i64 lin = 0;
      bool inside = true;
      for (int d = 0; d < nd; ++d) {
        const long long q = idx_nd[d] + off[k * nd + d];
        if (q < 0 || q >= shape[d]) inside = false;
        lin = lin * shape[d] + q;
      }
      w[k] = inside ? x[lin] : (T)0;
    }
    // quickselect (Hoare partition) for w[rank]
    int lo = 0, hi = cnt - 1;
    while (lo < hi) {
      const T pivot = w[(lo + hi) >> 1];
      int i = lo, j = hi;
      while (i <= j) {
        while (rank_lt(w[i], pivot)) ++i;
        while (rank_lt(pivot, w[j])) --j;
        if (i <= j) {
          const T t = w[i];
          w[i] = w[j];
          w[j] = t;
          ++i;
          --j;
        }
      }
      if (rank <= j) hi = j;
      else if (rank >= i) lo = i;
      else break;
    }
    y[idx] = w[rank];
  }
}
