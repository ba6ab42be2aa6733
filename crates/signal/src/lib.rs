//! cusci-signal: `scipy.signal` on CUDA and on the CPU (its functions arrive with their own issue).

pub use cusci_core::{Array, Device, Error, Result};

mod convolve;
mod filter;
mod hilbert;
mod medfilt;
mod procutil;
mod spectral;
mod windows;
#[doc(hidden)]
pub use spectral::spectral_kernel_sources;
pub use spectral::{
    check_cola, check_nola, coherence, csd, istft, periodogram, spectrogram, stft, welch, Average,
    Boundary, Detrend, IstftOptions, Scaling, SpectrogramMode, SpectrogramOptions, StftOptions,
    Sxx, WelchOptions, WindowSpec,
};
pub use windows::{dpss, get_window, Dpss, DpssNorm, DpssOptions, Window};
mod convolve2d;
pub use convolve2d::{convolve2d, correlate2d, Conv2dOptions, ConvBoundary};
mod filtfilt;
pub use filtfilt::{filtfilt, lfiltic, sosfiltfilt, FiltMethod, FiltPad, FiltfiltOptions};
mod resample;
pub use convolve::{
    choose_conv_method, choose_conv_method_shapes, convolve, correlate, fftconvolve, ConvMethod,
    ConvMode, ConvOptions,
};
pub use filter::{lfilter, lfilter_zi, sosfilt, sosfilt_zi, FilterOptions, Filtered};
pub use hilbert::{hilbert, HilbertOptions};
pub use medfilt::medfilt;
#[doc(hidden)]
pub use procutil::processing_kernel_sources;
pub use procutil::SignalScalar;
#[doc(hidden)]
pub use resample::resampling_kernel_sources;
pub use resample::{
    resample_poly, upfirdn, PadType, PolyWindow, ResamplePolyOptions, UpfirdnMode, UpfirdnOptions,
};

pub mod design;
pub mod freqresp;
pub mod represent;
pub use design::{
    bessel, besselap, bilinear, bilinear_zpk, buttap, butter, butter_zpk, cheb1ap, cheb2ap, cheby1,
    cheby2, ellip, ellipap, iirfilter, iirfilter_zpk, lp2bp, lp2bp_zpk, lp2bs, lp2bs_zpk, lp2hp,
    lp2hp_zpk, lp2lp, lp2lp_zpk, BType, BesselNorm, Filter, FilterType, IirOptions, Output,
};
pub use design::{
    firwin, gammatone, iircomb, iirnotch, iirpeak, kaiser_atten, kaiser_beta, kaiserord, qmf,
    CombType, FirWindow, FirwinOptions, GammatoneType,
};
pub use freqresp::{
    findfreqs, findfreqs_zpk, freqs, freqs_zpk, freqz, freqz_sos, freqz_zpk, group_delay, sosfreqz,
    FreqResponse, FreqzOptions, WorN,
};
pub use represent::{
    cplxreal, normalize, poly, poly_complex, roots, sos2tf, sos2zpk, tf2sos, tf2zpk, zpk2sos,
    zpk2tf, Ba, Pairing, Sos, Zpk,
};

mod peaks;
mod waveforms;
#[doc(hidden)]
pub use peaks::analysis_kernel_sources;
pub use peaks::{
    argrelextrema, argrelmax, argrelmin, find_peaks, peak_prominences, peak_widths, Bound,
    Comparator, ExtremaMode, FindPeaksOptions, PeakProperties, Prominences, Widths,
};
pub use waveforms::{
    chirp, gausspulse, gausspulse_cutoff, max_len_seq, sawtooth, square, sweep_poly, unit_impulse,
    ChirpMethod, ChirpOptions, GaussPulse, GaussPulseOptions, ImpulseIndex,
};
mod axisfir;
mod czt;
pub use axisfir::{
    savgol_coeffs, savgol_filter, sepfir2d, SavgolCoeffsOptions, SavgolMode, SavgolOptions,
};
mod convnd;
pub use convnd::{correlation_lags, deconvolve, fftconvolve_axes};
mod oaconv;
pub use oaconv::{oaconvolve, oaconvolve_kernel_sources};
mod detrend;
pub use detrend::{detrend, DetrendOptions, DetrendType};
mod symiir;
pub use symiir::{symiirorder1, symiirorder2};
mod fftresample;
pub use fftresample::{
    decimate, resample, DecimateFtype, DecimateOptions, ResampleOptions, ResampleScalar,
};
mod rankfilt;
pub use rankfilt::{hilbert2, medfilt2d, order_filter, wiener};
mod envelope;
mod lomb;
#[doc(hidden)]
pub use envelope::envelope_kernel_sources;
pub use envelope::{envelope, Envelope, EnvelopeOptions, EnvelopeResidual};
mod shortfft;
pub use czt::{czt, czt_points, zoom_fft, Czt, ZoomFft, ZoomFftOptions};
pub use lomb::{
    lombscargle, lombscargle_amplitude, vectorstrength, LombNormalize, LombScargleOptions,
};
#[doc(hidden)]
pub use shortfft::shortfft_kernel_sources;
pub use shortfft::{
    closest_stft_dual_window, closest_stft_dual_window_complex, FftMode, IstftArgs, ShortTimeFft,
    ShortTimeFftOptions, StftArgs, StftPadding, StftScaling, StftSignal,
};
pub mod ltisys;
pub use design::{
    band_stop_obj, buttord, cheb1ord, cheb2ord, ellipord, iirdesign, DesignType, FilterOrder,
    IirDesignOptions, OrdKind, OrdOptions,
};
pub use design::{firls, firwin2, minimum_phase, Firwin2Options, MinPhaseMethod};
#[doc(hidden)]
pub use ltisys::lti_kernel_sources;
pub use ltisys::{
    abcd_normalize, bode, cont2discrete, dbode, dfreqresp, dimpulse, dlsim, dstep, freqresp,
    impulse, lsim, ss2tf, ss2zpk, step, tf2ss, zpk2ss, Bode, DResponseOptions, Discretization,
    LsimOptions, Lti, Mat, Response, ResponseOptions, StateSpace, TransferFunction, ZerosPolesGain,
};
pub mod placepoles;
pub use placepoles::{place_poles, FullStateFeedback, PlacePolesMethod, PlacePolesOptions};
pub mod partial;
pub use partial::{invres, invresz, residue, residuez, unique_roots, Residues, RootType};
mod splines;
#[doc(hidden)]
pub use splines::spline_kernel_sources;
pub use splines::{
    cspline1d, cspline1d_eval, cspline2d, gauss_spline, qspline1d, qspline1d_eval, qspline2d,
    spline_filter, Spline2dOptions,
};
mod wavelets;
#[doc(hidden)]
pub use wavelets::wavelet_kernel_sources;
pub use wavelets::{cwt, morlet, morlet2, ricker, CwtWavelet, MorletOptions};
