//! The BSR format: [`BsrMatrix`] (SciPy's `bsr_array` / `bsr_matrix`) and
//! [`CsrMatrix::tobsr`].
//!
//! Products go through the matrix's CSR form (every block entry stored), built on the device
//! on first use and kept with the matrix and its clones: the crate's cuSPARSE bindings have no
//! BSR routine, so `dot` is the CSR SpMV/SpMM of [`CsrMatrix::dot`] on that form (it holds
//! `nnz` values and indices beside the blocks until the matrix is dropped).

use crate::cpu;
use crate::cuda::formats as gpu;
use crate::matrix::{check_index_range, flags_error, hv};
use crate::operator::LinearOperator;
pub(crate) use crate::storage::BsrMatrix;
use crate::{CooMatrix, CscMatrix, CsrMatrix, SpIndex};
use cusci_core::array::check_same_device;
use cusci_core::error::make;
use cusci_core::{Array, Device, Float, Result};
use std::collections::BTreeMap;

impl<T: Float, I: SpIndex> BsrMatrix<T, I> {
    /// `bsr_array((data, indices, indptr), shape=shape)`: `data` is 3-D (nblocks, R, C) and
    /// gives the blocksize (R, C); `indices` (nblocks) are block columns, `indptr`
    /// (m / R + 1) points into them by block row. Checked as [`CsrMatrix::new`] on the block
    /// structure; unsorted or repeated block columns are accepted and
    /// [`has_canonical_format`](Self::has_canonical_format) says so.
    ///
    /// # Errors
    /// `InvalidArgument` for a zero block dimension, a shape that is not a multiple of the
    /// blocksize, a bad `indptr` or a block column out of bounds; `ShapeMismatch` for wrong
    /// array dimensions or lengths; `DeviceMismatch` for arrays on different devices.
    pub fn new(
        data: Array<T>,
        indices: Array<I>,
        indptr: Array<I>,
        shape: (usize, usize),
    ) -> Result<Self> {
        let op = "bsr_matrix";
        check_same_device(op, data.device(), indices.device())?;
        check_same_device(op, data.device(), indptr.device())?;
        if data.ndim() != 3 {
            return Err(make::shape(
                op,
                format!(
                    "data must be 3-D (blocks, R, C), got shape {:?}",
                    data.shape()
                ),
            ));
        }
        if indices.ndim() != 1 || indptr.ndim() != 1 {
            return Err(make::shape(op, "indices and indptr must be 1-D"));
        }
        let (nb, r, c) = (data.shape()[0], data.shape()[1], data.shape()[2]);
        let (m, n) = shape;
        if r == 0 || c == 0 {
            return Err(make::arg(op, format!("invalid blocksize ({r}, {c})")));
        }
        if m % r != 0 || n % c != 0 {
            return Err(make::arg(
                op,
                format!("shape ({m}, {n}) must be a multiple of the blocksize ({r}, {c})"),
            ));
        }
        let (mb, nbc) = (m / r, n / c);
        if indptr.len() != mb + 1 {
            return Err(make::shape(
                op,
                format!("index pointer size {} should be {mb} + 1", indptr.len()),
            ));
        }
        if indices.len() != nb {
            return Err(make::shape(
                op,
                format!(
                    "indices ({}) and data ({nb} blocks) should have the same size",
                    indices.len()
                ),
            ));
        }
        check_index_range::<I>(op, m, n, nb)?;
        let data = data.contiguous()?;
        let indices = indices.contiguous()?;
        let indptr = indptr.contiguous()?;
        let flags = match data.device() {
            Device::Cpu => cpu::csr_check(hv(&indptr), hv(&indices), nbc, nb),
            Device::Cuda(d) => gpu::csr_check::<T, I>(d, &indptr, &indices, (mb, nbc), nb)?,
        };
        flags_error(op, flags, "column")?;
        Ok(BsrMatrix {
            data,
            indices,
            indptr,
            shape,
            canonical: flags & 8 == 0,
            csr: Default::default(),
        })
    }

    /// `bsr_array(dense, blocksize=(R, C))`: the blocks of a 2-D array that hold a nonzero
    /// (each stored whole, its zeros included), sorted by block column.
    ///
    /// ```
    /// use cusci_sparse::{BsrMatrix, Device, Array};
    /// let d = Array::from_vec(vec![1.0f64, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0], &[2, 4], &Device::Cpu)?;
    /// let a = BsrMatrix::<f64>::from_dense(&d, (2, 2))?;
    /// assert_eq!(a.indices().to_vec()?, vec![0, 1]);
    /// assert_eq!(a.nnz(), 8);
    /// # Ok::<(), cusci_sparse::Error>(())
    /// ```
    ///
    /// # Errors
    /// `ShapeMismatch` when `a` is not 2-D; `InvalidArgument` as [`CsrMatrix::tobsr`].
    pub fn from_dense(a: &Array<T>, blocksize: (usize, usize)) -> Result<Self> {
        CsrMatrix::<T, I>::from_dense_index(a)?.tobsr(blocksize)
    }

    /// (rows, columns).
    pub fn shape(&self) -> (usize, usize) {
        self.shape
    }
    /// The block dimensions (R, C).
    pub fn blocksize(&self) -> (usize, usize) {
        (self.data.shape()[1], self.data.shape()[2])
    }
    /// The number of stored values, every entry of every block (SciPy's `bsr.nnz`).
    pub fn nnz(&self) -> usize {
        self.data.len()
    }
    /// The number of stored blocks.
    pub fn nblocks(&self) -> usize {
        self.data.shape()[0]
    }
    /// The blocks, (nblocks, R, C).
    pub fn data(&self) -> &Array<T> {
        &self.data
    }
    /// The block column of every block.
    pub fn indices(&self) -> &Array<I> {
        &self.indices
    }
    /// Block row `i`'s blocks are `indptr[i]..indptr[i+1]`.
    pub fn indptr(&self) -> &Array<I> {
        &self.indptr
    }
    /// The device holding the arrays.
    pub fn device(&self) -> &Device {
        self.data.device()
    }
    /// True when every block row's block columns are sorted and free of duplicates.
    pub fn has_canonical_format(&self) -> bool {
        self.canonical
    }

    /// The same matrix on `dev`.
    ///
    /// # Errors
    /// Device errors only.
    pub fn to_device(&self, dev: &Device) -> Result<Self> {
        Ok(BsrMatrix {
            data: self.data.to_device(dev)?,
            indices: self.indices.to_device(dev)?,
            indptr: self.indptr.to_device(dev)?,
            shape: self.shape,
            canonical: self.canonical,
            csr: Default::default(),
        })
    }

    /// The same matrix with indices of type `J`.
    ///
    /// # Errors
    /// `InvalidArgument` when the shape or the number of blocks does not fit `J`.
    pub fn with_index<J: SpIndex>(&self) -> Result<BsrMatrix<T, J>> {
        check_index_range::<J>(
            "bsr_matrix.with_index",
            self.shape.0,
            self.shape.1,
            self.nnz(),
        )?;
        Ok(BsrMatrix {
            data: self.data.clone(),
            indices: self.indices.astype()?,
            indptr: self.indptr.astype()?,
            shape: self.shape,
            canonical: self.canonical,
            csr: Default::default(),
        })
    }

    /// The CSR form (`tocsr()`): every entry of every block stored (explicit zeros kept, as
    /// SciPy's `bsr_tocsr`), canonical when the block columns are. A GPU kernel (one thread
    /// per row) on the GPU.
    ///
    /// ```
    /// use cusci_sparse::{BsrMatrix, Device, Array};
    /// let dev = Device::Cpu;
    /// let a = BsrMatrix::new(
    ///     Array::from_vec(vec![1.0f64, 0.0, 3.0, 4.0], &[1, 2, 2], &dev)?,
    ///     Array::from_vec(vec![0], &[1], &dev)?,
    ///     Array::from_vec(vec![0, 1], &[2], &dev)?,
    ///     (2, 2),
    /// )?;
    /// let c = a.tocsr()?;
    /// assert_eq!(c.indptr().to_vec()?, vec![0, 2, 4]);
    /// assert_eq!(c.data().to_vec()?, vec![1.0, 0.0, 3.0, 4.0]);
    /// # Ok::<(), cusci_sparse::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` when the number of block entries does not fit `I`; device errors.
    pub fn tocsr(&self) -> Result<CsrMatrix<T, I>> {
        let (m, n) = self.shape;
        check_index_range::<I>("bsr_matrix.tocsr", m, n, self.nnz())?;
        let (r, c) = self.blocksize();
        match self.device() {
            Device::Cpu => {
                let (bp, bi, bd) = (hv(&self.indptr), hv(&self.indices), hv(&self.data));
                let nnz = self.nnz();
                let mut ip = Vec::with_capacity(m + 1);
                let mut ind = Vec::with_capacity(nnz);
                let mut dat = Vec::with_capacity(nnz);
                ip.push(I::zero());
                for row in 0..m {
                    let (i, rr) = (row / r, row % r);
                    for k in bp[i].ix()..bp[i + 1].ix() {
                        let c0 = bi[k].ix() * c;
                        let src = &bd[(k * r + rr) * c..(k * r + rr + 1) * c];
                        for (cc, &v) in src.iter().enumerate() {
                            ind.push(I::of(c0 + cc));
                            dat.push(v);
                        }
                    }
                    ip.push(I::of(ind.len()));
                }
                CsrMatrix::from_host(ip, ind, dat, self.shape, self.canonical, &Device::Cpu)
            }
            Device::Cuda(d) => gpu::bsr_to_csr(d, self),
        }
    }

    /// The CSR form kept with the matrix (built by the first product).
    fn csr_form(&self) -> Result<CsrMatrix<T, I>> {
        if let Some(a) = self.csr.get() {
            return Ok(a.clone());
        }
        let a = self.tocsr()?;
        Ok(self.csr.get_or_init(|| a).clone())
    }

    /// The COO form (`tocoo()`), every block entry stored.
    ///
    /// # Errors
    /// Device errors only.
    pub fn tocoo(&self) -> Result<CooMatrix<T, I>> {
        self.tocsr()?.tocoo()
    }

    /// The CSC form (`tocsc()`).
    ///
    /// # Errors
    /// Device errors only.
    pub fn tocsc(&self) -> Result<CscMatrix<T, I>> {
        self.tocsr()?.tocsc()
    }

    /// The dense array (`toarray()`); repeated blocks are summed.
    ///
    /// # Errors
    /// Device errors only.
    pub fn toarray(&self) -> Result<Array<T>> {
        self.tocsr()?.toarray()
    }

    /// `A @ x`: SpMV for a 1-D `x` of length n, SpMM for an (n, k) `x`, through the CSR form
    /// (built on the first call and kept; see the module notes), so the sums and tolerances
    /// are those of [`CsrMatrix::dot`].
    ///
    /// ```
    /// use cusci_sparse::{BsrMatrix, Device, Array};
    /// let dev = Device::Cpu;
    /// let d = Array::from_vec(vec![1.0f64, 2.0, 0.0, 3.0], &[2, 2], &dev)?;
    /// let a = BsrMatrix::<f64>::from_dense(&d, (1, 2))?;
    /// let y = a.dot(&Array::from_vec(vec![1.0, 1.0], &[2], &dev)?)?;
    /// assert_eq!(y.to_vec()?, vec![3.0, 3.0]);
    /// # Ok::<(), cusci_sparse::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`CsrMatrix::dot`].
    pub fn dot(&self, x: &Array<T>) -> Result<Array<T>> {
        check_same_device("bsr_matrix.dot", self.device(), x.device())?;
        self.csr_form()?.dot(x)
    }
}

impl<T: Float, I: SpIndex> CsrMatrix<T, I> {
    /// `tobsr(blocksize=(R, C))`: the BSR form, one stored block for every block that holds a
    /// stored entry (explicit zeros count, as SciPy), duplicates summed, block columns sorted
    /// (SciPy keeps them in order of first appearance; the matrix is the same). SciPy's
    /// `blocksize=None` (an estimated blocksize) is not offered: pass the blocksize. On the GPU
    /// the block structure is built by the crate's COO → CSR kernels and the entries are
    /// scattered into their blocks by a kernel.
    ///
    /// # Errors
    /// `InvalidArgument` for a zero block dimension or a shape that is not a multiple of the
    /// blocksize; device errors.
    pub fn tobsr(&self, blocksize: (usize, usize)) -> Result<BsrMatrix<T, I>> {
        let op = "csr_matrix.tobsr";
        let (r, c) = blocksize;
        let (m, n) = self.shape;
        if r == 0 || c == 0 {
            return Err(make::arg(op, format!("invalid blocksize ({r}, {c})")));
        }
        if m % r != 0 || n % c != 0 {
            return Err(make::arg(
                op,
                format!("shape ({m}, {n}) must be a multiple of the blocksize ({r}, {c})"),
            ));
        }
        let a = self.sum_duplicates()?;
        let (data, indices, indptr) = match a.device() {
            Device::Cpu => {
                let (ip, ind, dat) = (hv(&a.indptr), hv(&a.indices), hv(&a.data));
                let mb = m / r;
                let mut bp = Vec::with_capacity(mb + 1);
                let mut bind: Vec<I> = Vec::new();
                let mut bdat: Vec<T> = Vec::new();
                bp.push(I::zero());
                for i in 0..mb {
                    // block column -> stored block, in column order
                    let mut cols: BTreeMap<usize, usize> = BTreeMap::new();
                    for row in i * r..(i + 1) * r {
                        for &col in &ind[ip[row].ix()..ip[row + 1].ix()] {
                            cols.insert(col.ix() / c, 0);
                        }
                    }
                    let base = bind.len();
                    for (k, (bc, slot)) in cols.iter_mut().enumerate() {
                        *slot = base + k;
                        bind.push(I::of(*bc));
                    }
                    bdat.resize(bind.len() * r * c, T::zero());
                    for row in i * r..(i + 1) * r {
                        for j in ip[row].ix()..ip[row + 1].ix() {
                            let col = ind[j].ix();
                            let k = cols[&(col / c)];
                            bdat[(k * r + row % r) * c + col % c] = dat[j];
                        }
                    }
                    bp.push(I::of(bind.len()));
                }
                let nb = bind.len();
                (
                    Array::from_vec(bdat, &[nb, r, c], &Device::Cpu)?,
                    Array::from_vec(bind, &[nb], &Device::Cpu)?,
                    Array::from_vec(bp, &[mb + 1], &Device::Cpu)?,
                )
            }
            Device::Cuda(d) => gpu::csr_to_bsr(d, &a, blocksize)?,
        };
        Ok(BsrMatrix {
            data,
            indices,
            indptr,
            shape: self.shape,
            canonical: true,
            csr: Default::default(),
        })
    }
}

/// BSR matrices are operators of the solvers: products through the kept CSR form.
impl<T: Float, I: SpIndex> LinearOperator<T> for BsrMatrix<T, I> {
    fn shape(&self) -> (usize, usize) {
        BsrMatrix::shape(self)
    }
    fn matvec(&self, x: &Array<T>) -> Result<Array<T>> {
        LinearOperator::matvec(&self.csr_form()?, x)
    }
    fn rmatvec(&self, x: &Array<T>) -> Result<Array<T>> {
        LinearOperator::rmatvec(&self.csr_form()?, x)
    }
    fn device(&self) -> Option<Device> {
        Some(BsrMatrix::device(self).clone())
    }
    fn to_csr(&self) -> Option<Result<CsrMatrix<T>>> {
        Some(self.tocsr().and_then(|c| c.with_index::<i32>()))
    }
}
