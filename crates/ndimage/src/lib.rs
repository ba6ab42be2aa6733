//! cusci-ndimage: `scipy.ndimage` on CUDA and on the CPU (its functions arrive with their own issue).

pub use cusci_core::{Array, Device, Error, Result};
