// ShortTimeFFT (stft / istft of SciPy's class). Prepended defines: T (float or double, the
// real type), NAME(x); then ../block_sum.cuh (NAME(block_sum)). Complex arrays are read and
// written as (re, im) pairs of T; windows are (re, im) pairs of double.

__device__ __forceinline__ i64 NAME(fdiv)(i64 a, i64 b) {
  const i64 q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

__device__ __forceinline__ double2 NAME(ld)(const T* __restrict__ xr, int cplx, i64 i) {
  if (cplx) return make_double2((double)xr[2 * i], (double)xr[2 * i + 1]);
  return make_double2((double)xr[i], 0.0);
}

// The value at signal position i of the row xr (n samples) padded as NumPy's np.pad pads the
// crop x[i0 : i0 + lc]: pad 0 zeros, 1 edge, 2 reflect (even), 3 reflect odd. Iterated
// reflections in closed form: with P = lc - 1 the even extension has period 2P; the odd one
// satisfies v(u + 2P) = v(u) + 2 (c[P] - c[0]).
__device__ double2 NAME(padval)(const T* __restrict__ xr, int cplx, i64 i0, i64 lc, int pad,
                                i64 i) {
  i64 u = i - i0;
  if (u >= 0 && u < lc) return NAME(ld)(xr, cplx, i);
  if (pad == 0 || lc == 0) return make_double2(0.0, 0.0);
  if (pad == 1 || lc == 1) return NAME(ld)(xr, cplx, i0 + (u < 0 ? 0 : lc - 1));
  const i64 P = lc - 1;
  const i64 k = NAME(fdiv)(u, 2 * P);
  const i64 w = u - k * 2 * P;
  if (pad == 2) return NAME(ld)(xr, cplx, i0 + (w <= P ? w : 2 * P - w));
  const double2 c0 = NAME(ld)(xr, cplx, i0), cp = NAME(ld)(xr, cplx, i0 + P);
  double2 v;
  if (w <= P) {
    v = NAME(ld)(xr, cplx, i0 + w);
  } else {
    const double2 r = NAME(ld)(xr, cplx, i0 + 2 * P - w);
    v = make_double2(2.0 * cp.x - r.x, 2.0 * cp.y - r.y);
  }
  const double kk = 2.0 * (double)k;
  return make_double2(v.x + kk * (cp.x - c0.x), v.y + kk * (cp.y - c0.y));
}

// One block per frame r = b * pnum + s: the slice of m samples starting at signal position
// kstart + s * hop (padded as padval), detrended (0 none, 1 constant, 2 linear), multiplied by
// conj(win), zero-padded to mfft and rolled left by ps: out[r, j] = u[(j + ps) mod mfft].
// Real output (out_cplx = 0) keeps the real part. blockDim.x is a multiple of 32.
extern "C" __global__ void NAME(frames)(const T* __restrict__ x, int in_cplx, i64 n, i64 total,
                                        i64 pnum, i64 kstart, i64 hop, i64 m, i64 mfft, i64 i0,
                                        i64 lc, int pad, int detr, i64 ps,
                                        const double* __restrict__ win, int out_cplx,
                                        T* __restrict__ out) {
  __shared__ double sh[33];
  const double tbar = 0.5 * (double)(m - 1);
  const double mf = (double)m;
  const double stt = mf * (mf * mf - 1.0) / 12.0;
  for (i64 r = blockIdx.x; r < total; r += gridDim.x) {
    const i64 b = r / pnum, s = r - b * pnum;
    const T* xr = x + b * n * (in_cplx ? 2 : 1);
    const i64 base = kstart + s * hop;
    double mr = 0.0, mi = 0.0, sr = 0.0, si = 0.0;
    if (detr != 0) {
      double s0r = 0.0, s0i = 0.0, s1r = 0.0, s1i = 0.0;
      for (i64 k = threadIdx.x; k < m; k += blockDim.x) {
        const double2 v = NAME(padval)(xr, in_cplx, i0, lc, pad, base + k);
        const double t = (double)k - tbar;
        s0r += v.x;
        s0i += v.y;
        s1r += t * v.x;
        s1i += t * v.y;
      }
      mr = NAME(block_sum)(s0r, sh) / mf;
      if (in_cplx) mi = NAME(block_sum)(s0i, sh) / mf;
      if (detr == 2 && stt > 0.0) {
        sr = NAME(block_sum)(s1r, sh) / stt;
        if (in_cplx) si = NAME(block_sum)(s1i, sh) / stt;
      }
    }
    T* o = out + r * mfft * (out_cplx ? 2 : 1);
    for (i64 j = threadIdx.x; j < mfft; j += blockDim.x) {
      i64 k = j + ps;
      if (k >= mfft) k -= mfft;
      double vr = 0.0, vi = 0.0;
      if (k < m) {
        double2 v = NAME(padval)(xr, in_cplx, i0, lc, pad, base + k);
        const double t = (double)k - tbar;
        v.x -= mr + sr * t;
        v.y -= mi + si * t;
        const double wr = win[2 * k], wi = -win[2 * k + 1];
        vr = v.x * wr - v.y * wi;
        vi = v.x * wi + v.y * wr;
      }
      if (out_cplx) {
        o[2 * j] = (T)vr;
        o[2 * j + 1] = (T)vi;
      } else {
        o[j] = (T)vr;
      }
    }
  }
}

// (rows, pnum, nb) complex transforms -> (rows, F, pnum) complex: bin f from (f - shift) mod nb
// (fftshift for shift = nb / 2), bins lo <= f < hi multiplied by fac.
extern "C" __global__ void NAME(post)(const T* __restrict__ X, i64 rows, i64 pnum, i64 nb, i64 F,
                                      i64 shift, i64 lo, i64 hi, double fac, T* __restrict__ S) {
  const i64 total = rows * F * pnum;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    const i64 p = idx % pnum, f = (idx / pnum) % F, r = idx / (pnum * F);
    i64 src = f - shift;
    if (src < 0) src += nb;
    const double s = (f >= lo && f < hi) ? fac : 1.0;
    const i64 q = (r * pnum + p) * nb + src;
    S[2 * idx] = (T)((double)X[2 * q] * s);
    S[2 * idx + 1] = (T)((double)X[2 * q + 1] * s);
  }
}

// istft input (rows, F, Q) complex -> (rows, nq, F): slice qoff + qi, bin f from
// (f + shift) mod F (ifftshift for shift = F / 2), bins lo <= f < hi divided by fac.
extern "C" __global__ void NAME(pre)(const T* __restrict__ S, i64 rows, i64 F, i64 Q, i64 qoff,
                                     i64 nq, i64 shift, i64 lo, i64 hi, double fac,
                                     T* __restrict__ Y) {
  const i64 total = rows * nq * F;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    const i64 f = idx % F, qi = (idx / F) % nq, r = idx / (F * nq);
    i64 src = f + shift;
    if (src >= F) src -= F;
    const double s = (f >= lo && f < hi) ? fac : 1.0;
    const i64 q = (r * F + src) * Q + qoff + qi;
    Y[2 * idx] = (T)((double)S[2 * q] / s);
    Y[2 * idx + 1] = (T)((double)S[2 * q + 1] / s);
  }
}

// Overlap-add of the inverse transforms Y (rows, nq, mfft; real or complex) of slices
// q0 .. q0 + nq: out[r, t] = sum_q Y[r, q - q0, (j - ps) mod mfft] * dual[j] with
// j = t + k0 - q * hop + mid in [0, m). One thread per output sample, slices in increasing q.
extern "C" __global__ void NAME(ola)(const T* __restrict__ Y, int cplx, i64 rows, i64 nq, i64 q0,
                                     i64 mfft, i64 m, i64 mid, i64 hop, i64 ps, i64 k0, i64 nout,
                                     const double* __restrict__ dual, T* __restrict__ out) {
  const i64 total = rows * nout;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    const i64 t = idx % nout, r = idx / nout;
    const i64 i = t + k0;
    i64 qa = NAME(fdiv)(i + mid - m, hop) + 1;
    i64 qb = NAME(fdiv)(i + mid, hop);
    if (qa < q0) qa = q0;
    if (qb > q0 + nq - 1) qb = q0 + nq - 1;
    double ar = 0.0, ai = 0.0;
    for (i64 q = qa; q <= qb; ++q) {
      const i64 j = i - q * hop + mid;
      i64 jj = j - ps;
      if (jj < 0) jj += mfft;
      const i64 e = (r * nq + (q - q0)) * mfft + jj;
      const double dr = dual[2 * j], di = dual[2 * j + 1];
      if (cplx) {
        const double yr = (double)Y[2 * e], yi = (double)Y[2 * e + 1];
        ar += yr * dr - yi * di;
        ai += yr * di + yi * dr;
      } else {
        ar += (double)Y[e] * dr;
      }
    }
    if (cplx) {
      out[2 * idx] = (T)ar;
      out[2 * idx + 1] = (T)ai;
    } else {
      out[idx] = (T)ar;
    }
  }
}
