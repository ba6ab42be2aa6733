//! The CUDA plumbing the crate's launchers share: the by-value kernel parameters, the prelude of
//! the modules built for one element type, and the launch grids the kernels were tuned with. The kernel modules themselves are
//! declared beside their launchers and listed by [`crate::kernel_modules`].

use crate::modes::MODES_CUH;
use cusci_core::cuda::launch::Spec;
use cusci_core::error::make;
use cusci_core::{Array, CudaDevice, DType, Device, KernelParam, LaunchConfig, Result};

/// The most dimensions the shape-taking CUDA kernels of this crate handle (morphology, label,
/// measurements, distance transforms; `NDI_MAXD` of modes.cuh): NumPy 1.x's 32, beyond the
/// core's 8 (`CUSCI_MAXD`).
pub(crate) const MAXD: usize = 32;

/// modes.cuh's `NdiShape`: element count, rank and extents (up to [`MAXD`]).
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct NdiShape {
    pub n: i64,
    pub ndim: i32,
    pub dims: [i64; MAXD],
}

// SAFETY: plain data with the field order and padding of modes.cuh's
// `struct NdiShape { i64 n; int ndim; i64 dims[NDI_MAXD]; }` (NDI_MAXD = MAXD).
unsafe impl KernelParam for NdiShape {}

impl NdiShape {
    pub fn new(op: &str, shape: &[usize]) -> Result<NdiShape> {
        if shape.len() > MAXD {
            return Err(make::not_implemented(
                &format!("{op} with more than {MAXD} dimensions"),
                "CUDA",
            ));
        }
        let mut dims = [1i64; MAXD];
        for (d, &s) in shape.iter().enumerate() {
            dims[d] = s as i64;
        }
        Ok(NdiShape {
            n: shape.iter().product::<usize>() as i64,
            ndim: shape.len() as i32,
            dims,
        })
    }
}

/// Eight 64-bit extents or offsets by value (the kernels' `NdiDims { i64 d[8]; }`).
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct Dims8(pub [i64; 8]);

// SAFETY: plain data, the layout of `struct { i64 d[8]; }`.
unsafe impl KernelParam for Dims8 {}

/// `shape` as [`Dims8`] (1 on the missing axes).
pub(crate) fn dims8(op: &str, shape: &[usize]) -> Result<Dims8> {
    if shape.len() > 8 {
        return Err(make::arg(op, "more than 8 dimensions"));
    }
    let mut d = [1i64; 8];
    for (a, &s) in d.iter_mut().zip(shape) {
        *a = s as i64;
    }
    Ok(Dims8(d))
}

/// Up to 64 window weights in the working type `W` by value (filters.cu's `NdiTaps { W w[64]; }`).
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct Taps<W: Copy>(pub [W; TAPS]);

/// Weights [`Taps`] holds.
pub(crate) const TAPS: usize = 64;

// SAFETY: an array of 64 numbers of the kernel's working type W (float or double, as the
// module is built for the element type whose `Real::W` this is).
unsafe impl<W: KernelParam> KernelParam for Taps<W> {}

/// The source of a module of this crate built for element type `dtype` (`NDI_T` is its CUDA
/// type; the boundary modes header is included).
pub(crate) fn module_source(src: &str, dtype: DType) -> String {
    format!(
        "#define NDI_T {}\n{}\n{}",
        dtype.cuda_name(),
        MODES_CUH,
        src
    )
}

/// One [`Spec`] per element type of `dtypes` (a module's samples).
pub(crate) fn specs(dtypes: impl IntoIterator<Item = DType>) -> Vec<Spec> {
    dtypes.into_iter().map(|d| Spec::of(&[d])).collect()
}

/// Every element type but the complex ones.
pub(crate) fn real_dtypes() -> impl Iterator<Item = DType> {
    DType::ALL.into_iter().filter(|d| !d.is_complex())
}

/// A grid-stride launch over `n` items: 256 threads, at most 32 blocks per multiprocessor (the
/// morphology, label, measurement, distance and sort kernels).
pub(crate) fn per_item(cd: &CudaDevice, n: usize) -> LaunchConfig {
    cd.grid_stride(n, 256, 32)
}

/// A grid-stride launch over `n` items: 256 threads, enough blocks to cover them up to 2^20
/// (the filter, interpolation and Fourier kernels).
pub(crate) fn linear(n: usize) -> LaunchConfig {
    LaunchConfig::linear(n.div_ceil(256).clamp(1, 1 << 20) as u32, 256)
}

/// Flattened offsets as a device array of i64 (`ndim` coordinates per offset), never empty.
pub(crate) fn offsets_on(dev: &Device, offs: &[Vec<i64>], ndim: usize) -> Result<Array<i64>> {
    let mut flat: Vec<i64> = offs.iter().flatten().copied().collect();
    if flat.is_empty() {
        flat = vec![0; ndim.max(1)];
    }
    let l = flat.len();
    Array::from_vec(flat, &[l], dev)
}
