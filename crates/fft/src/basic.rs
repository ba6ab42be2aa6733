//! The transforms: argument checks, the per-device raw transforms, and the normalisation.
//!
//! Each public function validates its arguments once, then runs raw (unnormalised) transforms
//! along single axes through [`c2c_axis`], [`r2c_axis`] and [`c2r_axis`], which dispatch on the
//! array's device (the CPU reference in `cpu.rs`; the CUDA side, cuFFT, slots in beside it as
//! `cuda.rs` with the same signatures), and finally applies the normalisation in one place,
//! [`normalize`], for both devices.

use crate::{cpu, cuda, FftComplex, FftInput, FftOptions, FftReal, FftnOptions, Norm};
use cusci_core::array::layout::norm_axis;
use cusci_core::error::make;
use cusci_core::{Array, Device, RealFloat, Result};

// ---------- the per-device raw transforms ----------

/// Unnormalised complex transform of `n` points along `axis` (input cut or zero-padded).
fn c2c_axis<C: FftComplex>(
    op: &str,
    x: &Array<C>,
    axis: usize,
    n: usize,
    forward: bool,
) -> Result<Array<C>> {
    match x.device() {
        Device::Cpu => cpu::c2c_axis(x, axis, n, forward),
        Device::Cuda(_) => {
            cpu::check_size(op, x, axis, n)?;
            cuda::c2c_axis(x, axis, n, forward)
        }
    }
}

/// Unnormalised real-to-complex transform of `n` points along `axis` (`n/2+1` outputs).
fn r2c_axis<T: FftReal>(
    op: &str,
    x: &Array<T>,
    axis: usize,
    n: usize,
) -> Result<Array<T::Complex>> {
    match x.device() {
        Device::Cpu => cpu::r2c_axis(x, axis, n),
        Device::Cuda(_) => {
            cpu::check_size(op, x, axis, n)?;
            cuda::r2c_axis(x, axis, n)
        }
    }
}

/// Unnormalised complex-to-real transform with `n` real outputs along `axis`.
fn c2r_axis<C: FftComplex>(
    op: &str,
    x: &Array<C>,
    axis: usize,
    n: usize,
) -> Result<Array<C::Real>> {
    match x.device() {
        Device::Cpu => cpu::c2r_axis(x, axis, n),
        Device::Cuda(_) => {
            cpu::check_size(op, x, axis, n)?;
            cuda::c2r_axis(x, axis, n)
        }
    }
}

/// The normalisation of every transform: `x` scaled by `norm`'s factor for `n` points (the
/// product of the logical transform lengths) in direction `forward`; nothing when it is 1.
fn normalize<T: cusci_core::Float>(
    x: Array<T>,
    norm: Norm,
    n: usize,
    forward: bool,
) -> Result<Array<T>> {
    let f = norm.factor(n, forward);
    if f == 1.0 {
        return Ok(x);
    }
    x.mul_scalar(T::from_real(<T::Real as RealFloat>::from_f64(f)))
}

// ---------- argument checks ----------

pub(crate) fn bad_len(op: &str, n: usize) -> cusci_core::Error {
    make::arg(op, format!("invalid number of data points ({n}) specified"))
}

/// The axis (normalised) and the transform length of a 1-D transform; `n` defaults to the
/// input's length along the axis (or `default_n(m)` when given, for the c2r transforms).
pub(crate) fn check_1d(
    op: &str,
    shape: &[usize],
    o: &FftOptions,
    c2r: bool,
) -> Result<(usize, usize)> {
    let axis = norm_axis(op, o.axis, shape.len())?;
    let m = shape[axis];
    let n = match o.n {
        Some(n) => n,
        None if c2r => {
            if m == 0 {
                return Err(bad_len(op, 0));
            }
            2 * (m - 1)
        }
        None => m,
    };
    if n == 0 {
        return Err(bad_len(op, n));
    }
    Ok((axis, n))
}

/// The (axis, length) pairs of an n-d transform, in the order given. `default_axes`: the axes
/// when neither `s` nor `axes` is given (`None`: all). `c2r`: the last length defaults to
/// `2*(m-1)`.
pub(crate) fn check_nd(
    op: &str,
    shape: &[usize],
    o: &FftnOptions,
    default_axes: Option<&[isize]>,
    c2r: bool,
) -> Result<Vec<(usize, usize)>> {
    let nd = shape.len();
    let axes: Vec<isize> = match (&o.axes, &o.s) {
        (Some(a), Some(s)) => {
            if a.len() != s.len() {
                return Err(make::shape(
                    op,
                    format!("s {s:?} and axes {a:?} must have the same length when both are given"),
                ));
            }
            a.clone()
        }
        (Some(a), None) => a.clone(),
        (None, Some(s)) => {
            if s.len() > nd {
                return Err(make::shape(
                    op,
                    format!("s {s:?} has more entries than the array's {nd} dimensions"),
                ));
            }
            (nd - s.len()..nd).map(|a| a as isize).collect()
        }
        (None, None) => match default_axes {
            Some(d) => d.to_vec(),
            None => (0..nd).map(|a| a as isize).collect(),
        },
    };
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(axes.len());
    for (i, &a) in axes.iter().enumerate() {
        let ax = norm_axis(op, a, nd)?;
        if out.iter().any(|&(b, _)| b == ax) {
            return Err(make::arg(op, format!("axis {a} is repeated in {axes:?}")));
        }
        let m = shape[ax];
        let last = i + 1 == axes.len();
        let n = match &o.s {
            Some(s) => s[i],
            None if c2r && last => {
                if m == 0 {
                    return Err(bad_len(op, 0));
                }
                2 * (m - 1)
            }
            None => m,
        };
        if n == 0 {
            return Err(bad_len(op, n));
        }
        out.push((ax, n));
    }
    Ok(out)
}

fn need_axes(op: &str, plan: &[(usize, usize)]) -> Result<()> {
    if plan.is_empty() {
        return Err(make::arg(op, "at least one axis must be transformed"));
    }
    Ok(())
}

fn total(plan: &[(usize, usize)]) -> usize {
    plan.iter().map(|&(_, n)| n).product()
}

// ---------- 1-D transforms ----------

/// The one-dimensional discrete Fourier transform, `scipy.fft.fft(x, n, axis, norm)`.
///
/// `y[k] = Σ_j x[j]·exp(-2πi·jk/n)` along `opts.axis`, the input cut or zero-padded to
/// `opts.n` points (default: its length), scaled as `opts.norm` says. Real input (`f32`,
/// `f64`) is converted to complex first, as SciPy does; the result is `c32` or `c64`.
///
/// # Errors
/// `InvalidArgument` for an axis out of range (also for a 0-d array) or a transform length of
/// 0 (`n = Some(0)`, or an empty axis without `n`).
///
/// # Numerics
/// rustfft's mixed-radix, Rader and Bluestein algorithms: errors grow like `ε·log2(n)`.
///
/// ```
/// use cusci_fft::{fft, FftOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 0.0, -1.0, 0.0], &[4], &Device::cpu()).unwrap();
/// let y = fft(&x, &FftOptions::default()).unwrap().to_vec().unwrap();
/// assert!((y[1].re - 2.0).abs() < 1e-12 && y[0].norm() < 1e-12);
/// ```
pub fn fft<X: FftInput>(x: &Array<X>, opts: &FftOptions) -> Result<Array<X::Complex>> {
    let (axis, n) = check_1d("fft", x.shape(), opts, false)?;
    let y = c2c_axis("fft", &X::to_complex(x)?, axis, n, true)?;
    normalize(y, opts.norm, n, true)
}

/// The one-dimensional inverse discrete Fourier transform, `scipy.fft.ifft(x, n, axis, norm)`.
///
/// `y[j] = Σ_k x[k]·exp(+2πi·jk/n)` scaled by `1/n` (by default), along `opts.axis`, the input
/// cut or zero-padded to `opts.n` points. Real input is converted to complex first.
///
/// # Errors
/// As [`fft`].
///
/// ```
/// use cusci_fft::{fft, ifft, FftOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3], &Device::cpu()).unwrap();
/// let o = FftOptions::default();
/// let back = ifft(&fft(&x, &o).unwrap(), &o).unwrap().to_vec().unwrap();
/// assert!((back[1].re - 2.0).abs() < 1e-12 && back[1].im.abs() < 1e-12);
/// ```
pub fn ifft<X: FftInput>(x: &Array<X>, opts: &FftOptions) -> Result<Array<X::Complex>> {
    let (axis, n) = check_1d("ifft", x.shape(), opts, false)?;
    let y = c2c_axis("ifft", &X::to_complex(x)?, axis, n, false)?;
    normalize(y, opts.norm, n, false)
}

/// The discrete Fourier transform of real input, `scipy.fft.rfft(x, n, axis, norm)`.
///
/// The non-negative frequency terms `0..=n/2` of [`fft`] of the real `x` (cut or zero-padded to
/// `opts.n` points along `opts.axis`): `n/2+1` complex values (the rest follow by Hermitian
/// symmetry).
///
/// # Errors
/// As [`fft`].
///
/// ```
/// use cusci_fft::{rfft, FftOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f32, 1.0, 1.0, 1.0, 1.0], &[5], &Device::cpu()).unwrap();
/// let y = rfft(&x, &FftOptions::default()).unwrap();
/// assert_eq!(y.shape(), &[3]);
/// assert!((y.to_vec().unwrap()[0].re - 5.0).abs() < 1e-6);
/// ```
pub fn rfft<T: FftReal>(x: &Array<T>, opts: &FftOptions) -> Result<Array<T::Complex>> {
    let (axis, n) = check_1d("rfft", x.shape(), opts, false)?;
    let y = r2c_axis("rfft", x, axis, n)?;
    normalize(y, opts.norm, n, true)
}

/// The inverse of [`rfft`], `scipy.fft.irfft(x, n, axis, norm)`: `n` real outputs from the
/// non-negative frequency terms `x` of a Hermitian spectrum.
///
/// `opts.n` is the length of the output (default `2*(m-1)` for `m` input points along the
/// axis); the input is cut or zero-padded to `n/2+1` points. The imaginary parts of the
/// zero-frequency term and (even `n`) of the Nyquist term are ignored, as in SciPy.
///
/// # Errors
/// As [`fft`]; also `InvalidArgument` when the default length `2*(m-1)` is 0 (one input point).
///
/// ```
/// use cusci_fft::{rfft, irfft, FftOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0], &[5], &Device::cpu()).unwrap();
/// let y = rfft(&x, &FftOptions::default()).unwrap();
/// let back = irfft(&y, &FftOptions { n: Some(5), ..Default::default() }).unwrap();
/// assert!((back.to_vec().unwrap()[4] - 5.0).abs() < 1e-12);
/// ```
pub fn irfft<C: FftComplex>(x: &Array<C>, opts: &FftOptions) -> Result<Array<C::Real>> {
    let (axis, n) = check_1d("irfft", x.shape(), opts, true)?;
    let y = c2r_axis("irfft", x, axis, n)?;
    normalize(y, opts.norm, n, false)
}

/// The transform of a signal with Hermitian symmetry, `scipy.fft.hfft(x, n, axis, norm)`: the
/// real spectrum (`n` points, default `2*(m-1)`) of the signal whose first half is `x`.
///
/// Computed as the complex-to-real transform of `conj(x)`; a forward transform for the
/// normalisation (no scaling by default).
///
/// # Errors
/// As [`irfft`].
///
/// ```
/// use cusci_fft::{hfft, FftOptions, Array, Device, c64};
/// let x = Array::from_vec(vec![c64::new(1.0, 0.0), c64::new(0.0, 0.0)], &[2], &Device::cpu()).unwrap();
/// let y = hfft(&x, &FftOptions::default()).unwrap().to_vec().unwrap();
/// assert_eq!(y.len(), 2);
/// assert!((y[0] - 1.0).abs() < 1e-12 && (y[1] - 1.0).abs() < 1e-12);
/// ```
pub fn hfft<C: FftComplex>(x: &Array<C>, opts: &FftOptions) -> Result<Array<C::Real>> {
    let (axis, n) = check_1d("hfft", x.shape(), opts, true)?;
    let y = c2r_axis("hfft", &x.conj()?, axis, n)?;
    normalize(y, opts.norm, n, true)
}

/// The inverse of [`hfft`], `scipy.fft.ihfft(x, n, axis, norm)`: `conj(rfft(x))` of the real
/// `x` (cut or zero-padded to `opts.n` points), an inverse transform for the normalisation
/// (scaled by `1/n` by default); `n/2+1` outputs.
///
/// # Errors
/// As [`fft`].
///
/// ```
/// use cusci_fft::{ihfft, FftOptions, Array, Device};
/// let x = Array::from_vec(vec![2.0f64, 2.0, 2.0, 2.0], &[4], &Device::cpu()).unwrap();
/// let y = ihfft(&x, &FftOptions::default()).unwrap().to_vec().unwrap();
/// assert!((y[0].re - 2.0).abs() < 1e-12 && y[1].norm() < 1e-12);
/// ```
pub fn ihfft<T: FftReal>(x: &Array<T>, opts: &FftOptions) -> Result<Array<T::Complex>> {
    let (axis, n) = check_1d("ihfft", x.shape(), opts, false)?;
    let y = r2c_axis("ihfft", x, axis, n)?.conj()?;
    normalize(y, opts.norm, n, false)
}

// ---------- n-D transforms ----------

fn c2c_nd<X: FftInput>(
    op: &str,
    x: &Array<X>,
    opts: &FftnOptions,
    default_axes: Option<&[isize]>,
    forward: bool,
) -> Result<Array<X::Complex>> {
    let plan = check_nd(op, x.shape(), opts, default_axes, false)?;
    let mut y = X::to_complex(x)?;
    if y.device().is_cuda() && cuda::trailing_fits(y.shape(), &plan) {
        let y = cuda::c2c_trailing(&y, &plan, forward)?;
        return normalize(y, opts.norm, total(&plan), forward);
    }
    for &(axis, n) in plan.iter().rev() {
        y = c2c_axis(op, &y, axis, n, forward)?;
    }
    normalize(y, opts.norm, total(&plan), forward)
}

fn r2c_nd<T: FftReal>(
    op: &str,
    x: &Array<T>,
    opts: &FftnOptions,
    default_axes: Option<&[isize]>,
) -> Result<Array<T::Complex>> {
    let plan = check_nd(op, x.shape(), opts, default_axes, false)?;
    need_axes(op, &plan)?;
    if x.device().is_cuda() && cuda::trailing_fits(x.shape(), &plan) {
        let y = cuda::r2c_trailing(x, &plan)?;
        return normalize(y, opts.norm, total(&plan), true);
    }
    let (&(last, nl), rest) = plan.split_last().expect("checked non-empty");
    let mut y = r2c_axis(op, x, last, nl)?;
    for &(axis, n) in rest.iter().rev() {
        y = c2c_axis(op, &y, axis, n, true)?;
    }
    normalize(y, opts.norm, total(&plan), true)
}

fn c2r_nd<C: FftComplex>(
    op: &str,
    x: &Array<C>,
    opts: &FftnOptions,
    default_axes: Option<&[isize]>,
) -> Result<Array<C::Real>> {
    let plan = check_nd(op, x.shape(), opts, default_axes, true)?;
    need_axes(op, &plan)?;
    let (&(last, nl), rest) = plan.split_last().expect("checked non-empty");
    let mut y = x.clone();
    for &(axis, n) in rest {
        y = c2c_axis(op, &y, axis, n, false)?;
    }
    let y = c2r_axis(op, &y, last, nl)?;
    normalize(y, opts.norm, total(&plan), false)
}

/// The n-dimensional discrete Fourier transform, `scipy.fft.fftn(x, s, axes, norm)`: [`fft`]
/// along each of the axes (see [`FftnOptions`] for `s`/`axes` and their defaults), normalised
/// once by the product of the transform lengths. Real input is converted to complex first.
/// With `axes = Some(vec![])` the input is returned as complex, untransformed.
///
/// # Errors
/// `InvalidArgument` for axes out of range or repeated and for transform lengths of 0;
/// `ShapeMismatch` when `s` and `axes` differ in length, or `s` alone has more entries than the
/// array has dimensions.
///
/// ```
/// use cusci_fft::{fftn, FftnOptions, Array, Device};
/// let x = Array::<f64>::ones(&[2, 3, 4], &Device::cpu()).unwrap();
/// let y = fftn(&x, &FftnOptions::default()).unwrap().to_vec().unwrap();
/// assert!((y[0].re - 24.0).abs() < 1e-12 && y[1].norm() < 1e-12);
/// ```
pub fn fftn<X: FftInput>(x: &Array<X>, opts: &FftnOptions) -> Result<Array<X::Complex>> {
    c2c_nd("fftn", x, opts, None, true)
}

/// The n-dimensional inverse discrete Fourier transform, `scipy.fft.ifftn(x, s, axes, norm)`:
/// [`ifft`] along each of the axes, normalised once.
///
/// # Errors
/// As [`fftn`].
///
/// ```
/// use cusci_fft::{fftn, ifftn, FftnOptions, Array, Device};
/// let x = Array::<f64>::arange(0.0, 6.0, 1.0, &Device::cpu()).unwrap().reshape(&[2, 3]).unwrap();
/// let o = FftnOptions::default();
/// let back = ifftn(&fftn(&x, &o).unwrap(), &o).unwrap().to_vec().unwrap();
/// assert!((back[5].re - 5.0).abs() < 1e-12);
/// ```
pub fn ifftn<X: FftInput>(x: &Array<X>, opts: &FftnOptions) -> Result<Array<X::Complex>> {
    c2c_nd("ifftn", x, opts, None, false)
}

/// The two-dimensional discrete Fourier transform, `scipy.fft.fft2(x, s, axes=(-2, -1), norm)`:
/// [`fftn`] with the last two axes by default.
///
/// # Errors
/// As [`fftn`] (an array of fewer than 2 dimensions with the default axes is `InvalidArgument`).
///
/// ```
/// use cusci_fft::{fft2, FftnOptions, Array, Device};
/// let x = Array::<f32>::ones(&[2, 2], &Device::cpu()).unwrap();
/// let y = fft2(&x, &FftnOptions::default()).unwrap().to_vec().unwrap();
/// assert!((y[0].re - 4.0).abs() < 1e-6);
/// ```
pub fn fft2<X: FftInput>(x: &Array<X>, opts: &FftnOptions) -> Result<Array<X::Complex>> {
    c2c_nd("fft2", x, opts, Some(&[-2, -1]), true)
}

/// The two-dimensional inverse discrete Fourier transform,
/// `scipy.fft.ifft2(x, s, axes=(-2, -1), norm)`.
///
/// # Errors
/// As [`fft2`].
///
/// ```
/// use cusci_fft::{ifft2, FftnOptions, Array, Device};
/// let x = Array::<f64>::ones(&[2, 2], &Device::cpu()).unwrap();
/// let y = ifft2(&x, &FftnOptions::default()).unwrap().to_vec().unwrap();
/// assert!((y[0].re - 1.0).abs() < 1e-12 && y[3].norm() < 1e-12);
/// ```
pub fn ifft2<X: FftInput>(x: &Array<X>, opts: &FftnOptions) -> Result<Array<X::Complex>> {
    c2c_nd("ifft2", x, opts, Some(&[-2, -1]), false)
}

/// The n-dimensional discrete Fourier transform of real input,
/// `scipy.fft.rfftn(x, s, axes, norm)`: [`rfft`] along the last of the axes (which then holds
/// `n/2+1` points), then [`fft`] along the others; normalised once by the product of the
/// logical lengths.
///
/// # Errors
/// As [`fftn`]; also `InvalidArgument` for an empty list of axes.
///
/// ```
/// use cusci_fft::{rfftn, FftnOptions, Array, Device};
/// let x = Array::<f64>::ones(&[3, 4], &Device::cpu()).unwrap();
/// let y = rfftn(&x, &FftnOptions::default()).unwrap();
/// assert_eq!(y.shape(), &[3, 3]);
/// assert!((y.to_vec().unwrap()[0].re - 12.0).abs() < 1e-12);
/// ```
pub fn rfftn<T: FftReal>(x: &Array<T>, opts: &FftnOptions) -> Result<Array<T::Complex>> {
    r2c_nd("rfftn", x, opts, None)
}

/// The inverse of [`rfftn`], `scipy.fft.irfftn(x, s, axes, norm)`: [`ifft`] along all but the
/// last of the axes, then [`irfft`] along the last, whose output length is the last entry of
/// `s` (default `2*(m-1)`).
///
/// # Errors
/// As [`rfftn`].
///
/// ```
/// use cusci_fft::{rfftn, irfftn, FftnOptions, Array, Device};
/// let x = Array::<f64>::arange(0.0, 15.0, 1.0, &Device::cpu()).unwrap().reshape(&[3, 5]).unwrap();
/// let y = rfftn(&x, &FftnOptions::default()).unwrap();
/// let back = irfftn(&y, &FftnOptions { s: Some(vec![3, 5]), ..Default::default() }).unwrap();
/// assert!((back.to_vec().unwrap()[14] - 14.0).abs() < 1e-12);
/// ```
pub fn irfftn<C: FftComplex>(x: &Array<C>, opts: &FftnOptions) -> Result<Array<C::Real>> {
    c2r_nd("irfftn", x, opts, None)
}

/// The two-dimensional transform of real input, `scipy.fft.rfft2(x, s, axes=(-2, -1), norm)`.
///
/// # Errors
/// As [`rfftn`].
///
/// ```
/// use cusci_fft::{rfft2, FftnOptions, Array, Device};
/// let x = Array::<f32>::ones(&[2, 6], &Device::cpu()).unwrap();
/// assert_eq!(rfft2(&x, &FftnOptions::default()).unwrap().shape(), &[2, 4]);
/// ```
pub fn rfft2<T: FftReal>(x: &Array<T>, opts: &FftnOptions) -> Result<Array<T::Complex>> {
    r2c_nd("rfft2", x, opts, Some(&[-2, -1]))
}

/// The inverse of [`rfft2`], `scipy.fft.irfft2(x, s, axes=(-2, -1), norm)`.
///
/// # Errors
/// As [`rfftn`].
///
/// ```
/// use cusci_fft::{irfft2, FftnOptions, Array, Device, c64};
/// let x = Array::<c64>::ones(&[2, 4], &Device::cpu()).unwrap();
/// assert_eq!(irfft2(&x, &FftnOptions::default()).unwrap().shape(), &[2, 6]);
/// ```
pub fn irfft2<C: FftComplex>(x: &Array<C>, opts: &FftnOptions) -> Result<Array<C::Real>> {
    c2r_nd("irfft2", x, opts, Some(&[-2, -1]))
}

/// The n-dimensional transform of a Hermitian-symmetric signal, `scipy.fft.hfftn(x, s, axes,
/// norm)`: the real spectrum of the signal whose half (along the last of the axes) is `x`,
/// computed as [`irfftn`] of `conj(x)` with the forward normalisation (no scaling by default).
/// The last length of `s` is the real output's (default `2*(m-1)`).
///
/// # Errors
/// As [`irfftn`].
///
/// ```
/// use cusci_fft::{hfftn, FftnOptions, Array, Device, c64};
/// let x = Array::<c64>::ones(&[2, 3], &Device::cpu()).unwrap();
/// let y = hfftn(&x, &FftnOptions::default()).unwrap();
/// assert_eq!(y.shape(), &[2, 4]);
/// assert!((y.to_vec().unwrap()[0] - 8.0).abs() < 1e-12);
/// ```
pub fn hfftn<C: FftComplex>(x: &Array<C>, opts: &FftnOptions) -> Result<Array<C::Real>> {
    hermitian_nd("hfftn", x, opts, None)
}

/// The two-dimensional [`hfftn`], `scipy.fft.hfft2(x, s, axes=(-2, -1), norm)`.
///
/// # Errors
/// As [`hfftn`].
///
/// ```
/// use cusci_fft::{hfft2, FftnOptions, Array, Device, c32};
/// let x = Array::<c32>::ones(&[3, 2, 5], &Device::cpu()).unwrap();
/// assert_eq!(hfft2(&x, &FftnOptions::default()).unwrap().shape(), &[3, 2, 8]);
/// ```
pub fn hfft2<C: FftComplex>(x: &Array<C>, opts: &FftnOptions) -> Result<Array<C::Real>> {
    hermitian_nd("hfft2", x, opts, Some(&[-2, -1]))
}

fn hermitian_nd<C: FftComplex>(
    op: &str,
    x: &Array<C>,
    opts: &FftnOptions,
    default_axes: Option<&[isize]>,
) -> Result<Array<C::Real>> {
    let plan = check_nd(op, x.shape(), opts, default_axes, true)?;
    need_axes(op, &plan)?;
    let (&(last, nl), rest) = plan.split_last().expect("checked non-empty");
    let mut y = x.conj()?;
    for &(axis, n) in rest {
        y = c2c_axis(op, &y, axis, n, false)?;
    }
    let y = c2r_axis(op, &y, last, nl)?;
    normalize(y, opts.norm, total(&plan), true)
}

/// The inverse of [`hfftn`], `scipy.fft.ihfftn(x, s, axes, norm)`: `conj(rfftn(x))` of the
/// real `x` with the inverse normalisation (scaled by `1/n` by default).
///
/// # Errors
/// As [`rfftn`].
///
/// ```
/// use cusci_fft::{ihfftn, FftnOptions, Array, Device};
/// let x = Array::<f64>::ones(&[2, 4], &Device::cpu()).unwrap();
/// let y = ihfftn(&x, &FftnOptions::default()).unwrap();
/// assert_eq!(y.shape(), &[2, 3]);
/// assert!((y.to_vec().unwrap()[0].re - 1.0).abs() < 1e-12);
/// ```
pub fn ihfftn<T: FftReal>(x: &Array<T>, opts: &FftnOptions) -> Result<Array<T::Complex>> {
    inv_hermitian_nd("ihfftn", x, opts, None)
}

/// The two-dimensional [`ihfftn`], `scipy.fft.ihfft2(x, s, axes=(-2, -1), norm)`.
///
/// # Errors
/// As [`ihfftn`].
///
/// ```
/// use cusci_fft::{ihfft2, FftnOptions, Array, Device};
/// let x = Array::<f32>::ones(&[3, 6], &Device::cpu()).unwrap();
/// assert_eq!(ihfft2(&x, &FftnOptions::default()).unwrap().shape(), &[3, 4]);
/// ```
pub fn ihfft2<T: FftReal>(x: &Array<T>, opts: &FftnOptions) -> Result<Array<T::Complex>> {
    inv_hermitian_nd("ihfft2", x, opts, Some(&[-2, -1]))
}

fn inv_hermitian_nd<T: FftReal>(
    op: &str,
    x: &Array<T>,
    opts: &FftnOptions,
    default_axes: Option<&[isize]>,
) -> Result<Array<T::Complex>> {
    let plan = check_nd(op, x.shape(), opts, default_axes, false)?;
    need_axes(op, &plan)?;
    let (&(last, nl), rest) = plan.split_last().expect("checked non-empty");
    let mut y = r2c_axis(op, x, last, nl)?;
    for &(axis, n) in rest.iter().rev() {
        y = c2c_axis(op, &y, axis, n, true)?;
    }
    normalize(y.conj()?, opts.norm, total(&plan), false)
}

/// [`irfft`] of real input, as SciPy accepts it (`scipy.fft.irfft(x)` with a real `x`): the
/// input is taken as complex with zero imaginary parts.
///
/// # Errors
/// As [`irfft`].
///
/// ```
/// use cusci_fft::{irfft_real, FftOptions, Array, Device};
/// let x = Array::from_vec(vec![4.0f64, 0.0, 0.0], &[3], &Device::cpu()).unwrap();
/// let y = irfft_real(&x, &FftOptions::default()).unwrap().to_vec().unwrap();
/// assert_eq!(y.len(), 4);
/// assert!(y.iter().all(|v| (v - 1.0).abs() < 1e-12));
/// ```
pub fn irfft_real<T: FftReal>(x: &Array<T>, opts: &FftOptions) -> Result<Array<T>> {
    let (axis, n) = check_1d("irfft", x.shape(), opts, true)?;
    let xc: Array<T::Complex> = x.astype()?;
    let y = c2r_axis("irfft", &xc, axis, n)?;
    normalize(y, opts.norm, n, false)
}
