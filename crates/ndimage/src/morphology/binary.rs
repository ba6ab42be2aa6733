//! Binary morphology: `binary_erosion`, `binary_dilation`, `binary_opening`, `binary_closing`,
//! `binary_hit_or_miss`, `binary_propagation`, `binary_fill_holes`.

use crate::cuda::{module_source, offsets_on, per_item, real_dtypes, specs, NdiShape};
use crate::structure::{
    c_strides_u, contig, deltas, norm_origin, offset_extent, real_only, unravel, Structure,
};
use cusci_core::cuda::launch::{KernelModule, Spec};
use cusci_core::error::make;
use cusci_core::{Array, Backend, CudaDevice, DType, Device, Element, Function, Result};
use rayon::prelude::*;

/// The binary morphology kernels (`binary.cu`) for an input element type: `Spec::of(&[T])`
/// (`ndi_to_bool` reads `T`; the step kernels run on the bool module).
pub(crate) static BINARY: KernelModule = KernelModule {
    name: "ndimage_binary",
    source: |spec| Ok(module_source(include_str!("binary.cu"), spec.dtype(0)?)),
    options: &[],
    samples: || specs(real_dtypes()),
};

/// The binary kernel `name` of the module for element type `dtype`.
fn function(cd: &CudaDevice, dtype: DType, name: &str) -> Result<Function> {
    BINARY.function(cd, &Spec::of(&[dtype]), name)
}

/// Repeated erosion (`dilate == false`) or dilation of an array of `shape` by the structure's
/// point offsets `offs`: `iterations` steps (`< 1`: until stable), `border` the value outside.
#[derive(Clone, Copy)]
pub(crate) struct Steps<'a> {
    pub shape: &'a [usize],
    pub offs: &'a [Vec<i64>],
    pub dilate: bool,
    pub iterations: i64,
    pub border: bool,
}

/// Options of the binary morphology functions (SciPy's keyword arguments).
#[derive(Debug, Clone)]
pub struct BinaryOptions<'a> {
    /// The structuring element (nonzero = part of it), of the input's rank; default
    /// `generate_binary_structure(rank, 1)`.
    pub structure: Option<&'a Array<bool>>,
    /// How many times to repeat the operation; `< 1` repeats until the result stops changing.
    /// Default 1.
    pub iterations: i64,
    /// Only elements where the mask is true are modified (same shape as the input).
    pub mask: Option<&'a Array<bool>>,
    /// The value of the elements outside the array. Default false.
    pub border_value: bool,
    /// Placement of the structure (empty: centred; one value: every axis).
    pub origin: Vec<i64>,
    /// Accepted for SciPy compatibility; the result does not depend on it.
    pub brute_force: bool,
}

impl Default for BinaryOptions<'_> {
    fn default() -> Self {
        BinaryOptions {
            structure: None,
            iterations: 1,
            mask: None,
            border_value: false,
            origin: Vec::new(),
            brute_force: false,
        }
    }
}

/// One erosion or dilation step on the host (`delta`: the offsets' flat offsets); returns
/// whether something changed.
fn cpu_step(
    inp: &[bool],
    out: &mut [bool],
    s: &Steps,
    delta: &[i64],
    mask: Option<&[bool]>,
) -> bool {
    let Steps {
        shape,
        offs,
        dilate,
        border,
        ..
    } = *s;
    let nd = shape.len();
    let n = inp.len();
    if n == 0 {
        return false;
    }
    // per axis the offsets' extent: an element whose every point lies inside reads them at
    // fixed flat offsets
    let (lo, hi) = offset_extent(offs, nd);
    // one element, its coordinates `c`: the first point equal to the value that decides (true
    // for a dilation, false for an erosion) decides
    let element = |i: usize, c: &[i64]| -> bool {
        let v = inp[i];
        if !mask.is_none_or(|m| m[i]) {
            return v;
        }
        let interior = (0..nd).all(|d| c[d] + lo[d] >= 0 && c[d] + hi[d] < shape[d] as i64);
        for (of, &dl) in offs.iter().zip(delta) {
            let x = if interior
                || of
                    .iter()
                    .zip(c)
                    .zip(shape)
                    .all(|((&o, &c), &s)| c + o >= 0 && c + o < s as i64)
            {
                inp[(i as i64 + dl) as usize]
            } else {
                border
            };
            if x == dilate {
                return dilate;
            }
        }
        !dilate
    };
    if nd == 0 {
        let r = element(0, &[]);
        out[0] = r;
        return r != inp[0];
    }
    // row by row along the last axis: in a row whose leading coordinates keep every point
    // inside, the columns [a, b) away from its ends are the AND (erosion) or OR (dilation) of
    // the input's row segments at the points' flat offsets, slice by slice; the other elements
    // one by one
    let w = shape[nd - 1];
    let rows_per = (4096 / w).max(1);
    out.par_chunks_mut(rows_per * w)
        .enumerate()
        .map(|(ci, chunk)| {
            let mut changed = false;
            let mut c = vec![0i64; nd];
            for (rj, orow) in chunk.chunks_mut(w).enumerate() {
                let base = (ci * rows_per + rj) * w;
                unravel(base, shape, &mut c);
                let lead_in =
                    (0..nd - 1).all(|d| c[d] + lo[d] >= 0 && c[d] + hi[d] < shape[d] as i64);
                let a = (-lo[nd - 1]).max(0) as usize;
                let b = (w as i64 - hi[nd - 1].max(0)).max(0) as usize;
                let (a, b) = if lead_in && a < b { (a, b) } else { (0, 0) };
                for col in (0..a).chain(b..w) {
                    c[nd - 1] = col as i64;
                    let r = element(base + col, &c);
                    orow[col] = r;
                    changed |= r != inp[base + col];
                }
                if a < b {
                    let len = b - a;
                    let seg = &mut orow[a..b];
                    let src = |dl: i64| {
                        let s = (base + a) as i64 + dl;
                        &inp[s as usize..s as usize + len]
                    };
                    match delta.split_first() {
                        None => seg.fill(!dilate),
                        Some((&d0, rest)) => {
                            seg.copy_from_slice(src(d0));
                            for &dl in rest {
                                let x = src(dl);
                                if dilate {
                                    seg.iter_mut().zip(x).for_each(|(o, &x)| *o |= x);
                                } else {
                                    seg.iter_mut().zip(x).for_each(|(o, &x)| *o &= x);
                                }
                            }
                        }
                    }
                    let own = &inp[base + a..base + b];
                    if let Some(m) = mask {
                        let m = &m[base + a..base + b];
                        seg.iter_mut()
                            .zip(m)
                            .zip(own)
                            .for_each(|((o, &m), &x)| *o = if m { *o } else { x });
                    }
                    changed |= seg != own;
                }
            }
            changed
        })
        .reduce(|| false, |a, b| a || b)
}

/// The most iterations (a structure holding its origin) that [`cpu_iterate`] runs as
/// whole-array steps; more, or until stable, go through [`cpu_propagate`] (the same result).
const WHOLE_STEPS_MAX: i64 = 16;

/// Whether a step only removes elements (erosion) or only adds them (dilation): the structure
/// holds its own origin (offset 0). Then repeating it reaches a fixed point; otherwise the
/// result can cycle (SciPy loops forever there).
fn monotone(offs: &[Vec<i64>]) -> bool {
    offs.iter().any(|o| o.iter().all(|&v| v == 0))
}

/// Repeated erosion (`dilate == false`) or dilation on the host: `iterations < 1` until stable,
/// or `InvalidArgument` (from `op`) when the result cycles instead, found by Brent's method (one
/// saved state, re-saved at powers of two) where the structure does not hold its origin. With
/// a structure that holds its origin and more than [`WHOLE_STEPS_MAX`] steps or until stable,
/// [`cpu_propagate`].
pub(crate) fn cpu_iterate(
    op: &str,
    input: &[bool],
    s: &Steps,
    mask: Option<&[bool]>,
) -> Result<Vec<bool>> {
    let iterations = s.iterations;
    // a few whole-array steps (row slices, cheap) beat the frontier's bookkeeping; until stable
    // or many steps, the frontier's work follows the changes only
    if !(1..=WHOLE_STEPS_MAX).contains(&iterations) && monotone(s.offs) {
        return Ok(cpu_propagate(input, s, mask));
    }
    let delta = deltas(s.shape, s.offs);
    // until stable here: the structure does not hold its origin, so the result may cycle
    let watch = iterations < 1;
    let mut saved: Option<Vec<bool>> = None;
    let mut a = input.to_vec();
    let mut b = vec![false; a.len()];
    let mut it = 0i64;
    loop {
        let changed = cpu_step(&a, &mut b, s, &delta, mask);
        std::mem::swap(&mut a, &mut b);
        it += 1;
        if !changed || (iterations >= 1 && it >= iterations) {
            break;
        }
        if watch {
            if saved.as_deref() == Some(&a[..]) {
                return Err(make::arg(
                    op,
                    "iterations < 1 never ends: the structure does not hold its origin and the \
                     result cycles",
                ));
            }
            if it & (it - 1) == 0 {
                saved = Some(a.clone());
            }
        }
    }
    Ok(a)
}

/// [`cpu_iterate`] for a structure that holds its origin, step by step over the elements that
/// changed: with `v` the value that spreads (true for a dilation, false for an erosion), an
/// element takes `v` at step k + 1 exactly when it is in the mask, does not hold `v`, and one of
/// its structure's points took `v` at step k (or, at the first step, lies outside with
/// `border == v`). Elements holding `v` keep it (the structure holds its origin), so each step
/// needs only the previous step's changes: the same result as whole-array steps (`iterations`
/// of them, or until nothing changes for `iterations < 1`) in time proportional to the changes.
fn cpu_propagate(input: &[bool], s: &Steps, mask: Option<&[bool]>) -> Vec<bool> {
    let Steps {
        shape,
        offs,
        dilate,
        iterations,
        border,
    } = *s;
    let v = dilate;
    let nd = shape.len();
    let delta = deltas(shape, offs);
    let free = |q: usize, a: &[bool]| a[q] != v && mask.is_none_or(|m| m[q]);
    let mut a = input.to_vec();
    let mut c = vec![0i64; nd];
    // step 1: the elements that hold v spread it; elements reading outside take the border's
    let mut frontier: Vec<usize> = (0..a.len()).filter(|&i| a[i] == v).collect();
    let mut next = Vec::new();
    if border == v {
        for q in 0..a.len() {
            if !free(q, &a) {
                continue;
            }
            unravel(q, shape, &mut c);
            let outside = offs.iter().any(|o| {
                o.iter()
                    .zip(&c)
                    .zip(shape)
                    .any(|((&o, &c), &s)| c + o < 0 || c + o >= s as i64)
            });
            if outside {
                next.push(q);
            }
        }
        for &q in &next {
            a[q] = v;
        }
    }
    let mut step = 0i64;
    loop {
        // the elements whose structure reaches a frontier element p: q = p − o
        for &p in &frontier {
            unravel(p, shape, &mut c);
            for (o, &dl) in offs.iter().zip(&delta) {
                let inside = o
                    .iter()
                    .zip(&c)
                    .zip(shape)
                    .all(|((&o, &c), &s)| c - o >= 0 && c - o < s as i64);
                if inside {
                    let q = (p as i64 - dl) as usize;
                    if free(q, &a) {
                        a[q] = v;
                        next.push(q);
                    }
                }
            }
        }
        step += 1;
        if next.is_empty() || (iterations >= 1 && step >= iterations) {
            return a;
        }
        std::mem::swap(&mut frontier, &mut next);
        next.clear();
    }
}

/// The validated arguments of one erosion/dilation call.
struct Prepared {
    shape: Vec<usize>,
    offs: Vec<Vec<i64>>,
    mask: Option<Array<bool>>,
}

fn prepare<T: Element>(
    op: &str,
    input: &Array<T>,
    o: &BinaryOptions,
    dilate: bool,
) -> Result<Prepared> {
    real_only::<T>(op)?;
    let nd = input.ndim();
    let s = match o.structure {
        Some(s) => Structure::from_array(op, s, nd)?,
        None => Structure::default(op, nd, 1)?,
    };
    let origin = norm_origin(op, &o.origin, &s.shape)?;
    let mask = match o.mask {
        Some(m) => {
            if m.shape() != input.shape() {
                return Err(make::shape(
                    op,
                    format!(
                        "mask of shape {:?} for an input of shape {:?}",
                        m.shape(),
                        input.shape()
                    ),
                ));
            }
            cusci_core::array::check_same_device(op, input.device(), m.device())?;
            Some(contig(m)?)
        }
        None => None,
    };
    let offs = if dilate {
        s.dilation_offsets(&origin)
    } else {
        s.erosion_offsets(&origin)
    };
    Ok(Prepared {
        shape: input.shape().to_vec(),
        offs,
        mask,
    })
}

/// Nonzero elements of `input` as a contiguous bool array on its device (negated if `invert`).
pub(crate) fn to_bool<T: Element>(input: &Array<T>, invert: bool) -> Result<Array<bool>> {
    let input = contig(input)?;
    match input.backend() {
        Backend::Host(h) => {
            let v: Vec<bool> = h
                .try_to_contiguous()?
                .par_iter()
                .map(|&x| (x != T::zero()) != invert)
                .collect();
            Array::from_vec(v, input.shape(), &Device::Cpu)
        }
        Backend::Cuda(c) => {
            let cd = c.dev();
            let mut out = Array::<bool>::empty(input.shape(), input.device())?;
            let n = input.size();
            if n > 0 {
                let f = function(cd, T::DTYPE, "ndi_to_bool")?;
                cd.launch(&f, per_item(cd, n))
                    .arg(c.ptr())
                    .arg(out.dev_ptr_mut()?)
                    .arg(n as i64)
                    .arg(invert as i32)
                    .run()?;
            }
            Ok(out)
        }
    }
}

/// Repeated erosion/dilation `s` of a contiguous bool array on its device; only `mask` elements
/// change.
pub(crate) fn iterate(
    op: &str,
    x: &Array<bool>,
    s: &Steps,
    mask: Option<&Array<bool>>,
) -> Result<Array<bool>> {
    match x.backend() {
        Backend::Host(h) => {
            let m = match mask.map(|m| m.backend()) {
                Some(Backend::Host(m)) => Some(m.try_to_contiguous()?),
                Some(Backend::Cuda(_)) => {
                    return Err(make::arg(op, "internal: a mask on another device"))
                }
                None => None,
            };
            let v = cpu_iterate(op, &h.try_to_contiguous()?, s, m.as_deref())?;
            Array::from_vec(v, s.shape, &Device::Cpu)
        }
        Backend::Cuda(_) if s.iterations < 1 && !monotone(s.offs) => {
            // the result may cycle: the host's iteration finds out (rare: a structure without
            // its origin, repeated until stable)
            let m = mask.map(|m| m.to_vec()).transpose()?;
            let v = cpu_iterate(op, &x.to_vec()?, s, m.as_deref())?;
            Array::from_vec(v, s.shape, x.device())
        }
        Backend::Cuda(c) => iterate_cuda(c.dev(), x, s, mask),
    }
}

/// The GPU's [`iterate`]: whole-array steps (`ndi_binary_step`) between two buffers.
fn iterate_cuda(
    cd: &CudaDevice,
    x: &Array<bool>,
    s: &Steps,
    mask: Option<&Array<bool>>,
) -> Result<Array<bool>> {
    let shape = s.shape;
    let dev = x.device();
    let sh = NdiShape::new("binary morphology", shape)?;
    let n = x.size();
    let delta = deltas(shape, s.offs);
    let noff = s.offs.len();
    let offs_d = offsets_on(dev, s.offs, shape.len())?;
    let dl = if delta.is_empty() { vec![0] } else { delta };
    let dl = Array::from_vec(dl.clone(), &[dl.len()], dev)?;
    let f = function(cd, DType::Bool, "ndi_binary_step")?;
    let mut a = x.copy()?;
    // every element of b is written by each step
    let mut b = Array::<bool>::empty(shape, dev)?;
    let mut changed = Array::<i32>::zeros(&[1], dev)?;
    let until = s.iterations < 1;
    // Until stable: only the last step of each group of CHECK_EVERY steps sets the flag, and
    // only then does the host read it (one synchronisation per group). Steps after the fixed
    // point change nothing, so the result is the same as checking every step.
    const CHECK_EVERY: i64 = 16;
    let mut it = 0i64;
    loop {
        let check = until && (it + 1) % CHECK_EVERY == 0;
        if check {
            changed.fill(0)?;
        }
        if n > 0 {
            let flag = if check {
                Some(changed.dev_ptr_mut()?)
            } else {
                None
            };
            cd.launch(&f, per_item(cd, n))
                .arg(a.dev_ptr()?)
                .arg(b.dev_ptr_mut()?)
                .arg(mask.map(|m| m.dev_ptr()).transpose()?)
                .arg(sh)
                .arg(offs_d.dev_ptr()?)
                .arg(dl.dev_ptr()?)
                .arg(noff as i32)
                .arg(s.dilate as i32)
                .arg(s.border as i32)
                .arg(flag)
                .run()?;
        }
        std::mem::swap(&mut a, &mut b);
        it += 1;
        if check {
            if changed.item()? == 0 {
                break;
            }
        } else if !until && it >= s.iterations {
            break;
        }
    }
    Ok(a)
}

fn erode_or_dilate<T: Element>(
    op: &str,
    input: &Array<T>,
    o: &BinaryOptions,
    dilate: bool,
) -> Result<Array<bool>> {
    let p = prepare(op, input, o, dilate)?;
    let x = to_bool(input, false)?;
    let s = Steps {
        shape: &p.shape,
        offs: &p.offs,
        dilate,
        iterations: o.iterations,
        border: o.border_value,
    };
    iterate(op, &x, &s, p.mask.as_ref())
}

/// `scipy.ndimage.binary_erosion`: an element stays true when every element under the structure
/// (centred on it, shifted by `origin`) is true; outside the array counts as `border_value`.
/// Repeated `iterations` times (`< 1`: until stable); only `mask` elements change.
///
/// # Errors
/// `UnsupportedDType` (complex), `ShapeMismatch` (structure rank, mask shape),
/// `InvalidArgument` (origin; `iterations < 1` where the result cycles, which needs a structure
/// without its origin: SciPy never returns there), `DeviceMismatch`.
///
/// ```
/// use cusci_ndimage::{binary_erosion, BinaryOptions, Array, Device};
/// let a = Array::from_vec(vec![0u8, 1, 1, 1, 0], &[5], &Device::Cpu).unwrap();
/// let e = binary_erosion(&a, &BinaryOptions::default()).unwrap();
/// assert_eq!(e.to_vec().unwrap(), vec![false, false, true, false, false]);
/// ```
pub fn binary_erosion<T: Element>(input: &Array<T>, opts: &BinaryOptions) -> Result<Array<bool>> {
    erode_or_dilate("binary_erosion", input, opts, false)
}

/// `scipy.ndimage.binary_dilation`: an element becomes true when any element under the reflected
/// structure is true (SciPy's origin convention); outside the array counts as `border_value`.
/// Options and errors as [`binary_erosion`].
///
/// ```
/// use cusci_ndimage::{binary_dilation, BinaryOptions, Array, Device};
/// let a = Array::from_vec(vec![0u8, 0, 1, 0, 0], &[5], &Device::Cpu).unwrap();
/// let d = binary_dilation(&a, &BinaryOptions::default()).unwrap();
/// assert_eq!(d.to_vec().unwrap(), vec![false, true, true, true, false]);
/// ```
pub fn binary_dilation<T: Element>(input: &Array<T>, opts: &BinaryOptions) -> Result<Array<bool>> {
    erode_or_dilate("binary_dilation", input, opts, true)
}

/// `scipy.ndimage.binary_opening`: erosion then dilation, each `iterations` times, with the same
/// structure, mask, border value and origin. Options and errors as [`binary_erosion`].
///
/// ```
/// use cusci_ndimage::{binary_opening, BinaryOptions, Array, Device};
/// let a = Array::from_vec(vec![1u8, 0, 1, 1, 1, 0], &[6], &Device::Cpu).unwrap();
/// let o = binary_opening(&a, &BinaryOptions::default()).unwrap();
/// assert_eq!(o.to_vec().unwrap(), vec![false, false, true, true, true, false]);
/// ```
pub fn binary_opening<T: Element>(input: &Array<T>, opts: &BinaryOptions) -> Result<Array<bool>> {
    let e = binary_erosion(input, opts)?;
    binary_dilation(&e, opts)
}

/// `scipy.ndimage.binary_closing`: dilation then erosion. Options and errors as
/// [`binary_erosion`].
///
/// ```
/// use cusci_ndimage::{binary_closing, BinaryOptions, Array, Device};
/// let a = Array::from_vec(vec![0u8, 1, 0, 1, 0], &[5], &Device::Cpu).unwrap();
/// let c = binary_closing(&a, &BinaryOptions::default()).unwrap();
/// assert_eq!(c.to_vec().unwrap(), vec![false, true, true, true, false]);
/// ```
pub fn binary_closing<T: Element>(input: &Array<T>, opts: &BinaryOptions) -> Result<Array<bool>> {
    let d = binary_dilation(input, opts)?;
    binary_erosion(&d, opts)
}

/// `a && b` element-wise, or `!a` for no `b` (contiguous bool arrays on one device).
fn and_or_not(a: &Array<bool>, b: Option<&Array<bool>>) -> Result<Array<bool>> {
    match a.backend() {
        Backend::Host(h) => {
            let av = h.try_to_contiguous()?;
            let v = match b {
                Some(b) => av.iter().zip(b.to_vec()?).map(|(&x, y)| x && y).collect(),
                None => av.iter().map(|&x| !x).collect(),
            };
            Array::from_vec(v, a.shape(), &Device::Cpu)
        }
        Backend::Cuda(c) => {
            let cd = c.dev();
            let mut out = Array::<bool>::empty(a.shape(), a.device())?;
            let n = a.size();
            if n == 0 {
                return Ok(out);
            }
            match b {
                Some(b) => {
                    let f = function(cd, DType::Bool, "ndi_bool_and")?;
                    cd.launch(&f, per_item(cd, n))
                        .arg(c.ptr())
                        .arg(b.dev_ptr()?)
                        .arg(out.dev_ptr_mut()?)
                        .arg(n as i64)
                        .run()?;
                }
                None => {
                    let f = function(cd, DType::Bool, "ndi_bool_not")?;
                    cd.launch(&f, per_item(cd, n))
                        .arg(c.ptr())
                        .arg(out.dev_ptr_mut()?)
                        .arg(n as i64)
                        .run()?;
                }
            }
            Ok(out)
        }
    }
}

/// `scipy.ndimage.binary_hit_or_miss(input, structure1, structure2, origin1, origin2)`: true where
/// `structure1` fits the foreground and `structure2` fits the background. `structure1` defaults to
/// `generate_binary_structure(rank, 1)`, `structure2` to its complement, `origin2` to `origin1`.
///
/// At the edges, as SciPy: the hit half is an erosion of the input by `structure1` with the
/// outside as background (a point of `structure1` beyond the edge never fits), the miss half an
/// erosion of the complement by `structure2` with the outside as background too (a point of
/// `structure2` beyond the edge always fits). The result is their logical and.
///
/// # Errors
/// As [`binary_erosion`].
///
/// ```
/// use cusci_ndimage::{binary_hit_or_miss, Array, Device};
/// let a = Array::from_vec(vec![0u8, 1, 0, 1, 1], &[5], &Device::Cpu).unwrap();
/// let s1 = Array::from_vec(vec![false, true, false], &[3], &Device::Cpu).unwrap();
/// let h = binary_hit_or_miss(&a, Some(&s1), None, &[], None).unwrap();
/// assert_eq!(h.to_vec().unwrap(), vec![false, true, false, false, false]);
/// ```
pub fn binary_hit_or_miss<T: Element>(
    input: &Array<T>,
    structure1: Option<&Array<bool>>,
    structure2: Option<&Array<bool>>,
    origin1: &[i64],
    origin2: Option<&[i64]>,
) -> Result<Array<bool>> {
    const OP: &str = "binary_hit_or_miss";
    real_only::<T>(OP)?;
    let nd = input.ndim();
    let s1 = match structure1 {
        Some(s) => Structure::from_array(OP, s, nd)?,
        None => Structure::default(OP, nd, 1)?,
    };
    let s2 = match structure2 {
        Some(s) => Structure::from_array(OP, s, nd)?,
        None => Structure {
            shape: s1.shape.clone(),
            data: s1.data.iter().map(|&b| !b).collect(),
        },
    };
    let o1 = norm_origin(OP, origin1, &s1.shape)?;
    let o2 = norm_origin(OP, origin2.unwrap_or(origin1), &s2.shape)?;
    let shape = input.shape().to_vec();
    let x = to_bool(input, false)?;
    let nx = to_bool(input, true)?;
    let (e1, e2) = (s1.erosion_offsets(&o1), s2.erosion_offsets(&o2));
    let once = Steps {
        shape: &shape,
        offs: &e1,
        dilate: false,
        iterations: 1,
        border: false,
    };
    let a = iterate(OP, &x, &once, None)?;
    // the miss half erodes the complement with the outside as background (true), as SciPy's
    // `_binary_erosion(input, structure2, border_value=0, invert=1)` does: its inverted
    // erosion flips the border value too
    let miss = Steps {
        offs: &e2,
        border: true,
        ..once
    };
    let b = iterate(OP, &nx, &miss, None)?;
    and_or_not(&a, Some(&b))
}

/// `scipy.ndimage.binary_propagation(input, structure, mask, border_value, origin)`: dilation
/// repeated until stable inside `mask` (reconstruction by dilation). `opts.iterations` is ignored.
///
/// ```
/// use cusci_ndimage::{binary_propagation, BinaryOptions, Array, Device};
/// let seed = Array::from_vec(vec![false, true, false, false, false, false], &[6], &Device::Cpu).unwrap();
/// let m = Array::from_vec(vec![true, true, true, false, true, true], &[6], &Device::Cpu).unwrap();
/// let p = binary_propagation(&seed, &BinaryOptions { mask: Some(&m), ..Default::default() }).unwrap();
/// assert_eq!(p.to_vec().unwrap(), vec![true, true, true, false, false, false]);
/// ```
pub fn binary_propagation<T: Element>(
    input: &Array<T>,
    opts: &BinaryOptions,
) -> Result<Array<bool>> {
    let o = BinaryOptions {
        iterations: -1,
        ..opts.clone()
    };
    erode_or_dilate("binary_propagation", input, &o, true)
}

/// `scipy.ndimage.binary_fill_holes(input, structure, origin)`: the input with its holes (regions
/// of false not connected to the border through `structure`) filled.
///
/// ```
/// use cusci_ndimage::{binary_fill_holes, Array, Device};
/// let a = Array::from_vec(vec![1u8, 1, 1, 1, 0, 1, 1, 1, 1], &[3, 3], &Device::Cpu).unwrap();
/// let f = binary_fill_holes(&a, None, &[]).unwrap();
/// assert!(f.to_vec().unwrap().iter().all(|&b| b));
/// ```
pub fn binary_fill_holes<T: Element>(
    input: &Array<T>,
    structure: Option<&Array<bool>>,
    origin: &[i64],
) -> Result<Array<bool>> {
    const OP: &str = "binary_fill_holes";
    real_only::<T>(OP)?;
    let mask = to_bool(input, true)?;
    let zeros = Array::<bool>::zeros(input.shape(), input.device())?;
    let o = BinaryOptions {
        structure,
        origin: origin.to_vec(),
        ..Default::default()
    };
    let p = prepare(OP, &zeros, &o, true)?;
    let s = Steps {
        shape: &p.shape,
        offs: &p.offs,
        dilate: true,
        iterations: -1,
        border: true,
    };
    let t = iterate(OP, &zeros, &s, Some(&mask))?;
    and_or_not(&t, None)
}

/// `scipy.ndimage.iterate_structure(structure, iterations, origin)`: `structure` dilated by itself
/// `iterations − 1` times (a structure of reach `iterations` × that of `structure`), with the
/// origin scaled by `iterations` when one is given (returned as the second value).
/// `iterations < 2` returns a copy of `structure`.
///
/// The work is done on the host (structures are small); the result is on `structure`'s device.
///
/// # Errors
/// `InvalidArgument` when `origin` has another length than `structure.ndim()`.
///
/// ```
/// use cusci_ndimage::{generate_binary_structure, iterate_structure, Device};
/// let s = generate_binary_structure(1, 1, &Device::Cpu).unwrap();
/// let (t, _) = iterate_structure(&s, 2, None).unwrap();
/// assert_eq!(t.shape(), &[5]);
/// ```
pub fn iterate_structure(
    structure: &Array<bool>,
    iterations: i64,
    origin: Option<&[i64]>,
) -> Result<(Array<bool>, Option<Vec<i64>>)> {
    let nd = structure.ndim();
    if let Some(o) = origin {
        if o.len() != nd {
            return Err(make::arg(
                "iterate_structure",
                format!("origin has {} values for a structure of rank {nd}", o.len()),
            ));
        }
    }
    let scaled = origin.map(|o| o.iter().map(|v| v * iterations).collect());
    if iterations < 2 {
        return Ok((structure.copy()?, scaled));
    }
    let s = Structure::from_array("iterate_structure", structure, nd)?;
    let ni = (iterations - 1) as usize;
    let shape: Vec<usize> = s.shape.iter().map(|&d| d + ni * (d - 1)).collect();
    let n: usize = shape.iter().product();
    let mut out = vec![false; n];
    // place the structure at ni * (d // 2) along every axis
    let pos: Vec<usize> = s.shape.iter().map(|&d| ni * (d / 2)).collect();
    let sst = c_strides_u(&s.shape);
    let ost = c_strides_u(&shape);
    for (k, &v) in s.data.iter().enumerate() {
        let mut idx = 0;
        for d in 0..nd {
            idx += ((k / sst[d]) % s.shape[d] + pos[d]) * ost[d];
        }
        out[idx] = v;
    }
    let offs = s.dilation_offsets(&vec![0; nd]);
    let steps = Steps {
        shape: &shape,
        offs: &offs,
        dilate: true,
        iterations: ni as i64,
        border: false,
    };
    let dil = cpu_iterate("iterate_structure", &out, &steps, None)?;
    Ok((Array::from_vec(dil, &shape, structure.device())?, scaled))
}
