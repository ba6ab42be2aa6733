//! NCCL, loaded at run time without panicking.
//!
//! cudarc 0.19's `nccl` module looks for `libnccl.so` and `libnccl.so.<CUDA major>` only and
//! panics when neither loads, while NCCL installs itself as `libnccl.so.2` (the H200 image, the
//! `nvidia-nccl-cu*` wheels, Debian's `libnccl2`). So cusci-dist opens NCCL itself: `libnccl.so.2`
//! or `libnccl.so` through the dynamic loader, then in `CUSCI_NCCL_LIB`, `CUSCI_CUDA_LIB_DIRS`,
//! `$CUDA_HOME/lib64`, the system library folders and NVIDIA's Python wheels; the few entry points
//! used are resolved once. Absence is a normal outcome: the collectives then stage through the
//! host.

use cusci_core::cuda::libs;
use cusci_core::{Error, Result};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::PathBuf;
use std::sync::OnceLock;

/// `ncclUniqueId`: 128 opaque bytes.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct UniqueId {
    pub(crate) internal: [c_char; 128],
}

pub(crate) type RawComm = *mut c_void;
type Res = c_int;

/// NCCL's data types (`ncclDataType_t`).
pub(crate) mod dtype {
    pub const U8: i32 = 1;
    pub const I32: i32 = 2;
    pub const I64: i32 = 4;
    pub const F32: i32 = 7;
    pub const F64: i32 = 8;
}

/// The form of `ncclAllReduce` and `ncclBroadcast`: send and receive buffers, count, data type,
/// then the reduction op or the root rank, the communicator and the stream.
type RootedFn = unsafe extern "C" fn(
    *const c_void,
    *mut c_void,
    usize,
    c_int,
    c_int,
    RawComm,
    *mut c_void,
) -> Res;

pub(crate) struct Api {
    _lib: libloading::Library,
    pub(crate) path: PathBuf,
    get_version: unsafe extern "C" fn(*mut c_int) -> Res,
    get_unique_id: unsafe extern "C" fn(*mut UniqueId) -> Res,
    comm_init_rank: unsafe extern "C" fn(*mut RawComm, c_int, UniqueId, c_int) -> Res,
    comm_destroy: unsafe extern "C" fn(RawComm) -> Res,
    all_reduce: RootedFn,
    broadcast: RootedFn,
    all_gather:
        unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, RawComm, *mut c_void) -> Res,
    error_string: unsafe extern "C" fn(Res) -> *const c_char,
}

// SAFETY: the function pointers are plain C entry points, callable from any thread.
unsafe impl Send for Api {}
// SAFETY: as above.
unsafe impl Sync for Api {}

/// Where NCCL is looked for: `CUSCI_NCCL_LIB`, the loader's own search, then the folders where
/// core looks for CUDA's libraries ([`libs::search_dirs`]: the toolkit, the driver folders, the
/// `nvidia/*/lib` folders of NVIDIA's Python wheels, among them nvidia-nccl-cu*'s) and
/// `/usr/local/lib`.
fn candidates() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = Vec::new();
    if let Ok(p) = std::env::var("CUSCI_NCCL_LIB") {
        v.push(PathBuf::from(p));
    }
    v.push(PathBuf::from("libnccl.so.2"));
    v.push(PathBuf::from("libnccl.so"));
    let mut dirs = libs::search_dirs();
    dirs.push(PathBuf::from("/usr/local/lib"));
    for d in dirs {
        for n in ["libnccl.so.2", "libnccl.so"] {
            let p = d.join(n);
            if p.is_file() {
                v.push(p);
            }
        }
    }
    v
}

fn load() -> Option<Api> {
    if std::env::var("CUSCI_DIST_NCCL").is_ok_and(|v| v.trim() == "0") {
        return None;
    }
    for p in candidates() {
        // SAFETY: loading NCCL runs its initialisers, which have no preconditions.
        let Ok(lib) = (unsafe { libloading::Library::new(&p) }) else {
            continue;
        };
        // SAFETY: the symbols are NCCL's public C API with these signatures (nccl.h, NCCL 2.x).
        let api = unsafe {
            (|| -> std::result::Result<Api, libloading::Error> {
                Ok(Api {
                    get_version: *lib.get(b"ncclGetVersion\0")?,
                    get_unique_id: *lib.get(b"ncclGetUniqueId\0")?,
                    comm_init_rank: *lib.get(b"ncclCommInitRank\0")?,
                    comm_destroy: *lib.get(b"ncclCommDestroy\0")?,
                    all_reduce: *lib.get(b"ncclAllReduce\0")?,
                    broadcast: *lib.get(b"ncclBroadcast\0")?,
                    all_gather: *lib.get(b"ncclAllGather\0")?,
                    error_string: *lib.get(b"ncclGetErrorString\0")?,
                    path: p.clone(),
                    _lib: lib,
                })
            })()
        };
        if let Ok(api) = api {
            return Some(api);
        }
    }
    None
}

/// NCCL when it loads (once per process); `None` otherwise or with `CUSCI_DIST_NCCL=0`.
pub(crate) fn api() -> Option<&'static Api> {
    static API: OnceLock<Option<Api>> = OnceLock::new();
    API.get_or_init(load).as_ref()
}

/// NCCL's version (e.g. 22703 for 2.27.3) and the file it was loaded from, when it loads.
pub fn nccl_info() -> Option<(i32, PathBuf)> {
    let a = api()?;
    let mut v: c_int = 0;
    // SAFETY: writes one int.
    let r = unsafe { (a.get_version)(&mut v) };
    (r == 0).then(|| (v, a.path.clone()))
}

impl Api {
    fn check(&self, op: &str, r: Res) -> Result<()> {
        if r == 0 {
            return Ok(());
        }
        // SAFETY: NCCL returns a static string for every result code.
        let msg = unsafe {
            let p = (self.error_string)(r);
            if p.is_null() {
                format!("{r}")
            } else {
                format!("{r} ({})", CStr::from_ptr(p).to_string_lossy())
            }
        };
        Err(Error::Cuda {
            op: op.into(),
            library: "nccl",
            status: msg,
        })
    }

    pub(crate) fn unique_id(&self) -> Result<UniqueId> {
        let mut id = UniqueId { internal: [0; 128] };
        // SAFETY: fills the 128-byte id.
        let r = unsafe { (self.get_unique_id)(&mut id) };
        self.check("ncclGetUniqueId", r)?;
        Ok(id)
    }
}

/// One worker's NCCL communicator (on the device that was current when it was made).
pub(crate) struct Comm {
    api: &'static Api,
    raw: RawComm,
}

// SAFETY: a communicator is used by one worker at a time (it lives behind that worker's mutex).
unsafe impl Send for Comm {}

impl Drop for Comm {
    fn drop(&mut self) {
        // SAFETY: created by ncclCommInitRank, destroyed once.
        unsafe {
            let _ = (self.api.comm_destroy)(self.raw);
        }
    }
}

impl Comm {
    /// Joins communicator `id` as `rank` of `nranks` (the worker's device must be current).
    pub(crate) fn init(
        api: &'static Api,
        id: UniqueId,
        nranks: usize,
        rank: usize,
    ) -> Result<Comm> {
        let mut raw: RawComm = std::ptr::null_mut();
        // SAFETY: every rank calls this with the same id; blocks until all have joined.
        let r = unsafe { (api.comm_init_rank)(&mut raw, nranks as c_int, id, rank as c_int) };
        api.check("ncclCommInitRank", r)?;
        Ok(Comm { api, raw })
    }

    /// In- or out-of-place all-reduce of `count` elements on `stream`.
    ///
    /// # Safety
    /// `send`/`recv` are device buffers of `count` elements of `dt` on the communicator's device.
    pub(crate) unsafe fn all_reduce(
        &self,
        send: u64,
        recv: u64,
        count: usize,
        dt: i32,
        op: i32,
        stream: *mut c_void,
    ) -> Result<()> {
        let f = self.api.all_reduce;
        self.rooted("ncclAllReduce", f, (send, recv, count, dt), op, stream)
    }

    /// # Safety
    /// As [`all_reduce`](Self::all_reduce).
    pub(crate) unsafe fn broadcast(
        &self,
        send: u64,
        recv: u64,
        count: usize,
        dt: i32,
        root: usize,
        stream: *mut c_void,
    ) -> Result<()> {
        let f = self.api.broadcast;
        self.rooted(
            "ncclBroadcast",
            f,
            (send, recv, count, dt),
            root as c_int,
            stream,
        )
    }

    /// The call `f` (`name`) of the [`RootedFn`] form on (send, recv, count, data type), with
    /// `arg` its op or root.
    ///
    /// # Safety
    /// As [`all_reduce`](Self::all_reduce).
    unsafe fn rooted(
        &self,
        name: &str,
        f: RootedFn,
        (send, recv, count, dt): (u64, u64, usize, i32),
        arg: c_int,
        stream: *mut c_void,
    ) -> Result<()> {
        let r = f(
            send as *const c_void,
            recv as *mut c_void,
            count,
            dt,
            arg,
            self.raw,
            stream,
        );
        self.api.check(name, r)
    }

    /// # Safety
    /// `send` holds `count` elements, `recv` `count · nranks`.
    pub(crate) unsafe fn all_gather(
        &self,
        send: u64,
        recv: u64,
        count: usize,
        dt: i32,
        stream: *mut c_void,
    ) -> Result<()> {
        let r = (self.api.all_gather)(
            send as *const c_void,
            recv as *mut c_void,
            count,
            dt,
            self.raw,
            stream,
        );
        self.api.check("ncclAllGather", r)
    }
}
