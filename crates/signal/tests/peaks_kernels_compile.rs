//! Every NVRTC kernel of the waveform and peak modules compiles for sm_90 (checked without a
//! GPU wherever NVRTC loads; skipped with a note where it does not).

use crate::processing_kernels_compile::compile_named;

#[test]
fn analysis_kernels_compile() {
    compile_named(&["signal_peaks", "signal_waveforms"]);
}
