/*
 * philox.cuh: CUDA device twin of crates/core/src/random/philox/ (Rust module philox).
 *
 * Philox4x32-10 counter-based random streams whose raw words AND derived
 * floating-point values are bit-identical with the Rust (CPU) implementation.
 * See philox/mod.rs for the stream layout, the numerics and the accuracy of every
 * function; each function here is the same sequence of IEEE-754 operations,
 * in the same order, as its Rust namesake (`cusci_` prefix).
 *
 * Rules that keep the results bit-identical:
 *  - every float/double multiply, add, subtract, divide and square root is
 *    written with the round-to-nearest intrinsics (__fmul_rn, __fadd_rn,
 *    __fsub_rn, __fdiv_rn, __fsqrt_rn and the __d..._rn forms), which NVRTC
 *    never contracts into fused multiply-adds (it would contract plain
 *    `a * b + c` under its default --fmad=true);
 *  - conversions use the explicitly rounded intrinsics (all of them exact
 *    where they are used);
 *  - subnormals must be honoured: do not compile with -ftz=true or
 *    --use_fast_math (NVRTC's defaults are fine).
 *
 * Plain CUDA C++ for NVRTC (--std=c++17): no #include; uses only NVRTC's
 * built-in intrinsics and vector types. 64-bit indices throughout.
 */

#ifndef CUSCI_PHILOX_CUH
#define CUSCI_PHILOX_CUH

typedef unsigned long long cusci_u64;
typedef long long cusci_i64;

/* ------------------------------------------------------------------------- */
/* Constants (same literals as the Rust module philox)                       */
/* ------------------------------------------------------------------------- */

#define CUSCI_PHILOX_M0 (0xD2511F53u)
#define CUSCI_PHILOX_M1 (0xCD9E8D57u)
#define CUSCI_PHILOX_W0 (0x9E3779B9u)
#define CUSCI_PHILOX_W1 (0xBB67AE85u)
#define CUSCI_TWO_M23_F32 (1.1920928955078125e-7f)
#define CUSCI_TWO_M52_F64 (2.2204460492503131e-16)
#define CUSCI_LN2_HI_F64 (0.6931471806019545)
#define CUSCI_LN2_LO_F64 (-4.2009150726810846e-11)
#define CUSCI_SQRT2_F64 (1.4142135623730951)
#define CUSCI_TWO54_F64 (18014398509481984.0)
#define CUSCI_LN2_HI_F32 (6.93145752e-1f)
#define CUSCI_LN2_LO_F32 (1.428606765e-6f)
#define CUSCI_SQRT2_F32 (1.414213538f)
#define CUSCI_TWO25_F32 (33554432.0f)
#define CUSCI_LN_POLY_F64_0 (0.666666666666667)
#define CUSCI_LN_POLY_F64_1 (0.39999999999899116)
#define CUSCI_LN_POLY_F64_2 (0.28571428626133594)
#define CUSCI_LN_POLY_F64_3 (0.22222211111345688)
#define CUSCI_LN_POLY_F64_4 (0.18182890696057424)
#define CUSCI_LN_POLY_F64_5 (0.15331673134636142)
#define CUSCI_LN_POLY_F64_6 (0.14617010131461194)
#define CUSCI_LN_POLY_F32_0 (6.666668653e-01f)
#define CUSCI_LN_POLY_F32_1 (3.998855948e-01f)
#define CUSCI_LN_POLY_F32_2 (2.958620787e-01f)
#define CUSCI_INV_LN2_F64 (1.4426950408889634)
#define CUSCI_ROUND_SHIFT_F64 (6755399441055744.0)
#define CUSCI_EXP_MAX_ARG_F64 (709.782712893384)
#define CUSCI_EXP_MIN_ARG_F64 (-745.1332191019412)
#define CUSCI_INV_LN2_F32 (1.442695022f)
#define CUSCI_ROUND_SHIFT_F32 (12582912.0f)
#define CUSCI_EXP_MAX_ARG_F32 (88.72283936f)
#define CUSCI_EXP_MIN_ARG_F32 (-103.9720764f)
#define CUSCI_EXP_POLY_F64_0 (0.1666666666666666)
#define CUSCI_EXP_POLY_F64_1 (-0.002777777777754711)
#define CUSCI_EXP_POLY_F64_2 (6.613756463066877e-05)
#define CUSCI_EXP_POLY_F64_3 (-1.6534046865030749e-06)
#define CUSCI_EXP_POLY_F64_4 (4.143145856797692e-08)
#define CUSCI_EXP_POLY_F32_0 (1.666666716e-01f)
#define CUSCI_EXP_POLY_F32_1 (-2.778084017e-03f)
#define CUSCI_EXP_POLY_F32_2 (6.842573930e-05f)
#define CUSCI_SIN_POLY_F64_0 (1.1415926535897931)
#define CUSCI_SIN_POLY_F64_1 (-5.1677127800499525)
#define CUSCI_SIN_POLY_F64_2 (2.5501640398730285)
#define CUSCI_SIN_POLY_F64_3 (-0.5992645289160949)
#define CUSCI_SIN_POLY_F64_4 (0.08214586845720102)
#define CUSCI_SIN_POLY_F64_5 (-0.0073700113498173575)
#define CUSCI_SIN_POLY_F64_6 (0.0004614774373238661)
#define CUSCI_COS_POLY_F64_0 (4.934802200544679)
#define CUSCI_COS_POLY_F64_1 (-4.058712126416765)
#define CUSCI_COS_POLY_F64_2 (1.3352627688537986)
#define CUSCI_COS_POLY_F64_3 (-0.2353306302832519)
#define CUSCI_COS_POLY_F64_4 (0.02580688794179024)
#define CUSCI_COS_POLY_F64_5 (-0.0019294935479810817)
#define CUSCI_COS_POLY_F64_6 (0.00010369908016804612)
#define CUSCI_SIN_POLY_F32_0 (1.141592622e+00f)
#define CUSCI_SIN_POLY_F32_1 (-5.167701244e+00f)
#define CUSCI_SIN_POLY_F32_2 (2.549474955e+00f)
#define CUSCI_SIN_POLY_F32_3 (-5.858659148e-01f)
#define CUSCI_COS_POLY_F32_0 (4.934802055e+00f)
#define CUSCI_COS_POLY_F32_1 (-4.058670521e+00f)
#define CUSCI_COS_POLY_F32_2 (1.333438158e+00f)
#define CUSCI_COS_POLY_F32_3 (-2.140410542e-01f)
#define CUSCI_HALF_LN_2PI (0.9189385332046728)
#define CUSCI_STIRLING_1 (0.08333333333333333)
#define CUSCI_STIRLING_2 (0.002777777777777778)
#define CUSCI_STIRLING_3 (0.0007936507936507937)
#define CUSCI_STIRLING_4 (0.0005952380952380953)
#define CUSCI_STIRLING_5 (0.0008417508417508417)
#define CUSCI_PTRS_K_LIMIT (4611686018427387904.0)
#define CUSCI_LN_FACTORIAL_0 (0.0)
#define CUSCI_LN_FACTORIAL_1 (0.0)
#define CUSCI_LN_FACTORIAL_2 (0.6931471805599453)
#define CUSCI_LN_FACTORIAL_3 (1.791759469228055)
#define CUSCI_LN_FACTORIAL_4 (3.1780538303479458)
#define CUSCI_LN_FACTORIAL_5 (4.787491742782046)
#define CUSCI_LN_FACTORIAL_6 (6.579251212010101)
#define CUSCI_LN_FACTORIAL_7 (8.525161361065415)
#define CUSCI_LN_FACTORIAL_8 (10.60460290274525)
#define CUSCI_LN_FACTORIAL_9 (12.801827480081469)

#define CUSCI_INF64 (__longlong_as_double(0x7ff0000000000000LL))
#define CUSCI_NAN64 (__longlong_as_double(0x7ff8000000000000LL))
#define CUSCI_INF32 (__uint_as_float(0x7f800000u))
#define CUSCI_NAN32 (__uint_as_float(0x7fc00000u))
#define CUSCI_MIN_POSITIVE_F64 (2.2250738585072014e-308)
#define CUSCI_MIN_POSITIVE_F32 (1.17549435e-38f)

/* ------------------------------------------------------------------------- */
/* Philox4x32-10                                                             */
/* ------------------------------------------------------------------------- */

/* Philox4x32 with 10 rounds (Random123 philox4x32_10); ctr = (x, y, z, w) =
   words 0..3, key = (x, y). */
__device__ __forceinline__ uint4 cusci_philox4x32_10(uint4 ctr, uint2 key)
{
    unsigned int c0 = ctr.x, c1 = ctr.y, c2 = ctr.z, c3 = ctr.w;
    unsigned int k0 = key.x, k1 = key.y;
#pragma unroll
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {
            k0 += CUSCI_PHILOX_W0;
            k1 += CUSCI_PHILOX_W1;
        }
        const unsigned int hi0 = __umulhi(CUSCI_PHILOX_M0, c0);
        const unsigned int lo0 = CUSCI_PHILOX_M0 * c0;
        const unsigned int hi1 = __umulhi(CUSCI_PHILOX_M1, c2);
        const unsigned int lo1 = CUSCI_PHILOX_M1 * c2;
        const unsigned int n0 = hi1 ^ c1 ^ k0;
        const unsigned int n2 = hi0 ^ c3 ^ k1;
        c0 = n0;
        c1 = lo1;
        c2 = n2;
        c3 = lo0;
    }
    return make_uint4(c0, c1, c2, c3);
}

/* [seed as u32, (seed >> 32) as u32] */
__device__ __forceinline__ uint2 cusci_seed_key(cusci_u64 seed)
{
    return make_uint2((unsigned int)seed, (unsigned int)(seed >> 32));
}

/* Philox block `block` of raw stream (seed, stream):
   counter [block_lo, block_hi, stream_lo, stream_hi], key cusci_seed_key(seed). */
__device__ __forceinline__ uint4 cusci_raw_block(cusci_u64 seed, cusci_u64 stream, cusci_u64 block)
{
    return cusci_philox4x32_10(
        make_uint4((unsigned int)block, (unsigned int)(block >> 32), (unsigned int)stream,
                   (unsigned int)(stream >> 32)),
        cusci_seed_key(seed));
}

__device__ __forceinline__ unsigned int cusci_uint4_get(uint4 w, unsigned int q)
{
    return q == 0u ? w.x : (q == 1u ? w.y : (q == 2u ? w.z : w.w));
}

/* Raw word i of (seed, stream): cusci_raw_block(seed, stream, i / 4)[i % 4]. */
__device__ __forceinline__ unsigned int cusci_raw_word(cusci_u64 seed, cusci_u64 stream, cusci_u64 i)
{
    return cusci_uint4_get(cusci_raw_block(seed, stream, i >> 2), (unsigned int)(i & 3ULL));
}

/* ------------------------------------------------------------------------- */
/* Uniform floats                                                            */
/* ------------------------------------------------------------------------- */

/* ((w >> 9) + 0.5) * 2^-23, in [2^-24, 1 - 2^-24]; exact. */
__device__ __forceinline__ float cusci_u32_to_f32_open(unsigned int w)
{
    return __fmul_rn(__fadd_rn(__uint2float_rn(w >> 9), 0.5f), CUSCI_TWO_M23_F32);
}

/* m = (hi << 20) | (lo >> 12) (52 bits); (m + 0.5) * 2^-52; exact. */
__device__ __forceinline__ double cusci_u64_to_f64_open(unsigned int hi, unsigned int lo)
{
    const cusci_u64 m = (((cusci_u64)hi) << 20) | (((cusci_u64)lo) >> 12);
    return __dmul_rn(__dadd_rn(__ull2double_rn(m), 0.5), CUSCI_TWO_M52_F64);
}

/* ------------------------------------------------------------------------- */
/* Polynomials (Horner)                                                      */
/* ------------------------------------------------------------------------- */

/* ln_poly_f64: degree-6 Horner, c0 + z (c1 + z (... + z c6)) */
__device__ __forceinline__ double cusci_ln_poly_f64(double z)
{
    return __dadd_rn(CUSCI_LN_POLY_F64_0, __dmul_rn(z, __dadd_rn(CUSCI_LN_POLY_F64_1, __dmul_rn(z, __dadd_rn(CUSCI_LN_POLY_F64_2, __dmul_rn(z, __dadd_rn(CUSCI_LN_POLY_F64_3, __dmul_rn(z, __dadd_rn(CUSCI_LN_POLY_F64_4, __dmul_rn(z, __dadd_rn(CUSCI_LN_POLY_F64_5, __dmul_rn(z, CUSCI_LN_POLY_F64_6))))))))))));
}

/* ln_poly_f32: degree-2 Horner, c0 + z (c1 + z (... + z c2)) */
__device__ __forceinline__ float cusci_ln_poly_f32(float z)
{
    return __fadd_rn(CUSCI_LN_POLY_F32_0, __fmul_rn(z, __fadd_rn(CUSCI_LN_POLY_F32_1, __fmul_rn(z, CUSCI_LN_POLY_F32_2))));
}

/* exp_poly_f64: degree-4 Horner, c0 + z (c1 + z (... + z c4)) */
__device__ __forceinline__ double cusci_exp_poly_f64(double z)
{
    return __dadd_rn(CUSCI_EXP_POLY_F64_0, __dmul_rn(z, __dadd_rn(CUSCI_EXP_POLY_F64_1, __dmul_rn(z, __dadd_rn(CUSCI_EXP_POLY_F64_2, __dmul_rn(z, __dadd_rn(CUSCI_EXP_POLY_F64_3, __dmul_rn(z, CUSCI_EXP_POLY_F64_4))))))));
}

/* exp_poly_f32: degree-2 Horner, c0 + z (c1 + z (... + z c2)) */
__device__ __forceinline__ float cusci_exp_poly_f32(float z)
{
    return __fadd_rn(CUSCI_EXP_POLY_F32_0, __fmul_rn(z, __fadd_rn(CUSCI_EXP_POLY_F32_1, __fmul_rn(z, CUSCI_EXP_POLY_F32_2))));
}

/* sin_poly_f64: degree-6 Horner, c0 + z (c1 + z (... + z c6)) */
__device__ __forceinline__ double cusci_sin_poly_f64(double z)
{
    return __dadd_rn(CUSCI_SIN_POLY_F64_0, __dmul_rn(z, __dadd_rn(CUSCI_SIN_POLY_F64_1, __dmul_rn(z, __dadd_rn(CUSCI_SIN_POLY_F64_2, __dmul_rn(z, __dadd_rn(CUSCI_SIN_POLY_F64_3, __dmul_rn(z, __dadd_rn(CUSCI_SIN_POLY_F64_4, __dmul_rn(z, __dadd_rn(CUSCI_SIN_POLY_F64_5, __dmul_rn(z, CUSCI_SIN_POLY_F64_6))))))))))));
}

/* cos_poly_f64: degree-6 Horner, c0 + z (c1 + z (... + z c6)) */
__device__ __forceinline__ double cusci_cos_poly_f64(double z)
{
    return __dadd_rn(CUSCI_COS_POLY_F64_0, __dmul_rn(z, __dadd_rn(CUSCI_COS_POLY_F64_1, __dmul_rn(z, __dadd_rn(CUSCI_COS_POLY_F64_2, __dmul_rn(z, __dadd_rn(CUSCI_COS_POLY_F64_3, __dmul_rn(z, __dadd_rn(CUSCI_COS_POLY_F64_4, __dmul_rn(z, __dadd_rn(CUSCI_COS_POLY_F64_5, __dmul_rn(z, CUSCI_COS_POLY_F64_6))))))))))));
}

/* sin_poly_f32: degree-3 Horner, c0 + z (c1 + z (... + z c3)) */
__device__ __forceinline__ float cusci_sin_poly_f32(float z)
{
    return __fadd_rn(CUSCI_SIN_POLY_F32_0, __fmul_rn(z, __fadd_rn(CUSCI_SIN_POLY_F32_1, __fmul_rn(z, __fadd_rn(CUSCI_SIN_POLY_F32_2, __fmul_rn(z, CUSCI_SIN_POLY_F32_3))))));
}

/* cos_poly_f32: degree-3 Horner, c0 + z (c1 + z (... + z c3)) */
__device__ __forceinline__ float cusci_cos_poly_f32(float z)
{
    return __fadd_rn(CUSCI_COS_POLY_F32_0, __fmul_rn(z, __fadd_rn(CUSCI_COS_POLY_F32_1, __fmul_rn(z, __fadd_rn(CUSCI_COS_POLY_F32_2, __fmul_rn(z, CUSCI_COS_POLY_F32_3))))));
}

/* ------------------------------------------------------------------------- */
/* Natural logarithm                                                         */
/* ------------------------------------------------------------------------- */

__device__ __forceinline__ double cusci_ln_f64(double x)
{
    if (!(x > 0.0)) {
        if (x == 0.0) {
            return -CUSCI_INF64;
        }
        if (x != x) {
            return x;
        }
        return CUSCI_NAN64;
    }
    if (x == CUSCI_INF64) {
        return x;
    }
    double xs = x;
    int k = -1023;
    if (x < CUSCI_MIN_POSITIVE_F64) {
        xs = __dmul_rn(x, CUSCI_TWO54_F64);
        k = -1023 - 54;
    }
    const cusci_u64 bits = (cusci_u64)__double_as_longlong(xs);
    k += (int)(bits >> 52);
    double m = __longlong_as_double((cusci_i64)((bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL));
    if (m > CUSCI_SQRT2_F64) {
        m = __dmul_rn(m, 0.5);
        k += 1;
    }
    const double f = __dsub_rn(m, 1.0);
    const double kf = __int2double_rn(k);
    const double s = __ddiv_rn(f, __dadd_rn(2.0, f));
    const double z = __dmul_rn(s, s);
    const double r = __dmul_rn(z, cusci_ln_poly_f64(z));
    const double hfsq = __dmul_rn(__dmul_rn(0.5, f), f);
    /* kf*LN2_HI - ((hfsq - (s*(hfsq + r) + kf*LN2_LO)) - f) */
    return __dsub_rn(__dmul_rn(kf, CUSCI_LN2_HI_F64),
                     __dsub_rn(__dsub_rn(hfsq, __dadd_rn(__dmul_rn(s, __dadd_rn(hfsq, r)),
                                                         __dmul_rn(kf, CUSCI_LN2_LO_F64))),
                               f));
}

__device__ __forceinline__ float cusci_ln_f32(float x)
{
    if (!(x > 0.0f)) {
        if (x == 0.0f) {
            return -CUSCI_INF32;
        }
        if (x != x) {
            return x;
        }
        return CUSCI_NAN32;
    }
    if (x == CUSCI_INF32) {
        return x;
    }
    float xs = x;
    int k = -127;
    if (x < CUSCI_MIN_POSITIVE_F32) {
        xs = __fmul_rn(x, CUSCI_TWO25_F32);
        k = -127 - 25;
    }
    const unsigned int bits = __float_as_uint(xs);
    k += (int)(bits >> 23);
    float m = __uint_as_float((bits & 0x007fffffu) | 0x3f800000u);
    if (m > CUSCI_SQRT2_F32) {
        m = __fmul_rn(m, 0.5f);
        k += 1;
    }
    const float f = __fsub_rn(m, 1.0f);
    const float kf = __int2float_rn(k);
    const float s = __fdiv_rn(f, __fadd_rn(2.0f, f));
    const float z = __fmul_rn(s, s);
    const float r = __fmul_rn(z, cusci_ln_poly_f32(z));
    const float hfsq = __fmul_rn(__fmul_rn(0.5f, f), f);
    return __fsub_rn(__fmul_rn(kf, CUSCI_LN2_HI_F32),
                     __fsub_rn(__fsub_rn(hfsq, __fadd_rn(__fmul_rn(s, __fadd_rn(hfsq, r)),
                                                         __fmul_rn(kf, CUSCI_LN2_LO_F32))),
                               f));
}

/* ------------------------------------------------------------------------- */
/* Exponential                                                               */
/* ------------------------------------------------------------------------- */

/* 2^k for -1022 <= k <= 1023 */
__device__ __forceinline__ double cusci_pow2_f64(int k)
{
    return __longlong_as_double((cusci_i64)(((cusci_u64)(unsigned int)(k + 1023)) << 52));
}

/* 2^k for -126 <= k <= 127 */
__device__ __forceinline__ float cusci_pow2_f32(int k)
{
    return __uint_as_float(((unsigned int)(k + 127)) << 23);
}

__device__ __forceinline__ double cusci_exp_f64(double x)
{
    if (x != x) {
        return x;
    }
    if (x > CUSCI_EXP_MAX_ARG_F64) {
        return CUSCI_INF64;
    }
    if (x < CUSCI_EXP_MIN_ARG_F64) {
        return 0.0;
    }
    const double kf = __dsub_rn(__dadd_rn(__dmul_rn(x, CUSCI_INV_LN2_F64), CUSCI_ROUND_SHIFT_F64),
                                CUSCI_ROUND_SHIFT_F64);
    const int k = __double2int_rz(kf);
    const double hi = __dsub_rn(x, __dmul_rn(kf, CUSCI_LN2_HI_F64));
    const double lo = __dmul_rn(kf, CUSCI_LN2_LO_F64);
    const double r = __dsub_rn(hi, lo);
    const double w = __dmul_rn(r, r);
    const double c = __dsub_rn(r, __dmul_rn(w, cusci_exp_poly_f64(w)));
    /* 1 - ((lo - (r*c)/(2 - c)) - hi) */
    const double y =
        __dsub_rn(1.0, __dsub_rn(__dsub_rn(lo, __ddiv_rn(__dmul_rn(r, c), __dsub_rn(2.0, c))), hi));
    if (k > 1023) {
        return __dmul_rn(__dmul_rn(y, cusci_pow2_f64(k - 1)), 2.0);
    } else if (k < -1021) {
        return __dmul_rn(__dmul_rn(y, cusci_pow2_f64(k + 1000)), cusci_pow2_f64(-1000));
    } else {
        return __dmul_rn(y, cusci_pow2_f64(k));
    }
}

__device__ __forceinline__ float cusci_exp_f32(float x)
{
    if (x != x) {
        return x;
    }
    if (x > CUSCI_EXP_MAX_ARG_F32) {
        return CUSCI_INF32;
    }
    if (x < CUSCI_EXP_MIN_ARG_F32) {
        return 0.0f;
    }
    const float kf = __fsub_rn(__fadd_rn(__fmul_rn(x, CUSCI_INV_LN2_F32), CUSCI_ROUND_SHIFT_F32),
                               CUSCI_ROUND_SHIFT_F32);
    const int k = __float2int_rz(kf);
    const float hi = __fsub_rn(x, __fmul_rn(kf, CUSCI_LN2_HI_F32));
    const float lo = __fmul_rn(kf, CUSCI_LN2_LO_F32);
    const float r = __fsub_rn(hi, lo);
    const float w = __fmul_rn(r, r);
    const float c = __fsub_rn(r, __fmul_rn(w, cusci_exp_poly_f32(w)));
    const float y =
        __fsub_rn(1.0f, __fsub_rn(__fsub_rn(lo, __fdiv_rn(__fmul_rn(r, c), __fsub_rn(2.0f, c))), hi));
    if (k > 127) {
        return __fmul_rn(__fmul_rn(y, cusci_pow2_f32(k - 1)), 2.0f);
    } else if (k < -125) {
        return __fmul_rn(__fmul_rn(y, cusci_pow2_f32(k + 100)), cusci_pow2_f32(-100));
    } else {
        return __fmul_rn(y, cusci_pow2_f32(k));
    }
}

/* ------------------------------------------------------------------------- */
/* sin(pi x), cos(pi x)                                                      */
/* ------------------------------------------------------------------------- */

/* Returns (sin(pi x), cos(pi x)) as (x, y). */
__device__ __forceinline__ double2 cusci_sincospi_f64(double x)
{
    const cusci_u64 bits = (cusci_u64)__double_as_longlong(x);
    if ((bits & 0x7ff0000000000000ULL) == 0x7ff0000000000000ULL) {
        return make_double2(CUSCI_NAN64, CUSCI_NAN64);
    }
    const double ax = __longlong_as_double((cusci_i64)(bits & 0x7fffffffffffffffULL));
    double r = 0.0;
    unsigned int n = 0u;
    if (ax < 9007199254740992.0) {
        const double v = __dmul_rn(2.0, x);
        cusci_i64 iv = __double2ll_rz(v);
        double fr = __dsub_rn(v, __ll2double_rn(iv));
        if (fr > 0.5) {
            fr = __dsub_rn(fr, 1.0);
            iv += 1;
        } else if (fr < -0.5) {
            fr = __dadd_rn(fr, 1.0);
            iv -= 1;
        }
        r = __dmul_rn(fr, 0.5);
        n = (unsigned int)(iv & 3LL);
    }
    const double z = __dmul_rn(r, r);
    const double sp = __dadd_rn(__dmul_rn(2.0, r), __dmul_rn(r, cusci_sin_poly_f64(z)));
    const double cp = __dsub_rn(1.0, __dmul_rn(z, cusci_cos_poly_f64(z)));
    if (n == 0u) {
        return make_double2(sp, cp);
    } else if (n == 1u) {
        return make_double2(cp, -sp);
    } else if (n == 2u) {
        return make_double2(-sp, -cp);
    } else {
        return make_double2(-cp, sp);
    }
}

/* Returns (sin(pi x), cos(pi x)) as (x, y). */
__device__ __forceinline__ float2 cusci_sincospi_f32(float x)
{
    const unsigned int bits = __float_as_uint(x);
    if ((bits & 0x7f800000u) == 0x7f800000u) {
        return make_float2(CUSCI_NAN32, CUSCI_NAN32);
    }
    const float ax = __uint_as_float(bits & 0x7fffffffu);
    float r = 0.0f;
    unsigned int n = 0u;
    if (ax < 16777216.0f) {
        const float v = __fmul_rn(2.0f, x);
        int iv = __float2int_rz(v);
        float fr = __fsub_rn(v, __int2float_rn(iv));
        if (fr > 0.5f) {
            fr = __fsub_rn(fr, 1.0f);
            iv += 1;
        } else if (fr < -0.5f) {
            fr = __fadd_rn(fr, 1.0f);
            iv -= 1;
        }
        r = __fmul_rn(fr, 0.5f);
        n = (unsigned int)(iv & 3);
    }
    const float z = __fmul_rn(r, r);
    const float sp = __fadd_rn(__fmul_rn(2.0f, r), __fmul_rn(r, cusci_sin_poly_f32(z)));
    const float cp = __fsub_rn(1.0f, __fmul_rn(z, cusci_cos_poly_f32(z)));
    if (n == 0u) {
        return make_float2(sp, cp);
    } else if (n == 1u) {
        return make_float2(cp, -sp);
    } else if (n == 2u) {
        return make_float2(-sp, -cp);
    } else {
        return make_float2(-cp, sp);
    }
}

/* ------------------------------------------------------------------------- */
/* Normal (ziggurat; the tables are ziggurat.cuh, prepended to this file)    */
/* ------------------------------------------------------------------------- */

/* The f32 word: layer in its low CUSCI_ZIG_LB_F32 bits, then the sign, then J (philox/normal.rs). */
#define CUSCI_ZIG_LAYERS_F32 (1u << CUSCI_ZIG_LB_F32)
#define CUSCI_ZIG_LAYER_MASK_F32 (CUSCI_ZIG_LAYERS_F32 - 1u)
#define CUSCI_ZIG_SIGN_F32 CUSCI_ZIG_LAYERS_F32
#define CUSCI_ZIG_J_SHIFT_F32 (CUSCI_ZIG_LB_F32 + 1u)

/* word 1 of the counters of the retry sub-streams (| 1 for f64 normals) */
#define CUSCI_ZIG_TAG (0x80000000u)

/* First two words of philox([1, 0x40000000, stream_lo, stream_hi], seed key). */
__device__ __forceinline__ uint2 cusci_zig_key(cusci_u64 seed, cusci_u64 stream)
{
    const uint4 w = cusci_philox4x32_10(
        make_uint4(1u, 0x40000000u, (unsigned int)stream, (unsigned int)(stream >> 32)), cusci_seed_key(seed));
    return make_uint2(w.x, w.y);
}

/* Block k of the retry sub-stream of normal number i. */
__device__ __forceinline__ uint4 cusci_zig_block(uint2 zkey, unsigned int tag, cusci_u64 i, unsigned int k)
{
    return cusci_philox4x32_10(make_uint4(k, tag, (unsigned int)i, (unsigned int)(i >> 32)), zkey);
}

/* The whole ziggurat for raw word w of normal number i (philox::normal_f32);
   kept out of line: the fast path inlines only the first test. */
__device__ __noinline__ float cusci_zig_slow_f32(unsigned int w, uint2 zkey, cusci_u64 i)
{
    const float r = __uint_as_float(CUSCI_ZIG_R_F32);
    unsigned int k = 0u;
    for (;;) {
        const unsigned int l = w & CUSCI_ZIG_LAYER_MASK_F32;
        const bool neg = (w & CUSCI_ZIG_SIGN_F32) != 0u;
        const unsigned int j = w >> CUSCI_ZIG_J_SHIFT_F32;
        const float x = __fmul_rn(__uint2float_rn(j), __uint_as_float(cusci_zig_w_f32[l]));
        if (j < cusci_zig_k_f32[l]) return neg ? -x : x;
        uint4 b = cusci_zig_block(zkey, CUSCI_ZIG_TAG, i, k++);
        if (l == 0u) {
            for (;;) {
                const float xt = __fdiv_rn(-cusci_ln_f32(cusci_u32_to_f32_open(b.x)), r);
                const float y = -cusci_ln_f32(cusci_u32_to_f32_open(b.y));
                if (__fadd_rn(y, y) >= __fmul_rn(xt, xt)) {
                    const float z = __fadd_rn(r, xt);
                    return neg ? -z : z;
                }
                b = cusci_zig_block(zkey, CUSCI_ZIG_TAG, i, k++);
            }
        }
        const float fl = __uint_as_float(cusci_zig_f_f32[l]);
        const float fp = __uint_as_float(cusci_zig_f_f32[l - 1u]);
        if (__fadd_rn(fl, __fmul_rn(cusci_u32_to_f32_open(b.x), __fsub_rn(fp, fl))) <
            cusci_exp_f32(-__fmul_rn(__fmul_rn(x, x), 0.5f)))
            return neg ? -x : x;
        w = b.z;
    }
}

/* Standard normal f32 number i from its raw word w (philox::normal_f32). */
__device__ __forceinline__ float cusci_zig_normal_f32(unsigned int w, uint2 zkey, cusci_u64 i)
{
    const unsigned int l = w & CUSCI_ZIG_LAYER_MASK_F32, j = w >> CUSCI_ZIG_J_SHIFT_F32;
    if (j < cusci_zig_k_f32[l]) {
        const float x = __fmul_rn(__uint2float_rn(j), __uint_as_float(cusci_zig_w_f32[l]));
        return (w & CUSCI_ZIG_SIGN_F32) != 0u ? -x : x;
    }
    return cusci_zig_slow_f32(w, zkey, i);
}

/* philox::normal_f64: the 52-bit J = (hi >> 9) << 29 | lo >> 3. */
__device__ __noinline__ double cusci_zig_slow_f64(unsigned int hi, unsigned int lo, uint2 zkey, cusci_u64 i)
{
    const double r = __longlong_as_double((long long)CUSCI_ZIG_R_F64);
    const unsigned int tag = CUSCI_ZIG_TAG | 1u;
    unsigned int k = 0u;
    for (;;) {
        const unsigned int l = hi & 255u;
        const bool neg = (hi & 256u) != 0u;
        const cusci_u64 j = ((cusci_u64)(hi >> 9) << 29) | (cusci_u64)(lo >> 3);
        const double x = __dmul_rn(__ull2double_rn(j), __longlong_as_double((long long)cusci_zig_w_f64[l]));
        if (j < cusci_zig_k_f64[l]) return neg ? -x : x;
        uint4 b = cusci_zig_block(zkey, tag, i, k++);
        if (l == 0u) {
            for (;;) {
                const double xt = __ddiv_rn(-cusci_ln_f64(cusci_u64_to_f64_open(b.x, b.y)), r);
                const double y = -cusci_ln_f64(cusci_u64_to_f64_open(b.z, b.w));
                if (__dadd_rn(y, y) >= __dmul_rn(xt, xt)) {
                    const double z = __dadd_rn(r, xt);
                    return neg ? -z : z;
                }
                b = cusci_zig_block(zkey, tag, i, k++);
            }
        }
        const double fl = __longlong_as_double((long long)cusci_zig_f_f64[l]);
        const double fp = __longlong_as_double((long long)cusci_zig_f_f64[l - 1u]);
        if (__dadd_rn(fl, __dmul_rn(cusci_u64_to_f64_open(b.x, b.y), __dsub_rn(fp, fl))) <
            cusci_exp_f64(-__dmul_rn(__dmul_rn(x, x), 0.5)))
            return neg ? -x : x;
        const uint4 nx = cusci_zig_block(zkey, tag, i, k++);
        hi = nx.x;
        lo = nx.y;
    }
}

/* Standard normal f64 number i from its words (hi, lo) (philox::normal_f64). */
__device__ __forceinline__ double cusci_zig_normal_f64(unsigned int hi, unsigned int lo, uint2 zkey, cusci_u64 i)
{
    const unsigned int l = hi & 255u;
    const cusci_u64 j = ((cusci_u64)(hi >> 9) << 29) | (cusci_u64)(lo >> 3);
    if (j < cusci_zig_k_f64[l]) {
        const double x = __dmul_rn(__ull2double_rn(j), __longlong_as_double((long long)cusci_zig_w_f64[l]));
        return (hi & 256u) != 0u ? -x : x;
    }
    return cusci_zig_slow_f64(hi, lo, zkey, i);
}

/* The four normal f32s of Philox block b (raw words w): numbers 4b .. 4b+3. */
__device__ __forceinline__ float4 cusci_normal_f32_block(uint4 w, uint2 zkey, cusci_u64 b)
{
    const cusci_u64 i = b << 2;
    return make_float4(cusci_zig_normal_f32(w.x, zkey, i), cusci_zig_normal_f32(w.y, zkey, i + 1ULL),
                       cusci_zig_normal_f32(w.z, zkey, i + 2ULL), cusci_zig_normal_f32(w.w, zkey, i + 3ULL));
}

/* The two normal f64s of Philox block b: numbers 2b, 2b+1. */
__device__ __forceinline__ double2 cusci_normal_f64_block(uint4 w, uint2 zkey, cusci_u64 b)
{
    const cusci_u64 i = b << 1;
    return make_double2(cusci_zig_normal_f64(w.x, w.y, zkey, i), cusci_zig_normal_f64(w.z, w.w, zkey, i + 1ULL));
}

/* ------------------------------------------------------------------------- */
/* Other continuous distributions                                            */
/* ------------------------------------------------------------------------- */

/* The two uniform f64s of a Philox block. */
__device__ __forceinline__ double2 cusci_uniform_f64_block(uint4 w)
{
    return make_double2(cusci_u64_to_f64_open(w.x, w.y), cusci_u64_to_f64_open(w.z, w.w));
}

__device__ __forceinline__ float cusci_exponential_f32(unsigned int w)
{
    return -cusci_ln_f32(cusci_u32_to_f32_open(w));
}

__device__ __forceinline__ double cusci_exponential_f64(unsigned int hi, unsigned int lo)
{
    return -cusci_ln_f64(cusci_u64_to_f64_open(hi, lo));
}

/* exp(mean + sigma * z) */
__device__ __forceinline__ float cusci_lognormal_f32(float mean, float sigma, float z)
{
    return cusci_exp_f32(__fadd_rn(mean, __fmul_rn(sigma, z)));
}

__device__ __forceinline__ double cusci_lognormal_f64(double mean, double sigma, double z)
{
    return cusci_exp_f64(__dadd_rn(mean, __dmul_rn(sigma, z)));
}

/* ------------------------------------------------------------------------- */
/* Integers                                                                  */
/* ------------------------------------------------------------------------- */

/* high - low <= 2^32 (low < high) */
__device__ __forceinline__ bool cusci_integers_use_one_word(cusci_i64 low, cusci_i64 high)
{
    return ((cusci_u64)high - (cusci_u64)low) <= (1ULL << 32);
}

/* low + ((w * range) >> 32), 1 <= range <= 2^32 */
__device__ __forceinline__ cusci_i64 cusci_uniform_int_32(unsigned int w, cusci_i64 low, cusci_i64 high)
{
    const cusci_u64 range = (cusci_u64)high - (cusci_u64)low;
    return (cusci_i64)((cusci_u64)low + ((((cusci_u64)w) * range) >> 32));
}

/* low + mulhi64((hi << 32) | lo, range) */
__device__ __forceinline__ cusci_i64 cusci_uniform_int_64(unsigned int hi, unsigned int lo, cusci_i64 low,
                                                          cusci_i64 high)
{
    const cusci_u64 range = (cusci_u64)high - (cusci_u64)low;
    const cusci_u64 x = (((cusci_u64)hi) << 32) | (cusci_u64)lo;
    return (cusci_i64)((cusci_u64)low + __umul64hi(x, range));
}

/* ------------------------------------------------------------------------- */
/* Poisson                                                                   */
/* ------------------------------------------------------------------------- */

/* First two words of philox([0, 0x40000000, stream_lo, stream_hi], seed key). */
__device__ __forceinline__ uint2 cusci_poisson_key(cusci_u64 seed, cusci_u64 stream)
{
    const uint4 w = cusci_philox4x32_10(
        make_uint4(0u, 0x40000000u, (unsigned int)stream, (unsigned int)(stream >> 32)), cusci_seed_key(seed));
    return make_uint2(w.x, w.y);
}

/* ln(k!) for k >= 0: table below 10, Stirling series otherwise. */
__device__ __forceinline__ double cusci_ln_factorial(cusci_i64 k)
{
    if (k < 10) {
        switch ((int)k) {
        case 0: return CUSCI_LN_FACTORIAL_0;
        case 1: return CUSCI_LN_FACTORIAL_1;
        case 2: return CUSCI_LN_FACTORIAL_2;
        case 3: return CUSCI_LN_FACTORIAL_3;
        case 4: return CUSCI_LN_FACTORIAL_4;
        case 5: return CUSCI_LN_FACTORIAL_5;
        case 6: return CUSCI_LN_FACTORIAL_6;
        case 7: return CUSCI_LN_FACTORIAL_7;
        case 8: return CUSCI_LN_FACTORIAL_8;
        default: return CUSCI_LN_FACTORIAL_9;
        }
    }
    const double x = __ll2double_rn(k + 1);
    const double ix = __ddiv_rn(1.0, x);
    const double t = __dmul_rn(ix, ix);
    const double series = __dmul_rn(
        ix, __dsub_rn(CUSCI_STIRLING_1,
                      __dmul_rn(t, __dsub_rn(CUSCI_STIRLING_2,
                                             __dmul_rn(t, __dsub_rn(CUSCI_STIRLING_3,
                                                                    __dmul_rn(t, __dsub_rn(CUSCI_STIRLING_4,
                                                                                           __dmul_rn(t, CUSCI_STIRLING_5)))))))));
    /* (((x - 0.5) * ln x - x) + HALF_LN_2PI) + series */
    return __dadd_rn(__dadd_rn(__dsub_rn(__dmul_rn(__dsub_rn(x, 0.5), cusci_ln_f64(x)), x), CUSCI_HALF_LN_2PI),
                     series);
}

struct cusci_poisson_params {
    double lam;
    double exp_neg_lam;
    double ln_lam;
    double b;
    double a;
    double ln_inv_alpha;
    double vr;
};

__device__ __forceinline__ cusci_poisson_params cusci_poisson_params_new(double lam)
{
    cusci_poisson_params p;
    p.lam = lam;
    p.exp_neg_lam = cusci_exp_f64(-lam);
    p.ln_lam = cusci_ln_f64(lam);
    p.b = __dadd_rn(0.931, __dmul_rn(2.53, __dsqrt_rn(lam)));
    p.a = __dadd_rn(-0.059, __dmul_rn(0.02483, p.b));
    p.ln_inv_alpha = cusci_ln_f64(__dadd_rn(1.1239, __ddiv_rn(1.1328, __dsub_rn(p.b, 3.4))));
    p.vr = __dsub_rn(0.9277, __ddiv_rn(3.6224, __dsub_rn(p.b, 2.0)));
    return p;
}

/* Poisson element i with sub-stream key `key` (see philox::poisson_sample). */
__device__ __forceinline__ cusci_i64 cusci_poisson_sample(const cusci_poisson_params& p, uint2 key, cusci_u64 i)
{
    const double lam = p.lam;
    if (!(lam > 0.0)) {
        return 0;
    }
    const unsigned int c2 = (unsigned int)i;
    const unsigned int c3 = (unsigned int)(i >> 32);
    unsigned int j = 0u;
    if (lam < 10.0) {
        double prod = 1.0;
        cusci_i64 k = 0;
        for (;;) {
            const uint4 w = cusci_philox4x32_10(make_uint4(j, 0x80000000u, c2, c3), key);
            j += 1u;
            prod = __dmul_rn(prod, cusci_u64_to_f64_open(w.x, w.y));
            if (prod <= p.exp_neg_lam) {
                return k;
            }
            k += 1;
            prod = __dmul_rn(prod, cusci_u64_to_f64_open(w.z, w.w));
            if (prod <= p.exp_neg_lam) {
                return k;
            }
            k += 1;
        }
    }
    const double two_a = __dmul_rn(2.0, p.a);
    for (;;) {
        const uint4 w = cusci_philox4x32_10(make_uint4(j, 0x80000000u, c2, c3), key);
        j += 1u;
        const double u = __dsub_rn(cusci_u64_to_f64_open(w.x, w.y), 0.5);
        const double v = cusci_u64_to_f64_open(w.z, w.w);
        const double au = u < 0.0 ? -u : u;
        const double us = __dsub_rn(0.5, au);
        /* ((two_a / us + b) * u + lam) + 0.43 */
        const double x = __dadd_rn(__dadd_rn(__dmul_rn(__dadd_rn(__ddiv_rn(two_a, us), p.b), u), lam), 0.43);
        if (!(x >= 0.0) || x >= CUSCI_PTRS_K_LIMIT) {
            continue;
        }
        const cusci_i64 k = __double2ll_rz(x);
        if (us >= 0.07 && v <= p.vr) {
            return k;
        }
        if (us < 0.013 && v > us) {
            continue;
        }
        const double kf = __ll2double_rn(k);
        const double lhs = __dsub_rn(__dadd_rn(cusci_ln_f64(v), p.ln_inv_alpha),
                                     cusci_ln_f64(__dadd_rn(__ddiv_rn(p.a, __dmul_rn(us, us)), p.b)));
        const double rhs = __dsub_rn(__dadd_rn(-lam, __dmul_rn(kf, p.ln_lam)), cusci_ln_factorial(k));
        if (lhs <= rhs) {
            return k;
        }
    }
}

/* ------------------------------------------------------------------------- */
/* Array / pointer forms (same results as the value-returning forms above)   */
/* ------------------------------------------------------------------------- */

/* out = philox4x32_10(ctr, key) with plain arrays. */
__device__ __forceinline__ void cusci_philox4x32_10(const unsigned int ctr[4], const unsigned int key[2],
                                                    unsigned int out[4])
{
    const uint4 w = cusci_philox4x32_10(make_uint4(ctr[0], ctr[1], ctr[2], ctr[3]), make_uint2(key[0], key[1]));
    out[0] = w.x;
    out[1] = w.y;
    out[2] = w.z;
    out[3] = w.w;
}

/* *s = sin(pi x), *c = cos(pi x) */
__device__ __forceinline__ void cusci_sincospi_f32(float x, float* s, float* c)
{
    const float2 r = cusci_sincospi_f32(x);
    *s = r.x;
    *c = r.y;
}

__device__ __forceinline__ void cusci_sincospi_f64(double x, double* s, double* c)
{
    const double2 r = cusci_sincospi_f64(x);
    *s = r.x;
    *c = r.y;
}

/* ------------------------------------------------------------------------- */
/* Masked / vectorised stores for the kernels                                */
/* ------------------------------------------------------------------------- */

/* Elements i0..i0+3 of a stream go to out[i - start] for start <= i < end;
   one 16-byte store when `vec` (start % 4 == 0 and out 16-byte aligned) and
   the whole group is inside. */
__device__ __forceinline__ void cusci_store4_u32(unsigned int* out, cusci_u64 i0, cusci_u64 start, cusci_u64 end,
                                                 bool vec, uint4 v)
{
    if (vec && i0 >= start && i0 + 4ULL <= end) {
        *reinterpret_cast<uint4*>(out + (i0 - start)) = v;
        return;
    }
    if (i0 >= start && i0 < end) out[i0 - start] = v.x;
    if (i0 + 1ULL >= start && i0 + 1ULL < end) out[i0 + 1ULL - start] = v.y;
    if (i0 + 2ULL >= start && i0 + 2ULL < end) out[i0 + 2ULL - start] = v.z;
    if (i0 + 3ULL >= start && i0 + 3ULL < end) out[i0 + 3ULL - start] = v.w;
}

__device__ __forceinline__ void cusci_store4_f32(float* out, cusci_u64 i0, cusci_u64 start, cusci_u64 end, bool vec,
                                                 float4 v)
{
    if (vec && i0 >= start && i0 + 4ULL <= end) {
        *reinterpret_cast<float4*>(out + (i0 - start)) = v;
        return;
    }
    if (i0 >= start && i0 < end) out[i0 - start] = v.x;
    if (i0 + 1ULL >= start && i0 + 1ULL < end) out[i0 + 1ULL - start] = v.y;
    if (i0 + 2ULL >= start && i0 + 2ULL < end) out[i0 + 2ULL - start] = v.z;
    if (i0 + 3ULL >= start && i0 + 3ULL < end) out[i0 + 3ULL - start] = v.w;
}

__device__ __forceinline__ void cusci_store4_i32(int* out, cusci_u64 i0, cusci_u64 start, cusci_u64 end, bool vec,
                                                 int4 v)
{
    if (vec && i0 >= start && i0 + 4ULL <= end) {
        *reinterpret_cast<int4*>(out + (i0 - start)) = v;
        return;
    }
    if (i0 >= start && i0 < end) out[i0 - start] = v.x;
    if (i0 + 1ULL >= start && i0 + 1ULL < end) out[i0 + 1ULL - start] = v.y;
    if (i0 + 2ULL >= start && i0 + 2ULL < end) out[i0 + 2ULL - start] = v.z;
    if (i0 + 3ULL >= start && i0 + 3ULL < end) out[i0 + 3ULL - start] = v.w;
}

/* Two elements i0, i0+1; one 16-byte store when `vec` (start % 2 == 0, out
   16-byte aligned). */
__device__ __forceinline__ void cusci_store2_f64(double* out, cusci_u64 i0, cusci_u64 start, cusci_u64 end, bool vec,
                                                 double2 v)
{
    if (vec && i0 >= start && i0 + 2ULL <= end) {
        *reinterpret_cast<double2*>(out + (i0 - start)) = v;
        return;
    }
    if (i0 >= start && i0 < end) out[i0 - start] = v.x;
    if (i0 + 1ULL >= start && i0 + 1ULL < end) out[i0 + 1ULL - start] = v.y;
}

__device__ __forceinline__ void cusci_store2_i64(cusci_i64* out, cusci_u64 i0, cusci_u64 start, cusci_u64 end,
                                                 bool vec, cusci_i64 a, cusci_i64 b)
{
    if (vec && i0 >= start && i0 + 2ULL <= end) {
        *reinterpret_cast<longlong2*>(out + (i0 - start)) = make_longlong2(a, b);
        return;
    }
    if (i0 >= start && i0 < end) out[i0 - start] = a;
    if (i0 + 1ULL >= start && i0 + 1ULL < end) out[i0 + 1ULL - start] = b;
}

__device__ __forceinline__ bool cusci_aligned16(const void* p)
{
    return (((cusci_u64)p) & 15ULL) == 0ULL;
}

__device__ __forceinline__ cusci_u64 cusci_thread_index()
{
    return (cusci_u64)blockIdx.x * (cusci_u64)blockDim.x + (cusci_u64)threadIdx.x;
}

__device__ __forceinline__ cusci_u64 cusci_thread_stride()
{
    return (cusci_u64)gridDim.x * (cusci_u64)blockDim.x;
}

/* ------------------------------------------------------------------------- */
/* Kernels                                                                   */
/*                                                                           */
/* Every kernel writes elements start .. start+n-1 of its stream to          */
/* out[0 .. n-1] with a grid-stride loop over Philox blocks (one block =     */
/* 4 words = 4 f32 / 2 f64 values); any grid size works. start + n must not  */
/* exceed 2^64.                                                              */
/* ------------------------------------------------------------------------- */

extern "C" __global__ void cusci_random_raw_u32(unsigned int* out, unsigned long long n, unsigned long long seed,
                                                unsigned long long stream, unsigned long long start)
{
    if (n == 0ULL) return;
    const cusci_u64 end = start + n;
    const cusci_u64 first = start >> 2;
    const cusci_u64 nb = ((end - 1ULL) >> 2) - first + 1ULL;
    const bool vec = ((start & 3ULL) == 0ULL) && cusci_aligned16(out);
    for (cusci_u64 t = cusci_thread_index(); t < nb; t += cusci_thread_stride()) {
        const cusci_u64 b = first + t;
        cusci_store4_u32(out, b << 2, start, end, vec, cusci_raw_block(seed, stream, b));
    }
}

extern "C" __global__ void cusci_random_uniform_f32(float* out, unsigned long long n, unsigned long long seed,
                                                    unsigned long long stream, unsigned long long start)
{
    if (n == 0ULL) return;
    const cusci_u64 end = start + n;
    const cusci_u64 first = start >> 2;
    const cusci_u64 nb = ((end - 1ULL) >> 2) - first + 1ULL;
    const bool vec = ((start & 3ULL) == 0ULL) && cusci_aligned16(out);
    for (cusci_u64 t = cusci_thread_index(); t < nb; t += cusci_thread_stride()) {
        const cusci_u64 b = first + t;
        const uint4 w = cusci_raw_block(seed, stream, b);
        cusci_store4_f32(out, b << 2, start, end, vec,
                         make_float4(cusci_u32_to_f32_open(w.x), cusci_u32_to_f32_open(w.y),
                                     cusci_u32_to_f32_open(w.z), cusci_u32_to_f32_open(w.w)));
    }
}

extern "C" __global__ void cusci_random_uniform_f64(double* out, unsigned long long n, unsigned long long seed,
                                                    unsigned long long stream, unsigned long long start)
{
    if (n == 0ULL) return;
    const cusci_u64 end = start + n;
    const cusci_u64 first = start >> 1;
    const cusci_u64 nb = ((end - 1ULL) >> 1) - first + 1ULL;
    const bool vec = ((start & 1ULL) == 0ULL) && cusci_aligned16(out);
    for (cusci_u64 t = cusci_thread_index(); t < nb; t += cusci_thread_stride()) {
        const cusci_u64 b = first + t;
        cusci_store2_f64(out, b << 1, start, end, vec, cusci_uniform_f64_block(cusci_raw_block(seed, stream, b)));
    }
}

/* The f64 normal kernel keeps the ziggurat's first test (98.5% of draws) in the main loop, with the tables
   in shared memory, queues the rest per warp and finishes the queue in place, the warp together, once it
   holds CUSCI_ZIG_WARP_FLUSH elements (one per lane) and at the end: a rare rejection costs one sub-stream
   draw, not a stalled warp, and the corrected lines are still in L2. (The f32 kernel below queues per block
   and each block finishes its own queue after its loop.) Every value depends only on (seed, stream, element), never on
   the launch shape. Launched with 256 threads per block (8 warps). */
#define CUSCI_ZIG_WARP_QUEUE 160u
#define CUSCI_ZIG_WARP_FLUSH 32u

/* Appends the elements e0 + c for the bits c of `rej` (rej != 0 in some lane) to the warp's queue. */
__device__ __forceinline__ unsigned int cusci_zig_enqueue(cusci_u64* q, unsigned int qn, unsigned int rej,
                                                          cusci_u64 e0, unsigned int lane)
{
    const unsigned int cnt = __popc(rej);
    unsigned int incl = cnt;
#pragma unroll
    for (unsigned int o = 1u; o < 32u; o <<= 1) {
        const unsigned int v = __shfl_up_sync(0xffffffffu, incl, o);
        if (lane >= o) incl += v;
    }
    unsigned int pos = qn + incl - cnt;
    while (rej != 0u) {
        const unsigned int c = __ffs(rej) - 1u;
        q[pos++] = e0 + (cusci_u64)c;
        rej &= rej - 1u;
    }
    return qn + __shfl_sync(0xffffffffu, incl, 31);
}

__device__ __forceinline__ void cusci_zig_flush_f64(double* out, cusci_u64 start, double mean, double std,
                                                    cusci_u64 seed, cusci_u64 stream, uint2 zkey,
                                                    const cusci_u64* q, unsigned int qn, unsigned int lane)
{
    __syncwarp();
    for (unsigned int t = lane; t < qn; t += 32u) {
        const cusci_u64 e = q[t];
        const uint4 w = cusci_raw_block(seed, stream, e >> 1);
        const double z = (e & 1ULL) == 0ULL ? cusci_zig_slow_f64(w.x, w.y, zkey, e)
                                            : cusci_zig_slow_f64(w.z, w.w, zkey, e);
        out[e - start] = __dadd_rn(mean, __dmul_rn(std, z));
    }
    __syncwarp();
}

/* The f32 normals, one kernel. The main loop writes every element's first-test value and carries no
   slow path and no warp-wide bookkeeping: a lane whose draw fails the first test (0.23% of draws with
   2048 layers; its slot gets a placeholder) reserves a slot in its block's shared-memory queue with
   one shared atomic. After the loop the block finishes its own queue (the slow path, one element per
   thread), while other blocks still stream. The launch (random/mod.rs) gives a block at most 2^16
   Philox blocks (expected failures 600, the queue holds 1536); a block whose queue overflows (never
   expected) redoes the first test of each of its elements and finishes the failing ones. A queue entry
   is (iteration << 10) | (threadIdx.x << 2) | word (blockDim.x = 256).
   The first-test value x = j * w is computed as (1 + j 2^-20) * W - W with W = w 2^20 in one FMA (the
   product is exact, so this is j * w rounded once, as philox::normal_f32 computes it), with the sign folded
   into W; x = +0 for j = 0 either way. STD1 (mean 0, std 1) stores x; otherwise mean + std * x (multiply,
   then add). WIDE = false when every Philox block of the launch has the same counter word 1 (block >> 32,
   then uniform): the counter is (first_lo + t, first_hi, ...) in 32-bit arithmetic. */
#define CUSCI_ZIG_BLOCK_QUEUE 1536u
template <bool STD1, bool WIDE>
__device__ __forceinline__ void cusci_normal_f32_fill(float* out, unsigned long long n, unsigned long long seed,
                                                      unsigned long long stream, unsigned long long start,
                                                      float mean, float std)
{
    __shared__ uint2 skw[CUSCI_ZIG_LAYERS_F32];
    __shared__ unsigned int qs[CUSCI_ZIG_BLOCK_QUEUE];
    __shared__ unsigned int qn;
    for (unsigned int t = threadIdx.x; t < CUSCI_ZIG_LAYERS_F32; t += blockDim.x)
        skw[t] = make_uint2(cusci_zig_k_f32[t],
                            __float_as_uint(__fmul_rn(__uint_as_float(cusci_zig_w_f32[t]), 1048576.0f)));
    if (threadIdx.x == 0u) qn = 0u;
    __syncthreads();
    if (n == 0ULL) return;
    const cusci_u64 end = start + n;
    const cusci_u64 first = start >> 2;
    const cusci_u64 nb = ((end - 1ULL) >> 2) - first + 1ULL;
    const bool vec = ((start & 3ULL) == 0ULL) && cusci_aligned16(out);
    const cusci_u64 stride = cusci_thread_stride();
    const cusci_u64 t0 = (cusci_u64)blockIdx.x * blockDim.x;
    const uint2 key = cusci_seed_key(seed);
    const unsigned int s0 = (unsigned int)stream, s1 = (unsigned int)(stream >> 32);
    const unsigned int flo = (unsigned int)first, fhi = (unsigned int)(first >> 32);
    unsigned int it = 0u;
    for (cusci_u64 t = t0 + threadIdx.x; t < nb; t += stride, ++it) {
        const cusci_u64 b = first + t;
        const uint4 w4 = WIDE ? cusci_raw_block(seed, stream, b)
                              : cusci_philox4x32_10(make_uint4(flo + (unsigned int)t, fhi, s0, s1), key);
        const unsigned int ws[4] = {w4.x, w4.y, w4.z, w4.w};
        float z[4];
        unsigned int rej = 0u;
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            const unsigned int l = ws[c] & CUSCI_ZIG_LAYER_MASK_F32, j = ws[c] >> CUSCI_ZIG_J_SHIFT_F32;
            const uint2 kw = skw[l];
            const float wsg = __uint_as_float(kw.y ^ ((ws[c] << (31u - CUSCI_ZIG_LB_F32)) & 0x80000000u));
            const float x = __fmaf_rn(__uint_as_float(0x3f800000u | (j << 3)), wsg, -wsg);
            z[c] = STD1 ? x : __fadd_rn(mean, __fmul_rn(std, x));
            rej |= (j >= kw.x ? 1u : 0u) << c;
        }
        const cusci_u64 i0 = b << 2;
        if (vec && i0 + 4ULL <= end) {
            *reinterpret_cast<float4*>(out + (i0 - start)) = make_float4(z[0], z[1], z[2], z[3]);
        } else {
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                const cusci_u64 e = i0 + (cusci_u64)c;
                if (e >= start && e < end) out[e - start] = z[c];
                else rej &= ~(1u << c);
            }
        }
        if (rej != 0u) {
            unsigned int p = atomicAdd(&qn, (unsigned int)__popc(rej));
            for (; rej != 0u; rej &= rej - 1u, ++p)
                if (p < CUSCI_ZIG_BLOCK_QUEUE) qs[p] = (it << 10) | (threadIdx.x << 2) | (unsigned int)(__ffs(rej) - 1);
        }
    }
    __syncthreads();
    const unsigned int m = qn;
    if (m == 0u) return;
    const uint2 zkey = cusci_zig_key(seed, stream);
    if (m <= CUSCI_ZIG_BLOCK_QUEUE) {
        for (unsigned int s = threadIdx.x; s < m; s += blockDim.x) {
            const unsigned int code = qs[s];
            const cusci_u64 b = first + t0 + ((code >> 2) & 255u) + (cusci_u64)(code >> 10) * stride;
            const cusci_u64 e = (b << 2) + (cusci_u64)(code & 3u);
            const float z = cusci_zig_slow_f32(cusci_raw_word(seed, stream, e), zkey, e);
            out[e - start] = __fadd_rn(mean, __fmul_rn(std, z));
        }
        return;
    }
    for (cusci_u64 t = t0 + threadIdx.x; t < nb; t += stride) {
        const cusci_u64 b = first + t;
        const uint4 w4 = cusci_raw_block(seed, stream, b);
        const unsigned int ws[4] = {w4.x, w4.y, w4.z, w4.w};
        for (int c = 0; c < 4; ++c) {
            const cusci_u64 e = (b << 2) + (cusci_u64)c;
            if (e >= start && e < end &&
                (ws[c] >> CUSCI_ZIG_J_SHIFT_F32) >= cusci_zig_k_f32[ws[c] & CUSCI_ZIG_LAYER_MASK_F32])
                out[e - start] = __fadd_rn(mean, __fmul_rn(std, cusci_zig_slow_f32(ws[c], zkey, e)));
        }
    }
}

#define CUSCI_NORMAL_F32_KERNEL(name, STD1, WIDE)                                                             \
    extern "C" __global__ void __launch_bounds__(256)                                                         \
        name(float* out, unsigned long long n, unsigned long long seed, unsigned long long stream,            \
             unsigned long long start, float mean, float std)                                                 \
    {                                                                                                         \
        cusci_normal_f32_fill<STD1, WIDE>(out, n, seed, stream, start, mean, std);                           \
    }
CUSCI_NORMAL_F32_KERNEL(cusci_random_normal_f32, false, false)
CUSCI_NORMAL_F32_KERNEL(cusci_random_normal_f32_wide, false, true)
CUSCI_NORMAL_F32_KERNEL(cusci_random_std_normal_f32, true, false)
CUSCI_NORMAL_F32_KERNEL(cusci_random_std_normal_f32_wide, true, true)

extern "C" __global__ void __launch_bounds__(256) cusci_random_normal_f64(double* out, unsigned long long n,
                                                                         unsigned long long seed,
                                                                         unsigned long long stream,
                                                                         unsigned long long start, double mean,
                                                                         double std)
{
    __shared__ cusci_u64 sk[256];
    __shared__ double sw[256];
    __shared__ cusci_u64 qs[8u * CUSCI_ZIG_WARP_QUEUE];
    for (unsigned int t = threadIdx.x; t < 256u; t += blockDim.x) {
        sk[t] = cusci_zig_k_f64[t];
        sw[t] = __longlong_as_double((long long)cusci_zig_w_f64[t]);
    }
    __syncthreads();
    if (n == 0ULL) return;
    const unsigned int lane = threadIdx.x & 31u;
    cusci_u64* q = qs + (threadIdx.x >> 5) * CUSCI_ZIG_WARP_QUEUE;
    unsigned int qn = 0u;
    const cusci_u64 end = start + n;
    const cusci_u64 first = start >> 1;
    const cusci_u64 nb = ((end - 1ULL) >> 1) - first + 1ULL;
    const bool vec = ((start & 1ULL) == 0ULL) && cusci_aligned16(out);
    const uint2 zkey = cusci_zig_key(seed, stream);
    for (cusci_u64 base = cusci_thread_index() - lane; base < nb; base += cusci_thread_stride()) {
        const cusci_u64 b = first + base + lane;
        unsigned int rej = 0u;
        if (base + lane < nb) {
            const uint4 w4 = cusci_raw_block(seed, stream, b);
            const unsigned int hs[2] = {w4.x, w4.z}, ls[2] = {w4.y, w4.w};
            double z[2];
#pragma unroll
            for (int c = 0; c < 2; ++c) {
                const unsigned int l = hs[c] & 255u;
                const cusci_u64 j = ((cusci_u64)(hs[c] >> 9) << 29) | (cusci_u64)(ls[c] >> 3);
                const double x = __dmul_rn(__ull2double_rn(j), sw[l]);
                z[c] = __dadd_rn(mean, __dmul_rn(std, (hs[c] & 256u) != 0u ? -x : x));
                rej |= (j >= sk[l] ? 1u : 0u) << c;
            }
            const cusci_u64 i0 = b << 1;
            if (vec && i0 >= start && i0 + 2ULL <= end) {
                *reinterpret_cast<double2*>(out + (i0 - start)) = make_double2(z[0], z[1]);
            } else {
#pragma unroll
                for (int c = 0; c < 2; ++c) {
                    const cusci_u64 e = i0 + (cusci_u64)c;
                    if (e >= start && e < end) out[e - start] = z[c];
                    else rej &= ~(1u << c);
                }
            }
        }
        if (__any_sync(0xffffffffu, rej != 0u)) {
            qn = cusci_zig_enqueue(q, qn, rej, b << 1, lane);
            if (qn >= CUSCI_ZIG_WARP_FLUSH) {
                cusci_zig_flush_f64(out, start, mean, std, seed, stream, zkey, q, qn, lane);
                qn = 0u;
            }
        }
    }
    if (qn > 0u) cusci_zig_flush_f64(out, start, mean, std, seed, stream, zkey, q, qn, lane);
}

/* scale * (-ln u) */
extern "C" __global__ void cusci_random_exponential_f32(float* out, unsigned long long n, unsigned long long seed,
                                                        unsigned long long stream, unsigned long long start,
                                                        float scale)
{
    if (n == 0ULL) return;
    const cusci_u64 end = start + n;
    const cusci_u64 first = start >> 2;
    const cusci_u64 nb = ((end - 1ULL) >> 2) - first + 1ULL;
    const bool vec = ((start & 3ULL) == 0ULL) && cusci_aligned16(out);
    for (cusci_u64 t = cusci_thread_index(); t < nb; t += cusci_thread_stride()) {
        const cusci_u64 b = first + t;
        const uint4 w = cusci_raw_block(seed, stream, b);
        cusci_store4_f32(out, b << 2, start, end, vec,
                         make_float4(__fmul_rn(scale, cusci_exponential_f32(w.x)),
                                     __fmul_rn(scale, cusci_exponential_f32(w.y)),
                                     __fmul_rn(scale, cusci_exponential_f32(w.z)),
                                     __fmul_rn(scale, cusci_exponential_f32(w.w))));
    }
}

extern "C" __global__ void cusci_random_exponential_f64(double* out, unsigned long long n, unsigned long long seed,
                                                        unsigned long long stream, unsigned long long start,
                                                        double scale)
{
    if (n == 0ULL) return;
    const cusci_u64 end = start + n;
    const cusci_u64 first = start >> 1;
    const cusci_u64 nb = ((end - 1ULL) >> 1) - first + 1ULL;
    const bool vec = ((start & 1ULL) == 0ULL) && cusci_aligned16(out);
    for (cusci_u64 t = cusci_thread_index(); t < nb; t += cusci_thread_stride()) {
        const cusci_u64 b = first + t;
        const uint4 w = cusci_raw_block(seed, stream, b);
        cusci_store2_f64(out, b << 1, start, end, vec,
                         make_double2(__dmul_rn(scale, cusci_exponential_f64(w.x, w.y)),
                                      __dmul_rn(scale, cusci_exponential_f64(w.z, w.w))));
    }
}

/* exp(mean + sigma * z) */
extern "C" __global__ void cusci_random_lognormal_f32(float* out, unsigned long long n, unsigned long long seed,
                                                      unsigned long long stream, unsigned long long start, float mean,
                                                      float sigma)
{
    if (n == 0ULL) return;
    const cusci_u64 end = start + n;
    const cusci_u64 first = start >> 2;
    const cusci_u64 nb = ((end - 1ULL) >> 2) - first + 1ULL;
    const bool vec = ((start & 3ULL) == 0ULL) && cusci_aligned16(out);
    const uint2 zkey = cusci_zig_key(seed, stream);
    for (cusci_u64 t = cusci_thread_index(); t < nb; t += cusci_thread_stride()) {
        const cusci_u64 b = first + t;
        const float4 z = cusci_normal_f32_block(cusci_raw_block(seed, stream, b), zkey, b);
        cusci_store4_f32(out, b << 2, start, end, vec,
                         make_float4(cusci_lognormal_f32(mean, sigma, z.x), cusci_lognormal_f32(mean, sigma, z.y),
                                     cusci_lognormal_f32(mean, sigma, z.z), cusci_lognormal_f32(mean, sigma, z.w)));
    }
}

extern "C" __global__ void cusci_random_lognormal_f64(double* out, unsigned long long n, unsigned long long seed,
                                                      unsigned long long stream, unsigned long long start,
                                                      double mean, double sigma)
{
    if (n == 0ULL) return;
    const cusci_u64 end = start + n;
    const cusci_u64 first = start >> 1;
    const cusci_u64 nb = ((end - 1ULL) >> 1) - first + 1ULL;
    const bool vec = ((start & 1ULL) == 0ULL) && cusci_aligned16(out);
    const uint2 zkey = cusci_zig_key(seed, stream);
    for (cusci_u64 t = cusci_thread_index(); t < nb; t += cusci_thread_stride()) {
        const cusci_u64 b = first + t;
        const double2 z = cusci_normal_f64_block(cusci_raw_block(seed, stream, b), zkey, b);
        cusci_store2_f64(out, b << 1, start, end, vec,
                         make_double2(cusci_lognormal_f64(mean, sigma, z.x), cusci_lognormal_f64(mean, sigma, z.y)));
    }
}

/* Integers in [low, high) (low < high): one raw word each when
   high - low <= 2^32, else two (block i/2, words 2(i%2), 2(i%2)+1). */
extern "C" __global__ void cusci_random_integers_i64(long long* out, unsigned long long n, unsigned long long seed,
                                                     unsigned long long stream, unsigned long long start,
                                                     long long low, long long high)
{
    if (n == 0ULL) return;
    const cusci_u64 end = start + n;
    if (cusci_integers_use_one_word(low, high)) {
        const cusci_u64 first = start >> 2;
        const cusci_u64 nb = ((end - 1ULL) >> 2) - first + 1ULL;
        const bool vec = ((start & 3ULL) == 0ULL) && cusci_aligned16(out);
        for (cusci_u64 t = cusci_thread_index(); t < nb; t += cusci_thread_stride()) {
            const cusci_u64 b = first + t;
            const uint4 w = cusci_raw_block(seed, stream, b);
            cusci_store2_i64(out, b << 2, start, end, vec, cusci_uniform_int_32(w.x, low, high),
                             cusci_uniform_int_32(w.y, low, high));
            cusci_store2_i64(out, (b << 2) + 2ULL, start, end, vec, cusci_uniform_int_32(w.z, low, high),
                             cusci_uniform_int_32(w.w, low, high));
        }
    } else {
        const cusci_u64 first = start >> 1;
        const cusci_u64 nb = ((end - 1ULL) >> 1) - first + 1ULL;
        const bool vec = ((start & 1ULL) == 0ULL) && cusci_aligned16(out);
        for (cusci_u64 t = cusci_thread_index(); t < nb; t += cusci_thread_stride()) {
            const cusci_u64 b = first + t;
            const uint4 w = cusci_raw_block(seed, stream, b);
            cusci_store2_i64(out, b << 1, start, end, vec, cusci_uniform_int_64(w.x, w.y, low, high),
                             cusci_uniform_int_64(w.z, w.w, low, high));
        }
    }
}

/* Integers in [low, high) for a range inside int32 (high - low <= 2^32):
   the same values as cusci_random_integers_i64, one raw word each. */
extern "C" __global__ void cusci_random_integers_i32(int* out, unsigned long long n, unsigned long long seed,
                                                     unsigned long long stream, unsigned long long start,
                                                     long long low, long long high)
{
    if (n == 0ULL) return;
    const cusci_u64 end = start + n;
    const cusci_u64 first = start >> 2;
    const cusci_u64 nb = ((end - 1ULL) >> 2) - first + 1ULL;
    const bool vec = ((start & 3ULL) == 0ULL) && cusci_aligned16(out);
    for (cusci_u64 t = cusci_thread_index(); t < nb; t += cusci_thread_stride()) {
        const cusci_u64 b = first + t;
        const uint4 w = cusci_raw_block(seed, stream, b);
        cusci_store4_i32(out, b << 2, start, end, vec,
                         make_int4((int)cusci_uniform_int_32(w.x, low, high), (int)cusci_uniform_int_32(w.y, low, high),
                                   (int)cusci_uniform_int_32(w.z, low, high),
                                   (int)cusci_uniform_int_32(w.w, low, high)));
    }
}

/* Poisson(lam), lam >= 0 finite (lam == 0 gives 0); element i uses its own
   sub-stream (philox::poisson_key / poisson_sample). */
extern "C" __global__ void cusci_random_poisson_i64(long long* out, unsigned long long n, unsigned long long seed,
                                                    unsigned long long stream, unsigned long long start, double lam)
{
    if (n == 0ULL) return;
    const cusci_poisson_params p = cusci_poisson_params_new(lam);
    const uint2 key = cusci_poisson_key(seed, stream);
    for (cusci_u64 t = cusci_thread_index(); t < n; t += cusci_thread_stride()) {
        out[t] = cusci_poisson_sample(p, key, start + t);
    }
}

#endif /* CUSCI_PHILOX_CUH */
