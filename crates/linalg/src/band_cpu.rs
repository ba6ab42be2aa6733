//! The CPU reference of the banded solvers, one system per call (the front end maps them over
//! stacks with rayon): LAPACK's `gbtrf`/`gbtrs` (LU with partial pivoting in band storage) and
//! `pbtrf`/`pbtrs` (banded Cholesky), written out in `O(n · bw²)` with the same pivot choices and
//! operation order as the GPU kernels (`cuda/banded.cu`).

use crate::Scalar;
use cusci_core::host::{try_vec_filled, try_vec_zeroed};
use cusci_core::{c64, RealFloat, Result};

/// `|re| + |im|`, LAPACK's `i?amax` measure.
fn abs1<T: Scalar>(v: T) -> f64 {
    v.re().to_f64().abs() + v.im().to_f64().abs()
}

/// Solves `a x = b` for the band matrix `a` in SciPy's storage `ab` (`(l + u + 1) x n`
/// row-major, `ab[u + i - j, j] = a[i, j]`) and `b` (`n x k` row-major), overwriting `b` with
/// `x`. `Ok(Some(j))`: the first exactly zero pivot (`gbtrf`'s `info - 1`); `Err`: the scratch
/// band (`n (2l + u + 1)` elements) cannot be allocated. `n == 1` divides by the diagonal without
/// a check, as SciPy does.
pub(crate) fn gbsv<T: Scalar>(
    op: &str,
    ab: &[T],
    b: &mut [T],
    n: usize,
    l: usize,
    u: usize,
    k: usize,
) -> Result<Option<usize>> {
    if n == 0 {
        return Ok(None);
    }
    if n == 1 {
        let dg = ab[u];
        b.iter_mut().for_each(|v| *v = *v / dg);
        return Ok(None);
    }
    // column-major band with l extra rows for the fill-in: a[i, c] at w[c * ldw + i - c + kv]
    let kv = l + u;
    let ldw = 2 * l + u + 1;
    let mut w: Vec<T> = try_vec_zeroed(op, n.saturating_mul(ldw))?;
    for c in 0..n {
        for r in l..ldw {
            w[c * ldw + r] = ab[(r - l) * n + c];
        }
    }
    let at = |i: usize, c: usize| c * ldw + i + kv - c;
    let mut piv: Vec<usize> = try_vec_filled(op, n, 0)?;
    let mut ju = 0usize;
    let mut info = None;
    for j in 0..n {
        let km = l.min(n - 1 - j);
        let mut p = 0;
        let mut best = abs1(w[at(j, j)]);
        for t in 1..=km {
            let m = abs1(w[at(j + t, j)]);
            if m > best {
                best = m;
                p = t;
            }
        }
        piv[j] = j + p;
        if w[at(j + p, j)] == T::zero() {
            info.get_or_insert(j);
            continue;
        }
        ju = ju.max((j + u + p).min(n - 1));
        if p != 0 {
            for c in j..=ju {
                w.swap(at(j, c), at(j + p, c));
            }
        }
        let d = w[at(j, j)];
        for t in 1..=km {
            w[at(j + t, j)] = w[at(j + t, j)] / d;
        }
        for c in j + 1..=ju {
            let ujc = w[at(j, c)];
            for t in 1..=km {
                w[at(j + t, c)] = w[at(j + t, c)] - w[at(j + t, j)] * ujc;
            }
        }
    }
    if info.is_some() {
        return Ok(info);
    }
    for q in 0..k {
        for j in 0..n - 1 {
            let km = l.min(n - 1 - j);
            let pj = piv[j];
            let bj = b[pj * k + q];
            if pj != j {
                b[pj * k + q] = b[j * k + q];
                b[j * k + q] = bj;
            }
            for t in 1..=km {
                b[(j + t) * k + q] = b[(j + t) * k + q] - w[at(j + t, j)] * bj;
            }
        }
        for j in (0..n).rev() {
            let xj = b[j * k + q] / w[at(j, j)];
            b[j * k + q] = xj;
            for i in j.saturating_sub(kv)..j {
                b[i * k + q] = b[i * k + q] - w[at(i, j)] * xj;
            }
        }
    }
    Ok(None)
}

/// The lower factor's element `L[i, j]` (`j <= i <= j + kd`) of the Hermitian band storage `c`
/// (`(kd + 1) x n` row-major): lower storage holds it at `c[i - j, j]`, upper storage holds
/// `U[j, i] = conj(L[i, j])` at `c[kd + j - i, i]`.
fn pos(n: usize, kd: usize, lower: bool, i: usize, j: usize) -> usize {
    if lower {
        (i - j) * n + j
    } else {
        (kd + j - i) * n + i
    }
}

fn lget<T: Scalar>(c: &[T], n: usize, kd: usize, lower: bool, i: usize, j: usize) -> T {
    let v = c[pos(n, kd, lower, i, j)];
    if lower {
        v
    } else {
        v.conj()
    }
}

fn lset<T: Scalar>(c: &mut [T], n: usize, kd: usize, lower: bool, i: usize, j: usize, v: T) {
    c[pos(n, kd, lower, i, j)] = if lower { v } else { v.conj() };
}

/// Banded Cholesky in place (LAPACK's `pbtrf`): `a = L Lᴴ` (lower storage) or `Uᴴ U` (upper);
/// only the real part of the diagonal is read. Elements outside the band triangle (the unused
/// corner of the storage) are left as they are. `Err(j)`: the leading minor of order `j + 1` is
/// not positive definite.
pub(crate) fn pbtrf<T: Scalar>(
    c: &mut [T],
    n: usize,
    kd: usize,
    lower: bool,
) -> std::result::Result<(), usize> {
    for j in 0..n {
        let ajj = lget(c, n, kd, lower, j, j).re().to_f64();
        if ajj.is_nan() || ajj <= 0.0 {
            return Err(j);
        }
        let ljj = T::from_c64(c64::new(ajj.sqrt(), 0.0));
        lset(c, n, kd, lower, j, j, ljj);
        let m = kd.min(n - 1 - j);
        for i in j + 1..=j + m {
            let v = lget(c, n, kd, lower, i, j) / ljj;
            lset(c, n, kd, lower, i, j, v);
        }
        for cc in j + 1..=j + m {
            let lcj = lget(c, n, kd, lower, cc, j).conj();
            for i in cc..=j + m {
                let v = lget(c, n, kd, lower, i, cc) - lget(c, n, kd, lower, i, j) * lcj;
                lset(c, n, kd, lower, i, cc, v);
            }
        }
    }
    Ok(())
}

/// Solves `L Lᴴ x = b` (or `Uᴴ U x = b`) with the factor of [`pbtrf`] (LAPACK's `pbtrs`), `b`
/// `n x k` row-major, overwritten with `x`. The factor's diagonal is used as stored (a zero on
/// it gives infinities, as LAPACK's triangular solves).
pub(crate) fn pbtrs<T: Scalar>(c: &[T], b: &mut [T], n: usize, kd: usize, k: usize, lower: bool) {
    for q in 0..k {
        for i in 0..n {
            let mut s = b[i * k + q];
            for kk in i.saturating_sub(kd)..i {
                s = s - lget(c, n, kd, lower, i, kk) * b[kk * k + q];
            }
            b[i * k + q] = s / lget(c, n, kd, lower, i, i);
        }
        for i in (0..n).rev() {
            let mut s = b[i * k + q];
            for kk in i + 1..=(i + kd).min(n - 1) {
                s = s - lget(c, n, kd, lower, kk, i).conj() * b[kk * k + q];
            }
            b[i * k + q] = s / lget(c, n, kd, lower, i, i).conj();
        }
    }
}
