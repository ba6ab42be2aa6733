// cusci-fft kernels: the copies around cuFFT calls (cut / zero-pad along an axis, the C2R input
// copy, both applying the normalisation on the way; the in-place normalisation pass where no
// copy runs; the n-d roll of fftshift) and the pre/post passes of the DCT/DST (the same algorithm as
// the CPU reference in realtransforms.rs). Shapes are arguments; 64-bit indices; grid-stride loops.

// an element of 16 bytes moved as raw bits (the roll does not care about the type)
struct __align__(16) b16 { u64 lo, hi; };

// the normalisation folded into the copies: v * scale, conjugated when asked (reals: no conj)
__device__ __forceinline__ float post_v(float v, double s, int) { return v * (float)s; }
__device__ __forceinline__ double post_v(double v, double s, int) { return v * s; }
__device__ __forceinline__ cplx32 post_v(cplx32 v, double s, int conj) {
  cplx32 z; z.re = v.re * (float)s; z.im = (conj ? -v.im : v.im) * (float)s; return z;
}
__device__ __forceinline__ cplx64 post_v(cplx64 v, double s, int conj) {
  cplx64 z; z.re = v.re * s; z.im = (conj ? -v.im : v.im) * s; return z;
}

__device__ __forceinline__ void set_zero(float& v) { v = 0.0f; }
__device__ __forceinline__ void set_zero(double& v) { v = 0.0; }
__device__ __forceinline__ void set_zero(cplx32& v) { v.re = 0.0f; v.im = 0.0f; }
__device__ __forceinline__ void set_zero(cplx64& v) { v.re = 0.0; v.im = 0.0; }

// out (outer, n, inner) from x (outer, m, inner): x cut or zero-padded along the middle axis,
// each value scaled (and conjugated): the normalisation of the transform that follows, for free
template <class E>
__device__ void resize_axis(const E* __restrict__ x, E* __restrict__ out, i64 outer, i64 m,
                            i64 n, i64 inner, double scale, int conj) {
  i64 total = outer * n * inner;
  E zero;
  set_zero(zero);
  for (i64 idx = (i64)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    i64 i = idx % inner;
    i64 r = idx / inner;
    i64 k = r % n;
    i64 o = r / n;
    out[idx] = k < m ? post_v(x[(o * m + k) * inner + i], scale, conj) : zero;
  }
}

extern "C" __global__ void fft_resize_f32(const float* x, float* out, i64 outer, i64 m, i64 n, i64 inner, double s, int c) {
  resize_axis<float>(x, out, outer, m, n, inner, s, c);
}
extern "C" __global__ void fft_resize_f64(const double* x, double* out, i64 outer, i64 m, i64 n, i64 inner, double s, int c) {
  resize_axis<double>(x, out, outer, m, n, inner, s, c);
}
extern "C" __global__ void fft_resize_c32(const cplx32* x, cplx32* out, i64 outer, i64 m, i64 n, i64 inner, double s, int c) {
  resize_axis<cplx32>(x, out, outer, m, n, inner, s, c);
}
extern "C" __global__ void fft_resize_c64(const cplx64* x, cplx64* out, i64 outer, i64 m, i64 n, i64 inner, double s, int c) {
  resize_axis<cplx64>(x, out, outer, m, n, inner, s, c);
}

// the one normalisation pass left when no copy runs before the transform: x (nr reals, i.e.
// the real and imaginary parts of a complex array in turn) scaled in place, the imaginary
// parts (odd positions) negated when `conj`; 16-byte vector loads where x is 16-byte aligned
template <class R, class V, int W>
__device__ void scale_inplace(R* x, i64 nr, R s, int conj) {
  i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  i64 step = (i64)gridDim.x * blockDim.x;
  R si = conj ? -s : s;  // the factor of odd positions
  i64 nv = (((unsigned long long)x) % 16 == 0) ? nr / W : 0;
  V* xv = reinterpret_cast<V*>(x);
  for (i64 j = tid; j < nv; j += step) {
    V v = xv[j];
    R* e = reinterpret_cast<R*>(&v);
#pragma unroll
    for (int q = 0; q < W; ++q) e[q] *= (q & 1) ? si : s;  // W is even: parity is kept
    xv[j] = v;
  }
  for (i64 j = nv * W + tid; j < nr; j += step) x[j] *= (j & 1) ? si : s;
}
extern "C" __global__ void fft_scale_f32(float* x, i64 nr, double s, int conj) {
  scale_inplace<float, float4, 4>(x, nr, (float)s, conj);
}
extern "C" __global__ void fft_scale_f64(double* x, i64 nr, double s, int conj) {
  scale_inplace<double, double2, 2>(x, nr, s, conj);
}

// the input of a C2R transform of `nreal` points: x (outer, m, inner) cut or zero-padded to
// h = nreal/2+1 points, the imaginary parts of the zero-frequency and (even nreal) Nyquist terms
// dropped, as pocketfft (and the CPU reference) ignore them. Always a fresh copy: C2R overwrites it.
// The scale (the transform's normalisation) and the conjugation (hfft) are applied here too.
template <class C>
__device__ void c2r_prep(const C* __restrict__ x, C* __restrict__ out, i64 outer, i64 m,
                         i64 nreal, i64 inner, double scale, int conj) {
  i64 h = nreal / 2 + 1;
  i64 total = outer * h * inner;
  for (i64 idx = (i64)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    i64 i = idx % inner;
    i64 r = idx / inner;
    i64 k = r % h;
    i64 o = r / h;
    C v;
    if (k < m) v = post_v(x[(o * m + k) * inner + i], scale, conj);
    else { v.re = 0; v.im = 0; }
    if (k == 0 || (nreal % 2 == 0 && k == h - 1)) v.im = 0;
    out[idx] = v;
  }
}
extern "C" __global__ void fft_c2r_prep_c32(const cplx32* x, cplx32* out, i64 outer, i64 m, i64 nreal, i64 inner, double s, int c) {
  c2r_prep<cplx32>(x, out, outer, m, nreal, inner, s, c);
}
extern "C" __global__ void fft_c2r_prep_c64(const cplx64* x, cplx64* out, i64 outer, i64 m, i64 nreal, i64 inner, double s, int c) {
  c2r_prep<cplx64>(x, out, outer, m, nreal, inner, s, c);
}

// out[j] = x[(j + shift) mod len] along every dimension (C-contiguous x and out)
template <class E>
__device__ void roll_nd(const E* __restrict__ x, E* __restrict__ out, CusciShape s, CusciStrides shift) {
  for (i64 idx = (i64)blockIdx.x * blockDim.x + threadIdx.x; idx < s.n;
       idx += (i64)gridDim.x * blockDim.x) {
    i64 rem = idx, src = 0, stride = 1;
    for (int d = s.ndim - 1; d >= 0; --d) {
      i64 len = s.dims[d];
      i64 c = rem % len;
      rem /= len;
      i64 sc = c + shift.s[d];
      if (sc >= len) sc -= len;
      src += sc * stride;
      stride *= len;
    }
    out[idx] = x[src];
  }
}
extern "C" __global__ void fft_roll_b1(const u8* x, u8* out, CusciShape s, CusciStrides sh) { roll_nd<u8>(x, out, s, sh); }
extern "C" __global__ void fft_roll_b4(const unsigned* x, unsigned* out, CusciShape s, CusciStrides sh) { roll_nd<unsigned>(x, out, s, sh); }
extern "C" __global__ void fft_roll_b8(const u64* x, u64* out, CusciShape s, CusciStrides sh) { roll_nd<u64>(x, out, s, sh); }
extern "C" __global__ void fft_roll_b16(const b16* x, b16* out, CusciShape s, CusciStrides sh) { roll_nd<b16>(x, out, s, sh); }

// ---------- DCT / DST (types 1-4) ----------
// The parameters of one real-to-real transform of n points, as the CPU's `R2r`:
// kind 1..4, cosine 1/0, ortho 1/0, fct the overall factor. Lanes: x is (outer, m, inner)
// contiguous, lane l = o*inner + i; the extended sequence of lane l is buf[l*M .. (l+1)*M).
struct R2rParams {
  i64 outer, m, n, inner, M;
  int kind, cosine, ortho;
  double fct;
};

// g(j): the lane's j-th input after the cut/zero-pad, the ortho pre-scaling and the mapping of
// the sine transforms of types 2-4 onto cosine transforms (as lane_r2r in realtransforms.rs)
template <class R>
__device__ __forceinline__ R r2r_g(const R* __restrict__ x, const R2rParams& p, i64 o, i64 i, i64 j) {
  i64 src = (!p.cosine && (p.kind == 3 || p.kind == 4)) ? p.n - 1 - j : j;
  R v = src < p.m ? x[(o * p.m + src) * p.inner + i] : (R)0;
  if (p.ortho) {
    const R s2 = (R)1.4142135623730951;
    if (p.cosine && p.kind == 1 && (src == 0 || src == p.n - 1)) v = v * s2;
    else if (p.cosine && p.kind == 3 && src == 0) v = v * s2;
    else if (!p.cosine && p.kind == 3 && src == p.n - 1) v = v * s2;
  }
  if (!p.cosine && p.kind == 2 && (j & 1)) v = -v;
  return v;
}

// exp(-i*pi*a/b) computed in double (as the CPU computes its twiddles in f64)
__device__ __forceinline__ void cis_neg(double a, double b, double* c, double* s) {
  double sn, cs;
  sincospi(a / b, &sn, &cs);
  *c = cs;
  *s = -sn;
}

template <class R, class C>
__device__ void r2r_pre(const R* __restrict__ x, C* __restrict__ buf, R2rParams p) {
  i64 lanes = p.outer * p.inner;
  i64 total = lanes * p.M;
  for (i64 idx = (i64)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    i64 q = idx % p.M;
    i64 l = idx / p.M;
    i64 o = l / p.inner, i = l % p.inner;
    i64 n = p.n;
    C v; v.re = 0; v.im = 0;
    if (p.kind == 1 && p.cosine) {
      v.re = r2r_g<R>(x, p, o, i, q < n ? q : p.M - q);
    } else if (p.kind == 1) {
      if (q >= 1 && q <= n) v.re = r2r_g<R>(x, p, o, i, q - 1);
      else if (q >= n + 2) v.re = -r2r_g<R>(x, p, o, i, p.M - 1 - q);
    } else if (p.kind == 2) {
      v.re = r2r_g<R>(x, p, o, i, q < n ? q : 2 * n - 1 - q);
    } else if (q < n) {
      R g = r2r_g<R>(x, p, o, i, q);
      double c, s;
      if (p.kind == 3) cis_neg((double)q, 2.0 * (double)n, &c, &s);
      else cis_neg((double)(2 * q + 1), 4.0 * (double)n, &c, &s);
      v.re = (R)c * g;
      v.im = (R)s * g;
    }
    buf[idx] = v;
  }
}

template <class R, class C>
__device__ void r2r_post(const R* __restrict__ x, const C* __restrict__ buf, R* __restrict__ out,
                         R2rParams p) {
  i64 n = p.n;
  i64 total = p.outer * n * p.inner;
  for (i64 idx = (i64)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    // output position (o, k, i) in C order
    i64 i = idx % p.inner;
    i64 r = idx / p.inner;
    i64 k = r % n;
    i64 o = r / n;
    i64 l = o * p.inner + i;
    const C* b = buf + l * p.M;
    // the cosine-transform index whose value lands at k
    i64 kk = (!p.cosine && p.kind == 2) ? n - 1 - k : k;
    R v;
    if (p.kind == 1 && p.cosine) {
      v = b[kk].re;
    } else if (p.kind == 1) {
      v = -b[kk + 1].im;
    } else if (p.kind == 3) {
      v = (R)2 * b[kk].re - r2r_g<R>(x, p, o, i, 0);
    } else {
      double c, s;
      cis_neg((double)kk, 2.0 * (double)n, &c, &s);
      R re = b[kk].re * (R)c - b[kk].im * (R)s;
      v = p.kind == 2 ? re : (R)2 * re;
    }
    if (!p.cosine && (p.kind == 3 || p.kind == 4) && (k & 1)) v = -v;
    if (p.fct != 1.0) v = v * (R)p.fct;
    if (p.ortho) {
      const double h = 0.7071067811865476;
      if ((p.cosine && p.kind == 1 && (k == 0 || k == n - 1)) ||
          (p.cosine && p.kind == 2 && k == 0) || (!p.cosine && p.kind == 2 && k == n - 1))
        v = v * (R)h;
    }
    out[idx] = v;
  }
}

extern "C" __global__ void fft_r2r_pre_f32(const float* x, cplx32* buf, R2rParams p) { r2r_pre<float, cplx32>(x, buf, p); }
extern "C" __global__ void fft_r2r_pre_f64(const double* x, cplx64* buf, R2rParams p) { r2r_pre<double, cplx64>(x, buf, p); }
extern "C" __global__ void fft_r2r_post_f32(const float* x, const cplx32* buf, float* out, R2rParams p) { r2r_post<float, cplx32>(x, buf, out, p); }
extern "C" __global__ void fft_r2r_post_f64(const double* x, const cplx64* buf, double* out, R2rParams p) { r2r_post<double, cplx64>(x, buf, out, p); }
