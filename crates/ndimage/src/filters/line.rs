//! The 1-D window along one axis (`correlate1d`, `uniform_filter1d`, `minimum_filter1d`, ... and
//! every pass of the separable filters): `out[i] = op_k(w[k] · x[i + k − shift])`, divided by
//! `div` for sums. The CPU follows SciPy's order of the sums ([`SumOrder`]); the GPU runs
//! `ndi_filter1d_tiled` (the tile and its halo in shared memory) or `ndi_filter1d`.

use super::engine::{function, io, on_device, weights, Op, Real};
use crate::cuda::linear;
use crate::modes::Mode;
use cusci_core::dtype::DType;
use cusci_core::{Array, CudaDevice, LaunchConfig, Result};
use rayon::prelude::*;

/// A 1-D window along `axis`: the weights `w`, the input position of tap 0 relative to the
/// output (`-shift`), the boundary mode with its `cval`, the divisor of sums and the operation.
#[derive(Clone, Copy)]
pub(crate) struct Line<'a> {
    pub axis: usize,
    pub w: &'a [f64],
    pub shift: i64,
    pub mode: Mode,
    pub cval: f64,
    pub div: f64,
    pub op: Op,
}

/// The window `line` over `x`: `out[i] = op_k(w[k] · x[i + k − shift])`, divided by `div` for
/// sums.
pub(crate) fn filter1d<T: Real>(x: &Array<T>, line: &Line) -> Result<Array<T>> {
    let shape = x.shape();
    let len = shape[line.axis];
    let inner: usize = shape[line.axis + 1..].iter().product();
    on_device(
        x,
        line.mode,
        |xv, mode| {
            let pass = Win1d {
                len,
                inner,
                w: line.w,
                shift: line.shift,
                mode,
                cval: line.cval,
                div: line.div,
                op: line.op,
            };
            pass.run(xv)
        },
        |d, mode| filter1d_cuda(d, x, len, inner, &Line { mode, ..*line }),
    )
}

/// The CUDA [`filter1d`] over `x` viewed as (outer, `len`, `inner`): tiled where
/// [`tile_plan`] gives a tile (coalesced loads and stores), else one thread per output.
fn filter1d_cuda<T: Real>(
    d: &CudaDevice,
    x: &Array<T>,
    len: usize,
    inner: usize,
    l: &Line,
) -> Result<Array<T>> {
    let n = x.size();
    let wl = l.w.len();
    let outer = n / (len * inner);
    let (xc, mut out) = io(x)?;
    let (table, taps) = weights::<T>(l.w, x.device())?;
    let wt = table.as_ref().map(|t| t.dev_ptr()).transpose()?;
    // the tiled kernel counts the outer lines and takes the tile after the common arguments;
    // the other counts the outputs
    let tile = tile_plan::<T>(inner, wl);
    let (name, cfg, count) = match tile {
        Some((tl, tis, smem)) => {
            let ntiles = outer * len.div_ceil(tl) * inner.div_ceil(1 << tis);
            let mut cfg = LaunchConfig::linear(ntiles.clamp(1, 1 << 20) as u32, TILE_THREADS);
            cfg.shared_mem_bytes = smem as u32;
            ("ndi_filter1d_tiled", cfg, outer)
        }
        None => ("ndi_filter1d", linear(n), n),
    };
    let f = function::<T>(d, name)?;
    let launch = d
        .launch(&f, cfg)
        .arg(xc.dev_ptr()?)
        .arg(out.dev_ptr_mut()?)
        .arg(count as i64)
        .arg(len as i64)
        .arg(inner as i64)
        .arg(wt)
        .arg(taps)
        .arg(wl as i32)
        .arg(l.shift as i32)
        .arg(l.mode.code())
        .arg(T::to_w(l.cval))
        .arg(T::to_w(l.div))
        .arg(l.op as i32);
    match tile {
        Some((tl, tis, _)) => launch.arg(tl as i32).arg(tis as i32).run()?,
        None => launch.run()?,
    }
    Ok(out)
}

/// The inner extent (elements after the filtered axis) from which the CPU filters an axis row
/// by row rather than line by line ([`Win1d::run`]).
const CPU_ROWS_MIN: usize = 16;

/// The CPU's [`filter1d`] pass over an array viewed as (outer, len, inner).
struct Win1d<'a> {
    len: usize,
    inner: usize,
    w: &'a [f64],
    shift: i64,
    mode: Mode,
    cval: f64,
    div: f64,
    op: Op,
}

impl Win1d<'_> {
    /// The pass over `xv`, read as f64 and stored as `T`. Row by row where `inner` ≥
    /// [`CPU_ROWS_MIN`]: one task per output row (`inner` contiguous elements), each a sum (or
    /// min/max) over the window's mapped input rows, taps in order, in an f64 row; rows in
    /// parallel and contiguous loads whatever the axis. Else line by line: each line along the
    /// axis extended by the mode into an f64 buffer, then the window slid over it; outer blocks
    /// in parallel.
    fn run<T: Real>(&self, xv: &[T]) -> Vec<T> {
        let Win1d {
            len,
            inner,
            w,
            shift,
            mode,
            cval,
            div,
            op,
        } = *self;
        let wl = w.len();
        if wl == 0 {
            // no taps (the public functions refuse them): the empty sum
            return vec![T::from_f(0.0 / div); xv.len()];
        }
        let mut out = vec![T::from_f(0.0); xv.len()];
        let order = SumOrder::of(w);
        if inner < CPU_ROWS_MIN {
            // positions -shift .. len - shift + wl - 1 of the line, extended by the mode
            let line_init = || vec![0.0; len + wl - 1];
            out.par_chunks_mut(len * inner)
                .zip(xv.par_chunks(len * inner))
                .for_each_init(line_init, |line, (block, src)| {
                    // the positions whose input index lies on the line, then the rest mapped
                    let lo = shift.clamp(0, line.len() as i64) as usize;
                    let hi = (shift + len as i64).clamp(lo as i64, line.len() as i64) as usize;
                    for j in 0..inner {
                        // input index p - shift for position p: p + first at lo
                        let first = (lo as i64 - shift) as usize;
                        for (p, l) in line[lo..hi].iter_mut().enumerate() {
                            *l = src[(p + first) * inner + j].to_f();
                        }
                        for p in (0..lo).chain(hi..line.len()) {
                            line[p] = match mode.map_index(p as i64 - shift, len as i64) {
                                Some(s) => src[s as usize * inner + j].to_f(),
                                None => cval,
                            };
                        }
                        for (i, win) in line.windows(wl).enumerate() {
                            block[i * inner + j] = T::from_f(match op {
                                Op::Sum => order.sum(win, w) / div,
                                Op::Min => win[1..]
                                    .iter()
                                    .fold(win[0], |a, &b| if b < a { b } else { a }),
                                Op::Max => win[1..]
                                    .iter()
                                    .fold(win[0], |a, &b| if b > a { b } else { a }),
                            });
                        }
                    }
                });
            return out;
        }
        // per rayon task: the rows under the taps (None: cval, only in the constant modes) and
        // the f64 output row
        let init = || (Vec::<Option<&[T]>>::with_capacity(wl), vec![0.0; inner]);
        out.par_chunks_mut(inner)
            .enumerate()
            .for_each_init(init, |(rows, acc), (r, orow)| {
                let (o, i) = (r / len, r % len);
                let base = o * len * inner;
                rows.clear();
                rows.extend((0..wl).map(|k| {
                    let src = mode.map_index(i as i64 + k as i64 - shift, len as i64);
                    src.map(|s| &xv[base + s as usize * inner..][..inner])
                }));
                match op {
                    Op::Sum => {
                        order.sum_rows(acc, rows, w, cval);
                        if div != 1.0 {
                            for a in acc.iter_mut() {
                                *a /= div;
                            }
                        }
                    }
                    Op::Min | Op::Max => {
                        let max = op == Op::Max;
                        row_op(acc, rows[0], cval, |_, x| x);
                        for &row in &rows[1..] {
                            row_op(acc, row, cval, |a, x| {
                                if (max && x > a) || (!max && x < a) {
                                    x
                                } else {
                                    a
                                }
                            });
                        }
                    }
                }
                for (o, &a) in orow.iter_mut().zip(acc.iter()) {
                    *o = T::from_f(a);
                }
            });
        out
    }
}

/// `acc[j] = f(acc[j], r[j])` over a row, `r` read as f64 (`None`: `cval` everywhere).
#[inline(always)]
fn row_op<T: Real>(acc: &mut [f64], r: Option<&[T]>, cval: f64, f: impl Fn(f64, f64) -> f64) {
    match r {
        Some(r) => {
            for (o, &x) in acc.iter_mut().zip(r) {
                *o = f(*o, x.to_f());
            }
        }
        None => {
            for o in acc.iter_mut() {
                *o = f(*o, cval);
            }
        }
    }
}

/// `acc[j] = f(acc[j], a[j], b[j])` over a row, `a` and `b` read as f64 (`None`: `cval`
/// everywhere): one loop per case, so that each vectorises.
#[inline(always)]
fn rows_op<T: Real>(
    acc: &mut [f64],
    a: Option<&[T]>,
    b: Option<&[T]>,
    cval: f64,
    f: impl Fn(f64, f64, f64) -> f64,
) {
    match (a, b) {
        (Some(a), Some(b)) => {
            for ((o, &x), &y) in acc.iter_mut().zip(a).zip(b) {
                *o = f(*o, x.to_f(), y.to_f());
            }
        }
        (Some(a), None) => row_op(acc, Some(a), cval, |o, x| f(o, x, cval)),
        (None, Some(b)) => row_op(acc, Some(b), cval, |o, y| f(o, cval, y)),
        (None, None) => row_op::<T>(acc, None, cval, |o, _| f(o, cval, cval)),
    }
}

/// The order and grouping of SciPy's `correlate1d` sums (`NI_Correlate1D`), which the CPU
/// follows so that its f64 results are SciPy's bit for bit (which decides where an integer
/// output truncates a sum that is an integer in exact arithmetic, as over flat image regions).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum SumOrder {
    /// An odd window with weights symmetric about the centre within `f64::EPSILON`: the centre
    /// term, then `(x[c − j] + x[c + j]) · w[c − j]` from the outermost pair in.
    Symmetric,
    /// The same with antisymmetric weights: `(x[c − j] − x[c + j]) · w[c − j]`.
    Antisymmetric,
    /// Otherwise: the last tap, then the others in order.
    General,
}

impl SumOrder {
    fn of(w: &[f64]) -> SumOrder {
        let (n, c) = (w.len(), w.len() / 2);
        let mirrored =
            |sign: f64| (1..=c).all(|j| (w[c + j] - sign * w[c - j]).abs() <= f64::EPSILON);
        if n % 2 == 0 {
            SumOrder::General
        } else if mirrored(1.0) {
            SumOrder::Symmetric
        } else if mirrored(-1.0) {
            SumOrder::Antisymmetric
        } else {
            SumOrder::General
        }
    }

    /// `Σ_k w[k] · win[k]` in this order (`w` not empty). The pair of taps `c − j`, `c + j` is
    /// `(k, n − 1 − k)` with `k = c − j`, the outermost (`k = 0`) first.
    fn sum(self, win: &[f64], w: &[f64]) -> f64 {
        let (n, c) = (w.len(), w.len() / 2);
        let mut t;
        match self {
            SumOrder::Symmetric | SumOrder::Antisymmetric => {
                t = win[c] * w[c];
                let pairs = win[..c].iter().zip(win[c + 1..n].iter().rev()).zip(&w[..c]);
                if self == SumOrder::Symmetric {
                    for ((&a, &b), &wk) in pairs {
                        t += (a + b) * wk;
                    }
                } else {
                    for ((&a, &b), &wk) in pairs {
                        t += (a - b) * wk;
                    }
                }
            }
            SumOrder::General => {
                t = win[n - 1] * w[n - 1];
                for (&a, &wk) in win[..n - 1].iter().zip(&w[..n - 1]) {
                    t += a * wk;
                }
            }
        }
        t
    }

    /// The same sum for every column of `out`: `rows[k]` is the input row under tap `k`
    /// (`None`: `cval`; `w` not empty).
    fn sum_rows<T: Real>(self, out: &mut [f64], rows: &[Option<&[T]>], w: &[f64], cval: f64) {
        let (n, c) = (w.len(), w.len() / 2);
        let first = if self == SumOrder::General { n - 1 } else { c };
        let wf = w[first];
        row_op(out, rows[first], cval, |_, v| v * wf);
        match self {
            SumOrder::Symmetric => {
                for k in 0..c {
                    let wk = w[k];
                    rows_op(out, rows[k], rows[n - 1 - k], cval, |o, x, y| {
                        o + (x + y) * wk
                    });
                }
            }
            SumOrder::Antisymmetric => {
                for k in 0..c {
                    let wk = w[k];
                    rows_op(out, rows[k], rows[n - 1 - k], cval, |o, x, y| {
                        o + (x - y) * wk
                    });
                }
            }
            SumOrder::General => {
                for k in 0..n - 1 {
                    let wk = w[k];
                    row_op(out, rows[k], cval, |o, v| o + v * wk);
                }
            }
        }
    }
}

/// Threads per block of the tiled 1-D kernel.
const TILE_THREADS: u32 = 256;
/// Shared memory the tiled 1-D kernel may use per block (the default limit: no opt-in needed).
const TILE_SMEM: usize = 48 * 1024;

/// The tile of `ndi_filter1d_tiled` for an axis with `inner` elements after it and a window of
/// `wl` taps: (positions along the axis, log2 of the inner positions, shared bytes), or `None`
/// where the plain kernel is used (an inner extent of 2..31, where 32-wide tiles would idle most
/// threads, or a window too long for a useful tile in shared memory).
fn tile_plan<T: Real>(inner: usize, wl: usize) -> Option<(usize, usize, usize)> {
    let ws = if T::DTYPE == DType::F32 { 4 } else { 8 };
    let tis = if inner == 1 {
        0
    } else if inner >= 32 {
        5
    } else {
        return None;
    };
    // about 8 outputs per thread, and a halo of at most a third of the tile where it fits
    let mut tl = (8 * TILE_THREADS as usize) >> tis;
    tl = tl.max(2 * wl.saturating_sub(1)).next_power_of_two();
    let bytes = |tl: usize| (wl + ((tl + wl - 1) << tis)) * ws;
    while tl > 16 && bytes(tl) > TILE_SMEM {
        tl /= 2;
    }
    if bytes(tl) > TILE_SMEM || tl < 16.max(wl / 4) {
        return None;
    }
    Some((tl, tis, bytes(tl)))
}
