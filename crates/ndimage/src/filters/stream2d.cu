// Streaming fused separable 2-D weighted sums over the last two axes, f32 (appended after
// filters.cu: needs W = float, NDI_WF32, NdiTaps, ndi_map_index and the NDI_* mode codes).
//
// The same arithmetic as ndi_sep2f{NB} of sep2d.cu with the vertical pass first (bit-identical
// results, every mode): the vertical sum over nv input rows in tap order, times 1 / dv (in the
// constant modes, cval where the column lies outside the plane, as the second sequential pass
// reads it); then the horizontal sum over nh of those intermediates in tap order, times 1 / dh.
// A C-contiguous array viewed as (outer, H, Wd):
//   - a lane owns 4 consecutive columns; a warp loads 128 columns from 120 k - 4 on and stores
//     the 120 of lanes 1..30 (overlapping warps); the horizontal neighbours' intermediates come
//     from the next lanes (__shfl_up/down), so the horizontal halo (SH columns on the left,
//     NH - 1 - SH on the right) must fit in one lane (<= 4 each);
//   - a warp walks a strip of S output rows (S a launch argument: plane rows split into nst
//     strips of sb or sb + 1 rows, the first ex of them longer), reading its S + NV - 1 input
//     rows once each through a per-thread ring of R slots in shared memory, filled by cp.async
//     (L1-allocating: the overlapping warps' shared sectors hit in L1) R rows ahead of their use;
//     slot k of thread t is ring[k * TH + t] (16 bytes), so every access is conflict-free;
//   - FAST body (every input row and column of the strip inside the plane, 16-byte aligned
//     rows): the window's NV rows in a register ring filled by one shared load per row; the walk
//     unrolled by R steps (static slots, R a multiple of NV); row t's slot is refilled with row
//     t + R once the step's sums have read its register copy, so R - NV + 1 rows are in flight;
//     pointers advance one row per step;
//   - general body (plane edges, any plane size, every mode, unaligned rows with VEC = false):
//     rows and columns mapped by the mode (ndi_map_index; cval in the constant modes written to
//     the slot directly), taps read from the ring, slot indices at run time, one step per
//     iteration: few registers, so the fast body keeps its occupancy. Lanes right of the plane
//     compute the mapped columns' intermediates: they are the right halo of the last lane inside;
//   - UNIT: every weight of both passes is 1 (uniform filters): sums of the values, the same
//     results as 1 * x + s (exact), without the weights' registers. The vertical sums are scaled
//     by __fmul_rn: a plain product could be contracted into the horizontal sums' additions
//     (fma(s, 1 / dv, a)), which rounds differently from the sequential passes.
// Launch: blockDim.x = TH, dynamic shared memory R * TH * 16 bytes, grid.x = ceil(nwx / (TH / 32))
// with nwx = ceil(Wd / 120), grid.y <= 65535 (grid-stride over the nst strips), grid.z <= 65535
// (grid-stride over the outer planes). VEC requires Wd % 4 == 0 and 16-byte aligned x and out.
// sv in [0, NV), SH <= 4 and NH - 1 - SH <= 4, R a multiple of NV.
// Entry points: NDI_STREAM2 at the end of this file, instantiated by engine.rs (stream2_entries).
#ifdef NDI_WF32

__device__ __forceinline__ void ndi_s2_cp16(unsigned s, const float* g) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(s), "l"(g) : "memory");
}
__device__ __forceinline__ void ndi_s2_cp4(unsigned s, const float* g) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(s), "l"(g) : "memory");
}
__device__ __forceinline__ void ndi_s2_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
// Waits until at most N of this thread's committed groups are pending.
template <int N>
__device__ __forceinline__ void ndi_s2_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// The 4 floats at g (a row's columns c .. c + 3) into the shared slot at s: one 16-byte copy
// with VEC (g aligned), else four 4-byte copies.
template <bool VEC>
__device__ __forceinline__ void ndi_s2_cp_row(unsigned s, const float* g) {
  if constexpr (VEC) {
    ndi_s2_cp16(s, g);
  } else {
#pragma unroll
    for (int k = 0; k < 4; ++k) ndi_s2_cp4(s + 4 * k, g + k);
  }
}

// The mapped row of the general body (not inlined: one copy instead of one per call site).
__device__ __noinline__ i64 ndi_s2_map_row(i64 i, i64 n, int mode) { return ndi_map_index(i, n, mode); }

// The horizontal pass of one output row and its store: vs holds the lane's 4 vertical sums
// (columns c .. c + 3); a[o] = (sum over j of th.w[j] * intermediate(c + o + j - SH)) / dh.
template <int NH, int SH, bool UNIT>
__device__ __forceinline__ void ndi_s2_hsum(const W* vs, const NdiTaps& th, W rdh, W* a) {
  constexpr int HL = SH, HR = NH - 1 - SH;
  static_assert(HL <= 4 && HR <= 4, "the horizontal halo must fit in one lane");
  W lm[4], rm[4];  // lm[m]: column c - 4 + m, rm[m]: column c + 4 + m
#pragma unroll
  for (int m = 4 - HL; m < 4; ++m) lm[m] = __shfl_up_sync(0xffffffffu, vs[m], 1);
#pragma unroll
  for (int m = 0; m < HR; ++m) rm[m] = __shfl_down_sync(0xffffffffu, vs[m], 1);
#pragma unroll
  for (int o = 0; o < 4; ++o) {
    a[o] = (W)0;
#pragma unroll
    for (int j = 0; j < NH; ++j) {
      const int d = o + j - SH;
      const W v = d < 0 ? lm[d + 4] : (d < 4 ? vs[d] : rm[d - 4]);
      a[o] += UNIT ? v : th.w[j] * v;
    }
    a[o] = a[o] * rdh;
  }
}

// 4 floats a[0..4) to p (16-byte aligned with VEC).
template <bool VEC>
__device__ __forceinline__ void ndi_s2_st4(float* p, const W* a) {
  if constexpr (VEC) {
    *reinterpret_cast<float4*>(p) = make_float4(a[0], a[1], a[2], a[3]);
  } else {
#pragma unroll
    for (int k = 0; k < 4; ++k) p[k] = a[k];
  }
}

// FAST strip: output rows r0 .. r0 + S - 1 of the lane's columns c .. c + 3 (stored where outl);
// input rows r0 - sv .. r0 - sv + S + NV - 2 and the warp's 128 columns inside the plane.
template <int NV, int NH, int SH, int R, int TH, bool VEC, bool UNIT>
__device__ __forceinline__ void ndi_s2_fast(const float* __restrict__ xp, float* __restrict__ op,
                                            i64 Wd, i64 r0, int S, i64 c, bool outl,
                                            const NdiTaps& tv, int sv, W rdv, const NdiTaps& th,
                                            W rdh, float4* ring) {
  static_assert(R % NV == 0, "ring slots");
  const int NI = S + NV - 1;  // input rows of the strip
  const unsigned s0 = (unsigned)__cvta_generic_to_shared(ring);
  const float* gq = xp + (r0 - sv) * Wd + c;  // the next input row to copy
  float* sp = op + r0 * Wd + c;               // the next output row
  // one commit group per input row (empty past the strip), so group g is walk row g
#pragma unroll
  for (int u = 0; u < R; ++u) {
    if (u < NI) ndi_s2_cp_row<VEC>(s0 + u * TH * 16, gq);
    ndi_s2_commit();
    gq += Wd;
  }
  int nleft = NI - R;  // input rows not yet copied
  float rg[NV][4];     // walk row i in rg[i % NV]
  ndi_s2_wait<R - NV>();
#pragma unroll
  for (int u = 0; u < NV - 1; ++u) {
    const float4 v = ring[u * TH];
    rg[u][0] = v.x;
    rg[u][1] = v.y;
    rg[u][2] = v.z;
    rg[u][3] = v.w;
  }
#pragma unroll 1
  for (int t0 = 0; t0 < S; t0 += R) {
#pragma unroll
    for (int uu = 0; uu < R; ++uu) {
      if (t0 + uu >= S) break;
      // walk row t + NV - 1 (R + t groups committed, t + NV of them needed)
      ndi_s2_wait<R - NV>();
      {
        const float4 v = ring[((uu + NV - 1) % R) * TH];
        float* d = rg[(uu + NV - 1) % NV];
        d[0] = v.x;
        d[1] = v.y;
        d[2] = v.z;
        d[3] = v.w;
      }
      W vs[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) vs[k] = (W)0;
#pragma unroll
      for (int j = 0; j < NV; ++j) {
#pragma unroll
        for (int k = 0; k < 4; ++k)
          vs[k] += UNIT ? rg[(uu + j) % NV][k] : tv.w[j] * rg[(uu + j) % NV][k];
      }
#pragma unroll
      for (int k = 0; k < 4; ++k) vs[k] = __fmul_rn(vs[k], rdv);
      // row t's slot takes row t + R: its register copy was read by the sums above (in issue
      // order before the copy), the last step that needs it
      if (nleft > 0) ndi_s2_cp_row<VEC>(s0 + uu * TH * 16, gq);
      ndi_s2_commit();
      gq += Wd;
      --nleft;
      W a[4];
      ndi_s2_hsum<NH, SH, UNIT>(vs, th, rdh, a);
      if (outl) ndi_s2_st4<VEC>(sp, a);
      sp += Wd;
    }
  }
  ndi_s2_wait<0>();
}

// General strip: output rows r0 .. r0 + S - 1 (those < H) of columns c .. c + 3 (stored where
// outl and inside the plane); rows and columns mapped by the mode.
template <int NV, int NH, int SH, int R, int TH, bool VEC, bool UNIT>
__device__ __forceinline__ void ndi_s2_general(const float* __restrict__ xp,
                                               float* __restrict__ op, i64 H, i64 Wd, i64 r0,
                                               int S, i64 c, bool outl, const NdiTaps& tv,
                                               int sv, W rdv, const NdiTaps& th, W rdh, int mode,
                                               W cval, float4* ring) {
  const int NI = S + NV - 1;
  const bool cmode = mode == NDI_CONSTANT || mode == NDI_GRID_CONSTANT;
  // the mapped index of each column, -1 for cval; cf: all 4 inside the plane
  i64 ci[4];
  const bool cf = c >= 0 && c + 4 <= Wd;
#pragma unroll
  for (int k = 0; k < 4; ++k) ci[k] = ndi_map_index(c + k, Wd, mode);
  const unsigned s0 = (unsigned)__cvta_generic_to_shared(ring);
  // walk row u (input row r0 - sv + u) into slot sl; nothing past the strip
  auto issue = [&](const int u, const int sl) {
    if (u >= NI) return;
    const i64 ir = ndi_s2_map_row(r0 - sv + u, H, mode);
    float* dp = reinterpret_cast<float*>(ring + sl * TH);
    const unsigned s = s0 + sl * TH * 16;
    if (ir < 0) {
#pragma unroll
      for (int k = 0; k < 4; ++k) dp[k] = cval;
    } else {
      const float* rp = xp + ir * Wd;
      if (cf) {
        ndi_s2_cp_row<VEC>(s, rp + c);
      } else {
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          if (ci[k] >= 0)
            ndi_s2_cp4(s + 4 * k, rp + ci[k]);
          else
            dp[k] = cval;
        }
      }
    }
  };
#pragma unroll 1
  for (int u = 0; u < R; ++u) {
    issue(u, u);
    ndi_s2_commit();
  }
  int st = 0;  // the slot of walk row t
#pragma unroll 1
  for (int t = 0; t < S; ++t) {
    ndi_s2_wait<R - NV>();
    W vs[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) vs[k] = (W)0;
#pragma unroll
    for (int j = 0; j < NV; ++j) {
      const int s = st + j < R ? st + j : st + j - R;
      const float4 v = ring[s * TH];
      vs[0] += UNIT ? v.x : tv.w[j] * v.x;
      vs[1] += UNIT ? v.y : tv.w[j] * v.y;
      vs[2] += UNIT ? v.z : tv.w[j] * v.z;
      vs[3] += UNIT ? v.w : tv.w[j] * v.w;
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) vs[k] = __fmul_rn(vs[k], rdv);
    // row t (read above) leaves the window: its slot takes row t + R
    issue(t + R, st);
    ndi_s2_commit();
    st = st + 1 == R ? 0 : st + 1;
    if (cmode) {
      // a column outside the plane: the intermediate is cval (its vertical line is outside)
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (ci[k] < 0) vs[k] = cval;
    }
    W a[4];
    ndi_s2_hsum<NH, SH, UNIT>(vs, th, rdh, a);
    const i64 r = r0 + t;
    if (outl && r < H) {
      float* p = op + r * Wd + c;
      if (c + 4 <= Wd) {
        ndi_s2_st4<VEC>(p, a);
      } else {
#pragma unroll
        for (int k = 0; k < 4; ++k)
          if (c + k < Wd) p[k] = a[k];
      }
    }
  }
  ndi_s2_wait<0>();
}

// The kernel body (see the head of this file). The weights: tv.w[0 .. NV), th.w[0 .. NH).
template <int NV, int NH, int SH, int R, int TH, bool VEC, bool UNIT>
__device__ __forceinline__ void ndi_stream2_body(const float* __restrict__ x,
                                                 float* __restrict__ out, i64 outer, i64 H,
                                                 i64 Wd, const NdiTaps& tv, int sv, W dv,
                                                 const NdiTaps& th, W dh, int mode, W cval,
                                                 i64 nst, i64 sb, i64 ex) {
  extern __shared__ float4 ndi_s2_ring[];
  const int lane = threadIdx.x & 31;
  const i64 wx = (i64)blockIdx.x * (TH / 32) + (threadIdx.x >> 5);
  const i64 cw = wx * 120 - 4;  // the warp's first column
  if (cw + 4 >= Wd) return;     // no output column (the whole warp)
  const i64 c = cw + 4 * lane;
  const bool outl = lane >= 1 && lane <= 30 && c < Wd;
  const bool cols_in = cw >= 0 && cw + 128 <= Wd;
  const W rdv = (W)1 / dv, rdh = (W)1 / dh;
  float4* ring = ndi_s2_ring + threadIdx.x;
  for (i64 plane = blockIdx.z; plane < outer; plane += gridDim.z) {
    const float* xp = x + plane * H * Wd;
    float* op = out + plane * H * Wd;
    for (i64 strip = blockIdx.y; strip < nst; strip += gridDim.y) {
      const i64 r0 = strip * sb + (strip < ex ? strip : ex);
      const int S = (int)sb + (strip < ex ? 1 : 0);
      // input rows r0 - sv .. r0 - sv + S + NV - 2 inside (then so are the outputs: sv < NV)
      if (cols_in && r0 - sv >= 0 && r0 - sv + S + NV - 1 <= H)
        ndi_s2_fast<NV, NH, SH, R, TH, VEC, UNIT>(xp, op, Wd, r0, S, c, outl, tv, sv, rdv, th,
                                                  rdh, ring);
      else
        ndi_s2_general<NV, NH, SH, R, TH, VEC, UNIT>(xp, op, H, Wd, r0, S, c, outl, tv, sv, rdv,
                                                     th, rdh, mode, cval, ring);
    }
  }
}

// An entry point: NAME(x, out, outer, H, Wd, tv, sv, dv, th, dh, mode, cval, nst, sb, ex),
// weights by value; TH threads per block (the __launch_bounds__).
#define NDI_STREAM2(NAME, NV, NH, SH, R, TH, VEC, UNIT)                                         \
  extern "C" __global__ void __launch_bounds__(TH)                                              \
      NAME(const float* __restrict__ x, float* __restrict__ out, i64 outer, i64 H, i64 Wd,      \
           NdiTaps tv, int sv, W dv, NdiTaps th, W dh, int mode, W cval, i64 nst, i64 sb,       \
           i64 ex) {                                                                            \
    ndi_stream2_body<NV, NH, SH, R, TH, VEC, UNIT>(x, out, outer, H, Wd, tv, sv, dv, th, dh,    \
                                                   mode, cval, nst, sb, ex);                    \
  }

#endif  // NDI_WF32
