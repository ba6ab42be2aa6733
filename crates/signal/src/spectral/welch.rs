//! Spectral analysis, SciPy's `periodogram`, `welch`, `csd`, `coherence`, `spectrogram`, `stft`,
//! `istft`, `check_COLA` and `check_NOLA`, batched over every leading signal.
//!
//! One pipeline for every function (SciPy's `_spectral_helper`): frame the (boundary-extended,
//! zero-padded) signal, detrend and window each frame into a `(batch, nseg, nfft)` matrix (one
//! NVRTC kernel on the GPU, rayon on the CPU), one batched real (or complex, two-sided) FFT of
//! every frame through `cusci_fft`, then one pass that scales `|X|²` and averages over frames
//! (a partial-sum kernel and a finishing kernel on the GPU, no host synchronisation), or writes
//! the `(…, freq, time)` spectrogram.

use super::frames::*;
use super::options::*;
use super::plan::*;
use crate::windows::Window;
use cusci_core::array::check_same_device;
use cusci_core::array::layout::norm_axis;
use cusci_core::error::make;
use cusci_core::{Array, Backend, Device, Element, LaunchConfig, RealFloat, Result};
use cusci_fft::{FftComplex, FftOptions, FftReal};
use rayon::prelude::*;

// ------------------------------------------------------------------------------------------
// public functions

#[allow(clippy::type_complexity)]
/// Frames and transforms: the plan, the leading shape, the axis, and `(rows, nseg, nfreq)`.
fn analyse<T>(
    x: &Array<T>,
    p: &Params,
    axis: isize,
) -> Result<(Plan, Vec<usize>, usize, Array<<T as FftReal>::Complex>)>
where
    T: FftReal + cusci_fft::FftInput<Complex = <T as FftReal>::Complex>,
{
    let (xm, lead, ax) = to_rows(p.op, x, axis)?;
    let len = xm.shape()[xm.ndim() - 1];
    if len == 0 {
        return Err(make::arg(p.op, "the input signal is empty"));
    }
    let rows: usize = lead.iter().product();
    let pl = make_plan(p, len)?;
    let fr = frames(&xm, rows, len, &pl)?;
    let xf = transform(&fr, &pl)?;
    Ok((pl, lead, ax, xf))
}

/// The [`Params`] of `op` from the options `$o` (any of [`WelchOptions`], [`SpectrogramOptions`],
/// [`StftOptions`]: the fields they share), one-sided as `$onesided`, overlapping by
/// `nperseg / $div` by default; no boundary extension or padding, not an STFT.
macro_rules! params {
    ($op:expr, $o:expr, $onesided:expr, $div:expr) => {
        Params {
            op: $op,
            fs: $o.fs,
            window: &$o.window,
            nperseg: $o.nperseg,
            default_nperseg: 256,
            noverlap: $o.noverlap,
            default_overlap_div: $div,
            nfft: $o.nfft,
            detrend: $o.detrend,
            onesided: $onesided,
            scaling: $o.scaling,
            boundary: None,
            padded: false,
            stft: false,
        }
    };
}

pub(super) fn welch_params<'a>(op: &'a str, o: &'a WelchOptions, onesided: bool) -> Params<'a> {
    params!(op, o, onesided, 2)
}

pub(super) fn freq_array<T: RealFloat>(pl: &Plan, dev: &Device) -> Result<Array<T>> {
    let f: Vec<T> = pl
        .freqs()
        .into_iter()
        .map(<T as RealFloat>::from_f64)
        .collect();
    let n = f.len();
    Array::from_vec(f, &[n], dev)
}

fn time_array<T: RealFloat>(pl: &Plan, dev: &Device) -> Result<Array<T>> {
    let t: Vec<T> = pl
        .times
        .iter()
        .map(|&v| <T as RealFloat>::from_f64(v))
        .collect();
    let n = t.len();
    Array::from_vec(t, &[n], dev)
}

pub(super) fn with_shape<E: Element>(
    a: Array<E>,
    lead: &[usize],
    tail: &[usize],
    ax: usize,
) -> Result<Array<E>> {
    let shape: Vec<isize> = lead.iter().chain(tail).map(|&v| v as isize).collect();
    place_freq(a.reshape(&shape)?, lead.len(), ax)
}

/// Welch's power spectral density estimate of real `x` along `opts.axis`, SciPy's
/// `scipy.signal.welch`: the average over overlapping detrended, windowed segments of their
/// scaled squared FFT magnitudes. Returns `(f, Pxx)` with the frequency axis of `Pxx` at
/// `axis`; every leading signal is processed in the same pass.
///
/// `nperseg` larger than the signal is cut to its length (SciPy warns and does the same).
///
/// # Errors
/// `InvalidArgument` for `noverlap >= nperseg`, `nfft < nperseg`, `nperseg == 0`, a window
/// array of another length than `nperseg` or longer than the signal, an empty signal, `fs <= 0`,
/// a bad axis; the FFT's errors.
///
/// ```
/// use cusci_signal::{welch, WelchOptions, Array, Device};
/// let x = Array::from_vec((0..64).map(|i| (i as f64 * 0.5).sin()).collect(), &[64], &Device::cpu()).unwrap();
/// let o = WelchOptions { nperseg: Some(16), ..Default::default() };
/// let (f, p) = welch(&x, &o).unwrap();
/// assert_eq!((f.size(), p.size()), (9, 9));
/// ```
pub fn welch<T>(x: &Array<T>, opts: &WelchOptions) -> Result<(Array<T>, Array<T>)>
where
    T: FftReal + cusci_fft::FftInput<Complex = <T as FftReal>::Complex>,
{
    let p = welch_params("welch", opts, opts.return_onesided);
    let (pl, lead, ax, xf) = analyse(x, &p, opts.axis)?;
    let rows = lead.iter().product();
    let pxx: Array<T> = average::<T, T>(&xf, None, rows, &pl, opts.average)?;
    Ok((
        freq_array(&pl, x.device())?,
        with_shape(pxx, &lead, &[pl.nfreq], ax)?,
    ))
}

/// The cross power spectral density of real `x` and `y` (same shape) by Welch's method, SciPy's
/// `scipy.signal.csd`: the average of `conj(X) Y` over segments. Returns `(f, Pxy)` (complex).
///
/// # Errors
/// As [`welch`]; `ShapeMismatch` when `x` and `y` differ in shape; `DeviceMismatch`.
///
/// ```
/// use cusci_signal::{csd, WelchOptions, Array, Device};
/// let x = Array::from_vec((0..32).map(|i| (i as f64).cos()).collect(), &[32], &Device::cpu()).unwrap();
/// let (_, pxy) = csd(&x, &x, &WelchOptions { nperseg: Some(8), ..Default::default() }).unwrap();
/// assert!(pxy.to_vec().unwrap().iter().all(|v| v.im.abs() < 1e-12));
/// ```
pub fn csd<T>(
    x: &Array<T>,
    y: &Array<T>,
    opts: &WelchOptions,
) -> Result<(Array<T>, Array<<T as FftReal>::Complex>)>
where
    T: FftReal + cusci_fft::FftInput<Complex = <T as FftReal>::Complex>,
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
    let p = welch_params(op, opts, opts.return_onesided);
    let (pl, lead, ax, xf) = analyse(x, &p, opts.axis)?;
    let (_, _, _, yf) = analyse(y, &p, opts.axis)?;
    let rows = lead.iter().product();
    let pxy: Array<<T as FftReal>::Complex> =
        average::<T, <T as FftReal>::Complex>(&xf, Some(&yf), rows, &pl, opts.average)?;
    Ok((
        freq_array(&pl, x.device())?,
        with_shape(pxy, &lead, &[pl.nfreq], ax)?,
    ))
}

/// The magnitude-squared coherence `|Pxy|² / (Pxx Pyy)` of real `x` and `y`, SciPy's
/// `scipy.signal.coherence` (Welch estimates with `opts`; `opts.average` is used for all three).
///
/// # Errors
/// As [`csd`].
///
/// ```
/// use cusci_signal::{coherence, WelchOptions, Array, Device};
/// let x = Array::from_vec((0..64).map(|i| ((i * i) % 7) as f64).collect(), &[64], &Device::cpu()).unwrap();
/// let (_, c) = coherence(&x, &x, &WelchOptions { nperseg: Some(16), ..Default::default() }).unwrap();
/// assert!(c.to_vec().unwrap().iter().skip(1).all(|v| (v - 1.0).abs() < 1e-9));
/// ```
pub fn coherence<T>(x: &Array<T>, y: &Array<T>, opts: &WelchOptions) -> Result<(Array<T>, Array<T>)>
where
    T: FftReal + cusci_fft::FftInput<Complex = <T as FftReal>::Complex>,
{
    let (f, pxx) = welch(x, opts)?;
    let (_, pyy) = welch(y, opts)?;
    let (_, pxy) = csd(x, y, opts)?;
    let num = pxy.abs2()?;
    Ok((f, num.div(&pxx)?.div(&pyy)?))
}

/// The periodogram of real `x`, SciPy's `scipy.signal.periodogram(x, fs, window='boxcar', nfft,
/// detrend, return_onesided, scaling, axis)`: one segment of the whole signal (cut to `nfft` when
/// `nfft` is shorter). `opts.nperseg`, `opts.noverlap` and `opts.average` are ignored; the
/// window defaults to boxcar when `opts.window` is `None`.
///
/// # Errors
/// As [`welch`].
///
/// ```
/// use cusci_signal::{periodogram, WelchOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, -1.0, 1.0, -1.0], &[4], &Device::cpu()).unwrap();
/// let (f, p) = periodogram(&x, None, &WelchOptions { detrend: cusci_signal::Detrend::None, ..Default::default() }).unwrap();
/// assert_eq!(f.to_vec().unwrap(), vec![0.0, 0.25, 0.5]);
/// assert!((p.to_vec().unwrap()[2] - 4.0).abs() < 1e-12);
/// ```
pub fn periodogram<T>(
    x: &Array<T>,
    window: Option<WindowSpec>,
    opts: &WelchOptions,
) -> Result<(Array<T>, Array<T>)>
where
    T: FftReal + cusci_fft::FftInput<Complex = <T as FftReal>::Complex>,
{
    let ax = norm_axis("periodogram", opts.axis, x.ndim())?;
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
        window: window.unwrap_or(WindowSpec::Named(Window::Boxcar)),
        nperseg: Some(nperseg),
        noverlap: Some(0),
        average: Average::Mean,
        ..opts.clone()
    };
    welch(&xs, &o)
}

/// The spectrogram of real `x`, SciPy's `scipy.signal.spectrogram`: consecutive Fourier
/// transforms of overlapping segments. Returns `(f, t, Sxx)` with `Sxx` shaped like `x` with
/// the `axis` replaced by frequency and a last axis of segment times.
///
/// # Errors
/// As [`welch`].
///
/// ```
/// use cusci_signal::{spectrogram, SpectrogramOptions, Array, Device};
/// let x = Array::from_vec(vec![0.5f64; 100], &[100], &Device::cpu()).unwrap();
/// let (f, t, s) = spectrogram(&x, &SpectrogramOptions { nperseg: Some(20), ..Default::default() }).unwrap();
/// assert_eq!(s.real().unwrap().shape(), &[f.size(), t.size()]);
/// ```
pub fn spectrogram<T>(
    x: &Array<T>,
    opts: &SpectrogramOptions,
) -> Result<(Array<T>, Array<T>, Sxx<T>)>
where
    T: FftReal + cusci_fft::FftInput<Complex = <T as FftReal>::Complex>,
{
    let p = Params {
        stft: opts.mode != SpectrogramMode::Psd,
        ..params!("spectrogram", opts, opts.return_onesided, 8)
    };
    let (pl, lead, ax, xf) = analyse(x, &p, opts.axis)?;
    spectrogram_out(&pl, &lead, ax, &xf, opts.mode)
}

#[allow(clippy::type_complexity)]
/// The spectrogram of the transformed frames `xf` in `mode`: `(f, t, Sxx)`.
fn spectrogram_out<T>(
    pl: &Plan,
    lead: &[usize],
    ax: usize,
    xf: &Array<<T as FftReal>::Complex>,
    mode: SpectrogramMode,
) -> Result<(Array<T>, Array<T>, Sxx<T>)>
where
    T: FftReal + cusci_fft::FftInput<Complex = <T as FftReal>::Complex>,
{
    let rows = lead.iter().product();
    let tail = [pl.nfreq, pl.nseg];
    let sxx = match mode {
        SpectrogramMode::Complex => Sxx::Complex(with_shape(
            spec::<T, <T as FftReal>::Complex>(xf, rows, pl, 1)?,
            lead,
            &tail,
            ax,
        )?),
        m => {
            let code = match m {
                SpectrogramMode::Psd => 0,
                SpectrogramMode::Magnitude => 2,
                SpectrogramMode::Angle => 3,
                _ => 5,
            };
            Sxx::Real(with_shape(
                spec::<T, T>(xf, rows, pl, code)?,
                lead,
                &tail,
                ax,
            )?)
        }
    };
    Ok((
        freq_array(pl, xf.device())?,
        time_array(pl, xf.device())?,
        sxx,
    ))
}

/// Frames and transforms of complex `x` (two-sided): the transforms of the real and imaginary
/// parts' frames (every framing step is linear in the data: boundary extensions, zero padding,
/// the constant and linear detrends, the window) combined as `X = A + iB`.
#[allow(clippy::type_complexity)]
pub(super) fn analyse_complex<R>(
    x: &Array<<R as FftReal>::Complex>,
    p: &Params,
    axis: isize,
) -> Result<(Plan, Vec<usize>, usize, Array<<R as FftReal>::Complex>)>
where
    R: FftReal + cusci_fft::FftInput<Complex = <R as FftReal>::Complex>,
{
    debug_assert!(!p.onesided);
    let (pl, lead, ax, xa) = analyse(&x.real()?, p, axis)?;
    let (_, _, _, xb) = analyse(&x.imag()?, p, axis)?;
    let i = <<R as FftReal>::Complex as FftComplex>::from_num(num_complex::Complex::new(
        <R as Element>::zero(),
        <R as Element>::one(),
    ));
    Ok((pl, lead, ax, xa.add(&xb.mul_scalar(i)?)?))
}

/// The spectrogram of complex `x` (c32/c64), SciPy's `scipy.signal.spectrogram` of complex data:
/// two-sided (frequencies in FFT order; `return_onesided` is ignored, as SciPy switches it off
/// for complex input), every `mode` (psd, complex, magnitude, angle, phase) and option of
/// [`spectrogram`]. Returns `(f, t, Sxx)`.
///
/// Numerics: the frames of the real and imaginary parts are transformed by the real route's
/// two-sided FFT and combined (framing is linear in the data), then scaled as [`spectrogram`]:
/// SciPy's values to rounding (1e-12 relative in the tests).
///
/// # Errors
/// As [`spectrogram`].
///
/// ```
/// use cusci_signal::{spectrogram_complex, SpectrogramOptions, Array, Device};
/// use cusci_core::c64;
/// let x: Vec<c64> = (0..100).map(|i| c64::from_polar(1.0, 0.5 * std::f64::consts::PI * i as f64)).collect();
/// let x = Array::from_vec(x, &[100], &Device::cpu()).unwrap();
/// let (f, t, s) = spectrogram_complex::<f64>(&x, &SpectrogramOptions { nperseg: Some(20), ..Default::default() }).unwrap();
/// assert_eq!(s.real().unwrap().shape(), &[20, t.size()]);
/// assert_eq!(f.size(), 20);
/// ```
#[allow(clippy::type_complexity)]
pub fn spectrogram_complex<R>(
    x: &Array<<R as FftReal>::Complex>,
    opts: &SpectrogramOptions,
) -> Result<(Array<R>, Array<R>, Sxx<R>)>
where
    R: FftReal + cusci_fft::FftInput<Complex = <R as FftReal>::Complex>,
{
    let p = Params {
        stft: opts.mode != SpectrogramMode::Psd,
        ..params!("spectrogram", opts, false, 8)
    };
    let (pl, lead, ax, xf) = analyse_complex::<R>(x, &p, opts.axis)?;
    spectrogram_out(&pl, &lead, ax, &xf, opts.mode)
}

/// The short-time Fourier transform of complex `x` (c32/c64), SciPy's `scipy.signal.stft` of
/// complex data: two-sided (`return_onesided` is ignored, as SciPy switches it off), every
/// option of [`stft`]. Returns `(f, t, Zxx)`; invert with [`istft_complex`].
///
/// Numerics: as [`spectrogram_complex`] (SciPy's values to rounding, 1e-12 in the tests).
///
/// # Errors
/// As [`stft`].
///
/// ```
/// use cusci_signal::{stft_complex, StftOptions, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec(vec![c64::new(0.0, 1.0); 32], &[32], &Device::cpu()).unwrap();
/// let (f, t, z) = stft_complex::<f64>(&x, &StftOptions { nperseg: Some(8), ..Default::default() }).unwrap();
/// assert_eq!((f.size(), t.size()), (8, 9));
/// assert_eq!(z.shape(), &[8, 9]);
/// ```
#[allow(clippy::type_complexity)]
pub fn stft_complex<R>(
    x: &Array<<R as FftReal>::Complex>,
    opts: &StftOptions,
) -> Result<(Array<R>, Array<R>, Array<<R as FftReal>::Complex>)>
where
    R: FftReal + cusci_fft::FftInput<Complex = <R as FftReal>::Complex>,
{
    let p = Params {
        boundary: opts.boundary,
        padded: opts.padded,
        stft: true,
        ..params!("stft", opts, false, 2)
    };
    let (pl, lead, ax, xf) = analyse_complex::<R>(x, &p, opts.axis)?;
    stft_out(&pl, &lead, ax, &xf)
}

#[allow(clippy::type_complexity)]
/// The STFT of the transformed frames `xf`: `(f, t, Zxx)`.
fn stft_out<T>(
    pl: &Plan,
    lead: &[usize],
    ax: usize,
    xf: &Array<<T as FftReal>::Complex>,
) -> Result<(Array<T>, Array<T>, Array<<T as FftReal>::Complex>)>
where
    T: FftReal + cusci_fft::FftInput<Complex = <T as FftReal>::Complex>,
{
    let rows = lead.iter().product();
    let z = with_shape(
        spec::<T, <T as FftReal>::Complex>(xf, rows, pl, 1)?,
        lead,
        &[pl.nfreq, pl.nseg],
        ax,
    )?;
    Ok((
        freq_array(pl, xf.device())?,
        time_array(pl, xf.device())?,
        z,
    ))
}

/// The short-time Fourier transform of real `x`, SciPy's `scipy.signal.stft`. Returns
/// `(f, t, Zxx)`, `Zxx` shaped like `x` with `axis` replaced by frequency and a last axis of
/// segment times.
///
/// # Errors
/// As [`welch`]; `InvalidArgument` when an even or odd boundary extension is longer than the
/// signal allows.
///
/// ```
/// use cusci_signal::{stft, StftOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f64; 32], &[32], &Device::cpu()).unwrap();
/// let (f, t, z) = stft(&x, &StftOptions { nperseg: Some(8), ..Default::default() }).unwrap();
/// assert_eq!(z.shape(), &[5, 9]);
/// ```
#[allow(clippy::type_complexity)]
pub fn stft<T>(
    x: &Array<T>,
    opts: &StftOptions,
) -> Result<(Array<T>, Array<T>, Array<<T as FftReal>::Complex>)>
where
    T: FftReal + cusci_fft::FftInput<Complex = <T as FftReal>::Complex>,
{
    let p = Params {
        boundary: opts.boundary,
        padded: opts.padded,
        stft: true,
        ..params!("stft", opts, opts.return_onesided, 2)
    };
    let (pl, lead, ax, xf) = analyse(x, &p, opts.axis)?;
    stft_out(&pl, &lead, ax, &xf)
}

/// The shapes and constants of one inverse STFT (SciPy's `istft` before its overlap-add).
pub(super) struct IstftPlan {
    lead: Vec<usize>,
    rows: usize,
    nseg: usize,
    nfft: usize,
    nperseg: usize,
    step: usize,
    off: usize,
    nout: usize,
    fac: f64,
    win: Vec<f64>,
    fa: usize,
    ta: usize,
    perm: Vec<isize>,
}

/// Validates the options of an inverse STFT of an array of `shape`; `onesided` is SciPy's
/// `input_onesided` (the default segment length `2 (nfreq − 1)` or `nfreq`).
pub(super) fn istft_plan(
    shape: &[usize],
    opts: &IstftOptions,
    onesided: bool,
) -> Result<IstftPlan> {
    let op = "istft";
    let nd = shape.len();
    if nd < 2 {
        return Err(make::arg(op, "input stft must be at least 2d"));
    }
    let fa = norm_axis(op, opts.freq_axis, nd)?;
    let ta = norm_axis(op, opts.time_axis, nd)?;
    if fa == ta {
        return Err(make::arg(
            op,
            "must specify differing time and frequency axes",
        ));
    }
    if opts.nperseg == Some(0) {
        return Err(make::arg(op, "nperseg must be a positive integer"));
    }
    if !(opts.fs.is_finite() && opts.fs > 0.0) {
        return Err(make::arg(op, "fs must be positive and finite"));
    }
    let nfreq = shape[fa];
    let nseg = shape[ta];
    let n_default = if onesided {
        2 * nfreq.saturating_sub(1)
    } else {
        nfreq
    };
    let nperseg = opts.nperseg.unwrap_or(n_default);
    if nperseg == 0 {
        return Err(make::arg(op, "nperseg must be a positive integer"));
    }
    let nfft = match opts.nfft {
        None => {
            if onesided && nperseg == n_default + 1 {
                nperseg
            } else {
                n_default
            }
        }
        Some(n) => n,
    };
    if nfft < nperseg {
        return Err(make::arg(
            op,
            "nfft must be greater than or equal to nperseg",
        ));
    }
    let noverlap = opts.noverlap.unwrap_or(nperseg / 2);
    if noverlap >= nperseg {
        return Err(make::arg(op, "noverlap must be less than nperseg"));
    }
    let step = nperseg - noverlap;
    let win = match &opts.window {
        WindowSpec::Named(w) => w.values(nperseg, false)?,
        WindowSpec::Values(v) => {
            if v.len() != nperseg {
                return Err(make::arg(
                    op,
                    format!("window must have length of {nperseg}"),
                ));
            }
            v.clone()
        }
    };
    // (lead..., nseg, nfreq) contiguous
    let mut perm: Vec<isize> = (0..nd)
        .filter(|&a| a != fa && a != ta)
        .map(|a| a as isize)
        .collect();
    let lead: Vec<usize> = perm.iter().map(|&a| shape[a as usize]).collect();
    perm.push(ta as isize);
    perm.push(fa as isize);
    let rows: usize = lead.iter().product();
    let fac = match opts.scaling {
        Scaling::Spectrum => win.iter().sum::<f64>(),
        Scaling::Density => (opts.fs * win.iter().map(|w| w * w).sum::<f64>()).sqrt(),
    };
    let outlen = if nseg == 0 {
        0
    } else {
        nperseg + (nseg - 1) * step
    };
    let off = if opts.boundary { nperseg / 2 } else { 0 };
    // SciPy cuts `x[..., nperseg//2:-(nperseg//2)]`: for nperseg = 1 that is `[0:-0]`, empty
    let nout = if opts.boundary {
        if nperseg / 2 == 0 {
            0
        } else {
            outlen.saturating_sub(2 * (nperseg / 2))
        }
    } else {
        outlen
    };
    Ok(IstftPlan {
        lead,
        rows,
        nseg,
        nfft,
        nperseg,
        step,
        off,
        nout,
        fac,
        win,
        fa,
        ta,
        perm,
    })
}

/// The windowed overlap-add of the inverse-transformed segments `xs` (`(rows, nseg, nfft)`,
/// real), divided by the summed squared window where it exceeds 1e-10: `(rows, nout)`.
fn istft_ola<R: FftReal>(xs: &Array<R>, ip: &IstftPlan) -> Result<Array<R>> {
    let (rows, nseg, nfft, nperseg, step, off, nout, fac) = (
        ip.rows, ip.nseg, ip.nfft, ip.nperseg, ip.step, ip.off, ip.nout, ip.fac,
    );
    let win = &ip.win;
    let dev = xs.device();
    match xs.backend() {
        Backend::Host(h) => {
            let xd = h.try_to_contiguous()?;
            let out: Vec<R> = (0..rows * nout)
                .into_par_iter()
                .map(|idx| {
                    let t = idx % nout + off;
                    let b = idx / nout;
                    let s0 = if t + 1 > nperseg {
                        (t + 1 - nperseg).div_ceil(step)
                    } else {
                        0
                    };
                    let s1 = (t / step).min(nseg.saturating_sub(1));
                    let (mut acc, mut nrm) = (0.0, 0.0);
                    for s in s0..=s1 {
                        let u = t - s * step;
                        let w = win[u];
                        acc += xd[(b * nseg + s) * nfft + u].to_f64() * fac * w;
                        nrm += w * w;
                    }
                    <R as RealFloat>::from_f64(if nrm > 1e-10 { acc / nrm } else { acc })
                })
                .collect();
            Array::from_vec(out, &[rows, nout], dev)
        }
        Backend::Cuda(c) => {
            let mut out = Array::<R>::empty(&[rows, nout], dev)?;
            if rows * nout > 0 {
                let w = Array::from_vec(win.clone(), &[nperseg], dev)?;
                let d = c.dev();
                let f = kernel_fn::<R>(d, "ola")?;
                d.launch(&f, LaunchConfig::cover(rows * nout, 256)?)
                    .arg(c.ptr())
                    .arg(rows as i64)
                    .arg(nseg as i64)
                    .arg(nfft as i64)
                    .arg(nperseg as i64)
                    .arg(step as i64)
                    .arg(off as i64)
                    .arg(nout as i64)
                    .arg(fac)
                    .arg(w.dev_ptr()?)
                    .arg(out.dev_ptr_mut()?)
                    .run()?;
            }
            Ok(out)
        }
    }
}

/// The signals `x` (`(rows, nout)`) shaped back (the time axis at SciPy's place) and their times.
fn istft_finish<E: Element, R: RealFloat>(
    x: Array<E>,
    ip: &IstftPlan,
    fs: f64,
) -> Result<(Array<R>, Array<E>)> {
    let lead = &ip.lead;
    let nout = ip.nout;
    let shape: Vec<isize> = lead.iter().chain(&[nout]).map(|&v| v as isize).collect();
    let mut x = x.reshape(&shape)?;
    // time axis back to its place (SciPy: after removing the frequency axis)
    let tpos = if ip.fa < ip.ta { ip.ta - 1 } else { ip.ta };
    if tpos != lead.len() {
        let ndo = lead.len() + 1;
        let mut perm: Vec<isize> = Vec::with_capacity(ndo);
        for i in 0..lead.len() {
            if i == tpos {
                perm.push(lead.len() as isize);
            }
            perm.push(i as isize);
        }
        x = x.permute(&perm)?.contiguous()?;
    }
    // SciPy's times: `arange(x.shape[0]) / fs`, the first axis of the output (the time axis
    // for one signal; for a batch SciPy counts the first batch axis, kept as SciPy does)
    let nt = x.shape()[0];
    let t: Vec<R> = (0..nt)
        .map(|i| <R as RealFloat>::from_f64(i as f64 / fs))
        .collect();
    Ok((Array::from_vec(t, &[nt], x.device())?, x))
}

/// The inverse short-time Fourier transform of a one-sided STFT `zxx`, SciPy's
/// `scipy.signal.istft(..., input_onesided=True)`: inverse real FFT of every segment, windowed
/// overlap-add, division by the summed squared window (where it exceeds 1e-10; SciPy warns
/// when the NOLA condition fails). Returns `(t, x)`, `x` real with the time axis at
/// `time_axis`'s place. For two-sided spectra (`input_onesided=False`) see [`istft_complex`].
///
/// Two SciPy behaviours kept: `t` is `arange(x.shape[0]) / fs`, so for a batch of signals it
/// counts the first axis of `x` rather than the time axis; and `nperseg = 1` with `boundary`
/// gives an empty signal (SciPy's cut `[0:-0]`).
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions, equal axes, `nperseg == 0`, `noverlap >=
/// nperseg`, `nfft < nperseg`, a window array of another length than `nperseg`; the FFT's
/// errors.
///
/// ```
/// use cusci_signal::{stft, istft, StftOptions, IstftOptions, Array, Device};
/// let v: Vec<f64> = (0..40).map(|i| (i as f64 * 0.3).sin()).collect();
/// let x = Array::from_vec(v.clone(), &[40], &Device::cpu()).unwrap();
/// let (_, _, z) = stft(&x, &StftOptions { nperseg: Some(8), ..Default::default() }).unwrap();
/// let (_, y) = istft(&z, &IstftOptions::default()).unwrap();
/// assert!(y.to_vec().unwrap()[..40].iter().zip(&v).all(|(a, b)| (a - b).abs() < 1e-12));
/// ```
#[allow(clippy::type_complexity)]
pub fn istft<C>(zxx: &Array<C>, opts: &IstftOptions) -> Result<(Array<C::Real>, Array<C::Real>)>
where
    C: FftComplex,
    C::Real: FftReal<Complex = C>,
{
    let ip = istft_plan(zxx.shape(), opts, true)?;
    let zt = zxx.permute(&ip.perm)?.contiguous()?;
    let o = FftOptions {
        n: Some(ip.nfft),
        axis: -1,
        ..Default::default()
    };
    let xs = cusci_fft::irfft(&zt, &o)?.contiguous()?;
    let x = istft_ola(&xs, &ip)?;
    istft_finish(x, &ip, opts.fs)
}

/// The inverse short-time Fourier transform of a two-sided STFT `zxx` (c32/c64), SciPy's
/// `scipy.signal.istft(..., input_onesided=False)`: inverse complex FFT of every segment (`nfft`
/// defaults to the number of frequencies, `nperseg` to `nfft`), windowed overlap-add, division by
/// the summed squared window as [`istft`]. Returns `(t, x)`, `x` complex (SciPy's dtype: the
/// input's precision); `t` and the `nperseg = 1` boundary case as [`istft`] (SciPy's).
///
/// Numerics: one batched inverse FFT, then the overlap-add of the real and imaginary parts (the
/// same code as [`istft`]); SciPy's values to rounding (1e-12 relative in the tests).
///
/// # Errors
/// As [`istft`].
///
/// ```
/// use cusci_signal::{stft_complex, istft_complex, StftOptions, IstftOptions, Array, Device};
/// use cusci_core::c64;
/// let v: Vec<c64> = (0..40).map(|i| c64::new((i as f64 * 0.3).sin(), 0.1 * i as f64)).collect();
/// let x = Array::from_vec(v.clone(), &[40], &Device::cpu()).unwrap();
/// let (_, _, z) = stft_complex::<f64>(&x, &StftOptions { nperseg: Some(8), ..Default::default() }).unwrap();
/// assert_eq!(z.shape(), &[8, 11]); // two-sided
/// let (_, y) = istft_complex(&z, &IstftOptions::default()).unwrap();
/// assert!(y.to_vec().unwrap()[..40].iter().zip(&v).all(|(a, b)| (a - b).norm() < 1e-12));
/// ```
#[allow(clippy::type_complexity)]
pub fn istft_complex<C>(zxx: &Array<C>, opts: &IstftOptions) -> Result<(Array<C::Real>, Array<C>)>
where
    C: FftComplex + cusci_fft::FftInput<Complex = C>,
    C::Real: FftReal<Complex = C>,
{
    let ip = istft_plan(zxx.shape(), opts, false)?;
    let zt = zxx.permute(&ip.perm)?.contiguous()?;
    let o = FftOptions {
        n: Some(ip.nfft),
        axis: -1,
        ..Default::default()
    };
    let xs = cusci_fft::ifft(&zt, &o)?;
    let re = istft_ola(&xs.real()?.contiguous()?, &ip)?;
    let im = istft_ola(&xs.imag()?.contiguous()?, &ip)?;
    let i = C::from_num(num_complex::Complex::new(
        <C::Real as Element>::zero(),
        <C::Real as Element>::one(),
    ));
    let x = re.astype::<C>()?.add(&im.astype::<C>()?.mul_scalar(i)?)?;
    istft_finish(x, &ip, opts.fs)
}

fn cola_window(op: &str, window: &WindowSpec, nperseg: usize, noverlap: usize) -> Result<Vec<f64>> {
    if nperseg == 0 {
        return Err(make::arg(op, "nperseg must be a positive integer"));
    }
    if noverlap >= nperseg {
        return Err(make::arg(op, "noverlap must be less than nperseg"));
    }
    match window {
        WindowSpec::Named(w) => w.values(nperseg, false),
        WindowSpec::Values(v) => {
            if v.len() != nperseg {
                return Err(make::arg(op, "window must have length of nperseg"));
            }
            Ok(v.clone())
        }
    }
}

fn binsums(win: &[f64], nperseg: usize, noverlap: usize, sq: bool) -> Vec<f64> {
    let step = nperseg - noverlap;
    let g = |v: f64| if sq { v * v } else { v };
    let mut b = vec![0.0; step];
    for ii in 0..nperseg / step {
        for (k, slot) in b.iter_mut().enumerate() {
            *slot += g(win[ii * step + k]);
        }
    }
    let r = nperseg % step;
    for k in 0..r {
        b[k] += g(win[nperseg - r + k]);
    }
    b
}

/// Whether the window satisfies the constant overlap-add condition, SciPy's
/// `scipy.signal.check_COLA(window, nperseg, noverlap, tol=1e-10)`.
///
/// # Errors
/// `InvalidArgument` for `nperseg == 0`, `noverlap >= nperseg`, a window array of another
/// length.
///
/// ```
/// use cusci_signal::{check_cola, Window, WindowSpec};
/// assert!(check_cola(&WindowSpec::Named(Window::Hann), 256, 128, 1e-10).unwrap());
/// ```
pub fn check_cola(window: &WindowSpec, nperseg: usize, noverlap: usize, tol: f64) -> Result<bool> {
    let win = cola_window("check_COLA", window, nperseg, noverlap)?;
    let mut b = binsums(&win, nperseg, noverlap, false);
    let med = median(&mut b.clone());
    b.iter_mut().for_each(|v| *v -= med);
    Ok(b.iter().fold(0.0f64, |m, v| m.max(v.abs())) < tol)
}

/// Whether the window satisfies the nonzero overlap-add condition (the inverse STFT exists),
/// SciPy's `scipy.signal.check_NOLA(window, nperseg, noverlap, tol=1e-10)`.
///
/// # Errors
/// As [`check_cola`].
///
/// ```
/// use cusci_signal::{check_nola, Window, WindowSpec};
/// assert!(check_nola(&WindowSpec::Named(Window::Hann), 256, 128, 1e-10).unwrap());
/// assert!(!check_nola(&WindowSpec::Named(Window::Hann), 256, 0, 1e-10).unwrap());
/// ```
pub fn check_nola(window: &WindowSpec, nperseg: usize, noverlap: usize, tol: f64) -> Result<bool> {
    let win = cola_window("check_NOLA", window, nperseg, noverlap)?;
    let b = binsums(&win, nperseg, noverlap, true);
    Ok(b.iter().cloned().fold(f64::INFINITY, f64::min) > tol)
}
