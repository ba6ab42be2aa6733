//! The iterative solvers whose scalar recurrences run on the host: [`bicg`], [`qmr`],
//! [`tfqmr`], [`lgmres`] and [`gcrotmk`] (SciPy's iterations, arguments and `info` codes).
//!
//! Every vector stays on the device of `b` and every vector operation is the Krylov engine's
//! (`krylov.rs`: its dot products, `axpy`, scaling and copies; the products are the operator's),
//! so the same code runs on the CPU and on a GPU. The few scalars of each step (dot products
//! and norms) are read to the host, where the recurrences (breakdown tests, Givens rotations of
//! the small Hessenberg least-squares problems) run in `c64` on both devices: one to four reads
//! of the device per iteration (lgmres and gcrotmk: one per inner step, the projections of a
//! step accumulated on the device first).

use crate::krylov::{self, Engine};
use crate::linalg::{init_xr, start, LinearOperator, Solution, SolverOptions, Truncate};
use cusci_core::error::make;
use cusci_core::{c64, Array, Float, Result};

/// The engine plus host-side scalar helpers: dot products read back in one go, vector updates
/// with host coefficients.
struct Host<T: Float> {
    e: Engine<T>,
    /// The scalar slot used by [`Host::scale`] (the last one).
    scale_slot: usize,
}

impl<T: Float> Host<T> {
    fn new(b: &Array<T>, n: usize, nvec: usize, nscal: usize) -> Result<Self> {
        Ok(Host {
            e: Engine::new(b.device(), n, nvec, nscal + 1)?,
            scale_slot: nscal,
        })
    }

    /// `x_k^H y_k` for each pair, read to the host at once.
    fn dots(&mut self, pairs: &[(usize, usize)]) -> Result<Vec<c64>> {
        for (k, &(x, y)) in pairs.iter().enumerate() {
            self.e.dot(x, y, k)?;
        }
        let s = self.e.scalars_t()?;
        Ok(s[..pairs.len()].iter().map(|v| v.to_c64()).collect())
    }

    /// `‖v‖` (one read).
    fn norm(&mut self, v: usize) -> Result<f64> {
        Ok(self.dots(&[(v, v)])?[0].re.max(0.0).sqrt())
    }

    /// Vector `y` += `c` · vector `x`.
    fn axpy(&mut self, y: usize, x: usize, c: c64) -> Result<()> {
        self.e.axpy(y, x, None, T::from_c64(c))
    }

    /// Vector `y` = `c` · vector `y`.
    fn scale(&mut self, y: usize, c: c64) -> Result<()> {
        self.e.set_scalar(self.scale_slot, T::from_c64(c))?;
        self.e.scal(y, self.scale_slot)
    }

    /// Vector `dst` = `op(src)`, a copy when `op` is `None`.
    fn pre(&mut self, op: Option<&dyn LinearOperator<T>>, src: usize, dst: usize) -> Result<()> {
        self.e.precond(op, src, dst)
    }

    /// Vector `dst` = `opᴴ(src)`, a copy when `op` is `None`.
    fn rpre(&mut self, op: Option<&dyn LinearOperator<T>>, src: usize, dst: usize) -> Result<()> {
        match op {
            Some(m) => self.e.rapply(m, src, dst),
            None => self.e.copy(dst, src),
        }
    }

    fn callback(&self, opts: &SolverOptions<T>, x: usize) -> Result<()> {
        if let Some(cb) = opts.callback {
            cb(&self.e.get(x)?);
        }
        Ok(())
    }

    fn solution(&self, x: usize, info: i64, iterations: usize) -> Result<Solution<T>> {
        Ok(Solution {
            x: self.e.get(x)?,
            info,
            iterations,
        })
    }
}

fn c(v: f64) -> c64 {
    c64::new(v, 0.0)
}

/// The checks shared with the other solvers plus `M`'s and `M2`'s shapes.
fn check_m2<T: Float>(op: &str, a: &dyn LinearOperator<T>, opts: &SolverOptions<T>) -> Result<()> {
    if let Some(m2) = opts.m2 {
        let n = a.shape().0;
        if m2.shape() != (n, n) {
            return Err(make::shape(
                op,
                format!("preconditioner M2 of shape {:?} for n = {n}", m2.shape()),
            ));
        }
    }
    Ok(())
}

/// BiConjugate Gradient for a general square `A` (SciPy's `bicg`, the same iteration):
/// `info = −10` when `|ρ| < ε²` (ρ = r̃ᴴ M r), `−11` when `p̃ᴴ A p = 0`, `maxiter` (default
/// 10·n) when not converged; the stopping test `‖r‖ < max(atol, rtol·‖b‖)` at the top of each
/// iteration. Needs `A`'s `rmatvec` (and `M`'s when a preconditioner is given: SciPy's
/// `rpsolve`); `callback(x)` after each iteration.
///
/// Runs on `b`'s device; the vectors stay there, the scalars of each iteration are read to the
/// host (two reads per iteration; see the module doc of `isolve`). Accumulation: the engine's
/// dot products in `T`, the recurrence in `c64`.
///
/// ```
/// use cusci_sparse::{diags, Device, Array, linalg::{bicg, SolverOptions}};
/// let dev = Device::Cpu;
/// let a = diags::<f64>(&[&[3.0; 4], &[-1.0; 3], &[-2.0; 3]], &[0, -1, 1], None, &dev)?;
/// let b = Array::from_vec(vec![1.0; 4], &[4], &dev)?;
/// let s = bicg(&a, &b, &SolverOptions { rtol: 1e-12, ..Default::default() })?;
/// assert_eq!(s.info, 0);
/// assert!(a.dot(&s.x)?.sub(&b)?.norm()? < 1e-10);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square operator or a `b`/`x0`/`M` of the wrong shape,
/// `InvalidArgument` for negative tolerances, `DeviceMismatch`, `NotImplemented` for an
/// operator without `rmatvec`, and the operator's errors.
pub fn bicg<T: Float>(
    a: &dyn LinearOperator<T>,
    b: &Array<T>,
    opts: &SolverOptions<T>,
) -> Result<Solution<T>> {
    const X: usize = 0;
    const R: usize = 1;
    const RT: usize = 2;
    const Z: usize = 3;
    const ZT: usize = 4;
    const P: usize = 5;
    const PT: usize = 6;
    const Q: usize = 7;
    const QT: usize = 8;
    const TMP: usize = 9;
    let st = match start("bicg", a, b, opts)? {
        Ok(s) => s,
        Err(sol) => return Ok(sol),
    };
    let mut h = Host::<T>::new(b, st.n, 10, 2)?;
    init_xr(&mut h.e, a, &st, opts, X, R, TMP)?;
    h.e.copy(RT, R)?;
    let m = opts.m;
    let rhotol = krylov::eps::<T>().powi(2);
    let mut rho_prev = c(0.0);
    for it in 0..st.maxiter {
        h.pre(m, R, Z)?;
        let d = h.dots(&[(R, R), (RT, Z)])?;
        if d[0].re.max(0.0).sqrt() < st.atol {
            return h.solution(X, 0, it);
        }
        h.rpre(m, RT, ZT)?;
        let rho = d[1];
        if rho.norm() < rhotol {
            return h.solution(X, -10, it);
        }
        if it > 0 {
            let beta = rho / rho_prev;
            h.scale(P, beta)?;
            h.axpy(P, Z, c(1.0))?;
            h.scale(PT, beta.conj())?;
            h.axpy(PT, ZT, c(1.0))?;
        } else {
            h.e.copy(P, Z)?;
            h.e.copy(PT, ZT)?;
        }
        h.e.apply(a, P, Q)?;
        h.e.rapply(a, PT, QT)?;
        let rv = h.dots(&[(PT, Q)])?[0];
        if rv == c(0.0) {
            return h.solution(X, -11, it);
        }
        let alpha = rho / rv;
        h.axpy(X, P, alpha)?;
        h.axpy(R, Q, -alpha)?;
        h.axpy(RT, QT, -alpha.conj())?;
        rho_prev = rho;
        h.callback(opts, X)?;
    }
    h.solution(X, st.maxiter as i64, st.maxiter)
}

/// Quasi-Minimal Residual for a general square `A` (SciPy's `qmr`, the same iteration, with
/// the left preconditioner `M1` = `opts.m` and the right one `M2` = `opts.m2`, both default
/// the identity). Breakdowns as SciPy (tolerance ε of `T`): `info` −10 (ρ), −11 (β), −12 (γ),
/// −13 (δ), −14 (ε), −15 (ξ); `maxiter` (default 10·n) when not converged. Needs `A`'s
/// `rmatvec` (and the preconditioners'); `callback(x)` after each iteration.
///
/// Runs on `b`'s device as [`bicg`] (four reads of the device per iteration).
///
/// ```
/// use cusci_sparse::{diags, Device, Array, linalg::{qmr, SolverOptions}};
/// let dev = Device::Cpu;
/// let a = diags::<f64>(&[&[3.0; 4], &[-1.0; 3], &[-2.0; 3]], &[0, -1, 1], None, &dev)?;
/// let b = Array::from_vec(vec![1.0; 4], &[4], &dev)?;
/// let s = qmr(&a, &b, &SolverOptions { rtol: 1e-12, ..Default::default() })?;
/// assert_eq!(s.info, 0);
/// assert!(a.dot(&s.x)?.sub(&b)?.norm()? < 1e-10);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`bicg`], and `ShapeMismatch` for an `M2` of the wrong shape.
pub fn qmr<T: Float>(
    a: &dyn LinearOperator<T>,
    b: &Array<T>,
    opts: &SolverOptions<T>,
) -> Result<Solution<T>> {
    const X: usize = 0;
    const R: usize = 1;
    const VT: usize = 2;
    const Y: usize = 3;
    const WT: usize = 4;
    const Z: usize = 5;
    const V: usize = 6;
    const W: usize = 7;
    const YT: usize = 8;
    const ZT: usize = 9;
    const P: usize = 10;
    const Q: usize = 11;
    const PT: usize = 12;
    const D: usize = 13;
    const S: usize = 14;
    const TMP: usize = 15;
    check_m2("qmr", a, opts)?;
    let st = match start("qmr", a, b, opts)? {
        Ok(s) => s,
        Err(sol) => return Ok(sol),
    };
    let (m1, m2) = (opts.m, opts.m2);
    let mut h = Host::<T>::new(b, st.n, 16, 2)?;
    init_xr(&mut h.e, a, &st, opts, X, R, TMP)?;
    let tol = krylov::eps::<T>();
    h.e.copy(VT, R)?;
    h.pre(m1, VT, Y)?;
    h.e.copy(WT, R)?;
    h.rpre(m2, WT, Z)?;
    let d = h.dots(&[(Y, Y), (Z, Z)])?;
    let (mut rho, mut xi) = (d[0].re.max(0.0).sqrt(), d[1].re.max(0.0).sqrt());
    let (mut gamma, mut eta, mut theta) = (1.0f64, c(-1.0), 0.0f64);
    let mut epsilon = c(0.0);
    for it in 0..st.maxiter {
        if h.norm(R)? < st.atol {
            return h.solution(X, 0, it);
        }
        if rho < tol {
            return h.solution(X, -10, it);
        }
        if xi < tol {
            return h.solution(X, -15, it);
        }
        h.e.copy(V, VT)?;
        h.scale(V, c(1.0 / rho))?;
        h.scale(Y, c(1.0 / rho))?;
        h.e.copy(W, WT)?;
        h.scale(W, c(1.0 / xi))?;
        h.scale(Z, c(1.0 / xi))?;
        let delta = h.dots(&[(Z, Y)])?[0];
        if delta.norm() < tol {
            return h.solution(X, -13, it);
        }
        h.pre(m2, Y, YT)?;
        h.rpre(m1, Z, ZT)?;
        if it > 0 {
            h.axpy(YT, P, -(c(xi) * delta / epsilon))?;
            h.e.copy(P, YT)?;
            h.axpy(ZT, Q, -(c(rho) * (delta / epsilon).conj()))?;
            h.e.copy(Q, ZT)?;
        } else {
            h.e.copy(P, YT)?;
            h.e.copy(Q, ZT)?;
        }
        h.e.apply(a, P, PT)?;
        epsilon = h.dots(&[(Q, PT)])?[0];
        if epsilon.norm() < tol {
            return h.solution(X, -14, it);
        }
        let beta = epsilon / delta;
        if beta.norm() < tol {
            return h.solution(X, -11, it);
        }
        h.e.copy(VT, PT)?;
        h.axpy(VT, V, -beta)?;
        h.pre(m1, VT, Y)?;
        let rho_prev = rho;
        h.e.rapply(a, Q, TMP)?;
        h.e.copy(WT, W)?;
        h.scale(WT, -beta.conj())?;
        h.axpy(WT, TMP, c(1.0))?;
        h.rpre(m2, WT, Z)?;
        let d = h.dots(&[(Y, Y), (Z, Z)])?;
        rho = d[0].re.max(0.0).sqrt();
        xi = d[1].re.max(0.0).sqrt();
        let (gamma_prev, theta_prev) = (gamma, theta);
        theta = rho / (gamma_prev * beta.norm());
        gamma = 1.0 / (1.0 + theta * theta).sqrt();
        if gamma.abs() < tol {
            return h.solution(X, -12, it);
        }
        eta *= -(c(rho_prev) / beta) * c((gamma / gamma_prev).powi(2));
        if it > 0 {
            let f = c((theta_prev * gamma).powi(2));
            h.scale(D, f)?;
            h.axpy(D, P, eta)?;
            h.scale(S, f)?;
            h.axpy(S, PT, eta)?;
        } else {
            h.e.copy(D, P)?;
            h.scale(D, eta)?;
            h.e.copy(S, PT)?;
            h.scale(S, eta)?;
        }
        h.axpy(X, D, c(1.0))?;
        h.axpy(R, S, c(-1.0))?;
        h.callback(opts, X)?;
    }
    h.solution(X, st.maxiter as i64, st.maxiter)
}

/// Transpose-Free Quasi-Minimal Residual for a general square `A` (SciPy's `tfqmr`, the same
/// iteration): the tolerance is `max(atol, rtol·‖r₀‖)` with the initial residual (SciPy's
/// rule for tfqmr), the stopping test `τ·√(k+1) < atol` after each step, `maxiter` default
/// `min(10000, 10·n)`; `info = −1` when `r*ᴴ v = 0`, `maxiter` when not converged. The
/// preconditioner is applied after each product (`M A`, as SciPy); `callback(x)` after each
/// iteration.
///
/// Runs on `b`'s device as [`bicg`] (one or two reads of the device per iteration).
///
/// ```
/// use cusci_sparse::{diags, Device, Array, linalg::{tfqmr, SolverOptions}};
/// let dev = Device::Cpu;
/// let a = diags::<f64>(&[&[3.0; 4], &[-1.0; 3], &[-2.0; 3]], &[0, -1, 1], None, &dev)?;
/// let b = Array::from_vec(vec![1.0; 4], &[4], &dev)?;
/// let s = tfqmr(&a, &b, &SolverOptions { rtol: 1e-12, ..Default::default() })?;
/// assert_eq!(s.info, 0);
/// assert!(a.dot(&s.x)?.sub(&b)?.norm()? < 1e-9);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`cg`](crate::linalg::cg).
pub fn tfqmr<T: Float>(
    a: &dyn LinearOperator<T>,
    b: &Array<T>,
    opts: &SolverOptions<T>,
) -> Result<Solution<T>> {
    const X: usize = 0;
    const R: usize = 1;
    const U: usize = 2;
    const W: usize = 3;
    const V: usize = 4;
    const UH: usize = 5;
    const D: usize = 6;
    const UN: usize = 7;
    const Z: usize = 8;
    const TMP: usize = 9;
    let mut st = match start("tfqmr", a, b, opts)? {
        Ok(s) => s,
        Err(sol) => return Ok(sol),
    };
    let n = st.n;
    let maxiter = opts.maxiter.unwrap_or((10 * n).min(10000));
    let m = opts.m;
    let mut h = Host::<T>::new(b, n, 10, 2)?;
    init_xr(&mut h.e, a, &st, opts, X, R, TMP)?;
    // r* = r (vector R is never written again)
    h.e.copy(U, R)?;
    h.e.copy(W, R)?;
    h.e.apply(a, R, TMP)?;
    h.pre(m, TMP, V)?;
    h.e.copy(UH, V)?;
    let (mut theta, mut eta) = (0.0f64, c(0.0));
    let mut rho = c(h.dots(&[(R, R)])?[0].re);
    let mut rho_last = rho;
    let r0norm = rho.re.max(0.0).sqrt();
    let mut tau = r0norm;
    if r0norm == 0.0 {
        return h.solution(X, 0, 0);
    }
    st.atol = opts.atol.max(opts.rtol * r0norm);
    let mut alpha = c(0.0);
    for it in 0..maxiter {
        let even = it % 2 == 0;
        if even {
            let vtr = h.dots(&[(R, V)])?[0];
            if vtr == c(0.0) {
                return h.solution(X, -1, it);
            }
            alpha = rho / vtr;
            h.e.copy(UN, U)?;
            h.axpy(UN, V, -alpha)?;
        }
        h.axpy(W, UH, -alpha)?;
        h.scale(D, c(theta * theta) / alpha * eta)?;
        h.axpy(D, U, c(1.0))?;
        theta = h.norm(W)? / tau;
        let cc = (1.0 / (1.0 + theta * theta)).sqrt();
        tau *= theta * cc;
        eta = c(cc * cc) * alpha;
        h.pre(m, D, Z)?;
        h.axpy(X, Z, eta)?;
        h.callback(opts, X)?;
        if tau * ((it + 1) as f64).sqrt() < st.atol {
            return h.solution(X, 0, it + 1);
        }
        if !even {
            rho = h.dots(&[(R, W)])?[0];
            let beta = rho / rho_last;
            // u = w + beta u; v = beta uhat + beta² v; uhat = M A u; v += uhat
            h.scale(U, beta)?;
            h.axpy(U, W, c(1.0))?;
            h.scale(V, beta * beta)?;
            h.axpy(V, UH, beta)?;
            h.e.apply(a, U, TMP)?;
            h.pre(m, TMP, UH)?;
            h.axpy(V, UH, c(1.0))?;
        } else {
            h.e.apply(a, UN, TMP)?;
            h.pre(m, TMP, UH)?;
            h.e.copy(U, UN)?;
            rho_last = rho;
        }
    }
    h.solution(X, maxiter as i64, maxiter)
}

/// A pool of the engine's vectors (lgmres and gcrotmk keep lists of vectors).
struct Pool {
    free: Vec<usize>,
}

impl Pool {
    fn new(first: usize, count: usize) -> Self {
        Pool {
            free: (first..first + count).rev().collect(),
        }
    }
    fn take(&mut self) -> Result<usize> {
        self.free
            .pop()
            .ok_or_else(|| make::arg("isolve", "internal: vector pool exhausted"))
    }
    fn give(&mut self, v: usize) {
        self.free.push(v);
    }
}

/// What [`fgmres`] returns: the Arnoldi vectors `vs` (`j + 2`), the search directions `zs`
/// (`j + 1`), the Hessenberg columns `h` (column `i` has `i + 2` entries), the projections on
/// the `cs` (`b[i][j]`), the least-squares solution `y` and the residual estimate.
struct Fgm {
    vs: Vec<usize>,
    zs: Vec<usize>,
    /// the vectors this call allocated (freed by the caller with [`Fgm::release`])
    owned: Vec<usize>,
    h: Vec<Vec<c64>>,
    b: Vec<Vec<c64>>,
    y: Vec<c64>,
    pres: f64,
    /// R's last diagonal is not finite (SciPy's LinAlgError)
    failed: bool,
}

impl Fgm {
    fn release(self, pool: &mut Pool) {
        for v in self.owned {
            pool.give(v);
        }
    }
    /// `H y` (length `y.len() + 1`).
    fn hy(&self) -> Vec<c64> {
        let k = self.y.len();
        let mut out = vec![c(0.0); k + 1];
        for (j, &yj) in self.y.iter().enumerate() {
            for (i, &hij) in self.h[j].iter().enumerate() {
                out[i] += hij * yj;
            }
        }
        out
    }
}

struct FgmArgs<'a, T: Float> {
    a: &'a dyn LinearOperator<T>,
    /// the normalised start vector (owned by the caller)
    v0: usize,
    m: usize,
    lpsolve: Option<&'a dyn LinearOperator<T>>,
    rpsolve: Option<&'a dyn LinearOperator<T>>,
    atol: f64,
    cs: &'a [usize],
    /// (z, A z) pairs of lgmres (A z absent when not stored)
    outer_v: &'a [(usize, Option<usize>)],
    prepend: bool,
}

/// SciPy's flexible GMRES inner cycle (`_fgmres` of lgmres and gcrotmk): modified Gram–Schmidt
/// against the `cs`, then the Arnoldi vectors, breakdown when `h_{j+1,j} ≤ ε‖w‖`, stops when
/// the least-squares residual is below `atol`. The QR of the Hessenberg matrix is kept by
/// Givens rotations (SciPy updates it with `qr_insert`; the same R up to signs). The
/// projections of one step accumulate on the device; one read of the device per step.
fn fgmres<T: Float>(h: &mut Host<T>, pool: &mut Pool, g: &FgmArgs<'_, T>) -> Result<Fgm> {
    let eps = krylov::eps::<T>();
    let nout = g.outer_v.len();
    let m = g.m + nout;
    let mut out = Fgm {
        vs: vec![g.v0],
        zs: Vec::new(),
        owned: Vec::new(),
        h: Vec::new(),
        b: vec![Vec::new(); g.cs.len()],
        y: Vec::new(),
        pres: f64::NAN,
        failed: false,
    };
    // Givens rotations and the rotated right-hand side e1
    let mut rot: Vec<(c64, c64)> = Vec::new();
    let mut rcols: Vec<Vec<c64>> = Vec::new();
    let mut rhs = vec![c(1.0)];
    let mut last = 0;
    for j in 0..m {
        let last_v = *out.vs.last().unwrap_or(&g.v0);
        // z and w (w = lpsolve(A z) unless given)
        let (z, given_w) = if g.prepend && j < nout {
            g.outer_v[j]
        } else if g.prepend && j == nout {
            (rp(h, pool, &mut out, g.rpsolve, g.v0)?, None)
        } else if !g.prepend && j >= m - nout {
            g.outer_v[j - (m - nout)]
        } else {
            (rp(h, pool, &mut out, g.rpsolve, last_v)?, None)
        };
        let w = pool.take()?;
        out.owned.push(w);
        match given_w {
            Some(wv) => h.e.copy(w, wv)?,
            None => match g.lpsolve {
                None => h.e.apply(g.a, z, w)?,
                Some(mo) => {
                    let t = pool.take()?;
                    h.e.apply(g.a, z, t)?;
                    h.e.apply(mo, t, w)?;
                    pool.give(t);
                }
            },
        }
        // slots: 0 = ‖w‖², 1.. = the cs projections, then the vs projections, then ‖w'‖²
        let nc = g.cs.len();
        let nv = out.vs.len();
        h.e.dot(w, w, 0)?;
        let mone = krylov::re::<T>(-1.0);
        for (i, &cv) in g.cs.iter().enumerate() {
            h.e.dot(cv, w, 1 + i)?;
            h.e.axpy(w, cv, Some(1 + i), mone)?;
        }
        for (i, &v) in out.vs.iter().enumerate() {
            h.e.dot(v, w, 1 + nc + i)?;
            h.e.axpy(w, v, Some(1 + nc + i), mone)?;
        }
        h.e.dot(w, w, 1 + nc + nv)?;
        let s: Vec<c64> = h.e.scalars_t()?[..2 + nc + nv]
            .iter()
            .map(|v| v.to_c64())
            .collect();
        let w_norm = s[0].re.max(0.0).sqrt();
        for i in 0..nc {
            out.b[i].push(s[1 + i]);
        }
        let mut hcur: Vec<c64> = s[1 + nc..1 + nc + nv].to_vec();
        let hlast = s[1 + nc + nv].re.max(0.0).sqrt();
        hcur.push(c(hlast));
        let inv = 1.0 / hlast;
        if inv.is_finite() {
            h.scale(w, c(inv))?;
        }
        // SciPy's `not (h > eps·‖w‖)`: NaN counts as a breakdown
        let breakdown = hlast.partial_cmp(&(eps * w_norm)) != Some(std::cmp::Ordering::Greater);
        out.vs.push(w);
        out.zs.push(z);
        out.h.push(hcur.clone());
        // QR update: the previous rotations, then a new one zeroing hcur[j + 1]
        let mut col = hcur;
        for (k, &(cs, sn)) in rot.iter().enumerate() {
            let (a0, a1) = (col[k], col[k + 1]);
            col[k] = cs * a0 + sn * a1;
            col[k + 1] = -sn.conj() * a0 + cs * a1;
        }
        let (cs, sn, r) = givens(col[j], col[j + 1]);
        col[j] = r;
        col.truncate(j + 1);
        rot.push((cs, sn));
        rcols.push(col);
        let t = rhs[j];
        rhs[j] = cs * t;
        rhs.push(-sn.conj() * t);
        out.pres = rhs[j + 1].norm();
        last = j;
        if out.pres < g.atol || breakdown {
            break;
        }
    }
    let k = last + 1;
    if !rcols[last][last].re.is_finite() || !rcols[last][last].im.is_finite() {
        out.failed = true;
        return Ok(out);
    }
    // y = R⁻¹ (Qᴴ e1)[..k] by back substitution (a zero diagonal gives a zero component)
    let mut y = rhs[..k].to_vec();
    for i in (0..k).rev() {
        let mut v = y[i];
        for (jj, yj) in y.iter().enumerate().take(k).skip(i + 1) {
            v -= rcols[jj][i] * yj;
        }
        y[i] = if rcols[i][i] == c(0.0) {
            c(0.0)
        } else {
            v / rcols[i][i]
        };
    }
    for row in out.b.iter_mut() {
        row.truncate(k);
    }
    out.y = y;
    Ok(out)
}

/// `rpsolve(v)`: `v` itself without a preconditioner, else a new vector.
fn rp<T: Float>(
    h: &mut Host<T>,
    pool: &mut Pool,
    out: &mut Fgm,
    rpsolve: Option<&dyn LinearOperator<T>>,
    v: usize,
) -> Result<usize> {
    match rpsolve {
        None => Ok(v),
        Some(mo) => {
            let z = pool.take()?;
            out.owned.push(z);
            h.e.apply(mo, v, z)?;
            Ok(z)
        }
    }
}

/// A complex Givens rotation `(c, s, r)` with `[c s; −s̄ c] [f; g] = [r; 0]` (c real).
fn givens(f: c64, g: c64) -> (c64, c64, c64) {
    let (af, ag) = (f.norm(), g.norm());
    if ag == 0.0 {
        return (c(1.0), c(0.0), f);
    }
    if af == 0.0 {
        return (c(0.0), g.conj() / ag, c(ag));
    }
    let d = af.hypot(ag);
    let sf = f / af;
    (c(af / d), sf * g.conj() / d, sf * d)
}

/// `dst` = Σ `vecs[i]` · `coef[i]` (over the shorter of the two).
fn combine<T: Float>(h: &mut Host<T>, dst: usize, vecs: &[usize], coef: &[c64]) -> Result<()> {
    h.scale(dst, c(0.0))?;
    for (&v, &k) in vecs.iter().zip(coef) {
        h.axpy(dst, v, k)?;
    }
    Ok(())
}

fn check_finite_b<T: Float>(op: &str, b: &Array<T>) -> Result<()> {
    if b.to_vec()?.iter().any(|v| {
        let z = v.to_c64();
        !z.re.is_finite() || !z.im.is_finite()
    }) {
        return Err(make::arg(op, "RHS must contain only finite numbers"));
    }
    Ok(())
}

/// LGMRES for a general square `A` (SciPy's `lgmres`: restarted flexible GMRES of
/// `inner_m` = `opts.inner_m` (default 30) steps augmented by the last `outer_k` (default 3)
/// error approximations, `store_outer_av` (default true) and `prepend_outer_v` (default
/// false) as SciPy; `maxiter` counts outer iterations, default 1000). The preconditioner is
/// applied on the left; the inner tolerance adapts as SciPy's. `info = 0` when
/// `‖b − A x‖ ≤ max(atol, rtol·‖b‖)`, `maxiter` when not converged, `k + 1` when the inner
/// least-squares problem failed (not finite) in outer iteration `k`. `callback(x)` at the
/// start of each outer iteration (SciPy's place). SciPy's in/out argument `outer_v` (vectors
/// kept between calls) is not offered.
///
/// Runs on `b`'s device; the vectors (`inner_m + 2·outer_k + 8` of them) stay there, the
/// Hessenberg least-squares problem is solved on the host (one read of the device per inner
/// step).
///
/// ```
/// use cusci_sparse::{diags, Device, Array, linalg::{lgmres, SolverOptions}};
/// let dev = Device::Cpu;
/// let a = diags::<f64>(&[&[3.0; 4], &[-1.0; 3], &[-2.0; 3]], &[0, -1, 1], None, &dev)?;
/// let b = Array::from_vec(vec![1.0; 4], &[4], &dev)?;
/// let s = lgmres(&a, &b, &SolverOptions { rtol: 1e-12, ..Default::default() })?;
/// assert_eq!(s.info, 0);
/// assert!(a.dot(&s.x)?.sub(&b)?.norm()? < 1e-10);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`cg`](crate::linalg::cg); `InvalidArgument` for a non-finite `b`, `inner_m = 0`, or
/// when the preconditioner returns a zero vector (SciPy's RuntimeError).
pub fn lgmres<T: Float>(
    a: &dyn LinearOperator<T>,
    b: &Array<T>,
    opts: &SolverOptions<T>,
) -> Result<Solution<T>> {
    let op = "lgmres";
    const X: usize = 0;
    const B: usize = 1;
    const R: usize = 2;
    const V0: usize = 3;
    const DX: usize = 4;
    const FIXED: usize = 5;
    let inner_m = opts.inner_m.unwrap_or(30);
    let outer_k = opts.outer_k.unwrap_or(3);
    if inner_m == 0 {
        return Err(make::arg(op, "inner_m must be positive"));
    }
    let maxiter = opts.maxiter.unwrap_or(1000);
    let st = match start(op, a, b, opts)? {
        Ok(s) => s,
        Err(sol) => return Ok(sol),
    };
    check_finite_b(op, b)?;
    let m = opts.m;
    let n = st.n;
    // pool: the outer pairs (one more while appending), the inner vectors (w per step, a
    // temporary for the preconditioned product)
    let pool_n = 2 * (outer_k + 1) + (inner_m + outer_k + 1) + 2;
    let mut h = Host::<T>::new(b, n, FIXED + pool_n, inner_m + outer_k + 4)?;
    let mut pool = Pool::new(FIXED, pool_n);
    h.e.load(B, &st.b)?;
    if let Some(x0) = opts.x0 {
        h.e.load(X, x0)?;
    }
    let mut outer: Vec<(usize, Option<usize>)> = Vec::new();
    let mut ptol_max_factor = 1.0f64;
    for k_outer in 0..maxiter {
        // r = A x − b
        h.e.apply(a, X, R)?;
        h.e.sub(R, R, B)?;
        h.callback(opts, X)?;
        let r_norm = h.norm(R)?;
        if r_norm <= st.atol {
            return h.solution(X, 0, k_outer);
        }
        h.pre(m, R, V0)?;
        let inner_res_0 = h.norm(V0)?;
        if inner_res_0 == 0.0 {
            return Err(make::arg(
                op,
                format!("the preconditioner returned a zero vector; |v| ~ {r_norm:.1e}, |M v| = 0"),
            ));
        }
        h.scale(V0, c(-1.0 / inner_res_0))?;
        let ptol = ptol_max_factor.min(st.atol / r_norm);
        let f = fgmres(
            &mut h,
            &mut pool,
            &FgmArgs {
                a,
                v0: V0,
                m: inner_m,
                lpsolve: m,
                rpsolve: None,
                atol: ptol,
                cs: &[],
                outer_v: &outer,
                prepend: opts.prepend_outer_v,
            },
        )?;
        if f.failed {
            return h.solution(X, (k_outer + 1) as i64, k_outer + 1);
        }
        let mut f = f;
        for yv in f.y.iter_mut() {
            *yv *= inner_res_0;
        }
        if f.y.iter().any(|v| !v.re.is_finite() || !v.im.is_finite()) {
            return h.solution(X, (k_outer + 1) as i64, k_outer + 1);
        }
        ptol_max_factor = if f.pres > ptol {
            (1.5 * ptol_max_factor).min(1.0)
        } else {
            (0.25 * ptol_max_factor).max(1e-16)
        };
        combine(&mut h, DX, &f.zs, &f.y)?;
        let nx = h.norm(DX)?;
        if nx > 0.0 {
            let oz = pool.take()?;
            h.e.copy(oz, DX)?;
            h.scale(oz, c(1.0 / nx))?;
            let oa = if opts.store_outer_av {
                let q = f.hy();
                let oa = pool.take()?;
                combine(&mut h, oa, &f.vs, &q)?;
                h.scale(oa, c(1.0 / nx))?;
                Some(oa)
            } else {
                None
            };
            outer.push((oz, oa));
        }
        f.release(&mut pool);
        while outer.len() > outer_k {
            let (z, w) = outer.remove(0);
            pool.give(z);
            if let Some(w) = w {
                pool.give(w);
            }
        }
        h.axpy(X, DX, c(1.0))?;
    }
    h.solution(X, maxiter as i64, maxiter)
}

/// GCROT(m, k) for a general square `A` (SciPy's `gcrotmk`: flexible GMRES of
/// `m` = `opts.inner_m` (default 20) steps with the preconditioner on the right, deflated by
/// `k` = `opts.outer_k` (default `m`) recycled pairs (c, u) with `A u = c`, truncated by
/// `truncate` (`Oldest`, SciPy's default); `maxiter` counts outer iterations, default 1000).
/// `info = 0` when `‖r‖ ≤ max(atol, rtol·‖b‖)` (the true residual rechecked as SciPy),
/// `maxiter` when not converged, `k + 1` when the inner least-squares problem failed in outer
/// iteration `k`. `callback(x)` at the start of each outer iteration. SciPy's in/out argument
/// `CU` (vectors recycled between calls) and `discard_C` are not offered.
///
/// Runs on `b`'s device as [`lgmres`].
///
/// ```
/// use cusci_sparse::{diags, Device, Array, linalg::{gcrotmk, SolverOptions}};
/// let dev = Device::Cpu;
/// let a = diags::<f64>(&[&[3.0; 4], &[-1.0; 3], &[-2.0; 3]], &[0, -1, 1], None, &dev)?;
/// let b = Array::from_vec(vec![1.0; 4], &[4], &dev)?;
/// let s = gcrotmk(&a, &b, &SolverOptions { rtol: 1e-12, ..Default::default() })?;
/// assert_eq!(s.info, 0);
/// assert!(a.dot(&s.x)?.sub(&b)?.norm()? < 1e-10);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`lgmres`]; `NotImplemented` for `truncate = Smallest`.
pub fn gcrotmk<T: Float>(
    a: &dyn LinearOperator<T>,
    b: &Array<T>,
    opts: &SolverOptions<T>,
) -> Result<Solution<T>> {
    let op = "gcrotmk";
    const X: usize = 0;
    const B: usize = 1;
    const R: usize = 2;
    const V0: usize = 3;
    const FIXED: usize = 4;
    let mm = opts.inner_m.unwrap_or(20);
    let kk = opts.outer_k.unwrap_or(mm);
    if mm == 0 {
        return Err(make::arg(op, "m must be positive"));
    }
    let maxiter = opts.maxiter.unwrap_or(1000);
    let st = match start(op, a, b, opts)? {
        Ok(s) => s,
        Err(sol) => return Ok(sol),
    };
    check_finite_b(op, b)?;
    if opts.truncate == Truncate::Smallest {
        return Err(make::not_implemented(
            "gcrotmk(truncate='smallest')",
            b.device(),
        ));
    }
    let m = opts.m;
    let n = st.n;
    let ml_max = mm + kk;
    let pool_n = 2 * (kk + 1) + 2 * (ml_max + 1) + 2;
    let mut h = Host::<T>::new(b, n, FIXED + pool_n, ml_max + kk + 4)?;
    let mut pool = Pool::new(FIXED, pool_n);
    h.e.load(B, &st.b)?;
    h.e.load(R, &st.b)?;
    if let Some(x0) = opts.x0 {
        h.e.load(X, x0)?;
        let t = pool.take()?;
        h.e.apply(a, X, t)?;
        h.e.sub(R, R, t)?;
        pool.give(t);
    }
    let mut cu: Vec<(usize, usize)> = Vec::new();
    for j_outer in 0..maxiter {
        h.callback(opts, X)?;
        let mut beta = h.norm(R)?;
        if beta <= st.atol && (j_outer > 0 || !cu.is_empty()) {
            h.e.apply(a, X, R)?;
            h.e.sub(R, B, R)?;
            beta = h.norm(R)?;
        }
        if beta <= st.atol {
            return h.solution(X, 0, j_outer);
        }
        let ml = mm + kk.saturating_sub(cu.len());
        let cs: Vec<usize> = cu.iter().map(|p| p.0).collect();
        h.e.copy(V0, R)?;
        h.scale(V0, c(1.0 / beta))?;
        let mut f = fgmres(
            &mut h,
            &mut pool,
            &FgmArgs {
                a,
                v0: V0,
                m: ml,
                lpsolve: None,
                rpsolve: m,
                atol: st.atol / beta,
                cs: &cs,
                outer_v: &[],
                prepend: false,
            },
        )?;
        if f.failed {
            f.release(&mut pool);
            return h.solution(X, (j_outer + 1) as i64, j_outer + 1);
        }
        for yv in f.y.iter_mut() {
            *yv *= beta;
        }
        let ux = pool.take()?;
        let cx = pool.take()?;
        combine(&mut h, ux, &f.zs, &f.y)?;
        for (i, &(_, u)) in cu.iter().enumerate() {
            let by: c64 = f.b[i].iter().zip(&f.y).map(|(bv, yv)| bv * yv).sum();
            h.axpy(ux, u, -by)?;
        }
        let hy = f.hy();
        combine(&mut h, cx, &f.vs, &hy)?;
        f.release(&mut pool);
        let alpha = 1.0 / h.norm(cx)?;
        if !alpha.is_finite() {
            pool.give(ux);
            pool.give(cx);
            continue;
        }
        h.scale(cx, c(alpha))?;
        h.scale(ux, c(alpha))?;
        let gamma = h.dots(&[(cx, R)])?[0];
        h.axpy(R, cx, -gamma)?;
        h.axpy(X, ux, gamma)?;
        while cu.len() >= kk && !cu.is_empty() {
            let (cv, uv) = cu.remove(0);
            pool.give(cv);
            pool.give(uv);
        }
        cu.push((cx, ux));
    }
    h.solution(X, maxiter as i64, maxiter)
}
