// Grey morphology (cusci-ndimage morphology/grey.rs): minimum (erosion) or maximum (dilation) over
// a footprint, with structure values subtracted (minimum) or added (maximum) when sv is not null,
// outside values by the boundary mode (cval and the sums cast as SciPy's C code casts them).
// NDI_T: the element type.

// SciPy's C cast of a double into the element type (x86-64): truncation, the integer indefinite
// out of range (u8 through a 32-bit int, wrapped), f32 rounded to nearest.
__device__ __forceinline__ int ndi_cc32(double v) {
  return (v > -2147483649.0 && v < 2147483648.0) ? (int)v : (int)0x80000000;
}
__device__ __forceinline__ void ndi_cc(double v, double& r) { r = v; }
__device__ __forceinline__ void ndi_cc(double v, float& r) { r = __double2float_rn(v); }
__device__ __forceinline__ void ndi_cc(double v, int& r) { r = ndi_cc32(v); }
__device__ __forceinline__ void ndi_cc(double v, long long& r) {
  r = (v >= -9223372036854775808.0 && v < 9223372036854775808.0)
      ? (long long)v : (long long)0x8000000000000000ULL;
}
__device__ __forceinline__ void ndi_cc(double v, unsigned char& r) {
  r = (unsigned char)(unsigned int)ndi_cc32(v);
}
__device__ __forceinline__ NDI_T ndi_grey_cast(double v) {
  NDI_T r;
  ndi_cc(v, r);
  return r;
}

// SciPy's `_tmp += (_type)ss`: ss cast to the element type, added there (integers wrap, f32
// rounds to nearest), as a double.
__device__ __forceinline__ double ndi_grey_add(double x, double s) { return __dadd_rn(x, s); }
__device__ __forceinline__ double ndi_grey_add(float x, double s) {
  return (double)__fadd_rn(x, __double2float_rn(s));
}
__device__ __forceinline__ double ndi_grey_add(int x, double s) {
  return (double)(int)((unsigned int)x + (unsigned int)ndi_cc32(s));
}
__device__ __forceinline__ double ndi_grey_add(long long x, double s) {
  long long c;
  ndi_cc(s, c);
  return (double)(long long)((unsigned long long)x + (unsigned long long)c);
}
__device__ __forceinline__ double ndi_grey_add(unsigned char x, double s) {
  return (double)(unsigned char)((unsigned int)x + (unsigned int)ndi_cc32(s));
}

extern "C" __global__ void ndi_grey(const NDI_T* __restrict__ in, NDI_T* __restrict__ out,
                                    NdiShape shape, const i64* __restrict__ offs,
                                    const double* __restrict__ sv, int noff, int is_max, int mode,
                                    double cval) {
  const int nd = shape.ndim;
  const NDI_T cv = ndi_grey_cast(cval);  // SciPy reads cval as the element type
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < shape.n; i += (i64)blockDim.x * gridDim.x) {
    i64 c[NDI_MAXD];
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
        // SciPy adds -s (erosion) or s (dilation): the first term in double, the others cast
        // to the element type and added there
        const double ss = is_max ? sv[k] : -sv[k];
        const double v = k == 0 ? __dadd_rn((double)x, ss) : ndi_grey_add(x, ss);
        if (k == 0 || (is_max ? v > bestd : v < bestd)) bestd = v;
      } else {
        if (k == 0 || (is_max ? x > best : x < best)) best = x;
      }
    }
    out[i] = sv ? ndi_grey_cast(bestd) : best;
  }
}
