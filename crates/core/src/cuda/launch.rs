//! The one launch path: typed kernel arguments, a launch builder checked against the kernel's
//! parameter list, the kernel-module registry and the launch grids.
//!
//! A kernel reads and writes arrays through [`DevPtr`] and [`DevPtrMut`], which only an array
//! hands out ([`Array::dev_ptr`](crate::Array::dev_ptr),
//! [`Array::dev_ptr_mut`](crate::Array::dev_ptr_mut), [`Array::backend`](crate::Array::backend))
//! and which borrow it until the launch is queued: a pointer to a temporary that is freed before
//! its kernel runs does not compile. Scalars are [`KernelParam`] values (numbers, and `#[repr(C)]`
//! structs that declare themselves plain data).
//!
//! ```no_run
//! # use cusci_core::{Array, Device, LaunchConfig, Result};
//! # use cusci_core::cuda::launch::{KernelModule, Spec};
//! static SCALE: KernelModule = KernelModule {
//!     name: "doc_scale",
//!     source: |_| Ok(r#"extern "C" __global__ void scale(float* x, long long n, float a) {
//!         long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
//!         if (i < n) x[i] *= a; }"#.to_string()),
//!     options: &[],
//!     samples: || vec![Spec::default()],
//! };
//! # fn main() -> Result<()> {
//! let dev = Device::cuda(0)?;
//! let mut x = Array::<f32>::ones(&[1000], &dev)?;
//! let n = x.size();
//! let d = dev.as_cuda().unwrap().clone();
//! let f = SCALE.function(&d, &Spec::default(), "scale")?;
//! d.launch(&f, LaunchConfig::cover(n, 256)?)
//!     .arg(x.dev_ptr_mut()?)
//!     .arg(n as i64)
//!     .arg(2.0f32)
//!     .run()?;
//! # Ok(()) }
//! ```

use super::kernel::{Args, Function, LaunchConfig};
use crate::device::CudaDevice;
use crate::dtype::{c32, c64, DType, Element};
use crate::error::{Error, Result};
use std::marker::PhantomData;

pub use crate::dtype::KernelParam;

macro_rules! plain {
    ($($t:ty),*) => { $(
        // SAFETY: a number; CUDA's type of the same size reads the same bytes.
        unsafe impl KernelParam for $t {}
    )* };
}
plain!(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64, bool, c32, c64);

/// A typed device pointer to elements of `T` that a kernel reads, borrowed from an array: the
/// element at the array's offset, with `len` elements of storage from there.
#[derive(Debug)]
pub struct DevPtr<'a, T> {
    addr: u64,
    len: usize,
    _borrow: PhantomData<&'a [T]>,
}

impl<T> Clone for DevPtr<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for DevPtr<'_, T> {}

/// A typed device pointer to elements of `T` that a kernel writes, borrowed mutably from an
/// array whose storage is its own.
#[derive(Debug)]
pub struct DevPtrMut<'a, T> {
    addr: u64,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

/// The methods [`DevPtr`] and [`DevPtrMut`] share (`$p`: the type, also the name in errors).
macro_rules! dev_ptr_methods {
    ($p:ident) => {
        impl<'a, T> $p<'a, T> {
            pub(crate) fn new(addr: u64, len: usize) -> Self {
                $p {
                    addr,
                    len,
                    _borrow: PhantomData,
                }
            }
            /// Elements of storage from the pointer to the end of the allocation.
            pub fn len(&self) -> usize {
                self.len
            }
            /// True when no element lies behind the pointer.
            pub fn is_empty(&self) -> bool {
                self.len == 0
            }
            /// The pointer `k` elements further (a sub-array of the same storage).
            ///
            /// # Errors
            /// `InvalidArgument` when `k` passes the end of the storage.
            #[allow(clippy::should_implement_trait)] // fallible, so not `ops::Add`
            pub fn add(self, k: usize) -> Result<Self> {
                if k > self.len {
                    return Err(Error::arg(
                        concat!(stringify!($p), "::add"),
                        format!("offset {k} passes the {} elements of storage", self.len),
                    ));
                }
                Ok($p::new(
                    self.addr + (k * std::mem::size_of::<T>()) as u64,
                    self.len - k,
                ))
            }
            /// The same memory seen as elements of `U` (`T` and `U` of the same size).
            ///
            /// # Errors
            /// `InvalidArgument` when the sizes differ.
            pub fn cast<U: Element>(self) -> Result<$p<'a, U>>
            where
                T: Element,
            {
                if std::mem::size_of::<T>() != std::mem::size_of::<U>() {
                    return Err(Error::arg(
                        concat!(stringify!($p), "::cast"),
                        "element sizes differ",
                    ));
                }
                Ok($p::new(self.addr, self.len))
            }
            /// The raw address, for a vendor library call (cuBLAS, cuSPARSE, cuFFT) that takes
            /// one; a kernel launch takes the typed pointer.
            pub fn addr(&self) -> u64 {
                self.addr
            }
            /// The same memory as bytes (for kernels whose parameter type depends on the variant).
            pub fn untyped(self) -> $p<'a, u8> {
                $p::new(self.addr, self.len * std::mem::size_of::<T>())
            }
        }
    };
}
dev_ptr_methods!(DevPtr);
dev_ptr_methods!(DevPtrMut);

impl<T> DevPtr<'_, T> {
    /// A null pointer, for a kernel parameter that the launch's variant never reads.
    pub fn null() -> DevPtr<'static, T> {
        DevPtr::new(0, 0)
    }
}

impl<T> DevPtrMut<'_, T> {
    /// A read-only pointer to the same memory for the same borrow.
    pub fn as_ptr(&self) -> DevPtr<'_, T> {
        DevPtr::new(self.addr, self.len)
    }
}

/// One argument of a [`Launch`]: a [`KernelParam`] by value or a typed device pointer.
pub trait KernelArg<'a> {
    /// Appends the argument's bytes; returns its size in bytes (checked against the kernel's
    /// parameter).
    fn push_to(self, args: &mut Args) -> usize;
}

impl<'a, P: KernelParam> KernelArg<'a> for P {
    fn push_to(self, args: &mut Args) -> usize {
        args.push(self);
        std::mem::size_of::<P>()
    }
}

impl<'a, T> KernelArg<'a> for DevPtr<'a, T> {
    fn push_to(self, args: &mut Args) -> usize {
        args.push(self.addr);
        8
    }
}

impl<'a, T> KernelArg<'a> for DevPtrMut<'a, T> {
    fn push_to(self, args: &mut Args) -> usize {
        args.push(self.addr);
        8
    }
}

impl<'a, 'b: 'a, T> KernelArg<'a> for &'a mut DevPtrMut<'b, T> {
    fn push_to(self, args: &mut Args) -> usize {
        args.push(self.addr);
        8
    }
}

/// An optional array: its pointer, or a null pointer for a kernel that takes none.
impl<'a, T> KernelArg<'a> for Option<DevPtr<'a, T>> {
    fn push_to(self, args: &mut Args) -> usize {
        args.push(self.map_or(0, |p| p.addr));
        8
    }
}

/// An optional output: its pointer, or a null pointer for a kernel that writes none.
impl<'a, T> KernelArg<'a> for Option<DevPtrMut<'a, T>> {
    fn push_to(self, args: &mut Args) -> usize {
        args.push(self.map_or(0, |p| p.addr));
        8
    }
}

/// A kernel launch being assembled ([`CudaDevice::launch`]): arguments in the kernel's parameter
/// order, then [`run`](Launch::run). The arguments borrow what they point to until then.
#[must_use = "a launch does nothing until run()"]
pub struct Launch<'a> {
    dev: &'a CudaDevice,
    f: &'a Function,
    cfg: LaunchConfig,
    args: Args,
    sizes: Vec<usize>,
}

impl<'a> Launch<'a> {
    /// Appends the next argument.
    pub fn arg(mut self, a: impl KernelArg<'a>) -> Self {
        let n = a.push_to(&mut self.args);
        self.sizes.push(n);
        self
    }

    /// Checks the arguments against the kernel's parameter list (their number and each one's
    /// size, where the driver can tell: CUDA 12.4 and later) and queues the kernel on the stream.
    ///
    /// # Errors
    /// `InvalidArgument` for arguments that do not match the kernel's parameters; `Cuda` for a
    /// launch the driver refuses.
    pub fn run(mut self) -> Result<()> {
        if let Some(params) = self.f.params() {
            if params.len() != self.sizes.len()
                || params.iter().zip(&self.sizes).any(|(&p, &s)| p != s)
            {
                return Err(Error::arg(
                    "launch",
                    format!(
                        "kernel {} takes parameters of {:?} bytes, given arguments of {:?}",
                        self.f.name(),
                        params,
                        self.sizes
                    ),
                ));
            }
        }
        // SAFETY: the arguments match the kernel's parameters in number and size (checked above
        // where the driver can tell), every pointer is a typed pointer borrowed from a live
        // array for this launch, and launches queued on the array's stream run before its
        // memory is freed or reused (stream-ordered).
        unsafe { self.f.launch_raw(self.dev, self.cfg, &mut self.args) }
    }
}

impl CudaDevice {
    /// Starts a launch of `f` on this device's stream with `cfg`.
    pub fn launch<'a>(&'a self, f: &'a Function, cfg: LaunchConfig) -> Launch<'a> {
        Launch {
            dev: self,
            f,
            cfg,
            args: Args::new(),
            sizes: Vec::with_capacity(16),
        }
    }

    /// A grid-stride launch over `n` items: blocks of `threads` threads, enough blocks to cover
    /// the items but at most `blocks_per_sm` per multiprocessor (at least one block).
    pub fn grid_stride(&self, n: usize, threads: u32, blocks_per_sm: u32) -> LaunchConfig {
        let cap = (self.props().multiprocessors.max(1) as u64) * blocks_per_sm.max(1) as u64;
        let b = (n as u64).div_ceil(threads.max(1) as u64).clamp(1, cap);
        LaunchConfig::linear(b as u32, threads)
    }
}

impl LaunchConfig {
    /// One thread per item: `ceil(n / threads)` blocks of `threads` (at least one block).
    ///
    /// # Errors
    /// `InvalidArgument` when the grid would pass 2^31 - 1 blocks.
    pub fn cover(n: usize, threads: u32) -> Result<LaunchConfig> {
        let b = n.div_ceil(threads.max(1) as usize).max(1);
        let b = u32::try_from(b)
            .ok()
            .filter(|&b| b <= i32::MAX as u32)
            .ok_or_else(|| Error::arg("launch", format!("{n} items need too many blocks")))?;
        Ok(LaunchConfig::linear(b, threads))
    }
}

/// The specialisation a kernel module is built for: element types and integer parameters
/// (both part of the cache key).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Spec {
    /// Element types, in the module's own order.
    pub dtypes: Vec<DType>,
    /// Integer parameters (variants, unroll counts), in the module's own order.
    pub ints: Vec<i64>,
}

impl Spec {
    /// A specialisation for `dtypes` with no integer parameters.
    pub fn of(dtypes: &[DType]) -> Spec {
        Spec {
            dtypes: dtypes.to_vec(),
            ints: Vec::new(),
        }
    }
    /// The same with integer parameters `ints`.
    pub fn with(mut self, ints: &[i64]) -> Spec {
        self.ints = ints.to_vec();
        self
    }
    /// The `i`-th element type.
    ///
    /// # Errors
    /// `InvalidArgument` when the specialisation has fewer.
    pub fn dtype(&self, i: usize) -> Result<DType> {
        self.dtypes
            .get(i)
            .copied()
            .ok_or_else(|| Error::arg("kernel module", format!("no element type {i} in {self:?}")))
    }
    /// The `i`-th integer parameter.
    ///
    /// # Errors
    /// `InvalidArgument` when the specialisation has fewer.
    pub fn int(&self, i: usize) -> Result<i64> {
        self.ints
            .get(i)
            .copied()
            .ok_or_else(|| Error::arg("kernel module", format!("no parameter {i} in {self:?}")))
    }
    fn key(&self, module: &str) -> String {
        let mut k = String::with_capacity(module.len() + 24);
        k.push_str(module);
        for d in &self.dtypes {
            k.push('|');
            k.push_str(d.tag());
        }
        for i in &self.ints {
            k.push('#');
            k.push_str(&i.to_string());
        }
        k
    }
}

/// A kernel module declared once by the crate that launches it: its name, how its source is
/// built for a [`Spec`] (only on a cache miss), its NVRTC options, and the specialisations
/// that cover its code paths (which the tests compile without a GPU). Each crate lists its
/// modules in one registry (`kernel_modules()`).
pub struct KernelModule {
    /// Unique name (the cache key's prefix), e.g. `ndimage_filters`.
    pub name: &'static str,
    /// The full source for a specialisation (the common header is prepended).
    pub source: fn(&Spec) -> Result<String>,
    /// Extra NVRTC options.
    pub options: &'static [&'static str],
    /// The specialisations whose compilation covers the module (for compile checks).
    pub samples: fn() -> Vec<Spec>,
}

impl KernelModule {
    /// The kernel `name` of this module built for `spec` on `dev` (compiled on the first use
    /// on the device, or loaded from the disk cache).
    ///
    /// # Errors
    /// `Compile` with NVRTC's log; `CudaUnavailable` without NVRTC; the source's own errors.
    pub fn function(&self, dev: &CudaDevice, spec: &Spec, name: &str) -> Result<Function> {
        dev.function_try(
            &spec.key(self.name),
            || (self.source)(spec),
            self.options,
            name,
        )
    }

    /// Every sample specialisation's source with its options, for compile checks.
    ///
    /// # Errors
    /// The source's own errors.
    pub fn sample_sources(&self) -> Result<Vec<(String, String)>> {
        (self.samples)()
            .iter()
            .map(|s| Ok((s.key(self.name), (self.source)(s)?)))
            .collect()
    }
}

/// A kernel argument that is a 64-bit element count or index (`long long` in the kernels).
///
/// # Errors
/// `InvalidArgument` when `n` does not fit (more than 2^63 - 1).
pub fn i64_of(op: &str, n: usize) -> Result<i64> {
    i64::try_from(n).map_err(|_| Error::arg(op, format!("{n} does not fit a 64-bit index")))
}

/// A kernel argument that is a 32-bit count (`int` in the kernels).
///
/// # Errors
/// `InvalidArgument` when `n` passes 2^31 - 1.
pub fn i32_of(op: &str, n: usize) -> Result<i32> {
    i32::try_from(n).map_err(|_| Error::arg(op, format!("{n} does not fit a 32-bit count")))
}
