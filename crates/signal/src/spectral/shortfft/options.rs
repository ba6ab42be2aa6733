//! The options, arguments and results of [`ShortTimeFft`](super::ShortTimeFft).

use cusci_core::Array;
use cusci_fft::FftReal;

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
    /// `'unitary'` (only through [`ShortTimeFft::from_win_equals_dual`](crate::ShortTimeFft::from_win_equals_dual)).
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

/// The keyword arguments of the [`ShortTimeFft`](crate::ShortTimeFft) constructors (SciPy's defaults: one-sided,
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

/// The arguments of [`ShortTimeFft::istft`](crate::ShortTimeFft::istft): the sample range `k0..k1` (default `0..k_max`) and
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

/// A signal reconstructed by [`ShortTimeFft::istft`](crate::ShortTimeFft::istft): real for the one-sided modes, complex
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
