//! The box filters: uniform (moving average), minimum and maximum, 1-D along an axis or
//! separable over several (a size or an all-true footprint), or one n-D pass over a footprint.

use super::engine::Op;
use super::footprint::filternd;
use super::fused::{sum_passes, Pass};
use super::line::{filter1d, Line};
use super::store::{chain, input_cval, single, PassFn, Store};
use super::{
    axis_modes, check_origin, check_rank, norm_axes, per_axis, points, single_mode, FilterOptions,
    Footprint, Real,
};
use crate::modes::Mode;
use cusci_core::array::layout::norm_axis;
use cusci_core::dtype::{DType, Element};
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
    let w = cusci_core::host::try_vec_filled(op, size, 1.0)?;
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
    if super::engine::stored::<T>() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return uniform_filter1d_as::<T, T>(input, size, axis, opts);
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
    if T::DTYPE == DType::Bool {
        return minimum_filter1d_as::<T, T>(input, size, axis, opts);
    }
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
    if T::DTYPE == DType::Bool {
        return maximum_filter1d_as::<T, T>(input, size, axis, opts);
    }
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
        // the window's weights are allocated fallibly: a size past the host's memory is a typed
        // error (SciPy: MemoryError), not an abort
        let mut passes: Vec<Pass> = Vec::with_capacity(axes.len());
        for k in (0..axes.len()).filter(|&k| sizes[k] > 1) {
            passes.push(Pass {
                axis: axes[k],
                w: cusci_core::host::try_vec_filled(op, sizes[k], 1.0)?,
                shift: shifts[k],
                div: sizes[k] as f64,
                mode: modes[k],
            });
        }
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
    if super::engine::stored::<T>() {
        // SciPy's integer results: computed in f64, cast after every pass as SciPy casts
        return uniform_filter_as::<T, T>(input, size, opts);
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
    if T::DTYPE == DType::Bool {
        return minimum_filter_as::<T, T>(input, footprint, opts);
    }
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
    if T::DTYPE == DType::Bool {
        return maximum_filter_as::<T, T>(input, footprint, opts);
    }
    minmax("maximum_filter", input, footprint, opts, Op::Max)
}

// ---------------------------------------------------------------- with SciPy's output dtype

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

/// [`minimum_filter1d`] with SciPy's `output` dtype (the minimum in f64, then stored).
///
/// # Errors
/// As [`minimum_filter1d`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{minimum_filter1d_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![-3.7f64, 300.2, 7.9], &[3], &Device::Cpu).unwrap();
/// let y = minimum_filter1d_as::<f64, u8>(&x, 1, -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![253, 44, 7]); // SciPy's C casts
/// ```
pub fn minimum_filter1d_as<I: Element, O: Element>(
    input: &Array<I>,
    size: usize,
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    single("minimum_filter1d", input, |x| {
        minimum_filter1d(x, size, axis, opts)
    })
}

/// [`maximum_filter1d`] with SciPy's `output` dtype (the maximum in f64, then stored).
///
/// # Errors
/// As [`maximum_filter1d`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{maximum_filter1d_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![true, false, false, false], &[4], &Device::Cpu).unwrap();
/// let y = maximum_filter1d_as::<bool, i32>(&x, 2, -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![1, 1, 0, 0]);
/// ```
pub fn maximum_filter1d_as<I: Element, O: Element>(
    input: &Array<I>,
    size: usize,
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    single("maximum_filter1d", input, |x| {
        maximum_filter1d(x, size, axis, opts)
    })
}

pub(super) fn minmax_as<I: Element, O: Element>(
    op: &str,
    input: &Array<I>,
    footprint: &Footprint,
    opts: &FilterOptions,
    max: bool,
) -> Result<Array<O>> {
    // SciPy: a box or an all-true footprint is separable (stored after each axis)
    let size: Vec<usize> = match footprint {
        Footprint::Size(s) => s.clone(),
        Footprint::Mask(m) => {
            let mv = m.to_vec()?;
            if !mv.is_empty() && mv.iter().all(|&b| b) && m.ndim() > 0 {
                m.shape().to_vec()
            } else {
                // SciPy's n-D minimum/maximum filter reads cval as the input's type
                let o = FilterOptions {
                    cval: input_cval::<I>(op, opts.cval)?,
                    ..opts.clone()
                };
                return single(op, input, |x| {
                    if max {
                        maximum_filter(x, footprint, &o)
                    } else {
                        minimum_filter(x, footprint, &o)
                    }
                });
            }
        }
    };
    if let Footprint::Mask(m) = footprint {
        let n = norm_axes(op, &opts.axes, input.ndim())?.len();
        check_rank(op, "footprint", m.ndim(), n)?;
    }
    let passes = boxes(op, input.ndim(), &size, opts)?
        .into_iter()
        .map(|(a, s, fo)| {
            Box::new(move |x: &Array<f64>| {
                if max {
                    maximum_filter1d(x, s, a as isize, &fo)
                } else {
                    minimum_filter1d(x, s, a as isize, &fo)
                }
            }) as PassFn
        })
        .collect();
    chain(op, input, passes)
}

/// [`minimum_filter`] with SciPy's `output` dtype. A box (or an all-true mask) runs as stored
/// 1-D passes, as SciPy's separable route (which matters when the store is not monotone, e.g.
/// an f64 input into u8); another mask as one n-D window.
///
/// # Errors
/// As [`minimum_filter`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{minimum_filter_as, FilterOptions, Footprint, Array, Device};
/// let x = Array::from_vec(vec![5u8, 3, 9, 1], &[2, 2], &Device::Cpu).unwrap();
/// let y = minimum_filter_as::<u8, i64>(&x, &Footprint::Size(vec![2]), &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![5, 3, 5, 1]);
/// ```
pub fn minimum_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    minmax_as("minimum_filter", input, footprint, opts, false)
}

/// [`maximum_filter`] with SciPy's `output` dtype (separable as [`minimum_filter_as`]).
///
/// # Errors
/// As [`maximum_filter`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{maximum_filter_as, FilterOptions, Footprint, Array, Device};
/// let x = Array::from_vec(vec![-3.7f64, 300.2, 1000.5, -1000.0, 2.5, 7.9], &[2, 3], &Device::Cpu).unwrap();
/// let y = maximum_filter_as::<f64, u8>(&x, &Footprint::Size(vec![3]), &FilterOptions::default()).unwrap();
/// // after axis 0: [-3.7, 300.2, 1000.5] stored as [253, 44, 232]; then the maximum along axis 1
/// assert_eq!(y.to_vec().unwrap(), vec![253, 253, 232, 253, 253, 232]);
/// ```
pub fn maximum_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    minmax_as("maximum_filter", input, footprint, opts, true)
}
