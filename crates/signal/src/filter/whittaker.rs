//! [`whittaker_henderson`]: SciPy 1.18's Whittaker–Henderson smoother, `(W + λ DᵀD) x = W y`
//! with `D` the order-`p` difference matrix, solved by a banded Cholesky factorisation; λ given
//! or chosen by SciPy's REML criterion (Brent's method over `log λ` from the bracket
//! `[-10, 10]`); SciPy's polynomial fallback for very large λ.
//!
//! The factor (or the fallback's projection) depends only on `n`, `order`, `λ` and the host
//! weights, so it is computed on the host like a filter's coefficients; the data never leaves
//! its device: on the GPU one thread per signal runs the two triangular solves in double
//! (`whittaker.cu`), and REML reads back one residual per criterion evaluation.

#![allow(clippy::needless_range_loop)]

use crate::procutil::{each_dtype, from_f64, host_elems, typed_kernel, typed_source, REAL_DTYPES};
use cusci_core::error::make;
use cusci_core::{Array, Backend, Element, Error, KernelModule, LaunchConfig, RealFloat, Result};
use rayon::prelude::*;

const SRC: &str = include_str!("whittaker.cu");

/// The banded solve and the polynomial projection (`whittaker.cu`), per element type.
pub(crate) static WHITTAKER: KernelModule = KernelModule {
    name: "signal_whittaker",
    source: |s| typed_source("signal_whittaker", s, &[], SRC),
    // no contraction into fused multiply-adds: the CPU's operations bit for bit (REML's
    // search over lambda reads the residuals, so a last-bit difference can move the lambda)
    options: &["--fmad=false"],
    samples: || each_dtype(&REAL_DTYPES),
};

/// SciPy's `lamb` argument of [`whittaker_henderson`].
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum WhLamb {
    /// `"reml"` (SciPy's default): λ minimising the restricted maximum likelihood criterion,
    /// one λ per signal.
    #[default]
    Reml,
    /// A given penalty λ ≥ 0 (0 returns the signal; `+inf` the polynomial fit).
    Value(f64),
}

/// The keyword arguments of [`whittaker_henderson`], SciPy's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct WhittakerOptions<'a> {
    /// The penalty (default REML).
    pub lamb: WhLamb,
    /// The order of the difference penalty, at least 1 (default 2).
    pub order: usize,
    /// Case weights, one per sample of the smoothed axis (`None`: all ones). A zero weight
    /// marks a sample to inter- or extrapolate; its value may then be non-finite.
    pub weights: Option<&'a [f64]>,
}

impl Default for WhittakerOptions<'_> {
    fn default() -> Self {
        WhittakerOptions {
            lamb: WhLamb::Reml,
            order: 2,
            weights: None,
        }
    }
}

/// The result of [`whittaker_henderson`] (SciPy's `_RichResult` with `x` and `lamb`).
#[derive(Debug)]
pub struct Whittaker<T: RealFloat> {
    /// The smoothed signals, the input's shape, on its device.
    pub x: Array<T>,
    /// The penalty used for each signal (row-major over the leading axes; one value for a 1-D
    /// input): the given λ, or REML's choice.
    pub lamb: Vec<f64>,
}

/// `scipy.signal.whittaker_henderson(signal, *, lamb='reml', order=2, weights=None)` (SciPy
/// 1.18): Whittaker–Henderson smoothing, `argmin_x Σ wᵢ (yᵢ − xᵢ)² + λ Σ (Δᵖ x)ᵢ²`, along the
/// last axis; leading axes are a batch of signals (SciPy takes 1-D input only).
///
/// As SciPy: λ = 0 returns the signal; when λ is so large that the system would lose the
/// weights (`λ·eps > 8` without weights; `λ·diag(DᵀD) + 8w == λ·diag(DᵀD)` everywhere with
/// them) or the Cholesky factorisation breaks down (SciPy warns), the result is the polynomial
/// of degree `order − 1` fitted by NumPy's `Polynomial.fit(arange(n), y, order - 1, w=weights)`
/// (rows scaled by `w`, as NumPy does). REML: SciPy's profiled criterion
/// `(n−p)(1 + log(r²/(n−p))) − (n−p) log λ − log|DDᵀ| + log|W + λDᵀD|`, minimised over
/// `log λ` by SciPy's `bracket` from `(-10, 10)` and Brent's method (tol 1.48e-8).
///
/// Numerics: the factorisation, solves and sums in f64 on both devices (f32 data is widened);
/// the devices agree to rounding (1e-12 relative in f64), SciPy's definition to 1e-9 (fixed λ)
/// and 1e-6 (REML: the minimiser is flat) in the tests.
///
/// Device: the factor or projection on the host (scalars and host weights only), the solves on
/// the signal's device; REML synchronises once per criterion evaluation (a few dozen per
/// signal) to read the residual back.
///
/// # Errors
/// `InvalidArgument` with SciPy's messages: `order < 1`, a 0-d input, fewer than `order + 1`
/// samples, weights of the wrong length or not finite, a non-finite sample without weights
/// (SciPy: "Input array signal must be finite.") or with a nonzero weight, λ negative or NaN;
/// the fallback with fewer than `order` nonzero weights (NumPy: a rank-deficient fit);
/// `NoConvergence` when SciPy's `bracket` finds no minimum of the REML criterion.
///
/// ```
/// use cusci_signal::{whittaker_henderson, Device, WhLamb, WhittakerOptions};
/// use cusci_core::Array;
/// let y = Array::from_vec(vec![1.0f64, 3.0, 2.0, 5.0, 4.0, 6.0], &[6], &Device::cpu()).unwrap();
/// let o = WhittakerOptions { lamb: WhLamb::Value(1e12), ..Default::default() };
/// // a huge penalty gives the least-squares line (order 2)
/// let r = whittaker_henderson(&y, &o).unwrap();
/// let x = r.x.to_vec().unwrap();
/// assert!((x[1] - x[0] - (x[5] - x[4])).abs() < 1e-6);
/// ```
pub fn whittaker_henderson<T: RealFloat>(
    signal: &Array<T>,
    opts: &WhittakerOptions,
) -> Result<Whittaker<T>> {
    let op = "whittaker_henderson";
    let p = opts.order;
    if p < 1 {
        return Err(make::arg(op, "`order` must be an integer >= 1"));
    }
    if signal.ndim() == 0 {
        return Err(make::arg(
            op,
            "Input array signal must be of shape (n,); got ()",
        ));
    }
    let n = signal.shape()[signal.ndim() - 1];
    if n < p + 1 {
        return Err(make::arg(
            op,
            format!(
                "Input array signal must be at least of shape ({},); got {n}.",
                p + 1
            ),
        ));
    }
    if let WhLamb::Value(l) = opts.lamb {
        if l.is_nan() || l < 0.0 {
            return Err(make::arg(
                op,
                format!(
                    "Parameter lamb must be string 'reml' or a non-negative float; got lamb={l}."
                ),
            ));
        }
    }
    let weighted = opts.weights.is_some();
    let w: Vec<f64> = match opts.weights {
        Some(w) => {
            if w.len() != n {
                return Err(make::arg(
                    op,
                    "Input array weights must have the same shape as the signal array.",
                ));
            }
            if w.iter().any(|v| !v.is_finite()) {
                return Err(make::arg(op, "Input array weights must be finite."));
            }
            w.to_vec()
        }
        None => vec![1.0; n],
    };
    let batch = signal.size() / n.max(1);
    let y = signal.contiguous()?;
    // SciPy's finiteness rules (one device reduction and a scalar read-back)
    let finite = y.isfinite()?.astype::<T>()?;
    let bad = if weighted {
        let wm: Vec<T> = w
            .iter()
            .map(|&v| {
                if v != 0.0 {
                    <T as Element>::one()
                } else {
                    <T as Element>::zero()
                }
            })
            .collect();
        let wm = Array::from_vec(wm, &[n], y.device())?;
        let ones = Array::from_vec(vec![<T as Element>::one(); n], &[n], y.device())?;
        ones.sub(&finite)?.mul(&wm)?.sum()?
    } else {
        from_f64::<T>(y.size() as f64) - finite.sum()?
    };
    if bad != <T as Element>::zero() {
        return Err(make::arg(
            op,
            if weighted {
                "Input array weights must be zero for all non-finite elements of signal."
            } else {
                "Input array signal must be finite."
            },
        ));
    }
    let y = if weighted && finite.min()? == <T as Element>::zero() {
        // SciPy's nan_to_num: only zero-weight samples are non-finite here
        let zero = Array::zeros(y.shape(), y.device())?;
        cusci_core::ops::where_(&y.isfinite()?, &y, &zero)?
    } else {
        y
    };
    if signal.size() == 0 {
        return Ok(Whittaker {
            x: y,
            lamb: Vec::new(),
        });
    }
    let ctx = Ctx {
        n,
        p,
        weighted,
        w,
        dtd: logdet_dtd(p, n),
    };
    let wdev = Array::from_vec(ctx.w.clone(), &[n], y.device())?;
    match opts.lamb {
        WhLamb::Value(l) => {
            if l == 0.0 {
                return Ok(Whittaker {
                    x: y,
                    lamb: vec![0.0; batch],
                });
            }
            let plan = ctx.plan(l)?;
            let mut x = Out::new(&y)?;
            solve(&ctx, &plan, l, &y, &wdev, &mut x, 0, batch)?;
            Ok(Whittaker {
                x: x.finish(&y)?,
                lamb: vec![l; batch],
            })
        }
        WhLamb::Reml => {
            let mut x = Out::new(&y)?;
            let mut lambs = Vec::with_capacity(batch);
            for b in 0..batch {
                let mut crit = |loglamb: f64| -> Result<f64> {
                    let lamb = loglamb.exp();
                    let plan = ctx.plan(lamb)?;
                    let r2 = solve(&ctx, &plan, lamb, &y, &wdev, &mut x, b, 1)?[0];
                    let m = (n - p) as f64;
                    let mut reml = m * (1.0 + (r2 / m).ln());
                    reml -= m * lamb.ln() + ctx.dtd;
                    reml += plan.logdet;
                    Ok(0.5 * reml)
                };
                let lo = minimize(&mut crit)?;
                let lamb = lo.exp();
                let plan = ctx.plan(lamb)?;
                solve(&ctx, &plan, lamb, &y, &wdev, &mut x, b, 1)?;
                lambs.push(lamb);
            }
            Ok(Whittaker {
                x: x.finish(&y)?,
                lamb: lambs,
            })
        }
    }
}

struct Ctx {
    n: usize,
    p: usize,
    weighted: bool,
    w: Vec<f64>,
    /// log|D Dᵀ|
    dtd: f64,
}

/// The host half of one λ: the Cholesky band (`mode` 0) or the polynomial projection (1).
struct Plan {
    mode: i32,
    /// mode 0: `L[i][i-k]` at `i (p+1) + k`; mode 1: `Q[i][k] w[i]` at `i p + k`.
    a: Vec<f64>,
    /// mode 1: `(V R⁻¹)[i][k]` at `i p + k`.
    u: Vec<f64>,
    /// log|W + λ DᵀD| (the fallback: SciPy's large-λ value).
    logdet: f64,
}

impl Ctx {
    fn plan(&self, lamb: f64) -> Result<Plan> {
        let (n, p) = (self.n, self.p);
        let pw = p + 1;
        // the band of DᵀD, lower: pd[i*pw + k] = (DᵀD)[i][i-k]
        let d: Vec<f64> = (0..=p)
            .map(|m| {
                let c = binom(p as f64, m);
                if (p - m) % 2 == 1 {
                    -c
                } else {
                    c
                }
            })
            .collect();
        let mut pd = vec![0.0f64; n * pw];
        for r in 0..n - p {
            for a in 0..=p {
                for b in 0..=a {
                    pd[(r + a) * pw + (a - b)] += d[a] * d[b];
                }
            }
        }
        let poly_logdet = (n - p) as f64 * lamb.ln() + self.dtd;
        let huge = if self.weighted {
            (0..n).all(|i| {
                let a = lamb * pd[i * pw];
                a == a + self.w[i] * 8.0
            })
        } else {
            lamb * f64::EPSILON > 8.0
        };
        if !huge {
            let mut l: Vec<f64> = pd.iter().map(|v| v * lamb).collect();
            for i in 0..n {
                l[i * pw] += self.w[i];
            }
            // banded Cholesky in place (LAPACK pbsv's lower factor)
            let mut ok = true;
            'fact: for i in 0..n {
                for k in (0..=p.min(i)).rev() {
                    let j = i - k;
                    let mut s = l[i * pw + k];
                    // sum over m < j within both bands of L[i][m] L[j][m]
                    let mlo = i.saturating_sub(p);
                    for m in mlo..j {
                        s -= l[i * pw + (i - m)] * l[j * pw + (j - m)];
                    }
                    if k == 0 {
                        if s <= 0.0 || s.is_nan() {
                            ok = false;
                            break 'fact;
                        }
                        l[i * pw] = s.sqrt();
                    } else {
                        l[i * pw + k] = s / l[j * pw];
                    }
                }
            }
            if ok {
                let logdet = 2.0 * (0..n).map(|i| l[i * pw].ln()).sum::<f64>();
                return Ok(Plan {
                    mode: 0,
                    a: l,
                    u: vec![0.0],
                    logdet,
                });
            }
        }
        self.poly_plan(poly_logdet)
    }

    /// NumPy's `Polynomial.fit(arange(n), y, deg=p-1, w=w)` as a projection: the domain mapped
    /// to [-1, 1], M = diag(w) V = Q R (Gram–Schmidt twice), x = V R⁻¹ Qᵀ (w y).
    fn poly_plan(&self, logdet: f64) -> Result<Plan> {
        let (n, p) = (self.n, self.p);
        let scl = 2.0 / (n - 1) as f64;
        let xs: Vec<f64> = (0..n).map(|i| -1.0 + scl * i as f64).collect();
        let v = |i: usize, k: usize| xs[i].powi(k as i32);
        let mut q = vec![0.0f64; n * p];
        for i in 0..n {
            for k in 0..p {
                q[i * p + k] = self.w[i] * v(i, k);
            }
        }
        let mut r = vec![0.0f64; p * p];
        for k in 0..p {
            for _pass in 0..2 {
                for j in 0..k {
                    let dot: f64 = (0..n).map(|i| q[i * p + j] * q[i * p + k]).sum();
                    r[j * p + k] += dot;
                    for i in 0..n {
                        q[i * p + k] -= dot * q[i * p + j];
                    }
                }
            }
            let nrm = (0..n).map(|i| q[i * p + k].powi(2)).sum::<f64>().sqrt();
            let scale = (0..n)
                .map(|i| (self.w[i] * v(i, k)).abs())
                .fold(0.0, f64::max);
            if nrm.is_nan() || nrm <= 1e-12 * scale.max(f64::MIN_POSITIVE) {
                return Err(make::arg(
                    "whittaker_henderson",
                    "the polynomial fit of the large-lambda limit is rank deficient \
                     (fewer nonzero weights than order)",
                ));
            }
            r[k * p + k] = nrm;
            for i in 0..n {
                q[i * p + k] /= nrm;
            }
        }
        let mut u = vec![0.0f64; n * p];
        for i in 0..n {
            for k in 0..p {
                let mut s = v(i, k);
                for j in 0..k {
                    s -= u[i * p + j] * r[j * p + k];
                }
                u[i * p + k] = s / r[k * p + k];
            }
            for k in 0..p {
                q[i * p + k] *= self.w[i];
            }
        }
        Ok(Plan {
            mode: 1,
            a: q,
            u,
            logdet,
        })
    }
}

/// `binom(a, k)` for a small integer `k` (a product, exact enough for SciPy's `binom`).
fn binom(a: f64, k: usize) -> f64 {
    (1..=k).fold(1.0, |acc, j| acc * (a - k as f64 + j as f64) / j as f64)
}

/// SciPy's `_logdet_difference_matrix`: log|D Dᵀ| for the order-`p` difference matrix of `n`.
fn logdet_dtd(p: usize, n: usize) -> f64 {
    if p == 1 {
        return (n as f64).ln();
    }
    let n = n as f64;
    let mut s = 0.0;
    for i in 1..=p {
        s += (binom(n + i as f64 - 1.0, 2 * i - 1) / binom(2.0 * i as f64, i)).ln();
    }
    s + binom(2.0 * p as f64, p).ln()
}

/// The output being written: host values, or the device array.
enum Out<T: RealFloat> {
    Host(Vec<T>),
    Dev(Array<T>),
}

impl<T: RealFloat> Out<T> {
    fn new(y: &Array<T>) -> Result<Self> {
        Ok(match y.backend() {
            Backend::Host(_) => Out::Host(vec![<T as Element>::zero(); y.size()]),
            Backend::Cuda(_) => Out::Dev(Array::empty(y.shape(), y.device())?),
        })
    }
    fn finish(self, y: &Array<T>) -> Result<Array<T>> {
        match self {
            Out::Host(v) => Array::from_vec(v, y.shape(), y.device()),
            Out::Dev(a) => Ok(a),
        }
    }
}

/// Runs the plan on signals `b0 .. b0 + count` of `y` (`[batch, n]` contiguous) into `x`;
/// returns their REML residuals `r²`.
#[allow(clippy::too_many_arguments)]
fn solve<T: RealFloat>(
    ctx: &Ctx,
    plan: &Plan,
    lamb: f64,
    y: &Array<T>,
    wdev: &Array<f64>,
    x: &mut Out<T>,
    b0: usize,
    count: usize,
) -> Result<Vec<f64>> {
    let (n, p) = (ctx.n, ctx.p);
    match (y.backend(), x) {
        (Backend::Host(_), Out::Host(xv)) => {
            let ys = host_elems(y)?;
            let r2: Vec<f64> = xv[b0 * n..(b0 + count) * n]
                .par_chunks_mut(n)
                .zip(ys[b0 * n..(b0 + count) * n].par_chunks(n))
                .map(|(xo, yi)| {
                    let z = solve_one(ctx, plan, yi);
                    for (o, v) in xo.iter_mut().zip(&z) {
                        *o = from_f64(*v);
                    }
                    residual(ctx, lamb, yi, &z)
                })
                .collect();
            Ok(r2)
        }
        (Backend::Cuda(c), Out::Dev(x)) => {
            let d = c.dev();
            let dev = y.device();
            let a = Array::from_vec(plan.a.clone(), &[plan.a.len()], dev)?;
            let u = Array::from_vec(plan.u.clone(), &[plan.u.len()], dev)?;
            let mut z = Array::<f64>::empty(&[y.size()], dev)?;
            let mut r2 = Array::<f64>::empty(&[count], dev)?;
            let f = typed_kernel(&WHITTAKER, d, T::DTYPE, "wh_solve")?;
            d.launch(&f, LaunchConfig::cover(count, 64)?)
                .arg(y.dev_ptr()?)
                .arg(wdev.dev_ptr()?)
                .arg(a.dev_ptr()?)
                .arg(u.dev_ptr()?)
                .arg(x.dev_ptr_mut()?)
                .arg(z.dev_ptr_mut()?)
                .arg(r2.dev_ptr_mut()?)
                .arg(b0 as i64)
                .arg(count as i64)
                .arg(n as i64)
                .arg(p as i32)
                .arg(plan.mode)
                .arg(lamb)
                .run()?;
            r2.to_vec()
        }
        _ => Err(make::arg(
            "whittaker_henderson",
            "internal: output on another device",
        )),
    }
}

/// The CPU form of `wh_solve` for one signal (the same operations in the same order).
fn solve_one<T: RealFloat>(ctx: &Ctx, plan: &Plan, y: &[T]) -> Vec<f64> {
    let (n, p) = (ctx.n, ctx.p);
    let yv = |i: usize| y[i].to_f64();
    let mut z = vec![0.0f64; n];
    if plan.mode == 0 {
        let pw = p + 1;
        let lb = &plan.a;
        for i in 0..n {
            let wi = ctx.w[i];
            let mut s = if wi == 0.0 { 0.0 } else { wi * yv(i) };
            for k in 1..=i.min(p) {
                s -= lb[i * pw + k] * z[i - k];
            }
            z[i] = s / lb[i * pw];
        }
        for i in (0..n).rev() {
            let mut s = z[i];
            for k in 1..=(n - 1 - i).min(p) {
                s -= lb[(i + k) * pw + k] * z[i + k];
            }
            z[i] = s / lb[i * pw];
        }
    } else {
        for k in 0..p {
            let mut s = 0.0;
            for i in 0..n {
                let q = plan.a[i * p + k];
                if q != 0.0 {
                    s += q * yv(i);
                }
            }
            for i in 0..n {
                z[i] += plan.u[i * p + k] * s;
            }
        }
    }
    z
}

fn residual<T: RealFloat>(ctx: &Ctx, lamb: f64, y: &[T], z: &[f64]) -> f64 {
    let (n, p) = (ctx.n, ctx.p);
    let mut rr = 0.0;
    for i in 0..n {
        let wi = ctx.w[i];
        if wi != 0.0 {
            let d = y[i].to_f64() - z[i];
            rr += wi * d * d;
        }
    }
    let mut pen = 0.0;
    for i in 0..n - p {
        let (mut c, mut d) = (1.0f64, 0.0f64);
        for m in (0..=p).rev() {
            d += if (p - m) % 2 == 1 { -c } else { c } * z[i + m];
            c = c * m as f64 / (p - m + 1) as f64;
        }
        pen += d * d;
    }
    rr + lamb * pen
}

/// SciPy's `minimize_scalar(f, bracket=[-10, 10])`: `optimize.bracket` then Brent's method
/// (tol 1.48e-8, 500 iterations), returning the minimiser.
fn minimize(f: &mut dyn FnMut(f64) -> Result<f64>) -> Result<f64> {
    const GOLD: f64 = 1.618034;
    const SMALL: f64 = 1e-21;
    let (mut xa, mut xb) = (-10.0f64, 10.0f64);
    let (mut fa, mut fb) = (f(xa)?, f(xb)?);
    if fa < fb {
        std::mem::swap(&mut xa, &mut xb);
        std::mem::swap(&mut fa, &mut fb);
    }
    let mut xc = xb + GOLD * (xb - xa);
    let mut fc = f(xc)?;
    let mut iter = 0;
    while fc < fb {
        let tmp1 = (xb - xa) * (fb - fc);
        let tmp2 = (xb - xc) * (fb - fa);
        let val = tmp2 - tmp1;
        let denom = if val.abs() < SMALL {
            2.0 * SMALL
        } else {
            2.0 * val
        };
        let mut w = xb - ((xb - xc) * tmp2 - (xb - xa) * tmp1) / denom;
        let wlim = xb + 110.0 * (xc - xb);
        if iter > 1000 {
            break;
        }
        iter += 1;
        let fw;
        if (w - xc) * (xb - w) > 0.0 {
            let fw0 = f(w)?;
            if fw0 < fc {
                xa = xb;
                xb = w;
                fa = fb;
                fb = fw0;
                break;
            } else if fw0 > fb {
                xc = w;
                fc = fw0;
                break;
            }
            w = xc + GOLD * (xc - xb);
            fw = f(w)?;
        } else if (w - wlim) * (wlim - xc) >= 0.0 {
            w = wlim;
            fw = f(w)?;
        } else if (w - wlim) * (xc - w) > 0.0 {
            let fw0 = f(w)?;
            if fw0 < fc {
                xb = xc;
                xc = w;
                w = xc + GOLD * (xc - xb);
                fb = fc;
                fc = fw0;
                fw = f(w)?;
            } else {
                fw = fw0;
            }
        } else {
            w = xc + GOLD * (xc - xb);
            fw = f(w)?;
        }
        xa = xb;
        xb = xc;
        xc = w;
        fa = fb;
        fb = fc;
        fc = fw;
    }
    let cond1 = (fb < fc && fb <= fa) || (fb < fa && fb <= fc);
    let cond2 = (xa < xb && xb < xc) || (xc < xb && xb < xa);
    let cond3 = xa.is_finite() && xb.is_finite() && xc.is_finite();
    if !(cond1 && cond2 && cond3) {
        return Err(Error::NoConvergence {
            op: "whittaker_henderson (REML: no bracket of a minimum of the criterion)".into(),
            iterations: iter,
            residual: fb,
        });
    }
    // Brent
    const CG: f64 = 0.381_966_0;
    const MINTOL: f64 = 1.0e-11;
    let tol = 1.48e-8;
    let (mut x, mut w, mut v) = (xb, xb, xb);
    let (mut fx, mut fw, mut fv) = (fb, fb, fb);
    let (mut a, mut b) = if xa < xc { (xa, xc) } else { (xc, xa) };
    let mut deltax: f64 = 0.0;
    let mut rat: f64 = 0.0;
    for _ in 0..500 {
        let tol1 = tol * x.abs() + MINTOL;
        let tol2 = 2.0 * tol1;
        let xmid = 0.5 * (a + b);
        if (x - xmid).abs() < tol2 - 0.5 * (b - a) {
            break;
        }
        if deltax.abs() <= tol1 {
            deltax = if x >= xmid { a - x } else { b - x };
            rat = CG * deltax;
        } else {
            let tmp1 = (x - w) * (fx - fv);
            let mut tmp2 = (x - v) * (fx - fw);
            let mut pp = (x - v) * tmp2 - (x - w) * tmp1;
            tmp2 = 2.0 * (tmp2 - tmp1);
            if tmp2 > 0.0 {
                pp = -pp;
            }
            tmp2 = tmp2.abs();
            let dx_temp = deltax;
            deltax = rat;
            if pp > tmp2 * (a - x) && pp < tmp2 * (b - x) && pp.abs() < (0.5 * tmp2 * dx_temp).abs()
            {
                rat = pp / tmp2;
                let u = x + rat;
                if (u - a) < tol2 || (b - u) < tol2 {
                    rat = if xmid - x >= 0.0 { tol1 } else { -tol1 };
                }
            } else {
                deltax = if x >= xmid { a - x } else { b - x };
                rat = CG * deltax;
            }
        }
        let u = if rat.abs() < tol1 {
            if rat >= 0.0 {
                x + tol1
            } else {
                x - tol1
            }
        } else {
            x + rat
        };
        let fu = f(u)?;
        if fu > fx {
            if u < x {
                a = u;
            } else {
                b = u;
            }
            if fu <= fw || w == x {
                v = w;
                w = u;
                fv = fw;
                fw = fu;
            } else if fu <= fv || v == x || v == w {
                v = u;
                fv = fu;
            }
        } else {
            if u >= x {
                a = x;
            } else {
                b = x;
            }
            v = w;
            w = x;
            x = u;
            fv = fw;
            fw = fx;
            fx = fu;
        }
    }
    Ok(x)
}
