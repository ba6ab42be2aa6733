//! `cusci info`: the devices, the CUDA libraries, NVRTC and the kernel cache.
//!
//! Everything that touches CUDA is guarded: a missing driver or library is reported as such, and
//! even a panic inside a library probe becomes a line of output, so `info` never fails.

use cusci::core::cuda::{kernel, libs};
use cusci::core::CudaDevice;
use cusci::Device;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::process::ExitCode;

/// Runs `f`, turning a panic into `None` (the panic message still goes to standard error).
pub fn guarded<T>(f: impl FnOnce() -> T) -> Option<T> {
    catch_unwind(AssertUnwindSafe(f)).ok()
}

/// `bytes` in GiB with one decimal.
pub fn gib(bytes: usize) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}

/// One line per CUDA device, or the reason there is none.
fn devices() {
    let count = guarded(Device::cuda_count).unwrap_or(0);
    if count == 0 {
        let why = match guarded(|| libs::probe("cuda")) {
            Some(None) => {
                "the NVIDIA driver library (libcuda.so) was not found; cusci runs on the CPU"
                    .to_string()
            }
            Some(Some(p)) => format!(
                "the driver ({}) reports no usable CUDA device; cusci runs on the CPU",
                p.display()
            ),
            None => "probing the CUDA driver failed; cusci runs on the CPU".to_string(),
        };
        println!("  no GPU: {why}");
        return;
    }
    for i in 0..count {
        match guarded(|| CudaDevice::get(i)) {
            Some(Ok(d)) => {
                let p = d.props();
                let (ma, mi) = p.compute_capability;
                let mem = match guarded(|| d.memory_info()) {
                    Some(Ok(m)) => format!("{} ({} free)", gib(m.total), gib(m.free)),
                    _ => gib(p.total_memory),
                };
                println!(
                    "  cuda:{i}  {}  compute capability {ma}.{mi} (sm_{ma}{mi})  {} SMs  {mem}  \
                     driver CUDA {}",
                    p.name, p.multiprocessors, p.driver_version
                );
            }
            Some(Err(e)) => println!("  cuda:{i}  cannot be opened: {e}"),
            None => println!("  cuda:{i}  opening it failed unexpectedly"),
        }
    }
}

/// Files directly in `dir` (None when it cannot be read).
fn count_files(dir: &Path) -> Option<usize> {
    let rd = std::fs::read_dir(dir).ok()?;
    Some(
        rd.flatten()
            .filter(|e| e.file_type().map(|t| t.is_file()).unwrap_or(false))
            .count(),
    )
}

/// Prints the report; always succeeds.
pub fn run() -> ExitCode {
    println!("cusci {}", env!("CARGO_PKG_VERSION"));
    let logical = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    println!("devices:");
    println!(
        "  cpu     {} rayon threads ({logical} logical CPUs)",
        rayon::current_num_threads()
    );
    devices();
    match std::env::var("CUSCI_DEVICE") {
        Ok(v) if !v.trim().is_empty() => println!("  CUSCI_DEVICE={v}"),
        _ => {}
    }
    match guarded(Device::auto) {
        Some(Ok(d)) => println!("  default device: {d}"),
        Some(Err(e)) => println!("  default device: error: {e}"),
        None => println!("  default device: choosing it failed unexpectedly"),
    }

    println!("CUDA libraries:");
    let report = guarded(libs::report).unwrap_or_default();
    if report.is_empty() {
        println!("  probing the libraries failed");
    }
    let mut nvrtc = None;
    for lib in &report {
        match &lib.path {
            Some(path) => {
                let v = lib.version.as_deref().unwrap_or("version unknown");
                println!("  {:<9} {:<16} {}", lib.name, v, path.display());
            }
            None => println!("  {:<9} not found", lib.name),
        }
        if lib.name == "nvrtc" {
            nvrtc = Some(lib.clone());
        }
    }
    if std::env::var_os("CUSCI_CUDA_LIB_DIRS").is_some() {
        println!(
            "  (also searched CUSCI_CUDA_LIB_DIRS={})",
            std::env::var("CUSCI_CUDA_LIB_DIRS").unwrap_or_default()
        );
    }
    match nvrtc {
        Some(l) if l.path.is_some() => println!(
            "NVRTC: {}",
            l.version.as_deref().unwrap_or("found, version unknown")
        ),
        _ => println!("NVRTC: not found (kernels cannot be compiled; the CPU still works)"),
    }

    let dir = kernel::cache_dir();
    match count_files(&dir) {
        Some(n) => println!("kernel cache: {} ({n} files)", dir.display()),
        None => println!("kernel cache: {} (not created yet: 0 files)", dir.display()),
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gib_formats() {
        assert_eq!(gib(3 << 29), "1.5 GiB");
        assert_eq!(gib(0), "0.0 GiB");
    }

    #[test]
    fn guarded_catches_panics() {
        assert_eq!(guarded(|| 3), Some(3));
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let r: Option<()> = guarded(|| panic!("boom"));
        std::panic::set_hook(prev);
        assert_eq!(r, None);
    }

    #[test]
    fn counts_files() {
        let d = std::env::temp_dir().join(format!("cusci-cli-count-{}", std::process::id()));
        std::fs::create_dir_all(d.join("sub")).unwrap();
        std::fs::write(d.join("a.cubin"), b"x").unwrap();
        std::fs::write(d.join("b.cubin"), b"y").unwrap();
        assert_eq!(count_files(&d), Some(2));
        std::fs::remove_dir_all(&d).unwrap();
        assert_eq!(count_files(&d), None);
    }
}
