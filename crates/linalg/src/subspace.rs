//! Functions built on the SVD and the Hermitian eigensolver (SciPy's `svdvals`, `diagsvd`,
//! `null_space`, `orth`, `orthogonal_procrustes`, `subspace_angles`, `pinvh`, `polar`).
//!
//! They are composed from [`svd`], [`eigh`], [`matmul`] and the element-wise operations of
//! cusci-core, so they run on the device the input lives on with no code of their own for it.
//! The functions whose output shape depends on a numerical rank (`null_space`, `orth`,
//! `subspace_angles`) read the singular values back to count it, which synchronises.

use crate::util::{cat, check_finite, mat_dims, prod, same_device, square_dims};
use crate::{eigh, matmul, svd, Scalar, SvdOptions};
use cusci_core::array::layout::broadcast_shapes;
use cusci_core::error::make;
use cusci_core::{where_, Array, RealFloat, Result};

fn real<T: Scalar>(v: f64) -> T::R {
    <T::R as RealFloat>::from_f64(v)
}

/// `a` with its last two axes swapped and conjugated (`aᴴ`), as a new array.
pub(crate) fn adjoint<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    a.swapaxes(-1, -2)?.conj()
}

const THIN_UV: SvdOptions = SvdOptions {
    full_matrices: false,
    compute_uv: true,
};

fn missing(op: &str) -> cusci_core::Error {
    make::arg(op, "singular vectors missing")
}

/// The number of singular values above `max(s) · rcond` (default `rcond = ε · max(M, N)`), the
/// same for every matrix of the stack (read back: synchronises). SciPy applies these functions
/// matrix by matrix and stacks the results, which needs equal ranks too.
fn common_rank<T: Scalar>(
    op: &str,
    s: &Array<T::R>,
    count: usize,
    m: usize,
    n: usize,
    rcond: Option<f64>,
) -> Result<usize> {
    if count == 0 {
        return Err(make::arg(op, "zero-size batches are not supported"));
    }
    let rc = rcond.unwrap_or(T::eps() * m.max(n) as f64);
    let k = m.min(n);
    let sv = s.to_vec()?;
    let mut rank = None;
    for i in 0..count {
        let x = &sv[i * k..(i + 1) * k];
        let tol = x.iter().map(|v| v.to_f64()).fold(0.0, f64::max) * rc;
        let r = x.iter().filter(|v| v.to_f64() > tol).count();
        match rank {
            None => rank = Some(r),
            Some(r0) if r0 != r => {
                return Err(make::arg(
                    op,
                    format!("the matrices of the stack have different ranks ({r0} and {r}); their results cannot be stacked"),
                ))
            }
            _ => {}
        }
    }
    Ok(rank.unwrap_or(0))
}

/// Singular values of `(..., M, N)` matrices, descending, `(..., min(M, N))` (SciPy's
/// `linalg.svdvals`, `check_finite=True`).
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions or a NaN or infinity in `a`; `NoConvergence`.
/// Synchronises on the GPU.
///
/// # Numerics
/// As [`svd`]: each value to about `ε·σ_max` (cuSOLVER's gesvd/gesvdj, faer on the CPU).
///
/// ```
/// use cusci_linalg::{svdvals, Array, Device};
/// let a = Array::from_vec(vec![0.0f64, 2.0, -3.0, 0.0], &[2, 2], &Device::Cpu)?;
/// assert_eq!(svdvals(&a)?.to_vec()?, vec![3.0, 2.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn svdvals<T: Scalar>(a: &Array<T>) -> Result<Array<T::R>> {
    let op = "svdvals";
    mat_dims(op, a)?;
    check_finite(op, a)?;
    Ok(svd(
        a,
        SvdOptions {
            full_matrices: false,
            compute_uv: false,
        },
    )?
    .s)
}

/// The `(..., M, N)` matrix `Σ` of an SVD from its singular values `s` (`(..., K)`; SciPy's
/// `linalg.diagsvd`): `s` on the main diagonal, zeros elsewhere (also where `s` holds NaN).
///
/// # Errors
/// `InvalidArgument` for a 0-d `s` or unless `K = min(M, N)` (SciPy: "Length of s must be M or
/// N", or a negative-dimension error when `K` is the larger of the two).
///
/// ```
/// use cusci_linalg::{diagsvd, Array, Device};
/// let s = Array::from_vec(vec![3.0f64, 2.0], &[2], &Device::Cpu)?;
/// assert_eq!(diagsvd(&s, 2, 3)?.to_vec()?, vec![3.0, 0.0, 0.0, 0.0, 2.0, 0.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn diagsvd<T: Scalar>(s: &Array<T>, m: usize, n: usize) -> Result<Array<T>> {
    let op = "diagsvd";
    if s.ndim() == 0 {
        return Err(make::arg(op, "s must have at least 1 dimension"));
    }
    let k = s.shape()[s.ndim() - 1];
    if k != m && k != n {
        return Err(make::arg(op, "Length of s must be M or N."));
    }
    if k != m.min(n) {
        return Err(make::arg(
            op,
            format!(
                "s has {k} values but a {m}x{n} matrix has {} diagonal entries",
                m.min(n)
            ),
        ));
    }
    let batch = &s.shape()[..s.ndim() - 1];
    let shape = cat(batch, &[m, n]);
    let mut mask = vec![false; m * n];
    for i in 0..k {
        mask[i * n + i] = true;
    }
    let mask = Array::from_vec(mask, &[m, n], s.device())?.broadcast_to(&shape)?;
    let sb = if k == m {
        s.expand_dims(-1)?
    } else {
        s.expand_dims(-2)?
    };
    let zeros = Array::<T>::zeros(&shape, s.device())?;
    where_(&mask, &sb.broadcast_to(&shape)?, &zeros)
}

/// An orthonormal basis of the null space of `(..., M, N)` matrices by SVD (SciPy's
/// `linalg.null_space`): the conjugated rows of `Vᴴ` past the numerical rank, `(..., N, N - r)`,
/// where `r` counts the singular values above `max(s) · rcond` (default `rcond = ε · max(M, N)`
/// of the element type).
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions, a NaN or infinity (SciPy's `check_finite`), a
/// zero-size stack, or a stack whose matrices have different ranks (SciPy stacks the per-matrix
/// results, which fails too). Synchronises (the rank is counted on the host).
///
/// # Numerics
/// The basis is orthonormal to about `ε·N`; it is unique only up to a unitary mixing of its
/// columns: compare `A·Q ≈ 0` and `QᴴQ = I`, or the projector `Q·Qᴴ`.
///
/// ```
/// use cusci_linalg::{null_space, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 1.0, 1.0, 1.0], &[2, 2], &Device::Cpu)?;
/// let q = null_space(&a, None)?;
/// assert_eq!(q.shape(), &[2, 1]);
/// let v = q.to_vec()?;
/// assert!((v[0] + v[1]).abs() < 1e-12 && (v[0].abs() - 0.5f64.sqrt()).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn null_space<T: Scalar>(a: &Array<T>, rcond: Option<f64>) -> Result<Array<T>> {
    let op = "null_space";
    let (batch, m, n) = mat_dims(op, a)?;
    check_finite(op, a)?;
    let r = svd(a, SvdOptions::default())?;
    let rank = common_rank::<T>(op, &r.s, prod(&batch), m, n, rcond)?;
    let vh = r.vh.ok_or_else(|| missing(op))?;
    adjoint(&vh.slice_axis(-2, Some(rank as isize), None, 1)?)
}

/// An orthonormal basis of the range of `(..., M, N)` matrices by SVD (SciPy's `linalg.orth`):
/// the first `r` left singular vectors, `(..., M, r)`, `r` and `rcond` as in [`null_space`].
///
/// # Errors
/// As [`null_space`] (SciPy's `orth` has no `check_finite` argument but its SVD checks).
/// Synchronises.
///
/// ```
/// use cusci_linalg::{orth, Array, Device};
/// let a = Array::from_vec(vec![2.0f64, 4.0, 1.0, 2.0], &[2, 2], &Device::Cpu)?;
/// let q = orth(&a, None)?;
/// assert_eq!(q.shape(), &[2, 1]);
/// let v = q.to_vec()?;
/// assert!((v[0].abs() - 2.0 / 5f64.sqrt()).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn orth<T: Scalar>(a: &Array<T>, rcond: Option<f64>) -> Result<Array<T>> {
    let op = "orth";
    let (batch, m, n) = mat_dims(op, a)?;
    check_finite(op, a)?;
    let r = svd(a, THIN_UV)?;
    let rank = common_rank::<T>(op, &r.s, prod(&batch), m, n, rcond)?;
    let u = r.u.ok_or_else(|| missing(op))?;
    u.slice_axis(-1, None, Some(rank as isize), 1)?.contiguous()
}

/// The unitary `R` that maps `A` closest to `B` in the Frobenius norm, and `scale`, the sum of
/// the singular values of `AᴴB` (SciPy's `linalg.orthogonal_procrustes`): with
/// `AᴴB = U Σ Vᴴ`, `R = U Vᴴ` (`(..., N, N)`) and `scale = Σ σ` (`(...)`). `A` and `B` are
/// `(..., M, N)` with the same `(M, N)`; their leading axes broadcast.
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions or a NaN or infinity; `ShapeMismatch` when the
/// matrix shapes differ or the batches do not broadcast; `DeviceMismatch`. Synchronises.
///
/// # Numerics
/// One product (cuBLAS or faer, summed in the element type) and one SVD of an `N x N` matrix;
/// `R` is unique when `AᴴB` has full rank.
///
/// ```
/// use cusci_linalg::{orthogonal_procrustes, matmul, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 0.0, 0.0, 1.0, 1.0, 1.0], &[3, 2], &Device::Cpu)?;
/// let rot = Array::from_vec(vec![0.0f64, 1.0, -1.0, 0.0], &[2, 2], &Device::Cpu)?;
/// let b = matmul(&a, &rot)?;
/// let (r, scale) = orthogonal_procrustes(&a, &b)?;
/// let got = r.to_vec()?;
/// assert!(got.iter().zip([0.0, 1.0, -1.0, 0.0]).all(|(x, y)| (x - y).abs() < 1e-12));
/// assert!((scale.item()? - 4.0).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn orthogonal_procrustes<T: Scalar>(
    a: &Array<T>,
    b: &Array<T>,
) -> Result<(Array<T>, Array<T::R>)> {
    let op = "orthogonal_procrustes";
    same_device(op, a, b)?;
    let (ba, m, n) = mat_dims(op, a)?;
    let (bb, mb, nb) = mat_dims(op, b)?;
    if (m, n) != (mb, nb) {
        return Err(make::shape(
            op,
            format!(
                "the shapes of A and B differ ({:?} vs {:?})",
                a.shape(),
                b.shape()
            ),
        ));
    }
    broadcast_shapes(op, &ba, &bb)?;
    check_finite(op, a)?;
    check_finite(op, b)?;
    let r = svd(&matmul(&adjoint(a)?, b)?, SvdOptions::default())?;
    let (u, vh) = (
        r.u.ok_or_else(|| missing(op))?,
        r.vh.ok_or_else(|| missing(op))?,
    );
    Ok((matmul(&u, &vh)?, r.s.sum_axes(&[-1])?))
}

/// Principal angles between the column spaces of `A` (`(..., M, N)`) and `B` (`(..., M, K)`), in
/// radians, descending (SciPy's `linalg.subspace_angles`, Knyazev and Argentati's algorithm):
/// with orthonormal bases `QA = orth(A)`, `QB = orth(B)`, the cosines are the singular values of
/// `QAᴴ QB`; angles whose cosine² is at least ½ come from the sines (the singular values of
/// `QB − QA QAᴴ QB`, or of `QA − QB (QAᴴ QB)ᴴ`), which keeps small angles accurate.
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions, a NaN or infinity, or stacks whose matrices
/// have different ranks; `ShapeMismatch` when the row counts differ. Synchronises.
///
/// # Numerics
/// Bases, products and SVDs run on the array's device; the `min(rank A, rank B)` angles are
/// formed from the singular values on the host in f64 (`arccos`/`arcsin` of values clipped to
/// [-1, 1]) and returned on the input's device.
///
/// ```
/// use cusci_linalg::{subspace_angles, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 0.0, 0.0], &[3, 1], &Device::Cpu)?;
/// let b = Array::from_vec(vec![1.0f64, 1.0, 0.0], &[3, 1], &Device::Cpu)?;
/// let t = subspace_angles(&a, &b)?.to_vec()?;
/// assert!((t[0] - std::f64::consts::FRAC_PI_4).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn subspace_angles<T: Scalar>(a: &Array<T>, b: &Array<T>) -> Result<Array<T::R>> {
    let op = "subspace_angles";
    same_device(op, a, b)?;
    let (ba, m, _) = mat_dims(op, a)?;
    let (bb, mb, _) = mat_dims(op, b)?;
    if m != mb {
        return Err(make::shape(
            op,
            format!("A and B must have the same number of rows, got {m} and {mb}"),
        ));
    }
    check_finite(op, a)?;
    check_finite(op, b)?;
    let batch = broadcast_shapes(op, &ba, &bb)?;
    let qa = orth(a, None)?;
    let qb = orth(b, None)?;
    let (ka, kb) = (qa.shape()[qa.ndim() - 1], qb.shape()[qb.ndim() - 1]);
    let k = ka.min(kb);
    let count = prod(&batch);
    if k == 0 {
        return Array::zeros(&cat(&batch, &[0]), a.device());
    }
    let qhq = matmul(&adjoint(&qa)?, &qb)?;
    let thin = SvdOptions {
        full_matrices: false,
        compute_uv: false,
    };
    let sigma: Vec<f64> = svd(&qhq, thin)?
        .s
        .to_vec()?
        .iter()
        .map(|v| v.to_f64())
        .collect();
    let any_sine = sigma.iter().any(|s| s * s >= 0.5);
    let mu: Vec<f64> = if any_sine {
        let resid = if ka >= kb {
            qb.sub(&matmul(&qa, &qhq)?)?
        } else {
            qa.sub(&matmul(&qb, &adjoint(&qhq)?)?)?
        };
        svd(&resid, thin)?
            .s
            .to_vec()?
            .iter()
            .map(|v| v.to_f64().clamp(-1.0, 1.0).asin())
            .collect()
    } else {
        vec![0.0; count * k]
    };
    let mut theta = Vec::with_capacity(count * k);
    for i in 0..count {
        let (s, mu) = (&sigma[i * k..(i + 1) * k], &mu[i * k..(i + 1) * k]);
        for j in 0..k {
            theta.push(if s[j] * s[j] >= 0.5 {
                real::<T>(mu[j])
            } else {
                real::<T>(s[k - 1 - j].clamp(-1.0, 1.0).acos())
            });
        }
    }
    Array::from_vec(theta, &cat(&batch, &[k]), a.device())
}

/// Options of [`pinvh`] (SciPy's keyword arguments and defaults).
#[derive(Debug, Clone, Copy)]
pub struct PinvhOptions {
    /// Absolute cutoff for small eigenvalues (default 0).
    pub atol: Option<f64>,
    /// Relative cutoff (default `N · ε` of the element type).
    pub rtol: Option<f64>,
    /// Read the lower (default) or the upper triangle.
    pub lower: bool,
}

impl Default for PinvhOptions {
    fn default() -> Self {
        PinvhOptions {
            atol: None,
            rtol: None,
            lower: true,
        }
    }
}

/// Pseudo-inverse of Hermitian (real symmetric) `(..., N, N)` matrices through their
/// eigendecomposition (SciPy's `linalg.pinvh`): eigenvalues with `|λ| ≤ atol + rtol · max|λ|`
/// are dropped, the rest inverted, `B = V diag(1/λ) Vᴴ`. Only the triangle chosen by `lower` is
/// read.
///
/// # Errors
/// `InvalidArgument` when not square, for a NaN or infinity, or a negative `atol` or `rtol`
/// (SciPy: "atol and rtol values must be positive."); `NoConvergence`. Synchronises on the GPU.
///
/// # Numerics
/// One [`eigh`] and one product; the error of `B` grows with `ε / λ_min` of the kept eigenvalues.
///
/// ```
/// use cusci_linalg::{pinvh, PinvhOptions, Array, Device};
/// let a = Array::from_vec(vec![2.0f64, 0.0, 0.0, 0.0], &[2, 2], &Device::Cpu)?;
/// let b = pinvh(&a, PinvhOptions::default())?.to_vec()?;
/// assert!((b[0] - 0.5).abs() < 1e-15 && b[1..].iter().all(|v| v.abs() < 1e-15));
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn pinvh<T: Scalar>(a: &Array<T>, opts: PinvhOptions) -> Result<Array<T>> {
    let op = "pinvh";
    let (_, n) = square_dims(op, a)?;
    let atol = opts.atol.unwrap_or(0.0);
    let rtol = opts.rtol.unwrap_or(n as f64 * T::eps());
    if atol < 0.0 || rtol < 0.0 || atol.is_nan() || rtol.is_nan() {
        return Err(make::arg(op, "atol and rtol values must be positive."));
    }
    check_finite(op, a)?;
    if n == 0 {
        return Array::zeros(a.shape(), a.device());
    }
    let (w, v) = eigh(a, opts.lower)?;
    let aw = w.abs()?;
    let cutoff = aw
        .max_axes_keepdims(&[-1])?
        .mul_scalar(real::<T>(rtol))?
        .add_scalar(real::<T>(atol))?;
    let keep = aw.gt(&cutoff)?;
    let one = Array::<T::R>::ones(w.shape(), w.device())?;
    let zero = Array::<T::R>::zeros(w.shape(), w.device())?;
    let safe = where_(&keep, &w, &one)?;
    let winv = where_(&keep, &safe.rdiv_scalar(real::<T>(1.0))?, &zero)?;
    let scaled = v.mul(&winv.astype::<T>()?.expand_dims(-2)?)?;
    matmul(&scaled, &adjoint(&v)?)
}

/// Which polar decomposition [`polar`] computes (SciPy's `side`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PolarSide {
    /// `a = u p` (SciPy's default).
    #[default]
    Right,
    /// `a = p u`.
    Left,
}

/// Polar decomposition of `(..., M, N)` matrices (SciPy's `linalg.polar`): `a = u p`
/// ([`PolarSide::Right`]) or `a = p u` ([`PolarSide::Left`]) with `u` `(..., M, N)` having
/// orthonormal columns (rows, when `M < N`) and `p` Hermitian positive semi-definite, `(..., N,
/// N)` for `Right` and `(..., M, M)` for `Left`. From the thin SVD `a = W S Vᴴ`: `u = W Vᴴ`,
/// `p = V S Vᴴ` (right) or `W S Wᴴ` (left).
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions; `NoConvergence`. Synchronises on the GPU.
///
/// ```
/// use cusci_linalg::{polar, PolarSide, Array, Device};
/// let a = Array::from_vec(vec![0.0f64, -2.0, 3.0, 0.0], &[2, 2], &Device::Cpu)?;
/// let (u, p) = polar(&a, PolarSide::Right)?;
/// let (u, p) = (u.to_vec()?, p.to_vec()?);
/// let close = |x: &[f64], y: &[f64]| x.iter().zip(y).all(|(a, b)| (a - b).abs() < 1e-12);
/// assert!(close(&u, &[0.0, -1.0, 1.0, 0.0]) && close(&p, &[3.0, 0.0, 0.0, 2.0]));
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn polar<T: Scalar>(a: &Array<T>, side: PolarSide) -> Result<(Array<T>, Array<T>)> {
    let op = "polar";
    mat_dims(op, a)?;
    check_finite(op, a)?;
    let r = svd(a, THIN_UV)?;
    let (w, vh) = (
        r.u.ok_or_else(|| missing(op))?,
        r.vh.ok_or_else(|| missing(op))?,
    );
    let s = r.s.astype::<T>()?.expand_dims(-2)?;
    let u = matmul(&w, &vh)?;
    let p = match side {
        PolarSide::Right => matmul(&adjoint(&vh)?.mul(&s)?, &vh)?,
        PolarSide::Left => matmul(&w.mul(&s)?, &adjoint(&w)?)?,
    };
    Ok((u, p))
}
