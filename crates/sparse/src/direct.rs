//! Direct sparse solvers: [`spsolve_triangular`], [`splu`] / [`splu_with`] ([`SuperLu`]),
//! [`spsolve`], [`factorized`].
//!
//! Routes (see each function): triangular solves run on the device of their matrix (on a GPU a
//! sync-free NVRTC kernel of `cuda/solvers.cu`, one warp per row, no analysis phase; on the CPU
//! forward/back substitution). The LU factorisation factors on the device of its matrix: CUDA 13
//! ships no sparse LU usable here (cuSOLVER's `cusolverSp` is deprecated and has no device LU;
//! cuDSS is a separate library), so it is this crate's: a left-looking sparse LU with partial
//! pivoting on a static structure, scheduled by the column elimination tree (George and Ng's
//! structure bound, SuperLU_MT's scheduling). The host computes the column ordering (COLAMD by
//! default) and the symbolic analysis from the pattern only; the numeric factorisation is one
//! persistent kernel (`cuda/splu.cu`) on a GPU and the same column steps on the CPU (rayon), so
//! the two devices give the same factors (bitwise for real types). Every [`SuperLu::solve`] then
//! runs on the factors' device (row permutations and both triangular solves as kernels).
//! Nothing moves to the host but the pattern, the permutations and a few flag words.

use crate::cuda::NT;
use crate::krylov::{launch_solver, solver_function};
use crate::matrix::{as_i32, last, CsrMatrix};
use crate::SpIndex;
use cusci_core::cuda::kernel::Args;
use cusci_core::error::make;
use cusci_core::{Array, CudaDevice, Device, Error, Float, Numeric, RealFloat, Result};
use cusci_linalg::{lu_factor, LuFactorOptions, Scalar};
use rayon::prelude::*;

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

/// SciPy's `permc_spec` of [`splu`]: the column ordering `Pc` of `Pr A Pc = L U`.
///
/// `"NATURAL"` and `"COLAMD"` are supported; SciPy's `"MMD_ATA"` and `"MMD_AT_PLUS_A"` are not
/// (parsing them gives `InvalidArgument`).
///
/// ```
/// use cusci_sparse::linalg::PermcSpec;
/// assert_eq!("NATURAL".parse::<PermcSpec>()?, PermcSpec::Natural);
/// assert_eq!(PermcSpec::default(), PermcSpec::Colamd);
/// assert!("MMD_ATA".parse::<PermcSpec>().is_err());
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PermcSpec {
    /// `"NATURAL"`: the columns in their given order (`perm_c` is the identity).
    Natural,
    /// `"COLAMD"` (SciPy's default): the approximate minimum degree ordering of the columns
    /// (COLAMD, faer's implementation), postordered by the column elimination tree.
    #[default]
    Colamd,
}

impl std::str::FromStr for PermcSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "NATURAL" => Ok(PermcSpec::Natural),
            "COLAMD" => Ok(PermcSpec::Colamd),
            "MMD_ATA" | "MMD_AT_PLUS_A" => Err(make::arg(
                "splu",
                format!("permc_spec {s:?} is not supported (NATURAL or COLAMD)"),
            )),
            _ => Err(make::arg("splu", format!("unknown permc_spec {s:?}"))),
        }
    }
}

/// Options of [`splu_with`] (SciPy's keyword arguments of `splu`; `Default` is SciPy's default).
/// SciPy's `diag_pivot_thresh` is fixed at its default 1 (partial pivoting: the largest entry
/// of each column is the pivot); `relax`, `panel_size` and `options` (SuperLU's supernode
/// tuning) have no counterpart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpluOptions {
    /// The column ordering (default [`PermcSpec::Colamd`]).
    pub permc_spec: PermcSpec,
    /// Factor the trailing columns whose static structure is dense as one dense block (see
    /// [`splu_with`]; default `true`). `false` keeps every column in the sparse loop, whose real
    /// factors are bitwise the same on every device (a cusci option; SciPy has none).
    pub dense_tail: bool,
}

impl Default for SpluOptions {
    fn default() -> Self {
        SpluOptions {
            permc_spec: PermcSpec::Colamd,
            dense_tail: true,
        }
    }
}

/// An LU factorisation `Pr A Pc = L U` of a square sparse matrix (SciPy's `SuperLU` object from
/// [`splu`]): `Pr` is the row permutation of partial pivoting ([`perm_r`](SuperLu::perm_r)),
/// `Pc` the fill-reducing column ordering ([`perm_c`](SuperLu::perm_c)), `L` unit lower
/// triangular (diagonal stored) and `U` upper triangular, both CSR with `i32` indices on the
/// device of the factored matrix, where [`solve`](SuperLu::solve) runs.
#[derive(Debug, Clone)]
pub struct SuperLu<T: Float> {
    l: CsrMatrix<T>,
    u: CsrMatrix<T>,
    perm_r: Vec<usize>,
    perm_c: Vec<usize>,
    /// `p[k]`: the original row of pivot `k` (the inverse of `perm_r`), on the device
    p: Array<i32>,
    /// `perm_c` on the device: row `i` of the solution is row `perm_c[i]` of `U⁻¹ L⁻¹ Pr b`
    qc: Array<i32>,
    /// the columns of the dense tail
    dense: usize,
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
    /// SciPy's `perm_r`: row `i` of `A` is row `perm_r[i]` of `Pr A` (`Pr[perm_r[i], i] = 1`).
    pub fn perm_r(&self) -> &[usize] {
        &self.perm_r
    }
    /// SciPy's `perm_c`: column `i` of `A` is column `perm_c[i]` of `A Pc`
    /// (`Pc[i, perm_c[i]] = 1`); the identity with [`PermcSpec::Natural`].
    pub fn perm_c(&self) -> &[usize] {
        &self.perm_c
    }
    /// (n, n).
    pub fn shape(&self) -> (usize, usize) {
        self.l.shape()
    }
    /// Stored entries of `L` and `U` (SciPy's `nnz`, the unit diagonal of `L` included).
    pub fn nnz(&self) -> usize {
        self.l.nnz() + self.u.nnz()
    }
    /// How many trailing columns (of `A Pc`) were factored as one dense block (0: none; see
    /// [`splu_with`]).
    pub fn dense_columns(&self) -> usize {
        self.dense
    }

    /// Solves `A x = b` (SciPy's `SuperLU.solve(b)`, `trans='N'`) for a 1-D `b` or each column
    /// of a 2-D (n, k) `b`: `x = Pc U⁻¹ L⁻¹ Pr b`, on the factors' device (on a GPU: a row
    /// gather, two sync-free triangular solve kernels and a second row gather, nothing on the host
    /// but the zero-pivot flag read of the solves).
    ///
    /// ```
    /// use cusci_sparse::{CsrMatrix, Device, Array, linalg::splu};
    /// let dev = Device::Cpu;
    /// let a = CsrMatrix::from_dense(&Array::from_vec(vec![0.0, 2.0, 1.0, 1.0], &[2, 2], &dev)?)?;
    /// let lu = splu(&a)?;
    /// // two right-hand sides: the columns of a (2, 2) array
    /// let x = lu.solve(&Array::from_vec(vec![2.0, 4.0, 2.0, 3.0], &[2, 2], &dev)?)?;
    /// assert_eq!(x.to_vec()?, vec![1.0, 1.0, 1.0, 2.0]);
    /// # Ok::<(), cusci_sparse::Error>(())
    /// ```
    ///
    /// # Errors
    /// `ShapeMismatch` for a `b` whose first dimension is not n, `DeviceMismatch`.
    pub fn solve(&self, b: &Array<T>) -> Result<Array<T>> {
        let op = "SuperLU.solve";
        let n = self.perm_r.len();
        cusci_core::array::check_same_device(op, self.l.device(), b.device())?;
        let nc = rhs_shape(op, n, b)?.max(1);
        let b = b.contiguous()?;
        let pb = self.gather_rows(&b, &self.p, nc)?;
        let y = trsv(op, &self.l, &pb, true, true)?;
        let z = trsv(op, &self.u, &y, false, false)?;
        self.gather_rows(&z, &self.qc, nc)
    }

    /// `out[k] = b[p[k]]`, rows of a row-major (n, nc) `b`.
    fn gather_rows(&self, b: &Array<T>, p: &Array<i32>, nc: usize) -> Result<Array<T>> {
        let n = self.perm_r.len();
        match b.device().clone() {
            Device::Cpu => {
                let bv = b.to_vec()?;
                let p = p.to_vec()?;
                let mut out = vec![T::zero(); bv.len()];
                for (k, &r) in p.iter().enumerate() {
                    let r = r as usize;
                    out[k * nc..(k + 1) * nc].copy_from_slice(&bv[r * nc..(r + 1) * nc]);
                }
                Array::from_vec(out, b.shape(), &Device::Cpu)
            }
            Device::Cuda(d) => {
                let out = Array::<T>::empty(b.shape(), b.device())?;
                if n * nc > 0 {
                    launch_solver::<T>(
                        &d,
                        "sl_gather_rows",
                        crate::cuda::blocks(&d, n * nc),
                        Args::new()
                            .push(ptr(b))
                            .push(ptr(p))
                            .push(n as i64)
                            .push(nc as i64)
                            .push(ptr(&out)),
                    )?;
                }
                Ok(out)
            }
        }
    }
}

/// LU factorisation of a square sparse matrix with partial pivoting and the COLAMD column
/// ordering (SciPy's `splu(A)`: `permc_spec="COLAMD"`, `diag_pivot_thresh=1`); see
/// [`splu_with`] for the route, the numerics and the other orderings.
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
/// As [`splu_with`].
pub fn splu<T: Scalar, I: SpIndex>(a: &CsrMatrix<T, I>) -> Result<SuperLu<T>> {
    splu_with(a, &SpluOptions::default())
}

/// LU factorisation `Pr A Pc = L U` of a square sparse matrix (SciPy's `splu` with
/// `permc_spec` from `opts` and `diag_pivot_thresh=1`).
///
/// Route (the same algorithm on both devices, so that they can be compared step by step):
/// - host, from the pattern only (`indptr` and `indices` are read; on a GPU the values never
///   leave the device): the column ordering `Pc` ([`PermcSpec`]), the column elimination tree of
///   `A Pc` (the elimination tree of `(A Pc)ᵀ(A Pc)`, without forming it), and for each column
///   `j` of `A Pc` the static list of the earlier columns that can update it (the structure of
///   `R(0..j, j)`, `R` the Cholesky factor of `(A Pc)ᵀ(A Pc)`: George and Ng's bound, which holds
///   for every row interchange) with slot capacities for `L(:, j)` and `U(:, j)`; and the dense
///   tail: the last `m` columns (64 ≤ m ≤ 4096, the largest such block) when that bound fills
///   at least 40% of `U`'s upper triangle within them ([`SpluOptions::dense_tail`]);
/// - device: a left-looking numeric factorisation with partial pivoting scheduled by the column
///   elimination tree (the approach of SuperLU_MT). On a GPU one persistent kernel: columns are
///   handed out in order by an atomic ticket, each block waits only for the columns its column
///   depends on (flags, as the sync-free triangular solve), scatters `A(:, Pc j)` into its
///   workspace (a shared-memory hash table when the column's row bound fits one, else a dense
///   vector in global memory), applies the updates `x -= L(:, k) U(k, j)` for the listed `k` in
///   ascending order (the threads of the block over the entries of `L(:, k)`), picks the pivot
///   and writes its slots. The CPU runs the same column steps with rayon, one level of the
///   dependency graph at a time (the columns of a level depend only on lower levels).
/// - the dense tail: its columns get, in the same kernel, only the updates from the columns
///   before the tail; that leaves the Schur complement `S` of the sparse part on the `m` rows
///   not yet pivotal, which is gathered densely and factored with partial pivoting by
///   `cusci_linalg::lu_factor` (cuSOLVER `getrf` on a GPU, its CPU twin on the host); its
///   factors are stored back into the slots. Exact in exact arithmetic: the same factorisation
///   as the column loop would compute.
/// - the slots are compacted into CSR on the device. Workspace on a GPU: `n` elements and `2n`
///   `i32` per resident block (the number of blocks is capped by free memory), the slots
///   (bounded by the structure of `R`, dense for the tail) and the `m × m` block.
///
/// Numerics: the pivot of each column of the sparse part is its largest entry in modulus among
/// the rows not yet pivotal, ties to the smallest row index, on both devices. The updates round
/// each product and difference once (no fused multiply-add on the GPU), so without a dense tail
/// real factors are bitwise the same on both devices and both choose the same pivots; complex
/// factors use the same formulas (the product of `num-complex`, cusci's Smith quotient) with the
/// same roundings. In the dense tail the pivot is the largest `|re| + |im|` (LAPACK's `getrf`,
/// ties to the first row of the block), and cuSOLVER's blocked arithmetic rounds differently
/// from the CPU's, so the two devices agree there to rounding (pivots can differ on near ties).
/// The factors keep no explicit zeros produced by the elimination. Results are SciPy's within
/// rounding whenever SciPy makes the same pivot choices: SuperLU prefers the diagonal entry when
/// it ties with the largest (here ties go to the smallest row), and SciPy's COLAMD may break its
/// own ties differently, so `L`, `U` and the permutations can differ while `Pr A Pc = L U` and
/// the solves agree.
///
/// Speed: below the dense tail a block applies each dependency as soon as that column is
/// factored (it waits for none of the later ones first), so along a separator the columns'
/// updates overlap. On an H200 (2026-12-04) the 2-D Poisson matrix of a 256 × 256 grid (2,095
/// dense columns) takes 98–129 ms and that of a 512 × 512 grid 0.76–1.01 s, host analysis
/// included (benches `sparse.splu_f64_poisson256` and `…512`); CuPy's `splu` (SciPy's
/// supernodal SuperLU on the host) takes 571 ms and 2.6 s on that machine, SciPy's alone 303 ms
/// and 2.1 s, with the same number of entries.
///
/// ```
/// use cusci_sparse::{diags, Device, Array, linalg::{splu_with, PermcSpec, SpluOptions}};
/// let dev = Device::Cpu;
/// let a = diags::<f64>(&[&[4.0; 4], &[1.0; 3], &[2.0; 3]], &[0, -1, 1], None, &dev)?;
/// let opts = SpluOptions { permc_spec: PermcSpec::Natural, ..SpluOptions::default() };
/// let lu = splu_with(&a, &opts)?;
/// assert_eq!(lu.perm_c(), &[0, 1, 2, 3]);
/// let x = lu.solve(&Array::from_vec(vec![6.0, 7.0, 7.0, 5.0], &[4], &dev)?)?;
/// assert!(x.to_vec()?.iter().all(|v| (v - 1.0).abs() < 1e-14));
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square matrix; `Singular { index }` when a column has no non-zero
/// pivot left (SciPy's "Factor is exactly singular"), or when a candidate pivot is NaN or the
/// pivot is not finite (SciPy would return NaN): `index` is the position of that column in the
/// factorisation's column order, i.e. column `j` of `A Pc` (column `perm_c⁻¹[index]` of `A`; the
/// column of `A` itself with [`PermcSpec::Natural`]), the first such column in that order, the
/// same on both devices (in the dense tail: the first column whose entries in the dense block
/// or in its factor are not all finite or whose pivot is zero, which agrees across devices up
/// to the tail's rounding). `InvalidArgument` for an `i64` matrix whose shape or number of entries
/// does not fit `i32` (the factors use 32-bit indices; SciPy's SuperLU downcasts likewise and
/// raises "indices too large"), and `InvalidArgument` starting "internal:" if the static
/// structure is ever exceeded (a bug, never a wrong answer). On a GPU, `OutOfMemory` when the
/// slots or one workspace do not fit.
pub fn splu_with<T: Scalar, I: SpIndex>(
    a: &CsrMatrix<T, I>,
    opts: &SpluOptions,
) -> Result<SuperLu<T>> {
    let op = "splu";
    square(op, a.shape())?;
    let a = as_i32(op, a)?;
    let n = square(op, a.shape())?;
    // canonical (distinct rows in each column: the scatter assigns), then CSC (as the CSR of Aᵀ)
    let a = a.sum_duplicates()?;
    let ip = a.indptr().to_vec()?;
    let ix = a.indices().to_vec()?;
    let sym = analyse(op, n, &ip, &ix, opts)?;
    let at = a.transpose_copy()?;
    let dev = a.device().clone();
    let mut perm_c = vec![0usize; n];
    for (j, &c) in sym.pc.iter().enumerate() {
        perm_c[c] = j;
    }
    let f = match &dev {
        Device::Cpu => factor_cpu(op, &sym, &at)?,
        Device::Cuda(d) => factor_cuda(op, d, &sym, &at)?,
    };
    let qc: Vec<i32> = perm_c.iter().map(|&j| j as i32).collect();
    let qc = Array::from_vec(qc, &[n], &dev)?;
    let perm_r = f.pinv.iter().map(|&r| r as usize).collect();
    Ok(SuperLu {
        l: f.l,
        u: f.u,
        perm_r,
        perm_c,
        p: f.piv,
        qc,
        dense: n - sym.tail,
    })
}

/// The symbolic analysis of [`splu_with`] (host, pattern only).
struct Symbolic {
    /// `pc[j]`: the column of `A` at position `j` of `A Pc`
    pc: Vec<usize>,
    /// deps(j) = `didx[dptr[j]..dptr[j + 1]]`, ascending
    dptr: Vec<i64>,
    /// the deps applied by the sparse loop: `didx[dptr[j]..dend[j]]` (those before the tail)
    dend: Vec<i64>,
    didx: Vec<i32>,
    /// the slots of `L(:, j)`: `loff[j]..loff[j + 1]`
    loff: Vec<i64>,
    /// the slots of `U(:, j)`: `uoff[j]..uoff[j + 1]` (`|deps(j)| + 1`)
    uoff: Vec<i64>,
    /// the first column of the dense tail (`n`: none)
    tail: usize,
}

fn internal(op: &str, what: String) -> Error {
    make::arg(op, format!("internal: {what} (a bug: please report it)"))
}

/// The ordering, the column elimination tree and the static structure of `A Pc` from the CSR
/// pattern of `A` (`i32`, in range; duplicates allowed).
fn analyse(op: &str, n: usize, ip: &[i32], ix: &[i32], opts: &SpluOptions) -> Result<Symbolic> {
    const NONE: usize = usize::MAX;
    // the CSC pattern: rows ascending within each column, duplicates dropped
    let mut cp = vec![0usize; n + 1];
    for &c in ix {
        cp[c as usize + 1] += 1;
    }
    for c in 0..n {
        cp[c + 1] += cp[c];
    }
    let mut fill = cp.clone();
    let mut ri = vec![0usize; ix.len()];
    for i in 0..n {
        for &c in &ix[ip[i] as usize..ip[i + 1] as usize] {
            ri[fill[c as usize]] = i;
            fill[c as usize] += 1;
        }
    }
    let mut colp = vec![0usize; n + 1];
    let mut rows: Vec<usize> = Vec::with_capacity(ri.len());
    for c in 0..n {
        let s = rows.len();
        for &r in &ri[cp[c]..cp[c + 1]] {
            if rows.len() == s || rows[rows.len() - 1] != r {
                rows.push(r);
            }
        }
        colp[c + 1] = rows.len();
    }
    drop(ri);
    // the column ordering
    let pc: Vec<usize> = match opts.permc_spec {
        PermcSpec::Colamd if n > 0 => {
            use faer::sparse::linalg::colamd;
            let sym = faer::sparse::SymbolicSparseColMatRef::new_checked(n, n, &colp, None, &rows);
            let mut fwd = vec![0usize; n];
            let mut inv = vec![0usize; n];
            let req = colamd::order_scratch::<usize>(n, n, rows.len());
            let mut mem =
                faer::dyn_stack::MemBuffer::try_new(req).map_err(|_| Error::OutOfMemory {
                    requested: req.size_bytes(),
                    free: 0,
                })?;
            colamd::order(
                &mut fwd,
                &mut inv,
                sym,
                colamd::Control::default(),
                faer::dyn_stack::MemStack::new(&mut mem),
            )
            .map_err(|e| internal(op, format!("COLAMD failed: {e:?}")))?;
            fwd
        }
        _ => (0..n).collect(),
    };
    let col = |j: usize| &rows[colp[pc[j]]..colp[pc[j] + 1]];
    // first(i): the first column of A Pc holding row i; the column elimination tree (Liu's
    // algorithm on the rows: each row links its previous column to the current one)
    let mut first = vec![NONE; n];
    let mut prev = vec![NONE; n];
    let mut parent = vec![NONE; n];
    let mut anc = vec![NONE; n];
    for j in 0..n {
        for &i in col(j) {
            if first[i] == NONE {
                first[i] = j;
            }
            let mut k = prev[i];
            while k != NONE && k < j {
                let next = anc[k];
                anc[k] = j;
                if next == NONE {
                    parent[k] = j;
                    break;
                }
                k = next;
            }
            prev[i] = j;
        }
    }
    // deps(j): the union of the tree paths from first(i) up to j over the rows i of column j;
    // the columns are independent, so blocks of them run in parallel (the later columns have
    // the longer lists: many small blocks)
    let block = (n / (64 * rayon::current_num_threads())).clamp(64, 4096);
    let parts = (0..n.div_ceil(block))
        .into_par_iter()
        .map_init(
            || vec![NONE; n],
            |mark, b| -> Result<(Vec<i64>, Vec<i32>)> {
                let js = b * block..(b * block + block).min(n);
                let (mut len, mut idx) = (Vec::with_capacity(js.len()), Vec::new());
                for j in js {
                    let s = idx.len();
                    for &i in col(j) {
                        let mut k = first[i];
                        while k != j {
                            if k == NONE || k > j {
                                return Err(internal(op, format!("column {j} is not an ancestor")));
                            }
                            if mark[k] == j {
                                break;
                            }
                            mark[k] = j;
                            idx.push(k as i32);
                            k = parent[k];
                        }
                    }
                    idx[s..].sort_unstable();
                    len.push((idx.len() - s) as i64);
                }
                Ok((len, idx))
            },
        )
        .collect::<Result<Vec<_>>>()?;
    let mut dptr = Vec::with_capacity(n + 1);
    dptr.push(0i64);
    let mut didx: Vec<i32> = Vec::with_capacity(parts.iter().map(|p| p.1.len()).sum());
    for (len, idx) in parts {
        for l in len {
            dptr.push(dptr[dptr.len() - 1] + l);
        }
        didx.extend_from_slice(&idx);
    }
    // L capacities: the candidate rows of column k lie among the rows whose first column is in
    // the subtree T(k), less the pivots of the other columns of T(k), so
    // |L(:, k)| <= rows(T(k)) - |T(k)| (this also holds for a structurally singular matrix;
    // for a nonsingular one it is at most |R(k, k+1..)|, George and Ng's bound)
    let mut rows_t = vec![0i64; n];
    let mut size_t = vec![1i64; n];
    for &f in &first {
        if f != NONE {
            rows_t[f] += 1;
        }
    }
    let tail = if opts.dense_tail {
        dense_tail(n, &didx)
    } else {
        n
    };
    let m = (n - tail) as i64;
    let mut loff = vec![0i64; n + 1];
    let mut uoff = vec![0i64; n + 1];
    let mut dend = dptr[1..].to_vec();
    for k in 0..n {
        // the children of k (all < k) have been added
        let lcap = (rows_t[k] - size_t[k]).max(0);
        if k < tail {
            loff[k + 1] = loff[k] + lcap;
            uoff[k + 1] = uoff[k] + (dptr[k + 1] - dptr[k]) + 1;
        } else {
            // a tail column: its deps before the tail, its candidates (at most lcap + 1 + c:
            // the c tail columns before it pivot on none of them) and then its dense L part;
            // U(0..tail, k) and a dense U(tail..=k, k)
            let c = (k - tail) as i64;
            let ds = &didx[dptr[k] as usize..dptr[k + 1] as usize];
            dend[k] = dptr[k] + ds.partition_point(|&d| (d as usize) < tail) as i64;
            loff[k + 1] = loff[k] + (lcap + 1 + c).max(m - 1 - c);
            uoff[k + 1] = uoff[k] + (dend[k] - dptr[k]) + c + 1;
        }
        if parent[k] != NONE {
            rows_t[parent[k]] += rows_t[k];
            size_t[parent[k]] += size_t[k];
        }
    }
    if loff[n] > i32::MAX as i64 || uoff[n] > i32::MAX as i64 {
        return Err(make::arg(
            op,
            format!(
                "the static structure ({} + {} entries) does not fit i32 indices",
                loff[n], uoff[n]
            ),
        ));
    }
    Ok(Symbolic {
        pc,
        dptr,
        dend,
        didx,
        loff,
        uoff,
        tail,
    })
}

/// The smallest and the largest dense tail ([`analyse`]).
const TAIL_MIN: usize = 64;
const TAIL_MAX: usize = 4096;

/// The first column of the dense tail: the last `m` columns are factored as one dense block when
/// the static structure of `U` within them is at least 40% full (`m` the largest such in
/// `TAIL_MIN..=TAIL_MAX`); `n` when no such block exists.
fn dense_tail(n: usize, didx: &[i32]) -> usize {
    let mut outdeg = vec![0u64; n];
    for &k in didx {
        outdeg[k as usize] += 1;
    }
    // the entries of the static U strictly above the diagonal of the last m columns
    let (mut d, mut best) = (0u64, 0);
    for m in 1..=n.min(TAIL_MAX) {
        d += outdeg[n - m];
        let full = (m * (m - 1) / 2) as u64;
        if m >= TAIL_MIN && 5 * d >= 2 * full {
            best = m;
        }
    }
    n - best
}

/// The factors of [`splu_with`]: `L`, `U` as CSR, the pivot rows (device) and `pinv` (host).
struct Factors<T: Float> {
    l: CsrMatrix<T>,
    u: CsrMatrix<T>,
    piv: Array<i32>,
    pinv: Vec<i32>,
}

/// How a column failed (the flag slots of `lu_factor`).
const FAIL_SINGULAR: usize = 1;
const FAIL_OVERFLOW: usize = 2;
const FAIL_PIVOTAL: usize = 3;

fn failure(op: &str, kind: usize, j: usize) -> Error {
    match kind {
        FAIL_SINGULAR => singular(op, j),
        FAIL_OVERFLOW => internal(
            op,
            format!("L(:, {j}) has more entries than its static bound"),
        ),
        _ => internal(
            op,
            format!("column {j} met a row pivotal for a column outside its dependencies"),
        ),
    }
}

/// Both parts finite.
fn finite<T: Float>(v: T) -> bool {
    v.re().to_f64().is_finite() && v.im().to_f64().is_finite()
}

/// CSR of `L` and `U` from their CSC arrays (column pointers, row indices, values) on `dev`.
fn csc_to_csr<T: Float>(
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

/// A worker's dense workspace in [`factor_cpu`] (`x` and `mark` zero between columns; `mark`:
/// 0 untouched, 1 touched, 2 touched and pivotal for a column of deps(j)).
struct Work<T> {
    x: Vec<T>,
    mark: Vec<u8>,
    list: Vec<usize>,
}

/// What [`factor_column`] reads: the input in CSC and the slots of the columns factored so far.
struct Done<'a, T> {
    acp: &'a [i32],
    ari: &'a [i32],
    av: &'a [T],
    lrow: &'a [i32],
    lval: &'a [T],
    lcnt: &'a [usize],
    piv: &'a [i32],
    pinv: &'a [i32],
}

/// One column of [`factor_cpu`]: its `L` and `U` entries in slot order and its pivot row (`-1`
/// for a tail column), or how it failed.
struct ColumnOut<T> {
    l: Vec<(i32, T)>,
    u: Vec<(i32, T)>,
    piv: i32,
    fail: usize,
}

/// Column `j` of `A Pc` as `lu_factor` computes it (`cuda/splu.cu`), with the same roundings:
/// its deps applied in ascending order, then (below the tail) the pivot and the multipliers, or
/// (in the tail) its candidate rows unscaled.
fn factor_column<T: Scalar>(
    sym: &Symbolic,
    j: usize,
    d: &Done<'_, T>,
    w: &mut Work<T>,
) -> ColumnOut<T> {
    let Work { x, mark, list } = w;
    list.clear();
    let c = sym.pc[j];
    for e in d.acp[c] as usize..d.acp[c + 1] as usize {
        let i = d.ari[e] as usize;
        x[i] = d.av[e];
        mark[i] = 1;
        list.push(i);
    }
    let mut out = ColumnOut {
        l: Vec::new(),
        u: Vec::new(),
        piv: -1,
        fail: 0,
    };
    for &k in &sym.didx[sym.dptr[j] as usize..sym.dend[j] as usize] {
        let k = k as usize;
        let pk = d.piv[k] as usize;
        let xr = x[pk];
        if mark[pk] != 0 {
            mark[pk] = 2;
        }
        if xr != T::zero() {
            out.u.push((k as i32, xr));
            let l0 = sym.loff[k] as usize;
            for t in l0..l0 + d.lcnt[k] {
                let i = d.lrow[t] as usize;
                if mark[i] == 0 {
                    mark[i] = 1;
                    list.push(i);
                }
                x[i] = Numeric::sub(x[i], Numeric::mul(d.lval[t], xr));
            }
        }
    }
    // the pivot (as lu_factor: largest modulus, ties to the smallest row); a tail column only
    // checks its candidates
    let (mut nan, mut pivotal) = (false, false);
    let mut best: Option<(f64, usize)> = None;
    for &i in list.iter() {
        if mark[i] != 1 {
            continue;
        }
        pivotal |= d.pinv[i] >= 0;
        let a = x[i].abs2().to_f64(); // exact for f32
        if a.is_nan() {
            nan = true;
        } else if a > 0.0 && best.is_none_or(|(bv, br)| a > bv || (a == bv && i < br)) {
            best = Some((a, i));
        }
    }
    let tail = j >= sym.tail;
    out.fail = if pivotal {
        FAIL_PIVOTAL
    } else if tail {
        0
    } else {
        match best {
            Some((_, r)) if !nan && finite(x[r]) => 0,
            _ => FAIL_SINGULAR,
        }
    };
    if out.fail == 0 {
        let prow = if tail {
            usize::MAX
        } else {
            best.map_or(0, |b| b.1)
        };
        let pv = if tail { T::one() } else { x[prow] };
        for &i in list.iter() {
            if mark[i] == 1 && i != prow && x[i] != T::zero() {
                let v = if tail { x[i] } else { Numeric::div(x[i], pv) };
                out.l.push((i as i32, v));
            }
        }
        if out.l.len() > (sym.loff[j + 1] - sym.loff[j]) as usize {
            out.fail = FAIL_OVERFLOW;
        } else if !tail {
            out.u.push((j as i32, pv));
            out.piv = prow as i32;
        }
    }
    for &i in list.iter() {
        x[i] = T::zero();
        mark[i] = 0;
    }
    out
}

/// The numeric factorisation on the host: the columns of `lu_factor` (`cuda/splu.cu`, see
/// [`factor_column`]), those of one level of the dependency graph in parallel (a column's level
/// is one more than its deps' highest), then the tail's columns (their deps all lie before the
/// tail) in parallel, then the dense tail. Each column computes what the serial loop would, so
/// the factors do not depend on the schedule; the failure reported is that of the first
/// failing column whose deps did not fail, i.e. the serial loop's. `at`: `A` in CSC (the CSR
/// of `Aᵀ`), canonical.
fn factor_cpu<T: Scalar>(op: &str, sym: &Symbolic, at: &CsrMatrix<T>) -> Result<Factors<T>> {
    let n = sym.pc.len();
    let acp = at.indptr().to_vec()?;
    let ari = at.indices().to_vec()?;
    let av = at.data().to_vec()?;
    let (ltot, utot) = (sym.loff[n] as usize, sym.uoff[n] as usize);
    let mut lrow = vec![0i32; ltot];
    let mut lval = vec![T::zero(); ltot];
    let mut lcnt = vec![0usize; n];
    let mut urow = vec![0i32; utot];
    let mut uval = vec![T::zero(); utot];
    let mut ucnt = vec![0usize; n];
    let mut piv = vec![-1i32; n];
    let mut pinv = vec![-1i32; n];
    let deps = |j: usize| &sym.didx[sym.dptr[j] as usize..sym.dend[j] as usize];
    // the batches: the sparse columns by level (a counting sort), then the tail columns
    let t = sym.tail;
    let mut level = vec![0usize; t];
    for j in 0..t {
        level[j] = deps(j)
            .iter()
            .map(|&k| level[k as usize] + 1)
            .max()
            .unwrap_or(0);
    }
    let nlev = level.iter().max().map_or(0, |&l| l + 1);
    let mut start = vec![0usize; nlev + 1];
    for &l in &level {
        start[l + 1] += 1;
    }
    for l in 0..nlev {
        start[l + 1] += start[l];
    }
    let mut order = vec![0usize; n];
    let mut fill = start.clone();
    for (j, &l) in level.iter().enumerate() {
        order[fill[l]] = j;
        fill[l] += 1;
    }
    for (j, o) in order.iter_mut().enumerate().skip(t) {
        *o = j;
    }
    let batches = start
        .windows(2)
        .map(|w| w[0]..w[1])
        .chain((t < n).then_some(t..n));
    // one workspace per worker thread
    let pool: Vec<std::sync::Mutex<Work<T>>> = (0..rayon::current_num_threads())
        .map(|_| {
            std::sync::Mutex::new(Work {
                x: vec![T::zero(); n],
                mark: vec![0u8; n],
                list: Vec::new(),
            })
        })
        .collect();
    // bad[j]: column j failed or skipped (a dep failed); the first failure (column, kind)
    let mut bad = vec![false; n];
    let mut fail: Option<(usize, usize)> = None;
    for batch in batches {
        let cols = &order[batch];
        let d = Done {
            acp: &acp,
            ari: &ari,
            av: &av,
            lrow: &lrow,
            lval: &lval,
            lcnt: &lcnt,
            piv: &piv,
            pinv: &pinv,
        };
        let outs: Vec<Option<ColumnOut<T>>> = cols
            .par_iter()
            .map(|&j| {
                if fail.is_some() && deps(j).iter().any(|&k| bad[k as usize]) {
                    return None;
                }
                let slot = rayon::current_thread_index().unwrap_or(0) % pool.len();
                let mut w = pool[slot]
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                Some(factor_column(sym, j, &d, &mut w))
            })
            .collect();
        for (&j, o) in cols.iter().zip(outs) {
            let o = match o {
                Some(o) if o.fail == 0 => o,
                Some(o) => {
                    bad[j] = true;
                    if fail.is_none_or(|(f, _)| j < f) {
                        fail = Some((j, o.fail));
                    }
                    continue;
                }
                None => {
                    bad[j] = true;
                    continue;
                }
            };
            let l0 = sym.loff[j] as usize;
            for (e, &(r, v)) in o.l.iter().enumerate() {
                lrow[l0 + e] = r;
                lval[l0 + e] = v;
            }
            lcnt[j] = o.l.len();
            let u0 = sym.uoff[j] as usize;
            for (e, &(r, v)) in o.u.iter().enumerate() {
                urow[u0 + e] = r;
                uval[u0 + e] = v;
            }
            ucnt[j] = o.u.len();
            if o.piv >= 0 {
                piv[j] = o.piv;
                pinv[o.piv as usize] = j as i32;
            }
        }
    }
    if let Some((j, kind)) = fail {
        return Err(failure(op, kind, j));
    }
    if sym.tail < n {
        let mut t = TailSlots {
            lrow: &mut lrow,
            lval: &mut lval,
            lcnt: &mut lcnt,
            urow: &mut urow,
            uval: &mut uval,
            ucnt: &mut ucnt,
        };
        tail_cpu(op, sym, &mut t, &mut piv, &mut pinv)?;
    }
    // compaction into CSC (L: the unit diagonal first, rows in pivot order), then CSR
    let (mut lp, mut li, mut lv) = (vec![0i32; n + 1], Vec::new(), Vec::new());
    let (mut up, mut ui, mut uv) = (vec![0i32; n + 1], Vec::new(), Vec::new());
    for j in 0..n {
        li.push(j as i32);
        lv.push(T::one());
        let l0 = sym.loff[j] as usize;
        for t in l0..l0 + lcnt[j] {
            li.push(pinv[lrow[t] as usize]);
            lv.push(lval[t]);
        }
        lp[j + 1] = li.len() as i32;
        let u0 = sym.uoff[j] as usize;
        ui.extend_from_slice(&urow[u0..u0 + ucnt[j]]);
        uv.extend_from_slice(&uval[u0..u0 + ucnt[j]]);
        up[j + 1] = ui.len() as i32;
    }
    let dev = Device::Cpu;
    let (nl, nu) = (li.len(), ui.len());
    let l = csc_to_csr(
        Array::from_vec(lp, &[n + 1], &dev)?,
        Array::from_vec(li, &[nl], &dev)?,
        Array::from_vec(lv, &[nl], &dev)?,
        n,
    )?;
    let u = csc_to_csr(
        Array::from_vec(up, &[n + 1], &dev)?,
        Array::from_vec(ui, &[nu], &dev)?,
        Array::from_vec(uv, &[nu], &dev)?,
        n,
    )?;
    Ok(Factors {
        l,
        u,
        piv: Array::from_vec(piv, &[n], &dev)?,
        pinv,
    })
}

/// The slots of [`factor_cpu`].
struct TailSlots<'a, T> {
    lrow: &'a mut [i32],
    lval: &'a mut [T],
    lcnt: &'a mut [usize],
    urow: &'a mut [i32],
    uval: &'a mut [T],
    ucnt: &'a mut [usize],
}

/// The rows not pivotal after the sparse columns (ascending) and each row's index among them
/// (`-1` for a pivotal row), from `pinv`.
fn tail_rows(op: &str, sym: &Symbolic, pinv: &[i32]) -> Result<(Vec<i32>, Vec<i32>)> {
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
fn tail_rowperm(rows: &[i32], ipiv: &[i64]) -> Vec<i32> {
    let mut p = rows.to_vec();
    for (r, &q) in ipiv.iter().enumerate() {
        p.swap(r, q as usize);
    }
    p
}

/// The dense tail on the host: the block `S` (the Schur complement of the sparse columns on the
/// rows not yet pivotal, gathered from the tail columns' L slots; a non-finite entry makes its
/// column singular, as a NaN candidate does in the sparse loop), its LU factorisation with
/// partial pivoting (`cusci_linalg::lu_factor`), and its factors into the slots as `lu_tail_store`
/// (`cuda/splu.cu`) writes them.
fn tail_cpu<T: Scalar>(
    op: &str,
    sym: &Symbolic,
    s: &mut TailSlots<'_, T>,
    piv: &mut [i32],
    pinv: &mut [i32],
) -> Result<()> {
    let n = piv.len();
    let (t, m) = (sym.tail, n - sym.tail);
    let (rows, map) = tail_rows(op, sym, pinv)?;
    let mut dense = vec![T::zero(); m * m];
    // the first column of S with a non-finite entry (as lu_tail_gather flags it)
    let mut sbad = m;
    for c in 0..m {
        let l0 = sym.loff[t + c] as usize;
        for e in l0..l0 + s.lcnt[t + c] {
            if !finite(s.lval[e]) {
                sbad = sbad.min(c);
            }
            dense[map[s.lrow[e] as usize] as usize * m + c] = s.lval[e];
        }
    }
    let f = lu_factor(
        &Array::from_vec(dense, &[m, m], &Device::Cpu)?,
        LuFactorOptions {
            check_finite: false,
        },
    )?;
    let rowperm = tail_rowperm(&rows, &f.piv.to_vec()?);
    // column-major: g[c * m + r] = F(r, c)
    let g = f.lu.swapaxes(0, 1)?.contiguous()?.to_vec()?;
    for c in 0..m {
        let j = t + c;
        let col = &g[c * m..(c + 1) * m];
        let d = col[c];
        let bad = c == sbad || d == T::zero() || col.iter().any(|&v| !finite(v));
        let l0 = sym.loff[j] as usize;
        let mut lc = 0;
        for r in c + 1..m {
            if col[r] != T::zero() {
                s.lrow[l0 + lc] = rowperm[r];
                s.lval[l0 + lc] = col[r];
                lc += 1;
            }
        }
        let u0 = sym.uoff[j] as usize;
        let mut nu = s.ucnt[j];
        for (r, &v) in col[..c].iter().enumerate() {
            if v != T::zero() {
                s.urow[u0 + nu] = (t + r) as i32;
                s.uval[u0 + nu] = v;
                nu += 1;
            }
        }
        s.urow[u0 + nu] = j as i32;
        s.uval[u0 + nu] = d;
        s.ucnt[j] = nu + 1;
        s.lcnt[j] = lc;
        if bad {
            return Err(singular(op, j));
        }
        piv[j] = rowperm[c];
        pinv[rowperm[c] as usize] = j as i32;
    }
    Ok(())
}

/// The numeric factorisation on a GPU: `lu_factor` (one persistent kernel), then the
/// compaction of the slots (counts, scan, copy) and the CSC → CSR conversions, all on the
/// device; the host reads the four flag words, the two entry counts and `pinv`.
fn factor_cuda<T: Scalar>(
    op: &str,
    d: &CudaDevice,
    sym: &Symbolic,
    at: &CsrMatrix<T>,
) -> Result<Factors<T>> {
    let dev = Device::Cuda(d.clone());
    let n = sym.pc.len();
    let pc: Vec<i32> = sym.pc.iter().map(|&c| c as i32).collect();
    let pc = Array::from_vec(pc, &[n], &dev)?;
    let (ltot, utot) = (sym.loff[n] as usize, sym.uoff[n] as usize);
    let dptr = Array::from_vec(sym.dptr.clone(), &[n + 1], &dev)?;
    let dend = Array::from_vec(sym.dend.clone(), &[n], &dev)?;
    let didx = Array::from_vec(sym.didx.clone(), &[sym.didx.len()], &dev)?;
    let loff = Array::from_vec(sym.loff.clone(), &[n + 1], &dev)?;
    let uoff = Array::from_vec(sym.uoff.clone(), &[n + 1], &dev)?;
    let lrow = Array::<i32>::empty(&[ltot], &dev)?;
    let lval = Array::<T>::empty(&[ltot], &dev)?;
    let urow = Array::<i32>::empty(&[utot], &dev)?;
    let uval = Array::<T>::empty(&[utot], &dev)?;
    let lcnt = Array::<i32>::zeros(&[n], &dev)?;
    let ucnt = Array::<i32>::zeros(&[n], &dev)?;
    let piv = Array::<i32>::full(&[n], -1, &dev)?;
    let pinv = Array::<i32>::full(&[n], -1, &dev)?;
    if n > 0 {
        let done = Array::<i32>::zeros(&[n], &dev)?;
        let flags = Array::from_vec(vec![0, i32::MAX, i32::MAX, i32::MAX], &[4], &dev)?;
        // the shared-memory table: the largest power of two of slots whose table fits beside the
        // kernel's static shared memory, if a column needs one that large (else the smallest
        // that serves every column)
        let es = std::mem::size_of::<T>() + 5;
        let room = d
            .props()
            .max_shared_per_block_optin
            .saturating_sub(16 << 10);
        let need = (0..sym.tail)
            .map(|j| (sym.dend[j] - sym.dptr[j]) + (sym.loff[j + 1] - sym.loff[j]) + 1)
            .max()
            .unwrap_or(0) as usize;
        let mut hcap = 0usize;
        while (hcap.max(16) * 2) * es <= room && hcap * 3 < need * 4 {
            hcap = hcap.max(16) * 2;
        }
        let smem = hcap * es;
        let f = solver_function::<T>(d, "lu_factor")?;
        let per_sm = f.occupancy(NT, smem)?.clamp(1, 4) as usize;
        // one global workspace (x, mark, list) per block for the columns beyond the table:
        // fewer blocks when memory is short
        let per_block = n * (std::mem::size_of::<T>() + 8);
        let mem = d.memory_info()?;
        let budget = (mem.free + mem.cached) / 4;
        let nb = n
            .min(d.props().multiprocessors.max(1) * per_sm)
            .min((budget / per_block).max(1));
        let xw = Array::<T>::zeros(&[nb * n], &dev)?;
        let mw = Array::<i32>::zeros(&[nb * n], &dev)?;
        let tw = Array::<i32>::empty(&[nb * n], &dev)?;
        let cfg = cusci_core::LaunchConfig {
            shared_mem_bytes: smem as u32,
            ..cusci_core::LaunchConfig::linear(nb as u32, NT)
        };
        f.launch(
            d,
            cfg,
            Args::new()
                .push(n as i64)
                .push(ptr(at.indptr()))
                .push(ptr(at.indices()))
                .push(ptr(at.data()))
                .push(ptr(&pc))
                .push(ptr(&dptr))
                .push(ptr(&dend))
                .push(ptr(&didx))
                .push(sym.tail as i64)
                .push(ptr(&loff))
                .push(ptr(&uoff))
                .push(ptr(&lrow))
                .push(ptr(&lval))
                .push(ptr(&lcnt))
                .push(ptr(&urow))
                .push(ptr(&uval))
                .push(ptr(&ucnt))
                .push(ptr(&piv))
                .push(ptr(&pinv))
                .push(ptr(&done))
                .push(ptr(&flags))
                .push(ptr(&xw))
                .push(ptr(&mw))
                .push(ptr(&tw))
                .push(hcap as i32),
        )?;
        let check = || -> Result<()> {
            let f = flags.to_vec()?;
            let (kind, j) = (1..4)
                .map(|k| (k, f[k]))
                .min_by_key(|&(_, j)| j)
                .unwrap_or((0, i32::MAX));
            if j != i32::MAX {
                return Err(failure(op, kind, j as usize));
            }
            Ok(())
        };
        check()?;
        if sym.tail < n {
            // the dense tail: gather S, factor it (cuSOLVER getrf), store its factors
            let (t, m) = (sym.tail, n - sym.tail);
            let (rows, map) = tail_rows(op, sym, &pinv.to_vec()?)?;
            let map = Array::from_vec(map, &[n], &dev)?;
            let s = Array::<T>::zeros(&[m, m], &dev)?;
            launch_solver::<T>(
                d,
                "lu_tail_gather",
                crate::cuda::blocks(d, m * 32),
                Args::new()
                    .push(n as i64)
                    .push(t as i64)
                    .push(ptr(&loff))
                    .push(ptr(&lrow))
                    .push(ptr(&lval))
                    .push(ptr(&lcnt))
                    .push(ptr(&map))
                    .push(ptr(&s))
                    .push(ptr(&flags)),
            )?;
            let f = lu_factor(
                &s,
                LuFactorOptions {
                    check_finite: false,
                },
            )?;
            let rowperm = tail_rowperm(&rows, &f.piv.to_vec()?);
            let rowperm = Array::from_vec(rowperm, &[m], &dev)?;
            // column-major: the storage of cuSOLVER's factor
            let g = f.lu.swapaxes(0, 1)?.contiguous()?;
            launch_solver::<T>(
                d,
                "lu_tail_store",
                m.min(d.props().multiprocessors.max(1) * 8) as u32,
                Args::new()
                    .push(n as i64)
                    .push(t as i64)
                    .push(ptr(&g))
                    .push(ptr(&rowperm))
                    .push(ptr(&loff))
                    .push(ptr(&lrow))
                    .push(ptr(&lval))
                    .push(ptr(&lcnt))
                    .push(ptr(&uoff))
                    .push(ptr(&urow))
                    .push(ptr(&uval))
                    .push(ptr(&ucnt))
                    .push(ptr(&piv))
                    .push(ptr(&pinv))
                    .push(ptr(&flags)),
            )?;
            check()?;
        }
    }
    // compaction: counts, scan, copy (CSC), then CSR
    let lc = Array::<i32>::zeros(&[n + 1], &dev)?;
    let uc = Array::<i32>::zeros(&[n + 1], &dev)?;
    if n > 0 {
        launch_solver::<T>(
            d,
            "lu_counts",
            crate::cuda::blocks(d, n),
            Args::new()
                .push(n as i64)
                .push(ptr(&lcnt))
                .push(ptr(&ucnt))
                .push(ptr(&lc))
                .push(ptr(&uc)),
        )?;
    }
    let lp = lc.cumsum(0)?;
    let up = uc.cumsum(0)?;
    let (nl, nu) = (last(&lp)?, last(&up)?);
    let li = Array::<i32>::empty(&[nl], &dev)?;
    let lv = Array::<T>::empty(&[nl], &dev)?;
    let ui = Array::<i32>::empty(&[nu], &dev)?;
    let uv = Array::<T>::empty(&[nu], &dev)?;
    if n > 0 {
        launch_solver::<T>(
            d,
            "lu_compact",
            crate::cuda::blocks(d, n * 32),
            Args::new()
                .push(n as i64)
                .push(ptr(&loff))
                .push(ptr(&lrow))
                .push(ptr(&lval))
                .push(ptr(&lcnt))
                .push(ptr(&uoff))
                .push(ptr(&urow))
                .push(ptr(&uval))
                .push(ptr(&ucnt))
                .push(ptr(&pinv))
                .push(ptr(&lp))
                .push(ptr(&li))
                .push(ptr(&lv))
                .push(ptr(&up))
                .push(ptr(&ui))
                .push(ptr(&uv)),
        )?;
    }
    let l = csc_to_csr(lp, li, lv, n)?;
    let u = csc_to_csr(up, ui, uv, n)?;
    let pinv_h = pinv.to_vec()?;
    Ok(Factors {
        l,
        u,
        piv,
        pinv: pinv_h,
    })
}

/// Solves `A x = b` for a square sparse `A` (SciPy's `spsolve` with `permc_spec="COLAMD"`):
/// [`splu`] then [`SuperLu::solve`], both on `A`'s device (on a GPU the numeric factorisation
/// and the solves run as kernels; the host sees only the pattern, see [`splu_with`]). `b` is
/// 1-D or 2-D (n, k) (each column solved); the result has `b`'s shape.
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
/// As [`splu_with`] and [`SuperLu::solve`]: a singular matrix gives `Singular` (SciPy warns and
/// returns NaN).
pub fn spsolve<T: Scalar, I: SpIndex>(a: &CsrMatrix<T, I>, b: &Array<T>) -> Result<Array<T>> {
    let n = square("spsolve", a.shape())?;
    cusci_core::array::check_same_device("spsolve", a.device(), b.device())?;
    rhs_shape("spsolve", n, b)?;
    splu(a)?.solve(b)
}

/// SciPy's `factorized(A)`: factors `A` once ([`splu`], COLAMD ordering, on `A`'s device) and
/// returns the solve function `b ↦ A⁻¹ b` ([`SuperLu::solve`], 1-D or 2-D `b`).
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
/// As [`splu_with`]; the returned function as [`SuperLu::solve`].
pub fn factorized<T: Scalar, I: SpIndex>(
    a: &CsrMatrix<T, I>,
) -> Result<impl Fn(&Array<T>) -> Result<Array<T>>> {
    let lu = splu(a)?;
    Ok(move |b: &Array<T>| lu.solve(b))
}
