// IIR filtering (lfilter in transposed direct form II, sosfilt as a cascade of biquads).
// Prepended defines: T (element type), TZERO (its zero), NS (number of states, >= 1), SOS (0: lfilter, 1: sosfilt),
// NAME(x) (the kernel name prefix). Coefficients (normalised so that a0 = 1):
//   lfilter: b[0..NS], a[0..NS] (2*NS+2 values);  sosfilt: per section b0 b1 b2 a1 a2 (5*NS/2).
// A signal is row (o, i) of a C-contiguous array seen as (outer, n, inner): sample t sits at
// o*n*inner + t*inner + i. State layouts: "user" is SciPy's zi/zf layout (lfilter: (outer, NS,
// inner); sosfilt: (NS/2, outer, 2, inner)); "internal" is [(chunk * nsig + sig) * NS + k].

#if SOS
#define NCOEF (5 * (NS / 2))
#else
#define NCOEF (2 * NS + 2)
#endif

__device__ __forceinline__ i64 zaddr(int k, i64 o, i64 i, i64 outer, i64 inner) {
#if SOS
  i64 sec = k >> 1, j = k & 1;
  return sec * outer * 2 * inner + o * 2 * inner + j * inner + i;
#else
  return o * (i64)NS * inner + (i64)k * inner + i;
#endif
}

__device__ __forceinline__ T iir_step(const T* c, T* z, T v) {
#if SOS
#pragma unroll
  for (int s = 0; s < NS / 2; ++s) {
    const T* q = c + 5 * s;
    T y = q[0] * v + z[2 * s];
    z[2 * s] = q[1] * v - q[3] * y + z[2 * s + 1];
    z[2 * s + 1] = q[2] * v - q[4] * y;
    v = y;
  }
  return v;
#else
  T y = c[0] * v + z[0];
#pragma unroll
  for (int k = 0; k < NS - 1; ++k) z[k] = c[k + 1] * v - c[NS + 2 + k] * y + z[k + 1];
  z[NS - 1] = c[NS] * v - c[2 * NS + 1] * y;
  return y;
#endif
}

// One thread filters one chunk [c*L, min(n, c*L+L)) of one signal. zin_mode: 0 zeros, 1 user
// layout, 2 internal layout. zout_mode: 0 none, 1 user layout (last chunk only), 2 internal.
// y may be null (first pass of the chunked scan: only the final states are wanted).
extern "C" __global__ void NAME(chunks)(const T* __restrict__ x, T* __restrict__ y,
                                        const T* __restrict__ coef, const T* __restrict__ zin,
                                        int zin_mode, T* __restrict__ zout, int zout_mode,
                                        i64 outer, i64 n, i64 inner, i64 L, i64 nchunks) {
  T c[NCOEF];
#pragma unroll
  for (int k = 0; k < NCOEF; ++k) c[k] = coef[k];
  const i64 nsig = outer * inner;
  const i64 total = nsig * nchunks;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    const i64 sig = idx % nsig, ch = idx / nsig;
    const i64 o = sig / inner, i = sig % inner;
    T z[NS];
#pragma unroll
    for (int k = 0; k < NS; ++k) {
      if (zin_mode == 1) z[k] = zin[zaddr(k, o, i, outer, inner)];
      else if (zin_mode == 2) z[k] = zin[(ch * nsig + sig) * NS + k];
      else z[k] = TZERO;
    }
    const i64 t0 = ch * L;
    const i64 t1 = (t0 + L < n) ? t0 + L : n;
    const i64 base = o * n * inner + i;
    if (y != nullptr) {
      for (i64 t = t0; t < t1; ++t) y[base + t * inner] = iir_step(c, z, x[base + t * inner]);
    } else {
      for (i64 t = t0; t < t1; ++t) (void)iir_step(c, z, x[base + t * inner]);
    }
    if (zout_mode == 1 && ch == nchunks - 1) {
#pragma unroll
      for (int k = 0; k < NS; ++k) zout[zaddr(k, o, i, outer, inner)] = z[k];
    } else if (zout_mode == 2) {
#pragma unroll
      for (int k = 0; k < NS; ++k) zout[(ch * nsig + sig) * NS + k] = z[k];
    }
  }
}

// The carry of the chunked scan. Items are chunks (or groups of chunks) in internal layout; P is
// the NS x NS zero-input state map over one item (row-major). One thread scans G consecutive
// items of one signal starting from init (internal layout per group, or zeros when null):
//   s <- P s + f[item].
// mode 0 stores the state before each item (the items' initial states); mode 1 stores only each
// group's final state.
extern "C" __global__ void NAME(scan)(const T* __restrict__ f, const T* __restrict__ P,
                                      const T* __restrict__ init, T* __restrict__ out, int mode,
                                      i64 nsig, i64 nitems, i64 G) {
  const i64 ngroups = (nitems + G - 1) / G;
  const i64 total = nsig * ngroups;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    const i64 sig = idx % nsig, g = idx / nsig;
    T s[NS], t[NS];
#pragma unroll
    for (int k = 0; k < NS; ++k) s[k] = init != nullptr ? init[(g * nsig + sig) * NS + k] : TZERO;
    const i64 i0 = g * G;
    const i64 i1 = (i0 + G < nitems) ? i0 + G : nitems;
    for (i64 it = i0; it < i1; ++it) {
      const T* fi = f + (it * nsig + sig) * NS;
      if (mode == 0) {
#pragma unroll
        for (int k = 0; k < NS; ++k) out[(it * nsig + sig) * NS + k] = s[k];
      }
#pragma unroll
      for (int r = 0; r < NS; ++r) {
        T acc = fi[r];
#pragma unroll
        for (int k = 0; k < NS; ++k) acc = acc + P[r * NS + k] * s[k];
        t[r] = acc;
      }
#pragma unroll
      for (int k = 0; k < NS; ++k) s[k] = t[k];
    }
    if (mode == 1) {
#pragma unroll
      for (int k = 0; k < NS; ++k) out[(g * nsig + sig) * NS + k] = s[k];
    }
  }
}

// User-layout states to internal layout (one group per signal).
extern "C" __global__ void NAME(zi_gather)(const T* __restrict__ zi, T* __restrict__ out,
                                           i64 outer, i64 inner) {
  const i64 nsig = outer * inner;
  for (i64 sig = blockIdx.x * (i64)blockDim.x + threadIdx.x; sig < nsig;
       sig += (i64)gridDim.x * blockDim.x) {
    const i64 o = sig / inner, i = sig % inner;
#pragma unroll
    for (int k = 0; k < NS; ++k) out[sig * NS + k] = zi[zaddr(k, o, i, outer, inner)];
  }
}

// ---------------------------------------------------------------------------------------------
// Block-tiled scan for contiguous signals (inner == 1, the filtered axis is the last): one block
// of TB threads filters one signal, tile by tile of TB*TL samples, and carries the state from
// tile to tile. Per tile: (1) the tile is read coalesced into shared memory (chunk j of TL
// samples at j*(TL+1): the odd stride keeps the per-thread walks free of bank conflicts);
// (2) thread j filters its chunk from a zero state (thread 0 from the carried state), giving
// f_j; (3) an inclusive Hillis-Steele scan F_j = f_j + M^(d*TL) F_(j-d), d = 1, 2, 4, ... (the
// zero-input maps mats[lv] = M^(TL*2^lv), NS x NS row-major) turns them into the true final state
// of every chunk; (4) thread j refilters its chunk from F_(j-1) in place; (5) the tile is
// written back coalesced. x is read once and y written once.
#ifndef TB
#define TB 128
#endif
#ifndef TL
#define TL 32
#endif

extern "C" __global__ void __launch_bounds__(TB)
    NAME(tiles)(const T* __restrict__ x, T* __restrict__ y, const T* __restrict__ coef,
                const T* __restrict__ zin, int zin_mode, T* __restrict__ zout, int zout_mode,
                i64 nsig, i64 n, const T* __restrict__ mats, int nmats) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* buf = reinterpret_cast<T*>(smem_raw);  // TB * (TL + 1) samples
  T* st = buf + TB * (TL + 1);               // NS * TB states, st[k * TB + j]
  T* mm = st + NS * TB;                      // nmats * NS * NS
  T c[NCOEF];
#pragma unroll
  for (int k = 0; k < NCOEF; ++k) c[k] = coef[k];
  const int j = threadIdx.x;
  for (int q = j; q < nmats * NS * NS; q += TB) mm[q] = mats[q];
  for (i64 sig = blockIdx.x; sig < nsig; sig += gridDim.x) {
    const T* xs = x + sig * n;
    T* ys = y + sig * n;
    T carry[NS];
#pragma unroll
    for (int k = 0; k < NS; ++k) carry[k] = zin_mode == 1 ? zin[zaddr(k, sig, 0, nsig, 1)] : TZERO;
    const i64 tile = (i64)TB * TL;
    for (i64 t0 = 0; t0 < n; t0 += tile) {
      const int len = (int)((n - t0) < tile ? (n - t0) : tile);
      __syncthreads();
      if (len == TB * TL) {
#pragma unroll 16
        for (int q = j; q < TB * TL; q += TB) buf[q + q / TL] = xs[t0 + q];
      } else {
        for (int q = j; q < TB * TL; q += TB) buf[q + q / TL] = q < len ? xs[t0 + q] : TZERO;
      }
      __syncthreads();
      int cl = len - j * TL;
      cl = cl < 0 ? 0 : (cl > TL ? TL : cl);
      T* my = buf + j * (TL + 1);
      T z[NS];
#pragma unroll
      for (int k = 0; k < NS; ++k) z[k] = j == 0 ? carry[k] : TZERO;
      if (cl == TL) {
#pragma unroll 8
        for (int t = 0; t < TL; ++t) (void)iir_step(c, z, my[t]);
      } else {
        for (int t = 0; t < cl; ++t) (void)iir_step(c, z, my[t]);
      }
      int lv = 0;
      for (int d = 1; d < TB; d <<= 1, ++lv) {
#pragma unroll
        for (int k = 0; k < NS; ++k) st[k * TB + j] = z[k];
        __syncthreads();
        if (j >= d) {
          T p[NS];
#pragma unroll
          for (int k = 0; k < NS; ++k) p[k] = st[k * TB + j - d];
          const T* P = mm + lv * NS * NS;
#pragma unroll
          for (int r = 0; r < NS; ++r) {
            T acc = z[r];
#pragma unroll
            for (int k = 0; k < NS; ++k) acc = acc + P[r * NS + k] * p[k];
            z[r] = acc;
          }
        }
        __syncthreads();
      }
#pragma unroll
      for (int k = 0; k < NS; ++k) st[k * TB + j] = z[k];
      __syncthreads();
      T s[NS];
#pragma unroll
      for (int k = 0; k < NS; ++k) s[k] = j == 0 ? carry[k] : st[k * TB + j - 1];
      if (j == 0) {
#pragma unroll
        for (int k = 0; k < NS; ++k) carry[k] = st[k * TB + TB - 1];
      }
      if (cl == TL) {
#pragma unroll 8
        for (int t = 0; t < TL; ++t) my[t] = iir_step(c, s, my[t]);
      } else {
        for (int t = 0; t < cl; ++t) my[t] = iir_step(c, s, my[t]);
      }
      if (zout_mode == 1 && t0 + tile >= n && cl > 0 && j == (len - 1) / TL) {
#pragma unroll
        for (int k = 0; k < NS; ++k) zout[zaddr(k, sig, 0, nsig, 1)] = s[k];
      }
      __syncthreads();
      if (len == TB * TL) {
#pragma unroll 16
        for (int q = j; q < TB * TL; q += TB) ys[t0 + q] = buf[q + q / TL];
      } else {
        for (int q = j; q < len; q += TB) ys[t0 + q] = buf[q + q / TL];
      }
    }
  }
}
