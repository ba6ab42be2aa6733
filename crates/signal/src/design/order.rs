//! IIR order selection: `buttord`, `cheb1ord`, `cheb2ord`, `ellipord`, their band-stop objective
//! `band_stop_obj`, and `iirdesign` (order selection then [`iirfilter`]). Scalars in, host data
//! out. The formulas and the bounded minimisation of the band-stop edges follow SciPy step by
//! step (the same Brent iteration as `scipy.optimize.fminbound`, `xtol = 1e-5`), so that orders and
//! natural frequencies agree with SciPy's to rounding.

use super::iir::{iirfilter, BType, Filter, FilterType, IirOptions, Output};
use super::special::{ellipk, ellipkm1};
use cusci_core::error::make;
use cusci_core::Result;
use std::f64::consts::PI;

/// The filter family of [`band_stop_obj`] (SciPy's `type` argument: `'butter'`, `'cheby'`,
/// `'ellip'`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrdKind {
    /// Butterworth.
    Butter,
    /// Chebyshev (either type: their orders agree).
    Cheby,
    /// Elliptic.
    Ellip,
}

/// Options of the order-selection functions (SciPy's `analog` and `fs` keywords).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct OrdOptions {
    /// Analog filter: frequencies in rad/s.
    pub analog: bool,
    /// Sampling frequency of a digital filter (frequencies in its units); `None`: normalised to
    /// Nyquist.
    pub fs: Option<f64>,
}

/// An order and the natural (critical) frequencies to design with (`(N, Wn)` in SciPy; `wn`
/// holds one frequency for low/high-pass and two for band-pass/stop).
#[derive(Clone, Debug, PartialEq)]
pub struct FilterOrder {
    /// The lowest order meeting the specification.
    pub n: usize,
    /// The natural frequencies, in the units of the input (`fs`, Nyquist-normalised or rad/s).
    pub wn: Vec<f64>,
}

mod libm {
    extern "C" {
        pub fn acosh(x: f64) -> f64;
    }
}

/// The C library's `acosh` (as NumPy's `arccosh` and Python's `math.acosh`): Rust's `f64::acosh`
/// is its own formula, a few ulps away, and the band-stop search compares objective values that
/// are equal to a few ulps, so the last bits decide its path.
trait AcoshC {
    fn acosh_c(self) -> f64;
}

impl AcoshC for f64 {
    fn acosh_c(self) -> f64 {
        // SAFETY: a pure libm function of one double, linked with std on every target we build
        unsafe { libm::acosh(self) }
    }
}

fn check_gains(op: &str, gpass: f64, gstop: f64) -> Result<()> {
    if gpass.is_nan() || gpass <= 0.0 {
        return Err(make::arg(op, "gpass should be larger than 0.0"));
    }
    if gstop.is_nan() || gstop <= 0.0 {
        return Err(make::arg(op, "gstop should be larger than 0.0"));
    }
    if gpass > gstop {
        return Err(make::arg(op, "gpass should be smaller than gstop"));
    }
    if !(gpass.is_finite() && gstop.is_finite()) {
        return Err(make::arg(op, "gpass and gstop must be finite"));
    }
    Ok(())
}

/// Band type from `wp`/`ws` as SciPy numbers it: 1 low, 2 high, 3 stop, 4 pass.
fn validate(
    op: &str,
    wp: &[f64],
    ws: &[f64],
    opts: &OrdOptions,
) -> Result<(Vec<f64>, Vec<f64>, u8)> {
    if wp.len() != ws.len() || !(wp.len() == 1 || wp.len() == 2) {
        return Err(make::shape(
            op,
            format!(
                "wp and ws must have one or two elements each, and the same length, got {} and {}",
                wp.len(),
                ws.len()
            ),
        ));
    }
    let mut wp = wp.to_vec();
    let mut ws = ws.to_vec();
    if wp.iter().chain(&ws).any(|v| !v.is_finite()) {
        return Err(make::arg(op, "wp and ws must be finite"));
    }
    if wp.iter().chain(&ws).any(|&v| v <= 0.0) {
        return Err(make::arg(op, "Values for wp, ws must be greater than 0"));
    }
    if let Some(fs) = opts.fs {
        if opts.analog {
            return Err(make::arg(op, "fs cannot be specified for an analog filter"));
        }
        if !(fs > 0.0 && fs.is_finite()) {
            return Err(make::arg(
                op,
                format!("fs must be positive and finite, got {fs}"),
            ));
        }
        if wp.iter().chain(&ws).any(|&v| v >= fs / 2.0) {
            return Err(make::arg(
                op,
                format!("Values for wp, ws must be less than fs/2 (fs={fs})"),
            ));
        }
        for v in wp.iter_mut().chain(ws.iter_mut()) {
            *v = 2.0 * *v / fs;
        }
    } else if !opts.analog && wp.iter().chain(&ws).any(|&v| v >= 1.0) {
        return Err(make::arg(op, "Values for wp, ws must be less than 1"));
    }
    if wp.len() == 2 && !((ws[0] < wp[0] && wp[1] < ws[1]) || (wp[0] < ws[0] && ws[1] < wp[1])) {
        return Err(make::arg(
            op,
            "Passband must lie strictly inside stopband or vice versa",
        ));
    }
    if wp[0] == ws[0] {
        return Err(make::arg(op, "wp and ws must differ"));
    }
    let mut t = 2 * (wp.len() as u8 - 1) + 1;
    if wp[0] >= ws[0] {
        t += 1;
    }
    Ok((wp, ws, t))
}

fn pre_warp(w: &[f64], analog: bool) -> Vec<f64> {
    if analog {
        w.to_vec()
    } else {
        w.iter().map(|&v| (PI * v / 2.0).tan()).collect()
    }
}

/// `scipy.signal.band_stop_obj`: the (non-integer) order of an analog band-stop filter whose pass
/// band edge `passb[ind]` is moved to `wp` (the objective [`buttord`] and friends minimise).
///
/// Errors: `InvalidArgument` for `ind > 1` or bad `gpass`/`gstop` (as SciPy's checks).
///
/// ```
/// use cusci_signal::design::{band_stop_obj, OrdKind};
/// let n = band_stop_obj(2.0, 1, [1.0, 3.0], [0.5, 4.0], 3.0, 30.0, OrdKind::Butter).unwrap();
/// assert!((n + 2.758504160760643).abs() < 1e-12);
/// ```
pub fn band_stop_obj(
    wp: f64,
    ind: usize,
    passb: [f64; 2],
    stopb: [f64; 2],
    gpass: f64,
    gstop: f64,
    kind: OrdKind,
) -> Result<f64> {
    let op = "band_stop_obj";
    check_gains(op, gpass, gstop)?;
    if ind > 1 {
        return Err(make::arg(op, format!("ind must be 0 or 1, got {ind}")));
    }
    Ok(bso(wp, ind, passb, stopb, gpass, gstop, kind))
}

fn bso(
    wp: f64,
    ind: usize,
    passb: [f64; 2],
    stopb: [f64; 2],
    gpass: f64,
    gstop: f64,
    kind: OrdKind,
) -> f64 {
    let mut pb = passb;
    pb[ind] = wp;
    let nat = |s: f64| (s * (pb[0] - pb[1]) / (s * s - pb[0] * pb[1])).abs();
    let nat = np_min(nat(stopb[0]), nat(stopb[1]));
    match kind {
        OrdKind::Butter => {
            let gs = 10f64.powf(0.1 * gstop.abs());
            let gp = 10f64.powf(0.1 * gpass.abs());
            ((gs - 1.0) / (gp - 1.0)).log10() / (2.0 * nat.log10())
        }
        OrdKind::Cheby => {
            let gs = 10f64.powf(0.1 * gstop.abs());
            let gp = 10f64.powf(0.1 * gpass.abs());
            (((gs - 1.0) / (gp - 1.0)).sqrt()).acosh_c() / nat.acosh_c()
        }
        OrdKind::Ellip => {
            let gs = 10f64.powf(0.1 * gstop);
            let gp = 10f64.powf(0.1 * gpass);
            let arg1 = ((gp - 1.0) / (gs - 1.0)).sqrt();
            let arg0 = 1.0 / nat;
            let d0 = (ellipk(arg0 * arg0), ellipk(1.0 - arg0 * arg0));
            let d1 = (ellipk(arg1 * arg1), ellipk(1.0 - arg1 * arg1));
            d0.0 * d1.1 / (d0.1 * d1.0)
        }
    }
}

/// `numpy.min` of two values: NaN propagates.
fn np_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// `scipy.optimize.fminbound(f, x1, x2, xtol=1e-5, maxfun=500)`: Brent's bounded minimisation,
/// step for step as SciPy's `_minimize_scalar_bounded` (so that the band-stop edges, and hence
/// the natural frequencies, agree to rounding).
fn fminbound(f: impl Fn(f64) -> f64, x1: f64, x2: f64) -> f64 {
    let xatol = 1e-5;
    let maxfun = 500;
    let sqrt_eps = 2.2e-16f64.sqrt();
    let golden_mean = 0.5 * (3.0 - 5f64.sqrt());
    let (mut a, mut b) = (x1, x2);
    let mut fulc = a + golden_mean * (b - a);
    let mut nfc = fulc;
    let mut xf = fulc;
    let mut rat = 0.0f64;
    let mut e = 0.0f64;
    let mut fx = f(xf);
    let mut num = 1;
    let mut ffulc = fx;
    let mut fnfc = fx;
    let mut xm = 0.5 * (a + b);
    let mut tol1 = sqrt_eps * xf.abs() + xatol / 3.0;
    let mut tol2 = 2.0 * tol1;
    let sign = |v: f64| {
        if v > 0.0 {
            1.0
        } else if v < 0.0 {
            -1.0
        } else if v == 0.0 {
            0.0
        } else {
            f64::NAN
        }
    };
    while (xf - xm).abs() > tol2 - 0.5 * (b - a) {
        let mut golden = true;
        if e.abs() > tol1 {
            golden = false;
            let mut r = (xf - nfc) * (fx - ffulc);
            let mut q = (xf - fulc) * (fx - fnfc);
            let mut p = (xf - fulc) * q - (xf - nfc) * r;
            q = 2.0 * (q - r);
            if q > 0.0 {
                p = -p;
            }
            q = q.abs();
            r = e;
            e = rat;
            if p.abs() < (0.5 * q * r).abs() && p > q * (a - xf) && p < q * (b - xf) {
                rat = (p + 0.0) / q;
                let x = xf + rat;
                if (x - a) < tol2 || (b - x) < tol2 {
                    let si = sign(xm - xf) + if xm - xf == 0.0 { 1.0 } else { 0.0 };
                    rat = tol1 * si;
                }
            } else {
                golden = true;
            }
        }
        if golden {
            e = if xf >= xm { a - xf } else { b - xf };
            rat = golden_mean * e;
        }
        let si = sign(rat) + if rat == 0.0 { 1.0 } else { 0.0 };
        let x = xf + si * np_max(rat.abs(), tol1);
        let fu = f(x);
        num += 1;
        if fu <= fx {
            if x >= xf {
                a = xf;
            } else {
                b = xf;
            }
            fulc = nfc;
            ffulc = fnfc;
            nfc = xf;
            fnfc = fx;
            xf = x;
            fx = fu;
        } else {
            if x < xf {
                a = x;
            } else {
                b = x;
            }
            if fu <= fnfc || nfc == xf {
                fulc = nfc;
                ffulc = fnfc;
                nfc = x;
                fnfc = fu;
            } else if fu <= ffulc || fulc == xf || fulc == nfc {
                fulc = x;
                ffulc = fu;
            }
        }
        xm = 0.5 * (a + b);
        tol1 = sqrt_eps * xf.abs() + xatol / 3.0;
        tol2 = 2.0 * tol1;
        if num >= maxfun {
            break;
        }
    }
    xf
}

/// `numpy.maximum`: NaN propagates.
fn np_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// SciPy's `_find_nat_freq`: the prototype's stop-band edge and the (possibly moved) pass band.
fn find_nat_freq(
    stopb: &[f64],
    passb: &[f64],
    gpass: f64,
    gstop: f64,
    t: u8,
    kind: OrdKind,
) -> (f64, Vec<f64>) {
    let mut passb = passb.to_vec();
    let nat: Vec<f64> = match t {
        1 => vec![stopb[0] / passb[0]],
        2 => vec![passb[0] / stopb[0]],
        3 => {
            let pb = [passb[0], passb[1]];
            let sb = [stopb[0], stopb[1]];
            let wp0 = fminbound(
                |w| bso(w, 0, pb, sb, gpass, gstop, kind),
                pb[0],
                sb[0] - 1e-12,
            );
            let wp1 = fminbound(
                |w| bso(w, 1, pb, sb, gpass, gstop, kind),
                sb[1] + 1e-12,
                pb[1],
            );
            passb = vec![wp0, wp1];
            stopb
                .iter()
                .map(|&s| (s * (passb[0] - passb[1])) / (s * s - passb[0] * passb[1]))
                .collect()
        }
        _ => stopb
            .iter()
            .map(|&s| (s * s - passb[0] * passb[1]) / (s * (passb[0] - passb[1])))
            .collect(),
    };
    let m = nat.iter().fold(f64::INFINITY, |m, v| np_min(m, v.abs()));
    (m, passb)
}

fn postprocess(wn: Vec<f64>, opts: &OrdOptions) -> Vec<f64> {
    let mut w: Vec<f64> = if opts.analog {
        wn
    } else {
        wn.iter().map(|v| v.atan() * 2.0 / PI).collect()
    };
    if let Some(fs) = opts.fs {
        for v in w.iter_mut() {
            *v = *v * fs / 2.0;
        }
    }
    w
}

/// The start of every order selection: the checked specification's band type `t` (as
/// [`validate`]), and the natural frequency and (possibly moved) pass band of its pre-warped
/// edges ([`find_nat_freq`]).
fn natural(
    op: &str,
    wp: &[f64],
    ws: &[f64],
    gpass: f64,
    gstop: f64,
    opts: &OrdOptions,
    kind: OrdKind,
) -> Result<(f64, Vec<f64>, u8)> {
    check_gains(op, gpass, gstop)?;
    let (wp, ws, t) = validate(op, wp, ws, opts)?;
    let passb = pre_warp(&wp, opts.analog);
    let stopb = pre_warp(&ws, opts.analog);
    let (nat, passb) = find_nat_freq(&stopb, &passb, gpass, gstop, t, kind);
    Ok((nat, passb, t))
}

fn order_of(op: &str, x: f64) -> Result<usize> {
    let c = x.ceil();
    if !c.is_finite() || c < 1.0 {
        return Err(make::arg(
            op,
            format!("order selection failed (computed order {x}); check wp, ws, gpass, gstop"),
        ));
    }
    Ok(c as usize)
}

/// `scipy.signal.buttord(wp, ws, gpass, gstop, analog, fs)`: the lowest Butterworth order that
/// loses at most `gpass` dB in the pass band and attenuates at least `gstop` dB in the stop band,
/// and the natural frequencies that meet `gpass` exactly at the pass band edge(s).
///
/// `wp`/`ws` hold one frequency (low-pass when `wp < ws`, high-pass otherwise) or two (band-pass
/// when the pass band lies inside the stop band, band-stop when the reverse).
///
/// Errors: `ShapeMismatch` when `wp`/`ws` do not both hold one or two frequencies;
/// `InvalidArgument` for frequencies ≤ 0, ≥ 1 (digital; ≥ fs/2 with `fs`), bands that do not nest,
/// `gpass ≤ 0`, `gstop ≤ 0`, `gpass > gstop`, `fs` with `analog`.
///
/// ```
/// use cusci_signal::design::buttord;
/// let o = buttord(&[0.2], &[0.3], 3.0, 40.0, &Default::default()).unwrap();
/// assert_eq!(o.n, 11);
/// ```
pub fn buttord(
    wp: &[f64],
    ws: &[f64],
    gpass: f64,
    gstop: f64,
    opts: &OrdOptions,
) -> Result<FilterOrder> {
    let op = "buttord";
    let (nat, passb, t) = natural(op, wp, ws, gpass, gstop, opts, OrdKind::Butter)?;
    let gs = 10f64.powf(0.1 * gstop.abs());
    let gp = 10f64.powf(0.1 * gpass.abs());
    let n = order_of(op, ((gs - 1.0) / (gp - 1.0)).log10() / (2.0 * nat.log10()))?;
    let w0 = (gp - 1.0).powf(-1.0 / (2.0 * n as f64));
    let mut wn = match t {
        1 => vec![w0 * passb[0]],
        2 => vec![passb[0] / w0],
        3 => {
            let d = passb[1] - passb[0];
            let discr = (d * d + 4.0 * w0 * w0 * passb[0] * passb[1]).sqrt();
            vec![
                ((d + discr) / (2.0 * w0)).abs(),
                ((d - discr) / (2.0 * w0)).abs(),
            ]
        }
        _ => {
            let d = passb[1] - passb[0];
            [-w0, w0]
                .iter()
                .map(|&w| (-w * d / 2.0 + (w * w / 4.0 * d * d + passb[0] * passb[1]).sqrt()).abs())
                .collect()
        }
    };
    wn.sort_by(|a, b| a.total_cmp(b));
    Ok(FilterOrder {
        n,
        wn: postprocess(wn, opts),
    })
}

fn cheb_v(gpass: f64, gstop: f64) -> f64 {
    let gs = 10f64.powf(0.1 * gstop.abs());
    let gp = 10f64.powf(0.1 * gpass.abs());
    ((gs - 1.0) / (gp - 1.0)).sqrt().acosh_c()
}

/// `scipy.signal.cheb1ord`: the lowest Chebyshev type I order meeting the specification (see
/// [`buttord`] for the arguments) and the natural frequencies (the pass band edges).
///
/// Errors: as [`buttord`].
pub fn cheb1ord(
    wp: &[f64],
    ws: &[f64],
    gpass: f64,
    gstop: f64,
    opts: &OrdOptions,
) -> Result<FilterOrder> {
    let op = "cheb1ord";
    let (nat, passb, _) = natural(op, wp, ws, gpass, gstop, opts, OrdKind::Cheby)?;
    let n = order_of(op, cheb_v(gpass, gstop) / nat.acosh_c())?;
    Ok(FilterOrder {
        n,
        wn: postprocess(passb, opts),
    })
}

/// `scipy.signal.cheb2ord`: the lowest Chebyshev type II order meeting the specification (see
/// [`buttord`]) and the Chebyshev type II natural frequencies to design with (SciPy's formulas:
/// where the order-`n` response reaches the specification, mapped back from the prototype).
///
/// Errors: as [`buttord`].
pub fn cheb2ord(
    wp: &[f64],
    ws: &[f64],
    gpass: f64,
    gstop: f64,
    opts: &OrdOptions,
) -> Result<FilterOrder> {
    let op = "cheb2ord";
    let (nat, passb, t) = natural(op, wp, ws, gpass, gstop, opts, OrdKind::Cheby)?;
    let v = cheb_v(gpass, gstop);
    let n = order_of(op, v / nat.acosh_c())?;
    let new_freq = 1.0 / (1.0 / n as f64 * v).cosh();
    let wn = match t {
        1 => vec![passb[0] / new_freq],
        2 => vec![passb[0] * new_freq],
        3 => {
            let nat0 = new_freq / 2.0 * (passb[0] - passb[1])
                + (new_freq * new_freq * (passb[1] - passb[0]).powi(2) / 4.0 + passb[1] * passb[0])
                    .sqrt();
            vec![nat0, passb[1] * passb[0] / nat0]
        }
        _ => {
            let nat0 = 1.0 / (2.0 * new_freq) * (passb[0] - passb[1])
                + ((passb[1] - passb[0]).powi(2) / (4.0 * new_freq * new_freq)
                    + passb[1] * passb[0])
                    .sqrt();
            vec![nat0, passb[0] * passb[1] / nat0]
        }
    };
    Ok(FilterOrder {
        n,
        wn: postprocess(wn, opts),
    })
}

/// `scipy.signal.ellipord`: the lowest elliptic order meeting the specification (see
/// [`buttord`]) and the natural frequencies (the pass band edges).
///
/// Errors: as [`buttord`].
pub fn ellipord(
    wp: &[f64],
    ws: &[f64],
    gpass: f64,
    gstop: f64,
    opts: &OrdOptions,
) -> Result<FilterOrder> {
    let op = "ellipord";
    let (nat, passb, _) = natural(op, wp, ws, gpass, gstop, opts, OrdKind::Ellip)?;
    let ln10 = 10f64.ln();
    let arg1_sq = (ln10 * 0.1 * gpass).exp_m1() / (ln10 * 0.1 * gstop).exp_m1();
    let arg0 = 1.0 / nat;
    let d0 = (ellipk(arg0 * arg0), ellipkm1(arg0 * arg0));
    let d1 = (ellipk(arg1_sq), ellipkm1(arg1_sq));
    let n = order_of(op, d0.0 * d1.1 / (d0.1 * d1.0))?;
    Ok(FilterOrder {
        n,
        wn: postprocess(passb, opts),
    })
}

/// The filter families [`iirdesign`] can select an order for (SciPy's `ftype`; Bessel has no order
/// selection).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DesignType {
    /// Butterworth ([`buttord`]).
    Butter,
    /// Chebyshev type I ([`cheb1ord`]).
    Cheby1,
    /// Chebyshev type II ([`cheb2ord`]).
    Cheby2,
    /// Elliptic ([`ellipord`]), SciPy's default.
    #[default]
    Ellip,
}

/// Options of [`iirdesign`] (SciPy's keywords and defaults: elliptic, `'ba'` output, digital).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct IirDesignOptions {
    /// Filter family.
    pub ftype: DesignType,
    /// Analog filter (frequencies in rad/s).
    pub analog: bool,
    /// Output representation.
    pub output: Output,
    /// Sampling frequency of a digital filter.
    pub fs: Option<f64>,
}

/// `scipy.signal.iirdesign(wp, ws, gpass, gstop, ...)`: the minimum-order filter of the family
/// `opts.ftype` meeting the specification (order from [`buttord`]/[`cheb1ord`]/[`cheb2ord`]/
/// [`ellipord`], then [`iirfilter`] with `rp = gpass`, `rs = gstop`; the band type follows from
/// `wp`/`ws` as in [`buttord`]).
///
/// Errors: those of the order selection and of [`iirfilter`].
///
/// ```
/// use cusci_signal::design::{iirdesign, IirDesignOptions};
/// let ba = iirdesign(&[0.2], &[0.3], 1.0, 40.0, &IirDesignOptions::default()).unwrap().into_ba().unwrap();
/// assert_eq!(ba.a.len(), 5); // order 4
/// ```
pub fn iirdesign(
    wp: &[f64],
    ws: &[f64],
    gpass: f64,
    gstop: f64,
    opts: &IirDesignOptions,
) -> Result<Filter> {
    let oo = OrdOptions {
        analog: opts.analog,
        fs: opts.fs,
    };
    let o = match opts.ftype {
        DesignType::Butter => buttord(wp, ws, gpass, gstop, &oo)?,
        DesignType::Cheby1 => cheb1ord(wp, ws, gpass, gstop, &oo)?,
        DesignType::Cheby2 => cheb2ord(wp, ws, gpass, gstop, &oo)?,
        DesignType::Ellip => ellipord(wp, ws, gpass, gstop, &oo)?,
    };
    let btype = match (wp.len(), wp[0] >= ws[0]) {
        (1, false) => BType::Lowpass,
        (1, true) => BType::Highpass,
        (_, false) => BType::Bandstop,
        (_, true) => BType::Bandpass,
    };
    let ft = match opts.ftype {
        DesignType::Butter => FilterType::Butter,
        DesignType::Cheby1 => FilterType::Cheby1 { rp: gpass },
        DesignType::Cheby2 => FilterType::Cheby2 { rs: gstop },
        DesignType::Ellip => FilterType::Ellip {
            rp: gpass,
            rs: gstop,
        },
    };
    iirfilter(
        o.n,
        &o.wn,
        ft,
        &IirOptions {
            btype,
            analog: opts.analog,
            output: opts.output,
            fs: opts.fs,
        },
    )
}
