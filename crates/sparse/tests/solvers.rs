//! bicgstab, cgs and gmres: against a dense solve on non-symmetric systems, SciPy's iteration rules
//! (exactly `maxiter` iterations with zero tolerances, the breakdown codes), preconditioning and
//! x0, every device against the CPU, bad input.

use cusci_core::testing::{assert_allclose, devices, randn_vec};
use cusci_core::{c64, Array, Device, Error, Float};
use cusci_sparse::linalg::{bicgstab, cgs, gmres, FnOperator, LinearOperator, SolverOptions};
use cusci_sparse::{diags, random, CsrMatrix};

use crate::common::{convdiff, dense_solve, runs_maxiter, Solver};

fn solvers<T: Float>() -> [(&'static str, Solver<T>); 3] {
    [
        ("bicgstab", bicgstab::<T>),
        ("cgs", cgs::<T>),
        ("gmres", gmres::<T>),
    ]
}

#[test]
fn nonsymmetric_systems_like_a_dense_solve() {
    let g = 10;
    let n = g * g;
    let a_cpu = convdiff::<f64>(g, 1.5, &Device::Cpu);
    let b = randn_vec::<f64>(n, 21);
    let want = dense_solve(&a_cpu.toarray().unwrap().to_vec().unwrap(), &b);
    for (name, solve) in solvers::<f64>() {
        let mut cpu_iters = 0;
        for dev in devices() {
            let a = a_cpu.to_device(&dev).unwrap();
            let s = solve(
                &a,
                &Array::from_vec(b.clone(), &[n], &dev).unwrap(),
                &SolverOptions {
                    rtol: 1e-11,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(s.info, 0, "{name} on {dev}");
            // gmres counts restart cycles (of 20 inner steps)
            let least = if name == "gmres" { 1 } else { 4 };
            assert!(
                s.iterations >= least && s.iterations < n,
                "{name}: {}",
                s.iterations
            );
            if dev == Device::Cpu {
                cpu_iters = s.iterations;
            } else {
                // cgs is erratic: other rounding in the dot products moves its count a little
                let margin = if name == "cgs" { 1 + cpu_iters / 6 } else { 1 };
                assert!(
                    s.iterations.abs_diff(cpu_iters) <= margin,
                    "{name}: {} vs {cpu_iters}",
                    s.iterations
                );
            }
            assert_allclose(
                &s.x.to_device(&Device::Cpu).unwrap(),
                &Array::from_vec(want.clone(), &[n], &Device::Cpu).unwrap(),
                1e-8,
                1e-10,
                &format!("{name} on {dev}"),
            );
        }
    }
}

#[test]
fn zero_tolerance_runs_maxiter_iterations_on_every_device() {
    let a = convdiff::<f64>(8, 0.5, &Device::Cpu);
    let b = randn_vec::<f64>(64, 22);
    let opts = SolverOptions {
        rtol: 0.0,
        atol: 0.0,
        maxiter: Some(5),
        restart: Some(3),
        ..Default::default()
    };
    for (name, solve) in solvers::<f64>() {
        runs_maxiter(name, solve, &a, &b, &opts);
    }
}

#[test]
fn complex_with_x0_and_preconditioner() {
    let g = 6;
    let n = g * g;
    for (name, solve) in solvers::<c64>() {
        for dev in devices() {
            let l = convdiff::<c64>(g, 0.7, &dev);
            let skew = diags::<c64>(
                &[
                    &vec![c64::new(0.2, 0.5); n - 1],
                    &vec![c64::new(0.0, -0.4); n - 1],
                ],
                &[1, -1],
                None,
                &dev,
            )
            .unwrap();
            let a = l.add(&skew).unwrap();
            let b = Array::from_vec(randn_vec::<c64>(n, 23), &[n], &dev).unwrap();
            let x0 = Array::from_vec(randn_vec::<c64>(n, 24), &[n], &dev).unwrap();
            let d = a.diagonal(0).unwrap().to_vec().unwrap()[0];
            let jacobi = FnOperator::new((n, n), move |x: &Array<c64>| {
                x.mul_scalar(c64::new(1.0, 0.0) / d)
            });
            let s = solve(
                &a,
                &b,
                &SolverOptions {
                    x0: Some(&x0),
                    rtol: 1e-10,
                    m: Some(&jacobi),
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(s.info, 0, "{name} on {dev}");
            let r = a.matvec(&s.x).unwrap().sub(&b).unwrap().norm().unwrap();
            let bn = b.norm().unwrap();
            assert!(r <= 1e-10 * bn * 1.01, "{name} on {dev}: residual {r}");
        }
    }
}

#[test]
fn f32_converges() {
    let a_cpu = convdiff::<f32>(7, 1.0, &Device::Cpu);
    let b = randn_vec::<f32>(49, 25);
    for (name, solve) in solvers::<f32>() {
        for dev in devices() {
            let a = a_cpu.to_device(&dev).unwrap();
            let bd = Array::from_vec(b.clone(), &[49], &dev).unwrap();
            let s = solve(
                &a,
                &bd,
                &SolverOptions {
                    rtol: 1e-4,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(s.info, 0, "{name} on {dev}");
            let r = a.dot(&s.x).unwrap().sub(&bd).unwrap().norm().unwrap();
            assert!(r <= 1e-4 * bd.norm().unwrap() * 1.01, "{name}: {r}");
        }
    }
}

#[test]
fn breakdown_codes_as_scipy() {
    // a skew-symmetric A gives bᵀ A b = 0: SciPy returns info = −11 from both solvers
    for (name, solve) in solvers::<f64>().into_iter().take(2) {
        for dev in devices() {
            let a = CsrMatrix::from_dense(
                &Array::from_vec(
                    vec![
                        0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0,
                        -2.0, 0.0,
                    ],
                    &[4, 4],
                    &dev,
                )
                .unwrap(),
            )
            .unwrap();
            let s = solve(
                &a,
                &Array::ones(&[4], &dev).unwrap(),
                &SolverOptions::default(),
            )
            .unwrap();
            assert_eq!((s.info, s.iterations), (-11, 0), "{name} on {dev}");
            assert_eq!(s.x.to_vec().unwrap(), vec![0.0; 4], "{name} on {dev}");
        }
    }
}

#[test]
fn edge_cases_and_errors() {
    for (name, solve) in solvers::<f64>() {
        for dev in devices() {
            let a = convdiff::<f64>(3, 1.0, &dev);
            let s = solve(
                &a,
                &Array::zeros(&[9], &dev).unwrap(),
                &SolverOptions::default(),
            )
            .unwrap();
            assert_eq!((s.info, s.iterations), (0, 0), "{name}");
            assert_eq!(s.x.to_vec().unwrap(), vec![0.0; 9]);
            let one = diags::<f64>(&[&[2.0]], &[0], None, &dev).unwrap();
            let s = solve(
                &one,
                &Array::from_vec(vec![3.0], &[1], &dev).unwrap(),
                &SolverOptions::default(),
            )
            .unwrap();
            assert_eq!(s.info, 0, "{name}");
            assert!((s.x.to_vec().unwrap()[0] - 1.5).abs() < 1e-12, "{name}");
            let rect = random::<f64>(3, 4, 0.5, 1, &dev).unwrap();
            let e = solve(
                &rect,
                &Array::zeros(&[3], &dev).unwrap(),
                &SolverOptions::default(),
            )
            .unwrap_err();
            assert!(matches!(e, Error::ShapeMismatch { .. }), "{name}: {e}");
            let e = solve(
                &a,
                &Array::ones(&[9], &dev).unwrap(),
                &SolverOptions {
                    atol: f64::NAN,
                    ..Default::default()
                },
            )
            .unwrap_err();
            assert!(matches!(e, Error::InvalidArgument { .. }), "{name}: {e}");
        }
    }
}

#[test]
fn gmres_restart_and_bad_restart() {
    let g = 8;
    let n = g * g;
    let a_cpu = convdiff::<f64>(g, 2.0, &Device::Cpu);
    let b = randn_vec::<f64>(n, 26);
    let want = dense_solve(&a_cpu.toarray().unwrap().to_vec().unwrap(), &b);
    for dev in devices() {
        let a = a_cpu.to_device(&dev).unwrap();
        let bd = Array::from_vec(b.clone(), &[n], &dev).unwrap();
        // a short restart needs several cycles; the solution is the same
        let s = gmres(
            &a,
            &bd,
            &SolverOptions {
                rtol: 1e-11,
                restart: Some(4),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(s.info, 0, "{dev}");
        assert!(s.iterations > 2, "{dev}: {} cycles", s.iterations);
        assert_allclose(
            &s.x.to_device(&Device::Cpu).unwrap(),
            &Array::from_vec(want.clone(), &[n], &Device::Cpu).unwrap(),
            1e-8,
            1e-10,
            &format!("gmres(4) on {dev}"),
        );
        // a Krylov space that holds the solution: SciPy's breakdown = exact solution path
        let s = gmres(
            &a,
            &bd,
            &SolverOptions {
                rtol: 1e-12,
                restart: Some(n),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!((s.info, s.iterations), (0, 1), "{dev}");
        let e = gmres(
            &a,
            &bd,
            &SolverOptions {
                restart: Some(0),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    }
}
