//! The GPU side: cuBLAS and cuSOLVER handles per device (RAII, in `CudaDevice::extension`),
//! bound to the calling array's stream, and one safe function per vendor call used (`ffi`); the
//! crate's own NVRTC kernels (`kernels`); and the GPU half of each family of functions (`solve`,
//! `decomp`, `eig`, `products`), which the front ends call from their one match on the device.

pub(crate) mod banded;
pub(crate) mod decomp;
pub(crate) mod eig;
pub(crate) mod ffi;
pub(crate) mod kernels;
pub(crate) mod products;
pub(crate) mod solve;

pub(crate) use ffi::*;

use cusci_core::{DevPtr, DevPtrMut, Result};

/// The raw address of element `k` of the buffer behind a typed device pointer, for a vendor
/// library call (cuBLAS, cuSOLVER) that takes one; checked against the buffer's length.
pub(crate) trait Addr {
    /// The address of element `k`.
    fn at(&self, k: usize) -> Result<u64>;
}

impl<T> Addr for DevPtr<'_, T> {
    fn at(&self, k: usize) -> Result<u64> {
        Ok(self.add(k)?.addr())
    }
}

impl<T> Addr for DevPtrMut<'_, T> {
    fn at(&self, k: usize) -> Result<u64> {
        Ok(self.as_ptr().add(k)?.addr())
    }
}
