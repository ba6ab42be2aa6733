//! `scipy.signal.place_poles`: full state feedback pole placement (host data).
//!
//! For `x' = Ax + Bu` with `u = -Kx`, find `K` such that the eigenvalues of `A - BK` are the
//! requested poles, choosing among the many solutions of a multi-input system one whose
//! eigenvector matrix `X` is well conditioned (robust pole placement).
//!
//! The method follows Kautsky, Nichols and Van Dooren (1985) and Tits and Yang (1996), as
//! described in SciPy's documentation:
//!
//! 1. `B = [U0 U1] [Z; 0]` (QR, `rank(B)` columns in `U0`). The closed-loop eigenvector of a pole
//!    `λ` must lie in `S(λ) = ker(U1ᵀ (A - λI))`; an orthonormal basis comes from the complete QR
//!    of `(U1ᵀ(A - λI))ᴴ`.
//! 2. Each column of `X` starts as the normalised sum of its basis vectors (a complex pole pair
//!    holds `Re x` and `Im x` in two real columns).
//! 3. With `rank(B) > 1` the columns are updated to make `|det X|` large (`X`'s columns have unit
//!    norm, so a large determinant means nearly orthogonal eigenvectors):
//!    - KNV0 (real poles only): each column in turn becomes the projection onto its `S(λ)` of the
//!      unit vector orthogonal to the other columns;
//!    - YT (Tits–Yang): pairs of columns are updated together by the rank-2 update that maximises
//!      the determinant over the pair (the leading singular pair of `S_iᵀ (u vᵀ - v uᵀ) S_j`, `u, v`
//!      spanning the complement of the other columns); a complex pair's vector `x` maximises the
//!      Hermitian form `xᴴ (u vᵀ - v uᵀ)/(2i) x` over its `S(λ)` (leading eigenvector); a single real
//!      pole gets KNV0's update. Every real pair and every complex pair is visited in each sweep.
//!
//!    Sweeps stop when `|det X|` changes by less than `rtol` (relative) or after `maxiter` sweeps.
//! 4. `M = X Λ X⁻¹`, `K = -Z⁻¹ U0ᵀ (M - A)`.
//!
//! With `rank(B) = n` the answer is `K = lstsq(B, A - Λ_r)` (`Λ_r` the real block-diagonal form of
//! the poles, `X = I`); with one input (`rank(B) = 1`) every `S(λ)` is one-dimensional, so `K` is
//! the unique (Ackermann) gain and there is nothing to iterate.

use super::ltisys::Mat;
use cusci_core::error::make;
use cusci_core::{c64, Array, Device, Result};

/// The robust pole placement method of [`place_poles`] (SciPy's `method`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PlacePolesMethod {
    /// Tits and Yang's method (SciPy's default `"YT"`); real and complex poles.
    #[default]
    Yt,
    /// Kautsky, Nichols and Van Dooren's method 0 (`"KNV0"`); real poles only.
    Knv0,
}

/// Options of [`place_poles`] (SciPy's keyword arguments and defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlacePolesOptions {
    /// The method (YT by default).
    pub method: PlacePolesMethod,
    /// Relative change of `|det X|` under which the iteration stops (`1e-3`); at most 1.
    pub rtol: f64,
    /// Most sweeps over the columns (`30`); at least 1.
    pub maxiter: usize,
}

impl Default for PlacePolesOptions {
    fn default() -> Self {
        PlacePolesOptions {
            method: PlacePolesMethod::Yt,
            rtol: 1e-3,
            maxiter: 30,
        }
    }
}

/// The result of [`place_poles`] (SciPy's `Bunch`).
#[derive(Clone, Debug, PartialEq)]
pub struct FullStateFeedback {
    /// `K` (`inputs × states`): the eigenvalues of `A - BK` are the requested poles.
    pub gain_matrix: Mat,
    /// The eigenvalues of `A - BK`, in the order of `requested_poles` (real ones ascending, then
    /// the complex pairs, each the negative-imaginary member first, by real part).
    pub computed_poles: Vec<c64>,
    /// The requested poles in that order.
    pub requested_poles: Vec<c64>,
    /// The closed-loop eigenvector matrix `X` (`states × states`, row-major): column `j` is the
    /// eigenvector of `requested_poles[j]`, so that `A - BK = X Λ X⁻¹` (the identity when
    /// `rank(B) = states`).
    pub x: Vec<c64>,
    /// The relative change of `|det X|` in the last sweep (0 for one input, NaN when
    /// `rank(B) = states`: nothing to iterate).
    pub rtol: f64,
    /// The number of sweeps (`Some(0)` for one input, `None` (SciPy's NaN) when
    /// `rank(B) = states`).
    pub nb_iter: Option<usize>,
    /// Whether the iteration reached `rtol` (SciPy warns when it does not and `rtol > 0`); `true`
    /// when there was nothing to iterate.
    pub converged: bool,
}

/// A small complex matrix, row-major.
#[derive(Clone, Debug)]
struct CMat {
    r: usize,
    c: usize,
    d: Vec<c64>,
}

impl CMat {
    fn zeros(r: usize, c: usize) -> CMat {
        CMat {
            r,
            c,
            d: vec![c64::new(0.0, 0.0); r * c],
        }
    }
    fn real(m: &Mat) -> CMat {
        CMat {
            r: m.rows,
            c: m.cols,
            d: m.data.iter().map(|&v| c64::new(v, 0.0)).collect(),
        }
    }
    fn at(&self, i: usize, j: usize) -> c64 {
        self.d[i * self.c + j]
    }
    fn set(&mut self, i: usize, j: usize, v: c64) {
        self.d[i * self.c + j] = v;
    }
    fn col(&self, j: usize) -> Vec<c64> {
        (0..self.r).map(|i| self.at(i, j)).collect()
    }
    fn mul(&self, o: &CMat) -> CMat {
        let mut m = CMat::zeros(self.r, o.c);
        for i in 0..self.r {
            for k in 0..self.c {
                let a = self.at(i, k);
                for j in 0..o.c {
                    m.d[i * o.c + j] += a * o.at(k, j);
                }
            }
        }
        m
    }
    /// The conjugate transpose.
    fn h(&self) -> CMat {
        let mut m = CMat::zeros(self.c, self.r);
        for i in 0..self.r {
            for j in 0..self.c {
                m.set(j, i, self.at(i, j).conj());
            }
        }
        m
    }
    fn t(&self) -> CMat {
        let mut m = CMat::zeros(self.c, self.r);
        for i in 0..self.r {
            for j in 0..self.c {
                m.set(j, i, self.at(i, j));
            }
        }
        m
    }
    fn cols(&self, c0: usize, c1: usize) -> CMat {
        let mut m = CMat::zeros(self.r, c1 - c0);
        for i in 0..self.r {
            for j in c0..c1 {
                m.set(i, j - c0, self.at(i, j));
            }
        }
        m
    }
    fn arr(&self) -> Result<Array<c64>> {
        Array::from_vec(self.d.clone(), &[self.r, self.c], &Device::Cpu)
    }
    fn from_arr(a: &Array<c64>) -> Result<CMat> {
        let s = a.shape();
        Ok(CMat {
            r: s[0],
            c: s[1],
            d: a.to_vec()?,
        })
    }
}

fn rmat_arr(m: &Mat) -> Result<Array<f64>> {
    Array::from_vec(m.data.clone(), &[m.rows, m.cols], &Device::Cpu)
}

/// The `m × m` unitary factor of the complete QR of `a`.
fn q_complete(a: &CMat) -> Result<CMat> {
    if a.c == 0 {
        let mut q = CMat::zeros(a.r, a.r);
        for i in 0..a.r {
            q.set(i, i, c64::new(1.0, 0.0));
        }
        return Ok(q);
    }
    let f = cusci_linalg::qr(&a.arr()?, cusci_linalg::QrMode::Complete)?;
    let q =
        f.q.as_ref()
            .ok_or_else(|| make::arg("place_poles", "the complete QR returned no Q"))?;
    CMat::from_arr(q)
}

fn norm(v: &[c64]) -> f64 {
    v.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt()
}

/// `|det X|` of the real eigenvector-pair matrix.
fn abs_det(x: &Mat) -> Result<f64> {
    Ok(cusci_linalg::det(&rmat_arr(x)?)?.to_vec()?[0].abs())
}

fn is_real(p: c64) -> bool {
    p.im == 0.0
}

/// NumPy's complex sort order (real part, then imaginary part).
fn cmp_c(a: &c64, b: &c64) -> std::cmp::Ordering {
    a.re.total_cmp(&b.re).then(a.im.total_cmp(&b.im))
}

/// Real values ascending, then the complex pairs (negative imaginary part first) in NumPy's
/// order of their negative-imaginary members. Values whose partner is missing go last.
fn order_poles(p: &[c64]) -> Vec<c64> {
    let mut real: Vec<c64> = p.iter().copied().filter(|z| is_real(*z)).collect();
    real.sort_by(cmp_c);
    let mut neg: Vec<c64> = p.iter().copied().filter(|z| z.im < 0.0).collect();
    neg.sort_by(cmp_c);
    let mut pos: Vec<c64> = p.iter().copied().filter(|z| z.im > 0.0).collect();
    pos.sort_by(|a, b| cmp_c(&a.conj(), &b.conj()));
    let mut out = real;
    let k = neg.len().min(pos.len());
    for i in 0..k {
        out.push(neg[i]);
        out.push(pos[i]);
    }
    out.extend(&neg[k..]);
    out.extend(&pos[k..]);
    out
}

fn cant_place() -> cusci_core::Error {
    make::arg(
        "place_poles",
        "The poles you've chosen can't be placed. Check the controllability matrix and try \
         another set of poles",
    )
}

/// `scipy.signal.place_poles(A, B, poles, method, rtol, maxiter)`: the gain `K` of the state
/// feedback `u = -Kx` that places the eigenvalues of `A - BK` at `poles`, robustly (see the
/// [module docs](self) for the algorithm: Kautsky–Nichols–Van Dooren and Tits–Yang).
///
/// Host data: `A` (`n × n`), `B` (`n × m`) and the poles are a few host values, as SciPy's
/// arrays; the linear algebra runs through `cusci-linalg` on the CPU.
///
/// Complex poles must come in conjugate pairs. A pole may be repeated at most `rank(B)` times.
/// With one input the gain is unique (Ackermann's); with `rank(B) = n`, `X = I` and
/// `K = lstsq(B, A - Λ)`; otherwise the result depends on the method (a multi-input placement has
/// many solutions) and on the iteration, so it agrees with SciPy's in its poles, not necessarily
/// in `K`. The system must be controllable for the poles to be placed (as in SciPy this is not
/// checked beforehand: `computed_poles` tells).
///
/// Errors (SciPy's messages): `ShapeMismatch` when `A` is not square or `B` has not `n` rows;
/// `InvalidArgument` for not exactly `n` poles, non-finite values, a complex pole without its
/// conjugate, complex poles with KNV0, `rtol > 1`, `maxiter < 1`, a pole repeated more than
/// `rank(B)` times, a rank-deficient `B` with more columns than its rank or an `X` that cannot
/// be inverted ("The poles you've chosen can't be placed").
///
/// ```
/// use cusci_signal::{place_poles, ltisys::Mat, PlacePolesOptions};
/// use cusci_core::c64;
/// // a double integrator, one input: K is unique
/// let a = Mat::from_rows(&[&[0.0, 1.0], &[0.0, 0.0]]).unwrap();
/// let b = Mat::from_rows(&[&[0.0], &[1.0]]).unwrap();
/// let p = [c64::new(-1.0, 0.0), c64::new(-2.0, 0.0)];
/// let r = place_poles(&a, &b, &p, &PlacePolesOptions::default()).unwrap();
/// // (s + 1)(s + 2) = s² + 3s + 2: K = [2, 3]
/// assert!((r.gain_matrix.data[0] - 2.0).abs() < 1e-12 && (r.gain_matrix.data[1] - 3.0).abs() < 1e-12);
/// ```
pub fn place_poles(
    a: &Mat,
    b: &Mat,
    poles: &[c64],
    opts: &PlacePolesOptions,
) -> Result<FullStateFeedback> {
    let op = "place_poles";
    let n = a.rows;
    if a.cols != n {
        return Err(make::shape(op, "A must be square"));
    }
    if b.rows != n {
        return Err(make::shape(
            op,
            format!(
                "B has {} rows but A is {n} x {n} (B must have as many rows as A)",
                b.rows
            ),
        ));
    }
    if poles.len() > n {
        return Err(make::arg(
            op,
            format!(
                "maximum number of poles is {n} but you asked for {}",
                poles.len()
            ),
        ));
    }
    if poles.len() < n {
        return Err(make::arg(
            op,
            format!(
                "number of poles is {} but you should provide {n}",
                poles.len()
            ),
        ));
    }
    if a.data.iter().chain(&b.data).any(|v| !v.is_finite())
        || poles
            .iter()
            .any(|p| !(p.re.is_finite() && p.im.is_finite()))
    {
        return Err(make::arg(op, "A, B and the poles must be finite"));
    }
    for p in poles.iter().filter(|p| !is_real(**p)) {
        let same = poles.iter().filter(|q| *q == p).count();
        let conj = poles.iter().filter(|q| **q == p.conj()).count();
        if same != conj {
            return Err(make::arg(
                op,
                "Complex poles must come with their conjugates",
            ));
        }
    }
    if opts.method == PlacePolesMethod::Knv0 && poles.iter().any(|p| !is_real(*p)) {
        return Err(make::arg(op, "Complex poles are not supported by KNV0"));
    }
    if opts.maxiter < 1 {
        return Err(make::arg(op, "maxiter must be at least equal to 1"));
    }
    if opts.rtol > 1.0 {
        return Err(make::arg(op, "rtol can not be greater than 1"));
    }
    if n == 0 {
        return Err(make::shape(op, "A must have at least one state"));
    }
    let rank = if b.cols == 0 {
        0
    } else {
        cusci_linalg::matrix_rank(&rmat_arr(b)?, None)?.to_vec()?[0] as usize
    };
    if poles
        .iter()
        .any(|p| poles.iter().filter(|q| *q == p).count() > rank)
    {
        return Err(make::arg(
            op,
            "at least one of the requested pole is repeated more than rank(B) times",
        ));
    }
    let poles = order_poles(poles);
    let m = b.cols;

    let (gain, xc, rtol, nb_iter, converged) = if rank == n {
        // X = I: K solves B K = A - Λ_r in the least-squares (minimum-norm) sense
        let mut rhs = a.clone();
        let mut i = 0;
        while i < n {
            let p = poles[i];
            rhs.data[i * n + i] -= p.re;
            if !is_real(p) {
                rhs.data[i * n + i + 1] += p.im;
                rhs.data[(i + 1) * n + i + 1] -= p.re;
                rhs.data[(i + 1) * n + i] -= p.im;
                i += 1;
            }
            i += 1;
        }
        let k = cusci_linalg::lstsq(&rmat_arr(b)?, &rmat_arr(&rhs)?, None)?;
        let gain = Mat::new(m, n, k.x.to_vec()?)?;
        let mut x = vec![c64::new(0.0, 0.0); n * n];
        for i in 0..n {
            x[i * n + i] = c64::new(1.0, 0.0);
        }
        (gain, x, f64::NAN, None, true)
    } else {
        if rank < m {
            // B = U0 Z with Z (rank x m) not invertible
            return Err(cant_place());
        }
        let bq = q_complete(&CMat::real(b))?;
        let u0 = bq.cols(0, rank);
        let u1 = bq.cols(rank, n);
        let ac = CMat::real(a);
        // the admissible eigenvector spaces, one per pole (a pair shares its negative member's)
        let mut spaces: Vec<CMat> = Vec::with_capacity(n);
        let mut x = Mat::zeros(n, n);
        let mut j = 0;
        while j < n {
            let p = poles[j];
            let mut alp = ac.clone();
            for i in 0..n {
                alp.d[i * n + i] -= p;
            }
            // ker(U1ᵀ (A - pI)) = orthogonal complement of the columns of (A - pI)ᴴ U1
            let nh = alp.h().mul(&u1);
            let q = q_complete(&nh)?;
            let mut s = q.cols(n - rank, n);
            if is_real(p) {
                for v in s.d.iter_mut() {
                    *v = c64::new(v.re, 0.0);
                }
            }
            let mut v: Vec<c64> = (0..n)
                .map(|i| (0..rank).map(|k| s.at(i, k)).sum())
                .collect();
            let nv = norm(&v);
            if nv > 0.0 {
                v.iter_mut().for_each(|z| *z /= nv);
            } else {
                v = s.col(0);
            }
            if is_real(p) {
                for (i, vi) in v.iter().enumerate() {
                    x.data[i * n + j] = vi.re;
                }
                spaces.push(s);
                j += 1;
            } else {
                for (i, vi) in v.iter().enumerate() {
                    x.data[i * n + j] = vi.re;
                    x.data[i * n + j + 1] = vi.im;
                }
                spaces.push(s.clone());
                spaces.push(s);
                j += 2;
            }
        }
        let (rtol, iters, conv) = if rank > 1 {
            iterate(&mut x, &spaces, &poles, opts)?
        } else {
            (0.0, 0, true)
        };
        // complex X: columns x and conj(x) for each pair
        let mut xc = CMat::zeros(n, n);
        let mut j = 0;
        while j < n {
            if is_real(poles[j]) {
                for i in 0..n {
                    xc.set(i, j, c64::new(x.at(i, j), 0.0));
                }
                j += 1;
            } else {
                for i in 0..n {
                    let z = c64::new(x.at(i, j), x.at(i, j + 1));
                    xc.set(i, j, z);
                    xc.set(i, j + 1, z.conj());
                }
                j += 2;
            }
        }
        // M = X Λ X⁻¹ (Mᵀ = X⁻ᵀ (X Λ)ᵀ), then Z F = U0ᵀ (M - A), K = -Re F
        let mut xl = xc.clone();
        for i in 0..n {
            for (j, p) in poles.iter().enumerate() {
                xl.d[i * n + j] *= *p;
            }
        }
        let mt = cusci_linalg::solve(&xc.t().arr()?, &xl.t().arr()?).map_err(|_| cant_place())?;
        let mm = CMat::from_arr(&mt)?.t();
        let mut dm = mm;
        for (v, w) in dm.d.iter_mut().zip(&ac.d) {
            *v -= *w;
        }
        let rhs = u0.t().mul(&dm);
        let z = u0.t().mul(&CMat::real(b));
        let f = cusci_linalg::solve(&z.arr()?, &rhs.arr()?).map_err(|_| cant_place())?;
        let f = f.to_vec()?;
        if f.iter().any(|v| !(v.re.is_finite() && v.im.is_finite())) {
            return Err(cant_place());
        }
        let gain = Mat::new(m, n, f.iter().map(|v| -v.re).collect())?;
        (gain, xc.d, rtol, Some(iters), conv)
    };
    // The sign convention: the solves above give F with A + BF = M; K = -F already applied.
    let mut cl = a.clone();
    for i in 0..n {
        for j in 0..n {
            let s: f64 = (0..m).map(|k| b.at(i, k) * gain.at(k, j)).sum();
            cl.data[i * n + j] -= s;
        }
    }
    let computed = order_poles(&cusci_linalg::eigvals(&rmat_arr(&cl)?)?.to_vec()?);
    Ok(FullStateFeedback {
        gain_matrix: gain,
        computed_poles: computed,
        requested_poles: poles,
        x: xc,
        rtol,
        nb_iter,
        converged,
    })
}

/// The columns of `x` other than `skip`, as a complex matrix.
fn others(x: &Mat, skip: &[usize]) -> CMat {
    let keep: Vec<usize> = (0..x.cols).filter(|j| !skip.contains(j)).collect();
    let mut m = CMat::zeros(x.rows, keep.len());
    for i in 0..x.rows {
        for (jj, &j) in keep.iter().enumerate() {
            m.set(i, jj, c64::new(x.at(i, j), 0.0));
        }
    }
    m
}

/// The last `k` columns of the complete QR of the other columns: an orthonormal basis of their
/// complement (real).
fn complement(x: &Mat, skip: &[usize]) -> Result<Vec<Vec<f64>>> {
    let q = q_complete(&others(x, skip))?;
    let n = x.rows;
    Ok((n - skip.len()..n)
        .map(|j| (0..n).map(|i| q.at(i, j).re).collect())
        .collect())
}

fn set_col(x: &mut Mat, j: usize, v: &[f64]) {
    for (i, &vi) in v.iter().enumerate() {
        x.data[i * x.cols + j] = vi;
    }
}

/// `S sᴴ y` normalised (KNV0's update of the real column `j`).
fn knv0_update(x: &mut Mat, s: &CMat, j: usize) -> Result<()> {
    let y = &complement(x, &[j])?[0];
    let n = x.rows;
    let coef: Vec<f64> = (0..s.c)
        .map(|k| (0..n).map(|i| s.at(i, k).re * y[i]).sum())
        .collect();
    let mut v: Vec<f64> = (0..n)
        .map(|i| (0..s.c).map(|k| s.at(i, k).re * coef[k]).sum())
        .collect();
    let nv = v.iter().map(|t| t * t).sum::<f64>().sqrt();
    if nv > 1e-14 {
        v.iter_mut().for_each(|t| *t /= nv);
    } else {
        // y is orthogonal to S: any vector of S
        v = (0..n).map(|i| s.at(i, 0).re).collect();
    }
    set_col(x, j, &v);
    Ok(())
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-8 + 1e-5 * b.abs()
}

/// Tits–Yang's update of the real columns `i`, `j`.
fn yt_real(x: &mut Mat, si: &CMat, sj: &CMat, i: usize, j: usize) -> Result<()> {
    let n = x.rows;
    let uv = complement(x, &[i, j])?;
    let (u, v) = (&uv[0], &uv[1]);
    // K = u vᵀ - v uᵀ; M = Siᵀ K Sj  (r x r)
    let r = si.c;
    let siu: Vec<f64> = (0..r)
        .map(|k| (0..n).map(|t| si.at(t, k).re * u[t]).sum())
        .collect();
    let siv: Vec<f64> = (0..r)
        .map(|k| (0..n).map(|t| si.at(t, k).re * v[t]).sum())
        .collect();
    let sju: Vec<f64> = (0..r)
        .map(|k| (0..n).map(|t| sj.at(t, k).re * u[t]).sum())
        .collect();
    let sjv: Vec<f64> = (0..r)
        .map(|k| (0..n).map(|t| sj.at(t, k).re * v[t]).sum())
        .collect();
    let mut mdat = vec![0.0; r * r];
    for a in 0..r {
        for b in 0..r {
            mdat[a * r + b] = siu[a] * sjv[b] - siv[a] * sju[b];
        }
    }
    let svd = cusci_linalg::svd(
        &Array::from_vec(mdat, &[r, r], &Device::Cpu)?,
        cusci_linalg::SvdOptions::default(),
    )?;
    let no_vectors = || make::arg("place_poles", "the SVD returned no singular vectors");
    let um = svd.u.as_ref().ok_or_else(no_vectors)?.to_vec()?;
    let vh = svd.vh.as_ref().ok_or_else(no_vectors)?.to_vec()?;
    let sv = svd.s.to_vec()?;
    let xi_old: Vec<f64> = (0..n).map(|t| x.at(t, i)).collect();
    let xj_old: Vec<f64> = (0..n).map(|t| x.at(t, j)).collect();
    // candidate pairs (S_i mu_k, S_j nu_k)
    let cand = |k: usize| -> (Vec<f64>, Vec<f64>) {
        let a: Vec<f64> = (0..n)
            .map(|t| (0..r).map(|c| si.at(t, c).re * um[c * r + k]).sum())
            .collect();
        let b: Vec<f64> = (0..n)
            .map(|t| (0..r).map(|c| sj.at(t, c).re * vh[k * r + c]).sum())
            .collect();
        (a, b)
    };
    let dot = |p: &[f64], q: &[f64]| p.iter().zip(q).map(|(a, b)| a * b).sum::<f64>();
    let (c1i, c1j) = cand(0);
    let (ni, nj) = if r > 1 && close(sv[0], sv[1]) {
        // a plane of maximisers: the one nearest the current pair
        let (c2i, c2j) = cand(1);
        let mut al = dot(&c1i, &xi_old) + dot(&c1j, &xj_old);
        let mut be = dot(&c2i, &xi_old) + dot(&c2j, &xj_old);
        let h = (al * al + be * be).sqrt();
        if h > 1e-14 {
            al /= h;
            be /= h;
        } else {
            al = 1.0;
            be = 0.0;
        }
        (
            (0..n).map(|t| al * c1i[t] + be * c2i[t]).collect(),
            (0..n).map(|t| al * c1j[t] + be * c2j[t]).collect(),
        )
    } else {
        let sg = if dot(&c1i, &xi_old) + dot(&c1j, &xj_old) < 0.0 {
            -1.0
        } else {
            1.0
        };
        (
            c1i.iter().map(|v| sg * v).collect::<Vec<f64>>(),
            c1j.iter().map(|v| sg * v).collect::<Vec<f64>>(),
        )
    };
    set_col(x, i, &ni);
    set_col(x, j, &nj);
    Ok(())
}

/// Tits–Yang's update of a complex pair held in columns `i` (real part) and `i + 1` (imaginary).
fn yt_complex(x: &mut Mat, s: &CMat, i: usize) -> Result<()> {
    let n = x.rows;
    let uv = complement(x, &[i, i + 1])?;
    let (u, v) = (&uv[0], &uv[1]);
    let r = s.c;
    // G = Sᴴ H S, H = (u vᵀ - v uᵀ)/(2i)
    let su: Vec<c64> = (0..r)
        .map(|k| (0..n).map(|t| s.at(t, k).conj() * u[t]).sum())
        .collect();
    let sv: Vec<c64> = (0..r)
        .map(|k| (0..n).map(|t| s.at(t, k).conj() * v[t]).sum())
        .collect();
    let mut g = vec![c64::new(0.0, 0.0); r * r];
    let two_i = c64::new(0.0, 2.0);
    for a in 0..r {
        for b in 0..r {
            // (Sᴴu)(vᵀS) - (Sᴴv)(uᵀS); vᵀ S = conj(Sᴴ v) since v is real
            g[a * r + b] = (su[a] * sv[b].conj() - sv[a] * su[b].conj()) / two_i;
        }
    }
    let (w, vecs) = cusci_linalg::eigh(&Array::from_vec(g, &[r, r], &Device::Cpu)?, true)?;
    let w = w.to_vec()?;
    let vecs = vecs.to_vec()?;
    let mut idx: Vec<usize> = (0..r).collect();
    idx.sort_by(|&p, &q| w[q].abs().total_cmp(&w[p].abs()));
    let cand = |k: usize| -> Vec<c64> {
        (0..n)
            .map(|t| (0..r).map(|c| s.at(t, c) * vecs[c * r + k]).sum())
            .collect()
    };
    let old: Vec<c64> = (0..n)
        .map(|t| c64::new(x.at(t, i), x.at(t, i + 1)))
        .collect();
    let inner = |p: &[c64], q: &[c64]| -> c64 { p.iter().zip(q).map(|(a, b)| a.conj() * b).sum() };
    let basis: Vec<Vec<c64>> = if r > 1 && close(w[idx[0]].abs(), w[idx[1]].abs()) {
        vec![cand(idx[0]), cand(idx[1])]
    } else {
        vec![cand(idx[0])]
    };
    // the member of span(basis) nearest the current vector (phase aligned), unit norm
    let mut newv = vec![c64::new(0.0, 0.0); n];
    for bv in &basis {
        let c = inner(bv, &old);
        for t in 0..n {
            newv[t] += bv[t] * c;
        }
    }
    let nv = norm(&newv);
    if nv > 1e-14 {
        newv.iter_mut().for_each(|z| *z /= nv);
    } else {
        newv = basis[0].clone();
    }
    for (t, z) in newv.iter().enumerate() {
        x.data[t * n + i] = z.re;
        x.data[t * n + i + 1] = z.im;
    }
    Ok(())
}

/// The sweeps of KNV0 or YT; returns (last relative change, sweeps, converged).
fn iterate(
    x: &mut Mat,
    spaces: &[CMat],
    poles: &[c64],
    opts: &PlacePolesOptions,
) -> Result<(f64, usize, bool)> {
    let n = x.rows;
    let nreal = poles.iter().filter(|p| is_real(**p)).count();
    let floor = f64::EPSILON.sqrt();
    let mut cur = f64::NAN;
    for sweep in 0..opts.maxiter {
        let before = abs_det(x)?;
        match opts.method {
            PlacePolesMethod::Knv0 => {
                for (j, s) in spaces.iter().enumerate() {
                    knv0_update(x, s, j)?;
                }
            }
            PlacePolesMethod::Yt => {
                // real pairs: every (i, j), in cyclic distance order so that each sweep
                // starts with neighbours; one real pole alone: KNV0's update
                if nreal == 1 {
                    knv0_update(x, &spaces[0], 0)?;
                }
                for d in 1..nreal {
                    for i in 0..nreal {
                        let j = i + d;
                        if j < nreal {
                            yt_real(x, &spaces[i], &spaces[j], i, j)?;
                        }
                    }
                }
                let mut j = nreal;
                while j + 1 < n {
                    yt_complex(x, &spaces[j], j)?;
                    j += 2;
                }
            }
        }
        let after = abs_det(x)?.max(floor);
        cur = ((after - before) / after).abs();
        if cur < opts.rtol && after > floor {
            return Ok((cur, sweep + 1, true));
        }
    }
    Ok((cur, opts.maxiter, false))
}
