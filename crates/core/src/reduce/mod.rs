//! Reductions and scans on [`Array`]: `sum`, `mean`, `var`, `std`, `norm`, `min`, `max`,
//! `argmin`, `argmax` (over all elements or over chosen axes) and `cumsum`, as NumPy's.
//!
//! Each operation runs on the array's device: the CPU reference (rayon) or NVRTC kernels generated
//! from `reduce.cu`. Both devices validate the arguments the same way and return the same errors.
//!
//! # Axes
//! Axes may be negative (counted from the end); an axis out of range or repeated is
//! `Error::InvalidArgument`. An empty axis list reduces nothing (NumPy's `axis=()`): the result is a
//! copy of the input (for `var`/`std`, each element's variance, i.e. zeros). 0-d arrays are accepted
//! by the full reductions.
//!
//! # Accumulation
//! | input | sums, means and cumsum accumulate in | result |
//! |---|---|---|
//! | f32 | f64 | rounded to f32 once, at the end (NumPy accumulates in f32, pairwise) |
//! | f64 | f64 | f64 |
//! | c32 | c64 (f64 parts) | rounded to c32 |
//! | c64 | c64 | c64 |
//! | i32, i64, u8 | the same type, wrapping on overflow | the same type (NumPy would promote i32 and u8 sums to i64) |
//!
//! `var`, `std` and `norm` accumulate |x|² in f64 and return the real type (f32 for f32 and c32).
//! `var` is two-pass: the mean (in the accumulation type) first, then the sum of |x − mean|².
//!
//! # Determinism
//! The same input gives the same bits on every run. On the CPU the work is split into chunks of a
//! fixed size whose partial results are combined in a fixed order, whatever the number of threads.
//! On the GPU the grid and the combination tree depend only on the sizes and the device, and no
//! atomics are used. The two devices may differ in the last bits of float sums (different orders).
//!
//! # NaN
//! `min`/`max` propagate NaN (any NaN gives NaN, as NumPy's); `argmin`/`argmax` return the index of
//! the first NaN when there is one. Sums propagate NaN and ±Inf as IEEE arithmetic does.

mod cpu;
mod cuda;

use crate::array::layout::{norm_axes, norm_axis};
use crate::array::Array;
use crate::device::Device;
use crate::dtype::{c64, Element, Float, Numeric, Ordered, RealFloat};
use crate::error::{Error, Result};
use cpu::{cpu_means, cpu_rows, cumsum_cpu, fold_rows, nan_max, nan_min, pick, Rows};
use cuda::{cumsum_cuda, reduce_cuda, GOp};

pub(crate) use cuda::{REDUCE, SCAN};

// ------------------------------------------------------------------------------------------------
// Public API
// ------------------------------------------------------------------------------------------------

impl<T: Numeric> Array<T> {
    /// The sum of all elements (NumPy's `a.sum()`), returned to the host: on a GPU this waits for
    /// the device (two kernel launches and one small copy to the host).
    ///
    /// f32 accumulates in f64 and c32 in c64, rounded once at the end; integers wrap in their own
    /// type (NumPy would promote i32 and u8 to i64). The sum of no elements is 0.
    ///
    /// # Errors
    /// Device errors only.
    pub fn sum(&self) -> Result<T> {
        sum_impl(self, &all_axes(self.ndim()))?.item()
    }

    /// Sums over `axes` (NumPy's `a.sum(axis=axes)`); the reduced axes are removed. An empty
    /// `axes` gives a copy. Accumulation as [`sum`](Self::sum). Asynchronous on a GPU.
    ///
    /// # Errors
    /// `InvalidArgument` for an axis out of range or repeated.
    pub fn sum_axes(&self, axes: &[isize]) -> Result<Array<T>> {
        let red = norm_axes("sum_axes", axes, self.ndim())?;
        if red.is_empty() {
            return self.copy();
        }
        sum_impl(self, &red)
    }

    /// [`sum_axes`](Self::sum_axes) with the reduced axes kept as length-1 axes (NumPy's
    /// `keepdims=True`).
    ///
    /// # Errors
    /// As [`sum_axes`](Self::sum_axes).
    pub fn sum_axes_keepdims(&self, axes: &[isize]) -> Result<Array<T>> {
        let red = norm_axes("sum_axes_keepdims", axes, self.ndim())?;
        keepdims(self.sum_axes(axes)?, &self.shape, &red)
    }

    /// Cumulative sums along `axis` (NumPy's `np.cumsum(a, axis=axis)`): element `i` of each lane
    /// is the sum of elements `0..=i`. The result has the input's shape (C-contiguous).
    ///
    /// The running sum is kept in the accumulation type (f64 for f32, c64 for c32, wrapping
    /// integers) and each output is rounded from it; NumPy keeps f32 running sums in f32.
    ///
    /// # Errors
    /// `InvalidArgument` for an axis out of range (a 0-d array has none).
    pub fn cumsum(&self, axis: isize) -> Result<Array<T>> {
        let ax = norm_axis("cumsum", axis, self.ndim())?;
        match &self.device {
            Device::Cpu => cumsum_cpu(self, ax),
            Device::Cuda(d) => cumsum_cuda(d, self, ax),
        }
    }
}

impl<T: Float> Array<T> {
    /// The mean of all elements (NumPy's `a.mean()`), returned to the host (waits for the device).
    /// The sum accumulates as in [`sum`](Self::sum) and is divided in the accumulation type. No
    /// elements give NaN (as NumPy, without its warning).
    ///
    /// # Errors
    /// Device errors only.
    pub fn mean(&self) -> Result<T> {
        mean_impl(self, &all_axes(self.ndim()))?.item()
    }

    /// Means over `axes` (NumPy's `a.mean(axis=axes)`); an empty reduced extent gives NaN.
    ///
    /// # Errors
    /// `InvalidArgument` for an axis out of range or repeated.
    pub fn mean_axes(&self, axes: &[isize]) -> Result<Array<T>> {
        let red = norm_axes("mean_axes", axes, self.ndim())?;
        if red.is_empty() {
            return self.copy();
        }
        mean_impl(self, &red)
    }

    /// [`mean_axes`](Self::mean_axes) with the reduced axes kept as length-1 axes.
    ///
    /// # Errors
    /// As [`mean_axes`](Self::mean_axes).
    pub fn mean_axes_keepdims(&self, axes: &[isize]) -> Result<Array<T>> {
        let red = norm_axes("mean_axes_keepdims", axes, self.ndim())?;
        keepdims(self.mean_axes(axes)?, &self.shape, &red)
    }

    /// The variance of all elements, `sum |x − mean|² / (n − ddof)` (NumPy's `a.var(ddof=ddof)`),
    /// of the real type, returned to the host (waits for the device). Two passes in f64. `ddof >= n`
    /// divides by 0 and gives +Inf or NaN, as NumPy (without its warning).
    ///
    /// # Errors
    /// Device errors only.
    pub fn var(&self, ddof: usize) -> Result<T::Real> {
        var_impl(self, &all_axes(self.ndim()), ddof, false)?.item()
    }

    /// Variances over `axes` (NumPy's `a.var(axis=axes, ddof=ddof)`), of the real type.
    ///
    /// # Errors
    /// `InvalidArgument` for an axis out of range or repeated.
    pub fn var_axes(&self, axes: &[isize], ddof: usize) -> Result<Array<T::Real>> {
        let red = norm_axes("var_axes", axes, self.ndim())?;
        var_impl(self, &red, ddof, false)
    }

    /// The standard deviation of all elements, `sqrt(var(ddof))` (NumPy's `a.std(ddof=ddof)`),
    /// returned to the host (waits for the device).
    ///
    /// # Errors
    /// Device errors only.
    pub fn std(&self, ddof: usize) -> Result<T::Real> {
        var_impl(self, &all_axes(self.ndim()), ddof, true)?.item()
    }

    /// Standard deviations over `axes` (NumPy's `a.std(axis=axes, ddof=ddof)`).
    ///
    /// # Errors
    /// `InvalidArgument` for an axis out of range or repeated.
    pub fn std_axes(&self, axes: &[isize], ddof: usize) -> Result<Array<T::Real>> {
        let red = norm_axes("std_axes", axes, self.ndim())?;
        var_impl(self, &red, ddof, true)
    }

    /// The 2-norm of all elements taken as one vector (the Frobenius norm of a matrix;
    /// `numpy.linalg.norm(a)` / `scipy.linalg.norm(a)`), returned to the host (waits for the
    /// device). |x|² accumulates in f64 without scaling, so f64 inputs above ~1e154 overflow (as
    /// NumPy's).
    ///
    /// # Errors
    /// Device errors only.
    pub fn norm(&self) -> Result<T::Real> {
        norm_impl(self, &all_axes(self.ndim()))?.item()
    }

    /// 2-norms over `axes` (`numpy.linalg.norm(a, axis=axes)` for one or two axes, Frobenius for
    /// two; any number of axes is accepted here). An empty `axes` gives `|x|`.
    ///
    /// # Errors
    /// `InvalidArgument` for an axis out of range or repeated.
    pub fn norm_axes(&self, axes: &[isize]) -> Result<Array<T::Real>> {
        let red = norm_axes("norm_axes", axes, self.ndim())?;
        if red.is_empty() {
            return self.abs();
        }
        norm_impl(self, &red)
    }
}

impl<T: Ordered> Array<T> {
    /// The smallest element (NumPy's `a.min()`), returned to the host (waits for the device). Any
    /// NaN gives NaN.
    ///
    /// # Errors
    /// `InvalidArgument` for an empty array (NumPy: "zero-size array to reduction operation").
    pub fn min(&self) -> Result<T> {
        minmax_impl(self, &all_axes(self.ndim()), false, "min")?.item()
    }

    /// The largest element (NumPy's `a.max()`), returned to the host (waits for the device). Any
    /// NaN gives NaN.
    ///
    /// # Errors
    /// `InvalidArgument` for an empty array.
    pub fn max(&self) -> Result<T> {
        minmax_impl(self, &all_axes(self.ndim()), true, "max")?.item()
    }

    /// Minima over `axes` (NumPy's `a.min(axis=axes)`; NaN propagates).
    ///
    /// # Errors
    /// `InvalidArgument` for an axis out of range or repeated, or a reduced axis of length 0.
    pub fn min_axes(&self, axes: &[isize]) -> Result<Array<T>> {
        let red = norm_axes("min_axes", axes, self.ndim())?;
        if red.is_empty() {
            return self.copy();
        }
        minmax_impl(self, &red, false, "min_axes")
    }

    /// Maxima over `axes` (NumPy's `a.max(axis=axes)`; NaN propagates).
    ///
    /// # Errors
    /// `InvalidArgument` for an axis out of range or repeated, or a reduced axis of length 0.
    pub fn max_axes(&self, axes: &[isize]) -> Result<Array<T>> {
        let red = norm_axes("max_axes", axes, self.ndim())?;
        if red.is_empty() {
            return self.copy();
        }
        minmax_impl(self, &red, true, "max_axes")
    }

    /// [`min_axes`](Self::min_axes) with the reduced axes kept as length-1 axes.
    ///
    /// # Errors
    /// As [`min_axes`](Self::min_axes).
    pub fn min_axes_keepdims(&self, axes: &[isize]) -> Result<Array<T>> {
        let red = norm_axes("min_axes_keepdims", axes, self.ndim())?;
        keepdims(self.min_axes(axes)?, &self.shape, &red)
    }

    /// [`max_axes`](Self::max_axes) with the reduced axes kept as length-1 axes.
    ///
    /// # Errors
    /// As [`max_axes`](Self::max_axes).
    pub fn max_axes_keepdims(&self, axes: &[isize]) -> Result<Array<T>> {
        let red = norm_axes("max_axes_keepdims", axes, self.ndim())?;
        keepdims(self.max_axes(axes)?, &self.shape, &red)
    }

    /// The index of the smallest element in the flattened (C-order) array (NumPy's `a.argmin()`),
    /// returned to the host (waits for the device). Ties give the first index; a NaN, the first
    /// NaN's index.
    ///
    /// # Errors
    /// `InvalidArgument` for an empty array.
    pub fn argmin(&self) -> Result<usize> {
        Ok(arg_impl(self, &all_axes(self.ndim()), false, "argmin")?.item()? as usize)
    }

    /// The index of the largest element in the flattened (C-order) array (NumPy's `a.argmax()`),
    /// returned to the host. Ties give the first index; a NaN, the first NaN's index.
    ///
    /// # Errors
    /// `InvalidArgument` for an empty array.
    pub fn argmax(&self) -> Result<usize> {
        Ok(arg_impl(self, &all_axes(self.ndim()), true, "argmax")?.item()? as usize)
    }

    /// Indices of the minima along `axis` (NumPy's `a.argmin(axis=axis)`), the axis removed.
    ///
    /// # Errors
    /// `InvalidArgument` for an axis out of range, or an axis of length 0.
    pub fn argmin_axis(&self, axis: isize) -> Result<Array<i64>> {
        let ax = norm_axis("argmin_axis", axis, self.ndim())?;
        arg_impl(self, &[ax], false, "argmin_axis")
    }

    /// Indices of the maxima along `axis` (NumPy's `a.argmax(axis=axis)`), the axis removed.
    ///
    /// # Errors
    /// `InvalidArgument` for an axis out of range, or an axis of length 0.
    pub fn argmax_axis(&self, axis: isize) -> Result<Array<i64>> {
        let ax = norm_axis("argmax_axis", axis, self.ndim())?;
        arg_impl(self, &[ax], true, "argmax_axis")
    }
}

// ------------------------------------------------------------------------------------------------
// Shared helpers
// ------------------------------------------------------------------------------------------------

fn all_axes(ndim: usize) -> Vec<usize> {
    (0..ndim).collect()
}

/// The shape left after removing the (sorted, valid) axes `red`.
fn out_shape(shape: &[usize], red: &[usize]) -> Vec<usize> {
    (0..shape.len())
        .filter(|d| !red.contains(d))
        .map(|d| shape[d])
        .collect()
}

fn keepdims<O: Element>(r: Array<O>, shape: &[usize], red: &[usize]) -> Result<Array<O>> {
    let k: Vec<isize> = (0..shape.len())
        .map(|d| {
            if red.contains(&d) {
                1
            } else {
                shape[d] as isize
            }
        })
        .collect();
    r.reshape(&k)
}

/// NumPy's error for a reduction without identity over no elements.
fn check_nonempty(op: &str, shape: &[usize], red: &[usize]) -> Result<()> {
    if red.iter().any(|&d| shape[d] == 0) {
        return Err(Error::arg(
            op,
            format!("zero-size array to reduction operation {op} which has no identity (shape {shape:?})"),
        ));
    }
    Ok(())
}

/// Row length and count after moving the axes `red` to the end.
fn rows_of(shape: &[usize], red: &[usize]) -> (usize, usize) {
    let r: usize = red.iter().map(|&d| shape[d]).product();
    let n: usize = shape.iter().product();
    let nrows = n
        .checked_div(r)
        .unwrap_or_else(|| out_shape(shape, red).iter().product());
    (nrows, r)
}

/// The axes `red` moved to the end (kept axes first, in order).
fn perm_to_end(ndim: usize, red: &[usize]) -> Vec<isize> {
    (0..ndim)
        .filter(|d| !red.contains(d))
        .chain(red.iter().copied())
        .map(|d| d as isize)
        .collect()
}

fn sum_impl<T: Numeric>(a: &Array<T>, red: &[usize]) -> Result<Array<T>> {
    reduce(a, GOp::Sum, red, 0, |d, nrows, r| {
        if T::DTYPE.is_integer() {
            fold_rows(
                "sum",
                d,
                (nrows, r),
                |_| 0i64,
                |x: T, _, _| x.to_i64(),
                |p, q| p.wrapping_add(q),
                |s, _| T::from_i64(s),
            )
        } else {
            fold_rows(
                "sum",
                d,
                (nrows, r),
                |_| c64::new(0.0, 0.0),
                |x: T, _, _| x.to_c64(),
                |p, q| p + q,
                |s, _| T::from_c64(s),
            )
        }
    })
}

fn mean_impl<T: Float>(a: &Array<T>, red: &[usize]) -> Result<Array<T>> {
    reduce(a, GOp::Mean, red, 0, |d, nrows, r| {
        let means = cpu_means(d, nrows, r)?;
        Ok(means.into_iter().map(T::from_c64).collect())
    })
}

fn var_impl<T: Float>(
    a: &Array<T>,
    red: &[usize],
    ddof: usize,
    sqrt: bool,
) -> Result<Array<T::Real>> {
    let op = if sqrt { GOp::Std } else { GOp::Var };
    reduce(a, op, red, ddof, |d, nrows, r| {
        let means = cpu_means(d, nrows, r)?;
        let div = (r as i128 - ddof as i128).max(0) as f64;
        fold_rows(
            "var",
            d,
            (nrows, r),
            |_| 0.0f64,
            |x: T, _, row| (x.to_c64() - means[row]).norm_sqr(),
            |p, q| p + q,
            |s, _| {
                let v = s / div;
                <T::Real as RealFloat>::from_f64(if sqrt { v.sqrt() } else { v })
            },
        )
    })
}

fn norm_impl<T: Float>(a: &Array<T>, red: &[usize]) -> Result<Array<T::Real>> {
    reduce(a, GOp::Norm, red, 0, |d, nrows, r| {
        fold_rows(
            "norm",
            d,
            (nrows, r),
            |_| 0.0f64,
            |x: T, _, _| x.to_c64().norm_sqr(),
            |p, q| p + q,
            |s, _| <T::Real as RealFloat>::from_f64(s.sqrt()),
        )
    })
}

fn minmax_impl<T: Ordered>(a: &Array<T>, red: &[usize], max: bool, op: &str) -> Result<Array<T>> {
    check_nonempty(op, &a.shape, red)?;
    let g = if max { GOp::Max } else { GOp::Min };
    // repeats along broadcast axes change no extreme: reduce one copy of them
    let (a, _) = &drop_broadcast(a, red)?;
    reduce(a, g, red, 0, |d, nrows, r| {
        fold_rows(
            op,
            d,
            (nrows, r),
            |row: &[T]| row[0],
            |x: T, _, _| x,
            |p, q| if max { nan_max(p, q) } else { nan_min(p, q) },
            |s, _| s,
        )
    })
}

fn arg_impl<T: Ordered>(a: &Array<T>, red: &[usize], max: bool, op: &str) -> Result<Array<i64>> {
    check_nonempty(op, &a.shape, red)?;
    let g = if max { GOp::Argmax } else { GOp::Argmin };
    // the first extreme lies at index 0 of every broadcast axis: reduce one copy of them, then
    // map the index within the smaller block back to the full one
    let (b, shrunk) = drop_broadcast(a, red)?;
    let idx = reduce(&b, g, red, 0, |d, nrows, r| {
        fold_rows(
            op,
            d,
            (nrows, r),
            |row: &[T]| (row[0], 0usize),
            |x: T, j, _| (x, j),
            |p, q| pick(p, q, max),
            |s, _| s.1 as i64,
        )
    })?;
    if !shrunk || red.len() < 2 {
        // one reduced axis: a shrunk axis has length 1 and index 0, the same in the full axis
        return Ok(idx);
    }
    let full: Vec<usize> = red.iter().map(|&d| a.shape[d]).collect();
    let small: Vec<usize> = red.iter().map(|&d| b.shape[d]).collect();
    let remap = |k: i64| -> i64 {
        let (mut k, mut flat, mut scale) = (k as usize, 0usize, 1usize);
        for (&f, &s) in full.iter().zip(&small).rev() {
            flat += (k % s) * scale;
            k /= s;
            scale *= f;
        }
        flat as i64
    };
    let v: Vec<i64> = idx.to_vec()?.into_iter().map(remap).collect();
    Array::from_vec(v, idx.shape(), &Device::Cpu)?.to_device(&a.device)
}

/// `a` with every reduced axis of stride 0 (a broadcast) and length > 1 cut to length 1, and
/// whether any was cut.
fn drop_broadcast<T: Element>(a: &Array<T>, red: &[usize]) -> Result<(Array<T>, bool)> {
    let mut b = a.clone();
    let mut cut = false;
    for &d in red {
        if b.strides[d] == 0 && b.shape[d] > 1 {
            b = b.slice_axis(d as isize, Some(0), Some(1), 1)?;
            cut = true;
        }
    }
    Ok((b, cut))
}

/// One reduction: the CPU reference gets the rows (contiguous, `nrows × r`) and returns one value
/// per row; the GPU runs `op`'s kernels.
fn reduce<T: Element, O: Element>(
    a: &Array<T>,
    op: GOp,
    red: &[usize],
    ddof: usize,
    cpu: impl FnOnce(&Rows<'_, T>, usize, usize) -> Result<Vec<O>>,
) -> Result<Array<O>> {
    let shape = out_shape(&a.shape, red);
    match &a.device {
        Device::Cpu => {
            let (d, nrows, r) = cpu_rows(a, red)?;
            Array::from_vec(cpu(&d, nrows, r)?, &shape, &Device::Cpu)
        }
        Device::Cuda(dev) => reduce_cuda(dev, a, op, red, ddof, &shape),
    }
}
