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
//! [`tile_plan`]), initial and final states included. The arithmetic of each output sample is the
//! same recurrence as on the CPU; only the carried states differ by rounding (relative 1e-15 in
//! f64 for well-damped filters, up to ~1e-9 of the output's scale for order-8 ba forms, see
//! [`tile_plan`]).

use crate::procutil::{
    blocks_for, cpu_contig, cuda_type, dptr, host, norm_axis, split_axis, SignalScalar,
};
use cusci_core::cuda::kernel::{Args, LaunchConfig};
use cusci_core::error::make;
use cusci_core::{c64, Array, CudaDevice, Device, Element, Result};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

const SRC: &str = include_str!("iir.cu");

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

/// A normalised IIR filter (a0 = 1).
#[derive(Debug, Clone)]
pub(crate) enum Iir<T> {
    /// Transposed direct form II: `c = [b_0..b_ns, a_0..a_ns]`, `ns` states.
    Ba { c: Vec<T>, ns: usize },
    /// Second-order sections: `c = [b0 b1 b2 a1 a2]` per section.
    Sos { c: Vec<T>, nsec: usize },
}

impl<T: SignalScalar> Iir<T> {
    pub(crate) fn states(&self) -> usize {
        match self {
            Iir::Ba { ns, .. } => *ns,
            Iir::Sos { nsec, .. } => 2 * nsec,
        }
    }

    /// One sample through the filter; the same operations, in the same order, as `iir.cu`.
    #[inline(always)]
    pub(crate) fn step(&self, z: &mut [T], mut v: T) -> T {
        match self {
            Iir::Ba { c, ns } => {
                let ns = *ns;
                let y = c[0] * v + z[0];
                for k in 0..ns - 1 {
                    z[k] = c[k + 1] * v - c[ns + 2 + k] * y + z[k + 1];
                }
                z[ns - 1] = c[ns] * v - c[2 * ns + 1] * y;
                y
            }
            Iir::Sos { c, nsec } => {
                for s in 0..*nsec {
                    let q = &c[5 * s..5 * s + 5];
                    let y = q[0] * v + z[2 * s];
                    z[2 * s] = q[1] * v - q[3] * y + z[2 * s + 1];
                    z[2 * s + 1] = q[2] * v - q[4] * y;
                    v = y;
                }
                v
            }
        }
    }

    /// The zero-input state map over `len` samples, `ns x ns` row-major (column k: the state
    /// reached from the unit state e_k).
    fn zero_input_map(&self, len: usize) -> Vec<T> {
        let ns = self.states();
        let mut m = vec![T::zero(); ns * ns];
        let mut z = vec![T::zero(); ns];
        for k in 0..ns {
            z.iter_mut().for_each(|v| *v = T::zero());
            z[k] = T::one();
            for _ in 0..len {
                self.step(&mut z, T::zero());
            }
            for r in 0..ns {
                m[r * ns + k] = z[r];
            }
        }
        m
    }
}

/// A double-double number `hi + lo` (about 106 significant bits).
#[derive(Clone, Copy, Debug)]
struct Dd {
    hi: f64,
    lo: f64,
}

impl Dd {
    fn new(v: f64) -> Dd {
        Dd { hi: v, lo: 0.0 }
    }
    fn renorm(s: f64, e: f64) -> Dd {
        let hi = s + e;
        Dd {
            hi,
            lo: e - (hi - s),
        }
    }
    fn add(self, o: Dd) -> Dd {
        // two-sum of the high parts, then the low parts
        let s = self.hi + o.hi;
        let bb = s - self.hi;
        let e = (self.hi - (s - bb)) + (o.hi - bb);
        Dd::renorm(s, e + self.lo + o.lo)
    }
    fn mul(self, o: Dd) -> Dd {
        // two-product through the fused multiply-add
        let p = self.hi * o.hi;
        let e = self.hi.mul_add(o.hi, -p);
        Dd::renorm(p, e + self.hi * o.lo + self.lo * o.hi)
    }
    fn neg(self) -> Dd {
        Dd {
            hi: -self.hi,
            lo: -self.lo,
        }
    }
}

/// The powers `m^(2^lv)`, lv = 0 .. levels (`n x n` row-major, concatenated), by repeated
/// squaring in double-double arithmetic, each rounded to `T` once. The maps of the scans grow
/// before they decay (the ba form of butter(8, 0.1): entries up to 4e4), so squaring rounded
/// powers cancels: `M^256 = (M^128)^2` with entries of 50 summing to 0.02 loses ~eps * 50^2 to
/// rounding per entry, more than the tiled scan's own rounding (in the kernel's check, 6e-10
/// of the output's scale against 1e-10 with these powers).
fn accurate_powers<T: Element>(m: &[T], n: usize, levels: usize) -> Vec<T> {
    let complex = m.iter().any(|v| v.to_c64().im != 0.0);
    let mut re: Vec<Dd> = m.iter().map(|v| Dd::new(v.to_c64().re)).collect();
    let mut im: Vec<Dd> = m.iter().map(|v| Dd::new(v.to_c64().im)).collect();
    let mut out = Vec::with_capacity(levels * n * n);
    for lv in 0..levels {
        out.extend(
            re.iter()
                .zip(&im)
                .map(|(r, i)| T::from_c64(cusci_core::c64::new(r.hi + r.lo, i.hi + i.lo))),
        );
        if lv + 1 == levels {
            break;
        }
        let zero = Dd::new(0.0);
        let (mut r2, mut i2) = (vec![zero; n * n], vec![zero; n * n]);
        for i in 0..n {
            for k in 0..n {
                let (ar, ai) = (re[i * n + k], im[i * n + k]);
                for j in 0..n {
                    let (br, bi) = (re[k * n + j], im[k * n + j]);
                    r2[i * n + j] = r2[i * n + j].add(ar.mul(br));
                    if complex {
                        r2[i * n + j] = r2[i * n + j].add(ai.mul(bi).neg());
                        i2[i * n + j] = i2[i * n + j].add(ar.mul(bi)).add(ai.mul(br));
                    }
                }
            }
        }
        re = r2;
        im = i2;
    }
    out
}

/// Builds the lfilter form from host coefficients (validated).
pub(crate) fn ba_filter<T: SignalScalar>(op: &str, b: &[T], a: &[T]) -> Result<(Iir<T>, usize)> {
    if b.is_empty() || a.is_empty() {
        return Err(make::arg(op, "b and a must have at least one coefficient"));
    }
    if b.iter().chain(a).any(|v| !v.is_finite_val()) {
        return Err(make::arg(
            op,
            "the filter coefficients must be finite (NaN or inf found)",
        ));
    }
    let a0 = a[0];
    if a0 == T::zero() {
        return Err(make::arg(
            op,
            "the leading denominator coefficient a[0] is 0",
        ));
    }
    let nuser = a.len().max(b.len()) - 1;
    let ns = nuser.max(1);
    let mut c = vec![T::zero(); 2 * ns + 2];
    for (k, &v) in b.iter().enumerate() {
        c[k] = v / a0;
    }
    for (k, &v) in a.iter().enumerate() {
        c[ns + 1 + k] = v / a0;
    }
    Ok((Iir::Ba { c, ns }, nuser))
}

/// Builds the sos form from a host (n_sections, 6) table (validated).
fn sos_filter<T: SignalScalar>(op: &str, sos: &Array<T>) -> Result<Iir<T>> {
    if sos.ndim() != 2 || sos.shape()[1] != 6 {
        return Err(make::shape(
            op,
            format!("sos must have shape (n_sections, 6), got {:?}", sos.shape()),
        ));
    }
    let nsec = sos.shape()[0];
    if nsec == 0 {
        return Err(make::arg(op, "sos must have at least one section"));
    }
    let v = host(sos)?;
    if v.iter().any(|v| !v.is_finite_val()) {
        return Err(make::arg(
            op,
            "the filter coefficients must be finite (NaN or inf found)",
        ));
    }
    let mut c = Vec::with_capacity(5 * nsec);
    for s in 0..nsec {
        let r = &v[6 * s..6 * s + 6];
        if r[3] != T::one() {
            return Err(make::arg(
                op,
                format!("sos[{s}, 3] (the section's leading denominator coefficient) must be 1"),
            ));
        }
        c.extend_from_slice(&[r[0], r[1], r[2], r[4], r[5]]);
    }
    Ok(Iir::Sos { c, nsec })
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

pub(crate) fn apply<T: SignalScalar>(
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
            crate::procutil::same_dev(op, x.device(), z.device())?;
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
    match x.device() {
        Device::Cpu => {
            let xd = cpu_contig(x)?;
            let zid = match &zi {
                Some(z) if use_states => Some(cpu_contig(z)?.into_owned()),
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
        Device::Cuda(d) => {
            let xc = x.contiguous()?;
            let y = Array::<T>::empty(x.shape(), x.device())?;
            let zf = if want_zf {
                Some(Array::<T>::zeros(&zshape, x.device())?)
            } else {
                None
            };
            if x.size() > 0 {
                let zi_use = if use_states { zi.as_ref() } else { None };
                let zf_use = if use_states { zf.as_ref() } else { None };
                cuda_apply(d, iir, &xc, &y, outer, n, inner, zi_use, zf_use)?;
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

/// A raw pointer that rayon tasks writing disjoint elements may share.
#[derive(Clone, Copy)]
struct SendPtr<T>(*mut T);
// SAFETY: only used for writes to disjoint indices from different tasks.
unsafe impl<T> Send for SendPtr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for SendPtr<T> {}

/// Signals handled by one CPU task when the filtered axis is not the last.
const INNER_CHUNK: usize = 64;

fn zidx<T: SignalScalar>(
    iir: &Iir<T>,
    k: usize,
    o: usize,
    i: usize,
    outer: usize,
    inner: usize,
) -> usize {
    match iir {
        Iir::Ba { ns, .. } => o * ns * inner + k * inner + i,
        Iir::Sos { .. } => (k / 2) * outer * 2 * inner + o * 2 * inner + (k % 2) * inner + i,
    }
}

/// The CPU reference: `(y, zf)` with `zf` in the user layout (empty when `nuser == 0`).
pub(crate) fn cpu_apply<T: SignalScalar>(
    iir: &Iir<T>,
    x: &[T],
    outer: usize,
    n: usize,
    inner: usize,
    zi: Option<&[T]>,
    nuser: usize,
) -> (Vec<T>, Vec<T>) {
    let ns = iir.states();
    let mut y = vec![T::zero(); x.len()];
    let zlen = if nuser > 0 { outer * inner * ns } else { 0 };
    let mut zf = vec![T::zero(); zlen];
    if outer * inner == 0 {
        return (y, zf);
    }
    let yp = SendPtr(y.as_mut_ptr());
    let zp = SendPtr(zf.as_mut_ptr());
    let ic = INNER_CHUNK.min(inner);
    let tasks = outer * inner.div_ceil(ic);
    let per_inner = inner.div_ceil(ic);
    (0..tasks).into_par_iter().for_each(|task| {
        let (yp, zp) = (yp, zp);
        let o = task / per_inner;
        let i0 = (task % per_inner) * ic;
        let i1 = (i0 + ic).min(inner);
        let w = i1 - i0;
        let mut z = vec![T::zero(); w * ns];
        if let Some(zi) = zi {
            for (j, i) in (i0..i1).enumerate() {
                for k in 0..ns {
                    z[j * ns + k] = zi[zidx(iir, k, o, i, outer, inner)];
                }
            }
        }
        let base = o * n * inner;
        for t in 0..n {
            let row = base + t * inner;
            for (j, i) in (i0..i1).enumerate() {
                let v = iir.step(&mut z[j * ns..(j + 1) * ns], x[row + i]);
                // SAFETY: element (o, t, i) belongs to this task only; y has x.len() elements.
                unsafe { *yp.0.add(row + i) = v };
            }
        }
        if nuser > 0 {
            for (j, i) in (i0..i1).enumerate() {
                for k in 0..ns {
                    // SAFETY: state (k, o, i) belongs to this task only; index < zlen.
                    unsafe { *zp.0.add(zidx(iir, k, o, i, outer, inner)) = z[j * ns + k] };
                }
            }
        }
    });
    (y, zf)
}

/// Chunks of one carry group in the two-level scan.
const GROUP: usize = 256;

/// The CUDA literal of `T`'s zero.
pub(crate) fn zero_literal<T: Element>() -> String {
    match T::DTYPE {
        cusci_core::DType::C32 => "mk(0.0f, 0.0f)".into(),
        cusci_core::DType::C64 => "mk(0.0, 0.0)".into(),
        _ => format!("(({})0)", cuda_type::<T>()),
    }
}

/// The kernel source for one filter form, type and state count.
pub(crate) fn iir_source<T: Element>(sos: bool, ns: usize) -> (String, String) {
    let ty = cuda_type::<T>();
    let zero = zero_literal::<T>();
    let kind = if sos { "sosfilt" } else { "lfilter" };
    let prefix = format!("signal_{kind}_{}_ns{ns}", T::DTYPE.tag());
    let src = format!(
        "#define T {ty}\n#define TZERO {zero}\n#define NS {ns}\n#define SOS {}\n#define NAME(x) {prefix}_##x\n{SRC}",
        sos as i32
    );
    (prefix, src)
}

fn launch_chunks(
    d: &CudaDevice,
    f: &cusci_core::cuda::kernel::Function,
    ptrs: [u64; 5],
    modes: (i32, i32),
    geo: (usize, usize, usize),
    l: usize,
    nchunks: usize,
) -> Result<()> {
    let [x, y, coef, zin, zout] = ptrs;
    let (outer, n, inner) = geo;
    let total = outer * inner * nchunks;
    let mut a = Args::new();
    a.push(x)
        .push(y)
        .push(coef)
        .push(zin)
        .push(modes.0)
        .push(zout)
        .push(modes.1)
        .push(outer as i64)
        .push(n as i64)
        .push(inner as i64)
        .push(l as i64)
        .push(nchunks as i64);
    f.launch(d, LaunchConfig::linear(blocks_for(total, 128), 128), &mut a)
}

#[allow(clippy::too_many_arguments)]
fn launch_scan(
    d: &CudaDevice,
    f: &cusci_core::cuda::kernel::Function,
    fp: u64,
    p: u64,
    init: u64,
    out: u64,
    mode: i32,
    nsig: usize,
    nitems: usize,
    g: usize,
) -> Result<()> {
    let total = nsig * nitems.div_ceil(g);
    let mut a = Args::new();
    a.push(fp)
        .push(p)
        .push(init)
        .push(out)
        .push(mode)
        .push(nsig as i64)
        .push(nitems as i64)
        .push(g as i64);
    f.launch(d, LaunchConfig::linear(blocks_for(total, 128), 128), &mut a)
}

/// The block size, chunk length and zero-input maps `(TB, TL, maps)` of the block-tiled kernel
/// (`tiles` in `iir.cu`, the maps of [`tile_maps`]),
/// or `None` when the chunked scan of [`gpu_chunking`] serves better: contiguous signals
/// (`inner == 1`), enough of them to give every multiprocessor a block or two, long enough to
/// fill tiles.
///
/// The chunk length is the shortest of 32, 64, 128, 256 whose carry stays accurate. The scan
/// combines chunk states as `F_j = f_j + P F_(j-d)` through the zero-input maps
/// `P = M^(TL 2^lv)`, lv < log2(TB); each product rounds with an error of about
/// `eps * sum_k |P_rk| |F_k|` in state r, which the refiltering then carries into the output as
/// the serial recurrence carries its own rounding. Relative to the size `sigma_r` of the state
/// itself (the largest magnitude it reaches in the impulse response) that is `eps * G` with
/// `G = max_lv max_r sum_k |P_rk| sigma_k / sigma_r` ([`carry_growth`]). A short chunk leaves
/// the maps undecayed (butter(8, 0.1) in ba form: `G` = 4.6e4, 5.7e3, 57, 0.05 for TL = 32,
/// 64, 128, 256) and the output error grows with `G`: 1.7e-7, 2.2e-8, 1.1e-10, 7e-11 of the
/// output's scale against SciPy in a CPU emulation of the kernel (the serial recurrence itself:
/// 1e-11; CuPy's lfilter: 3.5e-7). The maps' powers are squared in double-double
/// ([`accurate_powers`]): squared in f64 they cancel, and the same kernel measured 8e-4, 3e-6,
/// 6e-10, 7e-11 on an H200. `G <= 64` keeps f64 within a few 1e-10 of the serial result;
/// sections scale their states well (butter(8, 0.1) as sos: `G` = 2.4 at TL = 32, error
/// 5e-15). Filters with `G > 64` at every chunk length take the chunked scan. The block size
/// is the fastest measured for the chunk length (H200, 256 x 65536 f64: TL 32 -> 256 threads,
/// 64 and 128 -> 128, 256 -> 32), halved while the shared memory exceeds 160 KiB.
pub(crate) fn tile_plan<T: SignalScalar>(
    iir: &Iir<T>,
    nsig: usize,
    n: usize,
    inner: usize,
) -> Option<(usize, usize, Vec<T>)> {
    let ns = iir.states();
    if inner != 1 || !(128..1 << 16).contains(&nsig) || n < 4096 || ns > 32 {
        return None;
    }
    carry_plan(iir)
}

/// A filter as a cache key: the element type, the form and the coefficients' bits.
type PlanKey = (&'static str, bool, Vec<u64>);

/// A cached [`carry_plan`], its maps held as complex128 (exact for every element type).
type CachedPlan = Option<(usize, usize, Vec<c64>)>;

/// The carry part of [`tile_plan`], which depends on the filter and the element type alone:
/// `(TB, TL)` and the maps of [`tile_maps`] for them, or `None` when no chunk length keeps the
/// carry accurate. Cached per filter (64 filters at most): the impulse response and the
/// double-double powers cost 0.1-0.2 ms of host time per call otherwise, a third of the
/// kernel's time for 256 x 65536 samples, and pipelines filter batch after batch with one filter.
fn carry_plan<T: SignalScalar>(iir: &Iir<T>) -> Option<(usize, usize, Vec<T>)> {
    static CACHE: OnceLock<Mutex<HashMap<PlanKey, CachedPlan>>> = OnceLock::new();
    let (c, sos) = match iir {
        Iir::Ba { c, .. } => (c, false),
        Iir::Sos { c, .. } => (c, true),
    };
    let bits = c
        .iter()
        .flat_map(|v| {
            let z = v.to_c64();
            [z.re.to_bits(), z.im.to_bits()]
        })
        .collect();
    let key = (T::DTYPE.tag(), sos, bits);
    let cache = CACHE.get_or_init(Default::default);
    let from = |v: &CachedPlan| {
        v.as_ref()
            .map(|(tb, tl, m)| (*tb, *tl, m.iter().map(|&z| T::from_c64(z)).collect()))
    };
    if let Some(v) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return from(v);
    }
    let plan = search_carry_plan(iir);
    let stored = plan
        .as_ref()
        .map(|(tb, tl, m)| (*tb, *tl, m.iter().map(|v| v.to_c64()).collect()));
    let mut g = cache.lock().unwrap_or_else(|e| e.into_inner());
    if g.len() >= 64 {
        g.clear();
    }
    g.insert(key, stored);
    plan
}

/// [`carry_plan`] without the cache: the shortest chunk length whose carry growth is accepted.
fn search_carry_plan<T: SignalScalar>(iir: &Iir<T>) -> Option<(usize, usize, Vec<T>)> {
    let ns = iir.states();
    let sigma = state_scales(iir);
    for tl in [32usize, 64, 128, 256] {
        let mut tb = match tl {
            32 => 256,
            64 | 128 => 128,
            _ => 32,
        };
        while tile_smem::<T>(ns, tb, tl) > 160 * 1024 && tb > 32 {
            tb /= 2;
        }
        if tile_smem::<T>(ns, tb, tl) > 160 * 1024 {
            return None;
        }
        let maps = tile_maps(iir, tb, tl);
        if carry_growth(&maps, ns, &sigma) <= MAX_CARRY_GROWTH {
            return Some((tb, tl, maps));
        }
    }
    None
}

/// The largest carry growth `G` of [`tile_plan`] that the tiled scan accepts.
const MAX_CARRY_GROWTH: f64 = 64.0;

/// The magnitude of `v` in f64.
fn mag<T: Element>(v: T) -> f64 {
    let c = v.to_c64();
    c.re.hypot(c.im)
}

/// The size of every state: the largest magnitude it reaches in the impulse response (4096
/// samples, or until every state has fallen below 1e-20 of the largest magnitude seen: a stable
/// map's transient growth, 1e9 at most among the filters the plan accepts, cannot lift such a
/// state back to the floor), floored at 1e-6 of the largest (a state the input barely reaches
/// is treated as small, which can only make [`carry_growth`] larger). Squared magnitudes are
/// compared inside the loop: this runs on the host before every tiled launch (hypot per state
/// and sample cost 0.3 ms for butter(8, 0.1), as much as the kernel).
fn state_scales<T: SignalScalar>(iir: &Iir<T>) -> Vec<f64> {
    let ns = iir.states();
    let mut z = vec![T::zero(); ns];
    let mut s2 = vec![0.0f64; ns];
    let mut top2 = 0.0f64;
    for t in 0..4096 {
        iir.step(&mut z, if t == 0 { T::one() } else { T::zero() });
        let mut now2 = 0.0f64;
        for (sk, zk) in s2.iter_mut().zip(&z) {
            let c = zk.to_c64();
            let m2 = c.re * c.re + c.im * c.im;
            *sk = sk.max(m2);
            now2 = now2.max(m2);
        }
        top2 = top2.max(now2);
        if t >= 64 && now2 <= top2 * 1e-40 {
            break;
        }
    }
    let s: Vec<f64> = s2.iter().map(|v| v.sqrt()).collect();
    let top = s.iter().fold(0.0f64, |m, &v| m.max(v));
    let floor = if top > 0.0 && top.is_finite() {
        top * 1e-6
    } else {
        1.0
    };
    s.iter().map(|&v| v.max(floor)).collect()
}

/// `max_lv max_r sum_k |P_rk| sigma_k / sigma_r` over the maps `P` of [`tile_maps`] (infinite
/// when an entry is not finite).
fn carry_growth<T: Element>(maps: &[T], ns: usize, sigma: &[f64]) -> f64 {
    let mut g = 0.0f64;
    for p in maps.chunks(ns * ns) {
        for r in 0..ns {
            let mut acc = 0.0;
            for k in 0..ns {
                acc += mag(p[r * ns + k]) * sigma[k];
            }
            let v = acc / sigma[r];
            if !v.is_finite() {
                return f64::INFINITY;
            }
            g = g.max(v);
        }
    }
    g
}

/// The zero-input maps of the tiled scan, `M^(TL 2^lv)` for lv = 0 .. log2(TB), each `ns x ns`
/// row-major, concatenated: `M^TL` by stepping the recurrence in `T`, its powers by
/// [`accurate_powers`].
fn tile_maps<T: SignalScalar>(iir: &Iir<T>, tb: usize, tl: usize) -> Vec<T> {
    let ns = iir.states();
    accurate_powers(&iir.zero_input_map(tl), ns, tb.trailing_zeros() as usize)
}

/// Dynamic shared memory of the block-tiled kernel: the tile (with one pad sample per chunk),
/// the chunk states, the zero-input maps.
fn tile_smem<T: Element>(ns: usize, tb: usize, tl: usize) -> usize {
    (tb * (tl + 1) + ns * tb + tb.trailing_zeros() as usize * ns * ns) * std::mem::size_of::<T>()
}

/// The block-tiled kernel: one block per signal (see `tiles` in `iir.cu`).
#[allow(clippy::too_many_arguments)]
fn cuda_tiles<T: SignalScalar>(
    d: &CudaDevice,
    iir: &Iir<T>,
    x: &Array<T>,
    y: &Array<T>,
    nsig: usize,
    n: usize,
    zi: Option<&Array<T>>,
    zf: Option<&Array<T>>,
    (tb, tl, mats): (usize, usize, Vec<T>),
) -> Result<()> {
    let dev = x.device();
    let ns = iir.states();
    let (prefix, src) = iir_source::<T>(matches!(iir, Iir::Sos { .. }), ns);
    let key = format!("{prefix}_tb{tb}_tl{tl}");
    let src = format!("#define TB {tb}\n#define TL {tl}\n{src}");
    let f = d.function(&key, || src, &[], &format!("{prefix}_tiles"))?;
    let coefs = match iir {
        Iir::Ba { c, .. } | Iir::Sos { c, .. } => c.clone(),
    };
    let ncoef = coefs.len();
    let coef = Array::from_vec(coefs, &[ncoef], dev)?;
    // the zero-input maps over TL * 2^lv samples, lv = 0 .. log2(TB)
    let nmats = tb.trailing_zeros() as usize;
    let mdev = Array::from_vec(mats, &[nmats * ns * ns], dev)?;
    let mut a = Args::new();
    a.push(dptr(x))
        .push(dptr(y))
        .push(dptr(&coef))
        .push(zi.map(dptr).unwrap_or(0))
        .push(if zi.is_some() { 1i32 } else { 0 })
        .push(zf.map(dptr).unwrap_or(0))
        .push(if zf.is_some() { 1i32 } else { 0 })
        .push(nsig as i64)
        .push(n as i64)
        .push(dptr(&mdev))
        .push(nmats as i32);
    let mut cfg = LaunchConfig::linear(nsig as u32, tb as u32);
    cfg.shared_mem_bytes = tile_smem::<T>(ns, tb, tl) as u32;
    f.launch(d, cfg, &mut a)
}

/// The number of chunks per signal of the GPU scan (1: one thread per signal).
pub(crate) fn gpu_chunking(ns: usize, nsig: usize, n: usize) -> (usize, usize) {
    if ns > 32 || n < 512 || nsig >= 1 << 16 {
        return (n.max(1), 1);
    }
    let target = (1usize << 17).div_ceil(nsig);
    let l = n.div_ceil(target).max(64).max(n.div_ceil(GROUP * GROUP));
    (l, n.div_ceil(l))
}

#[allow(clippy::too_many_arguments)]
fn cuda_apply<T: SignalScalar>(
    d: &CudaDevice,
    iir: &Iir<T>,
    x: &Array<T>,
    y: &Array<T>,
    outer: usize,
    n: usize,
    inner: usize,
    zi: Option<&Array<T>>,
    zf: Option<&Array<T>>,
) -> Result<()> {
    // the H200 check of the tiled kernel (benches/results/2026-12-03-iir/req-iir-2.txt) read back
    // wrong final states when the length is not a whole number of tiles (y right everywhere),
    // although a CPU emulation of the kernel gives SciPy's zf: until that is settled, calls that
    // ask for zf keep the chunked scan below
    if zf.is_none() {
        if let Some(plan) = tile_plan(iir, outer * inner, n, inner) {
            return cuda_tiles(d, iir, x, y, outer * inner, n, zi, zf, plan);
        }
    }
    let dev = x.device();
    let ns = iir.states();
    let (prefix, src) = iir_source::<T>(matches!(iir, Iir::Sos { .. }), ns);
    let key = prefix.clone();
    let chunks = d.function(&key, || src.clone(), &[], &format!("{prefix}_chunks"))?;
    let coefs = match iir {
        Iir::Ba { c, .. } | Iir::Sos { c, .. } => c.clone(),
    };
    let ncoef = coefs.len();
    let coef = Array::from_vec(coefs, &[ncoef], dev)?;
    let nsig = outer * inner;
    let (l, nchunks) = gpu_chunking(ns, nsig, n);
    let zin = zi.map(dptr).unwrap_or(0);
    let zout = zf.map(dptr).unwrap_or(0);
    let (xp, yp, cp) = (dptr(x), dptr(y), dptr(&coef));
    let geo = (outer, n, inner);
    if nchunks == 1 {
        return launch_chunks(
            d,
            &chunks,
            [xp, yp, cp, zin, zout],
            (
                if zi.is_some() { 1 } else { 0 },
                if zf.is_some() { 1 } else { 0 },
            ),
            geo,
            l,
            1,
        );
    }
    let scan = d.function(&key, || src.clone(), &[], &format!("{prefix}_scan"))?;
    // pass 1: the final state of every chunk from a zero state
    let fbuf = Array::<T>::empty(&[nchunks * nsig * ns], dev)?;
    launch_chunks(
        d,
        &chunks,
        [xp, 0, cp, 0, dptr(&fbuf)],
        (0, 2),
        geo,
        l,
        nchunks,
    )?;
    // the initial states of the signals, internal layout
    let z0 = match zi {
        Some(z) => {
            let g = d.function(&key, || src.clone(), &[], &format!("{prefix}_zi_gather"))?;
            let buf = Array::<T>::empty(&[nsig * ns], dev)?;
            let mut a = Args::new();
            a.push(dptr(z))
                .push(dptr(&buf))
                .push(outer as i64)
                .push(inner as i64);
            g.launch(d, LaunchConfig::linear(blocks_for(nsig, 128), 128), &mut a)?;
            Some(buf)
        }
        None => None,
    };
    let z0p = z0.as_ref().map(dptr).unwrap_or(0);
    let m = iir.zero_input_map(l);
    let mdev = Array::from_vec(m.clone(), &[ns * ns], dev)?;
    let cs = Array::<T>::empty(&[nchunks * nsig * ns], dev)?;
    if nchunks <= GROUP {
        launch_scan(
            d,
            &scan,
            dptr(&fbuf),
            dptr(&mdev),
            z0p,
            dptr(&cs),
            0,
            nsig,
            nchunks,
            nchunks,
        )?;
    } else {
        let ngroups = nchunks.div_ceil(GROUP);
        let lv = GROUP.trailing_zeros() as usize;
        let mg = accurate_powers(&m, ns, lv + 1).split_off(lv * ns * ns);
        let mgdev = Array::from_vec(mg, &[ns * ns], dev)?;
        let gf = Array::<T>::empty(&[ngroups * nsig * ns], dev)?;
        let gs = Array::<T>::empty(&[ngroups * nsig * ns], dev)?;
        launch_scan(
            d,
            &scan,
            dptr(&fbuf),
            dptr(&mdev),
            0,
            dptr(&gf),
            1,
            nsig,
            nchunks,
            GROUP,
        )?;
        launch_scan(
            d,
            &scan,
            dptr(&gf),
            dptr(&mgdev),
            z0p,
            dptr(&gs),
            0,
            nsig,
            ngroups,
            ngroups,
        )?;
        launch_scan(
            d,
            &scan,
            dptr(&fbuf),
            dptr(&mdev),
            dptr(&gs),
            dptr(&cs),
            0,
            nsig,
            nchunks,
            GROUP,
        )?;
    }
    // pass 2: every chunk from its true initial state
    launch_chunks(
        d,
        &chunks,
        [xp, yp, cp, dptr(&cs), zout],
        (2, if zf.is_some() { 1 } else { 0 }),
        geo,
        l,
        nchunks,
    )
}

/// Solves the small dense system `m x = r` (n x n, row-major) by Gaussian elimination with
/// partial pivoting. `None` when singular.
fn solve_small<T: SignalScalar>(mut m: Vec<T>, mut r: Vec<T>, n: usize) -> Option<Vec<T>> {
    for col in 0..n {
        let piv = (col..n).max_by(|&i, &j| {
            m[i * n + col]
                .abs()
                .to_f64_lossy()
                .total_cmp(&m[j * n + col].abs().to_f64_lossy())
        })?;
        if m[piv * n + col] == T::zero() {
            return None;
        }
        if piv != col {
            for k in 0..n {
                m.swap(piv * n + k, col * n + k);
            }
            r.swap(piv, col);
        }
        let p = m[col * n + col];
        for i in col + 1..n {
            let f = m[i * n + col] / p;
            if f == T::zero() {
                continue;
            }
            for k in col..n {
                let v = m[col * n + k];
                m[i * n + k] -= f * v;
            }
            let rv = r[col];
            r[i] -= f * rv;
        }
    }
    let mut x = vec![T::zero(); n];
    for i in (0..n).rev() {
        let mut s = r[i];
        for k in i + 1..n {
            s -= m[i * n + k] * x[k];
        }
        x[i] = s / m[i * n + i];
    }
    Some(x)
}

trait ToF64Lossy {
    fn to_f64_lossy(self) -> f64;
}
impl<R: Element> ToF64Lossy for R {
    fn to_f64_lossy(self) -> f64 {
        self.to_c64().re
    }
}

/// `lfilter_zi` on host values: the steady-state initial states for a unit step input.
pub(crate) fn lfilter_zi_host<T: SignalScalar>(op: &str, b: &[T], a: &[T]) -> Result<Vec<T>> {
    if b.is_empty() || a.is_empty() {
        return Err(make::arg(op, "b and a must have at least one coefficient"));
    }
    if b.iter().chain(a).any(|v| !v.is_finite_val()) {
        return Err(make::arg(
            op,
            "the filter coefficients must be finite (NaN or inf found)",
        ));
    }
    // SciPy strips leading zeros of a, then requires a[0] != 0
    let first = a.iter().position(|&v| v != T::zero());
    let a = match first {
        Some(i) => &a[i..],
        None => {
            return Err(make::arg(
                op,
                "there must be at least one nonzero a coefficient",
            ))
        }
    };
    let n = a.len().max(b.len());
    let a0 = a[0];
    let mut aa = vec![T::zero(); n];
    let mut bb = vec![T::zero(); n];
    for (k, &v) in a.iter().enumerate() {
        aa[k] = v / a0;
    }
    for (k, &v) in b.iter().enumerate() {
        bb[k] = v / a0;
    }
    let m = n - 1;
    if m == 0 {
        return Ok(Vec::new());
    }
    // I - companion(a).T: column 0 holds a[1:], the superdiagonal -1, plus the identity
    let mut mat = vec![T::zero(); m * m];
    for i in 0..m {
        mat[i * m] = aa[i + 1];
        if i + 1 < m {
            mat[i * m + i + 1] -= T::one();
        }
        mat[i * m + i] += T::one();
    }
    let rhs: Vec<T> = (0..m).map(|i| bb[i + 1] - aa[i + 1] * bb[0]).collect();
    solve_small(mat, rhs, m).ok_or_else(|| cusci_core::Error::Singular {
        op: op.into(),
        index: 0,
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{butter, IirOptions, Output};
    use cusci_core::Device;

    fn ba(order: usize, wn: f64) -> Iir<f64> {
        let f = butter(order, &[wn], &IirOptions::default())
            .unwrap()
            .into_ba()
            .unwrap();
        ba_filter("test", &f.b, &f.a).unwrap().0
    }

    fn sos(order: usize, wn: f64) -> Iir<f64> {
        let opts = IirOptions {
            output: Output::Sos,
            ..Default::default()
        };
        let s = butter(order, &[wn], &opts).unwrap().into_sos().unwrap();
        let flat: Vec<f64> = s.iter().flatten().copied().collect();
        let a = Array::from_vec(flat, &[s.len(), 6], &Device::cpu()).unwrap();
        sos_filter("test", &a).unwrap()
    }

    /// The carry growth against a direct evaluation: the ba form's zero-input map is the
    /// companion-like matrix `A` (column 0: -a[1..], superdiagonal 1), its powers by repeated
    /// multiplication, the state scales from the impulse response.
    #[test]
    fn carry_growth_matches_direct_evaluation() {
        let f = ba(8, 0.1);
        let Iir::Ba { c, ns } = &f else {
            unreachable!()
        };
        let ns = *ns;
        let mut a = vec![0.0; ns * ns];
        for r in 0..ns {
            a[r * ns] = -c[ns + 2 + r];
            if r + 1 < ns {
                a[r * ns + r + 1] = 1.0;
            }
        }
        let sigma = state_scales(&f);
        for (tl, lo, hi) in [
            (32, 2e4, 1e5),
            (64, 2e3, 2e4),
            (128, 20.0, 64.0),
            (256, 0.0, 1.0),
        ] {
            let tb = 8;
            let got = carry_growth(&tile_maps(&f, tb, tl), ns, &sigma);
            // M^(tl 2^lv) by tl 2^lv multiplications with A
            let mut p = vec![0.0; ns * ns];
            (0..ns).for_each(|i| p[i * ns + i] = 1.0);
            let mut want = 0.0f64;
            for step in 1..=tl * tb / 2 {
                let mut q = vec![0.0; ns * ns];
                for i in 0..ns {
                    for k in 0..ns {
                        for j in 0..ns {
                            q[i * ns + j] += a[i * ns + k] * p[k * ns + j];
                        }
                    }
                }
                p = q;
                if step % tl == 0 && (step / tl).is_power_of_two() {
                    for r in 0..ns {
                        let s: f64 = (0..ns).map(|k| p[r * ns + k].abs() * sigma[k]).sum();
                        want = want.max(s / sigma[r]);
                    }
                }
            }
            assert!(
                (got - want).abs() <= 1e-6 * want.max(1e-300) + 1e-12,
                "TL {tl}: {got} vs {want}"
            );
            assert!(got >= lo && got <= hi, "TL {tl}: growth {got}");
        }
    }

    /// The double-double powers against exact integer arithmetic: the Fibonacci matrix (real)
    /// and [[1+i, 1], [1, 0]] (complex), up to entries of 2^60 (beyond f64's 53 bits, so the
    /// results are the correctly rounded exact ones); and powers of a map that cancels.
    #[test]
    fn accurate_powers_are_exact_where_exact_is_known() {
        let p = accurate_powers(&[1.0f64, 1.0, 1.0, 0.0], 2, 7);
        let (mut a, mut b, mut c) = (1i128, 1i128, 0i128); // [[a, b], [b, c]]
        for lv in 0..7 {
            assert_eq!(
                &p[4 * lv..4 * lv + 4],
                &[a as f64, b as f64, b as f64, c as f64]
            );
            (a, b, c) = (a * a + b * b, a * b + b * c, b * b + c * c);
        }
        type G = (i128, i128);
        let mul = |x: G, y: G| (x.0 * y.0 - x.1 * y.1, x.0 * y.1 + x.1 * y.0);
        let add = |x: G, y: G| (x.0 + y.0, x.1 + y.1);
        let m = [
            c64::new(1.0, 1.0),
            c64::new(1.0, 0.0),
            c64::new(1.0, 0.0),
            c64::new(0.0, 0.0),
        ];
        let p = accurate_powers(&m, 2, 6);
        let mut e: [G; 4] = [(1, 1), (1, 0), (1, 0), (0, 0)];
        for lv in 0..6 {
            for (got, want) in p[4 * lv..4 * lv + 4].iter().zip(&e) {
                assert_eq!(
                    (got.re, got.im),
                    (want.0 as f64, want.1 as f64),
                    "level {lv}"
                );
            }
            let mut n: [G; 4] = [(0, 0); 4];
            for i in 0..2 {
                for j in 0..2 {
                    n[2 * i + j] = add(mul(e[2 * i], e[j]), mul(e[2 * i + 1], e[2 + j]));
                }
            }
            e = n;
        }
        // butter(8, 0.1) in ba form, M^64 and its powers up to M^512: the double-double
        // squarings against repeated double-double multiplication by M^64 (another order, the
        // same exact powers), and f64 squarings, which lose to cancellation
        let f = ba(8, 0.1);
        let base = f.zero_input_map(64);
        let dd = accurate_powers(&base, 8, 4);
        let bd: Vec<Dd> = base.iter().map(|&v| Dd::new(v)).collect();
        let mut pw = bd.clone();
        let mut sq = base.clone();
        let (mut worst_dd, mut worst_sq) = (0.0f64, 0.0f64);
        for k in 1..=8usize {
            if k.is_power_of_two() {
                let lv = k.trailing_zeros() as usize;
                for (q, r) in pw.iter().enumerate() {
                    let want = r.hi + r.lo;
                    let tol = want.abs() * 4.5e-16 + 1e-300;
                    assert!(
                        (dd[64 * lv + q] - want).abs() <= tol,
                        "level {lv} entry {q}"
                    );
                    worst_dd = worst_dd.max((dd[64 * lv + q] - want).abs());
                    worst_sq = worst_sq.max((sq[q] - want).abs());
                }
                let mut s2 = vec![0.0f64; 64];
                for i in 0..8 {
                    for m in 0..8 {
                        for j in 0..8 {
                            s2[i * 8 + j] += sq[i * 8 + m] * sq[m * 8 + j];
                        }
                    }
                }
                sq = s2;
            }
            let mut nx = vec![Dd::new(0.0); 64];
            for i in 0..8 {
                for m in 0..8 {
                    for j in 0..8 {
                        nx[i * 8 + j] = nx[i * 8 + j].add(pw[i * 8 + m].mul(bd[m * 8 + j]));
                    }
                }
            }
            pw = nx;
        }
        assert!(worst_sq > 1e3 * worst_dd, "{worst_sq} vs {worst_dd}");
    }

    /// The plans of the measured cases (H200, 256 x 65536 f64): the ba form of butter(8, 0.1)
    /// needs 128-sample chunks, its sections 32; well-damped filters take 32; complex128 halves
    /// the block for shared memory; filters that never decay enough, strided signals, too few
    /// or too short signals take the chunked scan.
    #[test]
    fn tile_plans() {
        fn plan_of<T: SignalScalar>(
            f: &Iir<T>,
            nsig: usize,
            n: usize,
            inner: usize,
        ) -> Option<(usize, usize)> {
            tile_plan(f, nsig, n, inner).map(|(tb, tl, _)| (tb, tl))
        }
        assert_eq!(plan_of(&ba(8, 0.1), 256, 65536, 1), Some((128, 128)));
        assert_eq!(plan_of(&sos(8, 0.1), 256, 65536, 1), Some((256, 32)));
        assert_eq!(plan_of(&ba(4, 0.15), 128, 4096, 1), Some((256, 32)));
        assert_eq!(plan_of(&ba(6, 0.1), 128, 4096, 1), Some((128, 64)));
        assert_eq!(plan_of(&sos(6, 0.1), 128, 4096, 1), Some((256, 32)));
        // ba butter(8, 0.02): the rounded polynomial's map grows (1e9 over 128 samples)
        assert_eq!(plan_of(&ba(8, 0.02), 256, 65536, 1), None);
        assert_eq!(plan_of(&ba(8, 0.1), 256, 65536, 3), None);
        assert_eq!(plan_of(&ba(8, 0.1), 127, 65536, 1), None);
        assert_eq!(plan_of(&ba(8, 0.1), 256, 4095, 1), None);
        // complex128: 128 x 129 samples of 16 bytes exceed 160 KiB; 64 threads fit
        let Iir::Ba { c, ns } = ba(8, 0.1) else {
            unreachable!()
        };
        let cc = Iir::Ba {
            c: c.iter().map(|&v| c64::new(v, 0.0)).collect(),
            ns,
        };
        assert_eq!(plan_of(&cc, 256, 65536, 1), Some((64, 128)));
        // and 256 x 33 samples of 16 bytes too: the sections' 32-sample chunks take 128 threads
        let Iir::Sos { c, nsec } = sos(8, 0.1) else {
            unreachable!()
        };
        let cs = Iir::Sos {
            c: c.iter().map(|&v| c64::new(v, 0.0)).collect(),
            nsec,
        };
        assert_eq!(plan_of(&cs, 256, 65536, 1), Some((128, 32)));
    }
}
