//! The Black–Scholes closed form of a European option and the error function it needs.
//!
//! Self-contained (the standard library only): the bench suite includes this same file with
//! `#[path]` to check its Monte Carlo case, so it must not use anything of the CLI crate.
//!
//! `erf` and `erfc` use the series `erf(x) = 2/√π · e^{−x²} · Σ 2ⁿ x^{2n+1} / (1·3···(2n+1))`
//! (all terms positive, so no cancellation) below |x| = 2.5 and the continued fraction
//! `√π · e^{x²} · erfc(x) = 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...)))))` (evaluated with
//! Lentz's method) above; both are accurate to a few units in the last place of an f64, far
//! inside the 1e-12 the demo asks for.

use std::f64::consts::{FRAC_1_SQRT_2, PI};

/// Below this |x| the series is used, above it the continued fraction.
const SWITCH: f64 = 2.5;

/// `erf(x)` for |x| < [`SWITCH`] by the positive-term series.
fn erf_series(x: f64) -> f64 {
    let x2 = x * x;
    let mut term = x;
    let mut sum = x;
    let mut n = 0.0;
    while n < 500.0 {
        n += 1.0;
        term *= 2.0 * x2 / (2.0 * n + 1.0);
        sum += term;
        if term <= sum * 1e-17 {
            break;
        }
    }
    2.0 / PI.sqrt() * (-x2).exp() * sum
}

/// `erfc(x)` for x ≥ [`SWITCH`] by the continued fraction (modified Lentz).
fn erfc_cf(x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    if x >= 28.0 {
        return 0.0; // erfc(28) < 1e-342 underflows anyway (and x = ∞ would give ∞/∞)
    }
    let mut f = x;
    let mut c = x;
    let mut d = 0.0;
    let mut k = 1.0;
    while k < 5000.0 {
        let a = k / 2.0;
        d = x + a * d;
        if d == 0.0 {
            d = TINY;
        }
        c = x + a / c;
        if c == 0.0 {
            c = TINY;
        }
        d = 1.0 / d;
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
        k += 1.0;
    }
    (-x * x).exp() / (PI.sqrt() * f)
}

/// The error function.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x < 0.0 {
        return -erf(-x);
    }
    if x < SWITCH {
        erf_series(x)
    } else {
        1.0 - erfc_cf(x)
    }
}

/// The complementary error function `1 − erf(x)`, without cancellation for large x.
pub fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x < SWITCH {
        1.0 - erf_series(x)
    } else {
        erfc_cf(x)
    }
}

/// The standard normal cumulative distribution function Φ(z).
pub fn norm_cdf(z: f64) -> f64 {
    0.5 * erfc(-z * FRAC_1_SQRT_2)
}

/// `d1` and `d2` of the Black–Scholes formula (σ√T > 0).
fn d1_d2(s0: f64, strike: f64, rate: f64, sigma: f64, maturity: f64) -> (f64, f64) {
    let vol = sigma * maturity.sqrt();
    let d1 = ((s0 / strike).ln() + (rate + 0.5 * sigma * sigma) * maturity) / vol;
    (d1, d1 - vol)
}

/// The Black–Scholes price of a European call: spot `s0`, `strike`, continuously compounded
/// `rate`, volatility `sigma`, `maturity` in years. With no volatility or no time left it is the
/// discounted intrinsic value of the forward.
pub fn call_price(s0: f64, strike: f64, rate: f64, sigma: f64, maturity: f64) -> f64 {
    let df = (-rate * maturity).exp();
    if sigma <= 0.0 || maturity <= 0.0 {
        return (s0 - strike * df).max(0.0);
    }
    let (d1, d2) = d1_d2(s0, strike, rate, sigma, maturity);
    s0 * norm_cdf(d1) - strike * df * norm_cdf(d2)
}

/// The Black–Scholes price of a European put (same parameters as [`call_price`]).
pub fn put_price(s0: f64, strike: f64, rate: f64, sigma: f64, maturity: f64) -> f64 {
    let df = (-rate * maturity).exp();
    if sigma <= 0.0 || maturity <= 0.0 {
        return (strike * df - s0).max(0.0);
    }
    let (d1, d2) = d1_d2(s0, strike, rate, sigma, maturity);
    strike * df * norm_cdf(-d2) - s0 * norm_cdf(-d1)
}

#[cfg(test)]
mod tests {
    use super::*;

    // reference values of erf/erfc to 16+ digits (tables of the error function)
    const ERF: [(f64, f64); 6] = [
        (0.1, 0.112_462_916_018_284_89),
        (0.5, 0.520_499_877_813_046_5),
        (1.0, 0.842_700_792_949_714_9),
        (1.5, 0.966_105_146_475_310_7),
        (2.0, 0.995_322_265_018_952_7),
        (3.0, 0.999_977_909_503_001_4),
    ];

    #[test]
    fn erf_matches_table() {
        for (x, want) in ERF {
            assert!(
                (erf(x) - want).abs() < 1e-15,
                "erf({x}) = {} != {want}",
                erf(x)
            );
            assert!((erf(-x) + want).abs() < 1e-15, "erf is odd at {x}");
            assert!((erfc(x) - (1.0 - want)).abs() < 1e-15, "erfc({x})");
        }
        assert_eq!(erf(0.0), 0.0);
        assert!(erf(f64::NAN).is_nan());
        assert_eq!(erf(f64::INFINITY), 1.0);
        assert_eq!(erf(f64::NEG_INFINITY), -1.0);
    }

    #[test]
    fn erfc_tail_is_relatively_accurate() {
        for (x, want) in [
            (3.0, 2.209_049_699_858_544e-5),
            (5.0, 1.537_459_794_428_035e-12),
            (10.0, 2.088_487_583_762_545e-45),
        ] {
            let got = erfc(x);
            assert!(
                ((got - want) / want).abs() < 1e-13,
                "erfc({x}) = {got:e} != {want:e}"
            );
        }
        assert_eq!(erfc(40.0), 0.0);
        assert!((erfc(-3.0) - (2.0 - 2.209_049_699_858_544e-5)).abs() < 1e-15);
    }

    #[test]
    fn erf_is_continuous_at_the_switch() {
        let below = erf(SWITCH - 1e-12);
        let at = erf(SWITCH);
        assert!((below - at).abs() < 1e-14, "{below} vs {at}");
        // and the two methods agree where both converge
        for x in [1.5, 2.0, 2.5, 3.0] {
            assert!(
                (erf_series(x) - (1.0 - erfc_cf(x))).abs() < 2e-15,
                "x = {x}"
            );
        }
    }

    #[test]
    fn normal_cdf() {
        assert_eq!(norm_cdf(0.0), 0.5);
        assert!((norm_cdf(1.96) - 0.975_002_104_851_78).abs() < 1e-13);
        assert!((norm_cdf(-1.0) - 0.158_655_253_931_457_05).abs() < 1e-15);
        for z in [-6.0, -2.5, -0.3, 0.7, 3.1] {
            assert!(
                (norm_cdf(z) + norm_cdf(-z) - 1.0).abs() < 1e-15,
                "symmetry at {z}"
            );
        }
    }

    #[test]
    fn black_scholes_demo_option() {
        let c = call_price(100.0, 105.0, 0.05, 0.2, 1.0);
        assert!((c - 8.021_352_235).abs() < 1e-6, "call = {c}");
        // put-call parity: C − P = S − K e^{−rT}
        let p = put_price(100.0, 105.0, 0.05, 0.2, 1.0);
        let parity = 100.0 - 105.0 * (-0.05f64).exp();
        assert!((c - p - parity).abs() < 1e-12);
        // the textbook at-the-money case
        assert!((call_price(100.0, 100.0, 0.05, 0.2, 1.0) - 10.450_583_572_185_565).abs() < 1e-9);
        // degenerate volatility: intrinsic value of the forward
        assert_eq!(call_price(100.0, 90.0, 0.0, 0.0, 1.0), 10.0);
    }
}
