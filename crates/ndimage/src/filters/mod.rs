//! `scipy.ndimage` filters: correlation and convolution (1-D and n-D), Gaussian, uniform,
//! minimum/maximum, rank/median/percentile, Sobel, Prewitt, Laplace and their compositions.
//!
//! Separable filters run as one 1-D pass per axis; footprint filters as one n-D pass. Every
//! function accepts f32, f64, i32, i64 and u8 arrays ([`Real`]) of any layout on any device, and
//! returns an array of the input's type (SciPy's default `output`), on the input's device.
//! For SciPy's `output=` dtype, every non-complex input type and SciPy's exact integer results
//! (wrapping stores), see [`output`] (`correlate_as::<I, O>`, `gaussian_filter_as`, ...).

mod derivatives;
mod engine;
mod footprint;
mod fused;
mod gaussian;
mod generic;
mod line;
pub mod output;
mod rank;
mod window;

pub use derivatives::{
    gaussian_gradient_magnitude, gaussian_laplace, generic_gradient_magnitude, generic_laplace,
    laplace, prewitt, sobel,
};
pub use engine::Real;
#[doc(hidden)]
pub use fused::{plan_sum_passes, Pass, Step};
pub use generic::{generic_filter, generic_filter1d, GenericFunction, GenericFunction1d};
pub use output::{
    convolve1d_as, convolve_as, correlate1d_as, correlate_as, gaussian_filter1d_as,
    gaussian_filter_as, gaussian_gradient_magnitude_as, gaussian_laplace_as, generic_filter1d_as,
    generic_filter_as, laplace_as, maximum_filter1d_as, maximum_filter_as, median_filter_as,
    minimum_filter1d_as, minimum_filter_as, percentile_filter_as, prewitt_as, rank_filter_as,
    sobel_as, uniform_filter1d_as, uniform_filter_as,
};

pub use gaussian::{gaussian_filter, gaussian_filter1d, gaussian_kernel1d, GaussianOptions};
pub use rank::{median_filter, percentile_filter, rank_filter};
pub use window::{
    maximum_filter, maximum_filter1d, minimum_filter, minimum_filter1d, uniform_filter,
    uniform_filter1d,
};

pub(crate) use engine::{Op, FILTERS};
pub(crate) use generic::GENERIC;
pub(crate) use output::STORE;

use crate::modes::Mode;
use cusci_core::array::layout::norm_axis;
use cusci_core::error::make;
use cusci_core::{Array, Result};
use engine::Points;
use footprint::filternd;
use line::{filter1d, Line};

/// Options shared by the filters (SciPy's `mode`, `cval`, `origin`, `axes`).
///
/// `origin` is empty (0 on every axis), one value for every axis, or one per filtered axis;
/// `axes` (`None`: all) restricts the n-D filters to some axes (the others are filtered with a
/// window of one). Per-axis values (`origin`, sizes, `modes`) follow the order of `axes`. A
/// footprint array (the weights of [`correlate`] / [`convolve`], a [`Footprint::Mask`]) and the
/// size of the footprint filters ([`rank_filter`], [`median_filter`], [`percentile_filter`],
/// [`generic_filter`], and [`minimum_filter`] / [`maximum_filter`] with a mask that is not all
/// true) have their dimensions in increasing axis order, whatever the order of `axes`: SciPy
/// 1.17 inserts the unfiltered axes with `np.expand_dims` (scipy#22576); only the separable
/// filters take their sizes in the order of `axes`. Likewise the origin of these footprint
/// filters follows `axes` only when `axes` leaves some axis out: naming every axis, in any
/// order, gives the origins in input-axis order (SciPy's `_expand_origin`).
///
/// `modes` is SciPy's `mode` given as a sequence: one mode per filtered axis (per axis of the
/// input for [`sobel`] and [`prewitt`]), or a single mode for all; empty (the default) uses
/// `mode` everywhere. As in SciPy it is accepted by the separable filters ([`uniform_filter`],
/// [`minimum_filter`] / [`maximum_filter`] with a size or an all-true mask, [`sobel`],
/// [`prewitt`], [`laplace`], and [`rank_filter`] & co. where the rank is the footprint's first
/// or last and the footprint is a box) and refused (`InvalidArgument`, SciPy's RuntimeError)
/// by the others, the 1-D filters included.
///
/// ```
/// use cusci_ndimage::{uniform_filter, FilterOptions, Mode, Array, Device};
/// let x = Array::from_vec((0..6).map(f64::from).collect(), &[2, 3], &Device::Cpu).unwrap();
/// // scipy.ndimage.uniform_filter(x, 2, mode=["constant", "nearest"])
/// let o = FilterOptions { modes: vec![Mode::Constant, Mode::Nearest], ..Default::default() };
/// let y = uniform_filter(&x, &[2], &o).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![0.0, 0.25, 0.75, 1.5, 2.0, 3.0]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct FilterOptions {
    pub mode: Mode,
    pub cval: f64,
    pub origin: Vec<isize>,
    pub axes: Option<Vec<isize>>,
    /// One mode per filtered axis (SciPy's `mode` sequence); empty: `mode` on every axis.
    pub modes: Vec<Mode>,
}

/// The footprint of a rank, minimum or maximum filter: SciPy's `size` or `footprint`.
#[derive(Debug, Clone)]
pub enum Footprint {
    /// A box of this size: one value for every (filtered) axis, or one per axis.
    Size(Vec<usize>),
    /// A boolean mask with one dimension per filtered axis.
    Mask(Array<bool>),
}

/// The filtered axes, normalised, in the order given (`None`: every axis in order).
fn norm_axes(op: &str, axes: &Option<Vec<isize>>, ndim: usize) -> Result<Vec<usize>> {
    match axes {
        None => Ok((0..ndim).collect()),
        Some(v) => {
            let mut out = Vec::with_capacity(v.len());
            for &a in v {
                let a = norm_axis(op, a, ndim)?;
                if out.contains(&a) {
                    return Err(make::arg(op, "axes must be unique"));
                }
                out.push(a);
            }
            Ok(out)
        }
    }
}

fn per_axis<V: Clone>(op: &str, what: &str, v: &[V], n: usize, default: V) -> Result<Vec<V>> {
    match v.len() {
        0 => Ok(vec![default; n]),
        1 => Ok(vec![v[0].clone(); n]),
        k if k == n => Ok(v.to_vec()),
        k => Err(make::arg(op, format!("{what} has {k} values for {n} axes"))),
    }
}

fn check_origin(op: &str, origin: isize, len: usize) -> Result<i64> {
    let c = (len / 2) as isize + origin;
    if c < 0 || c >= len as isize {
        return Err(make::arg(
            op,
            format!("invalid origin {origin} for a filter of size {len}"),
        ));
    }
    Ok(c as i64)
}

/// The mode of each of `n` axes: `modes` (one for all or one per axis), else `mode` everywhere.
fn axis_modes(op: &str, mode: Mode, modes: &[Mode], n: usize) -> Result<Vec<Mode>> {
    per_axis(op, "mode", modes, n, mode)
}

/// `mode`, for the functions that take a single mode: a mode sequence is refused, as SciPy
/// refuses it (RuntimeError "A sequence of modes is not supported").
fn single_mode(op: &str, mode: Mode, modes: &[Mode]) -> Result<Mode> {
    if modes.is_empty() {
        Ok(mode)
    } else {
        Err(make::arg(
            op,
            "a sequence of modes is not supported here (SciPy accepts one only in the separable \
             filters)",
        ))
    }
}

/// `ShapeMismatch` unless a footprint (or weights array, `what`) of `rank` dimensions matches
/// the `naxes` filtered axes.
pub(crate) fn check_rank(op: &str, what: &str, rank: usize, naxes: usize) -> Result<()> {
    if rank == naxes {
        return Ok(());
    }
    Err(make::shape(
        op,
        format!("a {what} of {rank} dimensions for {naxes} filtered axes"),
    ))
}

// ---------------------------------------------------------------- 1-D correlation

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
    if T::DTYPE.is_integer() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return output::correlate1d_as::<T, T>(input, weights, axis, opts);
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
    if T::DTYPE.is_integer() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return output::convolve1d_as::<T, T>(input, weights, axis, opts);
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

// ---------------------------------------------------------------- n-D correlation

/// The input axis of each footprint dimension: the filtered axes in increasing order (SciPy
/// places a footprint with `np.expand_dims`, whatever the order of `axes`).
fn footprint_axes(axes: &[usize]) -> Vec<usize> {
    let mut f = axes.to_vec();
    f.sort_unstable();
    f
}

/// The input axis of per-filtered-axis value `k` (a footprint filter's origin, a sigma of
/// gaussian_laplace), as SciPy's `_expand_origin`: `axes[k]` when `axes` leaves an axis out,
/// but `k` when it names them all, whatever its order (scipy#22576).
fn value_axis(k: usize, axes: &[usize], ndim: usize) -> usize {
    if axes.len() == ndim {
        k
    } else {
        axes[k]
    }
}

/// Per-filtered-axis values (one per axis of `axes`) laid on the input's axes by
/// [`value_axis`]; `fill` on the axes left out.
fn expand_origin<T: Copy>(values: &[T], axes: &[usize], ndim: usize, fill: T) -> Vec<T> {
    let mut full = vec![fill; ndim];
    for (k, &v) in values.iter().enumerate() {
        full[value_axis(k, axes, ndim)] = v;
    }
    full
}

/// The points of a footprint of `fshape` (one dimension per filtered axis, in increasing axis
/// order, see [`footprint_axes`]) over an array of `ndim` dimensions; `origin` per filtered axis,
/// expanded by [`expand_origin`]; `keep(i)` says which flat footprint elements count and `w(i)`
/// their weight.
fn points(
    op: &str,
    ndim: usize,
    axes: &[usize],
    fshape: &[usize],
    origin: &[isize],
    keep: impl Fn(usize) -> bool,
    w: impl Fn(usize) -> f64,
) -> Result<Points> {
    check_rank(op, "footprint", fshape.len(), axes.len())?;
    let origin = per_axis(op, "origin", origin, axes.len(), 0)?;
    let axis_origin = expand_origin(&origin, axes, ndim, 0);
    let axes = footprint_axes(axes);
    let mut centre = Vec::with_capacity(axes.len());
    for (k, &len) in fshape.iter().enumerate() {
        if len == 0 {
            return Err(make::arg(op, "the footprint has a zero-length dimension"));
        }
        centre.push(check_origin(op, axis_origin[axes[k]], len)?);
    }
    let total: usize = fshape.iter().product();
    let mut offs = Vec::new();
    let mut ws = Vec::new();
    let mut c = vec![0usize; fshape.len()];
    for i in 0..total {
        let mut r = i;
        for d in (0..fshape.len()).rev() {
            c[d] = r % fshape[d];
            r /= fshape[d];
        }
        if !keep(i) {
            continue;
        }
        let mut full = vec![0i64; ndim];
        for (k, &a) in axes.iter().enumerate() {
            full[a] = c[k] as i64 - centre[k];
        }
        offs.extend(full);
        ws.push(w(i));
    }
    Ok(Points { offs, w: ws })
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
    if T::DTYPE.is_integer() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return output::correlate_as::<T, T>(input, weights, opts);
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
    if T::DTYPE.is_integer() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return output::convolve_as::<T, T>(input, weights, opts);
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
