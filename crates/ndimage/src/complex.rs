//! Complex input (issue 32; SciPy ≥ 1.6): the linear filters and the geometric transforms of a
//! complex array, computed as SciPy computes them (`_complex_via_real_components`): the real and
//! the imaginary part filtered separately by the real functions of this crate (c32 as f32 parts,
//! c64 as f64 parts, so each part follows that type's numerics on each device) and joined.
//!
//! - `cval` is `opts.cval` for the real part and 0 for the imaginary part (SciPy's
//!   `np.real(cval)` / `np.imag(cval)` of a real `cval`; a complex `cval` is not taken).
//! - Complex weights (`W` = c32 or c64) take SciPy's four real filters: the real part
//!   `f(re, w.re) − f(im, w.im)` and the imaginary part `f(re, w.im) + f(im, w.re)`, subtracted
//!   and added in the part type; the correlations conjugate the weights first (as
//!   `np.correlate`), the convolutions do not. Real weights (`W` = f32 or f64) take two.
//! - On a CUDA device the parts are joined by `ndi_cjoin` / `ndi_cjoin4` (`complex.cu`); nothing
//!   goes through the host.

use crate::cuda::{linear, specs};
use crate::filters::{
    convolve, convolve1d, correlate, correlate1d, gaussian_filter, gaussian_filter1d,
    gaussian_laplace, laplace, prewitt, sobel, uniform_filter, uniform_filter1d, FilterOptions,
    GaussianOptions, Real,
};
use crate::interpolation::{
    affine_transform, map_coordinates, rotate, shift, spline_filter, spline_filter1d, zoom,
};
use crate::interpolation::{InterpOptions, Matrix};
use crate::modes::Mode;
use cusci_core::cuda::launch::{KernelModule, Spec};
use cusci_core::dtype::{c64, DType, Element, Float};
use cusci_core::error::make;
use cusci_core::{Array, Backend, Device, Result};

/// The joining kernels (`complex.cu`) for a complex element type: `Spec::of(&[C])`.
pub(crate) static COMPLEX: KernelModule = KernelModule {
    name: "ndimage_complex",
    source: |spec| {
        let dtype = spec.dtype(0)?;
        let r = if dtype == DType::C32 {
            "float"
        } else {
            "double"
        };
        Ok(format!(
            "#define T {}\n#define R {r}\n{}",
            dtype.cuda_name(),
            include_str!("complex.cu")
        ))
    },
    options: &[],
    samples: || specs([DType::C32, DType::C64]),
};

fn check_complex<C: Element>(op: &str) -> Result<()> {
    if C::DTYPE.is_complex() {
        Ok(())
    } else {
        Err(make::dtype(op, C::DTYPE))
    }
}

/// `re + i·im` (parts of the same shape, on the same device).
fn join<C: Float>(re: &Array<C::Real>, im: &Array<C::Real>) -> Result<Array<C>> {
    join_any::<C>(&[re, im])
}

/// `(a − b) + i·(c + d)` in the part type.
fn join4<C: Float>(
    a: &Array<C::Real>,
    b: &Array<C::Real>,
    c: &Array<C::Real>,
    d: &Array<C::Real>,
) -> Result<Array<C>> {
    join_any::<C>(&[a, b, c, d])
}

fn join_any<C: Float>(parts: &[&Array<C::Real>]) -> Result<Array<C>> {
    let shape = parts[0].shape().to_vec();
    let n = parts[0].size();
    let parts: Vec<Array<C::Real>> = parts
        .iter()
        .map(|p| p.contiguous())
        .collect::<Result<_>>()?;
    match parts[0].backend() {
        Backend::Host(_) => {
            let v: Vec<Vec<C::Real>> = parts.iter().map(|p| p.to_vec()).collect::<Result<_>>()?;
            let out: Vec<C> = (0..n)
                .map(|i| {
                    let (re, im) = if v.len() == 2 {
                        (v[0][i], v[1][i])
                    } else {
                        (v[0][i] - v[1][i], v[2][i] + v[3][i])
                    };
                    C::from_c64(c64::new(re.to_c64().re, im.to_c64().re))
                })
                .collect();
            Array::from_vec(out, &shape, &Device::Cpu)
        }
        Backend::Cuda(cd) => {
            let dev = cd.dev();
            let mut out = Array::<C>::empty(&shape, parts[0].device())?;
            if n == 0 {
                return Ok(out);
            }
            let name = if parts.len() == 2 {
                "ndi_cjoin"
            } else {
                "ndi_cjoin4"
            };
            let f = COMPLEX.function(dev, &Spec::of(&[C::DTYPE]), name)?;
            let mut l = dev.launch(&f, linear(n));
            for p in &parts {
                l = l.arg(p.dev_ptr()?);
            }
            l.arg(out.dev_ptr_mut()?).arg(n as i64).run()?;
            Ok(out)
        }
    }
}

/// The real and imaginary parts of the weights as f64 (the imaginary part negated when
/// `conj`); `None` for the imaginary part of real weights.
fn weight_parts<W: Element>(w: &[W], conj: bool) -> (Vec<f64>, Option<Vec<f64>>) {
    let c: Vec<c64> = w.iter().map(|v| v.to_c64()).collect();
    let re = c.iter().map(|v| v.re).collect();
    let im = W::DTYPE
        .is_complex()
        .then(|| c.iter().map(|v| if conj { -v.im } else { v.im }).collect());
    (re, im)
}

/// SciPy's `_complex_via_real_components` over a weighted filter `f(part, weights, cval)`.
fn via_weights<C, W>(
    op: &str,
    input: &Array<C>,
    w: &[W],
    conj: bool,
    cval: f64,
    f: impl Fn(&Array<C::Real>, &[f64], f64) -> Result<Array<C::Real>>,
) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
    W: Element,
{
    check_complex::<C>(op)?;
    let (re, im) = (input.real()?, input.imag()?);
    let (wr, wi) = weight_parts(w, conj);
    match wi {
        None => join::<C>(&f(&re, &wr, cval)?, &f(&im, &wr, 0.0)?),
        Some(wi) => join4::<C>(
            &f(&re, &wr, cval)?,
            &f(&im, &wi, 0.0)?,
            &f(&re, &wi, cval)?,
            &f(&im, &wr, 0.0)?,
        ),
    }
}

/// The same function on both parts (`cval` for the real part, 0 for the imaginary part).
fn via_parts<C>(
    op: &str,
    input: &Array<C>,
    cval: f64,
    f: impl Fn(&Array<C::Real>, f64) -> Result<Array<C::Real>>,
) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
{
    check_complex::<C>(op)?;
    join::<C>(&f(&input.real()?, cval)?, &f(&input.imag()?, 0.0)?)
}

fn with_cval(o: &FilterOptions, cval: f64) -> FilterOptions {
    FilterOptions { cval, ..o.clone() }
}

/// The n-D weights of `shape` from their values (on the host: the filters read them there).
fn weights_of(w: &[f64], shape: &[usize]) -> Result<Array<f64>> {
    Array::from_vec(w.to_vec(), shape, &Device::Cpu)
}

/// `scipy.ndimage.correlate` of a complex input (c32, c64) with real (f32, f64) or complex
/// (c32, c64) weights: SciPy's real-part decomposition (module docs; complex weights
/// conjugated, as SciPy and `np.correlate`).
///
/// # Errors
/// As [`correlate`]; `UnsupportedDType` for a real input (use [`correlate`]).
///
/// ```
/// use cusci_ndimage::{correlate_complex, FilterOptions, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec(vec![c64::new(1.0, 2.0), c64::new(3.0, -1.0)], &[2], &Device::Cpu).unwrap();
/// let w = Array::from_vec(vec![c64::new(0.0, 1.0)], &[1], &Device::Cpu).unwrap();
/// let y = correlate_complex(&x, &w, &FilterOptions::default()).unwrap();
/// // x · conj(i) = x · (−i)
/// assert_eq!(y.to_vec().unwrap(), vec![c64::new(2.0, -1.0), c64::new(-1.0, -3.0)]);
/// ```
pub fn correlate_complex<C, W>(
    input: &Array<C>,
    weights: &Array<W>,
    opts: &FilterOptions,
) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
    W: Element,
{
    let shape = weights.shape().to_vec();
    via_weights(
        "correlate",
        input,
        &weights.to_vec()?,
        true,
        opts.cval,
        |x, w, c| correlate(x, &weights_of(w, &shape)?, &with_cval(opts, c)),
    )
}

/// `scipy.ndimage.convolve` of a complex input with real or complex weights (not conjugated);
/// see [`correlate_complex`].
///
/// # Errors
/// As [`convolve`]; `UnsupportedDType` for a real input.
///
/// ```
/// use cusci_ndimage::{convolve_complex, FilterOptions, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec(vec![c64::new(1.0, 2.0)], &[1], &Device::Cpu).unwrap();
/// let w = Array::from_vec(vec![c64::new(0.0, 1.0)], &[1], &Device::Cpu).unwrap();
/// let y = convolve_complex(&x, &w, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![c64::new(-2.0, 1.0)]); // x · i
/// ```
pub fn convolve_complex<C, W>(
    input: &Array<C>,
    weights: &Array<W>,
    opts: &FilterOptions,
) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
    W: Element,
{
    let shape = weights.shape().to_vec();
    via_weights(
        "convolve",
        input,
        &weights.to_vec()?,
        false,
        opts.cval,
        |x, w, c| convolve(x, &weights_of(w, &shape)?, &with_cval(opts, c)),
    )
}

/// `scipy.ndimage.correlate1d` of a complex input with real or complex weights (conjugated);
/// see [`correlate_complex`].
///
/// # Errors
/// As [`correlate1d`]; `UnsupportedDType` for a real input.
///
/// ```
/// use cusci_ndimage::{correlate1d_complex, FilterOptions, Array, Device};
/// use cusci_core::c32;
/// let x = Array::from_vec(vec![c32::new(1.0, 1.0); 3], &[3], &Device::Cpu).unwrap();
/// let y = correlate1d_complex(&x, &[0.5f64, 0.5], -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![c32::new(1.0, 1.0); 3]);
/// ```
pub fn correlate1d_complex<C, W>(
    input: &Array<C>,
    weights: &[W],
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
    W: Element,
{
    via_weights("correlate1d", input, weights, true, opts.cval, |x, w, c| {
        correlate1d(x, w, axis, &with_cval(opts, c))
    })
}

/// `scipy.ndimage.convolve1d` of a complex input with real or complex weights (not
/// conjugated); see [`correlate_complex`].
///
/// # Errors
/// As [`convolve1d`]; `UnsupportedDType` for a real input.
///
/// ```
/// use cusci_ndimage::{convolve1d_complex, FilterOptions, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec(vec![c64::new(0.0, 1.0)], &[1], &Device::Cpu).unwrap();
/// let y = convolve1d_complex(&x, &[c64::new(0.0, 1.0)], -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![c64::new(-1.0, 0.0)]); // i · i
/// ```
pub fn convolve1d_complex<C, W>(
    input: &Array<C>,
    weights: &[W],
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
    W: Element,
{
    via_weights("convolve1d", input, weights, false, opts.cval, |x, w, c| {
        convolve1d(x, w, axis, &with_cval(opts, c))
    })
}

fn gauss_cval(o: &GaussianOptions, cval: f64) -> GaussianOptions {
    GaussianOptions { cval, ..o.clone() }
}

/// `scipy.ndimage.gaussian_filter` of a complex input: [`gaussian_filter`] of each part.
///
/// # Errors
/// As [`gaussian_filter`]; `UnsupportedDType` for a real input.
///
/// ```
/// use cusci_ndimage::{gaussian_filter_complex, GaussianOptions, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec(vec![c64::new(2.0, -3.0); 4], &[4], &Device::Cpu).unwrap();
/// let y = gaussian_filter_complex(&x, &[1.0], &GaussianOptions::default()).unwrap();
/// assert!(y.to_vec().unwrap().iter().all(|v| (v - c64::new(2.0, -3.0)).norm() < 1e-12));
/// ```
pub fn gaussian_filter_complex<C>(
    input: &Array<C>,
    sigma: &[f64],
    opts: &GaussianOptions,
) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
{
    via_parts("gaussian_filter", input, opts.cval, |x, c| {
        gaussian_filter(x, sigma, &gauss_cval(opts, c))
    })
}

/// `scipy.ndimage.gaussian_filter1d` of a complex input: [`gaussian_filter1d`] of each part.
///
/// # Errors
/// As [`gaussian_filter1d`]; `UnsupportedDType` for a real input.
///
/// ```
/// use cusci_ndimage::{gaussian_filter1d_complex, GaussianOptions, Array, Device};
/// use cusci_core::c32;
/// let x = Array::from_vec(vec![c32::new(1.0, 0.5); 5], &[5], &Device::Cpu).unwrap();
/// let y = gaussian_filter1d_complex(&x, 1.5, -1, &GaussianOptions::default()).unwrap();
/// assert!(y.to_vec().unwrap().iter().all(|v| (v - c32::new(1.0, 0.5)).norm() < 1e-6));
/// ```
pub fn gaussian_filter1d_complex<C>(
    input: &Array<C>,
    sigma: f64,
    axis: isize,
    opts: &GaussianOptions,
) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
{
    via_parts("gaussian_filter1d", input, opts.cval, |x, c| {
        gaussian_filter1d(x, sigma, axis, &gauss_cval(opts, c))
    })
}

/// `scipy.ndimage.uniform_filter` of a complex input: [`uniform_filter`] of each part.
///
/// # Errors
/// As [`uniform_filter`]; `UnsupportedDType` for a real input.
///
/// ```
/// use cusci_ndimage::{uniform_filter_complex, FilterOptions, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec(vec![c64::new(0.0, 3.0), c64::new(3.0, 0.0)], &[2], &Device::Cpu).unwrap();
/// let y = uniform_filter_complex(&x, &[2], &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap()[1], c64::new(1.5, 1.5));
/// ```
pub fn uniform_filter_complex<C>(
    input: &Array<C>,
    size: &[usize],
    opts: &FilterOptions,
) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
{
    via_parts("uniform_filter", input, opts.cval, |x, c| {
        uniform_filter(x, size, &with_cval(opts, c))
    })
}

/// `scipy.ndimage.uniform_filter1d` of a complex input: [`uniform_filter1d`] of each part.
///
/// # Errors
/// As [`uniform_filter1d`]; `UnsupportedDType` for a real input.
///
/// ```
/// use cusci_ndimage::{uniform_filter1d_complex, FilterOptions, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec(vec![c64::new(2.0, 4.0), c64::new(0.0, 0.0)], &[2], &Device::Cpu).unwrap();
/// let y = uniform_filter1d_complex(&x, 2, -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap()[1], c64::new(1.0, 2.0));
/// ```
pub fn uniform_filter1d_complex<C>(
    input: &Array<C>,
    size: usize,
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
{
    via_parts("uniform_filter1d", input, opts.cval, |x, c| {
        uniform_filter1d(x, size, axis, &with_cval(opts, c))
    })
}

fn interp_cval(o: &InterpOptions, cval: f64) -> InterpOptions {
    InterpOptions { cval, ..*o }
}

/// `scipy.ndimage.map_coordinates` of a complex input: [`map_coordinates`] of each part.
///
/// # Errors
/// As [`map_coordinates`]; `UnsupportedDType` for a real input.
///
/// ```
/// use cusci_ndimage::{map_coordinates_complex, InterpOptions, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec(vec![c64::new(0.0, 2.0), c64::new(2.0, 0.0)], &[2], &Device::Cpu).unwrap();
/// let c = Array::from_vec(vec![0.5f64], &[1, 1], &Device::Cpu).unwrap();
/// let o = InterpOptions { order: 1, ..Default::default() };
/// assert_eq!(map_coordinates_complex(&x, &c, &o).unwrap().to_vec().unwrap(), vec![c64::new(1.0, 1.0)]);
/// ```
pub fn map_coordinates_complex<C, K>(
    input: &Array<C>,
    coordinates: &Array<K>,
    opts: &InterpOptions,
) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
    K: Real,
{
    via_parts("map_coordinates", input, opts.cval, |x, c| {
        map_coordinates(x, coordinates, &interp_cval(opts, c))
    })
}

/// `scipy.ndimage.affine_transform` of a complex input: [`affine_transform`] of each part.
///
/// # Errors
/// As [`affine_transform`]; `UnsupportedDType` for a real input.
///
/// ```
/// use cusci_ndimage::{affine_transform_complex, InterpOptions, Matrix, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec(vec![c64::new(1.0, -1.0), c64::new(2.0, -2.0)], &[2], &Device::Cpu).unwrap();
/// let o = InterpOptions { order: 0, ..Default::default() };
/// let y = affine_transform_complex(&x, &Matrix::Diagonal(vec![1.0]), &[1.0], None, &o).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![c64::new(2.0, -2.0), c64::new(0.0, 0.0)]);
/// ```
pub fn affine_transform_complex<C>(
    input: &Array<C>,
    matrix: &Matrix,
    offset: &[f64],
    output_shape: Option<&[usize]>,
    opts: &InterpOptions,
) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
{
    via_parts("affine_transform", input, opts.cval, |x, c| {
        affine_transform(x, matrix, offset, output_shape, &interp_cval(opts, c))
    })
}

/// `scipy.ndimage.shift` of a complex input: [`shift`] of each part.
///
/// # Errors
/// As [`shift`]; `UnsupportedDType` for a real input.
///
/// ```
/// use cusci_ndimage::{shift_complex, InterpOptions, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec(vec![c64::new(1.0, 1.0), c64::new(2.0, 2.0)], &[2], &Device::Cpu).unwrap();
/// let o = InterpOptions { order: 0, cval: 5.0, ..Default::default() };
/// // the imaginary part is extended with 0, SciPy's np.imag(cval)
/// assert_eq!(shift_complex(&x, &[1.0], &o).unwrap().to_vec().unwrap()[0], c64::new(5.0, 0.0));
/// ```
pub fn shift_complex<C>(
    input: &Array<C>,
    shift_by: &[f64],
    opts: &InterpOptions,
) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
{
    via_parts("shift", input, opts.cval, |x, c| {
        shift(x, shift_by, &interp_cval(opts, c))
    })
}

/// `scipy.ndimage.zoom` of a complex input: [`zoom`] of each part. As SciPy 1.17 (whose complex
/// route does not pass `grid_mode` on), the parts are zoomed with `grid_mode` false whatever
/// `grid_mode` is; the output shape is the same either way.
///
/// # Errors
/// As [`zoom`]; `UnsupportedDType` for a real input.
///
/// ```
/// use cusci_ndimage::{zoom_complex, InterpOptions, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec(vec![c64::new(1.0, 2.0); 2], &[2], &Device::Cpu).unwrap();
/// let y = zoom_complex(&x, &[2.0], false, &InterpOptions::default()).unwrap();
/// assert_eq!(y.shape(), &[4]);
/// ```
pub fn zoom_complex<C>(
    input: &Array<C>,
    factors: &[f64],
    grid_mode: bool,
    opts: &InterpOptions,
) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
{
    let _ = grid_mode;
    via_parts("zoom", input, opts.cval, |x, c| {
        zoom(x, factors, false, &interp_cval(opts, c))
    })
}

/// `scipy.ndimage.rotate` of a complex input: [`rotate`] of each part.
///
/// # Errors
/// As [`rotate`]; `UnsupportedDType` for a real input.
///
/// ```
/// use cusci_ndimage::{rotate_complex, InterpOptions, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec((0..4).map(|k| c64::new(k as f64, -(k as f64))).collect(), &[2, 2], &Device::Cpu).unwrap();
/// let o = InterpOptions { order: 0, ..Default::default() };
/// let y = rotate_complex(&x, 90.0, (1, 0), true, &o).unwrap();
/// assert_eq!(y.shape(), &[2, 2]);
/// ```
pub fn rotate_complex<C>(
    input: &Array<C>,
    angle: f64,
    axes: (isize, isize),
    reshape: bool,
    opts: &InterpOptions,
) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
{
    via_parts("rotate", input, opts.cval, |x, c| {
        rotate(x, angle, axes, reshape, &interp_cval(opts, c))
    })
}

/// `scipy.ndimage.sobel` of a complex input: [`sobel`] of each part (SciPy's passes are
/// `correlate1d` calls, each split into the parts).
///
/// # Errors
/// As [`sobel`]; `UnsupportedDType` for a real input.
///
/// ```
/// use cusci_ndimage::{sobel_complex, FilterOptions, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec((0..4).map(|k| c64::new(k as f64, 2.0 * k as f64)).collect(), &[4], &Device::Cpu).unwrap();
/// let y = sobel_complex(&x, 0, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap()[1], c64::new(2.0, 4.0));
/// ```
pub fn sobel_complex<C>(input: &Array<C>, axis: isize, opts: &FilterOptions) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
{
    via_parts("sobel", input, opts.cval, |x, c| {
        sobel(x, axis, &with_cval(opts, c))
    })
}

/// `scipy.ndimage.prewitt` of a complex input: [`prewitt`] of each part.
///
/// # Errors
/// As [`prewitt`]; `UnsupportedDType` for a real input.
///
/// ```
/// use cusci_ndimage::{prewitt_complex, FilterOptions, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec((0..4).map(|k| c64::new(0.0, k as f64)).collect(), &[4], &Device::Cpu).unwrap();
/// let y = prewitt_complex(&x, 0, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap()[2], c64::new(0.0, 2.0));
/// ```
pub fn prewitt_complex<C>(input: &Array<C>, axis: isize, opts: &FilterOptions) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
{
    via_parts("prewitt", input, opts.cval, |x, c| {
        prewitt(x, axis, &with_cval(opts, c))
    })
}

/// `scipy.ndimage.laplace` of a complex input: [`laplace`] of each part.
///
/// # Errors
/// As [`laplace`]; `UnsupportedDType` for a real input.
///
/// ```
/// use cusci_ndimage::{laplace_complex, FilterOptions, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec(vec![c64::new(0.0, 0.0), c64::new(1.0, -1.0), c64::new(0.0, 0.0)], &[3], &Device::Cpu).unwrap();
/// let y = laplace_complex(&x, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap()[1], c64::new(-2.0, 2.0));
/// ```
pub fn laplace_complex<C>(input: &Array<C>, opts: &FilterOptions) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
{
    via_parts("laplace", input, opts.cval, |x, c| {
        laplace(x, &with_cval(opts, c))
    })
}

/// `scipy.ndimage.gaussian_laplace` of a complex input: [`gaussian_laplace`] of each part.
///
/// # Errors
/// As [`gaussian_laplace`]; `UnsupportedDType` for a real input.
///
/// ```
/// use cusci_ndimage::{gaussian_laplace_complex, GaussianOptions, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec((0..6).map(|k| c64::new(k as f64, k as f64)).collect(), &[6], &Device::Cpu).unwrap();
/// let y = gaussian_laplace_complex(&x, &[1.0], &GaussianOptions::default()).unwrap();
/// // equal parts give equal parts
/// assert!(y.to_vec().unwrap().iter().all(|v| v.re == v.im));
/// ```
pub fn gaussian_laplace_complex<C>(
    input: &Array<C>,
    sigma: &[f64],
    opts: &GaussianOptions,
) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
{
    via_parts("gaussian_laplace", input, opts.cval, |x, c| {
        gaussian_laplace(x, sigma, &gauss_cval(opts, c))
    })
}

/// `scipy.ndimage.spline_filter` of a complex input: [`spline_filter`] of each part, complex128
/// as SciPy's default output (float64 promoted to complex).
///
/// # Errors
/// As [`spline_filter`]; `UnsupportedDType` for a real input.
///
/// ```
/// use cusci_ndimage::{spline_filter_complex, Mode, Array, Device};
/// use cusci_core::{c32, c64};
/// let x = Array::from_vec(vec![c32::new(1.0, -2.0); 5], &[5], &Device::Cpu).unwrap();
/// let y = spline_filter_complex(&x, 3, Mode::Mirror).unwrap();
/// assert!(y.to_vec().unwrap().iter().all(|v| (v - c64::new(1.0, -2.0)).norm() < 1e-12));
/// ```
pub fn spline_filter_complex<C>(input: &Array<C>, order: usize, mode: Mode) -> Result<Array<c64>>
where
    C: Float,
    C::Real: Real,
{
    check_complex::<C>("spline_filter")?;
    join::<c64>(
        &spline_filter(&input.real()?, order, mode)?,
        &spline_filter(&input.imag()?, order, mode)?,
    )
}

/// `scipy.ndimage.spline_filter1d` of a complex input: [`spline_filter1d`] of each part
/// (complex128).
///
/// # Errors
/// As [`spline_filter1d`]; `UnsupportedDType` for a real input.
///
/// ```
/// use cusci_ndimage::{spline_filter1d_complex, Mode, Array, Device};
/// use cusci_core::c64;
/// let x = Array::from_vec(vec![c64::new(0.5, 0.25); 4], &[4], &Device::Cpu).unwrap();
/// let y = spline_filter1d_complex(&x, 2, -1, Mode::Mirror).unwrap();
/// assert!(y.to_vec().unwrap().iter().all(|v| (v - c64::new(0.5, 0.25)).norm() < 1e-12));
/// ```
pub fn spline_filter1d_complex<C>(
    input: &Array<C>,
    order: usize,
    axis: isize,
    mode: Mode,
) -> Result<Array<c64>>
where
    C: Float,
    C::Real: Real,
{
    check_complex::<C>("spline_filter1d")?;
    join::<c64>(
        &spline_filter1d(&input.real()?, order, axis, mode)?,
        &spline_filter1d(&input.imag()?, order, axis, mode)?,
    )
}
