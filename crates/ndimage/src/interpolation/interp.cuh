// scipy.ndimage interpolation helpers (cusci-ndimage interpolation/): coordinate mapping,
// stencil index mapping and B-spline weights; the same formulas as interpolation/cpu.rs.

// Input coordinate c of an axis of length n mapped by the mode; false where the result is cval.
// Mode nearest leaves the coordinate alone (SciPy clamps each stencil index instead), but for
// |c| > 2^52, brought to +-2^52 so that it fits an i64 (NaN stays NaN).
__device__ __forceinline__ bool ndi_map_coord(double& c, i64 n, int mode) {
  // NaN (given, or mapped from +-Inf) is cval but in nearest and grid-constant (cpu.rs map_coord)
  if (mode == NDI_CONSTANT) return c >= 0.0 && c <= (double)(n - 1);
  if (mode == NDI_GRID_CONSTANT) return true;
  if (mode == NDI_NEAREST) {
    if (c < -4503599627370496.0) c = -4503599627370496.0;
    else if (c > 4503599627370496.0) c = 4503599627370496.0;
    return true;
  }
  if (c < 0.0) {
    if (n <= 1) { c = 0.0; return true; }
    if (mode == NDI_MIRROR) {
      double s = (double)(2 * n - 2);
      c = s * (double)(i64)(-c / s) + c;
      c = c <= (double)(1 - n) ? c + s : -c;
    } else if (mode == NDI_WRAP) {
      double s = (double)(n - 1);
      c += s * (double)((i64)(-c / s) + 1);
    } else if (mode == NDI_GRID_WRAP) {
      c += (double)n * (double)((i64)((-1.0 - c) / (double)n) + 1);
    } else {  // reflect, grid-mirror
      double s = (double)(2 * n);
      if (c < -s) c = s * (double)(i64)(-c / s) + c;
      c = c < (double)(-n) ? c + s : -c - 1.0;
    }
  } else if (c > (double)(n - 1)) {
    if (n <= 1) { c = 0.0; return true; }
    if (mode == NDI_MIRROR) {
      double s = (double)(2 * n - 2);
      c -= s * (double)(i64)(c / s);
      if (c >= (double)n) c = s - c;
    } else if (mode == NDI_WRAP) {
      double s = (double)(n - 1);
      c -= s * (double)(i64)(c / s);
    } else if (mode == NDI_GRID_WRAP) {
      c -= (double)n * (double)(i64)(c / (double)n);
    } else {
      double s = (double)(2 * n);
      c -= s * (double)(i64)(c / s);
      if (c >= (double)n) c = s - c - 1.0;
    }
  }
  // +-Inf (whose wrap above is -Inf or NaN) and NaN are cval
  return isfinite(c);
}

// Stencil index i mapped into [0, n); -1 for cval.
__device__ __forceinline__ i64 ndi_stencil_index(i64 i, i64 n, int mode) {
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case NDI_GRID_CONSTANT: return -1;
    case NDI_NEAREST: return i < 0 ? 0 : n - 1;
    case NDI_GRID_WRAP: return ndi_map_index(i, n, NDI_WRAP);
    case NDI_REFLECT:
    case NDI_GRID_MIRROR: return ndi_map_index(i, n, NDI_REFLECT);
    default: return ndi_map_index(i, n, NDI_MIRROR);  // mirror, constant, legacy wrap
  }
}

// B-spline weights of `order` at coordinate x (SciPy's get_spline_interpolation_weights);
// returns the first stencil index.
__device__ __forceinline__ i64 ndi_spline_weights(double x, int order, double* w) {
  double fl = floor((order & 1) ? x : x + 0.5);
  i64 start = (i64)fl - order / 2;
  x -= fl;
  double y = x, z = 1.0 - x, t;
  switch (order) {
    case 0: break;
    case 1: w[0] = 1.0 - x; break;
    case 2:
      w[1] = 0.75 - x * x;
      z = 0.5 - x;
      w[0] = 0.5 * z * z;
      break;
    case 3:
      w[1] = (y * y * (y - 2.0) * 3.0 + 4.0) / 6.0;
      w[2] = (z * z * (z - 2.0) * 3.0 + 4.0) / 6.0;
      w[0] = z * z * z / 6.0;
      break;
    case 4:
      t = x * x;
      w[2] = t * (t * 0.25 - 0.625) + 115.0 / 192.0;
      y = 1.0 + x;
      w[1] = y * (y * (y * (5.0 - y) / 6.0 - 1.25) + 5.0 / 24.0) + 55.0 / 96.0;
      w[3] = z * (z * (z * (5.0 - z) / 6.0 - 1.25) + 5.0 / 24.0) + 55.0 / 96.0;
      t = 0.5 - x;
      t *= t;
      w[0] = t * t / 24.0;
      break;
    default:
      t = y * y;
      w[2] = t * (t * (0.25 - y / 12.0) - 0.5) + 0.55;
      t = z * z;
      w[3] = t * (t * (0.25 - z / 12.0) - 0.5) + 0.55;
      y += 1.0;
      w[1] = y * (y * (y * (y * (y / 24.0 - 0.375) + 1.25) - 1.75) + 0.625) + 0.425;
      z += 1.0;
      w[4] = z * (z * (z * (z * (z / 24.0 - 0.375) + 1.25) - 1.75) + 0.625) + 0.425;
      z = 1.0 - x;
      t = z * z;
      w[0] = z * t * t / 120.0;
      break;
  }
  w[order] = 1.0;
  for (int i = 0; i < order; ++i) w[order] -= w[i];
  return start;
}
