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

// The elementary functions (math.rs) and the normal and Poisson samplers (normal.rs, poisson.rs);
// the generator, the uniform, exponential, lognormal and integer values and the fills are here.
mod math;
mod normal;
mod poisson;

pub use math::{exp_f32, exp_f64, ln_f32, ln_f64, sincospi_f32, sincospi_f64};
pub use normal::{normal_f32, normal_f32_block, normal_f64, normal_f64_block, zig_key};
pub use poisson::{ln_factorial, poisson_at, poisson_key, poisson_sample, PoissonParams};

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
