//! The scipy.linalg names past CuPy (svdvals, diagsvd, null_space, orth, orthogonal_procrustes,
//! subspace_angles, pinvh, polar, issymmetric, ishermitian, pascal, invpascal, invhilbert,
//! solve_toeplitz, matmul_toeplitz, solve_circulant) and cupy.linalg's cross, vecdot and
//! matrix_transpose against SciPy 1.17's results in `tests/data/scipy_linalg_extra.npz`
//! (`tests/golden/gen.py linalg_extra`), for f32, f64, c32 and c64: the CPU against SciPy, every
//! other device against the CPU, and the same typed errors on every device.
//!
//! Tolerances are relative to the largest expected magnitude: `1e-10` for f64/c64 and `2e-4` for
//! f32/c32 (the inputs are exactly representable in f32; SciPy's results are in f64), scaled by
//! the condition number where one is stored. Bases unique up to a unitary mixing are compared
//! through their projectors `Q·Qᴴ`.

use crate::common::npz::{check, cplx, dt, get, input, load, out, single, Data};
use crate::common::{adjoint, naive};
use cusci_core::npy::DynArray;
use cusci_core::testing::devices;
use cusci_core::{c64, Element};
use cusci_linalg::*;

const NPZ: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/scipy_linalg_extra.npz"
);

fn data() -> Data {
    load(NPZ)
}

fn is_complex_member(d: &Data, k: &str) -> bool {
    matches!(d.get(k), Some(DynArray::C64(_)))
}

fn c<T: Element>(v: &[T]) -> Vec<c64> {
    v.iter().map(|x| x.to_c64()).collect()
}

fn tol<T: Scalar>() -> f64 {
    if single::<T>() {
        2e-4
    } else {
        1e-10
    }
}

/// `Q·Qᴴ` of each matrix of a `(..., M, K)` stack.
fn projector(q: &[c64], shape: &[usize]) -> (Vec<c64>, Vec<usize>) {
    let nd = shape.len();
    let (m, k) = (shape[nd - 2], shape[nd - 1]);
    let count: usize = shape[..nd - 2].iter().product();
    let mut p = Vec::new();
    for b in 0..count {
        let qb = &q[b * m * k..(b + 1) * m * k];
        p.extend(naive(qb, &adjoint(qb, m, k), m, k, m));
    }
    let mut s = shape[..nd - 2].to_vec();
    s.extend([m, m]);
    (p, s)
}

fn bases_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    let cases = ["tall", "wide", "sq", "stack", "full"];
    for case in cases {
        let key = format!("in_A_{case}_{t}");
        let (w, s) = get(&d, &format!("svdvals_{case}_{t}_out"));
        check(&format!("svdvals {case} {t}"), &w, &s, tol::<T>(), |dev| {
            out(svdvals(&input::<T>(&d, &key, dev)).unwrap())
        });
        for (name, f) in [
            (
                "null_space",
                null_space::<T> as fn(&Array<T>, Option<f64>) -> Result<Array<T>>,
            ),
            ("orth", orth::<T>),
        ] {
            let cols = get(&d, &format!("{name}_{case}_{t}_cols")).0[0].re as usize;
            let (w, s) = get(&d, &format!("{name}_{case}_{t}_proj"));
            check(&format!("{name} {case} {t}"), &w, &s, tol::<T>(), |dev| {
                let q = f(&input::<T>(&d, &key, dev), None).unwrap();
                assert_eq!(
                    q.shape()[q.ndim() - 1],
                    cols,
                    "{name} {case}: columns on {dev}"
                );
                projector(&c(&q.to_vec().unwrap()), q.shape())
            });
        }
    }
    for rc in ["1e-2", "1e-6"] {
        let key = format!("in_A_rc_{t}");
        let rcond: f64 = rc.parse().unwrap();
        for (name, f) in [
            (
                "null_space",
                null_space::<T> as fn(&Array<T>, Option<f64>) -> Result<Array<T>>,
            ),
            ("orth", orth::<T>),
        ] {
            let (w, s) = get(&d, &format!("{name}_rc{rc}_{t}_proj"));
            check(
                &format!("{name} rcond {rc} {t}"),
                &w,
                &s,
                tol::<T>(),
                |dev| {
                    let q = f(&input::<T>(&d, &key, dev), Some(rcond)).unwrap();
                    projector(&c(&q.to_vec().unwrap()), q.shape())
                },
            );
        }
    }
    for dev in devices() {
        // a stack whose matrices have different ranks cannot be stacked (SciPy fails as well)
        let mut v = vec![T::zero(); 8];
        v[0] = T::one();
        v[4] = T::one();
        v[7] = T::one();
        let a = Array::from_vec(v, &[2, 2, 2], &dev).unwrap();
        assert!(matches!(
            null_space(&a, None),
            Err(Error::InvalidArgument { .. })
        ));
        let v1 = Array::<T>::zeros(&[3], &dev).unwrap();
        assert!(matches!(
            orth(&v1, None),
            Err(Error::InvalidArgument { .. })
        ));
        let mut bad = vec![T::one(); 4];
        bad[1] = T::from_c64(c64::new(f64::NAN, 0.0));
        let bad = Array::from_vec(bad, &[2, 2], &dev).unwrap();
        assert!(matches!(svdvals(&bad), Err(Error::InvalidArgument { .. })));
        // empty: the null space of a 0 x 3 matrix is all of R^3
        let e = Array::<T>::zeros(&[0, 3], &dev).unwrap();
        let q = null_space(&e, None).unwrap();
        assert_eq!(q.shape(), &[3, 3]);
    }
}
all_types!(svdvals_null_space_orth, bases_body);

fn procrustes_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    for case in ["p53", "p33", "pst"] {
        let (wr, sr) = get(&d, &format!("procrustes_{case}_{t}_r"));
        let (ws, ss) = get(&d, &format!("procrustes_{case}_{t}_scale"));
        let run = |dev: &Device| {
            orthogonal_procrustes(
                &input::<T>(&d, &format!("in_PA_{case}_{t}"), dev),
                &input::<T>(&d, &format!("in_PB_{case}_{t}"), dev),
            )
            .unwrap()
        };
        check(
            &format!("procrustes R {case} {t}"),
            &wr,
            &sr,
            tol::<T>(),
            |dev| out(run(dev).0),
        );
        check(
            &format!("procrustes scale {case} {t}"),
            &ws,
            &ss,
            tol::<T>(),
            |dev| out(run(dev).1),
        );
    }
    for dev in devices() {
        let a = Array::<T>::ones(&[3, 2], &dev).unwrap();
        let b = Array::<T>::ones(&[3, 3], &dev).unwrap();
        assert!(matches!(
            orthogonal_procrustes(&a, &b),
            Err(Error::ShapeMismatch { .. })
        ));
    }
}
all_types!(orthogonal_procrustes_golden, procrustes_body);

fn angles_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    for (case, ka, kb) in [
        ("rand", "SA", "SB"),
        ("rev", "SB", "SA"),
        ("near", "SA", "SP"),
        ("stack", "SS", "ST"),
    ] {
        let (w, s) = get(&d, &format!("subspace_angles_{case}_{t}_out"));
        check(
            &format!("subspace_angles {case} {t}"),
            &w,
            &s,
            tol::<T>(),
            |dev| {
                out(subspace_angles(
                    &input::<T>(&d, &format!("in_{ka}_{t}"), dev),
                    &input::<T>(&d, &format!("in_{kb}_{t}"), dev),
                )
                .unwrap())
            },
        );
    }
    for dev in devices() {
        let a = Array::<T>::ones(&[3, 2], &dev).unwrap();
        let b = Array::<T>::ones(&[2, 1], &dev).unwrap();
        assert!(matches!(
            subspace_angles(&a, &b),
            Err(Error::ShapeMismatch { .. })
        ));
        // a zero matrix has an empty range: no angles
        let z = Array::<T>::zeros(&[3, 2], &dev).unwrap();
        let b = Array::<T>::ones(&[3, 1], &dev).unwrap();
        assert_eq!(subspace_angles(&z, &b).unwrap().shape(), &[0]);
    }
}
all_types!(subspace_angles_golden, angles_body);

fn pinvh_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    let atol = get(&d, &format!("pinvh_atol_{t}_tol")).0[0].re;
    let mut cases = vec![
        ("full", "PF", PinvhOptions::default()),
        (
            "atol",
            "PF",
            PinvhOptions {
                atol: Some(atol),
                ..Default::default()
            },
        ),
        (
            "upper",
            "PU",
            PinvhOptions {
                lower: false,
                ..Default::default()
            },
        ),
    ];
    if !single::<T>() {
        // the singular case: its zero eigenvalues sit at ~ε·λmax, far below rtol = 1e-10 in f64
        // but not in f32
        let rtol = PinvhOptions {
            rtol: Some(1e-10),
            ..Default::default()
        };
        cases.push(("sing", "PH", rtol));
    }
    for (case, key, opts) in cases {
        let (w, s) = get(&d, &format!("pinvh_{case}_{t}_out"));
        check(
            &format!("pinvh {case} {t}"),
            &w,
            &s,
            tol::<T>() * 10.0,
            |dev| out(pinvh(&input::<T>(&d, &format!("in_{key}_{t}"), dev), opts).unwrap()),
        );
    }
    for dev in devices() {
        let a = Array::<T>::ones(&[2, 3], &dev).unwrap();
        assert!(matches!(
            pinvh(&a, PinvhOptions::default()),
            Err(Error::InvalidArgument { .. })
        ));
        let e = Array::<T>::eye(2, None, 0, &dev).unwrap();
        let neg = PinvhOptions {
            atol: Some(-1.0),
            ..Default::default()
        };
        assert!(matches!(pinvh(&e, neg), Err(Error::InvalidArgument { .. })));
    }
}
all_types!(pinvh_golden, pinvh_body);

fn polar_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    for case in ["sq", "tall", "wide", "st"] {
        for (side, sd) in [("right", PolarSide::Right), ("left", PolarSide::Left)] {
            let key = format!("in_PO_{case}_{t}");
            for (i, part) in ["u", "p"].iter().enumerate() {
                let (w, s) = get(&d, &format!("polar_{case}_{side}_{t}_{part}"));
                check(
                    &format!("polar {case} {side} {part} {t}"),
                    &w,
                    &s,
                    tol::<T>() * 10.0,
                    |dev| {
                        let (u, p) = polar(&input::<T>(&d, &key, dev), sd).unwrap();
                        out(if i == 0 { u } else { p })
                    },
                );
            }
        }
    }
}
all_types!(polar_golden, polar_body);

fn diagsvd_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    for (m, n) in [(3, 5), (6, 3), (3, 3)] {
        let (w, s) = get(&d, &format!("diagsvd_{m}x{n}_{t}_out"));
        check(&format!("diagsvd {m}x{n} {t}"), &w, &s, 0.0, |dev| {
            out(diagsvd(&input::<T>(&d, &format!("in_ds_{t}"), dev), m, n).unwrap())
        });
    }
    for dev in devices() {
        let s = input::<T>(&d, &format!("in_ds_{t}"), &dev);
        assert!(matches!(
            diagsvd(&s, 4, 5),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            diagsvd(&s, 3, 2),
            Err(Error::InvalidArgument { .. })
        ));
        // a stack of two, and NaN stays on the diagonal only
        let mut v = vec![T::one(), T::from_c64(c64::new(f64::NAN, 0.0))];
        v.extend([T::one(), T::one()]);
        let st = Array::from_vec(v, &[2, 2], &dev).unwrap();
        let m = diagsvd(&st, 2, 3).unwrap();
        assert_eq!(m.shape(), &[2, 2, 3]);
        let mv = c(&m.to_vec().unwrap());
        assert!(mv[4].re.is_nan());
        assert_eq!(mv.iter().filter(|x| x.re.is_nan()).count(), 1);
    }
}
all_types!(diagsvd_golden, diagsvd_body);

fn toeplitz_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    let tl = tol::<T>() * 10.0;
    let inp = |k: &str, dev: &Device| input::<T>(&d, &format!("in_{k}_{t}"), dev);
    let cases: Vec<(&str, &str, Option<&str>, &str)> = vec![
        ("cr1", "TC", Some("TR"), "TB1"),
        ("cr2", "TC", Some("TR"), "TB2"),
        ("c1", "TC", None, "TB1"),
        ("batch", "TCB", None, "TBB"),
    ];
    for (case, kc, kr, kb) in cases {
        let (w, s) = get(&d, &format!("solve_toeplitz_{case}_{t}_out"));
        check(&format!("solve_toeplitz {case} {t}"), &w, &s, tl, |dev| {
            let r = kr.map(|k| inp(k, dev));
            out(solve_toeplitz(&inp(kc, dev), r.as_ref(), &inp(kb, dev)).unwrap())
        });
    }
    if !single::<T>() {
        // cond(T) ≈ 5e6: the tolerance scales with it
        let cond = get(&d, &format!("solve_toeplitz_kern_{t}_cond")).0[0].re;
        let (w, s) = get(&d, &format!("solve_toeplitz_kern_{t}_out"));
        check(
            &format!("solve_toeplitz kern {t}"),
            &w,
            &s,
            1e-14 * cond,
            |dev| {
                out(solve_toeplitz(&input::<T>(&d, "in_TK", dev), None, &inp("TBK", dev)).unwrap())
            },
        );
    }
    for (case, kc, kr, kx) in [("cr", "TC", Some("MR"), "MX"), ("c", "TC", None, "MX1")] {
        let (w, s) = get(&d, &format!("matmul_toeplitz_{case}_{t}_out"));
        check(&format!("matmul_toeplitz {case} {t}"), &w, &s, tl, |dev| {
            let r = kr.map(|k| inp(k, dev));
            out(matmul_toeplitz(&inp(kc, dev), r.as_ref(), &inp(kx, dev)).unwrap())
        });
    }
    let (w, s) = get(&d, &format!("matmul_toeplitz_batch_{t}_out"));
    check(&format!("matmul_toeplitz batch {t}"), &w, &s, tl, |dev| {
        let x = inp("MXB", dev).slice_axis(0, Some(0), Some(2), 1).unwrap();
        out(matmul_toeplitz(&inp("TCB", dev), None, &x).unwrap())
    });
    for dev in devices() {
        let v = |x: &[f64]| {
            Array::from_vec(
                x.iter().map(|&a| T::from_c64(c64::new(a, 0.0))).collect(),
                &[x.len()],
                &dev,
            )
            .unwrap()
        };
        // a zero leading minor: SciPy's "Singular principal minor" (T itself is regular)
        let e = solve_toeplitz(&v(&[0.0, 1.0]), Some(&v(&[0.0, 1.0])), &v(&[1.0, 2.0]));
        assert!(matches!(e, Err(Error::Singular { index: 0, .. })), "{e:?}");
        let e = solve_toeplitz(&v(&[1.0, 1.0, 1.0]), None, &v(&[1.0, 2.0, 3.0]));
        assert!(matches!(e, Err(Error::Singular { .. })), "{e:?}");
        let e = solve_toeplitz(&v(&[1.0, 2.0, 3.0]), None, &v(&[1.0, 2.0]));
        assert!(matches!(e, Err(Error::ShapeMismatch { .. })));
        let e = solve_toeplitz(&v(&[1.0, 2.0]), Some(&v(&[1.0, 2.0, 3.0])), &v(&[1.0, 2.0]));
        assert!(matches!(e, Err(Error::ShapeMismatch { .. })));
        let e = solve_toeplitz(&v(&[1.0, f64::NAN]), None, &v(&[1.0, 2.0]));
        assert!(matches!(e, Err(Error::InvalidArgument { .. })));
        let e = matmul_toeplitz(
            &v(&[1.0, 2.0, 3.0]),
            Some(&v(&[1.0, 5.0])),
            &v(&[1.0, 1.0, 1.0]),
        );
        assert!(matches!(e, Err(Error::ShapeMismatch { .. })));
        let x = solve_toeplitz(
            &v(&[2.0, 1.0]),
            None,
            &Array::<T>::zeros(&[2, 0], &dev).unwrap(),
        )
        .unwrap();
        assert_eq!(x.shape(), &[2, 0]);
    }
}
all_types!(toeplitz_golden, toeplitz_body);

fn circulant_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    let tl = tol::<T>() * 10.0;
    let inp = |k: &str, dev: &Device| input::<T>(&d, &format!("in_{k}_{t}"), dev);
    let def = SolveCirculantOptions::default();
    let axes = SolveCirculantOptions {
        caxis: 0,
        baxis: 0,
        outaxis: -1,
        ..def
    };
    for (case, kc, kb, opts, transpose_c) in [
        ("1", "CC", "TB1", def, false),
        ("2", "CC", "TB2", def, false),
        ("batch", "CCB", "TBB", def, false),
        ("axes", "CCB", "CBX", axes, true),
    ] {
        let (w, s) = get(&d, &format!("solve_circulant_{case}_{t}_out"));
        check(&format!("solve_circulant {case} {t}"), &w, &s, tl, |dev| {
            let cc = inp(kc, dev);
            let cc = if transpose_c { cc.t() } else { cc };
            out(solve_circulant(&cc, &inp(kb, dev), opts).unwrap())
        });
    }
    if !single::<T>() {
        // singular: SciPy's default tolerance uses ε of f64, so only the double types detect it
        let lstsq = SolveCirculantOptions {
            singular: CirculantSingular::Lstsq,
            ..def
        };
        let (w, s) = get(&d, &format!("solve_circulant_lstsq_{t}_out"));
        check(&format!("solve_circulant lstsq {t}"), &w, &s, tl, |dev| {
            out(solve_circulant(&inp("CS", dev), &inp("CBS", dev), lstsq).unwrap())
        });
        for dev in devices() {
            let e = solve_circulant(&inp("CS", &dev), &inp("CBS", &dev), def);
            assert!(matches!(e, Err(Error::Singular { index: 1, .. })), "{e:?}");
        }
    }
    for dev in devices() {
        let c3 = Array::<T>::ones(&[3], &dev).unwrap();
        let b2 = Array::<T>::ones(&[2], &dev).unwrap();
        assert!(matches!(
            solve_circulant(&c3, &b2, def),
            Err(Error::ShapeMismatch { .. })
        ));
        let bad = SolveCirculantOptions { caxis: 1, ..def };
        assert!(matches!(
            solve_circulant(&c3, &c3, bad),
            Err(Error::InvalidArgument { .. })
        ));
        let e = Array::<T>::zeros(&[0], &dev).unwrap();
        assert_eq!(solve_circulant(&e, &e, def).unwrap().shape(), &[0]);
        // an explicit tol makes a regular matrix "singular"
        let big = SolveCirculantOptions {
            tol: Some(1e9),
            ..def
        };
        assert!(matches!(
            solve_circulant(&c3, &c3, big),
            Err(Error::Singular { .. })
        ));
    }
}
all_types!(solve_circulant_golden, circulant_body);

fn vec_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    let inp = |k: &str, dev: &Device| input::<T>(&d, &format!("in_{k}_{t}"), dev);
    for (case, ka, kb, axis) in [("last", "X3", "Y3", -1), ("axis0", "X0", "Y0", 0)] {
        let (w, s) = get(&d, &format!("cross_{case}_{t}_out"));
        check(&format!("cross {case} {t}"), &w, &s, tol::<T>(), |dev| {
            out(cross(&inp(ka, dev), &inp(kb, dev), axis).unwrap())
        });
        let (w, s) = get(&d, &format!("vecdot_{case}_{t}_out"));
        check(&format!("vecdot {case} {t}"), &w, &s, tol::<T>(), |dev| {
            out(vecdot(&inp(ka, dev), &inp(kb, dev), axis).unwrap())
        });
    }
    for dev in devices() {
        let a = Array::<T>::ones(&[4, 2], &dev).unwrap();
        let b = Array::<T>::ones(&[2], &dev).unwrap();
        assert!(matches!(
            cross(&a, &b, -1),
            Err(Error::InvalidArgument { .. })
        ));
        let b3 = Array::<T>::ones(&[3], &dev).unwrap();
        assert!(matches!(
            vecdot(&a, &b3, -1),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            cross(&b3, &b3, 1),
            Err(Error::InvalidArgument { .. })
        ));
        // matrix_transpose: a view of a stack, no conjugation
        let x = inp("Y0", &dev);
        let xt = matrix_transpose(&x).unwrap();
        assert_eq!(xt.shape(), &[3, 2, 4]);
        let (xv, xtv) = (c(&x.to_vec().unwrap()), c(&xt.to_vec().unwrap()));
        for i in 0..3 {
            for j in 0..4 {
                for k in 0..2 {
                    assert_eq!(xtv[i * 8 + k * 4 + j], xv[i * 8 + j * 2 + k]);
                }
            }
        }
        assert!(matches!(
            matrix_transpose(&b3),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
all_types!(cross_vecdot_matrix_transpose, vec_body);

fn sym_body<T: Scalar>() {
    let d = data();
    let names: Vec<String> = d
        .keys()
        .filter(|k| k.starts_with("sym_") && k.ends_with("_in") && *k != "sym_stack_in")
        .map(|k| k[4..k.len() - 3].to_string())
        .collect();
    assert!(names.len() >= 15);
    for name in names {
        let key = format!("sym_{name}_in");
        if is_complex_member(&d, &key) != cplx::<T>() {
            continue;
        }
        let tl = get(&d, &format!("sym_{name}_tol")).0;
        let opt = |v: f64| if v.is_nan() { None } else { Some(v) };
        let (atol, rtol) = (opt(tl[0].re), opt(tl[1].re));
        let want = get(&d, &format!("sym_{name}_out")).0;
        for dev in devices() {
            let a = input::<T>(&d, &key, &dev);
            let s = issymmetric(&a, atol, rtol).unwrap();
            let h = ishermitian(&a, atol, rtol).unwrap();
            assert_eq!(s.shape(), &[] as &[usize]);
            assert_eq!(
                s.item().unwrap(),
                want[0].re == 1.0,
                "issymmetric {name} on {dev}"
            );
            assert_eq!(
                h.item().unwrap(),
                want[1].re == 1.0,
                "ishermitian {name} on {dev}"
            );
        }
    }
    let want = get(&d, "sym_stack_out").0;
    for dev in devices() {
        if cplx::<T>() {
            break;
        }
        let a = input::<T>(&d, "sym_stack_in", &dev);
        let got = issymmetric(&a, None, None).unwrap().to_vec().unwrap();
        let want: Vec<bool> = want.iter().map(|v| v.re == 1.0).collect();
        assert_eq!(got, want, "issymmetric stack on {dev}");
        // a transposed view (non-contiguous input)
        let got = issymmetric(&a.swapaxes(-1, -2).unwrap(), None, None)
            .unwrap()
            .to_vec()
            .unwrap();
        assert_eq!(got, want, "issymmetric of a transposed view on {dev}");
        let ns = Array::<T>::ones(&[2, 3], &dev).unwrap();
        assert!(matches!(
            issymmetric(&ns, None, None),
            Err(Error::InvalidArgument { .. })
        ));
        let v = Array::<T>::ones(&[3], &dev).unwrap();
        assert!(matches!(
            ishermitian(&v, None, None),
            Err(Error::InvalidArgument { .. })
        ));
        let zb = Array::<T>::ones(&[0, 2, 2], &dev).unwrap();
        assert!(matches!(
            issymmetric(&zb, None, None),
            Err(Error::InvalidArgument { .. })
        ));
        let e = Array::<T>::zeros(&[0, 0], &dev).unwrap();
        assert!(issymmetric(&e, None, None).unwrap().item().unwrap());
    }
}

#[test]
fn issymmetric_ishermitian_golden() {
    sym_body::<f64>();
    sym_body::<c64>();
}

/// Entry-wise relative comparison (these matrices span many orders of magnitude).
fn close_rel(got: &[c64], want: &[c64], rtol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).norm() <= rtol * w.norm(),
            "{what}: index {i}: got {g}, want {w}"
        );
    }
}

fn pascal_body<T: Scalar>() {
    let d = data();
    // f64: exact integers rounded once, as NumPy rounds SciPy's Python integers
    let rtol = if single::<T>() { 1.2e-7 } else { 0.0 };
    for n in [1usize, 4, 9, 20, 35] {
        for (kname, kind) in [
            ("symmetric", PascalKind::Symmetric),
            ("lower", PascalKind::Lower),
            ("upper", PascalKind::Upper),
        ] {
            for (fname, f) in [
                (
                    "pascal",
                    pascal::<T> as fn(usize, PascalKind, &Device) -> Result<Array<T>>,
                ),
                ("invpascal", invpascal::<T>),
            ] {
                let (w, s) = get(&d, &format!("{fname}_{n}_{kname}"));
                let mut cpu = None;
                for dev in devices() {
                    let a = f(n, kind, &dev).unwrap();
                    assert_eq!(a.shape(), &s[..]);
                    let got = c(&a.to_vec().unwrap());
                    let what = format!("{fname}({n}, {kname}) on {dev}");
                    match &cpu {
                        None => {
                            close_rel(&got, &w, rtol, &what);
                            cpu = Some(got);
                        }
                        Some(cv) => assert_eq!(&got, cv, "{what} vs cpu"),
                    }
                }
            }
        }
    }
    for dev in devices() {
        assert_eq!(
            pascal::<T>(0, PascalKind::Symmetric, &dev).unwrap().shape(),
            &[0, 0]
        );
        let big = if single::<T>() { 100 } else { 600 };
        let e = pascal::<T>(big, PascalKind::Symmetric, &dev);
        assert!(
            matches!(e, Err(Error::InvalidArgument { .. })),
            "pascal({big})"
        );
    }
}
all_types!(pascal_invpascal_golden, pascal_body);

#[test]
fn invhilbert_golden() {
    let d = data();
    for n in [1usize, 2, 5, 9, 14, 16] {
        let (exact, s) = get(&d, &format!("invhilbert_{n}_exact"));
        let (float, _) = get(&d, &format!("invhilbert_{n}_float"));
        let mut cpu = None;
        for dev in devices() {
            let a = invhilbert(n, &dev).unwrap();
            assert_eq!(a.shape(), &s[..]);
            let got = c(&a.to_vec().unwrap());
            match &cpu {
                None => {
                    // the exact integers, rounded once; SciPy's float mode to a few ulps
                    close_rel(&got, &exact, 0.0, &format!("invhilbert({n}) vs exact"));
                    close_rel(&got, &float, 1e-13, &format!("invhilbert({n}) vs float"));
                    cpu = Some(got);
                }
                Some(cv) => assert_eq!(&got, cv, "invhilbert({n}) on {dev} vs cpu"),
            }
        }
    }
    // invhilbert(n) · hilbert(n) = I is far off for n = 16 (cond ≈ 1e22); n = 5 is fine
    let h = hilbert::<f64>(5, &Device::Cpu).unwrap();
    let p = matmul(&invhilbert(5, &Device::Cpu).unwrap(), &h)
        .unwrap()
        .to_vec()
        .unwrap();
    for (i, v) in p.iter().enumerate() {
        let want = if i / 5 == i % 5 { 1.0 } else { 0.0 };
        assert!((v - want).abs() < 1e-9, "invhilbert·hilbert at {i}: {v}");
    }
    assert!(matches!(
        invhilbert(400, &Device::Cpu),
        Err(Error::InvalidArgument { .. })
    ));
}
