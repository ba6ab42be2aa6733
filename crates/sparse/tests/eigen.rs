//! eigsh: the 2-D Laplacian's known spectrum for every `which`, the identity (cupy#5024/#6446
//! return wrong values there), a complex Hermitian matrix (residuals, orthonormal vectors), GPU
//! against CPU (the same body on every device), bad input.

use cusci_core::testing::{devices, randn_vec};
use cusci_core::{c64, Array, Device, Error, Float};
use cusci_sparse::linalg::{eigsh, EigshOptions, Which};
use cusci_sparse::{diags, CsrMatrix};

fn laplacian<T: Float>(k: usize, dev: &Device) -> CsrMatrix<T> {
    let n = k * k;
    let f = |v: f64| T::from_c64(c64::new(v, 0.0));
    let main = vec![f(4.0); n];
    let side: Vec<T> = (0..n - 1)
        .map(|i| if (i + 1) % k == 0 { f(0.0) } else { f(-1.0) })
        .collect();
    let vert = vec![f(-1.0); n - k];
    diags(
        &[&main, &side, &side, &vert, &vert],
        &[0, -1, 1, -(k as isize), k as isize],
        None,
        dev,
    )
    .unwrap()
}

/// The exact spectrum of the k x k grid Laplacian, ascending.
fn spectrum(k: usize) -> Vec<f64> {
    let h = std::f64::consts::PI / (k + 1) as f64;
    let mut w: Vec<f64> = (1..=k)
        .flat_map(|i| {
            (1..=k).map(move |j| 4.0 - 2.0 * (i as f64 * h).cos() - 2.0 * (j as f64 * h).cos())
        })
        .collect();
    w.sort_by(f64::total_cmp);
    w
}

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
