//! The discrete prolate spheroidal (Slepian) sequences, SciPy's `scipy.signal.windows.dpss`.

use super::*;

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
