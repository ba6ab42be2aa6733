//! The CPU reference: LU with LAPACK's pivoting written out (so that pivots and the first zero
//! pivot match `getrf`), everything else through faer. Every function works on one row-major
//! matrix; the callers map them over stacks with rayon.

use crate::Scalar;

use crate::shared::no_conv;
use crate::util::{cpu_array, cpu_map};
use cusci_core::{Array, Float, Result};
use faer::{Mat, MatRef, Side};

#[inline]
pub(crate) fn abs1<T: Scalar>(x: T) -> f64 {
    use cusci_core::RealFloat;
    x.re().to_f64().abs() + x.im().to_f64().abs()
}

/// In-place LU with partial pivoting of a row-major `m x n` matrix (LAPACK `getrf`): `piv[k]` is
/// the row swapped with row `k` (0-based). Returns the first zero pivot, if any (the
/// factorisation still completes, as LAPACK's does).
pub(crate) fn lu_inplace<T: Scalar>(
    a: &mut [T],
    m: usize,
    n: usize,
    piv: &mut [usize],
) -> Option<usize> {
    let mut info = None;
    for k in 0..m.min(n) {
        let mut p = k;
        let mut best = abs1(a[k * n + k]);
        for i in k + 1..m {
            let v = abs1(a[i * n + k]);
            if v > best || (best.is_nan() && !v.is_nan()) {
                best = v;
                p = i;
            }
        }
        piv[k] = p;
        if best == 0.0 {
            info.get_or_insert(k);
            continue;
        }
        if p != k {
            for j in 0..n {
                a.swap(k * n + j, p * n + j);
            }
        }
        let d = a[k * n + k];
        let (top, bottom) = a.split_at_mut((k + 1) * n);
        let row_k = &top[k * n..];
        for i in 0..m - k - 1 {
            let row = &mut bottom[i * n..(i + 1) * n];
            let l = row[k] / d;
            row[k] = l;
            if l != T::zero() {
                for j in k + 1..n {
                    row[j] = row[j] - l * row_k[j];
                }
            }
        }
    }
    info
}

/// Solves with a packed LU (`lu_inplace`'s output) in place: `b` is row-major `n x k`.
/// `trans`: 0 `A x = b`, 1 `Aᵀ x = b`, 2 `Aᴴ x = b`.
pub(crate) fn lu_solve_inplace<T: Scalar>(
    lu: &[T],
    piv: &[usize],
    n: usize,
    b: &mut [T],
    k: usize,
    trans: u8,
) {
    let at = |i: usize, j: usize| -> T {
        match trans {
            0 => lu[i * n + j],
            1 => lu[j * n + i],
            _ => lu[j * n + i].conj(),
        }
    };
    let swap_rows = |b: &mut [T], r: usize, s: usize| {
        if r != s {
            for c in 0..k {
                b.swap(r * k + c, s * k + c);
            }
        }
    };
    if trans == 0 {
        for (r, &p) in piv.iter().enumerate().take(n) {
            swap_rows(b, r, p);
        }
        // L (unit lower) forward
        for i in 0..n {
            for j in 0..i {
                let l = at(i, j);
                if l != T::zero() {
                    for c in 0..k {
                        b[i * k + c] = b[i * k + c] - l * b[j * k + c];
                    }
                }
            }
        }
        // U backward
        for i in (0..n).rev() {
            for j in i + 1..n {
                let u = at(i, j);
                if u != T::zero() {
                    for c in 0..k {
                        b[i * k + c] = b[i * k + c] - u * b[j * k + c];
                    }
                }
            }
            let d = at(i, i);
            for c in 0..k {
                b[i * k + c] = b[i * k + c] / d;
            }
        }
    } else {
        // (P L U)ᵀ = Uᵀ Lᵀ Pᵀ: Uᵀ is lower (non-unit), Lᵀ upper (unit)
        for i in 0..n {
            for j in 0..i {
                let u = at(i, j);
                if u != T::zero() {
                    for c in 0..k {
                        b[i * k + c] = b[i * k + c] - u * b[j * k + c];
                    }
                }
            }
            let d = at(i, i);
            for c in 0..k {
                b[i * k + c] = b[i * k + c] / d;
            }
        }
        for i in (0..n).rev() {
            for j in i + 1..n {
                let l = at(i, j);
                if l != T::zero() {
                    for c in 0..k {
                        b[i * k + c] = b[i * k + c] - l * b[j * k + c];
                    }
                }
            }
        }
        for r in (0..n).rev() {
            swap_rows(b, r, piv[r]);
        }
    }
}

/// A faer view of a row-major matrix.
pub(crate) fn view<T: Scalar>(a: &[T], m: usize, n: usize) -> MatRef<'_, T> {
    MatRef::from_row_major_slice(a, m, n)
}

/// A copy of the row-major `n x n` matrix `a` with the imaginary part of its diagonal dropped
/// (what LAPACK's Hermitian routines read).
pub(crate) fn real_diagonal<T: Scalar>(a: &[T], n: usize) -> Vec<T> {
    let mut v = a.to_vec();
    if T::DTYPE.is_complex() {
        for i in 0..n {
            v[i * n + i] = T::from_real(v[i * n + i].re());
        }
    }
    v
}

/// Row-major copy of a faer matrix.
pub(crate) fn rows<T: Scalar>(m: MatRef<'_, T>) -> Vec<T> {
    let mut v = Vec::with_capacity(m.nrows() * m.ncols());
    for i in 0..m.nrows() {
        for j in 0..m.ncols() {
            v.push(m[(i, j)]);
        }
    }
    v
}

/// `c = a @ b` for row-major `a` (m x k) and `b` (k x n), sequential (the callers parallelise
/// over stacks, or over row blocks for one large product).
pub(crate) fn matmul<T: Scalar>(a: &[T], b: &[T], m: usize, k: usize, n: usize, c: &mut [T]) {
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        c.fill(T::zero());
        return;
    }
    let dst = faer::MatMut::from_row_major_slice_mut(c, m, n);
    faer::linalg::matmul::matmul(
        dst,
        faer::Accum::Replace,
        view(a, m, k),
        view(b, k, n),
        T::one(),
        faer::Par::Seq,
    );
}

pub(crate) fn side(lower: bool) -> Side {
    if lower {
        Side::Lower
    } else {
        Side::Upper
    }
}

/// Lower Cholesky factor of a row-major Hermitian matrix (reading the triangle `lower` says), or the
/// order (1-based) of the first leading minor that is not positive definite.
pub(crate) fn cholesky<T: Scalar>(a: &[T], n: usize, lower: bool) -> Result<Vec<T>, usize> {
    if n == 0 {
        return Ok(Vec::new());
    }
    // LAPACK's potrf reads only the real part of the diagonal; faer reads all of it
    let a = &real_diagonal(a, n);
    match view(a, n, n).llt(side(lower)) {
        Ok(f) => {
            let l = f.L();
            let mut v = vec![T::zero(); n * n];
            for i in 0..n {
                for j in 0..=i {
                    v[i * n + j] = l[(i, j)];
                }
            }
            Ok(v)
        }
        Err(faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index }) => {
            Err(index + 1)
        }
    }
}

/// Converts a faer real vector.
pub(crate) fn reals<T: Scalar>(v: Vec<<T as faer::traits::ComplexField>::Real>) -> Vec<T::R> {
    v.into_iter().map(T::from_faer_real).collect()
}

pub(crate) fn owned_rows<T: Scalar>(m: &Mat<T>) -> Vec<T> {
    rows(m.as_ref())
}

/// The first zero pivot of a single singular matrix as the CPU's LU (of A, partial pivoting)
/// finds it: the GPU reports it too, on its error path only (the GPU factors the transposed
/// storage, or the rows in another order, whose first zero pivot can be another one), so that
/// the error is the same on both devices.
pub(crate) fn cpu_pivot<T: Scalar>(a: &Array<T>, n: usize) -> Result<usize> {
    let mut lu = a.to_vec()?;
    let mut piv = vec![0; n];
    Ok(lu_inplace(&mut lu, n, n, &mut piv).unwrap_or(0))
}

/// `eig` on the CPU (faer) of the `count` matrices `n x n` of `a` (none empty).
#[allow(clippy::type_complexity)]
pub(crate) fn eig_cpu<T: Scalar>(
    op: &str,
    a: &Array<T>,
    vectors: bool,
    count: usize,
    n: usize,
    w_shape: &[usize],
    v_shape: &[usize],
) -> Result<(Array<T::C>, Option<Array<T::C>>)> {
    let av = a.to_vec()?;
    let c = |z: num_complex::Complex<<T as faer::traits::ComplexField>::Real>| {
        T::cplx(T::from_faer_real(z.re), T::from_faer_real(z.im))
    };
    let r = cpu_map(&av, count, n * n, |_, x| {
        let m = view(x, n, n);
        if !vectors {
            let w = m.eigenvalues().map_err(|_| no_conv(op, 1))?;
            return Ok((w.into_iter().map(c).collect::<Vec<_>>(), Vec::new()));
        }
        let e = m.eigen().map_err(|_| no_conv(op, 1))?;
        let w: Vec<T::C> = (0..n)
            .map(|i| c(e.S().column_vector()[i].clone()))
            .collect();
        let u = e.U();
        let mut v: Vec<T::C> = Vec::with_capacity(n * n);
        for i in 0..n {
            for j in 0..n {
                v.push(c(u[(i, j)].clone()));
            }
        }
        // unit 2-norm columns (LAPACK's normalisation; faer's may differ by a scale)
        for j in 0..n {
            let s: f64 = (0..n)
                .map(|i| {
                    let z = v[i * n + j];
                    let (re, im) = (re64::<T>(z.re()), re64::<T>(z.im()));
                    re * re + im * im
                })
                .sum::<f64>()
                .sqrt();
            if s > 0.0 {
                let inv: T::C = T::cplx(real::<T>(1.0 / s), real::<T>(0.0));
                for i in 0..n {
                    v[i * n + j] = v[i * n + j] * inv;
                }
            }
        }
        Ok((w, v))
    })?;
    let mut ws = Vec::with_capacity(count * n);
    let mut vs = Vec::with_capacity(if vectors { count * n * n } else { 0 });
    for (w, v) in r {
        ws.extend(w);
        vs.extend(v);
    }
    let v = if vectors {
        Some(cpu_array(vs, v_shape)?)
    } else {
        None
    };
    Ok((cpu_array(ws, w_shape)?, v))
}

fn re64<T: Scalar>(x: T::R) -> f64 {
    use cusci_core::RealFloat;
    x.to_f64()
}

fn real<T: Scalar>(x: f64) -> T::R {
    use cusci_core::RealFloat;
    <T::R as RealFloat>::from_f64(x)
}
