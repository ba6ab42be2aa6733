//! Cholesky, QR, SVD and the Hermitian eigensolver, and the [`Cholesky`] and [`Qr`] factor types.
//!
//! GPU: cuSOLVER's 64-bit `Xpotrf`/`Xpotrs`, `Xsyevd`, `Xgesvd`. The storage of a row-major
//! matrix is its column-major transpose; for a Hermitian matrix that is its conjugate, so
//! `cholesky` factors the storage as it is (upper in column-major = lower in row-major: the result
//! storage *is* `L`), and `eigh`'s eigenvector storage read row-major is `Vᴴ` (real: `V` is
//! returned as its transposed view; complex: one tiled conjugating pass). `svd` of a wide or square matrix takes `Aᵀ = U' S V'ᴴ` in the storage's own layout and
//! reads `U = conj(V')` and `Vᴴ = U'ᵀ` from the outputs' storage without copies.

use crate::shared::{no_conv, not_pd, Qr, QrMode, Svd, SvdOptions, TriangularOptions};
use crate::solve::tri;
use crate::util::{cat, cpu_array, cpu_map, mat_dims, prod, same_device, square_dims, which};
use crate::{cpu, cuda, Scalar};
use cusci_core::array::layout::broadcast_shapes;
use cusci_core::error::make;
use cusci_core::{Array, Backend, Error, Result};

/// Lower Cholesky factor `L` of a Hermitian positive-definite matrix, `a = L Lᴴ` (NumPy's
/// `linalg.cholesky`): only the lower triangle of `a` is read, and of the diagonal only the real
/// part (LAPACK's `potrf`, on both devices). SciPy's form (upper by default) is
/// [`scipy::cholesky`](crate::scipy::cholesky).
///
/// # Errors
/// `InvalidArgument` when not square or for NaN/infinity in `a` (SciPy's `check_finite`);
/// `NotPositiveDefinite { index }` (the order of the first
/// leading minor that is not positive definite, or for a stack the index of the first failing
/// matrix). Synchronises on the GPU (to read `info`).
///
/// ```
/// use cusci_linalg::{cholesky, Array, Device};
/// let a = Array::from_vec(vec![4.0f64, 2.0, 2.0, 5.0], &[2, 2], &Device::Cpu)?;
/// assert_eq!(cholesky(&a)?.to_vec()?, vec![2.0, 0.0, 1.0, 2.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn cholesky<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    Ok(Cholesky::new(a, true)?.factor())
}

/// A Cholesky factorisation `a = L Lᴴ` (or `Uᴴ U`), factored once to solve many right-hand sides
/// (SciPy's `cho_factor`/`cho_solve`).
#[derive(Debug, Clone)]
pub struct Cholesky<T: Scalar> {
    l: Array<T>,
    lower: bool,
}

impl<T: Scalar> Cholesky<T> {
    /// Factors `a` (`(..., N, N)`), reading its lower (`lower`) or upper triangle.
    ///
    /// # Errors
    /// As [`cholesky`].
    pub fn new(a: &Array<T>, lower: bool) -> Result<Cholesky<T>> {
        let op = "cholesky";
        let (batch, n) = square_dims(op, a)?;
        let count = prod(&batch);
        let batched = !batch.is_empty();
        let l = match a.backend() {
            Backend::Host(_) => {
                crate::util::check_finite(op, a)?;
                if count == 0 || n == 0 {
                    return Ok(Cholesky {
                        l: a.copy()?,
                        lower,
                    });
                }
                let av = a.to_vec()?;
                let r = cpu_map(&av, count, n * n, |i, m| {
                    let l =
                        cpu::cholesky(m, n, lower).map_err(|z| not_pd(op, which(batched, i, z)))?;
                    if lower {
                        return Ok(l);
                    }
                    // U = Lᴴ
                    let mut u = vec![T::zero(); n * n];
                    for i in 0..n {
                        for j in 0..n {
                            u[j * n + i] = l[i * n + j].conj();
                        }
                    }
                    Ok(u)
                })?;
                cpu_array(r.concat(), a.shape())?
            }
            // the finiteness check is fused into the copy that potrf overwrites
            Backend::Cuda(_) if count == 0 || n == 0 => a.copy()?,
            Backend::Cuda(c) => cuda::decomp::cholesky(c.dev(), a, lower, &batch, n)?,
        };
        Ok(Cholesky { l, lower })
    }

    /// The factor: `L` (lower) or `U = Lᴴ` (upper), the other triangle zero.
    pub fn factor(&self) -> Array<T> {
        self.l.clone()
    }

    /// Whether the factor is lower triangular.
    pub fn lower(&self) -> bool {
        self.lower
    }

    /// Solves `a x = b` (SciPy's `cho_solve`); `b` is `(N,)` or `(..., N, K)` with the factor's
    /// batch (or broadcast against it).
    ///
    /// # Errors
    /// `ShapeMismatch` for a mismatched `b`.
    pub fn solve(&self, b: &Array<T>) -> Result<Array<T>> {
        let op = "cho_solve";
        same_device(op, &self.l, b)?;
        crate::util::check_finite(op, b)?;
        let (batch_a, n) = square_dims(op, &self.l)?;
        let vector = b.ndim() == 1;
        let b2 = if vector { b.expand_dims(1)? } else { b.clone() };
        let (bb, nb, k) = mat_dims(op, &b2)?;
        if nb != n {
            return Err(make::shape(
                op,
                format!("factor is {:?} but b is {:?}", self.l.shape(), b.shape()),
            ));
        }
        let batch = broadcast_shapes(op, &batch_a, &bb)?;
        let count = prod(&batch);
        let out_shape = cat(&batch, &[n, k]);
        // the lower factor L with a = L Lᴴ
        let l = if self.lower {
            self.l.clone()
        } else {
            self.l.swapaxes(-1, -2)?.conj()?
        };
        let x = if count == 0 || n == 0 || k == 0 {
            Array::zeros(&out_shape, b.device())?
        } else {
            match b.backend() {
                Backend::Host(_) => {
                    let lv = l.broadcast_to(&cat(&batch, &[n, n]))?.to_vec()?;
                    let bv = b2.broadcast_to(&out_shape)?.to_vec()?;
                    let xs = cpu_map(&lv, count, n * n, |i, l| {
                        let mut x = bv[i * n * k..(i + 1) * n * k].to_vec();
                        cho_solve_inplace(l, n, &mut x, k);
                        Ok(x)
                    })?;
                    cpu_array(xs.concat(), &out_shape)?
                }
                Backend::Cuda(c) => cuda::decomp::cho_solve(c.dev(), &l, &b2, &batch)?,
            }
        };
        if vector {
            return x.index_axis(-1, 0);
        }
        Ok(x)
    }
}

fn cho_solve_inplace<T: Scalar>(l: &[T], n: usize, b: &mut [T], k: usize) {
    for i in 0..n {
        for j in 0..i {
            let v = l[i * n + j];
            for c in 0..k {
                b[i * k + c] = b[i * k + c] - v * b[j * k + c];
            }
        }
        let d = l[i * n + i];
        for c in 0..k {
            b[i * k + c] = b[i * k + c] / d;
        }
    }
    for i in (0..n).rev() {
        for j in i + 1..n {
            let v = l[j * n + i].conj();
            for c in 0..k {
                b[i * k + c] = b[i * k + c] - v * b[j * k + c];
            }
        }
        let d = l[i * n + i].conj();
        for c in 0..k {
            b[i * k + c] = b[i * k + c] / d;
        }
    }
}

/// SciPy's `cho_factor`: [`Cholesky::new`] (`lower = false` is SciPy's default).
///
/// # Errors
/// As [`cholesky`].
///
/// ```
/// use cusci_linalg::{cho_factor, cho_solve, Array, Device};
/// let a = Array::from_vec(vec![4.0f64, 2.0, 2.0, 5.0], &[2, 2], &Device::Cpu)?;
/// let c = cho_factor(&a, false)?;
/// let x = cho_solve(&c, &Array::from_vec(vec![6.0f64, 7.0], &[2], &Device::Cpu)?)?.to_vec()?;
/// assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 1.0).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn cho_factor<T: Scalar>(a: &Array<T>, lower: bool) -> Result<Cholesky<T>> {
    Cholesky::new(a, lower)
}

/// SciPy's `cho_solve`: [`Cholesky::solve`].
///
/// # Errors
/// As [`Cholesky::solve`].
pub fn cho_solve<T: Scalar>(c: &Cholesky<T>, b: &Array<T>) -> Result<Array<T>> {
    c.solve(b)
}

/// QR decomposition `a = q r` of `(..., M, N)` arrays (NumPy's `linalg.qr`).
///
/// The signs of `q`'s columns and `r`'s rows may differ between the devices (the factorisation
/// is unique only up to them; the GPU's are LAPACK's). GPU: cuSOLVER's `Xgeqrf` on the
/// column-major copy of `a`, then `orgqr`/`ungqr` in place; synchronises (to read `info`).
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions.
///
/// ```
/// use cusci_linalg::{qr, QrMode, Array, Device};
/// let a = Array::from_vec(vec![3.0f64, 0.0, 4.0, 0.0], &[2, 2], &Device::Cpu)?;
/// let f = qr(&a, QrMode::Reduced)?;
/// assert!((f.r.to_vec()?[0].abs() - 5.0).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn qr<T: Scalar>(a: &Array<T>, mode: QrMode) -> Result<Qr<T>> {
    let op = "qr";
    let (batch, m, n) = mat_dims(op, a)?;
    crate::util::check_finite(op, a)?;
    let k = m.min(n);
    let (qc, rr) = match mode {
        QrMode::Complete => (m, m),
        _ => (k, k),
    };
    let count = prod(&batch);
    let q_shape = cat(&batch, &[m, qc]);
    let r_shape = cat(&batch, &[rr, n]);
    if let Backend::Cuda(c) = a.backend() {
        return cuda::decomp::qr(c.dev(), a, mode, &batch, m, n);
    }
    let av = a.to_vec()?;
    let r = cpu_map(&av, count, m * n, |_, x| {
        if m == 0 || n == 0 {
            let q: Vec<T> = (0..m * qc)
                .map(|i| {
                    if i / qc == i % qc {
                        T::one()
                    } else {
                        T::zero()
                    }
                })
                .collect();
            return Ok((q, vec![T::zero(); rr * n]));
        }
        let f = cpu::view(x, m, n).qr();
        let q = if mode == QrMode::Complete {
            f.compute_Q()
        } else {
            f.compute_thin_Q()
        };
        let rf = f.R();
        let mut rv = vec![T::zero(); rr * n];
        for i in 0..rr.min(rf.nrows()) {
            for j in i..n {
                rv[i * n + j] = rf[(i, j)];
            }
        }
        Ok((cpu::owned_rows(&q), rv))
    })?;
    let (qs, rs): (Vec<_>, Vec<_>) = r.into_iter().unzip();
    Ok(Qr {
        q: if mode == QrMode::R {
            None
        } else {
            Some(cpu_array(qs.concat(), &q_shape)?)
        },
        r: cpu_array(rs.concat(), &r_shape)?,
    })
}

/// Singular value decomposition of `(..., M, N)` arrays (NumPy's `linalg.svd`).
///
/// Singular vectors are unique only up to a phase per pair (and within repeated singular values):
/// compare reconstructions, not vectors.
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions; `NoConvergence` when the iteration fails.
/// Synchronises on the GPU (to read `info`).
///
/// ```
/// use cusci_linalg::{svd, SvdOptions, Array, Device};
/// let a = Array::from_vec(vec![3.0f64, 0.0, 0.0, -4.0], &[2, 2], &Device::Cpu)?;
/// let r = svd(&a, SvdOptions::default())?;
/// assert_eq!(r.s.to_vec()?, vec![4.0, 3.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn svd<T: Scalar>(a: &Array<T>, opts: SvdOptions) -> Result<Svd<T>> {
    let op = "svd";
    let (batch, m, n) = mat_dims(op, a)?;
    crate::util::check_finite(op, a)?;
    let k = m.min(n);
    let count = prod(&batch);
    let (uc, vr) = if opts.full_matrices { (m, n) } else { (k, k) };
    let u_shape = cat(&batch, &[m, uc]);
    let vh_shape = cat(&batch, &[vr, n]);
    let s_shape = cat(&batch, &[k]);
    let eye = |r: usize, c: usize| -> Result<Array<T>> {
        Array::<T>::eye(r, Some(c), 0, a.device())?
            .broadcast_to(&cat(&batch, &[r, c]))?
            .copy()
    };
    if count == 0 || k == 0 {
        return Ok(Svd {
            u: if opts.compute_uv {
                Some(eye(m, uc)?)
            } else {
                None
            },
            s: Array::zeros(&s_shape, a.device())?,
            vh: if opts.compute_uv {
                Some(eye(vr, n)?)
            } else {
                None
            },
        });
    }
    match a.backend() {
        Backend::Cuda(c) => cuda::decomp::svd(c.dev(), a, opts, &batch, m, n),
        Backend::Host(_) => {
            let av = a.to_vec()?;
            let r = cpu_map(&av, count, m * n, |_, x| {
                let v = cpu::view(x, m, n);
                if !opts.compute_uv {
                    let s = v.singular_values().map_err(|_| no_conv(op, 1))?;
                    return Ok((Vec::new(), cpu::reals::<T>(s), Vec::new()));
                }
                let f = if opts.full_matrices {
                    v.svd()
                } else {
                    v.thin_svd()
                }
                .map_err(|_| no_conv(op, 1))?;
                let s: Vec<T::R> = (0..k).map(|i| f.S().column_vector()[i].re()).collect();
                let u = cpu::rows(f.U());
                let vh = cpu::rows(f.V().adjoint().to_owned().as_ref());
                Ok((u, s, vh))
            })?;
            let mut us = Vec::new();
            let mut ss = Vec::new();
            let mut vs = Vec::new();
            for (u, s, v) in r {
                us.extend(u);
                ss.extend(s);
                vs.extend(v);
            }
            Ok(Svd {
                u: if opts.compute_uv {
                    Some(cpu_array(us, &u_shape)?)
                } else {
                    None
                },
                s: cpu_array(ss, &s_shape)?,
                vh: if opts.compute_uv {
                    Some(cpu_array(vs, &vh_shape)?)
                } else {
                    None
                },
            })
        }
    }
}

/// Eigenvalues (ascending) and eigenvectors (columns) of Hermitian matrices (NumPy's
/// `linalg.eigh`): only the lower (`lower`, NumPy's `UPLO='L'`) or upper triangle is read, and
/// of the diagonal only the real part (as LAPACK: an imaginary part there is ignored).
///
/// # Errors
/// `InvalidArgument` when not square; `NoConvergence`. Synchronises on the GPU.
///
/// ```
/// use cusci_linalg::{eigh, Array, Device};
/// let a = Array::from_vec(vec![2.0f64, 1.0, 1.0, 2.0], &[2, 2], &Device::Cpu)?;
/// let (w, _v) = eigh(&a, true)?;
/// let w = w.to_vec()?;
/// assert!((w[0] - 1.0).abs() < 1e-12 && (w[1] - 3.0).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn eigh<T: Scalar>(a: &Array<T>, lower: bool) -> Result<(Array<T::R>, Array<T>)> {
    let (w, v) = eigh_impl(a, lower, true)?;
    let v = v.ok_or_else(|| make::arg("eigh", "eigenvectors missing"))?;
    Ok((w, v))
}

/// Eigenvalues (ascending) of Hermitian matrices (NumPy's `linalg.eigvalsh`); reads the same
/// triangle and real diagonal as [`eigh`].
///
/// # Errors
/// As [`eigh`].
///
/// ```
/// use cusci_linalg::{eigvalsh, Array, Device};
/// let a = Array::from_vec(vec![2.0f32, 0.0, 0.0, 1.0], &[2, 2], &Device::Cpu)?;
/// assert_eq!(eigvalsh(&a, true)?.to_vec()?, vec![1.0, 2.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn eigvalsh<T: Scalar>(a: &Array<T>, lower: bool) -> Result<Array<T::R>> {
    Ok(eigh_impl(a, lower, false)?.0)
}

#[allow(clippy::type_complexity)]
pub(crate) fn eigh_impl<T: Scalar>(
    a: &Array<T>,
    lower: bool,
    vectors: bool,
) -> Result<(Array<T::R>, Option<Array<T>>)> {
    let op = if vectors { "eigh" } else { "eigvalsh" };
    let (batch, n) = square_dims(op, a)?;
    crate::util::check_finite(op, a)?;
    let count = prod(&batch);
    let w_shape = cat(&batch, &[n]);
    if count == 0 || n == 0 {
        return Ok((
            Array::zeros(&w_shape, a.device())?,
            if vectors { Some(a.copy()?) } else { None },
        ));
    }
    match a.backend() {
        Backend::Cuda(c) => cuda::decomp::eigh(c.dev(), a, lower, vectors, &batch, n),
        Backend::Host(_) => {
            let av = a.to_vec()?;
            let r = cpu_map(&av, count, n * n, |_, x| {
                // LAPACK reads only the real part of the diagonal; faer reads all of it
                let x = &cpu::real_diagonal(x, n);
                let v = cpu::view(x, n, n);
                let side = cpu::side(lower);
                if !vectors {
                    let w = v
                        .self_adjoint_eigenvalues(side)
                        .map_err(|_| no_conv(op, 1))?;
                    return Ok((cpu::reals::<T>(w), Vec::new()));
                }
                let e = v.self_adjoint_eigen(side).map_err(|_| no_conv(op, 1))?;
                let w: Vec<T::R> = (0..n).map(|i| e.S().column_vector()[i].re()).collect();
                Ok((w, cpu::rows(e.U())))
            })?;
            let mut ws = Vec::new();
            let mut vs = Vec::new();
            for (w, v) in r {
                ws.extend(w);
                vs.extend(v);
            }
            Ok((
                cpu_array(ws, &w_shape)?,
                if vectors {
                    Some(cpu_array(vs, a.shape())?)
                } else {
                    None
                },
            ))
        }
    }
}

/// Solves `a x = b` for a triangular `a` (SciPy's `linalg.solve_triangular`); only the triangle
/// `opts.lower` names is read. `a` is `(..., N, N)`, `b` `(N,)` or `(..., N, K)`. GPU: cuBLAS
/// `trsm` on the storage of `a` (its column-major transpose: the other triangle with the
/// transposed operation, no copy of `a`).
///
/// # Errors
/// `InvalidArgument` for a non-square `a`, `trans > 2`, or NaN/infinity in `a` or `b` (SciPy's
/// `check_finite`); `ShapeMismatch` for a mismatched `b`;
/// `Singular { index }` for a zero on the diagonal (synchronises on the GPU to check it).
///
/// ```
/// use cusci_linalg::{solve_triangular, TriangularOptions, Array, Device};
/// let a = Array::from_vec(vec![2.0f64, 1.0, 0.0, 4.0], &[2, 2], &Device::Cpu)?;
/// let x = solve_triangular(&a, &Array::from_vec(vec![4.0f64, 8.0], &[2], &Device::Cpu)?, TriangularOptions::default())?;
/// assert_eq!(x.to_vec()?, vec![1.0, 2.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn solve_triangular<T: Scalar>(
    a: &Array<T>,
    b: &Array<T>,
    opts: TriangularOptions,
) -> Result<Array<T>> {
    let op = "solve_triangular";
    same_device(op, a, b)?;
    if opts.trans > 2 {
        return Err(make::arg(
            op,
            format!("trans must be 0, 1 or 2, got {}", opts.trans),
        ));
    }
    let (ba, n) = square_dims(op, a)?;
    let vector = b.ndim() == 1;
    let b2 = if vector { b.expand_dims(1)? } else { b.clone() };
    let (bb, nb, k) = mat_dims(op, &b2)?;
    if nb != n {
        return Err(make::shape(
            op,
            format!("a is {:?} but b is {:?}", a.shape(), b.shape()),
        ));
    }
    let batch = broadcast_shapes(op, &ba, &bb)?;
    crate::util::check_finite(op, a)?;
    crate::util::check_finite(op, b)?;
    let count = prod(&batch);
    let out_shape = cat(&batch, &[n, k]);
    let batched = !batch.is_empty();
    let x = if count == 0 || n == 0 || k == 0 {
        Array::zeros(&out_shape, a.device())?
    } else {
        let ab = a.broadcast_to(&cat(&batch, &[n, n]))?;
        match a.backend() {
            Backend::Host(_) => {
                let av = ab.to_vec()?;
                if !opts.unit_diagonal {
                    let zero = (0..count * n)
                        .find(|&z| av[(z / n) * n * n + (z % n) * (n + 1)] == T::zero());
                    if let Some(z) = zero {
                        return Err(Error::Singular {
                            op: op.into(),
                            index: which(batched, z / n, z % n),
                        });
                    }
                }
                let bv = b2.broadcast_to(&out_shape)?.to_vec()?;
                let xs = cpu_map(&av, count, n * n, |i, m| {
                    let mut x = bv[i * n * k..(i + 1) * n * k].to_vec();
                    tri_solve_inplace(m, n, &mut x, k, opts);
                    Ok(x)
                })?;
                cpu_array(xs.concat(), &out_shape)?
            }
            Backend::Cuda(c) => cuda::decomp::solve_triangular(c.dev(), &ab, &b2, &batch, opts)?,
        }
    };
    if vector {
        return x.index_axis(-1, 0);
    }
    Ok(x)
}

/// Substitution with the triangle `opts` names of the row-major `a`; `b` row-major `n x k`.
fn tri_solve_inplace<T: Scalar>(a: &[T], n: usize, b: &mut [T], k: usize, opts: TriangularOptions) {
    // the effective matrix op(a) and whether it is lower triangular
    let at = |i: usize, j: usize| -> T {
        match opts.trans {
            0 => a[i * n + j],
            1 => a[j * n + i],
            _ => a[j * n + i].conj(),
        }
    };
    let eff_lower = opts.lower == (opts.trans == 0);
    let order: Vec<usize> = if eff_lower {
        (0..n).collect()
    } else {
        (0..n).rev().collect()
    };
    for &i in &order {
        let range: Vec<usize> = if eff_lower {
            (0..i).collect()
        } else {
            (i + 1..n).collect()
        };
        for j in range {
            let v = at(i, j);
            for c in 0..k {
                b[i * k + c] = b[i * k + c] - v * b[j * k + c];
            }
        }
        if !opts.unit_diagonal {
            let d = at(i, i);
            for c in 0..k {
                b[i * k + c] = b[i * k + c] / d;
            }
        }
    }
}

/// SciPy's `linalg.qr(a, mode='raw')`: LAPACK's `geqrf` output ([`qr_raw`]'s result).
#[derive(Debug, Clone)]
pub struct QrRaw<T: Scalar> {
    /// `(..., M, N)`: `R` on and above the diagonal, the Householder vectors `v_j` (with an
    /// implicit 1 on the diagonal) below it.
    pub h: Array<T>,
    /// `(..., K)` with `K = min(M, N)`: the reflectors' scalars, `Q = H_1 H_2 ... H_K` with
    /// `H_j = I - tau_j v_j v_jᴴ`.
    pub tau: Array<T>,
    /// `(..., K, N)`: the upper-trapezoidal factor (SciPy's `r` of `mode='raw'`).
    pub r: Array<T>,
}

/// The QR factorisation in LAPACK's compact form (SciPy's `qr(a, mode='raw')`, returned there as
/// `((h, tau), r)`). The reflectors follow LAPACK's `geqrf` (`beta = -sign(Re α)·‖(α, x)‖`), on
/// the CPU too (an unblocked Householder QR written out), so both devices agree up to rounding.
/// GPU: cuSOLVER's `Xgeqrf`; synchronises (to read `info`).
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions.
///
/// ```
/// use cusci_linalg::{qr_raw, Array, Device};
/// let a = Array::from_vec(vec![3.0f64, 4.0], &[2, 1], &Device::Cpu)?;
/// let f = qr_raw(&a)?;
/// assert!((f.r.to_vec()?[0] + 5.0).abs() < 1e-12 && (f.tau.to_vec()?[0] - 1.6).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn qr_raw<T: Scalar>(a: &Array<T>) -> Result<QrRaw<T>> {
    let op = "qr";
    let (batch, m, n) = mat_dims(op, a)?;
    crate::util::check_finite(op, a)?;
    let k = m.min(n);
    let count = prod(&batch);
    let shp = |v: &[usize]| v.iter().map(|&x| x as isize).collect::<Vec<_>>();
    let h_shape = cat(&batch, &[m, n]);
    let tau_shape = cat(&batch, &[k]);
    let finish = |h: Array<T>, tau: Array<T>| -> Result<QrRaw<T>> {
        let r = tri(&h.slice_axis(-2, Some(0), Some(k as isize), 1)?, 0, false)?;
        Ok(QrRaw { h, tau, r })
    };
    if count == 0 || k == 0 {
        return finish(a.copy()?, Array::zeros(&tau_shape, a.device())?);
    }
    match a.backend() {
        Backend::Host(_) => {
            let av = a.to_vec()?;
            let r = cpu_map(&av, count, m * n, |_, x| {
                let mut h = x.to_vec();
                let tau = householder_qr(&mut h, m, n);
                Ok((h, tau))
            })?;
            let mut hs = Vec::with_capacity(count * m * n);
            let mut ts = Vec::with_capacity(count * k);
            for (h, t) in r {
                hs.extend(h);
                ts.extend(t);
            }
            finish(cpu_array(hs, &h_shape)?, cpu_array(ts, &tau_shape)?)
        }
        Backend::Cuda(c) => {
            let (h, tau) = cuda::decomp::qr_raw(c.dev(), a, count, m, n)?;
            finish(h, tau.reshape(&shp(&tau_shape))?)
        }
    }
}

/// Unblocked Householder QR of a row-major `m x n` matrix in place, in LAPACK's `geqr2`
/// convention (`zlarfg`'s reflectors, `Hᴴ` applied to the trailing columns); returns `tau`.
fn householder_qr<T: Scalar>(a: &mut [T], m: usize, n: usize) -> Vec<T> {
    (0..m.min(n))
        .map(|j| householder_column(a, m, n, j))
        .collect()
}

/// Step `j` of a Householder QR of a row-major `m x n` matrix in place (`zlarfg`'s reflector of
/// column `j` below the diagonal, `Hᴴ` applied to columns `j+1..n`); returns its `tau` (zero:
/// `H = I`).
pub(crate) fn householder_column<T: Scalar>(a: &mut [T], m: usize, n: usize, j: usize) -> T {
    use cusci_core::RealFloat;
    let r = |x: f64| T::from_real(<T::R as RealFloat>::from_f64(x));
    let alpha = a[j * n + j];
    let xnorm2: f64 = (j + 1..m).map(|i| a[i * n + j].abs2().to_f64()).sum();
    let (ar, ai) = (alpha.re().to_f64(), alpha.im().to_f64());
    if xnorm2 == 0.0 && ai == 0.0 {
        return T::zero();
    }
    let norm = (ar * ar + ai * ai + xnorm2).sqrt();
    let beta = if ar >= 0.0 { -norm } else { norm };
    // tau = (beta - alpha) / beta (real part (beta - ar)/beta, imaginary -ai/beta)
    let t = (r(beta) - alpha) / r(beta);
    let scale = T::one() / (alpha - r(beta));
    for i in j + 1..m {
        a[i * n + j] = a[i * n + j] * scale;
    }
    a[j * n + j] = r(beta);
    // apply Hᴴ = I - conj(tau) v vᴴ to columns j+1..n
    let tc = t.conj();
    for c in j + 1..n {
        let mut w = a[j * n + c];
        for i in j + 1..m {
            w = w + a[i * n + j].conj() * a[i * n + c];
        }
        let s = tc * w;
        a[j * n + c] = a[j * n + c] - s;
        for i in j + 1..m {
            a[i * n + c] = a[i * n + c] - a[i * n + j] * s;
        }
    }
    t
}
