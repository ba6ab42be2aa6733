//! `svds`: a few singular triplets of a sparse matrix or linear operator, from [`eigsh`](crate::linalg::eigsh) on the
//! normal operator (SciPy's `solver='arpack'` route).

use crate::eigen::{lanczos, pseudo_random, EigshOptions, Which};
use crate::krylov;
use crate::linalg::{checked_matvec, checked_rmatvec, LinearOperator};
use crate::lobpcg::{orthonormalizer, Block};
use cusci_core::error::make;
use cusci_core::{c64, Array, Device, Error, Float, Result};

/// Which singular vectors [`svds`] returns (SciPy's `return_singular_vectors`: `True`, `"u"`,
/// `"vh"`, `False`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SingularVectors {
    /// Both `u` and `vh` (SciPy's `True`, the default).
    #[default]
    Both,
    /// Only `u` (SciPy's `"u"`).
    U,
    /// Only `vh` (SciPy's `"vh"`).
    Vh,
    /// Neither (SciPy's `False`): only the singular values.
    None,
}

/// Options of [`svds`] (SciPy's keyword arguments; `k` is an argument of its own).
#[derive(Clone, Copy)]
pub struct SvdsOptions<'a, T: Float> {
    /// The Lanczos basis size of the inner [`eigsh`](crate::linalg::eigsh) (default `min(d, max(2k + 1, 20))`,
    /// `d = min(A.shape)`).
    pub ncv: Option<usize>,
    /// Relative accuracy of the singular values (default 0: machine precision); the inner
    /// [`eigsh`](crate::linalg::eigsh) runs with `tol²`, as SciPy, but never below the working precision's ε (SciPy
    /// passes `tol²` as it is: in f32, `tol = 1e-5` asks Ritz estimates of 1e-10, which on the
    /// GPU stagnate near 1e-8 and never converge).
    pub tol: f64,
    /// [`Which::LM`] (largest, default) or [`Which::SM`] (smallest).
    pub which: Which,
    /// Start vector of the inner [`eigsh`](crate::linalg::eigsh), of length `min(A.shape)` (default a fixed
    /// pseudo-random vector).
    pub v0: Option<&'a Array<T>>,
    /// Restart limit of the inner [`eigsh`](crate::linalg::eigsh) (default `10 d`).
    pub maxiter: Option<usize>,
    /// Which singular vectors to return (default both).
    pub return_singular_vectors: SingularVectors,
}

impl<T: Float> Default for SvdsOptions<'_, T> {
    fn default() -> Self {
        SvdsOptions {
            ncv: None,
            tol: 0.0,
            which: Which::LM,
            v0: None,
            maxiter: None,
            return_singular_vectors: SingularVectors::Both,
        }
    }
}

/// The result of [`svds`]: `A ≈ u · diag(s) · vh` on the k computed triplets.
#[derive(Debug, Clone)]
pub struct SvdsResult<T: Float> {
    /// Left singular vectors, an (m, k) array with orthonormal columns (when asked).
    pub u: Option<Array<T>>,
    /// The k singular values, ascending (as SciPy returns them).
    pub s: Vec<f64>,
    /// Right singular vectors, a (k, n) array with orthonormal rows (when asked).
    pub vh: Option<Array<T>>,
}

/// `x ↦ Xᴴ X x` with `X = A` (`A` of shape (m, n), m ≥ n) or `X = Aᴴ` (m < n).
struct Normal<'a, T: Float> {
    a: &'a dyn LinearOperator<T>,
    adjoint: bool,
    d: usize,
}

impl<T: Float> LinearOperator<T> for Normal<'_, T> {
    fn shape(&self) -> (usize, usize) {
        (self.d, self.d)
    }
    fn matvec(&self, x: &Array<T>) -> Result<Array<T>> {
        if self.adjoint {
            checked_matvec(self.a, &checked_rmatvec(self.a, x)?)
        } else {
            checked_rmatvec(self.a, &checked_matvec(self.a, x)?)
        }
    }
    fn rmatvec(&self, x: &Array<T>) -> Result<Array<T>> {
        self.matvec(x)
    }
    fn device(&self) -> Option<Device> {
        self.a.device()
    }
}

/// `k` largest (`which = LM`) or smallest (`SM`) singular values and vectors of a sparse matrix
/// or linear operator `A` of shape (m, n) (SciPy's `svds(A, k, ncv, tol, which, v0, maxiter,
/// return_singular_vectors, solver='arpack')`). As SciPy: [`eigsh`](crate::linalg::eigsh) finds the k wanted
/// eigenpairs of `Aᴴ A` (n ≤ m) or `A Aᴴ` (m < n), the smaller of the two, with tolerance `tol²`;
/// the eigenvectors `V` are re-orthonormalized, `A V` (or `Aᴴ V`) is factored as `Q R` by
/// modified Gram–Schmidt with reorthogonalisation (a zero column, from a zero singular value, is
/// replaced by a direction orthogonal to the others), and the small SVD `R = Uᵣ Σ Wᴴ` gives the
/// singular values (accurate to `ε‖A V‖` rather than the `ε‖A‖²` of the eigenvalues) and the
/// singular vectors `Q Uᵣ` and `V W`. The operator needs `matvec` and `rmatvec`.
///
/// The singular values come out ascending (SciPy's order), with `u`'s columns and `vh`'s rows
/// in the same order; each pair is determined up to a common unit factor (a sign when real).
/// Every vector operation runs on the operator's device (the Lanczos basis, the products, the
/// Gram–Schmidt steps); the k × k SVD runs on the host with faer.
///
/// ```
/// use cusci_sparse::{diags, Device, linalg::{svds, SvdsOptions}};
/// let a = diags::<f64>(&[&[1.0, 2.0, 3.0, 4.0, 5.0]], &[0], Some((7, 5)), &Device::Cpu)?;
/// let r = svds(&a, 2, &SvdsOptions::default())?;
/// assert!((r.s[0] - 4.0).abs() < 1e-12 && (r.s[1] - 5.0).abs() < 1e-12);
/// assert_eq!(r.u.unwrap().shape(), &[7, 2]);
/// assert_eq!(r.vh.unwrap().shape(), &[2, 5]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` for `k` outside `1..min(m, n)` (SciPy's `0 < k < min(A.shape)`), a `which`
/// other than LM or SM, a negative `tol`, an `ncv` outside `k+1..=min(m, n)`, a zero `v0`;
/// `ShapeMismatch` for a `v0` not of length `min(m, n)`; `NoConvergence { iterations, residual }`
/// (from the inner eigsh, residual in units of `σ²`) when the triplets have not converged
/// after `maxiter` restarts; the operator's errors (`NotImplemented` without `rmatvec`).
pub fn svds<T: Float>(
    a: &dyn LinearOperator<T>,
    k: usize,
    opts: &SvdsOptions<T>,
) -> Result<SvdsResult<T>> {
    let op = "svds";
    let (m, n) = a.shape();
    let d = m.min(n);
    if k == 0 || k >= d {
        return Err(make::arg(
            op,
            format!("k = {k} must satisfy 0 < k < min(A.shape) = {d}"),
        ));
    }
    if !matches!(opts.which, Which::LM | Which::SM) {
        return Err(make::arg(op, "which must be either LM or SM"));
    }
    if opts.tol.is_nan() || opts.tol < 0.0 {
        return Err(make::arg(op, "tol must be non-negative"));
    }
    if let Some(v0) = opts.v0 {
        if v0.shape() != [d] {
            return Err(make::shape(
                op,
                format!("v0 of shape {:?}, expected ({d},)", v0.shape()),
            ));
        }
    }
    let adjoint = m < n;
    let normal = Normal { a, adjoint, d };
    let rename = |e: Error| match e {
        Error::NoConvergence {
            iterations,
            residual,
            ..
        } => Error::NoConvergence {
            op: op.into(),
            iterations,
            residual,
        },
        Error::InvalidArgument { detail, .. } => Error::InvalidArgument {
            op: op.into(),
            detail,
        },
        other => other,
    };
    let ev = lanczos(
        &normal,
        None,
        k,
        &EigshOptions {
            which: opts.which,
            sigma: None,
            opinv: None,
            m: None,
            minv: None,
            ncv: opts.ncv,
            maxiter: opts.maxiter,
            tol: if opts.tol == 0.0 {
                0.0
            } else {
                (opts.tol * opts.tol).max(krylov::eps::<T>())
            },
            v0: opts.v0,
            return_eigenvectors: true,
        },
        None,
    )
    .map_err(rename)?;
    let Some(vecs) = ev.v else {
        return Err(make::arg(op, "eigsh returned no eigenvectors"));
    };
    let eps = krylov::eps::<T>();
    let floor = 100.0 * eps;
    // V: the k eigenvectors (length d), re-orthonormalized (SciPy's qr of eigvec)
    let mut v = Block::from_cols(&vecs)?;
    let Some(t) = orthonormalizer(&v.gram(&v)?, k, floor) else {
        return Err(Error::NoConvergence {
            op: op.into(),
            iterations: 0,
            residual: f64::NAN,
        });
    };
    v = v.combine(&t, k, None)?;
    // X V with X = A (or Aᴴ): k vectors of length max(m, n)
    let xv = if adjoint { v.rapply(a)? } else { v.apply(a)? };
    let (q, r) = mgs_qr(&xv, eps)?;
    // R = Ur Σ Wᴴ (k x k, host)
    let rm = faer::Mat::<c64>::from_fn(k, k, |i, j| r[i * k + j]);
    let svd = rm.thin_svd().map_err(|_| Error::NoConvergence {
        op: op.into(),
        iterations: 0,
        residual: f64::NAN,
    })?;
    let sv = svd.S().column_vector();
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&x, &y| sv[x].re.total_cmp(&sv[y].re));
    let s: Vec<f64> = order.iter().map(|&i| sv[i].re).collect();
    let (ju, jv) = match opts.return_singular_vectors {
        SingularVectors::Both => (true, true),
        SingularVectors::U => (true, false),
        SingularVectors::Vh => (false, true),
        SingularVectors::None => (false, false),
    };
    // left vectors of X: Q Ur; right vectors of X: V W (columns in `order`)
    let (ur, w) = (svd.U(), svd.V());
    let pick = |mat: faer::MatRef<'_, c64>| -> Vec<c64> {
        let mut c = vec![c64::new(0.0, 0.0); k * k];
        for i in 0..k {
            for (j, &o) in order.iter().enumerate() {
                c[i * k + j] = mat[(i, o)];
            }
        }
        c
    };
    let (want_left_x, want_right_x) = if adjoint { (jv, ju) } else { (ju, jv) };
    let left_x = if want_left_x {
        Some(q.combine(&pick(ur), k, None)?)
    } else {
        None
    };
    let right_x = if want_right_x {
        Some(v.combine(&pick(w), k, None)?)
    } else {
        None
    };
    // A = X (u = left of X, vh = (right of X)ᴴ) or A = Xᴴ (u = right of X, vh = (left of X)ᴴ)
    let (ub, vb) = if adjoint {
        (right_x, left_x)
    } else {
        (left_x, right_x)
    };
    Ok(SvdsResult {
        u: ub.map(|b| b.to_cols()).transpose()?,
        s,
        vh: vb.map(|b| b.a.conj()).transpose()?,
    })
}

/// `X = Q R` for a block of k vectors by modified Gram–Schmidt with one reorthogonalisation
/// pass: Q orthonormal (k vectors), R upper triangular (k x k, host, row-major). A column that
/// vanishes against the previous ones gets `R_jj = 0` and a pseudo-random direction
/// orthogonal to them.
fn mgs_qr<T: Float>(x: &Block<T>, eps: f64) -> Result<(Block<T>, Vec<c64>)> {
    let (k, len) = (x.p, x.n);
    let dev = x.a.device().clone();
    let mut r = vec![c64::new(0.0, 0.0); k * k];
    let mut rows: Vec<Array<T>> = Vec::with_capacity(k);
    let mut q: Option<Block<T>> = None;
    // the scale against which a remaining norm counts as zero
    let g = x.gram(x)?;
    let scale = (0..k)
        .map(|i| g[i * k + i].re)
        .fold(0.0f64, f64::max)
        .sqrt();
    let mut seed = 101u64;
    for j in 0..k {
        let mut w = Block::stack(&[x.row(j)?], len, &dev)?;
        let mut fresh = false;
        loop {
            for _ in 0..2 {
                if let Some(qb) = &q {
                    let c = qb.gram(&w)?;
                    if !fresh {
                        for (i, ci) in c.iter().enumerate() {
                            r[i * k + j] += ci;
                        }
                    }
                    let neg: Vec<c64> = c.iter().map(|v| -v).collect();
                    w = qb.combine(&neg, 1, Some(&w))?;
                }
            }
            let nrm = w.gram(&w)?[0].re.max(0.0).sqrt();
            if !fresh && (nrm.is_nan() || nrm <= 10.0 * eps * scale * (k as f64)) {
                // a zero column: R_jj = 0, continue the basis with a new direction
                let z = pseudo_random::<T>(len, seed, &dev)?;
                seed += 1;
                w = Block::stack(&[z], len, &dev)?;
                fresh = true;
                continue;
            }
            if !fresh {
                r[j * k + j] = c64::new(nrm, 0.0);
            }
            w = w.combine(&[c64::new(1.0 / nrm, 0.0)], 1, None)?;
            break;
        }
        rows.push(w.row(0)?);
        q = Some(Block::stack(&rows, len, &dev)?);
    }
    Ok((Block::stack(&rows, len, &dev)?, r))
}
