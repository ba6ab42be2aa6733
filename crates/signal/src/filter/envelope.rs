//! SciPy's `envelope` (SciPy ≥ 1.16): the envelope of a band of the analytic signal, with
//! optional resampling and the residual (what lies outside the band).
//!
//! Composed from `cusci_fft` and one small gather kernel (`envelope.cu`, two weighted taps per
//! output bin): every SciPy bin operation (doubling of the positive frequencies, band
//! selection with its wrap-around, zeroing for the residual, the resampling of the spectrum
//! with its Nyquist-bin rules) is folded on the host into an index/weight table, so each
//! output spectrum is one gather followed by one inverse FFT on the input's device.

use crate::procutil::{each_dtype, real_of, typed_kernel, typed_source, REAL_DTYPES};
use cusci_core::array::layout::norm_axis;
use cusci_core::dtype::Float;
use cusci_core::error::make;
use cusci_core::{c64, Array, Backend, Element, KernelModule, LaunchConfig, Result};
use cusci_fft::{FftComplex, FftInput, FftOptions};
use rayon::prelude::*;

const SRC: &str = include_str!("envelope.cu");

/// `residual=` of [`envelope`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EnvelopeResidual {
    /// `'lowpass'`: the part of the signal below the band (default).
    #[default]
    Lowpass,
    /// `'all'`: everything outside the band.
    All,
}

/// The options of [`envelope`] (SciPy's defaults: `bp_in=(1, None)`, `n_out=None`,
/// `squared=False`, `residual='lowpass'`, `axis=-1`).
///
/// ```
/// let o = cusci_signal::EnvelopeOptions::default();
/// assert_eq!((o.bp_in, o.n_out, o.axis), ((Some(1), None), None, -1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnvelopeOptions {
    /// The band `[start, stop)` in FFT bins (None: `-(n // 2)` and `(n + 1) // 2`).
    pub bp_in: (Option<i64>, Option<i64>),
    /// Output length (default the input length): the envelope is resampled to it.
    pub n_out: Option<usize>,
    /// Return the squared envelope.
    pub squared: bool,
    /// The residual to compute (None: none).
    pub residual: Option<EnvelopeResidual>,
    /// The axis.
    pub axis: isize,
}

impl Default for EnvelopeOptions {
    fn default() -> Self {
        EnvelopeOptions {
            bp_in: (Some(1), None),
            n_out: None,
            squared: false,
            residual: Some(EnvelopeResidual::Lowpass),
            axis: -1,
        }
    }
}

/// The result of [`envelope`]: SciPy's `z_env` and, when a residual is asked, `z_res` (SciPy
/// stacks the two along a new first axis).
#[derive(Debug, Clone)]
pub struct Envelope<X: FftInput> {
    /// The (squared) envelope, real.
    pub envelope: Array<<X::Complex as Float>::Real>,
    /// The residual, of the input's type.
    pub residual: Option<Array<X>>,
}

/// Python's `range(*slice(start, stop).indices(n))` (step 1).
fn py_slice(start: Option<i64>, stop: Option<i64>, n: i64) -> std::ops::Range<i64> {
    let norm = |v: i64| {
        if v < 0 {
            (v + n).max(0)
        } else {
            v.min(n)
        }
    };
    let a = start.map(norm).unwrap_or(0);
    let b = stop.map(norm).unwrap_or(n);
    a..b.max(a)
}

/// The host tables: (taps of the envelope spectrum, taps of the residual spectrum).
type Taps = Vec<[(i64, f64); 2]>;

fn tables(
    n: usize,
    n_out: usize,
    start: i64,
    stop: i64,
    cplx: bool,
    residual: Option<EnvelopeResidual>,
) -> (Taps, Option<Taps>) {
    let ni = n as i64;
    let fak = n_out as f64 / n as f64;
    let nh = n / 2 + 1;
    // zw[k]: the factor on Z[k] of SciPy's full-length spectrum (real input: rfft bins only)
    let mut zw: Vec<f64> = (0..n)
        .map(|k| if cplx || k < nh { 1.0 } else { 0.0 })
        .collect();
    if !cplx {
        if start > 0 {
            for k in py_slice(Some(start), Some(stop), ni) {
                zw[k as usize] *= 2.0;
            }
        } else if stop > 0 {
            for k in py_slice(Some(1), Some(stop), ni) {
                zw[k as usize] *= 2.0;
            }
        }
    }
    let straddle = start <= 0 && 0 < stop;
    let sel: Vec<i64> = if straddle {
        (start..stop).map(|k| k.rem_euclid(ni)).collect()
    } else {
        py_slice(Some(start), Some(stop), ni).collect()
    };
    let none = [(-1i64, 0.0f64); 2];
    let mut env = vec![none; n_out];
    for (j, &k) in sel.iter().enumerate().take(n_out) {
        let w = zw[k as usize];
        if w != 0.0 {
            // real input: bins above n // 2 are zero (and absent from the rfft)
            env[j][0] = (k, fak * w);
        }
    }
    let res = residual.map(|mode| {
        let mut zr = zw.clone();
        if !straddle {
            for k in py_slice(Some(start), Some(stop), ni) {
                zr[k as usize] = 0.0;
            }
        } else {
            for k in py_slice(None, Some(stop), ni) {
                zr[k as usize] = 0.0;
            }
            for k in py_slice(Some(start), None, ni) {
                zr[k as usize] = 0.0;
            }
        }
        if mode == EnvelopeResidual::Lowpass {
            let half = (ni + 1) / 2;
            if stop > 0 {
                for k in py_slice(Some(stop), Some(half), ni) {
                    zr[k as usize] = 0.0;
                }
            } else {
                for k in py_slice(Some(start), None, ni) {
                    zr[k as usize] = 0.0;
                }
                for k in py_slice(Some(0), Some(half), ni) {
                    zr[k as usize] = 0.0;
                }
            }
        }
        let m = n.min(n_out);
        if !cplx {
            // fak * irfft(Z, n=n_out): the first n_out // 2 + 1 bins
            if n_out != n && m % 2 == 0 {
                zr[m / 2] *= if n_out < n { 2.0 } else { 0.5 };
            }
            (0..n_out / 2 + 1)
                .map(|k| {
                    let mut t = none;
                    if k < n && zr[k] != 0.0 {
                        t[0] = (k as i64, fak * zr[k]);
                    }
                    t
                })
                .collect::<Taps>()
        } else {
            // resample(Z, n_out, domain='freq') = ifft(Y) with Y from SciPy's bin rules
            let m2 = m / 2 + 1;
            let mut y = vec![none; n_out];
            let tap = |k: usize| (k as i64, fak * zr[k]);
            for (j, yj) in y.iter_mut().enumerate().take(m2) {
                yj[0] = tap(j);
            }
            if m2 < m {
                for t in 0..m - m2 {
                    y[n_out - (m - m2) + t][0] = tap(n - (m - m2) + t);
                }
            }
            if m % 2 == 0 {
                if n_out < n {
                    let j = n_out - m / 2;
                    y[j][1] = tap(n - m / 2);
                } else if n < n_out {
                    let k = m / 2;
                    y[k][0].1 *= 0.5;
                    y[n_out - m / 2] = [y[k][0], (-1, 0.0)];
                }
            }
            y
        }
    });
    (env, res)
}

/// The gather kernel (`envelope.cu`) for the real type of the spectrum.
pub(crate) static ENVELOPE: KernelModule = KernelModule {
    name: "signal_envelope",
    source: |s| typed_source("signal_envelope", s, &[], SRC),
    options: &[],
    samples: || each_dtype(&REAL_DTYPES),
};

/// `out[r, j] = Σ w · src[r, idx]` over the (up to two) taps of row `j` of the table.
fn gather<C: FftComplex>(src: &Array<C>, taps: &Taps) -> Result<Array<C>> {
    let rows = src.shape()[0];
    let nsrc = src.shape()[1];
    let nout = taps.len();
    match src.backend() {
        Backend::Host(h) => {
            let s = h.try_to_contiguous()?;
            let mut out = vec![C::zero(); rows * nout];
            out.par_chunks_mut(nout.max(1))
                .enumerate()
                .for_each(|(r, o)| {
                    for (j, t) in taps.iter().enumerate() {
                        let mut acc = c64::new(0.0, 0.0);
                        for &(i, w) in t {
                            if i >= 0 {
                                acc += s[r * nsrc + i as usize].to_c64() * w;
                            }
                        }
                        o[j] = C::from_c64(acc);
                    }
                });
            Array::from_vec(out, &[rows, nout], src.device())
        }
        Backend::Cuda(c) => {
            let mut out = Array::<C>::empty(&[rows, nout], src.device())?;
            if rows * nout == 0 {
                return Ok(out);
            }
            let idx: Vec<i64> = taps.iter().flat_map(|t| [t[0].0, t[1].0]).collect();
            let w: Vec<f64> = taps.iter().flat_map(|t| [t[0].1, t[1].1]).collect();
            let idx = Array::from_vec(idx, &[2 * nout], src.device())?;
            let w = Array::from_vec(w, &[2 * nout], src.device())?;
            let d = c.dev();
            let f = typed_kernel(&ENVELOPE, d, real_of(C::DTYPE), "gather2")?;
            let tot = rows * nout;
            d.launch(&f, LaunchConfig::cover(tot, 256)?)
                .arg(c.ptr())
                .arg(rows as i64)
                .arg(nsrc as i64)
                .arg(nout as i64)
                .arg(idx.dev_ptr()?)
                .arg(w.dev_ptr()?)
                .arg(out.dev_ptr_mut()?)
                .run()?;
            Ok(out)
        }
    }
}

/// Moves the last axis of `a` (shape `lead + [n]`) to position `ax`.
fn last_to<E: Element>(a: Array<E>, ax: usize) -> Result<Array<E>> {
    let nd = a.ndim();
    if ax == nd - 1 {
        return Ok(a);
    }
    let mut order: Vec<isize> = Vec::with_capacity(nd);
    for i in 0..nd - 1 {
        if i == ax {
            order.push((nd - 1) as isize);
        }
        order.push(i as isize);
    }
    a.permute(&order)?.contiguous()
}

/// The envelope of `z`, SciPy's `scipy.signal.envelope(z, bp_in=(1, None), *, n_out=None,
/// squared=False, residual='lowpass', axis=-1)`.
///
/// The FFT of `z` along `axis` (for real `z`: the analytic signal's spectrum, the positive
/// bins doubled) is cut to the bins `bp_in[0] ≤ k < bp_in[1]` (negative bins count from the
/// top), inverse transformed with `n_out` points and scaled by `n_out / n`; the envelope is
/// the modulus (`squared`: its square). The residual is the spectrum without the band (with
/// `Lowpass` also without everything above it), brought back to `n_out` samples as SciPy's
/// `irfft` (real) or `resample(..., domain='freq')` (complex). Runs on `z`'s device: one FFT,
/// one gather and one inverse FFT per output; f32/c32 in f32 precision.
///
/// # Errors
/// `InvalidArgument`: an axis out of range, an empty axis, `n_out = 0`, a band outside
/// `-n//2 ≤ bp_in[0] < bp_in[1] ≤ (n+1)//2`.
///
/// ```
/// use cusci_signal::{envelope, EnvelopeOptions, Array, Device};
/// // an amplitude-modulated carrier: the envelope is the modulation 1 + 0.5 cos(2π 2 t/128)
/// let n = 128;
/// let x: Vec<f64> = (0..n).map(|i| {
///     let t = i as f64 / n as f64;
///     (1.0 + 0.5 * (2.0 * std::f64::consts::PI * 2.0 * t).cos())
///         * (2.0 * std::f64::consts::PI * 20.0 * t).cos()
/// }).collect();
/// let z = Array::from_vec(x, &[n], &Device::Cpu).unwrap();
/// let e = envelope(&z, &EnvelopeOptions::default()).unwrap().envelope.to_vec().unwrap();
/// assert!((e[0] - 1.5).abs() < 1e-9 && (e[16] - 1.0).abs() < 1e-9 && (e[32] - 0.5).abs() < 1e-9);
/// ```
pub fn envelope<X>(z: &Array<X>, opts: &EnvelopeOptions) -> Result<Envelope<X>>
where
    X: FftInput,
    X::Complex: FftComplex + FftInput<Complex = X::Complex>,
    <X::Complex as Float>::Real: FftInput<Complex = X::Complex>,
{
    let op = "envelope";
    let ax = norm_axis(op, opts.axis, z.ndim())?;
    let n = z.shape()[ax];
    if n == 0 {
        return Err(make::arg(
            op,
            format!("z.shape[axis] not > 0 for z.shape={:?}", z.shape()),
        ));
    }
    if opts.n_out == Some(0) {
        return Err(make::arg(op, "n_out=0 is not a positive integer or None!"));
    }
    let ni = n as i64;
    let n_out = opts.n_out.unwrap_or(n);
    let start = opts.bp_in.0.unwrap_or(-(ni / 2));
    let stop = opts.bp_in.1.unwrap_or((ni + 1) / 2);
    if !((-ni).div_euclid(2) <= start && start < stop && stop <= (ni + 1) / 2) {
        return Err(make::arg(
            op,
            format!("`-n//2 <= bp_in[0] < bp_in[1] <= (n+1)//2` does not hold for n={n} and bp_in=({start}, {stop})!"),
        ));
    }
    let cplx = X::DTYPE.is_complex();
    let nd = z.ndim();
    let mut perm: Vec<isize> = (0..nd as isize).filter(|&a| a != ax as isize).collect();
    perm.push(ax as isize);
    let zm = if ax == nd - 1 {
        z.contiguous()?
    } else {
        z.permute(&perm)?.contiguous()?
    };
    let lead: Vec<usize> = zm.shape()[..nd - 1].to_vec();
    let rows: usize = lead.iter().product();
    let z2 = zm.reshape(&[rows as isize, n as isize])?;
    let spec: Array<X::Complex> = if cplx {
        cusci_fft::fft(&z2, &FftOptions::default())?
    } else {
        // real input: rfft of the same values (FftInput's real types)
        let zr: Array<<X::Complex as Float>::Real> = z2.astype()?;
        cusci_fft::rfft(&zr, &FftOptions::default())?
    };
    let (te, tr) = tables(n, n_out, start, stop, cplx, opts.residual);
    let inv = FftOptions {
        n: Some(n_out),
        ..Default::default()
    };
    let zbb = cusci_fft::ifft(&gather(&spec, &te)?, &inv)?;
    let env = if opts.squared {
        zbb.abs2()?
    } else {
        zbb.abs()?
    };
    let mut shape: Vec<isize> = lead.iter().map(|&v| v as isize).collect();
    shape.push(n_out as isize);
    let env = last_to(env.reshape(&shape)?, ax)?;
    let residual = match tr {
        None => None,
        Some(t) => {
            let g = gather(&spec, &t)?;
            let r: Array<X> = if cplx {
                cusci_fft::ifft(&g, &inv)?.astype()?
            } else {
                cusci_fft::irfft(&g, &inv)?.astype()?
            };
            Some(last_to(r.reshape(&shape)?, ax)?)
        }
    };
    Ok(Envelope {
        envelope: env,
        residual,
    })
}
