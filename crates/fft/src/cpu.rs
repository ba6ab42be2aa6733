//! The CPU reference: rustfft / realfft plans (cached per precision) run in parallel over the
//! lanes of the transformed axis. Each lane is gathered into a contiguous buffer (cut or
//! zero-padded to the transform's length), transformed, and written to a lane-major buffer that
//! is finally transposed back into C order. Every lane is computed the same way whatever the
//! thread count, so results do not depend on it. Transforms here are unnormalised; the caller
//! (`basic.rs`) applies the normalisation for both devices.

use crate::args::Post;
use crate::{FftComplex, FftReal};
use cusci_core::array::layout::checked_numel;
use cusci_core::error::make;
use cusci_core::{Array, DType, Device, Element, HostArray, RealFloat, Result};
use num_complex::Complex;
use rayon::prelude::*;
use realfft::RealFftPlanner;
use rustfft::{Fft, FftDirection, FftPlanner};
use std::any::Any;
use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};

/// Target number of elements handled by one rayon task (lanes are grouped to about this size).
const TASK_ELEMS: usize = 1 << 15;

/// The most distinct (length, kind) plans a planner keeps before it is replaced by a fresh one
/// (plans in use stay alive through their `Arc`s): the cache is bounded.
const PLAN_CAP: usize = 128;

/// A planner with the set of plan keys it has made, to bound its cache.
struct Bounded<P> {
    planner: P,
    keys: HashSet<(usize, u8)>,
}

impl<P> Bounded<P> {
    /// Notes that `key` is about to be planned; starts a fresh planner (`fresh`) when the cache
    /// would exceed [`PLAN_CAP`].
    fn admit(&mut self, key: (usize, u8), fresh: impl FnOnce() -> P) -> &mut P {
        if !self.keys.contains(&key) && self.keys.len() >= PLAN_CAP {
            self.planner = fresh();
            self.keys.clear();
        }
        self.keys.insert(key);
        &mut self.planner
    }
}

struct Planners<T: FftReal> {
    complex: Mutex<Bounded<FftPlanner<T>>>,
    real: Mutex<Bounded<RealFftPlanner<T>>>,
}

impl<T: FftReal> Planners<T> {
    fn new() -> Self {
        Planners {
            complex: Mutex::new(Bounded {
                planner: FftPlanner::new(),
                keys: HashSet::new(),
            }),
            real: Mutex::new(Bounded {
                planner: RealFftPlanner::new(),
                keys: HashSet::new(),
            }),
        }
    }
    fn clear(&self) {
        *lock(&self.complex) = Bounded {
            planner: FftPlanner::new(),
            keys: HashSet::new(),
        };
        *lock(&self.real) = Bounded {
            planner: RealFftPlanner::new(),
            keys: HashSet::new(),
        };
    }
}

static P32: OnceLock<Planners<f32>> = OnceLock::new();
static P64: OnceLock<Planners<f64>> = OnceLock::new();

/// The process-wide planners of precision `T` (rustfft and realfft cache their plans).
///
/// # Errors
/// `UnsupportedDType` for a type other than f32 and f64 (none: `FftReal` is sealed to them).
fn planners<T: FftReal>() -> Result<&'static Planners<T>> {
    let any: &'static dyn Any = match T::DTYPE {
        DType::F32 => P32.get_or_init(Planners::new),
        _ => P64.get_or_init(Planners::new),
    };
    any.downcast_ref::<Planners<T>>()
        .ok_or_else(|| make::dtype("fft", T::DTYPE))
}

/// Drops every cached CPU plan (both precisions).
pub(crate) fn clear_plans() {
    if let Some(p) = P32.get() {
        p.clear();
    }
    if let Some(p) = P64.get() {
        p.clear();
    }
}

/// The number of distinct (length, kind) plans the CPU planners hold (both precisions).
pub(crate) fn plan_count() -> usize {
    let c32 = P32.get().map_or(0, |p| {
        lock(&p.complex).keys.len() + lock(&p.real).keys.len()
    });
    let c64 = P64.get().map_or(0, |p| {
        lock(&p.complex).keys.len() + lock(&p.real).keys.len()
    });
    c32 + c64
}

fn lock<P>(m: &Mutex<P>) -> std::sync::MutexGuard<'_, P> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Checks that the result (`x`'s shape with `axis` of length `len`) and a lane buffer of `len`
/// complex values have sizes that can be allocated (in bytes, up to `isize::MAX`).
pub(crate) fn check_size(op: &str, x_shape: &[usize], axis: usize, len: usize) -> Result<()> {
    let mut shape = x_shape.to_vec();
    shape[axis] = len;
    let numel = checked_numel(op, &shape)?;
    // 16 bytes: the widest element involved (c64)
    if numel
        .max(len)
        .checked_mul(16)
        .is_none_or(|b| b > isize::MAX as usize)
    {
        return Err(make::arg(
            op,
            format!(
                "a transform of {len} points along axis {axis} of shape {x_shape:?} is too large"
            ),
        ));
    }
    Ok(())
}

/// [`check_size`], then the host's memory for the output and the plan (twiddles and scratch:
/// about two more lanes of `len` points) at 16 bytes a point: `OutOfMemory` before rustfft's
/// planner allocates (its allocations are infallible and would abort).
pub(crate) fn check_host_size(op: &str, x_shape: &[usize], axis: usize, len: usize) -> Result<()> {
    check_size(op, x_shape, axis, len)?;
    let mut shape = x_shape.to_vec();
    shape[axis] = len;
    let numel = checked_numel(op, &shape)?;
    let points = numel.saturating_add(len.saturating_mul(2));
    cusci_core::host::check_request(points.saturating_mul(16))
}

/// (product of the dimensions before `axis`, length of `axis`, product of those after).
fn split(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    (outer, shape[axis], inner)
}

/// Runs `run` on every lane of `x` along `axis`: the lane is loaded (through `load`) into a
/// buffer of `lane_in` elements (cut or zero-padded), and `run` writes `lane_out` outputs. The
/// result is C-contiguous with `axis` of length `lane_out`.
pub(crate) fn for_lanes<D, I, O, S>(
    x: &HostArray<'_, D>,
    axis: usize,
    lane_in: usize,
    lane_out: usize,
    load: impl Fn(D) -> I + Sync,
    init: impl Fn() -> S + Sync,
    run: impl Fn(&mut S, &mut [I], &mut [O]) -> Result<()> + Sync,
) -> Result<Array<O>>
where
    D: Element,
    I: Copy + Default + Send,
    O: Element,
{
    let data = x.try_to_contiguous()?;
    let (outer, m, inner) = split(x.shape(), axis);
    let mut shape = x.shape().to_vec();
    shape[axis] = lane_out;
    let lanes = outer * inner;
    let total = lanes * lane_out;
    let mut tmp = vec![O::zero(); total];
    if total > 0 {
        let batch = (TASK_ELEMS / lane_in.max(lane_out).max(1)).max(1);
        let copy = m.min(lane_in);
        tmp.par_chunks_mut(batch * lane_out)
            .enumerate()
            .try_for_each(|(b, chunk)| -> Result<()> {
                let mut state = init();
                let mut buf = vec![I::default(); lane_in];
                for (j, out) in chunk.chunks_mut(lane_out).enumerate() {
                    let l = b * batch + j;
                    let base = (l / inner) * m * inner + l % inner;
                    for (k, v) in buf[..copy].iter_mut().enumerate() {
                        *v = load(data[base + k * inner]);
                    }
                    buf[copy..].fill(I::default());
                    run(&mut state, &mut buf, out)?;
                }
                Ok(())
            })?;
    }
    let out = if inner == 1 || total == 0 {
        tmp
    } else {
        // lane-major (outer, inner, lane_out) -> C order (outer, lane_out, inner)
        let mut out = vec![O::zero(); total];
        out.par_chunks_mut(inner).enumerate().for_each(|(r, row)| {
            let (o, k) = (r / lane_out, r % lane_out);
            for (i, v) in row.iter_mut().enumerate() {
                *v = tmp[(o * inner + i) * lane_out + k];
            }
        });
        out
    };
    Array::from_vec(out, &shape, &Device::Cpu)
}

/// The cached complex plan of `n` points of precision `T` (`forward`: `exp(-2πi jk/n)`), for
/// the transforms built on the FFT elsewhere in the crate (the real-to-real transforms).
pub(crate) fn complex_plan<T: FftReal>(n: usize, forward: bool) -> Result<Arc<dyn Fft<T>>> {
    let dir = if forward {
        FftDirection::Forward
    } else {
        FftDirection::Inverse
    };
    Ok(lock(&planners::<T>()?.complex)
        .admit((n, forward as u8), FftPlanner::new)
        .plan_fft(n, dir))
}

/// `post` applied to one value: conjugated when asked, then scaled.
#[inline]
fn apply<T: FftReal>(post: Post, scale: T, v: Complex<T>) -> Complex<T> {
    let v = if post.conj { v.conj() } else { v };
    if post.scale == 1.0 {
        v
    } else {
        v * scale
    }
}

/// Complex transform of `n` points along `axis` (forward: `exp(-2πi jk/n)`), `post` applied to
/// each output as it is written.
pub(crate) fn c2c_axis<C: FftComplex>(
    x: &HostArray<'_, C>,
    axis: usize,
    n: usize,
    forward: bool,
    post: Post,
) -> Result<Array<C>> {
    let sc = <C::Real as RealFloat>::from_f64(post.scale);
    let dir = if forward {
        FftDirection::Forward
    } else {
        FftDirection::Inverse
    };
    check_host_size("fft", x.shape(), axis, n)?;
    let plan = lock(&planners::<C::Real>()?.complex)
        .admit((n, forward as u8), FftPlanner::new)
        .plan_fft(n, dir);
    let scratch_len = plan.get_inplace_scratch_len();
    for_lanes(
        x,
        axis,
        n,
        n,
        C::to_num,
        || vec![Complex::<C::Real>::default(); scratch_len],
        |scratch, buf, out: &mut [C]| {
            plan.process_with_scratch(buf, scratch);
            for (o, v) in out.iter_mut().zip(buf.iter()) {
                *o = C::from_num(apply(post, sc, *v));
            }
            Ok(())
        },
    )
}

/// Real-to-complex forward transform of `n` points along `axis` (`n/2+1` outputs), `post`
/// applied to each output as it is written.
pub(crate) fn r2c_axis<T: FftReal>(
    x: &HostArray<'_, T>,
    axis: usize,
    n: usize,
    post: Post,
) -> Result<Array<T::Complex>> {
    let sc = <T as RealFloat>::from_f64(post.scale);
    check_host_size("rfft", x.shape(), axis, n)?;
    let plan = lock(&planners::<T>()?.real)
        .admit((n, 2), RealFftPlanner::new)
        .plan_fft_forward(n);
    let scratch_len = plan.get_scratch_len();
    let m = n / 2 + 1;
    for_lanes(
        x,
        axis,
        n,
        m,
        |v: T| v,
        || {
            (
                vec![Complex::<T>::default(); scratch_len],
                vec![Complex::<T>::default(); m],
            )
        },
        |(scratch, spec), buf, out: &mut [T::Complex]| {
            plan.process_with_scratch(buf, spec, scratch)
                .map_err(|e| make::arg("rfft", e.to_string()))?;
            for (o, v) in out.iter_mut().zip(spec.iter()) {
                *o = T::Complex::from_num(apply(post, sc, *v));
            }
            Ok(())
        },
    )
}

/// Complex-to-real inverse transform with `n` real outputs along `axis` (the input is cut or
/// zero-padded to `n/2+1` points; the imaginary parts of the zero-frequency term and, for even
/// `n`, of the Nyquist term are ignored, as pocketfft does). `post` applies to the *input* as
/// it is loaded (the scale is the same as on the output; `conj` conjugates the input).
pub(crate) fn c2r_axis<C: FftComplex>(
    x: &HostArray<'_, C>,
    axis: usize,
    n: usize,
    post: Post,
) -> Result<Array<C::Real>> {
    let sc = <C::Real as RealFloat>::from_f64(post.scale);
    check_host_size("irfft", x.shape(), axis, n)?;
    let plan = lock(&planners::<C::Real>()?.real)
        .admit((n, 3), RealFftPlanner::new)
        .plan_fft_inverse(n);
    let scratch_len = plan.get_scratch_len();
    let m = n / 2 + 1;
    let even = n % 2 == 0;
    for_lanes(
        x,
        axis,
        m,
        n,
        |v: C| apply(post, sc, v.to_num()),
        || vec![Complex::<C::Real>::default(); scratch_len],
        |scratch, buf, out: &mut [C::Real]| {
            buf[0].im = Default::default();
            if even {
                buf[m - 1].im = Default::default();
            }
            plan.process_with_scratch(buf, out, scratch)
                .map_err(|e| make::arg("irfft", e.to_string()))
        },
    )
}

/// `x` rolled by `shift[d]` along each dimension `d` (`out[j] = x[(j + shift) mod len]`).
pub(crate) fn roll<T: Element>(x: &HostArray<'_, T>, shift: &[usize]) -> Result<Array<T>> {
    let shape = x.shape().to_vec();
    let data = x.try_to_contiguous()?;
    let size = data.len();
    if shape.is_empty() || size == 0 {
        return Array::from_vec(data.to_vec(), &shape, &Device::Cpu);
    }
    let nd = shape.len();
    let last = shape[nd - 1];
    let ls = shift[nd - 1];
    let mut out = vec![T::zero(); size];
    out.par_chunks_mut(last).enumerate().for_each(|(r, row)| {
        // source offset of this row: each leading coordinate shifted
        let mut rem = r;
        let mut base = 0;
        let mut stride = last;
        for d in (0..nd - 1).rev() {
            let c = rem % shape[d];
            rem /= shape[d];
            base += ((c + shift[d]) % shape[d]) * stride;
            stride *= shape[d];
        }
        for (j, v) in row.iter_mut().enumerate() {
            *v = data[base + (j + ls) % last];
        }
    });
    Array::from_vec(out, &shape, &Device::Cpu)
}
