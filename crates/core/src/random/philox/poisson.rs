//! Poisson counts: the multiplication method below 10, Hörmann's PTRS above, each element on its
//! own Philox sub-stream.

use super::{exp_f64, ln_f64, philox4x32_10, seed_key, u64_to_f64_open};

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
