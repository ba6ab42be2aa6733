// State recurrence of the LTI time responses (lsim, dlsim, impulse, step, dimpulse, dstep).
// Prepended defines: T (float or double), NAME(x). One thread per signal of the batch, walking
// time sequentially: x[i] = Ad x[i-1] + B0 u[i-1] + B1 u[i] (B1 only with use_b1), then
// y[i] = C x[i] + D u[i]. The coefficient matrices are double, row-major; the previous state is
// read back from the output array x (written by the same thread). Sums accumulate in double
// without FMA contraction (__dmul_rn/__dadd_rn), in the CPU reference's order.
__device__ __forceinline__ double madd(double s, double a, double b) {
  return __dadd_rn(s, __dmul_rn(a, b));
}

extern "C" __global__ void NAME(lsim)(const double* __restrict__ ad, const double* __restrict__ b0,
                                      const double* __restrict__ b1, const double* __restrict__ c,
                                      const double* __restrict__ d, const double* __restrict__ x0,
                                      const T* __restrict__ u, T* __restrict__ x,
                                      T* __restrict__ y, i64 batch, i64 nt, int ns, int ni,
                                      int no, int use_b1) {
  for (i64 bi = blockIdx.x * (i64)blockDim.x + threadIdx.x; bi < batch;
       bi += (i64)gridDim.x * blockDim.x) {
    const T* ub = u + bi * nt * ni;
    T* xb = x + bi * nt * ns;
    T* yb = y + bi * nt * no;
    for (int j = 0; j < ns; ++j) xb[j] = (T)x0[j];
    for (i64 i = 1; i < nt; ++i) {
      const T* xp = xb + (i - 1) * ns;
      const T* up = ub + (i - 1) * ni;
      const T* uc = ub + i * ni;
      T* xc = xb + i * ns;
      for (int j = 0; j < ns; ++j) {
        double s = 0.0;
        for (int k = 0; k < ns; ++k) s = madd(s, ad[j * ns + k], (double)xp[k]);
        for (int k = 0; k < ni; ++k) s = madd(s, b0[j * ni + k], (double)up[k]);
        if (use_b1)
          for (int k = 0; k < ni; ++k) s = madd(s, b1[j * ni + k], (double)uc[k]);
        xc[j] = (T)s;
      }
    }
    for (i64 i = 0; i < nt; ++i) {
      const T* xc = xb + i * ns;
      const T* uc = ub + i * ni;
      for (int q = 0; q < no; ++q) {
        double s = 0.0;
        for (int k = 0; k < ns; ++k) s = madd(s, c[q * ns + k], (double)xc[k]);
        for (int k = 0; k < ni; ++k) s = madd(s, d[q * ni + k], (double)uc[k]);
        yb[i * no + q] = (T)s;
      }
    }
  }
}

// dlsim's input resampling: out[b, s, k] = u[b, idx[s], k] h[2s] + u[b, idx[s]+1, k] h[2s+1]
// (the second index clamped to the last sample), in double as the CPU; one thread per output.
extern "C" __global__ void NAME(interp)(const T* __restrict__ u, const i64* __restrict__ idx,
                                        const double* __restrict__ h, T* __restrict__ out,
                                        i64 batch, i64 nt, i64 ns, int ni) {
  const i64 total = batch * ns * ni;
  for (i64 e = blockIdx.x * (i64)blockDim.x + threadIdx.x; e < total;
       e += (i64)gridDim.x * blockDim.x) {
    const int k = (int)(e % ni);
    const i64 s = (e / ni) % ns;
    const i64 b = e / (ni * ns);
    const i64 i0 = idx[s];
    const i64 i1 = i0 + 1 < nt ? i0 + 1 : nt - 1;
    const double v = __dadd_rn(__dmul_rn((double)u[(b * nt + i0) * ni + k], h[2 * s]),
                               __dmul_rn((double)u[(b * nt + i1) * ni + k], h[2 * s + 1]));
    out[e] = (T)v;
  }
}
