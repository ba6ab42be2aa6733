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

use crate::cuda::{module_source, per_item, real_dtypes, specs};
use crate::sort::{bits_for, sort_pairs, RadixWord};
use crate::structure::{contig, real_only};
use cusci_core::cuda::launch::{KernelModule, Spec};
use cusci_core::error::make;
use cusci_core::{Array, Backend, CudaDevice, DType, Element, Function, Result};

mod extrema;
mod histogram;
mod objects;
mod stats;

pub use extrema::{extrema, maximum, maximum_position, minimum, minimum_position, Extrema};
pub use histogram::histogram;
pub use objects::{find_objects, value_indices, ObjectSlices};
pub use stats::{
    center_of_mass, labeled_comprehension, mean, median, standard_deviation, sum, sum_labels,
    variance,
};

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
                    .arg(lab.as_ref().map(|l| l.dev_ptr()).transpose()?)
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
        .arg(fx.eaxis.map(|e| e.dev_ptr()).transpose()?)
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

    /// CUDA: the two sort keys kernel `name` writes for every element from its value and its
    /// slot `sl` (`nslots` for the elements not measured).
    fn slot_keys<A: Element, B: Element>(
        &self,
        cd: &CudaDevice,
        sl: &Array<i64>,
        name: &str,
    ) -> Result<(Array<A>, Array<B>)> {
        let dev = self.x.device();
        let n = self.x.size();
        let mut a = Array::<A>::empty(&[n], dev)?;
        let mut b = Array::<B>::empty(&[n], dev)?;
        if n > 0 {
            let f = function(cd, T::DTYPE, name)?;
            cd.launch(&f, per_item(cd, n))
                .arg(self.x.dev_ptr()?)
                .arg(sl.dev_ptr()?)
                .arg(n as i64)
                .arg(self.nslots as i64)
                .arg(a.dev_ptr_mut()?)
                .arg(b.dev_ptr_mut()?)
                .run()?;
        }
        Ok((a, b))
    }

    /// CUDA median: the elements sorted by value (order-preserving keys of width `W`), then
    /// stably by slot; the middle pair of each slot's segment is picked on the device and only
    /// the `nslots` results come back.
    fn gpu_median<W: RadixWord>(&self, np_median: bool) -> Result<Vec<f64>> {
        let (cd, sl) = self.gpu()?;
        let dev = self.x.device();
        let k = self.nslots;
        if k == 0 {
            return Ok(Vec::new());
        }
        let sbits = self.slot_bits()?;
        let (vkey, skey) = self.slot_keys::<W, i32>(cd, sl, "ndi_meas_med_keys")?;
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
        let k = self.nslots;
        if k == 0 {
            return Ok((Vec::new(), Vec::new()));
        }
        let sbits = self.slot_bits()?;
        let (skey, vals) = self.slot_keys::<i32, i64>(cd, sl, "ndi_meas_lc_keys")?;
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
