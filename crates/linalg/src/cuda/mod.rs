//! The GPU side: cuBLAS and cuSOLVER handles per device (RAII, in `CudaDevice::extension`),
//! bound to the calling array's stream, and one safe function per vendor call used.

pub(crate) mod ffi;

pub(crate) use ffi::*;
