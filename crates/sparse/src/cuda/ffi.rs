//! A thin safe layer over cuSPARSE's generic API (cudarc has only the raw bindings): one handle
//! per device (in [`CudaDevice::extension`]), bound to the calling array's stream for each call;
//! descriptors that destroy themselves; statuses checked and turned into `Error::Cuda` with the
//! status name.

use crate::matrix::CsrMatrix;
use cudarc::cusparse::sys;
use cusci_core::cuda::libs;
use cusci_core::{Array, CudaDevice, DType, DevPtr, Element, Error, Float, Result};
use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

/// Checks a cuSPARSE status.
pub(crate) fn check(op: &str, s: sys::cusparseStatus_t) -> Result<()> {
    if s == sys::cusparseStatus_t::CUSPARSE_STATUS_SUCCESS {
        return Ok(());
    }
    Err(Error::Cuda {
        op: op.into(),
        library: "cusparse",
        status: format!("{s:?}"),
    })
}

/// A cuSPARSE handle and the device's cached work buffer; used under its mutex, on the stream of
/// the call that holds it.
pub(crate) struct Handle(sys::cusparseHandle_t, Option<Array<u8>>);
// SAFETY: the handle is only used while its mutex is held (one thread at a time).
unsafe impl Send for Handle {}
// SAFETY: as above.
unsafe impl Sync for Handle {}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: created by cusparseCreate and destroyed once.
        unsafe {
            let _ = sys::cusparseDestroy(self.0);
        }
    }
}

/// The largest work buffer kept between calls (bigger ones are allocated per call).
pub(crate) const WORKSPACE_CACHE_MAX: usize = 64 << 20;

impl Handle {
    pub(crate) fn raw(&self) -> sys::cusparseHandle_t {
        self.0
    }

    /// The device address of a work buffer of at least `bytes` bytes for one call queued while
    /// the handle is held. Buffers up to [`WORKSPACE_CACHE_MAX`] are kept and reused (grown when
    /// a call needs more): every call runs on the device's one stream, so a later call's use is
    /// ordered after the earlier one's. Larger ones come from the stream-ordered pool and are
    /// returned in `keep`, which the caller drops after queueing the call. No fill pass.
    pub(crate) fn workspace(
        &mut self,
        dev: &CudaDevice,
        bytes: usize,
        keep: &mut Option<Array<u8>>,
    ) -> Result<u64> {
        // never a null buffer (some routines reject it even when they asked for 0 bytes)
        let bytes = bytes.max(256);
        let d = cusci_core::Device::Cuda(dev.clone());
        if bytes > WORKSPACE_CACHE_MAX {
            let mut b = Array::<u8>::empty(&[bytes], &d)?;
            let p = b.dev_ptr_mut()?.addr();
            *keep = Some(b);
            return Ok(p);
        }
        if self.1.as_ref().is_none_or(|b| b.len() < bytes) {
            // grow geometrically so that slowly growing sizes do not reallocate every call
            let size = bytes
                .next_power_of_two()
                .min(WORKSPACE_CACHE_MAX)
                .max(bytes);
            self.1 = None;
            self.1 = Some(Array::<u8>::empty(&[size], &d)?);
        }
        match self.1.as_mut() {
            Some(b) => Ok(b.dev_ptr_mut()?.addr()),
            None => Ok(0),
        }
    }
}

/// The device's cuSPARSE handle, locked and bound to `dev`'s stream.
pub(crate) fn with_handle<R>(
    dev: &CudaDevice,
    f: impl FnOnce(&mut Handle) -> Result<R>,
) -> Result<R> {
    libs::require("cusparse")?;
    dev.bind()?;
    let h: Arc<Mutex<Handle>> = dev.extension("cusci_sparse.cusparse", || {
        let mut raw = std::ptr::null_mut();
        // SAFETY: raw is a valid out-pointer; the library was found by libs::require.
        check("cusparseCreate", unsafe { sys::cusparseCreate(&mut raw) })?;
        Ok(Mutex::new(Handle(raw, None)))
    })?;
    let mut g = h.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: the handle is alive and the stream belongs to the handle's context.
    check("cusparseSetStream", unsafe {
        sys::cusparseSetStream(g.0, dev.raw_stream() as sys::cudaStream_t)
    })?;
    f(&mut g)
}

/// cuSPARSE's data type of `T`.
pub(crate) fn data_type<T: Element>() -> Result<sys::cudaDataType> {
    use sys::cudaDataType::*;
    Ok(match T::DTYPE {
        DType::F32 => CUDA_R_32F,
        DType::F64 => CUDA_R_64F,
        DType::C32 => CUDA_C_32F,
        DType::C64 => CUDA_C_64F,
        d => {
            return Err(Error::UnsupportedDType {
                op: "cusparse".into(),
                dtype: d,
            })
        }
    })
}

/// An owned cuSPARSE descriptor (`$raw`), destroyed by `$destroy` when dropped, over device
/// memory borrowed for `'a`.
macro_rules! descriptor {
    ($(#[$m:meta])* $name:ident, $raw:ty, $destroy:path) => {
        $(#[$m])*
        pub(crate) struct $name<'a>($raw, PhantomData<&'a ()>);
        impl Drop for $name<'_> {
            fn drop(&mut self) {
                // SAFETY: created once by the type's constructor and destroyed once, here.
                unsafe {
                    let _ = $destroy(self.0);
                }
            }
        }
    };
}

descriptor!(
    /// A CSR matrix descriptor over arrays borrowed for its life.
    SpMat,
    sys::cusparseSpMatDescr_t,
    sys::cusparseDestroySpMat
);
descriptor!(
    /// A dense vector descriptor over an array borrowed for its life.
    DnVec,
    sys::cusparseDnVecDescr_t,
    sys::cusparseDestroyDnVec
);
descriptor!(
    /// A dense row-major matrix descriptor over an array borrowed for its life.
    DnMat,
    sys::cusparseDnMatDescr_t,
    sys::cusparseDestroyDnMat
);

/// Runs a two-phase cuSPARSE routine under the device's handle: `size` reports the bytes of
/// work buffer it needs, `run` gets a buffer of at least that size (the handle's cached one, or
/// a stream-ordered one freed after the call is queued; see [`Handle::workspace`]).
fn buffered(
    dev: &CudaDevice,
    names: (&str, &str),
    size: impl FnOnce(sys::cusparseHandle_t, &mut usize) -> sys::cusparseStatus_t,
    run: impl FnOnce(sys::cusparseHandle_t, *mut c_void) -> sys::cusparseStatus_t,
) -> Result<()> {
    with_handle(dev, |h| {
        let mut bytes = 0usize;
        check(names.0, size(h.raw(), &mut bytes))?;
        let mut keep = None;
        let buf = h.workspace(dev, bytes, &mut keep)?;
        check(names.1, run(h.raw(), buf as *mut c_void))
    })
}

impl<'a> SpMat<'a> {
    /// The CSR descriptor of `a` (zero based; 32- or 64-bit indices, `I`).
    pub(crate) fn csr<T: Float, I: crate::SpIndex>(a: &'a CsrMatrix<T, I>) -> Result<Self> {
        let (rows, cols) = a.shape();
        let (pd, pi, pp) = (
            a.data().dev_ptr()?,
            a.indices().dev_ptr()?,
            a.indptr().dev_ptr()?,
        );
        let mut d = std::ptr::null_mut();
        // SAFETY: the pointers are live device arrays of the stated lengths (CsrMatrix
        // invariants), borrowed for the descriptor's life.
        check("cusparseCreateCsr", unsafe {
            sys::cusparseCreateCsr(
                &mut d,
                rows as i64,
                cols as i64,
                a.nnz() as i64,
                pp.addr() as *mut c_void,
                pi.addr() as *mut c_void,
                pd.addr() as *mut c_void,
                I::cusparse(),
                I::cusparse(),
                sys::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
                data_type::<T>()?,
            )
        })?;
        Ok(SpMat(d, PhantomData))
    }
}

impl<'a> DnVec<'a> {
    /// The descriptor of the `len` elements at `p` (written through it only where `p` comes
    /// from a [`DevPtrMut`](cusci_core::DevPtrMut)).
    fn new<T: Float>(p: DevPtr<'a, T>, len: usize) -> Result<Self> {
        let mut d = std::ptr::null_mut();
        // SAFETY: p points to a live device array of len elements, borrowed for the
        // descriptor's life.
        check("cusparseCreateDnVec", unsafe {
            sys::cusparseCreateDnVec(
                &mut d,
                len as i64,
                p.addr() as *mut c_void,
                data_type::<T>()?,
            )
        })?;
        Ok(DnVec(d, PhantomData))
    }
}

impl<'a> DnMat<'a> {
    /// The descriptor of the row-major (r, c) matrix at `p` (written through it only where `p`
    /// comes from a [`DevPtrMut`](cusci_core::DevPtrMut)).
    fn row_major<T: Float>(p: DevPtr<'a, T>, r: usize, c: usize) -> Result<Self> {
        let mut d = std::ptr::null_mut();
        // SAFETY: p points to a live contiguous (row-major) device array of r x c, borrowed for
        // the descriptor's life.
        check("cusparseCreateDnMat", unsafe {
            sys::cusparseCreateDnMat(
                &mut d,
                r as i64,
                c as i64,
                c.max(1) as i64,
                p.addr() as *mut c_void,
                data_type::<T>()?,
                sys::cusparseOrder_t::CUSPARSE_ORDER_ROW,
            )
        })?;
        Ok(DnMat(d, PhantomData))
    }
}

/// A host scalar as the `const void*` of cuSPARSE's α and β.
fn host_ptr<T>(v: &T) -> *const c_void {
    v as *const T as *const c_void
}

/// y = A x (cusparseSpMV, the default algorithm) for contiguous `x` and `y`.
pub(crate) fn spmv<T: Float>(
    dev: &CudaDevice,
    a: &SpMat,
    x: &Array<T>,
    y: &mut Array<T>,
) -> Result<()> {
    let ny = y.len();
    let (px, py) = (x.dev_ptr()?, y.dev_ptr_mut()?);
    let vx = DnVec::new(px, x.len())?;
    let vy = DnVec::new(py.as_ptr(), ny)?;
    let (one, zero) = (T::one(), T::zero());
    let (pone, pzero) = (host_ptr(&one), host_ptr(&zero));
    let ty = data_type::<T>()?;
    let alg = sys::cusparseSpMVAlg_t::CUSPARSE_SPMV_ALG_DEFAULT;
    let op = sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
    buffered(
        dev,
        ("cusparseSpMV_bufferSize", "cusparseSpMV"),
        // SAFETY: descriptors are alive; scalars are host values of the compute type.
        |h, bytes| unsafe {
            sys::cusparseSpMV_bufferSize(h, op, pone, a.0, vx.0, pzero, vy.0, ty, alg, bytes)
        },
        // SAFETY: as above; the buffer holds the bytes asked for and outlives the queued call.
        |h, buf| unsafe { sys::cusparseSpMV(h, op, pone, a.0, vx.0, pzero, vy.0, ty, alg, buf) },
    )
}

/// C = A B with B and C contiguous 2-D (row-major; cusparseSpMM, the default algorithm).
pub(crate) fn spmm<T: Float>(
    dev: &CudaDevice,
    a: &SpMat,
    b: &Array<T>,
    c: &mut Array<T>,
) -> Result<()> {
    let (cr, cc) = (c.shape()[0], c.shape()[1]);
    let (pb, pc) = (b.dev_ptr()?, c.dev_ptr_mut()?);
    let mb = DnMat::row_major(pb, b.shape()[0], b.shape()[1])?;
    let mc = DnMat::row_major(pc.as_ptr(), cr, cc)?;
    let (one, zero) = (T::one(), T::zero());
    let (pone, pzero) = (host_ptr(&one), host_ptr(&zero));
    let ty = data_type::<T>()?;
    let alg = sys::cusparseSpMMAlg_t::CUSPARSE_SPMM_ALG_DEFAULT;
    let op = sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
    buffered(
        dev,
        ("cusparseSpMM_bufferSize", "cusparseSpMM"),
        // SAFETY: descriptors are alive; scalars are host values of the compute type.
        |h, bytes| unsafe {
            sys::cusparseSpMM_bufferSize(h, op, op, pone, a.0, mb.0, pzero, mc.0, ty, alg, bytes)
        },
        // SAFETY: as above; the buffer holds the bytes asked for and outlives the queued call.
        |h, buf| unsafe {
            sys::cusparseSpMM(h, op, op, pone, a.0, mb.0, pzero, mc.0, ty, alg, buf)
        },
    )
}

/// The CSR arrays of the transpose of the m x n CSR matrix `a` (its CSC form) written to
/// `out` = (data, indptr, indices) of lengths (nnz, n + 1, nnz) (cusparseCsr2cscEx2, values
/// copied). 32-bit indices only (the routine has no 64-bit form): `InvalidArgument` otherwise.
pub(crate) fn csr2csc<T: Float, I: crate::SpIndex>(
    dev: &CudaDevice,
    a: &CsrMatrix<T, I>,
    out: (&mut Array<T>, &mut Array<I>, &mut Array<I>),
) -> Result<()> {
    if I::DTYPE != DType::I32 {
        return Err(cusci_core::error::make::arg(
            "cusparseCsr2cscEx2",
            "32-bit indices only",
        ));
    }
    let (m, n) = a.shape();
    let ty = data_type::<T>()?;
    let nnz = a.nnz() as i32;
    let action = sys::cusparseAction_t::CUSPARSE_ACTION_NUMERIC;
    let base = sys::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO;
    let alg = sys::cusparseCsr2CscAlg_t::CUSPARSE_CSR2CSC_ALG_DEFAULT;
    let (sd, sp, si) = (
        a.data().dev_ptr()?,
        a.indptr().dev_ptr()?,
        a.indices().dev_ptr()?,
    );
    let (wd, wp, wi) = (
        out.0.dev_ptr_mut()?,
        out.1.dev_ptr_mut()?,
        out.2.dev_ptr_mut()?,
    );
    let (pd, pp, pi) = (
        sd.addr() as *const c_void,
        sp.addr() as *const i32,
        si.addr() as *const i32,
    );
    let (od, op_, oi) = (
        wd.addr() as *mut c_void,
        wp.addr() as *mut i32,
        wi.addr() as *mut i32,
    );
    let (m, n) = (m as i32, n as i32);
    buffered(
        dev,
        ("cusparseCsr2cscEx2_bufferSize", "cusparseCsr2cscEx2"),
        // SAFETY: the arrays are live device arrays of the CSR/CSC lengths, borrowed (typed
        // pointers) until the call is queued.
        |h, bytes| unsafe {
            sys::cusparseCsr2cscEx2_bufferSize(
                h, m, n, nnz, pd, pp, pi, od, op_, oi, ty, action, base, alg, bytes,
            )
        },
        // SAFETY: as above; the buffer holds the bytes asked for and outlives the queued call.
        |h, buf| unsafe {
            sys::cusparseCsr2cscEx2(
                h, m, n, nnz, pd, pp, pi, od, op_, oi, ty, action, base, alg, buf,
            )
        },
    )
}
