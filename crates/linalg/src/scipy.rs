//! SciPy's semantics for the names that the crate root gives with NumPy's: `scipy.linalg`'s
//! `eigh`/`eigvalsh` (generalized problem, subsets), `solve` (`assume_a`, `lower`,
//! `transposed`, the ill-conditioning warning as a value), `cholesky` (upper by default), `lu`
//! (`permute_l`, `p_indices`), `qr` (`pivoting`), `pinv`/`pinvh` (`atol`, `rtol`), `norm`
//! (`axis`, `keepdims`) and `matrix_rank` (`hermitian`, `rtol`).
//!
//! The crate root keeps NumPy's forms under NumPy's names (`cusci_linalg::cholesky` is NumPy's
//! lower factor); this module holds SciPy's under SciPy's names
//! (`cusci_linalg::scipy::cholesky` is SciPy's, upper by default). SciPy's keyword arguments are
//! the fields of an options struct whose `Default` is SciPy's defaults.
//!
//! Every function here is composed from the crate's functions that run on both devices
//! (cuSOLVER/cuBLAS on the GPU, faer and rayon on the CPU); where a step reads a small result
//! back to the host (and so synchronises) the function's doc says so.

use crate::decomp::Cholesky;
use crate::solve::tri;
use crate::util::{cat, mat_dims, prod, same_device, square_dims};
use crate::{matmul, solve_triangular, Scalar, TriangularOptions};
use cusci_core::array::layout::broadcast_shapes;
use cusci_core::error::make;
use cusci_core::{Array, Device, RealFloat, Result};

fn shp(v: &[usize]) -> Vec<isize> {
    v.iter().map(|&x| x as isize).collect()
}

fn real_of<T: Scalar>(v: f64) -> T::R {
    <T::R as RealFloat>::from_f64(v)
}

/// The conjugate transpose of the last two axes (a view for real types).
fn adj<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    let t = a.swapaxes(-1, -2)?;
    if T::DTYPE.is_complex() {
        t.conj()
    } else {
        Ok(t)
    }
}

/// The full matrix of the Hermitian (`conj`) or symmetric matrix whose `lower` or upper triangle
/// `a` holds; the other triangle of `a` is not read, and for a Hermitian matrix only the real
/// part of the diagonal (LAPACK's rule).
pub(crate) fn full_from_triangle<T: Scalar>(
    a: &Array<T>,
    lower: bool,
    conj: bool,
) -> Result<Array<T>> {
    let s = tri(a, if lower { -1 } else { 1 }, lower)?; // the strict triangle
    let d = tri(a, 0, lower)?.sub(&s)?; // the diagonal, as a matrix
    let st = s.swapaxes(-1, -2)?;
    let (st, d) = if conj && T::DTYPE.is_complex() {
        let half = T::from_real(real_of::<T>(0.5));
        (st.conj()?, d.add(&d.conj()?)?.mul_scalar(half)?)
    } else {
        (st, d)
    };
    s.add(&st)?.add(&d)
}

// ---------------------------------------------------------------------------------------------
// eigh / eigvalsh
// ---------------------------------------------------------------------------------------------

/// SciPy's keyword arguments of [`eigh`] and [`eigvalsh`] (`scipy.linalg.eigh`); `Default` is
/// SciPy's defaults. `driver`, `overwrite_*` and `check_finite` are not fields: the solver is
/// the device's (LAPACK-like `syevd` on the GPU, faer on the CPU) and `check_finite=False` is
/// [`without_finite_check`](crate::without_finite_check).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EighOptions {
    /// Read the lower triangle of `a` (and of `b`) — SciPy's default — or the upper one.
    pub lower: bool,
    /// Return only the eigenvalues (the result's `v` is `None`).
    pub eigvals_only: bool,
    /// SciPy's `type` of the generalized problem (with `b`): 1 for `a v = w b v`, 2 for
    /// `a b v = w v`, 3 for `b a v = w v`. Ignored without `b` (as SciPy).
    pub type_: u8,
    /// SciPy's `subset_by_index=[lo, hi]`: only the eigenvalues `lo..=hi` (0-based, ascending),
    /// `0 <= lo <= hi <= N-1`.
    pub subset_by_index: Option<(usize, usize)>,
    /// SciPy's `subset_by_value=[lo, hi]`: only the eigenvalues in the half-open interval
    /// `(lo, hi]` (`-inf`/`inf` allowed), `lo < hi`.
    pub subset_by_value: Option<(f64, f64)>,
}

impl Default for EighOptions {
    fn default() -> Self {
        EighOptions {
            lower: true,
            eigvals_only: false,
            type_: 1,
            subset_by_index: None,
            subset_by_value: None,
        }
    }
}

/// The result of [`eigh`]: eigenvalues ascending, and the eigenvectors as columns (`None` with
/// `eigvals_only`).
#[derive(Debug, Clone)]
pub struct Eigh<T: Scalar> {
    /// `(..., M)`: the eigenvalues (all `N`, or the subset's `M`), ascending.
    pub w: Array<T::R>,
    /// `(..., N, M)`: the eigenvectors as columns. Normalised as LAPACK does: `vᴴ v = I`
    /// without `b`; `vᴴ b v = I` for types 1 and 2; `vᴴ b⁻¹ v = I` for type 3.
    pub v: Option<Array<T>>,
}

/// Eigenvalues and eigenvectors of a Hermitian (real: symmetric) matrix, or of the generalized
/// problem with a Hermitian positive-definite `b` (SciPy's `scipy.linalg.eigh(a, b, lower,
/// eigvals_only, subset_by_index, subset_by_value, type)`).
///
/// `a` is `(..., N, N)`, `b` `(..., N, N)` (the leading axes broadcast); only the triangle
/// `opts.lower` names is read from both, and of the diagonal only the real part (LAPACK's rule).
///
/// How it runs (the same steps on both devices, each step on the arrays' device):
/// - without `b`: the crate's [`eigh`](crate::eigh) (GPU: cuSOLVER `Xsyevd`, or `syevjBatched`
///   for stacks of small matrices).
/// - with `b` (composed, as LAPACK's `sygv`/`hegv`, not cuSOLVER's `sygvd`): the Cholesky factor
///   `b = L Lᴴ` ([`cho_factor`](crate::cho_factor)), the reduction to the standard problem with
///   two triangular solves (`C = L⁻¹ a L⁻ᴴ`, type 1) or two products (`C = Lᴴ a L`, types 2 and
///   3), [`eigh`](crate::eigh) of `C`, and the back-transform (`v = L⁻ᴴ y` for types 1 and 2,
///   `v = L y` for type 3).
/// - subsets: the full decomposition, then the selection (SciPy calls `syevr`/`sygvx`, cuSOLVER
///   `syevdx` is not used). `subset_by_index` slices; `subset_by_value` reads the eigenvalues
///   back to count them (synchronises) and slices, or for a stack whose matrices start their
///   interval at different indices multiplies by a selection matrix built on the host.
///
/// # Errors
/// `InvalidArgument` for a non-square `a` or `b`, a `b` of another order, `type_` not 1, 2 or 3,
/// both subsets given, an index subset outside `0 <= lo <= hi <= N-1`, a value subset with
/// `lo >= hi` or NaN, a stack whose matrices have different counts of eigenvalues in the value
/// interval (SciPy cannot stack them either), or NaN/infinity in `a` or `b` (SciPy's
/// `check_finite`); `ShapeMismatch` when the batch shapes do not broadcast;
/// `NotPositiveDefinite` when `b` is not positive definite (SciPy's `LinAlgError`);
/// `NoConvergence`. Synchronises on the GPU (eigh reads `info`).
///
/// # Numerics
/// Backward stable without `b`. With `b` the error grows with `cond(b)` (as LAPACK's `sygv`):
/// eigenvalues of a pencil with `cond(b) = κ` carry a relative error of about `κ·ε`.
///
/// ```
/// use cusci_linalg::{Array, Device};
/// use cusci_linalg::scipy::{eigh, EighOptions};
/// let a = Array::from_vec(vec![2.0f64, 0.0, 0.0, 6.0], &[2, 2], &Device::Cpu)?;
/// let b = Array::from_vec(vec![2.0f64, 0.0, 0.0, 3.0], &[2, 2], &Device::Cpu)?;
/// // a v = w b v: w = 1, 2
/// let r = eigh(&a, Some(&b), EighOptions::default())?;
/// let w = r.w.to_vec()?;
/// assert!((w[0] - 1.0).abs() < 1e-12 && (w[1] - 2.0).abs() < 1e-12);
/// // only the largest eigenvalue, no vectors
/// let opts = EighOptions { subset_by_index: Some((1, 1)), eigvals_only: true, ..Default::default() };
/// let r = eigh(&a, Some(&b), opts)?;
/// assert_eq!(r.w.shape(), &[1]);
/// assert!(r.v.is_none());
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn eigh<T: Scalar>(a: &Array<T>, b: Option<&Array<T>>, opts: EighOptions) -> Result<Eigh<T>> {
    eigh_impl("eigh", a, b, opts)
}

/// Eigenvalues only (SciPy's `scipy.linalg.eigvalsh(a, b, lower, subset_by_index,
/// subset_by_value, type)`): [`eigh`] with `eigvals_only` (the field is ignored here).
///
/// # Errors
/// As [`eigh`].
///
/// ```
/// use cusci_linalg::{Array, Device};
/// use cusci_linalg::scipy::{eigvalsh, EighOptions};
/// let a = Array::from_vec(vec![1.0f64, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0], &[3, 3], &Device::Cpu)?;
/// let opts = EighOptions { subset_by_value: Some((1.0, 3.0)), ..Default::default() };
/// assert_eq!(eigvalsh(&a, None, opts)?.to_vec()?, vec![2.0, 3.0]); // (1, 3]
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn eigvalsh<T: Scalar>(
    a: &Array<T>,
    b: Option<&Array<T>>,
    opts: EighOptions,
) -> Result<Array<T::R>> {
    let opts = EighOptions {
        eigvals_only: true,
        ..opts
    };
    Ok(eigh_impl("eigvalsh", a, b, opts)?.w)
}

fn eigh_impl<T: Scalar>(
    op: &str,
    a: &Array<T>,
    b: Option<&Array<T>>,
    opts: EighOptions,
) -> Result<Eigh<T>> {
    let (ba, n) = square_dims(op, a)?;
    if opts.subset_by_index.is_some() && opts.subset_by_value.is_some() {
        return Err(make::arg(
            op,
            "either index or value subset can be requested",
        ));
    }
    if let Some((lo, hi)) = opts.subset_by_index {
        if !(lo <= hi && hi < n) {
            return Err(make::arg(
                op,
                format!(
                    "requested eigenvalue indices [{lo}, {hi}] are not valid: \
                     0 <= lo <= hi <= {} needed",
                    n as isize - 1
                ),
            ));
        }
    }
    if let Some((lo, hi)) = opts.subset_by_value {
        if lo.is_nan() || hi.is_nan() || lo >= hi {
            return Err(make::arg(
                op,
                format!("requested eigenvalue interval ({lo}, {hi}] is not valid: lo < hi needed"),
            ));
        }
    }
    let vectors = !opts.eigvals_only;
    let (w, v) = match b {
        None => {
            let (w, v) = crate::decomp::eigh_impl(a, opts.lower, vectors)?;
            (w, v)
        }
        Some(b) => {
            same_device(op, a, b)?;
            if !(1..=3).contains(&opts.type_) {
                return Err(make::arg(
                    op,
                    format!("type must be 1, 2 or 3, got {}", opts.type_),
                ));
            }
            let (bb, nb) = square_dims(op, b)?;
            if nb != n {
                return Err(make::arg(
                    op,
                    format!(
                        "wrong b dimensions {:?}, should be {:?}",
                        b.shape(),
                        a.shape()
                    ),
                ));
            }
            let batch = broadcast_shapes(op, &ba, &bb)?;
            let full = cat(&batch, &[n, n]);
            crate::util::check_finite(op, a)?;
            crate::util::check_finite(op, b)?;
            if prod(&batch) == 0 || n == 0 {
                let w = Array::zeros(&cat(&batch, &[n]), a.device())?;
                let v = if vectors {
                    Some(Array::zeros(&full, a.device())?)
                } else {
                    None
                };
                (w, v)
            } else {
                generalized(a, b, &full, opts, vectors)?
            }
        }
    };
    select(op, w, v, n, opts)
}

/// The generalized problem by reduction to the standard one (LAPACK's `sygst` + `syev` +
/// back-transform), composed of the crate's functions.
#[allow(clippy::type_complexity)]
fn generalized<T: Scalar>(
    a: &Array<T>,
    b: &Array<T>,
    full: &[usize],
    opts: EighOptions,
    vectors: bool,
) -> Result<(Array<T::R>, Option<Array<T>>)> {
    // the triangle `lower` names and the real part of the diagonal are read (as potrf)
    let c = Cholesky::new(&b.broadcast_to(full)?.copy()?, opts.lower)?;
    // the lower factor L with b = L Lᴴ
    let l = if opts.lower {
        c.factor()
    } else {
        adj(&c.factor())?.copy()?
    };
    let af = full_from_triangle(&a.broadcast_to(full)?.copy()?, opts.lower, true)?;
    let lo = |trans: u8| TriangularOptions {
        trans,
        lower: true,
        unit_diagonal: false,
    };
    let cm = if opts.type_ == 1 {
        // C = L⁻¹ a L⁻ᴴ = (L⁻¹ (L⁻¹ a)ᴴ)ᴴ, and C is Hermitian: L⁻¹ (L⁻¹ a)ᴴ
        let y = solve_triangular(&l, &af, lo(0))?;
        solve_triangular(&l, &adj(&y)?, lo(0))?
    } else {
        // C = Lᴴ a L
        matmul(&adj(&l)?, &matmul(&af, &l)?)?
    };
    let (w, y) = crate::decomp::eigh_impl(&cm, true, vectors)?;
    let v = match y {
        None => None,
        Some(y) if opts.type_ == 3 => Some(matmul(&l, &y)?),
        Some(y) => Some(solve_triangular(&l, &y, lo(2))?),
    };
    Ok((w, v))
}

/// Applies the subset of `opts` to the full decomposition (`w` `(..., N)`, `v` `(..., N, N)`).
fn select<T: Scalar>(
    op: &str,
    w: Array<T::R>,
    v: Option<Array<T>>,
    n: usize,
    opts: EighOptions,
) -> Result<Eigh<T>> {
    let slice = |w: Array<T::R>, v: Option<Array<T>>, lo: usize, hi: usize| -> Result<Eigh<T>> {
        let (lo, hi) = (Some(lo as isize), Some(hi as isize));
        let w = w.slice_axis(-1, lo, hi, 1)?.copy()?;
        let v = match v {
            Some(v) => Some(v.slice_axis(-1, lo, hi, 1)?.copy()?),
            None => None,
        };
        Ok(Eigh { w, v })
    };
    if let Some((lo, hi)) = opts.subset_by_index {
        return slice(w, v, lo, hi + 1);
    }
    let Some((vl, vu)) = opts.subset_by_value else {
        return Ok(Eigh { w, v });
    };
    let batch = w.shape()[..w.ndim() - 1].to_vec();
    let count = prod(&batch);
    let wv = w.to_vec()?;
    // per matrix: the first index above vl and the count in (vl, vu] (ascending eigenvalues)
    let mut ranges = Vec::with_capacity(count);
    for i in 0..count {
        let m = &wv[i * n..(i + 1) * n];
        let start = m.iter().take_while(|x| x.to_f64() <= vl).count();
        let end = m.iter().take_while(|x| x.to_f64() <= vu).count();
        ranges.push((start, end.max(start) - start));
    }
    let k = ranges.first().map_or(0, |r| r.1);
    if ranges.iter().any(|r| r.1 != k) {
        return Err(make::arg(
            op,
            "the matrices of the stack have different counts of eigenvalues in the interval",
        ));
    }
    let s0 = ranges.first().map_or(0, |r| r.0);
    if ranges.iter().all(|r| r.0 == s0) {
        return slice(w, v, s0, s0 + k);
    }
    // different starts: multiply by a selection matrix P (N x k per matrix) built on the host
    let dev: Device = w.device().clone();
    let mut p = vec![real_of::<T>(0.0); count * n * k];
    for (i, &(s, _)) in ranges.iter().enumerate() {
        for j in 0..k {
            p[i * n * k + (s + j) * k + j] = real_of::<T>(1.0);
        }
    }
    let pr = Array::from_vec(p, &cat(&batch, &[n, k]), &dev)?;
    let ws = matmul(&w.expand_dims(-2)?, &pr)?;
    let ws = ws.reshape(&shp(&cat(&batch, &[k])))?;
    let v = match v {
        Some(v) => Some(matmul(&v, &pr.astype::<T>()?)?),
        None => None,
    };
    Ok(Eigh { w: ws, v })
}

// ---------------------------------------------------------------------------------------------
// solve
// ---------------------------------------------------------------------------------------------

/// SciPy's `assume_a` of [`solve`]: the structure of `a` that chooses the solver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AssumeA {
    /// SciPy's `None` (the default): SciPy detects a structure and picks its solver; here LU with
    /// partial pivoting on the whole matrix, whose solution agrees with every structured solver's
    /// within rounding (no detection pass is run).
    #[default]
    Auto,
    /// `'general'`/`'gen'`: LU with partial pivoting (LAPACK `getrf`/`getrs`).
    General,
    /// `'symmetric'`/`'sym'`: only the triangle `lower` names is read (`aᵀ = a`).
    Symmetric,
    /// `'hermitian'`/`'her'`: only the triangle `lower` names is read and of the diagonal only the
    /// real part (`aᴴ = a`); for real types the same as `Symmetric`.
    Hermitian,
    /// `'positive definite'`/`'pos'`: Cholesky of the triangle `lower` names.
    PositiveDefinite,
    /// `'banded'`: the full matrix (SciPy takes the bandwidth of the non-zeros, so every
    /// non-zero is read).
    Banded,
    /// `'tridiagonal'`: only the three central diagonals are read.
    Tridiagonal,
    /// `'upper triangular'`: only the upper triangle is read.
    UpperTriangular,
    /// `'lower triangular'`: only the lower triangle is read.
    LowerTriangular,
    /// `'diagonal'`: only the diagonal is read.
    Diagonal,
}

/// SciPy's keyword arguments of [`solve`]; `Default` is SciPy's defaults (`assume_a=None`,
/// `lower=False`, `transposed=False`). `check_finite=False` is
/// [`without_finite_check`](crate::without_finite_check); `overwrite_*` have no counterpart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SolveOptions {
    /// The structure of `a`.
    pub assume_a: AssumeA,
    /// For `Symmetric`, `Hermitian`, `PositiveDefinite`: read the lower triangle (else the upper
    /// one, SciPy's default). Ignored otherwise, as in SciPy.
    pub lower: bool,
    /// Solve `aᵀ x = b` (the plain transpose, also for complex `a`, where SciPy raises
    /// `NotImplementedError`).
    pub transposed: bool,
}

/// [`solve_with_info`]'s result: the solution and SciPy's ill-conditioning warning as values.
#[derive(Debug, Clone)]
pub struct SolveInfo<T: Scalar> {
    /// The solution, shaped as [`solve`]'s.
    pub x: Array<T>,
    /// The reciprocal condition number in the 1-norm of each matrix solved (`op(a)` as the
    /// structure reads it), `1 / (‖op(a)‖₁ ‖op(a)⁻¹‖₁)`, of the batch's shape (0-d for one
    /// matrix), on the arrays' device. Computed exactly (LAPACK's `gecon` that SciPy calls
    /// estimates it, usually within a factor of 3).
    pub rcond: Array<T::R>,
}

impl<T: Scalar> SolveInfo<T> {
    /// The flat indices of the matrices whose `rcond` is below the machine epsilon of `T`: the
    /// ones for which SciPy warns (`LinAlgWarning: Ill-conditioned matrix`). Reads `rcond` back
    /// (synchronises).
    ///
    /// # Errors
    /// A device error while reading back.
    pub fn ill_conditioned(&self) -> Result<Vec<usize>> {
        let eps = T::eps();
        Ok(self
            .rcond
            .to_vec()?
            .iter()
            .enumerate()
            .filter(|(_, r)| r.to_f64() < eps)
            .map(|(i, _)| i)
            .collect())
    }
}

/// Solves `a x = b` (SciPy's `scipy.linalg.solve(a, b, lower, assume_a, transposed)`): `a` is
/// `(..., N, N)`, `b` `(N,)` or `(..., N, K)`, the leading axes broadcast; only the part of `a`
/// that `opts.assume_a` names is read.
///
/// How each structure runs (both devices, each step on the arrays' device):
/// `Auto`, `General`, `Banded`: LU with partial pivoting ([`crate::solve`]: cuSOLVER `getrf`
/// or the crate's small-matrix kernel); `Symmetric`, `Hermitian`: the full matrix formed from
/// the triangle (element-wise), then LU (SciPy: Bunch–Kaufman `sysv`/`hesv`; both are backward
/// stable); `PositiveDefinite`: Cholesky ([`cho_factor`](crate::cho_factor)/`cho_solve`);
/// `Tridiagonal`: the three diagonals as a full matrix, then LU (O(N³): use
/// [`solve_banded`](crate::solve_banded) for long tridiagonal systems); `UpperTriangular`,
/// `LowerTriangular`: [`solve_triangular`](crate::solve_triangular) (cuBLAS `trsm`);
/// `Diagonal`: a division by the diagonal.
///
/// # Errors
/// `InvalidArgument` for a non-square `a` or NaN/infinity in `a` or `b` (SciPy's
/// `check_finite`); `ShapeMismatch` when `b` does not match; `Singular { index }` for a singular
/// matrix (SciPy's `LinAlgError`); `NotPositiveDefinite` for `PositiveDefinite` when the
/// Cholesky factorisation fails. Synchronises on the GPU (to read `info`).
///
/// ```
/// use cusci_linalg::{Array, Device};
/// use cusci_linalg::scipy::{solve, AssumeA, SolveOptions};
/// // only the upper triangle is read (the 99 is ignored)
/// let a = Array::from_vec(vec![4.0f64, 2.0, 99.0, 5.0], &[2, 2], &Device::Cpu)?;
/// let b = Array::from_vec(vec![6.0f64, 7.0], &[2], &Device::Cpu)?;
/// let opts = SolveOptions { assume_a: AssumeA::PositiveDefinite, ..Default::default() };
/// let x = solve(&a, &b, opts)?.to_vec()?;
/// assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 1.0).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn solve<T: Scalar>(a: &Array<T>, b: &Array<T>, opts: SolveOptions) -> Result<Array<T>> {
    Ok(solve_impl(a, b, opts, false)?.0)
}

/// [`solve`] that also returns the reciprocal condition number of each matrix, SciPy's
/// ill-conditioning warning as a value ([`SolveInfo::ill_conditioned`] lists the matrices SciPy
/// warns about).
///
/// The condition number costs an inverse of each matrix on top of the solve ([`crate::inv`]
/// and two 1-norms, on the arrays' device).
///
/// # Errors
/// As [`solve`].
///
/// ```
/// use cusci_linalg::{Array, Device};
/// use cusci_linalg::scipy::{solve_with_info, SolveOptions};
/// let a = Array::from_vec(vec![1.0f64, 0.0, 0.0, 1e-20], &[2, 2], &Device::Cpu)?;
/// let b = Array::from_vec(vec![1.0f64, 1.0], &[2], &Device::Cpu)?;
/// let r = solve_with_info(&a, &b, SolveOptions::default())?;
/// assert_eq!(r.ill_conditioned()?, vec![0]); // SciPy: LinAlgWarning
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn solve_with_info<T: Scalar>(
    a: &Array<T>,
    b: &Array<T>,
    opts: SolveOptions,
) -> Result<SolveInfo<T>> {
    let (x, m) = solve_impl(a, b, opts, true)?;
    let m = m.ok_or_else(|| make::arg("solve", "matrix missing"))?;
    let (batch, n) = square_dims("solve", &m)?;
    let rcond = if prod(&batch) == 0 || n == 0 {
        Array::<T::R>::ones(&batch, m.device())?
    } else {
        let one = crate::NormOrd::P(1.0);
        let na = crate::norm(&m, one)?;
        let ni = crate::norm(&crate::inv(&m)?, one)?;
        na.mul(&ni)?.rdiv_scalar(real_of::<T>(1.0))?
    };
    Ok(SolveInfo { x, rcond })
}

/// The solution and, with `want_m`, the matrix solved (`op(a)` as the structure reads it,
/// broadcast to the batch).
fn solve_impl<T: Scalar>(
    a: &Array<T>,
    b: &Array<T>,
    opts: SolveOptions,
    want_m: bool,
) -> Result<(Array<T>, Option<Array<T>>)> {
    let op = "solve";
    same_device(op, a, b)?;
    let (ba, n) = square_dims(op, a)?;
    let vector = b.ndim() == 1;
    let b2 = if vector { b.expand_dims(1)? } else { b.clone() };
    let (bb, nb, _) = mat_dims(op, &b2)?;
    if nb != n {
        return Err(make::shape(
            op,
            format!(
                "incompatible shapes: a is {:?} and b is {:?}",
                a.shape(),
                b.shape()
            ),
        ));
    }
    let batch = broadcast_shapes(op, &ba, &bb)?;
    crate::util::check_finite(op, a)?;
    crate::util::check_finite(op, b)?;
    let t = |m: Array<T>| -> Result<Array<T>> {
        if opts.transposed {
            m.swapaxes(-1, -2)?.copy()
        } else {
            Ok(m)
        }
    };
    // one materialised copy of a broadcast to the batch (the structured views below read it)
    let ab = a.broadcast_to(&cat(&batch, &[n, n]))?.copy()?;
    let herm = T::DTYPE.is_complex();
    // the matrix the structure reads (op(a))
    let m = match opts.assume_a {
        AssumeA::Auto | AssumeA::General | AssumeA::Banded => t(ab)?,
        AssumeA::Symmetric => t(full_from_triangle(&ab, opts.lower, false)?)?,
        AssumeA::Hermitian | AssumeA::PositiveDefinite => {
            t(full_from_triangle(&ab, opts.lower, herm)?)?
        }
        AssumeA::Tridiagonal => t(tri(&tri(&ab, 1, true)?, -1, false)?)?,
        AssumeA::UpperTriangular => t(tri(&ab, 0, false)?)?,
        AssumeA::LowerTriangular => t(tri(&ab, 0, true)?)?,
        AssumeA::Diagonal => tri(&tri(&ab, 0, true)?, 0, false)?,
    };
    let x = match opts.assume_a {
        AssumeA::PositiveDefinite => Cholesky::new(&m, true)?.solve(&b2)?,
        AssumeA::UpperTriangular | AssumeA::LowerTriangular => {
            // op(a) is lower when (lower, not transposed) or (upper, transposed)
            let low = (opts.assume_a == AssumeA::LowerTriangular) != opts.transposed;
            solve_triangular(
                &m,
                &b2,
                TriangularOptions {
                    trans: 0,
                    lower: low,
                    unit_diagonal: false,
                },
            )?
        }
        AssumeA::Diagonal => {
            let d = m.sum_axes(&[-1])?; // (batch..., N): the diagonal
            let dv = d.to_vec()?;
            if let Some(z) = dv.iter().position(|v| *v == T::zero()) {
                let index = if batch.is_empty() { z } else { z / n.max(1) };
                return Err(crate::shared::singular(op, index));
            }
            b2.div(&d.expand_dims(-1)?)?
                .broadcast_to(&cat(&batch, &[n, b2.shape()[b2.ndim() - 1]]))?
                .copy()?
        }
        _ => crate::solve(&m, &b2)?,
    };
    let x = if vector { x.index_axis(-1, 0)? } else { x };
    Ok((x, if want_m { Some(m) } else { None }))
}

// ---------------------------------------------------------------------------------------------
// cholesky, lu
// ---------------------------------------------------------------------------------------------

/// Cholesky factor of Hermitian positive-definite matrices (SciPy's `scipy.linalg.cholesky(a,
/// lower=False)`): `U` with `a = Uᴴ U` reading the upper triangle (`lower = false`, SciPy's
/// default), or `L` with `a = L Lᴴ` reading the lower one; of the diagonal only the real part is
/// read (LAPACK's `potrf`). The other triangle of the result is zero. NumPy's form (lower) is [`crate::cholesky`].
///
/// GPU: cuSOLVER `Xpotrf` (or `potrfBatched` for stacks), as [`cho_factor`](crate::cho_factor).
///
/// # Errors
/// `InvalidArgument` when not square or for NaN/infinity; `NotPositiveDefinite { index }`.
/// Synchronises on the GPU.
///
/// ```
/// use cusci_linalg::{Array, Device};
/// let a = Array::from_vec(vec![4.0f64, 2.0, 2.0, 5.0], &[2, 2], &Device::Cpu)?;
/// assert_eq!(cusci_linalg::scipy::cholesky(&a, false)?.to_vec()?, vec![2.0, 1.0, 0.0, 2.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn cholesky<T: Scalar>(a: &Array<T>, lower: bool) -> Result<Array<T>> {
    Ok(Cholesky::new(a, lower)?.factor())
}

/// SciPy's `permute_l` and `p_indices` of [`lu`]; `Default` is SciPy's (`False`, `False`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LuOptions {
    /// Return `(P L, U)` instead of `(P, L, U)`.
    pub permute_l: bool,
    /// Return the permutation as row indices `p` (`a = L[p] @ U`) instead of the matrix `P`.
    pub p_indices: bool,
}

/// [`lu`]'s result: `a = P L U`. Exactly one of `p`, `perm` is `Some` unless `permute_l`.
#[derive(Debug, Clone)]
pub struct LuParts<T: Scalar> {
    /// `(..., M, M)` permutation matrix (neither option).
    pub p: Option<Array<T>>,
    /// `(..., M)` row indices with `a = L[p] @ U` (`p_indices` without `permute_l`).
    pub perm: Option<Array<i64>>,
    /// `(..., M, K)`: unit lower trapezoidal `L`, or `P L` with `permute_l`.
    pub l: Array<T>,
    /// `(..., K, N)` upper trapezoidal.
    pub u: Array<T>,
}

/// Pivoted LU decomposition (SciPy's `scipy.linalg.lu(a, permute_l, p_indices)`): `a = P L U`
/// with partial pivoting (LAPACK `getrf`'s pivots: the same on both devices up to ties). The
/// permutation matrix is built on the host from the pivots (synchronises on the GPU); `P L`
/// is a product on the device; the row indices are the argmax of each row of `P`.
///
/// # Errors
/// As [`crate::lu`].
///
/// ```
/// use cusci_linalg::{Array, Device};
/// use cusci_linalg::scipy::{lu, LuOptions};
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2], &Device::Cpu)?;
/// let f = lu(&a, LuOptions { p_indices: true, ..Default::default() })?;
/// assert_eq!(f.perm.unwrap().to_vec()?, vec![1, 0]); // a = L[p] @ U
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn lu<T: Scalar>(a: &Array<T>, opts: LuOptions) -> Result<LuParts<T>> {
    let (p, l, u) = crate::lu(a)?;
    if opts.permute_l {
        return Ok(LuParts {
            p: None,
            perm: None,
            l: matmul(&p, &l)?,
            u,
        });
    }
    if opts.p_indices {
        let m = p.shape()[p.ndim() - 1];
        let perm = if m == 0 || p.is_empty() {
            Array::<i64>::zeros(&p.shape()[..p.ndim() - 1], p.device())?
        } else {
            p.real()?.argmax_axis(-1)?
        };
        return Ok(LuParts {
            p: None,
            perm: Some(perm),
            l,
            u,
        });
    }
    Ok(LuParts {
        p: Some(p),
        perm: None,
        l,
        u,
    })
}

// ---------------------------------------------------------------------------------------------
// qr with pivoting
// ---------------------------------------------------------------------------------------------

/// SciPy's `mode` of [`qr`] (`'raw'` is [`qr_raw`](crate::qr_raw), without pivoting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QrMode {
    /// `'full'` (SciPy's default): `q` `(..., M, M)`, `r` `(..., M, N)`.
    #[default]
    Full,
    /// `'r'`: `r` only, `(..., M, N)`.
    R,
    /// `'economic'`: `q` `(..., M, K)`, `r` `(..., K, N)`, `K = min(M, N)`.
    Economic,
}

/// SciPy's keyword arguments of [`qr`]; `Default` is SciPy's (`mode='full'`,
/// `pivoting=False`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QrOptions {
    /// Which factors and shapes.
    pub mode: QrMode,
    /// Column pivoting (LAPACK `geqp3`): `a[:, p] = q r` with `|r[0,0]| >= |r[1,1]| >= ...`.
    pub pivoting: bool,
}

/// [`qr`]'s result.
#[derive(Debug, Clone)]
pub struct QrParts<T: Scalar> {
    /// The orthonormal factor (`None` for [`QrMode::R`]).
    pub q: Option<Array<T>>,
    /// The upper trapezoidal factor.
    pub r: Array<T>,
    /// `(..., N)` column indices with `a[:, p] = q r` (only with `pivoting`).
    pub p: Option<Array<i64>>,
}

/// QR decomposition (SciPy's `scipy.linalg.qr(a, mode, pivoting)`): `a = q r`, or with pivoting
/// `a[:, p] = q r` with non-increasing `|diag(r)|`.
///
/// Without pivoting: [`crate::qr`] (GPU: cuSOLVER `Xgeqrf` + `orgqr`; CPU: faer; signs of `q`'s
/// columns may differ between the devices). With pivoting (cuSOLVER has no `geqp3`): a
/// Householder QR with column pivoting written out in LAPACK's conventions (`geqp3`'s choice of
/// the remaining column of largest norm, norms recomputed at each step rather than downdated,
/// `larfg`'s reflectors, so `q` and `r` match SciPy's up to rounding and near-ties of column
/// norms); on the GPU it is a **hybrid**: the matrices are copied to the host, factored there
/// (in the element type), and the factors copied back.
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions or NaN/infinity (SciPy's `check_finite`).
/// Synchronises on the GPU.
///
/// ```
/// use cusci_linalg::{Array, Device};
/// use cusci_linalg::scipy::{qr, QrMode, QrOptions};
/// let a = Array::from_vec(vec![1.0f64, 0.0, 0.0, 3.0], &[2, 2], &Device::Cpu)?;
/// let f = qr(&a, QrOptions { mode: QrMode::Economic, pivoting: true })?;
/// assert_eq!(f.p.unwrap().to_vec()?, vec![1, 0]); // the column of norm 3 first
/// assert!((f.r.to_vec()?[0].abs() - 3.0).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn qr<T: Scalar>(a: &Array<T>, opts: QrOptions) -> Result<QrParts<T>> {
    let op = "qr";
    let (batch, m, n) = mat_dims(op, a)?;
    crate::util::check_finite(op, a)?;
    if !opts.pivoting {
        let mode = match opts.mode {
            QrMode::Economic => crate::QrMode::Reduced,
            _ => crate::QrMode::Complete,
        };
        let f = crate::qr(a, mode)?;
        return Ok(QrParts {
            q: if opts.mode == QrMode::R { None } else { f.q },
            r: f.r,
            p: None,
        });
    }
    let k = m.min(n);
    let (qc, rr) = match opts.mode {
        QrMode::Economic => (k, k),
        _ => (m, m),
    };
    let count = prod(&batch);
    let dev = a.device().clone();
    let av = a.to_device(&Device::Cpu)?.to_vec()?;
    let want_q = opts.mode != QrMode::R;
    let parts = crate::util::cpu_map(&av, count, m * n, |_, x| {
        let mut h = x.to_vec();
        let (tau, perm) = pivoted_householder(&mut h, m, n);
        let mut r = vec![T::zero(); rr * n];
        for i in 0..rr.min(m) {
            for j in i..n {
                r[i * n + j] = h[i * n + j];
            }
        }
        let q = if want_q {
            form_q(&h, &tau, m, n, qc)
        } else {
            Vec::new()
        };
        Ok((q, r, perm))
    })?;
    let (mut qs, mut rs, mut ps) = (Vec::new(), Vec::new(), Vec::new());
    for (q, r, p) in parts {
        qs.extend(q);
        rs.extend(r);
        ps.extend(p.into_iter().map(|v| v as i64));
    }
    let q = if want_q {
        Some(Array::from_vec(qs, &cat(&batch, &[m, qc]), &dev)?)
    } else {
        None
    };
    Ok(QrParts {
        q,
        r: Array::from_vec(rs, &cat(&batch, &[rr, n]), &dev)?,
        p: Some(Array::from_vec(ps, &cat(&batch, &[n]), &dev)?),
    })
}

/// Householder QR with column pivoting of a row-major `m x n` matrix in place (LAPACK `geqp3`
/// with exact column norms, `larfg` reflectors); returns `tau` and the column permutation.
fn pivoted_householder<T: Scalar>(a: &mut [T], m: usize, n: usize) -> (Vec<T>, Vec<usize>) {
    let k = m.min(n);
    let mut tau = vec![T::zero(); k];
    let mut perm: Vec<usize> = (0..n).collect();
    for (j, tau_j) in tau.iter_mut().enumerate().take(k) {
        // the remaining column of largest norm (the first of equal ones, as idamax)
        let mut best = (j, -1.0f64);
        for c in j..n {
            let s: f64 = (j..m).map(|i| a[i * n + c].abs2().to_f64()).sum();
            if s > best.1 {
                best = (c, s);
            }
        }
        let p = best.0;
        if p != j {
            for i in 0..m {
                a.swap(i * n + j, i * n + p);
            }
            perm.swap(j, p);
        }
        *tau_j = crate::decomp::householder_column(a, m, n, j);
    }
    (tau, perm)
}

/// The first `qc` columns of `Q = H_1 ... H_K` from the reflectors below the diagonal of the
/// row-major `m x n` `h` (LAPACK `orgqr`), row-major `m x qc`.
fn form_q<T: Scalar>(h: &[T], tau: &[T], m: usize, n: usize, qc: usize) -> Vec<T> {
    let mut q = vec![T::zero(); m * qc];
    for i in 0..m.min(qc) {
        q[i * qc + i] = T::one();
    }
    for j in (0..tau.len()).rev() {
        let t = tau[j];
        if t == T::zero() {
            continue;
        }
        // v = (1, h[j+1.., j]); Q <- (I - tau v vᴴ) Q
        for c in 0..qc {
            let mut w = q[j * qc + c];
            for i in j + 1..m {
                w = w + h[i * n + j].conj() * q[i * qc + c];
            }
            let s = t * w;
            q[j * qc + c] = q[j * qc + c] - s;
            for i in j + 1..m {
                q[i * qc + c] = q[i * qc + c] - h[i * n + j] * s;
            }
        }
    }
    q
}

// ---------------------------------------------------------------------------------------------
// pinv, pinvh, norm, matrix_rank
// ---------------------------------------------------------------------------------------------

/// SciPy's `atol` and `rtol` of [`pinv`]; `Default` is SciPy's (`atol = 0`, `rtol = max(M, N)·ε`
/// of the element type).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PinvOptions {
    /// Absolute threshold (default 0).
    pub atol: Option<f64>,
    /// Relative threshold, times the largest singular value (default `max(M, N)·ε`).
    pub rtol: Option<f64>,
}

/// Moore–Penrose pseudo-inverse (SciPy's `scipy.linalg.pinv(a, atol, rtol)`): singular values
/// at or below `atol + rtol·σ_max` are dropped, `B = V diag(1/σ) Uᴴ`. Composed: the thin SVD
/// ([`svd`](crate::svd): cuSOLVER `gesvd`/`gesvdjBatched`) and element-wise selection and
/// products on the array's device. NumPy's form (`rcond`) is [`crate::pinv`]; `return_rank` is
/// [`matrix_rank`] with the same thresholds.
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions, NaN/infinity (SciPy's `check_finite`), or a
/// negative (or NaN) `atol`/`rtol` ("atol and rtol values must be positive.").
///
/// ```
/// use cusci_linalg::{Array, Device};
/// use cusci_linalg::scipy::{pinv, PinvOptions};
/// let a = Array::from_vec(vec![2.0f64, 0.0, 0.0, 1e-3], &[2, 2], &Device::Cpu)?;
/// let b = pinv(&a, PinvOptions { atol: Some(0.01), rtol: None })?.to_vec()?;
/// assert_eq!(b, vec![0.5, 0.0, 0.0, 0.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn pinv<T: Scalar>(a: &Array<T>, opts: PinvOptions) -> Result<Array<T>> {
    let op = "pinv";
    let (batch, m, n) = mat_dims(op, a)?;
    let (atol, rtol) = tols::<T>(op, opts.atol, opts.rtol, m.max(n))?;
    crate::util::check_finite(op, a)?;
    if m.min(n) == 0 || prod(&batch) == 0 {
        return Array::zeros(&cat(&batch, &[n, m]), a.device());
    }
    let r = crate::svd(
        a,
        crate::SvdOptions {
            full_matrices: false,
            compute_uv: true,
        },
    )?;
    let missing = || make::arg(op, "singular vectors missing");
    let (u, s, vh) = (r.u.ok_or_else(missing)?, r.s, r.vh.ok_or_else(missing)?);
    let cutoff = s
        .max_axes_keepdims(&[-1])?
        .mul_scalar(real_of::<T>(rtol))?
        .add_scalar(real_of::<T>(atol))?;
    let keep = s.gt(&cutoff)?;
    let one = Array::<T::R>::ones(s.shape(), s.device())?;
    let zero = Array::<T::R>::zeros(s.shape(), s.device())?;
    let safe = cusci_core::where_(&keep, &s, &one)?;
    let sinv = cusci_core::where_(&keep, &safe.rdiv_scalar(real_of::<T>(1.0))?, &zero)?;
    let v = adj(&vh)?;
    matmul(&v.mul(&sinv.astype::<T>()?.expand_dims(-2)?)?, &adj(&u)?)
}

fn tols<T: Scalar>(
    op: &str,
    atol: Option<f64>,
    rtol: Option<f64>,
    dim: usize,
) -> Result<(f64, f64)> {
    let atol = atol.unwrap_or(0.0);
    let rtol = rtol.unwrap_or(dim as f64 * T::eps());
    if !(atol >= 0.0 && rtol >= 0.0) {
        return Err(make::arg(op, "atol and rtol values must be positive."));
    }
    Ok((atol, rtol))
}

/// SciPy's `pinvh(a, atol, rtol, lower)` (the crate's [`crate::pinvh`], already SciPy's).
pub use crate::{pinvh, PinvhOptions};

/// SciPy's `axis` of [`norm`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NormAxis {
    /// `axis=None` (the default): with `ord` [`NormOrd::Default`](crate::NormOrd::Default) the
    /// 2-norm of all elements (any number of dimensions); otherwise a vector norm of a 1-D
    /// array or a matrix norm of a 2-D one.
    #[default]
    All,
    /// `axis=k`: vector norms along axis `k`.
    Vector(isize),
    /// `axis=(r, c)`: matrix norms of the matrices on axes `r` (rows) and `c` (columns).
    Matrix(isize, isize),
}

/// SciPy's keyword arguments of [`norm`]; `Default` is SciPy's (`ord=None`, `axis=None`,
/// `keepdims=False`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NormOptions {
    /// The order ([`crate::NormOrd`], NumPy's and SciPy's `ord`).
    pub ord: crate::NormOrd,
    /// The axes normed.
    pub axis: NormAxis,
    /// Keep the normed axes with length 1.
    pub keepdims: bool,
}

/// Matrix or vector norm (SciPy's `scipy.linalg.norm(a, ord, axis, keepdims)`, NumPy's
/// `linalg.norm`). Composed: element-wise operations and reductions on the array's device;
/// the 2, -2 and nuclear matrix norms through [`svd`](crate::svd).
///
/// # Errors
/// `InvalidArgument` for NaN/infinity (SciPy's `check_finite`; NumPy's `norm` does not check),
/// an `ord` that does not apply (`Fro`/`Nuc` of vectors, matrix `P(3.0)`), `axis=None` with
/// another `ord` on an array that is neither 1-D nor 2-D ("improper number of dimensions"),
/// axes out of range or repeated, or `Inf`/`NegInf` of an empty vector.
///
/// ```
/// use cusci_linalg::{Array, Device, NormOrd};
/// use cusci_linalg::scipy::{norm, NormAxis, NormOptions};
/// let a = Array::from_vec(vec![3.0f64, 4.0, 0.0, 1.0], &[2, 2], &Device::Cpu)?;
/// let o = NormOptions { axis: NormAxis::Vector(1), keepdims: true, ..Default::default() };
/// let r = norm(&a, o)?;
/// assert_eq!(r.shape(), &[2, 1]);
/// assert_eq!(r.to_vec()?, vec![5.0, 1.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn norm<T: Scalar>(a: &Array<T>, opts: NormOptions) -> Result<Array<T::R>> {
    use crate::NormOrd;
    let op = "norm";
    crate::util::check_finite(op, a)?;
    let nd = a.ndim();
    let axis = match opts.axis {
        NormAxis::All if opts.ord == NormOrd::Default => {
            let s = a.abs2()?.reshape(&[-1])?.sum_axes(&[-1])?.sqrt()?;
            return if opts.keepdims {
                s.reshape(&vec![1; nd])
            } else {
                Ok(s)
            };
        }
        NormAxis::All => match nd {
            1 => NormAxis::Vector(0),
            2 => NormAxis::Matrix(0, 1),
            _ => return Err(make::arg(op, "improper number of dimensions to norm")),
        },
        x => x,
    };
    let red: Vec<usize> = match axis {
        NormAxis::Vector(k) => cusci_core::array::layout::norm_axes(op, &[k], nd)?,
        NormAxis::Matrix(r, c) => {
            // (rows, columns) in this order (norm_axes would sort them)
            let (r, c) = (
                cusci_core::array::layout::norm_axis(op, r, nd)?,
                cusci_core::array::layout::norm_axis(op, c, nd)?,
            );
            if r == c {
                return Err(make::arg(op, "duplicate axes given"));
            }
            vec![r, c]
        }
        NormAxis::All => unreachable!("resolved above"),
    };
    // the normed axes last, the others in order
    let mut order: Vec<isize> = (0..nd)
        .filter(|i| !red.contains(i))
        .map(|i| i as isize)
        .collect();
    order.extend(red.iter().map(|&i| i as isize));
    let x = a.permute(&order)?.copy()?;
    let out = if red.len() == 1 {
        vector_norm_last(op, &x, opts.ord)?
    } else {
        crate::norm(&x, opts.ord)?
    };
    if !opts.keepdims {
        return Ok(out);
    }
    let kept: Vec<isize> = (0..nd)
        .map(|i| {
            if red.contains(&i) {
                1
            } else {
                a.shape()[i] as isize
            }
        })
        .collect();
    out.reshape(&kept)
}

/// Vector norms along the last axis of `x` (any number of leading axes).
fn vector_norm_last<T: Scalar>(op: &str, x: &Array<T>, ord: crate::NormOrd) -> Result<Array<T::R>> {
    use crate::NormOrd;
    let len = x.shape()[x.ndim() - 1];
    let ax = &[-1isize];
    let ab = x.abs()?;
    match ord {
        NormOrd::Default | NormOrd::P(2.0) => x.abs2()?.sum_axes(ax)?.sqrt(),
        NormOrd::Inf | NormOrd::NegInf if len == 0 => Err(make::arg(
            op,
            "zero-size array to reduction operation maximum which has no identity",
        )),
        NormOrd::Inf => ab.max_axes(ax),
        NormOrd::NegInf => ab.min_axes(ax),
        NormOrd::P(0.0) => ab
            .gt_scalar(real_of::<T>(0.0))?
            .astype::<T::R>()?
            .sum_axes(ax),
        NormOrd::P(1.0) => ab.sum_axes(ax),
        NormOrd::P(p) => ab
            .powf(real_of::<T>(p))?
            .sum_axes(ax)?
            .powf(real_of::<T>(1.0 / p)),
        NormOrd::Fro | NormOrd::Nuc => Err(make::arg(op, "invalid norm order for vectors")),
    }
}

/// NumPy 2's keyword arguments of [`matrix_rank`]; `Default` is NumPy's.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MatrixRankOptions {
    /// Absolute threshold (`tol`): singular values above it count.
    pub tol: Option<f64>,
    /// The matrices are Hermitian: the singular values are `|eigvalsh(a)|` (lower triangle).
    pub hermitian: bool,
    /// Relative threshold (`rtol`), times the largest singular value (default `max(M, N)·ε`);
    /// not together with `tol`.
    pub rtol: Option<f64>,
}

/// Rank of matrices (NumPy 2's `linalg.matrix_rank(A, tol, hermitian, rtol)`; scipy.linalg has
/// none): the count of singular values above `tol`, or above `rtol·σ_max`. Arrays of fewer than
/// 2 dimensions have rank 1 unless all zero (NumPy's rule). Composed: [`svd`](crate::svd)
/// values or [`eigvalsh`](crate::eigvalsh) (`hermitian`), counted on the host (synchronises);
/// the result is on `a`'s device, of the batch's shape.
///
/// # Errors
/// `InvalidArgument` when both `tol` and `rtol` are given, or for a non-square `a` with
/// `hermitian`.
///
/// ```
/// use cusci_linalg::{Array, Device};
/// use cusci_linalg::scipy::{matrix_rank, MatrixRankOptions};
/// let a = Array::from_vec(vec![1.0f64, 0.0, 0.0, 1e-9], &[2, 2], &Device::Cpu)?;
/// assert_eq!(matrix_rank(&a, MatrixRankOptions::default())?.item()?, 2);
/// let o = MatrixRankOptions { rtol: Some(1e-6), ..Default::default() };
/// assert_eq!(matrix_rank(&a, o)?.item()?, 1);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn matrix_rank<T: Scalar>(a: &Array<T>, opts: MatrixRankOptions) -> Result<Array<i64>> {
    let op = "matrix_rank";
    if opts.tol.is_some() && opts.rtol.is_some() {
        return Err(make::arg(op, "`tol` and `rtol` can't be both set."));
    }
    if a.ndim() < 2 {
        let nz = a.to_vec()?.iter().any(|v| *v != T::zero());
        return Array::from_vec(vec![nz as i64], &[], a.device());
    }
    let (batch, m, n) = mat_dims(op, a)?;
    let k = m.min(n);
    let s: Vec<f64> = if opts.hermitian {
        square_dims(op, a)?;
        crate::eigvalsh(a, true)?
            .to_vec()?
            .iter()
            .map(|v| v.to_f64().abs())
            .collect()
    } else {
        crate::svd(
            a,
            crate::SvdOptions {
                full_matrices: false,
                compute_uv: false,
            },
        )?
        .s
        .to_vec()?
        .iter()
        .map(|v| v.to_f64())
        .collect()
    };
    let count = prod(&batch);
    let rtol = opts.rtol.unwrap_or(m.max(n) as f64 * T::eps());
    let ranks: Vec<i64> = (0..count)
        .map(|i| {
            let sv = &s[i * k..(i + 1) * k];
            let smax = sv.iter().copied().fold(0.0, f64::max);
            let t = opts.tol.unwrap_or(smax * rtol);
            sv.iter().filter(|&&v| v > t).count() as i64
        })
        .collect();
    Array::from_vec(ranks, &batch, a.device())
}
