//! The chirp z-transform (SciPy's `scipy.signal.czt`, `czt_points`, `CZT`) by Bluestein's
//! algorithm: three `cusci_fft` transforms and broadcast products on the input's device.

use cusci_core::array::layout::checked_add;
use cusci_core::error::make;
use cusci_core::host::{try_collect, try_to_vec, try_with_capacity};
use cusci_core::{c64, Array, Element, Result};
use std::f64::consts::PI;

/// The `m` points of the z-plane at which a chirp z-transform is evaluated: `a·w^-k`, k = 0..m
/// (SciPy's `scipy.signal.czt_points(m, w, a)`; `w = None`: `exp(-2πi/m)`, the FFT's points
/// times `a`).
///
/// # Errors
/// `InvalidArgument` for `m` = 0 or `m` points past `isize::MAX` bytes; `OutOfMemory` when the
/// host cannot hold them (SciPy: MemoryError).
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
    let p = (0..m).map(|k| match w {
        None => a * c64::from_polar(1.0, 2.0 * PI * k as f64 / m as f64),
        Some(w) => a * w.powf(-(k as f64)),
    });
    try_collect("czt_points", m, p)
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
    /// `InvalidArgument` for `n` = 0 or `m` = 0, or chirps and transforms past `isize::MAX`
    /// bytes; `OutOfMemory` when the host cannot hold them (SciPy: MemoryError).
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
        let wk2 = (0..kmax).map(|k| {
            let k2 = (k as u128) * (k as u128);
            match w {
                None => {
                    let r = (k2 % (2 * m as u128)) as f64;
                    c64::from_polar(1.0, -PI * r / m as f64)
                }
                Some(w) => w.powf(k2 as f64 / 2.0),
            }
        });
        // the chirps, the filter and its transform allocated fallibly: a huge m is OutOfMemory
        // (SciPy: MemoryError) or InvalidArgument past isize::MAX bytes, not an abort
        let wk2: Vec<c64> = try_collect(op, kmax, wk2)?;
        Czt::from_chirps(op, n, m, w, a, &wk2)
    }

    /// The transform from its chirp `wk2[k] = w^(k²/2)`, k < max(m, n) (`awk2` = `a^−k·wk2[k]`).
    fn from_chirps(
        op: &str,
        n: usize,
        m: usize,
        w: Option<c64>,
        a: c64,
        wk2: &[c64],
    ) -> Result<Czt> {
        let len = checked_add(op, n, m - 1, "the number of CZT points")?;
        let nfft = cusci_fft::next_fast_len(len, false)?;
        let awk2: Vec<c64> = (0..n).map(|k| a.powf(-(k as f64)) * wk2[k]).collect();
        let mut h: Vec<c64> = try_with_capacity(op, nfft)?;
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
            wk2: try_to_vec(op, &wk2[..m])?,
        })
    }

    /// The points at which the transform is evaluated ([`czt_points`]).
    ///
    /// # Errors
    /// `OutOfMemory` when the host cannot hold the `m` points.
    pub fn points(&self) -> Result<Vec<c64>> {
        czt_points(self.m, self.w, self.a)
    }

    /// The transform of `x` along `axis` (its length there must be `n`), on `x`'s device;
    /// other axes are a batch. Any element type (f32, f64, c32, c64, integers): the result is
    /// `c64` (complex128) whatever the input, as SciPy's (its chirps are complex128, so
    /// `CZT(x)` of float32 or complex64 data is complex128 too); other types are converted to
    /// `c64` on the device first.
    ///
    /// # Errors
    /// `InvalidArgument` for an axis out of range or a length other than `n`.
    pub fn apply<T: Element>(&self, x: &Array<T>, axis: isize) -> Result<Array<c64>> {
        let any: &dyn std::any::Any = x;
        match any.downcast_ref::<Array<c64>>() {
            Some(xc) => self.apply_c64(xc, axis),
            None => self.apply_c64(&x.astype::<c64>()?, axis),
        }
    }

    fn apply_c64(&self, x: &Array<c64>, axis: isize) -> Result<Array<c64>> {
        let op = "CZT";
        let ax = cusci_core::array::layout::norm_axis(op, axis, x.ndim())?;
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

/// Options of [`zoom_fft`] and [`ZoomFft::new`]: SciPy's `m` (default: the input length), `fs`
/// (default 2.0, so that frequencies are in units of the Nyquist frequency) and `endpoint`
/// (default false).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZoomFftOptions {
    /// The number of output points (default `None`: the input length `n`).
    pub m: Option<usize>,
    /// The sampling frequency (default 2.0).
    pub fs: f64,
    /// Whether `f2` is the last output frequency (default false: `m` points spaced by
    /// `(f2 − f1)/m` from `f1`).
    pub endpoint: bool,
}

impl Default for ZoomFftOptions {
    fn default() -> Self {
        ZoomFftOptions {
            m: None,
            fs: 2.0,
            endpoint: false,
        }
    }
}

/// A reusable zoom FFT for inputs of length `n` (SciPy's `scipy.signal.ZoomFFT(n, fn, m, fs,
/// endpoint)`): the DFT at `m` equally spaced frequencies of `[f1, f2]`, a chirp z-transform
/// along the unit circle (Bluestein: three `cusci_fft` transforms on the input's device).
#[derive(Debug, Clone)]
pub struct ZoomFft {
    czt: Czt,
}

impl ZoomFft {
    /// Prepares the transform of `n` points over the band `fband = (f1, f2)` (SciPy's `fn`; a
    /// scalar `fn` is `(0.0, fn)`).
    ///
    /// The chirps follow SciPy's formulas term for term (`exp(−iπ·scale·k²/m)`, not powers of
    /// `w`), so outputs agree with SciPy's to rounding.
    ///
    /// # Errors
    /// `InvalidArgument` for `n` or `m` = 0, `fs` zero or not finite, `f1`/`f2` not finite, or
    /// `endpoint` with `m` = 1.
    ///
    /// ```
    /// use cusci_signal::{ZoomFft, ZoomFftOptions};
    /// let z = ZoomFft::new(8, (0.0, 1.0), &ZoomFftOptions::default()).unwrap();
    /// assert_eq!(z.points().unwrap().len(), 8);
    /// ```
    pub fn new(n: usize, fband: (f64, f64), opts: &ZoomFftOptions) -> Result<ZoomFft> {
        let op = "ZoomFFT";
        let (f1, f2) = fband;
        let fs = opts.fs;
        if n == 0 {
            return Err(make::arg(
                op,
                "invalid number of data points (0): n must be positive",
            ));
        }
        let m = opts.m.unwrap_or(n);
        if m == 0 {
            return Err(make::arg(
                op,
                "invalid number of output points (0): m must be positive",
            ));
        }
        if !(fs.is_finite() && fs != 0.0 && f1.is_finite() && f2.is_finite()) {
            return Err(make::arg(
                op,
                format!("fs must be finite and non-zero and fn finite (fs {fs}, fn ({f1}, {f2}))"),
            ));
        }
        if opts.endpoint && m == 1 {
            return Err(make::arg(
                op,
                "endpoint=true needs at least 2 output points",
            ));
        }
        let mf = m as f64;
        let scale = if opts.endpoint {
            ((f2 - f1) * mf) / (fs * (mf - 1.0))
        } else {
            (f2 - f1) / fs
        };
        let a = c64::from_polar(1.0, 2.0 * PI * f1 / fs);
        let w = c64::from_polar(1.0, -2.0 * PI / mf * scale);
        let kmax = m.max(n);
        let wk2 = (0..kmax).map(|k| {
            let k2 = (k as f64) * (k as f64);
            c64::from_polar(1.0, -((PI * scale * k2) / mf))
        });
        // allocated fallibly, as in Czt::new
        let wk2: Vec<c64> = try_collect(op, kmax, wk2)?;
        let awk2: Vec<c64> = (0..n)
            .map(|k| c64::from_polar(1.0, (-2.0 * PI * f1 / fs) * k as f64) * wk2[k])
            .collect();
        let czt = Czt::from_chirps(op, n, m, Some(w), a, &wk2)?;
        let czt = Czt { awk2, ..czt };
        Ok(ZoomFft { czt })
    }

    /// The points of the z-plane at which the transform is evaluated ([`czt_points`] of `m`,
    /// `w`, `a`; SciPy's `ZoomFFT.points()`).
    ///
    /// # Errors
    /// As [`Czt::points`].
    pub fn points(&self) -> Result<Vec<c64>> {
        self.czt.points()
    }

    /// The zoom FFT of `x` along `axis` (length `n` there), on `x`'s device; other axes are a
    /// batch. Any element type; the result is `c64` as SciPy's (see [`Czt::apply`]).
    ///
    /// # Errors
    /// As [`Czt::apply`].
    pub fn apply<T: Element>(&self, x: &Array<T>, axis: isize) -> Result<Array<c64>> {
        self.czt.apply(x, axis)
    }
}

/// The DFT of `x` along `axis` at `m` equally spaced frequencies of the band `fband = (f1, f2)`
/// (SciPy's `scipy.signal.zoom_fft(x, fn, m, fs=fs, endpoint=endpoint, axis=axis)`; a scalar
/// `fn` is `(0.0, fn)`), on `x`'s device. `x` of any element type (f32, f64, c32, c64, ...); the
/// result is `c64` (complex128) as SciPy's, whatever the input's precision.
///
/// # Errors
/// As [`ZoomFft::new`] and [`ZoomFft::apply`].
///
/// ```
/// use cusci_signal::{zoom_fft, ZoomFftOptions, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec(vec![c64::new(1.0, 0.0), c64::new(2.0, 0.0)], &[2], &Device::cpu()).unwrap();
/// // the full band [0, fs) with fs = 2 is the DFT
/// let y = zoom_fft(&x, (0.0, 2.0), &ZoomFftOptions::default(), -1).unwrap().to_vec().unwrap();
/// assert!((y[0] - c64::new(3.0, 0.0)).norm() < 1e-12 && (y[1] - c64::new(-1.0, 0.0)).norm() < 1e-12);
/// ```
pub fn zoom_fft<T: Element>(
    x: &Array<T>,
    fband: (f64, f64),
    opts: &ZoomFftOptions,
    axis: isize,
) -> Result<Array<c64>> {
    let ax = cusci_core::array::layout::norm_axis("zoom_fft", axis, x.ndim())?;
    ZoomFft::new(x.shape()[ax], fband, opts)?.apply(x, axis)
}

/// The chirp z-transform of `x` along `axis` at the `m` (default: the length) points
/// `a·w^-k` (SciPy's `scipy.signal.czt(x, m, w, a, axis=axis)`), on `x`'s device. `x` of any
/// element type (f32, f64, c32, c64, ...); the result is `c64` (complex128) as SciPy's.
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
pub fn czt<T: Element>(
    x: &Array<T>,
    m: Option<usize>,
    w: Option<c64>,
    a: c64,
    axis: isize,
) -> Result<Array<c64>> {
    let ax = cusci_core::array::layout::norm_axis("czt", axis, x.ndim())?;
    Czt::new(x.shape()[ax], m, w, a)?.apply(x, axis)
}
