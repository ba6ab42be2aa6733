//! [`argrelextrema`], [`argrelmin`] and [`argrelmax`].

use super::common::{compact, grid, kernel, vi, zeros_i};
use crate::procutil::split_axis;
use cusci_core::array::layout::norm_axis;
use cusci_core::error::make;
use cusci_core::{Array, Backend, RealFloat, Result};
use rayon::prelude::*;

/// The comparison of [`argrelextrema`] (NumPy's comparator ufuncs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparator {
    /// `np.greater` (maxima).
    Greater,
    /// `np.less` (minima).
    Less,
    /// `np.greater_equal`.
    GreaterEqual,
    /// `np.less_equal`.
    LessEqual,
}

/// How [`argrelextrema`] treats the edges (NumPy's `take` modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExtremaMode {
    /// Indices past the edge are clipped (an edge sample is compared with itself).
    #[default]
    Clip,
    /// Indices wrap around.
    Wrap,
}

fn cmp<T: RealFloat>(c: Comparator, a: T, b: T) -> bool {
    match c {
        Comparator::Greater => a > b,
        Comparator::Less => a < b,
        Comparator::GreaterEqual => a >= b,
        Comparator::LessEqual => a <= b,
    }
}

/// The relative extrema of `data` along `axis`: the elements for which `comparator(x, y)`
/// holds against every neighbour up to `order` samples away (SciPy's
/// `scipy.signal.argrelextrema(data, comparator, axis, order, mode)`). Returns one `i64` index
/// array per dimension (NumPy's `nonzero`), on `data`'s device; every lane along `axis` is
/// handled at once.
///
/// # Errors
/// `InvalidArgument` for `order` < 1, a 0-d array or an axis out of range.
///
/// ```
/// use cusci_signal::{argrelextrema, Array, Comparator, Device, ExtremaMode};
/// let x = Array::from_vec(vec![2.0, 1.0, 2.0, 3.0, 2.0, 0.0], &[6], &Device::cpu()).unwrap();
/// let i = argrelextrema(&x, Comparator::Greater, 0, 1, ExtremaMode::Clip).unwrap();
/// assert_eq!(i[0].to_vec().unwrap(), vec![3]);
/// ```
pub fn argrelextrema<T: RealFloat>(
    data: &Array<T>,
    comparator: Comparator,
    axis: isize,
    order: usize,
    mode: ExtremaMode,
) -> Result<Vec<Array<i64>>> {
    let op = "argrelextrema";
    if order < 1 {
        return Err(make::arg(op, "Order must be an int >= 1"));
    }
    let ax = norm_axis(op, axis, data.ndim())?;
    let (outer, n, inner) = split_axis(data.shape(), ax);
    let dev = data.device();
    let total = data.size();
    let wrap = mode == ExtremaMode::Wrap;
    let flags = match data.backend() {
        Backend::Host(h) => {
            let d = h.try_to_contiguous()?;
            let f: Vec<i64> = (0..total)
                .into_par_iter()
                .map(|e| {
                    let (inn, j, o) = (e % inner, (e / inner) % n, e / (inner * n));
                    let at = |k: usize| d[o * n * inner + k * inner + inn];
                    let v = at(j);
                    let (j, n) = (j as i64, n as i64);
                    let mut ok = true;
                    for s in 1..=order as i64 {
                        let (a, b) = if wrap {
                            ((j + s).rem_euclid(n), (j - s).rem_euclid(n))
                        } else {
                            ((j + s).min(n - 1), (j - s).max(0))
                        };
                        ok = cmp(comparator, v, at(a as usize))
                            && cmp(comparator, v, at(b as usize));
                        if !ok {
                            break;
                        }
                    }
                    ok as i64
                })
                .collect();
            vi(f, dev)?
        }
        Backend::Cuda(cu) => {
            let d = cu.dev();
            let dc = data.contiguous()?;
            let mut flags = zeros_i(dev, total)?;
            let c = match comparator {
                Comparator::Greater => 0i32,
                Comparator::Less => 1,
                Comparator::GreaterEqual => 2,
                Comparator::LessEqual => 3,
            };
            if total > 0 {
                d.launch(&kernel::<T>(d, "relext")?, grid(total)?)
                    .arg(dc.dev_ptr()?)
                    .arg(outer as i64)
                    .arg(n as i64)
                    .arg(inner as i64)
                    .arg(order as i64)
                    .arg(c)
                    .arg(wrap as i32)
                    .arg(flags.dev_ptr_mut()?)
                    .run()?;
            }
            flags
        }
    };
    let flat = compact(&flags)?;
    let m = flat.size();
    let nd = data.ndim();
    match flat.backend() {
        Backend::Host(h) => {
            let f = h.try_to_contiguous()?;
            let mut outs = vec![Vec::with_capacity(m); nd];
            for &v in f.iter() {
                let mut r = v;
                for a in (0..nd).rev() {
                    outs[a].push(r % data.shape()[a] as i64);
                    r /= data.shape()[a] as i64;
                }
            }
            outs.into_iter().map(|v| vi(v, dev)).collect()
        }
        Backend::Cuda(c) => {
            let d = c.dev();
            let shape: Vec<i64> = data.shape().iter().map(|&s| s as i64).collect();
            let sh = Array::from_vec(shape, &[nd], dev)?;
            let mut out = Array::<i64>::empty(&[nd, m], dev)?;
            if m > 0 {
                d.launch(&kernel::<T>(d, "unravel")?, grid(m)?)
                    .arg(c.ptr())
                    .arg(m as i64)
                    .arg(nd as i32)
                    .arg(sh.dev_ptr()?)
                    .arg(out.dev_ptr_mut()?)
                    .run()?;
            }
            (0..nd)
                .map(|k| out.index_axis(0, k as isize)?.contiguous())
                .collect()
        }
    }
}

/// [`argrelextrema`] with `np.less` (SciPy's `scipy.signal.argrelmin`).
///
/// # Errors
/// As [`argrelextrema`].
pub fn argrelmin<T: RealFloat>(
    data: &Array<T>,
    axis: isize,
    order: usize,
    mode: ExtremaMode,
) -> Result<Vec<Array<i64>>> {
    argrelextrema(data, Comparator::Less, axis, order, mode)
}

/// [`argrelextrema`] with `np.greater` (SciPy's `scipy.signal.argrelmax`).
///
/// # Errors
/// As [`argrelextrema`].
pub fn argrelmax<T: RealFloat>(
    data: &Array<T>,
    axis: isize,
    order: usize,
    mode: ExtremaMode,
) -> Result<Vec<Array<i64>>> {
    argrelextrema(data, Comparator::Greater, axis, order, mode)
}
