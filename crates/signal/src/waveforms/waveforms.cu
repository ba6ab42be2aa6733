// Waveforms evaluated at sample times t (chirp, gausspulse, sawtooth, square, sweep_poly) and
// unit_impulse. Prepended defines: T (float or double), NAME(x). Every value is computed in
// double and rounded to T once, as the CPU path does.
#define W_PI 3.14159265358979323846

// NumPy's mod for a positive divisor: the result has the divisor's sign.
__device__ __forceinline__ double w_mod(double a, double b) {
  double m = fmod(a, b);
  if (m != 0.0 && ((b < 0.0) != (m < 0.0))) m += b;
  return m;
}

// kind: 0 linear, 1 quadratic, 2 quadratic vertex_zero, 3 logarithmic, 4 hyperbolic,
// 5 constant frequency p[0] (log/hyperbolic with f0 == f1), 6 gausspulse (p[0] fc, p[1] a),
// 7 sawtooth (p[0] width), 8 square (p[0] duty), 9 sweep_poly (coef: the integrated
// polynomial, highest power first). Chirps: p[0] f0, p[1] t1, p[2] f1, p[3] phi in radians.
// yq, ye (gausspulse's quadrature and envelope) may be null.
extern "C" __global__ void NAME(wave)(const T* __restrict__ t, T* __restrict__ y,
                                      T* __restrict__ yq, T* __restrict__ ye, i64 n, int kind,
                                      double p0, double p1, double p2, double p3,
                                      const double* __restrict__ coef, int ncoef) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n;
       i += (i64)gridDim.x * blockDim.x) {
    const double tt = (double)t[i];
    double out;
    if (kind <= 5 || kind == 9) {
      double ph;
      if (kind == 0) {
        const double beta = (p2 - p0) / p1;
        ph = 2.0 * W_PI * (p0 * tt + 0.5 * beta * tt * tt);
      } else if (kind == 1) {
        const double beta = (p2 - p0) / (p1 * p1);
        const double d = p1 - tt;
        ph = 2.0 * W_PI * (p2 * tt + beta * (d * d * d - p1 * p1 * p1) / 3.0);
      } else if (kind == 2) {
        const double beta = (p2 - p0) / (p1 * p1);
        ph = 2.0 * W_PI * (p0 * tt + beta * tt * tt * tt / 3.0);
      } else if (kind == 3) {
        const double beta = p1 / log(p2 / p0);
        ph = 2.0 * W_PI * beta * p0 * (pow(p2 / p0, tt / p1) - 1.0);
      } else if (kind == 4) {
        const double sing = -p2 * p1 / (p0 - p2);
        ph = 2.0 * W_PI * (-sing * p0) * log(fabs(1.0 - tt / sing));
      } else if (kind == 5) {
        ph = 2.0 * W_PI * p0 * tt;
      } else {
        double acc = 0.0;
        for (int k = 0; k < ncoef; ++k) acc = acc * tt + coef[k];
        ph = 2.0 * W_PI * acc;
      }
      out = cos(ph + p3);
    } else if (kind == 6) {
      const double env = exp(-p1 * tt * tt);
      out = env * cos(2.0 * W_PI * p0 * tt);
      if (yq) yq[i] = (T)(env * sin(2.0 * W_PI * p0 * tt));
      if (ye) ye[i] = (T)env;
    } else if (kind == 7) {
      if (p0 > 1.0 || p0 < 0.0) {
        out = nan("");
      } else {
        const double m = w_mod(tt, 2.0 * W_PI);
        out = m < p0 * 2.0 * W_PI ? m / (W_PI * p0) - 1.0
                                  : (W_PI * (p0 + 1.0) - m) / (W_PI * (1.0 - p0));
      }
    } else {
      if (p0 > 1.0 || p0 < 0.0) {
        out = nan("");
      } else {
        const double m = w_mod(tt, 2.0 * W_PI);
        out = m < p0 * 2.0 * W_PI ? 1.0 : -1.0;
      }
    }
    y[i] = (T)out;
  }
}

// unit_impulse: y[i] = (i == at) over n elements.
extern "C" __global__ void NAME(impulse)(T* __restrict__ y, i64 n, i64 at) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n;
       i += (i64)gridDim.x * blockDim.x)
    y[i] = i == at ? (T)1 : (T)0;
}
