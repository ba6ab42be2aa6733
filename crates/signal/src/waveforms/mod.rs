//! Waveforms and wavelets: [`chirp`], [`gausspulse`], [`sawtooth`], [`square`], [`sweep_poly`],
//! [`unit_impulse`], [`max_len_seq`], and the wavelets of [`cwt`].

mod generators;
mod wavelets;

pub(crate) use generators::WAVEFORMS;
pub use generators::{
    chirp, gausspulse, gausspulse_cutoff, max_len_seq, sawtooth, square, sweep_poly, unit_impulse,
    ChirpMethod, ChirpOptions, GaussPulse, GaussPulseOptions, ImpulseIndex,
};
pub(crate) use wavelets::WAVELETS;
pub use wavelets::{cwt, morlet, morlet2, ricker, CwtWavelet, MorletOptions};
