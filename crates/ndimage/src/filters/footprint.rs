//! The n-D footprint (`correlate`, `convolve`, and `minimum_filter` / `maximum_filter` with a
//! footprint): weighted sum, minimum or maximum over the footprint's points. The CPU goes row by
//! row with the interior at fixed offsets; the GPU runs `ndi_corr_tiled2/3` (weighted sums of
//! 2-D and 3-D arrays: the input box of a tile in shared memory) or `ndi_filternd`.

use super::engine::{function, io, on_device, table, unravel, window_at, Op, Points, Real};
use crate::cuda::{dims8, linear, Dims8};
use crate::modes::Mode;
use crate::structure::step_index;
use cusci_core::dtype::DType;
use cusci_core::{Array, CudaDevice, KernelParam, LaunchConfig, Result};
use rayon::prelude::*;

/// n-D footprint: weighted sum, minimum or maximum over the points.
pub(crate) fn filternd<T: Real>(
    x: &Array<T>,
    pts: &Points,
    mode: Mode,
    cval: f64,
    op: Op,
) -> Result<Array<T>> {
    on_device(
        x,
        mode,
        |xv, mode| filternd_cpu(xv, x.shape(), pts, mode, cval, op),
        |d, mode| {
            if op == Op::Sum {
                if let Some(y) = corr_tiled(x, d, pts, mode, cval)? {
                    return Ok(y);
                }
            }
            filternd_cuda(x, d, pts, mode, cval, op)
        },
    )
}

/// The CUDA [`filternd`] through `ndi_filternd`: the points' offsets, linear offsets and weights
/// in device tables; elements whose whole footprint is inside skip the boundary mapping.
fn filternd_cuda<T: Real>(
    x: &Array<T>,
    d: &CudaDevice,
    pts: &Points,
    mode: Mode,
    cval: f64,
    op: Op,
) -> Result<Array<T>> {
    let shape = x.shape();
    let dims = dims8("ndimage filter", shape)?;
    let (xc, mut out) = io(x)?;
    let offs = Array::from_vec(pts.offs.clone(), &[pts.offs.len()], x.device())?;
    let (lin, lo, hi) = pts.linear(shape);
    let lin = Array::from_vec(lin, &[pts.len()], x.device())?;
    let wt = table::<T>(&pts.w, x.device())?;
    let f = function::<T>(d, "ndi_filternd")?;
    let n = x.size();
    d.launch(&f, linear(n))
        .arg(xc.dev_ptr()?)
        .arg(out.dev_ptr_mut()?)
        .arg(n as i64)
        .arg(shape.len() as i32)
        .arg(dims)
        .arg(offs.dev_ptr()?)
        .arg(lin.dev_ptr()?)
        .arg(Dims8(lo))
        .arg(Dims8(hi))
        .arg(wt.dev_ptr()?)
        .arg(pts.len() as i32)
        .arg(mode.code())
        .arg(T::to_w(cval))
        .arg(op as i32)
        .run()?;
    Ok(out)
}

/// The CPU's [`filternd`]: per output the points in order, `acc + w·v` from 0 (sums) or the
/// running minimum / maximum from the first point's value. Row by row (rows in parallel): the
/// columns whose whole footprint lies inside the array (in a row whose other coordinates are
/// inside too) point by point over blocks of columns, each point's input row slice read at its
/// fixed offset; the others one by one through the mode ([`windows_cpu`]'s arithmetic).
fn filternd_cpu<T: Real>(
    xv: &[T],
    shape: &[usize],
    pts: &Points,
    mode: Mode,
    cval: f64,
    op: Op,
) -> Vec<T> {
    const COLS: usize = 1024;
    let min = |acc: f64, v: f64| if v < acc { v } else { acc };
    let max = |acc: f64, v: f64| if v > acc { v } else { acc };
    let g = |buf: &mut [f64]| match op {
        Op::Sum => buf
            .iter()
            .zip(&pts.w)
            .fold(0.0, |acc, (&v, &w)| acc + w * v),
        Op::Min => buf[1..].iter().fold(buf[0], |a, &v| min(a, v)),
        Op::Max => buf[1..].iter().fold(buf[0], |a, &v| max(a, v)),
    };
    let nd = shape.len();
    let np = pts.len();
    if nd == 0 || np == 0 || xv.is_empty() {
        return windows_cpu(xv, shape, pts, mode, cval, g);
    }
    let last = nd - 1;
    let len = shape[last];
    let (lin, lo, hi) = pts.linear(shape);
    // the interior columns of a row whose other coordinates are inside
    let j0 = (-lo[last]).clamp(0, len as i64) as usize;
    let j1 = (len as i64 - hi[last]).clamp(j0 as i64, len as i64) as usize;
    let mut out = vec![T::from_f(0.0); xv.len()];
    let init = || (vec![0i64; nd], vec![0.0; np]);
    out.par_chunks_mut(len)
        .enumerate()
        .for_each_init(init, |(c, buf), (row, orow)| {
            unravel(row * len, shape, c);
            let inside = (0..last).all(|d| c[d] + lo[d] >= 0 && c[d] + hi[d] < shape[d] as i64);
            let (a, b) = if inside { (j0, j1) } else { (0, 0) };
            for j in (0..a).chain(b..len) {
                c[last] = j as i64;
                window_at(xv, shape, c, pts, mode, cval, buf);
                orow[j] = T::from_f(g(buf));
            }
            let base = (row * len) as i64;
            orow[a..b]
                .par_chunks_mut(COLS)
                .enumerate()
                .for_each(|(k, o)| {
                    let at = base + (a + k * COLS) as i64;
                    let mut acc = [0.0f64; COLS];
                    let acc = &mut acc[..o.len()];
                    for (p, &l) in lin.iter().enumerate() {
                        let src = &xv[(at + l) as usize..][..o.len()];
                        let w = pts.w[p];
                        match op {
                            Op::Sum => {
                                for (s, &v) in acc.iter_mut().zip(src) {
                                    *s += w * v.to_f();
                                }
                            }
                            _ if p == 0 => {
                                for (s, &v) in acc.iter_mut().zip(src) {
                                    *s = v.to_f();
                                }
                            }
                            Op::Min => {
                                for (s, &v) in acc.iter_mut().zip(src) {
                                    *s = min(*s, v.to_f());
                                }
                            }
                            Op::Max => {
                                for (s, &v) in acc.iter_mut().zip(src) {
                                    *s = max(*s, v.to_f());
                                }
                            }
                        }
                    }
                    for (y, &s) in o.iter_mut().zip(acc.iter()) {
                        *y = T::from_f(s);
                    }
                });
        });
    out
}

/// For every output element, chunks of them in parallel: the footprint's values (the points
/// in order, as f64) in a buffer, then `g` of them, stored as `T`. Outputs whose whole
/// footprint lies inside the array read at fixed flat offsets; the others map every point's
/// coordinates by the mode (`cval` outside in the constant modes).
pub(super) fn windows_cpu<T: Real>(
    xv: &[T],
    shape: &[usize],
    pts: &Points,
    mode: Mode,
    cval: f64,
    g: impl Fn(&mut [f64]) -> f64 + Sync,
) -> Vec<T> {
    const CHUNK: usize = 4096;
    let nd = shape.len();
    let np = pts.len();
    let Some(last) = nd.checked_sub(1) else {
        // a 0-d array: every point is the element itself
        return vec![T::from_f(g(&mut vec![xv[0].to_f(); np]))];
    };
    let (lin, lo, hi) = pts.linear(shape);
    // every point of output c inside along the axes before the last
    let rows_in =
        |c: &[i64]| (0..last).all(|d| c[d] + lo[d] >= 0 && c[d] + hi[d] < shape[d] as i64);
    let mut out = vec![T::from_f(0.0); xv.len()];
    let init = || (vec![0i64; nd], vec![0.0; np]);
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each_init(init, |(c, buf), (ci, ch)| {
            unravel(ci * CHUNK, shape, c);
            let mut row_in = rows_in(c);
            for (k, o) in ch.iter_mut().enumerate() {
                let i = (ci * CHUNK + k) as i64;
                let cl = c[last];
                if row_in && cl + lo[last] >= 0 && cl + hi[last] < shape[last] as i64 {
                    for (b, &l) in buf.iter_mut().zip(&lin) {
                        *b = xv[(i + l) as usize].to_f();
                    }
                } else {
                    window_at(xv, shape, c, pts, mode, cval, buf);
                }
                *o = T::from_f(g(buf));
                step_index(c, shape);
                if c[last] == 0 {
                    row_in = rows_in(c);
                }
            }
        });
    out
}

/// Points of the tiled correlation by value (`NdiTilePts` of filters.cu, W = f32 or f64).
#[repr(C)]
#[derive(Clone, Copy)]
struct TilePts<W: Copy> {
    so: [i32; TILE_PTS],
    w: [W; TILE_PTS],
}

// SAFETY: plain data with the layout of filters.cu's `struct NdiTilePts { int so[256]; W w[256]; }`
// (W the module's working type, which `Real::W` is).
unsafe impl<W: KernelParam> KernelParam for TilePts<W> {}

/// Most footprint points the tiled correlation takes (its points travel as kernel parameters).
const TILE_PTS: usize = 256;

/// The weighted sum of [`filternd`] on a 2-D or 3-D CUDA array through `ndi_corr_tiled2/3` (the
/// input box of a tile in shared memory, the points by value); `None` where it does not apply
/// (other ranks, more than 256 points, a bounding box too large for 48 KiB of shared memory).
fn corr_tiled<T: Real>(
    x: &Array<T>,
    d: &CudaDevice,
    pts: &Points,
    mode: Mode,
    cval: f64,
) -> Result<Option<Array<T>>> {
    let shape = x.shape().to_vec();
    let nd = shape.len();
    if !(nd == 2 || nd == 3) || pts.len() == 0 || pts.len() > TILE_PTS {
        return Ok(None);
    }
    let (_, lo, hi) = pts.linear(&shape);
    // as 3-D: (D0, D1, D2) with D0 = 1 for 2-D
    let k = 3 - nd;
    let mut dims = [1i64; 3];
    let mut l3 = [0i64; 3];
    let mut e3 = [0i64; 3];
    for a in 0..nd {
        dims[a + k] = shape[a] as i64;
        l3[a + k] = lo[a];
        e3[a + k] = hi[a] - lo[a];
    }
    if e3.iter().chain(l3.iter()).any(|v| v.abs() > 1 << 20) {
        return Ok(None);
    }
    let tz = if nd == 3 { 4 } else { 1 };
    let ws = if T::DTYPE == DType::F32 { 4 } else { 8 };
    let (sz, sy, sx) = (tz + e3[0], 8 + e3[1], 32 + e3[2]);
    let smem = (sz * sy * sx) as usize * ws;
    if smem > 48 * 1024 {
        return Ok(None);
    }
    let mut so = [0i32; TILE_PTS];
    for (s, off) in so.iter_mut().zip(pts.offs.chunks_exact(nd)) {
        let mut o = [0i64; 3];
        for (a, &v) in off.iter().enumerate() {
            o[a + k] = v - l3[a + k];
        }
        *s = ((o[0] * sy + o[1]) * sx + o[2]) as i32;
    }
    let mut w = [T::to_w(0.0); TILE_PTS];
    for (t, &v) in w.iter_mut().zip(&pts.w) {
        *t = T::to_w(v);
    }
    let mode = mode.for_filter();
    let (xc, mut out) = io(x)?;
    let f = function::<T>(
        d,
        if nd == 3 {
            "ndi_corr_tiled3"
        } else {
            "ndi_corr_tiled2"
        },
    )?;
    let tiles = (dims[2] as usize).div_ceil(32)
        * (dims[1] as usize).div_ceil(8)
        * (dims[0] as usize).div_ceil(tz as usize);
    let cfg = LaunchConfig {
        grid: (tiles.clamp(1, 1 << 20) as u32, 1, 1),
        block: (32, 8, 1),
        shared_mem_bytes: smem as u32,
    };
    d.launch(&f, cfg)
        .arg(xc.dev_ptr()?)
        .arg(out.dev_ptr_mut()?)
        .arg(dims[0])
        .arg(dims[1])
        .arg(dims[2])
        .arg(l3[0] as i32)
        .arg(l3[1] as i32)
        .arg(l3[2] as i32)
        .arg(e3[0] as i32)
        .arg(e3[1] as i32)
        .arg(e3[2] as i32)
        .arg(TilePts { so, w })
        .arg(pts.len() as i32)
        .arg(mode.code())
        .arg(T::to_w(cval))
        .run()?;
    Ok(Some(out))
}
