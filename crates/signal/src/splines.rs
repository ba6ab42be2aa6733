//! B-spline filtering (SciPy's `scipy.signal` spline functions): [`cspline1d`], [`qspline1d`],
//! [`cspline2d`], [`qspline2d`], [`spline_filter`], [`cspline1d_eval`], [`qspline1d_eval`],
//! [`gauss_spline`].
//!
//! The coefficient functions are symmetric IIR filters with SciPy's mirror-symmetric boundary
//! start: a causal pass started from a closed-form sum over the first samples, then an
//! anti-causal pass started from a closed form at the end. Both passes are the crate's
//! [`lfilter`] (a block-parallel scan on the GPU for long signals, one thread per line for
//! batches of short ones) started from initial states built on the device from those boundary
//! sums (core reductions and broadcast products): nothing is read back to the host and both
//! devices run the same composition. The evaluation functions and the 3-tap mirror FIR of
//! [`spline_filter`] are NVRTC kernels (`splines.cu`) with a rayon reference.

use crate::procutil::{
    each_dtype, host_elems, split_axis, typed_kernel, typed_source, DEF_ACC, DEF_R, SIGNAL_DTYPES,
};
use crate::{lfilter, FilterOptions, SignalScalar};
use cusci_core::array::check_same_device;
use cusci_core::error::make;
use cusci_core::{
    c64, Array, Backend, CudaDevice, DType, Device, Element, Error, Function, KernelModule,
    LaunchConfig, RealFloat, Result,
};
use rayon::prelude::*;

const SRC: &str = include_str!("splines.cu");

/// The spline kernels (`splines.cu`), one module per element type (`R` its real type,
/// accumulating in `double` or `cplx64`).
pub(crate) static SPLINES: KernelModule = KernelModule {
    name: "signal_splines",
    source: |s| typed_source("signal_splines", s, &[DEF_R, DEF_ACC], SRC),
    options: &[],
    samples: || each_dtype(&SIGNAL_DTYPES),
};

fn kernel<T: Element>(d: &CudaDevice, name: &str) -> Result<Function> {
    typed_kernel(&SPLINES, d, T::DTYPE, name)
}

/// `v` as a `T` (real part `v`).
fn t<T: SignalScalar>(v: f64) -> T {
    T::from_c64(c64::new(v, 0.0))
}

/// Host values as an array of `ndim` dimensions that is `1` everywhere except `len` along
/// `axis` (for broadcasting along that axis), on `dev`.
fn along<T: SignalScalar>(v: &[f64], ndim: usize, axis: usize, dev: &Device) -> Result<Array<T>> {
    let mut shape = vec![1usize; ndim];
    shape[axis] = v.len();
    Array::from_vec(v.iter().map(|&w| t::<T>(w)).collect(), &shape, dev)
}

/// `sum_k w[k] * x[k]` along `axis` (the first `w.len()` samples; from the end when
/// `from_end`), keeping the axis (length 1).
fn weighted_sum<T: SignalScalar>(
    x: &Array<T>,
    axis: usize,
    w: &[f64],
    from_end: bool,
) -> Result<Array<T>> {
    let ax = axis as isize;
    let j = w.len() as isize;
    let part = if from_end {
        x.slice_axis(ax, Some(-1), None, -1)?
            .slice_axis(ax, Some(0), Some(j), 1)?
    } else {
        x.slice_axis(ax, Some(0), Some(j), 1)?
    };
    let wa = along::<T>(w, x.ndim(), axis, x.device())?;
    part.mul(&wa)?.sum_axes_keepdims(&[ax])
}

/// One element (index `i`) of `x` along `axis`, the axis kept (length 1).
fn at<T: SignalScalar>(x: &Array<T>, axis: usize, i: usize) -> Result<Array<T>> {
    x.slice_axis(axis as isize, Some(i as isize), Some(i as isize + 1), 1)
}

fn host_coef<T: SignalScalar>(v: &[f64]) -> Result<Array<T>> {
    Array::from_vec(
        v.iter().map(|&w| t::<T>(w)).collect(),
        &[v.len()],
        &Device::cpu(),
    )
}

/// `x` reversed along `axis` (a view).
fn rev<T: SignalScalar>(x: &Array<T>, axis: usize) -> Result<Array<T>> {
    x.slice_axis(axis as isize, None, None, -1)
}

/// The mirror-symmetric first-order smoother `gain·(−z)/((1 − z/q)(1 − z q))` (q the delay)
/// along `axis`: SciPy's `symiirorder1(x, c0 = −gain·z, z)` with the forward start
/// `x[0] + z·Σ_{k<nterms} z^k x[k]`.
fn sym_first<T: SignalScalar>(
    x: &Array<T>,
    axis: usize,
    z: f64,
    gain: f64,
    nterms: usize,
) -> Result<Array<T>> {
    let k = x.shape()[axis];
    let ax = axis as isize;
    let mut p = 1.0;
    let w: Vec<f64> = (0..nterms)
        .map(|_| {
            let v = p;
            p *= z;
            v
        })
        .collect();
    let zi = weighted_sum(x, axis, &w, false)?.mul_scalar(t(z))?;
    let a = host_coef::<T>(&[1.0, -z])?;
    let yp = lfilter(
        &host_coef::<T>(&[1.0])?,
        &a,
        x,
        &FilterOptions {
            axis: ax,
            zi: Some(&zi),
        },
    )?
    .y;
    // anti-causal pass over the reversed causal output, started so that its first output is
    // SciPy's closed form gain·z/(z − 1)·yp[K−1]
    let s = at(&yp, axis, k - 1)?.mul_scalar(t(gain * z * z / (z - 1.0)))?;
    let out = lfilter(
        &host_coef::<T>(&[-gain * z])?,
        &a,
        &rev(&yp, axis)?,
        &FilterOptions {
            axis: ax,
            zi: Some(&s),
        },
    )?
    .y;
    rev(&out, axis)?.contiguous()
}

/// The second-order smoother's parameters: pole radius `rho` and angle `omega`.
#[derive(Clone, Copy)]
struct Pole2 {
    rho: f64,
    omega: f64,
}

impl Pole2 {
    fn cs(&self) -> f64 {
        1.0 - 2.0 * self.rho * self.omega.cos() + self.rho * self.rho
    }
    /// SciPy's `_hc(k)`: the causal impulse response.
    fn hc(&self, k: i64) -> f64 {
        if k < 0 {
            return 0.0;
        }
        let (r, w) = (self.rho, self.omega);
        self.cs() / w.sin() * r.powi(k as i32) * (w * (k as f64 + 1.0)).sin()
    }
    /// SciPy's `_hs(k)`: the symmetric (two-pass) impulse response.
    fn hs(&self, k: i64) -> f64 {
        let (r, w) = (self.rho, self.omega);
        let cs = self.cs();
        let rsq = r * r;
        let c0 =
            cs * cs * (1.0 + rsq) / (1.0 - rsq) / (1.0 - 2.0 * rsq * (2.0 * w).cos() + rsq * rsq);
        let gamma = (1.0 - rsq) / (1.0 + rsq) / w.tan();
        let ak = k.unsigned_abs() as f64;
        c0 * r.powf(ak) * ((w * ak).cos() + gamma * (w * ak).sin())
    }
}

/// How many terms a boundary sum takes: all `n` (the 1-D functions), or until a term's square
/// is at most `thr` (SciPy's `symiirorder*_ic`: `NoConvergence` when that needs `n` terms).
#[derive(Clone, Copy)]
enum Terms {
    All,
    Until(f64),
}

/// The number of terms of the sum whose k-th weight is `f(k)`, over a signal of `n` samples.
fn count_terms(op: &str, f: impl Fn(i64) -> f64, n: usize, terms: Terms) -> Result<usize> {
    match terms {
        Terms::All => Ok(n),
        Terms::Until(thr) => {
            let mut k = 0usize;
            let mut d;
            loop {
                d = f(k as i64);
                k += 1;
                if !(d * d > thr && k < n) {
                    break;
                }
            }
            if k >= n {
                return Err(Error::NoConvergence {
                    op: op.into(),
                    iterations: n,
                    residual: d.abs(),
                });
            }
            Ok(k)
        }
    }
}

/// The mirror-symmetric second-order smoother `cs² / ((1 − a2/q − a3/q²)(1 − a2 q − a3 q²))`
/// (`a2 = 2ρ cos ω`, `a3 = −ρ²`) along `axis`: SciPy's `symiirorder2` (`fwd`/`bwd`: the term
/// rules of the forward and backward boundary sums) and `_cubic_smooth_coeff` (all terms,
/// `swapped`: its second forward start pairs hc(0)·x0 + hc(1)·x1 where the C code has
/// hc(0)·x1 + hc(1)·x0).
fn sym_second<T: SignalScalar>(
    op: &str,
    x: &Array<T>,
    axis: usize,
    p: Pole2,
    fwd: Terms,
    bwd: Terms,
    swapped: bool,
) -> Result<Array<T>> {
    let n = x.shape()[axis];
    if n < 2 {
        return Err(make::arg(
            op,
            format!("the smoothing spline needs at least 2 samples along the axis, got {n}"),
        ));
    }
    let ax = axis as isize;
    let cs = p.cs();
    let a2 = 2.0 * p.rho * p.omega.cos();
    let a3 = -p.rho * p.rho;
    // forward starts: y0 = hc(0) x0 + Σ_{k<j} hc(k+1) x[k]; y1 = hc(0) x1 + hc(1) x0 + Σ hc(k+2) x[k]
    let j0 = count_terms(op, |k| p.hc(k + 1), n, fwd)?;
    let mut w0: Vec<f64> = (0..j0).map(|k| p.hc(k as i64 + 1)).collect();
    w0[0] += p.hc(0);
    let j1 = count_terms(op, |k| p.hc(k + 2), n, fwd)?;
    let mut w1: Vec<f64> = (0..j1.max(2))
        .map(|k| if k < j1 { p.hc(k as i64 + 2) } else { 0.0 })
        .collect();
    if swapped {
        // SciPy's 1-D `_cubic_smooth_coeff` pairs hc(0) with x0 and hc(1) with x1
        w1[0] += p.hc(0);
        w1[1] += p.hc(1);
    } else {
        w1[0] += p.hc(1);
        w1[1] += p.hc(0);
    }
    let y0 = weighted_sum(x, axis, &w0, false)?;
    let y1 = weighted_sum(x, axis, &w1, false)?;
    let e0 = along::<T>(&[1.0, 0.0], x.ndim(), axis, x.device())?;
    let e1 = along::<T>(&[0.0, 1.0], x.ndim(), axis, x.device())?;
    // states that make the filter's first two outputs y0 and y1
    let u = y0.sub(&at(x, axis, 0)?.mul_scalar(t(cs))?)?;
    let v = y1
        .sub(&at(x, axis, 1)?.mul_scalar(t(cs))?)?
        .sub(&y0.mul_scalar(t(a2))?)?;
    let zi = u.mul(&e0)?.add(&v.mul(&e1)?)?;
    let b = host_coef::<T>(&[cs])?;
    let a = host_coef::<T>(&[1.0, -a2, -a3])?;
    let yp = lfilter(
        &b,
        &a,
        x,
        &FilterOptions {
            axis: ax,
            zi: Some(&zi),
        },
    )?
    .y;
    // backward starts (from the input): out[n-1] = Σ (hs(k) + hs(k+1)) x[n-1-k],
    // out[n-2] = Σ (hs(k-1) + hs(k+2)) x[n-1-k]; SciPy's term rule compares the squared term
    // with the precision itself here (not its square)
    let f0 = |k: i64| p.hs(k) + p.hs(k + 1);
    let f1 = |k: i64| p.hs(k - 1) + p.hs(k + 2);
    let jb0 = count_terms(op, f0, n, bwd)?;
    let jb1 = count_terms(op, f1, n, bwd)?;
    let wb0: Vec<f64> = (0..jb0).map(|k| f0(k as i64)).collect();
    let wb1: Vec<f64> = (0..jb1).map(|k| f1(k as i64)).collect();
    let b0 = weighted_sum(x, axis, &wb0, true)?;
    let b1 = weighted_sum(x, axis, &wb1, true)?;
    let u = b0.sub(&at(&yp, axis, n - 1)?.mul_scalar(t(cs))?)?;
    let v = b1
        .sub(&at(&yp, axis, n - 2)?.mul_scalar(t(cs))?)?
        .sub(&b0.mul_scalar(t(a2))?)?;
    let zi = u.mul(&e0)?.add(&v.mul(&e1)?)?;
    let out = lfilter(
        &b,
        &a,
        &rev(&yp, axis)?,
        &FilterOptions {
            axis: ax,
            zi: Some(&zi),
        },
    )?
    .y;
    rev(&out, axis)?.contiguous()
}

fn check_1d<T: Element>(op: &str, x: &Array<T>) -> Result<()> {
    if x.ndim() != 1 {
        return Err(make::shape(
            op,
            format!(
                "the signal must be one-dimensional, got shape {:?}",
                x.shape()
            ),
        ));
    }
    if x.size() == 0 {
        return Err(make::arg(op, "the signal is empty"));
    }
    Ok(())
}

/// SciPy's `_coeff_smooth(lamb)`: the smoothing cubic spline's pole (ρ, ω).
fn coeff_smooth(lam: f64) -> Pole2 {
    let xi = 1.0 - 96.0 * lam + 24.0 * lam * (3.0 + 144.0 * lam).sqrt();
    let omega = (144.0 * lam - 1.0).sqrt().atan2(xi.sqrt());
    let rho = (24.0 * lam - 1.0 - xi.sqrt()) / (24.0 * lam);
    let rho = rho * ((48.0 * lam + 24.0 * lam * (3.0 + 144.0 * lam).sqrt()) / xi).sqrt();
    Pole2 { rho, omega }
}

/// SciPy's `compute_root_from_lambda(lamb)` (the same pole as [`coeff_smooth`], as cspline2d
/// computes it).
fn root_from_lambda(lam: f64) -> Pole2 {
    let tmp = (3.0 + 144.0 * lam).sqrt();
    let xi = 1.0 - 96.0 * lam + 24.0 * lam * tmp;
    let omega = ((144.0 * lam - 1.0) / xi).sqrt().atan();
    let tmp2 = xi.sqrt();
    let rho =
        (24.0 * lam - 1.0 - tmp2) / (24.0 * lam) * (48.0 * lam + 24.0 * lam * tmp).sqrt() / tmp2;
    Pole2 { rho, omega }
}

fn cubic_z() -> f64 {
    -2.0 + 3f64.sqrt()
}
fn quad_z() -> f64 {
    -3.0 + 2.0 * 2f64.sqrt()
}

/// The first-order spline coefficients of a 1-D signal (cubic or quadratic).
fn spline1d_first<T: SignalScalar>(x: &Array<T>, z: f64, gain: f64) -> Result<Array<T>> {
    let k = x.size();
    if k == 1 {
        // SciPy's one-sample case: z/(z−1)·(x0 + z·x0), without the spline gain
        return x.mul_scalar(t(z / (z - 1.0) * (1.0 + z)));
    }
    sym_first(x, 0, z, gain, k)
}

/// Cubic B-spline coefficients of a 1-D signal with mirror-symmetric boundaries, SciPy's
/// `scipy.signal.cspline1d(signal, lamb)`; `lamb` (SciPy's default 0.0) > 1/144 gives the
/// smoothing spline.
///
/// Runs on `signal`'s device, in its element type (f32, f64, c32, c64; SciPy computes f32
/// input in f64). Every boundary sum takes all samples, as SciPy's. A one-sample signal gives
/// SciPy's value `z/(z−1)·(1+z)·x0` (`z = √3 − 2`, no factor 6: SciPy's special case).
///
/// # Errors
/// `ShapeMismatch` unless `signal` is 1-D; `InvalidArgument` for an empty signal, or `lamb`
/// other than 0 and not above 1/144 (SciPy fails in `math.sqrt`), or `lamb != 0` with fewer
/// than 3 samples (SciPy fails there too).
///
/// ```
/// use cusci_signal::{cspline1d, Array, Device};
/// let x = Array::from_vec(vec![1.0f64; 40], &[40], &Device::cpu()).unwrap();
/// let c = cspline1d(&x, 0.0).unwrap().to_vec().unwrap();
/// assert!(c.iter().all(|v| (v - 1.0).abs() < 1e-12));
/// ```
pub fn cspline1d<T: SignalScalar>(signal: &Array<T>, lamb: f64) -> Result<Array<T>> {
    let op = "cspline1d";
    check_1d(op, signal)?;
    if lamb != 0.0 {
        if lamb.is_nan() || 144.0 * lamb <= 1.0 || !lamb.is_finite() {
            return Err(make::arg(
                op,
                format!("lamb must be 0 or above 1/144 (a smoothing spline), got {lamb}"),
            ));
        }
        if signal.size() < 3 {
            return Err(make::arg(
                op,
                format!(
                    "the smoothing spline needs at least 3 samples, got {}",
                    signal.size()
                ),
            ));
        }
        return sym_second(
            op,
            signal,
            0,
            coeff_smooth(lamb),
            Terms::All,
            Terms::All,
            true,
        );
    }
    spline1d_first(signal, cubic_z(), 6.0)
}

/// Quadratic B-spline coefficients of a 1-D signal with mirror-symmetric boundaries, SciPy's
/// `scipy.signal.qspline1d(signal, lamb=0.0)` (SciPy supports no smoothing here either).
///
/// As [`cspline1d`] with the pole `z = 2√2 − 3` and gain 8 (one sample: `z/(z−1)·(1+z)·x0`).
///
/// # Errors
/// `ShapeMismatch` unless `signal` is 1-D; `InvalidArgument` for an empty signal or
/// `lamb != 0`.
///
/// ```
/// use cusci_signal::{qspline1d, Array, Device};
/// let x = Array::from_vec(vec![2.0f32; 24], &[24], &Device::cpu()).unwrap();
/// let c = qspline1d(&x, 0.0).unwrap().to_vec().unwrap();
/// assert!(c.iter().all(|v| (v - 2.0).abs() < 1e-5));
/// ```
pub fn qspline1d<T: SignalScalar>(signal: &Array<T>, lamb: f64) -> Result<Array<T>> {
    let op = "qspline1d";
    check_1d(op, signal)?;
    if lamb != 0.0 {
        return Err(make::arg(
            op,
            "smoothing quadratic splines are not supported (lamb must be 0)",
        ));
    }
    spline1d_first(signal, quad_z(), 8.0)
}

/// Options of [`cspline2d`] and [`qspline2d`]: SciPy's `lamb` (default 0.0) and `precision`
/// (default `-1.0`: 1e-3 for f32/c32, 1e-6 for f64/c64; any value outside `[0, 1)` means the
/// default).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spline2dOptions {
    /// Smoothing: for [`cspline2d`], values above 1/144 give the smoothing spline; for
    /// [`qspline2d`] it must be ≤ 0 (and has no effect).
    pub lamb: f64,
    /// The precision of the mirror-symmetric boundary sums (they stop at the first term whose
    /// size is at most this; the backward sums of the smoothing spline at its square root, as
    /// SciPy's C code).
    pub precision: f64,
}

impl Default for Spline2dOptions {
    fn default() -> Self {
        Spline2dOptions {
            lamb: 0.0,
            precision: -1.0,
        }
    }
}

fn precision_for<T: Element>(p: f64) -> f64 {
    if (0.0..1.0).contains(&p) {
        p
    } else if matches!(T::DTYPE, DType::F32 | DType::C32) {
        1e-3
    } else {
        1e-6
    }
}

/// The first-order symmetric smoother along the last axis, then along axis 0 (SciPy's
/// `symiirorder_nd(symiirorder1, ...)` twice).
fn sym_first_2d<T: SignalScalar>(
    op: &str,
    x: &Array<T>,
    z: f64,
    gain: f64,
    prec: f64,
) -> Result<Array<T>> {
    let mut y = x.clone();
    for axis in [x.ndim() - 1, 0] {
        let n = y.shape()[axis];
        let j = count_terms(op, |k| z.powi(k as i32 + 1), n, Terms::Until(prec * prec))?;
        y = sym_first(&y, axis, z, gain, j)?;
    }
    Ok(y)
}

fn check_nd<T: Element>(op: &str, x: &Array<T>) -> Result<()> {
    if x.ndim() == 0 {
        return Err(make::shape(
            op,
            "the input must have at least one dimension",
        ));
    }
    if x.size() == 0 {
        return Err(make::arg(
            op,
            format!("the input is empty (shape {:?})", x.shape()),
        ));
    }
    Ok(())
}

fn cspline2d_prec<T: SignalScalar>(
    op: &str,
    x: &Array<T>,
    lamb: f64,
    prec: f64,
) -> Result<Array<T>> {
    check_nd(op, x)?;
    if lamb.is_nan() {
        return Err(make::arg(op, "lamb is NaN"));
    }
    if lamb <= 1.0 / 144.0 {
        return sym_first_2d(op, x, cubic_z(), 6.0, prec);
    }
    let p = root_from_lambda(lamb);
    if p.rho.is_nan() || p.rho >= 1.0 {
        return Err(make::arg(
            op,
            format!("lamb {lamb} gives a pole radius {} (must be < 1)", p.rho),
        ));
    }
    let mut y = x.clone();
    for axis in [x.ndim() - 1, 0] {
        y = sym_second(
            op,
            &y,
            axis,
            p,
            Terms::Until(prec * prec),
            Terms::Until(prec),
            false,
        )?;
    }
    Ok(y)
}

/// Cubic B-spline coefficients of an image with mirror-symmetric boundaries, SciPy's
/// `scipy.signal.cspline2d(signal, lamb, precision)`: the 1-D filter along the last axis, then
/// along axis 0 (as SciPy, for any number of dimensions). `lamb > 1/144` gives the smoothing
/// spline (SciPy's `symiirorder2`).
///
/// Runs on `signal`'s device in its element type. The boundary sums stop at SciPy's term, so
/// results match SciPy's to rounding.
///
/// # Errors
/// `ShapeMismatch` for a 0-d array; `InvalidArgument` for an empty array or NaN `lamb`;
/// `NoConvergence` when an axis is too short for the boundary sums to reach `precision`
/// (SciPy's "did not converge": e.g. fewer than 12 samples in f64 without smoothing).
///
/// ```
/// use cusci_signal::{cspline2d, Spline2dOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f64; 16 * 16], &[16, 16], &Device::cpu()).unwrap();
/// let c = cspline2d(&x, &Spline2dOptions::default()).unwrap().to_vec().unwrap();
/// assert!(c.iter().all(|v| (v - 1.0).abs() < 1e-5));
/// ```
pub fn cspline2d<T: SignalScalar>(signal: &Array<T>, opts: &Spline2dOptions) -> Result<Array<T>> {
    let prec = precision_for::<T>(opts.precision);
    cspline2d_prec("cspline2d", signal, opts.lamb, prec)
}

/// Quadratic B-spline coefficients of an image with mirror-symmetric boundaries, SciPy's
/// `scipy.signal.qspline2d(signal, lamb, precision)` (along the last axis, then axis 0).
///
/// # Errors
/// As [`cspline2d`]; `InvalidArgument` for `lamb > 0` (SciPy: "lambda must be negative or
/// zero").
///
/// ```
/// use cusci_signal::{qspline2d, Spline2dOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f64; 12 * 12], &[12, 12], &Device::cpu()).unwrap();
/// let c = qspline2d(&x, &Spline2dOptions::default()).unwrap().to_vec().unwrap();
/// assert!(c.iter().all(|v| (v - 1.0).abs() < 1e-5));
/// ```
pub fn qspline2d<T: SignalScalar>(signal: &Array<T>, opts: &Spline2dOptions) -> Result<Array<T>> {
    let op = "qspline2d";
    check_nd(op, signal)?;
    if opts.lamb > 0.0 || opts.lamb.is_nan() {
        return Err(make::arg(
            op,
            format!("lambda must be negative or zero, got {}", opts.lamb),
        ));
    }
    let prec = precision_for::<T>(opts.precision);
    sym_first_2d(op, signal, quad_z(), 8.0, prec)
}

/// Smoothing-spline filtering of an image, SciPy's `scipy.signal.spline_filter(Iin, lmbda)`
/// (SciPy's default `lmbda` is 5.0): [`cspline2d`] coefficients, then the mirror-symmetric
/// 3-tap FIR `[1, 4, 1]/6` along both axes (SciPy's `sepfir2d`).
///
/// As SciPy, the taps are the f32 values of 1/6 and 4/6, and c64 input is filtered with the
/// c32 precision (1e-3) because SciPy casts it to complex64; the arithmetic here stays in c64.
///
/// # Errors
/// `ShapeMismatch` unless `iin` is 2-D; otherwise as [`cspline2d`].
///
/// ```
/// use cusci_signal::{spline_filter, Array, Device};
/// let x = Array::from_vec(vec![1.0f32; 24 * 24], &[24, 24], &Device::cpu()).unwrap();
/// let y = spline_filter(&x, 5.0).unwrap().to_vec().unwrap();
/// assert!(y.len() == 24 * 24 && y.iter().all(|v| v.is_finite()));
/// ```
pub fn spline_filter<T: SignalScalar>(iin: &Array<T>, lmbda: f64) -> Result<Array<T>> {
    let op = "spline_filter";
    if iin.ndim() != 2 {
        return Err(make::shape(
            op,
            format!("the input must be 2-D, got shape {:?}", iin.shape()),
        ));
    }
    let prec = if T::DTYPE == DType::C64 {
        1e-3
    } else {
        precision_for::<T>(-1.0)
    };
    let ck = cspline2d_prec(op, iin, lmbda, prec)?;
    let tap_edge = (1.0f32 / 6.0) as f64;
    let tap_mid = (4.0f32 / 6.0) as f64;
    let y = fir3_mirror(&ck, 1, tap_edge, tap_mid)?;
    fir3_mirror(&y, 0, tap_edge, tap_mid)
}

/// `e·x[i−1] + m·x[i] + e·x[i+1]` along `axis` with SciPy's `sepfir2d` mirror ends
/// (`x[−1] = x[0]`, `x[n] = x[n−1]`).
fn fir3_mirror<T: SignalScalar>(x: &Array<T>, axis: usize, e: f64, m: f64) -> Result<Array<T>> {
    let (outer, n, inner) = split_axis(x.shape(), axis);
    let total = x.size();
    match x.backend() {
        Backend::Host(h) => {
            let xd = h.try_to_contiguous()?;
            let (te, tm) = (t::<T>(e), t::<T>(m));
            let idx = |o: usize, i: usize, q: usize| (o * n + i) * inner + q;
            let out: Vec<T> = (0..total)
                .into_par_iter()
                .map(|g| {
                    let q = g % inner;
                    let i = (g / inner) % n;
                    let o = g / (inner * n);
                    let l = if i == 0 { 0 } else { i - 1 };
                    let r = if i + 1 == n { i } else { i + 1 };
                    te * xd[idx(o, l, q)] + tm * xd[idx(o, i, q)] + te * xd[idx(o, r, q)]
                })
                .collect();
            Array::from_vec(out, x.shape(), x.device())
        }
        Backend::Cuda(c) => {
            let xc = x.contiguous()?;
            let mut y = Array::<T>::empty(x.shape(), x.device())?;
            if total > 0 {
                let d = c.dev();
                d.launch(&kernel::<T>(d, "fir3")?, LaunchConfig::cover(total, 256)?)
                    .arg(xc.dev_ptr()?)
                    .arg(y.dev_ptr_mut()?)
                    .arg(outer as i64)
                    .arg(n as i64)
                    .arg(inner as i64)
                    .arg(e)
                    .arg(m)
                    .run()?;
            }
            Ok(y)
        }
    }
}

/// The cubic B-spline β₃(t).
fn beta3(t: f64) -> f64 {
    let a = t.abs();
    if a < 1.0 {
        (4.0 - 6.0 * a * a + 3.0 * a * a * a) / 6.0
    } else if a < 2.0 {
        let b = 2.0 - a;
        b * b * b / 6.0
    } else {
        0.0
    }
}

/// The quadratic B-spline β₂(t).
fn beta2(t: f64) -> f64 {
    let a = t.abs();
    if a < 0.5 {
        0.75 - a * a
    } else if a < 1.5 {
        let b = 1.5 - a;
        b * b / 2.0
    } else {
        0.0
    }
}

/// One spline value at `xx` (in units of the knot spacing) from `cj` (SciPy's mirror rule, then
/// its clamped sum of 4 or 3 terms); the same steps as the `eval` kernel.
fn eval_point<T: SignalScalar>(cj: &[T], xx: f64, cubic: bool) -> T {
    let n = cj.len();
    if xx.is_nan() || xx.is_infinite() {
        return t(f64::NAN);
    }
    let mut x = xx;
    if n == 1 {
        x = 0.0;
    } else {
        let last = (n - 1) as f64;
        if x < 0.0 {
            x = -x;
        }
        if x > last {
            let per = 2.0 * last;
            x %= per;
            if x > last {
                x = per - x;
            }
        }
    }
    let (off, terms) = if cubic { (2.0, 4) } else { (1.5, 3) };
    let jl = (x - off).floor() as i64 + 1;
    let mut acc = c64::new(0.0, 0.0);
    for i in 0..terms {
        let j = jl + i;
        let idx = j.clamp(0, n as i64 - 1) as usize;
        let b = if cubic {
            beta3(x - j as f64)
        } else {
            beta2(x - j as f64)
        };
        acc += cj[idx].to_c64() * b;
    }
    T::from_c64(acc)
}

fn spline_eval<T: SignalScalar>(
    op: &str,
    cj: &Array<T>,
    newx: &Array<T::Real>,
    dx: f64,
    x0: f64,
    cubic: bool,
) -> Result<Array<T>> {
    if cj.ndim() != 1 {
        return Err(make::shape(
            op,
            format!(
                "the coefficients must be one-dimensional, got shape {:?}",
                cj.shape()
            ),
        ));
    }
    if cj.size() == 0 {
        return Err(make::arg(op, "spline coefficients 'cj' must not be empty"));
    }
    if dx == 0.0 || !dx.is_finite() || !x0.is_finite() {
        return Err(make::arg(
            op,
            format!("dx must be finite and non-zero and x0 finite (dx {dx}, x0 {x0})"),
        ));
    }
    check_same_device(op, cj.device(), newx.device())?;
    let m = newx.size();
    match cj.backend() {
        Backend::Host(h) => {
            let c = h.try_to_contiguous()?;
            let xs = host_elems(newx)?;
            let out: Vec<T> = xs
                .par_iter()
                .map(|&v| eval_point(&c, (v.to_f64() - x0) / dx, cubic))
                .collect();
            Array::from_vec(out, newx.shape(), newx.device())
        }
        Backend::Cuda(c) => {
            let cc = cj.contiguous()?;
            let xc = newx.contiguous()?;
            let mut y = Array::<T>::empty(newx.shape(), newx.device())?;
            if m > 0 {
                let d = c.dev();
                d.launch(&kernel::<T>(d, "eval")?, LaunchConfig::cover(m, 256)?)
                    .arg(cc.dev_ptr()?)
                    .arg(cj.size() as i64)
                    .arg(xc.dev_ptr()?)
                    .arg(y.dev_ptr_mut()?)
                    .arg(m as i64)
                    .arg(dx)
                    .arg(x0)
                    .arg(cubic as i32)
                    .run()?;
            }
            Ok(y)
        }
    }
}

/// Evaluates a cubic spline at `newx`, SciPy's `scipy.signal.cspline1d_eval(cj, newx, dx, x0)`
/// (SciPy's defaults `dx = 1.0`, `x0 = 0`): knots at `x0 + j·dx`, mirror-symmetric outside
/// `[0, N−1]`, and inside SciPy's sum of the 4 nearest coefficients with indices clamped to the
/// ends. One coefficient gives `cj[0]` everywhere (SciPy recurses without end there).
///
/// The output has `newx`'s shape, `cj`'s element type and device; NaN or infinite points give
/// NaN. Computed in f64 (c64) and rounded once.
///
/// # Errors
/// `ShapeMismatch` unless `cj` is 1-D; `InvalidArgument` for empty `cj`, `dx` zero or not
/// finite, `x0` not finite; `DeviceMismatch`.
///
/// ```
/// use cusci_signal::{cspline1d, cspline1d_eval, Array, Device};
/// let dev = Device::cpu();
/// let x = Array::from_vec(vec![0.0f64, 1.0, 4.0, 9.0, 16.0, 25.0], &[6], &dev).unwrap();
/// let c = cspline1d(&x, 0.0).unwrap();
/// let at = Array::from_vec(vec![2.0f64, 3.0], &[2], &dev).unwrap();
/// let y = cspline1d_eval(&c, &at, 1.0, 0.0).unwrap().to_vec().unwrap();
/// assert!((y[0] - 4.0).abs() < 1e-12 && (y[1] - 9.0).abs() < 1e-12);
/// ```
pub fn cspline1d_eval<T: SignalScalar>(
    cj: &Array<T>,
    newx: &Array<T::Real>,
    dx: f64,
    x0: f64,
) -> Result<Array<T>> {
    spline_eval("cspline1d_eval", cj, newx, dx, x0, true)
}

/// Evaluates a quadratic spline at `newx`, SciPy's `scipy.signal.qspline1d_eval(cj, newx, dx,
/// x0)`; as [`cspline1d_eval`] with 3 terms of the quadratic B-spline.
///
/// # Errors
/// As [`cspline1d_eval`].
///
/// ```
/// use cusci_signal::{qspline1d, qspline1d_eval, Array, Device};
/// let dev = Device::cpu();
/// let x = Array::from_vec(vec![3.0f64, 1.0, 4.0, 1.0, 5.0], &[5], &dev).unwrap();
/// let c = qspline1d(&x, 0.0).unwrap();
/// let at = Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3], &dev).unwrap();
/// let y = qspline1d_eval(&c, &at, 1.0, 0.0).unwrap().to_vec().unwrap();
/// assert!((y[1] - 4.0).abs() < 1e-12);
/// ```
pub fn qspline1d_eval<T: SignalScalar>(
    cj: &Array<T>,
    newx: &Array<T::Real>,
    dx: f64,
    x0: f64,
) -> Result<Array<T>> {
    spline_eval("qspline1d_eval", cj, newx, dx, x0, false)
}

/// The Gaussian approximation of the order-`n` B-spline at `x`, SciPy's
/// `scipy.signal.gauss_spline(x, n)`: `exp(−x²/(2σ²)) / √(2πσ²)` with `σ² = (n+1)/12`.
///
/// Element-wise on `x`'s device (core element-wise kernels), in `x`'s type.
///
/// # Errors
/// `InvalidArgument` for `n < 0` (SciPy's documented domain).
///
/// ```
/// use cusci_signal::{gauss_spline, Array, Device};
/// let x = Array::from_vec(vec![0.0f64], &[1], &Device::cpu()).unwrap();
/// let y = gauss_spline(&x, 3).unwrap().to_vec().unwrap();
/// assert!((y[0] - 0.690988298942671).abs() < 1e-12);
/// ```
pub fn gauss_spline<T: SignalScalar>(x: &Array<T>, n: i64) -> Result<Array<T>> {
    if n < 0 {
        return Err(make::arg(
            "gauss_spline",
            format!("the order n must be non-negative, got {n}"),
        ));
    }
    let signsq = (n as f64 + 1.0) / 12.0;
    let scale = 1.0 / (2.0 * std::f64::consts::PI * signsq).sqrt();
    x.mul(x)?
        .mul_scalar(t(-0.5 / signsq))?
        .exp()?
        .mul_scalar(t(scale))
}

#[cfg(test)]
mod tests {
    use super::*;
    const CUBIC_Z: f64 = -0.267_949_192_431_122_7; // -2 + sqrt(3)
    const QUAD_Z: f64 = -0.171_572_875_253_809_9; // -3 + 2 sqrt(2)
    #[test]
    fn poles() {
        assert!((CUBIC_Z - cubic_z()).abs() < 1e-15);
        assert!((QUAD_Z - quad_z()).abs() < 1e-15);
        let (a, b) = (coeff_smooth(0.5), root_from_lambda(0.5));
        assert!((a.rho - b.rho).abs() < 1e-14 && (a.omega - b.omega).abs() < 1e-14);
    }
    #[test]
    fn bsplines_sum_to_one() {
        for i in 0..20 {
            let x = i as f64 * 0.05;
            let s3: f64 = (-3..=3).map(|j| beta3(x - j as f64)).sum();
            let s2: f64 = (-3..=3).map(|j| beta2(x - j as f64)).sum();
            assert!((s3 - 1.0).abs() < 1e-14 && (s2 - 1.0).abs() < 1e-14);
        }
    }
}
