//! N-dimensional convolution and correlation ([`convolve`](crate::convolve),
//! [`correlate`](crate::correlate), [`fftconvolve`](crate::fftconvolve) on N-D inputs,
//! [`fftconvolve_axes`]) and [`correlation_lags`]
//! ([`oaconvolve`](crate::oaconvolve) is in `oaconv.rs`). The FFT method runs `cusci_fft`'s N-D transforms on the arrays' device (real transforms for real
//! types); the 2-D direct method is [`convolve2d`](crate::convolve2d)'s kernel.

use super::convolve2d::{convolve2d, Conv2dOptions};
use super::method::{choose_conv_method_shapes, ConvMethod, ConvMode};
use crate::procutil::SignalScalar;
use cusci_core::array::check_same_device;
use cusci_core::array::layout::norm_axis;
use cusci_core::error::make;
use cusci_core::{Array, Result};

fn norm_axes(op: &str, axes: Option<&[isize]>, nd: usize) -> Result<Vec<usize>> {
    let mut out: Vec<usize> = match axes {
        None => (0..nd).collect(),
        Some([]) => return Err(make::arg(op, "when provided, axes cannot be empty")),
        Some(ax) => ax
            .iter()
            .map(|&a| norm_axis(op, a, nd))
            .collect::<Result<_>>()?,
    };
    out.sort_unstable();
    let before = out.len();
    out.dedup();
    if out.len() != before {
        return Err(make::arg(op, "axes must be unique"));
    }
    Ok(out)
}

/// Reverses every axis and conjugates (`in2` of a correlation).
fn reverse_conj<T: SignalScalar>(v: &Array<T>) -> Result<Array<T>> {
    let mut r = v.clone();
    for ax in 0..v.ndim() {
        r = r.slice_axis(ax as isize, None, None, -1)?;
    }
    r.conj()?.contiguous()
}

/// The N-D engine: checks, the valid-mode swap, the method, the crop.
pub(crate) fn nd_conv<T: SignalScalar>(
    op: &str,
    a: &Array<T>,
    v: &Array<T>,
    mode: ConvMode,
    axes: Option<&[isize]>,
    corr: bool,
    method: ConvMethod,
) -> Result<Array<T>> {
    let nd = a.ndim();
    if v.ndim() != nd || nd == 0 {
        return Err(make::shape(
            op,
            format!(
                "inputs must have the same number of dimensions, got {:?} and {:?}",
                a.shape(),
                v.shape()
            ),
        ));
    }
    check_same_device(op, a.device(), v.device())?;
    if a.is_empty() || v.is_empty() {
        return Err(make::arg(op, "inputs must not be empty"));
    }
    let mut axes = norm_axes(op, axes, nd)?;
    if op != "convolve" && op != "correlate" {
        // SciPy's fftconvolve and oaconvolve broadcast the axes where either input has length 1
        // instead of transforming them, so `valid` mode does not compare their lengths
        // (convolve and correlate compare every axis)
        axes.retain(|&d| a.shape()[d] != 1 && v.shape()[d] != 1);
    }
    for d in 0..nd {
        if !axes.contains(&d) {
            let (x, y) = (a.shape()[d], v.shape()[d]);
            if x != y && x != 1 && y != 1 {
                return Err(make::shape(
                    op,
                    format!("incompatible shapes for in1 and in2 along axis {d}: {x} and {y}"),
                ));
            }
        }
    }
    let w = if corr { reverse_conj(v)? } else { v.clone() };
    let (mut p, mut q) = (a.clone(), w);
    if mode == ConvMode::Valid {
        let ge = axes.iter().all(|&d| p.shape()[d] >= q.shape()[d]);
        let le = axes.iter().all(|&d| p.shape()[d] <= q.shape()[d]);
        if !ge && !le {
            return Err(make::arg(
                op,
                "for 'valid' mode, one input must be at least as large as the other in every dimension",
            ));
        }
        if !ge {
            std::mem::swap(&mut p, &mut q);
        }
    }
    if axes.is_empty() {
        return same_other_axes(p.mul(&q)?, a.shape(), mode, &axes)?.contiguous();
    }
    let method = match method {
        // the direct method exists for 1-D (nd == 1 never reaches here) and 2-D only
        ConvMethod::Auto if nd > 2 || axes.len() != nd => ConvMethod::Fft,
        ConvMethod::Auto => choose_conv_method_shapes(
            p.shape(),
            q.shape(),
            mode,
            T::DTYPE.is_complex(),
            matches!(T::DTYPE, cusci_core::DType::F32 | cusci_core::DType::C32),
            p.device().is_cuda(),
        ),
        x => x,
    };
    if method == ConvMethod::Direct && nd == 2 && axes.len() == 2 {
        // convolve2d's own valid-mode swap is the same as the one above
        let o = Conv2dOptions {
            mode,
            ..Default::default()
        };
        return convolve2d(&p, &q, &o);
    }
    let real = !T::DTYPE.is_complex();
    let mut fshape = Vec::with_capacity(axes.len());
    let mut full = Vec::with_capacity(axes.len());
    for &d in &axes {
        let s = p.shape()[d] + q.shape()[d] - 1;
        full.push(s);
        fshape.push(cusci_fft::next_fast_len(s, real)?);
    }
    // the window of the full result that the mode keeps, per transformed axis
    let window = |k: usize, d: usize| match mode {
        ConvMode::Full => (0, full[k]),
        ConvMode::Same => ((full[k] - a.shape()[d]) / 2, a.shape()[d]),
        ConvMode::Valid => {
            let len = p.shape()[d] - q.shape()[d] + 1;
            ((full[k] - len) / 2, len)
        }
    };
    if method == ConvMethod::Direct {
        // convolve and correlate of 3 or more axes (their axes are all the axes)
        let (start, len): (Vec<usize>, Vec<usize>) =
            axes.iter().enumerate().map(|(k, &d)| window(k, d)).unzip();
        return super::direct::direct_nd(&p, &q, &start, &len);
    }
    let mut y = T::fft_convolve_nd(&p.contiguous()?, &q.contiguous()?, &axes, &fshape)?;
    for (k, &d) in axes.iter().enumerate() {
        let (start, len) = window(k, d);
        y = y.slice_axis(
            d as isize,
            Some(start as isize),
            Some((start + len) as isize),
            1,
        )?;
    }
    same_other_axes(y, a.shape(), mode, &axes)?.contiguous()
}

/// SciPy's `same` mode crops every axis to `in1`'s length (`_centered(ret, s1)`), the
/// broadcast axes outside `axes` too (where `in1` has length 1 and `in2` more).
fn same_other_axes<T: SignalScalar>(
    y: Array<T>,
    s1: &[usize],
    mode: ConvMode,
    axes: &[usize],
) -> Result<Array<T>> {
    let mut y = y;
    if mode == ConvMode::Same {
        for (d, &want) in s1.iter().enumerate() {
            let cur = y.shape()[d];
            if !axes.contains(&d) && cur != want {
                let start = (cur - want) / 2;
                y = y.slice_axis(
                    d as isize,
                    Some(start as isize),
                    Some((start + want) as isize),
                    1,
                )?;
            }
        }
    }
    Ok(y)
}

/// FFT convolution of N-D arrays along `axes`, SciPy's
/// `scipy.signal.fftconvolve(in1, in2, mode, axes)`: the other axes broadcast (their lengths
/// must be equal or 1). `axes = None` convolves along every axis (then it is
/// [`fftconvolve`](crate::fftconvolve)). Transform lengths are `next_fast_len(n1 + n2 - 1)`.
///
/// # Errors
/// `ShapeMismatch` for different numbers of dimensions or non-broadcastable other axes;
/// `InvalidArgument` for empty inputs, bad or repeated axes, or `Valid` mode where neither input
/// is at least as large as the other along every axis; `DeviceMismatch`.
///
/// ```
/// use cusci_signal::{fftconvolve_axes, ConvMode, Array, Device};
/// let d = Device::cpu();
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2], &d).unwrap();
/// let k = Array::from_vec(vec![1.0f64, 1.0], &[1, 2], &d).unwrap();
/// let y = fftconvolve_axes(&a, &k, ConvMode::Full, Some(&[1])).unwrap();
/// assert_eq!(y.shape(), &[2, 3]);
/// assert!((y.to_vec().unwrap()[4] - 7.0).abs() < 1e-12);
/// ```
pub fn fftconvolve_axes<T: SignalScalar>(
    in1: &Array<T>,
    in2: &Array<T>,
    mode: ConvMode,
    axes: Option<&[isize]>,
) -> Result<Array<T>> {
    nd_conv("fftconvolve", in1, in2, mode, axes, false, ConvMethod::Fft)
}

/// The lag indices of a 1-D cross-correlation of inputs of lengths `in1_len` and `in2_len`,
/// SciPy's `scipy.signal.correlation_lags(in1_len, in2_len, mode)` (host values, one per
/// output of [`correlate`](crate::correlate) in that mode).
///
/// # Errors
/// `InvalidArgument` for a length past `i64::MAX` (a lag would not fit); `OutOfMemory` when the
/// lags do not fit the host's memory (checked before allocating).
///
/// ```
/// use cusci_signal::{correlation_lags, ConvMode};
/// assert_eq!(correlation_lags(3, 2, ConvMode::Full).unwrap(), vec![-1, 0, 1, 2]);
/// assert_eq!(correlation_lags(3, 2, ConvMode::Valid).unwrap(), vec![0, 1]);
/// ```
pub fn correlation_lags(in1_len: usize, in2_len: usize, mode: ConvMode) -> Result<Vec<i64>> {
    let op = "correlation_lags";
    let len = |v: usize| -> Result<i128> {
        i64::try_from(v)
            .map(i128::from)
            .map_err(|_| make::arg(op, format!("length {v} does not fit a 64-bit lag")))
    };
    let (n1, n2) = (len(in1_len)?, len(in2_len)?);
    // the lags are the range lo..hi, computed in i128 (no overflow), as SciPy's arange slices
    let (lo, hi) = match mode {
        ConvMode::Full => (1 - n2, n1),
        ConvMode::Same => {
            let full_len = (n1 + n2 - 1).max(0);
            let mid = full_len / 2;
            let lb = n1 / 2;
            let a = (mid - lb).max(0);
            let b = if n1 % 2 == 0 { mid + lb } else { mid + lb + 1 };
            let b = b.clamp(a, full_len.max(a));
            (1 - n2 + a, 1 - n2 + b)
        }
        ConvMode::Valid => {
            let lb = n1 - n2;
            if lb >= 0 {
                (0, lb + 1)
            } else {
                (lb, 1)
            }
        }
    };
    let count = usize::try_from((hi - lo).max(0))
        .map_err(|_| make::arg(op, "the number of lags does not fit usize"))?;
    // lo ≥ 1 − i64::MAX and every lag < i64::MAX: each fits i64
    cusci_core::host::try_collect(op, count, (0..count).map(|k| (lo + k as i128) as i64))
}
