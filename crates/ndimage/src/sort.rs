//! A stable LSD radix sort of (key, payload) pairs for the measurements of this crate (median,
//! value_indices, labeled_comprehension group their elements by sorting on the device).
//!
//! Keys and payloads are unsigned 32- or 64-bit words carried in `Array<i32>` / `Array<i64>`
//! (their bit patterns; the sort compares keys as unsigned integers). Each pass sorts by one 8-bit
//! digit, least significant first, and is stable, so after the passes the pairs are ordered by
//! the low `key_bits` bits of the key and, among equal keys, by their input order.
//!
//! GPU (`sort.cu`): per pass a per-tile digit histogram (tiles of 4096 elements), the core's
//! `cumsum` over the digit-major histograms (the exclusive scan is the inclusive one minus the
//! counts), and a stable scatter (warp-synchronous ranking with `__match_any_sync`). CPU: the same
//! passes sequentially (counting sort per digit), the twin the GPU is tested against.
//!
//! Not part of the public API (hidden; used by the measurements and their tests).

use crate::cuda::per_item;
use crate::structure::contig;
use cusci_core::cuda::launch::{KernelModule, Spec};
use cusci_core::error::make;
use cusci_core::{Array, Backend, CudaDevice, DType, Element, Function, LaunchConfig, Result};

/// The sort kernels (`sort.cu`) for key and payload words: `Spec::of(&[K, V])` with `K`, `V`
/// each `I32` (u32 bits) or `I64` (u64 bits).
pub(crate) static SORT: KernelModule = KernelModule {
    name: "ndimage_sort",
    source: |spec| {
        let word = |i: usize| -> Result<&'static str> {
            match spec.dtype(i)? {
                DType::I32 => Ok("unsigned int"),
                DType::I64 => Ok("unsigned long long"),
                d => Err(make::dtype("sort_pairs", d)),
            }
        };
        Ok(format!(
            "#define NDI_SK {}\n#define NDI_SV {}\n{}",
            word(0)?,
            word(1)?,
            include_str!("sort.cu")
        ))
    },
    options: &[],
    samples: || {
        let w = [DType::I32, DType::I64];
        w.iter()
            .flat_map(|&k| w.iter().map(move |&v| Spec::of(&[k, v])))
            .collect()
    },
};

/// Elements per tile of the GPU passes (`NDI_SORT_TILE` of sort.cu).
const TILE: usize = 256 * 16;

/// A word type that carries an unsigned radix-sort key or payload: `i32` (u32 bits) or `i64`
/// (u64 bits).
pub trait RadixWord: Element {
    /// Bits of the word.
    const BITS: u32;
    /// The word's bits, zero-extended.
    fn bits(self) -> u64;
    /// The word holding the low bits of `v`.
    fn from_bits(v: u64) -> Self;
}

impl RadixWord for i32 {
    const BITS: u32 = 32;
    fn bits(self) -> u64 {
        self as u32 as u64
    }
    fn from_bits(v: u64) -> Self {
        v as u32 as i32
    }
}

impl RadixWord for i64 {
    const BITS: u32 = 64;
    fn bits(self) -> u64 {
        self as u64
    }
    fn from_bits(v: u64) -> Self {
        v as i64
    }
}

/// Bits needed to hold every value up to `max` (0 for 0).
pub fn bits_for(max: u64) -> u32 {
    u64::BITS - max.leading_zeros()
}

/// Sorts `keys` (flattened in C order) with their payload `vals` by the low `key_bits` bits of
/// the keys as unsigned integers, stably (equal keys keep their order). `vals = None` sorts the
/// positions `0..n` along (an argsort). Returns the sorted keys and payloads as new 1-D arrays on
/// the keys' device; keys whose bits above `key_bits` are not zero are ordered by their low bits
/// only (and returned whole).
///
/// # Errors
/// `InvalidArgument` when `key_bits` exceeds the key's width, when `vals` has another size, or
/// when the positions do not fit the payload type; `DeviceMismatch`.
///
/// ```
/// use cusci_ndimage::sort::sort_pairs;
/// use cusci_ndimage::{Array, Device};
/// let k = Array::from_vec(vec![3i32, 1, 3, 0], &[4], &Device::Cpu).unwrap();
/// let (sk, pos) = sort_pairs::<i32, i32>(&k, None, 2).unwrap();
/// assert_eq!(sk.to_vec().unwrap(), vec![0, 1, 3, 3]);
/// assert_eq!(pos.to_vec().unwrap(), vec![3, 1, 0, 2]);
/// ```
pub fn sort_pairs<K: RadixWord, V: RadixWord>(
    keys: &Array<K>,
    vals: Option<&Array<V>>,
    key_bits: u32,
) -> Result<(Array<K>, Array<V>)> {
    const OP: &str = "sort_pairs";
    if key_bits > K::BITS {
        return Err(make::arg(
            OP,
            format!("key_bits {key_bits} exceed the {}-bit keys", K::BITS),
        ));
    }
    let n = keys.size();
    let dev = keys.device().clone();
    let keys = contig(keys)?.reshape(&[n as isize])?;
    let vals = match vals {
        Some(v) => {
            if v.size() != n {
                return Err(make::arg(OP, format!("{} payloads for {n} keys", v.size())));
            }
            cusci_core::array::check_same_device(OP, &dev, v.device())?;
            Some(contig(v)?.reshape(&[n as isize])?)
        }
        None => {
            if V::BITS < 64 && n as u64 > 1u64 << V::BITS {
                return Err(make::arg(
                    OP,
                    format!("{n} positions do not fit {}-bit payloads", V::BITS),
                ));
            }
            None
        }
    };
    let passes = key_bits.div_ceil(8);
    match keys.backend() {
        Backend::Host(h) => {
            let k = h.try_to_contiguous()?.into_owned();
            let v = match &vals {
                Some(v) => v.to_vec()?,
                None => (0..n as u64).map(V::from_bits).collect(),
            };
            let (k, v) = cpu_sort(k, v, passes);
            Ok((
                Array::from_vec(k, &[n], &dev)?,
                Array::from_vec(v, &[n], &dev)?,
            ))
        }
        Backend::Cuda(c) => cuda_sort(c.dev(), &keys, vals.as_ref(), passes),
    }
}

/// The CPU twin: `passes` stable counting sorts by 8-bit digits, least significant first.
fn cpu_sort<K: RadixWord, V: RadixWord>(
    mut k: Vec<K>,
    mut v: Vec<V>,
    passes: u32,
) -> (Vec<K>, Vec<V>) {
    let n = k.len();
    if passes == 0 || n < 2 {
        return (k, v);
    }
    let mut k2 = k.clone();
    let mut v2 = v.clone();
    for p in 0..passes {
        let shift = 8 * p;
        let digit = |x: K| ((x.bits() >> shift) & 255) as usize;
        let mut start = [0usize; 257];
        for &x in &k {
            start[digit(x) + 1] += 1;
        }
        for d in 0..256 {
            start[d + 1] += start[d];
        }
        for (&x, &y) in k.iter().zip(&v) {
            let d = digit(x);
            k2[start[d]] = x;
            v2[start[d]] = y;
            start[d] += 1;
        }
        std::mem::swap(&mut k, &mut k2);
        std::mem::swap(&mut v, &mut v2);
    }
    (k, v)
}

/// The sort.cu kernel `name` for keys `K` and payloads `V`.
fn sort_fn<K: RadixWord, V: RadixWord>(cd: &CudaDevice, name: &str) -> Result<Function> {
    SORT.function(cd, &Spec::of(&[K::DTYPE, V::DTYPE]), name)
}

fn cuda_sort<K: RadixWord, V: RadixWord>(
    cd: &CudaDevice,
    keys: &Array<K>,
    vals: Option<&Array<V>>,
    passes: u32,
) -> Result<(Array<K>, Array<V>)> {
    let n = keys.size();
    let dev = keys.device();
    if n == 0 {
        return Ok((keys.clone(), Array::<V>::empty(&[0], dev)?));
    }
    if passes == 0 {
        let v = match vals {
            Some(v) => v.clone(),
            None => {
                let mut v = Array::<V>::empty(&[n], dev)?;
                let f = sort_fn::<K, V>(cd, "ndi_sort_iota")?;
                cd.launch(&f, per_item(cd, n))
                    .arg(v.dev_ptr_mut()?)
                    .arg(n as i64)
                    .run()?;
                v
            }
        };
        return Ok((keys.clone(), v));
    }
    let nblocks = n.div_ceil(TILE);
    if nblocks > i32::MAX as usize {
        return Err(make::arg(
            "sort_pairs",
            format!("{n} elements are too many for one grid"),
        ));
    }
    let fh = sort_fn::<K, V>(cd, "ndi_sort_hist")?;
    let fs = sort_fn::<K, V>(cd, "ndi_sort_scatter")?;
    let mut hist = Array::<i64>::empty(&[256 * nblocks], dev)?;
    // the passes alternate between two buffers: each reads the previous pass's output (the
    // input for the first; no payload there for an argsort) and writes the other buffer
    let mut out = (Array::<K>::empty(&[n], dev)?, Array::<V>::empty(&[n], dev)?);
    let mut prev = (Array::<K>::empty(&[n], dev)?, Array::<V>::empty(&[n], dev)?);
    let cfg = LaunchConfig::linear(nblocks as u32, 256);
    for p in 0..passes {
        let shift = (8 * p) as i32;
        let (kin, vin) = if p == 0 {
            (keys.dev_ptr()?, vals.map(|v| v.dev_ptr()).transpose()?)
        } else {
            (prev.0.dev_ptr()?, Some(prev.1.dev_ptr()?))
        };
        cd.launch(&fh, cfg)
            .arg(kin)
            .arg(n as i64)
            .arg(shift)
            .arg(hist.dev_ptr_mut()?)
            .arg(nblocks as i64)
            .run()?;
        let incl = hist.cumsum(0)?;
        cd.launch(&fs, cfg)
            .arg(kin)
            .arg(vin)
            .arg(out.0.dev_ptr_mut()?)
            .arg(out.1.dev_ptr_mut()?)
            .arg(n as i64)
            .arg(shift)
            .arg(hist.dev_ptr()?)
            .arg(incl.dev_ptr()?)
            .arg(nblocks as i64)
            .run()?;
        std::mem::swap(&mut out, &mut prev);
    }
    Ok(prev)
}
