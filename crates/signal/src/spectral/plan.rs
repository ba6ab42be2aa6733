//! The plan that every spectral function shares (SciPy's `_spectral_helper`): the window, the
//! segments, the scaling, and the layout of the signals.

use super::options::*;
use cusci_core::array::layout::norm_axis;
use cusci_core::error::make;
use cusci_core::{Array, Element, Result};

// ------------------------------------------------------------------------------------------
// the plan shared by every function

pub(super) struct Params<'a> {
    pub(super) op: &'a str,
    pub(super) fs: f64,
    pub(super) window: &'a WindowSpec,
    pub(super) nperseg: Option<usize>,
    pub(super) default_nperseg: usize,
    pub(super) noverlap: Option<usize>,
    pub(super) default_overlap_div: usize,
    pub(super) nfft: Option<usize>,
    pub(super) detrend: Detrend,
    pub(super) onesided: bool,
    pub(super) scaling: Scaling,
    pub(super) boundary: Option<Boundary>,
    pub(super) padded: bool,
    pub(super) stft: bool,
}

#[derive(Debug, Clone)]
pub(super) struct Plan {
    pub(super) nperseg: usize,
    pub(super) step: usize,
    pub(super) nfft: usize,
    pub(super) nfreq: usize,
    pub(super) onesided: bool,
    pub(super) ext: usize,
    pub(super) bnd: i32,
    pub(super) nseg: usize,
    pub(super) win: Vec<f64>,
    pub(super) detrend: Detrend,
    /// |X|² scale (sqrt of it for stft modes)
    pub(super) scale: f64,
    /// time of each segment's centre
    pub(super) times: Vec<f64>,
    pub(super) fs: f64,
}

/// SciPy's `_triage_segments`: the window values and `nperseg` for a signal of length `len`.
pub(super) fn triage(
    op: &str,
    window: &WindowSpec,
    nperseg: Option<usize>,
    default: usize,
    len: usize,
) -> Result<(Vec<f64>, usize)> {
    match window {
        WindowSpec::Named(w) => {
            let mut n = nperseg.unwrap_or(default);
            if n > len {
                // SciPy warns and uses the signal length
                n = len;
            }
            Ok((w.values(n, false)?, n))
        }
        WindowSpec::Values(v) => {
            if v.is_empty() {
                return Err(make::arg(op, "window must not be empty"));
            }
            if let Some(n) = nperseg {
                if n != v.len() {
                    return Err(make::arg(
                        op,
                        "value specified for nperseg is different from length of window",
                    ));
                }
            }
            if len < v.len() {
                return Err(make::arg(op, "window is longer than input signal"));
            }
            Ok((v.clone(), v.len()))
        }
    }
}

pub(super) fn make_plan(p: &Params, len: usize) -> Result<Plan> {
    let op = p.op;
    if !(p.fs.is_finite() && p.fs > 0.0) {
        return Err(make::arg(op, "fs must be positive and finite"));
    }
    if p.nperseg == Some(0) {
        return Err(make::arg(op, "nperseg must be a positive integer"));
    }
    let (win, nperseg) = triage(op, p.window, p.nperseg, p.default_nperseg, len)?;
    let nfft = match p.nfft {
        None => nperseg,
        Some(n) if n < nperseg => {
            return Err(make::arg(
                op,
                "nfft must be greater than or equal to nperseg",
            ))
        }
        Some(n) => n,
    };
    let noverlap = p.noverlap.unwrap_or(nperseg / p.default_overlap_div);
    if noverlap >= nperseg {
        return Err(make::arg(op, "noverlap must be less than nperseg"));
    }
    let step = nperseg - noverlap;
    let (ext, bnd) = match p.boundary {
        None => (0, 0),
        Some(b) => {
            let e = nperseg / 2;
            let code = match b {
                Boundary::Even => 1,
                Boundary::Odd => 2,
                Boundary::Constant => 3,
                Boundary::Zeros => 4,
            };
            if (code == 1 || code == 2) && e > len.saturating_sub(1) {
                return Err(make::arg(
                    op,
                    format!(
                        "the extension length n ({e}) is too big; it must not exceed the signal length - 1 ({})",
                        len.saturating_sub(1)
                    ),
                ));
            }
            (e, code)
        }
    };
    let lx = len + 2 * ext;
    let lt = if p.padded {
        lx + (step - (lx - nperseg) % step) % step % nperseg
    } else {
        lx
    };
    let nseg = (lt - noverlap) / step;
    let s: f64 = win.iter().sum();
    let s2: f64 = win.iter().map(|w| w * w).sum();
    let mut scale = match p.scaling {
        Scaling::Density => 1.0 / (p.fs * s2),
        Scaling::Spectrum => 1.0 / (s * s),
    };
    if p.stft {
        scale = scale.sqrt();
    }
    let nfreq = if p.onesided { nfft / 2 + 1 } else { nfft };
    let half = nperseg as f64 / 2.0;
    let times = (0..nseg)
        .map(|k| {
            let t = (half + (k * step) as f64) / p.fs;
            if p.boundary.is_some() {
                t - half / p.fs
            } else {
                t
            }
        })
        .collect();
    Ok(Plan {
        nperseg,
        step,
        nfft,
        nfreq,
        onesided: p.onesided,
        ext,
        bnd,
        nseg,
        win,
        detrend: p.detrend,
        scale,
        times,
        fs: p.fs,
    })
}

impl Plan {
    pub(super) fn freqs(&self) -> Vec<f64> {
        let n = self.nfft as f64;
        (0..self.nfreq)
            .map(|k| {
                let k = if !self.onesided && k >= self.nfft.div_ceil(2) {
                    k as f64 - n
                } else {
                    k as f64
                };
                k * self.fs / n
            })
            .collect()
    }
    pub(super) fn doubling(&self, f: usize) -> f64 {
        if !self.onesided || f == 0 || (self.nfft % 2 == 0 && f == self.nfft / 2) {
            1.0
        } else {
            2.0
        }
    }
}

/// `x` with `axis` moved last, contiguous, and the leading shape.
pub(super) fn to_rows<T: Element>(
    op: &str,
    x: &Array<T>,
    axis: isize,
) -> Result<(Array<T>, Vec<usize>, usize)> {
    let ax = norm_axis(op, axis, x.ndim())?;
    let nd = x.ndim();
    let mut perm: Vec<isize> = (0..nd as isize).filter(|&a| a != ax as isize).collect();
    perm.push(ax as isize);
    let xm = if ax == nd - 1 {
        x.contiguous()?
    } else {
        x.permute(&perm)?.contiguous()?
    };
    let lead = xm.shape()[..nd - 1].to_vec();
    Ok((xm, lead, ax))
}

/// Moves the frequency axis of an array shaped `lead + [nfreq] (+ [nseg])` to position `ax`.
pub(super) fn place_freq<E: Element>(a: Array<E>, lead_nd: usize, ax: usize) -> Result<Array<E>> {
    if ax == lead_nd {
        return Ok(a);
    }
    let nd = a.ndim();
    let mut perm: Vec<isize> = Vec::with_capacity(nd);
    for i in 0..lead_nd {
        if i == ax {
            perm.push(lead_nd as isize);
        }
        perm.push(i as isize);
    }
    if ax >= lead_nd {
        perm.push(lead_nd as isize);
    }
    for i in lead_nd + 1..nd {
        perm.push(i as isize);
    }
    a.permute(&perm)?.contiguous()
}
