//! cusci-ndimage: `scipy.ndimage` on CUDA and on the CPU.
//!
//! Every function takes [`Array`]s on any device and runs there: NVRTC kernels on a CUDA device,
//! a rayon reference on the CPU. Boundary handling is [`Mode`] (module [`modes`]).

pub mod filters;
pub mod modes;

pub use cusci_core::{Array, Device, Error, Result};
pub use filters::*;
pub use modes::Mode;
