//! `eigsh`: a few eigenvalues of a Hermitian operator by thick-restart Lanczos (Krylov–Schur for
//! Hermitian matrices) with full reorthogonalisation. The Krylov vectors, the products and every
//! vector operation stay on the operator's device (the solver engine); the small projected
//! matrix (ncv × ncv) is read to the host once per Lanczos step and diagonalised there with faer.
//! Shift-invert mode (`sigma`) runs the same iteration on `(A − σI)⁻¹`, applied through the
//! crate's sparse LU ([`splu`](crate::linalg::splu)) or a user's `opinv` operator. The
//! generalized problem `A x = λ M x` (SciPy's `M`) runs Lanczos in the `M` inner product on
//! `M⁻¹A` (ARPACK's mode 2) or, with `sigma`, on `(A − σM)⁻¹M` (mode 3).

use crate::direct::{splu, SuperLu};
use crate::krylov::{self, Engine};
use crate::linalg::{LinearOperator, Scalar};
use crate::matrix::CsrMatrix;
use cusci_core::error::make;
use cusci_core::{c64, Array, Device, Error, Float, Result};

/// Which eigenvalues [`eigsh`] returns (SciPy's `which`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Which {
    /// Largest magnitude (SciPy's default).
    #[default]
    LM,
    /// Smallest magnitude.
    SM,
    /// Largest algebraic.
    LA,
    /// Smallest algebraic.
    SA,
    /// Both ends: `k / 2` from each end of the spectrum (algebraic), the odd one more from the
    /// high end (SciPy's `'BE'`).
    BE,
}

/// Options of [`eigsh`] (SciPy's keyword arguments).
#[derive(Clone, Copy)]
pub struct EigshOptions<'a, T: Float> {
    /// Which eigenvalues (default [`Which::LM`]); with `sigma` it applies to the shifted values
    /// `ν = 1 / (λ − σ)` (so [`Which::LM`] gives the eigenvalues nearest `sigma`), as SciPy.
    pub which: Which,
    /// Shift-invert mode (SciPy's `sigma`, mode 3 of ARPACK): the eigenvalues nearest `sigma`,
    /// from Lanczos on `(A − σI)⁻¹`. For a sparse matrix `A − σI` is factored once by
    /// [`splu`](crate::linalg::splu) (on the matrix's device); other operators need `opinv`.
    /// Default none.
    pub sigma: Option<f64>,
    /// The operator `x ↦ (A − σI)⁻¹ x` for shift-invert mode (SciPy's `OPinv`); used instead of
    /// factoring `A − σI`. Needed when `A` is not a sparse matrix. Default none.
    pub opinv: Option<&'a dyn LinearOperator<T>>,
    /// SciPy's `M`: the Hermitian positive definite matrix of the generalized problem
    /// `A x = λ M x` (default none: `M = I`). Without `sigma` the iteration runs on `M⁻¹A`
    /// (`M⁻¹` from `minv`, else the sparse LU of `M`); with `sigma` on `(A − σM)⁻¹M`
    /// (`A − σM` factored, or `opinv`); both in the `M` inner product, so the eigenvectors
    /// are `M`-orthonormal. Default none.
    pub m: Option<&'a dyn LinearOperator<T>>,
    /// SciPy's `Minv`: the operator `x ↦ M⁻¹ x` for the generalized problem without `sigma`,
    /// used instead of factoring `M` (needed when `M` is not a sparse matrix). Default none.
    pub minv: Option<&'a dyn LinearOperator<T>>,
    /// Krylov basis size (default `min(n, max(2k + 1, 20))`; must be in `k+1..=n`).
    pub ncv: Option<usize>,
    /// Restart limit (default `10 n`).
    pub maxiter: Option<usize>,
    /// Relative accuracy of the eigenvalues (default 0: machine precision).
    pub tol: f64,
    /// Starting vector (default a fixed pseudo-random vector).
    pub v0: Option<&'a Array<T>>,
    /// Compute the eigenvectors (default true).
    pub return_eigenvectors: bool,
}

impl<T: Float> Default for EigshOptions<'_, T> {
    fn default() -> Self {
        EigshOptions {
            which: Which::LM,
            sigma: None,
            opinv: None,
            m: None,
            minv: None,
            ncv: None,
            maxiter: None,
            tol: 0.0,
            v0: None,
            return_eigenvectors: true,
        }
    }
}

/// The result of [`eigsh`]: eigenvalues in ascending order (as SciPy) and, when asked, the
/// eigenvectors as the columns of an (n, k) array on the operator's device.
#[derive(Debug, Clone)]
pub struct EigshResult<T: Float> {
    /// The k eigenvalues, ascending.
    pub w: Vec<f64>,
    /// The eigenvectors (column `i` for `w[i]`), orthonormal.
    pub v: Option<Array<T>>,
}

fn cx<T: Float>(v: T) -> c64 {
    v.to_c64()
}

pub(crate) fn pseudo_random<T: Float>(n: usize, seed: u64, dev: &Device) -> Result<Array<T>> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let v: Vec<T> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            krylov::re::<T>((s >> 11) as f64 / (1u64 << 53) as f64 - 0.5)
        })
        .collect();
    Array::from_vec(v, &[n], dev)
}

/// `k` eigenvalues (and eigenvectors) of a Hermitian operator (SciPy's `eigsh`: `which` = LM,
/// SM, LA, SA or BE; shift-invert mode with `sigma`; the generalized problem with `M`; no
/// `mode`). Thick-restart Lanczos
/// with full reorthogonalisation (two Gram–Schmidt passes against the whole basis, so no
/// spurious copies of eigenvalues); the Ritz pairs are accepted when
/// `β |s_m,i| ≤ tol · max(ε^(2/3), |θ_i|)` for every wanted pair (ARPACK's test). An invariant
/// subspace (e.g. the identity matrix, where the Krylov space has dimension 1) is handled by
/// continuing with a fresh random direction, so repeated eigenvalues come out with their
/// multiplicity.
///
/// With `sigma` (shift-invert, ARPACK's mode 3) the iteration runs on `OP = (A − σI)⁻¹`, whose
/// eigenvalues are `ν = 1 / (λ − σ)`; `which` picks among the `ν` (LM: the `λ` nearest `σ`) and
/// the returned values are `λ = σ + 1/ν`. For a [`CsrMatrix`]/[`CscMatrix`](crate::CscMatrix)
/// `A − σI` is built and factored once by [`splu`](crate::linalg::splu) on the matrix's device
/// (each product is then two triangular solves there); any other operator needs
/// [`EigshOptions::opinv`] (SciPy would fall back to GMRES on `A − σI`; this crate does not).
///
/// With `M` ([`EigshOptions::m`], Hermitian positive definite) the problem is `A x = λ M x`:
/// without `sigma` the Lanczos iteration runs on `M⁻¹A` (ARPACK's mode 2; `M⁻¹` from
/// [`EigshOptions::minv`] or the sparse LU of `M`), with `sigma` on `(A − σM)⁻¹M` (mode 3;
/// `A − σM` factored by `splu`, or `opinv` = `(A − σM)⁻¹`). The inner products are those of
/// `M` (classical Gram–Schmidt twice per step, one product with `M` per pass and one for the
/// norm), so the eigenvectors are `M`-orthonormal, as ARPACK's.
///
/// On a GPU the basis vectors, the operator products, the dot products and the updates stay on the
/// device; the projected ncv × ncv matrix is read to the host once per Lanczos step and
/// diagonalised there with faer (a small dense problem: a documented hybrid).
///
/// ```
/// use cusci_sparse::{diags, Device, linalg::{eigsh, EigshOptions, Which}};
/// let a = diags::<f64>(&[&[1.0, 2.0, 3.0, 4.0, 5.0]], &[0], None, &Device::Cpu)?;
/// let r = eigsh(&a, 2, &EigshOptions { which: Which::LA, ..Default::default() })?;
/// assert!((r.w[0] - 4.0).abs() < 1e-10 && (r.w[1] - 5.0).abs() < 1e-10);
/// // shift-invert: the two eigenvalues nearest 2.2
/// let r = eigsh(&a, 2, &EigshOptions { sigma: Some(2.2), ..Default::default() })?;
/// assert!((r.w[0] - 2.0).abs() < 1e-10 && (r.w[1] - 3.0).abs() < 1e-10);
/// // the generalized problem A x = λ M x with M = 2 I: the eigenvalues halve
/// let m = diags::<f64>(&[&[2.0; 5]], &[0], None, &Device::Cpu)?;
/// let r = eigsh(&a, 1, &EigshOptions { which: Which::LA, m: Some(&m), ..Default::default() })?;
/// assert!((r.w[0] - 2.5).abs() < 1e-10);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square operator, a `v0` or an `opinv` of the wrong shape,
/// `InvalidArgument` for `k = 0` or `k ≥ n` (SciPy's ARPACK limit), an `ncv` outside
/// `k+1..=n`, a negative `tol`, a zero `v0`, a non-finite `sigma`, or `sigma` on an operator
/// that is not a sparse matrix without `opinv`, `M` (without `sigma`) that is not a sparse
/// matrix without `minv`, an `M` that is not positive definite on the Krylov vectors
/// (`NotPositiveDefinite`); `Singular` when `A − σI` is singular (σ an
/// eigenvalue); `NoConvergence { iterations, residual }` when the wanted pairs have not
/// converged after `maxiter` restarts, and the operator's errors.
pub fn eigsh<T: Scalar>(
    a: &dyn LinearOperator<T>,
    k: usize,
    opts: &EigshOptions<T>,
) -> Result<EigshResult<T>> {
    let op = "eigsh";
    let n = check_square_k(op, a, k, false)?;
    check_m(op, n, opts.m, opts.minv)?;
    match (opts.sigma, opts.m) {
        (None, None) => lanczos(a, None, k, opts, None),
        (None, Some(mm)) => {
            // mode 2: OP = M⁻¹ A in the M inner product
            let minv = m_inverse(op, mm, opts.minv)?;
            lanczos(
                &Compose {
                    first: a,
                    then: &minv,
                },
                Some(mm),
                k,
                opts,
                None,
            )
        }
        (Some(sigma), mm) => {
            if !sigma.is_finite() {
                return Err(make::arg(op, "sigma must be finite"));
            }
            let si = ShiftInvert::new_general(op, a, mm, opts.opinv, c64::new(sigma, 0.0), n)?;
            match mm {
                None => lanczos(&si, None, k, opts, Some(sigma)),
                // mode 3: OP = (A − σM)⁻¹ M in the M inner product
                Some(mm) => lanczos(
                    &Compose {
                        first: mm,
                        then: &si,
                    },
                    Some(mm),
                    k,
                    opts,
                    Some(sigma),
                ),
            }
        }
    }
}

/// The checks of `M` and `Minv` of [`eigsh`] and [`eigs`](crate::linalg::eigs): square of
/// order `n` (`ShapeMismatch`).
pub(crate) fn check_m<T: Float>(
    op: &str,
    n: usize,
    mm: Option<&dyn LinearOperator<T>>,
    minv: Option<&dyn LinearOperator<T>>,
) -> Result<()> {
    for (name, o) in [("M", mm), ("Minv", minv)] {
        if let Some(o) = o {
            if o.shape() != (n, n) {
                return Err(make::shape(
                    op,
                    format!("{name} of shape {:?} for n = {n}", o.shape()),
                ));
            }
        }
    }
    Ok(())
}

/// `x ↦ M⁻¹ x`: the user's `Minv`, or the sparse LU of `M` (`InvalidArgument` when `M` is not
/// a sparse matrix and no `Minv` is given).
pub(crate) fn m_inverse<'a, T: Scalar>(
    op: &str,
    mm: &dyn LinearOperator<T>,
    minv: Option<&'a dyn LinearOperator<T>>,
) -> Result<ShiftInvert<'a, T>> {
    if let Some(o) = minv {
        return Ok(ShiftInvert::User(o));
    }
    let Some(csr) = mm.to_csr() else {
        return Err(make::arg(
            op,
            "M that is not a sparse matrix needs Minv (or sigma)",
        ));
    };
    let csr = csr?;
    let dev = csr.device().clone();
    Ok(ShiftInvert::Lu(Box::new(splu(&csr)?), dev))
}

/// `x ↦ then(first(x))`: the operators of the generalized modes.
pub(crate) struct Compose<'a, T: Float> {
    pub(crate) first: &'a dyn LinearOperator<T>,
    pub(crate) then: &'a dyn LinearOperator<T>,
}

impl<T: Float> LinearOperator<T> for Compose<'_, T> {
    fn shape(&self) -> (usize, usize) {
        (self.then.shape().0, self.first.shape().1)
    }
    fn matvec(&self, x: &Array<T>) -> Result<Array<T>> {
        let y = crate::linalg::checked_matvec(self.first, x)?;
        crate::linalg::checked_matvec(self.then, &y)
    }
    fn device(&self) -> Option<Device> {
        self.first.device().or_else(|| self.then.device())
    }
}

/// The checks of [`eigsh`] and [`eigs`](crate::linalg::eigs): a square operator
/// (`ShapeMismatch`) and `1 ≤ k < n` (eigsh) or `1 ≤ k < n − 1` (eigs, `eigs = true`: SciPy's
/// ARPACK limits; `InvalidArgument`). Returns `n`.
pub(crate) fn check_square_k<T: Float>(
    op: &str,
    a: &dyn LinearOperator<T>,
    k: usize,
    eigs: bool,
) -> Result<usize> {
    let (m0, n) = a.shape();
    if m0 != n {
        return Err(make::shape(
            op,
            format!("expected a square operator, got ({m0}, {n})"),
        ));
    }
    let limit = if eigs { n.saturating_sub(1) } else { n };
    if k == 0 || k >= limit {
        return Err(make::arg(
            op,
            format!("k = {k} must be in 1..{limit} (n = {n})"),
        ));
    }
    Ok(n)
}

/// `x ↦ (A − σI)⁻¹ x`: the user's `opinv`, or the sparse LU of `A − σI` (shift-invert mode of
/// [`eigsh`] and [`eigs`](crate::linalg::eigs)).
pub(crate) enum ShiftInvert<'a, T: Float> {
    User(&'a dyn LinearOperator<T>),
    Lu(Box<SuperLu<T>>, Device),
}

impl<'a, T: Scalar> ShiftInvert<'a, T> {
    /// The user's `opinv`, or the sparse LU of `A − σM` (`M = I` when `mm` is none; a sparse
    /// `M` is needed unless `opinv` is given).
    pub(crate) fn new_general(
        op: &str,
        a: &dyn LinearOperator<T>,
        mm: Option<&dyn LinearOperator<T>>,
        opinv: Option<&'a dyn LinearOperator<T>>,
        sigma: c64,
        n: usize,
    ) -> Result<Self> {
        if let Some(o) = opinv {
            if o.shape() != (n, n) {
                return Err(make::shape(
                    op,
                    format!("opinv of shape {:?} for n = {n}", o.shape()),
                ));
            }
            return Ok(ShiftInvert::User(o));
        }
        let Some(csr) = a.to_csr() else {
            return Err(make::arg(
                op,
                "sigma with an operator that is not a sparse matrix needs opinv",
            ));
        };
        let csr: CsrMatrix<T> = csr?;
        let dev = csr.device().clone();
        let base = match mm {
            None => crate::construct::eye::<T>(n, n, 0, &dev)?,
            Some(mm) => match mm.to_csr() {
                Some(c) => c?.to_device(&dev)?,
                None => {
                    return Err(make::arg(
                        op,
                        "sigma with an M that is not a sparse matrix needs opinv",
                    ))
                }
            },
        };
        let shift = base.mul_scalar(T::from_c64(sigma))?;
        let lu = splu(&csr.sub(&shift)?)?;
        Ok(ShiftInvert::Lu(Box::new(lu), dev))
    }
}

impl<T: Float> LinearOperator<T> for ShiftInvert<'_, T> {
    fn shape(&self) -> (usize, usize) {
        match self {
            ShiftInvert::User(o) => o.shape(),
            ShiftInvert::Lu(lu, _) => lu.shape(),
        }
    }
    fn matvec(&self, x: &Array<T>) -> Result<Array<T>> {
        match self {
            ShiftInvert::User(o) => crate::linalg::checked_matvec(*o, x),
            ShiftInvert::Lu(lu, _) => lu.solve(x),
        }
    }
    fn device(&self) -> Option<Device> {
        match self {
            ShiftInvert::User(o) => o.device(),
            ShiftInvert::Lu(_, d) => Some(d.clone()),
        }
    }
}

/// The Lanczos iteration of [`eigsh`] on `a` (`A`, or `(A − σI)⁻¹` when `sigma` is given: the
/// returned values are then `σ + 1/θ`), in the inner product of `b` (the identity when none);
/// `opts.sigma`, `opts.opinv`, `opts.m` and `opts.minv` are not read here.
pub(crate) fn lanczos<T: Float>(
    a: &dyn LinearOperator<T>,
    b: Option<&dyn LinearOperator<T>>,
    k: usize,
    opts: &EigshOptions<T>,
    sigma: Option<f64>,
) -> Result<EigshResult<T>> {
    let op = "eigsh";
    let n = check_square_k(op, a, k, false)?;
    let m = opts.ncv.unwrap_or((2 * k + 1).max(20)).min(n);
    if m <= k || m > n {
        return Err(make::arg(
            op,
            format!("ncv = {m} must be in {}..={n}", k + 1),
        ));
    }
    if opts.tol.is_nan() || opts.tol < 0.0 {
        return Err(make::arg(op, "tol must be non-negative"));
    }
    let maxiter = opts.maxiter.unwrap_or(10 * n).max(1);
    let eps = krylov::eps::<T>();
    let tol = if opts.tol == 0.0 { eps } else { opts.tol };
    // the device: v0's, else the operator's (CPU for operators that do not say)
    let v0 = match opts.v0 {
        Some(v0) => {
            if v0.shape() != [n] {
                return Err(make::shape(
                    op,
                    format!("v0 of shape {:?} for n = {n}", v0.shape()),
                ));
            }
            v0.contiguous()?
        }
        None => pseudo_random::<T>(n, 1, &a.device().unwrap_or(Device::Cpu))?,
    };
    let dev = v0.device().clone();
    // vectors: V_0..V_m, W, then Z_0..Z_{m-1} for the Ritz combinations, then U = B W
    let w_ix = m + 1;
    let z = |i: usize| m + 2 + i;
    let u_ix = 2 * m + 2;
    let mut e = Engine::<T>::new(&dev, n, 2 * m + 2 + usize::from(b.is_some()), 2 * m + 4)?;
    let inv_slot = 2 * m + 3;
    let nn_slot = 2 * m + 2;
    // the vector whose dots with the basis give the B inner products of vector `x` (B x, in U)
    let bdot = |e: &mut Engine<T>, x: usize| -> Result<usize> {
        match b {
            None => Ok(x),
            Some(b) => {
                e.apply(b, x, u_ix)?;
                Ok(u_ix)
            }
        }
    };
    let not_pd = || Error::NotPositiveDefinite {
        op: op.into(),
        index: 0,
    };
    e.load(0, &v0)?;
    let bx = bdot(&mut e, 0)?;
    e.dot(0, bx, nn_slot)?;
    let n2 = e.scalars()?[nn_slot];
    if b.is_some() && n2 < 0.0 {
        return Err(not_pd());
    }
    let n0 = n2.sqrt();
    if n0 == 0.0 || !n0.is_finite() {
        return Err(make::arg(op, "v0 must be a non-zero finite vector"));
    }
    e.set_scalar(inv_slot, krylov::re(1.0 / n0))?;
    e.scal(0, inv_slot)?;
    let mone = krylov::re::<T>(-1.0);
    let mut h = vec![vec![c64::new(0.0, 0.0); m]; m];
    let mut kk = 0usize;
    let mut beta = 0.0f64;
    let mut seed = 2u64;
    let mut worst = f64::INFINITY;
    for iter in 0..maxiter {
        for j in kk..m {
            e.apply(a, j, w_ix)?;
            let mut hc = vec![c64::new(0.0, 0.0); j + 1];
            for pass in 0..2 {
                let base = pass * (m + 1);
                // with B: classical Gram–Schmidt within the pass (the dots with B W of its start)
                let bw = bdot(&mut e, w_ix)?;
                for i in 0..=j {
                    e.dot(i, bw, base + i)?;
                    e.axpy(w_ix, i, Some(base + i), mone)?;
                }
            }
            let bw = bdot(&mut e, w_ix)?;
            e.dot(w_ix, bw, nn_slot)?;
            let s = e.scalars_t()?;
            for (i, hi) in hc.iter_mut().enumerate() {
                *hi = cx(s[i]) + cx(s[m + 1 + i]);
            }
            for i in 0..j {
                h[i][j] = hc[i];
                h[j][i] = hc[i].conj();
            }
            h[j][j] = c64::new(hc[j].re, 0.0);
            let col: f64 = hc.iter().map(|v| v.norm_sqr()).sum::<f64>().sqrt();
            if b.is_some() && cx(s[nn_slot]).re < -eps * col.max(f64::MIN_POSITIVE) {
                return Err(not_pd());
            }
            beta = cx(s[nn_slot]).re.max(0.0).sqrt();
            if beta <= eps * col.max(f64::MIN_POSITIVE) * 10.0 || beta == 0.0 {
                // an invariant subspace: continue with a fresh direction orthogonal to the basis
                beta = 0.0;
                {
                    let r = pseudo_random::<T>(n, seed, &dev)?;
                    seed += 1;
                    e.load(w_ix, &r)?;
                    for _ in 0..2 {
                        let bw = bdot(&mut e, w_ix)?;
                        for i in 0..=j {
                            e.dot(i, bw, m + 1 + i)?;
                            e.axpy(w_ix, i, Some(m + 1 + i), mone)?;
                        }
                    }
                    let bw = bdot(&mut e, w_ix)?;
                    e.dot(w_ix, bw, nn_slot)?;
                    let nr = e.scalars()?[nn_slot].sqrt();
                    e.set_scalar(inv_slot, krylov::re(1.0 / nr))?;
                }
            } else {
                e.set_scalar(inv_slot, krylov::re(1.0 / beta))?;
            }
            e.copy(j + 1, w_ix)?;
            e.scal(j + 1, inv_slot)?;
        }
        // Rayleigh–Ritz on the projected matrix
        let hm = faer::Mat::<c64>::from_fn(m, m, |i, j| h[i][j]);
        let ev = hm
            .self_adjoint_eigen(faer::Side::Lower)
            .map_err(|_| Error::NoConvergence {
                op: op.into(),
                iterations: iter,
                residual: f64::NAN,
            })?;
        let theta: Vec<f64> = (0..m).map(|i| ev.S().column_vector()[i].re).collect();
        let sv = ev.U();
        let order = wanted_order(&theta, opts.which);
        let eps23 = eps.powf(2.0 / 3.0);
        worst = 0.0f64;
        let mut ok = true;
        for &i in &order[..k] {
            let res = beta * sv[(m - 1, i)].norm();
            worst = worst.max(res);
            if res > tol * eps23.max(theta[i].abs()) {
                ok = false;
            }
        }
        let last = iter + 1 == maxiter;
        if ok || last {
            if !ok {
                return Err(Error::NoConvergence {
                    op: op.into(),
                    iterations: maxiter,
                    residual: worst,
                });
            }
            // the eigenvalues of A (σ + 1/θ in shift-invert mode), ascending
            let lam = |t: f64| sigma.map_or(t, |s| s + 1.0 / t);
            let mut sel: Vec<usize> = order[..k].to_vec();
            sel.sort_by(|x, y| lam(theta[*x]).total_cmp(&lam(theta[*y])));
            let w: Vec<f64> = sel.iter().map(|&i| lam(theta[i])).collect();
            let v = if opts.return_eigenvectors {
                let mut out = Array::<T>::zeros(&[n, k], &dev)?;
                for (c, &i) in sel.iter().enumerate() {
                    ritz(&mut e, &sv, i, m, z(0))?;
                    e.put_col(z(0), &mut out, c)?;
                }
                Some(out)
            } else {
                None
            };
            return Ok(EigshResult { w, v });
        }
        // thick restart: keep the best kk Ritz vectors, continue from V_m
        kk = (k + (m - k) / 2).min(m - 1).max(k);
        for (c, &i) in order[..kk].iter().enumerate() {
            ritz(&mut e, &sv, i, m, z(c))?;
        }
        for c in 0..kk {
            e.copy(c, z(c))?;
        }
        e.copy(kk, m)?;
        for row in h.iter_mut() {
            row.iter_mut().for_each(|v| *v = c64::new(0.0, 0.0));
        }
        for (c, &i) in order[..kk].iter().enumerate() {
            h[c][c] = c64::new(theta[i], 0.0);
        }
    }
    Err(Error::NoConvergence {
        op: op.into(),
        iterations: maxiter,
        residual: worst,
    })
}

/// The indices of the Ritz values `theta`, most wanted first for `which` (ties by index, so
/// the order is the same on every run): BE alternates the largest and the smallest, the
/// largest first.
fn wanted_order(theta: &[f64], which: Which) -> Vec<usize> {
    let m = theta.len();
    let mut order: Vec<usize> = (0..m).collect();
    let key = |i: &usize| -> f64 {
        let t = theta[*i];
        match which {
            Which::LM => -t.abs(),
            Which::SM => t.abs(),
            Which::LA | Which::BE => -t,
            Which::SA => t,
        }
    };
    order.sort_by(|x, y| key(x).total_cmp(&key(y)));
    if which == Which::BE {
        // order is descending: take from the front (high) and the back (low) in turn
        let (mut lo, mut hi) = (0usize, m);
        let mut be = Vec::with_capacity(m);
        for c in 0..m {
            if c % 2 == 0 {
                be.push(order[lo]);
                lo += 1;
            } else {
                hi -= 1;
                be.push(order[hi]);
            }
        }
        order = be;
    }
    order
}

/// Vector `dst` = `Σ_l S[l, i] V_l` (a Ritz vector).
fn ritz<T: Float>(
    e: &mut Engine<T>,
    sv: &faer::MatRef<'_, c64>,
    i: usize,
    m: usize,
    dst: usize,
) -> Result<()> {
    e.axpy(dst, dst, None, T::zero().sub(T::one()))?;
    for l in 0..m {
        let c = sv[(l, i)];
        let t = T::from_c64(c);
        e.axpy(dst, l, None, t)?;
    }
    Ok(())
}
