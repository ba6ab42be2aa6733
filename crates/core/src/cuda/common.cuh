// cusci common kernel header: prepended to every kernel module (no #include is available).
typedef long long i64;
typedef unsigned long long u64;
typedef unsigned char u8;
#define CUSCI_MAXD 8

struct __align__(8) cplx32 { float re, im; };
struct __align__(16) cplx64 { double re, im; };

__device__ __forceinline__ cplx32 mk(float r, float i) { cplx32 z; z.re = r; z.im = i; return z; }
__device__ __forceinline__ cplx64 mk(double r, double i) { cplx64 z; z.re = r; z.im = i; return z; }

#define CUSCI_CPLX_OPS(C, R)                                                                    \
__device__ __forceinline__ C operator+(C a, C b) { return mk(a.re + b.re, a.im + b.im); }    \
__device__ __forceinline__ C operator-(C a, C b) { return mk(a.re - b.re, a.im - b.im); }    \
__device__ __forceinline__ C operator-(C a) { return mk(-a.re, -a.im); }                     \
__device__ __forceinline__ C operator*(C a, C b) {                                            \
  return mk(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); }                          \
__device__ __forceinline__ C operator*(R a, C b) { return mk(a * b.re, a * b.im); }          \
__device__ __forceinline__ C operator*(C a, R b) { return mk(a.re * b, a.im * b); }          \
__device__ __forceinline__ C operator/(C a, C b) { /* Smith's algorithm, as the CPU side */ \
  if (fabs(b.re) >= fabs(b.im)) {                                                             \
    if (b.re == (R)0 && b.im == (R)0) return mk(a.re / b.re, a.im / b.re);                    \
    R r = b.im / b.re, d = b.re + b.im * r;                                                   \
    return mk((a.re + a.im * r) / d, (a.im - a.re * r) / d);                                  \
  } else {                                                                                    \
    R r = b.re / b.im, d = b.re * r + b.im;                                                   \
    return mk((a.re * r + a.im) / d, (a.im * r - a.re) / d);                                  \
  } }                                                                                         \
__device__ __forceinline__ C operator/(C a, R b) { return mk(a.re / b, a.im / b); }          \
__device__ __forceinline__ bool operator==(C a, C b) { return a.re == b.re && a.im == b.im; } \
__device__ __forceinline__ bool operator!=(C a, C b) { return !(a == b); }                   \
__device__ __forceinline__ C& operator+=(C& a, C b) { a = a + b; return a; }                 \
__device__ __forceinline__ R cusci_abs(C a) { return hypot(a.re, a.im); }                     \
__device__ __forceinline__ R cusci_abs2(C a) { return a.re * a.re + a.im * a.im; }            \
__device__ __forceinline__ R cusci_real(C a) { return a.re; }                                  \
__device__ __forceinline__ R cusci_imag(C a) { return a.im; }                                  \
__device__ __forceinline__ C cusci_conj(C a) { return mk(a.re, -a.im); }                       \
__device__ __forceinline__ C cusci_exp(C a) { R e = exp(a.re); return mk(e * cos(a.im), e * sin(a.im)); } \
__device__ __forceinline__ C cusci_log(C a) { return mk(log(hypot(a.re, a.im)), atan2(a.im, a.re)); } \
__device__ __forceinline__ C cusci_sqrt(C a) {                                                \
  if (a.re == (R)0 && a.im == (R)0) return mk((R)0, a.im);                                    \
  R m = hypot(a.re, a.im);                                                                    \
  R t = sqrt((m + fabs(a.re)) * (R)0.5);                                                      \
  if (a.re >= (R)0) return mk(t, a.im / (t + t));                                             \
  return mk(fabs(a.im) / (t + t), copysign(t, a.im)); }                                       \
__device__ __forceinline__ C cusci_sin(C a) { return mk(sin(a.re) * cosh(a.im), cos(a.re) * sinh(a.im)); } \
__device__ __forceinline__ C cusci_cos(C a) { return mk(cos(a.re) * cosh(a.im), -sin(a.re) * sinh(a.im)); } \
__device__ __forceinline__ C cusci_tanh(C a) {                                                \
  R two_re = a.re + a.re, two_im = a.im + a.im;                                               \
  R d = cosh(two_re) + cos(two_im);                                                           \
  return mk(sinh(two_re) / d, sin(two_im) / d); }                                             \
__device__ __forceinline__ C cusci_pow(C a, C b) {                                            \
  if (a.re == (R)0 && a.im == (R)0) {                                                         \
    if (b.re == (R)0 && b.im == (R)0) return mk((R)1, (R)0);                                  \
    return mk((R)0, (R)0); }                                                                  \
  return cusci_exp(b * cusci_log(a)); }                                                       \
__device__ __forceinline__ bool cusci_isnan(C a) { return a.re != a.re || a.im != a.im; }     \
__device__ __forceinline__ C cusci_add(C a, C b) { return a + b; }                            \
__device__ __forceinline__ C cusci_sub(C a, C b) { return a - b; }                            \
__device__ __forceinline__ C cusci_mul(C a, C b) { return a * b; }                            \
__device__ __forceinline__ C cusci_div(C a, C b) { return a / b; }
CUSCI_CPLX_OPS(cplx32, float)
CUSCI_CPLX_OPS(cplx64, double)

#define CUSCI_REAL_OPS(R)                                                                        \
__device__ __forceinline__ R cusci_abs(R a) { return fabs(a); }                                  \
__device__ __forceinline__ R cusci_abs2(R a) { return a * a; }                                   \
__device__ __forceinline__ R cusci_real(R a) { return a; }                                       \
__device__ __forceinline__ R cusci_imag(R) { return (R)0; }                                      \
__device__ __forceinline__ R cusci_conj(R a) { return a; }                                       \
__device__ __forceinline__ R cusci_exp(R a) { return exp(a); }                                   \
__device__ __forceinline__ R cusci_log(R a) { return log(a); }                                   \
__device__ __forceinline__ R cusci_sqrt(R a) { return sqrt(a); }                                 \
__device__ __forceinline__ R cusci_sin(R a) { return sin(a); }                                   \
__device__ __forceinline__ R cusci_cos(R a) { return cos(a); }                                   \
__device__ __forceinline__ R cusci_tanh(R a) { return tanh(a); }                                 \
__device__ __forceinline__ R cusci_pow(R a, R b) { return pow(a, b); }                           \
__device__ __forceinline__ bool cusci_isnan(R a) { return a != a; }                              \
__device__ __forceinline__ R cusci_add(R a, R b) { return a + b; }                               \
__device__ __forceinline__ R cusci_sub(R a, R b) { return a - b; }                               \
__device__ __forceinline__ R cusci_mul(R a, R b) { return a * b; }                               \
__device__ __forceinline__ R cusci_div(R a, R b) { return a / b; }                               \
/* NumPy's maximum/minimum: NaN propagates */                                                     \
__device__ __forceinline__ R cusci_max(R a, R b) { return (a != a) ? a : ((b != b) ? b : (a > b ? a : b)); } \
__device__ __forceinline__ R cusci_min(R a, R b) { return (a != a) ? a : ((b != b) ? b : (a < b ? a : b)); }
CUSCI_REAL_OPS(float)
CUSCI_REAL_OPS(double)

// integers: wrapping arithmetic (through unsigned), division by zero gives 0 (NumPy's value)
#define CUSCI_INT_OPS(I, U)                                                                      \
__device__ __forceinline__ I cusci_abs(I a) { return a < 0 ? (I)(0 - (U)a) : a; }                \
__device__ __forceinline__ I cusci_add(I a, I b) { return (I)((U)a + (U)b); }                    \
__device__ __forceinline__ I cusci_sub(I a, I b) { return (I)((U)a - (U)b); }                    \
__device__ __forceinline__ I cusci_mul(I a, I b) { return (I)((U)a * (U)b); }                    \
__device__ __forceinline__ I cusci_div(I a, I b) {                                               \
  if (b == 0) return 0;                                                                          \
  if ((I)(b + 1) == 0 && a == (I)((U)1 << (sizeof(I) * 8 - 1))) return a; /* MIN / -1 wraps */  \
  return a / b; }                                                                                \
__device__ __forceinline__ I cusci_max(I a, I b) { return a > b ? a : b; }                       \
__device__ __forceinline__ I cusci_min(I a, I b) { return a < b ? a : b; }                       \
__device__ __forceinline__ bool cusci_isnan(I) { return false; }
CUSCI_INT_OPS(int, unsigned int)
CUSCI_INT_OPS(long long, unsigned long long)
__device__ __forceinline__ unsigned char cusci_abs(unsigned char a) { return a; }
__device__ __forceinline__ unsigned char cusci_add(unsigned char a, unsigned char b) { return (unsigned char)(a + b); }
__device__ __forceinline__ unsigned char cusci_sub(unsigned char a, unsigned char b) { return (unsigned char)(a - b); }
__device__ __forceinline__ unsigned char cusci_mul(unsigned char a, unsigned char b) { return (unsigned char)(a * b); }
__device__ __forceinline__ unsigned char cusci_div(unsigned char a, unsigned char b) { return b == 0 ? 0 : (unsigned char)(a / b); }
__device__ __forceinline__ unsigned char cusci_max(unsigned char a, unsigned char b) { return a > b ? a : b; }
__device__ __forceinline__ unsigned char cusci_min(unsigned char a, unsigned char b) { return a < b ? a : b; }
__device__ __forceinline__ bool cusci_max(bool a, bool b) { return a || b; }
__device__ __forceinline__ bool cusci_min(bool a, bool b) { return a && b; }
__device__ __forceinline__ bool cusci_isnan(unsigned char) { return false; }
__device__ __forceinline__ bool cusci_isnan(bool) { return false; }

// float -> integer: truncate toward zero, saturate at the type's bounds, NaN -> 0 (Rust's `as`,
// which the CPU reference uses; a plain C cast of NaN gives INT_MIN on the GPU)
__device__ __forceinline__ int cusci_f2i32(double v) {
  if (v != v) return 0;
  if (v >= 2147483647.0) return 2147483647;
  if (v <= -2147483648.0) return -2147483647 - 1;
  return (int)v;
}
__device__ __forceinline__ long long cusci_f2i64(double v) {
  if (v != v) return 0;
  if (v >= 9223372036854775808.0) return 9223372036854775807LL;
  if (v <= -9223372036854775808.0) return -9223372036854775807LL - 1;
  return (long long)v;
}
__device__ __forceinline__ unsigned char cusci_f2u8(double v) {
  if (v != v || v <= 0.0) return 0;
  if (v >= 255.0) return 255;
  return (unsigned char)v;
}
#define CUSCI_FLOAT_TO_INT_CAST(I, F)                                                     \
  template <> struct CusciCast<I> {                                                      \
    template <class From> __device__ __forceinline__ static I from(From v) { return (I)v; } \
    __device__ __forceinline__ static I from(float v) { return F((double)v); }              \
    __device__ __forceinline__ static I from(double v) { return F(v); }                     \
    __device__ __forceinline__ static I from(cplx32 v) { return F((double)v.re); }          \
    __device__ __forceinline__ static I from(cplx64 v) { return F(v.re); }                  \
  };

// casts with NumPy's rules (complex -> real keeps the real part; anything -> bool is x != 0)
template <class To> struct CusciCast {
  template <class From> __device__ __forceinline__ static To from(From v) { return (To)v; }
  __device__ __forceinline__ static To from(cplx32 v) { return (To)v.re; }
  __device__ __forceinline__ static To from(cplx64 v) { return (To)v.re; }
};
template <> struct CusciCast<bool> {
  template <class From> __device__ __forceinline__ static bool from(From v) { return v != (From)0; }
  __device__ __forceinline__ static bool from(cplx32 v) { return v.re != 0.0f || v.im != 0.0f; }
  __device__ __forceinline__ static bool from(cplx64 v) { return v.re != 0.0 || v.im != 0.0; }
};
template <> struct CusciCast<cplx32> {
  template <class From> __device__ __forceinline__ static cplx32 from(From v) { return mk((float)v, 0.0f); }
  __device__ __forceinline__ static cplx32 from(cplx32 v) { return v; }
  __device__ __forceinline__ static cplx32 from(cplx64 v) { return mk((float)v.re, (float)v.im); }
};
template <> struct CusciCast<cplx64> {
  template <class From> __device__ __forceinline__ static cplx64 from(From v) { return mk((double)v, 0.0); }
  __device__ __forceinline__ static cplx64 from(cplx32 v) { return mk((double)v.re, (double)v.im); }
  __device__ __forceinline__ static cplx64 from(cplx64 v) { return v; }
};
CUSCI_FLOAT_TO_INT_CAST(int, cusci_f2i32)
CUSCI_FLOAT_TO_INT_CAST(long long, cusci_f2i64)
CUSCI_FLOAT_TO_INT_CAST(unsigned char, cusci_f2u8)
#define cusci_cast(To, v) (CusciCast<To>::from(v))

template <class T, int N> struct __align__(sizeof(T) * N) CusciVec { T v[N]; };

struct CusciShape { i64 n; int ndim; i64 dims[CUSCI_MAXD]; };
struct CusciStrides { i64 s[CUSCI_MAXD]; };
