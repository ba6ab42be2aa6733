//! The three primitives every filter of this module reduces to, on both devices:
//! a 1-D window along one axis (weighted sum, minimum, maximum), an n-D footprint (the same),
//! and an n-D rank selection. The CPU side computes in f64 with rayon over lines or elements;
//! the CUDA side runs the kernels of `filters.cu`.

use crate::modes::{Mode, MODES_CUH};
use crate::structure::step_index;
pub(crate) use crate::structure::unravel;
use cusci_core::cuda::kernel::{Args, LaunchConfig};
use cusci_core::device::CudaDevice;
use cusci_core::dtype::{DType, Element};
use cusci_core::error::make;
use cusci_core::{Array, Device, Result};
use rayon::prelude::*;

/// The element types the filters accept (SciPy's real types): f32, f64, i32, i64, u8.
/// Results keep the input's type; values are computed in f64 on the CPU (f32 kernels accumulate
/// in f32 on the GPU, as CuPy) and cast back (integers: truncated toward zero, saturated).
pub trait Real: Element + PartialOrd {
    /// The value as f64.
    fn to_f(self) -> f64;
    /// The f64 value cast to the type (truncation toward zero and saturation for integers, NaN → 0).
    fn from_f(v: f64) -> Self;
}
macro_rules! real {
    ($($t:ty),*) => {$(
        impl Real for $t {
            #[inline]
            fn to_f(self) -> f64 { self as f64 }
            #[inline]
            fn from_f(v: f64) -> Self { v as $t }
        }
    )*};
}
real!(f32, f64, i32, i64, u8);

/// The operation of a window.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Op {
    Sum = 0,
    Min = 1,
    Max = 2,
}

/// The CUDA source of the filter kernels, as compiled for one element type (for compile checks).
pub fn kernel_source(dtype: DType) -> String {
    let w = if dtype == DType::F32 {
        "float"
    } else {
        "double"
    };
    let wf32 = match dtype {
        DType::F32 => "#define NDI_WF32\n#define NDI_FLOAT_T\n",
        // the fused separable kernels (sep2d.cu) serve f32 and f64 only
        DType::F64 => "#define NDI_FLOAT_T\n",
        _ => "",
    };
    // the streaming kernels (stream2d.cu, f32 only) and their entry points
    let stream2 = if dtype == DType::F32 {
        format!("{}\n{}", include_str!("stream2d.cu"), stream2_entries())
    } else {
        String::new()
    };
    format!(
        "#define T {}\n#define W {w}\n{wf32}#define NDI_SEP2_PIPE {}\n#define NDI_SEP2_FLAT {}\n\
         #define NDI_SEP2_V4 {}\n#define NDI_SEP2_H4 {}\n{MODES_CUH}\n{}\n{}\n{stream2}",
        dtype.cuda_name(),
        SEP2_PIPE as i32,
        SEP2_FLAT as i32,
        SEP2_V4 as i32,
        SEP2_H4 as i32,
        include_str!("filters.cu"),
        include_str!("sep2d.cu")
    )
}

fn function(
    d: &CudaDevice,
    dtype: DType,
    name: &str,
) -> Result<cusci_core::cuda::kernel::Function> {
    let key = format!("ndi_filters_{}", dtype.tag());
    d.function(&key, || kernel_source(dtype), &[], name)
}

pub(crate) fn launch_cfg(n: usize) -> LaunchConfig {
    let blocks = n.div_ceil(256).clamp(1, 1 << 20) as u32;
    LaunchConfig::linear(blocks, 256)
}

/// Weights (or any f64 table) on the device in the working type of `T`.
fn push_w<T: Real>(args: &mut Args, v: f64) {
    if T::DTYPE == DType::F32 {
        args.push(v as f32);
    } else {
        args.push(v);
    }
}

fn device_table<T: Real>(v: &[f64], dev: &Device) -> Result<WTable> {
    let v = if v.is_empty() { vec![0.0] } else { v.to_vec() };
    if T::DTYPE == DType::F32 {
        let f: Vec<f32> = v.iter().map(|&a| a as f32).collect();
        let n = f.len();
        Ok(WTable::F32(Array::from_vec(f, &[n], dev)?))
    } else {
        let n = v.len();
        Ok(WTable::F64(Array::from_vec(v, &[n], dev)?))
    }
}

enum WTable {
    F32(Array<f32>),
    F64(Array<f64>),
}

/// Weights of a window as kernel arguments: a device table pointer (0 for none) followed by the
/// by-value `NdiTaps` (up to 64 weights: then no table is uploaded, so the call does not
/// synchronise with the host). The table, if any, must live until the launch is queued.
fn push_taps<T: Real>(args: &mut Args, w: &[f64], dev: &Device) -> Result<Option<WTable>> {
    if w.len() <= TAPS {
        args.push(0u64);
        if T::DTYPE == DType::F32 {
            let mut t = [0f32; TAPS];
            for (a, b) in t.iter_mut().zip(w) {
                *a = *b as f32;
            }
            args.push(t);
        } else {
            let mut t = [0f64; TAPS];
            t[..w.len()].copy_from_slice(w);
            args.push(t);
        }
        Ok(None)
    } else {
        let wt = device_table::<T>(w, dev)?;
        args.push(wt.ptr());
        if T::DTYPE == DType::F32 {
            args.push([0f32; TAPS]);
        } else {
            args.push([0f64; TAPS]);
        }
        Ok(Some(wt))
    }
}

/// Weights `NdiTaps` holds by value.
const TAPS: usize = 64;
impl WTable {
    fn ptr(&self) -> u64 {
        match self {
            WTable::F32(a) => a.cuda_view().map(|v| v.ptr).unwrap_or(0),
            WTable::F64(a) => a.cuda_view().map(|v| v.ptr).unwrap_or(0),
        }
    }
}

pub(crate) fn to_f64<T: Real>(x: &Array<T>) -> Result<Vec<f64>> {
    Ok(x.to_vec()?.into_iter().map(Real::to_f).collect())
}

pub(crate) fn from_f64<T: Real>(v: Vec<f64>, shape: &[usize]) -> Result<Array<T>> {
    let t: Vec<T> = v.into_par_iter().map(T::from_f).collect();
    Array::from_vec(t, shape, &Device::Cpu)
}

/// A fresh output array of the input's shape on its device, plus the contiguous input.
pub(crate) fn gpu_io<T: Real>(x: &Array<T>) -> Result<(Array<T>, Array<T>, u64, u64)> {
    let xc = x.contiguous()?;
    // every element is written by the kernels
    let out = Array::<T>::empty(x.shape(), x.device())?;
    let xp = xc.cuda_view().map(|v| v.ptr).unwrap_or(0);
    let op = out.cuda_view().map(|v| v.ptr).unwrap_or(0);
    Ok((xc, out, xp, op))
}

/// 1-D window along `axis`: `out[i] = op_k(w[k] · x[i + k − shift])`, divided by `div` for sums.
#[allow(clippy::too_many_arguments)]
pub(crate) fn filter1d<T: Real>(
    x: &Array<T>,
    axis: usize,
    w: &[f64],
    shift: i64,
    mode: Mode,
    cval: f64,
    div: f64,
    op: Op,
) -> Result<Array<T>> {
    let shape = x.shape().to_vec();
    if x.size() == 0 {
        return x.copy();
    }
    let len = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let mode = mode.for_filter();
    match x.device() {
        Device::Cpu => {
            let xc = x.contiguous()?;
            let xv = &xc.cpu_data().expect("a CPU array")[..x.size()];
            let pass = Win1d {
                len,
                inner,
                w,
                shift,
                mode,
                cval,
                div,
                op,
            };
            Array::from_vec(pass.run(xv), &shape, &Device::Cpu)
        }
        Device::Cuda(d) => {
            let (_xc, out, xp, op_) = gpu_io(x)?;
            let n = x.size();
            let wl = w.len();
            let outer = n / (len * inner);
            if let Some((tl, tis, smem)) = tile_plan::<T>(inner, wl) {
                // tiled: the tile and its halo in shared memory, coalesced loads and stores
                let f = function(d, T::DTYPE, "ndi_filter1d_tiled")?;
                let ntiles = outer * len.div_ceil(tl) * inner.div_ceil(1 << tis);
                let mut a = Args::new();
                a.push(xp)
                    .push(op_)
                    .push(outer as i64)
                    .push(len as i64)
                    .push(inner as i64);
                let _wt = push_taps::<T>(&mut a, w, x.device())?;
                a.push(wl as i32).push(shift as i32).push(mode.code());
                push_w::<T>(&mut a, cval);
                push_w::<T>(&mut a, div);
                a.push(op as i32).push(tl as i32).push(tis as i32);
                let mut cfg = LaunchConfig::linear(ntiles.clamp(1, 1 << 20) as u32, TILE_THREADS);
                cfg.shared_mem_bytes = smem as u32;
                f.launch(d, cfg, &mut a)?;
                return Ok(out);
            }
            let f = function(d, T::DTYPE, "ndi_filter1d")?;
            let mut a = Args::new();
            a.push(xp)
                .push(op_)
                .push(n as i64)
                .push(len as i64)
                .push(inner as i64);
            let _wt = push_taps::<T>(&mut a, w, x.device())?;
            a.push(wl as i32).push(shift as i32).push(mode.code());
            push_w::<T>(&mut a, cval);
            push_w::<T>(&mut a, div);
            a.push(op as i32);
            f.launch(d, launch_cfg(n), &mut a)?;
            Ok(out)
        }
    }
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

/// A footprint as a list of points: `offs[p*ndim + d]` (relative to the output element, centre
/// and origin applied) and a weight per point.
pub(crate) struct Points {
    pub offs: Vec<i64>,
    pub w: Vec<f64>,
}

impl Points {
    pub fn len(&self) -> usize {
        self.w.len()
    }

    /// Per point the offset in the C-contiguous array of `shape`, and per axis the smallest and
    /// largest offset (the interior test of the GPU kernels).
    fn linear(&self, shape: &[usize]) -> (Vec<i64>, [i64; 8], [i64; 8]) {
        let nd = shape.len();
        let mut lo = [0i64; 8];
        let mut hi = [0i64; 8];
        let mut lin = Vec::with_capacity(self.len());
        for p in 0..self.len() {
            let o = &self.offs[p * nd..(p + 1) * nd];
            let mut l = 0i64;
            for d in 0..nd {
                l = l * shape[d] as i64 + o[d];
                if p == 0 || o[d] < lo[d] {
                    lo[d] = o[d];
                }
                if p == 0 || o[d] > hi[d] {
                    hi[d] = o[d];
                }
            }
            lin.push(l);
        }
        (lin, lo, hi)
    }
}

#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct Dims8([i64; 8]);

/// The points of a small footprint by value (`NdiSmallPts` of filters.cu).
#[repr(C)]
#[derive(Clone, Copy)]
struct SmallPts {
    lin: [i64; 27],
    off: [i64; 27 * 8],
}

pub(crate) fn dims8(op: &str, shape: &[usize]) -> Result<Dims8> {
    if shape.len() > 8 {
        return Err(make::arg(op, "more than 8 dimensions"));
    }
    let mut d = [1i64; 8];
    for (a, &s) in d.iter_mut().zip(shape) {
        *a = s as i64;
    }
    Ok(Dims8(d))
}

/// The values of the footprint `pts` around the element at coordinates `c` into `buf` (the
/// points in order, as f64): each point's coordinates mapped by the mode, `cval` where the mode
/// puts it outside.
pub(crate) fn window_at<T: Real>(
    xv: &[T],
    shape: &[usize],
    c: &[i64],
    pts: &Points,
    mode: Mode,
    cval: f64,
    buf: &mut [f64],
) {
    let nd = shape.len();
    if nd == 0 {
        // a 0-d array: every point is the element itself
        buf.fill(xv[0].to_f());
        return;
    }
    'points: for (off, b) in pts.offs.chunks_exact(nd).zip(buf.iter_mut()) {
        let mut lin = 0usize;
        for d in 0..nd {
            match mode.map_index(c[d] + off[d], shape[d] as i64) {
                Some(j) => lin = lin * shape[d] + j as usize,
                None => {
                    *b = cval;
                    continue 'points;
                }
            }
        }
        *b = xv[lin].to_f();
    }
}

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

/// n-D footprint: weighted sum, minimum or maximum over the points.
pub(crate) fn filternd<T: Real>(
    x: &Array<T>,
    pts: &Points,
    mode: Mode,
    cval: f64,
    op: Op,
) -> Result<Array<T>> {
    let shape = x.shape().to_vec();
    if x.size() == 0 {
        return x.copy();
    }
    let nd = shape.len();
    let mode = mode.for_filter();
    match x.device() {
        Device::Cpu => {
            let xc = x.contiguous()?;
            let xv = &xc.cpu_data().expect("a CPU array")[..x.size()];
            let out = filternd_cpu(xv, &shape, pts, mode, cval, op);
            Array::from_vec(out, &shape, &Device::Cpu)
        }
        Device::Cuda(d) => {
            let dims = dims8("ndimage filter", &shape)?;
            if op == Op::Sum {
                if let Some(y) = corr_tiled(x, d, pts, mode, cval)? {
                    return Ok(y);
                }
            }
            let (_xc, out, xp, op_) = gpu_io(x)?;
            let offs = Array::from_vec(pts.offs.clone(), &[pts.offs.len()], x.device())?;
            let (lin, lo, hi) = pts.linear(&shape);
            let lin = Array::from_vec(lin, &[pts.len()], x.device())?;
            let wt = device_table::<T>(&pts.w, x.device())?;
            let f = function(d, T::DTYPE, "ndi_filternd")?;
            let n = x.size();
            let mut a = Args::new();
            a.push(xp)
                .push(op_)
                .push(n as i64)
                .push(nd as i32)
                .push(dims);
            a.push(offs.cuda_view().map(|v| v.ptr).unwrap_or(0));
            a.push(lin.cuda_view().map(|v| v.ptr).unwrap_or(0));
            a.push(Dims8(lo)).push(Dims8(hi));
            a.push(wt.ptr()).push(pts.len() as i32).push(mode.code());
            push_w::<T>(&mut a, cval);
            a.push(op as i32);
            f.launch(d, launch_cfg(n), &mut a)?;
            Ok(out)
        }
    }
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
fn windows_cpu<T: Real>(
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
    let mode = mode.for_filter();
    let (_xc, out, xp, op_) = gpu_io(x)?;
    let f = function(
        d,
        T::DTYPE,
        if nd == 3 {
            "ndi_corr_tiled3"
        } else {
            "ndi_corr_tiled2"
        },
    )?;
    let mut a = Args::new();
    a.push(xp).push(op_);
    a.push(dims[0]).push(dims[1]).push(dims[2]);
    for v in l3.iter().chain(e3.iter()) {
        a.push(*v as i32);
    }
    if T::DTYPE == DType::F32 {
        let mut w = [0f32; TILE_PTS];
        for (t, v) in w.iter_mut().zip(&pts.w) {
            *t = *v as f32;
        }
        a.push(TilePts { so, w });
    } else {
        let mut w = [0f64; TILE_PTS];
        w[..pts.len()].copy_from_slice(&pts.w);
        a.push(TilePts { so, w });
    }
    a.push(pts.len() as i32).push(mode.code());
    push_w::<T>(&mut a, cval);
    let tiles = (dims[2] as usize).div_ceil(32)
        * (dims[1] as usize).div_ceil(8)
        * (dims[0] as usize).div_ceil(tz as usize);
    let cfg = LaunchConfig {
        grid: (tiles.clamp(1, 1 << 20) as u32, 1, 1),
        block: (32, 8, 1),
        shared_mem_bytes: smem as u32,
    };
    f.launch(d, cfg, &mut a)?;
    Ok(Some(out))
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
    let nd = shape.len();
    let mode = mode.for_filter();
    match x.device() {
        Device::Cpu => {
            let xc = x.contiguous()?;
            let xv = &xc.cpu_data().expect("a CPU array")[..x.size()];
            let out = windows_cpu(xv, &shape, pts, mode, cval, |buf| {
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
        Device::Cuda(d) => {
            if pts.len() > RANK_LOCAL {
                if let Some(y) = rank_radix(x, d, pts, rank, mode, cval)? {
                    return Ok(y);
                }
            }
            let dims = dims8("ndimage rank filter", &shape)?;
            let (_xc, out, xp, op_) = gpu_io(x)?;
            let n = x.size();
            let mut a = Args::new();
            a.push(xp)
                .push(op_)
                .push(n as i64)
                .push(nd as i32)
                .push(dims);
            // small footprints: the register selection networks, the points passed by value
            // (no upload); others: the generic kernel
            let small = [3usize, 5, 7, 9, 25, 27].contains(&pts.len()) && nd <= 8;
            let _offs;
            let f = if small {
                let (lin, lo, hi) = pts.linear(&shape);
                let mut sp = SmallPts {
                    lin: [0; 27],
                    off: [0; 27 * 8],
                };
                sp.lin[..lin.len()].copy_from_slice(&lin);
                sp.off[..pts.offs.len()].copy_from_slice(&pts.offs);
                a.push(sp).push(Dims8(lo)).push(Dims8(hi));
                a.push(rank as i32).push(mode.code());
                _offs = None;
                function(d, T::DTYPE, &format!("ndi_rank{}", pts.len()))?
            } else {
                let offs = Array::from_vec(pts.offs.clone(), &[pts.offs.len()], x.device())?;
                a.push(offs.cuda_view().map(|v| v.ptr).unwrap_or(0));
                a.push(pts.len() as i32).push(rank as i32).push(mode.code());
                _offs = Some(offs);
                function(d, T::DTYPE, "ndi_rank")?
            };
            push_w::<T>(&mut a, cval);
            f.launch(d, launch_cfg(n), &mut a)?;
            drop(_offs);
            Ok(out)
        }
    }
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
    let (_xc, out, xp, op_) = gpu_io(x)?;
    let tiles = planes * h.div_ceil(ty) * wd.div_ceil(tx);
    let mut a = Args::new();
    a.push(xp)
        .push(op_)
        .push(planes as i64)
        .push(h as i64)
        .push(wd as i64)
        .push(sh as i32)
        .push(sw as i32)
        .push(lo[0])
        .push(lo[1])
        .push(rank as i32)
        .push(mode.code());
    push_w::<T>(&mut a, cval);
    let cfg = LaunchConfig {
        grid: (tiles.clamp(1, 1 << 20) as u32, 1, 1),
        block: (tx as u32, ty as u32, 1),
        shared_mem_bytes: smem as u32,
    };
    function(d, T::DTYPE, "ndi_rank_radix2")?.launch(d, cfg, &mut a)?;
    Ok(Some(out))
}

/// One weighted-sum pass of a separable filter: `filter1d(x, axis, w, shift, mode, .., div, Sum)`.
pub(crate) struct Pass {
    pub axis: usize,
    pub w: Vec<f64>,
    pub shift: i64,
    pub div: f64,
    /// The boundary mode of this pass (SciPy's per-axis `mode` sequences).
    pub mode: Mode,
}

/// Weighted-sum passes applied in order (a copy of `x` for none). On a CUDA device, for f32 and
/// f64, two consecutive passes over the last two axes run as one fused kernel, the first that
/// applies of:
/// - f32 with the vertical (axis `nd - 2`) pass first, both windows of the same length in
///   `STREAM2_TAPS` (3, 5, 7, 9) with the centred horizontal shift `(n - 1) / 2` (sobel and
///   prewitt along axis `nd - 2`, odd uniform windows and small gaussians with origin 0), a
///   C-contiguous input: the streaming kernel `ndi_stream2f{N}` of `stream2d.cu`
///   ([`stream2`]; 16-byte copies and stores where the width is a multiple of 4 and both arrays
///   are aligned, else the scalar variant `ndi_stream2f{N}s` where `STREAM2_SCALAR` compiles it);
/// - `ndi_sep2f{NB}` of `sep2d.cu` for windows of up to 33 taps ([`sep2`]);
/// - else `ndi_sep2d` ([`sep2d`]).
///
/// Each keeps the intermediate on chip (cval outside the plane in the constant modes, as the
/// second sequential pass reads it) and does the same arithmetic in the given order, so all give
/// the same result, bit for bit, in every mode and plane size. The fused kernels take one mode
/// for both passes, so a pair runs fused only when both passes have the same (filter) mode
/// (per-axis mode sequences otherwise run pass by pass). The remaining passes run as
/// [`filter1d`] passes, each with its own mode.
pub(crate) fn sum_passes<T: Real>(x: &Array<T>, passes: &[Pass], cval: f64) -> Result<Array<T>> {
    let nd = x.ndim();
    let mut cur: Option<Array<T>> = None;
    let mut k = 0;
    while k < passes.len() {
        let src = cur.as_ref().unwrap_or(x);
        if k + 1 < passes.len() && x.device().is_cuda() && x.size() > 0 && nd >= 2 {
            let (p, q) = (&passes[k], &passes[k + 1]);
            let last2 = |a: usize| a + 2 >= nd;
            let mode = p.mode.for_filter();
            if last2(p.axis) && last2(q.axis) && p.axis != q.axis && q.mode.for_filter() == mode {
                let mut fused = stream2(src, p, q, mode, cval)?;
                if fused.is_none() {
                    fused = sep2(src, p, q, mode, cval)?;
                }
                if fused.is_none() {
                    fused = sep2d(src, p, q, mode, cval)?;
                }
                if let Some(y) = fused {
                    cur = Some(y);
                    k += 2;
                    continue;
                }
            }
        }
        let p = &passes[k];
        cur = Some(filter1d(
            src,
            p.axis,
            &p.w,
            p.shift,
            p.mode,
            cval,
            p.div,
            Op::Sum,
        )?);
        k += 1;
    }
    match cur {
        Some(c) => Ok(c),
        None => x.copy(),
    }
}

/// Tap-count buckets of the register-blocked fused kernel `ndi_sep2f{NB}` (taps unrolled up to
/// NB; windows of up to 33 taps, gaussian radius 16).
const SEP2_BUCKETS: [usize; 5] = [3, 5, 9, 17, 33];
/// `NDI_SEP2_PIPE` of `sep2d.cu` as compiled here: with it, two input boxes per block (the next
/// tile's cp.async copies in flight while the block computes one) and a persistent grid.
const SEP2_PIPE: bool = false;
/// `NDI_SEP2_FLAT` of `sep2d.cu`: the box copy and the vertical passes spread over all threads.
const SEP2_FLAT: bool = false;
/// `NDI_SEP2_V4` of `sep2d.cu`: for f32 with the vertical pass first, a 16-byte aligned box
/// (16-byte copies) and float4 reads in the horizontal pass; its own pitches (`sep2_smem`).
const SEP2_V4: bool = false;
/// `NDI_SEP2_H4` of `sep2d.cu` (with `SEP2_V4`): the horizontal second pass 4 outputs per lane
/// along a row, float4 stores.
const SEP2_H4: bool = false;
/// Threads per block of `ndi_sep2f*`.
const SEP2_THREADS: u32 = 256;

/// Output tile (rows, columns) of `ndi_sep2f*` for `nb` unrolled taps on a `hh` x `wd` plane:
/// columns a multiple of 32, rows a multiple of 8. The H200 check of 2026-12-02 (f32 4096^2):
/// 32 x 128 fastest for 3 to 9 taps (sobel 0.065 ms against 0.082 for 32 x 64), 64 x 64 for the
/// 33-tap gaussian; narrow or short planes (batched n-D) get tiles no larger than they need.
fn sep2_tile(nb: usize, hh: usize, wd: usize) -> (usize, usize) {
    let (ty, tx) = if nb <= 9 { (32, 128) } else { (64, 64) };
    let tx = tx.min(wd.next_multiple_of(32));
    let ty = ty.min(hh.next_multiple_of(8));
    (ty, tx)
}

/// Dynamic shared memory of `ndi_sep2f*` (elements of the working type) for a `ty` x `tx` tile:
/// the input box (two with `SEP2_PIPE`) and the intermediate, with the row pitches of `sep2d.cu`
/// (odd; with `SEP2_V4` for f32 vertical-first, = 4 mod 8 and the box 16-byte aligned).
/// `sh` is the horizontal pass's shift (`0..nh`).
fn sep2_smem(
    ty: usize,
    tx: usize,
    nv: usize,
    nh: usize,
    sh: usize,
    vfirst: bool,
    f32: bool,
) -> usize {
    let (r, c) = (ty + nv - 1, tx + nh - 1);
    let boxes = 1 + SEP2_PIPE as usize;
    if SEP2_V4 && vfirst && f32 {
        let pitch4 = |n: usize| {
            let p = n.next_multiple_of(4);
            if p % 8 == 0 {
                p + 4
            } else {
                p
            }
        };
        let a = sh.next_multiple_of(4);
        let cb = a + tx + (nh - 1 - sh).next_multiple_of(4);
        return boxes * r * pitch4(cb) + ty * pitch4(c + 4);
    }
    let pi = c | 1;
    boxes * r * pi + if vfirst { ty * pi } else { r * (tx | 1) }
}

/// Weights as the `NdiTaps` kernel argument (by value) in the working type of `T`.
fn push_taps_value<T: Real>(args: &mut Args, w: &[f64]) {
    if T::DTYPE == DType::F32 {
        let mut t = [0f32; TAPS];
        for (a, b) in t.iter_mut().zip(w) {
            *a = *b as f32;
        }
        args.push(t);
    } else {
        let mut t = [0f64; TAPS];
        t[..w.len()].copy_from_slice(w);
        args.push(t);
    }
}

/// The register-blocked fused kernel (`ndi_sep2f{NB}`, `sep2d.cu`) for passes `p` then `q`
/// over the last two axes of an f32/f64 array: one block per output tile, the input box loaded
/// once into shared memory (boundary modes mapped there), both passes from shared memory, the
/// tile written once. `None` where it does not apply (integer types, windows over 33 taps).
fn sep2<T: Real>(
    x: &Array<T>,
    p: &Pass,
    q: &Pass,
    mode: Mode,
    cval: f64,
) -> Result<Option<Array<T>>> {
    if T::DTYPE != DType::F32 && T::DTYPE != DType::F64 {
        return Ok(None);
    }
    let Device::Cuda(d) = x.device() else {
        return Ok(None);
    };
    let nd = x.ndim();
    let vfirst = p.axis == nd - 2;
    let (v, h) = if vfirst { (p, q) } else { (q, p) };
    let (nv, nh) = (v.w.len(), h.w.len());
    let Some(&nb) = SEP2_BUCKETS.iter().find(|&&b| b >= nv.max(nh)) else {
        return Ok(None);
    };
    let (Ok(sv), Ok(shh)) = (i32::try_from(v.shift), i32::try_from(h.shift)) else {
        return Ok(None);
    };
    let ws = if T::DTYPE == DType::F32 { 4 } else { 8 };
    let shape = x.shape();
    let (hh, wd) = (shape[nd - 2], shape[nd - 1]);
    // Every mode and plane size: the kernel maps the halo per element (any offset, planes of
    // one row or column included) and keeps SciPy's pass order, whose constant-mode intermediate
    // is cval outside the plane. (The 2026-12-02 H200 "mismatch", sobel axis 1 in constant mode
    // on 1 x 37, was cupyx.scipy.ndimage.sobel itself: it runs the passes in axis order 0, 1, not
    // SciPy's derivative-axis-first order, which differs when cval != 0.)
    // shifts inside the windows (SciPy's origins always are; the V4 layout relies on it)
    if !(0..nv as i32).contains(&sv) || !(0..nh as i32).contains(&shh) {
        return Ok(None);
    }
    let f32 = T::DTYPE == DType::F32;
    let shu = shh as usize;
    let (mut ty, tx) = sep2_tile(nb, hh, wd);
    while ty > 8 && sep2_smem(ty, tx, nv, nh, shu, vfirst, f32) * ws > SEP2D_SMEM {
        ty = (ty / 2).next_multiple_of(8);
    }
    let smem = sep2_smem(ty, tx, nv, nh, shu, vfirst, f32) * ws;
    if smem > SEP2D_SMEM {
        return Ok(None);
    }
    let outer = x.size() / (hh * wd);
    let mode = mode.for_filter();
    let (_xc, out, xp, op_) = gpu_io(x)?;
    let f = function(d, T::DTYPE, &format!("ndi_sep2f{nb}"))?;
    let ntiles = outer * hh.div_ceil(ty) * wd.div_ceil(tx);
    // the pipelined kernel loops over tiles: as many blocks as can be resident at once (threads
    // and shared memory per SM: the opt-in block limit plus the 1 KiB the driver reserves per
    // block; the occupancy query would need the >48 KiB attribute set before the first launch)
    let grid = if SEP2_PIPE {
        let props = d.props();
        let by_smem = (props.max_shared_per_block_optin + 1024) / (smem + 1024);
        let per_sm = by_smem.clamp(1, 2048 / SEP2_THREADS as usize);
        ntiles.min(per_sm * props.multiprocessors.max(1))
    } else {
        ntiles
    };
    let mut a = Args::new();
    a.push(xp)
        .push(op_)
        .push(outer as i64)
        .push(hh as i64)
        .push(wd as i64);
    push_taps_value::<T>(&mut a, &v.w);
    a.push(nv as i32).push(sv);
    push_w::<T>(&mut a, v.div);
    push_taps_value::<T>(&mut a, &h.w);
    a.push(nh as i32).push(shh);
    push_w::<T>(&mut a, h.div);
    a.push(vfirst as i32).push(mode.code());
    push_w::<T>(&mut a, cval);
    a.push(ty as i32).push(tx as i32);
    let cfg = LaunchConfig {
        grid: (grid.clamp(1, 1 << 30) as u32, 1, 1),
        block: (SEP2_THREADS, 1, 1),
        shared_mem_bytes: smem as u32,
    };
    f.launch(d, cfg, &mut a)?;
    Ok(Some(out))
}

/// Shared memory the fused two-pass kernel may use per block (opt-in above 48 KiB; every GPU
/// of compute capability 7.0 or later allows 96 KiB).
const SEP2D_SMEM: usize = 96 * 1024;

/// The fused two-pass kernel for passes `p` then `q` over the last two axes, or `None` where it
/// does not apply (integer types, whose intermediate is rounded to the type, or windows too long
/// for a tile in shared memory).
fn sep2d<T: Real>(
    x: &Array<T>,
    p: &Pass,
    q: &Pass,
    mode: Mode,
    cval: f64,
) -> Result<Option<Array<T>>> {
    if T::DTYPE != DType::F32 && T::DTYPE != DType::F64 {
        return Ok(None);
    }
    let Device::Cuda(d) = x.device() else {
        return Ok(None);
    };
    let nd = x.ndim();
    let (v, h) = if p.axis == nd - 2 { (p, q) } else { (q, p) };
    let vfirst = p.axis == nd - 2;
    let ws = if T::DTYPE == DType::F32 { 4 } else { 8 };
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
        return Ok(None);
    }
    let shape = x.shape();
    let (hh, wd) = (shape[nd - 2], shape[nd - 1]);
    let outer = x.size() / (hh * wd);
    let mode = mode.for_filter();
    let (_xc, out, xp, op_) = gpu_io(x)?;
    let f = function(d, T::DTYPE, "ndi_sep2d")?;
    let ntiles = outer * hh.div_ceil(ty) * wd.div_ceil(tx);
    let mut a = Args::new();
    a.push(xp)
        .push(op_)
        .push(outer as i64)
        .push(hh as i64)
        .push(wd as i64);
    let _wvt = push_taps::<T>(&mut a, &v.w, x.device())?;
    a.push(nv as i32).push(v.shift as i32);
    push_w::<T>(&mut a, v.div);
    let _wht = push_taps::<T>(&mut a, &h.w, x.device())?;
    a.push(nh as i32).push(h.shift as i32);
    push_w::<T>(&mut a, h.div);
    a.push(vfirst as i32).push(mode.code());
    push_w::<T>(&mut a, cval);
    a.push(ty as i32).push(tx as i32);
    let cfg = LaunchConfig {
        grid: (ntiles.clamp(1, 1 << 20) as u32, 1, 1),
        block: (32, 8, 1),
        shared_mem_bytes: bytes(ty, tx) as u32,
    };
    f.launch(d, cfg, &mut a)?;
    Ok(Some(out))
}

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
/// Whether the scalar-access variants `ndi_stream2f{N}s` (`VEC = false`) are compiled too: they
/// serve widths not a multiple of 4 and unaligned arrays, which otherwise take `ndi_sep2f`.
const STREAM2_SCALAR: bool = true;

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

/// The `NDI_STREAM2` instantiations of the f32 module (`kernel_source`): per window length the
/// 16-byte variant with general and with unit weights, and the scalar variant (general weights,
/// which unit weights also take).
fn stream2_entries() -> String {
    let mut s = String::new();
    for &n in &STREAM2_TAPS {
        for (vec, unit) in [(true, false), (true, true), (false, false)] {
            if !vec && !STREAM2_SCALAR {
                continue;
            }
            s += &format!(
                "NDI_STREAM2({}, {n}, {n}, {}, {STREAM2_THREADS}, {vec}, {unit})\n",
                stream2_name(n, vec, unit),
                (n - 1) / 2,
            );
        }
    }
    s
}

thread_local! {
    /// `with_stream2_disabled` is running on this thread.
    static STREAM2_OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Launches of the streaming kernel from this thread.
    static STREAM2_LAUNCHES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Runs `f` with the streaming kernel (`stream2d.cu`) disabled on the calling thread, so that
/// the two-pass filters take `ndi_sep2f` instead: for tests comparing the two. Not
/// part of the API.
#[doc(hidden)]
pub fn with_stream2_disabled<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            STREAM2_OFF.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(STREAM2_OFF.with(|c| c.replace(true)));
    f()
}

/// How many times the calling thread launched the streaming kernel (`stream2d.cu`): for tests
/// checking which kernel a filter takes. Not part of the API.
#[doc(hidden)]
pub fn stream2_launches() -> usize {
    STREAM2_LAUNCHES.with(|c| c.get())
}

/// The streaming kernel (`ndi_stream2f{N}`, `stream2d.cu`) for passes `p` (vertical, axis
/// `nd - 2`) then `q` (horizontal) over the last two axes of a C-contiguous f32 array: a block
/// copies a strip of rows and its vertical halo once into shared memory, then its warps walk
/// consecutive parts of the strip in steps of 4 output rows. Weighted sums are the arithmetic of
/// `ndi_sep2f` (bit-identical); unit weights (uniform filters, 16-byte accesses) take the variant
/// `ndi_stream2f{N}u`, whose four neighbouring outputs share partial sums (the same values
/// added in another order: within a few ulps of the window's sums of magnitudes, never running
/// sums). `None` where it does not apply (see
/// [`sum_passes`]): other types, pass orders, window lengths or shifts, non-contiguous input, and
/// (without `STREAM2_SCALAR`) widths not a multiple of 4 or unaligned arrays.
fn stream2<T: Real>(
    x: &Array<T>,
    p: &Pass,
    q: &Pass,
    mode: Mode,
    cval: f64,
) -> Result<Option<Array<T>>> {
    if T::DTYPE != DType::F32 || STREAM2_OFF.with(|c| c.get()) {
        return Ok(None);
    }
    let Device::Cuda(d) = x.device() else {
        return Ok(None);
    };
    let nd = x.ndim();
    if nd < 2 || p.axis != nd - 2 || q.axis != nd - 1 || x.size() == 0 || !x.is_contiguous() {
        return Ok(None);
    }
    let n = p.w.len();
    if q.w.len() != n || !STREAM2_TAPS.contains(&n) {
        return Ok(None);
    }
    // the instantiated horizontal shift; the vertical one inside the window
    if q.shift != ((n - 1) / 2) as i64 || !(0..n as i64).contains(&p.shift) {
        return Ok(None);
    }
    let shape = x.shape();
    let (hh, wd) = (shape[nd - 2], shape[nd - 1]);
    let outer = x.size() / (hh * wd);
    let (_xc, out, xp, op_) = gpu_io(x)?;
    let vec = wd % 4 == 0 && xp % 16 == 0 && op_ % 16 == 0;
    if !vec && !STREAM2_SCALAR {
        return Ok(None);
    }
    // unit weights (uniform filters) take the variant with shared sums
    let unit = vec && p.w.iter().chain(&q.w).all(|&w| w as f32 == 1.0);
    // column bands side by side along the rows (120 output columns each), strips along grid.y,
    // planes along grid.z
    let Ok(gx) = u32::try_from(wd.div_ceil(120)) else {
        return Ok(None);
    };
    if gx > i32::MAX as u32 {
        return Ok(None);
    }
    let mode = mode.for_filter();
    let f = function(d, T::DTYPE, &stream2_name(n, vec, unit))?;
    let nst = stream2_strips(d, &f, n, hh, outer, gx as usize)?;
    // the tile: the longest strip's rows and the halo, 128 columns of 4 bytes each
    let smem = (hh / nst + n) * 512;
    let mut a = Args::new();
    a.push(xp)
        .push(op_)
        .push(outer as i64)
        .push(hh as i64)
        .push(wd as i64);
    push_taps_value::<T>(&mut a, &p.w);
    a.push(p.shift as i32);
    push_w::<T>(&mut a, p.div);
    push_taps_value::<T>(&mut a, &q.w);
    push_w::<T>(&mut a, q.div);
    a.push(mode.code());
    push_w::<T>(&mut a, cval);
    a.push(nst as i64)
        .push((hh / nst) as i64)
        .push((hh % nst) as i64);
    let cfg = LaunchConfig {
        grid: (gx, nst.clamp(1, 65535) as u32, outer.clamp(1, 65535) as u32),
        block: (STREAM2_THREADS, 1, 1),
        shared_mem_bytes: smem as u32,
    };
    f.launch(d, cfg, &mut a)?;
    STREAM2_LAUNCHES.with(|c| c.set(c.get() + 1));
    Ok(Some(out))
}

/// The strip count per plane of `hh` rows for the streaming kernel `f` of `n` taps (`gx` blocks
/// across a plane, `outer` planes): strips of about `STREAM2_STRIP_ROWS` rows, their number
/// rounded so that the blocks fill whole waves of the device's resident blocks where a launch
/// has few waves; in `1 ..= hh`, and strips of at most `STREAM2_MAX_STRIP_ROWS + 1` rows.
fn stream2_strips(
    d: &CudaDevice,
    f: &cusci_core::cuda::kernel::Function,
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
