//! The cosine-sine (CS) decomposition of unitary matrices (SciPy's `linalg.cossin`), computed on
//! the host from the SVD of the top-left block (a hybrid on the GPU).

use crate::util::{cat, prod, square_dims};
use crate::{cpu, Scalar};
use cusci_core::error::make;
use cusci_core::{Array, Device, RealFloat, Result};

/// SciPy's keyword arguments of [`cossin`] (less `separate`: [`Cossin`] holds both forms);
/// `Default` is SciPy's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CossinOptions {
    /// Put the `-S`, `-I` blocks bottom left (SciPy's `swap_sign=True`) instead of top right.
    pub swap_sign: bool,
    /// Compute `u` (else `None`).
    pub compute_u: bool,
    /// Compute `vdh` (else `None`).
    pub compute_vh: bool,
}

impl Default for CossinOptions {
    fn default() -> Self {
        CossinOptions {
            swap_sign: false,
            compute_u: true,
            compute_vh: true,
        }
    }
}

/// [`cossin`]'s result: `x = u · cs · vdh`.
#[derive(Debug, Clone)]
pub struct Cossin<T: Scalar> {
    /// `(..., M, M)`: `block_diag(u1, u2)`, `u1` `P x P`, `u2` `(M-P) x (M-P)` (SciPy's
    /// `separate=True` blocks are its diagonal blocks).
    pub u: Option<Array<T>>,
    /// `(..., M, M)` real: the cosine-sine matrix in LAPACK `uncsd`'s layout.
    pub cs: Array<T::R>,
    /// `(..., M, M)`: `block_diag(v1h, v2h)`, `v1h` `Q x Q`, `v2h` `(M-Q) x (M-Q)`.
    pub vdh: Option<Array<T>>,
    /// `(..., R)`: the angles (SciPy's `theta` of `separate=True`), ascending in `[0, π/2]`,
    /// `R = min(P, M-P, Q, M-Q)`.
    pub theta: Array<T::R>,
}

/// Cosine-sine decomposition of unitary (real: orthogonal) `(..., M, M)` matrices partitioned
/// with a `P x Q` top-left block (SciPy's `scipy.linalg.cossin(X, p, q, swap_sign, compute_u,
/// compute_vh)`): `x = u · cs · vdh` with `u = block_diag(u1, u2)`, `vdh = block_diag(v1h,
/// v2h)` unitary and `cs` holding `cos θ`, `± sin θ`, ones and zeros in LAPACK `uncsd`'s layout
/// (the same `cs` and `theta` as SciPy's; `u`, `vdh` are unique only up to a phase per column
/// pair and within repeated angles).
///
/// Method (not LAPACK's `uncsd`): the SVD of `x11 = u1 · C · v1ᴴ` (faer), then `u2` from the
/// normalised columns of `x21 · v1`, `v2` from the normalised rows of `u1ᴴ · x12`, the remaining
/// columns of `v2` an orthonormal complement (QR) and those of `u2` from `x22 · v2`. Accuracy:
/// the columns of `u2`/`v2` belonging to an angle `θ` carry an error of about `ε / sin θ`, so
/// angles near 0 (cosines near 1 that are not exactly 1) are less accurate than LAPACK's.
/// **Hybrid on the GPU**: the matrices are copied to the host, decomposed there and the
/// results copied back. `x` is not checked for unitarity (as SciPy, which passes it to LAPACK).
///
/// # Errors
/// `InvalidArgument` when `x` is not square, `p` or `q` is not in `1..M`, or for NaN/infinity
/// (SciPy's `check_finite`); `NoConvergence` when the SVD fails.
///
/// ```
/// use cusci_linalg::{cossin, Array, CossinOptions, Device};
/// // a rotation by 0.3 rad: cos 0.3 and sin 0.3 in cs, theta = [0.3]
/// let (c, s) = (0.3f64.cos(), 0.3f64.sin());
/// let x = Array::from_vec(vec![c, -s, s, c], &[2, 2], &Device::Cpu)?;
/// let r = cossin(&x, 1, 1, CossinOptions::default())?;
/// assert!((r.theta.to_vec()?[0] - 0.3).abs() < 1e-12);
/// let cs = r.cs.to_vec()?;
/// assert!((cs[0] - c).abs() < 1e-12 && (cs[1] + s).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn cossin<T: Scalar>(
    x: &Array<T>,
    p: usize,
    q: usize,
    opts: CossinOptions,
) -> Result<Cossin<T>> {
    let op = "cossin";
    let (batch, m) = square_dims(op, x)?;
    if !(1..m).contains(&p) || !(1..m).contains(&q) {
        return Err(make::arg(
            op,
            format!("invalid p={p}, q={q}: 0 < p < {m} and 0 < q < {m} needed"),
        ));
    }
    crate::util::check_finite(op, x)?;
    let count = prod(&batch);
    let r = p.min(m - p).min(q).min(m - q);
    let dev = x.device().clone();
    let xv = x.to_device(&Device::Cpu)?.to_vec()?;
    let parts = crate::util::cpu_map(&xv, count, m * m, |_, a| {
        one(a, m, p, q, r, opts.swap_sign).ok_or_else(|| crate::shared::no_conv(op, 1))
    })?;
    let (mut us, mut css, mut vs, mut ts) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (u, cs, v, t) in parts {
        us.extend(u);
        css.extend(cs);
        vs.extend(v);
        ts.extend(t);
    }
    let mm = cat(&batch, &[m, m]);
    Ok(Cossin {
        u: if opts.compute_u {
            Some(Array::from_vec(us, &mm, &dev)?)
        } else {
            None
        },
        cs: Array::from_vec(css, &mm, &dev)?,
        vdh: if opts.compute_vh {
            Some(Array::from_vec(vs, &mm, &dev)?)
        } else {
            None
        },
        theta: Array::from_vec(ts, &cat(&batch, &[r]), &dev)?,
    })
}

/// Row-major `m x k` times `k x n`.
fn mul<T: Scalar>(a: &[T], b: &[T], m: usize, k: usize, n: usize) -> Vec<T> {
    let mut c = vec![T::zero(); m * n];
    for i in 0..m {
        for l in 0..k {
            let v = a[i * k + l];
            for j in 0..n {
                c[i * n + j] = c[i * n + j] + v * b[l * n + j];
            }
        }
    }
    c
}

fn rf<T: Scalar>(v: f64) -> T::R {
    <T::R as RealFloat>::from_f64(v)
}

/// One matrix: `(u, cs, vdh, theta)`, row-major; `None` when the SVD fails.
#[allow(clippy::type_complexity)]
fn one<T: Scalar>(
    x: &[T],
    m: usize,
    p: usize,
    q: usize,
    r: usize,
    swap: bool,
) -> Option<(Vec<T>, Vec<T::R>, Vec<T>, Vec<T::R>)> {
    let blk = |r0: usize, r1: usize, c0: usize, c1: usize| -> Vec<T> {
        let mut v = Vec::with_capacity((r1 - r0) * (c1 - c0));
        for i in r0..r1 {
            v.extend_from_slice(&x[i * m + c0..i * m + c1]);
        }
        v
    };
    let (x11, x12) = (blk(0, p, 0, q), blk(0, p, q, m));
    let (x21, x22) = (blk(p, m, 0, q), blk(p, m, q, m));
    let (mp, mq) = (m - p, m - q);
    let f = cpu::view(&x11, p, q).svd().ok()?;
    let u1 = cpu::rows(f.U()); // p x p
    let v1 = cpu::rows(f.V()); // q x q
    let sv: Vec<f64> = (0..p.min(q))
        .map(|i| f.S().column_vector()[i].re().to_f64())
        .collect();
    let a = p.min(q) - r;
    let b0 = m + a - p - q; // = c0: the order of the identity block of x22
    let y = mul(&x21, &v1, mp, q, q); // (m-p) x q
    let mut u1h = vec![T::zero(); p * p];
    for i in 0..p {
        for j in 0..p {
            u1h[j * p + i] = u1[i * p + j].conj();
        }
    }
    let z = mul(&u1h, &x12, p, p, mq); // p x (m-q)
    let colnorm = |c: usize| {
        (0..mp)
            .map(|i| y[i * q + c].abs2().to_f64())
            .sum::<f64>()
            .sqrt()
    };
    let rownorm = |i: usize| {
        (0..mq)
            .map(|c| z[i * mq + c].abs2().to_f64())
            .sum::<f64>()
            .sqrt()
    };
    let sgn = |v: f64| T::from_real(rf::<T>(v));
    // u2's columns b0.. from y's columns a.. (signs: +S bottom left unless swapped)
    let (su, sv2) = if swap { (-1.0, 1.0) } else { (1.0, -1.0) };
    let mut u2 = vec![T::zero(); mp * mp];
    let mut theta = Vec::with_capacity(r);
    let mut cosv = Vec::with_capacity(r);
    let mut sinv = Vec::with_capacity(r);
    for i in 0..r {
        let (c, s) = (sv.get(a + i).copied().unwrap_or(0.0), colnorm(a + i));
        let t = s.atan2(c);
        theta.push(t);
        cosv.push(t.cos());
        sinv.push(t.sin());
    }
    for j in 0..q - a {
        let nrm = colnorm(a + j);
        if nrm == 0.0 {
            return None;
        }
        for i in 0..mp {
            u2[i * mp + b0 + j] = y[i * q + a + j] * sgn(su / nrm);
        }
    }
    // v2's columns c0.. from z's rows a.. (conjugated)
    let mut v2 = vec![T::zero(); mq * mq];
    for j in 0..p - a {
        let nrm = rownorm(a + j);
        if nrm == 0.0 {
            return None;
        }
        for k in 0..mq {
            v2[k * mq + b0 + j] = z[(a + j) * mq + k].conj() * sgn(sv2 / nrm);
        }
    }
    if b0 > 0 {
        // v2's first b0 columns: an orthonormal complement of the others; u2's from x22 v2
        let kk = mq - b0;
        let mut w = vec![T::zero(); mq * kk];
        for i in 0..mq {
            for j in 0..kk {
                w[i * kk + j] = v2[i * mq + b0 + j];
            }
        }
        let qf = cpu::view(&w, mq, kk).qr().compute_Q();
        let qv = cpu::owned_rows(&qf); // mq x mq
        for i in 0..mq {
            for j in 0..b0 {
                v2[i * mq + j] = qv[i * mq + kk + j];
            }
        }
        let mut vc = vec![T::zero(); mq * b0];
        for i in 0..mq {
            for j in 0..b0 {
                vc[i * b0 + j] = v2[i * mq + j];
            }
        }
        let uc = mul(&x22, &vc, mp, mq, b0);
        for i in 0..mp {
            for j in 0..b0 {
                u2[i * mp + j] = uc[i * b0 + j];
            }
        }
    }
    // u = block_diag(u1, u2), vdh = block_diag(v1ᴴ, v2ᴴ)
    let mut u = vec![T::zero(); m * m];
    let mut vdh = vec![T::zero(); m * m];
    for i in 0..p {
        u[i * m..i * m + p].copy_from_slice(&u1[i * p..(i + 1) * p]);
    }
    for i in 0..mp {
        u[(p + i) * m + p..(p + i + 1) * m].copy_from_slice(&u2[i * mp..(i + 1) * mp]);
    }
    for i in 0..q {
        for j in 0..q {
            vdh[i * m + j] = v1[j * q + i].conj();
        }
    }
    for i in 0..mq {
        for j in 0..mq {
            vdh[(q + i) * m + q + j] = v2[j * mq + i].conj();
        }
    }
    // cs in uncsd's layout
    let mut cs = vec![rf::<T>(0.0); m * m];
    let mut set = |i: usize, j: usize, v: f64| cs[i * m + j] = rf::<T>(v);
    for i in 0..a {
        set(i, i, 1.0);
    }
    for i in 0..b0 {
        set(p + i, q + i, 1.0);
    }
    let (top, bottom) = if swap { (1.0, -1.0) } else { (-1.0, 1.0) };
    for i in 0..r {
        set(a + i, a + i, cosv[i]);
        set(p + b0 + i, q + b0 + i, cosv[i]);
        set(a + i, q + b0 + i, top * sinv[i]);
        set(p + b0 + i, a + i, bottom * sinv[i]);
    }
    for i in 0..p - a - r {
        set(a + r + i, q + b0 + r + i, top);
    }
    for i in 0..q - a - r {
        set(p + b0 + r + i, a + r + i, bottom);
    }
    let theta = theta.into_iter().map(rf::<T>).collect();
    Some((u, cs, vdh, theta))
}
