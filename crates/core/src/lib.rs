//! # cusci-core
//!
//! The core of cusci: [`Device`] (the CPU or a CUDA GPU), [`Array<T>`] (an n-dimensional array on
//! either), element-wise operations and reductions that run on both, NVRTC-compiled kernels with
//! in-memory and on-disk caches ([`RawKernel`], [`ElementwiseKernel`]), Philox random streams that
//! give the same numbers on both devices, `.npy`/`.npz` I/O, and the testing and validation helpers
//! the domain crates use.
//!
//! ```
//! use cusci_core::{Array, Device};
//! let dev = Device::cpu(); // or Device::auto()? to use a GPU when there is one
//! let a = Array::<f64>::arange(0.0, 6.0, 1.0, &dev).unwrap().reshape(&[2, 3]).unwrap();
//! let b = (&a * &a).unwrap().sum_axes(&[1]).unwrap();
//! assert_eq!(b.to_vec().unwrap(), vec![5.0, 50.0]);
//! ```
//!
#![doc = include_str!("../README.md")]

pub mod array;
pub(crate) mod cpu;
pub mod cuda;
pub mod device;
pub mod dtype;
pub mod elementwise;
pub mod error;
pub mod fuse;
pub mod graph;
pub mod host;
pub mod math;
pub mod npy;
pub mod ops;
pub mod random;
pub mod reduce;
pub mod testing;
pub mod validate;

pub use array::backend::{Backend, BackendMut, CudaArray, HostArray};
pub use array::Array;
pub use cuda::kernel::{compile_count, Function, LaunchConfig};
pub use cuda::launch::{DevPtr, DevPtrMut, KernelModule, KernelParam, Spec};
pub use device::{CudaDevice, Device, Event, MemoryInfo};
pub use dtype::{c32, c64, DType, Element, Float, Numeric, Ordered, RealFloat};
pub use elementwise::{ElementwiseKernel, RawKernel};
pub use error::{Error, Result};
pub use ops::where_;

/// Every kernel module of this crate (reductions, scans, random fills, Monte Carlo), for compile
/// checks; the element-wise kernels are generated per operation
/// ([`elementwise::sample_sources`]).
#[doc(hidden)]
pub fn kernel_modules() -> Vec<&'static KernelModule> {
    vec![
        &reduce::REDUCE,
        &reduce::SCAN,
        &random::RANDOM,
        &random::montecarlo::MONTECARLO,
    ]
}
