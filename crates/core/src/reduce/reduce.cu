// cusci reductions and scans (sum, mean, var, std, norm, min, max, argmin, argmax, cumsum).
//
// reduce/cuda.rs builds each kernel module from this file: the library part (everything above the
// REDUCE marker line), then one copy of the REDUCE section per operation of the module, or one copy
// of the SCAN section, with these tokens replaced:
//   {{NAME}}  kernel-name prefix (cusci_reduce_sum_f32, cusci_cumsum_f32)
//   {{OP}}    operation struct template (RdSum, RdMean, RdMeanW, RdNorm, RdVar, RdStd, RdMin, ...)
//   {{T}}     input element type        {{ACC}} accumulator type
//   {{OUT}}   output element type       {{W}}   wide (summation) type of {{T}}
//   {{V}}     elements of {{T}} per 16-byte vector load
// Shapes, strides and counts are kernel arguments: a new shape never compiles anything. Every index
// is 64-bit. No atomics: the grid and the combination tree depend only on the sizes and the device,
// so a given input gives the same bits on every run.

#define RD_THREADS 256
#define RD_WARPS (RD_THREADS / 32)
#define RD_SCAN_E 8
#define RD_SCAN_CHUNK (RD_THREADS * RD_SCAN_E)

// Kept (outer) dimensions of a reduction or scan: row r starts at element offset rd_off(o, r).
struct RdOuter {
  int ndim;
  int pad;
  i64 dims[CUSCI_MAXD];
  i64 strides[CUSCI_MAXD];
};

__device__ __forceinline__ i64 rd_off(const RdOuter& o, i64 r) {
  i64 off = 0;
  for (int d = o.ndim - 1; d >= 0; --d) {
    const i64 n = o.dims[d];
    const i64 q = r / n;
    off += (r - q * n) * o.strides[d];
    r = q;
  }
  return off;
}

// ---------------------------------------------------------------------------------------------
// Warp shuffles of any plain type made of whole 32-bit words (double, cplx64, RdPair<T>, ...)
// ---------------------------------------------------------------------------------------------

template <class V> __device__ __forceinline__ V rd_shfl_xor(V v, int m) {
  static_assert(sizeof(V) % 4 == 0, "shuffled values must be whole 32-bit words");
  union {
    V v;
    int w[sizeof(V) / 4];
  } u;
  u.v = v;
#pragma unroll
  for (int k = 0; k < (int)(sizeof(V) / 4); ++k) u.w[k] = __shfl_xor_sync(0xffffffffu, u.w[k], m);
  return u.v;
}

template <class V> __device__ __forceinline__ V rd_shfl_up(V v, int d) {
  static_assert(sizeof(V) % 4 == 0, "shuffled values must be whole 32-bit words");
  union {
    V v;
    int w[sizeof(V) / 4];
  } u;
  u.v = v;
#pragma unroll
  for (int k = 0; k < (int)(sizeof(V) / 4); ++k) u.w[k] = __shfl_up_sync(0xffffffffu, u.w[k], d);
  return u.v;
}

template <class V> __device__ __forceinline__ V rd_shfl_idx(V v, int src) {
  static_assert(sizeof(V) % 4 == 0, "shuffled values must be whole 32-bit words");
  union {
    V v;
    int w[sizeof(V) / 4];
  } u;
  u.v = v;
#pragma unroll
  for (int k = 0; k < (int)(sizeof(V) / 4); ++k) u.w[k] = __shfl_sync(0xffffffffu, u.w[k], src);
  return u.v;
}

// ---------------------------------------------------------------------------------------------
// Operations. Each has: Acc (accumulator), Ctx (per-row context read from `aux`), ident(),
// map(x, j, ctx) (element j of a row to an accumulator), comb(a, b) (associative), and
// fin(acc, n, ddof) (accumulator of a row of n elements to the output).
// ---------------------------------------------------------------------------------------------

struct RdNoCtx {};

// sum: W accumulation (f32 -> f64, c32 -> c64, integers wrap in unsigned), rounded to OUT at the end
template <class T, class A, class O, class W> struct RdSum {
  typedef A Acc;
  typedef RdNoCtx Ctx;
  static __device__ __forceinline__ Ctx ctx(const void*, i64) { return Ctx(); }
  static __device__ __forceinline__ A ident() { return A(); }
  static __device__ __forceinline__ A map(T x, i64, Ctx) { return cusci_cast(A, x); }
  static __device__ __forceinline__ A comb(A a, A b) { return a + b; }
  static __device__ __forceinline__ O fin(A a, i64, i64) { return cusci_cast(O, a); }
};

// mean: the sum divided by n in the accumulation type (0/0 = NaN for an empty row), then rounded
template <class T, class A, class O, class W> struct RdMean : RdSum<T, A, O, W> {
  static __device__ __forceinline__ O fin(A a, i64 n, i64) { return cusci_cast(O, a / (double)n); }
};

// the mean kept in the accumulation type (OUT = W): the first pass of var/std
template <class T, class A, class O, class W> struct RdMeanW : RdMean<T, A, O, W> {};

// norm: sqrt(sum |x|^2), |x|^2 of the element widened to W, summed in double
template <class T, class A, class O, class W> struct RdNorm : RdSum<T, A, O, W> {
  static __device__ __forceinline__ A map(T x, i64, RdNoCtx) { return cusci_abs2(cusci_cast(W, x)); }
  static __device__ __forceinline__ O fin(A a, i64, i64) { return (O)sqrt(a); }
};

// var: sum |x - mean|^2 / max(n - ddof, 0), the row's mean (type W) read from aux[row]
template <class T, class A, class O, class W> struct RdVar {
  typedef A Acc;
  typedef W Ctx;
  static __device__ __forceinline__ Ctx ctx(const void* aux, i64 r) {
    return static_cast<const W*>(aux)[r];
  }
  static __device__ __forceinline__ A ident() { return A(); }
  static __device__ __forceinline__ A map(T x, i64, Ctx m) { return cusci_abs2(cusci_cast(W, x) - m); }
  static __device__ __forceinline__ A comb(A a, A b) { return a + b; }
  static __device__ __forceinline__ double var(A a, i64 n, i64 ddof) {
    const i64 d = n - ddof;
    return a / (double)(d > 0 ? d : 0);
  }
  static __device__ __forceinline__ O fin(A a, i64 n, i64 ddof) { return (O)var(a, n, ddof); }
};

template <class T, class A, class O, class W> struct RdStd : RdVar<T, A, O, W> {
  static __device__ __forceinline__ O fin(A a, i64 n, i64 ddof) {
    return (O)sqrt(RdVar<T, A, O, W>::var(a, n, ddof));
  }
};

// identities of min and max
template <class A> struct RdLim;
template <> struct RdLim<float> {
  static __device__ __forceinline__ float lo() { return __int_as_float((int)0xff800000u); }
  static __device__ __forceinline__ float hi() { return __int_as_float(0x7f800000); }
};
template <> struct RdLim<double> {
  static __device__ __forceinline__ double lo() { return __longlong_as_double((i64)0xfff0000000000000ull); }
  static __device__ __forceinline__ double hi() { return __longlong_as_double(0x7ff0000000000000ll); }
};
template <> struct RdLim<int> {
  static __device__ __forceinline__ int lo() { return -2147483647 - 1; }
  static __device__ __forceinline__ int hi() { return 2147483647; }
};
template <> struct RdLim<i64> {
  static __device__ __forceinline__ i64 lo() { return -9223372036854775807ll - 1; }
  static __device__ __forceinline__ i64 hi() { return 9223372036854775807ll; }
};

// min / max: NaN propagates (cusci_min/cusci_max); u8 and bool accumulate as int
template <class T, class A, class O, class W> struct RdMax {
  typedef A Acc;
  typedef RdNoCtx Ctx;
  static __device__ __forceinline__ Ctx ctx(const void*, i64) { return Ctx(); }
  static __device__ __forceinline__ A ident() { return RdLim<A>::lo(); }
  static __device__ __forceinline__ A map(T x, i64, Ctx) { return (A)x; }
  static __device__ __forceinline__ A comb(A a, A b) { return cusci_max(a, b); }
  static __device__ __forceinline__ O fin(A a, i64, i64) { return (O)a; }
};

template <class T, class A, class O, class W> struct RdMin {
  typedef A Acc;
  typedef RdNoCtx Ctx;
  static __device__ __forceinline__ Ctx ctx(const void*, i64) { return Ctx(); }
  static __device__ __forceinline__ A ident() { return RdLim<A>::hi(); }
  static __device__ __forceinline__ A map(T x, i64, Ctx) { return (A)x; }
  static __device__ __forceinline__ A comb(A a, A b) { return cusci_min(a, b); }
  static __device__ __forceinline__ O fin(A a, i64, i64) { return (O)a; }
};

// argmin / argmax: (value, index) pairs; index -1 is the identity. The first NaN wins; among equal
// values the smallest index wins. The choice is a total order, so any combination tree gives the
// same pair.
template <class T> struct RdPair {
  T v;
  i64 i;
};

template <bool MAX, class T>
__device__ __forceinline__ RdPair<T> rd_pick(RdPair<T> a, RdPair<T> b) {
  if (a.i < 0) return b;
  if (b.i < 0) return a;
  const bool an = cusci_isnan(a.v), bn = cusci_isnan(b.v);
  if (an != bn) return an ? a : b;
  if (!an) {
    if (MAX ? (a.v > b.v) : (a.v < b.v)) return a;
    if (MAX ? (b.v > a.v) : (b.v < a.v)) return b;
  }
  return a.i <= b.i ? a : b;
}

template <bool MAX, class T, class A, class O> struct RdArgBase {
  typedef A Acc;
  typedef RdNoCtx Ctx;
  static __device__ __forceinline__ Ctx ctx(const void*, i64) { return Ctx(); }
  static __device__ __forceinline__ A ident() {
    A a;
    a.v = T();
    a.i = -1;
    return a;
  }
  static __device__ __forceinline__ A map(T x, i64 j, Ctx) {
    A a;
    a.v = x;
    a.i = j;
    return a;
  }
  static __device__ __forceinline__ A comb(A a, A b) { return rd_pick<MAX, T>(a, b); }
  static __device__ __forceinline__ O fin(A a, i64, i64) { return (O)a.i; }
};
template <class T, class A, class O, class W> struct RdArgmax : RdArgBase<true, T, A, O> {};
template <class T, class A, class O, class W> struct RdArgmin : RdArgBase<false, T, A, O> {};

// ---------------------------------------------------------------------------------------------
// Reduction building blocks
// ---------------------------------------------------------------------------------------------

// Butterfly over the warp: every lane ends with a combination of all 32 (lane 0's is used).
template <class Op> __device__ __forceinline__ typename Op::Acc rd_warp_reduce(typename Op::Acc v) {
#pragma unroll
  for (int m = 16; m >= 1; m >>= 1) v = Op::comb(v, rd_shfl_xor(v, m));
  return v;
}

// Block-wide reduction (blockDim.x a multiple of 32, at most 1024); the result is valid in thread 0.
// Every thread of the block must call it; it ends with a barrier so that it can be called again.
template <class Op> __device__ __forceinline__ typename Op::Acc rd_block_reduce(typename Op::Acc v) {
  typedef typename Op::Acc A;
  __shared__ A sh[32];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
  v = rd_warp_reduce<Op>(v);
  if (lane == 0) sh[w] = v;
  __syncthreads();
  if (w == 0) {
    v = lane < nw ? sh[lane] : Op::ident();
    v = rd_warp_reduce<Op>(v);
  }
  __syncthreads();
  return v;
}

// Thread t of nt accumulates its share of elements [lo, hi) of the row at p (element j at p[j * rs]).
// Contiguous rows (rs == 1): a scalar head up to 16-byte alignment, 16-byte vector loads with four
// independent accumulators, a scalar tail. The assignment of elements to threads and accumulators
// depends only on (lo, hi, nt) and the row's address modulo 16.
template <class Op, class T, int V>
__device__ __forceinline__ typename Op::Acc rd_accum(const T* __restrict__ p, i64 lo, i64 hi, i64 rs,
                                                     int t, int nt, typename Op::Ctx c) {
  typedef typename Op::Acc A;
  A a0 = Op::ident(), a1 = Op::ident(), a2 = Op::ident(), a3 = Op::ident();
  if (lo >= hi) return a0;
  if (rs != 1) {
    i64 j = lo + t;
    for (; j + 3 * (i64)nt < hi; j += 4 * (i64)nt) {
      const T x0 = p[j * rs], x1 = p[(j + nt) * rs], x2 = p[(j + 2 * nt) * rs], x3 = p[(j + 3 * nt) * rs];
      a0 = Op::comb(a0, Op::map(x0, j, c));
      a1 = Op::comb(a1, Op::map(x1, j + nt, c));
      a2 = Op::comb(a2, Op::map(x2, j + 2 * nt, c));
      a3 = Op::comb(a3, Op::map(x3, j + 3 * nt, c));
    }
    for (; j < hi; j += nt) a0 = Op::comb(a0, Op::map(p[j * rs], j, c));
    return Op::comb(Op::comb(a0, a1), Op::comb(a2, a3));
  }
  // head: the elements before the first 16-byte boundary (fewer than V)
  const unsigned long long addr = (unsigned long long)(p + lo);
  i64 h = (i64)((((unsigned)16 - (unsigned)(addr & 15ull)) & 15u) / (unsigned)sizeof(T));
  if (h > hi - lo) h = hi - lo;
  for (i64 j = t; j < h; j += nt) a0 = Op::comb(a0, Op::map(p[lo + j], lo + j, c));
  const i64 b = lo + h;
  const i64 nv = (hi - b) / V;
  typedef CusciVec<T, V> Vec;
  const Vec* __restrict__ pv = reinterpret_cast<const Vec*>(p + b);
  i64 k = t;
  for (; k + 3 * (i64)nt < nv; k += 4 * (i64)nt) {
    const Vec v0 = pv[k], v1 = pv[k + nt], v2 = pv[k + 2 * nt], v3 = pv[k + 3 * nt];
#pragma unroll
    for (int e = 0; e < V; ++e) {
      a0 = Op::comb(a0, Op::map(v0.v[e], b + k * V + e, c));
      a1 = Op::comb(a1, Op::map(v1.v[e], b + (k + nt) * V + e, c));
      a2 = Op::comb(a2, Op::map(v2.v[e], b + (k + 2 * nt) * V + e, c));
      a3 = Op::comb(a3, Op::map(v3.v[e], b + (k + 3 * nt) * V + e, c));
    }
  }
  for (; k < nv; k += nt) {
    const Vec v0 = pv[k];
#pragma unroll
    for (int e = 0; e < V; ++e) a0 = Op::comb(a0, Op::map(v0.v[e], b + k * V + e, c));
  }
  // tail: fewer than V elements after the last whole vector
  const i64 tl = b + nv * V;
  for (i64 j = t; j < hi - tl; j += nt) a1 = Op::comb(a1, Op::map(p[tl + j], tl + j, c));
  return Op::comb(Op::comb(a0, a1), Op::comb(a2, a3));
}

// Short rows, many of them: groups of G lanes per row (G a power of two, 1 to 32), 32 / G rows per
// warp at a time.
template <class Op, class T, class O, int V>
__device__ __forceinline__ void rd_warp_k(const T* __restrict__ x, O* __restrict__ y, const RdOuter& outer,
                                          i64 nrows, i64 R, i64 rs, const void* aux, i64 ddof, int G) {
  const int lane = threadIdx.x & 31;
  const int t = lane & (G - 1);
  const i64 per = 32 / G;
  const i64 w0 = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const i64 nw = ((i64)gridDim.x * blockDim.x) >> 5;
  for (i64 base = w0 * per; base < nrows; base += nw * per) {  // the same in every lane of the warp
    const i64 r = base + lane / G;
    typename Op::Acc a = Op::ident();
    if (r < nrows) a = rd_accum<Op, T, V>(x + rd_off(outer, r), 0, R, rs, t, G, Op::ctx(aux, r));
    for (int m = G >> 1; m >= 1; m >>= 1) a = Op::comb(a, rd_shfl_xor(a, m));  // within the group
    if (r < nrows && t == 0) y[r] = Op::fin(a, R, ddof);
  }
}

// One block per row (long rows, enough of them to fill the device).
template <class Op, class T, class O, int V>
__device__ __forceinline__ void rd_block_k(const T* __restrict__ x, O* __restrict__ y, const RdOuter& outer,
                                           i64 nrows, i64 R, i64 rs, const void* aux, i64 ddof) {
  for (i64 r = blockIdx.x; r < nrows; r += gridDim.x) {  // uniform in the block
    const T* p = x + rd_off(outer, r);
    typename Op::Acc a = rd_accum<Op, T, V>(p, 0, R, rs, threadIdx.x, blockDim.x, Op::ctx(aux, r));
    a = rd_block_reduce<Op>(a);
    if (threadIdx.x == 0) y[r] = Op::fin(a, R, ddof);
  }
}

// Two-pass, pass 1: block (s, r) reduces slice s = [s*L, min((s+1)*L, R)) of row r into part[r*S + s].
template <class Op, class T, int V>
__device__ __forceinline__ void rd_part_k(const T* __restrict__ x, typename Op::Acc* __restrict__ part,
                                          const RdOuter& outer, i64 nrows, i64 R, i64 rs, i64 L, i64 S,
                                          const void* aux) {
  const i64 r = blockIdx.y, s = blockIdx.x;
  if (r >= nrows || s >= S) return;  // uniform in the block
  const i64 lo = s * L;
  const i64 hi = lo + L < R ? lo + L : R;
  const T* p = x + rd_off(outer, r);
  typename Op::Acc a = rd_accum<Op, T, V>(p, lo, hi, rs, threadIdx.x, blockDim.x, Op::ctx(aux, r));
  a = rd_block_reduce<Op>(a);
  if (threadIdx.x == 0) part[r * S + s] = a;
}

// Two-pass, pass 2: one block per row combines its S partials in a fixed order.
template <class Op, class O>
__device__ __forceinline__ void rd_fin_k(const typename Op::Acc* __restrict__ part, O* __restrict__ y,
                                         i64 nrows, i64 S, i64 R, i64 ddof) {
  for (i64 r = blockIdx.x; r < nrows; r += gridDim.x) {
    typename Op::Acc a = Op::ident();
    for (i64 s = threadIdx.x; s < S; s += blockDim.x) a = Op::comb(a, part[r * S + s]);
    a = rd_block_reduce<Op>(a);
    if (threadIdx.x == 0) y[r] = Op::fin(a, R, ddof);
  }
}

// Columns: one thread per output (outputs adjacent in memory, the reduced axis strided). A block
// holds blockDim.x / span slices of span outputs (span in {32, 64, 128, 256}); slice s covers
// [s*L, min((s+1)*L, R)) of the reduced axis. With S == 1 it writes the outputs (dst is O*), else the
// partials dst[s * ps + o * po] (dst is Acc*; [S, nout] for rd_colfin_k or [nout, S] for rd_fin_k).
template <class Op, class T, class O>
__device__ __forceinline__ void rd_col_k(const T* __restrict__ x, void* __restrict__ dst, const RdOuter& outer,
                                         i64 nout, i64 R, i64 rs, i64 L, i64 S, const void* aux, i64 ddof,
                                         int span, i64 ps, i64 po) {
  typedef typename Op::Acc A;
  const int k = blockDim.x / span;
  const int sub = threadIdx.x / span;
  if (sub >= k) return;  // no barriers below
  const i64 s = (i64)blockIdx.y * k + sub;
  if (s >= S) return;
  const i64 lo = s * L;
  const i64 hi = lo + L < R ? lo + L : R;
  for (i64 o = (i64)blockIdx.x * span + threadIdx.x % span; o < nout; o += (i64)gridDim.x * span) {
    const T* p = x + rd_off(outer, o);
    const typename Op::Ctx c = Op::ctx(aux, o);
    A a0 = Op::ident(), a1 = Op::ident(), a2 = Op::ident(), a3 = Op::ident();
    i64 j = lo;
    for (; j + 3 < hi; j += 4) {
      const T x0 = p[j * rs], x1 = p[(j + 1) * rs], x2 = p[(j + 2) * rs], x3 = p[(j + 3) * rs];
      a0 = Op::comb(a0, Op::map(x0, j, c));
      a1 = Op::comb(a1, Op::map(x1, j + 1, c));
      a2 = Op::comb(a2, Op::map(x2, j + 2, c));
      a3 = Op::comb(a3, Op::map(x3, j + 3, c));
    }
    for (; j < hi; ++j) a0 = Op::comb(a0, Op::map(p[j * rs], j, c));
    const A a = Op::comb(Op::comb(a0, a1), Op::comb(a2, a3));
    if (S == 1) {
      static_cast<O*>(dst)[o] = Op::fin(a, R, ddof);
    } else {
      static_cast<A*>(dst)[s * ps + o * po] = a;
    }
  }
}

// Columns, pass 2: output o combines its S partials in order.
template <class Op, class O>
__device__ __forceinline__ void rd_colfin_k(const typename Op::Acc* __restrict__ part, O* __restrict__ y,
                                            i64 nout, i64 S, i64 R, i64 ddof) {
  for (i64 o = (i64)blockIdx.x * blockDim.x + threadIdx.x; o < nout; o += (i64)gridDim.x * blockDim.x) {
    typename Op::Acc a = part[o];
    for (i64 s = 1; s < S; ++s) a = Op::comb(a, part[s * nout + o]);
    y[o] = Op::fin(a, R, ddof);
  }
}

// ---------------------------------------------------------------------------------------------
// Scans (cumsum): prefix sums in W along lanes; element j of lane r is read at x[rd_off(oin, r) + j*rs]
// and written at y[rd_off(oout, r) + j*os].
// ---------------------------------------------------------------------------------------------

// Inclusive scan over the warp (lane order).
template <class W> __device__ __forceinline__ W rd_warp_scan(W v) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const W u = rd_shfl_up(v, d);
    if (lane >= d) v = u + v;
  }
  return v;
}

// Short lanes: one warp per lane, tiles of 32 elements with a carried prefix.
template <class T, class O, class W>
__device__ __forceinline__ void rd_scan_warp_k(const T* __restrict__ x, O* __restrict__ y, const RdOuter& oin,
                                               const RdOuter& oout, i64 nl, i64 L, i64 rs, i64 os) {
  const int lane = threadIdx.x & 31;
  const i64 w0 = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const i64 nw = ((i64)gridDim.x * blockDim.x) >> 5;
  for (i64 r = w0; r < nl; r += nw) {  // uniform in the warp
    const T* p = x + rd_off(oin, r);
    O* q = y + rd_off(oout, r);
    W carry = W();
    for (i64 j0 = 0; j0 < L; j0 += 32) {
      const i64 j = j0 + lane;
      W v = j < L ? cusci_cast(W, p[j * rs]) : W();
      v = carry + rd_warp_scan(v);
      if (j < L) q[j * os] = cusci_cast(O, v);
      carry = rd_shfl_idx(v, 31);
    }
  }
}

// Block scan of elements [c0, c0 + n) (1 <= n <= RD_SCAN_CHUNK) of one lane, starting from `carry`.
// EXCL: element j gets the sum of the elements before it (else up to and including it). WRITE: the
// results are stored at q[(c0 + k) * os] (else only the sum is computed). Returns, in every thread,
// carry plus the chunk's sum (the value the next chunk starts from). p and q may be the same array
// (each chunk is read whole before it is written). Every thread of the block must call it (blockDim.x ==
// RD_THREADS); it ends with a barrier so that it can be called again.
template <class T, class O, class W, bool EXCL, bool WRITE>
__device__ __forceinline__ W rd_scan_chunk(const T* p, i64 rs, O* q, i64 os, i64 c0, int n, W carry) {
  // element k lives at buf[RD_PAD(k)]: one pad slot per RD_SCAN_E elements keeps the per-thread
  // accesses (thread t reads elements t*E .. t*E+E-1) free of shared-memory bank conflicts
#define RD_PAD(k) ((k) + ((k) >> 3))
  __shared__ W buf[RD_PAD(RD_SCAN_CHUNK)];
  __shared__ W wsum[RD_WARPS];
  __shared__ W next;
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  for (int k = t; k < n; k += RD_THREADS) buf[RD_PAD(k)] = cusci_cast(W, p[(c0 + k) * rs]);
  __syncthreads();
  // this thread's RD_SCAN_E consecutive elements, summed serially
  const int b = t * RD_SCAN_E;
  W s = W();
#pragma unroll
  for (int e = 0; e < RD_SCAN_E; ++e)
    if (b + e < n) s = s + buf[RD_PAD(b + e)];
  // exclusive prefix of the thread sums over the block
  const W incl = rd_warp_scan(s);
  W ex = rd_shfl_up(incl, 1);
  if (lane == 0) ex = W();
  if (lane == 31) wsum[w] = incl;
  __syncthreads();
  if (w == 0) {
    const W v = lane < RD_WARPS ? wsum[lane] : W();
    const W vi = rd_warp_scan(v);
    __syncwarp();
    if (lane < RD_WARPS) wsum[lane] = vi;  // inclusive prefix of the warp sums
  }
  __syncthreads();
  if (!WRITE) {  // only the chunk's sum is wanted
    const W tot = carry + wsum[RD_WARPS - 1];
    __syncthreads();
    return tot;
  }
  W run = carry + ((w > 0 ? wsum[w - 1] : W()) + ex);
#pragma unroll
  for (int e = 0; e < RD_SCAN_E; ++e) {
    if (b + e < n) {
      const W v = buf[RD_PAD(b + e)];
      if (EXCL) {
        buf[RD_PAD(b + e)] = run;
        run = run + v;
      } else {
        run = run + v;
        buf[RD_PAD(b + e)] = run;
      }
    }
  }
  if (b < n && b + RD_SCAN_E >= n) next = run;  // the thread that holds element n - 1
  __syncthreads();
  for (int k = t; k < n; k += RD_THREADS) q[(c0 + k) * os] = cusci_cast(O, buf[RD_PAD(k)]);
  const W nx = next;
  __syncthreads();
  return nx;
#undef RD_PAD
}

// Medium lanes or many lanes: one block per lane, chunk after chunk.
template <class T, class O, class W>
__device__ __forceinline__ void rd_scan_lane_k(const T* __restrict__ x, O* __restrict__ y, const RdOuter& oin,
                                               const RdOuter& oout, i64 nl, i64 L, i64 rs, i64 os) {
  for (i64 r = blockIdx.x; r < nl; r += gridDim.x) {  // uniform in the block
    const T* p = x + rd_off(oin, r);
    O* q = y + rd_off(oout, r);
    W carry = W();
    for (i64 c0 = 0; c0 < L; c0 += RD_SCAN_CHUNK) {
      const int n = (int)(L - c0 < RD_SCAN_CHUNK ? L - c0 : RD_SCAN_CHUNK);
      carry = rd_scan_chunk<T, O, W, false, true>(p, rs, q, os, c0, n, carry);
    }
  }
}

// Long lanes, pass 1: block (c, r) sums chunk c of lane r into sums[r * nch + c].
template <class T, class W>
__device__ __forceinline__ void rd_scan_sums_k(const T* __restrict__ x, W* __restrict__ sums, const RdOuter& oin,
                                               i64 nl, i64 L, i64 rs, i64 nch) {
  const i64 r = blockIdx.y, c = blockIdx.x;
  if (r >= nl || c >= nch) return;  // uniform in the block
  const i64 c0 = c * RD_SCAN_CHUNK;
  const int n = (int)(L - c0 < RD_SCAN_CHUNK ? L - c0 : RD_SCAN_CHUNK);
  const W tot = rd_scan_chunk<T, W, W, false, false>(x + rd_off(oin, r), rs, (W*)0, 0, c0, n, W());
  if (threadIdx.x == 0) sums[r * nch + c] = tot;
}

// Long lanes, pass 2: in place, the chunk sums of each lane become their exclusive prefix sums.
template <class W>
__device__ __forceinline__ void rd_scan_excl_k(W* __restrict__ sums, i64 nl, i64 nch) {
  for (i64 r = blockIdx.x; r < nl; r += gridDim.x) {
    W* s = sums + r * nch;
    W carry = W();
    for (i64 c0 = 0; c0 < nch; c0 += RD_SCAN_CHUNK) {
      const int n = (int)(nch - c0 < RD_SCAN_CHUNK ? nch - c0 : RD_SCAN_CHUNK);
      carry = rd_scan_chunk<W, W, W, true, true>(s, 1, s, 1, c0, n, carry);
    }
  }
}

// Long lanes, pass 3: block (c, r) scans chunk c of lane r starting from its chunk prefix.
template <class T, class O, class W>
__device__ __forceinline__ void rd_scan_fix_k(const T* __restrict__ x, O* __restrict__ y, const RdOuter& oin,
                                              const RdOuter& oout, i64 nl, i64 L, i64 rs, i64 os,
                                              const W* __restrict__ pre, i64 nch) {
  const i64 r = blockIdx.y, c = blockIdx.x;
  if (r >= nl || c >= nch) return;  // uniform in the block
  const i64 c0 = c * RD_SCAN_CHUNK;
  const int n = (int)(L - c0 < RD_SCAN_CHUNK ? L - c0 : RD_SCAN_CHUNK);
  rd_scan_chunk<T, O, W, false, true>(x + rd_off(oin, r), rs, y + rd_off(oout, r), os, c0, n,
                                      pre[r * nch + c]);
}

//@@REDUCE
typedef {{OP}}<{{T}}, {{ACC}}, {{OUT}}, {{W}}> {{NAME}}_op;
extern "C" __global__ void __launch_bounds__(RD_THREADS)
{{NAME}}_warp(const {{T}}* __restrict__ x, {{OUT}}* __restrict__ y, const RdOuter outer, i64 nrows, i64 R,
              i64 rs, const void* aux, i64 ddof, int G) {
  rd_warp_k<{{NAME}}_op, {{T}}, {{OUT}}, {{V}}>(x, y, outer, nrows, R, rs, aux, ddof, G);
}
extern "C" __global__ void __launch_bounds__(RD_THREADS)
{{NAME}}_block(const {{T}}* __restrict__ x, {{OUT}}* __restrict__ y, const RdOuter outer, i64 nrows, i64 R,
               i64 rs, const void* aux, i64 ddof) {
  rd_block_k<{{NAME}}_op, {{T}}, {{OUT}}, {{V}}>(x, y, outer, nrows, R, rs, aux, ddof);
}
extern "C" __global__ void __launch_bounds__(RD_THREADS)
{{NAME}}_part(const {{T}}* __restrict__ x, {{ACC}}* __restrict__ part, const RdOuter outer, i64 nrows,
              i64 R, i64 rs, i64 L, i64 S, const void* aux) {
  rd_part_k<{{NAME}}_op, {{T}}, {{V}}>(x, part, outer, nrows, R, rs, L, S, aux);
}
extern "C" __global__ void __launch_bounds__(RD_THREADS)
{{NAME}}_fin(const {{ACC}}* __restrict__ part, {{OUT}}* __restrict__ y, i64 nrows, i64 S, i64 R, i64 ddof) {
  rd_fin_k<{{NAME}}_op, {{OUT}}>(part, y, nrows, S, R, ddof);
}
extern "C" __global__ void __launch_bounds__(RD_THREADS)
{{NAME}}_col(const {{T}}* __restrict__ x, void* __restrict__ dst, const RdOuter outer, i64 nout, i64 R,
             i64 rs, i64 L, i64 S, const void* aux, i64 ddof, int span, i64 ps, i64 po) {
  rd_col_k<{{NAME}}_op, {{T}}, {{OUT}}>(x, dst, outer, nout, R, rs, L, S, aux, ddof, span, ps, po);
}
extern "C" __global__ void __launch_bounds__(RD_THREADS)
{{NAME}}_colfin(const {{ACC}}* __restrict__ part, {{OUT}}* __restrict__ y, i64 nout, i64 S, i64 R,
                i64 ddof) {
  rd_colfin_k<{{NAME}}_op, {{OUT}}>(part, y, nout, S, R, ddof);
}
//@@SCAN
extern "C" __global__ void __launch_bounds__(RD_THREADS)
{{NAME}}_warp(const {{T}}* __restrict__ x, {{OUT}}* __restrict__ y, const RdOuter oin, const RdOuter oout,
              i64 nl, i64 L, i64 rs, i64 os) {
  rd_scan_warp_k<{{T}}, {{OUT}}, {{W}}>(x, y, oin, oout, nl, L, rs, os);
}
extern "C" __global__ void __launch_bounds__(RD_THREADS)
{{NAME}}_lane(const {{T}}* __restrict__ x, {{OUT}}* __restrict__ y, const RdOuter oin, const RdOuter oout,
              i64 nl, i64 L, i64 rs, i64 os) {
  rd_scan_lane_k<{{T}}, {{OUT}}, {{W}}>(x, y, oin, oout, nl, L, rs, os);
}
extern "C" __global__ void __launch_bounds__(RD_THREADS)
{{NAME}}_sums(const {{T}}* __restrict__ x, {{W}}* __restrict__ sums, const RdOuter oin, i64 nl, i64 L,
              i64 rs, i64 nch) {
  rd_scan_sums_k<{{T}}, {{W}}>(x, sums, oin, nl, L, rs, nch);
}
extern "C" __global__ void __launch_bounds__(RD_THREADS)
{{NAME}}_excl({{W}}* __restrict__ sums, i64 nl, i64 nch) {
  rd_scan_excl_k<{{W}}>(sums, nl, nch);
}
extern "C" __global__ void __launch_bounds__(RD_THREADS)
{{NAME}}_fix(const {{T}}* __restrict__ x, {{OUT}}* __restrict__ y, const RdOuter oin, const RdOuter oout,
             i64 nl, i64 L, i64 rs, i64 os, const {{W}}* __restrict__ pre, i64 nch) {
  rd_scan_fix_k<{{T}}, {{OUT}}, {{W}}>(x, y, oin, oout, nl, L, rs, os, pre, nch);
}
