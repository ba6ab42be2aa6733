//! Spectral analysis, SciPy's `periodogram`, `welch`, `csd`, `coherence`, `spectrogram`, `stft`,
//! `istft`, `check_COLA` and `check_NOLA`, batched over every leading signal.
//!
//! One pipeline for every function (SciPy's `_spectral_helper`): frame the (boundary-extended,
//! zero-padded) signal, detrend and window each frame into a `(batch, nseg, nfft)` matrix (one
//! NVRTC kernel on the GPU, rayon on the CPU), one batched real (or complex, two-sided) FFT of
//! every frame through `cusci_fft`, then one pass that scales `|X|²` and averages over frames
//! (a partial-sum kernel and a finishing kernel on the GPU, no host synchronisation), or writes
//! the `(…, freq, time)` spectrogram.

use crate::procutil::{blocks_for, cuda_type, dptr, norm_axis};
use crate::windows::Window;
use cusci_core::cuda::kernel::{Args, LaunchConfig};
use cusci_core::error::make;
use cusci_core::{Array, CudaDevice, Device, Element, RealFloat, Result};
use cusci_fft::{FftComplex, FftOptions, FftReal};
use rayon::prelude::*;

const SRC: &str = include_str!("spectral.cu");

/// The window argument of the spectral functions: a named window (SciPy's string or tuple,
/// computed periodic with `nperseg` points) or explicit values (whose length sets `nperseg`).
#[derive(Debug, Clone, PartialEq)]
pub enum WindowSpec {
    /// A window of [`Window`], periodic (`get_window(window, nperseg)`).
    Named(Window),
    /// The window's values (1-D, length `nperseg`).
    Values(Vec<f64>),
}

impl From<Window> for WindowSpec {
    fn from(w: Window) -> Self {
        WindowSpec::Named(w)
    }
}

/// Per-segment detrending (`detrend=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detrend {
    /// `False`: no detrending.
    None,
    /// `'constant'`: remove the mean of each segment (welch's default).
    #[default]
    Constant,
    /// `'linear'`: remove the least-squares line of each segment.
    Linear,
}

/// `scaling=`: power spectral density (V²/Hz) or power spectrum (V²).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scaling {
    /// `'density'`: divided by `fs * sum(win²)`.
    #[default]
    Density,
    /// `'spectrum'`: divided by `sum(win)²`.
    Spectrum,
}

/// `average=` of [`welch`] and [`csd`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Average {
    /// The mean over segments.
    #[default]
    Mean,
    /// The median over segments divided by its bias for exponentially distributed values
    /// (complex values: real and imaginary parts separately).
    Median,
}

/// `boundary=` of [`stft`]: how the signal is extended by `nperseg / 2` points each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Boundary {
    /// Mirror without repeating the end point.
    Even,
    /// Point-symmetric about the end point.
    Odd,
    /// Repeat the end point.
    Constant,
    /// Zeros (stft's default).
    #[default]
    Zeros,
}

/// `mode=` of [`spectrogram`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SpectrogramMode {
    /// Power spectral density (or spectrum), real.
    #[default]
    Psd,
    /// The scaled STFT, complex.
    Complex,
    /// `|STFT|`, real.
    Magnitude,
    /// `angle(STFT)`, real.
    Angle,
    /// `angle(STFT)` unwrapped along the frequency axis, real.
    Phase,
}

/// The options of [`welch`], [`csd`] and [`coherence`] (SciPy's defaults: `fs=1`, Hann window,
/// `nperseg=256` (cut to the signal length), `noverlap=nperseg/2`, `nfft=nperseg`, constant
/// detrend, one-sided, density, last axis, mean).
///
/// ```
/// let o = cusci_signal::WelchOptions::default();
/// assert_eq!((o.fs, o.nperseg, o.axis), (1.0, None, -1));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct WelchOptions {
    /// Sampling frequency.
    pub fs: f64,
    /// The window (default Hann).
    pub window: WindowSpec,
    /// Segment length (default 256, or the window's length; cut to the signal's length).
    pub nperseg: Option<usize>,
    /// Overlap between segments (default `nperseg / 2`).
    pub noverlap: Option<usize>,
    /// FFT length (default `nperseg`; at least `nperseg`).
    pub nfft: Option<usize>,
    /// Detrending of each segment.
    pub detrend: Detrend,
    /// One-sided spectrum for real data.
    pub return_onesided: bool,
    /// Density or spectrum.
    pub scaling: Scaling,
    /// The time axis.
    pub axis: isize,
    /// Mean or median over segments.
    pub average: Average,
}

impl Default for WelchOptions {
    fn default() -> Self {
        WelchOptions {
            fs: 1.0,
            window: WindowSpec::Named(Window::Hann),
            nperseg: None,
            noverlap: None,
            nfft: None,
            detrend: Detrend::Constant,
            return_onesided: true,
            scaling: Scaling::Density,
            axis: -1,
            average: Average::Mean,
        }
    }
}

/// The options of [`spectrogram`] (SciPy's defaults: Tukey(0.25) window, `nperseg=256`,
/// `noverlap=nperseg/8`, constant detrend, one-sided, density, PSD mode).
#[derive(Debug, Clone, PartialEq)]
pub struct SpectrogramOptions {
    /// Sampling frequency.
    pub fs: f64,
    /// The window (default `Tukey(0.25)`).
    pub window: WindowSpec,
    /// Segment length (default 256 or the window's length).
    pub nperseg: Option<usize>,
    /// Overlap (default `nperseg / 8`).
    pub noverlap: Option<usize>,
    /// FFT length (default `nperseg`).
    pub nfft: Option<usize>,
    /// Detrending of each segment.
    pub detrend: Detrend,
    /// One-sided spectrum for real data.
    pub return_onesided: bool,
    /// Density or spectrum.
    pub scaling: Scaling,
    /// The time axis.
    pub axis: isize,
    /// What to return.
    pub mode: SpectrogramMode,
}

impl Default for SpectrogramOptions {
    fn default() -> Self {
        SpectrogramOptions {
            fs: 1.0,
            window: WindowSpec::Named(Window::Tukey(0.25)),
            nperseg: None,
            noverlap: None,
            nfft: None,
            detrend: Detrend::Constant,
            return_onesided: true,
            scaling: Scaling::Density,
            axis: -1,
            mode: SpectrogramMode::Psd,
        }
    }
}

/// The options of [`stft`] (SciPy's defaults: Hann, `nperseg=256`, `noverlap=nperseg/2`, no
/// detrend, one-sided, zero boundary extension, padded, spectrum scaling).
#[derive(Debug, Clone, PartialEq)]
pub struct StftOptions {
    /// Sampling frequency.
    pub fs: f64,
    /// The window (default Hann).
    pub window: WindowSpec,
    /// Segment length (default 256, or the window's length).
    pub nperseg: Option<usize>,
    /// Overlap (default `nperseg / 2`).
    pub noverlap: Option<usize>,
    /// FFT length (default `nperseg`).
    pub nfft: Option<usize>,
    /// Detrending of each segment (default none).
    pub detrend: Detrend,
    /// One-sided spectrum for real data.
    pub return_onesided: bool,
    /// Extension of the signal by `nperseg/2` points each side (None: no extension).
    pub boundary: Option<Boundary>,
    /// Zero-pad the end to a whole number of segments.
    pub padded: bool,
    /// The time axis.
    pub axis: isize,
    /// `Spectrum` (SciPy's `'spectrum'`, default) or `Density` (`'psd'`).
    pub scaling: Scaling,
}

impl Default for StftOptions {
    fn default() -> Self {
        StftOptions {
            fs: 1.0,
            window: WindowSpec::Named(Window::Hann),
            nperseg: None,
            noverlap: None,
            nfft: None,
            detrend: Detrend::None,
            return_onesided: true,
            boundary: Some(Boundary::Zeros),
            padded: true,
            axis: -1,
            scaling: Scaling::Spectrum,
        }
    }
}

/// The options of [`istft`] (SciPy's defaults: Hann, `nperseg = 2 (nfreq - 1)`,
/// `noverlap=nperseg/2`, boundary points removed, time on the last axis, frequency on the one
/// before, spectrum scaling). The input is one-sided (SciPy's `input_onesided=True`).
#[derive(Debug, Clone, PartialEq)]
pub struct IstftOptions {
    /// Sampling frequency.
    pub fs: f64,
    /// The window (default Hann).
    pub window: WindowSpec,
    /// Segment length (default `2 (nfreq - 1)`).
    pub nperseg: Option<usize>,
    /// Overlap (default `nperseg / 2`).
    pub noverlap: Option<usize>,
    /// FFT length (default: `nperseg`, or `2 (nfreq - 1)`).
    pub nfft: Option<usize>,
    /// Remove the `nperseg / 2` boundary points of each end (as [`stft`]'s boundary adds).
    pub boundary: bool,
    /// The time (segment) axis of the input.
    pub time_axis: isize,
    /// The frequency axis of the input.
    pub freq_axis: isize,
    /// The scaling the STFT was computed with.
    pub scaling: Scaling,
}

impl Default for IstftOptions {
    fn default() -> Self {
        IstftOptions {
            fs: 1.0,
            window: WindowSpec::Named(Window::Hann),
            nperseg: None,
            noverlap: None,
            nfft: None,
            boundary: true,
            time_axis: -1,
            freq_axis: -2,
            scaling: Scaling::Spectrum,
        }
    }
}

/// A spectrogram: real for every mode but [`SpectrogramMode::Complex`].
#[derive(Debug, Clone)]
pub enum Sxx<T: FftReal> {
    /// PSD, magnitude, angle or phase.
    Real(Array<T>),
    /// The scaled STFT.
    Complex(Array<<T as FftReal>::Complex>),
}

impl<T: FftReal> Sxx<T> {
    /// The real array (None for the complex mode).
    pub fn real(self) -> Option<Array<T>> {
        match self {
            Sxx::Real(a) => Some(a),
            Sxx::Complex(_) => None,
        }
    }
    /// The complex array (None for the real modes).
    pub fn complex(self) -> Option<Array<<T as FftReal>::Complex>> {
        match self {
            Sxx::Complex(a) => Some(a),
            Sxx::Real(_) => None,
        }
    }
}

// ------------------------------------------------------------------------------------------
// the plan shared by every function

struct Params<'a> {
    op: &'a str,
    fs: f64,
    window: &'a WindowSpec,
    nperseg: Option<usize>,
    default_nperseg: usize,
    noverlap: Option<usize>,
    default_overlap_div: usize,
    nfft: Option<usize>,
    detrend: Detrend,
    onesided: bool,
    scaling: Scaling,
    boundary: Option<Boundary>,
    padded: bool,
    stft: bool,
}

#[derive(Debug, Clone)]
struct Plan {
    nperseg: usize,
    step: usize,
    nfft: usize,
    nfreq: usize,
    onesided: bool,
    ext: usize,
    bnd: i32,
    nseg: usize,
    win: Vec<f64>,
    detrend: Detrend,
    /// |X|² scale (sqrt of it for stft modes)
    scale: f64,
    /// time of each segment's centre
    times: Vec<f64>,
    fs: f64,
}

/// SciPy's `_triage_segments`: the window values and `nperseg` for a signal of length `len`.
fn triage(
    op: &str,
    window: &WindowSpec,
    nperseg: Option<usize>,
    default: usize,
    len: usize,
) -> Result<(Vec<f64>, usize)> {
    match window {
        WindowSpec::Named(w) => {
            let mut n = nperseg.unwrap_or(default);
            if n > len {
                // SciPy warns and uses the signal length
                n = len;
            }
            Ok((w.values(n, false)?, n))
        }
        WindowSpec::Values(v) => {
            if v.is_empty() {
                return Err(make::arg(op, "window must not be empty"));
            }
            if let Some(n) = nperseg {
                if n != v.len() {
                    return Err(make::arg(
                        op,
                        "value specified for nperseg is different from length of window",
                    ));
                }
            }
            if len < v.len() {
                return Err(make::arg(op, "window is longer than input signal"));
            }
            Ok((v.clone(), v.len()))
        }
    }
}

fn make_plan(p: &Params, len: usize) -> Result<Plan> {
    let op = p.op;
    if !(p.fs.is_finite() && p.fs > 0.0) {
        return Err(make::arg(op, "fs must be positive and finite"));
    }
    if p.nperseg == Some(0) {
        return Err(make::arg(op, "nperseg must be a positive integer"));
    }
    let (win, nperseg) = triage(op, p.window, p.nperseg, p.default_nperseg, len)?;
    let nfft = match p.nfft {
        None => nperseg,
        Some(n) if n < nperseg => {
            return Err(make::arg(
                op,
                "nfft must be greater than or equal to nperseg",
            ))
        }
        Some(n) => n,
    };
    let noverlap = p.noverlap.unwrap_or(nperseg / p.default_overlap_div);
    if noverlap >= nperseg {
        return Err(make::arg(op, "noverlap must be less than nperseg"));
    }
    let step = nperseg - noverlap;
    let (ext, bnd) = match p.boundary {
        None => (0, 0),
        Some(b) => {
            let e = nperseg / 2;
            let code = match b {
                Boundary::Even => 1,
                Boundary::Odd => 2,
                Boundary::Constant => 3,
                Boundary::Zeros => 4,
            };
            if (code == 1 || code == 2) && e > len.saturating_sub(1) {
                return Err(make::arg(
                    op,
                    format!(
                        "the extension length n ({e}) is too big; it must not exceed the signal length - 1 ({})",
                        len.saturating_sub(1)
                    ),
                ));
            }
            (e, code)
        }
    };
    let lx = len + 2 * ext;
    let lt = if p.padded {
        lx + (step - (lx - nperseg) % step) % step % nperseg
    } else {
        lx
    };
    let nseg = (lt - noverlap) / step;
    let s: f64 = win.iter().sum();
    let s2: f64 = win.iter().map(|w| w * w).sum();
    let mut scale = match p.scaling {
        Scaling::Density => 1.0 / (p.fs * s2),
        Scaling::Spectrum => 1.0 / (s * s),
    };
    if p.stft {
        scale = scale.sqrt();
    }
    let nfreq = if p.onesided { nfft / 2 + 1 } else { nfft };
    let half = nperseg as f64 / 2.0;
    let times = (0..nseg)
        .map(|k| {
            let t = (half + (k * step) as f64) / p.fs;
            if p.boundary.is_some() {
                t - half / p.fs
            } else {
                t
            }
        })
        .collect();
    Ok(Plan {
        nperseg,
        step,
        nfft,
        nfreq,
        onesided: p.onesided,
        ext,
        bnd,
        nseg,
        win,
        detrend: p.detrend,
        scale,
        times,
        fs: p.fs,
    })
}

impl Plan {
    fn freqs(&self) -> Vec<f64> {
        let n = self.nfft as f64;
        (0..self.nfreq)
            .map(|k| {
                let k = if !self.onesided && k >= self.nfft.div_ceil(2) {
                    k as f64 - n
                } else {
                    k as f64
                };
                k * self.fs / n
            })
            .collect()
    }
    fn doubling(&self, f: usize) -> f64 {
        if !self.onesided || f == 0 || (self.nfft % 2 == 0 && f == self.nfft / 2) {
            1.0
        } else {
            2.0
        }
    }
}

/// `x` with `axis` moved last, contiguous, and the leading shape.
fn to_rows<T: Element>(
    op: &str,
    x: &Array<T>,
    axis: isize,
) -> Result<(Array<T>, Vec<usize>, usize)> {
    let ax = norm_axis(op, axis, x.ndim())?;
    let nd = x.ndim();
    let mut perm: Vec<isize> = (0..nd as isize).filter(|&a| a != ax as isize).collect();
    perm.push(ax as isize);
    let xm = if ax == nd - 1 {
        x.contiguous()?
    } else {
        x.permute(&perm)?.contiguous()?
    };
    let lead = xm.shape()[..nd - 1].to_vec();
    Ok((xm, lead, ax))
}

/// Moves the frequency axis of an array shaped `lead + [nfreq] (+ [nseg])` to position `ax`.
fn place_freq<E: Element>(a: Array<E>, lead_nd: usize, ax: usize) -> Result<Array<E>> {
    if ax == lead_nd {
        return Ok(a);
    }
    let nd = a.ndim();
    let mut perm: Vec<isize> = Vec::with_capacity(nd);
    for i in 0..lead_nd {
        if i == ax {
            perm.push(lead_nd as isize);
        }
        perm.push(i as isize);
    }
    if ax >= lead_nd {
        perm.push(lead_nd as isize);
    }
    for i in lead_nd + 1..nd {
        perm.push(i as isize);
    }
    a.permute(&perm)?.contiguous()
}

fn kernel_fn<T: Element>(d: &CudaDevice, name: &str) -> Result<cusci_core::cuda::kernel::Function> {
    let (key, src) = spectral_source::<T>();
    d.function(&key, || src, &[], &format!("{key}_{name}"))
}

/// The kernel module for real type `T`: (key, source).
pub(crate) fn spectral_source<T: Element>() -> (String, String) {
    let ty = cuda_type::<T>();
    let prefix = format!("signal_spectral_{}", T::DTYPE.tag());
    (
        prefix.clone(),
        format!("#define T {ty}\n#define NAME(x) {prefix}_##x\n{SRC}"),
    )
}

/// The sample at extended position `p` (see `sample` in spectral.cu).
fn sample<T: RealFloat>(x: &[T], p: usize, ext: usize, bnd: i32) -> f64 {
    let l = x.len();
    if p >= ext && p - ext < l {
        return x[p - ext].to_f64();
    }
    if p >= l + 2 * ext {
        return 0.0;
    }
    if p < ext {
        let r = ext - p;
        return match bnd {
            1 => x[r].to_f64(),
            2 => 2.0 * x[0].to_f64() - x[r].to_f64(),
            3 => x[0].to_f64(),
            _ => 0.0,
        };
    }
    let r = p - ext - (l - 1);
    match bnd {
        1 => x[l - 1 - r].to_f64(),
        2 => 2.0 * x[l - 1].to_f64() - x[l - 1 - r].to_f64(),
        3 => x[l - 1].to_f64(),
        _ => 0.0,
    }
}

/// The detrended, windowed, zero-padded frames `(rows * nseg, nfft)` of the rows of `xm`
/// (`(rows, len)` contiguous).
fn frames<T: FftReal>(xm: &Array<T>, rows: usize, len: usize, pl: &Plan) -> Result<Array<T>> {
    let total = rows * pl.nseg;
    let shape = [rows, pl.nseg, pl.nfft];
    let det = match pl.detrend {
        Detrend::None => 0,
        Detrend::Constant => 1,
        Detrend::Linear => 2,
    };
    match xm.device() {
        Device::Cpu => {
            let xd = xm.to_vec()?;
            let mut out = vec![<T as Element>::zero(); total * pl.nfft];
            let n = pl.nperseg;
            let tbar = 0.5 * (n as f64 - 1.0);
            out.par_chunks_mut(pl.nfft.max(1))
                .enumerate()
                .for_each(|(r, o)| {
                    let b = r / pl.nseg;
                    let s = r % pl.nseg;
                    let xb = &xd[b * len..(b + 1) * len];
                    let p0 = s * pl.step;
                    let vals: Vec<f64> =
                        (0..n).map(|j| sample(xb, p0 + j, pl.ext, pl.bnd)).collect();
                    let (mut mean, mut slope) = (0.0, 0.0);
                    if det != 0 {
                        mean = vals.iter().sum::<f64>() / n as f64;
                        let nf = n as f64;
                        let stt = nf * (nf * nf - 1.0) / 12.0;
                        if det == 2 && stt > 0.0 {
                            let s1: f64 = vals
                                .iter()
                                .enumerate()
                                .map(|(j, v)| (j as f64 - tbar) * v)
                                .sum();
                            slope = s1 / stt;
                        }
                    }
                    for j in 0..n {
                        let mut v = vals[j];
                        if det != 0 {
                            v -= mean + slope * (j as f64 - tbar);
                        }
                        o[j] = <T as RealFloat>::from_f64(v * pl.win[j]);
                    }
                });
            Array::from_vec(out, &shape, xm.device())
        }
        Device::Cuda(d) => {
            let out = Array::<T>::empty(&shape, xm.device())?;
            if total == 0 || pl.nfft == 0 {
                return Ok(out);
            }
            let win = Array::from_vec(pl.win.clone(), &[pl.nperseg], xm.device())?;
            let f = kernel_fn::<T>(d, "frames")?;
            let mut a = Args::new();
            a.push(dptr(xm))
                .push(len as i64)
                .push(total as i64)
                .push(pl.nseg as i64)
                .push(pl.step as i64)
                .push(pl.nperseg as i64)
                .push(pl.nfft as i64)
                .push(pl.ext as i64)
                .push(pl.bnd)
                .push(det)
                .push(dptr(&win))
                .push(dptr(&out));
            let threads = if pl.nfft >= 256 { 256 } else { 64 };
            f.launch(
                d,
                LaunchConfig::linear(total.min(1 << 20) as u32, threads),
                &mut a,
            )?;
            Ok(out)
        }
    }
}

/// The transforms of the frames: `(rows, nseg, nfreq)` complex.
fn transform<T>(fr: &Array<T>, pl: &Plan) -> Result<Array<<T as FftReal>::Complex>>
where
    T: FftReal + cusci_fft::FftInput<Complex = <T as FftReal>::Complex>,
{
    let o = FftOptions {
        n: Some(pl.nfft),
        axis: -1,
        ..Default::default()
    };
    if pl.onesided {
        cusci_fft::rfft(fr, &o)
    } else {
        cusci_fft::fft(fr, &o)
    }
}

fn median_bias(n: usize) -> f64 {
    let m = (n - 1) / 2;
    1.0 + (1..=m)
        .map(|i| {
            let ii = 2.0 * i as f64;
            1.0 / (ii + 1.0) - 1.0 / ii
        })
        .sum::<f64>()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// CPU averaging: returns (re, im) per (row, f).
fn average_cpu<C: FftComplex>(
    x: &[C],
    y: Option<&[C]>,
    rows: usize,
    pl: &Plan,
    avg: Average,
) -> Vec<(f64, f64)> {
    let (nseg, nfreq) = (pl.nseg, pl.nfreq);
    let bias = if avg == Average::Median && nseg > 1 {
        median_bias(nseg)
    } else {
        1.0
    };
    (0..rows * nfreq)
        .into_par_iter()
        .map(|idx| {
            let b = idx / nfreq;
            let f = idx % nfreq;
            let fac = pl.scale * pl.doubling(f);
            let val = |s: usize| -> (f64, f64) {
                let k = (b * nseg + s) * nfreq + f;
                let xv = x[k].to_c64();
                match y {
                    Some(y) => {
                        let yv = y[k].to_c64();
                        let p = xv.conj() * yv;
                        (p.re * fac, p.im * fac)
                    }
                    None => (xv.norm_sqr() * fac, 0.0),
                }
            };
            if avg == Average::Median && nseg > 1 {
                let (mut re, mut im): (Vec<f64>, Vec<f64>) = (0..nseg).map(val).unzip();
                (median(&mut re) / bias, median(&mut im) / bias)
            } else {
                let (mut re, mut im) = (0.0, 0.0);
                for s in 0..nseg {
                    let (a, b) = val(s);
                    re += a;
                    im += b;
                }
                (re / nseg as f64, im / nseg as f64)
            }
        })
        .collect()
}

/// The average over frames of `|X|²` (`y` None, real `E`) or `conj(X) Y` (complex `E`), scaled
/// and doubled: `(rows, nfreq)` on the frames' device.
fn average<T: FftReal, E: Element>(
    x: &Array<<T as FftReal>::Complex>,
    y: Option<&Array<<T as FftReal>::Complex>>,
    rows: usize,
    pl: &Plan,
    avg: Average,
) -> Result<Array<E>> {
    let cplx = y.is_some();
    let shape = [rows, pl.nfreq];
    match x.device() {
        Device::Cpu => {
            let xd = x.to_vec()?;
            let yd = match y {
                Some(y) => Some(y.to_vec()?),
                None => None,
            };
            let v = average_cpu(&xd, yd.as_deref(), rows, pl, avg);
            let out: Vec<E> = v
                .into_iter()
                .map(|(re, im)| E::from_c64(cusci_core::c64::new(re, im)))
                .collect();
            Array::from_vec(out, &shape, x.device())
        }
        Device::Cuda(d) => {
            let out = Array::<E>::empty(&shape, x.device())?;
            if rows * pl.nfreq == 0 {
                return Ok(out);
            }
            if avg == Average::Median && pl.nseg > 1 {
                let sp: Array<E> = spec_gpu::<T, E>(d, x, y, rows, pl, if cplx { 4 } else { 0 })?;
                let f = kernel_fn::<T>(d, "median_avg")?;
                let mut a = Args::new();
                let nrows = rows * pl.nfreq;
                a.push(dptr(&sp))
                    .push(nrows as i64)
                    .push(pl.nseg as i64)
                    .push(cplx as i32)
                    .push(median_bias(pl.nseg))
                    .push(dptr(&out));
                f.launch(d, LaunchConfig::linear(blocks_for(nrows, 128), 128), &mut a)?;
                return Ok(out);
            }
            // chunks of frames so that the partial sums keep the GPU busy
            let per = rows * pl.nfreq;
            let target = 1usize << 20;
            let nchunks = (target / per.max(1)).clamp(1, pl.nseg.div_ceil(16).max(1));
            let chunk = pl.nseg.div_ceil(nchunks);
            let nchunks = pl.nseg.div_ceil(chunk).max(1);
            let part = Array::<f64>::empty(&[rows, nchunks, pl.nfreq, 2], x.device())?;
            let f = kernel_fn::<T>(d, "psd_partial")?;
            let mut a = Args::new();
            a.push(dptr(x))
                .push(y.map(dptr).unwrap_or(0))
                .push(rows as i64)
                .push(pl.nseg as i64)
                .push(pl.nfreq as i64)
                .push(chunk as i64)
                .push(nchunks as i64)
                .push(dptr(&part));
            let tot = rows * nchunks * pl.nfreq;
            f.launch(d, LaunchConfig::linear(blocks_for(tot, 256), 256), &mut a)?;
            let g = kernel_fn::<T>(d, "psd_finish")?;
            let mut a = Args::new();
            a.push(dptr(&part))
                .push(rows as i64)
                .push(nchunks as i64)
                .push(pl.nfreq as i64)
                .push(pl.scale / pl.nseg.max(1) as f64)
                .push(pl.nfft as i64)
                .push(pl.onesided as i32)
                .push(cplx as i32)
                .push(dptr(&out));
            g.launch(d, LaunchConfig::linear(blocks_for(per, 256), 256), &mut a)?;
            Ok(out)
        }
    }
}

/// The `(rows, nfreq, nseg)` spectrogram on the GPU (see `spec` in spectral.cu for `mode`).
fn spec_gpu<T: FftReal, E: Element>(
    d: &CudaDevice,
    x: &Array<<T as FftReal>::Complex>,
    y: Option<&Array<<T as FftReal>::Complex>>,
    rows: usize,
    pl: &Plan,
    mode: i32,
) -> Result<Array<E>> {
    let out = Array::<E>::empty(&[rows, pl.nfreq, pl.nseg], x.device())?;
    let total = rows * pl.nfreq * pl.nseg;
    if total == 0 {
        return Ok(out);
    }
    let f = kernel_fn::<T>(d, "spec")?;
    let mut a = Args::new();
    a.push(dptr(x))
        .push(y.map(dptr).unwrap_or(0))
        .push(rows as i64)
        .push(pl.nseg as i64)
        .push(pl.nfreq as i64)
        .push(pl.scale)
        .push(pl.nfft as i64)
        .push(pl.onesided as i32)
        .push(mode)
        .push(dptr(&out));
    f.launch(d, LaunchConfig::linear(blocks_for(total, 256), 256), &mut a)?;
    Ok(out)
}

fn unwrap_col(v: &mut [f64]) {
    let pi = std::f64::consts::PI;
    let mut corr = 0.0;
    let mut prev = v.first().copied().unwrap_or(0.0);
    for item in v.iter_mut().skip(1) {
        let cur = *item;
        let dd = cur - prev;
        let mut ddmod = (dd + pi).rem_euclid(2.0 * pi) - pi;
        if ddmod == -pi && dd > 0.0 {
            ddmod = pi;
        }
        if dd.abs() >= pi {
            corr += ddmod - dd;
        }
        prev = cur;
        *item = cur + corr;
    }
}

/// The `(rows, nfreq, nseg)` spectrogram of mode 0 (psd), 1 (complex), 2 (magnitude),
/// 3 (angle), 5 (phase: angle unwrapped along frequency).
fn spec<T: FftReal, E: Element>(
    x: &Array<<T as FftReal>::Complex>,
    rows: usize,
    pl: &Plan,
    mode: i32,
) -> Result<Array<E>> {
    let (nseg, nfreq) = (pl.nseg, pl.nfreq);
    match x.device() {
        Device::Cpu => {
            let xd = x.to_vec()?;
            let mut out: Vec<E> = (0..rows * nfreq * nseg)
                .into_par_iter()
                .map(|idx| {
                    let s = idx % nseg;
                    let f = (idx / nseg) % nfreq;
                    let b = idx / (nseg * nfreq);
                    let xv = xd[(b * nseg + s) * nfreq + f].to_c64();
                    let v = match mode {
                        0 => cusci_core::c64::new(xv.norm_sqr() * pl.scale * pl.doubling(f), 0.0),
                        1 => xv * pl.scale,
                        2 => cusci_core::c64::new(xv.norm() * pl.scale, 0.0),
                        _ => cusci_core::c64::new(xv.im.atan2(xv.re), 0.0),
                    };
                    E::from_c64(v)
                })
                .collect();
            if mode == 5 {
                for b in 0..rows {
                    for s in 0..nseg {
                        let mut col: Vec<f64> = (0..nfreq)
                            .map(|f| out[(b * nfreq + f) * nseg + s].to_c64().re)
                            .collect();
                        unwrap_col(&mut col);
                        for (f, v) in col.into_iter().enumerate() {
                            out[(b * nfreq + f) * nseg + s] =
                                E::from_c64(cusci_core::c64::new(v, 0.0));
                        }
                    }
                }
            }
            Array::from_vec(out, &[rows, nfreq, nseg], x.device())
        }
        Device::Cuda(d) => {
            let out = spec_gpu::<T, E>(d, x, None, rows, pl, mode.min(3))?;
            if mode == 5 && rows * nseg > 0 && nfreq > 1 {
                let f = kernel_fn::<T>(d, "unwrap")?;
                let mut a = Args::new();
                a.push(dptr(&out))
                    .push(rows as i64)
                    .push(nfreq as i64)
                    .push(nseg as i64);
                f.launch(
                    d,
                    LaunchConfig::linear(blocks_for(rows * nseg, 128), 128),
                    &mut a,
                )?;
            }
            Ok(out)
        }
    }
}

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

fn welch_params<'a>(op: &'a str, o: &'a WelchOptions, onesided: bool) -> Params<'a> {
    Params {
        op,
        fs: o.fs,
        window: &o.window,
        nperseg: o.nperseg,
        default_nperseg: 256,
        noverlap: o.noverlap,
        default_overlap_div: 2,
        nfft: o.nfft,
        detrend: o.detrend,
        onesided,
        scaling: o.scaling,
        boundary: None,
        padded: false,
        stft: false,
    }
}

fn freq_array<T: RealFloat>(pl: &Plan, dev: &Device) -> Result<Array<T>> {
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

fn with_shape<E: Element>(
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
    crate::procutil::same_dev(op, x.device(), y.device())?;
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
        op: "spectrogram",
        fs: opts.fs,
        window: &opts.window,
        nperseg: opts.nperseg,
        default_nperseg: 256,
        noverlap: opts.noverlap,
        default_overlap_div: 8,
        nfft: opts.nfft,
        detrend: opts.detrend,
        onesided: opts.return_onesided,
        scaling: opts.scaling,
        boundary: None,
        padded: false,
        stft: opts.mode != SpectrogramMode::Psd,
    };
    let (pl, lead, ax, xf) = analyse(x, &p, opts.axis)?;
    let rows = lead.iter().product();
    let tail = [pl.nfreq, pl.nseg];
    let sxx = match opts.mode {
        SpectrogramMode::Complex => Sxx::Complex(with_shape(
            spec::<T, <T as FftReal>::Complex>(&xf, rows, &pl, 1)?,
            &lead,
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
                spec::<T, T>(&xf, rows, &pl, code)?,
                &lead,
                &tail,
                ax,
            )?)
        }
    };
    Ok((
        freq_array(&pl, x.device())?,
        time_array(&pl, x.device())?,
        sxx,
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
        op: "stft",
        fs: opts.fs,
        window: &opts.window,
        nperseg: opts.nperseg,
        default_nperseg: 256,
        noverlap: opts.noverlap,
        default_overlap_div: 2,
        nfft: opts.nfft,
        detrend: opts.detrend,
        onesided: opts.return_onesided,
        scaling: opts.scaling,
        boundary: opts.boundary,
        padded: opts.padded,
        stft: true,
    };
    let (pl, lead, ax, xf) = analyse(x, &p, opts.axis)?;
    let rows = lead.iter().product();
    let z = with_shape(
        spec::<T, <T as FftReal>::Complex>(&xf, rows, &pl, 1)?,
        &lead,
        &[pl.nfreq, pl.nseg],
        ax,
    )?;
    Ok((
        freq_array(&pl, x.device())?,
        time_array(&pl, x.device())?,
        z,
    ))
}

/// The inverse short-time Fourier transform of a one-sided STFT `zxx`, SciPy's
/// `scipy.signal.istft(..., input_onesided=True)`: inverse real FFT of every segment, windowed
/// overlap-add, division by the summed squared window (where it exceeds 1e-10; SciPy warns
/// when the NOLA condition fails). Returns `(t, x)`, `x` real with the time axis at
/// `time_axis`'s place.
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
    let op = "istft";
    let nd = zxx.ndim();
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
    let nfreq = zxx.shape()[fa];
    let nseg = zxx.shape()[ta];
    let n_default = 2 * nfreq.saturating_sub(1);
    let nperseg = opts.nperseg.unwrap_or(n_default);
    if nperseg == 0 {
        return Err(make::arg(op, "nperseg must be a positive integer"));
    }
    let nfft = match opts.nfft {
        None => {
            if nperseg == n_default + 1 {
                nperseg
            } else {
                n_default
            }
        }
        Some(n) if n < nperseg => {
            return Err(make::arg(
                op,
                "nfft must be greater than or equal to nperseg",
            ))
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
    let lead: Vec<usize> = perm.iter().map(|&a| zxx.shape()[a as usize]).collect();
    perm.push(ta as isize);
    perm.push(fa as isize);
    let zt = zxx.permute(&perm)?.contiguous()?;
    let rows: usize = lead.iter().product();
    let o = FftOptions {
        n: Some(nfft),
        axis: -1,
        ..Default::default()
    };
    let xs = cusci_fft::irfft(&zt, &o)?.contiguous()?;
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
    let nout = if opts.boundary {
        outlen.saturating_sub(2 * (nperseg / 2))
    } else {
        outlen
    };
    let dev = zxx.device();
    let x: Array<C::Real> = match dev {
        Device::Cpu => {
            let xd = xs.to_vec()?;
            let out: Vec<C::Real> = (0..rows * nout)
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
                    <C::Real as RealFloat>::from_f64(if nrm > 1e-10 { acc / nrm } else { acc })
                })
                .collect();
            Array::from_vec(out, &[rows, nout], dev)?
        }
        Device::Cuda(d) => {
            let out = Array::<C::Real>::empty(&[rows, nout], dev)?;
            if rows * nout > 0 {
                let w = Array::from_vec(win.clone(), &[nperseg], dev)?;
                let f = kernel_fn::<C::Real>(d, "ola")?;
                let mut a = Args::new();
                a.push(dptr(&xs))
                    .push(rows as i64)
                    .push(nseg as i64)
                    .push(nfft as i64)
                    .push(nperseg as i64)
                    .push(step as i64)
                    .push(off as i64)
                    .push(nout as i64)
                    .push(fac)
                    .push(dptr(&w))
                    .push(dptr(&out));
                f.launch(
                    d,
                    LaunchConfig::linear(blocks_for(rows * nout, 256), 256),
                    &mut a,
                )?;
            }
            out
        }
    };
    let shape: Vec<isize> = lead.iter().chain(&[nout]).map(|&v| v as isize).collect();
    let mut x = x.reshape(&shape)?;
    // time axis back to its place (SciPy: after removing the frequency axis)
    let tpos = if fa < ta { ta - 1 } else { ta };
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
    let t: Vec<C::Real> = (0..nout)
        .map(|i| <C::Real as RealFloat>::from_f64(i as f64 / opts.fs))
        .collect();
    Ok((Array::from_vec(t, &[nout], dev)?, x))
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

/// The kernel sources of the spectral module (name, source), for compile checks without a GPU.
/// Not part of the API.
#[doc(hidden)]
pub fn spectral_kernel_sources() -> Vec<(String, String)> {
    vec![spectral_source::<f32>(), spectral_source::<f64>()]
}
