//! Dtype promotion: SciPy's IIR filters (`lfilter`, `sosfilt`, `filtfilt`, `sosfiltfilt`), its
//! convolutions (`convolve`, `correlate`, `fftconvolve`, `oaconvolve`, `convolve2d`,
//! `correlate2d`) and `upfirdn` compute in `np.result_type` of their operands; the typed entry
//! points of this crate want one element type, so these wrappers cast both sides to the promoted
//! type ([`Promote`]) on their device first (no copy for a side that already has it).

use super::filtfilt::{filtfilt, sosfiltfilt, FiltfiltOptions};
use super::iir::{lfilter, sosfilt, FilterOptions, Filtered};
use crate::procutil::SignalScalar;
use cusci_core::{c32, c64, Array, Result};

/// NumPy's `result_type` over this crate's filter element types (`f32`, `f64`, `c32`, `c64`):
/// `<A as Promote<B>>::Output` is the type SciPy computes in when coefficients of type `A` meet
/// data of type `B` (f32 with f64 → f64; a real with a complex → the complex type of the wider
/// precision; c32 with f64 → c64).
///
/// ```
/// use cusci_signal::Promote;
/// use cusci_core::{c32, c64, Element, DType};
/// assert_eq!(<<f32 as Promote<f64>>::Output as Element>::DTYPE, DType::F64);
/// assert_eq!(<<f64 as Promote<c32>>::Output as Element>::DTYPE, DType::C64);
/// assert_eq!(<<f32 as Promote<c32>>::Output as Element>::DTYPE, DType::C32);
/// ```
pub trait Promote<B: SignalScalar>: SignalScalar {
    /// The promoted element type.
    type Output: SignalScalar;
}

macro_rules! promote {
    ($($a:ty, $b:ty => $o:ty;)*) => {
        $(impl Promote<$b> for $a {
            type Output = $o;
        })*
    };
}

promote! {
    f32, f32 => f32; f32, f64 => f64; f32, c32 => c32; f32, c64 => c64;
    f64, f32 => f64; f64, f64 => f64; f64, c32 => c64; f64, c64 => c64;
    c32, f32 => c32; c32, f64 => c64; c32, c32 => c32; c32, c64 => c64;
    c64, f32 => c64; c64, f64 => c64; c64, c32 => c64; c64, c64 => c64;
}

/// `a` as `U`: the same array when the types agree (no copy), else NumPy's cast on its device.
fn cast<A: SignalScalar, U: SignalScalar>(a: &Array<A>) -> Result<Array<U>> {
    let any: &dyn std::any::Any = a;
    match any.downcast_ref::<Array<U>>() {
        Some(same) => Ok(same.clone()),
        None => a.astype::<U>(),
    }
}

/// [`lfilter`] with coefficients and data of different element types, SciPy's dtype rule:
/// `b`, `a` (type `C`) and `x` (type `X`) are cast to `np.result_type(C, X)`
/// ([`Promote`]) and filtered there; `zi` is given in that type. Casting up is exact (f32 → f64),
/// so f32 coefficients with f64 data give SciPy's f64 result to rounding.
///
/// # Errors
/// As [`lfilter`].
///
/// ```
/// use cusci_signal::{lfilter_promote, FilterOptions, Array, Device};
/// let dev = Device::cpu();
/// let b = Array::from_vec(vec![0.5f32, 0.5], &[2], &dev).unwrap();
/// let a = Array::from_vec(vec![1.0f32], &[1], &dev).unwrap();
/// let x = Array::from_vec(vec![1.0f64, 0.1, 0.0], &[3], &dev).unwrap();
/// let y = lfilter_promote(&b, &a, &x, &FilterOptions::default()).unwrap().y; // f64
/// assert_eq!(y.to_vec().unwrap(), vec![0.5, 0.55, 0.05]);
/// ```
#[allow(clippy::type_complexity)]
pub fn lfilter_promote<C, X>(
    b: &Array<C>,
    a: &Array<C>,
    x: &Array<X>,
    opts: &FilterOptions<<C as Promote<X>>::Output>,
) -> Result<Filtered<<C as Promote<X>>::Output>>
where
    C: Promote<X>,
    X: SignalScalar,
{
    lfilter(&cast(b)?, &cast(a)?, &cast(x)?, opts)
}

/// [`sosfilt`] with `sos` and `x` of different element types, cast to
/// `np.result_type(sos, x)` ([`Promote`]) as SciPy computes; `zi` in that type.
///
/// # Errors
/// As [`sosfilt`].
///
/// ```
/// use cusci_signal::{sosfilt_promote, FilterOptions, Array, Device};
/// use cusci_core::c64;
/// let dev = Device::cpu();
/// let sos = Array::from_vec(vec![1.0f32, 0.0, 0.0, 1.0, -0.5, 0.0], &[1, 6], &dev).unwrap();
/// let x = Array::from_vec(vec![c64::new(1.0, 1.0), c64::new(0.0, 0.0)], &[2], &dev).unwrap();
/// let y = sosfilt_promote(&sos, &x, &FilterOptions::default()).unwrap().y; // c64
/// assert_eq!(y.to_vec().unwrap()[1], c64::new(0.5, 0.5));
/// ```
#[allow(clippy::type_complexity)]
pub fn sosfilt_promote<C, X>(
    sos: &Array<C>,
    x: &Array<X>,
    opts: &FilterOptions<<C as Promote<X>>::Output>,
) -> Result<Filtered<<C as Promote<X>>::Output>>
where
    C: Promote<X>,
    X: SignalScalar,
{
    sosfilt(&cast(sos)?, &cast(x)?, opts)
}

/// [`filtfilt`] with coefficients and data of different element types, cast to
/// `np.result_type(b, a, x)` ([`Promote`]) as SciPy computes.
///
/// Numerics: the edge states (`lfilter_zi`) are solved in the promoted type. SciPy solves them
/// in the coefficients' type (float32 for float32 coefficients) before filtering in float64, so
/// with f32 coefficients and f64 data the results differ from SciPy's by the f32 rounding of
/// those states (1e-9 relative in the test; below 1e-6 in general); with wider coefficients they
/// agree to rounding.
///
/// # Errors
/// As [`filtfilt`].
///
/// ```
/// use cusci_signal::{filtfilt_promote, FiltfiltOptions, Array, Device};
/// let d = Device::cpu();
/// let b = Array::from_vec(vec![0.5f64, 0.5], &[2], &d).unwrap();
/// let a = Array::from_vec(vec![1.0f64], &[1], &d).unwrap();
/// let x = Array::from_vec(vec![2.0f32; 10], &[10], &d).unwrap();
/// let y: Vec<f64> = filtfilt_promote(&b, &a, &x, &FiltfiltOptions::default()).unwrap().to_vec().unwrap();
/// assert!(y.iter().all(|v| (v - 2.0).abs() < 1e-12));
/// ```
pub fn filtfilt_promote<C, X>(
    b: &Array<C>,
    a: &Array<C>,
    x: &Array<X>,
    opts: &FiltfiltOptions,
) -> Result<Array<<C as Promote<X>>::Output>>
where
    C: Promote<X>,
    X: SignalScalar,
{
    filtfilt(&cast(b)?, &cast(a)?, &cast(x)?, opts)
}

/// [`sosfiltfilt`] with `sos` and `x` of different element types, cast to
/// `np.result_type(sos, x)` ([`Promote`]) as SciPy computes.
///
/// Numerics: as [`filtfilt_promote`] (SciPy's `sosfilt_zi` of f32 sections is f32; here the
/// states are solved in the promoted type).
///
/// # Errors
/// As [`sosfiltfilt`].
///
/// ```
/// use cusci_signal::{sosfiltfilt_promote, FiltfiltOptions, Array, Device};
/// let d = Device::cpu();
/// let sos = Array::from_vec(vec![0.5f32, 0.5, 0.0, 1.0, 0.0, 0.0], &[1, 6], &d).unwrap();
/// let x = Array::from_vec(vec![1.0f64; 16], &[16], &d).unwrap();
/// let y: Vec<f64> = sosfiltfilt_promote(&sos, &x, &FiltfiltOptions::default()).unwrap().to_vec().unwrap();
/// assert!(y.iter().all(|v| (v - 1.0).abs() < 1e-12));
/// ```
pub fn sosfiltfilt_promote<C, X>(
    sos: &Array<C>,
    x: &Array<X>,
    opts: &FiltfiltOptions,
) -> Result<Array<<C as Promote<X>>::Output>>
where
    C: Promote<X>,
    X: SignalScalar,
{
    sosfiltfilt(&cast(sos)?, &cast(x)?, opts)
}

/// The promoted type of `A` and `B` ([`Promote`]).
pub type Promoted<A, B> = <A as Promote<B>>::Output;

macro_rules! promote_pair {
    ($(#[$doc:meta])* $name:ident => $f:path, ($($arg:ident : $ty:ty),*)) => {
        $(#[$doc])*
        pub fn $name<A, B>(
            in1: &Array<A>,
            in2: &Array<B>,
            $($arg: $ty,)*
        ) -> Result<Array<Promoted<A, B>>>
        where
            A: Promote<B>,
            B: SignalScalar,
        {
            $f(&cast(in1)?, &cast(in2)?, $($arg),*)
        }
    };
}

promote_pair!(
    /// [`convolve`](crate::convolve) of arrays of different element types, computed in
    /// `np.result_type(in1, in2)` ([`Promote`]) as SciPy's `convolve` (every method; with the
    /// FFT method SciPy's float32 operand is transformed in single precision, see
    /// [`fftconvolve_promote`]).
    ///
    /// # Errors
    /// As [`convolve`](crate::convolve).
    ///
    /// ```
    /// use cusci_signal::{convolve_promote, ConvOptions, Array, Device};
    /// let d = Device::cpu();
    /// let a = Array::from_vec(vec![1.0f32, 2.0], &[2], &d).unwrap();
    /// let v = Array::from_vec(vec![0.5f64, 0.25], &[2], &d).unwrap();
    /// let y: Vec<f64> = convolve_promote(&a, &v, &ConvOptions::default()).unwrap().to_vec().unwrap();
    /// assert_eq!(y, vec![0.5, 1.25, 0.5]);
    /// ```
    convolve_promote => crate::convolve, (opts: &crate::ConvOptions)
);
promote_pair!(
    /// [`correlate`](crate::correlate) of arrays of different element types, computed in
    /// `np.result_type(in1, in2)` ([`Promote`]) as SciPy's `correlate`.
    ///
    /// # Errors
    /// As [`correlate`](crate::correlate).
    ///
    /// ```
    /// use cusci_signal::{correlate_promote, ConvOptions, Array, Device};
    /// use cusci_core::c64;
    /// let d = Device::cpu();
    /// let a = Array::from_vec(vec![1.0f32, 2.0], &[2], &d).unwrap();
    /// let v = Array::from_vec(vec![c64::new(0.0, 1.0)], &[1], &d).unwrap();
    /// let y = correlate_promote(&a, &v, &ConvOptions::default()).unwrap().to_vec().unwrap();
    /// assert_eq!(y, vec![c64::new(0.0, -1.0), c64::new(0.0, -2.0)]); // conj(v)
    /// ```
    correlate_promote => crate::correlate, (opts: &crate::ConvOptions)
);
promote_pair!(
    /// [`fftconvolve`](crate::fftconvolve) of arrays of different element types, computed in
    /// `np.result_type(in1, in2)` ([`Promote`]) as SciPy's `fftconvolve`.
    ///
    /// Numerics: both operands are transformed in the promoted type. SciPy transforms each
    /// operand in its own precision (`scipy.fft` keeps float32), so with a float32 operand and
    /// a float64 one SciPy's float64 result carries the float32 transform's rounding (about
    /// 1e-7 relative); this result is the float64 convolution of the exact values.
    ///
    /// # Errors
    /// As [`fftconvolve`](crate::fftconvolve).
    ///
    /// ```
    /// use cusci_signal::{fftconvolve_promote, ConvMode, Array, Device};
    /// let d = Device::cpu();
    /// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3], &d).unwrap();
    /// let v = Array::from_vec(vec![1.0f32], &[1], &d).unwrap();
    /// let y: Vec<f64> = fftconvolve_promote(&a, &v, ConvMode::Full).unwrap().to_vec().unwrap();
    /// assert!((y[2] - 3.0).abs() < 1e-12);
    /// ```
    fftconvolve_promote => crate::fftconvolve, (mode: crate::ConvMode)
);
promote_pair!(
    /// [`oaconvolve`](crate::oaconvolve) of arrays of different element types, computed in
    /// `np.result_type(in1, in2)` ([`Promote`]) as SciPy's `oaconvolve`.
    ///
    /// Numerics: as [`fftconvolve_promote`] (SciPy transforms a float32 operand in single
    /// precision; here everything is in the promoted type).
    ///
    /// # Errors
    /// As [`oaconvolve`](crate::oaconvolve).
    ///
    /// ```
    /// use cusci_signal::{oaconvolve_promote, ConvMode, Array, Device};
    /// let d = Device::cpu();
    /// let a = Array::from_vec(vec![1.0f32; 8], &[8], &d).unwrap();
    /// let v = Array::from_vec(vec![0.5f64; 2], &[2], &d).unwrap();
    /// let y: Vec<f64> = oaconvolve_promote(&a, &v, ConvMode::Valid, None).unwrap().to_vec().unwrap();
    /// assert!(y.iter().all(|x| (x - 1.0).abs() < 1e-12));
    /// ```
    oaconvolve_promote => crate::oaconvolve, (mode: crate::ConvMode, axes: Option<&[isize]>)
);
promote_pair!(
    /// [`convolve2d`](crate::convolve2d) of arrays of different element types, computed in
    /// `np.result_type(in1, in2)` ([`Promote`]) as SciPy's `convolve2d` (`fillvalue` in that
    /// type).
    ///
    /// # Errors
    /// As [`convolve2d`](crate::convolve2d).
    ///
    /// ```
    /// use cusci_signal::{convolve2d_promote, Conv2dOptions, Array, Device};
    /// let d = Device::cpu();
    /// let a = Array::from_vec(vec![1.0f32; 4], &[2, 2], &d).unwrap();
    /// let k = Array::from_vec(vec![2.0f64], &[1, 1], &d).unwrap();
    /// let y: Vec<f64> = convolve2d_promote(&a, &k, &Conv2dOptions::default()).unwrap().to_vec().unwrap();
    /// assert_eq!(y, vec![2.0; 4]);
    /// ```
    convolve2d_promote => crate::convolve2d, (opts: &crate::Conv2dOptions<Promoted<A, B>>)
);
promote_pair!(
    /// [`correlate2d`](crate::correlate2d) of arrays of different element types, computed in
    /// `np.result_type(in1, in2)` ([`Promote`]) as SciPy's `correlate2d`.
    ///
    /// # Errors
    /// As [`correlate2d`](crate::correlate2d).
    ///
    /// ```
    /// use cusci_signal::{correlate2d_promote, Conv2dOptions, Array, Device};
    /// let d = Device::cpu();
    /// let a = Array::from_vec(vec![1.0f64; 4], &[2, 2], &d).unwrap();
    /// let k = Array::from_vec(vec![3.0f32], &[1, 1], &d).unwrap();
    /// let y: Vec<f64> = correlate2d_promote(&a, &k, &Conv2dOptions::default()).unwrap().to_vec().unwrap();
    /// assert_eq!(y, vec![3.0; 4]);
    /// ```
    correlate2d_promote => crate::correlate2d, (opts: &crate::Conv2dOptions<Promoted<A, B>>)
);

/// [`upfirdn`](crate::upfirdn) with taps `h` and signal `x` of different element types, computed
/// in `np.result_type(h, x)` ([`Promote`]) as SciPy's `upfirdn`.
///
/// # Errors
/// As [`upfirdn`](crate::upfirdn).
///
/// ```
/// use cusci_signal::{upfirdn_promote, UpfirdnOptions, Array, Device};
/// let d = Device::cpu();
/// let h = Array::from_vec(vec![1.0f64, 1.0], &[2], &d).unwrap();
/// let x = Array::from_vec(vec![1.0f32, 2.0], &[2], &d).unwrap();
/// let y: Vec<f64> = upfirdn_promote(&h, &x, 1, 1, &UpfirdnOptions::default()).unwrap().to_vec().unwrap();
/// assert_eq!(y, vec![1.0, 3.0, 2.0]);
/// ```
pub fn upfirdn_promote<A, B>(
    h: &Array<A>,
    x: &Array<B>,
    up: usize,
    down: usize,
    opts: &crate::UpfirdnOptions<Promoted<A, B>>,
) -> Result<Array<Promoted<A, B>>>
where
    A: Promote<B>,
    B: SignalScalar,
{
    crate::upfirdn(&cast(h)?, &cast(x)?, up, down, opts)
}
