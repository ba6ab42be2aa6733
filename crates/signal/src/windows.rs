//! Window functions, SciPy's `scipy.signal.windows` and `get_window`. Windows are short: they are
//! computed on the host in f64 (SciPy's formulas) and returned as an array on the requested
//! device.
//!
//! Each window is also a function by its SciPy name (`scipy.signal.windows.hann(M, sym=True)`
//! is [`hann`]`(m, sym, dev)`, [`kaiser`]`(m, beta, sym, dev)`, ...; [`dpss`] as SciPy's),
//! giving exactly [`get_window`]'s values.

use crate::design::fir::i0;
use cusci_core::error::make;
use cusci_core::{Array, Device, RealFloat, Result};
use std::f64::consts::PI;

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
    /// Exponential with a centre and `sym=true`, a Taylor `nbar` of 0).
    ///
    /// ```
    /// use cusci_signal::Window;
    /// let w = Window::Hann.values(4, false).unwrap();
    /// assert!((w[2] - 1.0).abs() < 1e-15 && w[0] == 0.0);
    /// ```
    pub fn values(&self, m: usize, sym: bool) -> Result<Vec<f64>> {
        let op = "get_window";
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
    Array::from_vec(v.into_iter().map(T::from_f64).collect(), &[nx], dev)
}

/// The normalisation of [`dpss`] windows (SciPy's `norm=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DpssNorm {
    /// Unit energy (L2 norm 1), SciPy's `norm=2`.
    L2,
    /// Maximum 1, then for even lengths the approximate correction `M²/(M² + NW)`
    /// (SciPy's `'approximate'`).
    Approximate,
    /// Maximum 1, then for even lengths the correction from a half-sample shift of the first
    /// window's spectrum (SciPy's `'subsample'`).
    Subsample,
}

/// The optional arguments of [`dpss`], SciPy's defaults: `kmax = None` (one window, a 1-D
/// result), `sym = true`, `norm = None` (`Approximate` for one window, else `L2`),
/// `return_ratios = false`.
///
/// ```
/// use cusci_signal::DpssOptions;
/// let o = DpssOptions::default();
/// assert!(o.sym && o.kmax.is_none() && o.norm.is_none() && !o.return_ratios);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DpssOptions {
    /// Number of windows (`Kmax`); `None`: one window returned as a 1-D array.
    pub kmax: Option<usize>,
    /// Symmetric (true) or periodic (false) windows.
    pub sym: bool,
    /// The normalisation; `None`: SciPy's default (see [`DpssOptions`]).
    pub norm: Option<DpssNorm>,
    /// Also compute the concentration ratios.
    pub return_ratios: bool,
}

impl Default for DpssOptions {
    fn default() -> Self {
        DpssOptions {
            kmax: None,
            sym: true,
            norm: None,
            return_ratios: false,
        }
    }
}

/// The result of [`dpss`].
#[derive(Debug, Clone)]
pub struct Dpss<T: cusci_core::Element> {
    /// The windows: shape `[M]` without `kmax` (or for `M <= 1`), else `[kmax, M]`, on the
    /// requested device.
    pub windows: Array<T>,
    /// With `return_ratios`: the concentration ratio of each window (one value without
    /// `kmax`), on the host.
    pub ratios: Option<Vec<f64>>,
}

/// Discrete prolate spheroidal (Slepian) sequences, SciPy's
/// `scipy.signal.windows.dpss(M, NW, Kmax, sym, norm, return_ratios)`.
///
/// SciPy's algorithm: the eigenvectors of the `kmax` largest eigenvalues of the symmetric
/// tridiagonal matrix with diagonal `((M - 1 - 2n)/2)² cos(2πW)` and off-diagonal
/// `n(M - n)/2` (`W = NW/M`), found here on the host by Sturm-sequence bisection (eigenvalues)
/// and inverse iteration with a pivoted tridiagonal LU (eigenvectors, orthogonalised), in
/// descending order; SciPy's signs (even-index windows have a positive sum, odd-index windows
/// start positive: their first value of square above `max(1e-7, 1/M)`); the ratios are the
/// windows' autocorrelations (FFT) against `4W sinc(2W n)` (`2W` at lag 0); then the
/// normalisation. Periodic windows are the symmetric ones of `M + 1` points, truncated. The
/// windows are returned as `T` on `dev`.
///
/// # Errors
/// `InvalidArgument` for `kmax` of 0 or above `M`, `NW` not in `(0, M/2)` (or not finite);
/// the FFT's and the copy to the device's errors.
///
/// ```
/// use cusci_signal::{dpss, DpssOptions, Device};
/// let o = DpssOptions { kmax: Some(3), return_ratios: true, ..Default::default() };
/// let r = dpss::<f64>(64, 2.5, &o, &Device::cpu()).unwrap();
/// assert_eq!(r.windows.shape(), &[3, 64]);
/// let ratios = r.ratios.unwrap();
/// assert!(ratios[0] > 0.9999 && ratios[0] > ratios[1] && ratios[1] > ratios[2]);
/// ```
pub fn dpss<T: RealFloat>(m: usize, nw: f64, opts: &DpssOptions, dev: &Device) -> Result<Dpss<T>> {
    let op = "dpss";
    let norm = opts.norm.unwrap_or(if opts.kmax.is_none() {
        DpssNorm::Approximate
    } else {
        DpssNorm::L2
    });
    let singleton = opts.kmax.is_none();
    let kmax = opts.kmax.unwrap_or(1);
    let to_dev = |v: Vec<f64>, shape: &[usize]| -> Result<Array<T>> {
        Array::from_vec(v.into_iter().map(T::from_f64).collect(), shape, dev)
    };
    if m <= 1 {
        return Ok(Dpss {
            windows: to_dev(vec![1.0; m], &[m])?,
            ratios: opts.return_ratios.then(|| vec![1.0]),
        });
    }
    if kmax == 0 || kmax > m {
        return Err(make::arg(op, "Kmax must be greater than 0 and less than M"));
    }
    if !nw.is_finite() || nw >= m as f64 / 2.0 {
        return Err(make::arg(op, "NW must be less than M/2."));
    }
    if nw <= 0.0 {
        return Err(make::arg(op, "NW must be positive"));
    }
    let mm = if opts.sym { m } else { m + 1 };
    let mf = mm as f64;
    let w = nw / mf;
    let cw = (2.0 * PI * w).cos();
    let d: Vec<f64> = (0..mm)
        .map(|i| {
            let t = (mf - 1.0 - 2.0 * i as f64) / 2.0;
            t * t * cw
        })
        .collect();
    let e: Vec<f64> = (1..mm).map(|i| i as f64 * (mf - i as f64) / 2.0).collect();
    let mut wins = tridiag_top_eigvecs(&d, &e, kmax);
    // SciPy's signs
    for (k, v) in wins.iter_mut().enumerate() {
        let flip = if k % 2 == 0 {
            v.iter().sum::<f64>() < 0.0
        } else {
            let thresh = (1.0 / mf).max(1e-7);
            v.iter()
                .find(|x| *x * *x > thresh)
                .is_some_and(|x| *x < 0.0)
        };
        if flip {
            v.iter_mut().for_each(|x| *x = -*x);
        }
    }
    let ratios = if opts.return_ratios {
        let r: Vec<f64> = (0..mm)
            .map(|n| {
                if n == 0 {
                    2.0 * w
                } else {
                    4.0 * w * sinc(2.0 * w * n as f64)
                }
            })
            .collect();
        let mut out = Vec::with_capacity(kmax);
        for v in &wins {
            let rxx = autocorr(v)?;
            out.push(rxx.iter().zip(&r).map(|(a, b)| a * b).sum::<f64>());
        }
        Some(out)
    } else {
        None
    };
    if norm != DpssNorm::L2 {
        let mx = wins
            .iter()
            .flat_map(|v| v.iter())
            .fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        for v in wins.iter_mut() {
            v.iter_mut().for_each(|x| *x /= mx);
        }
        if mm % 2 == 0 {
            let correction = if norm == DpssNorm::Approximate {
                mf * mf / (mf * mf + nw)
            } else {
                let s = rfft_host(&wins[0])?;
                let mut total = s[0].re;
                for (k, sk) in s.iter().enumerate().skip(1) {
                    let shift = -(1.0 - 1.0 / mf) * k as f64;
                    let f = cusci_core::c64::from_polar(2.0, -PI * shift);
                    total += (sk * f).re;
                }
                mf / total
            };
            for v in wins.iter_mut() {
                v.iter_mut().for_each(|x| *x *= correction);
            }
        }
    }
    let len = m;
    let mut flat = Vec::with_capacity(kmax * len);
    for v in &wins {
        flat.extend_from_slice(&v[..len]);
    }
    let windows = if singleton {
        to_dev(flat, &[len])?
    } else {
        to_dev(flat, &[kmax, len])?
    };
    let ratios = ratios.map(|r| if singleton { vec![r[0]] } else { r });
    Ok(Dpss { windows, ratios })
}

/// The real FFT of host values (SciPy's `rfft`), through `cusci_fft` on the CPU.
fn rfft_host(x: &[f64]) -> Result<Vec<cusci_core::c64>> {
    let a = Array::from_vec(x.to_vec(), &[x.len()], &Device::Cpu)?;
    cusci_fft::rfft(&a, &Default::default())?.to_vec()
}

/// `rxx[k] = sum_n x[n] x[n + k]` for `k < len(x)` (SciPy's `_fftautocorr`), by FFT.
fn autocorr(x: &[f64]) -> Result<Vec<f64>> {
    let n = x.len();
    let nfft = cusci_fft::next_fast_len(2 * n - 1, false)?;
    let o = cusci_fft::FftOptions {
        n: Some(nfft),
        ..Default::default()
    };
    let a = Array::from_vec(x.to_vec(), &[n], &Device::Cpu)?;
    let f = cusci_fft::rfft(&a, &o)?.to_vec()?;
    let p: Vec<cusci_core::c64> = f.iter().map(|z| z * z.conj()).collect();
    let pa = Array::from_vec(p, &[nfft / 2 + 1], &Device::Cpu)?;
    let mut c = cusci_fft::irfft(&pa, &o)?.to_vec()?;
    c.truncate(n);
    Ok(c)
}

/// The eigenvectors (unit norm) of the `k` largest eigenvalues of the symmetric tridiagonal
/// matrix with diagonal `d` and off-diagonal `e`, largest first: Sturm bisection for the
/// eigenvalues, inverse iteration (pivoted LU, Gram-Schmidt against the earlier vectors) for
/// the vectors.
fn tridiag_top_eigvecs(d: &[f64], e: &[f64], k: usize) -> Vec<Vec<f64>> {
    let n = d.len();
    let e2: Vec<f64> = e.iter().map(|v| v * v).collect();
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for i in 0..n {
        let r = if i > 0 { e[i - 1].abs() } else { 0.0 } + if i + 1 < n { e[i].abs() } else { 0.0 };
        lo = lo.min(d[i] - r);
        hi = hi.max(d[i] + r);
    }
    let tnorm = lo.abs().max(hi.abs()).max(f64::MIN_POSITIVE);
    lo -= 2.0 * f64::EPSILON * tnorm * n as f64 + f64::MIN_POSITIVE;
    hi += 2.0 * f64::EPSILON * tnorm * n as f64 + f64::MIN_POSITIVE;
    let pivmin = f64::MIN_POSITIVE * e2.iter().fold(1.0f64, |a, &b| a.max(b));
    // the number of eigenvalues below x
    let count = |x: f64| -> usize {
        let mut c = 0;
        let mut q = d[0] - x;
        if q < 0.0 {
            c += 1;
        }
        for i in 1..n {
            if q.abs() < pivmin {
                q = -pivmin;
            }
            q = d[i] - x - e2[i - 1] / q;
            if q < 0.0 {
                c += 1;
            }
        }
        c
    };
    let mut vecs: Vec<Vec<f64>> = Vec::with_capacity(k);
    for j in 0..k {
        // the eigenvalue of ascending index n - 1 - j: the smallest x with count(x) >= n - j
        let target = n - j;
        let (mut a, mut b) = (lo, hi);
        for _ in 0..200 {
            let mid = 0.5 * (a + b);
            if mid <= a || mid >= b {
                break;
            }
            if count(mid) >= target {
                b = mid;
            } else {
                a = mid;
            }
            if b - a <= 2.0 * f64::EPSILON * a.abs().max(b.abs()) {
                break;
            }
        }
        let lam = 0.5 * (a + b);
        // inverse iteration from a fixed pseudo-random start
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15 ^ (j as u64 + 1);
        let mut x: Vec<f64> = (0..n)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((seed >> 11) as f64 / (1u64 << 53) as f64) - 0.5
            })
            .collect();
        let lu = TriLu::new(d, e, lam, tnorm);
        for _ in 0..4 {
            lu.solve(&mut x);
            for v in &vecs {
                let dot: f64 = x.iter().zip(v).map(|(a, b)| a * b).sum();
                x.iter_mut().zip(v).for_each(|(a, b)| *a -= dot * b);
            }
            let nrm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
            x.iter_mut().for_each(|v| *v /= nrm);
        }
        vecs.push(x);
    }
    vecs
}

/// The LU factorisation with partial pivoting of `T - λI` (T symmetric tridiagonal), LAPACK's
/// `gttrf` layout: multipliers `dl`, pivots `dd`, first and second super-diagonals.
struct TriLu {
    dl: Vec<f64>,
    dd: Vec<f64>,
    du: Vec<f64>,
    du2: Vec<f64>,
    swap: Vec<bool>,
}

impl TriLu {
    fn new(d: &[f64], e: &[f64], lam: f64, tnorm: f64) -> TriLu {
        let n = d.len();
        let mut dl = e.to_vec();
        let mut dd: Vec<f64> = d.iter().map(|v| v - lam).collect();
        let mut du = e.to_vec();
        let mut du2 = vec![0.0; n.saturating_sub(2)];
        let mut swap = vec![false; n.saturating_sub(1)];
        for i in 0..n.saturating_sub(1) {
            if dd[i].abs() >= dl[i].abs() {
                if dd[i] != 0.0 {
                    let f = dl[i] / dd[i];
                    dl[i] = f;
                    dd[i + 1] -= f * du[i];
                }
            } else {
                let f = dd[i] / dl[i];
                dd[i] = dl[i];
                dl[i] = f;
                let t = du[i];
                du[i] = dd[i + 1];
                dd[i + 1] = t - f * dd[i + 1];
                if i + 2 < n {
                    du2[i] = du[i + 1];
                    du[i + 1] *= -f;
                }
                swap[i] = true;
            }
        }
        // an exactly singular pivot (λ an exact eigenvalue) is nudged, as inverse iteration does
        let tiny = f64::EPSILON * tnorm;
        for p in dd.iter_mut() {
            if p.abs() < tiny {
                *p = if *p < 0.0 { -tiny } else { tiny };
            }
        }
        TriLu {
            dl,
            dd,
            du,
            du2,
            swap,
        }
    }

    fn solve(&self, b: &mut [f64]) {
        let n = b.len();
        for i in 0..n.saturating_sub(1) {
            if self.swap[i] {
                let t = b[i] - self.dl[i] * b[i + 1];
                b[i] = b[i + 1];
                b[i + 1] = t;
            } else {
                b[i + 1] -= self.dl[i] * b[i];
            }
        }
        b[n - 1] /= self.dd[n - 1];
        if n > 1 {
            b[n - 2] = (b[n - 2] - self.du[n - 2] * b[n - 1]) / self.dd[n - 2];
        }
        for i in (0..n.saturating_sub(2)).rev() {
            b[i] = (b[i] - self.du[i] * b[i + 1] - self.du2[i] * b[i + 2]) / self.dd[i];
        }
    }
}

// ---------------------------------------------------------------------------------------------
// SciPy's window functions by name (`scipy.signal.windows.hann(M, sym=True)`, ...): thin
// front ends over [`Window::values`], so each gives exactly `get_window`'s values.
// ---------------------------------------------------------------------------------------------

/// `window`'s `m` points (`sym`: symmetric, else periodic) as `T` on `dev`.
fn on_device<T: RealFloat>(window: &Window, m: usize, sym: bool, dev: &Device) -> Result<Array<T>> {
    get_window(window, m, !sym, dev)
}

/// A parameter-free window of `scipy.signal.windows`, with its doc and an example that checks
/// the symmetric form's centre (1 for every one of them) and its symmetry.
macro_rules! plain_window {
    ($name:ident, $variant:expr, $what:literal) => {
        #[doc = concat!("The ", $what, " window of `m` points, SciPy's `scipy.signal.windows.",
                        stringify!($name), "(M, sym)`: `sym = true` (SciPy's default) gives the ",
                        "symmetric form (filter design), false the periodic one (spectral ",
                        "analysis, `get_window`'s default).")]
        ///
        /// Numerics: SciPy's formula evaluated on the host in f64, then rounded to `T` and
        /// placed on `dev` (the same values as [`get_window`]). `m = 0` gives an empty array,
        /// `m = 1` a single 1.
        ///
        /// # Errors
        /// The copy to `dev`'s errors.
        ///
        /// ```
        #[doc = concat!("use cusci_signal::{windows::", stringify!($name), ", Device};")]
        #[doc = concat!("let w = ", stringify!($name), "::<f64>(7, true, &Device::cpu()).unwrap();")]
        /// let v = w.to_vec().unwrap();
        /// assert_eq!(v.len(), 7);
        /// assert!((v[3] - 1.0).abs() < 1e-8); // the centre
        /// assert!((v[1] - v[5]).abs() < 1e-15); // symmetric
        /// ```
        pub fn $name<T: RealFloat>(m: usize, sym: bool, dev: &Device) -> Result<Array<T>> {
            on_device(&$variant, m, sym, dev)
        }
    };
}

plain_window!(hann, Window::Hann, "Hann (raised cosine, `0.5 - 0.5 cos`)");
plain_window!(hamming, Window::Hamming, "Hamming (`0.54 - 0.46 cos`)");
plain_window!(
    blackman,
    Window::Blackman,
    "Blackman (`[0.42, 0.50, 0.08]`)"
);
plain_window!(
    bartlett,
    Window::Bartlett,
    "Bartlett (triangular, zero end points)"
);
plain_window!(cosine, Window::Cosine, "cosine (sine)");
plain_window!(boxcar, Window::Boxcar, "boxcar (rectangular, all ones)");
plain_window!(triang, Window::Triang, "triangular (non-zero end points)");
plain_window!(parzen, Window::Parzen, "Parzen");
plain_window!(bohman, Window::Bohman, "Bohman");
plain_window!(
    nuttall,
    Window::Nuttall,
    "Nuttall (minimum 4-term Blackman-Harris)"
);
plain_window!(
    blackmanharris,
    Window::Blackmanharris,
    "minimum 4-term Blackman-Harris"
);
plain_window!(flattop, Window::Flattop, "flat top (5 terms)");
plain_window!(barthann, Window::Barthann, "modified Bartlett-Hann");
plain_window!(lanczos, Window::Lanczos, "Lanczos (sinc)");

/// The Kaiser window of `m` points with shape `beta`, SciPy's
/// `scipy.signal.windows.kaiser(M, beta, sym)`: `I0(β sqrt(1 - (2n/(M-1) - 1)²)) / I0(β)`;
/// `sym = false` the periodic form.
///
/// Numerics: on the host in f64 (the crate's `I0`), rounded to `T` (as [`get_window`]).
///
/// # Errors
/// The copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::kaiser, Device};
/// let v = kaiser::<f64>(9, 8.6, true, &Device::cpu()).unwrap().to_vec().unwrap();
/// assert!((v[4] - 1.0).abs() < 1e-15 && v[0] < 2e-3 && v[0] > 1e-3);
/// ```
pub fn kaiser<T: RealFloat>(m: usize, beta: f64, sym: bool, dev: &Device) -> Result<Array<T>> {
    on_device(&Window::Kaiser(beta), m, sym, dev)
}

/// The Gaussian window of `m` points with standard deviation `std` (in samples), SciPy's
/// `scipy.signal.windows.gaussian(M, std, sym)`.
///
/// Numerics: on the host in f64, rounded to `T` (as [`get_window`]).
///
/// # Errors
/// The copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::gaussian, Device};
/// let v = gaussian::<f64>(5, 1.0, true, &Device::cpu()).unwrap().to_vec().unwrap();
/// assert!((v[3] - (-0.5f64).exp()).abs() < 1e-15);
/// ```
pub fn gaussian<T: RealFloat>(m: usize, std: f64, sym: bool, dev: &Device) -> Result<Array<T>> {
    on_device(&Window::Gaussian(std), m, sym, dev)
}

/// The Tukey (tapered cosine) window of `m` points with taper fraction `alpha` (0: boxcar,
/// 1: Hann; SciPy's default 0.5), SciPy's `scipy.signal.windows.tukey(M, alpha, sym)`.
///
/// Numerics: on the host in f64, rounded to `T` (as [`get_window`]).
///
/// # Errors
/// The copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::tukey, Device};
/// let v = tukey::<f64>(9, 0.5, true, &Device::cpu()).unwrap().to_vec().unwrap();
/// assert_eq!((v[0], v[4]), (0.0, 1.0));
/// ```
pub fn tukey<T: RealFloat>(m: usize, alpha: f64, sym: bool, dev: &Device) -> Result<Array<T>> {
    on_device(&Window::Tukey(alpha), m, sym, dev)
}

/// The exponential (Poisson) window of `m` points, `exp(-|n - center| / tau)`, SciPy's
/// `scipy.signal.windows.exponential(M, center, tau, sym)` (`center = None`: the middle,
/// `(M-1)/2`; SciPy's default `tau` is 1).
///
/// Numerics: on the host in f64, rounded to `T` (as [`get_window`]).
///
/// # Errors
/// `InvalidArgument` for a `center` with `sym = true` (SciPy's "If sym==True, center must be
/// None."); the copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::exponential, Device};
/// let v = exponential::<f64>(5, None, 1.0, true, &Device::cpu()).unwrap().to_vec().unwrap();
/// assert!((v[0] - (-2.0f64).exp()).abs() < 1e-15 && v[2] == 1.0);
/// assert!(exponential::<f64>(5, Some(1.0), 1.0, true, &Device::cpu()).is_err());
/// ```
pub fn exponential<T: RealFloat>(
    m: usize,
    center: Option<f64>,
    tau: f64,
    sym: bool,
    dev: &Device,
) -> Result<Array<T>> {
    on_device(&Window::Exponential { center, tau }, m, sym, dev)
}

/// The generalised cosine window of `m` points, `Σ_k (-1)^k a[k] cos(2πkn/(M-1))`, SciPy's
/// `scipy.signal.windows.general_cosine(M, a, sym)`.
///
/// Numerics: on the host in f64, rounded to `T` (as [`get_window`]).
///
/// # Errors
/// The copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::{general_cosine, hann}, Device};
/// let d = Device::cpu();
/// let g = general_cosine::<f64>(8, &[0.5, 0.5], true, &d).unwrap().to_vec().unwrap();
/// let h = hann::<f64>(8, true, &d).unwrap().to_vec().unwrap();
/// assert!(g.iter().zip(&h).all(|(a, b)| (a - b).abs() < 1e-15));
/// ```
pub fn general_cosine<T: RealFloat>(
    m: usize,
    a: &[f64],
    sym: bool,
    dev: &Device,
) -> Result<Array<T>> {
    on_device(&Window::GeneralCosine(a.to_vec()), m, sym, dev)
}

/// The generalised Hamming window of `m` points, `alpha - (1 - alpha) cos(2πn/(M-1))`, SciPy's
/// `scipy.signal.windows.general_hamming(M, alpha, sym)`.
///
/// Numerics: on the host in f64, rounded to `T` (as [`get_window`]).
///
/// # Errors
/// The copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::general_hamming, Device};
/// let v = general_hamming::<f64>(5, 0.54, true, &Device::cpu()).unwrap().to_vec().unwrap();
/// assert!((v[0] - 0.08).abs() < 1e-15 && (v[2] - 1.0).abs() < 1e-15);
/// ```
pub fn general_hamming<T: RealFloat>(
    m: usize,
    alpha: f64,
    sym: bool,
    dev: &Device,
) -> Result<Array<T>> {
    on_device(&Window::GeneralHamming(alpha), m, sym, dev)
}

/// The generalised Gaussian window of `m` points, `exp(-0.5 |n/sig|^(2p))` about the middle,
/// SciPy's `scipy.signal.windows.general_gaussian(M, p, sig, sym)`.
///
/// Numerics: on the host in f64, rounded to `T` (as [`get_window`]).
///
/// # Errors
/// The copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::{gaussian, general_gaussian}, Device};
/// let d = Device::cpu();
/// let a = general_gaussian::<f64>(9, 1.0, 2.0, true, &d).unwrap().to_vec().unwrap();
/// let b = gaussian::<f64>(9, 2.0, true, &d).unwrap().to_vec().unwrap();
/// assert!(a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-15)); // p = 1 is the Gaussian
/// ```
pub fn general_gaussian<T: RealFloat>(
    m: usize,
    p: f64,
    sig: f64,
    sym: bool,
    dev: &Device,
) -> Result<Array<T>> {
    on_device(&Window::GeneralGaussian { p, sig }, m, sym, dev)
}

/// The Dolph-Chebyshev window of `m` points with side lobes `at` dB below the main lobe, SciPy's
/// `scipy.signal.windows.chebwin(M, at, sym)`.
///
/// Numerics: SciPy's construction (the Chebyshev polynomial's samples, an inverse DFT, scaled to
/// a maximum of 1) on the host in f64, rounded to `T` (as [`get_window`]).
///
/// # Errors
/// The copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::chebwin, Device};
/// let v = chebwin::<f64>(11, 100.0, true, &Device::cpu()).unwrap().to_vec().unwrap();
/// assert!((v[5] - 1.0).abs() < 1e-12 && (v[0] - v[10]).abs() < 1e-12);
/// ```
pub fn chebwin<T: RealFloat>(m: usize, at: f64, sym: bool, dev: &Device) -> Result<Array<T>> {
    on_device(&Window::Chebwin(at), m, sym, dev)
}

/// The Taylor window of `m` points with `nbar` nearly constant side lobes `sll` dB down, scaled
/// so that its centre is 1 when `norm`, SciPy's
/// `scipy.signal.windows.taylor(M, nbar, sll, norm, sym)` (defaults 4, 30, true, true).
///
/// Numerics: on the host in f64, rounded to `T` (as [`get_window`]).
///
/// # Errors
/// `InvalidArgument` for `nbar = 0`; the copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::taylor, Device};
/// let v = taylor::<f64>(9, 4, 30.0, true, true, &Device::cpu()).unwrap().to_vec().unwrap();
/// assert!((v[4] - 1.0).abs() < 1e-12);
/// ```
pub fn taylor<T: RealFloat>(
    m: usize,
    nbar: usize,
    sll: f64,
    norm: bool,
    sym: bool,
    dev: &Device,
) -> Result<Array<T>> {
    on_device(&Window::Taylor { nbar, sll, norm }, m, sym, dev)
}

/// The Kaiser-Bessel derived window of `m` points (even `m`) with shape `beta`, SciPy's
/// `scipy.signal.windows.kaiser_bessel_derived(M, beta, sym=True)` (symmetric only, as SciPy).
///
/// Numerics: on the host in f64, rounded to `T` (as [`get_window`]).
///
/// # Errors
/// `InvalidArgument` for `sym = false` or an odd `m`, as SciPy; the copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::kaiser_bessel_derived, Device};
/// let v = kaiser_bessel_derived::<f64>(8, 4.0, true, &Device::cpu()).unwrap().to_vec().unwrap();
/// // the Princen-Bradley condition: w[n]² + w[n + M/2]² = 1
/// assert!((v[1] * v[1] + v[5] * v[5] - 1.0).abs() < 1e-12);
/// assert!(kaiser_bessel_derived::<f64>(7, 4.0, true, &Device::cpu()).is_err());
/// ```
pub fn kaiser_bessel_derived<T: RealFloat>(
    m: usize,
    beta: f64,
    sym: bool,
    dev: &Device,
) -> Result<Array<T>> {
    on_device(&Window::KaiserBesselDerived(beta), m, sym, dev)
}
