//! The one error type of cusci.
//!
//! Every fallible function of every cusci crate returns [`Result<T>`]. Each variant names the
//! operation that failed and the offending values, so that a message read out of context says
//! what went wrong and where. The library never panics on user input.

use crate::dtype::DType;

/// cusci's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Every way a cusci operation can fail.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Array shapes that the operation cannot combine.
    #[error("{op}: shape mismatch: {detail}")]
    ShapeMismatch { op: String, detail: String },
    /// An argument outside its valid range (an axis, a length, a parameter).
    #[error("{op}: invalid argument: {detail}")]
    InvalidArgument { op: String, detail: String },
    /// The element type is not accepted by the operation.
    #[error("{op}: unsupported dtype {dtype}")]
    UnsupportedDType { op: String, dtype: DType },
    /// Arrays on different devices passed to one operation.
    #[error("{op}: device mismatch: {left} and {right}")]
    DeviceMismatch {
        op: String,
        left: String,
        right: String,
    },
    /// The device could not satisfy an allocation: `requested` bytes, with `free` bytes free on
    /// it (on the CPU, the host's `MemAvailable + SwapFree`, see [`crate::host`]; 0 where unknown).
    #[error("out of memory: requested {requested} bytes, {free} bytes free on the device")]
    OutOfMemory { requested: usize, free: usize },
    /// A singular matrix (the zero pivot's index, and for batches the matrix index).
    #[error("{op}: singular matrix (zero pivot at index {index})")]
    Singular { op: String, index: usize },
    /// A matrix that is not positive definite (leading minor of order `index` is not positive).
    #[error("{op}: matrix is not positive definite (leading minor {index})")]
    NotPositiveDefinite { op: String, index: usize },
    /// An iterative method stopped before converging.
    #[error("{op}: no convergence after {iterations} iterations (residual {residual:e})")]
    NoConvergence {
        op: String,
        iterations: usize,
        residual: f64,
    },
    /// A graph with a negative cycle where shortest paths were asked for (SciPy's
    /// `NegativeCycleError`).
    #[error("{op}: negative cycle detected")]
    NegativeCycle { op: String },
    /// The operation has no implementation on this device.
    #[error("{op}: not implemented on {device}")]
    NotImplemented { op: String, device: String },
    /// A CUDA library call failed; `status` is the library's own status name.
    #[error("{op}: CUDA {library} error {status}")]
    Cuda {
        op: String,
        library: &'static str,
        status: String,
    },
    /// A CUDA library or the driver could not be loaded.
    #[error("CUDA unavailable: {0}")]
    CudaUnavailable(String),
    /// NVRTC refused a kernel; `log` is the compiler's log.
    #[error("kernel {name}: compilation failed:\n{log}")]
    Compile { name: String, log: String },
    /// Reading or writing a file failed.
    #[error("{op}: I/O error on {path}: {detail}")]
    Io {
        op: String,
        path: String,
        detail: String,
    },
}

impl Error {
    pub(crate) fn shape(op: &str, detail: impl Into<String>) -> Self {
        Error::ShapeMismatch {
            op: op.into(),
            detail: detail.into(),
        }
    }
    pub(crate) fn arg(op: &str, detail: impl Into<String>) -> Self {
        Error::InvalidArgument {
            op: op.into(),
            detail: detail.into(),
        }
    }
    pub(crate) fn dtype(op: &str, dtype: DType) -> Self {
        Error::UnsupportedDType {
            op: op.into(),
            dtype,
        }
    }
    pub(crate) fn driver(op: &str, e: cudarc::driver::DriverError) -> Self {
        if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
            // the requested size is not known here; callers that allocate map OOM themselves
            return Error::OutOfMemory {
                requested: 0,
                free: 0,
            };
        }
        Error::Cuda {
            op: op.into(),
            library: "driver",
            status: format!("{:?}", e.0),
        }
    }
}

/// Constructors for the common errors, public so that the domain crates report them the same way.
pub mod make {
    use super::Error;
    use crate::dtype::DType;
    /// `Error::ShapeMismatch` for `op`.
    pub fn shape(op: &str, detail: impl Into<String>) -> Error {
        Error::shape(op, detail)
    }
    /// `Error::InvalidArgument` for `op`.
    pub fn arg(op: &str, detail: impl Into<String>) -> Error {
        Error::arg(op, detail)
    }
    /// `Error::UnsupportedDType` for `op`.
    pub fn dtype(op: &str, dtype: DType) -> Error {
        Error::dtype(op, dtype)
    }
    /// `Error::NotImplemented` for `op` on `device`.
    pub fn not_implemented(op: &str, device: impl std::fmt::Display) -> Error {
        Error::NotImplemented {
            op: op.into(),
            device: device.to_string(),
        }
    }
}
