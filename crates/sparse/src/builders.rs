//! Host-side builders: [`LilMatrix`] (SciPy's `lil_array` / `lil_matrix`, a sorted list of
//! entries per row) and [`DokMatrix`] (SciPy's `dok_array` / `dok_matrix`, a map from position
//! to value). Both are filled element by element on the host and convert to CSR or COO on any
//! device in one transfer per array ([`LilMatrix::tocsr`], [`DokMatrix::tocsr`]); sparse
//! matrices on either device convert back with [`CsrMatrix::tolil`] and [`CsrMatrix::todok`]
//! (a copy to the host). They have no arithmetic: convert to CSR for it.

use crate::matrix::{check_index_range, hv};
use crate::{CooMatrix, CsrMatrix, SpIndex};
use cusci_core::error::make;
use cusci_core::{Array, Device, Float, Result};
use std::collections::BTreeMap;

/// Python's index rule: `-k` counts from the end; `InvalidArgument` out of range.
fn wrap(op: &str, i: isize, n: usize, what: &str) -> Result<usize> {
    let j = if i < 0 { i + n as isize } else { i };
    if j < 0 || j as usize >= n {
        return Err(make::arg(
            op,
            format!("{what} index {i} is out of bounds for size {n}"),
        ));
    }
    Ok(j as usize)
}

/// The CSR arrays of rows of (column, value) lists sorted by column, on `dev`.
fn csr_of_rows<'a, T: Float>(
    op: &str,
    shape: (usize, usize),
    nnz: usize,
    rows: impl Iterator<Item = &'a [(usize, T)]>,
    dev: &Device,
) -> Result<CsrMatrix<T>> {
    check_index_range::<i32>(op, shape.0, shape.1, nnz)?;
    let mut ip = Vec::with_capacity(shape.0 + 1);
    let mut ind = Vec::with_capacity(nnz);
    let mut dat = Vec::with_capacity(nnz);
    ip.push(0i32);
    for r in rows {
        for &(c, v) in r {
            ind.push(c as i32);
            dat.push(v);
        }
        ip.push(ind.len() as i32);
    }
    CsrMatrix::from_host(ip, ind, dat, shape, true, dev)
}

// ======================================================================================= LIL

/// A row-based list-of-lists builder (SciPy's `lil_array`): row `i` holds its entries as
/// (column, value) pairs sorted by column. Setting a value of zero removes the entry (as
/// SciPy); [`CsrMatrix::tolil`] keeps the explicit zeros of a matrix.
///
/// ```
/// use cusci_sparse::{LilMatrix, Device};
/// let mut a = LilMatrix::<f64>::new((2, 3));
/// a.set(0, 2, 5.0)?;
/// a.set(-1, 0, 1.0)?; // the last row
/// assert_eq!(a.get(0, 2)?, 5.0);
/// assert_eq!(a.nnz(), 2);
/// let c = a.tocsr(&Device::Cpu)?;
/// assert_eq!(c.toarray()?.to_vec()?, vec![0.0, 0.0, 5.0, 1.0, 0.0, 0.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct LilMatrix<T: Float> {
    shape: (usize, usize),
    rows: Vec<Vec<(usize, T)>>,
}

impl<T: Float> LilMatrix<T> {
    /// `lil_array((m, n))`: an empty m x n matrix.
    pub fn new(shape: (usize, usize)) -> Self {
        LilMatrix {
            shape,
            rows: vec![Vec::new(); shape.0],
        }
    }
    /// (rows, columns).
    pub fn shape(&self) -> (usize, usize) {
        self.shape
    }
    /// The number of stored entries.
    pub fn nnz(&self) -> usize {
        self.rows.iter().map(Vec::len).sum()
    }

    /// `A[i, j]` (0 where nothing is stored); negative indices count from the end.
    ///
    /// # Errors
    /// `InvalidArgument` for an index out of bounds (SciPy's IndexError).
    pub fn get(&self, i: isize, j: isize) -> Result<T> {
        let op = "lil_array.__getitem__";
        let (i, j) = (
            wrap(op, i, self.shape.0, "row")?,
            wrap(op, j, self.shape.1, "column")?,
        );
        let r = &self.rows[i];
        Ok(r.binary_search_by_key(&j, |e| e.0)
            .map_or(T::zero(), |k| r[k].1))
    }

    /// `A[i, j] = v`: stores `v`, or removes the entry when `v` is zero (as SciPy's
    /// `lil_insert`); negative indices count from the end.
    ///
    /// # Errors
    /// `InvalidArgument` for an index out of bounds.
    pub fn set(&mut self, i: isize, j: isize, v: T) -> Result<()> {
        let op = "lil_array.__setitem__";
        let (i, j) = (
            wrap(op, i, self.shape.0, "row")?,
            wrap(op, j, self.shape.1, "column")?,
        );
        let r = &mut self.rows[i];
        match (r.binary_search_by_key(&j, |e| e.0), v == T::zero()) {
            (Ok(k), true) => {
                r.remove(k);
            }
            (Ok(k), false) => r[k].1 = v,
            (Err(_), true) => {}
            (Err(k), false) => r.insert(k, (j, v)),
        }
        Ok(())
    }

    /// Row `i`'s stored entries: its columns (SciPy's `A.rows[i]`) and values (`A.data[i]`).
    ///
    /// # Errors
    /// `InvalidArgument` for a row out of bounds.
    pub fn row(&self, i: isize) -> Result<(Vec<usize>, Vec<T>)> {
        let i = wrap("lil_array.rows", i, self.shape.0, "row")?;
        Ok(self.rows[i].iter().copied().unzip())
    }

    /// `A[i, :] = values`: row `i` becomes the dense `values` (length n), zeros not stored.
    ///
    /// # Errors
    /// `InvalidArgument` for a row out of bounds; `ShapeMismatch` when `values` is not n long.
    pub fn set_row(&mut self, i: isize, values: &[T]) -> Result<()> {
        let op = "lil_array.__setitem__";
        let i = wrap(op, i, self.shape.0, "row")?;
        if values.len() != self.shape.1 {
            return Err(make::shape(
                op,
                format!(
                    "a row of {} values for {} columns",
                    values.len(),
                    self.shape.1
                ),
            ));
        }
        self.rows[i] = values
            .iter()
            .enumerate()
            .filter(|&(_, &v)| v != T::zero())
            .map(|(j, &v)| (j, v))
            .collect();
        Ok(())
    }

    /// The canonical CSR matrix on `dev` (`tocsr()`), `i32` indices (`with_index` for others).
    ///
    /// # Errors
    /// `InvalidArgument` past 32-bit indices; device errors.
    pub fn tocsr(&self, dev: &Device) -> Result<CsrMatrix<T>> {
        csr_of_rows(
            "lil_array.tocsr",
            self.shape,
            self.nnz(),
            self.rows.iter().map(Vec::as_slice),
            dev,
        )
    }

    /// The COO matrix on `dev` (`tocoo()`), entries in row-major order.
    ///
    /// # Errors
    /// As [`tocsr`](Self::tocsr).
    pub fn tocoo(&self, dev: &Device) -> Result<CooMatrix<T>> {
        self.tocsr(dev)?.tocoo()
    }

    /// The dense array on `dev` (`toarray()`).
    ///
    /// # Errors
    /// As [`tocsr`](Self::tocsr).
    pub fn toarray(&self, dev: &Device) -> Result<Array<T>> {
        self.tocsr(dev)?.toarray()
    }
}

// ======================================================================================= DOK

/// A dictionary-of-keys builder (SciPy's `dok_array`): a map from (row, column) to value, kept
/// in row-major order (so conversions do not depend on the order of insertion). Setting a
/// value of zero removes the key (as SciPy).
///
/// ```
/// use cusci_sparse::{DokMatrix, Device};
/// let mut a = DokMatrix::<f32>::new((3, 3));
/// a.set(2, 1, 4.0)?;
/// a.set(0, 0, 1.0)?;
/// a.set(2, 1, 0.0)?; // removed
/// assert_eq!(a.nnz(), 1);
/// assert_eq!(a.keys(), vec![(0, 0)]);
/// assert_eq!(a.tocsr(&Device::Cpu)?.nnz(), 1);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct DokMatrix<T: Float> {
    shape: (usize, usize),
    map: BTreeMap<(usize, usize), T>,
}

impl<T: Float> DokMatrix<T> {
    /// `dok_array((m, n))`: an empty m x n matrix.
    pub fn new(shape: (usize, usize)) -> Self {
        DokMatrix {
            shape,
            map: BTreeMap::new(),
        }
    }
    /// (rows, columns).
    pub fn shape(&self) -> (usize, usize) {
        self.shape
    }
    /// The number of stored entries.
    pub fn nnz(&self) -> usize {
        self.map.len()
    }
    /// The stored positions in row-major order (SciPy's `keys()`).
    pub fn keys(&self) -> Vec<(usize, usize)> {
        self.map.keys().copied().collect()
    }
    /// The stored (position, value) pairs in row-major order (SciPy's `items()`).
    pub fn items(&self) -> Vec<((usize, usize), T)> {
        self.map.iter().map(|(&k, &v)| (k, v)).collect()
    }

    /// `A[i, j]` (0 where nothing is stored); negative indices count from the end.
    ///
    /// # Errors
    /// `InvalidArgument` for an index out of bounds.
    pub fn get(&self, i: isize, j: isize) -> Result<T> {
        let op = "dok_array.__getitem__";
        let k = (
            wrap(op, i, self.shape.0, "row")?,
            wrap(op, j, self.shape.1, "column")?,
        );
        Ok(self.map.get(&k).copied().unwrap_or(T::zero()))
    }

    /// `A[i, j] = v`: stores `v`, or removes the key when `v` is zero.
    ///
    /// # Errors
    /// `InvalidArgument` for an index out of bounds.
    pub fn set(&mut self, i: isize, j: isize, v: T) -> Result<()> {
        let op = "dok_array.__setitem__";
        let k = (
            wrap(op, i, self.shape.0, "row")?,
            wrap(op, j, self.shape.1, "column")?,
        );
        if v == T::zero() {
            self.map.remove(&k);
        } else {
            self.map.insert(k, v);
        }
        Ok(())
    }

    /// The canonical CSR matrix on `dev` (`tocsr()`), `i32` indices.
    ///
    /// # Errors
    /// `InvalidArgument` past 32-bit indices; device errors.
    pub fn tocsr(&self, dev: &Device) -> Result<CsrMatrix<T>> {
        let op = "dok_array.tocsr";
        let (m, n) = self.shape;
        let nnz = self.map.len();
        check_index_range::<i32>(op, m, n, nnz)?;
        let mut counts = vec![0i32; m + 1];
        let mut ind = Vec::with_capacity(nnz);
        let mut dat = Vec::with_capacity(nnz);
        for (&(i, j), &v) in &self.map {
            counts[i + 1] += 1;
            ind.push(j as i32);
            dat.push(v);
        }
        for i in 0..m {
            counts[i + 1] += counts[i];
        }
        CsrMatrix::from_host(counts, ind, dat, self.shape, true, dev)
    }

    /// The COO matrix on `dev` (`tocoo()`), entries in row-major order.
    ///
    /// # Errors
    /// As [`tocsr`](Self::tocsr).
    pub fn tocoo(&self, dev: &Device) -> Result<CooMatrix<T>> {
        self.tocsr(dev)?.tocoo()
    }

    /// The dense array on `dev` (`toarray()`).
    ///
    /// # Errors
    /// As [`tocsr`](Self::tocsr).
    pub fn toarray(&self, dev: &Device) -> Result<Array<T>> {
        self.tocsr(dev)?.toarray()
    }
}

// ============================================================================ from CSR

impl<T: Float, I: SpIndex> CsrMatrix<T, I> {
    /// The host arrays of the canonical form.
    fn host_rows(&self) -> Result<(Vec<I>, Vec<I>, Vec<T>)> {
        let a = self.sum_duplicates()?.to_device(&Device::Cpu)?;
        Ok((
            hv(&a.indptr).to_vec(),
            hv(&a.indices).to_vec(),
            hv(&a.data).to_vec(),
        ))
    }

    /// `tolil()`: the matrix as a [`LilMatrix`] on the host (duplicates summed, explicit zeros
    /// kept, as SciPy's conversion). A copy to the host.
    ///
    /// ```
    /// use cusci_sparse::{eye, Device};
    /// let mut l = eye::<f64>(2, 2, 0, &Device::Cpu)?.tolil()?;
    /// l.set(0, 1, 3.0)?;
    /// assert_eq!(l.tocsr(&Device::Cpu)?.toarray()?.to_vec()?, vec![1.0, 3.0, 0.0, 1.0]);
    /// # Ok::<(), cusci_sparse::Error>(())
    /// ```
    ///
    /// # Errors
    /// Device errors only.
    pub fn tolil(&self) -> Result<LilMatrix<T>> {
        let (ip, ind, dat) = self.host_rows()?;
        let rows = (0..self.shape.0)
            .map(|i| {
                (ip[i].ix()..ip[i + 1].ix())
                    .map(|k| (ind[k].ix(), dat[k]))
                    .collect()
            })
            .collect();
        Ok(LilMatrix {
            shape: self.shape,
            rows,
        })
    }

    /// `todok()`: the matrix as a [`DokMatrix`] on the host (duplicates summed, explicit zeros
    /// kept). A copy to the host.
    ///
    /// # Errors
    /// Device errors only.
    pub fn todok(&self) -> Result<DokMatrix<T>> {
        let (ip, ind, dat) = self.host_rows()?;
        let mut map = BTreeMap::new();
        for i in 0..self.shape.0 {
            for k in ip[i].ix()..ip[i + 1].ix() {
                map.insert((i, ind[k].ix()), dat[k]);
            }
        }
        Ok(DokMatrix {
            shape: self.shape,
            map,
        })
    }
}
