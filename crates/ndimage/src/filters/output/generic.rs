//! The generic filters with SciPy's `output` dtype.

use super::single;
use crate::filters::{
    generic_filter, generic_filter1d, FilterOptions, Footprint, GenericFunction, GenericFunction1d,
};
use cusci_core::dtype::Element;
use cusci_core::{Array, Result};

/// [`generic_filter`] with SciPy's `output` dtype (`scipy.ndimage.generic_filter(input,
/// function, ..., output=O)`): the input read as f64, the function's f64 value per footprint
/// stored in `O` with the C casts of the [module](super) doc (truncation; u8 wraps through i32;
/// i32/i64 out of range or NaN give the minimum; bool is the stored byte `!= 0`). A
/// [`GenericFunction::Cuda`] function runs on the f64 input (its double result is stored the
/// same way, on the device), unlike [`generic_filter`]`::<u8>`, whose CUDA results saturate.
///
/// # Errors
/// As [`generic_filter`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{generic_filter_as, GenericFunction, Footprint, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 10, 200, 255, 3, 77], &[6], &Device::Cpu).unwrap();
/// let f = |v: &[f64], _: &[f64]| v.iter().sum::<f64>() / v.len() as f64 * 1.37 - 60.0;
/// let fp = Footprint::Size(vec![3]);
/// let o = FilterOptions::default();
/// // SciPy: generic_filter(x, f, size=3, output=...) = [-55.43, 35.9, 152.35, 149.15, 92.98, 11.70]
/// let y = generic_filter_as::<u8, u8>(&x, GenericFunction::Closure(&f), &fp, &[], &o).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![201, 35, 152, 149, 92, 11]);
/// let z = generic_filter_as::<u8, i32>(&x, GenericFunction::Closure(&f), &fp, &[], &o).unwrap();
/// assert_eq!(z.to_vec().unwrap(), vec![-55, 35, 152, 149, 92, 11]);
/// ```
pub fn generic_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    function: GenericFunction<'_>,
    footprint: &Footprint,
    extra_arguments: &[f64],
    opts: &FilterOptions,
) -> Result<Array<O>> {
    single("generic_filter", input, |x| {
        generic_filter(x, function, footprint, extra_arguments, opts)
    })
}

/// [`generic_filter1d`] with SciPy's `output` dtype (`scipy.ndimage.generic_filter1d(input,
/// function, filter_size, axis, output=O, ...)`): the lines read as f64, the output lines the
/// function fills stored in `O` as [`generic_filter_as`] stores.
///
/// # Errors
/// As [`generic_filter1d`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{generic_filter1d_as, GenericFunction1d, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![0u8, 10, 200, 255, 3, 77], &[6], &Device::Cpu).unwrap();
/// let f = |i: &[f64], o: &mut [f64], _: &[f64]| {
///     for (k, v) in o.iter_mut().enumerate() { *v = i[k + 1] * 1.37 - i[k] * 2.5 - 0.3; }
/// };
/// let g = GenericFunction1d::Closure(&f);
/// let o = FilterOptions::default();
/// // SciPy: [-0.3, 13.4, 248.7, -150.95, -633.69, 97.69]
/// let y = generic_filter1d_as::<u8, u8>(&x, g, 2, -1, &[], &o).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![0, 13, 248, 106, 135, 97]);
/// ```
pub fn generic_filter1d_as<I: Element, O: Element>(
    input: &Array<I>,
    function: GenericFunction1d<'_>,
    filter_size: usize,
    axis: isize,
    extra_arguments: &[f64],
    opts: &FilterOptions,
) -> Result<Array<O>> {
    single("generic_filter1d", input, |x| {
        generic_filter1d(x, function, filter_size, axis, extra_arguments, opts)
    })
}
