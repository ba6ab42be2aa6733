//! What the factorisation's front end and both devices share: the factors and the conversions
//! of the dense tail.

use super::errors::internal;
use super::Symbolic;
use crate::matrix::CsrMatrix;
use cusci_core::{Array, Float, Result};

/// The factors of [`splu_with`]: `L`, `U` as CSR, the pivot rows (device) and `pinv` (host).
pub(crate) struct Factors<T: Float> {
    pub(crate) l: CsrMatrix<T>,
    pub(crate) u: CsrMatrix<T>,
    pub(crate) piv: Array<i32>,
    pub(crate) pinv: Vec<i32>,
}

/// CSR of `L` and `U` from their CSC arrays (column pointers, row indices, values) on `dev`.
pub(crate) fn csc_to_csr<T: Float>(
    cp: Array<i32>,
    ri: Array<i32>,
    v: Array<T>,
    n: usize,
) -> Result<CsrMatrix<T>> {
    // the CSC arrays are the CSR arrays of the transpose; its transpose is sorted by column
    let t = CsrMatrix::from_parts(v, ri, cp, (n, n), true).transpose_copy()?;
    Ok(CsrMatrix::from_parts(
        t.data().clone(),
        t.indices().clone(),
        t.indptr().clone(),
        (n, n),
        true,
    ))
}

/// The rows not pivotal after the sparse columns (ascending) and each row's index among them
/// (`-1` for a pivotal row), from `pinv`.
pub(crate) fn tail_rows(op: &str, sym: &Symbolic, pinv: &[i32]) -> Result<(Vec<i32>, Vec<i32>)> {
    let n = pinv.len();
    let mut rows = Vec::with_capacity(n - sym.tail);
    let mut map = vec![-1i32; n];
    for (i, &p) in pinv.iter().enumerate() {
        if p < 0 {
            map[i] = rows.len() as i32;
            rows.push(i as i32);
        }
    }
    if rows.len() != n - sym.tail {
        return Err(internal(
            op,
            format!("{} rows left for a tail of {}", rows.len(), n - sym.tail),
        ));
    }
    Ok((rows, map))
}

/// `rowperm[r]`: the original row of row `r` of the dense block after its pivoting, from the
/// LAPACK interchanges `ipiv` (`r` swapped with `ipiv[r]`, in order).
pub(crate) fn tail_rowperm(rows: &[i32], ipiv: &[i64]) -> Vec<i32> {
    let mut p = rows.to_vec();
    for (r, &q) in ipiv.iter().enumerate() {
        p.swap(r, q as usize);
    }
    p
}
