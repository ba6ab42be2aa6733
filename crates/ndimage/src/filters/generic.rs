//! `generic_filter` and `generic_filter1d`: a user function over every footprint or every line,
//! a Rust closure (any device; it runs on the host) or a CUDA device function (CUDA inputs; it
//! is compiled with NVRTC through the device's kernel cache, as CuPy takes a kernel).

use super::engine::{from_f64, io, to_f64, window_at, Real};
use super::rank::rank_points;
use super::store::single;
use super::{check_origin, FilterOptions, Footprint};
use crate::cuda::{dims8, linear};
use crate::modes::MODES_CUH;
use crate::structure::unravel;
use cusci_core::array::layout::norm_axis;
use cusci_core::cuda::launch::{KernelModule, Spec};
use cusci_core::dtype::DType;
use cusci_core::dtype::Element;
use cusci_core::error::make;
use cusci_core::{Array, Backend, CudaDevice, LaunchConfig, Result};
use rayon::prelude::*;
use std::hash::{Hash, Hasher};

/// The function of [`generic_filter`].
///
/// * `Closure(f)`: `f(values, extra_arguments)` returns the output for the footprint `values`
///   (the footprint's selected elements in C order, as f64). It runs on the host: a CUDA input is
///   copied to the host and the result back to the device.
/// * `Cuda { source, name }`: CUDA C++ source defining
///   `__device__ double name(const double* values, long long n, const double* extra, int n_extra)`,
///   for inputs on a CUDA device (one thread per output; the kernel is compiled once per source,
///   element type and footprint size).
#[derive(Clone, Copy)]
pub enum GenericFunction<'a> {
    /// A Rust closure `(values, extra) -> output`.
    Closure(&'a (dyn Fn(&[f64], &[f64]) -> f64 + Sync)),
    /// A CUDA device function (see the enum's documentation for its signature).
    Cuda {
        /// CUDA source defining the function (and anything it uses).
        source: &'a str,
        /// The function's name.
        name: &'a str,
    },
}

/// The closure form of a [`GenericFunction1d`]: `(input_line, output_line, extra)`.
pub type LineFn = dyn Fn(&[f64], &mut [f64], &[f64]) + Sync;

/// The function of [`generic_filter1d`].
///
/// * `Closure(f)`: `f(input_line, output_line, extra_arguments)`: `input_line` is the line
///   extended by the mode (`len + filter_size − 1` values), `output_line` (`len` values) is to be
///   filled. Runs on the host (CUDA inputs are copied over and back).
/// * `Cuda { source, name }`: CUDA C++ source defining `__device__ void name(const double* in,
///   long long in_len, double* out, long long out_len, const double* extra, int n_extra)`,
///   for CUDA inputs (one thread per line, lines in global scratch memory).
#[derive(Clone, Copy)]
pub enum GenericFunction1d<'a> {
    /// A Rust closure `(input_line, output_line, extra)`.
    Closure(&'a LineFn),
    /// A CUDA device function (see the enum's documentation for its signature).
    Cuda {
        /// CUDA source defining the function (and anything it uses).
        source: &'a str,
        /// The function's name.
        name: &'a str,
    },
}

/// The function's f64 results stored as SciPy's C casts store them (x86-64): integers truncated,
/// i32/i64 out of range (and NaN) the type's minimum, u8 through i32 and wrapped modulo 256.
fn store_f64<T: Real>(mut v: Vec<f64>, shape: &[usize]) -> Result<Array<T>> {
    use super::store::{t32, t64};
    let f: Option<fn(f64) -> f64> = match T::DTYPE {
        DType::I32 => Some(|x| t32(x) as f64),
        DType::I64 => Some(|x| t64(x) as f64),
        DType::U8 => Some(|x| t32(x) as u8 as f64),
        _ => None,
    };
    if let Some(f) = f {
        v.par_iter_mut().for_each(|x| *x = f(*x));
    }
    from_f64::<T>(v, shape)
}

/// The CUDA source of `generic_filter`'s kernel for the user function `name` defined in
/// `source` (`npts`: the footprint size) or of `generic_filter1d`'s (`npts == None`).
fn generic_source(dtype: DType, source: &str, name: &str, npts: Option<usize>) -> String {
    let np = match npts {
        Some(n) => format!("#define NDI_NPTS {n}\n"),
        None => String::new(),
    };
    format!(
        "#define T {}\n{MODES_CUH}\n{source}\n#define NDI_FN {name}\n{np}{}",
        dtype.cuda_name(),
        include_str!("generic.cu")
    )
}

/// The kernel of `generic_filter` / `generic_filter1d` with a user function, for compile checks:
/// a user function is compiled with the user's source at run time (keyed by a hash of it,
/// [`cache_key`]), so this module builds `generic.cu` around sample functions of each form:
/// `Spec::of(&[T]).with(&[npts])` for `generic_filter` (a mean over `npts` points), `npts == 0`
/// for `generic_filter1d` (a correlation of each line with the extra arguments).
pub(crate) static GENERIC: KernelModule = KernelModule {
    name: "ndimage_generic",
    source: |spec| {
        let npts = usize::try_from(spec.int(0)?).ok().filter(|&n| n > 0);
        let (src, name) = match npts {
            Some(_) => (SAMPLE_FN, "ndi_sample_mean"),
            None => (SAMPLE_FN1D, "ndi_sample_corr"),
        };
        Ok(generic_source(spec.dtype(0)?, src, name, npts))
    },
    options: &[],
    samples: || {
        [DType::F32, DType::F64, DType::U8]
            .into_iter()
            .flat_map(|d| [Spec::of(&[d]).with(&[9]), Spec::of(&[d]).with(&[0])])
            .collect()
    },
};

/// A `generic_filter` function of the documented signature (the samples of [`GENERIC`]).
const SAMPLE_FN: &str = "__device__ double ndi_sample_mean(const double* v, long long n, \
    const double* e, int ne) {
  double s = 0.0;
  for (long long k = 0; k < n; ++k) s += v[k];
  return s / (double)n * e[0] + e[1];
}";

/// A `generic_filter1d` function of the documented signature (the samples of [`GENERIC`]).
const SAMPLE_FN1D: &str = "__device__ void ndi_sample_corr(const double* in, long long ni, \
    double* out, long long no, const double* w, int nw) {
  for (long long k = 0; k < no; ++k) {
    double s = 0.0;
    for (int j = 0; j < nw; ++j) s += w[j] * in[k + j];
    out[k] = s;
  }
}";

fn cache_key(dtype: DType, source: &str, name: &str, npts: Option<usize>) -> String {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    source.hash(&mut h);
    name.hash(&mut h);
    format!("ndi_generic_{}_{:?}_{:016x}", dtype.tag(), npts, h.finish())
}

fn check_name(op: &str, name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(make::arg(
            op,
            format!("{name:?} is not a CUDA function name"),
        ))
    }
}

fn extra_on<T: Real>(extra: &[f64], x: &Array<T>) -> Result<Array<f64>> {
    let v = if extra.is_empty() {
        vec![0.0]
    } else {
        extra.to_vec()
    };
    let n = v.len();
    Array::from_vec(v, &[n], x.device())
}

/// Generic n-D filter (`scipy.ndimage.generic_filter`): `out[i] = function(values)`, `values`
/// being the input under the footprint at `i` (selected elements in C order over the
/// footprint; the input extended by `opts.mode`, `opts.cval` outside for the constant modes),
/// with `extra_arguments` handed to the function as SciPy's `extra_arguments`.
///
/// The footprint is a size (per filtered axis, `opts.axes`) or a mask, `opts.origin` shifts it.
/// The result keeps the input's type: a closure's f64 value is stored with SciPy's C casts
/// (truncation; u8 wraps modulo 256, e.g. −59.75 → 197; i32/i64 out of range or NaN → the type's
/// minimum). A CUDA function's value is cast in the kernel (saturating).
///
/// # Errors
/// As [`crate::rank_filter`] for the footprint and origin; `InvalidArgument` for a CUDA function
/// with a CPU input or a bad function name; `Cuda` when the function does not compile (the NVRTC
/// log is in the message).
///
/// ```
/// use cusci_ndimage::{generic_filter, GenericFunction, Footprint, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 5.0, 2.0, 4.0], &[4], &Device::Cpu).unwrap();
/// let range = |v: &[f64], _: &[f64]| v.iter().cloned().fold(f64::MIN, f64::max)
///     - v.iter().cloned().fold(f64::MAX, f64::min);
/// let y = generic_filter(&x, GenericFunction::Closure(&range), &Footprint::Size(vec![2]), &[],
///     &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![0.0, 4.0, 3.0, 2.0]);
/// ```
pub fn generic_filter<T: Real>(
    input: &Array<T>,
    function: GenericFunction<'_>,
    footprint: &Footprint,
    extra_arguments: &[f64],
    opts: &FilterOptions,
) -> Result<Array<T>> {
    let op = "generic_filter";
    let pts = rank_points(op, input, footprint, opts)?;
    let shape = input.shape().to_vec();
    let nd = shape.len();
    let mode = opts.mode.for_filter();
    let cval = opts.cval;
    match function {
        GenericFunction::Closure(f) => {
            if input.size() == 0 {
                return input.copy();
            }
            let xv = to_f64(input)?;
            let mut out = vec![0.0; xv.len()];
            out.par_chunks_mut(1024).enumerate().for_each(|(ci, ch)| {
                let mut c = vec![0i64; nd];
                let mut buf = vec![0.0; pts.len()];
                for (k, o) in ch.iter_mut().enumerate() {
                    unravel(ci * 1024 + k, &shape, &mut c);
                    window_at(&xv, &shape, &c, &pts, mode, cval, &mut buf);
                    *o = f(&buf, extra_arguments);
                }
            });
            let r = store_f64::<T>(out, &shape)?;
            if !input.device().is_cuda() {
                Ok(r)
            } else {
                r.to_device(input.device())
            }
        }
        GenericFunction::Cuda { source, name } => {
            check_name(op, name)?;
            let Backend::Cuda(c) = input.backend() else {
                return Err(make::arg(
                    op,
                    "a CUDA function needs an input on a CUDA device (use a closure on the CPU)",
                ));
            };
            if input.size() == 0 {
                return input.copy();
            }
            let d = c.dev();
            let dims = dims8(op, &shape)?;
            let (xc, mut out) = io(input)?;
            let offs = Array::from_vec(pts.offs.clone(), &[pts.offs.len()], input.device())?;
            let ex = extra_on(extra_arguments, input)?;
            let f = user_function(d, T::DTYPE, source, name, Some(pts.len()))?;
            let n = input.size();
            d.launch(&f, linear(n))
                .arg(xc.dev_ptr()?)
                .arg(out.dev_ptr_mut()?)
                .arg(n as i64)
                .arg(nd as i32)
                .arg(dims)
                .arg(offs.dev_ptr()?)
                .arg(mode.code())
                .arg(cval)
                .arg(ex.dev_ptr()?)
                .arg(extra_arguments.len() as i32)
                .run()?;
            Ok(out)
        }
    }
}

/// The kernel `ndi_generic` (`npts`: the footprint size) or `ndi_generic1d` (`None`) around the
/// user's function `name` of `source`, compiled on the first use of that source on `d`.
fn user_function(
    d: &CudaDevice,
    dtype: DType,
    source: &str,
    name: &str,
    npts: Option<usize>,
) -> Result<cusci_core::Function> {
    let kernel = if npts.is_some() {
        "ndi_generic"
    } else {
        "ndi_generic1d"
    };
    d.function(
        &cache_key(dtype, source, name, npts),
        || generic_source(dtype, source, name, npts),
        &[],
        kernel,
    )
}

/// Lines of scratch per launch of the CUDA `generic_filter1d` (bounds its scratch memory).
const LINES_PER_LAUNCH: usize = 1 << 16;

/// Generic 1-D filter along `axis` (`scipy.ndimage.generic_filter1d`): for every line, the
/// function gets the line extended by `opts.mode` (`len + filter_size − 1` values: position `p`
/// holds `x[p − (filter_size / 2 + origin)]`) and fills the `len` outputs of the line.
///
/// Uses `opts.mode`, `opts.cval` and `opts.origin[0]`. CUDA functions run one thread per line
/// with both lines in global scratch (f64, at most 65536 lines per launch).
///
/// # Errors
/// `InvalidArgument` for a zero `filter_size`, an axis out of range, an origin outside the
/// filter, a CUDA function with a CPU input or a bad function name; `Cuda` when the function
/// does not compile.
///
/// ```
/// use cusci_ndimage::{generic_filter1d, GenericFunction1d, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3], &Device::Cpu).unwrap();
/// // sum of pairs: out[i] = in[i] + in[i + 1] (the line is extended by one value at the start)
/// let pairs = |i: &[f64], o: &mut [f64], _: &[f64]| {
///     for (k, v) in o.iter_mut().enumerate() { *v = i[k] + i[k + 1]; }
/// };
/// let y = generic_filter1d(&x, GenericFunction1d::Closure(&pairs), 2, -1, &[],
///     &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![2.0, 3.0, 5.0]);
/// ```
pub fn generic_filter1d<T: Real>(
    input: &Array<T>,
    function: GenericFunction1d<'_>,
    filter_size: usize,
    axis: isize,
    extra_arguments: &[f64],
    opts: &FilterOptions,
) -> Result<Array<T>> {
    let op = "generic_filter1d";
    let ax = norm_axis(op, axis, input.ndim())?;
    if filter_size == 0 {
        return Err(make::arg(op, "filter_size must be at least 1"));
    }
    let o = opts.origin.first().copied().unwrap_or(0);
    let shift = check_origin(op, o, filter_size)?;
    let shape = input.shape().to_vec();
    let mode = opts.mode.for_filter();
    let cval = opts.cval;
    if let GenericFunction1d::Cuda { name, .. } = function {
        check_name(op, name)?;
        if !input.device().is_cuda() {
            return Err(make::arg(
                op,
                "a CUDA function needs an input on a CUDA device (use a closure on the CPU)",
            ));
        }
    }
    if input.size() == 0 {
        return input.copy();
    }
    let len = shape[ax];
    let inner: usize = shape[ax + 1..].iter().product();
    let n = input.size();
    let nlines = n / len;
    let ext = len + filter_size - 1;
    match function {
        GenericFunction1d::Closure(f) => {
            let xv = to_f64(input)?;
            let mut out = vec![0.0; n];
            // one rayon task per block of the (outer, len, inner) view
            out.par_chunks_mut(len * inner)
                .enumerate()
                .for_each(|(ob, block)| {
                    let base = ob * len * inner;
                    let mut li = vec![0.0; ext];
                    let mut lo = vec![0.0; len];
                    for j in 0..inner {
                        for (p, v) in li.iter_mut().enumerate() {
                            *v = match mode.map_index(p as i64 - shift, len as i64) {
                                Some(s) => xv[base + s as usize * inner + j],
                                None => cval,
                            };
                        }
                        f(&li, &mut lo, extra_arguments);
                        for (i, v) in lo.iter().enumerate() {
                            block[i * inner + j] = *v;
                        }
                    }
                });
            let r = store_f64::<T>(out, &shape)?;
            if !input.device().is_cuda() {
                Ok(r)
            } else {
                r.to_device(input.device())
            }
        }
        GenericFunction1d::Cuda { source, name } => {
            let Backend::Cuda(c) = input.backend() else {
                return Err(make::arg(
                    op,
                    "a CUDA function needs an input on a CUDA device (use a closure on the CPU)",
                ));
            };
            let d = c.dev();
            let (xc, mut out) = io(input)?;
            let ex = extra_on(extra_arguments, input)?;
            let f = user_function(d, T::DTYPE, source, name, None)?;
            let per = nlines.min(LINES_PER_LAUNCH);
            let mut lin = Array::<f64>::empty(&[per * ext], input.device())?;
            let mut lout = Array::<f64>::empty(&[per * len], input.device())?;
            let (xp, ep) = (xc.dev_ptr()?, ex.dev_ptr()?);
            let mut op_ = out.dev_ptr_mut()?;
            let mut lp = lin.dev_ptr_mut()?;
            let mut lop = lout.dev_ptr_mut()?;
            let mut l0 = 0;
            while l0 < nlines {
                let cnt = per.min(nlines - l0);
                d.launch(&f, LaunchConfig::linear(cnt.div_ceil(128) as u32, 128))
                    .arg(xp)
                    .arg(&mut op_)
                    .arg(l0 as i64)
                    .arg(cnt as i64)
                    .arg(len as i64)
                    .arg(inner as i64)
                    .arg(filter_size as i32)
                    .arg(shift as i32)
                    .arg(mode.code())
                    .arg(cval)
                    .arg(&mut lp)
                    .arg(&mut lop)
                    .arg(ep)
                    .arg(extra_arguments.len() as i32)
                    .run()?;
                l0 += cnt;
            }
            Ok(out)
        }
    }
}

// ---------------------------------------------------------------- with SciPy's output dtype

/// [`generic_filter`] with SciPy's `output` dtype (`scipy.ndimage.generic_filter(input,
/// function, ..., output=O)`): the input read as f64, the function's f64 value per footprint
/// stored in `O` with the C casts of the [module](super) doc (truncation; u8 wraps through i32;
/// i32/i64 out of range or NaN give the minimum; bool is the stored byte `!= 0`). A
/// [`GenericFunction::Cuda`] function runs on the f64 input (its double result is stored the
/// same way, on the device), unlike [`generic_filter`]`::<u8>`, whose CUDA results saturate.
///
/// # Errors
/// As [`generic_filter`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{generic_filter_as, GenericFunction, Footprint, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 10, 200, 255, 3, 77], &[6], &Device::Cpu).unwrap();
/// let f = |v: &[f64], _: &[f64]| v.iter().sum::<f64>() / v.len() as f64 * 1.37 - 60.0;
/// let fp = Footprint::Size(vec![3]);
/// let o = FilterOptions::default();
/// // SciPy: generic_filter(x, f, size=3, output=...) = [-55.43, 35.9, 152.35, 149.15, 92.98, 11.70]
/// let y = generic_filter_as::<u8, u8>(&x, GenericFunction::Closure(&f), &fp, &[], &o).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![201, 35, 152, 149, 92, 11]);
/// let z = generic_filter_as::<u8, i32>(&x, GenericFunction::Closure(&f), &fp, &[], &o).unwrap();
/// assert_eq!(z.to_vec().unwrap(), vec![-55, 35, 152, 149, 92, 11]);
/// ```
pub fn generic_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    function: GenericFunction<'_>,
    footprint: &Footprint,
    extra_arguments: &[f64],
    opts: &FilterOptions,
) -> Result<Array<O>> {
    single("generic_filter", input, |x| {
        generic_filter(x, function, footprint, extra_arguments, opts)
    })
}

/// [`generic_filter1d`] with SciPy's `output` dtype (`scipy.ndimage.generic_filter1d(input,
/// function, filter_size, axis, output=O, ...)`): the lines read as f64, the output lines the
/// function fills stored in `O` as [`generic_filter_as`] stores.
///
/// # Errors
/// As [`generic_filter1d`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{generic_filter1d_as, GenericFunction1d, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 10, 200, 255, 3, 77], &[6], &Device::Cpu).unwrap();
/// let f = |i: &[f64], o: &mut [f64], _: &[f64]| {
///     for (k, v) in o.iter_mut().enumerate() { *v = i[k + 1] * 1.37 - i[k] * 2.5 - 0.3; }
/// };
/// let g = GenericFunction1d::Closure(&f);
/// let o = FilterOptions::default();
/// // SciPy: [-0.3, 13.4, 248.7, -150.95, -633.69, 97.69]
/// let y = generic_filter1d_as::<u8, u8>(&x, g, 2, -1, &[], &o).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![0, 13, 248, 106, 135, 97]);
/// ```
pub fn generic_filter1d_as<I: Element, O: Element>(
    input: &Array<I>,
    function: GenericFunction1d<'_>,
    filter_size: usize,
    axis: isize,
    extra_arguments: &[f64],
    opts: &FilterOptions,
) -> Result<Array<O>> {
    single("generic_filter1d", input, |x| {
        generic_filter1d(x, function, filter_size, axis, extra_arguments, opts)
    })
}
