//! Thin safe wrappers over cuBLAS and cuSOLVER: handles, checked statuses, workspaces from the
//! library's own `bufferSize` calls allocated from the device's stream-ordered pool.
//!
//! Layout: cusci arrays are row-major, the libraries column-major. A row-major `m x n` buffer is
//! the column-major `n x m` transpose, so the callers use transposition identities (for example
//! `C = A B` is computed as `Cᵀ = Bᵀ Aᵀ`) instead of copies wherever the algebra allows.

use crate::Scalar;
use cudarc::cublas::sys as blas;
use cudarc::cusolver::sys as sol;
use cusci_core::cuda::libs;
use cusci_core::{Array, CudaDevice, Error, Result};
use std::ffi::c_void;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// One device's library handles. cuBLAS and cuSOLVER handles are not thread-safe: calls hold the
/// mutex for the duration of the (asynchronous) submission.
pub(crate) struct Handles {
    blas: blas::cublasHandle_t,
    solver: sol::cusolverDnHandle_t,
    params: sol::cusolverDnParams_t,
    dev: CudaDevice,
}

// SAFETY: the raw handles are only used under the mutex that wraps `Handles`.
unsafe impl Send for Handles {}
// SAFETY: as above.
unsafe impl Sync for Handles {}

impl Drop for Handles {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: created in `Handles::new`, destroyed once.
            unsafe {
                sol::cusolverDnDestroyParams(self.params);
                sol::cusolverDnDestroy(self.solver);
                blas::cublasDestroy_v2(self.blas);
            }
        }
    }
}

pub(crate) fn blas_check(op: &str, s: blas::cublasStatus_t) -> Result<()> {
    if s == blas::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(Error::Cuda {
            op: op.into(),
            library: "cuBLAS",
            status: format!("{s:?}"),
        })
    }
}

pub(crate) fn sol_check(op: &str, s: sol::cusolverStatus_t) -> Result<()> {
    if s == sol::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(Error::Cuda {
            op: op.into(),
            library: "cuSOLVER",
            status: format!("{s:?}"),
        })
    }
}

impl Handles {
    fn new(dev: &CudaDevice) -> Result<Handles> {
        libs::require("cublas")?;
        libs::require("cublasLt")?;
        libs::require("cusolver")?;
        dev.bind()?;
        let mut b = std::ptr::null_mut();
        let mut s = std::ptr::null_mut();
        let mut p = std::ptr::null_mut();
        // SAFETY: out-pointers to locals; the libraries are present (checked above).
        unsafe {
            blas_check("cublasCreate", blas::cublasCreate_v2(&mut b))?;
            // default math: with the plain compute types (COMPUTE_32F, not _FAST_TF32) cuBLAS
            // uses no TF32; pedantic mode could also rule out FP64 tensor-core (DMMA) GEMMs
            blas_check(
                "cublasSetMathMode",
                blas::cublasSetMathMode(b, blas::cublasMath_t::CUBLAS_DEFAULT_MATH),
            )?;
            sol_check("cusolverDnCreate", sol::cusolverDnCreate(&mut s))?;
            sol_check(
                "cusolverDnCreateParams",
                sol::cusolverDnCreateParams(&mut p),
            )?;
        }
        Ok(Handles {
            blas: b,
            solver: s,
            params: p,
            dev: dev.clone(),
        })
    }
}

/// The handles of `dev`, locked and bound to `dev`'s stream.
pub(crate) struct Bound {
    h: Arc<Mutex<Handles>>,
}

impl Bound {
    pub(crate) fn get(dev: &CudaDevice) -> Result<Bound> {
        let h = dev.extension("cusci-linalg/handles", || {
            Ok(Mutex::new(Handles::new(dev)?))
        })?;
        Ok(Bound { h })
    }
    pub(crate) fn lock<'a>(&'a self, dev: &CudaDevice) -> Result<Locked<'a>> {
        dev.bind()?;
        let g = self.h.lock().unwrap_or_else(|e| e.into_inner());
        let stream = dev.raw_stream();
        // SAFETY: handles alive under the lock; the stream is alive while `dev` is.
        unsafe {
            blas_check(
                "cublasSetStream",
                blas::cublasSetStream_v2(g.blas, stream as blas::cudaStream_t),
            )?;
            sol_check(
                "cusolverDnSetStream",
                sol::cusolverDnSetStream(g.solver, stream as sol::cudaStream_t),
            )?;
        }
        Ok(Locked {
            g,
            dev: dev.clone(),
        })
    }
}

pub(crate) struct Locked<'a> {
    g: MutexGuard<'a, Handles>,
    dev: CudaDevice,
}

/// Device pointer of a CUDA array's first element.
pub(crate) fn ptr<T: cusci_core::Element>(a: &Array<T>) -> u64 {
    a.cuda_view().map(|v| v.ptr).unwrap_or(0)
}

fn vp(p: u64) -> *mut c_void {
    p as *mut c_void
}

/// A device scratch buffer of `bytes` bytes from the stream-ordered pool (uninitialised: the
/// libraries only write workspaces before reading them). Dropping it right after the call is
/// queued is safe: the pool frees in stream order.
pub(crate) fn scratch(dev: &CudaDevice, bytes: usize) -> Result<Array<u8>> {
    Array::<u8>::empty(&[bytes.max(1)], &cusci_core::Device::Cuda(dev.clone()))
}

/// Whether the loaded cuSOLVER has `cusolverDnXgeev` (CUDA 12.6 and later). cudarc's binding
/// would panic on a missing symbol, so [`Locked::geev`] must only be called when this is true.
pub(crate) fn has_xgeev() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        if libs::probe("cusolver").is_none() {
            return false;
        }
        // SAFETY: cuSOLVER is present (probed above; callers hold a handle made through the same
        // library); the symbol is looked up in cudarc's own library object, never called here.
        unsafe {
            sol::culib()
                .get::<unsafe extern "C" fn()>(b"cusolverDnXgeev\0")
                .is_ok()
        }
    })
}

fn op(t: bool, conj: bool) -> blas::cublasOperation_t {
    match (t, conj) {
        (false, _) => blas::cublasOperation_t::CUBLAS_OP_N,
        (true, false) => blas::cublasOperation_t::CUBLAS_OP_T,
        (true, true) => blas::cublasOperation_t::CUBLAS_OP_C,
    }
}

fn sop(t: bool, conj: bool) -> sol::cublasOperation_t {
    match (t, conj) {
        (false, _) => sol::cublasOperation_t::CUBLAS_OP_N,
        (true, false) => sol::cublasOperation_t::CUBLAS_OP_T,
        (true, true) => sol::cublasOperation_t::CUBLAS_OP_C,
    }
}

fn fill(upper: bool) -> sol::cublasFillMode_t {
    if upper {
        sol::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER
    } else {
        sol::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER
    }
}

fn i32c(op: &str, v: usize) -> Result<i32> {
    i32::try_from(v).map_err(|_| {
        cusci_core::error::make::arg(op, format!("dimension {v} exceeds cuBLAS's 32-bit limit"))
    })
}

impl Locked<'_> {
    /// One cuSOLVER 64-bit (X API) routine: `size` is its `bufferSize` call (device and host
    /// workspace bytes), `call` the routine given the workspaces (device: from the stream-ordered
    /// pool, dropped once queued; host: returned, for routines whose host part may outlive the
    /// call). Every X wrapper below is these two calls with the routine's own arguments.
    fn x_call(
        &self,
        o: &str,
        size: impl FnOnce(&mut usize, &mut usize) -> sol::cusolverStatus_t,
        call: impl FnOnce(*mut c_void, usize, *mut c_void, usize) -> sol::cusolverStatus_t,
    ) -> Result<Vec<u8>> {
        let (mut dw, mut hw) = (0usize, 0usize);
        sol_check(o, size(&mut dw, &mut hw))?;
        let work = scratch(&self.dev, dw)?;
        let mut host = vec![0u8; hw.max(1)];
        sol_check(
            o,
            call(vp(ptr(&work)), dw, host.as_mut_ptr() as *mut c_void, hw),
        )?;
        drop(work);
        Ok(host)
    }

    /// Column-major strided-batched GEMM: `C_i = op(A_i) op(B_i)` (C is `m x n`), element strides
    /// between matrices (0 broadcasts one matrix over the batch).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn gemm<T: Scalar>(
        &self,
        ta: bool,
        tb: bool,
        m: usize,
        n: usize,
        k: usize,
        a: u64,
        lda: usize,
        sa: usize,
        b: u64,
        ldb: usize,
        sb: usize,
        c: u64,
        ldc: usize,
        sc: usize,
        batch: usize,
    ) -> Result<()> {
        let o = "matmul";
        let one = T::one();
        let zero = T::zero();
        // SAFETY: pointers are device buffers holding the described matrices (callers build them
        // from live arrays); scalars are host values read during the call.
        unsafe {
            blas_check(
                o,
                blas::cublasGemmStridedBatchedEx(
                    self.g.blas,
                    op(ta, false),
                    op(tb, false),
                    i32c(o, m)?,
                    i32c(o, n)?,
                    i32c(o, k)?,
                    &one as *const T as *const c_void,
                    vp(a),
                    T::blas_type(),
                    i32c(o, lda.max(1))?,
                    sa as i64,
                    vp(b),
                    T::blas_type(),
                    i32c(o, ldb.max(1))?,
                    sb as i64,
                    &zero as *const T as *const c_void,
                    vp(c),
                    T::blas_type(),
                    i32c(o, ldc.max(1))?,
                    sc as i64,
                    i32c(o, batch)?,
                    T::blas_compute(),
                    blas::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
                ),
            )
        }
    }

    /// `Xgetrf` of the column-major `n x n` matrix at `a` (in place), pivots (1-based) into
    /// `ipiv` (i64), info into `info` (device i32).
    pub(crate) fn getrf<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        a: u64,
        lda: usize,
        ipiv: u64,
        info: u64,
    ) -> Result<()> {
        let o = "getrf";
        self.x_call(
            o,
            // SAFETY: valid handle and device pointers; out-pointers to locals.
            |dw, hw| unsafe {
                sol::cusolverDnXgetrf_bufferSize(
                    self.g.solver,
                    self.g.params,
                    m as i64,
                    n as i64,
                    T::solver_type(),
                    vp(a),
                    lda.max(1) as i64,
                    T::solver_type(),
                    dw,
                    hw,
                )
            },
            // SAFETY: as above; the workspaces have the sizes the library asked for.
            |work, dw, host, hw| unsafe {
                sol::cusolverDnXgetrf(
                    self.g.solver,
                    self.g.params,
                    m as i64,
                    n as i64,
                    T::solver_type(),
                    vp(a),
                    lda.max(1) as i64,
                    ipiv as *mut i64,
                    T::solver_type(),
                    work,
                    dw,
                    host,
                    hw,
                    info as *mut i32,
                )
            },
        )?;
        Ok(())
    }

    /// `Xgetrs`: solves `op(A) X = B` with the LU of `getrf`; `B` column-major `n x nrhs`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn getrs<T: Scalar>(
        &self,
        trans: bool,
        conj: bool,
        n: usize,
        nrhs: usize,
        a: u64,
        lda: usize,
        ipiv: u64,
        b: u64,
        ldb: usize,
        info: u64,
    ) -> Result<()> {
        // SAFETY: valid handle and device pointers.
        unsafe {
            sol_check(
                "getrs",
                sol::cusolverDnXgetrs(
                    self.g.solver,
                    self.g.params,
                    sop(trans, conj),
                    n as i64,
                    nrhs as i64,
                    T::solver_type(),
                    vp(a),
                    lda.max(1) as i64,
                    ipiv as *const i64,
                    T::solver_type(),
                    vp(b),
                    ldb.max(1) as i64,
                    info as *mut i32,
                ),
            )
        }
    }

    /// `Xpotrf` of the column-major `n x n` Hermitian matrix at `a` (in place).
    pub(crate) fn potrf<T: Scalar>(&self, upper: bool, n: usize, a: u64, info: u64) -> Result<()> {
        let o = "potrf";
        self.x_call(
            o,
            // SAFETY: as in getrf.
            |dw, hw| unsafe {
                sol::cusolverDnXpotrf_bufferSize(
                    self.g.solver,
                    self.g.params,
                    fill(upper),
                    n as i64,
                    T::solver_type(),
                    vp(a),
                    n.max(1) as i64,
                    T::solver_type(),
                    dw,
                    hw,
                )
            },
            // SAFETY: as in getrf.
            |work, dw, host, hw| unsafe {
                sol::cusolverDnXpotrf(
                    self.g.solver,
                    self.g.params,
                    fill(upper),
                    n as i64,
                    T::solver_type(),
                    vp(a),
                    n.max(1) as i64,
                    T::solver_type(),
                    work,
                    dw,
                    host,
                    hw,
                    info as *mut i32,
                )
            },
        )?;
        Ok(())
    }

    /// `Xpotrs` with the factor of `potrf`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn potrs<T: Scalar>(
        &self,
        upper: bool,
        n: usize,
        nrhs: usize,
        a: u64,
        b: u64,
        info: u64,
    ) -> Result<()> {
        // SAFETY: valid handle and device pointers.
        unsafe {
            sol_check(
                "potrs",
                sol::cusolverDnXpotrs(
                    self.g.solver,
                    self.g.params,
                    fill(upper),
                    n as i64,
                    nrhs as i64,
                    T::solver_type(),
                    vp(a),
                    n.max(1) as i64,
                    T::solver_type(),
                    vp(b),
                    n.max(1) as i64,
                    info as *mut i32,
                ),
            )
        }
    }

    /// `Xsyevd` (Hermitian eigensolver) of the column-major `n x n` matrix at `a`: eigenvalues
    /// ascending into `w` (real type), eigenvectors over `a` when `vectors`.
    pub(crate) fn syevd<T: Scalar>(
        &self,
        vectors: bool,
        upper: bool,
        n: usize,
        a: u64,
        w: u64,
        info: u64,
    ) -> Result<()> {
        let o = "syevd";
        let jobz = if vectors {
            sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR
        } else {
            sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR
        };
        self.x_call(
            o,
            // SAFETY: as in getrf.
            |dw, hw| unsafe {
                sol::cusolverDnXsyevd_bufferSize(
                    self.g.solver,
                    self.g.params,
                    jobz,
                    fill(upper),
                    n as i64,
                    T::solver_type(),
                    vp(a),
                    n.max(1) as i64,
                    T::solver_real_type(),
                    vp(w),
                    T::solver_type(),
                    dw,
                    hw,
                )
            },
            // SAFETY: as in getrf.
            |work, dw, host, hw| unsafe {
                sol::cusolverDnXsyevd(
                    self.g.solver,
                    self.g.params,
                    jobz,
                    fill(upper),
                    n as i64,
                    T::solver_type(),
                    vp(a),
                    n.max(1) as i64,
                    T::solver_real_type(),
                    vp(w),
                    T::solver_type(),
                    work,
                    dw,
                    host,
                    hw,
                    info as *mut i32,
                )
            },
        )?;
        Ok(())
    }

    /// `Xgesvd` of the column-major `m x n` matrix at `a` (`m >= n`, destroyed): `s` (real, n),
    /// `u` (`m x m` or `m x n`), `vt` (`n x n`), per `job` (`b'A'`, `b'S'` or `b'N'`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn gesvd<T: Scalar>(
        &self,
        job: u8,
        m: usize,
        n: usize,
        a: u64,
        s: u64,
        u: u64,
        ldu: usize,
        vt: u64,
        ldvt: usize,
        info: u64,
    ) -> Result<()> {
        let o = "gesvd";
        let j = job as std::ffi::c_schar;
        self.x_call(
            o,
            // SAFETY: as in getrf.
            |dw, hw| unsafe {
                sol::cusolverDnXgesvd_bufferSize(
                    self.g.solver,
                    self.g.params,
                    j,
                    j,
                    m as i64,
                    n as i64,
                    T::solver_type(),
                    vp(a),
                    m.max(1) as i64,
                    T::solver_real_type(),
                    vp(s),
                    T::solver_type(),
                    vp(u),
                    ldu.max(1) as i64,
                    T::solver_type(),
                    vp(vt),
                    ldvt.max(1) as i64,
                    T::solver_type(),
                    dw,
                    hw,
                )
            },
            // SAFETY: as in getrf.
            |work, dw, host, hw| unsafe {
                sol::cusolverDnXgesvd(
                    self.g.solver,
                    self.g.params,
                    j,
                    j,
                    m as i64,
                    n as i64,
                    T::solver_type(),
                    vp(a),
                    m.max(1) as i64,
                    T::solver_real_type(),
                    vp(s),
                    T::solver_type(),
                    vp(u),
                    ldu.max(1) as i64,
                    T::solver_type(),
                    vp(vt),
                    ldvt.max(1) as i64,
                    T::solver_type(),
                    work,
                    dw,
                    host,
                    hw,
                    info as *mut i32,
                )
            },
        )?;
        Ok(())
    }

    /// `Xgeev` of the column-major `n x n` matrix at `a` (destroyed), `T` complex: eigenvalues
    /// into `w` (n), right eigenvectors (columns, unit 2-norm, largest component real) into the
    /// column-major `vr` when `vectors`. Only call when [`has_xgeev`]. Returns the host workspace,
    /// which the caller keeps alive until the stream has been synchronised (the routine has a
    /// host-side part and the documentation does not promise that it is done with the buffer
    /// when it returns).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn geev<T: Scalar>(
        &self,
        vectors: bool,
        n: usize,
        a: u64,
        w: u64,
        vr: u64,
        info: u64,
    ) -> Result<Vec<u8>> {
        let o = "geev";
        let jobvr = if vectors {
            sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR
        } else {
            sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR
        };
        let jobvl = sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR;
        let ld = n.max(1) as i64;
        let ldvr = if vectors { ld } else { 1 };
        let host = self.x_call(
            o,
            // SAFETY: as in getrf.
            |dw, hw| unsafe {
                sol::cusolverDnXgeev_bufferSize(
                    self.g.solver,
                    self.g.params,
                    jobvl,
                    jobvr,
                    n as i64,
                    T::solver_type(),
                    vp(a),
                    ld,
                    T::solver_type(),
                    vp(w),
                    T::solver_type(),
                    std::ptr::null(),
                    1,
                    T::solver_type(),
                    vp(vr),
                    ldvr,
                    T::solver_type(),
                    dw,
                    hw,
                )
            },
            // SAFETY: as in getrf.
            |work, dw, host, hw| unsafe {
                sol::cusolverDnXgeev(
                    self.g.solver,
                    self.g.params,
                    jobvl,
                    jobvr,
                    n as i64,
                    T::solver_type(),
                    vp(a),
                    ld,
                    T::solver_type(),
                    vp(w),
                    T::solver_type(),
                    std::ptr::null_mut(),
                    1,
                    T::solver_type(),
                    vp(vr),
                    ldvr,
                    T::solver_type(),
                    work,
                    dw,
                    host,
                    hw,
                    info as *mut i32,
                )
            },
        )?;
        Ok(host)
    }

    /// `Xgeqrf` of the column-major `m x n` matrix at `a` (in place), `tau` (`min(m, n)`).
    pub(crate) fn geqrf<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        a: u64,
        tau: u64,
        info: u64,
    ) -> Result<()> {
        let o = "geqrf";
        self.x_call(
            o,
            // SAFETY: as in getrf.
            |dw, hw| unsafe {
                sol::cusolverDnXgeqrf_bufferSize(
                    self.g.solver,
                    self.g.params,
                    m as i64,
                    n as i64,
                    T::solver_type(),
                    vp(a),
                    m.max(1) as i64,
                    T::solver_type(),
                    vp(tau),
                    T::solver_type(),
                    dw,
                    hw,
                )
            },
            // SAFETY: as in getrf.
            |work, dw, host, hw| unsafe {
                sol::cusolverDnXgeqrf(
                    self.g.solver,
                    self.g.params,
                    m as i64,
                    n as i64,
                    T::solver_type(),
                    vp(a),
                    m.max(1) as i64,
                    T::solver_type(),
                    vp(tau),
                    T::solver_type(),
                    work,
                    dw,
                    host,
                    hw,
                    info as *mut i32,
                )
            },
        )?;
        Ok(())
    }

    /// `<t>orgqr`/`<t>ungqr`: the first `n` columns of `Q` from `k` reflectors, over `a`
    /// (column-major, leading dimension `m`).
    #[allow(clippy::too_many_arguments)]
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
        let mut lwork = 0i32;
        // SAFETY: valid handle and device pointers; out-pointer to a local.
        unsafe {
            sol_check(
                o,
                T::orgqr_buffer(
                    self.g.solver,
                    i32c(o, m)?,
                    i32c(o, n)?,
                    i32c(o, k)?,
                    a as *const T,
                    i32c(o, m.max(1))?,
                    tau as *const T,
                    &mut lwork,
                ),
            )?;
        }
        let work = scratch(
            &self.dev,
            (lwork.max(1) as usize) * std::mem::size_of::<T>(),
        )?;
        // SAFETY: the workspace has the size the library asked for.
        unsafe {
            sol_check(
                o,
                T::orgqr(
                    self.g.solver,
                    i32c(o, m)?,
                    i32c(o, n)?,
                    i32c(o, k)?,
                    a as *mut T,
                    i32c(o, m.max(1))?,
                    tau as *const T,
                    ptr(&work) as *mut T,
                    lwork.max(1),
                    info as *mut i32,
                ),
            )?;
        }
        drop(work);
        Ok(())
    }

    /// `<t>trsm`: `op(A) X = B` (left side) for the column-major triangular `n x n` `A` and the
    /// column-major `n x nrhs` `B` (overwritten by `X`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn trsm<T: Scalar>(
        &self,
        upper: bool,
        trans: bool,
        conj: bool,
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
                    op(trans, conj),
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

    /// cuBLAS `getrsBatched` (`trans` applies to the factored matrices); B column-major `n x nrhs`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn getrs_batched<T: Scalar>(
        &self,
        trans: bool,
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
                    op(trans, false),
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
        let mut lwork = 0i32;
        // SAFETY: valid handle, params and device pointers; out-pointer to a local.
        unsafe {
            sol_check(
                o,
                T::syevj_batched_buffer(
                    self.g.solver,
                    jobz,
                    fill(upper),
                    i32c(o, n)?,
                    a as *const T,
                    i32c(o, n.max(1))?,
                    w as *const T::R,
                    &mut lwork,
                    p.0,
                    i32c(o, batch)?,
                ),
            )?;
        }
        let work = scratch(&self.dev, lwork.max(1) as usize * std::mem::size_of::<T>())?;
        // SAFETY: as above; the workspace has the size the library asked for.
        unsafe {
            sol_check(
                o,
                T::syevj_batched(
                    self.g.solver,
                    jobz,
                    fill(upper),
                    i32c(o, n)?,
                    a as *mut T,
                    i32c(o, n.max(1))?,
                    w as *mut T::R,
                    ptr(&work) as *mut T,
                    lwork.max(1),
                    info as *mut i32,
                    p.0,
                    i32c(o, batch)?,
                ),
            )?;
        }
        drop(work);
        Ok(())
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
        let mut lwork = 0i32;
        // SAFETY: valid handle, params and device pointers; out-pointer to a local.
        unsafe {
            sol_check(
                o,
                T::gesvdj_batched_buffer(
                    self.g.solver,
                    jobz,
                    i32c(o, m)?,
                    i32c(o, n)?,
                    a as *const T,
                    lda,
                    s as *const T::R,
                    u as *const T,
                    ldu,
                    v as *const T,
                    ldv,
                    &mut lwork,
                    p.0,
                    i32c(o, batch)?,
                ),
            )?;
        }
        let work = scratch(&self.dev, lwork.max(1) as usize * std::mem::size_of::<T>())?;
        // SAFETY: as above; the workspace has the size the library asked for.
        unsafe {
            sol_check(
                o,
                T::gesvdj_batched(
                    self.g.solver,
                    jobz,
                    i32c(o, m)?,
                    i32c(o, n)?,
                    a as *mut T,
                    lda,
                    s as *mut T::R,
                    u as *mut T,
                    ldu,
                    v as *mut T,
                    ldv,
                    ptr(&work) as *mut T,
                    lwork.max(1),
                    info as *mut i32,
                    p.0,
                    i32c(o, batch)?,
                ),
            )?;
        }
        drop(work);
        Ok(())
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
