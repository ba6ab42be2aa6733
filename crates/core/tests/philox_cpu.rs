//! CPU tests of the Philox4x32-10 random streams (`src/random/philox/`):
//! known answers, stream layout, accuracy of the bit-reproducible elementary
//! functions, distribution moments, fills with offsets, golden hashes of the
//! derived streams (the same hashes the CUDA twin `philox.cuh` produced on a
//! GPU) and a literal-by-literal check that the two files share their
//! constants.

#[allow(dead_code)]
#[path = "../src/random/philox/mod.rs"]
mod philox;
#[rustfmt::skip]
#[path = "../src/random/ziggurat_tables.rs"]
mod ziggurat_tables;

use philox::*;

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

/// xorshift64 test input generator.
struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// uniform in [0, 1)
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }
}

/// Error of an f32 result against an f64 reference, in units of the f32 ulp
/// at the reference.
fn ulp_err_f32(got: f32, reference: f64) -> f64 {
    let a = reference.abs();
    let e = if a == 0.0 {
        -149
    } else {
        (a.log2().floor() as i32).max(-126) - 23
    };
    ((got as f64) - reference).abs() / 2f64.powi(e)
}

/// Distance in representable doubles between two finite doubles.
fn ulp_dist_f64(a: f64, b: f64) -> u64 {
    fn ord(x: f64) -> i128 {
        let b = x.to_bits() as i64;
        if b < 0 {
            -((b & i64::MAX) as i128)
        } else {
            b as i128
        }
    }
    (ord(a) - ord(b)).unsigned_abs() as u64
}

/// FNV-1a style hash over 64-bit values (same as the GPU cross-check).
fn fnv(vals: impl IntoIterator<Item = u64>) -> u64 {
    let mut h: u64 = 1_469_598_103_934_665_603;
    for v in vals {
        h ^= v;
        h = h.wrapping_mul(1_099_511_628_211);
    }
    h
}

fn mean_var(xs: impl Iterator<Item = f64>) -> (f64, f64, usize) {
    let (mut n, mut s, mut s2) = (0usize, 0.0f64, 0.0f64);
    let v: Vec<f64> = xs.collect();
    for &x in &v {
        n += 1;
        s += x;
    }
    let m = s / n as f64;
    for &x in &v {
        s2 += (x - m) * (x - m);
    }
    (m, s2 / (n as f64 - 1.0), n)
}

// ---------------------------------------------------------------------------
// Philox known answers and stream layout
// ---------------------------------------------------------------------------

#[test]
fn philox4x32_10_known_answers() {
    // Random123 tests/kat_vectors, the three "philox4x32 10" lines:
    // counter (4 words), key (2 words), expected output (4 words).
    let kat: [([u32; 4], [u32; 2], [u32; 4]); 3] = [
        (
            [0, 0, 0, 0],
            [0, 0],
            [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8],
        ),
        (
            [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff],
            [0xffffffff, 0xffffffff],
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd],
        ),
        (
            [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
            [0xa4093822, 0x299f31d0],
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1],
        ),
    ];
    for (ctr, key, want) in kat {
        assert_eq!(
            philox4x32_10(ctr, key),
            want,
            "ctr {ctr:08x?} key {key:08x?}"
        );
    }
}

#[test]
fn raw_stream_layout() {
    let seed = 0x0123_4567_89ab_cdef_u64;
    let stream = 0xfedc_ba98_7654_3210_u64;
    for i in [
        0u64,
        1,
        2,
        3,
        4,
        5,
        1 << 33,
        (1 << 34) + 3,
        u64::MAX - 1,
        u64::MAX,
    ] {
        let b = i / 4;
        let w = philox4x32_10(
            [
                b as u32,
                (b >> 32) as u32,
                stream as u32,
                (stream >> 32) as u32,
            ],
            [seed as u32, (seed >> 32) as u32],
        );
        assert_eq!(raw_word(seed, stream, i), w[(i % 4) as usize], "i = {i}");
    }
    // fill_raw with odd starts and lengths agrees with raw_word one by one
    for start in [0u64, 1, 2, 3, 5, 7, 1 << 40, (1 << 40) + 1, u64::MAX - 40] {
        for len in [0usize, 1, 2, 3, 4, 5, 7, 8, 9, 31] {
            let mut out = vec![0u32; len];
            fill_raw(seed, stream, start, &mut out);
            for (j, &w) in out.iter().enumerate() {
                assert_eq!(
                    w,
                    raw_word(seed, stream, start + j as u64),
                    "start {start} j {j}"
                );
            }
        }
    }
    // different seeds / streams give different words
    let a: Vec<u32> = (0..16).map(|i| raw_word(1, 0, i)).collect();
    let b: Vec<u32> = (0..16).map(|i| raw_word(0, 1, i)).collect();
    let c: Vec<u32> = (0..16).map(|i| raw_word(1, 1, i)).collect();
    assert_ne!(a, b);
    assert_ne!(a, c);
    assert_ne!(b, c);
}

// ---------------------------------------------------------------------------
// Uniform conversions
// ---------------------------------------------------------------------------

#[test]
fn uniform_conversions_are_exact_and_open() {
    assert_eq!(u32_to_f32_open(0), 2f32.powi(-24));
    assert_eq!(u32_to_f32_open(u32::MAX), 1.0 - 2f32.powi(-24));
    assert_eq!(u32_to_f32_open(0x8000_0000), 0.5 + 2f32.powi(-24));
    assert_eq!(u64_to_f64_open(0, 0), 2f64.powi(-53));
    assert_eq!(u64_to_f64_open(u32::MAX, u32::MAX), 1.0 - 2f64.powi(-53));
    let mut rng = XorShift(7);
    for _ in 0..10_000 {
        let w = rng.next() as u32;
        let m = (w >> 9) as f64;
        assert_eq!(u32_to_f32_open(w) as f64, (m + 0.5) / 8_388_608.0);
        let (hi, lo) = (rng.next() as u32, rng.next() as u32);
        let m = (((hi as u64) << 20) | ((lo as u64) >> 12)) as u128;
        // exact: value * 2^53 == 2 m + 1
        let v = u64_to_f64_open(hi, lo);
        assert_eq!((v * 9_007_199_254_740_992.0) as u128, 2 * m + 1);
    }
}

// ---------------------------------------------------------------------------
// Accuracy of the elementary functions
// ---------------------------------------------------------------------------

#[test]
fn ln_f32_accuracy() {
    let mut worst = 0.0f64;
    let mut check = |x: f32| {
        let e = ulp_err_f32(ln_f32(x), (x as f64).ln());
        assert!(e <= 2.0, "ln_f32({x:e}) = {:e}: {e} ulp", ln_f32(x));
        worst = worst.max(e);
    };
    // strided sweep over all positive finite floats, subnormals included
    let mut b = 1u32;
    while b < 0x7f80_0000 {
        check(f32::from_bits(b));
        b += 1031;
    }
    // near 1 and powers of two
    for k in 0..20_000u32 {
        check(f32::from_bits(0x3f80_0000 + k));
        check(f32::from_bits(0x3f80_0000 - 1 - k));
    }
    for e in -149i32..128 {
        // 2^e from bits (subnormal below 2^-126)
        check(if e >= -126 {
            f32::from_bits(((e + 127) as u32) << 23)
        } else {
            f32::from_bits(1u32 << (e + 149))
        });
    }
    assert_eq!(ln_f32(1.0), 0.0);
    assert_eq!(ln_f32(0.0), f32::NEG_INFINITY);
    assert_eq!(ln_f32(-0.0), f32::NEG_INFINITY);
    assert_eq!(ln_f32(f32::INFINITY), f32::INFINITY);
    assert!(ln_f32(-1.0).is_nan());
    assert!(ln_f32(f32::NAN).is_nan());
    println!("ln_f32 worst {worst:.3} ulp");
}

#[test]
fn exp_f32_accuracy() {
    let mut worst = 0.0f64;
    let mut check = |x: f32| {
        let r = (x as f64).exp();
        let y = exp_f32(x);
        if r > f32::MAX as f64 {
            assert!(y == f32::INFINITY || ulp_err_f32(y, r) <= 2.0);
            return;
        }
        if r < f32::MIN_POSITIVE as f64 {
            // subnormal results: one rounding of an accurate value
            assert!(
                ((y as f64) - r).abs() <= 2.0 * 2f64.powi(-149),
                "exp_f32({x:e}) = {y:e}"
            );
            return;
        }
        let e = ulp_err_f32(y, r);
        assert!(e <= 2.0, "exp_f32({x:e}) = {y:e}: {e} ulp");
        worst = worst.max(e);
    };
    let mut rng = XorShift(11);
    for _ in 0..400_000 {
        check((rng.unit() * 192.7 - 103.98) as f32);
    }
    for _ in 0..100_000 {
        check((rng.unit() * 2.0 - 1.0) as f32 * 2f32.powi(-((rng.next() % 40) as i32)));
    }
    for x in [
        0.0f32, -0.0, 1.0, -1.0, 0.5, 88.0, 88.72, 88.7228, -87.3, -100.0, -103.9,
    ] {
        check(x);
    }
    assert_eq!(exp_f32(0.0), 1.0);
    assert_eq!(exp_f32(89.0), f32::INFINITY);
    assert_eq!(exp_f32(-104.0), 0.0);
    assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
    assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
    assert!(exp_f32(f32::NAN).is_nan());
    println!("exp_f32 worst {worst:.3} ulp");
}

/// Reference (sin(pi x), cos(pi x)) in f64 with exact reduction.
fn sincospi_ref(x: f64) -> (f64, f64) {
    if x.abs() >= 9_007_199_254_740_992.0 {
        return (0.0, 1.0); // even integers
    }
    let n = (2.0 * x).round();
    let r = x - n / 2.0;
    let (s, c) = (
        (std::f64::consts::PI * r).sin(),
        (std::f64::consts::PI * r).cos(),
    );
    match (n as i64).rem_euclid(4) {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

#[test]
fn sincospi_f32_accuracy() {
    let mut worst = 0.0f64;
    let mut check = |x: f32| {
        let (rs, rc) = sincospi_ref(x as f64);
        let (s, c) = sincospi_f32(x);
        let (es, ec) = (ulp_err_f32(s, rs), ulp_err_f32(c, rc));
        assert!(
            es <= 2.0 && ec <= 2.0,
            "sincospi_f32({x:e}) = ({s:e}, {c:e}): {es}, {ec} ulp"
        );
        worst = worst.max(es).max(ec);
    };
    // strided sweep over |x| < 2^24 (both signs)
    let mut b = 0u32;
    while b < 0x4b80_0000 {
        check(f32::from_bits(b));
        check(-f32::from_bits(b));
        b += 2053;
    }
    let mut rng = XorShift(5);
    for _ in 0..100_000 {
        check((rng.unit() * 4.0 - 2.0) as f32);
    }
    // exact points
    for k in -64i32..=64 {
        let x = k as f32 * 0.25;
        check(x);
        let (s, c) = sincospi_f32(x);
        if k % 2 == 0 {
            // multiples of 1/2: one of them is exactly 0, the other exactly +-1
            let (ws, wc) = match k.rem_euclid(8) {
                0 => (0.0, 1.0),
                2 => (1.0, 0.0),
                4 => (0.0, -1.0),
                _ => (-1.0, 0.0),
            };
            assert_eq!((s, c), (ws, wc), "x = {x}");
        } else {
            assert!((s.abs() - std::f32::consts::FRAC_1_SQRT_2).abs() <= 6e-8);
            assert!((c.abs() - std::f32::consts::FRAC_1_SQRT_2).abs() <= 6e-8);
        }
    }
    for x in [1.0e7f32, 16_777_216.0, 3.0e9, -3.0e38, 1.0e-45] {
        check(x);
    }
    let (s, c) = sincospi_f32(f32::INFINITY);
    assert!(s.is_nan() && c.is_nan());
    let (s, c) = sincospi_f32(f32::NAN);
    assert!(s.is_nan() && c.is_nan());
    println!("sincospi_f32 worst {worst:.3} ulp");
}

#[test]
fn ln_f64_accuracy() {
    let mut worst = 0u64;
    let mut check = |x: f64| {
        let d = ulp_dist_f64(ln_f64(x), x.ln());
        assert!(
            d <= 4,
            "ln_f64({x:e}) = {:e} vs {:e}: {d} ulp",
            ln_f64(x),
            x.ln()
        );
        worst = worst.max(d);
    };
    let mut rng = XorShift(3);
    for _ in 0..350_000 {
        // all positive finite doubles, subnormals included
        check(f64::from_bits(rng.next() % 0x7ff0_0000_0000_0000).max(f64::from_bits(1)));
        // near 1
        let t = (rng.unit() - 0.5) * 2f64.powi(-((rng.next() % 52) as i32));
        check(1.0 + t);
        // [1e-300, 1e300]
        check(10f64.powf(rng.unit() * 600.0 - 300.0));
    }
    for e in -1074i32..1024 {
        check(if e >= -1022 {
            f64::from_bits(((e + 1023) as u64) << 52)
        } else {
            f64::from_bits(1u64 << (e + 1074))
        });
    }
    for b in [
        1u64,
        2,
        3,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
    ] {
        check(f64::from_bits(b));
    }
    assert_eq!(ln_f64(1.0), 0.0);
    assert_eq!(ln_f64(0.0), f64::NEG_INFINITY);
    assert_eq!(ln_f64(f64::INFINITY), f64::INFINITY);
    assert!(ln_f64(-2.0).is_nan());
    assert!(ln_f64(f64::NAN).is_nan());
    println!("ln_f64 worst {worst} ulp (vs std)");
}

#[test]
fn exp_f64_accuracy() {
    let mut worst = 0u64;
    let mut check = |x: f64| {
        let (y, r) = (exp_f64(x), x.exp());
        if r.is_infinite() {
            assert_eq!(y, f64::INFINITY, "exp_f64({x:e})");
            return;
        }
        let d = ulp_dist_f64(y, r);
        assert!(d <= 4, "exp_f64({x:e}) = {y:e} vs {r:e}: {d} ulp");
        if r >= f64::MIN_POSITIVE {
            worst = worst.max(d);
        }
    };
    let mut rng = XorShift(9);
    for _ in 0..350_000 {
        check(rng.unit() * 1454.0 - 745.0);
        check((rng.unit() * 2.0 - 1.0) * 2f64.powi(-((rng.next() % 60) as i32)));
        check(709.0 + rng.unit() * 0.78);
        check(-745.13 + rng.unit() * 45.0);
    }
    for x in [
        0.0,
        -0.0,
        1.0,
        -1.0,
        709.78,
        709.782712893384,
        -708.39,
        -745.1332191019411,
        1e-300,
    ] {
        check(x);
    }
    assert_eq!(exp_f64(0.0), 1.0);
    assert_eq!(exp_f64(710.0), f64::INFINITY);
    assert_eq!(exp_f64(-746.0), 0.0);
    assert_eq!(exp_f64(f64::NEG_INFINITY), 0.0);
    assert!(exp_f64(f64::NAN).is_nan());
    println!("exp_f64 worst {worst} ulp (vs std, normal results)");
}

#[test]
fn sincospi_f64_accuracy() {
    let mut worst = 0u64;
    let mut check = |x: f64| {
        let (rs, rc) = sincospi_ref(x);
        let (s, c) = sincospi_f64(x);
        // near zeros of sin/cos compare with an absolute tolerance
        let ok = |got: f64, want: f64| {
            if want.abs() < 1e-3 {
                (got - want).abs()
                    <= 4.0 * 2f64.powi(-52) * want.abs().max(2f64.powi(-1022)) + 1e-300
            } else {
                ulp_dist_f64(got, want) <= 4
            }
        };
        assert!(
            ok(s, rs) && ok(c, rc),
            "sincospi_f64({x:e}) = ({s:e}, {c:e}) vs ({rs:e}, {rc:e})"
        );
        if rs.abs() >= 1e-3 {
            worst = worst.max(ulp_dist_f64(s, rs));
        }
        if rc.abs() >= 1e-3 {
            worst = worst.max(ulp_dist_f64(c, rc));
        }
    };
    let mut rng = XorShift(13);
    for _ in 0..350_000 {
        check(rng.unit() * 8.0 - 4.0);
        check((rng.unit() - 0.5) * 2f64.powi(21));
        check((rng.unit() - 0.5) * 2f64.powi(-((rng.next() % 80) as i32)));
    }
    for k in -64i32..=64 {
        let x = k as f64 * 0.25;
        check(x);
        let (s, c) = sincospi_f64(x);
        if k % 2 == 0 {
            assert!(s.abs() == 0.0 || s.abs() == 1.0);
            assert!(c.abs() == 0.0 || c.abs() == 1.0);
        }
    }
    for x in [2f64.powi(52) + 1.0, 2f64.powi(53), 1e300, -1e300, 5e-324] {
        check(x);
    }
    assert_eq!(sincospi_f64(2f64.powi(53) + 2.0), (0.0, 1.0));
    let (s, c) = sincospi_f64(f64::NEG_INFINITY);
    assert!(s.is_nan() && c.is_nan());
    println!("sincospi_f64 worst {worst} ulp (vs std with exact reduction)");
}

// ---------------------------------------------------------------------------
// Distributions
// ---------------------------------------------------------------------------

const N: usize = 1_000_000;
const SEED: u64 = 0x5eed_1234_abcd_0001;

#[test]
fn uniform_distributions() {
    let mut f = vec![0f32; N];
    fill_uniform_f32(SEED, 1, 0, &mut f);
    assert!(f.iter().all(|&u| u > 0.0 && u < 1.0));
    let (m, v, n) = mean_var(f.iter().map(|&x| x as f64));
    let sd = (1.0f64 / 12.0).sqrt();
    assert!((m - 0.5).abs() < 5.0 * sd / (n as f64).sqrt(), "mean {m}");
    assert!(
        (v - 1.0 / 12.0).abs() < 5.0 * (1.0 / 180.0f64 / n as f64).sqrt(),
        "var {v}"
    );

    let mut d = vec![0f64; N];
    fill_uniform_f64(SEED, 2, 0, &mut d);
    assert!(d.iter().all(|&u| u > 0.0 && u < 1.0));
    let (m, v, n) = mean_var(d.iter().copied());
    assert!((m - 0.5).abs() < 5.0 * sd / (n as f64).sqrt(), "mean {m}");
    assert!(
        (v - 1.0 / 12.0).abs() < 5.0 * (1.0 / 180.0f64 / n as f64).sqrt(),
        "var {v}"
    );
}

#[test]
fn normal_distributions() {
    let mut f = vec![0f32; N];
    fill_normal_f32(SEED, 3, 0, &mut f);
    assert!(f.iter().all(|z| z.is_finite() && z.abs() <= 5.78));
    let (m, v, n) = mean_var(f.iter().map(|&x| x as f64));
    let nf = n as f64;
    assert!(m.abs() < 5.0 / nf.sqrt(), "f32 normal mean {m}");
    assert!(
        (v - 1.0).abs() < 5.0 * (2.0 / nf).sqrt(),
        "f32 normal var {v}"
    );
    let p1 = f.iter().filter(|z| z.abs() < 1.0).count() as f64 / nf;
    let p = 0.682_689_492_137_085_9;
    assert!(
        (p1 - p).abs() < 5.0 * (p * (1.0 - p) / nf).sqrt(),
        "P(|z|<1) = {p1}"
    );

    let mut d = vec![0f64; N];
    fill_normal_f64(SEED, 4, 0, &mut d);
    assert!(d.iter().all(|z| z.is_finite()));
    let (m, v, n) = mean_var(d.iter().copied());
    let nf = n as f64;
    assert!(m.abs() < 5.0 / nf.sqrt(), "f64 normal mean {m}");
    assert!(
        (v - 1.0).abs() < 5.0 * (2.0 / nf).sqrt(),
        "f64 normal var {v}"
    );
    let p2 = d.iter().filter(|z| z.abs() < 2.0).count() as f64 / nf;
    let p = 0.954_499_736_103_641_6;
    assert!(
        (p2 - p).abs() < 5.0 * (p * (1.0 - p) / nf).sqrt(),
        "P(|z|<2) = {p2}"
    );

    // scaled fills: mean 0, std 1 is exactly the standard normal
    let mut g = vec![0f32; 1000];
    fill_normal_f32_scaled(SEED, 3, 0, 0.0, 1.0, &mut g);
    assert_eq!(&g[..], &f[..1000]);
    let mut g = vec![0f64; 1000];
    fill_normal_f64_scaled(SEED, 4, 0, 0.0, 1.0, &mut g);
    assert_eq!(&g[..], &d[..1000]);
    let mut g = vec![0f32; 1000];
    fill_normal_f32_scaled(SEED, 3, 0, 2.0, 3.0, &mut g);
    for (a, z) in g.iter().zip(&f) {
        assert_eq!(*a, 2.0 + 3.0 * z);
    }
}

#[test]
fn exponential_and_lognormal_distributions() {
    let mut f = vec![0f32; N];
    fill_exponential_f32(SEED, 5, 0, 1.0, &mut f);
    assert!(f.iter().all(|&e| e > 0.0 && e.is_finite()));
    let (m, v, n) = mean_var(f.iter().map(|&x| x as f64));
    assert!(
        (m - 1.0).abs() < 5.0 / (n as f64).sqrt(),
        "exp f32 mean {m}"
    );
    assert!(
        (v - 1.0).abs() < 5.0 * (8.0 / n as f64).sqrt(),
        "exp f32 var {v}"
    );
    let mut g = vec![0f32; 1000];
    fill_exponential_f32(SEED, 5, 0, 2.5, &mut g);
    for (a, e) in g.iter().zip(&f) {
        assert_eq!(*a, 2.5 * e);
    }

    let mut d = vec![0f64; N];
    fill_exponential_f64(SEED, 6, 0, 2.0, &mut d);
    assert!(d.iter().all(|&e| e > 0.0 && e.is_finite()));
    let (m, _, n) = mean_var(d.iter().copied());
    assert!(
        (m - 2.0).abs() < 5.0 * 2.0 / (n as f64).sqrt(),
        "exp f64 mean {m}"
    );

    // lognormal(mu, s): mean exp(mu + s^2/2), variance (exp(s^2) - 1) exp(2 mu + s^2)
    let (mu, s) = (0.1f64, 0.5f64);
    let want = (mu + s * s / 2.0).exp();
    let sd = (((s * s).exp() - 1.0) * (2.0 * mu + s * s).exp()).sqrt();
    let mut f = vec![0f32; N];
    fill_lognormal_f32(SEED, 7, 0, mu as f32, s as f32, &mut f);
    assert!(f.iter().all(|&x| x > 0.0 && x.is_finite()));
    let (m, _, n) = mean_var(f.iter().map(|&x| x as f64));
    assert!(
        (m - want).abs() < 5.0 * sd / (n as f64).sqrt(),
        "lognormal f32 mean {m} want {want}"
    );
    let mut d = vec![0f64; N];
    fill_lognormal_f64(SEED, 8, 0, mu, s, &mut d);
    let (m, _, n) = mean_var(d.iter().copied());
    assert!(
        (m - want).abs() < 5.0 * sd / (n as f64).sqrt(),
        "lognormal f64 mean {m} want {want}"
    );
    // lognormal is exp of the normal stream
    let mut z = vec![0f64; 100];
    fill_normal_f64(SEED, 8, 0, &mut z);
    for (x, z) in d.iter().zip(&z) {
        assert_eq!(*x, exp_f64(mu + s * z));
    }
}

#[test]
fn integer_distributions() {
    // small range: one word each, roughly uniform
    let (low, high) = (-3i64, 7i64);
    let mut v = vec![0i64; N];
    fill_integers_i64(SEED, 9, 0, low, high, &mut v);
    let mut counts = [0usize; 10];
    for &x in &v {
        assert!((low..high).contains(&x));
        counts[(x - low) as usize] += 1;
    }
    let e = N as f64 / 10.0;
    for c in counts {
        assert!(
            (c as f64 - e).abs() < 5.0 * (e * 0.9).sqrt(),
            "counts {counts:?}"
        );
    }
    let mut w = vec![0i32; 1000];
    fill_integers_i32(SEED, 9, 0, low, high, &mut w);
    assert!(w.iter().zip(&v).all(|(a, b)| *a as i64 == *b));

    // full i32 range through the one-word path
    let mut w = vec![0i32; 1000];
    fill_integers_i32(SEED, 10, 0, i32::MIN as i64, i32::MAX as i64 + 1, &mut w);
    let mut raw = vec![0u32; 1000];
    fill_raw(SEED, 10, 0, &mut raw);
    assert!(w
        .iter()
        .zip(&raw)
        .all(|(a, r)| *a as u32 == r ^ 0x8000_0000));

    // huge range: two words each
    let (low, high) = (-(1i64 << 62), 1i64 << 62);
    assert!(!integers_use_one_word(low, high));
    let mut v = vec![0i64; N / 4];
    fill_integers_i64(SEED, 11, 0, low, high, &mut v);
    assert!(v.iter().all(|x| (low..high).contains(x)));
    let (m, _, n) = mean_var(v.iter().map(|&x| x as f64));
    let sd = 2f64.powi(63) / 12f64.sqrt();
    assert!(m.abs() < 5.0 * sd / (n as f64).sqrt(), "mean {m}");
    // the full i64 range
    assert_eq!(uniform_int_64(0, 0, i64::MIN, i64::MAX), i64::MIN);
    assert_eq!(
        uniform_int_64(u32::MAX, u32::MAX, i64::MIN, i64::MAX),
        i64::MAX - 1
    );
    assert_eq!(uniform_int_32(u32::MAX, 0, 1 << 32), u32::MAX as i64);
    assert_eq!(uniform_int_32(u32::MAX, 5, 6), 5);
}

#[test]
fn poisson_distributions() {
    let n = 200_000usize;
    for (stream, lam) in [
        (0u64, 0.5f64),
        (1, 4.0),
        (2, 9.9),
        (3, 10.0),
        (4, 37.5),
        (5, 1000.0),
    ] {
        let mut v = vec![0i64; n];
        fill_poisson_i64(SEED, stream, 0, lam, &mut v);
        assert!(v.iter().all(|&k| k >= 0));
        let (m, var, n) = mean_var(v.iter().map(|&k| k as f64));
        let nf = n as f64;
        assert!(
            (m - lam).abs() < 5.0 * (lam / nf).sqrt(),
            "lam {lam}: mean {m}"
        );
        let sd_var = ((lam + 2.0 * lam * lam) / nf).sqrt();
        assert!((var - lam).abs() < 5.0 * sd_var, "lam {lam}: var {var}");
    }
    let mut v = vec![7i64; 100];
    fill_poisson_i64(SEED, 0, 0, 0.0, &mut v);
    assert!(v.iter().all(|&k| k == 0));
    // different streams give different draws
    let a: Vec<i64> = (0..64).map(|i| poisson_at(SEED, 0, i, 37.5)).collect();
    let b: Vec<i64> = (0..64).map(|i| poisson_at(SEED, 1, i, 37.5)).collect();
    assert_ne!(a, b);
    assert_ne!(poisson_key(SEED, 0), poisson_key(SEED, 1));
    assert_ne!(poisson_key(0, 1), poisson_key(1, 0));
}

#[test]
fn ln_factorial_matches_direct_sums() {
    let mut acc = 0.0f64;
    for k in 0..200i64 {
        if k > 0 {
            acc += (k as f64).ln();
        }
        assert!(
            (ln_factorial(k) - acc).abs() <= 1e-13 * acc.max(1.0),
            "k {k}: {} vs {acc}",
            ln_factorial(k)
        );
    }
}

// ---------------------------------------------------------------------------
// Fills with offsets agree with the element-wise definitions
// ---------------------------------------------------------------------------

#[test]
fn fills_with_offsets_match_elementwise() {
    let (seed, stream) = (0xabcdef_u64, 42u64);
    for start in [0u64, 1, 2, 3, 5, 6, 7, (1 << 40) + 3, u64::MAX - 100] {
        for len in [0usize, 1, 2, 3, 5, 8, 13] {
            let idx = |j: usize| start + j as u64;
            let mut f = vec![0f32; len];
            fill_uniform_f32(seed, stream, start, &mut f);
            assert!((0..len).all(|j| f[j] == uniform_f32_at(seed, stream, idx(j))));
            fill_normal_f32(seed, stream, start, &mut f);
            assert!((0..len).all(|j| f[j] == normal_f32_at(seed, stream, idx(j))));
            fill_exponential_f32(seed, stream, start, 1.0, &mut f);
            assert!((0..len).all(|j| f[j] == exponential_f32(raw_word(seed, stream, idx(j)))));
            fill_lognormal_f32(seed, stream, start, 0.5, 2.0, &mut f);
            assert!((0..len)
                .all(|j| f[j] == lognormal_f32(0.5, 2.0, normal_f32_at(seed, stream, idx(j)))));
            let mut d = vec![0f64; len];
            fill_uniform_f64(seed, stream, start, &mut d);
            assert!((0..len).all(|j| d[j] == uniform_f64_at(seed, stream, idx(j))));
            fill_normal_f64(seed, stream, start, &mut d);
            assert!((0..len).all(|j| d[j] == normal_f64_at(seed, stream, idx(j))));
            fill_exponential_f64(seed, stream, start, 1.0, &mut d);
            assert!((0..len).all(|j| d[j] == -ln_f64(uniform_f64_at(seed, stream, idx(j)))));
            fill_lognormal_f64(seed, stream, start, -1.0, 0.25, &mut d);
            assert!((0..len)
                .all(|j| d[j] == lognormal_f64(-1.0, 0.25, normal_f64_at(seed, stream, idx(j)))));
            let mut l = vec![0i64; len];
            for (lo, hi) in [(-5i64, 1000i64), (i64::MIN, i64::MAX), (0, 1 << 40)] {
                fill_integers_i64(seed, stream, start, lo, hi, &mut l);
                assert!((0..len).all(|j| l[j] == integer_at(seed, stream, idx(j), lo, hi)));
            }
            fill_poisson_i64(seed, stream, start, 12.5, &mut l);
            assert!((0..len).all(|j| l[j] == poisson_at(seed, stream, idx(j), 12.5)));
            fill_poisson_i64(seed, stream, start, 3.5, &mut l);
            assert!((0..len).all(|j| l[j] == poisson_at(seed, stream, idx(j), 3.5)));
        }
    }
    // the blocks of normals are the element-wise definitions
    let (w, zkey) = (raw_block(seed, stream, 9), zig_key(seed, stream));
    assert_eq!(
        normal_f32_block(w, zkey, 9),
        [36u64, 37, 38, 39].map(|i| normal_f32_at(seed, stream, i))
    );
    assert_eq!(
        normal_f64_block(w, zkey, 9),
        [18u64, 19].map(|i| normal_f64_at(seed, stream, i))
    );
}

// ---------------------------------------------------------------------------
// Golden hashes: CPU/GPU parity regression
// ---------------------------------------------------------------------------

/// FNV hashes of 1003 elements starting at 13 of each derived stream
/// (seed 0x0123456789abcdef, stream 0xfedcba9876543210): a regression guard
/// of the CPU streams. `tests/random.rs` checks on a GPU that the kernels of
/// `philox.cuh` draw the same bits. A change here means the CPU stream
/// changed and `philox.cuh` must change identically. (The normal and
/// lognormal hashes changed on 2026-12-02 with the move from Box–Muller to
/// the ziggurat, and the `f32` ones on 2026-12-03 with its move from 256 to
/// 2048 layers.)
#[test]
fn golden_stream_hashes() {
    let (seed, stream, st, n) = (
        0x0123_4567_89ab_cdef_u64,
        0xfedc_ba98_7654_3210_u64,
        13u64,
        1003usize,
    );
    let f32h = |v: &[f32]| fnv(v.iter().map(|x| x.to_bits() as u64));
    let f64h = |v: &[f64]| fnv(v.iter().map(|x| x.to_bits()));
    let i64h = |v: &[i64]| fnv(v.iter().map(|&x| x as u64));
    let (mut u, mut f, mut d, mut l, mut i) = (
        vec![0u32; n],
        vec![0f32; n],
        vec![0f64; n],
        vec![0i64; n],
        vec![0i32; n],
    );
    fill_raw(seed, stream, st, &mut u);
    assert_eq!(fnv(u.iter().map(|&x| x as u64)), 0x4ae55bdba9515dfd, "raw");
    fill_uniform_f32(seed, stream, st, &mut f);
    assert_eq!(f32h(&f), 0xd3cca287562f6a7b, "uniform f32");
    fill_uniform_f64(seed, stream, st, &mut d);
    assert_eq!(f64h(&d), 0x5c8bd5dd57328395, "uniform f64");
    fill_normal_f32(seed, stream, st, &mut f);
    assert_eq!(f32h(&f), 0x623552eaa21c0d4f, "normal f32");
    fill_normal_f32_scaled(seed, stream, st, 1.5, 3.25, &mut f);
    assert_eq!(f32h(&f), 0x5c648892928847e0, "normal f32 scaled");
    fill_normal_f64(seed, stream, st, &mut d);
    assert_eq!(f64h(&d), 0x7d10fb9a8acd3f35, "normal f64");
    fill_normal_f64_scaled(seed, stream, st, -2.0, 0.3, &mut d);
    assert_eq!(f64h(&d), 0x2bd9253ac8678695, "normal f64 scaled");
    fill_exponential_f32(seed, stream, st, 2.5, &mut f);
    assert_eq!(f32h(&f), 0xb5e1f21e1e9ad866, "exponential f32");
    fill_exponential_f64(seed, stream, st, 2.5, &mut d);
    assert_eq!(f64h(&d), 0xaec93f996d1ac282, "exponential f64");
    fill_lognormal_f32(seed, stream, st, 0.5, 0.75, &mut f);
    assert_eq!(f32h(&f), 0x92860a778a4650f7, "lognormal f32");
    fill_lognormal_f64(seed, stream, st, 0.5, 0.75, &mut d);
    assert_eq!(f64h(&d), 0x7f29d2b8eff1e392, "lognormal f64");
    fill_integers_i64(seed, stream, st, -5, 1000, &mut l);
    assert_eq!(i64h(&l), 0xcf883f3d591f6aba, "integers small");
    fill_integers_i64(seed, stream, st, -(1 << 62), 1 << 62, &mut l);
    assert_eq!(i64h(&l), 0xaf75c48b3d0f04a1, "integers large");
    fill_integers_i32(seed, stream, st, i32::MIN as i64, 1 << 31, &mut i);
    assert_eq!(
        fnv(i.iter().map(|&x| x as u32 as u64)),
        0xdaf5809b29515dfd,
        "integers i32"
    );
    for (lam, h) in [
        (0.5, 0xc7be485c1efe4246u64),
        (4.0, 0xed8570de85620832),
        (9.9, 0x385337360589f593),
        (10.0, 0x7d0061c8b8a0d884),
        (37.5, 0x662172af226a3060),
        (1000.0, 0xa431b3ca77e192f2),
    ] {
        fill_poisson_i64(seed, stream, st, lam, &mut l);
        assert_eq!(i64h(&l), h, "poisson {lam}");
    }
}

// ---------------------------------------------------------------------------
// The CUDA twin uses the same constants
// ---------------------------------------------------------------------------

#[test]
fn cuda_twin_shares_constants() {
    let rs = [
        include_str!("../src/random/philox/mod.rs"),
        include_str!("../src/random/philox/math.rs"),
        include_str!("../src/random/philox/normal.rs"),
        include_str!("../src/random/philox/poisson.rs"),
    ];
    let cuh = include_str!("../src/random/philox.cuh");
    let mut checked = 0;
    for line in rs.iter().flat_map(|f| f.lines()) {
        let line = line.trim_start().trim_start_matches("pub ");
        let Some(rest) = line.strip_prefix("const ") else {
            continue;
        };
        let Some((name, rest)) = rest.split_once(": ") else {
            continue;
        };
        let Some((ty, rest)) = rest.split_once(" = ") else {
            continue;
        };
        if !matches!(ty, "f32" | "f64" | "u32") {
            continue;
        }
        let lit = rest.split(';').next().unwrap().replace('_', "");
        let mut want = lit.clone();
        if ty != "u32" && !want.contains('.') && !want.contains('e') {
            want.push_str(".0");
        }
        match ty {
            "f32" => want.push('f'),
            "u32" => want.push('u'),
            _ => {}
        }
        let define = format!("#define CUSCI_{name} ({want})");
        assert!(cuh.contains(&define), "philox.cuh lacks `{define}`");
        checked += 1;
    }
    assert!(checked >= 60, "only {checked} constants found");
    for k in 0..10 {
        assert!(cuh.contains(&format!("#define CUSCI_LN_FACTORIAL_{k} (")));
    }
}

// ---------------------------------------------------------------------------
// The ziggurat
// ---------------------------------------------------------------------------

/// The CUDA tables (`ziggurat.cuh`) hold the same bits as the Rust ones.
#[test]
fn ziggurat_tables_are_the_same_in_both_twins() {
    use ziggurat_tables::*;
    let cuh = include_str!("../src/random/ziggurat.cuh");
    let table = |name: &str| -> Vec<u64> {
        let start = cuh.find(&format!("{name}[")).expect(name);
        let body = &cuh[start..];
        let body = &body[body.find('{').unwrap() + 1..body.find('}').unwrap()];
        body.split(',')
            .map(|t| {
                let t = t.trim().trim_end_matches("ULL").trim_end_matches('u');
                u64::from_str_radix(t.trim_start_matches("0x"), 16).unwrap()
            })
            .collect()
    };
    let widen = |v: &[u32]| v.iter().map(|&x| x as u64).collect::<Vec<_>>();
    assert_eq!(table("cusci_zig_w_f32"), widen(&ZIG_W_F32));
    assert_eq!(table("cusci_zig_k_f32"), widen(&ZIG_K_F32));
    assert_eq!(table("cusci_zig_f_f32"), widen(&ZIG_F_F32));
    assert_eq!(table("cusci_zig_w_f64"), ZIG_W_F64.to_vec());
    assert_eq!(table("cusci_zig_k_f64"), ZIG_K_F64.to_vec());
    assert_eq!(table("cusci_zig_f_f64"), ZIG_F_F64.to_vec());
    assert!(cuh.contains(&format!("#define CUSCI_ZIG_LB_F32 {ZIG_LB_F32}u")));
    assert_eq!(ZIG_W_F32.len(), 1 << ZIG_LB_F32);
    assert!(cuh.contains(&format!("#define CUSCI_ZIG_R_F32 {ZIG_R_F32:#010x}u")));
    assert!(cuh.contains(&format!("#define CUSCI_ZIG_R_F64 {ZIG_R_F64:#018x}ULL")));
}

/// The geometry the sampler relies on, for both ziggurats (`f64`: 256 layers, a 52-bit J; `f32`:
/// 2^ZIG_LB_F32 layers, a (31 - ZIG_LB_F32)-bit J): x_i increasing, f(x_i) decreasing, every layer
/// of area v = x_1 (1 - f(x_1)), r = x_{N-1}, K[i] = floor(2^j x_{i-1} / x_i), K[1] = 0, and the
/// base strip (width x_0, height f(r)) of area v too.
#[test]
fn ziggurat_tables_describe_equal_area_layers() {
    use ziggurat_tables::*;
    // (x_i, f(x_i), K[i]) of each table, x_i = W[i] 2^j
    let check = |x: &dyn Fn(usize) -> f64,
                 f: &dyn Fn(usize) -> f64,
                 k: &dyn Fn(usize) -> u64,
                 n: usize,
                 jbits: i32,
                 r: f64,
                 (area_rel, f_abs): (f64, f64)| {
        assert_eq!(x(n - 1), r);
        let v = x(1) * (1.0 - f(1));
        for i in 2..n {
            assert!(x(i) > x(i - 1) && f(i) < f(i - 1), "layer {i} of {n}");
            let area = x(i) * (f(i - 1) - f(i));
            assert!(
                (area - v).abs() < area_rel * v,
                "layer {i} of {n}: area {area} vs {v}"
            );
            let want = (x(i - 1) / x(i) * 2f64.powi(jbits)).floor() as u64;
            assert!(k(i).abs_diff(want) <= 1, "K[{i}] of {n}");
            assert!(
                ((-0.5 * x(i) * x(i)).exp() - f(i)).abs() < f_abs,
                "F[{i}] of {n}"
            );
        }
        assert!(
            (x(0) * f(n - 1) - v).abs() < area_rel * v,
            "base strip of {n}"
        );
        assert_eq!(k(1), 0);
    };
    let r64 = f64::from_bits(ZIG_R_F64);
    assert!((r64 - 3.654_152_885_361_009).abs() < 1e-15);
    check(
        &|i| f64::from_bits(ZIG_W_F64[i]) * 2f64.powi(52),
        &|i| f64::from_bits(ZIG_F_F64[i]),
        &|i| ZIG_K_F64[i],
        256,
        52,
        r64,
        (1e-9, 1e-15),
    );
    // the f32 tables are rounded to f32 once; v = x_1 (1 - f(x_1)) then carries the rounding of
    // f(x_1) ~ 1, hence the looser area tolerance
    let jb = 31 - ZIG_LB_F32 as i32;
    check(
        &|i| f32::from_bits(ZIG_W_F32[i]) as f64 * 2f64.powi(jb),
        &|i| f32::from_bits(ZIG_F_F32[i]) as f64,
        &|i| ZIG_K_F32[i] as u64,
        1 << ZIG_LB_F32,
        jb,
        f32::from_bits(ZIG_R_F32) as f64,
        (2e-3, 1e-6),
    );
}

/// P(a < Z < b) for a standard normal, by composite Simpson integration of the density.
fn normal_prob(a: f64, b: f64) -> f64 {
    let m = 2000;
    let h = (b - a) / m as f64;
    let pdf = |x: f64| (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let mut s = pdf(a) + pdf(b);
    for k in 1..m {
        s += pdf(a + k as f64 * h) * if k % 2 == 1 { 4.0 } else { 2.0 };
    }
    s * h / 3.0
}

/// Chi-square of binned counts of `z` against the normal distribution: 72 bins of width 0.125
/// over [-4.5, 4.5] and the two tails (73 degrees of freedom).
fn normal_chi2(z: impl Iterator<Item = f64>) -> f64 {
    let edges: Vec<f64> = (0..=72).map(|k| -4.5 + 0.125 * k as f64).collect();
    let mut counts = vec![0u64; 74];
    let mut n = 0u64;
    for v in z {
        n += 1;
        let k = if v < -4.5 {
            0
        } else if v >= 4.5 {
            73
        } else {
            1 + (((v + 4.5) / 0.125) as usize).min(71)
        };
        counts[k] += 1;
    }
    let tail = normal_prob(4.5, 12.0);
    let mut chi2 = 0.0;
    for (k, &c) in counts.iter().enumerate() {
        let p = match k {
            0 | 73 => tail,
            _ => normal_prob(edges[k - 1], edges[k]),
        };
        let e = p * n as f64;
        chi2 += (c as f64 - e).powi(2) / e;
    }
    chi2
}

#[test]
fn ziggurat_normals_follow_the_normal_distribution() {
    // 73 degrees of freedom: the 1e-6 upper quantile is about 140
    let mut f = vec![0f32; 1 << 22];
    fill_normal_f32(SEED, 11, 0, &mut f);
    let c32 = normal_chi2(f.iter().map(|&v| v as f64));
    assert!(c32 < 140.0, "f32 chi2 {c32}");
    let mut d = vec![0f64; 1 << 21];
    fill_normal_f64(SEED, 12, 0, &mut d);
    let c64 = normal_chi2(d.iter().copied());
    assert!(c64 < 140.0, "f64 chi2 {c64}");
    // a wrong table shows at once: the same counts against a shifted density fail
    let shifted = normal_chi2(d.iter().map(|v| v * 1.01));
    assert!(
        shifted > 200.0,
        "a 1% scale error went unnoticed: chi2 {shifted}"
    );
}

/// Words that start in the base layer beyond r go to the tail: |z| > r, with the conditional
/// distribution of the normal tail; words that fail a wedge test still give normal values.
#[test]
fn ziggurat_rejection_paths() {
    use ziggurat_tables::*;
    let r = f32::from_bits(ZIG_R_F32) as f64;
    let zkey = zig_key(SEED, 5);
    let mut rng = XorShift(77);
    let k0 = ZIG_K_F32[0];
    let n = 200_000u64;
    let q_r = normal_prob(r, 12.0);
    let mut beyond = 0u64;
    let lb = ZIG_LB_F32;
    let jb = 31 - lb;
    for i in 0..n {
        let j = k0 + (rng.next() % ((1u64 << jb) - k0 as u64)) as u32;
        let sign = (rng.next() & 1) as u32;
        let w = (j << (lb + 1)) | (sign << lb);
        let z = normal_f32(w, zkey, i) as f64;
        assert!(z.abs() >= r as f32 as f64 - 1e-6, "tail draw {z} below r");
        assert_eq!(z < 0.0, sign == 1);
        if z.abs() > r + 0.25 {
            beyond += 1;
        }
        // the f64 ziggurat (256 layers): layer 0, J >= K[0], the same sign
        let jd = ZIG_K_F64[0] + rng.next() % ((1u64 << 52) - ZIG_K_F64[0]);
        let hi = (((jd >> 29) as u32) << 9) | (sign << 8);
        let lo = ((jd & ((1 << 29) - 1)) as u32) << 3;
        let d = normal_f64(hi, lo, zkey, i);
        assert_eq!(d < 0.0, sign == 1);
        assert!(
            d.abs() >= f64::from_bits(ZIG_R_F64) - 1e-12,
            "f64 tail draw {d}"
        );
    }
    // P(|Z| > r + 0.25 | |Z| > r)
    let p = normal_prob(r + 0.25, 12.0) / q_r;
    let got = beyond as f64 / n as f64;
    assert!(
        (got - p).abs() < 5.0 * (p * (1.0 - p) / n as f64).sqrt(),
        "tail: {got} vs {p}"
    );
    // every layer's rejected words: finite values, deterministic (a rejection restarts with a
    // new word, sign included)
    for l in 1..1u32 << lb {
        for t in 0..8u32 {
            let k = ZIG_K_F32[l as usize];
            let j = k + ((1 << jb) - k) * t / 8;
            let w = (j.min((1 << jb) - 1) << (lb + 1)) | (1 << lb) | l;
            let z = normal_f32(w, zkey, l as u64);
            assert!(z.is_finite() && z.abs() < 10.0, "layer {l}: {z}");
            assert_eq!(z.to_bits(), normal_f32(w, zkey, l as u64).to_bits());
        }
    }
}
