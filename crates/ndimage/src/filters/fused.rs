//! Separable filters as weighted-sum passes, and on a CUDA device two consecutive passes over the
//! last two axes fused into one kernel. Which kernel runs each pass is a pure plan
//! ([`plan_sum_passes`]) of the element type, the shape, the input's layout and the passes;
//! [`sum_passes`] executes it.

use super::engine::{function, io, taps, weights, Op, Real};
use super::line::{filter1d, Line};
use crate::modes::Mode;
use cusci_core::dtype::DType;
use cusci_core::{Array, Backend, CudaDevice, Function, LaunchConfig, Result};

/// One weighted-sum pass of a separable filter: the 1-D window of `w` along `axis` (tap 0 at
/// `-shift` from the output), divided by `div`, in `mode`.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct Pass {
    pub axis: usize,
    pub w: Vec<f64>,
    pub shift: i64,
    pub div: f64,
    /// The boundary mode of this pass (SciPy's per-axis `mode` sequences).
    pub mode: Mode,
}

/// How [`sum_passes`] runs its passes on a CUDA device: each step a pass alone or a fused pair
/// of consecutive passes (`first`, `first + 1`), with the kernel and its launch shape.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Pass `k` alone: the 1-D window kernels.
    One(usize),
    /// The streaming kernel `ndi_stream2f{taps}` of `stream2d.cu` (`vec`: 16-byte accesses, else
    /// the scalar variant; `unit`: the variant for unit weights).
    Stream2 {
        first: usize,
        taps: usize,
        vec: bool,
        unit: bool,
    },
    /// The register-blocked kernel `ndi_sep2f{nb}` of `sep2d.cu` with a `ty` x `tx` output tile
    /// and `smem` bytes of dynamic shared memory.
    Sep2 {
        first: usize,
        nb: usize,
        ty: usize,
        tx: usize,
        smem: usize,
    },
    /// The fused two-pass kernel `ndi_sep2d` of `filters.cu`.
    Sep2d {
        first: usize,
        ty: usize,
        tx: usize,
        smem: usize,
    },
}

/// The plan of [`sum_passes`] on a CUDA device for an array of element type `dtype` and `shape`
/// (`contiguous`: C-contiguous; `aligned`: its first element 16-byte aligned). Two consecutive
/// passes over the last two axes with the same (filter) mode run as one fused kernel, the first
/// that applies of:
/// - f32 with the vertical (axis `nd - 2`) pass first, both windows of the same length in
///   `STREAM2_TAPS` (3, 5, 7, 9) with the centred horizontal shift `(n - 1) / 2` (sobel and
///   prewitt along axis `nd - 2`, odd uniform windows and small gaussians with origin 0), a
///   C-contiguous input: the streaming kernel `ndi_stream2f{N}` of `stream2d.cu` (16-byte
///   copies and stores where the width is a multiple of 4 and both arrays are aligned, else its
///   scalar variant `ndi_stream2f{N}s`);
/// - `ndi_sep2f{NB}` of `sep2d.cu` for f32 and f64 windows of up to 33 taps;
/// - else `ndi_sep2d` (f32 and f64, windows that fit a tile in shared memory).
///
/// Each keeps the intermediate on chip (cval outside the plane in the constant modes, as the
/// second sequential pass reads it) and does the same arithmetic in the given order, so all give
/// the same result, bit for bit, in every mode and plane size (the unit-weight streaming variant
/// within a few ulps: see [`stream2`]). Per-axis mode sequences whose two modes differ run pass
/// by pass. Every intermediate is a fresh contiguous, aligned array.
#[doc(hidden)]
pub fn plan_sum_passes(
    dtype: DType,
    shape: &[usize],
    contiguous: bool,
    aligned: bool,
    passes: &[Pass],
) -> Vec<Step> {
    let nd = shape.len();
    let size: usize = shape.iter().product();
    let (mut contiguous, mut aligned) = (contiguous, aligned);
    let mut steps = Vec::new();
    let mut k = 0;
    while k < passes.len() {
        if k + 1 < passes.len() && size > 0 && nd >= 2 {
            let (p, q) = (&passes[k], &passes[k + 1]);
            let last2 = |a: usize| a + 2 >= nd;
            if last2(p.axis)
                && last2(q.axis)
                && p.axis != q.axis
                && q.mode.for_filter() == p.mode.for_filter()
            {
                let fused = plan_stream2(dtype, shape, contiguous, aligned, p, q)
                    .or_else(|| plan_sep2(dtype, shape, p, q))
                    .or_else(|| plan_sep2d(dtype, shape, p, q));
                if let Some(step) = fused {
                    steps.push(step.at(k));
                    k += 2;
                    (contiguous, aligned) = (true, true);
                    continue;
                }
            }
        }
        steps.push(Step::One(k));
        k += 1;
        (contiguous, aligned) = (true, true);
    }
    steps
}

/// Weighted-sum passes applied in order (a copy of `x` for none): on a CUDA device as
/// [`plan_sum_passes`] plans them, on the CPU one [`filter1d`] pass after another. The
/// remaining passes run as [`filter1d`] passes, each with its own mode.
pub(crate) fn sum_passes<T: Real>(x: &Array<T>, passes: &[Pass], cval: f64) -> Result<Array<T>> {
    let (steps, dev) = match x.backend() {
        Backend::Cuda(c) => {
            // (the address only for the alignment test of the 16-byte accesses)
            let aligned = c.ptr().addr() % 16 == 0;
            let steps = plan_sum_passes(T::DTYPE, x.shape(), c.is_contiguous(), aligned, passes);
            (steps, Some(c.dev()))
        }
        Backend::Host(_) => ((0..passes.len()).map(Step::One).collect(), None),
    };
    let mut cur: Option<Array<T>> = None;
    for step in steps {
        let src = cur.as_ref().unwrap_or(x);
        let fused = |first: usize| pair(dev, passes, first);
        let y = match step {
            Step::One(k) => {
                let p = &passes[k];
                let line = Line {
                    axis: p.axis,
                    w: &p.w,
                    shift: p.shift,
                    mode: p.mode,
                    cval,
                    div: p.div,
                    op: Op::Sum,
                };
                filter1d(src, &line)?
            }
            Step::Stream2 {
                first, vec, unit, ..
            } => {
                let (d, p, q, mode) = fused(first)?;
                stream2(d, src, (p, q), mode, cval, (vec, unit))?
            }
            Step::Sep2 {
                first,
                nb,
                ty,
                tx,
                smem,
            } => {
                let (d, p, q, mode) = fused(first)?;
                sep2(d, src, (p, q), mode, cval, (nb, ty, tx, smem))?
            }
            Step::Sep2d {
                first,
                ty,
                tx,
                smem,
            } => {
                let (d, p, q, mode) = fused(first)?;
                sep2d(d, src, (p, q), mode, cval, (ty, tx, smem))?
            }
        };
        cur = Some(y);
    }
    match cur {
        Some(c) => Ok(c),
        None => x.copy(),
    }
}

impl Step {
    /// The same step for the fused pair that starts at pass `k`.
    fn at(self, k: usize) -> Step {
        match self {
            Step::One(_) => Step::One(k),
            Step::Stream2 {
                taps, vec, unit, ..
            } => Step::Stream2 {
                first: k,
                taps,
                vec,
                unit,
            },
            Step::Sep2 {
                nb, ty, tx, smem, ..
            } => Step::Sep2 {
                first: k,
                nb,
                ty,
                tx,
                smem,
            },
            Step::Sep2d { ty, tx, smem, .. } => Step::Sep2d {
                first: k,
                ty,
                tx,
                smem,
            },
        }
    }
}

/// The device, the passes `first` and `first + 1` and their (filter) mode, of a fused step.
fn pair<'a>(
    dev: Option<&'a CudaDevice>,
    passes: &'a [Pass],
    first: usize,
) -> Result<(&'a CudaDevice, &'a Pass, &'a Pass, Mode)> {
    let d = dev.ok_or_else(|| {
        cusci_core::error::make::arg("ndimage filter", "internal: a fused pass on the CPU")
    })?;
    let (p, q) = (&passes[first], &passes[first + 1]);
    Ok((d, p, q, p.mode.for_filter()))
}

// ---------------------------------------------------------------- ndi_sep2f (sep2d.cu)

/// Tap-count buckets of the register-blocked fused kernel `ndi_sep2f{NB}` (taps unrolled up to
/// NB; windows of up to 33 taps, gaussian radius 16).
const SEP2_BUCKETS: [usize; 5] = [3, 5, 9, 17, 33];
/// Threads per block of `ndi_sep2f*`.
const SEP2_THREADS: u32 = 256;

/// Output tile (rows, columns) of `ndi_sep2f*` for `nb` unrolled taps on a `hh` x `wd` plane:
/// columns a multiple of 32, rows a multiple of 8; 32 x 128 for up to 9 taps and 64 x 64 for
/// longer windows (the fastest tiles of each on a large plane), and narrow or short planes
/// (batched n-D) get tiles no larger than they need.
fn sep2_tile(nb: usize, hh: usize, wd: usize) -> (usize, usize) {
    let (ty, tx) = if nb <= 9 { (32, 128) } else { (64, 64) };
    let tx = tx.min(wd.next_multiple_of(32));
    let ty = ty.min(hh.next_multiple_of(8));
    (ty, tx)
}

/// Dynamic shared memory of `ndi_sep2f*` (elements of the working type) for a `ty` x `tx` tile:
/// the input box and the intermediate, with the odd row pitches of `sep2d.cu`.
fn sep2_smem(ty: usize, tx: usize, nv: usize, nh: usize, vfirst: bool) -> usize {
    let (r, c) = (ty + nv - 1, tx + nh - 1);
    let pi = c | 1;
    r * pi + if vfirst { ty * pi } else { r * (tx | 1) }
}

/// The plan of `ndi_sep2f{NB}` for passes `p` then `q` over the last two axes: `None` where it
/// does not apply (integer types, windows over 33 taps, shifts outside the windows, a tile that
/// does not fit the shared memory).
fn plan_sep2(dtype: DType, shape: &[usize], p: &Pass, q: &Pass) -> Option<Step> {
    if dtype != DType::F32 && dtype != DType::F64 {
        return None;
    }
    let nd = shape.len();
    let vfirst = p.axis == nd - 2;
    let (v, h) = if vfirst { (p, q) } else { (q, p) };
    let (nv, nh) = (v.w.len(), h.w.len());
    let &nb = SEP2_BUCKETS.iter().find(|&&b| b >= nv.max(nh))?;
    let (sv, shh) = (i32::try_from(v.shift).ok()?, i32::try_from(h.shift).ok()?);
    let ws = if dtype == DType::F32 { 4 } else { 8 };
    let (hh, wd) = (shape[nd - 2], shape[nd - 1]);
    // Every mode and plane size: the kernel maps the halo per element (any offset, planes of
    // one row or column included) and keeps SciPy's pass order, whose constant-mode intermediate
    // is cval outside the plane (cupyx's sobel runs its passes in axis order instead of SciPy's
    // derivative-axis-first order, so it differs from SciPy there when cval != 0). The shifts
    // must lie inside the windows (SciPy's origins always do).
    if !(0..nv as i32).contains(&sv) || !(0..nh as i32).contains(&shh) {
        return None;
    }
    let (mut ty, tx) = sep2_tile(nb, hh, wd);
    while ty > 8 && sep2_smem(ty, tx, nv, nh, vfirst) * ws > SEP2D_SMEM {
        ty = (ty / 2).next_multiple_of(8);
    }
    let smem = sep2_smem(ty, tx, nv, nh, vfirst) * ws;
    if smem > SEP2D_SMEM {
        return None;
    }
    Some(Step::Sep2 {
        first: 0,
        nb,
        ty,
        tx,
        smem,
    })
}

/// The register-blocked fused kernel (`ndi_sep2f{nb}`, `sep2d.cu`) for passes `p` then `q`
/// over the last two axes of an f32/f64 array, with the planned tile `(ty, tx)` and `smem`
/// bytes: one block per output tile, the input box loaded once into shared memory (boundary
/// modes mapped there), both passes from shared memory, the tile written once.
fn sep2<T: Real>(
    d: &CudaDevice,
    x: &Array<T>,
    (p, q): (&Pass, &Pass),
    mode: Mode,
    cval: f64,
    (nb, ty, tx, smem): (usize, usize, usize, usize),
) -> Result<Array<T>> {
    let shape = x.shape();
    let nd = shape.len();
    let vfirst = p.axis == nd - 2;
    let (v, h) = if vfirst { (p, q) } else { (q, p) };
    let (hh, wd) = (shape[nd - 2], shape[nd - 1]);
    let outer = x.size() / (hh * wd);
    let ntiles = outer * hh.div_ceil(ty) * wd.div_ceil(tx);
    let (xc, mut out) = io(x)?;
    let f = function::<T>(d, &format!("ndi_sep2f{nb}"))?;
    let cfg = LaunchConfig {
        grid: (ntiles.clamp(1, 1 << 30) as u32, 1, 1),
        block: (SEP2_THREADS, 1, 1),
        shared_mem_bytes: smem as u32,
    };
    d.launch(&f, cfg)
        .arg(xc.dev_ptr()?)
        .arg(out.dev_ptr_mut()?)
        .arg(outer as i64)
        .arg(hh as i64)
        .arg(wd as i64)
        .arg(taps::<T>(&v.w))
        .arg(v.w.len() as i32)
        .arg(v.shift as i32)
        .arg(T::to_w(v.div))
        .arg(taps::<T>(&h.w))
        .arg(h.w.len() as i32)
        .arg(h.shift as i32)
        .arg(T::to_w(h.div))
        .arg(vfirst as i32)
        .arg(mode.code())
        .arg(T::to_w(cval))
        .arg(ty as i32)
        .arg(tx as i32)
        .run()?;
    Ok(out)
}

// ---------------------------------------------------------------- ndi_sep2d (filters.cu)

/// Shared memory the fused two-pass kernel may use per block (opt-in above 48 KiB; every GPU
/// of compute capability 7.0 or later allows 96 KiB).
const SEP2D_SMEM: usize = 96 * 1024;

/// The plan of the fused two-pass kernel `ndi_sep2d` for passes `p` then `q` over the last two
/// axes, or `None` where it does not apply (integer types, whose intermediate is rounded to the
/// type, or windows too long for a tile in shared memory).
fn plan_sep2d(dtype: DType, shape: &[usize], p: &Pass, q: &Pass) -> Option<Step> {
    if dtype != DType::F32 && dtype != DType::F64 {
        return None;
    }
    let nd = shape.len();
    let (v, h) = if p.axis == nd - 2 { (p, q) } else { (q, p) };
    let vfirst = p.axis == nd - 2;
    let ws = if dtype == DType::F32 { 4 } else { 8 };
    let (nv, nh) = (v.w.len(), h.w.len());
    let bytes = |ty: usize, tx: usize| {
        let (r, c) = (ty + nv - 1, tx + nh - 1);
        (nv + nh + r * c + if vfirst { ty * c } else { r * tx }) * ws
    };
    let (mut ty, mut tx) = (64usize, 64usize);
    while bytes(ty, tx) > SEP2D_SMEM && (ty > 16 || tx > 32) {
        if ty >= tx && ty > 16 {
            ty /= 2;
        } else {
            tx /= 2;
        }
    }
    if bytes(ty, tx) > SEP2D_SMEM || ty < (nv - 1) / 2 || tx < (nh - 1) / 2 {
        return None;
    }
    Some(Step::Sep2d {
        first: 0,
        ty,
        tx,
        smem: bytes(ty, tx),
    })
}

/// The fused two-pass kernel `ndi_sep2d` for passes `p` then `q` over the last two axes with
/// the planned `(ty, tx)` tile and `smem` bytes.
fn sep2d<T: Real>(
    d: &CudaDevice,
    x: &Array<T>,
    (p, q): (&Pass, &Pass),
    mode: Mode,
    cval: f64,
    (ty, tx, smem): (usize, usize, usize),
) -> Result<Array<T>> {
    let shape = x.shape();
    let nd = shape.len();
    let vfirst = p.axis == nd - 2;
    let (v, h) = if vfirst { (p, q) } else { (q, p) };
    let (hh, wd) = (shape[nd - 2], shape[nd - 1]);
    let outer = x.size() / (hh * wd);
    let (xc, mut out) = io(x)?;
    let f = function::<T>(d, "ndi_sep2d")?;
    let ntiles = outer * hh.div_ceil(ty) * wd.div_ceil(tx);
    let (vt, vtaps) = weights::<T>(&v.w, x.device())?;
    let (ht, htaps) = weights::<T>(&h.w, x.device())?;
    let cfg = LaunchConfig {
        grid: (ntiles.clamp(1, 1 << 20) as u32, 1, 1),
        block: (32, 8, 1),
        shared_mem_bytes: smem as u32,
    };
    d.launch(&f, cfg)
        .arg(xc.dev_ptr()?)
        .arg(out.dev_ptr_mut()?)
        .arg(outer as i64)
        .arg(hh as i64)
        .arg(wd as i64)
        .arg(vt.as_ref().map(|t| t.dev_ptr()).transpose()?)
        .arg(vtaps)
        .arg(v.w.len() as i32)
        .arg(v.shift as i32)
        .arg(T::to_w(v.div))
        .arg(ht.as_ref().map(|t| t.dev_ptr()).transpose()?)
        .arg(htaps)
        .arg(h.w.len() as i32)
        .arg(h.shift as i32)
        .arg(T::to_w(h.div))
        .arg(vfirst as i32)
        .arg(mode.code())
        .arg(T::to_w(cval))
        .arg(ty as i32)
        .arg(tx as i32)
        .run()?;
    Ok(out)
}

// ---------------------------------------------------------------- ndi_stream2f (stream2d.cu)

/// Window lengths the streaming kernel `stream2d.cu` is compiled for: `ndi_stream2f{N}` sums `N`
/// rows, then `N` columns with the centred horizontal shift `(N - 1) / 2` (sobel and prewitt: 3;
/// odd uniform windows and gaussians of radius up to 4 with origin 0). The vertical shift is a
/// kernel argument.
const STREAM2_TAPS: [usize; 4] = [3, 5, 7, 9];
/// Output rows per block strip aimed at before the strip count is rounded to whole waves of
/// resident blocks ([`stream2_strips`]): a block copies its strip's rows and the `N - 1` rows of
/// the vertical halo once into shared memory, so longer strips reread fewer rows; shorter ones
/// give more blocks (even waves, more copies in flight).
const STREAM2_STRIP_ROWS: usize = 32;
/// The longest block strip: its tile, `(rows + N) * 512` bytes, stays within the 48 KiB that a
/// block gets without the opt-in attribute (which the occupancy query would need set first).
const STREAM2_MAX_STRIP_ROWS: usize = 80;
/// Threads per block (a multiple of 32; the `__launch_bounds__` of the entry points).
const STREAM2_THREADS: u32 = 128;

const _: () = assert!(
    STREAM2_THREADS % 32 == 0
        && STREAM2_THREADS <= 1024
        && (STREAM2_MAX_STRIP_ROWS + 9) * 512 <= 48 * 1024
        && STREAM2_STRIP_ROWS <= STREAM2_MAX_STRIP_ROWS
);

/// The name of the streaming kernel's entry point for `n` taps (`vec`: 16-byte accesses; `unit`:
/// every weight 1).
fn stream2_name(n: usize, vec: bool, unit: bool) -> String {
    let s = if vec { "" } else { "s" };
    let u = if unit { "u" } else { "" };
    format!("ndi_stream2f{n}{s}{u}")
}

/// The `NDI_STREAM2` instantiations of the f32 filter module: per window length the 16-byte
/// variant with general and with unit weights, and the scalar variant (general weights, which
/// unit weights also take; it serves widths not a multiple of 4 and unaligned arrays).
pub(super) fn stream2_entries() -> String {
    let mut s = String::new();
    for &n in &STREAM2_TAPS {
        for (vec, unit) in [(true, false), (true, true), (false, false)] {
            s += &format!(
                "NDI_STREAM2({}, {n}, {n}, {}, {STREAM2_THREADS}, {vec}, {unit})\n",
                stream2_name(n, vec, unit),
                (n - 1) / 2,
            );
        }
    }
    s
}

/// The plan of the streaming kernel for passes `p` (vertical, axis `nd - 2`) then `q`
/// (horizontal) over the last two axes of a C-contiguous f32 array: `None` for other types, pass
/// orders, window lengths or shifts, and non-contiguous input. 16-byte accesses where the width
/// is a multiple of 4 and the array `aligned` (the output is checked again at the launch), the
/// unit variant for them where every weight is 1.
fn plan_stream2(
    dtype: DType,
    shape: &[usize],
    contiguous: bool,
    aligned: bool,
    p: &Pass,
    q: &Pass,
) -> Option<Step> {
    let nd = shape.len();
    let size: usize = shape.iter().product();
    if dtype != DType::F32
        || nd < 2
        || p.axis != nd - 2
        || q.axis != nd - 1
        || size == 0
        || !contiguous
    {
        return None;
    }
    let n = p.w.len();
    if q.w.len() != n || !STREAM2_TAPS.contains(&n) {
        return None;
    }
    // the instantiated horizontal shift; the vertical one inside the window
    if q.shift != ((n - 1) / 2) as i64 || !(0..n as i64).contains(&p.shift) {
        return None;
    }
    // column bands of 120 outputs side by side along the rows (grid.x)
    let gx = u32::try_from(shape[nd - 1].div_ceil(120)).ok()?;
    if gx > i32::MAX as u32 {
        return None;
    }
    let vec = shape[nd - 1] % 4 == 0 && aligned;
    // unit weights (uniform filters) take the variant with shared sums
    let unit = vec && p.w.iter().chain(&q.w).all(|&w| w as f32 == 1.0);
    Some(Step::Stream2 {
        first: 0,
        taps: n,
        vec,
        unit,
    })
}

/// The streaming kernel (`ndi_stream2f{N}`, `stream2d.cu`) for passes `p` (vertical) then `q`
/// (horizontal) over the last two axes of a C-contiguous f32 array: a block copies a strip of
/// rows and its vertical halo once into shared memory, then its warps walk consecutive parts of
/// the strip in steps of 4 output rows. Weighted sums are the arithmetic of `ndi_sep2f`
/// (bit-identical); unit weights (uniform filters, 16-byte accesses) take the variant
/// `ndi_stream2f{N}u`, whose four neighbouring outputs share partial sums (the same values
/// added in another order: within a few ulps of the window's sums of magnitudes, never running
/// sums). `(vec, unit)` as planned; 16-byte accesses only where the output is aligned too.
fn stream2<T: Real>(
    d: &CudaDevice,
    x: &Array<T>,
    (p, q): (&Pass, &Pass),
    mode: Mode,
    cval: f64,
    (vec, unit): (bool, bool),
) -> Result<Array<T>> {
    let shape = x.shape();
    let nd = shape.len();
    let n = p.w.len();
    let (hh, wd) = (shape[nd - 2], shape[nd - 1]);
    let outer = x.size() / (hh * wd);
    let (xc, mut out) = io(x)?;
    // (the addresses only for the alignment test of the 16-byte accesses)
    let vec = vec && xc.dev_ptr()?.addr() % 16 == 0 && out.dev_ptr_mut()?.addr() % 16 == 0;
    let unit = unit && vec;
    // column bands side by side along the rows (120 output columns each; the plan checked that
    // they fit grid.x), strips along grid.y, planes along grid.z
    let gx = wd.div_ceil(120) as u32;
    let f = function::<T>(d, &stream2_name(n, vec, unit))?;
    let nst = stream2_strips(d, &f, n, hh, outer, gx as usize)?;
    // the tile: the longest strip's rows and the halo, 128 columns of 4 bytes each
    let smem = (hh / nst + n) * 512;
    let cfg = LaunchConfig {
        grid: (gx, nst.clamp(1, 65535) as u32, outer.clamp(1, 65535) as u32),
        block: (STREAM2_THREADS, 1, 1),
        shared_mem_bytes: smem as u32,
    };
    d.launch(&f, cfg)
        .arg(xc.dev_ptr()?)
        .arg(out.dev_ptr_mut()?)
        .arg(outer as i64)
        .arg(hh as i64)
        .arg(wd as i64)
        .arg(taps::<T>(&p.w))
        .arg(p.shift as i32)
        .arg(T::to_w(p.div))
        .arg(taps::<T>(&q.w))
        .arg(T::to_w(q.div))
        .arg(mode.code())
        .arg(T::to_w(cval))
        .arg(nst as i64)
        .arg((hh / nst) as i64)
        .arg((hh % nst) as i64)
        .run()?;
    Ok(out)
}

/// The strip count per plane of `hh` rows for the streaming kernel `f` of `n` taps (`gx` blocks
/// across a plane, `outer` planes): strips of about `STREAM2_STRIP_ROWS` rows, their number
/// rounded so that the blocks fill whole waves of the device's resident blocks where a launch
/// has few waves; in `1 ..= hh`, and strips of at most `STREAM2_MAX_STRIP_ROWS + 1` rows.
fn stream2_strips(
    d: &CudaDevice,
    f: &Function,
    n: usize,
    hh: usize,
    outer: usize,
    gx: usize,
) -> Result<usize> {
    let per_sm = f.occupancy(STREAM2_THREADS, (STREAM2_STRIP_ROWS + n) * 512)? as usize;
    let slots = (d.props().multiprocessors * per_sm).max(1);
    let nst0 = hh.div_ceil(STREAM2_STRIP_ROWS);
    let per_strip = gx.saturating_mul(outer).max(1);
    let blocks = per_strip.saturating_mul(nst0);
    // up to 16 waves: round to whole waves (at least one strip per plane); beyond, the tail of
    // the last wave is small anyway
    let nst = if blocks <= 16 * slots {
        let waves = ((blocks + slots / 2) / slots).max(1);
        (waves * slots / per_strip).max(1)
    } else {
        nst0
    };
    Ok(nst
        .max(hh.div_ceil(STREAM2_MAX_STRIP_ROWS))
        .clamp(1, hh.max(1)))
}
