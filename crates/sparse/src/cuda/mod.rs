//! The CUDA side: cuSPARSE through the private `ffi` module, and this crate's NVRTC kernels,
//! declared once each as a [`KernelModule`] (listed by [`crate::kernel_modules`]) beside the
//! launchers of their `.cu` source. The front ends (`matrix.rs`, `ops.rs`, ...) match on the
//! device once and call the GPU side here:
//!
//! - [`SPARSE`] (`sparse.cu`): the structure operations of `ops.rs` and `reduce.rs` ([`ops`]),
//!   the weak components (`csgraph/cuda/components.rs`), `cg` ([`cg`]) and the solver engine's vector and scalar
//!   steps (`krylov.rs`).
//! - [`FORMATS`] (`formats.cu`): checks and conversions between the formats, DIA, the stacking
//!   functions ([`formats`]), the strong components (`csgraph/cuda/components.rs`).
//! - `csgraph/cuda/csgraph.cu` has its own module (`CSGRAPH`, beside its launchers).
//! - [`spmv::SPMV`] (`spmv.cu`): SpMV for short rows, one module per rows-per-lane value.
//! - [`SOLVERS`] (`sparse.cu`, `solvers.cu` and `splu.cu`): the scalar steps of minres, lsqr and
//!   lsmr (`krylov.rs`), the triangular solves and the sparse LU ([`direct`]), lobpcg's block
//!   kernels (`lobpcg.rs`).
//!
//! Every module is specialised by its [`Spec`]: the element type, then the index type (`i32` or
//! `i64`; `SOLVERS` takes the element type alone and uses 32-bit indices), then for `SPMV` the
//! rows per lane. The source is built only when the module is not loaded yet.

pub(crate) mod cg;
pub(crate) mod direct;
pub(crate) mod ffi;
pub(crate) mod formats;
pub(crate) mod ops;
pub(crate) mod spmv;

use crate::SpIndex;
use cusci_core::cuda::launch::Launch;
use cusci_core::{
    Array, CudaDevice, DType, DevPtr, Device, Element, Error, Float, Function, KernelModule,
    KernelParam, Result, Spec,
};

/// The last element of a 1-D index array (waits for the device).
pub(crate) fn last<I: SpIndex>(a: &Array<I>) -> Result<usize> {
    Ok(a.index_axis(0, -1)?.item()?.ix())
}

/// Threads per block of the grid-stride kernels (`NT` in the sources).
pub(crate) const NT: u32 = 256;
/// Blocks per multiprocessor at most of a grid-stride launch of `NT` threads.
pub(crate) const PER_SM: u32 = 8;

/// The element types the kernels are compiled for.
const ELEMENTS: [DType; 4] = [DType::F32, DType::F64, DType::C32, DType::C64];
/// The index types.
const INDICES: [DType; 2] = [DType::I32, DType::I64];

/// The module of `sparse.cu`; `Spec`: element type, index type.
pub(crate) static SPARSE: KernelModule = KernelModule {
    name: "cusci_sparse",
    source: |s| with_prelude(s, include_str!("sparse.cu")),
    options: &[],
    samples: element_index_pairs,
};

/// The module of `formats.cu`; `Spec`: element type, index type.
pub(crate) static FORMATS: KernelModule = KernelModule {
    name: "cusci_sparse_formats",
    source: |s| with_prelude(s, include_str!("formats.cu")),
    options: &[],
    samples: element_index_pairs,
};

/// The solver module: `sparse.cu` with 32-bit indices, then `solvers.cu` and `splu.cu`;
/// `Spec`: element type.
pub(crate) static SOLVERS: KernelModule = KernelModule {
    name: "cusci_sparse_solvers",
    source: |s| {
        let base = Spec::of(&[s.dtype(0)?, DType::I32]);
        Ok(format!(
            "{}{}{}",
            with_prelude(&base, include_str!("sparse.cu"))?,
            include_str!("solvers.cu"),
            include_str!("splu.cu")
        ))
    },
    options: &[],
    samples: || ELEMENTS.iter().map(|&t| Spec::of(&[t])).collect(),
};

/// Every (element type, index type) pair.
fn element_index_pairs() -> Vec<Spec> {
    ELEMENTS
        .iter()
        .flat_map(|&t| INDICES.iter().map(move |&i| Spec::of(&[t, i])))
        .collect()
}

/// The type prelude for element type `dtype` (f32, f64, c32, c64): `T`, its real type `R`,
/// `TZERO` and `TRE(x)`.
fn prelude(dtype: DType) -> Result<String> {
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

/// `body` after the prelude of the spec's element type (`dtype(0)`) and the typedef of its
/// index type `I` (`dtype(1)`: `int` or `long long`).
pub(crate) fn with_prelude(s: &Spec, body: &str) -> Result<String> {
    let index = match s.dtype(1)? {
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
        "{}typedef {index} I;\n{body}",
        prelude(s.dtype(0)?)?
    ))
}

/// The specialisation for element type `T` and index type `I`.
pub(crate) fn spec<T: Element, I: SpIndex>() -> Spec {
    Spec::of(&[T::DTYPE, I::DTYPE])
}

/// The kernel `name` of [`SPARSE`] for element type `T` and index type `I`.
pub(crate) fn sparse_fn<T: Element, I: SpIndex>(d: &CudaDevice, name: &str) -> Result<Function> {
    SPARSE.function(d, &spec::<T, I>(), name)
}

/// The kernel `name` of [`FORMATS`] for element type `T` and index type `I`.
pub(crate) fn formats_fn<T: Element, I: SpIndex>(d: &CudaDevice, name: &str) -> Result<Function> {
    FORMATS.function(d, &spec::<T, I>(), name)
}

/// The kernel `name` of [`SOLVERS`] for element type `T`.
pub(crate) fn solver_fn<T: Element>(d: &CudaDevice, name: &str) -> Result<Function> {
    SOLVERS.function(d, &Spec::of(&[T::DTYPE]), name)
}

/// The grid of a grid-stride kernel over `n` items: blocks of [`NT`] threads, at most
/// [`PER_SM`] per multiprocessor.
pub(crate) fn grid(d: &CudaDevice, n: usize) -> cusci_core::LaunchConfig {
    d.grid_stride(n, NT, PER_SM)
}

/// The 1-D arrays of `parts` one after another, on the GPU: the kernel `f` on each non-empty
/// part (its elements, the output at the part's place, its length, then the part's extra
/// argument where it has one: a scale or an offset).
pub(crate) fn concat<U: Element, P: KernelParam>(
    d: &CudaDevice,
    f: &Function,
    parts: &[(&Array<U>, Option<P>)],
    dev: &Device,
) -> Result<Array<U>> {
    let total: usize = parts.iter().map(|(a, _)| a.len()).sum();
    let mut out = Array::<U>::empty(&[total], dev)?;
    let mut at = 0usize;
    for &(a, extra) in parts {
        if !a.is_empty() {
            let a = a.contiguous()?;
            let l = d
                .launch(f, grid(d, a.len()))
                .arg(a.dev_ptr()?)
                .arg(out.dev_ptr_mut()?.add(at)?)
                .arg(a.len() as i64);
            match extra {
                Some(x) => l.arg(x),
                None => l,
            }
            .run()?;
        }
        at += a.len();
    }
    Ok(out)
}

/// One leading argument of the kernels of [`count_scan_write`]: a pointer to values, to
/// indices or to 64-bit integers, or a number.
pub(crate) enum Arg<'a, T, I> {
    /// Values (`const T*`).
    Val(DevPtr<'a, T>),
    /// Indices (`const I*`).
    Idx(DevPtr<'a, I>),
    /// 64-bit integers (`const i64*`).
    Wide(DevPtr<'a, i64>),
    /// A `long long`.
    I64(i64),
    /// An `int`.
    I32(i32),
}

impl<T, I> Clone for Arg<'_, T, I> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, I> Copy for Arg<'_, T, I> {}

/// Appends `args` to a launch.
fn push_args<'a, T, I>(mut l: Launch<'a>, args: &[Arg<'a, T, I>]) -> Launch<'a> {
    for &a in args {
        l = match a {
            Arg::Val(p) => l.arg(p),
            Arg::Idx(p) => l.arg(p),
            Arg::Wide(p) => l.arg(p),
            Arg::I64(v) => l.arg(v),
            Arg::I32(v) => l.arg(v),
        };
    }
    l
}

/// A new CSR structure by rows, on the GPU: the kernel `count.0` (arguments `count.1`, then the
/// row count m and the per-row counts out, at `[r + 1]`), a scan, and the kernel `write.0`
/// (arguments `write.1`, then m, the row pointer, and the indices and values out) of `module`
/// for element type `T` and index type `I`. Returns (indptr, indices, data); one wait, for the
/// number of entries.
pub(crate) fn count_scan_write<T: Float, I: SpIndex>(
    d: &CudaDevice,
    module: &KernelModule,
    m: usize,
    count: (&str, &[Arg<'_, T, I>]),
    write: (&str, &[Arg<'_, T, I>]),
) -> Result<(Array<I>, Array<I>, Array<T>)> {
    let dev = Device::Cuda(d.clone());
    let spec = spec::<T, I>();
    let mut counts = Array::<I>::zeros(&[m + 1], &dev)?;
    let f = module.function(d, &spec, count.0)?;
    push_args(d.launch(&f, grid(d, m)), count.1)
        .arg(m as i64)
        .arg(counts.dev_ptr_mut()?)
        .run()?;
    let outptr = counts.cumsum(0)?;
    let total = last(&outptr)?;
    let mut oind = Array::<I>::empty(&[total], &dev)?;
    let mut odat = Array::<T>::empty(&[total], &dev)?;
    let f = module.function(d, &spec, write.0)?;
    push_args(d.launch(&f, grid(d, m)), write.1)
        .arg(m as i64)
        .arg(outptr.dev_ptr()?)
        .arg(oind.dev_ptr_mut()?)
        .arg(odat.dev_ptr_mut()?)
        .run()?;
    Ok((outptr, oind, odat))
}
