//! Element types and the traits that say what each one can do.
//!
//! | Rust | [`DType`] | NumPy | CUDA (kernels) |
//! |---|---|---|---|
//! | `f32` | `F32` | float32 | `float` |
//! | `f64` | `F64` | float64 | `double` |
//! | [`c32`] | `C32` | complex64 | `cplx32` |
//! | [`c64`] | `C64` | complex128 | `cplx64` |
//! | `i32` | `I32` | int32 | `int` |
//! | `i64` | `I64` | int64 | `i64` (long long) |
//! | `u8` | `U8` | uint8 | `u8` (unsigned char) |
//! | `bool` | `Bool` | bool | `bool` |
//!
//! Integer arithmetic wraps on overflow and integer division by zero gives 0 (NumPy's result, without
//! its warning), on both devices. Casts follow NumPy: float to integer truncates toward zero and
//! saturates (NaN gives 0 on both devices, where NumPy's result is undefined); complex to real keeps
//! the real part; anything to bool is `x != 0`.

use num_complex::Complex;
use std::fmt;

/// Complex with f32 parts (NumPy complex64).
#[allow(non_camel_case_types)]
pub type c32 = Complex<f32>;
/// Complex with f64 parts (NumPy complex128).
#[allow(non_camel_case_types)]
pub type c64 = Complex<f64>;

/// The element type of an array, known at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    F32,
    F64,
    C32,
    C64,
    I32,
    I64,
    U8,
    Bool,
}

impl DType {
    /// Every element type.
    pub const ALL: [DType; 8] = [
        DType::F32,
        DType::F64,
        DType::C32,
        DType::C64,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::Bool,
    ];

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::F32 | DType::I32 => 4,
            DType::F64 | DType::I64 | DType::C32 => 8,
            DType::C64 => 16,
            DType::U8 | DType::Bool => 1,
        }
    }
    /// NumPy's name of the type.
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::C32 => "complex64",
            DType::C64 => "complex128",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::U8 => "uint8",
            DType::Bool => "bool",
        }
    }
    /// A short tag for kernel names (`f32`, `c64`, `u8`, `bool`, ...).
    pub fn tag(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::C32 => "c32",
            DType::C64 => "c64",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "u8",
            DType::Bool => "bool",
        }
    }
    /// The type's name in cusci's CUDA kernels.
    pub fn cuda_name(self) -> &'static str {
        match self {
            DType::F32 => "float",
            DType::F64 => "double",
            DType::C32 => "cplx32",
            DType::C64 => "cplx64",
            DType::I32 => "int",
            DType::I64 => "i64",
            DType::U8 => "u8",
            DType::Bool => "bool",
        }
    }
    /// True for the complex types.
    pub fn is_complex(self) -> bool {
        matches!(self, DType::C32 | DType::C64)
    }
    /// True for f32 and f64.
    pub fn is_real_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64)
    }
    /// True for the integer types (bool excluded).
    pub fn is_integer(self) -> bool {
        matches!(self, DType::I32 | DType::I64 | DType::U8)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A value that a kernel takes by value (see [`crate::cuda::launch`]): plain data with no
/// pointers to host memory. Every [`Element`] is one.
///
/// # Safety
/// The type must be `Copy` plain data whose bytes the kernel's parameter of the same size reads
/// as the same value (`#[repr(C)]` for structs, with the CUDA side's field order and padding).
pub unsafe trait KernelParam: Copy + 'static {}

/// Every element type an [`Array`](crate::Array) can hold. Sealed: the eight types of the table above.
pub trait Element:
    Copy + Send + Sync + Default + PartialEq + fmt::Debug + 'static + sealed::Sealed + KernelParam
{
    /// The run-time tag of the type.
    const DTYPE: DType;
    /// Zero (false).
    fn zero() -> Self;
    /// One (true).
    fn one() -> Self;
    /// The value as a complex f64 (integers exact up to 2^53).
    fn to_c64(self) -> c64;
    /// The value as i64 (floats truncated toward zero and saturated, NaN to 0; complex: real part).
    fn to_i64(self) -> i64;
    /// Conversion from a complex f64 with NumPy's casting rules.
    fn from_c64(v: c64) -> Self;
    /// Conversion from an i64 (wrapping for narrower integers, as NumPy).
    fn from_i64(v: i64) -> Self;
    /// Cast to another element type with NumPy's rules (see the module doc).
    #[inline]
    fn cast<U: Element>(self) -> U {
        if (Self::DTYPE.is_integer() || Self::DTYPE == DType::Bool) && U::DTYPE != DType::Bool {
            U::from_i64(self.to_i64())
        } else {
            U::from_c64(self.to_c64())
        }
    }
    /// True when the value is NaN (or has a NaN part); false for non-float types.
    fn is_nan(self) -> bool {
        false
    }
}

/// The real types (floats and integers): converted with `as`; float to integer truncates toward
/// zero and saturates, NaN to 0 (as CUDA's cvt.rzi). `$is_nan` for the floats.
macro_rules! real {
    ($t:ty, $d:ident, $zero:literal, $one:literal $(, $is_nan:path)?) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            fn zero() -> Self {
                $zero
            }
            fn one() -> Self {
                $one
            }
            #[inline]
            fn to_c64(self) -> c64 {
                c64::new(self as f64, 0.0)
            }
            #[inline]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline]
            fn from_c64(v: c64) -> Self {
                v.re as $t
            }
            #[inline]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            $(
                fn is_nan(self) -> bool {
                    $is_nan(self)
                }
            )?
        }
    };
}
real!(f32, F32, 0.0, 1.0, f32::is_nan);
real!(f64, F64, 0.0, 1.0, f64::is_nan);
real!(i32, I32, 0, 1);
real!(i64, I64, 0, 1);
real!(u8, U8, 0, 1);

macro_rules! complex_float {
    ($t:ty, $r:ty, $d:ident) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            fn zero() -> Self {
                Complex::new(0.0, 0.0)
            }
            fn one() -> Self {
                Complex::new(1.0, 0.0)
            }
            #[inline]
            fn to_c64(self) -> c64 {
                c64::new(self.re as f64, self.im as f64)
            }
            #[inline]
            fn to_i64(self) -> i64 {
                self.re as i64
            }
            #[inline]
            fn from_c64(v: c64) -> Self {
                Complex::new(v.re as $r, v.im as $r)
            }
            #[inline]
            fn from_i64(v: i64) -> Self {
                Complex::new(v as $r, 0.0)
            }
            fn is_nan(self) -> bool {
                self.re.is_nan() || self.im.is_nan()
            }
        }
    };
}
complex_float!(c32, f32, C32);
complex_float!(c64, f64, C64);

impl sealed::Sealed for bool {}
impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn zero() -> Self {
        false
    }
    fn one() -> Self {
        true
    }
    #[inline]
    fn to_c64(self) -> c64 {
        c64::new(self as u8 as f64, 0.0)
    }
    #[inline]
    fn to_i64(self) -> i64 {
        self as i64
    }
    #[inline]
    fn from_c64(v: c64) -> Self {
        v.re != 0.0 || v.im != 0.0
    }
    #[inline]
    fn from_i64(v: i64) -> Self {
        v != 0
    }
}

/// Types with arithmetic: all but bool. Integer operations wrap; integer division by zero is 0.
pub trait Numeric: Element {
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
}

macro_rules! numeric_float {
    ($($t:ty),*) => {$(
        impl Numeric for $t {
            #[inline] fn add(self, o: Self) -> Self { self + o }
            #[inline] fn sub(self, o: Self) -> Self { self - o }
            #[inline] fn mul(self, o: Self) -> Self { self * o }
            #[inline] fn div(self, o: Self) -> Self { self / o }
        }
    )*};
}
numeric_float!(f32, f64);

macro_rules! numeric_complex {
    ($($t:ty),*) => {$(
        impl Numeric for $t {
            #[inline] fn add(self, o: Self) -> Self { self + o }
            #[inline] fn sub(self, o: Self) -> Self { self - o }
            #[inline] fn mul(self, o: Self) -> Self { self * o }
            #[inline] fn div(self, o: Self) -> Self { crate::math::cdiv(self, o) }
        }
    )*};
}
numeric_complex!(c32, c64);

macro_rules! numeric_int {
    ($($t:ty),*) => {$(
        impl Numeric for $t {
            #[inline] fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline] fn sub(self, o: Self) -> Self { self.wrapping_sub(o) }
            #[inline] fn mul(self, o: Self) -> Self { self.wrapping_mul(o) }
            #[inline] fn div(self, o: Self) -> Self { if o == 0 { 0 } else { self.wrapping_div(o) } }
        }
    )*};
}
numeric_int!(i32, i64, u8);

/// Totally ordered for cusci's purposes: the real and integer types and bool. Floats order NaN
/// as NumPy does in min/max (NaN propagates) and argmin/argmax (the first NaN wins).
pub trait Ordered: Element + PartialOrd {}
impl Ordered for f32 {}
impl Ordered for f64 {}
impl Ordered for i32 {}
impl Ordered for i64 {}
impl Ordered for u8 {}
impl Ordered for bool {}

/// The floating types, real and complex: f32, f64, c32, c64.
pub trait Float: Numeric {
    /// The real type of the parts (f32 or f64).
    type Real: RealFloat;
    /// Builds a value from a real.
    fn from_real(r: Self::Real) -> Self;
    /// |x| (the modulus for complex).
    fn abs(self) -> Self::Real;
    /// |x|² without overflow concerns beyond the type's.
    fn abs2(self) -> Self::Real;
    fn sqrt(self) -> Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tanh(self) -> Self;
    fn powf(self, e: Self) -> Self;
    fn conj(self) -> Self;
    fn re(self) -> Self::Real;
    fn im(self) -> Self::Real;
}

/// f32 and f64.
pub trait RealFloat: Float<Real = Self> + Ordered + num_traits::Float {
    /// Machine epsilon.
    const EPS: Self;
    /// Conversion from f64 (rounding).
    fn from_f64(v: f64) -> Self;
    /// Conversion to f64.
    fn to_f64(self) -> f64;
}

macro_rules! float_real {
    ($t:ty) => {
        impl Float for $t {
            type Real = $t;
            #[inline]
            fn from_real(r: $t) -> Self {
                r
            }
            #[inline]
            fn abs(self) -> $t {
                <$t>::abs(self)
            }
            #[inline]
            fn abs2(self) -> $t {
                self * self
            }
            #[inline]
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            #[inline]
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            #[inline]
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            #[inline]
            fn sin(self) -> Self {
                <$t>::sin(self)
            }
            #[inline]
            fn cos(self) -> Self {
                <$t>::cos(self)
            }
            #[inline]
            fn tanh(self) -> Self {
                <$t>::tanh(self)
            }
            #[inline]
            fn powf(self, e: Self) -> Self {
                <$t>::powf(self, e)
            }
            #[inline]
            fn conj(self) -> Self {
                self
            }
            #[inline]
            fn re(self) -> $t {
                self
            }
            #[inline]
            fn im(self) -> $t {
                0.0
            }
        }
        impl RealFloat for $t {
            const EPS: $t = <$t>::EPSILON;
            #[inline]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    };
}
float_real!(f32);
float_real!(f64);

macro_rules! float_complex {
    ($t:ty, $r:ty) => {
        impl Float for $t {
            type Real = $r;
            #[inline]
            fn from_real(r: $r) -> Self {
                Complex::new(r, 0.0)
            }
            #[inline]
            fn abs(self) -> $r {
                self.norm()
            }
            #[inline]
            fn abs2(self) -> $r {
                self.norm_sqr()
            }
            #[inline]
            fn sqrt(self) -> Self {
                Complex::sqrt(self)
            }
            #[inline]
            fn exp(self) -> Self {
                Complex::exp(self)
            }
            #[inline]
            fn ln(self) -> Self {
                Complex::ln(self)
            }
            #[inline]
            fn sin(self) -> Self {
                Complex::sin(self)
            }
            #[inline]
            fn cos(self) -> Self {
                Complex::cos(self)
            }
            #[inline]
            fn tanh(self) -> Self {
                Complex::tanh(self)
            }
            #[inline]
            fn powf(self, e: Self) -> Self {
                crate::math::cpow(self, e)
            }
            #[inline]
            fn conj(self) -> Self {
                Complex::conj(&self)
            }
            #[inline]
            fn re(self) -> $r {
                self.re
            }
            #[inline]
            fn im(self) -> $r {
                self.im
            }
        }
    };
}
float_complex!(c32, f32);
float_complex!(c64, f64);
