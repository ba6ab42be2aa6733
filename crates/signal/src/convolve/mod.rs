//! Convolution and correlation (SciPy's convolution family): [`convolve`], [`correlate`],
//! [`fftconvolve`] (1-D with the direct method, one thread per output on the GPU, or the FFT
//! method; N-D through `convnd`), [`convolve2d`], [`correlate2d`], [`oaconvolve`],
//! [`fftconvolve_axes`], [`correlation_lags`] and the choice of method.

mod convnd;
mod convolve2d;
mod direct;
mod method;
mod oaconv;

pub(crate) use convnd::nd_conv;
pub use convnd::{correlation_lags, fftconvolve_axes};
pub(crate) use convolve2d::CONVOLVE2D;
pub use convolve2d::{convolve2d, correlate2d, Conv2dOptions, ConvBoundary};
pub(crate) use direct::CONVOLVE;
pub use method::{
    choose_conv_method, choose_conv_method_measure, choose_conv_method_shapes, ConvMethod,
    ConvMode, ConvOptions, ConvTimes,
};
pub use oaconv::oaconvolve;
pub(crate) use oaconv::OACONV;

use crate::procutil::SignalScalar;
use cusci_core::array::check_same_device;
use cusci_core::error::make;
use cusci_core::{Array, Element, Result};
use direct::{direct, revconj};

fn window(op: &str, n: usize, m: usize, mode: ConvMode) -> Result<(usize, usize)> {
    let full = n + m - 1;
    Ok(match mode {
        ConvMode::Full => (0, full),
        ConvMode::Same => ((full - n) / 2, n),
        ConvMode::Valid => {
            let _ = op;
            let len = n.max(m) - n.min(m) + 1;
            ((full - len) / 2, len)
        }
    })
}

fn check_1d<T: Element>(op: &str, a: &Array<T>, v: &Array<T>) -> Result<()> {
    if a.ndim() != 1 || v.ndim() != 1 {
        return Err(make::shape(
            op,
            format!(
                "1-D inputs expected, got shapes {:?} and {:?}",
                a.shape(),
                v.shape()
            ),
        ));
    }
    check_same_device(op, a.device(), v.device())?;
    if a.is_empty() || v.is_empty() {
        return Err(make::arg(op, "inputs must not be empty"));
    }
    Ok(())
}

/// Convolves two arrays, SciPy's `scipy.signal.convolve(in1, in2, mode, method)`. 1-D inputs
/// have both methods on both devices; N-D inputs (same number of dimensions) use the N-D FFT
/// (see [`fftconvolve_axes`](crate::fftconvolve_axes)), or with [`ConvMethod::Direct`]
/// [`convolve2d`](crate::convolve2d)'s kernel for 2-D and a direct sum over the kernel's points
/// for 3 or more axes (one thread per output on the GPU; `Auto` picks the FFT there).
///
/// # Errors
/// `ShapeMismatch` for inputs with different numbers of dimensions; `InvalidArgument` for empty
/// inputs, or in `Valid` mode when neither input is at least as large as the other on every axis;
/// `DeviceMismatch` when they are on different devices; the FFT's errors for
/// [`ConvMethod::Fft`].
///
/// ```
/// use cusci_signal::{convolve, ConvOptions, Array, Device};
/// let d = Device::cpu();
/// let a = Array::from_vec(vec![1.0, 2.0, 3.0], &[3], &d).unwrap();
/// let v = Array::from_vec(vec![0.0, 1.0, 0.5], &[3], &d).unwrap();
/// let y = convolve(&a, &v, &ConvOptions::default()).unwrap().to_vec().unwrap();
/// assert_eq!(y, vec![0.0, 1.0, 2.5, 4.0, 1.5]);
/// ```
pub fn convolve<T: SignalScalar>(
    a: &Array<T>,
    v: &Array<T>,
    opts: &ConvOptions,
) -> Result<Array<T>> {
    conv("convolve", a, v, opts, false)
}

/// Cross-correlates two arrays (N-D as [`convolve`]), SciPy's
/// `scipy.signal.correlate(in1, in2, mode, method)`:
/// `z[k] = sum_l a[l] conj(v[l - k + m - 1])` (the convolution of `a` with `conj(v[::-1])`).
///
/// # Errors
/// As [`convolve`].
///
/// ```
/// use cusci_signal::{correlate, ConvOptions, ConvMode, Array, Device};
/// let d = Device::cpu();
/// let a = Array::from_vec(vec![1.0, 2.0, 3.0], &[3], &d).unwrap();
/// let v = Array::from_vec(vec![0.0, 1.0, 0.5], &[3], &d).unwrap();
/// let o = ConvOptions { mode: ConvMode::Same, ..Default::default() };
/// assert_eq!(correlate(&a, &v, &o).unwrap().to_vec().unwrap(), vec![2.0, 3.5, 3.0]);
/// ```
pub fn correlate<T: SignalScalar>(
    a: &Array<T>,
    v: &Array<T>,
    opts: &ConvOptions,
) -> Result<Array<T>> {
    conv("correlate", a, v, opts, true)
}

/// Convolves two arrays through FFTs (N-D along every axis), SciPy's
/// `scipy.signal.fftconvolve(in1, in2, mode)`; with `axes`, see
/// [`fftconvolve_axes`](crate::fftconvolve_axes).
///
/// Real inputs use real transforms of length `next_fast_len(n + m - 1)`; the GPU runs cuFFT
/// through `cusci_fft` on the arrays' stream.
///
/// # Errors
/// As [`convolve`].
///
/// ```
/// use cusci_signal::{fftconvolve, ConvMode, Array, Device};
/// let d = Device::cpu();
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3], &d).unwrap();
/// let v = Array::from_vec(vec![0.0f64, 1.0, 0.5], &[3], &d).unwrap();
/// let y = fftconvolve(&a, &v, ConvMode::Full).unwrap().to_vec().unwrap();
/// assert!((y[2] - 2.5).abs() < 1e-12);
/// ```
pub fn fftconvolve<T: SignalScalar>(
    a: &Array<T>,
    v: &Array<T>,
    mode: ConvMode,
) -> Result<Array<T>> {
    conv(
        "fftconvolve",
        a,
        v,
        &ConvOptions {
            mode,
            method: ConvMethod::Fft,
        },
        false,
    )
}

fn conv<T: SignalScalar>(
    op: &str,
    a: &Array<T>,
    v: &Array<T>,
    opts: &ConvOptions,
    corr: bool,
) -> Result<Array<T>> {
    if a.ndim() != 1 || v.ndim() != 1 {
        return nd_conv(op, a, v, opts.mode, None, corr, opts.method);
    }
    check_1d(op, a, v)?;
    let (n, m) = (a.size(), v.size());
    let (start, len) = window(op, n, m, opts.mode)?;
    let method = match opts.method {
        ConvMethod::Auto => {
            // SciPy's convolve swaps the inputs for valid mode before choosing
            let (x, y) = if opts.mode == ConvMode::Valid && n < m {
                (m, n)
            } else {
                (n, m)
            };
            let c = T::DTYPE.is_complex();
            let single = matches!(T::DTYPE, cusci_core::DType::F32 | cusci_core::DType::C32);
            choose_conv_method_shapes(&[x], &[y], opts.mode, c, single, a.device().is_cuda())
        }
        x => x,
    };
    match method {
        ConvMethod::Fft => {
            let w = if corr { revconj(v)? } else { v.clone() };
            let full = T::fft_convolve_full(&a.contiguous()?, &w.contiguous()?)?;
            full.slice_axis(0, Some(start as isize), Some((start + len) as isize), 1)?
                .contiguous()
        }
        _ => direct(a, v, corr, start, len),
    }
}
