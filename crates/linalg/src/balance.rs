//! [`matrix_balance`] and [`matrix_balance_separate`]: LAPACK `gebal`'s permutation and
//! diagonal scaling (SciPy's `linalg.matrix_balance`).
//!
//! GPU: **hybrid**. `gebal` is a sequence of data-dependent searches and power-of-two scalings
//! that cuSOLVER does not offer; on a CUDA array the matrices are copied to the host, balanced
//! there (the same code as the CPU path, so both devices give the same bits), and the results
//! are copied back to the array's device.

use crate::nonsym::host_mats;
use crate::schur_cpu::Mat;
use crate::util::{cat, check_finite, prod, square_dims};
use crate::Scalar;
use cusci_core::{c64, Array, DType, Result};
use rayon::prelude::*;

/// One matrix balanced as LAPACK 3.12's `zgebal` does it (job `'B'`, `'P'`, `'S'` or `'N'`),
/// 0-based: returns `(scale, lo, hi)` with `scale` LAPACK's (`scale[i]` for `i < lo` and `i > hi`
/// the 0-based index of the interchanged row, otherwise the scaling factor), and `a` balanced in
/// place. `tiny` and `eps` are the element type's smallest normal number and `ε` (LAPACK's
/// `DLAMCH('S')` and `DLAMCH('P')`).
fn gebal(
    a: &mut Mat<c64>,
    permute: bool,
    scale: bool,
    tiny: f64,
    eps: f64,
) -> (Vec<f64>, usize, usize) {
    let n = a.r;
    let mut sc = vec![1.0f64; n];
    if n == 0 {
        return (sc, 0, 0);
    }
    if !permute && !scale {
        return (sc, 0, n - 1);
    }
    let nz = |z: c64| z.re != 0.0 || z.im != 0.0;
    // 1-based K and L as LAPACK; the helpers index 0-based
    let mut k: usize = 1;
    let mut l: usize = n;
    // swaps column j with column m (rows 1..l) and row j with row m (columns k..n)
    let exchange = |a: &mut Mat<c64>, j: usize, m: usize, k: usize, l: usize| {
        if j == m {
            return;
        }
        for i in 0..l {
            let t = a.at(i, j - 1);
            a.set(i, j - 1, a.at(i, m - 1));
            a.set(i, m - 1, t);
        }
        for c in k - 1..n {
            let t = a.at(j - 1, c);
            a.set(j - 1, c, a.at(m - 1, c));
            a.set(m - 1, c, t);
        }
    };
    if permute {
        // rows isolating an eigenvalue, pushed down
        let mut noconv = true;
        while noconv {
            noconv = false;
            let l0 = l;
            for i in (1..=l0).rev() {
                let canswap = (1..=l).all(|j| i == j || !nz(a.at(i - 1, j - 1)));
                if canswap {
                    sc[l - 1] = i as f64;
                    exchange(a, i, l, k, l);
                    noconv = true;
                    if l == 1 {
                        return (sc, 0, 0);
                    }
                    l -= 1;
                }
            }
        }
        // columns isolating an eigenvalue, pushed left
        let mut noconv = true;
        while noconv {
            noconv = false;
            let k0 = k;
            for j in k0..=l {
                let canswap = (k..=l).all(|i| i == j || !nz(a.at(i - 1, j - 1)));
                if canswap {
                    sc[k - 1] = j as f64;
                    exchange(a, j, k, k, l);
                    noconv = true;
                    k += 1;
                }
            }
        }
    }
    for s in sc.iter_mut().take(l).skip(k - 1) {
        *s = 1.0;
    }
    if !scale {
        return (sc, k - 1, l - 1);
    }
    const SCLFAC: f64 = 2.0;
    const FACTOR: f64 = 0.95;
    let sfmin1 = tiny / eps;
    let sfmax1 = 1.0 / sfmin1;
    let sfmin2 = sfmin1 * SCLFAC;
    let sfmax2 = 1.0 / sfmin2;
    let abs1 = |z: c64| z.re.abs() + z.im.abs();
    let mut noconv = true;
    while noconv {
        noconv = false;
        for i in k..=l {
            let (mut c, mut r) = (0.0f64, 0.0f64);
            for j in k..=l {
                c += a.at(j - 1, i - 1).norm_sqr();
                r += a.at(i - 1, j - 1).norm_sqr();
            }
            let (mut c, mut r) = (c.sqrt(), r.sqrt());
            // izamax: the first of largest |re| + |im|, then its modulus
            let amax = |it: &mut dyn Iterator<Item = c64>| {
                let mut best = (-1.0f64, c64::new(0.0, 0.0));
                for z in it {
                    if abs1(z) > best.0 {
                        best = (abs1(z), z);
                    }
                }
                best.1.norm()
            };
            let mut ca = amax(&mut (0..l).map(|j| a.at(j, i - 1)));
            let mut ra = amax(&mut (k - 1..n).map(|j| a.at(i - 1, j)));
            if c == 0.0 || r == 0.0 {
                continue;
            }
            let mut g = r / SCLFAC;
            let mut f = 1.0f64;
            let s = c + r;
            while c < g && f.max(c).max(ca) < sfmax2 && r.min(g).min(ra) > sfmin2 {
                f *= SCLFAC;
                c *= SCLFAC;
                ca *= SCLFAC;
                r /= SCLFAC;
                g /= SCLFAC;
                ra /= SCLFAC;
            }
            g = c / SCLFAC;
            while g >= r && r.max(ra) < sfmax2 && f.min(c).min(g).min(ca) > sfmin2 {
                f /= SCLFAC;
                c /= SCLFAC;
                g /= SCLFAC;
                ca /= SCLFAC;
                r *= SCLFAC;
                ra *= SCLFAC;
            }
            if c + r >= FACTOR * s {
                continue;
            }
            if f < 1.0 && sc[i - 1] < 1.0 && f * sc[i - 1] <= sfmin1 {
                continue;
            }
            if f > 1.0 && sc[i - 1] > 1.0 && sc[i - 1] >= sfmax1 / f {
                continue;
            }
            let g = 1.0 / f;
            sc[i - 1] *= f;
            noconv = true;
            for j in k - 1..n {
                let v = a.at(i - 1, j) * g;
                a.set(i - 1, j, v);
            }
            for j in 0..l {
                let v = a.at(j, i - 1) * f;
                a.set(j, i - 1, v);
            }
        }
    }
    (sc, k - 1, l - 1)
}

/// SciPy's post-processing of `gebal`'s output: the scaling vector and the permutation
/// (`perm`, so that `b = (a[perm][:, perm]) ` scaled).
fn separate(sc: &[f64], lo: usize, hi: usize) -> (Vec<f64>, Vec<i64>) {
    let n = sc.len();
    let mut scaling = vec![1.0; n];
    scaling[lo..=hi].copy_from_slice(&sc[lo..=hi]);
    let ps: Vec<usize> = sc.iter().map(|&x| (x as usize).saturating_sub(1)).collect();
    let mut perm: Vec<i64> = (0..n as i64).collect();
    if hi + 1 < n {
        for (ind, &x) in ps[hi + 1..].iter().rev().enumerate() {
            let ind = ind + 1;
            if n - ind == x {
                continue;
            }
            perm.swap(x, n - ind);
        }
    }
    if lo > 0 {
        for (ind, &x) in ps[..lo].iter().enumerate() {
            if ind == x {
                continue;
            }
            perm.swap(x, ind);
        }
    }
    (scaling, perm)
}

/// A matrix's scaling and permutation.
type Separate = (Vec<f64>, Vec<i64>);
type Balanced = (Vec<Mat<c64>>, Vec<Separate>);

fn balance_all<T: Scalar>(
    op: &str,
    a: &Array<T>,
    permute: bool,
    scale: bool,
) -> Result<(Vec<usize>, usize, Balanced)> {
    let (batch, n) = square_dims(op, a)?;
    check_finite(op, a)?;
    let count = prod(&batch);
    if count == 0 || n == 0 {
        return Ok((batch, n, (Vec::new(), Vec::new())));
    }
    let (tiny, eps) = if matches!(T::DTYPE, DType::F32 | DType::C32) {
        (f32::MIN_POSITIVE as f64, f32::EPSILON as f64)
    } else {
        (f64::MIN_POSITIVE, f64::EPSILON)
    };
    let ms = host_mats::<T, c64>(a, count, n, n)?;
    let r: Vec<(Mat<c64>, Separate)> = ms
        .into_par_iter()
        .map(|mut m| {
            let (sc, lo, hi) = gebal(&mut m, permute, scale, tiny, eps);
            (m, separate(&sc, lo, hi))
        })
        .collect();
    Ok((batch, n, r.into_iter().unzip()))
}

/// Balances square matrices for eigenvalue computation (SciPy's `linalg.matrix_balance(A,
/// permute=True, scale=True, separate=False)`, LAPACK's `gebal`): returns `(b, t)` with `b =
/// t⁻¹ a t`, `t` a permuted diagonal matrix of powers of two. The permutation isolates
/// eigenvalues (rows and columns with zeros off the diagonal are moved to the bottom and the
/// left); the scaling makes the 2-norms of each row and column of the remaining block close to
/// each other. `t` is `f64` for every input type (SciPy's `float64`), `b` of `a`'s type.
/// Stacks `(..., N, N)` are balanced matrix by matrix. [`matrix_balance_separate`] returns the
/// scaling and permutation as vectors instead (SciPy's `separate=True`).
///
/// The steps are LAPACK 3.12's `zgebal` (2-norms, scaling factor 2, the 0.95 threshold, the
/// overflow and underflow guards of the element type), so `b` and `t` are SciPy's exactly
/// (powers of two multiply exactly) except where a norm lies on a decision boundary within
/// rounding.
///
/// GPU: **hybrid** (host balancing: the matrices are copied to the host and the results back, as
/// the crate README's "Hybrid GPU paths" describes).
///
/// # Errors
/// `InvalidArgument` when `a` has fewer than 2 dimensions, is not square, or holds NaN or
/// infinity (SciPy's `check_finite`).
///
/// ```
/// use cusci_linalg::{matrix_balance, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 100.0, 10000.0, 0.01, 1.0, 100.0, 1e-4, 0.01, 1.0], &[3, 3], &Device::Cpu)?;
/// let (b, t) = matrix_balance(&a, true, true)?;
/// assert_eq!(t.to_vec()?, vec![512.0, 0.0, 0.0, 0.0, 8.0, 0.0, 0.0, 0.0, 0.0625]);
/// assert_eq!(b.to_vec()?[1], 1.5625); // 100 * 8 / 512
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn matrix_balance<T: Scalar>(
    a: &Array<T>,
    permute: bool,
    scale: bool,
) -> Result<(Array<T>, Array<f64>)> {
    let (_, n, (bs, seps)) = balance_all("matrix_balance", a, permute, scale)?;
    let dev = a.device();
    if bs.is_empty() {
        return Ok((a.copy()?, Array::zeros(a.shape(), dev)?));
    }
    let mut t = vec![0.0f64; bs.len() * n * n];
    for (b, (scaling, perm)) in seps.iter().enumerate() {
        // t = diag(scaling)[iperm, :]: row perm[i] of t is row i of diag(scaling)
        for (i, &p) in perm.iter().enumerate() {
            t[b * n * n + p as usize * n + i] = scaling[i];
        }
    }
    Ok((
        crate::nonsym::to_array::<T, c64>(&bs, a.shape(), dev)?,
        Array::from_vec(t, a.shape(), dev)?,
    ))
}

/// [`matrix_balance`] with SciPy's `separate=True`: returns `(b, scaling, perm)` with `scaling`
/// `(..., N)` (`f64`) and `perm` `(..., N)` (`i64`), so that `b[i, j] = a[perm[i], perm[j]] ·
/// scaling[j] / scaling[i]`. For a stack, `scaling` and `perm` are `(..., N)`: SciPy 1.17
/// instead returns each matrix's `(scaling, perm)` pair stacked along the batch axis, so that
/// its tuple unpacking splits the batch (a SciPy quirk not copied).
///
/// GPU: **hybrid**, as [`matrix_balance`].
///
/// # Errors
/// As [`matrix_balance`].
///
/// ```
/// use cusci_linalg::{matrix_balance_separate, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 0.0, 0.0, 2.0, 3.0, 0.0, 4.0, 5.0, 6.0], &[3, 3], &Device::Cpu)?;
/// let (b, scaling, perm) = matrix_balance_separate(&a, true, true)?;
/// assert_eq!(perm.to_vec()?, vec![2, 1, 0]);
/// assert_eq!(scaling.to_vec()?, vec![1.0, 1.0, 1.0]);
/// assert_eq!(b.to_vec()?, vec![6.0, 5.0, 4.0, 0.0, 3.0, 2.0, 0.0, 0.0, 1.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
#[allow(clippy::type_complexity)]
pub fn matrix_balance_separate<T: Scalar>(
    a: &Array<T>,
    permute: bool,
    scale: bool,
) -> Result<(Array<T>, Array<f64>, Array<i64>)> {
    let (batch, n, (bs, seps)) = balance_all("matrix_balance", a, permute, scale)?;
    let dev = a.device();
    let vshape = cat(&batch, &[n]);
    if bs.is_empty() {
        let count = prod(&batch);
        let perm: Vec<i64> = (0..count).flat_map(|_| 0..n as i64).collect();
        return Ok((
            a.copy()?,
            Array::from_vec(vec![1.0; count * n], &vshape, dev)?,
            Array::from_vec(perm, &vshape, dev)?,
        ));
    }
    let mut sv = Vec::with_capacity(bs.len() * n);
    let mut pv = Vec::with_capacity(bs.len() * n);
    for (s, p) in seps {
        sv.extend(s);
        pv.extend(p);
    }
    Ok((
        crate::nonsym::to_array::<T, c64>(&bs, a.shape(), dev)?,
        Array::from_vec(sv, &vshape, dev)?,
        Array::from_vec(pv, &vshape, dev)?,
    ))
}
