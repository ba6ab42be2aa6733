//! Analog low-pass prototypes (cutoff 1 rad/s): `buttap`, `cheb1ap`, `cheb2ap`, `ellipap`,
//! `besselap`. Each returns host data ([`Zpk`]).

use super::special::{ellipj, ellipk, ellipkm1};
use crate::represent::{roots, Zpk};
use cusci_core::error::make;
use cusci_core::{c64, Result};
use std::f64::consts::PI;

/// `InvalidArgument` for `N = 0` or an order whose poles' bytes overflow; `OutOfMemory` for one
/// whose poles, zeros and polynomial (a few `4 · 16 · N` bytes) do not fit the host, checked
/// before anything is allocated (so `N` also fits `i64` below).
fn check_order(op: &str, n: usize) -> Result<()> {
    if n == 0 {
        return Err(make::arg(op, "filter order must be a positive integer"));
    }
    let bytes = n
        .checked_mul(4 * std::mem::size_of::<c64>())
        .ok_or_else(|| make::arg(op, format!("filter order {n} is too large")))?;
    cusci_core::host::check_request(bytes)
}

/// `m = arange(-N+1, N, 2)`.
fn odd_range(n: usize) -> impl Iterator<Item = f64> {
    let n = n as i64;
    (0..n).map(move |i| (-n + 1 + 2 * i) as f64)
}

/// `scipy.signal.buttap(N)`: the Butterworth prototype, poles `-exp(iπm/(2N))`, `m = -N+1, -N+3, …,
/// N-1`, no zeros, gain 1.
///
/// Errors: `InvalidArgument` for `N = 0`.
///
/// ```
/// let zpk = cusci_signal::buttap(2).unwrap();
/// assert!((zpk.p[0].re + 0.5f64.sqrt()).abs() < 1e-15);
/// ```
pub fn buttap(n: usize) -> Result<Zpk> {
    check_order("buttap", n)?;
    let p = odd_range(n)
        .map(|m| -c64::new(0.0, PI * m / (2.0 * n as f64)).exp())
        .collect();
    Ok(Zpk {
        z: vec![],
        p,
        k: 1.0,
    })
}

/// `scipy.signal.cheb1ap(N, rp)`: the Chebyshev type I prototype with `rp` dB of pass-band ripple.
///
/// Errors: `InvalidArgument` for `N = 0` or `rp ≤ 0`.
pub fn cheb1ap(n: usize, rp: f64) -> Result<Zpk> {
    check_order("cheb1ap", n)?;
    if !(rp > 0.0 && rp.is_finite()) {
        return Err(make::arg("cheb1ap", "rp must be positive and finite"));
    }
    let eps = (10f64.powf(0.1 * rp) - 1.0).sqrt();
    let mu = (1.0 / eps).asinh() / n as f64;
    let p: Vec<c64> = odd_range(n)
        .map(|m| {
            let theta = PI * m / (2.0 * n as f64);
            -c64::new(mu, theta).sinh()
        })
        .collect();
    let mut k = p.iter().fold(c64::new(1.0, 0.0), |acc, &x| acc * -x).re;
    if n % 2 == 0 {
        k /= (1.0 + eps * eps).sqrt();
    }
    Ok(Zpk { z: vec![], p, k })
}

/// `scipy.signal.cheb2ap(N, rs)`: the Chebyshev type II prototype, `rs` dB of stop-band
/// attenuation.
///
/// Errors: `InvalidArgument` for `N = 0` or `rs ≤ 0`.
pub fn cheb2ap(n: usize, rs: f64) -> Result<Zpk> {
    check_order("cheb2ap", n)?;
    if !(rs > 0.0 && rs.is_finite()) {
        return Err(make::arg("cheb2ap", "rs must be positive and finite"));
    }
    let nf = n as f64;
    let de = 1.0 / (10f64.powf(0.1 * rs) - 1.0).sqrt();
    let mu = (1.0 / de).asinh() / nf;
    let ni = n as i64;
    let ms: Vec<f64> = if n % 2 == 1 {
        (0..)
            .map(|i| -ni + 1 + 2 * i)
            .take_while(|&m| m < 0)
            .chain((0..).map(|i| 2 + 2 * i).take_while(|&m| m < ni))
            .map(|m| m as f64)
            .collect()
    } else {
        odd_range(n).collect()
    };
    let z: Vec<c64> = ms
        .iter()
        .map(|&m| -(c64::new(0.0, 1.0) / (m * PI / (2.0 * nf)).sin()).conj())
        .collect();
    let p: Vec<c64> = odd_range(n)
        .map(|m| {
            let q = -c64::new(0.0, PI * m / (2.0 * nf)).exp();
            let q = c64::new(mu.sinh() * q.re, mu.cosh() * q.im);
            c64::new(1.0, 0.0) / q
        })
        .collect();
    let pp = p.iter().fold(c64::new(1.0, 0.0), |acc, &x| acc * -x);
    let pz = z.iter().fold(c64::new(1.0, 0.0), |acc, &x| acc * -x);
    let k = (pp / pz).re;
    Ok(Zpk { z, p, k })
}

/// `q = exp(-π K'/K)` series for the degree equation (SciPy's `_ellipdeg`): the elliptic modulus
/// parameter `m` of a filter of order `n` with selectivity parameter `m1`.
fn ellipdeg(n: usize, m1: f64) -> f64 {
    let k1 = ellipk(m1);
    let k1p = ellipkm1(m1);
    let q1 = (-PI * k1p / k1).exp();
    let q = q1.powf(1.0 / n as f64);
    let mut num = 0.0;
    for m in 0..8i32 {
        num += q.powi(m * (m + 1));
    }
    let mut den = 0.0;
    for m in 1..9i32 {
        den += q.powi(m * m);
    }
    let den = 1.0 + 2.0 * den;
    16.0 * q * (num / den).powi(4)
}

/// The inverse Jacobi `sn` for complex argument, through the descending Landen sequence.
fn arc_jac_sn(w: c64, m: f64) -> Result<c64> {
    let comp = |kx: c64| ((c64::new(1.0, 0.0) - kx) * (c64::new(1.0, 0.0) + kx)).sqrt();
    let k = m.sqrt();
    if k > 1.0 {
        return Ok(c64::new(f64::NAN, f64::NAN));
    }
    if k == 1.0 {
        return Ok(w.atanh());
    }
    let mut ks = vec![k];
    let mut niter = 0;
    let mut kk = k;
    while kk != 0.0 {
        let kp = comp(c64::new(kk, 0.0)).re;
        kk = (1.0 - kp) / (1.0 + kp);
        ks.push(kk);
        niter += 1;
        if niter > 10 {
            return Err(cusci_core::Error::NoConvergence {
                op: "ellipap".into(),
                iterations: niter,
                residual: kk,
            });
        }
    }
    let kcap = ks[1..].iter().map(|x| 1.0 + x).product::<f64>() * PI / 2.0;
    let mut wn = w;
    for i in 0..ks.len() - 1 {
        let (kn, knext) = (ks[i], ks[i + 1]);
        wn = 2.0 * wn / ((1.0 + knext) * (c64::new(1.0, 0.0) + comp(kn * wn)));
    }
    let u = 2.0 / PI * wn.asin();
    Ok(kcap * u)
}

/// `scipy.signal.ellipap(N, rp, rs)`: the elliptic (Cauer) prototype with `rp` dB of pass-band
/// ripple and `rs` dB of stop-band attenuation.
///
/// Errors: `InvalidArgument` for `N = 0`, `rp ≤ 0` or `rs ≤ 0`; `NoConvergence` if the Landen
/// sequence does not reach zero.
pub fn ellipap(n: usize, rp: f64, rs: f64) -> Result<Zpk> {
    let op = "ellipap";
    check_order(op, n)?;
    let ok = |v: f64| v > 0.0 && v.is_finite();
    if !(ok(rp) && ok(rs)) {
        return Err(make::arg(op, "rp and rs must be positive and finite"));
    }
    if n == 1 {
        let p = -(1.0 / (10f64.powf(0.1 * rp) - 1.0)).sqrt();
        return Ok(Zpk {
            z: vec![],
            p: vec![c64::new(p, 0.0)],
            k: -p,
        });
    }
    let eps_sq = 10f64.powf(0.1 * rp) - 1.0;
    let eps = eps_sq.sqrt();
    let ck1_sq = eps_sq / (10f64.powf(0.1 * rs) - 1.0);
    if ck1_sq == 0.0 {
        return Err(make::arg(
            op,
            "cannot design a filter with given rp and rs specifications",
        ));
    }
    let val0 = ellipk(ck1_sq);
    let m = ellipdeg(n, ck1_sq);
    let capk = ellipk(m);
    let nf = n as f64;
    let js: Vec<f64> = ((1 - n % 2)..n).step_by(2).map(|j| j as f64).collect();
    let sj: Vec<(f64, f64, f64)> = js
        .iter()
        .map(|&j| {
            let (s, c, d, _) = ellipj(j * capk / nf, m);
            (s, c, d)
        })
        .collect();
    let mut z: Vec<c64> = sj
        .iter()
        .filter(|(s, _, _)| s.abs() > f64::EPSILON)
        .map(|(s, _, _)| c64::new(0.0, 1.0 / (m.sqrt() * s)))
        .collect();
    let zc: Vec<c64> = z.iter().map(|x| x.conj()).collect();
    z.extend(zc);
    let r = arc_jac_sn(c64::new(0.0, 1.0 / eps), ck1_sq)?;
    if r.re.abs() > 1e-14 {
        return Err(make::arg(
            op,
            "the inverse Jacobi sc function has no real solution",
        ));
    }
    let r = r.im;
    let v0 = capk * r / (nf * val0);
    let (sv, cv, dv, _) = ellipj(v0, 1.0 - m);
    let mut p: Vec<c64> = sj
        .iter()
        .map(|&(s, c, d)| -c64::new(c * d * sv * cv, s * dv) / (1.0 - (d * sv) * (d * sv)))
        .collect();
    if n % 2 == 1 {
        let nrm = p.iter().map(|x| x.norm_sqr()).sum::<f64>().sqrt();
        let newp: Vec<c64> = p
            .iter()
            .filter(|x| x.im.abs() > f64::EPSILON * nrm)
            .map(|x| x.conj())
            .collect();
        p.extend(newp);
    } else {
        let pc: Vec<c64> = p.iter().map(|x| x.conj()).collect();
        p.extend(pc);
    }
    let pp = p.iter().fold(c64::new(1.0, 0.0), |acc, &x| acc * -x);
    let pz = z.iter().fold(c64::new(1.0, 0.0), |acc, &x| acc * -x);
    let mut k = (pp / pz).re;
    if n % 2 == 0 {
        k /= (1.0 + eps_sq).sqrt();
    }
    Ok(Zpk { z, p, k })
}

/// Normalisation of [`besselap`] (SciPy's `norm` argument).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BesselNorm {
    /// Phase response reaches -Nπ/4 at the cutoff (as SciPy's default, and as `butter`'s
    /// asymptotes).
    #[default]
    Phase,
    /// Group delay 1/ω at DC.
    Delay,
    /// Gain -3 dB at the cutoff.
    Mag,
}

/// The coefficients of the reverse Bessel polynomial θ_N, highest power first:
/// `a_k = (2N-k)! / (2^(N-k) k! (N-k)!)` for the power `s^k`.
fn reverse_bessel_poly(n: usize) -> Vec<f64> {
    // a_k computed by the recurrence a_{k} = a_{k-1} * 2(N-k+1) / (k (2N-k+1))
    let mut a = vec![0.0; n + 1];
    // a_0 = (2N)! / (2^N N!) = product of odd numbers 1·3·…·(2N-1)
    let mut a0 = 1.0;
    for i in 1..=n {
        a0 *= (2 * i - 1) as f64;
    }
    a[0] = a0;
    for k in 1..=n {
        a[k] = a[k - 1] * (2 * (n - k + 1)) as f64 / (k * (2 * n - k + 1)) as f64;
    }
    a.reverse();
    a
}

/// θ_n(s) and θ_n'(s) by the three-term recurrence θ_{k+1} = (2k+1)·θ_k + s²·θ_{k-1}
/// (θ_0 = 1, θ_1 = s + 1): far better conditioned near the roots than Horner's rule on the
/// expanded coefficients, whose magnitudes span many decades.
fn reverse_bessel_eval(n: usize, s: c64) -> (c64, c64) {
    let one = c64::new(1.0, 0.0);
    let (mut t0, mut d0) = (one, c64::new(0.0, 0.0));
    let (mut t1, mut d1) = (s + 1.0, one);
    if n == 0 {
        return (t0, d0);
    }
    for k in 1..n {
        let f = (2 * k + 1) as f64;
        let t2 = f * t1 + s * s * t0;
        let d2 = f * d1 + 2.0 * s * t0 + s * s * d0;
        (t0, d0, t1, d1) = (t1, d1, t2, d2);
    }
    (t1, d1)
}

/// Newton's method on θ_n from `x`, keeping the iterate of smallest residual.
fn polish(n: usize, x: c64) -> c64 {
    let mut best = x;
    let (mut best_r, _) = reverse_bessel_eval(n, x);
    let mut x = x;
    for _ in 0..30 {
        let (y, dy) = reverse_bessel_eval(n, x);
        if dy.norm() == 0.0 {
            break;
        }
        let step = y / dy;
        x -= step;
        let (ny, _) = reverse_bessel_eval(n, x);
        if ny.norm() < best_r.norm() {
            best = x;
            best_r = ny;
        }
        if step.norm() <= 1e-17 * x.norm() {
            break;
        }
    }
    best
}

/// `scipy.signal.besselap(N, norm)`: the Bessel–Thomson prototype. The poles are the roots of the
/// reverse Bessel polynomial (companion eigenvalues polished by Newton's method), made exactly
/// conjugate-symmetric, then scaled for the normalisation.
///
/// Errors: `InvalidArgument` for `N = 0`.
pub fn besselap(n: usize, norm: BesselNorm) -> Result<Zpk> {
    let op = "besselap";
    check_order(op, n)?;
    let c = reverse_bessel_poly(n);
    let a_last = c[n];
    let mut p: Vec<c64> = roots(&c)?.into_iter().map(|r| polish(n, r)).collect();
    // symmetric pairs: sort by imaginary part and average each with its mirror
    p.sort_by(|a, b| a.im.partial_cmp(&b.im).unwrap_or(std::cmp::Ordering::Equal));
    let q = p.clone();
    for i in 0..n {
        let m = q[n - 1 - i].conj();
        p[i] = (q[i] + m) / 2.0;
    }
    if n % 2 == 1 {
        p[n / 2].im = 0.0;
    }
    let k = match norm {
        BesselNorm::Delay => a_last,
        BesselNorm::Phase => {
            let s = 10f64.powf(-a_last.log10() / n as f64);
            for x in p.iter_mut() {
                *x *= s;
            }
            1.0
        }
        BesselNorm::Mag => {
            let w = mag_norm_factor(&p, a_last);
            for x in p.iter_mut() {
                *x /= w;
            }
            w.powi(-(n as i32)) * a_last
        }
    };
    Ok(Zpk { z: vec![], p, k })
}

/// The frequency where `|k / ∏(iω - p)| = 1/√2`, found as SciPy finds it (`optimize.newton`
/// without a derivative: the secant method from 1.5, stopping when a step is below 1.48e-8), so
/// that the normalisation matches SciPy's to rounding rather than to the secant's tolerance.
fn mag_norm_factor(p: &[c64], k: f64) -> f64 {
    let f = |w: f64| {
        let d = p
            .iter()
            .fold(c64::new(1.0, 0.0), |acc, r| acc * (c64::new(0.0, w) - r));
        (c64::new(k, 0.0) / d).norm() - 1.0 / 2f64.sqrt()
    };
    let tol = 1.48e-8;
    let eps = 1e-4;
    let mut p0 = 1.5;
    let mut p1 = p0 * (1.0 + eps);
    p1 += if p1 >= 0.0 { eps } else { -eps };
    let mut q0 = f(p0);
    let mut q1 = f(p1);
    if q1.abs() < q0.abs() {
        std::mem::swap(&mut p0, &mut p1);
        std::mem::swap(&mut q0, &mut q1);
    }
    let mut p = p1;
    for _ in 0..50 {
        if q1 == q0 {
            if p1 != p0 {
                p = (p1 + p0) / 2.0;
            }
            break;
        }
        p = if q1.abs() > q0.abs() {
            (-q0 / q1 * p1 + p0) / (1.0 - q0 / q1)
        } else {
            (-q1 / q0 * p0 + p1) / (1.0 - q1 / q0)
        };
        if (p - p1).abs() <= tol {
            return p;
        }
        p0 = p1;
        q0 = q1;
        p1 = p;
        q1 = f(p1);
    }
    p
}
