//! Matrix functions composed from [`expm`] (they run on both devices through it and the element-wise
//! operations): `cosm`, `sinm`, `tanm`, `coshm`, `sinhm`, `tanhm`, `expm_frechet`, `expm_cond`.
//!
//! Every function takes a `(..., N, N)` stack; the exponentials of a stack share one scaling (the
//! largest 1-norm of the stack, as [`expm`]), which changes nothing but the rounding.

use crate::misc::{PADE13, THETA13};
use crate::util::{cat, same_device, square_dims};
use crate::{expm, matmul, norm, solve, NormOrd, Scalar};
use cusci_core::error::make;
use cusci_core::{c64, Array, DType, RealFloat, Result};

fn is_complex<T: Scalar>() -> bool {
    matches!(T::DTYPE, DType::C32 | DType::C64)
}

fn scal<T: Scalar>(re: f64, im: f64) -> T {
    T::from_c64(c64::new(re, im))
}

/// `(cos A, sin A)` as SciPy forms them: `expm(iA)`'s real and imaginary parts for real `A`
/// (one exponential), `(expm(iA) ± expm(-iA)) / 2` for complex `A` (two).
fn cos_sin<T: Scalar>(a: &Array<T>) -> Result<(Array<T>, Array<T>)> {
    if is_complex::<T>() {
        let ep = expm(&a.mul_scalar(scal::<T>(0.0, 1.0))?)?;
        let em = expm(&a.mul_scalar(scal::<T>(0.0, -1.0))?)?;
        let c = ep.add(&em)?.mul_scalar(scal::<T>(0.5, 0.0))?;
        let s = ep.sub(&em)?.mul_scalar(scal::<T>(0.0, -0.5))?;
        Ok((c, s))
    } else {
        let ac = a.astype::<T::C>()?;
        let e = expm(&ac.mul_scalar(scal::<T::C>(0.0, 1.0))?)?;
        Ok((e.real()?.astype::<T>()?, e.imag()?.astype::<T>()?))
    }
}

/// `(cosh A, sinh A) = (expm(A) ± expm(-A)) / 2`.
fn cosh_sinh<T: Scalar>(a: &Array<T>) -> Result<(Array<T>, Array<T>)> {
    let ep = expm(a)?;
    let em = expm(&a.neg()?)?;
    let half = scal::<T>(0.5, 0.0);
    Ok((
        ep.add(&em)?.mul_scalar(half)?,
        ep.sub(&em)?.mul_scalar(half)?,
    ))
}

/// Matrix cosine (SciPy's `linalg.cosm`) of each matrix of a `(..., N, N)` stack, through
/// [`expm`]: `Re expm(iA)` for real `A` (in the complex type of the same precision),
/// `(expm(iA) + expm(-iA)) / 2` for complex `A`, as SciPy. Synchronises (the scaling of
/// [`expm`]).
///
/// # Errors
/// `InvalidArgument` when the last two axes are not square (or fewer than 2 dimensions).
///
/// # Numerics
/// The error is [`expm`]'s (Padé degree 13 with scaling and squaring): relative to `‖expm(iA)‖`,
/// so entries of `cos A` much smaller than that norm carry an absolute, not relative, error.
///
/// ```
/// use cusci_linalg::{cosm, Array, Device};
/// let a = Array::from_vec(vec![0.5f64, 0.0, 0.0, -1.0], &[2, 2], &Device::Cpu)?;
/// let c = cosm(&a)?.to_vec()?;
/// assert!((c[0] - 0.5f64.cos()).abs() < 1e-14 && (c[3] - 1f64.cos()).abs() < 1e-14);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn cosm<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    square_dims("cosm", a)?;
    Ok(cos_sin(a)?.0)
}

/// Matrix sine (SciPy's `linalg.sinm`): `Im expm(iA)` for real `A`,
/// `-i (expm(iA) - expm(-iA)) / 2` for complex `A`. Stacks, errors and numerics as [`cosm`].
///
/// ```
/// use cusci_linalg::{sinm, Array, Device};
/// let a = Array::from_vec(vec![0.0f64, 1.0, 0.0, 0.0], &[2, 2], &Device::Cpu)?;
/// // nilpotent: sin(A) = A
/// let s = sinm(&a)?.to_vec()?;
/// assert!((s[1] - 1.0).abs() < 1e-14 && s[0].abs() < 1e-14);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn sinm<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    square_dims("sinm", a)?;
    Ok(cos_sin(a)?.1)
}

/// Matrix tangent (SciPy's `linalg.tanm`): `solve(cosm(A), sinm(A))`, i.e. `cos(A)⁻¹ sin(A)`
/// (the two commute), from the same exponentials as [`cosm`] and [`sinm`]. Synchronises.
///
/// # Errors
/// As [`cosm`]; `Singular` when `cos A` is exactly singular, and `InvalidArgument` when it is
/// not finite (SciPy's `solve` raises as well).
///
/// ```
/// use cusci_linalg::{tanm, Array, Device};
/// let a = Array::from_vec(vec![0.25f64, 0.0, 0.0, 1.0], &[2, 2], &Device::Cpu)?;
/// let t = tanm(&a)?.to_vec()?;
/// assert!((t[0] - 0.25f64.tan()).abs() < 1e-14 && (t[3] - 1f64.tan()).abs() < 1e-13);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn tanm<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    square_dims("tanm", a)?;
    let (c, s) = cos_sin(a)?;
    solve(&c, &s)
}

/// Matrix hyperbolic cosine (SciPy's `linalg.coshm`): `(expm(A) + expm(-A)) / 2`. Stacks,
/// errors and numerics as [`cosm`].
///
/// ```
/// use cusci_linalg::{coshm, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 0.0, 0.0, 2.0], &[2, 2], &Device::Cpu)?;
/// let c = coshm(&a)?.to_vec()?;
/// assert!((c[0] - 1f64.cosh()).abs() < 1e-14 && (c[3] - 2f64.cosh()).abs() < 1e-13);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn coshm<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    square_dims("coshm", a)?;
    Ok(cosh_sinh(a)?.0)
}

/// Matrix hyperbolic sine (SciPy's `linalg.sinhm`): `(expm(A) - expm(-A)) / 2`. Stacks, errors
/// and numerics as [`cosm`] (for `‖A‖` small, `sinh A` is a difference of two matrices near the
/// identity: its error is relative to 1, as SciPy's).
///
/// ```
/// use cusci_linalg::{sinhm, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 0.0, 0.0, -1.0], &[2, 2], &Device::Cpu)?;
/// let s = sinhm(&a)?.to_vec()?;
/// assert!((s[0] - 1f64.sinh()).abs() < 1e-14 && (s[3] + 1f64.sinh()).abs() < 1e-14);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn sinhm<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    square_dims("sinhm", a)?;
    Ok(cosh_sinh(a)?.1)
}

/// Matrix hyperbolic tangent (SciPy's `linalg.tanhm`): `solve(coshm(A), sinhm(A))`. Errors as
/// [`tanm`].
///
/// ```
/// use cusci_linalg::{tanhm, Array, Device};
/// let a = Array::from_vec(vec![0.5f64, 0.0, 0.0, 3.0], &[2, 2], &Device::Cpu)?;
/// let t = tanhm(&a)?.to_vec()?;
/// assert!((t[0] - 0.5f64.tanh()).abs() < 1e-14 && (t[3] - 3f64.tanh()).abs() < 1e-13);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn tanhm<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    square_dims("tanhm", a)?;
    let (c, s) = cosh_sinh(a)?;
    solve(&c, &s)
}

/// The algorithm of [`expm_frechet`] (SciPy's `method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FrechetMethod {
    /// `'SPS'` (SciPy's default, `method=None`): Al-Mohy and Higham's scaling–Padé–squaring
    /// (2009, Algorithm 6.4) with the degree-13 approximant at every norm (SciPy picks degree 3,
    /// 5, 7 or 9 below `‖A‖₁ = 2.1`; degree 13 is at least as accurate there).
    #[default]
    Sps,
    /// `'blockEnlarge'`: the exponential of the `2N × 2N` block matrix `[[A, E], [0, A]]`, whose
    /// upper blocks are `expm(A)` and `L(A, E)` (8 times the work of `Sps`).
    BlockEnlarge,
}

/// The Fréchet derivative of the matrix exponential at `a` in the direction `e` (SciPy's
/// `linalg.expm_frechet`): returns `(expm(a), L(a, e))`, with
/// `expm(a + t e) = expm(a) + t L(a, e) + O(t²)`. SciPy's `compute_expm=False` is the second
/// element alone; `check_finite` is the crate's switch ([`without_finite_check`](crate::without_finite_check)).
/// Works on `(..., N, N)` stacks (`a` and `e` of the same shape; one scaling for the stack).
/// Synchronises (the 1-norm picks the scaling).
///
/// # Errors
/// `InvalidArgument` when `a` or `e` is not a stack of square matrices or contains NaN or
/// infinity; `ShapeMismatch` when their shapes differ (SciPy: "expected A and E to be the same
/// shape"); `DeviceMismatch`.
///
/// # Numerics
/// Backward stable as SciPy's (the same Padé approximant and the same squaring recurrence
/// `L ← R L + L R`, `R ← R²`); results agree with SciPy's to a few units of rounding relative to
/// `‖L‖`.
///
/// ```
/// use cusci_linalg::{expm_frechet, FrechetMethod, Array, Device};
/// // for commuting A and E, L(A, E) = expm(A) E
/// let a = Array::from_vec(vec![1.0f64, 0.0, 0.0, 2.0], &[2, 2], &Device::Cpu)?;
/// let e = Array::from_vec(vec![1.0f64, 0.0, 0.0, 0.0], &[2, 2], &Device::Cpu)?;
/// let (x, l) = expm_frechet(&a, &e, FrechetMethod::Sps)?;
/// let (x, l) = (x.to_vec()?, l.to_vec()?);
/// assert!((l[0] - 1f64.exp()).abs() < 1e-14 && l[3].abs() < 1e-14);
/// assert!((x[3] - 2f64.exp()).abs() < 1e-13);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn expm_frechet<T: Scalar>(
    a: &Array<T>,
    e: &Array<T>,
    method: FrechetMethod,
) -> Result<(Array<T>, Array<T>)> {
    let op = "expm_frechet";
    same_device(op, a, e)?;
    square_dims(op, a)?;
    square_dims(op, e)?;
    if a.shape() != e.shape() {
        return Err(make::shape(
            op,
            format!(
                "expected A and E to be the same shape, got {:?} and {:?}",
                a.shape(),
                e.shape()
            ),
        ));
    }
    crate::util::check_finite(op, a)?;
    crate::util::check_finite(op, e)?;
    if a.is_empty() {
        return Ok((a.copy()?, e.copy()?));
    }
    match method {
        FrechetMethod::Sps => frechet_sps(a, e),
        FrechetMethod::BlockEnlarge => frechet_block(a, e),
    }
}

fn frechet_sps<T: Scalar>(a: &Array<T>, e: &Array<T>) -> Result<(Array<T>, Array<T>)> {
    let n = a.shape()[a.ndim() - 1];
    let norm1 = a.abs()?.sum_axes(&[-2])?.max()?.to_f64();
    let s = if norm1 > THETA13 {
        (norm1 / THETA13).log2().ceil().max(0.0) as i32
    } else {
        0
    };
    let sc = |x: &Array<T>, v: f64| x.mul_scalar(scal::<T>(v, 0.0));
    // a1 b1 + a2 b2 + ...: the weighted sums of the algorithm
    let comb = |terms: &[(&Array<T>, f64)]| -> Result<Array<T>> {
        let mut acc = sc(terms[0].0, terms[0].1)?;
        for (x, v) in &terms[1..] {
            acc = acc.add(&sc(x, *v)?)?;
        }
        Ok(acc)
    };
    let f = 0.5f64.powi(s);
    let a = sc(a, f)?;
    let e = sc(e, f)?;
    let ident = crate::util::eye::<T>(n, a.device())?
        .broadcast_to(a.shape())?
        .copy()?;
    let b = &PADE13;
    let a2 = matmul(&a, &a)?;
    let m2 = matmul(&a, &e)?.add(&matmul(&e, &a)?)?;
    let a4 = matmul(&a2, &a2)?;
    let m4 = matmul(&a2, &m2)?.add(&matmul(&m2, &a2)?)?;
    let a6 = matmul(&a2, &a4)?;
    let m6 = matmul(&a4, &m2)?.add(&matmul(&m4, &a2)?)?;
    let w1 = comb(&[(&a6, b[13]), (&a4, b[11]), (&a2, b[9])])?;
    let w2 = comb(&[(&a6, b[7]), (&a4, b[5]), (&a2, b[3]), (&ident, b[1])])?;
    let z1 = comb(&[(&a6, b[12]), (&a4, b[10]), (&a2, b[8])])?;
    let z2 = comb(&[(&a6, b[6]), (&a4, b[4]), (&a2, b[2]), (&ident, b[0])])?;
    let w = matmul(&a6, &w1)?.add(&w2)?;
    let u = matmul(&a, &w)?;
    let v = matmul(&a6, &z1)?.add(&z2)?;
    let lw1 = comb(&[(&m6, b[13]), (&m4, b[11]), (&m2, b[9])])?;
    let lw2 = comb(&[(&m6, b[7]), (&m4, b[5]), (&m2, b[3])])?;
    let lz1 = comb(&[(&m6, b[12]), (&m4, b[10]), (&m2, b[8])])?;
    let lz2 = comb(&[(&m6, b[6]), (&m4, b[4]), (&m2, b[2])])?;
    let lw = matmul(&a6, &lw1)?.add(&matmul(&m6, &w1)?)?.add(&lw2)?;
    let lu = matmul(&a, &lw)?.add(&matmul(&e, &w)?)?;
    let lv = matmul(&a6, &lz1)?.add(&matmul(&m6, &z1)?)?.add(&lz2)?;
    let den = v.sub(&u)?;
    // the inputs were checked; the Padé denominator is not checked again (as SciPy)
    let (mut r, mut l) = crate::shared::without_finite_check(|| -> Result<_> {
        let r = solve(&den, &u.add(&v)?)?;
        let rhs = lu.add(&lv)?.add(&matmul(&lu.sub(&lv)?, &r)?)?;
        Ok((r.clone(), solve(&den, &rhs)?))
    })?;
    for _ in 0..s {
        l = matmul(&r, &l)?.add(&matmul(&l, &r)?)?;
        r = matmul(&r, &r)?;
    }
    Ok((r, l))
}

/// `[[A, E], [0, A]]` of each pair, `(..., 2N, 2N)`, by broadcasting against 2 x 2 selectors.
fn block_pair<T: Scalar>(a: &Array<T>, e: &Array<T>) -> Result<Array<T>> {
    let nd = a.ndim();
    let n = a.shape()[nd - 1];
    let batch = &a.shape()[..nd - 2];
    let spread = |x: &Array<T>| -> Result<Array<T>> {
        let s: Vec<isize> = batch
            .iter()
            .map(|&v| v as isize)
            .chain([1, n as isize, 1, n as isize])
            .collect();
        x.reshape(&s)
    };
    let sel = |v: [f64; 4]| -> Result<Array<T>> {
        Array::from_vec(
            v.iter().map(|&x| scal::<T>(x, 0.0)).collect(),
            &[2, 1, 2, 1],
            a.device(),
        )
    };
    let big = spread(a)?
        .mul(&sel([1.0, 0.0, 0.0, 1.0])?)?
        .add(&spread(e)?.mul(&sel([0.0, 1.0, 0.0, 0.0])?)?)?;
    let shape: Vec<isize> = batch
        .iter()
        .map(|&v| v as isize)
        .chain([2 * n as isize, 2 * n as isize])
        .collect();
    big.reshape(&shape)
}

fn frechet_block<T: Scalar>(a: &Array<T>, e: &Array<T>) -> Result<(Array<T>, Array<T>)> {
    let n = a.shape()[a.ndim() - 1] as isize;
    let big = expm(&block_pair(a, e)?)?;
    let top = big.slice_axis(-2, Some(0), Some(n), 1)?;
    let x = top.slice_axis(-1, Some(0), Some(n), 1)?.copy()?;
    let l = top.slice_axis(-1, Some(n), Some(2 * n), 1)?.copy()?;
    Ok((x, l))
}

/// Relative condition number of the matrix exponential in the Frobenius norm (SciPy's
/// `linalg.expm_cond`): `‖K‖₂ ‖A‖_F / ‖expm(A)‖_F`, where `K` is the `N² × N²` Kronecker form of
/// the Fréchet derivative ([`expm_frechet`] in the `N²` directions `E_ij`, as SciPy's
/// `expm_frechet_kronform`) and `‖K‖₂` its largest singular value. For a `(..., N, N)` stack,
/// an array of the batch's shape (0-d for one matrix), on `a`'s device; synchronises.
///
/// # Errors
/// `InvalidArgument` when not square or not finite.
///
/// # Numerics
/// The `N²` derivatives are one stacked [`expm_frechet`] (`N⁴` elements per matrix: `N = 64`
/// holds 16 M elements), then one SVD of `K`; the cost is `O(N⁵)` as SciPy's.
///
/// ```
/// use cusci_linalg::{expm_cond, Array, Device};
/// // a diagonal A: K is diagonal with entries (e^ai - e^aj)/(ai - aj) (e^ai on the diagonal)
/// let a = Array::from_vec(vec![1.0f64, 0.0, 0.0, 0.0], &[2, 2], &Device::Cpu)?;
/// let k = expm_cond(&a)?.item()?;
/// let e = 1f64.exp();
/// let want = e * 1.0 / (e * e + 1.0).sqrt();
/// assert!((k - want).abs() < 1e-13);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn expm_cond<T: Scalar>(a: &Array<T>) -> Result<Array<T::R>> {
    let op = "expm_cond";
    let (batch, n) = square_dims(op, a)?;
    crate::util::check_finite(op, a)?;
    if n == 0 {
        return Err(make::arg(op, "expm_cond of an empty matrix"));
    }
    let nn = n * n;
    let x = expm(a)?;
    // a stack of N² copies of each matrix against the unit directions E_ij
    let ab = a
        .expand_dims(-3)?
        .broadcast_to(&cat(&batch, &[nn, n, n]))?
        .copy()?;
    let units = crate::util::eye::<T>(nn, a.device())?
        .reshape(&[nn as isize, n as isize, n as isize])?
        .broadcast_to(&cat(&batch, &[nn, n, n]))?
        .copy()?;
    let (_, l) = frechet_sps(&ab, &units)?;
    let shape: Vec<isize> = batch
        .iter()
        .map(|&v| v as isize)
        .chain([nn as isize, nn as isize])
        .collect();
    let k = l.reshape(&shape)?;
    let k_norm = norm(&k, NormOrd::P(2.0))?;
    let a_norm = norm(a, NormOrd::Fro)?;
    let x_norm = norm(&x, NormOrd::Fro)?;
    k_norm.mul(&a_norm)?.div(&x_norm)
}

/// Iterations of [`signm`] and [`sqrtm`] before `NoConvergence`.
pub const MATFUNC_MAX_ITER: usize = 100;

/// The largest 1-norm of the matrices of a stack (a host value: synchronises).
fn max_norm1<T: Scalar>(x: &Array<T>) -> Result<f64> {
    Ok(x.abs()?.sum_axes(&[-2])?.max()?.to_f64())
}

/// `x` with each matrix multiplied by the matching element of `s` (the batch's shape).
fn scale_each<T: Scalar>(x: &Array<T>, s: &Array<T>) -> Result<Array<T>> {
    x.mul(&s.expand_dims(-1)?.expand_dims(-1)?)
}

/// `|det x|^(-1/p)` of each matrix, in `T` (the determinantal scaling of the Newton iterations).
fn det_scale<T: Scalar>(x: &Array<T>, p: f64) -> Result<Array<T>> {
    let (_, logabs) = crate::slogdet(x)?;
    logabs
        .mul_scalar(<T::R as RealFloat>::from_f64(-1.0 / p))?
        .exp()?
        .astype::<T>()
}

/// The iterations' stopping rule: converged at `tol`, or stalled at the rounding floor (the
/// quadratic phase has begun and the change no longer halves).
fn settled(err: f64, prev: f64, tol: f64) -> bool {
    err <= tol || (err < 1e-3 && err > 0.5 * prev)
}

/// Matrix sign function (SciPy's `linalg.signm`) of each matrix of a `(..., N, N)` stack: the
/// scaled Newton iteration `S ← (μS + (μS)⁻¹)/2`, `S₀ = A`, with determinantal scaling
/// `μ = |det S|^(-1/N)` until the iterates settle (Higham, *Functions of Matrices*, 5.3), on both
/// devices through [`inv`](crate::inv) and [`slogdet`](crate::slogdet). Reads one norm back per
/// iteration (synchronises); at most [`MATFUNC_MAX_ITER`] iterations.
///
/// # Errors
/// `InvalidArgument` when not square or not finite (as SciPy's, through its Schur form);
/// `Singular` when `A` (or an iterate) is exactly singular —
/// SciPy's `funm` route gives `sign(0) = 0` there instead; `NoConvergence` when the iteration does
/// not settle (eigenvalues on or within rounding of the imaginary axis, where the sign is not
/// defined; SciPy returns its best estimate and prints a warning).
///
/// # Numerics
/// The error is of order `ε κ(S)` (the conditioning of the sign function grows as eigenvalues
/// approach the imaginary axis); on the tests' well-separated spectra it agrees with SciPy's to
/// `1e-10` relative (f64).
///
/// ```
/// use cusci_linalg::{signm, Array, Device};
/// let a = Array::from_vec(vec![3.0f64, 1.0, 0.0, -2.0], &[2, 2], &Device::Cpu)?;
/// let s = signm(&a)?.to_vec()?;
/// // eigenvalues 3 and -2: sign(A) = [[1, 0.4], [0, -1]]
/// assert!((s[0] - 1.0).abs() < 1e-13 && (s[1] - 0.4).abs() < 1e-13 && (s[3] + 1.0).abs() < 1e-13);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn signm<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    let op = "signm";
    let (_, n) = square_dims(op, a)?;
    crate::util::check_finite(op, a)?;
    if a.is_empty() {
        return a.copy();
    }
    let tol = 4.0 * n as f64 * T::eps();
    let half = scal::<T>(0.5, 0.0);
    let mut s = a.copy()?;
    let mut scaling = true;
    let mut prev = f64::INFINITY;
    for _ in 0..MATFUNC_MAX_ITER {
        let si = crate::shared::without_finite_check(|| crate::inv(&s))?;
        let next = if scaling {
            let mu = det_scale(&s, n as f64)?;
            let mui = mu.rdiv_scalar(scal::<T>(1.0, 0.0))?;
            scale_each(&s, &mu)?
                .add(&scale_each(&si, &mui)?)?
                .mul_scalar(half)?
        } else {
            s.add(&si)?.mul_scalar(half)?
        };
        let err = max_norm1(&next.sub(&s)?)? / max_norm1(&next)?;
        s = next;
        if !err.is_finite() {
            prev = err;
            break;
        }
        if settled(err, prev, tol) {
            return Ok(s);
        }
        scaling = err > 1e-2;
        prev = err;
    }
    Err(cusci_core::Error::NoConvergence {
        op: op.into(),
        iterations: MATFUNC_MAX_ITER,
        residual: prev,
    })
}

/// Principal matrix square root (SciPy's `linalg.sqrtm`) of each matrix of a `(..., N, N)`
/// stack: the product form of the Denman–Beavers iteration with determinantal scaling
/// (`M ← (I + (μ²M + μ⁻²M⁻¹)/2)/2`, `Y ← μY(I + μ⁻²M⁻¹)/2`, `M₀ = Y₀ = A`,
/// `μ = |det M|^(-1/2N)`; Higham, *Functions of Matrices*, 6.3), on both devices through
/// [`inv`](crate::inv) and [`slogdet`](crate::slogdet). SciPy computes it from the Schur form
/// instead. Reads one norm back per iteration (synchronises); at most [`MATFUNC_MAX_ITER`]
/// iterations. SciPy's `disp` and `blocksize` have no counterpart (errors are typed).
///
/// # Errors
/// `InvalidArgument` when not square; `Singular` when `A` is exactly singular (SciPy's Schur
/// route returns a square root of some singular matrices); `NoConvergence` when the iteration
/// does not settle, which is the case for every matrix with an eigenvalue on the negative real
/// axis, in every type (a real matrix has no real principal square root then, and the iterates
/// of a real-valued complex matrix stay real-valued; SciPy's Schur route returns the complex
/// root). Eigenvalues near that axis slow the convergence and cost accuracy. `InvalidArgument`
/// for NaN or infinity in `A` (SciPy does not check: its result holds NaN).
///
/// # Numerics
/// Stable (the product form); the error is of order `ε κ(sqrt(A))`; on well-conditioned input
/// it agrees with SciPy's to `1e-10` relative (f64) in the tests.
///
/// ```
/// use cusci_linalg::{sqrtm, Array, Device};
/// let a = Array::from_vec(vec![4.0f64, 1.0, 0.0, 9.0], &[2, 2], &Device::Cpu)?;
/// let r = sqrtm(&a)?.to_vec()?;
/// // [[2, 0.2], [0, 3]]
/// assert!((r[0] - 2.0).abs() < 1e-13 && (r[1] - 0.2).abs() < 1e-13 && (r[3] - 3.0).abs() < 1e-13);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn sqrtm<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    let op = "sqrtm";
    let (_, n) = square_dims(op, a)?;
    crate::util::check_finite(op, a)?;
    if a.is_empty() {
        return a.copy();
    }
    let tol = 4.0 * n as f64 * T::eps();
    let half = scal::<T>(0.5, 0.0);
    let ident = crate::util::eye::<T>(n, a.device())?
        .broadcast_to(a.shape())?
        .copy()?;
    let mut m = a.copy()?;
    let mut y = a.copy()?;
    let mut scaling = true;
    let mut prev = f64::INFINITY;
    for _ in 0..MATFUNC_MAX_ITER {
        let mi = crate::shared::without_finite_check(|| crate::inv(&m))?;
        let (m_next, y_next) = if scaling {
            let mu = det_scale(&m, 2.0 * n as f64)?;
            let mu2 = mu.mul(&mu)?;
            let mu2i = mu2.rdiv_scalar(scal::<T>(1.0, 0.0))?;
            let mis = scale_each(&mi, &mu2i)?;
            let m_next = scale_each(&m, &mu2)?
                .add(&mis)?
                .mul_scalar(half)?
                .add(&ident)?
                .mul_scalar(half)?;
            let y_next = scale_each(&matmul(&y, &ident.add(&mis)?)?, &mu)?.mul_scalar(half)?;
            (m_next, y_next)
        } else {
            let m_next = m
                .add(&mi)?
                .mul_scalar(half)?
                .add(&ident)?
                .mul_scalar(half)?;
            (m_next, matmul(&y, &ident.add(&mi)?)?.mul_scalar(half)?)
        };
        m = m_next;
        y = y_next;
        let err = max_norm1(&m.sub(&ident)?)?;
        if !err.is_finite() {
            prev = err;
            break;
        }
        if settled(err, prev, tol) {
            return Ok(y);
        }
        scaling = err > 1e-2;
        prev = err;
    }
    Err(cusci_core::Error::NoConvergence {
        op: op.into(),
        iterations: MATFUNC_MAX_ITER,
        residual: prev,
    })
}

/// Gauss–Legendre nodes and weights on `[0, 1]` (`m` points), by Newton's iteration on the
/// Legendre polynomial from Chebyshev starting points.
fn gauss_legendre01(m: usize) -> Vec<(f64, f64)> {
    (0..m)
        .map(|i| {
            let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (m as f64 + 0.5)).cos();
            let mut dp = 1.0;
            for _ in 0..100 {
                // P_m(x) and P_m'(x) by the three-term recurrence
                let (mut p0, mut p1) = (1.0, x);
                for k in 2..=m {
                    let p2 = ((2 * k - 1) as f64 * x * p1 - (k - 1) as f64 * p0) / k as f64;
                    p0 = p1;
                    p1 = p2;
                }
                dp = m as f64 * (x * p1 - p0) / (x * x - 1.0);
                let dx = p1 / dp;
                x -= dx;
                if dx.abs() < 1e-16 {
                    break;
                }
            }
            let w = 2.0 / ((1.0 - x * x) * dp * dp);
            ((1.0 + x) / 2.0, w / 2.0)
        })
        .collect()
}

/// Square roots taken by [`logm`] before `NoConvergence`.
const LOGM_MAX_ROOTS: usize = 64;

/// Principal matrix logarithm (SciPy's `linalg.logm`) of each matrix of a `(..., N, N)` stack,
/// by inverse scaling and squaring without a Schur form: `k` square roots ([`sqrtm`]) until
/// `‖A^(1/2^k) − I‖₁ ≤ 1/4`, then the degree-8 Padé approximant of `log(I + R)` in its
/// partial-fraction form (8-point Gauss–Legendre quadrature of `∫₀¹ R (I + tR)⁻¹ dt`, one
/// [`solve`] per node), times `2^k` (Higham, *Functions of Matrices*, 11.5; SciPy runs the same
/// idea on the Schur form). Both devices; reads norms back (synchronises).
///
/// # Errors
/// As [`sqrtm`]: `NoConvergence` for eigenvalues on the negative real axis (SciPy returns a
/// complex logarithm of such a real matrix), `Singular` for a singular `A` (SciPy: `-inf` entries
/// and a warning), `InvalidArgument` when not square or not finite.
///
/// # Numerics
/// The Padé error at `‖R‖₁ ≤ 1/4` is below the double-precision unit roundoff; each square root
/// adds its own rounding (order `ε κ`): on the tests' well-conditioned matrices (up to 5 roots)
/// the result agrees with SciPy's to `1e-10` relative (f64); it degrades with the number of roots.
///
/// ```
/// use cusci_linalg::{logm, Array, Device};
/// let a = Array::from_vec(vec![1f64.exp(), 0.0, 0.0, 2f64.exp()], &[2, 2], &Device::Cpu)?;
/// let l = logm(&a)?.to_vec()?;
/// assert!((l[0] - 1.0).abs() < 1e-13 && (l[3] - 2.0).abs() < 1e-13 && l[1].abs() < 1e-13);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn logm<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    let op = "logm";
    let (_, n) = square_dims(op, a)?;
    crate::util::check_finite(op, a)?;
    if a.is_empty() {
        return a.copy();
    }
    let ident = crate::util::eye::<T>(n, a.device())?
        .broadcast_to(a.shape())?
        .copy()?;
    let mut x = a.copy()?;
    let mut k = 0usize;
    loop {
        let err = max_norm1(&x.sub(&ident)?)?;
        if err <= 0.25 {
            break;
        }
        if k == LOGM_MAX_ROOTS || !err.is_finite() {
            return Err(cusci_core::Error::NoConvergence {
                op: op.into(),
                iterations: k,
                residual: err,
            });
        }
        x = sqrtm(&x)?;
        k += 1;
    }
    let r = x.sub(&ident)?;
    let mut acc: Option<Array<T>> = None;
    for (t, w) in gauss_legendre01(8) {
        let den = ident.add(&r.mul_scalar(scal::<T>(t, 0.0))?)?;
        let term = solve(&den, &r)?.mul_scalar(scal::<T>(w, 0.0))?;
        acc = Some(match acc {
            None => term,
            Some(s) => s.add(&term)?,
        });
    }
    let acc = acc.ok_or_else(|| make::arg(op, "no quadrature nodes"))?;
    acc.mul_scalar(scal::<T>(2f64.powi(k as i32), 0.0))
}

/// `A` raised to the real power `t` (SciPy's `linalg.fractional_matrix_power(A, t)`) for each
/// matrix of a `(..., N, N)` stack: an integer `t` is [`matrix_power`](crate::matrix_power)
/// (as SciPy), otherwise `expm(t · logm(A))` ([`logm`], [`expm`]; SciPy uses the Schur–Padé
/// algorithm of Higham and Lin). Both devices; synchronises.
///
/// # Errors
/// As [`logm`] for a non-integer `t` (a real matrix with negative real eigenvalues has no real
/// principal power: `NoConvergence`, where SciPy returns a complex result); `Singular` for a
/// negative integer `t` and a singular `A`; `InvalidArgument` when not square or `t` is not
/// finite.
///
/// # Numerics
/// The error of `expm(t logm(A))` is of order `ε |t| ‖log A‖ κ` relative: on the tests' well-conditioned
/// matrices it agrees with SciPy's to `1e-10` relative (f64); worse than the Schur–Padé algorithm
/// when `A` is ill conditioned.
///
/// ```
/// use cusci_linalg::{fractional_matrix_power, Array, Device};
/// let a = Array::from_vec(vec![4.0f64, 0.0, 0.0, 9.0], &[2, 2], &Device::Cpu)?;
/// let p = fractional_matrix_power(&a, 1.5)?.to_vec()?;
/// assert!((p[0] - 8.0).abs() < 1e-12 && (p[3] - 27.0).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn fractional_matrix_power<T: Scalar>(a: &Array<T>, t: f64) -> Result<Array<T>> {
    let op = "fractional_matrix_power";
    square_dims(op, a)?;
    if !t.is_finite() {
        return Err(make::arg(op, format!("the power must be finite, got {t}")));
    }
    if t == t.trunc() && t.abs() < i64::MAX as f64 {
        return crate::matrix_power(a, t as i64);
    }
    let l = logm(a)?;
    expm(&l.mul_scalar(scal::<T>(t, 0.0))?)
}
