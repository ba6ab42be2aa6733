//! The transforms: argument checks, the per-device raw transforms, and the normalisation.
//!
//! Each public function validates its arguments once, then runs raw (unnormalised) transforms
//! along single axes through [`c2c_axis`], [`r2c_axis`] and [`c2r_axis`], which dispatch on the
//! array's device (the CPU reference in `cpu.rs`; the CUDA side, cuFFT, in `cuda/` with the same
//! signatures). The normalisation is decided in one place for both devices ([`Post::norm`]) and
//! handed to the last raw transform, which folds it into work it does anyway (see [`Post`]).

use crate::args::{check_1d, check_nd, Post};
use crate::{cpu, cuda, FftComplex, FftInput, FftOptions, FftPlan, FftReal, FftnOptions, PlanKind};
use cusci_core::error::make;
use cusci_core::{Array, Backend, DType, Element, Result};

// ---------- the per-device raw transforms ----------

/// Complex transform of `n` points along `axis` (input cut or zero-padded), `post` applied.
fn c2c_axis<C: FftComplex>(
    op: &str,
    x: &Array<C>,
    axis: usize,
    n: usize,
    forward: bool,
    post: Post,
) -> Result<Array<C>> {
    match x.backend() {
        Backend::Host(h) => cpu::c2c_axis(&h, axis, n, forward, post),
        Backend::Cuda(c) => {
            cpu::check_size(op, x.shape(), axis, n)?;
            cuda::c2c_axis(c.dev(), x, axis, n, forward, post)
        }
    }
}

/// Real-to-complex transform of `n` points along `axis` (`n/2+1` outputs), `post` applied.
fn r2c_axis<T: FftReal>(
    op: &str,
    x: &Array<T>,
    axis: usize,
    n: usize,
    post: Post,
) -> Result<Array<T::Complex>> {
    match x.backend() {
        Backend::Host(h) => cpu::r2c_axis(&h, axis, n, post),
        Backend::Cuda(c) => {
            cpu::check_size(op, x.shape(), axis, n)?;
            cuda::r2c_axis(c.dev(), x, axis, n, post)
        }
    }
}

/// Complex-to-real transform with `n` real outputs along `axis`, `post` applied to the input.
fn c2r_axis<C: FftComplex>(
    op: &str,
    x: &Array<C>,
    axis: usize,
    n: usize,
    post: Post,
) -> Result<Array<C::Real>> {
    match x.backend() {
        Backend::Host(h) => cpu::c2r_axis(&h, axis, n, post),
        Backend::Cuda(c) => {
            cpu::check_size(op, x.shape(), axis, n)?;
            cuda::c2r_axis(c.dev(), x, axis, n, post)
        }
    }
}

/// `post` for the step `i` of `steps` transforms run in turn: all of it on the last step,
/// nothing before.
fn at_last(post: Post, i: usize, steps: usize) -> Post {
    if i + 1 == steps {
        post
    } else {
        Post::IDENTITY
    }
}

/// Checks a given plan against the call (see [`FftPlan`]).
fn check_plan<X: Element>(
    op: &str,
    plan: &Option<FftPlan>,
    kind: PlanKind,
    x: &Array<X>,
    dtype: DType,
    axes: &[(usize, usize)],
) -> Result<()> {
    match plan {
        Some(p) => p.check_fits(op, kind, x, dtype, axes),
        None => Ok(()),
    }
}

/// The Hermitian transforms take no plan (as CuPy's, which raise for one).
fn no_plan(op: &str, plan: &Option<FftPlan>) -> Result<()> {
    if plan.is_some() {
        return Err(make::arg(op, "a plan is not supported for this transform"));
    }
    Ok(())
}

/// An (axis, length) pair of an n-d transform.
type AxisLen = (usize, usize);

/// The last (axis, length) pair of `plan` and the others: `InvalidArgument` when `plan` is empty
/// (a transform of real data needs an axis).
fn need_axes<'p>(op: &str, plan: &'p [AxisLen]) -> Result<(AxisLen, &'p [AxisLen])> {
    match plan.split_last() {
        Some((&last, rest)) => Ok((last, rest)),
        None => Err(make::arg(op, "at least one axis must be transformed")),
    }
}

fn total(plan: &[(usize, usize)]) -> usize {
    // saturating: only a normalisation factor (the sizes themselves are checked)
    plan.iter().fold(1usize, |a, &(_, n)| a.saturating_mul(n))
}

/// The R2C transform along `last`, then forward C2C transforms along the `rest` of the axes (last
/// to first); `post` rides on the last of them.
fn r2c_chain<T: FftReal>(
    op: &str,
    x: &Array<T>,
    (last, nl): AxisLen,
    rest: &[AxisLen],
    post: Post,
) -> Result<Array<T::Complex>> {
    let steps = rest.len() + 1;
    let mut y = r2c_axis(op, x, last, nl, at_last(post, 0, steps))?;
    for (i, &(axis, n)) in rest.iter().rev().enumerate() {
        y = c2c_axis(op, &y, axis, n, true, at_last(post, i + 1, steps))?;
    }
    Ok(y)
}

/// C2C transforms along the `rest` of the axes (forward when `forward`), then the C2R transform
/// along `last`, which applies `post` to its input copy.
fn c2r_chain<C: FftComplex>(
    op: &str,
    x: &Array<C>,
    (last, nl): AxisLen,
    rest: &[AxisLen],
    forward: bool,
    post: Post,
) -> Result<Array<C::Real>> {
    let mut y = x.clone();
    for &(axis, n) in rest {
        y = c2c_axis(op, &y, axis, n, forward, Post::IDENTITY)?;
    }
    c2r_axis(op, &y, last, nl, post)
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
pub fn fft<X: FftInput>(x: &Array<X>, opts: &FftOptions) -> Result<Array<X::Complex>> {
    let (axis, n) = check_1d("fft", x.shape(), opts, false)?;
    check_plan(
        "fft",
        &opts.plan,
        PlanKind::C2c,
        x,
        X::Complex::DTYPE,
        &[(axis, n)],
    )?;
    let post = Post::norm(opts.norm, n, true);
    c2c_axis("fft", &X::to_complex(x)?, axis, n, true, post)
}

/// The one-dimensional inverse discrete Fourier transform, `scipy.fft.ifft(x, n, axis, norm)`.
///
/// `y[j] = Σ_k x[k]·exp(+2πi·jk/n)` scaled by `1/n` (by default), along `opts.axis`, the input
/// cut or zero-padded to `opts.n` points. Real input is converted to complex first.
///
/// # Errors
/// As [`fft`].
pub fn ifft<X: FftInput>(x: &Array<X>, opts: &FftOptions) -> Result<Array<X::Complex>> {
    let (axis, n) = check_1d("ifft", x.shape(), opts, false)?;
    check_plan(
        "ifft",
        &opts.plan,
        PlanKind::C2c,
        x,
        X::Complex::DTYPE,
        &[(axis, n)],
    )?;
    let post = Post::norm(opts.norm, n, false);
    c2c_axis("ifft", &X::to_complex(x)?, axis, n, false, post)
}

/// The discrete Fourier transform of real input, `scipy.fft.rfft(x, n, axis, norm)`.
///
/// The non-negative frequency terms `0..=n/2` of [`fft`] of the real `x` (cut or zero-padded to
/// `opts.n` points along `opts.axis`): `n/2+1` complex values (the rest follow by Hermitian
/// symmetry).
///
/// # Errors
/// As [`fft`].
pub fn rfft<T: FftReal>(x: &Array<T>, opts: &FftOptions) -> Result<Array<T::Complex>> {
    let (axis, n) = check_1d("rfft", x.shape(), opts, false)?;
    check_plan("rfft", &opts.plan, PlanKind::R2c, x, T::DTYPE, &[(axis, n)])?;
    r2c_axis("rfft", x, axis, n, Post::norm(opts.norm, n, true))
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
    check_plan(
        "irfft",
        &opts.plan,
        PlanKind::C2r,
        x,
        C::DTYPE,
        &[(axis, n)],
    )?;
    c2r_axis("irfft", x, axis, n, Post::norm(opts.norm, n, false))
}

/// The transform of a signal with Hermitian symmetry, `scipy.fft.hfft(x, n, axis, norm)`: the
/// real spectrum (`n` points, default `2*(m-1)`) of the signal whose first half is `x`.
///
/// Computed as the complex-to-real transform of `conj(x)`; a forward transform for the
/// normalisation (no scaling by default).
///
/// # Errors
/// As [`irfft`].
pub fn hfft<C: FftComplex>(x: &Array<C>, opts: &FftOptions) -> Result<Array<C::Real>> {
    let (axis, n) = check_1d("hfft", x.shape(), opts, true)?;
    no_plan("hfft", &opts.plan)?;
    c2r_axis("hfft", x, axis, n, Post::norm(opts.norm, n, true).conj())
}

/// The inverse of [`hfft`], `scipy.fft.ihfft(x, n, axis, norm)`: `conj(rfft(x))` of the real
/// `x` (cut or zero-padded to `opts.n` points), an inverse transform for the normalisation
/// (scaled by `1/n` by default); `n/2+1` outputs.
///
/// # Errors
/// As [`fft`].
pub fn ihfft<T: FftReal>(x: &Array<T>, opts: &FftOptions) -> Result<Array<T::Complex>> {
    let (axis, n) = check_1d("ihfft", x.shape(), opts, false)?;
    no_plan("ihfft", &opts.plan)?;
    r2c_axis("ihfft", x, axis, n, Post::norm(opts.norm, n, false).conj())
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
    check_plan(op, &opts.plan, PlanKind::C2c, x, X::Complex::DTYPE, &plan)?;
    let post = Post::norm(opts.norm, total(&plan), forward);
    let mut y = X::to_complex(x)?;
    if let Backend::Cuda(c) = y.backend() {
        if cuda::trailing_fits(y.shape(), &plan) {
            return cuda::c2c_trailing(c.dev(), &y, &plan, forward, post);
        }
    }
    for (i, &(axis, n)) in plan.iter().rev().enumerate() {
        y = c2c_axis(op, &y, axis, n, forward, at_last(post, i, plan.len()))?;
    }
    Ok(y)
}

fn r2c_nd<T: FftReal>(
    op: &str,
    x: &Array<T>,
    opts: &FftnOptions,
    default_axes: Option<&[isize]>,
) -> Result<Array<T::Complex>> {
    let plan = check_nd(op, x.shape(), opts, default_axes, false)?;
    let (last, rest) = need_axes(op, &plan)?;
    check_plan(op, &opts.plan, PlanKind::R2c, x, T::DTYPE, &plan)?;
    let post = Post::norm(opts.norm, total(&plan), true);
    if let Backend::Cuda(c) = x.backend() {
        if cuda::trailing_fits(x.shape(), &plan) {
            return cuda::r2c_trailing(c.dev(), x, &plan, post);
        }
    }
    r2c_chain(op, x, last, rest, post)
}

fn c2r_nd<C: FftComplex>(
    op: &str,
    x: &Array<C>,
    opts: &FftnOptions,
    default_axes: Option<&[isize]>,
) -> Result<Array<C::Real>> {
    let plan = check_nd(op, x.shape(), opts, default_axes, true)?;
    let (last, rest) = need_axes(op, &plan)?;
    check_plan(op, &opts.plan, PlanKind::C2r, x, C::DTYPE, &plan)?;
    // the normalisation rides on the C2R input copy, which runs anyway
    let post = Post::norm(opts.norm, total(&plan), false);
    c2r_chain(op, x, last, rest, false, post)
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
pub fn fft2<X: FftInput>(x: &Array<X>, opts: &FftnOptions) -> Result<Array<X::Complex>> {
    c2c_nd("fft2", x, opts, Some(&[-2, -1]), true)
}

/// The two-dimensional inverse discrete Fourier transform,
/// `scipy.fft.ifft2(x, s, axes=(-2, -1), norm)`.
///
/// # Errors
/// As [`fft2`].
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
pub fn rfft2<T: FftReal>(x: &Array<T>, opts: &FftnOptions) -> Result<Array<T::Complex>> {
    r2c_nd("rfft2", x, opts, Some(&[-2, -1]))
}

/// The inverse of [`rfft2`], `scipy.fft.irfft2(x, s, axes=(-2, -1), norm)`.
///
/// # Errors
/// As [`rfftn`].
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
pub fn hfftn<C: FftComplex>(x: &Array<C>, opts: &FftnOptions) -> Result<Array<C::Real>> {
    hermitian_nd("hfftn", x, opts, None)
}

/// The two-dimensional [`hfftn`], `scipy.fft.hfft2(x, s, axes=(-2, -1), norm)`.
///
/// # Errors
/// As [`hfftn`].
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
    let (last, rest) = need_axes(op, &plan)?;
    no_plan(op, &opts.plan)?;
    // irfftn(conj(x)): the inverse transforms of conj(x) along the other axes are the conjugated
    // forward transforms of x, so the conjugation moves onto the C2R input copy (with the scale)
    let post = Post::norm(opts.norm, total(&plan), true).conj();
    c2r_chain(op, x, last, rest, true, post)
}

/// The inverse of [`hfftn`], `scipy.fft.ihfftn(x, s, axes, norm)`: `conj(rfftn(x))` of the
/// real `x` with the inverse normalisation (scaled by `1/n` by default).
///
/// # Errors
/// As [`rfftn`].
pub fn ihfftn<T: FftReal>(x: &Array<T>, opts: &FftnOptions) -> Result<Array<T::Complex>> {
    inv_hermitian_nd("ihfftn", x, opts, None)
}

/// The two-dimensional [`ihfftn`], `scipy.fft.ihfft2(x, s, axes=(-2, -1), norm)`.
///
/// # Errors
/// As [`ihfftn`].
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
    let (last, rest) = need_axes(op, &plan)?;
    no_plan(op, &opts.plan)?;
    let post = Post::norm(opts.norm, total(&plan), false).conj();
    r2c_chain(op, x, last, rest, post)
}

/// [`irfft`] of real input, as SciPy accepts it (`scipy.fft.irfft(x)` with a real `x`): the
/// input is taken as complex with zero imaginary parts.
///
/// # Errors
/// As [`irfft`].
pub fn irfft_real<T: FftReal>(x: &Array<T>, opts: &FftOptions) -> Result<Array<T>> {
    let (axis, n) = check_1d("irfft", x.shape(), opts, true)?;
    check_plan(
        "irfft",
        &opts.plan,
        PlanKind::C2r,
        x,
        T::Complex::DTYPE,
        &[(axis, n)],
    )?;
    let xc: Array<T::Complex> = x.astype()?;
    c2r_axis("irfft", &xc, axis, n, Post::norm(opts.norm, n, false))
}

// ---------- a plan run by itself ----------

impl FftPlan {
    /// The complex transform of `x` (forward: [`fftn`] over the planned axes and lengths, else
    /// [`ifftn`]) with the norm given when planning.
    ///
    /// # Errors
    /// `ShapeMismatch` when `x`'s shape, `UnsupportedDType` when its type, `InvalidArgument`
    /// when its device differs from the planned one or the plan is not [`PlanKind::C2c`].
    pub fn execute<C: FftComplex + FftInput<Complex = C>>(
        &self,
        x: &Array<C>,
        forward: bool,
    ) -> Result<Array<C>> {
        let op = "FftPlan::execute";
        if self.kind() != PlanKind::C2c {
            return Err(make::arg(
                op,
                format!("execute runs C2c plans; this one is {:?}", self.kind()),
            ));
        }
        if x.shape() != self.shape() {
            return Err(make::shape(
                op,
                format!("planned for shape {:?}, got {:?}", self.shape(), x.shape()),
            ));
        }
        if C::DTYPE != self.dtype() {
            return Err(make::dtype(op, C::DTYPE));
        }
        let o = FftnOptions {
            s: Some(self.axes().iter().map(|&(_, n)| n).collect()),
            axes: Some(self.axes().iter().map(|&(a, _)| a as isize).collect()),
            norm: self.norm(),
            plan: Some(self.clone()),
        };
        if forward {
            fftn(x, &o)
        } else {
            ifftn(x, &o)
        }
    }
}
