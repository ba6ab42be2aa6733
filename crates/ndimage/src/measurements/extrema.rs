//! The extrema of the regions: `minimum`, `maximum`, their positions, and `extrema`.

use super::seg;
use cusci_core::error::make;
use cusci_core::{Array, Element, Result};

fn unravel(mut i: u64, shape: &[usize]) -> Vec<usize> {
    let mut c = vec![0usize; shape.len()];
    for d in (0..shape.len()).rev() {
        c[d] = (i % shape[d].max(1) as u64) as usize;
        i /= shape[d].max(1) as u64;
    }
    c
}

/// The coordinates of the flat positions `p` in `shape` (zeros for `u64::MAX`: none found).
fn coords(p: Vec<u64>, shape: &[usize]) -> Vec<Vec<usize>> {
    p.into_iter()
        .map(|p| {
            if p == u64::MAX {
                vec![0; shape.len()]
            } else {
                unravel(p, shape)
            }
        })
        .collect()
}

/// SciPy's minimum, maximum, their positions and extrema without `index` reduce over the
/// labelled elements at once: with none (an empty input, or no label above 0) that reduction
/// raises (NumPy's "zero-size array to reduction operation"); an `InvalidArgument` here. With
/// an `index` list an empty region gives 0 (as SciPy).
fn some_selected(op: &str, index: Option<&[i64]>, cnt: &[u64]) -> Result<()> {
    if index.is_none() && cnt.iter().all(|&c| c == 0) {
        return Err(make::arg(
            op,
            "no element of the input lies in the regions asked for",
        ));
    }
    Ok(())
}

/// `scipy.ndimage.minimum`: the smallest value of each region (0 for an empty one, as SciPy).
///
/// # Errors
/// As [`sum_labels`](crate::sum_labels); `InvalidArgument` without `index` when no element has a label above 0 (or
/// the input is empty: SciPy's ValueError), as for [`maximum`], the positions and [`extrema`].
///
/// ```
/// use cusci_ndimage::{minimum, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, -2.0, 3.0], &[3], &Device::Cpu).unwrap();
/// let l = Array::from_vec(vec![1i32, 1, 2], &[3], &Device::Cpu).unwrap();
/// assert_eq!(minimum(&x, Some(&l), Some(&[1, 2, 3])).unwrap(), vec![-2.0, 3.0, 0.0]);
/// ```
pub fn minimum<T: Element, L: Element>(
    input: &Array<T>,
    labels: Option<&Array<L>>,
    index: Option<&[i64]>,
) -> Result<Vec<f64>> {
    extreme("minimum", input, labels, index, false)
}

/// `scipy.ndimage.maximum`: the largest value of each region (0 for an empty one). Errors as
/// [`minimum`].
///
/// ```
/// use cusci_ndimage::{maximum, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, -2.0, 3.0], &[3], &Device::Cpu).unwrap();
/// assert_eq!(maximum::<f64, i32>(&x, None, None).unwrap(), vec![3.0]);
/// ```
pub fn maximum<T: Element, L: Element>(
    input: &Array<T>,
    labels: Option<&Array<L>>,
    index: Option<&[i64]>,
) -> Result<Vec<f64>> {
    extreme("maximum", input, labels, index, true)
}

/// The minimum or (`max`) maximum of each region (0 for an empty one).
fn extreme<T: Element, L: Element>(
    op: &str,
    input: &Array<T>,
    labels: Option<&Array<L>>,
    index: Option<&[i64]>,
    max: bool,
) -> Result<Vec<f64>> {
    let b = seg(op, input, labels, index)?.basic()?;
    some_selected(op, index, &b.cnt)?;
    Ok(or_zero(if max { &b.mx } else { &b.mn }, &b.cnt))
}

/// The per-region values `v`, 0 where the region is empty (`cnt` 0).
fn or_zero(v: &[f64], cnt: &[u64]) -> Vec<f64> {
    v.iter()
        .zip(cnt)
        .map(|(&v, &c)| if c == 0 { 0.0 } else { v })
        .collect()
}

fn positions<T: Element, L: Element>(
    op: &str,
    input: &Array<T>,
    labels: Option<&Array<L>>,
    index: Option<&[i64]>,
    max: bool,
) -> Result<Vec<Vec<usize>>> {
    let s = seg(op, input, labels, index)?;
    let b = s.basic()?;
    some_selected(op, index, &b.cnt)?;
    let t = if max { b.mx } else { b.mn };
    Ok(coords(s.first_pos(&t)?, input.shape()))
}

/// `scipy.ndimage.minimum_position`: the coordinates of the first (raster order) smallest value
/// of each region (zeros for an empty region). Errors as [`minimum`].
///
/// ```
/// use cusci_ndimage::{minimum_position, Array, Device};
/// let x = Array::from_vec(vec![3.0f64, 1.0, 2.0, 1.0], &[2, 2], &Device::Cpu).unwrap();
/// assert_eq!(minimum_position::<f64, i32>(&x, None, None).unwrap(), vec![vec![0, 1]]);
/// ```
pub fn minimum_position<T: Element, L: Element>(
    input: &Array<T>,
    labels: Option<&Array<L>>,
    index: Option<&[i64]>,
) -> Result<Vec<Vec<usize>>> {
    positions("minimum_position", input, labels, index, false)
}

/// `scipy.ndimage.maximum_position`: the coordinates of the first largest value of each region
/// (with an `index` list SciPy's pick among equal largest values follows its sort, not always
/// the first). Errors as [`minimum`].
///
/// ```
/// use cusci_ndimage::{maximum_position, Array, Device};
/// let x = Array::from_vec(vec![3.0f64, 1.0, 2.0, 3.0], &[2, 2], &Device::Cpu).unwrap();
/// assert_eq!(maximum_position::<f64, i32>(&x, None, None).unwrap(), vec![vec![0, 0]]);
/// ```
pub fn maximum_position<T: Element, L: Element>(
    input: &Array<T>,
    labels: Option<&Array<L>>,
    index: Option<&[i64]>,
) -> Result<Vec<Vec<usize>>> {
    positions("maximum_position", input, labels, index, true)
}

/// What [`extrema`] returns: minima, maxima, their positions.
pub type Extrema = (Vec<f64>, Vec<f64>, Vec<Vec<usize>>, Vec<Vec<usize>>);

/// `scipy.ndimage.extrema`: minimum, maximum, minimum_position and maximum_position of each
/// region in one call. Errors as [`minimum`].
///
/// ```
/// use cusci_ndimage::{extrema, Array, Device};
/// let x = Array::from_vec(vec![3.0f64, 1.0, 2.0], &[3], &Device::Cpu).unwrap();
/// let (mn, mx, pmn, pmx) = extrema::<f64, i32>(&x, None, None).unwrap();
/// assert_eq!((mn, mx, pmn, pmx), (vec![1.0], vec![3.0], vec![vec![1]], vec![vec![0]]));
/// ```
pub fn extrema<T: Element, L: Element>(
    input: &Array<T>,
    labels: Option<&Array<L>>,
    index: Option<&[i64]>,
) -> Result<Extrema> {
    let s = seg("extrema", input, labels, index)?;
    let b = s.basic()?;
    some_selected("extrema", index, &b.cnt)?;
    let pmn = s.first_pos(&b.mn)?;
    let pmx = s.first_pos(&b.mx)?;
    let shape = input.shape();
    Ok((
        or_zero(&b.mn, &b.cnt),
        or_zero(&b.mx, &b.cnt),
        coords(pmn, shape),
        coords(pmx, shape),
    ))
}
