//! SciPy's `ShortTimeFFT` class (SciPy ≥ 1.12) and `closest_STFT_dual_window`.
//!
//! [`ShortTimeFft`] holds a window, its hop, the sampling frequency, the FFT mode and length, an
//! optional dual window, the scaling and the phase shift; its methods compute the STFT
//! ([`ShortTimeFft::stft`], [`ShortTimeFft::stft_detrend`]), spectrograms and the inverse STFT
//! ([`ShortTimeFft::istft`]) of arrays on either device, batched over every other axis, and
//! SciPy's bookkeeping properties (`p_min`, `p_max(n)`, `k_min`, `k_max(n)`, `f`, `t(n)`, ...).
//!
//! One pipeline on both devices: (1) `frames`: a `(rows, slices, mfft)` matrix of padded,
//! detrended slices multiplied by the conjugate window, zero-padded and rolled for the phase
//! shift (one block per slice on the GPU, `shortfft.cu`); (2) one batched `cusci_fft` transform
//! (`rfft` for the one-sided modes, `fft` otherwise); (3) `post`: `fftshift` (centered), the
//! doubling of `onesided2X` and the transposition to `(…, freq, slice)`. The inverse runs
//! `pre` (transposition, `ifftshift`, un-doubling), one batched `irfft`/`ifft` and an
//! overlap-add kernel (one thread per output sample, no atomics). Internal arithmetic is f64;
//! f32 inputs give c32 outputs.

use crate::procutil::{blocks_for, cuda_type, dptr, norm_axis};
use crate::spectral::Detrend;
use crate::windows::Window;
use cusci_core::cuda::kernel::{Args, LaunchConfig};
use cusci_core::dtype::Float;
use cusci_core::error::make;
use cusci_core::{c64, Array, CudaDevice, Device, Element, RealFloat, Result};
use cusci_fft::{FftComplex, FftInput, FftOptions, FftReal};
use rayon::prelude::*;

const SRC: &str = include_str!("shortfft.cu");

/// The FFT of each slice (`fft_mode=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FftMode {
    /// `'twosided'`: the full FFT, frequencies in FFT order.
    TwoSided,
    /// `'centered'`: the full FFT with `fftshift` applied (negative frequencies first).
    Centered,
    /// `'onesided'`: the `rfft` of real data with a real window (default).
    #[default]
    OneSided,
    /// `'onesided2X'`: as `OneSided`, the non-paired bins multiplied by 2 (magnitude
    /// scaling) or √2 (psd scaling); needs a scaling.
    OneSided2X,
}

/// The scaling of the window (`scale_to=` / the `scaling` property).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StftScaling {
    /// Each slice is a magnitude spectrum (window divided by `|sum(win)|`).
    Magnitude,
    /// Each slice is a power spectral density (window divided by `sqrt(sum|win|² · fs)`).
    Psd,
    /// `'unitary'` (only through [`ShortTimeFft::from_win_equals_dual`]).
    Unitary,
}

/// How a slice that sticks out of the signal is filled (`padding=`), as `numpy.pad`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StftPadding {
    /// `'zeros'` (default).
    #[default]
    Zeros,
    /// `'edge'`: the end values repeated.
    Edge,
    /// `'even'`: mirrored without repeating the end point (`reflect`).
    Even,
    /// `'odd'`: point-symmetric about the end point (`reflect`, `reflect_type='odd'`).
    Odd,
}

/// The keyword arguments of the [`ShortTimeFft`] constructors (SciPy's defaults: one-sided,
/// `mfft = len(win)`, no scaling, `phase_shift=0`).
///
/// ```
/// let o = cusci_signal::ShortTimeFftOptions::default();
/// assert_eq!((o.mfft, o.phase_shift), (None, Some(0)));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ShortTimeFftOptions {
    /// The FFT mode.
    pub fft_mode: FftMode,
    /// FFT length (at least the window length; default the window length).
    pub mfft: Option<usize>,
    /// Scale the window to magnitude or psd (`Unitary` is refused here).
    pub scale_to: Option<StftScaling>,
    /// Linear phase `phase_shift / mfft · f` added to each frequency (None: no shift at all,
    /// SciPy's `None`).
    pub phase_shift: Option<i64>,
}

impl Default for ShortTimeFftOptions {
    fn default() -> Self {
        ShortTimeFftOptions {
            fft_mode: FftMode::OneSided,
            mfft: None,
            scale_to: None,
            phase_shift: Some(0),
        }
    }
}

/// The arguments of the transform methods: slice range `p0..p1` (default `p_min..p_max(n)`),
/// `k_offset` (index of the sample at t = 0), the padding and the time axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StftArgs {
    /// First slice (default `p_min`).
    pub p0: Option<i64>,
    /// End of the slices (default `p_max(n)`).
    pub p1: Option<i64>,
    /// Index of the first sample (t = 0) in `x`.
    pub k_offset: i64,
    /// Padding of slices sticking out of the signal.
    pub padding: StftPadding,
    /// The time axis of `x`.
    pub axis: isize,
}

impl Default for StftArgs {
    fn default() -> Self {
        StftArgs {
            p0: None,
            p1: None,
            k_offset: 0,
            padding: StftPadding::Zeros,
            axis: -1,
        }
    }
}

/// The arguments of [`ShortTimeFft::istft`]: the sample range `k0..k1` (default `0..k_max`) and
/// the frequency and time axes of the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IstftArgs {
    /// First sample.
    pub k0: i64,
    /// End sample (default: the last the slices reach).
    pub k1: Option<i64>,
    /// The frequency axis of `S`.
    pub f_axis: isize,
    /// The time (slice) axis of `S`.
    pub t_axis: isize,
}

impl Default for IstftArgs {
    fn default() -> Self {
        IstftArgs {
            k0: 0,
            k1: None,
            f_axis: -2,
            t_axis: -1,
        }
    }
}

/// A signal reconstructed by [`ShortTimeFft::istft`]: real for the one-sided modes, complex
/// otherwise (as SciPy's float/complex result).
#[derive(Debug, Clone)]
pub enum StftSignal<T: FftReal> {
    /// One-sided modes.
    Real(Array<T>),
    /// Two-sided and centered modes.
    Complex(Array<<T as FftReal>::Complex>),
}

impl<T: FftReal> StftSignal<T> {
    /// The real signal (None for the two-sided modes).
    pub fn real(self) -> Option<Array<T>> {
        match self {
            StftSignal::Real(a) => Some(a),
            StftSignal::Complex(_) => None,
        }
    }
    /// The complex signal (None for the one-sided modes).
    pub fn complex(self) -> Option<Array<<T as FftReal>::Complex>> {
        match self {
            StftSignal::Complex(a) => Some(a),
            StftSignal::Real(_) => None,
        }
    }
}

/// SciPy's `ShortTimeFFT`: a sliding-window FFT with its inverse.
///
/// Slice `p` is centred at sample `p · hop` (t = p · hop / fs); slices start at `p_min ≤ 0`
/// and end at `p_max(n)`, so the STFT of `n` samples has `p_num(n)` slices and `f_pts`
/// frequencies. Windows are kept in f64 (complex windows allowed for the two-sided modes).
///
/// ```
/// use cusci_signal::{ShortTimeFft, ShortTimeFftOptions, StftArgs, IstftArgs, Window};
/// use cusci_core::{Array, Device};
/// let sft = ShortTimeFft::from_window(&Window::Hann, 8.0, 8, 4, false,
///     &ShortTimeFftOptions::default()).unwrap();
/// let x = Array::from_vec((0..32).map(|i| (i as f64 * 0.3).sin()).collect(), &[32],
///     &Device::Cpu).unwrap();
/// let s = sft.stft(&x, &StftArgs::default()).unwrap();
/// assert_eq!(s.shape(), &[sft.f_pts(), sft.p_num(32).unwrap()]);
/// let y = sft.istft(&s, &IstftArgs { k1: Some(32), ..Default::default() }).unwrap()
///     .real().unwrap().to_vec().unwrap();
/// let xv = x.to_vec().unwrap();
/// assert!(y.iter().zip(&xv).all(|(a, b)| (a - b).abs() < 1e-12));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ShortTimeFft {
    win: Vec<c64>,
    win_complex: bool,
    dual: Option<Vec<c64>>,
    hop: usize,
    fs: f64,
    fft_mode: FftMode,
    mfft: usize,
    scaling: Option<StftScaling>,
    phase_shift: Option<i64>,
}

fn all_finite(v: &[c64]) -> bool {
    v.iter().all(|z| z.re.is_finite() && z.im.is_finite())
}

fn w2(win: &[c64]) -> Vec<f64> {
    win.iter().map(|z| z.re * z.re + z.im * z.im).collect()
}

/// SciPy's `_calc_dual_canonical_window`: `win / sum_k |win[· - k hop]|²`.
fn canonical_dual(op: &str, win: &[c64], hop: usize, f32res: bool) -> Result<Vec<c64>> {
    let m = win.len();
    if hop > m {
        return Err(make::arg(
            op,
            format!("hop={hop} is larger than window length of {m} => STFT not invertible!"),
        ));
    }
    let w = w2(win);
    let mut dd = w.clone();
    let mut k = hop;
    while k < m {
        for i in k..m {
            dd[i] += w[i - k];
        }
        for i in 0..m - k {
            dd[i] += w[i + k];
        }
        k += hop;
    }
    let res = if f32res { 1e-6 } else { 1e-15 };
    let mx = dd.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let rel = res * mx;
    if !dd.iter().all(|&d| d >= rel) {
        return Err(make::arg(
            op,
            "Short-time Fourier Transform not invertible!",
        ));
    }
    Ok(win.iter().zip(&dd).map(|(z, d)| z / d).collect())
}

/// SciPy's `closest_STFT_dual_window` for complex windows: the dual window of `alpha · win`
/// (hop `hop`) closest to `desired_dual` (default all ones) and `alpha` (1 when not `scaled`).
///
/// # Errors
/// `InvalidArgument` for windows of different lengths, non-finite entries, `hop` outside
/// `1..=len(win)`, a window without a dual, or (scaled) a vanishing scaling factor.
pub fn closest_stft_dual_window_complex(
    win: &[c64],
    hop: usize,
    desired_dual: Option<&[c64]>,
    scaled: bool,
) -> Result<(Vec<c64>, c64)> {
    let op = "closest_STFT_dual_window";
    let ones = vec![c64::new(1.0, 0.0); win.len()];
    let des = desired_dual.unwrap_or(&ones);
    if win.is_empty() || des.len() != win.len() {
        return Err(make::arg(
            op,
            format!(
                "Parameters `win` and `desired_dual` are not 1d arrays of equal length ({} and {})",
                win.len(),
                des.len()
            ),
        ));
    }
    if !all_finite(win) {
        return Err(make::arg(op, "Parameter win must have finite entries!"));
    }
    if !all_finite(des) {
        return Err(make::arg(
            op,
            "Parameter desired_dual must have finite entries!",
        ));
    }
    let m = win.len();
    if !(1..=m).contains(&hop) {
        return Err(make::arg(
            op,
            format!("Parameter hop={hop} is not an integer between 1 and len(win)={m}!"),
        ));
    }
    let w_d = canonical_dual(op, win, hop, false)?;
    let wdd: Vec<c64> = win.iter().zip(des).map(|(w, d)| w.conj() * d).collect();
    let mut q_d = wdd.clone();
    let mut k = hop;
    while k < m {
        for i in k..m {
            q_d[i] += wdd[i - k];
        }
        for i in 0..m - k {
            q_d[i] += wdd[i + k];
        }
        k += hop;
    }
    for (q, w) in q_d.iter_mut().zip(&w_d) {
        *q *= w;
    }
    if !scaled {
        let d = w_d
            .iter()
            .zip(des)
            .zip(&q_d)
            .map(|((w, d), q)| w + d - q)
            .collect();
        return Ok((d, c64::new(1.0, 0.0)));
    }
    let num: c64 = q_d.iter().zip(&w_d).map(|(q, w)| q.conj() * w).sum();
    let den: f64 = q_d.iter().map(|q| q.re * q.re + q.im * q.im).sum();
    if !(num.norm() > 0.0 && den > 1e-15) {
        return Err(make::arg(
            op,
            "Unable to calculate scaled closest dual window due to numerically unstable scaling factor! Try setting parameter `scaled` to False.",
        ));
    }
    let alpha = num / den;
    let d = w_d
        .iter()
        .zip(des)
        .zip(&q_d)
        .map(|((w, d), q)| w + alpha * (d - q))
        .collect();
    Ok((d, alpha))
}

/// SciPy's `closest_STFT_dual_window(win, hop, desired_dual=None, scaled=True)` for real
/// windows: returns `(dual_win, alpha)`, the dual window of `alpha · win` for hop `hop` that
/// is closest (least squares) to `desired_dual` (default the rectangular window), and the
/// optimal scale `alpha` (1 when `scaled` is false). With a rectangular desired dual this
/// finds COLA windows.
///
/// # Errors
/// As [`closest_stft_dual_window_complex`].
///
/// ```
/// // A periodic Bartlett window at 75 % overlap satisfies COLA with alpha = 1/2.
/// let m = 24;
/// let win = cusci_signal::Window::Bartlett.values(m, false).unwrap();
/// let (d, alpha) = cusci_signal::closest_stft_dual_window(&win, m / 4, None, true).unwrap();
/// assert!((alpha - 0.5).abs() < 1e-12 && d.iter().all(|v| (v - 0.5).abs() < 1e-12));
/// ```
pub fn closest_stft_dual_window(
    win: &[f64],
    hop: usize,
    desired_dual: Option<&[f64]>,
    scaled: bool,
) -> Result<(Vec<f64>, f64)> {
    let wc: Vec<c64> = win.iter().map(|&v| c64::new(v, 0.0)).collect();
    let dc: Option<Vec<c64>> = desired_dual.map(|d| d.iter().map(|&v| c64::new(v, 0.0)).collect());
    let (d, a) = closest_stft_dual_window_complex(&wc, hop, dc.as_deref(), scaled)?;
    Ok((d.iter().map(|z| z.re).collect(), a.re))
}

/// Python's `a // b`.
fn fdiv(a: i64, b: i64) -> i64 {
    a.div_euclid(b)
}

/// Python's `w[start:]` for a possibly negative start.
fn py_from(w: &[f64], start: i64) -> &[f64] {
    let n = w.len() as i64;
    let s = if start < 0 {
        (n + start).max(0)
    } else {
        start.min(n)
    };
    &w[s as usize..]
}

/// Python's `w[:end]` for a possibly negative end.
fn py_to(w: &[f64], end: i64) -> &[f64] {
    let n = w.len() as i64;
    let e = if end < 0 {
        (n + end).max(0)
    } else {
        end.min(n)
    };
    &w[..e as usize]
}

fn all_zero(w: &[f64]) -> bool {
    w.iter().all(|&v| v == 0.0)
}

struct Geom {
    rows: usize,
    n: usize,
    p0: i64,
    pnum: usize,
    kstart: i64,
    i0: i64,
    lc: i64,
    pad: i32,
    detr: i32,
    ps: usize,
}

impl ShortTimeFft {
    fn build(
        win: Vec<c64>,
        win_complex: bool,
        dual: Option<Vec<c64>>,
        hop: usize,
        fs: f64,
        o: &ShortTimeFftOptions,
    ) -> Result<Self> {
        let op = "ShortTimeFFT";
        if win.is_empty() {
            return Err(make::arg(op, "Parameter win must be 1d and not empty!"));
        }
        if !all_finite(&win) {
            return Err(make::arg(op, "Parameter win must have finite entries!"));
        }
        if hop == 0 {
            return Err(make::arg(op, "Parameter hop=0 is not an integer >= 1!"));
        }
        if fs.is_nan() || fs <= 0.0 {
            return Err(make::arg(
                op,
                format!("Sampling frequency fs={fs} must be positive!"),
            ));
        }
        let m = win.len();
        let mfft = o.mfft.unwrap_or(m);
        if mfft < m {
            return Err(make::arg(
                op,
                format!("Attribute mfft={mfft} needs to be at least the window length m_num={m}!"),
            ));
        }
        if let Some(d) = &dual {
            if d.len() != m {
                return Err(make::arg(
                    op,
                    format!("dual_win.shape=({},) must equal win.shape=({m},)!", d.len()),
                ));
            }
            if !all_finite(d) {
                return Err(make::arg(op, "Parameter dual_win must be a finite array!"));
            }
        }
        let mut s = ShortTimeFft {
            win,
            win_complex,
            dual,
            hop,
            fs,
            fft_mode: FftMode::OneSided,
            mfft,
            scaling: None,
            phase_shift: None,
        };
        if let Some(sc) = o.scale_to {
            s.scale_to(sc)?;
        }
        s.set_fft_mode(o.fft_mode)?;
        s.set_phase_shift(o.phase_shift)?;
        Ok(s)
    }

    /// `ShortTimeFFT(win, hop, fs, fft_mode=, mfft=, scale_to=, phase_shift=)` for a real
    /// window.
    ///
    /// # Errors
    /// `InvalidArgument` as SciPy: an empty or non-finite window, `hop = 0`, `fs ≤ 0`,
    /// `mfft < len(win)`, `OneSided2X` without a scaling, `|phase_shift| ≥ mfft`.
    pub fn new(win: &[f64], hop: usize, fs: f64, opts: &ShortTimeFftOptions) -> Result<Self> {
        let w = win.iter().map(|&v| c64::new(v, 0.0)).collect();
        Self::build(w, false, None, hop, fs, opts)
    }

    /// As [`ShortTimeFft::new`] with a complex window (two-sided and centered modes only).
    ///
    /// # Errors
    /// As [`ShortTimeFft::new`]; a one-sided mode is refused.
    pub fn new_complex(
        win: &[c64],
        hop: usize,
        fs: f64,
        opts: &ShortTimeFftOptions,
    ) -> Result<Self> {
        Self::build(win.to_vec(), true, None, hop, fs, opts)
    }

    /// `ShortTimeFFT(win, ..., dual_win=dual_win)`: a real window with a given dual window
    /// (used by [`ShortTimeFft::istft`] instead of the canonical one).
    ///
    /// # Errors
    /// As [`ShortTimeFft::new`]; a dual window of another length or with non-finite entries.
    pub fn with_dual(
        win: &[f64],
        dual_win: &[f64],
        hop: usize,
        fs: f64,
        opts: &ShortTimeFftOptions,
    ) -> Result<Self> {
        let w = win.iter().map(|&v| c64::new(v, 0.0)).collect();
        let d = dual_win.iter().map(|&v| c64::new(v, 0.0)).collect();
        Self::build(w, false, Some(d), hop, fs, opts)
    }

    /// `ShortTimeFFT.from_dual(dual_win, hop, fs, ...)`: the window is the canonical dual of
    /// `dual_win`.
    ///
    /// # Errors
    /// As [`ShortTimeFft::new`]; `dual_win` without a dual (`hop > len`, not invertible).
    pub fn from_dual(
        dual_win: &[f64],
        hop: usize,
        fs: f64,
        opts: &ShortTimeFftOptions,
    ) -> Result<Self> {
        let d: Vec<c64> = dual_win.iter().map(|&v| c64::new(v, 0.0)).collect();
        if d.is_empty() || !all_finite(&d) {
            return Err(make::arg(
                "ShortTimeFFT.from_dual",
                "dual_win must be finite and not empty",
            ));
        }
        let w = canonical_dual("ShortTimeFFT.from_dual", &d, hop, false)?;
        Self::build(w, false, Some(d), hop, fs, opts)
    }

    /// `ShortTimeFFT.from_window(win_param, fs, nperseg, noverlap, symmetric_win=, ...)`: the
    /// window `get_window(win_param, nperseg, fftbins=not symmetric_win)`, `hop = nperseg -
    /// noverlap`.
    ///
    /// # Errors
    /// `InvalidArgument` for `noverlap ≥ nperseg` and the window's own errors; as
    /// [`ShortTimeFft::new`].
    pub fn from_window(
        window: &Window,
        fs: f64,
        nperseg: usize,
        noverlap: usize,
        symmetric_win: bool,
        opts: &ShortTimeFftOptions,
    ) -> Result<Self> {
        if noverlap >= nperseg {
            return Err(make::arg(
                "ShortTimeFFT.from_window",
                format!("noverlap={noverlap} must be less than nperseg={nperseg}"),
            ));
        }
        let w = window.values(nperseg, symmetric_win)?;
        Self::new(&w, nperseg - noverlap, fs, opts)
    }

    /// `ShortTimeFFT.from_win_equals_dual(desired_win, hop, fs, ...)`: the window closest to
    /// `desired_win` that is its own dual (each `hop`-strided subsequence normalised); with
    /// `scale_to = Unitary` the window is divided by `sqrt(mfft)` and the dual multiplied by it.
    ///
    /// # Errors
    /// `InvalidArgument`: an empty or non-finite window, `hop` outside `1..=len`, a strided
    /// subsequence of zero norm; as [`ShortTimeFft::new`].
    pub fn from_win_equals_dual(
        desired_win: &[f64],
        hop: usize,
        fs: f64,
        opts: &ShortTimeFftOptions,
    ) -> Result<Self> {
        let op = "ShortTimeFFT.from_win_equals_dual";
        let m = desired_win.len();
        if m == 0 || desired_win.iter().any(|v| !v.is_finite()) {
            return Err(make::arg(
                op,
                "Parameter desired_win must be 1d with finite entries!",
            ));
        }
        if !(1..=m).contains(&hop) {
            return Err(make::arg(
                op,
                format!(
                    "Parameter hop={hop} is not an integer between 1 and len(desired_win)={m}!"
                ),
            ));
        }
        let mfft = opts.mfft.unwrap_or(m);
        let unitary = opts.scale_to == Some(StftScaling::Unitary);
        let s_fac = if unitary { (mfft as f64).sqrt() } else { 1.0 };
        let mx = desired_win
            .iter()
            .cloned()
            .fold(f64::NEG_INFINITY, f64::max);
        let rel = 1e-15 * mx;
        let mut win = desired_win.to_vec();
        for r in 0..hop {
            let a = desired_win[r..]
                .iter()
                .step_by(hop)
                .map(|v| v * v)
                .sum::<f64>()
                .sqrt();
            if a.is_nan() || a <= rel {
                return Err(make::arg(
                    op,
                    format!(
                        "Parameter desired_win does not have valid STFT dual window for hop={hop}!"
                    ),
                ));
            }
            for v in win[r..].iter_mut().step_by(hop) {
                *v /= a;
            }
        }
        let w: Vec<c64> = win.iter().map(|&v| c64::new(v / s_fac, 0.0)).collect();
        let d: Vec<c64> = win.iter().map(|&v| c64::new(v * s_fac, 0.0)).collect();
        let mut o = opts.clone();
        o.scale_to = if unitary { None } else { opts.scale_to };
        o.mfft = Some(mfft);
        let mut s = Self::build(w, false, Some(d), hop, fs, &o)?;
        if unitary {
            s.scaling = Some(StftScaling::Unitary);
        }
        Ok(s)
    }

    // ------------------------------------------------------------------ properties

    /// The window (`win`), complex values (imaginary parts zero for real windows).
    pub fn win(&self) -> &[c64] {
        &self.win
    }
    /// The real window's values (None for a complex window).
    pub fn win_real(&self) -> Option<Vec<f64>> {
        (!self.win_complex).then(|| self.win.iter().map(|z| z.re).collect())
    }
    /// Whether the window is complex.
    pub fn win_is_complex(&self) -> bool {
        self.win_complex
    }
    /// The hop (`hop`).
    pub fn hop(&self) -> usize {
        self.hop
    }
    /// The sampling frequency (`fs`).
    pub fn fs(&self) -> f64 {
        self.fs
    }
    /// The sampling interval `T = 1 / fs`.
    pub fn t_interval(&self) -> f64 {
        1.0 / self.fs
    }
    /// Sets `fs`.
    ///
    /// # Errors
    /// `InvalidArgument` unless `fs > 0`.
    pub fn set_fs(&mut self, fs: f64) -> Result<()> {
        if fs.is_nan() || fs <= 0.0 {
            return Err(make::arg(
                "ShortTimeFFT",
                format!("Sampling frequency fs={fs} must be positive!"),
            ));
        }
        self.fs = fs;
        Ok(())
    }
    /// The FFT mode (`fft_mode`).
    pub fn fft_mode(&self) -> FftMode {
        self.fft_mode
    }
    /// Sets the FFT mode.
    ///
    /// # Errors
    /// `InvalidArgument` for a one-sided mode with a complex window, or `OneSided2X` without
    /// a scaling.
    pub fn set_fft_mode(&mut self, t: FftMode) -> Result<()> {
        let op = "ShortTimeFFT";
        let one = matches!(t, FftMode::OneSided | FftMode::OneSided2X);
        if one && self.win_complex {
            return Err(make::arg(
                op,
                "One-sided spectra are not allowed for complex-valued windows!",
            ));
        }
        if t == FftMode::OneSided2X && self.scaling.is_none() {
            return Err(make::arg(
                op,
                "For scaling is None, fft_mode='onesided2X' is invalid! Do scale_to('psd') or scale_to('magnitude')!",
            ));
        }
        self.fft_mode = t;
        Ok(())
    }
    /// The FFT length (`mfft`).
    pub fn mfft(&self) -> usize {
        self.mfft
    }
    /// Sets `mfft`.
    ///
    /// # Errors
    /// `InvalidArgument` for `mfft < m_num`, or a phase shift no longer within `±mfft`.
    pub fn set_mfft(&mut self, mfft: usize) -> Result<()> {
        if mfft < self.m_num() {
            return Err(make::arg(
                "ShortTimeFFT",
                format!(
                    "Attribute mfft={mfft} needs to be at least the window length m_num={}!",
                    self.m_num()
                ),
            ));
        }
        if let Some(v) = self.phase_shift {
            if v.unsigned_abs() as usize >= mfft {
                return Err(make::arg(
                    "ShortTimeFFT",
                    "-mfft < phase_shift < mfft does not hold",
                ));
            }
        }
        self.mfft = mfft;
        Ok(())
    }
    /// The scaling (`scaling`).
    pub fn scaling(&self) -> Option<StftScaling> {
        self.scaling
    }
    /// `scale_to('magnitude' | 'psd')`: multiplies the window by `fac_magnitude` or `fac_psd`
    /// (the dual window divided by it).
    ///
    /// # Errors
    /// `InvalidArgument` for `Unitary`.
    pub fn scale_to(&mut self, scaling: StftScaling) -> Result<()> {
        if scaling == StftScaling::Unitary {
            return Err(make::arg(
                "ShortTimeFFT.scale_to",
                "scaling='unitary' not in {'magnitude', 'psd'}!",
            ));
        }
        if self.scaling == Some(scaling) {
            return Ok(());
        }
        let f = if scaling == StftScaling::Psd {
            self.fac_psd()
        } else {
            self.fac_magnitude()
        };
        for w in &mut self.win {
            *w *= f;
        }
        if let Some(d) = &mut self.dual {
            for w in d.iter_mut() {
                *w /= f;
            }
        }
        self.scaling = Some(scaling);
        Ok(())
    }
    /// The phase shift (`phase_shift`).
    pub fn phase_shift(&self) -> Option<i64> {
        self.phase_shift
    }
    /// Sets the phase shift.
    ///
    /// # Errors
    /// `InvalidArgument` unless `-mfft < v < mfft`.
    pub fn set_phase_shift(&mut self, v: Option<i64>) -> Result<()> {
        if let Some(v) = v {
            let mf = self.mfft as i64;
            if !(-mf < v && v < mf) {
                return Err(make::arg(
                    "ShortTimeFFT",
                    format!(
                        "-mfft < phase_shift < mfft does not hold for mfft={mf}, phase_shift={v}!"
                    ),
                ));
            }
        }
        self.phase_shift = v;
        Ok(())
    }
    /// `fac_magnitude`: `1 / |sum(win)|` (1 when already magnitude-scaled).
    pub fn fac_magnitude(&self) -> f64 {
        if self.scaling == Some(StftScaling::Magnitude) {
            return 1.0;
        }
        1.0 / self.win.iter().sum::<c64>().norm()
    }
    /// `fac_psd`: `1 / sqrt(sum|win|² / T)` (1 when already psd-scaled).
    pub fn fac_psd(&self) -> f64 {
        if self.scaling == Some(StftScaling::Psd) {
            return 1.0;
        }
        1.0 / (w2(&self.win).iter().sum::<f64>() * self.fs).sqrt()
    }
    /// The window length `m_num`.
    pub fn m_num(&self) -> usize {
        self.win.len()
    }
    /// `m_num_mid = m_num // 2`, the window's centre index.
    pub fn m_num_mid(&self) -> usize {
        self.win.len() / 2
    }
    /// The dual window (`dual_win`): the given one, or the canonical dual of `win`.
    ///
    /// # Errors
    /// `InvalidArgument` when the STFT is not invertible.
    pub fn dual_win(&self) -> Result<Vec<c64>> {
        match &self.dual {
            Some(d) => Ok(d.clone()),
            None => canonical_dual("ShortTimeFFT.dual_win", &self.win, self.hop, false),
        }
    }
    /// `invertible`: whether a dual window exists.
    pub fn invertible(&self) -> bool {
        self.dual_win().is_ok()
    }
    /// `onesided_fft`.
    pub fn onesided_fft(&self) -> bool {
        matches!(self.fft_mode, FftMode::OneSided | FftMode::OneSided2X)
    }
    /// `f_pts`: the number of frequencies.
    pub fn f_pts(&self) -> usize {
        if self.onesided_fft() {
            self.mfft / 2 + 1
        } else {
            self.mfft
        }
    }
    /// `delta_f = 1 / (mfft · T)`.
    pub fn delta_f(&self) -> f64 {
        1.0 / (self.mfft as f64 * self.t_interval())
    }
    /// `delta_t = T · hop`.
    pub fn delta_t(&self) -> f64 {
        self.t_interval() * self.hop as f64
    }
    /// `f`: the frequencies of the STFT (rfftfreq, fftfreq or the shifted fftfreq).
    pub fn f(&self) -> Vec<f64> {
        let n = self.mfft;
        let d = self.t_interval();
        let val = 1.0 / (n as f64 * d);
        match self.fft_mode {
            FftMode::OneSided | FftMode::OneSided2X => {
                (0..n / 2 + 1).map(|k| k as f64 * val).collect()
            }
            FftMode::TwoSided => (0..n)
                .map(|k| {
                    let kk = if k < n.div_ceil(2) {
                        k as i64
                    } else {
                        k as i64 - n as i64
                    };
                    kk as f64 * val
                })
                .collect(),
            FftMode::Centered => (0..n)
                .map(|f| (f as i64 - (n / 2) as i64) as f64 * val)
                .collect(),
        }
    }
    fn pre_padding(&self) -> (i64, i64) {
        let w = w2(&self.win);
        let m = self.m_num() as i64;
        let hop = self.hop as i64;
        let n0 = -(self.m_num_mid() as i64);
        let mut p = 0i64;
        let mut nn = n0;
        while nn > n0 - m - 1 {
            let nx = nn - hop;
            if nx + m <= 0 || all_zero(py_from(&w, nx)) {
                return (nn, -p);
            }
            p += 1;
            nn -= hop;
        }
        // unreachable for hop >= 1 (SciPy raises RuntimeError)
        (nn, -p)
    }
    /// `k_min`: the smallest signal index a slice touches.
    pub fn k_min(&self) -> i64 {
        self.pre_padding().0
    }
    /// `p_min`: the smallest slice index (≤ 0).
    pub fn p_min(&self) -> i64 {
        self.pre_padding().1
    }
    fn check_n(&self, op: &str, n: usize) -> Result<()> {
        let m2p = self.m_num() - self.m_num_mid();
        if n < m2p {
            return Err(make::arg(
                op,
                format!("Parameter n must be >= ceil(m_num/2) = {m2p}!"),
            ));
        }
        Ok(())
    }
    fn post_padding(&self, n: usize) -> Result<(i64, i64)> {
        self.check_n("ShortTimeFFT", n)?;
        let w = w2(&self.win);
        let (n, m, hop) = (n as i64, self.m_num() as i64, self.hop as i64);
        let q1 = fdiv(n, hop);
        let k1 = q1 * hop - self.m_num_mid() as i64;
        let mut q = q1;
        let mut k = k1;
        while k < n + m {
            let nx = k + hop;
            if nx >= n || all_zero(py_to(&w, n - nx)) {
                return Ok((k + m, q + 1));
            }
            q += 1;
            k += hop;
        }
        Err(make::arg("ShortTimeFFT", "post padding not found"))
    }
    /// `k_max(n)`: the first sample index after the signal end not touched by a slice.
    ///
    /// # Errors
    /// `InvalidArgument` for `n < ceil(m_num / 2)`.
    pub fn k_max(&self, n: usize) -> Result<i64> {
        Ok(self.post_padding(n)?.0)
    }
    /// `p_max(n)`: the end of the slice indices for `n` samples.
    ///
    /// # Errors
    /// As [`ShortTimeFft::k_max`].
    pub fn p_max(&self, n: usize) -> Result<i64> {
        Ok(self.post_padding(n)?.1)
    }
    /// `p_num(n) = p_max(n) - p_min`: the number of slices for `n` samples.
    ///
    /// # Errors
    /// As [`ShortTimeFft::k_max`].
    pub fn p_num(&self, n: usize) -> Result<usize> {
        Ok((self.p_max(n)? - self.p_min()) as usize)
    }
    /// `lower_border_end`: the first signal index and slice index unaffected by pre-padding.
    pub fn lower_border_end(&self) -> (i64, i64) {
        let w = w2(&self.win);
        let m0 = w.iter().position(|&v| v != 0.0).unwrap_or(0) as i64;
        let hop = self.hop as i64;
        let k0 = -(self.m_num_mid() as i64) + m0;
        let mut q = 0i64;
        let mut k = k0;
        while k < hop + 1 {
            if k + hop >= 0 {
                return (k + self.m_num() as i64, q + 1);
            }
            q += 1;
            k += hop;
        }
        (0, self.p_min().max(0))
    }
    /// `upper_border_begin(n)`: the first signal index and slice index affected by
    /// post-padding.
    ///
    /// # Errors
    /// `InvalidArgument` for `n < ceil(m_num / 2)`.
    pub fn upper_border_begin(&self, n: usize) -> Result<(i64, i64)> {
        self.check_n("ShortTimeFFT.upper_border_begin", n)?;
        let w = w2(&self.win);
        let (n, m, hop) = (n as i64, self.m_num() as i64, self.hop as i64);
        let mid = self.m_num_mid() as i64;
        let q2 = fdiv(n, hop) + 1;
        let q1 = (fdiv(n - m, hop) - 1).max(-1);
        let mut q = q2;
        while q > q1 {
            let k = q * hop + (m - mid);
            if k <= n || all_zero(py_from(&w, n - k)) {
                return Ok(((q + 1) * hop - mid, q + 1));
            }
            q -= 1;
        }
        Err(make::arg(
            "ShortTimeFFT.upper_border_begin",
            "border not found",
        ))
    }
    /// `p_range(n, p0, p1)`: the validated slice range (defaults `p_min`, `p_max(n)`).
    ///
    /// # Errors
    /// `InvalidArgument` unless `p_min ≤ p0 < p1 ≤ p_max(n)`.
    pub fn p_range(&self, n: usize, p0: Option<i64>, p1: Option<i64>) -> Result<(i64, i64)> {
        let pmax = self.p_max(n)?;
        let pmin = self.p_min();
        let a = p0.unwrap_or(pmin);
        let b = p1.unwrap_or(pmax);
        if !(pmin <= a && a < b && b <= pmax) {
            return Err(make::arg(
                "ShortTimeFFT",
                format!("Invalid Parameter p0={a}, p1={b}, i.e., p_min={pmin} <= p0 < p1 <= p_max={pmax} does not hold for signal length n={n}!"),
            ));
        }
        Ok((a, b))
    }
    /// `t(n, p0, p1, k_offset)`: the times of the slices.
    ///
    /// # Errors
    /// `InvalidArgument` for `n = 0` and as [`ShortTimeFft::p_range`].
    pub fn t(&self, n: usize, p0: Option<i64>, p1: Option<i64>, k_offset: i64) -> Result<Vec<f64>> {
        if n == 0 {
            return Err(make::arg(
                "ShortTimeFFT.t",
                "Parameter n=0 is not a positive integer!",
            ));
        }
        let (a, b) = self.p_range(n, p0, p1)?;
        let dt = self.delta_t();
        let off = k_offset as f64 * self.t_interval();
        Ok((a..b).map(|p| p as f64 * dt + off).collect())
    }
    /// `nearest_k_p(k, left)`: the nearest multiple of `hop` at or left (right) of `k`.
    pub fn nearest_k_p(&self, k: i64, left: bool) -> i64 {
        let hop = self.hop as i64;
        let (q, r) = (k.div_euclid(hop), k.rem_euclid(hop));
        if r == 0 {
            k
        } else if left {
            q * hop
        } else {
            (q + 1) * hop
        }
    }
    /// `extent(n, axes_seq, center_bins)`: `(t0, t1, f0, f1)` (`tf = true`) or
    /// `(f0, f1, t0, t1)`.
    ///
    /// # Errors
    /// `InvalidArgument` for the two-sided mode (as SciPy), and as [`ShortTimeFft::p_max`].
    pub fn extent(&self, n: usize, tf: bool, center_bins: bool) -> Result<(f64, f64, f64, f64)> {
        let (q0, q1) =
            match self.fft_mode {
                FftMode::OneSided | FftMode::OneSided2X => (0i64, self.f_pts() as i64),
                FftMode::Centered => {
                    let mf = self.mfft as i64;
                    (-(mf / 2), if mf % 2 == 0 { mf / 2 } else { mf / 2 + 1 })
                }
                FftMode::TwoSided => return Err(make::arg(
                    "ShortTimeFFT.extent",
                    "Attribute fft_mode=twosided must be in ['centered', 'onesided', 'onesided2X']",
                )),
            };
        let (p0, p1) = (self.p_min(), self.p_max(n)?);
        let c = if center_bins { 0.5 } else { 0.0 };
        let (dt, df) = (self.delta_t(), self.delta_f());
        let t0 = dt * (p0 as f64 - c);
        let t1 = dt * (p1 as f64 - c);
        let f0 = df * (q0 as f64 - c);
        let f1 = df * (q1 as f64 - c);
        Ok(if tf {
            (t0, t1, f0, f1)
        } else {
            (f0, f1, t0, t1)
        })
    }

    fn ps(&self) -> usize {
        match self.phase_shift {
            None => 0,
            Some(v) => (v + self.m_num_mid() as i64).rem_euclid(self.m_num() as i64) as usize,
        }
    }
    /// (shift, lo, hi, fac) of the post/pre step.
    fn post_params(&self) -> (usize, usize, usize, f64) {
        match self.fft_mode {
            FftMode::Centered => (self.mfft / 2, 0, 0, 1.0),
            FftMode::OneSided2X => {
                let fac = if self.scaling == Some(StftScaling::Psd) {
                    std::f64::consts::SQRT_2
                } else {
                    2.0
                };
                let f = self.f_pts();
                let hi = if self.mfft % 2 == 0 { f - 1 } else { f };
                (0, 1, hi.max(1), fac)
            }
            _ => (0, 0, 0, 1.0),
        }
    }

    // ------------------------------------------------------------------ transforms

    /// `stft(x, p0, p1, k_offset=, padding=, axis=)`: the STFT of `x` along `args.axis`; the
    /// result has that axis replaced by the frequencies (`f_pts`) and the slices appended last
    /// (SciPy's layout). Real or complex `x` (complex only for the two-sided modes); f32 and
    /// c32 give c32, f64 and c64 give c64.
    ///
    /// # Errors
    /// `InvalidArgument`: complex `x` with a one-sided mode, a signal shorter than
    /// `ceil(m_num/2)`, an invalid slice range, an axis out of range.
    pub fn stft<X>(&self, x: &Array<X>, args: &StftArgs) -> Result<Array<X::Complex>>
    where
        X: FftInput,
        X::Complex: FftComplex + FftInput<Complex = X::Complex>,
        <X::Complex as Float>::Real: FftInput<Complex = X::Complex>,
    {
        self.stft_detrend(x, Detrend::None, args)
    }

    /// `stft_detrend(x, detr, ...)`: as [`ShortTimeFft::stft`] with each padded slice
    /// detrended (constant or linear, SciPy's `detrend`) before the window is applied.
    ///
    /// # Errors
    /// As [`ShortTimeFft::stft`].
    pub fn stft_detrend<X>(
        &self,
        x: &Array<X>,
        detr: Detrend,
        args: &StftArgs,
    ) -> Result<Array<X::Complex>>
    where
        X: FftInput,
        X::Complex: FftComplex + FftInput<Complex = X::Complex>,
        <X::Complex as Float>::Real: FftInput<Complex = X::Complex>,
    {
        let op = "ShortTimeFFT.stft";
        let in_cplx = X::DTYPE.is_complex();
        if self.onesided_fft() && in_cplx {
            return Err(make::arg(
                op,
                "Complex-valued `x` not allowed for a one-sided fft_mode! Set fft_mode to 'twosided' or 'centered'.",
            ));
        }
        if x.ndim() == 0 {
            return Err(make::arg(op, "x must have at least one dimension"));
        }
        let ax = norm_axis(op, args.axis, x.ndim())?;
        let n = x.shape()[ax];
        let m2p = self.m_num() - self.m_num_mid();
        if n < m2p {
            return Err(make::arg(
                op,
                format!("length {n} of axis {ax} must be >= ceil(m_num/2) = {m2p}!"),
            ));
        }
        let nd = x.ndim();
        let mut perm: Vec<isize> = (0..nd as isize).filter(|&a| a != ax as isize).collect();
        perm.push(ax as isize);
        let xm = if ax == nd - 1 {
            x.contiguous()?
        } else {
            x.permute(&perm)?.contiguous()?
        };
        let lead: Vec<usize> = xm.shape()[..nd - 1].to_vec();
        let rows: usize = lead.iter().product();
        let (p0, p1) = self.p_range(n, args.p0, args.p1)?;
        let pnum = (p1 - p0) as usize;
        let hop = self.hop as i64;
        let m = self.m_num() as i64;
        let kstart = p0 * hop - self.m_num_mid() as i64 + args.k_offset;
        let k1 = kstart + pnum as i64 * hop + m;
        let i0 = kstart.max(0);
        let i1 = k1.min(n as i64);
        let lc = (i1 - i0).max(0);
        let pad = match args.padding {
            StftPadding::Zeros => 0,
            StftPadding::Edge => 1,
            StftPadding::Even => 2,
            StftPadding::Odd => 3,
        };
        if lc == 0 && pad != 0 && (kstart < 0 || k1 > n as i64) {
            return Err(make::arg(
                op,
                "can't extend empty axis using modes other than 'constant' or 'empty'",
            ));
        }
        let g = Geom {
            rows,
            n,
            p0,
            pnum,
            kstart,
            i0,
            lc,
            pad,
            detr: match detr {
                Detrend::None => 0,
                Detrend::Constant => 1,
                Detrend::Linear => 2,
            },
            ps: self.ps(),
        };
        let _ = g.p0;
        let fp = self.f_pts();
        let s = if rows == 0 || pnum == 0 {
            Array::<X::Complex>::zeros(&[rows, fp, pnum], x.device())?
        } else {
            self.forward::<X, X::Complex>(&xm, &g)?
        };
        // (rows, F, P) -> lead + [F, P], F moved to `ax`
        let mut shape: Vec<isize> = lead.iter().map(|&v| v as isize).collect();
        shape.push(fp as isize);
        shape.push(pnum as isize);
        let s = s.reshape(&shape)?;
        if ax == nd - 1 {
            return Ok(s);
        }
        // dims: lead (nd-1), F at nd-1, P at nd; move F to position ax
        let mut order: Vec<isize> = Vec::with_capacity(nd + 1);
        for i in 0..nd - 1 {
            if i == ax {
                order.push((nd - 1) as isize);
            }
            order.push(i as isize);
        }
        order.push(nd as isize);
        s.permute(&order)?.contiguous()
    }

    fn forward<X, C>(&self, xm: &Array<X>, g: &Geom) -> Result<Array<C>>
    where
        X: Element,
        C: FftComplex + FftInput<Complex = C>,
        C::Real: FftInput<Complex = C>,
    {
        let out_cplx = !self.onesided_fft();
        let mfft = self.mfft;
        let fopts = FftOptions {
            n: Some(mfft),
            axis: -1,
            ..Default::default()
        };
        let shape = [g.rows, g.pnum, mfft];
        let (shift, lo, hi, fac) = self.post_params();
        let fp = self.f_pts();
        match xm.device() {
            Device::Cpu => {
                let xv = xm.to_vec()?;
                let xc: Vec<c64> = xv.iter().map(|v| v.to_c64()).collect();
                let fr = self.frames_host(&xc, g);
                let xf: Array<C> = if out_cplx {
                    let v: Vec<C> = fr.iter().map(|z| to_c::<C>(*z)).collect();
                    cusci_fft::fft(&Array::from_vec(v, &shape, &Device::Cpu)?, &fopts)?
                } else {
                    let v: Vec<C::Real> = fr
                        .iter()
                        .map(|z| <C::Real as RealFloat>::from_f64(z.re))
                        .collect();
                    cusci_fft::rfft(&Array::from_vec(v, &shape, &Device::Cpu)?, &fopts)?
                };
                let xh = xf.to_vec()?;
                let nb = xf.shape()[2];
                let pnum = g.pnum;
                let mut out = vec![C::zero(); g.rows * fp * pnum];
                out.par_chunks_mut(fp * pnum)
                    .enumerate()
                    .for_each(|(r, o)| {
                        for f in 0..fp {
                            let src = (f + nb - shift) % nb;
                            let s = if f >= lo && f < hi { fac } else { 1.0 };
                            for p in 0..pnum {
                                let z = xh[(r * pnum + p) * nb + src].to_c64() * s;
                                o[f * pnum + p] = to_c::<C>(z);
                            }
                        }
                    });
                Array::from_vec(out, &[g.rows, fp, pnum], &Device::Cpu)
            }
            Device::Cuda(d) => {
                let winc: Vec<f64> = self.win.iter().flat_map(|z| [z.re, z.im]).collect();
                let win = Array::from_vec(winc, &[2 * self.m_num()], xm.device())?;
                let total = g.rows * g.pnum;
                let launch_frames = |out: u64| -> Result<()> {
                    let f = kernel_fn::<C::Real>(d, "frames")?;
                    let mut a = Args::new();
                    a.push(dptr(xm))
                        .push(X::DTYPE.is_complex() as i32)
                        .push(g.n as i64)
                        .push(total as i64)
                        .push(g.pnum as i64)
                        .push(g.kstart)
                        .push(self.hop as i64)
                        .push(self.m_num() as i64)
                        .push(mfft as i64)
                        .push(g.i0)
                        .push(g.lc)
                        .push(g.pad)
                        .push(g.detr)
                        .push(g.ps as i64)
                        .push(dptr(&win))
                        .push(out_cplx as i32)
                        .push(out);
                    let threads = if mfft >= 256 { 256 } else { 64 };
                    f.launch(
                        d,
                        LaunchConfig::linear(total.min(1 << 20) as u32, threads),
                        &mut a,
                    )
                };
                let xf: Array<C> = if out_cplx {
                    let fr = Array::<C>::empty(&shape, xm.device())?;
                    launch_frames(dptr(&fr))?;
                    cusci_fft::fft(&fr, &fopts)?
                } else {
                    let fr = Array::<C::Real>::empty(&shape, xm.device())?;
                    launch_frames(dptr(&fr))?;
                    cusci_fft::rfft(&fr, &fopts)?
                };
                let nb = xf.shape()[2];
                let out = Array::<C>::empty(&[g.rows, fp, g.pnum], xm.device())?;
                let f = kernel_fn::<C::Real>(d, "post")?;
                let mut a = Args::new();
                a.push(dptr(&xf))
                    .push(g.rows as i64)
                    .push(g.pnum as i64)
                    .push(nb as i64)
                    .push(fp as i64)
                    .push(shift as i64)
                    .push(lo as i64)
                    .push(hi as i64)
                    .push(fac)
                    .push(dptr(&out));
                let tot = g.rows * fp * g.pnum;
                f.launch(d, LaunchConfig::linear(blocks_for(tot, 256), 256), &mut a)?;
                Ok(out)
            }
        }
    }

    /// The frames `(rows, pnum, mfft)` on the host (mirrors the `frames` kernel).
    fn frames_host(&self, xc: &[c64], g: &Geom) -> Vec<c64> {
        let mfft = self.mfft;
        let m = self.m_num();
        let hop = self.hop as i64;
        let mut out = vec![c64::new(0.0, 0.0); g.rows * g.pnum * mfft];
        if mfft == 0 {
            return out;
        }
        let tbar = 0.5 * (m as f64 - 1.0);
        let mf = m as f64;
        let stt = mf * (mf * mf - 1.0) / 12.0;
        out.par_chunks_mut(mfft).enumerate().for_each(|(r, o)| {
            let b = r / g.pnum;
            let s = r % g.pnum;
            let xr = &xc[b * g.n..(b + 1) * g.n];
            let base = g.kstart + s as i64 * hop;
            let vals: Vec<c64> = (0..m)
                .map(|k| padval(xr, g.i0, g.lc, g.pad, base + k as i64))
                .collect();
            let (mut mean, mut slope) = (c64::new(0.0, 0.0), c64::new(0.0, 0.0));
            if g.detr != 0 {
                mean = vals.iter().sum::<c64>() / mf;
                if g.detr == 2 && stt > 0.0 {
                    let s1: c64 = vals
                        .iter()
                        .enumerate()
                        .map(|(k, v)| v * (k as f64 - tbar))
                        .sum();
                    slope = s1 / stt;
                }
            }
            for (j, oj) in o.iter_mut().enumerate() {
                let mut k = j + g.ps;
                if k >= mfft {
                    k -= mfft;
                }
                if k < m {
                    let v = vals[k] - (mean + slope * (k as f64 - tbar));
                    *oj = v * self.win[k].conj();
                }
            }
        });
        out
    }

    /// `spectrogram(x, detr=, ...)`: `|stft_detrend(x)|²`, real, in the layout of
    /// [`ShortTimeFft::stft`].
    ///
    /// # Errors
    /// As [`ShortTimeFft::stft`].
    pub fn spectrogram<X>(
        &self,
        x: &Array<X>,
        detr: Detrend,
        args: &StftArgs,
    ) -> Result<Array<<X::Complex as Float>::Real>>
    where
        X: FftInput,
        X::Complex: FftComplex + FftInput<Complex = X::Complex>,
        <X::Complex as Float>::Real: FftInput<Complex = X::Complex>,
    {
        let s = self.stft_detrend(x, detr, args)?;
        s.abs2()
    }

    /// `spectrogram(x, y, detr=, ...)`: the cross-spectrogram `Sx · conj(Sy)`, complex.
    ///
    /// # Errors
    /// As [`ShortTimeFft::stft`]; `ShapeMismatch` for inputs of different shapes;
    /// `DeviceMismatch`.
    pub fn cross_spectrogram<X>(
        &self,
        x: &Array<X>,
        y: &Array<X>,
        detr: Detrend,
        args: &StftArgs,
    ) -> Result<Array<X::Complex>>
    where
        X: FftInput,
        X::Complex: FftComplex + FftInput<Complex = X::Complex>,
        <X::Complex as Float>::Real: FftInput<Complex = X::Complex>,
    {
        if x.shape() != y.shape() {
            return Err(make::shape(
                "ShortTimeFFT.spectrogram",
                "x and y must have one shape",
            ));
        }
        crate::procutil::same_dev("ShortTimeFFT.spectrogram", x.device(), y.device())?;
        let sx = self.stft_detrend(x, detr, args)?;
        let sy = self.stft_detrend(y, detr, args)?;
        sx.mul(&sy.conj()?)
    }

    /// `istft(S, k0=0, k1=None, f_axis=-2, t_axis=-1)`: the inverse STFT by the dual window
    /// (overlap-add of the inverse FFTs of the slices times `dual_win`), samples `k0..k1`.
    /// Real for the one-sided modes, complex otherwise. The sample axis replaces the frequency
    /// axis (or the time axis when the frequency axis is last), as SciPy.
    ///
    /// # Errors
    /// `InvalidArgument`: equal axes, `S.shape[f_axis] ≠ f_pts`, too few slices, `k0`/`k1`
    /// outside `k_min ≤ k0 < k1 ≤ k_max`, fewer than `ceil(m_num/2)` samples, a window without
    /// a dual.
    pub fn istft<C>(&self, s: &Array<C>, args: &IstftArgs) -> Result<StftSignal<C::Real>>
    where
        C: FftComplex + FftInput<Complex = C>,
        C::Real: FftInput<Complex = C>,
    {
        let op = "ShortTimeFFT.istft";
        let nd = s.ndim();
        if nd < 2 {
            return Err(make::arg(op, "S must have at least two dimensions"));
        }
        let fa = norm_axis(op, args.f_axis, nd)?;
        let ta = norm_axis(op, args.t_axis, nd)?;
        if fa == ta {
            return Err(make::arg(
                op,
                format!(
                    "f_axis={} may not be equal to t_axis={}!",
                    args.f_axis, args.t_axis
                ),
            ));
        }
        let fp = self.f_pts();
        if s.shape()[fa] != fp {
            return Err(make::arg(
                op,
                format!(
                    "S.shape[f_axis]={} must be equal to self.f_pts={fp}!",
                    s.shape()[fa]
                ),
            ));
        }
        let m = self.m_num() as i64;
        let mid = self.m_num_mid() as i64;
        let hop = self.hop as i64;
        let n_min = (m - mid) as usize;
        let q_num = self.p_num(n_min)?;
        let qn = s.shape()[ta];
        if qn < q_num {
            return Err(make::arg(
                op,
                format!("S.shape[t_axis]={qn} needs to have at least {q_num} slices!"),
            ));
        }
        let dual = self.dual_win()?;
        let pmin = self.p_min();
        let q_max = qn as i64 + pmin;
        let k_max = (q_max - 1) * hop + m - mid;
        let k0 = args.k0;
        let k1 = args.k1.unwrap_or(k_max);
        let kmin = self.k_min();
        if !(kmin <= k0 && k0 < k1 && k1 <= k_max) {
            return Err(make::arg(
                op,
                format!("(k_min={kmin}) <= (k0={k0}) < (k1={k1}) <= (k_max={k_max}) is false!"),
            ));
        }
        if k1 - k0 < n_min as i64 {
            return Err(make::arg(op, format!("(k1={k1}) - (k0={k0}) = {} has to be at least the half the window length {n_min}!", k1 - k0)));
        }
        let q0 = if k0 >= 0 {
            fdiv(k0, hop) + pmin
        } else {
            fdiv(k0, hop)
        };
        let q1 = self.p_max(k1 as usize)?.min(q_max);
        if q0 < pmin {
            return Err(make::arg(op, "first slice out of range"));
        }
        let nq = (q1 - q0).max(0) as usize;
        let nout = (k1 - k0) as usize;
        // S moved to lead + [F, Q], contiguous
        let mut perm: Vec<isize> = (0..nd)
            .filter(|&a| a != fa && a != ta)
            .map(|a| a as isize)
            .collect();
        let lead: Vec<usize> = perm.iter().map(|&a| s.shape()[a as usize]).collect();
        perm.push(fa as isize);
        perm.push(ta as isize);
        let sm = s.permute(&perm)?.contiguous()?;
        let rows: usize = lead.iter().product();
        let onesided = self.onesided_fft();
        let mfft = self.mfft;
        let (shift0, lo, hi, fac) = self.post_params();
        // ifftshift for centered: y[f] = x[(f + mfft/2) mod mfft]... (post used (f - mfft/2))
        let shift = if self.fft_mode == FftMode::Centered {
            mfft / 2
        } else {
            shift0
        };
        let ps = self.ps();
        let fopts = FftOptions {
            n: Some(mfft),
            axis: -1,
            ..Default::default()
        };
        let qoff = (q0 - pmin) as usize;
        let dev = s.device().clone();
        let out_shape = [rows, nout];
        let res: StftSignal<C::Real> = if rows == 0 || nq == 0 {
            if onesided {
                StftSignal::Real(Array::zeros(&out_shape, &dev)?)
            } else {
                StftSignal::Complex(Array::zeros(&out_shape, &dev)?)
            }
        } else {
            match &dev {
                Device::Cpu => {
                    let sv = sm.to_vec()?;
                    let mut y = vec![C::zero(); rows * nq * fp];
                    y.par_chunks_mut(nq * fp).enumerate().for_each(|(r, o)| {
                        for qi in 0..nq {
                            for f in 0..fp {
                                let src = (f + shift) % fp;
                                let sc = if f >= lo && f < hi { fac } else { 1.0 };
                                let z = sv[(r * fp + src) * qn + qoff + qi].to_c64() / sc;
                                o[qi * fp + f] = to_c::<C>(z);
                            }
                        }
                    });
                    let ya = Array::from_vec(y, &[rows, nq, fp], &Device::Cpu)?;
                    let yt: Vec<c64> = if onesided {
                        cusci_fft::irfft(&ya, &fopts)?
                            .to_vec()?
                            .iter()
                            .map(|v| v.to_c64())
                            .collect()
                    } else {
                        cusci_fft::ifft(&ya, &fopts)?
                            .to_vec()?
                            .iter()
                            .map(|v| v.to_c64())
                            .collect()
                    };
                    let mut out = vec![c64::new(0.0, 0.0); rows * nout];
                    out.par_chunks_mut(nout).enumerate().for_each(|(r, o)| {
                        for (t, ot) in o.iter_mut().enumerate() {
                            let i = t as i64 + k0;
                            let qa = (fdiv(i + mid - m, hop) + 1).max(q0);
                            let qb = fdiv(i + mid, hop).min(q0 + nq as i64 - 1);
                            let mut acc = c64::new(0.0, 0.0);
                            let mut q = qa;
                            while q <= qb {
                                let j = (i - q * hop + mid) as usize;
                                let jj = (j + mfft - ps) % mfft;
                                let yv = yt[(r * nq + (q - q0) as usize) * mfft + jj];
                                acc += yv * dual[j];
                                q += 1;
                            }
                            *ot = acc;
                        }
                    });
                    if onesided {
                        let v = out
                            .iter()
                            .map(|z| <C::Real as RealFloat>::from_f64(z.re))
                            .collect();
                        StftSignal::Real(Array::from_vec(v, &out_shape, &dev)?)
                    } else {
                        let v = out.iter().map(|z| to_c::<C>(*z)).collect();
                        StftSignal::Complex(Array::from_vec(v, &out_shape, &dev)?)
                    }
                }
                Device::Cuda(d) => {
                    let ya = Array::<C>::empty(&[rows, nq, fp], &dev)?;
                    let f = kernel_fn::<C::Real>(d, "pre")?;
                    let mut a = Args::new();
                    a.push(dptr(&sm))
                        .push(rows as i64)
                        .push(fp as i64)
                        .push(qn as i64)
                        .push(qoff as i64)
                        .push(nq as i64)
                        .push(shift as i64)
                        .push(lo as i64)
                        .push(hi as i64)
                        .push(fac)
                        .push(dptr(&ya));
                    let tot = rows * nq * fp;
                    f.launch(d, LaunchConfig::linear(blocks_for(tot, 256), 256), &mut a)?;
                    let dualc: Vec<f64> = dual.iter().flat_map(|z| [z.re, z.im]).collect();
                    let dual_d = Array::from_vec(dualc, &[2 * dual.len()], &dev)?;
                    let ola = |yptr: u64, cplx: bool, optr: u64| -> Result<()> {
                        let f = kernel_fn::<C::Real>(d, "ola")?;
                        let mut a = Args::new();
                        a.push(yptr)
                            .push(cplx as i32)
                            .push(rows as i64)
                            .push(nq as i64)
                            .push(q0)
                            .push(mfft as i64)
                            .push(m)
                            .push(mid)
                            .push(hop)
                            .push(ps as i64)
                            .push(k0)
                            .push(nout as i64)
                            .push(dptr(&dual_d))
                            .push(optr);
                        let tot = rows * nout;
                        f.launch(d, LaunchConfig::linear(blocks_for(tot, 256), 256), &mut a)
                    };
                    if onesided {
                        let yt = cusci_fft::irfft(&ya, &fopts)?;
                        let out = Array::<C::Real>::empty(&out_shape, &dev)?;
                        ola(dptr(&yt), false, dptr(&out))?;
                        StftSignal::Real(out)
                    } else {
                        let yt = cusci_fft::ifft(&ya, &fopts)?;
                        let out = Array::<C>::empty(&out_shape, &dev)?;
                        ola(dptr(&yt), true, dptr(&out))?;
                        StftSignal::Complex(out)
                    }
                }
            }
        };
        // lead + [n]; the sample axis goes to f_axis (or t_axis when f_axis is the last)
        let xnd = nd - 1;
        let target = if fa < xnd { fa } else { ta };
        let mut shape: Vec<isize> = lead.iter().map(|&v| v as isize).collect();
        shape.push(nout as isize);
        fn place<E: Element>(a: Array<E>, shape: &[isize], target: usize) -> Result<Array<E>> {
            let a = a.reshape(shape)?;
            let nd = shape.len();
            if target == nd - 1 {
                return Ok(a);
            }
            let mut order: Vec<isize> = Vec::with_capacity(nd);
            for i in 0..nd - 1 {
                if i == target {
                    order.push((nd - 1) as isize);
                }
                order.push(i as isize);
            }
            a.permute(&order)?.contiguous()
        }
        Ok(match res {
            StftSignal::Real(a) => StftSignal::Real(place(a, &shape, target)?),
            StftSignal::Complex(a) => StftSignal::Complex(place(a, &shape, target)?),
        })
    }
}

fn to_c<C: FftComplex>(z: c64) -> C {
    C::from_c64(z)
}

/// The value at signal position `i` of `x` padded as `np.pad` pads the crop `x[i0..i0+lc]`
/// (mirrors `padval` in shortfft.cu).
fn padval(x: &[c64], i0: i64, lc: i64, pad: i32, i: i64) -> c64 {
    let u = i - i0;
    if u >= 0 && u < lc {
        return x[i as usize];
    }
    if pad == 0 || lc == 0 {
        return c64::new(0.0, 0.0);
    }
    if pad == 1 || lc == 1 {
        return x[(i0 + if u < 0 { 0 } else { lc - 1 }) as usize];
    }
    let p = lc - 1;
    let k = fdiv(u, 2 * p);
    let w = u - k * 2 * p;
    let at = |j: i64| x[(i0 + j) as usize];
    if pad == 2 {
        return at(if w <= p { w } else { 2 * p - w });
    }
    let (c0, cp) = (at(0), at(p));
    let v = if w <= p {
        at(w)
    } else {
        cp * 2.0 - at(2 * p - w)
    };
    v + (cp - c0) * (2.0 * k as f64)
}

fn kernel_fn<T: Element>(d: &CudaDevice, name: &str) -> Result<cusci_core::cuda::kernel::Function> {
    let (key, src) = shortfft_source::<T>();
    d.function(&key, || src, &[], &format!("{key}_{name}"))
}

/// The kernel module for real type `T`: (key, source).
fn shortfft_source<T: Element>() -> (String, String) {
    let ty = cuda_type::<T>();
    let prefix = format!("signal_shortfft_{}", T::DTYPE.tag());
    (
        prefix.clone(),
        format!("#define T {ty}\n#define NAME(x) {prefix}_##x\n{SRC}"),
    )
}

/// The NVRTC sources of the ShortTimeFFT kernels (f32 and f64), for compile checks. Not part
/// of the API.
#[doc(hidden)]
pub fn shortfft_kernel_sources() -> Vec<(String, String)> {
    vec![shortfft_source::<f32>(), shortfft_source::<f64>()]
}
