//! The sums and moments of the regions (`sum_labels`, `mean`, `variance`,
//! `standard_deviation`, `center_of_mass`), their medians and `labeled_comprehension`.

use super::{f64v, function, fx_finish, seg, Fixed};
use crate::cuda::{per_item, NdiShape};
use crate::structure::c_strides_u;
use cusci_core::{Array, DType, Element, Result};

/// `scipy.ndimage.sum_labels(input, labels, index)`: the sum of the values of each region
/// (0 for a label that does not occur).
///
/// # Errors
/// `UnsupportedDType` (complex input, non-integer labels); `ShapeMismatch` (labels' shape);
/// `InvalidArgument` (index values spanning more than 2^24 labels); `DeviceMismatch`.
///
/// ```
/// use cusci_ndimage::{sum_labels, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[4], &Device::Cpu).unwrap();
/// let l = Array::from_vec(vec![1i32, 1, 0, 2], &[4], &Device::Cpu).unwrap();
/// assert_eq!(sum_labels(&x, Some(&l), Some(&[1, 2])).unwrap(), vec![3.0, 4.0]);
/// ```
pub fn sum_labels<T: Element, L: Element>(
    input: &Array<T>,
    labels: Option<&Array<L>>,
    index: Option<&[i64]>,
) -> Result<Vec<f64>> {
    Ok(seg("sum_labels", input, labels, index)?.basic()?.sum)
}

/// `scipy.ndimage.sum`: the same as [`sum_labels`].
///
/// ```
/// use cusci_ndimage::{sum, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 2.0], &[2], &Device::Cpu).unwrap();
/// assert_eq!(sum::<f64, i32>(&x, None, None).unwrap(), vec![3.0]);
/// ```
pub fn sum<T: Element, L: Element>(
    input: &Array<T>,
    labels: Option<&Array<L>>,
    index: Option<&[i64]>,
) -> Result<Vec<f64>> {
    sum_labels(input, labels, index)
}

/// `scipy.ndimage.mean`: the mean of each region (NaN for an empty one). Errors as
/// [`sum_labels`].
///
/// ```
/// use cusci_ndimage::{mean, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[4], &Device::Cpu).unwrap();
/// let l = Array::from_vec(vec![1i32, 1, 0, 2], &[4], &Device::Cpu).unwrap();
/// assert_eq!(mean(&x, Some(&l), Some(&[1, 2])).unwrap(), vec![1.5, 4.0]);
/// ```
pub fn mean<T: Element, L: Element>(
    input: &Array<T>,
    labels: Option<&Array<L>>,
    index: Option<&[i64]>,
) -> Result<Vec<f64>> {
    let b = seg("mean", input, labels, index)?.basic()?;
    Ok(b.sum
        .iter()
        .zip(&b.cnt)
        .map(|(&s, &c)| s / c as f64)
        .collect())
}

/// `scipy.ndimage.variance`: the population variance of each region (two passes: the mean, then
/// the centred squares). NaN for an empty region. Errors as [`sum_labels`].
///
/// ```
/// use cusci_ndimage::{variance, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 3.0, 5.0, 5.0], &[4], &Device::Cpu).unwrap();
/// let l = Array::from_vec(vec![1i32, 1, 2, 2], &[4], &Device::Cpu).unwrap();
/// assert_eq!(variance(&x, Some(&l), Some(&[1, 2])).unwrap(), vec![1.0, 0.0]);
/// ```
pub fn variance<T: Element, L: Element>(
    input: &Array<T>,
    labels: Option<&Array<L>>,
    index: Option<&[i64]>,
) -> Result<Vec<f64>> {
    let s = seg("variance", input, labels, index)?;
    let b = s.basic()?;
    let m: Vec<f64> = b
        .sum
        .iter()
        .zip(&b.cnt)
        .map(|(&v, &c)| v / c as f64)
        .collect();
    let sq = s.centered_sq(&m)?;
    Ok(sq.iter().zip(&b.cnt).map(|(&q, &c)| q / c as f64).collect())
}

/// `scipy.ndimage.standard_deviation`: the square root of [`variance`]. Errors as
/// [`sum_labels`].
///
/// ```
/// use cusci_ndimage::{standard_deviation, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 3.0], &[2], &Device::Cpu).unwrap();
/// assert_eq!(standard_deviation::<f64, i32>(&x, None, None).unwrap(), vec![1.0]);
/// ```
pub fn standard_deviation<T: Element, L: Element>(
    input: &Array<T>,
    labels: Option<&Array<L>>,
    index: Option<&[i64]>,
) -> Result<Vec<f64>> {
    Ok(variance(input, labels, index)?
        .into_iter()
        .map(f64::sqrt)
        .collect())
}

/// The order of the medians' sort (the GPU's order-preserving keys): every NaN last, else
/// `total_cmp` (−0.0 before +0.0).
fn median_order(a: &f64, b: &f64) -> std::cmp::Ordering {
    match (a.is_nan(), b.is_nan()) {
        (false, false) => a.total_cmp(b),
        (x, y) => x.cmp(&y),
    }
}

/// SciPy's median of one region's values (see [`median`]); `f32avg`: the middle pair averaged
/// in f32 (f32 input, as NumPy does).
fn median_of(v: &mut [f64], np_median: bool, f32avg: bool) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let n = v.len();
    v.sort_by(median_order);
    if np_median && v[n - 1].is_nan() {
        return f64::NAN;
    }
    let (lo, hi) = ((n - 1) / 2, n / 2);
    if np_median && lo == hi {
        v[lo]
    } else if f32avg {
        ((v[lo] as f32 + v[hi] as f32) / 2.0) as f64
    } else {
        (v[lo] + v[hi]) / 2.0
    }
}

/// `scipy.ndimage.median`: the median of each region; NaN for an empty region.
///
/// SciPy computes it two ways, and so does this function, bit for bit:
/// - without `labels` or without `index` (NumPy's `np.median` of the region): NaN when the
///   region holds a NaN, else the middle value (odd count) or the mean of the two middle values;
/// - with an `index` list (SciPy sorts each region and picks): values sorted with NaN last, then
///   `(lo + hi) / 2` of the middle pair (`lo = hi` for an odd count, so a value above half the
///   type's largest gives inf, as in SciPy).
///
/// The mean of the pair is taken in f32 for f32 input (as NumPy), in f64 otherwise (integers
/// converted first). A one-element `index` behaves as a list (SciPy's scalar `index` takes the
/// first route). Among equal values −0.0 sorts before +0.0 (SciPy keeps their input order).
///
/// GPU: the elements are sorted on the device (a stable radix sort by value, then by region),
/// the middle pair of each region is picked by a kernel, and only the results come back.
/// Errors as [`sum_labels`].
///
/// ```
/// use cusci_ndimage::{median, Array, Device};
/// let x = Array::from_vec(vec![5.0f64, 1.0, 3.0, 4.0], &[4], &Device::Cpu).unwrap();
/// assert_eq!(median::<f64, i32>(&x, None, None).unwrap(), vec![3.5]);
/// let l = Array::from_vec(vec![1i32, 1, 1, 2], &[4], &Device::Cpu).unwrap();
/// assert_eq!(median(&x, Some(&l), Some(&[1, 2, 3])).unwrap()[..2], [3.0, 4.0]);
/// ```
pub fn median<T: Element, L: Element>(
    input: &Array<T>,
    labels: Option<&Array<L>>,
    index: Option<&[i64]>,
) -> Result<Vec<f64>> {
    let s = seg("median", input, labels, index)?;
    let np_median = s.mode != 0;
    if s.cpu().is_some() {
        let f32avg = T::DTYPE == DType::F32;
        return Ok(s
            .cpu_groups()?
            .into_iter()
            .map(|mut v| median_of(&mut v, np_median, f32avg))
            .collect());
    }
    if T::DTYPE.size() == 8 {
        s.gpu_median::<i64>(np_median)
    } else {
        s.gpu_median::<i32>(np_median)
    }
}

/// `scipy.ndimage.center_of_mass`: per region, Σ x·coordinate / Σ x along each axis. Errors as
/// [`sum_labels`].
///
/// ```
/// use cusci_ndimage::{center_of_mass, Array, Device};
/// let x = Array::from_vec(vec![0.0f64, 1.0, 0.0, 3.0], &[2, 2], &Device::Cpu).unwrap();
/// assert_eq!(center_of_mass::<f64, i32>(&x, None, None).unwrap(), vec![vec![0.75, 1.0]]);
/// ```
pub fn center_of_mass<T: Element, L: Element>(
    input: &Array<T>,
    labels: Option<&Array<L>>,
    index: Option<&[i64]>,
) -> Result<Vec<Vec<f64>>> {
    let s = seg("center_of_mass", input, labels, index)?;
    let b = s.basic()?;
    let nd = input.ndim();
    let shape = input.shape().to_vec();
    let k = s.nslots;
    let acc: Vec<f64> = if let Some((x, sl)) = s.cpu() {
        let mut acc = vec![0.0; k * nd];
        let st = c_strides_u(&shape);
        for (i, (&v, &sv)) in x.iter().zip(sl).enumerate() {
            if sv < 0 {
                continue;
            }
            let v = f64v(v);
            for d in 0..nd {
                acc[sv as usize * nd + d] += v * ((i / st[d]) % shape[d]) as f64;
            }
        }
        acc
    } else {
        let (cd, sl) = s.gpu()?;
        let scale = s.scale()?;
        let mut acc = Array::<i64>::zeros(&[2 * (k * nd).max(1)], s.x.device())?;
        // coordinates along d are < shape[d] <= 2^eaxis[d]
        let mut eaxis: Vec<i32> = shape
            .iter()
            .map(|&m| (usize::BITS - m.leading_zeros()) as i32)
            .collect();
        if eaxis.is_empty() {
            eaxis.push(0);
        }
        let eaxis = Array::from_vec(eaxis, &[nd.max(1)], s.x.device())?;
        let sh = NdiShape::new("center_of_mass", &shape)?;
        let n = s.x.size();
        if n > 0 {
            let f = function(cd, T::DTYPE, "ndi_meas_com")?;
            cd.launch(&f, per_item(cd, n))
                .arg(s.x.dev_ptr()?)
                .arg(sl.dev_ptr()?)
                .arg(sh)
                .arg(scale.0.dev_ptr()?)
                .arg(eaxis.dev_ptr()?)
                .arg(acc.dev_ptr_mut()?)
                .run()?;
        }
        let fx = Fixed {
            acc: &acc,
            k,
            per: nd,
            mul: 1,
            add: 0,
            eaxis: Some(&eaxis),
            nonfinite_nan: false,
        };
        fx_finish(cd, scale, &fx)?
    };
    Ok((0..k)
        .map(|j| (0..nd).map(|d| acc[j * nd + d] / b.sum[j]).collect())
        .collect())
}

/// `scipy.ndimage.labeled_comprehension(input, labels, index, func, out_dtype, default)`: `func`
/// applied to the values of each region (in raster order, as f64); `default` for an empty region.
///
/// `func` is a Rust closure and runs on the host, once per region, on a slice of the region's
/// values. On a GPU the grouping runs on the device (a stable radix sort of the elements by
/// region) and the grouped values come back in one copy (with the regions' bounds). Errors as
/// [`sum_labels`].
///
/// ```
/// use cusci_ndimage::{labeled_comprehension, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3], &Device::Cpu).unwrap();
/// let l = Array::from_vec(vec![1i32, 1, 2], &[3], &Device::Cpu).unwrap();
/// let r = labeled_comprehension(&x, Some(&l), &[1, 2, 5], |v| v.len() as f64, -1.0).unwrap();
/// assert_eq!(r, vec![2.0, 1.0, -1.0]);
/// ```
pub fn labeled_comprehension<T: Element, L: Element>(
    input: &Array<T>,
    labels: Option<&Array<L>>,
    index: &[i64],
    func: impl Fn(&[f64]) -> f64,
    default: f64,
) -> Result<Vec<f64>> {
    let s = seg("labeled_comprehension", input, labels, Some(index))?;
    if s.cpu().is_some() {
        return Ok(s
            .cpu_groups()?
            .iter()
            .map(|v| if v.is_empty() { default } else { func(v) })
            .collect());
    }
    let (v, b) = s.gpu_groups()?;
    let k = s.nslots;
    Ok((0..k)
        .map(|j| {
            let (a, e) = (b[j] as usize, b[k + j] as usize);
            if e > a {
                func(&v[a..e])
            } else {
                default
            }
        })
        .collect())
}
