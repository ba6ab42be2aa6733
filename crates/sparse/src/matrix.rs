//! The sparse formats: [`CsrMatrix`], [`CscMatrix`] and [`CooMatrix`] (SciPy's `csr_matrix`,
//! `csc_matrix`, `coo_matrix`), holding core [`Array`]s on either device.
//!
//! Indices are 32-bit (`i32`) by default, as SciPy's; every format takes a second type parameter
//! `I: SpIndex` (`i32` or `i64`) for 64-bit indices, which SciPy switches to when the dimensions or
//! the number of stored entries pass `i32::MAX`. Construction, validation, conversions between the
//! formats and index types, `toarray`, the products `dot` (SpMV/SpMM, cuSPARSE with
//! `CUSPARSE_INDEX_64I`), the arithmetic (`add`, `sub`, `multiply`, `matmul`, `eliminate_zeros`,
//! `diagonal`, sums), `todia`, `csgraph` and the
//! [`LinearOperator`](crate::linalg::LinearOperator) of the iterative solvers work for both; the
//! direct solvers and `spilu` take `i32` matrices. A matrix too large for its index type is
//! refused with `InvalidArgument`.

use crate::cpu;
use crate::cuda::{self, formats as gpu};
pub(crate) use crate::storage::{CooMatrix, CscMatrix, CsrMatrix, TransposeCache};
use crate::SpIndex;
use cusci_core::array::check_same_device;
use cusci_core::error::make;
use cusci_core::{Array, Backend, Device, Float, Result};

pub(crate) fn check_index_range<I: SpIndex>(
    op: &str,
    m: usize,
    n: usize,
    nnz: usize,
) -> Result<()> {
    if m > I::MAX || n > I::MAX || nnz > I::MAX {
        return Err(make::arg(
            op,
            format!(
                "shape ({m}, {n}) with {nnz} entries does not fit {} indices (use i64 indices)",
                I::DTYPE
            ),
        ));
    }
    Ok(())
}

/// The matrix with `i32` indices, for the routines whose kernels or factorisations use 32-bit
/// indices (SciPy's SuperLU downcasts the indices to `int32` likewise): borrowed when it has them
/// already, converted otherwise. `InvalidArgument` (named `op`) when the shape or the number of
/// stored entries does not fit `i32`.
pub(crate) fn as_i32<'a, T: Float, I: SpIndex>(
    op: &str,
    a: &'a CsrMatrix<T, I>,
) -> Result<std::borrow::Cow<'a, CsrMatrix<T>>> {
    if let Some(m) = (a as &dyn std::any::Any).downcast_ref::<CsrMatrix<T>>() {
        return Ok(std::borrow::Cow::Borrowed(m));
    }
    check_index_range::<i32>(op, a.shape.0, a.shape.1, a.nnz())?;
    Ok(std::borrow::Cow::Owned(a.with_index::<i32>()?))
}

/// The elements of a contiguous CPU array (the formats' arrays are contiguous by construction);
/// empty for a device array.
pub(crate) fn hv<U: cusci_core::Element>(a: &Array<U>) -> &[U] {
    match a.backend() {
        Backend::Host(h) => h.as_slice().unwrap_or(&[]),
        Backend::Cuda(_) => &[],
    }
}

fn check_1d<U: cusci_core::Element>(op: &str, what: &str, a: &Array<U>) -> Result<()> {
    if a.ndim() != 1 {
        return Err(make::shape(
            op,
            format!("{what} must be 1-D, got shape {:?}", a.shape()),
        ));
    }
    Ok(())
}

/// The three arrays of a format (`data` and two index arrays, named): each 1-D, all on the
/// device of `data`.
fn check_arrays<T: Float, I: SpIndex>(
    op: &str,
    data: &Array<T>,
    (na, a): (&str, &Array<I>),
    (nb, b): (&str, &Array<I>),
) -> Result<()> {
    check_1d(op, "data", data)?;
    check_1d(op, na, a)?;
    check_1d(op, nb, b)?;
    check_same_device(op, data.device(), a.device())?;
    check_same_device(op, data.device(), b.device())
}

pub(crate) fn flags_error(op: &str, f: i32, what: &str) -> Result<()> {
    if f & 4 != 0 {
        return Err(make::arg(
            op,
            "index pointer should start with 0 and end with the number of stored entries",
        ));
    }
    if f & 1 != 0 {
        return Err(make::arg(op, "index pointer values must be non-decreasing"));
    }
    if f & 2 != 0 {
        return Err(make::arg(op, format!("{what} index values out of bounds")));
    }
    Ok(())
}

// ====================================================================================== CSR

impl<T: Float, I: SpIndex> CsrMatrix<T, I> {
    /// `csr_matrix((data, indices, indptr), shape=shape)`: checks the structure fully (SciPy's
    /// `check_format(full_check=True)`): 1-D arrays on one device, `indptr` of length `m + 1`,
    /// starting at 0, non-decreasing and ending at `nnz`, indices in `0..n`. Unsorted or repeated
    /// indices are accepted (as SciPy) and [`has_canonical_format`](Self::has_canonical_format)
    /// says so; [`sum_duplicates`](Self::sum_duplicates) fixes them.
    ///
    /// # Errors
    /// `ShapeMismatch` for wrong array lengths or dimensions, `InvalidArgument` for a bad
    /// `indptr` or an index out of bounds, `DeviceMismatch` for arrays on different devices.
    pub fn new(
        data: Array<T>,
        indices: Array<I>,
        indptr: Array<I>,
        shape: (usize, usize),
    ) -> Result<Self> {
        let op = "csr_matrix";
        check_arrays(op, &data, ("indices", &indices), ("indptr", &indptr))?;
        let (m, n) = shape;
        // m + 1 checked: a shape of usize::MAX rows has no valid index pointer
        if m.checked_add(1) != Some(indptr.len()) {
            return Err(make::shape(
                op,
                format!("index pointer size {} should be {m} + 1", indptr.len()),
            ));
        }
        if indices.len() != data.len() {
            return Err(make::shape(
                op,
                format!(
                    "indices ({}) and data ({}) should have the same size",
                    indices.len(),
                    data.len()
                ),
            ));
        }
        check_index_range::<I>(op, m, n, data.len())?;
        let data = data.contiguous()?;
        let indices = indices.contiguous()?;
        let indptr = indptr.contiguous()?;
        let flags = match data.device() {
            Device::Cpu => cpu::csr_check(hv(&indptr), hv(&indices), n, data.len()),
            Device::Cuda(d) => gpu::csr_check::<T, I>(d, &indptr, &indices, shape, data.len())?,
        };
        flags_error(op, flags, "column")?;
        Ok(CsrMatrix {
            data,
            indices,
            indptr,
            shape,
            canonical: flags & 8 == 0,
            tcache: TransposeCache::default(),
        })
    }

    /// Internal: arrays known to be valid (and canonical when `canonical`).
    pub(crate) fn from_parts(
        data: Array<T>,
        indices: Array<I>,
        indptr: Array<I>,
        shape: (usize, usize),
        canonical: bool,
    ) -> Self {
        CsrMatrix {
            data,
            indices,
            indptr,
            shape,
            canonical,
            tcache: TransposeCache::default(),
        }
    }

    /// `csr_matrix(dense)` with indices of type `I` (see [`CsrMatrix::from_dense`] for `i32`):
    /// the nonzero entries of a 2-D array, row by row (canonical).
    ///
    /// ```
    /// use cusci_sparse::{CsrMatrix, Device, Array};
    /// let d = Array::from_vec(vec![0.0f64, 5.0], &[1, 2], &Device::Cpu)?;
    /// let a = CsrMatrix::<f64, i64>::from_dense_index(&d)?;
    /// assert_eq!(a.indices().to_vec()?, vec![1i64]);
    /// # Ok::<(), cusci_sparse::Error>(())
    /// ```
    ///
    /// # Errors
    /// `ShapeMismatch` when `a` is not 2-D; `InvalidArgument` when the shape does not fit `I`.
    pub fn from_dense_index(a: &Array<T>) -> Result<Self> {
        let op = "csr_matrix";
        if a.ndim() != 2 {
            return Err(make::shape(
                op,
                format!("a dense matrix must be 2-D, got shape {:?}", a.shape()),
            ));
        }
        let (m, n) = (a.shape()[0], a.shape()[1]);
        // every element may be stored: the counts and their scan are of type I
        check_index_range::<I>(op, m, n, m.saturating_mul(n))?;
        let a = a.contiguous()?;
        match a.device() {
            Device::Cpu => {
                let (ip, ind, dat) = cpu::fromdense(m, n, hv(&a));
                Self::from_host(ip, ind, dat, (m, n), true, &Device::Cpu)
            }
            Device::Cuda(d) => gpu::from_dense(d, &a),
        }
    }

    pub(crate) fn from_host(
        indptr: Vec<I>,
        indices: Vec<I>,
        data: Vec<T>,
        shape: (usize, usize),
        canonical: bool,
        dev: &Device,
    ) -> Result<Self> {
        let nnz = data.len();
        Ok(Self::from_parts(
            Array::from_vec(data, &[nnz], dev)?,
            Array::from_vec(indices, &[nnz], dev)?,
            Array::from_vec(indptr, &[shape.0 + 1], dev)?,
            shape,
            canonical,
        ))
    }

    /// (rows, columns).
    pub fn shape(&self) -> (usize, usize) {
        self.shape
    }
    /// The number of stored entries (explicit zeros and duplicates included), SciPy's `nnz`.
    pub fn nnz(&self) -> usize {
        self.data.len()
    }
    /// The stored values.
    pub fn data(&self) -> &Array<T> {
        &self.data
    }
    /// The column index of every stored value.
    pub fn indices(&self) -> &Array<I> {
        &self.indices
    }
    /// Row `i`'s entries are `indptr[i]..indptr[i+1]`.
    pub fn indptr(&self) -> &Array<I> {
        &self.indptr
    }
    /// The device holding the arrays.
    pub fn device(&self) -> &Device {
        self.data.device()
    }
    /// True when every row's indices are sorted and free of duplicates (SciPy's
    /// `has_canonical_format`).
    pub fn has_canonical_format(&self) -> bool {
        self.canonical
    }

    /// The same matrix on `dev` (copied there).
    ///
    /// # Errors
    /// Device errors only.
    pub fn to_device(&self, dev: &Device) -> Result<Self> {
        Ok(Self::from_parts(
            self.data.to_device(dev)?,
            self.indices.to_device(dev)?,
            self.indptr.to_device(dev)?,
            self.shape,
            self.canonical,
        ))
    }

    /// A copy with storage of its own.
    ///
    /// # Errors
    /// Device errors only.
    pub fn copy(&self) -> Result<Self> {
        Ok(Self::from_parts(
            self.data.copy()?,
            self.indices.copy()?,
            self.indptr.copy()?,
            self.shape,
            self.canonical,
        ))
    }

    /// The dense m x n array (`toarray()`); duplicates are summed.
    ///
    /// # Errors
    /// Device errors only.
    pub fn toarray(&self) -> Result<Array<T>> {
        let (m, n) = self.shape;
        cusci_core::array::layout::checked_numel("toarray", &[m, n])?;
        match self.device() {
            Device::Cpu => Array::from_vec(
                cpu::todense(n, hv(&self.indptr), hv(&self.indices), hv(&self.data))?,
                &[m, n],
                &Device::Cpu,
            ),
            Device::Cuda(d) => gpu::todense(d, self),
        }
    }

    /// The COO form (`tocoo()`): the same entries in the same order.
    ///
    /// # Errors
    /// Device errors only.
    pub fn tocoo(&self) -> Result<CooMatrix<T, I>> {
        let row = match self.device() {
            Device::Cpu => Array::from_vec(
                cpu::expand_rows(hv(&self.indptr)),
                &[self.nnz()],
                &Device::Cpu,
            )?,
            Device::Cuda(d) => gpu::expand_rows(d, self)?,
        };
        Ok(CooMatrix {
            data: self.data.clone(),
            row,
            col: self.indices.clone(),
            shape: self.shape,
        })
    }

    /// The CSC form (`tocsc()`): a transposing copy (cuSPARSE `csr2cscEx2` on the GPU, a
    /// stable counting sort on the CPU); the result is canonical when this matrix has no
    /// duplicates.
    ///
    /// # Errors
    /// `OutOfMemory` (`InvalidArgument` past `isize::MAX` bytes) when the index pointer of a
    /// huge dimension cannot be held (SciPy's MemoryError); device errors.
    pub fn tocsc(&self) -> Result<CscMatrix<T, I>> {
        Ok(CscMatrix {
            t: self.transpose_copy()?,
        })
    }

    /// The transpose as a CSR matrix of shape (n, m) (the arrays of this matrix's CSC form).
    pub(crate) fn transpose_copy(&self) -> Result<CsrMatrix<T, I>> {
        let (m, n) = self.shape;
        match self.device() {
            Device::Cpu => {
                let (tp, ti, td) =
                    cpu::transpose(n, hv(&self.indptr), hv(&self.indices), hv(&self.data))?;
                CsrMatrix::from_host(tp, ti, td, (n, m), self.canonical, &Device::Cpu)
            }
            Device::Cuda(d) => gpu::transpose(d, self),
        }
    }

    /// The transpose as a CSR matrix of shape (n, m), built on the first call (as
    /// `transpose_copy`) and kept with this matrix: later calls, and calls on its clones, cost
    /// nothing. For the repeated products of the solvers (`rmatvec` of CSR, `matvec` of CSC); the
    /// kept copy holds as much memory as the matrix until the matrix is dropped.
    pub(crate) fn transposed(&self) -> Result<CsrMatrix<T, I>> {
        if let Some(t) = self.tcache.get() {
            return Ok(t.clone());
        }
        let t = self.transpose_copy()?;
        Ok(self.tcache.get_or_init(|| t).clone())
    }

    /// `A.T`: the transpose, a CSC matrix sharing this matrix's arrays (no copy, as SciPy).
    pub fn transpose(&self) -> CscMatrix<T, I> {
        CscMatrix { t: self.clone() }
    }

    /// The complex conjugate (`conj()`); a copy for real types too.
    ///
    /// # Errors
    /// Device errors only.
    pub fn conj(&self) -> Result<Self> {
        Ok(Self::from_parts(
            self.data.conj()?,
            self.indices.clone(),
            self.indptr.clone(),
            self.shape,
            self.canonical,
        ))
    }

    /// `A * s` for a scalar `s` (the structure is kept, zeros included).
    ///
    /// # Errors
    /// Device errors only.
    pub fn mul_scalar(&self, s: T) -> Result<Self> {
        Ok(Self::from_parts(
            self.data.mul_scalar(s)?,
            self.indices.clone(),
            self.indptr.clone(),
            self.shape,
            self.canonical,
        ))
    }

    /// The canonical form (`sum_duplicates()` on a copy): indices sorted within each row,
    /// repeated entries summed (explicit zeros kept, as SciPy).
    ///
    /// # Errors
    /// Device errors only.
    pub fn sum_duplicates(&self) -> Result<Self> {
        if self.canonical {
            return Ok(self.clone());
        }
        self.tocoo()?.tocsr()
    }

    /// `A @ x`: SpMV when `x` is 1-D of length n (result of length m), SpMM when `x` is 2-D
    /// n x k (result m x k). Row-parallel loops on the CPU (each row summed in stored order).
    /// On the GPU, SpMV of a matrix whose rows hold at most 32 entries on average runs this
    /// crate's kernel for short rows (each warp streams a contiguous range of entries with
    /// coalesced 128-bit loads, multiplies by the gathered `x` and sums each row in stored order,
    /// so real results are bitwise the CPU's; a stretch of one row longer than a warp's chunk is
    /// summed as a tree); longer rows and SpMM go to cuSPARSE's `SpMV`/`SpMM`.
    ///
    /// ```
    /// use cusci_sparse::{CsrMatrix, Device, Array};
    /// let dev = Device::Cpu;
    /// let a = CsrMatrix::from_dense(&Array::from_vec(vec![1.0f64, 0.0, 0.0, 2.0], &[2, 2], &dev)?)?;
    /// let y = a.dot(&Array::from_vec(vec![3.0, 4.0], &[2], &dev)?)?;
    /// assert_eq!(y.to_vec()?, vec![3.0, 8.0]);
    /// # Ok::<(), cusci_sparse::Error>(())
    /// ```
    ///
    /// # Errors
    /// `ShapeMismatch` when `x` has another length than n or more than 2 dimensions,
    /// `DeviceMismatch` when it lives elsewhere.
    pub fn dot(&self, x: &Array<T>) -> Result<Array<T>> {
        let op = "csr_matrix.dot";
        check_same_device(op, self.device(), x.device())?;
        let (m, n) = self.shape;
        if x.ndim() == 0 || x.ndim() > 2 || x.shape()[0] != n {
            return Err(make::shape(
                op,
                format!(
                    "matrix of shape ({m}, {n}) times an operand of shape {:?}",
                    x.shape()
                ),
            ));
        }
        let x = x.contiguous()?;
        match self.device() {
            Device::Cpu => self.dot_cpu(&x),
            Device::Cuda(d) => cuda::spmv::dot(d, self, &x),
        }
    }

    /// [`dot`](Self::dot) on the CPU for a contiguous `x`.
    fn dot_cpu(&self, x: &Array<T>) -> Result<Array<T>> {
        let m = self.shape.0;
        let (ip, ind, dat) = (hv(&self.indptr), hv(&self.indices), hv(&self.data));
        if x.ndim() == 1 {
            Array::from_vec(cpu::spmv(ip, ind, dat, hv(x)), &[m], &Device::Cpu)
        } else {
            let k = x.shape()[1];
            Array::from_vec(cpu::spmm(ip, ind, dat, hv(x), k), &[m, k], &Device::Cpu)
        }
    }
}

// ====================================================================================== CSC

impl<T: Float, I: SpIndex> CscMatrix<T, I> {
    /// `csc_matrix((data, indices, indptr), shape=shape)`, checked as [`CsrMatrix::new`] (with
    /// rows and columns exchanged).
    ///
    /// # Errors
    /// As [`CsrMatrix::new`].
    pub fn new(
        data: Array<T>,
        indices: Array<I>,
        indptr: Array<I>,
        shape: (usize, usize),
    ) -> Result<Self> {
        Ok(CscMatrix {
            t: CsrMatrix::new(data, indices, indptr, (shape.1, shape.0))?,
        })
    }
    /// (rows, columns).
    pub fn shape(&self) -> (usize, usize) {
        (self.t.shape.1, self.t.shape.0)
    }
    /// Stored entries.
    pub fn nnz(&self) -> usize {
        self.t.nnz()
    }
    /// The stored values.
    pub fn data(&self) -> &Array<T> {
        &self.t.data
    }
    /// The row index of every stored value.
    pub fn indices(&self) -> &Array<I> {
        &self.t.indices
    }
    /// Column `j`'s entries are `indptr[j]..indptr[j+1]`.
    pub fn indptr(&self) -> &Array<I> {
        &self.t.indptr
    }
    /// The device holding the arrays.
    pub fn device(&self) -> &Device {
        self.t.device()
    }
    /// True when indices are sorted and unique within every column.
    pub fn has_canonical_format(&self) -> bool {
        self.t.canonical
    }
    /// `A.T`: the transpose as a CSR matrix sharing the arrays (no copy).
    pub fn transpose(&self) -> CsrMatrix<T, I> {
        self.t.clone()
    }
    /// The CSR form (`tocsr()`): a transposing copy (cuSPARSE `csr2cscEx2` on the GPU).
    ///
    /// ```
    /// use cusci_sparse::{CsrMatrix, Device, Array};
    /// let dev = Device::Cpu;
    /// let a = CsrMatrix::from_dense(&Array::from_vec(vec![1.0f64, 2.0, 0.0, 3.0], &[2, 2], &dev)?)?;
    /// let at = a.transpose().tocsr()?;
    /// assert_eq!(at.toarray()?.to_vec()?, vec![1.0, 0.0, 2.0, 3.0]);
    /// # Ok::<(), cusci_sparse::Error>(())
    /// ```
    ///
    /// # Errors
    /// `OutOfMemory` (`InvalidArgument` past `isize::MAX` bytes) when the index pointer of a
    /// huge dimension cannot be held (SciPy's MemoryError); device errors.
    pub fn tocsr(&self) -> Result<CsrMatrix<T, I>> {
        self.t.transpose_copy()
    }
    /// The dense array.
    ///
    /// # Errors
    /// Device errors only.
    pub fn toarray(&self) -> Result<Array<T>> {
        self.t.toarray()?.t().contiguous()
    }
    /// The COO form.
    ///
    /// # Errors
    /// Device errors only.
    pub fn tocoo(&self) -> Result<CooMatrix<T, I>> {
        Ok(self.t.tocoo()?.transpose())
    }
    /// `A @ x` through the CSR form, which is built on the first call and kept with the matrix
    /// (and its clones), so repeated products cost one transposing copy in all; that copy holds
    /// as much memory as the matrix until the matrix is dropped.
    ///
    /// # Errors
    /// As [`CsrMatrix::dot`].
    pub fn dot(&self, x: &Array<T>) -> Result<Array<T>> {
        self.t.transposed()?.dot(x)
    }
}

// ====================================================================================== COO

impl<T: Float, I: SpIndex> CooMatrix<T, I> {
    /// `coo_matrix((data, (row, col)), shape=shape)`: 1-D arrays of one length on one device,
    /// indices within the shape (checked).
    ///
    /// # Errors
    /// `ShapeMismatch` for arrays of different lengths or not 1-D, `InvalidArgument` for an index
    /// out of bounds (or negative), `DeviceMismatch`.
    pub fn new(
        data: Array<T>,
        row: Array<I>,
        col: Array<I>,
        shape: (usize, usize),
    ) -> Result<Self> {
        let op = "coo_matrix";
        check_arrays(op, &data, ("row", &row), ("col", &col))?;
        if row.len() != data.len() || col.len() != data.len() {
            return Err(make::shape(
                op,
                format!(
                    "row ({}), column ({}) and data ({}) arrays must have the same length",
                    row.len(),
                    col.len(),
                    data.len()
                ),
            ));
        }
        let (m, n) = shape;
        check_index_range::<I>(op, m, n, data.len())?;
        let data = data.contiguous()?;
        let row = row.contiguous()?;
        let col = col.contiguous()?;
        let bad = match data.device() {
            Device::Cpu => hv(&row).iter().zip(hv(&col)).any(|(&r, &c)| {
                let (r, c) = (r.to_i64(), c.to_i64());
                r < 0 || r as usize >= m || c < 0 || c as usize >= n
            }),
            Device::Cuda(d) => gpu::coo_out_of_bounds::<T, I>(d, &row, &col, shape)?,
        };
        if bad {
            return Err(make::arg(
                op,
                format!("row or column index out of bounds for shape ({m}, {n})"),
            ));
        }
        Ok(CooMatrix {
            data,
            row,
            col,
            shape,
        })
    }

    /// (rows, columns).
    pub fn shape(&self) -> (usize, usize) {
        self.shape
    }
    /// Stored entries (duplicates counted).
    pub fn nnz(&self) -> usize {
        self.data.len()
    }
    /// The values.
    pub fn data(&self) -> &Array<T> {
        &self.data
    }
    /// Row indices.
    pub fn row(&self) -> &Array<I> {
        &self.row
    }
    /// Column indices.
    pub fn col(&self) -> &Array<I> {
        &self.col
    }
    /// The device holding the arrays.
    pub fn device(&self) -> &Device {
        self.data.device()
    }
    /// The transpose (rows and columns exchanged; no copy).
    pub fn transpose(&self) -> CooMatrix<T, I> {
        CooMatrix {
            data: self.data.clone(),
            row: self.col.clone(),
            col: self.row.clone(),
            shape: (self.shape.1, self.shape.0),
        }
    }

    /// The canonical CSR form (`tocsr()`): duplicates summed, indices sorted in every row. The
    /// duplicates of one position are added in their order in this matrix, on both devices, so
    /// both give the same bits. GPU: a row histogram, a scan, a bucket scatter, a per-row sort
    /// by (column, position) and a per-row sum (this crate's kernels); one wait for the size.
    ///
    /// # Errors
    /// `OutOfMemory` (`InvalidArgument` past `isize::MAX` bytes) when the index pointer of a
    /// huge dimension cannot be held (SciPy's MemoryError); device errors.
    pub fn tocsr(&self) -> Result<CsrMatrix<T, I>> {
        match self.device() {
            Device::Cpu => {
                let (ip, ind, dat) =
                    cpu::coo_to_csr(self.shape.0, hv(&self.row), hv(&self.col), hv(&self.data))?;
                CsrMatrix::from_host(ip, ind, dat, self.shape, true, &Device::Cpu)
            }
            Device::Cuda(d) => gpu::coo_to_csr(d, self),
        }
    }

    /// The canonical CSC form (`tocsc()`).
    ///
    /// # Errors
    /// `OutOfMemory` (`InvalidArgument` past `isize::MAX` bytes) when the index pointer of a
    /// huge dimension cannot be held (SciPy's MemoryError); device errors.
    pub fn tocsc(&self) -> Result<CscMatrix<T, I>> {
        Ok(CscMatrix {
            t: self.transpose().tocsr()?,
        })
    }

    /// The dense array (duplicates summed).
    ///
    /// # Errors
    /// Device errors only.
    pub fn toarray(&self) -> Result<Array<T>> {
        self.tocsr()?.toarray()
    }
}

// ============================================================== index types, dense input

impl<T: Float> CsrMatrix<T> {
    /// `csr_matrix(dense)`: the nonzero entries of a 2-D array, row by row (canonical), with
    /// `i32` indices ([`from_dense_index`](Self::from_dense_index) for others).
    ///
    /// # Errors
    /// `ShapeMismatch` when `a` is not 2-D; `InvalidArgument` when `m·n` passes `i32::MAX`.
    pub fn from_dense(a: &Array<T>) -> Result<Self> {
        Self::from_dense_index(a)
    }
}

impl<T: Float, I: SpIndex> CsrMatrix<T, I> {
    /// The same matrix with indices of type `J` (SciPy: `A.indices.astype(...)`,
    /// `A.indptr.astype(...)`): `with_index::<i64>()` widens, `with_index::<i32>()` narrows.
    /// The values are shared, the index arrays converted on the device.
    ///
    /// ```
    /// use cusci_sparse::{identity, Device};
    /// let a = identity::<f64>(3, &Device::Cpu)?.with_index::<i64>()?;
    /// assert_eq!(a.indptr().to_vec()?, vec![0i64, 1, 2, 3]);
    /// # Ok::<(), cusci_sparse::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` when the shape or the number of entries does not fit `J`.
    pub fn with_index<J: SpIndex>(&self) -> Result<CsrMatrix<T, J>> {
        let op = "csr_matrix.with_index";
        check_index_range::<J>(op, self.shape.0, self.shape.1, self.nnz())?;
        Ok(CsrMatrix::from_parts(
            self.data.clone(),
            self.indices.astype()?,
            self.indptr.astype()?,
            self.shape,
            self.canonical,
        ))
    }
}

impl<T: Float, I: SpIndex> CscMatrix<T, I> {
    /// The same matrix with indices of type `J` (see [`CsrMatrix::with_index`]).
    ///
    /// # Errors
    /// `InvalidArgument` when the shape or the number of entries does not fit `J`.
    pub fn with_index<J: SpIndex>(&self) -> Result<CscMatrix<T, J>> {
        Ok(CscMatrix {
            t: self.t.with_index()?,
        })
    }
}

impl<T: Float, I: SpIndex> CooMatrix<T, I> {
    /// The same matrix with indices of type `J` (see [`CsrMatrix::with_index`]).
    ///
    /// # Errors
    /// `InvalidArgument` when the shape or the number of entries does not fit `J`.
    pub fn with_index<J: SpIndex>(&self) -> Result<CooMatrix<T, J>> {
        let op = "coo_matrix.with_index";
        check_index_range::<J>(op, self.shape.0, self.shape.1, self.nnz())?;
        Ok(CooMatrix {
            data: self.data.clone(),
            row: self.row.astype()?,
            col: self.col.astype()?,
            shape: self.shape,
        })
    }
}
