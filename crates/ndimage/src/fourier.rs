//! `scipy.ndimage` Fourier filters: multiply an array that holds a Fourier transform by the
//! transform of a Gaussian, a box, an ellipsoid, or a shift (`fourier_gaussian`,
//! `fourier_uniform`, `fourier_ellipsoid`, `fourier_shift`).
//!
//! `n` is SciPy's argument: `None` when every axis holds a full complex transform; `Some(n)`
//! when `axis` holds a real transform (`rfft`) of a signal of length `n`. One element-wise pass
//! on either device (factors computed in f64).
//!
//! Result types: the plain functions return the input's type (f32, f64, c32, c64; real inputs
//! to `fourier_shift` and integer inputs are refused). The `*_as::<I, O>` functions
//! ([`fourier_gaussian_as`], [`fourier_uniform_as`], [`fourier_ellipsoid_as`],
//! [`fourier_shift_as`]) are SciPy's `output=` argument and give SciPy's default result types
//! for every input: f64 for integer and bool input (`fourier_gaussian_as::<i32, f64>`), c64 for
//! real input to `fourier_shift` (`fourier_shift_as::<f64, c64>`); they compute in double as
//! SciPy does. One generic `*_as` per filter (rather than a function per input kind) keeps the
//! crate's convention of the filters' and interpolation's `*_as`.

use crate::cuda::{linear, MAXD};
use cusci_core::array::layout::norm_axis;
use cusci_core::cuda::launch::{KernelModule, Spec};
use cusci_core::dtype::{c64, DType, Element};
use cusci_core::error::make;
use cusci_core::{Array, Backend, CudaDevice, Device, KernelParam, Result};
use rayon::prelude::*;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Gaussian = 0,
    Uniform = 1,
    Ellipsoid = 2,
    Shift = 3,
}

/// The Fourier filters' kernel (`fourier.cu`) for one element type: `Spec::of(&[T])`.
pub(crate) static FOURIER: KernelModule = KernelModule {
    name: "ndimage_fourier",
    source: |spec| {
        let dtype = spec.dtype(0)?;
        let (r, cplx) = match dtype {
            DType::C32 => ("float", "#define NDI_CPLX\n"),
            DType::C64 => ("double", "#define NDI_CPLX\n"),
            DType::F32 => ("float", ""),
            _ => ("double", ""),
        };
        Ok(format!(
            "#define T {}\n#define R {r}\n#define NDI_MAXD {MAXD}\n{cplx}{}",
            dtype.cuda_name(),
            include_str!("fourier.cu")
        ))
    },
    options: &[],
    samples: || crate::cuda::specs([DType::F32, DType::F64, DType::C32, DType::C64]),
};

/// The per-axis parameters by value (`NdiParams { double p[NDI_MAXD]; }` of fourier.cu).
#[repr(C)]
#[derive(Clone, Copy)]
struct Params([f64; MAXD]);

// SAFETY: plain data, the layout of `struct { double p[NDI_MAXD]; }` (NDI_MAXD = MAXD).
unsafe impl KernelParam for Params {}

/// The extents by value (`NdiFDims { i64 d[NDI_MAXD]; }` of fourier.cu).
#[repr(C)]
#[derive(Clone, Copy)]
struct FDims([i64; MAXD]);

// SAFETY: plain data, the layout of `struct { i64 d[NDI_MAXD]; }` (NDI_MAXD = MAXD).
unsafe impl KernelParam for FDims {}

/// J1 by the trapezoidal rule on Bessel's integral (exponentially convergent; same as the GPU).
fn j1(x: f64) -> f64 {
    let m = 2 * x.abs().ceil() as usize + 40;
    let mut s = 0.0;
    for k in 0..m {
        let t = 2.0 * std::f64::consts::PI * k as f64 / m as f64;
        s += (t - x * t.sin()).cos();
    }
    s / m as f64
}

/// Axis `d`'s term of the factor at index `c` along it: the per-axis factor of the Gaussian and
/// the box (SciPy's tables: `exp(p·f·f)` for an axis longer than 1, 0 where `|p·f·f| > 50`),
/// `t²` of the ellipsoid, `t` of the shift (`t = par[d]·f`, `f` the signed frequency index).
fn axis_term(kind: Kind, d: usize, c: i64, len: i64, real_axis: bool, par: &[f64]) -> f64 {
    let f = if real_axis || c < (len + 1) / 2 {
        c as f64
    } else {
        (c - len) as f64
    };
    let t = par[d] * f;
    match kind {
        Kind::Gaussian if len > 1 => {
            let e = par[d] * f * f;
            if e.abs() > 50.0 {
                0.0
            } else {
                e.exp()
            }
        }
        Kind::Gaussian => 1.0,
        Kind::Uniform if par[d] < 0.0 => {
            if f == 0.0 {
                1.0
            } else {
                0.0
            }
        }
        Kind::Uniform => {
            if t != 0.0 {
                t.sin() / t
            } else {
                1.0
            }
        }
        Kind::Ellipsoid => t * t,
        Kind::Shift => t,
    }
}

/// The factor from the axes' terms combined in axis order: `acc` their product (Gaussian, box)
/// or sum (ellipsoid, shift).
fn factor(kind: Kind, rank: usize, acc: f64) -> (f64, f64) {
    match kind {
        Kind::Gaussian | Kind::Uniform => (acc, 0.0),
        Kind::Ellipsoid => {
            let t = acc.sqrt();
            if t > 0.0 {
                (
                    match rank {
                        1 => t.sin() / t,
                        2 => 2.0 * j1(t) / t,
                        _ => 3.0 * (t.sin() - t * t.cos()) / (t * t * t),
                    },
                    0.0,
                )
            } else {
                (1.0, 0.0)
            }
        }
        Kind::Shift => (acc.cos(), acc.sin()),
    }
}

fn apply<T: Element>(
    op: &str,
    x: &Array<T>,
    kind: Kind,
    values: &[f64],
    n: Option<usize>,
    axis: isize,
) -> Result<Array<T>> {
    match T::DTYPE {
        DType::C32 | DType::C64 => {}
        DType::F32 | DType::F64 if kind != Kind::Shift => {}
        d => return Err(make::dtype(op, d)),
    }
    let rank = x.ndim();
    if rank == 0 || rank > MAXD {
        return Err(make::arg(
            op,
            format!("the input must have 1 to {MAXD} dimensions"),
        ));
    }
    if kind == Kind::Ellipsoid && rank > 3 {
        return Err(make::arg(op, "fourier_ellipsoid supports ranks 1 to 3"));
    }
    let axis = norm_axis(op, axis, rank)?;
    let v: Vec<f64> = match values.len() {
        1 => vec![values[0]; rank],
        k if k == rank => values.to_vec(),
        k => return Err(make::arg(op, format!("{k} values for {rank} axes"))),
    };
    // SciPy checks nothing: its factors are even in sigma / size, so a negative value acts as its
    // absolute value; NaN is refused here (SciPy gives NaN factors or leaves the input alone)
    if kind != Kind::Shift && v.iter().any(|s| s.is_nan()) {
        return Err(make::arg(op, "sigma / size must not be NaN"));
    }
    // n is the length of the real transform's input along `axis`: SciPy accepts 0 and gives NaN
    // factors (every frequency but the zero one)
    if n == Some(0) {
        return Err(make::arg(
            op,
            "n (the real transform's length) must be at least 1",
        ));
    }
    let shape = x.shape().to_vec();
    let nfull: i64 = n.map(|v| v as i64).unwrap_or(-1);
    let pi = std::f64::consts::PI;
    let par: Vec<f64> = (0..rank)
        .map(|d| {
            let len = if d == axis && nfull >= 0 {
                nfull as f64
            } else {
                shape[d] as f64
            };
            match kind {
                // SciPy's −2·(σπ/n)²
                Kind::Gaussian => {
                    let q = v[d] * pi / len;
                    -2.0 * q * q
                }
                // SciPy's fourier_uniform: an axis of size ≤ 0 keeps only its zero frequency
                // (factor 1 there, 0 elsewhere), marked by the parameter -1
                Kind::Uniform if v[d] <= 0.0 => -1.0,
                Kind::Uniform | Kind::Ellipsoid => pi * v[d] / len,
                Kind::Shift => -2.0 * pi * v[d] / len,
            }
        })
        .collect();
    if x.size() == 0 {
        return x.copy();
    }
    let f = Factors {
        kind,
        axis,
        nfull,
        par: &par,
    };
    match x.backend() {
        Backend::Host(h) => fourier_cpu(&h.try_to_contiguous()?, &shape, &f),
        Backend::Cuda(c) => fourier_cuda(c.dev(), x, &f),
    }
}

/// The factors of one filter: its kind, the axis holding a real transform of length `nfull`
/// (`nfull < 0`: none) and the per-axis parameters.
#[derive(Clone, Copy)]
struct Factors<'a> {
    kind: Kind,
    axis: usize,
    nfull: i64,
    par: &'a [f64],
}

/// The CPU filter of the C-order elements `xv` of `shape`: the axes' terms once per index
/// (SciPy's tables), then row by row, the terms of the axes before the last combined once per
/// row, in axis order.
fn fourier_cpu<T: Element>(xv: &[T], shape: &[usize], f: &Factors) -> Result<Array<T>> {
    let Factors {
        kind,
        axis,
        nfull,
        par,
    } = *f;
    let rank = shape.len();
    let product = matches!(kind, Kind::Gaussian | Kind::Uniform);
    let combine = |a: f64, t: f64| if product { a * t } else { a + t };
    let terms: Vec<Vec<f64>> = (0..rank)
        .map(|d| {
            let len = shape[d] as i64;
            let real_axis = d == axis && nfull >= 0;
            (0..len)
                .map(|c| axis_term(kind, d, c, len, real_axis, par))
                .collect()
        })
        .collect();
    let last = rank - 1;
    let mut out = xv.to_vec();
    out.par_chunks_mut(shape[last])
        .enumerate()
        .for_each(|(row, o)| {
            let mut acc = if product { 1.0 } else { 0.0 };
            let mut r = row;
            let mut idx = [0usize; MAXD];
            for d in (0..last).rev() {
                idx[d] = r % shape[d];
                r /= shape[d];
            }
            for d in 0..last {
                acc = combine(acc, terms[d][idx[d]]);
            }
            for (e, &t) in o.iter_mut().zip(&terms[last]) {
                let (fr, fi) = factor(kind, rank, combine(acc, t));
                *e = T::from_c64(e.to_c64() * c64::new(fr, fi));
            }
        });
    Array::from_vec(out, shape, &Device::Cpu)
}

/// The CUDA filter: one element-wise pass (`ndi_fourier`).
fn fourier_cuda<T: Element>(d: &CudaDevice, x: &Array<T>, f: &Factors) -> Result<Array<T>> {
    let shape = x.shape();
    let rank = shape.len();
    let xc = x.contiguous()?;
    let mut out = Array::<T>::empty(shape, x.device())?; // every element is written
    let k = FOURIER.function(d, &Spec::of(&[T::DTYPE]), "ndi_fourier")?;
    let mut p = [0f64; MAXD];
    p[..rank].copy_from_slice(&f.par[..rank]);
    let mut dims = [1i64; MAXD];
    for (a, &s) in dims.iter_mut().zip(shape) {
        *a = s as i64;
    }
    let total = x.size();
    d.launch(&k, linear(total))
        .arg(xc.dev_ptr()?)
        .arg(out.dev_ptr_mut()?)
        .arg(total as i64)
        .arg(rank as i32)
        .arg(FDims(dims))
        .arg(f.axis as i32)
        .arg(f.nfull)
        .arg(f.kind as i32)
        .arg(Params(p))
        .run()?;
    Ok(out)
}

/// The public filters, each SciPy's `(input, values, n, axis)`: `pub fn name(values) = "op", Kind`
/// runs [`apply`] in the input's type, `pub fn name<I, O>(values) = ...` runs [`apply_as`] with
/// SciPy's output types.
macro_rules! fourier_filter {
    ($(#[$doc:meta])* pub fn $name:ident($values:ident) = $op:literal, $kind:ident) => {
        $(#[$doc])*
        pub fn $name<T: Element>(
            input: &Array<T>,
            $values: &[f64],
            n: Option<usize>,
            axis: isize,
        ) -> Result<Array<T>> {
            apply($op, input, Kind::$kind, $values, n, axis)
        }
    };
    ($(#[$doc:meta])* pub fn $name:ident<I, O>($values:ident) = $op:literal, $kind:ident) => {
        $(#[$doc])*
        pub fn $name<I: Element, O: Element>(
            input: &Array<I>,
            $values: &[f64],
            n: Option<usize>,
            axis: isize,
        ) -> Result<Array<O>> {
            apply_as($op, input, Kind::$kind, $values, n, axis)
        }
    };
}

fourier_filter! {
    /// Multiplies a Fourier transform by that of a Gaussian of standard deviation `sigma` (one
    /// value or one per axis): `exp(−2π²σ²f²)` (`scipy.ndimage.fourier_gaussian`).
    ///
    /// Numerics: SciPy's factors, per axis `exp(p·k·k)` with `p = −2(σπ/n)²` for the integer
    /// frequency `k`, exactly 0 where `|p·k·k| > 50`, multiplied axis by axis (bit for bit with
    /// SciPy on the CPU; the GPU's `exp` within an ulp).
    ///
    /// # Errors
    /// `UnsupportedDType` for integer inputs (SciPy returns float64 for them: use
    /// [`fourier_gaussian_as`]`::<I, f64>`; here the output has the input's type);
    /// `InvalidArgument` for a NaN sigma, `n` = 0, a bad axis or a wrong number of sigmas (as in
    /// SciPy, a negative sigma or ellipsoid size acts as its absolute value, and a uniform size
    /// ≤ 0 keeps only the zero frequency of its axis).
    ///
    /// ```
    /// use cusci_ndimage::{fourier_gaussian, Array, Device};
    /// use cusci_core::c64;
    /// let x = Array::from_vec(vec![c64::new(1.0, 0.0); 4], &[4], &Device::Cpu).unwrap();
    /// let y = fourier_gaussian(&x, &[1.0], None, -1).unwrap().to_vec().unwrap();
    /// assert_eq!(y[0], c64::new(1.0, 0.0)); // the zero frequency is kept
    /// ```
    pub fn fourier_gaussian(sigma) = "fourier_gaussian", Gaussian
}

fourier_filter! {
    /// Multiplies a Fourier transform by that of a box of `size` (one value or one per axis): the
    /// product of `sin(πsf)/(πsf)` over axes (`scipy.ndimage.fourier_uniform`).
    ///
    /// # Errors
    /// As [`fourier_gaussian`].
    ///
    /// ```
    /// use cusci_ndimage::{fourier_uniform, Array, Device};
    /// let x = Array::from_vec(vec![1.0f64; 4], &[4], &Device::Cpu).unwrap();
    /// let y = fourier_uniform(&x, &[2.0], None, -1).unwrap().to_vec().unwrap();
    /// assert!(y[2].abs() < 1e-15); // sinc zero at f = 1/2 for a box of 2
    /// ```
    pub fn fourier_uniform(size) = "fourier_uniform", Uniform
}

fourier_filter! {
    /// Multiplies a Fourier transform by that of an ellipsoid of semi-axes `size` (ranks 1–3;
    /// `scipy.ndimage.fourier_ellipsoid`).
    ///
    /// # Errors
    /// As [`fourier_gaussian`], and `InvalidArgument` for a rank above 3.
    ///
    /// ```
    /// use cusci_ndimage::{fourier_ellipsoid, Array, Device};
    /// let x = Array::from_vec(vec![1.0f64; 6], &[2, 3], &Device::Cpu).unwrap();
    /// let y = fourier_ellipsoid(&x, &[1.0], None, -1).unwrap().to_vec().unwrap();
    /// assert_eq!(y[0], 1.0);
    /// ```
    pub fn fourier_ellipsoid(size) = "fourier_ellipsoid", Ellipsoid
}

fourier_filter! {
    /// Multiplies a (complex) Fourier transform by `exp(−2πi·shift·f)`, shifting the signal by
    /// `shift` (one value or one per axis; `scipy.ndimage.fourier_shift`).
    ///
    /// # Errors
    /// `UnsupportedDType` for real or integer inputs (SciPy returns complex128 for them: use
    /// [`fourier_shift_as`]`::<I, c64>`); as [`fourier_gaussian`].
    ///
    /// ```
    /// use cusci_ndimage::{fourier_shift, Array, Device};
    /// use cusci_core::c64;
    /// let x = Array::from_vec(vec![c64::new(1.0, 0.0); 4], &[4], &Device::Cpu).unwrap();
    /// let y = fourier_shift(&x, &[1.0], None, -1).unwrap().to_vec().unwrap();
    /// assert!((y[1] - c64::new(0.0, -1.0)).norm() < 1e-15);
    /// ```
    pub fn fourier_shift(shift) = "fourier_shift", Shift
}

// ---------------------------------------------------------------- SciPy's output types

/// The `*_as` body: SciPy's `_get_output_fourier(_complex)` checks, the input read as f64 (real)
/// or c64 (complex) as SciPy's C code reads it, the factor applied in double on either device,
/// the product stored in `O` (f32/c32 rounded to nearest; real to complex with a zero imaginary
/// part).
fn apply_as<I: Element, O: Element>(
    op: &str,
    x: &Array<I>,
    kind: Kind,
    values: &[f64],
    n: Option<usize>,
    axis: isize,
) -> Result<Array<O>> {
    let complex_in = matches!(I::DTYPE, DType::C32 | DType::C64);
    let complex_out = matches!(O::DTYPE, DType::C32 | DType::C64);
    let real_out = matches!(O::DTYPE, DType::F32 | DType::F64);
    // SciPy: RuntimeError('output type not supported') for other output types (fourier_shift:
    // complex only), RuntimeError('data type not supported') for complex input into real output
    if !(complex_out || (real_out && kind != Kind::Shift)) {
        return Err(make::dtype(op, O::DTYPE));
    }
    if complex_in && !complex_out {
        return Err(make::dtype(op, I::DTYPE));
    }
    if complex_in || kind == Kind::Shift {
        apply(op, &x.astype::<c64>()?, kind, values, n, axis)?.astype::<O>()
    } else {
        apply(op, &x.astype::<f64>()?, kind, values, n, axis)?.astype::<O>()
    }
}

fourier_filter! {
    /// [`fourier_gaussian`] with SciPy's result types (`scipy.ndimage.fourier_gaussian(input,
    /// sigma, n, axis, output=O)`): any input type (integers and bool included), `O` one of f32,
    /// f64, c32, c64. SciPy's default output (`output=None`) is the input's type for f32, f64, c32
    /// and c64 and f64 for every other input (integers, bool): `fourier_gaussian_as::<i32, f64>`
    /// is SciPy's `fourier_gaussian(int_array, sigma)`. The input is read as f64 (or c64), the
    /// factor applied in double and the product stored in `O` (rounded for f32/c32; a real input
    /// gives a zero imaginary part), as SciPy does on either device; the plain
    /// [`fourier_gaussian`] keeps the input's type and works in f32 for f32/c32 inputs on a GPU.
    ///
    /// # Errors
    /// `UnsupportedDType` for an integer or bool `O` (SciPy: `output type not supported`) and for a
    /// complex input with a real `O` (SciPy: `data type not supported`); otherwise as
    /// [`fourier_gaussian`].
    ///
    /// ```
    /// use cusci_ndimage::{fourier_gaussian_as, Array, Device};
    /// let x = Array::from_vec(vec![1i32, 2, 3, 4], &[4], &Device::Cpu).unwrap();
    /// let y = fourier_gaussian_as::<i32, f64>(&x, &[1.0], None, -1).unwrap().to_vec().unwrap();
    /// // exp(-2π²σ²f²) at f = 0, 1/4, -1/2, -1/4
    /// let w = |f: f64| (-2.0 * std::f64::consts::PI.powi(2) * f * f).exp();
    /// assert_eq!(y[0], 1.0);
    /// assert!((y[1] - 2.0 * w(0.25)).abs() < 1e-15);
    /// ```
    pub fn fourier_gaussian_as<I, O>(sigma) = "fourier_gaussian", Gaussian
}

fourier_filter! {
    /// [`fourier_uniform`] with SciPy's result types (`scipy.ndimage.fourier_uniform(...,
    /// output=O)`): as [`fourier_gaussian_as`] (SciPy's default: f64 for integer and bool input).
    ///
    /// # Errors
    /// As [`fourier_gaussian_as`].
    ///
    /// ```
    /// use cusci_ndimage::{fourier_uniform_as, Array, Device};
    /// let x = Array::from_vec(vec![4u8, 4, 4, 4], &[4], &Device::Cpu).unwrap();
    /// let y = fourier_uniform_as::<u8, f32>(&x, &[2.0], None, -1).unwrap().to_vec().unwrap();
    /// assert_eq!(y[0], 4.0);
    /// assert!(y[2].abs() < 1e-6); // sinc zero at f = 1/2 for a box of 2
    /// ```
    pub fn fourier_uniform_as<I, O>(size) = "fourier_uniform", Uniform
}

fourier_filter! {
    /// [`fourier_ellipsoid`] with SciPy's result types (`scipy.ndimage.fourier_ellipsoid(...,
    /// output=O)`): as [`fourier_gaussian_as`] (SciPy's default: f64 for integer and bool input).
    ///
    /// # Errors
    /// As [`fourier_gaussian_as`], and `InvalidArgument` for a rank above 3.
    ///
    /// ```
    /// use cusci_ndimage::{fourier_ellipsoid_as, Array, Device};
    /// use cusci_core::c64;
    /// let x = Array::from_vec(vec![1i64; 6], &[2, 3], &Device::Cpu).unwrap();
    /// let y = fourier_ellipsoid_as::<i64, c64>(&x, &[1.0], None, -1).unwrap().to_vec().unwrap();
    /// assert_eq!(y[0], c64::new(1.0, 0.0));
    /// ```
    pub fn fourier_ellipsoid_as<I, O>(size) = "fourier_ellipsoid", Ellipsoid
}

fourier_filter! {
    /// [`fourier_shift`] with SciPy's result types (`scipy.ndimage.fourier_shift(input, shift, n,
    /// axis, output=O)`): any input type, `O` c32 or c64. SciPy's default output is the input's
    /// type for c32 and c64 and c64 (complex128) for every real input:
    /// `fourier_shift_as::<f64, c64>` is SciPy's `fourier_shift(real_array, shift)` (a real input
    /// is the real part of a transform whose imaginary part is zero). Computed in double as
    /// [`fourier_gaussian_as`].
    ///
    /// # Errors
    /// `UnsupportedDType` for a real `O` (SciPy: `output type not supported`); otherwise as
    /// [`fourier_shift`].
    ///
    /// ```
    /// use cusci_ndimage::{fourier_shift_as, Array, Device};
    /// use cusci_core::c64;
    /// let x = Array::from_vec(vec![1.0f64; 4], &[4], &Device::Cpu).unwrap();
    /// let y = fourier_shift_as::<f64, c64>(&x, &[1.0], None, -1).unwrap().to_vec().unwrap();
    /// assert!((y[1] - c64::new(0.0, -1.0)).norm() < 1e-15);
    /// ```
    pub fn fourier_shift_as<I, O>(shift) = "fourier_shift", Shift
}
