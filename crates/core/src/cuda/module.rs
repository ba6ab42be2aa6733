//! The loaded kernel modules of a device: [`Module`] (a driver module and its functions),
//! [`FnInfo`] and the per-device [`KernelCache`]. Compiling and loading them is `kernel.rs`'s
//! work; the device only owns the cache.

use cudarc::driver::{result as cu, sys};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A loaded module (its functions looked up lazily).
pub(crate) struct Module {
    pub(crate) raw: sys::CUmodule,
    pub(crate) functions: Mutex<HashMap<String, Arc<FnInfo>>>,
    /// Resident blocks per multiprocessor, by (function, threads, dynamic shared bytes).
    pub(crate) occupancy: Mutex<HashMap<(usize, u32, usize), u32>>,
    /// The dynamic shared memory each function is allowed beyond 48 KiB (the opt-in attribute).
    pub(crate) smem_allowed: Mutex<HashMap<usize, u32>>,
    pub(crate) ctx: Arc<cudarc::driver::CudaContext>,
}

impl Drop for Module {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: loaded once by module(); no Function outlives it (each holds an Arc).
            unsafe {
                let _ = cu::module::unload(self.raw);
            }
        }
    }
}
// SAFETY: modules and functions are driver objects usable from any thread of their context.
unsafe impl Send for Module {}
// SAFETY: as above; the function table is behind a mutex.
unsafe impl Sync for Module {}

/// A function of a loaded module: its handle, name and parameter sizes.
pub(crate) struct FnInfo {
    pub(crate) raw: sys::CUfunction,
    pub(crate) name: String,
    /// Each parameter's size in bytes, where the driver can tell (CUDA 12.4 and later).
    pub(crate) params: Option<Vec<usize>>,
}

// SAFETY: a function handle is a driver object usable from any thread of its context.
unsafe impl Send for FnInfo {}
// SAFETY: as above; the struct is immutable.
unsafe impl Sync for FnInfo {}

/// The modules compiled and loaded for one device, by key, and the architecture they target.
pub(crate) struct KernelCache {
    pub(crate) arch: String,
    pub(crate) modules: Mutex<HashMap<String, Arc<Module>>>,
}

impl KernelCache {
    /// An empty cache for a device of compute capability `(major, minor)`.
    pub(crate) fn new((ma, mi): (i32, i32)) -> KernelCache {
        KernelCache {
            arch: format!("sm_{ma}{mi}"),
            modules: Mutex::new(HashMap::new()),
        }
    }
}
