// Streaming fused separable 2-D weighted sums over the last two axes, f32 (appended after
// filters.cu: needs W = float, NDI_WF32, NdiTaps, ndi_map_index and the NDI_* mode codes).
//
// The same arithmetic as ndi_sep2f{NB} of sep2d.cu with the vertical pass first (bit-identical
// results, every mode): the vertical sum over nv input rows in tap order, times 1 / dv (in the
// constant modes, cval where the column lies outside the plane, as the second sequential pass
// reads it); then the horizontal sum over nh of those intermediates in tap order, times 1 / dh.
// No shared memory; a C-contiguous array viewed as (outer, H, Wd):
//   - a lane owns 4 consecutive columns (16-byte loads and stores with VEC, else 4 scalars); a
//     warp spans 128 columns; the horizontal neighbours' intermediates come from the next lanes
//     (__shfl_up/down), so the horizontal halo (SH columns on the left, NH - 1 - SH on the right,
//     each <= 4) must fit in one lane. The warp's own edge lanes get theirs either
//       EDGE = 1: from one extra load per input row (lane 0: HW columns left of the warp, lane 31:
//                 HW columns right of it, HW in {1, 2, 4} >= the halo; one predicated instruction,
//                 the extra intermediates summed by every lane), the warp outputs 128 columns;
//       EDGE = 0: from overlapping warps: a warp loads 128 columns from 120 k - 4 on and stores the
//                 120 of lanes 1..30;
//   - a warp walks a strip of S output rows, keeping NV + PF input rows in a register ring (the
//     walk unrolled by NV + PF steps: static ring slots) and loading PF rows beyond the window it
//     sums, so PF + 1 row loads per lane are in flight (ptxas hoists more loads within an unrolled
//     block: about 96 registers for 3 taps, 170-240 for 9); every output row's vertical sum is
//     computed afresh from the ring (tap order: no running sum, the sequential passes' rounding);
//   - ALT: strips of odd index walk upwards, so the NV - 1 input rows two strips share are read by
//     both near the same time (both at their start or both at their end: L2 hits instead of a
//     second DRAM read of the halo rows);
//   - HINT: L2 cache-policy hints: the first NV - 1 input rows of a strip (read again later by the
//     strip above, at its end) evict_last, every other load and the stores evict_first.
// Warps that lie entirely inside the plane (rows and columns, the edge loads included) run the
// FAST body (pointer arithmetic only); the others map every row and column by the mode
// (ndi_map_index; constant modes: cval for rows outside, cval intermediates for columns outside),
// which handles planes of any size (narrower than the halo, one row, a width not a multiple of 4
// with VEC = 0). Lanes right of the plane compute the mapped columns' intermediates: they are the
// right halo of the last lane inside.
// Launch: blockDim.x a multiple of 32 (warps side by side along the row), grid.x =
// ceil(nwx / warps per block) with nwx = ceil(Wd / 128) (EDGE = 1) or ceil(Wd / 120) (EDGE = 0),
// grid.y <= 65535 (grid-stride over outer * ceil(H / S) strips). VEC requires Wd % 4 == 0 and
// 16-byte aligned x and out. sv in [0, NV), SH in [0, NH), SH <= 4 and NH - 1 - SH <= 4.
// Entry points: NDI_STREAM2 at the end of this file, instantiated by engine.rs (stream2_entries:
// the variant is set by its STREAM2_* consts, which also give the launch geometry of stream2).
#ifdef NDI_WF32

__device__ __forceinline__ unsigned long long ndi_s2_policy(bool keep) {
  unsigned long long p;
  if (keep)
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  else
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}

// The mapped row of the general body (not inlined: one copy instead of one per unrolled load).
__device__ __noinline__ i64 ndi_s2_map_row(i64 i, i64 n, int mode) { return ndi_map_index(i, n, mode); }

// V consecutive floats at p into d[0..V): one 16-byte (V = 4) / 8-byte (V = 2) load with VEC
// (p aligned to it), else V scalar loads; with HINT under the L2 cache policy pol.
template <int V, bool VEC, bool HINT>
__device__ __forceinline__ void ndi_s2_ld(float* d, const float* p, unsigned long long pol) {
  if constexpr (VEC && V == 4) {
    float4 v;
    if constexpr (HINT)
      asm("ld.global.nc.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
          : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
          : "l"(p), "l"(pol));
    else
      v = __ldg(reinterpret_cast<const float4*>(p));
    d[0] = v.x;
    d[1] = v.y;
    d[2] = v.z;
    d[3] = v.w;
  } else if constexpr (VEC && V == 2) {
    float2 v;
    if constexpr (HINT)
      asm("ld.global.nc.L2::cache_hint.v2.f32 {%0, %1}, [%2], %3;"
          : "=f"(v.x), "=f"(v.y)
          : "l"(p), "l"(pol));
    else
      v = __ldg(reinterpret_cast<const float2*>(p));
    d[0] = v.x;
    d[1] = v.y;
  } else {
#pragma unroll
    for (int k = 0; k < V; ++k) {
      if constexpr (HINT)
        asm("ld.global.nc.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(d[k]) : "l"(p + k), "l"(pol));
      else
        d[k] = __ldg(p + k);
    }
  }
}

// 4 floats a[0..4) to p (16-byte aligned with VEC); with HINT evict_first (policy pol).
template <bool VEC, bool HINT>
__device__ __forceinline__ void ndi_s2_st4(float* p, const float* a, unsigned long long pol) {
  if constexpr (VEC) {
    if constexpr (HINT)
      asm volatile("st.global.L2::cache_hint.v4.f32 [%0], {%1, %2, %3, %4}, %5;" ::"l"(p),
                   "f"(a[0]), "f"(a[1]), "f"(a[2]), "f"(a[3]), "l"(pol)
                   : "memory");
    else
      *reinterpret_cast<float4*>(p) = make_float4(a[0], a[1], a[2], a[3]);
  } else {
#pragma unroll
    for (int k = 0; k < 4; ++k) p[k] = a[k];
  }
}

// The halo width a lane loads at the warp's edges (EDGE = 1): 1, 2 or 4 columns >= the halo.
template <int NH, int SH>
struct NdiS2Halo {
  static constexpr int HL = SH, HR = NH - 1 - SH, HM = HL > HR ? HL : HR;
  static constexpr int HW = HM <= 1 ? 1 : (HM <= 2 ? 2 : 4);
};

// One strip: output rows r0 .. r0 + S - 1 (those < H) of the lane's 4 columns c .. c + 3 (stored
// where outl and inside the plane). FAST: every input row r0 - sv .. r0 - sv + S + NV - 2 and
// every column the warp loads lie inside the plane. DOWN: the walk direction.
template <int NV, int NH, int SH, int S, int PF, int EDGE, bool VEC, bool HINT, bool FAST,
          bool DOWN>
__device__ __forceinline__ void ndi_s2_strip(const float* __restrict__ xp, float* __restrict__ op,
                                             i64 H, i64 Wd, i64 r0, i64 c, int lane, bool outl,
                                             const NdiTaps& tv, int sv, W rdv, const NdiTaps& th,
                                             W rdh, int mode, W cval, unsigned long long pkeep,
                                             unsigned long long ponce) {
  constexpr int HL = NdiS2Halo<NH, SH>::HL, HR = NdiS2Halo<NH, SH>::HR;
  constexpr int HW = EDGE ? NdiS2Halo<NH, SH>::HW : 1;
  constexpr int NI = S + NV - 1;  // input rows of the strip
  constexpr int NR = NV + PF;     // ring slots
  static_assert(HL <= 4 && HR <= 4, "the horizontal halo must fit in one lane");
  static_assert(PF >= 0 && PF <= S, "prefetch distance");
  const bool cmode = mode == NDI_CONSTANT || mode == NDI_GRID_CONSTANT;
  const bool eload = EDGE && (lane == 0 || lane == 31);
  const i64 ce = lane == 0 ? c - HW : c + 4;  // the edge lanes' extra columns
  // column mapping (not FAST): the mapped index of each column, -1 for cval
  i64 ci[4], eci[HW];
  bool cf = true, ef = true;
  if constexpr (!FAST) {
    cf = c >= 0 && c + 4 <= Wd;
#pragma unroll
    for (int k = 0; k < 4; ++k) ci[k] = ndi_map_index(c + k, Wd, mode);
    if constexpr (EDGE) {
      ef = ce >= 0 && ce + HW <= Wd;
#pragma unroll
      for (int k = 0; k < HW; ++k) eci[k] = ndi_map_index(ce + k, Wd, mode);
    }
  }
  float rg[NR][4];
  float re[NR][HW];  // edge lanes' extra columns (zero in the other lanes)
  if constexpr (EDGE) {
#pragma unroll
    for (int s = 0; s < NR; ++s)
#pragma unroll
      for (int k = 0; k < HW; ++k) re[s][k] = 0.f;
  }
  const i64 rbase = r0 - sv;
  // input row of walk step u (relative row DOWN ? u : NI - 1 - u) into ring slot u % NR
  auto load = [&](const int u, const int s) {
    const int i = DOWN ? u : NI - 1 - u;
    const unsigned long long pol = i < NV - 1 ? pkeep : ponce;
    if constexpr (FAST) {
      const float* rp = xp + (rbase + i) * Wd;
      ndi_s2_ld<4, VEC, HINT>(rg[s], rp + c, pol);
      if constexpr (EDGE) {
        if (eload) ndi_s2_ld<HW, VEC, HINT>(re[s], rp + ce, pol);
      }
    } else {
      const i64 ir = ndi_s2_map_row(rbase + i, H, mode);
      if (ir < 0) {
#pragma unroll
        for (int k = 0; k < 4; ++k) rg[s][k] = cval;
        if constexpr (EDGE) {
#pragma unroll
          for (int k = 0; k < HW; ++k) re[s][k] = cval;
        }
      } else {
        const float* rp = xp + ir * Wd;
        if (cf) {
          ndi_s2_ld<4, VEC, HINT>(rg[s], rp + c, pol);
        } else {
#pragma unroll
          for (int k = 0; k < 4; ++k) rg[s][k] = ci[k] < 0 ? cval : __ldg(rp + ci[k]);
        }
        if constexpr (EDGE) {
          if (eload) {
            if (ef) {
              ndi_s2_ld<HW, VEC, HINT>(re[s], rp + ce, pol);
            } else {
#pragma unroll
              for (int k = 0; k < HW; ++k) re[s][k] = eci[k] < 0 ? cval : __ldg(rp + eci[k]);
            }
          }
        }
      }
    }
  };
#pragma unroll
  for (int u = 0; u < NR - 1; ++u) load(u, u);
  // the walk in blocks of NR steps (ring slots static inside a block; the loop over blocks is
  // not unrolled, which bounds the code size and how far the compiler hoists loads)
#pragma unroll 1
  for (int t0 = 0; t0 < S; t0 += NR) {
#pragma unroll
  for (int uu = 0; uu < NR; ++uu) {
    const int t = t0 + uu;
    if (S % NR != 0 && t >= S) break;
    if (t + NR - 1 < NI) load(t + NR - 1, (uu + NR - 1) % NR);
    // vertical: rows t .. t + NV - 1 of the walk, in tap order (walking up, tap j is walk row
    // t + NV - 1 - j)
    W vs[4], es[HW];
#pragma unroll
    for (int k = 0; k < 4; ++k) vs[k] = (W)0;
#pragma unroll
    for (int j = 0; j < NV; ++j) {
      const int s = (DOWN ? uu + j : uu + NV - 1 - j) % NR;
#pragma unroll
      for (int k = 0; k < 4; ++k) vs[k] += tv.w[j] * rg[s][k];
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) vs[k] = vs[k] * rdv;
    if constexpr (EDGE) {
#pragma unroll
      for (int k = 0; k < HW; ++k) es[k] = (W)0;
#pragma unroll
      for (int j = 0; j < NV; ++j) {
        const int s = (DOWN ? uu + j : uu + NV - 1 - j) % NR;
#pragma unroll
        for (int k = 0; k < HW; ++k) es[k] += tv.w[j] * re[s][k];
      }
#pragma unroll
      for (int k = 0; k < HW; ++k) es[k] = es[k] * rdv;
    }
    if constexpr (!FAST) {
      if (cmode) {
        // a column outside the plane: the intermediate is cval (its vertical line is outside)
#pragma unroll
        for (int k = 0; k < 4; ++k)
          if (ci[k] < 0) vs[k] = cval;
        if constexpr (EDGE) {
#pragma unroll
          for (int k = 0; k < HW; ++k)
            if (eci[k] < 0) es[k] = cval;
        }
      }
    }
    // horizontal halo: lm[m] = column c - 4 + m, rm[m] = column c + 4 + m
    W lm[4], rm[4];
#pragma unroll
    for (int m = 4 - HL; m < 4; ++m) {
      lm[m] = __shfl_up_sync(0xffffffffu, vs[m], 1);
      if constexpr (EDGE) {
        if (lane == 0) lm[m] = es[HW - 4 + m];
      }
    }
#pragma unroll
    for (int m = 0; m < HR; ++m) {
      rm[m] = __shfl_down_sync(0xffffffffu, vs[m], 1);
      if constexpr (EDGE) {
        if (lane == 31) rm[m] = es[m];
      }
    }
    W a[4];
#pragma unroll
    for (int o = 0; o < 4; ++o) {
      a[o] = (W)0;
#pragma unroll
      for (int j = 0; j < NH; ++j) {
        const int d = o + j - SH;
        const W v = d < 0 ? lm[d + 4] : (d < 4 ? vs[d] : rm[d - 4]);
        a[o] += th.w[j] * v;
      }
      a[o] = a[o] * rdh;
    }
    const i64 r = r0 + (DOWN ? t : S - 1 - t);
    if constexpr (FAST) {
      if (outl) ndi_s2_st4<VEC, HINT>(op + r * Wd + c, a, ponce);
    } else {
      if (outl && r < H) {
        float* p = op + r * Wd + c;
        if (c + 4 <= Wd) {
          ndi_s2_st4<VEC, HINT>(p, a, ponce);
        } else {
#pragma unroll
          for (int k = 0; k < 4; ++k)
            if (c + k < Wd) p[k] = a[k];
        }
      }
    }
  }
  }
}

// The kernel body (see the head of this file). The weights: tv.w[0 .. NV), th.w[0 .. NH).
template <int NV, int NH, int SH, int S, int PF, int EDGE, bool VEC, bool HINT, bool ALT>
__device__ __forceinline__ void ndi_stream2_body(const float* __restrict__ x,
                                                 float* __restrict__ out, i64 outer, i64 H,
                                                 i64 Wd, const NdiTaps& tv, int sv, W dv,
                                                 const NdiTaps& th, W dh, int mode, W cval) {
  constexpr int HW = NdiS2Halo<NH, SH>::HW;
  const int lane = threadIdx.x & 31;
  const i64 wx = (i64)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  const i64 cw = EDGE ? wx * 128 : wx * 120 - 4;  // the warp's first column
  if (cw + (EDGE ? 0 : 4) >= Wd) return;         // no output column (the whole warp)
  const i64 c = cw + 4 * lane;
  const bool outl = (EDGE || (lane >= 1 && lane <= 30)) && c < Wd;
  const bool cols_in = EDGE ? (cw - HW >= 0 && cw + 128 + HW <= Wd) : (cw >= 0 && cw + 128 <= Wd);
  const W rdv = (W)1 / dv, rdh = (W)1 / dh;
  unsigned long long pkeep = 0, ponce = 0;
  if constexpr (HINT) {
    pkeep = ndi_s2_policy(true);
    ponce = ndi_s2_policy(false);
  }
  const i64 nst = (H + S - 1) / S, nq = outer * nst;
  for (i64 q = blockIdx.y; q < nq; q += gridDim.y) {
    const i64 plane = q / nst, strip = q - plane * nst, r0 = strip * S;
    const float* xp = x + plane * H * Wd;
    float* op = out + plane * H * Wd;
    // rows r0 - sv .. r0 - sv + S + NV - 2 inside (then so are the outputs: sv < NV)
    const bool fast = cols_in && r0 - sv >= 0 && r0 - sv + S + NV - 1 <= H;
    const bool down = !ALT || (strip & 1) == 0;
#define NDI_S2_STRIP(F, D)                                                                     \
  ndi_s2_strip<NV, NH, SH, S, PF, EDGE, VEC, HINT, F, D>(xp, op, H, Wd, r0, c, lane, outl, tv, \
                                                        sv, rdv, th, rdh, mode, cval, pkeep,   \
                                                        ponce)
    if (fast) {
      if (!ALT || down)
        NDI_S2_STRIP(true, true);
      else if constexpr (ALT)
        NDI_S2_STRIP(true, false);
    } else {
      if (!ALT || down)
        NDI_S2_STRIP(false, true);
      else if constexpr (ALT)
        NDI_S2_STRIP(false, false);
    }
#undef NDI_S2_STRIP
  }
}

// An entry point: NAME(x, out, outer, H, Wd, tv, sv, dv, th, dh, mode, cval), weights by value.
// LB: the parenthesised __launch_bounds__ arguments, (threads per block) or (threads, min blocks).
#define NDI_STREAM2(NAME, NV, NH, SH, S, PF, EDGE, VEC, HINT, ALT, LB)                          \
  extern "C" __global__ void __launch_bounds__ LB                                               \
      NAME(const float* __restrict__ x, float* __restrict__ out, i64 outer, i64 H, i64 Wd,      \
           NdiTaps tv, int sv, W dv, NdiTaps th, W dh, int mode, W cval) {                      \
    ndi_stream2_body<NV, NH, SH, S, PF, EDGE, VEC, HINT, ALT>(x, out, outer, H, Wd, tv, sv, dv, \
                                                              th, dh, mode, cval);              \
  }

#endif  // NDI_WF32
