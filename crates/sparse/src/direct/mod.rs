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

mod cpu;
mod errors;
mod shared;
mod symbolic;

use crate::cuda::direct as gpu;
use crate::matrix::{as_i32, hv, CsrMatrix};
use crate::SpIndex;
use cpu::factor_cpu;
use cusci_core::error::make;
use cusci_core::{Array, Device, Error, Float, Result};
use cusci_linalg::Scalar;
pub(crate) use errors::{failure, internal, singular, FAIL_OVERFLOW, FAIL_PIVOTAL, FAIL_SINGULAR};
pub(crate) use shared::{csc_to_csr, tail_rowperm, tail_rows, Factors};
use symbolic::analyse;
pub(crate) use symbolic::Symbolic;

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
        Device::Cuda(d) => gpu::trsv(op, &d, a, b, (lower, unit), ncol),
    }
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
        gather_rows(b, p, nc)
    }
}

/// `out[k] = b[p[k]]` for the rows of the contiguous row-major (n, nc) `b`, `p` on its device
/// (the row permutations of the LU solves).
pub(crate) fn gather_rows<T: Float>(b: &Array<T>, p: &Array<i32>, nc: usize) -> Result<Array<T>> {
    match b.device() {
        Device::Cpu => {
            let (bv, p) = (hv(b), hv(p));
            let mut out = vec![T::zero(); bv.len()];
            for (k, &r) in p.iter().enumerate() {
                let r = r as usize;
                out[k * nc..(k + 1) * nc].copy_from_slice(&bv[r * nc..(r + 1) * nc]);
            }
            Array::from_vec(out, b.shape(), &Device::Cpu)
        }
        Device::Cuda(d) => gpu::gather_rows(d, b, p, nc),
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
        Device::Cuda(d) => gpu::factor(op, d, &sym, &at)?,
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
