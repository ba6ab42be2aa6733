//! Standard normal numbers: the ziggurat of Marsaglia and Tsang on Philox words, with retry
//! sub-streams for its rejections.

use super::super::ziggurat_tables::{
    ZIG_F_F32, ZIG_F_F64, ZIG_K_F32, ZIG_K_F64, ZIG_LB_F32, ZIG_R_F32, ZIG_R_F64, ZIG_W_F32,
    ZIG_W_F64,
};
use super::{
    exp_f32, exp_f64, ln_f32, ln_f64, philox4x32_10, seed_key, u32_to_f32_open, u64_to_f64_open,
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
/// [`poisson_key`](super::poisson_key)'s `[0, 0x4000_0000, ..]` and from every raw counter).
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
/// and Tsang (2000) with 2^`ZIG_LB_F32` layers, the tables of
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
