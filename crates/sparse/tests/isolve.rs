//! bicg, qmr, tfqmr, lgmres and gcrotmk against SciPy (`tests/data/scipy_sparse_isolve.npz`, from
//! `tests/golden/gen.py sparse_isolve`): converged solutions, info and callback counts, three
//! iterations with zero tolerances (the recurrence itself), Jacobi preconditioning, complex
//! systems; the residual identity; every device against SciPy and the CPU; `callback` on the
//! older solvers; `FnOperator::with_rmatvec` in lsqr; bad input.

use cusci_core::testing::{assert_allclose, devices, randn_vec};
use cusci_core::{c64, Array, Device, Error};
use cusci_sparse::linalg::{
    bicg, bicgstab, cg, cgs, gcrotmk, gmres, lgmres, lsmr, lsqr, minres, qmr, svds, tfqmr,
    FnOperator, LinearOperator, LsqOptions, SolverOptions, SvdsOptions, Truncate,
};
use cusci_sparse::{diags, CsrMatrix};
use std::cell::{Cell, RefCell};

use crate::common::{convdiff, laplacian, load_csr, load_npz, Solver};

const FILE: &str = "scipy_sparse_isolve";
const N: usize = 36;

fn solvers() -> [(&'static str, Solver<f64>); 5] {
    [
        ("bicg", bicg::<f64>),
        ("qmr", qmr::<f64>),
        ("tfqmr", tfqmr::<f64>),
        ("lgmres", lgmres::<f64>),
        ("gcrotmk", gcrotmk::<f64>),
    ]
}

fn info(name: &str) -> Vec<i64> {
    load_npz::<i64>(FILE, name, &Device::Cpu).to_vec().unwrap()
}

fn cpu(x: &Array<f64>) -> Array<f64> {
    x.to_device(&Device::Cpu).unwrap()
}

#[test]
fn converged_like_scipy_with_callback_counts() {
    for (name, solve) in solvers() {
        let want = info(&format!("{name}_info"));
        let mut cpu_x = None;
        for dev in devices() {
            let a = load_csr(FILE, "a", (N, N), &dev);
            let b = load_npz::<f64>(FILE, "b", &dev);
            let count = Cell::new(0i64);
            let cb = |x: &Array<f64>| {
                assert_eq!(x.shape(), [N]);
                count.set(count.get() + 1);
            };
            let s = solve(
                &a,
                &b,
                &SolverOptions {
                    rtol: 1e-10,
                    callback: Some(&cb),
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(s.info, want[0], "{name} on {dev}");
            if dev == Device::Cpu {
                assert_eq!(count.get(), want[1], "{name}: callbacks");
            } else {
                assert!((count.get() - want[1]).abs() <= 1, "{name} on {dev}");
            }
            // the residual identity
            let r = a.dot(&s.x).unwrap().sub(&b).unwrap().norm().unwrap();
            assert!(
                r <= 1e-10 * b.norm().unwrap() * 1.01,
                "{name} on {dev}: {r}"
            );
            assert_allclose(
                &cpu(&s.x),
                &load_npz::<f64>(FILE, &format!("{name}_x"), &Device::Cpu),
                1e-8,
                1e-10,
                &format!("{name} on {dev}"),
            );
            match &cpu_x {
                None => cpu_x = Some(cpu(&s.x)),
                Some(c) => assert_allclose(&cpu(&s.x), c, 1e-8, 1e-10, name),
            }
        }
    }
}

#[test]
fn three_iterations_follow_scipys_recurrence() {
    for (name, solve) in solvers() {
        for dev in devices() {
            let a = load_csr(FILE, "a", (N, N), &dev);
            let b = load_npz::<f64>(FILE, "b", &dev);
            let s = solve(
                &a,
                &b,
                &SolverOptions {
                    rtol: 0.0,
                    atol: 0.0,
                    maxiter: Some(3),
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(s.info, info(&format!("{name}_info3"))[0], "{name} on {dev}");
            assert_allclose(
                &cpu(&s.x),
                &load_npz::<f64>(FILE, &format!("{name}_x3"), &Device::Cpu),
                1e-9,
                1e-11,
                &format!("{name} x3 on {dev}"),
            );
        }
    }
}

#[test]
fn jacobi_preconditioned_like_scipy() {
    for (name, solve) in solvers() {
        for dev in devices() {
            let a = load_csr(FILE, "a", (N, N), &dev);
            let b = load_npz::<f64>(FILE, "b", &dev);
            let d: Vec<f64> = a
                .diagonal(0)
                .unwrap()
                .to_vec()
                .unwrap()
                .iter()
                .map(|v| 1.0 / v)
                .collect();
            let mj = diags::<f64>(&[&d], &[0], None, &dev).unwrap();
            let s = solve(
                &a,
                &b,
                &SolverOptions {
                    rtol: 1e-10,
                    maxiter: Some(3),
                    m: Some(&mj),
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(s.info, info(&format!("{name}_infom"))[0], "{name} on {dev}");
            assert_allclose(
                &cpu(&s.x),
                &load_npz::<f64>(FILE, &format!("{name}_xm"), &Device::Cpu),
                1e-8,
                1e-10,
                &format!("{name} M on {dev}"),
            );
        }
    }
}

#[test]
fn complex_bicg_and_qmr_like_scipy() {
    let cs: [(&str, Solver<c64>); 2] = [("bicg", bicg::<c64>), ("qmr", qmr::<c64>)];
    for (name, solve) in cs {
        for dev in devices() {
            let a = CsrMatrix::<c64>::new(
                load_npz(FILE, "ac_data", &dev),
                load_npz(FILE, "ac_indices", &dev),
                load_npz(FILE, "ac_indptr", &dev),
                (N, N),
            )
            .unwrap();
            let b = load_npz::<c64>(FILE, "bc", &dev);
            let s = solve(
                &a,
                &b,
                &SolverOptions {
                    rtol: 1e-10,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(s.info, info(&format!("{name}_infoc"))[0]);
            assert_allclose(
                &s.x.to_device(&Device::Cpu).unwrap(),
                &load_npz::<c64>(FILE, &format!("{name}_xc"), &Device::Cpu),
                1e-8,
                1e-10,
                &format!("{name} complex on {dev}"),
            );
            let s = solve(
                &a,
                &b,
                &SolverOptions {
                    rtol: 0.0,
                    atol: 0.0,
                    maxiter: Some(3),
                    ..Default::default()
                },
            )
            .unwrap();
            assert_allclose(
                &s.x.to_device(&Device::Cpu).unwrap(),
                &load_npz::<c64>(FILE, &format!("{name}_xc3"), &Device::Cpu),
                1e-9,
                1e-11,
                &format!("{name} complex x3 on {dev}"),
            );
        }
    }
}

#[test]
fn x0_f32_and_options() {
    let g = 7;
    let n = g * g;
    for (name, _) in solvers() {
        for dev in devices() {
            // f32, with x0
            let a = convdiff::<f32>(g, 1.0, &dev);
            let b = Array::from_vec(randn_vec::<f32>(n, 41), &[n], &dev).unwrap();
            let x0 = Array::from_vec(randn_vec::<f32>(n, 42), &[n], &dev).unwrap();
            let opts = SolverOptions {
                x0: Some(&x0),
                rtol: 1e-4,
                ..Default::default()
            };
            let s = match name {
                "bicg" => bicg(&a, &b, &opts),
                "qmr" => qmr(&a, &b, &opts),
                "tfqmr" => tfqmr(&a, &b, &opts),
                "lgmres" => lgmres(&a, &b, &opts),
                _ => gcrotmk(&a, &b, &opts),
            }
            .unwrap();
            assert_eq!(s.info, 0, "{name} f32 on {dev}");
            let r = a.dot(&s.x).unwrap().sub(&b).unwrap().norm().unwrap();
            // tfqmr's tolerance is relative to the initial residual
            let r0 = a.dot(&x0).unwrap().sub(&b).unwrap().norm().unwrap();
            let scale = if name == "tfqmr" {
                r0
            } else {
                b.norm().unwrap()
            };
            assert!(r <= 2e-4 * scale, "{name} f32 on {dev}: {r}");
        }
    }
    // lgmres and gcrotmk options: small inner spaces, no stored A v, prepended outer vectors
    let a = convdiff::<f64>(g, 1.0, &Device::Cpu);
    let b = Array::from_vec(randn_vec::<f64>(n, 43), &[n], &Device::Cpu).unwrap();
    for (inner, outer, store, prepend) in [
        (5, 2, false, false),
        (4, 3, true, true),
        (3, 0, true, false),
    ] {
        let opts = SolverOptions {
            rtol: 1e-9,
            inner_m: Some(inner),
            outer_k: Some(outer),
            store_outer_av: store,
            prepend_outer_v: prepend,
            ..Default::default()
        };
        for solve in [lgmres::<f64> as Solver<f64>, gcrotmk::<f64>] {
            let s = solve(&a, &b, &opts).unwrap();
            assert_eq!(s.info, 0);
            let r = a.dot(&s.x).unwrap().sub(&b).unwrap().norm().unwrap();
            assert!(r <= 1e-9 * b.norm().unwrap() * 1.01);
        }
    }
}

#[test]
fn zero_rhs_and_exact_x0() {
    for (name, solve) in solvers() {
        let a = laplacian::<f64>(4, &Device::Cpu);
        let z = Array::<f64>::zeros(&[16], &Device::Cpu).unwrap();
        let s = solve(&a, &z, &SolverOptions::default()).unwrap();
        assert_eq!(
            (s.info, s.x.to_vec().unwrap()),
            (0, vec![0.0; 16]),
            "{name}"
        );
        // x0 already the solution
        let x = Array::from_vec(randn_vec::<f64>(16, 44), &[16], &Device::Cpu).unwrap();
        let b = a.dot(&x).unwrap();
        let s = solve(
            &a,
            &b,
            &SolverOptions {
                x0: Some(&x),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(s.info, 0, "{name}");
        assert_allclose(&s.x, &x, 1e-12, 1e-12, name);
    }
}

#[test]
fn callback_on_every_older_solver() {
    let older: [(&str, Solver<f64>); 5] = [
        ("cg", cg::<f64>),
        ("bicgstab", bicgstab::<f64>),
        ("cgs", cgs::<f64>),
        ("gmres", gmres::<f64>),
        ("minres", minres::<f64>),
    ];
    for (name, solve) in older {
        for dev in devices() {
            let a = laplacian::<f64>(6, &dev);
            let b = Array::from_vec(randn_vec::<f64>(36, 45), &[36], &dev).unwrap();
            let seen = RefCell::new(Vec::new());
            let cb = |x: &Array<f64>| seen.borrow_mut().push(x.to_vec().unwrap());
            let s = solve(
                &a,
                &b,
                &SolverOptions {
                    rtol: 1e-10,
                    restart: Some(5),
                    callback: Some(&cb),
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(s.info, 0, "{name} on {dev}");
            let seen = seen.into_inner();
            assert!(!seen.is_empty(), "{name} on {dev}");
            assert!(
                seen.len() <= s.iterations + 1 && seen.len() + 1 >= s.iterations,
                "{name} on {dev}: {} callbacks, {} iterations",
                seen.len(),
                s.iterations
            );
            // the last callback saw the returned solution (cg, gmres and minres call back
            // after the final update; bicgstab and cgs may stop inside the last iteration)
            if matches!(name, "cg" | "gmres" | "minres") {
                let last = seen.last().unwrap();
                let x = s.x.to_vec().unwrap();
                assert!(
                    last.iter().zip(&x).all(|(p, q)| p == q),
                    "{name} on {dev}: last callback"
                );
            }
        }
    }
}

#[test]
fn fn_operator_with_rmatvec_in_lsqr_and_bicg() {
    for dev in devices() {
        let a = convdiff::<f64>(5, 0.8, &dev);
        let b = Array::from_vec(randn_vec::<f64>(25, 46), &[25], &dev).unwrap();
        let op = FnOperator::with_rmatvec(
            (25, 25),
            |x: &Array<f64>| a.matvec(x),
            |y: &Array<f64>| a.rmatvec(y),
        );
        let lo = LsqOptions {
            atol: 1e-12,
            btol: 1e-12,
            ..Default::default()
        };
        let want = lsqr(&a, &b, &lo).unwrap();
        let got = lsqr(&op, &b, &lo).unwrap();
        assert_eq!((got.istop, got.itn), (want.istop, want.itn), "on {dev}");
        assert_allclose(&cpu(&got.x), &cpu(&want.x), 1e-12, 1e-14, "lsqr fn");
        let opts = SolverOptions {
            rtol: 1e-10,
            ..Default::default()
        };
        let want = lsmr(&a, &b, &lo).unwrap();
        let got = lsmr(&op, &b, &lo).unwrap();
        assert_eq!(
            (got.istop, got.itn),
            (want.istop, want.itn),
            "lsmr on {dev}"
        );
        assert_allclose(&cpu(&got.x), &cpu(&want.x), 1e-12, 1e-14, "lsmr fn");
        // svds of a rectangular function operator (rmatvec needed)
        let r = crate::common::randn_csr::<f64>(9, 6, 0.5, 47, &dev);
        let rop = FnOperator::with_rmatvec(
            (9, 6),
            |x: &Array<f64>| r.matvec(x),
            |y: &Array<f64>| r.rmatvec(y),
        )
        .on(&dev);
        let so = SvdsOptions::default();
        let (ws, gs) = (svds(&r, 2, &so).unwrap().s, svds(&rop, 2, &so).unwrap().s);
        assert!(
            ws.iter()
                .zip(&gs)
                .all(|(p, q)| (p - q).abs() < 1e-10 * p.abs()),
            "svds fn"
        );
        let s = bicg(&op, &b, &opts).unwrap();
        assert_eq!(s.info, 0);
        assert_allclose(
            &cpu(&s.x),
            &cpu(&bicg(&a, &b, &opts).unwrap().x),
            1e-12,
            1e-14,
            "bicg fn",
        );
    }
}

#[test]
fn bad_input_is_a_typed_error() {
    let a = laplacian::<f64>(3, &Device::Cpu);
    let b = Array::from_vec(vec![1.0; 9], &[9], &Device::Cpu).unwrap();
    let short = Array::from_vec(vec![1.0; 8], &[8], &Device::Cpu).unwrap();
    let rect = CsrMatrix::<f64>::from_dense(
        &Array::from_vec(vec![1.0; 12], &[3, 4], &Device::Cpu).unwrap(),
    )
    .unwrap();
    let b3 = Array::from_vec(vec![1.0; 3], &[3], &Device::Cpu).unwrap();
    let no_r = FnOperator::new((9, 9), |x: &Array<f64>| a.matvec(x));
    let m_bad = laplacian::<f64>(2, &Device::Cpu);
    for (name, solve) in solvers() {
        let d = SolverOptions::default();
        assert!(
            matches!(solve(&rect, &b3, &d), Err(Error::ShapeMismatch { .. })),
            "{name}"
        );
        assert!(
            matches!(solve(&a, &short, &d), Err(Error::ShapeMismatch { .. })),
            "{name}"
        );
        let o = SolverOptions {
            x0: Some(&short),
            ..Default::default()
        };
        assert!(
            matches!(solve(&a, &b, &o), Err(Error::ShapeMismatch { .. })),
            "{name}"
        );
        let o = SolverOptions {
            rtol: -1.0,
            ..Default::default()
        };
        assert!(
            matches!(solve(&a, &b, &o), Err(Error::InvalidArgument { .. })),
            "{name}"
        );
        let o = SolverOptions {
            m: Some(&m_bad),
            ..Default::default()
        };
        assert!(
            matches!(solve(&a, &b, &o), Err(Error::ShapeMismatch { .. })),
            "{name}"
        );
    }
    // the transpose product is needed
    for solve in [bicg::<f64> as Solver<f64>, qmr::<f64>] {
        assert!(matches!(
            solve(&no_r, &b, &SolverOptions::default()),
            Err(Error::NotImplemented { .. })
        ));
    }
    // but not by the others
    for solve in [tfqmr::<f64> as Solver<f64>, lgmres::<f64>, gcrotmk::<f64>] {
        assert_eq!(solve(&no_r, &b, &SolverOptions::default()).unwrap().info, 0);
    }
    let o = SolverOptions {
        m2: Some(&m_bad),
        ..Default::default()
    };
    assert!(matches!(qmr(&a, &b, &o), Err(Error::ShapeMismatch { .. })));
    let nan = Array::from_vec(vec![f64::NAN; 9], &[9], &Device::Cpu).unwrap();
    for solve in [lgmres::<f64> as Solver<f64>, gcrotmk::<f64>] {
        assert!(matches!(
            solve(&a, &nan, &SolverOptions::default()),
            Err(Error::InvalidArgument { .. })
        ));
        let o = SolverOptions {
            inner_m: Some(0),
            ..Default::default()
        };
        assert!(matches!(
            solve(&a, &b, &o),
            Err(Error::InvalidArgument { .. })
        ));
    }
    let o = SolverOptions {
        truncate: Truncate::Smallest,
        ..Default::default()
    };
    assert!(matches!(
        gcrotmk(&a, &b, &o),
        Err(Error::NotImplemented { .. })
    ));
    // a preconditioner returning zeros (SciPy's RuntimeError)
    let zero = FnOperator::new((9, 9), |x: &Array<f64>| x.mul_scalar(0.0));
    let o = SolverOptions {
        m: Some(&zero),
        ..Default::default()
    };
    assert!(matches!(
        lgmres(&a, &b, &o),
        Err(Error::InvalidArgument { .. })
    ));
}
