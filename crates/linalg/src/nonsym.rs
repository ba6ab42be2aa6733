//! The non-symmetric decompositions of `scipy.linalg`: [`hessenberg`], [`schur`] /
//! [`schur_complex`], [`rsf2csf`], [`cdf2rdf`], [`rq`].
//!
//! GPU: **hybrid**. cuSOLVER has no Hessenberg, Schur or RQ routine; on a CUDA array the
//! matrices are copied to the host, factored there by the crate's CPU kernels (the same code as
//! the CPU path, so both devices give the same bits), and the factors are copied back to the
//! array's device. `cdf2rdf` is a pure rearrangement and runs the same way.

use crate::schur_cpu::{self as k, Fld, Mat};
use crate::util::{cat, check_finite, mat_dims, prod, square_dims};
use crate::Scalar;
use cusci_core::error::make;
use cusci_core::{c64, Array, Device, Error, Result};
use rayon::prelude::*;
use std::sync::Arc;

/// The `count` matrices `r x c` of `a` (host copy) as `f64` or `c64` matrices.
pub(crate) fn host_mats<T: Scalar, F: Fld>(
    a: &Array<T>,
    count: usize,
    r: usize,
    c: usize,
) -> Result<Vec<Mat<F>>> {
    let v = a.to_vec()?;
    Ok((0..count)
        .map(|i| {
            Mat::from(
                r,
                c,
                v[i * r * c..(i + 1) * r * c]
                    .iter()
                    .map(|x| F::from_c(x.to_c64()))
                    .collect(),
            )
        })
        .collect())
}

/// The matrices (each `r x c`) as one array of `shape` on `dev`.
pub(crate) fn to_array<U: Scalar, F: Fld>(
    ms: &[Mat<F>],
    shape: &[usize],
    dev: &Device,
) -> Result<Array<U>> {
    let v: Vec<U> = ms
        .iter()
        .flat_map(|m| m.d.iter().map(|x| U::from_c64(x.to_c())))
        .collect();
    Array::from_vec(v, shape, dev)
}

fn no_conv(op: &str) -> Error {
    crate::shared::no_conv(op, 1)
}

/// Hessenberg form of square matrices (SciPy's `linalg.hessenberg`): `a = q h qᴴ` with `h`
/// upper Hessenberg (zero below the first subdiagonal) and `q` unitary (returned when
/// `calc_q`). The reflectors follow LAPACK's `gehrd` (`beta = -sign(Re α)·‖x‖`, real
/// subdiagonal), so `h` and `q` are SciPy's up to rounding. Matrices of order ≤ 2 are returned
/// unchanged with `q = I`, as SciPy. Stacks `(..., N, N)` are reduced one matrix at a time.
///
/// Numerics: Householder reflections in f64 / complex128 (f32 and c32 inputs are computed in
/// double and rounded once); `‖a - q h qᴴ‖ ≈ n ε ‖a‖`.
///
/// GPU: **hybrid** (host reduction, see the [module](self) doc).
///
/// # Errors
/// `InvalidArgument` when not square or when `a` holds NaN or infinity (SciPy's
/// `check_finite`).
///
/// ```
/// use cusci_linalg::{hessenberg, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0], &[3, 3], &Device::Cpu)?;
/// let (h, q) = hessenberg(&a, true)?;
/// assert_eq!(h.to_vec()?[6], 0.0); // h[2, 0]
/// assert!(q.is_some());
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
#[allow(clippy::type_complexity)]
pub fn hessenberg<T: Scalar>(a: &Array<T>, calc_q: bool) -> Result<(Array<T>, Option<Array<T>>)> {
    let op = "hessenberg";
    let (batch, n) = square_dims(op, a)?;
    check_finite(op, a)?;
    let count = prod(&batch);
    let dev = a.device();
    if count == 0 || n == 0 {
        let q = if calc_q { Some(a.copy()?) } else { None };
        return Ok((a.copy()?, q));
    }
    let run = |ms: Vec<Mat<c64>>| -> Result<(Array<T>, Option<Array<T>>)> {
        let r: Vec<(Mat<c64>, Option<Mat<c64>>)> = ms
            .par_iter()
            .map(|m| {
                if n <= 2 {
                    (m.clone(), if calc_q { Some(k::identity(n)) } else { None })
                } else {
                    k::hessenberg(m, calc_q)
                }
            })
            .collect();
        let (hs, qs): (Vec<_>, Vec<_>) = r.into_iter().unzip();
        let h = to_array::<T, c64>(&hs, a.shape(), dev)?;
        let q = if calc_q {
            let qs: Vec<Mat<c64>> = qs
                .into_iter()
                .map(|q| q.unwrap_or_else(|| k::identity(n)))
                .collect();
            Some(to_array::<T, c64>(&qs, a.shape(), dev)?)
        } else {
            None
        };
        Ok((h, q))
    };
    run(host_mats::<T, c64>(a, count, n, n)?)
}

/// Which eigenvalues [`schur`] moves to the top left (SciPy's `sort`).
#[derive(Clone)]
pub enum SchurSort {
    /// `Re λ < 0` (`'lhp'`).
    Lhp,
    /// `Re λ >= 0` (`'rhp'`).
    Rhp,
    /// `|λ| <= 1` (`'iuc'`).
    Iuc,
    /// `|λ| > 1` (`'ouc'`).
    Ouc,
    /// A predicate on the (complex) eigenvalue (SciPy's callable; for a real Schur form a
    /// complex pair is selected when either of its values is).
    Custom(Arc<dyn Fn(c64) -> bool + Send + Sync>),
}

impl std::fmt::Debug for SchurSort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SchurSort::Lhp => write!(f, "Lhp"),
            SchurSort::Rhp => write!(f, "Rhp"),
            SchurSort::Iuc => write!(f, "Iuc"),
            SchurSort::Ouc => write!(f, "Ouc"),
            SchurSort::Custom(_) => write!(f, "Custom(..)"),
        }
    }
}

impl SchurSort {
    fn pick(&self, z: c64) -> bool {
        match self {
            SchurSort::Lhp => z.re < 0.0,
            SchurSort::Rhp => z.re >= 0.0,
            SchurSort::Iuc => z.norm() <= 1.0,
            SchurSort::Ouc => z.norm() > 1.0,
            SchurSort::Custom(f) => f(z),
        }
    }
}

/// A Schur decomposition `a = z t zᴴ` ([`schur`]'s and [`schur_complex`]'s result).
#[derive(Debug, Clone)]
pub struct Schur<T: Scalar> {
    /// The Schur form: upper triangular (complex) or quasi-triangular with standardised 2 x 2
    /// blocks (real), `(..., N, N)`.
    pub t: Array<T>,
    /// The unitary (orthogonal) Schur vectors, `(..., N, N)`.
    pub z: Array<T>,
    /// With a `sort`: the number of selected eigenvalues of each matrix (SciPy's `sdim`; a
    /// complex pair of a real form counts 2); `None` without.
    pub sdim: Option<Vec<usize>>,
}

/// Schur decomposition of square matrices with SciPy's default `output='real'`
/// (`linalg.schur(a, output='real', sort=...)`): for real `a` the real Schur form (`t`
/// quasi-upper-triangular, each complex pair a standardised 2 x 2 block `[[α, β], [γ, α]]` with
/// `β γ < 0`, as LAPACK's `gees`), for complex `a` the complex one. With `sort`, the selected
/// eigenvalues come first (in their relative order) and `sdim` counts them.
///
/// The Schur form is unique only up to the order of the eigenvalues and the phases of `z`'s
/// columns: `t`'s eigenvalues and `a = z t zᴴ` are what to compare with SciPy (the order on the
/// diagonal can differ from LAPACK's where no `sort` fixes it).
///
/// Numerics: Hessenberg reduction, then Francis double-shift QR (real) or single-shift QR with
/// Wilkinson shifts (complex), in f64 / complex128 (f32 and c32 computed in double and rounded
/// once); reordering by swaps of adjacent blocks (Bai–Demmel). `‖a - z t zᴴ‖ ≈ n ε ‖a‖`.
///
/// GPU: **hybrid** (host factorisation, see the [module](self) doc).
///
/// # Errors
/// `InvalidArgument` when not square or non-finite (SciPy's `check_finite`); `NoConvergence`
/// when the QR iteration does not converge (`30 n` sweeps) or a reordering swap fails.
///
/// ```
/// use cusci_linalg::{schur, Array, Device};
/// let a = Array::from_vec(vec![0.0f64, 1.0, -2.0, 0.0], &[2, 2], &Device::Cpu)?;
/// let s = schur(&a, None)?; // eigenvalues ±i√2: one 2 x 2 block
/// let t = s.t.to_vec()?;
/// assert!((t[0] - t[3]).abs() < 1e-14 && t[1] * t[2] < 0.0);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn schur<T: Scalar>(a: &Array<T>, sort: Option<SchurSort>) -> Result<Schur<T>> {
    if T::DTYPE.is_complex() {
        let s = schur_impl::<T>("schur", a, sort.as_ref(), true)?;
        return Ok(Schur {
            t: s.0,
            z: s.1,
            sdim: s.2,
        });
    }
    let (t, z, sdim) = schur_impl::<T>("schur", a, sort.as_ref(), false)?;
    Ok(Schur { t, z, sdim })
}

/// Schur decomposition with SciPy's `output='complex'`: `t` upper triangular, complex for
/// every input type (real inputs are converted to complex first, as SciPy does). Otherwise as
/// [`schur`].
///
/// # Errors
/// As [`schur`].
///
/// ```
/// use cusci_linalg::{schur_complex, Array, Device, SchurSort};
/// let a = Array::from_vec(vec![1.0f64, 2.0, 0.0, -3.0], &[2, 2], &Device::Cpu)?;
/// let s = schur_complex(&a, Some(SchurSort::Lhp))?;
/// assert_eq!(s.sdim, Some(vec![1]));
/// assert!((s.t.to_vec()?[0].re + 3.0).abs() < 1e-12); // -3 first
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn schur_complex<T: Scalar>(a: &Array<T>, sort: Option<SchurSort>) -> Result<Schur<T::C>> {
    let (t, z, sdim) = schur_impl::<T::C>("schur", &a.astype::<T::C>()?, sort.as_ref(), true)?;
    Ok(Schur { t, z, sdim })
}

#[allow(clippy::type_complexity)]
fn schur_impl<T: Scalar>(
    op: &str,
    a: &Array<T>,
    sort: Option<&SchurSort>,
    complex: bool,
) -> Result<(Array<T>, Array<T>, Option<Vec<usize>>)> {
    let (batch, n) = square_dims(op, a)?;
    check_finite(op, a)?;
    let count = prod(&batch);
    let dev = a.device();
    if count == 0 || n == 0 {
        return Ok((a.copy()?, a.copy()?, sort.map(|_| vec![0; count])));
    }
    let sel = |z: c64| sort.map(|s| s.pick(z)).unwrap_or(false);
    if complex {
        let ms = host_mats::<T, c64>(a, count, n, n)?;
        let r: Vec<Result<(Mat<c64>, Mat<c64>, usize)>> = ms
            .par_iter()
            .map(|m| {
                let (mut h, q) = k::hessenberg(m, true);
                let mut z = q.unwrap_or_else(|| k::identity(n));
                k::complex_schur(&mut h, &mut z).map_err(|_| no_conv(op))?;
                let d = if sort.is_some() {
                    k::reorder_complex(&mut h, &mut z, &sel)
                } else {
                    0
                };
                Ok((h, z, d))
            })
            .collect();
        let r: Vec<_> = r.into_iter().collect::<Result<_>>()?;
        let ts: Vec<_> = r.iter().map(|x| x.0.clone()).collect();
        let zs: Vec<_> = r.iter().map(|x| x.1.clone()).collect();
        let sd: Vec<usize> = r.iter().map(|x| x.2).collect();
        Ok((
            to_array::<T, c64>(&ts, a.shape(), dev)?,
            to_array::<T, c64>(&zs, a.shape(), dev)?,
            sort.map(|_| sd),
        ))
    } else {
        let ms = host_mats::<T, f64>(a, count, n, n)?;
        let r: Vec<Result<(Mat<f64>, Mat<f64>, usize)>> = ms
            .par_iter()
            .map(|m| {
                let (mut h, q) = k::hessenberg(m, true);
                let mut z = q.unwrap_or_else(|| k::identity(n));
                k::real_schur(&mut h, &mut z).map_err(|_| no_conv(op))?;
                let d = if sort.is_some() {
                    k::reorder_real(&mut h, &mut z, &sel).map_err(|_| no_conv(op))?
                } else {
                    0
                };
                Ok((h, z, d))
            })
            .collect();
        let r: Vec<_> = r.into_iter().collect::<Result<_>>()?;
        let ts: Vec<_> = r.iter().map(|x| x.0.clone()).collect();
        let zs: Vec<_> = r.iter().map(|x| x.1.clone()).collect();
        let sd: Vec<usize> = r.iter().map(|x| x.2).collect();
        Ok((
            to_array::<T, f64>(&ts, a.shape(), dev)?,
            to_array::<T, f64>(&zs, a.shape(), dev)?,
            sort.map(|_| sd),
        ))
    }
}

/// The complex Schur form from a real one (SciPy's `linalg.rsf2csf(T, Z)`): each standardised
/// 2 x 2 block of `t` is triangularised by a complex Givens rotation (SciPy's algorithm, from
/// the bottom block up), `z` updated to match, so `z t zᴴ` is unchanged. Outputs are complex
/// ([`Scalar::C`]); complex inputs are accepted as SciPy does. Stacks are converted matrix by
/// matrix.
///
/// GPU: **hybrid** (host rotations, see the [module](self) doc).
///
/// # Errors
/// `InvalidArgument` when `t` or `z` is not square or non-finite; `ShapeMismatch` when their
/// shapes differ.
///
/// ```
/// use cusci_linalg::{rsf2csf, Array, Device};
/// let t = Array::from_vec(vec![0.0f64, 2.0, -2.0, 0.0], &[2, 2], &Device::Cpu)?;
/// let z = Array::from_vec(vec![1.0f64, 0.0, 0.0, 1.0], &[2, 2], &Device::Cpu)?;
/// let (tc, _zc) = rsf2csf(&t, &z)?;
/// let tc = tc.to_vec()?;
/// assert!(tc[2].norm() == 0.0 && (tc[0].im.abs() - 2.0).abs() < 1e-14);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
#[allow(clippy::type_complexity)]
pub fn rsf2csf<T: Scalar>(t: &Array<T>, z: &Array<T>) -> Result<(Array<T::C>, Array<T::C>)> {
    let op = "rsf2csf";
    let (batch, n) = square_dims(op, t)?;
    let (zb, zn) = square_dims(op, z)?;
    crate::util::same_device(op, t, z)?;
    if zb != batch || zn != n {
        return Err(make::shape(
            op,
            format!(
                "Input array shapes must match: Z: {:?} vs. T: {:?}",
                z.shape(),
                t.shape()
            ),
        ));
    }
    check_finite(op, z)?;
    check_finite(op, t)?;
    let count = prod(&batch);
    let dev = t.device();
    if count == 0 || n == 0 {
        return Ok((t.astype()?, z.astype()?));
    }
    let ts = host_mats::<T, c64>(t, count, n, n)?;
    let zs = host_mats::<T, c64>(z, count, n, n)?;
    let r: Vec<(Mat<c64>, Mat<c64>)> = ts
        .par_iter()
        .zip(zs.par_iter())
        .map(|(t, z)| k::rsf2csf(t, z))
        .collect();
    let (tt, zz): (Vec<_>, Vec<_>) = r.into_iter().unzip();
    Ok((
        to_array::<T::C, c64>(&tt, t.shape(), dev)?,
        to_array::<T::C, c64>(&zz, t.shape(), dev)?,
    ))
}

/// Real block-diagonal eigenvalues and real eigenvectors from complex ones (SciPy's
/// `linalg.cdf2rdf(w, v)`): `w` `(..., N)` with complex eigenvalues in consecutive conjugate
/// pairs, `v` `(..., N, N)` the eigenvectors (as [`eig`](crate::eig) gives them for a real
/// matrix). Returns `(wr, vr)` real, `wr` block diagonal (a pair `a ± ib` at `j, j+1` as
/// `[[a, b_j], [b_{j+1}, a]]` with `b_j = Im w_j`), `vr = Re(v u)` (SciPy's `u`), so that
/// `a vr = vr wr`.
///
/// GPU: **hybrid** (the rearrangement on the host, see the [module](self) doc).
///
/// # Errors
/// `InvalidArgument` when `w` is 0-dimensional, `v` not `(..., N, N)` matching `w`, or a matrix
/// has an odd number of non-real eigenvalues (SciPy's "expected complex-conjugate pairs").
///
/// ```
/// use cusci_linalg::{cdf2rdf, c64, Array, Device};
/// let w = Array::from_vec(vec![c64::new(1.0, 2.0), c64::new(1.0, -2.0)], &[2], &Device::Cpu)?;
/// let v = Array::from_vec(vec![c64::new(1.0, 0.0), c64::new(1.0, 0.0), c64::new(0.0, -1.0), c64::new(0.0, 1.0)], &[2, 2], &Device::Cpu)?;
/// let (wr, _vr) = cdf2rdf(&w, &v)?;
/// assert_eq!(wr.to_vec()?, vec![1.0, 2.0, -2.0, 1.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
#[allow(clippy::type_complexity)]
pub fn cdf2rdf<T: Scalar>(w: &Array<T>, v: &Array<T>) -> Result<(Array<T::R>, Array<T::R>)>
where
    T::R: Scalar,
{
    let op = "cdf2rdf";
    if w.ndim() < 1 {
        return Err(make::arg(op, "expected w to be at least 1D"));
    }
    if v.ndim() < 2 {
        return Err(make::arg(op, "expected v to be at least 2D"));
    }
    if v.ndim() != w.ndim() + 1 {
        return Err(make::arg(
            op,
            "expected eigenvectors array to have exactly one dimension more than eigenvalues array",
        ));
    }
    crate::util::same_device(op, w, v)?;
    let n = w.shape()[w.ndim() - 1];
    let (vb, vr, vc) = mat_dims(op, v)?;
    if vr != vc {
        return Err(make::arg(
            op,
            "expected v to be a square matrix or stacked square matrices: v.shape[-2] = v.shape[-1]",
        ));
    }
    if vc != n || vb[..] != w.shape()[..w.ndim() - 1] {
        return Err(make::arg(
            op,
            "expected the same number of eigenvalues as eigenvectors",
        ));
    }
    check_finite(op, w)?;
    check_finite(op, v)?;
    let count = prod(&vb);
    let wv: Vec<c64> = w.to_vec()?.iter().map(|x| x.to_c64()).collect();
    let vv: Vec<c64> = v.to_vec()?.iter().map(|x| x.to_c64()).collect();
    let mut wr = vec![0.0f64; count * n * n];
    let mut vrr = vec![0.0f64; count * n * n];
    for b in 0..count {
        let w = &wv[b * n..(b + 1) * n];
        let idx: Vec<usize> = (0..n).filter(|&i| w[i].im != 0.0).collect();
        if idx.len() % 2 != 0 {
            return Err(make::arg(
                op,
                "expected complex-conjugate pairs of eigenvalues",
            ));
        }
        let o = b * n * n;
        // u (SciPy's): identity, with each pair (j, k) as [[0.5i, 0.5], [-0.5i, 0.5]]
        let mut u = vec![c64::new(0.0, 0.0); n * n];
        for i in 0..n {
            wr[o + i * n + i] = w[i].re;
            u[i * n + i] = c64::new(1.0, 0.0);
        }
        for p in idx.chunks(2) {
            let (j, kk) = (p[0], p[1]);
            wr[o + j * n + kk] = w[j].im;
            wr[o + kk * n + j] = w[kk].im;
            u[j * n + j] = c64::new(0.0, 0.5);
            u[j * n + kk] = c64::new(0.5, 0.0);
            u[kk * n + j] = c64::new(0.0, -0.5);
            u[kk * n + kk] = c64::new(0.5, 0.0);
        }
        let vm = &vv[o..o + n * n];
        for i in 0..n {
            for c in 0..n {
                let mut s = c64::new(0.0, 0.0);
                for l in 0..n {
                    if u[l * n + c] != c64::new(0.0, 0.0) {
                        s += vm[i * n + l] * u[l * n + c];
                    }
                }
                vrr[o + i * n + c] = s.re;
            }
        }
    }
    let conv = |x: Vec<f64>| -> Vec<T::R> {
        x.into_iter()
            .map(|r| <T::R as cusci_core::Element>::from_c64(c64::new(r, 0.0)))
            .collect()
    };
    let shape = cat(&vb, &[n, n]);
    Ok((
        Array::from_vec(conv(wr), &shape, w.device())?,
        Array::from_vec(conv(vrr), &shape, w.device())?,
    ))
}

/// The outputs of [`rq`] (SciPy's `mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RqMode {
    /// `r` `(M, N)`, `q` `(N, N)` (the default).
    #[default]
    Full,
    /// `r` only, as in `Full`.
    R,
    /// `K = min(M, N)`: `r` `(M, K)`, `q` `(K, N)`.
    Economic,
}

/// RQ decomposition `a = r q` of `(..., M, N)` arrays (SciPy's `linalg.rq(a, mode)`): `r`
/// upper trapezoidal (the triangle ends at the last column), `q` with orthonormal rows. The
/// reflectors follow LAPACK's `gerqf`/`orgrq` (`beta = -sign(Re α)·‖x‖`), so `r` and `q` are
/// SciPy's up to rounding. Returns `(r, q)`, `q` `None` in [`RqMode::R`].
///
/// Numerics: Householder reflections in f64 / complex128 (f32 and c32 computed in double and
/// rounded once).
///
/// GPU: **hybrid** (host factorisation, see the [module](self) doc).
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions or non-finite input (SciPy's `check_finite`).
///
/// ```
/// use cusci_linalg::{rq, RqMode, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], &Device::Cpu)?;
/// let (r, q) = rq(&a, RqMode::Full)?;
/// assert_eq!((r.shape(), q.unwrap().shape()), (&[2, 3][..], &[3, 3][..]));
/// assert_eq!(r.to_vec()?[3], 0.0); // r[1, 0]
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
#[allow(clippy::type_complexity)]
pub fn rq<T: Scalar>(a: &Array<T>, mode: RqMode) -> Result<(Array<T>, Option<Array<T>>)> {
    let op = "rq";
    let (batch, m, n) = mat_dims(op, a)?;
    check_finite(op, a)?;
    let kk = m.min(n);
    let econ = mode == RqMode::Economic && n >= m;
    let (rr, rc) = if econ { (m, m) } else { (m, n) };
    let (qr_, qc) = if econ { (m, n) } else { (n, n) };
    let count = prod(&batch);
    let dev = a.device();
    let r_shape = cat(&batch, &[rr, rc]);
    let q_shape = cat(&batch, &[qr_, qc]);
    if count == 0 || kk == 0 {
        let r = Array::zeros(&r_shape, dev)?;
        let q = if mode == RqMode::R {
            None
        } else {
            // the last rows of the identity (SciPy's `orgrq` of no reflectors)
            let mut v = vec![T::zero(); prod(&q_shape)];
            for b in 0..count {
                for i in 0..qr_ {
                    v[b * qr_ * qc + i * qc + (qc - qr_ + i)] = T::one();
                }
            }
            Some(Array::from_vec(v, &q_shape, dev)?)
        };
        return Ok((r, q));
    }
    let ms = host_mats::<T, c64>(a, count, m, n)?;
    let r: Vec<(Mat<c64>, Mat<c64>)> = ms
        .par_iter()
        .map(|am| {
            let mut a = am.clone();
            let mut p = k::identity::<c64>(n);
            for i in (0..kk).rev() {
                let row = m - kk + i;
                let len = n - kk + i + 1;
                let w: Vec<c64> = (0..len).map(|j| a.at(row, j).conj()).collect();
                let (beta, tau, v0) = k::larfg(w[len - 1], &w[..len - 1]);
                // v = [x scaled..., 1]
                let mut v: Vec<c64> = v0[1..].to_vec();
                v.push(c64::new(1.0, 0.0));
                // rows above: A := A (I - tau v vᴴ)
                apply_right(&mut a, 0, row, &v, tau);
                a.set(row, len - 1, c64::new(beta.re, 0.0));
                for j in 0..len - 1 {
                    a.set(row, j, c64::new(0.0, 0.0));
                }
                // P := P H(i)ᴴ (accumulated in the order H(1)ᴴ ... H(k)ᴴ: prepend)
                prepend(&mut p, &v, tau.conj());
            }
            // r = triu(a, n - m) or the trailing m x m block
            let mut r = Mat::<c64>::zeros(rr, rc);
            for i in 0..rr {
                for j in 0..rc {
                    let (si, sj) = if econ { (i, n - m + j) } else { (i, j) };
                    let keep = if econ {
                        j >= i
                    } else {
                        (sj as isize) - (si as isize) >= n as isize - m as isize
                    };
                    if keep {
                        r.set(i, j, a.at(si, sj));
                    }
                }
            }
            let q = Mat::from(qr_, qc, p.d[(n - qr_) * n..].to_vec());
            (r, q)
        })
        .collect();
    let (rs, qs): (Vec<_>, Vec<_>) = r.into_iter().unzip();
    let r = to_array::<T, c64>(&rs, &r_shape, dev)?;
    let q = if mode == RqMode::R {
        None
    } else {
        Some(to_array::<T, c64>(&qs, &q_shape, dev)?)
    };
    Ok((r, q))
}

/// `A[0..rows, 0..v.len()] := A (I - tau v vᴴ)`.
fn apply_right(a: &mut Mat<c64>, r0: usize, r1: usize, v: &[c64], tau: c64) {
    if tau == c64::new(0.0, 0.0) {
        return;
    }
    for i in r0..r1 {
        let mut s = c64::new(0.0, 0.0);
        for (j, vj) in v.iter().enumerate() {
            s += a.at(i, j) * vj;
        }
        let s = s * tau;
        for (j, vj) in v.iter().enumerate() {
            let x = a.at(i, j) - s * vj.conj();
            a.set(i, j, x);
        }
    }
}

/// `P := (I - t v vᴴ) P` (`v` acting on the first `v.len()` rows).
fn prepend(p: &mut Mat<c64>, v: &[c64], t: c64) {
    if t == c64::new(0.0, 0.0) {
        return;
    }
    let n = p.c;
    for j in 0..n {
        let mut s = c64::new(0.0, 0.0);
        for (i, vi) in v.iter().enumerate() {
            s += vi.conj() * p.at(i, j);
        }
        let s = s * t;
        for (i, vi) in v.iter().enumerate() {
            let x = p.at(i, j) - vi * s;
            p.set(i, j, x);
        }
    }
}

/// Which side [`qr_multiply`] multiplies `q` on (SciPy's `mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QrMultiplyMode {
    /// `c @ q` (the default): `c` is `(P, M)` or `(M,)`.
    #[default]
    Right,
    /// `q @ c`: `c` is `(K, P)` or `(K,)`.
    Left,
}

/// The product of `q` of the QR decomposition of `a` with `c` (SciPy's `linalg.qr_multiply(a,
/// c, mode, pivoting=False, conjugate)`): `a = q r` with `q` the economic `(M, K)` factor
/// (`K = min(M, N)`), returns `(c @ q, r)` ([`QrMultiplyMode::Right`], `c` `(P, M)` or `(M,)`)
/// or `(q @ c, r)` (`Left`, `c` `(K, P)` or `(K,)`); with `conjugate`, `conj(q)` takes `q`'s
/// place. `q` is LAPACK's (`geqrf`/`orgqr` signs) on both devices, so results are SciPy's up to
/// rounding. `pivoting` is not offered.
///
/// GPU: composed ([`qr`](crate::qr) by cuSOLVER `geqrf` + `orgqr`, then cuBLAS's product); the
/// CPU forms `q` from [`qr_raw`](crate::qr_raw)'s reflectors (LAPACK's convention).
///
/// # Errors
/// `InvalidArgument` for an `a` that is not 2-D, a `c` of more than 2 dimensions, or non-finite
/// input; `ShapeMismatch` when `c` does not fit (SciPy's "Array shapes are not compatible").
///
/// ```
/// use cusci_linalg::{qr_multiply, QrMultiplyMode, Array, Device};
/// let a = Array::from_vec(vec![3.0f64, 0.0, 4.0, 0.0], &[2, 2], &Device::Cpu)?;
/// let c = Array::from_vec(vec![1.0f64, 0.0], &[2], &Device::Cpu)?;
/// let (cq, r) = qr_multiply(&a, &c, QrMultiplyMode::Right, false)?;
/// // LAPACK: q's first column is -(0.6, 0.8), r[0, 0] = -5
/// assert!((cq.to_vec()?[0] + 0.6).abs() < 1e-14 && (r.to_vec()?[0] + 5.0).abs() < 1e-14);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn qr_multiply<T: Scalar>(
    a: &Array<T>,
    c: &Array<T>,
    mode: QrMultiplyMode,
    conjugate: bool,
) -> Result<(Array<T>, Array<T>)> {
    let op = "qr_multiply";
    crate::util::same_device(op, a, c)?;
    if a.ndim() != 2 {
        return Err(make::arg(op, "a must be 2-dimensional"));
    }
    if c.ndim() > 2 || c.ndim() == 0 {
        return Err(make::arg(op, "c must be 1- or 2-dimensional"));
    }
    check_finite(op, c)?;
    let (m, n) = (a.shape()[0], a.shape()[1]);
    let kk = m.min(n);
    let onedim = c.ndim() == 1;
    let c2 = match (onedim, mode) {
        (true, QrMultiplyMode::Right) => c.reshape(&[1, c.shape()[0] as isize])?,
        (true, QrMultiplyMode::Left) => c.reshape(&[c.shape()[0] as isize, 1])?,
        _ => c.clone(),
    };
    let fits = match mode {
        QrMultiplyMode::Left => c2.shape()[0] == kk,
        QrMultiplyMode::Right => c2.shape()[1] == m,
    };
    if !fits {
        return Err(make::shape(
            op,
            format!(
                "Array shapes are not compatible for the product with q: {:?} vs {:?}",
                c.shape(),
                a.shape()
            ),
        ));
    }
    check_finite(op, a)?;
    let dev = a.device();
    let (q, r) = match dev {
        Device::Cpu => {
            let raw = crate::qr_raw(a)?;
            let h = host_mats::<T, c64>(&raw.h, 1, m, n)?.remove(0);
            let tau: Vec<c64> = raw.tau.to_vec()?.iter().map(|x| x.to_c64()).collect();
            // q = H_1 ... H_K I[:, :K]
            let mut e = Mat::<c64>::zeros(m, kk);
            for i in 0..kk {
                e.set(i, i, c64::new(1.0, 0.0));
            }
            for j in (0..kk).rev() {
                let t = tau[j];
                if t == c64::new(0.0, 0.0) {
                    continue;
                }
                for col in 0..kk {
                    let mut s = e.at(j, col);
                    for i in j + 1..m {
                        s += h.at(i, j).conj() * e.at(i, col);
                    }
                    let s = s * t;
                    e.set(j, col, e.at(j, col) - s);
                    for i in j + 1..m {
                        let x = e.at(i, col) - h.at(i, j) * s;
                        e.set(i, col, x);
                    }
                }
            }
            (to_array::<T, c64>(&[e], &[m, kk], dev)?, raw.r)
        }
        Device::Cuda(_) => {
            let f = crate::qr(a, crate::QrMode::Reduced)?;
            let q =
                f.q.ok_or_else(|| make::arg(op, "q missing from the reduced QR"))?;
            (q, f.r)
        }
    };
    let q = if conjugate && T::DTYPE.is_complex() {
        q.conj()?
    } else {
        q
    };
    let out = if c2.size() == 0 || kk == 0 {
        let shape = match mode {
            QrMultiplyMode::Left => [m, c2.shape()[1]],
            QrMultiplyMode::Right => [c2.shape()[0], kk],
        };
        Array::zeros(&shape, dev)?
    } else {
        match mode {
            QrMultiplyMode::Left => crate::matmul(&q, &c2)?,
            QrMultiplyMode::Right => crate::matmul(&c2, &q)?,
        }
    };
    let out = if onedim {
        let len = out.size() as isize;
        out.reshape(&[len])?
    } else {
        out
    };
    Ok((out, r))
}

/// LDLᵀ / LDLᴴ decomposition of symmetric or Hermitian matrices with Bunch–Kaufman pivoting
/// (SciPy's `linalg.ldl(A, lower, hermitian)`, LAPACK's `sytrf`/`hetrf`): returns `(lu, d,
/// perm)` as SciPy does: `a = lu d luᴴ` (`luᵀ` when not `hermitian` or real), `d` block
/// diagonal with 1 x 1 and 2 x 2 blocks, and `lu[perm]` triangular (lower when `lower`). Only
/// the triangle `lower` names is read; with `hermitian` the imaginary part of the diagonal is
/// ignored (SciPy warns). The pivoting is LAPACK's `sytf2`/`hetf2` decisions, so the factors
/// are SciPy's up to rounding (the upper form is computed as the lower form of the reversed
/// matrix, which makes the same choices except on exact ties).
///
/// Numerics: f64 / complex128 (f32 and c32 computed in double and rounded once).
///
/// GPU: **hybrid** (the factorisation on the host, see the [module](self) doc).
///
/// # Errors
/// `InvalidArgument` when not square or non-finite. A singular matrix is factored (a zero
/// block in `d`), as SciPy.
///
/// ```
/// use cusci_linalg::{ldl, Array, Device};
/// let a = Array::from_vec(vec![2.0f64, 1.0, 1.0, 2.0], &[2, 2], &Device::Cpu)?;
/// let (lu, d, perm) = ldl(&a, true, true)?;
/// assert_eq!(d.to_vec()?, vec![2.0, 0.0, 0.0, 1.5]);
/// assert_eq!(lu.to_vec()?, vec![1.0, 0.0, 0.5, 1.0]);
/// assert_eq!(perm.to_vec()?, vec![0, 1]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
#[allow(clippy::type_complexity)]
pub fn ldl<T: Scalar>(
    a: &Array<T>,
    lower: bool,
    hermitian: bool,
) -> Result<(Array<T>, Array<T>, Array<i64>)> {
    let op = "ldl";
    let (batch, n) = square_dims(op, a)?;
    check_finite(op, a)?;
    let count = prod(&batch);
    let dev = a.device();
    if count == 0 || n == 0 {
        return Ok((a.copy()?, a.copy()?, Array::zeros(&cat(&batch, &[n]), dev)?));
    }
    let herm = hermitian && T::DTYPE.is_complex();
    let ms = host_mats::<T, c64>(a, count, n, n)?;
    let r: Vec<(Mat<c64>, Mat<c64>, Vec<i64>)> = ms
        .par_iter()
        .map(|m| {
            // LAPACK's ldu and ipiv for the requested triangle
            let (ldu, ipiv) = if lower {
                let mut w = m.clone();
                let p = k::sytf2_lower(&mut w, herm);
                (w, p)
            } else {
                // upper of a = reversed lower of J a J
                let mut w = Mat::<c64>::zeros(n, n);
                for i in 0..n {
                    for j in 0..n {
                        w.set(i, j, m.at(n - 1 - i, n - 1 - j));
                    }
                }
                let p = k::sytf2_lower(&mut w, herm);
                let mut u = Mat::<c64>::zeros(n, n);
                for i in 0..n {
                    for j in 0..n {
                        u.set(i, j, w.at(n - 1 - i, n - 1 - j));
                    }
                }
                let pu: Vec<i64> = (0..n)
                    .map(|i| {
                        let v = p[n - 1 - i];
                        if v > 0 {
                            n as i64 + 1 - v
                        } else {
                            -(n as i64 + 1 + v)
                        }
                    })
                    .collect();
                (u, pu)
            };
            ldl_post(&ldu, &ipiv, lower, herm)
        })
        .collect();
    let mut lus = Vec::with_capacity(count);
    let mut ds = Vec::with_capacity(count);
    let mut ps = Vec::with_capacity(count * n);
    for (lu, d, p) in r {
        lus.push(lu);
        ds.push(d);
        ps.extend(p);
    }
    Ok((
        to_array::<T, c64>(&lus, a.shape(), dev)?,
        to_array::<T, c64>(&ds, a.shape(), dev)?,
        Array::from_vec(ps, &cat(&batch, &[n]), dev)?,
    ))
}

/// SciPy's post-processing of `sytrf`'s output: the pivot sizes and swaps from `ipiv`, `d` and
/// the unit triangular factor from `ldu`, then the row interchanges applied to the factor
/// (`lu`, `d`, `perm`).
fn ldl_post(
    ldu: &Mat<c64>,
    ipiv: &[i64],
    lower: bool,
    herm: bool,
) -> (Mat<c64>, Mat<c64>, Vec<i64>) {
    let n = ldu.r;
    // pivot sizes and swaps (SciPy's _ldl_sanitize_ipiv)
    let mut swap: Vec<usize> = (0..n).collect();
    let mut piv = vec![0usize; n];
    let (x, y): (isize, isize) = if lower { (1, 0) } else { (-1, -1) };
    let order: Vec<usize> = if lower {
        (0..n).collect()
    } else {
        (0..n).rev().collect()
    };
    let mut skip = false;
    for ind in order {
        if skip {
            skip = false;
            continue;
        }
        let cur = ipiv[ind];
        if cur > 0 {
            if cur as usize != ind + 1 {
                swap[ind] = swap[cur as usize - 1];
            }
            piv[ind] = 1;
        } else {
            let other = (ind as isize + x) as usize;
            if (-cur) as usize != ind + 2 {
                swap[other] = swap[(-cur) as usize - 1];
            }
            piv[(ind as isize + y) as usize] = 2;
            skip = true;
        }
    }
    // d and the unit triangular factor (SciPy's _ldl_get_d_and_l)
    let mut d = Mat::<c64>::zeros(n, n);
    let mut lu = Mat::<c64>::zeros(n, n);
    for i in 0..n {
        d.set(i, i, ldu.at(i, i));
        lu.set(i, i, c64::new(1.0, 0.0));
        for j in 0..n {
            if (lower && j < i) || (!lower && j > i) {
                lu.set(i, j, ldu.at(i, j));
            }
        }
    }
    let (ox, oy) = if lower { (1, 0) } else { (0, 1) };
    let mut blk = 0;
    for &p in piv.iter().filter(|&&p| p != 0) {
        if p == 2 {
            let v = ldu.at(blk + ox, blk + oy);
            d.set(blk + ox, blk + oy, v);
            d.set(blk + oy, blk + ox, if herm { v.conj() } else { v });
            lu.set(blk + ox, blk + oy, c64::new(0.0, 0.0));
        }
        blk += p;
    }
    // the interchanges (SciPy's _ldl_construct_tri_factor)
    let mut perm: Vec<usize> = (0..n).collect();
    let inds: Vec<usize> = if lower {
        (0..n).rev().collect()
    } else {
        (0..n).collect()
    };
    for ind in inds {
        let s = swap[ind];
        if s != ind {
            let (mut cs, mut ce) = if lower { (ind, n) } else { (0, ind + 1) };
            if piv[ind] == (if lower { 0 } else { 2 }) {
                if lower {
                    cs -= 1;
                } else {
                    ce += 1;
                }
            }
            for c in cs..ce {
                let t = lu.at(s, c);
                lu.set(s, c, lu.at(ind, c));
                lu.set(ind, c, t);
            }
            perm.swap(s, ind);
        }
    }
    // argsort(perm)
    let mut inv = vec![0i64; n];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i as i64;
    }
    (lu, d, inv)
}
