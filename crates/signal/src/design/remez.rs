//! `remez`: the Parks–McClellan equiripple FIR design, by the Remez exchange algorithm of
//! McClellan, Parks and Rabiner (1973), the algorithm SciPy's `_sigtools._remez` runs: the same
//! dense grid, initial extremals, exchange rules (with its "luck" end searches), convergence test
//! (the deviation stops growing) and the Chebyshev-to-cosine conversion of the final
//! coefficients. Scalars in, host taps out.

// 1-based index loops, kept as in the published algorithm
#![allow(clippy::needless_range_loop)]

use cusci_core::error::make;
use cusci_core::host::try_vec_zeroed;
use cusci_core::{Error, Result};
use std::f64::consts::PI;

const TWOPI: f64 = 2.0 * PI;

/// The filter type of [`remez`] (SciPy's `type=` strings).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RemezType {
    /// `'bandpass'`: a symmetric (type I/II) filter with a piecewise constant response.
    #[default]
    Bandpass,
    /// `'differentiator'`: an antisymmetric filter whose response in each band is `desired · f`;
    /// the weight of a band with `desired ≥ 1e-4` is divided by `f` (SciPy's relative error).
    Differentiator,
    /// `'hilbert'`: an antisymmetric (type III/IV) filter with a constant response per band.
    Hilbert,
}

/// The keyword arguments of [`remez`], SciPy's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct RemezOptions {
    /// One weight per band (`None`: all ones).
    pub weight: Option<Vec<f64>>,
    /// The filter type (default bandpass).
    pub kind: RemezType,
    /// The most exchange iterations (default 25). As in SciPy, reaching it is not an error: the
    /// taps of the last iteration are returned.
    pub maxiter: usize,
    /// Grid points per tap pair (default 16).
    pub grid_density: usize,
    /// Sampling frequency of `bands` (`None`: 1.0, SciPy's default).
    pub fs: Option<f64>,
}

impl Default for RemezOptions {
    fn default() -> Self {
        RemezOptions {
            weight: None,
            kind: RemezType::Bandpass,
            maxiter: 25,
            grid_density: 16,
            fs: None,
        }
    }
}

/// `scipy.signal.remez(numtaps, bands, desired, *, weight, type, maxiter, grid_density, fs)`:
/// the minimax (equiripple) linear-phase FIR filter of `numtaps` taps whose response in band
/// `i` (`bands[2i] ..= bands[2i+1]`, in units of `fs`) approximates `desired[i]` with weight
/// `weight[i]`.
///
/// Numerics: SciPy's algorithm step for step in f64 (the same grid, extremal search and
/// barycentric Lagrange interpolation); the tests hold the taps to SciPy's within 1e-9 absolute
/// (the exchange is a sequence of discrete choices, so a rounding difference at a tie could in
/// principle move an extremal; none of the golden cases does).
///
/// # Errors
/// `InvalidArgument` with SciPy's messages: `numtaps < 2`, `bands` not twice as long as
/// `desired` (or `weight` not as long), bands not monotonic starting at zero, an edge above
/// `fs/2`, `fs` not positive and finite, a non-finite band, desired value or weight, no band,
/// `grid_density = 0` or `maxiter = 0` (SciPy runs on uninitialised memory there), or a grid
/// too dense for its work arrays (SciPy's "Failure to converge at iteration -1");
/// `NoConvergence` when an exchange fails to increase the deviation (SciPy's "Failure to
/// converge at iteration k, try reducing transition band width", `iterations = k`) or the taps
/// are not finite; `OutOfMemory` when the grid cannot be allocated.
///
/// ```
/// use cusci_signal::{remez, RemezOptions};
/// // a length-11 low-pass: pass 0..0.1, stop 0.2..0.5 (fs = 1)
/// let h = remez(11, &[0.0, 0.1, 0.2, 0.5], &[1.0, 0.0], &RemezOptions::default()).unwrap();
/// assert_eq!(h.len(), 11);
/// assert!((h[0] - h[10]).abs() < 1e-15); // symmetric
/// let dc: f64 = h.iter().sum();
/// assert!((dc - 1.0).abs() < 0.1);
/// ```
pub fn remez(
    numtaps: usize,
    bands: &[f64],
    desired: &[f64],
    opts: &RemezOptions,
) -> Result<Vec<f64>> {
    let op = "remez";
    let fs = opts.fs.unwrap_or(1.0);
    if !(fs.is_finite() && fs > 0.0) {
        return Err(make::arg(op, "fs must be a single positive finite number"));
    }
    if numtaps < 2 {
        return Err(make::arg(op, "The number of taps must be greater than 1."));
    }
    let ones;
    let weight: &[f64] = match &opts.weight {
        Some(w) => w,
        None => {
            ones = vec![1.0; desired.len()];
            &ones
        }
    };
    let nb = desired.len();
    if bands.len() != 2 * nb || weight.len() != nb {
        return Err(make::arg(
            op,
            "The inputs desired and weight must have same length.\n  The input bands must have twice this length.",
        ));
    }
    if nb == 0 {
        return Err(make::arg(op, "at least one band must be given"));
    }
    if bands
        .iter()
        .chain(desired)
        .chain(weight)
        .any(|v| !v.is_finite())
    {
        return Err(make::arg(op, "bands, desired and weight must be finite"));
    }
    if opts.grid_density == 0 {
        return Err(make::arg(op, "grid_density must be at least 1"));
    }
    if opts.maxiter == 0 {
        return Err(make::arg(op, "maxiter must be at least 1"));
    }
    let mut edge = Vec::with_capacity(2 * nb + 1);
    edge.push(0.0); // 1-based
    let mut old = 0.0;
    for &b in bands {
        if b < old {
            return Err(make::arg(op, "Bands must be monotonic starting at zero."));
        }
        if b * 2.0 > fs {
            return Err(make::arg(
                op,
                "Band edges should be less than 1/2 the sampling frequency",
            ));
        }
        old = b;
        edge.push(b / fs);
    }
    if numtaps > i32::MAX as usize / 2 || opts.grid_density > i32::MAX as usize {
        return Err(make::arg(op, "numtaps or grid_density too large"));
    }
    let fx: Vec<f64> = std::iter::once(0.0)
        .chain(desired.iter().copied())
        .collect();
    let wtx: Vec<f64> = std::iter::once(0.0).chain(weight.iter().copied()).collect();
    let jtype = opts.kind;
    let neg = jtype != RemezType::Bandpass;
    let nodd = numtaps % 2 == 1;
    let mut nfcns = numtaps / 2;
    if nodd && !neg {
        nfcns += 1;
    }
    let dimsize = numtaps.div_ceil(2) + 2;
    let wrksize = opts
        .grid_density
        .checked_mul(dimsize)
        .ok_or_else(|| make::arg(op, "the grid is too large"))?;
    let mut grid: Vec<f64> = try_vec_zeroed(op, wrksize + 2)?;
    let mut des: Vec<f64> = try_vec_zeroed(op, wrksize + 2)?;
    let mut wt: Vec<f64> = try_vec_zeroed(op, wrksize + 2)?;

    let eff = |f: f64, band: usize| {
        if jtype == RemezType::Differentiator {
            fx[band] * f
        } else {
            fx[band]
        }
    };
    let wate = |f: f64, band: usize| {
        if jtype != RemezType::Differentiator || fx[band] < 0.0001 {
            wtx[band]
        } else {
            wtx[band] / f
        }
    };

    // the dense grid, (numtaps + 1) * grid_density / 2 points
    let delf = 0.5 / (opts.grid_density as f64 * nfcns as f64);
    grid[1] = edge[1];
    if neg && edge[1] < delf {
        grid[1] = delf;
    }
    let mut j = 1usize;
    let mut l = 1usize;
    let mut lband = 1usize;
    let too_dense = || Error::InvalidArgument {
        op: op.into(),
        detail: "Failure to converge at iteration -1, try reducing transition band width \
                 (the grid is too dense for the filter length)"
            .into(),
    };
    loop {
        let fup = edge[l + 1];
        loop {
            let temp = grid[j];
            des[j] = eff(temp, lband);
            wt[j] = wate(temp, lband);
            j += 1;
            if j > wrksize {
                return Err(too_dense());
            }
            grid[j] = temp + delf;
            if grid[j] > fup {
                break;
            }
        }
        grid[j - 1] = fup;
        des[j - 1] = eff(fup, lband);
        wt[j - 1] = wate(fup, lband);
        lband += 1;
        l += 2;
        if lband > nb {
            break;
        }
        grid[j] = edge[l];
    }
    let mut ngrid = j - 1;
    if neg == nodd && grid[ngrid] > 0.5 - delf {
        ngrid -= 1;
    }

    // the equivalent approximation problem by a sum of cosines
    if !neg {
        if !nodd {
            for j in 1..=ngrid {
                let c = (PI * grid[j]).cos();
                des[j] /= c;
                wt[j] *= c;
            }
        }
    } else {
        let m = if nodd { TWOPI } else { PI };
        for j in 1..=ngrid {
            let c = (m * grid[j]).sin();
            des[j] /= c;
            wt[j] *= c;
        }
    }

    let mut iext = vec![0usize; nfcns + 3];
    let temp = (ngrid as f64 - 1.0) / nfcns as f64;
    for (j, e) in iext.iter_mut().enumerate().take(nfcns + 1).skip(1) {
        *e = ((j - 1) as f64 * temp) as usize + 1;
    }
    iext[nfcns + 1] = ngrid;

    let alpha = exchange(
        &grid,
        &des,
        &wt,
        &edge,
        ngrid,
        nb,
        &mut iext,
        nfcns,
        opts.maxiter,
    )
    .map_err(|(iterations, residual)| Error::NoConvergence {
        op: format!(
            "{op} (Failure to converge at iteration {iterations}, try reducing transition band width)"
        ),
        iterations,
        residual,
    })?;

    // the impulse response
    let nm1 = nfcns - 1;
    let nz = nfcns + 1;
    let mut h: Vec<f64> = try_vec_zeroed(op, numtaps + 2)?;
    let a = |i: usize| alpha.get(i).copied().unwrap_or(0.0);
    if !neg {
        if nodd {
            for j in 1..=nm1 {
                h[j] = 0.5 * a(nz - j);
            }
            h[nfcns] = a(1);
        } else {
            h[1] = 0.25 * a(nfcns);
            for j in 2..=nm1 {
                h[j] = 0.25 * (a(nz - j) + a(nfcns + 2 - j));
            }
            h[nfcns] = 0.5 * a(1) + 0.25 * a(2);
        }
    } else if nodd {
        h[1] = 0.25 * a(nfcns);
        h[2] = 0.25 * a(nm1);
        for j in 3..=nm1 {
            h[j] = 0.25 * (a(nz - j) - a(nfcns + 3 - j));
        }
        h[nfcns] = 0.5 * a(1) - 0.25 * a(3);
        h[nz] = 0.0;
    } else {
        h[1] = 0.25 * a(nfcns);
        for j in 2..=nm1 {
            h[j] = 0.25 * (a(nz - j) - a(nfcns + 2 - j));
        }
        h[nfcns] = 0.5 * a(1) - 0.25 * a(2);
    }
    for j in 1..=nfcns {
        let k = numtaps + 1 - j;
        h[k] = if neg { -h[j] } else { h[j] };
    }
    if neg && nodd {
        h[nz] = 0.0;
    }
    h.truncate(numtaps + 1);
    h.remove(0);
    if h.iter().any(|v| !v.is_finite()) {
        return Err(Error::NoConvergence {
            op: format!("{op} (the design gave non-finite taps; check the weights and bands)"),
            iterations: 0,
            residual: f64::NAN,
        });
    }
    Ok(h)
}

/// The labels of the published exchange routine's search; each state is one of its blocks.
#[derive(Clone, Copy)]
enum St {
    Iterate,
    Next,
    ClimbUp,
    TakeUp,
    LookDown,
    ScanDown,
    FoundDown,
    ClimbDown,
    TakeDown,
    NoDown,
    ScanUp,
    Keep,
    Ends,
    LowEnd,
    LowNone,
    AfterEnds,
    HighStart,
    HighEnd,
    HighNone,
    ShiftLeft,
    Done,
}

/// The Remez exchange on the grid (1-based arrays, as the published routine): returns the
/// cosine-series coefficients `alpha[1..=nfcns]`, or `(iteration, deviation)` when the
/// deviation stops growing (SciPy's failure).
#[allow(clippy::too_many_arguments)]
fn exchange(
    grid: &[f64],
    des: &[f64],
    wt: &[f64],
    edge: &[f64],
    ngrid: usize,
    nbands: usize,
    iext: &mut [usize],
    nfcns: usize,
    itrmax: usize,
) -> std::result::Result<Vec<f64>, (usize, f64)> {
    let n = nfcns + 4;
    let mut a = vec![0.0f64; n];
    let mut p = vec![0.0f64; n];
    let mut q = vec![0.0f64; n];
    let mut ad = vec![0.0f64; n];
    let mut x = vec![0.0f64; n];
    let mut y = vec![0.0f64; n];
    let mut alpha = vec![0.0f64; n];
    let nz = nfcns + 1;
    let nzz = nfcns + 2;
    let mut devl = -1.0f64;
    let mut dev = 0.0f64;
    let mut niter = 0usize;
    // the search's registers (i64: `l` runs from 0 to ngrid + 1)
    let (mut j, mut l, mut k1, mut knz, mut klow, mut kup) = (0i64, 0i64, 0i64, 0i64, 0i64, 0i64);
    let (mut nu, mut nut, mut nut1, mut luck, mut jchnge) = (0i64, 0i64, 0i64, 0i64, 0i64);
    let (mut comp, mut ynz, mut y1, mut err) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);

    fn freq_eval(gk: f64, nz: usize, x: &[f64], y: &[f64], ad: &[f64]) -> f64 {
        let xf = (TWOPI * gk).cos();
        let (mut d, mut p) = (0.0, 0.0);
        for j in 1..=nz {
            let c = ad[j] / (xf - x[j]);
            d += c;
            p += c * y[j];
        }
        p / d
    }
    macro_rules! e {
        ($l:expr) => {{
            let li = $l as usize;
            (freq_eval(grid[li], nz, &x, &y, &ad) - des[li]) * wt[li]
        }};
    }
    let mut st = St::Iterate;
    loop {
        match st {
            St::Iterate => {
                iext[nzz] = ngrid + 1;
                niter += 1;
                if niter > itrmax {
                    break;
                }
                for j in 1..=nz {
                    x[j] = (grid[iext[j]] * TWOPI).cos();
                }
                let jet = (nfcns - 1) / 15 + 1;
                for jj in 1..=nz {
                    // the Lagrange coefficients, products taken in jet interleaved passes
                    let mut r = 1.0;
                    let qv = x[jj];
                    for ll in 1..=jet {
                        let mut m = ll;
                        while m <= nz {
                            if m != jj {
                                r *= 2.0 * (qv - x[m]);
                            }
                            m += jet;
                        }
                    }
                    ad[jj] = 1.0 / r;
                }
                let (mut dnum, mut dden, mut k) = (0.0, 0.0, 1.0f64);
                for jj in 1..=nz {
                    let li = iext[jj];
                    dnum += ad[jj] * des[li];
                    dden += k * ad[jj] / wt[li];
                    k = -k;
                }
                dev = dnum / dden;
                nu = if dev > 0.0 { -1 } else { 1 };
                dev *= -(nu as f64);
                let mut k = nu as f64;
                for jj in 1..=nz {
                    let li = iext[jj];
                    y[jj] = des[li] + k * dev / wt[li];
                    k = -k;
                }
                if dev <= devl || dev.is_nan() {
                    return Err((niter, dev));
                }
                devl = dev;
                jchnge = 0;
                k1 = iext[1] as i64;
                knz = iext[nz] as i64;
                klow = 0;
                nut = -nu;
                j = 1;
                st = St::Next;
            }
            St::Next => {
                if j == nzz as i64 {
                    ynz = comp;
                }
                if j >= nzz as i64 {
                    st = St::Ends;
                    continue;
                }
                kup = iext[j as usize + 1] as i64;
                l = iext[j as usize] as i64 + 1;
                nut = -nut;
                if j == 2 {
                    y1 = comp;
                }
                comp = dev;
                if l >= kup {
                    st = St::LookDown;
                    continue;
                }
                err = e!(l);
                if nut as f64 * err - comp <= 0.0 {
                    st = St::LookDown;
                    continue;
                }
                comp = nut as f64 * err;
                st = St::ClimbUp;
            }
            St::ClimbUp => {
                l += 1;
                if l >= kup {
                    st = St::TakeUp;
                    continue;
                }
                err = e!(l);
                if nut as f64 * err - comp <= 0.0 {
                    st = St::TakeUp;
                    continue;
                }
                comp = nut as f64 * err;
            }
            St::TakeUp => {
                iext[j as usize] = (l - 1) as usize;
                j += 1;
                klow = l - 1;
                jchnge += 1;
                st = St::Next;
            }
            St::LookDown => {
                l -= 1;
                st = St::ScanDown;
            }
            St::ScanDown => {
                l -= 1;
                if l <= klow {
                    st = St::NoDown;
                    continue;
                }
                err = e!(l);
                if nut as f64 * err - comp > 0.0 {
                    st = St::FoundDown;
                    continue;
                }
                if jchnge <= 0 {
                    continue;
                }
                st = St::Keep;
            }
            St::FoundDown => {
                comp = nut as f64 * err;
                st = St::ClimbDown;
            }
            St::ClimbDown => {
                l -= 1;
                if l <= klow {
                    st = St::TakeDown;
                    continue;
                }
                err = e!(l);
                if nut as f64 * err - comp <= 0.0 {
                    st = St::TakeDown;
                    continue;
                }
                comp = nut as f64 * err;
            }
            St::TakeDown => {
                klow = iext[j as usize] as i64;
                iext[j as usize] = (l + 1) as usize;
                j += 1;
                jchnge += 1;
                st = St::Next;
            }
            St::NoDown => {
                l = iext[j as usize] as i64 + 1;
                st = if jchnge > 0 { St::TakeUp } else { St::ScanUp };
            }
            St::ScanUp => {
                l += 1;
                if l >= kup {
                    st = St::Keep;
                    continue;
                }
                err = e!(l);
                if nut as f64 * err - comp <= 0.0 {
                    continue;
                }
                comp = nut as f64 * err;
                st = St::ClimbUp;
            }
            St::Keep => {
                klow = iext[j as usize] as i64;
                j += 1;
                st = St::Next;
            }
            St::Ends => {
                if j > nzz as i64 {
                    st = St::AfterEnds;
                    continue;
                }
                k1 = k1.min(iext[1] as i64);
                knz = knz.max(iext[nz] as i64);
                nut1 = nut;
                nut = -nu;
                l = 0;
                kup = k1;
                comp = ynz * 1.00001;
                luck = 1;
                st = St::LowEnd;
            }
            St::LowEnd => {
                l += 1;
                if l >= kup {
                    st = St::LowNone;
                    continue;
                }
                err = e!(l);
                if nut as f64 * err - comp <= 0.0 {
                    continue;
                }
                comp = nut as f64 * err;
                j = nzz as i64;
                st = St::ClimbUp;
            }
            St::LowNone => {
                luck = 6;
                st = St::HighStart;
            }
            St::AfterEnds => {
                if luck > 9 {
                    st = St::ShiftLeft;
                    continue;
                }
                if comp > y1 {
                    y1 = comp;
                }
                k1 = iext[nzz] as i64;
                st = St::HighStart;
            }
            St::HighStart => {
                l = ngrid as i64 + 1;
                klow = knz;
                nut = -nut1;
                comp = y1 * 1.00001;
                st = St::HighEnd;
            }
            St::HighEnd => {
                l -= 1;
                if l <= klow {
                    st = St::HighNone;
                    continue;
                }
                err = e!(l);
                if nut as f64 * err - comp <= 0.0 {
                    continue;
                }
                j = nzz as i64;
                comp = nut as f64 * err;
                luck += 10;
                st = St::ClimbDown;
            }
            St::HighNone => {
                if luck == 6 {
                    st = St::Done;
                    continue;
                }
                for jj in 1..=nfcns {
                    iext[nzz - jj] = iext[nz - jj];
                }
                iext[1] = k1 as usize;
                st = St::Iterate;
            }
            St::ShiftLeft => {
                let kn = iext[nzz];
                for jj in 1..=nfcns {
                    iext[jj] = iext[jj + 1];
                }
                iext[nz] = kn;
                st = St::Iterate;
            }
            St::Done => {
                if jchnge > 0 {
                    st = St::Iterate;
                } else {
                    break;
                }
            }
        }
    }

    // the coefficients of the best approximation by an inverse DFT of its samples
    let nm1 = nfcns - 1;
    let fsh = 1.0e-6;
    x[nzz] = -2.0;
    let cn = 2 * nfcns - 1;
    let delf = 1.0 / cn as f64;
    let mut l = 1usize;
    let kkk = (edge[1] == 0.0 && edge[2 * nbands] == 0.5) || nfcns <= 3;
    let (mut aa, mut bb) = (0.0, 0.0);
    if !kkk {
        let dtemp = (TWOPI * grid[1]).cos();
        let dnum = (TWOPI * grid[ngrid]).cos();
        aa = 2.0 / (dtemp - dnum);
        bb = -(dtemp + dnum) / (dtemp - dnum);
    }
    for jj in 1..=nfcns {
        let mut ft = (jj - 1) as f64 * delf;
        let mut xt = (TWOPI * ft).cos();
        if !kkk {
            xt = (xt - bb) / aa;
            ft = xt.acos() / TWOPI;
        }
        loop {
            let xe = x[l];
            if xt > xe {
                if xt - xe < fsh {
                    a[jj] = y[l];
                } else {
                    a[jj] = freq_eval(ft, nz, &x, &y, &ad);
                }
                break;
            }
            if xe - xt < fsh {
                a[jj] = y[l];
                break;
            }
            l += 1;
        }
        if l > 1 {
            l -= 1;
        }
    }
    let dden = TWOPI / cn as f64;
    for jj in 1..=nfcns {
        let mut dtemp = 0.0;
        let dnum = (jj - 1) as f64 * dden;
        for k in 1..=nm1 {
            dtemp += a[k + 1] * (dnum * k as f64).cos();
        }
        alpha[jj] = 2.0 * dtemp + a[1];
    }
    for v in alpha.iter_mut().take(nfcns + 1).skip(2) {
        *v *= 2.0 / cn as f64;
    }
    alpha[1] /= cn as f64;
    if !kkk {
        p[1] = 2.0 * alpha[nfcns] * bb + alpha[nm1];
        p[2] = 2.0 * aa * alpha[nfcns];
        q[1] = alpha[nfcns - 2] - alpha[nfcns];
        for jj in 2..=nm1 {
            if jj >= nm1 {
                aa *= 0.5;
                bb *= 0.5;
            }
            p[jj + 1] = 0.0;
            for k in 1..=jj {
                a[k] = p[k];
                p[k] = 2.0 * bb * a[k];
            }
            p[2] += a[1] * 2.0 * aa;
            for k in 1..jj {
                p[k] += q[k] + aa * a[k + 1];
            }
            for k in 3..=jj + 1 {
                p[k] += aa * a[k - 1];
            }
            if jj != nm1 {
                for k in 1..=jj {
                    q[k] = -a[k];
                }
                q[1] += alpha[nfcns - 1 - jj];
            }
        }
        alpha[1..=nfcns].copy_from_slice(&p[1..=nfcns]);
    }
    if nfcns <= 3 {
        alpha[nfcns + 1] = 0.0;
        alpha[nfcns + 2] = 0.0;
    }
    Ok(alpha)
}
