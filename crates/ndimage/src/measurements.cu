// Measurements over labels (cusci-ndimage measurements.rs): one pass over the image per
// statistic, every element adding into its label's slot with atomics. NDI_T: the element type
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

// count, sum, min, max per slot (min/max start at +inf/−inf)
extern "C" __global__ void ndi_meas_basic(const NDI_T* __restrict__ x, const i64* __restrict__ slot,
                                          i64 n, unsigned long long* cnt, double* sum, double* mn,
                                          double* mx) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    i64 s = slot[i];
    if (s < 0) continue;
    double v = cusci_cast(double, x[i]);
    atomicAdd(&cnt[s], 1ull);
    atomicAdd(&sum[s], v);
    ndi_atomic_min_f64(&mn[s], v);
    ndi_atomic_max_f64(&mx[s], v);
  }
}

// Σ (x − mean)² per slot
extern "C" __global__ void ndi_meas_sq(const NDI_T* __restrict__ x, const i64* __restrict__ slot, i64 n,
                                       const double* __restrict__ mean, double* acc) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    i64 s = slot[i];
    if (s < 0) continue;
    double d = cusci_cast(double, x[i]) - mean[s];
    atomicAdd(&acc[s], d * d);
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

// Σ x·coordinate per slot and axis (acc: nslots × ndim)
extern "C" __global__ void ndi_meas_com(const NDI_T* __restrict__ x, const i64* __restrict__ slot,
                                        CusciShape shape, double* acc) {
  const int nd = shape.ndim;
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < shape.n; i += (i64)blockDim.x * gridDim.x) {
    i64 s = slot[i];
    if (s < 0) continue;
    double v = cusci_cast(double, x[i]);
    i64 r = i;
    for (int d = nd - 1; d >= 0; --d) {
      atomicAdd(&acc[s * nd + d], v * (double)(r % shape.dims[d]));
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
