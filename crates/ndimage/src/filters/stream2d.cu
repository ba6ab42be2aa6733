// Streaming fused separable 2-D weighted sums over the last two axes, f32 (appended after
// filters.cu: needs W = float, NDI_WF32, NdiTaps, ndi_map_index and the NDI_* mode codes).
//
// The arithmetic of ndi_sep2f{NB} of sep2d.cu with the vertical pass first (every mode): the
// vertical sum over nv input rows, times 1 / dv (in the constant modes, cval where the column
// lies outside the plane, as the second sequential pass reads it); then the horizontal sum over
// nh of those intermediates, times 1 / dh. Weighted sums add in tap order (bit-identical to
// ndi_sep2f); unit windows (UNIT) share sums between neighbouring outputs (ndi_s2_sum4: the
// same values in another order, never running sums, so no output carries another window's
// values or rounding).
// A C-contiguous array viewed as (outer, H, Wd):
//   - a block's TH / 32 warps share one column band: 128 columns from 120 k - 4 on, of which
//     lanes 1..30 store the 120 of k (overlapping bands); a lane owns 4 consecutive columns and
//     the horizontal neighbours' intermediates come from the next lanes (__shfl_up/down), so
//     the horizontal halo (SH columns on the left, NH - 1 - SH on the right) must fit in one
//     lane (<= 4 each);
//   - a block takes a strip of L output rows (the plane's rows split into nst strips of sb or
//     sb + 1 rows, the first ex of them longer; nst, sb, ex launch arguments) and copies its
//     L + NV - 1 input rows once into a shared tile (cp.async; row u of the band at
//     tile[u * 32 + lane], 16 bytes, so every access is conflict-free): rows and columns mapped
//     by the mode, cval written directly in the constant modes; the vertical halo of a strip
//     is read once per block, not once per warp;
//   - after a barrier, the warps split the strip into consecutive sub-strips and walk them in
//     steps of 4 output rows, each step reading its NV + 3 rows from the tile once. A block
//     whose rows and columns all lie inside the plane takes the lean walk; the others also skip
//     rows past H and columns past Wd and put cval in the intermediates of columns outside the
//     plane in the constant modes;
//   - UNIT: every weight of both passes is 1 and the window centred (uniform filters): per
//     column the 4 rows' vertical sums, per row the 4 columns' horizontal sums, each through
//     ndi_s2_sum4 (N + 6 additions for 4 sums instead of 4 (N - 1)). The vertical sums are
//     scaled by __fmul_rn: a plain product could be contracted into the horizontal additions.
// Launch: blockDim.x = TH, dynamic shared memory (sb + NV) * 512 bytes, grid.x = ceil(Wd / 120),
// grid.y <= 65535 (grid-stride over the nst strips), grid.z <= 65535 (grid-stride over the
// outer planes). VEC requires Wd % 4 == 0 and 16-byte aligned x and out. sv in [0, NV),
// SH <= 4 and NH - 1 - SH <= 4.
// Entry points: NDI_STREAM2 at the end of this file, instantiated by engine.rs (stream2_entries).
#ifdef NDI_WF32

__device__ __forceinline__ void ndi_s2_cp16(unsigned s, const float* g) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(s), "l"(g) : "memory");
}
__device__ __forceinline__ void ndi_s2_cp4(unsigned s, const float* g) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(s), "l"(g) : "memory");
}
// Waits until this thread's copies have landed.
__device__ __forceinline__ void ndi_s2_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

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

// The mapped row of a strip at the plane's edge (not inlined: rare, and one copy of the code).
__device__ __noinline__ i64 ndi_s2_map_row(i64 i, i64 n, int mode) { return ndi_map_index(i, n, mode); }

// The horizontal pass of one output row and its store: vs holds the lane's 4 vertical sums
// (columns c .. c + 3); a[o] = (sum over j of th.w[j] * intermediate(c + o + j - SH)) / dh.
template <int NH, int SH>
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
      a[o] += th.w[j] * v;
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

// o[k] = v[k] + ... + v[k + N - 1] for k = 0 .. 3 (v holds N + 3 values), the four windows'
// sums sharing their middle v[3 .. N - 1] and two pairs: N + 6 additions instead of 4 (N - 1).
template <int N>
__device__ __forceinline__ void ndi_s2_sum4(const float* v, float* o) {
  const float a = v[1] + v[2], b = v[N] + v[N + 1];
  if constexpr (N == 3) {
    o[0] = v[0] + a;
    o[1] = a + v[3];
    o[2] = v[2] + b;
    o[3] = b + v[5];
  } else {
    float m = v[3];
#pragma unroll
    for (int j = 4; j < N; ++j) m += v[j];
    o[0] = m + (v[0] + a);
    o[1] = m + (a + v[N]);
    o[2] = m + (v[2] + b);
    o[3] = m + (b + v[N + 2]);
  }
}

// Four output rows t .. t + 3 of a warp's walk (TAIL: only those below S, and the tile rows
// clamped to the walk's last, S + NV - 2); walk row u at tile[u * 32]. The NV + 3 rows are read
// from the tile once per step; output row t + q sums tile rows t + q .. t + q + NV - 1.
// GEN: rows past H skipped, columns past Wd not stored, cval intermediates.
template <int NV, int NH, int SH, bool VEC, bool UNIT, bool GEN, bool TAIL>
__device__ __forceinline__ void ndi_s2_step(const float4* tile, float*& sp, i64& r, int t, int S,
                                            i64 H, i64 Wd, i64 c, bool outl, bool cfix,
                                            const i64* ci, W cval, const NdiTaps& tv, W rdv,
                                            const NdiTaps& th, W rdh) {
  constexpr int P = NV + 3;
  static_assert(!UNIT || (NH == NV && SH == (NV - 1) / 2), "unit windows are centred");
  W vs[4][4];  // the vertical sums: [output row][column]
  {
    float v[P][4];
#pragma unroll
    for (int u = 0; u < P; ++u) {
      const float4 q = tile[(TAIL ? min(t + u, S + NV - 2) : t + u) * 32];
      v[u][0] = q.x;
      v[u][1] = q.y;
      v[u][2] = q.z;
      v[u][3] = q.w;
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      W o[4];
      if constexpr (UNIT) {
        float col[P];
#pragma unroll
        for (int u = 0; u < P; ++u) col[u] = v[u][k];
        ndi_s2_sum4<NV>(col, o);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          o[q] = (W)0;
#pragma unroll
          for (int j = 0; j < NV; ++j) o[q] += tv.w[j] * v[q + j][k];
        }
      }
#pragma unroll
      for (int q = 0; q < 4; ++q) vs[q][k] = __fmul_rn(o[q], rdv);
    }
  }
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    if (TAIL && t + q >= S) break;
    if (GEN && cfix) {
      // a column outside the plane: the intermediate is cval (its vertical line is outside)
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (ci[k] < 0) vs[q][k] = cval;
    }
    W a[4];
    if constexpr (UNIT) {
      constexpr int HW = (NV - 1) / 2;
      float h[P];  // columns c - HW .. c + 3 + HW
#pragma unroll
      for (int m = 0; m < HW; ++m) h[m] = __shfl_up_sync(0xffffffffu, vs[q][4 - HW + m], 1);
#pragma unroll
      for (int m = 0; m < 4; ++m) h[HW + m] = vs[q][m];
#pragma unroll
      for (int m = 0; m < HW; ++m) h[HW + 4 + m] = __shfl_down_sync(0xffffffffu, vs[q][m], 1);
      ndi_s2_sum4<NV>(h, a);
#pragma unroll
      for (int k = 0; k < 4; ++k) a[k] = a[k] * rdh;
    } else {
      ndi_s2_hsum<NH, SH>(vs[q], th, rdh, a);
    }
    if (!GEN) {
      if (outl) ndi_s2_st4<VEC>(sp, a);
    } else if (outl && r < H) {
      if (c + 4 <= Wd) {
        ndi_s2_st4<VEC>(sp, a);
      } else {
#pragma unroll
        for (int k = 0; k < 4; ++k)
          if (c + k < Wd) sp[k] = a[k];
      }
    }
    sp += Wd;
    ++r;
  }
}

// A warp's walk over S output rows r .. r + S - 1 from its rows of the shared tile: whole steps
// of 4 rows, then the rest.
template <int NV, int NH, int SH, bool VEC, bool UNIT, bool GEN>
__device__ __forceinline__ void ndi_s2_walk(const float4* tile, float* __restrict__ op, i64 H,
                                            i64 Wd, i64 r, int S, i64 c, bool outl, bool cfix,
                                            const i64* ci, W cval, const NdiTaps& tv, W rdv,
                                            const NdiTaps& th, W rdh) {
  float* sp = op + r * Wd + c;
  int t = 0;
#pragma unroll 1
  for (; t + 4 <= S; t += 4)
    ndi_s2_step<NV, NH, SH, VEC, UNIT, GEN, false>(tile, sp, r, t, S, H, Wd, c, outl, cfix, ci,
                                                   cval, tv, rdv, th, rdh);
  if (t < S)
    ndi_s2_step<NV, NH, SH, VEC, UNIT, GEN, true>(tile, sp, r, t, S, H, Wd, c, outl, cfix, ci,
                                                  cval, tv, rdv, th, rdh);
}

// The kernel body (see the head of this file). The weights: tv.w[0 .. NV), th.w[0 .. NH).
template <int NV, int NH, int SH, int TH, bool VEC, bool UNIT>
__device__ __forceinline__ void ndi_stream2_body(const float* __restrict__ x,
                                                 float* __restrict__ out, i64 outer, i64 H,
                                                 i64 Wd, const NdiTaps& tv, int sv, W dv,
                                                 const NdiTaps& th, W dh, int mode, W cval,
                                                 i64 nst, i64 sb, i64 ex) {
  constexpr int NW = TH / 32;
  extern __shared__ float4 ndi_s2_tile[];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const i64 cw = (i64)blockIdx.x * 120 - 4;
  if (cw + 4 >= Wd) return;  // the whole block
  const i64 c = cw + 4 * lane;
  const bool outl = lane >= 1 && lane <= 30 && c < Wd;
  const bool cf = c >= 0 && c + 4 <= Wd;  // the lane's 4 columns inside the plane
  const bool cmode = mode == NDI_CONSTANT || mode == NDI_GRID_CONSTANT;
  i64 ci[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) ci[k] = ndi_map_index(c + k, Wd, mode);
  const bool cfix = cmode && !cf;  // some intermediate of the lane is cval
  const bool cf_warp = cw >= 0 && cw + 128 <= Wd;  // every lane's columns inside
  const W rdv = (W)1 / dv, rdh = (W)1 / dh;
  const unsigned s0 = (unsigned)__cvta_generic_to_shared(ndi_s2_tile) + lane * 16;
  float4* tile0 = ndi_s2_tile + lane;
  for (i64 plane = blockIdx.z; plane < outer; plane += gridDim.z) {
    const float* xp = x + plane * H * Wd;
    float* op = out + plane * H * Wd;
    for (i64 strip = blockIdx.y; strip < nst; strip += gridDim.y) {
      const i64 rb = strip * sb + (strip < ex ? strip : ex);
      const int L = (int)sb + (strip < ex ? 1 : 0);
      const int NI = L + NV - 1;
      const bool rows_in = rb - sv >= 0 && rb - sv + NI <= H;
      for (int u = w; u < NI; u += NW) {
        const unsigned s = s0 + u * 512;
        float* dp = reinterpret_cast<float*>(tile0 + u * 32);
        const i64 ir = rows_in ? rb - sv + u : ndi_s2_map_row(rb - sv + u, H, mode);
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
      }
      ndi_s2_wait_all();
      __syncthreads();
      const int Sw = L / NW + (w < L % NW ? 1 : 0);
      const int u0 = w * (L / NW) + (w < L % NW ? w : L % NW);  // the warp's first row
      if (rows_in && cf_warp)
        ndi_s2_walk<NV, NH, SH, VEC, UNIT, false>(tile0 + u0 * 32, op, H, Wd, rb + u0, Sw, c,
                                                  outl, false, ci, cval, tv, rdv, th, rdh);
      else
        ndi_s2_walk<NV, NH, SH, VEC, UNIT, true>(tile0 + u0 * 32, op, H, Wd, rb + u0, Sw, c,
                                                 outl, cfix, ci, cval, tv, rdv, th, rdh);
      __syncthreads();  // the tile is rewritten by the next strip
    }
  }
}

// An entry point: NAME(x, out, outer, H, Wd, tv, sv, dv, th, dh, mode, cval, nst, sb, ex),
// weights by value; TH threads per block (the __launch_bounds__).
#define NDI_STREAM2(NAME, NV, NH, SH, TH, VEC, UNIT)                                            \
  extern "C" __global__ void __launch_bounds__(TH)                                              \
      NAME(const float* __restrict__ x, float* __restrict__ out, i64 outer, i64 H, i64 Wd,      \
           NdiTaps tv, int sv, W dv, NdiTaps th, W dh, int mode, W cval, i64 nst, i64 sb,       \
           i64 ex) {                                                                            \
    ndi_stream2_body<NV, NH, SH, TH, VEC, UNIT>(x, out, outer, H, Wd, tv, sv, dv, th, dh, mode, \
                                                cval, nst, sb, ex);                             \
  }

#endif  // NDI_WF32
