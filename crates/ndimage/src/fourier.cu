// scipy.ndimage Fourier filters (cusci-ndimage fourier.rs). Prepended: the common header and
//   #define T <element type>  #define R <its real type>  (and NDI_CPLX for complex T)

// NDI_MAXD (32) extents and per-axis parameters by value (fourier.rs's FDims, Params)
struct NdiFDims { i64 d[NDI_MAXD]; };
struct NdiParams { double p[NDI_MAXD]; };

// J1 by the trapezoidal rule on the periodic integrand of Bessel's integral (same as the CPU).
__device__ double ndi_j1(double x) {
  int m = 2 * (int)ceil(fabs(x)) + 40;
  double s = 0.0;
  for (int k = 0; k < m; ++k) {
    double t = 2.0 * 3.141592653589793 * (double)k / (double)m;
    s += cos(t - x * sin(t));
  }
  return s / (double)m;
}

// kind: 0 gaussian, 1 uniform, 2 ellipsoid, 3 shift. axis/nfull: the axis holding a real
// transform of length nfull (nfull < 0: full complex transforms on every axis).
extern "C" __global__ void ndi_fourier(const T* __restrict__ x, T* __restrict__ out, i64 n,
                                       int rank, NdiFDims dims, int axis, i64 nfull, int kind,
                                       NdiParams par) {
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
    i64 r = i;
    double acc = 0.0, prod = 1.0, fq[NDI_MAXD];
    for (int d = rank - 1; d >= 0; --d) {
      i64 c = r % dims.d[d];
      r /= dims.d[d];
      i64 len = dims.d[d];
      fq[d] = (d == axis && nfull >= 0) ? (double)c : (double)(c < (len + 1) / 2 ? c : c - len);
    }
    // the axes in order, as the CPU and SciPy multiply them
    for (int d = 0; d < rank; ++d) {
      const double f = fq[d], t = par.p[d] * f;
      if (kind == 0) {
        // SciPy's table: exp(p·f·f) per axis longer than 1, 0 where |p·f·f| > 50
        const double e = par.p[d] * f * f;
        if (dims.d[d] > 1) prod *= fabs(e) > 50.0 ? 0.0 : exp(e);
      }
      else if (kind == 1 && par.p[d] < 0.0) prod *= f == 0.0 ? 1.0 : 0.0;  // size <= 0
      else if (kind == 1) prod *= t != 0.0 ? sin(t) / t : 1.0;
      else acc += (kind == 2 ? t * t : t);
    }
    double fac = 1.0, fim = 0.0;
    if (kind == 0 || kind == 1) fac = prod;
    else if (kind == 2) {
      double t = sqrt(acc);
      if (t > 0.0) {
        if (rank == 1) fac = sin(t) / t;
        else if (rank == 2) fac = 2.0 * ndi_j1(t) / t;
        else fac = 3.0 * (sin(t) - t * cos(t)) / (t * t * t);
      }
    } else {
      fac = cos(acc);
      fim = sin(acc);
    }
#ifdef NDI_CPLX
    double a = (double)x[i].re, b = (double)x[i].im;
    T o;
    o.re = (R)(a * fac - b * fim);
    o.im = (R)(a * fim + b * fac);
    out[i] = o;
#else
    out[i] = (T)((double)x[i] * fac);
#endif
  }
}
