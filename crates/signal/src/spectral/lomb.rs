//! [`lombscargle`] (SciPy 1.17's weighted, floating-mean Lomb-Scargle periodogram) and
//! [`vectorstrength`], composed from the core's broadcast arithmetic, trigonometry and axis sums
//! on the arrays' device; the per-frequency phase offsets (an `atan2` per frequency) are
//! computed on the host between the two passes.

use cusci_core::array::check_same_device;
use cusci_core::error::make;
use cusci_core::{c64, Array, Result};

/// The output scaling of [`lombscargle`] (`normalize=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LombNormalize {
    /// `False` / `'power'`: the legacy power, `(A²) N / 4` (default).
    #[default]
    Power,
    /// `True` / `'normalize'`: the power relative to the signal's (weighted) power, in `[0, 1]`.
    Normalize,
    /// `'amplitude'`: the complex amplitude `(a + i b) e^{i tau}` of the fitted sinusoid (its
    /// modulus is the amplitude, its angle the phase). Complex: computed by
    /// [`lombscargle_amplitude`]; [`lombscargle`] refuses it.
    Amplitude,
}

/// The optional arguments of [`lombscargle`].
///
/// ```
/// let o = cusci_signal::LombScargleOptions::default();
/// assert!(!o.precenter && !o.floating_mean && o.weights.is_none());
/// ```
#[derive(Debug, Clone, Default)]
pub struct LombScargleOptions<'a> {
    /// Subtract the mean of `y` first (deprecated in SciPy 1.17, still accepted). Default false.
    pub precenter: bool,
    /// The scaling. Default [`LombNormalize::Power`].
    pub normalize: LombNormalize,
    /// Non-negative sample weights (same length as `x`, positive sum). Default: equal weights.
    pub weights: Option<&'a Array<f64>>,
    /// Fit a constant offset together with the sinusoid at each frequency. Default false.
    pub floating_mean: bool,
}

fn check_1d(op: &str, name: &str, a: &Array<f64>) -> Result<()> {
    if a.ndim() != 1 || a.is_empty() {
        return Err(make::shape(
            op,
            format!(
                "{name} must be a non-empty 1-D array, got shape {:?}",
                a.shape()
            ),
        ));
    }
    Ok(())
}

fn col(a: &Array<f64>) -> Result<Array<f64>> {
    a.reshape(&[a.size() as isize, 1])
}

/// The Lomb-Scargle periodogram of unevenly sampled data, SciPy's
/// `scipy.signal.lombscargle(x, y, freqs, precenter, normalize, weights=, floating_mean=)`
/// (`normalize='amplitude'`, complex, is [`lombscargle_amplitude`]): the same equations (weighted sums of
/// `cos`/`sin(freqs x)` over `(n, nf)` broadcast arrays, the phase offset `tau`, the
/// `epsneg` floor of `CC`/`SS`). `freqs` are angular frequencies. Memory: a few `n × nf` arrays.
///
/// # Errors
/// `ShapeMismatch` for inputs that are not non-empty 1-D arrays or `x`, `y`, `weights` of
/// different lengths; `InvalidArgument` for negative weights or weights that do not sum to a
/// positive value, and for [`LombNormalize::Amplitude`] (a complex result: call
/// [`lombscargle_amplitude`]); `DeviceMismatch`.
///
/// ```
/// use cusci_signal::{lombscargle, LombScargleOptions, Array, Device};
/// let d = Device::cpu();
/// let x = Array::from_vec((0..32).map(|i| i as f64 * 0.37).collect(), &[32], &d).unwrap();
/// let y = x.mul_scalar(2.0).unwrap().sin().unwrap();
/// let f = Array::from_vec(vec![1.0, 2.0, 3.0], &[3], &d).unwrap();
/// let p = lombscargle(&x, &y, &f, &LombScargleOptions::default()).unwrap().to_vec().unwrap();
/// assert!(p[1] > p[0] && p[1] > p[2]);
/// ```
pub fn lombscargle(
    x: &Array<f64>,
    y: &Array<f64>,
    freqs: &Array<f64>,
    opts: &LombScargleOptions,
) -> Result<Array<f64>> {
    if opts.normalize == LombNormalize::Amplitude {
        return Err(make::arg(
            "lombscargle",
            "normalize='amplitude' gives a complex result: use lombscargle_amplitude",
        ));
    }
    let f = fit("lombscargle", x, y, freqs, opts)?;
    let n = x.size();
    let p = f.a.mul(&f.yc)?.add(&f.b.mul(&f.ys)?)?.mul_scalar(2.0)?;
    match opts.normalize {
        LombNormalize::Normalize => {
            let mut yy = f.wy.mul(&f.ycol)?.sum()?;
            if opts.floating_mean {
                yy -= f.ysum * f.ysum;
            }
            p.mul_scalar(0.5 / yy)
        }
        _ => p.mul_scalar(n as f64 / 4.0),
    }
}

/// SciPy's `lombscargle(x, y, freqs, normalize='amplitude', weights=, floating_mean=)`: the
/// complex amplitude `(a + i b) · exp(i tau)` of the least-squares sinusoid
/// `a cos(w (x - tau)) + b sin(w (x - tau))` at each angular frequency `w` (so `|A|` is its
/// amplitude and `angle(A)` its phase). The sums run on the device as [`lombscargle`]; the
/// `nf` complex values are formed on the host (where `tau` already is) and returned on the
/// inputs' device. `opts.normalize` is ignored.
///
/// # Errors
/// As [`lombscargle`] (but for the amplitude mode).
///
/// ```
/// use cusci_signal::{lombscargle_amplitude, LombScargleOptions, Array, Device};
/// let d = Device::cpu();
/// let x = Array::from_vec((0..64).map(|i| i as f64 * 0.37).collect(), &[64], &d).unwrap();
/// // 1.5 cos(2 x - 0.4): |A| = 1.5 and angle(A) = 0.4 at w = 2 (SciPy's sign convention)
/// let y = x.mul_scalar(2.0).unwrap().sub_scalar(0.4).unwrap().cos().unwrap()
///     .mul_scalar(1.5).unwrap();
/// let f = Array::from_vec(vec![2.0], &[1], &d).unwrap();
/// let a = lombscargle_amplitude(&x, &y, &f, &LombScargleOptions::default()).unwrap()
///     .to_vec().unwrap();
/// assert!((a[0].norm() - 1.5).abs() < 1e-9 && (a[0].arg() - 0.4).abs() < 1e-9);
/// ```
pub fn lombscargle_amplitude(
    x: &Array<f64>,
    y: &Array<f64>,
    freqs: &Array<f64>,
    opts: &LombScargleOptions,
) -> Result<Array<c64>> {
    let f = fit("lombscargle", x, y, freqs, opts)?;
    let (av, bv) = (f.a.to_vec()?, f.b.to_vec()?);
    let v: Vec<c64> = av
        .iter()
        .zip(&bv)
        .zip(&f.tau)
        .map(|((a, b), t)| c64::new(*a, *b) * c64::new(0.0, *t).exp())
        .collect();
    let nf = v.len();
    Array::from_vec(v, &[nf], x.device())
}

/// The fitted quantities shared by the normalisations.
struct Fit {
    a: Array<f64>,
    b: Array<f64>,
    yc: Array<f64>,
    ys: Array<f64>,
    wy: Array<f64>,
    ycol: Array<f64>,
    ysum: f64,
    tau: Vec<f64>,
}

fn fit(
    op: &str,
    x: &Array<f64>,
    y: &Array<f64>,
    freqs: &Array<f64>,
    opts: &LombScargleOptions,
) -> Result<Fit> {
    check_1d(op, "x", x)?;
    check_1d(op, "y", y)?;
    check_1d(op, "freqs", freqs)?;
    check_same_device(op, x.device(), y.device())?;
    check_same_device(op, x.device(), freqs.device())?;
    let n = x.size();
    if y.size() != n {
        return Err(make::shape(op, "x and y must have the same length"));
    }
    let dev = x.device();
    let w = match opts.weights {
        Some(w) => {
            check_1d(op, "weights", w)?;
            check_same_device(op, x.device(), w.device())?;
            if w.size() != n {
                return Err(make::shape(op, "weights must have the length of x"));
            }
            let ws = w.sum()?;
            if w.min()? < 0.0 || ws.is_nan() || ws <= 0.0 {
                return Err(make::arg(
                    op,
                    "weights must be non-negative and sum to a positive value",
                ));
            }
            w.mul_scalar(1.0 / ws)?
        }
        None => Array::full(&[n], 1.0 / n as f64, dev)?,
    };
    let y = if opts.precenter {
        y.sub_scalar(y.mean()?)?
    } else {
        y.clone()
    };
    let nf = freqs.size();
    let wc = col(&w)?;
    let yc = col(&y)?;
    let wy = wc.mul(&yc)?;
    let ft = col(x)?.mul(&freqs.reshape(&[1, nf as isize])?)?;
    let sum0 = |a: &Array<f64>| a.sum_axes(&[0]);
    let (cw, sw) = (ft.cos()?, ft.sin()?);
    let ysum = wy.sum()?;
    let mut cc = sum0(&wc.mul(&cw.mul(&cw)?)?)?;
    let mut ss = cc.rsub_scalar(1.0)?;
    let mut cs = sum0(&wc.mul(&cw.mul(&sw)?)?)?;
    if opts.floating_mean {
        let c = sum0(&wc.mul(&cw)?)?;
        let s = sum0(&wc.mul(&sw)?)?;
        cc = cc.sub(&c.mul(&c)?)?;
        ss = ss.sub(&s.mul(&s)?)?;
        cs = cs.sub(&c.mul(&s)?)?;
    }
    let (ccv, ssv, csv) = (cc.to_vec()?, ss.to_vec()?, cs.to_vec()?);
    let tauv: Vec<f64> = (0..nf)
        .map(|k| 0.5 * (2.0 * csv[k]).atan2(ccv[k] - ssv[k]))
        .collect();
    let tau = Array::from_vec(tauv.clone(), &[1, nf], dev)?;
    let ftt = ft.sub(&tau)?;
    let (ct, st) = (ftt.cos()?, ftt.sin()?);
    let mut yc_ = sum0(&wy.mul(&ct)?)?;
    let mut ys_ = sum0(&wy.mul(&st)?)?;
    let mut cc = sum0(&wc.mul(&ct.mul(&ct)?)?)?;
    let mut ss = cc.rsub_scalar(1.0)?;
    if opts.floating_mean {
        let c = sum0(&wc.mul(&ct)?)?;
        let s = sum0(&wc.mul(&st)?)?;
        yc_ = yc_.sub(&c.mul_scalar(ysum)?)?;
        ys_ = ys_.sub(&s.mul_scalar(ysum)?)?;
        cc = cc.sub(&c.mul(&c)?)?;
        ss = ss.sub(&s.mul(&s)?)?;
    }
    let epsneg = f64::EPSILON / 2.0;
    let cc = cc.maximum_scalar(epsneg)?;
    let ss = ss.maximum_scalar(epsneg)?;
    let a = yc_.div(&cc)?;
    let b = ys_.div(&ss)?;
    Ok(Fit {
        a,
        b,
        yc: yc_,
        ys: ys_,
        wy,
        ycol: yc,
        ysum,
        tau: tauv,
    })
}

/// The vector strength of `events` at each of `period`, SciPy's
/// `scipy.signal.vectorstrength(events, period)`: the modulus and angle of the mean of
/// `exp(2πi events / period)`, returned as `(strength, phase)` (one value per period; pass a
/// one-element `period` for SciPy's scalar case). The `(periods, events)` products and sums run
/// on the device; the angles (`atan2`) on the host.
///
/// # Errors
/// `ShapeMismatch` for inputs that are not non-empty 1-D arrays; `InvalidArgument` for a
/// period that is not positive; `DeviceMismatch`.
///
/// ```
/// use cusci_signal::{vectorstrength, Array, Device};
/// let d = Device::cpu();
/// let e = Array::from_vec(vec![0.0f64, 1.0, 2.0, 3.0], &[4], &d).unwrap();
/// let p = Array::from_vec(vec![1.0f64], &[1], &d).unwrap();
/// let (s, _) = vectorstrength(&e, &p).unwrap();
/// assert!((s.to_vec().unwrap()[0] - 1.0).abs() < 1e-12); // perfectly locked
/// ```
pub fn vectorstrength(
    events: &Array<f64>,
    period: &Array<f64>,
) -> Result<(Array<f64>, Array<f64>)> {
    let op = "vectorstrength";
    check_1d(op, "events", events)?;
    check_1d(op, "period", period)?;
    check_same_device(op, events.device(), period.device())?;
    let pv = period.to_vec()?;
    if pv.iter().any(|&p| p.is_nan() || p <= 0.0) {
        return Err(make::arg(op, "periods must be positive"));
    }
    let np = pv.len();
    let ne = events.size();
    let k = period
        .rdiv_scalar(2.0 * std::f64::consts::PI)?
        .reshape(&[np as isize, 1])?;
    let ph = k.mul(&events.reshape(&[1, ne as isize])?)?;
    let c = ph.cos()?.mean_axes(&[1])?;
    let s = ph.sin()?.mean_axes(&[1])?;
    let strength = c.mul(&c)?.add(&s.mul(&s)?)?.sqrt()?;
    let (cv, sv) = (c.to_vec()?, s.to_vec()?);
    let phase: Vec<f64> = sv.iter().zip(&cv).map(|(s, c)| s.atan2(*c)).collect();
    let phase = Array::from_vec(phase, &[np], events.device())?;
    Ok((strength, phase))
}
