// Measurements over labels (cusci-ndimage measurements/): one pass over the image per
// statistic, every element adding into its label's slot with atomics (sums in 128-bit fixed
// point, so they are reproducible). NDI_T: the element type
// (labels in ndi_meas_slots, values elsewhere).

// slot of each element: table[label - lo] for lo <= label < lo + ntable (−1 = not measured);
// mode 1: every element in slot 0; mode 2: labels > 0 in slot 0.
extern "C" __global__ void ndi_meas_slots(const NDI_T* __restrict__ lab, const i64* __restrict__ table,
                                          i64 ntable, i64 lo, i64* __restrict__ slot, i64 n, int mode) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    if (mode == 1) { slot[i] = 0; continue; }
    i64 l = lab ? cusci_cast(i64, lab[i]) : 0;
    if (mode == 2) { slot[i] = l > 0 ? 0 : -1; continue; }
    const i64 k = (i64)((unsigned long long)l - (unsigned long long)lo);
    slot[i] = (k >= 0 && k < ntable) ? table[k] : -1;
  }
}

__device__ __forceinline__ void ndi_atomic_min_f64(double* a, double v) {
  unsigned long long* p = (unsigned long long*)a;
  unsigned long long old = *p;
  while (v < __longlong_as_double((long long)old)) {
    unsigned long long prev = atomicCAS(p, old, (unsigned long long)__double_as_longlong(v));
    if (prev == old) break;
    old = prev;
  }
}
__device__ __forceinline__ void ndi_atomic_max_f64(double* a, double v) {
  unsigned long long* p = (unsigned long long*)a;
  unsigned long long old = *p;
  while (v > __longlong_as_double((long long)old)) {
    unsigned long long prev = atomicCAS(p, old, (unsigned long long)__double_as_longlong(v));
    if (prev == old) break;
    old = prev;
  }
}

// ---- Deterministic sums: 128-bit fixed point with integer atomics ----
// A slot's values are scaled by 2^(86 − e), e the exponent of the slot's largest finite |value|
// (|value| < 2^e), and truncated to 128-bit two's complement integers (resolution 2^(e−86)).
// Integer addition is associative, so the sums are bit-for-bit reproducible whatever the order
// of the atomics, and exact up to that resolution (no overflow below 2^40 elements per slot).
// NaN / ±inf are tracked by flags (1 NaN, 2 +inf, 4 −inf) and give IEEE's result at the end.

// e with a < 2^e for a finite a >= 0 given by its bits (0 for a = 0), as frexp's exponent.
__device__ __forceinline__ int ndi_fx_exp(unsigned long long b) {
  const int eb = (int)((b >> 52) & 0x7ff);
  if (eb != 0) return eb - 1022;
  const unsigned long long m = b & 0xfffffffffffffull;
  if (m == 0) return 0;
  return (63 - __clzll((long long)m)) - 1073;
}

// per slot: amax = bits of the largest finite |x| (bit patterns of non-negative doubles order
// as their values), flags of the non-finite values
__device__ __forceinline__ void ndi_fx_scale(unsigned long long* amax, int* flags, double v) {
  if (isnan(v)) {
    atomicOr(flags, 1);
  } else if (isinf(v)) {
    atomicOr(flags, v > 0 ? 2 : 4);
  } else {
    atomicMax(amax, (unsigned long long)__double_as_longlong(fabs(v)));
  }
}

// acc[0] (low 64 bits), acc[1] (high) += v·2^(86 − e), v finite
__device__ __forceinline__ void ndi_fx_add(unsigned long long* acc, double v, int e) {
  const double y = ldexp(fabs(v), 22 - e);
  const double h = floor(y);
  unsigned long long lo = (unsigned long long)ldexp(y - h, 64);
  unsigned long long hi = (unsigned long long)h;
  if (v < 0) {
    lo = ~lo + 1ull;
    hi = ~hi + (lo == 0ull ? 1ull : 0ull);
  }
  if (lo == 0ull && hi == 0ull) return;
  const unsigned long long old = atomicAdd(&acc[0], lo);
  const unsigned long long carry = (old + lo < old) ? 1ull : 0ull;
  if (hi + carry != 0ull) atomicAdd(&acc[1], hi + carry);
}

extern "C" __global__ void ndi_meas_scale(const NDI_T* __restrict__ x, const i64* __restrict__ slot,
                                          i64 n, unsigned long long* amax, int* flags) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    i64 s = slot[i];
    if (s < 0) continue;
    ndi_fx_scale(&amax[s], &flags[s], cusci_cast(double, x[i]));
  }
}

// out[j] for j < k·per (slot j / per, axis j % per): the fixed-point sum acc[2j..2j+2] as a
// double, with the exponent mul·e(slot) + add (+ eaxis[j % per] when eaxis is not null); NaN or
// ±inf from the slot's flags (nonfinite_nan: any flag gives NaN, as (x − mean)² does).
extern "C" __global__ void ndi_fx_finish(const unsigned long long* __restrict__ acc,
                                         const unsigned long long* __restrict__ amax,
                                         const int* __restrict__ flags, i64 k, int per, int mul,
                                         int add, const int* __restrict__ eaxis,
                                         int nonfinite_nan, double* __restrict__ out) {
  for (i64 j = blockIdx.x * (i64)blockDim.x + threadIdx.x; j < k * per; j += (i64)blockDim.x * gridDim.x) {
    const i64 s = j / per;
    const int fl = flags[s];
    double r;
    if (fl != 0) {
      const double NaN = __longlong_as_double(0x7ff8000000000000ll);
      const double INF = __longlong_as_double(0x7ff0000000000000ll);
      if (nonfinite_nan || (fl & 1) || (fl & 6) == 6) r = NaN;
      else r = (fl & 2) ? INF : -INF;
    } else {
      const int e = mul * ndi_fx_exp(amax[s]) + add + (eaxis ? eaxis[j % per] : 0);
      r = ldexp((double)(long long)acc[2 * j + 1], e - 22) + ldexp((double)acc[2 * j], e - 86);
    }
    out[j] = r;
  }
}

// count, fixed-point sum (acc: 2 words per slot), min, max per slot (min/max start at +inf/−inf)
extern "C" __global__ void ndi_meas_basic(const NDI_T* __restrict__ x, const i64* __restrict__ slot,
                                          i64 n, unsigned long long* cnt, unsigned long long* acc,
                                          const unsigned long long* __restrict__ amax, double* mn,
                                          double* mx) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    i64 s = slot[i];
    if (s < 0) continue;
    double v = cusci_cast(double, x[i]);
    atomicAdd(&cnt[s], 1ull);
    if (isfinite(v)) ndi_fx_add(&acc[2 * s], v, ndi_fx_exp(amax[s]));
    ndi_atomic_min_f64(&mn[s], v);
    ndi_atomic_max_f64(&mx[s], v);
  }
}

// Σ (x − mean)² per slot, fixed point with the exponent 2·e + 2 ((x − mean)² < 2^(2e+2))
extern "C" __global__ void ndi_meas_sq(const NDI_T* __restrict__ x, const i64* __restrict__ slot, i64 n,
                                       const double* __restrict__ mean,
                                       const unsigned long long* __restrict__ amax,
                                       unsigned long long* acc) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    i64 s = slot[i];
    if (s < 0) continue;
    double d = __dsub_rn(cusci_cast(double, x[i]), mean[s]);
    double q = __dmul_rn(d, d);
    if (isfinite(q)) ndi_fx_add(&acc[2 * s], q, 2 * ndi_fx_exp(amax[s]) + 2);
  }
}

// first flat index (raster order) where x equals the slot's target value
extern "C" __global__ void ndi_meas_pos(const NDI_T* __restrict__ x, const i64* __restrict__ slot, i64 n,
                                        const double* __restrict__ target, unsigned long long* pos) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    i64 s = slot[i];
    if (s < 0) continue;
    if (cusci_cast(double, x[i]) == target[s]) atomicMin(&pos[s], (unsigned long long)i);
  }
}

// Σ x·coordinate per slot and axis (acc: 2 words per slot and axis), fixed point with the
// exponent e + eaxis[d] (coordinates < dims[d] <= 2^eaxis[d])
extern "C" __global__ void ndi_meas_com(const NDI_T* __restrict__ x, const i64* __restrict__ slot,
                                        NdiShape shape, const unsigned long long* __restrict__ amax,
                                        const int* __restrict__ eaxis, unsigned long long* acc) {
  const int nd = shape.ndim;
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < shape.n; i += (i64)blockDim.x * gridDim.x) {
    i64 s = slot[i];
    if (s < 0) continue;
    double v = cusci_cast(double, x[i]);
    if (!isfinite(v)) continue;
    const int e = ndi_fx_exp(amax[s]);
    i64 r = i;
    for (int d = nd - 1; d >= 0; --d) {
      ndi_fx_add(&acc[2 * (s * nd + d)], __dmul_rn(v, (double)(r % shape.dims[d])), e + eaxis[d]);
      r /= shape.dims[d];
    }
  }
}

// Edge k of a histogram's bins: NumPy's linspace(lo, hi, bins + 1) (k * step + lo, the last
// one hi), each product and sum rounded (no fused multiply-add).
__device__ __forceinline__ double ndi_hist_edge(i64 k, double lo, double hi, i64 bins) {
  const double delta = hi - lo, step = delta / (double)bins;
  if (k == bins) return hi;
  if (step == 0.0) return __dadd_rn(__dmul_rn((double)k / (double)bins, delta), lo);
  return __dadd_rn(__dmul_rn((double)k, step), lo);
}

// histogram: bins equal bins over [lo, hi] (the last one closed), per slot; a value goes to
// the last bin whose edge (ndi_hist_edge) it reaches, as numpy.histogram with those edges
extern "C" __global__ void ndi_meas_hist(const NDI_T* __restrict__ x, const i64* __restrict__ slot, i64 n,
                                         double lo, double hi, i64 bins, unsigned long long* h) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    i64 s = slot[i];
    if (s < 0) continue;
    double v = cusci_cast(double, x[i]);
    if (!(v >= lo && v <= hi)) continue;
    i64 b = (i64)((v - lo) / (hi - lo) * bins);
    if (b >= bins) b = bins - 1;
    if (b < 0) b = 0;
    while (b > 0 && v < ndi_hist_edge(b, lo, hi, bins)) --b;
    while (b < bins - 1 && v >= ndi_hist_edge(b + 1, lo, hi, bins)) ++b;
    atomicAdd(&h[s * bins + b], 1ull);
  }
}

// bounding boxes: bb[s * 2nd + d] = min coordinate, bb[s * 2nd + nd + d] = max coordinate + 1
// (min starts at LLONG_MAX, max at 0); the slot is label − 1 for labels 1..=nmax.
extern "C" __global__ void ndi_meas_bbox(const NDI_T* __restrict__ lab, NdiShape shape, i64 nmax,
                                         long long* bb) {
  const int nd = shape.ndim;
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < shape.n; i += (i64)blockDim.x * gridDim.x) {
    i64 l = cusci_cast(i64, lab[i]);
    if (l < 1 || l > nmax) continue;
    i64 s = l - 1;
    i64 r = i;
    for (int d = nd - 1; d >= 0; --d) {
      long long c = (long long)(r % shape.dims[d]);
      r /= shape.dims[d];
      atomicMin(&bb[s * 2 * nd + d], c);
      atomicMax(&bb[s * 2 * nd + nd + d], c + 1);
    }
  }
}

// ---- Grouping by sorting (median, value_indices, labeled_comprehension) ----
// The elements are grouped on the device by the stable radix sort of sort.cu: order-preserving
// unsigned keys of the values (NdiOk), slot keys (unsigned int: slot, or k for an element that
// is not measured, so those sort after every region), then segments of equal slots.

// Order-preserving keys: unsigned order of key(v) = the values' order, every NaN last (np.sort's
// order, whatever its sign bit; -0.0 just before +0.0). K: 32 bits for types of 4 bytes or less,
// 64 for 8-byte types. f64(k): the value back as a double (NaN for a NaN key).
template <class T> struct NdiOk;
template <> struct NdiOk<float> {
  typedef unsigned int K;
  static __device__ __forceinline__ K key(float v) {
    if (v != v) return 0xffffffffu;
    const unsigned int b = __float_as_uint(v);
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
  }
  static __device__ __forceinline__ float val(K k) {
    return __uint_as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
  }
  static __device__ __forceinline__ double f64(K k) { return (double)val(k); }
};
template <> struct NdiOk<double> {
  typedef unsigned long long K;
  static __device__ __forceinline__ K key(double v) {
    if (v != v) return 0xffffffffffffffffull;
    const unsigned long long b = (unsigned long long)__double_as_longlong(v);
    return (b & 0x8000000000000000ull) ? ~b : (b | 0x8000000000000000ull);
  }
  static __device__ __forceinline__ double f64(K k) {
    return __longlong_as_double(
        (long long)((k & 0x8000000000000000ull) ? (k & 0x7fffffffffffffffull) : ~k));
  }
};
template <> struct NdiOk<int> {
  typedef unsigned int K;
  static __device__ __forceinline__ K key(int v) { return (unsigned int)v ^ 0x80000000u; }
  static __device__ __forceinline__ double f64(K k) { return (double)(int)(k ^ 0x80000000u); }
};
template <> struct NdiOk<long long> {
  typedef unsigned long long K;
  static __device__ __forceinline__ K key(long long v) {
    return (unsigned long long)v ^ 0x8000000000000000ull;
  }
  static __device__ __forceinline__ double f64(K k) {
    return (double)(long long)(k ^ 0x8000000000000000ull);
  }
};
template <> struct NdiOk<unsigned char> {
  typedef unsigned int K;
  static __device__ __forceinline__ K key(unsigned char v) { return (unsigned int)v; }
  static __device__ __forceinline__ double f64(K k) { return (double)k; }
};
template <> struct NdiOk<bool> {
  typedef unsigned int K;
  static __device__ __forceinline__ K key(bool v) { return v ? 1u : 0u; }
  static __device__ __forceinline__ double f64(K k) { return (double)k; }
};
typedef NdiOk<NDI_T>::K ndi_ok_t;

// (a + b) / 2 as SciPy's median computes it: in float for float input, else in double
template <class T> struct NdiMid {
  static __device__ __forceinline__ double mid(ndi_ok_t a, ndi_ok_t b) {
    return __ddiv_rn(__dadd_rn(NdiOk<T>::f64(a), NdiOk<T>::f64(b)), 2.0);
  }
};
template <> struct NdiMid<float> {
  static __device__ __forceinline__ double mid(ndi_ok_t a, ndi_ok_t b) {
    return (double)__fdiv_rn(__fadd_rn(NdiOk<float>::val(a), NdiOk<float>::val(b)), 2.0f);
  }
};

// median: value keys and slot keys of every element
extern "C" __global__ void ndi_meas_med_keys(const NDI_T* __restrict__ x, const i64* __restrict__ slot,
                                             i64 n, i64 k, ndi_ok_t* __restrict__ vkey,
                                             unsigned int* __restrict__ skey) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    const i64 s = slot[i];
    vkey[i] = NdiOk<NDI_T>::key(x[i]);
    skey[i] = (unsigned int)(s < 0 ? k : s);
  }
}

// labeled_comprehension: slot keys and the values as f64 bits
extern "C" __global__ void ndi_meas_lc_keys(const NDI_T* __restrict__ x, const i64* __restrict__ slot,
                                            i64 n, i64 k, unsigned int* __restrict__ skey,
                                            long long* __restrict__ val) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    const i64 s = slot[i];
    skey[i] = (unsigned int)(s < 0 ? k : s);
    val[i] = __double_as_longlong(cusci_cast(double, x[i]));
  }
}

// [se[s], se[k + s]) = the elements of slot s < k in slot-sorted keys (se zero-initialised, so
// an empty slot is [0, 0))
extern "C" __global__ void ndi_meas_segments(const unsigned int* __restrict__ skey, i64 n, i64 k,
                                             i64* __restrict__ se) {
  i64* __restrict__ start = se;
  i64* __restrict__ end = se + k;
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    const unsigned int s = skey[i];
    if ((i64)s >= k) continue;
    if (i == 0 || skey[i - 1] != s) start[s] = i;
    if (i == n - 1 || skey[i + 1] != s) end[s] = i + 1;
  }
}

// per slot, from its value keys in increasing order: SciPy's median. np_median (labels or index
// None: np.median): NaN when the region holds a NaN, the middle value for an odd count. Else (an
// index list: SciPy sorts and picks) (lo + hi) / 2 of the middle pair, lo = hi for an odd count.
// Empty regions give NaN.
extern "C" __global__ void ndi_meas_median(const ndi_ok_t* __restrict__ vkey, const i64* __restrict__ start,
                                           const i64* __restrict__ end, i64 k, int np_median,
                                           double* __restrict__ out) {
  for (i64 j = blockIdx.x * (i64)blockDim.x + threadIdx.x; j < k; j += (i64)blockDim.x * gridDim.x) {
    const i64 a = start[j];
    const i64 c = end[j] - a;
    const double NaN = __longlong_as_double(0x7ff8000000000000ll);
    if (c <= 0) {
      out[j] = NaN;
      continue;
    }
    const double last = NdiOk<NDI_T>::f64(vkey[a + c - 1]);
    if (np_median && last != last) {
      out[j] = NaN;
      continue;
    }
    const i64 lo = a + (c - 1) / 2, hi = a + c / 2;
    if (np_median && lo == hi) out[j] = NdiOk<NDI_T>::f64(vkey[lo]);
    else out[j] = NdiMid<NDI_T>::mid(vkey[lo], vkey[hi]);
  }
}

// value_indices: mm[0] = min, mm[1] = max of the labels (mm starts at LLONG_MAX, LLONG_MIN)
extern "C" __global__ void ndi_vi_minmax(const NDI_T* __restrict__ lab, i64 n, long long* mm) {
  long long lo = 0x7fffffffffffffffll, hi = -0x7fffffffffffffffll - 1;
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    const long long v = cusci_cast(i64, lab[i]);
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  for (int o = 16; o > 0; o >>= 1) {
    const long long l2 = __shfl_down_sync(0xffffffffu, lo, o);
    const long long h2 = __shfl_down_sync(0xffffffffu, hi, o);
    lo = l2 < lo ? l2 : lo;
    hi = h2 > hi ? h2 : hi;
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMin(&mm[0], lo);
    atomicMax(&mm[1], hi);
  }
}

// value_indices: key = label − min (as unsigned, < 2^32 for 32-bit keys)
template <class K>
__device__ __forceinline__ void ndi_vi_keys(const NDI_T* __restrict__ lab, i64 n, long long mn,
                                            K* __restrict__ key) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x)
    key[i] = (K)((unsigned long long)cusci_cast(i64, lab[i]) - (unsigned long long)mn);
}
extern "C" __global__ void ndi_vi_keys32(const NDI_T* __restrict__ lab, i64 n, long long mn,
                                         unsigned int* __restrict__ key) {
  ndi_vi_keys(lab, n, mn, key);
}
extern "C" __global__ void ndi_vi_keys64(const NDI_T* __restrict__ lab, i64 n, long long mn,
                                         unsigned long long* __restrict__ key) {
  ndi_vi_keys(lab, n, mn, key);
}

// value_indices: out[j] = the value of sorted element j (min + key), out[(d + 1)·n + j] = its
// coordinate along axis d (idx: its flat index)
template <class K, class I>
__device__ __forceinline__ void ndi_vi_unravel(const K* __restrict__ key, const I* __restrict__ idx,
                                               long long mn, NdiShape shape,
                                               long long* __restrict__ out) {
  const i64 n = shape.n;
  for (i64 j = blockIdx.x * (i64)blockDim.x + threadIdx.x; j < n; j += (i64)blockDim.x * gridDim.x) {
    out[j] = (long long)((unsigned long long)mn + (unsigned long long)key[j]);
    i64 r = (i64)idx[j];
    for (int d = shape.ndim - 1; d >= 0; --d) {
      out[(d + 1) * n + j] = r % shape.dims[d];
      r /= shape.dims[d];
    }
  }
}
extern "C" __global__ void ndi_vi_unravel_k32_i32(const unsigned int* __restrict__ key,
                                                  const unsigned int* __restrict__ idx, long long mn,
                                                  NdiShape shape, long long* __restrict__ out) {
  ndi_vi_unravel(key, idx, mn, shape, out);
}
extern "C" __global__ void ndi_vi_unravel_k32_i64(const unsigned int* __restrict__ key,
                                                  const unsigned long long* __restrict__ idx,
                                                  long long mn, NdiShape shape,
                                                  long long* __restrict__ out) {
  ndi_vi_unravel(key, idx, mn, shape, out);
}
extern "C" __global__ void ndi_vi_unravel_k64_i32(const unsigned long long* __restrict__ key,
                                                  const unsigned int* __restrict__ idx, long long mn,
                                                  NdiShape shape, long long* __restrict__ out) {
  ndi_vi_unravel(key, idx, mn, shape, out);
}
extern "C" __global__ void ndi_vi_unravel_k64_i64(const unsigned long long* __restrict__ key,
                                                  const unsigned long long* __restrict__ idx,
                                                  long long mn, NdiShape shape,
                                                  long long* __restrict__ out) {
  ndi_vi_unravel(key, idx, mn, shape, out);
}
