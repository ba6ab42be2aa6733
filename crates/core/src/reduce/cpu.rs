//! The CPU reference of the reductions and the scan (rayon): rows folded in chunks of a fixed
//! size whose results are combined in a fixed order, whatever the number of threads.

use super::{perm_to_end, rows_of};
use crate::array::Array;
use crate::cpu::{gather, host, CHUNK};
use crate::device::Device;
use crate::dtype::{c64, Element, Numeric, Ordered};
use crate::error::Result;
use rayon::prelude::*;
use std::borrow::Cow;

pub(super) fn cpu_means<T: Element>(d: &[T], nrows: usize, r: usize) -> Vec<c64> {
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

/// NumPy's `maximum` (NaN propagates); on ties the second, as the CUDA side.
pub(super) fn nan_max<T: Ordered>(a: T, b: T) -> T {
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
pub(super) fn nan_min<T: Ordered>(a: T, b: T) -> T {
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
pub(super) fn pick<T: Ordered>(a: (T, usize), b: (T, usize), max: bool) -> (T, usize) {
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

/// The elements of a CPU array with the axes `red` moved to the end, in C order (borrowed when the
/// array is already laid out so), with the row count and length.
pub(super) fn cpu_rows<'a, T: Element>(
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
pub(super) fn fold_rows<T, A, O>(
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

pub(super) fn cumsum_cpu<T: Numeric>(a: &Array<T>, axis: usize) -> Result<Array<T>> {
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
