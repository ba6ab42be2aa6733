//! SciPy's store of a double into the `output` dtype (the C casts), on both devices, and the
//! stored-pass chain of the `*_as` filters (see the [filters](super) doc, "Output types").
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
    pub(crate) fn code(self) -> i32 {
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

pub(crate) fn store(a: Array<f64>, s: Store) -> Result<Array<f64>> {
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
pub(crate) fn stored_passes(
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

/// `cval` as SciPy's n-D minimum/maximum (non-box footprints) and rank filters read it: cast to
/// the input's C type (`(npy_uint8)-2.0 = 254`; bool is a byte there too; f32 rounded; i32/i64
/// truncated, the minimum out of range).
pub(crate) fn input_cval<I: Element>(op: &str, cval: f64) -> Result<f64> {
    Ok(scast(cval, Store::of::<I>(op)?.code()))
}
