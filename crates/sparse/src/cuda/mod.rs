//! The CUDA side: cuSPARSE through the private `ffi` module and this crate's NVRTC kernels (`sparse.cu`).

pub(crate) mod ffi;

use cusci_core::cuda::kernel::{Args, Function};
use cusci_core::{Array, CudaDevice, DType, Element, Error, Result};

/// The kernels' source.
pub const SOURCE: &str = include_str!("sparse.cu");

pub use crate::krylov::solvers_source;

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

/// The C name of index type `index` (`I32`: `int`, `I64`: `long long`).
fn index_name(index: DType) -> Result<&'static str> {
    match index {
        DType::I32 => Ok("int"),
        DType::I64 => Ok("long long"),
        d => Err(Error::UnsupportedDType {
            op: "cusci-sparse index".into(),
            dtype: d,
        }),
    }
}

/// The full source of the module (`sparse.cu`) for element type `dtype` and index type
/// `index` (`I32` or `I64`).
pub fn module_index_source(dtype: DType, index: DType) -> Result<String> {
    Ok(format!(
        "{}typedef {} I;\n{}",
        prelude(dtype)?,
        index_name(index)?,
        SOURCE
    ))
}

/// The full source of the module for `dtype` with `i32` indices (the module of the vector and
/// solver kernels, which do not use the index type).
pub fn module_source(dtype: DType) -> Result<String> {
    module_index_source(dtype, DType::I32)
}

/// The kernel `name` of the module for element type `T` and index type `I`.
pub(crate) fn kernel_ix<T: Element, I: crate::SpIndex>(
    dev: &CudaDevice,
    name: &str,
) -> Result<Function> {
    let src = module_index_source(T::DTYPE, I::DTYPE)?;
    let key = format!("cusci_sparse_{}_{}", T::DTYPE.tag(), I::DTYPE.tag());
    dev.function(&key, move || src, &[], name)
}

/// The kernel `name` of the module for `T` (`i32` indices).
pub(crate) fn kernel<T: Element>(dev: &CudaDevice, name: &str) -> Result<Function> {
    kernel_ix::<T, i32>(dev, name)
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

/// Launches `name` of the module for element type `T` and index type `I` on `blocks` blocks of
/// [`NT`] threads.
pub(crate) fn launch_ix<T: Element, I: crate::SpIndex>(
    dev: &CudaDevice,
    name: &str,
    blocks: u32,
    args: &mut Args,
) -> Result<()> {
    kernel_ix::<T, I>(dev, name)?.launch(dev, cusci_core::LaunchConfig::linear(blocks, NT), args)
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

/// The short-row SpMV kernels' source (`spmv.cu`), generic in the index type `I`.
pub const SPMV_SOURCE: &str = include_str!("spmv.cu");

/// Resident blocks per SM asked of the compiler (`SPMV_MINB`); the grid is this many per SM.
const SPMV_MIN_BLOCKS_PER_SM: usize = 4;
/// Warps per block of the SpMV kernels (`SPMV_WARPS`).
const SPMV_WARPS: usize = 8;
/// The rows-per-lane values `spmv.cu` instantiates (`SPMV_KERNELS(R)`).
pub const SPMV_RPTS: [usize; 6] = [1, 2, 3, 4, 6, 8];
/// The largest average row length (nnz / rows) for which [`spmv_short_rows`] is used; longer
/// rows go to cuSPARSE's SpMV.
pub(crate) const SPMV_SHORT_ROW_MAX: f64 = 32.0;

/// The full source of the SpMV module for element type `dtype` and index type `index`
/// (`I32` or `I64`).
pub fn spmv_source(dtype: DType, index: DType) -> Result<String> {
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
        SPMV_SOURCE
    ))
}

/// The source of the module launched for `rpt` rows per lane: [`spmv_source`] with only the
/// kernel of that value (`sp_spmv_r<rpt>`), so that a first call compiles one kernel, not all
/// of them. `InvalidArgument` for a value `spmv.cu` does not
/// instantiate.
pub fn spmv_module_source(dtype: DType, index: DType, rpt: usize) -> Result<String> {
    if !SPMV_RPTS.contains(&rpt) {
        return Err(cusci_core::error::make::arg(
            "cusci-sparse spmv",
            format!("rows per lane {rpt} is not one of {SPMV_RPTS:?}"),
        ));
    }
    Ok(format!(
        "#define SPMV_CUSTOM_INSTANCES\n{}SPMV_KERNELS({rpt})\n",
        spmv_source(dtype, index)?
    ))
}

/// Rows per lane for an average row length `avg`: `16 / avg` rounded, within 1..=3. Measured on
/// the H200 (2 KiB chunk, persistent grid; `benches/results/2026-12-03-spmv/spmv-2.txt`):
/// Poisson 4096² (5 per row) ran fastest with 3 rows per lane, f64 0.372 ms (87.8 % of the
/// copy roof, 1.53x cuSPARSE) and f32 0.257 ms (1.60x), against 0.390 and 0.318 ms with 2;
/// random columns with 8 per row: 2 and 1 within 3 %; 16 and 32 per row: 1 best.
pub(crate) fn spmv_rows_per_lane(avg: f64) -> usize {
    (16.0 / avg.max(1e-9)).round().clamp(1.0, 3.0) as usize
}

/// `y = A x` with the short-row kernels of `spmv.cu` for an m-row CSR matrix with at least one
/// stored entry; every element of `y` (length m) is written. Any alignment of the arrays.
pub(crate) fn spmv_short_rows<T: Element, I: crate::SpIndex>(
    dev: &CudaDevice,
    indptr: &Array<I>,
    indices: &Array<I>,
    data: &Array<T>,
    x: &Array<T>,
    y: &Array<T>,
) -> Result<()> {
    let m = indptr.len().saturating_sub(1);
    if m == 0 {
        return Ok(());
    }
    let rpt = spmv_rows_per_lane(data.len() as f64 / m as f64);
    let name = format!("sp_spmv_r{rpt}");
    let ntiles = m.div_ceil(32 * rpt);
    // a persistent grid: as many blocks as are resident at once (SPMV_MINB per SM), each warp
    // looping over tiles; on the H200 528 blocks ran 6 % faster than one tile per warp
    let resident = SPMV_MIN_BLOCKS_PER_SM * dev.props().multiprocessors.max(1);
    let blocks = ntiles.div_ceil(SPMV_WARPS).min(resident) as u32;
    // the source is built only when the module is not loaded yet; the element type is checked
    // here (SpIndex is i32 or i64 and rpt one of SPMV_RPTS), so the closure cannot fail
    prelude(T::DTYPE)?;
    let src = move || spmv_module_source(T::DTYPE, I::DTYPE, rpt).unwrap_or_default();
    let key = format!(
        "cusci_sparse_spmv_{}_{}_r{rpt}",
        T::DTYPE.tag(),
        I::DTYPE.tag()
    );
    let mut args = Args::new();
    args.push(p(indptr))
        .push(p(indices))
        .push(p(data))
        .push(p(x))
        .push(p(y))
        .push(m as i64)
        .push(ntiles as i64);
    dev.function(&key, src, &[], &name)?.launch(
        dev,
        cusci_core::LaunchConfig::linear(blocks, (SPMV_WARPS * 32) as u32),
        &mut args,
    )
}
