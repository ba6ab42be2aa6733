//! Frequency transformations of analog filters (`lp2lp`, `lp2hp`, `lp2bp`, `lp2bs` and their
//! `_zpk` forms) and the bilinear transform (`bilinear`, `bilinear_zpk`). Host data in, host data
//! out.

use crate::represent::{normalize, relative_degree, Ba, Zpk};
use cusci_core::error::make;
use cusci_core::{c64, Result};

fn check_pos(op: &str, name: &str, v: f64) -> Result<()> {
    if !(v > 0.0 && v.is_finite()) {
        return Err(make::arg(
            op,
            format!("{name} must be positive and finite, got {v}"),
        ));
    }
    Ok(())
}

fn prod_neg(v: &[c64]) -> c64 {
    v.iter().fold(c64::new(1.0, 0.0), |acc, &x| acc * -x)
}

/// `scipy.signal.lp2lp_zpk`: moves a low-pass prototype's cutoff to `wo` rad/s.
///
/// Errors: `InvalidArgument` for `wo ≤ 0` or more zeros than poles.
pub fn lp2lp_zpk(z: &[c64], p: &[c64], k: f64, wo: f64) -> Result<Zpk> {
    let op = "lp2lp_zpk";
    check_pos(op, "wo", wo)?;
    let degree = relative_degree(z, p, op)?;
    Ok(Zpk {
        z: z.iter().map(|x| x * wo).collect(),
        p: p.iter().map(|x| x * wo).collect(),
        k: k * wo.powi(degree as i32),
    })
}

/// `scipy.signal.lp2hp_zpk`: a low-pass prototype to a high-pass filter with cutoff `wo`.
///
/// Errors: `InvalidArgument` for `wo ≤ 0` or more zeros than poles.
pub fn lp2hp_zpk(z: &[c64], p: &[c64], k: f64, wo: f64) -> Result<Zpk> {
    let op = "lp2hp_zpk";
    check_pos(op, "wo", wo)?;
    let degree = relative_degree(z, p, op)?;
    let mut zh: Vec<c64> = z.iter().map(|x| wo / x).collect();
    zh.extend(std::iter::repeat_n(c64::new(0.0, 0.0), degree));
    Ok(Zpk {
        z: zh,
        p: p.iter().map(|x| wo / x).collect(),
        k: k * (prod_neg(z) / prod_neg(p)).re,
    })
}

/// `scipy.signal.lp2bp_zpk`: a low-pass prototype to a band-pass filter centred on `wo` with
/// bandwidth `bw`.
///
/// Errors: `InvalidArgument` for `wo ≤ 0`, `bw ≤ 0` or more zeros than poles.
pub fn lp2bp_zpk(z: &[c64], p: &[c64], k: f64, wo: f64, bw: f64) -> Result<Zpk> {
    let op = "lp2bp_zpk";
    check_pos(op, "wo", wo)?;
    check_pos(op, "bw", bw)?;
    let degree = relative_degree(z, p, op)?;
    let split = |v: &[c64]| -> Vec<c64> {
        let lp: Vec<c64> = v.iter().map(|x| x * bw / 2.0).collect();
        let r: Vec<c64> = lp.iter().map(|x| (x * x - wo * wo).sqrt()).collect();
        let mut out: Vec<c64> = lp.iter().zip(&r).map(|(a, b)| a + b).collect();
        out.extend(lp.iter().zip(&r).map(|(a, b)| a - b));
        out
    };
    let mut zb = split(z);
    zb.extend(std::iter::repeat_n(c64::new(0.0, 0.0), degree));
    Ok(Zpk {
        z: zb,
        p: split(p),
        k: k * bw.powi(degree as i32),
    })
}

/// `scipy.signal.lp2bs_zpk`: a low-pass prototype to a band-stop filter centred on `wo` with
/// bandwidth `bw`.
///
/// Errors: `InvalidArgument` for `wo ≤ 0`, `bw ≤ 0` or more zeros than poles.
pub fn lp2bs_zpk(z: &[c64], p: &[c64], k: f64, wo: f64, bw: f64) -> Result<Zpk> {
    let op = "lp2bs_zpk";
    check_pos(op, "wo", wo)?;
    check_pos(op, "bw", bw)?;
    let degree = relative_degree(z, p, op)?;
    let split = |v: &[c64]| -> Vec<c64> {
        let hp: Vec<c64> = v.iter().map(|x| (bw / 2.0) / x).collect();
        let r: Vec<c64> = hp.iter().map(|x| (x * x - wo * wo).sqrt()).collect();
        let mut out: Vec<c64> = hp.iter().zip(&r).map(|(a, b)| a + b).collect();
        out.extend(hp.iter().zip(&r).map(|(a, b)| a - b));
        out
    };
    let mut zb = split(z);
    zb.extend(std::iter::repeat_n(c64::new(0.0, wo), degree));
    zb.extend(std::iter::repeat_n(c64::new(0.0, -wo), degree));
    Ok(Zpk {
        z: zb,
        p: split(p),
        k: k * (prod_neg(z) / prod_neg(p)).re,
    })
}

/// `scipy.signal.bilinear_zpk`: the bilinear transform `s = 2·fs·(z-1)/(z+1)` of an analog system
/// (the zeros at infinity go to `z = -1`).
///
/// Errors: `InvalidArgument` for `fs ≤ 0` or more zeros than poles.
pub fn bilinear_zpk(z: &[c64], p: &[c64], k: f64, fs: f64) -> Result<Zpk> {
    let op = "bilinear_zpk";
    check_pos(op, "fs", fs)?;
    let degree = relative_degree(z, p, op)?;
    let fs2 = 2.0 * fs;
    let mut zz: Vec<c64> = z.iter().map(|x| (fs2 + x) / (fs2 - x)).collect();
    zz.extend(std::iter::repeat_n(c64::new(-1.0, 0.0), degree));
    let pz = p.iter().map(|x| (fs2 + x) / (fs2 - x)).collect();
    let nz = z.iter().fold(c64::new(1.0, 0.0), |acc, x| acc * (fs2 - x));
    let np = p.iter().fold(c64::new(1.0, 0.0), |acc, x| acc * (fs2 - x));
    Ok(Zpk {
        z: zz,
        p: pz,
        k: k * (nz / np).re,
    })
}

fn check_ba(op: &str, b: &[f64], a: &[f64]) -> Result<()> {
    if b.is_empty() || a.is_empty() {
        return Err(make::arg(op, "b and a must not be empty"));
    }
    Ok(())
}

/// `scipy.signal.lp2lp`: [`lp2lp_zpk`] on polynomial coefficients.
///
/// Errors: `InvalidArgument` for empty polynomials or `wo ≤ 0`; those of [`normalize`].
pub fn lp2lp(b: &[f64], a: &[f64], wo: f64) -> Result<Ba> {
    let op = "lp2lp";
    check_ba(op, b, a)?;
    check_pos(op, "wo", wo)?;
    let (d, n) = (a.len(), b.len());
    let m = d.max(n);
    let pwo: Vec<f64> = (0..m).map(|i| wo.powf((m - 1 - i) as f64)).collect();
    let s1 = n.saturating_sub(d);
    let s2 = d.saturating_sub(n);
    let bb: Vec<f64> = b
        .iter()
        .zip(&pwo[s2..])
        .map(|(x, w)| x * pwo[s1] / w)
        .collect();
    let aa: Vec<f64> = a
        .iter()
        .zip(&pwo[s1..])
        .map(|(x, w)| x * pwo[s1] / w)
        .collect();
    normalize(&bb, &aa)
}

/// `scipy.signal.lp2hp`: [`lp2hp_zpk`] on polynomial coefficients.
///
/// Errors: `InvalidArgument` for empty polynomials or `wo ≤ 0`; those of [`normalize`].
pub fn lp2hp(b: &[f64], a: &[f64], wo: f64) -> Result<Ba> {
    let op = "lp2hp";
    check_ba(op, b, a)?;
    check_pos(op, "wo", wo)?;
    let (d, n) = (a.len(), b.len());
    let m = d.max(n);
    let pwo: Vec<f64> = if wo != 1.0 {
        (0..m).map(|i| wo.powf(i as f64)).collect()
    } else {
        vec![1.0; m]
    };
    let (outb, outa) = if d >= n {
        let outa: Vec<f64> = a.iter().rev().zip(&pwo).map(|(x, w)| x * w).collect();
        let mut outb = vec![0.0; d];
        for (i, x) in b.iter().rev().enumerate() {
            outb[i] = x * pwo[i];
        }
        (outb, outa)
    } else {
        let outb: Vec<f64> = b.iter().rev().zip(&pwo).map(|(x, w)| x * w).collect();
        let mut outa = vec![0.0; n];
        for (i, x) in a.iter().rev().enumerate() {
            outa[i] = x * pwo[i];
        }
        (outb, outa)
    };
    normalize(&outb, &outa)
}

fn comb(n: usize, k: usize) -> f64 {
    if k > n {
        return 0.0;
    }
    let k = k.min(n - k);
    let mut r = 1.0f64;
    for i in 0..k {
        r = r * (n - i) as f64 / (i + 1) as f64;
    }
    r.round()
}

/// `scipy.signal.lp2bp`: [`lp2bp_zpk`] on polynomial coefficients.
///
/// Errors: `InvalidArgument` for empty polynomials, `wo ≤ 0` or `bw ≤ 0`; those of [`normalize`].
pub fn lp2bp(b: &[f64], a: &[f64], wo: f64, bw: f64) -> Result<Ba> {
    let op = "lp2bp";
    check_ba(op, b, a)?;
    check_pos(op, "wo", wo)?;
    check_pos(op, "bw", bw)?;
    let d = a.len() - 1;
    let n = b.len() - 1;
    let ma = n.max(d);
    let wosq = wo * wo;
    let map = |c: &[f64], deg: usize| -> Vec<f64> {
        let np = deg + ma;
        let mut out = vec![0.0; np + 1];
        for j in 0..=np {
            let mut val = 0.0;
            for i in 0..=deg {
                for k in 0..=i {
                    if ma + 2 * k == j + i {
                        val +=
                            comb(i, k) * c[deg - i] * wosq.powf((i - k) as f64) / bw.powf(i as f64);
                    }
                }
            }
            out[np - j] = val;
        }
        out
    };
    normalize(&map(b, n), &map(a, d))
}

/// `scipy.signal.lp2bs`: [`lp2bs_zpk`] on polynomial coefficients.
///
/// Errors: `InvalidArgument` for empty polynomials, `wo ≤ 0` or `bw ≤ 0`; those of [`normalize`].
pub fn lp2bs(b: &[f64], a: &[f64], wo: f64, bw: f64) -> Result<Ba> {
    let op = "lp2bs";
    check_ba(op, b, a)?;
    check_pos(op, "wo", wo)?;
    check_pos(op, "bw", bw)?;
    let d = a.len() - 1;
    let n = b.len() - 1;
    let m = n.max(d);
    let wosq = wo * wo;
    let map = |c: &[f64], deg: usize| -> Vec<f64> {
        let np = 2 * m;
        let mut out = vec![0.0; np + 1];
        for j in 0..=np {
            let mut val = 0.0;
            for i in 0..=deg {
                for k in 0..=(m - i) {
                    if i + 2 * k == j {
                        val += comb(m - i, k)
                            * c[deg - i]
                            * wosq.powf((m - i - k) as f64)
                            * bw.powf(i as f64);
                    }
                }
            }
            out[np - j] = val;
        }
        out
    };
    normalize(&map(b, n), &map(a, d))
}

/// `scipy.signal.bilinear`: the bilinear transform of polynomial coefficients (`fs` in Hz,
/// SciPy's default is 1).
///
/// Errors: `InvalidArgument` for empty polynomials or `fs ≤ 0`; those of [`normalize`].
pub fn bilinear(b: &[f64], a: &[f64], fs: f64) -> Result<Ba> {
    let op = "bilinear";
    check_ba(op, b, a)?;
    check_pos(op, "fs", fs)?;
    let d = a.len() - 1;
    let n = b.len() - 1;
    let m = n.max(d);
    let map = |c: &[f64], deg: usize| -> Vec<f64> {
        let mut out = vec![0.0; m + 1];
        for (j, o) in out.iter_mut().enumerate() {
            let mut val = 0.0;
            for i in 0..=deg {
                for k in 0..=i {
                    for l in 0..=(m - i) {
                        if k + l == j {
                            let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
                            val += comb(i, k)
                                * comb(m - i, l)
                                * c[deg - i]
                                * (2.0 * fs).powf(i as f64)
                                * sign;
                        }
                    }
                }
            }
            *o = val;
        }
        out
    };
    normalize(&map(b, n), &map(a, d))
}
