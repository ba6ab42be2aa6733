//! The CPU half of the interpolation: the formulas of `interp.cuh` (coordinate mapping, spline
//! weights and stencils), the working input, and the transform over rayon.

use super::spline::spline_axis_cpu;
use super::{Plan, Prep};
use crate::filters::Real;
use crate::modes::Mode;
use cusci_core::host::{try_collect, try_vec_filled};
use cusci_core::{Array, Device, Result};
use rayon::prelude::*;

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
/// A coordinate that is NaN (given, or mapped from ±Inf) is `cval` in every mode but nearest and
/// grid-constant, as SciPy's `map_coordinates` (its test `cc > -1` fails for NaN; in those two
/// modes the NaN reaches the spline weights, and the value is NaN).
fn map_coord(mut c: f64, n: i64, mode: Mode) -> Option<f64> {
    let nf = n as f64;
    match mode {
        Mode::Nearest => return Some(c.clamp(-TWO52, TWO52)),
        Mode::Constant => return (c >= 0.0 && c <= nf - 1.0).then_some(c),
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
    // +-Inf (whose wrap above is -Inf or NaN) and NaN are cval, as on the GPU
    c.is_finite().then_some(c)
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

/// The CPU's working input: the input's C-order values `xv` (shape `ishape`) as f64, padded and
/// prefiltered as `p` says. Returns the data and its shape.
pub(super) fn prepare_cpu(xv: Vec<f64>, ishape: &[usize], p: &Prep) -> (Vec<f64>, Vec<usize>) {
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

/// The CPU transform of the input's values `xv` (shape `ishape`): the coordinates from the f64
/// `list` (`[irank][n]`) or the affine map `m`.
pub(super) fn transform_cpu<T: Real>(
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
    // the output allocated fallibly (its size was checked by the front end): a huge zoom or
    // output shape is OutOfMemory (SciPy: MemoryError), not an abort
    const OP: &str = "interpolation";
    let n: usize = oshape.iter().product();
    let mut out = try_vec_filled(OP, n, T::from_f(0.0))?;
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
    // (each table allocated fallibly: its entries are larger than the output's elements)
    let tables: Option<Vec<Vec<Option<AxisStencil>>>> = match m {
        Some(m)
            if orank == irank
                && (0..irank).all(|d| (0..orank).all(|e| e == d || m[d * orank + e] == 0.0)) =>
        {
            let stride = strides(&ishape);
            let mut tables = Vec::with_capacity(irank);
            for d in 0..irank {
                let axis = (0..oshape[d]).map(|t| {
                    let mut acc = m[irank * orank + d];
                    let h = m[irank * orank + irank + d];
                    acc += m[d * orank + d] * (t as f64 + h);
                    acc += padc;
                    let mut a = NO_STENCIL;
                    axis_stencil(acc, ishape[d], stride[d], ords[d], o.mode, &mut a).then_some(a)
                });
                tables.push(try_collect(OP, oshape[d], axis)?);
            }
            Some(tables)
        }
        _ => None,
    };
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
