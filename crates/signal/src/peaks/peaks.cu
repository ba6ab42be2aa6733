// Peak finding (find_peaks, peak_prominences, peak_widths, argrelextrema). Prepended defines:
// T (the data type of argrelextrema's input: float or double), NAME(x). find_peaks works on
// double data (SciPy converts x to float64).

// flags[i] = 1 where a peak's plateau starts at i (SciPy's _local_maxima_1d: x[i-1] < x[i],
// the run of values equal to x[i] that follows ends on a smaller value, before the last
// sample). Only a plateau's first sample walks ahead, so the total work is O(n).
extern "C" __global__ void NAME(local_max)(const double* __restrict__ x, i64 n,
                                           i64* __restrict__ flags) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n;
       i += (i64)gridDim.x * blockDim.x) {
    i64 f = 0;
    if (i >= 1 && i < n - 1 && x[i - 1] < x[i]) {
      const double v = x[i];
      i64 a = i + 1;
      while (a < n - 1 && x[a] == v) ++a;
      f = x[a] < v;
    }
    flags[i] = f;
  }
}

// For each plateau start left[k]: its right edge and midpoint.
extern "C" __global__ void NAME(edges)(const double* __restrict__ x, i64 n,
                                       const i64* __restrict__ left, i64 m,
                                       i64* __restrict__ right, i64* __restrict__ mid) {
  for (i64 k = blockIdx.x * (i64)blockDim.x + threadIdx.x; k < m;
       k += (i64)gridDim.x * blockDim.x) {
    const i64 l = left[k];
    const double v = x[l];
    i64 a = l + 1;
    while (a < n - 1 && x[a] == v) ++a;
    right[k] = a - 1;
    mid[k] = (l + a - 1) / 2;
  }
}

// Heights, left/right thresholds and plateau sizes of every peak.
extern "C" __global__ void NAME(basic)(const double* __restrict__ x,
                                       const i64* __restrict__ peaks,
                                       const i64* __restrict__ left,
                                       const i64* __restrict__ right, i64 m,
                                       double* __restrict__ h, double* __restrict__ lt,
                                       double* __restrict__ rt, double* __restrict__ ps) {
  for (i64 k = blockIdx.x * (i64)blockDim.x + threadIdx.x; k < m;
       k += (i64)gridDim.x * blockDim.x) {
    const i64 p = peaks[k];
    const double v = x[p];
    h[k] = v;
    lt[k] = v - x[p - 1];
    rt[k] = v - x[p + 1];
    ps[k] = (double)(right[k] - left[k] + 1);
  }
}

// keep[k] = (!has_min || lo <= vmin) && (!has_max || vmax <= hi) where vmin/vmax are a[k] or,
// with b, NumPy's NaN-propagating min/max of a[k] and b[k].
extern "C" __global__ void NAME(bound)(const double* __restrict__ a,
                                       const double* __restrict__ b, i64 m, int has_min,
                                       double lo, int has_max, double hi,
                                       i64* __restrict__ keep) {
  for (i64 k = blockIdx.x * (i64)blockDim.x + threadIdx.x; k < m;
       k += (i64)gridDim.x * blockDim.x) {
    double vmin = a[k], vmax = a[k];
    if (b) {
      const double c = b[k];
      const bool nan = isnan(vmin) || isnan(c);
      vmin = nan ? vmin + c : fmin(vmin, c);
      vmax = nan ? vmax + c : fmax(vmax, c);
    }
    bool ok = true;
    if (has_min) ok = ok && (lo <= vmin);
    if (has_max) ok = ok && (vmax <= hi);
    keep[k] = ok;
  }
}

// Compaction: out[cs[i] - 1] = i where flags[i] (cs: the inclusive prefix sum of flags).
extern "C" __global__ void NAME(scatter)(const i64* __restrict__ flags,
                                         const i64* __restrict__ cs, i64 n,
                                         i64* __restrict__ out) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n;
       i += (i64)gridDim.x * blockDim.x)
    if (flags[i]) out[cs[i] - 1] = i;
}

extern "C" __global__ void NAME(gather_i)(const i64* __restrict__ src,
                                          const i64* __restrict__ idx, i64 m,
                                          i64* __restrict__ out) {
  for (i64 k = blockIdx.x * (i64)blockDim.x + threadIdx.x; k < m;
       k += (i64)gridDim.x * blockDim.x)
    out[k] = src[idx[k]];
}

extern "C" __global__ void NAME(gather_f)(const double* __restrict__ src,
                                          const i64* __restrict__ idx, i64 m,
                                          double* __restrict__ out) {
  for (i64 k = blockIdx.x * (i64)blockDim.x + threadIdx.x; k < m;
       k += (i64)gridDim.x * blockDim.x)
    out[k] = src[idx[k]];
}

// SciPy's _peak_prominences for every peak (wlen < 2: the whole signal). bad[0] is set to
// k + 1 for an out-of-range peak (the host reports the smallest).
extern "C" __global__ void NAME(prominences)(const double* __restrict__ x, i64 n,
                                             const i64* __restrict__ peaks, i64 m, i64 wlen,
                                             double* __restrict__ prom,
                                             i64* __restrict__ lb, i64* __restrict__ rb,
                                             i64* __restrict__ bad) {
  for (i64 k = blockIdx.x * (i64)blockDim.x + threadIdx.x; k < m;
       k += (i64)gridDim.x * blockDim.x) {
    const i64 p = peaks[k];
    i64 imin = 0, imax = n - 1;
    if (p < imin || p > imax) {
      atomicMin(bad, k);
      prom[k] = 0.0;
      lb[k] = 0;
      rb[k] = 0;
      continue;
    }
    if (wlen >= 2) {
      imin = p - wlen / 2 > imin ? p - wlen / 2 : imin;
      imax = p + wlen / 2 < imax ? p + wlen / 2 : imax;
    }
    const double v = x[p];
    i64 i = p, l = p;
    double lmin = v;
    while (imin <= i && x[i] <= v) {
      if (x[i] < lmin) { lmin = x[i]; l = i; }
      --i;
    }
    i = p;
    i64 r = p;
    double rmin = v;
    while (i <= imax && x[i] <= v) {
      if (x[i] < rmin) { rmin = x[i]; r = i; }
      ++i;
    }
    lb[k] = l;
    rb[k] = r;
    prom[k] = v - (lmin > rmin ? lmin : rmin);
  }
}

// SciPy's _peak_widths for every peak; bad as in prominences (invalid prominence data).
extern "C" __global__ void NAME(widths)(const double* __restrict__ x, i64 n,
                                        const i64* __restrict__ peaks, i64 m, double rel,
                                        const double* __restrict__ prom,
                                        const i64* __restrict__ lb, const i64* __restrict__ rb,
                                        double* __restrict__ w, double* __restrict__ wh,
                                        double* __restrict__ lip, double* __restrict__ rip,
                                        i64* __restrict__ bad) {
  for (i64 k = blockIdx.x * (i64)blockDim.x + threadIdx.x; k < m;
       k += (i64)gridDim.x * blockDim.x) {
    const i64 imin = lb[k], imax = rb[k], p = peaks[k];
    if (!(0 <= imin && imin <= p && p <= imax && imax < n)) {
      atomicMin(bad, k);
      w[k] = wh[k] = lip[k] = rip[k] = 0.0;
      continue;
    }
    const double height = x[p] - prom[k] * rel;
    wh[k] = height;
    i64 i = p;
    while (imin < i && height < x[i]) --i;
    double l = (double)i;
    if (x[i] < height) l += (height - x[i]) / (x[i + 1] - x[i]);
    i = p;
    while (i < imax && height < x[i]) ++i;
    double r = (double)i;
    if (x[i] < height) r -= (height - x[i]) / (x[i - 1] - x[i]);
    w[k] = r - l;
    lip[k] = l;
    rip[k] = r;
  }
}

// argrelextrema: flags[e] = 1 where data[e] compares true (cmp: 0 >, 1 <, 2 >=, 3 <=) with
// every neighbour up to `order` away along the axis (a C-contiguous (outer, n, inner) array);
// wrap: indices wrap around, else they are clipped to [0, n-1].
__device__ __forceinline__ bool rel_cmp(int cmp, T a, T b) {
  switch (cmp) {
    case 0: return a > b;
    case 1: return a < b;
    case 2: return a >= b;
    default: return a <= b;
  }
}

extern "C" __global__ void NAME(relext)(const T* __restrict__ d, i64 outer, i64 n, i64 inner,
                                        i64 order, int cmp, int wrap,
                                        i64* __restrict__ flags) {
  const i64 total = outer * n * inner;
  for (i64 e = blockIdx.x * (i64)blockDim.x + threadIdx.x; e < total;
       e += (i64)gridDim.x * blockDim.x) {
    const i64 in = e % inner, j = (e / inner) % n, o = e / (inner * n);
    const T* lane = d + o * n * inner + in;
    const T v = lane[j * inner];
    bool ok = true;
    for (i64 s = 1; s <= order && ok; ++s) {
      i64 a = j + s, b = j - s;
      if (wrap) {
        a %= n;
        b = ((b % n) + n) % n;
      } else {
        a = a > n - 1 ? n - 1 : a;
        b = b < 0 ? 0 : b;
      }
      ok = rel_cmp(cmp, v, lane[a * inner]) && rel_cmp(cmp, v, lane[b * inner]);
    }
    flags[e] = ok;
  }
}

// Unravels C-order flat indices into one index array per dimension (out: ndim rows of m).
extern "C" __global__ void NAME(unravel)(const i64* __restrict__ flat, i64 m, int ndim,
                                         const i64* __restrict__ shape, i64* __restrict__ out) {
  for (i64 k = blockIdx.x * (i64)blockDim.x + threadIdx.x; k < m;
       k += (i64)gridDim.x * blockDim.x) {
    i64 f = flat[k];
    for (int a = ndim - 1; a >= 0; --a) {
      out[a * m + k] = f % shape[a];
      f /= shape[a];
    }
  }
}
