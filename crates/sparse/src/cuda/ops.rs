//! The GPU side of the methods of `ops.rs` and `reduce.rs` (eliminate_zeros, setdiag,
//! diagonal, the sums of sparse matrices, multiply, matmul, the per-row maxima and minima),
//! with the kernels of `sparse.cu` ([`SPARSE`]) for the matrix's index type. Every function
//! takes valid input on the device `d` (its front end has checked it).

use super::{concat, count_scan_write, grid, sparse_fn, Arg, SPARSE};
use crate::matrix::{CooMatrix, CsrMatrix};
use crate::SpIndex;
use cusci_core::error::make;
use cusci_core::{Array, CudaDevice, Device, Float, Result};

/// The 1-D arrays `parts` one after another, each part's values multiplied by its scale.
pub(crate) fn concat_scaled<T: Float, I: SpIndex>(
    d: &CudaDevice,
    parts: &[(&Array<T>, T)],
    dev: &Device,
) -> Result<Array<T>> {
    let parts: Vec<_> = parts.iter().map(|&(a, s)| (a, Some(s))).collect();
    concat(d, &sparse_fn::<T, I>(d, "sp_copy_scaled")?, &parts, dev)
}

/// The 1-D index arrays `parts` one after another.
pub(crate) fn concat_indices<T: Float, I: SpIndex>(
    d: &CudaDevice,
    parts: &[&Array<I>],
    dev: &Device,
) -> Result<Array<I>> {
    let parts: Vec<_> = parts.iter().map(|&a| (a, None::<i64>)).collect();
    concat(d, &sparse_fn::<T, I>(d, "sp_copy_idx")?, &parts, dev)
}

/// `a` without its stored zeros.
pub(crate) fn eliminate_zeros<T: Float, I: SpIndex>(
    d: &CudaDevice,
    a: &CsrMatrix<T, I>,
) -> Result<CsrMatrix<T, I>> {
    let ip = Arg::Idx(a.indptr.dev_ptr()?);
    let dat = Arg::Val(a.data.dev_ptr()?);
    let (ip, ind, dat) = count_scan_write::<T, I>(
        d,
        &SPARSE,
        a.shape.0,
        ("sp_nz_count", &[ip, dat]),
        ("sp_nz_write", &[ip, Arg::Idx(a.indices.dev_ptr()?), dat]),
    )?;
    Ok(CsrMatrix::from_parts(dat, ind, ip, a.shape, a.canonical))
}

/// `a` without the entries of diagonal `k` that `len` values replace (setdiag's first step).
pub(crate) fn without_diagonal<T: Float, I: SpIndex>(
    d: &CudaDevice,
    a: &CsrMatrix<T, I>,
    k: isize,
    len: usize,
) -> Result<CsrMatrix<T, I>> {
    let (ip, ind) = (
        Arg::Idx(a.indptr.dev_ptr()?),
        Arg::Idx(a.indices.dev_ptr()?),
    );
    let (k, len) = (Arg::I64(k as i64), Arg::I64(len as i64));
    let (ip, ind, dat) = count_scan_write::<T, I>(
        d,
        &SPARSE,
        a.shape.0,
        ("sp_offdiag_count", &[ip, ind, k, len]),
        (
            "sp_offdiag_write",
            &[ip, ind, Arg::Val(a.data.dev_ptr()?), k, len],
        ),
    )?;
    Ok(CsrMatrix::from_parts(dat, ind, ip, a.shape, false))
}

/// Diagonal `k` of `a` (of `len` elements), duplicates summed.
pub(crate) fn diagonal<T: Float, I: SpIndex>(
    d: &CudaDevice,
    a: &CsrMatrix<T, I>,
    k: isize,
    len: usize,
) -> Result<Array<T>> {
    let mut out = Array::<T>::empty(&[len], a.device())?;
    let f = sparse_fn::<T, I>(d, "sp_diagonal")?;
    d.launch(&f, grid(d, len))
        .arg(a.indptr.dev_ptr()?)
        .arg(a.indices.dev_ptr()?)
        .arg(a.data.dev_ptr()?)
        .arg(len as i64)
        .arg(k as i64)
        .arg(out.dev_ptr_mut()?)
        .run()?;
    Ok(out)
}

/// The element-wise product of the canonical matrices `a` and `b` of one shape, without
/// stored zeros.
pub(crate) fn multiply<T: Float, I: SpIndex>(
    d: &CudaDevice,
    a: &CsrMatrix<T, I>,
    b: &CsrMatrix<T, I>,
) -> Result<CsrMatrix<T, I>> {
    let args = [
        Arg::Idx(a.indptr.dev_ptr()?),
        Arg::Idx(a.indices.dev_ptr()?),
        Arg::Val(a.data.dev_ptr()?),
        Arg::Idx(b.indptr.dev_ptr()?),
        Arg::Idx(b.indices.dev_ptr()?),
        Arg::Val(b.data.dev_ptr()?),
    ];
    let (ip, ind, dat) = count_scan_write::<T, I>(
        d,
        &SPARSE,
        a.shape.0,
        ("sp_mul_count", &args),
        ("sp_mul_write", &args),
    )?;
    Ok(CsrMatrix::from_parts(dat, ind, ip, a.shape, true))
}

/// Every product `A[i,k]·B[k,j]` of the COO matrix `a` (m x k) and the CSR matrix `b`
/// (k x n), in the order of A's entries and B's rows, as an (m, n) COO matrix (matmul's
/// expansion). `InvalidArgument` (named `op`) when the products pass the index type.
pub(crate) fn gemm_expand<T: Float, I: SpIndex>(
    op: &str,
    d: &CudaDevice,
    a: &CooMatrix<T, I>,
    b: &CsrMatrix<T, I>,
) -> Result<CooMatrix<T, I>> {
    let dev = a.device();
    let nnz_a = a.nnz();
    let mut counts = Array::<i64>::zeros(&[nnz_a + 1], dev)?;
    let f = sparse_fn::<T, I>(d, "sp_gemm_count")?;
    d.launch(&f, grid(d, nnz_a))
        .arg(a.col.dev_ptr()?)
        .arg(nnz_a as i64)
        .arg(b.indptr.dev_ptr()?)
        .arg(counts.dev_ptr_mut()?)
        .run()?;
    let off = counts.cumsum(0)?;
    let total = off.index_axis(0, -1)?.item()?;
    if total as u64 > I::MAX as u64 {
        return Err(make::arg(
            op,
            format!("{total} products need 64-bit indices"),
        ));
    }
    let total = total as usize;
    let mut row = Array::<I>::empty(&[total], dev)?;
    let mut col = Array::<I>::empty(&[total], dev)?;
    let mut data = Array::<T>::empty(&[total], dev)?;
    let f = sparse_fn::<T, I>(d, "sp_gemm_expand")?;
    d.launch(&f, grid(d, nnz_a))
        .arg(a.row.dev_ptr()?)
        .arg(a.col.dev_ptr()?)
        .arg(a.data.dev_ptr()?)
        .arg(nnz_a as i64)
        .arg(b.indptr.dev_ptr()?)
        .arg(b.indices.dev_ptr()?)
        .arg(b.data.dev_ptr()?)
        .arg(off.dev_ptr()?)
        .arg(row.dev_ptr_mut()?)
        .arg(col.dev_ptr_mut()?)
        .arg(data.dev_ptr_mut()?)
        .run()?;
    Ok(CooMatrix {
        data,
        row,
        col,
        shape: (a.shape.0, b.shape.1),
    })
}

/// Per-row maxima (`want_max`) or minima of `vals` (one per stored entry of the canonical
/// `a`), the implicit zeros counted (see `reduce::row_minmax`).
pub(crate) fn row_minmax<T: Float, I: SpIndex>(
    d: &CudaDevice,
    a: &CsrMatrix<T, I>,
    vals: &Array<T::Real>,
    want_max: bool,
) -> Result<Array<T::Real>> {
    let (m, n) = a.shape;
    let mut out = Array::<T::Real>::empty(&[m], a.device())?;
    let f = sparse_fn::<T, I>(d, "sp_row_minmax")?;
    d.launch(&f, grid(d, m))
        .arg(a.indptr.dev_ptr()?)
        .arg(vals.dev_ptr()?)
        .arg(m as i64)
        .arg(n as i64)
        .arg(i32::from(want_max))
        .arg(out.dev_ptr_mut()?)
        .run()?;
    Ok(out)
}
