//! Matrix equations of `scipy.linalg`: [`solve_sylvester`], [`solve_continuous_lyapunov`]
//! ([`solve_lyapunov`]), [`solve_discrete_lyapunov`], [`solve_continuous_are`],
//! [`solve_discrete_are`], and the Schur–Parlett [`funm`].
//!
//! GPU: **hybrid**. The Schur forms (cuSOLVER has no Schur routine) and the triangular
//! back substitutions run on the host (the crate's CPU kernels); the products, solves and
//! inverses around them are the crate's functions on the arrays' device (cuBLAS/cuSOLVER on a
//! GPU). The CPU path is the same composition on the CPU.

use crate::nonsym::{host_mats, to_array};
use crate::schur_cpu::{self as k, Mat};
use crate::util::{cat, check_finite, mat_dims, prod, same_device, square_dims};
use crate::{inv, kron, matmul, solve, Scalar};
use cusci_core::error::make;
use cusci_core::{c64, Array, Element, Result};
use rayon::prelude::*;

/// The conjugate transpose of the last two axes (a copy).
fn adjoint<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    let t = a.swapaxes(-1, -2)?;
    if T::DTYPE.is_complex() {
        t.conj()
    } else {
        t.copy()
    }
}

/// The complex Schur forms `(t, z)` of the `count` matrices `n x n` of `a` (host).
#[allow(clippy::type_complexity)]
fn complex_schurs<T: Scalar>(
    op: &str,
    a: &Array<T>,
    count: usize,
    n: usize,
) -> Result<Vec<(Mat<c64>, Mat<c64>)>> {
    let ms = host_mats::<T, c64>(a, count, n, n)?;
    let r: Vec<Result<(Mat<c64>, Mat<c64>)>> = ms
        .par_iter()
        .map(|m| {
            let (mut h, q) = k::hessenberg(m, true);
            let mut z = q.unwrap_or_else(|| k::identity(n));
            k::complex_schur(&mut h, &mut z).map_err(|_| crate::shared::no_conv(op, 1))?;
            Ok((h, z))
        })
        .collect();
    r.into_iter().collect()
}

/// `x` (complex) as `T`: the real part for real `T` (the imaginary part is rounding only).
fn back<T: Scalar>(x: Array<T::C>) -> Result<Array<T>> {
    if T::DTYPE.is_complex() {
        x.astype::<T>()
    } else {
        x.real()?.astype::<T>()
    }
}

/// Solves the Sylvester equation `a x + x b = q` (SciPy's `linalg.solve_sylvester`) by
/// Bartels–Stewart: complex Schur forms `a = u r uᴴ`, `b = v s vᴴ`, then `r y + y s = uᴴ q v`
/// by back substitution, `x = u y vᴴ`. `a` is `(..., M, M)`, `b` `(..., N, N)`, `q`
/// `(..., M, N)` with equal batch shapes. Real inputs give the real solution.
///
/// Deviation: where `a` and `-b` share an eigenvalue (no unique solution) this returns
/// `Singular` (LAPACK's `trsyl`, and SciPy, perturb the pivot and return a scaled solution).
///
/// Numerics: f64 / complex128 Schur forms and substitution (f32 and c32 computed in double and
/// rounded once); the products in the input's type on its device. Residual
/// `‖a x + x b - q‖ ≈ n ε (‖a‖ + ‖b‖) ‖x‖`.
///
/// GPU: **hybrid** (see the [module](self) doc).
///
/// # Errors
/// `InvalidArgument` for non-square `a`/`b` or non-finite input (SciPy's `check_finite`);
/// `ShapeMismatch` when `q` is not `(M, N)` or the batch shapes differ; `Singular`;
/// `NoConvergence` (Schur).
///
/// ```
/// use cusci_linalg::{solve_sylvester, Array, Device};
/// let a = Array::from_vec(vec![2.0f64, 0.0, 0.0, 3.0], &[2, 2], &Device::Cpu)?;
/// let b = Array::from_vec(vec![1.0f64], &[1, 1], &Device::Cpu)?;
/// let q = Array::from_vec(vec![3.0f64, 8.0], &[2, 1], &Device::Cpu)?;
/// let x = solve_sylvester(&a, &b, &q)?.to_vec()?;
/// assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 2.0).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn solve_sylvester<T: Scalar>(a: &Array<T>, b: &Array<T>, q: &Array<T>) -> Result<Array<T>> {
    sylvester("solve_sylvester", a, b, q)
}

fn sylvester<T: Scalar>(op: &str, a: &Array<T>, b: &Array<T>, q: &Array<T>) -> Result<Array<T>> {
    same_device(op, a, b)?;
    same_device(op, a, q)?;
    let (ba, m) = square_dims(op, a)?;
    let (bb, n) = square_dims(op, b)?;
    let (bq, qm, qn) = mat_dims(op, q)?;
    if qm != m || qn != n || ba != bb || ba != bq {
        return Err(make::shape(
            op,
            format!(
                "a {:?}, b {:?} and q {:?} do not fit a x + x b = q",
                a.shape(),
                b.shape(),
                q.shape()
            ),
        ));
    }
    check_finite(op, a)?;
    check_finite(op, b)?;
    check_finite(op, q)?;
    let count = prod(&ba);
    let dev = a.device();
    if count == 0 || m == 0 || n == 0 {
        return Array::zeros(q.shape(), dev);
    }
    let sa = complex_schurs(op, a, count, m)?;
    let sb = complex_schurs(op, b, count, n)?;
    let u: Vec<Mat<c64>> = sa.iter().map(|x| x.1.clone()).collect();
    let v: Vec<Mat<c64>> = sb.iter().map(|x| x.1.clone()).collect();
    let ud = to_array::<T::C, c64>(&u, &cat(&ba, &[m, m]), dev)?;
    let vd = to_array::<T::C, c64>(&v, &cat(&ba, &[n, n]), dev)?;
    let f = matmul(&matmul(&adjoint(&ud)?, &q.astype::<T::C>()?)?, &vd)?;
    let fs = host_mats::<T::C, c64>(&f, count, m, n)?;
    let ys: Vec<std::result::Result<Mat<c64>, ()>> = (0..count)
        .into_par_iter()
        .map(|i| k::trsyl(&sa[i].0, &sb[i].0, &fs[i]))
        .collect();
    let mut yv = Vec::with_capacity(count);
    for (i, y) in ys.into_iter().enumerate() {
        yv.push(y.map_err(|_| crate::shared::singular(op, i))?);
    }
    let yd = to_array::<T::C, c64>(&yv, &cat(&ba, &[m, n]), dev)?;
    let x = matmul(&matmul(&ud, &yd)?, &adjoint(&vd)?)?;
    back::<T>(x)
}

/// Solves the continuous Lyapunov equation `a x + x aᴴ = q` (SciPy's
/// `linalg.solve_continuous_lyapunov`): [`solve_sylvester`]`(a, aᴴ, q)`, as SciPy.
///
/// GPU: **hybrid** (see the [module](self) doc).
///
/// # Errors
/// As [`solve_sylvester`] (`q` must be `(..., N, N)`).
///
/// ```
/// use cusci_linalg::{solve_continuous_lyapunov, Array, Device};
/// let a = Array::from_vec(vec![-1.0f64, 0.0, 0.0, -2.0], &[2, 2], &Device::Cpu)?;
/// let q = Array::from_vec(vec![-2.0f64, 0.0, 0.0, -4.0], &[2, 2], &Device::Cpu)?;
/// let x = solve_continuous_lyapunov(&a, &q)?.to_vec()?;
/// assert!((x[0] - 1.0).abs() < 1e-12 && (x[3] - 1.0).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn solve_continuous_lyapunov<T: Scalar>(a: &Array<T>, q: &Array<T>) -> Result<Array<T>> {
    let op = "solve_continuous_lyapunov";
    square_dims(op, a)?;
    sylvester(op, a, &adjoint(a)?, q)
}

/// SciPy's `linalg.solve_lyapunov`: the older name of [`solve_continuous_lyapunov`].
///
/// # Errors
/// As [`solve_continuous_lyapunov`].
///
/// ```
/// use cusci_linalg::{solve_lyapunov, Array, Device};
/// let a = Array::from_vec(vec![-0.5f64], &[1, 1], &Device::Cpu)?;
/// let q = Array::from_vec(vec![-1.0f64], &[1, 1], &Device::Cpu)?;
/// assert!((solve_lyapunov(&a, &q)?.to_vec()?[0] - 1.0).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn solve_lyapunov<T: Scalar>(a: &Array<T>, q: &Array<T>) -> Result<Array<T>> {
    solve_continuous_lyapunov(a, q)
}

/// The method of [`solve_discrete_lyapunov`] (SciPy's `method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DiscreteLyapunovMethod {
    /// SciPy's `None`: `Direct` below order 10, else `Bilinear`.
    #[default]
    Auto,
    /// The `N² x N²` system `(I - a ⊗ conj(a)) vec(x) = vec(q)` (cost `O(N⁶)`).
    Direct,
    /// The bilinear transformation to a continuous Lyapunov equation.
    Bilinear,
}

/// Solves the discrete Lyapunov (Stein) equation `a x aᴴ - x + q = 0` (SciPy's
/// `linalg.solve_discrete_lyapunov(a, q, method)`), by SciPy's two methods: `Direct` (one dense
/// solve of the Kronecker system) and `Bilinear` (`b = (aᴴ - I)(aᴴ + I)⁻¹`,
/// `c = 2 (a + I)⁻¹ q (aᴴ + I)⁻¹`, then [`solve_continuous_lyapunov`]`(bᴴ, -c)`). Stacks
/// `(..., N, N)` for `Bilinear`; `Direct` takes one matrix.
///
/// GPU: `Direct` is composed of the crate's device functions; `Bilinear` is **hybrid** (its
/// Lyapunov solve, see the [module](self) doc).
///
/// # Errors
/// `InvalidArgument` for non-square or non-finite input, or a stack with `Direct`;
/// `ShapeMismatch` for a `q` of another shape; `Singular` (an eigenvalue of `a` on the unit
/// circle pairs with another: no unique solution; or `-1` an eigenvalue for `Bilinear`).
///
/// ```
/// use cusci_linalg::{solve_discrete_lyapunov, Array, Device, DiscreteLyapunovMethod};
/// let a = Array::from_vec(vec![0.5f64], &[1, 1], &Device::Cpu)?;
/// let q = Array::from_vec(vec![0.75f64], &[1, 1], &Device::Cpu)?;
/// let x = solve_discrete_lyapunov(&a, &q, DiscreteLyapunovMethod::Auto)?.to_vec()?;
/// assert!((x[0] - 1.0).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn solve_discrete_lyapunov<T: Scalar>(
    a: &Array<T>,
    q: &Array<T>,
    method: DiscreteLyapunovMethod,
) -> Result<Array<T>> {
    let op = "solve_discrete_lyapunov";
    same_device(op, a, q)?;
    let (ba, n) = square_dims(op, a)?;
    if q.shape() != a.shape() {
        return Err(make::shape(
            op,
            format!("a {:?} and q {:?} differ", a.shape(), q.shape()),
        ));
    }
    check_finite(op, a)?;
    check_finite(op, q)?;
    let dev = a.device();
    if prod(&ba) == 0 || n == 0 {
        return Array::zeros(q.shape(), dev);
    }
    let method = match method {
        DiscreteLyapunovMethod::Auto if n < 10 => DiscreteLyapunovMethod::Direct,
        DiscreteLyapunovMethod::Auto => DiscreteLyapunovMethod::Bilinear,
        m => m,
    };
    let eye = crate::util::eye::<T>(n, dev)?;
    match method {
        DiscreteLyapunovMethod::Direct => {
            if !ba.is_empty() {
                return Err(make::arg(
                    op,
                    "method Direct takes one matrix (use Bilinear for a stack)",
                ));
            }
            let ac = if T::DTYPE.is_complex() {
                a.conj()?
            } else {
                a.clone()
            };
            let lhs = crate::util::eye::<T>(n * n, dev)?.sub(&kron(a, &ac)?)?;
            let x = solve(&lhs, &q.reshape(&[(n * n) as isize])?)
                .map_err(|_| crate::shared::singular(op, 0))?;
            x.reshape(&[n as isize, n as isize])
        }
        _ => {
            let ah = adjoint(a)?;
            let ahi_inv = inv(&ah.add(&eye)?).map_err(|_| crate::shared::singular(op, 0))?;
            let b = matmul(&ah.sub(&eye)?, &ahi_inv)?;
            let ai = inv(&a.add(&eye)?).map_err(|_| crate::shared::singular(op, 0))?;
            let two = T::from_c64(c64::new(2.0, 0.0));
            let c = matmul(&matmul(&ai, q)?, &ahi_inv)?.mul_scalar(two)?;
            let minus = T::from_c64(c64::new(-1.0, 0.0));
            solve_continuous_lyapunov(&adjoint(&b)?, &c.mul_scalar(minus)?)
        }
    }
}

/// The optional arguments of [`solve_continuous_are`] and [`solve_discrete_are`] (SciPy's `e`,
/// `s`).
#[derive(Debug, Clone, Default)]
pub struct AreOptions<T: Scalar> {
    /// The descriptor matrix `e` (`N x N`, nonsingular); `None`: the identity.
    pub e: Option<Array<T>>,
    /// The cross term `s` (`N x M`); `None`: zero.
    pub s: Option<Array<T>>,
}

struct Are<T: Scalar> {
    a: Array<T>,
    b: Array<T>,
    q: Array<T>,
    r: Array<T>,
    n: usize,
    m: usize,
}

fn are_check<T: Scalar>(
    op: &str,
    a: &Array<T>,
    b: &Array<T>,
    q: &Array<T>,
    r: &Array<T>,
    o: &AreOptions<T>,
) -> Result<Are<T>> {
    for x in [b, q, r] {
        same_device(op, a, x)?;
    }
    let two_d = |x: &Array<T>, name: &str| -> Result<()> {
        if x.ndim() != 2 {
            return Err(make::arg(op, format!("{name} must be 2-dimensional")));
        }
        Ok(())
    };
    for (x, name) in [(a, "a"), (b, "b"), (q, "q"), (r, "r")] {
        two_d(x, name)?;
    }
    let (_, n) = square_dims(op, a)?;
    let (_, mq) = square_dims(op, q)?;
    let (_, m) = square_dims(op, r)?;
    if b.shape() != [n, m] || mq != n {
        return Err(make::shape(
            op,
            format!(
                "incompatible shapes: a {:?}, b {:?}, q {:?}, r {:?}",
                a.shape(),
                b.shape(),
                q.shape(),
                r.shape()
            ),
        ));
    }
    for x in [a, b, q, r] {
        check_finite(op, x)?;
    }
    if let Some(e) = &o.e {
        same_device(op, a, e)?;
        two_d(e, "e")?;
        if e.shape() != [n, n] {
            return Err(make::shape(op, format!("e {:?} is not {n}x{n}", e.shape())));
        }
        check_finite(op, e)?;
    }
    if let Some(s) = &o.s {
        same_device(op, a, s)?;
        two_d(s, "s")?;
        if s.shape() != [n, m] {
            return Err(make::shape(op, format!("s {:?} is not {n}x{m}", s.shape())));
        }
        check_finite(op, s)?;
    }
    Ok(Are {
        a: a.clone(),
        b: b.clone(),
        q: q.clone(),
        r: r.clone(),
        n,
        m,
    })
}

/// `x = u21 u11⁻¹` from the first `n` Schur vectors of the `2n x 2n` `z` (on `dev`), made
/// Hermitian.
fn from_subspace<T: Scalar>(
    op: &str,
    z: &Mat<c64>,
    n: usize,
    dev: &cusci_core::Device,
) -> Result<Array<T>> {
    let mut u11 = Mat::<c64>::zeros(n, n);
    let mut u21 = Mat::<c64>::zeros(n, n);
    for i in 0..n {
        for j in 0..n {
            u11.set(i, j, z.at(i, j));
            u21.set(i, j, z.at(n + i, j));
        }
    }
    let u11 = to_array::<T, c64>(&[u11], &[n, n], dev)?;
    let u21 = to_array::<T, c64>(&[u21], &[n, n], dev)?;
    // x u11 = u21  <=>  u11ᵀ xᵀ = u21ᵀ
    let xt = solve(&u11.swapaxes(-1, -2)?, &u21.swapaxes(-1, -2)?)
        .map_err(|_| make::arg(op, "Failed to find a finite solution."))?;
    let x = xt.swapaxes(-1, -2)?;
    let half = T::from_c64(c64::new(0.5, 0.0));
    let x = x.add(&adjoint(&x)?)?.mul_scalar(half)?;
    let ok = x
        .to_vec()?
        .iter()
        .all(|v| v.to_c64().re.is_finite() && v.to_c64().im.is_finite());
    if !ok {
        return Err(make::arg(op, "Failed to find a finite solution."));
    }
    Ok(x)
}

/// Schur form of the host matrix `h` (`2n x 2n`) with `select` first; errors unless exactly
/// `n` are selected.
fn stable_schur<T: Scalar>(
    op: &str,
    h: Mat<c64>,
    n: usize,
    select: &dyn Fn(c64) -> bool,
) -> Result<Mat<c64>> {
    let nn = h.r;
    let fail = || {
        make::arg(
            op,
            "Failed to find a finite solution (no stable invariant subspace of dimension N).",
        )
    };
    if T::DTYPE.is_complex() {
        let (mut t, q) = k::hessenberg(&h, true);
        let mut z = q.unwrap_or_else(|| k::identity(nn));
        k::complex_schur(&mut t, &mut z).map_err(|_| crate::shared::no_conv(op, 1))?;
        if k::reorder_complex(&mut t, &mut z, select) != n {
            return Err(fail());
        }
        Ok(z)
    } else {
        let hr = Mat::from(nn, nn, h.d.iter().map(|x| x.re).collect::<Vec<f64>>());
        let (mut t, q) = k::hessenberg(&hr, true);
        let mut z = q.unwrap_or_else(|| k::identity(nn));
        k::real_schur(&mut t, &mut z).map_err(|_| crate::shared::no_conv(op, 1))?;
        if k::reorder_real(&mut t, &mut z, select).map_err(|_| fail())? != n {
            return Err(fail());
        }
        Ok(Mat::from(
            nn,
            nn,
            z.d.iter().map(|&x| c64::new(x, 0.0)).collect(),
        ))
    }
}

/// Assembles the `2n x 2n` block matrix `[[p, q], [r, s]]` on the host.
fn blocks4<T: Scalar>(
    p: &Array<T>,
    q: &Array<T>,
    r: &Array<T>,
    s: &Array<T>,
    n: usize,
) -> Result<Mat<c64>> {
    let mut h = Mat::<c64>::zeros(2 * n, 2 * n);
    for (x, (i0, j0)) in [(p, (0, 0)), (q, (0, n)), (r, (n, 0)), (s, (n, n))] {
        let v = x.to_vec()?;
        for i in 0..n {
            for j in 0..n {
                h.set(i0 + i, j0 + j, v[i * n + j].to_c64());
            }
        }
    }
    Ok(h)
}

/// Solves the continuous algebraic Riccati equation (SciPy's `linalg.solve_continuous_are(a,
/// b, q, r, e=None, s=None)`):
/// `eᴴ x a + aᴴ x e - (eᴴ x b + s) r⁻¹ (bᴴ x e + sᴴ) + q = 0`, the stabilising solution.
///
/// Method: with `ā = e⁻¹ a`, `b̄ = e⁻¹ b`, `y = eᴴ x e` solves the standard equation; the
/// Hamiltonian `[[ā - b̄ r⁻¹ sᴴ, -b̄ r⁻¹ b̄ᴴ], [-(q - s r⁻¹ sᴴ), -(ā - b̄ r⁻¹ sᴴ)ᴴ]]` is brought
/// to Schur form with its left-half-plane eigenvalues first, `y = u₂₁ u₁₁⁻¹`, symmetrised, and
/// `x = e⁻ᴴ y e⁻¹`. Deviations from SciPy: no balancing (SciPy's `balanced=True` default
/// rescales the pencil; the solution is the same up to rounding), and `e` is inverted (SciPy
/// works on the pencil): an ill-conditioned `e` loses accuracy here.
///
/// GPU: **hybrid** (the Schur form on the host; the products and solves on the device).
///
/// # Errors
/// `InvalidArgument` for inputs that are not 2-D, not square (`a`, `q`, `r`, `e`) or not
/// finite, and when no finite stabilising solution exists (SciPy's "Failed to find a finite
/// solution"); `ShapeMismatch` for incompatible shapes; `Singular` for a singular `r` or `e`.
///
/// ```
/// use cusci_linalg::{solve_continuous_are, Array, AreOptions, Device};
/// let one = |v: f64| Array::from_vec(vec![v], &[1, 1], &Device::Cpu);
/// // x² = 1 with a = 0, b = q = r = 1: the stabilising root is 1
/// let x = solve_continuous_are(&one(0.0)?, &one(1.0)?, &one(1.0)?, &one(1.0)?, &AreOptions::default())?;
/// assert!((x.to_vec()?[0] - 1.0).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn solve_continuous_are<T: Scalar>(
    a: &Array<T>,
    b: &Array<T>,
    q: &Array<T>,
    r: &Array<T>,
    opts: &AreOptions<T>,
) -> Result<Array<T>> {
    let op = "solve_continuous_are";
    let p = are_check(op, a, b, q, r, opts)?;
    let (n, m) = (p.n, p.m);
    let dev = a.device();
    if n == 0 {
        return Array::zeros(&[0, 0], dev);
    }
    let sing = |_| crate::shared::singular(op, 0);
    let (abar, bbar) = match &opts.e {
        Some(e) => (solve(e, &p.a).map_err(sing)?, solve(e, &p.b).map_err(sing)?),
        None => (p.a.clone(), p.b.clone()),
    };
    // r⁻¹ bᴴ and r⁻¹ sᴴ
    let rib = if m == 0 {
        Array::zeros(&[0, n], dev)?
    } else {
        solve(&p.r, &adjoint(&bbar)?).map_err(sing)?
    };
    let g = matmul(&bbar, &rib)?;
    let (at, qt) = match &opts.s {
        Some(s) if m > 0 => {
            let ris = solve(&p.r, &adjoint(s)?).map_err(sing)?;
            (
                abar.sub(&matmul(&bbar, &ris)?)?,
                p.q.sub(&matmul(s, &ris)?)?,
            )
        }
        _ => (abar, p.q.clone()),
    };
    let minus = T::from_c64(c64::new(-1.0, 0.0));
    let h = blocks4(
        &at,
        &g.mul_scalar(minus)?,
        &qt.mul_scalar(minus)?,
        &adjoint(&at)?.mul_scalar(minus)?,
        n,
    )?;
    let z = stable_schur::<T>(op, h, n, &|w: c64| w.re < 0.0)?;
    let y = from_subspace::<T>(op, &z, n, dev)?;
    match &opts.e {
        None => Ok(y),
        Some(e) => {
            // x = e⁻ᴴ y e⁻¹
            let eh = adjoint(e)?;
            let z1 = solve(&eh, &y).map_err(sing)?;
            let x = adjoint(&solve(&eh, &adjoint(&z1)?).map_err(sing)?)?;
            let half = T::from_c64(c64::new(0.5, 0.0));
            x.add(&adjoint(&x)?)?.mul_scalar(half)
        }
    }
}

/// Solves the discrete algebraic Riccati equation (SciPy's `linalg.solve_discrete_are(a, b,
/// q, r, e=None, s=None)`):
/// `aᴴ x a - eᴴ x e - (aᴴ x b + s)(r + bᴴ x b)⁻¹(bᴴ x a + sᴴ) + q = 0`, the stabilising
/// solution.
///
/// Method: with `ā = a e⁻¹`, `s̄ = e⁻ᴴ s`, `q̄ = e⁻ᴴ q e⁻¹` the equation is standard in `x`;
/// with `ã = ā - b r⁻¹ s̄ᴴ`, `q̃ = q̄ - s̄ r⁻¹ s̄ᴴ`, `g = b r⁻¹ bᴴ`, the symplectic matrix
/// `[[ã + g ã⁻ᴴ q̃, -g ã⁻ᴴ], [-ã⁻ᴴ q̃, ã⁻ᴴ]]` is brought to Schur form with the eigenvalues
/// inside the unit circle first, `x = u₂₁ u₁₁⁻¹`, symmetrised (Laub's method). Deviations from
/// SciPy: `ã` must be invertible (SciPy's pencil form does not need it) and no balancing.
///
/// GPU: **hybrid** (the Schur form on the host; the products and solves on the device).
///
/// # Errors
/// As [`solve_continuous_are`]; `Singular` also for a singular `ã`.
///
/// ```
/// use cusci_linalg::{solve_discrete_are, Array, AreOptions, Device};
/// let one = |v: f64| Array::from_vec(vec![v], &[1, 1], &Device::Cpu);
/// // a = b = q = r = 1: x² - x - 1 = 0, the stabilising root is the golden ratio
/// let x = solve_discrete_are(&one(1.0)?, &one(1.0)?, &one(1.0)?, &one(1.0)?, &AreOptions::default())?;
/// assert!((x.to_vec()?[0] - 1.618033988749895).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn solve_discrete_are<T: Scalar>(
    a: &Array<T>,
    b: &Array<T>,
    q: &Array<T>,
    r: &Array<T>,
    opts: &AreOptions<T>,
) -> Result<Array<T>> {
    let op = "solve_discrete_are";
    let p = are_check(op, a, b, q, r, opts)?;
    let (n, m) = (p.n, p.m);
    let dev = a.device();
    if n == 0 {
        return Array::zeros(&[0, 0], dev);
    }
    let sing = |_| crate::shared::singular(op, 0);
    // ā = a e⁻¹ (x e = a <=> eᴴ xᴴ = aᴴ), s̄ = e⁻ᴴ s, q̄ = e⁻ᴴ q e⁻¹
    let (abar, sbar, qbar) = match &opts.e {
        Some(e) => {
            let eh = adjoint(e)?;
            let abar = adjoint(&solve(&eh, &adjoint(&p.a)?).map_err(sing)?)?;
            let sbar = match &opts.s {
                Some(s) => Some(solve(&eh, s).map_err(sing)?),
                None => None,
            };
            let q1 = solve(&eh, &p.q).map_err(sing)?; // e⁻ᴴ q
            let qbar = adjoint(&solve(&eh, &adjoint(&q1)?).map_err(sing)?)?;
            (abar, sbar, qbar)
        }
        None => (p.a.clone(), opts.s.clone(), p.q.clone()),
    };
    let rib = if m == 0 {
        Array::zeros(&[0, n], dev)?
    } else {
        solve(&p.r, &adjoint(&p.b)?).map_err(sing)?
    };
    let g = matmul(&p.b, &rib)?;
    let (at, qt) = match &sbar {
        Some(s) if m > 0 => {
            let ris = solve(&p.r, &adjoint(s)?).map_err(sing)?;
            (
                abar.sub(&matmul(&p.b, &ris)?)?,
                qbar.sub(&matmul(s, &ris)?)?,
            )
        }
        _ => (abar, qbar),
    };
    let ati = inv(&adjoint(&at)?).map_err(sing)?; // ã⁻ᴴ
    let minus = T::from_c64(c64::new(-1.0, 0.0));
    let z11 = at.add(&matmul(&matmul(&g, &ati)?, &qt)?)?;
    let z12 = matmul(&g, &ati)?.mul_scalar(minus)?;
    let z21 = matmul(&ati, &qt)?.mul_scalar(minus)?;
    let h = blocks4(&z11, &z12, &z21, &ati, n)?;
    let z = stable_schur::<T>(op, h, n, &|w: c64| w.norm() < 1.0)?;
    from_subspace::<T>(op, &z, n, dev)
}

/// A matrix function by the Schur–Parlett recurrence (SciPy's `linalg.funm(A, func,
/// disp=False)`): `f(a) = z F zᴴ` with `a = z t zᴴ` the complex Schur form, `F`'s diagonal
/// `func(t_ii)` and its upper triangle from Parlett's recurrence (Golub and Van Loan, Algorithm
/// 11.1.1, as SciPy). `func` maps a complex scalar to a complex scalar. Returns `(f(a), err)`:
/// the result is complex ([`Scalar::C`]; for a real `a` take its real part where `f` is real
/// on the spectrum, as SciPy returns it real when the imaginary part is at rounding level), and
/// `err` is SciPy's error estimate `min(1, max(ε, ε / minden · ‖triu(t, 1)‖₁))` (`minden` the
/// smallest distance between eigenvalues met, `ε` the type's), `∞` when the result is not
/// finite. Stacks give one `err` per matrix.
///
/// Like SciPy's, the recurrence divides by differences of eigenvalues: close or repeated
/// eigenvalues make it inaccurate (the error estimate then tends to 1).
///
/// GPU: **hybrid** (the Schur form and the recurrence on the host; `z F zᴴ` on the device).
///
/// # Errors
/// `InvalidArgument` for non-square or non-finite input; `NoConvergence` (Schur).
///
/// ```
/// use cusci_linalg::{funm, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 2.0, 0.0, 3.0], &[2, 2], &Device::Cpu)?;
/// let (f, err) = funm(&a, |z| z * z)?; // a²
/// let f = f.to_vec()?;
/// assert!((f[1].re - 8.0).abs() < 1e-12 && err[0] < 1e-10);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
#[allow(clippy::type_complexity)]
pub fn funm<T: Scalar>(
    a: &Array<T>,
    func: impl Fn(c64) -> c64 + Sync,
) -> Result<(Array<T::C>, Vec<f64>)> {
    let op = "funm";
    let (batch, n) = square_dims(op, a)?;
    check_finite(op, a)?;
    let count = prod(&batch);
    let dev = a.device();
    if count == 0 || n == 0 {
        return Ok((Array::zeros(a.shape(), dev)?, vec![0.0; count]));
    }
    let tol = T::eps();
    let sch = complex_schurs(op, a, count, n)?;
    let r: Vec<(Mat<c64>, f64)> = sch
        .par_iter()
        .map(|(t, _)| {
            let mut f = Mat::<c64>::zeros(n, n);
            for i in 0..n {
                f.set(i, i, func(t.at(i, i)));
            }
            let mut minden = t.at(0, 0).norm();
            for p in 1..n {
                for i in 1..=n - p {
                    let j = i + p;
                    let mut s = t.at(i - 1, j - 1) * (f.at(j - 1, j - 1) - f.at(i - 1, i - 1));
                    for kk in i..j - 1 {
                        s += t.at(i - 1, kk) * f.at(kk, j - 1) - f.at(i - 1, kk) * t.at(kk, j - 1);
                    }
                    let den = t.at(j - 1, j - 1) - t.at(i - 1, i - 1);
                    if den != c64::new(0.0, 0.0) {
                        s /= den;
                    }
                    f.set(i - 1, j - 1, s);
                    minden = minden.min(den.norm());
                }
            }
            let minden = if minden == 0.0 { tol } else { minden };
            // ‖triu(t, 1)‖₁: the largest column sum
            let norm1 = (0..n)
                .map(|j| (0..j).map(|i| t.at(i, j).norm()).sum::<f64>())
                .fold(0.0, f64::max);
            let err = 1f64.min(tol.max(tol / minden * norm1));
            (f, err)
        })
        .collect();
    let fs: Vec<Mat<c64>> = r.iter().map(|x| x.0.clone()).collect();
    let zs: Vec<Mat<c64>> = sch.iter().map(|x| x.1.clone()).collect();
    let fd = to_array::<T::C, c64>(&fs, a.shape(), dev)?;
    let zd = to_array::<T::C, c64>(&zs, a.shape(), dev)?;
    let out = matmul(&matmul(&zd, &fd)?, &adjoint(&zd)?)?;
    let vals = out.to_vec()?;
    let per = n * n;
    let errs = (0..count)
        .map(|b| {
            let finite = vals[b * per..(b + 1) * per]
                .iter()
                .all(|v| v.to_c64().re.is_finite() && v.to_c64().im.is_finite());
            if finite {
                r[b].1
            } else {
                f64::INFINITY
            }
        })
        .collect();
    Ok((out, errs))
}
