//! The interpolation functions with SciPy's `output=` dtype: any input type an [`Array`] holds
//! but complex (f32, f64, i32, i64, u8, bool), and any of those as the output type.
//!
//! `*_as::<I, O>` computes what `scipy.ndimage.<function>(input, ..., output=O)` computes for an
//! input of type `I`. SciPy reads the input as double, prefilters it (orders ≥ 2 with
//! `prefilter`) into a float64 array, interpolates every output element in double and stores
//! the double into the output array. These functions do the same on either device: the input is
//! widened to f64, the f64 function of [`crate::interpolation`] runs (in f64 on a GPU as well;
//! so `shift_as::<f32, f32>` is SciPy's double computation rounded once, where [`shift`](super::shift)`::<f32>`
//! on a GPU works in f32), and each result is stored as SciPy 1.17 stores it:
//!
//! - f64: the value; f32: rounded to nearest;
//! - i32, i64: rounded half away from zero (`v + 0.5` or `v − 0.5` in double, then truncated, so
//!   `2.5 → 3`, `−2.5 → −3`, `0.49999999999999994 → 1`), clamped to the type's range
//!   (`±inf` and out-of-range values give its maximum or minimum); NaN gives the minimum;
//! - u8: `v > 0 ? v + 0.5 : 0` truncated and clamped to 255 (`−2.5 → 0`, `255.5 → 255`,
//!   `300.7 → 255`, NaN → 0);
//! - bool: no rounding: SciPy stores it as a byte through the C cast (truncation to i32, low
//!   byte), and the result is that byte `!= 0` (`0.5 → false`, `−1.5 → true`, `256.4 → false`).
//!
//! `cval` takes part in the interpolation as a double and its results are stored by the same
//! rules (SciPy: `shift(..., cval=-2.5, output=np.int32)` gives −3 outside). In mode
//! `grid-constant` with the prefilter, SciPy first pads the input by 12 elements of `cval` stored
//! in the *input's* type (`np.pad`), so a u8 input pads with `2` for `cval = 2.7` (and with
//! `cval as f32` for an f32 input) while the points outside the padding still get 2.7; these
//! functions (and the plain ones, for their own input type) do the same.
//!
//! [`spline_filter_as`] and [`spline_filter1d_as`] store like the filters of
//! [`crate::filters`] ("Output types") (truncation, u8 wrapping through i32; no rounding): SciPy's
//! `spline_filter1d` writes its double line buffers into the output with C casts, and
//! `spline_filter` runs it axis after axis on the stored output of the previous axis.
//!
//! Differences from SciPy: complex inputs and complex outputs are refused (`UnsupportedDType`;
//! SciPy interpolates their real and imaginary parts separately); an i64 input is read as f64
//! (values beyond 2^53 rounded, as SciPy's double interpolation does for orders ≥ 1; for
//! `spline_filter1d_as` of order 0/1, SciPy's NumPy copy converts i64 to an integer output
//! exactly, where here i64 beyond ±2^31 goes through the double as above).

use super::transforms::{
    affine_impl, map_coordinates_impl, rotate_impl, shift_impl, zoom_impl, zoom_is_copy,
    AffineExtra,
};
use super::{check_order, pad_value, spline_filter1d, InterpOptions, Matrix};
use crate::filters::store::{apply, chain, finish, load, PassFn};
use crate::filters::Real;
use crate::modes::Mode;
use cusci_core::dtype::{DType, Element};
use cusci_core::error::make;
use cusci_core::{Array, Result};

/// The store code (see `filters::store::scast`) of an interpolated double in `O`.
fn interp_code<O: Element>(op: &str) -> Result<i32> {
    Ok(match O::DTYPE {
        DType::F64 => 0,
        DType::F32 => 1,
        DType::U8 => 5,
        DType::I32 => 6,
        DType::I64 => 7,
        DType::Bool => 4,
        d => return Err(make::dtype(op, d)),
    })
}

/// Loads the input as f64, runs `f` (given the f64 input and the grid-constant padding value in
/// the input's type) and stores its result in `O`.
fn run<I: Element, O: Element>(
    op: &str,
    input: &Array<I>,
    opts: &InterpOptions,
    f: impl FnOnce(&Array<f64>, Option<f64>) -> Result<Array<f64>>,
) -> Result<Array<O>> {
    let code = interp_code::<O>(op)?;
    let x = load(op, input)?;
    let pad = Some(pad_value(opts.cval, I::DTYPE));
    finish(apply(f(&x, pad)?, code)?)
}

/// [`map_coordinates`](super::map_coordinates) with SciPy's `output` dtype:
/// `scipy.ndimage.map_coordinates(input, coordinates, output=O, ...)` for an input of type `I`
/// (computed in f64; stored as the [module](self) doc says: integers rounded half away from zero
/// and clamped).
///
/// # Errors
/// As [`map_coordinates`](super::map_coordinates); `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{map_coordinates_as, InterpOptions, Array, Device};
/// let x = Array::from_vec(vec![2.5, -2.5, 300.7, f64::NAN], &[4], &Device::Cpu).unwrap();
/// let c = Array::from_vec(vec![0.0, 1.0, 2.0, 3.0], &[1, 4], &Device::Cpu).unwrap();
/// let o = InterpOptions { order: 0, ..Default::default() };
/// let y = map_coordinates_as::<f64, i32, f64>(&x, &c, &o).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![3, -3, 301, i32::MIN]); // SciPy's values
/// let z = map_coordinates_as::<f64, u8, f64>(&x, &c, &o).unwrap();
/// assert_eq!(z.to_vec().unwrap(), vec![3, 0, 255, 0]);
/// ```
pub fn map_coordinates_as<I: Element, O: Element, C: Real>(
    input: &Array<I>,
    coordinates: &Array<C>,
    opts: &InterpOptions,
) -> Result<Array<O>> {
    run("map_coordinates", input, opts, |x, pad| {
        map_coordinates_impl(x, coordinates, opts, pad)
    })
}

/// [`affine_transform`](super::affine_transform) with SciPy's `output` dtype
/// (`scipy.ndimage.affine_transform(..., output=O)`; see the [module](self) doc for the store).
///
/// # Errors
/// As [`affine_transform`](super::affine_transform); `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{affine_transform_as, InterpOptions, Matrix, Array, Device};
/// let x = Array::from_vec(vec![0u8, 3, 10, 255], &[4], &Device::Cpu).unwrap();
/// let o = InterpOptions { order: 1, ..Default::default() };
/// // the input at 0.5 o + 0.5 = 0.5, 1, 1.5, 2
/// let y = affine_transform_as::<u8, f32>(&x, &Matrix::Diagonal(vec![0.5]), &[0.5], None, &o);
/// assert_eq!(y.unwrap().to_vec().unwrap(), vec![1.5, 3.0, 6.5, 10.0]);
/// let z = affine_transform_as::<u8, u8>(&x, &Matrix::Diagonal(vec![0.5]), &[0.5], None, &o);
/// assert_eq!(z.unwrap().to_vec().unwrap(), vec![2, 3, 7, 10]); // rounded half away from zero
/// ```
pub fn affine_transform_as<I: Element, O: Element>(
    input: &Array<I>,
    matrix: &Matrix,
    offset: &[f64],
    output_shape: Option<&[usize]>,
    opts: &InterpOptions,
) -> Result<Array<O>> {
    run("affine_transform", input, opts, |x, pad| {
        let extra = AffineExtra {
            pad,
            ..Default::default()
        };
        affine_impl(x, matrix, offset, output_shape, opts, extra)
    })
}

/// [`shift`](super::shift) with SciPy's `output` dtype (`scipy.ndimage.shift(..., output=O)`).
///
/// # Errors
/// As [`shift`](super::shift); `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{shift_as, InterpOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3], &Device::Cpu).unwrap();
/// let o = InterpOptions { order: 1, cval: -2.5, ..Default::default() };
/// // SciPy: shift([1, 2, 3], 1.5, order=1, cval=-2.5) = [-2.5, -2.5, 1.5]
/// let y = shift_as::<f64, i32>(&x, &[1.5], &o).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![-3, -3, 2]);
/// ```
pub fn shift_as<I: Element, O: Element>(
    input: &Array<I>,
    shift: &[f64],
    opts: &InterpOptions,
) -> Result<Array<O>> {
    run("shift", input, opts, |x, pad| {
        shift_impl(x, shift, opts, pad)
    })
}

/// [`zoom`](super::zoom) with SciPy's `output` dtype (`scipy.ndimage.zoom(..., output=O)`).
///
/// # Errors
/// As [`zoom`](super::zoom); `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{zoom_as, InterpOptions, Array, Device};
/// let x = Array::from_vec(vec![0i32, 5], &[2], &Device::Cpu).unwrap();
/// let o = InterpOptions { order: 1, ..Default::default() };
/// let y = zoom_as::<i32, i64>(&x, &[2.0], false, &o).unwrap(); // 0, 5/3, 10/3, 5
/// assert_eq!(y.to_vec().unwrap(), vec![0, 2, 3, 5]);
/// ```
pub fn zoom_as<I: Element, O: Element>(
    input: &Array<I>,
    zoom: &[f64],
    grid_mode: bool,
    opts: &InterpOptions,
) -> Result<Array<O>> {
    if zoom_is_copy("zoom", input.ndim(), zoom, opts)? {
        // SciPy's `output[...] = input`: NumPy's casts (floats to integers truncated as C does)
        interp_code::<O>("zoom")?;
        if I::DTYPE.is_complex() {
            return Err(make::dtype("zoom", I::DTYPE));
        }
        return if I::DTYPE.is_real_float() && O::DTYPE.is_integer() {
            crate::filters::store::single("zoom", input, |x| x.copy())
        } else {
            input.astype::<O>()
        };
    }
    run("zoom", input, opts, |x, pad| {
        zoom_impl(x, zoom, grid_mode, opts, pad)
    })
}

/// [`rotate`](super::rotate) with SciPy's `output` dtype (`scipy.ndimage.rotate(...,
/// output=O)`).
///
/// # Errors
/// As [`rotate`](super::rotate); `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{rotate_as, InterpOptions, Array, Device};
/// let x = Array::from_vec(vec![1u8, 2, 3, 4], &[2, 2], &Device::Cpu).unwrap();
/// let o = InterpOptions { order: 0, ..Default::default() };
/// let y = rotate_as::<u8, f64>(&x, 90.0, (1, 0), false, &o).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![2.0, 4.0, 1.0, 3.0]);
/// ```
pub fn rotate_as<I: Element, O: Element>(
    input: &Array<I>,
    angle: f64,
    axes: (isize, isize),
    reshape: bool,
    opts: &InterpOptions,
) -> Result<Array<O>> {
    run("rotate", input, opts, |x, pad| {
        rotate_impl(x, angle, axes, reshape, opts, pad)
    })
}

/// [`spline_filter1d`] with SciPy's `output` dtype
/// (`scipy.ndimage.spline_filter1d(input, order, axis, output=O, mode)`): the coefficients
/// computed in f64 and stored with the C casts of [`crate::filters`] ("Output types") (truncation; u8
/// wraps through i32). Orders 0 and 1 store the input itself (SciPy's `output[...] = input`).
/// SciPy's default output is float64: `spline_filter1d_as::<I, f64>`, as
/// [`spline_filter1d`] returns.
///
/// # Errors
/// `InvalidArgument` for an order above 5 or a bad axis (checked for every order; SciPy checks
/// the axis only for orders ≥ 2); `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{spline_filter1d_as, Array, Device, Mode};
/// let x = Array::from_vec(vec![0.5f32, 10.2, -7.7, 4.0], &[4], &Device::Cpu).unwrap();
/// // SciPy: spline_filter1d(x, 2) = [-4.964..., 16.892..., -14.792..., 10.264...]
/// let y = spline_filter1d_as::<f32, i32>(&x, 2, -1, Mode::Mirror).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![-4, 16, -14, 10]);
/// let z = spline_filter1d_as::<f32, u8>(&x, 2, -1, Mode::Mirror).unwrap();
/// assert_eq!(z.to_vec().unwrap(), vec![252, 16, 242, 10]);
/// ```
pub fn spline_filter1d_as<I: Element, O: Element>(
    input: &Array<I>,
    order: usize,
    axis: isize,
    mode: Mode,
) -> Result<Array<O>> {
    let op = "spline_filter1d";
    check_order(op, order, 0)?;
    let a = cusci_core::array::layout::norm_axis(op, axis, input.ndim())?;
    let mut passes: Vec<PassFn> = Vec::new();
    if order >= 2 {
        passes.push(Box::new(move |x| {
            spline_filter1d(x, order, a as isize, mode)
        }));
    }
    chain(op, input, passes)
}

/// [`spline_filter`](super::spline_filter) with SciPy's `output` dtype
/// (`scipy.ndimage.spline_filter(input, order, output=O, mode)`): one 1-D prefilter per axis,
/// each stored in `O` (truncation as [`spline_filter1d_as`]) before the next axis reads it, as
/// SciPy runs `spline_filter1d(input, ..., output=output)` with `input = output` between axes.
/// SciPy's default output is float64: `spline_filter_as::<I, f64>`.
///
/// Numerics: the prefilter's double coefficients may differ from SciPy's in the last bit
/// (another summation order), so an integer output can differ by one where a coefficient is
/// within an ulp of an integer; e.g. SciPy's first pass over `[[0, 10, 200], [255, 3, 17]]`
/// gives `-3.9999999999999987` (truncated to −3) where this one gives −4, and the second pass
/// carries the difference on (SciPy's i32 result `[..., 854, -178, -160]`, here
/// `[..., 855, -180, -158]`).
///
/// # Errors
/// `InvalidArgument` for an order outside 2–5 (SciPy 1.17 raises `spline order not supported`
/// for 0 and 1 here, as [`spline_filter`](super::spline_filter) does); `UnsupportedDType` for
/// complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{spline_filter_as, Array, Device, Mode};
/// let x = Array::from_vec(vec![0u8, 10, 200, 255, 3, 17], &[2, 3], &Device::Cpu).unwrap();
/// // SciPy: spline_filter(x, 3, output=np.float32), each axis stored in f32
/// let y = spline_filter_as::<u8, f32>(&x, 3, Mode::Mirror).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![-367.5, -30.0, 589.5, 855.0, -180.0, -159.0]);
/// ```
pub fn spline_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    order: usize,
    mode: Mode,
) -> Result<Array<O>> {
    let op = "spline_filter";
    check_order(op, order, 2)?;
    let passes: Vec<PassFn> = (0..input.ndim())
        .map(|a| {
            Box::new(move |x: &Array<f64>| spline_filter1d(x, order, a as isize, mode)) as PassFn
        })
        .collect();
    chain(op, input, passes)
}
