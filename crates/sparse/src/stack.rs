//! Construction from other matrices (SciPy's `scipy.sparse` functions of the same names):
//! [`bmat`], [`hstack`], [`vstack`], [`block_diag`], [`kron`], [`kronsum`], [`tril`], [`triu`],
//! [`find`]. Results are CSR on the device of the inputs; the structure is computed there (the
//! block functions concatenate the blocks' COO arrays with offsets and convert, `kron`, `tril`
//! and `triu` count each output row, scan and write, on the CPU in parallel over rows).

use crate::cuda::formats as gpu;
use crate::matrix::{check_index_range, hv, CooMatrix, CsrMatrix};
use crate::SpIndex;
use cusci_core::error::make;
use cusci_core::{Array, Device, Float, Result};
use rayon::prelude::*;

/// CPU: builds CSR arrays row by row in parallel: `count(r)` entries for row `r`, then
/// `write(r, cols, vals)` fills exactly that many.
pub(crate) fn build_rows<T: Float, I: SpIndex>(
    m: usize,
    count: impl Fn(usize) -> usize + Sync,
    write: impl Fn(usize, &mut [I], &mut [T]) + Sync,
) -> (Vec<I>, Vec<I>, Vec<T>) {
    let counts: Vec<usize> = (0..m).into_par_iter().map(&count).collect();
    let mut indptr = Vec::with_capacity(m + 1);
    let mut acc = 0usize;
    indptr.push(I::zero());
    for c in &counts {
        acc += c;
        indptr.push(I::of(acc));
    }
    let mut ind = vec![I::zero(); acc];
    let mut dat = vec![T::zero(); acc];
    let mut ci: Vec<&mut [I]> = Vec::with_capacity(m);
    let mut cv: Vec<&mut [T]> = Vec::with_capacity(m);
    let (mut ri, mut rv) = (&mut ind[..], &mut dat[..]);
    for &c in &counts {
        let (a, b) = std::mem::take(&mut ri).split_at_mut(c);
        ci.push(a);
        ri = b;
        let (a, b) = std::mem::take(&mut rv).split_at_mut(c);
        cv.push(a);
        rv = b;
    }
    ci.into_par_iter()
        .zip(cv.into_par_iter())
        .enumerate()
        .for_each(|(r, (i, v))| write(r, i, v));
    (indptr, ind, dat)
}

/// The entries of the COO blocks `parts` one after another, each block's rows and columns
/// moved by its (row, column) offset, as a COO matrix of `shape` on `dev`.
fn concat_blocks<T: Float, I: SpIndex>(
    parts: &[(CooMatrix<T, I>, usize, usize)],
    shape: (usize, usize),
    dev: &Device,
) -> Result<CooMatrix<T, I>> {
    match dev {
        Device::Cpu => {
            let total: usize = parts.iter().map(|(c, _, _)| c.nnz()).sum();
            let (mut data, mut row, mut col) = (
                Vec::with_capacity(total),
                Vec::with_capacity(total),
                Vec::with_capacity(total),
            );
            for (c, r0, c0) in parts {
                data.extend_from_slice(hv(&c.data));
                row.extend(hv(&c.row).iter().map(|&x| I::of(x.ix() + r0)));
                col.extend(hv(&c.col).iter().map(|&x| I::of(x.ix() + c0)));
            }
            Ok(CooMatrix {
                data: Array::from_vec(data, &[total], dev)?,
                row: Array::from_vec(row, &[total], dev)?,
                col: Array::from_vec(col, &[total], dev)?,
                shape,
            })
        }
        Device::Cuda(d) => {
            let data: Vec<_> = parts.iter().map(|(c, _, _)| &c.data).collect();
            let row: Vec<_> = parts.iter().map(|(c, r0, _)| (&c.row, *r0)).collect();
            let col: Vec<_> = parts.iter().map(|(c, _, c0)| (&c.col, *c0)).collect();
            Ok(CooMatrix {
                data: gpu::concat_values::<T, I>(d, &data, dev)?,
                row: gpu::concat_offset::<T, I>(d, &row, dev)?,
                col: gpu::concat_offset::<T, I>(d, &col, dev)?,
                shape,
            })
        }
    }
}

/// `scipy.sparse.bmat(blocks)`: the matrix made of a grid of blocks, `None` for a zero block.
/// The blocks of one grid row must have one height, those of one grid column one width; a grid
/// row (column) of only `None` has height (width) 0. The result is canonical CSR (entries of
/// the blocks with duplicates summed, explicit zeros kept, as SciPy's COO → CSR).
///
/// ```
/// use cusci_sparse::{bmat, identity, Device};
/// let i = identity::<f64>(1, &Device::Cpu)?;
/// let a = bmat(&[vec![Some(&i), None], vec![None, Some(&i)]])?;
/// assert_eq!(a.toarray()?.to_vec()?, vec![1.0, 0.0, 0.0, 1.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a ragged grid or blocks of incompatible dimensions (SciPy's message),
/// `InvalidArgument` when the grid holds no block at all (no device to build on) or the result
/// does not fit the index type, `DeviceMismatch` for blocks on different devices.
pub fn bmat<T: Float, I: SpIndex>(
    blocks: &[Vec<Option<&CsrMatrix<T, I>>>],
) -> Result<CsrMatrix<T, I>> {
    let op = "bmat";
    let mrows = blocks.len();
    let ncols = blocks.first().map_or(0, |r| r.len());
    if blocks.iter().any(|r| r.len() != ncols) {
        return Err(make::shape(op, "blocks must be a rectangular grid"));
    }
    let mut heights = vec![None::<usize>; mrows];
    let mut widths = vec![None::<usize>; ncols];
    let mut dev: Option<Device> = None;
    for (i, row) in blocks.iter().enumerate() {
        for (j, b) in row.iter().enumerate() {
            let Some(b) = b else { continue };
            let (h, w) = b.shape();
            match heights[i] {
                None => heights[i] = Some(h),
                Some(e) if e != h => {
                    return Err(make::shape(
                        op,
                        format!(
                            "blocks[{i},:] has incompatible row dimensions. Got blocks[{i},{j}].shape[0] == {h}, expected {e}."
                        ),
                    ))
                }
                _ => {}
            }
            match widths[j] {
                None => widths[j] = Some(w),
                Some(e) if e != w => {
                    return Err(make::shape(
                        op,
                        format!(
                            "blocks[:,{j}] has incompatible column dimensions. Got blocks[{i},{j}].shape[1] == {w}, expected {e}."
                        ),
                    ))
                }
                _ => {}
            }
            match &dev {
                None => dev = Some(b.device().clone()),
                Some(d) => cusci_core::array::check_same_device(op, d, b.device())?,
            }
        }
    }
    let Some(dev) = dev else {
        return Err(make::arg(op, "the grid holds no block"));
    };
    let roff: Vec<usize> = std::iter::once(0)
        .chain(heights.iter().scan(0, |a, h| {
            *a += h.unwrap_or(0);
            Some(*a)
        }))
        .collect();
    let coff: Vec<usize> = std::iter::once(0)
        .chain(widths.iter().scan(0, |a, w| {
            *a += w.unwrap_or(0);
            Some(*a)
        }))
        .collect();
    let shape = (roff[mrows], coff[ncols]);
    let nnz: usize = blocks.iter().flatten().flatten().map(|b| b.nnz()).sum();
    check_index_range::<I>(op, shape.0, shape.1, nnz)?;
    let mut parts = Vec::new();
    for (i, row) in blocks.iter().enumerate() {
        for (j, b) in row.iter().enumerate() {
            let Some(b) = b else { continue };
            parts.push((b.tocoo()?, roff[i], coff[j]));
        }
    }
    concat_blocks(&parts, shape, &dev)?.tocsr()
}

/// `scipy.sparse.hstack(blocks)`: the blocks side by side (one height), through [`bmat`].
///
/// ```
/// use cusci_sparse::{hstack, identity, Device};
/// let i = identity::<f32>(2, &Device::Cpu)?;
/// assert_eq!(hstack(&[&i, &i])?.shape(), (2, 4));
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`bmat`].
pub fn hstack<T: Float, I: SpIndex>(blocks: &[&CsrMatrix<T, I>]) -> Result<CsrMatrix<T, I>> {
    bmat(&[blocks.iter().map(|b| Some(*b)).collect()])
}

/// `scipy.sparse.vstack(blocks)`: the blocks stacked vertically (one width), through [`bmat`].
///
/// # Errors
/// As [`bmat`].
pub fn vstack<T: Float, I: SpIndex>(blocks: &[&CsrMatrix<T, I>]) -> Result<CsrMatrix<T, I>> {
    let grid: Vec<Vec<Option<&CsrMatrix<T, I>>>> = blocks.iter().map(|b| vec![Some(*b)]).collect();
    bmat(&grid)
}

/// `scipy.sparse.block_diag(mats)`: the matrices along the diagonal, zero blocks elsewhere.
///
/// # Errors
/// As [`bmat`] (`InvalidArgument` for no matrices).
pub fn block_diag<T: Float, I: SpIndex>(mats: &[&CsrMatrix<T, I>]) -> Result<CsrMatrix<T, I>> {
    let k = mats.len();
    let grid: Vec<Vec<Option<&CsrMatrix<T, I>>>> = (0..k)
        .map(|i| (0..k).map(|j| (i == j).then_some(mats[i])).collect())
        .collect();
    bmat(&grid)
}

/// `scipy.sparse.kron(A, B)`: the Kronecker product, `C[ia·mb + ib, ja·nb + jb] =
/// A[ia, ja]·B[ib, jb]`, one stored entry per pair of stored entries (explicit zeros kept, as
/// SciPy). Canonical when both inputs are.
///
/// ```
/// use cusci_sparse::{diags, kron, identity, Device};
/// let a = diags::<f64>(&[&[1.0, 2.0]], &[0], None, &Device::Cpu)?;
/// let k = kron(&a, &identity(2, &Device::Cpu)?)?;
/// assert_eq!(k.diagonal(0)?.to_vec()?, vec![1.0, 1.0, 2.0, 2.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `DeviceMismatch`; `InvalidArgument` when the shape or the number of products does not fit
/// the index type.
pub fn kron<T: Float, I: SpIndex>(
    a: &CsrMatrix<T, I>,
    b: &CsrMatrix<T, I>,
) -> Result<CsrMatrix<T, I>> {
    let op = "kron";
    cusci_core::array::check_same_device(op, a.device(), b.device())?;
    let ((ma, na), (mb, nb)) = (a.shape(), b.shape());
    let (m, n) = (ma.saturating_mul(mb), na.saturating_mul(nb));
    check_index_range::<I>(op, m, n, a.nnz().saturating_mul(b.nnz()))?;
    let canonical = a.has_canonical_format() && b.has_canonical_format();
    let dev = a.device().clone();
    match &dev {
        Device::Cpu => {
            let (ap, ai, ad) = (hv(&a.indptr), hv(&a.indices), hv(&a.data));
            let (bp, bi, bd) = (hv(&b.indptr), hv(&b.indices), hv(&b.data));
            let (ip, ind, dat) = build_rows::<T, I>(
                m,
                |r| {
                    let (ia, ib) = (r / mb, r % mb);
                    (ap[ia + 1].ix() - ap[ia].ix()) * (bp[ib + 1].ix() - bp[ib].ix())
                },
                |r, oi, ov| {
                    let (ia, ib) = (r / mb, r % mb);
                    let mut o = 0;
                    for j in ap[ia].ix()..ap[ia + 1].ix() {
                        for t in bp[ib].ix()..bp[ib + 1].ix() {
                            oi[o] = I::of(ai[j].ix() * nb + bi[t].ix());
                            ov[o] = ad[j].mul(bd[t]);
                            o += 1;
                        }
                    }
                },
            );
            CsrMatrix::from_host(ip, ind, dat, (m, n), canonical, &dev)
        }
        Device::Cuda(d) => gpu::kron(d, a, b, (m, n), canonical),
    }
}

/// `scipy.sparse.kronsum(A, B)`: `kron(I_n, A) + kron(B, I_m)` for square A (m x m) and B
/// (n x n), canonical CSR without stored zeros (the sum's).
///
/// # Errors
/// `ShapeMismatch` when A or B is not square, `DeviceMismatch`.
pub fn kronsum<T: Float, I: SpIndex>(
    a: &CsrMatrix<T, I>,
    b: &CsrMatrix<T, I>,
) -> Result<CsrMatrix<T, I>> {
    let op = "kronsum";
    let ((m, m2), (n, n2)) = (a.shape(), b.shape());
    if m != m2 {
        return Err(make::shape(op, "A is not square"));
    }
    if n != n2 {
        return Err(make::shape(op, "B is not square"));
    }
    cusci_core::array::check_same_device(op, a.device(), b.device())?;
    let dev = a.device();
    let left = kron(&crate::identity::<T>(n, dev)?.with_index::<I>()?, a)?;
    let right = kron(b, &crate::identity::<T>(m, dev)?.with_index::<I>()?)?;
    left.add(&right)
}

fn tri<T: Float, I: SpIndex>(
    a: &CsrMatrix<T, I>,
    k: isize,
    lower: bool,
) -> Result<CsrMatrix<T, I>> {
    let m = a.shape().0;
    let keep = move |c: usize, r: usize| {
        let d = c as i64 - r as i64;
        if lower {
            d <= k as i64
        } else {
            d >= k as i64
        }
    };
    match a.device() {
        Device::Cpu => {
            let (ap, ai, ad) = (hv(&a.indptr), hv(&a.indices), hv(&a.data));
            let (ip, ind, dat) = build_rows::<T, I>(
                m,
                |r| {
                    (ap[r].ix()..ap[r + 1].ix())
                        .filter(|&j| keep(ai[j].ix(), r))
                        .count()
                },
                |r, oi, ov| {
                    let mut o = 0;
                    for j in ap[r].ix()..ap[r + 1].ix() {
                        if keep(ai[j].ix(), r) {
                            oi[o] = ai[j];
                            ov[o] = ad[j];
                            o += 1;
                        }
                    }
                },
            );
            CsrMatrix::from_host(
                ip,
                ind,
                dat,
                a.shape(),
                a.has_canonical_format(),
                &Device::Cpu,
            )
        }
        Device::Cuda(d) => gpu::tri(d, a, k, lower),
    }
}

/// `scipy.sparse.tril(A, k)`: the entries on and below diagonal `k` (column − row ≤ k), stored
/// entries kept as they are (zeros, duplicates and order).
///
/// ```
/// use cusci_sparse::{tril, CsrMatrix, Device, Array};
/// let a = CsrMatrix::from_dense(&Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2], &Device::Cpu)?)?;
/// assert_eq!(tril(&a, 0)?.toarray()?.to_vec()?, vec![1.0, 0.0, 3.0, 4.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// Device errors only.
pub fn tril<T: Float, I: SpIndex>(a: &CsrMatrix<T, I>, k: isize) -> Result<CsrMatrix<T, I>> {
    tri(a, k, true)
}

/// `scipy.sparse.triu(A, k)`: the entries on and above diagonal `k` (column − row ≥ k).
///
/// # Errors
/// Device errors only.
pub fn triu<T: Float, I: SpIndex>(a: &CsrMatrix<T, I>, k: isize) -> Result<CsrMatrix<T, I>> {
    tri(a, k, false)
}

/// `scipy.sparse.find(A)`: the (row, column, value) arrays of the nonzero entries, duplicates
/// summed first, in row-major order (as SciPy's canonical COO).
///
/// ```
/// use cusci_sparse::{find, identity, Device};
/// let (r, c, v) = find(&identity::<f64>(2, &Device::Cpu)?)?;
/// assert_eq!((r.to_vec()?, c.to_vec()?, v.to_vec()?), (vec![0, 1], vec![0, 1], vec![1.0, 1.0]));
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// Device errors only.
pub fn find<T: Float, I: SpIndex>(a: &CsrMatrix<T, I>) -> Result<(Array<I>, Array<I>, Array<T>)> {
    let c = a.sum_duplicates()?.eliminate_zeros()?.tocoo()?;
    Ok((c.row, c.col, c.data))
}

/// `scipy.sparse.block_array(blocks)`: the array-API name of [`bmat`] (the same grid of
/// blocks, `None` for a zero block, canonical CSR).
///
/// ```
/// use cusci_sparse::{block_array, identity, Device};
/// let i = identity::<f64>(1, &Device::Cpu)?;
/// let a = block_array(&[vec![None, Some(&i)], vec![Some(&i), None]])?;
/// assert_eq!(a.toarray()?.to_vec()?, vec![0.0, 1.0, 1.0, 0.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`bmat`].
pub fn block_array<T: Float, I: SpIndex>(
    blocks: &[Vec<Option<&CsrMatrix<T, I>>>],
) -> Result<CsrMatrix<T, I>> {
    bmat(blocks)
}
