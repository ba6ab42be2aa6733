// Spectral analysis (welch, csd, spectrogram, stft, istft). Prepended defines: T (float or
// double, the real type), NAME(x); then block_sum.cuh (NAME(block_sum)). Complex arrays are
// read and written as (re, im) pairs of T.

// The sample at position p of the boundary-extended (ext points each side, kind bnd:
// 0 none, 1 even, 2 odd, 3 constant, 4 zeros) and zero-padded signal x of length L.
__device__ __forceinline__ double NAME(sample)(const T* __restrict__ x, i64 L, i64 p, i64 ext,
                                               int bnd) {
  const i64 q = p - ext;
  if (q >= 0 && q < L) return (double)x[q];
  if (p >= L + 2 * ext) return 0.0;
  if (q < 0) {
    const i64 r = -q;
    switch (bnd) {
      case 1: return (double)x[r];
      case 2: return 2.0 * (double)x[0] - (double)x[r];
      case 3: return (double)x[0];
      default: return 0.0;
    }
  }
  const i64 r = q - (L - 1);
  switch (bnd) {
    case 1: return (double)x[L - 1 - r];
    case 2: return 2.0 * (double)x[L - 1] - (double)x[L - 1 - r];
    case 3: return (double)x[L - 1];
    default: return 0.0;
  }
}

// One block per frame row r = b * nseg + s: out[r, j] = (x_ext[s*step + j] - trend_j) * win[j]
// for j < nperseg, 0 for nperseg <= j < nfft. detrend: 0 none, 1 constant, 2 linear (least
// squares line). blockDim.x is a multiple of 32, at most 1024.
extern "C" __global__ void NAME(frames)(const T* __restrict__ x, i64 L, i64 rows, i64 nseg,
                                        i64 step, i64 nperseg, i64 nfft, i64 ext, int bnd,
                                        int detrend, const double* __restrict__ win,
                                        T* __restrict__ out) {
  __shared__ double sh[33];
  for (i64 r = blockIdx.x; r < rows; r += gridDim.x) {
    const i64 b = r / nseg, s = r - b * nseg;
    const T* xb = x + b * L;
    const i64 p0 = s * step;
    double mean = 0.0, slope = 0.0;
    const double tbar = 0.5 * (double)(nperseg - 1);
    if (detrend != 0) {
      double s0 = 0.0, s1 = 0.0;
      for (i64 j = threadIdx.x; j < nperseg; j += blockDim.x) {
        const double v = NAME(sample)(xb, L, p0 + j, ext, bnd);
        s0 += v;
        s1 += ((double)j - tbar) * v;
      }
      s0 = NAME(block_sum)(s0, sh);
      if (detrend == 2) s1 = NAME(block_sum)(s1, sh);
      mean = s0 / (double)nperseg;
      const double n = (double)nperseg;
      const double stt = n * (n * n - 1.0) / 12.0;
      if (detrend == 2 && stt > 0.0) slope = s1 / stt;
    }
    T* o = out + r * nfft;
    for (i64 j = threadIdx.x; j < nfft; j += blockDim.x) {
      double v = 0.0;
      if (j < nperseg) {
        v = NAME(sample)(xb, L, p0 + j, ext, bnd);
        if (detrend != 0) v -= mean + slope * ((double)j - tbar);
        v *= win[j];
      }
      o[j] = (T)v;
    }
    __syncthreads();
  }
}

// The doubling of one-sided power spectra (every bin but DC and, for even nfft, Nyquist).
__device__ __forceinline__ double NAME(dbl)(i64 f, i64 nfft, int onesided) {
  if (!onesided || f == 0) return 1.0;
  if ((nfft & 1) == 0 && f == nfft / 2) return 1.0;
  return 2.0;
}

// Partial sums over frames of |X|^2 (Y == 0) or conj(X) * Y, for chunk c of `chunk` frames:
// part[((b * nchunks + c) * nfreq + f) * 2 + {0, 1}]. X, Y: (B, nseg, nfreq) complex.
extern "C" __global__ void NAME(psd_partial)(const T* __restrict__ X, const T* __restrict__ Y,
                                             i64 B, i64 nseg, i64 nfreq, i64 chunk, i64 nchunks,
                                             double* __restrict__ part) {
  const i64 total = B * nchunks * nfreq;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    const i64 f = idx % nfreq, rest = idx / nfreq;
    const i64 c = rest % nchunks, b = rest / nchunks;
    const i64 s0 = c * chunk, s1 = s0 + chunk < nseg ? s0 + chunk : nseg;
    double re = 0.0, im = 0.0;
    for (i64 s = s0; s < s1; ++s) {
      const i64 k = ((b * nseg + s) * nfreq + f) * 2;
      const double xr = (double)X[k], xi = (double)X[k + 1];
      if (Y) {
        const double yr = (double)Y[k], yi = (double)Y[k + 1];
        re += xr * yr + xi * yi;
        im += xr * yi - xi * yr;
      } else {
        re += xr * xr + xi * xi;
      }
    }
    part[idx * 2] = re;
    part[idx * 2 + 1] = im;
  }
}

// out[b, f] = factor * sum_c part[b, c, f] (real: re only; complex: (re, im) pairs), with
// factor = scale * doubling; scale already holds 1/nseg of the mean.
extern "C" __global__ void NAME(psd_finish)(const double* __restrict__ part, i64 B, i64 nchunks,
                                            i64 nfreq, double scale, i64 nfft, int onesided,
                                            int cplx, T* __restrict__ out) {
  const i64 total = B * nfreq;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    const i64 f = idx % nfreq, b = idx / nfreq;
    double re = 0.0, im = 0.0;
    for (i64 c = 0; c < nchunks; ++c) {
      const i64 k = ((b * nchunks + c) * nfreq + f) * 2;
      re += part[k];
      im += part[k + 1];
    }
    const double fac = scale * NAME(dbl)(f, nfft, onesided);
    if (cplx) {
      out[idx * 2] = (T)(re * fac);
      out[idx * 2 + 1] = (T)(im * fac);
    } else {
      out[idx] = (T)(re * fac);
    }
  }
}

// out[b, f, s] from X[b, s, f] (and Y for mode 4). mode: 0 psd |X|^2 * scale * doubling (real),
// 1 complex X * scale, 2 magnitude |X| * scale, 3 angle atan2 (real), 4 cross conj(X) Y * scale *
// doubling (complex).
extern "C" __global__ void NAME(spec)(const T* __restrict__ X, const T* __restrict__ Y, i64 B,
                                      i64 nseg, i64 nfreq, double scale, i64 nfft, int onesided,
                                      int mode, T* __restrict__ out) {
  const i64 total = B * nfreq * nseg;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    const i64 s = idx % nseg, rest = idx / nseg;
    const i64 f = rest % nfreq, b = rest / nfreq;
    const i64 k = ((b * nseg + s) * nfreq + f) * 2;
    const double xr = (double)X[k], xi = (double)X[k + 1];
    switch (mode) {
      case 0: out[idx] = (T)((xr * xr + xi * xi) * scale * NAME(dbl)(f, nfft, onesided)); break;
      case 1:
        out[idx * 2] = (T)(xr * scale);
        out[idx * 2 + 1] = (T)(xi * scale);
        break;
      case 2: out[idx] = (T)(hypot(xr, xi) * scale); break;
      case 3: out[idx] = (T)atan2(xi, xr); break;
      default: {
        const double yr = (double)Y[k], yi = (double)Y[k + 1];
        const double fac = scale * NAME(dbl)(f, nfft, onesided);
        out[idx * 2] = (T)((xr * yr + xi * yi) * fac);
        out[idx * 2 + 1] = (T)((xr * yi - xi * yr) * fac);
      }
    }
  }
}

// NumPy's unwrap along the frequency axis of a (B, nfreq, nseg) real array: one thread per
// (b, s) column.
extern "C" __global__ void NAME(unwrap)(T* __restrict__ a, i64 B, i64 nfreq, i64 nseg) {
  const double pi = 3.14159265358979323846;
  const i64 total = B * nseg;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    const i64 s = idx % nseg, b = idx / nseg;
    T* col = a + b * nfreq * nseg + s;
    double prev = (double)col[0], corr = 0.0;
    for (i64 f = 1; f < nfreq; ++f) {
      const double cur = (double)col[f * nseg];
      const double dd = cur - prev;
      double m = fmod(dd + pi, 2.0 * pi);
      if (m < 0.0) m += 2.0 * pi;
      double ddmod = m - pi;
      if (ddmod == -pi && dd > 0.0) ddmod = pi;
      if (fabs(dd) >= pi) corr += ddmod - dd;
      prev = cur;
      col[f * nseg] = (T)(cur + corr);
    }
  }
}

// The k-th smallest of v[0], v[st], ..., v[(n-1) st] (reorders them).
__device__ double NAME(select)(T* v, i64 n, i64 st, i64 k) {
  i64 lo = 0, hi = n - 1;
  while (lo < hi) {
    const double piv = (double)v[((lo + hi) / 2) * st];
    i64 i = lo, j = hi;
    while (i <= j) {
      while ((double)v[i * st] < piv) ++i;
      while ((double)v[j * st] > piv) --j;
      if (i <= j) {
        const T t = v[i * st];
        v[i * st] = v[j * st];
        v[j * st] = t;
        ++i;
        --j;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return (double)v[k * st];
}

__device__ double NAME(median)(T* v, i64 n, i64 st) {
  const i64 k = n / 2;
  const double hi = NAME(select)(v, n, st, k);
  if (n & 1) return hi;
  double lo = (double)v[0];
  for (i64 i = 1; i < k; ++i) lo = fmax(lo, (double)v[i * st]);
  return 0.5 * (lo + hi);
}

// The median over frames of a (B, nfreq, nseg) spectrogram (cplx: the real and imaginary parts
// separately), divided by bias; reorders `spec`. One thread per (b, f).
extern "C" __global__ void NAME(median_avg)(T* __restrict__ spec, i64 rows, i64 nseg, int cplx,
                                            double bias, T* __restrict__ out) {
  for (i64 r = blockIdx.x * (i64)blockDim.x + threadIdx.x; r < rows;
       r += (i64)gridDim.x * blockDim.x) {
    if (cplx) {
      T* row = spec + r * nseg * 2;
      out[r * 2] = (T)(NAME(median)(row, nseg, 2) / bias);
      out[r * 2 + 1] = (T)(NAME(median)(row + 1, nseg, 2) / bias);
    } else {
      out[r] = (T)(NAME(median)(spec + r * nseg, nseg, 1) / bias);
    }
  }
}

// istft overlap-add: out[b, t] = sum_s xs[b, s, u] win[u] fac / norm(t'), u = t' - s step,
// t' = t + off, over the frames covering t'; norm = the same sum of win^2 (1 where <= 1e-10).
// xs: (B, nseg, nfft) real inverse transforms (the first nperseg points are used).
extern "C" __global__ void NAME(ola)(const T* __restrict__ xs, i64 B, i64 nseg, i64 nfft,
                                     i64 nperseg, i64 step, i64 off, i64 nout, double fac,
                                     const double* __restrict__ win, T* __restrict__ out) {
  const i64 total = B * nout;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    const i64 t = idx % nout + off, b = idx / nout;
    i64 s0 = t - nperseg + 1 > 0 ? (t - nperseg + 1 + step - 1) / step : 0;
    i64 s1 = t / step;
    if (s1 > nseg - 1) s1 = nseg - 1;
    double acc = 0.0, nrm = 0.0;
    for (i64 s = s0; s <= s1; ++s) {
      const i64 u = t - s * step;
      const double w = win[u];
      acc += (double)xs[(b * nseg + s) * nfft + u] * fac * w;
      nrm += w * w;
    }
    out[idx] = (T)(nrm > 1e-10 ? acc / nrm : acc);
  }
}
