//! Every NVRTC kernel of the resampling, 2-D convolution and filtfilt modules compiles for
//! sm_90, checked without a GPU wherever NVRTC loads; skipped (with a note) where it does not.

use crate::processing_kernels_compile::compile_named;

#[test]
fn resampling_kernels_compile() {
    compile_named(&["signal_resample", "signal_convolve2d", "signal_filtfilt"]);
}
