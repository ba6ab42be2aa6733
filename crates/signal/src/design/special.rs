//! The few special functions that filter design needs: complete elliptic integrals and Jacobi's
//! elliptic functions (parameter `m = k²`, as SciPy's `ellipk`, `ellipkm1`, `ellipj`).

use std::f64::consts::{FRAC_PI_2, PI};

/// The arithmetic-geometric mean of `a` and `b`.
fn agm(mut a: f64, mut b: f64) -> f64 {
    for _ in 0..64 {
        let an = 0.5 * (a + b);
        let bn = (a * b).sqrt();
        if (an - bn).abs() <= 2.0 * f64::EPSILON * an {
            return 0.5 * (an + bn);
        }
        a = an;
        b = bn;
    }
    a
}

/// `scipy.special.ellipk(m)`: K(m) = π / (2·agm(1, √(1-m))), for `m < 1`.
pub fn ellipk(m: f64) -> f64 {
    if m == 1.0 {
        return f64::INFINITY;
    }
    if m > 1.0 || m.is_nan() {
        return f64::NAN;
    }
    PI / (2.0 * agm(1.0, (1.0 - m).sqrt()))
}

/// `scipy.special.ellipkm1(p)`: K(1 - p), accurate for small `p`.
pub fn ellipkm1(p: f64) -> f64 {
    if p == 0.0 {
        return f64::INFINITY;
    }
    if p < 0.0 || p.is_nan() {
        return f64::NAN;
    }
    PI / (2.0 * agm(1.0, p.sqrt()))
}

/// Jacobi elliptic functions `(sn, cn, dn, ph)` of argument `u` and parameter `m ∈ [0, 1]`
/// (`scipy.special.ellipj`): the descending Landen / AGM scheme (Abramowitz & Stegun 16.4), with
/// the series of A&S 16.13 and 16.15 near `m = 0` and `m = 1`.
pub fn ellipj(u: f64, m: f64) -> (f64, f64, f64, f64) {
    if !(0.0..=1.0).contains(&m) || m.is_nan() || u.is_nan() {
        return (f64::NAN, f64::NAN, f64::NAN, f64::NAN);
    }
    if m < 1e-9 {
        let (t, b) = u.sin_cos();
        let ai = 0.25 * m * (u - t * b);
        return (t - ai * b, b + ai * t, 1.0 - 0.5 * m * t * t, u - ai);
    }
    if m >= 0.999_999_999_9 {
        let ai = 0.25 * (1.0 - m);
        let b = u.cosh();
        let t = u.tanh();
        let phi = 1.0 / b;
        let twon = b * u.sinh();
        let sn = t + ai * (twon - u) / (b * b);
        let ph = 2.0 * u.exp().atan() - FRAC_PI_2 + ai * (twon - u) / b;
        let ai2 = ai * t * phi;
        let cn = phi - ai2 * (twon - u);
        let dn = phi + ai2 * (twon + u);
        return (sn, cn, dn, ph);
    }
    let mut a = [0.0f64; 10];
    let mut c = [0.0f64; 10];
    a[0] = 1.0;
    let mut b = (1.0 - m).sqrt();
    c[0] = m.sqrt();
    let mut twon = 1.0;
    let mut i = 0;
    while (c[i] / a[i]).abs() > f64::EPSILON / 2.0 {
        if i > 7 {
            break;
        }
        let ai = a[i];
        i += 1;
        c[i] = 0.5 * (ai - b);
        let t = (ai * b).sqrt();
        a[i] = 0.5 * (ai + b);
        b = t;
        twon *= 2.0;
    }
    let mut phi = twon * a[i] * u;
    let mut prev;
    loop {
        let t = c[i] * phi.sin() / a[i];
        prev = phi;
        phi = 0.5 * (t.asin() + phi);
        i -= 1;
        if i == 0 {
            break;
        }
    }
    let (sn, cn) = phi.sin_cos();
    let dn = cn / (phi - prev).cos();
    (sn, cn, dn, phi)
}
