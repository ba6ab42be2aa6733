// Binary morphology (cusci-ndimage morphology/binary.rs). NDI_T: the element type of the input
// converted by ndi_to_bool; the step kernels work on bool arrays.

extern "C" __global__ void ndi_to_bool(const NDI_T* __restrict__ in, bool* __restrict__ out, i64 n,
                                       int invert) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x)
    out[i] = (in[i] != (NDI_T)0) != (invert != 0);
}

// One erosion (dilate = 0: AND over the offsets) or dilation (dilate = 1: OR) of in into out,
// outside values = border; where mask (may be null) is false, out = in. *changed is set to 1
// when some element differs from in.
extern "C" __global__ void ndi_binary_step(const bool* __restrict__ in, bool* __restrict__ out,
                                           const bool* __restrict__ mask, NdiShape shape,
                                           const i64* __restrict__ offs, const i64* __restrict__ delta,
                                           int noff, int dilate, int border, int* changed) {
  const int nd = shape.ndim;
  int any = 0;
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < shape.n; i += (i64)blockDim.x * gridDim.x) {
    bool v = in[i];
    bool r = v;
    if (mask == nullptr || mask[i]) {
      i64 c[NDI_MAXD];
      i64 rem = i;
      for (int d = nd - 1; d >= 0; --d) {
        c[d] = rem % shape.dims[d];
        rem /= shape.dims[d];
      }
      r = dilate ? false : true;
      for (int k = 0; k < noff; ++k) {
        bool inside = true;
        for (int d = 0; d < nd; ++d) {
          i64 q = c[d] + offs[k * nd + d];
          if (q < 0 || q >= shape.dims[d]) inside = false;
        }
        bool x = inside ? in[i + delta[k]] : (border != 0);
        if (dilate) {
          if (x) { r = true; break; }
        } else {
          if (!x) { r = false; break; }
        }
      }
    }
    out[i] = r;
    if (r != v) any = 1;
  }
  if (any && changed) atomicExch(changed, 1);
}

// out = a AND b (hit-or-miss), out = NOT a (fill_holes)
extern "C" __global__ void ndi_bool_and(const bool* a, const bool* b, bool* out, i64 n) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x)
    out[i] = a[i] && b[i];
}
extern "C" __global__ void ndi_bool_not(const bool* a, bool* out, i64 n) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x)
    out[i] = !a[i];
}
