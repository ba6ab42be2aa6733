//! Every NVRTC kernel module of the crate compiles for sm_90, checked without a GPU wherever
//! NVRTC loads (skipped with a note where it does not): the processing modules here (filtering,
//! convolution, medfilt), the others in their own test modules through [`compile_named`].

use cusci_core::testing::compile_modules;

/// Every module of `cusci_signal::kernel_modules()`, by name.
const ALL: [&str; 19] = [
    "signal_axisfir",
    "signal_convolve",
    "signal_convolve2d",
    "signal_envelope",
    "signal_filtfilt",
    "signal_hilbert",
    "signal_iir",
    "signal_lsim",
    "signal_medfilt",
    "signal_oaconv",
    "signal_peaks",
    "signal_rankfilt",
    "signal_resample",
    "signal_shortfft",
    "signal_spectral",
    "signal_splines",
    "signal_waveforms",
    "signal_wavelets",
    "signal_whittaker",
];

/// Compiles every sample specialisation of the crate's kernel modules named `names`.
pub(crate) fn compile_named(names: &[&str]) {
    let mods: Vec<_> = cusci_signal::kernel_modules()
        .into_iter()
        .filter(|m| names.contains(&m.name))
        .collect();
    assert_eq!(
        mods.len(),
        names.len(),
        "not every module of {names:?} is registered"
    );
    let Some(failed) = compile_modules(&mods, "compute_90") else {
        return;
    };
    assert!(
        failed.is_empty(),
        "{} failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

/// The registry lists each module once, and every module is compile-checked by one of the
/// tests (`ALL` is the union of their lists).
#[test]
fn registry_lists_every_module_once() {
    let mut names: Vec<&str> = cusci_signal::kernel_modules()
        .iter()
        .map(|m| m.name)
        .collect();
    names.sort_unstable();
    assert_eq!(names, ALL);
}

#[test]
fn processing_kernels_compile() {
    compile_named(&[
        "signal_iir",
        "signal_convolve",
        "signal_medfilt",
        "signal_axisfir",
        "signal_rankfilt",
        "signal_hilbert",
        "signal_whittaker",
    ]);
}
