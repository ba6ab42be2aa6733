//! Resampling: polyphase ([`upfirdn`], [`resample_poly`]), Fourier ([`resample`]) and
//! decimation ([`decimate`]).

mod fftresample;
mod upfirdn;

pub use fftresample::{
    decimate, resample, DecimateFtype, DecimateOptions, ResampleOptions, ResampleScalar,
};
pub(crate) use upfirdn::RESAMPLE;
pub use upfirdn::{
    resample_poly, upfirdn, PadType, PolyWindow, ResamplePolyOptions, UpfirdnMode, UpfirdnOptions,
};
