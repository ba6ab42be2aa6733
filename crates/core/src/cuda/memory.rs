//! Device buffers from the stream-ordered pool, freed blocks kept per stream for reuse.

use crate::device::CudaDevice;
use crate::error::{Error, Result};
use cudarc::driver::{result as cu, sys};
use std::sync::Arc;

/// Untyped device memory, freed (stream-ordered) on the stream it was allocated on: kept there
/// for the next allocation of the same size on that stream (up to a cap), else returned to the
/// pool.
#[doc(hidden)]
pub struct DeviceBuffer {
    pub(crate) ptr: sys::CUdeviceptr,
    pub(crate) bytes: usize,
    pub(crate) dev: CudaDevice,
    /// Allocated while its stream was captured into a graph: the graph's memory, freed by the
    /// graph's own free node (or never, when the capture failed), never by this value.
    graph: bool,
}

impl std::fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceBuffer({:#x}, {} bytes, {:?})",
            self.ptr, self.bytes, self.dev
        )
    }
}

impl DeviceBuffer {
    /// Uninitialised memory of `bytes` bytes on `dev`'s stream. Zero bytes allocate nothing.
    ///
    /// # Errors
    /// `OutOfMemory { requested, free }` when the device cannot satisfy it (after returning the
    /// pool's cached memory and retrying once); the device stays usable.
    pub(crate) fn alloc(dev: &CudaDevice, bytes: usize) -> Result<DeviceBuffer> {
        dev.bind()?;
        // on this thread's graph capture's stream while one runs (see crate::graph)
        let eff = dev.effective();
        let dev: &CudaDevice = &eff;
        if bytes == 0 {
            return Ok(DeviceBuffer {
                ptr: 0,
                bytes: 0,
                dev: dev.clone(),
                graph: false,
            });
        }
        if let Some(ptr) = dev.stream.take_block(bytes) {
            return Ok(DeviceBuffer {
                ptr,
                bytes,
                dev: dev.clone(),
                graph: false,
            });
        }
        if dev.stream.capturing() {
            return Self::alloc_in_capture(dev, bytes);
        }
        // SAFETY: pool and stream are alive; the memory is uninitialised and written before read.
        let first = unsafe { cu::mem_pool::alloc_async(dev.shared.pool, bytes, dev.stream.raw) };
        let ptr = match first {
            Ok(p) => p,
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                // give the cached blocks back and try once more
                let _ = dev.free_cached();
                // SAFETY: as above.
                match unsafe { cu::mem_pool::alloc_async(dev.shared.pool, bytes, dev.stream.raw) } {
                    Ok(p) => p,
                    Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                        let free = cu::mem_get_info().map(|(f, _)| f).unwrap_or(0);
                        return Err(Error::OutOfMemory {
                            requested: bytes,
                            free,
                        });
                    }
                    Err(e) => return Err(Error::driver("alloc", e)),
                }
            }
            Err(e) => return Err(Error::driver("alloc", e)),
        };
        Ok(DeviceBuffer {
            ptr,
            bytes,
            dev: dev.clone(),
            graph: false,
        })
    }

    /// An allocation recorded into the graph being captured on `dev`'s stream (an allocation
    /// node: no retry after freeing the cache, which would synchronise).
    fn alloc_in_capture(dev: &CudaDevice, bytes: usize) -> Result<DeviceBuffer> {
        // SAFETY: as in alloc(); the driver records the allocation into the captured graph.
        let ptr = unsafe { cu::mem_pool::alloc_async(dev.shared.pool, bytes, dev.stream.raw) }
            .map_err(|e| {
                if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
                    Error::OutOfMemory {
                        requested: bytes,
                        free: cu::mem_get_info().map(|(f, _)| f).unwrap_or(0),
                    }
                } else {
                    Error::driver("alloc (graph capture)", e)
                }
            })?;
        dev.stream.with_capture(|c| c.live += 1);
        Ok(DeviceBuffer {
            ptr,
            bytes,
            dev: dev.clone(),
            graph: true,
        })
    }

    /// The buffer's bytes for a kernel that reads them.
    pub(crate) fn dev_ptr(&self) -> crate::cuda::launch::DevPtr<'_, u8> {
        crate::cuda::launch::DevPtr::new(self.ptr, self.bytes)
    }

    /// The buffer's bytes for a kernel that writes them.
    pub(crate) fn dev_ptr_mut(&mut self) -> crate::cuda::launch::DevPtrMut<'_, u8> {
        crate::cuda::launch::DevPtrMut::new(self.ptr, self.bytes)
    }

    /// Copies `src` (host) into the start of this buffer, ordered on the buffer's stream, and waits
    /// for the copy (the host slice may be freed right after).
    pub(crate) fn upload_sync(&self, src: &[u8]) -> Result<()> {
        if src.is_empty() {
            return Ok(());
        }
        self.dev.bind()?;
        let eff = self.dev.effective();
        let stream = &eff.stream;
        if stream.capturing() {
            // a graph's copy node reads the host data at every replay: stage it in pinned
            // memory that the graph keeps, and do not wait
            let mut staged = PinnedVec::<u8>::zeroed(&self.dev, src.len())?;
            staged.copy_from_slice(src);
            // SAFETY: the buffer holds at least src.len() bytes; `staged` lives as long as the
            // graph (kept in the capture state below).
            unsafe { cu::memcpy_htod_async(self.ptr, &staged[..], stream.raw) }
                .map_err(|e| Error::driver("upload (graph capture)", e))?;
            stream.with_capture(|c| c.staging.push(staged));
            return Ok(());
        }
        // SAFETY: the buffer holds at least src.len() bytes; the copy completes before return.
        unsafe {
            cu::memcpy_htod_async(self.ptr, src, stream.raw)
                .map_err(|e| Error::driver("upload", e))?;
            cu::stream::synchronize(stream.raw).map_err(|e| Error::driver("upload", e))
        }
    }

    /// Copies `dst.len()` bytes from byte offset `at` of this buffer into `dst`; waits on `stream`.
    pub(crate) fn download_sync(
        &self,
        at: usize,
        dst: &mut [u8],
        stream: sys::CUstream,
    ) -> Result<()> {
        if dst.is_empty() {
            return Ok(());
        }
        self.dev
            .effective()
            .stream
            .check_not_capturing("download")?;
        self.dev.bind()?;
        // the reading handle's stream may be another one, being captured
        // SAFETY: the stream is alive while its handle is.
        if let Ok(s) = unsafe { cu::stream::is_capturing(stream) } {
            if s != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE {
                return Err(Error::arg(
                    "download",
                    "reads device data on the host, which a graph capture cannot record (see \
                     cusci_core::graph)",
                ));
            }
        }
        // SAFETY: [at, at + dst.len()) lies inside the buffer (callers check); waits before return.
        unsafe {
            cu::memcpy_dtoh_async(dst, self.ptr + at as u64, stream)
                .map_err(|e| Error::driver("download", e))?;
            cu::stream::synchronize(stream).map_err(|e| Error::driver("download", e))
        }
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        if self.bytes == 0 {
            return;
        }
        let eff = self.dev.effective();
        let stream = &eff.stream;
        if stream.capturing() {
            if !self.graph {
                // made before the capture: the graph may read it, so it lives as long as the graph
                let keep = DeviceBuffer {
                    ptr: self.ptr,
                    bytes: self.bytes,
                    dev: self.dev.clone(),
                    graph: false,
                };
                if let Err(keep) = stream.keep_for_capture(keep) {
                    // the capture ended meanwhile: an ordinary free
                    std::mem::forget(keep);
                } else {
                    return;
                }
            } else {
                stream.with_capture(|c| c.live -= 1);
            }
        } else if self.graph {
            return;
        } else if !Arc::ptr_eq(stream, &self.dev.stream) && self.dev.bind().is_ok() {
            // released while this thread's work goes to a graph's stream (its eager call), which
            // may still read it: wait for that stream before freeing on the buffer's own
            // SAFETY: the stream is alive while its handle is.
            let _ = unsafe { cu::stream::synchronize(stream.raw) };
        }
        if self.dev.stream.keep_block(self.ptr, self.bytes) {
            return;
        }
        if self.dev.bind().is_ok() {
            // SAFETY: allocated by alloc() on this stream and freed once, stream-ordered.
            unsafe {
                let _ = cu::free_async(self.ptr, self.dev.stream.raw);
            }
        }
    }
}

/// Page-locked (pinned) host memory: transfers to and from the device run at full bus speed.
/// Created with [`PinnedVec::zeroed`] or by [`Array::to_pinned`](crate::Array::to_pinned).
pub struct PinnedVec<T> {
    ptr: *mut T,
    len: usize,
    dev: CudaDevice,
}

// SAFETY: the allocation is plain host memory owned by this value.
unsafe impl<T: Send> Send for PinnedVec<T> {}
// SAFETY: shared access only reads.
unsafe impl<T: Sync> Sync for PinnedVec<T> {}

impl<T: crate::dtype::Element> PinnedVec<T> {
    /// `len` zeroed elements of pinned memory registered with `dev`'s context.
    ///
    /// # Errors
    /// `InvalidArgument` when the byte count overflows; `OutOfMemory { requested, free }` (the
    /// host's free bytes) when the host cannot give or pin that much, checked before asking the
    /// driver for a large block.
    pub fn zeroed(dev: &CudaDevice, len: usize) -> Result<PinnedVec<T>> {
        dev.bind()?;
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .filter(|&b| b <= isize::MAX as usize)
            .ok_or_else(|| {
                Error::arg(
                    "PinnedVec",
                    format!("{len} elements overflow the address space"),
                )
            })?;
        crate::host::check_request(bytes)?;
        let ptr = if bytes == 0 {
            std::ptr::NonNull::<T>::dangling().as_ptr()
        } else {
            // SAFETY: a plain page-locked allocation; zeroed below before any read.
            let p = unsafe { cu::malloc_host(bytes, 0) }.map_err(|e| {
                if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
                    Error::OutOfMemory {
                        requested: bytes,
                        free: crate::host::available().unwrap_or(0),
                    }
                } else {
                    Error::driver("PinnedVec", e)
                }
            })? as *mut T;
            // SAFETY: p points to `bytes` writable bytes; all-zero bits are valid for every Element.
            unsafe { std::ptr::write_bytes(p as *mut u8, 0, bytes) };
            p
        };
        Ok(PinnedVec {
            ptr,
            len,
            dev: dev.clone(),
        })
    }
}

impl<T> std::ops::Deref for PinnedVec<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: ptr holds len initialised elements (or is dangling with len 0).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T> std::ops::DerefMut for PinnedVec<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as above, and we hold the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl<T> Drop for PinnedVec<T> {
    fn drop(&mut self) {
        if self.len > 0 && std::mem::size_of::<T>() > 0 && self.dev.bind().is_ok() {
            // SAFETY: allocated by cuMemHostAlloc in zeroed() and freed once.
            unsafe {
                let _ = cu::free_host(self.ptr as *mut std::ffi::c_void);
            }
        }
    }
}
