//! `eigsh` with `M` (the generalized problem `A x = λ M x`): SciPy's dense `eigh(A, B)` values
//! of `scipy_sparse_eigen.npz` (a 12 x 12 grid Laplacian, a positive diagonal `B`) in mode 2
//! (`M⁻¹A`) and mode 3 (`sigma`), the residuals and the `M`-orthonormality of the vectors, on
//! every device; user `Minv`/`opinv` operators; the errors. `eigs` with `M` against `eigs` of
//! the explicit `M⁻¹A` and the residuals `‖A v − λ M v‖`.

use crate::common::laplacian;
use cusci_core::npy::load_npz_array;
use cusci_core::testing::devices;
use cusci_core::{c64, Array, Device, Error};
use cusci_sparse::linalg::{
    eigs, eigsh, EigsOptions, EigshOptions, EigshResult, FnOperator, Which,
};
use cusci_sparse::{diags, CsrMatrix};

const NPZ: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/scipy_sparse_eigen.npz"
);

fn golden(name: &str) -> Vec<f64> {
    load_npz_array::<f64>(NPZ, name, &Device::Cpu)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .to_vec()
        .unwrap()
}

/// `A v = w M v` and `Vᵀ M V = I` for the k pairs of `r` (M diagonal `bd`).
fn check_pairs(a: &CsrMatrix<f64>, bd: &[f64], r: &EigshResult<f64>, what: &str) {
    let n = bd.len();
    let k = r.w.len();
    let v = r.v.as_ref().unwrap().to_vec().unwrap();
    let ad = a.toarray().unwrap().to_vec().unwrap();
    for i in 0..k {
        let res: f64 = (0..n)
            .map(|rw| {
                let av: f64 = (0..n).map(|c| ad[rw * n + c] * v[c * k + i]).sum();
                (av - r.w[i] * bd[rw] * v[rw * k + i]).powi(2)
            })
            .sum::<f64>()
            .sqrt();
        assert!(res < 1e-8, "{what}: residual {res} of pair {i}");
        for j in 0..k {
            let d: f64 = (0..n)
                .map(|rw| v[rw * k + i] * bd[rw] * v[rw * k + j])
                .sum();
            let want = if i == j { 1.0 } else { 0.0 };
            assert!((d - want).abs() < 1e-9, "{what}: (V^T M V)[{i},{j}] = {d}");
        }
    }
}

fn close(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() < tol * w.abs().max(1.0),
            "{what}: {got:?} vs {want:?}"
        );
    }
}

#[test]
fn eigsh_generalized_matches_scipy_eigh() {
    let bd = golden("gen_bdiag");
    let mut largest = golden("eigh_largest");
    largest.sort_by(f64::total_cmp);
    let smallest = golden("eigh_smallest");
    for dev in devices() {
        let a = laplacian::<f64>(12, &dev);
        let b = diags::<f64>(&[&bd], &[0], None, &dev).unwrap();
        // mode 2: M⁻¹A through the sparse LU of M
        let r = eigsh(
            &a,
            3,
            &EigshOptions {
                which: Which::LA,
                m: Some(&b),
                ..Default::default()
            },
        )
        .unwrap();
        close(&r.w, &largest, 1e-9, &format!("{dev} mode 2 LA"));
        check_pairs(&a.to_device(&Device::Cpu).unwrap(), &bd, &r, "mode 2");
        // mode 3: the eigenvalues nearest 0, through the LU of A − σM
        let r = eigsh(
            &a,
            3,
            &EigshOptions {
                sigma: Some(0.0),
                m: Some(&b),
                ..Default::default()
            },
        )
        .unwrap();
        close(&r.w, &smallest, 1e-9, &format!("{dev} mode 3"));
        check_pairs(&a.to_device(&Device::Cpu).unwrap(), &bd, &r, "mode 3");
        // M = I gives the standard problem
        let i = diags::<f64>(&[&vec![1.0; 144]], &[0], None, &dev).unwrap();
        let with_i = eigsh(
            &a,
            2,
            &EigshOptions {
                which: Which::LA,
                m: Some(&i),
                return_eigenvectors: false,
                ..Default::default()
            },
        )
        .unwrap();
        let plain = eigsh(
            &a,
            2,
            &EigshOptions {
                which: Which::LA,
                return_eigenvectors: false,
                ..Default::default()
            },
        )
        .unwrap();
        close(&with_i.w, &plain.w, 1e-10, &format!("{dev} M = I"));
    }
}

#[test]
fn eigsh_generalized_with_user_operators_and_errors() {
    let dev = Device::Cpu;
    let bd = golden("gen_bdiag");
    let mut largest = golden("eigh_largest");
    largest.sort_by(f64::total_cmp);
    let a = laplacian::<f64>(12, &dev);
    let n = 144;
    let bd2 = bd.clone();
    let m_op = FnOperator::new((n, n), move |x: &Array<f64>| {
        let v = x.to_vec()?;
        Array::from_vec(
            v.iter().zip(&bd2).map(|(a, b)| a * b).collect(),
            &[n],
            &Device::Cpu,
        )
    });
    let bd3 = bd.clone();
    let minv = FnOperator::new((n, n), move |x: &Array<f64>| {
        let v = x.to_vec()?;
        Array::from_vec(
            v.iter().zip(&bd3).map(|(a, b)| a / b).collect(),
            &[n],
            &Device::Cpu,
        )
    });
    let r = eigsh(
        &a,
        3,
        &EigshOptions {
            which: Which::LA,
            m: Some(&m_op),
            minv: Some(&minv),
            ..Default::default()
        },
    )
    .unwrap();
    close(&r.w, &largest, 1e-9, "Minv operator");
    check_pairs(&a, &bd, &r, "Minv operator");
    // mode 3 with a non-sparse M needs opinv; the LU of A − σM from a sparse copy serves as one
    let b = diags::<f64>(&[&bd], &[0], None, &dev).unwrap();
    let shifted = cusci_sparse::linalg::splu(&a.sub(&b.mul_scalar(0.5).unwrap()).unwrap()).unwrap();
    let opinv = FnOperator::new((n, n), |x: &Array<f64>| shifted.solve(x));
    let r = eigsh(
        &a,
        3,
        &EigshOptions {
            sigma: Some(0.5),
            m: Some(&m_op),
            opinv: Some(&opinv),
            ..Default::default()
        },
    )
    .unwrap();
    // the same values as the LU of A − σM built by eigsh from the sparse M
    let sparse = eigsh(
        &a,
        3,
        &EigshOptions {
            sigma: Some(0.5),
            m: Some(&b),
            ..Default::default()
        },
    )
    .unwrap();
    close(&r.w, &sparse.w, 1e-10, "opinv vs sparse M");
    check_pairs(&a, &bd, &r, "opinv operator");
    // errors: M without Minv / opinv when it is not sparse, M of another shape, M not positive
    let e = eigsh(
        &a,
        3,
        &EigshOptions {
            m: Some(&m_op),
            ..Default::default()
        },
    );
    assert!(matches!(e, Err(Error::InvalidArgument { .. })), "{e:?}");
    let e = eigsh(
        &a,
        3,
        &EigshOptions {
            m: Some(&m_op),
            sigma: Some(0.1),
            ..Default::default()
        },
    );
    assert!(matches!(e, Err(Error::InvalidArgument { .. })), "{e:?}");
    let small = diags::<f64>(&[&[1.0, 1.0]], &[0], None, &dev).unwrap();
    let e = eigsh(
        &a,
        3,
        &EigshOptions {
            m: Some(&small),
            ..Default::default()
        },
    );
    assert!(matches!(e, Err(Error::ShapeMismatch { .. })), "{e:?}");
    let neg = diags::<f64>(&[&vec![-1.0; n]], &[0], None, &dev).unwrap();
    let e = eigsh(
        &a,
        3,
        &EigshOptions {
            m: Some(&neg),
            ..Default::default()
        },
    );
    assert!(matches!(e, Err(Error::NotPositiveDefinite { .. })), "{e:?}");
}

/// The largest residual `‖A v − w M v‖ / ‖v‖` of the pairs of an `eigs` result (M diagonal).
fn eigs_residual(a: &CsrMatrix<f64>, md: &[f64], w: &[c64], v: &Array<c64>) -> f64 {
    let n = md.len();
    let k = w.len();
    let ad = a.toarray().unwrap().to_vec().unwrap();
    let v = v.to_vec().unwrap();
    (0..k)
        .map(|i| {
            let nv: f64 = (0..n).map(|r| v[r * k + i].norm_sqr()).sum::<f64>().sqrt();
            let res: f64 = (0..n)
                .map(|r| {
                    let av: c64 = (0..n).map(|c| v[c * k + i] * ad[r * n + c]).sum();
                    (av - w[i] * md[r] * v[r * k + i]).norm_sqr()
                })
                .sum::<f64>()
                .sqrt();
            res / nv
        })
        .fold(0.0, f64::max)
}

#[test]
fn eigs_generalized_against_the_explicit_pencil() {
    let n = 64;
    let md: Vec<f64> = (0..n).map(|i| 1.0 + i as f64 / n as f64).collect();
    let inv: Vec<f64> = md.iter().map(|v| 1.0 / v).collect();
    for dev in devices() {
        let a = crate::common::convdiff::<f64>(8, 0.5, &dev);
        let m = diags::<f64>(&[&md], &[0], None, &dev).unwrap();
        // M⁻¹A written out: the same eigenvalues
        let explicit = diags::<f64>(&[&inv], &[0], None, &dev)
            .unwrap()
            .matmul(&a)
            .unwrap();
        let sorted = |w: &[c64]| {
            let mut w = w.to_vec();
            w.sort_by(|x, y| x.re.total_cmp(&y.re).then(x.im.total_cmp(&y.im)));
            w
        };
        for sigma in [None, Some(c64::new(0.5, 0.0))] {
            let r = eigs(
                &a,
                4,
                &EigsOptions {
                    m: Some(&m),
                    sigma,
                    ..Default::default()
                },
            )
            .unwrap();
            let p = eigs(
                &explicit,
                4,
                &EigsOptions {
                    sigma,
                    return_eigenvectors: false,
                    ..Default::default()
                },
            )
            .unwrap();
            let (g, w) = (sorted(&r.w), sorted(&p.w));
            for (x, y) in g.iter().zip(&w) {
                assert!(
                    (x - y).norm() < 1e-9 * y.norm().max(1.0),
                    "{dev} {sigma:?}: {g:?} vs {w:?}"
                );
            }
            let res = eigs_residual(
                &a.to_device(&Device::Cpu).unwrap(),
                &md,
                &r.w,
                &r.v.unwrap().to_device(&Device::Cpu).unwrap(),
            );
            assert!(res < 1e-9, "{dev} {sigma:?}: residual {res}");
        }
        // errors: M of another shape; a non-sparse M without Minv
        let small = diags::<f64>(&[&[1.0, 1.0]], &[0], None, &dev).unwrap();
        let e = eigs(
            &a,
            2,
            &EigsOptions {
                m: Some(&small),
                ..Default::default()
            },
        );
        assert!(matches!(e, Err(Error::ShapeMismatch { .. })), "{e:?}");
        let f = FnOperator::new((n, n), |x: &Array<f64>| x.copy());
        let e = eigs(
            &a,
            2,
            &EigsOptions {
                m: Some(&f),
                ..Default::default()
            },
        );
        assert!(matches!(e, Err(Error::InvalidArgument { .. })), "{e:?}");
    }
}

// ================================================================== funm_multiply_krylov

const FUNM: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/scipy_sparse_funm.npz"
);

fn funm_golden<T: cusci_core::Element>(name: &str) -> Vec<T> {
    load_npz_array::<T>(FUNM, name, &Device::Cpu)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .to_vec()
        .unwrap()
}

#[test]
fn funm_multiply_krylov_matches_scipy_and_dense_expm() {
    use cusci_sparse::linalg::{funm_multiply_krylov, FunmOptions};
    let expm = |h: &Array<c64>| cusci_linalg::expm(h);
    let n = 40;
    let b = funm_golden::<f64>("b");
    let t = funm_golden::<f64>("t")[0];
    let opts = FunmOptions {
        t,
        restart_every_m: Some(6),
        rtol: 1e-12,
        ..Default::default()
    };
    let close_to = |got: &[c64], want: &[c64], what: &str| {
        let scale = want.iter().map(|v| v.norm()).fold(0.0, f64::max);
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!((g - w).norm() < 1e-9 * scale, "{what}[{i}]: {g} vs {w}");
        }
    };
    let as_c = |v: &[f64]| v.iter().map(|&x| c64::new(x, 0.0)).collect::<Vec<_>>();
    for dev in devices() {
        let a = crate::common::load_csr("scipy_sparse_funm", "a", (n, n), &dev);
        let bd = Array::from_vec(b.clone(), &[n], &dev).unwrap();
        let y = funm_multiply_krylov(&expm, &a, &bd, &opts).unwrap();
        assert_eq!(y.device(), &dev);
        let y = as_c(&y.to_vec().unwrap());
        close_to(
            &y,
            &as_c(&funm_golden::<f64>("exact")),
            &format!("{dev} real vs expm"),
        );
        close_to(
            &y,
            &as_c(&funm_golden::<f64>("funm")),
            &format!("{dev} real vs SciPy"),
        );
        // i A, complex
        let ad = funm_golden::<f64>("a_data");
        let ac = CsrMatrix::new(
            Array::from_vec(
                ad.iter().map(|&v| c64::new(0.0, v)).collect(),
                &[ad.len()],
                &dev,
            )
            .unwrap(),
            a.indices().clone(),
            a.indptr().clone(),
            (n, n),
        )
        .unwrap();
        let bc = Array::from_vec(as_c(&b), &[n], &dev).unwrap();
        let yc = funm_multiply_krylov(&expm, &ac, &bc, &opts)
            .unwrap()
            .to_vec()
            .unwrap();
        close_to(
            &yc,
            &funm_golden::<c64>("exact_c"),
            &format!("{dev} complex vs expm"),
        );
        close_to(
            &yc,
            &funm_golden::<c64>("funm_c"),
            &format!("{dev} complex vs SciPy"),
        );
        // an invariant subspace ends the iteration exactly: b an eigenvector of a diagonal
        let d = diags::<f64>(&[&[1.0, 2.0, 3.0, 4.0]], &[0], None, &dev).unwrap();
        let e1 = Array::from_vec(vec![0.0, 2.0, 0.0, 0.0], &[4], &dev).unwrap();
        let y = funm_multiply_krylov(&expm, &d, &e1, &FunmOptions::default())
            .unwrap()
            .to_vec()
            .unwrap();
        assert!(
            (y[1] - 2.0 * 2.0f64.exp()).abs() < 1e-12 && y[0] == 0.0,
            "{y:?}"
        );
        // b = 0 gives 0
        let z = Array::<f64>::zeros(&[4], &dev).unwrap();
        let y = funm_multiply_krylov(&expm, &d, &z, &FunmOptions::default()).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![0.0; 4]);
        // errors
        let bad = |r: cusci_sparse::Result<Array<f64>>| r.unwrap_err();
        assert!(matches!(
            bad(funm_multiply_krylov(
                &expm,
                &d,
                &bd,
                &FunmOptions::default()
            )),
            Error::ShapeMismatch { .. }
        ));
        assert!(matches!(
            bad(funm_multiply_krylov(
                &expm,
                &d,
                &e1,
                &FunmOptions {
                    rtol: -1.0,
                    ..Default::default()
                }
            )),
            Error::InvalidArgument { .. }
        ));
        // an f whose values are complex on a real problem
        let cplx = |h: &Array<c64>| -> cusci_sparse::Result<Array<c64>> {
            let v = h.to_vec()?;
            let k = h.shape()[0];
            let mut out = vec![c64::new(0.0, 0.0); k * k];
            for i in 0..k {
                out[i * k + i] = c64::new(0.0, 1.0) + v[i * k + i] * 0.0;
            }
            Array::from_vec(out, &[k, k], &Device::Cpu)
        };
        let ones = Array::from_vec(vec![1.0; 4], &[4], &dev).unwrap();
        assert!(matches!(
            bad(funm_multiply_krylov(
                &cplx,
                &d,
                &ones,
                &FunmOptions::default()
            )),
            Error::InvalidArgument { .. }
        ));
        // too few restarts for the tolerance
        assert!(matches!(
            bad(funm_multiply_krylov(
                &expm,
                &a,
                &bd,
                &FunmOptions {
                    restart_every_m: Some(2),
                    max_restarts: 1,
                    rtol: 1e-14,
                    ..opts
                }
            )),
            Error::NoConvergence { .. }
        ));
    }
}
