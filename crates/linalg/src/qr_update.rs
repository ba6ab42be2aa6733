//! Updates of a QR factorisation (SciPy's `linalg.qr_update`, `qr_insert`, `qr_delete`):
//! Givens rotations on a full `(M, M) (M, N)` or economic `(M, N) (N, N)` pair `q`, `r`.
//!
//! GPU: **hybrid**. The updates are long chains of dependent 2 x 2 rotations (`O(M N)` work
//! per rank-1 change) that no cuBLAS/cuSOLVER routine offers; on a CUDA array the factors are
//! copied to the host, updated there (the same code as the CPU path, so both devices give the
//! same bits), and copied back to the array's device.

use crate::nonsym::{host_mats, to_array};
use crate::schur_cpu::Mat;
use crate::util::{check_finite, same_device};
use crate::Scalar;
use cusci_core::error::make;
use cusci_core::{c64, Array, DType, Error, Result};

/// Rows or columns (SciPy's `which`) for [`qr_insert`] and [`qr_delete`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QrWhich {
    /// Rows (SciPy's default `'row'`).
    #[default]
    Row,
    /// Columns (`'col'`).
    Col,
}

const Z: c64 = c64 { re: 0.0, im: 0.0 };

/// `(c, s, r)` with `[c s; -s̄ c] [f; g] = [r; 0]`, `c` real (LAPACK `zlartg`'s convention up
/// to the sign of `r`).
pub(crate) fn givens(f: c64, g: c64) -> (f64, c64, c64) {
    if g == Z {
        return (1.0, Z, f);
    }
    let ag = g.norm();
    if f == Z {
        return (0.0, g.conj() / ag, c64::new(ag, 0.0));
    }
    let af = f.norm();
    let rho = af.hypot(ag);
    let ph = f / af;
    (af / rho, ph * g.conj() / rho, ph * rho)
}

/// Rows `a`, `b` of `r` (columns `c0..`): `x ← c x + s y`, `y ← -s̄ x + c y`.
pub(crate) fn rot_rows(r: &mut Mat<c64>, a: usize, b: usize, c0: usize, c: f64, s: c64) {
    for j in c0..r.c {
        let (x, y) = (r.at(a, j), r.at(b, j));
        r.set(a, j, x * c + s * y);
        r.set(b, j, -s.conj() * x + y * c);
    }
}

/// Columns `a`, `b` of `q` times the adjoint of the rotation that [`rot_rows`] applied, so that
/// `q r` is unchanged.
pub(crate) fn rot_cols(q: &mut Mat<c64>, a: usize, b: usize, c: f64, s: c64) {
    for i in 0..q.r {
        let (x, y) = (q.at(i, a), q.at(i, b));
        q.set(i, a, x * c + y * s.conj());
        q.set(i, b, -x * s + y * c);
    }
}

/// Makes `r` upper triangular again from column `c0` on, where columns `c0..` may have nonzeros
/// below the diagonal (a band after a column insertion or deletion, a Hessenberg form after a
/// rank-1 change): each column is zeroed from its last nonzero row upwards by rotations of
/// adjacent rows, and `q` follows.
fn triangularize(q: &mut Mat<c64>, r: &mut Mat<c64>, c0: usize) {
    let kk = r.r.min(r.c);
    for j in c0..kk {
        let Some(last) = (j + 1..r.r).rev().find(|&i| r.at(i, j) != Z) else {
            continue;
        };
        for i in (j + 1..=last).rev() {
            let g = r.at(i, j);
            if g == Z {
                continue;
            }
            let (c, s, _) = givens(r.at(i - 1, j), g);
            rot_rows(r, i - 1, i, j, c, s);
            r.set(i, j, Z);
            rot_cols(q, i - 1, i, c, s);
        }
    }
}

fn norm(x: &[c64]) -> f64 {
    x.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt()
}

/// `qᴴ x`.
fn qh_x(q: &Mat<c64>, x: &[c64]) -> Vec<c64> {
    (0..q.c)
        .map(|j| (0..q.r).map(|i| q.at(i, j).conj() * x[i]).sum())
        .collect()
}

/// Classical Gram–Schmidt twice: `(w, r)` with `x = q w + r`, `r ⟂ range(q)`.
fn orthogonalize(q: &Mat<c64>, x: &[c64]) -> (Vec<c64>, Vec<c64>) {
    let mut r = x.to_vec();
    let mut w = vec![Z; q.c];
    for _ in 0..2 {
        let d = qh_x(q, &r);
        for (i, ri) in r.iter_mut().enumerate() {
            let s: c64 = (0..q.c).map(|j| q.at(i, j) * d[j]).sum();
            *ri -= s;
        }
        for (wj, dj) in w.iter_mut().zip(&d) {
            *wj += dj;
        }
    }
    (w, r)
}

/// `q` with one more column `v`.
fn add_col(q: &Mat<c64>, v: &[c64]) -> Mat<c64> {
    let mut o = Mat::zeros(q.r, q.c + 1);
    for (i, &vi) in v.iter().enumerate().take(q.r) {
        for j in 0..q.c {
            o.set(i, j, q.at(i, j));
        }
        o.set(i, q.c, vi);
    }
    o
}

/// The leading `r x c` block.
fn block(a: &Mat<c64>, r0: usize, c0: usize, r: usize, c: usize) -> Mat<c64> {
    let mut o = Mat::zeros(r, c);
    for i in 0..r {
        for j in 0..c {
            o.set(i, j, a.at(r0 + i, c0 + j));
        }
    }
    o
}

/// Rank-1 update `q r + u vᴴ` of a full (`q` square) or economic factorisation.
fn rank1(q: &Mat<c64>, r: &Mat<c64>, u: &[c64], v: &[c64], econ: bool) -> (Mat<c64>, Mat<c64>) {
    let (n, kq) = (r.c, r.r);
    let (mut q, mut r, mut w) = if econ {
        let (w, res) = orthogonalize(q, u);
        let rho = norm(&res);
        let qn: Vec<c64> = if rho > 0.0 {
            res.iter().map(|x| x / rho).collect()
        } else {
            vec![Z; q.r]
        };
        let mut re = Mat::zeros(kq + 1, n);
        re.d[..kq * n].copy_from_slice(&r.d);
        let mut w = w;
        w.push(c64::new(rho, 0.0));
        (add_col(q, &qn), re, w)
    } else {
        (q.clone(), r.clone(), qh_x(q, u))
    };
    let rows = r.r;
    for i in (1..rows).rev() {
        let (c, s, rr) = givens(w[i - 1], w[i]);
        w[i - 1] = rr;
        w[i] = Z;
        rot_rows(&mut r, i - 1, i, (i - 1).min(n), c, s);
        rot_cols(&mut q, i - 1, i, c, s);
    }
    for (j, vj) in v.iter().enumerate().take(n) {
        let x = r.at(0, j) + w[0] * vj.conj();
        r.set(0, j, x);
    }
    triangularize(&mut q, &mut r, 0);
    if econ {
        (block(&q, 0, 0, q.r, kq), block(&r, 0, 0, kq, n))
    } else {
        (q, r)
    }
}

/// Inserts the rows of `u` (`p x N`) before row `k` of `a = q r`.
fn insert_rows(
    q: &Mat<c64>,
    r: &Mat<c64>,
    u: &Mat<c64>,
    k: usize,
    econ: bool,
) -> (Mat<c64>, Mat<c64>) {
    let (m, kq, n, p) = (q.r, q.c, r.c, u.r);
    let mut qe = Mat::zeros(m + p, kq + p);
    for i in 0..m {
        for j in 0..kq {
            qe.set(i, j, q.at(i, j));
        }
    }
    for i in 0..p {
        qe.set(m + i, kq + i, c64::new(1.0, 0.0));
    }
    let mut re = Mat::zeros(kq + p, n);
    re.d[..kq * n].copy_from_slice(&r.d);
    re.d[kq * n..].copy_from_slice(&u.d);
    for j in 0..n.min(kq + p) {
        for i in (j + 1).max(kq)..kq + p {
            let g = re.at(i, j);
            if g == Z {
                continue;
            }
            let (c, s, _) = givens(re.at(j, j), g);
            rot_rows(&mut re, j, i, j, c, s);
            re.set(i, j, Z);
            rot_cols(&mut qe, j, i, c, s);
        }
    }
    // the new rows (at the bottom of qe) move to k..k+p
    let order: Vec<usize> = (0..k).chain(m..m + p).chain(k..m).collect();
    let mut qo = Mat::zeros(m + p, kq + p);
    for (dst, &src) in order.iter().enumerate() {
        for j in 0..kq + p {
            qo.set(dst, j, qe.at(src, j));
        }
    }
    if econ {
        (block(&qo, 0, 0, m + p, n), block(&re, 0, 0, n, n))
    } else {
        (qo, re)
    }
}

/// Inserts the columns of `u` (`M x p`, given as `p` vectors) before column `k`; `rcond` bounds
/// the reciprocal condition number of `[q, u/‖u‖]` in economic mode.
fn insert_cols(
    q: &Mat<c64>,
    r: &Mat<c64>,
    u: &[Vec<c64>],
    k: usize,
    econ: bool,
    rcond: f64,
) -> std::result::Result<(Mat<c64>, Mat<c64>), usize> {
    let (m, kq, n, p) = (q.r, q.c, r.c, u.len());
    let p_eco = if econ { p.min(m - kq) } else { 0 };
    let mut qe = q.clone();
    let mut cols: Vec<Vec<c64>> = Vec::with_capacity(p);
    for (idx, ui) in u.iter().enumerate() {
        if idx < p_eco {
            let un = norm(ui);
            let (w, res) = orthogonalize(&qe, ui);
            let rho = norm(&res);
            // SciPy's estimate: σ_min / σ_max of [q, u/‖u‖] = ‖r‖ / (‖u‖ + ‖w‖)
            let rc = if un > 0.0 { rho / (un + norm(&w)) } else { 0.0 };
            if rc < rcond || rho == 0.0 {
                return Err(idx);
            }
            let qn: Vec<c64> = res.iter().map(|x| x / rho).collect();
            let mut col = w;
            col.push(c64::new(rho, 0.0));
            qe = add_col(&qe, &qn);
            cols.push(col);
        } else {
            cols.push(qh_x(&qe, ui));
        }
    }
    let rows = kq + p_eco;
    let mut re = Mat::zeros(rows, n + p);
    for i in 0..kq {
        for j in 0..n {
            let jj = if j < k { j } else { j + p };
            re.set(i, jj, r.at(i, j));
        }
    }
    for (c, col) in cols.iter().enumerate() {
        for (i, &x) in col.iter().enumerate() {
            re.set(i, k + c, x);
        }
    }
    triangularize(&mut qe, &mut re, k);
    Ok((qe, re))
}

/// Deletes columns `k..k+p`.
fn delete_cols(q: &Mat<c64>, r: &Mat<c64>, k: usize, p: usize, econ: bool) -> (Mat<c64>, Mat<c64>) {
    let (kq, n) = (r.r, r.c);
    let mut re = Mat::zeros(kq, n - p);
    for i in 0..kq {
        for j in 0..n - p {
            let jj = if j < k { j } else { j + p };
            re.set(i, j, r.at(i, jj));
        }
    }
    let mut qe = q.clone();
    triangularize(&mut qe, &mut re, k);
    if econ {
        (
            block(&qe, 0, 0, qe.r, n - p),
            block(&re, 0, 0, n - p, n - p),
        )
    } else {
        (qe, re)
    }
}

/// Deletes rows `k..k+p` of a full factorisation (`q` square).
fn delete_rows_full(q: &Mat<c64>, r: &Mat<c64>, k: usize, p: usize) -> (Mat<c64>, Mat<c64>) {
    let (m, n) = (q.r, r.c);
    let order: Vec<usize> = (k..k + p).chain(0..k).chain(k + p..m).collect();
    let mut qt = Mat::zeros(m, m);
    for (dst, &src) in order.iter().enumerate() {
        for j in 0..m {
            qt.set(dst, j, q.at(src, j));
        }
    }
    let mut re = r.clone();
    for i in 0..p {
        for j in (i..m - 1).rev() {
            let (x, y) = (qt.at(i, j), qt.at(i, j + 1));
            if y == Z {
                continue;
            }
            let (c, s, _) = givens(x.conj(), y.conj());
            rot_rows(&mut re, j, j + 1, 0, c, s);
            rot_cols(&mut qt, j, j + 1, c, s);
            qt.set(i, j + 1, Z);
        }
    }
    (block(&qt, p, p, m - p, m - p), block(&re, p, 0, m - p, n))
}

/// Deletes row `k` of an economic factorisation (`q` `M x N`, `M > N`): `q` is extended by a
/// unit vector orthogonal to it, chosen so that `e_k` lies in the extended range, and row `k`
/// of the extended `q` is rotated into that column (Daniel, Gragg, Kaufman and Stewart).
fn delete_row_thin(q: &Mat<c64>, r: &Mat<c64>, k: usize) -> (Mat<c64>, Mat<c64>) {
    let (m, n) = (q.r, q.c);
    let unit = |i: usize| {
        let mut e = vec![Z; m];
        e[i] = c64::new(1.0, 0.0);
        e
    };
    let (_, mut res) = orthogonalize(q, &unit(k));
    if norm(&res) < 1e-12 {
        // e_k lies in range(q): any unit vector orthogonal to q will do; take the row of least
        // norm (Daniel et al.)
        let best = (0..m)
            .map(|i| (i, norm(&q.d[i * n..(i + 1) * n])))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|x| x.0)
            .unwrap_or(0);
        res = orthogonalize(q, &unit(best)).1;
    }
    let rho = norm(&res);
    let qn: Vec<c64> = res.iter().map(|x| x / rho).collect();
    let mut qe = add_col(q, &qn);
    let mut re = Mat::zeros(n + 1, n);
    re.d[..n * n].copy_from_slice(&r.d);
    let mut s: Vec<c64> = (0..=n).map(|j| qe.at(k, j).conj()).collect();
    for j in (0..n).rev() {
        let (c, sn, rr) = givens(s[n], s[j]);
        s[n] = rr;
        s[j] = Z;
        rot_rows(&mut re, n, j, 0, c, sn);
        rot_cols(&mut qe, n, j, c, sn);
    }
    let mut qo = Mat::zeros(m - 1, n);
    for (dst, src) in (0..m).filter(|&i| i != k).enumerate() {
        for j in 0..n {
            qo.set(dst, j, qe.at(src, j));
        }
    }
    (qo, block(&re, 0, 0, n, n))
}

/// The validated pair: `(m, kq, n, economic)`.
fn check_qr<T: Scalar>(
    op: &str,
    q: &Array<T>,
    r: &Array<T>,
) -> Result<(usize, usize, usize, bool)> {
    same_device(op, q, r)?;
    if q.ndim() != 2 || r.ndim() != 2 {
        return Err(make::arg(op, "Q and R must be 2-D"));
    }
    let (m, kq, rr, n) = (q.shape()[0], q.shape()[1], r.shape()[0], r.shape()[1]);
    if kq != rr || (m != kq && rr != n) {
        return Err(make::shape(
            op,
            format!(
                "Q and R do not have compatible shapes. Expected (M,M) (M,N) or (M,N) (N,N) but found {:?} {:?} for Q and R respectively",
                q.shape(),
                r.shape()
            ),
        ));
    }
    if m < kq {
        // an (M, N) q with M < N cannot have orthonormal columns
        return Err(make::arg(
            op,
            format!(
                "an economic pair needs Q (M, N) with M > N, found {:?} {:?}",
                q.shape(),
                r.shape()
            ),
        ));
    }
    check_finite(op, q)?;
    check_finite(op, r)?;
    Ok((m, kq, n, m != kq))
}

fn host<T: Scalar>(a: &Array<T>, r: usize, c: usize) -> Result<Mat<c64>> {
    if r * c == 0 {
        return Ok(Mat::zeros(r, c));
    }
    Ok(host_mats::<T, c64>(a, 1, r, c)?.remove(0))
}

fn out<T: Scalar>(q: Mat<c64>, r: Mat<c64>, like: &Array<T>) -> Result<(Array<T>, Array<T>)> {
    let dev = like.device();
    let (qs, rs) = ([q.r, q.c], [r.r, r.c]);
    Ok((
        to_array::<T, c64>(&[q], &qs, dev)?,
        to_array::<T, c64>(&[r], &rs, dev)?,
    ))
}

/// The columns of a `(L,)` or `(L, p)` array as `p` vectors of length `L`.
fn columns<T: Scalar>(op: &str, x: &Array<T>, what: &str) -> Result<(usize, Vec<Vec<c64>>)> {
    let (l, p) = match x.ndim() {
        1 => (x.shape()[0], 1),
        2 => (x.shape()[0], x.shape()[1]),
        _ => return Err(make::arg(op, format!("'{what}' can be at most 2-D"))),
    };
    let v = x.to_vec()?;
    Ok((
        l,
        (0..p)
            .map(|j| (0..l).map(|i| v[i * p + j].to_c64()).collect())
            .collect(),
    ))
}

/// Rank-k update of a QR factorisation (SciPy's `linalg.qr_update(Q, R, u, v)`): for `a = q r`,
/// returns the factorisation `q1 r1 = a + u vᴴ` (`u vᵀ` for real types). `q`, `r` are a full
/// `(M, M)`, `(M, N)` pair or an economic `(M, N)`, `(N, N)` pair (`M > N`; the result has the
/// same shapes); `u` is `(M,)` or `(M, k)`, `v` `(N,)` or `(N, k)`. A rank-k update is k
/// rank-1 updates, each by Givens rotations (Golub and Van Loan 12.5.1); an economic pair is
/// extended by the part of `u` orthogonal to `q` (Gram–Schmidt twice) and trimmed back. The
/// diagonal of `r1` is not made real or positive (as SciPy's); `r1` and the leading columns of
/// `q1` agree with SciPy's up to a unimodular factor per row (column). 2-D only (SciPy also
/// takes stacks); `overwrite_qruv` does not apply.
///
/// Numerics: f64 / complex128 (f32 and c32 are computed in double and rounded once);
/// `‖q1 r1 - (a + u vᴴ)‖ ≈ ε (‖a‖ + ‖u‖‖v‖)`, `q1` orthonormal to rounding.
///
/// GPU: **hybrid** (host rotations: the matrices are copied to the host and the results back, as
/// the crate README's "Hybrid GPU paths" describes).
///
/// # Errors
/// `InvalidArgument` for `q`, `r` that are not 2-D, an "economic" `q` `(M, N)` with `M < N`,
/// `u`, `v` of more than 2 dimensions, or NaN or infinity in any input (SciPy's
/// `check_finite`); `ShapeMismatch` when the shapes do not
/// fit (SciPy's messages).
///
/// ```
/// use cusci_linalg::{qr, qr_update, Array, Device, QrMode};
/// let dev = Device::Cpu;
/// let a = Array::from_vec(vec![3.0f64, -2.0, 6.0, -9.0, -3.0, 10.0], &[3, 2], &dev)?;
/// let f = qr(&a, QrMode::Complete)?;
/// let u = Array::from_vec(vec![1.0f64, 0.0, 2.0], &[3], &dev)?;
/// let v = Array::from_vec(vec![1.0f64, -1.0], &[2], &dev)?;
/// let (q1, r1) = qr_update(&f.q.unwrap(), &f.r, &u, &v)?;
/// let b = cusci_linalg::matmul(&q1, &r1)?.to_vec()?;
/// let want = [4.0, -3.0, 6.0, -9.0, -1.0, 8.0];
/// assert!(b.iter().zip(want).all(|(x, y)| (x - y).abs() < 1e-13));
/// assert!(r1.to_vec()?[2].abs() < 1e-15); // r1[1, 0]
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn qr_update<T: Scalar>(
    q: &Array<T>,
    r: &Array<T>,
    u: &Array<T>,
    v: &Array<T>,
) -> Result<(Array<T>, Array<T>)> {
    let op = "qr_update";
    same_device(op, q, u)?;
    same_device(op, q, v)?;
    let (m, kq, n, econ) = check_qr(op, q, r)?;
    if u.ndim() != v.ndim() || u.ndim() == 0 || u.ndim() > 2 {
        return Err(make::arg(op, "u and v must be both 1-D or both 2-D"));
    }
    if u.shape()[0] != m {
        return Err(make::shape(op, "u.shape[0] must equal Q.shape[0]"));
    }
    if v.shape()[0] != n {
        return Err(make::shape(op, "v.shape[0] must equal R.shape[1]"));
    }
    if u.ndim() == 2 && u.shape()[1] != v.shape()[1] {
        return Err(make::shape(
            op,
            "Second dimension of u and v must be the same",
        ));
    }
    check_finite(op, u)?;
    check_finite(op, v)?;
    let mut qm = host(q, m, kq)?;
    let mut rm = host(r, kq, n)?;
    let (_, us) = columns(op, u, "u")?;
    let (_, vs) = columns(op, v, "v")?;
    if m > 0 && n > 0 {
        for (ui, vi) in us.iter().zip(&vs) {
            let (a, b) = rank1(&qm, &rm, ui, vi, econ);
            qm = a;
            rm = b;
        }
    }
    out(qm, rm, q)
}

/// QR factorisation after inserting rows or columns (SciPy's `linalg.qr_insert(Q, R, u, k,
/// which='row', rcond=None)`): for `a = q r`, the factorisation of `a` with the rows of `u`
/// (`(N,)` or `(p, N)`, [`QrWhich::Row`]) inserted before row `k`, or its columns (`(M,)` or
/// `(M, p)`, [`QrWhich::Col`]) before column `k`. `k` may be negative (counted from the end,
/// as SciPy): `-M <= k <= M` for rows, `-N <= k <= N` for columns.
///
/// Full pairs stay full. Economic pairs stay economic: rows are appended to the extended pair
/// and rotated into `r` (the extension trimmed back); each inserted column is orthogonalised
/// against `q` (Gram–Schmidt twice) and `q` grows by one column, until `q` is square, after
/// which the pair is full (SciPy's shapes). `rcond` (economic column insertion only; default
/// the element type's `ε`, as SciPy) is the smallest accepted reciprocal condition number of
/// `[q, u/‖u‖]`, estimated as SciPy does (`‖u_⟂‖ / (‖u‖ + ‖qᴴu‖)`). 2-D only; the overwrite
/// flag does not apply.
///
/// Numerics and GPU: as [`qr_update`] (host rotations in double precision, **hybrid**).
///
/// # Errors
/// `InvalidArgument` for `k` out of bounds, `rcond` given for a full pair or for rows, `u` of
/// more than 2 dimensions, non-finite input; `ShapeMismatch` for a `u` that does not fit;
/// `Singular { index }` when column `index` of `u` lies in the span of `q` (economic, SciPy's
/// `LinAlgError`).
///
/// ```
/// use cusci_linalg::{qr, qr_insert, Array, Device, QrMode, QrWhich};
/// let dev = Device::Cpu;
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2], &dev)?;
/// let f = qr(&a, QrMode::Complete)?;
/// let row = Array::from_vec(vec![5.0f64, 6.0], &[2], &dev)?;
/// let (q1, r1) = qr_insert(&f.q.unwrap(), &f.r, &row, 1, QrWhich::Row, None)?;
/// assert_eq!((q1.shape(), r1.shape()), (&[3usize, 3][..], &[3usize, 2][..]));
/// let b = cusci_linalg::matmul(&q1, &r1)?.to_vec()?;
/// let want = [1.0, 2.0, 5.0, 6.0, 3.0, 4.0];
/// assert!(b.iter().zip(want).all(|(x, y)| (x - y).abs() < 1e-13));
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn qr_insert<T: Scalar>(
    q: &Array<T>,
    r: &Array<T>,
    u: &Array<T>,
    k: isize,
    which: QrWhich,
    rcond: Option<f64>,
) -> Result<(Array<T>, Array<T>)> {
    let op = "qr_insert";
    same_device(op, q, u)?;
    let (m, kq, n, econ) = check_qr(op, q, r)?;
    if let Some(rc) = rcond {
        if which == QrWhich::Row {
            return Err(make::arg(
                op,
                "'rcond' is unused when inserting rows and must be None",
            ));
        }
        if !econ {
            return Err(make::arg(
                op,
                "'rcond' is not used when updating full, (M,M) (M,N) decompositions and must be None.",
            ));
        }
        if rc.is_nan() {
            return Err(make::arg(op, "'rcond' must not be NaN"));
        }
    }
    let bound = if which == QrWhich::Row { m } else { n } as isize;
    if k < -bound || k > bound {
        return Err(make::arg(op, "'k' is out of bounds"));
    }
    let k = if k < 0 { k + bound } else { k } as usize;
    if u.ndim() == 0 || u.ndim() > 2 {
        return Err(make::arg(op, "'u' can be at most 2-D"));
    }
    check_finite(op, u)?;
    let qm = host(q, m, kq)?;
    let rm = host(r, kq, n)?;
    match which {
        QrWhich::Row => {
            let (p, len) = if u.ndim() == 1 {
                (1, u.shape()[0])
            } else {
                (u.shape()[0], u.shape()[1])
            };
            if len != n {
                return Err(make::shape(
                    op,
                    format!(
                        "'u' should be either (N,) or (p,N) when inserting rows. Found {:?}.",
                        u.shape()
                    ),
                ));
            }
            if p == 0 {
                return out(qm, rm, q);
            }
            let um = Mat::from(p, n, u.to_vec()?.iter().map(|x| x.to_c64()).collect());
            let (a, b) = insert_rows(&qm, &rm, &um, k, econ);
            out(a, b, q)
        }
        QrWhich::Col => {
            let (l, us) = columns(op, u, "u")?;
            if l != m {
                return Err(make::shape(
                    op,
                    format!(
                        "'u' should be either (M,) or (M,p) when inserting columns. Found {:?}.",
                        u.shape()
                    ),
                ));
            }
            if us.is_empty() {
                return out(qm, rm, q);
            }
            let eps = if matches!(T::DTYPE, DType::F32 | DType::C32) {
                f32::EPSILON as f64
            } else {
                f64::EPSILON
            };
            let rc = rcond.unwrap_or(eps);
            match insert_cols(&qm, &rm, &us, k, econ, rc) {
                Ok((a, b)) => out(a, b, q),
                Err(idx) => Err(Error::Singular {
                    op: format!("{op}: column {idx} of u lies in the span of Q (reciprocal condition number below {rc:e})"),
                    index: idx,
                }),
            }
        }
    }
}

/// QR factorisation after deleting rows or columns (SciPy's `linalg.qr_delete(Q, R, k, p=1,
/// which='row')`): for `a = q r`, the factorisation of `a` without rows (or columns) `k..k+p`.
/// `k` may be negative (`-M <= k < M` for rows, `-N <= k < N` for columns), `1 <= p` and `k + p`
/// within the matrix.
///
/// Full pairs: rows `k..k+p` of `q` are rotated into unit vectors (Givens on adjacent columns)
/// and dropped with the matching rows of `r`; deleted columns leave a band below the diagonal
/// of `r` that rotations remove. Economic pairs: each deleted row extends `q` by a unit vector
/// orthogonal to it (Daniel, Gragg, Kaufman and Stewart) until `q` is square, then as full
/// (SciPy's shapes: deleting rows from an `(M, N) (N, N)` pair down to fewer than `N` rows
/// gives a full pair); deleted columns shrink both factors. 2-D only; the overwrite flag does
/// not apply.
///
/// Numerics and GPU: as [`qr_update`] (host rotations in double precision, **hybrid**).
///
/// # Errors
/// `InvalidArgument` for `k` out of bounds (`'k' is out of bounds`), `p == 0` or `k + p` past
/// the end (`'p' is out of range`), non-finite input; `ShapeMismatch` for incompatible `q`,
/// `r`.
///
/// ```
/// use cusci_linalg::{qr, qr_delete, Array, Device, QrMode, QrWhich};
/// let dev = Device::Cpu;
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 7.0], &[3, 2], &dev)?;
/// let f = qr(&a, QrMode::Complete)?;
/// let (q1, r1) = qr_delete(&f.q.unwrap(), &f.r, 1, 1, QrWhich::Row)?;
/// let b = cusci_linalg::matmul(&q1, &r1)?.to_vec()?;
/// let want = [1.0, 2.0, 5.0, 7.0];
/// assert!(b.iter().zip(want).all(|(x, y)| (x - y).abs() < 1e-13));
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn qr_delete<T: Scalar>(
    q: &Array<T>,
    r: &Array<T>,
    k: isize,
    p: usize,
    which: QrWhich,
) -> Result<(Array<T>, Array<T>)> {
    let op = "qr_delete";
    let (m, kq, n, econ) = check_qr(op, q, r)?;
    let bound = if which == QrWhich::Row { m } else { n } as isize;
    if k < -bound || k >= bound {
        return Err(make::arg(op, "'k' is out of bounds"));
    }
    let k = if k < 0 { k + bound } else { k } as usize;
    if p == 0 || k + p > bound as usize {
        return Err(make::arg(op, "'p' is out of range"));
    }
    let qm = host(q, m, kq)?;
    let rm = host(r, kq, n)?;
    let (a, b) = match which {
        QrWhich::Col => delete_cols(&qm, &rm, k, p, econ),
        QrWhich::Row => {
            let p_eco = if econ { p.min(m - kq) } else { 0 };
            let (mut qa, mut ra) = (qm, rm);
            for _ in 0..p_eco {
                let (a, b) = delete_row_thin(&qa, &ra, k);
                qa = a;
                ra = b;
            }
            if p > p_eco {
                delete_rows_full(&qa, &ra, k, p - p_eco)
            } else {
                (qa, ra)
            }
        }
    };
    out(a, b, q)
}
