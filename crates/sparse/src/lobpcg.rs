//! `lobpcg`: Knyazev's locally optimal block preconditioned conjugate gradient eigensolver, and
//! the block-of-vectors helpers it shares with `svds`.
//!
//! A block is `p` vectors of length `n` stored as the rows of a row-major (p, n) array on the
//! operator's device (each vector contiguous). The O(n) work — operator products, Gram matrices
//! `Xᴴ Y`, block combinations `X C` — runs on that device (this crate's `lo_*` kernels of
//! `cuda/solvers.cu` on a GPU, loops on the CPU); the small dense problems (Cholesky, the
//! Rayleigh–Ritz generalized eigenproblem of size ≤ 3k, small SVDs) are solved on the host with
//! faer in double precision: they are tiny, and cusci-sparse does not depend on cusci-linalg.

use crate::cuda::{grid, solver_fn, NT, PER_SM};
use crate::krylov;
use crate::linalg::LinearOperator;
use crate::matrix::hv;
use cusci_core::cuda::launch::i32_of;
use cusci_core::error::make;
use cusci_core::{c64, Array, CudaDevice, Device, Error, Float, LaunchConfig, Result};
use rayon::prelude::*;

// ============================================================================== blocks

/// `p` vectors of length `n`: the rows of a contiguous row-major (p, n) array.
#[derive(Clone)]
pub(crate) struct Block<T: Float> {
    pub(crate) a: Array<T>,
    pub(crate) p: usize,
    pub(crate) n: usize,
}

impl<T: Float> Block<T> {
    /// The block whose rows are the columns of the (n, p) array `x`.
    pub(crate) fn from_cols(x: &Array<T>) -> Result<Self> {
        let (n, p) = (x.shape()[0], x.shape()[1]);
        Ok(Block {
            a: x.t().contiguous()?,
            p,
            n,
        })
    }

    /// The (n, p) array whose columns are the vectors.
    pub(crate) fn to_cols(&self) -> Result<Array<T>> {
        self.a.t().contiguous()
    }

    fn dev(&self) -> &Device {
        self.a.device()
    }

    /// Vector `i` (a contiguous view).
    pub(crate) fn row(&self, i: usize) -> Result<Array<T>> {
        self.a.index_axis(0, i as isize)
    }

    /// The vectors `parts` (each of length `n`) as one block, on `dev`.
    pub(crate) fn stack(parts: &[Array<T>], n: usize, dev: &Device) -> Result<Self> {
        let p = parts.len();
        let a = match dev {
            Device::Cpu => {
                let mut v = Vec::with_capacity(p * n);
                for x in parts {
                    v.extend(x.to_vec()?);
                }
                Array::from_vec(v, &[p, n], dev)?
            }
            Device::Cuda(d) => {
                let mut out = Array::<T>::empty(&[p, n], dev)?;
                let f = solver_fn::<T>(d, "lo_copy")?;
                for (i, x) in parts.iter().enumerate() {
                    let x = x.contiguous()?;
                    if n > 0 {
                        d.launch(&f, grid(d, n))
                            .arg(x.dev_ptr()?)
                            .arg(out.dev_ptr_mut()?.add(i * n)?)
                            .arg(n as i64)
                            .run()?;
                    }
                }
                out
            }
        };
        Ok(Block { a, p, n })
    }

    /// The blocks one after another (their vectors in order).
    pub(crate) fn concat(blocks: &[&Block<T>]) -> Result<Self> {
        let n = blocks[0].n;
        let mut rows = Vec::new();
        for b in blocks {
            for i in 0..b.p {
                rows.push(b.row(i)?);
            }
        }
        Self::stack(&rows, n, blocks[0].dev())
    }

    /// `op` applied to every vector (the products on the block's device).
    pub(crate) fn apply(&self, op: &dyn LinearOperator<T>) -> Result<Self> {
        let m = op.shape().0;
        let mut rows = Vec::with_capacity(self.p);
        for i in 0..self.p {
            rows.push(crate::linalg::checked_matvec(op, &self.row(i)?)?);
        }
        Self::stack(&rows, m, self.dev())
    }

    /// As [`Block::apply`] with `op`'s adjoint (`rmatvec`).
    pub(crate) fn rapply(&self, op: &dyn LinearOperator<T>) -> Result<Self> {
        let m = op.shape().1;
        let mut rows = Vec::with_capacity(self.p);
        for i in 0..self.p {
            rows.push(crate::linalg::checked_rmatvec(op, &self.row(i)?)?);
        }
        Self::stack(&rows, m, self.dev())
    }

    /// The (p, q) Gram matrix `G[i][j] = x_iᴴ y_j` (row-major, on the host).
    pub(crate) fn gram(&self, other: &Block<T>) -> Result<Vec<c64>> {
        let (p, q, n) = (self.p, other.p, self.n);
        if p == 0 || q == 0 {
            return Ok(Vec::new());
        }
        match self.dev() {
            Device::Cpu => {
                let (a, b) = (hv(&self.a), hv(&other.a));
                Ok((0..p * q)
                    .into_par_iter()
                    .map(|e| {
                        let (i, j) = (e / q, e % q);
                        let mut acc = T::zero();
                        for (&u, &v) in a[i * n..(i + 1) * n].iter().zip(&b[j * n..(j + 1) * n]) {
                            acc = acc.add(u.conj().mul(v));
                        }
                        acc.to_c64()
                    })
                    .collect())
            }
            Device::Cuda(d) => gram_cuda(d, self, other),
        }
    }

    /// The block of `q` vectors `out_j = base_j + Σ_i C[i][j] x_i` (`C` row-major (p, q)), i.e.
    /// `X C (+ base)`.
    pub(crate) fn combine(&self, c: &[c64], q: usize, base: Option<&Block<T>>) -> Result<Self> {
        let (p, n) = (self.p, self.n);
        let dev = self.dev().clone();
        let ct: Vec<T> = c.iter().map(|&v| T::from_c64(v)).collect();
        let a = match &dev {
            Device::Cpu => {
                let a = hv(&self.a);
                let b = base.map(|b| hv(&b.a));
                let mut out = vec![T::zero(); q * n];
                out.par_chunks_mut(n.max(1)).enumerate().for_each(|(j, o)| {
                    if let Some(b) = b {
                        o.copy_from_slice(&b[j * n..(j + 1) * n]);
                    }
                    for i in 0..p {
                        let cij = ct[i * q + j];
                        for (y, &x) in o.iter_mut().zip(&a[i * n..(i + 1) * n]) {
                            *y = y.add(x.mul(cij));
                        }
                    }
                });
                Array::from_vec(out, &[q, n], &dev)?
            }
            Device::Cuda(d) => {
                let mut out = Array::<T>::empty(&[q, n], &dev)?;
                if q * n > 0 {
                    let cd = Array::from_vec(
                        if ct.is_empty() { vec![T::zero()] } else { ct },
                        &[(p * q).max(1)],
                        &dev,
                    )?;
                    let f = solver_fn::<T>(d, "lo_combine")?;
                    d.launch(&f, grid(d, q * n))
                        .arg(self.a.dev_ptr()?)
                        .arg(i32_of("lobpcg", p)?)
                        .arg(cd.dev_ptr()?)
                        .arg(i32_of("lobpcg", q)?)
                        .arg(n as i64)
                        // no base: a null pointer, which the kernel tests
                        .arg(base.map(|b| b.a.dev_ptr()).transpose()?)
                        .arg(out.dev_ptr_mut()?)
                        .run()?;
                }
                out
            }
        };
        Ok(Block { a, p: q, n })
    }

    /// The vectors `idx` (in that order).
    pub(crate) fn select(&self, idx: &[usize]) -> Result<Self> {
        let q = idx.len();
        let mut c = vec![c64::new(0.0, 0.0); self.p * q];
        for (j, &i) in idx.iter().enumerate() {
            c[i * q + j] = c64::new(1.0, 0.0);
        }
        self.combine(&c, q, None)
    }
}

fn gram_cuda<T: Float>(d: &CudaDevice, x: &Block<T>, y: &Block<T>) -> Result<Vec<c64>> {
    let (p, q, n) = (x.p, y.p, x.n);
    let dev = x.dev();
    // chunks per pair: enough blocks in all to fill the device, at most 64 per pair
    let want = (d.props().multiprocessors * PER_SM as usize).max(1);
    let g = want
        .div_ceil(p * q)
        .min(n.div_ceil(NT as usize))
        .clamp(1, 64);
    let mut parts = Array::<T>::empty(&[p * q * g], dev)?;
    let op = "lobpcg";
    d.launch(
        &solver_fn::<T>(d, "lo_gram_part")?,
        LaunchConfig::linear(i32_of(op, p * q * g)? as u32, NT),
    )
    .arg(x.a.dev_ptr()?)
    .arg(i32_of(op, p)?)
    .arg(y.a.dev_ptr()?)
    .arg(i32_of(op, q)?)
    .arg(n as i64)
    .arg(parts.dev_ptr_mut()?)
    .arg(g as i32)
    .run()?;
    let mut out = Array::<T>::empty(&[p * q], dev)?;
    d.launch(&solver_fn::<T>(d, "lo_gram_sum")?, grid(d, p * q))
        .arg(parts.dev_ptr()?)
        .arg(g as i32)
        .arg(i32_of(op, p * q)?)
        .arg(out.dev_ptr_mut()?)
        .run()?;
    Ok(out.to_vec()?.into_iter().map(|v| v.to_c64()).collect())
}

// ============================================================================== small dense algebra (host)

/// `G = Uᴴ U` for a Hermitian (k, k) `g` (row-major); `None` when a pivot is not above
/// `floor · G_jj` (not numerically positive definite).
pub(crate) fn chol_upper(g: &[c64], k: usize, floor: f64) -> Option<Vec<c64>> {
    let mut u = vec![c64::new(0.0, 0.0); k * k];
    for j in 0..k {
        let mut s = g[j * k + j].re;
        for i in 0..j {
            s -= u[i * k + j].norm_sqr();
        }
        if !s.is_finite() || s <= floor * g[j * k + j].re.abs() {
            return None;
        }
        let d = s.sqrt();
        u[j * k + j] = c64::new(d, 0.0);
        for l in j + 1..k {
            let mut t = g[j * k + l];
            for i in 0..j {
                t -= u[i * k + j].conj() * u[i * k + l];
            }
            u[j * k + l] = t / d;
        }
    }
    Some(u)
}

/// The inverse of an upper triangular (k, k) `u` with a non-zero diagonal.
pub(crate) fn inv_upper(u: &[c64], k: usize) -> Vec<c64> {
    let mut x = vec![c64::new(0.0, 0.0); k * k];
    for c in 0..k {
        for i in (0..=c).rev() {
            let mut s = if i == c {
                c64::new(1.0, 0.0)
            } else {
                c64::new(0.0, 0.0)
            };
            for l in i + 1..=c {
                s -= u[i * k + l] * x[l * k + c];
            }
            x[i * k + c] = s / u[i * k + i];
        }
    }
    x
}

/// `a · b` for row-major (r, s) `a` and (s, t) `b`.
pub(crate) fn matmul(a: &[c64], b: &[c64], r: usize, s: usize, t: usize) -> Vec<c64> {
    let mut o = vec![c64::new(0.0, 0.0); r * t];
    for i in 0..r {
        for l in 0..s {
            let v = a[i * s + l];
            for j in 0..t {
                o[i * t + j] += v * b[l * t + j];
            }
        }
    }
    o
}

/// The conjugate transpose of a row-major (r, s) `a`.
pub(crate) fn adjoint(a: &[c64], r: usize, s: usize) -> Vec<c64> {
    let mut o = vec![c64::new(0.0, 0.0); r * s];
    for i in 0..r {
        for j in 0..s {
            o[j * r + i] = a[i * s + j].conj();
        }
    }
    o
}

/// `(a + aᴴ) / 2` of a square row-major `a`.
fn hermitian_part(a: &[c64], k: usize) -> Vec<c64> {
    let mut o = a.to_vec();
    for i in 0..k {
        for j in 0..k {
            o[i * k + j] = (a[i * k + j] + a[j * k + i].conj()) * 0.5;
        }
    }
    o
}

/// Eigenvalues (ascending) and eigenvectors (column `j` of the row-major result) of a Hermitian
/// (k, k) `a`.
pub(crate) fn eigh_host(op: &str, a: &[c64], k: usize) -> Result<(Vec<f64>, Vec<c64>)> {
    let h = hermitian_part(a, k);
    let m = faer::Mat::<c64>::from_fn(k, k, |i, j| h[i * k + j]);
    let ev = m
        .self_adjoint_eigen(faer::Side::Lower)
        .map_err(|_| Error::NoConvergence {
            op: op.into(),
            iterations: 0,
            residual: f64::NAN,
        })?;
    let s = ev.S().column_vector();
    let u = ev.U();
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&x, &y| s[x].re.total_cmp(&s[y].re));
    let w = order.iter().map(|&i| s[i].re).collect();
    let mut v = vec![c64::new(0.0, 0.0); k * k];
    for (c, &j) in order.iter().enumerate() {
        for i in 0..k {
            v[i * k + c] = u[(i, j)];
        }
    }
    Ok((w, v))
}

/// The transform `T = D U⁻¹` that makes the vectors `X T` orthonormal in the inner product whose
/// Gram matrix is `g = Xᴴ B X` (`D` scales the columns to unit B-norm first, `Uᴴ U = D g D`);
/// `None` when `g` is not numerically positive definite.
pub(crate) fn orthonormalizer(g: &[c64], k: usize, floor: f64) -> Option<Vec<c64>> {
    let mut dsc = vec![0.0f64; k];
    for i in 0..k {
        let gi = g[i * k + i].re;
        if !gi.is_finite() || gi <= 0.0 {
            return None;
        }
        dsc[i] = 1.0 / gi.sqrt();
    }
    let mut gs = vec![c64::new(0.0, 0.0); k * k];
    for i in 0..k {
        for j in 0..k {
            gs[i * k + j] = g[i * k + j] * (dsc[i] * dsc[j]);
        }
    }
    let gs = hermitian_part(&gs, k);
    let u = chol_upper(&gs, k, floor)?;
    let mut t = inv_upper(&u, k);
    for i in 0..k {
        for j in 0..k {
            t[i * k + j] *= dsc[i];
        }
    }
    Some(t)
}

/// The generalized Hermitian-definite eigenproblem `A v = λ B v` (both (k, k) row-major):
/// eigenvalues ascending and B-orthonormal eigenvectors (columns); `None` when `B` is not
/// numerically positive definite.
fn geneigh(
    op: &str,
    a: &[c64],
    b: &[c64],
    k: usize,
    floor: f64,
) -> Result<Option<(Vec<f64>, Vec<c64>)>> {
    let Some(t) = orthonormalizer(b, k, floor) else {
        return Ok(None);
    };
    // C = Tᴴ A T
    let c = matmul(&adjoint(&t, k, k), &matmul(a, &t, k, k, k), k, k, k);
    let (w, y) = eigh_host(op, &c, k)?;
    if w.iter().any(|v| !v.is_finite()) {
        return Ok(None);
    }
    Ok(Some((w, matmul(&t, &y, k, k, k))))
}

/// The `num` indices of the wanted eigenvalues of ascending `w`: the largest first (descending)
/// or the smallest first (ascending), SciPy's `_get_indx`.
fn wanted(w: &[f64], num: usize, largest: bool) -> Vec<usize> {
    let n = w.len();
    if largest {
        (0..num).map(|i| n - 1 - i).collect()
    } else {
        (0..num).collect()
    }
}

/// Columns `cols` of a row-major (r, s) matrix, rows `r0..r1`: a row-major (r1 − r0, cols.len()).
fn sub(a: &[c64], s: usize, r0: usize, r1: usize, cols: &[usize]) -> Vec<c64> {
    let mut o = Vec::with_capacity((r1 - r0) * cols.len());
    for i in r0..r1 {
        for &j in cols {
            o.push(a[i * s + j]);
        }
    }
    o
}

// ============================================================================== lobpcg

/// Options of [`lobpcg`] (SciPy's keyword arguments).
#[derive(Clone, Copy)]
pub struct LobpcgOptions<'a, T: Float> {
    /// The Hermitian positive definite `B` of the generalized problem `A x = λ B x` (default the
    /// identity).
    pub b: Option<&'a dyn LinearOperator<T>>,
    /// A preconditioner approximating `A⁻¹` (default none), applied to the residuals.
    pub m: Option<&'a dyn LinearOperator<T>>,
    /// Constraints: an (n, c) array; the iterates stay B-orthogonal to its columns (default
    /// none).
    pub y: Option<&'a Array<T>>,
    /// Absolute residual tolerance (default `sqrt(ε) · n`, SciPy's).
    pub tol: Option<f64>,
    /// Iteration limit (default 20, SciPy's).
    pub maxiter: usize,
    /// The largest eigenvalues (default) or the smallest.
    pub largest: bool,
}

impl<T: Float> Default for LobpcgOptions<'_, T> {
    fn default() -> Self {
        LobpcgOptions {
            b: None,
            m: None,
            y: None,
            tol: None,
            maxiter: 20,
            largest: true,
        }
    }
}

/// The result of [`lobpcg`].
#[derive(Debug, Clone)]
pub struct LobpcgResult<T: Float> {
    /// The k eigenvalues in SciPy's order: descending for `largest`, else ascending.
    pub w: Vec<f64>,
    /// The eigenvectors as the columns of an (n, k) array on `X`'s device (B-orthonormal).
    pub v: Array<T>,
    /// Iterations run (0 for the dense path).
    pub iterations: usize,
    /// The final residual norms `‖A v_i − w_i B v_i‖`.
    pub residual_norms: Vec<f64>,
}

fn check_op<T: Float>(op: &str, name: &str, a: &dyn LinearOperator<T>, n: usize) -> Result<()> {
    let s = a.shape();
    if s != (n, n) {
        return Err(make::shape(
            op,
            format!("{name} of shape {s:?}, expected ({n}, {n})"),
        ));
    }
    Ok(())
}

/// `k` eigenpairs of the Hermitian problem `A x = λ B x` (SciPy's
/// `lobpcg(A, X, B, M, Y, tol, maxiter, largest)`): the locally optimal block preconditioned
/// conjugate gradient method (Knyazev 2001) from the initial block `X` (n, k). Each iteration
/// computes the residuals `R = A X − B X Λ` of the still unconverged columns, preconditions
/// them with `M`, projects out the constraints `Y` and `X`, B-orthonormalizes them and the
/// search directions `P`, and takes the Rayleigh–Ritz step on `[X, R, P]`: a dense generalized
/// eigenproblem of size ≤ 3k (with SciPy's switch from implicit to explicitly computed Gram
/// blocks once the residuals are small, and its restart without `P` when `[X, R, P]` is not
/// numerically independent). A column converges when its residual norm is at most `tol`.
///
/// As SciPy, when `n − c < 5k` (`c` constraint columns) the iteration is not used: the operators
/// are applied to the identity and the dense problem is solved directly (SciPy warns; without
/// constraints only, as SciPy).
///
/// On a GPU every block operation (operator products, Gram matrices, combinations) runs on `X`'s
/// device; the Gram matrices (≤ 3k × 3k) are read to the host each iteration, where the small
/// Cholesky factorisations and the Rayleigh–Ritz eigenproblem are solved with faer in f64.
///
/// ```
/// use cusci_sparse::{diags, Array, Device, linalg::{lobpcg, LobpcgOptions}};
/// let dev = Device::Cpu;
/// let d: Vec<f64> = (1..=40).map(|i| i as f64).collect();
/// let a = diags::<f64>(&[&d], &[0], None, &dev)?;
/// let x = cusci_core::testing::randn::<f64>(&[40, 2], 1, &dev)?;
/// let r = lobpcg(&a, &x, &LobpcgOptions { tol: Some(1e-8), maxiter: 200, ..Default::default() })?;
/// assert!((r.w[0] - 40.0).abs() < 1e-7 && (r.w[1] - 39.0).abs() < 1e-7);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for an `X` that is not 2-D (n, k), operators or `Y` of the wrong shape;
/// `InvalidArgument` for `k = 0`, `k > n`, a negative or NaN `tol`, linearly dependent initial
/// vectors or constraints; `DeviceMismatch` for a `Y` on another device; `NotImplemented` for
/// constraints on the dense path (as SciPy); `NotPositiveDefinite` when `B` is not (dense path);
/// `NoConvergence { iterations, residual }` (the largest residual norm) when some column has
/// not converged after `maxiter` iterations or the iteration broke down; the operators' errors.
pub fn lobpcg<T: Float>(
    a: &dyn LinearOperator<T>,
    x: &Array<T>,
    opts: &LobpcgOptions<T>,
) -> Result<LobpcgResult<T>> {
    let op = "lobpcg";
    if x.ndim() != 2 {
        return Err(make::shape(
            op,
            format!("expected a 2-D X of shape (n, k), got {:?}", x.shape()),
        ));
    }
    let (n, k) = (x.shape()[0], x.shape()[1]);
    if k == 0 || k > n {
        return Err(make::arg(
            op,
            format!("the block size k = {k} must be in 1..={n}"),
        ));
    }
    check_op(op, "A", a, n)?;
    if let Some(b) = opts.b {
        check_op(op, "B", b, n)?;
    }
    if let Some(m) = opts.m {
        check_op(op, "M", m, n)?;
    }
    let dev = x.device().clone();
    let ny = match opts.y {
        Some(y) => {
            if y.ndim() != 2 || y.shape()[0] != n {
                return Err(make::shape(
                    op,
                    format!("Y of shape {:?} for n = {n}", y.shape()),
                ));
            }
            cusci_core::array::check_same_device(op, &dev, y.device())?;
            y.shape()[1]
        }
        None => 0,
    };
    let eps = krylov::eps::<T>();
    let tol = match opts.tol {
        Some(t) if t.is_nan() || t < 0.0 => return Err(make::arg(op, "tol must be non-negative")),
        Some(t) if t > 0.0 => t,
        _ => eps.sqrt() * n as f64,
    };
    // pivots of the small Cholesky factorisations below this fraction of the diagonal count as
    // linear dependence (the Gram matrices carry errors of the element type's precision)
    let floor = 100.0 * eps;
    if n < ny + 5 * k {
        if ny > 0 {
            return Err(make::not_implemented(
                "lobpcg (dense path, n - c < 5k) with constraints Y",
                &dev,
            ));
        }
        return dense_path(op, a, opts.b, n, k, opts.largest, &dev);
    }
    let bop = opts.b;
    let bapply = |blk: &Block<T>| -> Result<Block<T>> {
        match bop {
            Some(b) => blk.apply(b),
            None => Ok(blk.clone()),
        }
    };
    // constraints: X -= Y (Yᴴ B Y)⁻¹ (B Y)ᴴ X
    let cons = match opts.y {
        Some(y) => {
            let yb = Block::from_cols(&y.contiguous()?)?;
            let by = bapply(&yb)?;
            let g = yb.gram(&by)?;
            let Some(t) = orthonormalizer(&g, ny, floor) else {
                return Err(make::arg(op, "the constraints Y are linearly dependent"));
            };
            // with Yo = Y T (B-orthonormal), the projection is X -= Yo (B Yo)ᴴ X
            Some((yb.combine(&t, ny, None)?, by.combine(&t, ny, None)?))
        }
        None => None,
    };
    let constrain = |blk: Block<T>| -> Result<Block<T>> {
        match &cons {
            Some((yo, byo)) => {
                let c = byo.gram(&blk)?;
                let neg: Vec<c64> = c.iter().map(|v| -v).collect();
                yo.combine(&neg, blk.p, Some(&blk))
            }
            None => Ok(blk),
        }
    };
    let mut xb = constrain(Block::from_cols(&x.contiguous()?)?)?;
    let mut bx = bapply(&xb)?;
    let g = xb.gram(&bx)?;
    let Some(t) = orthonormalizer(&g, k, floor) else {
        return Err(make::arg(
            op,
            "the initial vectors X are linearly dependent",
        ));
    };
    xb = xb.combine(&t, k, None)?;
    bx = if bop.is_some() {
        bx.combine(&t, k, None)?
    } else {
        xb.clone()
    };
    let mut ax = xb.apply(a)?;
    let (w0, v0) = eigh_host(op, &xb.gram(&ax)?, k)?;
    let ii = wanted(&w0, k, opts.largest);
    let mut lam: Vec<f64> = ii.iter().map(|&i| w0[i]).collect();
    let rot = sub(&v0, k, 0, k, &ii);
    xb = xb.combine(&rot, k, None)?;
    ax = ax.combine(&rot, k, None)?;
    bx = if bop.is_some() {
        bx.combine(&rot, k, None)?
    } else {
        xb.clone()
    };
    let myeps = if krylov::eps::<T>() > 1e-10 {
        1.0
    } else {
        eps.sqrt()
    };
    let mut active = vec![true; k];
    let mut dirs: Option<(Block<T>, Block<T>, Block<T>)> = None; // P, AP, BP
    let mut explicit = false;
    let residuals = |ax: &Block<T>, bx: &Block<T>, lam: &[f64]| {
        let mut d = vec![c64::new(0.0, 0.0); k * k];
        for i in 0..k {
            d[i * k + i] = c64::new(-lam[i], 0.0);
        }
        let r = bx.combine(&d, k, Some(ax))?;
        let g = r.gram(&r)?;
        let rn: Vec<f64> = (0..k).map(|i| g[i * k + i].re.max(0.0).sqrt()).collect();
        Ok::<_, Error>((r, rn))
    };
    let mut iterations = 0;
    loop {
        let (r, rn) = residuals(&ax, &bx, &lam)?;
        for (f, &v) in active.iter_mut().zip(&rn) {
            *f = *f && (v > tol || v.is_nan());
        }
        let idx: Vec<usize> = (0..k).filter(|&i| active[i]).collect();
        let worst = rn.iter().cloned().fold(0.0f64, f64::max);
        if idx.is_empty() {
            return Ok(LobpcgResult {
                w: lam,
                v: xb.to_cols()?,
                iterations,
                residual_norms: rn,
            });
        }
        if iterations == opts.maxiter || worst.is_nan() {
            return Err(Error::NoConvergence {
                op: op.into(),
                iterations,
                residual: worst,
            });
        }
        iterations += 1;
        let na = idx.len();
        let mut ra = r.select(&idx)?;
        if let Some(m) = opts.m {
            ra = ra.apply(m)?;
        }
        ra = constrain(ra)?;
        // B-orthogonal to X: R -= X (B X)ᴴ R
        let c = bx.gram(&ra)?;
        let neg: Vec<c64> = c.iter().map(|v| -v).collect();
        ra = xb.combine(&neg, na, Some(&ra))?;
        let mut bra = bapply(&ra)?;
        let Some(t) = orthonormalizer(&ra.gram(&bra)?, na, floor) else {
            // SciPy stops here too ("failed at iteration ... not reaching the tolerance")
            return Err(Error::NoConvergence {
                op: op.into(),
                iterations,
                residual: worst,
            });
        };
        ra = ra.combine(&t, na, None)?;
        bra = if bop.is_some() {
            bra.combine(&t, na, None)?
        } else {
            ra.clone()
        };
        let ara = ra.apply(a)?;
        let mut pdirs = None;
        if let Some((p, ap, bp)) = &dirs {
            let (pa, apa, bpa) = (p.select(&idx)?, ap.select(&idx)?, bp.select(&idx)?);
            if let Some(t) = orthonormalizer(&pa.gram(&bpa)?, na, floor) {
                let pa2 = pa.combine(&t, na, None)?;
                let bpa2 = if bop.is_some() {
                    bpa.combine(&t, na, None)?
                } else {
                    pa2.clone()
                };
                pdirs = Some((pa2, apa.combine(&t, na, None)?, bpa2));
            }
        }
        explicit = explicit || worst <= myeps;
        // the Rayleigh–Ritz step on S = [X, R, P]
        let (s, as_, bs) = match &pdirs {
            Some((p, ap, bp)) => (
                Block::concat(&[&xb, &ra, p])?,
                Block::concat(&[&ax, &ara, ap])?,
                Block::concat(&[&bx, &bra, bp])?,
            ),
            None => (
                Block::concat(&[&xb, &ra])?,
                Block::concat(&[&ax, &ara])?,
                Block::concat(&[&bx, &bra])?,
            ),
        };
        let sz = s.p;
        let mut ga = hermitian_part(&s.gram(&as_)?, sz);
        let mut gb = hermitian_part(&s.gram(&bs)?, sz);
        if !explicit {
            // the blocks known by construction: XᴴAX = Λ, XᴴBX = I, RᴴBR = I, XᴴBR = 0, PᴴBP = I
            let one = c64::new(1.0, 0.0);
            let zero = c64::new(0.0, 0.0);
            for i in 0..k {
                for j in 0..k {
                    ga[i * sz + j] = if i == j { c64::new(lam[i], 0.0) } else { zero };
                }
            }
            for i in 0..sz {
                for j in 0..sz {
                    let bi = (i >= k) as usize + (i >= k + na) as usize;
                    let bj = (j >= k) as usize + (j >= k + na) as usize;
                    if bi == bj || (bi + bj == 1) {
                        gb[i * sz + j] = if i == j { one } else { zero };
                    }
                }
            }
        }
        let mut sol = geneigh(op, &ga, &gb, sz, floor)?;
        let mut used = sz;
        if sol.is_none() && pdirs.is_some() {
            // restart without P
            used = k + na;
            let cols: Vec<usize> = (0..used).collect();
            sol = geneigh(
                op,
                &sub(&ga, sz, 0, used, &cols),
                &sub(&gb, sz, 0, used, &cols),
                used,
                floor,
            )?;
        }
        let Some((wl, ev)) = sol else {
            return Err(Error::NoConvergence {
                op: op.into(),
                iterations,
                residual: worst,
            });
        };
        let ii = wanted(&wl, k, opts.largest);
        lam = ii.iter().map(|&i| wl[i]).collect();
        let ex = sub(&ev, used, 0, k, &ii);
        let erest = sub(&ev, used, k, used, &ii);
        // the rest of the basis: [R, P] (or R after a restart)
        let rest = |full: &Block<T>| -> Result<Block<T>> {
            let idx: Vec<usize> = (k..used).collect();
            full.select(&idx)
        };
        let (rs, ars, brs) = (rest(&s)?, rest(&as_)?, rest(&bs)?);
        let pp = rs.combine(&erest, k, None)?;
        let app = ars.combine(&erest, k, None)?;
        let bpp = if bop.is_some() {
            brs.combine(&erest, k, None)?
        } else {
            pp.clone()
        };
        xb = xb.combine(&ex, k, Some(&pp))?;
        ax = ax.combine(&ex, k, Some(&app))?;
        bx = if bop.is_some() {
            bx.combine(&ex, k, Some(&bpp))?
        } else {
            xb.clone()
        };
        dirs = Some((pp, app, bpp));
    }
}

/// SciPy's small-problem path: the operators applied to the identity, the dense problem solved
/// on the host.
fn dense_path<T: Float>(
    op: &str,
    a: &dyn LinearOperator<T>,
    b: Option<&dyn LinearOperator<T>>,
    n: usize,
    k: usize,
    largest: bool,
    dev: &Device,
) -> Result<LobpcgResult<T>> {
    let eye = Block::<T> {
        a: Array::<T>::eye(n, None, 0, dev)?,
        p: n,
        n,
    };
    // row i of eye.apply(A) is A e_i: the transpose of A
    let dense = |blk: Block<T>| -> Result<Vec<c64>> {
        let v = blk.a.to_vec()?;
        Ok(adjoint(
            &v.iter().map(|x| x.to_c64().conj()).collect::<Vec<_>>(),
            n,
            n,
        ))
    };
    let ad = dense(eye.apply(a)?)?;
    let bd = match b {
        Some(b) => dense(eye.apply(b)?)?,
        None => {
            let mut v = vec![c64::new(0.0, 0.0); n * n];
            for i in 0..n {
                v[i * n + i] = c64::new(1.0, 0.0);
            }
            v
        }
    };
    let Some((w, v)) = geneigh(op, &ad, &bd, n, 0.0)? else {
        return Err(Error::NotPositiveDefinite {
            op: op.into(),
            index: 0,
        });
    };
    let ii = wanted(&w, k, largest);
    let vk = sub(&v, n, 0, n, &ii);
    let wk: Vec<f64> = ii.iter().map(|&i| w[i]).collect();
    // the residuals ‖A v − w B v‖ of the (element-type) result
    let vt: Vec<T> = vk.iter().map(|&c| T::from_c64(c)).collect();
    let vr: Vec<c64> = vt.iter().map(|x| x.to_c64()).collect();
    let av = matmul(&ad, &vr, n, n, k);
    let bv = matmul(&bd, &vr, n, n, k);
    let residual_norms = (0..k)
        .map(|j| {
            (0..n)
                .map(|i| (av[i * k + j] - bv[i * k + j] * wk[j]).norm_sqr())
                .sum::<f64>()
                .sqrt()
        })
        .collect();
    Ok(LobpcgResult {
        w: wk,
        v: Array::from_vec(vt, &[n, k], dev)?,
        iterations: 0,
        residual_norms,
    })
}
