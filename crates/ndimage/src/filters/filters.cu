// scipy.ndimage filters (cusci-ndimage filters/). Prepended: the common header, modes.cuh, and
//   #define T <element type>   #define W <working type: float for f32, else double>
// Every kernel is shape-agnostic (shapes are arguments) with 64-bit indices and a grid-stride loop.

struct NdiDims { i64 d[8]; };

// NaN sorts last, as np.sort.
__device__ __forceinline__ bool ndi_lt(W a, W b) { return (a < b) || (b != b && a == a); }

// 1-D correlation along one axis of a C-contiguous array viewed as (outer, len, inner):
//   out[i] = (sum_k w[k] * x[i + (k - shift) * inner]) / div      (op 0)
//   out[i] = min / max over the window (op 1 / op 2; weights unused)
// with positions outside the axis mapped by `mode` (cval for the constant modes).
extern "C" __global__ void ndi_filter1d(const T* __restrict__ x, T* __restrict__ out, i64 n,
                                        i64 len, i64 inner, const W* __restrict__ w, int wlen,
                                        int shift, int mode, W cval, W div, int op) {
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
    i64 pos = (i / inner) % len;
    i64 base = i - pos * inner;
    W acc = op == 0 ? (W)0 : (W)0;
    bool first = true;
    for (int k = 0; k < wlen; ++k) {
      i64 j = ndi_map_index(pos + k - shift, len, mode);
      W v = j < 0 ? cval : (W)x[base + j * inner];
      if (op == 0) {
        acc += w[k] * v;
      } else if (first) {
        acc = v;
        first = false;
      } else if (op == 1) {
        acc = v < acc ? v : acc;
      } else {
        acc = v > acc ? v : acc;
      }
    }
    if (op == 0) acc = acc / div;
    out[i] = cusci_cast(T, acc);
  }
}

// Unravels i over dims[0..ndim) (C order) into c.
__device__ __forceinline__ void ndi_unravel(i64 i, int ndim, const NdiDims& dims, i64* c) {
  for (int d = ndim - 1; d >= 0; --d) {
    c[d] = i % dims.d[d];
    i /= dims.d[d];
  }
}

// The value of x (C-contiguous, dims) at c + off[p*ndim ..] with the boundary mode.
__device__ __forceinline__ W ndi_fetch(const T* __restrict__ x, int ndim, const NdiDims& dims,
                                       const i64* c, const i64* __restrict__ off, int mode,
                                       W cval) {
  i64 lin = 0;
  for (int d = 0; d < ndim; ++d) {
    i64 j = ndi_map_index(c[d] + off[d], dims.d[d], mode);
    if (j < 0) return cval;
    lin = lin * dims.d[d] + j;
  }
  return (W)x[lin];
}

// n-D correlation with npts footprint points: off[p*ndim + d] is the offset of point p along
// axis d (already shifted by the centre and origin), w[p] its weight. op 0: weighted sum;
// op 1 / 2: minimum / maximum over the points.
extern "C" __global__ void ndi_filternd(const T* __restrict__ x, T* __restrict__ out, i64 n,
                                        int ndim, NdiDims dims, const i64* __restrict__ off,
                                        const W* __restrict__ w, int npts, int mode, W cval,
                                        int op) {
  i64 c[8];
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
    ndi_unravel(i, ndim, dims, c);
    W acc = (W)0;
    for (int p = 0; p < npts; ++p) {
      W v = ndi_fetch(x, ndim, dims, c, off + (i64)p * ndim, mode, cval);
      if (op == 0) {
        acc += w[p] * v;
      } else if (p == 0) {
        acc = v;
      } else if (op == 1) {
        acc = v < acc ? v : acc;
      } else {
        acc = v > acc ? v : acc;
      }
    }
    out[i] = cusci_cast(T, acc);
  }
}

#define NDI_RANK_LOCAL 64

// Rank filter over a footprint of npts points: the rank-th smallest (NaN last). Footprints of
// up to NDI_RANK_LOCAL points are gathered and partially sorted in registers/local memory;
// larger ones select by counting (each point's rank among the others), no scratch memory.
extern "C" __global__ void ndi_rank(const T* __restrict__ x, T* __restrict__ out, i64 n, int ndim,
                                    NdiDims dims, const i64* __restrict__ off, int npts, int rank,
                                    int mode, W cval) {
  i64 c[8];
  W v[NDI_RANK_LOCAL];
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
    ndi_unravel(i, ndim, dims, c);
    W res = (W)0;
    if (npts <= NDI_RANK_LOCAL) {
      for (int p = 0; p < npts; ++p) v[p] = ndi_fetch(x, ndim, dims, c, off + (i64)p * ndim, mode, cval);
      // selection sort up to the rank
      for (int a = 0; a <= rank; ++a) {
        int m = a;
        for (int b = a + 1; b < npts; ++b)
          if (ndi_lt(v[b], v[m])) m = b;
        W t = v[a];
        v[a] = v[m];
        v[m] = t;
      }
      res = v[rank];
    } else {
      for (int p = 0; p < npts; ++p) {
        W a = ndi_fetch(x, ndim, dims, c, off + (i64)p * ndim, mode, cval);
        int less = 0, eq = 0;
        for (int q = 0; q < npts; ++q) {
          W b = ndi_fetch(x, ndim, dims, c, off + (i64)q * ndim, mode, cval);
          if (ndi_lt(b, a)) ++less;
          else if (!ndi_lt(a, b)) ++eq;
        }
        if (less <= rank && rank < less + eq) {
          res = a;
          break;
        }
      }
    }
    out[i] = cusci_cast(T, res);
  }
}
