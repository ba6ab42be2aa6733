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
//   R * (C | 1) + (vfirst ? TY * (C | 1) : R * (TX | 1)),   R = TY + nv - 1, C = TX + nh - 1.
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
#else
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

// The input box of the tile whose top-left output is (r0, c0) of plane `base` into sin: cp.async
// copies (not waited for here) where the box lies inside the plane, boundary modes mapped per
// element (cval stored directly for the constant modes) where it does not. The mapping handles
// planes narrower than the halo (any offset is folded by ndi_map_index).
__device__ __forceinline__ void ndi_sep_box(const T* __restrict__ x, W* sin, i64 base, i64 gr0,
                                            i64 gc0, i64 H, i64 Wd, int R, int C, int PI,
                                            int mode, W cval, int lane, int warp, int nw) {
  if (gr0 >= 0 && gr0 + R <= H && gc0 >= 0 && gc0 + C <= Wd) {
    const T* p = x + base + gr0 * Wd + gc0;
    for (int rr = warp; rr < R; rr += nw) {
      const T* pr = p + rr * Wd;
      W* sr = sin + rr * PI;
      for (int cc = lane; cc < C; cc += 32) ndi_sep_ld(sr + cc, pr + cc);
    }
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

template <int NB>
__device__ __forceinline__ void ndi_sep2_body(const T* __restrict__ x, T* __restrict__ out,
                                              i64 outer, i64 H, i64 Wd, const NdiTaps& tv,
                                              int nv, int sv, W dv, const NdiTaps& th, int nh,
                                              int sh, W dh, int vfirst, int mode, W cval, int TY,
                                              int TX) {
  extern __shared__ __align__(16) unsigned char ndi_smem4[];
  const int R = TY + nv - 1, C = TX + nh - 1;
  // box pitch PI, intermediate pitch PM (odd)
  const int PI = C | 1;
  const int PM = vfirst ? (C | 1) : (TX | 1);
  W* sin = (W*)ndi_smem4;
  W* smid = sin + R * PI;
  const bool cmode = mode == NDI_CONSTANT || mode == NDI_GRID_CONSTANT;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  const int ry = lane >> 2, cx = (lane & 3) * 8;  // horizontal-pass lane layout
  const i64 nty = (H + TY - 1) / TY, ntx = (Wd + TX - 1) / TX;
  const i64 ntiles = outer * nty * ntx;
  for (i64 t = blockIdx.x; t < ntiles; t += gridDim.x) {
    // tile t -> plane offset, first output row and column
    const i64 q = t / ntx;
    const i64 r0 = (q % nty) * TY, c0 = (t % ntx) * TX;
    const i64 base = (q / nty) * H * Wd;
    const i64 gr0 = r0 - sv, gc0 = c0 - sh;
    __syncthreads();  // the previous tile's reads are done
    ndi_sep_box(x, sin, base, gr0, gc0, H, Wd, R, C, PI, mode, cval, lane, warp, nw);
    ndi_sep_wait();
    __syncthreads();
    W acc[8];
    if (vfirst) {
      // vertical: TY x C intermediate, a lane per column, 8 rows per warp item
      const int nseg = TY >> 3;
      for (int seg = warp; seg < nseg; seg += nw)
        for (int cc = lane; cc < C; cc += 32) {
          const i64 gc = gc0 + cc;
          if (cmode && (gc < 0 || gc >= Wd)) {
#pragma unroll
            for (int k = 0; k < 8; ++k) acc[k] = cval;
          } else {
            ndi_sep_dot8<NB>(sin + (seg * 8) * PI + cc, PI, tv, nv, dv, acc);
          }
#pragma unroll
          for (int k = 0; k < 8; ++k) smid[(seg * 8 + k) * PM + cc] = acc[k];
        }
      __syncthreads();
      // horizontal: TY x TX outputs, lanes 8 rows x 4 groups of 8 columns
      const int ncb = TX >> 5, nitems = nseg * ncb;
      for (int it = warp; it < nitems; it += nw) {
        const int rr = (it / ncb) * 8 + ry, cc = (it % ncb) * 32 + cx;
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
      for (int seg = warp; seg < nseg; seg += nw)
        for (int cc = lane; cc < TX; cc += 32) {
          ndi_sep_dot8<NB>(smid + (seg * 8) * PM + cc, PM, tv, nv, dv, acc);
          const i64 gc = c0 + cc;
          if (gc >= Wd) continue;
#pragma unroll
          for (int k = 0; k < 8; ++k) {
            const i64 gr = r0 + seg * 8 + k;
            if (gr < H) out[base + gr * Wd + gc] = cusci_cast(T, acc[k]);
          }
        }
    }
  }
}

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
