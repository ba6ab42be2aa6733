//! The box filters: uniform (moving average), minimum and maximum, 1-D along an axis or
//! separable over several (a size or an all-true footprint), or one n-D pass over a footprint.

use super::engine::Op;
use super::footprint::filternd;
use super::fused::{sum_passes, Pass};
use super::line::{filter1d, Line};
use super::{
    axis_modes, check_origin, check_rank, norm_axes, output, per_axis, points, single_mode,
    FilterOptions, Footprint, Real,
};
use crate::modes::Mode;
use cusci_core::array::layout::norm_axis;
use cusci_core::error::make;
use cusci_core::{Array, Result};

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

/// The 1-D window filters' common body: `axis` normalised, the single mode, the first origin.
fn window1d_opts<T: Real>(
    op: &str,
    input: &Array<T>,
    size: usize,
    axis: isize,
    opts: &FilterOptions,
    kind: Op,
) -> Result<Array<T>> {
    let ax = norm_axis(op, axis, input.ndim())?;
    window1d(
        op,
        input,
        size,
        ax,
        (single_mode(op, opts.mode, &opts.modes)?, opts.cval),
        opts.origin.first().copied().unwrap_or(0),
        kind,
    )
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
    window1d_opts("uniform_filter1d", input, size, axis, opts, Op::Sum)
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
    window1d_opts("minimum_filter1d", input, size, axis, opts, Op::Min)
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
    window1d_opts("maximum_filter1d", input, size, axis, opts, Op::Max)
}

pub(super) fn separable<T: Real>(
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
