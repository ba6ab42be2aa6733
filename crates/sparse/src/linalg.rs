//! `scipy.sparse.linalg`: the [`LinearOperator`] trait and the iterative solvers [`cg`],
//! [`bicgstab`] and [`cgs`].
//!
//! The solvers run on the device of their right-hand side: on a GPU every vector operation and
//! every scalar of the iteration (dot products, step lengths, the convergence flag) stays on the
//! device; the host reads the convergence flag once every [`POLL`] iterations and at the end, so
//! an iteration costs no host synchronisation. Kernels do nothing once the flag is set, so the
//! result is the same as a check after every iteration (SciPy's loop).

use crate::cpu;
use crate::cuda::{blocks, launch, p};
use crate::krylov::{self, Engine, Sc};
use crate::matrix::{CscMatrix, CsrMatrix};
use cusci_core::cuda::kernel::Args;
use cusci_core::error::make;
use cusci_core::{Array, CudaDevice, Device, Float, RealFloat, Result};

/// Iterations between two reads of the convergence flag on a GPU.
pub const POLL: usize = 32;

/// A linear map given by its products (SciPy's `LinearOperator`): `matvec` computes `A x`,
/// `rmatvec` `A^H x`. Sparse matrices implement it; [`FnOperator`] wraps closures
/// (`aslinearoperator` for custom operators).
pub trait LinearOperator<T: Float> {
    /// (rows, columns).
    fn shape(&self) -> (usize, usize);
    /// `A x` for a 1-D `x` of length `shape().1`, on `x`'s device.
    fn matvec(&self, x: &Array<T>) -> Result<Array<T>>;
    /// `A^H x`; the default says it is not available.
    fn rmatvec(&self, x: &Array<T>) -> Result<Array<T>> {
        Err(make::not_implemented("LinearOperator.rmatvec", x.device()))
    }
}

impl<T: Float> LinearOperator<T> for CsrMatrix<T> {
    fn shape(&self) -> (usize, usize) {
        CsrMatrix::shape(self)
    }
    fn matvec(&self, x: &Array<T>) -> Result<Array<T>> {
        if x.ndim() != 1 {
            return Err(make::shape(
                "matvec",
                format!("x must be 1-D, got {:?}", x.shape()),
            ));
        }
        self.dot(x)
    }
    fn rmatvec(&self, x: &Array<T>) -> Result<Array<T>> {
        self.conj()?.transpose().tocsr()?.matvec(x)
    }
}

impl<T: Float> LinearOperator<T> for CscMatrix<T> {
    fn shape(&self) -> (usize, usize) {
        CscMatrix::shape(self)
    }
    fn matvec(&self, x: &Array<T>) -> Result<Array<T>> {
        if x.ndim() != 1 {
            return Err(make::shape(
                "matvec",
                format!("x must be 1-D, got {:?}", x.shape()),
            ));
        }
        self.dot(x)
    }
    fn rmatvec(&self, x: &Array<T>) -> Result<Array<T>> {
        self.transpose().conj()?.matvec(x)
    }
}

/// A [`LinearOperator`] from a shape and closures (SciPy's `LinearOperator(shape, matvec,
/// rmatvec)`).
///
/// ```
/// use cusci_sparse::linalg::{FnOperator, LinearOperator};
/// use cusci_sparse::{Array, Device};
/// let twice = FnOperator::new((2, 2), |x: &Array<f64>| x.mul_scalar(2.0));
/// let y = twice.matvec(&Array::from_vec(vec![1.0, 2.0], &[2], &Device::Cpu)?)?;
/// assert_eq!(y.to_vec()?, vec![2.0, 4.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
pub struct FnOperator<T: Float, F: Fn(&Array<T>) -> Result<Array<T>>> {
    shape: (usize, usize),
    f: F,
    _t: std::marker::PhantomData<T>,
}

impl<T: Float, F: Fn(&Array<T>) -> Result<Array<T>>> FnOperator<T, F> {
    /// The operator `x ↦ f(x)` of the given shape.
    pub fn new(shape: (usize, usize), f: F) -> Self {
        FnOperator {
            shape,
            f,
            _t: std::marker::PhantomData,
        }
    }
}

impl<T: Float, F: Fn(&Array<T>) -> Result<Array<T>>> LinearOperator<T> for FnOperator<T, F> {
    fn shape(&self) -> (usize, usize) {
        self.shape
    }
    fn matvec(&self, x: &Array<T>) -> Result<Array<T>> {
        (self.f)(x)
    }
}

/// Options of the iterative solvers (SciPy's keyword arguments).
pub struct SolverOptions<'a, T: Float> {
    /// Starting guess (default zeros).
    pub x0: Option<&'a Array<T>>,
    /// Relative tolerance: stop when `‖r‖ < max(atol, rtol · ‖b‖)` (default 1e-5).
    pub rtol: f64,
    /// Absolute tolerance (default 0).
    pub atol: f64,
    /// Iteration limit (default 10 · n).
    pub maxiter: Option<usize>,
    /// Preconditioner: an operator approximating `A⁻¹` (default none).
    pub m: Option<&'a dyn LinearOperator<T>>,
}

impl<T: Float> Default for SolverOptions<'_, T> {
    fn default() -> Self {
        SolverOptions {
            x0: None,
            rtol: 1e-5,
            atol: 0.0,
            maxiter: None,
            m: None,
        }
    }
}

/// The result of an iterative solver: the solution and SciPy's `info` (0 converged, `k > 0`
/// not converged after `k` iterations, negative for a breakdown: −10 (ρ ≈ 0) or −11
/// (ω ≈ 0 or a zero inner product) in `bicgstab`/`cgs`), plus the iterations run.
#[derive(Debug, Clone)]
pub struct Solution<T: Float> {
    /// The approximate solution.
    pub x: Array<T>,
    /// SciPy's `info`.
    pub info: i64,
    /// Iterations run (up to the convergence or breakdown test that ended the loop).
    pub iterations: usize,
}

fn check_system<T: Float>(
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
    match b.device().clone() {
        Device::Cpu => cg_cpu(a, &b, x, atol, maxiter, opts.x0.is_some(), opts.m),
        Device::Cuda(d) => cg_cuda(&d, a, &b, x, atol, maxiter, opts.x0.is_some(), opts.m),
    }
}

#[allow(clippy::too_many_arguments)]
fn cg_cpu<T: Float>(
    a: &dyn LinearOperator<T>,
    b: &Array<T>,
    x: Array<T>,
    atol: f64,
    maxiter: usize,
    has_x0: bool,
    m: Option<&dyn LinearOperator<T>>,
) -> Result<Solution<T>> {
    let dev = Device::Cpu;
    let n = b.len();
    let mut xv = x.to_vec()?;
    let mut r = b.to_vec()?;
    if has_x0 {
        let ax = a.matvec(&x)?.to_vec()?;
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
                let z = mo
                    .matvec(&Array::from_vec(r.clone(), &[n], &dev)?)?
                    .to_vec()?;
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
        let q = a
            .matvec(&Array::from_vec(p.clone(), &[n], &dev)?)?
            .to_vec()?;
        let alpha = rho.div(cpu::vdot(&p, &q));
        for i in 0..n {
            xv[i] = xv[i].add(alpha.mul(p[i]));
            r[i] = r[i].sub(alpha.mul(q[i]));
        }
        rho_prev = rho;
    }
    Ok(Solution {
        x: Array::from_vec(xv, &[n], &dev)?,
        info: maxiter as i64,
        iterations: maxiter,
    })
}

/// Partial sums per block for the dot products (a fixed grid: the same bits on every run).
fn dot_partial<T: Float>(
    d: &CudaDevice,
    x: &Array<T>,
    y: &Array<T>,
    parts: &Array<T>,
) -> Result<()> {
    let g = parts.len() as u32;
    launch::<T>(
        d,
        "sp_dot_partial",
        g,
        Args::new()
            .push(p(x))
            .push(p(y))
            .push(x.len() as i64)
            .push(p(parts)),
    )
}

#[allow(clippy::too_many_arguments)]
fn cg_cuda<T: Float>(
    d: &CudaDevice,
    a: &dyn LinearOperator<T>,
    b: &Array<T>,
    x: Array<T>,
    atol: f64,
    maxiter: usize,
    has_x0: bool,
    m: Option<&dyn LinearOperator<T>>,
) -> Result<Solution<T>> {
    let dev = Device::Cuda(d.clone());
    let n = b.len();
    let g = blocks(d, n).max(1) as usize;
    let parts = Array::<T>::empty(&[g], &dev)?;
    let st = Array::<T>::zeros(&[4], &dev)?;
    let ist = Array::<i32>::zeros(&[2], &dev)?;
    let r = if has_x0 {
        let ax = a.matvec(&x)?;
        let r = Array::<T>::empty(&[n], &dev)?;
        launch::<T>(
            d,
            "sp_sub",
            blocks(d, n),
            Args::new()
                .push(p(b))
                .push(p(&ax))
                .push(p(&r))
                .push(n as i64),
        )?;
        r
    } else {
        b.copy()?
    };
    let pv = Array::<T>::zeros(&[n], &dev)?;
    let nb = blocks(d, n);
    let mut it = 0usize;
    while it < maxiter {
        // ‖r‖² (and ρ without a preconditioner); sets the flag when converged
        dot_partial(d, &r, &r, &parts)?;
        launch::<T>(
            d,
            "sp_cg_rr",
            1,
            Args::new()
                .push(p(&parts))
                .push(g as i32)
                .push(p(&st))
                .push(p(&ist))
                .push(atol)
                .push(it as i32)
                .push(m.is_none() as i32),
        )?;
        let z = match m {
            None => r.clone(),
            Some(mo) => {
                let z = mo.matvec(&r)?;
                dot_partial(d, &r, &z, &parts)?;
                launch::<T>(
                    d,
                    "sp_cg_rho",
                    1,
                    Args::new()
                        .push(p(&parts))
                        .push(g as i32)
                        .push(p(&st))
                        .push(p(&ist)),
                )?;
                z
            }
        };
        launch::<T>(
            d,
            "sp_cg_update_p",
            nb,
            Args::new()
                .push(p(&z))
                .push(p(&pv))
                .push(n as i64)
                .push(p(&st))
                .push(p(&ist))
                .push((it == 0) as i32),
        )?;
        let q = a.matvec(&pv)?;
        dot_partial(d, &pv, &q, &parts)?;
        launch::<T>(
            d,
            "sp_cg_alpha",
            1,
            Args::new()
                .push(p(&parts))
                .push(g as i32)
                .push(p(&st))
                .push(p(&ist)),
        )?;
        launch::<T>(
            d,
            "sp_cg_update_xr",
            nb,
            Args::new()
                .push(p(&x))
                .push(p(&r))
                .push(p(&pv))
                .push(p(&q))
                .push(n as i64)
                .push(p(&st))
                .push(p(&ist)),
        )?;
        it += 1;
        if it % POLL == 0 && it < maxiter && ist.to_vec()?[0] != 0 {
            break;
        }
    }
    // the convergence test of the iteration after the last one (SciPy tests at the loop's top)
    let flags = ist.to_vec()?;
    if flags[0] != 0 {
        return Ok(Solution {
            x,
            info: 0,
            iterations: flags[1] as usize,
        });
    }
    Ok(Solution {
        x,
        info: maxiter as i64,
        iterations: maxiter,
    })
}

/// The common start of the solvers: the checks, `‖b‖`, the absolute tolerance and the starting
/// guess. `Err(Ok(solution))` when `b = 0` (SciPy returns `b` at once).
struct Start<T: Float> {
    n: usize,
    maxiter: usize,
    atol: f64,
    b: Array<T>,
}

fn start<T: Float>(
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
fn init_xr<T: Float>(
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
    let st = match start("bicgstab", a, b, opts)? {
        Ok(s) => s,
        Err(sol) => return Ok(sol),
    };
    // vectors
    const X: usize = 0;
    const R: usize = 1;
    const RT: usize = 2;
    const P: usize = 3;
    const V: usize = 4;
    const PH: usize = 5;
    const SH: usize = 6;
    const TV: usize = 7;
    // scalars
    const RHO: usize = 0;
    const RHOP: usize = 1;
    const ALPHA: usize = 2;
    const OMEGA: usize = 3;
    const BETA: usize = 4;
    const T1: usize = 5;
    const T2: usize = 6;
    const RV: usize = 7;
    const NRM: usize = 8;
    let mut e = Engine::<T>::new(b.device(), st.n, 8, 9)?;
    init_xr(&mut e, a, &st, opts, X, R, V)?;
    e.copy(RT, R)?;
    let tol2 = krylov::eps::<T>().powi(2);
    let one = T::one();
    let mone = krylov::re::<T>(-1.0);
    let m = opts.m;
    let mut it = 0;
    while it < st.maxiter {
        e.dot(R, R, NRM)?;
        e.check(NRM, st.atol, true, krylov::CONVERGED, it)?;
        e.dot(RT, R, RHO)?;
        e.check(RHO, tol2, false, krylov::BREAKDOWN_RHO, it)?;
        if it > 0 {
            e.check(OMEGA, tol2, false, krylov::BREAKDOWN_OMEGA, it)?;
            e.scalar(Sc::Div, BETA, RHO, RHOP)?;
            e.scalar(Sc::Div, T1, ALPHA, OMEGA)?;
            e.scalar(Sc::Mul, BETA, BETA, T1)?;
            e.axpy(P, V, Some(OMEGA), mone)?;
            e.scal(P, BETA)?;
            e.add(P, P, R)?;
        } else {
            e.copy(P, R)?;
        }
        e.precond(m, P, PH)?;
        e.apply(a, PH, V)?;
        e.dot(RT, V, RV)?;
        e.check(RV, f64::MIN_POSITIVE, false, krylov::BREAKDOWN_OMEGA, it)?;
        e.scalar(Sc::Div, ALPHA, RHO, RV)?;
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
        e.axpy(R, TV, Some(OMEGA), mone)?;
        e.scalar(Sc::Copy, RHOP, RHO, RHO)?;
        it += 1;
        if e.poll(it)? {
            break;
        }
    }
    finish(&e, X, st.maxiter)
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
    let st = match start("cgs", a, b, opts)? {
        Ok(s) => s,
        Err(sol) => return Ok(sol),
    };
    const X: usize = 0;
    const R: usize = 1;
    const RT: usize = 2;
    const P: usize = 3;
    const U: usize = 4;
    const Q: usize = 5;
    const PH: usize = 6;
    const VH: usize = 7;
    const UQ: usize = 8;
    const UH: usize = 9;
    const B: usize = 10;
    const AX: usize = 11;
    const RHO: usize = 0;
    const RHOP: usize = 1;
    const ALPHA: usize = 2;
    const BETA: usize = 3;
    const RV: usize = 4;
    const NRM: usize = 5;
    let mut e = Engine::<T>::new(b.device(), st.n, 12, 6)?;
    init_xr(&mut e, a, &st, opts, X, R, AX)?;
    e.load(B, &st.b)?;
    e.copy(RT, R)?;
    let tol2 = krylov::eps::<T>().powi(2);
    let one = T::one();
    let mone = krylov::re::<T>(-1.0);
    let m = opts.m;
    let mut it = 0;
    while it < st.maxiter {
        e.dot(R, R, NRM)?;
        e.check(NRM, st.atol, true, krylov::CONVERGED, it)?;
        e.dot(RT, R, RHO)?;
        e.check(RHO, tol2, false, krylov::BREAKDOWN_RHO, it)?;
        if it > 0 {
            e.scalar(Sc::Div, BETA, RHO, RHOP)?;
            // u = r + beta q; p = u + beta (q + beta p)
            e.copy(U, R)?;
            e.axpy(U, Q, Some(BETA), one)?;
            e.scal(P, BETA)?;
            e.add(P, P, Q)?;
            e.scal(P, BETA)?;
            e.add(P, P, U)?;
        } else {
            e.copy(P, R)?;
            e.copy(U, R)?;
        }
        e.precond(m, P, PH)?;
        e.apply(a, PH, VH)?;
        e.dot(RT, VH, RV)?;
        e.check(RV, f64::MIN_POSITIVE, false, krylov::BREAKDOWN_OMEGA, it)?;
        e.scalar(Sc::Div, ALPHA, RHO, RV)?;
        e.copy(Q, U)?;
        e.axpy(Q, VH, Some(ALPHA), mone)?;
        e.add(UQ, U, Q)?;
        e.precond(m, UQ, UH)?;
        e.axpy(X, UH, Some(ALPHA), one)?;
        e.apply(a, X, AX)?;
        e.sub(R, B, AX)?;
        e.scalar(Sc::Copy, RHOP, RHO, RHO)?;
        it += 1;
        if e.poll(it)? {
            break;
        }
    }
    finish(&e, X, st.maxiter)
}
