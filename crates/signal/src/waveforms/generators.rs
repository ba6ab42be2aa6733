//! Waveforms (SciPy's `scipy.signal` waveform generators): [`chirp`], [`gausspulse`],
//! [`sawtooth`], [`square`], [`sweep_poly`] evaluated at the sample times of an array, on its
//! device; [`unit_impulse`] on a chosen device and [`max_len_seq`] on the host.
//!
//! Every value is computed in `f64` and rounded to the element type once (SciPy computes in the
//! array's type: f32 inputs can differ from SciPy's by a few f32 ulps of the phase).

use crate::procutil::{each_dtype, typed_kernel, typed_source, REAL_DTYPES};
use cusci_core::array::layout::checked_shape;
use cusci_core::error::make;
use cusci_core::host::try_vec_zeroed;
use cusci_core::{
    Array, Backend, CudaDevice, Device, Element, Function, KernelModule, LaunchConfig, RealFloat,
    Result,
};
use rayon::prelude::*;
use std::f64::consts::PI;

const SRC: &str = include_str!("waveforms.cu");

/// The waveform kernels (`waveforms.cu`) for a real type.
pub(crate) static WAVEFORMS: KernelModule = KernelModule {
    name: "signal_waveforms",
    source: |s| typed_source("signal_waveforms", s, &[], SRC),
    options: &[],
    samples: || each_dtype(&REAL_DTYPES),
};

fn kernel<T: Element>(d: &CudaDevice, name: &str) -> Result<Function> {
    typed_kernel(&WAVEFORMS, d, T::DTYPE, name)
}

const K_LINEAR: i32 = 0;
const K_QUADRATIC: i32 = 1;
const K_QUADRATIC_VZ: i32 = 2;
const K_LOG: i32 = 3;
const K_HYPERBOLIC: i32 = 4;
const K_CONST: i32 = 5;
const K_GAUSS: i32 = 6;
const K_SAWTOOTH: i32 = 7;
const K_SQUARE: i32 = 8;
const K_POLY: i32 = 9;

/// NumPy's `mod` for a positive divisor (the result takes the divisor's sign).
fn np_mod(a: f64, b: f64) -> f64 {
    let m = a % b;
    if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
        m + b
    } else {
        m
    }
}

/// One sample of waveform `kind` at time `t`: (value, quadrature, envelope).
fn point(kind: i32, p: &[f64; 4], coef: &[f64], t: f64) -> (f64, f64, f64) {
    let [p0, p1, p2, p3] = *p;
    match kind {
        K_GAUSS => {
            let env = (-p1 * t * t).exp();
            let w = 2.0 * PI * p0 * t;
            (env * w.cos(), env * w.sin(), env)
        }
        K_SAWTOOTH | K_SQUARE => {
            if !(0.0..=1.0).contains(&p0) {
                return (f64::NAN, 0.0, 0.0);
            }
            let m = np_mod(t, 2.0 * PI);
            let v = if kind == K_SAWTOOTH {
                if m < p0 * 2.0 * PI {
                    m / (PI * p0) - 1.0
                } else {
                    (PI * (p0 + 1.0) - m) / (PI * (1.0 - p0))
                }
            } else if m < p0 * 2.0 * PI {
                1.0
            } else {
                -1.0
            };
            (v, 0.0, 0.0)
        }
        _ => {
            let ph = match kind {
                K_LINEAR => {
                    let beta = (p2 - p0) / p1;
                    2.0 * PI * (p0 * t + 0.5 * beta * t * t)
                }
                K_QUADRATIC => {
                    let beta = (p2 - p0) / (p1 * p1);
                    let d = p1 - t;
                    2.0 * PI * (p2 * t + beta * (d * d * d - p1 * p1 * p1) / 3.0)
                }
                K_QUADRATIC_VZ => {
                    let beta = (p2 - p0) / (p1 * p1);
                    2.0 * PI * (p0 * t + beta * t * t * t / 3.0)
                }
                K_LOG => {
                    let beta = p1 / (p2 / p0).ln();
                    2.0 * PI * beta * p0 * ((p2 / p0).powf(t / p1) - 1.0)
                }
                K_HYPERBOLIC => {
                    let sing = -p2 * p1 / (p0 - p2);
                    2.0 * PI * (-sing * p0) * (1.0 - t / sing).abs().ln()
                }
                K_CONST => 2.0 * PI * p0 * t,
                _ => 2.0 * PI * coef.iter().fold(0.0, |acc, &c| acc * t + c),
            };
            ((ph + p3).cos(), 0.0, 0.0)
        }
    }
}

/// (value, quadrature, envelope) arrays of [`eval`].
type Waves<T> = (Array<T>, Option<Array<T>>, Option<Array<T>>);

/// Evaluates waveform `kind` at every element of `t` on its device; the quadrature and envelope
/// outputs only when asked.
fn eval<T: RealFloat>(
    op: &str,
    t: &Array<T>,
    kind: i32,
    p: [f64; 4],
    coef: &[f64],
    quad: bool,
    env: bool,
) -> Result<Waves<T>> {
    let _ = op;
    let n = t.size();
    match t.backend() {
        Backend::Host(h) => {
            let td = h.try_to_contiguous()?;
            let vals: Vec<(f64, f64, f64)> = td
                .par_iter()
                .map(|&x| point(kind, &p, coef, x.to_f64()))
                .collect();
            let mk = |f: fn(&(f64, f64, f64)) -> f64| {
                Array::from_vec(
                    vals.iter().map(|v| T::from_f64(f(v))).collect(),
                    t.shape(),
                    t.device(),
                )
            };
            let y = mk(|v| v.0)?;
            let yq = if quad { Some(mk(|v| v.1)?) } else { None };
            let ye = if env { Some(mk(|v| v.2)?) } else { None };
            Ok((y, yq, ye))
        }
        Backend::Cuda(cu) => {
            let tc = t.contiguous()?;
            let mut y = Array::<T>::empty(t.shape(), t.device())?;
            let mut yq = if quad {
                Some(Array::<T>::empty(t.shape(), t.device())?)
            } else {
                None
            };
            let mut ye = if env {
                Some(Array::<T>::empty(t.shape(), t.device())?)
            } else {
                None
            };
            let c = if coef.is_empty() {
                None
            } else {
                Some(Array::<f64>::from_slice(coef, &[coef.len()], t.device())?)
            };
            if n > 0 {
                let d = cu.dev();
                let yqp = yq.as_mut().map(|a| a.dev_ptr_mut()).transpose()?;
                let yep = ye.as_mut().map(|a| a.dev_ptr_mut()).transpose()?;
                d.launch(&kernel::<T>(d, "wave")?, LaunchConfig::cover(n, 256)?)
                    .arg(tc.dev_ptr()?)
                    .arg(y.dev_ptr_mut()?)
                    .arg(yqp)
                    .arg(yep)
                    .arg(n as i64)
                    .arg(kind)
                    .arg(p[0])
                    .arg(p[1])
                    .arg(p[2])
                    .arg(p[3])
                    .arg(c.as_ref().map(Array::dev_ptr).transpose()?)
                    .arg(coef.len() as i32)
                    .run()?;
            }
            Ok((y, yq, ye))
        }
    }
}

/// The frequency law of [`chirp`] (SciPy's `method` strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChirpMethod {
    /// `'linear'`: f(t) = f0 + (f1 − f0)·t/t1.
    #[default]
    Linear,
    /// `'quadratic'`: a parabola through (0, f0) and (t1, f1), vertex at t1 (or at 0 with
    /// `vertex_zero`).
    Quadratic,
    /// `'logarithmic'`: f(t) = f0·(f1/f0)^(t/t1).
    Logarithmic,
    /// `'hyperbolic'`: f(t) = f0·f1·t1 / ((f0 − f1)·t + f1·t1).
    Hyperbolic,
}

/// Options of [`chirp`]: SciPy's `method`, `phi` (degrees) and `vertex_zero`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChirpOptions {
    /// The frequency law (default linear).
    pub method: ChirpMethod,
    /// Phase offset in degrees (default 0).
    pub phi: f64,
    /// For the quadratic law: the parabola's vertex at t = 0 (default true) instead of t1.
    pub vertex_zero: bool,
}

impl Default for ChirpOptions {
    fn default() -> Self {
        ChirpOptions {
            method: ChirpMethod::Linear,
            phi: 0.0,
            vertex_zero: true,
        }
    }
}

/// A frequency-swept cosine `cos(2π ∫f(t)dt + phi)` at the times `t` (SciPy's
/// `scipy.signal.chirp(t, f0, t1, f1, method, phi, vertex_zero)`), on `t`'s device.
///
/// # Errors
/// `InvalidArgument` for a logarithmic chirp unless f0·f1 > 0, for a hyperbolic chirp with
/// f0 or f1 zero (SciPy's `ValueError`s), and for a linear or quadratic chirp with t1 = 0
/// (SciPy's `ZeroDivisionError`).
///
/// ```
/// use cusci_signal::{chirp, Array, ChirpOptions, Device};
/// let t = Array::from_vec(vec![0.0f64, 0.25], &[2], &Device::cpu()).unwrap();
/// let y = chirp(&t, 1.0, 1.0, 1.0, &ChirpOptions::default()).unwrap().to_vec().unwrap();
/// assert!((y[0] - 1.0).abs() < 1e-15 && y[1].abs() < 1e-15);
/// ```
pub fn chirp<T: RealFloat>(
    t: &Array<T>,
    f0: f64,
    t1: f64,
    f1: f64,
    opts: &ChirpOptions,
) -> Result<Array<T>> {
    let op = "chirp";
    if t1 == 0.0 && matches!(opts.method, ChirpMethod::Linear | ChirpMethod::Quadratic) {
        // SciPy divides by t1 (or t1²) in Python floats: ZeroDivisionError
        return Err(make::arg(
            op,
            "t1 must be nonzero for a linear or quadratic chirp",
        ));
    }
    let kind = match opts.method {
        ChirpMethod::Linear => K_LINEAR,
        ChirpMethod::Quadratic if opts.vertex_zero => K_QUADRATIC_VZ,
        ChirpMethod::Quadratic => K_QUADRATIC,
        ChirpMethod::Logarithmic => {
            if f0 * f1 <= 0.0 || f0.is_nan() || f1.is_nan() {
                return Err(make::arg(
                    op,
                    "for a logarithmic chirp, f0 and f1 must be nonzero and have the same sign",
                ));
            }
            if f0 == f1 {
                K_CONST
            } else {
                K_LOG
            }
        }
        ChirpMethod::Hyperbolic => {
            if f0 == 0.0 || f1 == 0.0 {
                return Err(make::arg(
                    op,
                    "for a hyperbolic chirp, f0 and f1 must be nonzero",
                ));
            }
            if f0 == f1 {
                K_CONST
            } else {
                K_HYPERBOLIC
            }
        }
    };
    let phi = opts.phi * PI / 180.0;
    Ok(eval(op, t, kind, [f0, t1, f1, phi], &[], false, false)?.0)
}

/// A cosine whose phase is `2π ∫poly(t)dt + phi` (SciPy's `scipy.signal.sweep_poly(t, poly,
/// phi)`): `poly` holds the instantaneous frequency's coefficients, highest power first (an
/// empty slice is the zero polynomial); `phi` is in degrees.
///
/// ```
/// use cusci_signal::{sweep_poly, Array, Device};
/// let t = Array::from_vec(vec![0.5f64], &[1], &Device::cpu()).unwrap();
/// // f(t) = 1: phase 2π·0.5 = π
/// assert!((sweep_poly(&t, &[1.0], 0.0).unwrap().to_vec().unwrap()[0] + 1.0).abs() < 1e-15);
/// ```
pub fn sweep_poly<T: RealFloat>(t: &Array<T>, poly: &[f64], phi: f64) -> Result<Array<T>> {
    let d = poly.len();
    let mut coef: Vec<f64> = poly
        .iter()
        .enumerate()
        .map(|(k, &c)| c / (d - k) as f64)
        .collect();
    coef.push(0.0);
    Ok(eval(
        "sweep_poly",
        t,
        K_POLY,
        [0.0, 0.0, 0.0, phi * PI / 180.0],
        &coef,
        false,
        false,
    )?
    .0)
}

/// Options of [`gausspulse`]: SciPy's `fc`, `bw`, `bwr`, `retquad`, `retenv`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GaussPulseOptions {
    /// Centre frequency in Hz (default 1000).
    pub fc: f64,
    /// Fractional bandwidth in the frequency domain (default 0.5).
    pub bw: f64,
    /// Reference level in dB at which `bw` is measured (default −6).
    pub bwr: f64,
    /// Also return the quadrature (sine) part (default false).
    pub retquad: bool,
    /// Also return the envelope (default false).
    pub retenv: bool,
}

impl Default for GaussPulseOptions {
    fn default() -> Self {
        GaussPulseOptions {
            fc: 1000.0,
            bw: 0.5,
            bwr: -6.0,
            retquad: false,
            retenv: false,
        }
    }
}

/// The outputs of [`gausspulse`]: the in-phase part, and the quadrature part and envelope when
/// asked for.
#[derive(Debug, Clone)]
pub struct GaussPulse<T: Element> {
    /// `yI = env·cos(2π fc t)`.
    pub yi: Array<T>,
    /// `yQ = env·sin(2π fc t)` (with `retquad`).
    pub yq: Option<Array<T>>,
    /// `env = exp(−a t²)` (with `retenv`).
    pub yenv: Option<Array<T>>,
}

fn gauss_a(op: &str, fc: f64, bw: f64, bwr: f64) -> Result<f64> {
    if fc < 0.0 {
        return Err(make::arg(
            op,
            format!("center frequency (fc={fc:.2}) must be >=0"),
        ));
    }
    if bw <= 0.0 {
        return Err(make::arg(
            op,
            format!("fractional bandwidth (bw={bw:.2}) must be > 0"),
        ));
    }
    if bwr >= 0.0 {
        return Err(make::arg(
            op,
            format!("reference level for bandwidth (bwr={bwr:.2}) must be < 0 dB"),
        ));
    }
    let r = 10f64.powf(bwr / 20.0);
    Ok(-(PI * fc * bw).powi(2) / (4.0 * r.ln()))
}

/// A Gaussian-modulated sinusoid at the times `t` (SciPy's `scipy.signal.gausspulse(t, fc, bw,
/// bwr, retquad=, retenv=)`), on `t`'s device. For `t='cutoff'` see [`gausspulse_cutoff`].
///
/// # Errors
/// `InvalidArgument` for fc < 0, bw ≤ 0 or bwr ≥ 0.
///
/// ```
/// use cusci_signal::{gausspulse, Array, Device, GaussPulseOptions};
/// let t = Array::from_vec(vec![0.0f64], &[1], &Device::cpu()).unwrap();
/// let g = gausspulse(&t, &GaussPulseOptions::default()).unwrap();
/// assert_eq!(g.yi.to_vec().unwrap(), vec![1.0]);
/// ```
pub fn gausspulse<T: RealFloat>(t: &Array<T>, opts: &GaussPulseOptions) -> Result<GaussPulse<T>> {
    let a = gauss_a("gausspulse", opts.fc, opts.bw, opts.bwr)?;
    let (yi, yq, yenv) = eval(
        "gausspulse",
        t,
        K_GAUSS,
        [opts.fc, a, 0.0, 0.0],
        &[],
        opts.retquad,
        opts.retenv,
    )?;
    Ok(GaussPulse { yi, yq, yenv })
}

/// The time at which [`gausspulse`]'s envelope falls to `tpr` dB (SciPy's `gausspulse('cutoff',
/// fc, bw, bwr, tpr)`).
///
/// # Errors
/// As [`gausspulse`], and `InvalidArgument` for tpr ≥ 0.
pub fn gausspulse_cutoff(fc: f64, bw: f64, bwr: f64, tpr: f64) -> Result<f64> {
    let op = "gausspulse";
    let a = gauss_a(op, fc, bw, bwr)?;
    if tpr >= 0.0 {
        return Err(make::arg(
            op,
            "reference level for time cutoff must be < 0 dB",
        ));
    }
    let tref = 10f64.powf(tpr / 20.0);
    Ok((-tref.ln() / a).sqrt())
}

/// A sawtooth (triangle for `width` = 0.5) wave of period 2π at the times `t` (SciPy's
/// `scipy.signal.sawtooth(t, width)`): rising from −1 to 1 on [0, 2π·width), falling back on
/// [2π·width, 2π). A `width` outside [0, 1] gives NaN everywhere, as SciPy does.
///
/// ```
/// use cusci_signal::{sawtooth, Array, Device};
/// let t = Array::from_vec(vec![0.0f64, std::f64::consts::PI], &[2], &Device::cpu()).unwrap();
/// assert_eq!(sawtooth(&t, 1.0).unwrap().to_vec().unwrap(), vec![-1.0, 0.0]);
/// ```
pub fn sawtooth<T: RealFloat>(t: &Array<T>, width: f64) -> Result<Array<T>> {
    Ok(eval(
        "sawtooth",
        t,
        K_SAWTOOTH,
        [width, 0.0, 0.0, 0.0],
        &[],
        false,
        false,
    )?
    .0)
}

/// A square wave of period 2π at the times `t` (SciPy's `scipy.signal.square(t, duty)`): 1 on
/// [0, 2π·duty), −1 after; a `duty` outside [0, 1] gives NaN everywhere, as SciPy does.
///
/// ```
/// use cusci_signal::{square, Array, Device};
/// let t = Array::from_vec(vec![0.0f64, 4.0], &[2], &Device::cpu()).unwrap();
/// assert_eq!(square(&t, 0.5).unwrap().to_vec().unwrap(), vec![1.0, -1.0]);
/// ```
pub fn square<T: RealFloat>(t: &Array<T>, duty: f64) -> Result<Array<T>> {
    Ok(eval(
        "square",
        t,
        K_SQUARE,
        [duty, 0.0, 0.0, 0.0],
        &[],
        false,
        false,
    )?
    .0)
}

/// Where [`unit_impulse`] puts its 1 (SciPy's `idx`: None, `'mid'`, or indices).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ImpulseIndex {
    /// The first element (SciPy's `idx=None`).
    #[default]
    First,
    /// The middle of every axis, `shape[i] // 2` (SciPy's `'mid'`).
    Mid,
    /// The same index along every axis (SciPy's integer `idx`; negative counts from the end).
    All(isize),
    /// One index per axis (SciPy's tuple `idx`; negative counts from the end).
    At(Vec<isize>),
}

/// An array of `shape` on `dev` with a single 1 at `idx` and zeros elsewhere (SciPy's
/// `scipy.signal.unit_impulse(shape, idx, dtype)`).
///
/// # Errors
/// `InvalidArgument` for an index out of bounds or of the wrong length, or a shape past
/// `isize::MAX` bytes; `OutOfMemory` when the array cannot be held.
///
/// ```
/// use cusci_signal::{unit_impulse, Device, ImpulseIndex};
/// let y = unit_impulse::<f64>(&[5], &ImpulseIndex::Mid, &Device::cpu()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![0.0, 0.0, 1.0, 0.0, 0.0]);
/// ```
pub fn unit_impulse<T: RealFloat>(
    shape: &[usize],
    idx: &ImpulseIndex,
    dev: &Device,
) -> Result<Array<T>> {
    let op = "unit_impulse";
    let ix: Vec<isize> = match idx {
        ImpulseIndex::First => vec![0; shape.len()],
        ImpulseIndex::Mid => shape.iter().map(|&s| (s / 2) as isize).collect(),
        ImpulseIndex::All(i) => vec![*i; shape.len()],
        ImpulseIndex::At(v) => v.clone(),
    };
    if ix.len() != shape.len() {
        return Err(make::arg(
            op,
            format!(
                "idx has {} indices for {} dimensions",
                ix.len(),
                shape.len()
            ),
        ));
    }
    // the shape's size checked first, for both devices: past isize::MAX bytes InvalidArgument
    // (NumPy: "array is too big"), so that the flat index below cannot wrap either
    let n = checked_shape(op, shape, std::mem::size_of::<T>())?;
    let mut flat: i64 = 0;
    for (d, (&i, &s)) in ix.iter().zip(shape).enumerate() {
        let j = if i < 0 { i + s as isize } else { i };
        if j < 0 || j as usize >= s {
            return Err(make::arg(
                op,
                format!("index {i} is out of bounds for axis {d} with size {s}"),
            ));
        }
        flat = flat * s as i64 + j as i64;
    }
    match dev {
        Device::Cpu => {
            let mut v: Vec<T> = try_vec_zeroed(op, n)?;
            v[flat as usize] = T::from_f64(1.0);
            Array::from_vec(v, shape, dev)
        }
        Device::Cuda(d) => {
            let mut y = Array::<T>::empty(shape, dev)?;
            d.launch(&kernel::<T>(d, "impulse")?, LaunchConfig::cover(n, 256)?)
                .arg(y.dev_ptr_mut()?)
                .arg(n as i64)
                .arg(flat)
                .run()?;
            Ok(y)
        }
    }
}

/// SciPy's default feedback taps of [`max_len_seq`] for 2 ≤ nbits ≤ 32.
fn mls_taps(nbits: usize) -> Option<&'static [usize]> {
    const T: [&[usize]; 31] = [
        &[1],
        &[2],
        &[3],
        &[3],
        &[5],
        &[6],
        &[7, 6, 1],
        &[5],
        &[7],
        &[9],
        &[11, 10, 4],
        &[12, 11, 8],
        &[13, 12, 2],
        &[14],
        &[15, 13, 4],
        &[14],
        &[11],
        &[18, 17, 14],
        &[17],
        &[19],
        &[21],
        &[18],
        &[23, 22, 17],
        &[22],
        &[25, 24, 20],
        &[26, 25, 22],
        &[25],
        &[27],
        &[29, 28, 7],
        &[28],
        &[31, 30, 10],
    ];
    if (2..=32).contains(&nbits) {
        Some(T[nbits - 2])
    } else {
        None
    }
}

/// A maximum length sequence of `nbits` bits (SciPy's `scipy.signal.max_len_seq(nbits, state,
/// length, taps)`), computed on the host: returns (the sequence of 0/1 values, the final
/// state). `state` defaults to all ones, `length` to 2^nbits − 1, `taps` to SciPy's table
/// (nbits 2..=32).
///
/// # Errors
/// `InvalidArgument` for nbits outside 2..=32 without taps, taps empty or outside [0, nbits],
/// a state of the wrong length or all zeros.
///
/// ```
/// use cusci_signal::max_len_seq;
/// let (seq, _) = max_len_seq(3, None, None, None).unwrap();
/// assert_eq!(seq, vec![1, 1, 1, 0, 1, 0, 0]);
/// ```
pub fn max_len_seq(
    nbits: usize,
    state: Option<&[bool]>,
    length: Option<usize>,
    taps: Option<&[usize]>,
) -> Result<(Vec<u8>, Vec<u8>)> {
    let op = "max_len_seq";
    let taps: Vec<usize> = match taps {
        None => mls_taps(nbits)
            .ok_or_else(|| make::arg(op, "nbits must be between 2 and 32 if taps is None"))?
            .to_vec(),
        Some(t) => {
            let mut t = t.to_vec();
            t.sort_unstable();
            t.dedup();
            t.reverse();
            if t.is_empty() || t.iter().any(|&x| x > nbits) {
                return Err(make::arg(
                    op,
                    "taps must be non-empty with values between zero and nbits (inclusive)",
                ));
            }
            t
        }
    };
    let length = length.unwrap_or_else(|| {
        if nbits >= 64 {
            usize::MAX
        } else {
            (1usize << nbits) - 1
        }
    });
    let mut st: Vec<u8> = match state {
        None => vec![1; nbits],
        Some(s) => s.iter().map(|&b| b as u8).collect(),
    };
    if st.len() != nbits {
        return Err(make::arg(op, "state must be a 1-D array of size nbits"));
    }
    if st.iter().all(|&b| b == 0) {
        return Err(make::arg(op, "state must not be all zeros"));
    }
    let mut seq = Vec::with_capacity(length);
    let mut idx = 0usize;
    for _ in 0..length {
        let mut fb = st[idx];
        seq.push(fb);
        for &tp in &taps {
            fb ^= st[(tp + idx) % nbits];
        }
        st[idx] = fb;
        idx = (idx + 1) % nbits;
    }
    st.rotate_left(idx);
    Ok((seq, st))
}
