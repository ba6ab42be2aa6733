//! `geometric_transform`: SciPy's transform by a user mapping from output coordinates to input
//! coordinates. The mapping fills a coordinate array (a Rust closure on the host, or a CUDA
//! device function compiled by NVRTC and run one thread per output element on the GPU), then
//! [`map_coordinates`] interpolates: the result is by construction what `map_coordinates`
//! gives for the same coordinates, as in SciPy (both are `NI_GeometricTransform`).

use super::transforms::map_coordinates;
use super::InterpOptions;
use crate::cuda::linear;
use crate::filters::Real;
use cusci_core::cuda::launch::{KernelModule, Spec};
use cusci_core::dtype::DType;
use cusci_core::error::make;
use cusci_core::{Array, Backend, CudaDevice, Result};
use rayon::prelude::*;
use std::hash::{Hash, Hasher};

/// The closure form of a [`Mapping`]: `(output_index, input_coordinates)`.
pub type MapFn = dyn Fn(&[usize], &mut [f64]) + Sync;

/// The `mapping` of [`geometric_transform`].
///
/// * `Closure(f)`: `f(output_index, input_coords)` fills `input_coords` (the input's rank) for
///   the output element at `output_index` (SciPy's `mapping(output_coords) -> input_coords`;
///   extra arguments are the closure's captures). It runs on the host, in parallel; for a CUDA
///   input the coordinates are uploaded and the interpolation runs on the GPU.
/// * `Cuda { source, name }`: CUDA C++ source defining
///   `__device__ void name(const double* out, int out_rank, double* in, int in_rank,
///   const double* extra, int n_extra)`, for inputs on a CUDA device (one thread per output
///   element; `in` arrives zeroed; `extra` holds [`geometric_transform`]'s `extra_arguments`).
///   Ranks up to 32 on the GPU.
#[derive(Clone, Copy)]
pub enum Mapping<'a> {
    /// A Rust closure `(output_index, input_coords)`.
    Closure(&'a MapFn),
    /// A CUDA device function (see the enum's documentation for its signature).
    Cuda {
        /// CUDA source defining the function (and anything it uses).
        source: &'a str,
        /// The function's name.
        name: &'a str,
    },
}

/// The most dimensions of the CUDA mapping's coordinate buffers.
const MAX_RANK: usize = 32;

const GEOMAP_CU: &str = r#"
extern "C" __global__ void ndi_geomap(double* __restrict__ coords, long long n, int orank,
                                      const long long* __restrict__ oshape, int irank,
                                      const double* __restrict__ extra, int n_extra) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    double oc[32];
    double ic[32];
    long long r = i;
    for (int d = orank - 1; d >= 0; --d) {
      const long long s = oshape[d];
      oc[d] = (double)(r % s);
      r /= s;
    }
    for (int d = 0; d < irank; ++d) ic[d] = 0.0;
    NDI_MAP(oc, orank, ic, irank, extra, n_extra);
    for (int d = 0; d < irank; ++d) coords[(long long)d * n + i] = ic[d];
  }
}
"#;

fn geomap_source(source: &str, name: &str) -> String {
    format!("{source}\n#define NDI_MAP {name}\n{GEOMAP_CU}")
}

/// A mapping of the documented signature (the sample of [`GEOMAP`]): a shift by `extra`.
const SAMPLE_MAP: &str = "__device__ void ndi_sample_shift(const double* o, int orank, \
    double* c, int irank, const double* e, int ne) {
  for (int d = 0; d < irank && d < orank; ++d) c[d] = o[d] - (d < ne ? e[d] : 0.0);
}";

/// The coordinate kernel of `geometric_transform` around a user mapping, for compile checks (a
/// user mapping is compiled with the user's source at run time, keyed by a hash of it); the
/// sample is a shift.
pub(crate) static GEOMAP: KernelModule = KernelModule {
    name: "ndimage_geomap",
    source: |_| Ok(geomap_source(SAMPLE_MAP, "ndi_sample_shift")),
    options: &[],
    samples: || vec![Spec::of(&[DType::F64])],
};

fn user_map(d: &CudaDevice, source: &str, name: &str) -> Result<cusci_core::Function> {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    source.hash(&mut h);
    name.hash(&mut h);
    let key = format!("ndi_geomap_{:016x}", h.finish());
    d.function(&key, || geomap_source(source, name), &[], "ndi_geomap")
}

/// `scipy.ndimage.geometric_transform(input, mapping, output_shape, order, mode, cval,
/// prefilter, extra_arguments)`: output element `o` (of `output_shape`, default the input's
/// shape) is the input interpolated at `mapping(o)`, with the spline `order`, boundary `mode`,
/// `cval` and `prefilter` of `opts`, exactly as [`map_coordinates`] with the coordinates the
/// mapping gives (it is computed that way: one coordinate array of `input.ndim() × output size`
/// f64 values, then `map_coordinates`).
///
/// # Errors
/// `InvalidArgument` for a CUDA mapping with a CPU input, a bad function name, ranks above 32
/// with a CUDA mapping, or an order above 5; `ShapeMismatch` for an empty output rank or a 0-d
/// input (SciPy: "input and output rank must be > 0"); `Cuda` when the mapping does not
/// compile; `OutOfMemory` for the coordinate array; [`map_coordinates`]'s errors.
///
/// ```
/// use cusci_ndimage::{geometric_transform, InterpOptions, Mapping, Array, Device};
/// let x = Array::from_vec((0..12).map(f64::from).collect(), &[4, 3], &Device::Cpu).unwrap();
/// // SciPy's docstring example: shift by half a pixel on each axis
/// let f = |o: &[usize], c: &mut [f64]| {
///     c[0] = o[0] as f64 - 0.5;
///     c[1] = o[1] as f64 - 0.5;
/// };
/// let y = geometric_transform(&x, Mapping::Closure(&f), None, &[], &InterpOptions::default())
///     .unwrap();
/// let y = y.to_vec().unwrap();
/// assert!((y[4] - 1.362).abs() < 1e-3 && y[0] == 0.0);
/// ```
pub fn geometric_transform<T: Real>(
    input: &Array<T>,
    mapping: Mapping,
    output_shape: Option<&[usize]>,
    extra_arguments: &[f64],
    opts: &InterpOptions,
) -> Result<Array<T>> {
    let op = "geometric_transform";
    let oshape: Vec<usize> = output_shape.map_or_else(|| input.shape().to_vec(), <[_]>::to_vec);
    let (irank, orank) = (input.ndim(), oshape.len());
    if irank == 0 || orank == 0 {
        return Err(make::shape(op, "input and output rank must be > 0"));
    }
    super::check_order(op, opts.order, 0)?;
    let n = oshape
        .iter()
        .try_fold(1usize, |a, &s| a.checked_mul(s))
        .ok_or_else(|| make::arg(op, "the output size overflows"))?;
    let total = n
        .checked_mul(irank)
        .ok_or_else(|| make::arg(op, "the coordinate array overflows"))?;
    let mut cshape = vec![irank];
    cshape.extend_from_slice(&oshape);
    let coords: Array<f64> = match mapping {
        Mapping::Closure(f) => {
            let mut c: Vec<f64> = cusci_core::host::try_vec_zeroed(op, total)?;
            // per output element, its input coordinates, then transposed to [irank, n]
            let mut rows: Vec<f64> = cusci_core::host::try_vec_zeroed(op, total)?;
            rows.par_chunks_mut(irank).enumerate().for_each(|(i, out)| {
                let mut idx = vec![0usize; orank];
                let mut r = i;
                for d in (0..orank).rev() {
                    idx[d] = r % oshape[d];
                    r /= oshape[d];
                }
                f(&idx, out);
            });
            for (i, row) in rows.chunks(irank).enumerate() {
                for (d, &v) in row.iter().enumerate() {
                    c[d * n + i] = v;
                }
            }
            Array::from_vec(c, &cshape, input.device())?
        }
        Mapping::Cuda { source, name } => {
            let ok = !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !ok {
                return Err(make::arg(
                    op,
                    format!("{name:?} is not a CUDA function name"),
                ));
            }
            let Backend::Cuda(cu) = input.backend() else {
                return Err(make::arg(
                    op,
                    "a CUDA mapping needs an input on a CUDA device (use a closure on the CPU)",
                ));
            };
            if irank > MAX_RANK || orank > MAX_RANK {
                return Err(make::arg(
                    op,
                    format!("a CUDA mapping takes ranks up to {MAX_RANK}"),
                ));
            }
            let d = cu.dev();
            let mut c = Array::<f64>::empty(&cshape, input.device())?;
            if n > 0 {
                let dims: Vec<i64> = oshape.iter().map(|&s| s as i64).collect();
                let dims = Array::from_vec(dims, &[orank], input.device())?;
                let ex = if extra_arguments.is_empty() {
                    vec![0.0]
                } else {
                    extra_arguments.to_vec()
                };
                let nex = ex.len();
                let ex = Array::from_vec(ex, &[nex], input.device())?;
                let f = user_map(d, source, name)?;
                d.launch(&f, linear(n))
                    .arg(c.dev_ptr_mut()?)
                    .arg(n as i64)
                    .arg(orank as i32)
                    .arg(dims.dev_ptr()?)
                    .arg(irank as i32)
                    .arg(ex.dev_ptr()?)
                    .arg(extra_arguments.len() as i32)
                    .run()?;
            }
            c
        }
    };
    map_coordinates(input, &coords, opts)
}
