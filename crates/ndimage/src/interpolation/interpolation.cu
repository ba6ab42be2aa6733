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

// The affine map of a transform: M (row-major irank x orank), the offset (irank values), then a
// shift of the output coordinates (orank values: 0, or 0.5 for zoom's grid mode).
struct NdiMat { double m[80]; };

// a / b and a % b for non-negative a, b: 32-bit division where both fit (the common case).
__device__ __forceinline__ i64 ndi_udiv(i64 a, i64 b) {
  return ((a | b) >> 32) == 0 ? (i64)((unsigned)a / (unsigned)b) : a / b;
}

// Output element i at input coordinates given by coords[d * n + i] + cshift (map_coordinates;
// coordinates of type W) or by the affine map coordinate = offset + M · (out + h), each product
// rounded and added in order, then + cshift (the prefilter's padding), without fused
// multiply-adds: the coordinates of the CPU and SciPy, the same nearest neighbour where a
// coordinate falls on a half. Any rank, a spline order per axis.
extern "C" __global__ void ndi_transform(const W* __restrict__ x, T* __restrict__ out, i64 n,
                                         int irank, NdiDims idims, int orank, NdiDims odims,
                                         const W* __restrict__ coords, double cshift, NdiMat mat,
                                         NdiDims ords, int mode, double cval) {
  double c[8];
  i64 o[8];
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
    if (coords != nullptr) {
      for (int d = 0; d < irank; ++d) c[d] = (double)coords[(i64)d * n + i] + cshift;
    } else {
      i64 r = i;
      for (int d = orank - 1; d >= 0; --d) {
        const i64 q = ndi_udiv(r, odims.d[d]);
        o[d] = r - q * odims.d[d];
        r = q;
      }
      for (int d = 0; d < irank; ++d) {
        double acc = mat.m[irank * orank + d];
        for (int e = 0; e < orank; ++e)
          acc = __dadd_rn(acc, __dmul_rn(mat.m[d * orank + e],
                                         (double)o[e] + mat.m[irank * orank + irank + e]));
        c[d] = __dadd_rn(acc, cshift);
      }
    }
    out[i] = ndi_out_cast(ndi_interp(x, irank, idims, c, ords, mode, cval));
  }
}

// ndi_interp for rank R and order O known at compile time: weights and stencil offsets in
// registers, the boundary mapping only where the stencil leaves the axis. The same arithmetic as
// ndi_interp (stencil points in row-major order, each weight the product of the per-axis weights
// from the last axis down).
template <int R, int O>
__device__ __forceinline__ double ndi_interp_fixed(const W* __restrict__ x, const NdiDims& idims,
                                                   double* c, int mode, double cval) {
  constexpr int K = O + 1;
  double w[R][K];
  i64 idx[R][K];  // offset in x of each stencil index per axis, -1 for cval
  i64 stride = 1;
#pragma unroll
  for (int d = R - 1; d >= 0; --d) {
    const i64 nd = idims.d[d];
    if (!ndi_map_coord(c[d], nd, mode)) return cval;
    const i64 st = ndi_spline_weights(c[d], O, w[d]);
    if (st >= 0 && st + O < nd) {
#pragma unroll
      for (int k = 0; k < K; ++k) idx[d][k] = (st + k) * stride;
    } else {
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const i64 j = ndi_stencil_index(st + k, nd, mode);
        idx[d][k] = j < 0 ? -1 : j * stride;
      }
    }
    stride *= nd;
  }
  constexpr int TOT = R == 1 ? K : (R == 2 ? K * K : K * K * K);
  double acc = 0.0;
#pragma unroll
  for (int s = 0; s < TOT; ++s) {
    double wt = 1.0;
    i64 lin = 0;
    bool outside = false;
    int r = s;
#pragma unroll
    for (int d = R - 1; d >= 0; --d) {
      const int k = r % K;
      r /= K;
      wt *= w[d][k];
      outside = outside || idx[d][k] < 0;
      lin += idx[d][k];
    }
    acc += wt * (outside ? cval : (double)x[lin]);
  }
  return acc;
}

// ndi_transform for an input of rank R (1 to 3) with order O on every axis and, for the affine
// map, an output of the same rank. Instantiated one (R, O) per module by the host
// (NDI_TRANSFORM_FIXED(R, O) appended to the source), so only the pairs in use compile.
template <int R, int O>
__device__ __forceinline__ void ndi_transform_fixed(const W* __restrict__ x, T* __restrict__ out,
                                                    i64 n, const NdiDims& idims,
                                                    const NdiDims& odims,
                                                    const W* __restrict__ coords, double cshift,
                                                    const NdiMat& mat, int mode, double cval) {
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
    double c[R];
    if (coords != nullptr) {
#pragma unroll
      for (int d = 0; d < R; ++d) c[d] = (double)coords[(i64)d * n + i] + cshift;
    } else {
      i64 o[R];
      i64 r = i;
#pragma unroll
      for (int d = R - 1; d >= 0; --d) {
        const i64 q = ndi_udiv(r, odims.d[d]);
        o[d] = r - q * odims.d[d];
        r = q;
      }
#pragma unroll
      for (int d = 0; d < R; ++d) {
        double acc = mat.m[R * R + d];
#pragma unroll
        for (int e = 0; e < R; ++e)
          acc = __dadd_rn(acc, __dmul_rn(mat.m[d * R + e], (double)o[e] + mat.m[R * R + R + e]));
        c[d] = __dadd_rn(acc, cshift);
      }
    }
    out[i] = ndi_out_cast(ndi_interp_fixed<R, O>(x, idims, c, mode, cval));
  }
}

#define NDI_TRANSFORM_FIXED(R, O)                                                                \
  extern "C" __global__ void ndi_transform_r##R##o##O(                                          \
      const W* __restrict__ x, T* __restrict__ out, i64 n, NdiDims idims, NdiDims odims,        \
      const W* __restrict__ coords, double cshift, NdiMat mat, int mode, double cval) {         \
    ndi_transform_fixed<R, O>(x, out, n, idims, odims, coords, cshift, mat, mode, cval);        \
  }

// B-spline prefilter of the lines along one axis of a C-contiguous W array viewed as
// (outer, len, inner), one pole at a time in two out-of-place passes (SciPy's causal then
// anticausal recursion). A thread handles `ch` consecutive positions of one line (threads of a
// warp: consecutive inner positions, so loads and stores are coalesced off the last axis). A chunk
// that does not start at the line's start runs the recursion from zero over the `warm` positions
// before it: the error is |z|^warm of the line's values (warm is chosen so that this is below
// 1e-16), and the line's start uses SciPy's exact initial value (its sums stop once the powers of
// z fall below 1e-17 of the first term). init: 0 mirror, 1 reflect, 2 wrap.
__device__ __forceinline__ double ndi_sp_init_causal(const W* __restrict__ c, i64 len, i64 inner,
                                                     double z, double g, int init) {
#define NDI_C(j) ((double)c[(i64)(j) * inner] * g)
  const double c0 = NDI_C(0);
  if (init == 0) {
    double zi = z;
    const double zn1 = pow(z, (double)(len - 1));
    double s = c0 + zn1 * NDI_C(len - 1);
    for (i64 j = 1; j < len - 1; ++j) {
      s += zi * (NDI_C(j) + zn1 * NDI_C(len - 1 - j));
      zi *= z;
      if (fabs(zi) < 1e-17) break;
    }
    return s / (1.0 - zn1 * zn1);
  } else if (init == 1) {
    double zi = z;
    const double zn = pow(z, (double)len);
    double s = c0 + zn * NDI_C(len - 1);
    for (i64 j = 1; j < len; ++j) {
      // SciPy accumulates in c[0] itself, so the last term reads the partial sum
      const double back = j == len - 1 ? s : NDI_C(len - 1 - j);
      s += zi * (NDI_C(j) + zn * back);
      zi *= z;
      if (fabs(zi) < 1e-17) break;
    }
    s *= z / (1.0 - zn * zn);
    return s + c0;
  } else {
    double zi = z, s = c0;
    for (i64 j = 1; j < len; ++j) {
      s += zi * NDI_C(len - j);
      zi *= z;
      if (fabs(zi) < 1e-17) break;
    }
    return s / (1.0 - pow(z, (double)len));
  }
#undef NDI_C
}

extern "C" __global__ void ndi_spline_causal(const W* __restrict__ in, W* __restrict__ out,
                                             i64 outer, i64 len, i64 inner, int ch, int warm,
                                             double z, double g, int init) {
  const i64 nch = (len + ch - 1) / ch;
  const i64 total = outer * nch * inner;
  for (i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (i64)gridDim.x * blockDim.x) {
    const i64 ii = t % inner, r = t / inner;
    const i64 q = r % nch, o = r / nch;
    const i64 off = o * len * inner + ii;
    const W* c = in + off;
    W* y = out + off;
    const i64 j0 = q * ch, j1 = min(len, j0 + (i64)ch);
    double prev;
    i64 j;
    if (j0 <= warm) {
      prev = ndi_sp_init_causal(c, len, inner, z, g, init);
      if (j0 == 0) y[0] = (W)prev;
      j = 1;
    } else {
      prev = 0.0;
      j = j0 - warm;
    }
    for (; j < j0; ++j) prev = (double)c[j * inner] * g + z * prev;
    for (; j < j1; ++j) {
      prev = (double)c[j * inner] * g + z * prev;
      y[j * inner] = (W)prev;
    }
  }
}

extern "C" __global__ void ndi_spline_anticausal(const W* __restrict__ in, W* __restrict__ out,
                                                 i64 outer, i64 len, i64 inner, int ch, int warm,
                                                 double z, int init) {
  const i64 nch = (len + ch - 1) / ch;
  const i64 total = outer * nch * inner;
  for (i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (i64)gridDim.x * blockDim.x) {
    const i64 ii = t % inner, r = t / inner;
    const i64 q = r % nch, o = r / nch;
    const i64 off = o * len * inner + ii;
    const W* c = in + off;
    W* y = out + off;
    const i64 j0 = q * ch, j1 = min(len, j0 + (i64)ch);
    double next;
    i64 j;
    if (j1 - 1 + warm >= len - 1) {
      const double cl = (double)c[(len - 1) * inner];
      if (init == 0) {
        next = (z * (double)c[(len - 2) * inner] + cl) * z / (z * z - 1.0);
      } else if (init == 1) {
        next = cl * z / (z - 1.0);
      } else {
        double zi = z, s = cl;
        for (i64 k = 0; k < len - 1; ++k) {
          s += zi * (double)c[k * inner];
          zi *= z;
          if (fabs(zi) < 1e-17) break;
        }
        next = s * z / (pow(z, (double)len) - 1.0);
      }
      if (j1 == len) y[(len - 1) * inner] = (W)next;
      j = len - 2;
    } else {
      next = 0.0;
      j = j1 - 1 + warm;
    }
    for (; j >= j1; --j) next = z * (next - (double)c[j * inner]);
    for (; j >= j0; --j) {
      next = z * (next - (double)c[j * inner]);
      y[j * inner] = (W)next;
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
