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

use crate::array::layout::{c_strides, coalesce, norm_axes, norm_axis};
use crate::array::Array;
use crate::cpu::{gather, host, CHUNK};
use crate::cuda::kernel::LaunchConfig;
use crate::cuda::launch::{DevPtr, DevPtrMut, KernelModule, KernelParam, Spec};
use crate::cuda::memory::DeviceBuffer;
use crate::device::{CudaDevice, Device};
use crate::dtype::{c64, DType, Element, Float, Numeric, Ordered, RealFloat};
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::borrow::Cow;

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
                d,
                nrows,
                r,
                |_| 0i64,
                |x: T, _, _| x.to_i64(),
                |p, q| p.wrapping_add(q),
                |s, _| T::from_i64(s),
            )
        } else {
            fold_rows(
                d,
                nrows,
                r,
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
        let means = cpu_means(d, nrows, r);
        means.into_iter().map(T::from_c64).collect()
    })
}

fn cpu_means<T: Element>(d: &[T], nrows: usize, r: usize) -> Vec<c64> {
    fold_rows(
        d,
        nrows,
        r,
        |_| c64::new(0.0, 0.0),
        |x: T, _, _| x.to_c64(),
        |p, q| p + q,
        |s, _| s / r as f64,
    )
}

fn var_impl<T: Float>(
    a: &Array<T>,
    red: &[usize],
    ddof: usize,
    sqrt: bool,
) -> Result<Array<T::Real>> {
    let op = if sqrt { GOp::Std } else { GOp::Var };
    reduce(a, op, red, ddof, |d, nrows, r| {
        let means = cpu_means(d, nrows, r);
        let div = (r as i128 - ddof as i128).max(0) as f64;
        fold_rows(
            d,
            nrows,
            r,
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
            d,
            nrows,
            r,
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
    reduce(a, g, red, 0, |d, nrows, r| {
        fold_rows(
            d,
            nrows,
            r,
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
    reduce(a, g, red, 0, |d, nrows, r| {
        fold_rows(
            d,
            nrows,
            r,
            |row: &[T]| (row[0], 0usize),
            |x: T, j, _| (x, j),
            |p, q| pick(p, q, max),
            |s, _| s.1 as i64,
        )
    })
}

/// NumPy's `maximum` (NaN propagates); on ties the second, as the CUDA side.
fn nan_max<T: Ordered>(a: T, b: T) -> T {
    if a.is_nan() {
        a
    } else if b.is_nan() {
        b
    } else if a > b {
        a
    } else {
        b
    }
}

/// NumPy's `minimum` (NaN propagates); on ties the second, as the CUDA side.
fn nan_min<T: Ordered>(a: T, b: T) -> T {
    if a.is_nan() {
        a
    } else if b.is_nan() {
        b
    } else if a < b {
        a
    } else {
        b
    }
}

/// The better of two (value, index) pairs for argmin/argmax: the first NaN, else the extreme
/// value, else the smaller index (the same total order as `rd_pick` in reduce.cu).
fn pick<T: Ordered>(a: (T, usize), b: (T, usize), max: bool) -> (T, usize) {
    let (an, bn) = (a.0.is_nan(), b.0.is_nan());
    if an != bn {
        return if an { a } else { b };
    }
    if !an {
        let (ab, ba) = if max {
            (a.0 > b.0, b.0 > a.0)
        } else {
            (a.0 < b.0, b.0 < a.0)
        };
        if ab {
            return a;
        }
        if ba {
            return b;
        }
    }
    if a.1 <= b.1 {
        a
    } else {
        b
    }
}

/// One reduction: the CPU reference gets the rows (contiguous, `nrows × r`) and returns one value
/// per row; the GPU runs `op`'s kernels.
fn reduce<T: Element, O: Element>(
    a: &Array<T>,
    op: GOp,
    red: &[usize],
    ddof: usize,
    cpu: impl FnOnce(&[T], usize, usize) -> Vec<O>,
) -> Result<Array<O>> {
    let shape = out_shape(&a.shape, red);
    match &a.device {
        Device::Cpu => {
            let (d, nrows, r) = cpu_rows(a, red)?;
            Array::from_vec(cpu(&d, nrows, r), &shape, &Device::Cpu)
        }
        Device::Cuda(dev) => {
            let mut out = Array::<O>::alloc(op.name(), &shape, &a.device)?;
            let plan = gplan(a, red)?;
            let y = out.dev_ptr_mut()?.untyped();
            if matches!(op, GOp::Var | GOp::Std) {
                let mut means = DeviceBuffer::alloc(dev, plan.nrows * wide_size(T::DTYPE))?;
                run_reduce(
                    dev,
                    GOp::MeanW,
                    &plan,
                    means.dev_ptr_mut(),
                    DevPtr::null(),
                    0,
                )?;
                run_reduce(dev, op, &plan, y, means.dev_ptr(), ddof)?;
            } else {
                run_reduce(dev, op, &plan, y, DevPtr::null(), ddof)?;
            }
            Ok(out)
        }
    }
}

// ------------------------------------------------------------------------------------------------
// CPU reference
// ------------------------------------------------------------------------------------------------

/// The elements of a CPU array with the axes `red` moved to the end, in C order (borrowed when the
/// array is already laid out so), with the row count and length.
fn cpu_rows<'a, T: Element>(
    a: &'a Array<T>,
    red: &[usize],
) -> Result<(Cow<'a, [T]>, usize, usize)> {
    let (nrows, r) = rows_of(&a.shape, red);
    let v = a.permute(&perm_to_end(a.ndim(), red))?;
    let n = a.size();
    let d = if n == 0 {
        Cow::Owned(Vec::new())
    } else if v.is_contiguous() {
        Cow::Borrowed(&host(a)[v.offset..v.offset + n])
    } else {
        Cow::Owned(gather(&v))
    };
    Ok((d, nrows, r))
}

/// Folds each row of `data` (`nrows` rows of `r` elements): `acc = comb(acc, map(x, j, row))` from
/// `ident(row)`, in order within chunks of [`CHUNK`] elements whose results are combined in order;
/// then `fin(acc, row)`. The result does not depend on the number of threads.
fn fold_rows<T, A, O>(
    data: &[T],
    nrows: usize,
    r: usize,
    ident: impl Fn(&[T]) -> A + Sync,
    map: impl Fn(T, usize, usize) -> A + Sync,
    comb: impl Fn(A, A) -> A + Sync,
    fin: impl Fn(A, usize) -> O + Sync,
) -> Vec<O>
where
    T: Copy + Sync,
    A: Copy + Send + Sync,
    O: Send,
{
    let seq = |chunk: &[T], base: usize, row: usize, init: A| {
        chunk
            .iter()
            .enumerate()
            .fold(init, |acc, (j, &x)| comb(acc, map(x, base + j, row)))
    };
    (0..nrows)
        .into_par_iter()
        .map(|i| {
            let row = &data[i * r..(i + 1) * r];
            let id = ident(row);
            let acc = if r <= CHUNK {
                seq(row, 0, i, id)
            } else {
                let parts: Vec<A> = row
                    .par_chunks(CHUNK)
                    .enumerate()
                    .map(|(c, ch)| seq(ch, c * CHUNK, i, id))
                    .collect();
                parts.into_iter().fold(id, &comb)
            };
            fin(acc, i)
        })
        .collect()
}

fn cumsum_cpu<T: Numeric>(a: &Array<T>, axis: usize) -> Result<Array<T>> {
    let (d, _, l) = cpu_rows(a, &[axis])?;
    let mut out = vec![T::zero(); d.len()];
    let lane = l.max(1);
    out.par_chunks_mut(lane)
        .zip(d.par_chunks(lane))
        .for_each(|(o, x)| {
            if T::DTYPE.is_integer() {
                let mut s = 0i64;
                for (o, &x) in o.iter_mut().zip(x) {
                    s = s.wrapping_add(x.to_i64());
                    *o = T::from_i64(s);
                }
            } else {
                let mut s = c64::new(0.0, 0.0);
                for (o, &x) in o.iter_mut().zip(x) {
                    s += x.to_c64();
                    *o = T::from_c64(s);
                }
            }
        });
    let perm = perm_to_end(a.ndim(), &[axis]);
    let pshape: Vec<usize> = perm.iter().map(|&p| a.shape[p as usize]).collect();
    let mut inv = vec![0isize; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[p as usize] = i as isize;
    }
    Array::from_vec(out, &pshape, &Device::Cpu)?
        .permute(&inv)?
        .contiguous()
}

// ------------------------------------------------------------------------------------------------
// CUDA
// ------------------------------------------------------------------------------------------------

const SRC: &str = include_str!("reduce.cu");
const MAXD: usize = 8;
const THREADS: u32 = 256;
/// Rows up to this length are reduced by one warp (or a group of lanes) each.
const WARP_ROW_MAX: usize = 1024;
/// Elements per slice at least, in the two-pass reduction.
const MIN_SLICE: usize = 2048;
/// Elements per block-scan chunk (RD_SCAN_CHUNK in reduce.cu).
const SCAN_CHUNK: usize = 2048;
/// Lanes up to this length are scanned by one warp each.
const WARP_LANE_MAX: usize = 256;
/// The largest grid used with grid-stride loops.
const MAX_GRID: usize = 1 << 20;

/// The GPU operations (each a struct template of reduce.cu).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GOp {
    Sum,
    Mean,
    MeanW,
    Norm,
    Var,
    Std,
    Min,
    Max,
    Argmin,
    Argmax,
}

const ALL_GOPS: [GOp; 10] = [
    GOp::Sum,
    GOp::Mean,
    GOp::MeanW,
    GOp::Norm,
    GOp::Var,
    GOp::Std,
    GOp::Min,
    GOp::Max,
    GOp::Argmin,
    GOp::Argmax,
];

impl GOp {
    fn name(self) -> &'static str {
        match self {
            GOp::Sum => "sum",
            GOp::Mean => "mean",
            GOp::MeanW => "meanw",
            GOp::Norm => "norm",
            GOp::Var => "var",
            GOp::Std => "std",
            GOp::Min => "min",
            GOp::Max => "max",
            GOp::Argmin => "argmin",
            GOp::Argmax => "argmax",
        }
    }
    fn strukt(self) -> &'static str {
        match self {
            GOp::Sum => "RdSum",
            GOp::Mean => "RdMean",
            GOp::MeanW => "RdMeanW",
            GOp::Norm => "RdNorm",
            GOp::Var => "RdVar",
            GOp::Std => "RdStd",
            GOp::Min => "RdMin",
            GOp::Max => "RdMax",
            GOp::Argmin => "RdArgmin",
            GOp::Argmax => "RdArgmax",
        }
    }
    /// The module (cache key part) and the operations compiled into it.
    fn module(self) -> (&'static str, &'static [GOp]) {
        match self {
            GOp::MeanW | GOp::Var | GOp::Std => ("var", &[GOp::MeanW, GOp::Var, GOp::Std]),
            GOp::Sum => ("sum", &[GOp::Sum]),
            GOp::Mean => ("mean", &[GOp::Mean]),
            GOp::Norm => ("norm", &[GOp::Norm]),
            GOp::Min => ("min", &[GOp::Min]),
            GOp::Max => ("max", &[GOp::Max]),
            GOp::Argmin => ("argmin", &[GOp::Argmin]),
            GOp::Argmax => ("argmax", &[GOp::Argmax]),
        }
    }
    /// Which element types the operation takes.
    fn accepts(self, t: DType) -> bool {
        match self {
            GOp::Sum => t != DType::Bool,
            GOp::Mean | GOp::MeanW | GOp::Norm | GOp::Var | GOp::Std => {
                t.is_real_float() || t.is_complex()
            }
            GOp::Min | GOp::Max | GOp::Argmin | GOp::Argmax => !t.is_complex(),
        }
    }
    /// The accumulator's CUDA type and size in bytes.
    fn acc(self, t: DType) -> (String, usize) {
        match self {
            GOp::Sum | GOp::Mean | GOp::MeanW => (wide(t).to_string(), wide_size(t)),
            GOp::Norm | GOp::Var | GOp::Std => ("double".into(), 8),
            GOp::Min | GOp::Max => match t {
                DType::U8 | DType::Bool => ("int".into(), 4),
                _ => (t.cuda_name().to_string(), t.size()),
            },
            GOp::Argmin | GOp::Argmax => (format!("RdPair<{}>", t.cuda_name()), 16),
        }
    }
    /// The output's CUDA type.
    fn out(self, t: DType) -> &'static str {
        match self {
            GOp::Sum | GOp::Mean | GOp::Min | GOp::Max => t.cuda_name(),
            GOp::MeanW => wide(t),
            GOp::Norm | GOp::Var | GOp::Std => match t {
                DType::F32 | DType::C32 => "float",
                _ => "double",
            },
            GOp::Argmin | GOp::Argmax => "i64",
        }
    }
}

/// The summation type of `t` in kernels (unsigned for integers: wrapping is defined there).
fn wide(t: DType) -> &'static str {
    match t {
        DType::F32 | DType::F64 => "double",
        DType::C32 | DType::C64 => "cplx64",
        DType::I64 => "u64",
        DType::I32 | DType::U8 | DType::Bool => "unsigned int",
    }
}

fn wide_size(t: DType) -> usize {
    match t {
        DType::F32 | DType::F64 | DType::I64 => 8,
        DType::C32 | DType::C64 => 16,
        DType::I32 | DType::U8 | DType::Bool => 4,
    }
}

fn sections() -> (&'static str, &'static str, &'static str) {
    let (lib, rest) = SRC.split_once("\n//@@REDUCE\n").unwrap_or((SRC, ""));
    let (red, scan) = rest.split_once("\n//@@SCAN\n").unwrap_or((rest, ""));
    (lib, red, scan)
}

fn substitute(section: &str, name: &str, op: &str, t: DType, acc: &str, out: &str) -> String {
    section
        .replace("{{NAME}}", name)
        .replace("{{OP}}", op)
        .replace("{{T}}", t.cuda_name())
        .replace("{{ACC}}", acc)
        .replace("{{OUT}}", out)
        .replace("{{W}}", wide(t))
        .replace("{{V}}", &(16 / t.size()).max(1).to_string())
}

fn kname(op: GOp, t: DType) -> String {
    format!("cusci_reduce_{}_{}", op.name(), t.tag())
}

fn reduce_source(ops: &[GOp], t: DType) -> String {
    let (lib, red, _) = sections();
    let mut s = lib.to_string();
    for &op in ops {
        let (acc, _) = op.acc(t);
        s.push_str(&substitute(
            red,
            &kname(op, t),
            op.strukt(),
            t,
            &acc,
            op.out(t),
        ));
    }
    s
}

fn scan_name(t: DType) -> String {
    format!("cusci_cumsum_{}", t.tag())
}

fn scan_source(t: DType) -> String {
    let (lib, _, scan) = sections();
    let mut s = lib.to_string();
    s.push_str(&substitute(
        scan,
        &scan_name(t),
        "",
        t,
        wide(t),
        t.cuda_name(),
    ));
    s
}

/// The reduction modules: one per operation group and element type (`Spec`: the element type,
/// and the index in `ALL_GOPS` of the group's first operation).
pub(crate) static REDUCE: KernelModule = KernelModule {
    name: "reduce",
    source: |s| {
        let op = usize::try_from(s.int(0)?)
            .ok()
            .and_then(|i| ALL_GOPS.get(i))
            .ok_or_else(|| Error::arg("reduce", "no such reduction group"))?;
        Ok(reduce_source(op.module().1, s.dtype(0)?))
    },
    options: &[],
    samples: || {
        let mut v = Vec::new();
        for t in DType::ALL {
            for op in ALL_GOPS {
                let spec = reduce_spec(op, t);
                if op.accepts(t) && !v.contains(&spec) {
                    v.push(spec);
                }
            }
        }
        v
    },
};

/// The cumulative-sum modules, one per element type (every type but bool).
pub(crate) static SCAN: KernelModule = KernelModule {
    name: "cumsum",
    source: |s| Ok(scan_source(s.dtype(0)?)),
    options: &[],
    samples: || {
        DType::ALL
            .iter()
            .filter(|&&t| t != DType::Bool)
            .map(|&t| Spec::of(&[t]))
            .collect()
    },
};

/// The specialisation of [`REDUCE`] that holds `op`'s kernels for `t`.
fn reduce_spec(op: GOp, t: DType) -> Spec {
    let first = op.module().1[0];
    let i = ALL_GOPS.iter().position(|&g| g == first).unwrap_or(0);
    Spec::of(&[t]).with(&[i as i64])
}

/// Outer dimensions as reduce.cu's `RdOuter`.
#[repr(C)]
#[derive(Clone, Copy)]
struct KOuter {
    ndim: i32,
    pad: i32,
    dims: [i64; MAXD],
    strides: [i64; MAXD],
}
// SAFETY: plain #[repr(C)] data laid out as reduce.cu's RdOuter (int, int, long long[], long long[]).
unsafe impl KernelParam for KOuter {}

fn kouter(dims: &[usize], strides: &[isize]) -> KOuter {
    let mut k = KOuter {
        ndim: dims.len() as i32,
        pad: 0,
        dims: [1; MAXD],
        strides: [0; MAXD],
    };
    for (i, (&d, &s)) in dims.iter().zip(strides).enumerate().take(MAXD) {
        k.dims[i] = d.max(1) as i64;
        k.strides[i] = s as i64;
    }
    k
}

/// How a reduction reads its input on the GPU: `nrows` rows of `r` elements, row `i` starting at
/// element offset `rd_off(outer, i)` from the first element of `src`, element `j` of a row at
/// `j * rs` from there.
struct GPlan<T: Element> {
    /// The input or a contiguous copy of it.
    src: Array<T>,
    outer: KOuter,
    nrows: usize,
    r: usize,
    rs: i64,
    /// Read as columns: one thread per output, outputs adjacent in memory.
    col: bool,
}

fn gplan<T: Element>(a: &Array<T>, red: &[usize]) -> Result<GPlan<T>> {
    let (nrows, r) = rows_of(&a.shape, red);
    let kept: Vec<usize> = (0..a.ndim()).filter(|d| !red.contains(d)).collect();
    let ks: Vec<usize> = kept.iter().map(|&d| a.shape[d]).collect();
    let kst: Vec<isize> = kept.iter().map(|&d| a.strides[d]).collect();
    let rsh: Vec<usize> = red.iter().map(|&d| a.shape[d]).collect();
    let rst: Vec<isize> = red.iter().map(|&d| a.strides[d]).collect();
    let (rd, rstr) = coalesce(&rsh, &[rst]);
    let (kd, kstr) = coalesce(&ks, &[kst]);
    if rd.len() == 1 && kd.len() <= MAXD {
        let rs = rstr[0][0] as i64;
        let kin = *kstr[0].last().unwrap_or(&0);
        let col = rs != 1 && r > 1 && kin == 1 && *kd.last().unwrap_or(&0) >= 32;
        return Ok(GPlan {
            src: a.clone(),
            outer: kouter(&kd, &kstr[0]),
            nrows,
            r,
            rs,
            col,
        });
    }
    // the reduced block is not one strided run (or too many outer dimensions): copy it so
    let c = a.permute(&perm_to_end(a.ndim(), red))?.contiguous()?;
    Ok(GPlan {
        src: c,
        outer: kouter(&[nrows], &[r as isize]),
        nrows,
        r,
        rs: 1,
        col: false,
    })
}

fn grid2(x: usize, y: usize) -> LaunchConfig {
    LaunchConfig {
        grid: (
            x.clamp(1, u32::MAX as usize) as u32,
            y.clamp(1, 65535) as u32,
            1,
        ),
        block: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Queues `op` over the rows of `p`, writing one output per row at `y` (`aux`: the per-row means of
/// var/std; `ddof`: their divisor's offset).
fn run_reduce<T: Element>(
    dev: &CudaDevice,
    op: GOp,
    p: &GPlan<T>,
    mut y: DevPtrMut<'_, u8>,
    aux: DevPtr<'_, u8>,
    ddof: usize,
) -> Result<()> {
    let t = T::DTYPE;
    let x = p.src.dev_ptr()?;
    if p.nrows == 0 {
        return Ok(());
    }
    if !op.accepts(t) {
        return Err(Error::dtype(op.name(), t));
    }
    let spec = reduce_spec(op, t);
    let name = kname(op, t);
    let get = |kind: &str| REDUCE.function(dev, &spec, &format!("{name}_{kind}"));
    let (_, acc_size) = op.acc(t);
    let sms = dev.props().multiprocessors.max(1);
    let (nrows, r) = (p.nrows as i64, p.r as i64);
    let ddof = ddof.min(i64::MAX as usize) as i64;

    if p.col {
        // one thread per output, blocks of THREADS / span slices of span outputs; the reduced axis
        // split into s slices of l when outputs are few
        let span = p.nrows.next_power_of_two().clamp(32, THREADS as usize);
        let per_block = THREADS as usize / span;
        let s0 = (sms * 2048)
            .div_ceil(p.nrows)
            .clamp(1, p.r.div_ceil(32).max(1))
            .min(65535 * per_block);
        let l = p.r.div_ceil(s0);
        let s = p.r.div_ceil(l);
        let gx = p.nrows.div_ceil(span).min(MAX_GRID);
        let f = get("col")?;
        let mut part = if s > 1 {
            Some(DeviceBuffer::alloc(dev, s * p.nrows * acc_size)?)
        } else {
            None
        };
        // many slices (few outputs): partials [nout, s], one block per output combines them;
        // else partials [s, nout], one thread per output
        let by_block = s > 64;
        let (ps, po) = if by_block { (1, s as i64) } else { (nrows, 1) };
        let launch = dev.launch(&f, grid2(gx, s.div_ceil(per_block))).arg(x);
        let launch = match part.as_mut() {
            Some(b) => launch.arg(b.dev_ptr_mut()),
            None => launch.arg(&mut y),
        };
        launch
            .arg(p.outer)
            .arg(nrows)
            .arg(r)
            .arg(p.rs)
            .arg(l as i64)
            .arg(s as i64)
            .arg(aux)
            .arg(ddof)
            .arg(span as i32)
            .arg(ps)
            .arg(po)
            .run()?;
        if let Some(part) = &part {
            let f = get(if by_block { "fin" } else { "colfin" })?;
            let g = if by_block {
                p.nrows.min(MAX_GRID)
            } else {
                p.nrows.div_ceil(THREADS as usize).min(MAX_GRID)
            };
            dev.launch(&f, grid2(g, 1))
                .arg(part.dev_ptr())
                .arg(y)
                .arg(nrows)
                .arg(s as i64)
                .arg(r)
                .arg(ddof)
                .run()?;
        }
        return Ok(());
    }

    if p.r <= WARP_ROW_MAX {
        // groups of g lanes per row, each lane with about 4 loads (vectors when contiguous)
        let v = if p.rs == 1 { 16 / t.size().max(1) } else { 1 };
        let g = p.r.div_ceil(v).div_ceil(4).next_power_of_two().clamp(1, 32);
        let f = get("warp")?;
        let rows_per_block = (THREADS as usize / 32) * (32 / g);
        let blocks = p.nrows.div_ceil(rows_per_block).min(sms * 64).min(MAX_GRID);
        return dev
            .launch(&f, grid2(blocks, 1))
            .arg(x)
            .arg(y)
            .arg(p.outer)
            .arg(nrows)
            .arg(r)
            .arg(p.rs)
            .arg(aux)
            .arg(ddof)
            .arg(g as i32)
            .run();
    }
    let fpart = get("part")?;
    let target = sms * fpart.occupancy(THREADS, 0)?.max(1) as usize;
    let s = if p.nrows >= target || p.nrows > 65535 {
        1
    } else {
        target.div_ceil(p.nrows).min(p.r.div_ceil(MIN_SLICE))
    };
    if s <= 1 {
        let f = get("block")?;
        return dev
            .launch(&f, grid2(p.nrows.min(MAX_GRID), 1))
            .arg(x)
            .arg(y)
            .arg(p.outer)
            .arg(nrows)
            .arg(r)
            .arg(p.rs)
            .arg(aux)
            .arg(ddof)
            .run();
    }
    // two passes: s slices of l elements per row (l a multiple of 64), then one block per row
    let l = p.r.div_ceil(s).div_ceil(64) * 64;
    let s = p.r.div_ceil(l);
    let mut part = DeviceBuffer::alloc(dev, s * p.nrows * acc_size)?;
    dev.launch(&fpart, grid2(s, p.nrows))
        .arg(x)
        .arg(part.dev_ptr_mut())
        .arg(p.outer)
        .arg(nrows)
        .arg(r)
        .arg(p.rs)
        .arg(l as i64)
        .arg(s as i64)
        .arg(aux)
        .run()?;
    let f = get("fin")?;
    dev.launch(&f, grid2(p.nrows.min(MAX_GRID), 1))
        .arg(part.dev_ptr())
        .arg(y)
        .arg(nrows)
        .arg(s as i64)
        .arg(r)
        .arg(ddof)
        .run()
}

fn cumsum_cuda<T: Numeric>(dev: &CudaDevice, a: &Array<T>, axis: usize) -> Result<Array<T>> {
    let mut out = Array::<T>::alloc("cumsum", &a.shape, &a.device)?;
    if a.size() == 0 {
        return Ok(out);
    }
    let t = T::DTYPE;
    let cst = c_strides(&a.shape);
    let kept: Vec<usize> = (0..a.ndim()).filter(|&d| d != axis).collect();
    let ks: Vec<usize> = kept.iter().map(|&d| a.shape[d]).collect();
    let layout = |src: &Array<T>| {
        let ist: Vec<isize> = kept.iter().map(|&d| src.strides[d]).collect();
        let ost: Vec<isize> = kept.iter().map(|&d| cst[d]).collect();
        coalesce(&ks, &[ist, ost])
    };
    let mut src = a.clone();
    let (mut kd, mut kst) = layout(&src);
    if kd.len() > MAXD {
        src = a.contiguous()?;
        (kd, kst) = layout(&src);
    }
    let oin = kouter(&kd, &kst[0]);
    let oout = kouter(&kd, &kst[1]);
    let x = src.dev_ptr()?;
    let mut y = out.dev_ptr_mut()?;
    let l = a.shape[axis];
    let nl = a.size() / l;
    let (rs, os) = (src.strides[axis] as i64, cst[axis] as i64);
    let spec = Spec::of(&[t]);
    let name = scan_name(t);
    let get = |kind: &str| SCAN.function(dev, &spec, &format!("{name}_{kind}"));
    let sms = dev.props().multiprocessors.max(1);
    // the lanes' arguments, shared by the warp, lane and fix kernels
    let lanes = |f, cfg, y| {
        dev.launch(f, cfg)
            .arg(x)
            .arg(y)
            .arg(oin)
            .arg(oout)
            .arg(nl as i64)
            .arg(l as i64)
            .arg(rs)
            .arg(os)
    };
    if l <= WARP_LANE_MAX {
        let f = get("warp")?;
        let g = nl
            .div_ceil(THREADS as usize / 32)
            .min(sms * 64)
            .min(MAX_GRID);
        lanes(&f, grid2(g, 1), &mut y).run()?;
        return Ok(out);
    }
    if nl >= sms * 2 || l <= 8 * SCAN_CHUNK || nl > 65535 {
        let f = get("lane")?;
        lanes(&f, grid2(nl.min(MAX_GRID), 1), &mut y).run()?;
        return Ok(out);
    }
    // long lanes: chunk sums, their exclusive scan, then each chunk from its prefix
    let nch = l.div_ceil(SCAN_CHUNK);
    let mut sums = DeviceBuffer::alloc(dev, nl * nch * wide_size(t))?;
    let f = get("sums")?;
    dev.launch(&f, grid2(nch, nl))
        .arg(x)
        .arg(sums.dev_ptr_mut())
        .arg(oin)
        .arg(nl as i64)
        .arg(l as i64)
        .arg(rs)
        .arg(nch as i64)
        .run()?;
    let f = get("excl")?;
    dev.launch(&f, grid2(nl, 1))
        .arg(sums.dev_ptr_mut())
        .arg(nl as i64)
        .arg(nch as i64)
        .run()?;
    let f = get("fix")?;
    lanes(&f, grid2(nch, nl), &mut y)
        .arg(sums.dev_ptr())
        .arg(nch as i64)
        .run()?;
    Ok(out)
}
