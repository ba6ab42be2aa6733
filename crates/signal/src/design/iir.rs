//! IIR filter design from order and critical frequencies: `iirfilter`, `butter`, `cheby1`,
//! `cheby2`, `ellip`, `bessel`. Scalars in, host data out.

use super::proto::{besselap, buttap, cheb1ap, cheb2ap, ellipap, BesselNorm};
use super::transform::{bilinear_zpk, lp2bp_zpk, lp2bs_zpk, lp2hp_zpk, lp2lp_zpk};
use crate::represent::{zpk2sos, zpk2tf, Ba, Pairing, Sos, Zpk};
use cusci_core::error::make;
use cusci_core::Result;
use std::f64::consts::PI;

/// The band type of a filter (SciPy's `btype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BType {
    /// Low-pass (`Wn` is one frequency).
    #[default]
    Lowpass,
    /// High-pass (`Wn` is one frequency).
    Highpass,
    /// Band-pass (`Wn` is `[low, high]`).
    Bandpass,
    /// Band-stop (`Wn` is `[low, high]`).
    Bandstop,
}

impl BType {
    /// Whether the band type takes two critical frequencies.
    pub fn is_band(self) -> bool {
        matches!(self, BType::Bandpass | BType::Bandstop)
    }
}

/// The filter family and its parameters (SciPy's `ftype`, `rp`, `rs`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FilterType {
    /// Butterworth: maximally flat pass band.
    Butter,
    /// Chebyshev type I with `rp` dB of pass-band ripple.
    Cheby1 { rp: f64 },
    /// Chebyshev type II with `rs` dB of stop-band attenuation.
    Cheby2 { rs: f64 },
    /// Elliptic (Cauer) with `rp` dB ripple and `rs` dB attenuation.
    Ellip { rp: f64, rs: f64 },
    /// Bessel–Thomson with the given normalisation.
    Bessel { norm: BesselNorm },
}

/// The representation a design function returns (SciPy's `output`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Output {
    /// Numerator and denominator (`'ba'`, SciPy's default).
    #[default]
    Ba,
    /// Zeros, poles and gain (`'zpk'`).
    Zpk,
    /// Second-order sections (`'sos'`).
    Sos,
}

/// Options of the IIR design functions (SciPy's keyword arguments, with SciPy's defaults).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct IirOptions {
    /// Band type (default low-pass).
    pub btype: BType,
    /// Design an analog filter (critical frequencies in rad/s) instead of a digital one.
    pub analog: bool,
    /// Output representation (default `Ba`).
    pub output: Output,
    /// Sampling frequency of a digital filter; `None` means frequencies are normalised to the
    /// Nyquist frequency (`0 < Wn < 1`).
    pub fs: Option<f64>,
}

/// A designed filter in the representation asked for.
#[derive(Clone, Debug, PartialEq)]
pub enum Filter {
    /// Numerator and denominator.
    Ba(Ba),
    /// Zeros, poles and gain.
    Zpk(Zpk),
    /// Second-order sections.
    Sos(Sos),
}

impl Filter {
    fn wrong(&self, want: &str) -> cusci_core::Error {
        let have = match self {
            Filter::Ba(_) => "Ba",
            Filter::Zpk(_) => "Zpk",
            Filter::Sos(_) => "Sos",
        };
        make::arg(
            "Filter",
            format!("asked for {want} but the filter holds {have}"),
        )
    }
    /// The `(b, a)` form; `InvalidArgument` when the filter was designed with another output.
    pub fn into_ba(self) -> Result<Ba> {
        match self {
            Filter::Ba(x) => Ok(x),
            other => Err(other.wrong("Ba")),
        }
    }
    /// The `(z, p, k)` form; `InvalidArgument` when the filter was designed with another output.
    pub fn into_zpk(self) -> Result<Zpk> {
        match self {
            Filter::Zpk(x) => Ok(x),
            other => Err(other.wrong("Zpk")),
        }
    }
    /// The `sos` form; `InvalidArgument` when the filter was designed with another output.
    pub fn into_sos(self) -> Result<Sos> {
        match self {
            Filter::Sos(x) => Ok(x),
            other => Err(other.wrong("Sos")),
        }
    }
}

/// Validates `Wn` (scaling by `fs/2` when given) and returns the frequencies to transform to:
/// pre-warped for digital filters.
fn critical(op: &str, wn: &[f64], opts: &IirOptions) -> Result<Vec<f64>> {
    let want = if opts.btype.is_band() { 2 } else { 1 };
    if wn.len() != want {
        return Err(make::shape(
            op,
            format!(
                "Wn must hold {want} critical frequenc{} for {:?}, got {}",
                if want == 1 { "y" } else { "ies" },
                opts.btype,
                wn.len()
            ),
        ));
    }
    let mut w = wn.to_vec();
    if let Some(fs) = opts.fs {
        if opts.analog {
            return Err(make::arg(op, "fs cannot be specified for an analog filter"));
        }
        if !(fs > 0.0 && fs.is_finite()) {
            return Err(make::arg(
                op,
                format!("fs must be positive and finite, got {fs}"),
            ));
        }
        for v in w.iter_mut() {
            *v /= fs / 2.0;
        }
    }
    if w.iter().any(|&v| v.is_nan() || v <= 0.0) {
        return Err(make::arg(
            op,
            "filter critical frequencies must be greater than 0",
        ));
    }
    if w.len() == 2 && w[0] >= w[1] {
        return Err(make::arg(op, "Wn[0] must be less than Wn[1]"));
    }
    if !opts.analog {
        if w.iter().any(|&v| v >= 1.0) {
            return Err(make::arg(
                op,
                match opts.fs {
                    Some(fs) => format!(
                        "digital filter critical frequencies must be 0 < Wn < fs/2 (fs={fs})"
                    ),
                    None => "digital filter critical frequencies must be 0 < Wn < 1".into(),
                },
            ));
        }
        Ok(w.iter().map(|&v| 4.0 * (PI * v / 2.0).tan()).collect())
    } else {
        if w.iter().any(|v| !v.is_finite()) {
            return Err(make::arg(op, "critical frequencies must be finite"));
        }
        Ok(w)
    }
}

/// `scipy.signal.iirfilter` with `output='zpk'`: the filter of order `n` (per band edge) of the
/// given family and band type. Digital filters are designed by the bilinear transform of the
/// pre-warped analog filter (as SciPy).
///
/// Errors: `InvalidArgument` for `n = 0`, frequencies outside `(0, 1)` (digital, or
/// `(0, fs/2)` with `fs`), non-positive frequencies, `Wn[0] ≥ Wn[1]`, non-positive `rp`/`rs`,
/// `fs` with `analog`; `ShapeMismatch` when `Wn` does not hold one frequency (low/high-pass) or
/// two (band-pass/stop).
pub fn iirfilter_zpk(n: usize, wn: &[f64], ftype: FilterType, opts: &IirOptions) -> Result<Zpk> {
    let op = "iirfilter";
    if n == 0 {
        return Err(make::arg(op, "filter order must be a positive integer"));
    }
    let proto = match ftype {
        FilterType::Butter => buttap(n)?,
        FilterType::Cheby1 { rp } => cheb1ap(n, rp)?,
        FilterType::Cheby2 { rs } => cheb2ap(n, rs)?,
        FilterType::Ellip { rp, rs } => ellipap(n, rp, rs)?,
        FilterType::Bessel { norm } => besselap(n, norm)?,
    };
    let warped = critical(op, wn, opts)?;
    let (z, p, k) = (&proto.z, &proto.p, proto.k);
    let t = match opts.btype {
        BType::Lowpass => lp2lp_zpk(z, p, k, warped[0])?,
        BType::Highpass => lp2hp_zpk(z, p, k, warped[0])?,
        BType::Bandpass | BType::Bandstop => {
            let bw = warped[1] - warped[0];
            let wo = (warped[0] * warped[1]).sqrt();
            if opts.btype == BType::Bandpass {
                lp2bp_zpk(z, p, k, wo, bw)?
            } else {
                lp2bs_zpk(z, p, k, wo, bw)?
            }
        }
    };
    if opts.analog {
        Ok(t)
    } else {
        bilinear_zpk(&t.z, &t.p, t.k, 2.0)
    }
}

/// `scipy.signal.iirfilter`: as [`iirfilter_zpk`], in the representation `opts.output`.
///
/// ```
/// use cusci_signal::{iirfilter, FilterType, IirOptions};
/// let ba = iirfilter(2, &[0.5], FilterType::Butter, &IirOptions::default()).unwrap().into_ba().unwrap();
/// assert!((ba.b[0] - 0.29289321881345254).abs() < 1e-14);
/// ```
pub fn iirfilter(n: usize, wn: &[f64], ftype: FilterType, opts: &IirOptions) -> Result<Filter> {
    let zpk = iirfilter_zpk(n, wn, ftype, opts)?;
    Ok(match opts.output {
        Output::Zpk => Filter::Zpk(zpk),
        Output::Ba => Filter::Ba(zpk2tf(&zpk.z, &zpk.p, zpk.k)?),
        Output::Sos => Filter::Sos(zpk2sos(&zpk.z, &zpk.p, zpk.k, Pairing::Auto, opts.analog)?),
    })
}

/// `scipy.signal.butter(N, Wn, ...)`: a Butterworth filter (see [`iirfilter`]).
///
/// ```
/// use cusci_signal::{butter, IirOptions, Output};
/// let opts = IirOptions { output: Output::Sos, ..Default::default() };
/// let sos = butter(8, &[0.1], &opts).unwrap().into_sos().unwrap();
/// assert_eq!(sos.len(), 4);
/// ```
pub fn butter(n: usize, wn: &[f64], opts: &IirOptions) -> Result<Filter> {
    iirfilter(n, wn, FilterType::Butter, opts)
}

/// [`butter`] with `output='zpk'`.
pub fn butter_zpk(n: usize, wn: &[f64], opts: &IirOptions) -> Result<Zpk> {
    iirfilter_zpk(n, wn, FilterType::Butter, opts)
}

/// `scipy.signal.cheby1(N, rp, Wn, ...)`: a Chebyshev type I filter (see [`iirfilter`]).
pub fn cheby1(n: usize, rp: f64, wn: &[f64], opts: &IirOptions) -> Result<Filter> {
    iirfilter(n, wn, FilterType::Cheby1 { rp }, opts)
}

/// `scipy.signal.cheby2(N, rs, Wn, ...)`: a Chebyshev type II filter (see [`iirfilter`]).
pub fn cheby2(n: usize, rs: f64, wn: &[f64], opts: &IirOptions) -> Result<Filter> {
    iirfilter(n, wn, FilterType::Cheby2 { rs }, opts)
}

/// `scipy.signal.ellip(N, rp, rs, Wn, ...)`: an elliptic filter (see [`iirfilter`]).
pub fn ellip(n: usize, rp: f64, rs: f64, wn: &[f64], opts: &IirOptions) -> Result<Filter> {
    iirfilter(n, wn, FilterType::Ellip { rp, rs }, opts)
}

/// `scipy.signal.bessel(N, Wn, ..., norm)`: a Bessel–Thomson filter (see [`iirfilter`]).
pub fn bessel(n: usize, wn: &[f64], norm: BesselNorm, opts: &IirOptions) -> Result<Filter> {
    iirfilter(n, wn, FilterType::Bessel { norm }, opts)
}
