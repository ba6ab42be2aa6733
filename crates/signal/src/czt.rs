//! The chirp z-transform (SciPy's `scipy.signal.czt`, `czt_points`, `CZT`) by Bluestein's
//! algorithm: three `cusci_fft` transforms and broadcast products on the input's device.

use cusci_core::error::make;
use cusci_core::{c64, Array, Result};
use std::f64::consts::PI;

/// The `m` points of the z-plane at which a chirp z-transform is evaluated: `a·w^-k`, k = 0..m
/// (SciPy's `scipy.signal.czt_points(m, w, a)`; `w = None`: `exp(-2πi/m)`, the FFT's points
/// times `a`).
///
/// # Errors
/// `InvalidArgument` for `m` = 0.
///
/// ```
/// use cusci_signal::czt_points;
/// use cusci_core::c64;
/// let p = czt_points(4, None, c64::new(1.0, 0.0)).unwrap();
/// assert!((p[1] - c64::new(0.0, 1.0)).norm() < 1e-15);
/// ```
pub fn czt_points(m: usize, w: Option<c64>, a: c64) -> Result<Vec<c64>> {
    if m == 0 {
        return Err(make::arg(
            "czt_points",
            "invalid number of CZT output points (0): m must be positive",
        ));
    }
    Ok((0..m)
        .map(|k| match w {
            None => a * c64::from_polar(1.0, 2.0 * PI * k as f64 / m as f64),
            Some(w) => a * w.powf(-(k as f64)),
        })
        .collect())
}

/// A reusable chirp z-transform for inputs of length `n` (SciPy's `scipy.signal.CZT(n, m, w,
/// a)`): the chirps and the transformed filter are precomputed on the host once.
#[derive(Debug, Clone)]
pub struct Czt {
    n: usize,
    m: usize,
    w: Option<c64>,
    a: c64,
    nfft: usize,
    awk2: Vec<c64>,
    fwk2: Vec<c64>,
    wk2: Vec<c64>,
}

impl Czt {
    /// Prepares the transform of `n` points to `m` (default `n`) points along the spiral
    /// `a·w^-k` (default `w = exp(-2πi/m)`, `a = 1`).
    ///
    /// # Errors
    /// `InvalidArgument` for `n` = 0 or `m` = 0.
    pub fn new(n: usize, m: Option<usize>, w: Option<c64>, a: c64) -> Result<Czt> {
        let op = "CZT";
        if n == 0 {
            return Err(make::arg(
                op,
                "invalid number of CZT data points (0): n must be positive",
            ));
        }
        let m = m.unwrap_or(n);
        if m == 0 {
            return Err(make::arg(
                op,
                "invalid number of CZT output points (0): m must be positive",
            ));
        }
        let kmax = m.max(n);
        let wk2: Vec<c64> = (0..kmax)
            .map(|k| {
                let k2 = (k as u128) * (k as u128);
                match w {
                    None => {
                        let r = (k2 % (2 * m as u128)) as f64;
                        c64::from_polar(1.0, -PI * r / m as f64)
                    }
                    Some(w) => w.powf(k2 as f64 / 2.0),
                }
            })
            .collect();
        let nfft = cusci_fft::next_fast_len(n + m - 1, false)?;
        let awk2: Vec<c64> = (0..n).map(|k| a.powf(-(k as f64)) * wk2[k]).collect();
        let mut h: Vec<c64> = Vec::with_capacity(nfft);
        h.extend(wk2[1..n].iter().rev().map(|v| 1.0 / v));
        h.extend(wk2[..m].iter().map(|v| 1.0 / v));
        let len = h.len();
        let cpu = cusci_core::Device::cpu();
        let ha = Array::from_vec(h, &[len], &cpu)?;
        let o = cusci_fft::FftOptions {
            n: Some(nfft),
            ..Default::default()
        };
        let fwk2 = cusci_fft::fft(&ha, &o)?.to_vec()?;
        Ok(Czt {
            n,
            m,
            w,
            a,
            nfft,
            awk2,
            fwk2,
            wk2: wk2[..m].to_vec(),
        })
    }

    /// The points at which the transform is evaluated ([`czt_points`]).
    pub fn points(&self) -> Vec<c64> {
        czt_points(self.m, self.w, self.a).expect("m > 0")
    }

    /// The transform of `x` along `axis` (its length there must be `n`), on `x`'s device;
    /// other axes are a batch.
    ///
    /// # Errors
    /// `InvalidArgument` for an axis out of range or a length other than `n`.
    pub fn apply(&self, x: &Array<c64>, axis: isize) -> Result<Array<c64>> {
        let op = "CZT";
        let ax = crate::procutil::norm_axis(op, axis, x.ndim())?;
        if x.shape()[ax] != self.n {
            return Err(make::arg(
                op,
                format!("CZT defined for length {}, not {}", self.n, x.shape()[ax]),
            ));
        }
        let dev = x.device();
        let last = x.ndim() as isize - 1;
        let xl = x.swapaxes(ax as isize, last)?;
        let awk2 = Array::from_slice(&self.awk2, &[self.n], dev)?;
        let fwk2 = Array::from_slice(&self.fwk2, &[self.nfft], dev)?;
        let wk2 = Array::from_slice(&self.wk2, &[self.m], dev)?;
        let o = cusci_fft::FftOptions {
            n: Some(self.nfft),
            ..Default::default()
        };
        let y = cusci_fft::fft(&xl.mul(&awk2)?, &o)?;
        let y = cusci_fft::ifft(&y.mul(&fwk2)?, &cusci_fft::FftOptions::default())?;
        let y = y.slice_axis(
            -1,
            Some(self.n as isize - 1),
            Some((self.n + self.m - 1) as isize),
            1,
        )?;
        y.mul(&wk2)?.swapaxes(ax as isize, last)?.contiguous()
    }
}

/// The chirp z-transform of `x` along `axis` at the `m` (default: the length) points
/// `a·w^-k` (SciPy's `scipy.signal.czt(x, m, w, a, axis=axis)`), on `x`'s device.
///
/// # Errors
/// As [`Czt::new`] and [`Czt::apply`].
///
/// ```
/// use cusci_signal::{czt, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec(vec![c64::new(1.0, 0.0), c64::new(2.0, 0.0)], &[2], &Device::cpu()).unwrap();
/// let y = czt(&x, None, None, c64::new(1.0, 0.0), -1).unwrap().to_vec().unwrap();
/// assert!((y[0] - c64::new(3.0, 0.0)).norm() < 1e-12 && (y[1] - c64::new(-1.0, 0.0)).norm() < 1e-12);
/// ```
pub fn czt(
    x: &Array<c64>,
    m: Option<usize>,
    w: Option<c64>,
    a: c64,
    axis: isize,
) -> Result<Array<c64>> {
    let ax = crate::procutil::norm_axis("czt", axis, x.ndim())?;
    Czt::new(x.shape()[ax], m, w, a)?.apply(x, axis)
}
