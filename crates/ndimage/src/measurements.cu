// Measurements over labels (cusci-ndimage measurements.rs): one pass over the image per
// statistic, every element adding into its label's slot with atomics (sums in 128-bit fixed
// point, so they are reproducible). NDI_T: the element type
// (labels in ndi_meas_slots, values elsewhere).

// slot of each element: table[label] for 0 <= label < ntable (−1 = not measured); mode 1: every
// element in slot 0; mode 2: labels > 0 in slot 0.
extern "C" __global__ void ndi_meas_slots(const NDI_T* __restrict__ lab, const i64* __restrict__ table,
                                          i64 ntable, i64* __restrict__ slot, i64 n, int mode) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    if (mode == 1) { slot[i] = 0; continue; }
    i64 l = lab ? cusci_cast(i64, lab[i]) : 0;
    if (mode == 2) { slot[i] = l > 0 ? 0 : -1; continue; }
    slot[i] = (l >= 0 && l < ntable) ? table[l] : -1;
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
                                        CusciShape shape, const unsigned long long* __restrict__ amax,
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

// histogram: bins equal bins over [lo, hi] (the last one closed), per slot
extern "C" __global__ void ndi_meas_hist(const NDI_T* __restrict__ x, const i64* __restrict__ slot, i64 n,
                                         double lo, double hi, int bins, unsigned long long* h) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    i64 s = slot[i];
    if (s < 0) continue;
    double v = cusci_cast(double, x[i]);
    if (!(v >= lo && v <= hi)) continue;
    i64 b = (i64)((v - lo) / (hi - lo) * bins);
    if (b >= bins) b = bins - 1;
    if (b < 0) b = 0;
    atomicAdd(&h[s * bins + b], 1ull);
  }
}

// bounding boxes: bb[s * 2nd + d] = min coordinate, bb[s * 2nd + nd + d] = max coordinate + 1
// (min starts at LLONG_MAX, max at 0); the slot is label − 1 for labels 1..=nmax.
extern "C" __global__ void ndi_meas_bbox(const NDI_T* __restrict__ lab, CusciShape shape, i64 nmax,
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
