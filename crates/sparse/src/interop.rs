//! `sprs` interop: `CsMatI` ↔ [`CsrMatrix`]/[`CscMatrix`]. A `CsMatI` whose storage matches
//! the target's (CSR for `CsrMatrix`, CSC for `CscMatrix`) moves its three vectors in without a
//! copy on the CPU; the other storage is converted by `sprs` first. Back to `sprs` the arrays
//! are copied (read from the device), in canonical form (sorted, duplicates summed) as `sprs`
//! requires.

use crate::{CscMatrix, CsrMatrix, SpIndex};
use cusci_core::error::make;
use cusci_core::{Array, Device, Float, Result};

/// The index types both crates know (`i32`, `i64`).
pub trait SprsIndex: SpIndex + sprs::SpIndex {}
impl SprsIndex for i32 {}
impl SprsIndex for i64 {}

/// The three arrays of a compressed matrix (`indptr`, `indices`, `data`) moved onto `dev`.
fn arrays<T: Float, I: SprsIndex>(
    m: sprs::CsMatI<T, I>,
    dev: &Device,
) -> Result<(Array<T>, Array<I>, Array<I>)> {
    let (indptr, indices, data) = m.into_raw_storage();
    let (np, ni, nd) = (indptr.len(), indices.len(), data.len());
    Ok((
        Array::from_vec(data, &[nd], dev)?,
        Array::from_vec(indices, &[ni], dev)?,
        Array::from_vec(indptr, &[np], dev)?,
    ))
}

/// A `CsMatI` of `storage` from copies of canonical arrays.
fn to_sprs<T: Float, I: SprsIndex>(
    op: &str,
    shape: (usize, usize),
    csr: &CsrMatrix<T, I>,
) -> Result<sprs::CsMatI<T, I>> {
    let c = csr.sum_duplicates()?.sort_indices()?;
    sprs::CsMatI::try_new(
        shape,
        c.indptr().to_vec()?,
        c.indices().to_vec()?,
        c.data().to_vec()?,
    )
    .map_err(|(_, _, _, e)| make::arg(op, format!("sprs refuses the structure: {e}")))
}

impl<T: Float, I: SprsIndex> CsrMatrix<T, I> {
    /// The `sprs` matrix `m` as a CSR matrix on `dev`: without a copy on the CPU when `m` is
    /// stored as CSR (a CSC `m` is converted by `sprs`, `to_other_storage`).
    ///
    /// # Errors
    /// As [`CsrMatrix::new`]; device errors.
    ///
    /// ```
    /// use cusci_sparse::{CsrMatrix, Device};
    /// let s = sprs::CsMatI::<f64, i32>::new((2, 3), vec![0, 1, 3], vec![2, 0, 1], vec![1.0, 2.0, 3.0]);
    /// let a = CsrMatrix::from_sprs(s.clone(), &Device::Cpu).unwrap();
    /// assert_eq!(a.toarray().unwrap().to_vec().unwrap(), vec![0.0, 0.0, 1.0, 2.0, 3.0, 0.0]);
    /// assert_eq!(a.to_sprs().unwrap(), s);
    /// ```
    pub fn from_sprs(m: sprs::CsMatI<T, I>, dev: &Device) -> Result<Self> {
        let m = if m.is_csr() { m } else { m.to_other_storage() };
        let shape = (m.rows(), m.cols());
        let (data, indices, indptr) = arrays(m, dev)?;
        CsrMatrix::new(data, indices, indptr, shape)
    }

    /// This matrix as a CSR `sprs::CsMatI` (copied to the host, canonical form).
    ///
    /// # Errors
    /// `OutOfMemory` and device errors.
    pub fn to_sprs(&self) -> Result<sprs::CsMatI<T, I>> {
        to_sprs("to_sprs", self.shape(), self)
    }
}

impl<T: Float, I: SprsIndex> CscMatrix<T, I> {
    /// The `sprs` matrix `m` as a CSC matrix on `dev`: without a copy on the CPU when `m` is
    /// stored as CSC.
    ///
    /// # Errors
    /// As [`CscMatrix::new`]; device errors.
    pub fn from_sprs(m: sprs::CsMatI<T, I>, dev: &Device) -> Result<Self> {
        let m = if m.is_csc() { m } else { m.to_other_storage() };
        let shape = (m.rows(), m.cols());
        let (data, indices, indptr) = arrays(m, dev)?;
        CscMatrix::new(data, indices, indptr, shape)
    }

    /// This matrix as a CSC `sprs::CsMatI` (copied to the host, canonical form).
    ///
    /// # Errors
    /// `OutOfMemory` and device errors.
    pub fn to_sprs(&self) -> Result<sprs::CsMatI<T, I>> {
        let (r, c) = self.shape();
        let t = to_sprs("to_sprs", (c, r), &self.transpose())?;
        // the transpose's CSR arrays are this matrix's CSC arrays
        Ok(t.transpose_into())
    }
}
