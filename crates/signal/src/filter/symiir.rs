//! Smoothing IIR filters with mirror-symmetric boundary conditions: [`symiirorder1`] and
//! [`symiirorder2`] (`scipy.signal`'s).
//!
//! Each is a causal pass and an anti-causal pass of a first- or second-order recurrence whose
//! boundary values are SciPy's truncated sums over the mirror-symmetric extension of the input.
//! The composition runs on the input's device without a host round trip: the boundary sums are
//! weighted axis sums (host weights, core broadcast multiply + `sum_axes_keepdims`), turned into
//! the initial states of [`lfilter`] / [`sosfilt`] (the crate's IIR kernels, the GPU's
//! block-parallel scan for long signals) by broadcast arithmetic, and the anti-causal pass runs
//! on a reversed view. The initial states are chosen so that the filters' first outputs are
//! SciPy's boundary values (to rounding), which is how SciPy seeds its own `lfilter`/`sosfilt`
//! calls after prepending them.

use super::iir::{lfilter, sosfilt, FilterOptions};
use crate::procutil::SignalScalar;
use cusci_core::error::make;
use cusci_core::{Array, Device, Element, Float, RealFloat, Result};

/// SciPy's default `precision`: `1e-6` for single precision (f32, Complex32), `1e-11` for
/// double, used when the given value is `<= 0` or `> 1`.
fn effective_precision<T: Element + Float>(precision: f64) -> f64 {
    if precision <= 0.0 || precision > 1.0 {
        if std::mem::size_of::<T::Real>() == 4 {
            1e-6
        } else {
            1e-11
        }
    } else {
        precision
    }
}

fn not_converged(op: &str) -> cusci_core::Error {
    make::arg(
        op,
        "Sum to find symmetric boundary conditions did not converge (the signal is too short \
         for the requested precision)",
    )
}

/// The length of the filtered (last) axis, rejecting 0-d input.
fn last_len<T: Element>(op: &str, x: &Array<T>) -> Result<usize> {
    if x.ndim() == 0 {
        return Err(make::shape(
            op,
            "the input must have at least one dimension (the signals run along the last axis)",
        ));
    }
    Ok(x.shape()[x.ndim() - 1])
}

/// `Σ_j w[j] · x[..., start + j]` over the last axis, keeping it (length 1).
fn weighted_sum<T: SignalScalar>(x: &Array<T>, start: usize, w: Vec<T>) -> Result<Array<T>> {
    let k = w.len();
    let part = x.slice_axis(-1, Some(start as isize), Some((start + k) as isize), 1)?;
    let wa = Array::from_vec(w, &[k], x.device())?;
    part.mul(&wa)?.sum_axes_keepdims(&[-1])
}

/// The `(..., 2)` array `[a, b]` from two `(..., 1)` arrays (broadcast against unit vectors).
fn pair<T: SignalScalar>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    let dev = a.device();
    let e0 = Array::from_vec(vec![T::one(), T::zero()], &[2], dev)?;
    let e1 = Array::from_vec(vec![T::zero(), T::one()], &[2], dev)?;
    a.mul(&e0)?.add(&b.mul(&e1)?)
}

fn host_coefs<T: Element>(v: Vec<T>, shape: &[usize]) -> Result<Array<T>> {
    Array::from_vec(v, shape, &Device::cpu())
}

/// The reversal of the last axis (a view).
fn rev<T: Element>(x: &Array<T>) -> Result<Array<T>> {
    x.slice_axis(-1, None, None, -1)
}

/// A first-order smoothing IIR filter with mirror-symmetric boundary conditions, SciPy's
/// `scipy.signal.symiirorder1(input, c0, z1, precision=-1.0)`: the cascade of the causal
/// `1 / (1 - z1 z^-1)` and the anti-causal `c0 / (1 - z1 z)`, i.e.
///
/// ```text
///            c0
/// H(z) = ---------------------
///        (1 - z1/z) (1 - z1 z)
/// ```
///
/// along the last axis of `input` (every leading index is one signal: SciPy takes 1-D or 2-D
/// input, any rank is accepted here). `c0` and `z1` have the input's type (f32, f64, Complex32,
/// Complex64; SciPy casts them to it). `precision` bounds the truncated boundary sum: SciPy's
/// `y[0] = x[0] + Σ_{k≥0} z1^(k+1) x[k]` stops at the first term with `|z1^(k+1)| ≤
/// precision`; values `<= 0` or `> 1` select SciPy's defaults (1e-6 in single, 1e-11 in double
/// precision). The anti-causal pass starts from `c0 / (1 - z1) · y[N-1]`, as SciPy's.
///
/// Same shape and device as `input`.
///
/// # Errors
/// `InvalidArgument` when `|z1| >= 1`, or when the boundary sum does not reach `precision`
/// within the signal's length (SciPy's "did not converge"; signals of one sample always fail,
/// as in SciPy); `ShapeMismatch` for 0-d input.
///
/// # Numerics
/// The boundary sum is an axis sum (pairwise, not SciPy's running order) and the filters start
/// from states that reproduce SciPy's prepended boundary values to rounding: results agree with
/// SciPy to ~1e-14 relative in double precision.
///
/// ```
/// use cusci_signal::{symiirorder1, Array, Device};
/// let d = Device::cpu();
/// // a constant signal passes with the DC gain c0 / (1 - z1)^2
/// let x = Array::from_vec(vec![1.0f64; 64], &[64], &d).unwrap();
/// let y = symiirorder1(&x, 0.25, 0.5, -1.0).unwrap().to_vec().unwrap();
/// assert!(y.iter().all(|v| (v - 1.0).abs() < 1e-9));
/// ```
pub fn symiirorder1<T: SignalScalar>(
    input: &Array<T>,
    c0: T,
    z1: T,
    precision: f64,
) -> Result<Array<T>> {
    let op = "symiirorder1";
    let n = last_len(op, input)?;
    if z1.abs() >= <T::Real as RealFloat>::from_f64(1.0) {
        return Err(make::arg(op, "|z1| must be less than 1.0"));
    }
    let prec = <T::Real as RealFloat>::from_f64(effective_precision::<T>(precision));
    let prec2 = prec * prec;
    // SciPy's loop: powz1 *= z1; y0 += powz1 * x[k]; stop when |powz1|^2 <= precision^2
    let mut w = Vec::new();
    let mut p = T::one();
    let mut k = 0usize;
    loop {
        p = p * z1;
        w.push(p);
        let e = p.abs();
        k += 1;
        if !(e * e > prec2 && k < n) {
            break;
        }
    }
    if k >= n {
        return Err(not_converged(op));
    }
    let x0 = input.slice_axis(-1, Some(0), Some(1), 1)?;
    let y0 = x0.add(&weighted_sum(input, 0, w)?)?;
    // causal pass y[n] = x[n] + z1 y[n-1] from y[0] = y0: the state y0 - x[0] makes the first
    // output y0
    let one = host_coefs(vec![T::one()], &[1])?;
    let a = host_coefs(vec![T::one(), T::zero() - z1], &[2])?;
    let zi = y0.sub(&x0)?;
    let y1 = lfilter(
        &one,
        &a,
        input,
        &FilterOptions {
            axis: -1,
            zi: Some(&zi),
        },
    )?
    .y;
    // anti-causal pass out[n] = c0 y1[n] + z1 out[n+1] from out[N-1] = c0 / (1 - z1) y1[N-1]
    let last = y1.slice_axis(-1, Some(-1), None, 1)?;
    let g = (T::zero() - c0) / (z1 - T::one());
    let zi2 = last.mul_scalar(g - c0)?;
    let bc = host_coefs(vec![c0], &[1])?;
    let out = lfilter(
        &bc,
        &a,
        &rev(&y1)?,
        &FilterOptions {
            axis: -1,
            zi: Some(&zi2),
        },
    )?
    .y;
    rev(&out)?.contiguous()
}

/// SciPy's `_hc`: the causal two-pole impulse response (polar form) at lag `k`, in double with
/// `cs` already rounded to the signal's type.
fn hc(k: i64, cs: f64, r: f64, omega: f64) -> f64 {
    if k < 0 {
        return 0.0;
    }
    if omega == 0.0 {
        cs * r.powf(k as f64) * (k + 1) as f64
    } else if omega == std::f64::consts::PI {
        cs * r.powf(k as f64) * (k + 1) as f64 * (1 - 2 * (k % 2)) as f64
    } else {
        cs * r.powf(k as f64) * (omega * (k + 1) as f64).sin() / omega.sin()
    }
}

/// SciPy's `_hs`: the symmetric (forward-backward) two-pole response at lag `k`; `round`
/// rounds to the signal's real type where SciPy stores a value in it.
fn hs(k: i64, cs: f64, rsq: f64, omega: f64, round: &dyn Fn(f64) -> f64) -> f64 {
    let cssq = round(cs * cs);
    let k = k.abs();
    let rsupk = rsq.powf(k as f64 / 2.0);
    let kf = k as f64;
    if omega == 0.0 || omega == std::f64::consts::PI {
        let c0 = round((1.0 + rsq) / ((1.0 - rsq) * (1.0 - rsq) * (1.0 - rsq)) * cssq);
        let mut gamma = (1.0 - rsq) / (1.0 + rsq);
        if omega != 0.0 {
            gamma *= (1 - 2 * (k % 2)) as f64;
        }
        return c0 * rsupk * (1.0 + gamma * kf);
    }
    let c0 = round(
        cssq * (1.0 + rsq) / (1.0 - rsq) / (1.0 - 2.0 * rsq * (2.0 * omega).cos() + rsq * rsq),
    );
    let gamma = (1.0 - rsq) / (1.0 + rsq) / omega.tan();
    c0 * rsupk * ((omega * kf).cos() + gamma * (omega * kf).sin())
}

/// SciPy's truncated sum loop: terms `diff(k)` for k = 0, 1, ... while `diff^2 > tol` and
/// `k < n`; `None` when it runs into the signal's end.
fn terms<R: RealFloat>(n: usize, tol: R, diff: impl Fn(i64) -> R) -> Option<Vec<R>> {
    let mut w = Vec::new();
    let mut k = 0usize;
    loop {
        let d = diff(k as i64);
        w.push(d);
        k += 1;
        if !(d * d > tol && k < n) {
            break;
        }
    }
    (k < n).then_some(w)
}

/// A second-order smoothing IIR filter with mirror-symmetric boundary conditions, SciPy's
/// `scipy.signal.symiirorder2(input, r, omega, precision=-1.0)`: the cascade of
/// `cs / (1 - a2 z^-1 - a3 z^-2)` (causal) and `cs / (1 - a2 z - a3 z^2)` (anti-causal) with
/// `a2 = 2 r cos(omega)`, `a3 = -r^2`, `cs = 1 - 2 r cos(omega) + r^2`, along the last axis of
/// `input` (any rank; SciPy's 1-D or 2-D). Real input only (f32, f64), as SciPy.
///
/// The first two causal outputs and the last two anti-causal outputs are SciPy's truncated
/// mirror-symmetric sums (`symiirorder2_ic_fwd`/`_bwd`, including their stopping rules: the
/// causal sums stop when a term's square is at most `precision^2`, the anti-causal ones when it
/// is at most `precision`, as SciPy's C code does). `precision <= 0` or `> 1` selects SciPy's
/// defaults (1e-6 for f32, 1e-11 for f64).
///
/// # Errors
/// `InvalidArgument` when `r >= 1`, or when a boundary sum does not converge within the
/// signal's length; `UnsupportedDType` for complex input (SciPy raises a TypeError);
/// `ShapeMismatch` for 0-d input.
///
/// ```
/// use cusci_signal::{symiirorder2, Array, Device};
/// let d = Device::cpu();
/// let x = Array::from_vec(vec![1.0f64; 200], &[200], &d).unwrap();
/// // the DC gain is cs^2 / (1 - a2 - a3)^2 = 1: a constant passes, up to the truncation of
/// // SciPy's boundary sums (whose backward sums stop at term^2 <= precision: ~1e-7 here)
/// let y = symiirorder2(&x, 0.5, 0.3, -1.0).unwrap().to_vec().unwrap();
/// assert!(y.iter().all(|v| (v - 1.0).abs() < 1e-6));
/// ```
pub fn symiirorder2<T: SignalScalar>(
    input: &Array<T>,
    r: f64,
    omega: f64,
    precision: f64,
) -> Result<Array<T>> {
    let op = "symiirorder2";
    if T::DTYPE.is_complex() {
        return Err(make::dtype(op, T::DTYPE));
    }
    let n = last_len(op, input)?;
    if r >= 1.0 || r.is_nan() {
        return Err(make::arg(op, "r must be less than 1.0"));
    }
    let round = |v: f64| RealFloat::to_f64(<T::Real as RealFloat>::from_f64(v));
    let t = |v: f64| T::from_real(<T::Real as RealFloat>::from_f64(v));
    let rsq = r * r;
    let a2 = 2.0 * r * omega.cos();
    let a3 = -rsq;
    // the C code's `T cs` and the Python code's double cs (rounded into the sos array)
    let cs_c = round(1.0 - 2.0 * r * omega.cos() + r * r);
    let cs_py = 1.0 - 2.0 * r * omega.cos() + rsq;
    let prec = <T::Real as RealFloat>::from_f64(effective_precision::<T>(precision));
    let prec2 = prec * prec;
    let rr = |v: f64| <T::Real as RealFloat>::from_f64(v);
    // forward boundary values y[0], y[1] (SciPy's ic_fwd)
    let w0 = terms(n, prec2, |k| rr(hc(k + 1, cs_c, r, omega))).ok_or_else(|| not_converged(op))?;
    let w1 = terms(n, prec2, |k| rr(hc(k + 2, cs_c, r, omega))).ok_or_else(|| not_converged(op))?;
    // backward boundary values out[N-1], out[N-2] (SciPy's ic_bwd): precision not squared
    let sum2 = |a: f64, b: f64| rr(a) + rr(b);
    let v0 = terms(n, prec, |k| {
        sum2(
            hs(k, cs_c, rsq, omega, &round),
            hs(k + 1, cs_c, rsq, omega, &round),
        )
    })
    .ok_or_else(|| not_converged(op))?;
    let v1 = terms(n, prec, |k| {
        sum2(
            hs(k - 1, cs_c, rsq, omega, &round),
            hs(k + 2, cs_c, rsq, omega, &round),
        )
    })
    .ok_or_else(|| not_converged(op))?;
    let tw = |w: Vec<T::Real>| -> Vec<T> { w.into_iter().map(T::from_real).collect() };
    let x0 = input.slice_axis(-1, Some(0), Some(1), 1)?;
    let x1 = input.slice_axis(-1, Some(1), Some(2), 1)?;
    let hc0 = t(hc(0, cs_c, r, omega));
    let hc1 = t(hc(1, cs_c, r, omega));
    let ic0 = x0.mul_scalar(hc0)?.add(&weighted_sum(input, 0, tw(w0))?)?;
    let ic1 = x1
        .mul_scalar(hc0)?
        .add(&x0.mul_scalar(hc1)?)?
        .add(&weighted_sum(input, 0, tw(w1))?)?;
    // the anti-causal sums read x[N-1-k]: reversed weights over the last K samples
    let mut v0 = tw(v0);
    v0.reverse();
    let mut v1 = tw(v1);
    v1.reverse();
    let icb0 = weighted_sum(input, n - v0.len(), v0)?;
    let icb1 = weighted_sum(input, n - v1.len(), v1)?;
    // the section [cs, 0, 0, 1, -a2, -a3] in the signal's type
    let (cs, na2, na3) = (t(cs_py), t(-a2), t(-a3));
    let a2t = T::zero() - na2;
    let sos = host_coefs(vec![cs, T::zero(), T::zero(), T::one(), na2, na3], &[1, 6])?;
    // states that make a pass's first two outputs (p0, p1) given its first two inputs (u0, u1):
    // z = [p0 - cs u0, p1 - cs u1 - a2 p0], with a leading section axis
    let states = |p0: &Array<T>, p1: &Array<T>, u0: &Array<T>, u1: &Array<T>| -> Result<Array<T>> {
        let z0 = p0.sub(&u0.mul_scalar(cs)?)?;
        let z1 = p1.sub(&u1.mul_scalar(cs)?)?.sub(&p0.mul_scalar(a2t)?)?;
        let z = pair(&z0, &z1)?;
        let mut shape: Vec<isize> = vec![1];
        shape.extend(z.shape().iter().map(|&d| d as isize));
        z.reshape(&shape)
    };
    let zf = states(&ic0, &ic1, &x0, &x1)?;
    let yf = sosfilt(
        &sos,
        input,
        &FilterOptions {
            axis: -1,
            zi: Some(&zf),
        },
    )?
    .y;
    let u = rev(&yf)?;
    let u0 = u.slice_axis(-1, Some(0), Some(1), 1)?;
    let u1 = u.slice_axis(-1, Some(1), Some(2), 1)?;
    let zb = states(&icb0, &icb1, &u0, &u1)?;
    let out = sosfilt(
        &sos,
        &u,
        &FilterOptions {
            axis: -1,
            zi: Some(&zb),
        },
    )?
    .y;
    rev(&out)?.contiguous()
}
