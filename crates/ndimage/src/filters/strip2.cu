// Separable f32 pairs over the last two axes in one pass and no shared memory (appended to
// sep2d.cu: needs NdiTaps, ndi_map_index; compiled for f32 only, NDI_WF32).
//
// For a C-contiguous f32 array viewed as (outer, H, Wd) with Wd a multiple of 4 (16-byte rows),
// a vertical window of N taps tv (divisor dv) and a horizontal window of N taps th (divisor dh),
// both centred (shift (N - 1) / 2, SciPy's origin 0 for odd sizes):
//   h(r, c)   = (sum_j th[j] x(r, c + j - S)) * (1 / dh)
//   out(r, c) = (sum_k tv[k] h(r + k - S, c)) * (1 / dv),          S = (N - 1) / 2,
// rows and columns outside the plane mapped by the mode (the constant modes only with cval == 0,
// where both pass orders give the same sums; the caller routes other cases to ndi_sep2f*).
// A thread owns 4 adjacent columns of a strip of `rs` rows: it filters every input row the strip
// needs horizontally (three 16-byte loads cover the window of up to 9 taps; the overlap with the
// neighbouring threads comes from L1), keeps the last N filtered rows in registers and writes
// each output row once with a 16-byte store. Every input row is thus read from DRAM about once
// (the N - 1 halo rows of a strip from L2), with no tile staging: a plain streaming pass, at
// the bandwidth of a copy of the same bytes (H200, sobel on f32[4096, 4096]: 0.051 ms against
// 0.048 for a copy, 0.072 for the shared-memory tiles of ndi_sep2f3).
// The sums run in tap order (horizontal pass first: the same arithmetic as SciPy's passes up to
// the order of the two passes, i.e. rounding).
#ifdef NDI_WF32

// The 12 values x(row, c - 4 .. c + 8) of one row; positions outside the row mapped by the mode.
__device__ __forceinline__ void ndi_strip_row12(const float* __restrict__ row, i64 c, i64 Wd, int mode,
                                                float* v) {
  if (c >= 4 && c + 8 <= Wd) {
#pragma unroll
    for (int g = 0; g < 3; ++g) {
      const float4 q = __ldg(reinterpret_cast<const float4*>(row + c - 4 + 4 * g));
      v[4 * g] = q.x;
      v[4 * g + 1] = q.y;
      v[4 * g + 2] = q.z;
      v[4 * g + 3] = q.w;
    }
  } else {
#pragma unroll
    for (int k = 0; k < 12; ++k) {
      const i64 m = ndi_map_index(c - 4 + k, Wd, mode);
      v[k] = m < 0 ? 0.0f : __ldg(row + m);
    }
  }
}

// The horizontal window of row `rr` (an index of the plane's rows, mapped here) for columns c..c+3.
template <int N>
__device__ __forceinline__ float4 ndi_strip_h(const float* __restrict__ plane, i64 rr, i64 H, i64 Wd,
                                              i64 c, const NdiTaps& th, float rdh, int mode) {
  const i64 m = ndi_map_index(rr, H, mode);
  if (m < 0) return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float v[12];
  ndi_strip_row12(plane + m * Wd, c, Wd, mode, v);
  constexpr int S = (N - 1) / 2;
  float a[4];
#pragma unroll
  for (int o = 0; o < 4; ++o) {
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < N; ++j) s += th.w[j] * v[4 - S + o + j];
    a[o] = s * rdh;
  }
  return make_float4(a[0], a[1], a[2], a[3]);
}

template <int N>
__device__ __forceinline__ void ndi_strip2_body(const float* __restrict__ x, float* __restrict__ out,
                                                i64 outer, i64 H, i64 Wd, const NdiTaps& tv, float dv,
                                                const NdiTaps& th, float dh, int mode, int rs) {
  constexpr int S = (N - 1) / 2;
  const i64 c = ((i64)blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (c >= Wd) return;
  const float rdv = 1.0f / dv, rdh = 1.0f / dh;
  const i64 r0 = (i64)blockIdx.y * rs;
  const i64 r1 = min(H, r0 + rs);
  for (i64 p = blockIdx.z; p < outer; p += gridDim.z) {
    const float* plane = x + p * H * Wd;
    float4 ring[N];
#pragma unroll
    for (int k = 0; k < N - 1; ++k) ring[k] = ndi_strip_h<N>(plane, r0 - S + k, H, Wd, c, th, rdh, mode);
    for (i64 r = r0; r < r1; ++r) {
      ring[N - 1] = ndi_strip_h<N>(plane, r + N - 1 - S, H, Wd, c, th, rdh, mode);
      float4 o = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
      for (int k = 0; k < N; ++k) {
        o.x += tv.w[k] * ring[k].x;
        o.y += tv.w[k] * ring[k].y;
        o.z += tv.w[k] * ring[k].z;
        o.w += tv.w[k] * ring[k].w;
      }
      o.x *= rdv;
      o.y *= rdv;
      o.z *= rdv;
      o.w *= rdv;
      __stcs(reinterpret_cast<float4*>(out + (p * H + r) * Wd + c), o);
#pragma unroll
      for (int k = 0; k < N - 1; ++k) ring[k] = ring[k + 1];
    }
  }
}

#define NDI_STRIP2(N)                                                                             \
  extern "C" __global__ void __launch_bounds__(128) ndi_strip2_##N(                               \
      const float* __restrict__ x, float* __restrict__ out, i64 outer, i64 H, i64 Wd, NdiTaps tv, \
      float dv, NdiTaps th, float dh, int mode, int rs) {                                         \
    ndi_strip2_body<N>(x, out, outer, H, Wd, tv, dv, th, dh, mode, rs);                           \
  }
NDI_STRIP2(3)
NDI_STRIP2(5)
NDI_STRIP2(7)
NDI_STRIP2(9)
#endif  // NDI_WF32
