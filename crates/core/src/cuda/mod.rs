//! The CUDA side of the core: library loading, device memory, NVRTC kernels and their launch.

pub mod kernel;
pub mod libs;
pub mod memory;
