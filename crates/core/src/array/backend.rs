//! The seam between the CPU and the GPU code: an array's data seen as host slices or as a typed
//! device view, matched on once in each operation's front end.
//!
//! ```
//! use cusci_core::Backend;
//! use cusci_core::{Array, Device};
//! let a = Array::<f32>::from_vec(vec![1.0, 2.0, 3.0], &[3], &Device::cpu()).unwrap();
//! let total = match a.backend() {
//!     Backend::Host(h) => h.try_to_contiguous().unwrap().iter().sum::<f32>(),
//!     Backend::Cuda(_) => unreachable!("a CPU array"),
//! };
//! assert_eq!(total, 6.0);
//! ```

use super::{Array, Storage};
use crate::cuda::launch::{DevPtr, DevPtrMut};
use crate::device::CudaDevice;
use crate::dtype::Element;
use crate::error::Result;
use std::borrow::Cow;
use std::sync::Arc;

/// An array's data on the host or on a CUDA device, borrowed from the array
/// ([`Array::backend`]).
pub enum Backend<'a, T: Element> {
    /// A CPU array's elements.
    Host(HostArray<'a, T>),
    /// A CUDA array's device view.
    Cuda(CudaArray<'a, T>),
}

/// A CPU array's elements with its layout.
pub struct HostArray<'a, T: Element> {
    array: &'a Array<T>,
    storage: &'a [T],
}

/// A CUDA array's device view: the array's device handle (its stream), a typed pointer to the
/// element at the layout's offset, and the layout. It borrows the array, so the memory outlives
/// every launch that reads it through this view.
pub struct CudaArray<'a, T: Element> {
    array: &'a Array<T>,
    dev: &'a CudaDevice,
    ptr: DevPtr<'a, T>,
}

/// A uniquely owned, C-contiguous array's data for writing ([`Array::backend_mut`]).
pub enum BackendMut<'a, T: Element> {
    /// A CPU array's elements in C order.
    Host(&'a mut [T]),
    /// A CUDA array's device handle and a typed pointer to its first element (C order).
    Cuda(&'a CudaDevice, DevPtrMut<'a, T>),
}

impl<'a, T: Element> HostArray<'a, T> {
    /// The shape.
    pub fn shape(&self) -> &'a [usize] {
        &self.array.shape
    }
    /// Strides in elements.
    pub fn strides(&self) -> &'a [isize] {
        &self.array.strides
    }
    /// The storage from the layout's offset to its end (index it with the strides).
    pub fn data(&self) -> &'a [T] {
        &self.storage[self.array.offset.min(self.storage.len())..]
    }
    /// The elements in C order when the layout is C-contiguous, else `None`.
    pub fn as_slice(&self) -> Option<&'a [T]> {
        if self.array.is_contiguous() {
            let o = self.array.offset;
            Some(&self.storage[o..o + self.array.size()])
        } else {
            None
        }
    }
    /// The elements in C order: borrowed when contiguous, else gathered.
    ///
    /// # Errors
    /// `OutOfMemory` when the host cannot hold the gathered copy.
    pub fn try_to_contiguous(&self) -> Result<Cow<'a, [T]>> {
        Ok(match self.as_slice() {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(crate::cpu::gather(self.array)?),
        })
    }
    /// The array itself.
    pub fn array(&self) -> &'a Array<T> {
        self.array
    }
}

impl<'a, T: Element> CudaArray<'a, T> {
    /// The device handle (and stream) the array's work runs on.
    pub fn dev(&self) -> &'a CudaDevice {
        self.dev
    }
    /// The typed pointer to the element at the layout's offset, for a kernel launch.
    pub fn ptr(&self) -> DevPtr<'a, T> {
        self.ptr
    }
    /// The shape.
    pub fn shape(&self) -> &'a [usize] {
        &self.array.shape
    }
    /// Strides in elements.
    pub fn strides(&self) -> &'a [isize] {
        &self.array.strides
    }
    /// True when the layout is C-contiguous.
    pub fn is_contiguous(&self) -> bool {
        self.array.is_contiguous()
    }
    /// The array itself.
    pub fn array(&self) -> &'a Array<T> {
        self.array
    }
}

impl<T: Element> Array<T> {
    /// The array's data as host slices or as a device view: the one place an operation matches
    /// on the device. See the [module documentation](self).
    pub fn backend(&self) -> Backend<'_, T> {
        match &*self.storage {
            Storage::Cpu(v) => Backend::Host(HostArray {
                array: self,
                storage: v,
            }),
            Storage::Cuda(b) => {
                let dev = self.device.as_cuda().unwrap_or(&b.dev);
                let elem = std::mem::size_of::<T>();
                let len = (b.bytes / elem).saturating_sub(self.offset);
                let addr = if b.bytes == 0 {
                    0
                } else {
                    b.ptr + (self.offset * elem) as u64
                };
                Backend::Cuda(CudaArray {
                    array: self,
                    dev,
                    ptr: DevPtr::new(addr, len),
                })
            }
        }
    }

    /// The typed device pointer of a CUDA array's element at its offset (for a kernel that reads
    /// it), borrowing the array.
    ///
    /// # Errors
    /// `InvalidArgument` for a CPU array.
    pub fn dev_ptr(&self) -> Result<DevPtr<'_, T>> {
        match self.backend() {
            Backend::Cuda(c) => Ok(c.ptr()),
            Backend::Host(_) => Err(crate::error::Error::arg(
                "dev_ptr",
                "the array is not on a CUDA device",
            )),
        }
    }

    /// The data for writing: the storage is first made this array's alone and C-contiguous
    /// (copy-on-write, so that no other array sees the writes).
    ///
    /// # Errors
    /// `OutOfMemory` when the copy cannot be allocated.
    pub fn backend_mut(&mut self) -> Result<BackendMut<'_, T>> {
        self.make_unique()?;
        let n = self.size();
        let off = self.offset;
        let elem = std::mem::size_of::<T>();
        let device = &self.device;
        match Arc::get_mut(&mut self.storage) {
            Some(Storage::Cpu(v)) => Ok(BackendMut::Host(&mut v[off..off + n])),
            Some(Storage::Cuda(b)) => {
                let addr = if b.bytes == 0 {
                    0
                } else {
                    b.ptr + (off * elem) as u64
                };
                let cd = device.as_cuda().unwrap_or(&b.dev);
                Ok(BackendMut::Cuda(cd, DevPtrMut::new(addr, n)))
            }
            None => unreachable!("make_unique gives unique storage"),
        }
    }

    /// The typed device pointer of a CUDA array for a kernel that writes it: the storage is made
    /// this array's alone and C-contiguous first (copy-on-write).
    ///
    /// # Errors
    /// `InvalidArgument` for a CPU array; `OutOfMemory` when the copy cannot be allocated.
    pub fn dev_ptr_mut(&mut self) -> Result<DevPtrMut<'_, T>> {
        match self.backend_mut()? {
            BackendMut::Cuda(_, p) => Ok(p),
            BackendMut::Host(_) => Err(crate::error::Error::arg(
                "dev_ptr_mut",
                "the array is not on a CUDA device",
            )),
        }
    }
}
