//! The Gaussian filters (`gaussian_filter1d`, `gaussian_filter`): SciPy's kernel weights, then
//! separable correlation passes.

use super::engine::Op;
use super::fused::{sum_passes, Pass};
use super::line::{filter1d, Line};
use super::store::{chain, single, PassFn, Store};
use super::{axis_modes, norm_axes, per_axis, single_mode, Real};
use crate::modes::Mode;
use cusci_core::array::layout::{checked_add, checked_bytes, checked_mul, norm_axis};
use cusci_core::dtype::Element;
use cusci_core::error::make;
use cusci_core::host::{try_collect, try_vec_zeroed};
use cusci_core::{Array, Result};

/// Options of the Gaussian filters (SciPy's `order`, `truncate`, `radius`, plus [`FilterOptions`](crate::FilterOptions)).
#[derive(Debug, Clone)]
pub struct GaussianOptions {
    /// Derivative order per axis (any order, as SciPy; empty: 0; one value: every axis).
    pub order: Vec<usize>,
    /// The kernel extends `truncate · sigma` (rounded) on each side; default 4.
    pub truncate: f64,
    /// Explicit kernel radius per axis (overrides `truncate`).
    pub radius: Option<Vec<usize>>,
    pub mode: Mode,
    pub cval: f64,
    pub axes: Option<Vec<isize>>,
    /// SciPy's `mode` as a sequence: one mode per filtered axis ([`gaussian_filter`]), or per
    /// axis of `axes` for [`gaussian_laplace`](crate::gaussian_laplace) and [`gaussian_gradient_magnitude`](crate::gaussian_gradient_magnitude) (each axis's
    /// derivative term then filters every axis in that mode, as SciPy's `generic_laplace` /
    /// `generic_gradient_magnitude` pass `modes[ii]` on); empty (default): `mode` everywhere.
    /// Refused by [`gaussian_filter1d`] (SciPy's RuntimeError).
    pub modes: Vec<Mode>,
}

impl Default for GaussianOptions {
    fn default() -> Self {
        GaussianOptions {
            order: Vec::new(),
            truncate: 4.0,
            radius: None,
            mode: Mode::Reflect,
            cval: 0.0,
            axes: None,
            modes: Vec::new(),
        }
    }
}

/// NumPy's `sum` of a contiguous f64 array (pairwise: eight running sums in blocks of up to 128,
/// halves above), so that the Gaussian weights are normalised by the same sum as SciPy's.
fn numpy_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        return a.iter().fold(0.0, |s, &v| s + v);
    }
    if n > 128 {
        let h = n / 2;
        let h = h - h % 8;
        return numpy_sum(&a[..h]) + numpy_sum(&a[h..]);
    }
    let mut r = [0.0; 8];
    r.copy_from_slice(&a[..8]);
    let full = n - n % 8;
    for c in a[8..full].chunks_exact(8) {
        for (r, &v) in r.iter_mut().zip(c) {
            *r += v;
        }
    }
    let s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    a[full..].iter().fold(s, |s, &v| s + v)
}

/// SciPy's `_gaussian_kernel1d(sigma, order, radius)`: the sampled Gaussian (normalised to sum
/// 1) times the polynomial of its `order`-th derivative, `2 · radius + 1` taps.
///
/// # Errors
/// `InvalidArgument` when the `2 · radius + 1` taps (or `order + 1` polynomial coefficients)
/// pass `isize::MAX` bytes (SciPy: "Maximum allowed size exceeded"); `OutOfMemory` when the host
/// cannot hold them (SciPy: MemoryError).
///
/// ```
/// use cusci_ndimage::gaussian_kernel1d;
/// let w = gaussian_kernel1d(1.0, 0, 4).unwrap();
/// assert_eq!(w.len(), 9);
/// assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-15);
/// assert!(gaussian_kernel1d(1.0, 0, usize::MAX).is_err());
/// ```
pub fn gaussian_kernel1d(sigma: f64, order: usize, radius: usize) -> Result<Vec<f64>> {
    kernel1d("gaussian_kernel1d", sigma, order, radius)
}

/// [`gaussian_kernel1d`], its errors naming `op`.
fn kernel1d(op: &str, sigma: f64, order: usize, radius: usize) -> Result<Vec<f64>> {
    // the taps' count and bytes checked, then each vector of taps allocated fallibly: a huge
    // radius is a typed error, not a capacity panic or an abort
    let len = checked_mul(op, radius, 2, "the kernel's taps")?;
    let len = checked_add(op, len, 1, "the kernel's taps")?;
    checked_bytes(op, len, std::mem::size_of::<f64>())?;
    let s2 = sigma * sigma;
    let r = radius as i64; // at most isize::MAX / 2 (checked above)
    let xs: Vec<f64> = try_collect(op, len, (-r..=r).map(|v| v as f64))?;
    // SciPy's `_gaussian_kernel1d` step by step: exp(−0.5/σ² · x²), divided by NumPy's sum
    let mut phi: Vec<f64> = try_collect(op, len, xs.iter().map(|x| (-0.5 / s2 * (x * x)).exp()))?;
    let sum = numpy_sum(&phi);
    phi.iter_mut().for_each(|p| *p /= sum);
    if order == 0 {
        return Ok(phi);
    }
    // q(x): polynomial coefficients; q' + q·p' with p'(x) = −x/σ² (order + 1 of them, allocated
    // fallibly: SciPy's MemoryError for a huge order)
    let nc = checked_add(op, order, 1, "the derivative order")?;
    let mut q: Vec<f64> = try_vec_zeroed(op, nc)?;
    let mut nq: Vec<f64> = try_vec_zeroed(op, nc)?;
    q[0] = 1.0;
    for _ in 0..order {
        nq.fill(0.0);
        for k in 0..=order {
            // D: derivative
            if k < order {
                nq[k] += (k + 1) as f64 * q[k + 1];
            }
            // P: times −x/σ² (SciPy's diagonal entry 1/−σ², times q)
            if k >= 1 {
                nq[k] += 1.0 / -s2 * q[k - 1];
            }
        }
        std::mem::swap(&mut q, &mut nq);
    }
    let taps = xs.iter().zip(&phi).map(|(&x, &p)| {
        // SciPy's `(x ** k) @ q` through NumPy's BLAS: for order 2 the constant and the x²
        // term meet in one fused multiply-add (OpenBLAS on x86-64), else products in order
        let poly = if order == 2 {
            (x * x).mul_add(q[2], q[0] + x * q[1])
        } else {
            let mut poly = 0.0;
            let mut xp = 1.0;
            for &c in &q {
                poly += c * xp;
                xp *= x;
            }
            poly
        };
        poly * p
    });
    try_collect(op, len, taps)
}

pub(super) fn gaussian_weights(
    op: &str,
    sigma: f64,
    order: usize,
    truncate: f64,
    radius: Option<usize>,
) -> Result<Vec<f64>> {
    // SciPy's `_gaussian_kernel1d`: radius = int(truncate * sigma + 0.5) (a negative sigma works
    // while the radius stays non-negative; the kernel depends on sigma²), any order ≥ 0, and a
    // ZeroDivisionError for sigma² == 0
    if sigma.is_nan() {
        return Err(make::arg(op, "sigma must be a number, got NaN"));
    }
    let r = match radius {
        Some(r) => r,
        None => {
            let r = (truncate * sigma + 0.5).trunc();
            if !r.is_finite() || r < 0.0 {
                return Err(make::arg(
                    op,
                    format!(
                        "radius must be a nonnegative integer (truncate {truncate}, sigma {sigma})"
                    ),
                ));
            }
            r as usize
        }
    };
    if sigma * sigma == 0.0 {
        return Err(make::arg(
            op,
            "sigma must be nonzero (SciPy divides by sigma²)",
        ));
    }
    let mut w = kernel1d(op, sigma, order, r)?;
    w.reverse();
    Ok(w)
}

/// One-dimensional Gaussian filter along `axis` (`scipy.ndimage.gaussian_filter1d`), of
/// derivative order `opts.order[0]` (0 for the Gaussian itself; any order, as SciPy).
///
/// # Errors
/// `InvalidArgument` where SciPy raises: sigma 0 or NaN, a negative radius
/// `int(truncate · sigma + 0.5)` (a negative sigma is otherwise accepted, as SciPy), a bad axis,
/// a kernel of `2 · radius + 1` taps past `isize::MAX` bytes; `OutOfMemory` for a kernel the
/// host cannot hold (SciPy: MemoryError), before any work on either device.
///
/// ```
/// use cusci_ndimage::{gaussian_filter1d, GaussianOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0], &[5], &Device::Cpu).unwrap();
/// let y = gaussian_filter1d(&x, 1.0, -1, &GaussianOptions::default()).unwrap().to_vec().unwrap();
/// assert!((y[2] - 3.0).abs() < 1e-12);
/// ```
pub fn gaussian_filter1d<T: Real>(
    input: &Array<T>,
    sigma: f64,
    axis: isize,
    opts: &GaussianOptions,
) -> Result<Array<T>> {
    if super::engine::stored::<T>() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return gaussian_filter1d_as::<T, T>(input, sigma, axis, opts);
    }
    let op = "gaussian_filter1d";
    let ax = norm_axis(op, axis, input.ndim())?;
    let mode = single_mode(op, opts.mode, &opts.modes)?;
    let order = opts.order.first().copied().unwrap_or(0);
    let radius = opts.radius.as_ref().and_then(|r| r.first().copied());
    let w = gaussian_weights(op, sigma, order, opts.truncate, radius)?;
    let shift = (w.len() / 2) as i64;
    let line = Line {
        axis: ax,
        w: &w,
        shift,
        mode,
        cval: opts.cval,
        div: 1.0,
        op: Op::Sum,
    };
    filter1d(input, &line)
}

/// n-dimensional Gaussian filter (`scipy.ndimage.gaussian_filter`): one 1-D pass per axis
/// (axes whose sigma is below 1e-15 are skipped). `sigma`, `opts.order`, `opts.radius` and
/// `opts.modes` take one value for every filtered axis or one per axis (in the order of
/// `opts.axes`).
///
/// # Errors
/// As [`gaussian_filter1d`], and `InvalidArgument` for a wrong number of per-axis values.
///
/// ```
/// use cusci_ndimage::{gaussian_filter, GaussianOptions, Array, Device};
/// let x = Array::<f32>::ones(&[4, 5], &Device::Cpu).unwrap();
/// let y = gaussian_filter(&x, &[2.0], &GaussianOptions::default()).unwrap().to_vec().unwrap();
/// assert!(y.iter().all(|v| (v - 1.0).abs() < 1e-6));
/// ```
pub fn gaussian_filter<T: Real>(
    input: &Array<T>,
    sigma: &[f64],
    opts: &GaussianOptions,
) -> Result<Array<T>> {
    if super::engine::stored::<T>() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return gaussian_filter_as::<T, T>(input, sigma, opts);
    }
    let op = "gaussian_filter";
    let axes = norm_axes(op, &opts.axes, input.ndim())?;
    let n = axes.len();
    let sig = per_axis(op, "sigma", sigma, n, 0.0)?;
    if sigma.is_empty() {
        return Err(make::arg(op, "no sigma given"));
    }
    let ord = per_axis(op, "order", &opts.order, n, 0)?;
    let modes = axis_modes(op, opts.mode, &opts.modes, n)?;
    let rad: Vec<Option<usize>> = match &opts.radius {
        None => vec![None; n],
        Some(r) => per_axis(op, "radius", r, n, 0)?
            .into_iter()
            .map(Some)
            .collect(),
    };
    let mut passes = Vec::new();
    for k in 0..n {
        // SciPy skips (and does not check) the axes whose sigma is not above 1e-15
        if sig[k] > 1e-15 {
            let w = gaussian_weights(op, sig[k], ord[k], opts.truncate, rad[k])?;
            passes.push(Pass {
                axis: axes[k],
                shift: (w.len() / 2) as i64,
                w,
                div: 1.0,
                mode: modes[k],
            });
        }
    }
    sum_passes(input, &passes, opts.cval)
}

// ---------------------------------------------------------------- with SciPy's output dtype

/// [`gaussian_filter1d`] with SciPy's `output` dtype.
///
/// # Errors
/// As [`gaussian_filter1d`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{gaussian_filter1d_as, GaussianOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 0, 100, 0, 0], &[5], &Device::Cpu).unwrap();
/// let y = gaussian_filter1d_as::<u8, u8>(&x, 1.0, -1, &GaussianOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![5, 24, 39, 24, 5]); // SciPy's values (truncated)
/// ```
pub fn gaussian_filter1d_as<I: Element, O: Element>(
    input: &Array<I>,
    sigma: f64,
    axis: isize,
    opts: &GaussianOptions,
) -> Result<Array<O>> {
    single("gaussian_filter1d", input, |x| {
        gaussian_filter1d(x, sigma, axis, opts)
    })
}

/// The 1-D passes of `scipy.ndimage.gaussian_filter` over `axes` (sigma, order and modes per
/// axis or one for all; `opts.radius` likewise): axes whose sigma is at most 1e-15 are skipped.
pub(super) fn gaussian_passes<'a>(
    op: &str,
    axes: &[usize],
    sigma: &[f64],
    order: &[usize],
    modes: &[Mode],
    opts: &GaussianOptions,
) -> Result<Vec<PassFn<'a>>> {
    let n = axes.len();
    let modes = axis_modes(op, opts.mode, modes, n)?;
    if sigma.is_empty() {
        return Err(make::arg(op, "no sigma given"));
    }
    let sig = per_axis(op, "sigma", sigma, n, 0.0)?;
    let ord = per_axis(op, "order", order, n, 0)?;
    let rad: Vec<Option<usize>> = match &opts.radius {
        None => vec![None; n],
        Some(r) => per_axis(op, "radius", r, n, 0)?
            .into_iter()
            .map(Some)
            .collect(),
    };
    let mut passes: Vec<PassFn> = Vec::new();
    for k in 0..n {
        if sig[k] > 1e-15 {
            gaussian_weights(op, sig[k], ord[k], opts.truncate, rad[k])?;
            let o = GaussianOptions {
                order: vec![ord[k]],
                radius: rad[k].map(|r| vec![r]),
                axes: None,
                mode: modes[k],
                modes: Vec::new(),
                ..opts.clone()
            };
            let (s, a) = (sig[k], axes[k] as isize);
            passes.push(Box::new(move |x| gaussian_filter1d(x, s, a, &o)));
        }
    }
    Ok(passes)
}

/// [`gaussian_filter`] with SciPy's `output` dtype: one 1-D pass per axis whose sigma exceeds
/// 1e-15, each stored into the output type before the next (so integer outputs are truncated
/// after every axis, as in SciPy).
///
/// # Errors
/// As [`gaussian_filter`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{gaussian_filter_as, GaussianOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 0, 0, 0, 200, 0, 0, 0, 0], &[3, 3], &Device::Cpu).unwrap();
/// let y = gaussian_filter_as::<u8, u8>(&x, &[1.0], &GaussianOptions::default()).unwrap();
/// let z = gaussian_filter_as::<u8, f64>(&x, &[1.0], &GaussianOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap()[4], 33); // SciPy: 81 after the first axis, then 33
/// assert!((z.to_vec().unwrap()[4] - 33.2613).abs() < 1e-4);
/// ```
pub fn gaussian_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    sigma: &[f64],
    opts: &GaussianOptions,
) -> Result<Array<O>> {
    let op = "gaussian_filter";
    if Store::of::<O>(op)? == Store::F64 {
        // no store between passes: the (fused) f64 filter is the same computation
        return single(op, input, |x| gaussian_filter(x, sigma, opts));
    }
    let axes = norm_axes(op, &opts.axes, input.ndim())?;
    let passes = gaussian_passes(op, &axes, sigma, &opts.order, &opts.modes, opts)?;
    chain(op, input, passes)
}
