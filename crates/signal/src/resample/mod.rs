//! Resampling: polyphase ([`upfirdn`], [`resample_poly`]), Fourier ([`resample`]) and
//! decimation ([`decimate`]).

mod fftresample;
mod upfirdn;

pub use fftresample::{
    decimate, decimate_dlti, resample, resample_freq, resample_t, DecimateFtype, DecimateOptions,
    ResampleOptions, ResampleScalar,
};
pub(crate) use upfirdn::RESAMPLE;
pub use upfirdn::{
    resample_poly, upfirdn, PadType, PolyWindow, ResamplePolyOptions, UpfirdnMode, UpfirdnOptions,
};
