//! Zero-phase filtering: [`filtfilt`], [`sosfiltfilt`] (SciPy's, `method='pad'`), and
//! [`lfiltic`]. The forward-backward passes run on the input's device through [`crate::lfilter`]
//! and [`crate::sosfilt`] (the GPU's block-parallel scan for long signals); the edge extension
//! is one kernel, the initial states one broadcast product, the reversals strided views: no
//! host round trip besides reading the coefficients.

use crate::procutil::SignalScalar;
use crate::procutil::{blocks_for, cpu_contig, cuda_type, dptr, host, norm_axis, split_axis};
use crate::{lfilter, sosfilt, FilterOptions};
use cusci_core::cuda::kernel::{Args, LaunchConfig};
use cusci_core::error::make;
use cusci_core::{Array, Device, Element, Result};

const SRC: &str = include_str!("filtfilt.cu");

/// The edge extension of [`filtfilt`] and [`sosfiltfilt`] (`padtype=`), as SciPy's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FiltPad {
    /// Point-symmetric about the edge sample, `2 x[0] - x[k]` (SciPy's default `'odd'`).
    #[default]
    Odd,
    /// Mirrored about the edge sample (`'even'`).
    Even,
    /// The edge sample repeated (`'constant'`).
    Constant,
}

/// The optional arguments of [`filtfilt`] and [`sosfiltfilt`].
///
/// ```
/// use cusci_signal::{FiltfiltOptions, FiltPad};
/// let o = FiltfiltOptions::default();
/// assert_eq!((o.axis, o.padtype, o.padlen), (-1, Some(FiltPad::Odd), None));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FiltfiltOptions {
    /// The axis to filter. Default `-1`.
    pub axis: isize,
    /// The extension; `None` for no extension (SciPy's `padtype=None`). Default odd.
    pub padtype: Option<FiltPad>,
    /// Samples of extension at each end; `None` for SciPy's default `3 * ntaps`.
    pub padlen: Option<usize>,
}

impl Default for FiltfiltOptions {
    fn default() -> Self {
        FiltfiltOptions {
            axis: -1,
            padtype: Some(FiltPad::Odd),
            padlen: None,
        }
    }
}

pub(crate) fn filtfilt_source<T: Element>() -> (String, String) {
    let ty = cuda_type::<T>();
    let zero = crate::filter::zero_literal::<T>();
    let prefix = format!("signal_filtfilt_{}", T::DTYPE.tag());
    let src = format!("#define T {ty}\n#define TZERO {zero}\n#define NAME(x) {prefix}_##x\n{SRC}");
    (prefix, src)
}

/// SciPy's `_validate_pad` + the extension: `(edge, extended x)`.
fn pad<T: SignalScalar>(
    op: &str,
    x: &Array<T>,
    ax: usize,
    opts: &FiltfiltOptions,
    ntaps: usize,
) -> Result<(usize, Array<T>)> {
    let edge = match opts.padtype {
        None => 0,
        Some(_) => opts.padlen.unwrap_or(3 * ntaps),
    };
    let n = x.shape()[ax];
    if n <= edge {
        return Err(make::arg(
            op,
            format!(
                "the length of the input along the axis ({n}) must be greater than padlen, which \
                 is {edge}"
            ),
        ));
    }
    let Some(pt) = opts.padtype.filter(|_| edge > 0) else {
        return Ok((edge, x.clone()));
    };
    let mode: i32 = match pt {
        FiltPad::Odd => 0,
        FiltPad::Even => 1,
        FiltPad::Constant => 2,
    };
    let (outer, n, inner) = split_axis(x.shape(), ax);
    let ne = n + 2 * edge;
    let mut shape = x.shape().to_vec();
    shape[ax] = ne;
    match x.device() {
        Device::Cpu => {
            let xd = cpu_contig(x)?;
            let mut e = vec![T::zero(); outer * ne * inner];
            for o in 0..outer {
                for t in 0..ne {
                    let s = t as i64 - edge as i64;
                    for i in 0..inner {
                        let at = |k: usize| xd[o * n * inner + k * inner + i];
                        let v = if s >= 0 && (s as usize) < n {
                            at(s as usize)
                        } else {
                            let pe = if s < 0 { 0 } else { n - 1 };
                            let j = if s < 0 {
                                (-s) as usize
                            } else {
                                (2 * (n as i64 - 1) - s) as usize
                            };
                            match mode {
                                0 => at(pe) + at(pe) - at(j),
                                1 => at(j),
                                _ => at(pe),
                            }
                        };
                        e[(o * ne + t) * inner + i] = v;
                    }
                }
            }
            Ok((edge, Array::from_vec(e, &shape, x.device())?))
        }
        Device::Cuda(d) => {
            let xc = x.contiguous()?;
            let e = Array::<T>::empty(&shape, x.device())?;
            let total = outer * ne * inner;
            if total > 0 {
                let (key, src) = filtfilt_source::<T>();
                let f = d.function(&key, || src, &[], &format!("{key}_pad_ext"))?;
                let mut a = Args::new();
                a.push(dptr(&xc))
                    .push(dptr(&e))
                    .push(outer as i64)
                    .push(n as i64)
                    .push(inner as i64)
                    .push(edge as i64)
                    .push(mode);
                f.launch(d, LaunchConfig::linear(blocks_for(total, 256), 256), &mut a)?;
            }
            Ok((edge, e))
        }
    }
}

/// One filter pass along the axis from optional initial states.
type Pass<'a, T> = dyn Fn(&Array<T>, Option<&Array<T>>) -> Result<Array<T>> + 'a;

/// The forward-backward core: `run(x, zi)` filters along `ax` with initial states `zi`.
fn forward_backward<T: SignalScalar>(
    ext: &Array<T>,
    ax: usize,
    edge: usize,
    zi: Option<&Array<T>>,
    run: &Pass<'_, T>,
) -> Result<Array<T>> {
    let axi = ax as isize;
    let z1 = match zi {
        Some(z) => Some(z.mul(&ext.slice_axis(axi, Some(0), Some(1), 1)?)?),
        None => None,
    };
    let y = run(ext, z1.as_ref())?;
    let z2 = match zi {
        Some(z) => Some(z.mul(&y.slice_axis(axi, Some(-1), None, 1)?)?),
        None => None,
    };
    let y = run(&y.slice_axis(axi, None, None, -1)?, z2.as_ref())?;
    let len = y.shape()[ax] as isize;
    let stop = if edge == 0 {
        None
    } else {
        Some(edge as isize - 1)
    };
    y.slice_axis(axi, Some(len - 1 - edge as isize), stop, -1)?
        .contiguous()
}

/// The shape `[1, .., k (at ax), .., 1]` (with a leading `lead` when given).
fn zi_shape(ndim: usize, ax: usize, k: usize, lead: Option<usize>) -> Vec<usize> {
    let mut s = vec![1; ndim];
    s[ax] = k;
    if let Some(l) = lead {
        s.insert(0, l);
    }
    s
}

/// Applies a digital filter forward and backward (zero phase, squared magnitude response),
/// SciPy's `scipy.signal.filtfilt(b, a, x, axis, padtype, padlen)` with `method='pad'`.
///
/// The signal is extended by `padlen` samples at each end (default `3 * max(len(a), len(b))`),
/// filtered forward from the steady state `lfilter_zi * x[0]`, backward from
/// `lfilter_zi * y[-1]`, and the extension removed. Same shape and device as `x`.
///
/// # Errors
/// As [`lfilter`] for `b` and `a` (plus `Singular` from [`crate::lfilter_zi`] for a pole at 1);
/// `InvalidArgument` when the signal is not longer than `padlen`, or a bad axis.
///
/// ```
/// use cusci_signal::{filtfilt, FiltfiltOptions, Array, Device};
/// let d = Device::cpu();
/// let b = Array::from_vec(vec![0.5f64, 0.5], &[2], &d).unwrap();
/// let a = Array::from_vec(vec![1.0f64], &[1], &d).unwrap();
/// let x = Array::from_vec(vec![2.0f64; 10], &[10], &d).unwrap();
/// let y = filtfilt(&b, &a, &x, &FiltfiltOptions::default()).unwrap().to_vec().unwrap();
/// assert!(y.iter().all(|v| (v - 2.0).abs() < 1e-12)); // a constant passes unchanged
/// ```
pub fn filtfilt<T: SignalScalar>(
    b: &Array<T>,
    a: &Array<T>,
    x: &Array<T>,
    opts: &FiltfiltOptions,
) -> Result<Array<T>> {
    let op = "filtfilt";
    for (name, c) in [("b", b), ("a", a)] {
        if c.ndim() != 1 {
            return Err(make::shape(
                op,
                format!("{name} must be one-dimensional, got shape {:?}", c.shape()),
            ));
        }
    }
    let ax = norm_axis(op, opts.axis, x.ndim())?;
    let (bv, av) = (host(b)?, host(a)?);
    let ntaps = bv.len().max(av.len());
    if bv.is_empty() || av.is_empty() {
        return Err(make::arg(op, "b and a must have at least one coefficient"));
    }
    if av[0] == T::zero() {
        return Err(make::arg(
            op,
            "the leading denominator coefficient a[0] is 0",
        ));
    }
    let (edge, ext) = pad(op, x, ax, opts, ntaps)?;
    let zi = crate::filter::lfilter_zi_host(op, &bv, &av)?;
    let zarr = if zi.is_empty() {
        None
    } else {
        let k = zi.len();
        Some(Array::from_vec(
            zi,
            &zi_shape(x.ndim(), ax, k, None),
            x.device(),
        )?)
    };
    let (bd, ad) = (
        Array::from_vec(bv, &[b.size()], &Device::cpu())?,
        Array::from_vec(av, &[a.size()], &Device::cpu())?,
    );
    let run = |v: &Array<T>, z: Option<&Array<T>>| -> Result<Array<T>> {
        let o = FilterOptions {
            axis: ax as isize,
            zi: z,
        };
        Ok(lfilter(&bd, &ad, v, &o)?.y)
    };
    forward_backward(&ext, ax, edge, zarr.as_ref(), &run)
}

/// A forward-backward filter with second-order sections, SciPy's
/// `scipy.signal.sosfiltfilt(sos, x, axis, padtype, padlen)`.
///
/// As [`filtfilt`] with [`sosfilt`] and [`crate::sosfilt_zi`]; the default `padlen` is
/// `3 * (2 * n_sections + 1 - min(#(b2 == 0), #(a2 == 0)))`, SciPy's.
///
/// # Errors
/// As [`sosfilt`] for `sos`; `Singular` for a section with a pole at 1; `InvalidArgument` when
/// the signal is not longer than `padlen`, or a bad axis.
///
/// ```
/// use cusci_signal::{sosfiltfilt, FiltfiltOptions, Array, Device};
/// let d = Device::cpu();
/// let sos = Array::from_vec(vec![0.5f64, 0.5, 0.0, 1.0, 0.0, 0.0], &[1, 6], &d).unwrap();
/// let x = Array::from_vec(vec![1.0f64; 16], &[16], &d).unwrap();
/// let y = sosfiltfilt(&sos, &x, &FiltfiltOptions::default()).unwrap().to_vec().unwrap();
/// assert!(y.iter().all(|v| (v - 1.0).abs() < 1e-12));
/// ```
pub fn sosfiltfilt<T: SignalScalar>(
    sos: &Array<T>,
    x: &Array<T>,
    opts: &FiltfiltOptions,
) -> Result<Array<T>> {
    let op = "sosfiltfilt";
    if sos.ndim() != 2 || sos.shape()[1] != 6 || sos.shape()[0] == 0 {
        return Err(make::shape(
            op,
            format!("sos must have shape (n_sections, 6), got {:?}", sos.shape()),
        ));
    }
    crate::procutil::same_dev(op, sos.device(), x.device())?;
    let ax = norm_axis(op, opts.axis, x.ndim())?;
    let sv = host(sos)?;
    let nsec = sos.shape()[0];
    let z2 = (0..nsec).filter(|&s| sv[6 * s + 2] == T::zero()).count();
    let z5 = (0..nsec).filter(|&s| sv[6 * s + 5] == T::zero()).count();
    let ntaps = 2 * nsec + 1 - z2.min(z5);
    let sos_h = Array::from_vec(sv, &[nsec, 6], &Device::cpu())?;
    let zi = crate::sosfilt_zi(&sos_h)?.to_vec()?;
    let (edge, ext) = pad(op, x, ax, opts, ntaps)?;
    let zarr = Array::from_vec(zi, &zi_shape(x.ndim(), ax, 2, Some(nsec)), x.device())?;
    let run = |v: &Array<T>, z: Option<&Array<T>>| -> Result<Array<T>> {
        let o = FilterOptions {
            axis: ax as isize,
            zi: z,
        };
        Ok(sosfilt(&sos_h, v, &o)?.y)
    };
    forward_backward(&ext, ax, edge, Some(&zarr), &run)
}

/// The initial states of [`lfilter`] that reproduce given past outputs `y` and inputs `x`,
/// SciPy's `scipy.signal.lfiltic(b, a, y, x)`: `y = [y[-1], y[-2], ...]`, `x = [x[-1], ...]`
/// (most recent first, missing values zero). A 1-D array of `max(len(a), len(b)) - 1` values
/// on `b`'s device, computed on the host.
///
/// # Errors
/// `ShapeMismatch` for inputs that are not 1-D; `InvalidArgument` for empty `b` or `a`, or
/// `a[0] == 0`.
///
/// ```
/// use cusci_signal::{lfiltic, Array, Device};
/// let d = Device::cpu();
/// let b = Array::from_vec(vec![1.0f64], &[1], &d).unwrap();
/// let a = Array::from_vec(vec![1.0f64, -0.5], &[2], &d).unwrap();
/// let y = Array::from_vec(vec![2.0f64], &[1], &d).unwrap();
/// assert_eq!(lfiltic(&b, &a, &y, None).unwrap().to_vec().unwrap(), vec![1.0]);
/// ```
pub fn lfiltic<T: SignalScalar>(
    b: &Array<T>,
    a: &Array<T>,
    y: &Array<T>,
    x: Option<&Array<T>>,
) -> Result<Array<T>> {
    let op = "lfiltic";
    for (name, c) in [("b", Some(b)), ("a", Some(a)), ("y", Some(y)), ("x", x)] {
        if let Some(c) = c {
            if c.ndim() != 1 {
                return Err(make::shape(
                    op,
                    format!("{name} must be one-dimensional, got shape {:?}", c.shape()),
                ));
            }
        }
    }
    let (bv, av, yv) = (host(b)?, host(a)?, host(y)?);
    if bv.is_empty() || av.is_empty() {
        return Err(make::arg(op, "b and a must have at least one coefficient"));
    }
    if av[0] == T::zero() {
        return Err(make::arg(
            op,
            "the leading denominator coefficient a[0] is 0",
        ));
    }
    let (nn, mm) = (av.len() - 1, bv.len() - 1);
    let k = nn.max(mm);
    let mut xv = match x {
        Some(x) => host(x)?,
        None => Vec::new(),
    };
    xv.resize(xv.len().max(mm), T::zero());
    let mut yv = yv;
    yv.resize(yv.len().max(nn), T::zero());
    let mut zi = vec![T::zero(); k];
    for m in 0..mm {
        let mut s = T::zero();
        for (j, &bj) in bv[m + 1..].iter().enumerate() {
            s += bj * xv[j];
        }
        zi[m] = s;
    }
    for m in 0..nn {
        let mut s = T::zero();
        for (j, &aj) in av[m + 1..].iter().enumerate() {
            s += aj * yv[j];
        }
        zi[m] -= s;
    }
    if av[0] != T::one() {
        let a0 = av[0];
        zi.iter_mut().for_each(|v| *v = *v / a0);
    }
    Array::from_vec(zi, &[k], b.device())
}
