//! `scipy.sparse.linalg`: the [`LinearOperator`] trait and the conjugate gradient [`cg`].
//!
//! The solvers run on the device of their right-hand side: on a GPU every vector operation and
//! every scalar of the iteration (dot products, step lengths, the convergence flag) stays on the
//! device; the host reads the convergence flag once every [`POLL`] iterations and at the end, so
//! an iteration costs no host synchronisation. Kernels do nothing once the flag is set, so the
//! result is the same as a check after every iteration (SciPy's loop).

use crate::cpu;
use crate::cuda::{blocks, launch, p};
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
/// not converged after `k` iterations), plus the iterations run.
#[derive(Debug, Clone)]
pub struct Solution<T: Float> {
    pub x: Array<T>,
    pub info: usize,
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
        info: maxiter,
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
        info: maxiter,
        iterations: maxiter,
    })
}
