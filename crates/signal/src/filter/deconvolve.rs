//! Polynomial division, SciPy's [`deconvolve`]: [`lfilter`](crate::lfilter)'s impulse response
//! and a direct convolution.

use super::iir::lfilter;
use crate::procutil::{from_f64, SignalScalar};
use crate::{convolve, ConvMethod, ConvMode, ConvOptions};
use cusci_core::array::check_same_device;
use cusci_core::error::make;
use cusci_core::{Array, Result};

/// Polynomial division of `signal` by `divisor` (deconvolution), SciPy's
/// `scipy.signal.deconvolve(signal, divisor)`: `signal = convolve(divisor, quotient) +
/// remainder`. The quotient is [`lfilter`](crate::lfilter)'s impulse response of
/// `signal / divisor`, the remainder `signal - convolve(divisor, quotient)`, both on the inputs'
/// device. A divisor longer than the signal gives an empty quotient and the signal as remainder.
///
/// # Errors
/// `ShapeMismatch` for inputs that are not 1-D; `InvalidArgument` for empty inputs or a zero
/// leading divisor coefficient (lfilter's); `DeviceMismatch`.
///
/// ```
/// use cusci_signal::{deconvolve, Array, Device};
/// let d = Device::cpu();
/// let s = Array::from_vec(vec![1.0f64, 3.0, 2.0], &[3], &d).unwrap(); // (1 + x)(1 + 2x)
/// let v = Array::from_vec(vec![1.0f64, 1.0], &[2], &d).unwrap();
/// let (q, r) = deconvolve(&s, &v).unwrap();
/// assert_eq!(q.to_vec().unwrap(), vec![1.0, 2.0]);
/// assert!(r.to_vec().unwrap().iter().all(|v| v.abs() < 1e-12));
/// ```
pub fn deconvolve<T: SignalScalar>(
    signal: &Array<T>,
    divisor: &Array<T>,
) -> Result<(Array<T>, Array<T>)> {
    let op = "deconvolve";
    if signal.ndim() != 1 || divisor.ndim() != 1 {
        return Err(make::shape(
            op,
            format!(
                "1-D signal and divisor expected, got {:?} and {:?}",
                signal.shape(),
                divisor.shape()
            ),
        ));
    }
    check_same_device(op, signal.device(), divisor.device())?;
    let (n, d) = (signal.size(), divisor.size());
    if n == 0 || d == 0 {
        return Err(make::arg(op, "signal and divisor must not be empty"));
    }
    if d > n {
        return Ok((Array::zeros(&[0], signal.device())?, signal.copy()?));
    }
    let mut imp = vec![T::zero(); n - d + 1];
    imp[0] = from_f64::<T>(1.0);
    let imp = Array::from_vec(imp, &[n - d + 1], signal.device())?;
    let quot = lfilter(signal, divisor, &imp, &Default::default())?.y;
    let o = ConvOptions {
        mode: ConvMode::Full,
        method: ConvMethod::Direct,
    };
    let rem = signal.sub(&convolve(divisor, &quot, &o)?)?;
    Ok((quot, rem))
}
