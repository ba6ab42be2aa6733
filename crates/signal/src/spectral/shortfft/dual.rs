//! Dual windows: the canonical dual of a window and SciPy's `closest_STFT_dual_window`.

use cusci_core::error::make;
use cusci_core::{c64, Result};

pub(super) fn all_finite(v: &[c64]) -> bool {
    v.iter().all(|z| z.re.is_finite() && z.im.is_finite())
}

pub(super) fn w2(win: &[c64]) -> Vec<f64> {
    win.iter().map(|z| z.re * z.re + z.im * z.im).collect()
}

/// SciPy's `_calc_dual_canonical_window`: `win / sum_k |win[· - k hop]|²`.
pub(super) fn canonical_dual(op: &str, win: &[c64], hop: usize, f32res: bool) -> Result<Vec<c64>> {
    let m = win.len();
    if hop > m {
        return Err(make::arg(
            op,
            format!("hop={hop} is larger than window length of {m} => STFT not invertible!"),
        ));
    }
    let w = w2(win);
    let mut dd = w.clone();
    let mut k = hop;
    while k < m {
        for i in k..m {
            dd[i] += w[i - k];
        }
        for i in 0..m - k {
            dd[i] += w[i + k];
        }
        k += hop;
    }
    let res = if f32res { 1e-6 } else { 1e-15 };
    let mx = dd.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let rel = res * mx;
    if !dd.iter().all(|&d| d >= rel) {
        return Err(make::arg(
            op,
            "Short-time Fourier Transform not invertible!",
        ));
    }
    Ok(win.iter().zip(&dd).map(|(z, d)| z / d).collect())
}

/// SciPy's `closest_STFT_dual_window` for complex windows: the dual window of `alpha · win`
/// (hop `hop`) closest to `desired_dual` (default all ones) and `alpha` (1 when not `scaled`).
///
/// # Errors
/// `InvalidArgument` for windows of different lengths, non-finite entries, `hop` outside
/// `1..=len(win)`, a window without a dual, or (scaled) a vanishing scaling factor.
pub fn closest_stft_dual_window_complex(
    win: &[c64],
    hop: usize,
    desired_dual: Option<&[c64]>,
    scaled: bool,
) -> Result<(Vec<c64>, c64)> {
    let op = "closest_STFT_dual_window";
    let ones = vec![c64::new(1.0, 0.0); win.len()];
    let des = desired_dual.unwrap_or(&ones);
    if win.is_empty() || des.len() != win.len() {
        return Err(make::arg(
            op,
            format!(
                "Parameters `win` and `desired_dual` are not 1d arrays of equal length ({} and {})",
                win.len(),
                des.len()
            ),
        ));
    }
    if !all_finite(win) {
        return Err(make::arg(op, "Parameter win must have finite entries!"));
    }
    if !all_finite(des) {
        return Err(make::arg(
            op,
            "Parameter desired_dual must have finite entries!",
        ));
    }
    let m = win.len();
    if !(1..=m).contains(&hop) {
        return Err(make::arg(
            op,
            format!("Parameter hop={hop} is not an integer between 1 and len(win)={m}!"),
        ));
    }
    let w_d = canonical_dual(op, win, hop, false)?;
    let wdd: Vec<c64> = win.iter().zip(des).map(|(w, d)| w.conj() * d).collect();
    let mut q_d = wdd.clone();
    let mut k = hop;
    while k < m {
        for i in k..m {
            q_d[i] += wdd[i - k];
        }
        for i in 0..m - k {
            q_d[i] += wdd[i + k];
        }
        k += hop;
    }
    for (q, w) in q_d.iter_mut().zip(&w_d) {
        *q *= w;
    }
    if !scaled {
        let d = w_d
            .iter()
            .zip(des)
            .zip(&q_d)
            .map(|((w, d), q)| w + d - q)
            .collect();
        return Ok((d, c64::new(1.0, 0.0)));
    }
    let num: c64 = q_d.iter().zip(&w_d).map(|(q, w)| q.conj() * w).sum();
    let den: f64 = q_d.iter().map(|q| q.re * q.re + q.im * q.im).sum();
    if !(num.norm() > 0.0 && den > 1e-15) {
        return Err(make::arg(
            op,
            "Unable to calculate scaled closest dual window due to numerically unstable scaling factor! Try setting parameter `scaled` to False.",
        ));
    }
    let alpha = num / den;
    let d = w_d
        .iter()
        .zip(des)
        .zip(&q_d)
        .map(|((w, d), q)| w + alpha * (d - q))
        .collect();
    Ok((d, alpha))
}

/// SciPy's `closest_STFT_dual_window(win, hop, desired_dual=None, scaled=True)` for real
/// windows: returns `(dual_win, alpha)`, the dual window of `alpha · win` for hop `hop` that
/// is closest (least squares) to `desired_dual` (default the rectangular window), and the
/// optimal scale `alpha` (1 when `scaled` is false). With a rectangular desired dual this
/// finds COLA windows.
///
/// # Errors
/// As [`closest_stft_dual_window_complex`].
///
/// ```
/// // A periodic Bartlett window at 75 % overlap satisfies COLA with alpha = 1/2.
/// let m = 24;
/// let win = cusci_signal::Window::Bartlett.values(m, false).unwrap();
/// let (d, alpha) = cusci_signal::closest_stft_dual_window(&win, m / 4, None, true).unwrap();
/// assert!((alpha - 0.5).abs() < 1e-12 && d.iter().all(|v| (v - 0.5).abs() < 1e-12));
/// ```
pub fn closest_stft_dual_window(
    win: &[f64],
    hop: usize,
    desired_dual: Option<&[f64]>,
    scaled: bool,
) -> Result<(Vec<f64>, f64)> {
    let wc: Vec<c64> = win.iter().map(|&v| c64::new(v, 0.0)).collect();
    let dc: Option<Vec<c64>> = desired_dual.map(|d| d.iter().map(|&v| c64::new(v, 0.0)).collect());
    let (d, a) = closest_stft_dual_window_complex(&wc, hop, dc.as_deref(), scaled)?;
    Ok((d.iter().map(|z| z.re).collect(), a.re))
}
