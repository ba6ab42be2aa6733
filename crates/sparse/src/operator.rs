//! What the iterative solvers' front ends and both devices share: [`LinearOperator`] and its
//! checked products, the solvers' options and results, and the system [`cg`](crate::linalg::cg)
//! iterates on.

use crate::matrix::{CscMatrix, CsrMatrix};
use crate::SpIndex;
use cusci_core::error::make;
use cusci_core::{Array, Device, Float, Result};

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
    /// The device the operator works on, when it has one (sparse matrices); solvers that make
    /// their own start vectors (`eigsh`) put them there. The default says none (the CPU is used
    /// unless a start vector is given).
    fn device(&self) -> Option<Device> {
        None
    }
    /// The operator as a CSR matrix with `i32` indices when it is a sparse matrix: the
    /// shift-invert modes of [`eigsh`](crate::linalg::eigsh) and [`eigs`](crate::linalg::eigs)
    /// factor `A − σI` from it. The default says it is not one.
    fn to_csr(&self) -> Option<Result<CsrMatrix<T>>> {
        None
    }
}

/// Any index type: `i32` and `i64` matrices are operators of the solvers alike.
impl<T: Float, I: SpIndex> LinearOperator<T> for CsrMatrix<T, I> {
    fn shape(&self) -> (usize, usize) {
        CsrMatrix::shape(self)
    }
    fn matvec(&self, x: &Array<T>) -> Result<Array<T>> {
        check_vector(x)?;
        self.dot(x)
    }
    /// `Aᴴ x` as `conj(Aᵀ conj(x))` with the transpose built on the first call and kept with
    /// the matrix ([`CsrMatrix::transpose`]'s CSR form); real types skip the conjugations.
    fn rmatvec(&self, x: &Array<T>) -> Result<Array<T>> {
        check_vector(x)?;
        adjoint_product(&self.transposed()?, x)
    }
    fn device(&self) -> Option<Device> {
        Some(CsrMatrix::device(self).clone())
    }
    fn to_csr(&self) -> Option<Result<CsrMatrix<T>>> {
        Some(self.with_index::<i32>())
    }
}

/// `a.matvec(x)` checked as SciPy's `LinearOperator.matvec` checks it: the result must be a
/// vector of `a.shape().0` elements on `x`'s device (`ShapeMismatch`, `DeviceMismatch`), so that
/// an operator returning the wrong length is an error rather than a panic or a silent answer in
/// the solvers. Every solver calls operators through this and [`checked_rmatvec`].
pub(crate) fn checked_matvec<T: Float>(
    a: &(impl LinearOperator<T> + ?Sized),
    x: &Array<T>,
) -> Result<Array<T>> {
    let y = a.matvec(x)?;
    check_product("LinearOperator.matvec", a.shape(), a.shape().0, x, &y)?;
    Ok(y)
}

/// As [`checked_matvec`] for `a.rmatvec(x)` (a vector of `a.shape().1` elements).
pub(crate) fn checked_rmatvec<T: Float>(
    a: &(impl LinearOperator<T> + ?Sized),
    x: &Array<T>,
) -> Result<Array<T>> {
    let y = a.rmatvec(x)?;
    check_product("LinearOperator.rmatvec", a.shape(), a.shape().1, x, &y)?;
    Ok(y)
}

fn check_product<T: Float>(
    op: &str,
    shape: (usize, usize),
    len: usize,
    x: &Array<T>,
    y: &Array<T>,
) -> Result<()> {
    if y.shape() != [len] {
        return Err(make::shape(
            op,
            format!(
                "an operator of shape {shape:?} returned an array of shape {:?} for x of shape {:?}; expected ({len},)",
                y.shape(),
                x.shape()
            ),
        ));
    }
    if y.device() != x.device() {
        return Err(cusci_core::Error::DeviceMismatch {
            op: op.into(),
            left: x.device().to_string(),
            right: y.device().to_string(),
        });
    }
    Ok(())
}

fn check_vector<T: Float>(x: &Array<T>) -> Result<()> {
    if x.ndim() != 1 {
        return Err(make::shape(
            "matvec",
            format!("x must be 1-D, got {:?}", x.shape()),
        ));
    }
    Ok(())
}

/// `conj(t x̄)`: `Bᴴ x` for the matrix B whose transpose is `t` (no conjugation for real types).
fn adjoint_product<T: Float, I: SpIndex>(t: &CsrMatrix<T, I>, x: &Array<T>) -> Result<Array<T>> {
    if T::DTYPE.is_complex() {
        t.dot(&x.conj()?)?.conj()
    } else {
        t.dot(x)
    }
}

/// Any index type, as for [`CsrMatrix`].
impl<T: Float, I: SpIndex> LinearOperator<T> for CscMatrix<T, I> {
    fn shape(&self) -> (usize, usize) {
        CscMatrix::shape(self)
    }
    /// `A x` through the CSR form, built on the first call and kept with the matrix.
    fn matvec(&self, x: &Array<T>) -> Result<Array<T>> {
        check_vector(x)?;
        self.dot(x)
    }
    /// `Aᴴ x` as `conj(Aᵀ conj(x))` on the stored arrays (those of `Aᵀ` in CSR): no copy of
    /// the matrix; real types skip the conjugations.
    fn rmatvec(&self, x: &Array<T>) -> Result<Array<T>> {
        check_vector(x)?;
        adjoint_product(&self.transpose(), x)
    }
    fn device(&self) -> Option<Device> {
        Some(CscMatrix::device(self).clone())
    }
    fn to_csr(&self) -> Option<Result<CsrMatrix<T>>> {
        Some(self.tocsr().and_then(|c| c.with_index::<i32>()))
    }
}

/// The type of [`FnOperator`]'s missing `rmatvec` (an operator made by [`FnOperator::new`]).
pub type NoRmatvec<T> = fn(&Array<T>) -> Result<Array<T>>;

/// A [`LinearOperator`] from a shape and closures (SciPy's `LinearOperator(shape, matvec,
/// rmatvec)`): [`FnOperator::new`] gives `matvec` only (its `rmatvec` is `NotImplemented`, as
/// SciPy's when none is given), [`FnOperator::with_rmatvec`] both, so that the solvers that need
/// `Aᴴ x` ([`bicg`](crate::linalg::bicg), [`qmr`](crate::linalg::qmr),
/// [`lsqr`](crate::linalg::lsqr), [`lsmr`](crate::linalg::lsmr), [`svds`](crate::linalg::svds))
/// take a function operator too. Each product is checked by the solvers (length and device).
///
/// ```
/// use cusci_sparse::linalg::{FnOperator, LinearOperator};
/// use cusci_sparse::{Array, Device};
/// let twice = FnOperator::new((2, 2), |x: &Array<f64>| x.mul_scalar(2.0));
/// let y = twice.matvec(&Array::from_vec(vec![1.0, 2.0], &[2], &Device::Cpu)?)?;
/// assert_eq!(y.to_vec()?, vec![2.0, 4.0]);
/// // a 1 x 2 operator [1, 1] with its adjoint
/// let sum = FnOperator::with_rmatvec(
///     (1, 2),
///     |x: &Array<f64>| Array::from_vec(vec![x.to_vec()?.iter().sum()], &[1], x.device()),
///     |y: &Array<f64>| Array::from_vec(vec![y.to_vec()?[0]; 2], &[2], y.device()),
/// );
/// let t = sum.rmatvec(&Array::from_vec(vec![3.0], &[1], &Device::Cpu)?)?;
/// assert_eq!(t.to_vec()?, vec![3.0, 3.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
pub struct FnOperator<T: Float, F: Fn(&Array<T>) -> Result<Array<T>>, G = NoRmatvec<T>>
where
    G: Fn(&Array<T>) -> Result<Array<T>>,
{
    shape: (usize, usize),
    f: F,
    g: Option<G>,
    dev: Option<Device>,
    _t: std::marker::PhantomData<T>,
}

impl<T: Float, F: Fn(&Array<T>) -> Result<Array<T>>> FnOperator<T, F> {
    /// The operator `x ↦ f(x)` of the given shape (no `rmatvec`).
    pub fn new(shape: (usize, usize), f: F) -> Self {
        FnOperator {
            shape,
            f,
            g: None,
            dev: None,
            _t: std::marker::PhantomData,
        }
    }
}

impl<T: Float, F, G> FnOperator<T, F, G>
where
    F: Fn(&Array<T>) -> Result<Array<T>>,
    G: Fn(&Array<T>) -> Result<Array<T>>,
{
    /// The operator `x ↦ f(x)` of the given shape whose adjoint product is `y ↦ g(y)`
    /// (`g` takes `shape().0` elements and returns `shape().1`).
    pub fn with_rmatvec(shape: (usize, usize), f: F, g: G) -> Self {
        FnOperator {
            shape,
            f,
            g: Some(g),
            dev: None,
            _t: std::marker::PhantomData,
        }
    }

    /// The same operator working on `dev`: solvers that make their own start vectors
    /// ([`svds`](crate::linalg::svds), [`eigsh`](crate::linalg::eigsh)) put them there (without
    /// it they use the CPU, and closures over device data see CPU vectors).
    pub fn on(mut self, dev: &Device) -> Self {
        self.dev = Some(dev.clone());
        self
    }
}

impl<T: Float, F, G> LinearOperator<T> for FnOperator<T, F, G>
where
    F: Fn(&Array<T>) -> Result<Array<T>>,
    G: Fn(&Array<T>) -> Result<Array<T>>,
{
    fn shape(&self) -> (usize, usize) {
        self.shape
    }
    fn matvec(&self, x: &Array<T>) -> Result<Array<T>> {
        (self.f)(x)
    }
    /// `g(x)` when the operator was made with [`FnOperator::with_rmatvec`], else
    /// `NotImplemented`.
    fn rmatvec(&self, x: &Array<T>) -> Result<Array<T>> {
        match &self.g {
            Some(g) => g(x),
            None => Err(make::not_implemented("LinearOperator.rmatvec", x.device())),
        }
    }
    /// The device given by [`FnOperator::on`], if any.
    fn device(&self) -> Option<Device> {
        self.dev.clone()
    }
}

/// gcrotmk's `truncate`: which recycled vectors are dropped when the space is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Truncate {
    /// Drop the oldest (SciPy's default).
    #[default]
    Oldest,
    /// Keep the `k − 1` directions of the largest singular values (not implemented:
    /// `NotImplemented`).
    Smallest,
}

/// A solver callback: called with the current solution (SciPy's `callback(xk)`).
pub type Callback<'a, T> = &'a dyn Fn(&Array<T>);

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
    /// `gmres` only: the Krylov dimension of a cycle (default 20, at most n).
    pub restart: Option<usize>,
    /// `minres` only: solve `(A − shift·I) x = b` (default 0).
    pub shift: f64,
    /// Called with the current solution after each iteration, as SciPy's `callback(xk)`
    /// (`gmres`: after each restart cycle, SciPy's `callback_type='x'`; `lgmres` and `gcrotmk`:
    /// at the start of each outer iteration, as SciPy). On a GPU a callback makes the solvers
    /// that poll every [`POLL`] iterations read their status every iteration instead. Default none.
    pub callback: Option<Callback<'a, T>>,
    /// `qmr` only: the right preconditioner `M2` (`m` is the left one, `M1`); default none.
    pub m2: Option<&'a dyn LinearOperator<T>>,
    /// `lgmres`'s `inner_m` (default 30) and `gcrotmk`'s `m` (default 20): the inner Krylov
    /// dimension.
    pub inner_m: Option<usize>,
    /// `lgmres`'s `outer_k` (default 3) and `gcrotmk`'s `k` (default `m`): the number of
    /// vectors carried between outer iterations.
    pub outer_k: Option<usize>,
    /// `lgmres` only: keep `A v` with each outer vector (default true).
    pub store_outer_av: bool,
    /// `lgmres` only: put the outer vectors before the Krylov vectors (default false).
    pub prepend_outer_v: bool,
    /// `gcrotmk` only: the truncation rule (default [`Truncate::Oldest`]).
    pub truncate: Truncate,
}

impl<T: Float> Default for SolverOptions<'_, T> {
    fn default() -> Self {
        SolverOptions {
            x0: None,
            rtol: 1e-5,
            atol: 0.0,
            maxiter: None,
            m: None,
            restart: None,
            shift: 0.0,
            callback: None,
            m2: None,
            inner_m: None,
            outer_k: None,
            store_outer_av: true,
            prepend_outer_v: false,
            truncate: Truncate::Oldest,
        }
    }
}

/// The result of an iterative solver: the solution and SciPy's `info` (0 converged, `k > 0`
/// not converged after `k` iterations, negative for a breakdown: −10 (ρ ≈ 0) or −11
/// (ω ≈ 0 or a zero inner product) in `bicgstab`/`cgs`/`bicg`; `qmr`'s −10 (ρ), −11 (β),
/// −12 (γ), −13 (δ), −14 (ε), −15 (ξ); `tfqmr`'s −1 (`r*·v = 0`)), plus the iterations run.
#[derive(Debug, Clone)]
pub struct Solution<T: Float> {
    /// The approximate solution.
    pub x: Array<T>,
    /// SciPy's `info`.
    pub info: i64,
    /// Iterations run (up to the convergence or breakdown test that ended the loop).
    pub iterations: usize,
}

/// The system [`cg`](crate::linalg::cg) iterates on, after the checks.
pub(crate) struct CgProblem<'a, T: Float> {
    /// The operator.
    pub(crate) a: &'a dyn LinearOperator<T>,
    /// The right-hand side (contiguous, nonzero).
    pub(crate) b: &'a Array<T>,
    /// The preconditioner.
    pub(crate) m: Option<&'a dyn LinearOperator<T>>,
    /// The absolute tolerance `max(atol, rtol · ‖b‖)`.
    pub(crate) atol: f64,
    /// The iteration limit.
    pub(crate) maxiter: usize,
    /// True when the start `x` is a given `x0` (then `r = b − A x0`), false for zeros.
    pub(crate) has_x0: bool,
    /// Called with `x` after each iteration.
    pub(crate) callback: Option<Callback<'a, T>>,
}
