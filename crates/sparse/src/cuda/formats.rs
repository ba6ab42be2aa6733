//! The GPU side of the formats (`matrix.rs`, `dia.rs`, `stack.rs`): structure checks,
//! conversions between CSR, CSC, COO, DIA and dense, the stacking functions, `kron` and
//! `tril`/`triu`, with the kernels of `formats.cu` ([`FORMATS`]). Every function takes valid
//! input on the device `d` (its front end has checked it).

use super::last;
use super::{concat, count_scan_write, ffi, formats_fn, grid, Arg, FORMATS};
use crate::dia::DiaMatrix;
use crate::matrix::{CooMatrix, CsrMatrix};
use crate::SpIndex;
use cusci_core::{Array, CudaDevice, DType, Device, Float, Result};

/// The structure flags of `csr_matrix((data, indices, indptr))` (see `cpu::csr_check`) for
/// `m` rows, `n` columns and `nnz` entries: one read of the device.
pub(crate) fn csr_check<T: Float, I: SpIndex>(
    d: &CudaDevice,
    indptr: &Array<I>,
    indices: &Array<I>,
    (m, n): (usize, usize),
    nnz: usize,
) -> Result<i32> {
    if m == 0 {
        return Ok(if indptr.item()? != I::zero() || nnz != 0 {
            4
        } else {
            0
        });
    }
    let mut fl = Array::<i32>::zeros(&[1], indptr.device())?;
    let f = formats_fn::<T, I>(d, "fm_csr_check")?;
    d.launch(&f, grid(d, m))
        .arg(indptr.dev_ptr()?)
        .arg(indices.dev_ptr()?)
        .arg(m as i64)
        .arg(n as i64)
        .arg(nnz as i64)
        .arg(fl.dev_ptr_mut()?)
        .run()?;
    fl.item()
}

/// True when an index of the COO arrays lies outside (m, n): one read of the device.
pub(crate) fn coo_out_of_bounds<T: Float, I: SpIndex>(
    d: &CudaDevice,
    row: &Array<I>,
    col: &Array<I>,
    (m, n): (usize, usize),
) -> Result<bool> {
    if row.is_empty() {
        return Ok(false);
    }
    let mut fl = Array::<i32>::zeros(&[1], row.device())?;
    let f = formats_fn::<T, I>(d, "fm_coo_check")?;
    d.launch(&f, grid(d, row.len()))
        .arg(row.dev_ptr()?)
        .arg(col.dev_ptr()?)
        .arg(row.len() as i64)
        .arg(m as i64)
        .arg(n as i64)
        .arg(fl.dev_ptr_mut()?)
        .run()?;
    Ok(fl.item()? != 0)
}

/// The canonical CSR matrix of the nonzero entries of the contiguous (m, n) array `a`.
pub(crate) fn from_dense<T: Float, I: SpIndex>(
    d: &CudaDevice,
    a: &Array<T>,
) -> Result<CsrMatrix<T, I>> {
    let (m, n) = (a.shape()[0], a.shape()[1]);
    let dev = a.device();
    let mut counts = Array::<I>::zeros(&[m + 1], dev)?;
    let f = formats_fn::<T, I>(d, "fm_dense_count")?;
    d.launch(&f, grid(d, m))
        .arg(a.dev_ptr()?)
        .arg(m as i64)
        .arg(n as i64)
        .arg(counts.dev_ptr_mut()?)
        .run()?;
    let indptr = counts.cumsum(0)?;
    let nnz = last(&indptr)?;
    let mut ind = Array::<I>::empty(&[nnz], dev)?;
    let mut dat = Array::<T>::empty(&[nnz], dev)?;
    let f = formats_fn::<T, I>(d, "fm_dense_write")?;
    d.launch(&f, grid(d, m))
        .arg(a.dev_ptr()?)
        .arg(m as i64)
        .arg(n as i64)
        .arg(indptr.dev_ptr()?)
        .arg(ind.dev_ptr_mut()?)
        .arg(dat.dev_ptr_mut()?)
        .run()?;
    Ok(CsrMatrix::from_parts(dat, ind, indptr, (m, n), true))
}

/// The dense (m, n) array of `a`, duplicates summed.
pub(crate) fn todense<T: Float, I: SpIndex>(
    d: &CudaDevice,
    a: &CsrMatrix<T, I>,
) -> Result<Array<T>> {
    let (m, n) = a.shape;
    let mut out = Array::<T>::zeros(&[m, n], a.device())?;
    let f = formats_fn::<T, I>(d, "fm_csr_todense")?;
    d.launch(&f, grid(d, m))
        .arg(a.indptr.dev_ptr()?)
        .arg(a.indices.dev_ptr()?)
        .arg(a.data.dev_ptr()?)
        .arg(m as i64)
        .arg(n as i64)
        .arg(out.dev_ptr_mut()?)
        .run()?;
    Ok(out)
}

/// The row index of every stored entry of `a` (COO's `row`).
pub(crate) fn expand_rows<T: Float, I: SpIndex>(
    d: &CudaDevice,
    a: &CsrMatrix<T, I>,
) -> Result<Array<I>> {
    let m = a.shape.0;
    let mut rows = Array::<I>::empty(&[a.nnz()], a.device())?;
    let f = formats_fn::<T, I>(d, "fm_csr_rows")?;
    d.launch(&f, grid(d, m))
        .arg(a.indptr.dev_ptr()?)
        .arg(m as i64)
        .arg(rows.dev_ptr_mut()?)
        .run()?;
    Ok(rows)
}

/// The transpose of `a` as an (n, m) CSR matrix: cuSPARSE's `csr2cscEx2` for 32-bit indices;
/// for 64-bit ones (which it does not take) the entries bucketed by column and each bucket
/// sorted by (row, position), this crate's COO → CSR kernels.
pub(crate) fn transpose<T: Float, I: SpIndex>(
    d: &CudaDevice,
    a: &CsrMatrix<T, I>,
) -> Result<CsrMatrix<T, I>> {
    let (m, n) = a.shape;
    let nnz = a.nnz();
    let dev = a.device();
    if I::DTYPE == DType::I32 {
        let full = nnz > 0 && m > 0 && n > 0;
        // csr2cscEx2 writes every entry of the column pointers: no memset before it
        let mut tp = if full {
            Array::<I>::empty(&[n + 1], dev)?
        } else {
            Array::<I>::zeros(&[n + 1], dev)?
        };
        let mut ti = Array::<I>::empty(&[nnz], dev)?;
        let mut td = Array::<T>::empty(&[nnz], dev)?;
        if full {
            ffi::csr2csc(d, a, (&mut td, &mut tp, &mut ti))?;
        }
        return Ok(CsrMatrix::from_parts(td, ti, tp, (n, m), a.canonical));
    }
    let rows = expand_rows(d, a)?;
    let mut counts = Array::<I>::zeros(&[n + 1], dev)?;
    let f = formats_fn::<T, I>(d, "fm_coo_count")?;
    d.launch(&f, grid(d, nnz))
        .arg(a.indices.dev_ptr()?)
        .arg(nnz as i64)
        .arg(counts.dev_ptr_mut()?)
        .run()?;
    let tp = counts.cumsum(0)?;
    let mut fill = Array::<I>::zeros(&[n.max(1)], dev)?;
    let mut ti = Array::<I>::empty(&[nnz], dev)?;
    let mut bidx = Array::<I>::empty(&[nnz], dev)?;
    let mut td = Array::<T>::empty(&[nnz], dev)?;
    let f = formats_fn::<T, I>(d, "fm_coo_scatter")?;
    d.launch(&f, grid(d, nnz))
        .arg(a.indices.dev_ptr()?)
        .arg(rows.dev_ptr()?)
        .arg(a.data.dev_ptr()?)
        .arg(nnz as i64)
        .arg(tp.dev_ptr()?)
        .arg(fill.dev_ptr_mut()?)
        .arg(ti.dev_ptr_mut()?)
        .arg(bidx.dev_ptr_mut()?)
        .arg(td.dev_ptr_mut()?)
        .run()?;
    let mut ucount = Array::<I>::zeros(&[n + 1], dev)?;
    let f = formats_fn::<T, I>(d, "fm_row_sort_count")?;
    d.launch(&f, grid(d, n))
        .arg(tp.dev_ptr()?)
        .arg(n as i64)
        .arg(ti.dev_ptr_mut()?)
        .arg(bidx.dev_ptr_mut()?)
        .arg(td.dev_ptr_mut()?)
        .arg(ucount.dev_ptr_mut()?)
        .run()?;
    Ok(CsrMatrix::from_parts(td, ti, tp, (n, m), a.canonical))
}

/// The canonical CSR form of `a`: a row histogram, a scan, a bucket scatter, a per-row sort by
/// (column, position) and a per-row sum in that order; one wait for the size.
pub(crate) fn coo_to_csr<T: Float, I: SpIndex>(
    d: &CudaDevice,
    a: &CooMatrix<T, I>,
) -> Result<CsrMatrix<T, I>> {
    let m = a.shape.0;
    let nnz = a.nnz();
    let dev = a.device();
    let mut counts = Array::<I>::zeros(&[m + 1], dev)?;
    let f = formats_fn::<T, I>(d, "fm_coo_count")?;
    d.launch(&f, grid(d, nnz))
        .arg(a.row.dev_ptr()?)
        .arg(nnz as i64)
        .arg(counts.dev_ptr_mut()?)
        .run()?;
    let indptr = counts.cumsum(0)?;
    let mut fill = Array::<I>::zeros(&[m], dev)?;
    let mut bcol = Array::<I>::empty(&[nnz], dev)?;
    let mut bidx = Array::<I>::empty(&[nnz], dev)?;
    let mut bval = Array::<T>::empty(&[nnz], dev)?;
    let f = formats_fn::<T, I>(d, "fm_coo_scatter")?;
    d.launch(&f, grid(d, nnz))
        .arg(a.row.dev_ptr()?)
        .arg(a.col.dev_ptr()?)
        .arg(a.data.dev_ptr()?)
        .arg(nnz as i64)
        .arg(indptr.dev_ptr()?)
        .arg(fill.dev_ptr_mut()?)
        .arg(bcol.dev_ptr_mut()?)
        .arg(bidx.dev_ptr_mut()?)
        .arg(bval.dev_ptr_mut()?)
        .run()?;
    drop(fill);
    let mut ucount = Array::<I>::zeros(&[m + 1], dev)?;
    let f = formats_fn::<T, I>(d, "fm_row_sort_count")?;
    d.launch(&f, grid(d, m))
        .arg(indptr.dev_ptr()?)
        .arg(m as i64)
        .arg(bcol.dev_ptr_mut()?)
        .arg(bidx.dev_ptr_mut()?)
        .arg(bval.dev_ptr_mut()?)
        .arg(ucount.dev_ptr_mut()?)
        .run()?;
    drop(bidx);
    let outptr = ucount.cumsum(0)?;
    let total = last(&outptr)?;
    let mut ocol = Array::<I>::empty(&[total], dev)?;
    let mut oval = Array::<T>::empty(&[total], dev)?;
    let f = formats_fn::<T, I>(d, "fm_row_sum_write")?;
    d.launch(&f, grid(d, m))
        .arg(indptr.dev_ptr()?)
        .arg(m as i64)
        .arg(bcol.dev_ptr()?)
        .arg(bval.dev_ptr()?)
        .arg(outptr.dev_ptr()?)
        .arg(ocol.dev_ptr_mut()?)
        .arg(oval.dev_ptr_mut()?)
        .run()?;
    Ok(CsrMatrix::from_parts(oval, ocol, outptr, a.shape, true))
}

// ====================================================================================== DIA

/// The canonical CSR form of the DIA matrix `a` (stored zeros dropped), `order` its diagonals
/// by increasing offset.
pub(crate) fn dia_to_csr<T: Float>(
    d: &CudaDevice,
    a: &DiaMatrix<T>,
    order: &[usize],
) -> Result<CsrMatrix<T>> {
    let (m, n) = a.shape;
    let (nd, w) = (a.data.shape()[0], a.data.shape()[1]);
    let ord: Vec<i64> = order.iter().map(|&x| x as i64).collect();
    let dord = Array::from_vec(ord, &[nd], a.data.device())?;
    let (data, offs) = (
        Arg::Val(a.data.dev_ptr()?),
        Arg::Wide(a.doffsets.dev_ptr()?),
    );
    let dims = [Arg::I64(nd as i64), Arg::I64(w as i64), Arg::I64(n as i64)];
    let (ip, ind, dat) = count_scan_write::<T, i32>(
        d,
        &FORMATS,
        m,
        ("fm_dia_count", &[data, offs, dims[0], dims[1], dims[2]]),
        (
            "fm_dia_write",
            &[
                data,
                offs,
                Arg::Wide(dord.dev_ptr()?),
                dims[0],
                dims[1],
                dims[2],
            ],
        ),
    )?;
    Ok(CsrMatrix::from_parts(dat, ind, ip, a.shape, true))
}

/// `y = A x` for the DIA matrix `a` and a contiguous 1-D `x` of length n.
pub(crate) fn dia_spmv<T: Float>(
    d: &CudaDevice,
    a: &DiaMatrix<T>,
    x: &Array<T>,
) -> Result<Array<T>> {
    let (m, n) = a.shape;
    let (nd, w) = (a.data.shape()[0], a.data.shape()[1]);
    let mut y = Array::<T>::empty(&[m], a.data.device())?;
    if m > 0 {
        let f = formats_fn::<T, i32>(d, "fm_dia_spmv")?;
        d.launch(&f, grid(d, m))
            .arg(a.data.dev_ptr()?)
            .arg(a.doffsets.dev_ptr()?)
            .arg(nd as i64)
            .arg(w as i64)
            .arg(n as i64)
            .arg(m as i64)
            .arg(x.dev_ptr()?)
            .arg(y.dev_ptr_mut()?)
            .run()?;
    }
    Ok(y)
}

/// The DIA form of the canonical matrix `a` with at least one stored entry: the diagonals
/// holding an entry marked, ranked by a scan, and filled.
pub(crate) fn csr_to_dia<T: Float, I: SpIndex>(
    d: &CudaDevice,
    a: &CsrMatrix<T, I>,
) -> Result<DiaMatrix<T>> {
    let (m, n) = a.shape;
    let dev = a.device();
    let len = m + n - 1;
    let mut flags = Array::<i32>::zeros(&[len], dev)?;
    let f = formats_fn::<T, I>(d, "fm_dia_mark")?;
    d.launch(&f, grid(d, m))
        .arg(a.indptr.dev_ptr()?)
        .arg(a.indices.dev_ptr()?)
        .arg(m as i64)
        .arg(flags.dev_ptr_mut()?)
        .run()?;
    let rank = flags.cumsum(0)?;
    let nd = last(&rank)?;
    let w = a.indices.max()?.ix() + 1;
    let mut doffs = Array::<i64>::empty(&[nd], dev)?;
    let f = formats_fn::<T, I>(d, "fm_dia_offsets")?;
    d.launch(&f, grid(d, len))
        .arg(flags.dev_ptr()?)
        .arg(rank.dev_ptr()?)
        .arg(len as i64)
        .arg(m as i64)
        .arg(doffs.dev_ptr_mut()?)
        .run()?;
    let mut data = Array::<T>::zeros(&[nd, w], dev)?;
    let f = formats_fn::<T, I>(d, "fm_dia_fill")?;
    d.launch(&f, grid(d, m))
        .arg(a.indptr.dev_ptr()?)
        .arg(a.indices.dev_ptr()?)
        .arg(a.data.dev_ptr()?)
        .arg(m as i64)
        .arg(rank.dev_ptr()?)
        .arg(w as i64)
        .arg(data.dev_ptr_mut()?)
        .run()?;
    let offsets = doffs.to_vec()?;
    Ok(DiaMatrix {
        data,
        offsets,
        doffsets: doffs,
        shape: (m, n),
    })
}

// ================================================================================ stacking

/// The index arrays one after another, `off` added to each part's values.
pub(crate) fn concat_offset<T: Float, I: SpIndex>(
    d: &CudaDevice,
    parts: &[(&Array<I>, usize)],
    dev: &Device,
) -> Result<Array<I>> {
    let parts: Vec<_> = parts
        .iter()
        .map(|&(a, off)| (a, Some(off as i64)))
        .collect();
    concat(d, &formats_fn::<T, I>(d, "fm_copy_offset")?, &parts, dev)
}

/// The value arrays one after another.
pub(crate) fn concat_values<T: Float, I: SpIndex>(
    d: &CudaDevice,
    parts: &[&Array<T>],
    dev: &Device,
) -> Result<Array<T>> {
    let parts: Vec<_> = parts.iter().map(|&a| (a, None::<i64>)).collect();
    concat(d, &formats_fn::<T, I>(d, "fm_copy_vals")?, &parts, dev)
}

/// `kron(a, b)` of the shape (m, n) (see [`crate::kron`]).
pub(crate) fn kron<T: Float, I: SpIndex>(
    d: &CudaDevice,
    a: &CsrMatrix<T, I>,
    b: &CsrMatrix<T, I>,
    (m, n): (usize, usize),
    canonical: bool,
) -> Result<CsrMatrix<T, I>> {
    let (mb, nb) = b.shape;
    let (ap, bp) = (Arg::Idx(a.indptr.dev_ptr()?), Arg::Idx(b.indptr.dev_ptr()?));
    let (ai, ad) = (Arg::Idx(a.indices.dev_ptr()?), Arg::Val(a.data.dev_ptr()?));
    let (bi, bd) = (Arg::Idx(b.indices.dev_ptr()?), Arg::Val(b.data.dev_ptr()?));
    let (mb, nb) = (Arg::I64(mb as i64), Arg::I64(nb as i64));
    let (ip, ind, dat) = count_scan_write::<T, I>(
        d,
        &FORMATS,
        m,
        ("fm_kron_count", &[ap, bp, mb]),
        ("fm_kron_write", &[ap, ai, ad, bp, bi, bd, mb, nb]),
    )?;
    Ok(CsrMatrix::from_parts(dat, ind, ip, (m, n), canonical))
}

/// The entries of `a` on and below (`lower`) or on and above diagonal `k`.
pub(crate) fn tri<T: Float, I: SpIndex>(
    d: &CudaDevice,
    a: &CsrMatrix<T, I>,
    k: isize,
    lower: bool,
) -> Result<CsrMatrix<T, I>> {
    let (ip, ind) = (
        Arg::Idx(a.indptr.dev_ptr()?),
        Arg::Idx(a.indices.dev_ptr()?),
    );
    let (k, lw) = (Arg::I64(k as i64), Arg::I32(i32::from(lower)));
    let (ip, ind, dat) = count_scan_write::<T, I>(
        d,
        &FORMATS,
        a.shape.0,
        ("fm_tri_count", &[ip, ind, k, lw]),
        (
            "fm_tri_write",
            &[ip, ind, Arg::Val(a.data.dev_ptr()?), k, lw],
        ),
    )?;
    Ok(CsrMatrix::from_parts(dat, ind, ip, a.shape, a.canonical))
}

/// The CSR form of the BSR matrix `a` (every block entry stored, explicit zeros kept): one
/// thread per row of the matrix (`fm_bsr_to_csr`).
pub(crate) fn bsr_to_csr<T: Float, I: SpIndex>(
    d: &CudaDevice,
    a: &crate::BsrMatrix<T, I>,
) -> Result<CsrMatrix<T, I>> {
    let (m, _) = a.shape;
    let (r, c) = a.blocksize();
    let nnz = a.nnz();
    let dev = a.device();
    let mut ip = Array::<I>::zeros(&[m + 1], dev)?;
    let mut ind = Array::<I>::empty(&[nnz], dev)?;
    let mut dat = Array::<T>::empty(&[nnz], dev)?;
    if m > 0 {
        let f = formats_fn::<T, I>(d, "fm_bsr_to_csr")?;
        d.launch(&f, grid(d, m))
            .arg(a.indptr.dev_ptr()?)
            .arg(a.indices.dev_ptr()?)
            .arg(a.data.dev_ptr()?)
            .arg((m / r) as i64)
            .arg(r as i64)
            .arg(c as i64)
            .arg(ip.dev_ptr_mut()?)
            .arg(ind.dev_ptr_mut()?)
            .arg(dat.dev_ptr_mut()?)
            .run()?;
    }
    Ok(CsrMatrix::from_parts(dat, ind, ip, a.shape, a.canonical))
}

/// `src / q` element by element (`fm_div_index`).
fn div_index<T: Float, I: SpIndex>(d: &CudaDevice, src: &Array<I>, q: usize) -> Result<Array<I>> {
    let mut out = Array::<I>::empty(&[src.len()], src.device())?;
    if !src.is_empty() {
        let f = formats_fn::<T, I>(d, "fm_div_index")?;
        d.launch(&f, grid(d, src.len()))
            .arg(src.dev_ptr()?)
            .arg(out.dev_ptr_mut()?)
            .arg(src.len() as i64)
            .arg(q as i64)
            .run()?;
    }
    Ok(out)
}

/// The BSR form of the canonical CSR matrix `a` with blocks of `(r, c)` (dimensions divisible):
/// the block structure is the canonical CSR form of the COO matrix of every entry's block
/// (this crate's COO → CSR kernels), then each entry is scattered into its block
/// (`fm_csr_block_scatter`).
pub(crate) fn csr_to_bsr<T: Float, I: SpIndex>(
    d: &CudaDevice,
    a: &CsrMatrix<T, I>,
    (r, c): (usize, usize),
) -> Result<(Array<T>, Array<I>, Array<I>)> {
    let (m, n) = a.shape;
    let dev = a.device();
    let brow = div_index::<T, I>(d, &expand_rows(d, a)?, r)?;
    let bcol = div_index::<T, I>(d, &a.indices, c)?;
    let ones = Array::<T>::full(&[a.nnz()], T::one(), dev)?;
    let blocks = coo_to_csr(
        d,
        &CooMatrix {
            data: ones,
            row: brow,
            col: bcol,
            shape: (m / r, n / c),
        },
    )?;
    let nb = blocks.nnz();
    let mut out = Array::<T>::zeros(&[nb, r, c], dev)?;
    if m > 0 && a.nnz() > 0 {
        let f = formats_fn::<T, I>(d, "fm_csr_block_scatter")?;
        d.launch(&f, grid(d, m))
            .arg(a.indptr.dev_ptr()?)
            .arg(a.indices.dev_ptr()?)
            .arg(a.data.dev_ptr()?)
            .arg(m as i64)
            .arg(r as i64)
            .arg(c as i64)
            .arg(blocks.indptr.dev_ptr()?)
            .arg(blocks.indices.dev_ptr()?)
            .arg(out.dev_ptr_mut()?)
            .run()?;
    }
    Ok((out, blocks.indices, blocks.indptr))
}
