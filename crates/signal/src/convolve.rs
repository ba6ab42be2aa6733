//! One-dimensional convolution and correlation: [`convolve`], [`correlate`], [`fftconvolve`]
//! (`scipy.signal`'s, for 1-D inputs), with the direct method (one thread per output on the GPU)
//! and the FFT method (`cusci_fft`'s transforms on the arrays' device).

use crate::procutil::{blocks_for, cpu_contig, cuda_type, dptr, SignalScalar};
use cusci_core::cuda::kernel::{Args, LaunchConfig};
use cusci_core::error::make;
use cusci_core::{Array, Device, Element, Result};
use rayon::prelude::*;

const SRC: &str = include_str!("convolve.cu");

/// The size of the output (`mode=`), as SciPy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConvMode {
    /// The full discrete linear convolution, `n + m - 1` points (SciPy's default).
    #[default]
    Full,
    /// The size of the first input, centred on the full output.
    Same,
    /// Only the points that do not depend on zero padding: `max(n, m) - min(n, m) + 1`.
    Valid,
}

/// How to compute (`method=`), as SciPy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConvMethod {
    /// Pick by size (see [`choose_conv_method`]). SciPy's default.
    #[default]
    Auto,
    /// The sum of products.
    Direct,
    /// Through FFTs of the zero-padded inputs.
    Fft,
}

/// The optional arguments of [`convolve`] and [`correlate`].
///
/// ```
/// use cusci_signal::{ConvOptions, ConvMode, ConvMethod};
/// let o = ConvOptions::default();
/// assert_eq!((o.mode, o.method), (ConvMode::Full, ConvMethod::Auto));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ConvOptions {
    /// The output size. Default [`ConvMode::Full`].
    pub mode: ConvMode,
    /// The method. Default [`ConvMethod::Auto`].
    pub method: ConvMethod,
}

/// The method [`ConvMethod::Auto`] picks for 1-D inputs of lengths `n` and `m`, SciPy's
/// `choose_conv_method` (by a size rule rather than SciPy's measured constants): direct when the
/// shorter input has at most 64 points or the product of the lengths is at most 2^16, else FFT.
///
/// ```
/// use cusci_signal::{choose_conv_method, ConvMethod};
/// assert_eq!(choose_conv_method(1000, 5), ConvMethod::Direct);
/// assert_eq!(choose_conv_method(1 << 20, 4096), ConvMethod::Fft);
/// ```
pub fn choose_conv_method(n: usize, m: usize) -> ConvMethod {
    if n.min(m) <= 64 || n.saturating_mul(m) <= 1 << 16 {
        ConvMethod::Direct
    } else {
        ConvMethod::Fft
    }
}

fn window(op: &str, n: usize, m: usize, mode: ConvMode) -> Result<(usize, usize)> {
    let full = n + m - 1;
    Ok(match mode {
        ConvMode::Full => (0, full),
        ConvMode::Same => ((full - n) / 2, n),
        ConvMode::Valid => {
            let _ = op;
            let len = n.max(m) - n.min(m) + 1;
            ((full - len) / 2, len)
        }
    })
}

fn check_1d<T: Element>(op: &str, a: &Array<T>, v: &Array<T>) -> Result<()> {
    if a.ndim() != 1 || v.ndim() != 1 {
        return Err(make::shape(
            op,
            format!(
                "1-D inputs expected, got shapes {:?} and {:?}",
                a.shape(),
                v.shape()
            ),
        ));
    }
    crate::procutil::same_dev(op, a.device(), v.device())?;
    if a.is_empty() || v.is_empty() {
        return Err(make::arg(op, "inputs must not be empty"));
    }
    Ok(())
}

/// Convolves two arrays, SciPy's `scipy.signal.convolve(in1, in2, mode, method)`. 1-D inputs
/// have both methods on both devices; N-D inputs (same number of dimensions) use the N-D FFT
/// (see [`fftconvolve_axes`](crate::fftconvolve_axes)), or for 2-D and
/// [`ConvMethod::Direct`] [`convolve2d`](crate::convolve2d)'s kernel.
///
/// # Errors
/// `ShapeMismatch` for inputs with different numbers of dimensions; `NotImplemented` for the
/// direct method on inputs of 3 or more dimensions; `InvalidArgument` for empty inputs;
/// `DeviceMismatch` when they are on different devices; the FFT's errors for
/// [`ConvMethod::Fft`].
///
/// ```
/// use cusci_signal::{convolve, ConvOptions, Array, Device};
/// let d = Device::cpu();
/// let a = Array::from_vec(vec![1.0, 2.0, 3.0], &[3], &d).unwrap();
/// let v = Array::from_vec(vec![0.0, 1.0, 0.5], &[3], &d).unwrap();
/// let y = convolve(&a, &v, &ConvOptions::default()).unwrap().to_vec().unwrap();
/// assert_eq!(y, vec![0.0, 1.0, 2.5, 4.0, 1.5]);
/// ```
pub fn convolve<T: SignalScalar>(
    a: &Array<T>,
    v: &Array<T>,
    opts: &ConvOptions,
) -> Result<Array<T>> {
    conv("convolve", a, v, opts, false)
}

/// Cross-correlates two arrays (N-D as [`convolve`]), SciPy's
/// `scipy.signal.correlate(in1, in2, mode, method)`:
/// `z[k] = sum_l a[l] conj(v[l - k + m - 1])` (the convolution of `a` with `conj(v[::-1])`).
///
/// # Errors
/// As [`convolve`].
///
/// ```
/// use cusci_signal::{correlate, ConvOptions, ConvMode, Array, Device};
/// let d = Device::cpu();
/// let a = Array::from_vec(vec![1.0, 2.0, 3.0], &[3], &d).unwrap();
/// let v = Array::from_vec(vec![0.0, 1.0, 0.5], &[3], &d).unwrap();
/// let o = ConvOptions { mode: ConvMode::Same, ..Default::default() };
/// assert_eq!(correlate(&a, &v, &o).unwrap().to_vec().unwrap(), vec![2.0, 3.5, 3.0]);
/// ```
pub fn correlate<T: SignalScalar>(
    a: &Array<T>,
    v: &Array<T>,
    opts: &ConvOptions,
) -> Result<Array<T>> {
    conv("correlate", a, v, opts, true)
}

/// Convolves two arrays through FFTs (N-D along every axis), SciPy's
/// `scipy.signal.fftconvolve(in1, in2, mode)`; with `axes`, see
/// [`fftconvolve_axes`](crate::fftconvolve_axes).
///
/// Real inputs use real transforms of length `next_fast_len(n + m - 1)`; the GPU runs cuFFT
/// through `cusci_fft` on the arrays' stream.
///
/// # Errors
/// As [`convolve`].
///
/// ```
/// use cusci_signal::{fftconvolve, ConvMode, Array, Device};
/// let d = Device::cpu();
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3], &d).unwrap();
/// let v = Array::from_vec(vec![0.0f64, 1.0, 0.5], &[3], &d).unwrap();
/// let y = fftconvolve(&a, &v, ConvMode::Full).unwrap().to_vec().unwrap();
/// assert!((y[2] - 2.5).abs() < 1e-12);
/// ```
pub fn fftconvolve<T: SignalScalar>(
    a: &Array<T>,
    v: &Array<T>,
    mode: ConvMode,
) -> Result<Array<T>> {
    conv(
        "fftconvolve",
        a,
        v,
        &ConvOptions {
            mode,
            method: ConvMethod::Fft,
        },
        false,
    )
}

fn conv<T: SignalScalar>(
    op: &str,
    a: &Array<T>,
    v: &Array<T>,
    opts: &ConvOptions,
    corr: bool,
) -> Result<Array<T>> {
    if a.ndim() != 1 || v.ndim() != 1 {
        return crate::convnd::nd_conv(op, a, v, opts.mode, None, corr, opts.method);
    }
    check_1d(op, a, v)?;
    let (n, m) = (a.size(), v.size());
    let (start, len) = window(op, n, m, opts.mode)?;
    let method = match opts.method {
        ConvMethod::Auto => choose_conv_method(n, m),
        x => x,
    };
    match method {
        ConvMethod::Fft => {
            let w = if corr { revconj(v)? } else { v.clone() };
            let full = T::fft_convolve_full(&a.contiguous()?, &w.contiguous()?)?;
            full.slice_axis(0, Some(start as isize), Some((start + len) as isize), 1)?
                .contiguous()
        }
        _ => direct(a, v, corr, start, len),
    }
}

fn revconj<T: SignalScalar>(v: &Array<T>) -> Result<Array<T>> {
    let m = v.size();
    match v.device() {
        Device::Cpu => {
            let d = cpu_contig(v)?;
            let w: Vec<T> = d.iter().rev().map(|x| x.conj()).collect();
            Array::from_vec(w, &[m], v.device())
        }
        Device::Cuda(dv) => {
            let vc = v.contiguous()?;
            let out = Array::<T>::empty(&[m], v.device())?;
            let (key, src) = conv_source::<T>();
            let f = dv.function(&key, || src, &[], &format!("{key}_revconj"))?;
            let mut a = Args::new();
            a.push(dptr(&vc)).push(dptr(&out)).push(m as i64);
            f.launch(dv, LaunchConfig::linear(blocks_for(m, 256), 256), &mut a)?;
            Ok(out)
        }
    }
}

/// The kernel module of the direct method for `T`: (name prefix, source).
pub(crate) fn conv_source<T: Element>() -> (String, String) {
    let ty = cuda_type::<T>();
    let zero = crate::filter::zero_literal::<T>();
    let prefix = format!("signal_convolve_{}", T::DTYPE.tag());
    let src = format!("#define T {ty}\n#define TZERO {zero}\n#define NAME(x) {prefix}_##x\n{SRC}");
    (prefix, src)
}

fn direct<T: SignalScalar>(
    a: &Array<T>,
    v: &Array<T>,
    corr: bool,
    start: usize,
    len: usize,
) -> Result<Array<T>> {
    let (n, m) = (a.size(), v.size());
    match a.device() {
        Device::Cpu => {
            let ad = cpu_contig(a)?;
            let vd = cpu_contig(v)?;
            let w: Vec<T> = if corr {
                vd.iter().rev().map(|x| x.conj()).collect()
            } else {
                vd.to_vec()
            };
            let mut out = vec![T::zero(); len];
            out.par_chunks_mut(4096).enumerate().for_each(|(c, chunk)| {
                for (o, slot) in chunk.iter_mut().enumerate() {
                    let k = start + c * 4096 + o;
                    let j0 = (k + 1).saturating_sub(n);
                    let j1 = k.min(m - 1);
                    let mut acc = T::zero();
                    for j in j0..=j1 {
                        acc += ad[k - j] * w[j];
                    }
                    *slot = acc;
                }
            });
            Array::from_vec(out, &[len], a.device())
        }
        Device::Cuda(d) => {
            let (ac, vc) = (a.contiguous()?, v.contiguous()?);
            let out = Array::<T>::empty(&[len], a.device())?;
            let (key, src) = conv_source::<T>();
            let f = d.function(&key, || src, &[], &format!("{key}_direct"))?;
            let mut args = Args::new();
            args.push(dptr(&ac))
                .push(n as i64)
                .push(dptr(&vc))
                .push(m as i64)
                .push(corr as i32)
                .push(dptr(&out))
                .push(start as i64)
                .push(len as i64);
            f.launch(
                d,
                LaunchConfig::linear(blocks_for(len, 256), 256),
                &mut args,
            )?;
            Ok(out)
        }
    }
}
