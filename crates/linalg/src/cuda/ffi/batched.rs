//! cuBLAS's `trsm` and batched LU, and cuSOLVER's legacy (32-bit) API: `orgqr`/`ungqr` and the
//! batched Cholesky, Jacobi eigensolver and Jacobi SVD.

use super::{blas_check, fill, i32c, scratch, sol_check, Locked, Op};
use crate::Scalar;
use cudarc::cublas::sys as blas;
use cudarc::cusolver::sys as sol;
use cusci_core::Result;

impl Locked<'_> {
    /// One legacy (32-bit) cuSOLVER routine: `size` is its `bufferSize` call (the workspace in
    /// elements of `T`), `call` the routine given the workspace (from the stream-ordered pool,
    /// dropped once queued) and its length.
    fn legacy_call<T: Scalar>(
        &self,
        o: &str,
        size: impl FnOnce(&mut i32) -> sol::cusolverStatus_t,
        call: impl FnOnce(*mut T, i32) -> sol::cusolverStatus_t,
    ) -> Result<()> {
        let mut lwork = 0i32;
        sol_check(o, size(&mut lwork))?;
        let mut work = scratch(&self.dev, lwork.max(1) as usize * std::mem::size_of::<T>())?;
        sol_check(o, call(work.dev_ptr_mut()?.addr() as *mut T, lwork.max(1)))?;
        drop(work);
        Ok(())
    }

    /// `<t>orgqr`/`<t>ungqr`: the first `n` columns of `Q` from `k` reflectors, over `a`
    /// (column-major, leading dimension `m`).
    pub(crate) fn orgqr<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        k: usize,
        a: u64,
        tau: u64,
        info: u64,
    ) -> Result<()> {
        let o = "orgqr";
        let (mi, ni, ki, lda) = (i32c(o, m)?, i32c(o, n)?, i32c(o, k)?, i32c(o, m.max(1))?);
        self.legacy_call::<T>(
            o,
            // SAFETY: valid handle and device pointers; out-pointer to a local.
            |lwork| unsafe {
                T::orgqr_buffer(
                    self.g.solver,
                    mi,
                    ni,
                    ki,
                    a as *const T,
                    lda,
                    tau as *const T,
                    lwork,
                )
            },
            // SAFETY: the workspace has the size the library asked for.
            |work, lwork| unsafe {
                T::orgqr(
                    self.g.solver,
                    mi,
                    ni,
                    ki,
                    a as *mut T,
                    lda,
                    tau as *const T,
                    work,
                    lwork,
                    info as *mut i32,
                )
            },
        )
    }

    /// `<t>trsm`: `op(A) X = B` (left side) for the column-major triangular `n x n` `A` (its
    /// `upper` or lower triangle; `unit`: ones assumed on the diagonal) and the column-major
    /// `n x nrhs` `B` (overwritten by `X`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn trsm<T: Scalar>(
        &self,
        upper: bool,
        op: Op,
        unit: bool,
        n: usize,
        nrhs: usize,
        a: u64,
        b: u64,
    ) -> Result<()> {
        let o = "trsm";
        let one = T::one();
        let uplo = if upper {
            blas::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER
        } else {
            blas::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER
        };
        let diag = if unit {
            blas::cublasDiagType_t::CUBLAS_DIAG_UNIT
        } else {
            blas::cublasDiagType_t::CUBLAS_DIAG_NON_UNIT
        };
        // SAFETY: valid handle and device pointers; alpha is a host scalar.
        unsafe {
            blas_check(
                o,
                T::trsm(
                    self.g.blas,
                    blas::cublasSideMode_t::CUBLAS_SIDE_LEFT,
                    uplo,
                    op.blas(),
                    diag,
                    i32c(o, n)?,
                    i32c(o, nrhs)?,
                    &one,
                    a as *const T,
                    i32c(o, n.max(1))?,
                    b as *mut T,
                    i32c(o, n.max(1))?,
                ),
            )
        }
    }

    /// cuBLAS `getrfBatched` over pointer array `aptrs` (device array of `batch` pointers).
    pub(crate) fn getrf_batched<T: Scalar>(
        &self,
        n: usize,
        aptrs: u64,
        piv: u64,
        info: u64,
        batch: usize,
    ) -> Result<()> {
        let o = "getrfBatched";
        // SAFETY: pointer arrays and buffers are live device memory of the right sizes.
        unsafe {
            blas_check(
                o,
                T::getrf_batched(
                    self.g.blas,
                    i32c(o, n)?,
                    aptrs as *const *mut T,
                    i32c(o, n.max(1))?,
                    piv as *mut i32,
                    info as *mut i32,
                    i32c(o, batch)?,
                ),
            )
        }
    }

    /// cuBLAS `getrsBatched` (`op` applies to the factored matrices); B column-major `n x nrhs`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn getrs_batched<T: Scalar>(
        &self,
        op: Op,
        n: usize,
        nrhs: usize,
        aptrs: u64,
        piv: u64,
        bptrs: u64,
        batch: usize,
    ) -> Result<()> {
        let o = "getrsBatched";
        let mut info = 0i32;
        // SAFETY: as above; info is a host int.
        unsafe {
            blas_check(
                o,
                T::getrs_batched(
                    self.g.blas,
                    op.blas(),
                    i32c(o, n)?,
                    i32c(o, nrhs)?,
                    aptrs as *const *const T,
                    i32c(o, n.max(1))?,
                    piv as *const i32,
                    bptrs as *const *mut T,
                    i32c(o, n.max(1))?,
                    &mut info,
                    i32c(o, batch)?,
                ),
            )?;
        }
        if info != 0 {
            return Err(cusci_core::error::make::arg(
                o,
                format!("argument {} invalid", -info),
            ));
        }
        Ok(())
    }

    /// cuSOLVER `<t>potrfBatched`: Cholesky in place of the column-major `n x n` matrices whose
    /// device pointers are the `batch` entries of `aptrs` (leading dimension `n`); one `info`
    /// per matrix (i32, device) at `info`.
    pub(crate) fn potrf_batched<T: Scalar>(
        &self,
        upper: bool,
        n: usize,
        aptrs: u64,
        info: u64,
        batch: usize,
    ) -> Result<()> {
        let o = "potrfBatched";
        // SAFETY: the pointer array and the matrices it points to are live device memory of the
        // described sizes; `info` holds `batch` ints.
        unsafe {
            sol_check(
                o,
                T::potrf_batched(
                    self.g.solver,
                    fill(upper),
                    i32c(o, n)?,
                    aptrs as *mut *mut T,
                    i32c(o, n.max(1))?,
                    info as *mut i32,
                    i32c(o, batch)?,
                ),
            )
        }
    }

    /// cuSOLVER `<t>syevjBatched` / `<t>heevjBatched` (Jacobi, `n <= 32`) of the `batch`
    /// column-major `n x n` Hermitian matrices stored back to back at `a`: eigenvalues ascending
    /// into `w` (`batch x n`, real type), eigenvectors over `a` when `vectors`, one `info` per
    /// matrix (`n + 1`: no convergence). Tolerance `T::eps()`, at most [`JACOBI_MAX_SWEEPS`]
    /// sweeps.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn syevj_batched<T: Scalar>(
        &self,
        vectors: bool,
        upper: bool,
        n: usize,
        a: u64,
        w: u64,
        info: u64,
        batch: usize,
    ) -> Result<()> {
        let o = "syevjBatched";
        let p = SyevjParams::new::<T>()?;
        let jobz = eig_mode(vectors);
        let (ni, lda, nb) = (i32c(o, n)?, i32c(o, n.max(1))?, i32c(o, batch)?);
        self.legacy_call::<T>(
            o,
            // SAFETY: valid handle, params and device pointers; out-pointer to a local.
            |lwork| unsafe {
                T::syevj_batched_buffer(
                    self.g.solver,
                    jobz,
                    fill(upper),
                    ni,
                    a as *const T,
                    lda,
                    w as *const T::R,
                    lwork,
                    p.0,
                    nb,
                )
            },
            // SAFETY: as above; the workspace has the size the library asked for.
            |work, lwork| unsafe {
                T::syevj_batched(
                    self.g.solver,
                    jobz,
                    fill(upper),
                    ni,
                    a as *mut T,
                    lda,
                    w as *mut T::R,
                    work,
                    lwork,
                    info as *mut i32,
                    p.0,
                    nb,
                )
            },
        )
    }

    /// cuSOLVER `<t>gesvdjBatched` (Jacobi, `m, n <= 32`) of the `batch` column-major `m x n`
    /// matrices stored back to back at `a` (leading dimension `m`, destroyed): singular values
    /// descending into `s` (`batch x min(m, n)`, real type), the full `U` (`m x m`) and `V` (not
    /// `Vᴴ`, `n x n`) per matrix into `u` and `v`, one `info` per matrix. `u` and `v` must be
    /// allocated even without `vectors` (as CuPy does). Tolerance `T::eps()`, at most
    /// [`JACOBI_MAX_SWEEPS`] sweeps.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn gesvdj_batched<T: Scalar>(
        &self,
        vectors: bool,
        m: usize,
        n: usize,
        a: u64,
        s: u64,
        u: u64,
        v: u64,
        info: u64,
        batch: usize,
    ) -> Result<()> {
        let o = "gesvdjBatched";
        let p = GesvdjParams::new::<T>()?;
        let jobz = eig_mode(vectors);
        let (lda, ldu, ldv) = (i32c(o, m.max(1))?, i32c(o, m.max(1))?, i32c(o, n.max(1))?);
        let (mi, ni, nb) = (i32c(o, m)?, i32c(o, n)?, i32c(o, batch)?);
        self.legacy_call::<T>(
            o,
            // SAFETY: valid handle, params and device pointers; out-pointer to a local.
            |lwork| unsafe {
                T::gesvdj_batched_buffer(
                    self.g.solver,
                    jobz,
                    mi,
                    ni,
                    a as *const T,
                    lda,
                    s as *const T::R,
                    u as *const T,
                    ldu,
                    v as *const T,
                    ldv,
                    lwork,
                    p.0,
                    nb,
                )
            },
            // SAFETY: as above; the workspace has the size the library asked for.
            |work, lwork| unsafe {
                T::gesvdj_batched(
                    self.g.solver,
                    jobz,
                    mi,
                    ni,
                    a as *mut T,
                    lda,
                    s as *mut T::R,
                    u as *mut T,
                    ldu,
                    v as *mut T,
                    ldv,
                    work,
                    lwork,
                    info as *mut i32,
                    p.0,
                    nb,
                )
            },
        )
    }
}

/// The sweep limit of the Jacobi solvers (`syevjBatched`, `gesvdjBatched`): cuSOLVER's default,
/// set explicitly. With the tolerance at the type's epsilon a 32 x 32 matrix converges in well
/// under 15 sweeps; a matrix that does not is reported as `NoConvergence`.
pub(crate) const JACOBI_MAX_SWEEPS: i32 = 100;

fn eig_mode(vectors: bool) -> sol::cusolverEigMode_t {
    if vectors {
        sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR
    } else {
        sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR
    }
}

/// `syevjInfo_t` with tolerance `T::eps()` and [`JACOBI_MAX_SWEEPS`], destroyed on drop. The
/// parameters are read when the call is submitted, so dropping it once the call is queued is
/// safe (CuPy does the same).
struct SyevjParams(sol::syevjInfo_t);

impl SyevjParams {
    fn new<T: Scalar>() -> Result<SyevjParams> {
        let o = "syevjBatched";
        let mut p = std::ptr::null_mut();
        // SAFETY: out-pointer to a local; the object is destroyed once, on drop.
        unsafe {
            sol_check(o, sol::cusolverDnCreateSyevjInfo(&mut p))?;
            let p = SyevjParams(p);
            sol_check(o, sol::cusolverDnXsyevjSetTolerance(p.0, T::eps()))?;
            sol_check(o, sol::cusolverDnXsyevjSetMaxSweeps(p.0, JACOBI_MAX_SWEEPS))?;
            // ascending eigenvalues (the default, set explicitly: NumPy's order)
            sol_check(o, sol::cusolverDnXsyevjSetSortEig(p.0, 1))?;
            Ok(p)
        }
    }
}

impl Drop for SyevjParams {
    fn drop(&mut self) {
        // SAFETY: created in `new`, destroyed once.
        unsafe {
            sol::cusolverDnDestroySyevjInfo(self.0);
        }
    }
}

/// `gesvdjInfo_t` with tolerance `T::eps()`, [`JACOBI_MAX_SWEEPS`] and descending singular
/// values, destroyed on drop (as [`SyevjParams`]).
struct GesvdjParams(sol::gesvdjInfo_t);

impl GesvdjParams {
    fn new<T: Scalar>() -> Result<GesvdjParams> {
        let o = "gesvdjBatched";
        let mut p = std::ptr::null_mut();
        // SAFETY: out-pointer to a local; the object is destroyed once, on drop.
        unsafe {
            sol_check(o, sol::cusolverDnCreateGesvdjInfo(&mut p))?;
            let p = GesvdjParams(p);
            sol_check(o, sol::cusolverDnXgesvdjSetTolerance(p.0, T::eps()))?;
            sol_check(
                o,
                sol::cusolverDnXgesvdjSetMaxSweeps(p.0, JACOBI_MAX_SWEEPS),
            )?;
            sol_check(o, sol::cusolverDnXgesvdjSetSortEig(p.0, 1))?;
            Ok(p)
        }
    }
}

impl Drop for GesvdjParams {
    fn drop(&mut self) {
        // SAFETY: created in `new`, destroyed once.
        unsafe {
            sol::cusolverDnDestroyGesvdjInfo(self.0);
        }
    }
}
