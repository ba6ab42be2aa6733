// Grey morphology (cusci-ndimage morphology/grey.rs): minimum (erosion) or maximum (dilation) over
// a footprint, with structure values subtracted (minimum) or added (maximum) when sv is not null,
// outside values by the boundary mode. NDI_T: the element type.

extern "C" __global__ void ndi_grey(const NDI_T* __restrict__ in, NDI_T* __restrict__ out,
                                    CusciShape shape, const i64* __restrict__ offs,
                                    const double* __restrict__ sv, int noff, int is_max, int mode,
                                    double cval) {
  const int nd = shape.ndim;
  const NDI_T cv = cusci_cast(NDI_T, cval);
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < shape.n; i += (i64)blockDim.x * gridDim.x) {
    i64 c[CUSCI_MAXD];
    i64 rem = i;
    for (int d = nd - 1; d >= 0; --d) {
      c[d] = rem % shape.dims[d];
      rem /= shape.dims[d];
    }
    NDI_T best = in[i];
    double bestd = 0.0;
    for (int k = 0; k < noff; ++k) {
      i64 j = 0;
      bool cst = false;
      for (int d = 0; d < nd; ++d) {
        i64 q = ndi_map_index(c[d] + offs[k * nd + d], shape.dims[d], mode);
        if (q < 0) cst = true;
        j = j * shape.dims[d] + (q < 0 ? 0 : q);
      }
      NDI_T x = cst ? cv : in[j];
      if (sv) {
        double v = is_max ? (double)x + sv[k] : (double)x - sv[k];
        if (k == 0 || (is_max ? v > bestd : v < bestd)) bestd = v;
      } else {
        if (k == 0 || (is_max ? x > best : x < best)) best = x;
      }
    }
    out[i] = sv ? cusci_cast(NDI_T, bestd) : best;
  }
}
