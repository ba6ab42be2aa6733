//! # cusci
//!
//! SciPy's fft, linalg, signal, sparse and ndimage for Rust, on NVIDIA GPUs (through CUDA's own
//! libraries and NVRTC kernels) and on the CPU (a rayon reference that checks the GPU and serves
//! machines without one). This crate re-exports every cusci crate.

pub use cusci_core as core;
pub use cusci_core::{c32, c64, Array, DType, Device, Error, Result};
pub use cusci_dist as dist;
pub use cusci_fft as fft;
pub use cusci_linalg as linalg;
pub use cusci_ndimage as ndimage;
pub use cusci_signal as signal;
pub use cusci_sparse as sparse;
#[cfg(feature = "pipeline")]
pub mod pipeline;
