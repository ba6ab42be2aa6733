//! Correlation and convolution, 1-D and n-D (`scipy.ndimage.correlate1d`, `convolve1d`,
//! `correlate`, `convolve`), in the input's type and with SciPy's `output` dtype.

use super::engine::{Op, Real};
use super::footprint::filternd;
use super::line::{filter1d, Line};
use super::store::single;
use super::{
    check_origin, check_rank, footprint_axes, norm_axes, per_axis, points, single_mode, value_axis,
    FilterOptions,
};
use cusci_core::array::layout::norm_axis;
use cusci_core::dtype::Element;
use cusci_core::error::make;
use cusci_core::{Array, Result};

/// One-dimensional correlation along `axis` (`scipy.ndimage.correlate1d`):
/// `out[i] = Σ_k w[k] · x[i + k − (len(w)/2 + origin)]`, the input extended by `opts.mode`.
///
/// Uses `opts.mode`, `opts.cval` and `opts.origin[0]` (0 when empty).
///
/// Numerics: the CPU sums in f64 in SciPy's order (for odd windows symmetric or antisymmetric
/// within `f64::EPSILON`, the centre term and then the paired taps from the outside in; else the
/// last tap first), so its f64 results are SciPy's bit for bit; the GPU sums in the working type
/// (f32 for f32), taps in order, with fused multiply-adds (within a few ulps).
///
/// # Errors
/// `InvalidArgument` for an empty `weights`, an axis out of range or an origin outside the weights.
///
/// ```
/// use cusci_ndimage::{correlate1d, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![2.0f64, 8.0, 0.0, 4.0, 1.0, 9.0, 9.0, 0.0], &[8], &Device::Cpu).unwrap();
/// let y = correlate1d(&x, &[1.0, 3.0], -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![8.0, 26.0, 8.0, 12.0, 7.0, 28.0, 36.0, 9.0]);
/// ```
pub fn correlate1d<T: Real>(
    input: &Array<T>,
    weights: &[f64],
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<T>> {
    if super::engine::stored::<T>() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return correlate1d_as::<T, T>(input, weights, axis, opts);
    }
    let op = "correlate1d";
    let ax = norm_axis(op, axis, input.ndim())?;
    if weights.is_empty() {
        return Err(make::arg(op, "no filter weights given"));
    }
    let mode = single_mode(op, opts.mode, &opts.modes)?;
    let o = opts.origin.first().copied().unwrap_or(0);
    let shift = check_origin(op, o, weights.len())?;
    let line = Line {
        axis: ax,
        w: weights,
        shift,
        mode,
        cval: opts.cval,
        div: 1.0,
        op: Op::Sum,
    };
    filter1d(input, &line)
}

/// One-dimensional convolution along `axis` (`scipy.ndimage.convolve1d`): [`correlate1d`] with
/// the weights reversed and the origin mirrored (shifted by one for an even length, as SciPy).
///
/// # Errors
/// As [`correlate1d`].
///
/// ```
/// use cusci_ndimage::{convolve1d, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![2.0f64, 8.0, 0.0, 4.0, 1.0, 9.0, 9.0, 0.0], &[8], &Device::Cpu).unwrap();
/// let y = convolve1d(&x, &[1.0, 3.0], -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![14.0, 24.0, 4.0, 13.0, 12.0, 36.0, 27.0, 0.0]);
/// ```
pub fn convolve1d<T: Real>(
    input: &Array<T>,
    weights: &[f64],
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<T>> {
    if super::engine::stored::<T>() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return convolve1d_as::<T, T>(input, weights, axis, opts);
    }
    let w: Vec<f64> = weights.iter().rev().copied().collect();
    let mut o = -opts.origin.first().copied().unwrap_or(0);
    if w.len() % 2 == 0 {
        o -= 1;
    }
    let opts = FilterOptions {
        origin: vec![o],
        ..opts.clone()
    };
    correlate1d(input, &w, axis, &opts)
}

/// n-dimensional correlation (`scipy.ndimage.correlate`):
/// `out[i] = Σ_k w[k] · x[i + k − (shape(w)/2 + origin)]` over the nonzero weights.
///
/// `weights` (on any device; read once to the host) has one dimension per filtered axis
/// (`opts.axes`, else every axis).
///
/// # Errors
/// `ShapeMismatch` when `weights` has the wrong number of dimensions; `InvalidArgument` for an
/// origin outside the weights or a bad axis.
///
/// ```
/// use cusci_ndimage::{correlate, FilterOptions, Array, Device};
/// let x = Array::from_vec((0..9).map(f64::from).collect(), &[3, 3], &Device::Cpu).unwrap();
/// let w = Array::from_vec(vec![0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0], &[3, 3], &Device::Cpu).unwrap();
/// let y = correlate(&x, &w, &FilterOptions { mode: "constant".parse().unwrap(), ..Default::default() }).unwrap();
/// assert_eq!(y.to_vec().unwrap()[4], 1.0 + 3.0 + 5.0 + 7.0);
/// ```
pub fn correlate<T: Real>(
    input: &Array<T>,
    weights: &Array<f64>,
    opts: &FilterOptions,
) -> Result<Array<T>> {
    if super::engine::stored::<T>() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return correlate_as::<T, T>(input, weights, opts);
    }
    let op = "correlate";
    let mode = single_mode(op, opts.mode, &opts.modes)?;
    let axes = norm_axes(op, &opts.axes, input.ndim())?;
    let wv = weights.to_vec()?;
    let pts = points(
        op,
        input.ndim(),
        &axes,
        weights.shape(),
        &opts.origin,
        |i| wv[i] != 0.0,
        |i| wv[i],
    )?;
    filternd(input, &pts, mode, opts.cval, Op::Sum)
}

/// n-dimensional convolution (`scipy.ndimage.convolve`): [`correlate`] with the weights
/// reversed along every axis and the origins mirrored (minus one on even-length axes).
///
/// # Errors
/// As [`correlate`].
///
/// ```
/// use cusci_ndimage::{convolve, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3], &Device::Cpu).unwrap();
/// let w = Array::from_vec(vec![1.0, 0.0, -1.0], &[3], &Device::Cpu).unwrap();
/// assert_eq!(convolve(&x, &w, &FilterOptions::default()).unwrap().to_vec().unwrap(), vec![1.0, 2.0, 1.0]);
/// ```
pub fn convolve<T: Real>(
    input: &Array<T>,
    weights: &Array<f64>,
    opts: &FilterOptions,
) -> Result<Array<T>> {
    if super::engine::stored::<T>() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return convolve_as::<T, T>(input, weights, opts);
    }
    let op = "convolve";
    let mode = single_mode(op, opts.mode, &opts.modes)?;
    let axes = norm_axes(op, &opts.axes, input.ndim())?;
    let fshape = weights.shape().to_vec();
    let wv = weights.to_vec()?;
    let total = wv.len();
    let rev = move |i: usize| wv[total - 1 - i];
    check_rank(op, "weights", fshape.len(), axes.len())?;
    // SciPy mirrors each axis's origin by the weights' length along that axis; origin k is
    // the origin of axis k when `axes` names every axis ([`expand_origin`]), else of axes[k]
    let fax = footprint_axes(&axes);
    let origin = per_axis(op, "origin", &opts.origin, axes.len(), 0)?;
    let origin: Vec<isize> = origin
        .iter()
        .enumerate()
        .map(|(k, &o)| {
            let a = value_axis(k, &axes, input.ndim());
            let l = fshape[fax.iter().position(|&f| f == a).unwrap_or(0)];
            if l % 2 == 0 {
                -o - 1
            } else {
                -o
            }
        })
        .collect();
    let pts = points(
        op,
        input.ndim(),
        &axes,
        &fshape,
        &origin,
        |i| rev(i) != 0.0,
        &rev,
    )?;
    filternd(input, &pts, mode, opts.cval, Op::Sum)
}

// ---------------------------------------------------------------- with SciPy's output dtype

/// [`correlate1d`] with SciPy's `output` dtype: `scipy.ndimage.correlate1d(input, weights, axis,
/// output=O)` for an input of type `I` (see the [module](super) doc for the store rules).
///
/// # Errors
/// As [`correlate1d`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{correlate1d_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 10, 200, 255], &[4], &Device::Cpu).unwrap();
/// // 10 - 0 = 10, 200 - 10 = 190, 255 - 200 = 55, 255 - 255 = 0 (reflect), then x[i-1] - x[i]:
/// let y = correlate1d_as::<u8, u8>(&x, &[1.0, -1.0], -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![0, 246, 66, 201]); // -10, -190, -55 wrap modulo 256
/// let z = correlate1d_as::<u8, i32>(&x, &[1.0, -1.0], -1, &FilterOptions::default()).unwrap();
/// assert_eq!(z.to_vec().unwrap(), vec![0, -10, -190, -55]);
/// ```
pub fn correlate1d_as<I: Element, O: Element>(
    input: &Array<I>,
    weights: &[f64],
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    single("correlate1d", input, |x| {
        correlate1d(x, weights, axis, opts)
    })
}

/// [`convolve1d`] with SciPy's `output` dtype (`scipy.ndimage.convolve1d(..., output=O)`).
///
/// # Errors
/// As [`convolve1d`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{convolve1d_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![1i32, 2, 4, 8], &[4], &Device::Cpu).unwrap();
/// let y = convolve1d_as::<i32, f32>(&x, &[0.5, 0.25], -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![1.25, 2.5, 5.0, 6.0]);
/// ```
pub fn convolve1d_as<I: Element, O: Element>(
    input: &Array<I>,
    weights: &[f64],
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    single("convolve1d", input, |x| convolve1d(x, weights, axis, opts))
}

/// [`correlate`] with SciPy's `output` dtype (`scipy.ndimage.correlate(..., output=O)`): one
/// n-D window in f64, stored once.
///
/// # Errors
/// As [`correlate`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{correlate_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![10u8, 21, 30, 41], &[2, 2], &Device::Cpu).unwrap();
/// let w = Array::from_vec(vec![0.25, 0.25, 0.25, 0.25], &[2, 2], &Device::Cpu).unwrap();
/// let y = correlate_as::<u8, f64>(&x, &w, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![10.0, 15.5, 20.0, 25.5]);
/// let z = correlate_as::<u8, u8>(&x, &w, &FilterOptions::default()).unwrap();
/// assert_eq!(z.to_vec().unwrap(), vec![10, 15, 20, 25]); // truncated, as SciPy
/// ```
pub fn correlate_as<I: Element, O: Element>(
    input: &Array<I>,
    weights: &Array<f64>,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    single("correlate", input, |x| correlate(x, weights, opts))
}

/// [`convolve`] with SciPy's `output` dtype (`scipy.ndimage.convolve(..., output=O)`).
///
/// # Errors
/// As [`convolve`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{convolve_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![1i64, 5, 2], &[3], &Device::Cpu).unwrap();
/// let w = Array::from_vec(vec![1.0, 0.0, -1.0], &[3], &Device::Cpu).unwrap();
/// let y = convolve_as::<i64, u8>(&x, &w, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![4, 1, 253]); // [4, 1, -3] stored as u8
/// ```
pub fn convolve_as<I: Element, O: Element>(
    input: &Array<I>,
    weights: &Array<f64>,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    single("convolve", input, |x| convolve(x, weights, opts))
}
