//! The objects of a label image: `find_objects` (bounding boxes) and `value_indices` (the
//! coordinates of every value).

use super::{check_labels, function};
use crate::cuda::{per_item, NdiShape};
use crate::sort::{bits_for, sort_pairs, RadixWord};
use crate::structure::{c_strides_u, contig};
use cusci_core::error::make;
use cusci_core::{Array, Backend, CudaDevice, DType, Element, LaunchConfig, Result};
use std::collections::BTreeMap;

/// The bounding box of one object: `(start, stop)` along each axis.
pub type ObjectSlices = Vec<(usize, usize)>;

/// `scipy.ndimage.find_objects(input, max_label)`: for labels `1..=max_label` (default, and for
/// 0 as SciPy: the largest label), the bounding box `[(start, stop); ndim]` of each, `None` for
/// a label that does not occur. One pass over the labels (atomic minimum/maximum per coordinate
/// on the GPU).
///
/// # Errors
/// `UnsupportedDType` for non-integer labels.
///
/// ```
/// use cusci_ndimage::{find_objects, Array, Device};
/// let l = Array::from_vec(vec![0i32, 1, 1, 0, 0, 2], &[2, 3], &Device::Cpu).unwrap();
/// let o = find_objects(&l, None).unwrap();
/// assert_eq!(o, vec![Some(vec![(0, 1), (1, 3)]), Some(vec![(1, 2), (2, 3)])]);
/// ```
pub fn find_objects<L: Element>(
    input: &Array<L>,
    max_label: Option<usize>,
) -> Result<Vec<Option<ObjectSlices>>> {
    const OP: &str = "find_objects";
    check_labels::<L>(OP)?;
    let x = contig(input)?;
    let shape = x.shape().to_vec();
    let nd = shape.len();
    // SciPy: a max_label below 1 means every label
    let nmax = match max_label {
        Some(m) if m >= 1 => m,
        _ => {
            if x.size() == 0 {
                0
            } else {
                x.to_vec()?
                    .iter()
                    .map(|v| v.to_i64())
                    .max()
                    .unwrap_or(0)
                    .max(0) as usize
            }
        }
    };
    // SciPy's list holds max_label entries (MemoryError when that cannot be held)
    let len = cusci_core::array::layout::checked_mul(OP, nmax, 2 * nd, "labels times bounds")?;
    cusci_core::host::check_request(cusci_core::array::layout::checked_bytes(
        OP,
        nmax,
        std::mem::size_of::<Option<ObjectSlices>>(),
    )?)?;
    let bb: Vec<i64> = match x.backend() {
        Backend::Host(h) => {
            let mut bb = cusci_core::host::try_vec_filled(OP, len, 0i64)?;
            for s in 0..nmax {
                for d in 0..nd {
                    bb[s * 2 * nd + d] = i64::MAX;
                }
            }
            let st = c_strides_u(&shape);
            for (i, v) in h.try_to_contiguous()?.iter().enumerate() {
                let l = v.to_i64();
                if l < 1 || l as usize > nmax {
                    continue;
                }
                let s = l as usize - 1;
                for d in 0..nd {
                    let c = ((i / st[d]) % shape[d]) as i64;
                    let lo = &mut bb[s * 2 * nd + d];
                    *lo = (*lo).min(c);
                    let hi = &mut bb[s * 2 * nd + nd + d];
                    *hi = (*hi).max(c + 1);
                }
            }
            bb
        }
        Backend::Cuda(c) => {
            let cd = c.dev();
            let dev = x.device();
            let mut init = cusci_core::host::try_vec_filled(OP, len.max(1), 0i64)?;
            for s in 0..nmax {
                for d in 0..nd {
                    init[s * 2 * nd + d] = i64::MAX;
                }
            }
            let l = init.len();
            let mut bb = Array::from_vec(init, &[l], dev)?;
            let sh = NdiShape::new(OP, &shape)?;
            if x.size() > 0 {
                let f = function(cd, L::DTYPE, "ndi_meas_bbox")?;
                cd.launch(&f, per_item(cd, x.size()))
                    .arg(c.ptr())
                    .arg(sh)
                    .arg(nmax as i64)
                    .arg(bb.dev_ptr_mut()?)
                    .run()?;
            }
            bb.to_vec()?
        }
    };
    Ok((0..nmax)
        .map(|s| {
            let b = &bb[s * 2 * nd..(s + 1) * 2 * nd];
            if nd > 0 && b[0] == i64::MAX {
                None
            } else {
                Some(
                    (0..nd)
                        .map(|d| (b[d] as usize, b[nd + d] as usize))
                        .collect(),
                )
            }
        })
        .collect())
}

/// `scipy.ndimage.value_indices(arr, ignore_value)`: for every distinct value of an integer
/// array, the coordinates of its elements (one `Vec` per axis, raster order), in increasing
/// order of value.
///
/// GPU: the flat indices are sorted by value on the device (a stable radix sort over the span
/// `max − min` of the values, so the indices of each value stay in raster order) and unravelled
/// into coordinates there; one copy (values and coordinates) comes back and is split into the
/// map on the host. CPU: one pass on the host.
///
/// # Errors
/// `UnsupportedDType` for non-integer arrays (bool too, as SciPy); `InvalidArgument` for an
/// `ignore_value` outside the array type's range (SciPy: NumPy's OverflowError).
///
/// ```
/// use cusci_ndimage::{value_indices, Array, Device};
/// let a = Array::from_vec(vec![0i32, 2, 2, 0], &[2, 2], &Device::Cpu).unwrap();
/// let v = value_indices(&a, Some(0)).unwrap();
/// assert_eq!(v[&2], vec![vec![0, 1], vec![1, 0]]);
/// ```
pub fn value_indices<L: Element>(
    arr: &Array<L>,
    ignore_value: Option<i64>,
) -> Result<BTreeMap<i64, Vec<Vec<usize>>>> {
    const OP: &str = "value_indices";
    // SciPy: "Parameter 'arr' must be an integer array" (bool too)
    if L::DTYPE == DType::Bool {
        return Err(make::dtype(OP, L::DTYPE));
    }
    check_labels::<L>(OP)?;
    // SciPy converts ignore_value to the array's type: out of its range is NumPy's OverflowError
    if let Some(v) = ignore_value {
        let (lo, hi) = match L::DTYPE {
            DType::U8 => (0, 255),
            DType::I32 => (i32::MIN as i64, i32::MAX as i64),
            _ => (i64::MIN, i64::MAX),
        };
        if v < lo || v > hi {
            return Err(make::arg(
                OP,
                format!("ignore_value {v} is out of range for {:?}", L::DTYPE),
            ));
        }
    }
    let shape = arr.shape().to_vec();
    let nd = shape.len();
    if let Backend::Cuda(c) = arr.backend() {
        return value_indices_cuda(c.dev(), arr, ignore_value);
    }
    let st = c_strides_u(&shape);
    let mut m: BTreeMap<i64, Vec<Vec<usize>>> = BTreeMap::new();
    for (i, v) in arr.to_vec()?.into_iter().enumerate() {
        let v = v.to_i64();
        if Some(v) == ignore_value {
            continue;
        }
        let e = m.entry(v).or_insert_with(|| vec![Vec::new(); nd]);
        for d in 0..nd {
            e[d].push((i / st[d]) % shape[d]);
        }
    }
    Ok(m)
}

fn value_indices_cuda<L: Element>(
    cd: &CudaDevice,
    arr: &Array<L>,
    ignore_value: Option<i64>,
) -> Result<BTreeMap<i64, Vec<Vec<usize>>>> {
    let x = contig(arr)?;
    let n = x.size();
    let mut m: BTreeMap<i64, Vec<Vec<usize>>> = BTreeMap::new();
    if n == 0 {
        return Ok(m);
    }
    let dev = x.device();
    let mut mm = Array::from_vec(vec![i64::MAX, i64::MIN], &[2], dev)?;
    let f = function(cd, L::DTYPE, "ndi_vi_minmax")?;
    cd.launch(&f, per_item(cd, n))
        .arg(x.dev_ptr()?)
        .arg(n as i64)
        .arg(mm.dev_ptr_mut()?)
        .run()?;
    let mm = mm.to_vec()?;
    let span = (mm[1] as i128 - mm[0] as i128) as u64;
    let out = if span <= u32::MAX as u64 {
        vi_sorted::<L, i32>(cd, &x, mm[0], bits_for(span))?
    } else {
        vi_sorted::<L, i64>(cd, &x, mm[0], bits_for(span))?
    };
    let nd = x.ndim();
    let mut a = 0usize;
    while a < n {
        let v = out[a];
        let mut b = a + 1;
        while b < n && out[b] == v {
            b += 1;
        }
        if Some(v) != ignore_value {
            let coords = (0..nd)
                .map(|d| {
                    out[(d + 1) * n + a..(d + 1) * n + b]
                        .iter()
                        .map(|&c| c as usize)
                        .collect()
                })
                .collect();
            m.insert(v, coords);
        }
        a = b;
    }
    Ok(m)
}

/// CUDA value_indices: keys `label − mn` (`W` words, `kbits` bits), their stable argsort, and the
/// values and coordinates `[(ndim + 1) · n]` back in one copy.
fn vi_sorted<L: Element, W: RadixWord>(
    cd: &CudaDevice,
    x: &Array<L>,
    mn: i64,
    kbits: u32,
) -> Result<Vec<i64>> {
    let n = x.size();
    let dev = x.device();
    let cfg = per_item(cd, n);
    let mut key = Array::<W>::empty(&[n], dev)?;
    let f = function(cd, L::DTYPE, &format!("ndi_vi_keys{}", W::BITS))?;
    cd.launch(&f, cfg)
        .arg(x.dev_ptr()?)
        .arg(n as i64)
        .arg(mn)
        .arg(key.dev_ptr_mut()?)
        .run()?;
    let sh = NdiShape::new("value_indices", x.shape())?;
    let mut out = Array::<i64>::empty(&[(x.ndim() + 1) * n], dev)?;
    if n as u64 <= u32::MAX as u64 + 1 {
        let (sk, idx) = sort_pairs::<W, i32>(&key, None, kbits)?;
        vi_unravel(cd, cfg, L::DTYPE, (&sk, &idx), mn, sh, &mut out)?;
    } else {
        let (sk, idx) = sort_pairs::<W, i64>(&key, None, kbits)?;
        vi_unravel(cd, cfg, L::DTYPE, (&sk, &idx), mn, sh, &mut out)?;
    }
    out.to_vec()
}

/// CUDA value_indices: the values `mn + key` of the sorted keys `sk` and the coordinates of
/// their flat indices `idx` into `out` (`ndi_vi_unravel_k{K}_i{I}`).
fn vi_unravel<K: RadixWord, I: RadixWord>(
    cd: &CudaDevice,
    cfg: LaunchConfig,
    dtype: DType,
    (sk, idx): (&Array<K>, &Array<I>),
    mn: i64,
    sh: NdiShape,
    out: &mut Array<i64>,
) -> Result<()> {
    let f = function(
        cd,
        dtype,
        &format!("ndi_vi_unravel_k{}_i{}", K::BITS, I::BITS),
    )?;
    cd.launch(&f, cfg)
        .arg(sk.dev_ptr()?)
        .arg(idx.dev_ptr()?)
        .arg(mn)
        .arg(sh)
        .arg(out.dev_ptr_mut()?)
        .run()
}
