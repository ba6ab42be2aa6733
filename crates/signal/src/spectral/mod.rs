//! Spectral analysis: periodograms and Welch's method, cross spectra and coherence,
//! spectrograms and the short-time Fourier transform (legacy [`stft`]/[`istft`] and
//! [`ShortTimeFft`]), Lomb-Scargle periodograms, and the chirp z-transform.
//!
//! `welch` holds the front ends of SciPy's `_spectral_helper` family, `plan` their shared plan,
//! `frames` the framing, transforms and averages (`spectral.cu`), `options` their options.

mod complexin;
mod czt;
mod frames;
mod lomb;
mod options;
mod plan;
mod shortfft;
mod welch;

pub use complexin::{coherence_complex, csd_complex, periodogram_complex, welch_complex};
pub use czt::{czt, czt_points, zoom_fft, Czt, ZoomFft, ZoomFftOptions};
pub(crate) use frames::SPECTRAL;
pub use lomb::{
    lombscargle, lombscargle_amplitude, vectorstrength, LombNormalize, LombScargleOptions,
};
pub use options::{
    Average, Boundary, Detrend, IstftOptions, Scaling, SpectrogramMode, SpectrogramOptions,
    StftOptions, Sxx, WelchOptions, WindowSpec,
};
pub(crate) use shortfft::SHORTFFT;
pub use shortfft::{
    closest_stft_dual_window, closest_stft_dual_window_complex, FftMode, IstftArgs, ShortTimeFft,
    ShortTimeFftOptions, StftArgs, StftPadding, StftScaling, StftSignal,
};
pub use welch::{
    check_cola, check_nola, coherence, csd, istft, istft_complex, periodogram, spectrogram,
    spectrogram_complex, stft, stft_complex, welch,
};
