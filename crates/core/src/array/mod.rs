//! [`Array<T>`]: an n-dimensional array on the CPU or on a CUDA device.
//!
//! An array is shared storage plus a layout (shape, strides in elements, offset). Views —
//! slices, transposes, broadcasts, reshapes of contiguous data — share storage and copy nothing.
//! Writing into an array whose storage is shared with another array first gives it storage of
//! its own (copy-on-write), so a write never changes another array. Work on a CUDA array is
//! queued on the stream of the array's device handle; only functions that return host data wait.

pub mod backend;
mod data;
mod interop;
pub mod layout;

pub(crate) use crate::device::device_mismatch;
pub use crate::device::{check_same_device, same_device};
pub use data::Array;
pub(crate) use data::Storage;

use crate::cuda::memory::DeviceBuffer;
use crate::device::{CudaDevice, Device};
use crate::dtype::{c64, DType, Element, Numeric, RealFloat};
use crate::error::{Error, Result};
use layout::*;
use std::fmt;
use std::sync::Arc;

impl<T: Element> Clone for Array<T> {
    /// A new handle to the same data (no copy; use [`Array::copy`] for one).
    fn clone(&self) -> Self {
        Array {
            storage: self.storage.clone(),
            shape: self.shape.clone(),
            strides: self.strides.clone(),
            offset: self.offset,
            device: self.device.clone(),
        }
    }
}

impl<T: Element> fmt::Debug for Array<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Array<{}>(shape={:?}, strides={:?}, offset={}, device={})",
            T::DTYPE,
            self.shape,
            self.strides,
            self.offset,
            self.device
        )
    }
}

impl<T: Element> Array<T> {
    // ---------- construction ----------

    pub(crate) fn from_storage(storage: Storage<T>, shape: Vec<usize>, device: Device) -> Self {
        let strides = c_strides(&shape);
        Array {
            storage: Arc::new(storage),
            shape,
            strides,
            offset: 0,
            device,
        }
    }

    /// Uninitialised contiguous storage for `shape` on `dev` (zeros on the CPU). Internal: every
    /// caller writes all elements before the array is read.
    pub(crate) fn alloc(op: &str, shape: &[usize], dev: &Device) -> Result<Self> {
        let n = checked_shape(op, shape, std::mem::size_of::<T>())?;
        let storage = match dev {
            Device::Cpu => Storage::Cpu(crate::host::try_vec_zeroed(op, n)?),
            Device::Cuda(d) => Storage::Cuda(DeviceBuffer::alloc(d, n * std::mem::size_of::<T>())?),
        };
        Ok(Self::from_storage(storage, shape.to_vec(), dev.clone()))
    }

    /// An array that owns `data` (C order) with `shape`, on `dev` (copied there).
    ///
    /// # Errors
    /// `ShapeMismatch` when `data.len()` is not the product of `shape`.
    pub fn from_vec(data: Vec<T>, shape: &[usize], dev: &Device) -> Result<Self> {
        let n = checked_shape("from_vec", shape, std::mem::size_of::<T>())?;
        if n != data.len() {
            return Err(Error::shape(
                "from_vec",
                format!("{} elements cannot have shape {shape:?}", data.len()),
            ));
        }
        match dev {
            Device::Cpu => Ok(Self::from_storage(
                Storage::Cpu(data),
                shape.to_vec(),
                Device::Cpu,
            )),
            Device::Cuda(d) => Self::upload(&data, shape, d),
        }
    }

    /// Copies `data` (C order) into a new array of `shape` on `dev`.
    pub fn from_slice(data: &[T], shape: &[usize], dev: &Device) -> Result<Self> {
        match dev {
            Device::Cpu => Self::from_vec(crate::host::try_to_vec("from_slice", data)?, shape, dev),
            Device::Cuda(d) => {
                let n = checked_numel("from_slice", shape)?;
                if n != data.len() {
                    return Err(Error::shape(
                        "from_slice",
                        format!("{} elements cannot have shape {shape:?}", data.len()),
                    ));
                }
                Self::upload(data, shape, d)
            }
        }
    }

    fn upload(data: &[T], shape: &[usize], d: &CudaDevice) -> Result<Self> {
        let buf = DeviceBuffer::alloc(d, std::mem::size_of_val(data))?;
        // SAFETY: T is plain data (sealed Element types); viewing it as bytes is sound.
        let bytes = unsafe {
            std::slice::from_raw_parts(data.as_ptr() as *const u8, std::mem::size_of_val(data))
        };
        buf.upload_sync(bytes)?;
        Ok(Self::from_storage(
            Storage::Cuda(buf),
            shape.to_vec(),
            Device::Cuda(d.clone()),
        ))
    }

    /// A 0-d array holding `v`.
    pub fn scalar(v: T, dev: &Device) -> Result<Self> {
        Self::from_vec(vec![v], &[], dev)
    }

    /// An array of `shape` filled with `v`.
    ///
    /// # Errors
    /// `InvalidArgument` when the shape's element or byte count passes `isize::MAX`,
    /// `OutOfMemory` when the device (or the host, for the CPU) cannot hold it.
    pub fn full(shape: &[usize], v: T, dev: &Device) -> Result<Self> {
        match dev {
            Device::Cpu => {
                let n = checked_shape("full", shape, std::mem::size_of::<T>())?;
                Self::from_vec(crate::host::try_vec_filled("full", n, v)?, shape, dev)
            }
            Device::Cuda(_) => {
                let mut out = Self::alloc("full", shape, dev)?;
                out.fill(v)?;
                Ok(out)
            }
        }
    }

    /// An array of zeros.
    ///
    /// # Errors
    /// As [`full`](Self::full).
    pub fn zeros(shape: &[usize], dev: &Device) -> Result<Self> {
        match dev {
            Device::Cpu => Self::alloc("zeros", shape, dev),
            Device::Cuda(_) => Self::full(shape, T::zero(), dev),
        }
    }

    /// An array whose contents are unspecified (NumPy's and CuPy's `empty`): on a GPU, memory
    /// from the stream-ordered pool with no fill pass, for outputs that a kernel or library call
    /// overwrites completely; on the CPU, zeros. `bool` arrays are zero-filled on every device
    /// (an arbitrary byte is not a valid `bool`).
    ///
    /// # Errors
    /// `InvalidArgument` when the element count overflows, `OutOfMemory` when the device is full.
    ///
    /// ```
    /// use cusci_core::{Array, Device};
    /// let a = Array::<f32>::empty(&[2, 3], &Device::cpu()).unwrap();
    /// assert_eq!(a.shape(), &[2, 3]);
    /// ```
    pub fn empty(shape: &[usize], dev: &Device) -> Result<Self> {
        if T::DTYPE == crate::dtype::DType::Bool {
            return Self::zeros(shape, dev);
        }
        Self::alloc("empty", shape, dev)
    }

    /// An array of ones.
    ///
    /// # Errors
    /// As [`full`](Self::full).
    pub fn ones(shape: &[usize], dev: &Device) -> Result<Self> {
        Self::full(shape, T::one(), dev)
    }

    /// An array with the shape and device of `self`, filled with zeros.
    pub fn zeros_like(&self) -> Result<Self> {
        Self::zeros(&self.shape, &self.device)
    }

    /// `n × m` array with ones on diagonal `k` (NumPy's `eye(N, M, k)`).
    ///
    /// # Errors
    /// As [`full`](Self::full) for the shape `[n, m]`.
    pub fn eye(n: usize, m: Option<usize>, k: isize, dev: &Device) -> Result<Self> {
        let m = m.unwrap_or(n);
        let nm = checked_shape("eye", &[n, m], std::mem::size_of::<T>())?;
        let mut v: Vec<T> = crate::host::try_vec_zeroed("eye", nm)?;
        if nm > 0 {
            // rows i with 0 <= i + k < m, in 128 bits (no wrap for any n, m, k)
            let lo = (-(k as i128)).max(0);
            let hi = (n as i128).min(m as i128 - k as i128);
            for i in lo..hi.max(lo) {
                let (i, j) = (i as usize, (i + k as i128) as usize);
                v[i * m + j] = T::one();
            }
        }
        Self::from_vec(v, &[n, m], dev)
    }

    /// Wraps an `ndarray` array (copied, in C order) onto `dev`.
    pub fn from_ndarray<D: ndarray::Dimension>(
        a: &ndarray::ArrayBase<impl ndarray::Data<Elem = T>, D>,
        dev: &Device,
    ) -> Result<Self> {
        let shape = a.shape().to_vec();
        let data = crate::host::try_collect("from_ndarray", a.len(), a.iter().copied())?;
        Self::from_vec(data, &shape, dev)
    }

    /// The data as an `ndarray::ArrayD` on the host (waits for the device).
    pub fn to_ndarray(&self) -> Result<ndarray::ArrayD<T>> {
        let v = self.to_vec()?;
        ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&self.shape), v)
            .map_err(|e| Error::shape("to_ndarray", e.to_string()))
    }

    // ---------- properties ----------

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// Strides in elements.
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }
    /// Offset of the first element into the storage, in elements.
    pub fn offset(&self) -> usize {
        self.offset
    }
    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
    /// Number of elements.
    pub fn size(&self) -> usize {
        self.shape.iter().product()
    }
    /// Number of elements (alias of [`size`](Self::size)).
    pub fn len(&self) -> usize {
        self.size()
    }
    /// True when the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.size() == 0
    }
    /// The run-time element type.
    pub fn dtype(&self) -> DType {
        T::DTYPE
    }
    /// The device (and, for CUDA, the stream) the array's work runs on.
    pub fn device(&self) -> &Device {
        &self.device
    }
    /// True when the layout is C-contiguous.
    pub fn is_contiguous(&self) -> bool {
        is_c_contiguous(&self.shape, &self.strides)
    }

    /// The same array with its work submitted through `dev` (another stream of the same GPU).
    ///
    /// Ordering between streams is the caller's, as in CUDA and CuPy: make the new stream wait for
    /// the work that produced the data ([`CudaDevice::wait_event`]), and keep the array alive (or
    /// synchronise) until the new stream's work on it is done, since its memory returns to the
    /// pool in the order of the stream it was allocated on.
    ///
    /// # Errors
    /// `DeviceMismatch` when `dev` is another device.
    pub fn on_stream(&self, dev: &Device) -> Result<Self> {
        if !same_device(&self.device, dev) {
            return Err(device_mismatch("on_stream", &self.device, dev));
        }
        let mut a = self.clone();
        a.device = dev.clone();
        Ok(a)
    }

    /// The host data of a CPU array with its layout's offset applied; `None` on a device.
    pub fn cpu_data(&self) -> Option<&[T]> {
        match &*self.storage {
            Storage::Cpu(v) => Some(&v[self.offset.min(v.len())..]),
            Storage::Cuda(_) => None,
        }
    }

    /// Mutable contiguous storage of a CPU array (copy-on-write, contiguous first).
    pub fn cpu_data_mut(&mut self) -> Option<&mut [T]> {
        if !matches!(&*self.storage, Storage::Cpu(_)) {
            return None;
        }
        if !self.is_contiguous() || Arc::get_mut(&mut self.storage).is_none() {
            let c = self.copy().ok()?;
            *self = c;
        }
        let n = self.size();
        let off = self.offset;
        match Arc::get_mut(&mut self.storage) {
            Some(Storage::Cpu(v)) => Some(&mut v[off..off + n]),
            _ => None,
        }
    }

    // ---------- transfers ----------

    /// The elements in C order on the host (waits for the device).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        match &*self.storage {
            Storage::Cpu(v) => {
                if self.is_contiguous() {
                    let n = self.size();
                    return crate::host::try_to_vec("to_vec", &v[self.offset..self.offset + n]);
                }
                crate::cpu::gather(self)
            }
            Storage::Cuda(_) => {
                let c = self.contiguous()?;
                let Storage::Cuda(b) = &*c.storage else {
                    unreachable!("contiguous() keeps the device")
                };
                let n = c.size();
                let mut out: Vec<T> = crate::host::try_vec_zeroed("to_vec", n)?;
                // SAFETY: plain-data elements viewed as bytes for the copy.
                let bytes = unsafe {
                    std::slice::from_raw_parts_mut(
                        out.as_mut_ptr() as *mut u8,
                        n * std::mem::size_of::<T>(),
                    )
                };
                let stream = c
                    .device
                    .as_cuda()
                    .map(|d| d.raw_stream())
                    .unwrap_or(b.dev.raw_stream());
                b.download_sync(c.offset * std::mem::size_of::<T>(), bytes, stream)?;
                Ok(out)
            }
        }
    }

    /// The elements in C order in pinned host memory (waits for the device).
    ///
    /// # Errors
    /// `InvalidArgument` for a CPU array (pinned memory belongs to a GPU's context).
    pub fn to_pinned(&self) -> Result<crate::cuda::memory::PinnedVec<T>> {
        let Device::Cuda(d) = &self.device else {
            return Err(Error::arg(
                "to_pinned",
                "pinned host memory needs a CUDA array",
            ));
        };
        let c = self.contiguous()?;
        let mut out = crate::cuda::memory::PinnedVec::<T>::zeroed(d, c.size())?;
        if let Storage::Cuda(b) = &*c.storage {
            // SAFETY: plain-data elements viewed as bytes for the copy.
            let bytes = unsafe {
                std::slice::from_raw_parts_mut(
                    out.as_mut_ptr() as *mut u8,
                    std::mem::size_of_val(&out[..]),
                )
            };
            b.download_sync(c.offset * std::mem::size_of::<T>(), bytes, d.raw_stream())?;
        }
        Ok(out)
    }

    /// A new array of `shape` on `dev` copied from pinned (or any) host memory.
    pub fn from_pinned(src: &[T], shape: &[usize], dev: &Device) -> Result<Self> {
        Self::from_slice(src, shape, dev)
    }

    /// The single element of a one-element array (any number of dimensions).
    ///
    /// # Errors
    /// `InvalidArgument` when the array does not hold exactly one element.
    pub fn item(&self) -> Result<T> {
        if self.size() != 1 {
            return Err(Error::arg(
                "item",
                format!("an array of shape {:?} is not a single element", self.shape),
            ));
        }
        Ok(self.to_vec()?[0])
    }

    /// The array on `dev` (a new handle to the same data when it is already there).
    pub fn to_device(&self, dev: &Device) -> Result<Self> {
        if same_device(&self.device, dev) {
            return self.on_stream(dev);
        }
        match dev {
            Device::Cpu => Self::from_vec(self.to_vec()?, &self.shape, dev),
            Device::Cuda(d) => {
                if let (Storage::Cpu(v), true) = (&*self.storage, self.is_contiguous()) {
                    let n = self.size();
                    return Self::upload(&v[self.offset..self.offset + n], &self.shape, d);
                }
                Self::from_vec(self.to_vec()?, &self.shape, dev)
            }
        }
    }

    /// A C-contiguous array with the same elements (a new handle when already contiguous).
    pub fn contiguous(&self) -> Result<Self> {
        if self.is_contiguous() {
            return Ok(self.clone());
        }
        self.copy()
    }

    /// A contiguous copy with storage of its own.
    pub fn copy(&self) -> Result<Self> {
        match &self.device {
            Device::Cpu => Self::from_vec(crate::cpu::gather(self)?, &self.shape, &Device::Cpu),
            Device::Cuda(_) => crate::elementwise::cast_cuda::<T, T>(self),
        }
    }

    /// The elements converted to `U` with NumPy's casting rules (see [`crate::dtype`]).
    pub fn astype<U: Element>(&self) -> Result<Array<U>> {
        match &self.device {
            Device::Cpu => crate::cpu::map1(self, |x: T| x.cast::<U>()),
            Device::Cuda(_) => crate::elementwise::cast_cuda::<T, U>(self),
        }
    }

    // ---------- views ----------

    fn view(&self, shape: Vec<usize>, strides: Vec<isize>, offset: usize) -> Self {
        Array {
            storage: self.storage.clone(),
            shape,
            strides,
            offset,
            device: self.device.clone(),
        }
    }

    /// Elements `start..stop` (step `step`) along `axis`, as NumPy's `a[..., start:stop:step, ...]`
    /// with Python's rules for negative and out-of-range bounds; `step` may be negative.
    ///
    /// # Errors
    /// `InvalidArgument` for an axis out of range or `step == 0`.
    pub fn slice_axis(
        &self,
        axis: isize,
        start: Option<isize>,
        stop: Option<isize>,
        step: isize,
    ) -> Result<Self> {
        let ax = norm_axis("slice_axis", axis, self.ndim())?;
        if step == 0 {
            return Err(Error::arg("slice_axis", "slice step cannot be zero"));
        }
        let (s, len) = slice_range(self.shape[ax], start, stop, step);
        let mut shape = self.shape.clone();
        let mut strides = self.strides.clone();
        shape[ax] = len;
        // an empty view keeps offset 0: its offset is never read, and moving it along one axis
        // while another has length 0 would point past the storage (a [0, 2] view sliced to
        // [0, 1] at column 1 had offset 1 into empty storage, and `to_vec` panicked)
        let offset = if shape.contains(&0) {
            0
        } else {
            (self.offset as isize + s as isize * self.strides[ax]) as usize
        };
        // one element or none: the stride is never used (and step * stride may not fit)
        strides[ax] = if len > 1 {
            self.strides[ax].checked_mul(step).ok_or_else(|| {
                Error::arg("slice_axis", format!("step {step} overflows the stride"))
            })?
        } else {
            self.strides[ax]
        };
        Ok(self.view(shape, strides, offset))
    }

    /// The sub-array at index `i` along `axis` (that axis removed); negative `i` counts from the end.
    pub fn index_axis(&self, axis: isize, i: isize) -> Result<Self> {
        let ax = norm_axis("index_axis", axis, self.ndim())?;
        let n = self.shape[ax] as isize;
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n {
            return Err(Error::arg(
                "index_axis",
                format!("index {i} is out of bounds for axis {axis} of length {n}"),
            ));
        }
        let mut shape = self.shape.clone();
        let mut strides = self.strides.clone();
        // as in slice_axis: an empty view does not move its offset
        let offset = if shape.contains(&0) {
            0
        } else {
            (self.offset as isize + j * strides[ax]) as usize
        };
        shape.remove(ax);
        strides.remove(ax);
        Ok(self.view(shape, strides, offset))
    }

    /// The axes in the order `axes` (NumPy's `transpose(axes)`).
    pub fn permute(&self, axes: &[isize]) -> Result<Self> {
        if axes.len() != self.ndim() {
            return Err(Error::arg(
                "permute",
                format!(
                    "axes {axes:?} do not match an array of {} dimensions",
                    self.ndim()
                ),
            ));
        }
        let mut seen = vec![false; self.ndim()];
        let mut shape = Vec::with_capacity(axes.len());
        let mut strides = Vec::with_capacity(axes.len());
        for &a in axes {
            let a = norm_axis("permute", a, self.ndim())?;
            if seen[a] {
                return Err(Error::arg("permute", format!("repeated axis in {axes:?}")));
            }
            seen[a] = true;
            shape.push(self.shape[a]);
            strides.push(self.strides[a]);
        }
        Ok(self.view(shape, strides, self.offset))
    }

    /// The axes reversed (NumPy's `.T`).
    pub fn t(&self) -> Self {
        let mut shape = self.shape.clone();
        let mut strides = self.strides.clone();
        shape.reverse();
        strides.reverse();
        self.view(shape, strides, self.offset)
    }

    /// Axes `a` and `b` exchanged.
    pub fn swapaxes(&self, a: isize, b: isize) -> Result<Self> {
        let a = norm_axis("swapaxes", a, self.ndim())?;
        let b = norm_axis("swapaxes", b, self.ndim())?;
        let mut v = self.clone();
        v.shape.swap(a, b);
        v.strides.swap(a, b);
        Ok(v)
    }

    /// The same elements with a new shape; one entry may be -1 (inferred). A view when the data
    /// is contiguous, else a contiguous copy is made first.
    ///
    /// # Errors
    /// `ShapeMismatch` when the sizes differ, `InvalidArgument` for several -1 or other negatives
    /// and for a shape whose element or byte count passes `isize::MAX` (zero-length axes included).
    pub fn reshape(&self, shape: &[isize]) -> Result<Self> {
        let n = self.size();
        let mut infer = None;
        let mut known = 1usize;
        for (i, &d) in shape.iter().enumerate() {
            if d == -1 {
                if infer.replace(i).is_some() {
                    return Err(Error::arg("reshape", "only one dimension can be -1"));
                }
            } else if d < 0 {
                return Err(Error::arg(
                    "reshape",
                    format!("negative dimension in {shape:?}"),
                ));
            } else {
                known = known.saturating_mul(d as usize);
            }
        }
        let mut new: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
        if let Some(i) = infer {
            if known == 0 || n % known != 0 {
                return Err(Error::shape(
                    "reshape",
                    format!(
                        "cannot reshape {:?} ({n} elements) into {shape:?}",
                        self.shape
                    ),
                ));
            }
            new[i] = n / known;
        }
        // the new shape must fit as an array of T, as every array's (NumPy: "array is too
        // big"): a zero-size array reshaped to (2**62, 0) of f64 passes isize::MAX bytes
        if checked_shape("reshape", &new, std::mem::size_of::<T>())? != n {
            return Err(Error::shape(
                "reshape",
                format!(
                    "cannot reshape {:?} ({n} elements) into {shape:?}",
                    self.shape
                ),
            ));
        }
        let c = self.contiguous()?;
        let strides = c_strides(&new);
        Ok(c.view(new, strides, c.offset))
    }

    /// A 1-D view (or contiguous copy) of all elements.
    pub fn ravel(&self) -> Result<Self> {
        self.reshape(&[-1])
    }

    /// A new axis of length 1 at `axis` (which may be `ndim`, or negative).
    pub fn expand_dims(&self, axis: isize) -> Result<Self> {
        let ax = norm_axis("expand_dims", axis, self.ndim() + 1)?;
        let mut v = self.clone();
        v.shape.insert(ax, 1);
        v.strides.insert(ax, 0);
        Ok(v)
    }

    /// Removes all axes of length 1.
    pub fn squeeze(&self) -> Self {
        let mut v = self.clone();
        let keep: Vec<usize> = (0..self.ndim()).filter(|&d| self.shape[d] != 1).collect();
        v.shape = keep.iter().map(|&d| self.shape[d]).collect();
        v.strides = keep.iter().map(|&d| self.strides[d]).collect();
        v
    }

    /// A read-only view of `shape` that repeats the data along broadcast axes (stride 0).
    ///
    /// # Errors
    /// `ShapeMismatch` when the shape does not broadcast to `shape`; `InvalidArgument` when
    /// `shape`'s element or byte count passes `isize::MAX` (as NumPy's, a view must fit too).
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Self> {
        checked_shape("broadcast_to", shape, std::mem::size_of::<T>())?;
        let strides = broadcast_strides("broadcast_to", &self.shape, &self.strides, shape)?;
        Ok(self.view(shape.to_vec(), strides, self.offset))
    }

    // ---------- writes ----------

    /// Makes the storage this array's alone (copy-on-write) and contiguous.
    pub(crate) fn make_unique(&mut self) -> Result<()> {
        if Arc::get_mut(&mut self.storage).is_none() || !self.is_contiguous() {
            *self = self.copy()?;
        }
        Ok(())
    }

    /// Sets every element to `v`.
    pub fn fill(&mut self, v: T) -> Result<()> {
        self.make_unique()?;
        let n = self.size();
        let off = self.offset;
        match Arc::get_mut(&mut self.storage) {
            Some(Storage::Cpu(data)) => {
                data[off..off + n].iter_mut().for_each(|x| *x = v);
                Ok(())
            }
            Some(Storage::Cuda(_)) => crate::elementwise::fill_cuda(self, v),
            None => unreachable!("make_unique gives unique storage"),
        }
    }

    /// `self[...] = src`, broadcasting `src` to this array's shape (NumPy's `a[...] = b`).
    ///
    /// # Errors
    /// `ShapeMismatch` when `src` does not broadcast to `self`'s shape; `DeviceMismatch` when the
    /// arrays are on different devices.
    pub fn assign(&mut self, src: &Array<T>) -> Result<()> {
        check_same_device("assign", &self.device, &src.device)?;
        let b = src.broadcast_to(&self.shape)?;
        self.make_unique()?;
        match &self.device {
            Device::Cpu => {
                let vals = crate::cpu::gather(&b)?;
                let off = self.offset;
                if let Some(Storage::Cpu(d)) = Arc::get_mut(&mut self.storage) {
                    d[off..off + vals.len()].copy_from_slice(&vals);
                }
                Ok(())
            }
            Device::Cuda(_) => crate::elementwise::assign_cuda(self, &b),
        }
    }
}

impl<T: Numeric> Array<T> {
    /// Values `start, start + step, ...` below `stop` (NumPy's `arange`).
    ///
    /// # Errors
    /// `InvalidArgument` when `step` is 0, the bounds are not finite, or the length does not fit
    /// (`arange(0, 1e300, 1)`: NumPy's "Maximum allowed size exceeded"); `OutOfMemory` when the
    /// device cannot hold it.
    pub fn arange(start: f64, stop: f64, step: f64, dev: &Device) -> Result<Self> {
        if step == 0.0 || !start.is_finite() || !stop.is_finite() || !step.is_finite() {
            return Err(Error::arg(
                "arange",
                format!(
                    "start={start}, stop={stop}, step={step}: step must be non-zero and all finite"
                ),
            ));
        }
        let n = len_from_f64("arange", ((stop - start) / step).ceil())?;
        checked_shape("arange", &[n], std::mem::size_of::<T>())?;
        let v = crate::host::try_collect(
            "arange",
            n,
            (0..n).map(|i| T::from_c64(c64::new(start + i as f64 * step, 0.0))),
        )?;
        Self::from_vec(v, &[n], dev)
    }
}

impl<T: RealFloat> Array<T> {
    /// `num` evenly spaced values from `start` to `stop` (NumPy's `linspace`; `endpoint` includes
    /// `stop`).
    ///
    /// # Errors
    /// `InvalidArgument` when `num` elements do not fit, `OutOfMemory` when the device cannot
    /// hold them.
    pub fn linspace(
        start: f64,
        stop: f64,
        num: usize,
        endpoint: bool,
        dev: &Device,
    ) -> Result<Self> {
        let div = if endpoint { num.saturating_sub(1) } else { num };
        let step = if div > 0 {
            (stop - start) / div as f64
        } else {
            0.0
        };
        checked_shape("linspace", &[num], std::mem::size_of::<T>())?;
        let v = crate::host::try_collect(
            "linspace",
            num,
            (0..num).map(|i| {
                if endpoint && num > 1 && i == num - 1 {
                    T::from_f64(stop)
                } else {
                    T::from_f64(start + i as f64 * step)
                }
            }),
        )?;
        Self::from_vec(v, &[num], dev)
    }
}
