// scipy.ndimage.generic_filter / generic_filter1d with a user CUDA device function
// (cusci-ndimage filters/generic.rs). Prepended: the common header, modes.cuh,
//   #define T <element type>, the user's source, and
//   #define NDI_FN <the user's function>   #define NDI_NPTS <footprint points> (generic_filter)
// The values handed to the user's function are doubles, as SciPy's buffers.

struct NdiGDims { i64 d[8]; };

#ifdef NDI_NPTS
// One thread per output: the NDI_NPTS footprint values (C order over the footprint, the input
// extended by `mode`) gathered into a buffer of compile-time size, then
//   out[i] = NDI_FN(values, NDI_NPTS, extra, nextra).
extern "C" __global__ void ndi_generic(const T* __restrict__ x, T* __restrict__ out, i64 n,
                                       int ndim, NdiGDims dims, const i64* __restrict__ off,
                                       int mode, double cval, const double* __restrict__ extra,
                                       int nextra) {
  double buf[NDI_NPTS];
  i64 c[8];
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
    i64 r = i;
    for (int d = ndim - 1; d >= 0; --d) {
      c[d] = r % dims.d[d];
      r /= dims.d[d];
    }
    for (int p = 0; p < NDI_NPTS; ++p) {
      const i64* o = off + (i64)p * ndim;
      i64 lin = 0;
      bool inside = true;
      for (int d = 0; d < ndim; ++d) {
        i64 j = ndi_map_index(c[d] + o[d], dims.d[d], mode);
        if (j < 0) {
          inside = false;
          break;
        }
        lin = lin * dims.d[d] + j;
      }
      buf[p] = inside ? (double)x[lin] : cval;
    }
    out[i] = cusci_cast(T, NDI_FN(buf, (i64)NDI_NPTS, extra, nextra));
  }
}
#else
// One thread per line along the axis of a C-contiguous array viewed as (outer, len, inner),
// lines l0 .. l0 + cnt: the line extended by `mode` (len + fs - 1 values, line[p] =
// x[p - shift]) into `lin`, the user's NDI_FN(lin, len + fs - 1, lout, len, extra, nextra)
// writes `lout`, which is cast into the output. lin / lout: cnt lines of scratch each.
extern "C" __global__ void ndi_generic1d(const T* __restrict__ x, T* __restrict__ out, i64 l0,
                                         i64 cnt, i64 len, i64 inner, int fs, int shift, int mode,
                                         double cval, double* __restrict__ lin,
                                         double* __restrict__ lout,
                                         const double* __restrict__ extra, int nextra) {
  const i64 ext = len + fs - 1;
  for (i64 k = (i64)blockIdx.x * blockDim.x + threadIdx.x; k < cnt; k += (i64)gridDim.x * blockDim.x) {
    const i64 l = l0 + k;
    const i64 base = (l / inner) * len * inner + (l % inner);
    double* a = lin + k * ext;
    double* b = lout + k * len;
    for (i64 p = 0; p < ext; ++p) {
      const i64 j = ndi_map_index(p - shift, len, mode);
      a[p] = j < 0 ? cval : (double)x[base + j * inner];
    }
    NDI_FN(a, ext, b, len, extra, nextra);
    for (i64 p = 0; p < len; ++p) out[base + p * inner] = cusci_cast(T, b[p]);
  }
}
#endif
