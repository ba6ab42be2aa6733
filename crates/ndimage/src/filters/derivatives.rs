//! The derivative filters (`sobel`, `prewitt`, `laplace`, `gaussian_laplace`,
//! `gaussian_gradient_magnitude`) and their generic forms.

use super::correlate::correlate1d;
use super::engine::Op;
use super::fused::{sum_passes, Pass};
use super::gaussian::gaussian_passes;
use super::gaussian::{gaussian_filter, GaussianOptions};
use super::line::{filter1d, Line};
use super::store::{apply, chain, copy_code, finish, load, store, stored_passes, PassFn, Store};
use super::{axis_modes, expand_origin, norm_axes, per_axis, FilterOptions, Real};
use crate::modes::Mode;
use cusci_core::array::layout::norm_axis;
use cusci_core::dtype::{Element, Numeric};
use cusci_core::error::make;
use cusci_core::{Array, Result};

fn edge<T: Real>(
    op: &str,
    input: &Array<T>,
    axis: isize,
    smooth: &[f64],
    opts: &FilterOptions,
) -> Result<Array<T>> {
    let ax = norm_axis(op, axis, input.ndim())?;
    // SciPy: a mode per axis of the input
    let modes = axis_modes(op, opts.mode, &opts.modes, input.ndim())?;
    let mut passes = vec![Pass {
        axis: ax,
        w: vec![-1.0, 0.0, 1.0],
        shift: 1,
        div: 1.0,
        mode: modes[ax],
    }];
    for (a, &mode) in modes.iter().enumerate() {
        if a != ax {
            passes.push(Pass {
                axis: a,
                w: smooth.to_vec(),
                shift: 1,
                div: 1.0,
                mode,
            });
        }
    }
    sum_passes(input, &passes, opts.cval)
}

/// Sobel derivative along `axis` (`scipy.ndimage.sobel`, whose default axis is −1): `[-1, 0, 1]`
/// along the axis, `[1, 2, 1]` along every other.
///
/// Uses `opts.mode` (or `opts.modes`: one mode per axis of the input, as SciPy's `mode`
/// sequence) and `opts.cval`; SciPy's sobel has no `origin` or `axes` (they are ignored).
///
/// # Errors
/// `InvalidArgument` for a bad axis or a wrong number of modes.
///
/// ```
/// use cusci_ndimage::{sobel, FilterOptions, Array, Device};
/// let x = Array::from_vec((0..12).map(f64::from).collect(), &[3, 4], &Device::Cpu).unwrap();
/// let y = sobel(&x, -1, &FilterOptions::default()).unwrap().to_vec().unwrap();
/// assert_eq!(y[5], 8.0);
/// ```
pub fn sobel<T: Real>(input: &Array<T>, axis: isize, opts: &FilterOptions) -> Result<Array<T>> {
    if super::engine::stored::<T>() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return sobel_as::<T, T>(input, axis, opts);
    }
    edge("sobel", input, axis, &[1.0, 2.0, 1.0], opts)
}

/// Prewitt derivative along `axis` (`scipy.ndimage.prewitt`, default axis −1): `[-1, 0, 1]`
/// along the axis, `[1, 1, 1]` along every other; options as [`sobel`].
///
/// # Errors
/// `InvalidArgument` for a bad axis or a wrong number of modes.
///
/// ```
/// use cusci_ndimage::{prewitt, FilterOptions, Array, Device};
/// let x = Array::from_vec((0..12).map(f64::from).collect(), &[3, 4], &Device::Cpu).unwrap();
/// let y = prewitt(&x, -1, &FilterOptions::default()).unwrap().to_vec().unwrap();
/// assert_eq!(y[5], 6.0);
/// ```
pub fn prewitt<T: Real>(input: &Array<T>, axis: isize, opts: &FilterOptions) -> Result<Array<T>> {
    if super::engine::stored::<T>() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return prewitt_as::<T, T>(input, axis, opts);
    }
    edge("prewitt", input, axis, &[1.0, 1.0, 1.0], opts)
}

/// Sum over axes of a second derivative (`scipy.ndimage.generic_laplace`):
/// `Σ_a derivative2(input, a)`, each term computed by the caller's function (on the input's device).
///
/// # Errors
/// What `derivative2` returns.
///
/// ```
/// use cusci_ndimage::{generic_laplace, correlate1d, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![0.0f64, 1.0, 4.0, 9.0], &[4], &Device::Cpu).unwrap();
/// let o = FilterOptions::default();
/// let y = generic_laplace(&x, |a, ax| correlate1d(a, &[1.0, -2.0, 1.0], ax as isize, &o)).unwrap();
/// assert_eq!(y.to_vec().unwrap()[1], 2.0);
/// ```
pub fn generic_laplace<T: Real + cusci_core::dtype::Numeric>(
    input: &Array<T>,
    mut derivative2: impl FnMut(&Array<T>, usize) -> Result<Array<T>>,
) -> Result<Array<T>> {
    if input.ndim() == 0 {
        return input.copy();
    }
    let mut out = derivative2(input, 0)?;
    for a in 1..input.ndim() {
        out = out.add(&derivative2(input, a)?)?;
    }
    Ok(out)
}

/// `Σ_k term(k)` over `n` terms (the input copied for none): SciPy's `generic_laplace` sum.
fn sum_terms<T: Real + cusci_core::dtype::Numeric>(
    input: &Array<T>,
    n: usize,
    mut term: impl FnMut(usize) -> Result<Array<T>>,
) -> Result<Array<T>> {
    if n == 0 {
        return input.copy();
    }
    let mut out = term(0)?;
    for k in 1..n {
        out = out.add(&term(k)?)?;
    }
    Ok(out)
}

/// Laplace filter from second differences `[1, -2, 1]` (`scipy.ndimage.laplace`): their sum
/// over the axes of `opts.axes` (all by default; with none, a copy of the input).
///
/// `opts.modes` gives one mode per axis of `opts.axes` (SciPy's `mode` sequence); `opts.origin`
/// is not used (SciPy's laplace has none).
///
/// # Errors
/// `InvalidArgument` for bad axes or a wrong number of modes.
///
/// ```
/// use cusci_ndimage::{laplace, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![0.0f64, 1.0, 4.0, 9.0], &[4], &Device::Cpu).unwrap();
/// assert_eq!(laplace(&x, &FilterOptions::default()).unwrap().to_vec().unwrap(), vec![1.0, 2.0, 2.0, -5.0]);
/// // only along axis 1 (scipy.ndimage.laplace(y, axes=[1]))
/// let y = Array::from_vec(vec![0.0f64, 1.0, 4.0, 1.0, 1.0, 1.0], &[2, 3], &Device::Cpu).unwrap();
/// let o = FilterOptions { axes: Some(vec![1]), ..Default::default() };
/// assert_eq!(laplace(&y, &o).unwrap().to_vec().unwrap(), vec![1.0, 2.0, -3.0, 0.0, 0.0, 0.0]);
/// ```
pub fn laplace<T: Real + cusci_core::dtype::Numeric>(
    input: &Array<T>,
    opts: &FilterOptions,
) -> Result<Array<T>> {
    if super::engine::stored::<T>() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return laplace_as::<T, T>(input, opts);
    }
    let op = "laplace";
    let axes = norm_axes(op, &opts.axes, input.ndim())?;
    let modes = axis_modes(op, opts.mode, &opts.modes, axes.len())?;
    sum_terms(input, axes.len(), |k| {
        let line = Line {
            axis: axes[k],
            w: &[1.0, -2.0, 1.0],
            shift: 1,
            mode: modes[k],
            cval: opts.cval,
            div: 1.0,
            op: Op::Sum,
        };
        filter1d(input, &line)
    })
}

/// The per-axis sigmas SciPy's `gaussian_laplace` hands to `gaussian_filter`: `sigma` (one
/// value or one per axis of `axes`) on the filtered axes, 0 (not smoothed) on the others; as
/// SciPy, in the order of `axes` only when `axes` leaves an axis out (naming every axis, in any
/// order, gives the sigmas in input-axis order, as [`expand_origin`]).
pub(super) fn laplace_sigmas(
    op: &str,
    sigma: &[f64],
    axes: &[usize],
    nd: usize,
) -> Result<Vec<f64>> {
    if sigma.is_empty() {
        return Err(make::arg(op, "no sigma given"));
    }
    let sig = per_axis(op, "sigma", sigma, axes.len(), 0.0)?;
    Ok(expand_origin(&sig, axes, nd, 0.0))
}

/// The Gaussian derivative term of axis `axis` in SciPy's `gaussian_laplace` and
/// `gaussian_gradient_magnitude`: `gaussian_filter` over every axis (sigma per axis of the
/// input) with derivative `order` along `axis`, in `mode`.
fn gaussian_term<T: Real>(
    input: &Array<T>,
    sigma: &[f64],
    axis: usize,
    order: usize,
    mode: Mode,
    opts: &GaussianOptions,
) -> Result<Array<T>> {
    let mut ord = vec![0usize; input.ndim()];
    ord[axis] = order;
    let o = GaussianOptions {
        order: ord,
        axes: None,
        mode,
        modes: Vec::new(),
        ..opts.clone()
    };
    gaussian_filter(input, sigma, &o)
}

/// Laplacian of Gaussian (`scipy.ndimage.gaussian_laplace`): for each axis of `opts.axes` (all
/// by default), [`gaussian_filter`] with order 2 along that axis, summed.
///
/// `sigma` is one value or one per axis of `opts.axes` (in input-axis order when `opts.axes`
/// names every axis, as SciPy); the axes outside `opts.axes` are not smoothed (SciPy gives them
/// sigma 0). `opts.modes` gives one mode per axis of `opts.axes`: the
/// term of that axis filters in that mode (SciPy's `generic_laplace`). `opts.truncate` and
/// `opts.radius` (one value or one per axis of the input) apply to every term; `opts.order` is
/// not used.
///
/// # Errors
/// As [`gaussian_filter`]; `InvalidArgument` for an empty `sigma`, a wrong number of sigmas or
/// modes.
///
/// ```
/// use cusci_ndimage::{gaussian_laplace, GaussianOptions, Array, Device};
/// let x = Array::<f64>::ones(&[5, 5], &Device::Cpu).unwrap();
/// let y = gaussian_laplace(&x, &[1.0], &GaussianOptions::default()).unwrap().to_vec().unwrap();
/// // a constant image gives the same (small, truncation-sized) value everywhere
/// assert!(y.iter().all(|v| (v - y[0]).abs() < 1e-12 && v.abs() < 1e-2));
/// ```
pub fn gaussian_laplace<T: Real + cusci_core::dtype::Numeric>(
    input: &Array<T>,
    sigma: &[f64],
    opts: &GaussianOptions,
) -> Result<Array<T>> {
    if super::engine::stored::<T>() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return gaussian_laplace_as::<T, T>(input, sigma, opts);
    }
    let op = "gaussian_laplace";
    let nd = input.ndim();
    let axes = norm_axes(op, &opts.axes, nd)?;
    let full = laplace_sigmas(op, sigma, &axes, nd)?;
    let modes = axis_modes(op, opts.mode, &opts.modes, axes.len())?;
    sum_terms(input, axes.len(), |k| {
        gaussian_term(input, &full, axes[k], 2, modes[k], opts)
    })
}

/// `sqrt(Σ_a derivative(input, a)²)` (`scipy.ndimage.generic_gradient_magnitude`), each term
/// computed by the caller's function.
///
/// # Errors
/// What `derivative` returns.
///
/// ```
/// use cusci_ndimage::{generic_gradient_magnitude, sobel, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![0.0f64, 1.0, 2.0, 3.0], &[4], &Device::Cpu).unwrap();
/// let o = FilterOptions::default();
/// let y = generic_gradient_magnitude(&x, |a, ax| sobel(a, ax as isize, &o)).unwrap();
/// assert_eq!(y.to_vec().unwrap()[1], 2.0);
/// ```
pub fn generic_gradient_magnitude<T: Real + cusci_core::dtype::Float>(
    input: &Array<T>,
    mut derivative: impl FnMut(&Array<T>, usize) -> Result<Array<T>>,
) -> Result<Array<T>> {
    if input.ndim() == 0 {
        return input.copy();
    }
    let d = derivative(input, 0)?;
    let mut out = d.mul(&d)?;
    for a in 1..input.ndim() {
        let d = derivative(input, a)?;
        out = out.add(&d.mul(&d)?)?;
    }
    out.sqrt()
}

/// Gradient magnitude with Gaussian derivatives (`scipy.ndimage.gaussian_gradient_magnitude`):
/// `sqrt(Σ_a d_a²)` over the axes `a` of `opts.axes` (all by default; with none, a copy of the
/// input), `d_a` being [`gaussian_filter`] over every axis with a first derivative along `a`.
///
/// As SciPy, `sigma` is one value or one per axis of the input (every axis is smoothed, also
/// those outside `opts.axes`); `opts.modes` gives one mode per axis of `opts.axes`, used for the
/// whole term of that axis; `opts.order` is not used.
///
/// # Errors
/// As [`gaussian_filter`]; `InvalidArgument` for an empty `sigma`, a wrong number of sigmas or
/// modes.
///
/// ```
/// use cusci_ndimage::{gaussian_gradient_magnitude, GaussianOptions, Array, Device};
/// let x = Array::<f32>::ones(&[6, 6], &Device::Cpu).unwrap();
/// let y = gaussian_gradient_magnitude(&x, &[1.0], &GaussianOptions::default()).unwrap().to_vec().unwrap();
/// assert!(y.iter().all(|v| v.abs() < 1e-6));
/// ```
pub fn gaussian_gradient_magnitude<T: Real + cusci_core::dtype::Float>(
    input: &Array<T>,
    sigma: &[f64],
    opts: &GaussianOptions,
) -> Result<Array<T>> {
    let op = "gaussian_gradient_magnitude";
    let nd = input.ndim();
    let axes = norm_axes(op, &opts.axes, nd)?;
    if sigma.is_empty() {
        return Err(make::arg(op, "no sigma given"));
    }
    let sig = per_axis(op, "sigma", sigma, nd, 0.0)?;
    let modes = axis_modes(op, opts.mode, &opts.modes, axes.len())?;
    let mut out: Option<Array<T>> = None;
    for (k, &a) in axes.iter().enumerate() {
        let d = gaussian_term(input, &sig, a, 1, modes[k], opts)?;
        let sq = d.mul(&d)?;
        out = Some(match out {
            None => sq,
            Some(o) => o.add(&sq)?,
        });
    }
    match out {
        Some(o) => o.sqrt(),
        None => input.copy(),
    }
}

// ---------------------------------------------------------------- with SciPy's output dtype

fn edge_as<I: Element, O: Element>(
    op: &str,
    input: &Array<I>,
    axis: isize,
    smooth: [f64; 3],
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let ax = norm_axis(op, axis, input.ndim())?;
    // SciPy: a mode per axis of the input
    let modes = axis_modes(op, opts.mode, &opts.modes, input.ndim())?;
    let o = |a: usize| FilterOptions {
        origin: Vec::new(),
        axes: None,
        mode: modes[a],
        modes: Vec::new(),
        ..opts.clone()
    };
    let mut passes: Vec<PassFn> = Vec::new();
    let o0 = o(ax);
    passes.push(Box::new(move |x| {
        correlate1d(x, &[-1.0, 0.0, 1.0], ax as isize, &o0)
    }));
    for a in (0..input.ndim()).filter(|&a| a != ax) {
        let oa = o(a);
        passes.push(Box::new(move |x| correlate1d(x, &smooth, a as isize, &oa)));
    }
    chain(op, input, passes)
}

/// [`sobel`](crate::sobel) with SciPy's `output` dtype: the derivative along `axis`, then the
/// `[1, 2, 1]` smoothing along every other axis, each pass stored into `O` (so a u8 output wraps
/// negative gradients, as SciPy's default `output` does for a u8 image).
///
/// # Errors
/// `InvalidArgument` for a bad axis; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{sobel_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 10, 200, 255, 3, 250, 7, 0, 9, 100, 30, 1], &[3, 4], &Device::Cpu).unwrap();
/// let y = sobel_as::<u8, f64>(&x, -1, &FilterOptions::default()).unwrap();
/// let z = sobel_as::<u8, u8>(&x, -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap()[..4], [277.0, 604.0, 485.0, 158.0]);
/// assert_eq!(z.to_vec().unwrap()[..4], [21, 92, 229, 158]); // SciPy's u8 result
/// ```
pub fn sobel_as<I: Element, O: Element>(
    input: &Array<I>,
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    edge_as("sobel", input, axis, [1.0, 2.0, 1.0], opts)
}

/// [`prewitt`](crate::prewitt) with SciPy's `output` dtype (as [`sobel_as`] with `[1, 1, 1]`).
///
/// # Errors
/// `InvalidArgument` for a bad axis; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{prewitt_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![1i32, 2, 4, 8], &[4], &Device::Cpu).unwrap();
/// let y = prewitt_as::<i32, i32>(&x, 0, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![1, 3, 6, 4]);
/// ```
pub fn prewitt_as<I: Element, O: Element>(
    input: &Array<I>,
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    edge_as("prewitt", input, axis, [1.0, 1.0, 1.0], opts)
}

/// [`laplace`](crate::laplace) with SciPy's `output` dtype: the `[1, −2, 1]` second derivative
/// along each axis of `opts.axes` (all by default), each stored into `O`, added in `O` as NumPy's
/// `output += tmp` (integers wrap, bool is logical or, f32 rounds each sum); with no axis, the
/// input stored into `O`.
///
/// # Errors
/// `InvalidArgument` for bad axes; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{laplace_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 10, 200, 255, 3, 250], &[2, 3], &Device::Cpu).unwrap();
/// let y = laplace_as::<u8, i32>(&x, &FilterOptions::default()).unwrap();
/// let z = laplace_as::<u8, u8>(&x, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![265, 173, -140, -507, 506, -297]);
/// assert_eq!(z.to_vec().unwrap(), vec![9, 173, 116, 5, 250, 215]); // modulo 256
/// ```
pub fn laplace_as<I: Element, O: Element>(
    input: &Array<I>,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let op = "laplace";
    let s = Store::of::<O>(op)?;
    let axes = norm_axes(op, &opts.axes, input.ndim())?;
    let modes = axis_modes(op, opts.mode, &opts.modes, axes.len())?;
    let x = load(op, input)?;
    if axes.is_empty() {
        return finish(apply(x, copy_code::<I>(s))?);
    }
    let d2 = |k: usize| -> Result<Array<f64>> {
        let o = FilterOptions {
            origin: Vec::new(),
            axes: None,
            mode: modes[k],
            modes: Vec::new(),
            ..opts.clone()
        };
        store(correlate1d(&x, &[1.0, -2.0, 1.0], axes[k] as isize, &o)?, s)
    };
    laplace_sum(s, axes.len(), d2)
}

/// SciPy's `generic_laplace`: `output = d2(0)`, then `output += d2(k)` for the other terms `k`
/// (one per axis of `axes`), in the output type (NumPy's `+=`: integers wrap, bool is logical
/// or, f32 rounds each sum). `d2` returns stored values; `n` is at least 1.
fn laplace_sum<O: Element>(
    s: Store,
    n: usize,
    d2: impl Fn(usize) -> Result<Array<f64>>,
) -> Result<Array<O>> {
    if s == Store::I64 {
        // i64 sums may not be exact in f64: add as i64 (wrapping, as NumPy)
        let mut acc = d2(0)?.astype::<i64>()?;
        for k in 1..n {
            acc = acc.add(&d2(k)?.astype::<i64>()?)?;
        }
        return acc.astype::<O>();
    }
    let mut acc = d2(0)?;
    for k in 1..n {
        let sum = acc.add(&d2(k)?)?;
        acc = match s {
            // the stored bytes are >= 0: a sum is nonzero exactly when either is (logical or)
            Store::Bool => sum,
            Store::U8 => apply(sum, 14)?,
            Store::I32 => apply(sum, 12)?,
            _ => store(sum, s)?,
        };
    }
    finish(acc)
}

/// [`gaussian_laplace`](crate::gaussian_laplace) with SciPy's `output` dtype: for each axis of
/// `opts.axes` (all by default), the Gaussian filter over every axis with a second derivative
/// along that one (its passes stored into `O`), added as [`laplace_as`] does. `sigma`: one value
/// or one per filtered axis (the other axes are not smoothed); `opts.order` is ignored.
///
/// # Errors
/// As [`gaussian_filter`](crate::gaussian_filter); `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{gaussian_laplace_as, GaussianOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 0, 0, 0, 200, 0, 0, 0, 0], &[3, 3], &Device::Cpu).unwrap();
/// let y = gaussian_laplace_as::<u8, i32>(&x, &[1.0], &GaussianOptions::default()).unwrap();
/// let z = gaussian_laplace_as::<u8, f64>(&x, &[1.0], &GaussianOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap()[4], -52); // SciPy's value (each pass truncated)
/// assert!((z.to_vec().unwrap()[4] + 53.5098).abs() < 1e-4);
/// ```
pub fn gaussian_laplace_as<I: Element, O: Element>(
    input: &Array<I>,
    sigma: &[f64],
    opts: &GaussianOptions,
) -> Result<Array<O>> {
    let op = "gaussian_laplace";
    let s = Store::of::<O>(op)?;
    let nd = input.ndim();
    let axes = norm_axes(op, &opts.axes, nd)?;
    let full = laplace_sigmas(op, sigma, &axes, nd)?;
    let modes = axis_modes(op, opts.mode, &opts.modes, axes.len())?;
    let x = load(op, input)?;
    if axes.is_empty() {
        return finish(apply(x, copy_code::<I>(s))?);
    }
    let all: Vec<usize> = (0..nd).collect();
    let d2 = |k: usize| -> Result<Array<f64>> {
        let mut order = vec![0usize; nd];
        order[axes[k]] = 2;
        let passes = gaussian_passes(op, &all, &full, &order, &[modes[k]], opts)?;
        stored_passes(x.clone(), passes, s, copy_code::<I>(s))
    };
    laplace_sum(s, axes.len(), d2)
}

/// NumPy's `np.multiply(q, q, q)` and `output += q` over the stored derivatives, in `T`
/// (integers wrap; f32 rounds each step).
fn sum_of_squares<T: Numeric>(qs: &[Array<f64>]) -> Result<Array<T>> {
    let mut acc: Option<Array<T>> = None;
    for q in qs {
        let q = q.astype::<T>()?;
        let sq = q.mul(&q)?;
        acc = Some(match acc {
            None => sq,
            Some(a) => a.add(&sq)?,
        });
    }
    acc.ok_or_else(|| make::arg("gradient_magnitude", "no axis"))
}

/// [`gaussian_gradient_magnitude`](crate::gaussian_gradient_magnitude) with SciPy's `output`
/// dtype: for each axis of `opts.axes` (all by default) the Gaussian filter over every axis
/// (`sigma`: one value or one per axis of the input) with a first derivative along that one,
/// stored into `O`; then SciPy's `generic_gradient_magnitude` in the output type: each squared
/// and added in place (integers wrap modulo 2^bits, bool is and/or, f32 rounds each step), and
/// `np.sqrt(output, casting='unsafe')` (integers: the square root of the value as a
/// float, truncated; a negative wrapped sum gives NaN, stored as the type's minimum for i32/i64,
/// 0 for u8). With no axis, the input stored into `O`; `opts.order` is ignored.
///
/// # Errors
/// As [`gaussian_filter`](crate::gaussian_filter); `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{gaussian_gradient_magnitude_as, GaussianOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 0, 0, 0, 200, 0, 0, 0, 0], &[3, 3], &Device::Cpu).unwrap();
/// let g = GaussianOptions::default();
/// let y = gaussian_gradient_magnitude_as::<u8, u8>(&x, &[1.0], &g).unwrap();
/// let z = gaussian_gradient_magnitude_as::<u8, f64>(&x, &[1.0], &g).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![9, 10, 9, 10, 0, 10, 8, 14, 8]); // SciPy's (wrapped) values
/// assert!((z.to_vec().unwrap()[1] - 10.9720).abs() < 1e-4);
/// ```
pub fn gaussian_gradient_magnitude_as<I: Element, O: Element>(
    input: &Array<I>,
    sigma: &[f64],
    opts: &GaussianOptions,
) -> Result<Array<O>> {
    let op = "gaussian_gradient_magnitude";
    let s = Store::of::<O>(op)?;
    let nd = input.ndim();
    let axes = norm_axes(op, &opts.axes, nd)?;
    if sigma.is_empty() {
        return Err(make::arg(op, "no sigma given"));
    }
    let sig = per_axis(op, "sigma", sigma, nd, 0.0)?;
    let modes = axis_modes(op, opts.mode, &opts.modes, axes.len())?;
    let x = load(op, input)?;
    if axes.is_empty() {
        return finish(apply(x, copy_code::<I>(s))?);
    }
    let all: Vec<usize> = (0..nd).collect();
    let mut qs = Vec::with_capacity(axes.len());
    for (k, &a) in axes.iter().enumerate() {
        let mut order = vec![0usize; nd];
        order[a] = 1;
        let passes = gaussian_passes(op, &all, &sig, &order, &[modes[k]], opts)?;
        qs.push(stored_passes(x.clone(), passes, s, copy_code::<I>(s))?);
    }
    match s {
        Store::F64 => finish(sum_of_squares::<f64>(&qs)?.sqrt()?),
        Store::F32 => sum_of_squares::<f32>(&qs)?.sqrt()?.astype::<O>(),
        Store::I32 => int_sqrt(sum_of_squares::<i32>(&qs)?, s),
        Store::I64 => int_sqrt(sum_of_squares::<i64>(&qs)?, s),
        Store::U8 => int_sqrt(sum_of_squares::<u8>(&qs)?, s),
        Store::Bool => {
            // and/or of the stored bytes: nonzero where any derivative is (all bytes are >= 0)
            let mut acc = qs[0].clone();
            for q in &qs[1..] {
                acc = acc.add(q)?;
            }
            finish(acc)
        }
    }
}

/// NumPy's square root of an integer array written back into it (`casting='unsafe'`): the
/// value as f64 (u8's float16 loop gives the same truncated roots below 256), its square root
/// (NaN when negative), stored as the output type.
fn int_sqrt<T: Numeric, O: Element>(a: Array<T>, s: Store) -> Result<Array<O>> {
    finish(store(a.astype::<f64>()?.sqrt()?, s)?)
}
