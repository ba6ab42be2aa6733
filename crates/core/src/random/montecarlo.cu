// Monte Carlo price of a European call in one fused kernel: Philox normals, the terminal price,
// the payoff, and per-block sums of payoff and payoff² (f64), written to partials[2·block].
// Path p uses standard normal number p of Generator::new(seed) (stream 0), bit-identical to the CPU.
//
// The ziggurat's first test (99.77% of draws) runs in the main loop with the (k, w) table packed in
// shared memory; paths whose draw fails it are queued per warp (cusci_zig_enqueue) and priced
// together when the queue fills and at the end, so a rare rejection never stalls a divergent warp.
// The order of the f64 sums depends only on the launch shape (fixed per GPU): run-to-run identical.

__device__ __forceinline__ void cusci_mc_accumulate(float z, float s0, float drift, float vol, float strike,
                                                    double& s, double& s2) {
  const float st = __fmul_rn(s0, cusci_exp_f32(__fadd_rn(drift, __fmul_rn(vol, z))));
  const float p = __fsub_rn(st, strike);
  const double pd = p > 0.0f ? (double)p : 0.0;
  s = __dadd_rn(s, pd);
  s2 = __dadd_rn(s2, __dmul_rn(pd, pd));
}

extern "C" __global__ void __launch_bounds__(256) cusci_mc_european_call(double* __restrict__ partials,
                                                  const unsigned long long paths,
                                                  const unsigned long long seed, const float s0,
                                                  const float drift, const float vol,
                                                  const float strike) {
  __shared__ uint2 kw[CUSCI_ZIG_LAYERS_F32];
  __shared__ cusci_u64 qs[8u * CUSCI_ZIG_WARP_QUEUE];
  for (unsigned int t = threadIdx.x; t < CUSCI_ZIG_LAYERS_F32; t += blockDim.x)
    kw[t] = make_uint2(cusci_zig_k_f32[t], cusci_zig_w_f32[t]);
  __syncthreads();
  double s = 0.0, s2 = 0.0;
  const unsigned int lane = threadIdx.x & 31u;
  cusci_u64* q = qs + (threadIdx.x >> 5) * CUSCI_ZIG_WARP_QUEUE;
  unsigned int qn = 0u;
  const cusci_u64 nblk = (paths + 3ULL) >> 2;
  const uint2 zkey = cusci_zig_key(seed, 0ULL);
  const uint2 key = cusci_seed_key(seed);
  // warp-uniform loop: the lanes of a warp stay together for the queue's shuffles
  for (cusci_u64 base = cusci_thread_index() - lane; base < nblk; base += cusci_thread_stride()) {
    const cusci_u64 b = base + lane;
    const uint4 w4 = cusci_philox4x32_10(make_uint4((unsigned int)b, (unsigned int)(b >> 32), 0u, 0u), key);
    const unsigned int w[4] = {w4.x, w4.y, w4.z, w4.w};
    unsigned int rej = 0u;
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const unsigned int l = w[c] & CUSCI_ZIG_LAYER_MASK_F32, j = w[c] >> CUSCI_ZIG_J_SHIFT_F32;
      const uint2 e = kw[l];
      const float x = __fmul_rn(__uint2float_rn(j), __uint_as_float(e.y));
      const bool live = (b << 2) + (cusci_u64)c < paths;
      if (live && j < e.x) cusci_mc_accumulate((w[c] & CUSCI_ZIG_SIGN_F32) != 0u ? -x : x, s0, drift, vol, strike, s, s2);
      rej |= (live && j >= e.x ? 1u : 0u) << c;
    }
    if (__any_sync(0xffffffffu, rej != 0u)) {
      qn = cusci_zig_enqueue(q, qn, rej, b << 2, lane);
      if (qn >= CUSCI_ZIG_WARP_FLUSH) {
        __syncwarp();
        for (unsigned int t = lane; t < qn; t += 32u) {
          const cusci_u64 e = q[t];
          cusci_mc_accumulate(cusci_zig_slow_f32(cusci_raw_word(seed, 0ULL, e), zkey, e), s0, drift, vol,
                              strike, s, s2);
        }
        __syncwarp();
        qn = 0u;
      }
    }
  }
  __syncwarp();
  for (unsigned int t = lane; t < qn; t += 32u) {
    const cusci_u64 e = q[t];
    cusci_mc_accumulate(cusci_zig_slow_f32(cusci_raw_word(seed, 0ULL, e), zkey, e), s0, drift, vol, strike, s,
                        s2);
  }
  // block reduction: warps by shuffle, then the first warp over the warp sums (fixed order)
  __shared__ double ws[32], ws2[32];
  for (int o = 16; o > 0; o >>= 1) {
    s += __shfl_down_sync(0xffffffffu, s, o);
    s2 += __shfl_down_sync(0xffffffffu, s2, o);
  }
  const unsigned int warp = threadIdx.x >> 5;
  if (lane == 0u) {
    ws[warp] = s;
    ws2[warp] = s2;
  }
  __syncthreads();
  if (warp == 0u) {
    const unsigned int nw = (blockDim.x + 31u) >> 5;
    s = lane < nw ? ws[lane] : 0.0;
    s2 = lane < nw ? ws2[lane] : 0.0;
    for (int o = 16; o > 0; o >>= 1) {
      s += __shfl_down_sync(0xffffffffu, s, o);
      s2 += __shfl_down_sync(0xffffffffu, s2, o);
    }
    if (lane == 0u) {
      partials[2 * blockIdx.x] = s;
      partials[2 * blockIdx.x + 1] = s2;
    }
  }
}
