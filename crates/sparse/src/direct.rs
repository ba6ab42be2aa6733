//! Direct sparse solvers: [`spsolve_triangular`], [`splu`] ([`SuperLu`]), [`spsolve`],
//! [`factorized`].
//!
//! Routes (see each function): triangular solves run on the device of their matrix (on a GPU a
//! sync-free NVRTC kernel of `cuda/solvers.cu`, one warp per row, no analysis phase; on the CPU
//! forward/back substitution). The LU factorisation is a left-looking sparse LU with partial
//! pivoting (Gilbert–Peierls with a pivot heap) that runs on the host on both devices: CUDA 13
//! ships no sparse factorisation usable here (cuSOLVER's `cusolverSp` is deprecated and has no
//! LU on the device; cuDSS is a separate library), so on a GPU [`splu`] copies the matrix to
//! the host once, factors it, and puts `L` and `U` back on the device, where every
//! [`SuperLu::solve`] runs (row permutation and both triangular solves as kernels).

use crate::krylov::launch_solver;
use crate::matrix::{as_i32, CsrMatrix};
use crate::SpIndex;
use cusci_core::cuda::kernel::Args;
use cusci_core::error::make;
use cusci_core::{Array, CudaDevice, Device, Error, Float, RealFloat, Result};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

fn ptr<T: cusci_core::Element>(a: &Array<T>) -> u64 {
    crate::cuda::p(a)
}

/// The right-hand side as (n, ncol) with `ncol = 0` meaning 1-D.
fn rhs_shape<T: Float>(op: &str, n: usize, b: &Array<T>) -> Result<usize> {
    match b.shape() {
        [m] if *m == n => Ok(0),
        [m, k] if *m == n => Ok(*k),
        s => Err(make::shape(
            op,
            format!("b of shape {s:?} for a matrix with {n} rows"),
        )),
    }
}

fn square(op: &str, (m, n): (usize, usize)) -> Result<usize> {
    if m != n {
        return Err(make::shape(
            op,
            format!("expected a square matrix, got ({m}, {n})"),
        ));
    }
    Ok(n)
}

fn singular(op: &str, index: usize) -> Error {
    Error::Singular {
        op: op.into(),
        index,
    }
}

/// Solves `A x = b` for a triangular sparse `A` (SciPy's `spsolve_triangular`): `lower` picks
/// forward (lower triangle) or back substitution (upper triangle); with `unit_diagonal` the
/// diagonal is taken as ones and not read. Only the chosen triangle and the diagonal are read
/// (entries of the other triangle are ignored; SciPy's result is unspecified there). `b` is 1-D
/// of length n or 2-D (n, k) (each column solved); the result has `b`'s shape, on `A`'s device.
///
/// On a GPU: a sync-free kernel (rows handed out in solve order, each row waits only for the
/// rows it needs), one pass per column of `b`, and one read of the zero-diagonal flag at the end.
///
/// ```
/// use cusci_sparse::{diags, Device, Array, linalg::spsolve_triangular};
/// let dev = Device::Cpu;
/// let l = diags::<f64>(&[&[2.0; 3], &[1.0; 2]], &[0, -1], None, &dev)?;
/// let b = Array::from_vec(vec![2.0, 3.0, 3.0], &[3], &dev)?;
/// let x = spsolve_triangular(&l, &b, true, false)?;
/// assert_eq!(x.to_vec()?, vec![1.0, 1.0, 1.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square `A` or a `b` whose first dimension is not n,
/// `DeviceMismatch`, `Singular { index }` for a zero (or missing) diagonal entry (the first one
/// in solve order, on both devices); `InvalidArgument` for an `i64` matrix whose shape or
/// number of entries does not fit `i32` (the solve uses 32-bit indices; an `i64` matrix that
/// fits is converted).
pub fn spsolve_triangular<T: Float, I: SpIndex>(
    a: &CsrMatrix<T, I>,
    b: &Array<T>,
    lower: bool,
    unit_diagonal: bool,
) -> Result<Array<T>> {
    let op = "spsolve_triangular";
    square(op, a.shape())?;
    let a = as_i32(op, a)?;
    let a = &*a;
    let n = square(op, a.shape())?;
    cusci_core::array::check_same_device(op, a.device(), b.device())?;
    rhs_shape(op, n, b)?;
    let b = b.contiguous()?;
    trsv(op, a, &b, lower, unit_diagonal)
}

/// The triangular solve after the checks (`b` contiguous, shape (n,) or (n, k)).
fn trsv<T: Float>(
    op: &str,
    a: &CsrMatrix<T>,
    b: &Array<T>,
    lower: bool,
    unit: bool,
) -> Result<Array<T>> {
    let n = a.shape().0;
    let ncol = if b.ndim() == 2 { b.shape()[1] } else { 1 };
    match a.device().clone() {
        Device::Cpu => {
            let ip = a.indptr().to_vec()?;
            let ix = a.indices().to_vec()?;
            let dv = a.data().to_vec()?;
            let mut x = b.to_vec()?;
            for c in 0..ncol {
                for t in 0..n {
                    let i = if lower { t } else { n - 1 - t };
                    let (mut s, mut d) = (T::zero(), T::zero());
                    for k in ip[i] as usize..ip[i + 1] as usize {
                        let j = ix[k] as usize;
                        if j == i {
                            d = d.add(dv[k]);
                        } else if (lower && j < i) || (!lower && j > i) {
                            s = s.add(dv[k].mul(x[j * ncol + c]));
                        }
                    }
                    let mut r = x[i * ncol + c].sub(s);
                    if !unit {
                        if d == T::zero() {
                            return Err(singular(op, i));
                        }
                        r = r.div(d);
                    }
                    x[i * ncol + c] = r;
                }
            }
            Array::from_vec(x, b.shape(), &Device::Cpu)
        }
        Device::Cuda(d) => trsv_cuda(op, &d, a, b, lower, unit, ncol),
    }
}

fn trsv_cuda<T: Float>(
    op: &str,
    d: &CudaDevice,
    a: &CsrMatrix<T>,
    b: &Array<T>,
    lower: bool,
    unit: bool,
    ncol: usize,
) -> Result<Array<T>> {
    let dev = Device::Cuda(d.clone());
    let n = a.shape().0;
    let x = Array::<T>::empty(b.shape(), &dev)?;
    if n == 0 || ncol == 0 {
        return Ok(x);
    }
    let sing = Array::from_vec(vec![i32::MAX], &[1], &dev)?;
    // warps: 8 per block; enough blocks to fill the device, at most one warp per row
    let blocks = (n.div_ceil(8)).min(d.props().multiprocessors * 8).max(1) as u32;
    let es = std::mem::size_of::<T>() as u64;
    for c in 0..ncol {
        let flags = Array::<i32>::zeros(&[n + 1], &dev)?;
        let fp = ptr(&flags);
        launch_solver::<T>(
            d,
            "sl_trsv",
            blocks,
            Args::new()
                .push(ptr(a.indptr()))
                .push(ptr(a.indices()))
                .push(ptr(a.data()))
                .push(n as i64)
                .push(ptr(b) + c as u64 * es)
                .push(ptr(&x) + c as u64 * es)
                .push(ncol as i64)
                .push(fp)
                .push(fp + 4 * n as u64)
                .push(lower as i32)
                .push(unit as i32)
                .push(ptr(&sing)),
        )?;
    }
    let s = sing.to_vec()?[0];
    if s != i32::MAX {
        // the first zero pivot in solve order, as on the CPU
        let t = s as usize;
        return Err(singular(op, if lower { t } else { n - 1 - t }));
    }
    Ok(x)
}

/// An LU factorisation `Pr A = L U` of a square sparse matrix (SciPy's `SuperLU` object from
/// [`splu`]; the column permutation is the identity: no fill-reducing ordering, SciPy's
/// `permc_spec="NATURAL"`). `L` (unit lower triangular, diagonal stored) and `U` live on the
/// device of the factored matrix.
#[derive(Debug, Clone)]
pub struct SuperLu<T: Float> {
    l: CsrMatrix<T>,
    u: CsrMatrix<T>,
    perm_r: Vec<usize>,
    /// `p[k]`: the original row of pivot `k` (the inverse of `perm_r`), on the device
    p: Array<i32>,
}

impl<T: Float> SuperLu<T> {
    /// The unit lower triangular factor (SciPy's `L`).
    pub fn l(&self) -> &CsrMatrix<T> {
        &self.l
    }
    /// The upper triangular factor (SciPy's `U`).
    pub fn u(&self) -> &CsrMatrix<T> {
        &self.u
    }
    /// SciPy's `perm_r`: row `i` of `A` is row `perm_r[i]` of `Pr A`.
    pub fn perm_r(&self) -> &[usize] {
        &self.perm_r
    }
    /// SciPy's `perm_c` (the identity here).
    pub fn perm_c(&self) -> Vec<usize> {
        (0..self.perm_r.len()).collect()
    }
    /// (n, n).
    pub fn shape(&self) -> (usize, usize) {
        self.l.shape()
    }
    /// Stored entries of `L` and `U` (SciPy's `nnz`, the unit diagonal of `L` included).
    pub fn nnz(&self) -> usize {
        self.l.nnz() + self.u.nnz()
    }

    /// Solves `A x = b` (SciPy's `SuperLU.solve(b)`, `trans='N'`) for a 1-D `b` or each column
    /// of a 2-D (n, k) `b`, on the factors' device (on a GPU: a row gather and two triangular
    /// solves as kernels, nothing on the host but the zero-pivot flag read of the solves).
    ///
    /// # Errors
    /// `ShapeMismatch` for a `b` whose first dimension is not n, `DeviceMismatch`.
    pub fn solve(&self, b: &Array<T>) -> Result<Array<T>> {
        let op = "SuperLU.solve";
        let n = self.perm_r.len();
        cusci_core::array::check_same_device(op, self.l.device(), b.device())?;
        let nc = rhs_shape(op, n, b)?.max(1);
        let b = b.contiguous()?;
        let pb = match b.device().clone() {
            Device::Cpu => {
                let bv = b.to_vec()?;
                let p = self.p.to_vec()?;
                let mut out = Vec::with_capacity(bv.len());
                for &r in &p {
                    out.extend_from_slice(&bv[r as usize * nc..(r as usize + 1) * nc]);
                }
                Array::from_vec(out, b.shape(), &Device::Cpu)?
            }
            Device::Cuda(d) => {
                let out = Array::<T>::empty(b.shape(), b.device())?;
                if n * nc > 0 {
                    launch_solver::<T>(
                        &d,
                        "sl_gather_rows",
                        crate::cuda::blocks(&d, n * nc),
                        Args::new()
                            .push(ptr(&b))
                            .push(ptr(&self.p))
                            .push(n as i64)
                            .push(nc as i64)
                            .push(ptr(&out)),
                    )?;
                }
                out
            }
        };
        let y = trsv(op, &self.l, &pb, true, true)?;
        trsv(op, &self.u, &y, false, false)
    }
}

/// LU factorisation of a square sparse matrix with partial pivoting (SciPy's `splu` with
/// `permc_spec="NATURAL"`, `diag_pivot_thresh=1`: the largest entry of each column is the
/// pivot). Left-looking sparse LU (Gilbert–Peierls: each column of `L` and `U` from a sparse
/// triangular solve with the previous columns, visited in pivot order through a heap). It runs
/// on the host: on a GPU the matrix is copied to the host once and the factors go back to the
/// device, where [`SuperLu::solve`] runs (see the module doc for why).
///
/// ```
/// use cusci_sparse::{CsrMatrix, Device, Array, linalg::splu};
/// let dev = Device::Cpu;
/// let a = CsrMatrix::from_dense(&Array::from_vec(vec![0.0, 2.0, 1.0, 1.0], &[2, 2], &dev)?)?;
/// let lu = splu(&a)?;
/// let x = lu.solve(&Array::from_vec(vec![2.0, 2.0], &[2], &dev)?)?;
/// assert_eq!(x.to_vec()?, vec![1.0, 1.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square matrix, `Singular { index }` when column `index` has no
/// non-zero pivot left (SciPy's "Factor is exactly singular"); `InvalidArgument` for an `i64`
/// matrix whose shape or number of entries does not fit `i32` (the factors use 32-bit indices;
/// SciPy's SuperLU downcasts likewise and raises "indices too large").
pub fn splu<T: Float, I: SpIndex>(a: &CsrMatrix<T, I>) -> Result<SuperLu<T>> {
    let op = "splu";
    square(op, a.shape())?;
    let a = as_i32(op, a)?;
    let a = &*a;
    let n = square(op, a.shape())?;
    let ip = a.indptr().to_vec()?;
    let ix = a.indices().to_vec()?;
    let dv = a.data().to_vec()?;
    // the columns of A (duplicates are summed by the scatter below)
    let mut cols: Vec<Vec<(usize, T)>> = vec![Vec::new(); n];
    for i in 0..n {
        for k in ip[i] as usize..ip[i + 1] as usize {
            cols[ix[k] as usize].push((i, dv[k]));
        }
    }
    const NONE: usize = usize::MAX;
    let mut lcols: Vec<Vec<(usize, T)>> = Vec::with_capacity(n);
    let mut ucols: Vec<Vec<(usize, T)>> = Vec::with_capacity(n);
    let mut p = vec![NONE; n];
    let mut pinv = vec![NONE; n];
    let mut x = vec![T::zero(); n];
    let mut inpat = vec![false; n];
    let mut inheap = vec![false; n];
    let mut pat: Vec<usize> = Vec::new();
    let mut heap: BinaryHeap<Reverse<usize>> = BinaryHeap::new();
    for (j, col) in cols.iter().enumerate() {
        for &(i, v) in col {
            x[i] = x[i].add(v);
            if !inpat[i] {
                inpat[i] = true;
                pat.push(i);
                if pinv[i] != NONE && !inheap[pinv[i]] {
                    inheap[pinv[i]] = true;
                    heap.push(Reverse(pinv[i]));
                }
            }
        }
        let mut ucol = Vec::new();
        while let Some(Reverse(k)) = heap.pop() {
            inheap[k] = false;
            let xr = x[p[k]];
            if xr == T::zero() {
                continue;
            }
            ucol.push((k, xr));
            for &(i, l) in &lcols[k] {
                if !inpat[i] {
                    inpat[i] = true;
                    pat.push(i);
                    if pinv[i] != NONE && !inheap[pinv[i]] {
                        inheap[pinv[i]] = true;
                        heap.push(Reverse(pinv[i]));
                    }
                }
                x[i] = x[i].sub(l.mul(xr));
            }
        }
        let mut best = NONE;
        let mut bmax = 0.0f64;
        for &i in &pat {
            if pinv[i] == NONE {
                let v = x[i].abs().to_f64();
                if v > bmax || (best == NONE && v > 0.0) {
                    bmax = v;
                    best = i;
                }
            }
        }
        if best == NONE || bmax == 0.0 || bmax.is_nan() {
            return Err(singular(op, j));
        }
        let piv = x[best];
        p[j] = best;
        pinv[best] = j;
        ucol.push((j, piv));
        let mut lcol = Vec::new();
        for &i in &pat {
            if pinv[i] == NONE && x[i] != T::zero() {
                lcol.push((i, x[i].div(piv)));
            }
            x[i] = T::zero();
            inpat[i] = false;
        }
        pat.clear();
        lcols.push(lcol);
        ucols.push(ucol);
    }
    // L (rows in pivot order, unit diagonal stored) and U as CSR
    let mut lt: Vec<(usize, usize, T)> = Vec::new();
    for (k, col) in lcols.iter().enumerate() {
        lt.push((k, k, T::one()));
        for &(i, v) in col {
            lt.push((pinv[i], k, v));
        }
    }
    let mut ut: Vec<(usize, usize, T)> = Vec::new();
    for (j, col) in ucols.iter().enumerate() {
        for &(k, v) in col {
            ut.push((k, j, v));
        }
    }
    let dev = a.device();
    let l = csr_from_triplets(lt, n, dev)?;
    let u = csr_from_triplets(ut, n, dev)?;
    let pd: Vec<i32> = p.iter().map(|&r| r as i32).collect();
    Ok(SuperLu {
        l,
        u,
        perm_r: pinv,
        p: Array::from_vec(pd, &[n], dev)?,
    })
}

/// A canonical CSR matrix from distinct (row, col, value) triplets, on `dev`.
fn csr_from_triplets<T: Float>(
    mut t: Vec<(usize, usize, T)>,
    n: usize,
    dev: &Device,
) -> Result<CsrMatrix<T>> {
    t.sort_unstable_by_key(|&(r, c, _)| (r, c));
    let mut indptr = vec![0i32; n + 1];
    for &(r, _, _) in &t {
        indptr[r + 1] += 1;
    }
    for i in 0..n {
        indptr[i + 1] += indptr[i];
    }
    let indices: Vec<i32> = t.iter().map(|&(_, c, _)| c as i32).collect();
    let data: Vec<T> = t.iter().map(|&(_, _, v)| v).collect();
    let nnz = data.len();
    CsrMatrix::new(
        Array::from_vec(data, &[nnz], dev)?,
        Array::from_vec(indices, &[nnz], dev)?,
        Array::from_vec(indptr, &[n + 1], dev)?,
        (n, n),
    )
}

/// Solves `A x = b` for a square sparse `A` (SciPy's `spsolve`): [`splu`] then
/// [`SuperLu::solve`] (the factorisation runs on the host, the solves on `A`'s device). `b` is
/// 1-D or 2-D (n, k).
///
/// ```
/// use cusci_sparse::{diags, Device, Array, linalg::spsolve};
/// let dev = Device::Cpu;
/// let a = diags::<f64>(&[&[2.0; 3], &[1.0; 2], &[1.0; 2]], &[0, -1, 1], None, &dev)?;
/// let x = spsolve(&a, &Array::from_vec(vec![3.0, 4.0, 3.0], &[3], &dev)?)?;
/// assert!(x.to_vec()?.iter().all(|v| (v - 1.0).abs() < 1e-14));
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`splu`] and [`SuperLu::solve`]: a singular matrix gives `Singular` (SciPy warns and
/// returns NaN).
pub fn spsolve<T: Float, I: SpIndex>(a: &CsrMatrix<T, I>, b: &Array<T>) -> Result<Array<T>> {
    let n = square("spsolve", a.shape())?;
    cusci_core::array::check_same_device("spsolve", a.device(), b.device())?;
    rhs_shape("spsolve", n, b)?;
    splu(a)?.solve(b)
}

/// SciPy's `factorized(A)`: factors `A` once ([`splu`]) and returns the solve function
/// `b ↦ A⁻¹ b` ([`SuperLu::solve`]).
///
/// ```
/// use cusci_sparse::{diags, Device, Array, linalg::factorized};
/// let dev = Device::Cpu;
/// let a = diags::<f64>(&[&[4.0; 3]], &[0], None, &dev)?;
/// let solve = factorized(&a)?;
/// assert_eq!(solve(&Array::from_vec(vec![4.0, 8.0, 2.0], &[3], &dev)?)?.to_vec()?, vec![1.0, 2.0, 0.5]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`splu`]; the returned function as [`SuperLu::solve`].
pub fn factorized<T: Float, I: SpIndex>(
    a: &CsrMatrix<T, I>,
) -> Result<impl Fn(&Array<T>) -> Result<Array<T>>> {
    let lu = splu(a)?;
    Ok(move |b: &Array<T>| lu.solve(b))
}
