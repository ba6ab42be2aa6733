//! `scipy.ndimage` filters: correlation and convolution (1-D and n-D), Gaussian, uniform,
//! minimum/maximum, rank/median/percentile, Sobel, Prewitt, Laplace and their compositions.
//!
//! Separable filters run as one 1-D pass per axis; footprint filters as one n-D pass. Every
//! function accepts f32, f64, i32, i64 and u8 arrays ([`Real`]) of any layout on any device, and
//! returns an array of the input's type (SciPy's default `output`), on the input's device.
//! For SciPy's `output=` dtype, every non-complex input type and SciPy's exact integer results
//! (wrapping stores), see [`output`] (`correlate_as::<I, O>`, `gaussian_filter_as`, ...).

mod engine;
mod footprint;
mod fused;
mod generic;
mod line;
pub mod output;
mod rank;

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

pub(crate) use engine::{Op, FILTERS};
pub(crate) use generic::GENERIC;
pub(crate) use output::STORE;

use crate::modes::Mode;
use cusci_core::array::layout::norm_axis;
use cusci_core::error::make;
use cusci_core::{Array, Result};
use engine::Points;
use footprint::filternd;
use fused::sum_passes;
use line::{filter1d, Line};
use rank::ranknd;

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

// ---------------------------------------------------------------- Gaussian

/// Options of the Gaussian filters (SciPy's `order`, `truncate`, `radius`, plus [`FilterOptions`]).
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
    /// axis of `axes` for [`gaussian_laplace`] and [`gaussian_gradient_magnitude`] (each axis's
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
/// 1) times the polynomial of its `order`-th derivative.
pub fn gaussian_kernel1d(sigma: f64, order: usize, radius: usize) -> Vec<f64> {
    let s2 = sigma * sigma;
    let r = radius as i64;
    let xs: Vec<f64> = (-r..=r).map(|v| v as f64).collect();
    // SciPy's `_gaussian_kernel1d` step by step: exp(−0.5/σ² · x²), divided by NumPy's sum
    let mut phi: Vec<f64> = xs.iter().map(|x| (-0.5 / s2 * (x * x)).exp()).collect();
    let sum = numpy_sum(&phi);
    phi.iter_mut().for_each(|p| *p /= sum);
    if order == 0 {
        return phi;
    }
    // q(x): polynomial coefficients; q' + q·p' with p'(x) = −x/σ²
    let mut q = vec![0.0; order + 1];
    q[0] = 1.0;
    for _ in 0..order {
        let mut nq = vec![0.0; order + 1];
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
        q = nq;
    }
    xs.iter()
        .zip(&phi)
        .map(|(&x, &p)| {
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
        })
        .collect()
}

fn gaussian_weights(
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
    let mut w = gaussian_kernel1d(sigma, order, r);
    w.reverse();
    Ok(w)
}

/// One-dimensional Gaussian filter along `axis` (`scipy.ndimage.gaussian_filter1d`), of
/// derivative order `opts.order[0]` (0 for the Gaussian itself; any order, as SciPy).
///
/// # Errors
/// `InvalidArgument` where SciPy raises: sigma 0 or NaN, a negative radius
/// `int(truncate · sigma + 0.5)` (a negative sigma is otherwise accepted, as SciPy), a bad axis.
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
    if T::DTYPE.is_integer() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return output::gaussian_filter1d_as::<T, T>(input, sigma, axis, opts);
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
    if T::DTYPE.is_integer() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return output::gaussian_filter_as::<T, T>(input, sigma, opts);
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

// ---------------------------------------------------------------- uniform, min, max

fn window1d<T: Real>(
    op: &str,
    input: &Array<T>,
    size: usize,
    axis: usize,
    (mode, cval): (Mode, f64),
    origin: isize,
    kind: Op,
) -> Result<Array<T>> {
    if size == 0 {
        return Err(make::arg(op, "size must be at least 1"));
    }
    let shift = check_origin(op, origin, size)?;
    let w = vec![1.0; size];
    let line = Line {
        axis,
        w: &w,
        shift,
        mode,
        cval,
        div: size as f64,
        op: kind,
    };
    filter1d(input, &line)
}

/// One-dimensional uniform (moving-average) filter of `size` along `axis`
/// (`scipy.ndimage.uniform_filter1d`): the window sum divided by `size`.
///
/// # Errors
/// `InvalidArgument` for `size == 0`, a bad axis or origin.
///
/// ```
/// use cusci_ndimage::{uniform_filter1d, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![2.0f64, 8.0, 0.0, 4.0, 1.0, 9.0, 9.0, 0.0], &[8], &Device::Cpu).unwrap();
/// let y = uniform_filter1d(&x, 3, -1, &FilterOptions::default()).unwrap().to_vec().unwrap();
/// assert_eq!(y[1], 10.0 / 3.0);
/// ```
pub fn uniform_filter1d<T: Real>(
    input: &Array<T>,
    size: usize,
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<T>> {
    if T::DTYPE.is_integer() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return output::uniform_filter1d_as::<T, T>(input, size, axis, opts);
    }
    let op = "uniform_filter1d";
    let ax = norm_axis(op, axis, input.ndim())?;
    window1d(
        op,
        input,
        size,
        ax,
        (single_mode(op, opts.mode, &opts.modes)?, opts.cval),
        opts.origin.first().copied().unwrap_or(0),
        Op::Sum,
    )
}

/// One-dimensional minimum filter (`scipy.ndimage.minimum_filter1d`).
///
/// # Errors
/// As [`uniform_filter1d`].
///
/// ```
/// use cusci_ndimage::{minimum_filter1d, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![2i32, 8, 0, 4, 1, 9, 9, 0], &[8], &Device::Cpu).unwrap();
/// let y = minimum_filter1d(&x, 3, -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![2, 0, 0, 0, 1, 1, 0, 0]);
/// ```
pub fn minimum_filter1d<T: Real>(
    input: &Array<T>,
    size: usize,
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<T>> {
    let op = "minimum_filter1d";
    let ax = norm_axis(op, axis, input.ndim())?;
    window1d(
        op,
        input,
        size,
        ax,
        (single_mode(op, opts.mode, &opts.modes)?, opts.cval),
        opts.origin.first().copied().unwrap_or(0),
        Op::Min,
    )
}

/// One-dimensional maximum filter (`scipy.ndimage.maximum_filter1d`).
///
/// # Errors
/// As [`uniform_filter1d`].
///
/// ```
/// use cusci_ndimage::{maximum_filter1d, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![2i32, 8, 0, 4, 1, 9, 9, 0], &[8], &Device::Cpu).unwrap();
/// let y = maximum_filter1d(&x, 3, -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![8, 8, 8, 4, 9, 9, 9, 9]);
/// ```
pub fn maximum_filter1d<T: Real>(
    input: &Array<T>,
    size: usize,
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<T>> {
    let op = "maximum_filter1d";
    let ax = norm_axis(op, axis, input.ndim())?;
    window1d(
        op,
        input,
        size,
        ax,
        (single_mode(op, opts.mode, &opts.modes)?, opts.cval),
        opts.origin.first().copied().unwrap_or(0),
        Op::Max,
    )
}

fn separable<T: Real>(
    op: &str,
    input: &Array<T>,
    size: &[usize],
    opts: &FilterOptions,
    kind: Op,
) -> Result<Array<T>> {
    let axes = norm_axes(op, &opts.axes, input.ndim())?;
    if size.is_empty() {
        return Err(make::arg(op, "no size given"));
    }
    let sizes = per_axis(op, "size", size, axes.len(), 1)?;
    let origin = per_axis(op, "origin", &opts.origin, axes.len(), 0)?;
    let modes = axis_modes(op, opts.mode, &opts.modes, axes.len())?;
    // SciPy filters only the axes of size above 1 (sizes 0 and 1 leave an axis alone, and its
    // origin is not checked)
    let mut shifts = Vec::with_capacity(axes.len());
    for k in 0..axes.len() {
        shifts.push(if sizes[k] > 1 {
            check_origin(op, origin[k], sizes[k])?
        } else {
            0
        });
    }
    if kind == Op::Sum {
        let passes: Vec<Pass> = (0..axes.len())
            .filter(|&k| sizes[k] > 1)
            .map(|k| Pass {
                axis: axes[k],
                w: vec![1.0; sizes[k]],
                shift: shifts[k],
                div: sizes[k] as f64,
                mode: modes[k],
            })
            .collect();
        return sum_passes(input, &passes, opts.cval);
    }
    let mut cur: Option<Array<T>> = None;
    for k in 0..axes.len() {
        if sizes[k] > 1 {
            let src = cur.as_ref().unwrap_or(input);
            let mc = (modes[k], opts.cval);
            cur = Some(window1d(op, src, sizes[k], axes[k], mc, origin[k], kind)?);
        }
    }
    match cur {
        Some(c) => Ok(c),
        None => input.copy(),
    }
}

/// n-dimensional uniform filter (`scipy.ndimage.uniform_filter`): one [`uniform_filter1d`] per axis.
///
/// # Errors
/// `InvalidArgument` for a missing size, a wrong number of per-axis values, a bad origin (sizes 0
/// and 1 leave an axis alone, as SciPy).
///
/// ```
/// use cusci_ndimage::{uniform_filter, FilterOptions, Array, Device};
/// let x = Array::<f64>::ones(&[3, 4], &Device::Cpu).unwrap();
/// let y = uniform_filter(&x, &[3], &FilterOptions::default()).unwrap().to_vec().unwrap();
/// assert!(y.iter().all(|v| (v - 1.0).abs() < 1e-15));
/// ```
pub fn uniform_filter<T: Real>(
    input: &Array<T>,
    size: &[usize],
    opts: &FilterOptions,
) -> Result<Array<T>> {
    if T::DTYPE.is_integer() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return output::uniform_filter_as::<T, T>(input, size, opts);
    }
    separable("uniform_filter", input, size, opts, Op::Sum)
}

fn minmax<T: Real>(
    op: &str,
    input: &Array<T>,
    fp: &Footprint,
    opts: &FilterOptions,
    kind: Op,
) -> Result<Array<T>> {
    match fp {
        Footprint::Size(s) => separable(op, input, s, opts, kind),
        Footprint::Mask(m) => {
            let axes = norm_axes(op, &opts.axes, input.ndim())?;
            let mv = m.to_vec()?;
            let sorted = axes.windows(2).all(|w| w[0] < w[1]);
            let all_true = m.ndim() > 0 && !mv.is_empty() && mv.iter().all(|&b| b);
            if all_true && (!opts.modes.is_empty() || !sorted) {
                // SciPy: an all-true footprint is a box, filtered separably (the mask's shape
                // taken as sizes in the order of `axes`), which accepts a mode per axis; the
                // same result as the n-D window below for one mode and increasing axes
                check_rank(op, "footprint", m.ndim(), axes.len())?;
                return separable(op, input, m.shape(), opts, kind);
            }
            let mode = single_mode(op, opts.mode, &opts.modes)?;
            let pts = points(
                op,
                input.ndim(),
                &axes,
                m.shape(),
                &opts.origin,
                |i| mv[i],
                |_| 1.0,
            )?;
            if pts.len() == 0 {
                return Err(make::arg(op, "the footprint selects no element"));
            }
            filternd(input, &pts, mode, opts.cval, kind)
        }
    }
}

/// Minimum filter (`scipy.ndimage.minimum_filter`): separable passes for a size, one n-D pass
/// for a footprint.
///
/// # Errors
/// `ShapeMismatch` for a footprint of the wrong rank; `InvalidArgument` for an empty
/// footprint or a bad origin (sizes 0 and 1 leave an axis alone, as SciPy).
///
/// ```
/// use cusci_ndimage::{minimum_filter, Footprint, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![3.0f32, 1.0, 2.0, 5.0], &[2, 2], &Device::Cpu).unwrap();
/// let y = minimum_filter(&x, &Footprint::Size(vec![2]), &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![3.0, 1.0, 2.0, 1.0]);
/// ```
pub fn minimum_filter<T: Real>(
    input: &Array<T>,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<T>> {
    minmax("minimum_filter", input, footprint, opts, Op::Min)
}

/// Maximum filter (`scipy.ndimage.maximum_filter`); see [`minimum_filter`].
///
/// # Errors
/// As [`minimum_filter`].
///
/// ```
/// use cusci_ndimage::{maximum_filter, Footprint, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![3.0f32, 1.0, 2.0, 5.0], &[2, 2], &Device::Cpu).unwrap();
/// let y = maximum_filter(&x, &Footprint::Size(vec![2]), &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![3.0, 3.0, 3.0, 5.0]);
/// ```
pub fn maximum_filter<T: Real>(
    input: &Array<T>,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<T>> {
    minmax("maximum_filter", input, footprint, opts, Op::Max)
}

// ---------------------------------------------------------------- rank filters

fn rank_points(
    op: &str,
    input: &Array<impl Real>,
    fp: &Footprint,
    opts: &FilterOptions,
) -> Result<Points> {
    let axes = norm_axes(op, &opts.axes, input.ndim())?;
    let pts = match fp {
        Footprint::Size(s) => {
            if s.is_empty() {
                return Err(make::arg(op, "no size given"));
            }
            let sizes = per_axis(op, "size", s, axes.len(), 1)?;
            points(
                op,
                input.ndim(),
                &axes,
                &sizes,
                &opts.origin,
                |_| true,
                |_| 1.0,
            )?
        }
        Footprint::Mask(m) => {
            let mv = m.to_vec()?;
            points(
                op,
                input.ndim(),
                &axes,
                m.shape(),
                &opts.origin,
                |i| mv[i],
                |_| 1.0,
            )?
        }
    };
    if pts.len() == 0 {
        return Err(make::arg(op, "the footprint selects no element"));
    }
    if pts.len() > i32::MAX as usize {
        return Err(make::arg(op, "footprint too large"));
    }
    Ok(pts)
}

/// The `r`-th smallest of the `pts` of `footprint`. With a mode sequence (`opts.modes`), SciPy's
/// route: ranks 0 and last of a box footprint (a size or an all-true mask) run as the separable
/// minimum or maximum filter with the box's sizes, origins and modes on their input axes; other
/// cases refuse the sequence (SciPy's RuntimeError).
fn rank_select<T: Real>(
    op: &str,
    input: &Array<T>,
    pts: &Points,
    r: usize,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<T>> {
    if opts.modes.is_empty() {
        return ranknd(input, pts, r, opts.mode, opts.cval);
    }
    let n = pts.len();
    let boxed = if r == 0 || r + 1 == n {
        rank_box(op, input.ndim(), footprint, opts)?
    } else {
        None
    };
    let Some((size, o)) = boxed else {
        return Err(make::arg(
            op,
            "a sequence of modes is supported only for the first or last rank of a box footprint \
             (SciPy's separable minimum/maximum route)",
        ));
    };
    separable(op, input, &size, &o, if r == 0 { Op::Min } else { Op::Max })
}

/// A rank filter's box footprint (a size, or an all-true mask) as SciPy's `_rank_filter` hands
/// it to the minimum/maximum filter for the first and last ranks: sizes per input axis (the
/// footprint on the filtered axes in increasing order, `_expand_footprint`), with options whose
/// origins and modes are per input axis ([`expand_origin`]; `_expand_mode`: in the order of
/// `axes`) and `axes` none. `None` for a mask that is not all true.
pub(crate) fn rank_box(
    op: &str,
    nd: usize,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Option<(Vec<usize>, FilterOptions)>> {
    let axes = norm_axes(op, &opts.axes, nd)?;
    let fshape = match footprint {
        Footprint::Size(s) => per_axis(op, "size", s, axes.len(), 1)?,
        Footprint::Mask(m) => {
            if !m.to_vec()?.iter().all(|&b| b) {
                return Ok(None);
            }
            m.shape().to_vec()
        }
    };
    check_rank(op, "footprint", fshape.len(), axes.len())?;
    let origin = per_axis(op, "origin", &opts.origin, axes.len(), 0)?;
    let mut size = vec![1usize; nd];
    for (k, &a) in footprint_axes(&axes).iter().enumerate() {
        size[a] = fshape[k];
    }
    let full_origin = expand_origin(&origin, &axes, nd, 0);
    let modes = if opts.modes.is_empty() {
        Vec::new()
    } else {
        let modes = axis_modes(op, opts.mode, &opts.modes, axes.len())?;
        let mut full = vec![Mode::Constant; nd];
        for (k, &a) in axes.iter().enumerate() {
            full[a] = modes[k];
        }
        full
    };
    let o = FilterOptions {
        origin: full_origin,
        axes: None,
        modes,
        ..opts.clone()
    };
    Ok(Some((size, o)))
}

/// Rank filter (`scipy.ndimage.rank_filter`): the `rank`-th smallest value of the footprint
/// (negative ranks count from the largest). NaN sorts after every number.
///
/// # Errors
/// `InvalidArgument` when the rank is outside the footprint; as [`minimum_filter`] otherwise.
///
/// ```
/// use cusci_ndimage::{rank_filter, Footprint, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![5.0f64, 1.0, 4.0, 2.0, 3.0], &[5], &Device::Cpu).unwrap();
/// let y = rank_filter(&x, 1, &Footprint::Size(vec![3]), &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![5.0, 4.0, 2.0, 3.0, 3.0]);
/// ```
pub fn rank_filter<T: Real>(
    input: &Array<T>,
    rank: isize,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<T>> {
    let op = "rank_filter";
    let pts = rank_points(op, input, footprint, opts)?;
    let n = pts.len() as isize;
    let r = if rank < 0 { rank + n } else { rank };
    if r < 0 || r >= n {
        return Err(make::arg(
            op,
            format!("rank {rank} not within the footprint size {n}"),
        ));
    }
    rank_select(op, input, &pts, r as usize, footprint, opts)
}

/// Median filter (`scipy.ndimage.median_filter`): rank `n / 2` of the `n` footprint points.
///
/// # Errors
/// As [`rank_filter`].
///
/// ```
/// use cusci_ndimage::{median_filter, Footprint, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f32, 9.0, 2.0, 8.0, 3.0], &[5], &Device::Cpu).unwrap();
/// let y = median_filter(&x, &Footprint::Size(vec![3]), &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![1.0, 2.0, 8.0, 3.0, 3.0]);
/// ```
pub fn median_filter<T: Real>(
    input: &Array<T>,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<T>> {
    let op = "median_filter";
    let pts = rank_points(op, input, footprint, opts)?;
    let r = pts.len() / 2;
    rank_select(op, input, &pts, r, footprint, opts)
}

/// Percentile filter (`scipy.ndimage.percentile_filter`): rank `⌊n · p / 100⌋` (p = 100: the
/// largest); negative percentiles count from 100.
///
/// # Errors
/// `InvalidArgument` for a percentile outside [−100, 100]; as [`rank_filter`] otherwise.
///
/// ```
/// use cusci_ndimage::{percentile_filter, Footprint, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![5.0f64, 1.0, 4.0, 2.0, 3.0], &[5], &Device::Cpu).unwrap();
/// let y = percentile_filter(&x, 100.0, &Footprint::Size(vec![3]), &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![5.0, 5.0, 4.0, 4.0, 3.0]);
/// ```
pub fn percentile_filter<T: Real>(
    input: &Array<T>,
    percentile: f64,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<T>> {
    let op = "percentile_filter";
    let mut p = percentile;
    if p < 0.0 {
        p += 100.0;
    }
    if !(0.0..=100.0).contains(&p) {
        return Err(make::arg(op, format!("invalid percentile {percentile}")));
    }
    let pts = rank_points(op, input, footprint, opts)?;
    let n = pts.len();
    let r = if p == 100.0 {
        n - 1
    } else {
        ((n as f64) * p / 100.0) as usize
    };
    rank_select(op, input, &pts, r.min(n - 1), footprint, opts)
}

// ---------------------------------------------------------------- derivatives

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
    if T::DTYPE.is_integer() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return output::sobel_as::<T, T>(input, axis, opts);
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
    if T::DTYPE.is_integer() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return output::prewitt_as::<T, T>(input, axis, opts);
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
    if T::DTYPE.is_integer() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return output::laplace_as::<T, T>(input, opts);
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
fn laplace_sigmas(op: &str, sigma: &[f64], axes: &[usize], nd: usize) -> Result<Vec<f64>> {
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
    if T::DTYPE.is_integer() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return output::gaussian_laplace_as::<T, T>(input, sigma, opts);
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
