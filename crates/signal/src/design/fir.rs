//! FIR design by the window method (`firwin`) and Kaiser's formulas (`kaiser_beta`,
//! `kaiser_atten`, `kaiserord`), and the second-order notch, peak and comb IIR filters
//! (`iirnotch`, `iirpeak`, `iircomb`). Scalars in, host data out.

use crate::represent::Ba;
use cusci_core::error::make;
use cusci_core::host::{try_collect, try_vec_filled, try_vec_zeroed};
use cusci_core::Result;
use std::f64::consts::PI;

/// `scipy.signal.kaiser_beta(a)`: the Kaiser window's β for `a` dB of stop-band attenuation.
///
/// ```
/// assert!((cusci_signal::kaiser_beta(65.0) - 6.20426).abs() < 1e-12);
/// ```
pub fn kaiser_beta(a: f64) -> f64 {
    if a > 50.0 {
        0.1102 * (a - 8.7)
    } else if a > 21.0 {
        0.5842 * (a - 21.0).powf(0.4) + 0.07886 * (a - 21.0)
    } else {
        0.0
    }
}

/// `scipy.signal.kaiser_atten(numtaps, width)`: the attenuation (dB) of a Kaiser FIR filter with
/// `numtaps` taps and transition width `width` (a fraction of Nyquist).
pub fn kaiser_atten(numtaps: usize, width: f64) -> f64 {
    2.285 * (numtaps as f64 - 1.0) * PI * width + 7.95
}

/// `scipy.signal.kaiserord(ripple, width)`: the number of taps and β of a Kaiser-window FIR filter
/// with `ripple` dB of deviation and transition width `width` (a fraction of Nyquist).
///
/// Errors: `InvalidArgument` when `|ripple| < 8` (the formula is not valid there) or `width ≤ 0`.
pub fn kaiserord(ripple: f64, width: f64) -> Result<(usize, f64)> {
    let a = ripple.abs();
    if a.is_nan() || a < 8.0 {
        return Err(make::arg(
            "kaiserord",
            format!("requested maximum ripple attenuation {a} is too small for the Kaiser formula"),
        ));
    }
    if !(width > 0.0 && width.is_finite()) {
        return Err(make::arg("kaiserord", "width must be positive and finite"));
    }
    let beta = kaiser_beta(a);
    let numtaps = (a - 7.95) / 2.285 / (PI * width) + 1.0;
    Ok((numtaps.ceil() as usize, beta))
}

/// The windows [`firwin`] accepts (symmetric, as `get_window(..., fftbins=False)`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum FirWindow {
    /// Hamming (SciPy's default for `firwin`).
    #[default]
    Hamming,
    /// Hann.
    Hann,
    /// Blackman.
    Blackman,
    /// Rectangular.
    Boxcar,
    /// Kaiser with shape parameter β.
    Kaiser(f64),
}

/// The modified Bessel function I₀ by its power series (all terms positive: accurate to rounding).
pub(crate) fn i0(x: f64) -> f64 {
    let q = 0.25 * x * x;
    let mut term = 1.0;
    let mut sum = 1.0;
    let mut k = 1.0;
    while term > 1e-17 * sum {
        term *= q / (k * k);
        sum += term;
        k += 1.0;
        if k > 500.0 {
            break;
        }
    }
    sum
}

fn general_cosine(op: &str, m: usize, a: &[f64]) -> Result<Vec<f64>> {
    // fac = linspace(-pi, pi, m); w = sum_k a_k cos(k fac)
    if m == 1 {
        return Ok(vec![1.0]);
    }
    let step = 2.0 * PI / (m - 1) as f64;
    let w = (0..m).map(|i| {
        let fac = if i == m - 1 { PI } else { i as f64 * step - PI };
        a.iter()
            .enumerate()
            .fold(0.0, |acc, (k, &ak)| acc + ak * (k as f64 * fac).cos())
    });
    try_collect(op, m, w)
}

/// The symmetric window of length `m` (SciPy's formulas), allocated fallibly (`OutOfMemory`, or
/// `InvalidArgument` past `isize::MAX` bytes).
pub(crate) fn window(op: &str, w: FirWindow, m: usize) -> Result<Vec<f64>> {
    if m <= 1 {
        return Ok(vec![1.0; m]);
    }
    Ok(match w {
        FirWindow::Hamming => general_cosine(op, m, &[0.54, 0.46])?,
        FirWindow::Hann => general_cosine(op, m, &[0.5, 0.5])?,
        FirWindow::Blackman => general_cosine(op, m, &[0.42, 0.50, 0.08])?,
        FirWindow::Boxcar => try_vec_filled(op, m, 1.0)?,
        FirWindow::Kaiser(beta) => {
            let alpha = (m as f64 - 1.0) / 2.0;
            let d = i0(beta);
            let w = (0..m).map(|n| {
                let r = (n as f64 - alpha) / alpha;
                i0(beta * (1.0 - r * r).sqrt()) / d
            });
            try_collect(op, m, w)?
        }
    })
}

fn sinc(x: f64) -> f64 {
    let y = PI * if x == 0.0 { 1e-20 } else { x };
    y.sin() / y
}

/// Options of [`firwin`] (SciPy's keyword arguments and defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FirwinOptions {
    /// Transition width (units of `fs`): when set, a Kaiser window is designed from it (and
    /// `window` is ignored).
    pub width: Option<f64>,
    /// The window (default Hamming).
    pub window: FirWindow,
    /// Whether the gain at 0 frequency is 1 (`True`) or 0.
    pub pass_zero: bool,
    /// Scale so that the centre of the first pass band has unit gain.
    pub scale: bool,
    /// Sampling frequency (default 2: cutoffs are fractions of Nyquist).
    pub fs: f64,
}

impl Default for FirwinOptions {
    fn default() -> Self {
        FirwinOptions {
            width: None,
            window: FirWindow::Hamming,
            pass_zero: true,
            scale: true,
            fs: 2.0,
        }
    }
}

/// `scipy.signal.firwin(numtaps, cutoff, ...)`: a linear-phase FIR filter by the window method,
/// its pass bands given by `cutoff` (strictly increasing, in `(0, fs/2)`) and `pass_zero`.
///
/// Errors: `InvalidArgument` for `numtaps = 0`, an empty `cutoff`, cutoffs outside `(0, fs/2)` or
/// not increasing, `fs ≤ 0`, an even `numtaps` with a pass band at Nyquist, or taps past
/// `isize::MAX` bytes; `OutOfMemory` for taps the host cannot hold (SciPy: MemoryError).
///
/// ```
/// let h = cusci_signal::firwin(5, &[0.5], &Default::default()).unwrap();
/// assert!((h.iter().sum::<f64>() - 1.0).abs() < 1e-15);
/// ```
pub fn firwin(numtaps: usize, cutoff: &[f64], opts: &FirwinOptions) -> Result<Vec<f64>> {
    let op = "firwin";
    if numtaps == 0 {
        return Err(make::arg(op, "numtaps must be positive"));
    }
    if !(opts.fs > 0.0 && opts.fs.is_finite()) {
        return Err(make::arg(op, "fs must be positive and finite"));
    }
    let nyq = 0.5 * opts.fs;
    if cutoff.is_empty() {
        return Err(make::arg(op, "at least one cutoff frequency must be given"));
    }
    let c: Vec<f64> = cutoff.iter().map(|v| v / nyq).collect();
    if c.iter().any(|&v| v.is_nan() || v <= 0.0 || v >= 1.0) {
        return Err(make::arg(
            op,
            "invalid cutoff frequency: frequencies must be greater than 0 and less than fs/2",
        ));
    }
    if c.windows(2).any(|w| w[1] <= w[0]) {
        return Err(make::arg(
            op,
            "invalid cutoff frequencies: they must be strictly increasing",
        ));
    }
    let win = match opts.width {
        Some(width) => {
            let atten = kaiser_atten(numtaps, width / nyq);
            FirWindow::Kaiser(kaiser_beta(atten))
        }
        None => opts.window,
    };
    let pass_nyquist = (c.len() % 2 == 1) ^ opts.pass_zero;
    if pass_nyquist && numtaps % 2 == 0 {
        return Err(make::arg(
            op,
            "a filter with an even number of coefficients must have zero response at the Nyquist frequency",
        ));
    }
    let mut edges = vec![];
    if opts.pass_zero {
        edges.push(0.0);
    }
    edges.extend(&c);
    if pass_nyquist {
        edges.push(1.0);
    }
    // the taps, their positions and the window allocated fallibly: a huge numtaps is
    // OutOfMemory (SciPy: MemoryError) or InvalidArgument past isize::MAX bytes, not an abort
    let alpha = 0.5 * (numtaps as f64 - 1.0);
    let m: Vec<f64> = try_collect(op, numtaps, (0..numtaps).map(|i| i as f64 - alpha))?;
    let mut h: Vec<f64> = try_vec_zeroed(op, numtaps)?;
    for band in edges.chunks(2) {
        let (left, right) = (band[0], band[1]);
        for (hi, &mi) in h.iter_mut().zip(&m) {
            *hi += right * sinc(right * mi);
            *hi -= left * sinc(left * mi);
        }
    }
    for (hi, wi) in h.iter_mut().zip(window(op, win, numtaps)?) {
        *hi *= wi;
    }
    if opts.scale {
        let (left, right) = (edges[0], edges[1]);
        let f = if left == 0.0 {
            0.0
        } else if right == 1.0 {
            1.0
        } else {
            0.5 * (left + right)
        };
        let s: f64 = h
            .iter()
            .zip(&m)
            .map(|(hi, mi)| hi * (PI * mi * f).cos())
            .sum();
        for hi in h.iter_mut() {
            *hi /= s;
        }
    }
    Ok(h)
}

fn notch_peak(op: &str, w0: f64, q: f64, fs: f64, notch: bool) -> Result<Ba> {
    if !(fs > 0.0 && fs.is_finite()) {
        return Err(make::arg(op, "fs must be positive and finite"));
    }
    if !(q > 0.0 && q.is_finite()) {
        return Err(make::arg(op, "Q must be positive and finite"));
    }
    let w0 = 2.0 * w0 / fs;
    if w0.is_nan() || !(0.0..=1.0).contains(&w0) {
        return Err(make::arg(op, "w0 should be such that 0 < w0 < fs/2"));
    }
    let bw = w0 / q * PI;
    let w0 = w0 * PI;
    let beta = (bw / 2.0).tan();
    let gain = 1.0 / (1.0 + beta);
    let b = if notch {
        vec![gain, gain * (-2.0 * w0.cos()), gain]
    } else {
        vec![1.0 - gain, 0.0, -(1.0 - gain)]
    };
    let a = vec![1.0, -2.0 * gain * w0.cos(), 2.0 * gain - 1.0];
    Ok(Ba { b, a })
}

/// `scipy.signal.iirnotch(w0, Q, fs)`: a second-order notch at `w0` (units of `fs`; SciPy's
/// default `fs` is 2) with quality factor `Q`.
///
/// Errors: `InvalidArgument` for `w0` outside `[0, fs/2]`, `Q ≤ 0` or `fs ≤ 0`.
///
/// ```
/// let ba = cusci_signal::iirnotch(60.0, 30.0, 1000.0).unwrap();
/// assert_eq!(ba.b.len(), 3);
/// ```
pub fn iirnotch(w0: f64, q: f64, fs: f64) -> Result<Ba> {
    notch_peak("iirnotch", w0, q, fs, true)
}

/// `scipy.signal.iirpeak(w0, Q, fs)`: a second-order peak (resonator) at `w0`.
///
/// Errors: as [`iirnotch`].
pub fn iirpeak(w0: f64, q: f64, fs: f64) -> Result<Ba> {
    notch_peak("iirpeak", w0, q, fs, false)
}

/// The kind of [`iircomb`] filter (SciPy's `ftype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CombType {
    /// Notches at multiples of `w0` (default).
    #[default]
    Notch,
    /// Peaks.
    Peak,
}

/// `scipy.signal.iircomb(w0, Q, ftype, fs, pass_zero)`: a comb of notches or peaks spaced `w0`
/// apart (`fs / w0` must be an integer).
///
/// Errors: `InvalidArgument` for `w0` outside `(0, fs/2)`, `fs` not a multiple of `w0`, `Q ≤ 0`
/// or `fs ≤ 0`.
pub fn iircomb(w0: f64, q: f64, ftype: CombType, fs: f64, pass_zero: bool) -> Result<Ba> {
    let op = "iircomb";
    if !(fs > 0.0 && fs.is_finite()) {
        return Err(make::arg(op, "fs must be positive and finite"));
    }
    if !(q > 0.0 && q.is_finite()) {
        return Err(make::arg(op, "Q must be positive and finite"));
    }
    if !(w0 > 0.0 && w0 < fs / 2.0) {
        return Err(make::arg(
            op,
            format!(
                "w0 must be between 0 and {} (Nyquist), but given {w0}",
                fs / 2.0
            ),
        ));
    }
    let n = (fs / w0).round_ties_even();
    if ((w0 - fs / n) / fs).abs() > 1e-14 {
        return Err(make::arg(op, "fs must be divisible by w0"));
    }
    let n = n as usize;
    let w0 = (2.0 * PI * w0) / fs;
    let w_delta = w0 / q;
    let (g0, g) = match ftype {
        CombType::Notch => (1.0, 0.0),
        CombType::Peak => (0.0, 1.0),
    };
    let beta = (n as f64 * w_delta / 4.0).tan();
    let ax = (1.0 - beta) / (1.0 + beta);
    let bx = (g0 + g * beta) / (1.0 + beta);
    let cx = (g0 - g * beta) / (1.0 + beta);
    let negative =
        (ftype == CombType::Peak && pass_zero) || (ftype == CombType::Notch && !pass_zero);
    let sgn = if negative { -1.0 } else { 1.0 };
    let mut b = vec![0.0; n + 1];
    let mut a = vec![0.0; n + 1];
    b[0] = bx;
    b[n] = sgn * cx;
    a[0] = 1.0;
    a[n] = sgn * ax;
    Ok(Ba { b, a })
}

/// `scipy.signal.qmf(hk)`: the quadrature mirror high-pass of the low-pass `hk`
/// (`g[k] = (-1)^k · hk[N-k]`).
///
/// ```
/// assert_eq!(cusci_signal::qmf(&[1.0, 2.0, 3.0]), vec![3.0, -2.0, 1.0]);
/// ```
pub fn qmf(hk: &[f64]) -> Vec<f64> {
    hk.iter()
        .rev()
        .enumerate()
        .map(|(k, v)| if k % 2 == 0 { *v } else { -v })
        .collect()
}

/// The kind of [`gammatone`] filter (SciPy's `ftype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GammatoneType {
    /// FIR of the given order (SciPy's default 4; 1..=24) and length (`None`: SciPy's
    /// `max(int(fs·0.015), 15)`).
    Fir {
        order: usize,
        numtaps: Option<usize>,
    },
    /// The 8th-order IIR approximation (Slaney).
    Iir,
}

/// `scipy.signal.gammatone(freq, ftype, order, numtaps, fs)`: a gammatone filter centred on
/// `freq` (units of `fs`; SciPy's default `fs` is 2).
///
/// Errors: `InvalidArgument` for `freq` outside `(0, fs/2)`, `fs ≤ 0`, or an FIR order outside
/// `1..=24`.
pub fn gammatone(freq: f64, ftype: GammatoneType, fs: f64) -> Result<Ba> {
    let op = "gammatone";
    if !(fs > 0.0 && fs.is_finite()) {
        return Err(make::arg(op, "fs must be positive and finite"));
    }
    if !(freq > 0.0 && freq < fs / 2.0) {
        return Err(make::arg(
            op,
            format!(
                "the frequency must be between 0 and {} (Nyquist), but given {freq}",
                fs / 2.0
            ),
        ));
    }
    let erb = freq / 9.26449 + 24.7;
    match ftype {
        GammatoneType::Fir { order, numtaps } => {
            if !(1..=24).contains(&order) {
                return Err(make::arg(op, "invalid order: order must be > 0 and <= 24"));
            }
            let numtaps = numtaps.unwrap_or_else(|| ((fs * 0.015) as usize).max(15));
            let bw = 1.019 * erb;
            let mut scale = 2.0 * (2.0 * PI * bw).powi(order as i32);
            scale /= (1..order).map(|v| v as f64).product::<f64>();
            scale /= fs;
            let b = (0..numtaps)
                .map(|i| {
                    let t = i as f64 / fs;
                    let v = t.powi(order as i32 - 1) * (-2.0 * PI * bw * t).exp();
                    v * (2.0 * PI * freq * t).cos() * scale
                })
                .collect();
            Ok(Ba { b, a: vec![1.0] })
        }
        GammatoneType::Iir => {
            use cusci_core::c64;
            let t = 1.0 / fs;
            let bw = 2.0 * PI * 1.019 * erb;
            let fr = 2.0 * freq * PI * t;
            let bwt = bw * t;
            let g1 = -2.0 * c64::new(0.0, 2.0 * fr).exp() * t;
            let g2 = 2.0 * c64::new(-bwt, fr).exp() * t;
            let g3 = (3.0 + 2f64.powf(1.5)).sqrt() * fr.sin();
            let g4 = (3.0 - 2f64.powf(1.5)).sqrt() * fr.sin();
            let g5 = c64::new(0.0, 2.0 * fr).exp();
            let mut g = g1 + g2 * (fr.cos() - g4);
            g *= g1 + g2 * (fr.cos() + g4);
            g *= g1 + g2 * (fr.cos() - g3);
            g *= g1 + g2 * (fr.cos() + g3);
            let d = -2.0 / (2.0 * bwt).exp() - 2.0 * g5 + 2.0 * (1.0 + g5) / bwt.exp();
            g /= d * d * d * d;
            let g = g.re.hypot(g.im);
            let t4 = t.powi(4);
            let e = |k: f64| (k * bw * t).exp();
            let b = vec![
                t4 / g,
                -4.0 * t4 * fr.cos() / e(1.0) / g,
                6.0 * t4 * (2.0 * fr).cos() / e(2.0) / g,
                -4.0 * t4 * (3.0 * fr).cos() / e(3.0) / g,
                t4 * (4.0 * fr).cos() / e(4.0) / g,
            ];
            let a = vec![
                1.0,
                -8.0 * fr.cos() / e(1.0),
                4.0 * (4.0 + 3.0 * (2.0 * fr).cos()) / e(2.0),
                -8.0 * (6.0 * fr.cos() + (3.0 * fr).cos()) / e(3.0),
                2.0 * (18.0 + 16.0 * (2.0 * fr).cos() + (4.0 * fr).cos()) / e(4.0),
                -8.0 * (6.0 * fr.cos() + (3.0 * fr).cos()) / e(5.0),
                4.0 * (4.0 + 3.0 * (2.0 * fr).cos()) / e(6.0),
                -8.0 * fr.cos() / e(7.0),
                (-8.0 * bw * t).exp(),
            ];
            Ok(Ba { b, a })
        }
    }
}
