//! Methods beyond the formats: `eliminate_zeros`, `diagonal`, `sum`/`mean` (all and per axis),
//! `+`/`−` between sparse matrices, the element-wise `multiply`, and the sparse product
//! [`CsrMatrix::matmul`] (SpGEMM). Every one runs on the device holding the matrices, for
//! both index types (`i32` and `i64`: on the GPU the kernels of `sparse.cu` compiled for the
//! matrix's index type).

use crate::cuda::{blocks, launch_ix, p};
use crate::matrix::{last, CooMatrix, CsrMatrix};
use crate::SpIndex;
use cusci_core::cuda::kernel::Args;
use cusci_core::error::make;
use cusci_core::{c64, Array, CudaDevice, Device, Float, Result};

fn scalar<T: Float>(v: f64) -> T {
    T::from_c64(c64::new(v, 0.0))
}

/// Concatenates 1-D arrays on one device (a copy kernel per part; `scale` multiplies values),
/// with the module of index type `I` (the one the caller's other kernels use).
fn concat<T: Float, I: SpIndex>(parts: &[(&Array<T>, T)], dev: &Device) -> Result<Array<T>> {
    let total: usize = parts.iter().map(|(a, _)| a.len()).sum();
    match dev {
        Device::Cpu => {
            let mut v = Vec::with_capacity(total);
            for (a, s) in parts {
                v.extend(a.to_vec()?.into_iter().map(|x| s.mul(x)));
            }
            Array::from_vec(v, &[total], dev)
        }
        Device::Cuda(d) => {
            let out = Array::<T>::empty(&[total], dev)?;
            let mut off = 0usize;
            for (a, s) in parts {
                let a = a.contiguous()?;
                launch_ix::<T, I>(
                    d,
                    "sp_copy_scaled",
                    blocks(d, a.len()),
                    Args::new()
                        .push(p(&a))
                        .push(p(&out) + (off * std::mem::size_of::<T>()) as u64)
                        .push(a.len() as i64)
                        .push(*s),
                )?;
                off += a.len();
            }
            Ok(out)
        }
    }
}

/// Concatenates 1-D index arrays on one device.
fn concat_idx<T: Float, I: SpIndex>(parts: &[&Array<I>], dev: &Device) -> Result<Array<I>> {
    let total: usize = parts.iter().map(|a| a.len()).sum();
    match dev {
        Device::Cpu => {
            let mut v = Vec::with_capacity(total);
            for a in parts {
                v.extend(a.to_vec()?);
            }
            Array::from_vec(v, &[total], dev)
        }
        Device::Cuda(d) => {
            let out = Array::<I>::empty(&[total], dev)?;
            let mut off = 0usize;
            for a in parts {
                let a = a.contiguous()?;
                launch_ix::<T, I>(
                    d,
                    "sp_copy_idx",
                    blocks(d, a.len()),
                    Args::new()
                        .push(p(&a))
                        .push(p(&out) + (off * std::mem::size_of::<I>()) as u64)
                        .push(a.len() as i64),
                )?;
                off += a.len();
            }
            Ok(out)
        }
    }
}

/// Runs a (count per row, scan, write per row) pair of kernels and returns the new CSR arrays.
fn count_scan_write<T: Float, I: SpIndex>(
    d: &CudaDevice,
    m: usize,
    count: &str,
    write: &str,
    count_args: impl Fn(&mut Args),
    write_args: impl Fn(&mut Args),
) -> Result<(Array<I>, Array<I>, Array<T>)> {
    let dev = Device::Cuda(d.clone());
    let counts = Array::<I>::zeros(&[m + 1], &dev)?;
    let mut a = Args::new();
    count_args(&mut a);
    a.push(m as i64).push(p(&counts));
    launch_ix::<T, I>(d, count, blocks(d, m), &mut a)?;
    let outptr = counts.cumsum(0)?;
    let total = last(&outptr)?;
    let oind = Array::<I>::empty(&[total], &dev)?;
    let odat = Array::<T>::empty(&[total], &dev)?;
    let mut a = Args::new();
    write_args(&mut a);
    a.push(m as i64)
        .push(p(&outptr))
        .push(p(&oind))
        .push(p(&odat));
    launch_ix::<T, I>(d, write, blocks(d, m), &mut a)?;
    Ok((outptr, oind, odat))
}

/// The stored entries `(row, column, value)` of a CPU matrix for which `keep` holds, in stored
/// order (the CPU side of eliminate_zeros and setdiag).
fn cpu_keep<T: Float, I: SpIndex>(
    a: &CsrMatrix<T, I>,
    canonical: bool,
    keep: impl Fn(usize, usize, T) -> bool,
) -> Result<CsrMatrix<T, I>> {
    let m = a.shape.0;
    let ip = crate::matrix::hv(&a.indptr);
    let ind = a.indices.cpu_data().unwrap_or(&[]);
    let dat = a.data.cpu_data().unwrap_or(&[]);
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
        let m = self.shape.0;
        match self.device() {
            Device::Cpu => cpu_keep(self, self.canonical, |_, _, v| v != T::zero()),
            Device::Cuda(d) => {
                let (ip, ind, dat) = count_scan_write::<T, I>(
                    d,
                    m,
                    "sp_nz_count",
                    "sp_nz_write",
                    |a| {
                        a.push(p(&self.indptr)).push(p(&self.data));
                    },
                    |a| {
                        a.push(p(&self.indptr))
                            .push(p(&self.indices))
                            .push(p(&self.data));
                    },
                )?;
                Ok(CsrMatrix::from_parts(
                    dat,
                    ind,
                    ip,
                    self.shape,
                    self.canonical,
                ))
            }
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
            Device::Cuda(d) => {
                let (ip, ind, dat) = count_scan_write::<T, I>(
                    d,
                    self.shape.0,
                    "sp_offdiag_count",
                    "sp_offdiag_write",
                    |a| {
                        a.push(p(&self.indptr))
                            .push(p(&self.indices))
                            .push(k as i64)
                            .push(len as i64);
                    },
                    |a| {
                        a.push(p(&self.indptr))
                            .push(p(&self.indices))
                            .push(p(&self.data))
                            .push(k as i64)
                            .push(len as i64);
                    },
                )?;
                CsrMatrix::from_parts(dat, ind, ip, self.shape, false)
            }
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
        let b = kept.tocoo()?;
        let c = CooMatrix {
            data: concat::<T, I>(&[(&b.data, T::one()), (&vals, T::one())], &dev)?,
            row: concat_idx::<T, I>(&[&b.row, &rows], &dev)?,
            col: concat_idx::<T, I>(&[&b.col, &cols], &dev)?,
            shape: self.shape,
        };
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
            Device::Cpu => {
                let ip = crate::matrix::hv(&self.indptr);
                let ind = self.indices.cpu_data().unwrap_or(&[]);
                let dat = self.data.cpu_data().unwrap_or(&[]);
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
            Device::Cuda(d) => {
                let out = Array::<T>::empty(&[len], self.device())?;
                launch_ix::<T, I>(
                    d,
                    "sp_diagonal",
                    blocks(d, len),
                    Args::new()
                        .push(p(&self.indptr))
                        .push(p(&self.indices))
                        .push(p(&self.data))
                        .push(len as i64)
                        .push(k as i64)
                        .push(p(&out)),
                )?;
                Ok(out)
            }
        }
    }

    fn plus(&self, other: &Self, sign: f64, op: &str) -> Result<Self> {
        check_same_shape(op, self.shape, other.shape)?;
        cusci_core::array::check_same_device(op, self.device(), other.device())?;
        let dev = self.device().clone();
        let a = self.tocoo()?;
        let b = other.tocoo()?;
        let data = concat::<T, I>(&[(&a.data, T::one()), (&b.data, scalar(sign))], &dev)?;
        let row = concat_idx::<T, I>(&[&a.row, &b.row], &dev)?;
        let col = concat_idx::<T, I>(&[&a.col, &b.col], &dev)?;
        let c = CooMatrix {
            data,
            row,
            col,
            shape: self.shape,
        };
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
        let m = self.shape.0;
        match self.device() {
            Device::Cpu => {
                let (ap, ai, ad) = (a.indptr.to_vec()?, a.indices.to_vec()?, a.data.to_vec()?);
                let (bp, bi, bd) = (b.indptr.to_vec()?, b.indices.to_vec()?, b.data.to_vec()?);
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
                CsrMatrix::from_host(np, ni, nd, self.shape, true, &Device::Cpu)
            }
            Device::Cuda(d) => {
                let (ip, ind, dat) = {
                    let args = |args: &mut Args| {
                        args.push(p(&a.indptr))
                            .push(p(&a.indices))
                            .push(p(&a.data))
                            .push(p(&b.indptr))
                            .push(p(&b.indices))
                            .push(p(&b.data));
                    };
                    count_scan_write::<T, I>(d, m, "sp_mul_count", "sp_mul_write", args, args)?
                };
                Ok(CsrMatrix::from_parts(dat, ind, ip, self.shape, true))
            }
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
        let dev = self.device().clone();
        let a = self.tocoo()?;
        let nnz_a = self.nnz();
        let coo = match &dev {
            Device::Cpu => {
                let (ar, ai, ad) = (a.row.to_vec()?, a.col.to_vec()?, a.data.to_vec()?);
                let (bp, bi, bd) = (
                    other.indptr.to_vec()?,
                    other.indices.to_vec()?,
                    other.data.to_vec()?,
                );
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
                for j in 0..nnz_a {
                    let kk = ai[j].ix();
                    for t in bp[kk].ix()..bp[kk + 1].ix() {
                        r.push(ar[j]);
                        c.push(bi[t]);
                        v.push(ad[j].mul(bd[t]));
                    }
                }
                let len = v.len();
                CooMatrix {
                    data: Array::from_vec(v, &[len], &dev)?,
                    row: Array::from_vec(r, &[len], &dev)?,
                    col: Array::from_vec(c, &[len], &dev)?,
                    shape: (m, n),
                }
            }
            Device::Cuda(d) => {
                let counts = Array::<i64>::zeros(&[nnz_a + 1], &dev)?;
                launch_ix::<T, I>(
                    d,
                    "sp_gemm_count",
                    blocks(d, nnz_a),
                    Args::new()
                        .push(p(&a.col))
                        .push(nnz_a as i64)
                        .push(p(&other.indptr))
                        .push(p(&counts)),
                )?;
                let off = counts.cumsum(0)?;
                let total = off.index_axis(0, -1)?.item()?;
                if total as u64 > I::MAX as u64 {
                    return Err(make::arg(
                        op,
                        format!("{total} products need 64-bit indices"),
                    ));
                }
                let total = total as usize;
                let row = Array::<I>::empty(&[total], &dev)?;
                let col = Array::<I>::empty(&[total], &dev)?;
                let data = Array::<T>::empty(&[total], &dev)?;
                launch_ix::<T, I>(
                    d,
                    "sp_gemm_expand",
                    blocks(d, nnz_a),
                    Args::new()
                        .push(p(&a.row))
                        .push(p(&a.col))
                        .push(p(&a.data))
                        .push(nnz_a as i64)
                        .push(p(&other.indptr))
                        .push(p(&other.indices))
                        .push(p(&other.data))
                        .push(p(&off))
                        .push(p(&row))
                        .push(p(&col))
                        .push(p(&data)),
                )?;
                CooMatrix {
                    data,
                    row,
                    col,
                    shape: (m, n),
                }
            }
        };
        coo.tocsr()?.eliminate_zeros()
    }
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
        match axis {
            1 | -1 => self.dot(&Array::ones(&[n], self.device())?),
            0 | -2 => self
                .transpose()
                .tocsr()?
                .dot(&Array::ones(&[m], self.device())?),
            _ => Err(make::arg(
                "sum",
                format!("axis {axis} out of range for 2-D"),
            )),
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
        let c = if matches!(axis, 1 | -1) { n } else { m } as f64;
        self.sum_axis(axis)?.div_scalar(scalar(c))
    }
}
