//! FIR filtering along one axis with a table of taps and ndimage-style boundary modes: the
//! engine of [`savgol_filter`] (with its `'interp'` edges) and [`sepfir2d`], plus the host
//! design function [`savgol_coeffs`]. One CUDA thread per output (`axisfir.cu`); rayon over
//! output lines on the CPU.

use crate::procutil::{
    each_dtype, from_f64, split_axis, typed_kernel, typed_source, SignalScalar, DEF_TZERO,
    SIGNAL_DTYPES,
};
use cusci_core::array::check_same_device;
use cusci_core::array::layout::{checked_bytes, norm_axis};
use cusci_core::error::make;
use cusci_core::host::{check_request, try_vec_zeroed};
use cusci_core::{Array, Backend, KernelModule, LaunchConfig, RealFloat, Result};
use rayon::prelude::*;

const SRC: &str = include_str!("axisfir.cu");

/// The table FIR's kernel (`axisfir.cu`), one module per element type.
pub(crate) static AXISFIR: KernelModule = KernelModule {
    name: "signal_axisfir",
    source: |s| typed_source("signal_axisfir", s, &[DEF_TZERO], SRC),
    options: &[],
    samples: || each_dtype(&SIGNAL_DTYPES),
};

/// The boundary extension of [`savgol_filter`] (`mode=`; the `scipy.ndimage` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SavgolMode {
    /// Fit a polynomial to the first/last `window_length` samples and evaluate it there
    /// (SciPy's default).
    #[default]
    Interp,
    /// `d c b | a b c d | c b a`.
    Mirror,
    /// `cval` beyond the ends.
    Constant,
    /// `a a a | a b c d | d d d`.
    Nearest,
    /// `b c d | a b c d | a b c`.
    Wrap,
}

/// How the engine extends the signal (kernel codes 0..4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ext {
    Constant = 0,
    Mirror = 1,
    Nearest = 2,
    Wrap = 3,
    Reflect = 4,
}

fn map_index(j: i64, n: i64, mode: Ext) -> Option<usize> {
    if (0..n).contains(&j) {
        return Some(j as usize);
    }
    Some(match mode {
        Ext::Constant => return None,
        Ext::Nearest => {
            if j < 0 {
                0
            } else {
                n as usize - 1
            }
        }
        Ext::Wrap => j.rem_euclid(n) as usize,
        Ext::Mirror => {
            if n == 1 {
                0
            } else {
                let p = 2 * n - 2;
                let r = j.rem_euclid(p);
                (if r >= n { p - r } else { r }) as usize
            }
        }
        Ext::Reflect => {
            let p = 2 * n;
            let r = j.rem_euclid(p);
            (if r >= n { p - 1 - r } else { r }) as usize
        }
    })
}

/// A table FIR ([`table_fir`]): `table` holds rows of `m` dot-form taps; output `i` uses row
/// `centre` on the window starting at `i - lead` (extended by `mode`, `cval` beyond the ends
/// for [`Ext::Constant`]), except with `interp = Some(h)`: the first `h` outputs use rows
/// `0..h` on the first `m` samples, the last `h` rows `m-h..m` on the last `m` samples (needs
/// `m <= n`).
pub(crate) struct TableFir<'a, T> {
    pub(crate) table: &'a [T],
    pub(crate) m: usize,
    pub(crate) centre: usize,
    pub(crate) lead: usize,
    pub(crate) interp: Option<usize>,
    pub(crate) mode: Ext,
    pub(crate) cval: T,
}

impl<'a, T: SignalScalar> TableFir<'a, T> {
    /// One row of `taps` applied around each sample (`lead` samples before it), the signal
    /// extended by `mode` with zeros beyond the ends for [`Ext::Constant`].
    fn centred(taps: &'a [T], mode: Ext) -> Self {
        TableFir {
            table: taps,
            m: taps.len(),
            centre: 0,
            lead: taps.len() / 2,
            interp: None,
            mode,
            cval: T::zero(),
        }
    }
}

/// Filters `x` along `axis` with the table FIR `fir`.
pub(crate) fn table_fir<T: SignalScalar>(
    x: &Array<T>,
    axis: usize,
    fir: &TableFir<'_, T>,
) -> Result<Array<T>> {
    let TableFir {
        table,
        m,
        centre,
        lead,
        interp,
        mode,
        cval,
    } = *fir;
    let (outer, n, inner) = split_axis(x.shape(), axis);
    if x.is_empty() {
        return x.copy();
    }
    match x.backend() {
        Backend::Host(h) => {
            let xd = h.try_to_contiguous()?;
            let mut y = vec![T::zero(); x.size()];
            let h = interp.unwrap_or(0);
            y.par_chunks_mut(n * inner).enumerate().for_each(|(o, yo)| {
                let xo = &xd[o * n * inner..(o + 1) * n * inner];
                for i in 0..n {
                    let (row, s) = if interp.is_some() && i < h {
                        (i, 0i64)
                    } else if interp.is_some() && i >= n - h {
                        (i - (n - m), (n - m) as i64)
                    } else {
                        (centre, i as i64 - lead as i64)
                    };
                    let w = &table[row * m..(row + 1) * m];
                    for inn in 0..inner {
                        let mut acc = T::zero();
                        for (j, &wj) in w.iter().enumerate() {
                            let v = match map_index(s + j as i64, n as i64, mode) {
                                Some(q) => xo[q * inner + inn],
                                None => cval,
                            };
                            acc += wj * v;
                        }
                        yo[i * inner + inn] = acc;
                    }
                }
            });
            Array::from_vec(y, x.shape(), x.device())
        }
        Backend::Cuda(c) => {
            let xc = x.contiguous()?;
            let mut tab = table.to_vec();
            tab.push(cval);
            let ntab = table.len();
            let w = Array::from_vec(tab, &[ntab + 1], x.device())?;
            let mut y = Array::<T>::empty(x.shape(), x.device())?;
            let d = c.dev();
            let f = typed_kernel(&AXISFIR, d, T::DTYPE, "table_fir")?;
            d.launch(&f, LaunchConfig::cover(x.size(), 256)?)
                .arg(xc.dev_ptr()?)
                .arg(y.dev_ptr_mut()?)
                .arg(w.dev_ptr()?)
                .arg(outer as i64)
                .arg(n as i64)
                .arg(inner as i64)
                .arg(m as i32)
                .arg(centre as i32)
                .arg(lead as i32)
                .arg(interp.is_some() as i32)
                .arg(interp.unwrap_or(0) as i32)
                .arg(mode as i32)
                .arg(ntab as i64)
                .run()?;
            Ok(y)
        }
    }
}

/// The optional arguments of [`savgol_coeffs`].
///
/// ```
/// let o = cusci_signal::SavgolCoeffsOptions::default();
/// assert_eq!((o.deriv, o.delta, o.pos, o.use_dot), (0, 1.0, None, false));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SavgolCoeffsOptions {
    /// The derivative order. Default 0.
    pub deriv: usize,
    /// The sample spacing (used when `deriv > 0`). Default 1.
    pub delta: f64,
    /// The evaluation point in the window. Default: the centre (`(window_length - 1) / 2`).
    pub pos: Option<f64>,
    /// `use='dot'` (taps in window order) instead of SciPy's default `'conv'` (reversed).
    pub use_dot: bool,
}

impl Default for SavgolCoeffsOptions {
    fn default() -> Self {
        SavgolCoeffsOptions {
            deriv: 0,
            delta: 1.0,
            pos: None,
            use_dot: false,
        }
    }
}

/// The Savitzky-Golay FIR taps, SciPy's
/// `scipy.signal.savgol_coeffs(window_length, polyorder, deriv, delta, pos, use)`: the
/// minimum-norm least-squares solution of the Vandermonde system of the window, computed on the
/// host in f64 (rows scaled to unit range, then modified Gram-Schmidt twice: no squared
/// condition number). `deriv > polyorder` gives zeros, as SciPy.
///
/// # Errors
/// `InvalidArgument` for `window_length == 0`, `polyorder >= window_length`, `pos` outside
/// `[0, window_length)`, a non-finite or zero `delta`, or taps past `isize::MAX` bytes;
/// `OutOfMemory` when the host cannot hold the least-squares working set (SciPy: MemoryError).
///
/// ```
/// use cusci_signal::{savgol_coeffs, SavgolCoeffsOptions};
/// let c = savgol_coeffs(5, 2, &SavgolCoeffsOptions::default()).unwrap();
/// assert!((c[2] - 17.0 / 35.0).abs() < 1e-14);
/// ```
pub fn savgol_coeffs(
    window_length: usize,
    polyorder: usize,
    opts: &SavgolCoeffsOptions,
) -> Result<Vec<f64>> {
    let op = "savgol_coeffs";
    let m = window_length;
    if m == 0 || polyorder >= m {
        return Err(make::arg(
            op,
            format!("polyorder ({polyorder}) must be less than window_length ({m})"),
        ));
    }
    if !(opts.delta.is_finite() && opts.delta != 0.0) {
        return Err(make::arg(op, "delta must be finite and non-zero"));
    }
    let pos = opts.pos.unwrap_or((m as f64 - 1.0) / 2.0);
    if !(pos >= 0.0 && pos < m as f64) {
        return Err(make::arg(
            op,
            format!("pos ({pos}) must be nonnegative and less than window_length ({m})"),
        ));
    }
    // the taps' bytes checked, and the least-squares working set (the positions, polyorder + 1
    // orthonormal rows of the window and the taps; SciPy's Vandermonde matrix is as large)
    // asked of the host first: a huge window is OutOfMemory (SciPy: MemoryError) or
    // InvalidArgument past isize::MAX bytes, not an abort
    let taps = checked_bytes(op, m, std::mem::size_of::<f64>())?;
    let mut c = if opts.deriv > polyorder {
        try_vec_zeroed(op, m)?
    } else {
        check_request(taps.saturating_mul(polyorder.saturating_add(4)))?;
        lstsq_coeffs(m, polyorder, opts.deriv, opts.delta, pos)
    };
    if !opts.use_dot {
        c.reverse();
    }
    Ok(c)
}

/// Dot-form taps for evaluation point `pos` (see [`savgol_coeffs`]).
fn lstsq_coeffs(m: usize, p: usize, deriv: usize, delta: f64, pos: f64) -> Vec<f64> {
    let r = p + 1;
    let t: Vec<f64> = (0..m).map(|j| j as f64 - pos).collect();
    let s = t.iter().fold(1.0f64, |a, v| a.max(v.abs()));
    // rows of the scaled Vandermonde matrix, orthonormalised (Q: r vectors of length m)
    let mut q: Vec<Vec<f64>> = Vec::with_capacity(r);
    // rt[k][i]: the coefficient of q_i in row k (R transposed, lower triangular)
    let mut rt: Vec<Vec<f64>> = Vec::with_capacity(r);
    for k in 0..r {
        let mut v: Vec<f64> = t.iter().map(|tj| (tj / s).powi(k as i32)).collect();
        let mut rk = vec![0.0; r];
        for _ in 0..2 {
            for (i, qi) in q.iter().enumerate() {
                let d: f64 = qi.iter().zip(&v).map(|(a, b)| a * b).sum();
                rk[i] += d;
                v.iter_mut().zip(qi).for_each(|(a, b)| *a -= d * b);
            }
        }
        let nrm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
        rk[k] = nrm;
        v.iter_mut().for_each(|a| *a /= nrm);
        q.push(v);
        rt.push(rk);
    }
    // rhs: deriv! / delta^deriv at row `deriv`, scaled by 1 / s^deriv
    let mut y = vec![0.0; r];
    let fact: f64 = (1..=deriv).map(|v| v as f64).product();
    y[deriv] = fact / delta.powi(deriv as i32) / s.powi(deriv as i32);
    // R^T z = y (forward substitution), c = Q z
    let mut z: Vec<f64> = Vec::with_capacity(r);
    for (k, row) in rt.iter().enumerate() {
        let acc: f64 = row[..k].iter().zip(&z).map(|(a, b)| a * b).sum();
        z.push((y[k] - acc) / row[k]);
    }
    (0..m)
        .map(|j| (0..r).map(|k| q[k][j] * z[k]).sum())
        .collect()
}

/// The optional arguments of [`savgol_filter`].
///
/// ```
/// let o = cusci_signal::SavgolOptions::default();
/// assert_eq!((o.deriv, o.delta, o.axis, o.cval), (0, 1.0, -1, 0.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SavgolOptions {
    /// The derivative order. Default 0.
    pub deriv: usize,
    /// The sample spacing. Default 1.
    pub delta: f64,
    /// The axis. Default `-1`.
    pub axis: isize,
    /// The boundary mode. Default [`SavgolMode::Interp`].
    pub mode: SavgolMode,
    /// The fill value of [`SavgolMode::Constant`]. Default 0.
    pub cval: f64,
}

impl Default for SavgolOptions {
    fn default() -> Self {
        SavgolOptions {
            deriv: 0,
            delta: 1.0,
            axis: -1,
            mode: SavgolMode::Interp,
            cval: 0.0,
        }
    }
}

/// Savitzky-Golay smoothing (or differentiation) along an axis, SciPy's
/// `scipy.signal.savgol_filter(x, window_length, polyorder, deriv, delta, axis, mode, cval)`:
/// the taps of [`savgol_coeffs`] applied as `ndimage.convolve1d` does (odd and even windows),
/// with the `'interp'` edges as the polynomial fitted to the first/last `window_length` samples
/// (evaluated through `savgol_coeffs(..., pos=t, use='dot')`, the same fit). Every signal in one
/// kernel launch on the GPU.
///
/// # Errors
/// Those of [`savgol_coeffs`]; `InvalidArgument` for `Interp` with `window_length` longer than
/// the axis, a non-finite `cval`, or a bad axis.
///
/// ```
/// use cusci_signal::{savgol_filter, SavgolOptions, Array, Device};
/// let x = Array::from_vec(vec![0.0f64, 1.0, 4.0, 9.0, 16.0, 25.0], &[6], &Device::cpu()).unwrap();
/// let y = savgol_filter(&x, 5, 2, &SavgolOptions::default()).unwrap().to_vec().unwrap();
/// assert!((y[5] - 25.0).abs() < 1e-12); // a quadratic is reproduced exactly
/// ```
pub fn savgol_filter<T: SignalScalar + RealFloat>(
    x: &Array<T>,
    window_length: usize,
    polyorder: usize,
    opts: &SavgolOptions,
) -> Result<Array<T>> {
    let op = "savgol_filter";
    let axis = norm_axis(op, opts.axis, x.ndim())?;
    let m = window_length;
    let co = SavgolCoeffsOptions {
        deriv: opts.deriv,
        delta: opts.delta,
        pos: None,
        use_dot: true,
    };
    let centre = savgol_coeffs(m, polyorder, &co)?;
    if !opts.cval.is_finite() {
        return Err(make::arg(op, "cval must be finite"));
    }
    let n = x.shape()[axis];
    let lead = m - 1 - m / 2;
    let mut table: Vec<T> = Vec::with_capacity((m + 1) * m);
    let (interp, mode) = match opts.mode {
        SavgolMode::Interp => {
            if m > n {
                return Err(make::arg(
                    op,
                    format!(
                        "with mode interp, window_length ({m}) must not exceed the axis length ({n})"
                    ),
                ));
            }
            for p in 0..m {
                let c = savgol_coeffs(
                    m,
                    polyorder,
                    &SavgolCoeffsOptions {
                        pos: Some(p as f64),
                        ..co
                    },
                )?;
                table.extend(c.into_iter().map(from_f64::<T>));
            }
            (Some(m / 2), Ext::Constant)
        }
        SavgolMode::Mirror => (None, Ext::Mirror),
        SavgolMode::Constant => (None, Ext::Constant),
        SavgolMode::Nearest => (None, Ext::Nearest),
        SavgolMode::Wrap => (None, Ext::Wrap),
    };
    let row = table.len() / m;
    table.extend(centre.into_iter().map(from_f64::<T>));
    let fir = TableFir {
        table: &table,
        m,
        centre: row,
        lead,
        interp,
        mode,
        cval: from_f64::<T>(opts.cval),
    };
    table_fir(x, axis, &fir)
}

/// Two-dimensional separable FIR filtering with mirror-symmetric boundaries, SciPy's
/// `scipy.signal.sepfir2d(input, hrow, hcol)`: `hrow` convolved along the last axis, then `hcol`
/// along the first (`ndimage.convolve1d(..., mode='reflect')` on each; `c b a | a b c`).
/// Inputs with leading axes are batches of images. SciPy reads out of bounds for images
/// shorter than half a filter; here the reflection simply repeats.
///
/// # Errors
/// `ShapeMismatch` for an input with fewer than 2 dimensions or filters that are not 1-D;
/// `InvalidArgument` for even or empty filters or non-finite taps; `DeviceMismatch`.
///
/// ```
/// use cusci_signal::{sepfir2d, Array, Device};
/// let d = Device::cpu();
/// let x = Array::from_vec(vec![1.0f64; 12], &[3, 4], &d).unwrap();
/// let h = Array::from_vec(vec![0.25f64, 0.5, 0.25], &[3], &d).unwrap();
/// let y = sepfir2d(&x, &h, &h).unwrap().to_vec().unwrap();
/// assert!(y.iter().all(|v| (v - 1.0).abs() < 1e-12));
/// ```
pub fn sepfir2d<T: SignalScalar>(
    input: &Array<T>,
    hrow: &Array<T>,
    hcol: &Array<T>,
) -> Result<Array<T>> {
    let op = "sepfir2d";
    if input.ndim() < 2 || hrow.ndim() != 1 || hcol.ndim() != 1 {
        return Err(make::shape(
            op,
            format!(
                "a 2-D input and 1-D filters expected, got {:?}, {:?}, {:?}",
                input.shape(),
                hrow.shape(),
                hcol.shape()
            ),
        ));
    }
    check_same_device(op, input.device(), hrow.device())?;
    check_same_device(op, input.device(), hcol.device())?;
    let taps = |h: &Array<T>| -> Result<Vec<T>> {
        let v = h.to_vec()?;
        if v.is_empty() || v.len() % 2 == 0 {
            return Err(make::arg(op, "hrow and hcol must be odd length"));
        }
        if v.iter().any(|t| !t.is_finite_val()) {
            return Err(make::arg(op, "the filters must be finite"));
        }
        // convolution -> dot form
        Ok(v.into_iter().rev().collect())
    };
    let (tr, tc) = (taps(hrow)?, taps(hcol)?);
    let nd = input.ndim();
    let y = table_fir(input, nd - 1, &TableFir::centred(&tr, Ext::Reflect))?;
    table_fir(&y, nd - 2, &TableFir::centred(&tc, Ext::Reflect))
}
