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

mod batched;
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

/// The operation a routine applies to a matrix operand: none, the transpose, or the conjugate
/// transpose (cuBLAS's `CUBLAS_OP_N`, `_T`, `_C`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    N,
    T,
    C,
}

impl Op {
    /// The operation of a `trans` flag (`conj`: conjugated too).
    pub(crate) fn of(trans: bool, conj: bool) -> Op {
        match (trans, conj) {
            (false, _) => Op::N,
            (true, false) => Op::T,
            (true, true) => Op::C,
        }
    }
    fn blas(self) -> blas::cublasOperation_t {
        match self {
            Op::N => blas::cublasOperation_t::CUBLAS_OP_N,
            Op::T => blas::cublasOperation_t::CUBLAS_OP_T,
            Op::C => blas::cublasOperation_t::CUBLAS_OP_C,
        }
    }
    fn solver(self) -> sol::cublasOperation_t {
        match self {
            Op::N => sol::cublasOperation_t::CUBLAS_OP_N,
            Op::T => sol::cublasOperation_t::CUBLAS_OP_T,
            Op::C => sol::cublasOperation_t::CUBLAS_OP_C,
        }
    }
}

/// Matrices stored back to back for a strided-batched routine: the device address of the first
/// (column-major), its leading dimension, and the element stride between matrices (0 broadcasts
/// one matrix over the batch).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Strided {
    pub(crate) addr: u64,
    pub(crate) ld: usize,
    pub(crate) stride: usize,
}

/// A strided-batched GEMM, `C_i = op(A_i) op(B_i)` for `batch` matrices, column-major: `C` is
/// `m x n`, the inner dimension `k`; `ta`/`tb` transpose `A`/`B`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Gemm {
    pub(crate) m: usize,
    pub(crate) n: usize,
    pub(crate) k: usize,
    pub(crate) batch: usize,
    pub(crate) a: Strided,
    pub(crate) ta: bool,
    pub(crate) b: Strided,
    pub(crate) tb: bool,
    pub(crate) c: Strided,
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

/// One cuSOLVER 64-bit (X API) routine of the handles `$l` through [`Locked::x_call`]: its
/// `bufferSize` call `$size` and the routine `$call` get the handle, the parameters and the same
/// arguments `$arg`, then the workspaces, and the routine the device `info` at `$info`.
macro_rules! x_routine {
    ($l:expr, $o:expr, $size:path, $call:path, $info:expr; $($arg:expr),* $(,)?) => {
        $l.x_call(
            $o,
            // SAFETY: valid handle and device pointers (the caller's); out-pointers to locals.
            |dw, hw| unsafe { $size($l.g.solver, $l.g.params, $($arg,)* dw, hw) },
            // SAFETY: as above; the workspaces have the sizes the library asked for.
            |work, dw, host, hw| unsafe {
                $call(
                    $l.g.solver,
                    $l.g.params,
                    $($arg,)*
                    work,
                    dw,
                    host,
                    hw,
                    $info as *mut i32,
                )
            },
        )
    };
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
        let mut work = scratch(&self.dev, dw)?;
        let mut host = vec![0u8; hw.max(1)];
        sol_check(
            o,
            call(
                vp(work.dev_ptr_mut()?.addr()),
                dw,
                host.as_mut_ptr() as *mut c_void,
                hw,
            ),
        )?;
        drop(work);
        Ok(host)
    }

    /// The column-major strided-batched GEMM `g` (`gemmStridedBatchedEx`, compute type = element
    /// type).
    pub(crate) fn gemm<T: Scalar>(&self, g: &Gemm) -> Result<()> {
        let o = "matmul";
        let Gemm {
            m,
            n,
            k,
            batch,
            a,
            ta,
            b,
            tb,
            c,
        } = *g;
        let one = T::one();
        let zero = T::zero();
        // SAFETY: pointers are device buffers holding the described matrices (callers build them
        // from live arrays); scalars are host values read during the call.
        unsafe {
            blas_check(
                o,
                blas::cublasGemmStridedBatchedEx(
                    self.g.blas,
                    Op::of(ta, false).blas(),
                    Op::of(tb, false).blas(),
                    i32c(o, m)?,
                    i32c(o, n)?,
                    i32c(o, k)?,
                    &one as *const T as *const c_void,
                    vp(a.addr),
                    T::blas_type(),
                    i32c(o, a.ld.max(1))?,
                    a.stride as i64,
                    vp(b.addr),
                    T::blas_type(),
                    i32c(o, b.ld.max(1))?,
                    b.stride as i64,
                    &zero as *const T as *const c_void,
                    vp(c.addr),
                    T::blas_type(),
                    i32c(o, c.ld.max(1))?,
                    c.stride as i64,
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

    /// `Xgetrs`: solves `op(A) X = B` with the LU of `getrf` (`A` column-major `n x n` at `a`,
    /// pivots at `ipiv`); `B` column-major `n x nrhs` at `b` (overwritten by `X`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn getrs<T: Scalar>(
        &self,
        op: Op,
        n: usize,
        nrhs: usize,
        a: u64,
        ipiv: u64,
        b: u64,
        info: u64,
    ) -> Result<()> {
        // SAFETY: valid handle and device pointers.
        unsafe {
            sol_check(
                "getrs",
                sol::cusolverDnXgetrs(
                    self.g.solver,
                    self.g.params,
                    op.solver(),
                    n as i64,
                    nrhs as i64,
                    T::solver_type(),
                    vp(a),
                    n.max(1) as i64,
                    ipiv as *const i64,
                    T::solver_type(),
                    vp(b),
                    n.max(1) as i64,
                    info as *mut i32,
                ),
            )
        }
    }

    /// `Xpotrf` of the column-major `n x n` Hermitian matrix at `a` (in place).
    pub(crate) fn potrf<T: Scalar>(&self, upper: bool, n: usize, a: u64, info: u64) -> Result<()> {
        let o = "potrf";
        x_routine!(
            self,
            o,
            sol::cusolverDnXpotrf_bufferSize,
            sol::cusolverDnXpotrf,
            info;
            fill(upper),
            n as i64,
            T::solver_type(),
            vp(a),
            n.max(1) as i64,
            T::solver_type(),
        )?;
        Ok(())
    }

    /// `Xpotrs` with the factor of `potrf`.
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
        x_routine!(
            self,
            o,
            sol::cusolverDnXsyevd_bufferSize,
            sol::cusolverDnXsyevd,
            info;
            jobz,
            fill(upper),
            n as i64,
            T::solver_type(),
            vp(a),
            n.max(1) as i64,
            T::solver_real_type(),
            vp(w),
            T::solver_type(),
        )?;
        Ok(())
    }

    /// `Xgesvd` of the column-major `m x n` matrix at `a` (`m >= n`, destroyed): `s` (real, n),
    /// `u` (`m x m` or `m x n`, leading dimension `m`), `vt` (`n x n`), per `job` (`b'A'`, `b'S'`
    /// or `b'N'`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn gesvd<T: Scalar>(
        &self,
        job: u8,
        m: usize,
        n: usize,
        a: u64,
        s: u64,
        u: u64,
        vt: u64,
        info: u64,
    ) -> Result<()> {
        let (ldu, ldvt) = (m, n);
        let o = "gesvd";
        let j = job as std::ffi::c_schar;
        x_routine!(
            self,
            o,
            sol::cusolverDnXgesvd_bufferSize,
            sol::cusolverDnXgesvd,
            info;
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
        )?;
        Ok(())
    }

    /// `Xgeev` of the column-major `n x n` matrix at `a` (destroyed), `T` complex: eigenvalues
    /// into `w` (n), right eigenvectors (columns, unit 2-norm, largest component real) into the
    /// column-major `vr` when `vectors`. Only call when [`has_xgeev`]. Returns the host workspace,
    /// which the caller keeps alive until the stream has been synchronised (the routine has a
    /// host-side part and the documentation does not promise that it is done with the buffer
    /// when it returns).
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
        // (no left eigenvectors: a null pointer)
        let host = x_routine!(
            self,
            o,
            sol::cusolverDnXgeev_bufferSize,
            sol::cusolverDnXgeev,
            info;
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
        x_routine!(
            self,
            o,
            sol::cusolverDnXgeqrf_bufferSize,
            sol::cusolverDnXgeqrf,
            info;
            m as i64,
            n as i64,
            T::solver_type(),
            vp(a),
            m.max(1) as i64,
            T::solver_type(),
            vp(tau),
            T::solver_type(),
        )?;
        Ok(())
    }
}
