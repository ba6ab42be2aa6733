//! Filtering (SciPy's filtering family): IIR filters ([`lfilter`], [`sosfilt`] and their initial
//! states), zero-phase filtering, symmetric IIR filters, median, order and Wiener filters,
//! Savitzky-Golay and separable FIR filters, the analytic signal and its envelope, detrending
//! and deconvolution.

mod axisfir;
mod deconvolve;
mod detrend;
mod envelope;
mod filtfilt;
mod hilbert;
mod iir;
mod medfilt;
mod promote;
mod rankfilt;
mod symiir;
mod whittaker;

pub(crate) use axisfir::AXISFIR;
pub use axisfir::{
    savgol_coeffs, savgol_filter, sepfir2d, SavgolCoeffsOptions, SavgolMode, SavgolOptions,
};
pub use deconvolve::deconvolve;
pub use detrend::{detrend, DetrendOptions, DetrendType};
pub(crate) use envelope::ENVELOPE;
pub use envelope::{envelope, Envelope, EnvelopeOptions, EnvelopeResidual};
pub(crate) use filtfilt::FILTFILT;
pub use filtfilt::{filtfilt, lfiltic, sosfiltfilt, FiltMethod, FiltPad, FiltfiltOptions};
pub(crate) use hilbert::HILBERT;
pub use hilbert::{hilbert, HilbertOptions};
pub(crate) use iir::IIR;
pub use iir::{lfilter, lfilter_zi, sosfilt, sosfilt_zi, FilterOptions, Filtered};
pub(crate) use medfilt::MEDFILT;
pub use medfilt::{medfilt, KernelSize};
pub use promote::{
    convolve2d_promote, convolve_promote, correlate2d_promote, correlate_promote,
    fftconvolve_promote, filtfilt_promote, lfilter_promote, oaconvolve_promote, sosfilt_promote,
    sosfiltfilt_promote, upfirdn_promote, Promote, Promoted,
};
pub(crate) use rankfilt::RANKFILT;
pub use rankfilt::{hilbert2, medfilt2d, order_filter, wiener};
pub use symiir::{symiirorder1, symiirorder2};
pub(crate) use whittaker::WHITTAKER;
pub use whittaker::{whittaker_henderson, WhLamb, Whittaker, WhittakerOptions};
