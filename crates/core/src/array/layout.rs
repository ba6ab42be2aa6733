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

/// The number of elements of `shape` (1 for a 0-d shape), or an error past `isize::MAX`.
pub fn checked_numel(op: &str, shape: &[usize]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| Error::arg(op, format!("shape {shape:?} has too many elements")))
}

/// True when `strides` describe C-contiguous data for `shape` (axes of length 1 ignored).
pub fn is_c_contiguous(shape: &[usize], strides: &[isize]) -> bool {
    let mut acc = 1isize;
    for d in (0..shape.len()).rev() {
        if shape[d] == 0 {
            return true;
        }
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
