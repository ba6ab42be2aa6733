//! `cusci_linalg::scipy`: SciPy's semantics (eigh/eigvalsh with `b`, `type`, subsets; solve with
//! `assume_a`, `lower`, `transposed` and the condition number) against SciPy's results in
//! `tests/data/scipy_linalg_sem.npz` (written by `tests/golden/gen.py linalg_sem`), the CPU first,
//! then every other device against the CPU; eigenvectors by their defining identities on every
//! device.

use crate::common::npz::{check, dt, get, input, load, single, vals, Data};
use cusci_core::testing::devices;
use cusci_core::{c64, Element};
use cusci_linalg::scipy::{
    eigh, eigvalsh, solve, solve_with_info, AssumeA, EighOptions, SolveOptions,
};
use cusci_linalg::{c32, Array, Device, Error, Scalar};

const NPZ: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/scipy_linalg_sem.npz"
);

fn data() -> Data {
    load(NPZ)
}

fn tol<T: Scalar>() -> f64 {
    if single::<T>() {
        2e-4
    } else {
        1e-9
    }
}

fn shape_of<T: Element>(a: &Array<T>) -> Vec<usize> {
    a.shape().to_vec()
}

/// The Hermitian (or symmetric, `conj = false`) matrix whose `lower`/upper triangle `x` holds, on
/// the host (row-major `n x n`), real diagonal when `conj`.
fn full_host(x: &[c64], n: usize, lower: bool, conj: bool) -> Vec<c64> {
    let mut f = vec![c64::new(0.0, 0.0); n * n];
    for i in 0..n {
        for j in 0..n {
            let (r, c) = if (j <= i) == lower || i == j {
                (i, j)
            } else {
                (j, i)
            };
            let v = x[r * n + c];
            f[i * n + j] = if (r, c) == (i, j) {
                v
            } else if conj {
                v.conj()
            } else {
                v
            };
            if i == j && conj {
                f[i * n + j] = c64::new(v.re, 0.0);
            }
        }
    }
    f
}

fn mm(a: &[c64], b: &[c64], m: usize, k: usize, n: usize) -> Vec<c64> {
    crate::common::naive(a, b, m, k, n)
}

fn adjh(a: &[c64], m: usize, n: usize) -> Vec<c64> {
    crate::common::adjoint(a, m, n)
}

fn assert_small(x: &[c64], scale: f64, tol: f64, what: &str) {
    let worst = x.iter().map(|v| v.norm()).fold(0.0, f64::max);
    assert!(
        worst <= tol * scale.max(1.0),
        "{what}: residual {worst:e} > {:e}",
        tol * scale.max(1.0)
    );
}

// ---------------------------------------------------------------------------------------------
// eigh
// ---------------------------------------------------------------------------------------------

fn eigh_values<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    for lower in [true, false] {
        let lt = if lower { "l" } else { "u" };
        let (want, ws) = get(&d, &format!("eigh_std_{lt}_{t}"));
        check(
            &format!("eigh std {lt} {t}"),
            &want,
            &ws,
            tol::<T>(),
            |dev| {
                let a = input::<T>(&d, &format!("in_EA5_{t}"), dev);
                let o = EighOptions {
                    lower,
                    ..Default::default()
                };
                let w = eigvalsh(&a, None, o).unwrap();
                (vals(&w), shape_of(&w))
            },
        );
        for ty in 1..=3u8 {
            let (want, ws) = get(&d, &format!("eigh_t{ty}_{lt}_{t}"));
            check(
                &format!("eigh type {ty} {lt} {t}"),
                &want,
                &ws,
                tol::<T>(),
                |dev| {
                    let a = input::<T>(&d, &format!("in_EA5_{t}"), dev);
                    let b = input::<T>(&d, &format!("in_EB5_{t}"), dev);
                    let o = EighOptions {
                        lower,
                        type_: ty,
                        eigvals_only: true,
                        ..Default::default()
                    };
                    let r = eigh(&a, Some(&b), o).unwrap();
                    assert!(r.v.is_none());
                    (vals(&r.w), shape_of(&r.w))
                },
            );
        }
    }
    for (case, gen) in [("std", false), ("t1", true)] {
        for (sub, o) in [
            (
                "idx",
                EighOptions {
                    subset_by_index: Some((1, 3)),
                    ..Default::default()
                },
            ),
            (
                "val",
                EighOptions {
                    subset_by_value: Some((-0.5, 1.5)),
                    ..Default::default()
                },
            ),
        ] {
            let (want, ws) = get(&d, &format!("eigh_{sub}_{case}_{t}"));
            check(
                &format!("eigh {sub} {case} {t}"),
                &want,
                &ws,
                tol::<T>(),
                |dev| {
                    let a = input::<T>(&d, &format!("in_EA5_{t}"), dev);
                    let b = input::<T>(&d, &format!("in_EB5_{t}"), dev);
                    let r = eigh(&a, if gen { Some(&b) } else { None }, o).unwrap();
                    let v = r.v.unwrap();
                    assert_eq!(v.shape(), &[5, r.w.shape()[0]]);
                    (vals(&r.w), shape_of(&r.w))
                },
            );
        }
    }
    let (want, ws) = get(&d, &format!("eigh_stack_t1_{t}"));
    check(&format!("eigh stack {t}"), &want, &ws, tol::<T>(), |dev| {
        let a = input::<T>(&d, &format!("in_EAS_{t}"), dev);
        let b = input::<T>(&d, &format!("in_EBS_{t}"), dev);
        let w = eigvalsh(&a, Some(&b), EighOptions::default()).unwrap();
        (vals(&w), shape_of(&w))
    });
}
all_types!(scipy_eigh_values_against_scipy, eigh_values);

/// `a v = w b v` (type 1), `a b v = w v` (2), `b a v = w v` (3) and the normalisation
/// (`vᴴ b v = I`, type 3: `vᴴ b⁻¹ v = I`, checked as `v vᴴ b = I`... via `b⁻¹`-free `(L⁻¹v)`:
/// here `vᴴ b v` for 1 and 2, and `v = L y` with orthonormal `y` for 3, checked as
/// `vᴴ x = I` where `b x = v`), with subsets, on every device.
fn eigh_vectors<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    let n = 5;
    let cx = T::DTYPE.is_complex();
    let (a0, _) = get(&d, &format!("in_EA5_{t}"));
    let (b0, _) = get(&d, &format!("in_EB5_{t}"));
    let tl = 50.0 * tol::<T>();
    for dev in devices() {
        for lower in [true, false] {
            let af = full_host(&a0, n, lower, cx);
            let bf = full_host(&b0, n, lower, cx);
            for (ty, sub) in [
                (0u8, None),
                (1, None),
                (2, None),
                (3, None),
                (1, Some((2usize, 4usize))),
                (0, Some((0, 1))),
            ] {
                let a = input::<T>(&d, &format!("in_EA5_{t}"), &dev);
                let b = input::<T>(&d, &format!("in_EB5_{t}"), &dev);
                let o = EighOptions {
                    lower,
                    type_: ty.max(1),
                    subset_by_index: sub,
                    ..Default::default()
                };
                let r = eigh(&a, if ty == 0 { None } else { Some(&b) }, o).unwrap();
                let w: Vec<f64> = vals(&r.w).iter().map(|z| z.re).collect();
                let m = w.len();
                let v = vals(&r.v.unwrap());
                let vw: Vec<c64> = (0..n * m).map(|i| v[i] * w[i % m]).collect();
                let what = format!("eigh vectors {t} type {ty} lower {lower} {sub:?} on {dev}");
                let (lhs, rhs) = match ty {
                    0 => (mm(&af, &v, n, n, m), vw.clone()),
                    1 => (mm(&af, &v, n, n, m), mm(&bf, &vw, n, n, m)),
                    2 => (mm(&af, &mm(&bf, &v, n, n, m), n, n, m), vw.clone()),
                    _ => (mm(&bf, &mm(&af, &v, n, n, m), n, n, m), vw.clone()),
                };
                let res: Vec<c64> = lhs.iter().zip(&rhs).map(|(x, y)| x - y).collect();
                assert_small(&res, 10.0, tl, &format!("{what}: equation"));
                // normalisation: vᴴ b v = I (types 1, 2), vᴴ v = I (standard)
                if ty != 3 {
                    let g = if ty == 0 {
                        mm(&adjh(&v, n, m), &v, m, n, m)
                    } else {
                        mm(&adjh(&v, n, m), &mm(&bf, &v, n, n, m), m, n, m)
                    };
                    let res: Vec<c64> = (0..m * m)
                        .map(|i| {
                            g[i] - if i / m == i % m {
                                c64::new(1.0, 0.0)
                            } else {
                                c64::new(0.0, 0.0)
                            }
                        })
                        .collect();
                    assert_small(&res, 1.0, tl, &format!("{what}: normalisation"));
                }
            }
        }
    }
}
all_types!(scipy_eigh_vectors_identities, eigh_vectors);

#[test]
fn scipy_eigh_value_subset_stack_different_starts() {
    // diag(1, 2, 3) and diag(0, 1.5, 4): (1.2, 3.5] holds 2 and 3 (indices 1, 2) and 1.5, 4
    // would be (1.5 only) -> use (0.5, 3.0]: {1, 2, 3} ∩ = {1, 2, 3} (3 values) vs {1.5} -> error;
    // (1.4, 3.0]: {2, 3} (start 1) and {1.5} -> error; so build equal counts with different
    // starts: (0.5, 2.5]: {1, 2} (start 0) and {1.5} ... use diag(0, 1.5, 2.2) -> {1.5, 2.2}
    // (start 1)
    for dev in devices() {
        let a = Array::from_vec(
            vec![
                1.0f64, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0, //
                0.0, 0.0, 0.0, 0.0, 1.5, 0.0, 0.0, 0.0, 2.2,
            ],
            &[2, 3, 3],
            &dev,
        )
        .unwrap();
        let o = EighOptions {
            subset_by_value: Some((0.5, 2.5)),
            ..Default::default()
        };
        let r = eigh(&a, None, o).unwrap();
        assert_eq!(r.w.shape(), &[2, 2]);
        assert_eq!(r.w.to_vec().unwrap(), vec![1.0, 2.0, 1.5, 2.2], "{dev}");
        let v = r.v.unwrap();
        assert_eq!(v.shape(), &[2, 3, 2]);
        let vv: Vec<f64> = v.to_vec().unwrap().iter().map(|x| x.abs()).collect();
        assert_eq!(
            vv,
            vec![1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0],
            "{dev}"
        );
        // different counts: SciPy cannot stack them either
        let o = EighOptions {
            subset_by_value: Some((1.8, 2.5)),
            ..Default::default()
        };
        let r = eigh(&a, None, o).unwrap();
        assert_eq!(r.w.to_vec().unwrap(), vec![2.0, 2.2]);
        let o = EighOptions {
            subset_by_value: Some((2.1, 2.5)),
            ..Default::default()
        };
        assert!(matches!(
            eigh(&a, None, o),
            Err(Error::InvalidArgument { .. })
        ));
        // an empty interval
        let o = EighOptions {
            subset_by_value: Some((10.0, 20.0)),
            ..Default::default()
        };
        let r = eigh(&a, None, o).unwrap();
        assert_eq!(r.w.shape(), &[2, 0]);
        assert_eq!(r.v.unwrap().shape(), &[2, 3, 0]);
    }
}

#[test]
fn scipy_eigh_errors() {
    for dev in devices() {
        let a = Array::from_vec(vec![2.0f32, 1.0, 1.0, 3.0], &[2, 2], &dev).unwrap();
        let npd = Array::from_vec(vec![1.0f32, 2.0, 2.0, 1.0], &[2, 2], &dev).unwrap();
        let b3 = Array::<f32>::eye(3, None, 0, &dev).unwrap();
        let bad = |o: EighOptions, b: Option<&Array<f32>>| {
            matches!(eigh(&a, b, o), Err(Error::InvalidArgument { .. }))
        };
        assert!(bad(
            EighOptions {
                subset_by_index: Some((1, 2)),
                ..Default::default()
            },
            None
        ));
        assert!(bad(
            EighOptions {
                subset_by_index: Some((1, 0)),
                ..Default::default()
            },
            None
        ));
        assert!(bad(
            EighOptions {
                subset_by_value: Some((1.0, 1.0)),
                ..Default::default()
            },
            None
        ));
        assert!(bad(
            EighOptions {
                subset_by_value: Some((0.0, 1.0)),
                subset_by_index: Some((0, 0)),
                ..Default::default()
            },
            None
        ));
        assert!(bad(
            EighOptions {
                type_: 4,
                ..Default::default()
            },
            Some(&a)
        ));
        assert!(bad(EighOptions::default(), Some(&b3)));
        assert!(matches!(
            eigh(&a, Some(&npd), EighOptions::default()),
            Err(Error::NotPositiveDefinite { .. })
        ));
        let nan = Array::from_vec(vec![f32::NAN, 0.0, 0.0, 1.0], &[2, 2], &dev).unwrap();
        assert!(matches!(
            eigh(&a, Some(&nan), EighOptions::default()),
            Err(Error::InvalidArgument { .. })
        ));
        // empty
        let e = Array::<f32>::zeros(&[0, 0], &dev).unwrap();
        let r = eigh(&e, Some(&e), EighOptions::default()).unwrap();
        assert_eq!(r.w.shape(), &[0]);
    }
}

// ---------------------------------------------------------------------------------------------
// solve
// ---------------------------------------------------------------------------------------------

fn solve_values<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    let cases: Vec<(&str, &str, SolveOptions)> = {
        let o = |assume_a, lower, transposed| SolveOptions {
            assume_a,
            lower,
            transposed,
        };
        let mut v = vec![
            ("gen", "SA5", o(AssumeA::General, false, false)),
            ("auto", "SA5", o(AssumeA::Auto, false, false)),
            ("sym_l", "SA5", o(AssumeA::Symmetric, true, false)),
            ("sym_u", "SA5", o(AssumeA::Symmetric, false, false)),
            ("her_l", "SA5", o(AssumeA::Hermitian, true, false)),
            ("her_u", "SA5", o(AssumeA::Hermitian, false, false)),
            ("pos_l", "SP5", o(AssumeA::PositiveDefinite, true, false)),
            ("pos_u", "SP5", o(AssumeA::PositiveDefinite, false, false)),
            ("lt", "SA5", o(AssumeA::LowerTriangular, false, false)),
            ("ut", "SA5", o(AssumeA::UpperTriangular, false, false)),
            ("diag", "SA5", o(AssumeA::Diagonal, false, false)),
            ("tri", "SA5", o(AssumeA::Tridiagonal, false, false)),
        ];
        if !T::DTYPE.is_complex() {
            v.push(("gent", "SA5", o(AssumeA::General, false, true)));
        }
        v
    };
    for (case, ain, opts) in cases {
        for (bn, bin) in [("v", "SB5"), ("m", "SB52")] {
            let (want, ws) = get(&d, &format!("solve_{case}_{bn}_{t}"));
            check(
                &format!("solve {case} {bn} {t}"),
                &want,
                &ws,
                tol::<T>(),
                |dev| {
                    let a = input::<T>(&d, &format!("in_{ain}_{t}"), dev);
                    let b = input::<T>(&d, &format!("in_{bin}_{t}"), dev);
                    let x = solve(&a, &b, opts).unwrap();
                    (vals(&x), shape_of(&x))
                },
            );
        }
    }
    // banded: the golden input is SciPy's banded part of SA5 (every non-zero is read)
    let (want, ws) = get(&d, &format!("solve_band_m_{t}"));
    check(&format!("solve band {t}"), &want, &ws, tol::<T>(), |dev| {
        let (a0, _) = get(&d, &format!("in_SA5_{t}"));
        let band: Vec<T> = (0..25)
            .map(|i| {
                let (r, c) = ((i / 5) as isize, (i % 5) as isize);
                if c - r <= 2 && r - c <= 1 {
                    T::from_c64(a0[i])
                } else {
                    T::zero()
                }
            })
            .collect();
        let a = Array::from_vec(band, &[5, 5], dev).unwrap();
        let b = input::<T>(&d, &format!("in_SB52_{t}"), dev);
        let o = SolveOptions {
            assume_a: AssumeA::Banded,
            ..Default::default()
        };
        let x = solve(&a, &b, o).unwrap();
        (vals(&x), shape_of(&x))
    });
}
all_types!(scipy_solve_against_scipy, solve_values);

#[test]
fn scipy_solve_transposed_complex_and_stacks() {
    // complex transposed (SciPy raises NotImplementedError): aᵀ x = b by the identity
    let d = data();
    for dev in devices() {
        let a = input::<c32>(&d, "in_SA5_z", &dev);
        let b = input::<c32>(&d, "in_SB52_z", &dev);
        for assume_a in [
            AssumeA::General,
            AssumeA::UpperTriangular,
            AssumeA::LowerTriangular,
            AssumeA::Tridiagonal,
        ] {
            let o = SolveOptions {
                assume_a,
                transposed: true,
                ..Default::default()
            };
            let x = solve(&a, &b, o).unwrap();
            let keep = |r: usize, c: usize| match assume_a {
                AssumeA::UpperTriangular => c >= r,
                AssumeA::LowerTriangular => c <= r,
                AssumeA::Tridiagonal => r.abs_diff(c) <= 1,
                _ => true,
            };
            let av = vals(&a);
            // (op a)ᵀ
            let mut at = vec![c64::new(0.0, 0.0); 25];
            for r in 0..5 {
                for c in 0..5 {
                    if keep(r, c) {
                        at[c * 5 + r] = av[r * 5 + c];
                    }
                }
            }
            let res: Vec<c64> = mm(&at, &vals(&x), 5, 5, 2)
                .iter()
                .zip(vals(&b))
                .map(|(p, q)| p - q)
                .collect();
            assert_small(
                &res,
                10.0,
                1e-3,
                &format!("{assume_a:?} transposed on {dev}"),
            );
        }
        // a stack of 3 positive definite matrices against one right-hand side
        let a = Array::from_vec(
            vec![
                4.0f64, 1.0, 1.0, 3.0, //
                2.0, 0.0, 0.0, 2.0, //
                5.0, 2.0, 2.0, 5.0,
            ],
            &[3, 2, 2],
            &dev,
        )
        .unwrap();
        let b = Array::from_vec(vec![1.0f64, 2.0], &[2], &dev).unwrap();
        for assume_a in [AssumeA::PositiveDefinite, AssumeA::Symmetric, AssumeA::Auto] {
            let o = SolveOptions {
                assume_a,
                ..Default::default()
            };
            let x = solve(&a, &b, o).unwrap();
            assert_eq!(x.shape(), &[3, 2]);
            let x = x.to_vec().unwrap();
            let want = [1.0 / 11.0, 7.0 / 11.0, 0.5, 1.0, 1.0 / 21.0, 8.0 / 21.0];
            for (g, w) in x.iter().zip(want) {
                assert!((g - w).abs() < 1e-12, "{assume_a:?} on {dev}: {x:?}");
            }
        }
    }
}

#[test]
fn scipy_solve_rcond_and_errors() {
    for dev in devices() {
        let b = Array::from_vec(vec![1.0f64, 1.0], &[2], &dev).unwrap();
        // diag(2, 1): rcond = 0.5, not ill-conditioned
        let a = Array::from_vec(vec![2.0f64, 0.0, 0.0, 1.0], &[2, 2], &dev).unwrap();
        for assume_a in [
            AssumeA::General,
            AssumeA::Diagonal,
            AssumeA::PositiveDefinite,
        ] {
            let o = SolveOptions {
                assume_a,
                ..Default::default()
            };
            let r = solve_with_info(&a, &b, o).unwrap();
            assert_eq!(r.rcond.shape(), &[] as &[usize]);
            assert!((r.rcond.item().unwrap() - 0.5).abs() < 1e-15, "{dev}");
            assert!(r.ill_conditioned().unwrap().is_empty());
            let x = r.x.to_vec().unwrap();
            assert!(
                (x[0] - 0.5).abs() < 1e-15 && (x[1] - 1.0).abs() < 1e-15,
                "{x:?}"
            );
        }
        // [[1, 1], [1, 1 + 4e-16]]: rcond ~ 1e-16 < eps -> SciPy's LinAlgWarning; then diag(3, 1)
        let a = Array::from_vec(
            vec![1.0f64, 1.0, 1.0, 1.0 + 4e-16, 3.0, 0.0, 0.0, 1.0],
            &[2, 2, 2],
            &dev,
        )
        .unwrap();
        let r = solve_with_info(&a, &b, SolveOptions::default()).unwrap();
        assert_eq!(r.rcond.shape(), &[2]);
        assert_eq!(r.ill_conditioned().unwrap(), vec![0], "{dev}");
        // singular
        let s = Array::from_vec(vec![1.0f64, 2.0, 2.0, 4.0], &[2, 2], &dev).unwrap();
        for assume_a in [
            AssumeA::General,
            AssumeA::Symmetric,
            AssumeA::Hermitian,
            AssumeA::Tridiagonal,
            AssumeA::Banded,
            AssumeA::Auto,
        ] {
            let o = SolveOptions {
                assume_a,
                ..Default::default()
            };
            assert!(
                matches!(solve(&s, &b, o), Err(Error::Singular { .. })),
                "{assume_a:?} on {dev}"
            );
        }
        let z = Array::from_vec(vec![1.0f64, 0.0, 5.0, 0.0], &[2, 2], &dev).unwrap();
        for assume_a in [
            AssumeA::Diagonal,
            AssumeA::UpperTriangular,
            AssumeA::LowerTriangular,
        ] {
            let o = SolveOptions {
                assume_a,
                ..Default::default()
            };
            assert!(
                matches!(solve(&z, &b, o), Err(Error::Singular { .. })),
                "{assume_a:?} on {dev}"
            );
        }
        let o = SolveOptions {
            assume_a: AssumeA::PositiveDefinite,
            ..Default::default()
        };
        assert!(matches!(
            solve(&s, &b, o),
            Err(Error::NotPositiveDefinite { .. })
        ));
        let b3 = Array::from_vec(vec![1.0f64; 3], &[3], &dev).unwrap();
        assert!(matches!(
            solve(&a, &b3, SolveOptions::default()),
            Err(Error::ShapeMismatch { .. })
        ));
        let nan = Array::from_vec(vec![f64::NAN, 1.0], &[2], &dev).unwrap();
        assert!(matches!(
            solve(&s, &nan, SolveOptions::default()),
            Err(Error::InvalidArgument { .. })
        ));
        // empty
        let e = Array::<f64>::zeros(&[0, 0], &dev).unwrap();
        let eb = Array::<f64>::zeros(&[0], &dev).unwrap();
        let r = solve_with_info(&e, &eb, SolveOptions::default()).unwrap();
        assert_eq!(r.x.shape(), &[0]);
        let _ = Device::Cpu;
    }
}

// ---------------------------------------------------------------------------------------------
// cholesky, lu, qr (pivoting), pinv, matrix_rank, norm
// ---------------------------------------------------------------------------------------------

fn decomps<T: Scalar>() {
    use cusci_linalg::scipy::{cholesky, lu, qr, LuOptions, QrMode, QrOptions};
    let d = data();
    let t = dt::<T>();
    for (lower, lt) in [(false, "u"), (true, "l")] {
        let (want, ws) = get(&d, &format!("chol_{lt}_{t}"));
        check(
            &format!("cholesky {lt} {t}"),
            &want,
            &ws,
            tol::<T>(),
            |dev| {
                let a = input::<T>(&d, &format!("in_SP5_{t}"), dev);
                let c = cholesky(&a, lower).unwrap();
                (vals(&c), shape_of(&c))
            },
        );
    }
    for case in ["t", "w"] {
        let load_a = |dev: &Device| {
            let a = input::<T>(&d, &format!("in_LA_{t}"), dev);
            if case == "w" {
                a.swapaxes(-1, -2).unwrap().copy().unwrap()
            } else {
                a
            }
        };
        let (want, ws) = get(&d, &format!("lu_p_{case}_{t}"));
        check(
            &format!("lu p_indices {case} {t}"),
            &want,
            &ws,
            0.0,
            |dev| {
                let o = LuOptions {
                    p_indices: true,
                    ..Default::default()
                };
                let f = lu(&load_a(dev), o).unwrap();
                assert!(f.p.is_none());
                let p = f.perm.unwrap();
                (vals(&p), shape_of(&p))
            },
        );
        let (want, ws) = get(&d, &format!("lu_pl_{case}_{t}"));
        check(
            &format!("lu permute_l {case} {t}"),
            &want,
            &ws,
            tol::<T>(),
            |dev| {
                let o = LuOptions {
                    permute_l: true,
                    ..Default::default()
                };
                let f = lu(&load_a(dev), o).unwrap();
                assert!(f.p.is_none() && f.perm.is_none());
                (vals(&f.l), shape_of(&f.l))
            },
        );
        for (mode, m) in [("full", QrMode::Full), ("economic", QrMode::Economic)] {
            let o = QrOptions {
                mode: m,
                pivoting: true,
            };
            for part in ["q", "r", "p"] {
                let (want, ws) = get(&d, &format!("qrp_{mode}_{case}_{t}_{part}"));
                let tl = if part == "p" { 0.0 } else { 10.0 * tol::<T>() };
                check(
                    &format!("qr pivoting {mode} {case} {t} {part}"),
                    &want,
                    &ws,
                    tl,
                    |dev| {
                        let f = qr(&load_a(dev), o).unwrap();
                        match part {
                            "q" => {
                                let q = f.q.unwrap();
                                (vals(&q), shape_of(&q))
                            }
                            "r" => (vals(&f.r), shape_of(&f.r)),
                            _ => {
                                let p = f.p.unwrap();
                                (vals(&p), shape_of(&p))
                            }
                        }
                    },
                );
            }
        }
        // without pivoting: SciPy's shapes (full: r is (M, N); 'r' mode likewise)
        for dev in devices() {
            let a = load_a(&dev);
            let (m, n) = (a.shape()[0], a.shape()[1]);
            let f = qr(&a, QrOptions::default()).unwrap();
            assert_eq!(f.q.unwrap().shape(), &[m, m]);
            assert_eq!(f.r.shape(), &[m, n]);
            assert!(f.p.is_none());
            let f = qr(
                &a,
                QrOptions {
                    mode: QrMode::R,
                    pivoting: true,
                },
            )
            .unwrap();
            assert!(f.q.is_none());
            assert_eq!(f.r.shape(), &[m, n]);
        }
    }
}
all_types!(scipy_decomps_against_scipy, decomps);

fn pinv_rank_norm<T: Scalar>() {
    use cusci_linalg::scipy::{
        matrix_rank, norm, pinv, MatrixRankOptions, NormAxis, NormOptions, PinvOptions,
    };
    use cusci_linalg::NormOrd;
    let d = data();
    let t = dt::<T>();
    for (case, o) in [
        ("def", PinvOptions::default()),
        (
            "atol",
            PinvOptions {
                atol: Some(0.01),
                rtol: None,
            },
        ),
        (
            "rtol",
            PinvOptions {
                atol: None,
                rtol: Some(0.5),
            },
        ),
    ] {
        let (want, ws) = get(&d, &format!("pinv_{case}_{t}"));
        // the default keeps 1e-3: its inverse 1e3 magnifies f32 rounding
        let tl = if case == "def" { 1e3 } else { 10.0 } * tol::<T>();
        check(&format!("pinv {case} {t}"), &want, &ws, tl, |dev| {
            let a = input::<T>(&d, &format!("in_PA_{t}"), dev);
            let b = pinv(&a, o).unwrap();
            (vals(&b), shape_of(&b))
        });
    }
    for (case, ain, o) in [
        ("def", "PA", MatrixRankOptions::default()),
        (
            "rtol",
            "PA",
            MatrixRankOptions {
                rtol: Some(1e-2),
                ..Default::default()
            },
        ),
        (
            "tol",
            "PA",
            MatrixRankOptions {
                tol: Some(2.0),
                ..Default::default()
            },
        ),
        (
            "herm",
            "HA",
            MatrixRankOptions {
                hermitian: true,
                rtol: Some(1e-5),
                ..Default::default()
            },
        ),
    ] {
        let (want, ws) = get(&d, &format!("rank_{case}_{t}"));
        check(&format!("matrix_rank {case} {t}"), &want, &ws, 0.0, |dev| {
            let a = input::<T>(&d, &format!("in_{ain}_{t}"), dev);
            let r = matrix_rank(&a, o).unwrap();
            (vals(&r), shape_of(&r))
        });
    }
    let nt = 10.0 * tol::<T>();
    let run = |name: &str, o: NormOptions| {
        let (want, ws) = get(&d, &format!("norm_{name}_{t}"));
        check(&format!("norm {name} {t}"), &want, &ws, nt, |dev| {
            let a = input::<T>(&d, &format!("in_NA_{t}"), dev);
            let r = norm(&a, o).unwrap();
            (vals(&r), shape_of(&r))
        });
    };
    run("all", NormOptions::default());
    for (name, ord) in [
        ("none", NormOrd::Default),
        ("1", NormOrd::P(1.0)),
        ("inf", NormOrd::Inf),
        ("ninf", NormOrd::NegInf),
        ("0", NormOrd::P(0.0)),
        ("3", NormOrd::P(3.0)),
    ] {
        run(
            &format!("v1_{name}"),
            NormOptions {
                ord,
                axis: NormAxis::Vector(1),
                keepdims: true,
            },
        );
    }
    for (name, ord) in [
        ("none", NormOrd::Default),
        ("fro", NormOrd::Fro),
        ("nuc", NormOrd::Nuc),
        ("1", NormOrd::P(1.0)),
        ("m1", NormOrd::P(-1.0)),
        ("inf", NormOrd::Inf),
        ("2", NormOrd::P(2.0)),
        ("m2", NormOrd::P(-2.0)),
    ] {
        run(
            &format!("m20_{name}"),
            NormOptions {
                ord,
                axis: NormAxis::Matrix(2, 0),
                keepdims: false,
            },
        );
    }
    run(
        "m12k",
        NormOptions {
            ord: NormOrd::P(1.0),
            axis: NormAxis::Matrix(1, 2),
            keepdims: true,
        },
    );
}
all_types!(scipy_pinv_rank_norm_against_scipy, pinv_rank_norm);

#[test]
fn scipy_item3_errors() {
    use cusci_linalg::scipy::{
        cholesky, matrix_rank, norm, pinv, qr, MatrixRankOptions, NormAxis, NormOptions,
        PinvOptions, QrOptions,
    };
    use cusci_linalg::NormOrd;
    for dev in devices() {
        let a = Array::from_vec(vec![1.0f64, 2.0, 2.0, 1.0], &[2, 2], &dev).unwrap();
        assert!(matches!(
            cholesky(&a, false),
            Err(Error::NotPositiveDefinite { .. })
        ));
        let neg = PinvOptions {
            atol: Some(-1.0),
            rtol: None,
        };
        assert!(matches!(pinv(&a, neg), Err(Error::InvalidArgument { .. })));
        let both = MatrixRankOptions {
            tol: Some(1.0),
            rtol: Some(1.0),
            ..Default::default()
        };
        assert!(matches!(
            matrix_rank(&a, both),
            Err(Error::InvalidArgument { .. })
        ));
        let v = Array::from_vec(vec![0.0f64, 0.0], &[2], &dev).unwrap();
        assert_eq!(
            matrix_rank(&v, MatrixRankOptions::default())
                .unwrap()
                .item()
                .unwrap(),
            0
        );
        let x3 = Array::<f64>::ones(&[2, 2, 2], &dev).unwrap();
        let o = NormOptions {
            ord: NormOrd::P(1.0),
            ..Default::default()
        };
        assert!(matches!(norm(&x3, o), Err(Error::InvalidArgument { .. })));
        let o = NormOptions {
            axis: NormAxis::Matrix(1, 1),
            ..Default::default()
        };
        assert!(matches!(norm(&x3, o), Err(Error::InvalidArgument { .. })));
        let o = NormOptions {
            ord: NormOrd::Fro,
            axis: NormAxis::Vector(0),
            ..Default::default()
        };
        assert!(matches!(norm(&x3, o), Err(Error::InvalidArgument { .. })));
        let all = norm(
            &x3,
            NormOptions {
                keepdims: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(all.shape(), &[1, 1, 1]);
        assert!((all.to_vec().unwrap()[0] - 8f64.sqrt()).abs() < 1e-12);
        let inf = Array::from_vec(vec![f64::INFINITY, 1.0, 1.0, 1.0], &[2, 2], &dev).unwrap();
        assert!(matches!(
            qr(
                &inf,
                QrOptions {
                    pivoting: true,
                    ..Default::default()
                }
            ),
            Err(Error::InvalidArgument { .. })
        ));
        // a stack and an empty matrix through the pivoted QR
        let s = Array::from_vec(
            (0..24).map(|i| ((i * 7) % 5) as f64 - 2.0).collect(),
            &[2, 4, 3],
            &dev,
        )
        .unwrap();
        let f = qr(
            &s,
            QrOptions {
                pivoting: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(f.p.as_ref().unwrap().shape(), &[2, 3]);
        let (q, r, p) = (
            vals(&f.q.unwrap()),
            vals(&f.r),
            f.p.unwrap().to_vec().unwrap(),
        );
        let sv = vals(&s);
        for b in 0..2 {
            let qr_ = mm(&q[b * 16..b * 16 + 16], &r[b * 12..b * 12 + 12], 4, 4, 3);
            for i in 0..4 {
                for j in 0..3 {
                    let want = sv[b * 12 + i * 3 + p[b * 3 + j] as usize];
                    assert!((qr_[i * 3 + j] - want).norm() < 1e-12, "{dev}");
                }
            }
        }
        let e = Array::<f64>::zeros(&[0, 3], &dev).unwrap();
        let f = qr(
            &e,
            QrOptions {
                pivoting: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(f.r.shape(), &[0, 3]);
        assert_eq!(f.p.unwrap().to_vec().unwrap(), vec![0, 1, 2]);
    }
}

/// LAPACK's `potrf` reads only the real part of a Hermitian diagonal: so do `cholesky` (NumPy's
/// and SciPy's), `cho_factor` and the generalized `eigh`, on every device.
#[test]
fn cholesky_ignores_imaginary_diagonal() {
    use cusci_linalg::{cho_factor, cholesky};
    let clean = vec![
        c64::new(4.0, 0.0),
        c64::new(1.0, -1.0),
        c64::new(1.0, 1.0),
        c64::new(3.0, 0.0),
    ];
    let mut dirty = clean.clone();
    dirty[0].im = 5.0;
    dirty[3].im = -7.0;
    for dev in devices() {
        let a = Array::from_vec(clean.clone(), &[2, 2], &dev).unwrap();
        let x = Array::from_vec(dirty.clone(), &[2, 2], &dev).unwrap();
        let want = cholesky(&a).unwrap().to_vec().unwrap();
        assert_eq!(cholesky(&x).unwrap().to_vec().unwrap(), want, "{dev}");
        for lower in [false, true] {
            assert_eq!(
                cusci_linalg::scipy::cholesky(&x, lower)
                    .unwrap()
                    .to_vec()
                    .unwrap(),
                cusci_linalg::scipy::cholesky(&a, lower)
                    .unwrap()
                    .to_vec()
                    .unwrap(),
                "{dev}"
            );
            assert_eq!(
                cho_factor(&x, lower).unwrap().factor().to_vec().unwrap(),
                cho_factor(&a, lower).unwrap().factor().to_vec().unwrap(),
                "{dev}"
            );
        }
        let w = eigvalsh(&a, Some(&x), EighOptions::default()).unwrap();
        let w = w.to_vec().unwrap();
        assert!(w.iter().all(|v| (v - 1.0).abs() < 1e-12), "{dev}: {w:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// cossin
// ---------------------------------------------------------------------------------------------

fn cossin_case<T: Scalar>() {
    use cusci_linalg::{cossin, CossinOptions};
    let d = data();
    let t = dt::<T>();
    let m = 7;
    let tl = if single::<T>() { 1e-4 } else { 1e-10 };
    for (p, q) in [(3, 2), (5, 4), (5, 5), (2, 6), (1, 1), (4, 3)] {
        for part in ["cs", "theta"] {
            let (want, ws) = get(&d, &format!("cossin_{p}{q}_{t}_{part}"));
            check(
                &format!("cossin {p} {q} {t} {part}"),
                &want,
                &ws,
                tl,
                |dev| {
                    let x = input::<T>(&d, &format!("in_CS_{t}"), dev);
                    let r = cossin(&x, p, q, CossinOptions::default()).unwrap();
                    let a = if part == "cs" { r.cs } else { r.theta };
                    (vals(&a), shape_of(&a))
                },
            );
        }
        // x = u cs vdh, u and vdh unitary and block diagonal, on every device
        for dev in devices() {
            let x = input::<T>(&d, &format!("in_CS_{t}"), &dev);
            let r = cossin(&x, p, q, CossinOptions::default()).unwrap();
            let (u, vdh) = (vals(&r.u.unwrap()), vals(&r.vdh.unwrap()));
            let cs = vals(&r.cs);
            let rec = mm(&mm(&u, &cs, m, m, m), &vdh, m, m, m);
            let res: Vec<c64> = rec.iter().zip(vals(&x)).map(|(a, b)| a - b).collect();
            let what = format!("cossin {p} {q} {t} on {dev}");
            assert_small(&res, 1.0, 50.0 * tl, &format!("{what}: u cs vdh"));
            for (w, k) in [(&u, p), (&vdh, q)] {
                let g = mm(&adjh(w, m, m), w, m, m, m);
                let res: Vec<c64> = (0..m * m)
                    .map(|i| {
                        g[i] - if i / m == i % m {
                            c64::new(1.0, 0.0)
                        } else {
                            c64::new(0.0, 0.0)
                        }
                    })
                    .collect();
                assert_small(&res, 1.0, 50.0 * tl, &format!("{what}: unitary"));
                for i in 0..m {
                    for j in 0..m {
                        if (i < k) != (j < k) {
                            assert_eq!(w[i * m + j], c64::new(0.0, 0.0), "{what}: blocks");
                        }
                    }
                }
            }
        }
    }
    let (want, ws) = get(&d, &format!("cossin_swap_{t}_cs"));
    check(&format!("cossin swap {t}"), &want, &ws, tl, |dev| {
        let x = input::<T>(&d, &format!("in_CS_{t}"), dev);
        let o = CossinOptions {
            swap_sign: true,
            compute_u: false,
            compute_vh: false,
        };
        let r = cossin(&x, 3, 2, o).unwrap();
        assert!(r.u.is_none() && r.vdh.is_none());
        (vals(&r.cs), shape_of(&r.cs))
    });
    for dev in devices() {
        let x = input::<T>(&d, &format!("in_CS_{t}"), &dev);
        for (p, q) in [(0, 2), (7, 2), (2, 0), (2, 7)] {
            assert!(matches!(
                cossin(&x, p, q, CossinOptions::default()),
                Err(Error::InvalidArgument { .. })
            ));
        }
    }
}
all_types!(scipy_cossin_against_scipy, cossin_case);

/// Stacks through `cossin` and `scipy::lu`: each matrix as on its own, on every device.
#[test]
fn scipy_stacks_cossin_lu() {
    use cusci_linalg::scipy::{lu, LuOptions};
    use cusci_linalg::{cossin, CossinOptions};
    let d = data();
    for dev in devices() {
        let x = input::<f64>(&d, "in_CS_d", &dev);
        let one = cossin(&x, 4, 3, CossinOptions::default()).unwrap();
        let xs = x.expand_dims(0).unwrap().broadcast_to(&[3, 7, 7]).unwrap();
        let st = cossin(&xs, 4, 3, CossinOptions::default()).unwrap();
        assert_eq!(st.cs.shape(), &[3, 7, 7]);
        assert_eq!(st.theta.shape(), &[3, 3]);
        let (a, b) = (one.cs.to_vec().unwrap(), st.cs.to_vec().unwrap());
        for k in 0..3 {
            assert_eq!(&b[k * 49..(k + 1) * 49], &a[..], "{dev}");
        }
        let la = input::<f64>(&d, "in_LA_d", &dev);
        let o = LuOptions {
            p_indices: true,
            ..Default::default()
        };
        let f1 = lu(&la, o).unwrap();
        let ls = la.expand_dims(0).unwrap().broadcast_to(&[2, 5, 3]).unwrap();
        let fs = lu(&ls, o).unwrap();
        let (p1, ps) = (
            f1.perm.unwrap().to_vec().unwrap(),
            fs.perm.unwrap().to_vec().unwrap(),
        );
        assert_eq!(ps.len(), 10);
        assert_eq!(&ps[..5], &p1[..], "{dev}");
        assert_eq!(&ps[5..], &p1[..], "{dev}");
    }
}
