//! Zero-phase filtering: [`filtfilt`], [`sosfiltfilt`] (SciPy's, `method='pad'`), and
//! [`lfiltic`]. The forward-backward passes run on the input's device through [`crate::lfilter`]
//! and [`crate::sosfilt`] (the GPU's block-parallel scan for long signals); the edge extension
//! is one kernel, the initial states one broadcast product, the reversals strided views: no
//! host round trip besides reading the coefficients. On the CPU, `sosfiltfilt`'s pad method
//! runs per group of signals in one buffer each (`iir::sosfiltfilt_host`), the same bits.

use super::iir::{
    ba_filter, lfilter, lfilter_zi_host, sosfilt, sosfilt_zi, sosfiltfilt_host, FilterOptions,
};
use crate::procutil::{
    each_dtype, host, host_elems, split_axis, typed_kernel, typed_source, SignalScalar, DEF_TZERO,
    SIGNAL_DTYPES,
};
use cusci_core::array::check_same_device;
use cusci_core::array::layout::norm_axis;
use cusci_core::error::make;
use cusci_core::{
    Array, Backend, BackendMut, CudaDevice, Device, Element, Function, KernelModule, LaunchConfig,
    RealFloat, Result,
};
use rayon::prelude::*;

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

/// How [`filtfilt`] treats the signal's ends (SciPy's `method=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FiltMethod {
    /// Extend the signal (`padtype`, `padlen`) and start both passes from steady states
    /// (SciPy's default `'pad'`).
    #[default]
    Pad,
    /// Gustafsson's method (`'gust'`): the initial states of the forward and the backward pass
    /// are chosen (least squares) so that forward-backward and backward-forward filtering agree;
    /// `irlen` truncates the impulse response used for them. `padtype`/`padlen` are ignored.
    Gust,
}

/// The optional arguments of [`filtfilt`] and [`sosfiltfilt`].
///
/// ```
/// use cusci_signal::{FiltfiltOptions, FiltMethod, FiltPad};
/// let o = FiltfiltOptions::default();
/// assert_eq!((o.axis, o.padtype, o.padlen), (-1, Some(FiltPad::Odd), None));
/// assert_eq!((o.method, o.irlen), (FiltMethod::Pad, None));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FiltfiltOptions {
    /// The axis to filter. Default `-1`.
    pub axis: isize,
    /// The extension; `None` for no extension (SciPy's `padtype=None`). Default odd.
    pub padtype: Option<FiltPad>,
    /// Samples of extension at each end; `None` for SciPy's default `3 * ntaps`.
    pub padlen: Option<usize>,
    /// [`filtfilt`]'s method. Default [`FiltMethod::Pad`]; [`sosfiltfilt`] has only `Pad` (as
    /// SciPy's, which takes no `method`).
    pub method: FiltMethod,
    /// With [`FiltMethod::Gust`]: the length of the impulse response considered for the
    /// initial states (SciPy's `irlen`); `None` (or a signal of at most `2 * irlen` samples)
    /// uses the whole signal. Default `None`.
    pub irlen: Option<usize>,
}

impl Default for FiltfiltOptions {
    fn default() -> Self {
        FiltfiltOptions {
            axis: -1,
            padtype: Some(FiltPad::Odd),
            padlen: None,
            method: FiltMethod::Pad,
            irlen: None,
        }
    }
}

/// The edge extension and Gustafsson's matrix products (`filtfilt.cu`), one module per element
/// type.
pub(crate) static FILTFILT: KernelModule = KernelModule {
    name: "signal_filtfilt",
    source: |s| typed_source("signal_filtfilt", s, &[DEF_TZERO], SRC),
    options: &[],
    samples: || each_dtype(&SIGNAL_DTYPES),
};

fn kernel<T: Element>(d: &CudaDevice, name: &str) -> Result<Function> {
    typed_kernel(&FILTFILT, d, T::DTYPE, name)
}

/// SciPy's `_validate_pad` + the extension: `(edge, extended x)`.
/// The extension's mode for `pad_ext` (0 odd, 1 even, 2 constant), `None` when nothing is added.
fn pad_mode(opts: &FiltfiltOptions, edge: usize) -> Option<i32> {
    let pt = opts.padtype.filter(|_| edge > 0)?;
    Some(match pt {
        FiltPad::Odd => 0,
        FiltPad::Even => 1,
        FiltPad::Constant => 2,
    })
}

/// The extension's length `padlen` (0 without `padtype`), checked against the signal's length
/// as SciPy checks it.
fn pad_len<T: SignalScalar>(
    op: &str,
    x: &Array<T>,
    ax: usize,
    opts: &FiltfiltOptions,
    ntaps: usize,
) -> Result<usize> {
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
    Ok(edge)
}

fn pad<T: SignalScalar>(
    op: &str,
    x: &Array<T>,
    ax: usize,
    opts: &FiltfiltOptions,
    ntaps: usize,
) -> Result<(usize, Array<T>)> {
    let edge = pad_len(op, x, ax, opts, ntaps)?;
    let Some(mode) = pad_mode(opts, edge) else {
        return Ok((edge, x.clone()));
    };
    let (outer, n, inner) = split_axis(x.shape(), ax);
    let ne = n + 2 * edge;
    let mut shape = x.shape().to_vec();
    shape[ax] = ne;
    match x.backend() {
        Backend::Host(h) => {
            let xd = h.try_to_contiguous()?;
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
        Backend::Cuda(c) => {
            let xc = x.contiguous()?;
            let mut e = Array::<T>::empty(&shape, x.device())?;
            let total = outer * ne * inner;
            if total > 0 {
                let d = c.dev();
                d.launch(
                    &kernel::<T>(d, "pad_ext")?,
                    LaunchConfig::cover(total, 256)?,
                )
                .arg(xc.dev_ptr()?)
                .arg(e.dev_ptr_mut()?)
                .arg(outer as i64)
                .arg(n as i64)
                .arg(inner as i64)
                .arg(edge as i64)
                .arg(mode)
                .run()?;
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
/// SciPy's `scipy.signal.filtfilt(b, a, x, axis, padtype, padlen, method, irlen)`.
///
/// `method='pad'` ([`FiltMethod::Pad`], the default): the signal is extended by `padlen`
/// samples at each end (default `3 * max(len(a), len(b))`), filtered forward from the steady
/// state `lfilter_zi * x[0]`, backward from `lfilter_zi * y[-1]`, and the extension removed.
///
/// `method='gust'` ([`FiltMethod::Gust`]): Gustafsson's method, as SciPy's `_filtfilt_gust`.
/// Forward-backward and backward-forward passes from rest give `y_fb` and `y_bf`; the initial
/// states `[x0; xN]` that make both agree solve the least-squares problem `M [x0; xN] = y_bf -
/// y_fb` (`M` built from the filter's zero-input responses over `m = irlen` samples at each end,
/// or over the whole signal), and `y = y_fb + W [x0; xN]`. `M`, `W` and `M`'s pseudo-inverse
/// (an SVD, singular values below `eps * s_max` dropped, as `scipy.linalg.lstsq`) are built on
/// the host in f64 once per call: they depend on the filter and the lengths only. The
/// per-signal products (`2 * order` values from the delta, corrections back into `y_fb`) are one
/// small kernel launch each; the four passes are [`lfilter`]s on the device. The filter's
/// coefficients must be real (SciPy's real `Obs` matrix drops imaginary parts); the signal may be
/// complex.
///
/// Same shape and device as `x`.
///
/// # Errors
/// As [`lfilter`] for `b` and `a` (plus `Singular` from [`crate::lfilter_zi`] for a pole at 1,
/// with `Pad`); `InvalidArgument` when the signal is not longer than `padlen` (`Pad`), for
/// complex coefficients with `Gust`, or a bad axis.
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
    if opts.method == FiltMethod::Gust {
        return filtfilt_gust(op, &bv, &av, x, ax, opts.irlen);
    }
    let (edge, ext) = pad(op, x, ax, opts, ntaps)?;
    let zi = lfilter_zi_host(op, &bv, &av)?;
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

/// The host matrices of Gustafsson's method for a filter of `order >= 1` states, `n` samples
/// and `m` (`m == n`, or `2 m < n`) samples of impulse response: `(P, W, rows)` with `P` the
/// pseudo-inverse of `M` (`2 order x rows`, row-major) and `W` (`rows x 2 order`), `rows = m`
/// when `m == n`, else `2 m` (the first and the last `m` samples).
fn gust_matrices(
    op: &str,
    bf: &[f64],
    af: &[f64],
    n: usize,
    m: usize,
) -> Result<(Vec<f64>, Vec<f64>, usize)> {
    let (iir, _) = ba_filter(op, bf, af)?;
    let order = iir.states();
    let c = 2 * order;
    // Obs[:, 0]: the zero-input response from the unit state e_0; Obs[k:, k] = Obs[:-k, 0]
    let mut z = vec![0.0; order];
    z[0] = 1.0;
    let h: Vec<f64> = (0..m).map(|_| iir.step(&mut z, 0.0)).collect();
    let obs = |i: usize, k: usize| if i >= k { h[i - k] } else { 0.0 };
    // S = lfilter(b, a, Obs[::-1], axis=0)
    let mut s = vec![0.0; m * order];
    for k in 0..order {
        let mut z = vec![0.0; order];
        for i in 0..m {
            s[i * order + k] = iir.step(&mut z, obs(m - 1 - i, k));
        }
    }
    let rows = if m == n { m } else { 2 * m };
    let mut mm = vec![0.0; rows * c];
    let mut ww = vec![0.0; rows * c];
    let off = if m == n { 0 } else { m };
    for i in 0..m {
        for k in 0..order {
            let sr = s[(m - 1 - i) * order + k];
            let obr = obs(m - 1 - i, k);
            mm[i * c + k] = sr - obs(i, k);
            ww[i * c + k] = sr;
            mm[(off + i) * c + order + k] = obr - s[i * order + k];
            ww[(off + i) * c + order + k] = obr;
        }
    }
    let mut p = vec![0.0; c * rows];
    if rows > 0 {
        let mat = faer::Mat::<f64>::from_fn(rows, c, |i, j| mm[i * c + j]);
        let svd = mat
            .thin_svd()
            .map_err(|_| cusci_core::Error::NoConvergence {
                op: op.into(),
                iterations: 0,
                residual: f64::NAN,
            })?;
        let sv = svd.S().column_vector();
        let (u, v) = (svd.U(), svd.V());
        let kk = rows.min(c);
        let smax = (0..kk).map(|i| sv[i]).fold(0.0f64, f64::max);
        let cut = f64::EPSILON * smax;
        for t in 0..kk {
            // keep s > eps * s_max (NaN dropped)
            if sv[t].partial_cmp(&cut) != Some(std::cmp::Ordering::Greater) {
                continue;
            }
            let inv = 1.0 / sv[t];
            for i in 0..c {
                let vi = v[(i, t)] * inv;
                for r in 0..rows {
                    p[i * rows + r] += vi * u[(r, t)];
                }
            }
        }
    }
    Ok((p, ww, rows))
}

/// One product `out[s, opos(j)] (+)= Σ_k A[j, k] in[s, ipos(k)]` of [`gust_matvec`] over
/// `nsig` contiguous rows: `A` is `j x k` row-major, `in` rows of `in_len`, `out` rows of
/// `out_len`; `maps` = (isplit, ishift, osplit, oshift) place the row positions (`pos(v) = v`
/// below the split, `v + shift` from it); `acc` adds to `out` instead of overwriting it.
struct GustProduct<'a, T> {
    a: &'a [T],
    in_len: usize,
    out_len: usize,
    nsig: usize,
    j: usize,
    k: usize,
    maps: (usize, usize, usize, usize),
    acc: bool,
}

/// [`GustProduct`] `p` of `inp` into `out` (see `gust_matvec` in `filtfilt.cu`); returns `out`.
fn gust_matvec<T: SignalScalar>(
    inp: &Array<T>,
    mut out: Array<T>,
    p: &GustProduct<'_, T>,
) -> Result<Array<T>> {
    let (j, k) = (p.j, p.k);
    let (isplit, ishift, osplit, oshift) = p.maps;
    let pos = |v: usize, split: usize, shift: usize| if v < split { v } else { v + shift };
    match out.backend_mut()? {
        BackendMut::Host(o) => {
            let xi = host_elems(inp)?;
            o.par_chunks_mut(p.out_len.max(1))
                .zip(xi.par_chunks(p.in_len.max(1)))
                .take(p.nsig)
                .for_each(|(orow, irow)| {
                    for jj in 0..j {
                        let mut sum = T::zero();
                        for kk in 0..k {
                            sum += p.a[jj * k + kk] * irow[pos(kk, isplit, ishift)];
                        }
                        let d = &mut orow[pos(jj, osplit, oshift)];
                        *d = if p.acc { *d + sum } else { sum };
                    }
                });
        }
        BackendMut::Cuda(d, o) => {
            let total = p.nsig * j;
            if total > 0 {
                let am = Array::from_vec(p.a.to_vec(), &[p.a.len().max(1)], inp.device())?;
                d.launch(
                    &kernel::<T>(d, "gust_matvec")?,
                    LaunchConfig::cover(total, 128)?,
                )
                .arg(inp.dev_ptr()?)
                .arg(p.in_len as i64)
                .arg(am.dev_ptr()?)
                .arg(o)
                .arg(p.out_len as i64)
                .arg(p.nsig as i64)
                .arg(j as i64)
                .arg(k as i64)
                .arg(isplit as i64)
                .arg(ishift as i64)
                .arg(osplit as i64)
                .arg(oshift as i64)
                .arg(p.acc as i32)
                .run()?;
            }
        }
    }
    Ok(out)
}

/// SciPy's `_filtfilt_gust` (see [`filtfilt`]).
fn filtfilt_gust<T: SignalScalar>(
    op: &str,
    bv: &[T],
    av: &[T],
    x: &Array<T>,
    ax: usize,
    irlen: Option<usize>,
) -> Result<Array<T>> {
    let order = bv.len().max(av.len()) - 1;
    if order == 0 {
        // the filter is a gain
        let g = bv[0] / av[0];
        return x.mul_scalar(g * g);
    }
    if bv
        .iter()
        .chain(av)
        .any(|v| v.im() != <T::Real as Element>::zero())
    {
        return Err(make::arg(
            op,
            "method='gust' needs real filter coefficients (SciPy's real Obs matrix drops the \
             imaginary parts)",
        ));
    }
    let re = |v: &T| RealFloat::to_f64(v.re());
    let (bf, af): (Vec<f64>, Vec<f64>) = (bv.iter().map(re).collect(), av.iter().map(re).collect());
    let last = x.ndim() - 1;
    let xt = if ax == last {
        x.contiguous()?
    } else {
        x.swapaxes(ax as isize, last as isize)?.contiguous()?
    };
    let n = xt.shape()[last];
    if xt.size() == 0 {
        return x.contiguous();
    }
    let nsig = xt.size() / n;
    let m = match irlen {
        Some(l) if n > 2 * l => l,
        _ => n,
    };
    let (p, w, rows) = gust_matrices(op, &bf, &af, n, m)?;
    let c = 2 * order;
    let (bd, ad) = (
        Array::from_vec(bv.to_vec(), &[bv.len()], &Device::cpu())?,
        Array::from_vec(av.to_vec(), &[av.len()], &Device::cpu())?,
    );
    let run = |v: &Array<T>| -> Result<Array<T>> {
        Ok(lfilter(&bd, &ad, v, &FilterOptions { axis: -1, zi: None })?.y)
    };
    let rev = |v: &Array<T>| v.slice_axis(-1, None, None, -1);
    let y_f = run(&xt)?;
    let y_fb = rev(&run(&rev(&y_f)?)?)?.contiguous()?;
    let y_b = rev(&run(&rev(&xt)?)?)?;
    let y_bf = run(&y_b)?;
    let delta = y_bf.sub(&y_fb)?.contiguous()?;
    // the first m and the last m samples when the impulse response is truncated
    let (split, shift) = if m == n { (n, 0) } else { (m, n - 2 * m) };
    let pt: Vec<T> = p
        .iter()
        .map(|&v| T::from_real(<T::Real as RealFloat>::from_f64(v)))
        .collect();
    let wt: Vec<T> = w
        .iter()
        .map(|&v| T::from_real(<T::Real as RealFloat>::from_f64(v)))
        .collect();
    let dev = x.device();
    let ic = Array::<T>::zeros(&[nsig, c], dev)?;
    let to_ic = GustProduct {
        a: &pt,
        in_len: n,
        out_len: c,
        nsig,
        j: c,
        k: rows,
        maps: (split, shift, c, 0),
        acc: false,
    };
    let ic = gust_matvec(&delta, ic, &to_ic)?;
    let to_y = GustProduct {
        a: &wt,
        in_len: c,
        out_len: n,
        nsig,
        j: rows,
        k: c,
        maps: (c, 0, split, shift),
        acc: true,
    };
    let y = gust_matvec(&ic, y_fb, &to_y)?;
    if ax == last {
        Ok(y)
    } else {
        y.swapaxes(ax as isize, last as isize)?.contiguous()
    }
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
    check_same_device(op, sos.device(), x.device())?;
    let ax = norm_axis(op, opts.axis, x.ndim())?;
    if opts.method != FiltMethod::Pad {
        return Err(make::arg(
            op,
            "sosfiltfilt has only the pad method (SciPy's sosfiltfilt takes no method)",
        ));
    }
    let sv = host(sos)?;
    let nsec = sos.shape()[0];
    let z2 = (0..nsec).filter(|&s| sv[6 * s + 2] == T::zero()).count();
    let z5 = (0..nsec).filter(|&s| sv[6 * s + 5] == T::zero()).count();
    let ntaps = 2 * nsec + 1 - z2.min(z5);
    let sos_h = Array::from_vec(sv, &[nsec, 6], &Device::cpu())?;
    if matches!(x.backend(), Backend::Host(_)) {
        // the host's one pass per group of signals (the same bits as the array path below)
        let edge = pad_len(op, x, ax, opts, ntaps)?;
        let zi = sosfilt_zi(&sos_h)?.to_vec()?;
        return sosfiltfilt_host(&sos_h, x, ax, &zi, edge, pad_mode(opts, edge).unwrap_or(0));
    }
    // the padding checked before the initial states, as SciPy (a signal too short for padlen
    // is InvalidArgument whatever the sections; a pole at 1 is Singular only for a long one)
    let (edge, ext) = pad(op, x, ax, opts, ntaps)?;
    let zi = sosfilt_zi(&sos_h)?.to_vec()?;
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
