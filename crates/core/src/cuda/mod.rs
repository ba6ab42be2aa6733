//! The CUDA side of the core: library loading, device memory, NVRTC kernels and the one launch
//! path (typed arguments, the kernel-module registry, launch grids).

pub mod kernel;
pub mod launch;
pub mod libs;
pub mod memory;
pub(crate) mod module;
