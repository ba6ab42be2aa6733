//! Identities on every device (P·L·U = A, Q·R = A with Qᴴ·Q = I, U·Σ·Vᴴ = A, A·V = V·Λ, L·Lᴴ = A,
//! A·inv(A) = I, A·x = b), products against a naive oracle, the GPU against the CPU, and the same
//! typed errors on every device.
//!
//! Tolerances: residuals are compared with `C·ε·n` relative to the largest input magnitude times
//! `n` (the matrices are shifted by `n·I` where a solver needs them well conditioned, so that
//! `cond(a)` is O(1) and the bounds need no condition number).

use crate::common::*;
use cusci_core::testing::{devices, randn_vec};
use cusci_core::Element;
use cusci_linalg::*;

const SIZES: [usize; 6] = [0, 1, 2, 3, 33, 34];

/// A well-conditioned random matrix: randn + n·I.
fn shifted<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    let mut a: Vec<T> = randn_vec(n * n, seed);
    for i in 0..n {
        a[i * n + i] = a[i * n + i] + T::from_c64(cusci_core::c64::new(n as f64, 0.0));
    }
    a
}

fn hpd<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    let m: Vec<T> = randn_vec(n * n, seed);
    let mut a = naive(&m, &adjoint(&m, n, n), n, n, n);
    for i in 0..n {
        a[i * n + i] = a[i * n + i] + T::from_c64(cusci_core::c64::new(n as f64, 0.0));
    }
    a
}

fn matmul_body<T: Scalar>() {
    for dev in devices() {
        for &(m, k, n) in &[(0, 3, 2), (1, 1, 1), (2, 3, 4), (33, 17, 31), (5, 0, 3)] {
            let a: Vec<T> = randn_vec(m * k, 1);
            let b: Vec<T> = randn_vec(k * n, 2);
            let aa = Array::from_vec(a.clone(), &[m, k], &dev).unwrap();
            let bb = Array::from_vec(b.clone(), &[k, n], &dev).unwrap();
            let c = matmul(&aa, &bb).unwrap();
            assert_eq!(c.shape(), &[m, n]);
            close(
                &c.to_vec().unwrap(),
                &naive(&a, &b, m, k, n),
                tol::<T>(k),
                &format!("matmul {m}x{k}x{n} on {dev}"),
            );
            // a transposed view as the left operand: (bᵀ)ᵀ-style
            let at = Array::from_vec(adjoint(&a, m, k), &[k, m], &dev)
                .unwrap()
                .conj()
                .unwrap();
            let c2 = matmul(&at.t(), &bb).unwrap();
            close(
                &c2.to_vec().unwrap(),
                &naive(&a, &b, m, k, n),
                tol::<T>(k),
                &format!("matmul view {m}x{k}x{n} on {dev}"),
            );
        }
        // batches: (3, 1, 4, 5) @ (2, 5, 6) -> (3, 2, 4, 6); a single matrix against a stack
        let a: Vec<T> = randn_vec(3 * 4 * 5, 3);
        let b: Vec<T> = randn_vec(2 * 5 * 6, 4);
        let aa = Array::from_vec(a.clone(), &[3, 1, 4, 5], &dev).unwrap();
        let bb = Array::from_vec(b.clone(), &[2, 5, 6], &dev).unwrap();
        let c = matmul(&aa, &bb).unwrap();
        assert_eq!(c.shape(), &[3, 2, 4, 6]);
        let cv = c.to_vec().unwrap();
        for i in 0..3 {
            for j in 0..2 {
                let want = naive(&a[i * 20..(i + 1) * 20], &b[j * 30..(j + 1) * 30], 4, 5, 6);
                close(
                    &cv[(i * 2 + j) * 24..(i * 2 + j + 1) * 24],
                    &want,
                    tol::<T>(5),
                    "batched matmul",
                );
            }
        }
        let single = Array::from_vec(a[..20].to_vec(), &[4, 5], &dev).unwrap();
        let c = matmul(&single, &bb).unwrap();
        let cv = c.to_vec().unwrap();
        for j in 0..2 {
            close(
                &cv[j * 24..(j + 1) * 24],
                &naive(&a[..20], &b[j * 30..(j + 1) * 30], 4, 5, 6),
                tol::<T>(5),
                "broadcast matmul",
            );
        }
        // 1-D operands
        let v = Array::from_vec(b[..5].to_vec(), &[5], &dev).unwrap();
        let mv = matmul(&single, &v).unwrap();
        assert_eq!(mv.shape(), &[4]);
        close(
            &mv.to_vec().unwrap(),
            &naive(&a[..20], &b[..5], 4, 5, 1),
            tol::<T>(5),
            "matrix @ vector",
        );
        let vv = dot(&v, &v).unwrap();
        assert_eq!(vv.ndim(), 0);
        close(
            &vv.to_vec().unwrap(),
            &naive(&b[..5], &b[..5], 1, 5, 1),
            tol::<T>(5),
            "dot 1-D",
        );
        // errors
        let bad = Array::<T>::zeros(&[4, 4], &dev).unwrap();
        assert!(
            matches!(matmul(&single, &bad), Err(Error::ShapeMismatch { .. })),
            "inner dims on {dev}"
        );
    }
}
all_types!(matmul_against_naive, matmul_body);

fn products_body<T: Scalar>() {
    for dev in devices() {
        let x: Vec<T> = randn_vec(3, 5);
        let y: Vec<T> = randn_vec(4, 6);
        let xa = Array::from_vec(x.clone(), &[3], &dev).unwrap();
        let ya = Array::from_vec(y.clone(), &[4], &dev).unwrap();
        close(
            &outer(&xa, &ya).unwrap().to_vec().unwrap(),
            &naive(&x, &y, 3, 1, 4),
            tol::<T>(1),
            "outer",
        );
        let vd = vdot(&xa, &xa).unwrap().item().unwrap();
        let want: f64 = x.iter().map(|v| v.to_c64().norm_sqr()).sum();
        assert!(
            (vd.to_c64().re - want).abs() <= tol::<T>(3) * want
                && vd.to_c64().im.abs() <= tol::<T>(3) * want
        );
        let a: Vec<T> = randn_vec(2 * 3 * 4, 7);
        let aa = Array::from_vec(a.clone(), &[2, 3, 4], &dev).unwrap();
        let tr = trace(&aa, 0).unwrap();
        assert_eq!(tr.shape(), &[4]);
        let want: Vec<T> = (0..4).map(|k| a[k] + a[(3 + 1) * 4 + k]).collect();
        close(&tr.to_vec().unwrap(), &want, tol::<T>(2), "trace");
        // inner over the last axes equals a @ bᵀ
        let b: Vec<T> = randn_vec(5 * 4, 8);
        let ba = Array::from_vec(b.clone(), &[5, 4], &dev).unwrap();
        let a2 = Array::from_vec(a[..12].to_vec(), &[3, 4], &dev).unwrap();
        let bt: Vec<T> = adjoint(&b, 5, 4).iter().map(|v| v.conj()).collect();
        close(
            &inner(&a2, &ba).unwrap().to_vec().unwrap(),
            &naive(&a[..12], &bt, 3, 4, 5),
            tol::<T>(4),
            "inner",
        );
    }
}
all_types!(products, products_body);

fn solve_body<T: Scalar>() {
    for dev in devices() {
        for &n in &SIZES {
            let a = shifted::<T>(n, 10 + n as u64);
            let b: Vec<T> = randn_vec(n * 3, 11);
            let aa = Array::from_vec(a.clone(), &[n, n], &dev).unwrap();
            let x = solve(&aa, &Array::from_vec(b.clone(), &[n, 3], &dev).unwrap()).unwrap();
            assert_eq!(x.shape(), &[n, 3]);
            close(
                &naive(&a, &x.to_vec().unwrap(), n, n, 3),
                &b,
                tol::<T>(n),
                &format!("solve n={n} on {dev}"),
            );
            let xv = solve(&aa, &Array::from_vec(b[..n].to_vec(), &[n], &dev).unwrap()).unwrap();
            assert_eq!(xv.shape(), &[n]);
            close(
                &naive(&a, &xv.to_vec().unwrap(), n, n, 1),
                &b[..n],
                tol::<T>(n),
                "solve vector",
            );
            let ai = inv(&aa).unwrap();
            close(
                &naive(&a, &ai.to_vec().unwrap(), n, n, n),
                &eye::<T>(n),
                tol::<T>(n),
                &format!("inv n={n} on {dev}"),
            );
        }
        // a stack of small systems (the batched path on the GPU) and a broadcast right-hand side
        let (count, n) = (40, 8);
        let a: Vec<T> = (0..count)
            .flat_map(|i| shifted::<T>(n, 100 + i as u64))
            .collect();
        let b: Vec<T> = randn_vec(count * n, 12);
        let aa = Array::from_vec(a.clone(), &[count, n, n], &dev).unwrap();
        let x = solve(
            &aa,
            &Array::from_vec(b.clone(), &[count, n, 1], &dev).unwrap(),
        )
        .unwrap()
        .to_vec()
        .unwrap();
        for i in 0..count {
            close(
                &naive(&a[i * 64..(i + 1) * 64], &x[i * n..(i + 1) * n], n, n, 1),
                &b[i * n..(i + 1) * n],
                tol::<T>(n),
                "batched solve",
            );
        }
        let b1 = Array::from_vec(b[..n * 2].to_vec(), &[n, 2], &dev).unwrap();
        let x = solve(&aa, &b1).unwrap();
        assert_eq!(x.shape(), &[count, n, 2]);
        // one singular matrix in the stack: its index is reported
        let mut s = a.clone();
        for v in &mut s[7 * 64..8 * 64] {
            *v = T::zero();
        }
        let sa = Array::from_vec(s, &[count, n, n], &dev).unwrap();
        let e = solve(
            &sa,
            &Array::from_vec(b.clone(), &[count, n, 1], &dev).unwrap(),
        )
        .unwrap_err();
        assert!(
            matches!(e, Error::Singular { index: 7, .. }),
            "batched singular on {dev}: {e:?}"
        );
        assert!(matches!(inv(&sa), Err(Error::Singular { index: 7, .. })));
        // a single singular matrix: the zero pivot's index
        let sing: Vec<T> = [1.0, 2.0, 2.0, 4.0]
            .iter()
            .map(|&v| T::from_c64(cusci_core::c64::new(v, 0.0)))
            .collect();
        let sa = Array::from_vec(sing, &[2, 2], &dev).unwrap();
        assert!(
            matches!(inv(&sa), Err(Error::Singular { index: 1, .. })),
            "inv singular on {dev}"
        );
        // bad shapes
        let rect = Array::<T>::zeros(&[2, 3], &dev).unwrap();
        assert!(matches!(
            solve(&rect, &Array::<T>::zeros(&[2], &dev).unwrap()),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            solve(&sa, &Array::<T>::zeros(&[3], &dev).unwrap()),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            inv(&Array::<T>::zeros(&[3], &dev).unwrap()),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
all_types!(solve_and_inv, solve_body);

fn lu_body<T: Scalar>() {
    for dev in devices() {
        for &(m, n) in &[(0, 0), (1, 1), (2, 2), (3, 3), (33, 33), (5, 3), (3, 5)] {
            let a: Vec<T> = randn_vec(m * n, 20 + m as u64);
            let aa = Array::from_vec(a.clone(), &[m, n], &dev).unwrap();
            let (p, l, u) = lu(&aa).unwrap();
            let k = m.min(n);
            assert_eq!(
                (p.shape(), l.shape(), u.shape()),
                (&[m, m][..], &[m, k][..], &[k, n][..])
            );
            let plu = naive(
                &p.to_vec().unwrap(),
                &naive(&l.to_vec().unwrap(), &u.to_vec().unwrap(), m, k, n),
                m,
                m,
                n,
            );
            close(
                &plu,
                &a,
                tol::<T>(m.max(n)),
                &format!("P·L·U {m}x{n} on {dev}"),
            );
            // |L| <= 1 (partial pivoting; √2 for complex, pivoted on LAPACK's |re| + |im|)
            assert!(l
                .to_vec()
                .unwrap()
                .iter()
                .all(|v| v.to_c64().norm() <= std::f64::consts::SQRT_2 + 1e-6));
        }
        for &n in &[1usize, 2, 33] {
            let a = shifted::<T>(n, 30);
            let aa = Array::from_vec(a.clone(), &[n, n], &dev).unwrap();
            let f = lu_factor(&aa, LuFactorOptions::default()).unwrap();
            let b: Vec<T> = randn_vec(n * 2, 31);
            let bb = Array::from_vec(b.clone(), &[n, 2], &dev).unwrap();
            for trans in 0..3u8 {
                let x = lu_solve(&f, &bb, trans).unwrap().to_vec().unwrap();
                let op_a = match trans {
                    0 => a.clone(),
                    1 => adjoint(&a, n, n).iter().map(|v| v.conj()).collect(),
                    _ => adjoint(&a, n, n),
                };
                close(
                    &naive(&op_a, &x, n, n, 2),
                    &b,
                    tol::<T>(n),
                    &format!("lu_solve trans={trans} n={n} on {dev}"),
                );
            }
            // from SciPy's (lu, piv) pair
            let g = Lu::from_parts(f.lu.clone(), f.piv.clone()).unwrap();
            let x = g.solve(&bb, 0).unwrap().to_vec().unwrap();
            close(&naive(&a, &x, n, n, 2), &b, tol::<T>(n), "Lu::from_parts");
        }
        let nan = Array::from_vec(
            vec![T::from_c64(cusci_core::c64::new(f64::NAN, 0.0)); 4],
            &[2, 2],
            &dev,
        )
        .unwrap();
        assert!(matches!(
            lu_factor(&nan, LuFactorOptions::default()),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
all_types!(lu_identities, lu_body);

fn det_body<T: Scalar>() {
    for dev in devices() {
        // triangular: the product of the diagonal; a row swap flips the sign
        let n = 5;
        let mut a = vec![T::zero(); n * n];
        let mut want = T::one();
        let d: Vec<T> = randn_vec(n * n, 40);
        for i in 0..n {
            for j in i..n {
                a[i * n + j] = d[i * n + j];
            }
            want = want * a[i * n + i];
        }
        let aa = Array::from_vec(a.clone(), &[n, n], &dev).unwrap();
        close(
            &det(&aa).unwrap().to_vec().unwrap(),
            &[want],
            tol::<T>(n),
            "det triangular",
        );
        let mut sw = a.clone();
        for j in 0..n {
            sw.swap(j, n + j);
        }
        let sa = Array::from_vec(sw, &[n, n], &dev).unwrap();
        close(
            &det(&sa).unwrap().to_vec().unwrap(),
            &[-want],
            tol::<T>(n),
            "det swapped",
        );
        let (s, l) = slogdet(&aa).unwrap();
        let back = s.item().unwrap().to_c64()
            * cusci_core::c64::new(l.item().unwrap().to_c64().re.exp(), 0.0);
        assert!((back - want.to_c64()).norm() <= tol::<T>(n) * want.to_c64().norm());
        // singular: det 0, slogdet (0, -inf)
        let z = Array::<T>::zeros(&[2, 3, 3], &dev).unwrap();
        assert_eq!(det(&z).unwrap().to_vec().unwrap(), vec![T::zero(); 2]);
        let (s, l) = slogdet(&z).unwrap();
        assert_eq!(s.to_vec().unwrap(), vec![T::zero(); 2]);
        assert!(l
            .to_vec()
            .unwrap()
            .iter()
            .all(|v| v.to_c64().re == f64::NEG_INFINITY));
        // empty: det 1
        let e = Array::<T>::zeros(&[0, 0], &dev).unwrap();
        assert_eq!(det(&e).unwrap().item().unwrap(), T::one());
    }
}
all_types!(det_slogdet, det_body);

fn cholesky_body<T: Scalar>() {
    for dev in devices() {
        for &n in &SIZES {
            let a = hpd::<T>(n, 50 + n as u64);
            let aa = Array::from_vec(a.clone(), &[n, n], &dev).unwrap();
            let l = cholesky(&aa).unwrap().to_vec().unwrap();
            for i in 0..n {
                for j in i + 1..n {
                    assert_eq!(l[i * n + j], T::zero(), "upper part of L on {dev}");
                }
            }
            close(
                &naive(&l, &adjoint(&l, n, n), n, n, n),
                &a,
                tol::<T>(n),
                &format!("L·Lᴴ n={n} on {dev}"),
            );
            for lower in [true, false] {
                let c = cho_factor(&aa, lower).unwrap();
                let b: Vec<T> = randn_vec(n * 2, 51);
                let x = cho_solve(&c, &Array::from_vec(b.clone(), &[n, 2], &dev).unwrap())
                    .unwrap()
                    .to_vec()
                    .unwrap();
                close(
                    &naive(&a, &x, n, n, 2),
                    &b,
                    tol::<T>(n),
                    &format!("cho_solve lower={lower} n={n} on {dev}"),
                );
            }
        }
        // not positive definite: the order of the failing minor; in a stack, the matrix
        let mut a = hpd::<T>(4, 52);
        a[2 * 4 + 2] = T::from_c64(cusci_core::c64::new(-1000.0, 0.0));
        let aa = Array::from_vec(a.clone(), &[4, 4], &dev).unwrap();
        let e = cholesky(&aa).unwrap_err();
        assert!(
            matches!(e, Error::NotPositiveDefinite { index: 3, .. }),
            "non-PD on {dev}: {e:?}"
        );
        let mut stack = hpd::<T>(4, 53);
        stack.extend(hpd::<T>(4, 54));
        stack.extend(a);
        let sa = Array::from_vec(stack, &[3, 4, 4], &dev).unwrap();
        assert!(matches!(
            cholesky(&sa),
            Err(Error::NotPositiveDefinite { index: 2, .. })
        ));
    }
}
all_types!(cholesky_identities, cholesky_body);

fn qr_body<T: Scalar>() {
    for dev in devices() {
        for &(m, n) in &[(0, 0), (1, 1), (2, 2), (33, 33), (7, 4), (4, 7)] {
            let a: Vec<T> = randn_vec(m * n, 60 + m as u64);
            let aa = Array::from_vec(a.clone(), &[m, n], &dev).unwrap();
            for mode in [QrMode::Reduced, QrMode::Complete] {
                let f = qr(&aa, mode).unwrap();
                let q = f.q.unwrap();
                let qc = q.shape()[1];
                let qv = q.to_vec().unwrap();
                close(
                    &naive(&qv, &f.r.to_vec().unwrap(), m, qc, n),
                    &a,
                    tol::<T>(m.max(n)),
                    &format!("Q·R {m}x{n} {mode:?}"),
                );
                close(
                    &naive(&adjoint(&qv, m, qc), &qv, qc, m, qc),
                    &eye::<T>(qc),
                    tol::<T>(m),
                    "QᴴQ = I",
                );
            }
            let r = qr(&aa, QrMode::R).unwrap();
            assert!(r.q.is_none());
            assert_eq!(r.r.shape(), &[m.min(n), n]);
            close(
                &r.r.to_vec().unwrap(),
                &qr(&aa, QrMode::Reduced).unwrap().r.to_vec().unwrap(),
                tol::<T>(m.max(n)),
                "mode R = reduced R",
            );
        }
    }
}
all_types!(qr_identities, qr_body);

fn triangular_body<T: Scalar>() {
    for dev in devices() {
        for &n in &SIZES {
            // off-diagonal entries O(1/n): unit-triangular matrices stay well conditioned
            let a: Vec<T> = shifted::<T>(n, 200 + n as u64)
                .iter()
                .enumerate()
                .map(|(k, v)| {
                    if k / n.max(1) == k % n.max(1) {
                        *v
                    } else {
                        *v * T::from_c64(cusci_core::c64::new(1.0 / n as f64, 0.0))
                    }
                })
                .collect();
            let b: Vec<T> = randn_vec(n * 3, 201);
            let aa = Array::from_vec(a.clone(), &[n, n], &dev).unwrap();
            let bb = Array::from_vec(b.clone(), &[n, 3], &dev).unwrap();
            for lower in [true, false] {
                for unit in [false, true] {
                    for trans in 0..3u8 {
                        let opts = TriangularOptions {
                            trans,
                            lower,
                            unit_diagonal: unit,
                        };
                        let x = solve_triangular(&aa, &bb, opts).unwrap().to_vec().unwrap();
                        // the triangle actually used, then op()
                        let mut tri = vec![T::zero(); n * n];
                        for i in 0..n {
                            for j in 0..n {
                                if i == j {
                                    tri[i * n + j] = if unit { T::one() } else { a[i * n + j] };
                                } else if (i > j) == lower {
                                    tri[i * n + j] = a[i * n + j];
                                }
                            }
                        }
                        let op_a: Vec<T> = match trans {
                            0 => tri,
                            1 => adjoint(&tri, n, n).iter().map(|v| v.conj()).collect(),
                            _ => adjoint(&tri, n, n),
                        };
                        close(
                            &naive(&op_a, &x, n, n, 3),
                            &b,
                            tol::<T>(n),
                            &format!("solve_triangular n={n} {opts:?} on {dev}"),
                        );
                    }
                }
            }
        }
        let z = Array::<T>::zeros(&[2, 2], &dev).unwrap();
        let b = Array::<T>::ones(&[2], &dev).unwrap();
        assert!(matches!(
            solve_triangular(&z, &b, TriangularOptions::default()),
            Err(Error::Singular { index: 0, .. })
        ));
    }
}
all_types!(solve_triangular_identities, triangular_body);

fn svd_body<T: Scalar>() {
    for dev in devices() {
        for &(m, n) in &[(0, 0), (1, 1), (2, 2), (3, 3), (33, 33), (7, 4), (4, 7)] {
            let a: Vec<T> = randn_vec(m * n, 70 + m as u64);
            let aa = Array::from_vec(a.clone(), &[m, n], &dev).unwrap();
            let k = m.min(n);
            for full in [true, false] {
                let r = svd(
                    &aa,
                    SvdOptions {
                        full_matrices: full,
                        compute_uv: true,
                    },
                )
                .unwrap();
                let (u, s, vh) = (
                    r.u.unwrap().to_vec().unwrap(),
                    r.s.to_vec().unwrap(),
                    r.vh.unwrap().to_vec().unwrap(),
                );
                let (uc, vr) = if full { (m, n) } else { (k, k) };
                assert_eq!(u.len(), m * uc);
                assert_eq!(vh.len(), vr * n);
                let mut sm = vec![T::zero(); uc * vr];
                for i in 0..k {
                    sm[i * vr + i] = T::from_real(s[i]);
                }
                let usv = naive(&naive(&u, &sm, m, uc, vr), &vh, m, vr, n);
                close(
                    &usv,
                    &a,
                    tol::<T>(m.max(n)),
                    &format!("U·S·Vᴴ {m}x{n} full={full} on {dev}"),
                );
                close(
                    &naive(&adjoint(&u, m, uc), &u, uc, m, uc),
                    &eye::<T>(uc),
                    tol::<T>(m),
                    "UᴴU = I",
                );
                assert!(
                    s.windows(2).all(|w| w[0].to_c64().re >= w[1].to_c64().re),
                    "descending"
                );
                let s2 = svd(
                    &aa,
                    SvdOptions {
                        full_matrices: full,
                        compute_uv: false,
                    },
                )
                .unwrap();
                assert!(s2.u.is_none());
                let s2v = s2.s.to_vec().unwrap();
                close(&s2v, &s, tol::<T>(m.max(n)), "s without vectors");
            }
        }
    }
}
all_types!(svd_identities, svd_body);

fn eigh_body<T: Scalar>() {
    for dev in devices() {
        for &n in &SIZES {
            let m: Vec<T> = randn_vec(n * n, 80 + n as u64);
            let a: Vec<T> = m
                .iter()
                .zip(adjoint(&m, n, n))
                .map(|(x, y)| *x + y)
                .collect();
            for lower in [true, false] {
                // garbage in the unread triangle must not matter
                let mut g = a.clone();
                for i in 0..n {
                    for j in 0..n {
                        if (lower && j > i) || (!lower && j < i) {
                            g[i * n + j] = T::from_c64(cusci_core::c64::new(1e3, 7.0));
                        }
                    }
                }
                let aa = Array::from_vec(g, &[n, n], &dev).unwrap();
                let (w, v) = eigh(&aa, lower).unwrap();
                let (w, v) = (w.to_vec().unwrap(), v.to_vec().unwrap());
                assert!(
                    w.windows(2).all(|p| p[0].to_c64().re <= p[1].to_c64().re),
                    "ascending"
                );
                let av = naive(&a, &v, n, n, n);
                let mut vl = v.clone();
                for i in 0..n {
                    for j in 0..n {
                        vl[i * n + j] = vl[i * n + j] * T::from_real(w[j]);
                    }
                }
                close(
                    &av,
                    &vl,
                    tol::<T>(n) * 4.0,
                    &format!("A·V = V·Λ n={n} lower={lower} on {dev}"),
                );
                close(
                    &naive(&adjoint(&v, n, n), &v, n, n, n),
                    &eye::<T>(n),
                    tol::<T>(n),
                    "VᴴV = I",
                );
                let w2 = eigvalsh(&aa, lower).unwrap().to_vec().unwrap();
                close(&w2, &w, tol::<T>(n) * 4.0, "eigvalsh");
            }
        }
    }
}
all_types!(eigh_identities, eigh_body);

/// The GPU against the CPU on the same inputs (skipped without a GPU).
#[test]
fn gpu_matches_cpu() {
    let Some(g) = cusci_core::testing::gpu() else {
        return;
    };
    let n = 65;
    let a = shifted::<f64>(n, 90);
    let b: Vec<f64> = randn_vec(n * 4, 91);
    let run = |dev: &Device| {
        let aa = Array::from_vec(a.clone(), &[n, n], dev).unwrap();
        let bb = Array::from_vec(b.clone(), &[n, 4], dev).unwrap();
        let x = solve(&aa, &bb).unwrap().to_vec().unwrap();
        let c = matmul(&aa, &aa).unwrap().to_vec().unwrap();
        let d = det(&aa).unwrap().to_vec().unwrap();
        let f = lu_factor(&aa, LuFactorOptions::default()).unwrap();
        let s = svd(
            &aa,
            SvdOptions {
                full_matrices: false,
                compute_uv: false,
            },
        )
        .unwrap()
        .s
        .to_vec()
        .unwrap();
        (x, c, d, f.lu.to_vec().unwrap(), f.piv.to_vec().unwrap(), s)
    };
    let (c, gg) = (run(&Device::Cpu), run(&g));
    close(&gg.0, &c.0, 1e-12, "solve gpu/cpu");
    close(&gg.1, &c.1, 1e-13, "matmul gpu/cpu");
    close(&gg.2, &c.2, 1e-11, "det gpu/cpu");
    close(&gg.3, &c.3, 1e-12, "lu gpu/cpu");
    assert_eq!(gg.4, c.4, "pivots gpu/cpu");
    close(&gg.5, &c.5, 1e-12, "singular values gpu/cpu");
}

/// Stacks of small systems (the GPU's one-kernel LU solve for `n <= 32`, every lane width) and
/// the cuSOLVER path just above it: residuals, the GPU against the CPU, broadcast right-hand
/// sides, and the typed errors (non-finite input, the first singular matrix or zero pivot).
fn small_systems_body<T: Scalar>() {
    let nan = T::from_c64(cusci_core::c64::new(f64::NAN, 0.0));
    let inf = T::from_c64(cusci_core::c64::new(f64::INFINITY, 0.0));
    let mut cpu_x: Vec<Vec<T>> = Vec::new();
    for dev in devices() {
        let mut case = 0;
        for &n in &[1usize, 2, 5, 8, 17, 32, 33] {
            for &count in &[1usize, 3] {
                let a: Vec<T> = (0..count)
                    .flat_map(|i| shifted::<T>(n, 300 + (n * 7 + i) as u64))
                    .collect();
                let b: Vec<T> = randn_vec(count * n * 2, 301 + n as u64);
                let aa = Array::from_vec(a.clone(), &[count, n, n], &dev).unwrap();
                let bb = Array::from_vec(b.clone(), &[count, n, 2], &dev).unwrap();
                let x = solve(&aa, &bb).unwrap().to_vec().unwrap();
                let ai = inv(&aa).unwrap().to_vec().unwrap();
                for i in 0..count {
                    let ab = &a[i * n * n..(i + 1) * n * n];
                    close(
                        &naive(ab, &x[i * n * 2..(i + 1) * n * 2], n, n, 2),
                        &b[i * n * 2..(i + 1) * n * 2],
                        tol::<T>(n),
                        &format!("small solve n={n} count={count} on {dev}"),
                    );
                    close(
                        &naive(ab, &ai[i * n * n..(i + 1) * n * n], n, n, n),
                        &eye::<T>(n),
                        tol::<T>(n),
                        &format!("small inv n={n} count={count} on {dev}"),
                    );
                }
                // one right-hand side broadcast over the stack
                let b1 = Array::from_vec(b[..n].to_vec(), &[n, 1], &dev).unwrap();
                let xb = solve(&aa, &b1).unwrap();
                assert_eq!(xb.shape(), &[count, n, 1]);
                let mut all = x.clone();
                all.extend(ai);
                all.extend(xb.to_vec().unwrap());
                if let Device::Cpu = dev {
                    cpu_x.push(all);
                } else {
                    close(
                        &all,
                        &cpu_x[case],
                        tol::<T>(n),
                        &format!("GPU against CPU n={n} count={count}"),
                    );
                }
                case += 1;

                // non-finite input: InvalidArgument, in a or in b
                let mut an = a.clone();
                an[(count - 1) * n * n + n * n / 2] = nan;
                let an = Array::from_vec(an, &[count, n, n], &dev).unwrap();
                assert!(
                    matches!(solve(&an, &bb), Err(Error::InvalidArgument { .. })),
                    "NaN in a, n={n} on {dev}"
                );
                assert!(matches!(inv(&an), Err(Error::InvalidArgument { .. })));
                let mut bn = b.clone();
                bn[count * n * 2 - 1] = inf;
                let bn = Array::from_vec(bn, &[count, n, 2], &dev).unwrap();
                assert!(
                    matches!(solve(&aa, &bn), Err(Error::InvalidArgument { .. })),
                    "inf in b, n={n} on {dev}"
                );
                // a zero column 0 (n = 1) or n / 2 in the last matrix: singular at that pivot
                if n >= 1 {
                    let z = n / 2;
                    let mut s = a.clone();
                    for r in 0..n {
                        s[(count - 1) * n * n + r * n + z] = T::zero();
                    }
                    let sa = Array::from_vec(s, &[count, n, n], &dev).unwrap();
                    // a 3-D array is a stack, even of one matrix: the matrix is reported
                    let want = count - 1;
                    for e in [solve(&sa, &bb).unwrap_err(), inv(&sa).unwrap_err()] {
                        assert!(
                            matches!(e, Error::Singular { index, .. } if index == want),
                            "singular n={n} count={count} on {dev}: {e:?}"
                        );
                    }
                    // a 2-D matrix is not a stack: the pivot even for the same matrix
                    let s2 = sa.index_axis(0, count as isize - 1).unwrap();
                    assert!(matches!(
                        inv(&s2),
                        Err(Error::Singular { index, .. }) if index == z
                    ));
                }
            }
        }
        // Cholesky: non-finite input is InvalidArgument on every device
        let mut h = hpd::<T>(5, 310);
        h[7] = nan;
        let ha = Array::from_vec(h, &[5, 5], &dev).unwrap();
        assert!(matches!(cholesky(&ha), Err(Error::InvalidArgument { .. })));
    }
}
all_types!(small_systems, small_systems_body);

/// Every CUDA kernel of the crate compiles with NVRTC (sm_90), checked without a GPU.
#[test]
fn kernels_compile() {
    let Some(failed) = cusci_core::testing::compile_modules(&kernel_modules(), "compute_90") else {
        return;
    };
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
