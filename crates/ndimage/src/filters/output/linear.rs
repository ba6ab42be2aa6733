//! The linear filters with SciPy's `output` dtype: correlation, convolution, Gaussian and
//! uniform (separable passes stored between passes).

use super::{chain, single, PassFn, Store};
use crate::filters::gaussian::gaussian_weights;
use crate::filters::{
    axis_modes, check_origin, convolve, convolve1d, correlate, correlate1d, gaussian_filter,
    gaussian_filter1d, norm_axes, per_axis, uniform_filter, uniform_filter1d, FilterOptions,
    GaussianOptions,
};
use crate::modes::Mode;
use cusci_core::dtype::Element;
use cusci_core::error::make;
use cusci_core::{Array, Result};

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

// ---------------------------------------------------------------- Gaussian, uniform

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

/// [`uniform_filter1d`] with SciPy's `output` dtype.
///
/// # Errors
/// As [`uniform_filter1d`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{uniform_filter1d_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![1i32, 2, 4, 8], &[4], &Device::Cpu).unwrap();
/// let y = uniform_filter1d_as::<i32, i32>(&x, 3, -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![1, 2, 4, 6]); // 4/3, 7/3, 14/3, 20/3 truncated
/// ```
pub fn uniform_filter1d_as<I: Element, O: Element>(
    input: &Array<I>,
    size: usize,
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    single("uniform_filter1d", input, |x| {
        uniform_filter1d(x, size, axis, opts)
    })
}

/// One 1-D pass of a separable box: its axis, size, and the options of the 1-D filter (its
/// origin and mode).
pub(super) type BoxPass = (usize, usize, FilterOptions);

/// The 1-D passes of a separable box over `opts.axes` (sizes, origins and modes in the order of
/// `axes`): the axes of size above one (those SciPy filters).
pub(super) fn boxes(
    op: &str,
    ndim: usize,
    size: &[usize],
    opts: &FilterOptions,
) -> Result<Vec<BoxPass>> {
    let axes = norm_axes(op, &opts.axes, ndim)?;
    if size.is_empty() {
        return Err(make::arg(op, "no size given"));
    }
    let sizes = per_axis(op, "size", size, axes.len(), 1)?;
    let origin = per_axis(op, "origin", &opts.origin, axes.len(), 0)?;
    let modes = axis_modes(op, opts.mode, &opts.modes, axes.len())?;
    let mut out = Vec::new();
    for k in 0..axes.len() {
        // as SciPy: sizes 0 and 1 leave the axis alone (its origin unchecked)
        if sizes[k] > 1 {
            check_origin(op, origin[k], sizes[k])?;
            let fo = FilterOptions {
                origin: vec![origin[k]],
                axes: None,
                mode: modes[k],
                modes: Vec::new(),
                ..opts.clone()
            };
            out.push((axes[k], sizes[k], fo));
        }
    }
    Ok(out)
}

/// [`uniform_filter`] with SciPy's `output` dtype: one stored 1-D pass per axis of size above 1.
///
/// # Errors
/// As [`uniform_filter`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{uniform_filter_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 9, 9, 0], &[2, 2], &Device::Cpu).unwrap();
/// let y = uniform_filter_as::<u8, f32>(&x, &[2], &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![0.0, 4.5, 4.5, 4.5]);
/// let z = uniform_filter_as::<u8, u8>(&x, &[2], &FilterOptions::default()).unwrap();
/// assert_eq!(z.to_vec().unwrap(), vec![0, 4, 4, 4]); // [0, 9, 4, 4] after the first axis
/// ```
pub fn uniform_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    size: &[usize],
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let op = "uniform_filter";
    if Store::of::<O>(op)? == Store::F64 {
        return single(op, input, |x| uniform_filter(x, size, opts));
    }
    let passes = boxes(op, input.ndim(), size, opts)?
        .into_iter()
        .map(|(a, s, fo)| {
            Box::new(move |x: &Array<f64>| uniform_filter1d(x, s, a as isize, &fo)) as PassFn
        })
        .collect();
    chain(op, input, passes)
}
