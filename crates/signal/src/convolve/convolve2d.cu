// 2-D convolution and correlation. Prepended defines: T, TZERO, NAME(x), TMAKE(re, im).
// The image a is C-contiguous (M, N); the kernel k is (P, Q). Output (r, c) is the point
// (R, C) = (r + offr, c + offc) of the full convolution with w:
//   out[r, c] = sum_{p, q} w[p, q] * ae(R - p, C - q),
// w = k (convolution) or w[p, q] = conj(k[P-1-p, Q-1-q]) (correlation, flip = 1), ae the image
// extended by the boundary (0 fill with `fill`, 1 wrap, 2 symmetric).

#define C2_TILE 32
#define C2_ROWS 8

__device__ __forceinline__ i64 c2_pmod(i64 a, i64 m) {
  i64 r = a % m;
  return r < 0 ? r + m : r;
}

__device__ __forceinline__ T c2_at(const T* __restrict__ a, i64 M, i64 N, i64 r, i64 c, int bd,
                                   T fill) {
  if (r >= 0 && r < M && c >= 0 && c < N) return a[r * N + c];
  if (bd == 0) return fill;
  if (bd == 1) {
    r = c2_pmod(r, M);
    c = c2_pmod(c, N);
  } else {
    i64 j = c2_pmod(r, 2 * M);
    r = j < M ? j : 2 * M - 1 - j;
    j = c2_pmod(c, 2 * N);
    c = j < N ? j : 2 * N - 1 - j;
  }
  return a[r * N + c];
}

__device__ __forceinline__ T c2_w(const T* __restrict__ k, i64 P, i64 Q, i64 p, i64 q, int flip) {
  return flip ? cusci_conj(k[(P - 1 - p) * Q + (Q - 1 - q)]) : k[p * Q + q];
}

// Tiled: a block of (C2_TILE, C2_ROWS) threads computes a C2_TILE x C2_TILE output tile from
// shared memory holding the (C2_TILE+P-1) x (C2_TILE+Q-1) input tile and the P x Q weights.
extern "C" __global__ void NAME(tiled)(const T* __restrict__ a, i64 M, i64 N,
                                       const T* __restrict__ k, i64 P, i64 Q, int flip,
                                       T* __restrict__ out, i64 OM, i64 ON, i64 offr, i64 offc,
                                       int bd, double fill_re, double fill_im) {
  extern __shared__ __align__(16) unsigned char c2_smem[];
  T* ws = reinterpret_cast<T*>(c2_smem);
  const i64 SW = C2_TILE + Q - 1, SH = C2_TILE + P - 1;
  T* ts = ws + P * Q;
  const T fill = TMAKE(fill_re, fill_im);
  const int tid = threadIdx.y * C2_TILE + threadIdx.x;
  const int nth = C2_TILE * C2_ROWS;
  for (i64 j = tid; j < P * Q; j += nth) ws[j] = c2_w(k, P, Q, j / Q, j % Q, flip);
  const i64 r0 = (i64)blockIdx.y * C2_TILE, c0 = (i64)blockIdx.x * C2_TILE;
  const i64 ar0 = r0 + offr - (P - 1), ac0 = c0 + offc - (Q - 1);
  for (i64 j = tid; j < SH * SW; j += nth) {
    const i64 y = j / SW, x = j % SW;
    ts[j] = c2_at(a, M, N, ar0 + y, ac0 + x, bd, fill);
  }
  __syncthreads();
  const i64 c = c0 + threadIdx.x;
  for (int rr = threadIdx.y; rr < C2_TILE; rr += C2_ROWS) {
    const i64 r = r0 + rr;
    if (r >= OM || c >= ON) continue;
    T acc = TZERO;
    for (i64 p = 0; p < P; ++p) {
      const T* trow = ts + (rr + P - 1 - p) * SW + threadIdx.x + Q - 1;
      const T* wrow = ws + p * Q;
      for (i64 q = 0; q < Q; ++q) acc = acc + wrow[q] * trow[-q];
    }
    out[r * ON + c] = acc;
  }
}

// Untiled (kernels too large for shared memory): one thread per output, grid-stride.
extern "C" __global__ void NAME(direct)(const T* __restrict__ a, i64 M, i64 N,
                                        const T* __restrict__ k, i64 P, i64 Q, int flip,
                                        T* __restrict__ out, i64 OM, i64 ON, i64 offr, i64 offc,
                                        int bd, double fill_re, double fill_im) {
  const T fill = TMAKE(fill_re, fill_im);
  const i64 total = OM * ON;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    const i64 R = idx / ON + offr, C = idx % ON + offc;
    T acc = TZERO;
    for (i64 p = 0; p < P; ++p)
      for (i64 q = 0; q < Q; ++q)
        acc = acc + c2_w(k, P, Q, p, q, flip) * c2_at(a, M, N, R - p, C - q, bd, fill);
    out[idx] = acc;
  }
}
