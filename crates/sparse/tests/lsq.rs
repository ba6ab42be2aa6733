//! minres, lsqr and lsmr: against SciPy's results (`tests/data/scipy_sparse_solvers.npz`, from
//! `tests/golden/gen.py sparse_solvers`) on every device, identities (normal equations, residuals)
//! for f32/complex, and bad input (the solver kernels' compile check is in `kernels_compile`).

use cusci_core::npy::load_npz_array;
use cusci_core::testing::{assert_allclose, devices, randn_vec};
use cusci_core::{c64, Array, Device, Element, Error, Float, RealFloat};
use cusci_sparse::linalg::{
    lsmr, lsqr, minres, FnOperator, LinearOperator, LsqOptions, SolverOptions,
};
use cusci_sparse::{diags, CsrMatrix};

use crate::common::{laplacian, load_csr, lsq_like_scipy};

const NPZ: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/scipy_sparse_solvers.npz"
);

fn load<T: Element>(name: &str, dev: &Device) -> Array<T> {
    load_npz_array::<T>(NPZ, name, dev).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn minres_like_scipy_on_an_indefinite_shifted_laplacian() {
    for dev in devices() {
        let a = laplacian::<f64>(10, &dev);
        let b = load::<f64>("minres_b", &dev);
        let s = minres(
            &a,
            &b,
            &SolverOptions {
                rtol: 1e-10,
                shift: 1.5,
                ..Default::default()
            },
        )
        .unwrap();
        let want_it = load::<i64>("minres_iterations", &Device::Cpu)
            .to_vec()
            .unwrap()[0];
        assert_eq!(s.info, 0, "{dev}");
        assert!(
            (s.iterations as i64 - want_it).abs() <= 2,
            "{dev}: {} iterations vs SciPy's {want_it}",
            s.iterations
        );
        assert_allclose(&s.x, &load::<f64>("minres_x", &dev), 1e-7, 1e-9, "minres");
        // the residual of the shifted system
        let r = a
            .dot(&s.x)
            .unwrap()
            .sub(&s.x.mul_scalar(1.5).unwrap())
            .unwrap()
            .sub(&b)
            .unwrap()
            .norm()
            .unwrap();
        // minres tests ‖r‖ against rtol·‖A‖‖x‖ (not ‖b‖)
        assert!(r < 1e-6 * b.norm().unwrap(), "{dev}: residual {r}");
    }
}

#[test]
fn lsqr_and_lsmr_like_scipy() {
    for dev in devices() {
        let l = load_csr("scipy_sparse_solvers", "l", (40, 15), &dev);
        let b = load::<f64>("l_b", &dev);
        for damp in [0.0, 0.7] {
            let o = LsqOptions {
                damp,
                atol: 1e-10,
                btol: 1e-10,
                ..Default::default()
            };
            let sfx = if damp > 0.0 { "_damp" } else { "" };
            let ctx = format!("{dev} damp {damp}");
            let r = lsqr(&l, &b, &o).unwrap();
            lsq_like_scipy(
                "lsqr",
                sfx,
                (r.istop, r.itn, &r.x),
                &[
                    (r.r1norm, 2, "r1norm"),
                    (r.r2norm, 3, "r2norm"),
                    (r.anorm, 4, "anorm"),
                    (r.acond, 5, "acond"),
                ],
                &dev,
                &ctx,
            );
            let r = lsmr(&l, &b, &o).unwrap();
            lsq_like_scipy(
                "lsmr",
                sfx,
                (r.istop, r.itn, &r.x),
                &[
                    (r.normr, 2, "normr"),
                    (r.norma, 4, "norma"),
                    (r.conda, 5, "conda"),
                    (r.normx, 6, "normx"),
                ],
                &dev,
                &ctx,
            );
        }
    }
}

/// ‖Aᴴ (A x − b)‖ / (‖A‖_F ‖A x − b‖ + ‖A‖_F² ‖x‖): small at a least-squares solution.
fn normal_eq_error<T: Float>(a: &CsrMatrix<T>, x: &Array<T>, b: &Array<T>) -> f64 {
    let r = a.dot(x).unwrap().sub(b).unwrap();
    let g = a.rmatvec(&r).unwrap().norm().unwrap().to_f64();
    let fro = a.data().norm().unwrap().to_f64();
    g / (fro * r.norm().unwrap().to_f64() + fro * fro * x.norm().unwrap().to_f64())
}

fn dense<T: Float>(m: usize, n: usize, seed: u64, dev: &Device) -> CsrMatrix<T> {
    // a sparse pattern (about 40 % zeros) from the seed
    let v: Vec<T> = randn_vec::<T>(m * n, seed)
        .into_iter()
        .enumerate()
        .map(|(i, x)| if (i * 7 + 3) % 5 < 2 { T::zero() } else { x })
        .collect();
    CsrMatrix::from_dense(&Array::from_vec(v, &[m, n], dev).unwrap()).unwrap()
}

fn lsq_identities<T: Float>(tol: f64, lim: f64) {
    let mut first: Option<(Vec<T>, Vec<T>)> = None;
    for dev in devices() {
        for (m, n) in [(33, 12), (12, 31), (1, 1), (2, 2)] {
            let a = dense::<T>(m, n, 5 + m as u64, &dev);
            let b = Array::from_vec(randn_vec::<T>(m, 9), &[m], &dev).unwrap();
            let o = LsqOptions {
                atol: tol,
                btol: tol,
                maxiter: Some(4 * n),
                ..Default::default()
            };
            let r1 = lsqr(&a, &b, &o).unwrap();
            let r2 = lsmr(&a, &b, &o).unwrap();
            for (x, what) in [(&r1.x, "lsqr"), (&r2.x, "lsmr")] {
                let e = normal_eq_error(&a, x, &b);
                assert!(e < lim, "{what} {dev} {m}x{n} {}: {e}", T::DTYPE);
            }
            if (m, n) == (33, 12) {
                let got = (r1.x.to_vec().unwrap(), r2.x.to_vec().unwrap());
                match &first {
                    None => first = Some(got),
                    Some((c1, c2)) => {
                        // GPU against the CPU
                        let sh = [n];
                        cusci_core::testing::assert_slices_close(
                            &got.0,
                            c1,
                            &sh,
                            100.0 * lim,
                            100.0 * lim,
                            "lsqr gpu/cpu",
                        );
                        cusci_core::testing::assert_slices_close(
                            &got.1,
                            c2,
                            &sh,
                            100.0 * lim,
                            100.0 * lim,
                            "lsmr gpu/cpu",
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn lsqr_lsmr_normal_equations_f64_c64_f32() {
    lsq_identities::<f64>(1e-12, 1e-9);
    lsq_identities::<c64>(1e-12, 1e-9);
    lsq_identities::<f32>(1e-6, 1e-3);
}

#[test]
fn minres_preconditioned_x0_complex_f32() {
    for dev in devices() {
        let a = laplacian::<f64>(8, &dev);
        let n = 64;
        let b = Array::from_vec(randn_vec::<f64>(n, 3), &[n], &dev).unwrap();
        let x0 = Array::from_vec(randn_vec::<f64>(n, 4), &[n], &dev).unwrap();
        let jacobi = FnOperator::new((n, n), |x: &Array<f64>| x.mul_scalar(0.25));
        let s = minres(
            &a,
            &b,
            &SolverOptions {
                rtol: 1e-10,
                x0: Some(&x0),
                m: Some(&jacobi),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(s.info, 0);
        let r = a.dot(&s.x).unwrap().sub(&b).unwrap().norm().unwrap();
        assert!(r < 1e-8 * b.norm().unwrap(), "{dev}: {r}");
        // a Hermitian complex system: the Laplacian plus i times a symmetric coupling is not
        // Hermitian, so use a real-diagonal Hermitian tridiagonal matrix
        let k = 40;
        let d: Vec<c64> = (0..k).map(|i| c64::new(i as f64 - 15.5, 0.0)).collect();
        let up = vec![c64::new(0.5, 1.0); k - 1];
        let lo = vec![c64::new(0.5, -1.0); k - 1];
        let h = diags(&[&d, &up, &lo], &[0, 1, -1], None, &dev).unwrap();
        let bc = Array::from_vec(randn_vec::<c64>(k, 8), &[k], &dev).unwrap();
        let s = minres(
            &h,
            &bc,
            &SolverOptions {
                rtol: 1e-12,
                ..Default::default()
            },
        )
        .unwrap();
        let r = h.dot(&s.x).unwrap().sub(&bc).unwrap().norm().unwrap();
        assert!(r < 1e-8 * bc.norm().unwrap(), "{dev} complex: {r}");
        let a32 = laplacian::<f32>(6, &dev);
        let b32 = Array::from_vec(randn_vec::<f32>(36, 3), &[36], &dev).unwrap();
        let s = minres(
            &a32,
            &b32,
            &SolverOptions {
                rtol: 1e-5,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(s.info, 0);
        let r = a32.dot(&s.x).unwrap().sub(&b32).unwrap().norm().unwrap();
        assert!(r < 1e-3 * b32.norm().unwrap(), "{dev} f32: {r}");
    }
}

#[test]
fn maxiter_and_trivial_cases() {
    for dev in devices() {
        let a = laplacian::<f64>(5, &dev);
        let b = Array::from_vec(randn_vec::<f64>(25, 1), &[25], &dev).unwrap();
        let s = minres(
            &a,
            &b,
            &SolverOptions {
                rtol: 0.0,
                maxiter: Some(3),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!((s.info, s.iterations), (3, 3), "{dev}");
        let o = LsqOptions {
            atol: 0.0,
            btol: 0.0,
            conlim: 0.0,
            maxiter: Some(4),
            ..Default::default()
        };
        let r = lsqr(&a, &b, &o).unwrap();
        assert_eq!((r.istop, r.itn), (7, 4), "{dev}");
        let r = lsmr(&a, &b, &o).unwrap();
        assert_eq!((r.istop, r.itn), (7, 4), "{dev}");
        // b = 0: x = 0 at once
        let z = Array::<f64>::zeros(&[25], &dev).unwrap();
        let r = lsqr(&a, &z, &LsqOptions::default()).unwrap();
        assert_eq!((r.istop, r.itn), (0, 0));
        assert_eq!(r.x.to_vec().unwrap(), vec![0.0; 25]);
        let r = lsmr(&a, &z, &LsqOptions::default()).unwrap();
        assert_eq!(r.x.to_vec().unwrap(), vec![0.0; 25]);
        let s = minres(&a, &z, &SolverOptions::default()).unwrap();
        assert_eq!((s.info, s.iterations), (0, 0));
        assert_eq!(s.x.to_vec().unwrap(), vec![0.0; 25]);
        // 1 x 1
        let one = diags::<f64>(&[&[4.0]], &[0], None, &dev).unwrap();
        let b1 = Array::from_vec(vec![2.0], &[1], &dev).unwrap();
        let s = minres(&one, &b1, &SolverOptions::default()).unwrap();
        assert!((s.x.to_vec().unwrap()[0] - 0.5).abs() < 1e-12, "{dev}");
    }
}

#[test]
fn bad_input_gives_typed_errors() {
    for dev in devices() {
        let a = laplacian::<f64>(3, &dev);
        let b8 = Array::<f64>::zeros(&[8], &dev).unwrap();
        let b9 = Array::from_vec(randn_vec::<f64>(9, 2), &[9], &dev).unwrap();
        assert!(matches!(
            lsqr(&a, &b8, &LsqOptions::default()),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            lsmr(&a, &b8, &LsqOptions::default()),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            minres(&a, &b8, &SolverOptions::default()),
            Err(Error::ShapeMismatch { .. })
        ));
        let rect = dense::<f64>(9, 4, 1, &dev);
        assert!(matches!(
            minres(&rect, &b9, &SolverOptions::default()),
            Err(Error::ShapeMismatch { .. })
        ));
        let x0 = Array::<f64>::zeros(&[5], &dev).unwrap();
        assert!(matches!(
            lsqr(
                &rect,
                &b9,
                &LsqOptions {
                    x0: Some(&x0),
                    ..Default::default()
                }
            ),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            lsqr(
                &a,
                &b9,
                &LsqOptions {
                    damp: -1.0,
                    ..Default::default()
                }
            ),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            lsmr(
                &a,
                &b9,
                &LsqOptions {
                    atol: f64::NAN,
                    ..Default::default()
                }
            ),
            Err(Error::InvalidArgument { .. })
        ));
        // an indefinite preconditioner
        let neg = FnOperator::new((9, 9), |x: &Array<f64>| x.mul_scalar(-1.0));
        assert!(matches!(
            minres(
                &a,
                &b9,
                &SolverOptions {
                    m: Some(&neg),
                    ..Default::default()
                }
            ),
            Err(Error::InvalidArgument { .. })
        ));
        // an operator without rmatvec
        let f = FnOperator::new((9, 9), |x: &Array<f64>| a.matvec(x));
        assert!(matches!(
            lsqr(&f, &b9, &LsqOptions::default()),
            Err(Error::NotImplemented { .. })
        ));
    }
}
