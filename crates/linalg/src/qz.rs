//! The complex generalized Schur (QZ) decomposition: [`qz_complex`] and [`ordqz_complex`]
//! (SciPy's `linalg.qz(..., output='complex')` and `linalg.ordqz(..., output='complex')`).
//!
//! GPU: **hybrid**. cuSOLVER has no QZ routine; on a CUDA array the matrices are copied to the
//! host, decomposed there (the same code as the CPU path, so both devices give the same bits),
//! and the factors are copied back to the array's device.

use crate::nonsym::{host_mats, to_array};
use crate::qr_update::{givens, rot_cols, rot_rows};
use crate::schur_cpu::Mat;
use crate::util::{check_finite, prod, same_device, square_dims};
use crate::Scalar;
use cusci_core::error::make;
use cusci_core::{c64, Array, Result};
use rayon::prelude::*;
use std::sync::Arc;

const Z0: c64 = c64 { re: 0.0, im: 0.0 };

/// A generalized Schur decomposition `a = q aa zᴴ`, `b = q bb zᴴ` ([`qz_complex`]'s result).
#[derive(Debug, Clone)]
pub struct Qz<T: Scalar> {
    /// Upper triangular, `(..., N, N)`.
    pub aa: Array<T>,
    /// Upper triangular with a real non-negative diagonal, `(..., N, N)`.
    pub bb: Array<T>,
    /// Unitary, `(..., N, N)`.
    pub q: Array<T>,
    /// Unitary, `(..., N, N)`.
    pub z: Array<T>,
}

/// An ordered generalized Schur decomposition ([`ordqz_complex`]'s result): as [`Qz`], plus
/// the generalized eigenvalues `alpha / beta` in their order on the diagonal.
#[derive(Debug, Clone)]
pub struct OrdQz<T: Scalar> {
    /// Upper triangular, `(..., N, N)`.
    pub aa: Array<T>,
    /// Upper triangular with a real non-negative diagonal, `(..., N, N)`.
    pub bb: Array<T>,
    /// `diag(aa)`, `(..., N)`.
    pub alpha: Array<T>,
    /// `diag(bb)`, `(..., N)`.
    pub beta: Array<T>,
    /// Unitary, `(..., N, N)`.
    pub q: Array<T>,
    /// Unitary, `(..., N, N)`.
    pub z: Array<T>,
}

/// Which generalized eigenvalues [`ordqz_complex`] moves to the top left (SciPy's `sort`), on
/// the pair `(alpha, beta)`; SciPy's definitions: `beta = 0` (an infinite eigenvalue) is never
/// selected except by `Ouc` (`alpha ≠ 0`).
#[derive(Clone)]
pub enum QzSort {
    /// `Re(alpha / beta) < 0` (`'lhp'`).
    Lhp,
    /// `Re(alpha / beta) > 0` (`'rhp'`).
    Rhp,
    /// `|alpha / beta| < 1` (`'iuc'`).
    Iuc,
    /// `|alpha / beta| > 1`, or `beta = 0 ≠ alpha` (`'ouc'`).
    Ouc,
    /// A predicate on `(alpha, beta)` (SciPy's callable).
    Custom(Arc<dyn Fn(c64, c64) -> bool + Send + Sync>),
}

impl std::fmt::Debug for QzSort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QzSort::Lhp => write!(f, "Lhp"),
            QzSort::Rhp => write!(f, "Rhp"),
            QzSort::Iuc => write!(f, "Iuc"),
            QzSort::Ouc => write!(f, "Ouc"),
            QzSort::Custom(_) => write!(f, "Custom(..)"),
        }
    }
}

impl QzSort {
    fn pick(&self, a: c64, b: c64) -> bool {
        let nz = b != Z0;
        match self {
            QzSort::Lhp => nz && (a / b).re < 0.0,
            QzSort::Rhp => nz && (a / b).re > 0.0,
            QzSort::Iuc => nz && (a / b).norm() < 1.0,
            QzSort::Ouc => {
                if nz {
                    (a / b).norm() > 1.0
                } else {
                    a != Z0
                }
            }
            QzSort::Custom(f) => f(a, b),
        }
    }
}

/// Column rotation on columns `keep`, `zero` of `a`, `b` and `z` that zeroes `b[row, zero]`.
fn col_zero(
    a: &mut Mat<c64>,
    b: &mut Mat<c64>,
    z: &mut Mat<c64>,
    keep: usize,
    zero: usize,
    row: usize,
) {
    let (x, y) = (b.at(row, zero), b.at(row, keep));
    if x == Z0 {
        return;
    }
    let (c, s, _) = givens(y.conj(), x.conj());
    rot_cols(b, keep, zero, c, s);
    rot_cols(a, keep, zero, c, s);
    rot_cols(z, keep, zero, c, s);
    b.set(row, zero, Z0);
}

/// Row rotation on rows `i - 1`, `i` of `a`, `b` (and `q` from the right) that zeroes
/// `a[i, col]`.
fn row_zero(a: &mut Mat<c64>, b: &mut Mat<c64>, q: &mut Mat<c64>, i: usize, col: usize) {
    let g = a.at(i, col);
    if g == Z0 {
        return;
    }
    let (c, s, _) = givens(a.at(i - 1, col), g);
    rot_rows(a, i - 1, i, 0, c, s);
    rot_rows(b, i - 1, i, 0, c, s);
    rot_cols(q, i - 1, i, c, s);
    a.set(i, col, Z0);
}

fn eye(n: usize) -> Mat<c64> {
    let mut m = Mat::zeros(n, n);
    for i in 0..n {
        m.set(i, i, c64::new(1.0, 0.0));
    }
    m
}

/// The complex QZ algorithm on one pair: returns `(aa, bb, q, z)` or `Err(())` when the
/// iteration does not converge in `30 n` sweeps.
#[allow(clippy::type_complexity)]
fn qz1(
    a: &Mat<c64>,
    b: &Mat<c64>,
) -> std::result::Result<(Mat<c64>, Mat<c64>, Mat<c64>, Mat<c64>), ()> {
    let n = a.r;
    let (mut h, mut t) = (a.clone(), b.clone());
    let (mut q, mut z) = (eye(n), eye(n));
    // b triangular (Givens QR), then a Hessenberg with b kept triangular
    for j in 0..n {
        for i in (j + 1..n).rev() {
            row_zero(&mut t, &mut h, &mut q, i, j);
        }
    }
    for j in 0..n.saturating_sub(2) {
        for i in (j + 2..n).rev() {
            row_zero(&mut h, &mut t, &mut q, i, j);
            col_zero(&mut h, &mut t, &mut z, i, i - 1, i);
        }
    }
    let eps = f64::EPSILON;
    let fro = |m: &Mat<c64>| m.d.iter().map(|x| x.norm_sqr()).sum::<f64>().sqrt();
    let (hn, tn) = (fro(&h), fro(&t));
    let mut ihi = n.saturating_sub(1);
    let (mut iter, mut since) = (0usize, 0usize);
    while ihi > 0 {
        // deflation at a negligible subdiagonal
        let mut ilo = 0;
        for j in (1..=ihi).rev() {
            let scale = (h.at(j, j).norm() + h.at(j - 1, j - 1).norm()).max(eps * hn);
            if h.at(j, j - 1).norm() <= eps * scale {
                h.set(j, j - 1, Z0);
                ilo = j;
                break;
            }
        }
        if ilo == ihi {
            ihi -= 1;
            since = 0;
            continue;
        }
        // a zero on t's diagonal (an infinite eigenvalue): chase it to the bottom and deflate
        if let Some(zj) = (ilo..=ihi).find(|&j| t.at(j, j).norm() <= eps * tn) {
            t.set(zj, zj, Z0);
            for k in zj..ihi {
                let (c, s, _) = givens(t.at(k, k + 1), t.at(k + 1, k + 1));
                rot_rows(&mut t, k, k + 1, 0, c, s);
                t.set(k + 1, k + 1, Z0);
                rot_rows(&mut h, k, k + 1, 0, c, s);
                rot_cols(&mut q, k, k + 1, c, s);
                if k > ilo {
                    col_zero(&mut t, &mut h, &mut z, k, k - 1, k + 1);
                }
            }
            col_zero(&mut t, &mut h, &mut z, ihi, ihi - 1, ihi);
            continue;
        }
        iter += 1;
        since += 1;
        if iter > 30 * n.max(1) {
            return Err(());
        }
        // shift: the eigenvalue of the trailing 2 x 2 pencil nearer h[ihi, ihi] / t[ihi, ihi]
        let (a11, a12, a21, a22) = (
            h.at(ihi - 1, ihi - 1),
            h.at(ihi - 1, ihi),
            h.at(ihi, ihi - 1),
            h.at(ihi, ihi),
        );
        let (t11, t12, t22) = (t.at(ihi - 1, ihi - 1), t.at(ihi - 1, ihi), t.at(ihi, ihi));
        let sig = if since % 10 == 0 {
            // exceptional shift
            c64::new(a21.norm() + a22.norm(), 0.5 * (a21.norm() + a22.norm())) / t22
        } else {
            let qa = t11 * t22;
            let qb = -(a11 * t22 + a22 * t11 - a21 * t12);
            let qc = a11 * a22 - a12 * a21;
            let disc = (qb * qb - qa * qc * 4.0).sqrt();
            let r1 = (-qb + disc) / (qa * 2.0);
            let r2 = (-qb - disc) / (qa * 2.0);
            let tgt = a22 / t22;
            if (r1 - tgt).norm() < (r2 - tgt).norm() {
                r1
            } else {
                r2
            }
        };
        for k in ilo..ihi {
            let (c, s) = if k == ilo {
                let (c, s, _) = givens(h.at(k, k) - sig * t.at(k, k), h.at(k + 1, k));
                (c, s)
            } else {
                let (c, s, _) = givens(h.at(k, k - 1), h.at(k + 1, k - 1));
                (c, s)
            };
            rot_rows(&mut h, k, k + 1, 0, c, s);
            if k > ilo {
                h.set(k + 1, k - 1, Z0);
            }
            rot_rows(&mut t, k, k + 1, 0, c, s);
            rot_cols(&mut q, k, k + 1, c, s);
            col_zero(&mut h, &mut t, &mut z, k + 1, k, k + 1);
        }
    }
    normalize(&mut h, &mut t, &mut z);
    Ok((h, t, q, z))
}

/// Makes `t`'s diagonal real and non-negative (LAPACK's convention) by unimodular column
/// scalings of `h`, `t` and `z`.
fn normalize(h: &mut Mat<c64>, t: &mut Mat<c64>, z: &mut Mat<c64>) {
    let n = t.r;
    for j in 0..n {
        let d = t.at(j, j);
        let ad = d.norm();
        if ad == 0.0 || (d.im == 0.0 && d.re > 0.0) {
            continue;
        }
        let ph = d.conj() / ad;
        for i in 0..n {
            t.set(i, j, t.at(i, j) * ph);
            h.set(i, j, h.at(i, j) * ph);
            z.set(i, j, z.at(i, j) * ph);
        }
        t.set(j, j, c64::new(ad, 0.0));
    }
}

/// Swaps the adjacent eigenvalues at `k`, `k + 1` of a triangular pair.
fn swap(h: &mut Mat<c64>, t: &mut Mat<c64>, q: &mut Mat<c64>, z: &mut Mat<c64>, k: usize) {
    // m = β₂ h - α₂ t on the 2 x 2 block is [[m11, m12], [0, 0]]; z's rotation sends its null
    // vector (the eigenvector of the second eigenvalue) to the first column
    let (al, be) = (h.at(k + 1, k + 1), t.at(k + 1, k + 1));
    let m11 = be * h.at(k, k) - al * t.at(k, k);
    let m12 = be * h.at(k, k + 1) - al * t.at(k, k + 1);
    if m11 != Z0 || m12 != Z0 {
        let (c, s, _) = givens(m12.conj(), m11.conj());
        rot_cols(h, k + 1, k, c, s);
        rot_cols(t, k + 1, k, c, s);
        rot_cols(z, k + 1, k, c, s);
    }
    // q's rotation zeroes the (k + 1, k) entries (of the larger of h and t, for accuracy)
    let use_t =
        t.at(k, k).norm() + t.at(k + 1, k).norm() >= h.at(k, k).norm() + h.at(k + 1, k).norm();
    let (f, g) = if use_t {
        (t.at(k, k), t.at(k + 1, k))
    } else {
        (h.at(k, k), h.at(k + 1, k))
    };
    let (c, s, _) = givens(f, g);
    rot_rows(h, k, k + 1, 0, c, s);
    rot_rows(t, k, k + 1, 0, c, s);
    rot_cols(q, k, k + 1, c, s);
    h.set(k + 1, k, Z0);
    t.set(k + 1, k, Z0);
}

/// Moves the selected eigenvalues to the top left in their relative order (as LAPACK's
/// `tgsen`), then restores the non-negative real diagonal of `t`.
fn reorder(h: &mut Mat<c64>, t: &mut Mat<c64>, q: &mut Mat<c64>, z: &mut Mat<c64>, sort: &QzSort) {
    let n = h.r;
    let sel: Vec<bool> = (0..n).map(|j| sort.pick(h.at(j, j), t.at(j, j))).collect();
    let mut ks = 0;
    for (j, &s) in sel.iter().enumerate() {
        if s {
            for k in (ks..j).rev() {
                swap(h, t, q, z, k);
            }
            ks += 1;
        }
    }
    normalize(h, t, z);
}

#[allow(clippy::type_complexity)]
fn run<T: Scalar>(
    op: &str,
    a: &Array<T>,
    b: &Array<T>,
    sort: Option<&QzSort>,
) -> Result<(Vec<usize>, usize, Vec<[Mat<c64>; 4]>)> {
    same_device(op, a, b)?;
    let (batch, n) = square_dims(op, a)?;
    let (bb, bn) = square_dims(op, b)?;
    if bb != batch || bn != n {
        return Err(make::shape(
            op,
            format!(
                "Array dimensions must be equal: {:?} vs {:?}",
                a.shape(),
                b.shape()
            ),
        ));
    }
    check_finite(op, a)?;
    check_finite(op, b)?;
    let count = prod(&batch);
    if count == 0 || n == 0 {
        return Ok((batch, n, Vec::new()));
    }
    let am = host_mats::<T, c64>(a, count, n, n)?;
    let bm = host_mats::<T, c64>(b, count, n, n)?;
    let r: Vec<Result<[Mat<c64>; 4]>> = am
        .par_iter()
        .zip(bm.par_iter())
        .map(|(a, b)| {
            let (mut h, mut t, mut q, mut z) =
                qz1(a, b).map_err(|_| crate::shared::no_conv(op, 1))?;
            if let Some(s) = sort {
                reorder(&mut h, &mut t, &mut q, &mut z, s);
            }
            Ok([h, t, q, z])
        })
        .collect();
    Ok((batch, n, r.into_iter().collect::<Result<_>>()?))
}

fn part<U: Scalar>(
    ms: &[[Mat<c64>; 4]],
    i: usize,
    shape: &[usize],
    dev: &cusci_core::Device,
) -> Result<Array<U>> {
    let v: Vec<Mat<c64>> = ms.iter().map(|m| m[i].clone()).collect();
    to_array::<U, c64>(&v, shape, dev)
}

/// The complex generalized Schur (QZ) decomposition of a pair of square matrices (SciPy's
/// `linalg.qz(A, B, output='complex')`): `a = q aa zᴴ`, `b = q bb zᴴ` with `q`, `z` unitary and
/// `aa`, `bb` upper triangular, `bb` with a real non-negative diagonal (LAPACK's `zgges`
/// convention). The generalized eigenvalues are `aa[j, j] / bb[j, j]` (infinite where
/// `bb[j, j] = 0`). Real inputs are decomposed in complex arithmetic and the outputs are complex
/// ([`Scalar::C`]), as `output='complex'` gives them. Stacks `(..., N, N)` of equal shapes are
/// decomposed pair by pair. SciPy's default `output='real'` (the real quasi-triangular form of
/// a real pair) is not offered.
///
/// The decomposition is unique only up to the order of the eigenvalues and unimodular factors:
/// compare `q aa zᴴ`, `q bb zᴴ` and the eigenvalues with SciPy's, not the factors.
///
/// Numerics: Givens QR of `b`, Hessenberg–triangular reduction by Givens rotations, then the
/// single-shift complex QZ iteration (Moler–Stewart; the shift is the eigenvalue of the trailing
/// 2 x 2 pencil nearer the last diagonal ratio, an exceptional shift every 10 sweeps without
/// deflation), zeros on `bb`'s diagonal chased down and deflated as infinite eigenvalues; in
/// complex128 (c32 and f32 inputs are computed in double and rounded once).
/// `‖a - q aa zᴴ‖ ≈ n ε ‖a‖`.
///
/// GPU: **hybrid** (host factorisation: the matrices are copied to the host and the results
/// back, as the crate README's "Hybrid GPU paths" describes).
///
/// # Errors
/// `InvalidArgument` when either is not square or holds NaN or infinity (SciPy's
/// `check_finite`); `ShapeMismatch` when their shapes differ; `NoConvergence` when the
/// iteration does not converge in `30 N` sweeps.
///
/// ```
/// use cusci_linalg::{qz_complex, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2], &Device::Cpu)?;
/// let b = Array::from_vec(vec![1.0f64, 0.0, 0.0, 2.0], &[2, 2], &Device::Cpu)?;
/// let s = qz_complex(&a, &b)?;
/// let (aa, bb) = (s.aa.to_vec()?, s.bb.to_vec()?);
/// assert!(aa[2].norm() == 0.0 && bb[2].norm() == 0.0); // triangular
/// // det(a - λ b) = 2λ² - 6λ - 2: λ = (3 ± √13) / 2
/// let mut w: Vec<f64> = (0..2).map(|j| (aa[3 * j] / bb[3 * j]).re).collect();
/// w.sort_by(f64::total_cmp);
/// assert!((w[0] - (3.0 - 13f64.sqrt()) / 2.0).abs() < 1e-13);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn qz_complex<T: Scalar>(a: &Array<T>, b: &Array<T>) -> Result<Qz<T::C>> {
    let op = "qz";
    let (_, _, ms) = run(op, a, b, None)?;
    let dev = a.device();
    if ms.is_empty() {
        let e = a.astype::<T::C>()?;
        return Ok(Qz {
            aa: e.copy()?,
            bb: e.copy()?,
            q: e.copy()?,
            z: e,
        });
    }
    let s = a.shape();
    Ok(Qz {
        aa: part(&ms, 0, s, dev)?,
        bb: part(&ms, 1, s, dev)?,
        q: part(&ms, 2, s, dev)?,
        z: part(&ms, 3, s, dev)?,
    })
}

/// The ordered complex QZ decomposition (SciPy's `linalg.ordqz(A, B, sort, output='complex')`):
/// [`qz_complex`], then the eigenvalues that `sort` selects moved to the top left of `aa`, `bb`
/// in their relative order (as LAPACK's `tgsen`, by swaps of adjacent eigenvalues), with
/// `alpha = diag(aa)`, `beta = diag(bb)` (real, non-negative). SciPy's default sort is `'lhp'`
/// ([`QzSort::Lhp`]).
///
/// GPU: **hybrid**, as [`qz_complex`].
///
/// # Errors
/// As [`qz_complex`].
///
/// ```
/// use cusci_linalg::{ordqz_complex, Array, Device, QzSort};
/// let a = Array::from_vec(vec![2.0f64, 1.0, 0.0, -3.0], &[2, 2], &Device::Cpu)?;
/// let b = Array::from_vec(vec![1.0f64, 0.0, 0.0, 1.0], &[2, 2], &Device::Cpu)?;
/// let s = ordqz_complex(&a, &b, QzSort::Lhp)?;
/// let w = s.alpha.to_vec()?[0] / s.beta.to_vec()?[0];
/// assert!((w.re + 3.0).abs() < 1e-13); // -3 first
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn ordqz_complex<T: Scalar>(a: &Array<T>, b: &Array<T>, sort: QzSort) -> Result<OrdQz<T::C>> {
    let op = "ordqz";
    let (batch, n, ms) = run(op, a, b, Some(&sort))?;
    let dev = a.device();
    let mut vshape = batch.clone();
    vshape.push(n);
    if ms.is_empty() {
        let e = a.astype::<T::C>()?;
        return Ok(OrdQz {
            aa: e.copy()?,
            bb: e.copy()?,
            alpha: Array::zeros(&vshape, dev)?,
            beta: Array::zeros(&vshape, dev)?,
            q: e.copy()?,
            z: e,
        });
    }
    let diag = |i: usize| -> Result<Array<T::C>> {
        let v: Vec<T::C> = ms
            .iter()
            .flat_map(|m| {
                (0..n).map(move |j| <T::C as cusci_core::Element>::from_c64(m[i].at(j, j)))
            })
            .collect();
        Array::from_vec(v, &vshape, dev)
    };
    let s = a.shape();
    Ok(OrdQz {
        alpha: diag(0)?,
        beta: diag(1)?,
        aa: part(&ms, 0, s, dev)?,
        bb: part(&ms, 1, s, dev)?,
        q: part(&ms, 2, s, dev)?,
        z: part(&ms, 3, s, dev)?,
    })
}
