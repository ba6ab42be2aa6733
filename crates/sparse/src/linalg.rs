//! `scipy.sparse.linalg`: the [`LinearOperator`] trait, the iterative solvers [`cg`],
//! [`bicgstab`], [`cgs`], [`gmres`], [`minres`], [`bicg`], [`qmr`], [`tfqmr`], [`lgmres`],
//! [`gcrotmk`], and the least-squares solvers [`lsqr`] and
//! [`lsmr`]; the direct solvers [`spsolve`], [`splu`], [`factorized`] and
//! [`spsolve_triangular`].
//!
//! The solvers run on the device of their right-hand side: on a GPU every vector operation and
//! every scalar of the iteration (dot products, step lengths, the convergence flag) stays on the
//! device; the host reads the convergence flag once every [`POLL`] iterations and at the end, so
//! an iteration costs no host synchronisation. Kernels do nothing once the flag is set, so the
//! result is the same as a check after every iteration (SciPy's loop).

use crate::cpu;
use crate::krylov::{self, Engine, Sc};
use cusci_core::error::make;
use cusci_core::{Array, Device, Float, RealFloat, Result};

pub use crate::arnoldi::{eigs, EigsOptions, EigsResult, EigsWhich};
pub use crate::direct::{
    factorized, splu, splu_with, spsolve, spsolve_triangular, PermcSpec, SpluOptions, SuperLu,
};
pub use crate::eigen::{eigsh, EigshOptions, EigshResult, Which};
pub use crate::funm::{funm_multiply_krylov, FunmOptions};
pub use crate::ilu::{spilu, IluOptions, SuperLuIlu};
pub use crate::isolve::{bicg, gcrotmk, lgmres, qmr, tfqmr};
pub use crate::laplacian_nd::{Boundary, LaplacianNd};
pub use crate::lobpcg::{lobpcg, LobpcgOptions, LobpcgResult};
pub use crate::lsq::{lsmr, lsqr, LsmrResult, LsqOptions, LsqrResult};
pub use crate::matfuncs::{
    expm, expm_multiply, inv, is_sptriangular, onenormest, spbandwidth, ExpmMultiplyOptions,
    OnenormestOptions, OnenormestResult,
};
pub use crate::minres::minres;
pub(crate) use crate::operator::{checked_matvec, checked_rmatvec, CgProblem};
pub use crate::operator::{
    Callback, FnOperator, LinearOperator, NoRmatvec, Solution, SolverOptions, Truncate, POLL,
};
pub use crate::reduce::{matrix_power, norm, norm_axis, NormOrd};
pub use crate::svds::{svds, SingularVectors, SvdsOptions, SvdsResult};
/// The element types of [`splu`], [`spsolve`] and [`factorized`] (f32, f64, c32, c64: those of
/// `cusci_linalg`, whose dense LU factors the dense tail).
pub use cusci_linalg::Scalar;

pub(crate) fn check_system<T: Float>(
    op: &str,
    a: &dyn LinearOperator<T>,
    b: &Array<T>,
    opts: &SolverOptions<T>,
) -> Result<usize> {
    let (m, n) = a.shape();
    if m != n {
        return Err(make::shape(
            op,
            format!("expected a square matrix, got ({m}, {n})"),
        ));
    }
    if b.ndim() != 1 || b.len() != n {
        return Err(make::shape(
            op,
            format!(
                "b of shape {:?} for a matrix of shape ({m}, {n})",
                b.shape()
            ),
        ));
    }
    if let Some(x0) = opts.x0 {
        cusci_core::array::check_same_device(op, b.device(), x0.device())?;
        if x0.shape() != b.shape() {
            return Err(make::shape(
                op,
                format!(
                    "x0 of shape {:?} for b of shape {:?}",
                    x0.shape(),
                    b.shape()
                ),
            ));
        }
    }
    if let Some(mo) = opts.m {
        if mo.shape() != (n, n) {
            return Err(make::shape(
                op,
                format!("preconditioner of shape {:?} for n = {n}", mo.shape()),
            ));
        }
    }
    if opts.rtol.is_nan() || opts.atol.is_nan() || opts.rtol < 0.0 || opts.atol < 0.0 {
        return Err(make::arg(op, "tolerances must be non-negative"));
    }
    Ok(n)
}

/// Conjugate gradients for a Hermitian positive definite `A` (SciPy's `cg`, same iteration):
///
/// ```text
/// atol = max(atol, rtol·‖b‖); r = b − A x0
/// for it in 0..maxiter: if ‖r‖ < atol: converged
///     z = M r; ρ = r·z; p = z (first) or z + (ρ/ρ_prev) p
///     q = A p; α = ρ/(p·q); x += α p; r −= α q
/// ```
///
/// With `rtol = atol = 0` it runs exactly `maxiter` iterations. `‖b‖ = 0` returns `b` at once.
/// On a GPU nothing leaves the device during the iteration (see the module doc).
///
/// ```
/// use cusci_sparse::{diags, Device, Array, linalg::{cg, SolverOptions}};
/// let dev = Device::Cpu;
/// let a = diags::<f64>(&[&[2.0; 4], &[-1.0; 3], &[-1.0; 3]], &[0, -1, 1], None, &dev)?;
/// let b = Array::from_vec(vec![1.0; 4], &[4], &dev)?;
/// let s = cg(&a, &b, &SolverOptions { rtol: 1e-12, ..Default::default() })?;
/// assert_eq!(s.info, 0);
/// let r = a.dot(&s.x)?.sub(&b)?.norm()?;
/// assert!(r < 1e-10);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square operator or a `b`/`x0` of the wrong shape,
/// `InvalidArgument` for negative tolerances, `DeviceMismatch`, and the operator's errors.
pub fn cg<T: Float>(
    a: &dyn LinearOperator<T>,
    b: &Array<T>,
    opts: &SolverOptions<T>,
) -> Result<Solution<T>> {
    let op = "cg";
    let n = check_system(op, a, b, opts)?;
    let maxiter = opts.maxiter.unwrap_or(10 * n);
    let b = b.contiguous()?;
    let bnrm2 = b.norm()?.to_f64();
    if bnrm2 == 0.0 {
        return Ok(Solution {
            x: b.copy()?,
            info: 0,
            iterations: 0,
        });
    }
    let atol = opts.atol.max(opts.rtol * bnrm2);
    let x = match opts.x0 {
        Some(x0) => x0.contiguous()?.copy()?,
        None => Array::<T>::zeros(&[n], b.device())?,
    };
    let prob = CgProblem {
        a,
        b: &b,
        m: opts.m,
        atol,
        maxiter,
        has_x0: opts.x0.is_some(),
        callback: opts.callback,
    };
    match b.device() {
        Device::Cpu => cg_cpu(&prob, x),
        Device::Cuda(d) => crate::cuda::cg::cg(d, &prob, x),
    }
}

/// [`cg`] on the CPU from the start `x`.
fn cg_cpu<T: Float>(prob: &CgProblem<'_, T>, x: Array<T>) -> Result<Solution<T>> {
    let CgProblem {
        a,
        b,
        m,
        atol,
        maxiter,
        has_x0,
        callback,
    } = *prob;
    let dev = Device::Cpu;
    let n = b.len();
    let mut xv = x.to_vec()?;
    let mut r = b.to_vec()?;
    if has_x0 {
        let ax = checked_matvec(a, &x)?.to_vec()?;
        for (ri, axi) in r.iter_mut().zip(ax) {
            *ri = ri.sub(axi);
        }
    }
    let mut p = vec![T::zero(); n];
    let mut rho_prev = T::zero();
    for it in 0..maxiter {
        let rr = cpu::vdot(&r, &r);
        if rr.abs().to_f64().sqrt() < atol {
            return Ok(Solution {
                x: Array::from_vec(xv, &[n], &dev)?,
                info: 0,
                iterations: it,
            });
        }
        let (z, rho) = match m {
            None => (r.clone(), rr),
            Some(mo) => {
                let z = checked_matvec(mo, &Array::from_vec(r.clone(), &[n], &dev)?)?.to_vec()?;
                let rho = cpu::vdot(&r, &z);
                (z, rho)
            }
        };
        if it == 0 {
            p.copy_from_slice(&z);
        } else {
            let beta = rho.div(rho_prev);
            for (pi, &zi) in p.iter_mut().zip(&z) {
                *pi = beta.mul(*pi).add(zi);
            }
        }
        let q = checked_matvec(a, &Array::from_vec(p.clone(), &[n], &dev)?)?.to_vec()?;
        let alpha = rho.div(cpu::vdot(&p, &q));
        for i in 0..n {
            xv[i] = xv[i].add(alpha.mul(p[i]));
            r[i] = r[i].sub(alpha.mul(q[i]));
        }
        rho_prev = rho;
        if let Some(cb) = callback {
            cb(&Array::from_vec(xv.clone(), &[n], &dev)?);
        }
    }
    Ok(Solution {
        x: Array::from_vec(xv, &[n], &dev)?,
        info: maxiter as i64,
        iterations: maxiter,
    })
}

/// The common start of the solvers: the checks, `‖b‖`, the absolute tolerance and the starting
/// guess. `Err(Ok(solution))` when `b = 0` (SciPy returns `b` at once).
pub(crate) struct Start<T: Float> {
    pub(crate) n: usize,
    pub(crate) maxiter: usize,
    pub(crate) atol: f64,
    pub(crate) b: Array<T>,
}

pub(crate) fn start<T: Float>(
    op: &str,
    a: &dyn LinearOperator<T>,
    b: &Array<T>,
    opts: &SolverOptions<T>,
) -> Result<std::result::Result<Start<T>, Solution<T>>> {
    let n = check_system(op, a, b, opts)?;
    let maxiter = opts.maxiter.unwrap_or(10 * n);
    let b = b.contiguous()?;
    let bnrm2 = b.norm()?.to_f64();
    if bnrm2 == 0.0 {
        return Ok(Err(Solution {
            x: b.copy()?,
            info: 0,
            iterations: 0,
        }));
    }
    Ok(Ok(Start {
        n,
        maxiter,
        atol: opts.atol.max(opts.rtol * bnrm2),
        b,
    }))
}

/// Loads `x0` (or zeros) into vector `x` and `b − A x0` (or `b`) into vector `r`.
pub(crate) fn init_xr<T: Float>(
    e: &mut Engine<T>,
    a: &dyn LinearOperator<T>,
    st: &Start<T>,
    opts: &SolverOptions<T>,
    x: usize,
    r: usize,
    tmp: usize,
) -> Result<()> {
    e.load(r, &st.b)?;
    if let Some(x0) = opts.x0 {
        e.load(x, x0)?;
        e.apply(a, x, tmp)?;
        e.sub(r, r, tmp)?;
    }
    Ok(())
}

fn finish<T: Float>(e: &Engine<T>, x: usize, maxiter: usize) -> Result<Solution<T>> {
    let (code, at) = e.status()?;
    let (info, iterations) = match code {
        0 => (maxiter as i64, maxiter),
        krylov::CONVERGED => (0, at),
        c => (-(c as i64), at),
    };
    Ok(Solution {
        x: e.get(x)?,
        info,
        iterations,
    })
}

/// BiConjugate Gradient STABilized for a general square `A` (SciPy's `bicgstab`, the same
/// iteration and breakdown tests: `info = −10` when `|ρ| < ε²`, `−11` when `|ω| < ε²` or
/// `r̃·v = 0`). Runs on `b`'s device; on a GPU the state stays there (see the module doc).
///
/// ```
/// use cusci_sparse::{diags, Device, Array, linalg::{bicgstab, SolverOptions}};
/// let dev = Device::Cpu;
/// let a = diags::<f64>(&[&[3.0; 4], &[-1.0; 3], &[-2.0; 3]], &[0, -1, 1], None, &dev)?;
/// let b = Array::from_vec(vec![1.0; 4], &[4], &dev)?;
/// let s = bicgstab(&a, &b, &SolverOptions { rtol: 1e-12, ..Default::default() })?;
/// assert_eq!(s.info, 0);
/// assert!(a.dot(&s.x)?.sub(&b)?.norm()? < 1e-10);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`cg`].
pub fn bicgstab<T: Float>(
    a: &dyn LinearOperator<T>,
    b: &Array<T>,
    opts: &SolverOptions<T>,
) -> Result<Solution<T>> {
    use bicg::*;
    // vectors
    const SH: usize = bicg::VECTORS;
    const TV: usize = bicg::VECTORS + 1;
    // scalars
    const OMEGA: usize = bicg::SCALARS;
    const BETA: usize = bicg::SCALARS + 1;
    const T1: usize = bicg::SCALARS + 2;
    const T2: usize = bicg::SCALARS + 3;
    let st = match start("bicgstab", a, b, opts)? {
        Ok(s) => s,
        Err(sol) => return Ok(sol),
    };
    let mut e = Engine::<T>::new(b.device(), st.n, 8, 9)?;
    init_xr(&mut e, a, &st, opts, X, R, V)?;
    e.copy(RT, R)?;
    let tol2 = krylov::eps::<T>().powi(2);
    let one = T::one();
    let mone = krylov::re::<T>(-1.0);
    let m = opts.m;
    bicg_iterate(
        &mut e,
        a,
        &st,
        m,
        opts.callback,
        |e, it| {
            if it > 0 {
                e.check(OMEGA, tol2, false, krylov::BREAKDOWN_OMEGA, it)?;
                e.scalar(Sc::Div, BETA, RHO, RHOP)?;
                e.scalar(Sc::Div, T1, ALPHA, OMEGA)?;
                e.scalar(Sc::Mul, BETA, BETA, T1)?;
                e.axpy(P, V, Some(OMEGA), mone)?;
                e.scal(P, BETA)?;
                e.add(P, P, R)
            } else {
                e.copy(P, R)
            }
        },
        |e, it| {
            e.axpy(R, V, Some(ALPHA), mone)?;
            // SciPy adds alpha·phat to x in both of its branches below
            e.axpy(X, PH, Some(ALPHA), one)?;
            e.dot(R, R, NRM)?;
            e.check(NRM, st.atol, true, krylov::CONVERGED, it + 1)?;
            e.precond(m, R, SH)?;
            e.apply(a, SH, TV)?;
            e.dot(TV, R, T1)?;
            e.dot(TV, TV, T2)?;
            e.scalar(Sc::Div, OMEGA, T1, T2)?;
            e.axpy(X, SH, Some(OMEGA), one)?;
            e.axpy(R, TV, Some(OMEGA), mone)
        },
    )
}

/// Conjugate Gradient Squared for a general square `A` (SciPy's `cgs`, the same iteration,
/// the true residual `b − A x` recomputed every iteration as SciPy does, and its breakdown
/// tests: `info = −10` when `|ρ| < ε²`, `−11` when `r̃·v̂ = 0`).
///
/// ```
/// use cusci_sparse::{diags, Device, Array, linalg::{cgs, SolverOptions}};
/// let dev = Device::Cpu;
/// let a = diags::<f64>(&[&[3.0; 4], &[-1.0; 3], &[-2.0; 3]], &[0, -1, 1], None, &dev)?;
/// let b = Array::from_vec(vec![1.0; 4], &[4], &dev)?;
/// let s = cgs(&a, &b, &SolverOptions { rtol: 1e-12, ..Default::default() })?;
/// assert_eq!(s.info, 0);
/// assert!(a.dot(&s.x)?.sub(&b)?.norm()? < 1e-10);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`cg`].
pub fn cgs<T: Float>(
    a: &dyn LinearOperator<T>,
    b: &Array<T>,
    opts: &SolverOptions<T>,
) -> Result<Solution<T>> {
    use bicg::*;
    // vectors (v is v̂ = A M⁻¹p)
    const U: usize = bicg::VECTORS;
    const Q: usize = bicg::VECTORS + 1;
    const UQ: usize = bicg::VECTORS + 2;
    const UH: usize = bicg::VECTORS + 3;
    const B: usize = bicg::VECTORS + 4;
    const AX: usize = bicg::VECTORS + 5;
    // scalars
    const BETA: usize = bicg::SCALARS;
    let st = match start("cgs", a, b, opts)? {
        Ok(s) => s,
        Err(sol) => return Ok(sol),
    };
    let mut e = Engine::<T>::new(b.device(), st.n, 12, 6)?;
    init_xr(&mut e, a, &st, opts, X, R, AX)?;
    e.load(B, &st.b)?;
    e.copy(RT, R)?;
    let one = T::one();
    let mone = krylov::re::<T>(-1.0);
    let m = opts.m;
    bicg_iterate(
        &mut e,
        a,
        &st,
        m,
        opts.callback,
        |e, it| {
            if it > 0 {
                e.scalar(Sc::Div, BETA, RHO, RHOP)?;
                // u = r + beta q; p = u + beta (q + beta p)
                e.copy(U, R)?;
                e.axpy(U, Q, Some(BETA), one)?;
                e.scal(P, BETA)?;
                e.add(P, P, Q)?;
                e.scal(P, BETA)?;
                e.add(P, P, U)
            } else {
                e.copy(P, R)?;
                e.copy(U, R)
            }
        },
        |e, _| {
            e.copy(Q, U)?;
            e.axpy(Q, V, Some(ALPHA), mone)?;
            e.add(UQ, U, Q)?;
            e.precond(m, UQ, UH)?;
            e.axpy(X, UH, Some(ALPHA), one)?;
            e.apply(a, X, AX)?;
            e.sub(R, B, AX)
        },
    )
}

/// The slots of the iteration that bicgstab and cgs share ([`bicg_iterate`]); each solver's own
/// follow them.
mod bicg {
    // vectors: x, r, r̃, p, M⁻¹p and v = A M⁻¹p
    pub(super) const X: usize = 0;
    pub(super) const R: usize = 1;
    pub(super) const RT: usize = 2;
    pub(super) const P: usize = 3;
    pub(super) const PH: usize = 4;
    pub(super) const V: usize = 5;
    pub(super) const VECTORS: usize = 6;
    // scalars: ρ, the previous ρ, α, r̃·v and ‖r‖²
    pub(super) const RHO: usize = 0;
    pub(super) const RHOP: usize = 1;
    pub(super) const ALPHA: usize = 2;
    pub(super) const RV: usize = 3;
    pub(super) const NRM: usize = 4;
    pub(super) const SCALARS: usize = 5;
}

/// The iteration of bicgstab and cgs (SciPy's): each step stops when ‖r‖ ≤ atol or on the
/// breakdown `|ρ| < ε²` (ρ = r̃·r), sets p by `direction(e, it)`, then v = A M⁻¹ p, stops when
/// r̃·v = 0, α = ρ / r̃·v, updates x and r by `update(e, it)` and keeps ρ.
fn bicg_iterate<T: Float>(
    e: &mut Engine<T>,
    a: &dyn LinearOperator<T>,
    st: &Start<T>,
    m: Option<&dyn LinearOperator<T>>,
    callback: Option<crate::operator::Callback<'_, T>>,
    mut direction: impl FnMut(&mut Engine<T>, usize) -> Result<()>,
    mut update: impl FnMut(&mut Engine<T>, usize) -> Result<()>,
) -> Result<Solution<T>> {
    use bicg::*;
    let tol2 = krylov::eps::<T>().powi(2);
    let mut it = 0;
    while it < st.maxiter {
        e.dot(R, R, NRM)?;
        e.check(NRM, st.atol, true, krylov::CONVERGED, it)?;
        e.dot(RT, R, RHO)?;
        e.check(RHO, tol2, false, krylov::BREAKDOWN_RHO, it)?;
        direction(e, it)?;
        e.precond(m, P, PH)?;
        e.apply(a, PH, V)?;
        e.dot(RT, V, RV)?;
        e.check(RV, f64::MIN_POSITIVE, false, krylov::BREAKDOWN_OMEGA, it)?;
        e.scalar(Sc::Div, ALPHA, RHO, RV)?;
        update(e, it)?;
        e.scalar(Sc::Copy, RHOP, RHO, RHO)?;
        it += 1;
        if let Some(cb) = callback {
            // SciPy calls back after every iteration that did not stop
            if e.poll_now()? {
                break;
            }
            cb(&e.get(X)?);
        } else if e.poll(it)? {
            break;
        }
    }
    finish(e, X, st.maxiter)
}

// the scalar layout of gmres (see sparse.cu)
const GM_H0SQ: usize = 0;
const GM_H1SQ: usize = 1;
const GM_INV: usize = 2;
const GM_PTOL: usize = 3;
const GM_PRESID: usize = 4;
const GM_PMF: usize = 5;
const GM_BRK: usize = 6;
const GM_RN2: usize = 7;
const GM_NRM0: usize = 8;

struct GmLayout {
    r: usize,
}
impl GmLayout {
    fn h(&self, col: usize, k: usize) -> usize {
        col * (self.r + 1) + k
    }
    fn c(&self) -> usize {
        self.r * (self.r + 1)
    }
    fn s(&self) -> usize {
        self.c() + self.r
    }
    fn rhs(&self) -> usize {
        self.c() + 2 * self.r
    }
    fn y(&self) -> usize {
        self.c() + 3 * self.r + 1
    }
    fn m(&self) -> usize {
        self.c() + 4 * self.r + 1
    }
    fn len(&self) -> usize {
        self.m() + 9
    }
}

fn absf<T: Float>(v: T) -> f64 {
    v.abs().to_f64()
}

/// LAPACK's lartg as the kernel computes it (double intermediates).
fn lartg<T: Float>(f: T, g: T) -> (T, T, T) {
    let (af, ag) = (absf(f), absf(g));
    if ag == 0.0 {
        return (T::one(), T::zero(), f);
    }
    if af == 0.0 {
        return (
            T::zero(),
            g.conj().mul(krylov::re(1.0 / ag)),
            krylov::re(ag),
        );
    }
    let d = af.hypot(ag);
    let sf = f.mul(krylov::re(1.0 / af));
    (
        krylov::re(af / d),
        g.conj().mul(sf).mul(krylov::re(1.0 / d)),
        sf.mul(krylov::re(d)),
    )
}

/// Restarted GMRES for a general square `A` (SciPy's `gmres`: modified Gram–Schmidt Arnoldi,
/// Givens rotations, the inner tolerance control of gh-8400, `restart` default 20,
/// `maxiter` counts restart cycles (default 10·n); `info = 0` when `‖b − A x‖ ≤ atol`, else
/// `maxiter`). A preconditioner is applied on the left as SciPy does. On a GPU the Hessenberg
/// matrix, the rotations and the tolerances stay on the device (single-thread kernels); the
/// host reads the status once per cycle.
///
/// ```
/// use cusci_sparse::{diags, Device, Array, linalg::{gmres, SolverOptions}};
/// let dev = Device::Cpu;
/// let a = diags::<f64>(&[&[3.0; 4], &[-1.0; 3], &[-2.0; 3]], &[0, -1, 1], None, &dev)?;
/// let b = Array::from_vec(vec![1.0; 4], &[4], &dev)?;
/// let s = gmres(&a, &b, &SolverOptions { rtol: 1e-12, ..Default::default() })?;
/// assert_eq!(s.info, 0);
/// assert!(a.dot(&s.x)?.sub(&b)?.norm()? < 1e-10);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`cg`], and `InvalidArgument` for `restart = 0`.
pub fn gmres<T: Float>(
    a: &dyn LinearOperator<T>,
    b: &Array<T>,
    opts: &SolverOptions<T>,
) -> Result<Solution<T>> {
    if opts.restart == Some(0) {
        return Err(make::arg("gmres", "restart must be positive"));
    }
    let st = match start("gmres", a, b, opts)? {
        Ok(s) => s,
        Err(sol) => return Ok(sol),
    };
    let n = st.n;
    let rs = opts.restart.unwrap_or(20).min(n);
    let lay = GmLayout { r: rs };
    let eps = krylov::eps::<T>();
    // vectors: X, R, B, AX, AV, W, then V[0..=rs]
    const X: usize = 0;
    const R: usize = 1;
    const B: usize = 2;
    const AX: usize = 3;
    const AV: usize = 4;
    const W: usize = 5;
    let v = |k: usize| 6 + k;
    let mut e = Engine::<T>::new(b.device(), n, 7 + rs, lay.len())?;
    init_xr(&mut e, a, &st, opts, X, R, AX)?;
    e.load(B, &st.b)?;
    let m = opts.m;
    let mone = krylov::re::<T>(-1.0);
    // ptol = ‖M b‖ · min(1, atol/‖b‖) (host values, computed once as SciPy)
    let bnrm2 = st.b.norm()?.to_f64();
    let mb_nrm2 = match m {
        Some(mo) => checked_matvec(mo, &st.b)?.norm()?.to_f64(),
        None => bnrm2,
    };
    e.set_scalar(
        lay.m() + GM_PTOL,
        krylov::re(mb_nrm2 * (st.atol / bnrm2).min(1.0)),
    )?;
    e.set_scalar(lay.m() + GM_PMF, T::one())?;
    e.dot(R, R, lay.m() + GM_RN2)?;
    e.check(lay.m() + GM_RN2, st.atol, true, krylov::CONVERGED, 0)?;
    let atol = st.atol;
    let mut it = 0;
    while it < st.maxiter && !e.poll_now()? {
        e.set_gate(0);
        e.precond(m, R, v(0))?;
        e.dot(v(0), v(0), lay.m() + GM_NRM0)?;
        let l = GmLayout { r: rs };
        e.custom("sp_gmres_start", &[rs as i32], &[], |s, f| {
            if f[0] != 0 {
                return;
            }
            let nrm = absf(s[l.m() + GM_NRM0]).sqrt();
            for k in 0..=rs {
                s[l.rhs() + k] = T::zero();
            }
            s[l.rhs()] = krylov::re(nrm);
            s[l.m() + GM_INV] = krylov::re(1.0 / nrm);
            s[l.m() + GM_BRK] = T::zero();
            f[2] = 0;
            f[3] = 0;
        })?;
        e.scal(v(0), lay.m() + GM_INV)?;
        e.set_gate(1);
        for col in 0..rs {
            e.apply(a, v(col), AV)?;
            e.precond(m, AV, W)?;
            e.dot(W, W, lay.m() + GM_H0SQ)?;
            for k in 0..=col {
                e.dot(v(k), W, lay.h(col, k))?;
                e.axpy(W, v(k), Some(lay.h(col, k)), mone)?;
            }
            e.dot(W, W, lay.m() + GM_H1SQ)?;
            let l = GmLayout { r: rs };
            e.custom("sp_gmres_rot", &[rs as i32, col as i32], &[eps], |s, f| {
                gmres_rot_cpu(&l, s, f, col, eps)
            })?;
            e.copy(v(col + 1), W)?;
            e.scal(v(col + 1), lay.m() + GM_INV)?;
        }
        e.set_gate(0);
        let l = GmLayout { r: rs };
        e.custom("sp_gmres_solve", &[rs as i32], &[], |s, f| {
            gmres_solve_cpu(&l, s, f)
        })?;
        for k in 0..rs {
            e.axpy(X, v(k), Some(lay.y() + k), T::one())?;
        }
        e.apply(a, X, AX)?;
        e.sub(R, B, AX)?;
        e.dot(R, R, lay.m() + GM_RN2)?;
        let l = GmLayout { r: rs };
        e.custom(
            "sp_gmres_outer",
            &[rs as i32, it as i32],
            &[atol, eps],
            |s, f| gmres_outer_cpu(&l, s, f, it, atol, eps),
        )?;
        it += 1;
        if let Some(cb) = opts.callback {
            cb(&e.get(X)?);
        }
    }
    let (code, at) = e.status()?;
    let (info, iterations) = match code {
        krylov::CONVERGED => (0, at),
        0 => (st.maxiter as i64, st.maxiter),
        _ => (st.maxiter as i64, at),
    };
    Ok(Solution {
        x: e.get(X)?,
        info,
        iterations,
    })
}

fn gmres_rot_cpu<T: Float>(l: &GmLayout, s: &mut [T], f: &mut [i32; 4], col: usize, eps: f64) {
    if f[0] != 0 || f[2] != 0 {
        return;
    }
    let mb = l.m();
    let h0 = absf(s[mb + GM_H0SQ]).sqrt();
    let h1 = absf(s[mb + GM_H1SQ]).sqrt();
    let mut brk = false;
    s[l.h(col, col + 1)] = krylov::re(h1);
    if h1 <= eps * h0 {
        s[l.h(col, col + 1)] = T::zero();
        brk = true;
        s[mb + GM_INV] = T::one();
    } else {
        s[mb + GM_INV] = krylov::re(1.0 / h1);
    }
    for k in 0..col {
        let (c, sn) = (s[l.c() + k], s[l.s() + k]);
        let (n0, n1) = (s[l.h(col, k)], s[l.h(col, k + 1)]);
        s[l.h(col, k)] = c.mul(n0).add(sn.mul(n1));
        s[l.h(col, k + 1)] = T::zero().sub(sn.conj().mul(n0)).add(c.mul(n1));
    }
    let (c, sn, r) = lartg(s[l.h(col, col)], s[l.h(col, col + 1)]);
    s[l.c() + col] = c;
    s[l.s() + col] = sn;
    s[l.h(col, col)] = r;
    s[l.h(col, col + 1)] = T::zero();
    let tmp = T::zero().sub(sn.conj().mul(s[l.rhs() + col]));
    s[l.rhs() + col] = c.mul(s[l.rhs() + col]);
    s[l.rhs() + col + 1] = tmp;
    let presid = absf(tmp);
    s[mb + GM_PRESID] = krylov::re(presid);
    s[mb + GM_BRK] = krylov::re(if brk { 1.0 } else { 0.0 });
    if presid <= s[mb + GM_PTOL].re().to_f64() || brk {
        f[2] = 1;
        f[3] = col as i32;
    }
}

fn gmres_solve_cpu<T: Float>(l: &GmLayout, s: &mut [T], f: &mut [i32; 4]) {
    if f[0] != 0 {
        return;
    }
    let rs = l.r;
    let col = if f[2] != 0 { f[3] as usize } else { rs - 1 };
    if s[l.h(col, col)] == T::zero() {
        s[l.rhs() + col] = T::zero();
    }
    for k in 0..rs {
        s[l.y() + k] = if k <= col { s[l.rhs() + k] } else { T::zero() };
    }
    for k in (1..=col).rev() {
        if s[l.y() + k] != T::zero() {
            s[l.y() + k] = s[l.y() + k].div(s[l.h(k, k)]);
            let tmp = s[l.y() + k];
            for j in 0..k {
                s[l.y() + j] = s[l.y() + j].sub(tmp.mul(s[l.h(k, j)]));
            }
        }
    }
    if s[l.y()] != T::zero() {
        s[l.y()] = s[l.y()].div(s[l.h(0, 0)]);
    }
}

fn gmres_outer_cpu<T: Float>(
    l: &GmLayout,
    s: &mut [T],
    f: &mut [i32; 4],
    it: usize,
    atol: f64,
    eps: f64,
) {
    if f[0] != 0 {
        return;
    }
    let mb = l.m();
    let rn = absf(s[mb + GM_RN2]).sqrt();
    let presid = s[mb + GM_PRESID].re().to_f64();
    let ptol = s[mb + GM_PTOL].re().to_f64();
    let mut pmf = s[mb + GM_PMF].re().to_f64();
    if rn <= atol {
        f[0] = krylov::CONVERGED;
        f[1] = it as i32 + 1;
        return;
    }
    if s[mb + GM_BRK].re().to_f64() != 0.0 {
        f[0] = 2;
        f[1] = it as i32 + 1;
        return;
    }
    pmf = if presid <= ptol {
        eps.max(0.25 * pmf)
    } else {
        (1.5 * pmf).min(1.0)
    };
    s[mb + GM_PMF] = krylov::re(pmf);
    s[mb + GM_PTOL] = krylov::re(presid * pmf.min(atol / rn));
}
