// Whittaker-Henderson smoothing: one thread per signal solves (W + lamb D'D) x = W y with the
// banded Cholesky factor computed on the host, or applies the polynomial projection of SciPy's
// large-lambda fallback; both in double. Prepended defines: T (float or double), NAME(x).
//
// y, x: [batch, n] C-contiguous. w: the n weights. mode 0: lb[(i)*(p+1) + k] = L[i][i-k]
// (k = 0..p), the Cholesky factor's band; mode 1: qw, u: [n, p] (x = u (qw' y)). z: [batch, n]
// doubles of scratch. r2[b] = sum w (y - x)^2 + lamb * sum (diff^p x)^2 (SciPy's REML residual),
// for signals b0 .. b0 + count.
extern "C" __global__ void NAME(wh_solve)(const T* __restrict__ y, const double* __restrict__ w,
                                          const double* __restrict__ lb,
                                          const double* __restrict__ u, T* __restrict__ x,
                                          double* __restrict__ z, double* __restrict__ r2,
                                          i64 b0, i64 count, i64 n, int p, int mode,
                                          double lamb) {
  const i64 t = blockIdx.x * (i64)blockDim.x + threadIdx.x;
  if (t >= count) return;
  const i64 b = b0 + t;
  const T* yb = y + b * n;
  T* xb = x + b * n;
  double* zb = z + b * n;
  // the right-hand side W y, a zero weight zeroing any value (SciPy's nan_to_num)
  if (mode == 0) {
    const int pw = p + 1;
    for (i64 i = 0; i < n; ++i) {
      const double wi = w[i];
      double s = wi == 0.0 ? 0.0 : wi * (double)yb[i];
      const i64 kmax = i < p ? i : p;
      for (i64 k = 1; k <= kmax; ++k) s -= lb[i * pw + k] * zb[i - k];
      zb[i] = s / lb[i * pw];
    }
    for (i64 i = n - 1; i >= 0; --i) {
      double s = zb[i];
      const i64 kmax = (n - 1 - i) < p ? (n - 1 - i) : p;
      for (i64 k = 1; k <= kmax; ++k) s -= lb[(i + k) * pw + k] * zb[i + k];
      zb[i] = s / lb[i * pw];
    }
  } else {
    for (i64 i = 0; i < n; ++i) zb[i] = 0.0;
    for (int k = 0; k < p; ++k) {
      double s = 0.0;
      for (i64 i = 0; i < n; ++i) {
        const double q = lb[i * p + k];
        if (q != 0.0) s += q * (double)yb[i];
      }
      for (i64 i = 0; i < n; ++i) zb[i] += u[i * p + k] * s;
    }
  }
  // the residual of the REML criterion, then the output
  double rr = 0.0;
  for (i64 i = 0; i < n; ++i) {
    const double wi = w[i];
    if (wi != 0.0) {
      const double d = (double)yb[i] - zb[i];
      rr += wi * d * d;
    }
  }
  double pen = 0.0;
  for (i64 i = 0; i + p < n; ++i) {
    // the p-th forward difference at i: sum_m (-1)^(p-m) C(p, m) x[i+m]
    double c = 1.0, d = 0.0;
    for (int m = p; m >= 0; --m) {
      d += ((p - m) % 2 ? -c : c) * zb[i + m];
      c = c * m / (p - m + 1);
    }
    pen += d * d;
  }
  r2[t] = rr + lamb * pen;
  for (i64 i = 0; i < n; ++i) xb[i] = (T)zb[i];
}
