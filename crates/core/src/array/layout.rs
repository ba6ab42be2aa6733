//! Shapes and strides: contiguity, broadcasting, axis normalisation, dimension coalescing.

use crate::error::{Error, Result};

/// C-order (row-major) strides, in elements, of `shape`.
pub fn c_strides(shape: &[usize]) -> Vec<isize> {
    let mut s = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for d in (0..shape.len()).rev() {
        s[d] = acc;
        acc = acc.saturating_mul(shape[d].max(1) as isize);
    }
    s
}

// ---------- the size discipline ----------
//
// Every shape product, byte count, output length and index range of cusci is computed by the
// checked helpers below: a size that does not fit is `InvalidArgument` (as NumPy's "array is too
// big" and "Maximum allowed size exceeded"), never a wrap. Allocation then goes through
// [`crate::host`] (CPU) or the device pool (GPU), which report `OutOfMemory`.

/// The product of the nonzero axes of `shape` when it fits in `isize::MAX` (NumPy checks the same
/// product: a zero-length axis does not excuse the others).
fn nonzero_product(shape: &[usize]) -> Option<usize> {
    shape
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .filter(|&n| n <= isize::MAX as usize)
}

/// The number of elements of `shape` (1 for a 0-d shape, 0 with a zero-length axis), or
/// `InvalidArgument` when the product of its nonzero axes passes `isize::MAX` (NumPy: a shape
/// such as `(0, 2**62, 2**62)` is "too big" although it has no elements).
pub fn checked_numel(op: &str, shape: &[usize]) -> Result<usize> {
    let nz = nonzero_product(shape)
        .ok_or_else(|| Error::arg(op, format!("shape {shape:?} has too many elements")))?;
    Ok(if shape.contains(&0) { 0 } else { nz })
}

/// `n` elements of `elem_size` bytes in bytes, or `InvalidArgument` past `isize::MAX` (no address
/// space holds more; NumPy: "array is too big").
pub fn checked_bytes(op: &str, n: usize, elem_size: usize) -> Result<usize> {
    n.checked_mul(elem_size)
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| {
            Error::arg(
                op,
                format!(
                    "array is too big: {n} elements of {elem_size} bytes pass isize::MAX bytes"
                ),
            )
        })
}

/// The element count of `shape` after checking that its bytes fit (elements of `elem_size`
/// bytes; the nonzero axes counted as NumPy does, so that `(0, 2**62)` of f64 is too big). Every
/// array, view or not, satisfies this, so `size()`, partial products of its axes and byte
/// offsets never wrap.
///
/// # Errors
/// `InvalidArgument` as [`checked_numel`] and [`checked_bytes`].
pub fn checked_shape(op: &str, shape: &[usize], elem_size: usize) -> Result<usize> {
    let n = checked_numel(op, shape)?;
    let nz = nonzero_product(shape).unwrap_or(usize::MAX);
    checked_bytes(op, nz, elem_size).map_err(|_| {
        Error::arg(
            op,
            format!("array is too big: shape {shape:?} of {elem_size}-byte elements passes isize::MAX bytes"),
        )
    })?;
    Ok(n)
}

/// `a * b`, or `InvalidArgument` naming `what` when it overflows.
pub fn checked_mul(op: &str, a: usize, b: usize, what: &str) -> Result<usize> {
    a.checked_mul(b)
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| Error::arg(op, format!("{what} {a} * {b} is too large")))
}

/// `a + b`, or `InvalidArgument` naming `what` when it overflows.
pub fn checked_add(op: &str, a: usize, b: usize, what: &str) -> Result<usize> {
    a.checked_add(b)
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| Error::arg(op, format!("{what} {a} + {b} is too large")))
}

/// A length computed in floating point (already rounded as wanted, e.g. `ceil`): negative counts
/// are 0, NaN or a count past `isize::MAX` is `InvalidArgument` (NumPy's "Maximum allowed size
/// exceeded").
pub fn len_from_f64(op: &str, x: f64) -> Result<usize> {
    if x.is_nan() || x >= isize::MAX as f64 {
        return Err(Error::arg(
            op,
            format!("length {x} is not a valid array length (maximum allowed size exceeded)"),
        ));
    }
    Ok(if x <= 0.0 { 0 } else { x as usize })
}

/// The first index and length of Python's slice `start:stop:step` of an axis of length `n`
/// (negative bounds count from the end, out-of-range ones are clamped; `step != 0`). Computed in
/// 128 bits, so `step = ±isize::MAX` gives one element as in NumPy.
pub fn slice_range(
    n: usize,
    start: Option<isize>,
    stop: Option<isize>,
    step: isize,
) -> (usize, usize) {
    let n = n as i128;
    let step = step as i128;
    let fix = |v: Option<isize>, def: i128| -> i128 {
        match v {
            None => def,
            Some(v) => {
                let v = v as i128;
                let v = if v < 0 { v + n } else { v };
                if step > 0 {
                    v.clamp(0, n)
                } else {
                    v.clamp(-1, n - 1)
                }
            }
        }
    };
    let (s, e) = if step > 0 {
        (fix(start, 0), fix(stop, n))
    } else {
        (fix(start, n - 1), fix(stop, -1))
    };
    let len = if step > 0 && e > s {
        (e - s + step - 1) / step
    } else if step < 0 && s > e {
        (s - e - step - 1) / (-step)
    } else {
        0
    };
    if len == 0 {
        return (0, 0);
    }
    (s as usize, len as usize)
}

/// True when `strides` describe C-contiguous data for `shape` (axes of length 1 ignored; an
/// empty shape is contiguous whatever its strides, as NumPy's flags say).
pub fn is_c_contiguous(shape: &[usize], strides: &[isize]) -> bool {
    // checked before the loop: a zero-length leading axis makes any trailing strides contiguous
    if shape.contains(&0) {
        return true;
    }
    let mut acc = 1isize;
    for d in (0..shape.len()).rev() {
        if shape[d] != 1 {
            if strides[d] != acc {
                return false;
            }
            acc *= shape[d] as isize;
        }
    }
    true
}

/// Normalises a possibly negative axis against `ndim`.
pub fn norm_axis(op: &str, axis: isize, ndim: usize) -> Result<usize> {
    let a = if axis < 0 { axis + ndim as isize } else { axis };
    if a < 0 || a >= ndim as isize {
        return Err(Error::arg(
            op,
            format!("axis {axis} is out of range for an array of {ndim} dimensions"),
        ));
    }
    Ok(a as usize)
}

/// Normalises a list of axes: each in range, none repeated; returned sorted.
pub fn norm_axes(op: &str, axes: &[isize], ndim: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = norm_axis(op, a, ndim)?;
        if out.contains(&n) {
            return Err(Error::arg(op, format!("axis {a} is repeated in {axes:?}")));
        }
        out.push(n);
    }
    out.sort_unstable();
    Ok(out)
}

/// NumPy's broadcast of two shapes.
///
/// # Errors
/// `ShapeMismatch` when they do not broadcast, `InvalidArgument` when the result has too many
/// elements ([`checked_numel`]).
pub fn broadcast_shapes(op: &str, a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(Error::shape(
                op,
                format!("shapes {a:?} and {b:?} cannot be broadcast together"),
            ));
        };
    }
    checked_numel(op, &out)?;
    Ok(out)
}

/// Strides that view data of (`shape`, `strides`) as `target` (which `shape` broadcasts to).
pub fn broadcast_strides(
    op: &str,
    shape: &[usize],
    strides: &[isize],
    target: &[usize],
) -> Result<Vec<isize>> {
    if shape.len() > target.len() {
        return Err(Error::shape(
            op,
            format!("shape {shape:?} cannot be broadcast to {target:?}"),
        ));
    }
    let lead = target.len() - shape.len();
    let mut out = vec![0isize; target.len()];
    for i in 0..shape.len() {
        let t = target[lead + i];
        if shape[i] == t {
            out[lead + i] = if t == 1 { 0 } else { strides[i] };
        } else if shape[i] == 1 {
            out[lead + i] = 0;
        } else {
            return Err(Error::shape(
                op,
                format!("shape {shape:?} cannot be broadcast to {target:?}"),
            ));
        }
    }
    Ok(out)
}

/// Merges adjacent dimensions that every operand traverses as one (and drops length-1 axes), so
/// that kernels index as few dimensions as possible. Returns the new shape and each operand's
/// strides. A shape with no elements or no dimensions comes back as `[n]`.
pub fn coalesce(shape: &[usize], strides: &[Vec<isize>]) -> (Vec<usize>, Vec<Vec<isize>>) {
    let k = strides.len();
    let mut dims: Vec<usize> = Vec::new();
    let mut st: Vec<Vec<isize>> = vec![Vec::new(); k];
    for d in 0..shape.len() {
        if shape[d] == 1 {
            continue;
        }
        if let Some(&last) = dims.last() {
            let mergeable =
                (0..k).all(|j| *st[j].last().unwrap_or(&0) == strides[j][d] * shape[d] as isize);
            if mergeable {
                let l = dims.len() - 1;
                dims[l] = last * shape[d];
                for (j, s) in st.iter_mut().enumerate() {
                    let l = s.len() - 1;
                    s[l] = strides[j][d];
                }
                continue;
            }
        }
        dims.push(shape[d]);
        for (j, s) in st.iter_mut().enumerate() {
            s.push(strides[j][d]);
        }
    }
    if dims.is_empty() || shape.contains(&0) {
        let n = shape.iter().product();
        return (vec![n], vec![vec![1]; k]);
    }
    (dims, st)
}

/// The smallest and largest element offsets reachable from `offset` (for bounds checks).
pub fn offset_range(shape: &[usize], strides: &[isize], offset: usize) -> (isize, isize) {
    let mut lo = offset as isize;
    let mut hi = offset as isize;
    if shape.contains(&0) {
        return (lo, lo - 1);
    }
    for (&d, &s) in shape.iter().zip(strides) {
        let ext = s * (d as isize - 1);
        if ext < 0 {
            lo += ext
        } else {
            hi += ext
        }
    }
    (lo, hi)
}
