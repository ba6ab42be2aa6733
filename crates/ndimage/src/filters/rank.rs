//! The n-D rank selection (`rank_filter`, `median_filter`, `percentile_filter`): the `rank`-th
//! smallest value over the footprint's points, NaN last. The CPU selects per element; the GPU
//! runs the register selection networks `ndi_rank{N}` for small footprints, else `ndi_rank` up to
//! 64 points; larger footprints take the shared-memory radix selection `ndi_rank_radix2` where
//! they are boxes over the last two axes that fit its tile, else the block-per-output radix
//! selection `ndi_rank_block`.

use super::engine::{function, io, on_device, Op, Points, Real};
use super::footprint::windows_cpu;
use super::store::{apply, copy_code, finish, input_cval, load, single, Store};
use super::window::minmax_as;
use super::window::separable;
use super::{
    axis_modes, check_rank, expand_origin, footprint_axes, norm_axes, per_axis, points,
    FilterOptions, Footprint,
};
use crate::cuda::{dims8, linear, Dims8};
use crate::modes::Mode;
use cusci_core::array::layout::checked_numel;
use cusci_core::dtype::DType;
use cusci_core::dtype::Element;
use cusci_core::error::make;
use cusci_core::{Array, CudaDevice, KernelParam, LaunchConfig, Result};

/// The rank filters' order as an integer: the values' order, −0 equal to 0, NaN last (as
/// np.sort).
#[inline]
fn rank_key(v: f64) -> i64 {
    if v.is_nan() {
        return i64::MAX;
    }
    // + 0.0 turns −0 into 0 and leaves every other value alone; then the bits of a negative
    // value but its sign flipped, so that the integers order as the values
    let b = (v + 0.0).to_bits() as i64;
    b ^ ((b >> 63) as u64 >> 1) as i64
}

/// n-D rank selection: the `rank`-th smallest value over the points (NaN sorts last).
pub(crate) fn ranknd<T: Real>(
    x: &Array<T>,
    pts: &Points,
    rank: usize,
    mode: Mode,
    cval: f64,
) -> Result<Array<T>> {
    let select = |buf: &mut [f64]| {
        if buf.iter().any(|v| v.is_nan()) {
            *buf.select_nth_unstable_by_key(rank, |&v| rank_key(v)).1
        } else {
            *buf.select_nth_unstable_by(rank, |a, b| {
                a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal)
            })
            .1
        }
    };
    on_device(
        x,
        mode,
        |xv, mode| windows_cpu(xv, x.shape(), pts, mode, cval, select),
        |d, mode| {
            if pts.len() <= RANK_LOCAL {
                return ranknd_cuda(x, d, pts, rank, mode, cval);
            }
            match rank_radix(x, d, pts, rank, mode, cval)? {
                Some(y) => Ok(y),
                None => rank_block(x, d, pts, rank, mode, cval),
            }
        },
    )
}

/// The points of a small footprint by value (`NdiSmallPts` of filters.cu).
#[repr(C)]
#[derive(Clone, Copy)]
struct SmallPts {
    lin: [i64; 27],
    off: [i64; 27 * 8],
}

// SAFETY: plain data with the layout of filters.cu's
// `struct NdiSmallPts { i64 lin[27]; i64 off[27 * 8]; }`.
unsafe impl KernelParam for SmallPts {}

/// The CUDA [`ranknd`] of a footprint of at most [`RANK_LOCAL`] points, through the register
/// selection networks `ndi_rank{N}` (footprints of 3, 5, 7, 9, 25 or 27 points, passed by value:
/// no upload) or the local-memory selection `ndi_rank`.
fn ranknd_cuda<T: Real>(
    x: &Array<T>,
    d: &CudaDevice,
    pts: &Points,
    rank: usize,
    mode: Mode,
    cval: f64,
) -> Result<Array<T>> {
    let shape = x.shape();
    let nd = shape.len();
    let dims = dims8("ndimage rank filter", shape)?;
    let (xc, mut out) = io(x)?;
    let n = x.size();
    let small = [3usize, 5, 7, 9, 25, 27].contains(&pts.len()) && nd <= 8;
    if small {
        let (lin, lo, hi) = pts.linear(shape);
        let mut sp = SmallPts {
            lin: [0; 27],
            off: [0; 27 * 8],
        };
        sp.lin[..lin.len()].copy_from_slice(&lin);
        sp.off[..pts.offs.len()].copy_from_slice(&pts.offs);
        let f = function::<T>(d, &format!("ndi_rank{}", pts.len()))?;
        d.launch(&f, linear(n))
            .arg(xc.dev_ptr()?)
            .arg(out.dev_ptr_mut()?)
            .arg(n as i64)
            .arg(nd as i32)
            .arg(dims)
            .arg(sp)
            .arg(Dims8(lo))
            .arg(Dims8(hi))
            .arg(rank as i32)
            .arg(mode.code())
            .arg(T::to_w(cval))
            .run()?;
    } else {
        let offs = Array::from_vec(pts.offs.clone(), &[pts.offs.len()], x.device())?;
        let f = function::<T>(d, "ndi_rank")?;
        d.launch(&f, linear(n))
            .arg(xc.dev_ptr()?)
            .arg(out.dev_ptr_mut()?)
            .arg(n as i64)
            .arg(nd as i32)
            .arg(dims)
            .arg(offs.dev_ptr()?)
            .arg(pts.len() as i32)
            .arg(rank as i32)
            .arg(mode.code())
            .arg(T::to_w(cval))
            .run()?;
    }
    Ok(out)
}

/// Footprints of more points than this leave the generic kernel's local selection
/// (`NDI_RANK_LOCAL` of filters.cu) for [`rank_radix`] where they are boxes, else [`rank_block`].
const RANK_LOCAL: usize = 64;

/// Most shared memory [`rank_radix`]'s tile may take (an opt-in above 48 KiB on the H200).
const RANK_RADIX_SMEM: usize = 160 * 1024;

/// The rank filter of a full box footprint over the last two axes (or the last, for 1-D
/// input) by radix selection (`ndi_rank_radix2`): 8 * sizeof(key) counting passes over the
/// window in shared memory instead of the generic kernel's quadratic selection. `None` where the
/// footprint is not such a box (a point off the last two axes, or holes) or its tile would
/// exceed [`RANK_RADIX_SMEM`].
fn rank_radix<T: Real>(
    x: &Array<T>,
    d: &CudaDevice,
    pts: &Points,
    rank: usize,
    mode: Mode,
    cval: f64,
) -> Result<Option<Array<T>>> {
    let shape = x.shape();
    let nd = shape.len();
    let (mut lo, mut hi) = ([i64::MAX; 2], [i64::MIN; 2]);
    for p in pts.offs.chunks(nd) {
        if p[..nd.saturating_sub(2)].iter().any(|&o| o != 0) {
            return Ok(None);
        }
        // (row, column) offsets: the row is 0 for 1-D input
        let rc = [if nd >= 2 { p[nd - 2] } else { 0 }, p[nd - 1]];
        for a in 0..2 {
            lo[a] = lo[a].min(rc[a]);
            hi[a] = hi[a].max(rc[a]);
        }
    }
    let (sh, sw) = ((hi[0] - lo[0] + 1) as usize, (hi[1] - lo[1] + 1) as usize);
    if sh * sw != pts.len() {
        return Ok(None);
    }
    let (tx, ty) = (32usize, 8usize);
    let key = if T::DTYPE == DType::F32 { 4 } else { 8 };
    let smem = (ty + sh - 1) * (tx + sw - 1) * key;
    if smem > RANK_RADIX_SMEM {
        return Ok(None);
    }
    let wd = shape[nd - 1];
    let h = if nd >= 2 { shape[nd - 2] } else { 1 };
    let planes = x.size() / (h * wd);
    let (xc, mut out) = io(x)?;
    let tiles = planes * h.div_ceil(ty) * wd.div_ceil(tx);
    let cfg = LaunchConfig {
        grid: (tiles.clamp(1, 1 << 20) as u32, 1, 1),
        block: (tx as u32, ty as u32, 1),
        shared_mem_bytes: smem as u32,
    };
    let f = function::<T>(d, "ndi_rank_radix2")?;
    d.launch(&f, cfg)
        .arg(xc.dev_ptr()?)
        .arg(out.dev_ptr_mut()?)
        .arg(planes as i64)
        .arg(h as i64)
        .arg(wd as i64)
        .arg(sh as i32)
        .arg(sw as i32)
        .arg(lo[0])
        .arg(lo[1])
        .arg(rank as i32)
        .arg(mode.code())
        .arg(T::to_w(cval))
        .run()?;
    Ok(Some(out))
}

/// The rank filter of any footprint by radix selection with one block per output
/// (`ndi_rank_block`): sizeof(key) passes of 8-bit digit histograms over the footprint's points,
/// linear in the footprint's size (2^20 points on 8 outputs: milliseconds).
fn rank_block<T: Real>(
    x: &Array<T>,
    d: &CudaDevice,
    pts: &Points,
    rank: usize,
    mode: Mode,
    cval: f64,
) -> Result<Array<T>> {
    let shape = x.shape();
    let dims = dims8("ndimage rank filter", shape)?;
    let (xc, mut out) = io(x)?;
    let n = x.size();
    let offs = Array::from_vec(pts.offs.clone(), &[pts.offs.len()], x.device())?;
    let cfg = LaunchConfig {
        grid: (n.clamp(1, 1 << 20) as u32, 1, 1),
        block: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let f = function::<T>(d, "ndi_rank_block")?;
    d.launch(&f, cfg)
        .arg(xc.dev_ptr()?)
        .arg(out.dev_ptr_mut()?)
        .arg(n as i64)
        .arg(shape.len() as i32)
        .arg(dims)
        .arg(offs.dev_ptr()?)
        .arg(pts.len() as i64)
        .arg(rank as i64)
        .arg(mode.code())
        .arg(T::to_w(cval))
        .run()?;
    Ok(out)
}

// ---------------------------------------------------------------- the front ends

pub(super) fn rank_points(
    op: &str,
    input: &Array<impl Real>,
    fp: &Footprint,
    opts: &FilterOptions,
) -> Result<Points> {
    let axes = norm_axes(op, &opts.axes, input.ndim())?;
    let pts = match fp {
        Footprint::Size(s) => {
            if s.is_empty() {
                return Err(make::arg(op, "no size given"));
            }
            let sizes = per_axis(op, "size", s, axes.len(), 1)?;
            points(
                op,
                input.ndim(),
                &axes,
                &sizes,
                &opts.origin,
                |_| true,
                |_| 1.0,
            )?
        }
        Footprint::Mask(m) => {
            let mv = m.to_vec()?;
            points(
                op,
                input.ndim(),
                &axes,
                m.shape(),
                &opts.origin,
                |i| mv[i],
                |_| 1.0,
            )?
        }
    };
    if pts.len() == 0 {
        return Err(make::arg(op, "the footprint selects no element"));
    }
    if pts.len() > i32::MAX as usize {
        return Err(make::arg(op, "footprint too large"));
    }
    Ok(pts)
}

/// The `r`-th smallest of the `pts` of `footprint`. With a mode sequence (`opts.modes`), SciPy's
/// route: ranks 0 and last of a box footprint (a size or an all-true mask) run as the separable
/// minimum or maximum filter with the box's sizes, origins and modes on their input axes; other
/// cases refuse the sequence (SciPy's RuntimeError).
fn rank_select<T: Real>(
    op: &str,
    input: &Array<T>,
    pts: &Points,
    r: usize,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<T>> {
    if opts.modes.is_empty() {
        return ranknd(input, pts, r, opts.mode, opts.cval);
    }
    let n = pts.len();
    let boxed = if r == 0 || r + 1 == n {
        rank_box(op, input.ndim(), footprint, opts)?
    } else {
        None
    };
    let Some((size, o)) = boxed else {
        return Err(make::arg(
            op,
            "a sequence of modes is supported only for the first or last rank of a box footprint \
             (SciPy's separable minimum/maximum route)",
        ));
    };
    separable(op, input, &size, &o, if r == 0 { Op::Min } else { Op::Max })
}

/// A rank filter's box footprint (a size, or an all-true mask) as SciPy's `_rank_filter` hands
/// it to the minimum/maximum filter for the first and last ranks: sizes per input axis (the
/// footprint on the filtered axes in increasing order, `_expand_footprint`), with options whose
/// origins and modes are per input axis ([`expand_origin`]; `_expand_mode`: in the order of
/// `axes`) and `axes` none. `None` for a mask that is not all true.
pub(crate) fn rank_box(
    op: &str,
    nd: usize,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Option<(Vec<usize>, FilterOptions)>> {
    let axes = norm_axes(op, &opts.axes, nd)?;
    let fshape = match footprint {
        Footprint::Size(s) => per_axis(op, "size", s, axes.len(), 1)?,
        Footprint::Mask(m) => {
            if !m.to_vec()?.iter().all(|&b| b) {
                return Ok(None);
            }
            m.shape().to_vec()
        }
    };
    check_rank(op, "footprint", fshape.len(), axes.len())?;
    let origin = per_axis(op, "origin", &opts.origin, axes.len(), 0)?;
    let mut size = vec![1usize; nd];
    for (k, &a) in footprint_axes(&axes).iter().enumerate() {
        size[a] = fshape[k];
    }
    let full_origin = expand_origin(&origin, &axes, nd, 0);
    let modes = if opts.modes.is_empty() {
        Vec::new()
    } else {
        let modes = axis_modes(op, opts.mode, &opts.modes, axes.len())?;
        let mut full = vec![Mode::Constant; nd];
        for (k, &a) in axes.iter().enumerate() {
            full[a] = modes[k];
        }
        full
    };
    let o = FilterOptions {
        origin: full_origin,
        axes: None,
        modes,
        ..opts.clone()
    };
    Ok(Some((size, o)))
}

/// Rank filter (`scipy.ndimage.rank_filter`): the `rank`-th smallest value of the footprint
/// (negative ranks count from the largest). NaN sorts after every number.
///
/// # Errors
/// `InvalidArgument` when the rank is outside the footprint; as [`minimum_filter`](crate::minimum_filter) otherwise.
///
/// ```
/// use cusci_ndimage::{rank_filter, Footprint, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![5.0f64, 1.0, 4.0, 2.0, 3.0], &[5], &Device::Cpu).unwrap();
/// let y = rank_filter(&x, 1, &Footprint::Size(vec![3]), &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![5.0, 4.0, 2.0, 3.0, 3.0]);
/// ```
pub fn rank_filter<T: Real>(
    input: &Array<T>,
    rank: isize,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<T>> {
    if T::DTYPE == DType::Bool {
        return rank_filter_as::<T, T>(input, rank, footprint, opts);
    }
    let op = "rank_filter";
    let pts = rank_points(op, input, footprint, opts)?;
    let n = pts.len() as isize;
    let r = if rank < 0 { rank + n } else { rank };
    if r < 0 || r >= n {
        return Err(make::arg(
            op,
            format!("rank {rank} not within the footprint size {n}"),
        ));
    }
    rank_select(op, input, &pts, r as usize, footprint, opts)
}

/// Median filter (`scipy.ndimage.median_filter`): rank `n / 2` of the `n` footprint points.
///
/// # Errors
/// As [`rank_filter`].
///
/// ```
/// use cusci_ndimage::{median_filter, Footprint, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f32, 9.0, 2.0, 8.0, 3.0], &[5], &Device::Cpu).unwrap();
/// let y = median_filter(&x, &Footprint::Size(vec![3]), &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![1.0, 2.0, 8.0, 3.0, 3.0]);
/// ```
pub fn median_filter<T: Real>(
    input: &Array<T>,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<T>> {
    if T::DTYPE == DType::Bool {
        return median_filter_as::<T, T>(input, footprint, opts);
    }
    let op = "median_filter";
    let pts = rank_points(op, input, footprint, opts)?;
    let r = pts.len() / 2;
    rank_select(op, input, &pts, r, footprint, opts)
}

/// Percentile filter (`scipy.ndimage.percentile_filter`): rank `⌊n · p / 100⌋` (p = 100: the
/// largest); negative percentiles count from 100.
///
/// # Errors
/// `InvalidArgument` for a percentile outside [−100, 100]; as [`rank_filter`] otherwise.
///
/// ```
/// use cusci_ndimage::{percentile_filter, Footprint, FilterOptions, Array, Device};
/// let x = Array::from_vec(vec![5.0f64, 1.0, 4.0, 2.0, 3.0], &[5], &Device::Cpu).unwrap();
/// let y = percentile_filter(&x, 100.0, &Footprint::Size(vec![3]), &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![5.0, 5.0, 4.0, 4.0, 3.0]);
/// ```
pub fn percentile_filter<T: Real>(
    input: &Array<T>,
    percentile: f64,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<T>> {
    if T::DTYPE == DType::Bool {
        return percentile_filter_as::<T, T>(input, percentile, footprint, opts);
    }
    let op = "percentile_filter";
    let mut p = percentile;
    if p < 0.0 {
        p += 100.0;
    }
    if !(0.0..=100.0).contains(&p) {
        return Err(make::arg(op, format!("invalid percentile {percentile}")));
    }
    let pts = rank_points(op, input, footprint, opts)?;
    let n = pts.len();
    let r = if p == 100.0 {
        n - 1
    } else {
        ((n as f64) * p / 100.0) as usize
    };
    rank_select(op, input, &pts, r.min(n - 1), footprint, opts)
}

// ---------------------------------------------------------------- with SciPy's output dtype

/// The number of footprint elements (SciPy's `filter_size`).
fn footprint_count(op: &str, ndim: usize, fp: &Footprint, opts: &FilterOptions) -> Result<usize> {
    let n = match fp {
        Footprint::Size(s) => {
            if s.is_empty() {
                return Err(make::arg(op, "no size given"));
            }
            let nax = norm_axes(op, &opts.axes, ndim)?.len();
            checked_numel(op, &per_axis(op, "size", s, nax, 1)?)?
        }
        Footprint::Mask(m) => m.to_vec()?.iter().filter(|&&b| b).count(),
    };
    if n == 0 {
        return Err(make::arg(op, "the footprint selects no element"));
    }
    Ok(n)
}

/// SciPy's route for a rank: the minimum or maximum filter at the ends, else the selection.
fn rank_as<I: Element, O: Element>(
    op: &str,
    input: &Array<I>,
    rank: usize,
    n: usize,
    fp: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    if rank == 0 || rank == n - 1 {
        // SciPy's `_rank_filter` hands the footprint expanded to every axis (a box on the
        // filtered axes in increasing order) with `axes=None` to the minimum/maximum filter
        let max = rank != 0;
        return match rank_box(op, input.ndim(), fp, opts)? {
            Some((size, o)) => minmax_as(op, input, &Footprint::Size(size), &o, max),
            None => minmax_as(op, input, fp, opts, max),
        };
    }
    if rank_1d_route(op, input.ndim(), input.size(), fp, opts)? {
        return rank_1d_as(op, input, rank, fp, opts);
    }
    let o = FilterOptions {
        cval: input_cval::<I>(op, opts.cval)?,
        ..opts.clone()
    };
    single(op, input, |x| rank_filter(x, rank as isize, fp, &o))
}

/// Whether SciPy 1.17 takes its 1-D rank route (`_rank_filter_1d`) for a selection that is not
/// the minimum or maximum: a 1-D input whose window (the footprint's full length, zeros
/// included) does not reach more than the line's length past it, or a single element.
fn rank_1d_route(
    op: &str,
    nd: usize,
    n: usize,
    fp: &Footprint,
    opts: &FilterOptions,
) -> Result<bool> {
    if nd != 1 {
        return Ok(false);
    }
    let len = match fp {
        Footprint::Size(s) => per_axis(op, "size", s, 1, 1)?[0],
        Footprint::Mask(m) => m.size(),
    };
    let origin = per_axis(op, "origin", &opts.origin, 1, 0)?[0];
    Ok(n as i64 - ((len as i64 - 1) / 2 - origin as i64) >= 0 || n == 1)
}

/// SciPy's 1-D rank route for a 1-D input: an integer or bool input is filtered as i64, `cval`
/// converted by `numpy.int64` (truncated; NaN or out of range is SciPy's ValueError or
/// OverflowError, an `InvalidArgument` here); a bool, u8 or i32 input's i64 result is copied
/// into the output with NumPy's casts (wrapped into u8 and i32, `!= 0` into bool), an i64
/// input's stored as the n-D route stores (SciPy writes i64 into the output buffer whatever its
/// type: difference (1) of the [module](super) doc); f32 and f64 inputs as the n-D route (`cval`
/// rounded to f32 for f32).
fn rank_1d_as<I: Element, O: Element>(
    op: &str,
    input: &Array<I>,
    rank: usize,
    fp: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let s = Store::of::<O>(op)?;
    let int = I::DTYPE.is_integer() || I::DTYPE == DType::Bool;
    let cval = if int {
        let c = opts.cval;
        if !(-9223372036854775808.0..9223372036854775808.0).contains(&c) {
            return Err(make::arg(
                op,
                format!("cval {c} cannot be converted to the integer filter type"),
            ));
        }
        c.trunc()
    } else {
        input_cval::<I>(op, opts.cval)?
    };
    let o = FilterOptions {
        cval,
        ..opts.clone()
    };
    let y = rank_filter(&load(op, input)?, rank as isize, fp, &o)?;
    let widened = int && I::DTYPE != DType::I64;
    finish(apply(
        y,
        if widened { copy_code::<I>(s) } else { s.code() },
    )?)
}

/// [`rank_filter`] with SciPy's `output` dtype: the `rank`-th smallest (negative: from the end)
/// in f64, stored into `O`; ranks 0 and last run as [`minimum_filter_as`] / [`maximum_filter_as`]
/// (SciPy's route).
///
/// # Errors
/// As [`rank_filter`]; `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{rank_filter_as, FilterOptions, Footprint, Array, Device};
/// let x = Array::from_vec(vec![4i32, 300, 500, 9, 7, 1], &[2, 3], &Device::Cpu).unwrap();
/// let y = rank_filter_as::<i32, u8>(&x, 1, &Footprint::Size(vec![1, 3]), &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![4, 44, 244, 9, 7, 1]); // 300 → 44, 500 → 244
/// ```
pub fn rank_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    rank: isize,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let op = "rank_filter";
    let n = footprint_count(op, input.ndim(), footprint, opts)?;
    let r = if rank < 0 { rank + n as isize } else { rank };
    if r < 0 || r >= n as isize {
        return Err(make::arg(
            op,
            format!("rank {rank} not within the footprint size {n}"),
        ));
    }
    rank_as(op, input, r as usize, n, footprint, opts)
}

/// [`median_filter`](crate::median_filter) with SciPy's `output` dtype (rank `n / 2` of the `n`
/// footprint elements, routed as [`rank_filter_as`]).
///
/// # Errors
/// As [`median_filter`](crate::median_filter); `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{median_filter_as, FilterOptions, Footprint, Array, Device};
/// let x = Array::from_vec(vec![10u8, 200, 30, 40, 250, 60], &[2, 3], &Device::Cpu).unwrap();
/// let y = median_filter_as::<u8, f32>(&x, &Footprint::Size(vec![1, 3]), &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![10.0, 30.0, 30.0, 40.0, 60.0, 60.0]);
/// ```
pub fn median_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let op = "median_filter";
    let n = footprint_count(op, input.ndim(), footprint, opts)?;
    rank_as(op, input, n / 2, n, footprint, opts)
}

/// [`percentile_filter`](crate::percentile_filter) with SciPy's `output` dtype (rank
/// `int(n · p / 100)`, `n − 1` for 100; negative `p` counts from 100).
///
/// # Errors
/// As [`percentile_filter`](crate::percentile_filter); `UnsupportedDType` for complex `I` or `O`.
///
/// ```
/// use cusci_ndimage::{percentile_filter_as, FilterOptions, Footprint, Array, Device};
/// let x = Array::from_vec(vec![5i64, 1, 4, 2, 3], &[1, 5], &Device::Cpu).unwrap();
/// let y = percentile_filter_as::<i64, f64>(&x, 50.0, &Footprint::Size(vec![1, 5]), &FilterOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![4.0, 4.0, 3.0, 3.0, 3.0]);
/// ```
pub fn percentile_filter_as<I: Element, O: Element>(
    input: &Array<I>,
    percentile: f64,
    footprint: &Footprint,
    opts: &FilterOptions,
) -> Result<Array<O>> {
    let op = "percentile_filter";
    let p = if percentile < 0.0 {
        percentile + 100.0
    } else {
        percentile
    };
    if !(0.0..=100.0).contains(&p) {
        return Err(make::arg(op, format!("invalid percentile {percentile}")));
    }
    let n = footprint_count(op, input.ndim(), footprint, opts)?;
    let r = if p == 100.0 {
        n - 1
    } else {
        (((n as f64) * p / 100.0) as usize).min(n - 1)
    };
    rank_as(op, input, r, n, footprint, opts)
}
