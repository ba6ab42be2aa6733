//! The CPU reference of the reductions and the scan (rayon): rows folded in chunks of a fixed
//! size whose results are combined in a fixed order, whatever the number of threads.

use super::{perm_to_end, rows_of};
use crate::array::Array;
use crate::cpu::{gather, host, StridedReader, CHUNK};
use crate::device::Device;
use crate::dtype::{c64, Element, Numeric, Ordered};
use crate::error::Result;
use rayon::prelude::*;
use std::borrow::Cow;

pub(super) fn cpu_means<T: Element>(d: &Rows<'_, T>, nrows: usize, r: usize) -> Result<Vec<c64>> {
    fold_rows(
        "mean",
        d,
        (nrows, r),
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

/// The rows of a CPU array with the axes `red` moved to the end: a slice when the array is laid
/// out so, else read in runs from the strided layout (never gathered whole: a reduction over a
/// huge view, a broadcast for instance, uses memory bounded by its chunks).
pub(super) enum Rows<'a, T> {
    Flat(&'a [T]),
    Strided(StridedReader<'a, T>),
}

impl<T: Element> Rows<'_, T> {
    /// Elements `start..start + len` of the rows in C order (read into `buf` when strided).
    fn get<'s>(&'s self, start: usize, len: usize, buf: &'s mut Vec<T>) -> &'s [T] {
        match self {
            Rows::Flat(d) => &d[start..start + len],
            Rows::Strided(rd) => {
                buf.clear();
                buf.resize(len, T::zero());
                rd.read(start, buf);
                buf
            }
        }
    }
}

/// The rows of a CPU array for the reduction over `red`, with the row count and length.
pub(super) fn cpu_rows<'a, T: Element>(
    a: &'a Array<T>,
    red: &[usize],
) -> Result<(Rows<'a, T>, usize, usize)> {
    let (nrows, r) = rows_of(&a.shape, red);
    let v = a.permute(&perm_to_end(a.ndim(), red))?;
    let n = a.size();
    let src = host(a);
    let rows = if n == 0 {
        Rows::Flat(&[])
    } else if v.is_contiguous() {
        Rows::Flat(&src[v.offset..v.offset + n])
    } else {
        Rows::Strided(StridedReader::from_layout(
            src, &v.shape, &v.strides, v.offset,
        ))
    };
    Ok((rows, nrows, r))
}

/// Chunks of a long row whose partial results are computed in parallel at a time (and then
/// folded in order), so that the partial results of a huge row take bounded memory.
const BATCH: usize = 1024;

/// Folds each row (`nrows` rows of `r` elements, given as one pair): `acc = comb(acc, map(x, j, row))` from
/// `ident(first chunk of the row)`, in order within chunks of [`CHUNK`] elements whose results are
/// combined in order; then `fin(acc, row)`. The result does not depend on the number of threads.
/// The output is allocated first (`OutOfMemory` or `InvalidArgument` from [`crate::host`]).
pub(super) fn fold_rows<T, A, O>(
    op: &str,
    rows: &Rows<'_, T>,
    (nrows, r): (usize, usize),
    ident: impl Fn(&[T]) -> A + Sync,
    map: impl Fn(T, usize, usize) -> A + Sync,
    comb: impl Fn(A, A) -> A + Sync,
    fin: impl Fn(A, usize) -> O + Sync,
) -> Result<Vec<O>>
where
    T: Element,
    A: Copy + Send + Sync,
    O: Send,
{
    let mut out = crate::host::try_with_capacity(op, nrows)?;
    let seq = |chunk: &[T], base: usize, row: usize, init: A| {
        chunk
            .iter()
            .enumerate()
            .fold(init, |acc, (j, &x)| comb(acc, map(x, base + j, row)))
    };
    let row_acc = |buf: &mut Vec<T>, i: usize| -> A {
        let base = i * r;
        if r <= CHUNK {
            let row = rows.get(base, r, buf);
            return seq(row, 0, i, ident(row));
        }
        let id = ident(rows.get(base, CHUNK, buf));
        let nch = r.div_ceil(CHUNK);
        let mut acc = id;
        for b0 in (0..nch).step_by(BATCH) {
            let parts: Vec<A> = (b0..(b0 + BATCH).min(nch))
                .into_par_iter()
                .map_init(Vec::new, |buf, c| {
                    let len = CHUNK.min(r - c * CHUNK);
                    seq(rows.get(base + c * CHUNK, len, buf), c * CHUNK, i, id)
                })
                .collect();
            acc = parts.into_iter().fold(acc, &comb);
        }
        acc
    };
    out.par_extend(
        (0..nrows)
            .into_par_iter()
            .map_init(Vec::new, |buf, i| fin(row_acc(buf, i), i)),
    );
    Ok(out)
}

pub(super) fn cumsum_cpu<T: Numeric>(a: &Array<T>, axis: usize) -> Result<Array<T>> {
    let l = a.shape[axis];
    let v = a.permute(&perm_to_end(a.ndim(), &[axis]))?;
    let d: Cow<'_, [T]> = if v.is_contiguous() {
        Cow::Borrowed(&host(a)[v.offset..v.offset + v.size()])
    } else {
        Cow::Owned(gather(&v)?)
    };
    let mut out: Vec<T> = crate::host::try_vec_zeroed("cumsum", d.len())?;
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
