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

/// The method [`ConvMethod::Auto`] picks, SciPy's `scipy.signal.choose_conv_method(in1, in2,
/// mode)` (without `measure=`): the element type, shapes and device of the inputs decide (see
/// [`choose_conv_method_shapes`] for the rules). The inputs must have the same number of
/// dimensions; in `Valid` mode they are ordered as SciPy's `convolve` orders them.
///
/// # Errors
/// `ShapeMismatch` for inputs with different numbers of dimensions; `InvalidArgument` for
/// empty inputs; `DeviceMismatch`.
///
/// ```
/// use cusci_signal::{choose_conv_method, ConvMethod, ConvMode, Array, Device};
/// let d = Device::cpu();
/// let a = Array::from_vec(vec![1.0f64; 1000], &[1000], &d).unwrap();
/// let k = Array::from_vec(vec![1.0f64; 5], &[5], &d).unwrap();
/// assert_eq!(choose_conv_method(&a, &k, ConvMode::Full).unwrap(), ConvMethod::Direct);
/// ```
pub fn choose_conv_method<T: SignalScalar>(
    in1: &Array<T>,
    in2: &Array<T>,
    mode: ConvMode,
) -> Result<ConvMethod> {
    let op = "choose_conv_method";
    if in1.ndim() != in2.ndim() {
        return Err(make::shape(
            op,
            format!(
                "inputs must have the same number of dimensions, got {:?} and {:?}",
                in1.shape(),
                in2.shape()
            ),
        ));
    }
    crate::procutil::same_dev(op, in1.device(), in2.device())?;
    if in1.is_empty() || in2.is_empty() {
        return Err(make::arg(op, "inputs must not be empty"));
    }
    let (mut s1, mut s2) = (in1.shape(), in2.shape());
    if mode == ConvMode::Valid && s1.iter().zip(s2).any(|(a, b)| a < b) {
        std::mem::swap(&mut s1, &mut s2);
    }
    Ok(choose_conv_method_shapes(
        s1,
        s2,
        mode,
        T::DTYPE.is_complex(),
        matches!(T::DTYPE, cusci_core::DType::F32 | cusci_core::DType::C32),
        in1.device().is_cuda(),
    ))
}

/// The choice of [`choose_conv_method`] from the shapes alone (`complex`: complex elements;
/// `single`: f32 or c32 elements), for arrays on a CUDA device (`cuda`) or on the CPU.
///
/// * **CPU**: SciPy's rule exactly (`_fftconv_faster`): SciPy's operation counts of the direct
///   method (`n·m` in `Full` mode, the overlap counts of `Same`/`Valid`; N-D: the smaller input's
///   size times the output size) and of the FFT method (`3 N ln N`, `N` the product of the full
///   output shape), weighted by SciPy's measured constants per mode and number of dimensions:
///   FFT when `c_fft·fft_ops < c_direct·direct_ops + offset`.
/// * **CUDA**: a time model fitted to H200 measurements of this crate's direct kernel (one thread
///   per output) against cuFFT convolution (`benches/results/2026-12-02e-kernel-checks/
///   spectral-1.txt`, `n` = 1e3..1e7, `m` = 4..16384, full mode). In milliseconds,
///   `direct = 0.010 + max(m_min·L, ops·C)` (`ops` the multiply-adds as above, `m_min` the
///   shorter input: one thread's serial loop) and `fft = max(0.17, F1 + N·c)`, `N` the full
///   output size; FFT when `fft < direct`. f64: `L = 4.5e-5`, `C = 5.8e-10`, `F1 = 0.10`,
///   `c = 8.5e-8`; f32: `L = 2.6e-5`, `C = 2.9e-10`, `F1 = 0.13`, `c = 4.4e-8`. The model puts
///   every measured pair on its measured side; the measured crossovers (f32) are `m` = 16384 at
///   `n` = 1e5, 1024 at 1e6, 256 at 1e7 (f64: 4096, 512, 256), and the direct method for every
///   `m <= n` at `n` <= 1e4. Complex types are not measured: their direct cost is taken as twice
///   the real one of the same precision (twice the bytes per load, which bounds the kernel) and
///   their FFT cost per point twice (complex instead of real transforms). N-D inputs use the
///   same model with the sizes' products (the 2-D direct kernel is not measured).
///
/// ```
/// use cusci_signal::{choose_conv_method_shapes, ConvMethod, ConvMode};
/// let cpu = |n: usize, k: usize| {
///     choose_conv_method_shapes(&[n], &[k], ConvMode::Full, false, false, false)
/// };
/// let h200 = |n: usize, k: usize| {
///     choose_conv_method_shapes(&[n], &[k], ConvMode::Full, false, true, true)
/// };
/// assert_eq!(cpu(1000, 5), ConvMethod::Direct);
/// assert_eq!(cpu(100_000, 1000), ConvMethod::Fft);
/// assert_eq!(h200(100_000, 1000), ConvMethod::Direct); // f32 on the GPU
/// assert_eq!(h200(1_000_000, 1024), ConvMethod::Fft);
/// ```
pub fn choose_conv_method_shapes(
    s1: &[usize],
    s2: &[usize],
    mode: ConvMode,
    complex: bool,
    single: bool,
    cuda: bool,
) -> ConvMethod {
    let (direct_ops, fft_n) = conv_ops(s1, s2, mode);
    let fft = if !cuda {
        let fft_ops = 3.0 * fft_n * fft_n.ln();
        let one_d = s1.len() == 1;
        let offset = if one_d { -1e-3 } else { -1e-4 };
        let (cf, cd, off) = match (one_d, mode) {
            (true, ConvMode::Valid) => (1.89095737e-9, 2.1364985e-10, offset),
            (true, ConvMode::Full) => (1.7649070e-9, 2.1414831e-10, offset),
            (true, ConvMode::Same) if s2[0] <= s1[0] => (3.2646654e-9, 2.8478277e-10, offset),
            (true, ConvMode::Same) => (3.21635404e-9, 1.1773253e-8, -1e-5),
            (false, ConvMode::Valid) => (1.85927e-9, 2.11242e-8, offset),
            (false, ConvMode::Full) => (1.99817e-9, 1.66174e-8, offset),
            (false, ConvMode::Same) => (2.04735e-9, 1.55367e-8, offset),
        };
        cf * fft_ops < cd * direct_ops + off
    } else {
        let (l, c, f1, cf) = if single {
            (2.6e-5, 2.9e-10, 0.13, 4.4e-8)
        } else {
            (4.5e-5, 5.8e-10, 0.10, 8.5e-8)
        };
        let (c, cf) = if complex {
            (2.0 * c, 2.0 * cf)
        } else {
            (c, cf)
        };
        let p1: usize = s1.iter().product();
        let p2: usize = s2.iter().product();
        let m_min = p1.min(p2) as f64;
        let direct = 0.010 + (m_min * l).max(direct_ops * c);
        let fft = (f1 + fft_n * cf).max(0.17);
        fft < direct
    };
    if fft {
        ConvMethod::Fft
    } else {
        ConvMethod::Direct
    }
}

/// SciPy's `_conv_ops`: (direct multiply-adds, size of the full output) as f64.
fn conv_ops(s1: &[usize], s2: &[usize], mode: ConvMode) -> (f64, f64) {
    let f = |v: usize| v as f64;
    let full: f64 = s1.iter().zip(s2).map(|(&a, &b)| f(a + b - 1)).product();
    let direct = if s1.len() == 1 {
        let (a, b) = (f(s1[0]), f(s2[0]));
        match mode {
            ConvMode::Full => a * b,
            ConvMode::Valid if b >= a => (b - a + 1.0) * a,
            ConvMode::Valid => (a - b + 1.0) * b,
            ConvMode::Same if a < b => a * b,
            ConvMode::Same => a * b - f(s2[0] / 2) * f(s2[0].div_ceil(2)),
        }
    } else {
        let p1: f64 = s1.iter().map(|&v| f(v)).product();
        let p2: f64 = s2.iter().map(|&v| f(v)).product();
        match mode {
            ConvMode::Full => p1.min(p2) * full,
            ConvMode::Valid => {
                let out: f64 = s1
                    .iter()
                    .zip(s2)
                    .map(|(&a, &b)| f(a.abs_diff(b) + 1))
                    .product();
                p1.min(p2) * out
            }
            ConvMode::Same => p1 * p2,
        }
    };
    (direct, full)
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
        ConvMethod::Auto => {
            // SciPy's convolve swaps the inputs for valid mode before choosing
            let (x, y) = if opts.mode == ConvMode::Valid && n < m {
                (m, n)
            } else {
                (n, m)
            };
            let c = T::DTYPE.is_complex();
            let single = matches!(T::DTYPE, cusci_core::DType::F32 | cusci_core::DType::C32);
            choose_conv_method_shapes(&[x], &[y], opts.mode, c, single, a.device().is_cuda())
        }
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
