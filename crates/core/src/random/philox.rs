//! Philox4x32-10 counter-based random streams whose raw words **and** derived
//! floating-point values are bit-identical on the CPU (this module) and on CUDA
//! GPUs (`philox.cuh`, the device twin of every function here).
//!
//! # Generator
//!
//! [`philox4x32_10`] is the Philox4x32 bijection of Salmon, Moraes, Dror and
//! Shaw ("Parallel random numbers: as easy as 1, 2, 3", SC'11) with 10 rounds
//! and the Random123 constants. It maps a 128-bit counter and a 64-bit key to
//! four 32-bit words.
//!
//! # Raw stream layout
//!
//! A `(seed, stream)` pair names a stream of 32-bit words. With
//! `key = [seed as u32, (seed >> 32) as u32]`, raw word number `i` (a `u64`)
//! of stream `s` (a `u64`) is
//!
//! ```text
//! philox4x32_10([(i/4) as u32, ((i/4) >> 32) as u32, s as u32, (s >> 32) as u32], key)[i % 4]
//! ```
//!
//! i.e. Philox *block* `b = i / 4` of stream `s` uses the counter
//! `[b_lo, b_hi, s_lo, s_hi]`. Because `i < 2^64`, `b < 2^62`, so raw streams
//! never use a counter whose word 1 has bit 30 or bit 31 set; those counters are
//! reserved for the key derivations and the sub-streams of the Poisson sampler
//! (see [`poisson_key`]) and of the normal sampler's rejections (see [`zig_key`]).
//!
//! # Derived values and which raw words they use
//!
//! Every output element is a pure function of `(seed, stream, index)` and of
//! the distribution's parameters, so any slice of any stream can be produced
//! independently on any device, with the same bits:
//!
//! | output (element `i`) | raw words used |
//! | --- | --- |
//! | uniform `f32` | word `i` ([`u32_to_f32_open`]) |
//! | uniform `f64` | block `i/2`, words `2(i%2)` (high) and `2(i%2)+1` (low) ([`u64_to_f64_open`]) |
//! | normal `f32` | word `i`, and its retry sub-stream when the ziggurat rejects ([`normal_f32`]) |
//! | normal `f64` | as uniform `f64`, and its retry sub-stream ([`normal_f64`]) |
//! | exponential `f32` / `f64` | as uniform `f32` / `f64` ([`exponential_f32`], [`exponential_f64`]) |
//! | lognormal `f32` / `f64` | as normal `f32` / `f64` ([`lognormal_f32`], [`lognormal_f64`]) |
//! | integer, `high - low <= 2^32` | word `i` ([`uniform_int_32`]) |
//! | integer, `high - low > 2^32` | as uniform `f64`: block `i/2`, words `2(i%2)`, `2(i%2)+1` ([`uniform_int_64`]) |
//! | Poisson | its own sub-stream, see [`poisson_key`] and [`poisson_sample`] |
//!
//! # Bit-identical floating point
//!
//! The elementary functions ([`ln_f32`], [`ln_f64`], [`exp_f32`], [`exp_f64`],
//! [`sincospi_f32`], [`sincospi_f64`]) and everything built on them use only
//! IEEE-754 operations that are correctly rounded (round to nearest even) on
//! both the CPU and the GPU: `+ - * /` and `sqrt`, exact conversions between
//! integers and floats, comparisons and bit manipulation. No fused
//! multiply-add, no library math function. Rust never contracts `a * b + c`;
//! the CUDA twin writes every such operation with `__fmul_rn`, `__fadd_rn`,
//! `__fsub_rn`, `__fdiv_rn`, `__fsqrt_rn` (and the `__d..._rn` forms) so that
//! NVRTC cannot contract either, and evaluates in exactly the order written
//! here. Subnormal numbers are honoured on both sides (NVRTC's default
//! `-ftz=false`; do not compile the twin with `--use_fast_math` or
//! `-ftz=true`).
//!
//! The polynomial coefficients were fitted for this module (discrete minimax
//! by iteratively reweighted least squares in 40-digit arithmetic, then rounded
//! to the working precision).

// Float constants are written with the same digits as in philox.cuh (a
// test checks it), hence more digits than strictly needed and literals that
// look like std constants.
#![allow(clippy::excessive_precision, clippy::approx_constant)]

// ---------------------------------------------------------------------------
// Philox4x32-10
// ---------------------------------------------------------------------------

/// First Philox4x32 round multiplier.
pub const PHILOX_M0: u32 = 0xD251_1F53;
/// Second Philox4x32 round multiplier.
pub const PHILOX_M1: u32 = 0xCD9E_8D57;
/// Weyl increment of key word 0 between rounds (golden ratio).
pub const PHILOX_W0: u32 = 0x9E37_79B9;
/// Weyl increment of key word 1 between rounds (sqrt(3) - 1).
pub const PHILOX_W1: u32 = 0xBB67_AE85;

/// Philox4x32 with 10 rounds (Random123 `philox4x32_10`).
///
/// Each round computes the 64-bit products `p0 = M0 * ctr[0]` and
/// `p1 = M1 * ctr[2]` and sets
/// `ctr = [hi(p1) ^ ctr[1] ^ key[0], lo(p1), hi(p0) ^ ctr[3] ^ key[1], lo(p0)]`;
/// between rounds the key is bumped by `(W0, W1)` (wrapping).
#[inline]
pub fn philox4x32_10(ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let mut c = ctr;
    let mut k0 = key[0];
    let mut k1 = key[1];
    let mut round = 0;
    loop {
        let p0 = (PHILOX_M0 as u64) * (c[0] as u64);
        let p1 = (PHILOX_M1 as u64) * (c[2] as u64);
        c = [
            ((p1 >> 32) as u32) ^ c[1] ^ k0,
            p1 as u32,
            ((p0 >> 32) as u32) ^ c[3] ^ k1,
            p0 as u32,
        ];
        round += 1;
        if round == 10 {
            return c;
        }
        k0 = k0.wrapping_add(PHILOX_W0);
        k1 = k1.wrapping_add(PHILOX_W1);
    }
}

/// The Philox key of a seed: `[seed as u32, (seed >> 32) as u32]`.
#[inline]
pub fn seed_key(seed: u64) -> [u32; 2] {
    [seed as u32, (seed >> 32) as u32]
}

/// Philox block `block` (words `4*block .. 4*block+3`) of raw stream
/// `(seed, stream)`: counter `[block_lo, block_hi, stream_lo, stream_hi]`,
/// key [`seed_key`]`(seed)`.
#[inline]
pub fn raw_block(seed: u64, stream: u64, block: u64) -> [u32; 4] {
    philox4x32_10(
        [
            block as u32,
            (block >> 32) as u32,
            stream as u32,
            (stream >> 32) as u32,
        ],
        seed_key(seed),
    )
}

/// Raw 32-bit word number `i` of stream `(seed, stream)`:
/// `raw_block(seed, stream, i / 4)[i % 4]`.
#[inline]
pub fn raw_word(seed: u64, stream: u64, i: u64) -> u32 {
    raw_block(seed, stream, i / 4)[(i % 4) as usize]
}

/// Fills `out` with values `start, start+1, ...` of a stream made of blocks of
/// `P` values, where `gen(b)` returns the `P` values of block `b`
/// (value `i` is `gen(i / P)[i % P]`). Each block is generated once.
#[inline]
fn fill_by_block<T: Copy, const P: usize>(
    start: u64,
    out: &mut [T],
    mut gen: impl FnMut(u64) -> [T; P],
) {
    let n = out.len();
    let mut j = 0usize;
    while j < n {
        let i = start.wrapping_add(j as u64);
        let b = i / P as u64;
        let off = (i % P as u64) as usize;
        let vals = gen(b);
        let take = (P - off).min(n - j);
        out[j..j + take].copy_from_slice(&vals[off..off + take]);
        j += take;
    }
}

/// Fills `out` with raw words `start, start+1, ...` of stream
/// `(seed, stream)` ([`raw_word`]), one Philox call per 4 words.
#[inline]
pub fn fill_raw(seed: u64, stream: u64, start: u64, out: &mut [u32]) {
    fill_by_block::<u32, 4>(start, out, |b| raw_block(seed, stream, b));
}

// ---------------------------------------------------------------------------
// Uniform floats
// ---------------------------------------------------------------------------

/// 2^-23.
const TWO_M23_F32: f32 = 1.192_092_895_507_812_5e-7;
/// 2^-52.
const TWO_M52_F64: f64 = 2.220_446_049_250_313_1e-16;

/// Uniform `f32` in the open interval (0, 1) from one raw word:
/// `((w >> 9) as f32 + 0.5) * 2^-23`.
///
/// Uses the top 23 bits of `w`; every step is exact (the sum needs 24
/// significant bits), so the result is `(m + 1/2) / 2^23` for
/// `m = w >> 9`, ranging over `[2^-24, 1 - 2^-24]`, mean exactly 1/2.
/// (A 24-bit variant `(m + 1/2) 2^-24` would not be representable for
/// `m >= 2^23` and could round to 1.0.)
#[inline]
pub fn u32_to_f32_open(w: u32) -> f32 {
    ((w >> 9) as f32 + 0.5) * TWO_M23_F32
}

/// Uniform `f64` in the open interval (0, 1) from two raw words:
/// with the 52-bit integer `m = ((hi as u64) << 20) | ((lo as u64) >> 12)`,
/// the value is `(m as f64 + 0.5) * 2^-52`.
///
/// Every step is exact; the result ranges over `[2^-53, 1 - 2^-53]`.
/// (52 rather than 53 bits so that `m + 1/2` stays representable.)
#[inline]
pub fn u64_to_f64_open(hi: u32, lo: u32) -> f64 {
    let m = ((hi as u64) << 20) | ((lo as u64) >> 12);
    (m as f64 + 0.5) * TWO_M52_F64
}

// ---------------------------------------------------------------------------
// Natural logarithm
// ---------------------------------------------------------------------------

const LN2_HI_F64: f64 = 0.693_147_180_601_954_5; // 0x3fe62e42ff000000, 29 significant bits
const LN2_LO_F64: f64 = -4.200_915_072_681_084_6e-11; // ln 2 - LN2_HI_F64, rounded
const SQRT2_F64: f64 = 1.414_213_562_373_095_1;
const TWO54_F64: f64 = 18_014_398_509_481_984.0;

const LN2_HI_F32: f32 = 6.931_457_52e-1; // 0x3f317200, 15 significant bits
const LN2_LO_F32: f32 = 1.428_606_765e-6; // ln 2 - LN2_HI_F32, rounded
const SQRT2_F32: f32 = 1.414_213_538;
const TWO25_F32: f32 = 33_554_432.0;

// ln: R(z) = z * P(z) ~= (2 atanh(s) - 2 s) / s with z = s^2, |s| <= 3 - 2 sqrt 2.
const LN_POLY_F64_0: f64 = 0.666666666666667; // 0x3fe5555555555558
const LN_POLY_F64_1: f64 = 0.39999999999899116; // 0x3fd999999999529c
const LN_POLY_F64_2: f64 = 0.28571428626133594; // 0x3fd2492492df83cf
const LN_POLY_F64_3: f64 = 0.22222211111345688; // 0x3fcc71c62dd7168b
const LN_POLY_F64_4: f64 = 0.18182890696057424; // 0x3fc7462b6c6e79d6
const LN_POLY_F64_5: f64 = 0.15331673134636142; // 0x3fc39fe1f587f77e
const LN_POLY_F64_6: f64 = 0.14617010131461194; // 0x3fc2b5b3ae664e50
/// Degree-6 polynomial of ln: P(z) (Horner).
#[inline]
fn ln_poly_f64(z: f64) -> f64 {
    LN_POLY_F64_0
        + z * (LN_POLY_F64_1
            + z * (LN_POLY_F64_2
                + z * (LN_POLY_F64_3
                    + z * (LN_POLY_F64_4 + z * (LN_POLY_F64_5 + z * (LN_POLY_F64_6))))))
}

const LN_POLY_F32_0: f32 = 6.666668653e-01; // 0x3f2aaaae
const LN_POLY_F32_1: f32 = 3.998855948e-01; // 0x3eccbdce
const LN_POLY_F32_2: f32 = 2.958620787e-01; // 0x3e977b3c
/// Degree-2 polynomial of ln: P(z) (Horner).
#[inline]
fn ln_poly_f32(z: f32) -> f32 {
    LN_POLY_F32_0 + z * (LN_POLY_F32_1 + z * (LN_POLY_F32_2))
}

/// Natural logarithm of an `f64`, bit-identical with `cusci_ln_f64`.
///
/// Domain: `x > 0` including subnormals (scaled by 2^54 first); `ln(0) =
/// -inf`, `ln(+inf) = +inf`, `ln(x < 0) = NaN`, NaN propagates. Measured
/// error: 0.73 ulp at most (600 000 points against a 40-digit reference).
///
/// Method: `x = 2^k m` with `m` in `[sqrt(1/2), sqrt 2)`, `f = m - 1`
/// (exact), `s = f / (2 + f)`, `z = s^2`, `R = z P(z)` (minimax for
/// `(2 atanh s - 2 s) / s`), `hfsq = (0.5 f) f`; then
/// `ln x = k ln2_hi - ((hfsq - (s (hfsq + R) + k ln2_lo)) - f)`,
/// which is `f - s (f - R) + k ln 2` rearranged so that the large terms are
/// added last (`k ln2_hi` is exact).
#[inline]
pub fn ln_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x <= 0.0 {
        return if x == 0.0 {
            f64::NEG_INFINITY
        } else {
            f64::NAN
        };
    }
    if x == f64::INFINITY {
        return x;
    }
    let mut xs = x;
    let mut k: i32 = -1023;
    if x < f64::MIN_POSITIVE {
        xs = x * TWO54_F64;
        k = -1023 - 54;
    }
    let bits = xs.to_bits();
    k += (bits >> 52) as i32;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > SQRT2_F64 {
        m *= 0.5;
        k += 1;
    }
    let f = m - 1.0;
    let kf = k as f64;
    let s = f / (2.0 + f);
    let z = s * s;
    let r = z * ln_poly_f64(z);
    let hfsq = (0.5 * f) * f;
    kf * LN2_HI_F64 - ((hfsq - (s * (hfsq + r) + kf * LN2_LO_F64)) - f)
}

/// Natural logarithm of an `f32`, bit-identical with `cusci_ln_f32`.
///
/// Same method as [`ln_f64`] in `f32` arithmetic (subnormals scaled by 2^25,
/// a degree-2 polynomial). Measured error: 0.84 ulp at most over all
/// positive finite `f32` (exhaustive).
#[inline]
pub fn ln_f32(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    if x <= 0.0 {
        return if x == 0.0 {
            f32::NEG_INFINITY
        } else {
            f32::NAN
        };
    }
    if x == f32::INFINITY {
        return x;
    }
    let mut xs = x;
    let mut k: i32 = -127;
    if x < f32::MIN_POSITIVE {
        xs = x * TWO25_F32;
        k = -127 - 25;
    }
    let bits = xs.to_bits();
    k += (bits >> 23) as i32;
    let mut m = f32::from_bits((bits & 0x007f_ffff) | 0x3f80_0000);
    if m > SQRT2_F32 {
        m *= 0.5;
        k += 1;
    }
    let f = m - 1.0;
    let kf = k as f32;
    let s = f / (2.0 + f);
    let z = s * s;
    let r = z * ln_poly_f32(z);
    let hfsq = (0.5 * f) * f;
    kf * LN2_HI_F32 - ((hfsq - (s * (hfsq + r) + kf * LN2_LO_F32)) - f)
}

// ---------------------------------------------------------------------------
// Exponential
// ---------------------------------------------------------------------------

const INV_LN2_F64: f64 = 1.442_695_040_888_963_4;
/// 1.5 * 2^52: adding and subtracting it rounds to the nearest integer.
const ROUND_SHIFT_F64: f64 = 6_755_399_441_055_744.0;
/// Above this, `exp_f64` returns +inf (the nearest double to ln(f64::MAX)).
const EXP_MAX_ARG_F64: f64 = 709.782_712_893_384;
/// Below this, `exp_f64` returns +0 (ln(2^-1075)).
const EXP_MIN_ARG_F64: f64 = -745.133_219_101_941_2;

const INV_LN2_F32: f32 = 1.442_695_022;
/// 1.5 * 2^23.
const ROUND_SHIFT_F32: f32 = 12_582_912.0;
const EXP_MAX_ARG_F32: f32 = 88.722_839_36;
const EXP_MIN_ARG_F32: f32 = -103.972_076_4;

// exp: c = r - w P(w) with w = r^2 and w P(w) ~= r (e^r + 1) / (e^r - 1) - 2.
const EXP_POLY_F64_0: f64 = 0.1666666666666666; // 0x3fc5555555555553
const EXP_POLY_F64_1: f64 = -0.002777777777754711; // 0xbf66c16c16c09c52
const EXP_POLY_F64_2: f64 = 6.613756463066877e-05; // 0x3f11566ab56077ce
const EXP_POLY_F64_3: f64 = -1.6534046865030749e-06; // 0xbebbbd51ada07232
const EXP_POLY_F64_4: f64 = 4.143145856797692e-08; // 0x3e663e4bdabc7f13
/// Degree-4 polynomial of exp: P(w) (Horner).
#[inline]
fn exp_poly_f64(z: f64) -> f64 {
    EXP_POLY_F64_0
        + z * (EXP_POLY_F64_1 + z * (EXP_POLY_F64_2 + z * (EXP_POLY_F64_3 + z * (EXP_POLY_F64_4))))
}

const EXP_POLY_F32_0: f32 = 1.666666716e-01; // 0x3e2aaaab
const EXP_POLY_F32_1: f32 = -2.778084017e-03; // 0xbb361084
const EXP_POLY_F32_2: f32 = 6.842573930e-05; // 0x388f7fca
/// Degree-2 polynomial of exp: P(w) (Horner).
#[inline]
fn exp_poly_f32(z: f32) -> f32 {
    EXP_POLY_F32_0 + z * (EXP_POLY_F32_1 + z * (EXP_POLY_F32_2))
}

/// `2^k` for `-1022 <= k <= 1023`.
#[inline]
fn pow2_f64(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `2^k` for `-126 <= k <= 127`.
#[inline]
fn pow2_f32(k: i32) -> f32 {
    f32::from_bits(((k + 127) as u32) << 23)
}

/// `e^x` for an `f64`, bit-identical with `cusci_exp_f64`.
///
/// Returns +inf above `709.782712893384`, +0 below `-745.1332191019412`,
/// NaN for NaN; results in the subnormal range are rounded once. Measured
/// error: 0.85 ulp at most for normal results (600 000 points against a
/// 40-digit reference).
///
/// Method: `k = round(x / ln 2)` (by adding and subtracting 1.5 * 2^52),
/// `hi = x - k ln2_hi` (exact), `lo = k ln2_lo`, `r = hi - lo`, `w = r^2`,
/// `c = r - w P(w)`, `y = 1 - ((lo - (r c) / (2 - c)) - hi)` (= e^r), then
/// `y 2^k` by multiplying with powers of two built from bits
/// (`(y 2^(k-1)) 2` when `k = 1024`, `(y 2^(k+1000)) 2^-1000` when
/// `k < -1021`).
#[inline]
pub fn exp_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x > EXP_MAX_ARG_F64 {
        return f64::INFINITY;
    }
    if x < EXP_MIN_ARG_F64 {
        return 0.0;
    }
    let kf = (x * INV_LN2_F64 + ROUND_SHIFT_F64) - ROUND_SHIFT_F64;
    let k = kf as i32;
    let hi = x - kf * LN2_HI_F64;
    let lo = kf * LN2_LO_F64;
    let r = hi - lo;
    let w = r * r;
    let c = r - w * exp_poly_f64(w);
    let y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
    if k > 1023 {
        (y * pow2_f64(k - 1)) * 2.0
    } else if k < -1021 {
        (y * pow2_f64(k + 1000)) * pow2_f64(-1000)
    } else {
        y * pow2_f64(k)
    }
}

/// `e^x` for an `f32`, bit-identical with `cusci_exp_f32`.
///
/// Returns +inf above `88.72283936`, +0 below `-103.9720764`, NaN for NaN;
/// subnormal results are rounded once. Same method as [`exp_f64`] in `f32`
/// arithmetic (shift constant 1.5 * 2^23, a degree-2 polynomial,
/// `(y 2^(k+100)) 2^-100` when `k < -125`). Measured error: 0.91 ulp at most for
/// normal results, over every `f32` input (exhaustive); subnormal results
/// within 0.75 of their ulp.
#[inline]
pub fn exp_f32(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    if x > EXP_MAX_ARG_F32 {
        return f32::INFINITY;
    }
    if x < EXP_MIN_ARG_F32 {
        return 0.0;
    }
    let kf = (x * INV_LN2_F32 + ROUND_SHIFT_F32) - ROUND_SHIFT_F32;
    let k = kf as i32;
    let hi = x - kf * LN2_HI_F32;
    let lo = kf * LN2_LO_F32;
    let r = hi - lo;
    let w = r * r;
    let c = r - w * exp_poly_f32(w);
    let y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
    if k > 127 {
        (y * pow2_f32(k - 1)) * 2.0
    } else if k < -125 {
        (y * pow2_f32(k + 100)) * pow2_f32(-100)
    } else {
        y * pow2_f32(k)
    }
}

// ---------------------------------------------------------------------------
// sin(pi x), cos(pi x)
// ---------------------------------------------------------------------------

// sin(pi r) = 2 r + r T(z), T(z) ~= (sin(pi r) - 2 r) / r (the leading term
// 2 r is exact); cos(pi r) = 1 - z C(z), C(z) ~= (1 - cos(pi r)) / r^2;
// z = r^2, |r| <= 1/4.
const SIN_POLY_F64_0: f64 = 1.1415926535897931; // 0x3ff243f6a8885a30
const SIN_POLY_F64_1: f64 = -5.1677127800499525; // 0xc014abbce625be3f
const SIN_POLY_F64_2: f64 = 2.5501640398730285; // 0x400466bc677584e9
const SIN_POLY_F64_3: f64 = -0.5992645289160949; // 0xbfe32d2cce2b1e82
const SIN_POLY_F64_4: f64 = 0.08214586845720102; // 0x3fb50782fa867345
const SIN_POLY_F64_5: f64 = -0.0073700113498173575; // 0xbf7e30045b7f71c7
const SIN_POLY_F64_6: f64 = 0.0004614774373238661; // 0x3f3e3e4e804b3a7a
/// Degree-6 polynomial of sinpi (f64): T(z) (Horner).
#[inline]
fn sin_poly_f64(z: f64) -> f64 {
    SIN_POLY_F64_0
        + z * (SIN_POLY_F64_1
            + z * (SIN_POLY_F64_2
                + z * (SIN_POLY_F64_3
                    + z * (SIN_POLY_F64_4 + z * (SIN_POLY_F64_5 + z * (SIN_POLY_F64_6))))))
}

const COS_POLY_F64_0: f64 = 4.934802200544679; // 0x4013bd3cc9be45de
const COS_POLY_F64_1: f64 = -4.058712126416765; // 0xc0103c1f081b5ac0
const COS_POLY_F64_2: f64 = 1.3352627688537986; // 0x3ff55d3c7e3cb210
const COS_POLY_F64_3: f64 = -0.2353306302832519; // 0xbfce1f506868252a
const COS_POLY_F64_4: f64 = 0.02580688794179024; // 0x3f9a6d1eeee2d7ab
const COS_POLY_F64_5: f64 = -0.0019294935479810817; // 0xbf5f9ce1ebee5581
const COS_POLY_F64_6: f64 = 0.00010369908016804612; // 0x3f1b2f20a1bcde72
/// Degree-6 polynomial of cospi: C(z) (Horner).
#[inline]
fn cos_poly_f64(z: f64) -> f64 {
    COS_POLY_F64_0
        + z * (COS_POLY_F64_1
            + z * (COS_POLY_F64_2
                + z * (COS_POLY_F64_3
                    + z * (COS_POLY_F64_4 + z * (COS_POLY_F64_5 + z * (COS_POLY_F64_6))))))
}

const SIN_POLY_F32_0: f32 = 1.141592622e+00; // 0x3f921fb5
const SIN_POLY_F32_1: f32 = -5.167701244e+00; // 0xc0a55dcf
const SIN_POLY_F32_2: f32 = 2.549474955e+00; // 0x40232a99
const SIN_POLY_F32_3: f32 = -5.858659148e-01; // 0xbf15fb4f
/// Degree-3 polynomial of sinpi (f32): T(z) (Horner).
#[inline]
fn sin_poly_f32(z: f32) -> f32 {
    SIN_POLY_F32_0 + z * (SIN_POLY_F32_1 + z * (SIN_POLY_F32_2 + z * (SIN_POLY_F32_3)))
}

const COS_POLY_F32_0: f32 = 4.934802055e+00; // 0x409de9e6
const COS_POLY_F32_1: f32 = -4.058670521e+00; // 0xc081e0a1
const COS_POLY_F32_2: f32 = 1.333438158e+00; // 0x3faaae1a
const COS_POLY_F32_3: f32 = -2.140410542e-01; // 0xbe5b2d94
/// Degree-3 polynomial of cospi: C(z) (Horner).
#[inline]
fn cos_poly_f32(z: f32) -> f32 {
    COS_POLY_F32_0 + z * (COS_POLY_F32_1 + z * (COS_POLY_F32_2 + z * (COS_POLY_F32_3)))
}

/// `(sin(pi x), cos(pi x))` for an `f64`, bit-identical with
/// `cusci_sincospi_f64`.
///
/// Argument reduction is exact for every finite `x`: with `v = 2x` (exact),
/// `n = round(v)` (as `trunc` plus a correction) and `r = (v - n) / 2`
/// (exact, `|r| <= 1/4`), `x = r + n/2` and the quadrant is `n mod 4`. For
/// `|x| >= 2^53`, `x` is an even integer and the result is `(+0, 1)`. NaN or
/// infinite `x` gives `(NaN, NaN)`. The kernels are
/// `sin(pi r) = 2 r + r T(z)` (the leading term `2 r` is exact) and
/// `cos(pi r) = 1 - z C(z)`, `z = r^2`, with minimax `T` and `C`. Measured
/// error: 1.39 ulp at most (600 000 points against a 40-digit reference).
#[inline]
pub fn sincospi_f64(x: f64) -> (f64, f64) {
    let bits = x.to_bits();
    if bits & 0x7ff0_0000_0000_0000 == 0x7ff0_0000_0000_0000 {
        return (f64::NAN, f64::NAN);
    }
    let ax = f64::from_bits(bits & 0x7fff_ffff_ffff_ffff);
    let mut r = 0.0f64;
    let mut n = 0u32;
    if ax < 9_007_199_254_740_992.0 {
        let v = 2.0 * x;
        let mut iv = v as i64;
        let mut fr = v - iv as f64;
        if fr > 0.5 {
            fr -= 1.0;
            iv += 1;
        } else if fr < -0.5 {
            fr += 1.0;
            iv -= 1;
        }
        r = fr * 0.5;
        n = (iv & 3) as u32;
    }
    let z = r * r;
    let sp = 2.0 * r + r * sin_poly_f64(z);
    let cp = 1.0 - z * cos_poly_f64(z);
    match n {
        0 => (sp, cp),
        1 => (cp, -sp),
        2 => (-sp, -cp),
        _ => (-cp, sp),
    }
}

/// `(sin(pi x), cos(pi x))` for an `f32`, bit-identical with
/// `cusci_sincospi_f32`.
///
/// Same reduction as [`sincospi_f64`] in `f32` arithmetic (`|x| >= 2^24` is
/// an even integer and gives `(+0, 1)`); the sine kernel is
/// `sin(pi r) = 2 r + r T(z)` (exact leading term, minimax `T`) and the
/// cosine kernel `1 - z C(z)`. Measured error: 1.24 ulp at most over every
/// `f32` with `|x| < 2^24` (exhaustive; larger `|x|` are exact).
#[inline]
pub fn sincospi_f32(x: f32) -> (f32, f32) {
    let bits = x.to_bits();
    if bits & 0x7f80_0000 == 0x7f80_0000 {
        return (f32::NAN, f32::NAN);
    }
    let ax = f32::from_bits(bits & 0x7fff_ffff);
    let mut r = 0.0f32;
    let mut n = 0u32;
    if ax < 16_777_216.0 {
        let v = 2.0 * x;
        let mut iv = v as i32;
        let mut fr = v - iv as f32;
        if fr > 0.5 {
            fr -= 1.0;
            iv += 1;
        } else if fr < -0.5 {
            fr += 1.0;
            iv -= 1;
        }
        r = fr * 0.5;
        n = (iv & 3) as u32;
    }
    let z = r * r;
    let sp = 2.0 * r + r * sin_poly_f32(z);
    let cp = 1.0 - z * cos_poly_f32(z);
    match n {
        0 => (sp, cp),
        1 => (cp, -sp),
        2 => (-sp, -cp),
        _ => (-cp, sp),
    }
}

// ---------------------------------------------------------------------------
// Normal (ziggurat)
// ---------------------------------------------------------------------------

use super::ziggurat_tables::{
    ZIG_F_F32, ZIG_F_F64, ZIG_K_F32, ZIG_K_F64, ZIG_LB_F32, ZIG_R_F32, ZIG_R_F64, ZIG_W_F32,
    ZIG_W_F64,
};

/// An `f32` ziggurat word's layer (its low [`ZIG_LB_F32`] bits), sign (the next bit) and `J`
/// (the top `31 - ZIG_LB_F32` bits).
#[inline]
fn zig_split_f32(w: u32) -> (usize, bool, u32) {
    (
        (w & ((1 << ZIG_LB_F32) - 1)) as usize,
        (w >> ZIG_LB_F32) & 1 != 0,
        w >> (ZIG_LB_F32 + 1),
    )
}

/// Word 1 of the counters of the ziggurat's retry sub-streams (bit 31 set:
/// never a raw counter); `| 1` for `f64` normals.
const ZIG_TAG: u32 = 0x8000_0000;

/// The Philox key of the ziggurat's retry sub-streams of `(seed, stream)`:
/// the first two words of `philox4x32_10([1, 0x4000_0000, stream_lo,
/// stream_hi], seed_key(seed))` (a key-derivation counter, distinct from
/// [`poisson_key`]'s `[0, 0x4000_0000, ..]` and from every raw counter).
#[inline]
pub fn zig_key(seed: u64, stream: u64) -> [u32; 2] {
    let w = philox4x32_10(
        [1, 0x4000_0000, stream as u32, (stream >> 32) as u32],
        seed_key(seed),
    );
    [w[0], w[1]]
}

/// Block `k` of the retry sub-stream of normal number `i`:
/// `philox4x32_10([k, tag, i_lo, i_hi], zkey)`.
#[inline]
fn zig_block(zkey: [u32; 2], tag: u32, i: u64, k: u32) -> [u32; 4] {
    philox4x32_10([k, tag, i as u32, (i >> 32) as u32], zkey)
}

#[inline]
fn with_sign<T: std::ops::Neg<Output = T>>(neg: bool, x: T) -> T {
    if neg {
        -x
    } else {
        x
    }
}

/// Standard normal `f32` number `i` of a stream whose raw word `i` is `w`
/// and whose retry key is `zkey` ([`zig_key`]): the ziggurat of Marsaglia
/// and Tsang (2000) with 2^[`ZIG_LB_F32`] layers, the tables of
/// `ziggurat_tables.rs` (`gen_ziggurat.py`), bit-identical with
/// `cusci_zig_normal_f32`.
///
/// The word gives the layer `l` (its low `ZIG_LB_F32` bits), the sign (the
/// next bit) and the integer `J` of its top `31 - ZIG_LB_F32` bits;
/// `x = J * W[l]`. When `J < K[l]` (all but 0.23% of words with 2048
/// layers) `x` is returned at once. Otherwise the draw continues on the retry
/// sub-stream of `i` (Philox blocks `[k, 0x8000_0000, i_lo, i_hi]`, `k = 0,
/// 1, ...`, under `zkey`): layer 0 samples the tail beyond `r = x_{N-1}`
/// (Marsaglia's method: `x = -ln(u1) / r`, `y = -ln(u2)` until `2y >= x^2`;
/// words 0 and 1 of each block), other layers accept `x` when
/// `F[l] + u (F[l-1] - F[l]) < exp(-x^2/2)` (`u` from word 0), and a
/// rejection restarts with word 2 as the new `w`. Every operation is
/// correctly rounded ([`ln_f32`], [`exp_f32`]), so the value depends only
/// on the stream and `i`.
#[inline]
pub fn normal_f32(w: u32, zkey: [u32; 2], i: u64) -> f32 {
    let (l, neg, j) = zig_split_f32(w);
    if j < ZIG_K_F32[l] {
        with_sign(neg, j as f32 * f32::from_bits(ZIG_W_F32[l]))
    } else {
        normal_f32_slow(w, zkey, i)
    }
}

#[cold]
fn normal_f32_slow(mut w: u32, zkey: [u32; 2], i: u64) -> f32 {
    let r = f32::from_bits(ZIG_R_F32);
    let mut k = 0u32;
    loop {
        let (l, neg, j) = zig_split_f32(w);
        let x = j as f32 * f32::from_bits(ZIG_W_F32[l]);
        if j < ZIG_K_F32[l] {
            return with_sign(neg, x);
        }
        let mut b = zig_block(zkey, ZIG_TAG, i, k);
        k = k.wrapping_add(1);
        if l == 0 {
            loop {
                let xt = -ln_f32(u32_to_f32_open(b[0])) / r;
                let y = -ln_f32(u32_to_f32_open(b[1]));
                if y + y >= xt * xt {
                    return with_sign(neg, r + xt);
                }
                b = zig_block(zkey, ZIG_TAG, i, k);
                k = k.wrapping_add(1);
            }
        }
        let (fl, fp) = (
            f32::from_bits(ZIG_F_F32[l]),
            f32::from_bits(ZIG_F_F32[l - 1]),
        );
        if fl + u32_to_f32_open(b[0]) * (fp - fl) < exp_f32(-(x * x * 0.5)) {
            return with_sign(neg, x);
        }
        w = b[2];
    }
}

/// Standard normal `f64` number `i` of a stream whose uniform-`f64` words
/// for element `i` are `(hi, lo)` (block `i/2`, words `2(i%2)`, `2(i%2)+1`),
/// bit-identical with `cusci_zig_normal_f64`: the ziggurat of [`normal_f32`]
/// with `l = hi & 255`, the sign in bit 8 of `hi` and the 52-bit
/// `J = (hi >> 9) << 29 | lo >> 3`. Retries use the Philox blocks
/// `[k, 0x8000_0001, i_lo, i_hi]` under `zkey`: the tail takes `u1` from
/// words 0, 1 and `u2` from words 2, 3 of a block; the wedge test takes `u`
/// from words 0, 1 of one block and the next `(hi, lo)` from words 0, 1 of
/// the following block.
#[inline]
pub fn normal_f64(hi: u32, lo: u32, zkey: [u32; 2], i: u64) -> f64 {
    let l = (hi & 255) as usize;
    let j = (((hi >> 9) as u64) << 29) | (lo >> 3) as u64;
    if j < ZIG_K_F64[l] {
        with_sign(hi & 256 != 0, j as f64 * f64::from_bits(ZIG_W_F64[l]))
    } else {
        normal_f64_slow(hi, lo, zkey, i)
    }
}

#[cold]
fn normal_f64_slow(mut hi: u32, mut lo: u32, zkey: [u32; 2], i: u64) -> f64 {
    let r = f64::from_bits(ZIG_R_F64);
    let tag = ZIG_TAG | 1;
    let mut k = 0u32;
    loop {
        let l = (hi & 255) as usize;
        let neg = hi & 256 != 0;
        let j = (((hi >> 9) as u64) << 29) | (lo >> 3) as u64;
        let x = j as f64 * f64::from_bits(ZIG_W_F64[l]);
        if j < ZIG_K_F64[l] {
            return with_sign(neg, x);
        }
        let mut b = zig_block(zkey, tag, i, k);
        k = k.wrapping_add(1);
        if l == 0 {
            loop {
                let xt = -ln_f64(u64_to_f64_open(b[0], b[1])) / r;
                let y = -ln_f64(u64_to_f64_open(b[2], b[3]));
                if y + y >= xt * xt {
                    return with_sign(neg, r + xt);
                }
                b = zig_block(zkey, tag, i, k);
                k = k.wrapping_add(1);
            }
        }
        let (fl, fp) = (
            f64::from_bits(ZIG_F_F64[l]),
            f64::from_bits(ZIG_F_F64[l - 1]),
        );
        if fl + u64_to_f64_open(b[0], b[1]) * (fp - fl) < exp_f64(-(x * x * 0.5)) {
            return with_sign(neg, x);
        }
        let n = zig_block(zkey, tag, i, k);
        k = k.wrapping_add(1);
        (hi, lo) = (n[0], n[1]);
    }
}

/// The four normal `f32`s of Philox block `b` (raw words `w`), numbers
/// `4b .. 4b+3`.
#[inline]
pub fn normal_f32_block(w: [u32; 4], zkey: [u32; 2], b: u64) -> [f32; 4] {
    let i = 4 * b;
    [
        normal_f32(w[0], zkey, i),
        normal_f32(w[1], zkey, i + 1),
        normal_f32(w[2], zkey, i + 2),
        normal_f32(w[3], zkey, i + 3),
    ]
}

/// The two normal `f64`s of Philox block `b` (raw words `w`), numbers
/// `2b, 2b+1`.
#[inline]
pub fn normal_f64_block(w: [u32; 4], zkey: [u32; 2], b: u64) -> [f64; 2] {
    [
        normal_f64(w[0], w[1], zkey, 2 * b),
        normal_f64(w[2], w[3], zkey, 2 * b + 1),
    ]
}

/// The two uniform `f64`s of a Philox block: `(w[0], w[1])` and `(w[2], w[3])`.
#[inline]
pub fn uniform_f64_block(w: [u32; 4]) -> [f64; 2] {
    [u64_to_f64_open(w[0], w[1]), u64_to_f64_open(w[2], w[3])]
}

// ---------------------------------------------------------------------------
// Other continuous distributions
// ---------------------------------------------------------------------------

/// Standard exponential `f32` from one raw word: `-ln_f32(u32_to_f32_open(w))`
/// (in `[5.96e-8, 16.64]`).
#[inline]
pub fn exponential_f32(w: u32) -> f32 {
    -ln_f32(u32_to_f32_open(w))
}

/// Standard exponential `f64` from two raw words:
/// `-ln_f64(u64_to_f64_open(hi, lo))`.
#[inline]
pub fn exponential_f64(hi: u32, lo: u32) -> f64 {
    -ln_f64(u64_to_f64_open(hi, lo))
}

/// Lognormal `f32` from a standard normal `z`: `exp_f32(mean + sigma * z)`
/// (multiply, then add; no fused multiply-add).
#[inline]
pub fn lognormal_f32(mean: f32, sigma: f32, z: f32) -> f32 {
    exp_f32(mean + sigma * z)
}

/// Lognormal `f64` from a standard normal `z`: `exp_f64(mean + sigma * z)`.
#[inline]
pub fn lognormal_f64(mean: f64, sigma: f64, z: f64) -> f64 {
    exp_f64(mean + sigma * z)
}

// ---------------------------------------------------------------------------
// Integers
// ---------------------------------------------------------------------------

/// Whether integers in `[low, high)` use one raw word each
/// (`high - low <= 2^32`, see [`uniform_int_32`]) rather than two
/// ([`uniform_int_64`]). Requires `low < high`.
#[inline]
pub fn integers_use_one_word(low: i64, high: i64) -> bool {
    (high.wrapping_sub(low) as u64) <= (1u64 << 32)
}

/// Integer in `[low, high)` from one raw word, for `1 <= high - low <= 2^32`:
/// `low + ((w as u64 * range) >> 32)`.
///
/// Multiply-shift without rejection: every value has probability
/// `floor(2^32 / range)` or `ceil(2^32 / range)` out of `2^32`, a relative bias
/// below `range / 2^32` (e.g. below 2.4e-7 for `range <= 1000`); exact for
/// powers of two.
#[inline]
pub fn uniform_int_32(w: u32, low: i64, high: i64) -> i64 {
    let range = high.wrapping_sub(low) as u64;
    low.wrapping_add((((w as u64) * range) >> 32) as i64)
}

/// Integer in `[low, high)` from two raw words (`hi`, `lo`), for
/// `high - low > 2^32` (any range up to `2^64 - 1`): with
/// `x = (hi << 32) | lo`, `low + ((x as u128 * range as u128) >> 64)`
/// (multiply-high, no rejection, relative bias below `range / 2^64`).
#[inline]
pub fn uniform_int_64(hi: u32, lo: u32, low: i64, high: i64) -> i64 {
    let range = high.wrapping_sub(low) as u64;
    let x = ((hi as u64) << 32) | (lo as u64);
    low.wrapping_add((((x as u128) * (range as u128)) >> 64) as u64 as i64)
}

// ---------------------------------------------------------------------------
// Poisson
// ---------------------------------------------------------------------------

/// Key of the Poisson sub-streams of `(seed, stream)`: the first two words of
/// `philox4x32_10([0, 0x4000_0000, stream_lo, stream_hi], seed_key(seed))`.
///
/// That counter is "raw block 2^62" of the stream, which no raw word uses
/// (raw blocks are `< 2^62`). Poisson element `i` then draws its Philox blocks
/// `j = 0, 1, 2, ...` from the counter `[j, 0x8000_0000, i_lo, i_hi]` under
/// this key. Word 1 of that counter has bit 31 set, which no raw counter (under
/// any key) and no key-derivation counter has, so Poisson draws never reuse
/// raw words. Two different `(seed, stream)` pairs share Poisson draws only if
/// their derived 64-bit keys collide (probability 2^-64 per pair).
#[inline]
pub fn poisson_key(seed: u64, stream: u64) -> [u32; 2] {
    let w = philox4x32_10(
        [0, 0x4000_0000, stream as u32, (stream >> 32) as u32],
        seed_key(seed),
    );
    [w[0], w[1]]
}

/// `ln(k!)` for `k = 0..9`.
const LN_FACTORIAL_TABLE: [f64; 10] = [
    0.0,
    0.0,
    0.693_147_180_559_945_3,
    1.791_759_469_228_055,
    3.178_053_830_347_945_8,
    4.787_491_742_782_046,
    6.579_251_212_010_101,
    8.525_161_361_065_415,
    10.604_602_902_745_25,
    12.801_827_480_081_469,
];
/// ln(2 pi) / 2.
const HALF_LN_2PI: f64 = 0.918_938_533_204_672_8;
/// Stirling series coefficients 1/12, 1/360, 1/1260, 1/1680, 1/1188 (rounded).
const STIRLING_1: f64 = 0.083_333_333_333_333_33;
const STIRLING_2: f64 = 0.002_777_777_777_777_778;
const STIRLING_3: f64 = 0.000_793_650_793_650_793_7;
const STIRLING_4: f64 = 0.000_595_238_095_238_095_3;
const STIRLING_5: f64 = 0.000_841_750_841_750_841_7;

/// `ln(k!)` for `k >= 0` (`k < 2^53`): a table for `k < 10`, otherwise
/// Stirling's series for `ln Gamma(x)`, `x = k + 1`:
/// `(x - 0.5) ln x - x + ln(2 pi)/2 + (1/x)(1/12 - t(1/360 - t(1/1260 -
/// t(1/1680 - t/1188))))`, `t = 1/x^2` (absolute error below 1e-14),
/// evaluated in exactly this order.
#[inline]
pub fn ln_factorial(k: i64) -> f64 {
    if k < 10 {
        return LN_FACTORIAL_TABLE[k as usize];
    }
    let x = (k + 1) as f64;
    let ix = 1.0 / x;
    let t = ix * ix;
    let series =
        ix * (STIRLING_1 - t * (STIRLING_2 - t * (STIRLING_3 - t * (STIRLING_4 - t * STIRLING_5))));
    (((x - 0.5) * ln_f64(x) - x) + HALF_LN_2PI) + series
}

/// Per-`lam` constants of the Poisson sampler (computed once per fill or
/// kernel thread, with the bit-identical functions).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoissonParams {
    /// The mean.
    pub lam: f64,
    /// `exp_f64(-lam)` (multiplication method, `lam < 10`).
    pub exp_neg_lam: f64,
    /// `ln_f64(lam)` (PTRS, `lam >= 10`).
    pub ln_lam: f64,
    /// PTRS `b = 0.931 + 2.53 sqrt(lam)`.
    pub b: f64,
    /// PTRS `a = -0.059 + 0.02483 b`.
    pub a: f64,
    /// PTRS `ln(1.1239 + 1.1328 / (b - 3.4))`.
    pub ln_inv_alpha: f64,
    /// PTRS `vr = 0.9277 - 3.6224 / (b - 2)`.
    pub vr: f64,
}

impl PoissonParams {
    /// Constants for mean `lam` (`lam >= 0`, finite, below 2^62; the caller
    /// rejects negative or NaN `lam`).
    #[inline]
    pub fn new(lam: f64) -> Self {
        let exp_neg_lam = exp_f64(-lam);
        let ln_lam = ln_f64(lam);
        let b = 0.931 + 2.53 * lam.sqrt();
        let a = -0.059 + 0.02483 * b;
        let ln_inv_alpha = ln_f64(1.1239 + 1.1328 / (b - 3.4));
        let vr = 0.9277 - 3.6224 / (b - 2.0);
        PoissonParams {
            lam,
            exp_neg_lam,
            ln_lam,
            b,
            a,
            ln_inv_alpha,
            vr,
        }
    }
}

/// Largest `floor` argument PTRS accepts (2^62); larger candidates are
/// rejected (their probability is negligible for `lam < 2^61`).
const PTRS_K_LIMIT: f64 = 4_611_686_018_427_387_904.0;

/// Poisson element `i` with the sub-stream key `key` ([`poisson_key`]).
///
/// Element `i` reads Philox blocks `j = 0, 1, ...` of counter
/// `[j, 0x8000_0000, i_lo, i_hi]`; each block gives two `f64` uniforms
/// `(w0, w1)`, `(w2, w3)` ([`u64_to_f64_open`]).
///
/// * `lam <= 0` (or NaN): 0.
/// * `lam < 10`: multiplication method: `p = 1`, `k = 0`; for each uniform
///   `u` in order, `p = p * u`; if `p <= exp_f64(-lam)` return `k`, else
///   `k += 1`.
/// * `lam >= 10`: Hörmann's PTRS (transformed rejection with squeeze,
///   W. Hörmann 1993). Per block: `U = u1 - 0.5`, `V = u2`,
///   `us = 0.5 - |U|`, `x = ((2a / us + b) U + lam) + 0.43`; reject if
///   `x < 0` or `x >= 2^62`; `k = floor(x)`; accept if `us >= 0.07` and
///   `V <= vr`; reject if `us < 0.013` and `V > us`; accept if
///   `(ln V + ln_inv_alpha) - ln(a / us^2 + b) <= (-lam + k ln lam) - ln k!`
///   ([`ln_factorial`]).
#[inline]
pub fn poisson_sample(p: &PoissonParams, key: [u32; 2], i: u64) -> i64 {
    let lam = p.lam;
    // `lam <= 0` or NaN: 0
    if lam.is_nan() || lam <= 0.0 {
        return 0;
    }
    let c2 = i as u32;
    let c3 = (i >> 32) as u32;
    let mut j: u32 = 0;
    if lam < 10.0 {
        let mut prod = 1.0f64;
        let mut k: i64 = 0;
        loop {
            let w = philox4x32_10([j, 0x8000_0000, c2, c3], key);
            j = j.wrapping_add(1);
            prod *= u64_to_f64_open(w[0], w[1]);
            if prod <= p.exp_neg_lam {
                return k;
            }
            k += 1;
            prod *= u64_to_f64_open(w[2], w[3]);
            if prod <= p.exp_neg_lam {
                return k;
            }
            k += 1;
        }
    }
    let two_a = 2.0 * p.a;
    loop {
        let w = philox4x32_10([j, 0x8000_0000, c2, c3], key);
        j = j.wrapping_add(1);
        let u = u64_to_f64_open(w[0], w[1]) - 0.5;
        let v = u64_to_f64_open(w[2], w[3]);
        let au = if u < 0.0 { -u } else { u };
        let us = 0.5 - au;
        let x = ((two_a / us + p.b) * u + lam) + 0.43;
        if !(0.0..PTRS_K_LIMIT).contains(&x) {
            continue;
        }
        let k = x as i64;
        if us >= 0.07 && v <= p.vr {
            return k;
        }
        if us < 0.013 && v > us {
            continue;
        }
        let kf = k as f64;
        let lhs = (ln_f64(v) + p.ln_inv_alpha) - ln_f64(p.a / (us * us) + p.b);
        let rhs = (-lam + kf * p.ln_lam) - ln_factorial(k);
        if lhs <= rhs {
            return k;
        }
    }
}

/// Poisson element `i` of `(seed, stream)` with mean `lam`:
/// `poisson_sample(&PoissonParams::new(lam), poisson_key(seed, stream), i)`.
#[inline]
pub fn poisson_at(seed: u64, stream: u64, i: u64, lam: f64) -> i64 {
    poisson_sample(&PoissonParams::new(lam), poisson_key(seed, stream), i)
}

// ---------------------------------------------------------------------------
// Element-wise definitions and fills
// ---------------------------------------------------------------------------

/// Uniform `f32` number `i` of `(seed, stream)`: `u32_to_f32_open(raw_word(i))`.
#[inline]
pub fn uniform_f32_at(seed: u64, stream: u64, i: u64) -> f32 {
    u32_to_f32_open(raw_word(seed, stream, i))
}

/// Uniform `f64` number `i` of `(seed, stream)`: block `i/2`, words
/// `2(i%2)` (high) and `2(i%2)+1` (low).
#[inline]
pub fn uniform_f64_at(seed: u64, stream: u64, i: u64) -> f64 {
    uniform_f64_block(raw_block(seed, stream, i / 2))[(i % 2) as usize]
}

/// Standard normal `f32` number `i` of `(seed, stream)`:
/// [`normal_f32`] of raw word `i`.
#[inline]
pub fn normal_f32_at(seed: u64, stream: u64, i: u64) -> f32 {
    normal_f32(raw_word(seed, stream, i), zig_key(seed, stream), i)
}

/// Standard normal `f64` number `i` of `(seed, stream)`: [`normal_f64`] of
/// block `i/2`, words `2(i%2)`, `2(i%2)+1`.
#[inline]
pub fn normal_f64_at(seed: u64, stream: u64, i: u64) -> f64 {
    let w = raw_block(seed, stream, i / 2);
    let q = 2 * (i % 2) as usize;
    normal_f64(w[q], w[q + 1], zig_key(seed, stream), i)
}

/// Integer number `i` of `(seed, stream)` in `[low, high)` (`low < high`):
/// [`uniform_int_32`] of raw word `i` when `high - low <= 2^32`, else
/// [`uniform_int_64`] of block `i/2`, words `2(i%2)`, `2(i%2)+1`.
#[inline]
pub fn integer_at(seed: u64, stream: u64, i: u64, low: i64, high: i64) -> i64 {
    if integers_use_one_word(low, high) {
        uniform_int_32(raw_word(seed, stream, i), low, high)
    } else {
        let w = raw_block(seed, stream, i / 2);
        let q = 2 * (i % 2) as usize;
        uniform_int_64(w[q], w[q + 1], low, high)
    }
}

/// Fills `out` with uniform `f32`s number `start, start+1, ...`
/// ([`uniform_f32_at`]).
#[inline]
pub fn fill_uniform_f32(seed: u64, stream: u64, start: u64, out: &mut [f32]) {
    fill_by_block::<f32, 4>(start, out, |b| {
        raw_block(seed, stream, b).map(u32_to_f32_open)
    });
}

/// Fills `out` with uniform `f64`s number `start, start+1, ...`
/// ([`uniform_f64_at`]).
#[inline]
pub fn fill_uniform_f64(seed: u64, stream: u64, start: u64, out: &mut [f64]) {
    fill_by_block::<f64, 2>(start, out, |b| {
        uniform_f64_block(raw_block(seed, stream, b))
    });
}

/// Fills `out` with standard normal `f32`s number `start, start+1, ...`
/// ([`normal_f32_at`]).
#[inline]
pub fn fill_normal_f32(seed: u64, stream: u64, start: u64, out: &mut [f32]) {
    let zkey = zig_key(seed, stream);
    fill_by_block::<f32, 4>(start, out, |b| {
        normal_f32_block(raw_block(seed, stream, b), zkey, b)
    });
}

/// Fills `out` with standard normal `f64`s number `start, start+1, ...`
/// ([`normal_f64_at`]).
#[inline]
pub fn fill_normal_f64(seed: u64, stream: u64, start: u64, out: &mut [f64]) {
    let zkey = zig_key(seed, stream);
    fill_by_block::<f64, 2>(start, out, |b| {
        normal_f64_block(raw_block(seed, stream, b), zkey, b)
    });
}

/// Fills `out` with `mean + std * z` (multiply, then add) for the standard
/// normal `f32`s `z` number `start, ...`, as the kernels
/// `cusci_random_normal_f32` and `cusci_random_std_normal_f32` do. With
/// `mean == 0` and `std == 1` this is exactly [`fill_normal_f32`].
#[inline]
pub fn fill_normal_f32_scaled(
    seed: u64,
    stream: u64,
    start: u64,
    mean: f32,
    std: f32,
    out: &mut [f32],
) {
    let zkey = zig_key(seed, stream);
    fill_by_block::<f32, 4>(start, out, |b| {
        normal_f32_block(raw_block(seed, stream, b), zkey, b).map(|z| mean + std * z)
    });
}

/// Fills `out` with `mean + std * z` for the standard normal `f64`s `z`
/// number `start, ...`, as `cusci_random_normal_f64` does.
#[inline]
pub fn fill_normal_f64_scaled(
    seed: u64,
    stream: u64,
    start: u64,
    mean: f64,
    std: f64,
    out: &mut [f64],
) {
    let zkey = zig_key(seed, stream);
    fill_by_block::<f64, 2>(start, out, |b| {
        normal_f64_block(raw_block(seed, stream, b), zkey, b).map(|z| mean + std * z)
    });
}

/// Fills `out` with `scale * exponential_f32(raw word i)` for
/// `i = start, ...` (`cusci_random_exponential_f32`); `scale == 1` gives the
/// standard exponential exactly.
#[inline]
pub fn fill_exponential_f32(seed: u64, stream: u64, start: u64, scale: f32, out: &mut [f32]) {
    fill_by_block::<f32, 4>(start, out, |b| {
        raw_block(seed, stream, b).map(|w| scale * exponential_f32(w))
    });
}

/// Fills `out` with `scale * exponential_f64(hi, lo)` for the uniform-`f64`
/// word pairs of elements `start, ...` (`cusci_random_exponential_f64`).
#[inline]
pub fn fill_exponential_f64(seed: u64, stream: u64, start: u64, scale: f64, out: &mut [f64]) {
    fill_by_block::<f64, 2>(start, out, |b| {
        let w = raw_block(seed, stream, b);
        [
            scale * exponential_f64(w[0], w[1]),
            scale * exponential_f64(w[2], w[3]),
        ]
    });
}

/// Fills `out` with `lognormal_f32(mean, sigma, z)` for the standard normal
/// `f32`s `z` number `start, ...` (`cusci_random_lognormal_f32`).
#[inline]
pub fn fill_lognormal_f32(
    seed: u64,
    stream: u64,
    start: u64,
    mean: f32,
    sigma: f32,
    out: &mut [f32],
) {
    let zkey = zig_key(seed, stream);
    fill_by_block::<f32, 4>(start, out, |b| {
        normal_f32_block(raw_block(seed, stream, b), zkey, b).map(|z| lognormal_f32(mean, sigma, z))
    });
}

/// Fills `out` with `lognormal_f64(mean, sigma, z)` for the standard normal
/// `f64`s `z` number `start, ...` (`cusci_random_lognormal_f64`).
#[inline]
pub fn fill_lognormal_f64(
    seed: u64,
    stream: u64,
    start: u64,
    mean: f64,
    sigma: f64,
    out: &mut [f64],
) {
    let zkey = zig_key(seed, stream);
    fill_by_block::<f64, 2>(start, out, |b| {
        normal_f64_block(raw_block(seed, stream, b), zkey, b).map(|z| lognormal_f64(mean, sigma, z))
    });
}

/// Fills `out` with integers number `start, ...` in `[low, high)`
/// (`low < high`, [`integer_at`]; `cusci_random_integers_i64`).
#[inline]
pub fn fill_integers_i64(seed: u64, stream: u64, start: u64, low: i64, high: i64, out: &mut [i64]) {
    if integers_use_one_word(low, high) {
        fill_by_block::<i64, 4>(start, out, |b| {
            raw_block(seed, stream, b).map(|w| uniform_int_32(w, low, high))
        });
    } else {
        fill_by_block::<i64, 2>(start, out, |b| {
            let w = raw_block(seed, stream, b);
            [
                uniform_int_64(w[0], w[1], low, high),
                uniform_int_64(w[2], w[3], low, high),
            ]
        });
    }
}

/// Fills `out` with integers number `start, ...` in `[low, high)` for a
/// range inside `i32` (`i32::MIN <= low < high <= i32::MAX + 1`): the same
/// values as [`fill_integers_i64`] (one raw word each;
/// `cusci_random_integers_i32`).
#[inline]
pub fn fill_integers_i32(seed: u64, stream: u64, start: u64, low: i64, high: i64, out: &mut [i32]) {
    fill_by_block::<i32, 4>(start, out, |b| {
        raw_block(seed, stream, b).map(|w| uniform_int_32(w, low, high) as i32)
    });
}

/// Fills `out` with Poisson elements number `start, ...` of `(seed, stream)`
/// with mean `lam` ([`poisson_sample`]; `cusci_random_poisson_i64`).
#[inline]
pub fn fill_poisson_i64(seed: u64, stream: u64, start: u64, lam: f64, out: &mut [i64]) {
    let p = PoissonParams::new(lam);
    let key = poisson_key(seed, stream);
    for (j, o) in out.iter_mut().enumerate() {
        *o = poisson_sample(&p, key, start.wrapping_add(j as u64));
    }
}
