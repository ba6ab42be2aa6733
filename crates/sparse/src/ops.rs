//! Methods beyond the formats: `eliminate_zeros`, `diagonal`, `sum`/`mean` (all and per axis),
//! `+`/`−` between sparse matrices, the element-wise `multiply`, and the sparse product
//! [`CsrMatrix::matmul`] (SpGEMM). Every one runs on the device holding the matrices, for
//! both index types (`i32` and `i64`: on the GPU the kernels of `sparse.cu` compiled for the
//! matrix's index type).

use crate::cuda::ops as gpu;
use crate::matrix::{hv, CooMatrix, CsrMatrix};
use crate::SpIndex;
use cusci_core::array::layout::norm_axis;
use cusci_core::error::make;
use cusci_core::{c64, Array, Device, Float, Result};

fn scalar<T: Float>(v: f64) -> T {
    T::from_c64(c64::new(v, 0.0))
}

/// The entries of the COO matrices `parts` one after another, each part's values multiplied
/// by its scale, as a COO matrix of `shape` on `dev` (the GPU's copy kernels of the module of
/// index type `I`, the one the caller's other kernels use).
fn concat_coo<T: Float, I: SpIndex>(
    parts: &[(&CooMatrix<T, I>, T)],
    shape: (usize, usize),
    dev: &Device,
) -> Result<CooMatrix<T, I>> {
    match dev {
        Device::Cpu => {
            let total: usize = parts.iter().map(|(a, _)| a.nnz()).sum();
            let (mut data, mut row, mut col) = (
                Vec::with_capacity(total),
                Vec::with_capacity(total),
                Vec::with_capacity(total),
            );
            for (a, s) in parts {
                data.extend(hv(&a.data).iter().map(|&x| s.mul(x)));
                row.extend_from_slice(hv(&a.row));
                col.extend_from_slice(hv(&a.col));
            }
            Ok(CooMatrix {
                data: Array::from_vec(data, &[total], dev)?,
                row: Array::from_vec(row, &[total], dev)?,
                col: Array::from_vec(col, &[total], dev)?,
                shape,
            })
        }
        Device::Cuda(d) => {
            let data: Vec<_> = parts.iter().map(|(a, s)| (&a.data, *s)).collect();
            let row: Vec<_> = parts.iter().map(|(a, _)| &a.row).collect();
            let col: Vec<_> = parts.iter().map(|(a, _)| &a.col).collect();
            Ok(CooMatrix {
                data: gpu::concat_scaled::<T, I>(d, &data, dev)?,
                row: gpu::concat_indices::<T, I>(d, &row, dev)?,
                col: gpu::concat_indices::<T, I>(d, &col, dev)?,
                shape,
            })
        }
    }
}

/// The stored entries `(row, column, value)` of a CPU matrix for which `keep` holds, in stored
/// order (the CPU side of eliminate_zeros and setdiag).
fn cpu_keep<T: Float, I: SpIndex>(
    a: &CsrMatrix<T, I>,
    canonical: bool,
    keep: impl Fn(usize, usize, T) -> bool,
) -> Result<CsrMatrix<T, I>> {
    let m = a.shape.0;
    let (ip, ind, dat) = (hv(&a.indptr), hv(&a.indices), hv(&a.data));
    let mut np = vec![I::of(0); m + 1];
    let (mut ni, mut nd) = (Vec::new(), Vec::new());
    for r in 0..m {
        for j in ip[r].ix()..ip[r + 1].ix() {
            if keep(r, ind[j].ix(), dat[j]) {
                ni.push(ind[j]);
                nd.push(dat[j]);
            }
        }
        np[r + 1] = I::of(ni.len());
    }
    CsrMatrix::from_host(np, ni, nd, a.shape, canonical, &Device::Cpu)
}

fn check_same_shape(op: &str, a: (usize, usize), b: (usize, usize)) -> Result<()> {
    if a != b {
        return Err(make::shape(op, format!("shapes {a:?} and {b:?} differ")));
    }
    Ok(())
}

/// The structure-changing methods, generic in the index type.
impl<T: Float, I: SpIndex> CsrMatrix<T, I> {
    /// A copy without the stored zeros (SciPy's `eliminate_zeros`, which works in place).
    ///
    /// ```
    /// use cusci_sparse::{CsrMatrix, Device, Array};
    /// let dev = Device::Cpu;
    /// let a = CsrMatrix::new(Array::from_vec(vec![1.0f64, 0.0], &[2], &dev)?,
    ///     Array::from_vec(vec![0, 1], &[2], &dev)?, Array::from_vec(vec![0, 2], &[2], &dev)?, (1, 2))?;
    /// assert_eq!(a.eliminate_zeros()?.nnz(), 1);
    /// # Ok::<(), cusci_sparse::Error>(())
    /// ```
    ///
    /// # Errors
    /// Device errors only.
    pub fn eliminate_zeros(&self) -> Result<Self> {
        match self.device() {
            Device::Cpu => cpu_keep(self, self.canonical, |_, _, v| v != T::zero()),
            Device::Cuda(d) => gpu::eliminate_zeros(d, self),
        }
    }

    /// The matrix with diagonal `k` set from `values` (SciPy's `setdiag(values, k)`, which works
    /// in place): the first `min(len(values), len(diagonal k))` elements of the diagonal take
    /// the values (stored even when 0, as SciPy), the rest of the matrix is unchanged.
    /// The result is canonical (duplicates elsewhere are summed).
    ///
    /// ```
    /// use cusci_sparse::{CsrMatrix, Array, Device};
    /// let dev = Device::Cpu;
    /// let a = CsrMatrix::from_dense(&Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2], &dev)?)?;
    /// let b = a.setdiag(&Array::from_vec(vec![9.0], &[1], &dev)?, 0)?;
    /// assert_eq!(b.toarray()?.to_vec()?, vec![9.0, 2.0, 3.0, 4.0]);
    /// let c = a.setdiag(&Array::from_vec(vec![7.0, 8.0], &[2], &dev)?, -1)?;
    /// assert_eq!(c.toarray()?.to_vec()?, vec![1.0, 2.0, 7.0, 4.0]);
    /// # Ok::<(), cusci_sparse::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` when diagonal `k` lies outside the matrix (SciPy: "k exceeds array
    /// dimensions"); `ShapeMismatch` for `values` that are not 1-D; `DeviceMismatch`.
    pub fn setdiag(&self, values: &Array<T>, k: isize) -> Result<Self> {
        let op = "setdiag";
        let (m, n) = (self.shape.0 as isize, self.shape.1 as isize);
        if (k >= 0 && k >= n) || (k < 0 && -k >= m) {
            return Err(make::arg(
                op,
                format!("k = {k} exceeds the dimensions ({m}, {n})"),
            ));
        }
        if values.ndim() != 1 {
            return Err(make::shape(
                op,
                format!("values must be 1-D, got shape {:?}", values.shape()),
            ));
        }
        cusci_core::array::check_same_device(op, self.device(), values.device())?;
        let diag_len = if k >= 0 { m.min(n - k) } else { (m + k).min(n) } as usize;
        let len = diag_len.min(values.len());
        let dev = self.device().clone();
        // the matrix without the entries that the values replace
        let kept = match &dev {
            Device::Cpu => cpu_keep(self, false, |r, c, _| {
                let (r, c) = (r as isize, c as isize);
                c - r != k || (if k >= 0 { r } else { c }) >= len as isize
            })?,
            Device::Cuda(d) => gpu::without_diagonal(d, self, k, len)?,
        };
        // the diagonal's entries, appended and merged by the COO -> CSR conversion
        let (r0, c0) = if k >= 0 { (0, k) } else { (-k, 0) };
        let rows: Vec<I> = (0..len).map(|i| I::of((r0 as usize) + i)).collect();
        let cols: Vec<I> = (0..len).map(|i| I::of((c0 as usize) + i)).collect();
        let rows = Array::from_vec(rows, &[len], &dev)?;
        let cols = Array::from_vec(cols, &[len], &dev)?;
        let vals = values
            .slice_axis(0, Some(0), Some(len as isize), 1)?
            .contiguous()?;
        let diag = CooMatrix {
            data: vals,
            row: rows,
            col: cols,
            shape: self.shape,
        };
        let c = concat_coo(
            &[(&kept.tocoo()?, T::one()), (&diag, T::one())],
            self.shape,
            &dev,
        )?;
        c.tocsr()
    }

    /// Diagonal `k` (SciPy's `diagonal(k)`; k > 0 above the main one), duplicates summed; empty
    /// when `k` lies outside the matrix.
    ///
    /// # Errors
    /// Device errors only.
    pub fn diagonal(&self, k: isize) -> Result<Array<T>> {
        let (m, n) = (self.shape.0 as isize, self.shape.1 as isize);
        let len = if k >= 0 { m.min(n - k) } else { (m + k).min(n) }.max(0) as usize;
        match self.device() {
            Device::Cpu => diagonal_cpu(self, k, len),
            Device::Cuda(d) => gpu::diagonal(d, self, k, len),
        }
    }

    fn plus(&self, other: &Self, sign: f64, op: &str) -> Result<Self> {
        check_same_shape(op, self.shape, other.shape)?;
        cusci_core::array::check_same_device(op, self.device(), other.device())?;
        let dev = self.device().clone();
        let a = self.tocoo()?;
        let b = other.tocoo()?;
        let c = concat_coo(&[(&a, T::one()), (&b, scalar(sign))], self.shape, &dev)?;
        c.tocsr()?.eliminate_zeros()
    }

    /// `A + B` for two matrices of one shape: canonical CSR without stored zeros (as SciPy).
    ///
    /// ```
    /// use cusci_sparse::{identity, Device};
    /// let i = identity::<f64>(2, &Device::Cpu)?;
    /// assert_eq!(i.add(&i)?.toarray()?.to_vec()?, vec![2.0, 0.0, 0.0, 2.0]);
    /// assert_eq!(i.sub(&i)?.nnz(), 0);
    /// # Ok::<(), cusci_sparse::Error>(())
    /// ```
    ///
    /// # Errors
    /// `ShapeMismatch` for different shapes, `DeviceMismatch`.
    pub fn add(&self, other: &Self) -> Result<Self> {
        self.plus(other, 1.0, "csr_matrix.__add__")
    }

    /// `A − B` (see [`add`](Self::add)).
    ///
    /// # Errors
    /// As [`add`](Self::add).
    pub fn sub(&self, other: &Self) -> Result<Self> {
        self.plus(other, -1.0, "csr_matrix.__sub__")
    }

    /// The element-wise product `A.multiply(B)` with a sparse `B` of the same shape: canonical
    /// CSR without stored zeros.
    ///
    /// # Errors
    /// `ShapeMismatch`, `DeviceMismatch`.
    pub fn multiply(&self, other: &Self) -> Result<Self> {
        let op = "csr_matrix.multiply";
        check_same_shape(op, self.shape, other.shape)?;
        cusci_core::array::check_same_device(op, self.device(), other.device())?;
        let a = self.sum_duplicates()?;
        let b = other.sum_duplicates()?;
        match self.device() {
            Device::Cpu => multiply_cpu(&a, &b),
            Device::Cuda(d) => gpu::multiply(d, &a, &b),
        }
    }

    /// The sparse product `A @ B` (SpGEMM): canonical CSR without stored zeros (as SciPy).
    /// Both devices expand every product `A[i,k]·B[k,j]` in the order of A's entries and B's
    /// rows and sum equal positions in that order (the COO → CSR conversion), so they give the
    /// same bits.
    ///
    /// ```
    /// use cusci_sparse::{diags, Device};
    /// let a = diags::<f64>(&[&[1.0, 2.0]], &[0], None, &Device::Cpu)?;
    /// assert_eq!(a.matmul(&a)?.toarray()?.to_vec()?, vec![1.0, 0.0, 0.0, 4.0]);
    /// # Ok::<(), cusci_sparse::Error>(())
    /// ```
    ///
    /// # Errors
    /// `ShapeMismatch` when the inner dimensions differ, `DeviceMismatch`, `InvalidArgument`
    /// when the expanded products pass the index type (`i32::MAX` products for `i32`
    /// indices: convert with `with_index::<i64>()`).
    pub fn matmul(&self, other: &Self) -> Result<Self> {
        let op = "csr_matrix.__matmul__";
        cusci_core::array::check_same_device(op, self.device(), other.device())?;
        let (m, k) = self.shape;
        let (k2, n) = other.shape;
        if k != k2 {
            return Err(make::shape(
                op,
                format!("({m}, {k}) @ ({k2}, {n}): inner dimensions differ"),
            ));
        }
        let a = self.tocoo()?;
        let coo = match self.device() {
            Device::Cpu => gemm_expand_cpu(op, &a, other)?,
            Device::Cuda(d) => gpu::gemm_expand(op, d, &a, other)?,
        };
        coo.tocsr()?.eliminate_zeros()
    }
}

/// Diagonal `k` (of `len` elements) of a CPU matrix, duplicates summed.
fn diagonal_cpu<T: Float, I: SpIndex>(
    a: &CsrMatrix<T, I>,
    k: isize,
    len: usize,
) -> Result<Array<T>> {
    let (ip, ind, dat) = (hv(&a.indptr), hv(&a.indices), hv(&a.data));
    let out: Vec<T> = (0..len as isize)
        .map(|i| {
            let r = if k >= 0 { i } else { i - k };
            let c = (r + k) as usize;
            let mut s = T::zero();
            for j in ip[r as usize].ix()..ip[r as usize + 1].ix() {
                if ind[j].ix() == c {
                    s = s.add(dat[j]);
                }
            }
            s
        })
        .collect();
    Array::from_vec(out, &[len], &Device::Cpu)
}

/// The element-wise product of the canonical CPU matrices `a` and `b` of one shape, without
/// stored zeros.
fn multiply_cpu<T: Float, I: SpIndex>(
    a: &CsrMatrix<T, I>,
    b: &CsrMatrix<T, I>,
) -> Result<CsrMatrix<T, I>> {
    let m = a.shape.0;
    let (ap, ai, ad) = (hv(&a.indptr), hv(&a.indices), hv(&a.data));
    let (bp, bi, bd) = (hv(&b.indptr), hv(&b.indices), hv(&b.data));
    let mut np = vec![I::of(0); m + 1];
    let (mut ni, mut nd) = (Vec::new(), Vec::new());
    for r in 0..m {
        let brow = &bi[bp[r].ix()..bp[r + 1].ix()];
        for j in ap[r].ix()..ap[r + 1].ix() {
            if let Ok(t) = brow.binary_search(&ai[j]) {
                let v = ad[j].mul(bd[bp[r].ix() + t]);
                if v != T::zero() {
                    ni.push(ai[j]);
                    nd.push(v);
                }
            }
        }
        np[r + 1] = I::of(ni.len());
    }
    CsrMatrix::from_host(np, ni, nd, a.shape, true, &Device::Cpu)
}

/// Every product `A[i,k]·B[k,j]` of the CPU COO matrix `a` and CSR matrix `b`, in the order of
/// A's entries and B's rows (matmul's expansion; see `cuda::ops::gemm_expand`).
fn gemm_expand_cpu<T: Float, I: SpIndex>(
    op: &str,
    a: &CooMatrix<T, I>,
    b: &CsrMatrix<T, I>,
) -> Result<CooMatrix<T, I>> {
    let (ar, ai, ad) = (hv(&a.row), hv(&a.col), hv(&a.data));
    let (bp, bi, bd) = (hv(&b.indptr), hv(&b.indices), hv(&b.data));
    let total: u64 = ai
        .iter()
        .map(|&c| (bp[c.ix() + 1].ix() - bp[c.ix()].ix()) as u64)
        .sum();
    if total > I::MAX as u64 {
        return Err(make::arg(
            op,
            format!("{total} products need 64-bit indices"),
        ));
    }
    let (mut r, mut c, mut v) = (
        Vec::with_capacity(total as usize),
        Vec::with_capacity(total as usize),
        Vec::with_capacity(total as usize),
    );
    for j in 0..a.nnz() {
        let kk = ai[j].ix();
        for t in bp[kk].ix()..bp[kk + 1].ix() {
            r.push(ar[j]);
            c.push(bi[t]);
            v.push(ad[j].mul(bd[t]));
        }
    }
    let len = v.len();
    let dev = Device::Cpu;
    Ok(CooMatrix {
        data: Array::from_vec(v, &[len], &dev)?,
        row: Array::from_vec(r, &[len], &dev)?,
        col: Array::from_vec(c, &[len], &dev)?,
        shape: (a.shape.0, b.shape.1),
    })
}

/// Sums and means: generic in the index type (they only use the values, SpMV and the
/// transpose, which take 64-bit indices too).
impl<T: Float, I: SpIndex> CsrMatrix<T, I> {
    /// The sum of all entries (`A.sum()`), returned to the host.
    ///
    /// # Errors
    /// Device errors only.
    pub fn sum(&self) -> Result<T> {
        self.data.sum()
    }

    /// Sums along `axis` (0: over rows, one value per column; 1: over columns, one per row), as a
    /// 1-D array (SciPy returns a 1 x n or m x 1 matrix). Computed as products with a vector of
    /// ones.
    ///
    /// # Errors
    /// `InvalidArgument` for an axis other than 0, 1, −1, −2.
    pub fn sum_axis(&self, axis: isize) -> Result<Array<T>> {
        let (m, n) = self.shape;
        match norm_axis("sum", axis, 2)? {
            1 => self.dot(&Array::ones(&[n], self.device())?),
            _ => self
                .transpose()
                .tocsr()?
                .dot(&Array::ones(&[m], self.device())?),
        }
    }

    /// The mean of all m·n entries, zeros included (`A.mean()`); NaN for an empty matrix.
    ///
    /// # Errors
    /// Device errors only.
    pub fn mean(&self) -> Result<T> {
        let c = (self.shape.0 * self.shape.1) as f64;
        Ok(self.sum()?.div(scalar(c)))
    }

    /// Means along `axis` (see [`sum_axis`](Self::sum_axis)).
    ///
    /// # Errors
    /// As [`sum_axis`](Self::sum_axis).
    pub fn mean_axis(&self, axis: isize) -> Result<Array<T>> {
        let (m, n) = self.shape;
        let c = if norm_axis("mean", axis, 2)? == 1 {
            n
        } else {
            m
        } as f64;
        self.sum_axis(axis)?.div_scalar(scalar(c))
    }
}
