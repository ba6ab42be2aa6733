//! Time responses of LTI systems on an array's device: [`lsim`], [`dlsim`], [`impulse`],
//! [`step`], [`dimpulse`], [`dstep`] (`ltisys.cu`: one GPU thread per signal).

use super::systems::*;
use crate::procutil::{each_dtype, typed_kernel, typed_source, REAL_DTYPES};
use cusci_core::error::make;
use cusci_core::{
    Array, Backend, CudaDevice, Device, Element, Function, KernelModule, LaunchConfig, RealFloat,
    Result,
};
use rayon::prelude::*;

const SRC: &str = include_str!("ltisys.cu");
// ---------------------------------------------------------------------------------------------
// time responses

/// A simulated time response: times, outputs and states.
#[derive(Clone, Debug)]
pub struct Response<T: Element> {
    /// The times of the samples.
    pub t: Vec<f64>,
    /// Outputs, `(..., n_steps, n_outputs)` (the batch axes of the input first).
    pub y: Array<T>,
    /// States, `(..., n_steps, n_states)`.
    pub x: Array<T>,
}

/// The state recurrence and input interpolation kernels (`ltisys.cu`) for a real type.
pub(crate) static LTI: KernelModule = KernelModule {
    name: "signal_lsim",
    source: |s| typed_source("signal_lsim", s, &[], SRC),
    options: &[],
    samples: || each_dtype(&REAL_DTYPES),
};

fn kernel<T: Element>(d: &CudaDevice, name: &str) -> Result<Function> {
    typed_kernel(&LTI, d, T::DTYPE, name)
}

/// The discrete recurrence to run: `x[i] = ad x[i-1] + b0 u[i-1] + b1 u[i]`, `y = c x + d u`.
struct Recurrence {
    ad: Mat,
    b0: Mat,
    b1: Option<Mat>,
    c: Mat,
    d: Mat,
    x0: Vec<f64>,
}

/// Splits `u`'s shape into (batch shape, n_steps, n_inputs): rank 1 is `(n_steps,)` of a
/// single-input system, rank ≥ 2 is `(..., n_steps, n_inputs)`.
fn u_dims(op: &str, u: &[usize], n_inputs: usize) -> Result<(Vec<usize>, usize, usize)> {
    let (batch, nt, m) = match u.len() {
        0 => return Err(make::shape(op, "u must have at least one dimension")),
        1 => (vec![], u[0], 1),
        k => (u[..k - 2].to_vec(), u[k - 2], u[k - 1]),
    };
    if m != n_inputs {
        return Err(make::shape(
            op,
            format!("the system has {n_inputs} inputs but u has shape {u:?} (last axis: inputs)"),
        ));
    }
    Ok((batch, nt, m))
}

fn run_recurrence<T: RealFloat>(
    op: &str,
    r: &Recurrence,
    u: &Array<T>,
    batch_shape: &[usize],
    nt: usize,
) -> Result<(Array<T>, Array<T>)> {
    let (ns, ni, no) = (r.ad.rows, r.b0.cols, r.c.rows);
    let batch: usize = batch_shape.iter().product();
    let mut xs = batch_shape.to_vec();
    xs.extend([nt, ns]);
    let mut ys = batch_shape.to_vec();
    ys.extend([nt, no]);
    let dev = u.device();
    match u.backend() {
        Backend::Host(hu) => {
            let ud = hu.try_to_contiguous()?;
            if ud.iter().any(|v| !RealFloat::to_f64(*v).is_finite()) {
                return Err(make::arg(op, "u must be finite"));
            }
            let mut x = vec![<T as Element>::zero(); batch * nt * ns];
            let mut y = vec![<T as Element>::zero(); batch * nt * no];
            if batch > 0 && nt > 0 {
                let b1 = r.b1.as_ref();
                x.par_chunks_mut((nt * ns).max(1))
                    .zip(y.par_chunks_mut((nt * no).max(1)))
                    .enumerate()
                    .for_each(|(bi, (xb, yb))| {
                        let ub = &ud[bi * nt * ni..(bi + 1) * nt * ni];
                        for (xj, &v) in xb.iter_mut().zip(&r.x0) {
                            *xj = T::from_f64(v);
                        }
                        for i in 1..nt {
                            for j in 0..ns {
                                let mut s = 0.0f64;
                                for k in 0..ns {
                                    s += r.ad.at(j, k) * xb[(i - 1) * ns + k].to_f64();
                                }
                                for k in 0..ni {
                                    s += r.b0.at(j, k) * ub[(i - 1) * ni + k].to_f64();
                                }
                                if let Some(b1) = b1 {
                                    for k in 0..ni {
                                        s += b1.at(j, k) * ub[i * ni + k].to_f64();
                                    }
                                }
                                xb[i * ns + j] = T::from_f64(s);
                            }
                        }
                        for i in 0..nt {
                            for q in 0..no {
                                let mut s = 0.0f64;
                                for k in 0..ns {
                                    s += r.c.at(q, k) * xb[i * ns + k].to_f64();
                                }
                                for k in 0..ni {
                                    s += r.d.at(q, k) * ub[i * ni + k].to_f64();
                                }
                                yb[i * no + q] = T::from_f64(s);
                            }
                        }
                    });
            }
            Ok((Array::from_vec(y, &ys, dev)?, Array::from_vec(x, &xs, dev)?))
        }
        Backend::Cuda(cu) => {
            let uc = u.contiguous()?;
            let mut x = Array::<T>::empty(&xs, dev)?;
            let mut y = Array::<T>::empty(&ys, dev)?;
            if batch == 0 || nt == 0 {
                return Ok((y, x));
            }
            let mut coef = Vec::new();
            let mut offs = Vec::new();
            let zeros_b1 = Mat::zeros(ns, ni);
            for m in [&r.ad, &r.b0, r.b1.as_ref().unwrap_or(&zeros_b1), &r.c, &r.d] {
                offs.push(coef.len());
                coef.extend(&m.data);
            }
            offs.push(coef.len());
            coef.extend(&r.x0);
            coef.push(0.0); // never empty
            let cd = Array::from_vec(coef, &[offs[5] + ns + 1], dev)?;
            let base = cd.dev_ptr()?;
            let d = cu.dev();
            d.launch(&kernel::<T>(d, "lsim")?, LaunchConfig::cover(batch, 64)?)
                .arg(base.add(offs[0])?)
                .arg(base.add(offs[1])?)
                .arg(base.add(offs[2])?)
                .arg(base.add(offs[3])?)
                .arg(base.add(offs[4])?)
                .arg(base.add(offs[5])?)
                .arg(uc.dev_ptr()?)
                .arg(x.dev_ptr_mut()?)
                .arg(y.dev_ptr_mut()?)
                .arg(batch as i64)
                .arg(nt as i64)
                .arg(ns as i32)
                .arg(ni as i32)
                .arg(no as i32)
                .arg(r.b1.is_some() as i32)
                .run()?;
            Ok((y, x))
        }
    }
}

fn x0_of(op: &str, x0: Option<&[f64]>, n: usize) -> Result<Vec<f64>> {
    match x0 {
        None => Ok(vec![0.0; n]),
        Some(v) if v.len() == n => {
            if v.iter().any(|x| !x.is_finite()) {
                return Err(make::arg(op, "x0 must be finite"));
            }
            Ok(v.to_vec())
        }
        Some(v) => Err(make::shape(
            op,
            format!("x0 has {} values but the system has {n} states", v.len()),
        )),
    }
}

/// `scipy.signal.dlsim(system, u, t, x0)`: the response of a discrete system to the input `u`:
/// `x[k+1] = A x[k] + B u[k]`, `y[k] = C x[k] + D u[k]`.
///
/// `u` is `(n_steps,)` for a single-input system, or `(..., n_steps, n_inputs)`: leading axes
/// are a batch of independent input signals, simulated in parallel (one GPU thread each). The
/// outputs are `y` `(..., n_out, n_outputs)` and `x` `(..., n_out, n_states)` (not squeezed).
///
/// Without `t`, `u` holds one sample per `dt` and `t = k·dt`. With `t` (the times of `u`'s
/// samples: strictly increasing, not necessarily evenly spaced) SciPy's rule is followed: the
/// simulation has `n_out = floor(t[-1]/dt) + 1` steps at the times `linspace(0, t[-1], n_out)`
/// (returned as `t`; spaced `t[-1]/(n_out - 1)`, which is `dt` only when `t[-1]` is a multiple of
/// it), and the input is linearly interpolated onto them from `(t, u)` (SciPy's
/// `make_interp_spline(t, u, k=1)`, extrapolating linearly before `t[0]`).
/// The interpolation runs on `u`'s device (one thread per output value, in `f64`), then the
/// recurrence. Runs on `u`'s device.
///
/// Errors: `InvalidArgument` for a continuous system, non-finite `u` (CPU), `t` or `x0`, times
/// that are not strictly increasing, `t[-1] < 0` (no sample), a `t` of one time (SciPy returns
/// NaN there); `ShapeMismatch` when `u`'s last
/// axis is not the number of inputs, `t` does not hold one time per step of `u`, or `x0` is not
/// one value per state.
///
/// ```
/// use cusci_signal::{ltisys::{dlsim, Lti}, Array, Device};
/// let sys = Lti::dtf(&[1.0], &[1.0, -0.5], 1.0).unwrap();
/// let u = Array::from_vec(vec![1.0, 0.0, 0.0], &[3], &Device::Cpu).unwrap();
/// let r = dlsim(&sys, &u, None, None).unwrap();
/// assert_eq!(r.y.to_vec().unwrap(), vec![0.0, 1.0, 0.5]);
/// // the same input given at t = 0, 2, 4: interpolated onto 0, 1, 2, 3, 4
/// let r = dlsim(&sys, &u, Some(&[0.0, 2.0, 4.0]), None).unwrap();
/// assert_eq!(r.t, vec![0.0, 1.0, 2.0, 3.0, 4.0]);
/// assert_eq!(r.y.to_vec().unwrap(), vec![0.0, 1.0, 1.0, 0.5, 0.25]);
/// ```
pub fn dlsim<T: RealFloat>(
    sys: &Lti,
    u: &Array<T>,
    t: Option<&[f64]>,
    x0: Option<&[f64]>,
) -> Result<Response<T>> {
    let op = "dlsim";
    let dt = discrete(op, sys)?;
    let ss = sys.to_ss()?;
    let (batch, nt, ni) = u_dims(op, u.shape(), ss.inputs())?;
    let r = Recurrence {
        x0: x0_of(op, x0, ss.states())?,
        ad: ss.a,
        b0: ss.b,
        b1: None,
        c: ss.c,
        d: ss.d,
    };
    let Some(t) = t else {
        let (y, x) = run_recurrence(op, &r, u, &batch, nt)?;
        let t = linspace(0.0, (nt as f64 - 1.0) * dt, nt);
        return Ok(Response { t, y, x });
    };
    if t.len() != nt {
        return Err(make::shape(
            op,
            format!(
                "Shapes of t ({}) and u ({nt} steps) are incompatible",
                t.len()
            ),
        ));
    }
    if t.iter().any(|v| !v.is_finite()) {
        return Err(make::arg(op, "t must be finite"));
    }
    if t.windows(2).any(|w| w[1] <= w[0]) {
        return Err(make::arg(
            op,
            "Expect t to be a 1D strictly increasing sequence.",
        ));
    }
    if nt < 2 {
        // SciPy's make_interp_spline(k=1) of one point is NaN at t[0] and 0 elsewhere
        return Err(make::arg(
            op,
            "t needs at least two times to interpolate u (SciPy's result is NaN for one)",
        ));
    }
    let stop = t[nt - 1];
    let samples = (stop / dt).floor() + 1.0;
    if samples < 1.0 {
        return Err(make::arg(
            op,
            format!("t[-1] = {stop} < 0: no output sample"),
        ));
    }
    let samples = samples as usize;
    let tout = linspace(0.0, stop, samples);
    // interpolation table: for each output time the left sample and the two weights
    let mut idx = Vec::with_capacity(samples);
    let mut h = Vec::with_capacity(2 * samples);
    for &x in &tout {
        let l = t.partition_point(|&v| v <= x).clamp(1, nt - 1) - 1;
        let w = 1.0 / (t[l + 1] - t[l]);
        idx.push(l as i64);
        h.extend([w * (t[l + 1] - x), w * (x - t[l])]);
    }
    let ui = interp_input(op, u, &batch, nt, ni, &idx, &h)?;
    let (y, x) = run_recurrence(op, &r, &ui, &batch, samples)?;
    Ok(Response { t: tout, y, x })
}

/// `out[b, s, k] = u[b, idx[s], k]·h[2s] + u[b, idx[s] + 1, k]·h[2s + 1]` (the second sample
/// clamped to the last), in `f64`, on `u`'s device: `(batch..., idx.len(), ni)`.
fn interp_input<T: RealFloat>(
    op: &str,
    u: &Array<T>,
    batch_shape: &[usize],
    nt: usize,
    ni: usize,
    idx: &[i64],
    h: &[f64],
) -> Result<Array<T>> {
    let batch: usize = batch_shape.iter().product();
    let ns = idx.len();
    let mut shape = batch_shape.to_vec();
    shape.extend([ns, ni]);
    let dev = u.device();
    match u.backend() {
        Backend::Host(hu) => {
            let ud = hu.try_to_contiguous()?;
            if ud.iter().any(|v| !RealFloat::to_f64(*v).is_finite()) {
                return Err(make::arg(op, "u must be finite"));
            }
            let mut out = vec![<T as Element>::zero(); batch * ns * ni];
            for b in 0..batch {
                for s in 0..ns {
                    let i0 = idx[s] as usize;
                    let i1 = (i0 + 1).min(nt - 1);
                    for k in 0..ni {
                        let u0 = ud[(b * nt + i0) * ni + k].to_f64();
                        let u1 = ud[(b * nt + i1) * ni + k].to_f64();
                        out[(b * ns + s) * ni + k] = T::from_f64(u0 * h[2 * s] + u1 * h[2 * s + 1]);
                    }
                }
            }
            Array::from_vec(out, &shape, dev)
        }
        Backend::Cuda(cu) => {
            let uc = u.contiguous()?;
            let mut out = Array::<T>::empty(&shape, dev)?;
            let total = batch * ns * ni;
            if total == 0 {
                return Ok(out);
            }
            let idx_d = Array::from_vec(idx.to_vec(), &[ns], dev)?;
            let h_d = Array::from_vec(h.to_vec(), &[2 * ns], dev)?;
            let d = cu.dev();
            d.launch(&kernel::<T>(d, "interp")?, LaunchConfig::cover(total, 256)?)
                .arg(uc.dev_ptr()?)
                .arg(idx_d.dev_ptr()?)
                .arg(h_d.dev_ptr()?)
                .arg(out.dev_ptr_mut()?)
                .arg(batch as i64)
                .arg(nt as i64)
                .arg(ns as i64)
                .arg(ni as i32)
                .run()?;
            Ok(out)
        }
    }
}

/// `numpy.linspace(start, stop, n)` (endpoint included).
fn linspace(start: f64, stop: f64, n: usize) -> Vec<f64> {
    match n {
        0 => vec![],
        1 => vec![start],
        _ => {
            let step = (stop - start) / (n - 1) as f64;
            let mut v: Vec<f64> = (0..n).map(|i| i as f64 * step + start).collect();
            v[n - 1] = stop;
            v
        }
    }
}

/// Options of [`lsim`] (SciPy's `X0` and `interp`).
#[derive(Clone, Debug, PartialEq)]
pub struct LsimOptions {
    /// Initial state (zeros when `None`).
    pub x0: Option<Vec<f64>>,
    /// Linear interpolation of the input between samples (first-order hold, SciPy's default
    /// `True`); `false` holds each sample (zero-order hold).
    pub interp: bool,
}

impl Default for LsimOptions {
    fn default() -> Self {
        LsimOptions {
            x0: None,
            interp: true,
        }
    }
}

/// The exact discretisation of `ss` over one step `dt` (SciPy's lsim: the exponential of the
/// augmented matrix), as a recurrence.
fn lsim_recurrence(ss: &StateSpace, dt: f64, interp: bool, x0: Vec<f64>) -> Result<Recurrence> {
    let (n, m) = (ss.states(), ss.inputs());
    let size = if interp { n + 2 * m } else { n + m };
    let mut em = Mat::zeros(size, size);
    for i in 0..n {
        for j in 0..n {
            em.set(i, j, ss.a.at(i, j) * dt);
        }
        for j in 0..m {
            em.set(i, n + j, ss.b.at(i, j) * dt);
        }
    }
    if interp {
        for j in 0..m {
            em.set(n + j, n + m + j, 1.0);
        }
    }
    // SciPy exponentiates the transpose and reads transposed blocks: the same matrices
    let e = expm(&em.transpose())?.transpose();
    let ad = e.block(0, n, 0, n);
    let (b0, b1) = if interp {
        let b1 = e.block(0, n, n + m, n + 2 * m);
        (e.block(0, n, n, n + m).zip(&b1, |x, y| x - y), Some(b1))
    } else {
        (e.block(0, n, n, n + m), None)
    };
    Ok(Recurrence {
        ad,
        b0,
        b1,
        c: ss.c.clone(),
        d: ss.d.clone(),
        x0,
    })
}

/// Validates equally spaced, non-negative times; returns the step (0 for one sample) and moves
/// `x0` forward to `t[0]` when it is positive (SciPy's lsim).
fn lsim_times(op: &str, ss: &StateSpace, t: &[f64], x0: Vec<f64>) -> Result<(f64, Vec<f64>)> {
    if t.is_empty() {
        return Err(make::arg(op, "T must hold at least one time"));
    }
    if t.iter().any(|v| !v.is_finite()) {
        return Err(make::arg(op, "T must be finite"));
    }
    if t[0] < 0.0 {
        return Err(make::arg(op, "Initial time must be nonnegative"));
    }
    let x0 = if t[0] > 0.0 && ss.states() > 0 {
        let e = expm(&ss.a.scale(t[0]))?;
        (0..ss.states())
            .map(|i| (0..ss.states()).map(|k| e.at(i, k) * x0[k]).sum())
            .collect()
    } else {
        x0
    };
    if t.len() == 1 {
        return Ok((0.0, x0));
    }
    let dt = t[1] - t[0];
    // np.allclose(np.diff(T), dt)
    if t.windows(2)
        .any(|w| ((w[1] - w[0]) - dt).abs() > 1e-8 + 1e-5 * dt.abs())
    {
        return Err(make::arg(op, "Time steps are not equally spaced."));
    }
    if dt <= 0.0 {
        return Err(make::arg(op, "T must be increasing"));
    }
    Ok((dt, x0))
}

/// `scipy.signal.lsim(system, U, T, X0, interp)`: the response of a continuous system to the
/// input `u` sampled at the equally spaced times `t`, exact for an input that is linear between
/// samples (`interp`) or held (`!interp`): the system is discretised over one step by the
/// exponential of an augmented matrix (cusci-linalg's `expm`, on the host), then the recurrence
/// runs on `u`'s device (see [`dlsim`] for the shapes: `u` is `(n_steps,)` or
/// `(..., n_steps, n_inputs)`; `y` and `x` are not squeezed).
///
/// Errors: `InvalidArgument` for a discrete system, times that are empty, negative at the start,
/// not finite or not equally spaced; `ShapeMismatch` when `u` does not hold `t.len()` steps of
/// `n_inputs` values, or `x0` is not one value per state.
///
/// ```
/// use cusci_signal::{ltisys::{lsim, Lti, LsimOptions}, Array, Device};
/// let sys = Lti::tf(&[1.0], &[1.0, 1.0]).unwrap();
/// let u = Array::from_vec(vec![1.0; 3], &[3], &Device::Cpu).unwrap();
/// let r = lsim(&sys, &u, &[0.0, 1.0, 2.0], &LsimOptions::default()).unwrap();
/// assert!((r.y.to_vec().unwrap()[2] - (1.0 - (-2.0f64).exp())).abs() < 1e-12);
/// ```
pub fn lsim<T: RealFloat>(
    sys: &Lti,
    u: &Array<T>,
    t: &[f64],
    opts: &LsimOptions,
) -> Result<Response<T>> {
    let op = "lsim";
    continuous(op, sys)?;
    let ss = sys.to_ss()?;
    let (batch, nt, _) = u_dims(op, u.shape(), ss.inputs())?;
    if nt != t.len() {
        return Err(make::shape(
            op,
            format!("U has {nt} time steps but T has {}", t.len()),
        ));
    }
    let x0 = x0_of(op, opts.x0.as_deref(), ss.states())?;
    let (dt, x0) = lsim_times(op, &ss, t, x0)?;
    let r = lsim_recurrence(&ss, dt, opts.interp, x0)?;
    let (y, x) = run_recurrence(op, &r, u, &batch, nt)?;
    Ok(Response {
        t: t.to_vec(),
        y,
        x,
    })
}

/// SciPy's `_default_response_times`: `n` times over `[0, 7/r]`, `r` the smallest magnitude of
/// the real parts of the poles (1 when it is 0).
fn default_times(op: &str, ss: &StateSpace, n: usize) -> Result<Vec<f64>> {
    let vals = eigvals(&ss.a)?;
    if vals.is_empty() {
        return Err(make::arg(
            op,
            "a system without states needs explicit times T",
        ));
    }
    let mut r = vals.iter().fold(f64::INFINITY, |m, v| m.min(v.re.abs()));
    if r == 0.0 {
        r = 1.0;
    }
    Ok(linspace(0.0, 7.0 * (1.0 / r), n))
}

/// Options of [`impulse`] and [`step`] (SciPy's `X0`, `T`, `N`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ResponseOptions {
    /// Initial state (zeros when `None`).
    pub x0: Option<Vec<f64>>,
    /// Times (equally spaced); `None`: `n` times chosen from the poles (SciPy's
    /// `_default_response_times`).
    pub t: Option<Vec<f64>>,
    /// Number of times when `t` is `None` (100 when `None`).
    pub n: Option<usize>,
}

fn siso_times(op: &str, sys: &Lti, opts: &ResponseOptions) -> Result<(StateSpace, Vec<f64>)> {
    continuous(op, sys)?;
    let ss = sys.to_ss()?;
    if ss.inputs() != 1 {
        return Err(make::arg(
            op,
            format!(
                "{op} needs a single-input system, got {} inputs",
                ss.inputs()
            ),
        ));
    }
    let t = match &opts.t {
        Some(t) => t.clone(),
        None => default_times(op, &ss, opts.n.unwrap_or(100))?,
    };
    Ok((ss, t))
}

/// `scipy.signal.impulse(system, X0, T, N)`: the impulse response of a continuous single-input
/// system (the free response from the state `B + X0`), on `dev`. Returns `y` `(n_steps,
/// n_outputs)` and `x` `(n_steps, n_states)`.
///
/// Errors: `InvalidArgument` for a discrete or multi-input system, a system without states and no
/// `t`; those of [`lsim`].
///
/// ```
/// use cusci_signal::{ltisys::{impulse, Lti}, Device};
/// let sys = Lti::tf(&[1.0], &[1.0, 1.0]).unwrap();
/// let r = impulse::<f64>(&sys, &Default::default(), &Device::Cpu).unwrap();
/// assert_eq!(r.y.shape(), &[100, 1]);
/// ```
pub fn impulse<T: RealFloat>(
    sys: &Lti,
    opts: &ResponseOptions,
    dev: &Device,
) -> Result<Response<T>> {
    let op = "impulse";
    let (ss, t) = siso_times(op, sys, opts)?;
    let mut x0 = x0_of(op, opts.x0.as_deref(), ss.states())?;
    for (i, v) in x0.iter_mut().enumerate() {
        *v += ss.b.at(i, 0);
    }
    let u = Array::<T>::zeros(&[t.len(), 1], dev)?;
    let (dt, x0) = lsim_times(op, &ss, &t, x0)?;
    let r = lsim_recurrence(&ss, dt, false, x0)?;
    let (y, x) = run_recurrence(op, &r, &u, &[], t.len())?;
    Ok(Response { t, y, x })
}

/// `scipy.signal.step(system, X0, T, N)`: the step response of a continuous single-input
/// system (a held unit input), on `dev`; shapes as [`impulse`].
///
/// Errors: as [`impulse`].
pub fn step<T: RealFloat>(sys: &Lti, opts: &ResponseOptions, dev: &Device) -> Result<Response<T>> {
    let op = "step";
    let (ss, t) = siso_times(op, sys, opts)?;
    let x0 = x0_of(op, opts.x0.as_deref(), ss.states())?;
    let u = Array::<T>::from_vec(vec![<T as Element>::one(); t.len()], &[t.len(), 1], dev)?;
    let (dt, x0) = lsim_times(op, &ss, &t, x0)?;
    let r = lsim_recurrence(&ss, dt, false, x0)?;
    let (y, x) = run_recurrence(op, &r, &u, &[], t.len())?;
    Ok(Response { t, y, x })
}

/// Options of [`dimpulse`] and [`dstep`] (SciPy's `x0` and `n`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DResponseOptions {
    /// Initial state (zeros when `None`).
    pub x0: Option<Vec<f64>>,
    /// Number of samples (100 when `None`).
    pub n: Option<usize>,
}

fn d_response<T: RealFloat>(
    op: &str,
    sys: &Lti,
    opts: &DResponseOptions,
    dev: &Device,
    is_step: bool,
) -> Result<Response<T>> {
    let dt = discrete(op, sys)?;
    let ss = sys.to_ss()?;
    let n = opts.n.unwrap_or(100);
    let m = ss.inputs();
    // SciPy: t = linspace(0, n*dt, n, endpoint=False), passed to dlsim, which resamples the
    // input linearly onto linspace(0, t[-1], floor(t[-1]/dt) + 1)
    let step = n as f64 * dt / n as f64;
    let t_in: Vec<f64> = (0..n).map(|i| i as f64 * step).collect();
    let (tout, samples) = if n == 0 {
        (vec![], 0)
    } else {
        let stop = t_in[n - 1];
        let k = (stop / dt).floor() as usize + 1;
        (linspace(0.0, stop, k), k)
    };
    // one batch entry per input: a unit impulse (or step) on that input
    let mut u = vec![<T as Element>::zero(); m * samples * m];
    for i in 0..m {
        for (s, &tv) in tout.iter().enumerate() {
            // linear interpolation of the input column i (impulse: 1 at t_in[0] only)
            let v = if is_step || n == 1 {
                1.0
            } else {
                let pos = t_in.partition_point(|&x| x <= tv).clamp(1, n - 1);
                let (t0, t1) = (t_in[pos - 1], t_in[pos]);
                // the impulse column is 1 at t_in[0] and 0 after: only the first interval ramps
                let u0 = if pos == 1 { 1.0 } else { 0.0 };
                u0 + (0.0 - u0) * (tv - t0) / (t1 - t0)
            };
            u[(i * samples + s) * m + i] = T::from_f64(v);
        }
    }
    let u = Array::from_vec(u, &[m, samples, m], dev)?;
    let r = Recurrence {
        x0: x0_of(op, opts.x0.as_deref(), ss.states())?,
        ad: ss.a,
        b0: ss.b,
        b1: None,
        c: ss.c,
        d: ss.d,
    };
    let (y, x) = run_recurrence(op, &r, &u, &[m], samples)?;
    Ok(Response { t: tout, y, x })
}

/// `scipy.signal.dimpulse(system, x0, n)`: the impulse response of a discrete system from each
/// input, on `dev`: `y` is `(n_inputs, n, n_outputs)` (SciPy's tuple of one `(n, n_outputs)`
/// array per input, stacked), `x` `(n_inputs, n, n_states)`. As SciPy, the sample count comes
/// from `floor(t[-1]/dt) + 1` with `t = linspace(0, n·dt, n, endpoint=False)` (which can be
/// `n - 1` through rounding).
///
/// Errors: `InvalidArgument` for a continuous system; `ShapeMismatch` for a wrong `x0`.
///
/// ```
/// use cusci_signal::{ltisys::{dimpulse, Lti, DResponseOptions}, Device};
/// let sys = Lti::dtf(&[1.0], &[1.0, -0.5], 1.0).unwrap();
/// let opts = DResponseOptions { n: Some(3), ..Default::default() };
/// let r = dimpulse::<f64>(&sys, &opts, &Device::Cpu).unwrap();
/// assert_eq!(r.y.to_vec().unwrap(), vec![0.0, 1.0, 0.5]);
/// ```
pub fn dimpulse<T: RealFloat>(
    sys: &Lti,
    opts: &DResponseOptions,
    dev: &Device,
) -> Result<Response<T>> {
    d_response("dimpulse", sys, opts, dev, false)
}

/// `scipy.signal.dstep(system, x0, n)`: the step response of a discrete system from each input,
/// on `dev`; shapes as [`dimpulse`].
///
/// Errors: as [`dimpulse`].
pub fn dstep<T: RealFloat>(
    sys: &Lti,
    opts: &DResponseOptions,
    dev: &Device,
) -> Result<Response<T>> {
    d_response("dstep", sys, opts, dev, true)
}
