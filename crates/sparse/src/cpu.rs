//! The CPU reference: plain loops, parallel over rows with rayon. Sums run in a fixed order (the
//! order of the stored entries), so results do not depend on the thread count.

use crate::SpIndex;
use cusci_core::{Float, Numeric};
use rayon::prelude::*;

/// Structure flags of a CSR index set, as the CUDA check (`fm_csr_check`) computes them:
/// 1 indptr not monotone or outside [0, nnz], 2 an index out of bounds, 4 bad end points,
/// 8 not canonical (unsorted or repeated indices within a row).
pub(crate) fn csr_check<I: SpIndex>(indptr: &[I], indices: &[I], n: usize, nnz: usize) -> i32 {
    let m = indptr.len() - 1;
    let mut f = 0;
    if indptr[0] != I::zero() || indptr[m].to_i64() != nnz as i64 {
        f |= 4;
    }
    for r in 0..m {
        let (s, e) = (indptr[r].to_i64(), indptr[r + 1].to_i64());
        if e < s || s < 0 || e > nnz as i64 {
            f |= 1;
            continue;
        }
        for j in s as usize..e as usize {
            let c = indices[j].to_i64();
            if c < 0 || c >= n as i64 {
                f |= 2;
            }
            if j > s as usize && indices[j] <= indices[j - 1] {
                f |= 8;
            }
        }
    }
    f
}

/// Splits `v` into the row segments of `indptr` (valid, monotone).
fn row_segments<'a, U, I: SpIndex>(mut v: &'a mut [U], indptr: &[I]) -> Vec<&'a mut [U]> {
    let mut out = Vec::with_capacity(indptr.len().saturating_sub(1));
    for w in indptr.windows(2) {
        let (a, b) = std::mem::take(&mut v).split_at_mut(w[1].ix() - w[0].ix());
        out.push(a);
        v = b;
    }
    out
}

/// An exclusive-to-inclusive running sum in place: `p[i + 1] += p[i]`.
fn scan<I: SpIndex>(p: &mut [I]) {
    for i in 1..p.len() {
        p[i] = p[i].add(p[i - 1]);
    }
}

/// `n + 1` zeros of the index type, for an index pointer: `InvalidArgument` when `n + 1` does not
/// fit, `OutOfMemory` when the host cannot hold it (a 2^44-row matrix with a few entries is
/// valid, but its index pointer is not allocatable; `vec!` aborted the process).
fn index_pointer<I: SpIndex>(op: &str, n: usize) -> cusci_core::Result<Vec<I>> {
    let len = cusci_core::array::layout::checked_add(op, n, 1, "index pointer length")?;
    cusci_core::host::try_vec_zeroed(op, len)
}

/// COO to canonical CSR: entries bucketed by row (stable), each row sorted by (column, original
/// position), duplicates summed left to right in that order. Indices must be in bounds.
///
/// # Errors
/// `InvalidArgument` or `OutOfMemory` when the index pointer of `m` rows cannot be held.
pub(crate) fn coo_to_csr<T: Numeric, I: SpIndex>(
    m: usize,
    rows: &[I],
    cols: &[I],
    vals: &[T],
) -> cusci_core::Result<(Vec<I>, Vec<I>, Vec<T>)> {
    let nnz = rows.len();
    let mut indptr = index_pointer::<I>("tocsr", m)?;
    for &r in rows {
        indptr[r.ix() + 1] = indptr[r.ix() + 1].add(I::one());
    }
    scan(&mut indptr);
    let mut fill: Vec<usize> =
        cusci_core::host::try_collect("tocsr", m + 1, indptr.iter().map(|v| v.ix()))?;
    let mut b: Vec<(I, T)> = vec![(I::zero(), T::zero()); nnz];
    for i in 0..nnz {
        let r = rows[i].ix();
        b[fill[r]] = (cols[i], vals[i]);
        fill[r] += 1;
    }
    // stable sort by column keeps the original order among equal columns
    let mut counts = index_pointer::<I>("tocsr", m)?;
    row_segments(&mut b, &indptr)
        .into_par_iter()
        .zip(counts[1..].par_iter_mut())
        .for_each(|(seg, c)| {
            seg.sort_by_key(|e| e.0);
            let mut u = 0;
            for j in 0..seg.len() {
                if j == 0 || seg[j].0 != seg[j - 1].0 {
                    u += 1;
                }
            }
            *c = I::of(u);
        });
    scan(&mut counts);
    let total = counts[m].ix();
    let mut oc = vec![I::zero(); total];
    let mut ov = vec![T::zero(); total];
    let segs_b = row_segments(&mut b, &indptr);
    let segs_c = row_segments(&mut oc, &counts);
    let segs_v = row_segments(&mut ov, &counts);
    segs_b
        .into_par_iter()
        .zip(segs_c.into_par_iter().zip(segs_v.into_par_iter()))
        .for_each(|(seg, (c, v))| {
            let mut o = usize::MAX;
            for j in 0..seg.len() {
                if j == 0 || seg[j].0 != seg[j - 1].0 {
                    o = o.wrapping_add(1);
                    c[o] = seg[j].0;
                    v[o] = seg[j].1;
                } else {
                    v[o] = v[o].add(seg[j].1);
                }
            }
        });
    Ok((counts, oc, ov))
}

/// y = A x.
pub(crate) fn spmv<T: Numeric, I: SpIndex>(
    indptr: &[I],
    indices: &[I],
    data: &[T],
    x: &[T],
) -> Vec<T> {
    let m = indptr.len() - 1;
    let mut y = vec![T::zero(); m];
    y.par_iter_mut().enumerate().for_each(|(r, yr)| {
        let mut acc = T::zero();
        for j in indptr[r].ix()..indptr[r + 1].ix() {
            acc = acc.add(data[j].mul(x[indices[j].ix()]));
        }
        *yr = acc;
    });
    y
}

/// Y = A X with X (n x k) and Y (m x k) row-major.
pub(crate) fn spmm<T: Numeric, I: SpIndex>(
    indptr: &[I],
    indices: &[I],
    data: &[T],
    x: &[T],
    k: usize,
) -> Vec<T> {
    let m = indptr.len() - 1;
    let mut y = vec![T::zero(); m * k];
    if k == 0 {
        return y;
    }
    y.par_chunks_mut(k).enumerate().for_each(|(r, yr)| {
        for j in indptr[r].ix()..indptr[r + 1].ix() {
            let a = data[j];
            let xr = &x[indices[j].ix() * k..][..k];
            for (o, &xv) in yr.iter_mut().zip(xr) {
                *o = o.add(a.mul(xv));
            }
        }
    });
    y
}

/// The CSR arrays of the transpose of an m x n CSR matrix (a stable counting sort by column:
/// rows come out sorted within each column).
///
/// # Errors
/// `InvalidArgument` or `OutOfMemory` when the index pointer of `n` columns cannot be held.
pub(crate) fn transpose<T: Numeric, I: SpIndex>(
    n: usize,
    indptr: &[I],
    indices: &[I],
    data: &[T],
) -> cusci_core::Result<(Vec<I>, Vec<I>, Vec<T>)> {
    let m = indptr.len() - 1;
    let nnz = data.len();
    let mut tp = index_pointer::<I>("tocsc", n)?;
    for &c in indices {
        tp[c.ix() + 1] = tp[c.ix() + 1].add(I::one());
    }
    scan(&mut tp);
    let mut fill: Vec<usize> =
        cusci_core::host::try_collect("tocsc", n + 1, tp.iter().map(|v| v.ix()))?;
    let mut ti = vec![I::zero(); nnz];
    let mut td = vec![T::zero(); nnz];
    for r in 0..m {
        for j in indptr[r].ix()..indptr[r + 1].ix() {
            let c = indices[j].ix();
            let p = fill[c];
            ti[p] = I::of(r);
            td[p] = data[j];
            fill[c] += 1;
        }
    }
    Ok((tp, ti, td))
}

/// The dense row-major m x n matrix (duplicates summed).
pub(crate) fn todense<T: Numeric, I: SpIndex>(
    n: usize,
    indptr: &[I],
    indices: &[I],
    data: &[T],
) -> cusci_core::Result<Vec<T>> {
    let m = indptr.len().saturating_sub(1);
    // checked and fallible: a huge shape is an error, not an abort
    let mn = cusci_core::array::layout::checked_numel("toarray", &[m, n])?;
    let mut out = cusci_core::host::try_vec_zeroed::<T>("toarray", mn)?;
    if n == 0 {
        return Ok(out);
    }
    out.par_chunks_mut(n).enumerate().for_each(|(r, row)| {
        for j in indptr[r].ix()..indptr[r + 1].ix() {
            let c = indices[j].ix();
            row[c] = row[c].add(data[j]);
        }
    });
    Ok(out)
}

/// CSR arrays of a dense row-major m x n matrix (its nonzero entries, row by row).
pub(crate) fn fromdense<T: Numeric, I: SpIndex>(
    m: usize,
    n: usize,
    a: &[T],
) -> (Vec<I>, Vec<I>, Vec<T>) {
    let mut indptr = Vec::with_capacity(m + 1);
    indptr.push(I::zero());
    let mut ind = Vec::new();
    let mut dat = Vec::new();
    for r in 0..m {
        for c in 0..n {
            let v = a[r * n + c];
            if v != T::zero() {
                ind.push(I::of(c));
                dat.push(v);
            }
        }
        indptr.push(I::of(ind.len()));
    }
    (indptr, ind, dat)
}

/// The row index of every stored entry.
pub(crate) fn expand_rows<I: SpIndex>(indptr: &[I]) -> Vec<I> {
    let mut rows = Vec::with_capacity(indptr.last().map_or(0, |v| v.ix()));
    for r in 0..indptr.len() - 1 {
        for _ in indptr[r].ix()..indptr[r + 1].ix() {
            rows.push(I::of(r));
        }
    }
    rows
}

/// sum conj(x) y, in fixed-size chunks combined in order.
pub(crate) fn vdot<T: Float>(x: &[T], y: &[T]) -> T {
    const CHUNK: usize = 1 << 14;
    let parts: Vec<T> = x
        .par_chunks(CHUNK)
        .zip(y.par_chunks(CHUNK))
        .map(|(a, b)| {
            let mut acc = T::zero();
            for (&u, &v) in a.iter().zip(b) {
                acc = acc.add(u.conj().mul(v));
            }
            acc
        })
        .collect();
    parts.into_iter().fold(T::zero(), |a, b| a.add(b))
}
