//! `minres` on the solver engine ([`crate::krylov`]): the vector steps are the engine's, the
//! scalar recurrences (the Lanczos coefficients, Givens rotations, norm estimates, stopping
//! tests) are single-thread kernels of `cuda/solvers.cu` on a GPU and the functions below on the
//! CPU (the same formulas in the same order, in f64, stored in the element type).

use crate::krylov::{self, slots, Engine};
use crate::linalg::{check_system, LinearOperator, Solution, SolverOptions};
use crate::lsq::Sl;
use cusci_core::error::make;
use cusci_core::{Array, Float, RealFloat, Result};

slots!(
    0;
    MR_BETA1, MR_BETA, MR_OLDB, MR_DBAR, MR_EPSLN, MR_PHIBAR, MR_RHS1, MR_RHS2, MR_TNORM2,
    MR_GMAX, MR_GMIN, MR_CS, MR_SN, MR_ISTOP, MR_DOT, MR_BB, MR_S, MR_COEF1, MR_COEF2,
    MR_NOLDEPS, MR_NDELTA, MR_DENOM, MR_PHI, MR_XX, MR_ROOT, MR_ALFA, MR_GBAR, MR_N
);

/// Status code of a negative `r·M r` (SciPy's "non-symmetric matrix").
const MR_NONSYM: i32 = 3;

fn mr_pre<T: Float>(s: &mut [T], f: &mut [i32; 4]) {
    if f[0] != 0 {
        return;
    }
    let mut s = Sl(s);
    let (beta, oldb) = (s.g(MR_BETA), s.g(MR_OLDB));
    s.p(MR_S, 1.0 / beta);
    s.p(MR_COEF1, if oldb != 0.0 { -(beta / oldb) } else { 0.0 });
}

fn mr_alfa<T: Float>(s: &mut [T], f: &mut [i32; 4]) {
    if f[0] != 0 {
        return;
    }
    let mut s = Sl(s);
    let alfa = s.g(MR_DOT);
    s.p(MR_ALFA, alfa);
    s.p(MR_COEF2, -(alfa / s.g(MR_BETA)));
}

fn mr_rot<T: Float>(s: &mut [T], f: &mut [i32; 4], itn: usize, eps: f64) {
    if f[0] != 0 {
        return;
    }
    let mut s = Sl(s);
    let oldb = s.g(MR_BETA);
    let bb = s.g(MR_BB);
    if bb < 0.0 {
        f[0] = MR_NONSYM;
        f[1] = itn as i32;
        return;
    }
    let beta = bb.sqrt();
    let alfa = s.g(MR_ALFA);
    let tnorm2 = s.g(MR_TNORM2) + alfa * alfa + oldb * oldb + beta * beta;
    if itn == 1 && beta / s.g(MR_BETA1) <= 10.0 * eps {
        s.p(MR_ISTOP, -1.0);
    }
    let (mut cs, mut sn, mut dbar) = (s.g(MR_CS), s.g(MR_SN), s.g(MR_DBAR));
    let oldeps = s.g(MR_EPSLN);
    let delta = cs * dbar + sn * alfa;
    let gbar = sn * dbar - cs * alfa;
    let epsln = sn * beta;
    dbar = -cs * beta;
    let root = gbar.hypot(dbar);
    let gamma = gbar.hypot(beta).max(eps);
    cs = gbar / gamma;
    sn = beta / gamma;
    let mut phibar = s.g(MR_PHIBAR);
    let phi = cs * phibar;
    phibar *= sn;
    let z = s.g(MR_RHS1) / gamma;
    s.p(MR_RHS1, s.g(MR_RHS2) - delta * z);
    s.p(MR_RHS2, -epsln * z);
    s.p(MR_GMAX, s.g(MR_GMAX).max(gamma));
    s.p(MR_GMIN, s.g(MR_GMIN).min(gamma));
    s.p(MR_OLDB, oldb);
    s.p(MR_BETA, beta);
    s.p(MR_TNORM2, tnorm2);
    s.p(MR_CS, cs);
    s.p(MR_SN, sn);
    s.p(MR_DBAR, dbar);
    s.p(MR_EPSLN, epsln);
    s.p(MR_ROOT, root);
    s.p(MR_GBAR, gbar);
    s.p(MR_PHI, phi);
    s.p(MR_PHIBAR, phibar);
    s.p(MR_DENOM, 1.0 / gamma);
    s.p(MR_NOLDEPS, -oldeps);
    s.p(MR_NDELTA, -delta);
}

fn mr_test<T: Float>(
    s: &mut [T],
    f: &mut [i32; 4],
    itn: usize,
    maxiter: usize,
    eps: f64,
    rtol: f64,
) {
    if f[0] != 0 {
        return;
    }
    let mut s = Sl(s);
    let anorm = s.g(MR_TNORM2).sqrt();
    let ynorm = s.g(MR_XX).sqrt();
    let epsx = anorm * ynorm * eps;
    let rnorm = s.g(MR_PHIBAR);
    let test1 = if ynorm == 0.0 || anorm == 0.0 {
        f64::INFINITY
    } else {
        rnorm / (anorm * ynorm)
    };
    let test2 = if anorm == 0.0 {
        f64::INFINITY
    } else {
        s.g(MR_ROOT) / anorm
    };
    let acond = s.g(MR_GMAX) / s.g(MR_GMIN);
    let mut istop = s.g(MR_ISTOP) as i32;
    if istop == 0 {
        if 1.0 + test2 <= 1.0 {
            istop = 2;
        }
        if 1.0 + test1 <= 1.0 {
            istop = 1;
        }
        if itn >= maxiter {
            istop = 6;
        }
        if acond >= 0.1 / eps {
            istop = 4;
        }
        if epsx >= s.g(MR_BETA1) {
            istop = 3;
        }
        if test2 <= rtol {
            istop = 2;
        }
        if test1 <= rtol {
            istop = 1;
        }
    }
    s.p(MR_ISTOP, istop as f64);
    if istop != 0 {
        f[0] = 100 + istop;
        f[1] = itn as i32;
    }
}

/// MINimum RESidual iteration for a Hermitian (possibly indefinite) `A` (SciPy's `minres`,
/// Paige–Saunders' algorithm as SciPy writes it): `A` may be shifted (`opts.shift`: solves
/// `(A − shift·I) x = b`), `M` must be Hermitian positive definite. Stops when
/// `‖r‖ / (‖A‖ ‖x‖) ≤ rtol` or `‖A r‖ / (‖A‖ ‖r‖) ≤ rtol` (SciPy's estimates), or on SciPy's
/// other `istop` conditions (`cond(A) ≥ 0.1/ε`, `‖A‖‖x‖ε ≥ β₁`, an exact Lanczos breakdown at
/// the first step); `info` = `maxiter` when the iteration limit ended it, else 0. `maxiter`
/// defaults to 5·n; `atol` is not used (as SciPy). On a GPU the state stays on the device and the
/// host reads the status every [`POLL`](crate::linalg::POLL) iterations; one read at the start
/// checks `r·M r` (SciPy's `beta1`).
///
/// ```
/// use cusci_sparse::{diags, Device, Array, linalg::{minres, SolverOptions}};
/// let dev = Device::Cpu;
/// let a = diags::<f64>(&[&[1.0, -2.0, 3.0, -4.0], &[0.5; 3], &[0.5; 3]], &[0, -1, 1], None, &dev)?;
/// let b = Array::from_vec(vec![1.0; 4], &[4], &dev)?;
/// let s = minres(&a, &b, &SolverOptions { rtol: 1e-12, ..Default::default() })?;
/// assert!(a.dot(&s.x)?.sub(&b)?.norm()? < 1e-9);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`cg`](crate::linalg::cg); `InvalidArgument` for an indefinite preconditioner
/// (`r·M r < 0`) or when the Lanczos process meets a negative `r·M r` (a non-Hermitian `A` or `M`,
/// SciPy's "non-symmetric matrix").
pub fn minres<T: Float>(
    a: &dyn LinearOperator<T>,
    b: &Array<T>,
    opts: &SolverOptions<T>,
) -> Result<Solution<T>> {
    let op = "minres";
    let n = check_system(op, a, b, opts)?;
    if !opts.shift.is_finite() {
        return Err(make::arg(op, "shift must be finite"));
    }
    let maxiter = opts.maxiter.unwrap_or(5 * n);
    let b = b.contiguous()?;
    let eps = krylov::eps::<T>();
    const X: usize = 0;
    const R1: usize = 1;
    const R2: usize = 2;
    const Y: usize = 3;
    const V: usize = 4;
    const W: usize = 5;
    const W1: usize = 6;
    const W2: usize = 7;
    const TMP: usize = 8;
    let m = opts.m;
    let mut e = Engine::<T>::new(b.device(), n, 9, MR_N)?;
    e.load(R1, &b)?;
    if let Some(x0) = opts.x0 {
        e.load(X, x0)?;
        e.apply(a, X, TMP)?;
        e.sub(R1, R1, TMP)?;
    }
    e.precond(m, R1, Y)?;
    e.dot(R1, Y, MR_BB)?;
    let beta1 = e.scalars()?[MR_BB];
    if beta1 < 0.0 {
        return Err(make::arg(op, "indefinite preconditioner"));
    }
    if beta1 == 0.0 {
        return Ok(Solution {
            x: e.get(X)?,
            info: 0,
            iterations: 0,
        });
    }
    if b.norm()?.to_f64() == 0.0 {
        return Ok(Solution {
            x: b.copy()?,
            info: 0,
            iterations: 0,
        });
    }
    let beta1 = beta1.sqrt();
    let gmin = if std::mem::size_of::<T::Real>() == 4 {
        f32::MAX as f64
    } else {
        f64::MAX
    };
    for (k, v) in [
        (MR_BETA1, beta1),
        (MR_BETA, beta1),
        (MR_PHIBAR, beta1),
        (MR_RHS1, beta1),
        (MR_GMIN, gmin),
        (MR_CS, -1.0),
    ] {
        e.set_scalar(k, krylov::re(v))?;
    }
    e.copy(R2, R1)?;
    let one = T::one();
    let rtol = opts.rtol;
    let mut itn = 0;
    while itn < maxiter {
        itn += 1;
        e.step("sl_mr_pre", &[], &[], mr_pre)?;
        e.copy(V, Y)?;
        e.scal(V, MR_S)?;
        e.apply(a, V, Y)?;
        if opts.shift != 0.0 {
            e.axpy(Y, V, None, krylov::re(-opts.shift))?;
        }
        if itn >= 2 {
            e.axpy(Y, R1, Some(MR_COEF1), one)?;
        }
        e.dot(V, Y, MR_DOT)?;
        e.step("sl_mr_alfa", &[], &[], mr_alfa)?;
        e.axpy(Y, R2, Some(MR_COEF2), one)?;
        e.copy(R1, R2)?;
        e.copy(R2, Y)?;
        e.precond(m, R2, Y)?;
        e.dot(R2, Y, MR_BB)?;
        e.step("sl_mr_rot", &[itn as i32], &[eps], |s, f| {
            mr_rot(s, f, itn, eps)
        })?;
        e.copy(W1, W2)?;
        e.copy(W2, W)?;
        e.copy(W, V)?;
        e.axpy(W, W1, Some(MR_NOLDEPS), one)?;
        e.axpy(W, W2, Some(MR_NDELTA), one)?;
        e.scal(W, MR_DENOM)?;
        e.axpy(X, W, Some(MR_PHI), one)?;
        e.dot(X, X, MR_XX)?;
        e.step(
            "sl_mr_test",
            &[itn as i32, maxiter.min(i32::MAX as usize) as i32],
            &[eps, rtol],
            |s, f| mr_test(s, f, itn, maxiter, eps, rtol),
        )?;
        if let Some(cb) = opts.callback {
            // SciPy calls back after every iteration, the last one included
            let done = e.poll_now()?;
            cb(&e.get(X)?);
            if done {
                break;
            }
        } else if e.poll(itn)? {
            break;
        }
    }
    let (code, at) = e.status()?;
    if code == MR_NONSYM {
        return Err(make::arg(
            op,
            format!("non-symmetric matrix or preconditioner (r·M r < 0 at iteration {at})"),
        ));
    }
    let info = if code - 100 == 6 { maxiter as i64 } else { 0 };
    Ok(Solution {
        x: e.get(X)?,
        info,
        iterations: if code == 0 { itn } else { at },
    })
}
