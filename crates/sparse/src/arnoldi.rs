//! `eigs`: a few eigenvalues of a general (non-Hermitian) operator by Krylov–Schur restarted
//! Arnoldi with full reorthogonalisation. As in [`eigsh`](crate::linalg::eigsh) the Krylov
//! vectors, the operator products and every vector operation stay on the operator's device (the
//! solver engine); the projected ncv × ncv matrix is read to the host once per Arnoldi step and
//! its eigenproblem and restart (a Schur basis of the wanted Ritz values) are solved there with
//! faer.

use crate::eigen::{check_m, check_square_k, m_inverse, pseudo_random, Compose, ShiftInvert};
use crate::krylov::{self, Engine};
use crate::linalg::{LinearOperator, Scalar};
use cusci_core::error::make;
use cusci_core::{c64, Array, Device, Error, Float, RealFloat, Result};
use faer::Mat;

/// Which eigenvalues [`eigs`] returns (SciPy's `which` of `eigs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EigsWhich {
    /// Largest magnitude (SciPy's default).
    #[default]
    LM,
    /// Smallest magnitude.
    SM,
    /// Largest real part.
    LR,
    /// Smallest real part.
    SR,
    /// Largest imaginary part: `Im λ` for a complex operator, `|Im λ|` for a real one (whose
    /// eigenvalues come in conjugate pairs), as ARPACK.
    LI,
    /// Smallest imaginary part: `Im λ` (complex operators) or `|Im λ|` (real ones).
    SI,
}

/// Options of [`eigs`] (SciPy's keyword arguments; no `OPpart` or `mode`).
#[derive(Clone, Copy)]
pub struct EigsOptions<'a, T: Float> {
    /// Which eigenvalues (default [`EigsWhich::LM`]); with `sigma` it applies to the shifted
    /// values `ν = 1 / (λ − σ)` (so [`EigsWhich::LM`] gives the eigenvalues nearest `sigma`).
    pub which: EigsWhich,
    /// Shift-invert mode (SciPy's `sigma`): the eigenvalues nearest `sigma`, from Arnoldi on
    /// `(A − σI)⁻¹` (a sparse matrix is factored once by [`splu`](crate::linalg::splu); other
    /// operators need `opinv`). A real operator takes a real `sigma` only. Default none.
    pub sigma: Option<c64>,
    /// The operator `x ↦ (A − σI)⁻¹ x` for shift-invert mode (SciPy's `OPinv`; `(A − σM)⁻¹`
    /// with `m`). Default none.
    pub opinv: Option<&'a dyn LinearOperator<T>>,
    /// SciPy's `M`: the matrix of the generalized problem `A x = λ M x` (default none:
    /// `M = I`). Without `sigma` Arnoldi runs on `M⁻¹A` (`M⁻¹` from `minv`, else the sparse LU
    /// of `M`), with `sigma` on `(A − σM)⁻¹M` (`A − σM` factored, or `opinv`), in the standard
    /// inner product (the eigenvectors have unit 2-norm). Default none.
    pub m: Option<&'a dyn LinearOperator<T>>,
    /// SciPy's `Minv`: `x ↦ M⁻¹ x`, used instead of factoring `M`. Default none.
    pub minv: Option<&'a dyn LinearOperator<T>>,
    /// Krylov basis size (default `min(n, max(2k + 1, 20))`; must be in `k+2..=n`).
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

impl<T: Float> Default for EigsOptions<'_, T> {
    fn default() -> Self {
        EigsOptions {
            which: EigsWhich::LM,
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

/// The result of [`eigs`]: `k` complex eigenvalues and, when asked, the unit-norm eigenvectors
/// as the columns of an (n, k) complex array (`C` is c32 for f32 and c32 operators, c64 for f64
/// and c64) on the operator's device.
#[derive(Debug, Clone)]
pub struct EigsResult<C: Float> {
    /// The k eigenvalues, most wanted first (see [`eigs`]).
    pub w: Vec<c64>,
    /// The eigenvectors (column `i` for `w[i]`), each of unit 2-norm.
    pub v: Option<Array<C>>,
}

/// `k` eigenvalues (and eigenvectors) of a square operator (SciPy's `eigs`: `which` = LM, SM,
/// LR, SR, LI or SI; shift-invert mode with `sigma`; `M` as [`EigsOptions::m`]). Real operators give complex
/// results, as SciPy (`f32 → c32`, `f64 → c64`; a conjugate pair of eigenvalues of a real
/// operator comes out as a pair, unless the k-th wanted value splits one).
///
/// Method: Arnoldi with two classical Gram–Schmidt passes against the whole basis, restarted
/// Krylov–Schur style: after each cycle of `ncv` steps the Ritz pairs of the projected matrix
/// `H` are computed with faer, the `p` most wanted Ritz values (`k` plus the number already
/// converged, at least a quarter and at most half of the other `ncv − k`, as ARPACK's
/// adjustment) are deflated one by one into an orthonormal Schur basis `U` of `H` (for a real
/// operator the set is closed under conjugation and the basis is made real), and the iteration
/// continues from `V U` with the projected matrix `Uᴴ H U`. A Ritz pair is accepted when
/// `β |y_m| ≤ max(tol · max(ε^(2/3), |θ|), 10 ε ‖H‖₂)` (ARPACK's test, `tol = 0` meaning ε of
/// the working precision, with a floor at the rounding level of the dense projected matrix,
/// which the estimate of a small `|θ|` could not otherwise reach). An invariant subspace
/// continues with a fresh random direction. Plain `SM` finds interior values slowly, as in
/// SciPy: shift-invert at 0 (`sigma`) is the fast route.
///
/// Order of the result: by `which` (applied to the values the iteration sees, `ν = 1/(λ − σ)`
/// in shift-invert mode), most wanted first; ties by the real part (ascending), then the
/// imaginary part (descending: `a + bi` before `a − bi`). SciPy leaves the order unspecified.
///
/// With `sigma` the iteration runs on `(A − σI)⁻¹` (for a sparse matrix: [`splu`](
/// crate::linalg::splu) of `A − σI` on the matrix's device, two triangular solves a product)
/// and returns `λ = σ + 1/ν`; SciPy's GMRES fallback for general operators is replaced by the
/// `opinv` option, and a complex `sigma` on a real operator (SciPy's `OPpart`) is not supported.
///
/// With `M` ([`EigsOptions::m`]) the problem is `A x = λ M x`: Arnoldi on `M⁻¹A` (`minv`, or
/// the sparse LU of `M`) or, with `sigma`, on `(A − σM)⁻¹M` (`splu(A − σM)` or `opinv`), in the
/// standard inner product (Arnoldi needs no symmetry, so no `M` inner product; eigenvectors of
/// unit 2-norm).
///
/// Devices: on a GPU the Krylov vectors, the products and the orthogonalisation stay on the
/// device; the projected matrix (ncv × ncv) is read to the host once per Arnoldi step and its
/// dense eigenproblem runs there (a documented hybrid, as [`eigsh`](crate::linalg::eigsh)).
///
/// ```
/// use cusci_sparse::{CsrMatrix, Device, Array, linalg::{eigs, EigsOptions, EigsWhich}};
/// // a rotation block (eigenvalues ±2i) and a diagonal 1, 3, 5, 0.5
/// let d = vec![
///     0.0, -2.0, 0.0, 0.0, 0.0, 0.0,
///     2.0, 0.0, 0.0, 0.0, 0.0, 0.0,
///     0.0, 0.0, 1.0, 0.0, 0.0, 0.0,
///     0.0, 0.0, 0.0, 3.0, 0.0, 0.0,
///     0.0, 0.0, 0.0, 0.0, 5.0, 0.0,
///     0.0, 0.0, 0.0, 0.0, 0.0, 0.5,
/// ];
/// let a = CsrMatrix::from_dense(&Array::from_vec(d, &[6, 6], &Device::Cpu)?)?;
/// let r = eigs(&a, 3, &EigsOptions { which: EigsWhich::LI, ..Default::default() })?;
/// assert!((r.w[0].im - 2.0).abs() < 1e-10 && (r.w[1].im + 2.0).abs() < 1e-10);
/// let r = eigs(&a, 1, &EigsOptions { which: EigsWhich::LR, ..Default::default() })?;
/// assert!((r.w[0].re - 5.0).abs() < 1e-10);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square operator or a `v0`/`opinv` of the wrong shape,
/// `InvalidArgument` for `k = 0` or `k ≥ n − 1` (SciPy's ARPACK limit), an `ncv` outside
/// `k+2..=n`, a negative `tol`, a zero `v0`, a non-finite `sigma`, a complex `sigma` on a real
/// operator or `sigma` on an operator that is not a sparse matrix without `opinv`; `Singular`
/// when `A − σI` is singular; `NoConvergence { iterations, residual }` when the wanted pairs
/// have not converged after `maxiter` restarts (or the dense eigenproblem fails), and the
/// operator's errors.
pub fn eigs<T: Scalar>(
    a: &dyn LinearOperator<T>,
    k: usize,
    opts: &EigsOptions<T>,
) -> Result<EigsResult<T::C>> {
    let op = "eigs";
    let n = check_square_k(op, a, k, true)?;
    check_m(op, n, opts.m, opts.minv)?;
    match opts.sigma {
        None => match opts.m {
            None => arnoldi(a, k, opts, None),
            Some(mm) => {
                let minv = m_inverse(op, mm, opts.minv)?;
                arnoldi(
                    &Compose {
                        first: a,
                        then: &minv,
                    },
                    k,
                    opts,
                    None,
                )
            }
        },
        Some(s) => {
            if !(s.re.is_finite() && s.im.is_finite()) {
                return Err(make::arg(op, "sigma must be finite"));
            }
            if !T::DTYPE.is_complex() && s.im != 0.0 {
                return Err(make::arg(
                    op,
                    "a complex sigma needs a complex operator (SciPy's OPpart is not supported)",
                ));
            }
            let si = ShiftInvert::new_general(op, a, opts.m, opts.opinv, s, n)?;
            match opts.m {
                None => arnoldi(&si, k, opts, Some(s)),
                Some(mm) => arnoldi(
                    &Compose {
                        first: mm,
                        then: &si,
                    },
                    k,
                    opts,
                    Some(s),
                ),
            }
        }
    }
}

/// The sort key of `which` (smaller is more wanted; LI and SI take `|Im|` for a real operator).
fn key(which: EigsWhich, t: c64, real: bool) -> f64 {
    let im = if real { t.im.abs() } else { t.im };
    match which {
        EigsWhich::LM => -t.norm(),
        EigsWhich::SM => t.norm(),
        EigsWhich::LR => -t.re,
        EigsWhich::SR => t.re,
        EigsWhich::LI => -im,
        EigsWhich::SI => im,
    }
}

/// The indices of `theta`, most wanted first (ties: real part ascending, imaginary descending).
fn wanted_order(theta: &[c64], which: EigsWhich, real: bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..theta.len()).collect();
    order.sort_by(|&x, &y| {
        let (a, b) = (theta[x], theta[y]);
        key(which, a, real)
            .total_cmp(&key(which, b, real))
            .then(a.re.total_cmp(&b.re))
            .then(b.im.total_cmp(&a.im))
            .then(x.cmp(&y))
    });
    order
}

/// The Arnoldi iteration of [`eigs`] on `a` (`A`, or `(A − σI)⁻¹` when `sigma` is given: the
/// returned values are then `σ + 1/θ`); `opts.sigma` and `opts.opinv` are not read here.
fn arnoldi<T: Scalar>(
    a: &dyn LinearOperator<T>,
    k: usize,
    opts: &EigsOptions<T>,
    sigma: Option<c64>,
) -> Result<EigsResult<T::C>> {
    let op = "eigs";
    let n = check_square_k(op, a, k, true)?;
    let m = opts.ncv.unwrap_or((2 * k + 1).max(20)).min(n);
    if m < k + 2 || m > n {
        return Err(make::arg(
            op,
            format!("ncv = {m} must be in {}..={n}", k + 2),
        ));
    }
    if opts.tol.is_nan() || opts.tol < 0.0 {
        return Err(make::arg(op, "tol must be non-negative"));
    }
    let maxiter = opts.maxiter.unwrap_or(10 * n).max(1);
    let eps = krylov::eps::<T>();
    let tol = if opts.tol == 0.0 { eps } else { opts.tol };
    let real = !T::DTYPE.is_complex();
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
    // vectors: V_0..V_m, W, Z_0..Z_{m-1} (restart combinations), then the real and imaginary
    // parts of a Ritz vector; scalars: two Gram–Schmidt passes, ‖W‖², 1/‖W‖
    let w_ix = m + 1;
    let z = |i: usize| m + 2 + i;
    let (re_ix, im_ix) = (2 * m + 2, 2 * m + 3);
    let nn_slot = 2 * m + 2;
    let inv_slot = 2 * m + 3;
    let mut e = Engine::<T>::new(&dev, n, 2 * m + 4, 2 * m + 4)?;
    e.load(0, &v0)?;
    e.dot(0, 0, nn_slot)?;
    let n0 = e.scalars()?[nn_slot].sqrt();
    if n0 == 0.0 || !n0.is_finite() {
        return Err(make::arg(op, "v0 must be a non-zero finite vector"));
    }
    e.set_scalar(inv_slot, krylov::re(1.0 / n0))?;
    e.scal(0, inv_slot)?;
    let mone = krylov::re::<T>(-1.0);
    let zero = c64::new(0.0, 0.0);
    let mut h = Mat::<c64>::zeros(m, m);
    let mut kk = 0usize;
    let mut beta = 0.0f64;
    let mut seed = 2u64;
    let mut worst = f64::INFINITY;
    let no_conv = |iterations: usize, residual: f64| Error::NoConvergence {
        op: op.into(),
        iterations,
        residual,
    };
    for iter in 0..maxiter {
        for j in kk..m {
            e.apply(a, j, w_ix)?;
            for pass in 0..2 {
                let base = pass * (m + 1);
                for i in 0..=j {
                    e.dot(i, w_ix, base + i)?;
                    e.axpy(w_ix, i, Some(base + i), mone)?;
                }
            }
            e.dot(w_ix, w_ix, nn_slot)?;
            let s = e.scalars_t()?;
            let mut col = 0.0f64;
            for i in 0..=j {
                let v = s[i].to_c64() + s[m + 1 + i].to_c64();
                col += v.norm_sqr();
                h[(i, j)] = v;
            }
            let col = col.sqrt();
            beta = s[nn_slot].to_c64().re.max(0.0).sqrt();
            if !beta.is_finite() || !col.is_finite() {
                return Err(no_conv(iter, f64::NAN));
            }
            if beta <= eps * col.max(f64::MIN_POSITIVE) * 10.0 || beta == 0.0 {
                // an invariant subspace: continue with a fresh direction orthogonal to the basis
                beta = 0.0;
                let r = pseudo_random::<T>(n, seed, &dev)?;
                seed += 1;
                e.load(w_ix, &r)?;
                for _ in 0..2 {
                    for i in 0..=j {
                        e.dot(i, w_ix, m + 1 + i)?;
                        e.axpy(w_ix, i, Some(m + 1 + i), mone)?;
                    }
                }
                e.dot(w_ix, w_ix, nn_slot)?;
                let nr = e.scalars()?[nn_slot].sqrt();
                e.set_scalar(inv_slot, krylov::re(1.0 / nr))?;
            } else {
                e.set_scalar(inv_slot, krylov::re(1.0 / beta))?;
            }
            if j + 1 < m {
                h[(j + 1, j)] = c64::new(beta, 0.0);
            }
            e.copy(j + 1, w_ix)?;
            e.scal(j + 1, inv_slot)?;
        }
        // Rayleigh–Ritz on the projected matrix
        let (theta, y) = ritz_pairs(&h, real).ok_or_else(|| no_conv(iter, f64::NAN))?;
        let order = wanted_order(&theta, opts.which, real);
        let eps23 = eps.powf(2.0 / 3.0);
        worst = 0.0f64;
        let mut nconv = 0usize;
        // the attainable accuracy: the Ritz estimate of a dense (non-Hessenberg) projected
        // matrix cannot go below rounding of order ε‖H‖
        let hnorm = h.norm_l2();
        let floor = 10.0 * eps * hnorm;
        for &i in &order[..k] {
            let res = beta * y[(m - 1, i)].norm();
            worst = worst.max(res);
            if res <= (tol * eps23.max(theta[i].norm())).max(floor) {
                nconv += 1;
            }
        }
        if nconv == k {
            let sel = &order[..k];
            let lam = |t: c64| sigma.map_or(t, |s| s + c64::new(1.0, 0.0) / t);
            let w: Vec<c64> = sel.iter().map(|&i| lam(theta[i])).collect();
            let v = if opts.return_eigenvectors {
                let mut out = Array::<T::C>::zeros(&[n, k], &dev)?;
                for (c, &i) in sel.iter().enumerate() {
                    let x = ritz_vector(&mut e, &y, i, m, real, (re_ix, im_ix))?;
                    krylov::put_col(&x, &mut out, c)?;
                }
                Some(out)
            } else {
                None
            };
            return Ok(EigsResult { w, v });
        }
        if iter + 1 == maxiter {
            break;
        }
        // Krylov–Schur restart: keep an orthonormal basis U of the invariant subspace of the
        // kk most wanted Ritz values (closed under conjugation for a real operator)
        // k plus as many as have converged (ARPACK's dnaup2: converged values do not stall
        // the others), at least a quarter of the rest (a thick restart keeps good directions
        // for the hard cases, e.g. SM), at most half; a single one grows to half the basis
        kk = k + nconv.max((m - k) / 4).min((m - k) / 2);
        if kk == 1 && m >= 6 {
            kk = m / 2;
        } else if kk == 1 && m > 3 {
            kk = 2;
        }
        kk = kk.min(m - 1);
        if real {
            kk = conj_closed(&theta, &order, kk, m);
        }
        let targets: Vec<c64> = order[..kk].iter().map(|&i| theta[i]).collect();
        let mut u = schur_basis(&h, &targets).ok_or_else(|| no_conv(iter, f64::NAN))?;
        if real {
            u = real_basis(&u).ok_or_else(|| no_conv(iter, f64::NAN))?;
        }
        // S = Uᴴ H U; the coupling row β U[m-1, :]
        let hu = &h * &u;
        let s = u.adjoint() * &hu;
        for c in 0..kk {
            let coef: Vec<T> = (0..m).map(|l| T::from_c64(u[(l, c)])).collect();
            combine(&mut e, &coef, z(c))?;
        }
        for c in 0..kk {
            e.copy(c, z(c))?;
        }
        e.copy(kk, m)?;
        h.fill(zero);
        for r in 0..kk {
            for c in 0..kk {
                let v = s[(r, c)];
                h[(r, c)] = if real { c64::new(v.re, 0.0) } else { v };
            }
        }
        for c in 0..kk {
            let v = u[(m - 1, c)] * beta;
            h[(kk, c)] = if real { c64::new(v.re, 0.0) } else { v };
        }
    }
    Err(no_conv(maxiter, worst))
}

/// The eigenvalues and unit-norm eigenvectors (columns) of the projected matrix (real
/// arithmetic for a real operator, so that conjugate pairs are exact and real eigenvalues have
/// real vectors).
fn ritz_pairs(h: &Mat<c64>, real: bool) -> Option<(Vec<c64>, Mat<c64>)> {
    let m = h.nrows();
    let ev = if real {
        Mat::<f64>::from_fn(m, m, |i, j| h[(i, j)].re)
            .eigen()
            .ok()?
    } else {
        h.eigen().ok()?
    };
    let s = ev.S().column_vector();
    let theta: Vec<c64> = (0..m).map(|i| s[i]).collect();
    if theta
        .iter()
        .any(|t| !(t.re.is_finite() && t.im.is_finite()))
    {
        return None;
    }
    let mut y = ev.U().to_owned();
    for j in 0..m {
        let nrm = (0..m).map(|i| y[(i, j)].norm_sqr()).sum::<f64>().sqrt();
        if nrm == 0.0 || !nrm.is_finite() {
            return None;
        }
        for i in 0..m {
            y[(i, j)] /= nrm;
        }
    }
    Some((theta, y))
}

/// `kk` adjusted so that the first `kk` of `order` hold both values of every conjugate pair
/// (one more, or one fewer when `kk + 1` would reach `m`).
fn conj_closed(theta: &[c64], order: &[usize], kk: usize, m: usize) -> usize {
    // faer's real eigensolver gives the two values of a pair as exact conjugates; a relative
    // 1e-12 covers any rounding of theirs
    let conj = |i: usize, j: usize| {
        (theta[j] - theta[i].conj()).norm() <= 1e-12 * theta[i].norm().max(f64::MIN_POSITIVE)
    };
    let split = |kk: usize| {
        let set = &order[..kk];
        set.iter()
            .any(|&i| theta[i].im != 0.0 && !set.iter().any(|&j| j != i && conj(i, j)))
    };
    if !split(kk) {
        kk
    } else if kk + 1 < m && !split(kk + 1) {
        kk + 1
    } else if kk > 1 && !split(kk - 1) {
        kk - 1
    } else {
        kk
    }
}

/// An orthonormal basis (m × p) of the invariant subspace of `h` for the eigenvalues nearest
/// `targets` (in that order): a Schur basis built by deflation, one eigenvector of the trailing
/// block at a time moved to the front by a Householder reflection.
fn schur_basis(h: &Mat<c64>, targets: &[c64]) -> Option<Mat<c64>> {
    let m = h.nrows();
    let p = targets.len();
    let mut b = h.clone();
    let mut q = Mat::<c64>::identity(m, m);
    for (i, &t) in targets.iter().enumerate() {
        let r = m - i;
        if r <= 1 {
            break;
        }
        let sub = Mat::<c64>::from_fn(r, r, |x, y| b[(i + x, i + y)]);
        let ev = sub.eigen().ok()?;
        let s = ev.S().column_vector();
        let j = (0..r).min_by(|&x, &y| (s[x] - t).norm().total_cmp(&(s[y] - t).norm()))?;
        let mut x: Vec<c64> = (0..r).map(|a| ev.U()[(a, j)]).collect();
        let nx = x.iter().map(|v| v.norm_sqr()).sum::<f64>().sqrt();
        if nx == 0.0 || !nx.is_finite() {
            return None;
        }
        x.iter_mut().for_each(|v| *v /= nx);
        // P = I − 2 u uᴴ / uᴴu with u = x − α e1, α = −x0/|x0|: P x = α e1, P e1 = x / α
        let ph = if x[0].norm() > 0.0 {
            x[0] / x[0].norm()
        } else {
            c64::new(1.0, 0.0)
        };
        let mut u = x;
        u[0] += ph;
        let uu: f64 = u.iter().map(|v| v.norm_sqr()).sum();
        let f = 2.0 / uu;
        // rows i.. of b from the left
        for c in 0..m {
            let d: c64 = (0..r).map(|a| u[a].conj() * b[(i + a, c)]).sum();
            for a in 0..r {
                b[(i + a, c)] -= u[a] * d * f;
            }
        }
        // columns i.. of b and of q from the right
        for mat in [&mut b, &mut q] {
            for row in 0..m {
                let d: c64 = (0..r).map(|a| mat[(row, i + a)] * u[a]).sum();
                for a in 0..r {
                    mat[(row, i + a)] -= d * u[a].conj() * f;
                }
            }
        }
    }
    Some(q.subcols(0, p).to_owned())
}

/// A real orthonormal basis of the span of the complex `q` (m × p) whose span is closed under
/// conjugation: the p leading left singular vectors of `[Re q, Im q]`.
fn real_basis(q: &Mat<c64>) -> Option<Mat<c64>> {
    let (m, p) = (q.nrows(), q.ncols());
    let r = Mat::<f64>::from_fn(m, 2 * p, |i, j| {
        if j < p {
            q[(i, j)].re
        } else {
            q[(i, j - p)].im
        }
    });
    let svd = r.thin_svd().ok()?;
    let u = svd.U();
    if u.ncols() < p {
        return None;
    }
    Some(Mat::<c64>::from_fn(m, p, |i, j| c64::new(u[(i, j)], 0.0)))
}

/// Vector `dst` = `Σ_l coef[l] V_l`.
fn combine<T: Float>(e: &mut Engine<T>, coef: &[T], dst: usize) -> Result<()> {
    e.axpy(dst, dst, None, T::zero().sub(T::one()))?;
    for (l, &c) in coef.iter().enumerate() {
        e.axpy(dst, l, None, c)?;
    }
    Ok(())
}

/// The Ritz vector `V y_i` as a complex array (real operators: the real and imaginary parts of
/// `y_i` combine the real basis separately).
fn ritz_vector<T: Scalar>(
    e: &mut Engine<T>,
    y: &Mat<c64>,
    i: usize,
    m: usize,
    real: bool,
    (re_ix, im_ix): (usize, usize),
) -> Result<Array<T::C>> {
    if !real {
        let coef: Vec<T> = (0..m).map(|l| T::from_c64(y[(l, i)])).collect();
        combine(e, &coef, re_ix)?;
        return e.get(re_ix)?.astype::<T::C>();
    }
    let cr: Vec<T> = (0..m).map(|l| krylov::re::<T>(y[(l, i)].re)).collect();
    combine(e, &cr, re_ix)?;
    let xr = e.get(re_ix)?.astype::<T::C>()?;
    if (0..m).all(|l| y[(l, i)].im == 0.0) {
        return Ok(xr);
    }
    let ci: Vec<T> = (0..m).map(|l| krylov::re::<T>(y[(l, i)].im)).collect();
    combine(e, &ci, im_ix)?;
    let unit = T::cplx(
        <T::R as RealFloat>::from_f64(0.0),
        <T::R as RealFloat>::from_f64(1.0),
    );
    xr.add(&e.get(im_ix)?.astype::<T::C>()?.mul_scalar(unit)?)
}
