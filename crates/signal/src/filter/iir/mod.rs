//! IIR filtering: [`lfilter`], [`sosfilt`], [`lfilter_zi`], [`sosfilt_zi`] (`scipy.signal`'s).
//!
//! Both filters run along any axis of an array of any rank, every signal of the batch in one
//! pass. The CPU reference runs the recurrence serially per signal (rayon over signals). The GPU
//! has two shapes of work: with many signals (or short ones) one thread filters one signal; with
//! few long signals each signal is cut into chunks and the recurrence is scanned block-parallel
//! as an affine map of the filter state: every chunk is filtered from a zero state (its final
//! state `f_c`), the true initial states follow from the carry `s_{c+1} = M s_c + f_c` (`M` the
//! zero-input state map over one chunk, a two-level scan for long signals), and every chunk is
//! filtered again from its true initial state. Many long contiguous signals take a block-tiled
//! form of the same scan (one block per signal, `tiles` in `iir.cu`, shape chosen by
//! `cuda::tile_plan`), initial and final states included. The arithmetic of each output sample
//! is the same recurrence as on the CPU; only the carried states differ by rounding (relative
//! 1e-15 in f64 for well-damped filters, up to ~1e-9 of the output's scale for order-8 ba forms,
//! see `cuda::tile_plan`).
//!
//! The front end (this file) validates, plans the states' shapes and matches on the device
//! once; `form` holds the host side of the filters, `cpu` the CPU reference, `cuda` the kernels.

mod cpu;
mod cuda;
mod form;

pub(crate) use cuda::IIR;
pub(crate) use form::{ba_filter, lfilter_zi_host};

use crate::procutil::{host, host_elems, split_axis, SignalScalar};
use cpu::{cpu_apply, cpu_filtfilt};
use cuda::{cuda_apply, IirIo};
use cusci_core::array::check_same_device;
use cusci_core::array::layout::norm_axis;
use cusci_core::error::make;
use cusci_core::{Array, Backend, Element, Result};
use form::{sos_filter, Iir};

/// The optional arguments of [`lfilter`] and [`sosfilt`] (`axis=`, `zi=`).
///
/// ```
/// use cusci_signal::FilterOptions;
/// let o = FilterOptions::<f64>::default();
/// assert_eq!(o.axis, -1);
/// assert!(o.zi.is_none());
/// ```
#[derive(Debug, Clone)]
pub struct FilterOptions<'a, T: Element> {
    /// The axis along which to filter (negative counts from the end). Default `-1`.
    pub axis: isize,
    /// Initial conditions of the filter delays. For [`lfilter`]: shape of `x` with the axis
    /// length replaced by `max(len(a), len(b)) - 1`; for [`sosfilt`]: `(n_sections, ..., 2, ...)`
    /// (the shape of `x` with the axis length replaced by 2, after a leading `n_sections`).
    /// For [`lfilter`], arrays that broadcast to that shape are accepted; [`sosfilt`] wants the
    /// exact shape (both as SciPy). With `zi`, the final states
    /// are returned. Default `None` (initial rest).
    pub zi: Option<&'a Array<T>>,
}

impl<T: Element> Default for FilterOptions<'_, T> {
    fn default() -> Self {
        FilterOptions { axis: -1, zi: None }
    }
}

/// The result of [`lfilter`] and [`sosfilt`]: the filtered signals, and the final filter
/// states when initial states were given (SciPy's `(y, zf)`).
#[derive(Debug, Clone)]
pub struct Filtered<T: Element> {
    /// The output, same shape and device as `x`.
    pub y: Array<T>,
    /// The final states (the shape of `zi`), when `zi` was given.
    pub zf: Option<Array<T>>,
}

fn coef_vec<T: SignalScalar>(op: &str, name: &str, a: &Array<T>) -> Result<Vec<T>> {
    if a.ndim() != 1 {
        return Err(make::shape(
            op,
            format!("{name} must be one-dimensional, got shape {:?}", a.shape()),
        ));
    }
    host(a)
}

/// Filters `x` along `opts.axis` with the rational transfer function `b(z)/a(z)`, SciPy's
/// `scipy.signal.lfilter(b, a, x, axis, zi)` (transposed direct form II).
///
/// `y[n] = (b[0] x[n] + ... + b[M] x[n-M] - a[1] y[n-1] - ... - a[N] y[n-N]) / a[0]`.
/// Coefficients may live on any device; they are read to the host (a small synchronous copy
/// when they are on a GPU). The output has `x`'s shape and device; see [`Filtered`].
///
/// # Errors
/// `ShapeMismatch` when `b` or `a` is not 1-D or `zi` does not broadcast to its shape;
/// `InvalidArgument` for empty `b` or `a`, `a[0] == 0`, coefficients that are not finite, or a
/// bad axis.
///
/// ```
/// use cusci_signal::{lfilter, FilterOptions, Array, Device};
/// let dev = Device::cpu();
/// let b = Array::from_vec(vec![0.5, 0.5], &[2], &dev).unwrap();
/// let a = Array::from_vec(vec![1.0, -0.5], &[2], &dev).unwrap();
/// let x = Array::from_vec(vec![1.0, 0.0, 0.0], &[3], &dev).unwrap();
/// let y = lfilter(&b, &a, &x, &FilterOptions::default()).unwrap().y.to_vec().unwrap();
/// assert_eq!(y, vec![0.5, 0.75, 0.375]);
/// ```
pub fn lfilter<T: SignalScalar>(
    b: &Array<T>,
    a: &Array<T>,
    x: &Array<T>,
    opts: &FilterOptions<T>,
) -> Result<Filtered<T>> {
    let op = "lfilter";
    let bv = coef_vec(op, "b", b)?;
    let av = coef_vec(op, "a", a)?;
    let (iir, nuser) = ba_filter(op, &bv, &av)?;
    apply(op, &iir, nuser, x, opts)
}

/// Filters `x` along `opts.axis` with a cascade of second-order sections, SciPy's
/// `scipy.signal.sosfilt(sos, x, axis, zi)`.
///
/// `sos` has shape `(n_sections, 6)`, each row `[b0, b1, b2, a0, a1, a2]` with `a0 == 1`
/// (as SciPy requires). It is read to the host (synchronously when it is on a GPU).
///
/// # Errors
/// `ShapeMismatch` when `sos` is not `(n, 6)` or `zi` does not broadcast to
/// `(n_sections, ..., 2, ...)`; `InvalidArgument` for no sections, `a0 != 1`, coefficients that
/// are not finite, or a bad axis.
///
/// ```
/// use cusci_signal::{sosfilt, FilterOptions, Array, Device};
/// let dev = Device::cpu();
/// // one first-order section: y[n] = x[n] + 0.5 y[n-1]
/// let sos = Array::from_vec(vec![1.0, 0.0, 0.0, 1.0, -0.5, 0.0], &[1, 6], &dev).unwrap();
/// let x = Array::from_vec(vec![1.0, 0.0, 0.0], &[3], &dev).unwrap();
/// let y = sosfilt(&sos, &x, &FilterOptions::default()).unwrap().y.to_vec().unwrap();
/// assert_eq!(y, vec![1.0, 0.5, 0.25]);
/// ```
pub fn sosfilt<T: SignalScalar>(
    sos: &Array<T>,
    x: &Array<T>,
    opts: &FilterOptions<T>,
) -> Result<Filtered<T>> {
    let op = "sosfilt";
    let iir = sos_filter(op, sos)?;
    let n = iir.states();
    apply(op, &iir, n, x, opts)
}

/// The shape of the states: lfilter (x's shape, axis -> ns); sosfilt (nsec, x's shape, axis -> 2).
fn state_shape<T: SignalScalar>(
    iir: &Iir<T>,
    nuser: usize,
    shape: &[usize],
    axis: usize,
) -> Vec<usize> {
    let mut s = shape.to_vec();
    match iir {
        Iir::Ba { .. } => {
            s[axis] = nuser;
            s
        }
        Iir::Sos { nsec, .. } => {
            s[axis] = 2;
            let mut r = vec![*nsec];
            r.extend(s);
            r
        }
    }
}

fn apply<T: SignalScalar>(
    op: &str,
    iir: &Iir<T>,
    nuser: usize,
    x: &Array<T>,
    opts: &FilterOptions<T>,
) -> Result<Filtered<T>> {
    let axis = norm_axis(op, opts.axis, x.ndim())?;
    let zshape = state_shape(iir, nuser, x.shape(), axis);
    let zi = match opts.zi {
        Some(z) => {
            check_same_device(op, x.device(), z.device())?;
            // lfilter broadcasts zi (as SciPy); sosfilt wants the exact shape (as SciPy)
            let exact = matches!(iir, Iir::Sos { .. }) && z.shape() != zshape.as_slice();
            let b = (if exact {
                Err(make::shape(op, ""))
            } else {
                z.broadcast_to(&zshape)
            })
            .map_err(|_| {
                make::shape(
                    op,
                    format!("zi has shape {:?}, expected {:?}", z.shape(), zshape),
                )
            })?;
            Some(b.contiguous()?)
        }
        None => None,
    };
    let (outer, n, inner) = split_axis(x.shape(), axis);
    let want_zf = zi.is_some();
    // a filter without states (nuser == 0) reads and writes no state arrays
    let use_states = nuser > 0;
    match x.backend() {
        Backend::Host(h) => {
            let xd = h.try_to_contiguous()?;
            let zid = match &zi {
                Some(z) if use_states => Some(host_elems(z)?),
                _ => None,
            };
            let (y, zf) = cpu_apply(iir, &xd, outer, n, inner, zid.as_deref(), nuser);
            let y = Array::from_vec(y, x.shape(), x.device())?;
            let zf = if want_zf {
                Some(if use_states {
                    Array::from_vec(zf, &zshape, x.device())?
                } else {
                    Array::zeros(&zshape, x.device())?
                })
            } else {
                None
            };
            Ok(Filtered { y, zf })
        }
        Backend::Cuda(c) => {
            let xc = x.contiguous()?;
            let mut y = Array::<T>::empty(x.shape(), x.device())?;
            let mut zf = if want_zf {
                Some(Array::<T>::zeros(&zshape, x.device())?)
            } else {
                None
            };
            if x.size() > 0 {
                let io = IirIo {
                    x: &xc,
                    y: &mut y,
                    zi: if use_states { zi.as_ref() } else { None },
                    zf: if use_states { zf.as_mut() } else { None },
                };
                cuda_apply(c.dev(), iir, io, (outer, n, inner))?;
            } else if let (Some(zf), Some(zi)) = (&zf, &zi) {
                // no samples: the final states are the initial ones
                let mut zf2 = zf.clone();
                zf2.assign(zi)?;
                return Ok(Filtered { y, zf: Some(zf2) });
            }
            Ok(Filtered { y, zf })
        }
    }
}

/// The initial states of [`lfilter`] for the steady state of a unit step input, SciPy's
/// `scipy.signal.lfilter_zi(b, a)`: a 1-D array of `max(len(a), len(b)) - 1` values on `b`'s
/// device. Multiply it by `x[0]` to start a filter in steady state.
///
/// Computed on the host in `T`'s precision by solving `(I - A^T) zi = b[1:] - a[1:] b[0]` (A the
/// companion matrix of `a`) with partial pivoting, as SciPy.
///
/// # Errors
/// `ShapeMismatch` when `b` or `a` is not 1-D; `InvalidArgument` when all of `a` is zero, or a
/// coefficient is not finite; `Singular` when the system is singular (a pole at z = 1).
///
/// ```
/// use cusci_signal::{lfilter_zi, Array, Device};
/// let dev = Device::cpu();
/// let b = Array::from_vec(vec![0.5f64, 0.5], &[2], &dev).unwrap();
/// let a = Array::from_vec(vec![1.0f64, -0.5], &[2], &dev).unwrap();
/// let zi = lfilter_zi(&b, &a).unwrap().to_vec().unwrap();
/// assert!((zi[0] - 1.5).abs() < 1e-15); // y = 1 for x = 1: z = 0.5 + 0.5*1 + ... = 1.5
/// ```
pub fn lfilter_zi<T: SignalScalar>(b: &Array<T>, a: &Array<T>) -> Result<Array<T>> {
    let op = "lfilter_zi";
    let bv = coef_vec(op, "b", b)?;
    let av = coef_vec(op, "a", a)?;
    let zi = lfilter_zi_host(op, &bv, &av)?;
    let n = zi.len();
    Array::from_vec(zi, &[n], b.device())
}

/// The initial states of [`sosfilt`] for the steady state of a unit step input, SciPy's
/// `scipy.signal.sosfilt_zi(sos)`: shape `(n_sections, 2)`, on `sos`'s device.
///
/// Each section's [`lfilter_zi`] scaled by the DC gain of the sections before it.
///
/// # Errors
/// As [`sosfilt`] for `sos`; `Singular` when a section has a pole at z = 1.
///
/// ```
/// use cusci_signal::{sosfilt_zi, Array, Device};
/// let dev = Device::cpu();
/// let sos = Array::from_vec(vec![0.5f64, 0.5, 0.0, 1.0, -0.5, 0.0], &[1, 6], &dev).unwrap();
/// let zi = sosfilt_zi(&sos).unwrap().to_vec().unwrap();
/// assert!((zi[0] - 1.5).abs() < 1e-15 && zi[1].abs() < 1e-15);
/// ```
pub fn sosfilt_zi<T: SignalScalar>(sos: &Array<T>) -> Result<Array<T>> {
    let op = "sosfilt_zi";
    let iir = sos_filter(op, sos)?;
    let v = host(sos)?;
    let nsec = iir.states() / 2;
    let mut out = Vec::with_capacity(2 * nsec);
    let mut scale = T::one();
    for s in 0..nsec {
        let r = &v[6 * s..6 * s + 6];
        let zi = lfilter_zi_host(op, &r[..3], &r[3..])?;
        let mut z2 = [T::zero(); 2];
        for (k, v) in zi.iter().enumerate().take(2) {
            z2[k] = scale * *v;
        }
        out.extend_from_slice(&z2);
        let bs = r[0] + r[1] + r[2];
        let as_ = r[3] + r[4] + r[5];
        scale = scale * (bs / as_);
    }
    Array::from_vec(out, &[nsec, 2], sos.device())
}

/// `sosfiltfilt`'s pad method on the host ([`cpu::cpu_filtfilt`]): `zi` the steady states of
/// [`sosfilt_zi`] (flat), `edge` the extension's length, `mode` its kind (0 odd, 1 even,
/// 2 constant; unused when `edge == 0`). `sos` on the host, `x` on the host.
pub(crate) fn sosfiltfilt_host<T: SignalScalar>(
    sos: &Array<T>,
    x: &Array<T>,
    ax: usize,
    zi: &[T],
    edge: usize,
    mode: i32,
) -> Result<Array<T>> {
    let iir = sos_filter("sosfiltfilt", sos)?;
    let (outer, n, inner) = split_axis(x.shape(), ax);
    let Backend::Host(h) = x.backend() else {
        return Err(make::arg("sosfiltfilt", "the host path takes a host array"));
    };
    let xd = h.try_to_contiguous()?;
    let y = cpu_filtfilt(&iir, &xd, outer, n, inner, zi, edge, mode);
    Array::from_vec(y, x.shape(), x.device())
}
