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

mod derivatives;
mod generic;
mod linear;
mod rank;

pub use derivatives::{
    gaussian_gradient_magnitude_as, gaussian_laplace_as, laplace_as, prewitt_as, sobel_as,
};
pub use generic::{generic_filter1d_as, generic_filter_as};
pub use linear::{
    convolve1d_as, convolve_as, correlate1d_as, correlate_as, gaussian_filter1d_as,
    gaussian_filter_as, uniform_filter1d_as, uniform_filter_as,
};
pub use rank::{
    maximum_filter1d_as, maximum_filter_as, median_filter_as, minimum_filter1d_as,
    minimum_filter_as, percentile_filter_as, rank_filter_as,
};

use cusci_core::cuda::launch::{KernelModule, Spec};
use cusci_core::dtype::{DType, Element};
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
