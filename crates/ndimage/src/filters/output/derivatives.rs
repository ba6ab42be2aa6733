//! The derivative filters with SciPy's `output` dtype: Sobel, Prewitt, Laplace, Gaussian
//! Laplace and Gaussian gradient magnitude (sums and squares in the output type).

use super::linear::gaussian_passes;
use super::{apply, chain, copy_code, finish, load, store, stored_passes, PassFn, Store};
use crate::filters::derivatives::laplace_sigmas;
use crate::filters::{
    axis_modes, correlate1d, norm_axes, per_axis, FilterOptions, GaussianOptions,
};
use cusci_core::array::layout::norm_axis;
use cusci_core::dtype::{Element, Numeric};
use cusci_core::error::make;
use cusci_core::{Array, Result};

fn edge_as<I: Element, O: Element>(
    op: &str,
    input: &Array<I>,
    axis: isize,
    smooth: [f64; 3],
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let ax = norm_axis(op, axis, input.ndim())?;
    // SciPy: a mode per axis of the input
    let modes = axis_modes(op, opts.mode, &opts.modes, input.ndim())?;
    let o = |a: usize| FilterOptions {
        origin: Vec::new(),
        axes: None,
        mode: modes[a],
        modes: Vec::new(),
        ..opts.clone()
    };
    let mut passes: Vec<PassFn> = Vec::new();
    let o0 = o(ax);
    passes.push(Box::new(move |x| {
        correlate1d(x, &[-1.0, 0.0, 1.0], ax as isize, &o0)
    }));
    for a in (0..input.ndim()).filter(|&a| a != ax) {
        let oa = o(a);
        passes.push(Box::new(move |x| correlate1d(x, &smooth, a as isize, &oa)));
    }
    chain(op, input, passes)
}

/// [`sobel`](crate::sobel) with SciPy's `output` dtype: the derivative along `axis`, then the
/// `[1, 2, 1]` smoothing along every other axis, each pass stored into `O` (so a u8 output wraps
/// negative gradients, as SciPy's default `output` does for a u8 image).
///
/// # Errors
/// `InvalidArgument` for a bad axis; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{sobel_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 10, 200, 255, 3, 250, 7, 0, 9, 100, 30, 1], &[3, 4], &Device::Cpu).unwrap();
/// let y = sobel_as::<u8, f64>(&x, -1, &FilterOptions::default()).unwrap();
/// let z = sobel_as::<u8, u8>(&x, -1, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap()[..4], [277.0, 604.0, 485.0, 158.0]);
/// assert_eq!(z.to_vec().unwrap()[..4], [21, 92, 229, 158]); // SciPy's u8 result
/// ```
pub fn sobel_as<I: Element, O: Element>(
    input: &Array<I>,
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    edge_as("sobel", input, axis, [1.0, 2.0, 1.0], opts)
}

/// [`prewitt`](crate::prewitt) with SciPy's `output` dtype (as [`sobel_as`] with `[1, 1, 1]`).
///
/// # Errors
/// `InvalidArgument` for a bad axis; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{prewitt_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![1i32, 2, 4, 8], &[4], &Device::Cpu).unwrap();
/// let y = prewitt_as::<i32, i32>(&x, 0, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![1, 3, 6, 4]);
/// ```
pub fn prewitt_as<I: Element, O: Element>(
    input: &Array<I>,
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    edge_as("prewitt", input, axis, [1.0, 1.0, 1.0], opts)
}

/// [`laplace`](crate::laplace) with SciPy's `output` dtype: the `[1, −2, 1]` second derivative
/// along each axis of `opts.axes` (all by default), each stored into `O`, added in `O` as NumPy's
/// `output += tmp` (integers wrap, bool is logical or, f32 rounds each sum); with no axis, the
/// input stored into `O`.
///
/// # Errors
/// `InvalidArgument` for bad axes; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{laplace_as, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 10, 200, 255, 3, 250], &[2, 3], &Device::Cpu).unwrap();
/// let y = laplace_as::<u8, i32>(&x, &FilterOptions::default()).unwrap();
/// let z = laplace_as::<u8, u8>(&x, &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![265, 173, -140, -507, 506, -297]);
/// assert_eq!(z.to_vec().unwrap(), vec![9, 173, 116, 5, 250, 215]); // modulo 256
/// ```
pub fn laplace_as<I: Element, O: Element>(
    input: &Array<I>,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let op = "laplace";
    let s = Store::of::<O>(op)?;
    let axes = norm_axes(op, &opts.axes, input.ndim())?;
    let modes = axis_modes(op, opts.mode, &opts.modes, axes.len())?;
    let x = load(op, input)?;
    if axes.is_empty() {
        return finish(apply(x, copy_code::<I>(s))?);
    }
    let d2 = |k: usize| -> Result<Array<f64>> {
        let o = FilterOptions {
            origin: Vec::new(),
            axes: None,
            mode: modes[k],
            modes: Vec::new(),
            ..opts.clone()
        };
        store(correlate1d(&x, &[1.0, -2.0, 1.0], axes[k] as isize, &o)?, s)
    };
    laplace_sum(s, axes.len(), d2)
}

/// SciPy's `generic_laplace`: `output = d2(0)`, then `output += d2(k)` for the other terms `k`
/// (one per axis of `axes`), in the output type (NumPy's `+=`: integers wrap, bool is logical
/// or, f32 rounds each sum). `d2` returns stored values; `n` is at least 1.
fn laplace_sum<O: Element>(
    s: Store,
    n: usize,
    d2: impl Fn(usize) -> Result<Array<f64>>,
) -> Result<Array<O>> {
    if s == Store::I64 {
        // i64 sums may not be exact in f64: add as i64 (wrapping, as NumPy)
        let mut acc = d2(0)?.astype::<i64>()?;
        for k in 1..n {
            acc = acc.add(&d2(k)?.astype::<i64>()?)?;
        }
        return acc.astype::<O>();
    }
    let mut acc = d2(0)?;
    for k in 1..n {
        let sum = acc.add(&d2(k)?)?;
        acc = match s {
            // the stored bytes are >= 0: a sum is nonzero exactly when either is (logical or)
            Store::Bool => sum,
            Store::U8 => apply(sum, 14)?,
            Store::I32 => apply(sum, 12)?,
            _ => store(sum, s)?,
        };
    }
    finish(acc)
}

/// [`gaussian_laplace`](crate::gaussian_laplace) with SciPy's `output` dtype: for each axis of
/// `opts.axes` (all by default), the Gaussian filter over every axis with a second derivative
/// along that one (its passes stored into `O`), added as [`laplace_as`] does. `sigma`: one value
/// or one per filtered axis (the other axes are not smoothed); `opts.order` is ignored.
///
/// # Errors
/// As [`gaussian_filter`](crate::gaussian_filter); `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{gaussian_laplace_as, GaussianOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 0, 0, 0, 200, 0, 0, 0, 0], &[3, 3], &Device::Cpu).unwrap();
/// let y = gaussian_laplace_as::<u8, i32>(&x, &[1.0], &GaussianOptions::default()).unwrap();
/// let z = gaussian_laplace_as::<u8, f64>(&x, &[1.0], &GaussianOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap()[4], -52); // SciPy's value (each pass truncated)
/// assert!((z.to_vec().unwrap()[4] + 53.5098).abs() < 1e-4);
/// ```
pub fn gaussian_laplace_as<I: Element, O: Element>(
    input: &Array<I>,
    sigma: &[f64],
    opts: &GaussianOptions,
) -> Result<Array<O>> {
    let op = "gaussian_laplace";
    let s = Store::of::<O>(op)?;
    let nd = input.ndim();
    let axes = norm_axes(op, &opts.axes, nd)?;
    let full = laplace_sigmas(op, sigma, &axes, nd)?;
    let modes = axis_modes(op, opts.mode, &opts.modes, axes.len())?;
    let x = load(op, input)?;
    if axes.is_empty() {
        return finish(apply(x, copy_code::<I>(s))?);
    }
    let all: Vec<usize> = (0..nd).collect();
    let d2 = |k: usize| -> Result<Array<f64>> {
        let mut order = vec![0usize; nd];
        order[axes[k]] = 2;
        let passes = gaussian_passes(op, &all, &full, &order, &[modes[k]], opts)?;
        stored_passes(x.clone(), passes, s, copy_code::<I>(s))
    };
    laplace_sum(s, axes.len(), d2)
}

/// NumPy's `np.multiply(q, q, q)` and `output += q` over the stored derivatives, in `T`
/// (integers wrap; f32 rounds each step).
fn sum_of_squares<T: Numeric>(qs: &[Array<f64>]) -> Result<Array<T>> {
    let mut acc: Option<Array<T>> = None;
    for q in qs {
        let q = q.astype::<T>()?;
        let sq = q.mul(&q)?;
        acc = Some(match acc {
            None => sq,
            Some(a) => a.add(&sq)?,
        });
    }
    acc.ok_or_else(|| make::arg("gradient_magnitude", "no axis"))
}

/// [`gaussian_gradient_magnitude`](crate::gaussian_gradient_magnitude) with SciPy's `output`
/// dtype: for each axis of `opts.axes` (all by default) the Gaussian filter over every axis
/// (`sigma`: one value or one per axis of the input) with a first derivative along that one,
/// stored into `O`; then SciPy's `generic_gradient_magnitude` in the output type: each squared
/// and added in place (integers wrap modulo 2^bits, bool is and/or, f32 rounds each step), and
/// `np.sqrt(output, output, casting='unsafe')` (integers: the square root of the value as a
/// float, truncated; a negative wrapped sum gives NaN, stored as the type's minimum for i32/i64,
/// 0 for u8). With no axis, the input stored into `O`; `opts.order` is ignored.
///
/// # Errors
/// As [`gaussian_filter`](crate::gaussian_filter); `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{gaussian_gradient_magnitude_as, GaussianOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 0, 0, 0, 200, 0, 0, 0, 0], &[3, 3], &Device::Cpu).unwrap();
/// let g = GaussianOptions::default();
/// let y = gaussian_gradient_magnitude_as::<u8, u8>(&x, &[1.0], &g).unwrap();
/// let z = gaussian_gradient_magnitude_as::<u8, f64>(&x, &[1.0], &g).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![9, 10, 9, 10, 0, 10, 8, 14, 8]); // SciPy's (wrapped) values
/// assert!((z.to_vec().unwrap()[1] - 10.9720).abs() < 1e-4);
/// ```
pub fn gaussian_gradient_magnitude_as<I: Element, O: Element>(
    input: &Array<I>,
    sigma: &[f64],
    opts: &GaussianOptions,
) -> Result<Array<O>> {
    let op = "gaussian_gradient_magnitude";
    let s = Store::of::<O>(op)?;
    let nd = input.ndim();
    let axes = norm_axes(op, &opts.axes, nd)?;
    if sigma.is_empty() {
        return Err(make::arg(op, "no sigma given"));
    }
    let sig = per_axis(op, "sigma", sigma, nd, 0.0)?;
    let modes = axis_modes(op, opts.mode, &opts.modes, axes.len())?;
    let x = load(op, input)?;
    if axes.is_empty() {
        return finish(apply(x, copy_code::<I>(s))?);
    }
    let all: Vec<usize> = (0..nd).collect();
    let mut qs = Vec::with_capacity(axes.len());
    for (k, &a) in axes.iter().enumerate() {
        let mut order = vec![0usize; nd];
        order[a] = 1;
        let passes = gaussian_passes(op, &all, &sig, &order, &[modes[k]], opts)?;
        qs.push(stored_passes(x.clone(), passes, s, copy_code::<I>(s))?);
    }
    match s {
        Store::F64 => finish(sum_of_squares::<f64>(&qs)?.sqrt()?),
        Store::F32 => sum_of_squares::<f32>(&qs)?.sqrt()?.astype::<O>(),
        Store::I32 => int_sqrt(sum_of_squares::<i32>(&qs)?, s),
        Store::I64 => int_sqrt(sum_of_squares::<i64>(&qs)?, s),
        Store::U8 => int_sqrt(sum_of_squares::<u8>(&qs)?, s),
        Store::Bool => {
            // and/or of the stored bytes: nonzero where any derivative is (all bytes are >= 0)
            let mut acc = qs[0].clone();
            for q in &qs[1..] {
                acc = acc.add(q)?;
            }
            finish(acc)
        }
    }
}

/// NumPy's square root of an integer array written back into it (`casting='unsafe'`): the
/// value as f64 (u8's float16 loop gives the same truncated roots below 256), its square root
/// (NaN when negative), stored as the output type.
fn int_sqrt<T: Numeric, O: Element>(a: Array<T>, s: Store) -> Result<Array<O>> {
    finish(store(a.astype::<f64>()?.sqrt()?, s)?)
}
