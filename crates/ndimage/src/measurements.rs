//! Measurements over labelled regions (`scipy.ndimage`'s `sum_labels`, `mean`, `variance`,
//! `standard_deviation`, `minimum`, `maximum`, `median`, `minimum_position`, `maximum_position`,
//! `extrema`, `center_of_mass`, `histogram`, `find_objects`, `value_indices`,
//! `labeled_comprehension`).
//!
//! Every statistic is a segmented reduction: each element is mapped once to the slot of its label
//! in `index`, and one pass over the image accumulates every slot at the same time (atomics on the
//! GPU), so the cost does not grow with the number of labels. Results come back to the host as
//! one value per entry of `index`.
//!
//! GPU sums (`sum_labels`, `mean`, `variance`, `standard_deviation`, `center_of_mass`) are
//! reproducible bit for bit: each region's values are scaled by a power of two set by the
//! region's largest |value| and accumulated as 128-bit fixed-point integers (integer atomics are
//! order-independent; resolution 2^-86 of that largest value), then rounded once to f64. They
//! may differ from the CPU's sequential f64 sums in the last bits (they are usually closer to
//! the exact sum). NaN and ±inf give IEEE's results. Every input type is summed in f64: for an
//! f32 input without `index`, SciPy sums in f32 (NumPy's `sum`), so its results there are
//! within f32 rounding of these (which are closer to the exact values).
//!
//! The `labels`/`index` convention is SciPy's: without `labels`, the whole input is one region;
//! with `labels` but no `index`, every element with a label > 0 is one region; with `index`, one
//! result per entry of `index` (negative values too, as SciPy). Labels must have an integer (or
//! bool) element type.

use crate::cuda::{module_source, per_item, real_dtypes, specs, CusciShape, LaunchExt};
use crate::sort::{bits_for, sort_pairs, RadixWord};
use crate::structure::{c_strides_u, contig, real_only};
use cusci_core::cuda::launch::{KernelModule, Spec};
use cusci_core::error::make;
use cusci_core::{Array, Backend, CudaDevice, DType, Element, Function, LaunchConfig, Result};
use std::collections::BTreeMap;

/// The measurement kernels (`measurements.cu`) for an element type (of the values, or of the
/// labels for the label kernels): `Spec::of(&[T])`.
pub(crate) static MEAS: KernelModule = KernelModule {
    name: "ndimage_meas",
    source: |spec| {
        Ok(module_source(
            include_str!("measurements.cu"),
            spec.dtype(0)?,
        ))
    },
    options: &[],
    samples: || specs(real_dtypes()),
};

/// The measurement kernel `name` for element type `dtype`.
fn function(cd: &CudaDevice, dtype: DType, name: &str) -> Result<Function> {
    MEAS.function(cd, &Spec::of(&[dtype]), name)
}

/// Elements mapped to slots, on the input's device.
struct Seg<T: Element> {
    x: Array<T>,
    /// The slot of every element (−1: not measured), on the input's device.
    slots: Slots,
    nslots: usize,
    /// 1: no labels (one region); 2: labels > 0 (one region); 0: one slot per `index` entry.
    mode: i32,
    /// CUDA: per slot, the bits of the largest finite |value| and the flags of the non-finite
    /// values (the scale of the fixed-point sums), computed once.
    scale: std::cell::OnceCell<(Array<i64>, Array<i32>)>,
}

/// The elements' slots on the host or on the device.
enum Slots {
    Host(Vec<i64>),
    Cuda(Array<i64>),
}

/// The widest range of `index` values (largest − smallest, and 0) the label-to-slot table
/// covers: 2^24 labels, 128 MiB of table.
const MAX_INDEX_SPAN: usize = 1 << 24;

fn check_labels<L: Element>(op: &str) -> Result<()> {
    match L::DTYPE {
        DType::I32 | DType::I64 | DType::U8 | DType::Bool => Ok(()),
        d => Err(make::dtype(op, d)),
    }
}

fn seg<T: Element, L: Element>(
    op: &str,
    input: &Array<T>,
    labels: Option<&Array<L>>,
    index: Option<&[i64]>,
) -> Result<Seg<T>> {
    real_only::<T>(op)?;
    check_labels::<L>(op)?;
    if let Some(l) = labels {
        if l.shape() != input.shape() {
            return Err(make::shape(
                op,
                format!(
                    "labels of shape {:?} for an input of shape {:?}",
                    l.shape(),
                    input.shape()
                ),
            ));
        }
        cusci_core::array::check_same_device(op, input.device(), l.device())?;
    }
    let x = contig(input)?;
    let n = x.size();
    // mode 1: one region; mode 2: labels > 0; mode 0: the index table, whose entry k is the
    // slot of the label lo + k (lo: the smallest index value, or 0)
    let (mode, table, lo, nslots): (i32, Vec<i64>, i64, usize) = match (labels, index) {
        (None, _) => (1, vec![-1i64], 0, 1),
        (Some(_), None) => (2, vec![-1i64], 0, 1),
        (Some(_), Some(ix)) => {
            let lo = ix.iter().copied().min().unwrap_or(0).min(0);
            let hi = ix.iter().copied().max().unwrap_or(-1);
            let len = usize::try_from((hi as i128 - lo as i128 + 1).max(1))
                .ok()
                .filter(|&l| l <= MAX_INDEX_SPAN)
                .ok_or_else(|| {
                    make::arg(
                        op,
                        format!("index values span more than {MAX_INDEX_SPAN} labels"),
                    )
                })?;
            let mut t = vec![-1i64; len];
            // repeated index values: the first slot holding the label receives it; later ones copy
            for (s, &v) in ix.iter().enumerate().rev() {
                t[(v - lo) as usize] = s as i64;
            }
            (0, t, lo, ix.len())
        }
    };
    let slots = match x.backend() {
        Backend::Host(_) => Slots::Host(match labels {
            None => vec![0; n],
            Some(l) => {
                let lv = l.to_vec()?;
                lv.iter()
                    .map(|&v| {
                        let v = v.to_i64();
                        match mode {
                            2 => {
                                if v > 0 {
                                    0
                                } else {
                                    -1
                                }
                            }
                            _ => {
                                let k = v.wrapping_sub(lo);
                                if k >= 0 && (k as usize) < table.len() {
                                    table[k as usize]
                                } else {
                                    -1
                                }
                            }
                        }
                    })
                    .collect()
            }
        }),
        Backend::Cuda(c) => {
            let cd = c.dev();
            let dev = x.device();
            let mut slots = Array::<i64>::zeros(&[n], dev)?;
            let tl = table.len();
            let table = Array::from_vec(table, &[tl], dev)?;
            let lab = match labels {
                Some(l) => Some(contig(l)?),
                None => None,
            };
            if n > 0 {
                let f = function(cd, L::DTYPE, "ndi_meas_slots")?;
                cd.launch(&f, per_item(cd, n))
                    .opt(lab.as_ref().map(|l| l.dev_ptr()).transpose()?)
                    .arg(table.dev_ptr()?)
                    .arg(tl as i64)
                    .arg(lo)
                    .arg(slots.dev_ptr_mut()?)
                    .arg(n as i64)
                    .arg(mode)
                    .run()?;
            }
            Slots::Cuda(slots)
        }
    };
    Ok(Seg {
        x,
        slots,
        nslots,
        mode,
        scale: std::cell::OnceCell::new(),
    })
}

/// CUDA: how [`fx_finish`] turns fixed-point sums into f64: `acc` holds 2 words per slot and
/// axis (`per` axes of `k` slots); the exponent is `mul·e + add` (`+ eaxis[axis]`);
/// `nonfinite_nan`: any NaN/inf of the slot gives NaN.
struct Fixed<'a> {
    acc: &'a Array<i64>,
    k: usize,
    per: usize,
    mul: i32,
    add: i32,
    eaxis: Option<&'a Array<i32>>,
    nonfinite_nan: bool,
}

/// CUDA: the fixed-point sums `fx.acc` with the per-slot `scale` (`ndi_fx_finish`), as f64 on
/// the host.
fn fx_finish(
    cd: &CudaDevice,
    (amax, flags): &(Array<i64>, Array<i32>),
    fx: &Fixed,
) -> Result<Vec<f64>> {
    let n = fx.k * fx.per;
    if n == 0 {
        return Ok(Vec::new());
    }
    let mut out = Array::<f64>::empty(&[n], fx.acc.device())?;
    let f = function(cd, DType::F64, "ndi_fx_finish")?;
    cd.launch(&f, per_item(cd, n))
        .arg(fx.acc.dev_ptr()?)
        .arg(amax.dev_ptr()?)
        .arg(flags.dev_ptr()?)
        .arg(fx.k as i64)
        .arg(fx.per as i32)
        .arg(fx.mul)
        .arg(fx.add)
        .opt(fx.eaxis.map(|e| e.dev_ptr()).transpose()?)
        .arg(fx.nonfinite_nan as i32)
        .arg(out.dev_ptr_mut()?)
        .run()?;
    out.to_vec()
}

/// Count, sum, minimum, maximum per slot (min/max: +inf/−inf where empty).
struct Basic {
    cnt: Vec<u64>,
    sum: Vec<f64>,
    mn: Vec<f64>,
    mx: Vec<f64>,
}

fn f64v<T: Element>(v: T) -> f64 {
    v.to_c64().re
}

impl<T: Element> Seg<T> {
    /// CPU: the values and their slots.
    fn cpu(&self) -> Option<(&[T], &[i64])> {
        match (&self.slots, self.x.backend()) {
            (Slots::Host(s), Backend::Host(h)) => h.as_slice().map(|x| (&x[..s.len()], &s[..])),
            _ => None,
        }
    }

    /// CUDA: the device and the slots.
    fn gpu(&self) -> Result<(&CudaDevice, &Array<i64>)> {
        match (self.x.backend(), &self.slots) {
            (Backend::Cuda(c), Slots::Cuda(s)) => Ok((c.dev(), s)),
            _ => Err(make::arg("measurements", "internal: no device slots")),
        }
    }

    fn basic(&self) -> Result<Basic> {
        let k = self.nslots;
        let mut b = Basic {
            cnt: vec![0; k],
            sum: vec![0.0; k],
            mn: vec![f64::INFINITY; k],
            mx: vec![f64::NEG_INFINITY; k],
        };
        if let Some((x, sl)) = self.cpu() {
            for (&v, &s) in x.iter().zip(sl) {
                if s < 0 {
                    continue;
                }
                let s = s as usize;
                let v = f64v(v);
                b.cnt[s] += 1;
                b.sum[s] += v;
                if v < b.mn[s] {
                    b.mn[s] = v;
                }
                if v > b.mx[s] {
                    b.mx[s] = v;
                }
            }
            return Ok(b);
        }
        let (cd, sl) = self.gpu()?;
        let dev = self.x.device();
        let scale = self.scale()?;
        let mut cnt = Array::<i64>::zeros(&[k], dev)?;
        let mut acc = Array::<i64>::zeros(&[2 * k.max(1)], dev)?;
        let mut mn = Array::<f64>::full(&[k], f64::INFINITY, dev)?;
        let mut mx = Array::<f64>::full(&[k], f64::NEG_INFINITY, dev)?;
        let n = self.x.size();
        if n > 0 {
            let f = function(cd, T::DTYPE, "ndi_meas_basic")?;
            cd.launch(&f, per_item(cd, n))
                .arg(self.x.dev_ptr()?)
                .arg(sl.dev_ptr()?)
                .arg(n as i64)
                .arg(cnt.dev_ptr_mut()?)
                .arg(acc.dev_ptr_mut()?)
                .arg(scale.0.dev_ptr()?)
                .arg(mn.dev_ptr_mut()?)
                .arg(mx.dev_ptr_mut()?)
                .run()?;
        }
        b.cnt = cnt.to_vec()?.into_iter().map(|c| c as u64).collect();
        let fx = Fixed {
            acc: &acc,
            k,
            per: 1,
            mul: 1,
            add: 0,
            eaxis: None,
            nonfinite_nan: false,
        };
        b.sum = fx_finish(cd, scale, &fx)?;
        b.mn = mn.to_vec()?;
        b.mx = mx.to_vec()?;
        Ok(b)
    }

    /// CUDA: the per-slot scale of the fixed-point sums (see measurements.cu), computed once.
    fn scale(&self) -> Result<&(Array<i64>, Array<i32>)> {
        if let Some(v) = self.scale.get() {
            return Ok(v);
        }
        let (cd, sl) = self.gpu()?;
        let dev = self.x.device();
        let k = self.nslots.max(1);
        let mut amax = Array::<i64>::zeros(&[k], dev)?;
        let mut flags = Array::<i32>::zeros(&[k], dev)?;
        let n = self.x.size();
        if n > 0 {
            let f = function(cd, T::DTYPE, "ndi_meas_scale")?;
            cd.launch(&f, per_item(cd, n))
                .arg(self.x.dev_ptr()?)
                .arg(sl.dev_ptr()?)
                .arg(n as i64)
                .arg(amax.dev_ptr_mut()?)
                .arg(flags.dev_ptr_mut()?)
                .run()?;
        }
        Ok(self.scale.get_or_init(|| (amax, flags)))
    }

    /// Σ (x − mean[slot])² per slot.
    fn centered_sq(&self, mean: &[f64]) -> Result<Vec<f64>> {
        let k = self.nslots;
        if let Some((x, sl)) = self.cpu() {
            let mut acc = vec![0.0; k];
            for (&v, &s) in x.iter().zip(sl) {
                if s >= 0 {
                    let d = f64v(v) - mean[s as usize];
                    acc[s as usize] += d * d;
                }
            }
            return Ok(acc);
        }
        let (cd, sl) = self.gpu()?;
        let dev = self.x.device();
        let m = Array::from_vec(mean.to_vec(), &[k], dev)?;
        let scale = self.scale()?;
        let mut acc = Array::<i64>::zeros(&[2 * k.max(1)], dev)?;
        let n = self.x.size();
        if n > 0 {
            let f = function(cd, T::DTYPE, "ndi_meas_sq")?;
            cd.launch(&f, per_item(cd, n))
                .arg(self.x.dev_ptr()?)
                .arg(sl.dev_ptr()?)
                .arg(n as i64)
                .arg(m.dev_ptr()?)
                .arg(scale.0.dev_ptr()?)
                .arg(acc.dev_ptr_mut()?)
                .run()?;
        }
        let fx = Fixed {
            acc: &acc,
            k,
            per: 1,
            mul: 2,
            add: 2,
            eaxis: None,
            nonfinite_nan: true,
        };
        fx_finish(cd, scale, &fx)
    }

    /// First flat index (raster order) per slot where the value equals `target[slot]`.
    fn first_pos(&self, target: &[f64]) -> Result<Vec<u64>> {
        let k = self.nslots;
        if let Some((x, sl)) = self.cpu() {
            let mut pos = vec![u64::MAX; k];
            for (i, (&v, &s)) in x.iter().zip(sl).enumerate() {
                if s >= 0 && pos[s as usize] == u64::MAX && f64v(v) == target[s as usize] {
                    pos[s as usize] = i as u64;
                }
            }
            return Ok(pos);
        }
        let (cd, sl) = self.gpu()?;
        let dev = self.x.device();
        let t = Array::from_vec(target.to_vec(), &[k], dev)?;
        let mut pos = Array::<i64>::full(&[k], -1, dev)?;
        let n = self.x.size();
        if n > 0 {
            let f = function(cd, T::DTYPE, "ndi_meas_pos")?;
            cd.launch(&f, per_item(cd, n))
                .arg(self.x.dev_ptr()?)
                .arg(sl.dev_ptr()?)
                .arg(n as i64)
                .arg(t.dev_ptr()?)
                .arg(pos.dev_ptr_mut()?)
                .run()?;
        }
        Ok(pos.to_vec()?.into_iter().map(|p| p as u64).collect())
    }

    /// CPU: the values of every slot, each in raster order (median, comprehension).
    fn cpu_groups(&self) -> Result<Vec<Vec<f64>>> {
        let (x, sl) = self
            .cpu()
            .ok_or_else(|| make::arg("measurements", "internal: no host slots"))?;
        let mut g = vec![Vec::new(); self.nslots];
        for (&v, &s) in x.iter().zip(sl) {
            if s >= 0 {
                g[s as usize].push(f64v(v));
            }
        }
        Ok(g)
    }

    /// CUDA: the slot keys' width: slots `0..=nslots` (`nslots`: not measured) as u32.
    fn slot_bits(&self) -> Result<u32> {
        if self.nslots >= u32::MAX as usize {
            return Err(make::arg(
                "measurements",
                format!("{} index entries are more than 2^32 - 1", self.nslots),
            ));
        }
        Ok(bits_for(self.nslots as u64))
    }

    /// CUDA: per slot `s < nslots`, `[start, end)` of its elements in slot-sorted keys `sk`, as
    /// one array `[start…, end…]` (an empty slot: `[0, 0)`).
    fn segments(&self, cd: &CudaDevice, sk: &Array<i32>) -> Result<Array<i64>> {
        let k = self.nslots;
        let mut se = Array::<i64>::zeros(&[2 * k], self.x.device())?;
        let n = sk.size();
        if n > 0 {
            let f = function(cd, T::DTYPE, "ndi_meas_segments")?;
            cd.launch(&f, per_item(cd, n))
                .arg(sk.dev_ptr()?)
                .arg(n as i64)
                .arg(k as i64)
                .arg(se.dev_ptr_mut()?)
                .run()?;
        }
        Ok(se)
    }

    /// CUDA median: the elements sorted by value (order-preserving keys of width `W`), then
    /// stably by slot; the middle pair of each slot's segment is picked on the device and only
    /// the `nslots` results come back.
    fn gpu_median<W: RadixWord>(&self, np_median: bool) -> Result<Vec<f64>> {
        let (cd, sl) = self.gpu()?;
        let dev = self.x.device();
        let (n, k) = (self.x.size(), self.nslots);
        if k == 0 {
            return Ok(Vec::new());
        }
        let sbits = self.slot_bits()?;
        let mut vkey = Array::<W>::empty(&[n], dev)?;
        let mut skey = Array::<i32>::empty(&[n], dev)?;
        if n > 0 {
            let f = function(cd, T::DTYPE, "ndi_meas_med_keys")?;
            cd.launch(&f, per_item(cd, n))
                .arg(self.x.dev_ptr()?)
                .arg(sl.dev_ptr()?)
                .arg(n as i64)
                .arg(k as i64)
                .arg(vkey.dev_ptr_mut()?)
                .arg(skey.dev_ptr_mut()?)
                .run()?;
        }
        let (vk, sk) = sort_pairs(&vkey, Some(&skey), W::BITS)?;
        let (sk, vk) = sort_pairs(&sk, Some(&vk), sbits)?;
        let se = self.segments(cd, &sk)?;
        let mut out = Array::<f64>::empty(&[k], dev)?;
        let f = function(cd, T::DTYPE, "ndi_meas_median")?;
        let sp = se.dev_ptr()?;
        cd.launch(&f, per_item(cd, k))
            .arg(vk.dev_ptr()?)
            .arg(sp)
            .arg(sp.add(k)?)
            .arg(k as i64)
            .arg(np_median as i32)
            .arg(out.dev_ptr_mut()?)
            .run()?;
        out.to_vec()
    }

    /// CUDA: the values (as f64) grouped by slot, each slot in raster order (a stable sort by
    /// slot), with every slot's `[start, end)`; two copies come back: the bounds and the grouped
    /// values of the measured elements.
    fn gpu_groups(&self) -> Result<(Vec<f64>, Vec<i64>)> {
        let (cd, sl) = self.gpu()?;
        let dev = self.x.device();
        let (n, k) = (self.x.size(), self.nslots);
        if k == 0 {
            return Ok((Vec::new(), Vec::new()));
        }
        let sbits = self.slot_bits()?;
        let mut skey = Array::<i32>::empty(&[n], dev)?;
        let mut vals = Array::<i64>::empty(&[n], dev)?;
        if n > 0 {
            let f = function(cd, T::DTYPE, "ndi_meas_lc_keys")?;
            cd.launch(&f, per_item(cd, n))
                .arg(self.x.dev_ptr()?)
                .arg(sl.dev_ptr()?)
                .arg(n as i64)
                .arg(k as i64)
                .arg(skey.dev_ptr_mut()?)
                .arg(vals.dev_ptr_mut()?)
                .run()?;
        }
        let (sk, sv) = sort_pairs(&skey, Some(&vals), sbits)?;
        let bounds = self.segments(cd, &sk)?.to_vec()?;
        // the measured elements (slots < k) come first
        let m = bounds[k..].iter().copied().max().unwrap_or(0).max(0) as usize;
        let v = if m == 0 {
            Vec::new()
        } else {
            sv.slice_axis(0, Some(0), Some(m as isize), 1)?
                .to_vec()?
                .into_iter()
                .map(|b| f64::from_bits(b as u64))
                .collect()
        };
        Ok((v, bounds))
    }
}

fn unravel(mut i: u64, shape: &[usize]) -> Vec<usize> {
    let mut c = vec![0usize; shape.len()];
    for d in (0..shape.len()).rev() {
        c[d] = (i % shape[d].max(1) as u64) as usize;
        i /= shape[d].max(1) as u64;
    }
    c
}

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
/// As [`sum_labels`]; `InvalidArgument` without `index` when no element has a label above 0 (or
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
    let b = seg("minimum", input, labels, index)?.basic()?;
    some_selected("minimum", index, &b.cnt)?;
    Ok(b.mn
        .iter()
        .zip(&b.cnt)
        .map(|(&v, &c)| if c == 0 { 0.0 } else { v })
        .collect())
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
    let b = seg("maximum", input, labels, index)?.basic()?;
    some_selected("maximum", index, &b.cnt)?;
    Ok(b.mx
        .iter()
        .zip(&b.cnt)
        .map(|(&v, &c)| if c == 0 { 0.0 } else { v })
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
    let p = s.first_pos(&t)?;
    Ok(p.into_iter()
        .map(|p| {
            if p == u64::MAX {
                vec![0; input.ndim()]
            } else {
                unravel(p, input.shape())
            }
        })
        .collect())
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

/// The bounding box of one object: `(start, stop)` along each axis.
pub type ObjectSlices = Vec<(usize, usize)>;

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
    let fix = |v: &[f64]| -> Vec<f64> {
        v.iter()
            .zip(&b.cnt)
            .map(|(&v, &c)| if c == 0 { 0.0 } else { v })
            .collect()
    };
    let pos = |p: Vec<u64>| -> Vec<Vec<usize>> {
        p.into_iter()
            .map(|p| {
                if p == u64::MAX {
                    vec![0; input.ndim()]
                } else {
                    unravel(p, input.shape())
                }
            })
            .collect()
    };
    Ok((fix(&b.mn), fix(&b.mx), pos(pmn), pos(pmx)))
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
        let sh = CusciShape::new("center_of_mass", &shape)?;
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
/// As [`sum_labels`]; `InvalidArgument` when `bins == 0` or `max <= min`.
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
    let h: Vec<u64> = if let Some((x, sl)) = s.cpu() {
        let mut h = vec![0u64; k * bins];
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
        let mut h = Array::<i64>::zeros(&[k * bins], s.x.device())?;
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
    Ok(h.chunks(bins).map(|c| c.to_vec()).collect())
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
    let bb: Vec<i64> = match x.backend() {
        Backend::Host(h) => {
            let mut bb = vec![0i64; nmax * 2 * nd];
            for s in 0..nmax {
                for d in 0..nd {
                    bb[s * 2 * nd + d] = i64::MAX;
                }
            }
            let st = c_strides_u(&shape);
            for (i, v) in h.to_contiguous().iter().enumerate() {
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
            let mut init = vec![0i64; (nmax * 2 * nd).max(1)];
            for s in 0..nmax {
                for d in 0..nd {
                    init[s * 2 * nd + d] = i64::MAX;
                }
            }
            let l = init.len();
            let mut bb = Array::from_vec(init, &[l], dev)?;
            let sh = CusciShape::new(OP, &shape)?;
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
    let sh = CusciShape::new("value_indices", x.shape())?;
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
    sh: CusciShape,
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
