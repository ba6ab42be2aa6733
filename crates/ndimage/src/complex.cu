// Complex results from real parts (cusci-ndimage complex.rs): SciPy's
// _complex_via_real_components. Prepended: the common header and
//   #define T <complex type>  #define R <its real type>

// out = re + i·im
extern "C" __global__ void ndi_cjoin(const R* __restrict__ re, const R* __restrict__ im,
                                     T* __restrict__ out, i64 n) {
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
    T o;
    o.re = re[i];
    o.im = im[i];
    out[i] = o;
  }
}

// out = (a − b) + i·(c + d), each in R (complex weights: SciPy's output.real −= ...,
// output.imag += ...)
extern "C" __global__ void ndi_cjoin4(const R* __restrict__ a, const R* __restrict__ b,
                                      const R* __restrict__ c, const R* __restrict__ d,
                                      T* __restrict__ out, i64 n) {
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
    T o;
    o.re = a[i] - b[i];
    o.im = c[i] + d[i];
    out[i] = o;
  }
}
