//! [`resample`] (SciPy's Fourier-method `scipy.signal.resample`) and [`decimate`], composed from
//! `cusci_fft` transforms, the core's broadcast arithmetic and this crate's filters, so both run
//! on the array's device with every signal of the batch in the same calls.

use crate::procutil::{from_f64, SignalScalar};
use cusci_core::array::layout::norm_axis;
use cusci_core::error::make;
use cusci_core::{c32, c64, Array, Element, Result};
use cusci_fft::{FftOptions, FftReal};

/// The optional arguments of [`resample`].
///
/// ```
/// let o = cusci_signal::ResampleOptions::default();
/// assert_eq!(o.axis, 0);
/// assert!(o.window.is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ResampleOptions {
    /// The axis to resample. Default `0` (SciPy's default for `resample`).
    pub axis: isize,
    /// SciPy's array `window=`: weights of the `n` frequency bins of the input in FFT order
    /// (for a named window pass `fftshift(get_window(name, n))`, which is what SciPy does with a
    /// name). Real input folds it as SciPy does (`(W[l] + W[-l]) / 2`). Default `None`.
    pub window: Option<Vec<f64>>,
}

/// Element types [`resample`] accepts (`f32`, `f64`, `c32`, `c64`).
pub trait ResampleScalar: SignalScalar {
    /// The complex type of the same precision (`c32` for `f32` and `c32`, `c64` for `f64` and
    /// `c64`): the output of [`resample_freq`].
    type Complex: ResampleScalar;
    #[doc(hidden)]
    fn resample_impl(
        x: &Array<Self>,
        num: usize,
        axis: usize,
        w: Option<&[f64]>,
    ) -> Result<Array<Self>>;
}

/// The one-sided spectral weights of SciPy's real path (window folded, unpaired bin at `m/2`
/// doubled or halved, divided by `n / num`), for `n` input samples.
fn real_weights(n: usize, num: usize, w: Option<&[f64]>) -> Vec<f64> {
    let nb = n / 2 + 1;
    let m = num.min(n);
    let m2 = m / 2 + 1;
    let s_fac = n as f64 / num as f64;
    let mut wt = vec![1.0; nb];
    if let Some(win) = w {
        wt[0] = win[0];
        for l in 1..nb {
            wt[l] = (win[l] + win[n - l]) / 2.0;
        }
    }
    for (k, v) in wt.iter_mut().enumerate() {
        *v = if k < m2 { *v / s_fac } else { 0.0 };
    }
    if m % 2 == 0 && num != n {
        wt[m / 2] *= if num < n { 2.0 } else { 0.5 };
    }
    wt
}

fn resample_real<R: FftReal>(
    x: &Array<R>,
    num: usize,
    axis: usize,
    w: Option<&[f64]>,
) -> Result<Array<R>> {
    let n = x.shape()[axis];
    let fo = FftOptions {
        axis: axis as isize,
        ..Default::default()
    };
    let xf = cusci_fft::rfft(x, &fo)?;
    let wt = real_weights(n, num, w);
    let mut shape = vec![1usize; x.ndim()];
    shape[axis] = wt.len();
    let wa = Array::from_vec(
        wt.into_iter()
            .map(|v| R::Complex::from_c64(c64::new(v, 0.0)))
            .collect(),
        &shape,
        x.device(),
    )?;
    let y = xf.mul(&wa)?;
    cusci_fft::irfft(
        &y,
        &FftOptions {
            n: Some(num),
            axis: axis as isize,
            ..Default::default()
        },
    )
}

macro_rules! resample_real_impl {
    ($t:ty) => {
        impl ResampleScalar for $t {
            type Complex = <$t as FftReal>::Complex;
            fn resample_impl(
                x: &Array<Self>,
                num: usize,
                axis: usize,
                w: Option<&[f64]>,
            ) -> Result<Array<Self>> {
                resample_real(x, num, axis, w)
            }
        }
    };
}
resample_real_impl!(f32);
resample_real_impl!(f64);

/// Complex input: SciPy's two-sided path, applied to the window, then computed as the real path
/// of the real and imaginary parts (the two-sided bin copy, the paired-bin merge on
/// down-sampling and the split on up-sampling are complex-linear and agree with the real path
/// on real input; a window is applied to the two-sided spectrum first, unfolded, as SciPy).
macro_rules! resample_complex_impl {
    ($t:ty, $r:ty) => {
        impl ResampleScalar for $t {
            type Complex = $t;
            fn resample_impl(
                x: &Array<Self>,
                num: usize,
                axis: usize,
                w: Option<&[f64]>,
            ) -> Result<Array<Self>> {
                let x = match w {
                    None => x.clone(),
                    Some(win) => {
                        // X * W in the frequency domain, back to time: the real path then sees
                        // an unwindowed spectrum.
                        let fo = FftOptions {
                            axis: axis as isize,
                            ..Default::default()
                        };
                        let mut shape = vec![1usize; x.ndim()];
                        shape[axis] = win.len();
                        let wa = Array::from_vec(
                            win.iter().map(|&v| <$t>::new(v as $r, 0.0)).collect(),
                            &shape,
                            x.device(),
                        )?;
                        cusci_fft::ifft(&cusci_fft::fft(x, &fo)?.mul(&wa)?, &fo)?
                    }
                };
                let re = resample_real(&x.real()?, num, axis, None)?;
                let im = resample_real(&x.imag()?, num, axis, None)?;
                let i = <$t>::new(0.0, 1.0);
                re.astype::<$t>()?.add(&im.astype::<$t>()?.mul_scalar(i)?)
            }
        }
    };
}
resample_complex_impl!(c32, f32);
resample_complex_impl!(c64, f64);

/// Resamples to `num` samples along an axis with the Fourier method, SciPy's
/// `scipy.signal.resample(x, num, axis=axis, window=window)` (`domain='time'`, `t=None`):
/// the spectrum is cut or zero-padded to `num` bins (the unpaired bin at `m/2` merged or split
/// as SciPy 1.17 does) and transformed back, scaled by `num / n`. Real input uses `rfft`/`irfft`.
/// Every signal of the batch in one transform pair, on the array's device.
///
/// # Errors
/// `InvalidArgument` for `num == 0`, an empty axis, a bad axis, or a window whose length is not
/// the axis length.
///
/// ```
/// use cusci_signal::{resample, ResampleOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 0.0, -1.0, 0.0], &[4], &Device::cpu()).unwrap();
/// let y = resample(&x, 8, &ResampleOptions::default()).unwrap().to_vec().unwrap();
/// assert!((y[2] - 0.0).abs() < 1e-12 && (y[4] + 1.0).abs() < 1e-12);
/// ```
pub fn resample<T: ResampleScalar>(
    x: &Array<T>,
    num: usize,
    opts: &ResampleOptions,
) -> Result<Array<T>> {
    let axis = resample_check(x, num, opts)?;
    T::resample_impl(x, num, axis, opts.window.as_deref())
}

/// SciPy's checks of `resample`: the normalised axis.
fn resample_check<T: Element>(x: &Array<T>, num: usize, opts: &ResampleOptions) -> Result<usize> {
    let op = "resample";
    let axis = norm_axis(op, opts.axis, x.ndim())?;
    let n = x.shape()[axis];
    if num == 0 {
        return Err(make::arg(op, "num must be positive"));
    }
    if n == 0 {
        return Err(make::arg(op, "x must not be empty along the axis"));
    }
    if let Some(w) = &opts.window {
        if w.len() != n {
            return Err(make::arg(
                op,
                format!(
                    "the window has {} points, the axis {n} frequency bins",
                    w.len()
                ),
            ));
        }
        if w.iter().any(|v| !v.is_finite()) {
            return Err(make::arg(op, "the window must be finite"));
        }
    }
    Ok(axis)
}

/// [`resample`] with SciPy's `t=` argument: `scipy.signal.resample(x, num, t=t, ...)` returns
/// `(x_r, t_r)` with `t_r = t[0] + (t[1] − t[0]) · n / num · arange(num)` (`n` the input length
/// along the axis; only `t[0]` and `t[1]` are read, as SciPy). `t_r` is on `t`'s device.
///
/// # Errors
/// As [`resample`]; `InvalidArgument` when `t` has fewer than 2 elements or is not 1-D.
///
/// ```
/// use cusci_signal::{resample_t, ResampleOptions, Array, Device};
/// let d = Device::cpu();
/// let x = Array::from_vec(vec![1.0f64, 0.0, -1.0, 0.0], &[4], &d).unwrap();
/// let t = Array::from_vec(vec![10.0, 10.5, 11.0, 11.5], &[4], &d).unwrap();
/// let (y, tr) = resample_t(&x, 8, &t, &ResampleOptions::default()).unwrap();
/// assert_eq!(y.size(), 8);
/// assert_eq!(tr.to_vec().unwrap()[..3], [10.0, 10.25, 10.5]);
/// ```
pub fn resample_t<T: ResampleScalar>(
    x: &Array<T>,
    num: usize,
    t: &Array<f64>,
    opts: &ResampleOptions,
) -> Result<(Array<T>, Array<f64>)> {
    let axis = resample_check(x, num, opts)?;
    if t.ndim() != 1 || t.size() < 2 {
        return Err(make::arg(
            "resample",
            format!(
                "t must hold at least the first two timestamps, got shape {:?}",
                t.shape()
            ),
        ));
    }
    let t01 = t.slice_axis(0, Some(0), Some(2), 1)?.to_vec()?;
    let s_fac = x.shape()[axis] as f64 / num as f64;
    let tr: Vec<f64> = (0..num)
        .map(|k| t01[0] + (t01[1] - t01[0]) * s_fac * k as f64)
        .collect();
    let y = T::resample_impl(x, num, axis, opts.window.as_deref())?;
    Ok((y, Array::from_vec(tr, &[num], t.device())?))
}

/// [`resample`] of a spectrum, SciPy's `scipy.signal.resample(x, num, domain='freq', ...)`: `x`
/// is taken as `fft(x_t)` along the axis (real `x` is a real-valued spectrum), and the result is
/// the complex signal `ifft(Y / s)` of SciPy's two-sided path (the spectrum cut or zero-padded to
/// `num` bins, the unpaired bin merged or split, `s = n / num`), in the complex type of `x`'s
/// precision as SciPy's. A `window` multiplies the spectrum first.
///
/// Numerics: computed as the time-domain route of `ifft(x)` (one more transform pair than
/// SciPy's, which differs from SciPy's values by rounding only: 1e-12 in the tests).
///
/// # Errors
/// As [`resample`].
///
/// ```
/// use cusci_signal::{resample_freq, ResampleOptions, Array, Device};
/// use cusci_core::c64;
/// let d = Device::cpu();
/// // the spectrum of a constant 1 over 4 samples: [4, 0, 0, 0]
/// let x = Array::from_vec(vec![4.0f64, 0.0, 0.0, 0.0], &[4], &d).unwrap();
/// let y = resample_freq(&x, 8, &ResampleOptions::default()).unwrap().to_vec().unwrap();
/// assert!(y.iter().all(|v| (*v - c64::new(1.0, 0.0)).norm() < 1e-12));
/// ```
pub fn resample_freq<T>(
    x: &Array<T>,
    num: usize,
    opts: &ResampleOptions,
) -> Result<Array<<T as ResampleScalar>::Complex>>
where
    T: ResampleScalar + cusci_fft::FftInput<Complex = <T as ResampleScalar>::Complex>,
{
    let axis = resample_check(x, num, opts)?;
    let fo = FftOptions {
        axis: axis as isize,
        ..Default::default()
    };
    let xt = cusci_fft::ifft(x, &fo)?;
    <T as ResampleScalar>::Complex::resample_impl(&xt, num, axis, opts.window.as_deref())
}

/// The anti-aliasing filter of [`decimate`] (`ftype=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DecimateFtype {
    /// A Chebyshev type I filter, `cheby1(n, 0.05, 0.8 / q)` as second-order sections (default).
    #[default]
    Iir,
    /// A Hamming-window FIR filter, `firwin(n + 1, 1 / q)`.
    Fir,
}

/// The optional arguments of [`decimate`].
///
/// ```
/// let o = cusci_signal::DecimateOptions::default();
/// assert_eq!((o.n, o.axis, o.zero_phase), (None, -1, true));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecimateOptions {
    /// The filter order. Default: 8 for IIR, `20 * q` for FIR (SciPy's).
    pub n: Option<usize>,
    /// The filter type. Default [`DecimateFtype::Iir`].
    pub ftype: DecimateFtype,
    /// The axis. Default `-1`.
    pub axis: isize,
    /// Filter forwards and backwards (IIR: [`sosfiltfilt`](crate::sosfiltfilt); FIR:
    /// [`resample_poly`](crate::resample_poly)) so that no phase shift is added. Default `true`.
    pub zero_phase: bool,
}

impl Default for DecimateOptions {
    fn default() -> Self {
        DecimateOptions {
            n: None,
            ftype: DecimateFtype::Iir,
            axis: -1,
            zero_phase: true,
        }
    }
}

/// Downsamples by the integer factor `q` after an anti-aliasing filter, SciPy's
/// `scipy.signal.decimate(x, q, n, ftype, axis, zero_phase)` with `ftype` `'iir'` or `'fir'`:
/// the same filters, applied by this crate's [`sosfiltfilt`](crate::sosfiltfilt)/
/// [`sosfilt`](crate::sosfilt) (IIR, then every `q`-th sample) or
/// [`resample_poly`](crate::resample_poly)/[`upfirdn`](crate::upfirdn) (FIR), on the array's
/// device.
///
/// # Errors
/// `InvalidArgument` for `q == 0`, `n == 0`, a bad axis, and the errors of the filters (for
/// example a signal too short for the zero-phase IIR padding).
///
/// ```
/// use cusci_signal::{decimate, DecimateOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f64; 64], &[64], &Device::cpu()).unwrap();
/// let y = decimate(&x, 4, &DecimateOptions::default()).unwrap();
/// assert_eq!(y.shape(), &[16]);
/// ```
pub fn decimate<T: SignalScalar>(
    x: &Array<T>,
    q: usize,
    opts: &DecimateOptions,
) -> Result<Array<T>> {
    let op = "decimate";
    let axis = norm_axis(op, opts.axis, x.ndim())?;
    if q == 0 {
        return Err(make::arg(op, "q must be positive"));
    }
    if opts.n == Some(0) {
        return Err(make::arg(op, "the filter order n must be positive"));
    }
    match opts.ftype {
        DecimateFtype::Fir => {
            let n = opts.n.unwrap_or(20 * q);
            let b = crate::design::firwin(n + 1, &[1.0 / q as f64], &Default::default())?;
            fir_decimate(x, q, b, axis, opts.zero_phase)
        }
        DecimateFtype::Iir => {
            let n = opts.n.unwrap_or(8);
            let io = crate::IirOptions {
                output: crate::Output::Sos,
                ..Default::default()
            };
            let sos = crate::cheby1(n, 0.05, &[0.8 / q as f64], &io)?.into_sos()?;
            sos_decimate(x, q, &sos, axis, opts.zero_phase)
        }
    }
}

/// The FIR branch of SciPy's `decimate` with taps `b`.
fn fir_decimate<T: SignalScalar>(
    x: &Array<T>,
    q: usize,
    b: Vec<f64>,
    axis: usize,
    zero_phase: bool,
) -> Result<Array<T>> {
    let len = x.shape()[axis];
    if zero_phase {
        let o = crate::ResamplePolyOptions {
            axis: axis as isize,
            window: crate::PolyWindow::Taps(b),
            ..Default::default()
        };
        crate::resample_poly(x, 1, q, &o)
    } else {
        let nb = b.len();
        let h = Array::from_vec(
            b.into_iter().map(from_f64::<T>).collect::<Vec<_>>(),
            &[nb],
            x.device(),
        )?;
        let o = crate::UpfirdnOptions {
            axis: axis as isize,
            ..Default::default()
        };
        let y = crate::upfirdn(&h, x, 1, q, &o)?;
        let n_out = len.div_ceil(q);
        y.slice_axis(axis as isize, Some(0), Some(n_out as isize), 1)?
            .contiguous()
    }
}

/// The IIR branch of SciPy's `decimate` with second-order sections `sos`.
fn sos_decimate<T: SignalScalar>(
    x: &Array<T>,
    q: usize,
    sos: &[[f64; 6]],
    axis: usize,
    zero_phase: bool,
) -> Result<Array<T>> {
    let flat: Vec<T> = sos.iter().flatten().map(|&v| from_f64::<T>(v)).collect();
    let sa = Array::from_vec(flat, &[sos.len(), 6], x.device())?;
    let y = if zero_phase {
        let o = crate::FiltfiltOptions {
            axis: axis as isize,
            ..Default::default()
        };
        crate::sosfiltfilt(&sa, x, &o)?
    } else {
        let o = crate::FilterOptions {
            axis: axis as isize,
            zi: None,
        };
        crate::sosfilt(&sa, x, &o)?.y
    };
    y.slice_axis(axis as isize, Some(0), None, q as isize)?
        .contiguous()
}

/// [`decimate`] with a filter system as SciPy's `ftype=dlti(...)`:
/// `scipy.signal.decimate(x, q, ftype=system, axis=axis, zero_phase=zero_phase)`, following
/// SciPy's three branches: a system without poles is an FIR filter (taps `num / den`, applied
/// as [`resample_poly`](crate::resample_poly) with zero phase, else
/// [`upfirdn`](crate::upfirdn)); a system with a complex pole is applied in its transfer-function
/// form ([`filtfilt`](crate::filtfilt) or [`lfilter`](crate::lfilter), SciPy's path since
/// `sosfilt` takes no complex coefficients; note that SciPy takes this path for every system with
/// complex-conjugate poles, a Butterworth filter included); a system with real poles only is
/// converted to second-order sections (`zpk2sos`, nearest pairing) and applied with
/// [`sosfiltfilt`](crate::sosfiltfilt) or [`sosfilt`](crate::sosfilt). Then every `q`-th sample.
/// `opts.n` and `opts.ftype` are not used (SciPy ignores `n` with a system); `opts.axis` and
/// `opts.zero_phase` are.
///
/// # Errors
/// `InvalidArgument` for `q == 0`, a continuous-time system (SciPy: "invalid ftype", it wants a
/// `dlti`), a system with several outputs, a bad axis; the errors of the filters.
///
/// ```
/// use cusci_signal::{decimate_dlti, DecimateOptions, Lti, Array, Device};
/// let x = Array::from_vec(vec![1.0f64; 60], &[60], &Device::cpu()).unwrap();
/// let sys = Lti::dtf(&[0.25, 0.5, 0.25], &[1.0], 1.0).unwrap(); // FIR
/// let y = decimate_dlti(&x, 3, &sys, &DecimateOptions::default()).unwrap();
/// assert_eq!(y.shape(), &[20]);
/// ```
pub fn decimate_dlti<T: SignalScalar>(
    x: &Array<T>,
    q: usize,
    system: &crate::Lti,
    opts: &DecimateOptions,
) -> Result<Array<T>> {
    let op = "decimate";
    let axis = norm_axis(op, opts.axis, x.ndim())?;
    if q == 0 {
        return Err(make::arg(op, "q must be positive"));
    }
    if system.dt().is_none() {
        return Err(make::arg(
            op,
            "invalid ftype: the system must be discrete-time (a dlti)",
        ));
    }
    let zpk = system.to_zpk()?;
    if zpk.poles.is_empty() || zpk.poles.iter().any(|p| p.im != 0.0) {
        let tf = system.to_tf()?;
        if tf.num.len() != 1 {
            return Err(make::arg(op, "the system must have a single output"));
        }
        let (num, den) = (&tf.num[0], &tf.den);
        if zpk.poles.is_empty() {
            let b: Vec<f64> = num.iter().map(|v| v / den[0]).collect();
            return fir_decimate(x, q, b, axis, opts.zero_phase);
        }
        let arr = |v: &[f64]| {
            Array::from_vec(
                v.iter().map(|&c| from_f64::<T>(c)).collect::<Vec<_>>(),
                &[v.len()],
                x.device(),
            )
        };
        let (b, a) = (arr(num)?, arr(den)?);
        let y = if opts.zero_phase {
            let o = crate::FiltfiltOptions {
                axis: axis as isize,
                ..Default::default()
            };
            crate::filtfilt(&b, &a, x, &o)?
        } else {
            let o = crate::FilterOptions {
                axis: axis as isize,
                zi: None,
            };
            crate::lfilter(&b, &a, x, &o)?.y
        };
        return y
            .slice_axis(axis as isize, Some(0), None, q as isize)?
            .contiguous();
    }
    let sos = crate::zpk2sos(
        &zpk.zeros,
        &zpk.poles,
        zpk.gain,
        crate::Pairing::Auto,
        false,
    )?;
    sos_decimate(x, q, &sos, axis, opts.zero_phase)
}
