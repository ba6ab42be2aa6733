//! Frequency responses of filters: `freqz`, `sosfreqz`, `freqz_zpk`, `freqs`, `freqs_zpk`,
//! `group_delay`, `findfreqs`. Filters are host data, so these take host slices and return host
//! vectors.

use crate::represent::{polyval_c, roots};
use cusci_core::error::make;
use cusci_core::host::try_collect;
use cusci_core::{c64, Result};
use std::f64::consts::PI;

/// The frequencies to evaluate at (SciPy's `worN`): a count of equally spaced frequencies, or the
/// frequencies themselves (in the units of `fs`).
#[derive(Clone, Debug, PartialEq)]
pub enum WorN {
    /// `N` frequencies equally spaced over `[0, fs/2)` (or `[0, fs)` with `whole`).
    N(usize),
    /// These frequencies.
    Freqs(Vec<f64>),
}

/// Options of [`freqz`], [`sosfreqz`], [`freqz_zpk`] and [`group_delay`] (SciPy's defaults:
/// 512 points, half the circle, `fs = 2π`).
#[derive(Clone, Debug, PartialEq)]
pub struct FreqzOptions {
    /// Where to evaluate.
    pub wor_n: WorN,
    /// Evaluate over the whole unit circle (`[0, fs)`) instead of `[0, fs/2)`.
    pub whole: bool,
    /// Sampling frequency (the units of the returned frequencies).
    pub fs: f64,
    /// With `N` points and not `whole`, include the Nyquist frequency (`freqz` only).
    pub include_nyquist: bool,
}

impl Default for FreqzOptions {
    fn default() -> Self {
        FreqzOptions {
            wor_n: WorN::N(512),
            whole: false,
            fs: 2.0 * PI,
            include_nyquist: false,
        }
    }
}

/// A frequency response: frequencies `w` and complex response `h`.
#[derive(Clone, Debug, PartialEq)]
pub struct FreqResponse {
    /// Frequencies (in the units of `fs`, or rad/s for analog responses).
    pub w: Vec<f64>,
    /// The response at each frequency.
    pub h: Vec<c64>,
}

/// `numpy.linspace(0, stop, n, endpoint)`, allocated fallibly: a huge `n` is `OutOfMemory`
/// (NumPy: MemoryError) or `InvalidArgument` past `isize::MAX` bytes, not an abort.
fn linspace(op: &str, stop: f64, n: usize, endpoint: bool) -> Result<Vec<f64>> {
    let div = if endpoint { n.saturating_sub(1) } else { n };
    if n == 0 {
        return Ok(vec![]);
    }
    if div == 0 {
        return Ok(vec![0.0]);
    }
    let step = stop / div as f64;
    let mut w: Vec<f64> = try_collect(op, n, (0..n).map(|i| i as f64 * step))?;
    if endpoint && n > 1 {
        w[n - 1] = stop;
    }
    Ok(w)
}

fn check_fs(op: &str, fs: f64) -> Result<()> {
    if !(fs > 0.0 && fs.is_finite()) {
        return Err(make::arg(
            op,
            format!("fs must be positive and finite, got {fs}"),
        ));
    }
    Ok(())
}

/// Normalised angular frequencies (rad/sample) for the options.
fn digital_w(op: &str, opts: &FreqzOptions, allow_nyquist: bool) -> Result<Vec<f64>> {
    Ok(match &opts.wor_n {
        WorN::N(n) => {
            let last = if opts.whole { 2.0 * PI } else { PI };
            linspace(
                op,
                last,
                *n,
                allow_nyquist && opts.include_nyquist && !opts.whole,
            )?
        }
        WorN::Freqs(f) => f.iter().map(|&v| 2.0 * PI * v / opts.fs).collect(),
    })
}

/// Angular frequencies `w` (rad/sample) in the units of `fs`, in place.
fn to_fs(w: &mut [f64], fs: f64) {
    w.iter_mut().for_each(|v| *v *= fs / (2.0 * PI));
}

/// Horner in `x` with coefficients in increasing powers (`numpy.polynomial.polyval`).
fn polyval_inc(c: &[f64], x: c64) -> c64 {
    let mut y = c64::new(0.0, 0.0);
    for &v in c.iter().rev() {
        y = y * x + v;
    }
    y
}

/// `scipy.signal.freqz(b, a)`: the response `B(e^{-iω}) / A(e^{-iω})` of a digital filter, each
/// polynomial evaluated by Horner's rule in `e^{-iω}` (SciPy switches to an FFT for FIR filters;
/// the two agree to rounding).
///
/// Errors: `InvalidArgument` for empty `b` or `a`, `fs ≤ 0`, or `N` frequencies past
/// `isize::MAX` bytes; `OutOfMemory` when the host cannot hold them (SciPy: MemoryError).
///
/// ```
/// use cusci_signal::{freqz, FreqzOptions, WorN};
/// let opts = FreqzOptions { wor_n: WorN::N(4), ..Default::default() };
/// let r = freqz(&[0.5, 0.5], &[1.0], &opts).unwrap();
/// assert!((r.h[0].re - 1.0).abs() < 1e-15);
/// ```
pub fn freqz(b: &[f64], a: &[f64], opts: &FreqzOptions) -> Result<FreqResponse> {
    let op = "freqz";
    if b.is_empty() || a.is_empty() {
        return Err(make::arg(op, "b and a must not be empty"));
    }
    check_fs(op, opts.fs)?;
    let mut w = digital_w(op, opts, true)?;
    let h = w.iter().map(|&wi| {
        let zm1 = c64::new(0.0, -wi).exp();
        polyval_inc(b, zm1) / polyval_inc(a, zm1)
    });
    let h = try_collect(op, w.len(), h)?;
    to_fs(&mut w, opts.fs);
    Ok(FreqResponse { w, h })
}

/// `scipy.signal.sosfreqz`: the product of the responses of the sections (each as [`freqz`]).
/// `include_nyquist` is ignored, as SciPy does.
///
/// Errors: `InvalidArgument` for an empty `sos` or `fs ≤ 0`.
pub fn sosfreqz(sos: &[[f64; 6]], opts: &FreqzOptions) -> Result<FreqResponse> {
    if sos.is_empty() {
        return Err(make::arg("sosfreqz", "sos must have at least one section"));
    }
    check_fs("sosfreqz", opts.fs)?;
    let o = FreqzOptions {
        include_nyquist: false,
        ..opts.clone()
    };
    let mut out = freqz(&sos[0][..3], &sos[0][3..], &o)?;
    for row in &sos[1..] {
        let r = freqz(&row[..3], &row[3..], &o)?;
        for (x, y) in out.h.iter_mut().zip(&r.h) {
            *x *= y;
        }
    }
    Ok(out)
}

/// `scipy.signal.freqz_sos` (SciPy 1.15's name of [`sosfreqz`]).
///
/// Errors: as [`sosfreqz`].
pub fn freqz_sos(sos: &[[f64; 6]], opts: &FreqzOptions) -> Result<FreqResponse> {
    sosfreqz(sos, opts)
}

/// `scipy.signal.freqz_zpk`: `k·∏(e^{iω} - z) / ∏(e^{iω} - p)`. `include_nyquist` is ignored.
///
/// Errors: `InvalidArgument` for `fs ≤ 0`.
pub fn freqz_zpk(z: &[c64], p: &[c64], k: f64, opts: &FreqzOptions) -> Result<FreqResponse> {
    let op = "freqz_zpk";
    check_fs(op, opts.fs)?;
    let mut w = digital_w(op, opts, false)?;
    let h = w.iter().map(|&wi| {
        let x = c64::new(0.0, wi).exp();
        let num = z.iter().fold(c64::new(1.0, 0.0), |acc, r| acc * (x - r));
        let den = p.iter().fold(c64::new(1.0, 0.0), |acc, r| acc * (x - r));
        k * num / den
    });
    let h = try_collect(op, w.len(), h)?;
    to_fs(&mut w, opts.fs);
    Ok(FreqResponse { w, h })
}

/// `scipy.signal.findfreqs`: `n` log-spaced frequencies (rad/s) covering the interesting part of an
/// analog response, chosen from the poles and zeros (`ba`: the roots of the polynomials).
fn findfreqs_roots(op: &str, zeros: &[c64], poles: &[c64], n: usize) -> Result<Vec<f64>> {
    let ep: Vec<c64> = if poles.is_empty() {
        vec![c64::new(-1000.0, 0.0)]
    } else {
        poles.to_vec()
    };
    let mut ez: Vec<c64> = ep.iter().filter(|x| x.im >= 0.0).copied().collect();
    ez.extend(
        zeros
            .iter()
            .filter(|x| x.norm() < 1e5 && x.im >= 0.0)
            .copied(),
    );
    let integ = |x: &c64| if x.norm() < 1e-10 { 1.0 } else { 0.0 };
    let hi = ez
        .iter()
        .map(|x| 3.0 * (x.re + integ(x)).abs() + 1.5 * x.im)
        .fold(f64::NEG_INFINITY, f64::max);
    let lo = ez
        .iter()
        .map(|x| (x.re + integ(x)).abs() + 2.0 * x.im)
        .fold(f64::INFINITY, f64::min);
    let hfreq = (hi.log10() + 0.5).round_ties_even();
    let lfreq = ((0.1 * lo).log10() - 0.5).round_ties_even();
    // numpy.logspace(lfreq, hfreq, n) = 10 ** linspace(lfreq, hfreq, n)
    if n == 0 {
        return Ok(vec![]);
    }
    if n == 1 {
        return Ok(vec![10f64.powf(lfreq)]);
    }
    let step = (hfreq - lfreq) / (n - 1) as f64;
    let w = (0..n).map(|i| {
        let e = if i == n - 1 {
            hfreq
        } else {
            lfreq + i as f64 * step
        };
        10f64.powf(e)
    });
    // allocated fallibly: a huge n is OutOfMemory or InvalidArgument, not an abort
    try_collect(op, n, w)
}

/// `scipy.signal.findfreqs(num, den, N)` for polynomial coefficients (`kind='ba'`).
///
/// Errors: those of [`roots`]; `OutOfMemory` when the host cannot hold `n` frequencies
/// (NumPy: MemoryError), `InvalidArgument` when they pass `isize::MAX` bytes.
pub fn findfreqs(num: &[f64], den: &[f64], n: usize) -> Result<Vec<f64>> {
    findfreqs_roots("findfreqs", &roots(num)?, &roots(den)?, n)
}

/// `scipy.signal.findfreqs(z, p, N, kind='zp')`.
///
/// Errors: `OutOfMemory` when the host cannot hold `n` frequencies (NumPy: MemoryError),
/// `InvalidArgument` when they pass `isize::MAX` bytes.
pub fn findfreqs_zpk(z: &[c64], p: &[c64], n: usize) -> Result<Vec<f64>> {
    findfreqs_roots("findfreqs", z, p, n)
}

/// `scipy.signal.freqs(b, a, worN)`: the analog response `B(iω) / A(iω)`; `WorN::N(n)` picks `n`
/// frequencies with [`findfreqs`] (SciPy's default is 200).
///
/// Errors: `InvalidArgument` for empty `b` or `a`; those of [`roots`].
///
/// ```
/// use cusci_signal::{freqs, WorN};
/// let r = freqs(&[1.0], &[1.0, 1.0], &WorN::Freqs(vec![1.0])).unwrap();
/// assert!((r.h[0].norm() - 0.5f64.sqrt()).abs() < 1e-15);
/// ```
pub fn freqs(b: &[f64], a: &[f64], wor_n: &WorN) -> Result<FreqResponse> {
    if b.is_empty() || a.is_empty() {
        return Err(make::arg("freqs", "b and a must not be empty"));
    }
    let w = match wor_n {
        WorN::N(n) => findfreqs(b, a, *n)?,
        WorN::Freqs(f) => f.clone(),
    };
    let h = w.iter().map(|&wi| {
        let s = c64::new(0.0, wi);
        polyval_c(b, s) / polyval_c(a, s)
    });
    let h = try_collect("freqs", w.len(), h)?;
    Ok(FreqResponse { w, h })
}

/// `scipy.signal.freqs_zpk(z, p, k, worN)`: the analog response `k·∏(iω - z) / ∏(iω - p)`.
pub fn freqs_zpk(z: &[c64], p: &[c64], k: f64, wor_n: &WorN) -> Result<FreqResponse> {
    let w = match wor_n {
        WorN::N(n) => findfreqs_zpk(z, p, *n)?,
        WorN::Freqs(f) => f.clone(),
    };
    let h = w.iter().map(|&wi| {
        let s = c64::new(0.0, wi);
        let num = z.iter().fold(c64::new(1.0, 0.0), |acc, r| acc * (s - r));
        let den = p.iter().fold(c64::new(1.0, 0.0), |acc, r| acc * (s - r));
        k * num / den
    });
    let h = try_collect("freqs_zpk", w.len(), h)?;
    Ok(FreqResponse { w, h })
}

/// `scipy.signal.group_delay((b, a))`: the group delay `-d(arg H)/dω` in samples, computed as
/// `Re(B₁/B) - Re(A₁/A)` with `P₁(z) = Σ n·p_n·z⁻ⁿ` (SciPy forms `c = b * reverse(a)` first, which
/// loses digits for high orders: on an order-16 band-stop filter SciPy's value is off by 1e-5
/// relative where this one is off by 5e-6 — both against 60-digit arithmetic). Where the delay is
/// not finite (a zero on the unit circle) it is set to 0, as SciPy does (without its warning).
/// Returns `(w, gd)`.
///
/// Errors: `InvalidArgument` for empty `b` or `a`, or `fs ≤ 0`.
///
/// ```
/// use cusci_signal::{group_delay, FreqzOptions, WorN};
/// let opts = FreqzOptions { wor_n: WorN::N(8), ..Default::default() };
/// let (_, gd) = group_delay(&[0.0, 0.0, 1.0], &[1.0], &opts).unwrap();
/// assert!(gd.iter().all(|&d| (d - 2.0).abs() < 1e-12));
/// ```
pub fn group_delay(b: &[f64], a: &[f64], opts: &FreqzOptions) -> Result<(Vec<f64>, Vec<f64>)> {
    let op = "group_delay";
    if b.is_empty() || a.is_empty() {
        return Err(make::arg(op, "b and a must not be empty"));
    }
    check_fs(op, opts.fs)?;
    let mut w = digital_w(op, opts, false)?;
    let nb: Vec<f64> = b.iter().enumerate().map(|(i, v)| v * i as f64).collect();
    let na: Vec<f64> = a.iter().enumerate().map(|(i, v)| v * i as f64).collect();
    let gd = w.iter().map(|&wi| {
        let z = c64::new(0.0, -wi).exp();
        let g = (polyval_inc(&nb, z) / polyval_inc(b, z)).re
            - (polyval_inc(&na, z) / polyval_inc(a, z)).re;
        if g.is_finite() {
            g
        } else {
            0.0
        }
    });
    let gd = try_collect(op, w.len(), gd)?;
    to_fs(&mut w, opts.fs);
    Ok((w, gd))
}
