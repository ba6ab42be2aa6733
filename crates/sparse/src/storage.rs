//! The sparse formats' storage: the structs of [`CsrMatrix`], [`CscMatrix`], [`CooMatrix`] and
//! [`DiaMatrix`]. Their methods (the front ends) are in `matrix.rs` and `dia.rs`; the devices'
//! code takes these types, so they sit below both.

use crate::SpIndex;
use cusci_core::{Array, Float};
use std::sync::{Arc, OnceLock};

/// A compressed sparse row matrix (SciPy's `csr_matrix`): row `i` holds the entries
/// `data[indptr[i]..indptr[i+1]]` in the columns `indices[indptr[i]..indptr[i+1]]`.
///
/// ```
/// use cusci_sparse::{CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let a = CsrMatrix::new(
///     Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3], &dev)?,
///     Array::from_vec(vec![0, 2, 1], &[3], &dev)?,
///     Array::from_vec(vec![0, 2, 3], &[3], &dev)?,
///     (2, 3),
/// )?;
/// assert_eq!(a.toarray()?.to_vec()?, vec![1.0, 0.0, 2.0, 0.0, 3.0, 0.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CsrMatrix<T: Float, I: SpIndex = i32> {
    pub(crate) data: Array<T>,
    pub(crate) indices: Array<I>,
    pub(crate) indptr: Array<I>,
    pub(crate) shape: (usize, usize),
    pub(crate) canonical: bool,
    /// The transpose (n x m CSR), built by [`transposed`](Self::transposed) on first use and
    /// shared by the clones of this matrix (the arrays are copy-on-write, so it cannot go stale).
    pub(crate) tcache: TransposeCache<T, I>,
}

/// The lazily built transpose of a [`CsrMatrix`].
pub(crate) type TransposeCache<T, I> = Arc<OnceLock<CsrMatrix<T, I>>>;

/// A compressed sparse column matrix (SciPy's `csc_matrix`), stored as the CSR arrays of its
/// transpose: column `j` holds `data[indptr[j]..indptr[j+1]]` in the rows
/// `indices[indptr[j]..indptr[j+1]]`.
#[derive(Clone, Debug)]
pub struct CscMatrix<T: Float, I: SpIndex = i32> {
    /// The CSR matrix of the transpose (shape (n, m)).
    pub(crate) t: CsrMatrix<T, I>,
}

/// A coordinate-format matrix (SciPy's `coo_matrix`): entry `k` is `data[k]` at
/// `(row[k], col[k])`; duplicates are allowed and summed by conversions.
///
/// ```
/// use cusci_sparse::{CooMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let a = CooMatrix::new(
///     Array::from_vec(vec![1.0f64, 2.0, 5.0], &[3], &dev)?,
///     Array::from_vec(vec![0, 1, 0], &[3], &dev)?,
///     Array::from_vec(vec![1, 0, 1], &[3], &dev)?,
///     (2, 2),
/// )?;
/// let c = a.tocsr()?; // the two entries at (0, 1) are summed
/// assert_eq!(c.nnz(), 2);
/// assert_eq!(c.toarray()?.to_vec()?, vec![0.0, 6.0, 2.0, 0.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CooMatrix<T: Float, I: SpIndex = i32> {
    pub(crate) data: Array<T>,
    pub(crate) row: Array<I>,
    pub(crate) col: Array<I>,
    pub(crate) shape: (usize, usize),
}

/// A diagonal-storage matrix (SciPy's `dia_matrix((data, offsets), shape)`): row `d` of the
/// 2-D `data` (nd x w) holds diagonal `offsets[d]`, with `data[d, j]` at column `j`, i.e. at
/// `(j − offsets[d], j)`; values outside the matrix (or past column `w`) are ignored.
///
/// ```
/// use cusci_sparse::{DiaMatrix, Device, Array};
/// let data = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], &Device::Cpu)?;
/// let a = DiaMatrix::new(data, &[0, 1], (3, 3))?;
/// assert_eq!(a.toarray()?.to_vec()?, vec![1.0, 5.0, 0.0, 0.0, 2.0, 6.0, 0.0, 0.0, 3.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct DiaMatrix<T: Float> {
    pub(crate) data: Array<T>,
    pub(crate) offsets: Vec<i64>,
    /// The offsets on the data's device.
    pub(crate) doffsets: Array<i64>,
    pub(crate) shape: (usize, usize),
}

/// A block sparse row matrix (SciPy's `bsr_array((data, indices, indptr), shape, blocksize)`):
/// the matrix is cut into R x C blocks; block row `i` holds the dense blocks
/// `data[indptr[i]..indptr[i+1]]` (each R x C, row-major) in the block columns
/// `indices[indptr[i]..indptr[i+1]]`.
///
/// ```
/// use cusci_sparse::{BsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// // one 2 x 2 block in block column 1 of a 2 x 4 matrix
/// let a = BsrMatrix::new(
///     Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[1, 2, 2], &dev)?,
///     Array::from_vec(vec![1], &[1], &dev)?,
///     Array::from_vec(vec![0, 1], &[2], &dev)?,
///     (2, 4),
/// )?;
/// assert_eq!(a.toarray()?.to_vec()?, vec![0.0, 0.0, 1.0, 2.0, 0.0, 0.0, 3.0, 4.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct BsrMatrix<T: Float, I: SpIndex = i32> {
    /// The blocks, shape (nblocks, R, C).
    pub(crate) data: Array<T>,
    pub(crate) indices: Array<I>,
    pub(crate) indptr: Array<I>,
    pub(crate) shape: (usize, usize),
    pub(crate) canonical: bool,
    /// The CSR form, built on first use by the products and shared by the clones.
    pub(crate) csr: Arc<OnceLock<CsrMatrix<T, I>>>,
}
