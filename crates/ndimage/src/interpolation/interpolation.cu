// scipy.ndimage geometric transforms and spline prefilter (cusci-ndimage interpolation/).
// Prepended: the common header, modes.cuh, interp.cuh and
//   #define T <output element type>   #define W <working type of the (prefiltered) input>

struct NdiDims { i64 d[8]; };

__device__ __forceinline__ T ndi_out_cast(double v) {
#ifdef NDI_ROUND
  return cusci_cast(T, v < 0.0 ? v - 0.5 : v + 0.5);
#else
  return cusci_cast(T, v);
#endif
}

// Interpolates x (C-contiguous, idims, rank irank) at coordinates c[0..irank).
__device__ double ndi_interp(const W* __restrict__ x, int irank, const NdiDims& idims,
                             double* c, const NdiDims& ords, int mode, double cval) {
  double w[8][6];
  i64 start[8];
  for (int d = 0; d < irank; ++d) {
    if (!ndi_map_coord(c[d], idims.d[d], mode)) return cval;
    start[d] = ndi_spline_weights(c[d], (int)ords.d[d], w[d]);
  }
  // iterate over the stencil of (order_d + 1) points per axis
  i64 total = 1;
  for (int d = 0; d < irank; ++d) total *= ords.d[d] + 1;
  double acc = 0.0;
  for (i64 s = 0; s < total; ++s) {
    i64 r = s;
    i64 lin = 0;
    double wt = 1.0;
    bool out = false;
    for (int d = irank - 1; d >= 0; --d) {
      int k = (int)(r % (ords.d[d] + 1));
      r /= ords.d[d] + 1;
      wt *= w[d][k];
    }
    r = s;
    i64 mul = 1;
    for (int d = irank - 1; d >= 0; --d) {
      int k = (int)(r % (ords.d[d] + 1));
      r /= ords.d[d] + 1;
      i64 j = ndi_stencil_index(start[d] + k, idims.d[d], mode);
      if (j < 0) { out = true; break; }
      lin += j * mul;
      mul *= idims.d[d];
    }
    acc += wt * (out ? cval : (double)x[lin]);
  }
  return acc;
}

// Output element i at input coordinates given by coords[d * n + i] (map_coordinates; coordinates
// of type W) or by the affine map coordinate = M · out + offset (M row-major irank × orank in
// `mat`, the offset in mat[irank * orank ..]).
extern "C" __global__ void ndi_transform(const W* __restrict__ x, T* __restrict__ out, i64 n,
                                         int irank, NdiDims idims, int orank, NdiDims odims,
                                         const W* __restrict__ coords,
                                         const double* __restrict__ mat, NdiDims ords, int mode,
                                         double cval) {
  double c[8];
  i64 o[8];
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
    if (coords != nullptr) {
      for (int d = 0; d < irank; ++d) c[d] = (double)coords[(i64)d * n + i];
    } else {
      i64 r = i;
      for (int d = orank - 1; d >= 0; --d) {
        o[d] = r % odims.d[d];
        r /= odims.d[d];
      }
      for (int d = 0; d < irank; ++d) {
        double acc = mat[irank * orank + d];
        for (int e = 0; e < orank; ++e) acc += mat[d * orank + e] * (double)o[e];
        c[d] = acc;
      }
    }
    out[i] = ndi_out_cast(ndi_interp(x, irank, idims, c, ords, mode, cval));
  }
}

// In-place B-spline prefilter of the lines along one axis of a C-contiguous W array viewed as
// (outer, len, inner): one thread per line. init: 0 mirror, 1 reflect, 2 wrap.
extern "C" __global__ void ndi_spline1d(W* __restrict__ a, i64 nlines, i64 len, i64 inner,
                                        int npoles, double p0, double p1, int init) {
  for (i64 l = (i64)blockIdx.x * blockDim.x + threadIdx.x; l < nlines; l += (i64)gridDim.x * blockDim.x) {
    W* c = a + (l / inner) * len * inner + (l % inner);
    if (len <= 1) continue;
    double poles[2] = {p0, p1};
    double gain = 1.0;
    for (int k = 0; k < npoles; ++k) gain *= (1.0 - poles[k]) * (1.0 - 1.0 / poles[k]);
    for (i64 j = 0; j < len; ++j) c[j * inner] = (W)((double)c[j * inner] * gain);
    for (int k = 0; k < npoles; ++k) {
      double z = poles[k];
      // causal init
      double c0 = c[0];
      if (init == 0) {
        double zi = z, zn1 = pow(z, (double)(len - 1));
        double s = c0 + zn1 * (double)c[(len - 1) * inner];
        for (i64 j = 1; j < len - 1; ++j) {
          s += zi * ((double)c[j * inner] + zn1 * (double)c[(len - 1 - j) * inner]);
          zi *= z;
        }
        c[0] = (W)(s / (1.0 - zn1 * zn1));
      } else if (init == 1) {
        double zi = z, zn = pow(z, (double)len);
        double s = c0 + zn * (double)c[(len - 1) * inner];
        for (i64 j = 1; j < len; ++j) {
          // SciPy accumulates in c[0] itself, so the last term reads the partial sum
          double back = j == len - 1 ? s : (double)c[(len - 1 - j) * inner];
          s += zi * ((double)c[j * inner] + zn * back);
          zi *= z;
        }
        s *= z / (1.0 - zn * zn);
        c[0] = (W)(s + c0);
      } else {
        double zi = z, s = c0;
        for (i64 j = 1; j < len; ++j) {
          s += zi * (double)c[(len - j) * inner];
          zi *= z;
        }
        c[0] = (W)(s / (1.0 - zi));
      }
      double prev = c[0];
      for (i64 j = 1; j < len; ++j) {
        prev = (double)c[j * inner] + z * prev;
        c[j * inner] = (W)prev;
      }
      // anticausal init
      double last;
      if (init == 0) {
        last = (z * (double)c[(len - 2) * inner] + (double)c[(len - 1) * inner]) * z / (z * z - 1.0);
      } else if (init == 1) {
        last = (double)c[(len - 1) * inner] * z / (z - 1.0);
      } else {
        double zi = z, s = c[(len - 1) * inner];
        for (i64 j = 0; j < len - 1; ++j) {
          s += zi * (double)c[j * inner];
          zi *= z;
        }
        last = s * z / (zi - 1.0);
      }
      c[(len - 1) * inner] = (W)last;
      double next = last;
      for (i64 j = len - 2; j >= 0; --j) {
        next = z * (next - (double)c[j * inner]);
        c[j * inner] = (W)next;
      }
    }
  }
}

// Converts x (type T, C-contiguous, idims) to W while padding every axis by npad on each side
// (edge values for nearest, cval otherwise): the input of the spline prefilter.
extern "C" __global__ void ndi_pad(const T* __restrict__ x, W* __restrict__ out, i64 n, int rank,
                                   NdiDims idims, NdiDims odims, i64 npad, int nearest,
                                   double cval) {
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
    i64 r = i, lin = 0, mul = 1;
    bool oob = false;
    for (int d = rank - 1; d >= 0; --d) {
      i64 o = r % odims.d[d] - npad;
      r /= odims.d[d];
      if (o < 0 || o >= idims.d[d]) {
        if (nearest) o = o < 0 ? 0 : idims.d[d] - 1;
        else oob = true;
      }
      lin += o * mul;
      mul *= idims.d[d];
    }
    out[i] = oob ? (W)cval : (W)x[lin];
  }
}
