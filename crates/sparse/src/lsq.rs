//! `lsqr` and `lsmr` on the solver engine ([`crate::krylov`]): the vector steps are the engine's,
//! the scalar recurrences (Givens rotations, norm estimates, stopping tests) are single-thread
//! kernels of `cuda/solvers.cu` on a GPU and the functions below on the CPU (the same formulas in
//! the same order, in f64, stored in the element type). `minres` (in `minres.rs`) shares the
//! scalar helpers here.

use crate::krylov::{self, slots, Engine};
use crate::linalg::LinearOperator;
use cusci_core::error::make;
use cusci_core::{Array, Float, RealFloat, Result};

/// The scalar slots seen as f64 (real parts), written back as `T`.
pub(crate) struct Sl<'a, T: Float>(pub(crate) &'a mut [T]);

impl<T: Float> Sl<'_, T> {
    pub(crate) fn g(&self, k: usize) -> f64 {
        self.0[k].re().to_f64()
    }
    pub(crate) fn p(&mut self, k: usize, v: f64) {
        self.0[k] = krylov::re(v);
    }
    /// Each (slot, value) of `kv`, in order.
    pub(crate) fn put(&mut self, kv: &[(usize, f64)]) {
        for &(k, v) in kv {
            self.p(k, v);
        }
    }
}

fn sign(a: f64) -> f64 {
    if a > 0.0 {
        1.0
    } else if a < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// SciPy's `_sym_ortho`: `(c, s, r)` with `[c s; -s c] [a; b] = [r; 0]`, stable.
fn sym_ortho(a: f64, b: f64) -> (f64, f64, f64) {
    if b == 0.0 {
        return (sign(a), 0.0, a.abs());
    }
    if a == 0.0 {
        return (0.0, sign(b), b.abs());
    }
    if b.abs() > a.abs() {
        let tau = a / b;
        let s = sign(b) / (1.0 + tau * tau).sqrt();
        let c = s * tau;
        (c, s, b / s)
    } else {
        let tau = b / a;
        let c = sign(a) / (1.0 + tau * tau).sqrt();
        let s = c * tau;
        (c, s, a / c)
    }
}

// ---------------- lsqr and lsmr ----------------
// the scalar slots (the enums of solvers.cu): both solvers' first, then lsqr's (QR_) or lsmr's
// (M2_); QR_N and M2_N are the slot counts
slots!(
    0;
    LS_ALFA, LS_BETA, LS_DOTU, LS_DOTV, LS_INVB, LS_MB, LS_INVA, LS_NALFA, LS_ISTOP, LS_DOTW,
    LS_ANORM
);

slots!(
    LS_ANORM + 1;
    QR_RHOBAR, QR_PHIBAR, QR_DDNORM, QR_RES2, QR_XNORM, QR_XXNORM, QR_Z, QR_CS2, QR_SN2, QR_T1,
    QR_T2, QR_ACOND, QR_ARNORM, QR_R1NORM, QR_R2NORM, QR_RNORM, QR_N
);

slots!(
    LS_ANORM + 1;
    M2_ZETABAR, M2_ALPHABAR, M2_RHO, M2_RHOBAR, M2_CBAR, M2_SBAR, M2_BETADD, M2_BETAD,
    M2_RHODOLD, M2_TAUTILDEOLD, M2_THETATILDE, M2_ZETA, M2_D, M2_NORMA2, M2_MAXRBAR,
    M2_MINRBAR, M2_NORMA, M2_CONDA, M2_NORMX, M2_NORMR, M2_NORMAR, M2_CH, M2_CX, M2_CHH, M2_N
);

fn ls_nalfa<T: Float>(s: &mut [T], f: &mut [i32; 4]) {
    if f[0] != 0 {
        return;
    }
    let mut s = Sl(s);
    s.p(LS_NALFA, -s.g(LS_ALFA));
}

fn ls_beta<T: Float>(s: &mut [T], f: &mut [i32; 4], upd_anorm: bool, dampsq: f64) {
    if f[0] != 0 {
        return;
    }
    let mut s = Sl(s);
    let beta = s.g(LS_DOTU).sqrt();
    s.p(LS_BETA, beta);
    if beta > 0.0 {
        s.p(LS_INVB, 1.0 / beta);
        s.p(LS_MB, -beta);
        if upd_anorm {
            let (a, alfa) = (s.g(LS_ANORM), s.g(LS_ALFA));
            s.p(
                LS_ANORM,
                (a * a + alfa * alfa + beta * beta + dampsq).sqrt(),
            );
        }
    } else {
        s.p(LS_INVB, 1.0);
        s.p(LS_MB, 1.0);
    }
}

fn ls_alfa<T: Float>(s: &mut [T], f: &mut [i32; 4]) {
    if f[0] != 0 {
        return;
    }
    let mut s = Sl(s);
    if s.g(LS_BETA) > 0.0 {
        let alfa = s.g(LS_DOTV).sqrt();
        s.p(LS_ALFA, alfa);
        s.p(LS_INVA, if alfa > 0.0 { 1.0 / alfa } else { 1.0 });
    } else {
        s.p(LS_INVA, 1.0);
    }
}

fn ls_flag<T: Float>(s: &mut [T], f: &mut [i32; 4], itn: usize) {
    if f[0] != 0 {
        return;
    }
    let istop = s[LS_ISTOP].re().to_f64() as i32;
    if istop != 0 {
        f[0] = 100 + istop;
        f[1] = itn as i32;
    }
}

/// The stopping parameters of lsqr/lsmr (host values passed to the kernels).
#[derive(Clone, Copy)]
struct Stop {
    damp: f64,
    atol: f64,
    btol: f64,
    ctol: f64,
    bnorm: f64,
}

/// The loop of lsqr and lsmr: iterations 1, 2, ... of `step` until `limit` or the status word
/// is set. Returns `istop` (0 when it ran out of iterations), the iteration it stopped at, and
/// the scalar slots.
fn iterate<T: Float>(
    e: &mut Engine<T>,
    limit: usize,
    mut step: impl FnMut(&mut Engine<T>, usize) -> Result<()>,
) -> Result<(i32, usize, Vec<f64>)> {
    let mut itn = 0;
    while itn < limit {
        itn += 1;
        step(e, itn)?;
        if e.poll(itn)? {
            break;
        }
    }
    let (code, at) = e.status()?;
    let (istop, itn) = if code > 100 {
        (code - 100, at)
    } else {
        (0, itn)
    };
    Ok((istop, itn, e.scalars()?))
}

/// The stopping reason of lsqr and lsmr (SciPy's `istop`, 0 to go on) at iteration `itn` of
/// `limit`, from the tests (‖r‖/‖b‖, the normal equations, 1/cond, the relative residual) and
/// `rtol`: the last test that holds wins.
fn stop_reason(itn: usize, limit: usize, tests: [f64; 4], rtol: f64, p: Stop) -> i32 {
    let [test1, test2, test3, t1] = tests;
    let mut istop = 0;
    if itn >= limit {
        istop = 7;
    }
    if 1.0 + test3 <= 1.0 {
        istop = 6;
    }
    if 1.0 + test2 <= 1.0 {
        istop = 5;
    }
    if 1.0 + t1 <= 1.0 {
        istop = 4;
    }
    if test3 <= p.ctol {
        istop = 3;
    }
    if test2 <= p.atol {
        istop = 2;
    }
    if test1 <= rtol {
        istop = 1;
    }
    istop
}

fn lsqr_rot<T: Float>(s: &mut [T], f: &mut [i32; 4], itn: usize, iter_lim: usize, p: Stop) {
    if f[0] != 0 {
        return;
    }
    let eps = f64::EPSILON;
    let mut s = Sl(s);
    let (alfa, beta, anorm) = (s.g(LS_ALFA), s.g(LS_BETA), s.g(LS_ANORM));
    let (mut rhobar, mut phibar) = (s.g(QR_RHOBAR), s.g(QR_PHIBAR));
    let damp = p.damp;
    let dampsq = damp * damp;
    let (rhobar1, psi) = if damp > 0.0 {
        let rhobar1 = (rhobar * rhobar + dampsq).sqrt();
        let (cs1, sn1) = (rhobar / rhobar1, damp / rhobar1);
        let psi = sn1 * phibar;
        phibar *= cs1;
        (rhobar1, psi)
    } else {
        (rhobar, 0.0)
    };
    let (cs, sn, rho) = sym_ortho(rhobar1, beta);
    let theta = sn * alfa;
    rhobar = -cs * alfa;
    let phi = cs * phibar;
    phibar *= sn;
    let tau = sn * phi;
    let (t1, t2) = (phi / rho, -theta / rho);
    let ddnorm = s.g(QR_DDNORM) + s.g(LS_DOTW) / (rho * rho);
    let delta = s.g(QR_SN2) * rho;
    let gambar = -s.g(QR_CS2) * rho;
    let rhs = phi - delta * s.g(QR_Z);
    let zbar = rhs / gambar;
    let mut xxnorm = s.g(QR_XXNORM);
    let xnorm = (xxnorm + zbar * zbar).sqrt();
    let gamma = (gambar * gambar + theta * theta).sqrt();
    let (cs2, sn2) = (gambar / gamma, theta / gamma);
    let z = rhs / gamma;
    xxnorm += z * z;
    let acond = anorm * ddnorm.sqrt();
    let res1 = phibar * phibar;
    let res2 = s.g(QR_RES2) + psi * psi;
    let rnorm = (res1 + res2).sqrt();
    let arnorm = alfa * tau.abs();
    let r1sq = rnorm * rnorm - dampsq * xxnorm;
    let mut r1norm = r1sq.abs().sqrt();
    if r1sq < 0.0 {
        r1norm = -r1norm;
    }
    let test1 = rnorm / p.bnorm;
    let test2 = arnorm / (anorm * rnorm + eps);
    let test3 = 1.0 / (acond + eps);
    let tt1 = test1 / (1.0 + anorm * xnorm / p.bnorm);
    let rtol = p.btol + p.atol * anorm * xnorm / p.bnorm;
    let istop = stop_reason(itn, iter_lim, [test1, test2, test3, tt1], rtol, p);
    s.put(&[
        (QR_RHOBAR, rhobar),
        (QR_PHIBAR, phibar),
        (QR_DDNORM, ddnorm),
        (QR_RES2, res2),
        (QR_XNORM, xnorm),
        (QR_XXNORM, xxnorm),
        (QR_Z, z),
        (QR_CS2, cs2),
        (QR_SN2, sn2),
        (QR_T1, t1),
        (QR_T2, t2),
        (QR_ACOND, acond),
        (QR_ARNORM, arnorm),
        (QR_R1NORM, r1norm),
        (QR_R2NORM, rnorm),
        (QR_RNORM, rnorm),
        (LS_ISTOP, istop as f64),
    ]);
}

fn lsmr_rot<T: Float>(s: &mut [T], f: &mut [i32; 4], itn: usize, damp: f64) {
    if f[0] != 0 {
        return;
    }
    let mut s = Sl(s);
    let (alpha, beta) = (s.g(LS_ALFA), s.g(LS_BETA));
    let (chat, shat, alphahat) = sym_ortho(s.g(M2_ALPHABAR), damp);
    let rhoold = s.g(M2_RHO);
    let (c, sn, rho) = sym_ortho(alphahat, beta);
    let thetanew = sn * alpha;
    let alphabar = c * alpha;
    let rhobarold = s.g(M2_RHOBAR);
    let zetaold = s.g(M2_ZETA);
    let (cbar0, sbar0) = (s.g(M2_CBAR), s.g(M2_SBAR));
    let thetabar = sbar0 * rho;
    let rhotemp = cbar0 * rho;
    let (cbar, sbar, rhobar) = sym_ortho(cbar0 * rho, thetanew);
    let zetabar0 = s.g(M2_ZETABAR);
    let zeta = cbar * zetabar0;
    let zetabar = -sbar * zetabar0;
    s.p(M2_CH, -(thetabar * rho / (rhoold * rhobarold)));
    s.p(M2_CX, zeta / (rho * rhobar));
    s.p(M2_CHH, -(thetanew / rho));
    let betadd0 = s.g(M2_BETADD);
    let betaacute = chat * betadd0;
    let betacheck = -shat * betadd0;
    let betahat = c * betaacute;
    let betadd = -sn * betaacute;
    let thetatildeold = s.g(M2_THETATILDE);
    let (ctildeold, stildeold, rhotildeold) = sym_ortho(s.g(M2_RHODOLD), thetabar);
    let thetatilde = stildeold * rhobar;
    let rhodold = ctildeold * rhobar;
    let betad = -stildeold * s.g(M2_BETAD) + ctildeold * betahat;
    let tautildeold = (zetaold - thetatildeold * s.g(M2_TAUTILDEOLD)) / rhotildeold;
    let taud = (zeta - thetatilde * tautildeold) / rhodold;
    let d = s.g(M2_D) + betacheck * betacheck;
    let normr = (d + (betad - taud) * (betad - taud) + betadd * betadd).sqrt();
    let mut norma2 = s.g(M2_NORMA2) + beta * beta;
    let norma = norma2.sqrt();
    norma2 += alpha * alpha;
    let maxrbar = s.g(M2_MAXRBAR).max(rhobarold);
    let mut minrbar = s.g(M2_MINRBAR);
    if itn > 1 {
        minrbar = minrbar.min(rhobarold);
    }
    let conda = maxrbar.max(rhotemp) / minrbar.min(rhotemp);
    s.put(&[
        (M2_ALPHABAR, alphabar),
        (M2_RHO, rho),
        (M2_RHOBAR, rhobar),
        (M2_CBAR, cbar),
        (M2_SBAR, sbar),
        (M2_ZETA, zeta),
        (M2_ZETABAR, zetabar),
        (M2_BETADD, betadd),
        (M2_THETATILDE, thetatilde),
        (M2_RHODOLD, rhodold),
        (M2_BETAD, betad),
        (M2_TAUTILDEOLD, tautildeold),
        (M2_D, d),
        (M2_NORMR, normr),
        (M2_NORMA2, norma2),
        (M2_NORMA, norma),
        (M2_MAXRBAR, maxrbar),
        (M2_MINRBAR, minrbar),
        (M2_CONDA, conda),
        (M2_NORMAR, zetabar.abs()),
    ]);
}

fn lsmr_test<T: Float>(s: &mut [T], f: &mut [i32; 4], itn: usize, maxiter: usize, p: Stop) {
    if f[0] != 0 {
        return;
    }
    let mut s = Sl(s);
    let normx = s.g(LS_DOTW).sqrt();
    let (normr, norma, normar) = (s.g(M2_NORMR), s.g(M2_NORMA), s.g(M2_NORMAR));
    let test1 = normr / p.bnorm;
    let test2 = if norma * normr != 0.0 {
        normar / (norma * normr)
    } else {
        f64::INFINITY
    };
    let test3 = 1.0 / s.g(M2_CONDA);
    let t1 = test1 / (1.0 + norma * normx / p.bnorm);
    let rtol = p.btol + p.atol * norma * normx / p.bnorm;
    let istop = stop_reason(itn, maxiter, [test1, test2, test3, t1], rtol, p);
    s.p(M2_NORMX, normx);
    s.p(LS_ISTOP, istop as f64);
    if istop > 0 {
        f[0] = 100 + istop;
        f[1] = itn as i32;
    }
}

/// Options of [`lsqr`] and [`lsmr`] (SciPy's keyword arguments).
#[derive(Clone, Copy)]
pub struct LsqOptions<'a, T: Float> {
    /// Damping: minimise `‖A x − b‖² + damp² ‖x‖²` (default 0).
    pub damp: f64,
    /// Stopping tolerance on `‖Aᴴ r‖ / (‖A‖ ‖r‖)` and on the relative residual (default 1e-6).
    pub atol: f64,
    /// Stopping tolerance on `‖r‖ / ‖b‖` (default 1e-6).
    pub btol: f64,
    /// Stop when the condition estimate passes it (default 1e8; 0 means no limit).
    pub conlim: f64,
    /// Iteration limit (SciPy's `iter_lim` of lsqr, default 2·n; `maxiter` of lsmr, default
    /// min(m, n)).
    pub maxiter: Option<usize>,
    /// Starting guess (default zeros).
    pub x0: Option<&'a Array<T>>,
}

impl<T: Float> Default for LsqOptions<'_, T> {
    fn default() -> Self {
        LsqOptions {
            damp: 0.0,
            atol: 1e-6,
            btol: 1e-6,
            conlim: 1e8,
            maxiter: None,
            x0: None,
        }
    }
}

/// The result of [`lsqr`] (SciPy's tuple without `var`).
#[derive(Debug, Clone)]
pub struct LsqrResult<T: Float> {
    /// The solution.
    pub x: Array<T>,
    /// Why it stopped (SciPy's codes: 0 `x = 0` is exact, 1 `Ax = b` to `atol`/`btol`, 2 a
    /// least-squares solution to `atol`, 3 `cond(A) > conlim`, 4–6 as 1–3 at machine
    /// precision, 7 the iteration limit).
    pub istop: i32,
    /// Iterations run.
    pub itn: usize,
    /// `‖b − A x‖`.
    pub r1norm: f64,
    /// `sqrt(‖b − A x‖² + damp² ‖x‖²)`.
    pub r2norm: f64,
    /// Estimate of the Frobenius norm of `[A; damp·I]`.
    pub anorm: f64,
    /// Estimate of `cond([A; damp·I])`.
    pub acond: f64,
    /// Estimate of `‖Aᴴ r − damp² x‖`.
    pub arnorm: f64,
    /// `‖x‖`.
    pub xnorm: f64,
}

/// The result of [`lsmr`] (SciPy's tuple).
#[derive(Debug, Clone)]
pub struct LsmrResult<T: Float> {
    /// The solution.
    pub x: Array<T>,
    /// Why it stopped (codes as [`LsqrResult::istop`]).
    pub istop: i32,
    /// Iterations run.
    pub itn: usize,
    /// `‖b − A x‖`.
    pub normr: f64,
    /// `‖Aᴴ (b − A x)‖`.
    pub normar: f64,
    /// Estimate of the Frobenius norm of `A`.
    pub norma: f64,
    /// Estimate of `cond(A)`.
    pub conda: f64,
    /// `‖x‖`.
    pub normx: f64,
}

fn check_lsq<T: Float>(
    op: &str,
    a: &dyn LinearOperator<T>,
    b: &Array<T>,
    opts: &LsqOptions<T>,
) -> Result<(usize, usize)> {
    let (m, n) = a.shape();
    if b.ndim() != 1 || b.len() != m {
        return Err(make::shape(
            op,
            format!(
                "b of shape {:?} for an operator of shape ({m}, {n})",
                b.shape()
            ),
        ));
    }
    if let Some(x0) = opts.x0 {
        cusci_core::array::check_same_device(op, b.device(), x0.device())?;
        if x0.shape() != [n] {
            return Err(make::shape(
                op,
                format!("x0 of shape {:?} for n = {n}", x0.shape()),
            ));
        }
    }
    for (name, v) in [
        ("damp", opts.damp),
        ("atol", opts.atol),
        ("btol", opts.btol),
        ("conlim", opts.conlim),
    ] {
        if v.is_nan() || v < 0.0 {
            return Err(make::arg(op, format!("{name} must be non-negative")));
        }
    }
    Ok((m, n))
}

// vectors of lsqr/lsmr
const X: usize = 0;
const U: usize = 1;
const V: usize = 2;
const TM: usize = 3;
const TN: usize = 4;

/// The start of the Golub–Kahan bidiagonalisation shared by lsqr and lsmr: `u = b − A x0`,
/// `β = ‖u‖`, `u /= β`, `v = Aᴴ u`, `α = ‖v‖`, `v /= α`. Returns (α, β) read on the host.
fn bidiag_start<T: Float>(
    e: &mut Engine<T>,
    a: &dyn LinearOperator<T>,
    b: &Array<T>,
    x0: Option<&Array<T>>,
) -> Result<(f64, f64)> {
    e.load(U, b)?;
    if let Some(x0) = x0 {
        e.load(X, x0)?;
        e.apply(a, X, TM)?;
        e.sub(U, U, TM)?;
    }
    bidiag_step(e, a, false, 0.0)?;
    let s = e.scalars()?;
    Ok((s[LS_ALFA], s[LS_BETA]))
}

/// One step `u = A v − α u; β = ‖u‖; u /= β; v = Aᴴ u − β v; α = ‖v‖; v /= α` (with SciPy's
/// guards for β = 0 and α = 0; at the start `u` holds `b` and `v`, `α` are zero).
fn bidiag_step<T: Float>(
    e: &mut Engine<T>,
    a: &dyn LinearOperator<T>,
    upd_anorm: bool,
    dampsq: f64,
) -> Result<()> {
    e.dot(U, U, LS_DOTU)?;
    e.step("sl_ls_beta", &[upd_anorm as i32], &[dampsq], |s, f| {
        ls_beta(s, f, upd_anorm, dampsq)
    })?;
    e.scal(U, LS_INVB)?;
    e.scal(V, LS_MB)?;
    e.rapply(a, U, TN)?;
    e.add(V, V, TN)?;
    e.dot(V, V, LS_DOTV)?;
    e.step("sl_ls_alfa", &[], &[], ls_alfa)?;
    e.scal(V, LS_INVA)
}

/// `u = A v − α u` (the first half of a step, before [`bidiag_step`]).
fn bidiag_u<T: Float>(e: &mut Engine<T>, a: &dyn LinearOperator<T>) -> Result<()> {
    e.step("sl_ls_nalfa", &[], &[], ls_nalfa)?;
    e.scal(U, LS_NALFA)?;
    e.apply(a, V, TM)?;
    e.add(U, U, TM)
}

fn stop_params(opts: &LsqOptions<impl Float>, bnorm: f64) -> Stop {
    Stop {
        damp: opts.damp,
        atol: opts.atol,
        btol: opts.btol,
        ctol: if opts.conlim > 0.0 {
            1.0 / opts.conlim
        } else {
            0.0
        },
        bnorm,
    }
}

fn as_i32(v: usize) -> i32 {
    v.min(i32::MAX as usize) as i32
}

/// Least squares by LSQR (SciPy's `lsqr`, Paige–Saunders, the same iteration and stopping
/// rules): minimises `‖A x − b‖² + damp² ‖x‖²` for any `m × n` operator `A` (matvec and
/// rmatvec). `calc_var` is not offered. On a GPU the vectors and every scalar of the recurrence
/// stay on the device; the host reads `α, β` once at the start and the status every
/// [`POLL`](crate::linalg::POLL) iterations.
///
/// ```
/// use cusci_sparse::{CsrMatrix, Device, Array, linalg::{lsqr, LsqOptions}};
/// let dev = Device::Cpu;
/// let a = CsrMatrix::from_dense(&Array::from_vec(vec![1.0, 0.0, 1.0, 1.0, 1.0, 2.0], &[3, 2], &dev)?)?;
/// let b = Array::from_vec(vec![1.0, 2.0, 2.0], &[3], &dev)?;
/// let r = lsqr(&a, &b, &LsqOptions { atol: 1e-12, btol: 1e-12, ..Default::default() })?;
/// let x: Vec<f64> = r.x.to_vec()?; // the normal equations' solution (7/6, 1/2)
/// assert!((x[0] - 7.0 / 6.0).abs() < 1e-9 && (x[1] - 0.5).abs() < 1e-9);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a `b` of length ≠ m or an `x0` of length ≠ n, `InvalidArgument` for a
/// negative or NaN `damp`/`atol`/`btol`/`conlim`, `DeviceMismatch`, and the operator's errors
/// (a [`LinearOperator`] without `rmatvec` gives `NotImplemented`).
pub fn lsqr<T: Float>(
    a: &dyn LinearOperator<T>,
    b: &Array<T>,
    opts: &LsqOptions<T>,
) -> Result<LsqrResult<T>> {
    let (m, n) = check_lsq("lsqr", a, b, opts)?;
    let iter_lim = opts.maxiter.unwrap_or(2 * n);
    let b = b.contiguous()?;
    let bnorm = b.norm()?.to_f64();
    const W: usize = 5;
    let mut e = Engine::<T>::with_lens(b.device(), &[n, m, n, m, n, n], QR_N)?;
    let (alfa, beta) = bidiag_start(&mut e, a, &b, opts.x0)?;
    if alfa * beta == 0.0 {
        return Ok(LsqrResult {
            x: e.get(X)?,
            istop: 0,
            itn: 0,
            r1norm: beta,
            r2norm: beta,
            anorm: 0.0,
            acond: 0.0,
            arnorm: 0.0,
            xnorm: 0.0,
        });
    }
    e.copy(W, V)?;
    for (k, v) in [(QR_RHOBAR, alfa), (QR_PHIBAR, beta), (QR_CS2, -1.0)] {
        e.set_scalar(k, krylov::re(v))?;
    }
    let p = stop_params(opts, bnorm);
    let dampsq = opts.damp * opts.damp;
    let one = T::one();
    let (istop, itn, s) = iterate(&mut e, iter_lim, |e, itn| {
        bidiag_u(e, a)?;
        bidiag_step(e, a, true, dampsq)?;
        e.dot(W, W, LS_DOTW)?;
        e.step(
            "sl_lsqr_rot",
            &[itn as i32, as_i32(iter_lim)],
            &[p.damp, p.atol, p.btol, p.ctol, p.bnorm, f64::EPSILON],
            |s, f| lsqr_rot(s, f, itn, iter_lim, p),
        )?;
        e.axpy(X, W, Some(QR_T1), one)?;
        e.scal(W, QR_T2)?;
        e.add(W, W, V)?;
        e.step("sl_ls_flag", &[itn as i32], &[], |s, f| ls_flag(s, f, itn))
    })?;
    Ok(LsqrResult {
        x: e.get(X)?,
        istop,
        itn,
        r1norm: s[QR_R1NORM],
        r2norm: s[QR_R2NORM],
        anorm: s[LS_ANORM],
        acond: s[QR_ACOND],
        arnorm: s[QR_ARNORM],
        xnorm: s[QR_XNORM],
    })
}

/// Least squares by LSMR (SciPy's `lsmr`, Fong–Saunders, the same iteration and stopping
/// rules): minimises `‖A x − b‖² + damp² ‖x‖²` for any `m × n` operator; `‖Aᴴ r‖` decreases
/// monotonically, so it often stops earlier than [`lsqr`]. `maxiter` defaults to min(m, n). On
/// a GPU the state stays on the device as in [`lsqr`].
///
/// ```
/// use cusci_sparse::{CsrMatrix, Device, Array, linalg::{lsmr, LsqOptions}};
/// let dev = Device::Cpu;
/// let a = CsrMatrix::from_dense(&Array::from_vec(vec![1.0, 0.0, 1.0, 1.0, 1.0, 2.0], &[3, 2], &dev)?)?;
/// let b = Array::from_vec(vec![1.0, 2.0, 2.0], &[3], &dev)?;
/// let r = lsmr(&a, &b, &LsqOptions { atol: 1e-12, btol: 1e-12, ..Default::default() })?;
/// let x: Vec<f64> = r.x.to_vec()?;
/// assert!((x[0] - 7.0 / 6.0).abs() < 1e-9 && (x[1] - 0.5).abs() < 1e-9);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`lsqr`].
pub fn lsmr<T: Float>(
    a: &dyn LinearOperator<T>,
    b: &Array<T>,
    opts: &LsqOptions<T>,
) -> Result<LsmrResult<T>> {
    let (m, n) = check_lsq("lsmr", a, b, opts)?;
    let maxiter = opts.maxiter.unwrap_or(m.min(n));
    let b = b.contiguous()?;
    let normb = b.norm()?.to_f64();
    const H: usize = 5;
    const HBAR: usize = 6;
    let mut e = Engine::<T>::with_lens(b.device(), &[n, m, n, m, n, n, n], M2_N)?;
    let (alpha, beta) = bidiag_start(&mut e, a, &b, opts.x0)?;
    let early = |x: Array<T>| LsmrResult {
        x,
        istop: 0,
        itn: 0,
        normr: beta,
        normar: alpha * beta,
        norma: alpha,
        conda: 1.0,
        normx: 0.0,
    };
    if alpha * beta == 0.0 {
        return Ok(early(e.get(X)?));
    }
    if normb == 0.0 {
        return Ok(early(Array::<T>::zeros(&[n], b.device())?));
    }
    e.copy(H, V)?;
    for (k, v) in [
        (M2_ZETABAR, alpha * beta),
        (M2_ALPHABAR, alpha),
        (M2_RHO, 1.0),
        (M2_RHOBAR, 1.0),
        (M2_CBAR, 1.0),
        (M2_BETADD, beta),
        (M2_RHODOLD, 1.0),
        (M2_NORMA2, alpha * alpha),
        (M2_MINRBAR, 1e100),
        (M2_NORMA, alpha),
        (M2_CONDA, 1.0),
        (M2_NORMR, beta),
        (M2_NORMAR, alpha * beta),
    ] {
        e.set_scalar(k, krylov::re(v))?;
    }
    let p = stop_params(opts, normb);
    let one = T::one();
    let (istop, itn, s) = iterate(&mut e, maxiter, |e, itn| {
        bidiag_u(e, a)?;
        bidiag_step(e, a, false, 0.0)?;
        e.step("sl_lsmr_rot", &[itn as i32], &[p.damp], |s, f| {
            lsmr_rot(s, f, itn, p.damp)
        })?;
        e.scal(HBAR, M2_CH)?;
        e.add(HBAR, HBAR, H)?;
        e.axpy(X, HBAR, Some(M2_CX), one)?;
        e.scal(H, M2_CHH)?;
        e.add(H, H, V)?;
        e.dot(X, X, LS_DOTW)?;
        e.step(
            "sl_lsmr_test",
            &[itn as i32, as_i32(maxiter)],
            &[p.atol, p.btol, p.ctol, p.bnorm],
            |s, f| lsmr_test(s, f, itn, maxiter, p),
        )
    })?;
    Ok(LsmrResult {
        x: e.get(X)?,
        istop,
        itn,
        normr: s[M2_NORMR],
        normar: s[M2_NORMAR],
        norma: s[M2_NORMA],
        conda: s[M2_CONDA],
        normx: s[M2_NORMX],
    })
}
