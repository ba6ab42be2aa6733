//! Every NVRTC kernel of the waveform and peak modules compiles for sm_90 (checked without a
//! GPU wherever NVRTC loads; skipped with a note where it does not).

use cusci_core::cuda::kernel::check_compiles;
use cusci_core::cuda::libs;

#[test]
fn analysis_kernels_compile() {
    if libs::probe("nvrtc").is_none() {
        if std::env::var("CUSCI_REQUIRE_GPU").as_deref() == Ok("1") {
            panic!("CUSCI_REQUIRE_GPU=1 but NVRTC does not load");
        }
        eprintln!("note: NVRTC not found: kernel compile checks skipped");
        return;
    }
    let srcs = cusci_signal::analysis_kernel_sources();
    assert!(!srcs.is_empty());
    let failed: Vec<String> = srcs
        .iter()
        .filter_map(|(n, s)| {
            check_compiles(n, s, &[], "compute_90")
                .err()
                .map(|e| format!("{n}: {e}"))
        })
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} failed:\n{}",
        failed.len(),
        srcs.len(),
        failed.join("\n")
    );
}
