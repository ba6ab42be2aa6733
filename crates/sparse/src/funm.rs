//! `funm_multiply_krylov`: `f(tA) b` by the restarted Arnoldi method (SciPy's
//! `scipy.sparse.linalg.funm_multiply_krylov`).

use crate::krylov::{self, Engine};
use crate::linalg::{LinearOperator, Scalar};
use cusci_core::error::make;
use cusci_core::{c64, Array, Device, Error, Result};

/// Options of [`funm_multiply_krylov`] (SciPy's keyword arguments).
#[derive(Clone, Copy, Debug)]
pub struct FunmOptions {
    /// The scale `t` of `f(tA) b` (default 1).
    pub t: f64,
    /// Absolute tolerance of the restart test (default 0).
    pub atol: f64,
    /// Relative tolerance of the restart test (default 1e-6).
    pub rtol: f64,
    /// Arnoldi steps per restart cycle (default `min(20, n)`).
    pub restart_every_m: Option<usize>,
    /// Restart cycles after the first (default 20).
    pub max_restarts: usize,
}

impl Default for FunmOptions {
    fn default() -> Self {
        FunmOptions {
            t: 1.0,
            atol: 0.0,
            rtol: 1e-6,
            restart_every_m: None,
            max_restarts: 20,
        }
    }
}

/// `f(tA) b` for a square operator `A` and a matrix function `f` (SciPy's
/// `funm_multiply_krylov(f, A, b, t=, atol=, rtol=, restart_every_m=, max_restarts=)` with
/// `assume_a='general'`): the restarted Arnoldi method of Eiermann and Ernst. Each cycle runs
/// `m` Arnoldi steps (two modified Gram–Schmidt passes) on the operator's device; the
/// Hessenberg matrices of all cycles so far form a block-bidiagonal matrix `H` (each block's
/// coupling is the previous cycle's last subdiagonal entry), `f(tH)` is evaluated on the host by
/// the caller's `f` (a dense K x K `c64` array on the CPU in, the same out: e.g.
/// `cusci_linalg::expm`), and the cycle's update `‖b‖ V f(tH)[last block, 0]` is added to the
/// result on the device. It stops when the update's norm is at most `atol + rtol ‖x‖`, or at an
/// invariant subspace (exact). `f` sees matrices of size up to `(max_restarts + 1) · m`.
/// SciPy's `assume_a='hermitian'` (a Lanczos recurrence) gives the same values: this function
/// always orthogonalises against the whole cycle.
///
/// ```
/// use cusci_sparse::{diags, Array, Device};
/// use cusci_sparse::linalg::{funm_multiply_krylov, FunmOptions};
/// let dev = Device::Cpu;
/// let a = diags::<f64>(&[&[-1.0, -2.0, -3.0]], &[0], None, &dev)?;
/// let b = Array::from_vec(vec![1.0, 1.0, 1.0], &[3], &dev)?;
/// let expm = |h: &Array<cusci_core::c64>| cusci_linalg::expm(h);
/// let y = funm_multiply_krylov(&expm, &a, &b, &FunmOptions::default())?;
/// let y = y.to_vec()?;
/// assert!((y[0] - (-1.0f64).exp()).abs() < 1e-12 && (y[2] - (-3.0f64).exp()).abs() < 1e-12);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square operator, a `b` that is not 1-D of length n, or an `f`
/// result of the wrong shape; `InvalidArgument` for a negative or NaN tolerance, a non-finite
/// `t`, `restart_every_m = 0`, or, for a real type, an `f` whose values on the real Hessenberg
/// matrix are not real (use a complex type); `NoConvergence` when the update is still above the
/// tolerance after `max_restarts` restarts (SciPy returns the last iterate); `f`'s and the
/// operator's errors.
pub fn funm_multiply_krylov<T: Scalar>(
    f: &dyn Fn(&Array<c64>) -> Result<Array<c64>>,
    a: &dyn LinearOperator<T>,
    b: &Array<T>,
    opts: &FunmOptions,
) -> Result<Array<T>> {
    let op = "funm_multiply_krylov";
    let (m0, n) = a.shape();
    if m0 != n {
        return Err(make::shape(
            op,
            format!("expected a square operator, got ({m0}, {n})"),
        ));
    }
    if b.shape() != [n] {
        return Err(make::shape(
            op,
            format!("b of shape {:?} for n = {n}", b.shape()),
        ));
    }
    if !(opts.atol >= 0.0 && opts.rtol >= 0.0) {
        return Err(make::arg(op, "atol and rtol must be non-negative"));
    }
    if !opts.t.is_finite() {
        return Err(make::arg(op, "t must be finite"));
    }
    let m = opts.restart_every_m.unwrap_or(20.min(n));
    if m == 0 && n > 0 {
        return Err(make::arg(op, "restart_every_m must be positive"));
    }
    let dev = b.device().clone();
    if n == 0 {
        return Array::zeros(&[0], &dev);
    }
    let m = m.min(n);
    // vectors V_0..V_m, X; scalars: two passes of m + 1 dots, the norm, its inverse
    let x_ix = m + 1;
    let nn = 2 * m + 2;
    let inv = 2 * m + 3;
    let mut e = Engine::<T>::new(&dev, n, m + 2, 2 * m + 4)?;
    e.load(0, &b.contiguous()?)?;
    e.dot(0, 0, nn)?;
    let beta = e.scalars()?[nn].sqrt();
    if beta == 0.0 {
        return Array::zeros(&[n], &dev);
    }
    e.set_scalar(inv, krylov::re(1.0 / beta))?;
    e.scal(0, inv)?;
    let eps = krylov::eps::<T>();
    let mone = krylov::re::<T>(-1.0);
    let real = !T::DTYPE.is_complex();
    // the block-bidiagonal H of all cycles (row-major, size k x k), and the coupling entry
    let mut hall: Vec<c64> = Vec::new();
    let mut k = 0usize;
    let mut coupling = c64::new(0.0, 0.0);
    for restart in 0..=opts.max_restarts {
        // m Arnoldi steps from V_0; H is (m_eff + 1) x m_eff
        let mut h = vec![vec![c64::new(0.0, 0.0); m]; m + 1];
        let mut m_eff = m;
        let mut happy = false;
        for j in 0..m {
            e.apply(a, j, j + 1)?;
            for pass in 0..2 {
                let base = pass * (m + 1);
                for i in 0..=j {
                    e.dot(i, j + 1, base + i)?;
                    e.axpy(j + 1, i, Some(base + i), mone)?;
                }
            }
            e.dot(j + 1, j + 1, nn)?;
            let s = e.scalars_t()?;
            let mut col = 0.0f64;
            for (i, row) in h.iter_mut().enumerate().take(j + 1) {
                row[j] = s[i].to_c64() + s[m + 1 + i].to_c64();
                col += row[j].norm_sqr();
            }
            let bj = s[nn].to_c64().re.max(0.0).sqrt();
            h[j + 1][j] = c64::new(bj, 0.0);
            if bj <= eps * col.sqrt().max(f64::MIN_POSITIVE) * 10.0 || bj == 0.0 {
                m_eff = j + 1;
                happy = true;
                break;
            }
            e.set_scalar(inv, krylov::re(1.0 / bj))?;
            e.scal(j + 1, inv)?;
        }
        // grow H: the new cycle's block below-right, coupled by the last subdiagonal entry
        let k2 = k + m_eff;
        let mut grown = vec![c64::new(0.0, 0.0); k2 * k2];
        for r in 0..k {
            grown[r * k2..r * k2 + k].copy_from_slice(&hall[r * k..(r + 1) * k]);
        }
        if k > 0 {
            grown[k * k2 + k - 1] = coupling;
        }
        for r in 0..m_eff {
            for c in 0..m_eff {
                grown[(k + r) * k2 + k + c] = h[r][c];
            }
        }
        hall = grown;
        let prev = k;
        k = k2;
        let th: Vec<c64> = hall.iter().map(|v| v * opts.t).collect();
        let fh = f(&Array::from_vec(th, &[k, k], &Device::Cpu)?)?;
        if fh.shape() != [k, k] {
            return Err(make::shape(
                op,
                format!("f returned shape {:?} for a ({k}, {k}) matrix", fh.shape()),
            ));
        }
        let fh = fh.to_vec()?;
        let coef: Vec<c64> = (0..m_eff).map(|r| fh[(prev + r) * k] * beta).collect();
        if real
            && coef
                .iter()
                .any(|c| c.im.abs() > 1e3 * eps * c.norm().max(f64::MIN_POSITIVE))
        {
            return Err(make::arg(
                op,
                "f gives complex values for a real problem: use a complex type",
            ));
        }
        for (l, c) in coef.iter().enumerate() {
            e.axpy(x_ix, l, None, T::from_c64(*c))?;
        }
        let upd: f64 = coef.iter().map(|c| c.norm_sqr()).sum::<f64>().sqrt();
        if happy {
            break;
        }
        e.dot(x_ix, x_ix, nn)?;
        let xn = e.scalars()?[nn].sqrt();
        if upd <= opts.atol + opts.rtol * xn {
            break;
        }
        if restart == opts.max_restarts {
            return Err(Error::NoConvergence {
                op: op.into(),
                iterations: restart,
                residual: upd,
            });
        }
        coupling = h[m][m - 1];
        e.copy(0, m)?;
    }
    e.get(x_ix)
}
