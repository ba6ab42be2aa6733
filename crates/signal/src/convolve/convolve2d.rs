//! Two-dimensional convolution and correlation: [`convolve2d`], [`correlate2d`] (`scipy.signal`'s)
//! with SciPy's modes and boundaries. The GPU kernel tiles the output 32 x 32 per block with the
//! input tile and the (flipped, for correlation) kernel in shared memory; kernels too large for
//! shared memory use an untiled kernel. The CPU runs the same sums (rayon over output rows).

use super::method::ConvMode;
use crate::procutil::{
    each_dtype, host_elems, typed_kernel, typed_source, SignalScalar, DEF_TMAKE, DEF_TZERO,
    SIGNAL_DTYPES,
};
use cusci_core::array::check_same_device;
use cusci_core::error::make;
use cusci_core::{Array, Backend, Element, KernelModule, LaunchConfig, Result};
use rayon::prelude::*;

const SRC: &str = include_str!("convolve2d.cu");

/// The 2-D convolution kernels (`convolve2d.cu`), one module per element type.
pub(crate) static CONVOLVE2D: KernelModule = KernelModule {
    name: "signal_convolve2d",
    source: |s| typed_source("signal_convolve2d", s, &[DEF_TZERO, DEF_TMAKE], SRC),
    options: &[],
    samples: || each_dtype(&SIGNAL_DTYPES),
};

/// How [`convolve2d`] and [`correlate2d`] extend the image (`boundary=`), as SciPy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConvBoundary {
    /// Pad with `fillvalue` (SciPy's default `'fill'`).
    #[default]
    Fill,
    /// Periodic (`'wrap'`).
    Wrap,
    /// Mirrored with the edge repeated (`'symm'`).
    Symm,
}

/// The optional arguments of [`convolve2d`] and [`correlate2d`].
///
/// ```
/// use cusci_signal::{Conv2dOptions, ConvBoundary, ConvMode};
/// let o = Conv2dOptions::<f32>::default();
/// assert_eq!((o.mode, o.boundary, o.fillvalue), (ConvMode::Full, ConvBoundary::Fill, 0.0));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Conv2dOptions<T> {
    /// The output size. Default [`ConvMode::Full`].
    pub mode: ConvMode,
    /// The boundary. Default [`ConvBoundary::Fill`].
    pub boundary: ConvBoundary,
    /// The pad value of [`ConvBoundary::Fill`]. Default 0.
    pub fillvalue: T,
}

impl<T: Element> Default for Conv2dOptions<T> {
    fn default() -> Self {
        Conv2dOptions {
            mode: ConvMode::Full,
            boundary: ConvBoundary::Fill,
            fillvalue: T::zero(),
        }
    }
}

/// Convolves two 2-D arrays, SciPy's
/// `scipy.signal.convolve2d(in1, in2, mode, boundary, fillvalue)`.
///
/// Output shapes: `Full` `(M+P-1, N+Q-1)`, `Same` `in1`'s, `Valid` `(M-P+1, N-Q+1)` (in `Valid`
/// mode the inputs are swapped when `in2` is the larger one in every dimension, as SciPy).
///
/// # Errors
/// `ShapeMismatch` for inputs that are not 2-D, or in `Valid` mode when neither input is at least
/// as large as the other in every dimension; `InvalidArgument` for empty inputs;
/// `DeviceMismatch` for inputs on different devices.
///
/// ```
/// use cusci_signal::{convolve2d, Conv2dOptions, Array, Device};
/// let d = Device::cpu();
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2], &d).unwrap();
/// let k = Array::from_vec(vec![1.0f64, 1.0], &[1, 2], &d).unwrap();
/// let y = convolve2d(&a, &k, &Conv2dOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![1.0, 3.0, 2.0, 3.0, 7.0, 4.0]);
/// ```
pub fn convolve2d<T: SignalScalar>(
    in1: &Array<T>,
    in2: &Array<T>,
    opts: &Conv2dOptions<T>,
) -> Result<Array<T>> {
    let swap = check("convolve2d", in1, in2, opts.mode)?;
    let (a, k) = if swap { (in2, in1) } else { (in1, in2) };
    conv2d(a, k, false, opts)
}

/// Cross-correlates two 2-D arrays, SciPy's
/// `scipy.signal.correlate2d(in1, in2, mode, boundary, fillvalue)`: the convolution of `in1`
/// with `conj(in2)` flipped in both axes (with SciPy's centring of `Same`).
///
/// # Errors
/// As [`convolve2d`].
///
/// ```
/// use cusci_signal::{correlate2d, Conv2dOptions, Array, Device};
/// let d = Device::cpu();
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2], &d).unwrap();
/// let k = Array::from_vec(vec![1.0f64, 0.0], &[1, 2], &d).unwrap();
/// let y = correlate2d(&a, &k, &Conv2dOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![0.0, 1.0, 2.0, 0.0, 3.0, 4.0]);
/// ```
pub fn correlate2d<T: SignalScalar>(
    in1: &Array<T>,
    in2: &Array<T>,
    opts: &Conv2dOptions<T>,
) -> Result<Array<T>> {
    let swap = check("correlate2d", in1, in2, opts.mode)?;
    if swap {
        let y = conv2d(in2, in1, true, opts)?;
        return y
            .slice_axis(0, None, None, -1)?
            .slice_axis(1, None, None, -1)?
            .contiguous();
    }
    conv2d(in1, in2, true, opts)
}

/// Validates; `true` when the inputs must be swapped (`Valid` mode, `in2` the larger).
fn check<T: Element>(op: &str, a: &Array<T>, k: &Array<T>, mode: ConvMode) -> Result<bool> {
    if a.ndim() != 2 || k.ndim() != 2 {
        return Err(make::shape(
            op,
            format!(
                "2-D inputs expected, got shapes {:?} and {:?}",
                a.shape(),
                k.shape()
            ),
        ));
    }
    check_same_device(op, a.device(), k.device())?;
    if a.is_empty() || k.is_empty() {
        return Err(make::arg(op, "inputs must not be empty"));
    }
    if mode != ConvMode::Valid {
        return Ok(false);
    }
    let (s1, s2) = (a.shape(), k.shape());
    let ok1 = s1[0] >= s2[0] && s1[1] >= s2[1];
    let ok2 = s2[0] >= s1[0] && s2[1] >= s1[1];
    if !(ok1 || ok2) {
        return Err(make::shape(
            op,
            format!(
                "for 'valid' mode, one input must be at least as large as the other in every \
                 dimension, got {s1:?} and {s2:?}"
            ),
        ));
    }
    Ok(!ok1)
}

#[inline]
fn ext(i: i64, n: i64, bd: ConvBoundary) -> Option<usize> {
    if i >= 0 && i < n {
        return Some(i as usize);
    }
    match bd {
        ConvBoundary::Fill => None,
        ConvBoundary::Wrap => Some(i.rem_euclid(n) as usize),
        ConvBoundary::Symm => {
            let j = i.rem_euclid(2 * n);
            Some(if j < n { j } else { 2 * n - 1 - j } as usize)
        }
    }
}

fn conv2d<T: SignalScalar>(
    a: &Array<T>,
    k: &Array<T>,
    flip: bool,
    opts: &Conv2dOptions<T>,
) -> Result<Array<T>> {
    let (m, n) = (a.shape()[0], a.shape()[1]);
    let (p, q) = (k.shape()[0], k.shape()[1]);
    let (om, on, offr, offc) = match opts.mode {
        ConvMode::Full => (m + p - 1, n + q - 1, 0, 0),
        ConvMode::Same if flip => (m, n, p / 2, q / 2),
        ConvMode::Same => (m, n, (p - 1) / 2, (q - 1) / 2),
        ConvMode::Valid => (m - p + 1, n - q + 1, p - 1, q - 1),
    };
    match a.backend() {
        Backend::Host(h) => {
            let ad = h.try_to_contiguous()?;
            let kd = host_elems(k)?;
            let w: Vec<T> = if flip {
                kd.iter().rev().map(|v| v.conj()).collect()
            } else {
                kd.to_vec()
            };
            let mut out = vec![T::zero(); om * on];
            let (mi, ni) = (m as i64, n as i64);
            out.par_chunks_mut(on).enumerate().for_each(|(r, row)| {
                let rr = (r + offr) as i64;
                for (c, slot) in row.iter_mut().enumerate() {
                    let cc = (c + offc) as i64;
                    let mut acc = T::zero();
                    for pi in 0..p {
                        let ar = ext(rr - pi as i64, mi, opts.boundary);
                        for qi in 0..q {
                            let ac = ext(cc - qi as i64, ni, opts.boundary);
                            let v = match (ar, ac) {
                                (Some(x), Some(y)) => ad[x * n + y],
                                _ => opts.fillvalue,
                            };
                            acc += w[pi * q + qi] * v;
                        }
                    }
                    *slot = acc;
                }
            });
            Array::from_vec(out, &[om, on], a.device())
        }
        Backend::Cuda(c) => {
            let (ac, kc) = (a.contiguous()?, k.contiguous()?);
            let mut out = Array::<T>::empty(&[om, on], a.device())?;
            let fv = opts.fillvalue.to_c64();
            let bd: i32 = match opts.boundary {
                ConvBoundary::Fill => 0,
                ConvBoundary::Wrap => 1,
                ConvBoundary::Symm => 2,
            };
            const TILE: usize = 32;
            let smem = ((TILE + p - 1) * (TILE + q - 1) + p * q) * std::mem::size_of::<T>();
            let gy = om.div_ceil(TILE);
            let tiled = smem <= 48 * 1024 && gy <= 65535;
            let name = if tiled { "tiled" } else { "direct" };
            let d = c.dev();
            let f = typed_kernel(&CONVOLVE2D, d, T::DTYPE, name)?;
            let cfg = if tiled {
                LaunchConfig {
                    grid: (on.div_ceil(TILE) as u32, gy as u32, 1),
                    block: (TILE as u32, 8, 1),
                    shared_mem_bytes: smem as u32,
                }
            } else {
                LaunchConfig::cover(om * on, 256)?
            };
            d.launch(&f, cfg)
                .arg(ac.dev_ptr()?)
                .arg(m as i64)
                .arg(n as i64)
                .arg(kc.dev_ptr()?)
                .arg(p as i64)
                .arg(q as i64)
                .arg(flip as i32)
                .arg(out.dev_ptr_mut()?)
                .arg(om as i64)
                .arg(on as i64)
                .arg(offr as i64)
                .arg(offc as i64)
                .arg(bd)
                .arg(fv.re)
                .arg(fv.im)
                .run()?;
            Ok(out)
        }
    }
}
