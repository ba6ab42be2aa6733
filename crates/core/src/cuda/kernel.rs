//! NVRTC kernels: compilation for the device's architecture, the in-memory and on-disk caches, and
//! launching.
//!
//! A kernel module is identified by a key that its caller makes cheap to compute (a static module
//! name, or a generated kernel's specification); its source is produced only on a cache miss.
//! Compiled CUBINs are kept on disk under [`cache_dir()`], named by the SHA-256 of the source, the
//! options, the architecture and the NVRTC version, so a second process compiles nothing.
//! [`compile_count()`] counts the NVRTC compilations of this process; with `CUSCI_LOG_COMPILE=1`
//! each one is also printed to standard error. Shapes are kernel arguments, never compiled in.

use crate::cuda::libs;
use crate::cuda::module::{FnInfo, Module};
use crate::device::CudaDevice;
use crate::error::{Error, Result};
use cudarc::driver::{result as cu, sys};
use cudarc::nvrtc::sys as nv;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

static COMPILES: AtomicUsize = AtomicUsize::new(0);
static DISK_HITS: AtomicUsize = AtomicUsize::new(0);

/// NVRTC compilations performed by this process so far.
pub fn compile_count() -> usize {
    COMPILES.load(Ordering::Relaxed)
}

/// Modules loaded from the on-disk cache by this process so far.
pub fn disk_cache_hits() -> usize {
    DISK_HITS.load(Ordering::Relaxed)
}

/// The on-disk kernel cache: `CUSCI_CACHE_DIR`, else `$XDG_CACHE_HOME/cusci/kernels`, else
/// `~/.cache/cusci/kernels`, else a folder under the system's temporary folder.
pub fn cache_dir() -> PathBuf {
    if let Ok(d) = std::env::var("CUSCI_CACHE_DIR") {
        if !d.is_empty() {
            return PathBuf::from(d);
        }
    }
    if let Ok(d) = std::env::var("XDG_CACHE_HOME") {
        if !d.is_empty() {
            return PathBuf::from(d).join("cusci").join("kernels");
        }
    }
    if let Ok(h) = std::env::var("HOME") {
        if !h.is_empty() {
            return PathBuf::from(h)
                .join(".cache")
                .join("cusci")
                .join("kernels");
        }
    }
    std::env::temp_dir().join("cusci-kernels")
}

/// The common header prepended to every kernel: complex types and the helpers of the built-in
/// element-wise operations.
pub const COMMON_HEADER: &str = include_str!("common.cuh");

/// A kernel ready to launch ([`CudaDevice::launch`]).
#[derive(Clone)]
pub struct Function {
    raw: sys::CUfunction,
    info: Arc<FnInfo>,
    module: Arc<Module>,
}
// SAFETY: see Module.
unsafe impl Send for Function {}
// SAFETY: see Module.
unsafe impl Sync for Function {}

fn nvrtc_version() -> Result<(i32, i32)> {
    let (mut a, mut b) = (0, 0);
    // SAFETY: writes two ints; the library is loaded (require() was called).
    unsafe { nv::nvrtcVersion(&mut a, &mut b) }
        .result()
        .map_err(|e| Error::Cuda {
            op: "nvrtcVersion".into(),
            library: "nvrtc",
            status: format!("{:?}", e.0),
        })?;
    Ok((a, b))
}

/// What NVRTC should hand back.
#[derive(Clone, Copy, PartialEq)]
enum Output {
    Cubin,
    Ptx,
}

/// Compiles `src` with NVRTC; returns the CUBIN or the PTX, or NVRTC's log as `Error::Compile`.
fn nvrtc_compile(name: &str, src: &str, opts: &[String], output: Output) -> Result<Vec<u8>> {
    let csrc = CString::new(src).map_err(|_| Error::arg(name, "kernel source holds a NUL byte"))?;
    let cname = CString::new(format!("{name}.cu")).unwrap_or_default();
    let nverr = |what: &str, e: nv::nvrtcResult| Error::Cuda {
        op: format!("{what} ({name})"),
        library: "nvrtc",
        status: format!("{e:?}"),
    };
    let mut prog: nv::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: the strings outlive the program, which is destroyed below on every path.
    unsafe {
        let r = nv::nvrtcCreateProgram(
            &mut prog,
            csrc.as_ptr(),
            cname.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        );
        if r != nv::nvrtcResult::NVRTC_SUCCESS {
            return Err(nverr("nvrtcCreateProgram", r));
        }
        let copts: Vec<CString> = opts
            .iter()
            .map(|o| CString::new(o.as_str()).unwrap_or_default())
            .collect();
        let ptrs: Vec<*const std::ffi::c_char> = copts.iter().map(|c| c.as_ptr()).collect();
        let r = nv::nvrtcCompileProgram(prog, ptrs.len() as i32, ptrs.as_ptr());
        let out = if r != nv::nvrtcResult::NVRTC_SUCCESS {
            let mut n = 0usize;
            nv::nvrtcGetProgramLogSize(prog, &mut n);
            let mut log = vec![0u8; n.max(1)];
            nv::nvrtcGetProgramLog(prog, log.as_mut_ptr() as *mut _);
            let log = String::from_utf8_lossy(&log)
                .trim_end_matches('\0')
                .to_string();
            Err(Error::Compile {
                name: name.to_string(),
                log,
            })
        } else {
            let mut n = 0usize;
            let (size_fn, size_name) = match output {
                Output::Cubin => (nv::nvrtcGetCUBINSize(prog, &mut n), "nvrtcGetCUBINSize"),
                Output::Ptx => (nv::nvrtcGetPTXSize(prog, &mut n), "nvrtcGetPTXSize"),
            };
            if size_fn != nv::nvrtcResult::NVRTC_SUCCESS {
                Err(nverr(size_name, size_fn))
            } else {
                let mut bin = vec![0u8; n];
                let r = match output {
                    Output::Cubin => nv::nvrtcGetCUBIN(prog, bin.as_mut_ptr() as *mut _),
                    Output::Ptx => nv::nvrtcGetPTX(prog, bin.as_mut_ptr() as *mut _),
                };
                if r != nv::nvrtcResult::NVRTC_SUCCESS {
                    Err(nverr("nvrtcGet output", r))
                } else {
                    Ok(bin)
                }
            }
        };
        nv::nvrtcDestroyProgram(&mut prog);
        out
    }
}

/// Compiles `source` (with the common header) to PTX for `arch` (e.g. `compute_90`) without a
/// device: a check that kernels compile, usable on machines with NVRTC but no GPU.
///
/// # Errors
/// `CudaUnavailable` when NVRTC cannot be loaded; `Compile` with NVRTC's log.
pub fn check_compiles(name: &str, source: &str, options: &[&str], arch: &str) -> Result<()> {
    libs::require("nvrtc")?;
    let src = format!("{COMMON_HEADER}\n{source}");
    let mut opts: Vec<String> = vec![
        format!("--gpu-architecture={arch}"),
        "--std=c++17".into(),
        "--device-as-default-execution-space".into(),
    ];
    opts.extend(options.iter().map(|s| s.to_string()));
    nvrtc_compile(name, &src, &opts, Output::Ptx).map(|_| ())
}

impl CudaDevice {
    /// The kernel `name` of the module identified by `key`, compiling `source()` with `options` on
    /// the first use on this device (or loading it from the disk cache).
    ///
    /// `key` must identify the source and options uniquely within the process (a static module
    /// name, or a generated kernel's full specification). The common header is prepended to the
    /// source. Prefer a crate's [`KernelModule`](crate::cuda::launch::KernelModule), which
    /// builds the key.
    pub fn function(
        &self,
        key: &str,
        source: impl FnOnce() -> String,
        options: &[&str],
        name: &str,
    ) -> Result<Function> {
        self.function_try(key, || Ok(source()), options, name)
    }

    /// [`function`](Self::function) with a source builder that can fail (its error is returned
    /// and nothing is compiled).
    pub(crate) fn function_try(
        &self,
        key: &str,
        source: impl FnOnce() -> Result<String>,
        options: &[&str],
        name: &str,
    ) -> Result<Function> {
        let module = self.module(key, source, options)?;
        let mut fns = module.functions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(info) = fns.get(name) {
            return Ok(Function {
                raw: info.raw,
                info: info.clone(),
                module: module.clone(),
            });
        }
        let cname = CString::new(name).map_err(|_| Error::arg("function", "NUL in name"))?;
        // SAFETY: the module is loaded and alive.
        let f =
            unsafe { cu::module::get_function(module.raw, cname) }.map_err(|e| Error::Cuda {
                op: format!("cuModuleGetFunction({name})"),
                library: "driver",
                status: format!("{:?}", e.0),
            })?;
        let info = Arc::new(FnInfo {
            raw: f,
            name: name.to_string(),
            params: param_sizes(f),
        });
        fns.insert(name.to_string(), info.clone());
        Ok(Function {
            raw: f,
            info,
            module: module.clone(),
        })
    }

    fn module(
        &self,
        key: &str,
        source: impl FnOnce() -> Result<String>,
        options: &[&str],
    ) -> Result<Arc<Module>> {
        let cache = &self.shared.kernels;
        if let Some(m) = cache
            .modules
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
        {
            return Ok(m.clone());
        }
        // compile without holding the lock, so that other threads' kernels compile alongside;
        // a module compiled twice by a race is loaded once (the first insert wins)
        libs::require("nvrtc")?;
        self.bind()?;
        let src = format!("{COMMON_HEADER}\n{}", source()?);
        let mut opts: Vec<String> = vec![
            format!("--gpu-architecture={}", cache.arch),
            "--std=c++17".into(),
            "--ftz=false".into(),
            "--prec-div=true".into(),
            "--prec-sqrt=true".into(),
            "--device-as-default-execution-space".into(),
        ];
        opts.extend(options.iter().map(|s| s.to_string()));
        let (va, vb) = nvrtc_version()?;
        let mut h = Sha256::new();
        h.update(src.as_bytes());
        for o in &opts {
            h.update([0u8]);
            h.update(o.as_bytes());
        }
        h.update(format!("|nvrtc {va}.{vb}|{}", cache.arch).as_bytes());
        let digest: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        let dir = cache_dir();
        let file = dir.join(format!("{digest}.cubin"));
        let short = key
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .next()
            .unwrap_or("kernel");
        let cubin = match std::fs::read(&file) {
            Ok(b) if !b.is_empty() => {
                DISK_HITS.fetch_add(1, Ordering::Relaxed);
                b
            }
            _ => {
                COMPILES.fetch_add(1, Ordering::Relaxed);
                if std::env::var_os("CUSCI_LOG_COMPILE").is_some() {
                    eprintln!(
                        "cusci: compiling kernel module {short} ({digest:.12}) for {}",
                        cache.arch
                    );
                }
                let b = nvrtc_compile(short, &src, &opts, Output::Cubin)?;
                // best effort: a read-only cache folder only costs recompilation
                if std::fs::create_dir_all(&dir).is_ok() {
                    let tmp = dir.join(format!(
                        "{digest}.{}.{:?}.tmp",
                        std::process::id(),
                        std::thread::current().id()
                    ));
                    if std::fs::write(&tmp, &b).is_ok() && std::fs::rename(&tmp, &file).is_err() {
                        let _ = std::fs::remove_file(&tmp);
                    }
                }
                b
            }
        };
        // SAFETY: the image is a CUBIN produced by NVRTC for this device's architecture.
        let raw =
            unsafe { cu::module::load_data(cubin.as_ptr() as *const c_void) }.map_err(|e| {
                Error::Cuda {
                    op: format!("cuModuleLoadData({short})"),
                    library: "driver",
                    status: format!("{:?}", e.0),
                }
            })?;
        let m = Arc::new(Module {
            raw,
            functions: Mutex::new(HashMap::new()),
            occupancy: Mutex::new(HashMap::new()),
            smem_allowed: Mutex::new(HashMap::new()),
            ctx: self.shared.ctx.clone(),
        });
        let mut mods = cache.modules.lock().unwrap_or_else(|e| e.into_inner());
        Ok(mods.entry(key.to_string()).or_insert(m).clone())
    }

    /// Forgets this device's loaded modules (the disk cache stays). Kernels in flight keep theirs.
    pub fn clear_kernel_cache(&self) {
        self.shared
            .kernels
            .modules
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}

/// Each parameter's size in bytes (`cuFuncGetParamInfo`, CUDA 12.4 and later); `None` where the
/// driver lacks the call.
fn param_sizes(f: sys::CUfunction) -> Option<Vec<usize>> {
    // SAFETY: the driver library is loaded (a device exists); looking a symbol up has no effect.
    let present = unsafe {
        sys::culib()
            .get::<*const c_void>(b"cuFuncGetParamInfo\0")
            .is_ok()
    };
    if !present {
        return None;
    }
    let mut sizes = Vec::new();
    loop {
        let (mut off, mut size) = (0usize, 0usize);
        // SAFETY: the function handle is alive; the call writes two integers.
        let r = unsafe { sys::cuFuncGetParamInfo(f, sizes.len(), &mut off, &mut size) };
        match r {
            sys::CUresult::CUDA_SUCCESS => sizes.push(size),
            sys::CUresult::CUDA_ERROR_INVALID_VALUE => return Some(sizes),
            _ => return None,
        }
        if sizes.len() > 4096 {
            return None;
        }
    }
}

/// Kernel arguments, packed by value in launch order: one 8-byte aligned buffer (each value
/// at a multiple of 8 bytes) and each value's offset in it, so that a launch allocates little.
pub struct Args {
    buf: Vec<u64>,
    offs: Vec<usize>,
}

impl Default for Args {
    fn default() -> Args {
        Args::new()
    }
}

impl Args {
    /// No arguments yet.
    pub fn new() -> Args {
        Args {
            buf: Vec::with_capacity(64),
            offs: Vec::with_capacity(24),
        }
    }
    /// Appends a plain-data value (a scalar, a device pointer as u64, a `#[repr(C)]` struct).
    pub fn push<T: Copy + 'static>(&mut self, v: T) -> &mut Self {
        let n = std::mem::size_of::<T>().div_ceil(8).max(1);
        let at = self.buf.len();
        self.buf.resize(at + n, 0);
        // SAFETY: buf[at..at + n] holds at least size_of::<T>() bytes, 8-byte aligned (which
        // covers the alignment of the scalars and structs passed); T is Copy data.
        unsafe {
            std::ptr::copy_nonoverlapping(
                &v as *const T as *const u8,
                self.buf.as_mut_ptr().add(at) as *mut u8,
                std::mem::size_of::<T>(),
            )
        };
        self.offs.push(at);
        self
    }
    /// Each value's address, for `cuLaunchKernel` (valid while `self` is neither moved nor
    /// pushed to).
    fn ptrs(&mut self) -> Vec<*mut c_void> {
        let base = self.buf.as_mut_ptr();
        self.offs
            .iter()
            // SAFETY: every offset lies inside buf.
            .map(|&o| unsafe { base.add(o) } as *mut c_void)
            .collect()
    }
}

/// Grid and block of a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    pub grid: (u32, u32, u32),
    pub block: (u32, u32, u32),
    pub shared_mem_bytes: u32,
}

impl LaunchConfig {
    /// A 1-D grid of `blocks` blocks of `threads` threads.
    pub fn linear(blocks: u32, threads: u32) -> LaunchConfig {
        LaunchConfig {
            grid: (blocks.max(1), 1, 1),
            block: (threads, 1, 1),
            shared_mem_bytes: 0,
        }
    }
}

impl Function {
    /// Queues the kernel on `dev`'s stream with packed arguments. Use [`CudaDevice::launch`],
    /// which types and checks the arguments; this is its last step.
    ///
    /// # Safety
    /// The arguments must match the kernel's parameters, and every device address among them
    /// must point to live memory of the device large enough for what the kernel touches, which
    /// stays allocated until the kernel has run (memory freed on the same stream after the
    /// launch is queued qualifies).
    pub unsafe fn launch_raw(
        &self,
        dev: &CudaDevice,
        cfg: LaunchConfig,
        args: &mut Args,
    ) -> Result<()> {
        dev.bind()?;
        self.allow_smem(cfg.shared_mem_bytes as usize)?;
        let mut p = args.ptrs();
        // SAFETY: the caller's contract (see the doc).
        unsafe {
            cu::launch_kernel(
                self.raw,
                cfg.grid,
                cfg.block,
                cfg.shared_mem_bytes,
                dev.raw_stream(),
                &mut p,
            )
        }
        .map_err(|e| Error::driver("cuLaunchKernel", e))
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.info.name
    }

    /// Each parameter's size in bytes, where the driver can tell (CUDA 12.4 and later).
    pub fn params(&self) -> Option<&[usize]> {
        self.info.params.as_deref()
    }

    /// Opts the function in to `smem` bytes of dynamic shared memory where that is more than the
    /// 48 KiB every kernel may use (once per function and size; the driver refuses more than
    /// the device has).
    fn allow_smem(&self, smem: usize) -> Result<()> {
        if smem <= 48 * 1024 {
            return Ok(());
        }
        let bytes = i32::try_from(smem).map_err(|_| Error::arg("shared_mem_bytes", "too large"))?;
        let mut allowed = self
            .module
            .smem_allowed
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let cur = allowed.entry(self.raw as usize).or_insert(0);
        if *cur < bytes as u32 {
            // SAFETY: the function handle is alive; the attribute is an int.
            unsafe {
                sys::cuFuncSetAttribute(
                    self.raw,
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    bytes,
                )
            }
            .result()
            .map_err(|e| Error::driver("cuFuncSetAttribute", e))?;
            *cur = bytes as u32;
        }
        Ok(())
    }

    /// Blocks per multiprocessor that can be resident with `threads` threads and `smem` bytes
    /// (the driver's answer, asked once per function and configuration).
    pub fn occupancy(&self, threads: u32, smem: usize) -> Result<u32> {
        self.allow_smem(smem)?;
        let key = (self.raw as usize, threads, smem);
        let mut cache = self
            .module
            .occupancy
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(&v) = cache.get(&key) {
            return Ok(v);
        }
        // SAFETY: the function handle is alive.
        let v = unsafe {
            cu::occupancy::max_active_block_per_multiprocessor(self.raw, threads as i32, smem)
        }
        .map(|v| v.max(1) as u32)
        .map_err(|e| Error::driver("occupancy", e))?;
        cache.insert(key, v);
        Ok(v)
    }
}
