//! Functions composed from the primitives (they run on both devices through them): `norm`,
//! `cond`, `matrix_rank`, `pinv`, `lstsq`, `kron`, `khatri_rao`, `matrix_power`, `expm`.

use crate::util::{mat_dims, square_dims};
use crate::{inv, matmul, solve, svd, Scalar, SvdOptions};
use cusci_core::error::make;
use cusci_core::{Array, RealFloat, Result};

/// The `ord` of [`norm`] (NumPy's): `None` in NumPy is [`NormOrd::Default`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum NormOrd {
    /// 2-norm of a vector, Frobenius norm of a matrix.
    #[default]
    Default,
    /// Frobenius (matrices only).
    Fro,
    /// Nuclear norm: the sum of the singular values (matrices only).
    Nuc,
    /// `inf`: max |x| (vectors), max row sum of |a| (matrices).
    Inf,
    /// `-inf`: min |x| (vectors), min row sum (matrices).
    NegInf,
    /// A number: `sum(|x|^p)^(1/p)` for vectors (0 counts non-zeros); for matrices 1, -1 (column
    /// sums), 2, -2 (largest, smallest singular value).
    P(f64),
}

fn real<T: Scalar>(v: f64) -> T::R {
    <T::R as RealFloat>::from_f64(v)
}

/// Vector or matrix norm (NumPy's `linalg.norm`): a 1-D array gets a vector norm, an array of 2
/// or more dimensions a matrix norm of each matrix of its last two axes (for a stack, an array of
/// the batch's shape). Singular-value norms (2, -2, nuc) go through [`svd`].
///
/// # Errors
/// `InvalidArgument` for an `ord` that does not apply (`Fro`/`Nuc` of a vector, matrix `P(3.0)`)
/// or a 0-d array.
///
/// ```
/// use cusci_linalg::{norm, NormOrd, Array, Device};
/// let x = Array::from_vec(vec![3.0f64, -4.0], &[2], &Device::Cpu)?;
/// assert_eq!(norm(&x, NormOrd::Default)?.item()?, 5.0);
/// assert_eq!(norm(&x, NormOrd::P(1.0))?.item()?, 7.0);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn norm<T: Scalar>(a: &Array<T>, ord: NormOrd) -> Result<Array<T::R>> {
    let op = "norm";
    match a.ndim() {
        0 => Err(make::arg(op, "0-d array")),
        1 => {
            let x = a.abs()?;
            if a.is_empty() {
                return Array::from_vec(vec![real::<T>(0.0)], &[], a.device());
            }
            match ord {
                NormOrd::Default | NormOrd::P(2.0) => a.abs2()?.sum_axes(&[-1])?.sqrt(),
                NormOrd::Inf => x.max_axes(&[-1]),
                NormOrd::NegInf => x.min_axes(&[-1]),
                NormOrd::P(0.0) => {
                    let nz = x.gt_scalar(real::<T>(0.0))?.astype::<T::R>()?;
                    nz.sum_axes(&[-1])
                }
                NormOrd::P(1.0) => x.sum_axes(&[-1]),
                NormOrd::P(p) => x
                    .powf(real::<T>(p))?
                    .sum_axes(&[-1])?
                    .powf(real::<T>(1.0 / p)),
                NormOrd::Fro | NormOrd::Nuc => Err(make::arg(op, "fro and nuc are matrix norms")),
            }
        }
        _ => {
            let (_, m, n) = mat_dims(op, a)?;
            let x = a.abs()?;
            let sv = |take_max: bool| -> Result<Array<T::R>> {
                let s = svd(
                    a,
                    SvdOptions {
                        full_matrices: false,
                        compute_uv: false,
                    },
                )?
                .s;
                if m.min(n) == 0 {
                    return s.sum_axes(&[-1]);
                }
                if take_max {
                    s.max_axes(&[-1])
                } else {
                    s.min_axes(&[-1])
                }
            };
            match ord {
                NormOrd::Default | NormOrd::Fro => a.abs2()?.sum_axes(&[-2, -1])?.sqrt(),
                NormOrd::Nuc => svd(
                    a,
                    SvdOptions {
                        full_matrices: false,
                        compute_uv: false,
                    },
                )?
                .s
                .sum_axes(&[-1]),
                NormOrd::Inf | NormOrd::NegInf | NormOrd::P(1.0) | NormOrd::P(-1.0)
                    if m == 0 || n == 0 =>
                {
                    Err(make::arg(op, "norm of an empty matrix with this ord"))
                }
                NormOrd::Inf => x.sum_axes(&[-1])?.max_axes(&[-1]),
                NormOrd::NegInf => x.sum_axes(&[-1])?.min_axes(&[-1]),
                NormOrd::P(1.0) => x.sum_axes(&[-2])?.max_axes(&[-1]),
                NormOrd::P(-1.0) => x.sum_axes(&[-2])?.min_axes(&[-1]),
                NormOrd::P(2.0) => sv(true),
                NormOrd::P(-2.0) => sv(false),
                NormOrd::P(p) => Err(make::arg(
                    op,
                    format!("invalid norm order {p} for matrices"),
                )),
            }
        }
    }
}

/// Condition number (NumPy's `linalg.cond`): `σ_max / σ_min` for [`NormOrd::Default`] and
/// `P(2.0)` (`σ_min / σ_max` for `P(-2.0)`), else `norm(a) · norm(inv(a))` (square only).
///
/// # Errors
/// As [`norm`]; `Singular` from [`inv`] for the non-SVD orders.
///
/// ```
/// use cusci_linalg::{cond, NormOrd, Array, Device};
/// let a = Array::from_vec(vec![2.0f64, 0.0, 0.0, 0.5], &[2, 2], &Device::Cpu)?;
/// assert_eq!(cond(&a, NormOrd::Default)?.item()?, 4.0);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn cond<T: Scalar>(a: &Array<T>, ord: NormOrd) -> Result<Array<T::R>> {
    mat_dims("cond", a)?;
    match ord {
        NormOrd::Default | NormOrd::P(2.0) | NormOrd::P(-2.0) => {
            let s = svd(
                a,
                SvdOptions {
                    full_matrices: false,
                    compute_uv: false,
                },
            )?
            .s;
            let (mx, mn) = (s.max_axes(&[-1])?, s.min_axes(&[-1])?);
            if ord == NormOrd::P(-2.0) {
                mn.div(&mx)
            } else {
                mx.div(&mn)
            }
        }
        _ => {
            square_dims("cond", a)?;
            norm(a, ord)?.mul(&norm(&inv(a)?, ord)?)
        }
    }
}

/// Rank by SVD (NumPy's `linalg.matrix_rank`): the count of singular values above `tol`
/// (default `σ_max · max(M, N) · ε`). Returns an array of the batch's shape (0-d for one
/// matrix) on `a`'s device; synchronises.
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions.
///
/// ```
/// use cusci_linalg::{matrix_rank, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 2.0, 2.0, 4.0], &[2, 2], &Device::Cpu)?;
/// assert_eq!(matrix_rank(&a, None)?.item()?, 1);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn matrix_rank<T: Scalar>(a: &Array<T>, tol: Option<f64>) -> Result<Array<i64>> {
    let (batch, m, n) = mat_dims("matrix_rank", a)?;
    let k = m.min(n);
    let s = svd(
        a,
        SvdOptions {
            full_matrices: false,
            compute_uv: false,
        },
    )?
    .s
    .to_vec()?;
    let count: usize = batch.iter().product();
    let ranks: Vec<i64> = (0..count)
        .map(|i| {
            let sv = &s[i * k..(i + 1) * k];
            let smax = sv.iter().map(|v| v.to_f64()).fold(0.0, f64::max);
            let t = tol.unwrap_or(smax * m.max(n) as f64 * T::eps());
            sv.iter().filter(|v| v.to_f64() > t).count() as i64
        })
        .collect();
    Array::from_vec(ranks, &batch, a.device())
}

/// Moore–Penrose pseudo-inverse by SVD (NumPy's `linalg.pinv`): singular values at or below
/// `rcond · σ_max` (default `rcond = max(M, N) · ε`) are treated as zero. Works on stacks.
///
/// # Errors
/// As [`svd`].
///
/// ```
/// use cusci_linalg::{pinv, Array, Device};
/// let a = Array::from_vec(vec![2.0f64, 0.0, 0.0, 0.0], &[2, 2], &Device::Cpu)?;
/// assert_eq!(pinv(&a, None)?.to_vec()?, vec![0.5, 0.0, 0.0, 0.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn pinv<T: Scalar>(a: &Array<T>, rcond: Option<f64>) -> Result<Array<T>> {
    let (_, m, n) = mat_dims("pinv", a)?;
    crate::util::check_finite("pinv", a)?;
    if m.min(n) == 0 {
        return Array::zeros(&swap_last(a.shape()), a.device());
    }
    let r = svd(
        a,
        SvdOptions {
            full_matrices: false,
            compute_uv: true,
        },
    )?;
    let missing = || make::arg("pinv", "singular vectors missing");
    let (u, s, vh) = (r.u.ok_or_else(missing)?, r.s, r.vh.ok_or_else(missing)?);
    let rc = rcond.unwrap_or(m.max(n) as f64 * T::eps());
    let cutoff = s
        .slice_axis(-1, Some(0), Some(1), 1)?
        .mul_scalar(real::<T>(rc))?;
    let keep = s.gt(&cutoff)?;
    let one = Array::<T::R>::ones(s.shape(), s.device())?;
    let zero = Array::<T::R>::zeros(s.shape(), s.device())?;
    let safe = cusci_core::where_(&keep, &s, &one)?;
    let sinv = cusci_core::where_(&keep, &safe.rdiv_scalar(real::<T>(1.0))?, &zero)?;
    let sinv_t: Array<T> = sinv.astype::<T>()?.expand_dims(-2)?;
    // V · diag(1/s) · Uᴴ
    let v = vh.swapaxes(-1, -2)?.conj()?;
    let uh = u.swapaxes(-1, -2)?.conj()?;
    matmul(&v.mul(&sinv_t)?, &uh)
}

fn swap_last(s: &[usize]) -> Vec<usize> {
    let mut v = s.to_vec();
    let n = v.len();
    v.swap(n - 1, n - 2);
    v
}

/// The result of [`lstsq`] (NumPy's four outputs).
#[derive(Debug, Clone)]
pub struct Lstsq<T: Scalar> {
    /// The minimum-norm least-squares solution, `(N,)` or `(N, K)`.
    pub x: Array<T>,
    /// Squared residual norms per column when `rank == N < M`, else empty.
    pub residuals: Array<T::R>,
    /// Effective rank of `a`.
    pub rank: usize,
    /// Singular values of `a`, descending.
    pub s: Array<T::R>,
}

/// Least-squares solution of `a x = b` (NumPy's `linalg.lstsq`) for a 2-D `a` (`M x N`) and `b`
/// `(M,)` or `(M, K)`, through the SVD (minimum norm for rank-deficient `a`); `rcond` as in
/// [`pinv`]. Synchronises (the rank is a host value).
///
/// # Errors
/// `InvalidArgument` unless `a` is 2-D; `ShapeMismatch` when `b`'s rows differ from `a`'s.
///
/// ```
/// use cusci_linalg::{lstsq, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 0.0, 1.0, 1.0, 1.0, 2.0], &[3, 2], &Device::Cpu)?;
/// let b = Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3], &Device::Cpu)?;
/// let r = lstsq(&a, &b, None)?;
/// let x = r.x.to_vec()?;
/// assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 1.0).abs() < 1e-12);
/// assert_eq!(r.rank, 2);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn lstsq<T: Scalar>(a: &Array<T>, b: &Array<T>, rcond: Option<f64>) -> Result<Lstsq<T>> {
    let op = "lstsq";
    if a.ndim() != 2 {
        return Err(make::arg(op, "a must be 2-D"));
    }
    let (m, n) = (a.shape()[0], a.shape()[1]);
    if b.ndim() == 0 || b.ndim() > 2 || b.shape()[0] != m {
        return Err(make::shape(
            op,
            format!("a is {:?} but b is {:?}", a.shape(), b.shape()),
        ));
    }
    crate::util::check_finite(op, a)?;
    crate::util::check_finite(op, b)?;
    let s = svd(
        a,
        SvdOptions {
            full_matrices: false,
            compute_uv: false,
        },
    )?
    .s;
    let sv = s.to_vec()?;
    let smax = sv.iter().map(|v| v.to_f64()).fold(0.0, f64::max);
    let rc = rcond.unwrap_or(m.max(n) as f64 * T::eps());
    let rank = sv.iter().filter(|v| v.to_f64() > rc * smax).count();
    let x = matmul(&pinv(a, Some(rc))?, b)?;
    let residuals = if rank == n && m > n {
        let r = matmul(a, &x)?.sub(b)?.abs2()?;
        r.sum_axes(&[0])?
    } else {
        Array::zeros(&[0], a.device())?
    };
    let residuals = if b.ndim() == 1 && residuals.ndim() == 0 {
        residuals.reshape(&[1])?
    } else {
        residuals
    };
    Ok(Lstsq {
        x,
        residuals,
        rank,
        s,
    })
}

/// Kronecker product (NumPy's `kron`), for arrays of any dimensions (the shorter shape is padded
/// with leading ones). Exact: each element is one product.
///
/// ```
/// use cusci_linalg::{kron, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 2.0], &[1, 2], &Device::Cpu)?;
/// let b = Array::from_vec(vec![1.0f64, 10.0], &[2, 1], &Device::Cpu)?;
/// let k = kron(&a, &b)?;
/// assert_eq!(k.shape(), &[2, 2]);
/// assert_eq!(k.to_vec()?, vec![1.0, 2.0, 10.0, 20.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn kron<T: Scalar>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    crate::util::same_device("kron", a, b)?;
    let nd = a.ndim().max(b.ndim());
    let pad = |s: &[usize]| -> Vec<usize> {
        std::iter::repeat_n(1, nd - s.len())
            .chain(s.iter().copied())
            .collect()
    };
    let (sa, sb) = (pad(a.shape()), pad(b.shape()));
    let mut ra = Vec::new();
    let mut rb = Vec::new();
    let mut out = Vec::new();
    for i in 0..nd {
        ra.extend([sa[i] as isize, 1]);
        rb.extend([1, sb[i] as isize]);
        out.push((sa[i] * sb[i]) as isize);
    }
    let p = a.reshape(&ra)?.mul(&b.reshape(&rb)?)?;
    p.reshape(&out)
}

/// Column-wise Kronecker product (SciPy's `linalg.khatri_rao`): `a` `(M, K)`, `b` `(P, K)` give
/// `(M·P, K)` whose column `j` is `kron(a[:, j], b[:, j])`.
///
/// # Errors
/// `InvalidArgument` unless both are 2-D; `ShapeMismatch` when the column counts differ.
///
/// ```
/// use cusci_linalg::{khatri_rao, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 2.0], &[1, 2], &Device::Cpu)?;
/// let b = Array::from_vec(vec![3.0f64, 4.0, 5.0, 6.0], &[2, 2], &Device::Cpu)?;
/// assert_eq!(khatri_rao(&a, &b)?.to_vec()?, vec![3.0, 8.0, 5.0, 12.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn khatri_rao<T: Scalar>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    let op = "khatri_rao";
    crate::util::same_device(op, a, b)?;
    if a.ndim() != 2 || b.ndim() != 2 {
        return Err(make::arg(op, "both arrays must be 2-D"));
    }
    let (m, k) = (a.shape()[0], a.shape()[1]);
    let (p, k2) = (b.shape()[0], b.shape()[1]);
    if k != k2 {
        return Err(make::shape(
            op,
            format!("{:?} and {:?} differ in columns", a.shape(), b.shape()),
        ));
    }
    let r = a
        .reshape(&[m as isize, 1, k as isize])?
        .mul(&b.reshape(&[1, p as isize, k as isize])?)?;
    r.reshape(&[(m * p) as isize, k as isize])
}

/// `a` raised to the integer power `n` (NumPy's `linalg.matrix_power`) by repeated squaring;
/// `n = 0` gives identities, `n < 0` powers of [`inv`]`(a)`. Works on stacks.
///
/// # Errors
/// `InvalidArgument` when not square; `Singular` for `n < 0` and a singular `a`.
///
/// ```
/// use cusci_linalg::{matrix_power, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 1.0, 0.0, 1.0], &[2, 2], &Device::Cpu)?;
/// assert_eq!(matrix_power(&a, 5)?.to_vec()?, vec![1.0, 5.0, 0.0, 1.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn matrix_power<T: Scalar>(a: &Array<T>, n: i64) -> Result<Array<T>> {
    let (_, m) = square_dims("matrix_power", a)?;
    if n == 0 {
        return crate::util::eye::<T>(m, a.device())?
            .broadcast_to(a.shape())?
            .copy();
    }
    let base = if n < 0 { inv(a)? } else { a.clone() };
    let mut e = n.unsigned_abs();
    let mut result: Option<Array<T>> = None;
    let mut p = base;
    loop {
        if e & 1 == 1 {
            result = Some(match result {
                None => p.copy()?,
                Some(r) => matmul(&r, &p)?,
            });
        }
        e >>= 1;
        if e == 0 {
            break;
        }
        p = matmul(&p, &p)?;
    }
    // n != 0: its lowest set bit made the result
    result.ok_or_else(|| make::arg("matrix_power", "empty product"))
}

/// The degree-13 Padé coefficients of the scaling-and-squaring exponential (Higham 2005), shared
/// by [`expm`] and `expm_frechet`.
pub(crate) const PADE13: [f64; 14] = [
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
];
/// The 1-norm below which degree 13 needs no scaling (Higham 2005).
pub(crate) const THETA13: f64 = 5.371920351148152;

/// Matrix exponential (SciPy's `linalg.expm`) by scaling and squaring with the degree-13 Padé
/// approximant (Higham 2005); stacks use one scaling (the largest 1-norm of the stack).
/// Synchronises (the 1-norm picks the scaling).
///
/// # Errors
/// `InvalidArgument` when not square.
///
/// ```
/// use cusci_linalg::{expm, Array, Device};
/// let a = Array::from_vec(vec![0.0f64, 1.0, 0.0, 0.0], &[2, 2], &Device::Cpu)?;
/// let e = expm(&a)?.to_vec()?;
/// assert!((e[0] - 1.0).abs() < 1e-14 && (e[1] - 1.0).abs() < 1e-14 && e[2].abs() < 1e-14);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn expm<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    let (_, n) = square_dims("expm", a)?;
    if a.is_empty() {
        return a.copy();
    }
    const B: [f64; 14] = PADE13;
    let norm1 = a.abs()?.sum_axes(&[-2])?.max()?.to_f64();
    let s = if norm1 > THETA13 {
        (norm1 / THETA13).log2().ceil().max(0.0) as i32
    } else {
        0
    };
    let sc = |x: &Array<T>, v: f64| x.mul_scalar(T::from_c64(cusci_core::c64::new(v, 0.0)));
    let a = sc(a, 0.5f64.powi(s))?;
    let ident = crate::util::eye::<T>(n, a.device())?
        .broadcast_to(a.shape())?
        .copy()?;
    let a2 = matmul(&a, &a)?;
    let a4 = matmul(&a2, &a2)?;
    let a6 = matmul(&a4, &a2)?;
    let u_in = sc(&a6, B[13])?
        .add(&sc(&a4, B[11])?)?
        .add(&sc(&a2, B[9])?)?;
    let u = matmul(&a6, &u_in)?
        .add(&sc(&a6, B[7])?)?
        .add(&sc(&a4, B[5])?)?
        .add(&sc(&a2, B[3])?)?
        .add(&sc(&ident, B[1])?)?;
    let u = matmul(&a, &u)?;
    let v_in = sc(&a6, B[12])?
        .add(&sc(&a4, B[10])?)?
        .add(&sc(&a2, B[8])?)?;
    let v = matmul(&a6, &v_in)?
        .add(&sc(&a6, B[6])?)?
        .add(&sc(&a4, B[4])?)?
        .add(&sc(&a2, B[2])?)?
        .add(&sc(&ident, B[0])?)?;
    // SciPy's expm does not check for NaN or infinity: neither does its Padé solve
    let mut r = crate::shared::without_finite_check(|| solve(&v.sub(&u)?, &v.add(&u)?))?;
    for _ in 0..s {
        r = matmul(&r, &r)?;
    }
    Ok(r)
}
