//! `histogram`: NumPy's bins per region.

use super::{f64v, function, seg};
use crate::cuda::per_item;
use cusci_core::array::layout::{checked_bytes, checked_mul};
use cusci_core::error::make;
use cusci_core::host::{try_to_vec, try_vec_filled, try_with_capacity};
use cusci_core::{Array, Element, Result};

/// Edge `k` of the histogram's bins: NumPy's `linspace(min, max, bins + 1)`.
fn hist_edge(k: usize, min: f64, max: f64, bins: usize) -> f64 {
    let (delta, div) = (max - min, bins as f64);
    let step = delta / div;
    if k == bins {
        max
    } else if step == 0.0 {
        // NumPy's path for a step that underflows
        k as f64 / div * delta + min
    } else {
        k as f64 * step + min
    }
}

/// The bin of `v` (in `[min, max]`): the last whose edge it reaches, as `numpy.histogram` with
/// the edges of [`hist_edge`] (SciPy's bins), found from the arithmetic guess.
fn hist_bin(v: f64, min: f64, max: f64, bins: usize) -> usize {
    let mut b = (((v - min) / (max - min) * bins as f64) as usize).min(bins - 1);
    while b > 0 && v < hist_edge(b, min, max, bins) {
        b -= 1;
    }
    while b + 1 < bins && v >= hist_edge(b + 1, min, max, bins) {
        b += 1;
    }
    b
}

/// `scipy.ndimage.histogram(input, min, max, bins, labels, index)`: per region, the counts of
/// the values in `bins` equal bins over `[min, max]` (the last bin includes `max`; values
/// outside are not counted). A value on an edge goes where SciPy puts it: the edges are NumPy's
/// `linspace(min, max, bins + 1)`, so `0.4` falls below the rounded edge `0.40000000000000036`
/// of `histogram(x, -2, 2, 5)`. An empty region gives zero counts (SciPy: `None`).
///
/// # Errors
/// As [`sum_labels`](crate::sum_labels); `InvalidArgument` when `bins == 0` or `max <= min`, or
/// when the regions' counts (regions × bins) pass `isize::MAX` bytes (SciPy: "array is too
/// big"); `OutOfMemory` when they cannot be held (SciPy: MemoryError).
///
/// ```
/// use cusci_ndimage::{histogram, Array, Device};
/// let x = Array::from_vec(vec![0.0f64, 0.5, 1.0, 2.0], &[4], &Device::Cpu).unwrap();
/// assert_eq!(histogram::<f64, i32>(&x, 0.0, 1.0, 2, None, None).unwrap(), vec![vec![1, 2]]);
/// ```
pub fn histogram<T: Element, L: Element>(
    input: &Array<T>,
    min: f64,
    max: f64,
    bins: usize,
    labels: Option<&Array<L>>,
    index: Option<&[i64]>,
) -> Result<Vec<Vec<u64>>> {
    const OP: &str = "histogram";
    if bins == 0 || max.partial_cmp(&min) != Some(std::cmp::Ordering::Greater) {
        return Err(make::arg(
            OP,
            "bins must be at least 1 and max greater than min",
        ));
    }
    let s = seg(OP, input, labels, index)?;
    let k = s.nslots;
    // the k × bins counts checked here, for both devices: past isize::MAX bytes InvalidArgument
    // (SciPy: "array is too big"), then allocated fallibly (OutOfMemory, SciPy's MemoryError)
    let total = checked_mul(OP, k, bins, "regions times bins")?;
    checked_bytes(OP, total, std::mem::size_of::<u64>())?;
    let h: Vec<u64> = if let Some((x, sl)) = s.cpu() {
        let mut h: Vec<u64> = try_vec_filled(OP, total, 0)?;
        for (&v, &sv) in x.iter().zip(sl) {
            let v = f64v(v);
            if sv < 0 || !(v >= min && v <= max) {
                continue;
            }
            h[sv as usize * bins + hist_bin(v, min, max, bins)] += 1;
        }
        h
    } else {
        let (cd, sl) = s.gpu()?;
        let mut h = Array::<i64>::zeros(&[total], s.x.device())?;
        let n = s.x.size();
        if n > 0 {
            let f = function(cd, T::DTYPE, "ndi_meas_hist")?;
            cd.launch(&f, per_item(cd, n))
                .arg(s.x.dev_ptr()?)
                .arg(sl.dev_ptr()?)
                .arg(n as i64)
                .arg(min)
                .arg(max)
                .arg(bins as i64)
                .arg(h.dev_ptr_mut()?)
                .run()?;
        }
        h.to_vec()?.into_iter().map(|c| c as u64).collect()
    };
    if k == 1 {
        return Ok(vec![h]);
    }
    let mut out = try_with_capacity(OP, k)?;
    for c in h.chunks(bins) {
        out.push(try_to_vec(OP, c)?);
    }
    Ok(out)
}
