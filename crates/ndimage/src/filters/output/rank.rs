//! The order-statistics filters with SciPy's `output` dtype: minimum, maximum (separable for
//! a box) and rank, median and percentile filters.

use super::linear::boxes;
use super::{apply, chain, copy_code, finish, load, scast, single, PassFn, Store};
use crate::filters::rank::rank_box;
use crate::filters::{
    check_rank, maximum_filter, maximum_filter1d, minimum_filter, minimum_filter1d, norm_axes,
    per_axis, rank_filter, FilterOptions, Footprint,
};
use cusci_core::dtype::{DType, Element};
use cusci_core::error::make;
use cusci_core::{Array, Result};

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

fn minmax_as<I: Element, O: Element>(
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

// ---------------------------------------------------------------- rank filters

/// The number of footprint elements (SciPy's `filter_size`).
fn footprint_count(op: &str, ndim: usize, fp: &Footprint, opts: &FilterOptions) -> Result<usize> {
    let n = match fp {
        Footprint::Size(s) => {
            if s.is_empty() {
                return Err(make::arg(op, "no size given"));
            }
            let nax = norm_axes(op, &opts.axes, ndim)?.len();
            per_axis(op, "size", s, nax, 1)?.iter().product()
        }
        Footprint::Mask(m) => m.to_vec()?.iter().filter(|&&b| b).count(),
    };
    if n == 0 {
        return Err(make::arg(op, "the footprint selects no element"));
    }
    Ok(n)
}

/// SciPy's route for a rank: the minimum or maximum filter at the ends, else the selection.
fn rank_as<I: Element, O: Element>(
    op: &str,
    input: &Array<I>,
    rank: usize,
    n: usize,
    fp: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    if rank == 0 || rank == n - 1 {
        // SciPy's `_rank_filter` hands the footprint expanded to every axis (a box on the
        // filtered axes in increasing order) with `axes=None` to the minimum/maximum filter
        let max = rank != 0;
        return match rank_box(op, input.ndim(), fp, opts)? {
            Some((size, o)) => minmax_as(op, input, &Footprint::Size(size), &o, max),
            None => minmax_as(op, input, fp, opts, max),
        };
    }
    if rank_1d_route(op, input.ndim(), input.size(), fp, opts)? {
        return rank_1d_as(op, input, rank, fp, opts);
    }
    let o = FilterOptions {
        cval: input_cval::<I>(op, opts.cval)?,
        ..opts.clone()
    };
    single(op, input, |x| rank_filter(x, rank as isize, fp, &o))
}

/// `cval` as SciPy's n-D minimum/maximum (non-box footprints) and rank filters read it: cast to
/// the input's C type (`(npy_uint8)-2.0 = 254`; bool is a byte there too; f32 rounded; i32/i64
/// truncated, the minimum out of range).
fn input_cval<I: Element>(op: &str, cval: f64) -> Result<f64> {
    Ok(scast(cval, Store::of::<I>(op)?.code()))
}

/// Whether SciPy 1.17 takes its 1-D rank route (`_rank_filter_1d`) for a selection that is not
/// the minimum or maximum: a 1-D input whose window (the footprint's full length, zeros
/// included) does not reach more than the line's length past it, or a single element.
fn rank_1d_route(
    op: &str,
    nd: usize,
    n: usize,
    fp: &Footprint,
    opts: &FilterOptions,
) -> Result<bool> {
    if nd != 1 {
        return Ok(false);
    }
    let len = match fp {
        Footprint::Size(s) => per_axis(op, "size", s, 1, 1)?[0],
        Footprint::Mask(m) => m.size(),
    };
    let origin = per_axis(op, "origin", &opts.origin, 1, 0)?[0];
    Ok(n as i64 - ((len as i64 - 1) / 2 - origin as i64) >= 0 || n == 1)
}

/// SciPy's 1-D rank route for a 1-D input: an integer or bool input is filtered as i64, `cval`
/// converted by `numpy.int64` (truncated; NaN or out of range is SciPy's ValueError or
/// OverflowError, an `InvalidArgument` here); a bool, u8 or i32 input's i64 result is copied
/// into the output with NumPy's casts (wrapped into u8 and i32, `!= 0` into bool), an i64
/// input's stored as the n-D route stores (SciPy writes i64 into the output buffer whatever its
/// type: difference (1) of the [module](super) doc); f32 and f64 inputs as the n-D route (`cval`
/// rounded to f32 for f32).
fn rank_1d_as<I: Element, O: Element>(
    op: &str,
    input: &Array<I>,
    rank: usize,
    fp: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let s = Store::of::<O>(op)?;
    let int = I::DTYPE.is_integer() || I::DTYPE == DType::Bool;
    let cval = if int {
        let c = opts.cval;
        if !(-9223372036854775808.0..9223372036854775808.0).contains(&c) {
            return Err(make::arg(
                op,
                format!("cval {c} cannot be converted to the integer filter type"),
            ));
        }
        c.trunc()
    } else {
        input_cval::<I>(op, opts.cval)?
    };
    let o = FilterOptions {
        cval,
        ..opts.clone()
    };
    let y = rank_filter(&load(op, input)?, rank as isize, fp, &o)?;
    let widened = int && I::DTYPE != DType::I64;
    finish(apply(
        y,
        if widened { copy_code::<I>(s) } else { s.code() },
    )?)
}

/// [`rank_filter`] with SciPy's `output` dtype: the `rank`-th smallest (negative: from the end)
/// in f64, stored into `O`; ranks 0 and last run as [`minimum_filter_as`] / [`maximum_filter_as`]
/// (SciPy's route).
///
/// # Errors
/// As [`rank_filter`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{rank_filter_as, FilterOptions, Footprint, Array, Device};
/// let x = Array::from_vec(vec![4i32, 300, 500, 9, 7, 1], &[2, 3], &Device::Cpu).unwrap();
/// let y = rank_filter_as::<i32, u8>(&x, 1, &Footprint::Size(vec![1, 3]), &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![4, 44, 244, 9, 7, 1]); // 300 → 44, 500 → 244
/// ```
pub fn rank_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    rank: isize,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let op = "rank_filter";
    let n = footprint_count(op, input.ndim(), footprint, opts)?;
    let r = if rank < 0 { rank + n as isize } else { rank };
    if r < 0 || r >= n as isize {
        return Err(make::arg(
            op,
            format!("rank {rank} not within the footprint size {n}"),
        ));
    }
    rank_as(op, input, r as usize, n, footprint, opts)
}

/// [`median_filter`](crate::median_filter) with SciPy's `output` dtype (rank `n / 2` of the `n`
/// footprint elements, routed as [`rank_filter_as`]).
///
/// # Errors
/// As [`median_filter`](crate::median_filter); `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{median_filter_as, FilterOptions, Footprint, Array, Device};
/// let x = Array::from_vec(vec![10u8, 200, 30, 40, 250, 60], &[2, 3], &Device::Cpu).unwrap();
/// let y = median_filter_as::<u8, f32>(&x, &Footprint::Size(vec![1, 3]), &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![10.0, 30.0, 30.0, 40.0, 60.0, 60.0]);
/// ```
pub fn median_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let op = "median_filter";
    let n = footprint_count(op, input.ndim(), footprint, opts)?;
    rank_as(op, input, n / 2, n, footprint, opts)
}

/// [`percentile_filter`](crate::percentile_filter) with SciPy's `output` dtype (rank
/// `int(n · p / 100)`, `n − 1` for 100; negative `p` counts from 100).
///
/// # Errors
/// As [`percentile_filter`](crate::percentile_filter); `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{percentile_filter_as, FilterOptions, Footprint, Array, Device};
/// let x = Array::from_vec(vec![5i64, 1, 4, 2, 3], &[1, 5], &Device::Cpu).unwrap();
/// let y = percentile_filter_as::<i64, f64>(&x, 50.0, &Footprint::Size(vec![1, 5]), &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![4.0, 4.0, 3.0, 3.0, 3.0]);
/// ```
pub fn percentile_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    percentile: f64,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let op = "percentile_filter";
    let p = if percentile < 0.0 {
        percentile + 100.0
    } else {
        percentile
    };
    if !(0.0..=100.0).contains(&p) {
        return Err(make::arg(op, format!("invalid percentile {percentile}")));
    }
    let n = footprint_count(op, input.ndim(), footprint, opts)?;
    let r = if p == 100.0 {
        n - 1
    } else {
        (((n as f64) * p / 100.0) as usize).min(n - 1)
    };
    rank_as(op, input, r, n, footprint, opts)
}
