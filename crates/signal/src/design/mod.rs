//! Filter design: analog prototypes, frequency transformations, the bilinear transform and the
//! IIR design functions. All of it takes scalars and returns host data.

pub mod fir;
pub mod fir2d;
pub mod firdesign;
pub mod iir;
pub mod order;
pub mod proto;
pub mod remez;
pub mod special;
pub mod transform;

pub use fir::{
    firwin, gammatone, iircomb, iirnotch, iirpeak, kaiser_atten, kaiser_beta, kaiserord, qmf,
    CombType, FirWindow, FirwinOptions, GammatoneType,
};
pub use fir2d::{firwin_2d, Firwin2dWindow};
pub use firdesign::{firls, firwin2, minimum_phase, Firwin2Options, MinPhaseMethod};
pub use iir::{
    bessel, butter, butter_zpk, cheby1, cheby2, ellip, iirfilter, iirfilter_zpk, BType, Filter,
    FilterType, IirOptions, Output,
};
pub use order::{
    band_stop_obj, buttord, cheb1ord, cheb2ord, ellipord, iirdesign, DesignType, FilterOrder,
    IirDesignOptions, OrdKind, OrdOptions,
};
pub use proto::{besselap, buttap, cheb1ap, cheb2ap, ellipap, BesselNorm};
pub use remez::{remez, RemezOptions, RemezType};
pub use transform::{
    bilinear, bilinear_zpk, lp2bp, lp2bp_zpk, lp2bs, lp2bs_zpk, lp2hp, lp2hp_zpk, lp2lp, lp2lp_zpk,
};
