// Stable LSD radix sort of (key, payload) pairs (cusci-ndimage sort.rs), one 8-bit digit per
// pass: per-tile digit histograms (ndi_sort_hist), their exclusive scan (the core's cumsum, digit
// major: hist[d * nblocks + b]), and a stable scatter (ndi_sort_scatter). NDI_SK / NDI_SV: the key
// and payload types (unsigned int or unsigned long long), defined by sort.rs.
//
// A tile is NDI_SORT_TILE consecutive elements handled by one block of 256 threads; warp w owns
// the w-th run of 32 * NDI_SORT_ITEMS consecutive elements of the tile and reads it in rounds of
// 32 consecutive elements (coalesced). Ranks are given round by round, in lane order within a
// round (__match_any_sync groups the lanes of equal digits), so equal digits keep their input
// order: within a warp by the rounds, across warps by the per-warp prefix, across tiles by the
// digit-major scan. That is the stability LSD radix sorting needs.

#define NDI_SORT_THREADS 256
#define NDI_SORT_WARPS 8
#define NDI_SORT_ITEMS 16
#define NDI_SORT_TILE (NDI_SORT_THREADS * NDI_SORT_ITEMS)

// hist[d * nblocks + b]: how many elements of tile b have digit d (bits shift..shift+8 of the key)
extern "C" __global__ void __launch_bounds__(NDI_SORT_THREADS)
ndi_sort_hist(const NDI_SK* __restrict__ keys, i64 n, int shift, i64* __restrict__ hist,
              i64 nblocks) {
  __shared__ unsigned int cnt[256];
  cnt[threadIdx.x] = 0u;
  __syncthreads();
  const i64 base = (i64)blockIdx.x * NDI_SORT_TILE;
  for (int j = threadIdx.x; j < NDI_SORT_TILE; j += NDI_SORT_THREADS) {
    const i64 i = base + j;
    if (i < n) atomicAdd(&cnt[(unsigned int)(keys[i] >> shift) & 255u], 1u);
  }
  __syncthreads();
  hist[(i64)threadIdx.x * nblocks + blockIdx.x] = (i64)cnt[threadIdx.x];
}

// One stable scatter pass. incl: the inclusive scan of hist (so incl - hist is the exclusive
// one: where tile b's elements of digit d start in the output). vin null: the payload is the
// input position (an iota, for the first pass of an argsort).
extern "C" __global__ void __launch_bounds__(NDI_SORT_THREADS)
ndi_sort_scatter(const NDI_SK* __restrict__ kin, const NDI_SV* __restrict__ vin,
                 NDI_SK* __restrict__ kout, NDI_SV* __restrict__ vout, i64 n, int shift,
                 const i64* __restrict__ hist, const i64* __restrict__ incl, i64 nblocks) {
  __shared__ unsigned int wcnt[NDI_SORT_WARPS][256];
  __shared__ i64 gbase[256];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  for (int j = threadIdx.x; j < NDI_SORT_WARPS * 256; j += NDI_SORT_THREADS)
    wcnt[j >> 8][j & 255] = 0u;
  {
    const i64 h = (i64)threadIdx.x * nblocks + blockIdx.x;
    gbase[threadIdx.x] = incl[h] - hist[h];
  }
  __syncthreads();
  const i64 wbase = (i64)blockIdx.x * NDI_SORT_TILE + (i64)warp * (32 * NDI_SORT_ITEMS);
  const unsigned int lt = (1u << lane) - 1u;
  NDI_SK k[NDI_SORT_ITEMS];
  NDI_SV v[NDI_SORT_ITEMS];
  unsigned int r[NDI_SORT_ITEMS];
#pragma unroll
  for (int it = 0; it < NDI_SORT_ITEMS; ++it) {
    const i64 i = wbase + it * 32 + lane;
    unsigned int d = 256u;  // past the end: no digit
    k[it] = (NDI_SK)0;
    v[it] = (NDI_SV)0;
    r[it] = 0u;
    if (i < n) {
      k[it] = kin[i];
      v[it] = vin ? vin[i] : (NDI_SV)i;
      d = (unsigned int)(k[it] >> shift) & 255u;
    }
    const unsigned int peers = __match_any_sync(0xffffffffu, d);
    unsigned int before = 0u;
    if (d < 256u) before = wcnt[warp][d];
    __syncwarp();
    if (d < 256u) {
      r[it] = before + (unsigned int)__popc(peers & lt);
      // the lowest lane of the group advances the warp's count of this digit
      if ((peers & lt) == 0u) wcnt[warp][d] = before + (unsigned int)__popc(peers);
    }
    __syncwarp();
  }
  __syncthreads();
  {
    // per digit: the warps' counts become exclusive prefixes over the warps
    const int d = threadIdx.x;
    unsigned int run = 0u;
#pragma unroll
    for (int w = 0; w < NDI_SORT_WARPS; ++w) {
      const unsigned int c = wcnt[w][d];
      wcnt[w][d] = run;
      run += c;
    }
  }
  __syncthreads();
#pragma unroll
  for (int it = 0; it < NDI_SORT_ITEMS; ++it) {
    const i64 i = wbase + it * 32 + lane;
    if (i < n) {
      const unsigned int d = (unsigned int)(k[it] >> shift) & 255u;
      const i64 pos = gbase[d] + (i64)wcnt[warp][d] + (i64)r[it];
      kout[pos] = k[it];
      vout[pos] = v[it];
    }
  }
}

// v[i] = i (the payload of an argsort that needs no pass)
extern "C" __global__ void ndi_sort_iota(NDI_SV* __restrict__ v, i64 n) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x)
    v[i] = (NDI_SV)i;
}
