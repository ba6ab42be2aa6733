//! The options and results of the spectral functions.

use crate::windows::Window;
use cusci_core::Array;
use cusci_fft::FftReal;

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

/// `average=` of [`welch`](crate::welch) and [`csd`](crate::csd).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Average {
    /// The mean over segments.
    #[default]
    Mean,
    /// The median over segments divided by its bias for exponentially distributed values
    /// (complex values: real and imaginary parts separately).
    Median,
}

/// `boundary=` of [`stft`](crate::stft): how the signal is extended by `nperseg / 2` points each side.
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

/// `mode=` of [`spectrogram`](crate::spectrogram).
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

/// The options of [`welch`](crate::welch), [`csd`](crate::csd) and [`coherence`](crate::coherence) (SciPy's defaults: `fs=1`, Hann window,
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

/// The options of [`spectrogram`](crate::spectrogram) (SciPy's defaults: Tukey(0.25) window, `nperseg=256`,
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

/// The options of [`stft`](crate::stft) (SciPy's defaults: Hann, `nperseg=256`, `noverlap=nperseg/2`, no
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

/// The options of [`istft`](crate::istft) (SciPy's defaults: Hann, `nperseg = 2 (nfreq - 1)`,
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
    /// Remove the `nperseg / 2` boundary points of each end (as [`stft`](crate::stft)'s boundary adds).
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
