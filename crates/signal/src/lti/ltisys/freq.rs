//! Frequency responses of LTI systems: [`freqresp`], [`bode`], [`dfreqresp`], [`dbode`].

use super::systems::*;
use crate::freqresp::{freqs, freqs_zpk, freqz, freqz_zpk, FreqResponse, FreqzOptions, WorN};
use cusci_core::Result;

// ---------------------------------------------------------------------------------------------
// frequency responses

/// `scipy.signal.freqresp(system, w, n)`: the frequency response of a continuous SISO system at
/// `w` (rad/s), or at `n` frequencies chosen by `findfreqs` ([`WorN::N`]; SciPy's default is
/// 10000). State-space systems go through zeros/poles/gain, as SciPy.
///
/// Errors: `InvalidArgument` for a discrete or non-SISO system; those of the conversions.
///
/// ```
/// use cusci_signal::{ltisys::{freqresp, Lti}, WorN};
/// let r = freqresp(&Lti::tf(&[1.0], &[1.0, 1.0]).unwrap(), &WorN::Freqs(vec![1.0])).unwrap();
/// assert!((r.h[0].norm() - 0.5f64.sqrt()).abs() < 1e-15);
/// ```
pub fn freqresp(sys: &Lti, w: &WorN) -> Result<FreqResponse> {
    continuous("freqresp", sys)?;
    match sys {
        Lti::Tf(s) => freqs(siso_num("freqresp", s)?, &s.den, w),
        Lti::Zpk(s) => freqs_zpk(&s.zeros, &s.poles, s.gain, w),
        Lti::Ss(_) => {
            let z = sys.to_zpk()?;
            freqs_zpk(&z.zeros, &z.poles, z.gain, w)
        }
    }
}

/// Magnitude (dB) and phase (degrees) of a frequency response (SciPy's `bode` output).
#[derive(Clone, Debug, PartialEq)]
pub struct Bode {
    /// Frequencies (rad/s; for [`dbode`], rad per unit of `dt`).
    pub w: Vec<f64>,
    /// `20·log10|H|`.
    pub mag: Vec<f64>,
    /// The unwrapped phase in degrees.
    pub phase: Vec<f64>,
}

/// `numpy.unwrap` with period 2π.
pub(super) fn unwrap(p: &[f64]) -> Vec<f64> {
    use std::f64::consts::PI;
    let mut out = p.to_vec();
    let mut acc = 0.0;
    for i in 1..p.len() {
        let dd = p[i] - p[i - 1];
        let mut ddmod = (dd + PI).rem_euclid(2.0 * PI) - PI;
        if ddmod == -PI && dd > 0.0 {
            ddmod = PI;
        }
        let mut corr = ddmod - dd;
        if dd.abs() < PI {
            corr = 0.0;
        }
        acc += corr;
        out[i] = p[i] + acc;
    }
    out
}

pub(super) fn to_bode(r: FreqResponse, wscale: f64) -> Bode {
    let mag = r.h.iter().map(|h| 20.0 * h.norm().log10()).collect();
    let ang: Vec<f64> = r.h.iter().map(|h| h.im.atan2(h.re)).collect();
    let phase = unwrap(&ang)
        .iter()
        .map(|v| v * 180.0 / std::f64::consts::PI)
        .collect();
    Bode {
        w: r.w.iter().map(|v| v / wscale).collect(),
        mag,
        phase,
    }
}

/// `scipy.signal.bode(system, w, n)`: magnitude (dB) and unwrapped phase (degrees) of
/// [`freqresp`].
///
/// Errors: as [`freqresp`].
pub fn bode(sys: &Lti, w: &WorN) -> Result<Bode> {
    Ok(to_bode(freqresp(sys, w)?, 1.0))
}

/// `scipy.signal.dfreqresp(system, w, n, whole)`: the frequency response of a discrete SISO
/// system at `w` (rad/sample) or at `n` equally spaced frequencies over `[0, π)` (`[0, 2π)` with
/// `whole`), through [`freqz`]/[`freqz_zpk`].
///
/// Errors: `InvalidArgument` for a continuous or non-SISO system.
pub fn dfreqresp(sys: &Lti, w: &WorN, whole: bool) -> Result<FreqResponse> {
    discrete("dfreqresp", sys)?;
    let opts = FreqzOptions {
        wor_n: w.clone(),
        whole,
        ..Default::default()
    };
    match sys {
        Lti::Tf(s) => dfreq_tf(s, &opts),
        Lti::Zpk(s) => freqz_zpk(&s.zeros, &s.poles, s.gain, &opts),
        Lti::Ss(_) => dfreq_tf(&sys.to_tf()?, &opts),
    }
}

/// [`freqz`] of a transfer function in `z`, its polynomials first padded to polynomials in
/// `z⁻¹` (SciPy's `_z_to_zinv`).
pub(super) fn dfreq_tf(s: &TransferFunction, opts: &FreqzOptions) -> Result<FreqResponse> {
    let (mut num, mut den) = (siso_num("dfreqresp", s)?.to_vec(), s.den.clone());
    if num.len() > den.len() {
        let mut d = vec![0.0; num.len() - den.len()];
        d.extend(den);
        den = d;
    } else if num.len() < den.len() {
        let mut d = vec![0.0; den.len() - num.len()];
        d.extend(num);
        num = d;
    }
    freqz(&num, &den, opts)
}

/// `scipy.signal.dbode(system, w, n)`: magnitude (dB) and unwrapped phase (degrees) of
/// [`dfreqresp`], with frequencies in rad per unit time (`w / dt`).
///
/// Errors: as [`dfreqresp`].
pub fn dbode(sys: &Lti, w: &WorN) -> Result<Bode> {
    let dt = discrete("dbode", sys)?;
    Ok(to_bode(dfreqresp(sys, w, false)?, dt))
}
