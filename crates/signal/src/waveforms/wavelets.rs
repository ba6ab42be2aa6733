//! Wavelets and the continuous wavelet transform: [`ricker`], [`morlet`], [`morlet2`], [`cwt`]
//! (SciPy ≤ 1.14's `scipy.signal` definitions, which CuPy keeps; SciPy 1.15 removed them).
//!
//! The wavelets are short vectors computed on the host in f64 and placed on the chosen device.
//! [`cwt`] is one NVRTC kernel (`wavelets.cu`, one thread per output, every width at once) with
//! a rayon reference doing the same sums.

use crate::procutil::{
    each_dtype, typed_kernel, typed_source, SignalScalar, DEF_ACC, SIGNAL_DTYPES,
};
use cusci_core::error::make;
use cusci_core::host::try_collect;
use cusci_core::{
    c64, Array, Backend, DType, Device, KernelModule, LaunchConfig, RealFloat, Result,
};
use rayon::prelude::*;
use std::f64::consts::PI;

const SRC: &str = include_str!("wavelets.cu");

/// The continuous wavelet transform's kernel (`wavelets.cu`), one module per element type
/// (accumulating in `double` or `cplx64`).
pub(crate) static WAVELETS: KernelModule = KernelModule {
    name: "signal_wavelets",
    source: |s| typed_source("signal_wavelets", s, &[DEF_ACC], SRC),
    options: &[],
    samples: || each_dtype(&SIGNAL_DTYPES),
};

/// The point count of `arange(0, points)` for a (possibly fractional) `points`, as NumPy.
fn count(points: f64) -> usize {
    if points > 0.0 {
        points.ceil() as usize
    } else {
        0
    }
}

/// The values `f(v)` at `arange(0, points) − (points − 1)/2`, allocated fallibly: a huge point
/// count is OutOfMemory (NumPy: MemoryError) or InvalidArgument past isize::MAX bytes, not an
/// abort.
fn centred<E>(op: &str, points: f64, f: impl Fn(f64) -> E) -> Result<Vec<E>> {
    let n = count(points);
    try_collect(op, n, (0..n).map(|i| f(i as f64 - (points - 1.0) / 2.0)))
}

fn ricker_host(op: &str, points: f64, a: f64) -> Result<Vec<f64>> {
    let amp = 2.0 / ((3.0 * a).sqrt() * PI.powf(0.25));
    let wsq = a * a;
    centred(op, points, |v| {
        let xsq = v * v;
        amp * (1.0 - xsq / wsq) * (-xsq / (2.0 * wsq)).exp()
    })
}

fn morlet2_host(op: &str, points: f64, s: f64, w: f64) -> Result<Vec<c64>> {
    let norm = (1.0 / s).sqrt();
    centred(op, points, |v| {
        let x = v / s;
        let wav = c64::from_polar(1.0, w * x) * (-0.5 * x * x).exp() * PI.powf(-0.25);
        wav * norm
    })
}

fn check_pos(op: &str, name: &str, v: f64) -> Result<()> {
    if !(v > 0.0 && v.is_finite()) {
        return Err(make::arg(
            op,
            format!("{name} must be positive and finite, got {v}"),
        ));
    }
    Ok(())
}

/// The Ricker ("Mexican hat") wavelet of `points` points and width `a`: SciPy ≤ 1.14's
/// `scipy.signal.ricker(points, a)`, `A·(1 − x²/a²)·exp(−x²/(2a²))` with
/// `A = 2/(√(3a)·π^¼)` at `x = k − (points − 1)/2`, on `dev`.
///
/// # Errors
/// `InvalidArgument` unless `a` is positive and finite, or for `points` past `isize::MAX` bytes;
/// `OutOfMemory` when the host cannot hold them.
///
/// ```
/// use cusci_signal::{ricker, Device};
/// let w = ricker::<f64>(5, 1.0, &Device::cpu()).unwrap().to_vec().unwrap();
/// assert!((w[2] - 2.0 / (3f64.sqrt() * std::f64::consts::PI.powf(0.25))).abs() < 1e-15);
/// ```
pub fn ricker<T: RealFloat>(points: usize, a: f64, dev: &Device) -> Result<Array<T>> {
    check_pos("ricker", "a", a)?;
    let v = ricker_host("ricker", points as f64, a)?;
    let v: Vec<T> = try_collect("ricker", points, v.into_iter().map(T::from_f64))?;
    Array::from_vec(v, &[points], dev)
}

/// Options of [`morlet`]: SciPy's `w` (default 5.0), `s` (default 1.0), `complete` (default
/// true).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MorletOptions {
    /// The omega0 frequency (default 5.0).
    pub w: f64,
    /// The scaling: the wavelet spans `[−2πs, 2πs]` (default 1.0).
    pub s: f64,
    /// Whether to subtract the correction term `exp(−w²/2)` (default true).
    pub complete: bool,
}

impl Default for MorletOptions {
    fn default() -> Self {
        MorletOptions {
            w: 5.0,
            s: 1.0,
            complete: true,
        }
    }
}

/// The complex Morlet wavelet of `m` points, SciPy ≤ 1.14's `scipy.signal.morlet(M, w, s,
/// complete)`: `(exp(iwx) − [complete]·exp(−w²/2))·exp(−x²/2)·π^−¼` at `m` points of
/// `linspace(−2πs, 2πs)`, on `dev`.
///
/// # Errors
/// `InvalidArgument` for `w` or `s` not finite, or `m` points past `isize::MAX` bytes;
/// `OutOfMemory` when the host cannot hold them.
///
/// ```
/// use cusci_signal::{morlet, MorletOptions, Device};
/// let w = morlet(3, &MorletOptions::default(), &Device::cpu()).unwrap().to_vec().unwrap();
/// assert!((w[1].re - (1.0 - (-12.5f64).exp()) * std::f64::consts::PI.powf(-0.25)).abs() < 1e-15);
/// ```
pub fn morlet(m: usize, opts: &MorletOptions, dev: &Device) -> Result<Array<c64>> {
    let (w, s) = (opts.w, opts.s);
    if !(w.is_finite() && s.is_finite()) {
        return Err(make::arg(
            "morlet",
            format!("w and s must be finite (w {w}, s {s})"),
        ));
    }
    let (start, stop) = (-s * 2.0 * PI, s * 2.0 * PI);
    let step = if m > 1 {
        (stop - start) / (m - 1) as f64
    } else {
        0.0
    };
    let corr = if opts.complete {
        (-0.5 * (w * w)).exp()
    } else {
        0.0
    };
    let v = (0..m).map(|k| {
        let x = if m > 1 && k == m - 1 {
            stop
        } else {
            k as f64 * step + start
        };
        let o = c64::from_polar(1.0, w * x) - corr;
        o * ((-0.5 * (x * x)).exp() * PI.powf(-0.25))
    });
    // allocated fallibly: a huge m is OutOfMemory or InvalidArgument, not an abort
    let v: Vec<c64> = try_collect("morlet", m, v)?;
    Array::from_vec(v, &[m], dev)
}

/// The complex Morlet wavelet for [`cwt`], SciPy ≤ 1.14's `scipy.signal.morlet2(M, s, w)`
/// (SciPy's default `w` is 5): `√(1/s)·exp(iwx)·exp(−x²/2)·π^−¼` at `x = (k − (M−1)/2)/s`,
/// on `dev`.
///
/// # Errors
/// `InvalidArgument` unless `s` is positive and finite and `w` finite, or for `m` points past
/// `isize::MAX` bytes; `OutOfMemory` when the host cannot hold them.
///
/// ```
/// use cusci_signal::{morlet2, Device};
/// let w = morlet2(5, 2.0, 5.0, &Device::cpu()).unwrap().to_vec().unwrap();
/// assert!((w[2].re - (0.5f64).sqrt() * std::f64::consts::PI.powf(-0.25)).abs() < 1e-15);
/// ```
pub fn morlet2(m: usize, s: f64, w: f64, dev: &Device) -> Result<Array<c64>> {
    check_pos("morlet2", "s", s)?;
    if !w.is_finite() {
        return Err(make::arg("morlet2", format!("w must be finite, got {w}")));
    }
    Array::from_vec(morlet2_host("morlet2", m as f64, s, w)?, &[m], dev)
}

/// The wavelet of [`cwt`]: SciPy passes a function `wavelet(points, width)`.
#[derive(Debug, Clone, Copy)]
pub enum CwtWavelet {
    /// [`ricker`]`(points, width)` (real).
    Ricker,
    /// [`morlet2`]`(points, s = width, w)` (complex).
    Morlet2 {
        /// The omega0 frequency (SciPy's default 5).
        w: f64,
    },
    /// Any wavelet: called with the point count (rounded up when `10·width` is fractional) and
    /// the width; it must return that many values.
    Custom(fn(usize, f64) -> Vec<c64>),
}

/// The continuous wavelet transform of the 1-D `data`, SciPy ≤ 1.14's `scipy.signal.cwt(data,
/// wavelet, widths)`: row `i` is `data` convolved (`'same'` size) with the reversed conjugate
/// of `wavelet(min(10·widths[i], len), widths[i])`. Output shape `(widths.len(), len)` on
/// `data`'s device, in `data`'s element type (SciPy returns f64/c128); the sums run in f64
/// (c64) and are rounded once.
///
/// A complex wavelet ([`CwtWavelet::Morlet2`]) needs complex data: convert real data with
/// `astype::<c64>()` (the result is what SciPy gives for the real data).
///
/// # Errors
/// `ShapeMismatch` unless `data` is 1-D; `InvalidArgument` for empty `data` or `widths`, a
/// width that is not positive and finite, a complex wavelet with real data, or a custom
/// wavelet of the wrong length.
///
/// ```
/// use cusci_signal::{cwt, CwtWavelet, Array, Device};
/// let x = Array::from_vec(vec![0.0f64, 0.0, 1.0, 0.0, 0.0], &[5], &Device::cpu()).unwrap();
/// let y = cwt(&x, &CwtWavelet::Ricker, &[1.0]).unwrap();
/// assert_eq!(y.shape(), &[1, 5]);
/// ```
pub fn cwt<T: SignalScalar>(
    data: &Array<T>,
    wavelet: &CwtWavelet,
    widths: &[f64],
) -> Result<Array<T>> {
    let op = "cwt";
    if data.ndim() != 1 {
        return Err(make::shape(
            op,
            format!("data must be one-dimensional, got shape {:?}", data.shape()),
        ));
    }
    let n = data.size();
    if n == 0 {
        return Err(make::arg(op, "data is empty"));
    }
    if widths.is_empty() {
        return Err(make::arg(op, "widths is empty"));
    }
    let complex = matches!(T::DTYPE, DType::C32 | DType::C64);
    let mut wav: Vec<T> = Vec::new();
    let mut off: Vec<i64> = Vec::with_capacity(widths.len());
    let mut len: Vec<i64> = Vec::with_capacity(widths.len());
    for &wd in widths {
        check_pos(op, "every width", wd)?;
        let pts = (10.0 * wd).min(n as f64);
        let count = pts.ceil() as usize;
        let vals: Vec<c64> = match wavelet {
            CwtWavelet::Ricker => ricker_host(op, pts, wd)?
                .into_iter()
                .map(|v| c64::new(v, 0.0))
                .collect(),
            CwtWavelet::Morlet2 { w } => {
                if !w.is_finite() {
                    return Err(make::arg(
                        op,
                        format!("morlet2's w must be finite, got {w}"),
                    ));
                }
                morlet2_host(op, pts, wd, *w)?
            }
            CwtWavelet::Custom(f) => {
                let v = f(count, wd);
                if v.len() != count {
                    return Err(make::arg(
                        op,
                        format!("the wavelet returned {} points for {count}", v.len()),
                    ));
                }
                v
            }
        };
        if !complex && vals.iter().any(|v| v.im != 0.0) {
            return Err(make::arg(
                op,
                "the wavelet is complex: pass complex data (e.g. data.astype::<c64>())",
            ));
        }
        off.push(wav.len() as i64);
        len.push(vals.len() as i64);
        // the correlation kernel: conj(wavelet) in its own order (convolution with the
        // reversed conjugate)
        wav.extend(vals.iter().map(|v| T::from_c64(v.conj())));
    }
    let nw = widths.len();
    match data.backend() {
        Backend::Host(h) => {
            let x = h.try_to_contiguous()?;
            let out: Vec<T> = (0..nw * n)
                .into_par_iter()
                .map(|g| {
                    let (w, i) = (g / n, g % n);
                    let l = len[w];
                    let k = &wav[off[w] as usize..(off[w] + l) as usize];
                    let s = i as i64 - l / 2;
                    let j0 = (-s).max(0);
                    let j1 = (n as i64 - s).min(l);
                    let mut acc = c64::new(0.0, 0.0);
                    for j in j0..j1 {
                        acc += x[(s + j) as usize].to_c64() * k[j as usize].to_c64();
                    }
                    T::from_c64(acc)
                })
                .collect();
            Array::from_vec(out, &[nw, n], data.device())
        }
        Backend::Cuda(c) => {
            let dev = data.device();
            let xc = data.contiguous()?;
            let wa = Array::from_vec(wav.clone(), &[wav.len()], dev)?;
            let oa = Array::from_vec(off, &[nw], dev)?;
            let la = Array::from_vec(len, &[nw], dev)?;
            let mut y = Array::<T>::empty(&[nw, n], dev)?;
            let d = c.dev();
            let f = typed_kernel(&WAVELETS, d, T::DTYPE, "cwt")?;
            d.launch(&f, LaunchConfig::cover(nw * n, 256)?)
                .arg(xc.dev_ptr()?)
                .arg(n as i64)
                .arg(wa.dev_ptr()?)
                .arg(oa.dev_ptr()?)
                .arg(la.dev_ptr()?)
                .arg(nw as i64)
                .arg(y.dev_ptr_mut()?)
                .run()?;
            Ok(y)
        }
    }
}
