// scipy.ndimage filters (cusci-ndimage filters/). Prepended: the common header, modes.cuh, and
//   #define T <element type>   #define W <working type: float for f32, else double>
// Every kernel is shape-agnostic (shapes are arguments) with 64-bit indices and a grid-stride loop.

struct NdiDims { i64 d[8]; };

// Up to 64 window weights by value (kernel parameters: no upload, no host synchronisation); a
// kernel takes its weights from the table pointer when that is not null, else from here.
struct NdiTaps { W w[64]; };

// NaN sorts last, as np.sort.
__device__ __forceinline__ bool ndi_lt(W a, W b) { return (a < b) || (b != b && a == a); }

// 1-D correlation along one axis of a C-contiguous array viewed as (outer, len, inner):
//   out[i] = (sum_k w[k] * x[i + (k - shift) * inner]) / div      (op 0)
//   out[i] = min / max over the window (op 1 / op 2; weights unused)
// with positions outside the axis mapped by `mode` (cval for the constant modes).
extern "C" __global__ void ndi_filter1d(const T* __restrict__ x, T* __restrict__ out, i64 n,
                                        i64 len, i64 inner, const W* __restrict__ w,
                                        NdiTaps taps, int wlen,
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
        acc += (w != nullptr ? w[k] : taps.w[k]) * v;
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

// Tiled 1-D window along one axis, the same arithmetic as ndi_filter1d (identical results). The
// array is viewed as (outer, len, inner); a tile is `tl` positions along the axis times 2^tis
// consecutive inner (contiguous) positions: tis = 0 for the last axis (the tile runs along the
// line), tis = 5 for other axes (32 consecutive columns, so every load and store is coalesced).
// The tile and its halo (tl + wlen - 1 rows) are loaded once into shared memory, with the mode
// mapping only where a row leaves the axis; the weights sit in shared memory too. Each thread then
// computes several outputs from shared memory. Dynamic shared memory:
//   (wlen + (tl + wlen - 1) << tis) * sizeof(W) bytes.
extern "C" __global__ void ndi_filter1d_tiled(const T* __restrict__ x, T* __restrict__ out,
                                              i64 outer, i64 len, i64 inner,
                                              const W* __restrict__ w, NdiTaps taps,
                                              int wlen, int shift,
                                              int mode, W cval, W div, int op, int tl, int tis) {
  extern __shared__ __align__(16) unsigned char ndi_smem[];
  W* sw = (W*)ndi_smem;
  W* s = sw + wlen;
  const int ti = 1 << tis;
  for (int k = threadIdx.x; k < wlen; k += blockDim.x) sw[k] = w != nullptr ? w[k] : taps.w[k];
  const i64 nl = (len + tl - 1) / tl, ni = (inner + ti - 1) >> tis;
  const i64 ntiles = outer * nl * ni;
  const int rows = tl + wlen - 1;
  for (i64 t = blockIdx.x; t < ntiles; t += gridDim.x) {
    const i64 bi = t % ni, r = t / ni;
    const i64 bl = r % nl, o = r / nl;
    const i64 i0 = bi << tis, l0 = bl * tl;
    const i64 base = o * len * inner;
    __syncthreads();  // the weights are in place; the previous tile's reads are done
    for (int e = threadIdx.x; e < (rows << tis); e += blockDim.x) {
      const int ii = e & (ti - 1), ll = e >> tis;
      const i64 gi = i0 + ii;
      W v = cval;
      if (gi < inner) {
        const i64 j = ndi_map_index(l0 + ll - shift, len, mode);
        if (j >= 0) v = (W)x[base + j * inner + gi];
      }
      s[e] = v;
    }
    __syncthreads();
    for (int e = threadIdx.x; e < (tl << tis); e += blockDim.x) {
      const int ii = e & (ti - 1), ll = e >> tis;
      const i64 gi = i0 + ii, gl = l0 + ll;
      if (gi >= inner || gl >= len) continue;
      const W* sp = s + ((i64)ll << tis) + ii;
      W acc = (W)0;
      if (op == 0) {
        for (int k = 0; k < wlen; ++k) acc += sw[k] * sp[k << tis];
        acc = acc / div;
      } else if (op == 1) {
        acc = sp[0];
        for (int k = 1; k < wlen; ++k) {
          const W v = sp[k << tis];
          acc = v < acc ? v : acc;
        }
      } else {
        acc = sp[0];
        for (int k = 1; k < wlen; ++k) {
          const W v = sp[k << tis];
          acc = v > acc ? v : acc;
        }
      }
      out[base + gl * inner + gi] = cusci_cast(T, acc);
    }
  }
}

// Unravels i over dims[0..ndim) (C order) into c.
// a / b for non-negative a, b: 32-bit division where both fit (the common case).
__device__ __forceinline__ i64 ndi_udiv(i64 a, i64 b) {
  return ((a | b) >> 32) == 0 ? (i64)((unsigned)a / (unsigned)b) : a / b;
}

__device__ __forceinline__ void ndi_unravel(i64 i, int ndim, const NdiDims& dims, i64* c) {
  for (int d = ndim - 1; d >= 0; --d) {
    const i64 q = ndi_udiv(i, dims.d[d]);
    c[d] = i - q * dims.d[d];
    i = q;
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

// True where every footprint point of the element at c lies inside the array: lo/hi are the
// smallest and largest offsets of the footprint along each axis. There the boundary mapping is
// skipped and point p is read at i + lin[p] (its offset in the C-contiguous array).
__device__ __forceinline__ bool ndi_interior(int ndim, const NdiDims& dims, const i64* c,
                                             const NdiDims& lo, const NdiDims& hi) {
  bool in = true;
  for (int d = 0; d < ndim; ++d) in = in && c[d] + lo.d[d] >= 0 && c[d] + hi.d[d] < dims.d[d];
  return in;
}

// n-D correlation with npts footprint points: off[p*ndim + d] is the offset of point p along
// axis d (already shifted by the centre and origin), lin[p] the same as a linear offset, w[p]
// its weight. op 0: weighted sum; op 1 / 2: minimum / maximum over the points. Elements whose
// whole footprint is inside the array (the interior) skip the boundary mapping.
extern "C" __global__ void ndi_filternd(const T* __restrict__ x, T* __restrict__ out, i64 n,
                                        int ndim, NdiDims dims, const i64* __restrict__ off,
                                        const i64* __restrict__ lin, NdiDims lo, NdiDims hi,
                                        const W* __restrict__ w, int npts, int mode, W cval,
                                        int op) {
  i64 c[8];
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
    ndi_unravel(i, ndim, dims, c);
    const bool in = ndi_interior(ndim, dims, c, lo, hi);
    W acc = (W)0;
    for (int p = 0; p < npts; ++p) {
      W v = in ? (W)x[i + lin[p]] : ndi_fetch(x, ndim, dims, c, off + (i64)p * ndim, mode, cval);
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

// Order-preserving integer keys of W values (NaN, of either sign, the largest key: it sorts last
// as in np.sort), so that a compare-exchange is one min and one max.
#ifdef NDI_WF32
typedef unsigned int NdiKey;
__device__ __forceinline__ NdiKey ndi_key(float v) {
  const unsigned b = __float_as_uint(v);
  return v != v ? 0xffffffffu : ((b & 0x80000000u) ? ~b : (b | 0x80000000u));
}
__device__ __forceinline__ float ndi_unkey(NdiKey k) {
  return __uint_as_float((k & 0x80000000u) ? (k ^ 0x80000000u) : ~k);
}
#else
typedef unsigned long long NdiKey;
__device__ __forceinline__ NdiKey ndi_key(double v) {
  const unsigned long long b = (unsigned long long)__double_as_longlong(v);
  const unsigned long long s = 0x8000000000000000ull;
  return v != v ? ~0ull : ((b & s) ? ~b : (b | s));
}
__device__ __forceinline__ double ndi_unkey(NdiKey k) {
  const unsigned long long s = 0x8000000000000000ull;
  return __longlong_as_double((long long)((k & s) ? (k ^ s) : ~k));
}
#endif

// Median selection networks: Batcher's odd-even merge sort of v[0 .. NP) (NP a power of two),
// its c-th compare-exchange (in the network's order) leaving the smaller key at index i and the
// larger at j. Applied by compile-time recursion, every index is a constant (registers, no local
// memory); the caller pads the wires past N with the largest key (+inf), so the compiler folds
// the padding wires away and prunes the comparators that do not reach the one wire read
// afterwards (v[(N-1)/2], the median). v holds order-preserving keys.
struct NdiCx { int i, j; };
constexpr NdiCx ndi_batcher_cx(int np, int c) {
  for (int p = 1; p < np; p *= 2)
    for (int k = p; k >= 1; k /= 2)
      for (int j = k % p; j + k < np; j += 2 * k)
        for (int i = 0; i < k && i + j + k < np; ++i)
          if ((i + j) / (2 * p) == (i + j + k) / (2 * p) && c-- == 0) return {i + j, i + j + k};
  return {-1, -1};
}
template <int NP, int C = 0>
__device__ __forceinline__ void ndi_median_net(NdiKey* v) {
  constexpr NdiCx cx = ndi_batcher_cx(NP, C);
  if constexpr (cx.i >= 0) {
    const NdiKey a = v[cx.i], b = v[cx.j];
    v[cx.i] = min(a, b);
    v[cx.j] = max(a, b);
    ndi_median_net<NP, C + 1>(v);
  }
}

// The points of a small footprint by value (kernel parameters: with the loops unrolled every
// offset is a constant-bank operand, no table in global memory): lin[p] the linear offset of
// point p, off[p * ndim + d] its offset along axis d.
struct NdiSmallPts { i64 lin[27]; i64 off[27 * 8]; };

// Rank filter for a footprint of exactly N points (N a compile-time constant): the values sit in
// registers (every index below is a constant after unrolling: no local memory). The median goes
// through the pruned selection network on integer keys; other ranks through a selection network
// that moves the smallest remaining value to position a for a = 0 .. rank; v[rank] is the result.
// Same value as ndi_rank (NaN sorts last).
template <int N>
__device__ __forceinline__ void ndi_rank_small(const T* __restrict__ x, T* __restrict__ out, i64 n,
                                               int ndim, const NdiDims& dims,
                                               const NdiSmallPts& pts, const NdiDims& lo,
                                               const NdiDims& hi, int rank, int mode, W cval) {
  constexpr int NP = N <= 4 ? 4 : (N <= 8 ? 8 : (N <= 16 ? 16 : 32));
  i64 c[8];
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
    ndi_unravel(i, ndim, dims, c);
    W v[N];
    if (ndi_interior(ndim, dims, c, lo, hi)) {
#pragma unroll
      for (int p = 0; p < N; ++p) v[p] = (W)x[i + pts.lin[p]];
    } else {
#pragma unroll
      for (int p = 0; p < N; ++p) v[p] = ndi_fetch(x, ndim, dims, c, pts.off + p * ndim, mode, cval);
    }
    W res = v[0];
    if (rank == (N - 1) / 2) {
      NdiKey k[NP];
#pragma unroll
      for (int p = 0; p < N; ++p) k[p] = ndi_key(v[p]);
#pragma unroll
      for (int p = N; p < NP; ++p) k[p] = ~(NdiKey)0;
      ndi_median_net<NP>(k);
      res = ndi_unkey(k[(N - 1) / 2]);
    } else {
#pragma unroll
      for (int a = 0; a < N; ++a) {
        if (a > rank) break;
#pragma unroll
        for (int b = a + 1; b < N; ++b) {
          const W p = v[a], q = v[b];
          const bool sw = ndi_lt(q, p);
          v[a] = sw ? q : p;
          v[b] = sw ? p : q;
        }
      }
#pragma unroll
      for (int a = 1; a < N; ++a)
        if (a == rank) res = v[a];
    }
    out[i] = cusci_cast(T, res);
  }
}

#define NDI_RANK_SMALL(N)                                                                         \
  extern "C" __global__ void ndi_rank##N(const T* __restrict__ x, T* __restrict__ out, i64 n,     \
                                         int ndim, NdiDims dims, NdiSmallPts pts, NdiDims lo,     \
                                         NdiDims hi, int rank, int mode, W cval) {                \
    ndi_rank_small<N>(x, out, n, ndim, dims, pts, lo, hi, rank, mode, cval);                      \
  }
NDI_RANK_SMALL(3)
NDI_RANK_SMALL(5)
NDI_RANK_SMALL(7)
NDI_RANK_SMALL(9)
NDI_RANK_SMALL(25)
NDI_RANK_SMALL(27)

#define NDI_RANK_LOCAL 64

// Rank filter over a footprint of npts <= NDI_RANK_LOCAL points: the rank-th smallest (NaN
// last), the values gathered and partially sorted in registers/local memory.
extern "C" __global__ void ndi_rank(const T* __restrict__ x, T* __restrict__ out, i64 n, int ndim,
                                    NdiDims dims, const i64* __restrict__ off, int npts, int rank,
                                    int mode, W cval) {
  i64 c[8];
  W v[NDI_RANK_LOCAL];
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
    ndi_unravel(i, ndim, dims, c);
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
    out[i] = cusci_cast(T, v[rank]);
  }
}

// Rank filter over a footprint of any number of points (those the register kernels and the
// shared-memory box kernel cannot take): one block of NDI_RB_THREADS threads per output, radix
// selection on the order-preserving keys by 8-bit digits from the top. Each pass counts, in a
// shared 256-bin histogram, the digit of every window key that matches the digits fixed so far;
// warp 0 finds the bin that holds the rank (a warp scan of 8-bin sums). sizeof(key) passes of
// npts / NDI_RB_THREADS fetches per thread: linear in the footprint, where a per-thread
// selection is quadratic (a 2^20-point window on 8 elements took 25 s that way).
#define NDI_RB_THREADS 256
extern "C" __global__ void __launch_bounds__(NDI_RB_THREADS)
    ndi_rank_block(const T* __restrict__ x, T* __restrict__ out, i64 n, int ndim, NdiDims dims,
                   const i64* __restrict__ off, i64 npts, i64 rank, int mode, W cval) {
  __shared__ unsigned long long hist[256];
  __shared__ NdiKey s_prefix;
  __shared__ i64 s_k;
  i64 c[8];
  const int t = threadIdx.x, lane = t & 31;
  for (i64 i = blockIdx.x; i < n; i += gridDim.x) {
    ndi_unravel(i, ndim, dims, c);
    NdiKey prefix = 0, mask = 0;
    i64 k = rank;
    for (int shift = 8 * (int)sizeof(NdiKey) - 8; shift >= 0; shift -= 8) {
      hist[t] = 0;  // NDI_RB_THREADS == 256 bins
      __syncthreads();
      for (i64 p = t; p < npts; p += NDI_RB_THREADS) {
        const NdiKey key = ndi_key(ndi_fetch(x, ndim, dims, c, off + p * ndim, mode, cval));
        if (((key ^ prefix) & mask) == 0) atomicAdd(&hist[(key >> shift) & 255], 1ull);
      }
      __syncthreads();
      if (t < 32) {
        unsigned long long own = 0;
        for (int b = 0; b < 8; ++b) own += hist[lane * 8 + b];
        unsigned long long incl = own;
        for (int d = 1; d < 32; d *= 2) {
          const unsigned long long u = __shfl_up_sync(0xffffffffu, incl, d);
          if (lane >= d) incl += u;
        }
        const unsigned long long excl = incl - own;
        // the one lane whose 8 bins hold the k-th key (k < the count of matching keys)
        if ((unsigned long long)k >= excl && (unsigned long long)k < incl) {
          unsigned long long cum = excl;
          int b = lane * 8;
          while (cum + hist[b] <= (unsigned long long)k) cum += hist[b++];
          s_k = k - (i64)cum;
          s_prefix = prefix | ((NdiKey)b << shift);
        }
      }
      __syncthreads();
      k = s_k;
      prefix = s_prefix;
      mask |= (NdiKey)255 << shift;
    }
    if (t == 0) out[i] = cusci_cast(T, ndi_unkey(prefix));
  }
}

// Rank filter over a full box footprint of the last two axes (sh x sw points, the top-left one
// at offset (oh, ow) from the output) of an array viewed as (planes, H, Wd), for footprints too
// large for the selection networks (cupy#6453: CuPy's 51 x 51 median is slower than a CPU).
// Radix selection on the order-preserving keys of ndi_key: a block of NDI_RR_TX x NDI_RR_TY
// threads owns as many outputs of one plane; their input box (boundary modes mapped per
// element, cval in the constant modes) is loaded into shared memory once; each thread then fixes
// the key of its rank bit by bit from the top, counting per bit the keys of its window that
// match the bits fixed so far (8 * sizeof(key) passes over sh * sw shared keys, bank-conflict
// free: a warp reads 32 consecutive keys): no sort and no per-thread storage. The result is
// the key order's rank-th key, as the selection kernels' (NaN last). Dynamic shared memory:
// (NDI_RR_TY + sh - 1) * (NDI_RR_TX + sw - 1) keys.
#define NDI_RR_TX 32
#define NDI_RR_TY 8
extern "C" __global__ void __launch_bounds__(NDI_RR_TX * NDI_RR_TY)
    ndi_rank_radix2(const T* __restrict__ x, T* __restrict__ out, i64 planes, i64 H, i64 Wd,
                    int sh, int sw, i64 oh, i64 ow, int rank, int mode, W cval) {
  extern __shared__ __align__(16) unsigned char ndi_rr_smem[];
  NdiKey* tile = reinterpret_cast<NdiKey*>(ndi_rr_smem);
  const int BW = NDI_RR_TX + sw - 1, BH = NDI_RR_TY + sh - 1;
  const i64 tx = (Wd + NDI_RR_TX - 1) / NDI_RR_TX, ty = (H + NDI_RR_TY - 1) / NDI_RR_TY;
  const i64 ntiles = planes * tx * ty;
  const int t = threadIdx.y * NDI_RR_TX + threadIdx.x;
  const NdiKey ck = ndi_key(cval);
  for (i64 b = blockIdx.x; b < ntiles; b += gridDim.x) {
    const i64 pl = b / (tx * ty), rem = b - pl * (tx * ty);
    const i64 r0 = (rem / tx) * NDI_RR_TY, c0 = (rem % tx) * NDI_RR_TX;
    const T* xp = x + pl * H * Wd;
    __syncthreads();
    for (int q = t; q < BH * BW; q += NDI_RR_TX * NDI_RR_TY) {
      const int br = q / BW, bc = q - br * BW;
      const i64 ir = ndi_map_index(r0 + oh + br, H, mode);
      const i64 ic = ndi_map_index(c0 + ow + bc, Wd, mode);
      tile[q] = (ir < 0 || ic < 0) ? ck : ndi_key((W)xp[ir * Wd + ic]);
    }
    __syncthreads();
    const i64 orow = r0 + threadIdx.y, ocol = c0 + threadIdx.x;
    if (orow < H && ocol < Wd) {
      const NdiKey* base = tile + threadIdx.y * BW + threadIdx.x;
      NdiKey prefix = 0, mask = 0;
      int k = rank;
      for (int bit = (int)(8 * sizeof(NdiKey)) - 1; bit >= 0; --bit) {
        const NdiKey bb = ((NdiKey)1) << bit, m = mask | bb;
        int c = 0;
        for (int i = 0; i < sh; ++i) {
          const NdiKey* row = base + i * BW;
          for (int j = 0; j < sw; ++j) c += ((row[j] ^ prefix) & m) == 0;
        }
        if (k >= c) {
          k -= c;
          prefix |= bb;
        }
        mask = m;
      }
      out[pl * H * Wd + orow * Wd + ocol] = cusci_cast(T, ndi_unkey(prefix));
    }
  }
}

// Two weighted-sum passes fused, over the last two axes of a C-contiguous array viewed as
// (outer, H, Wd): a pass along axis -2 ("vertical": nv taps wv, shift sv, divisor dv) and one
// along axis -1 (nh taps wh, shift sh, divisor dh), the vertical one first when vfirst. Same
// arithmetic as two ndi_filter1d passes of a float type (identical results): the intermediate
// stays in shared memory in W, and where the first pass's line lies outside the array in a
// constant mode the intermediate is cval, as the second pass would read it. A block of 32 x 8
// threads handles ty x tx outputs; dynamic shared memory:
//   (nv + nh + R * C + (vfirst ? ty * C : R * tx)) * sizeof(W),  R = ty + nv - 1, C = tx + nh - 1.
extern "C" __global__ void ndi_sep2d(const T* __restrict__ x, T* __restrict__ out, i64 outer,
                                     i64 H, i64 Wd, const W* __restrict__ wv, NdiTaps tv, int nv,
                                     int sv, W dv, const W* __restrict__ wh, NdiTaps th, int nh,
                                     int sh, W dh,
                                     int vfirst, int mode, W cval, int ty, int tx) {
  extern __shared__ __align__(16) unsigned char ndi_smem2[];
  W* swv = (W*)ndi_smem2;
  W* swh = swv + nv;
  W* sin = swh + nh;
  const int R = ty + nv - 1, C = tx + nh - 1;
  W* smid = sin + R * C;
  const bool cmode = mode == NDI_CONSTANT || mode == NDI_GRID_CONSTANT;
  const int lx = threadIdx.x, ly = threadIdx.y;  // 32 x 8
  const int tid = ly * 32 + lx;
  for (int k = tid; k < nv; k += 256) swv[k] = wv != nullptr ? wv[k] : tv.w[k];
  for (int k = tid; k < nh; k += 256) swh[k] = wh != nullptr ? wh[k] : th.w[k];
  const i64 nty = (H + ty - 1) / ty, ntx = (Wd + tx - 1) / tx;
  const i64 ntiles = outer * nty * ntx;
  for (i64 t = blockIdx.x; t < ntiles; t += gridDim.x) {
    const i64 bx = t % ntx, r = t / ntx;
    const i64 by = r % nty, o = r / nty;
    const i64 r0 = by * ty, c0 = bx * tx, base = o * H * Wd;
    __syncthreads();
    for (int rr = ly; rr < R; rr += 8) {
      const i64 i = ndi_map_index(r0 + rr - sv, H, mode);
      for (int cc = lx; cc < C; cc += 32) {
        const i64 j = ndi_map_index(c0 + cc - sh, Wd, mode);
        sin[rr * C + cc] = (i < 0 || j < 0) ? cval : (W)x[base + i * Wd + j];
      }
    }
    __syncthreads();
    if (vfirst) {
      for (int rr = ly; rr < ty; rr += 8)
        for (int cc = lx; cc < C; cc += 32) {
          const i64 gc = c0 + cc - sh;
          W acc = (W)0;
          if (cmode && (gc < 0 || gc >= Wd)) {
            acc = cval;
          } else {
            for (int k = 0; k < nv; ++k) acc += swv[k] * sin[(rr + k) * C + cc];
            acc = acc / dv;
          }
          smid[rr * C + cc] = acc;
        }
      __syncthreads();
      for (int rr = ly; rr < ty; rr += 8)
        for (int cc = lx; cc < tx; cc += 32) {
          const i64 gr = r0 + rr, gc = c0 + cc;
          if (gr >= H || gc >= Wd) continue;
          W acc = (W)0;
          for (int k = 0; k < nh; ++k) acc += swh[k] * smid[rr * C + cc + k];
          acc = acc / dh;
          out[base + gr * Wd + gc] = cusci_cast(T, acc);
        }
    } else {
      for (int rr = ly; rr < R; rr += 8) {
        const i64 gr = r0 + rr - sv;
        const bool outside = cmode && (gr < 0 || gr >= H);
        for (int cc = lx; cc < tx; cc += 32) {
          W acc = (W)0;
          if (outside) {
            acc = cval;
          } else {
            for (int k = 0; k < nh; ++k) acc += swh[k] * sin[rr * C + cc + k];
            acc = acc / dh;
          }
          smid[rr * tx + cc] = acc;
        }
      }
      __syncthreads();
      for (int rr = ly; rr < ty; rr += 8)
        for (int cc = lx; cc < tx; cc += 32) {
          const i64 gr = r0 + rr, gc = c0 + cc;
          if (gr >= H || gc >= Wd) continue;
          W acc = (W)0;
          for (int k = 0; k < nv; ++k) acc += swv[k] * smid[(rr + k) * tx + cc];
          acc = acc / dv;
          out[base + gr * Wd + gc] = cusci_cast(T, acc);
        }
    }
  }
}

// n-D correlation (op 0 of ndi_filternd) of a 2-D or 3-D C-contiguous array (D0, D1, D2; D0 = 1
// for 2-D), tiled: a block of 32 x 8 threads loads TZ x 8 x 32 outputs' input box (the footprint's
// bounding box lo .. lo + ext around them, boundary-mapped per axis as ndi_fetch maps) into shared
// memory with coalesced loads, then each thread computes TZ outputs along axis 0, taking point p
// at shared offset so[p] with weight w[p] (kernel parameters, read once per point for the TZ
// outputs). The same sum in the same order as ndi_filternd. Dynamic shared memory:
//   (TZ + ext0) * (8 + ext1) * (32 + ext2) * sizeof(W).
struct NdiTilePts { int so[256]; W w[256]; };

template <int TZ>
__device__ __forceinline__ void ndi_corr_tiled(const T* __restrict__ x, T* __restrict__ out,
                                               i64 D0, i64 D1, i64 D2, int lo0, int lo1, int lo2,
                                               int ext0, int ext1, int ext2,
                                               const NdiTilePts& pts, int npts, int mode,
                                               W cval) {
  extern __shared__ __align__(16) unsigned char ndi_smem3[];
  W* s = (W*)ndi_smem3;
  const int SX = 32 + ext2, SY = 8 + ext1, SZ = TZ + ext0;
  const int lx = threadIdx.x, ly = threadIdx.y;
  const i64 nbx = (D2 + 31) / 32, nby = (D1 + 7) / 8, nbz = (D0 + TZ - 1) / TZ;
  const i64 ntiles = nbx * nby * nbz;
  for (i64 t = blockIdx.x; t < ntiles; t += gridDim.x) {
    const i64 bx = t % nbx, r = t / nbx;
    const i64 by = r % nby, bz = r / nby;
    const i64 x0 = bx * 32, y0 = by * 8, z0 = bz * TZ;
    __syncthreads();
    for (int zz = 0; zz < SZ; ++zz) {
      const i64 gz = ndi_map_index(z0 + lo0 + zz, D0, mode);
      for (int yy = ly; yy < SY; yy += 8) {
        const i64 gy = ndi_map_index(y0 + lo1 + yy, D1, mode);
        for (int xx = lx; xx < SX; xx += 32) {
          const i64 gx = ndi_map_index(x0 + lo2 + xx, D2, mode);
          s[(zz * SY + yy) * SX + xx] =
              (gz < 0 || gy < 0 || gx < 0) ? cval : (W)x[(gz * D1 + gy) * D2 + gx];
        }
      }
    }
    __syncthreads();
    const i64 gy = y0 + ly, gx = x0 + lx;
    if (gy >= D1 || gx >= D2) continue;
    W acc[TZ];
#pragma unroll
    for (int zi = 0; zi < TZ; ++zi) acc[zi] = (W)0;
    const W* sb = s + ly * SX + lx;
    for (int p = 0; p < npts; ++p) {
      const W wp = pts.w[p];
      const W* sp = sb + pts.so[p];
#pragma unroll
      for (int zi = 0; zi < TZ; ++zi) acc[zi] += wp * sp[zi * SY * SX];
    }
#pragma unroll
    for (int zi = 0; zi < TZ; ++zi)
      if (z0 + zi < D0) out[((z0 + zi) * D1 + gy) * D2 + gx] = cusci_cast(T, acc[zi]);
  }
}

extern "C" __global__ void ndi_corr_tiled3(const T* __restrict__ x, T* __restrict__ out, i64 D0,
                                           i64 D1, i64 D2, int lo0, int lo1, int lo2, int ext0,
                                           int ext1, int ext2, NdiTilePts pts, int npts,
                                           int mode, W cval) {
  ndi_corr_tiled<4>(x, out, D0, D1, D2, lo0, lo1, lo2, ext0, ext1, ext2, pts, npts, mode, cval);
}

extern "C" __global__ void ndi_corr_tiled2(const T* __restrict__ x, T* __restrict__ out, i64 D0,
                                           i64 D1, i64 D2, int lo0, int lo1, int lo2, int ext0,
                                           int ext1, int ext2, NdiTilePts pts, int npts,
                                           int mode, W cval) {
  ndi_corr_tiled<1>(x, out, D0, D1, D2, lo0, lo1, lo2, ext0, ext1, ext2, pts, npts, mode, cval);
}
