//! The filters with SciPy's `output=` dtype: every input type an [`Array`] holds but complex
//! (f32, f64, i32, i64, u8, bool) and any of those as the output type.
//!
//! `*_as::<I, O>` computes what `scipy.ndimage.<filter>(input, ..., output=O)` computes for an
//! input of type `I`; `*_as::<I, I>` is SciPy's default output (the input's type). SciPy reads the
//! input as double, computes every 1-D pass or n-D window in double and stores it into the output
//! array; a separable filter's later passes read that stored output. These functions do the same
//! on either device: the input is widened to f64, each pass runs through the f64 filters of this
//! module, and each pass's result is stored as SciPy stores it (below) before the next pass.
//!
//! SciPy's store of a double `v` into the output (C casts on x86-64, as SciPy 1.17 runs there):
//! - f64: `v`; f32: rounded to nearest (overflow to ±inf);
//! - i32, i64: truncated toward zero; NaN and values out of range give the type's minimum;
//! - u8 (and bool, whose storage is a byte): truncated to i32 as above, then wrapped modulo 256
//!   (`-3.7 → 253`, `300.2 → 44`), so an integer image whose Laplacian or Sobel goes negative
//!   wraps as in SciPy; bool is the stored byte `!= 0` (`0.3 → false`, `-2.0 → true`).
//!
//! Separable filters (Gaussian, uniform, Sobel, Prewitt, and minimum/maximum with a box or an
//! all-true footprint) store between passes, so e.g. `gaussian_filter_as::<u8, u8>` truncates
//! after each axis as SciPy does. [`laplace_as`] adds its per-axis second derivatives in the
//! output type (NumPy's `+=`: integers wrap, bool is logical or, f32 rounds each sum);
//! [`gaussian_laplace_as`] likewise, and [`gaussian_gradient_magnitude_as`] squares, adds and
//! takes the root in the output type as SciPy's `generic_gradient_magnitude` does.
//! Rank filters whose rank is the first or last of the footprint run as the minimum or maximum
//! filter (SciPy's route, separable for a box), others as one n-D selection.
//!
//! Where SciPy copies (a filter with no axis to filter: sizes of 1, sigmas of 0, `axes=[]`), the
//! copy follows NumPy's assignment casts instead: integers wrap into narrower integers
//! (`3_000_000_000i64 → -1_294_967_296` in i32) and anything nonzero is true. `cval` is read as
//! SciPy reads it: a double in the separable and correlation filters, the input's C type in
//! the n-D minimum/maximum (footprints other than boxes) and rank filters (`-2.0` is 254 for u8
//! and bool inputs, f32 rounds it), and through `numpy.int64` in SciPy's 1-D rank route (1-D
//! integer inputs, NaN refused, the i64 result copied with NumPy's casts).
//!
//! Differences from SciPy: (1) for a 1-D input, SciPy 1.17's rank and median filter with an output
//! type other than the input's return the output buffer reinterpreted (its fast 1-D path writes
//! the input's type into it); here they return the values stored as above, as SciPy does for every
//! other input. (2) An integer input is read as f64, as SciPy's n-D filters do, so i64 values
//! beyond 2^53 are rounded (SciPy's 1-D rank path keeps same-type i64 exact). (3) The CPU sums
//! 1-D windows in SciPy's order, so its f64 results are SciPy's bit for bit where the weights
//! are; the Gaussian weights may differ in the last bit where NumPy's `exp` does from the
//! platform's, uniform filters sum each window afresh where SciPy keeps a running sum, and
//! the GPU sums in its own order with fused multiply-adds. A result within such a difference
//! of an integer can truncate to the neighbouring integer. u16, i16, u32, u64 and i8 have no
//! [`Array`] element type yet.
//!
//! The plain filters of this module (`gaussian_filter::<u8>`, ...) keep the input type and
//! saturate on overflow instead; use these functions for SciPy's exact integer results.

use super::generic::{generic_filter, generic_filter1d, GenericFunction, GenericFunction1d};
use super::{
    axis_modes, check_origin, check_rank, convolve, convolve1d, correlate, correlate1d,
    gaussian_filter, gaussian_filter1d, gaussian_weights, laplace_sigmas, maximum_filter,
    maximum_filter1d, minimum_filter, minimum_filter1d, norm_axes, per_axis, rank_box, rank_filter,
    uniform_filter, uniform_filter1d, FilterOptions, Footprint, GaussianOptions,
};
use crate::modes::Mode;
use cusci_core::array::layout::norm_axis;
use cusci_core::cuda::launch::{KernelModule, Spec};
use cusci_core::dtype::{DType, Element, Numeric};
use cusci_core::elementwise::{Arg, Scalar};
use cusci_core::error::make;
use cusci_core::{Array, Backend, BackendMut, ElementwiseKernel, Result};
use rayon::prelude::*;
use std::sync::OnceLock;

/// How a pass's double result is stored (the output type's C cast).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Store {
    F64,
    F32,
    I32,
    I64,
    U8,
    Bool,
}

impl Store {
    pub(crate) fn of<O: Element>(op: &str) -> Result<Store> {
        Ok(match O::DTYPE {
            DType::F64 => Store::F64,
            DType::F32 => Store::F32,
            DType::I32 => Store::I32,
            DType::I64 => Store::I64,
            DType::U8 => Store::U8,
            DType::Bool => Store::Bool,
            d => return Err(make::dtype(op, d)),
        })
    }
    /// The kernel code of the store (`+ 10`: the wrapping add's store, see [`scast`]).
    fn code(self) -> i32 {
        match self {
            Store::F64 => 0,
            Store::F32 => 1,
            Store::I32 => 2,
            Store::I64 => 3,
            Store::U8 | Store::Bool => 4,
        }
    }
}

/// SciPy's C cast of a double into `T` (x86-64, as [`scast`]: truncation, the integer
/// indefinite out of range, u8 and bool through a 32-bit int wrapped, f32 rounded).
pub(crate) fn c_cast<T: Element>(v: f64) -> T {
    let code = Store::of::<T>("").map_or(0, Store::code);
    T::from_c64(cusci_core::c64::new(scast(v, code), 0.0))
}

/// x86-64's `cvttsd2si` to 32 bits: truncation, the "integer indefinite" i32::MIN out of range.
#[inline]
pub(crate) fn t32(v: f64) -> i32 {
    if v > -2147483649.0 && v < 2147483648.0 {
        v as i32
    } else {
        i32::MIN
    }
}

/// The 64-bit `cvttsd2si`.
#[inline]
pub(crate) fn t64(v: f64) -> i64 {
    if (-9223372036854775808.0..9223372036854775808.0).contains(&v) {
        v as i64
    } else {
        i64::MIN
    }
}

/// SciPy's store of `v` (code as [`Store::code`]), returned as the f64 of the stored value
/// (exact: every stored value is a double, but for code 7's i64::MAX, returned as 2^63, which
/// the saturating conversion to i64 turns back into i64::MAX). Codes 12 and 14 wrap an
/// integer-valued sum into i32 or u8 (NumPy's integer `+=`); code 15 is NumPy's cast to bool
/// (`v != 0`, NaN true). Codes 5, 6, 7: the interpolation
/// functions' store into u8, i32, i64 (SciPy's `CASE_INTERP_OUT_UINT/INT`): rounded half away
/// from zero (`v ± 0.5` in double, then truncated) and clamped to the type's range; NaN gives 0
/// for u8 (no rounding below 0.5) and the type's minimum for i32/i64.
#[inline]
pub(crate) fn scast(v: f64, code: i32) -> f64 {
    match code {
        1 => v as f32 as f64,
        2 => t32(v) as f64,
        3 => t64(v) as f64,
        4 => t32(v) as u8 as f64,
        5 => (if v > 0.0 { v + 0.5 } else { 0.0 }).min(255.0).trunc(),
        6 | 7 => {
            let (lo, hi) = if code == 6 {
                (-2147483648.0, 2147483647.0)
            } else {
                (-9223372036854775808.0, 9223372036854775808.0)
            };
            if v.is_nan() {
                lo
            } else {
                (if v > 0.0 { v + 0.5 } else { v - 0.5 })
                    .clamp(lo, hi)
                    .trunc()
            }
        }
        12 => v as i64 as i32 as f64,
        14 => v as i64 as u8 as f64,
        15 => (v != 0.0) as u8 as f64,
        _ => v,
    }
}

const SCAST_CUDA: &str = r#"
__device__ __forceinline__ int ndi_t32(double v) {
    return (v > -2147483649.0 && v < 2147483648.0) ? (int)v : (int)0x80000000;
}
__device__ __forceinline__ long long ndi_t64(double v) {
    return (v >= -9223372036854775808.0 && v < 9223372036854775808.0)
        ? (long long)v : (long long)0x8000000000000000ULL;
}
__device__ __forceinline__ double ndi_scast(double v, int m) {
    switch (m) {
    case 1: return (double)__double2float_rn(v);
    case 2: return (double)ndi_t32(v);
    case 3: return (double)ndi_t64(v);
    case 4: return (double)(unsigned char)(unsigned int)ndi_t32(v);
    case 5: return trunc(fmin(v > 0.0 ? v + 0.5 : 0.0, 255.0));
    case 6: return isnan(v) ? -2147483648.0
        : trunc(fmin(fmax(v > 0.0 ? v + 0.5 : v - 0.5, -2147483648.0), 2147483647.0));
    case 7: return isnan(v) ? -9223372036854775808.0
        : trunc(fmin(fmax(v > 0.0 ? v + 0.5 : v - 0.5, -9223372036854775808.0),
                     9223372036854775808.0));
    case 12: return (double)(int)(unsigned int)(unsigned long long)(long long)v;
    case 14: return (double)(unsigned char)(unsigned long long)(long long)v;
    case 15: return v != 0.0 ? 1.0 : 0.0;
    default: return v;
    }
}
"#;

/// The store of SciPy's casts that the `*_as` filters run on the GPU: the device function
/// `ndi_scast(v, code)`, the preamble of an element-wise kernel ([`scast_kernel`], compiled by
/// the core's element-wise machinery), here with a one-line kernel around it for compile checks.
pub(crate) static STORE: KernelModule = KernelModule {
    name: "ndimage_store",
    source: |_| {
        Ok(format!(
            "{SCAST_CUDA}\nextern \"C\" __global__ void ndi_scast_check(const double* x, \
             double* y, int m) {{ y[threadIdx.x] = ndi_scast(x[threadIdx.x], m); }}\n"
        ))
    },
    options: &[],
    samples: || vec![Spec::default()],
};

fn scast_kernel() -> Result<&'static ElementwiseKernel> {
    static K: OnceLock<ElementwiseKernel> = OnceLock::new();
    if let Some(k) = K.get() {
        return Ok(k);
    }
    let k = ElementwiseKernel::new(
        "float64 x, int32 m",
        "float64 y",
        "y = ndi_scast(x, m)",
        "ndi_scipy_store",
        |i, o| o[0] = Scalar::F64(scast(i[0].to::<f64>(), i[1].to::<i32>())),
    )?
    .with_preamble(SCAST_CUDA);
    Ok(K.get_or_init(|| k))
}

/// Applies the store `code` to every element, on the array's device.
pub(crate) fn apply(a: Array<f64>, code: i32) -> Result<Array<f64>> {
    if code == 0 {
        return Ok(a);
    }
    if let Backend::Cuda(_) = a.backend() {
        let mut out = Array::<f64>::empty(a.shape(), a.device())?;
        scast_kernel()?.call(
            &[Arg::Array(&a), Arg::Scalar(Scalar::I32(code))],
            &mut [&mut out],
        )?;
        return Ok(out);
    }
    // in place where the array is not shared (a pass's fresh output), in parallel
    let mut a = a;
    if let BackendMut::Host(v) = a.backend_mut()? {
        v.par_iter_mut().for_each(|x| *x = scast(*x, code));
    }
    Ok(a)
}

fn store(a: Array<f64>, s: Store) -> Result<Array<f64>> {
    apply(a, s.code())
}

/// The input as f64 (SciPy reads every input as double); complex is refused.
pub(crate) fn load<I: Element>(op: &str, x: &Array<I>) -> Result<Array<f64>> {
    match I::DTYPE {
        DType::C32 | DType::C64 => Err(make::dtype(op, I::DTYPE)),
        _ => x.astype::<f64>(),
    }
}

/// The stored values (exact in f64) as the output type (bool: the stored byte `!= 0`).
pub(crate) fn finish<O: Element>(a: Array<f64>) -> Result<Array<O>> {
    a.astype::<O>()
}

/// One filter pass over the f64 working array.
pub(crate) type PassFn<'a> = Box<dyn Fn(&Array<f64>) -> Result<Array<f64>> + 'a>;

/// One stored 1-D pass (or n-D window) of an f64 filter: load, filter, store, convert.
pub(crate) fn single<I: Element, O: Element>(
    op: &str,
    input: &Array<I>,
    f: impl FnOnce(&Array<f64>) -> Result<Array<f64>>,
) -> Result<Array<O>> {
    let s = Store::of::<O>(op)?;
    let x = load(op, input)?;
    finish(store(f(&x)?, s)?)
}

/// The store code of SciPy's `output[...] = input` for an input of type `I` (NumPy's
/// assignment casts, applied to the input read as f64): from floats as [`Store::code`] but
/// `!= 0` into bool; from integers and bool, wrapped modulo 2^bits (`-2 → 254` in u8,
/// `3_000_000_000 → -1_294_967_296` in i32) or `!= 0` into bool.
pub(crate) fn copy_code<I: Element>(s: Store) -> i32 {
    let int = I::DTYPE.is_integer() || I::DTYPE == DType::Bool;
    match s {
        Store::Bool => 15,
        Store::U8 if int => 14,
        Store::I32 if int => 12,
        _ => s.code(),
    }
}

/// Passes in sequence over `cur`, each stored before the next reads it (SciPy's separable
/// filters writing into `output`); with no pass, `cur` stored with the code `copy` (SciPy's
/// `output[...] = input`, [`copy_code`]).
fn stored_passes(
    mut cur: Array<f64>,
    passes: Vec<PassFn<'_>>,
    s: Store,
    copy: i32,
) -> Result<Array<f64>> {
    if passes.is_empty() {
        return apply(cur, copy);
    }
    for p in passes {
        cur = store(p(&cur)?, s)?;
    }
    Ok(cur)
}

/// [`stored_passes`] over the loaded input, converted to the output type.
pub(crate) fn chain<I: Element, O: Element>(
    op: &str,
    input: &Array<I>,
    passes: Vec<PassFn<'_>>,
) -> Result<Array<O>> {
    let s = Store::of::<O>(op)?;
    finish(stored_passes(
        load(op, input)?,
        passes,
        s,
        copy_code::<I>(s),
    )?)
}

// ---------------------------------------------------------------- correlation, convolution

/// [`correlate1d`] with SciPy's `output` dtype: `scipy.ndimage.correlate1d(input, weights, axis,
/// output=O)` for an input of type `I` (see the [module](self) doc for the store rules).
///
/// # Errors
/// As [`correlate1d`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{correlate1d_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 10, 200, 255], &[4], &Device::Cpu).unwrap();
/// // 10 - 0 = 10, 200 - 10 = 190, 255 - 200 = 55, 255 - 255 = 0 (reflect), then x[i-1] - x[i]:
/// let y = correlate1d_as::<u8, u8>(&x, &[1.0, -1.0], -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![0, 246, 66, 201]); // -10, -190, -55 wrap modulo 256
/// let z = correlate1d_as::<u8, i32>(&x, &[1.0, -1.0], -1, &FilterOptions::default()).unwrap();
/// assert_eq!(z.to_vec().unwrap(), vec![0, -10, -190, -55]);
/// ```
pub fn correlate1d_as<I: Element, O: Element>(
    input: &Array<I>,
    weights: &[f64],
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    single("correlate1d", input, |x| {
        correlate1d(x, weights, axis, opts)
    })
}

/// [`convolve1d`] with SciPy's `output` dtype (`scipy.ndimage.convolve1d(..., output=O)`).
///
/// # Errors
/// As [`convolve1d`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{convolve1d_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![1i32, 2, 4, 8], &[4], &Device::Cpu).unwrap();
/// let y = convolve1d_as::<i32, f32>(&x, &[0.5, 0.25], -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![1.25, 2.5, 5.0, 6.0]);
/// ```
pub fn convolve1d_as<I: Element, O: Element>(
    input: &Array<I>,
    weights: &[f64],
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    single("convolve1d", input, |x| convolve1d(x, weights, axis, opts))
}

/// [`correlate`] with SciPy's `output` dtype (`scipy.ndimage.correlate(..., output=O)`): one
/// n-D window in f64, stored once.
///
/// # Errors
/// As [`correlate`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{correlate_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![10u8, 21, 30, 41], &[2, 2], &Device::Cpu).unwrap();
/// let w = Array::from_vec(vec![0.25, 0.25, 0.25, 0.25], &[2, 2], &Device::Cpu).unwrap();
/// let y = correlate_as::<u8, f64>(&x, &w, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![10.0, 15.5, 20.0, 25.5]);
/// let z = correlate_as::<u8, u8>(&x, &w, &FilterOptions::default()).unwrap();
/// assert_eq!(z.to_vec().unwrap(), vec![10, 15, 20, 25]); // truncated, as SciPy
/// ```
pub fn correlate_as<I: Element, O: Element>(
    input: &Array<I>,
    weights: &Array<f64>,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    single("correlate", input, |x| correlate(x, weights, opts))
}

/// [`convolve`] with SciPy's `output` dtype (`scipy.ndimage.convolve(..., output=O)`).
///
/// # Errors
/// As [`convolve`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{convolve_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![1i64, 5, 2], &[3], &Device::Cpu).unwrap();
/// let w = Array::from_vec(vec![1.0, 0.0, -1.0], &[3], &Device::Cpu).unwrap();
/// let y = convolve_as::<i64, u8>(&x, &w, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![4, 1, 253]); // [4, 1, -3] stored as u8
/// ```
pub fn convolve_as<I: Element, O: Element>(
    input: &Array<I>,
    weights: &Array<f64>,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    single("convolve", input, |x| convolve(x, weights, opts))
}

// ---------------------------------------------------------------- Gaussian, uniform

/// [`gaussian_filter1d`] with SciPy's `output` dtype.
///
/// # Errors
/// As [`gaussian_filter1d`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{gaussian_filter1d_as, GaussianOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 0, 100, 0, 0], &[5], &Device::Cpu).unwrap();
/// let y = gaussian_filter1d_as::<u8, u8>(&x, 1.0, -1, &GaussianOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![5, 24, 39, 24, 5]); // SciPy's values (truncated)
/// ```
pub fn gaussian_filter1d_as<I: Element, O: Element>(
    input: &Array<I>,
    sigma: f64,
    axis: isize,
    opts: &GaussianOptions,
) -> Result<Array<O>> {
    single("gaussian_filter1d", input, |x| {
        gaussian_filter1d(x, sigma, axis, opts)
    })
}

/// The 1-D passes of `scipy.ndimage.gaussian_filter` over `axes` (sigma, order and modes per
/// axis or one for all; `opts.radius` likewise): axes whose sigma is at most 1e-15 are skipped.
fn gaussian_passes<'a>(
    op: &str,
    axes: &[usize],
    sigma: &[f64],
    order: &[usize],
    modes: &[Mode],
    opts: &GaussianOptions,
) -> Result<Vec<PassFn<'a>>> {
    let n = axes.len();
    let modes = axis_modes(op, opts.mode, modes, n)?;
    if sigma.is_empty() {
        return Err(make::arg(op, "no sigma given"));
    }
    let sig = per_axis(op, "sigma", sigma, n, 0.0)?;
    let ord = per_axis(op, "order", order, n, 0)?;
    let rad: Vec<Option<usize>> = match &opts.radius {
        None => vec![None; n],
        Some(r) => per_axis(op, "radius", r, n, 0)?
            .into_iter()
            .map(Some)
            .collect(),
    };
    let mut passes: Vec<PassFn> = Vec::new();
    for k in 0..n {
        if sig[k] > 1e-15 {
            gaussian_weights(op, sig[k], ord[k], opts.truncate, rad[k])?;
            let o = GaussianOptions {
                order: vec![ord[k]],
                radius: rad[k].map(|r| vec![r]),
                axes: None,
                mode: modes[k],
                modes: Vec::new(),
                ..opts.clone()
            };
            let (s, a) = (sig[k], axes[k] as isize);
            passes.push(Box::new(move |x| gaussian_filter1d(x, s, a, &o)));
        }
    }
    Ok(passes)
}

/// [`gaussian_filter`] with SciPy's `output` dtype: one 1-D pass per axis whose sigma exceeds
/// 1e-15, each stored into the output type before the next (so integer outputs are truncated
/// after every axis, as in SciPy).
///
/// # Errors
/// As [`gaussian_filter`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{gaussian_filter_as, GaussianOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 0, 0, 0, 200, 0, 0, 0, 0], &[3, 3], &Device::Cpu).unwrap();
/// let y = gaussian_filter_as::<u8, u8>(&x, &[1.0], &GaussianOptions::default()).unwrap();
/// let z = gaussian_filter_as::<u8, f64>(&x, &[1.0], &GaussianOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap()[4], 33); // SciPy: 81 after the first axis, then 33
/// assert!((z.to_vec().unwrap()[4] - 33.2613).abs() < 1e-4);
/// ```
pub fn gaussian_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    sigma: &[f64],
    opts: &GaussianOptions,
) -> Result<Array<O>> {
    let op = "gaussian_filter";
    if Store::of::<O>(op)? == Store::F64 {
        // no store between passes: the (fused) f64 filter is the same computation
        return single(op, input, |x| gaussian_filter(x, sigma, opts));
    }
    let axes = norm_axes(op, &opts.axes, input.ndim())?;
    let passes = gaussian_passes(op, &axes, sigma, &opts.order, &opts.modes, opts)?;
    chain(op, input, passes)
}

/// [`uniform_filter1d`] with SciPy's `output` dtype.
///
/// # Errors
/// As [`uniform_filter1d`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{uniform_filter1d_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![1i32, 2, 4, 8], &[4], &Device::Cpu).unwrap();
/// let y = uniform_filter1d_as::<i32, i32>(&x, 3, -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![1, 2, 4, 6]); // 4/3, 7/3, 14/3, 20/3 truncated
/// ```
pub fn uniform_filter1d_as<I: Element, O: Element>(
    input: &Array<I>,
    size: usize,
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    single("uniform_filter1d", input, |x| {
        uniform_filter1d(x, size, axis, opts)
    })
}

/// One 1-D pass of a separable box: its axis, size, and the options of the 1-D filter (its
/// origin and mode).
type BoxPass = (usize, usize, FilterOptions);

/// The 1-D passes of a separable box over `opts.axes` (sizes, origins and modes in the order of
/// `axes`): the axes of size above one (those SciPy filters).
fn boxes(op: &str, ndim: usize, size: &[usize], opts: &FilterOptions) -> Result<Vec<BoxPass>> {
    let axes = norm_axes(op, &opts.axes, ndim)?;
    if size.is_empty() {
        return Err(make::arg(op, "no size given"));
    }
    let sizes = per_axis(op, "size", size, axes.len(), 1)?;
    let origin = per_axis(op, "origin", &opts.origin, axes.len(), 0)?;
    let modes = axis_modes(op, opts.mode, &opts.modes, axes.len())?;
    let mut out = Vec::new();
    for k in 0..axes.len() {
        // as SciPy: sizes 0 and 1 leave the axis alone (its origin unchecked)
        if sizes[k] > 1 {
            check_origin(op, origin[k], sizes[k])?;
            let fo = FilterOptions {
                origin: vec![origin[k]],
                axes: None,
                mode: modes[k],
                modes: Vec::new(),
                ..opts.clone()
            };
            out.push((axes[k], sizes[k], fo));
        }
    }
    Ok(out)
}

/// [`uniform_filter`] with SciPy's `output` dtype: one stored 1-D pass per axis of size above 1.
///
/// # Errors
/// As [`uniform_filter`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{uniform_filter_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 9, 9, 0], &[2, 2], &Device::Cpu).unwrap();
/// let y = uniform_filter_as::<u8, f32>(&x, &[2], &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![0.0, 4.5, 4.5, 4.5]);
/// let z = uniform_filter_as::<u8, u8>(&x, &[2], &FilterOptions::default()).unwrap();
/// assert_eq!(z.to_vec().unwrap(), vec![0, 4, 4, 4]); // [0, 9, 4, 4] after the first axis
/// ```
pub fn uniform_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    size: &[usize],
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let op = "uniform_filter";
    if Store::of::<O>(op)? == Store::F64 {
        return single(op, input, |x| uniform_filter(x, size, opts));
    }
    let passes = boxes(op, input.ndim(), size, opts)?
        .into_iter()
        .map(|(a, s, fo)| {
            Box::new(move |x: &Array<f64>| uniform_filter1d(x, s, a as isize, &fo)) as PassFn
        })
        .collect();
    chain(op, input, passes)
}

// ---------------------------------------------------------------- minimum, maximum

/// [`minimum_filter1d`] with SciPy's `output` dtype (the minimum in f64, then stored).
///
/// # Errors
/// As [`minimum_filter1d`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{minimum_filter1d_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![-3.7f64, 300.2, 7.9], &[3], &Device::Cpu).unwrap();
/// let y = minimum_filter1d_as::<f64, u8>(&x, 1, -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![253, 44, 7]); // SciPy's C casts
/// ```
pub fn minimum_filter1d_as<I: Element, O: Element>(
    input: &Array<I>,
    size: usize,
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    single("minimum_filter1d", input, |x| {
        minimum_filter1d(x, size, axis, opts)
    })
}

/// [`maximum_filter1d`] with SciPy's `output` dtype (the maximum in f64, then stored).
///
/// # Errors
/// As [`maximum_filter1d`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{maximum_filter1d_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![true, false, false, false], &[4], &Device::Cpu).unwrap();
/// let y = maximum_filter1d_as::<bool, i32>(&x, 2, -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![1, 1, 0, 0]);
/// ```
pub fn maximum_filter1d_as<I: Element, O: Element>(
    input: &Array<I>,
    size: usize,
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    single("maximum_filter1d", input, |x| {
        maximum_filter1d(x, size, axis, opts)
    })
}

fn minmax_as<I: Element, O: Element>(
    op: &str,
    input: &Array<I>,
    footprint: &Footprint,
    opts: &FilterOptions,
    max: bool,
) -> Result<Array<O>> {
    // SciPy: a box or an all-true footprint is separable (stored after each axis)
    let size: Vec<usize> = match footprint {
        Footprint::Size(s) => s.clone(),
        Footprint::Mask(m) => {
            let mv = m.to_vec()?;
            if !mv.is_empty() && mv.iter().all(|&b| b) && m.ndim() > 0 {
                m.shape().to_vec()
            } else {
                // SciPy's n-D minimum/maximum filter reads cval as the input's type
                let o = FilterOptions {
                    cval: input_cval::<I>(op, opts.cval)?,
                    ..opts.clone()
                };
                return single(op, input, |x| {
                    if max {
                        maximum_filter(x, footprint, &o)
                    } else {
                        minimum_filter(x, footprint, &o)
                    }
                });
            }
        }
    };
    if let Footprint::Mask(m) = footprint {
        let n = norm_axes(op, &opts.axes, input.ndim())?.len();
        check_rank(op, "footprint", m.ndim(), n)?;
    }
    let passes = boxes(op, input.ndim(), &size, opts)?
        .into_iter()
        .map(|(a, s, fo)| {
            Box::new(move |x: &Array<f64>| {
                if max {
                    maximum_filter1d(x, s, a as isize, &fo)
                } else {
                    minimum_filter1d(x, s, a as isize, &fo)
                }
            }) as PassFn
        })
        .collect();
    chain(op, input, passes)
}

/// [`minimum_filter`] with SciPy's `output` dtype. A box (or an all-true mask) runs as stored
/// 1-D passes, as SciPy's separable route (which matters when the store is not monotone, e.g.
/// an f64 input into u8); another mask as one n-D window.
///
/// # Errors
/// As [`minimum_filter`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{minimum_filter_as, FilterOptions, Footprint, Array, Device};
/// let x = Array::from_vec(vec![5u8, 3, 9, 1], &[2, 2], &Device::Cpu).unwrap();
/// let y = minimum_filter_as::<u8, i64>(&x, &Footprint::Size(vec![2]), &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![5, 3, 5, 1]);
/// ```
pub fn minimum_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    minmax_as("minimum_filter", input, footprint, opts, false)
}

/// [`maximum_filter`] with SciPy's `output` dtype (separable as [`minimum_filter_as`]).
///
/// # Errors
/// As [`maximum_filter`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{maximum_filter_as, FilterOptions, Footprint, Array, Device};
/// let x = Array::from_vec(vec![-3.7f64, 300.2, 1000.5, -1000.0, 2.5, 7.9], &[2, 3], &Device::Cpu).unwrap();
/// let y = maximum_filter_as::<f64, u8>(&x, &Footprint::Size(vec![3]), &FilterOptions::default()).unwrap();
/// // after axis 0: [-3.7, 300.2, 1000.5] stored as [253, 44, 232]; then the maximum along axis 1
/// assert_eq!(y.to_vec().unwrap(), vec![253, 253, 232, 253, 253, 232]);
/// ```
pub fn maximum_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    minmax_as("maximum_filter", input, footprint, opts, true)
}

// ---------------------------------------------------------------- rank filters

/// The number of footprint elements (SciPy's `filter_size`).
fn footprint_count(op: &str, ndim: usize, fp: &Footprint, opts: &FilterOptions) -> Result<usize> {
    let n = match fp {
        Footprint::Size(s) => {
            if s.is_empty() {
                return Err(make::arg(op, "no size given"));
            }
            let nax = norm_axes(op, &opts.axes, ndim)?.len();
            per_axis(op, "size", s, nax, 1)?.iter().product()
        }
        Footprint::Mask(m) => m.to_vec()?.iter().filter(|&&b| b).count(),
    };
    if n == 0 {
        return Err(make::arg(op, "the footprint selects no element"));
    }
    Ok(n)
}

/// SciPy's route for a rank: the minimum or maximum filter at the ends, else the selection.
fn rank_as<I: Element, O: Element>(
    op: &str,
    input: &Array<I>,
    rank: usize,
    n: usize,
    fp: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    if rank == 0 || rank == n - 1 {
        // SciPy's `_rank_filter` hands the footprint expanded to every axis (a box on the
        // filtered axes in increasing order) with `axes=None` to the minimum/maximum filter
        let max = rank != 0;
        return match rank_box(op, input.ndim(), fp, opts)? {
            Some((size, o)) => minmax_as(op, input, &Footprint::Size(size), &o, max),
            None => minmax_as(op, input, fp, opts, max),
        };
    }
    if rank_1d_route(op, input.ndim(), input.size(), fp, opts)? {
        return rank_1d_as(op, input, rank, fp, opts);
    }
    let o = FilterOptions {
        cval: input_cval::<I>(op, opts.cval)?,
        ..opts.clone()
    };
    single(op, input, |x| rank_filter(x, rank as isize, fp, &o))
}

/// `cval` as SciPy's n-D minimum/maximum (non-box footprints) and rank filters read it: cast to
/// the input's C type (`(npy_uint8)-2.0 = 254`; bool is a byte there too; f32 rounded; i32/i64
/// truncated, the minimum out of range).
fn input_cval<I: Element>(op: &str, cval: f64) -> Result<f64> {
    Ok(scast(cval, Store::of::<I>(op)?.code()))
}

/// Whether SciPy 1.17 takes its 1-D rank route (`_rank_filter_1d`) for a selection that is not
/// the minimum or maximum: a 1-D input whose window (the footprint's full length, zeros
/// included) does not reach more than the line's length past it, or a single element.
fn rank_1d_route(
    op: &str,
    nd: usize,
    n: usize,
    fp: &Footprint,
    opts: &FilterOptions,
) -> Result<bool> {
    if nd != 1 {
        return Ok(false);
    }
    let len = match fp {
        Footprint::Size(s) => per_axis(op, "size", s, 1, 1)?[0],
        Footprint::Mask(m) => m.size(),
    };
    let origin = per_axis(op, "origin", &opts.origin, 1, 0)?[0];
    Ok(n as i64 - ((len as i64 - 1) / 2 - origin as i64) >= 0 || n == 1)
}

/// SciPy's 1-D rank route for a 1-D input: an integer or bool input is filtered as i64, `cval`
/// converted by `numpy.int64` (truncated; NaN or out of range is SciPy's ValueError or
/// OverflowError, an `InvalidArgument` here); a bool, u8 or i32 input's i64 result is copied
/// into the output with NumPy's casts (wrapped into u8 and i32, `!= 0` into bool), an i64
/// input's stored as the n-D route stores (SciPy writes i64 into the output buffer whatever its
/// type: difference (1) of the [module](self) doc); f32 and f64 inputs as the n-D route (`cval`
/// rounded to f32 for f32).
fn rank_1d_as<I: Element, O: Element>(
    op: &str,
    input: &Array<I>,
    rank: usize,
    fp: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let s = Store::of::<O>(op)?;
    let int = I::DTYPE.is_integer() || I::DTYPE == DType::Bool;
    let cval = if int {
        let c = opts.cval;
        if !(-9223372036854775808.0..9223372036854775808.0).contains(&c) {
            return Err(make::arg(
                op,
                format!("cval {c} cannot be converted to the integer filter type"),
            ));
        }
        c.trunc()
    } else {
        input_cval::<I>(op, opts.cval)?
    };
    let o = FilterOptions {
        cval,
        ..opts.clone()
    };
    let y = rank_filter(&load(op, input)?, rank as isize, fp, &o)?;
    let widened = int && I::DTYPE != DType::I64;
    finish(apply(
        y,
        if widened { copy_code::<I>(s) } else { s.code() },
    )?)
}

/// [`rank_filter`] with SciPy's `output` dtype: the `rank`-th smallest (negative: from the end)
/// in f64, stored into `O`; ranks 0 and last run as [`minimum_filter_as`] / [`maximum_filter_as`]
/// (SciPy's route).
///
/// # Errors
/// As [`rank_filter`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{rank_filter_as, FilterOptions, Footprint, Array, Device};
/// let x = Array::from_vec(vec![4i32, 300, 500, 9, 7, 1], &[2, 3], &Device::Cpu).unwrap();
/// let y = rank_filter_as::<i32, u8>(&x, 1, &Footprint::Size(vec![1, 3]), &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![4, 44, 244, 9, 7, 1]); // 300 → 44, 500 → 244
/// ```
pub fn rank_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    rank: isize,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let op = "rank_filter";
    let n = footprint_count(op, input.ndim(), footprint, opts)?;
    let r = if rank < 0 { rank + n as isize } else { rank };
    if r < 0 || r >= n as isize {
        return Err(make::arg(
            op,
            format!("rank {rank} not within the footprint size {n}"),
        ));
    }
    rank_as(op, input, r as usize, n, footprint, opts)
}

/// [`median_filter`](super::median_filter) with SciPy's `output` dtype (rank `n / 2` of the `n`
/// footprint elements, routed as [`rank_filter_as`]).
///
/// # Errors
/// As [`median_filter`](super::median_filter); `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{median_filter_as, FilterOptions, Footprint, Array, Device};
/// let x = Array::from_vec(vec![10u8, 200, 30, 40, 250, 60], &[2, 3], &Device::Cpu).unwrap();
/// let y = median_filter_as::<u8, f32>(&x, &Footprint::Size(vec![1, 3]), &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![10.0, 30.0, 30.0, 40.0, 60.0, 60.0]);
/// ```
pub fn median_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let op = "median_filter";
    let n = footprint_count(op, input.ndim(), footprint, opts)?;
    rank_as(op, input, n / 2, n, footprint, opts)
}

/// [`percentile_filter`](super::percentile_filter) with SciPy's `output` dtype (rank
/// `int(n · p / 100)`, `n − 1` for 100; negative `p` counts from 100).
///
/// # Errors
/// As [`percentile_filter`](super::percentile_filter); `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{percentile_filter_as, FilterOptions, Footprint, Array, Device};
/// let x = Array::from_vec(vec![5i64, 1, 4, 2, 3], &[1, 5], &Device::Cpu).unwrap();
/// let y = percentile_filter_as::<i64, f64>(&x, 50.0, &Footprint::Size(vec![1, 5]), &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![4.0, 4.0, 3.0, 3.0, 3.0]);
/// ```
pub fn percentile_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    percentile: f64,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let op = "percentile_filter";
    let p = if percentile < 0.0 {
        percentile + 100.0
    } else {
        percentile
    };
    if !(0.0..=100.0).contains(&p) {
        return Err(make::arg(op, format!("invalid percentile {percentile}")));
    }
    let n = footprint_count(op, input.ndim(), footprint, opts)?;
    let r = if p == 100.0 {
        n - 1
    } else {
        (((n as f64) * p / 100.0) as usize).min(n - 1)
    };
    rank_as(op, input, r, n, footprint, opts)
}

// ---------------------------------------------------------------- derivatives

fn edge_as<I: Element, O: Element>(
    op: &str,
    input: &Array<I>,
    axis: isize,
    smooth: [f64; 3],
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let ax = norm_axis(op, axis, input.ndim())?;
    // SciPy: a mode per axis of the input
    let modes = axis_modes(op, opts.mode, &opts.modes, input.ndim())?;
    let o = |a: usize| FilterOptions {
        origin: Vec::new(),
        axes: None,
        mode: modes[a],
        modes: Vec::new(),
        ..opts.clone()
    };
    let mut passes: Vec<PassFn> = Vec::new();
    let o0 = o(ax);
    passes.push(Box::new(move |x| {
        correlate1d(x, &[-1.0, 0.0, 1.0], ax as isize, &o0)
    }));
    for a in (0..input.ndim()).filter(|&a| a != ax) {
        let oa = o(a);
        passes.push(Box::new(move |x| correlate1d(x, &smooth, a as isize, &oa)));
    }
    chain(op, input, passes)
}

/// [`sobel`](super::sobel) with SciPy's `output` dtype: the derivative along `axis`, then the
/// `[1, 2, 1]` smoothing along every other axis, each pass stored into `O` (so a u8 output wraps
/// negative gradients, as SciPy's default `output` does for a u8 image).
///
/// # Errors
/// `InvalidArgument` for a bad axis; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{sobel_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 10, 200, 255, 3, 250, 7, 0, 9, 100, 30, 1], &[3, 4], &Device::Cpu).unwrap();
/// let y = sobel_as::<u8, f64>(&x, -1, &FilterOptions::default()).unwrap();
/// let z = sobel_as::<u8, u8>(&x, -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap()[..4], [277.0, 604.0, 485.0, 158.0]);
/// assert_eq!(z.to_vec().unwrap()[..4], [21, 92, 229, 158]); // SciPy's u8 result
/// ```
pub fn sobel_as<I: Element, O: Element>(
    input: &Array<I>,
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    edge_as("sobel", input, axis, [1.0, 2.0, 1.0], opts)
}

/// [`prewitt`](super::prewitt) with SciPy's `output` dtype (as [`sobel_as`] with `[1, 1, 1]`).
///
/// # Errors
/// `InvalidArgument` for a bad axis; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{prewitt_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![1i32, 2, 4, 8], &[4], &Device::Cpu).unwrap();
/// let y = prewitt_as::<i32, i32>(&x, 0, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![1, 3, 6, 4]);
/// ```
pub fn prewitt_as<I: Element, O: Element>(
    input: &Array<I>,
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    edge_as("prewitt", input, axis, [1.0, 1.0, 1.0], opts)
}

/// [`laplace`](super::laplace) with SciPy's `output` dtype: the `[1, −2, 1]` second derivative
/// along each axis of `opts.axes` (all by default), each stored into `O`, added in `O` as NumPy's
/// `output += tmp` (integers wrap, bool is logical or, f32 rounds each sum); with no axis, the
/// input stored into `O`.
///
/// # Errors
/// `InvalidArgument` for bad axes; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{laplace_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 10, 200, 255, 3, 250], &[2, 3], &Device::Cpu).unwrap();
/// let y = laplace_as::<u8, i32>(&x, &FilterOptions::default()).unwrap();
/// let z = laplace_as::<u8, u8>(&x, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![265, 173, -140, -507, 506, -297]);
/// assert_eq!(z.to_vec().unwrap(), vec![9, 173, 116, 5, 250, 215]); // modulo 256
/// ```
pub fn laplace_as<I: Element, O: Element>(
    input: &Array<I>,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let op = "laplace";
    let s = Store::of::<O>(op)?;
    let axes = norm_axes(op, &opts.axes, input.ndim())?;
    let modes = axis_modes(op, opts.mode, &opts.modes, axes.len())?;
    let x = load(op, input)?;
    if axes.is_empty() {
        return finish(apply(x, copy_code::<I>(s))?);
    }
    let d2 = |k: usize| -> Result<Array<f64>> {
        let o = FilterOptions {
            origin: Vec::new(),
            axes: None,
            mode: modes[k],
            modes: Vec::new(),
            ..opts.clone()
        };
        store(correlate1d(&x, &[1.0, -2.0, 1.0], axes[k] as isize, &o)?, s)
    };
    laplace_sum(s, axes.len(), d2)
}

/// SciPy's `generic_laplace`: `output = d2(0)`, then `output += d2(k)` for the other terms `k`
/// (one per axis of `axes`), in the output type (NumPy's `+=`: integers wrap, bool is logical
/// or, f32 rounds each sum). `d2` returns stored values; `n` is at least 1.
fn laplace_sum<O: Element>(
    s: Store,
    n: usize,
    d2: impl Fn(usize) -> Result<Array<f64>>,
) -> Result<Array<O>> {
    if s == Store::I64 {
        // i64 sums may not be exact in f64: add as i64 (wrapping, as NumPy)
        let mut acc = d2(0)?.astype::<i64>()?;
        for k in 1..n {
            acc = acc.add(&d2(k)?.astype::<i64>()?)?;
        }
        return acc.astype::<O>();
    }
    let mut acc = d2(0)?;
    for k in 1..n {
        let sum = acc.add(&d2(k)?)?;
        acc = match s {
            // the stored bytes are >= 0: a sum is nonzero exactly when either is (logical or)
            Store::Bool => sum,
            Store::U8 => apply(sum, 14)?,
            Store::I32 => apply(sum, 12)?,
            _ => store(sum, s)?,
        };
    }
    finish(acc)
}

/// [`gaussian_laplace`](super::gaussian_laplace) with SciPy's `output` dtype: for each axis of
/// `opts.axes` (all by default), the Gaussian filter over every axis with a second derivative
/// along that one (its passes stored into `O`), added as [`laplace_as`] does. `sigma`: one value
/// or one per filtered axis (the other axes are not smoothed); `opts.order` is ignored.
///
/// # Errors
/// As [`gaussian_filter`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{gaussian_laplace_as, GaussianOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 0, 0, 0, 200, 0, 0, 0, 0], &[3, 3], &Device::Cpu).unwrap();
/// let y = gaussian_laplace_as::<u8, i32>(&x, &[1.0], &GaussianOptions::default()).unwrap();
/// let z = gaussian_laplace_as::<u8, f64>(&x, &[1.0], &GaussianOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap()[4], -52); // SciPy's value (each pass truncated)
/// assert!((z.to_vec().unwrap()[4] + 53.5098).abs() < 1e-4);
/// ```
pub fn gaussian_laplace_as<I: Element, O: Element>(
    input: &Array<I>,
    sigma: &[f64],
    opts: &GaussianOptions,
) -> Result<Array<O>> {
    let op = "gaussian_laplace";
    let s = Store::of::<O>(op)?;
    let nd = input.ndim();
    let axes = norm_axes(op, &opts.axes, nd)?;
    let full = laplace_sigmas(op, sigma, &axes, nd)?;
    let modes = axis_modes(op, opts.mode, &opts.modes, axes.len())?;
    let x = load(op, input)?;
    if axes.is_empty() {
        return finish(apply(x, copy_code::<I>(s))?);
    }
    let all: Vec<usize> = (0..nd).collect();
    let d2 = |k: usize| -> Result<Array<f64>> {
        let mut order = vec![0usize; nd];
        order[axes[k]] = 2;
        let passes = gaussian_passes(op, &all, &full, &order, &[modes[k]], opts)?;
        stored_passes(x.clone(), passes, s, copy_code::<I>(s))
    };
    laplace_sum(s, axes.len(), d2)
}

/// NumPy's `np.multiply(q, q, q)` and `output += q` over the stored derivatives, in `T`
/// (integers wrap; f32 rounds each step).
fn sum_of_squares<T: Numeric>(qs: &[Array<f64>]) -> Result<Array<T>> {
    let mut acc: Option<Array<T>> = None;
    for q in qs {
        let q = q.astype::<T>()?;
        let sq = q.mul(&q)?;
        acc = Some(match acc {
            None => sq,
            Some(a) => a.add(&sq)?,
        });
    }
    acc.ok_or_else(|| make::arg("gradient_magnitude", "no axis"))
}

/// [`gaussian_gradient_magnitude`](super::gaussian_gradient_magnitude) with SciPy's `output`
/// dtype: for each axis of `opts.axes` (all by default) the Gaussian filter over every axis
/// (`sigma`: one value or one per axis of the input) with a first derivative along that one,
/// stored into `O`; then SciPy's `generic_gradient_magnitude` in the output type: each squared
/// and added in place (integers wrap modulo 2^bits, bool is and/or, f32 rounds each step), and
/// `np.sqrt(output, output, casting='unsafe')` (integers: the square root of the value as a
/// float, truncated; a negative wrapped sum gives NaN, stored as the type's minimum for i32/i64,
/// 0 for u8). With no axis, the input stored into `O`; `opts.order` is ignored.
///
/// # Errors
/// As [`gaussian_filter`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{gaussian_gradient_magnitude_as, GaussianOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 0, 0, 0, 200, 0, 0, 0, 0], &[3, 3], &Device::Cpu).unwrap();
/// let g = GaussianOptions::default();
/// let y = gaussian_gradient_magnitude_as::<u8, u8>(&x, &[1.0], &g).unwrap();
/// let z = gaussian_gradient_magnitude_as::<u8, f64>(&x, &[1.0], &g).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![9, 10, 9, 10, 0, 10, 8, 14, 8]); // SciPy's (wrapped) values
/// assert!((z.to_vec().unwrap()[1] - 10.9720).abs() < 1e-4);
/// ```
pub fn gaussian_gradient_magnitude_as<I: Element, O: Element>(
    input: &Array<I>,
    sigma: &[f64],
    opts: &GaussianOptions,
) -> Result<Array<O>> {
    let op = "gaussian_gradient_magnitude";
    let s = Store::of::<O>(op)?;
    let nd = input.ndim();
    let axes = norm_axes(op, &opts.axes, nd)?;
    if sigma.is_empty() {
        return Err(make::arg(op, "no sigma given"));
    }
    let sig = per_axis(op, "sigma", sigma, nd, 0.0)?;
    let modes = axis_modes(op, opts.mode, &opts.modes, axes.len())?;
    let x = load(op, input)?;
    if axes.is_empty() {
        return finish(apply(x, copy_code::<I>(s))?);
    }
    let all: Vec<usize> = (0..nd).collect();
    let mut qs = Vec::with_capacity(axes.len());
    for (k, &a) in axes.iter().enumerate() {
        let mut order = vec![0usize; nd];
        order[a] = 1;
        let passes = gaussian_passes(op, &all, &sig, &order, &[modes[k]], opts)?;
        qs.push(stored_passes(x.clone(), passes, s, copy_code::<I>(s))?);
    }
    match s {
        Store::F64 => finish(sum_of_squares::<f64>(&qs)?.sqrt()?),
        Store::F32 => sum_of_squares::<f32>(&qs)?.sqrt()?.astype::<O>(),
        Store::I32 => int_sqrt(sum_of_squares::<i32>(&qs)?, s),
        Store::I64 => int_sqrt(sum_of_squares::<i64>(&qs)?, s),
        Store::U8 => int_sqrt(sum_of_squares::<u8>(&qs)?, s),
        Store::Bool => {
            // and/or of the stored bytes: nonzero where any derivative is (all bytes are >= 0)
            let mut acc = qs[0].clone();
            for q in &qs[1..] {
                acc = acc.add(q)?;
            }
            finish(acc)
        }
    }
}

/// NumPy's square root of an integer array written back into it (`casting='unsafe'`): the
/// value as f64 (u8's float16 loop gives the same truncated roots below 256), its square root
/// (NaN when negative), stored as the output type.
fn int_sqrt<T: Numeric, O: Element>(a: Array<T>, s: Store) -> Result<Array<O>> {
    finish(store(a.astype::<f64>()?.sqrt()?, s)?)
}

// ---------------------------------------------------------------- generic filters

/// [`generic_filter`] with SciPy's `output` dtype (`scipy.ndimage.generic_filter(input,
/// function, ..., output=O)`): the input read as f64, the function's f64 value per footprint
/// stored in `O` with the C casts of the [module](self) doc (truncation; u8 wraps through i32;
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
