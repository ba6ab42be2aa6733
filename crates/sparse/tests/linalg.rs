//! The conjugate gradient: against a dense solve, SciPy's iteration rule (exactly `maxiter`
//! iterations with zero tolerances), preconditioning, every device against the CPU, bad input.

use cusci_core::testing::{assert_allclose, devices, gpu, randn_vec};
use cusci_core::{c64, Array, Device, Error};
use cusci_sparse::linalg::{cg, FnOperator, LinearOperator, SolverOptions};
use cusci_sparse::{diags, random, CsrMatrix};

use crate::common::{dense_solve, laplacian, runs_maxiter};

#[test]
fn cg_solves_poisson_like_a_dense_solve() {
    let g = 12;
    let n = g * g;
    let a_cpu = laplacian::<f64>(g, &Device::Cpu);
    let b = randn_vec::<f64>(n, 5);
    let want = dense_solve(&a_cpu.toarray().unwrap().to_vec().unwrap(), &b);
    let mut cpu_iters = 0;
    for dev in devices() {
        let a = a_cpu.to_device(&dev).unwrap();
        let s = cg(
            &a,
            &Array::from_vec(b.clone(), &[n], &dev).unwrap(),
            &SolverOptions {
                rtol: 1e-12,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(s.info, 0, "{dev}");
        assert!(s.iterations > 10 && s.iterations < n, "{}", s.iterations);
        if dev == Device::Cpu {
            cpu_iters = s.iterations;
        } else {
            // the same iteration: the same count within a small margin
            assert!(
                s.iterations.abs_diff(cpu_iters) <= 1,
                "{} vs {cpu_iters}",
                s.iterations
            );
        }
        assert_allclose(
            &s.x.to_device(&Device::Cpu).unwrap(),
            &Array::from_vec(want.clone(), &[n], &Device::Cpu).unwrap(),
            1e-9,
            1e-11,
            &format!("cg on {dev}"),
        );
    }
}

#[test]
fn cg_zero_tolerance_runs_maxiter_iterations() {
    let a = laplacian::<f64>(10, &Device::Cpu);
    let b = randn_vec::<f64>(100, 9);
    let opts = SolverOptions {
        rtol: 0.0,
        atol: 0.0,
        maxiter: Some(37),
        ..Default::default()
    };
    runs_maxiter("cg", cg, &a, &b, &opts);
}

#[test]
fn cg_with_x0_preconditioner_and_complex() {
    for dev in devices() {
        // Hermitian positive definite complex matrix: L + i(E − Eᵀ)·0.3 with E the upper band
        let g = 6;
        let n = g * g;
        let l = laplacian::<c64>(g, &dev);
        let up = diags::<c64>(
            &[
                &vec![c64::new(0.0, 0.3); n - 1],
                &vec![c64::new(0.0, -0.3); n - 1],
            ],
            &[1, -1],
            None,
            &dev,
        )
        .unwrap();
        let a_dense: Vec<c64> = l
            .toarray()
            .unwrap()
            .add(&up.toarray().unwrap())
            .unwrap()
            .to_vec()
            .unwrap();
        let a = CsrMatrix::from_dense(&Array::from_vec(a_dense.clone(), &[n, n], &dev).unwrap())
            .unwrap();
        let b = randn_vec::<c64>(n, 3);
        let x0 = randn_vec::<c64>(n, 4);
        let bd = Array::from_vec(b.clone(), &[n], &dev).unwrap();
        let x0d = Array::from_vec(x0, &[n], &dev).unwrap();
        // Jacobi preconditioner: the diagonal is 4
        let jacobi = FnOperator::new((n, n), |x: &Array<c64>| x.mul_scalar(c64::new(0.25, 0.0)));
        let s = cg(
            &a,
            &bd,
            &SolverOptions {
                x0: Some(&x0d),
                rtol: 1e-10,
                m: Some(&jacobi),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(s.info, 0);
        let r = a.matvec(&s.x).unwrap().sub(&bd).unwrap().norm().unwrap();
        let bn = bd.norm().unwrap();
        assert!(r <= 1e-10 * bn * 1.01, "{dev}: residual {r} vs {bn}");
    }
}

#[test]
fn cg_edge_cases_and_errors() {
    for dev in devices() {
        let a = laplacian::<f64>(3, &dev);
        // b = 0 returns zeros at once
        let s = cg(
            &a,
            &Array::zeros(&[9], &dev).unwrap(),
            &SolverOptions::default(),
        )
        .unwrap();
        assert_eq!((s.info, s.iterations), (0, 0));
        assert_eq!(s.x.to_vec().unwrap(), vec![0.0; 9]);
        // 1 x 1
        let one = diags::<f64>(&[&[2.0]], &[0], None, &dev).unwrap();
        let s = cg(
            &one,
            &Array::from_vec(vec![3.0], &[1], &dev).unwrap(),
            &SolverOptions::default(),
        )
        .unwrap();
        assert_eq!(s.info, 0);
        assert!((s.x.to_vec().unwrap()[0] - 1.5).abs() < 1e-12);
        // non-square operator, wrong b, wrong x0
        let rect = random::<f64>(3, 4, 0.5, 1, &dev).unwrap();
        let e = cg(
            &rect,
            &Array::zeros(&[3], &dev).unwrap(),
            &SolverOptions::default(),
        )
        .unwrap_err();
        assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
        let e = cg(
            &a,
            &Array::zeros(&[8], &dev).unwrap(),
            &SolverOptions::default(),
        )
        .unwrap_err();
        assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
        let x0 = Array::zeros(&[4], &dev).unwrap();
        let e = cg(
            &a,
            &Array::ones(&[9], &dev).unwrap(),
            &SolverOptions {
                x0: Some(&x0),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
        let e = cg(
            &a,
            &Array::ones(&[9], &dev).unwrap(),
            &SolverOptions {
                rtol: -1.0,
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    }
    if let Some(g) = gpu() {
        let a = laplacian::<f64>(3, &Device::Cpu);
        let e = cg(
            &a,
            &Array::ones(&[9], &g).unwrap(),
            &SolverOptions::default(),
        )
        .unwrap_err();
        assert!(matches!(e, Error::DeviceMismatch { .. }), "{e}");
    }
}
