//! The n-D rank selection (`rank_filter`, `median_filter`, `percentile_filter`): the `rank`-th
//! smallest value over the footprint's points, NaN last. The CPU selects per element; the GPU
//! runs the register selection networks `ndi_rank{N}` for small footprints, the radix selection
//! `ndi_rank_radix2` for large boxes over the last two axes, else `ndi_rank`.

use super::engine::{function, io, Points, Real};
use super::footprint::windows_cpu;
use crate::cuda::{dims8, linear, Dims8};
use crate::modes::Mode;
use cusci_core::dtype::DType;
use cusci_core::{Array, Backend, CudaDevice, Device, KernelParam, LaunchConfig, Result};

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
    let shape = x.shape().to_vec();
    if x.size() == 0 {
        return x.copy();
    }
    let mode = mode.for_filter();
    match x.backend() {
        Backend::Host(h) => {
            let xv = h.to_contiguous();
            let out = windows_cpu(&xv, &shape, pts, mode, cval, |buf| {
                if buf.iter().any(|v| v.is_nan()) {
                    *buf.select_nth_unstable_by_key(rank, |&v| rank_key(v)).1
                } else {
                    *buf.select_nth_unstable_by(rank, |a, b| {
                        a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal)
                    })
                    .1
                }
            });
            Array::from_vec(out, &shape, &Device::Cpu)
        }
        Backend::Cuda(c) => {
            let d = c.dev();
            if pts.len() > RANK_LOCAL {
                if let Some(y) = rank_radix(x, d, pts, rank, mode, cval)? {
                    return Ok(y);
                }
            }
            ranknd_cuda(x, d, pts, rank, mode, cval)
        }
    }
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

/// The CUDA [`ranknd`] through the register selection networks `ndi_rank{N}` (footprints of 3,
/// 5, 7, 9, 25 or 27 points, passed by value: no upload) or the generic `ndi_rank`.
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

/// Footprints of more points than this leave the generic kernel's register selection
/// (`NDI_RANK_LOCAL` of filters.cu) for [`rank_radix`] where they are boxes.
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
