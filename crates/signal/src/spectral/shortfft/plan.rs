//! [`ShortTimeFft`]: its window, hop, FFT mode and scaling, and the slices it cuts a signal into.

use super::dual::*;
use super::options::*;
use crate::windows::Window;
use cusci_core::error::make;
use cusci_core::{c64, Result};

/// SciPy's `ShortTimeFFT`: a sliding-window FFT with its inverse.
///
/// Slice `p` is centred at sample `p · hop` (t = p · hop / fs); slices start at `p_min ≤ 0`
/// and end at `p_max(n)`, so the STFT of `n` samples has `p_num(n)` slices and `f_pts`
/// frequencies. Windows are kept in f64 (complex windows allowed for the two-sided modes).
///
/// ```
/// use cusci_signal::{ShortTimeFft, ShortTimeFftOptions, StftArgs, IstftArgs, Window};
/// use cusci_core::{Array, Device};
/// let sft = ShortTimeFft::from_window(&Window::Hann, 8.0, 8, 4, false,
///     &ShortTimeFftOptions::default()).unwrap();
/// let x = Array::from_vec((0..32).map(|i| (i as f64 * 0.3).sin()).collect(), &[32],
///     &Device::Cpu).unwrap();
/// let s = sft.stft(&x, &StftArgs::default()).unwrap();
/// assert_eq!(s.shape(), &[sft.f_pts(), sft.p_num(32).unwrap()]);
/// let y = sft.istft(&s, &IstftArgs { k1: Some(32), ..Default::default() }).unwrap()
///     .real().unwrap().to_vec().unwrap();
/// let xv = x.to_vec().unwrap();
/// assert!(y.iter().zip(&xv).all(|(a, b)| (a - b).abs() < 1e-12));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ShortTimeFft {
    pub(super) win: Vec<c64>,
    pub(super) win_complex: bool,
    pub(super) dual: Option<Vec<c64>>,
    pub(super) hop: usize,
    pub(super) fs: f64,
    pub(super) fft_mode: FftMode,
    pub(super) mfft: usize,
    pub(super) scaling: Option<StftScaling>,
    pub(super) phase_shift: Option<i64>,
}

/// Python's `a // b`.
pub(super) fn fdiv(a: i64, b: i64) -> i64 {
    a.div_euclid(b)
}

/// Python's `w[start:]` for a possibly negative start.
pub(super) fn py_from(w: &[f64], start: i64) -> &[f64] {
    let n = w.len() as i64;
    let s = if start < 0 {
        (n + start).max(0)
    } else {
        start.min(n)
    };
    &w[s as usize..]
}

/// Python's `w[:end]` for a possibly negative end.
pub(super) fn py_to(w: &[f64], end: i64) -> &[f64] {
    let n = w.len() as i64;
    let e = if end < 0 {
        (n + end).max(0)
    } else {
        end.min(n)
    };
    &w[..e as usize]
}

pub(super) fn all_zero(w: &[f64]) -> bool {
    w.iter().all(|&v| v == 0.0)
}

pub(super) struct Geom {
    pub(super) rows: usize,
    pub(super) n: usize,
    pub(super) p0: i64,
    pub(super) pnum: usize,
    pub(super) kstart: i64,
    pub(super) i0: i64,
    pub(super) lc: i64,
    pub(super) pad: i32,
    pub(super) detr: i32,
    pub(super) ps: usize,
}

impl ShortTimeFft {
    pub(super) fn build(
        win: Vec<c64>,
        win_complex: bool,
        dual: Option<Vec<c64>>,
        hop: usize,
        fs: f64,
        o: &ShortTimeFftOptions,
    ) -> Result<Self> {
        let op = "ShortTimeFFT";
        if win.is_empty() {
            return Err(make::arg(op, "Parameter win must be 1d and not empty!"));
        }
        if !all_finite(&win) {
            return Err(make::arg(op, "Parameter win must have finite entries!"));
        }
        if hop == 0 {
            return Err(make::arg(op, "Parameter hop=0 is not an integer >= 1!"));
        }
        if fs.is_nan() || fs <= 0.0 {
            return Err(make::arg(
                op,
                format!("Sampling frequency fs={fs} must be positive!"),
            ));
        }
        let m = win.len();
        let mfft = o.mfft.unwrap_or(m);
        if mfft < m {
            return Err(make::arg(
                op,
                format!("Attribute mfft={mfft} needs to be at least the window length m_num={m}!"),
            ));
        }
        if let Some(d) = &dual {
            if d.len() != m {
                return Err(make::arg(
                    op,
                    format!("dual_win.shape=({},) must equal win.shape=({m},)!", d.len()),
                ));
            }
            if !all_finite(d) {
                return Err(make::arg(op, "Parameter dual_win must be a finite array!"));
            }
        }
        let mut s = ShortTimeFft {
            win,
            win_complex,
            dual,
            hop,
            fs,
            fft_mode: FftMode::OneSided,
            mfft,
            scaling: None,
            phase_shift: None,
        };
        if let Some(sc) = o.scale_to {
            s.scale_to(sc)?;
        }
        s.set_fft_mode(o.fft_mode)?;
        s.set_phase_shift(o.phase_shift)?;
        Ok(s)
    }

    /// `ShortTimeFFT(win, hop, fs, fft_mode=, mfft=, scale_to=, phase_shift=)` for a real
    /// window.
    ///
    /// # Errors
    /// `InvalidArgument` as SciPy: an empty or non-finite window, `hop = 0`, `fs ≤ 0`,
    /// `mfft < len(win)`, `OneSided2X` without a scaling, `|phase_shift| ≥ mfft`.
    pub fn new(win: &[f64], hop: usize, fs: f64, opts: &ShortTimeFftOptions) -> Result<Self> {
        let w = win.iter().map(|&v| c64::new(v, 0.0)).collect();
        Self::build(w, false, None, hop, fs, opts)
    }

    /// As [`ShortTimeFft::new`] with a complex window (two-sided and centered modes only).
    ///
    /// # Errors
    /// As [`ShortTimeFft::new`]; a one-sided mode is refused.
    pub fn new_complex(
        win: &[c64],
        hop: usize,
        fs: f64,
        opts: &ShortTimeFftOptions,
    ) -> Result<Self> {
        Self::build(win.to_vec(), true, None, hop, fs, opts)
    }

    /// `ShortTimeFFT(win, ..., dual_win=dual_win)`: a real window with a given dual window
    /// (used by [`ShortTimeFft::istft`] instead of the canonical one).
    ///
    /// # Errors
    /// As [`ShortTimeFft::new`]; a dual window of another length or with non-finite entries.
    pub fn with_dual(
        win: &[f64],
        dual_win: &[f64],
        hop: usize,
        fs: f64,
        opts: &ShortTimeFftOptions,
    ) -> Result<Self> {
        let w = win.iter().map(|&v| c64::new(v, 0.0)).collect();
        let d = dual_win.iter().map(|&v| c64::new(v, 0.0)).collect();
        Self::build(w, false, Some(d), hop, fs, opts)
    }

    /// `ShortTimeFFT.from_dual(dual_win, hop, fs, ...)`: the window is the canonical dual of
    /// `dual_win`.
    ///
    /// # Errors
    /// As [`ShortTimeFft::new`]; `dual_win` without a dual (`hop > len`, not invertible).
    pub fn from_dual(
        dual_win: &[f64],
        hop: usize,
        fs: f64,
        opts: &ShortTimeFftOptions,
    ) -> Result<Self> {
        let d: Vec<c64> = dual_win.iter().map(|&v| c64::new(v, 0.0)).collect();
        if d.is_empty() || !all_finite(&d) {
            return Err(make::arg(
                "ShortTimeFFT.from_dual",
                "dual_win must be finite and not empty",
            ));
        }
        let w = canonical_dual("ShortTimeFFT.from_dual", &d, hop, false)?;
        Self::build(w, false, Some(d), hop, fs, opts)
    }

    /// `ShortTimeFFT.from_window(win_param, fs, nperseg, noverlap, symmetric_win=, ...)`: the
    /// window `get_window(win_param, nperseg, fftbins=not symmetric_win)`, `hop = nperseg -
    /// noverlap`.
    ///
    /// # Errors
    /// `InvalidArgument` for `noverlap ≥ nperseg` and the window's own errors; as
    /// [`ShortTimeFft::new`].
    pub fn from_window(
        window: &Window,
        fs: f64,
        nperseg: usize,
        noverlap: usize,
        symmetric_win: bool,
        opts: &ShortTimeFftOptions,
    ) -> Result<Self> {
        if noverlap >= nperseg {
            return Err(make::arg(
                "ShortTimeFFT.from_window",
                format!("noverlap={noverlap} must be less than nperseg={nperseg}"),
            ));
        }
        let w = window.values(nperseg, symmetric_win)?;
        Self::new(&w, nperseg - noverlap, fs, opts)
    }

    /// `ShortTimeFFT.from_win_equals_dual(desired_win, hop, fs, ...)`: the window closest to
    /// `desired_win` that is its own dual (each `hop`-strided subsequence normalised); with
    /// `scale_to = Unitary` the window is divided by `sqrt(mfft)` and the dual multiplied by it.
    ///
    /// # Errors
    /// `InvalidArgument`: an empty or non-finite window, `hop` outside `1..=len`, a strided
    /// subsequence of zero norm; as [`ShortTimeFft::new`].
    pub fn from_win_equals_dual(
        desired_win: &[f64],
        hop: usize,
        fs: f64,
        opts: &ShortTimeFftOptions,
    ) -> Result<Self> {
        let op = "ShortTimeFFT.from_win_equals_dual";
        let m = desired_win.len();
        if m == 0 || desired_win.iter().any(|v| !v.is_finite()) {
            return Err(make::arg(
                op,
                "Parameter desired_win must be 1d with finite entries!",
            ));
        }
        if !(1..=m).contains(&hop) {
            return Err(make::arg(
                op,
                format!(
                    "Parameter hop={hop} is not an integer between 1 and len(desired_win)={m}!"
                ),
            ));
        }
        let mfft = opts.mfft.unwrap_or(m);
        let unitary = opts.scale_to == Some(StftScaling::Unitary);
        let s_fac = if unitary { (mfft as f64).sqrt() } else { 1.0 };
        let mx = desired_win
            .iter()
            .cloned()
            .fold(f64::NEG_INFINITY, f64::max);
        let rel = 1e-15 * mx;
        let mut win = desired_win.to_vec();
        for r in 0..hop {
            let a = desired_win[r..]
                .iter()
                .step_by(hop)
                .map(|v| v * v)
                .sum::<f64>()
                .sqrt();
            if a.is_nan() || a <= rel {
                return Err(make::arg(
                    op,
                    format!(
                        "Parameter desired_win does not have valid STFT dual window for hop={hop}!"
                    ),
                ));
            }
            for v in win[r..].iter_mut().step_by(hop) {
                *v /= a;
            }
        }
        let w: Vec<c64> = win.iter().map(|&v| c64::new(v / s_fac, 0.0)).collect();
        let d: Vec<c64> = win.iter().map(|&v| c64::new(v * s_fac, 0.0)).collect();
        let mut o = opts.clone();
        o.scale_to = if unitary { None } else { opts.scale_to };
        o.mfft = Some(mfft);
        let mut s = Self::build(w, false, Some(d), hop, fs, &o)?;
        if unitary {
            s.scaling = Some(StftScaling::Unitary);
        }
        Ok(s)
    }

    // ------------------------------------------------------------------ properties

    /// The window (`win`), complex values (imaginary parts zero for real windows).
    pub fn win(&self) -> &[c64] {
        &self.win
    }
    /// The real window's values (None for a complex window).
    pub fn win_real(&self) -> Option<Vec<f64>> {
        (!self.win_complex).then(|| self.win.iter().map(|z| z.re).collect())
    }
    /// Whether the window is complex.
    pub fn win_is_complex(&self) -> bool {
        self.win_complex
    }
    /// The hop (`hop`).
    pub fn hop(&self) -> usize {
        self.hop
    }
    /// The sampling frequency (`fs`).
    pub fn fs(&self) -> f64 {
        self.fs
    }
    /// The sampling interval `T = 1 / fs`.
    pub fn t_interval(&self) -> f64 {
        1.0 / self.fs
    }
    /// Sets `fs`.
    ///
    /// # Errors
    /// `InvalidArgument` unless `fs > 0`.
    pub fn set_fs(&mut self, fs: f64) -> Result<()> {
        if fs.is_nan() || fs <= 0.0 {
            return Err(make::arg(
                "ShortTimeFFT",
                format!("Sampling frequency fs={fs} must be positive!"),
            ));
        }
        self.fs = fs;
        Ok(())
    }
    /// The FFT mode (`fft_mode`).
    pub fn fft_mode(&self) -> FftMode {
        self.fft_mode
    }
    /// Sets the FFT mode.
    ///
    /// # Errors
    /// `InvalidArgument` for a one-sided mode with a complex window, or `OneSided2X` without
    /// a scaling.
    pub fn set_fft_mode(&mut self, t: FftMode) -> Result<()> {
        let op = "ShortTimeFFT";
        let one = matches!(t, FftMode::OneSided | FftMode::OneSided2X);
        if one && self.win_complex {
            return Err(make::arg(
                op,
                "One-sided spectra are not allowed for complex-valued windows!",
            ));
        }
        if t == FftMode::OneSided2X && self.scaling.is_none() {
            return Err(make::arg(
                op,
                "For scaling is None, fft_mode='onesided2X' is invalid! Do scale_to('psd') or scale_to('magnitude')!",
            ));
        }
        self.fft_mode = t;
        Ok(())
    }
    /// The FFT length (`mfft`).
    pub fn mfft(&self) -> usize {
        self.mfft
    }
    /// Sets `mfft`.
    ///
    /// # Errors
    /// `InvalidArgument` for `mfft < m_num`, or a phase shift no longer within `±mfft`.
    pub fn set_mfft(&mut self, mfft: usize) -> Result<()> {
        if mfft < self.m_num() {
            return Err(make::arg(
                "ShortTimeFFT",
                format!(
                    "Attribute mfft={mfft} needs to be at least the window length m_num={}!",
                    self.m_num()
                ),
            ));
        }
        if let Some(v) = self.phase_shift {
            if v.unsigned_abs() as usize >= mfft {
                return Err(make::arg(
                    "ShortTimeFFT",
                    "-mfft < phase_shift < mfft does not hold",
                ));
            }
        }
        self.mfft = mfft;
        Ok(())
    }
    /// The scaling (`scaling`).
    pub fn scaling(&self) -> Option<StftScaling> {
        self.scaling
    }
    /// `scale_to('magnitude' | 'psd')`: multiplies the window by `fac_magnitude` or `fac_psd`
    /// (the dual window divided by it).
    ///
    /// # Errors
    /// `InvalidArgument` for `Unitary`.
    pub fn scale_to(&mut self, scaling: StftScaling) -> Result<()> {
        if scaling == StftScaling::Unitary {
            return Err(make::arg(
                "ShortTimeFFT.scale_to",
                "scaling='unitary' not in {'magnitude', 'psd'}!",
            ));
        }
        if self.scaling == Some(scaling) {
            return Ok(());
        }
        let f = if scaling == StftScaling::Psd {
            self.fac_psd()
        } else {
            self.fac_magnitude()
        };
        for w in &mut self.win {
            *w *= f;
        }
        if let Some(d) = &mut self.dual {
            for w in d.iter_mut() {
                *w /= f;
            }
        }
        self.scaling = Some(scaling);
        Ok(())
    }
    /// The phase shift (`phase_shift`).
    pub fn phase_shift(&self) -> Option<i64> {
        self.phase_shift
    }
    /// Sets the phase shift.
    ///
    /// # Errors
    /// `InvalidArgument` unless `-mfft < v < mfft`.
    pub fn set_phase_shift(&mut self, v: Option<i64>) -> Result<()> {
        if let Some(v) = v {
            let mf = self.mfft as i64;
            if !(-mf < v && v < mf) {
                return Err(make::arg(
                    "ShortTimeFFT",
                    format!(
                        "-mfft < phase_shift < mfft does not hold for mfft={mf}, phase_shift={v}!"
                    ),
                ));
            }
        }
        self.phase_shift = v;
        Ok(())
    }
    /// `fac_magnitude`: `1 / |sum(win)|` (1 when already magnitude-scaled).
    pub fn fac_magnitude(&self) -> f64 {
        if self.scaling == Some(StftScaling::Magnitude) {
            return 1.0;
        }
        1.0 / self.win.iter().sum::<c64>().norm()
    }
    /// `fac_psd`: `1 / sqrt(sum|win|² / T)` (1 when already psd-scaled).
    pub fn fac_psd(&self) -> f64 {
        if self.scaling == Some(StftScaling::Psd) {
            return 1.0;
        }
        1.0 / (w2(&self.win).iter().sum::<f64>() * self.fs).sqrt()
    }
    /// The window length `m_num`.
    pub fn m_num(&self) -> usize {
        self.win.len()
    }
    /// `m_num_mid = m_num // 2`, the window's centre index.
    pub fn m_num_mid(&self) -> usize {
        self.win.len() / 2
    }
    /// The dual window (`dual_win`): the given one, or the canonical dual of `win`.
    ///
    /// # Errors
    /// `InvalidArgument` when the STFT is not invertible.
    pub fn dual_win(&self) -> Result<Vec<c64>> {
        match &self.dual {
            Some(d) => Ok(d.clone()),
            None => canonical_dual("ShortTimeFFT.dual_win", &self.win, self.hop, false),
        }
    }
    /// `invertible`: whether a dual window exists.
    pub fn invertible(&self) -> bool {
        self.dual_win().is_ok()
    }
    /// `onesided_fft`.
    pub fn onesided_fft(&self) -> bool {
        matches!(self.fft_mode, FftMode::OneSided | FftMode::OneSided2X)
    }
    /// `f_pts`: the number of frequencies.
    pub fn f_pts(&self) -> usize {
        if self.onesided_fft() {
            self.mfft / 2 + 1
        } else {
            self.mfft
        }
    }
    /// `delta_f = 1 / (mfft · T)`.
    pub fn delta_f(&self) -> f64 {
        1.0 / (self.mfft as f64 * self.t_interval())
    }
    /// `delta_t = T · hop`.
    pub fn delta_t(&self) -> f64 {
        self.t_interval() * self.hop as f64
    }
    /// `f`: the frequencies of the STFT (rfftfreq, fftfreq or the shifted fftfreq).
    pub fn f(&self) -> Vec<f64> {
        let n = self.mfft;
        let d = self.t_interval();
        let val = 1.0 / (n as f64 * d);
        match self.fft_mode {
            FftMode::OneSided | FftMode::OneSided2X => {
                (0..n / 2 + 1).map(|k| k as f64 * val).collect()
            }
            FftMode::TwoSided => (0..n)
                .map(|k| {
                    let kk = if k < n.div_ceil(2) {
                        k as i64
                    } else {
                        k as i64 - n as i64
                    };
                    kk as f64 * val
                })
                .collect(),
            FftMode::Centered => (0..n)
                .map(|f| (f as i64 - (n / 2) as i64) as f64 * val)
                .collect(),
        }
    }
    pub(super) fn pre_padding(&self) -> (i64, i64) {
        let w = w2(&self.win);
        let m = self.m_num() as i64;
        let hop = self.hop as i64;
        let n0 = -(self.m_num_mid() as i64);
        let mut p = 0i64;
        let mut nn = n0;
        while nn > n0 - m - 1 {
            let nx = nn - hop;
            if nx + m <= 0 || all_zero(py_from(&w, nx)) {
                return (nn, -p);
            }
            p += 1;
            nn -= hop;
        }
        // unreachable for hop >= 1 (SciPy raises RuntimeError)
        (nn, -p)
    }
    /// `k_min`: the smallest signal index a slice touches.
    pub fn k_min(&self) -> i64 {
        self.pre_padding().0
    }
    /// `p_min`: the smallest slice index (≤ 0).
    pub fn p_min(&self) -> i64 {
        self.pre_padding().1
    }
    pub(super) fn check_n(&self, op: &str, n: usize) -> Result<()> {
        let m2p = self.m_num() - self.m_num_mid();
        if n < m2p {
            return Err(make::arg(
                op,
                format!("Parameter n must be >= ceil(m_num/2) = {m2p}!"),
            ));
        }
        Ok(())
    }
    pub(super) fn post_padding(&self, n: usize) -> Result<(i64, i64)> {
        self.check_n("ShortTimeFFT", n)?;
        let w = w2(&self.win);
        let (n, m, hop) = (n as i64, self.m_num() as i64, self.hop as i64);
        let q1 = fdiv(n, hop);
        let k1 = q1 * hop - self.m_num_mid() as i64;
        let mut q = q1;
        let mut k = k1;
        while k < n + m {
            let nx = k + hop;
            if nx >= n || all_zero(py_to(&w, n - nx)) {
                return Ok((k + m, q + 1));
            }
            q += 1;
            k += hop;
        }
        Err(make::arg("ShortTimeFFT", "post padding not found"))
    }
    /// `k_max(n)`: the first sample index after the signal end not touched by a slice.
    ///
    /// # Errors
    /// `InvalidArgument` for `n < ceil(m_num / 2)`.
    pub fn k_max(&self, n: usize) -> Result<i64> {
        Ok(self.post_padding(n)?.0)
    }
    /// `p_max(n)`: the end of the slice indices for `n` samples.
    ///
    /// # Errors
    /// As [`ShortTimeFft::k_max`].
    pub fn p_max(&self, n: usize) -> Result<i64> {
        Ok(self.post_padding(n)?.1)
    }
    /// `p_num(n) = p_max(n) - p_min`: the number of slices for `n` samples.
    ///
    /// # Errors
    /// As [`ShortTimeFft::k_max`].
    pub fn p_num(&self, n: usize) -> Result<usize> {
        Ok((self.p_max(n)? - self.p_min()) as usize)
    }
    /// `lower_border_end`: the first signal index and slice index unaffected by pre-padding.
    pub fn lower_border_end(&self) -> (i64, i64) {
        let w = w2(&self.win);
        let m0 = w.iter().position(|&v| v != 0.0).unwrap_or(0) as i64;
        let hop = self.hop as i64;
        let k0 = -(self.m_num_mid() as i64) + m0;
        let mut q = 0i64;
        let mut k = k0;
        while k < hop + 1 {
            if k + hop >= 0 {
                return (k + self.m_num() as i64, q + 1);
            }
            q += 1;
            k += hop;
        }
        (0, self.p_min().max(0))
    }
    /// `upper_border_begin(n)`: the first signal index and slice index affected by
    /// post-padding.
    ///
    /// # Errors
    /// `InvalidArgument` for `n < ceil(m_num / 2)`.
    pub fn upper_border_begin(&self, n: usize) -> Result<(i64, i64)> {
        self.check_n("ShortTimeFFT.upper_border_begin", n)?;
        let w = w2(&self.win);
        let (n, m, hop) = (n as i64, self.m_num() as i64, self.hop as i64);
        let mid = self.m_num_mid() as i64;
        let q2 = fdiv(n, hop) + 1;
        let q1 = (fdiv(n - m, hop) - 1).max(-1);
        let mut q = q2;
        while q > q1 {
            let k = q * hop + (m - mid);
            if k <= n || all_zero(py_from(&w, n - k)) {
                return Ok(((q + 1) * hop - mid, q + 1));
            }
            q -= 1;
        }
        Err(make::arg(
            "ShortTimeFFT.upper_border_begin",
            "border not found",
        ))
    }
    /// `p_range(n, p0, p1)`: the validated slice range (defaults `p_min`, `p_max(n)`).
    ///
    /// # Errors
    /// `InvalidArgument` unless `p_min ≤ p0 < p1 ≤ p_max(n)`.
    pub fn p_range(&self, n: usize, p0: Option<i64>, p1: Option<i64>) -> Result<(i64, i64)> {
        let pmax = self.p_max(n)?;
        let pmin = self.p_min();
        let a = p0.unwrap_or(pmin);
        let b = p1.unwrap_or(pmax);
        if !(pmin <= a && a < b && b <= pmax) {
            return Err(make::arg(
                "ShortTimeFFT",
                format!("Invalid Parameter p0={a}, p1={b}, i.e., p_min={pmin} <= p0 < p1 <= p_max={pmax} does not hold for signal length n={n}!"),
            ));
        }
        Ok((a, b))
    }
    /// `t(n, p0, p1, k_offset)`: the times of the slices.
    ///
    /// # Errors
    /// `InvalidArgument` for `n = 0` and as [`ShortTimeFft::p_range`].
    pub fn t(&self, n: usize, p0: Option<i64>, p1: Option<i64>, k_offset: i64) -> Result<Vec<f64>> {
        if n == 0 {
            return Err(make::arg(
                "ShortTimeFFT.t",
                "Parameter n=0 is not a positive integer!",
            ));
        }
        let (a, b) = self.p_range(n, p0, p1)?;
        let dt = self.delta_t();
        let off = k_offset as f64 * self.t_interval();
        Ok((a..b).map(|p| p as f64 * dt + off).collect())
    }
    /// `nearest_k_p(k, left)`: the nearest multiple of `hop` at or left (right) of `k`.
    pub fn nearest_k_p(&self, k: i64, left: bool) -> i64 {
        let hop = self.hop as i64;
        let (q, r) = (k.div_euclid(hop), k.rem_euclid(hop));
        if r == 0 {
            k
        } else if left {
            q * hop
        } else {
            (q + 1) * hop
        }
    }
    /// `extent(n, axes_seq, center_bins)`: `(t0, t1, f0, f1)` (`tf = true`) or
    /// `(f0, f1, t0, t1)`.
    ///
    /// # Errors
    /// `InvalidArgument` for the two-sided mode (as SciPy), and as [`ShortTimeFft::p_max`].
    pub fn extent(&self, n: usize, tf: bool, center_bins: bool) -> Result<(f64, f64, f64, f64)> {
        let (q0, q1) =
            match self.fft_mode {
                FftMode::OneSided | FftMode::OneSided2X => (0i64, self.f_pts() as i64),
                FftMode::Centered => {
                    let mf = self.mfft as i64;
                    (-(mf / 2), if mf % 2 == 0 { mf / 2 } else { mf / 2 + 1 })
                }
                FftMode::TwoSided => return Err(make::arg(
                    "ShortTimeFFT.extent",
                    "Attribute fft_mode=twosided must be in ['centered', 'onesided', 'onesided2X']",
                )),
            };
        let (p0, p1) = (self.p_min(), self.p_max(n)?);
        let c = if center_bins { 0.5 } else { 0.0 };
        let (dt, df) = (self.delta_t(), self.delta_f());
        let t0 = dt * (p0 as f64 - c);
        let t1 = dt * (p1 as f64 - c);
        let f0 = df * (q0 as f64 - c);
        let f1 = df * (q1 as f64 - c);
        Ok(if tf {
            (t0, t1, f0, f1)
        } else {
            (f0, f1, t0, t1)
        })
    }

    pub(super) fn ps(&self) -> usize {
        match self.phase_shift {
            None => 0,
            Some(v) => (v + self.m_num_mid() as i64).rem_euclid(self.m_num() as i64) as usize,
        }
    }
    /// (shift, lo, hi, fac) of the post/pre step.
    pub(super) fn post_params(&self) -> (usize, usize, usize, f64) {
        match self.fft_mode {
            FftMode::Centered => (self.mfft / 2, 0, 0, 1.0),
            FftMode::OneSided2X => {
                let fac = if self.scaling == Some(StftScaling::Psd) {
                    std::f64::consts::SQRT_2
                } else {
                    2.0
                };
                let f = self.f_pts();
                let hi = if self.mfft % 2 == 0 { f - 1 } else { f };
                (0, 1, hi.max(1), fac)
            }
            _ => (0, 0, 0, 1.0),
        }
    }

    // ------------------------------------------------------------------ transforms
}
