//! The CUDA side: cuSPARSE through the private `ffi` module and this crate's NVRTC kernels (`sparse.cu`).

pub(crate) mod ffi;

use cusci_core::cuda::kernel::{Args, Function};
use cusci_core::{Array, CudaDevice, DType, Element, Error, Result};

/// The kernels' source.
pub const SOURCE: &str = include_str!("sparse.cu");

/// Threads per block of every kernel here (`NT` in the source).
pub(crate) const NT: u32 = 256;

/// The type prelude of the module for `dtype` (f32, f64, c32, c64).
pub fn prelude(dtype: DType) -> Result<String> {
    let (t, r, zero, tre) = match dtype {
        DType::F32 => ("float", "float", "0.0f", "((float)(x))"),
        DType::F64 => ("double", "double", "0.0", "((double)(x))"),
        DType::C32 => ("cplx32", "float", "mk(0.0f, 0.0f)", "mk((float)(x), 0.0f)"),
        DType::C64 => ("cplx64", "double", "mk(0.0, 0.0)", "mk((double)(x), 0.0)"),
        d => {
            return Err(Error::UnsupportedDType {
                op: "cusci-sparse".into(),
                dtype: d,
            })
        }
    };
    Ok(format!(
        "typedef {t} T;\ntypedef {r} R;\n#define TZERO ({zero})\n#define TRE(x) ({tre})\n"
    ))
}

/// The full source of the module for `dtype`.
pub fn module_source(dtype: DType) -> Result<String> {
    Ok(format!("{}{}", prelude(dtype)?, SOURCE))
}

/// The kernel `name` of the module for `T`.
pub(crate) fn kernel<T: Element>(dev: &CudaDevice, name: &str) -> Result<Function> {
    let src = module_source(T::DTYPE)?;
    let key = format!("cusci_sparse_{}", T::DTYPE.tag());
    dev.function(&key, move || src, &[], name)
}

/// Blocks for a grid-stride loop over `n` items: enough to fill the device, at most 8 per SM.
pub(crate) fn blocks(dev: &CudaDevice, n: usize) -> u32 {
    let cap = (dev.props().multiprocessors * 8).max(1);
    n.div_ceil(NT as usize).clamp(1, cap) as u32
}

/// Device address of a CUDA array's first element (0 for an empty one).
pub(crate) fn p<T: Element>(a: &Array<T>) -> u64 {
    ffi::ptr(a)
}

/// Launches `name` of the module for `T` on `blocks` blocks of [`NT`] threads.
pub(crate) fn launch<T: Element>(
    dev: &CudaDevice,
    name: &str,
    blocks: u32,
    args: &mut Args,
) -> Result<()> {
    kernel::<T>(dev, name)?.launch(dev, cusci_core::LaunchConfig::linear(blocks, NT), args)
}

/// The format kernels' source (`formats.cu`), generic in the index type `I`.
pub const FORMATS_SOURCE: &str = include_str!("formats.cu");

/// The full source of the format module for element type `dtype` and index type `index`
/// (`I32` or `I64`).
pub fn formats_source(dtype: DType, index: DType) -> Result<String> {
    let i = match index {
        DType::I32 => "int",
        DType::I64 => "long long",
        d => {
            return Err(Error::UnsupportedDType {
                op: "cusci-sparse index".into(),
                dtype: d,
            })
        }
    };
    Ok(format!(
        "{}typedef {i} I;\n{}",
        prelude(dtype)?,
        FORMATS_SOURCE
    ))
}

/// Launches the format kernel `name` for element type `T` and index type `I` on `blocks`
/// blocks of [`NT`] threads.
pub(crate) fn launch_fm<T: Element, I: crate::SpIndex>(
    dev: &CudaDevice,
    name: &str,
    blocks: u32,
    args: &mut Args,
) -> Result<()> {
    let src = formats_source(T::DTYPE, I::DTYPE)?;
    let key = format!("cusci_sparse_fm_{}_{}", T::DTYPE.tag(), I::DTYPE.tag());
    dev.function(&key, move || src, &[], name)?.launch(
        dev,
        cusci_core::LaunchConfig::linear(blocks, NT),
        args,
    )
}
