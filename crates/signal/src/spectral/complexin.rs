//! Complex input for Welch's method: [`welch_complex`], [`csd_complex`], [`periodogram_complex`]
//! and [`coherence_complex`], SciPy's `welch`, `csd`, `periodogram` and `coherence` of complex
//! data (two-sided spectra). The frames of the real and imaginary parts go through the real
//! route's framing kernel and two-sided transform and are combined as `X = A + iB` (framing,
//! detrending and windowing are linear in the data); the average (mean, or SciPy's median of the
//! real and imaginary parts with its bias) is the real route's.

use super::frames::average;
use super::options::{Average, WelchOptions};
use super::welch::{analyse_complex, freq_array, welch_params, with_shape};
use cusci_core::array::check_same_device;
use cusci_core::error::make;
use cusci_core::{Array, Result};
use cusci_fft::FftReal;

/// `scipy.signal.welch` of complex `x` (c32/c64): the two-sided power spectral density, real,
/// frequencies in FFT order (`fftfreq`); `return_onesided` is ignored, as SciPy switches it off
/// for complex data (with a warning). Every other option as [`welch`](crate::welch), the median
/// average included.
///
/// Numerics: the real route's frames of both parts combined (see the module documentation);
/// SciPy's values to rounding (1e-12 relative in the tests), the median average included.
///
/// # Errors
/// As [`welch`](crate::welch).
///
/// ```
/// use cusci_signal::{welch_complex, WelchOptions, Array, Device};
/// use cusci_core::c64;
/// // a complex exponential: all its power at one (positive) frequency
/// let x: Vec<c64> = (0..64).map(|i| c64::from_polar(1.0, 0.25 * std::f64::consts::PI * i as f64)).collect();
/// let x = Array::from_vec(x, &[64], &Device::cpu()).unwrap();
/// let o = WelchOptions { nperseg: Some(16), ..Default::default() };
/// let (f, p) = welch_complex::<f64>(&x, &o).unwrap();
/// assert_eq!((f.size(), p.size()), (16, 16));
/// let p = p.to_vec().unwrap();
/// let k = (0..16).max_by(|&i, &j| p[i].total_cmp(&p[j])).unwrap();
/// assert_eq!(k, 2); // f = 0.125
/// ```
pub fn welch_complex<R>(
    x: &Array<<R as FftReal>::Complex>,
    opts: &WelchOptions,
) -> Result<(Array<R>, Array<R>)>
where
    R: FftReal + cusci_fft::FftInput<Complex = <R as FftReal>::Complex>,
{
    let p = welch_params("welch", opts, false);
    let (pl, lead, ax, xf) = analyse_complex::<R>(x, &p, opts.axis)?;
    let rows = lead.iter().product();
    let pxx: Array<R> = average::<R, R>(&xf, None, rows, &pl, opts.average)?;
    Ok((
        freq_array(&pl, x.device())?,
        with_shape(pxx, &lead, &[pl.nfreq], ax)?,
    ))
}

/// `scipy.signal.csd` of complex `x` and `y` (same shape, c32/c64): the two-sided cross power
/// spectral density `mean(conj(X) Y)`, frequencies in FFT order; `return_onesided` is ignored
/// (SciPy switches it off for complex data). Every other option as [`csd`](crate::csd); the
/// median average is SciPy's (the medians of the real and imaginary parts, divided by the bias).
///
/// Numerics: as [`welch_complex`] (1e-12 relative to SciPy in the tests).
///
/// # Errors
/// As [`csd`](crate::csd).
///
/// ```
/// use cusci_signal::{csd_complex, WelchOptions, Array, Device};
/// use cusci_core::c64;
/// let x: Vec<c64> = (0..32).map(|i| c64::new((i as f64).cos(), (0.3 * i as f64).sin())).collect();
/// let x = Array::from_vec(x, &[32], &Device::cpu()).unwrap();
/// let (f, pxy) = csd_complex::<f64>(&x, &x, &WelchOptions { nperseg: Some(8), ..Default::default() }).unwrap();
/// assert_eq!(f.size(), 8);
/// assert!(pxy.to_vec().unwrap().iter().all(|v| v.im.abs() < 1e-12)); // P_xx is real
/// ```
pub fn csd_complex<R>(
    x: &Array<<R as FftReal>::Complex>,
    y: &Array<<R as FftReal>::Complex>,
    opts: &WelchOptions,
) -> Result<(Array<R>, Array<<R as FftReal>::Complex>)>
where
    R: FftReal + cusci_fft::FftInput<Complex = <R as FftReal>::Complex>,
{
    let op = "csd";
    check_same_device(op, x.device(), y.device())?;
    if x.shape() != y.shape() {
        return Err(make::shape(
            op,
            format!(
                "x and y must have the same shape, got {:?} and {:?}",
                x.shape(),
                y.shape()
            ),
        ));
    }
    let p = welch_params(op, opts, false);
    let (pl, lead, ax, xf) = analyse_complex::<R>(x, &p, opts.axis)?;
    let (_, _, _, yf) = analyse_complex::<R>(y, &p, opts.axis)?;
    let rows = lead.iter().product();
    let pxy: Array<<R as FftReal>::Complex> =
        average::<R, <R as FftReal>::Complex>(&xf, Some(&yf), rows, &pl, opts.average)?;
    Ok((
        freq_array(&pl, x.device())?,
        with_shape(pxy, &lead, &[pl.nfreq], ax)?,
    ))
}

/// `scipy.signal.periodogram` of complex `x` (c32/c64): the two-sided periodogram (one segment
/// of the whole signal, cut to `nfft` when shorter; the window defaults to boxcar), real;
/// `return_onesided` is ignored as SciPy ignores it for complex data. As
/// [`periodogram`](crate::periodogram) otherwise; computed as [`welch_complex`] with SciPy's
/// periodogram parameters.
///
/// # Errors
/// As [`periodogram`](crate::periodogram).
///
/// ```
/// use cusci_signal::{periodogram_complex, WelchOptions, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec(vec![c64::new(1.0, 1.0); 8], &[8], &Device::cpu()).unwrap();
/// let o = WelchOptions { detrend: cusci_signal::Detrend::None, ..Default::default() };
/// let (f, p) = periodogram_complex::<f64>(&x, None, &o).unwrap();
/// assert_eq!(f.size(), 8);
/// assert!((p.to_vec().unwrap()[0] - 16.0).abs() < 1e-12); // |sum|^2 / n = 64 * 2 / 8
/// ```
pub fn periodogram_complex<R>(
    x: &Array<<R as FftReal>::Complex>,
    window: Option<super::options::WindowSpec>,
    opts: &WelchOptions,
) -> Result<(Array<R>, Array<R>)>
where
    R: FftReal + cusci_fft::FftInput<Complex = <R as FftReal>::Complex>,
{
    let ax = cusci_core::array::layout::norm_axis("periodogram", opts.axis, x.ndim())?;
    let n = x.shape()[ax];
    let mut xs = x.clone();
    let nperseg = match opts.nfft {
        None => n,
        Some(nf) if nf >= n => n,
        Some(nf) => {
            xs = x.slice_axis(ax as isize, Some(0), Some(nf as isize), 1)?;
            nf
        }
    };
    let o = WelchOptions {
        window: window.unwrap_or(super::options::WindowSpec::Named(crate::Window::Boxcar)),
        nperseg: Some(nperseg),
        noverlap: Some(0),
        average: Average::Mean,
        ..opts.clone()
    };
    welch_complex(&xs, &o)
}

/// `scipy.signal.coherence` of complex `x` and `y` (same shape, c32/c64): the magnitude-squared
/// coherence `|Pxy|² / (Pxx Pyy)` of the two-sided Welch estimates ([`welch_complex`],
/// [`csd_complex`]), frequencies in FFT order; `return_onesided` is ignored as SciPy ignores it
/// for complex data. Every other option as [`coherence`](crate::coherence).
///
/// # Errors
/// As [`csd_complex`].
///
/// ```
/// use cusci_signal::{coherence_complex, WelchOptions, Array, Device};
/// use cusci_core::c64;
/// let x: Vec<c64> = (0..64).map(|i| c64::new(((i * i) % 7) as f64, (i % 3) as f64)).collect();
/// let x = Array::from_vec(x, &[64], &Device::cpu()).unwrap();
/// let (f, c) = coherence_complex::<f64>(&x, &x, &WelchOptions { nperseg: Some(16), ..Default::default() }).unwrap();
/// assert_eq!(f.size(), 16);
/// assert!(c.to_vec().unwrap().iter().all(|v| (v - 1.0).abs() < 1e-9));
/// ```
pub fn coherence_complex<R>(
    x: &Array<<R as FftReal>::Complex>,
    y: &Array<<R as FftReal>::Complex>,
    opts: &WelchOptions,
) -> Result<(Array<R>, Array<R>)>
where
    R: FftReal + cusci_fft::FftInput<Complex = <R as FftReal>::Complex>,
{
    let (f, pxy) = csd_complex::<R>(x, y, opts)?;
    let (_, pxx) = welch_complex::<R>(x, opts)?;
    let (_, pyy) = welch_complex::<R>(y, opts)?;
    Ok((f, pxy.abs2()?.div(&pxx)?.div(&pyy)?))
}
