//! The array's data: [`Array`] (storage, shape, strides in elements, offset, device) and its
//! [`Storage`] on the host or a GPU. The methods are in the parent module and its siblings; the
//! CPU and CUDA code that takes an array depends only on this.

use crate::cuda::memory::DeviceBuffer;
use crate::device::Device;
use crate::dtype::Element;
use std::sync::Arc;

pub(crate) enum Storage<T> {
    Cpu(Vec<T>),
    Cuda(DeviceBuffer),
}

/// An n-dimensional array of `T` on a [`Device`]. See the [module documentation](crate::array).
pub struct Array<T: Element> {
    pub(crate) storage: Arc<Storage<T>>,
    pub(crate) shape: Vec<usize>,
    pub(crate) strides: Vec<isize>,
    pub(crate) offset: usize,
    pub(crate) device: Device,
}
