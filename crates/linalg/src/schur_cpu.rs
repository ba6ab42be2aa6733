//! The host kernels of the non-symmetric decompositions and the matrix equations: Householder
//! Hessenberg reduction (LAPACK `gehrd`'s reflector convention), the complex Schur form
//! (single-shift QR with Wilkinson shifts), the real Schur form (Francis double-shift QR, 2 x 2
//! blocks standardised as LAPACK's `lanv2`), reordering (swaps of adjacent blocks), `rsf2csf`, and
//! the triangular Sylvester solve (Bartels–Stewart's back substitution).
//!
//! Every routine works on one row-major matrix in `f64` (real) or `c64` (complex): the callers
//! convert `f32`/`c32` in and out (so single precision is computed in double and rounded once).

use cusci_core::c64;

/// A dense row-major matrix.
#[derive(Clone, Debug)]
pub(crate) struct Mat<T> {
    pub r: usize,
    pub c: usize,
    pub d: Vec<T>,
}

impl<T: Copy + Default> Mat<T> {
    pub fn zeros(r: usize, c: usize) -> Self {
        Mat {
            r,
            c,
            d: vec![T::default(); r * c],
        }
    }
    pub fn from(r: usize, c: usize, d: Vec<T>) -> Self {
        debug_assert_eq!(d.len(), r * c);
        Mat { r, c, d }
    }
    #[inline]
    pub fn at(&self, i: usize, j: usize) -> T {
        self.d[i * self.c + j]
    }
    #[inline]
    pub fn set(&mut self, i: usize, j: usize, v: T) {
        self.d[i * self.c + j] = v;
    }
}

/// The field operations the kernels need, for `f64` and `c64`.
pub(crate) trait Fld:
    Copy
    + Default
    + PartialEq
    + Send
    + Sync
    + std::fmt::Debug
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
{
    fn re(r: f64) -> Self;
    fn cj(self) -> Self;
    fn abs(self) -> f64;
    /// `|re| + |im|` (LAPACK's cheap modulus).
    fn abs1(self) -> f64;
    fn real(self) -> f64;
    fn imag(self) -> f64;
    fn to_c(self) -> c64;
    fn from_c(z: c64) -> Self;
}

impl Fld for f64 {
    fn re(r: f64) -> Self {
        r
    }
    fn cj(self) -> Self {
        self
    }
    fn abs(self) -> f64 {
        f64::abs(self)
    }
    fn abs1(self) -> f64 {
        f64::abs(self)
    }
    fn real(self) -> f64 {
        self
    }
    fn imag(self) -> f64 {
        0.0
    }
    fn to_c(self) -> c64 {
        c64::new(self, 0.0)
    }
    fn from_c(z: c64) -> Self {
        z.re
    }
}

impl Fld for c64 {
    fn re(r: f64) -> Self {
        c64::new(r, 0.0)
    }
    fn cj(self) -> Self {
        self.conj()
    }
    fn abs(self) -> f64 {
        self.norm()
    }
    fn abs1(self) -> f64 {
        self.re.abs() + self.im.abs()
    }
    fn real(self) -> f64 {
        self.re
    }
    fn imag(self) -> f64 {
        self.im
    }
    fn to_c(self) -> c64 {
        self
    }
    fn from_c(z: c64) -> Self {
        z
    }
}

const EPS: f64 = f64::EPSILON * 0.5;

fn sign(a: f64, b: f64) -> f64 {
    if b >= 0.0 || (b == 0.0 && !b.is_sign_negative()) {
        a.abs()
    } else {
        -a.abs()
    }
}

/// LAPACK's `larfg`: for `(alpha, x)` returns `(beta, tau, v)` with `v[0] = 1` such that
/// `(I - tau v vᴴ)ᴴ (alpha; x) = (beta; 0)`, `beta` real, `beta = -sign(Re alpha)·‖(alpha, x)‖`.
pub(crate) fn larfg<T: Fld>(alpha: T, x: &[T]) -> (T, T, Vec<T>) {
    let xn = x.iter().map(|v| v.abs() * v.abs()).sum::<f64>().sqrt();
    let mut v = Vec::with_capacity(x.len() + 1);
    v.push(T::re(1.0));
    if xn == 0.0 && alpha.imag() == 0.0 {
        v.extend(x.iter().copied());
        return (alpha, T::default(), v);
    }
    let norm = (alpha.abs().powi(2) + xn * xn).sqrt();
    let beta = -sign(norm, alpha.real());
    let tau = T::from_c(c64::new((beta - alpha.real()) / beta, -alpha.imag() / beta));
    let inv = T::re(1.0) / (alpha - T::re(beta));
    v.extend(x.iter().map(|&e| e * inv));
    (T::re(beta), tau, v)
}

/// `A[rows, cols] := (I - tau v vᴴ) A[rows, cols]` (`rows` starting at `r0`, `v.len()` of them).
fn refl_left<T: Fld>(a: &mut Mat<T>, r0: usize, c0: usize, c1: usize, v: &[T], tau: T) {
    if tau == T::default() {
        return;
    }
    for j in c0..c1 {
        let mut s = T::default();
        for (k, &vk) in v.iter().enumerate() {
            s = s + vk.cj() * a.at(r0 + k, j);
        }
        let s = s * tau;
        for (k, &vk) in v.iter().enumerate() {
            let x = a.at(r0 + k, j) - vk * s;
            a.set(r0 + k, j, x);
        }
    }
}

/// `A[rows, cols] := A[rows, cols] (I - tau v vᴴ)` (`cols` starting at `c0`).
fn refl_right<T: Fld>(a: &mut Mat<T>, r0: usize, r1: usize, c0: usize, v: &[T], tau: T) {
    if tau == T::default() {
        return;
    }
    for i in r0..r1 {
        let mut s = T::default();
        for (k, &vk) in v.iter().enumerate() {
            s = s + a.at(i, c0 + k) * vk;
        }
        let s = s * tau;
        for (k, &vk) in v.iter().enumerate() {
            let x = a.at(i, c0 + k) - s * vk.cj();
            a.set(i, c0 + k, x);
        }
    }
}

/// Hessenberg reduction `A = Q H Qᴴ` (LAPACK `gehrd` + `orghr`: `Q = H(1)…H(n-1)`, reflectors
/// as [`larfg`]); returns `(H, Q)` (`Q` only when `calc_q`).
pub(crate) fn hessenberg<T: Fld>(a: &Mat<T>, calc_q: bool) -> (Mat<T>, Option<Mat<T>>) {
    let n = a.r;
    let mut h = a.clone();
    let mut q = if calc_q { Some(identity::<T>(n)) } else { None };
    // n - 1 reflectors as LAPACK (the last one, of an empty x, makes a complex h[n-1, n-2] real)
    for k in 0..n.saturating_sub(1) {
        let x: Vec<T> = (k + 2..n).map(|i| h.at(i, k)).collect();
        let (beta, tau, v) = larfg(h.at(k + 1, k), &x);
        // A := Hᴴ A H
        refl_left(&mut h, k + 1, k, n, &v, tau.cj());
        refl_right(&mut h, 0, n, k + 1, &v, tau);
        h.set(k + 1, k, beta);
        for i in k + 2..n {
            h.set(i, k, T::default());
        }
        if let Some(q) = q.as_mut() {
            refl_right(q, 0, n, k + 1, &v, tau);
        }
    }
    (h, q)
}

pub(crate) fn identity<T: Fld>(n: usize) -> Mat<T> {
    let mut m = Mat::zeros(n, n);
    for i in 0..n {
        m.set(i, i, T::re(1.0));
    }
    m
}

/// A Givens rotation `G = [[c, s], [-conj(s), c]]` (`c` real) with `G (x; y) = (r; 0)`.
fn givens(x: c64, y: c64) -> (f64, c64) {
    let ax = x.norm();
    let r = (ax * ax + y.norm_sqr()).sqrt();
    if r == 0.0 {
        return (1.0, c64::new(0.0, 0.0));
    }
    if ax == 0.0 {
        return (0.0, y.conj() / y.norm());
    }
    let alpha = x / ax;
    (ax / r, alpha * y.conj() / r)
}

/// Rows `k, k+1` (columns `c0..c1`) := `G` times them.
fn rot_rows(a: &mut Mat<c64>, k: usize, c0: usize, c1: usize, c: f64, s: c64) {
    for j in c0..c1 {
        let (u, v) = (a.at(k, j), a.at(k + 1, j));
        a.set(k, j, u * c + s * v);
        a.set(k + 1, j, -s.conj() * u + v * c);
    }
}

/// Columns `k, k+1` (rows `r0..r1`) := them times `Gᴴ`.
fn rot_cols(a: &mut Mat<c64>, k: usize, r0: usize, r1: usize, c: f64, s: c64) {
    for i in r0..r1 {
        let (u, v) = (a.at(i, k), a.at(i, k + 1));
        a.set(i, k, u * c + v * s.conj());
        a.set(i, k + 1, -u * s + v * c);
    }
}

/// The complex Schur form of the upper Hessenberg `h` in place (`T = Zᴴ H Z` with `z` updated):
/// single-shift QR with Wilkinson shifts (exceptional shifts every 10 stalled iterations).
/// `Err(())` when it does not converge in `30 n` iterations.
pub(crate) fn complex_schur(h: &mut Mat<c64>, z: &mut Mat<c64>) -> Result<(), ()> {
    let n = h.r;
    if n == 0 {
        return Ok(());
    }
    let norm = h.d.iter().map(|x| x.norm()).fold(0.0, f64::max);
    let mut hi = n - 1;
    let mut its = 0usize;
    let mut total = 0usize;
    while hi > 0 {
        // find the active block [l, hi]
        let mut l = hi;
        while l > 0 {
            let s = h.at(l - 1, l - 1).abs1() + h.at(l, l).abs1();
            let s = if s == 0.0 { norm } else { s };
            if h.at(l, l - 1).abs1() <= EPS * s {
                h.set(l, l - 1, c64::new(0.0, 0.0));
                break;
            }
            l -= 1;
        }
        if l == hi {
            hi -= 1;
            its = 0;
            continue;
        }
        its += 1;
        total += 1;
        if total > 30 * n.max(10) {
            return Err(());
        }
        // the shift
        let (a, b, c, d) = (
            h.at(hi - 1, hi - 1),
            h.at(hi - 1, hi),
            h.at(hi, hi - 1),
            h.at(hi, hi),
        );
        let mu = if its % 10 == 0 {
            // exceptional shift
            d + c64::new(0.75 * h.at(hi, hi - 1).abs1(), 0.0)
        } else {
            let half = (a - d) * 0.5;
            let disc = (half * half + b * c).sqrt();
            let m1 = (a + d) * 0.5 + disc;
            let m2 = (a + d) * 0.5 - disc;
            if (m1 - d).norm() <= (m2 - d).norm() {
                m1
            } else {
                m2
            }
        };
        let mut x = h.at(l, l) - mu;
        let mut y = h.at(l + 1, l);
        for k in l..hi {
            let (cs, sn) = givens(x, y);
            let c0 = if k > l { k - 1 } else { l };
            rot_rows(h, k, c0, n, cs, sn);
            rot_cols(h, k, 0, (k + 3).min(hi + 1), cs, sn);
            rot_cols(z, k, 0, n, cs, sn);
            if k > l {
                h.set(k + 1, k - 1, c64::new(0.0, 0.0));
            }
            if k + 1 < hi {
                x = h.at(k + 1, k);
                y = h.at(k + 2, k);
            }
        }
    }
    for i in 1..n {
        for j in 0..i {
            h.set(i, j, c64::new(0.0, 0.0));
        }
    }
    Ok(())
}

/// LAPACK's `lanv2`: the standardised Schur factorisation of a real 2 x 2 block
/// `[[a, b], [c, d]] = [[cs, -sn], [sn, cs]] [[aa, bb], [cc, dd]] [[cs, sn], [-sn, cs]]` with
/// `cc = 0` (real eigenvalues) or `aa = dd`, `bb·cc < 0` (a complex pair). Returns
/// `(aa, bb, cc, dd, cs, sn)`.
pub(crate) fn lanv2(
    mut a: f64,
    mut b: f64,
    mut c: f64,
    mut d: f64,
) -> (f64, f64, f64, f64, f64, f64) {
    let eps = f64::EPSILON;
    let (mut cs, mut sn);
    if c == 0.0 {
        cs = 1.0;
        sn = 0.0;
    } else if b == 0.0 {
        cs = 0.0;
        sn = 1.0;
        std::mem::swap(&mut a, &mut d);
        b = -c;
        c = 0.0;
    } else if a - d == 0.0 && b.signum() != c.signum() {
        cs = 1.0;
        sn = 0.0;
    } else {
        let temp = a - d;
        let mut p = 0.5 * temp;
        let bcmax = b.abs().max(c.abs());
        let bcmis = b.abs().min(c.abs()) * b.signum() * c.signum();
        let scale = p.abs().max(bcmax);
        let mut z = p / scale * p + bcmax / scale * bcmis;
        if z >= 4.0 * eps {
            // real eigenvalues
            z = p + sign(scale.sqrt() * z.sqrt(), p);
            a = d + z;
            d -= bcmax / z * bcmis;
            let tau = c.hypot(z);
            cs = z / tau;
            sn = c / tau;
            b -= c;
            c = 0.0;
        } else {
            // complex or almost equal real eigenvalues: make the diagonal equal
            let sigma = b + c;
            let tau = sigma.hypot(temp);
            cs = (0.5 * (1.0 + sigma.abs() / tau)).sqrt();
            sn = -(p / (tau * cs)) * sign(1.0, sigma);
            let aa = a * cs + b * sn;
            let bb = -a * sn + b * cs;
            let cc = c * cs + d * sn;
            let dd = -c * sn + d * cs;
            a = aa * cs + cc * sn;
            b = bb * cs + dd * sn;
            c = -aa * sn + cc * cs;
            d = -bb * sn + dd * cs;
            let temp = 0.5 * (a + d);
            a = temp;
            d = temp;
            if c != 0.0 {
                if b != 0.0 {
                    if b.signum() == c.signum() {
                        // real eigenvalues after all
                        let sab = b.abs().sqrt();
                        let sac = c.abs().sqrt();
                        p = sign(sab * sac, c);
                        let tau = 1.0 / (b + c).abs().sqrt();
                        a = temp + p;
                        d = temp - p;
                        b -= c;
                        c = 0.0;
                        let cs1 = sab * tau;
                        let sn1 = sac * tau;
                        let t = cs * cs1 - sn * sn1;
                        sn = cs * sn1 + sn * cs1;
                        cs = t;
                    }
                } else {
                    b = -c;
                    c = 0.0;
                    let t = cs;
                    cs = -sn;
                    sn = t;
                }
            }
        }
    }
    (a, b, c, d, cs, sn)
}

/// BLAS `rot` on two rows of `a` (columns `c0..c1`): `x' = cs x + sn y`, `y' = cs y - sn x`.
fn drot_rows(a: &mut Mat<f64>, i: usize, k: usize, c0: usize, c1: usize, cs: f64, sn: f64) {
    for j in c0..c1 {
        let (x, y) = (a.at(i, j), a.at(k, j));
        a.set(i, j, cs * x + sn * y);
        a.set(k, j, cs * y - sn * x);
    }
}

/// BLAS `rot` on two columns of `a` (rows `r0..r1`).
fn drot_cols(a: &mut Mat<f64>, i: usize, k: usize, r0: usize, r1: usize, cs: f64, sn: f64) {
    for r in r0..r1 {
        let (x, y) = (a.at(r, i), a.at(r, k));
        a.set(r, i, cs * x + sn * y);
        a.set(r, k, cs * y - sn * x);
    }
}

/// Standardises the 2 x 2 diagonal block at `k` of the quasi-triangular `t` (and updates `z`).
fn standardize(t: &mut Mat<f64>, z: &mut Mat<f64>, k: usize) {
    let n = t.r;
    let (a, b, c, d, cs, sn) = lanv2(
        t.at(k, k),
        t.at(k, k + 1),
        t.at(k + 1, k),
        t.at(k + 1, k + 1),
    );
    t.set(k, k, a);
    t.set(k, k + 1, b);
    t.set(k + 1, k, c);
    t.set(k + 1, k + 1, d);
    if k + 2 < n {
        drot_rows(t, k, k + 1, k + 2, n, cs, sn);
    }
    drot_cols(t, k, k + 1, 0, k, cs, sn);
    drot_cols(z, k, k + 1, 0, n, cs, sn);
}

/// Householder reflector of a short real vector: `(v, beta)` with `(I - beta v vᵀ) x = ∓‖x‖ e1`.
fn house(x: &[f64]) -> (Vec<f64>, f64) {
    let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    let mut v = x.to_vec();
    if norm == 0.0 {
        return (v, 0.0);
    }
    v[0] += sign(norm, x[0]);
    let vv = v.iter().map(|a| a * a).sum::<f64>();
    (v, 2.0 / vv)
}

fn house_left(a: &mut Mat<f64>, r0: usize, c0: usize, c1: usize, v: &[f64], beta: f64) {
    for j in c0..c1 {
        let s: f64 = v
            .iter()
            .enumerate()
            .map(|(k, vk)| vk * a.at(r0 + k, j))
            .sum();
        let s = s * beta;
        for (k, vk) in v.iter().enumerate() {
            let x = a.at(r0 + k, j) - vk * s;
            a.set(r0 + k, j, x);
        }
    }
}

fn house_right(a: &mut Mat<f64>, r0: usize, r1: usize, c0: usize, v: &[f64], beta: f64) {
    for i in r0..r1 {
        let s: f64 = v
            .iter()
            .enumerate()
            .map(|(k, vk)| vk * a.at(i, c0 + k))
            .sum();
        let s = s * beta;
        for (k, vk) in v.iter().enumerate() {
            let x = a.at(i, c0 + k) - vk * s;
            a.set(i, c0 + k, x);
        }
    }
}

/// The real Schur form of the upper Hessenberg `h` in place (`T = Zᵀ H Z`, `z` updated):
/// Francis double-shift QR, 2 x 2 blocks standardised ([`lanv2`]). `Err(())` when it does not
/// converge in `30 n` iterations.
pub(crate) fn real_schur(h: &mut Mat<f64>, z: &mut Mat<f64>) -> Result<(), ()> {
    let n = h.r;
    if n == 0 {
        return Ok(());
    }
    let norm = h.d.iter().map(|x| x.abs()).fold(0.0, f64::max);
    let mut hi = n as isize - 1;
    let mut its = 0usize;
    let mut total = 0usize;
    while hi >= 0 {
        let hu = hi as usize;
        let mut l = hu;
        while l > 0 {
            let s = h.at(l - 1, l - 1).abs() + h.at(l, l).abs();
            let s = if s == 0.0 { norm } else { s };
            if h.at(l, l - 1).abs() <= EPS * s {
                h.set(l, l - 1, 0.0);
                break;
            }
            l -= 1;
        }
        if l == hu {
            hi -= 1;
            its = 0;
            continue;
        }
        if l + 1 == hu {
            standardize(h, z, l);
            hi -= 2;
            its = 0;
            continue;
        }
        its += 1;
        total += 1;
        if total > 30 * n.max(10) {
            return Err(());
        }
        // double shift from the trailing 2 x 2 block (exceptional every 10 stalled iterations)
        let (s, t) = if its % 10 == 0 {
            let e = h.at(hu, hu - 1).abs() + h.at(hu - 1, hu - 2).abs();
            let x = 0.75 * e + h.at(hu, hu);
            (2.0 * x, x * x - 0.4375 * e * e)
        } else {
            let (a, b, c, d) = (
                h.at(hu - 1, hu - 1),
                h.at(hu - 1, hu),
                h.at(hu, hu - 1),
                h.at(hu, hu),
            );
            (a + d, a * d - b * c)
        };
        let mut x = h.at(l, l) * h.at(l, l) + h.at(l, l + 1) * h.at(l + 1, l) - s * h.at(l, l) + t;
        let mut y = h.at(l + 1, l) * (h.at(l, l) + h.at(l + 1, l + 1) - s);
        let mut zz = h.at(l + 1, l) * h.at(l + 2, l + 1);
        for k in l..hu - 1 {
            let (v, beta) = house(&[x, y, zz]);
            let c0 = if k > l { k - 1 } else { l };
            house_left(h, k, c0, n, &v, beta);
            let r1 = (k + 4).min(hu + 1);
            house_right(h, 0, r1, k, &v, beta);
            house_right(z, 0, n, k, &v, beta);
            if k > l {
                h.set(k + 1, k - 1, 0.0);
                h.set(k + 2, k - 1, 0.0);
            }
            x = h.at(k + 1, k);
            y = h.at(k + 2, k);
            if k + 3 <= hu {
                zz = h.at(k + 3, k);
            }
        }
        let (v, beta) = house(&[x, y]);
        house_left(h, hu - 1, hu - 2, n, &v, beta);
        house_right(h, 0, hu + 1, hu - 1, &v, beta);
        house_right(z, 0, n, hu - 1, &v, beta);
        h.set(hu, hu - 2, 0.0);
    }
    for i in 1..n {
        for j in 0..i.saturating_sub(1) {
            h.set(i, j, 0.0);
        }
    }
    Ok(())
}

/// The eigenvalues of a standardised real quasi-triangular `t` (a pair: positive imaginary part
/// first, as LAPACK's `hseqr`).
pub(crate) fn quasi_eigs(t: &Mat<f64>) -> Vec<c64> {
    let n = t.r;
    let mut w = Vec::with_capacity(n);
    let mut i = 0;
    while i < n {
        if i + 1 < n && t.at(i + 1, i) != 0.0 {
            let re = t.at(i, i);
            let im = (t.at(i, i + 1).abs().sqrt()) * (t.at(i + 1, i).abs().sqrt());
            w.push(c64::new(re, im));
            w.push(c64::new(re, -im));
            i += 2;
        } else {
            w.push(c64::new(t.at(i, i), 0.0));
            i += 1;
        }
    }
    w
}

/// Swaps the adjacent diagonal entries `k`, `k+1` of the upper-triangular complex `t` (LAPACK
/// `trexc`'s step), updating `z`.
fn swap_complex(t: &mut Mat<c64>, z: &mut Mat<c64>, k: usize) {
    let n = t.r;
    let (t11, t22) = (t.at(k, k), t.at(k + 1, k + 1));
    if t11 == t22 {
        return;
    }
    // the eigenvector of t22 spans the new first column
    let (cs, sn) = givens(t.at(k, k + 1), t22 - t11);
    rot_rows(t, k, k, n, cs, sn);
    rot_cols(t, k, 0, k + 2, cs, sn);
    rot_cols(z, k, 0, n, cs, sn);
    t.set(k, k, t22);
    t.set(k + 1, k + 1, t11);
    t.set(k + 1, k, c64::new(0.0, 0.0));
}

/// Moves the eigenvalues `select` picks to the top left of the complex Schur form (LAPACK
/// `trsen`'s order: the selected ones keep their relative order). Returns their count.
pub(crate) fn reorder_complex(
    t: &mut Mat<c64>,
    z: &mut Mat<c64>,
    select: &dyn Fn(c64) -> bool,
) -> usize {
    let n = t.r;
    let mut ks = 0;
    for k in 0..n {
        if select(t.at(k, k)) {
            let mut p = k;
            while p > ks {
                swap_complex(t, z, p - 1);
                p -= 1;
            }
            ks += 1;
        }
    }
    ks
}

/// Small dense solve with partial pivoting (for the block swaps); `None` when singular.
fn small_solve(mut a: Vec<f64>, mut b: Vec<f64>, n: usize) -> Option<Vec<f64>> {
    for k in 0..n {
        let p = (k..n).max_by(|&i, &j| a[i * n + k].abs().total_cmp(&a[j * n + k].abs()))?;
        if a[p * n + k] == 0.0 {
            return None;
        }
        for j in 0..n {
            a.swap(k * n + j, p * n + j);
        }
        b.swap(k, p);
        for i in k + 1..n {
            let f = a[i * n + k] / a[k * n + k];
            for j in k..n {
                a[i * n + j] -= f * a[k * n + j];
            }
            b[i] -= f * b[k];
        }
    }
    for i in (0..n).rev() {
        let mut s = b[i];
        for j in i + 1..n {
            s -= a[i * n + j] * b[j];
        }
        b[i] = s / a[i * n + i];
    }
    Some(b)
}

/// Swaps the adjacent diagonal blocks of sizes `p` (at `k`) and `q` (at `k + p`) of the real
/// quasi-triangular `t` (the direct swap of Bai and Demmel: the small Sylvester equation, then an
/// orthogonal basis of the swapped invariant subspace), updating `z`, and re-standardises them.
/// `false` (nothing changed) when the blocks share an eigenvalue.
fn swap_real(t: &mut Mat<f64>, z: &mut Mat<f64>, k: usize, p: usize, q: usize) -> bool {
    let n = t.r;
    let w = p + q;
    // A11 X - X A22 = A12, X p x q, column-major vec: (I_q ⊗ A11 - A22ᵀ ⊗ I_p) vec X
    let m = p * q;
    let mut kr = vec![0.0; m * m];
    let mut rhs = vec![0.0; m];
    for jq in 0..q {
        for ip in 0..p {
            let row = jq * p + ip;
            rhs[row] = t.at(k + ip, k + p + jq);
            for jj in 0..q {
                for ii in 0..p {
                    let col = jj * p + ii;
                    let mut v = 0.0;
                    if jj == jq {
                        v += t.at(k + ip, k + ii);
                    }
                    if ii == ip {
                        v -= t.at(k + p + jj, k + p + jq);
                    }
                    kr[row * m + col] = v;
                }
            }
        }
    }
    let Some(x) = small_solve(kr, rhs, m) else {
        return false;
    };
    // basis of [-X; I_q] (w x q) by Householder QR: Q (w x w), its first q columns span it
    let mut mm_ = Mat::<f64>::zeros(w, q);
    for jq in 0..q {
        for ip in 0..p {
            mm_.set(ip, jq, -x[jq * p + ip]);
        }
        mm_.set(p + jq, jq, 1.0);
    }
    let mut qm = identity::<f64>(w);
    for j in 0..q {
        let col: Vec<f64> = (j..w).map(|i| mm_.at(i, j)).collect();
        let (v, beta) = house(&col);
        house_left(&mut mm_, j, 0, q, &v, beta);
        house_right(&mut qm, 0, w, j, &v, beta);
    }
    // T := Qᵀ T Q on the window's rows and columns
    let mut qt = Mat::<f64>::zeros(w, w);
    for i in 0..w {
        for j in 0..w {
            qt.set(i, j, qm.at(j, i));
        }
    }
    // rows k..k+w, columns k..n
    for j in k..n {
        let col: Vec<f64> = (0..w).map(|i| t.at(k + i, j)).collect();
        for i in 0..w {
            let s: f64 = (0..w).map(|l| qt.at(i, l) * col[l]).sum();
            t.set(k + i, j, s);
        }
    }
    for r in 0..k + w {
        let row: Vec<f64> = (0..w).map(|j| t.at(r, k + j)).collect();
        for j in 0..w {
            let s: f64 = (0..w).map(|l| row[l] * qm.at(l, j)).sum();
            t.set(r, k + j, s);
        }
    }
    for r in 0..n {
        let row: Vec<f64> = (0..w).map(|j| z.at(r, k + j)).collect();
        for j in 0..w {
            let s: f64 = (0..w).map(|l| row[l] * qm.at(l, j)).sum();
            z.set(r, k + j, s);
        }
    }
    // the new blocks: q at k, p at k + q; the coupling below is zero in exact arithmetic
    for i in q..w {
        for j in 0..q {
            t.set(k + i, k + j, 0.0);
        }
    }
    if q == 2 {
        standardize(t, z, k);
    } else if q == 1 && w > 1 {
        // nothing: 1 x 1
    }
    if p == 2 {
        standardize(t, z, k + q);
    }
    true
}

/// The diagonal blocks `(start, size)` of a real quasi-triangular `t`.
fn blocks(t: &Mat<f64>) -> Vec<(usize, usize)> {
    let n = t.r;
    let mut b = Vec::new();
    let mut i = 0;
    while i < n {
        if i + 1 < n && t.at(i + 1, i) != 0.0 {
            b.push((i, 2));
            i += 2;
        } else {
            b.push((i, 1));
            i += 1;
        }
    }
    b
}

/// Moves the eigenvalues `select` picks (a complex pair is selected when either of its values
/// is) to the top left of the real Schur form, keeping their relative order (LAPACK `trsen`).
/// Returns the number of selected eigenvalues (a pair counts 2), or `Err(())` when a swap
/// fails (eigenvalues too close to separate).
pub(crate) fn reorder_real(
    t: &mut Mat<f64>,
    z: &mut Mat<f64>,
    select: &dyn Fn(c64) -> bool,
) -> Result<usize, ()> {
    let mut ks = 0; // rows filled with selected blocks
    let mut count = 0;
    loop {
        let bl = blocks(t);
        let w = quasi_eigs(t);
        // first selected block starting at or after ks
        let next = bl
            .iter()
            .position(|&(s, sz)| s >= ks && (select(w[s]) || (sz == 2 && select(w[s + 1]))));
        let Some(mut b) = next else { break };
        let (_, sz) = bl[b];
        // bubble it up to ks
        let mut bl = bl;
        while bl[b].0 > ks {
            let (ps, psz) = bl[b - 1];
            let (_, csz) = bl[b];
            if !swap_real(t, z, ps, psz, csz) {
                return Err(());
            }
            bl = blocks(t);
            b = bl.iter().position(|&(s, _)| s == ps).ok_or(())?;
            if bl[b].1 != csz {
                // the block changed size (a pair split into reals): give up on exactness
                return Err(());
            }
        }
        ks += sz;
        count += sz;
    }
    Ok(count)
}

/// SciPy's `rsf2csf`: the complex Schur form from the real one (Givens rotations on each 2 x 2
/// block, from the bottom up).
pub(crate) fn rsf2csf(t: &Mat<c64>, z: &Mat<c64>) -> (Mat<c64>, Mat<c64>) {
    let n = t.r;
    let mut tc = t.clone();
    let mut zc = z.clone();
    let eps = f64::EPSILON;
    for m in (1..n).rev() {
        if tc.at(m, m - 1).norm() > eps * (tc.at(m - 1, m - 1).norm() + tc.at(m, m).norm()) {
            let (a, b, c, d) = (
                tc.at(m - 1, m - 1),
                tc.at(m - 1, m),
                tc.at(m, m - 1),
                tc.at(m, m),
            );
            let e = eig2(a, b, c, d)[0];
            let mu = e - tc.at(m, m);
            let r = mu.norm().hypot(tc.at(m, m - 1).norm());
            let cc = mu / r;
            let s = tc.at(m, m - 1) / r;
            // G = [[conj(c), s], [-s, c]]
            let g = [[cc.conj(), s], [-s, cc]];
            for j in m - 1..n {
                let (u, v) = (tc.at(m - 1, j), tc.at(m, j));
                tc.set(m - 1, j, g[0][0] * u + g[0][1] * v);
                tc.set(m, j, g[1][0] * u + g[1][1] * v);
            }
            // times Gᴴ = [[c, -conj(s)], [conj(s), conj(c)]]
            let gh = [
                [g[0][0].conj(), g[1][0].conj()],
                [g[0][1].conj(), g[1][1].conj()],
            ];
            for i in 0..=m {
                let (u, v) = (tc.at(i, m - 1), tc.at(i, m));
                tc.set(i, m - 1, u * gh[0][0] + v * gh[1][0]);
                tc.set(i, m, u * gh[0][1] + v * gh[1][1]);
            }
            for i in 0..zc.r {
                let (u, v) = (zc.at(i, m - 1), zc.at(i, m));
                zc.set(i, m - 1, u * gh[0][0] + v * gh[1][0]);
                zc.set(i, m, u * gh[0][1] + v * gh[1][1]);
            }
        }
        tc.set(m, m - 1, c64::new(0.0, 0.0));
    }
    (tc, zc)
}

/// The eigenvalues of a real 2 x 2 block as LAPACK orders them (a complex pair: positive
/// imaginary part first; real ones: the larger first as `lanv2` gives them, `(a', d')`).
fn eig2(a: c64, b: c64, c: c64, d: c64) -> [c64; 2] {
    if a.im != 0.0 || b.im != 0.0 || c.im != 0.0 || d.im != 0.0 {
        let half = (a - d) * 0.5;
        let disc = (half * half + b * c).sqrt();
        let m = (a + d) * 0.5;
        return [m + disc, m - disc];
    }
    let (aa, _bb, cc, dd, _, _) = lanv2(a.re, b.re, c.re, d.re);
    if cc == 0.0 {
        [c64::new(aa, 0.0), c64::new(dd, 0.0)]
    } else {
        let im = _bb.abs().sqrt() * cc.abs().sqrt();
        [c64::new(aa, im), c64::new(aa, -im)]
    }
}

/// Solves the triangular Sylvester equation `R X + X S = F` (complex upper-triangular `r`
/// (m x m) and `s` (n x n)), column by column (Bartels–Stewart's back substitution). `Err(())`
/// when `r` and `-s` share an eigenvalue (a zero pivot).
pub(crate) fn trsyl(r: &Mat<c64>, s: &Mat<c64>, f: &Mat<c64>) -> Result<Mat<c64>, ()> {
    let (m, n) = (r.r, s.r);
    let mut x = Mat::<c64>::zeros(m, n);
    let tiny = f64::MIN_POSITIVE;
    for k in 0..n {
        // (R + s_kk I) x_k = f_k - sum_{j<k} x_j s_jk
        let mut rhs: Vec<c64> = (0..m).map(|i| f.at(i, k)).collect();
        for j in 0..k {
            let sjk = s.at(j, k);
            if sjk != c64::new(0.0, 0.0) {
                for (i, v) in rhs.iter_mut().enumerate() {
                    *v -= x.at(i, j) * sjk;
                }
            }
        }
        let skk = s.at(k, k);
        for i in (0..m).rev() {
            let mut v = rhs[i];
            for j in i + 1..m {
                v -= r.at(i, j) * x.at(j, k);
            }
            let d = r.at(i, i) + skk;
            if d.norm() <= tiny {
                return Err(());
            }
            x.set(i, k, v / d);
        }
    }
    Ok(x)
}

/// LAPACK's `sytf2`/`hetf2` with `uplo = 'L'` (Bunch–Kaufman diagonal pivoting, `alpha =
/// (1 + √17) / 8`) on the row-major `n x n` `a` in place (only the lower triangle is read and
/// written). Returns LAPACK's 1-based `ipiv` (`kp` for a 1 x 1 pivot, `-kp` twice for a 2 x 2
/// one). `herm`: the Hermitian variant (the diagonal's imaginary part ignored).
pub(crate) fn sytf2_lower(a: &mut Mat<c64>, herm: bool) -> Vec<i64> {
    let n = a.r;
    let alpha = (1.0 + 17f64.sqrt()) / 8.0;
    let cabs1 = |z: c64| z.re.abs() + z.im.abs();
    let re = |z: c64| c64::new(z.re, 0.0);
    let cj = |z: c64| if herm { z.conj() } else { z };
    let mut ipiv = vec![0i64; n];
    let mut k = 0;
    while k < n {
        let mut kstep = 1;
        let absakk = if herm {
            a.at(k, k).re.abs()
        } else {
            cabs1(a.at(k, k))
        };
        // the first largest below the diagonal (IZAMAX)
        let (mut imax, mut colmax) = (k, 0.0);
        for i in k + 1..n {
            let v = cabs1(a.at(i, k));
            if v > colmax {
                colmax = v;
                imax = i;
            }
        }
        let kp;
        if absakk.max(colmax) == 0.0 {
            kp = k;
            if herm {
                a.set(k, k, re(a.at(k, k)));
            }
        } else {
            if absakk >= alpha * colmax {
                kp = k;
            } else {
                let mut rowmax = 0.0f64;
                for j in k..imax {
                    rowmax = rowmax.max(cabs1(a.at(imax, j)));
                }
                for i in imax + 1..n {
                    rowmax = rowmax.max(cabs1(a.at(i, imax)));
                }
                let aimax = if herm {
                    a.at(imax, imax).re.abs()
                } else {
                    cabs1(a.at(imax, imax))
                };
                if absakk >= alpha * colmax * (colmax / rowmax) {
                    kp = k;
                } else if aimax >= alpha * rowmax {
                    kp = imax;
                } else {
                    kp = imax;
                    kstep = 2;
                }
            }
            let kk = k + kstep - 1;
            if kp != kk {
                for i in kp + 1..n {
                    let t = a.at(i, kk);
                    a.set(i, kk, a.at(i, kp));
                    a.set(i, kp, t);
                }
                for j in kk + 1..kp {
                    let t = cj(a.at(j, kk));
                    a.set(j, kk, cj(a.at(kp, j)));
                    a.set(kp, j, t);
                }
                a.set(kp, kk, cj(a.at(kp, kk)));
                let t = a.at(kk, kk);
                if herm {
                    a.set(kk, kk, re(a.at(kp, kp)));
                    a.set(kp, kp, re(t));
                } else {
                    a.set(kk, kk, a.at(kp, kp));
                    a.set(kp, kp, t);
                }
                if kstep == 2 {
                    if herm {
                        a.set(k, k, re(a.at(k, k)));
                    }
                    let t = a.at(kp, k);
                    a.set(kp, k, a.at(k + 1, k));
                    a.set(k + 1, k, t);
                }
            } else if herm {
                a.set(k, k, re(a.at(k, k)));
                if kstep == 2 {
                    a.set(k + 1, k + 1, re(a.at(k + 1, k + 1)));
                }
            }
            if kstep == 1 {
                if k + 1 < n {
                    let d = if herm {
                        c64::new(1.0 / a.at(k, k).re, 0.0)
                    } else {
                        c64::new(1.0, 0.0) / a.at(k, k)
                    };
                    for j in k + 1..n {
                        let xj = cj(a.at(j, k));
                        for i in j..n {
                            let v = a.at(i, j) - d * a.at(i, k) * xj;
                            a.set(i, j, v);
                        }
                        if herm {
                            a.set(j, j, re(a.at(j, j)));
                        }
                    }
                    for i in k + 1..n {
                        a.set(i, k, a.at(i, k) * d);
                    }
                }
            } else {
                if herm {
                    let d = a.at(k + 1, k).norm();
                    let d11 = a.at(k + 1, k + 1).re / d;
                    let d22 = a.at(k, k).re / d;
                    let tt = 1.0 / (d11 * d22 - 1.0);
                    let d21 = a.at(k + 1, k) / d;
                    let d = tt / d;
                    for j in k + 2..n {
                        let wk = (a.at(j, k) * d11 - d21 * a.at(j, k + 1)) * d;
                        let wkp1 = (a.at(j, k + 1) * d22 - d21.conj() * a.at(j, k)) * d;
                        for i in j..n {
                            let v =
                                a.at(i, j) - a.at(i, k) * wk.conj() - a.at(i, k + 1) * wkp1.conj();
                            a.set(i, j, v);
                        }
                        a.set(j, k, wk);
                        a.set(j, k + 1, wkp1);
                        a.set(j, j, re(a.at(j, j)));
                    }
                } else {
                    let d21 = a.at(k + 1, k);
                    let d11 = a.at(k + 1, k + 1) / d21;
                    let d22 = a.at(k, k) / d21;
                    let t = c64::new(1.0, 0.0) / (d11 * d22 - 1.0);
                    let d21 = t / d21;
                    for j in k + 2..n {
                        let wk = d21 * (d11 * a.at(j, k) - a.at(j, k + 1));
                        let wkp1 = d21 * (d22 * a.at(j, k + 1) - a.at(j, k));
                        for i in j..n {
                            let v = a.at(i, j) - a.at(i, k) * wk - a.at(i, k + 1) * wkp1;
                            a.set(i, j, v);
                        }
                        a.set(j, k, wk);
                        a.set(j, k + 1, wkp1);
                    }
                }
            }
        }
        if kstep == 1 {
            ipiv[k] = kp as i64 + 1;
        } else {
            ipiv[k] = -(kp as i64 + 1);
            ipiv[k + 1] = -(kp as i64 + 1);
        }
        k += kstep;
    }
    ipiv
}
