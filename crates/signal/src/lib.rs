//! cusci-signal: `scipy.signal` on CUDA and on the CPU.
//!
//! The modules follow SciPy's families: `convolve` (convolution and correlation), `filter` (IIR,
//! zero-phase, median, order, Savitzky-Golay filters, the analytic signal, detrending),
//! `resample`, `spectral` (periodograms, spectrograms, the short-time Fourier transform,
//! Lomb-Scargle, the chirp z-transform), [`design`] (filter design), [`represent`] and
//! [`partial`] (filter representations), [`freqresp`](mod@crate::freqresp), `lti` ([`ltisys`],
//! [`placepoles`]), `waveforms` (waveforms and wavelets), `peaks`, `splines` and [`windows`]; every
//! public item is re-exported here, but SciPy's window functions by name, which stay in
//! [`windows`] as in `scipy.signal.windows` (`windows::hann(M, sym, dev)`, `windows::kaiser`, ...). Each GPU kernel sits in a `.cu` file beside the module that
//! launches it, declared once as a [`KernelModule`](cusci_core::KernelModule) (listed by
//! `kernel_modules()`); `procutil` holds the crate's shared helpers.

pub use cusci_core::{Array, Device, Error, Result};

mod convolve;
pub mod design;
mod filter;
pub mod freqresp;
mod lti;
pub mod partial;
mod peaks;
mod procutil;
pub mod represent;
mod resample;
mod spectral;
mod splines;
mod waveforms;
pub mod windows;

pub use convolve::{
    choose_conv_method, choose_conv_method_shapes, convolve, convolve2d, correlate, correlate2d,
    correlation_lags, fftconvolve, fftconvolve_axes, oaconvolve, Conv2dOptions, ConvBoundary,
    ConvMethod, ConvMode, ConvOptions,
};
pub use convolve::{choose_conv_method_measure, ConvTimes};
pub use design::{
    band_stop_obj, buttord, cheb1ord, cheb2ord, ellipord, iirdesign, DesignType, FilterOrder,
    IirDesignOptions, OrdKind, OrdOptions,
};
pub use design::{
    bessel, besselap, bilinear, bilinear_zpk, buttap, butter, butter_zpk, cheb1ap, cheb2ap, cheby1,
    cheby2, ellip, ellipap, iirfilter, iirfilter_zpk, lp2bp, lp2bp_zpk, lp2bs, lp2bs_zpk, lp2hp,
    lp2hp_zpk, lp2lp, lp2lp_zpk, BType, BesselNorm, Filter, FilterType, IirOptions, Output,
};
pub use design::{firls, firwin2, minimum_phase, Firwin2Options, MinPhaseMethod};
pub use design::{
    firwin, gammatone, iircomb, iirnotch, iirpeak, kaiser_atten, kaiser_beta, kaiserord, qmf,
    CombType, FirWindow, FirwinOptions, GammatoneType,
};
pub use design::{firwin_2d, remez, Firwin2dWindow, RemezOptions, RemezType};
pub use filter::{
    convolve2d_promote, convolve_promote, correlate2d_promote, correlate_promote,
    fftconvolve_promote, filtfilt_promote, lfilter_promote, oaconvolve_promote, sosfilt_promote,
    sosfiltfilt_promote, upfirdn_promote, Promote, Promoted,
};
pub use filter::{
    deconvolve, detrend, envelope, filtfilt, hilbert, hilbert2, lfilter, lfilter_zi, lfiltic,
    medfilt, medfilt2d, order_filter, savgol_coeffs, savgol_filter, sepfir2d, sosfilt, sosfilt_zi,
    sosfiltfilt, symiirorder1, symiirorder2, wiener, DetrendOptions, DetrendType, Envelope,
    EnvelopeOptions, EnvelopeResidual, FiltMethod, FiltPad, FilterOptions, Filtered,
    FiltfiltOptions, HilbertOptions, KernelSize, SavgolCoeffsOptions, SavgolMode, SavgolOptions,
};
pub use filter::{whittaker_henderson, WhLamb, Whittaker, WhittakerOptions};
pub use freqresp::{
    findfreqs, findfreqs_zpk, freqs, freqs_zpk, freqz, freqz_sos, freqz_zpk, group_delay, sosfreqz,
    FreqResponse, FreqzOptions, WorN,
};
pub use lti::{ltisys, placepoles};
pub use ltisys::{
    abcd_normalize, bode, cont2discrete, dbode, dfreqresp, dimpulse, dlsim, dstep, freqresp,
    impulse, lsim, ss2tf, ss2zpk, step, tf2ss, zpk2ss, Bode, DResponseOptions, Discretization,
    LsimOptions, Lti, Mat, Response, ResponseOptions, StateSpace, TransferFunction, ZerosPolesGain,
};
pub use partial::{invres, invresz, residue, residuez, unique_roots, Residues, RootType};
pub use peaks::{
    argrelextrema, argrelmax, argrelmin, find_peaks, peak_prominences, peak_widths, Bound,
    Comparator, ExtremaMode, FindPeaksOptions, PeakProperties, Prominences, Widths,
};
pub use peaks::{find_peaks_cwt, FindPeaksCwtOptions};
pub use placepoles::{place_poles, FullStateFeedback, PlacePolesMethod, PlacePolesOptions};
pub use procutil::SignalScalar;
pub use represent::{
    cplxreal, normalize, poly, poly_complex, roots, sos2tf, sos2zpk, tf2sos, tf2zpk, zpk2sos,
    zpk2tf, Ba, Pairing, Sos, Zpk,
};
pub use resample::{
    decimate, resample, resample_poly, upfirdn, DecimateFtype, DecimateOptions, PadType,
    PolyWindow, ResampleOptions, ResamplePolyOptions, ResampleScalar, UpfirdnMode, UpfirdnOptions,
};
pub use resample::{decimate_dlti, resample_freq, resample_t};
pub use spectral::{
    check_cola, check_nola, closest_stft_dual_window, closest_stft_dual_window_complex, coherence,
    csd, czt, czt_points, istft, lombscargle, lombscargle_amplitude, periodogram, spectrogram,
    stft, vectorstrength, welch, zoom_fft, Average, Boundary, Czt, Detrend, FftMode, IstftArgs,
    IstftOptions, LombNormalize, LombScargleOptions, Scaling, ShortTimeFft, ShortTimeFftOptions,
    SpectrogramMode, SpectrogramOptions, StftArgs, StftOptions, StftPadding, StftScaling,
    StftSignal, Sxx, WelchOptions, WindowSpec, ZoomFft, ZoomFftOptions,
};
pub use spectral::{
    coherence_complex, csd_complex, istft_complex, periodogram_complex, spectrogram_complex,
    stft_complex, welch_complex,
};
pub use splines::{
    cspline1d, cspline1d_eval, cspline2d, gauss_spline, qspline1d, qspline1d_eval, qspline2d,
    spline_filter, Spline2dOptions,
};
pub use waveforms::{
    chirp, cwt, gausspulse, gausspulse_cutoff, max_len_seq, morlet, morlet2, ricker, sawtooth,
    square, sweep_poly, unit_impulse, ChirpMethod, ChirpOptions, CwtWavelet, GaussPulse,
    GaussPulseOptions, ImpulseIndex, MorletOptions,
};
pub use windows::{dpss, get_window, Dpss, DpssNorm, DpssOptions, Window};

/// Every NVRTC kernel module of the crate, for compile checks without a GPU
/// (`cusci_core::testing::compile_modules`). Not part of the API.
#[doc(hidden)]
pub fn kernel_modules() -> Vec<&'static cusci_core::KernelModule> {
    vec![
        &convolve::CONVOLVE,
        &convolve::CONVOLVE2D,
        &convolve::OACONV,
        &filter::AXISFIR,
        &filter::ENVELOPE,
        &filter::FILTFILT,
        &filter::HILBERT,
        &filter::IIR,
        &filter::MEDFILT,
        &filter::RANKFILT,
        &filter::WHITTAKER,
        &ltisys::LTI,
        &peaks::PEAKS,
        &resample::RESAMPLE,
        &spectral::SHORTFFT,
        &spectral::SPECTRAL,
        &splines::SPLINES,
        &waveforms::WAVEFORMS,
        &waveforms::WAVELETS,
    ]
}
