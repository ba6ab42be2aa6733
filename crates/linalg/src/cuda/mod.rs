//! The GPU side: cuBLAS and cuSOLVER handles per device (RAII, in `CudaDevice::extension`),
//! bound to the calling array's stream, and one safe function per vendor call used; the crate's
//! own NVRTC kernels (`kernels`).

pub(crate) mod ffi;
pub(crate) mod kernels;

pub(crate) use ffi::*;
