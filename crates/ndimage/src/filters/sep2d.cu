// Fused separable 2-D weighted sums over the last two axes (appended to filters.cu: needs T, W,
// NdiTaps, ndi_map_index, cusci_cast).
//
// A C-contiguous array viewed as (outer, H, Wd) gets two weighted-sum passes, one along axis -2
// ("vertical": nv taps tv, shift sv, divisor dv) and one along axis -1 ("horizontal": nh taps th,
// shift sh, divisor dh), the vertical one first when vfirst (the caller passes SciPy's order:
// axis order, but sobel/prewitt take the derivative axis first; in the constant modes with
// cval != 0 the order matters, and cupyx's sobel/prewitt, which always run axis 0 first, differ
// there from SciPy). One block per TY x TX output tile (grid-stride over the tiles):
//   1. the input box (TY + nv - 1) x (TX + nh - 1) is copied once into shared memory (cp.async on
//      sm_80+: every load of the block in flight at once; boundary modes mapped per element only
//      in tiles whose box leaves the array, cval stored directly for the constant modes);
//   2. the first pass runs from shared memory into a shared intermediate (in W; where the first
//      pass's line lies outside the array in a constant mode the intermediate is cval, as the
//      second of two sequential passes reads it);
//   3. the second pass runs from the intermediate and writes the tile once (16-byte stores where
//      aligned).
// Each thread computes 8 consecutive outputs of a pass, the taps unrolled up to NB (weights by
// value: constant-bank operands), so a pass reads 8 + n - 1 shared values per 8 outputs. Sums run
// in tap order as the sequential 1-D passes do; f32 divides by multiplying with 1 / d.
// Shared-memory rows have an odd pitch, so the horizontal pass (lanes = 8 rows x 4 groups of 8
// columns) is free of bank conflicts. Dynamic shared memory, in W:
//   (1 + NDI_SEP2_PIPE) * R * (C | 1) + (vfirst ? TY * (C | 1) : R * (TX | 1)),
//   R = TY + nv - 1, C = TX + nh - 1.
// Planes of any size: the halo of a plane narrower than the window (1 x N, N x 1, 1 x 1) is
// mapped per element, every out-of-plane offset folded by the mode.
// TY is a multiple of 8, TX a multiple of 32, blockDim.x a multiple of 32.
// Compiled for the floating types only (NDI_FLOAT_T): integer filters round each pass.
#ifdef NDI_FLOAT_T

template <typename TT>
__device__ __forceinline__ void ndi_sep_ld(W* d, const TT* s) { *d = (W)*s; }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
__device__ __forceinline__ void ndi_sep_ld(float* d, const float* s) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(d);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(a), "l"(s));
}
__device__ __forceinline__ void ndi_sep_ld(double* d, const double* s) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(d);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(a), "l"(s));
}
__device__ __forceinline__ void ndi_sep_wait() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
__device__ __forceinline__ void ndi_sep_ld16(W* d, const T* s) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(d);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(a), "l"(s));
}
#else
__device__ __forceinline__ void ndi_sep_ld16(W* d, const T* s) {
  *reinterpret_cast<float4*>(d) = *reinterpret_cast<const float4*>(s);
}
__device__ __forceinline__ void ndi_sep_wait() {}
#endif

// 8 results to global memory at p (cnt of them inside the array).
template <typename TT>
__device__ __forceinline__ void ndi_sep_st8(TT* p, const W* a, int cnt) {
#pragma unroll
  for (int o = 0; o < 8; ++o)
    if (o < cnt) p[o] = cusci_cast(TT, a[o]);
}
__device__ __forceinline__ void ndi_sep_st8(float* p, const W* a, int cnt) {
  if (cnt == 8 && ((unsigned long long)p & 15) == 0) {
    reinterpret_cast<float4*>(p)[0] = make_float4((float)a[0], (float)a[1], (float)a[2], (float)a[3]);
    reinterpret_cast<float4*>(p)[1] = make_float4((float)a[4], (float)a[5], (float)a[6], (float)a[7]);
  } else {
#pragma unroll
    for (int o = 0; o < 8; ++o)
      if (o < cnt) p[o] = (float)a[o];
  }
}
__device__ __forceinline__ void ndi_sep_st8(double* p, const W* a, int cnt) {
  if (cnt == 8 && ((unsigned long long)p & 15) == 0) {
#pragma unroll
    for (int o = 0; o < 4; ++o)
      reinterpret_cast<double2*>(p)[o] = make_double2((double)a[2 * o], (double)a[2 * o + 1]);
  } else {
#pragma unroll
    for (int o = 0; o < 8; ++o)
      if (o < cnt) p[o] = (double)a[o];
  }
}

// acc[o] = sum_{j < n} w[j] * s[(o + j) * step], o = 0..7, then divided by d.
template <int NB>
__device__ __forceinline__ void ndi_sep_dot8(const W* s, int step, const NdiTaps& tw, int n, W d,
                                             W* acc) {
#pragma unroll
  for (int o = 0; o < 8; ++o) acc[o] = (W)0;
#pragma unroll
  for (int k = 0; k < 8 + NB - 1; ++k) {
    if (k < 8 + n - 1) {
      const W v = s[k * step];
#pragma unroll
      for (int o = 0; o < 8; ++o) {
        const int j = k - o;
        if (j >= 0 && j < NB && j < n) acc[o] += tw.w[j] * v;
      }
    }
  }
#ifdef NDI_WF32
  const W rd = (W)1 / d;
#pragma unroll
  for (int o = 0; o < 8; ++o) acc[o] = acc[o] * rd;
#else
  if (d != (W)1) {
#pragma unroll
    for (int o = 0; o < 8; ++o) acc[o] = acc[o] / d;
  }
#endif
}

// NDI_SEP2_FLAT (default 0): the interior box copy and the vertical passes' (8-row segment,
// column) items spread over all threads of the block instead of a warp per row or segment and a
// lane per column (with TY = 32 and 8 warps, half the warps would idle in a vertical pass).
#ifndef NDI_SEP2_FLAT
#define NDI_SEP2_FLAT 0
#endif

// The input box of the tile whose top-left output is (r0, c0) of plane `base` into sin: cp.async
// copies (not waited for here) where the box lies inside the plane, boundary modes mapped per
// element (cval stored directly for the constant modes) where it does not. The mapping handles
// planes narrower than the halo (any offset is folded by ndi_map_index).
__device__ __forceinline__ void ndi_sep_box(const T* __restrict__ x, W* sin, i64 base, i64 gr0,
                                            i64 gc0, i64 H, i64 Wd, int R, int C, int PI,
                                            int mode, W cval, int lane, int warp, int nw,
                                            bool v4) {
  if (gr0 >= 0 && gr0 + R <= H && gc0 >= 0 && gc0 + C <= Wd) {
    const T* p = x + base + gr0 * Wd + gc0;
    if (v4 && (Wd & 3) == 0 && ((unsigned long long)p & 15) == 0) {
      // C and PI are multiples of 4: 16-byte chunks, flattened over the block's threads
      const int C4 = C >> 2, bd = nw * 32;
      int rr = (warp * 32 + lane) / C4, c4 = (warp * 32 + lane) % C4;
      while (rr < R) {
        ndi_sep_ld16(sin + rr * PI + 4 * c4, p + rr * Wd + 4 * c4);
        c4 += bd;
        while (c4 >= C4) {
          c4 -= C4;
          ++rr;
        }
      }
      return;
    }
#if NDI_SEP2_FLAT
    // the R x C box flattened over the block's threads (no lane idles on a row's C % 32 tail)
    const int bd = nw * 32;
    int rr = (warp * 32 + lane) / C, cc = (warp * 32 + lane) % C;
    while (rr < R) {
      ndi_sep_ld(sin + rr * PI + cc, p + rr * Wd + cc);
      cc += bd;
      while (cc >= C) {
        cc -= C;
        ++rr;
      }
    }
#else
    for (int rr = warp; rr < R; rr += nw) {
      const T* pr = p + rr * Wd;
      W* sr = sin + rr * PI;
      for (int cc = lane; cc < C; cc += 32) ndi_sep_ld(sr + cc, pr + cc);
    }
#endif
  } else {
    for (int rr = warp; rr < R; rr += nw) {
      const i64 i = ndi_map_index(gr0 + rr, H, mode);
      W* sr = sin + rr * PI;
      for (int cc = lane; cc < C; cc += 32) {
        const i64 j = ndi_map_index(gc0 + cc, Wd, mode);
        if (i < 0 || j < 0)
          sr[cc] = cval;
        else
          ndi_sep_ld(sr + cc, x + base + i * Wd + j);
      }
    }
  }
}

// NDI_SEP2_PIPE (default 0): two input boxes in shared memory; while a block computes a tile, the
// cp.async copies of its next tile's box are in flight (the host launches a persistent grid, a
// few blocks per SM, each looping over tiles). 0: one box, one tile at a time (any grid).
#ifndef NDI_SEP2_PIPE
#define NDI_SEP2_PIPE 0
#endif

// NDI_SEP2_V4 (default 0), f32 with the vertical pass first: the box starts at a 16-byte aligned
// column (c0 - A, A = sh rounded up to 4) and is copied with 16-byte cp.async where the plane
// allows (Wd % 4 == 0, aligned pointer); box and intermediate pitches are = 4 (mod 8), so the
// horizontal pass reads its 8 + n - 1 values as float4 (lanes 8 rows x 4 groups: each quarter-warp
// covers all 32 banks once) instead of one scalar load each.
#ifndef NDI_SEP2_V4
#define NDI_SEP2_V4 0
#endif
// The smallest pitch >= n that is = 4 (mod 8).
__device__ __forceinline__ int ndi_sep_pitch4(int n) {
  const int p = (n + 3) & ~3;
  return (p & 7) ? p : p + 4;
}

// As ndi_sep_dot8 along a row (step 1) of 16-byte aligned f32 values.
template <int NB>
__device__ __forceinline__ void ndi_sep_dot8_v4(const W* s, const NdiTaps& tw, int n, W d,
                                                W* acc) {
  constexpr int NQ = (8 + NB - 1 + 3) / 4;
  W v[4 * NQ];
#pragma unroll
  for (int q = 0; q < NQ; ++q) {
    if (4 * q < 8 + n - 1) {
      const float4 f = reinterpret_cast<const float4*>(s)[q];
      v[4 * q] = f.x;
      v[4 * q + 1] = f.y;
      v[4 * q + 2] = f.z;
      v[4 * q + 3] = f.w;
    }
  }
#pragma unroll
  for (int o = 0; o < 8; ++o) acc[o] = (W)0;
#pragma unroll
  for (int k = 0; k < 8 + NB - 1; ++k) {
    if (k < 8 + n - 1) {
#pragma unroll
      for (int o = 0; o < 8; ++o) {
        const int j = k - o;
        if (j >= 0 && j < NB && j < n) acc[o] += tw.w[j] * v[k];
      }
    }
  }
#ifdef NDI_WF32
  const W rd = (W)1 / d;
#pragma unroll
  for (int o = 0; o < 8; ++o) acc[o] = acc[o] * rd;
#else
  if (d != (W)1) {
#pragma unroll
    for (int o = 0; o < 8; ++o) acc[o] = acc[o] / d;
  }
#endif
}

// NDI_SEP2_H4 (default 0; acts with NDI_SEP2_V4): the horizontal second pass computes 4 outputs
// per thread with consecutive lanes along a row (float4 reads, one float4 store per lane).
#ifndef NDI_SEP2_H4
#define NDI_SEP2_H4 0
#endif

// 4 outputs of a row of 16-byte aligned f32 values (as ndi_sep_dot8_v4).
template <int NB>
__device__ __forceinline__ void ndi_sep_dot4_v4(const W* s, const NdiTaps& tw, int n, W d,
                                                W* acc) {
  constexpr int NQ = (4 + NB - 1 + 3) / 4;
  W v[4 * NQ];
#pragma unroll
  for (int q = 0; q < NQ; ++q) {
    if (4 * q < 4 + n - 1) {
      const float4 f = reinterpret_cast<const float4*>(s)[q];
      v[4 * q] = f.x;
      v[4 * q + 1] = f.y;
      v[4 * q + 2] = f.z;
      v[4 * q + 3] = f.w;
    }
  }
#pragma unroll
  for (int o = 0; o < 4; ++o) acc[o] = (W)0;
#pragma unroll
  for (int k = 0; k < 4 + NB - 1; ++k) {
    if (k < 4 + n - 1) {
#pragma unroll
      for (int o = 0; o < 4; ++o) {
        const int j = k - o;
        if (j >= 0 && j < NB && j < n) acc[o] += tw.w[j] * v[k];
      }
    }
  }
#ifdef NDI_WF32
  const W rd = (W)1 / d;
#pragma unroll
  for (int o = 0; o < 4; ++o) acc[o] = acc[o] * rd;
#else
  if (d != (W)1) {
#pragma unroll
    for (int o = 0; o < 4; ++o) acc[o] = acc[o] / d;
  }
#endif
}

template <int NB>
__device__ __forceinline__ void ndi_sep2_body(const T* __restrict__ x, T* __restrict__ out,
                                              i64 outer, i64 H, i64 Wd, const NdiTaps& tv,
                                              int nv, int sv, W dv, const NdiTaps& th, int nh,
                                              int sh, W dh, int vfirst, int mode, W cval, int TY,
                                              int TX) {
  extern __shared__ __align__(16) unsigned char ndi_smem4[];
  const int R = TY + nv - 1, C = TX + nh - 1;
  // box: columns c0 - A .. c0 - A + CB of the plane, pitch PI; the first pass reads it from column
  // OFF (= A - sh) on; intermediate pitch PM
  const bool v4 = NDI_SEP2_V4 && vfirst && sizeof(W) == 4;
  const int A = v4 ? ((sh + 3) & ~3) : sh, OFF = A - sh;
  const int CB = v4 ? A + TX + ((nh - 1 - sh + 3) & ~3) : C;
  const int PI = v4 ? ndi_sep_pitch4(CB) : (C | 1);
  const int PM = vfirst ? (v4 ? ndi_sep_pitch4(C + 4) : (C | 1)) : (TX | 1);
  W* sbox0 = (W*)ndi_smem4;
#if NDI_SEP2_PIPE
  W* sbox1 = sbox0 + R * PI;
  W* smid = sbox1 + R * PI;
#else
  W* smid = sbox0 + R * PI;
#endif
  const bool cmode = mode == NDI_CONSTANT || mode == NDI_GRID_CONSTANT;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  const int ry = lane >> 2, cx = (lane & 3) * 8;  // horizontal-pass lane layout
  const i64 nty = (H + TY - 1) / TY, ntx = (Wd + TX - 1) / TX;
  const i64 ntiles = outer * nty * ntx;
  // tile t -> plane offset, first output row and column (names prefixed by P)
#define NDI_SEP_TILE(t, P)                                   \
  const i64 P##tile = (t), P##q = P##tile / ntx;             \
  const i64 P##r0 = (P##q % nty) * TY, P##c0 = (P##tile % ntx) * TX; \
  const i64 P##base = (P##q / nty) * H * Wd;
#if NDI_SEP2_PIPE
  if ((i64)blockIdx.x < ntiles) {
    NDI_SEP_TILE((i64)blockIdx.x, n_)
    ndi_sep_box(x, sbox0, n_base, n_r0 - sv, n_c0 - A, H, Wd, R, CB, PI, mode, cval, lane, warp, nw,
                v4);
  }
  int cur = 0;
#endif
  for (i64 t = blockIdx.x; t < ntiles; t += gridDim.x) {
    NDI_SEP_TILE(t, )
    const i64 gr0 = r0 - sv, gc0 = c0 - sh;
#if NDI_SEP2_PIPE
    ndi_sep_wait();
    // the box of t is in place; every thread is done with the previous tile (its box and smid)
    __syncthreads();
    W* sin = cur ? sbox1 : sbox0;
    if (t + gridDim.x < ntiles) {
      NDI_SEP_TILE(t + gridDim.x, n_)
      ndi_sep_box(x, cur ? sbox0 : sbox1, n_base, n_r0 - sv, n_c0 - A, H, Wd, R, CB, PI, mode, cval,
                  lane, warp, nw, v4);
    }
    cur ^= 1;
#else
    W* sin = sbox0;
    __syncthreads();  // the previous tile's reads are done
    ndi_sep_box(x, sin, base, gr0, c0 - A, H, Wd, R, CB, PI, mode, cval, lane, warp, nw, v4);
    ndi_sep_wait();
    __syncthreads();
#endif
    W acc[8];
    if (vfirst) {
      // vertical: TY x C intermediate, a lane per column, 8 rows per warp item
      const int nseg = TY >> 3;
#if NDI_SEP2_FLAT
      // items (segment, column) flattened over the block's threads: no lane idles on the C % 32
      // halo columns of a segment
      for (int it = threadIdx.x; it < nseg * C; it += blockDim.x) {
        const int seg = it / C, cc = it - seg * C;
        {
#else
      for (int seg = warp; seg < nseg; seg += nw)
        for (int cc = lane; cc < C; cc += 32) {
#endif
          const i64 gc = gc0 + cc;
          if (cmode && (gc < 0 || gc >= Wd)) {
#pragma unroll
            for (int k = 0; k < 8; ++k) acc[k] = cval;
          } else {
            ndi_sep_dot8<NB>(sin + (seg * 8) * PI + cc + OFF, PI, tv, nv, dv, acc);
          }
#pragma unroll
          for (int k = 0; k < 8; ++k) smid[(seg * 8 + k) * PM + cc] = acc[k];
        }
#if NDI_SEP2_FLAT
      }
#endif
      __syncthreads();
#if NDI_SEP2_H4
      if (v4) {
        // horizontal: TY x TX outputs, 4 consecutive per thread, a warp along a row: float4
        // shared reads of consecutive lanes (conflict-free), one coalesced 16-byte store each
        const int n4 = TX >> 2;
        for (int it = threadIdx.x; it < TY * n4; it += blockDim.x) {
          const int rr = it / n4, cc = (it - rr * n4) * 4;
          W a4[4];
          ndi_sep_dot4_v4<NB>(smid + rr * PM + cc, th, nh, dh, a4);
          const i64 gr = r0 + rr, gc = c0 + cc;
          if (gr < H && gc < Wd) {
            T* p = out + base + gr * Wd + gc;
            if (gc + 4 <= Wd && ((unsigned long long)p & 15) == 0) {
              *reinterpret_cast<float4*>(p) = make_float4(a4[0], a4[1], a4[2], a4[3]);
            } else {
#pragma unroll
              for (int o = 0; o < 4; ++o)
                if (gc + o < Wd) p[o] = cusci_cast(T, a4[o]);
            }
          }
        }
        continue;
      }
#endif
      // horizontal: TY x TX outputs, lanes 8 rows x 4 groups of 8 columns
      const int ncb = TX >> 5, nitems = nseg * ncb;
      for (int it = warp; it < nitems; it += nw) {
        const int rr = (it / ncb) * 8 + ry, cc = (it % ncb) * 32 + cx;
        if (v4)
          ndi_sep_dot8_v4<NB>(smid + rr * PM + cc, th, nh, dh, acc);
        else
          ndi_sep_dot8<NB>(smid + rr * PM + cc, 1, th, nh, dh, acc);
        const i64 gr = r0 + rr, gc = c0 + cc;
        if (gr < H && gc < Wd) {
          const i64 left = Wd - gc;
          ndi_sep_st8(out + base + gr * Wd + gc, acc, left < 8 ? (int)left : 8);
        }
      }
    } else {
      // horizontal: R x TX intermediate
      const int ncb = TX >> 5, nrb = (R + 7) >> 3, nitems = nrb * ncb;
      for (int it = warp; it < nitems; it += nw) {
        const int rr = (it / ncb) * 8 + ry, cc = (it % ncb) * 32 + cx;
        if (rr >= R) continue;
        const i64 gr = gr0 + rr;
        if (cmode && (gr < 0 || gr >= H)) {
#pragma unroll
          for (int k = 0; k < 8; ++k) acc[k] = cval;
        } else {
          ndi_sep_dot8<NB>(sin + rr * PI + cc, 1, th, nh, dh, acc);
        }
#pragma unroll
        for (int k = 0; k < 8; ++k) smid[rr * PM + cc + k] = acc[k];
      }
      __syncthreads();
      // vertical: TY x TX outputs, a lane per column
      const int nseg = TY >> 3;
#if NDI_SEP2_FLAT
      for (int it = threadIdx.x; it < nseg * TX; it += blockDim.x) {
        const int seg = it / TX, cc = it - seg * TX;
        {
#else
      for (int seg = warp; seg < nseg; seg += nw)
        for (int cc = lane; cc < TX; cc += 32) {
#endif
          ndi_sep_dot8<NB>(smid + (seg * 8) * PM + cc, PM, tv, nv, dv, acc);
          const i64 gc = c0 + cc;
          if (gc >= Wd) continue;
#pragma unroll
          for (int k = 0; k < 8; ++k) {
            const i64 gr = r0 + seg * 8 + k;
            if (gr < H) out[base + gr * Wd + gc] = cusci_cast(T, acc[k]);
          }
        }
#if NDI_SEP2_FLAT
      }
#endif
    }
  }
}
#undef NDI_SEP_TILE

#define NDI_SEP2(NB)                                                                              \
  extern "C" __global__ void ndi_sep2f##NB(const T* __restrict__ x, T* __restrict__ out,         \
                                           i64 outer, i64 H, i64 Wd, NdiTaps tv, int nv, int sv, \
                                           W dv, NdiTaps th, int nh, int sh, W dh, int vfirst,   \
                                           int mode, W cval, int ty, int tx) {                   \
    ndi_sep2_body<NB>(x, out, outer, H, Wd, tv, nv, sv, dv, th, nh, sh, dh, vfirst, mode, cval,  \
                      ty, tx);                                                                   \
  }
NDI_SEP2(3)
NDI_SEP2(5)
NDI_SEP2(9)
NDI_SEP2(17)
NDI_SEP2(33)
#endif  // NDI_FLOAT_T
