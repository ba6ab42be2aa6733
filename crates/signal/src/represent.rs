//! Filter representations and the conversions between them (`scipy.signal`'s `tf2zpk`,
//! `zpk2tf`, `zpk2sos`, `sos2zpk`, `tf2sos`, `sos2tf`, `normalize`).
//!
//! These functions take and return **host** data (`Vec`s and small structs): a filter's
//! coefficients are a handful of numbers that feed the array functions (`lfilter`, `sosfilt`).
//! Polynomial roots are the eigenvalues of the companion matrix (as `numpy.roots`), computed on the
//! CPU with `faer` (a general eigenvalue solver; `cusci-linalg` takes this over when its
//! non-symmetric eigensolver lands).

use cusci_core::error::make;
use cusci_core::{c64, Result};

/// Zeros, poles and gain of a transfer function (`(z, p, k)` in SciPy).
#[derive(Clone, Debug, PartialEq)]
pub struct Zpk {
    /// Zeros.
    pub z: Vec<c64>,
    /// Poles.
    pub p: Vec<c64>,
    /// System gain.
    pub k: f64,
}

/// Numerator and denominator polynomial coefficients, highest power first (`(b, a)` in SciPy).
#[derive(Clone, Debug, PartialEq)]
pub struct Ba {
    /// Numerator coefficients.
    pub b: Vec<f64>,
    /// Denominator coefficients.
    pub a: Vec<f64>,
}

/// Second-order sections: one row `[b0, b1, b2, a0, a1, a2]` per section (SciPy's `sos`).
pub type Sos = Vec<[f64; 6]>;

/// Pole/zero pairing strategy of [`zpk2sos`] (SciPy's `pairing` argument).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Pairing {
    /// SciPy's default: `Nearest` for digital filters, `Minimal` for analog ones.
    #[default]
    Auto,
    /// Pair each pole with the nearest zero; odd orders get an extra pole and zero at the origin.
    Nearest,
    /// As `Nearest`, but real poles are paired with real zeros when possible.
    KeepOdd,
    /// As `KeepOdd`, without adding zeros at the origin (the only choice for analog filters).
    Minimal,
}

/// `numpy.poly`: the monic polynomial (highest power first) whose roots are `roots`, as complex
/// coefficients (built by successive convolution with `[1, -r]`, as NumPy).
pub fn poly_complex(roots: &[c64]) -> Vec<c64> {
    let mut a = vec![c64::new(1.0, 0.0)];
    for &r in roots {
        let mut next = vec![c64::new(0.0, 0.0); a.len() + 1];
        for (i, &ai) in a.iter().enumerate() {
            next[i] += ai;
            next[i + 1] -= ai * r;
        }
        a = next;
    }
    a
}

/// Whether the multiset `roots` equals its own conjugate exactly (NumPy's test for returning real
/// coefficients from `poly`).
fn conj_symmetric(roots: &[c64]) -> bool {
    let key = |a: &c64, b: &c64| {
        a.re.partial_cmp(&b.re)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.im.partial_cmp(&b.im).unwrap_or(std::cmp::Ordering::Equal))
    };
    let mut r: Vec<c64> = roots.to_vec();
    let mut c: Vec<c64> = roots.iter().map(|x| x.conj()).collect();
    r.sort_by(key);
    c.sort_by(key);
    r == c
}

/// `numpy.poly` for roots that come in conjugate pairs: real coefficients. Errors when the roots
/// are not closed under conjugation (SciPy would return complex coefficients).
pub fn poly(roots: &[c64]) -> Result<Vec<f64>> {
    if !conj_symmetric(roots) {
        return Err(make::arg(
            "poly",
            "roots are not closed under conjugation: the coefficients would be complex",
        ));
    }
    Ok(poly_complex(roots).iter().map(|c| c.re).collect())
}

/// `numpy.roots`: the roots of the polynomial `p` (highest power first), the eigenvalues of its
/// companion matrix (leading zeros are stripped; trailing zeros give roots at 0).
///
/// Errors: `NoConvergence` when the eigenvalue iteration fails, `InvalidArgument` for non-finite
/// coefficients.
pub fn roots(p: &[f64]) -> Result<Vec<c64>> {
    if p.iter().any(|v| !v.is_finite()) {
        return Err(make::arg("roots", "coefficients must be finite"));
    }
    let (Some(first), Some(last)) = (
        p.iter().position(|&v| v != 0.0),
        p.iter().rposition(|&v| v != 0.0),
    ) else {
        return Ok(vec![]);
    };
    let trailing = p.len() - 1 - last;
    let q = &p[first..=last];
    let n = q.len() - 1;
    let mut out = Vec::with_capacity(n + trailing);
    if n >= 1 {
        let m = faer::Mat::<f64>::from_fn(n, n, |i, j| {
            if i == 0 {
                -q[j + 1] / q[0]
            } else if i == j + 1 {
                1.0
            } else {
                0.0
            }
        });
        let ev = m
            .eigenvalues()
            .map_err(|_| cusci_core::Error::NoConvergence {
                op: "roots".into(),
                iterations: 0,
                residual: f64::NAN,
            })?;
        out.extend(ev.iter().map(|c| c64::new(c.re, c.im)));
    }
    out.extend(std::iter::repeat_n(c64::new(0.0, 0.0), trailing));
    Ok(out)
}

/// `scipy.signal.normalize`: strips the denominator's leading zeros, divides both polynomials by
/// its first coefficient and strips the numerator's leading (near-)zeros (`|b_i| ≤ 1e-14`, at least
/// one coefficient remains).
///
/// Errors: `InvalidArgument` when `a` is empty or all zeros, or `b` is empty.
///
/// ```
/// let ba = cusci_signal::normalize(&[2.0, 4.0], &[0.0, 2.0, 1.0]).unwrap();
/// assert_eq!(ba.b, vec![1.0, 2.0]);
/// assert_eq!(ba.a, vec![1.0, 0.5]);
/// ```
pub fn normalize(b: &[f64], a: &[f64]) -> Result<Ba> {
    if b.is_empty() || a.is_empty() {
        return Err(make::arg("normalize", "b and a must not be empty"));
    }
    let Some(first) = a.iter().position(|&v| v != 0.0) else {
        return Err(make::arg(
            "normalize",
            "denominator must have at least one nonzero element",
        ));
    };
    let a = &a[first..];
    let a0 = a[0];
    let mut num: Vec<f64> = b.iter().map(|v| v / a0).collect();
    let den: Vec<f64> = a.iter().map(|v| v / a0).collect();
    // np.allclose(col, 0, atol=1e-14): |x| <= 1e-14
    let mut lead = num.iter().take_while(|v| v.abs() <= 1e-14).count();
    if lead == num.len() {
        lead -= 1;
    }
    num.drain(..lead);
    Ok(Ba { b: num, a: den })
}

/// `scipy.signal.zpk2tf`: the polynomial coefficients of `k·∏(x - z) / ∏(x - p)`.
///
/// Errors: `InvalidArgument` when the zeros or poles are not closed under conjugation (their
/// coefficients would be complex).
///
/// ```
/// use cusci_core::c64;
/// let ba = cusci_signal::zpk2tf(&[c64::new(1.0, 0.0)], &[c64::new(0.5, 0.0)], 2.0).unwrap();
/// assert_eq!(ba.b, vec![2.0, -2.0]);
/// assert_eq!(ba.a, vec![1.0, -0.5]);
/// ```
pub fn zpk2tf(z: &[c64], p: &[c64], k: f64) -> Result<Ba> {
    let b: Vec<f64> = poly(z)
        .map_err(|_| make::arg("zpk2tf", "zeros are not closed under conjugation"))?
        .into_iter()
        .map(|v| v * k)
        .collect();
    let a = poly(p).map_err(|_| make::arg("zpk2tf", "poles are not closed under conjugation"))?;
    Ok(Ba { b, a })
}

/// `scipy.signal.tf2zpk`: zeros, poles and gain of `b(x)/a(x)` (after [`normalize`]).
///
/// Errors: those of [`normalize`] and [`roots`].
///
/// ```
/// let zpk = cusci_signal::tf2zpk(&[2.0, -2.0], &[1.0, -0.5]).unwrap();
/// assert_eq!(zpk.k, 2.0);
/// assert!((zpk.z[0].re - 1.0).abs() < 1e-15 && (zpk.p[0].re - 0.5).abs() < 1e-15);
/// ```
pub fn tf2zpk(b: &[f64], a: &[f64]) -> Result<Zpk> {
    let ba = normalize(b, a)?;
    let a0 = ba.a[0];
    let mut bb: Vec<f64> = ba.b.iter().map(|v| v / a0).collect();
    let aa: Vec<f64> = ba.a.iter().map(|v| v / a0).collect();
    let k = bb[0];
    if k != 0.0 {
        for v in bb.iter_mut() {
            *v /= k;
        }
    }
    Ok(Zpk {
        z: roots(&bb)?,
        p: roots(&aa)?,
        k,
    })
}

/// SciPy's `_cplxreal`: splits `z` into complex values with positive imaginary part (one of each
/// conjugate pair, averaged, sorted by real part then imaginary part) and real values (sorted).
/// Errors when a complex value has no conjugate within `100·eps` relative.
pub fn cplxreal(z: &[c64]) -> Result<(Vec<c64>, Vec<f64>)> {
    let tol = 100.0 * f64::EPSILON;
    let mut z: Vec<c64> = z.to_vec();
    // lexsort((abs(imag), real)): by real, then by |imag|, stable
    z.sort_by(|a, b| {
        a.re.partial_cmp(&b.re)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(
                a.im.abs()
                    .partial_cmp(&b.im.abs())
                    .unwrap_or(std::cmp::Ordering::Equal),
            )
    });
    let is_real = |v: &c64| v.im.abs() <= tol * v.norm();
    let zr: Vec<f64> = z.iter().filter(|v| is_real(v)).map(|v| v.re).collect();
    let zc: Vec<c64> = z.iter().filter(|v| !is_real(v)).copied().collect();
    let mut zp: Vec<c64> = zc.iter().filter(|v| v.im > 0.0).copied().collect();
    let mut zn: Vec<c64> = zc.iter().filter(|v| v.im < 0.0).copied().collect();
    let err = || {
        make::arg(
            "cplxreal",
            "array contains a complex value with no matching conjugate",
        )
    };
    if zp.len() != zn.len() {
        return Err(err());
    }
    // runs of (approximately) equal real parts, sorted by |imag|
    let n = zp.len();
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && zp[j + 1].re - zp[j].re <= tol * zp[j].norm() {
            j += 1;
        }
        if j > i {
            let by_im = |a: &c64, b: &c64| {
                a.im.abs()
                    .partial_cmp(&b.im.abs())
                    .unwrap_or(std::cmp::Ordering::Equal)
            };
            zp[i..=j].sort_by(by_im);
            zn[i..=j].sort_by(by_im);
        }
        i = j + 1;
    }
    for (a, b) in zp.iter().zip(&zn) {
        if (a - b.conj()).norm() > tol * b.norm() {
            return Err(err());
        }
    }
    let zc: Vec<c64> = zp
        .iter()
        .zip(&zn)
        .map(|(a, b)| (a + b.conj()) / 2.0)
        .collect();
    Ok((zc, zr))
}

fn single_section(z: &[c64], p: &[c64]) -> [f64; 6] {
    // zpk2tf with k = 1, right-aligned in each half
    let b = poly_complex(z);
    let a = poly_complex(p);
    let mut s = [0.0; 6];
    for (i, v) in b.iter().enumerate() {
        s[3 - b.len() + i] = v.re;
    }
    for (i, v) in a.iter().enumerate() {
        s[6 - a.len() + i] = v.re;
    }
    s
}

#[derive(Clone, Copy, PartialEq)]
enum Which {
    Real,
    Complex,
    Any,
}

fn nearest_idx(fro: &[c64], to: c64, which: Which) -> Option<usize> {
    let mut order: Vec<usize> = (0..fro.len()).collect();
    order.sort_by(|&a, &b| {
        (fro[a] - to)
            .norm()
            .partial_cmp(&(fro[b] - to).norm())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    order.into_iter().find(|&i| match which {
        Which::Any => true,
        Which::Real => fro[i].im == 0.0,
        Which::Complex => fro[i].im != 0.0,
    })
}

/// `scipy.signal.zpk2sos`: second-order sections of the system `(z, p, k)`, pairing poles with
/// zeros as SciPy does (the sections whose poles are closest to the unit circle — or, for analog
/// filters, to the imaginary axis — come last; the gain goes into the first section).
///
/// Errors: `InvalidArgument` when complex values have no conjugate, when `Nearest` is asked for
/// an analog filter, or when `Minimal`/`KeepOdd` meet more zeros than poles.
///
/// ```
/// let zpk = cusci_signal::butter_zpk(4, &[0.2], &Default::default()).unwrap();
/// let sos = cusci_signal::zpk2sos(&zpk.z, &zpk.p, zpk.k, Default::default(), false).unwrap();
/// assert_eq!(sos.len(), 2);
/// ```
pub fn zpk2sos(z: &[c64], p: &[c64], k: f64, pairing: Pairing, analog: bool) -> Result<Sos> {
    let op = "zpk2sos";
    let pairing = match pairing {
        Pairing::Auto if analog => Pairing::Minimal,
        Pairing::Auto => Pairing::Nearest,
        x => x,
    };
    if analog && pairing != Pairing::Minimal {
        return Err(make::arg(
            op,
            "for analog zpk2sos conversion, pairing must be Minimal",
        ));
    }
    if z.is_empty() && p.is_empty() {
        return Ok(if analog {
            vec![[0.0, 0.0, k, 0.0, 0.0, 1.0]]
        } else {
            vec![[k, 0.0, 0.0, 1.0, 0.0, 0.0]]
        });
    }
    let mut z: Vec<c64> = z.to_vec();
    let mut p: Vec<c64> = p.to_vec();
    let zero = c64::new(0.0, 0.0);
    let n_sections;
    if pairing != Pairing::Minimal {
        let (lz, lp) = (z.len(), p.len());
        p.extend(std::iter::repeat_n(zero, lz.saturating_sub(lp)));
        z.extend(std::iter::repeat_n(zero, lp.saturating_sub(lz)));
        n_sections = p.len().max(z.len()).div_ceil(2);
        if p.len() % 2 == 1 && pairing == Pairing::Nearest {
            p.push(zero);
            z.push(zero);
        }
    } else {
        if p.len() < z.len() {
            return Err(make::arg(
                op,
                "for analog zpk2sos conversion, must have len(p) >= len(z)",
            ));
        }
        n_sections = p.len().div_ceil(2);
    }
    let expand = |v: &[c64]| -> Result<Vec<c64>> {
        // (zc, zr): one representative of each conjugate pair, then the reals
        let (c, r) = cplxreal(v)?;
        let mut o = c;
        o.extend(r.iter().map(|&x| c64::new(x, 0.0)));
        Ok(o)
    };
    let mut z = expand(&z)?;
    let mut p = expand(&p)?;
    let worst = |v: &[c64]| -> usize {
        let key = |x: &c64| {
            if analog {
                x.re.abs()
            } else {
                (1.0 - x.norm()).abs()
            }
        };
        let mut best = 0;
        for i in 1..v.len() {
            if key(&v[i]) < key(&v[best]) {
                best = i;
            }
        }
        best
    };
    let isreal = |x: &c64| x.im == 0.0;
    let mut sos = vec![[0.0; 6]; n_sections];
    for si in (0..n_sections).rev() {
        let p1_idx = worst(&p);
        let p1 = p.remove(p1_idx);
        let nreal_p = p.iter().filter(|x| isreal(x)).count();
        if isreal(&p1) && nreal_p == 0 {
            // last remaining real pole
            if pairing != Pairing::Minimal {
                let zi = nearest_idx(&z, p1, Which::Real)
                    .ok_or_else(|| make::arg(op, "no real zero to pair with the last real pole"))?;
                let z1 = z.remove(zi);
                sos[si] = single_section(&[z1, zero], &[p1, zero]);
            } else if !z.is_empty() {
                let zi = nearest_idx(&z, p1, Which::Real)
                    .ok_or_else(|| make::arg(op, "no real zero to pair with the last real pole"))?;
                let z1 = z.remove(zi);
                sos[si] = single_section(&[z1], &[p1]);
            } else {
                sos[si] = single_section(&[], &[p1]);
            }
        } else if p.len() + 1 == z.len()
            && !isreal(&p1)
            && nreal_p == 1
            && z.iter().filter(|x| isreal(x)).count() == 1
        {
            // one real pole and one real zero left: pair p1 with a complex zero
            let zi = nearest_idx(&z, p1, Which::Complex)
                .ok_or_else(|| make::arg(op, "no complex zero to pair with"))?;
            let z1 = z.remove(zi);
            sos[si] = single_section(&[z1, z1.conj()], &[p1, p1.conj()]);
        } else {
            let p2 = if isreal(&p1) {
                let reals: Vec<usize> = (0..p.len()).filter(|&i| isreal(&p[i])).collect();
                let sub: Vec<c64> = reals.iter().map(|&i| p[i]).collect();
                let idx = reals[worst(&sub)];
                p.remove(idx)
            } else {
                p1.conj()
            };
            if !z.is_empty() {
                let zi = nearest_idx(&z, p1, Which::Any)
                    .ok_or_else(|| make::arg(op, "no zero left to pair with a pole"))?;
                let z1 = z.remove(zi);
                if !isreal(&z1) {
                    sos[si] = single_section(&[z1, z1.conj()], &[p1, p2]);
                } else if !z.is_empty() {
                    let zi2 = nearest_idx(&z, p1, Which::Real)
                        .ok_or_else(|| make::arg(op, "no real zero to pair with a real zero"))?;
                    let z2 = z.remove(zi2);
                    sos[si] = single_section(&[z1, z2], &[p1, p2]);
                } else {
                    sos[si] = single_section(&[z1], &[p1, p2]);
                }
            } else {
                sos[si] = single_section(&[], &[p1, p2]);
            }
        }
    }
    for v in sos[0][..3].iter_mut() {
        *v *= k;
    }
    Ok(sos)
}

/// `scipy.signal.sos2zpk`: zeros, poles and gain of cascaded second-order sections (two zeros and
/// two poles per section; a first-order section contributes a zero and a pole at the origin, as
/// SciPy's zero padding does).
///
/// Errors: those of [`tf2zpk`] for a section.
pub fn sos2zpk(sos: &[[f64; 6]]) -> Result<Zpk> {
    let n = sos.len();
    let mut z = vec![c64::new(0.0, 0.0); 2 * n];
    let mut p = vec![c64::new(0.0, 0.0); 2 * n];
    let mut k = 1.0;
    for (s, row) in sos.iter().enumerate() {
        let zpk = tf2zpk(&row[..3], &row[3..])?;
        for (i, v) in zpk.z.iter().take(2).enumerate() {
            z[2 * s + i] = *v;
        }
        for (i, v) in zpk.p.iter().take(2).enumerate() {
            p[2 * s + i] = *v;
        }
        k *= zpk.k;
    }
    Ok(Zpk { z, p, k })
}

/// `scipy.signal.tf2sos`: [`tf2zpk`] then [`zpk2sos`].
pub fn tf2sos(b: &[f64], a: &[f64], pairing: Pairing, analog: bool) -> Result<Sos> {
    let zpk = tf2zpk(b, a)?;
    zpk2sos(&zpk.z, &zpk.p, zpk.k, pairing, analog)
}

fn convolve(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; a.len() + b.len() - 1];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            out[i + j] += x * y;
        }
    }
    out
}

/// `scipy.signal.sos2tf`: the numerator and denominator of cascaded second-order sections (the
/// product of the sections' polynomials; no trimming, as SciPy).
///
/// Errors: `InvalidArgument` for an empty `sos`.
pub fn sos2tf(sos: &[[f64; 6]]) -> Result<Ba> {
    if sos.is_empty() {
        return Err(make::arg("sos2tf", "sos must have at least one section"));
    }
    let mut b = vec![1.0];
    let mut a = vec![1.0];
    for row in sos {
        b = convolve(&b, &row[..3]);
        a = convolve(&a, &row[3..]);
    }
    Ok(Ba { b, a })
}

pub(crate) fn polyval_c(c: &[f64], x: c64) -> c64 {
    let mut y = c64::new(0.0, 0.0);
    for &v in c {
        y = y * x + v;
    }
    y
}

pub(crate) fn relative_degree(z: &[c64], p: &[c64], op: &str) -> Result<usize> {
    if z.len() > p.len() {
        return Err(make::arg(
            op,
            "improper transfer function: must have at least as many poles as zeros",
        ));
    }
    Ok(p.len() - z.len())
}
