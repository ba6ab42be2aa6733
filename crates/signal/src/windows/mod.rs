//! Window functions, SciPy's `scipy.signal.windows` and `get_window`. Windows are short: they are
//! computed on the host in f64 (SciPy's formulas) and returned as an array on the requested
//! device.
//!
//! Each window is also a function by its SciPy name (`scipy.signal.windows.hann(M, sym=True)`
//! is [`hann`]`(m, sym, dev)`, [`kaiser`]`(m, beta, sym, dev)`, ...; [`dpss`] as SciPy's),
//! giving exactly [`get_window`]'s values.

use crate::design::fir::i0;
use cusci_core::array::layout::{checked_add, checked_bytes};
use cusci_core::error::make;
use cusci_core::host::{check_request, try_collect};
use cusci_core::{Array, Device, RealFloat, Result};
use std::f64::consts::PI;

mod dpss;
mod named;

pub use dpss::{dpss, Dpss, DpssNorm, DpssOptions};
pub use named::*;

/// A window and its parameters: every window of `scipy.signal.windows` (`dpss` as its first
/// sequence, as SciPy's `get_window(('dpss', NW), M)`; all of them: [`dpss`]).
///
/// The names and parameters are SciPy's; [`Window::from_name`] parses the string form of
/// parameter-free windows (as `get_window("hann", n)`).
#[derive(Debug, Clone, PartialEq)]
pub enum Window {
    /// Modified Bartlett-Hann.
    Barthann,
    /// Triangular with zero end points.
    Bartlett,
    /// Blackman (`[0.42, 0.50, 0.08]`).
    Blackman,
    /// Minimum 4-term Blackman-Harris.
    Blackmanharris,
    /// Bohman.
    Bohman,
    /// Rectangular (all ones).
    Boxcar,
    /// Dolph-Chebyshev with side-lobe attenuation `at` in dB.
    Chebwin(f64),
    /// Simple cosine (sine) window.
    Cosine,
    /// Exponential (Poisson) with `center` (None: the middle; only for periodic windows) and
    /// decay `tau`.
    Exponential {
        /// Centre of the window (None: `(M-1)/2`).
        center: Option<f64>,
        /// Decay.
        tau: f64,
    },
    /// Flat top (5 terms).
    Flattop,
    /// Gaussian with standard deviation `std`.
    Gaussian(f64),
    /// Generic weighted sum of cosines with coefficients `a`.
    GeneralCosine(Vec<f64>),
    /// Generalised Gaussian `exp(-0.5 |n/sig|^(2p))` with shape `p` and `sig`.
    GeneralGaussian {
        /// Shape parameter `p` (1: Gaussian, 0.5: Laplace).
        p: f64,
        /// Standard deviation `sig`.
        sig: f64,
    },
    /// Generalised Hamming `alpha - (1 - alpha) cos(...)`.
    GeneralHamming(f64),
    /// Hamming (`alpha = 0.54`).
    Hamming,
    /// Hann (`alpha = 0.5`).
    Hann,
    /// Kaiser with shape parameter β.
    Kaiser(f64),
    /// Kaiser-Bessel derived with β (symmetric only, even length).
    KaiserBesselDerived(f64),
    /// Lanczos (sinc).
    Lanczos,
    /// Minimum 4-term Blackman-Harris of Nuttall.
    Nuttall,
    /// Parzen.
    Parzen,
    /// Taylor with `nbar` nearly constant side lobes at `sll` dB; `norm` scales the centre to 1.
    Taylor {
        /// Number of nearly constant-level side lobes next to the main lobe.
        nbar: usize,
        /// Side-lobe suppression in dB (positive).
        sll: f64,
        /// Normalise so that the centre of the window is 1.
        norm: bool,
    },
    /// Triangular with non-zero end points.
    Triang,
    /// Tapered cosine with taper fraction `alpha` (0: boxcar, 1: Hann).
    Tukey(f64),
    /// The first discrete prolate spheroidal sequence with time-halfbandwidth `NW` (SciPy's
    /// `('dpss', NW)`: [`dpss`] with one window and the `'approximate'` normalisation).
    Dpss(f64),
}

impl Window {
    /// The window of a SciPy name with its SciPy default parameters (`"hann"`, `"kaiser"` needs
    /// a β and is refused, `"tukey"` = `Tukey(0.5)`, `"taylor"` = nbar 4, sll 30, norm,
    /// `"exponential"` = centre None, tau 1). Aliases as SciPy (`"hanning"`, `"box"`, `"rect"`,
    /// `"triangle"`, `"blackharr"`, `"flat"`, `"brthan"`, `"bart"`, `"hamm"`, `"poisson"`,
    /// `"sinc"`, `"tuk"`, ...).
    ///
    /// # Errors
    /// `InvalidArgument` for an unknown name or a window that needs parameters.
    ///
    /// ```
    /// use cusci_signal::Window;
    /// assert_eq!(Window::from_name("hanning").unwrap(), Window::Hann);
    /// assert!(Window::from_name("kaiser").is_err());
    /// ```
    pub fn from_name(name: &str) -> Result<Window> {
        Ok(match name.to_ascii_lowercase().as_str() {
            "barthann" | "brthan" | "bth" => Window::Barthann,
            "bartlett" | "bart" | "brt" => Window::Bartlett,
            "blackman" | "black" | "blk" => Window::Blackman,
            "blackmanharris" | "blackharr" | "bkh" => Window::Blackmanharris,
            "bohman" | "bman" | "bmn" => Window::Bohman,
            "boxcar" | "box" | "ones" | "rect" | "rectangular" => Window::Boxcar,
            "cosine" | "halfcosine" => Window::Cosine,
            "exponential" | "poisson" => Window::Exponential {
                center: None,
                tau: 1.0,
            },
            "flattop" | "flat" | "flt" => Window::Flattop,
            "hamming" | "hamm" | "ham" => Window::Hamming,
            "hann" | "han" | "hanning" => Window::Hann,
            "lanczos" | "sinc" => Window::Lanczos,
            "nuttall" | "nutl" | "nut" => Window::Nuttall,
            "parzen" | "parz" | "par" => Window::Parzen,
            "taylor" | "taylorwin" => Window::Taylor {
                nbar: 4,
                sll: 30.0,
                norm: true,
            },
            "triang" | "triangle" | "tri" => Window::Triang,
            "tukey" | "tuk" => Window::Tukey(0.5),
            other => {
                return Err(make::arg(
                    "get_window",
                    format!("unknown window or window that needs parameters: {other:?}"),
                ))
            }
        })
    }

    /// The window of length `m` as f64 values on the host; `sym` = true for the symmetric
    /// (filter design) form, false for the periodic (spectral analysis) form, as SciPy's `sym=`.
    ///
    /// # Errors
    /// `InvalidArgument` for parameters SciPy refuses (KBD with `sym=false` or odd `m`,
    /// Exponential with a centre and `sym=true`, a Taylor `nbar` of 0, a Tukey `alpha` of NaN), or
    /// `m + 1` points past `isize::MAX` bytes; `OutOfMemory` when the host cannot hold the
    /// window's vectors (SciPy: MemoryError), checked before any is allocated.
    ///
    /// ```
    /// use cusci_signal::Window;
    /// let w = Window::Hann.values(4, false).unwrap();
    /// assert!((w[2] - 1.0).abs() < 1e-15 && w[0] == 0.0);
    /// ```
    pub fn values(&self, m: usize, sym: bool) -> Result<Vec<f64>> {
        let op = "get_window";
        // the points (m + 1 for the periodic form) checked, and the memory of the formulas
        // below (at most three vectors of them at once: the window, a half or a linspace, and
        // the caller's copy) asked of the host before any is allocated: a huge m is OutOfMemory
        // (SciPy: MemoryError) or InvalidArgument, not an abort
        let bytes = checked_bytes(op, checked_add(op, m, 1, "the window's points")?, 8)?;
        check_request(bytes.saturating_mul(3))?;
        match self {
            Window::KaiserBesselDerived(beta) => {
                if !sym {
                    return Err(make::arg(
                        op,
                        "kaiser_bessel_derived only has a symmetric form",
                    ));
                }
                if m == 0 {
                    return Ok(vec![]);
                }
                if m % 2 == 1 {
                    return Err(make::arg(
                        op,
                        "kaiser_bessel_derived needs an even window length",
                    ));
                }
                let kw = Window::Kaiser(*beta).values(m / 2 + 1, true)?;
                let mut cs = Vec::with_capacity(kw.len());
                let mut s = 0.0;
                for v in &kw {
                    s += v;
                    cs.push(s);
                }
                let total = cs[cs.len() - 1];
                let half: Vec<f64> = cs[..cs.len() - 1]
                    .iter()
                    .map(|c| (c / total).sqrt())
                    .collect();
                let mut w = half.clone();
                w.extend(half.iter().rev());
                return Ok(w);
            }
            Window::Exponential {
                center: Some(_), ..
            } if sym => {
                return Err(make::arg(
                    op,
                    "if sym==True, center must be None (exponential window)",
                ));
            }
            Window::Taylor { nbar: 0, .. } => {
                return Err(make::arg(op, "taylor: nbar must be positive"));
            }
            Window::Tukey(alpha) if alpha.is_nan() => {
                // SciPy: int(floor(alpha * (M - 1) / 2)) of NaN is a ValueError
                return Err(make::arg(op, "tukey: alpha must be a number, got NaN"));
            }
            Window::Dpss(nw) => {
                let o = DpssOptions {
                    sym,
                    ..Default::default()
                };
                return dpss::<f64>(m, *nw, &o, &Device::Cpu)?.windows.to_vec();
            }
            _ => {}
        }
        if m <= 1 {
            return Ok(vec![1.0; m]);
        }
        // `_extend`: the periodic window is the symmetric one of m + 1 points, truncated
        let mm = if sym { m } else { m + 1 };
        let mut w = self.sym_values(mm);
        w.truncate(m);
        Ok(w)
    }

    /// The symmetric formula for `m >= 2` points.
    fn sym_values(&self, m: usize) -> Vec<f64> {
        let mf = m as f64;
        let n = |i: usize| i as f64;
        match self {
            Window::Barthann => (0..m)
                .map(|i| {
                    let fac = (n(i) / (mf - 1.0) - 0.5).abs();
                    0.62 - 0.48 * fac + 0.38 * (2.0 * PI * fac).cos()
                })
                .collect(),
            Window::Bartlett => (0..m)
                .map(|i| {
                    let x = n(i);
                    if x <= (mf - 1.0) / 2.0 {
                        2.0 * x / (mf - 1.0)
                    } else {
                        2.0 - 2.0 * x / (mf - 1.0)
                    }
                })
                .collect(),
            Window::Blackman => general_cosine_values(m, &[0.42, 0.50, 0.08]),
            Window::Blackmanharris => {
                general_cosine_values(m, &[0.35875, 0.48829, 0.14128, 0.01168])
            }
            Window::Nuttall => {
                general_cosine_values(m, &[0.3635819, 0.4891775, 0.1365995, 0.0106411])
            }
            Window::Flattop => general_cosine_values(
                m,
                &[
                    0.21557895,
                    0.41663158,
                    0.277263158,
                    0.083578947,
                    0.006947368,
                ],
            ),
            Window::Hamming => general_cosine_values(m, &[0.54, 0.46]),
            Window::Hann => general_cosine_values(m, &[0.5, 0.5]),
            Window::GeneralHamming(a) => general_cosine_values(m, &[*a, 1.0 - a]),
            Window::GeneralCosine(a) => general_cosine_values(m, a),
            Window::Bohman => {
                let ls = linspace(-1.0, 1.0, m);
                let mut w = vec![0.0; m];
                for i in 1..m - 1 {
                    let fac = ls[i].abs();
                    w[i] = (1.0 - fac) * (PI * fac).cos() + (PI * fac).sin() / PI;
                }
                w
            }
            Window::Boxcar => vec![1.0; m],
            Window::Cosine => (0..m).map(|i| (PI / mf * (n(i) + 0.5)).sin()).collect(),
            Window::Exponential { center, tau } => {
                let c = center.unwrap_or((mf - 1.0) / 2.0);
                (0..m).map(|i| (-(n(i) - c).abs() / tau).exp()).collect()
            }
            Window::Gaussian(std) => (0..m)
                .map(|i| {
                    let x = n(i) - (mf - 1.0) / 2.0;
                    (-x * x / (2.0 * std * std)).exp()
                })
                .collect(),
            Window::GeneralGaussian { p, sig } => (0..m)
                .map(|i| {
                    let x = n(i) - (mf - 1.0) / 2.0;
                    (-0.5 * (x / sig).abs().powf(2.0 * p)).exp()
                })
                .collect(),
            Window::Kaiser(beta) => {
                let alpha = (mf - 1.0) / 2.0;
                let d = i0(*beta);
                (0..m)
                    .map(|i| {
                        let r = (n(i) - alpha) / alpha;
                        i0(beta * (1.0 - r * r).max(0.0).sqrt()) / d
                    })
                    .collect()
            }
            Window::KaiserBesselDerived(_) | Window::Dpss(_) => unreachable!("handled in values"),
            Window::Lanczos => {
                // sinc(2 k / (m - 1) - 1) for the right half, mirrored
                let right = |start: f64| -> Vec<f64> {
                    let mut v = Vec::new();
                    let mut k = start;
                    while k < mf {
                        v.push(sinc(2.0 * k / (mf - 1.0) - 1.0));
                        k += 1.0;
                    }
                    v
                };
                let (wh, mid) = if m % 2 == 0 {
                    (right(mf / 2.0), false)
                } else {
                    (right((mf + 1.0) / 2.0), true)
                };
                let mut w: Vec<f64> = wh.iter().rev().copied().collect();
                if mid {
                    w.push(1.0);
                }
                w.extend(wh);
                w
            }
            Window::Parzen => {
                let half = (mf - 1.0) / 2.0;
                (0..m)
                    .map(|i| {
                        let x = n(i) - half;
                        let a = x.abs() / (mf / 2.0);
                        if x.abs() <= (mf - 1.0) / 4.0 {
                            1.0 - 6.0 * a * a + 6.0 * a * a * a
                        } else {
                            2.0 * (1.0 - a).powi(3)
                        }
                    })
                    .collect()
            }
            Window::Taylor { nbar, sll, norm } => taylor_values(m, *nbar, *sll, *norm),
            Window::Triang => {
                let h = m.div_ceil(2);
                let mut w: Vec<f64> = (1..=h)
                    .map(|k| {
                        if m % 2 == 0 {
                            (2.0 * k as f64 - 1.0) / mf
                        } else {
                            2.0 * k as f64 / (mf + 1.0)
                        }
                    })
                    .collect();
                let tail: Vec<f64> = if m % 2 == 0 {
                    w.iter().rev().copied().collect()
                } else {
                    w[..h - 1].iter().rev().copied().collect()
                };
                w.extend(tail);
                w
            }
            Window::Tukey(alpha) => {
                let alpha = *alpha;
                if alpha <= 0.0 {
                    return vec![1.0; m];
                }
                if alpha >= 1.0 {
                    return general_cosine_values(m, &[0.5, 0.5]);
                }
                let width = (alpha * (mf - 1.0) / 2.0).floor() as usize;
                (0..m)
                    .map(|i| {
                        let x = n(i);
                        if i <= width {
                            0.5 * (1.0 + (PI * (-1.0 + 2.0 * x / alpha / (mf - 1.0))).cos())
                        } else if i >= m - width - 1 {
                            0.5 * (1.0
                                + (PI * (-2.0 / alpha + 1.0 + 2.0 * x / alpha / (mf - 1.0))).cos())
                        } else {
                            1.0
                        }
                    })
                    .collect()
            }
            Window::Chebwin(at) => chebwin_values(m, *at),
        }
    }
}

fn linspace(a: f64, b: f64, m: usize) -> Vec<f64> {
    let step = (b - a) / (m - 1) as f64;
    (0..m)
        .map(|i| if i == m - 1 { b } else { a + i as f64 * step })
        .collect()
}

fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        1.0
    } else {
        (PI * x).sin() / (PI * x)
    }
}

fn general_cosine_values(m: usize, a: &[f64]) -> Vec<f64> {
    linspace(-PI, PI, m)
        .into_iter()
        .map(|fac| {
            a.iter()
                .enumerate()
                .fold(0.0, |acc, (k, &ak)| acc + ak * (k as f64 * fac).cos())
        })
        .collect()
}

fn taylor_values(m: usize, nbar: usize, sll: f64, norm: bool) -> Vec<f64> {
    let mf = m as f64;
    let b = 10f64.powf(sll / 20.0);
    let a = b.acosh() / PI;
    let nb = nbar as f64;
    let s2 = nb * nb / (a * a + (nb - 0.5) * (nb - 0.5));
    let ma: Vec<f64> = (1..nbar).map(|k| k as f64).collect();
    let fm: Vec<f64> = ma
        .iter()
        .enumerate()
        .map(|(mi, &mv)| {
            let m2i = mv * mv;
            let sign = if mi % 2 == 0 { 1.0 } else { -1.0 };
            let numer = sign
                * ma.iter()
                    .map(|&q| 1.0 - m2i / s2 / (a * a + (q - 0.5) * (q - 0.5)))
                    .product::<f64>();
            let denom = 2.0
                * ma.iter()
                    .enumerate()
                    .filter(|&(j, _)| j != mi)
                    .map(|(_, &q)| 1.0 - m2i / (q * q))
                    .product::<f64>();
            numer / denom
        })
        .collect();
    let wf = |x: f64| -> f64 {
        1.0 + 2.0
            * ma.iter()
                .zip(&fm)
                .map(|(&q, &f)| f * (2.0 * PI * q * (x - mf / 2.0 + 0.5) / mf).cos())
                .sum::<f64>()
    };
    let mut w: Vec<f64> = (0..m).map(|i| wf(i as f64)).collect();
    if norm {
        let scale = 1.0 / wf((mf - 1.0) / 2.0);
        w.iter_mut().for_each(|v| *v *= scale);
    }
    w
}

fn chebwin_values(m: usize, at: f64) -> Vec<f64> {
    let mf = m as f64;
    let order = mf - 1.0;
    let beta = ((10f64.powf(at.abs() / 20.0)).acosh() / order).cosh();
    let p: Vec<f64> = (0..m)
        .map(|k| {
            let x = beta * (PI * k as f64 / mf).cos();
            if x > 1.0 {
                (order * x.acosh()).cosh()
            } else if x < -1.0 {
                (2.0 * (m % 2) as f64 - 1.0) * (order * (-x).acosh()).cosh()
            } else {
                (order * x.acos()).cos()
            }
        })
        .collect();
    // real part of the DFT (direct: windows are short)
    let dft_re = |shift: bool| -> Vec<f64> {
        (0..m)
            .map(|k| {
                let mut s = 0.0;
                for (j, &pj) in p.iter().enumerate() {
                    let mut ang = -2.0 * PI * (j * k % m) as f64 / mf;
                    if shift {
                        ang += PI * j as f64 / mf;
                    }
                    s += pj * ang.cos();
                }
                s
            })
            .collect()
    };
    let w: Vec<f64> = if m % 2 == 1 {
        let wr = dft_re(false);
        let n = m.div_ceil(2);
        let mut w: Vec<f64> = (1..n).rev().map(|i| wr[i]).collect();
        w.extend_from_slice(&wr[..n]);
        w
    } else {
        let wr = dft_re(true);
        let n = m / 2 + 1;
        let mut w: Vec<f64> = (1..n).rev().map(|i| wr[i]).collect();
        w.extend_from_slice(&wr[1..n]);
        w
    };
    let mx = w.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    w.into_iter().map(|v| v / mx).collect()
}

/// The window `w` of `nx` points on `dev`, SciPy's `scipy.signal.get_window(window, Nx,
/// fftbins)`: `fftbins = true` gives the periodic window (for spectral analysis, SciPy's
/// default), false the symmetric one. Computed on the host in f64 and converted to `T`.
///
/// # Errors
/// As [`Window::values`]; the copy to the device's errors.
///
/// ```
/// use cusci_signal::{get_window, Window, Device};
/// let w = get_window::<f64>(&Window::Hamming, 3, false, &Device::cpu()).unwrap();
/// assert!((w.to_vec().unwrap()[1] - 1.0).abs() < 1e-15);
/// ```
pub fn get_window<T: RealFloat>(
    window: &Window,
    nx: usize,
    fftbins: bool,
    dev: &Device,
) -> Result<Array<T>> {
    let v = window.values(nx, !fftbins)?;
    let v = try_collect("get_window", nx, v.into_iter().map(T::from_f64))?;
    Array::from_vec(v, &[nx], dev)
}
