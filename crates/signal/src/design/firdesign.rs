//! FIR design by frequency sampling (`firwin2`) and least squares (`firls`), and the conversion
//! of a linear-phase FIR filter to minimum phase (`minimum_phase`). Host data in and out; the
//! transforms use `cusci_fft` on the CPU and the solve uses `cusci-linalg` on the CPU.

use super::fir::{window, FirWindow};
use cusci_core::error::make;
use cusci_core::host::{try_collect, try_to_vec};
use cusci_core::{c64, Array, Device, Error, Result};
use std::f64::consts::PI;

fn cpu_c(v: Vec<c64>) -> Result<Array<c64>> {
    let n = v.len();
    Array::from_vec(v, &[n], &Device::Cpu)
}

fn fft_opts(n: Option<usize>) -> cusci_fft::FftOptions {
    cusci_fft::FftOptions {
        n,
        ..Default::default()
    }
}

fn fft(v: Vec<c64>, n: Option<usize>) -> Result<Vec<c64>> {
    cusci_fft::fft(&cpu_c(v)?, &fft_opts(n))?.to_vec()
}

fn ifft(v: Vec<c64>) -> Result<Vec<c64>> {
    cusci_fft::ifft(&cpu_c(v)?, &fft_opts(None))?.to_vec()
}

/// `numpy.interp` for increasing `xp`.
fn interp(x: f64, xp: &[f64], fp: &[f64]) -> f64 {
    let n = xp.len();
    if x <= xp[0] {
        return fp[0];
    }
    if x >= xp[n - 1] {
        return fp[n - 1];
    }
    let j = xp.partition_point(|&v| v <= x) - 1;
    if xp[j] == x {
        return fp[j];
    }
    let slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
    let mut r = slope * (x - xp[j]) + fp[j];
    if r.is_nan() {
        r = slope * (x - xp[j + 1]) + fp[j + 1];
        if r.is_nan() && fp[j] == fp[j + 1] {
            r = fp[j];
        }
    }
    r
}

/// Options of [`firwin2`] (SciPy's keywords; defaults: Hamming window, symmetric, `fs = 2`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Firwin2Options {
    /// Size of the interpolation grid (`None`: the smallest `2^k + 1 > numtaps`).
    pub nfreqs: Option<usize>,
    /// The window applied to the taps (`None`: no window, SciPy's `window=None`).
    pub window: Option<FirWindow>,
    /// Antisymmetric (type III/IV) filter instead of symmetric (type I/II).
    pub antisymmetric: bool,
    /// Sampling frequency (the units of `freq`); `None`: 2 (Nyquist-normalised).
    pub fs: Option<f64>,
}

impl Default for Firwin2Options {
    fn default() -> Self {
        Firwin2Options {
            nfreqs: None,
            window: Some(FirWindow::Hamming),
            antisymmetric: false,
            fs: None,
        }
    }
}

/// `scipy.signal.firwin2(numtaps, freq, gain, ...)`: an FIR filter with `numtaps` taps whose gain
/// is `gain` at the frequencies `freq` (linear in between; `freq` from 0 to `fs/2`,
/// non-decreasing, a repeated frequency marks a step), by frequency sampling: the gain on a grid
/// of `nfreqs` points, an inverse real FFT, truncated and windowed.
///
/// Errors: `InvalidArgument` for `numtaps = 0`, `freq`/`gain` of different lengths or shorter
/// than 2, `freq` not starting at 0 or not ending at `fs/2`, decreasing, a value repeated more
/// than twice, 0 or `fs/2` repeated, `nfreqs ≤ numtaps`, a non-zero gain where the filter type
/// forces zero (type II at Nyquist, type III at both ends, type IV at 0).
///
/// ```
/// use cusci_signal::design::firwin2;
/// let h = firwin2(5, &[0.0, 0.5, 1.0], &[1.0, 1.0, 0.0], &Default::default()).unwrap();
/// assert_eq!(h.len(), 5);
/// assert!((h[0] - h[4]).abs() < 1e-15); // linear phase
/// ```
#[allow(clippy::needless_range_loop)]
pub fn firwin2(
    numtaps: usize,
    freq: &[f64],
    gain: &[f64],
    opts: &Firwin2Options,
) -> Result<Vec<f64>> {
    let op = "firwin2";
    let fs = opts.fs.unwrap_or(2.0);
    if !(fs > 0.0 && fs.is_finite()) {
        return Err(make::arg(
            op,
            format!("fs must be positive and finite, got {fs}"),
        ));
    }
    let nyq = 0.5 * fs;
    if numtaps == 0 {
        return Err(make::arg(op, "numtaps must be positive"));
    }
    if freq.len() != gain.len() {
        return Err(make::arg(op, "freq and gain must be of same length."));
    }
    if freq.len() < 2 {
        return Err(make::arg(op, "freq and gain must hold at least two values"));
    }
    if freq.iter().chain(gain).any(|v| !v.is_finite()) {
        return Err(make::arg(op, "freq and gain must be finite"));
    }
    if let Some(nf) = opts.nfreqs {
        if numtaps >= nf {
            return Err(make::arg(
                op,
                format!("ntaps must be less than nfreqs, but firwin2 was called with ntaps={numtaps} and nfreqs={nf}"),
            ));
        }
    }
    let nf_len = freq.len();
    if freq[0] != 0.0 || freq[nf_len - 1] != nyq {
        return Err(make::arg(op, "freq must start with 0 and end with fs/2."));
    }
    let d: Vec<f64> = freq.windows(2).map(|w| w[1] - w[0]).collect();
    if d.iter().any(|&v| v < 0.0) {
        return Err(make::arg(op, "The values in freq must be nondecreasing."));
    }
    if d.windows(2).any(|w| w[0] + w[1] == 0.0) {
        return Err(make::arg(
            op,
            "A value in freq must not occur more than twice.",
        ));
    }
    if freq[1] == 0.0 {
        return Err(make::arg(op, "Value 0 must not be repeated in freq"));
    }
    if freq[nf_len - 2] == nyq {
        return Err(make::arg(op, "Value fs/2 must not be repeated in freq"));
    }
    let ftype = match (opts.antisymmetric, numtaps % 2 == 0) {
        (false, false) => 1,
        (false, true) => 2,
        (true, false) => 3,
        (true, true) => 4,
    };
    let (g0, gl) = (gain[0], gain[nf_len - 1]);
    if ftype == 2 && gl != 0.0 {
        return Err(make::arg(
            op,
            "A Type II filter must have zero gain at the Nyquist frequency.",
        ));
    }
    if ftype == 3 && (g0 != 0.0 || gl != 0.0) {
        return Err(make::arg(
            op,
            "A Type III filter must have zero gain at zero and Nyquist frequencies.",
        ));
    }
    if ftype == 4 && g0 != 0.0 {
        return Err(make::arg(
            op,
            "A Type IV filter must have zero gain at zero frequency.",
        ));
    }
    let nfreqs = match opts.nfreqs {
        Some(n) => n,
        // SciPy's 1 + 2^ceil(log2(numtaps)), checked: past usize InvalidArgument
        None => {
            let k = ((numtaps as f64).ln() / 2f64.ln()).ceil() as u32;
            1usize
                .checked_shl(k)
                .filter(|&p| p <= isize::MAX as usize)
                .map(|p| p + 1)
                .ok_or_else(|| make::arg(op, format!("numtaps {numtaps} is too large")))?
        }
    };
    let mut freq = freq.to_vec();
    if d.contains(&0.0) {
        let eps = f64::EPSILON * nyq;
        for k in 0..nf_len - 1 {
            if freq[k] == freq[k + 1] {
                freq[k] -= eps;
                freq[k + 1] += eps;
            }
        }
        if freq.windows(2).any(|w| w[1] - w[0] <= 0.0) {
            return Err(make::arg(
                op,
                format!("freq cannot contain numbers that are too close (within eps * (fs/2): {eps}) to a repeated value"),
            ));
        }
    }
    let step = nyq / (nfreqs - 1) as f64;
    // the nfreqs samples allocated fallibly: a huge numtaps is OutOfMemory (SciPy: MemoryError)
    // or InvalidArgument past isize::MAX bytes, not an abort
    let fx2 = (0..nfreqs).map(|i| {
        let x = if i == nfreqs - 1 {
            nyq
        } else {
            i as f64 * step
        };
        let fx = interp(x, &freq, gain);
        let mut shift = (c64::new(0.0, -(numtaps as f64 - 1.0) / 2.0) * PI * x / nyq).exp();
        if ftype > 2 {
            shift *= c64::new(0.0, 1.0);
        }
        fx * shift
    });
    let fx2: Vec<c64> = try_collect(op, nfreqs, fx2)?;
    let full = cusci_fft::irfft(&cpu_c(fx2)?, &fft_opts(None))?.to_vec()?;
    if full.len() < numtaps {
        return Err(make::arg(op, "nfreqs is too small for numtaps"));
    }
    let mut out: Vec<f64> = match opts.window {
        Some(w) => {
            let wind = window(op, w, numtaps)?;
            let taps = full[..numtaps].iter().zip(&wind).map(|(a, b)| a * b);
            try_collect(op, numtaps, taps)?
        }
        None => try_to_vec(op, &full[..numtaps])?,
    };
    if ftype == 3 {
        out[numtaps / 2] = 0.0;
    }
    Ok(out)
}

/// `numpy.sinc`.
fn sinc(x: f64) -> f64 {
    let y = PI * if x == 0.0 { 1.0e-20 } else { x };
    y.sin() / y
}

/// `scipy.signal.firls(numtaps, bands, desired, weight, fs)`: the linear-phase FIR filter (odd
/// `numtaps`) that minimises the weighted integrated squared error to the piecewise-linear
/// response `desired` over the bands `bands` (pairs of edges; `desired` holds the gain at each
/// edge). The normal equations (a Toeplitz-plus-Hankel system) are solved with cusci-linalg's LU
/// on the CPU, with the least-squares solver as the fall-back for a singular matrix (SciPy uses a
/// Cholesky solve and falls back to `lstsq` also on an ill-conditioning warning).
///
/// Errors: `InvalidArgument` for even or zero `numtaps`, an odd number of band edges, edges
/// outside `[0, fs/2]`, bands that are not increasing or overlap, `desired` not one value per
/// edge, negative `desired`/`weight`, `weight` not one value per band.
///
/// ```
/// use cusci_signal::design::firls;
/// let h = firls(11, &[0.0, 0.3, 0.5, 1.0], &[1.0, 1.0, 0.0, 0.0], None, None).unwrap();
/// assert_eq!(h.len(), 11);
/// ```
pub fn firls(
    numtaps: usize,
    bands: &[f64],
    desired: &[f64],
    weight: Option<&[f64]>,
    fs: Option<f64>,
) -> Result<Vec<f64>> {
    let op = "firls";
    let fs = fs.unwrap_or(2.0);
    if !(fs > 0.0 && fs.is_finite()) {
        return Err(make::arg(
            op,
            format!("nyq must be positive, got {}", fs / 2.0),
        ));
    }
    let nyq = 0.5 * fs;
    if numtaps % 2 == 0 {
        return Err(make::arg(op, "numtaps must be odd and >= 1"));
    }
    let m = (numtaps - 1) / 2;
    if bands.iter().chain(desired).any(|v| !v.is_finite()) {
        return Err(make::arg(op, "bands and desired must be finite"));
    }
    let bands: Vec<f64> = bands.iter().map(|b| b / nyq).collect();
    if bands.len() % 2 != 0 || bands.is_empty() {
        return Err(make::arg(op, "bands must contain frequency pairs."));
    }
    if bands.iter().any(|&b| !(0.0..=1.0).contains(&b)) {
        return Err(make::arg(
            op,
            "bands must be between 0 and 1 relative to Nyquist",
        ));
    }
    if bands.len() != desired.len() {
        return Err(make::arg(
            op,
            format!(
                "desired must have one entry per frequency, got {} gains for {} frequencies.",
                desired.len(),
                bands.len()
            ),
        ));
    }
    let nb = bands.len() / 2;
    let bp: Vec<[f64; 2]> = (0..nb).map(|k| [bands[2 * k], bands[2 * k + 1]]).collect();
    let dp: Vec<[f64; 2]> = (0..nb)
        .map(|k| [desired[2 * k], desired[2 * k + 1]])
        .collect();
    if bp.iter().any(|b| b[1] - b[0] <= 0.0) || bp.windows(2).any(|w| w[1][0] - w[0][0] < 0.0) {
        return Err(make::arg(
            op,
            "bands must be monotonically nondecreasing and have width > 0.",
        ));
    }
    if bp.windows(2).any(|w| w[0][1] > w[1][0]) {
        return Err(make::arg(op, "bands must not overlap."));
    }
    if desired.iter().any(|&d| d < 0.0) {
        return Err(make::arg(op, "desired must be non-negative."));
    }
    let weight: Vec<f64> = match weight {
        None => vec![1.0; nb],
        Some(w) => w.to_vec(),
    };
    if weight.len() != nb {
        return Err(make::arg(
            op,
            format!("weight must be the same size as the number of band pairs ({nb})."),
        ));
    }
    if weight
        .iter()
        .any(|&w| w.is_nan() || w < 0.0 || !w.is_finite())
    {
        return Err(make::arg(op, "weight must be non-negative."));
    }
    let q: Vec<f64> = (0..numtaps)
        .map(|n| {
            let n = n as f64;
            bp.iter()
                .zip(&weight)
                .map(|(b, w)| (sinc(b[1] * n) * b[1] - sinc(b[0] * n) * b[0]) * w)
                .sum()
        })
        .collect();
    let size = m + 1;
    let mut qm = vec![0.0; size * size];
    for i in 0..size {
        for j in 0..size {
            qm[i * size + j] = q[i.abs_diff(j)] + q[i + j];
        }
    }
    let slope: Vec<f64> = bp
        .iter()
        .zip(&dp)
        .map(|(b, d)| (d[1] - d[0]) / (b[1] - b[0]))
        .collect();
    let c: Vec<f64> = bp
        .iter()
        .zip(&dp)
        .zip(&slope)
        .map(|((b, d), s)| d[0] - b[0] * s)
        .collect();
    let rhs: Vec<f64> = (0..size)
        .map(|n| {
            let nf = n as f64;
            (0..nb)
                .map(|k| {
                    let term = |e: usize| {
                        let be = bp[k][e];
                        let mut t = be * (slope[k] * be + c[k]) * sinc(be * nf);
                        if n == 0 {
                            t -= slope[k] * be * be / 2.0;
                        } else {
                            t += slope[k] * (nf * PI * be).cos() / (PI * nf).powi(2);
                        }
                        t
                    };
                    (term(1) - term(0)) * weight[k]
                })
                .sum()
        })
        .collect();
    let qa = Array::from_vec(qm, &[size, size], &Device::Cpu)?;
    let ba = Array::from_vec(rhs, &[size], &Device::Cpu)?;
    let a = match cusci_linalg::solve(&qa, &ba) {
        Ok(x) => x.to_vec()?,
        Err(Error::Singular { .. }) => cusci_linalg::lstsq(&qa, &ba, None)?.x.to_vec()?,
        Err(e) => return Err(e),
    };
    let mut coeffs: Vec<f64> = a[1..].iter().rev().copied().collect();
    coeffs.push(2.0 * a[0]);
    coeffs.extend(&a[1..]);
    Ok(coeffs)
}

/// The method of [`minimum_phase`] (SciPy's `method`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MinPhaseMethod {
    /// The cepstral (homomorphic) method, SciPy's default.
    #[default]
    Homomorphic,
    /// The Hilbert-transform method (for equiripple filters).
    Hilbert,
}

/// `scipy.signal.minimum_phase(h, method, n_fft, half)`: a minimum-phase FIR filter from the
/// linear-phase filter `h` (host data; the FFTs run through `cusci_fft` on the CPU). With `half`
/// (SciPy's default) the output has `len(h)/2` taps (rounded up) and the square root of `h`'s
/// magnitude response; otherwise `len(h)` taps and the same magnitude (homomorphic only).
///
/// Errors: `InvalidArgument` when `h` has fewer than 3 taps or non-finite values, `n_fft < len(h)`,
/// or `half = false` with the Hilbert method.
///
/// ```
/// use cusci_signal::design::{firwin, minimum_phase, MinPhaseMethod};
/// let h = firwin(31, &[0.3], &Default::default()).unwrap();
/// let hm = minimum_phase(&h, MinPhaseMethod::Homomorphic, None, true).unwrap();
/// assert_eq!(hm.len(), 16);
/// ```
pub fn minimum_phase(
    h: &[f64],
    method: MinPhaseMethod,
    n_fft: Option<usize>,
    half: bool,
) -> Result<Vec<f64>> {
    let op = "minimum_phase";
    let len = h.len();
    if len <= 2 {
        return Err(make::arg(op, "h must be 1-D and at least 2 samples long"));
    }
    if h.iter().any(|v| !v.is_finite()) {
        return Err(make::arg(op, "h must be finite"));
    }
    if method == MinPhaseMethod::Hilbert && !half {
        return Err(make::arg(
            op,
            "`half=False` is only supported when `method='homomorphic'`",
        ));
    }
    let n_half = len / 2;
    let n_fft = match n_fft {
        Some(n) => n,
        None => 1usize << (2.0 * (len as f64 - 1.0) / 0.01).log2().ceil() as u32,
    };
    if n_fft < len {
        return Err(make::arg(
            op,
            format!("n_fft must be at least len(h)=={len}"),
        ));
    }
    let hc: Vec<c64> = h.iter().map(|&v| c64::new(v, 0.0)).collect();
    let spec = fft(hc, Some(n_fft))?;
    let h_min: Vec<f64> = match method {
        MinPhaseMethod::Hilbert => {
            let mut hh: Vec<f64> = spec
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let w = i as f64 * (2.0 * PI / n_fft as f64 * n_half as f64);
                    (s * c64::new(0.0, w).exp()).re
                })
                .collect();
            let dp = hh.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v)) - 1.0;
            let ds = 0.0 - hh.iter().fold(f64::INFINITY, |m, &v| m.min(v));
            let s = 4.0 / ((1.0 + dp + ds).sqrt() + (1.0 - dp + ds).sqrt()).powi(2);
            for v in hh.iter_mut() {
                *v += ds;
                *v *= s;
                *v = v.sqrt();
                *v += 1e-10;
            }
            // SciPy's _dhtm
            let mid = n_fft / 2;
            let sig: Vec<f64> = (0..n_fft)
                .map(|i| {
                    if i >= 1 && i < mid {
                        1.0
                    } else if i > mid {
                        -1.0
                    } else {
                        0.0
                    }
                })
                .collect();
            let logm = ifft(hh.iter().map(|&m| c64::new(m.ln(), 0.0)).collect())?;
            let f = fft(logm.iter().zip(&sig).map(|(l, s)| l * s).collect(), None)?;
            ifft(hh.iter().zip(&f).map(|(&m, e)| m * e.exp()).collect())?
                .iter()
                .map(|c| c.re)
                .collect()
        }
        MinPhaseMethod::Homomorphic => {
            let mut mag: Vec<f64> = spec.iter().map(|c| c.norm()).collect();
            let minpos = mag
                .iter()
                .filter(|&&v| v > 0.0)
                .fold(f64::INFINITY, |m, &v| m.min(v));
            if !minpos.is_finite() {
                return Err(make::arg(op, "h has an all-zero spectrum"));
            }
            for v in mag.iter_mut() {
                *v += 1e-7 * minpos;
                *v = v.ln();
                if half {
                    *v *= 0.5;
                }
            }
            let cep: Vec<f64> = ifft(mag.iter().map(|&v| c64::new(v, 0.0)).collect())?
                .iter()
                .map(|c| c.re)
                .collect();
            let stop = n_fft / 2;
            let win: Vec<f64> = (0..n_fft)
                .map(|i| {
                    if i == 0 || (n_fft % 2 == 1 && i == stop) {
                        1.0
                    } else if i < stop {
                        2.0
                    } else {
                        0.0
                    }
                })
                .collect();
            let f = fft(
                cep.iter()
                    .zip(&win)
                    .map(|(c, w)| c64::new(c * w, 0.0))
                    .collect(),
                None,
            )?;
            ifft(f.iter().map(|v| v.exp()).collect())?
                .iter()
                .map(|c| c.re)
                .collect()
        }
    };
    let n_out = if half { n_half + len % 2 } else { len };
    Ok(h_min[..n_out].to_vec())
}
