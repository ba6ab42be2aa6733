//! What the front ends and both devices share, below both sides of the seam: the result and
//! option types of the factorisations, the error constructors, and SciPy's `check_finite` switch.

use crate::Scalar;
use cusci_core::error::make;
use cusci_core::{Array, Error};

/// Up to this order `solve` and `inv` run on the GPU as one kernel for the whole stack (LU with
/// partial pivoting in registers, a warp's lanes holding the rows) and `det`/`slogdet` of a stack
/// use cuBLAS's batched LU; above it, one cuSOLVER `Xgetrf` per matrix.
pub const BATCHED_LU_MAX_N: usize = 32;

/// The outputs [`qr`](crate::qr) returns (NumPy's `mode`; `raw` is not offered: its Householder layout is
/// LAPACK's own).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QrMode {
    /// `q` `(..., M, K)`, `r` `(..., K, N)` with `K = min(M, N)` (the default).
    #[default]
    Reduced,
    /// `q` `(..., M, M)`, `r` `(..., M, N)`.
    Complete,
    /// `r` only, `(..., K, N)`.
    R,
}

/// A QR factorisation `a = q r` ([`qr`](crate::qr)'s result; `q` is `None` in [`QrMode::R`]).
#[derive(Debug, Clone)]
pub struct Qr<T: Scalar> {
    /// The factor with orthonormal columns.
    pub q: Option<Array<T>>,
    /// The upper-triangular (trapezoidal) factor.
    pub r: Array<T>,
}

/// The result of [`svd`](crate::svd): `u`, `s` (descending), `vh`, with `a = u · diag(s) · vh`.
#[derive(Debug, Clone)]
pub struct Svd<T: Scalar> {
    /// Left singular vectors, `(..., M, M)` or `(..., M, K)`; `None` without `compute_uv`.
    pub u: Option<Array<T>>,
    /// Singular values, descending, `(..., K)`.
    pub s: Array<T::R>,
    /// Right singular vectors (conjugate-transposed), `(..., N, N)` or `(..., K, N)`.
    pub vh: Option<Array<T>>,
}

/// Options of [`svd`](crate::svd) (NumPy's keyword arguments).
#[derive(Debug, Clone, Copy)]
pub struct SvdOptions {
    /// Full `u` and `vh` (square), or the reduced `K = min(M, N)` columns and rows.
    pub full_matrices: bool,
    /// Compute `u` and `vh` (else only `s`).
    pub compute_uv: bool,
}

impl Default for SvdOptions {
    fn default() -> Self {
        SvdOptions {
            full_matrices: true,
            compute_uv: true,
        }
    }
}

/// Options of [`solve_triangular`](crate::solve_triangular) (SciPy's keyword arguments).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TriangularOptions {
    /// 0: `a x = b`, 1: `aᵀ x = b`, 2: `aᴴ x = b`.
    pub trans: u8,
    /// Use the lower triangle of `a` (SciPy's default is the upper one).
    pub lower: bool,
    /// Assume ones on the diagonal (the diagonal of `a` is not read).
    pub unit_diagonal: bool,
}

/// LU factorisation with partial pivoting, factored once to solve many right-hand sides.
///
/// `lu` and `piv` are SciPy's (`lu_factor`): `lu` holds `L` (unit diagonal, below) and `U`
/// (on and above the diagonal) of `a` row-major; `piv[i]` is the row interchanged with row `i`
/// (0-based). On the GPU the column-major factor that cuSOLVER solves with is kept as well, so
/// [`Lu::solve`] costs one `getrs` and two transposes of the right-hand side.
#[derive(Debug, Clone)]
pub struct Lu<T: Scalar> {
    /// SciPy's packed factor, shape of `a`.
    pub lu: Array<T>,
    /// SciPy's pivots (0-based), shape `(..., min(M, N))`.
    pub piv: Array<i64>,
    /// On the GPU: the column-major factor cuSOLVER solves with and its pivots (1-based).
    pub(crate) gpu: Option<(Array<T>, Array<i64>)>,
}

pub(crate) fn not_pd(op: &str, index: usize) -> Error {
    Error::NotPositiveDefinite {
        op: op.into(),
        index,
    }
}

pub(crate) fn no_conv(op: &str, info: i32) -> Error {
    Error::NoConvergence {
        op: op.into(),
        iterations: 0,
        residual: info as f64,
    }
}

pub(crate) fn singular(op: &str, index: usize) -> Error {
    Error::Singular {
        op: op.into(),
        index,
    }
}

/// SciPy's `check_finite` error.
pub(crate) fn nonfinite(op: &str) -> cusci_core::Error {
    make::arg(op, "array must not contain infs or NaNs")
}

thread_local! {
    static SKIP_FINITE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the finiteness checks run on this thread (true unless inside
/// [`without_finite_check`]).
pub(crate) fn finite_checks_on() -> bool {
    !SKIP_FINITE.with(|s| s.get())
}

/// Runs `f` with SciPy's `check_finite=False`: the functions of this crate called from `f` on this
/// thread skip their NaN/infinity check of the inputs (as `scipy.linalg.det(a,
/// check_finite=False)` does), and then give whatever the factorisation makes of such input
/// (NaN, or a `Singular`/`NotPositiveDefinite` error). The check is back on when `f` returns (or
/// unwinds). The setting is per thread: work that `f` hands to other threads checks as usual.
///
/// ```
/// use cusci_linalg::{det, without_finite_check, Array, Device};
/// let a = Array::from_vec(vec![f64::INFINITY], &[1, 1], &Device::Cpu)?;
/// assert!(det(&a).is_err()); // SciPy: ValueError, array must not contain infs or NaNs
/// let d = without_finite_check(|| det(&a))?; // SciPy: det(a, check_finite=False) == inf
/// assert_eq!(d.item()?, f64::INFINITY);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn without_finite_check<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            SKIP_FINITE.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SKIP_FINITE.with(|s| s.replace(true)));
    f()
}
