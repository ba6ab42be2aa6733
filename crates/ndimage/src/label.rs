//! `scipy.ndimage.label`: connected components of the nonzero elements.

use crate::cuda::{module_source, offsets_on, per_item, real_dtypes, specs, NdiShape};
use crate::structure::{contig, real_only, step_index, Structure};
use cusci_core::cuda::launch::{KernelModule, Spec};
use cusci_core::error::make;
use cusci_core::{Array, Backend, CudaDevice, DType, Device, Element, Result};

/// The label kernels (`label.cu`) with 64-bit forest indices, flags and ranks, for an input
/// element type: `Spec::of(&[T])`.
pub(crate) static LABEL: KernelModule = KernelModule {
    name: "ndimage_label",
    source: |spec| Ok(module_source(include_str!("label.cu"), spec.dtype(0)?)),
    options: &[],
    samples: || specs(real_dtypes()),
};

/// The same kernels with 32-bit forest indices, flags and ranks (below 2^31 elements).
pub(crate) static LABEL32: KernelModule = KernelModule {
    name: "ndimage_label32",
    source: |spec| {
        Ok(module_source(
            concat!(
                "#define NDI_U unsigned int\n#define NDI_F int\n",
                include_str!("label.cu")
            ),
            spec.dtype(0)?,
        ))
    },
    options: &[],
    samples: || specs(real_dtypes()),
};

/// The neighbours a union looks at: the structure's offsets before its centre (`back`), their
/// flat offsets (`delta`) and, per offset, the earlier offsets adjacent to it (`adj`).
struct Links<'a> {
    back: &'a [Vec<i64>],
    delta: &'a [i64],
    adj: &'a [u64],
}

/// `scipy.ndimage.label(input, structure)`: labels the connected components of the nonzero
/// elements of `input` (any rank; connectivity given by `structure`, a symmetric `3 × … × 3`
/// array of the input's rank, default `generate_binary_structure(rank, 1)`).
///
/// Returns the labels (`i32`, 0 for the background) and the number of components. Labels are
/// numbered as SciPy numbers them: in raster (C) order of each component's first element, so the
/// result is the same on every device and every run.
///
/// The CPU runs a two-pass union-find; the GPU a parallel union-find (atomic minimum linking,
/// 64-bit indices: arrays past 2³¹ elements are fine) and a prefix sum over the roots.
///
/// # Errors
/// `UnsupportedDType` for complex input; `ShapeMismatch` when `structure`'s rank differs;
/// `InvalidArgument` when it is not `3` on every axis or not symmetric, or when there are more
/// than `i32::MAX` components.
///
/// ```
/// use cusci_ndimage::{label, Array, Device};
/// let a = Array::from_vec(vec![1u8, 1, 0, 1, 0, 0, 1, 0], &[2, 4], &Device::Cpu).unwrap();
/// let (l, n) = label(&a, None).unwrap();
/// assert_eq!(n, 3);
/// assert_eq!(l.to_vec().unwrap(), vec![1, 1, 0, 2, 0, 0, 3, 0]);
/// ```
pub fn label<T: Element>(
    input: &Array<T>,
    structure: Option<&Array<bool>>,
) -> Result<(Array<i32>, usize)> {
    label_impl(input, structure, false)
}

/// [`label`] with SciPy's `output=` dtype (`scipy.ndimage.label(input, structure, output=O)`):
/// the same labels stored as `O` (i32, i64, u8, bool, f32, f64; SciPy's default is i32, which
/// [`label`] returns).
///
/// As SciPy, an output type that cannot hold every label is refused: u8 holds up to 255
/// components, bool up to 254 (SciPy writes the label bytes into the bool array, and its retry
/// with a wider type fails from 255 on; every label reads as `true`), i32 up to `i32::MAX`; i64
/// and the floats any count (f32 rounds labels above 2^24, as SciPy's store does). The count
/// is returned as a host value; the labels stay on the input's device.
///
/// # Errors
/// As [`label`]; `InvalidArgument` ("insufficient bit-depth in requested output type", SciPy's
/// RuntimeError) when `O` cannot hold the number of components; `UnsupportedDType` for a complex
/// `O` (SciPy's TypeError).
///
/// ```
/// use cusci_ndimage::{label_as, Array, Device};
/// let a = Array::from_vec(vec![1u8, 0, 1, 1, 0, 1], &[6], &Device::Cpu).unwrap();
/// let (l, n) = label_as::<u8, f32>(&a, None).unwrap();
/// assert_eq!(n, 3);
/// assert_eq!(l.to_vec().unwrap(), vec![1.0, 0.0, 2.0, 2.0, 0.0, 3.0]);
/// ```
pub fn label_as<T: Element, O: Element>(
    input: &Array<T>,
    structure: Option<&Array<bool>>,
) -> Result<(Array<O>, usize)> {
    const OP: &str = "label";
    let most = match O::DTYPE {
        DType::C32 | DType::C64 => return Err(make::dtype(OP, O::DTYPE)),
        DType::U8 => 255,
        DType::Bool => 254,
        DType::I32 => i32::MAX as usize,
        _ => usize::MAX,
    };
    let (l, n) = label(input, structure)?;
    if n > most {
        return Err(make::arg(
            OP,
            format!(
                "insufficient bit-depth in requested output type ({n} labels in {})",
                O::DTYPE
            ),
        ));
    }
    Ok((l.astype::<O>()?, n))
}

/// Tests only: [`label`] with the GPU's 64-bit forest whatever the size (the same result; the
/// forest is otherwise 32-bit below 2^31 elements).
#[doc(hidden)]
pub fn label_with_wide_forest<T: Element>(
    input: &Array<T>,
    structure: Option<&Array<bool>>,
) -> Result<(Array<i32>, usize)> {
    label_impl(input, structure, true)
}

/// [`label`], with the 64-bit forest on the GPU for every size when `wide`.
fn label_impl<T: Element>(
    input: &Array<T>,
    structure: Option<&Array<bool>>,
    wide: bool,
) -> Result<(Array<i32>, usize)> {
    const OP: &str = "label";
    real_only::<T>(OP)?;
    let orig_shape = input.shape().to_vec();
    let shape: Vec<usize> = if input.ndim() == 0 {
        vec![1]
    } else {
        input.shape().to_vec()
    };
    let nd = shape.len();
    let s = match structure {
        Some(s) if input.ndim() == 0 && s.ndim() == 0 => Structure::default(OP, 1, 1)?,
        Some(s) => Structure::from_array(OP, s, input.ndim())?,
        None => Structure::default(OP, nd, 1)?,
    };
    if s.shape.iter().any(|&d| d != 3) {
        return Err(make::arg(OP, "structure dimensions must be equal to 3"));
    }
    let mut r = s.data.clone();
    r.reverse();
    if r != s.data {
        return Err(make::arg(OP, "structuring element is not symmetric"));
    }
    // elements before the centre in raster order (the centre is element (3^nd - 1) / 2)
    let half = (s.data.len() - 1) / 2;
    let back: Vec<Vec<i64>> = s
        .erosion_offsets(&vec![0; nd])
        .into_iter()
        .filter(|o| {
            let mut k = 0i64;
            for &c in o.iter() {
                k = k * 3 + c + 1;
            }
            (k as usize) < half
        })
        .collect();
    // Neighbours that are themselves adjacent (their difference is in the structure) need one
    // union only: once a neighbour is joined, an adjacent later one is already connected through
    // the pair's own union at the larger of the two (an earlier element). The offsets go most
    // connected first (8-connectivity in 2-D: the one above first, which makes the other three
    // redundant whenever it is foreground); adj[k] marks the earlier offsets adjacent to offset k
    // (up to 64 offsets; beyond, no skipping).
    let is_adj = |a: &[i64], b: &[i64]| -> bool {
        let mut k = 0usize;
        for (x, y) in a.iter().zip(b) {
            let d = x - y;
            if d.abs() > 1 {
                return false;
            }
            k = k * 3 + (d + 1) as usize;
        }
        k != half && s.data[k]
    };
    let mut back = back;
    let degree: Vec<usize> = back
        .iter()
        .map(|a| back.iter().filter(|b| is_adj(a, b)).count())
        .collect();
    let mut order: Vec<usize> = (0..back.len()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(degree[k]));
    back = order.iter().map(|&k| back[k].clone()).collect();
    let adj: Vec<u64> = (0..back.len())
        .map(|k| {
            if back.len() > 64 {
                return 0;
            }
            (0..k)
                .filter(|&k2| is_adj(&back[k], &back[k2]))
                .fold(0u64, |m, k2| m | (1u64 << k2))
        })
        .collect();
    let st = crate::structure::c_strides_u(&shape);
    let delta: Vec<i64> = back
        .iter()
        .map(|o| o.iter().zip(&st).map(|(&c, &s)| c * s as i64).sum())
        .collect();
    let input = contig(input)?.reshape(&shape.iter().map(|&d| d as isize).collect::<Vec<_>>())?;
    let links = Links {
        back: &back,
        delta: &delta,
        adj: &adj,
    };
    let (out, n) = match input.backend() {
        Backend::Host(h) => cpu(&h.try_to_contiguous()?, &shape, &links)?,
        Backend::Cuda(c) => cuda(c.dev(), &input, &shape, &links, wide)?,
    };
    if n > i32::MAX as usize {
        return Err(make::arg(
            OP,
            format!("{n} components do not fit the i32 labels"),
        ));
    }
    let oshape: Vec<isize> = orig_shape.iter().map(|&d| d as isize).collect();
    Ok((out.reshape(&oshape)?, n))
}

fn find(p: &mut [usize], mut x: usize) -> usize {
    let mut r = x;
    while p[r] != r {
        r = p[r];
    }
    while p[x] != r {
        let nx = p[x];
        p[x] = r;
        x = nx;
    }
    r
}

fn cpu<T: Element>(data: &[T], shape: &[usize], l: &Links) -> Result<(Array<i32>, usize)> {
    let Links { back, delta, adj } = *l;
    let n: usize = shape.iter().product();
    let nd = shape.len();
    if n < u32::MAX as usize {
        if let Some((dmin, dmax)) = row_runs_2d(shape, back) {
            return label_runs_2d(data, shape[0], shape[1], dmin, dmax);
        }
    }
    let mut p: Vec<usize> = (0..n)
        .map(|i| if data[i] != T::zero() { i } else { BG })
        .collect();
    let mut c = vec![0i64; nd];
    for i in 0..n {
        if p[i] != BG {
            // the same skipping of adjacent neighbours as the GPU (see `label`)
            let mut done = 0u64;
            for (k, (o, &dl)) in back.iter().zip(delta).enumerate() {
                if o.iter().zip(&c).zip(shape).all(|((&o, &c), &s)| {
                    let q = c + o;
                    q >= 0 && q < s as i64
                }) {
                    let j = (i as i64 + dl) as usize;
                    if p[j] != BG {
                        let bit = if k < 64 { 1u64 << k } else { 0 };
                        if adj[k] & done != 0 {
                            done |= bit;
                            continue;
                        }
                        done |= bit;
                        let a = find(&mut p, i);
                        let b = find(&mut p, j);
                        if a != b {
                            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                            p[hi] = lo;
                        }
                    }
                }
            }
        }
        step_index(&mut c, shape);
    }
    second_pass(p, shape)
}

/// Background in the host forest.
const BG: usize = usize::MAX;

/// The labels from the forest `p` (every component's root its smallest index): roots are met
/// first in raster order and numbered from 1.
fn second_pass(mut p: Vec<usize>, shape: &[usize]) -> Result<(Array<i32>, usize)> {
    let n = p.len();
    let mut out = vec![0i32; n];
    let mut count = 0usize;
    for i in 0..n {
        if p[i] == BG {
            continue;
        }
        let r = find(&mut p, i);
        if r == i {
            count += 1;
            out[i] = count.min(i32::MAX as usize) as i32;
        } else {
            out[i] = out[r];
        }
    }
    Ok((Array::from_vec(out, shape, &Device::Cpu)?, count))
}

/// For a 2-D input whose structure joins horizontal neighbours and, on the row above, the
/// columns `dmin..=dmax` (a contiguous range: 4- and 8-connectivity), that range
/// ([`label_runs_2d`] applies); `None` otherwise (empty range: `dmin > dmax`).
fn row_runs_2d(shape: &[usize], back: &[Vec<i64>]) -> Option<(i64, i64)> {
    if shape.len() != 2 || !back.iter().any(|o| o[..] == [0, -1]) {
        return None;
    }
    let up: Vec<i64> = back.iter().filter(|o| o[0] == -1).map(|o| o[1]).collect();
    let (dmin, dmax) = (
        up.iter().copied().min().unwrap_or(1),
        up.iter().copied().max().unwrap_or(0),
    );
    if dmin <= dmax && (dmin..=dmax).any(|d| !up.contains(&d)) {
        return None;
    }
    Some((dmin, dmax))
}

/// Background in the 32-bit forest of [`label_runs_2d`].
const BG32: u32 = u32::MAX;

fn find32(p: &mut [u32], mut x: u32) -> u32 {
    let mut r = x;
    while p[r as usize] != r {
        r = p[r as usize];
    }
    while p[x as usize] != r {
        let nx = p[x as usize];
        p[x as usize] = r;
        x = nx;
    }
    r
}

/// [`label`] of a 2-D input by runs (see [`row_runs_2d`]; fewer than 2^32 elements): each row's
/// runs of nonzero elements point to their first element (a 32-bit forest), and each run joins
/// once per run of the row above that it touches (columns `s + dmin ..= e - 1 + dmax` for the
/// run `[s, e)`), the smaller root becoming the root, instead of a union per element and
/// neighbour. Then run by run in raster order: a run whose root is its own first element opens
/// the next label, any other takes its root's. The same components and numbering as the
/// element-wise forest.
fn label_runs_2d<T: Element>(
    data: &[T],
    h: usize,
    w: usize,
    dmin: i64,
    dmax: i64,
) -> Result<(Array<i32>, usize)> {
    let n = h * w;
    let mut p = vec![BG32; n];
    for r in 0..h {
        let row = r * w;
        let mut x = 0usize;
        while x < w {
            if data[row + x] == T::zero() {
                x += 1;
                continue;
            }
            let s = x;
            let start = (row + s) as u32;
            while x < w && data[row + x] != T::zero() {
                p[row + x] = start;
                x += 1;
            }
            if r == 0 || dmin > dmax {
                continue;
            }
            let prev = row - w;
            let lo = (s as i64 + dmin).max(0);
            let hi = (x as i64 - 1 + dmax).min(w as i64 - 1);
            for y in lo..=hi {
                let y = y as usize;
                if p[prev + y] != BG32 && (y as i64 == lo || p[prev + y - 1] == BG32) {
                    let a = find32(&mut p, start);
                    let b = find32(&mut p, (prev + y) as u32);
                    if a != b {
                        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                        p[hi as usize] = lo;
                    }
                }
            }
        }
    }
    let mut out = vec![0i32; n];
    let mut count = 0usize;
    for r in 0..h {
        let row = r * w;
        let mut x = 0usize;
        while x < w {
            if p[row + x] == BG32 {
                x += 1;
                continue;
            }
            let s = x;
            while x < w && p[row + x] != BG32 {
                x += 1;
            }
            let root = find32(&mut p, (row + s) as u32) as usize;
            let lab = if root == row + s {
                count += 1;
                count.min(i32::MAX as usize) as i32
            } else {
                out[root]
            };
            out[row + s..row + x].fill(lab);
        }
    }
    Ok((Array::from_vec(out, &[h, w], &Device::Cpu)?, count))
}

/// The GPU label: 32-bit forest indices below 2^31 elements (unless `wide`), else 64-bit.
fn cuda<T: Element>(
    cd: &CudaDevice,
    input: &Array<T>,
    shape: &[usize],
    l: &Links,
    wide: bool,
) -> Result<(Array<i32>, usize)> {
    let n: usize = shape.iter().product();
    if n < i32::MAX as usize && !wide {
        cuda_impl::<T, i32>(cd, input, shape, l, &LABEL32)
    } else {
        cuda_impl::<T, i64>(cd, input, shape, l, &LABEL)
    }
}

/// The GPU label with forest indices, flags and ranks of type `P` (i32 below 2^31 elements,
/// else i64), from kernel module `module`.
fn cuda_impl<T: Element, P: cusci_core::Numeric>(
    cd: &CudaDevice,
    input: &Array<T>,
    shape: &[usize],
    l: &Links,
    module: &KernelModule,
) -> Result<(Array<i32>, usize)> {
    let Links { back, delta, adj } = *l;
    let dev = input.device().clone();
    let sh = NdiShape::new("label", shape)?;
    let n = sh.n as usize;
    // written completely: out by ndi_label_write, parent by init, flag by flatten
    let mut out = Array::<i32>::empty(shape, &dev)?;
    if n == 0 {
        return Ok((out, 0));
    }
    let mut parent = Array::<P>::empty(&[n], &dev)?;
    let mut flag = Array::<P>::empty(&[n], &dev)?;
    let offs = offsets_on(&dev, back, shape.len())?;
    let dl = if delta.is_empty() {
        vec![0i64]
    } else {
        delta.to_vec()
    };
    let dl = Array::from_vec(dl.clone(), &[dl.len()], &dev)?;
    let adj: Vec<i64> = if adj.is_empty() {
        vec![0]
    } else {
        adj.iter().map(|&m| m as i64).collect()
    };
    let adj = Array::from_vec(adj.clone(), &[adj.len()], &dev)?;
    let spec = Spec::of(&[T::DTYPE]);
    let cfg = per_item(cd, n);
    let f = module.function(cd, &spec, "ndi_label_init")?;
    cd.launch(&f, cfg)
        .arg(input.dev_ptr()?)
        .arg(parent.dev_ptr_mut()?)
        .arg(sh.n)
        .run()?;
    if !back.is_empty() {
        let f = module.function(cd, &spec, "ndi_label_merge")?;
        cd.launch(&f, cfg)
            .arg(parent.dev_ptr_mut()?)
            .arg(sh)
            .arg(offs.dev_ptr()?)
            .arg(dl.dev_ptr()?)
            .arg(adj.dev_ptr()?)
            .arg(back.len() as i32)
            .run()?;
    }
    let f = module.function(cd, &spec, "ndi_label_flatten")?;
    cd.launch(&f, cfg)
        .arg(parent.dev_ptr_mut()?)
        .arg(flag.dev_ptr_mut()?)
        .arg(sh.n)
        .run()?;
    let rank = flag.cumsum(0)?;
    let rank = contig(&rank)?;
    let f = module.function(cd, &spec, "ndi_label_write")?;
    cd.launch(&f, cfg)
        .arg(parent.dev_ptr()?)
        .arg(rank.dev_ptr()?)
        .arg(out.dev_ptr_mut()?)
        .arg(sh.n)
        .run()?;
    let count = rank
        .slice_axis(0, Some(n as isize - 1), None, 1)?
        .item()?
        .to_i64();
    Ok((out, count.max(0) as usize))
}
