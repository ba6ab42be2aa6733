// B-spline evaluation (cspline1d_eval, qspline1d_eval) and the mirror-symmetric 3-tap FIR of
// spline_filter. Prepended defines: T (coefficient type), R (its real type), ACC (double or
// cplx64: every sum is accumulated there and rounded to T once), NAME(x).

__device__ __forceinline__ double sp_beta3(double t) {
  const double a = fabs(t);
  if (a < 1.0) return (4.0 - 6.0 * a * a + 3.0 * a * a * a) / 6.0;
  if (a < 2.0) { const double b = 2.0 - a; return b * b * b / 6.0; }
  return 0.0;
}

__device__ __forceinline__ double sp_beta2(double t) {
  const double a = fabs(t);
  if (a < 0.5) return 0.75 - a * a;
  if (a < 1.5) { const double b = 1.5 - a; return b * b / 2.0; }
  return 0.0;
}

// y[i] = the spline of coefficients cj[0..n) at (x[i] - x0) / dx: SciPy's mirror rule outside
// [0, n-1], then the sum of the 4 (cubic) or 3 (quadratic) nearest coefficients, indices
// clamped to the ends (the same steps as eval_point in splines.rs).
extern "C" __global__ void NAME(eval)(const T* __restrict__ cj, i64 n, const R* __restrict__ x,
                                      T* __restrict__ y, i64 m, double dx, double x0,
                                      int cubic) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < m;
       i += (i64)gridDim.x * blockDim.x) {
    double xx = ((double)x[i] - x0) / dx;
    if (isnan(xx) || isinf(xx)) {
      y[i] = cusci_cast(T, nan(""));
      continue;
    }
    if (n == 1) {
      xx = 0.0;
    } else {
      const double last = (double)(n - 1);
      if (xx < 0.0) xx = -xx;
      if (xx > last) {
        const double per = 2.0 * last;
        xx = fmod(xx, per);
        if (xx > last) xx = per - xx;
      }
    }
    const double off = cubic ? 2.0 : 1.5;
    const int terms = cubic ? 4 : 3;
    const i64 jl = (i64)floor(xx - off) + 1;
    ACC acc = cusci_cast(ACC, 0.0);
    for (int k = 0; k < terms; ++k) {
      const i64 j = jl + k;
      const i64 idx = j < 0 ? 0 : (j > n - 1 ? n - 1 : j);
      const double b = cubic ? sp_beta3(xx - (double)j) : sp_beta2(xx - (double)j);
      acc += cusci_cast(ACC, cj[idx]) * b;
    }
    y[i] = cusci_cast(T, acc);
  }
}

// y = e*x[i-1] + m*x[i] + e*x[i+1] along the middle axis of (outer, n, inner), SciPy's sepfir2d
// mirror ends (x[-1] = x[0], x[n] = x[n-1]).
extern "C" __global__ void NAME(fir3)(const T* __restrict__ x, T* __restrict__ y, i64 outer,
                                      i64 n, i64 inner, double e, double m) {
  const i64 total = outer * n * inner;
  for (i64 g = blockIdx.x * (i64)blockDim.x + threadIdx.x; g < total;
       g += (i64)gridDim.x * blockDim.x) {
    const i64 q = g % inner;
    const i64 i = (g / inner) % n;
    const i64 o = g / (inner * n);
    const i64 l = i == 0 ? 0 : i - 1;
    const i64 r = i + 1 == n ? i : i + 1;
    const i64 base = o * n * inner + q;
    const T te = cusci_cast(T, e);
    const T tm = cusci_cast(T, m);
    y[g] = te * x[base + l * inner] + tm * x[base + i * inner] + te * x[base + r * inner];
  }
}
