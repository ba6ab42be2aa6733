//! The options of the convolutions ([`ConvMode`], [`ConvMethod`], [`ConvOptions`]) and the
//! choice of method ([`choose_conv_method`], [`choose_conv_method_shapes`]).

use crate::procutil::SignalScalar;
use cusci_core::array::check_same_device;
use cusci_core::error::make;
use cusci_core::{Array, Result};

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

/// The optional arguments of [`convolve`](crate::convolve) and [`correlate`](crate::correlate).
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
    check_same_device(op, in1.device(), in2.device())?;
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
///   per output) against cuFFT convolution (`tests/data/conv_method_h200.txt` of this crate,
///   `n` = 1e3..1e7, `m` = 4..16384, full mode). In milliseconds,
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

/// What [`choose_conv_method_measure`] found: the faster method and the measured seconds per
/// call of each (SciPy's `(method, times)` of `choose_conv_method(..., measure=True)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConvTimes {
    /// The faster method ([`ConvMethod::Fft`] when its time is strictly smaller).
    pub method: ConvMethod,
    /// Seconds per [`convolve`](crate::convolve) call with [`ConvMethod::Direct`].
    pub direct: f64,
    /// Seconds per call with [`ConvMethod::Fft`].
    pub fft: f64,
}

/// Seconds per call of `f`, SciPy's `_timeit_fast`: one untimed call first (on a GPU it
/// compiles the kernels and plans the transforms), then the number of calls per repetition is
/// raised by tens until one repetition takes 0.5 ms, multiplied by ten, and the best of three
/// repetitions is taken (a single call over a second is taken as it is). The device is
/// synchronised before each clock reading.
fn time_per_call(dev: &cusci_core::Device, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    use std::time::Instant;
    let mut timed = |number: u64| -> Result<f64> {
        dev.synchronize()?;
        let t0 = Instant::now();
        for _ in 0..number {
            f()?;
        }
        dev.synchronize()?;
        Ok(t0.elapsed().as_secs_f64())
    };
    timed(1)?;
    let mut number = 1u64;
    let mut x = 0.0;
    for p in 0..10 {
        number = 10u64.pow(p);
        x = timed(number)?;
        if x >= 5e-4 {
            break;
        }
    }
    if x > 1.0 {
        return Ok(x / number as f64);
    }
    number *= 10;
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        best = best.min(timed(number)?);
    }
    Ok(best / number as f64)
}

/// SciPy's `scipy.signal.choose_conv_method(in1, in2, mode, measure=True)`: times
/// [`convolve`](crate::convolve) of the inputs with each method on their device (SciPy's
/// `_timeit_fast` repetitions, see below) and returns the faster method with both times. The
/// choice is the measurement's, so it may differ between runs when the two are close.
///
/// Numerics: wall-clock seconds per call; the device is synchronised around each timed batch,
/// and one untimed call of each method comes first (kernel compilation and FFT plans are not
/// counted). Each method runs at least 30 times (more for fast calls, as SciPy's timer), so
/// this costs time: for a choice without running the convolutions use
/// [`choose_conv_method`].
///
/// # Errors
/// As [`choose_conv_method`]; the errors of the convolutions.
///
/// ```
/// use cusci_signal::{choose_conv_method_measure, ConvMode, Array, Device};
/// let d = Device::cpu();
/// let a = Array::from_vec(vec![1.0f64; 64], &[64], &d).unwrap();
/// let k = Array::from_vec(vec![1.0f64; 3], &[3], &d).unwrap();
/// let t = choose_conv_method_measure(&a, &k, ConvMode::Full).unwrap();
/// assert!(t.direct > 0.0 && t.fft > 0.0);
/// ```
pub fn choose_conv_method_measure<T: SignalScalar>(
    in1: &Array<T>,
    in2: &Array<T>,
    mode: ConvMode,
) -> Result<ConvTimes> {
    // the same checks (and errors) as the rule
    choose_conv_method(in1, in2, mode)?;
    let dev = in1.device();
    let run = |method: ConvMethod| {
        let o = ConvOptions { mode, method };
        move || crate::convolve(in1, in2, &o).map(|_| ())
    };
    let fft = time_per_call(dev, run(ConvMethod::Fft))?;
    let direct = time_per_call(dev, run(ConvMethod::Direct))?;
    Ok(ConvTimes {
        method: if fft < direct {
            ConvMethod::Fft
        } else {
            ConvMethod::Direct
        },
        direct,
        fft,
    })
}
