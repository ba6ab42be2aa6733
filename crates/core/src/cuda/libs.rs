//! Finding and loading CUDA's shared libraries at run time, without ever panicking.
//!
//! cudarc loads each library by name the first time one of its functions is called, and panics when
//! the name cannot be found. cusci probes first: [`probe`] tries the names cudarc will try, then
//! looks in the usual install folders (the toolkit, the driver folder, Python wheels of NVIDIA's
//! libraries, and `CUSCI_CUDA_LIB_DIRS`), and loads what it finds there by full path so that
//! cudarc's later load by name resolves to the same already-loaded library. A library is used only
//! after [`require`] has said it is present.

use crate::error::{Error, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The CUDA libraries cusci may use, by the name cudarc loads them under.
pub const LIBRARIES: [&str; 9] = [
    "cuda", "nvrtc", "cublas", "cublasLt", "curand", "cufft", "cusolver", "cusparse", "nccl",
];

/// Where one library was found.
#[derive(Debug, Clone, PartialEq)]
pub struct LibraryInfo {
    /// cudarc's name of the library (`"cufft"`).
    pub name: &'static str,
    /// The file that was loaded, when found.
    pub path: Option<PathBuf>,
    /// `major.minor.patch` where the library reports it.
    pub version: Option<String>,
}

fn cache() -> &'static Mutex<HashMap<&'static str, Option<PathBuf>>> {
    static C: OnceLock<Mutex<HashMap<&'static str, Option<PathBuf>>>> = OnceLock::new();
    C.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The folders where CUDA's libraries are looked for after the dynamic loader's own search fails,
/// those that exist, in order: `CUSCI_CUDA_LIB_DIRS`, `lib64` and `lib` under `CUDA_PATH`,
/// `CUDA_HOME` and `CUDA_ROOT`, the usual toolkit and driver folders, and the `lib` folder of
/// each package of NVIDIA's Python wheels (`<site-packages>/nvidia/<package>/lib`) in the
/// virtual, conda, user, pyenv, `/usr/local`, `/usr` and `/opt` environments. Other crates that
/// load a CUDA library themselves (dist's NCCL) search the same folders.
pub fn search_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Ok(v) = std::env::var("CUSCI_CUDA_LIB_DIRS") {
        dirs.extend(std::env::split_paths(&v));
    }
    for var in ["CUDA_PATH", "CUDA_HOME", "CUDA_ROOT"] {
        if let Ok(v) = std::env::var(var) {
            dirs.push(Path::new(&v).join("lib64"));
            dirs.push(Path::new(&v).join("lib"));
        }
    }
    for d in [
        "/usr/local/cuda/lib64",
        "/usr/local/cuda/targets/x86_64-linux/lib",
        "/usr/local/cuda/targets/sbsa-linux/lib",
        "/usr/local/nvidia/lib64",
        "/usr/local/nvidia/lib",
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib/wsl/lib",
    ] {
        dirs.push(PathBuf::from(d));
    }
    // NVIDIA's Python wheels (nvidia-cuda-nvrtc, nvidia-cufft, ...) in the usual environments
    let mut site: Vec<PathBuf> = Vec::new();
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Ok(v) = std::env::var(var) {
            site.push(PathBuf::from(v));
        }
    }
    if let Ok(h) = std::env::var("HOME") {
        site.push(Path::new(&h).join(".local"));
        if let Ok(rd) = std::fs::read_dir(Path::new(&h).join(".pyenv").join("versions")) {
            site.extend(rd.flatten().map(|e| e.path()));
        }
    }
    site.push(PathBuf::from("/usr/local"));
    site.push(PathBuf::from("/usr"));
    if let Ok(rd) = std::fs::read_dir("/opt") {
        for e in rd.flatten() {
            site.push(e.path().join(".venv"));
            site.push(e.path());
        }
    }
    for root in site {
        let lib = root.join("lib");
        let Ok(rd) = std::fs::read_dir(&lib) else {
            continue;
        };
        for e in rd.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if !n.starts_with("python3") {
                continue;
            }
            for pk in ["site-packages", "dist-packages"] {
                let nv = e.path().join(pk).join("nvidia");
                let Ok(rd2) = std::fs::read_dir(&nv) else {
                    continue;
                };
                for p in rd2.flatten() {
                    dirs.push(p.path().join("lib"));
                }
            }
        }
    }
    dirs.retain(|d| d.is_dir());
    dirs.dedup();
    dirs
}

/// The file names cudarc tries for `name`, most specific first.
fn candidates(name: &str) -> Vec<String> {
    cudarc::get_lib_name_candidates(name)
}

fn loaded_path(name: &str) -> Option<PathBuf> {
    // the path the dynamic loader chose, read back from the process's mappings
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    let needle = format!("/lib{name}.so");
    maps.lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .find(|p| p.contains(&needle))
        .map(PathBuf::from)
}

fn find_and_load(name: &'static str) -> Option<PathBuf> {
    let names = candidates(name);
    for n in &names {
        // SAFETY: loading a CUDA library runs its initialisers, which have no preconditions.
        if let Ok(lib) = unsafe { libloading::Library::new(n) } {
            let path = loaded_path(name).unwrap_or_else(|| PathBuf::from(n));
            std::mem::forget(lib); // keep it resident for cudarc's own load
            return Some(path);
        }
    }
    for dir in search_dirs() {
        for n in &names {
            let p = dir.join(n);
            if !p.is_file() {
                continue;
            }
            // SAFETY: as above; loading by full path makes the later load by soname find this copy.
            if let Ok(lib) = unsafe { libloading::Library::new(&p) } {
                std::mem::forget(lib);
                return Some(p);
            }
        }
    }
    None
}

/// Looks for `name` (one of [`LIBRARIES`]) once per process; returns where it was loaded from.
pub fn probe(name: &'static str) -> Option<PathBuf> {
    let mut c = cache().lock().unwrap_or_else(|e| e.into_inner());
    c.entry(name).or_insert_with(|| find_and_load(name)).clone()
}

/// `Ok` when `name` is loaded; otherwise the error a user sees, naming what was searched.
pub fn require(name: &'static str) -> Result<()> {
    if probe(name).is_some() {
        Ok(())
    } else {
        Err(Error::CudaUnavailable(format!(
            "lib{name}.so not found (tried {:?} through the dynamic loader and in {:?}; set CUSCI_CUDA_LIB_DIRS to its folder)",
            candidates(name).iter().take(3).collect::<Vec<_>>(),
            search_dirs()
        )))
    }
}

fn fmt_version(v: i32, scale: i32) -> String {
    format!("{}.{}", v / scale, (v % scale) / 10)
}

/// Every library of [`LIBRARIES`]: where it was found and its version, where it reports one.
pub fn report() -> Vec<LibraryInfo> {
    LIBRARIES
        .iter()
        .map(|&name| {
            let path = probe(name);
            // a library without the version symbol must not take the report down (cudarc panics then)
            let version = path
                .as_ref()
                .and_then(|_| std::panic::catch_unwind(|| version_of(name)).ok().flatten());
            LibraryInfo {
                name,
                path,
                version,
            }
        })
        .collect()
}

fn version_of(name: &str) -> Option<String> {
    let mut v: i32 = 0;
    // SAFETY: each call writes one int through a valid pointer; the library was loaded by probe().
    unsafe {
        match name {
            "cuda" => {
                cudarc::driver::sys::cuDriverGetVersion(&mut v)
                    .result()
                    .ok()?;
                Some(fmt_version(v, 1000))
            }
            "nvrtc" => {
                let (mut a, mut b) = (0, 0);
                cudarc::nvrtc::sys::nvrtcVersion(&mut a, &mut b)
                    .result()
                    .ok()?;
                Some(format!("{a}.{b}"))
            }
            "cufft" => {
                cudarc::cufft::sys::cufftGetVersion(&mut v);
                (v > 0).then(|| format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100))
            }
            "curand" => {
                cudarc::curand::sys::curandGetVersion(&mut v);
                (v > 0).then(|| format!("{}.{}.{}", v / 1000, (v / 100) % 10, v % 100))
            }
            "cusolver" => {
                cudarc::cusolver::sys::cusolverGetVersion(&mut v);
                (v > 0).then(|| format!("{}.{}.{}", v / 1000, (v / 100) % 10, v % 100))
            }
            "cublas" => {
                let (mut a, mut b, mut c) = (0, 0, 0);
                use cudarc::cublas::sys::{cublasGetProperty, libraryPropertyType as P};
                cublasGetProperty(P::MAJOR_VERSION, &mut a);
                cublasGetProperty(P::MINOR_VERSION, &mut b);
                cublasGetProperty(P::PATCH_LEVEL, &mut c);
                (a > 0).then(|| format!("{a}.{b}.{c}"))
            }
            "cusparse" => {
                let (mut a, mut b, mut c) = (0, 0, 0);
                use cudarc::cusparse::sys::{cusparseGetProperty, libraryPropertyType as P};
                cusparseGetProperty(P::MAJOR_VERSION, &mut a);
                cusparseGetProperty(P::MINOR_VERSION, &mut b);
                cusparseGetProperty(P::PATCH_LEVEL, &mut c);
                (a > 0).then(|| format!("{a}.{b}.{c}"))
            }
            _ => None,
        }
    }
}
