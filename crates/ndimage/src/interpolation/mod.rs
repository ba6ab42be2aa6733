//! `scipy.ndimage` interpolation: B-spline prefilters and geometric transforms
//! (`map_coordinates`, `affine_transform`, `shift`, `zoom`, `rotate`), spline orders 0–5, every
//! boundary mode.
//!
//! Each output element is interpolated independently from the (prefiltered) input: one kernel
//! launch on a CUDA device (64-bit indices, shapes as arguments), rayon over elements on the CPU.
//! Coordinates are computed in f64 on both devices. Integer outputs are rounded half away from
//! zero (as SciPy). Memory: the output plus, for orders ≥ 2 with `prefilter`, one prefiltered copy
//! of the input (padded by 12 on each side for `nearest` and `grid-constant`, as SciPy; the
//! `grid-constant` padding holds `cval` stored in the input's type, as SciPy's `np.pad`).
//!
//! SciPy's `output=` dtype: [`output`] (`*_as::<In, Out>`, computed in f64, stored with SciPy's
//! rounding and clamping rules).

use crate::cuda::{dims8, linear, LaunchExt};
use crate::filters::Real;
use crate::modes::{Mode, MODES_CUH};
use cusci_core::array::layout::norm_axis;
use cusci_core::cuda::launch::{KernelModule, Spec};
use cusci_core::dtype::{DType, Element};
use cusci_core::error::make;
use cusci_core::{Array, Backend, CudaDevice, DevPtr, Device, Function, KernelParam, Result};
use rayon::prelude::*;

pub mod output;

/// Options of the geometric transforms (SciPy's `order`, `mode`, `cval`, `prefilter`).
#[derive(Debug, Clone, Copy)]
pub struct InterpOptions {
    /// Spline order, 0–5 (default 3).
    pub order: usize,
    /// Boundary mode (default `Constant`).
    pub mode: Mode,
    pub cval: f64,
    /// Apply the spline prefilter for orders ≥ 2 (default true; false when the input already
    /// holds spline coefficients).
    pub prefilter: bool,
}

impl Default for InterpOptions {
    fn default() -> Self {
        InterpOptions {
            order: 3,
            mode: Mode::Constant,
            cval: 0.0,
            prefilter: true,
        }
    }
}

/// The interpolation kernels (`interp.cuh`, `interpolation.cu`) for element type `T` and
/// working type `W`: `Spec::of(&[T, W])`; with `.with(&[rank, order])` also the transform kernel
/// `ndi_transform_r{rank}o{order}` (an input of rank 1–3, one spline order on every axis).
pub(crate) static INTERP: KernelModule = KernelModule {
    name: "ndimage_interp",
    source: |spec| {
        let (t, w) = (spec.dtype(0)?, spec.dtype(1)?);
        let round = if t.is_integer() {
            "#define NDI_ROUND\n"
        } else {
            ""
        };
        let mut s = format!(
            "#define T {}\n#define W {}\n{round}{MODES_CUH}\n{}\n{}",
            t.cuda_name(),
            w.cuda_name(),
            include_str!("interp.cuh"),
            include_str!("interpolation.cu")
        );
        if !spec.ints.is_empty() {
            let (rank, order) = (spec.int(0)?, spec.int(1)?);
            s += &format!("\nNDI_TRANSFORM_FIXED({rank}, {order})\n");
        }
        Ok(s)
    },
    options: &[],
    samples: || {
        let reals = [DType::F32, DType::F64, DType::I32, DType::I64, DType::U8];
        let mut v: Vec<Spec> = reals
            .into_iter()
            .flat_map(|t| [DType::F32, DType::F64].map(|w| Spec::of(&[t, w])))
            .collect();
        // every rank and order for f32 (the benchmarked type); other type pairs on a few
        for r in 1..=3 {
            for o in 0..=5 {
                v.push(Spec::of(&[DType::F32, DType::F32]).with(&[r, o]));
            }
        }
        v.push(Spec::of(&[DType::F64, DType::F64]).with(&[2, 3]));
        v.push(Spec::of(&[DType::U8, DType::F64]).with(&[1, 5]));
        v.push(Spec::of(&[DType::I32, DType::F64]).with(&[3, 1]));
        v
    },
};

// ---------------------------------------------------------------- CPU formulas (as interp.cuh)

/// 2^52: beyond it a double has no fractional part.
const TWO52: f64 = 4503599627370496.0;

fn trunc(v: f64) -> f64 {
    v.trunc()
}

/// SciPy's coordinate mapping; `None` where the value is `cval`. Mode nearest leaves the
/// coordinate alone: SciPy clamps each stencil index instead ([`stencil_index`]), which differs
/// from clamping the coordinate beyond the prefilter's 12-element padding (only |c| > 2^52,
/// where every stencil index is clamped anyway, is brought to ±2^52 so that it fits an i64).
fn map_coord(mut c: f64, n: i64, mode: Mode) -> Option<f64> {
    let nf = n as f64;
    match mode {
        Mode::Nearest => return Some(c.clamp(-TWO52, TWO52)),
        Mode::Constant => {
            return if c < 0.0 || c > nf - 1.0 {
                None
            } else {
                Some(c)
            }
        }
        Mode::GridConstant => return Some(c),
        _ => {}
    }
    if c < 0.0 {
        if n <= 1 {
            return Some(0.0);
        }
        match mode {
            Mode::Mirror => {
                let s = (2 * n - 2) as f64;
                c += s * trunc(-c / s);
                c = if c <= (1 - n) as f64 { c + s } else { -c };
            }
            Mode::Wrap => {
                let s = (n - 1) as f64;
                c += s * (trunc(-c / s) + 1.0);
            }
            Mode::GridWrap => c += nf * (trunc((-1.0 - c) / nf) + 1.0),
            _ => {
                let s = (2 * n) as f64;
                if c < -s {
                    c += s * trunc(-c / s);
                }
                c = if c < -nf { c + s } else { -c - 1.0 };
            }
        }
    } else if c > nf - 1.0 {
        if n <= 1 {
            return Some(0.0);
        }
        match mode {
            Mode::Mirror => {
                let s = (2 * n - 2) as f64;
                c -= s * trunc(c / s);
                if c >= nf {
                    c = s - c;
                }
            }
            Mode::Wrap => {
                let s = (n - 1) as f64;
                c -= s * trunc(c / s);
            }
            Mode::GridWrap => c -= nf * trunc(c / nf),
            _ => {
                let s = (2 * n) as f64;
                c -= s * trunc(c / s);
                if c >= nf {
                    c = s - c - 1.0;
                }
            }
        }
    }
    Some(c)
}

fn stencil_index(i: i64, n: i64, mode: Mode) -> Option<i64> {
    if (0..n).contains(&i) {
        return Some(i);
    }
    match mode {
        Mode::GridConstant => None,
        Mode::Nearest => Some(i.clamp(0, n - 1)),
        Mode::GridWrap => Mode::Wrap.map_index(i, n),
        Mode::Reflect | Mode::GridMirror => Mode::Reflect.map_index(i, n),
        _ => Mode::Mirror.map_index(i, n),
    }
}

/// B-spline weights (SciPy's get_spline_interpolation_weights); returns the first index.
fn spline_weights(mut x: f64, order: usize, w: &mut [f64; 6]) -> i64 {
    let fl = if order & 1 == 1 {
        x.floor()
    } else {
        (x + 0.5).floor()
    };
    let start = fl as i64 - (order / 2) as i64;
    x -= fl;
    let mut y = x;
    let mut z = 1.0 - x;
    let mut t;
    match order {
        0 => {}
        1 => w[0] = 1.0 - x,
        2 => {
            w[1] = 0.75 - x * x;
            z = 0.5 - x;
            w[0] = 0.5 * z * z;
        }
        3 => {
            w[1] = (y * y * (y - 2.0) * 3.0 + 4.0) / 6.0;
            w[2] = (z * z * (z - 2.0) * 3.0 + 4.0) / 6.0;
            w[0] = z * z * z / 6.0;
        }
        4 => {
            t = x * x;
            w[2] = t * (t * 0.25 - 0.625) + 115.0 / 192.0;
            y = 1.0 + x;
            w[1] = y * (y * (y * (5.0 - y) / 6.0 - 1.25) + 5.0 / 24.0) + 55.0 / 96.0;
            w[3] = z * (z * (z * (5.0 - z) / 6.0 - 1.25) + 5.0 / 24.0) + 55.0 / 96.0;
            t = 0.5 - x;
            t *= t;
            w[0] = t * t / 24.0;
        }
        _ => {
            t = y * y;
            w[2] = t * (t * (0.25 - y / 12.0) - 0.5) + 0.55;
            t = z * z;
            w[3] = t * (t * (0.25 - z / 12.0) - 0.5) + 0.55;
            y += 1.0;
            w[1] = y * (y * (y * (y * (y / 24.0 - 0.375) + 1.25) - 1.75) + 0.625) + 0.425;
            z += 1.0;
            w[4] = z * (z * (z * (z * (z / 24.0 - 0.375) + 1.25) - 1.75) + 0.625) + 0.425;
            z = 1.0 - x;
            t = z * z;
            w[0] = z * t * t / 120.0;
        }
    }
    w[order] = 1.0;
    for i in 0..order {
        w[order] -= w[i];
    }
    start
}

/// A stencil offset outside the input (the point reads `cval`).
const OUTSIDE: usize = usize::MAX;

/// One axis of a spline stencil: the weights of its points and their flat offsets
/// ([`OUTSIDE`]: cval).
#[derive(Clone, Copy)]
struct AxisStencil {
    w: [f64; 6],
    off: [usize; 6],
}

/// The stencil of coordinate `c` on an axis of `n` elements lying `stride` apart, written to
/// `st`; false where the mode maps the coordinate outside (the output is `cval`).
fn axis_stencil(
    c: f64,
    n: usize,
    stride: usize,
    order: usize,
    mode: Mode,
    st: &mut AxisStencil,
) -> bool {
    let Some(c) = map_coord(c, n as i64, mode) else {
        return false;
    };
    let start = spline_weights(c, order, &mut st.w);
    for (k, o) in st.off.iter_mut().enumerate().take(order + 1) {
        *o = match stencil_index(start + k as i64, n as i64, mode) {
            Some(j) => j as usize * stride,
            None => OUTSIDE,
        };
    }
    true
}

/// The interpolated value from the axes' stencils: the points in order, the last axis fastest,
/// each weight multiplied from the last axis to the first.
fn stencil_sum<S: std::borrow::Borrow<AxisStencil>>(
    x: &[f64],
    st: &[S],
    ords: &[usize],
    cval: f64,
) -> f64 {
    match st.len() {
        1 => stencil_sum_r::<S, 1>(x, st, ords, cval),
        2 => stencil_sum_r::<S, 2>(x, st, ords, cval),
        3 => stencil_sum_r::<S, 3>(x, st, ords, cval),
        _ => stencil_sum_r::<S, 8>(x, st, ords, cval),
    }
}

/// [`stencil_sum`] for `R` axes (`R` < 8: the loops over the axes unrolled), or any rank (8).
#[inline(always)]
fn stencil_sum_r<S: std::borrow::Borrow<AxisStencil>, const R: usize>(
    x: &[f64],
    st: &[S],
    ords: &[usize],
    cval: f64,
) -> f64 {
    let r = if R < 8 { R } else { st.len() };
    let mut k = [0usize; 8];
    let mut acc = 0.0;
    loop {
        let mut lin = 0usize;
        let mut inside = true;
        for d in 0..r {
            let o = st[d].borrow().off[k[d]];
            inside &= o != OUTSIDE;
            lin = lin.wrapping_add(o);
        }
        // SciPy's product: the value times the weights axis by axis, first axis first
        let mut v = if inside { x[lin] } else { cval };
        for d in 0..r {
            v *= st[d].borrow().w[k[d]];
        }
        acc += v;
        let mut d = r;
        loop {
            if d == 0 {
                return acc;
            }
            d -= 1;
            k[d] += 1;
            if k[d] <= ords[d] {
                break;
            }
            k[d] = 0;
        }
    }
}

/// The flat strides of a C-contiguous array of `shape`.
fn strides(shape: &[usize]) -> [usize; 8] {
    let mut s = [0usize; 8];
    let mut m = 1;
    for d in (0..shape.len()).rev() {
        s[d] = m;
        m *= shape[d];
    }
    s
}

/// A placeholder for the unused axes of a stencil array.
const NO_STENCIL: AxisStencil = AxisStencil {
    w: [0.0; 6],
    off: [OUTSIDE; 6],
};

/// The value at input coordinates `c` (one per axis of `ishape`).
fn interp_cpu(
    x: &[f64],
    ishape: &[usize],
    c: &[f64],
    ords: &[usize],
    mode: Mode,
    cval: f64,
) -> f64 {
    match ishape.len() {
        1 => interp_r::<1>(x, ishape, c, ords, mode, cval),
        2 => interp_r::<2>(x, ishape, c, ords, mode, cval),
        3 => interp_r::<3>(x, ishape, c, ords, mode, cval),
        _ => interp_r::<8>(x, ishape, c, ords, mode, cval),
    }
}

/// [`interp_cpu`] for `R` axes (`R` < 8: the loops over the axes unrolled), or any rank (8).
#[inline(always)]
fn interp_r<const R: usize>(
    x: &[f64],
    ishape: &[usize],
    c: &[f64],
    ords: &[usize],
    mode: Mode,
    cval: f64,
) -> f64 {
    let r = if R < 8 { R } else { ishape.len() };
    let stride = strides(ishape);
    let mut st = [NO_STENCIL; R];
    for d in 0..r {
        if !axis_stencil(c[d], ishape[d], stride[d], ords[d], mode, &mut st[d]) {
            return cval;
        }
    }
    stencil_sum_r::<_, R>(x, &st[..r], ords, cval)
}

/// The poles of the B-spline prefilter of `order`, correctly rounded (SciPy's constants): the
/// formulas in double would be a few ulps off (`sqrt(8) − 3` two, order 4's first about 40).
fn poles(order: usize) -> Vec<f64> {
    match order {
        // sqrt(8) − 3
        2 => vec![-0.1715728752538099],
        // sqrt(3) − 2
        3 => vec![-0.2679491924311227],
        // sqrt(664 ∓ sqrt(438976)) ± sqrt(304) − 19
        4 => vec![-0.36134122590022016, -0.013725429297339121],
        // sqrt(67.5 ∓ sqrt(4436.25)) ± sqrt(26.25) − 6.5
        5 => vec![-0.4305753470999738, -0.04309628820326465],
        _ => vec![],
    }
}

/// 0 mirror, 1 reflect, 2 wrap: the boundary of the prefilter for `mode` (as SciPy).
fn spline_init(mode: Mode) -> i32 {
    match mode {
        Mode::GridWrap => 2,
        Mode::Nearest | Mode::Reflect | Mode::GridMirror => 1,
        _ => 0,
    }
}

#[allow(clippy::needless_range_loop)]
fn spline_line(c: &mut [f64], poles: &[f64], init: i32) {
    let n = c.len();
    if n <= 1 {
        return;
    }
    let gain: f64 = poles.iter().map(|&z| (1.0 - z) * (1.0 - 1.0 / z)).product();
    c.iter_mut().for_each(|v| *v *= gain);
    for &z in poles {
        let c0 = c[0];
        match init {
            0 => {
                let zn1 = z.powf((n - 1) as f64);
                let mut zi = z;
                let mut s = c0 + zn1 * c[n - 1];
                for j in 1..n - 1 {
                    s += zi * (c[j] + zn1 * c[n - 1 - j]);
                    zi *= z;
                }
                c[0] = s / (1.0 - zn1 * zn1);
            }
            1 => {
                let zn = z.powf(n as f64);
                let mut zi = z;
                let mut s = c0 + zn * c[n - 1];
                for j in 1..n {
                    // SciPy accumulates in c[0] itself, so the last term reads the partial sum
                    let back = if j == n - 1 { s } else { c[n - 1 - j] };
                    s += zi * (c[j] + zn * back);
                    zi *= z;
                }
                s *= z / (1.0 - zn * zn);
                c[0] = s + c0;
            }
            _ => {
                let mut zi = z;
                let mut s = c0;
                for j in 1..n {
                    s += zi * c[n - j];
                    zi *= z;
                }
                c[0] = s / (1.0 - zi);
            }
        }
        for j in 1..n {
            c[j] += z * c[j - 1];
        }
        c[n - 1] = match init {
            0 => (z * c[n - 2] + c[n - 1]) * z / (z * z - 1.0),
            // SciPy's `c *= z / (z − 1)` (the quotient first), likewise for wrap
            1 => c[n - 1] * (z / (z - 1.0)),
            _ => {
                let mut zi = z;
                let mut s = c[n - 1];
                for j in 0..n - 1 {
                    s += zi * c[j];
                    zi *= z;
                }
                s * (z / (zi - 1.0))
            }
        };
        for j in (0..n - 1).rev() {
            c[j] = z * (c[j + 1] - c[j]);
        }
    }
}

/// The prefilter along `axis` of the C-contiguous `v` of `shape`, every line by
/// [`spline_line`]. Lines along the last axis are contiguous and run in parallel; lines with
/// elements after them (`inner` > 1) are gathered into a column-major copy of each outer block
/// (tasks of 8 neighbouring columns, each reading 8 contiguous values per row), filtered there,
/// and scattered back in groups of 8 rows.
fn spline_axis_cpu(v: &mut [f64], shape: &[usize], axis: usize, order: usize, mode: Mode) {
    const B: usize = 8;
    let len = shape[axis];
    if len <= 1 || order < 2 || v.is_empty() {
        return;
    }
    let inner: usize = shape[axis + 1..].iter().product();
    let p = poles(order);
    let init = spline_init(mode);
    if inner == 1 {
        v.par_chunks_mut(len)
            .for_each(|line| spline_line(line, &p, init));
        return;
    }
    v.par_chunks_mut(len * inner).for_each(|block| {
        // t[j * len + i]: column j's line
        let mut t = vec![0.0; len * inner];
        t.par_chunks_mut(B * len).enumerate().for_each(|(k, tb)| {
            let nb = tb.len() / len;
            for i in 0..len {
                let row = &block[i * inner + k * B..][..nb];
                for (b, &x) in row.iter().enumerate() {
                    tb[b * len + i] = x;
                }
            }
            for line in tb.chunks_mut(len) {
                spline_line(line, &p, init);
            }
        });
        block
            .par_chunks_mut(B * inner)
            .enumerate()
            .for_each(|(g, rows)| {
                let nr = rows.len() / inner;
                for j in 0..inner {
                    let col = &t[j * len + g * B..][..nr];
                    for (r, &x) in col.iter().enumerate() {
                        rows[r * inner + j] = x;
                    }
                }
            });
    });
}

// ---------------------------------------------------------------- the working input

/// How a transform prepares its input (SciPy's `_prepad_for_spline_filter` and `spline_filter`):
/// `npad` elements of padding on each side (edge values when `nearest`, else `cval`), then the
/// spline prefilter of `order` in `mode` along `axes` when `filter`.
#[derive(Clone, Copy)]
struct Prep<'a> {
    npad: usize,
    cval: f64,
    nearest: bool,
    order: usize,
    mode: Mode,
    filter: bool,
    axes: &'a [usize],
}

impl Prep<'_> {
    /// The shape of the padded input.
    fn shape(&self, ishape: &[usize]) -> Vec<usize> {
        ishape.iter().map(|&s| s + 2 * self.npad).collect()
    }
}

/// The CPU's working input: the input's C-order values `xv` (shape `ishape`) as f64, padded and
/// prefiltered as `p` says. Returns the data and its shape.
fn prepare_cpu(xv: Vec<f64>, ishape: &[usize], p: &Prep) -> (Vec<f64>, Vec<usize>) {
    let shape = p.shape(ishape);
    let npad = p.npad;
    let mut v = if npad == 0 {
        xv
    } else {
        let n: usize = shape.iter().product();
        (0..n)
            .into_par_iter()
            .map(|i| {
                let mut r = i;
                let mut lin = 0usize;
                let mut mul = 1usize;
                for d in (0..shape.len()).rev() {
                    let mut o = (r % shape[d]) as i64 - npad as i64;
                    r /= shape[d];
                    if o < 0 || o >= ishape[d] as i64 {
                        if !p.nearest {
                            return p.cval;
                        }
                        o = o.clamp(0, ishape[d] as i64 - 1);
                    }
                    lin += o as usize * mul;
                    mul *= ishape[d];
                }
                xv[lin]
            })
            .collect()
    };
    if p.filter {
        for &a in p.axes {
            spline_axis_cpu(&mut v, &shape, a, p.order, p.mode);
        }
    }
    (v, shape)
}

/// The GPU's working input in the working type `W`: the contiguous input itself where nothing is
/// to be done and it has that type already, else a padded, converted and prefiltered copy.
enum DevWork<T: Element, W: Element> {
    Input(Array<T>),
    Own(Array<W>),
}

impl<T: Element, W: Element> DevWork<T, W> {
    /// The working data for a kernel that reads it.
    fn ptr(&self) -> Result<DevPtr<'_, W>> {
        match self {
            DevWork::Input(a) => a.dev_ptr()?.cast::<W>(),
            DevWork::Own(a) => a.dev_ptr(),
        }
    }
}

/// The interpolation kernel `name` for element type `T` and working type `W`.
fn function<T: Element, W: Element>(d: &CudaDevice, name: &str) -> Result<Function> {
    INTERP.function(d, &Spec::of(&[T::DTYPE, W::DTYPE]), name)
}

/// The GPU's working input of `x` in the working type `W` (`ndi_pad`, then [`spline_cuda`]).
/// Returns it with its shape.
fn prepare_cuda<T: Real, W: Element>(
    d: &CudaDevice,
    x: &Array<T>,
    p: &Prep,
) -> Result<(DevWork<T, W>, Vec<usize>)> {
    let shape = p.shape(x.shape());
    let n: usize = shape.iter().product();
    let xc = x.contiguous()?;
    if p.npad == 0 && !p.filter && T::DTYPE == W::DTYPE {
        // the input itself (no conversion copy: it has the working type already)
        return Ok((DevWork::Input(xc), shape));
    }
    let mut w = Array::<W>::empty(&shape, x.device())?;
    if n > 0 {
        let f = function::<T, W>(d, "ndi_pad")?;
        d.launch(&f, linear(n))
            .arg(xc.dev_ptr()?)
            .arg(w.dev_ptr_mut()?)
            .arg(n as i64)
            .arg(shape.len() as i32)
            .arg(dims8("spline prefilter", x.shape())?)
            .arg(dims8("spline prefilter", &shape)?)
            .arg(p.npad as i64)
            .arg(p.nearest as i32)
            .arg(p.cval)
            .run()?;
        if p.filter {
            spline_cuda::<T, W>(d, &mut w, &shape, p)?;
        }
    }
    Ok((DevWork::Own(w), shape))
}

/// Chunk length of the GPU prefilter passes: about 2^18 threads or more, at least 32 positions.
fn spline_chunk(n: usize) -> usize {
    (n >> 18).next_power_of_two().clamp(32, 256)
}

/// Positions after which a pole's recursion has forgotten its start: |z|^warm < 1e-16.
fn spline_warm(z: f64) -> usize {
    ((1e-16f64).ln() / z.abs().ln()).ceil().max(1.0) as usize
}

/// The GPU spline prefilter of `work` (shape `shape`) along `p.axes` in place: per axis and pole
/// a causal pass into a scratch array and an anticausal pass back (chunked lines, see
/// `ndi_spline_causal`).
fn spline_cuda<T: Real, W: Element>(
    d: &CudaDevice,
    work: &mut Array<W>,
    shape: &[usize],
    p: &Prep,
) -> Result<()> {
    let n: usize = shape.iter().product();
    let mut scratch = Array::<W>::empty(shape, work.device())?;
    let poles = poles(p.order);
    let gain: f64 = poles.iter().map(|&z| (1.0 - z) * (1.0 - 1.0 / z)).product();
    let causal = function::<T, W>(d, "ndi_spline_causal")?;
    let anti = function::<T, W>(d, "ndi_spline_anticausal")?;
    let ch = spline_chunk(n);
    for &ax in p.axes {
        let len = shape[ax];
        if len <= 1 {
            continue;
        }
        let inner: usize = shape[ax + 1..].iter().product();
        let outer = n / (len * inner);
        let threads = outer * len.div_ceil(ch) * inner;
        let lc = linear(threads);
        for (k, &z) in poles.iter().enumerate() {
            let warm = spline_warm(z);
            let g = if k == 0 { gain } else { 1.0 };
            d.launch(&causal, lc)
                .arg(work.dev_ptr()?)
                .arg(scratch.dev_ptr_mut()?)
                .arg(outer as i64)
                .arg(len as i64)
                .arg(inner as i64)
                .arg(ch as i32)
                .arg(warm as i32)
                .arg(z)
                .arg(g)
                .arg(spline_init(p.mode))
                .run()?;
            d.launch(&anti, lc)
                .arg(scratch.dev_ptr()?)
                .arg(work.dev_ptr_mut()?)
                .arg(outer as i64)
                .arg(len as i64)
                .arg(inner as i64)
                .arg(ch as i32)
                .arg(warm as i32)
                .arg(z)
                .arg(spline_init(p.mode))
                .run()?;
        }
    }
    Ok(())
}

/// How output elements find their input coordinates.
enum Coords<'a, C: Real> {
    /// `coordinates[d, i]`: an array whose leading axis is the input's rank, on the input's
    /// device (read as f64 on the CPU, in the working type on the GPU).
    List(&'a Array<C>),
    /// `c = offset + M · (o + h)`: M row-major irank × orank, then the offset (irank values),
    /// then `h` (orank values: 0, or ½ for `zoom`'s grid mode, SciPy's `(o + ½) · z − ½`). Each
    /// product rounded, then added in axis order (no fused multiply-add), on both devices.
    Affine(Vec<f64>),
}

/// `InvalidArgument` unless `lo <= order <= 5` (SciPy's "spline order not supported").
pub(crate) fn check_order(op: &str, order: usize, lo: usize) -> Result<()> {
    if order < lo || order > 5 {
        return Err(make::arg(
            op,
            format!("spline order must be {lo} to 5, got {order}"),
        ));
    }
    Ok(())
}

/// The common body of every geometric transform.
fn transform<T: Real, C: Real>(
    op: &str,
    x: &Array<T>,
    oshape: &[usize],
    coords: Coords<C>,
    o: &InterpOptions,
    pad: Option<f64>,
) -> Result<Array<T>> {
    let ords = vec![o.order; x.ndim()];
    transform_axes(op, x, oshape, coords, o, &ords, pad)
}

/// `cval` as NumPy stores it into an array of `dtype` (`np.pad(input, ..., constant_values=cval)`
/// in SciPy's `_prepad_for_spline_filter`): f32 rounded, integers by the C casts of
/// [`crate::filters::output`] (u8 wraps through i32), bool `cval != 0`.
fn pad_value(cval: f64, dtype: DType) -> f64 {
    use crate::filters::output::{t32, t64};
    match dtype {
        DType::F32 => cval as f32 as f64,
        DType::I32 => t32(cval) as f64,
        DType::I64 => t64(cval) as f64,
        DType::U8 => t32(cval) as u8 as f64,
        DType::Bool => (cval != 0.0) as u8 as f64,
        _ => cval,
    }
}

/// A transform's plan: the output shape, the spline order per input axis, the options, and the
/// input's preparation.
struct Plan<'a> {
    op: &'a str,
    oshape: &'a [usize],
    ords: &'a [usize],
    o: &'a InterpOptions,
    prep: Prep<'a>,
}

/// [`transform`] with a spline order per input axis (0 on the axes a rotation leaves alone,
/// which are then neither prefiltered nor interpolated, as SciPy rotates plane by plane).
/// `pad`: the value of the 12-element padding of `grid-constant` before the prefilter (SciPy pads
/// in the input's type; default `cval` stored in `T`).
fn transform_axes<T: Real, C: Real>(
    op: &str,
    x: &Array<T>,
    oshape: &[usize],
    coords: Coords<C>,
    o: &InterpOptions,
    ords: &[usize],
    pad: Option<f64>,
) -> Result<Array<T>> {
    check_order(op, o.order, 0)?;
    let irank = x.ndim();
    if irank == 0 || oshape.is_empty() {
        // SciPy: RuntimeError('input and output rank must be > 0')
        return Err(make::arg(op, "input and output rank must be > 0"));
    }
    if irank > 8 || oshape.len() > 8 {
        return Err(make::arg(op, "the input must have 1 to 8 dimensions"));
    }
    let n: usize = oshape.iter().product();
    if x.size() == 0 && n > 0 {
        // SciPy fills with cval in the constant modes; in the others it reads outside the empty
        // input (undefined values) or raises
        if !matches!(o.mode, Mode::Constant | Mode::GridConstant) {
            return Err(make::arg(
                op,
                "cannot interpolate an empty input in a mode other than constant",
            ));
        }
        let v = if T::DTYPE.is_integer() {
            if o.cval < 0.0 {
                o.cval - 0.5
            } else {
                o.cval + 0.5
            }
        } else {
            o.cval
        };
        return Array::from_vec(vec![T::from_f(v); n], oshape, &Device::Cpu)?.to_device(x.device());
    }
    let filter = o.prefilter && o.order > 1;
    // SciPy pads by 12 for mode nearest with the prefilter; padded with its edge values, the
    // input also serves without the prefilter (the stencil's clamped indices read the same
    // values), so it is padded for orders above 1 either way
    let npad =
        if (filter && o.mode == Mode::GridConstant) || (o.mode == Mode::Nearest && o.order > 1) {
            12
        } else {
            0
        };
    let axes: Vec<usize> = (0..irank).filter(|&a| ords[a] > 1).collect();
    if n == 0 {
        return Array::<T>::zeros(oshape, x.device());
    }
    let plan = Plan {
        op,
        oshape,
        ords,
        o,
        prep: Prep {
            npad,
            cval: pad.unwrap_or_else(|| pad_value(o.cval, T::DTYPE)),
            nearest: o.mode == Mode::Nearest,
            order: o.order,
            mode: o.mode,
            filter,
            axes: &axes,
        },
    };
    match x.backend() {
        Backend::Host(h) => {
            let xv: Vec<f64> = h.to_contiguous().iter().map(|v| v.to_f()).collect();
            let list: Option<Vec<f64>> = match coords {
                Coords::List(c) => Some(c.to_vec()?.into_iter().map(Real::to_f).collect()),
                Coords::Affine(_) => None,
            };
            let m = match &coords {
                Coords::Affine(m) => Some(&m[..]),
                Coords::List(_) => None,
            };
            transform_cpu::<T>(xv, x.shape(), list.as_deref(), m, &plan)
        }
        Backend::Cuda(c) => transform_cuda::<T, T::W, C>(c.dev(), x, &coords, &plan),
    }
}

/// The CPU transform of the input's values `xv` (shape `ishape`): the coordinates from the f64
/// `list` (`[irank][n]`) or the affine map `m`.
fn transform_cpu<T: Real>(
    xv: Vec<f64>,
    ishape: &[usize],
    list: Option<&[f64]>,
    m: Option<&[f64]>,
    plan: &Plan,
) -> Result<Array<T>> {
    let Plan {
        oshape, ords, o, ..
    } = *plan;
    let irank = ishape.len();
    let n: usize = oshape.iter().product();
    let (xv, ishape) = prepare_cpu(xv, ishape, &plan.prep);
    // the padding shifts every input coordinate by npad, added after the affine sum (SciPy's
    // order)
    let padc = plan.prep.npad as f64;
    let round = T::DTYPE.is_integer();
    const CHUNK: usize = 4096;
    let orank = oshape.len();
    // a diagonal affine map (zoom, shift): each axis's stencils depend on that axis's
    // output index only, so they are tabulated once per axis (the coordinate computed as
    // below; the other axes' terms are zero)
    let tables: Option<Vec<Vec<Option<AxisStencil>>>> = match m {
        Some(m)
            if orank == irank
                && (0..irank).all(|d| (0..orank).all(|e| e == d || m[d * orank + e] == 0.0)) =>
        {
            let stride = strides(&ishape);
            Some(
                (0..irank)
                    .map(|d| {
                        (0..oshape[d])
                            .map(|t| {
                                let mut acc = m[irank * orank + d];
                                let h = m[irank * orank + irank + d];
                                acc += m[d * orank + d] * (t as f64 + h);
                                acc += padc;
                                let mut a = NO_STENCIL;
                                axis_stencil(acc, ishape[d], stride[d], ords[d], o.mode, &mut a)
                                    .then_some(a)
                            })
                            .collect()
                    })
                    .collect(),
            )
        }
        _ => None,
    };
    let mut out = vec![T::from_f(0.0); n];
    out.par_chunks_mut(CHUNK).enumerate().for_each(|(ci, ch)| {
        // the output coordinates of the chunk's first element, then stepped (the last
        // axis fastest)
        let mut oi = [0i64; 8];
        let mut r = ci * CHUNK;
        for d in (0..orank).rev() {
            oi[d] = (r % oshape[d]) as i64;
            r /= oshape[d];
        }
        for (k, slot) in ch.iter_mut().enumerate() {
            let i = ci * CHUNK + k;
            let v = if let Some(tb) = &tables {
                let mut refs = [&NO_STENCIL; 8];
                let mut inside = true;
                for d in 0..irank {
                    match &tb[d][oi[d] as usize] {
                        Some(a) => refs[d] = a,
                        None => inside = false,
                    }
                }
                if inside {
                    stencil_sum(&xv, &refs[..irank], ords, o.cval)
                } else {
                    o.cval
                }
            } else {
                let mut c = [0f64; 8];
                if let Some(v) = list {
                    for d in 0..irank {
                        c[d] = v[d * n + i] + padc;
                    }
                } else if let Some(m) = m {
                    for d in 0..irank {
                        let mut acc = m[irank * orank + d];
                        for e in 0..orank {
                            let h = m[irank * orank + irank + e];
                            acc += m[d * orank + e] * (oi[e] as f64 + h);
                        }
                        c[d] = acc + padc;
                    }
                }
                interp_cpu(&xv, &ishape, &c[..irank], ords, o.mode, o.cval)
            };
            let v = if round {
                if v < 0.0 {
                    v - 0.5
                } else {
                    v + 0.5
                }
            } else {
                v
            };
            *slot = T::from_f(v);
            let mut d = orank;
            while d > 0 {
                d -= 1;
                oi[d] += 1;
                if oi[d] < oshape[d] as i64 {
                    break;
                }
                oi[d] = 0;
            }
        }
    });
    Array::from_vec(out, oshape, &Device::Cpu)
}

/// The affine map by value (`NdiMat`: irank × orank matrix, the offset, then the output
/// coordinates' shift per output axis; at most 80 values).
#[repr(C)]
#[derive(Clone, Copy)]
struct Mat80([f64; 80]);

// SAFETY: plain data, the layout of interpolation.cu's `struct NdiMat { double m[80]; }`.
unsafe impl KernelParam for Mat80 {}

/// The GPU transform of `x` in the working type `W`: the coordinates from the list (the array
/// itself where it has the working type, else a converted copy) or the affine map (by value).
fn transform_cuda<T: Real, W: Element, C: Real>(
    d: &CudaDevice,
    x: &Array<T>,
    coords: &Coords<C>,
    plan: &Plan,
) -> Result<Array<T>> {
    let Plan {
        op,
        oshape,
        ords,
        o,
        ..
    } = *plan;
    let irank = x.ndim();
    let orank = oshape.len();
    let n: usize = oshape.iter().product();
    let (work, ishape) = prepare_cuda::<T, W>(d, x, &plan.prep)?;
    // every element is written
    let mut out = Array::<T>::empty(oshape, x.device())?;
    // the coordinates as they are when they have the working type (no copy), else cast
    let (list, mat): (Option<Array<C>>, [f64; 80]) = match coords {
        Coords::List(c) => (Some(c.contiguous()?), [0.0; 80]),
        Coords::Affine(m) => {
            let mut mm = [0.0f64; 80];
            mm[..m.len()].copy_from_slice(m);
            (None, mm)
        }
    };
    let cast = match &list {
        Some(c) if C::DTYPE != W::DTYPE => Some(c.astype::<W>()?),
        _ => None,
    };
    let cptr = match (&cast, &list) {
        (Some(c), _) => Some(c.dev_ptr()?),
        (None, Some(c)) => Some(c.dev_ptr()?.cast::<W>()?),
        (None, None) => None,
    };
    // the padding shift is a kernel argument; the affine map is passed by value (no upload)
    let cshift = plan.prep.npad as f64;
    let fixed =
        irank <= 3 && ords.iter().all(|&k| k == o.order) && (list.is_some() || orank == irank);
    if fixed {
        let spec = Spec::of(&[T::DTYPE, W::DTYPE]).with(&[irank as i64, o.order as i64]);
        let f = INTERP.function(d, &spec, &format!("ndi_transform_r{irank}o{}", o.order))?;
        d.launch(&f, linear(n))
            .arg(work.ptr()?)
            .arg(out.dev_ptr_mut()?)
            .arg(n as i64)
            .arg(dims8(op, &ishape)?)
            .arg(dims8(op, oshape)?)
            .opt(cptr)
            .arg(cshift)
            .arg(Mat80(mat))
            .arg(o.mode.code())
            .arg(o.cval)
            .run()?;
    } else {
        let f = function::<T, W>(d, "ndi_transform")?;
        d.launch(&f, linear(n))
            .arg(work.ptr()?)
            .arg(out.dev_ptr_mut()?)
            .arg(n as i64)
            .arg(irank as i32)
            .arg(dims8(op, &ishape)?)
            .arg(orank as i32)
            .arg(dims8(op, oshape)?)
            .opt(cptr)
            .arg(cshift)
            .arg(Mat80(mat))
            .arg(dims8(op, ords)?)
            .arg(o.mode.code())
            .arg(o.cval)
            .run()?;
    }
    Ok(out)
}

// ---------------------------------------------------------------- public functions

fn spline_out<T: Real>(
    op: &str,
    x: &Array<T>,
    order: usize,
    axes: &[usize],
    mode: Mode,
) -> Result<Array<f64>> {
    if !(2..=5).contains(&order) {
        check_order(op, order, 0)?;
        return x.astype::<f64>();
    }
    if x.size() == 0 {
        return x.astype::<f64>();
    }
    let prep = Prep {
        npad: 0,
        cval: 0.0,
        nearest: false,
        order,
        mode,
        filter: true,
        axes,
    };
    match x.backend() {
        Backend::Host(h) => {
            let xv: Vec<f64> = h.to_contiguous().iter().map(|v| v.to_f()).collect();
            let (v, shape) = prepare_cpu(xv, x.shape(), &prep);
            Array::from_vec(v, &shape, &Device::Cpu)
        }
        Backend::Cuda(c) => match prepare_cuda::<T, f64>(c.dev(), x, &prep)?.0 {
            DevWork::Own(a) => Ok(a),
            DevWork::Input(_) => x.astype::<f64>(),
        },
    }
}

/// One-dimensional B-spline prefilter along `axis` (`scipy.ndimage.spline_filter1d`): the
/// coefficients whose spline of `order` interpolates the input, with the boundary of `mode`
/// (SciPy's default `Mode::Mirror`). Orders 0 and 1 return the input as f64. The result is f64
/// (SciPy's default output).
///
/// # Errors
/// `InvalidArgument` for an order above 5 or a bad axis.
///
/// ```
/// use cusci_ndimage::{spline_filter1d, Array, Device, Mode};
/// let x = Array::from_vec(vec![1.0f64; 6], &[6], &Device::Cpu).unwrap();
/// let c = spline_filter1d(&x, 3, -1, Mode::Mirror).unwrap().to_vec().unwrap();
/// assert!(c.iter().all(|v| (v - 1.0).abs() < 1e-12)); // a constant is its own spline
/// ```
pub fn spline_filter1d<T: Real>(
    input: &Array<T>,
    order: usize,
    axis: isize,
    mode: Mode,
) -> Result<Array<f64>> {
    let op = "spline_filter1d";
    let a = norm_axis(op, axis, input.ndim())?;
    spline_out(op, input, order, &[a], mode)
}

/// Multidimensional B-spline prefilter (`scipy.ndimage.spline_filter`): [`spline_filter1d`]
/// along every axis.
///
/// # Errors
/// `InvalidArgument` for an order below 2 or above 5 (SciPy's "spline order not supported";
/// [`spline_filter1d`] accepts 0 and 1, as SciPy, and copies the input).
///
/// ```
/// use cusci_ndimage::{spline_filter, Array, Device, Mode};
/// let x = Array::from_vec(vec![2.0f32; 12], &[3, 4], &Device::Cpu).unwrap();
/// let c = spline_filter(&x, 5, Mode::Mirror).unwrap().to_vec().unwrap();
/// assert!(c.iter().all(|v| (v - 2.0).abs() < 1e-12));
/// ```
pub fn spline_filter<T: Real>(input: &Array<T>, order: usize, mode: Mode) -> Result<Array<f64>> {
    let op = "spline_filter";
    check_order(op, order, 2)?;
    let axes: Vec<usize> = (0..input.ndim()).collect();
    spline_out(op, input, order, &axes, mode)
}

/// Values of the input at arbitrary coordinates (`scipy.ndimage.map_coordinates`):
/// `coordinates` has shape `[input.ndim(), ...]` and the output its trailing shape; element `i`
/// interpolates the input at `(coordinates[0][i], coordinates[1][i], ...)`.
///
/// # Errors
/// `ShapeMismatch` when the first axis of `coordinates` is not the input's rank;
/// `InvalidArgument` for an order above 5; `DeviceMismatch` for arrays on different devices.
///
/// ```
/// use cusci_ndimage::{map_coordinates, InterpOptions, Array, Device};
/// let x = Array::from_vec((0..12).map(f64::from).collect(), &[4, 3], &Device::Cpu).unwrap();
/// let c = Array::from_vec(vec![0.5, 2.0, 0.5, 1.0], &[2, 2], &Device::Cpu).unwrap();
/// let o = InterpOptions { order: 1, ..Default::default() };
/// assert_eq!(map_coordinates(&x, &c, &o).unwrap().to_vec().unwrap(), vec![2.0, 7.0]);
/// ```
pub fn map_coordinates<T: Real, C: Real>(
    input: &Array<T>,
    coordinates: &Array<C>,
    opts: &InterpOptions,
) -> Result<Array<T>> {
    map_coordinates_impl(input, coordinates, opts, None)
}

fn map_coordinates_impl<T: Real, C: Real>(
    input: &Array<T>,
    coordinates: &Array<C>,
    opts: &InterpOptions,
    pad: Option<f64>,
) -> Result<Array<T>> {
    let op = "map_coordinates";
    cusci_core::array::check_same_device(op, input.device(), coordinates.device())?;
    let cs = coordinates.shape();
    if input.ndim() == 0 || cs.len() < 2 {
        // SciPy: RuntimeError('input and output rank must be > 0')
        return Err(make::shape(
            op,
            format!(
                "coordinates of shape {cs:?}: input and output rank must be > 0 (coordinates need \
                 a leading axis of the input's rank and at least one more)"
            ),
        ));
    }
    if cs[0] != input.ndim() {
        return Err(make::shape(
            op,
            format!(
                "coordinates of shape {cs:?} for an input of rank {}",
                input.ndim()
            ),
        ));
    }
    let oshape = cs[1..].to_vec();
    transform(op, input, &oshape, Coords::List(coordinates), opts, pad)
}

/// The matrix forms `affine_transform` accepts.
#[derive(Debug, Clone)]
pub enum Matrix {
    /// One value per axis: a diagonal matrix.
    Diagonal(Vec<f64>),
    /// `rows × cols` row-major: `ndim × ndim`, `ndim × (ndim+1)` (last column the offset) or the
    /// homogeneous `(ndim+1) × (ndim+1)`.
    Full {
        rows: usize,
        cols: usize,
        data: Vec<f64>,
    },
}

/// General affine transform (`scipy.ndimage.affine_transform`): output element `o` takes the
/// input at `matrix · o + offset`. `offset` is one value for every axis or one per axis (empty:
/// 0); `output_shape` defaults to the input's.
///
/// # Errors
/// `ShapeMismatch` for a matrix of the wrong size (SciPy's rules: `nd × (nd+1)` and `(nd+1) ×
/// (nd+1)` are augmented, their last column replacing `offset`, and need an output of rank nd);
/// `InvalidArgument` for a homogeneous matrix whose bottom row is not `[0, ..., 0, 1]`, an order
/// above 5, an empty output rank, an empty input in a mode other than the constant ones (in
/// those the output is `cval`).
///
/// ```
/// use cusci_ndimage::{affine_transform, InterpOptions, Matrix, Array, Device};
/// let x = Array::from_vec((0..6).map(f64::from).collect(), &[6], &Device::Cpu).unwrap();
/// let o = InterpOptions { order: 1, ..Default::default() };
/// let y = affine_transform(&x, &Matrix::Diagonal(vec![0.5]), &[1.0], None, &o).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![1.0, 1.5, 2.0, 2.5, 3.0, 3.5]);
/// ```
pub fn affine_transform<T: Real>(
    input: &Array<T>,
    matrix: &Matrix,
    offset: &[f64],
    output_shape: Option<&[usize]>,
    opts: &InterpOptions,
) -> Result<Array<T>> {
    affine_impl(
        input,
        matrix,
        offset,
        output_shape,
        opts,
        AffineExtra::default(),
    )
}

/// What the other transforms add to [`affine_transform`]'s arguments.
#[derive(Clone, Copy, Default)]
pub(crate) struct AffineExtra<'a> {
    /// An order per axis (rotate's unrotated axes take 0); `None`: `opts.order` on every axis.
    pub ords: Option<&'a [usize]>,
    /// The grid-constant padding value of the `_as` functions.
    pub pad: Option<f64>,
    /// The shift of the output coordinates per output axis (zoom's grid mode, see
    /// [`Coords::Affine`]).
    pub half: Option<&'a [f64]>,
}

/// The body of the affine transforms.
fn affine_impl<T: Real>(
    input: &Array<T>,
    matrix: &Matrix,
    offset: &[f64],
    output_shape: Option<&[usize]>,
    opts: &InterpOptions,
    extra: AffineExtra,
) -> Result<Array<T>> {
    let AffineExtra { ords, pad, half } = extra;
    let op = "affine_transform";
    let nd = input.ndim();
    let oshape = output_shape
        .map(|s| s.to_vec())
        .unwrap_or_else(|| input.shape().to_vec());
    let orank = oshape.len();
    let mut m = vec![0.0; nd * orank + nd + orank];
    let norm_offset = || -> Result<Vec<f64>> {
        match offset.len() {
            0 => Ok(vec![0.0; nd]),
            1 => Ok(vec![offset[0]; nd]),
            k if k == nd => Ok(offset.to_vec()),
            k => Err(make::shape(op, format!("{k} offsets for {nd} axes"))),
        }
    };
    let off = match matrix {
        Matrix::Diagonal(d) => {
            if d.len() != nd || orank != nd {
                return Err(make::shape(
                    op,
                    format!("diagonal of {} values for {nd} axes", d.len()),
                ));
            }
            for i in 0..nd {
                m[i * orank + i] = d[i];
            }
            let off = norm_offset()?;
            if half.is_none() && d.iter().all(|&v| v != 0.0 && v.is_finite()) {
                // SciPy's zoom_shift(matrix, offset / matrix): the coordinate is
                // (o + offset / m) · m, the same sum in its order (output shift h = offset / m)
                for i in 0..nd {
                    m[nd * orank + nd + i] = off[i] / d[i];
                }
                vec![0.0; nd]
            } else {
                off
            }
        }
        Matrix::Full { rows, cols, data } => {
            let (rows, cols) = (*rows, *cols);
            if data.len() != rows * cols {
                return Err(make::shape(op, "matrix data does not match rows × cols"));
            }
            // SciPy's order: nd × (nd + 1) and (nd + 1) × (nd + 1) are augmented / homogeneous
            // (the last column is the offset, which replaces `offset`), whatever the output rank;
            // then the matrix must be nd × output rank
            if cols == nd + 1 && (rows == nd || rows == nd + 1) {
                if rows == nd + 1 {
                    let bottom = &data[nd * cols..];
                    if bottom[..nd].iter().any(|&v| v != 0.0) || bottom[nd] != 1.0 {
                        return Err(make::arg(
                            op,
                            format!(
                                "expected a homogeneous transformation matrix: the bottom row \
                                 of the {rows}×{cols} matrix is not [0, ..., 0, 1]"
                            ),
                        ));
                    }
                }
                if orank != nd {
                    return Err(make::shape(
                        op,
                        format!("a {rows}×{cols} matrix for {nd} input and {orank} output axes"),
                    ));
                }
                for i in 0..nd {
                    for j in 0..nd {
                        m[i * orank + j] = data[i * cols + j];
                    }
                }
                (0..nd).map(|i| data[i * cols + nd]).collect()
            } else {
                if rows != nd || cols != orank {
                    return Err(make::shape(
                        op,
                        format!("a {rows}×{cols} matrix for {nd} input and {orank} output axes"),
                    ));
                }
                m[..nd * orank].copy_from_slice(data);
                norm_offset()?
            }
        }
    };
    m[nd * orank..nd * orank + nd].copy_from_slice(&off);
    if let Some(h) = half {
        m[nd * orank + nd..].copy_from_slice(h);
    }
    match ords {
        Some(o) => transform_axes(op, input, &oshape, Coords::<f64>::Affine(m), opts, o, pad),
        None => transform(op, input, &oshape, Coords::<f64>::Affine(m), opts, pad),
    }
}

/// Shift (`scipy.ndimage.shift`): output `o` takes the input at `o − shift` (one value for
/// every axis or one per axis).
///
/// # Errors
/// As [`affine_transform`].
///
/// ```
/// use cusci_ndimage::{shift, InterpOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[4], &Device::Cpu).unwrap();
/// let o = InterpOptions { order: 0, ..Default::default() };
/// assert_eq!(shift(&x, &[1.0], &o).unwrap().to_vec().unwrap(), vec![0.0, 1.0, 2.0, 3.0]);
/// ```
pub fn shift<T: Real>(input: &Array<T>, shift: &[f64], opts: &InterpOptions) -> Result<Array<T>> {
    shift_impl(input, shift, opts, None)
}

fn shift_impl<T: Real>(
    input: &Array<T>,
    shift: &[f64],
    opts: &InterpOptions,
    pad: Option<f64>,
) -> Result<Array<T>> {
    let nd = input.ndim();
    let s = match shift.len() {
        1 => vec![shift[0]; nd],
        k if k == nd => shift.to_vec(),
        k => return Err(make::shape("shift", format!("{k} shifts for {nd} axes"))),
    };
    let off: Vec<f64> = s.iter().map(|v| -v).collect();
    let m = Matrix::Diagonal(vec![1.0; nd]);
    let extra = AffineExtra {
        pad,
        ..Default::default()
    };
    affine_impl(input, &m, &off, None, opts, extra)
}

/// Zoom (`scipy.ndimage.zoom`): the output has `round(shape · zoom)` elements per axis; with
/// `grid_mode` false the corner samples align (`in = out · (n_in − 1)/(n_out − 1)`), with
/// `grid_mode` true the pixel edges do (`in = (out + ½) · n_in/n_out − ½`).
///
/// # Errors
/// `InvalidArgument` for a zoom giving a negative (or not finite) output length, an order above 5,
/// a 0-d input. A zoom of 0 gives an empty axis; output lengths round half to even (Python's
/// `round`, as SciPy). A zoom of 1 on every axis with `prefilter` returns a copy of the input,
/// as SciPy (which returns before interpolating: the spline round trip is not exact for short
/// axes in some modes).
///
/// ```
/// use cusci_ndimage::{zoom, InterpOptions, Array, Device};
/// let x = Array::from_vec(vec![0.0f64, 2.0, 4.0], &[3], &Device::Cpu).unwrap();
/// let o = InterpOptions { order: 1, ..Default::default() };
/// let y = zoom(&x, &[5.0 / 3.0], false, &o).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![0.0, 1.0, 2.0, 3.0, 4.0]);
/// ```
pub fn zoom<T: Real>(
    input: &Array<T>,
    zoom: &[f64],
    grid_mode: bool,
    opts: &InterpOptions,
) -> Result<Array<T>> {
    if zoom_is_copy("zoom", input.ndim(), zoom, opts)? {
        return input.copy();
    }
    zoom_impl(input, zoom, grid_mode, opts, None)
}

/// The zoom factor of every axis of an `nd`-dimensional input (one factor for all, or one each).
fn zoom_factors(op: &str, zoom: &[f64], nd: usize) -> Result<Vec<f64>> {
    match zoom.len() {
        1 => Ok(vec![zoom[0]; nd]),
        k if k == nd => Ok(zoom.to_vec()),
        k => Err(make::shape(op, format!("{k} zoom factors for {nd} axes"))),
    }
}

/// Whether `zoom` returns its input unchanged, as SciPy does (gh-20999) before interpolating:
/// every factor 1 and `prefilter` set (whatever the order and mode; without the prefilter the
/// input holds spline coefficients, which the interpolation turns back into values).
pub(crate) fn zoom_is_copy(
    op: &str,
    nd: usize,
    zoom: &[f64],
    opts: &InterpOptions,
) -> Result<bool> {
    check_order(op, opts.order, 0)?;
    Ok(nd > 0 && opts.prefilter && zoom_factors(op, zoom, nd)?.iter().all(|&f| f == 1.0))
}

fn zoom_impl<T: Real>(
    input: &Array<T>,
    zoom: &[f64],
    grid_mode: bool,
    opts: &InterpOptions,
    pad: Option<f64>,
) -> Result<Array<T>> {
    let op = "zoom";
    let nd = input.ndim();
    let z = zoom_factors(op, zoom, nd)?;
    let ishape = input.shape();
    // SciPy: int(round(n * zoom)), Python's round (half to even); a zoom of 0 gives an empty axis
    let mut oshape = Vec::with_capacity(nd);
    for (&n, &f) in ishape.iter().zip(&z) {
        let r = (n as f64 * f).round_ties_even();
        if !r.is_finite() || r < 0.0 {
            return Err(make::arg(
                op,
                format!("zoom factor {f} gives an invalid output length for an axis of {n}"),
            ));
        }
        oshape.push(r as usize);
    }
    // SciPy's coordinates: o · z, or (o + ½) · z − ½ in grid mode, rounded as SciPy rounds them
    // (the same nearest neighbour at order 0 where a coordinate falls on a half)
    let mut diag = vec![0.0; nd];
    let off = vec![if grid_mode { -0.5 } else { 0.0 }; nd];
    let half = vec![if grid_mode { 0.5 } else { 0.0 }; nd];
    for d in 0..nd {
        if grid_mode {
            diag[d] = ishape[d] as f64 / oshape[d].max(1) as f64;
        } else {
            let div = oshape[d] as f64 - 1.0;
            diag[d] = if div != 0.0 {
                (ishape[d] as f64 - 1.0) / div
            } else {
                1.0
            };
        }
    }
    let m = Matrix::Diagonal(diag);
    let extra = AffineExtra {
        ords: None,
        pad,
        half: Some(&half),
    };
    affine_impl(input, &m, &off, Some(&oshape), opts, extra)
}

/// cos and sin of `angle` degrees (SciPy's `cosdg`, `sindg`): the angle reduced exactly to
/// `d` in [-45, 45] plus a multiple of 90 (exact: the remainder of a division by 360, then the
/// nearest multiple of 90 taken off), `d` in radians as a sum of two doubles (π/180 split in
/// two, the product's rounding error by `mul_add`), the sums' first-order correction, then the
/// quadrant's exact swap. Within 2 ulps of SciPy's values (equal in about 92% of angles), and
/// multiples of 90 degrees exact.
fn cosdg_sindg(angle: f64) -> (f64, f64) {
    const PI180: f64 = 0.017453292519943295; // π/180 rounded
    const PI180_LO: f64 = 2.9486522708701687e-19; // π/180 − PI180
    let r = angle % 360.0;
    let k = (r / 90.0).round();
    let d = r - 90.0 * k;
    let (c, s) = if d == 0.0 {
        (1.0, 0.0)
    } else {
        let rh = d * PI180;
        let rl = d.mul_add(PI180, -rh) + d * PI180_LO;
        let (sh, ch) = rh.sin_cos();
        (ch - sh * rl, sh + ch * rl)
    };
    match (k as i64).rem_euclid(4) {
        0 => (c, s),
        1 => (-s, c),
        2 => (-c, -s),
        _ => (s, -c),
    }
}

/// Rotation by `angle` degrees in the plane of `axes` (`scipy.ndimage.rotate`, default axes
/// `(1, 0)`); with `reshape` the output grows to hold the whole rotated input.
///
/// # Errors
/// `InvalidArgument` for out-of-range axes, equal axes with rank > 2 (for a 2-D input SciPy
/// accepts them: the plane shapes are those of that axis, the rotation acts on axes (0, 1)), an
/// input of rank < 2, an order above 5.
///
/// ```
/// use cusci_ndimage::{rotate, InterpOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], &Device::Cpu).unwrap();
/// let o = InterpOptions { order: 0, ..Default::default() };
/// let y = rotate(&x, 90.0, (1, 0), true, &o).unwrap();
/// assert_eq!(y.shape(), &[3, 2]);
/// assert_eq!(y.to_vec().unwrap(), vec![3.0, 6.0, 2.0, 5.0, 1.0, 4.0]);
/// ```
pub fn rotate<T: Real>(
    input: &Array<T>,
    angle: f64,
    axes: (isize, isize),
    reshape: bool,
    opts: &InterpOptions,
) -> Result<Array<T>> {
    rotate_impl(input, angle, axes, reshape, opts, None)
}

fn rotate_impl<T: Real>(
    input: &Array<T>,
    angle: f64,
    axes: (isize, isize),
    reshape: bool,
    opts: &InterpOptions,
    pad: Option<f64>,
) -> Result<Array<T>> {
    let op = "rotate";
    let nd = input.ndim();
    if nd < 2 {
        return Err(make::arg(op, "rotate needs an input of rank 2 or more"));
    }
    let norm = |a: isize| -> Result<usize> {
        let v = if a < 0 { a + nd as isize } else { a };
        if v < 0 || v >= nd as isize {
            return Err(make::arg(op, format!("axis {a} out of range")));
        }
        Ok(v as usize)
    };
    let (mut a0, mut a1) = (norm(axes.0)?, norm(axes.1)?);
    // SciPy accepts equal axes for a 2-D input (the plane is (axis, axis) for the shapes, the
    // rotation itself acts on axes (0, 1)) and fails for more dimensions
    let dup = a0 == a1;
    if dup && nd != 2 {
        return Err(make::arg(
            op,
            "the two axes must differ for an input of rank above 2",
        ));
    }
    if a0 > a1 {
        std::mem::swap(&mut a0, &mut a1);
    }
    if !angle.is_finite() {
        return Err(make::arg(
            op,
            format!("the angle must be finite, not {angle}"),
        ));
    }
    let (c, s) = cosdg_sindg(angle);
    let rot = [[c, s], [-s, c]];
    let ish = input.shape();
    let (iy, ix) = (ish[a0] as f64, ish[a1] as f64);
    let plane_out = if reshape {
        let xs = [0.0, 0.0, iy, iy];
        let ys = [0.0, ix, 0.0, ix];
        let mut out = [0usize; 2];
        for (r, o) in out.iter_mut().enumerate() {
            let v: Vec<f64> = (0..4)
                .map(|k| rot[r][0] * xs[k] + rot[r][1] * ys[k])
                .collect();
            let ptp = v.iter().cloned().fold(f64::MIN, f64::max)
                - v.iter().cloned().fold(f64::MAX, f64::min);
            *o = (ptp + 0.5) as usize;
        }
        out
    } else {
        [ish[a0], ish[a1]]
    };
    let oc = [
        (plane_out[0] as f64 - 1.0) / 2.0,
        (plane_out[1] as f64 - 1.0) / 2.0,
    ];
    let out_center = [
        rot[0][0] * oc[0] + rot[0][1] * oc[1],
        rot[1][0] * oc[0] + rot[1][1] * oc[1],
    ];
    let in_center = [(iy - 1.0) / 2.0, (ix - 1.0) / 2.0];
    let mut oshape = ish.to_vec();
    oshape[a0] = plane_out[0];
    oshape[a1] = plane_out[1];
    let mut m = vec![0.0; nd * nd];
    for d in 0..nd {
        m[d * nd + d] = 1.0;
    }
    if dup {
        (a0, a1) = (0, 1);
    }
    m[a0 * nd + a0] = rot[0][0];
    m[a0 * nd + a1] = rot[0][1];
    m[a1 * nd + a0] = rot[1][0];
    m[a1 * nd + a1] = rot[1][1];
    let mut off = vec![0.0; nd];
    off[a0] = in_center[0] - out_center[0];
    off[a1] = in_center[1] - out_center[1];
    let mut ords = vec![0usize; nd];
    ords[a0] = opts.order;
    ords[a1] = opts.order;
    affine_impl(
        input,
        &Matrix::Full {
            rows: nd,
            cols: nd,
            data: m,
        },
        &off,
        Some(&oshape),
        opts,
        AffineExtra {
            ords: Some(&ords),
            pad,
            half: None,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::cosdg_sindg;

    fn ulps(a: f64, b: f64) -> f64 {
        (a - b).abs() / (f64::EPSILON * a.abs().max(b.abs()).max(f64::MIN_POSITIVE))
    }

    #[test]
    fn cosdg_sindg_are_within_two_ulps_of_scipys() {
        // scipy.special.cosdg(a), sindg(a) (SciPy 1.17.1)
        let scipy = [
            (-76.9, 0.22665130743685497, -0.9739759672790517),
            (180.1, -0.9999984769132877, -0.0017453283658982095),
            (-359.9, 0.9999984769132877, 0.0017453283658987056),
            (90.00001, -1.7453292525483122e-07, 0.9999999999999848),
            (30.0, 0.8660254037844387, 0.49999999999999994),
            (60.0, 0.49999999999999994, 0.8660254037844387),
            (1e-20, 1.0, 1.7453292519943296e-22),
            (123456.7, 0.9184463813430671, -0.3955455025630116),
        ];
        for (a, c, s) in scipy {
            let (c1, s1) = cosdg_sindg(a);
            assert!(ulps(c1, c) <= 2.0 && ulps(s1, s) <= 2.0, "{a}: {c1} {s1}");
        }
        // multiples of 90 degrees exact, and angles a hair off them are no quarter turn (the
        // reduction by rem_euclid took -1e-20 to 360 and so to a quarter turn back)
        for k in -8..=8 {
            let (c, s) = cosdg_sindg(90.0 * k as f64);
            let q = (k as i64).rem_euclid(4);
            let want = [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)][q as usize];
            assert_eq!((c, s), want, "{k}");
        }
        for a in [-1e-20, 1e-300, -359.99999999999994, 719.9999999999999] {
            let (c, s) = cosdg_sindg(a);
            assert!((c - 1.0).abs() < 1e-15 && s.abs() < 1e-12, "{a}: {c} {s}");
        }
    }
}
