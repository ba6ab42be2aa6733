//! eigsh: the 2-D Laplacian's known spectrum for every `which`, the identity (cupy#5024/#6446
//! return wrong values there), a complex Hermitian matrix (residuals, orthonormal vectors), GPU
//! against CPU (the same body on every device), bad input.

use cusci_core::testing::{devices, randn_vec};
use cusci_core::{c64, Array, Device, Error, Float};
use cusci_sparse::linalg::{eigsh, EigshOptions, Which};
use cusci_sparse::{diags, CsrMatrix};

use crate::common::{laplacian, load_csr, spectrum};

/// max ‖A v_i − w_i v_i‖ and max |V^H V − I|.
fn check_pairs<T: Float>(a: &CsrMatrix<T>, w: &[f64], v: &Array<T>) -> (f64, f64) {
    let (n, k) = (v.shape()[0], v.shape()[1]);
    let vv = v.to_vec().unwrap();
    let mut res = 0.0f64;
    let mut orth = 0.0f64;
    for i in 0..k {
        let col: Vec<T> = (0..n).map(|r| vv[r * k + i]).collect();
        let x = Array::from_vec(col.clone(), &[n], a.device()).unwrap();
        let ax = a.dot(&x).unwrap().to_vec().unwrap();
        let r: f64 = ax
            .iter()
            .zip(&col)
            .map(|(&y, &c)| (y.to_c64() - c.to_c64() * w[i]).norm_sqr())
            .sum::<f64>()
            .sqrt();
        res = res.max(r);
        for j in 0..k {
            let d: c64 = (0..n)
                .map(|r| vv[r * k + i].to_c64().conj() * vv[r * k + j].to_c64())
                .sum();
            let want = if i == j { 1.0 } else { 0.0 };
            orth = orth.max((d - want).norm());
        }
    }
    (res, orth)
}

#[test]
fn laplacian_spectrum_for_every_which() {
    let k = 9;
    let ex = spectrum(k);
    let n = k * k;
    for dev in devices() {
        let a = laplacian::<f64>(k, &dev);
        for (which, want) in [
            (Which::LA, ex[n - 4..].to_vec()),
            (Which::LM, ex[n - 4..].to_vec()),
            (Which::SA, ex[..4].to_vec()),
            (Which::SM, ex[..3].to_vec()),
        ] {
            let kk = want.len();
            let r = eigsh(
                &a,
                kk,
                &EigshOptions {
                    which,
                    ..Default::default()
                },
            )
            .unwrap();
            for (g, w) in r.w.iter().zip(&want) {
                assert!(
                    (g - w).abs() < 1e-9,
                    "{dev} {which:?}: {:?} vs {want:?}",
                    r.w
                );
            }
            let (res, orth) = check_pairs(&a, &r.w, r.v.as_ref().unwrap());
            assert!(res < 1e-8 && orth < 1e-10, "{dev} {which:?}: {res} {orth}");
        }
    }
}

#[test]
fn identity_gives_ones_with_multiplicity() {
    for dev in devices() {
        let e = diags::<f64>(&[&[1.0; 50]], &[0], None, &dev).unwrap();
        for which in [Which::LM, Which::SA] {
            let r = eigsh(
                &e,
                3,
                &EigshOptions {
                    which,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(r.w.len(), 3);
            for w in &r.w {
                assert!((w - 1.0).abs() < 1e-12, "{dev}: {:?}", r.w);
            }
            let (res, orth) = check_pairs(&e, &r.w, r.v.as_ref().unwrap());
            assert!(res < 1e-12 && orth < 1e-12, "{dev}: {res} {orth}");
        }
    }
}

#[test]
fn complex_hermitian_and_f32_across_devices() {
    let n = 60;
    let d: Vec<c64> = (0..n)
        .map(|i| c64::new((i as f64 * 0.37).sin() * 3.0, 0.0))
        .collect();
    let up: Vec<c64> = randn_vec::<c64>(n - 1, 4);
    let lo: Vec<c64> = up.iter().map(|v| v.conj()).collect();
    let mut first: Option<Vec<f64>> = None;
    for dev in devices() {
        let h = diags(&[&d, &up, &lo], &[0, 1, -1], None, &dev).unwrap();
        let r = eigsh(&h, 4, &EigshOptions::default()).unwrap();
        let (res, orth) = check_pairs(&h, &r.w, r.v.as_ref().unwrap());
        assert!(res < 1e-8 && orth < 1e-10, "{dev}: {res} {orth}");
        match &first {
            None => first = Some(r.w.clone()),
            Some(c) => {
                for (g, w) in r.w.iter().zip(c) {
                    assert!(
                        (g - w).abs() < 1e-9 * w.abs().max(1.0),
                        "{dev}: {:?} vs {c:?}",
                        r.w
                    );
                }
            }
        }
        let a32 = laplacian::<f32>(6, &dev);
        let ex = spectrum(6);
        let r = eigsh(
            &a32,
            2,
            &EigshOptions {
                which: Which::SA,
                tol: 1e-5,
                return_eigenvectors: false,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(r.v.is_none());
        for (g, w) in r.w.iter().zip(&ex[..2]) {
            assert!((g - w).abs() < 1e-4, "{dev} f32: {:?}", r.w);
        }
    }
}

#[test]
fn bad_input_gives_typed_errors() {
    for dev in devices() {
        let a = laplacian::<f64>(4, &dev);
        let o = EigshOptions::default();
        assert!(matches!(
            eigsh(&a, 0, &o),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            eigsh(&a, 16, &o),
            Err(Error::InvalidArgument { .. })
        ));
        let bad_ncv = EigshOptions {
            ncv: Some(2),
            ..Default::default()
        };
        assert!(matches!(
            eigsh(&a, 3, &bad_ncv),
            Err(Error::InvalidArgument { .. })
        ));
        let z = Array::<f64>::zeros(&[16], &dev).unwrap();
        let zv0 = EigshOptions {
            v0: Some(&z),
            ..Default::default()
        };
        assert!(matches!(
            eigsh(&a, 2, &zv0),
            Err(Error::InvalidArgument { .. })
        ));
        let short = Array::<f64>::zeros(&[5], &dev).unwrap();
        let sv0 = EigshOptions {
            v0: Some(&short),
            ..Default::default()
        };
        assert!(matches!(
            eigsh(&a, 2, &sv0),
            Err(Error::ShapeMismatch { .. })
        ));
        let rect = CsrMatrix::from_dense(&Array::<f64>::zeros(&[3, 4], &dev).unwrap()).unwrap();
        assert!(matches!(
            eigsh(&rect, 1, &o),
            Err(Error::ShapeMismatch { .. })
        ));
        // one restart of a 4-vector basis cannot resolve the Laplacian's smallest eigenvalues
        let big = laplacian::<f64>(12, &dev);
        let hard = EigshOptions {
            which: Which::SA,
            ncv: Some(4),
            maxiter: Some(1),
            ..Default::default()
        };
        assert!(matches!(
            eigsh(&big, 2, &hard),
            Err(Error::NoConvergence { .. })
        ));
    }
}

// ================================================================================= svds

use cusci_core::npy::load_npz_array;
use cusci_core::Element;
use cusci_sparse::linalg::{
    lobpcg, spilu, svds, IluOptions, LobpcgOptions, SingularVectors, SvdsOptions,
};

const NPZ: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/scipy_sparse_eigen.npz"
);

fn load<T: Element>(name: &str, dev: &Device) -> Array<T> {
    load_npz_array::<T>(NPZ, name, dev).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn golden_matrix(dev: &Device) -> CsrMatrix<f64> {
    load_csr("scipy_sparse_eigen", "s", (40, 25), dev)
}

/// The dense (rows, cols) values of a sparse matrix, as c64 on the host.
fn dense<T: Float>(a: &CsrMatrix<T>) -> (Vec<c64>, usize, usize) {
    let (m, n) = a.shape();
    let v = a.toarray().unwrap().to_vec().unwrap();
    (v.iter().map(|x| x.to_c64()).collect(), m, n)
}

/// max over i of ‖A v_i − s_i u_i‖ and (for s_i > 0) ‖Aᴴ u_i − s_i v_i‖ (v_i = vh_iᴴ), and the worst
/// deviation of UᴴU and Vh Vhᴴ from the identity.
fn check_triplets<T: Float>(
    a: &CsrMatrix<T>,
    u: &Array<T>,
    s: &[f64],
    vh: &Array<T>,
) -> (f64, f64) {
    let (ad, m, n) = dense(a);
    let k = s.len();
    assert_eq!(u.shape(), &[m, k]);
    assert_eq!(vh.shape(), &[k, n]);
    let uu: Vec<c64> = u.to_vec().unwrap().iter().map(|x| x.to_c64()).collect();
    let vv: Vec<c64> = vh.to_vec().unwrap().iter().map(|x| x.to_c64()).collect();
    let (mut res, mut orth) = (0.0f64, 0.0f64);
    for i in 0..k {
        let mut r1 = 0.0;
        for r in 0..m {
            let av: c64 = (0..n).map(|c| ad[r * n + c] * vv[i * n + c].conj()).sum();
            r1 += (av - uu[r * k + i] * s[i]).norm_sqr();
        }
        let mut r2 = 0.0;
        for c in 0..n {
            let au: c64 = (0..m).map(|r| ad[r * n + c].conj() * uu[r * k + i]).sum();
            r2 += (au - vv[i * n + c].conj() * s[i]).norm_sqr();
        }
        // a zero singular value's u is any unit vector orthogonal to the others (as SciPy's):
        // only A v = 0 is checked for it
        res = res.max(r1.sqrt());
        if s[i] > 1e-7 {
            res = res.max(r2.sqrt());
        }
        for j in 0..k {
            let want = if i == j { 1.0 } else { 0.0 };
            let du: c64 = (0..m).map(|r| uu[r * k + i].conj() * uu[r * k + j]).sum();
            let dv: c64 = (0..n).map(|c| vv[i * n + c] * vv[j * n + c].conj()).sum();
            orth = orth.max((du - want).norm()).max((dv - want).norm());
        }
    }
    (res, orth)
}

#[test]
fn svds_matches_scipy_largest_smallest_and_transposed() {
    for dev in devices() {
        let a = golden_matrix(&dev);
        let at = a.transpose().tocsr().unwrap();
        for (mat, k, which, key) in [
            (&a, 4, Which::LM, "svds_lm"),
            (&a, 3, Which::SM, "svds_sm"),
            (&at, 4, Which::LM, "svds_lm_t"),
        ] {
            let want = load::<f64>(key, &Device::Cpu).to_vec().unwrap();
            let r = svds(
                mat,
                k,
                &SvdsOptions {
                    which,
                    ..Default::default()
                },
            )
            .unwrap();
            for (g, w) in r.s.iter().zip(&want) {
                assert!((g - w).abs() < 1e-10, "{dev} {key}: {:?} vs {want:?}", r.s);
            }
            let (res, orth) =
                check_triplets(mat, r.u.as_ref().unwrap(), &r.s, r.vh.as_ref().unwrap());
            assert!(res < 1e-9 && orth < 1e-12, "{dev} {key}: {res} {orth}");
            assert_eq!(r.u.as_ref().unwrap().device(), &dev);
        }
    }
}

#[test]
fn svds_vector_choices_rank_deficiency_and_complex() {
    for dev in devices() {
        let a = golden_matrix(&dev);
        let both = svds(&a, 3, &SvdsOptions::default()).unwrap();
        for (choice, has_u, has_vh) in [
            (SingularVectors::U, true, false),
            (SingularVectors::Vh, false, true),
            (SingularVectors::None, false, false),
        ] {
            let r = svds(
                &a,
                3,
                &SvdsOptions {
                    return_singular_vectors: choice,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(
                (r.u.is_some(), r.vh.is_some()),
                (has_u, has_vh),
                "{choice:?}"
            );
            for (g, w) in r.s.iter().zip(&both.s) {
                assert!((g - w).abs() < 1e-12);
            }
        }
        // a zero singular value: the smallest triplets of an 8 x 6 diagonal with a zero
        let d = diags::<f64>(&[&[3.0, 0.0, 1.0, 4.0, 2.0, 5.0]], &[0], Some((8, 6)), &dev).unwrap();
        let r = svds(
            &d,
            2,
            &SvdsOptions {
                which: Which::SM,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(
            r.s[0].abs() < 1e-7 && (r.s[1] - 1.0).abs() < 1e-10,
            "{dev}: {:?}",
            r.s
        );
        let (res, orth) = check_triplets(&d, r.u.as_ref().unwrap(), &r.s, r.vh.as_ref().unwrap());
        assert!(res < 1e-7 && orth < 1e-12, "{dev}: {res} {orth}");
        // complex 30 x 12, against faer's dense SVD
        let vals: Vec<c64> = randn_vec::<c64>(30 * 12, 9)
            .into_iter()
            .enumerate()
            .map(|(i, v)| if i % 3 == 0 { v } else { c64::new(0.0, 0.0) })
            .collect();
        let m = faer::Mat::<c64>::from_fn(30, 12, |i, j| vals[i * 12 + j]);
        let mut ref_s: Vec<f64> = m.singular_values().unwrap();
        ref_s.sort_by(f64::total_cmp);
        let c = CsrMatrix::from_dense(&Array::from_vec(vals, &[30, 12], &dev).unwrap()).unwrap();
        let r = svds(&c, 3, &SvdsOptions::default()).unwrap();
        for (g, w) in r.s.iter().zip(&ref_s[9..]) {
            assert!(
                (g - w).abs() < 1e-10,
                "{dev} complex: {:?} vs {:?}",
                r.s,
                &ref_s[9..]
            );
        }
        let (res, orth) = check_triplets(&c, r.u.as_ref().unwrap(), &r.s, r.vh.as_ref().unwrap());
        assert!(res < 1e-9 && orth < 1e-12, "{dev} complex: {res} {orth}");
        // f32: values to single precision
        let a32 = CsrMatrix::<f32>::new(
            load::<f64>("s_data", &dev).astype::<f32>().unwrap(),
            load("s_indices", &dev),
            load("s_indptr", &dev),
            (40, 25),
        )
        .unwrap();
        let r = svds(
            &a32,
            2,
            &SvdsOptions {
                tol: 1e-5,
                ..Default::default()
            },
        )
        .unwrap();
        let want = load::<f64>("svds_lm", &Device::Cpu).to_vec().unwrap();
        for (g, w) in r.s.iter().zip(&want[2..]) {
            assert!((g - w).abs() < 1e-4, "{dev} f32: {:?}", r.s);
        }
    }
}

#[test]
fn svds_bad_input_gives_typed_errors() {
    for dev in devices() {
        let a = golden_matrix(&dev);
        let o = SvdsOptions::default();
        assert!(matches!(
            svds(&a, 0, &o),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            svds(&a, 25, &o),
            Err(Error::InvalidArgument { .. })
        ));
        let la = SvdsOptions {
            which: Which::LA,
            ..Default::default()
        };
        assert!(matches!(
            svds(&a, 2, &la),
            Err(Error::InvalidArgument { .. })
        ));
        let v = Array::<f64>::ones(&[40], &dev).unwrap();
        let bad_v0 = SvdsOptions {
            v0: Some(&v),
            ..Default::default()
        };
        assert!(matches!(
            svds(&a, 2, &bad_v0),
            Err(Error::ShapeMismatch { .. })
        ));
        let hard = SvdsOptions {
            which: Which::SM,
            ncv: Some(4),
            maxiter: Some(1),
            ..Default::default()
        };
        assert!(matches!(
            svds(&a, 2, &hard),
            Err(Error::NoConvergence { ref op, .. }) if op == "svds"
        ));
    }
}

// ================================================================================= lobpcg

/// The 1-D Laplacian tridiag(-1, 2, -1) of size n and its exact spectrum (ascending).
fn laplacian_1d(n: usize, dev: &Device) -> (CsrMatrix<f64>, Vec<f64>) {
    let a = diags::<f64>(
        &[&vec![2.0; n], &vec![-1.0; n - 1], &vec![-1.0; n - 1]],
        &[0, -1, 1],
        None,
        dev,
    )
    .unwrap();
    let w = (1..=n)
        .map(|j| 2.0 - 2.0 * (j as f64 * std::f64::consts::PI / (n + 1) as f64).cos())
        .collect();
    (a, w)
}

#[test]
fn lobpcg_laplacian_largest_and_smallest_against_the_exact_spectrum() {
    let k = 10;
    let ex = spectrum(k);
    let n = k * k;
    for dev in devices() {
        let a = laplacian::<f64>(k, &dev);
        let x = cusci_core::testing::randn::<f64>(&[n, 3], 5, &dev).unwrap();
        for largest in [true, false] {
            let r = lobpcg(
                &a,
                &x,
                &LobpcgOptions {
                    tol: Some(1e-9),
                    maxiter: 400,
                    largest,
                    ..Default::default()
                },
            )
            .unwrap();
            let want: Vec<f64> = if largest {
                ex.iter().rev().take(3).copied().collect()
            } else {
                ex[..3].to_vec()
            };
            for (g, w) in r.w.iter().zip(&want) {
                assert!(
                    (g - w).abs() < 1e-9,
                    "{dev} largest={largest}: {:?} vs {want:?}",
                    r.w
                );
            }
            assert!(
                r.residual_norms.iter().all(|&v| v <= 1e-8),
                "{:?}",
                r.residual_norms
            );
            let (res, orth) = check_pairs(&a, &r.w, &r.v);
            assert!(res < 1e-8 && orth < 1e-10, "{dev}: {res} {orth}");
            assert_eq!(r.v.device(), &dev);
        }
    }
}

#[test]
fn lobpcg_identity_converges_at_once() {
    for dev in devices() {
        let e = diags::<f64>(&[&[1.0; 60]], &[0], None, &dev).unwrap();
        let x = cusci_core::testing::randn::<f64>(&[60, 4], 2, &dev).unwrap();
        let r = lobpcg(&e, &x, &LobpcgOptions::default()).unwrap();
        assert_eq!(r.iterations, 0);
        for w in &r.w {
            assert!((w - 1.0).abs() < 1e-13, "{dev}: {:?}", r.w);
        }
        let (res, orth) = check_pairs(&e, &r.w, &r.v);
        assert!(res < 1e-12 && orth < 1e-12, "{dev}: {res} {orth}");
    }
}

#[test]
fn lobpcg_generalized_problem_matches_scipy() {
    for dev in devices() {
        let a = laplacian::<f64>(12, &dev);
        let bd = load::<f64>("gen_bdiag", &Device::Cpu).to_vec().unwrap();
        let b = diags::<f64>(&[&bd], &[0], None, &dev).unwrap();
        let x = load::<f64>("lobpcg_x", &dev);
        for (largest, key, eig) in [
            (true, "lobpcg_largest", "eigh_largest"),
            (false, "lobpcg_smallest", "eigh_smallest"),
        ] {
            let r = lobpcg(
                &a,
                &x,
                &LobpcgOptions {
                    b: Some(&b),
                    tol: Some(1e-9),
                    maxiter: 500,
                    largest,
                    ..Default::default()
                },
            )
            .unwrap();
            let sc = load::<f64>(key, &Device::Cpu).to_vec().unwrap();
            let ex = load::<f64>(eig, &Device::Cpu).to_vec().unwrap();
            for ((g, s), e) in r.w.iter().zip(&sc).zip(&ex) {
                assert!(
                    (g - e).abs() < 1e-9 && (g - s).abs() < 1e-8,
                    "{dev}: {:?} {sc:?}",
                    r.w
                );
            }
            // B-orthonormal vectors, A v = w B v
            let v = r.v.to_vec().unwrap();
            let (ad, n, _) = dense(&a);
            for i in 0..3 {
                let col: Vec<f64> = (0..n).map(|rw| v[rw * 3 + i]).collect();
                let res: f64 = (0..n)
                    .map(|rw| {
                        let av: f64 = (0..n).map(|c| ad[rw * n + c].re * col[c]).sum();
                        (av - r.w[i] * bd[rw] * col[rw]).powi(2)
                    })
                    .sum::<f64>()
                    .sqrt();
                assert!(res < 1e-8, "{dev}: residual {res}");
                for j in 0..3 {
                    let d: f64 = (0..n)
                        .map(|rw| v[rw * 3 + i] * bd[rw] * v[rw * 3 + j])
                        .sum();
                    assert!((d - if i == j { 1.0 } else { 0.0 }).abs() < 1e-10);
                }
            }
        }
    }
}

#[test]
fn lobpcg_preconditioner_and_constraints() {
    for dev in devices() {
        let (a, w) = laplacian_1d(60, &dev);
        let x = cusci_core::testing::randn::<f64>(&[60, 2], 3, &dev).unwrap();
        let o = LobpcgOptions {
            tol: Some(1e-8),
            maxiter: 500,
            largest: false,
            ..Default::default()
        };
        let plain = lobpcg(&a, &x, &o).unwrap();
        // M = an incomplete factorisation of A (exact here: tridiagonal, no fill)
        let ilu = spilu(&a, &IluOptions::default()).unwrap();
        let pre = lobpcg(&a, &x, &LobpcgOptions { m: Some(&ilu), ..o }).unwrap();
        for r in [&plain, &pre] {
            for (g, e) in r.w.iter().zip(&w[..2]) {
                assert!((g - e).abs() < 1e-10, "{dev}: {:?}", r.w);
            }
        }
        assert!(
            pre.iterations * 3 < plain.iterations,
            "{dev}: {} vs {}",
            pre.iterations,
            plain.iterations
        );
        // constraint: the exact first eigenvector; the next two eigenvalues come out
        let y: Vec<f64> = (1..=60)
            .map(|i| (i as f64 * std::f64::consts::PI / 61.0).sin())
            .collect();
        let y = Array::from_vec(y, &[60, 1], &dev).unwrap();
        let r = lobpcg(
            &a,
            &x,
            &LobpcgOptions {
                y: Some(&y),
                m: Some(&ilu),
                ..o
            },
        )
        .unwrap();
        for (g, e) in r.w.iter().zip(&w[1..3]) {
            assert!(
                (g - e).abs() < 1e-10,
                "{dev} constrained: {:?} vs {:?}",
                r.w,
                &w[1..3]
            );
        }
        let yv = y.to_vec().unwrap();
        let v = r.v.to_vec().unwrap();
        for i in 0..2 {
            let d: f64 = (0..60).map(|rw| yv[rw] * v[rw * 2 + i]).sum();
            assert!(d.abs() < 1e-10, "{dev}: not orthogonal to Y: {d}");
        }
    }
}

#[test]
fn lobpcg_dense_path_complex_and_errors() {
    for dev in devices() {
        // n < 5k: SciPy's dense path
        let (a, w) = laplacian_1d(10, &dev);
        let x = cusci_core::testing::randn::<f64>(&[10, 3], 4, &dev).unwrap();
        let r = lobpcg(&a, &x, &LobpcgOptions::default()).unwrap();
        let want: Vec<f64> = w.iter().rev().take(3).copied().collect();
        for (g, e) in r.w.iter().zip(&want) {
            assert!((g - e).abs() < 1e-12, "{dev} dense: {:?}", r.w);
        }
        let (res, orth) = check_pairs(&a, &r.w, &r.v);
        assert!(res < 1e-12 && orth < 1e-12);
        let y = Array::<f64>::ones(&[10, 1], &dev).unwrap();
        assert!(matches!(
            lobpcg(
                &a,
                &x,
                &LobpcgOptions {
                    y: Some(&y),
                    ..Default::default()
                }
            ),
            Err(Error::NotImplemented { .. })
        ));
        // complex Hermitian: the same values as eigsh
        let n = 60;
        let d: Vec<c64> = (0..n)
            .map(|i| c64::new((i as f64 * 0.37).sin() * 3.0, 0.0))
            .collect();
        let up: Vec<c64> = randn_vec::<c64>(n - 1, 4);
        let lo: Vec<c64> = up.iter().map(|v| v.conj()).collect();
        let h = diags(&[&d, &up, &lo], &[0, 1, -1], None, &dev).unwrap();
        let e = eigsh(
            &h,
            2,
            &EigshOptions {
                which: Which::LA,
                ..Default::default()
            },
        )
        .unwrap();
        let xc = cusci_core::testing::randn::<c64>(&[n, 2], 6, &dev).unwrap();
        let r = lobpcg(
            &h,
            &xc,
            &LobpcgOptions {
                tol: Some(1e-9),
                maxiter: 500,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(
            (r.w[0] - e.w[1]).abs() < 1e-9 && (r.w[1] - e.w[0]).abs() < 1e-9,
            "{dev}: {:?} {:?}",
            r.w,
            e.w
        );
        let (res, orth) = check_pairs(&h, &r.w, &r.v);
        assert!(res < 1e-8 && orth < 1e-10, "{dev} complex: {res} {orth}");
        // errors
        let big = laplacian::<f64>(10, &dev);
        let xb = cusci_core::testing::randn::<f64>(&[100, 3], 5, &dev).unwrap();
        assert!(matches!(
            lobpcg(
                &big,
                &xb,
                &LobpcgOptions {
                    maxiter: 2,
                    largest: false,
                    tol: Some(1e-10),
                    ..Default::default()
                }
            ),
            Err(Error::NoConvergence { iterations: 2, .. })
        ));
        let flat = Array::<f64>::ones(&[100], &dev).unwrap();
        assert!(matches!(
            lobpcg(&big, &flat, &LobpcgOptions::default()),
            Err(Error::ShapeMismatch { .. })
        ));
        let dup = Array::<f64>::ones(&[100, 2], &dev).unwrap();
        assert!(matches!(
            lobpcg(&big, &dup, &LobpcgOptions::default()),
            Err(Error::InvalidArgument { .. })
        ));
        let x5 = cusci_core::testing::randn::<f64>(&[50, 2], 5, &dev).unwrap();
        assert!(matches!(
            lobpcg(&big, &x5, &LobpcgOptions::default()),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            lobpcg(
                &big,
                &xb,
                &LobpcgOptions {
                    tol: Some(-1.0),
                    ..Default::default()
                }
            ),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
