//! The fast Hankel transform (Hamilton's FFTLog), `scipy.fft.fht`, `ifht` and `fhtoffset`.
//!
//! As SciPy: the input (last axis, `n` points, log-spaced with spacing `dln`) is optionally
//! biased by a power law, transformed with [`rfft`], multiplied by the coefficients `u_m` of
//! the Hankel kernel (complex Γ-function ratios, computed on the host in f64), transformed back
//! with [`irfft`] and reversed. The transforms run on the array's device through the crate's
//! FFTs; the coefficient and bias multiplications are the core's element-wise operations.

use crate::args::bad_len;
use crate::{irfft, rfft, FftComplex, FftOptions, FftReal};
use cusci_core::array::layout::norm_axis;
use cusci_core::error::make;
use cusci_core::{Array, RealFloat, Result};
use num_complex::Complex64;
use std::f64::consts::{LN_2, PI};

/// The optional arguments of [`fht`] and [`ifht`]: SciPy's `offset=` and `bias=`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FhtOptions {
    /// `log(k_c·r_c)`, the offset of the output's log-spaced grid (see [`fhtoffset`]). Default 0.
    pub offset: f64,
    /// The exponent `q` of the power-law bias. Default 0 (unbiased).
    pub bias: f64,
}

/// `log Γ(z)` for complex `z` on the principal branch (continuous off the negative real axis,
/// as SciPy's `loggamma`): the recurrence `log Γ(z) = log Γ(z+k) - Σ log(z+j)` (principal logs)
/// up to `Re z ≥ 10`, then Stirling's series.
fn loggamma(z: Complex64) -> Complex64 {
    let mut z = z;
    let mut acc = Complex64::new(0.0, 0.0);
    while z.re < 10.0 {
        acc += z.ln();
        z += 1.0;
    }
    let zi = z.inv();
    let zi2 = zi * zi;
    // Bernoulli terms B_{2k}/(2k(2k-1) z^{2k-1})
    let series = zi
        * (1.0 / 12.0
            + zi2
                * (-1.0 / 360.0
                    + zi2
                        * (1.0 / 1260.0
                            + zi2
                                * (-1.0 / 1680.0
                                    + zi2 * (1.0 / 1188.0 + zi2 * (-691.0 / 360360.0))))));
    (z - 0.5) * z.ln() - z + 0.5 * (2.0 * PI).ln() + series - acc
}

/// Γ(a)/Γ(b) for real a, b (SciPy's `poch(b, a - b)`), with the limits at the poles.
fn gamma_ratio(a: f64, b: f64) -> f64 {
    let pole = |x: f64| x <= 0.0 && x == x.round();
    match (pole(a), pole(b)) {
        (true, true) => {
            // Γ(-m)/Γ(-k) = (-1)^(m-k) k!/m!, through the reflection Γ(x) = π/(sin(πx)Γ(1-x))
            let (m, k) = (-a, -b);
            let sign = if ((m - k) as i64) % 2 == 0 { 1.0 } else { -1.0 };
            sign * (lgamma_real(1.0 + k) - lgamma_real(1.0 + m)).exp()
        }
        (true, false) => f64::INFINITY,
        (false, true) => 0.0,
        (false, false) => {
            let la = loggamma(Complex64::new(a, 0.0));
            let lb = loggamma(Complex64::new(b, 0.0));
            let sa = gamma_sign(a);
            let sb = gamma_sign(b);
            sa * sb * (la.re - lb.re).exp()
        }
    }
}

fn lgamma_real(x: f64) -> f64 {
    loggamma(Complex64::new(x, 0.0)).re
}

/// The sign of Γ(x) for real x not a pole.
fn gamma_sign(x: f64) -> f64 {
    if x > 0.0 || (x.floor() as i64) % 2 == 0 {
        1.0
    } else {
        -1.0
    }
}

/// SciPy's `fhtcoeff(n, dln, mu, offset, bias, inverse)`: the `n/2+1` coefficients.
fn fhtcoeff(n: usize, dln: f64, mu: f64, offset: f64, bias: f64, inverse: bool) -> Vec<Complex64> {
    let (lnkr, q) = (offset, bias);
    let xp = (mu + 1.0 + q) / 2.0;
    let xm = (mu + 1.0 - q) / 2.0;
    let h = n / 2;
    let mut u: Vec<Complex64> = (0..=h)
        .map(|i| {
            let y = if h == 0 {
                0.0
            } else {
                PI * (h as f64) / (n as f64 * dln) * (i as f64 / h as f64)
            };
            let v = loggamma(Complex64::new(xm, y));
            let w = loggamma(Complex64::new(xp, y));
            Complex64::new(
                w.re - v.re + LN_2 * q,
                w.im + v.im + y * 2.0 * (LN_2 - lnkr),
            )
            .exp()
        })
        .collect();
    if n % 2 == 0 {
        u[h].im = 0.0;
    }
    if !u[0].is_finite() {
        u[0] = Complex64::new(2f64.powf(q) * gamma_ratio(xp, xm), 0.0);
    }
    if u[0].re.is_infinite() && !inverse {
        u[0] = Complex64::new(0.0, 0.0);
    } else if u[0] == Complex64::new(0.0, 0.0) && inverse {
        u[0] = Complex64::new(f64::INFINITY, 0.0);
    }
    u
}

/// The optimal offset of the fast Hankel transform, `scipy.fft.fhtoffset(dln, mu, initial,
/// bias)`: the value closest to `initial` that makes the transform's output grid low-ringing.
///
/// # Errors
/// `InvalidArgument` for a non-finite or zero `dln`.
pub fn fhtoffset(dln: f64, mu: f64, initial: f64, bias: f64) -> Result<f64> {
    if !dln.is_finite() || dln == 0.0 {
        return Err(make::arg(
            "fhtoffset",
            format!("dln must be finite and non-zero, got {dln}"),
        ));
    }
    let (lnkr, q) = (initial, bias);
    let xp = (mu + 1.0 + q) / 2.0;
    let xm = (mu + 1.0 - q) / 2.0;
    let y = PI / (2.0 * dln);
    let zp = loggamma(Complex64::new(xp, y));
    let zm = loggamma(Complex64::new(xm, y));
    let arg = (LN_2 - lnkr) / dln + (zp.im + zm.im) / PI;
    // NumPy's round: half to even
    let r = arg.round_ties_even();
    Ok(lnkr + (arg - r) * dln)
}

fn check(op: &str, shape: &[usize], dln: f64, mu: f64, o: &FhtOptions) -> Result<usize> {
    let axis = norm_axis(op, -1, shape.len())?;
    let n = shape[axis];
    if n == 0 {
        return Err(bad_len(op, 0));
    }
    for (name, v) in [
        ("dln", dln),
        ("mu", mu),
        ("offset", o.offset),
        ("bias", o.bias),
    ] {
        if !v.is_finite() {
            return Err(make::arg(op, format!("{name} must be finite, got {v}")));
        }
    }
    if dln == 0.0 {
        return Err(make::arg(op, "dln must be non-zero"));
    }
    Ok(n)
}

/// `exp(sign·bias·((j - (n-1)/2)·dln + extra))` for j < n, as an array of `T` on `x`'s device.
fn bias_vec<T: FftReal>(
    x: &Array<T>,
    n: usize,
    dln: f64,
    bias: f64,
    extra: f64,
    sign: f64,
) -> Result<Array<T>> {
    let jc = (n as f64 - 1.0) / 2.0;
    let v: Vec<T> = (0..n)
        .map(|j| <T as RealFloat>::from_f64((sign * bias * ((j as f64 - jc) * dln + extra)).exp()))
        .collect();
    Array::from_vec(v, &[n], x.device())
}

/// The FFTLog core: `irfft(rfft(a)·c, n)` reversed, with `c` the coefficients (forward: `u`,
/// inverse: `1/conj(u)`).
fn fhtq<T: FftReal>(a: &Array<T>, n: usize, coef: &[Complex64]) -> Result<Array<T>> {
    let c: Vec<T::Complex> = coef
        .iter()
        .map(|z| {
            T::Complex::from_num(num_complex::Complex::new(
                <T as RealFloat>::from_f64(z.re),
                <T as RealFloat>::from_f64(z.im),
            ))
        })
        .collect();
    let ca = Array::from_vec(c, &[coef.len()], a.device())?;
    let spec = rfft(a, &FftOptions::default())?.mul(&ca)?;
    let y = irfft(
        &spec,
        &FftOptions {
            n: Some(n),
            ..Default::default()
        },
    )?;
    y.slice_axis(-1, None, None, -1)?.contiguous()
}

/// The fast Hankel transform, `scipy.fft.fht(a, dln, mu, offset, bias)`, along the last axis.
///
/// For `n` log-spaced points `a_j = a(r_j)`, `r_j = r_c·exp((j - (n-1)/2)·dln)`, computes
/// `A(k_j) = Σ a_i·J_mu(k_j r_i)·...` as SciPy's FFTLog does (Hamilton 2000): `rfft`, the
/// coefficients `u_m = 2^q Γ((mu+1+q)/2 + iπm/(n·dln)) / Γ((mu+1-q)/2 - iπm/(n·dln))·(k_c r_c
/// /2)^(-2πim/(n·dln))`, `irfft`, reversal; with `bias = q ≠ 0` the input is multiplied by
/// `exp(-q(j-j_c)dln)` and the output by `exp(-q((j-j_c)dln + offset))`. A singular transform
/// (infinite `u_0`) uses `u_0 = 0` as SciPy does (SciPy also warns).
///
/// # Errors
/// `InvalidArgument` for a 0-d or empty input, non-finite parameters or `dln = 0`.
///
/// # Numerics
/// The coefficients are computed in f64 on the host (complex log-gamma by Stirling's series,
/// relative error near 1e-15), the transforms in the input's precision on its device.
///
/// ```
/// use cusci_fft::{fht, ifht, FhtOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[4], &Device::cpu()).unwrap();
/// let o = FhtOptions::default();
/// let y = fht(&x, 0.1, 0.5, &o).unwrap();
/// let back = ifht(&y, 0.1, 0.5, &o).unwrap().to_vec().unwrap();
/// assert!((back[2] - 3.0).abs() < 1e-10);
/// ```
pub fn fht<T: FftReal>(a: &Array<T>, dln: f64, mu: f64, opts: &FhtOptions) -> Result<Array<T>> {
    let n = check("fht", a.shape(), dln, mu, opts)?;
    let a = if opts.bias != 0.0 {
        a.mul(&bias_vec(a, n, dln, opts.bias, 0.0, -1.0)?)?
    } else {
        a.clone()
    };
    let u = fhtcoeff(n, dln, mu, opts.offset, opts.bias, false);
    let y = fhtq(&a, n, &u)?;
    if opts.bias != 0.0 {
        y.mul(&bias_vec(&y, n, dln, opts.bias, opts.offset, -1.0)?)
    } else {
        Ok(y)
    }
}

/// The inverse fast Hankel transform, `scipy.fft.ifht(A, dln, mu, offset, bias)`: the inverse of
/// [`fht`] with the same parameters (coefficients `1/conj(u_m)`; a singular inverse, `u_0 = 0`,
/// uses `u_0 = ∞` as SciPy does).
///
/// # Errors
/// As [`fht`].
pub fn ifht<T: FftReal>(a: &Array<T>, dln: f64, mu: f64, opts: &FhtOptions) -> Result<Array<T>> {
    let n = check("ifht", a.shape(), dln, mu, opts)?;
    let a = if opts.bias != 0.0 {
        a.mul(&bias_vec(a, n, dln, opts.bias, opts.offset, 1.0)?)?
    } else {
        a.clone()
    };
    let u = fhtcoeff(n, dln, mu, opts.offset, opts.bias, true);
    let c: Vec<Complex64> = u
        .iter()
        .map(|z| {
            if z.is_finite() {
                1.0 / z.conj()
            } else {
                Complex64::new(0.0, 0.0)
            }
        })
        .collect();
    let y = fhtq(&a, n, &c)?;
    if opts.bias != 0.0 {
        y.mul(&bias_vec(&y, n, dln, opts.bias, 0.0, 1.0)?)
    } else {
        Ok(y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loggamma_values() {
        // Γ(5) = 24, Γ(0.5) = √π, log Γ(1+i) = -0.6509231993018563 - 0.3016403204675331i (mpmath)
        assert!((loggamma(Complex64::new(5.0, 0.0)).re - 24f64.ln()).abs() < 1e-13);
        assert!((loggamma(Complex64::new(0.5, 0.0)).re - PI.sqrt().ln()).abs() < 1e-13);
        let z = loggamma(Complex64::new(1.0, 1.0));
        assert!((z.re + 0.6509231993018563).abs() < 1e-13, "{z}");
        assert!((z.im + 0.3016403204675331).abs() < 1e-13, "{z}");
        // the principal branch far up the imaginary axis and left of it (scipy.special.loggamma)
        let z = loggamma(Complex64::new(-2.5, 30.0));
        let r = Complex64::new(-56.41339094675261, 67.17515669709677);
        assert!((z - r).norm() < 1e-9, "{z} vs {r}");
        assert!((gamma_ratio(-2.0, -1.0) - (-0.5)).abs() < 1e-14);
        assert!((gamma_ratio(3.5, 1.5) - 3.75).abs() < 1e-13);
    }
}
