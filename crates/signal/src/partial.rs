//! Partial-fraction expansions: `residue`, `residuez`, their inverses `invres`, `invresz`, and
//! `unique_roots`. Host data in and out, following SciPy's algorithms step by step (poles from
//! [`roots`], grouped within `tol`, residues of repeated poles by successive polynomial
//! divisions).

use crate::represent::roots;
use cusci_core::error::make;
use cusci_core::{c64, Result};

/// How [`unique_roots`] (and the grouping of repeated poles) picks one value for a group of
/// close roots (SciPy's `rtype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RootType {
    /// The largest (complex values ordered by real part, then imaginary part, as NumPy).
    Max,
    /// The smallest.
    Min,
    /// The mean (the default of `residue`, `invres`, ...).
    #[default]
    Avg,
}

fn lex_lt(a: c64, b: c64) -> bool {
    a.re < b.re || (a.re == b.re && a.im < b.im)
}

fn reduce(v: &[c64], rtype: RootType) -> c64 {
    match rtype {
        RootType::Avg => v.iter().sum::<c64>() / v.len() as f64,
        RootType::Max => v
            .iter()
            .copied()
            .fold(v[0], |m, x| if lex_lt(m, x) { x } else { m }),
        RootType::Min => v
            .iter()
            .copied()
            .fold(v[0], |m, x| if lex_lt(x, m) { x } else { m }),
    }
}

fn check_tol(op: &str, tol: f64) -> Result<()> {
    if tol.is_nan() || tol < 0.0 {
        return Err(make::arg(
            op,
            format!("tol must be non-negative, got {tol}"),
        ));
    }
    Ok(())
}

/// `scipy.signal.unique_roots(p, tol, rtype)`: groups the roots that lie within `tol` (Euclidean
/// distance in the complex plane) of a root not yet grouped, in order of first appearance, and
/// returns one value per group (`rtype`) and the group sizes.
///
/// Errors: `InvalidArgument` for a negative or NaN `tol`.
///
/// ```
/// use cusci_core::c64;
/// use cusci_signal::partial::{unique_roots, RootType};
/// let p = [c64::new(1.0, 0.0), c64::new(1.0005, 0.0), c64::new(3.0, 0.0)];
/// let (u, m) = unique_roots(&p, 1e-3, RootType::Min).unwrap();
/// assert_eq!(m, vec![2, 1]);
/// assert_eq!(u[0].re, 1.0);
/// ```
#[allow(clippy::needless_range_loop)]
pub fn unique_roots(p: &[c64], tol: f64, rtype: RootType) -> Result<(Vec<c64>, Vec<usize>)> {
    check_tol("unique_roots", tol)?;
    let mut used = vec![false; p.len()];
    let (mut u, mut m) = (Vec::new(), Vec::new());
    for i in 0..p.len() {
        if used[i] {
            continue;
        }
        let group: Vec<usize> = (0..p.len())
            .filter(|&j| !used[j] && (p[j] - p[i]).norm() <= tol)
            .collect();
        let vals: Vec<c64> = group.iter().map(|&j| p[j]).collect();
        u.push(reduce(&vals, rtype));
        m.push(group.len());
        for j in group {
            used[j] = true;
        }
    }
    Ok((u, m))
}

fn polymul(a: &[c64], b: &[c64]) -> Vec<c64> {
    if a.is_empty() || b.is_empty() {
        return vec![];
    }
    let mut o = vec![c64::new(0.0, 0.0); a.len() + b.len() - 1];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            o[i + j] += x * y;
        }
    }
    o
}

/// `numpy.polyadd` / `polysub` (`sign = -1`): the shorter polynomial is padded at the front.
fn polyadd(a: &[c64], b: &[c64], sign: f64) -> Vec<c64> {
    let n = a.len().max(b.len());
    let mut o = vec![c64::new(0.0, 0.0); n];
    for (i, x) in a.iter().enumerate() {
        o[n - a.len() + i] += x;
    }
    for (i, x) in b.iter().enumerate() {
        o[n - b.len() + i] += sign * x;
    }
    o
}

fn polyval(p: &[c64], x: c64) -> c64 {
    p.iter().fold(c64::new(0.0, 0.0), |y, &c| y * x + c)
}

/// `numpy.polydiv`: quotient and remainder; leading remainder terms within
/// `allclose(·, 0)` (|r| ≤ 1e-8) are dropped while more than one remains.
#[allow(clippy::needless_range_loop)]
fn polydiv(u: &[c64], v: &[c64]) -> (Vec<c64>, Vec<c64>) {
    let m = u.len() as isize - 1;
    let n = v.len() as isize - 1;
    let scale = 1.0 / v[0];
    let mut q = vec![c64::new(0.0, 0.0); (m - n + 1).max(1) as usize];
    let mut r = u.to_vec();
    for k in 0..(m - n + 1).max(0) as usize {
        let d = scale * r[k];
        q[k] = d;
        for (j, vj) in v.iter().enumerate() {
            r[k + j] -= d * vj;
        }
    }
    let mut start = 0;
    while r.len() - start > 1 && r[start].norm() <= 1e-8 {
        start += 1;
    }
    (q, r[start..].to_vec())
}

/// SciPy's `_compute_factors`: for each pole (and power), the product of the other factors of the
/// denominator; and the whole denominator.
#[allow(clippy::needless_range_loop)]
fn compute_factors(
    roots: &[c64],
    mult: &[usize],
    include_powers: bool,
) -> (Vec<Vec<c64>>, Vec<c64>) {
    let one = vec![c64::new(1.0, 0.0)];
    let mut current = one.clone();
    let mut suffixes = vec![current.clone()];
    for i in (1..roots.len()).rev() {
        let mono = [c64::new(1.0, 0.0), -roots[i]];
        for _ in 0..mult[i] {
            current = polymul(&current, &mono);
        }
        suffixes.push(current.clone());
    }
    suffixes.reverse();
    let mut factors = Vec::new();
    let mut current = one;
    for (i, &pole) in roots.iter().enumerate() {
        let mono = [c64::new(1.0, 0.0), -pole];
        let mut block = Vec::new();
        for j in 0..mult[i] {
            if j == 0 || include_powers {
                block.push(polymul(&current, &suffixes[i]));
            }
            current = polymul(&current, &mono);
        }
        block.reverse();
        factors.extend(block);
    }
    (factors, current)
}

fn compute_residues(poles: &[c64], mult: &[usize], numerator: &[c64]) -> Vec<c64> {
    let (factors, _) = compute_factors(poles, mult, false);
    let mut res = Vec::new();
    for ((&pole, &m), factor) in poles.iter().zip(mult).zip(&factors) {
        if m == 1 {
            res.push(polyval(numerator, pole) / polyval(factor, pole));
        } else {
            let mut numer = numerator.to_vec();
            let mono = [c64::new(1.0, 0.0), -pole];
            let (factor, d) = polydiv(factor, &mono);
            let mut block = Vec::new();
            for _ in 0..m {
                let (q, n) = polydiv(&numer, &mono);
                let r = n[0] / d[0];
                let rf: Vec<c64> = factor.iter().map(|f| r * f).collect();
                numer = polyadd(&q, &rf, -1.0);
                block.push(r);
            }
            block.reverse();
            res.extend(block);
        }
    }
    res
}

/// SciPy's `_cmplx_sort`: by magnitude (stable here; NumPy's sort may order ties differently).
fn cmplx_sort(p: &[c64]) -> (Vec<c64>, Vec<usize>) {
    let mut idx: Vec<usize> = (0..p.len()).collect();
    idx.sort_by(|&a, &b| p[a].norm().total_cmp(&p[b].norm()));
    (idx.iter().map(|&i| p[i]).collect(), idx)
}

/// A partial-fraction expansion: residues, poles (repeated poles listed once per power) and the
/// direct polynomial term (SciPy's `(r, p, k)`).
#[derive(Clone, Debug, PartialEq)]
pub struct Residues {
    /// Residues, one per pole entry.
    pub r: Vec<c64>,
    /// Poles ordered by magnitude; a pole of multiplicity `m` appears `m` times (the averaged
    /// group value), matching powers 1..=m of its terms.
    pub p: Vec<c64>,
    /// Coefficients of the direct term (empty when the fraction is strictly proper).
    pub k: Vec<f64>,
}

fn trim_front(v: &[f64]) -> &[f64] {
    let s = v.iter().position(|&x| x != 0.0).unwrap_or(v.len());
    &v[s..]
}

fn trim_back(v: &[f64]) -> &[f64] {
    let e = v.iter().rposition(|&x| x != 0.0).map_or(0, |i| i + 1);
    &v[..e]
}

fn to_c(v: &[f64]) -> Vec<c64> {
    v.iter().map(|&x| c64::new(x, 0.0)).collect()
}

fn check_finite(op: &str, v: &[f64]) -> Result<()> {
    if v.iter().any(|x| !x.is_finite()) {
        return Err(make::arg(op, "coefficients must be finite"));
    }
    Ok(())
}

/// `scipy.signal.residue(b, a, tol, rtype)`: the partial-fraction expansion
/// `b(s)/a(s) = Σ r_i / (s - p_i)^{m_i} + k(s)`; poles closer than `tol` are treated as one
/// repeated pole (see [`unique_roots`]).
///
/// Errors: `InvalidArgument` when `a` is zero, coefficients are not finite, or `tol < 0`; those of
/// [`roots`].
///
/// ```
/// let e = cusci_signal::partial::residue(&[1.0], &[1.0, 3.0, 2.0], 1e-3, Default::default()).unwrap();
/// // 1/((s+1)(s+2)) = 1/(s+1) - 1/(s+2)
/// assert!((e.r[0].re - 1.0).abs() < 1e-12 && (e.p[0].re + 1.0).abs() < 1e-12);
/// ```
pub fn residue(b: &[f64], a: &[f64], tol: f64, rtype: RootType) -> Result<Residues> {
    let op = "residue";
    check_tol(op, tol)?;
    check_finite(op, b)?;
    check_finite(op, a)?;
    let b = trim_front(b);
    let a = trim_front(a);
    if a.is_empty() {
        return Err(make::arg(op, "Denominator `a` is zero."));
    }
    let poles = roots(a)?;
    if b.is_empty() {
        return Ok(Residues {
            r: vec![c64::new(0.0, 0.0); poles.len()],
            p: cmplx_sort(&poles).0,
            k: vec![],
        });
    }
    let (k, rem) = if b.len() < a.len() {
        (vec![], to_c(b))
    } else {
        let (q, r) = polydiv(&to_c(b), &to_c(a));
        (q.iter().map(|c| c.re).collect(), r)
    };
    let (up, mult) = unique_roots(&poles, tol, rtype)?;
    let (up, order) = cmplx_sort(&up);
    let mult: Vec<usize> = order.iter().map(|&i| mult[i]).collect();
    let res = compute_residues(&up, &mult, &rem);
    let mut p = Vec::with_capacity(poles.len());
    for (&pole, &m) in up.iter().zip(&mult) {
        p.extend(std::iter::repeat_n(pole, m));
    }
    Ok(Residues {
        r: res.iter().map(|r| r / a[0]).collect(),
        p,
        k,
    })
}

/// `scipy.signal.residuez(b, a, tol, rtype)`: the expansion in `z⁻¹`,
/// `b(z)/a(z) = Σ r_i / (1 - p_i z⁻¹)^{m_i} + k(z)` (coefficients in increasing powers of `z⁻¹`).
///
/// Errors: `InvalidArgument` when `a` is zero or `a[0] = 0`, coefficients are not finite, or
/// `tol < 0`.
pub fn residuez(b: &[f64], a: &[f64], tol: f64, rtype: RootType) -> Result<Residues> {
    let op = "residuez";
    check_tol(op, tol)?;
    check_finite(op, b)?;
    check_finite(op, a)?;
    let b = trim_back(b);
    let a = trim_back(a);
    if a.is_empty() {
        return Err(make::arg(op, "Denominator `a` is zero."));
    }
    if a[0] == 0.0 {
        return Err(make::arg(
            op,
            "First coefficient of determinant `a` must be non-zero.",
        ));
    }
    let poles = roots(a)?;
    if b.is_empty() {
        return Ok(Residues {
            r: vec![c64::new(0.0, 0.0); poles.len()],
            p: cmplx_sort(&poles).0,
            k: vec![],
        });
    }
    let b_rev: Vec<f64> = b.iter().rev().copied().collect();
    let a_rev: Vec<f64> = a.iter().rev().copied().collect();
    let (k_rev, b_rev) = if b_rev.len() < a_rev.len() {
        (vec![], to_c(&b_rev))
    } else {
        let (q, r) = polydiv(&to_c(&b_rev), &to_c(&a_rev));
        (q.iter().map(|c| c.re).collect::<Vec<f64>>(), r)
    };
    let (up, mult) = unique_roots(&poles, tol, rtype)?;
    let (up, order) = cmplx_sort(&up);
    let mult: Vec<usize> = order.iter().map(|&i| mult[i]).collect();
    let inv: Vec<c64> = up.iter().map(|p| 1.0 / p).collect();
    let mut res = compute_residues(&inv, &mult, &b_rev);
    let mut p = Vec::with_capacity(poles.len());
    let mut powers = Vec::with_capacity(poles.len());
    for (&pole, &m) in up.iter().zip(&mult) {
        p.extend(std::iter::repeat_n(pole, m));
        powers.extend(1..=m as i32);
    }
    for ((r, &pole), &pw) in res.iter_mut().zip(&p).zip(&powers) {
        *r *= (-pole).powi(pw) / a_rev[0];
    }
    Ok(Residues {
        r: res,
        p,
        k: k_rev.into_iter().rev().collect(),
    })
}

/// SciPy's `_group_poles`: runs of consecutive poles within `tol` of the run's first pole.
fn group_poles(p: &[c64], tol: f64, rtype: RootType) -> (Vec<c64>, Vec<usize>) {
    let (mut u, mut m) = (Vec::new(), Vec::new());
    if p.is_empty() {
        return (u, m);
    }
    let mut pole = p[0];
    let mut block = vec![pole];
    for &x in &p[1..] {
        if (x - pole).norm() <= tol {
            block.push(pole);
        } else {
            u.push(reduce(&block, rtype));
            m.push(block.len());
            pole = x;
            block = vec![pole];
        }
    }
    u.push(reduce(&block, rtype));
    m.push(block.len());
    (u, m)
}

fn check_rp(op: &str, r: &[c64], p: &[c64]) -> Result<()> {
    if r.len() != p.len() {
        return Err(make::shape(
            op,
            format!("{} residues for {} poles", r.len(), p.len()),
        ));
    }
    if r.iter()
        .chain(p)
        .any(|v| !(v.re.is_finite() && v.im.is_finite()))
    {
        return Err(make::arg(op, "residues and poles must be finite"));
    }
    Ok(())
}

/// The checks of [`invres`] and [`invresz`], then the factors of the expansion and its
/// denominator, consecutive poles within `tol` grouped as one repeated pole.
#[allow(clippy::type_complexity)]
fn inverse_factors(
    op: &str,
    r: &[c64],
    p: &[c64],
    k: &[f64],
    tol: f64,
    rtype: RootType,
) -> Result<(Vec<Vec<c64>>, Vec<c64>)> {
    check_tol(op, tol)?;
    check_rp(op, r, p)?;
    check_finite(op, k)?;
    let (up, mult) = group_poles(p, tol, rtype);
    Ok(compute_factors(&up, &mult, true))
}

/// `scipy.signal.invres(r, p, k, tol, rtype)`: the numerator and denominator (complex, highest
/// power first) of the expansion of [`residue`]; consecutive poles within `tol` are one repeated
/// pole, whose entries are the residues of powers 1, 2, ….
///
/// Errors: `ShapeMismatch` when `r` and `p` differ in length; `InvalidArgument` for non-finite
/// values or `tol < 0`.
///
/// ```
/// use cusci_core::c64;
/// let r = [c64::new(1.0, 0.0), c64::new(-1.0, 0.0)];
/// let p = [c64::new(-1.0, 0.0), c64::new(-2.0, 0.0)];
/// let (b, a) = cusci_signal::partial::invres(&r, &p, &[], 1e-3, Default::default()).unwrap();
/// assert!((b.last().unwrap().re - 1.0).abs() < 1e-12 && (a[1].re - 3.0).abs() < 1e-12);
/// ```
#[allow(clippy::type_complexity)]
pub fn invres(
    r: &[c64],
    p: &[c64],
    k: &[f64],
    tol: f64,
    rtype: RootType,
) -> Result<(Vec<c64>, Vec<c64>)> {
    let (factors, den) = inverse_factors("invres", r, p, k, tol, rtype)?;
    let k = trim_front(k);
    let mut num = if k.is_empty() {
        vec![c64::new(0.0, 0.0)]
    } else {
        polymul(&to_c(k), &den)
    };
    for (res, f) in r.iter().zip(&factors) {
        let t: Vec<c64> = f.iter().map(|x| res * x).collect();
        num = polyadd(&num, &t, 1.0);
    }
    Ok((num, den))
}

/// `scipy.signal.invresz(r, p, k, tol, rtype)`: the numerator and denominator (complex, in
/// increasing powers of `z⁻¹`) of the expansion of [`residuez`].
///
/// Errors: as [`invres`].
#[allow(clippy::type_complexity)]
pub fn invresz(
    r: &[c64],
    p: &[c64],
    k: &[f64],
    tol: f64,
    rtype: RootType,
) -> Result<(Vec<c64>, Vec<c64>)> {
    let (factors, den) = inverse_factors("invresz", r, p, k, tol, rtype)?;
    let k = trim_back(k);
    let rev = |v: &[c64]| -> Vec<c64> { v.iter().rev().copied().collect() };
    let mut num = if k.is_empty() {
        vec![c64::new(0.0, 0.0)]
    } else {
        let kr: Vec<f64> = k.iter().rev().copied().collect();
        polymul(&to_c(&kr), &rev(&den))
    };
    for (res, f) in r.iter().zip(&factors) {
        let t: Vec<c64> = rev(f).iter().map(|x| res * x).collect();
        num = polyadd(&num, &t, 1.0);
    }
    Ok((rev(&num), den))
}
