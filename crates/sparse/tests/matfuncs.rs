//! expm, inv, expm_multiply, onenormest, spbandwidth, is_sptriangular and LaplacianNd against
//! SciPy (`tests/data/scipy_sparse_matfuncs.npz`, from `tests/golden/gen.py sparse_matfuncs`) on
//! every device; identities (`inv(A) A = I`, `expm_multiply(A, b) = expm(A) b`, the eigenpairs of
//! LaplacianNd); bad input.

use cusci_core::testing::{assert_allclose, devices};
use cusci_core::{c64, Array, Device, Error};
use cusci_sparse::linalg::{
    expm, expm_multiply, inv, is_sptriangular, onenormest, spbandwidth, Boundary,
    ExpmMultiplyOptions, FnOperator, LaplacianNd, LinearOperator, OnenormestOptions,
};
use cusci_sparse::{diags, tril, triu, CsrMatrix};

use crate::common::{load_csr, load_npz};

const FILE: &str = "scipy_sparse_matfuncs";
const N: usize = 12;

fn golden(name: &str) -> Array<f64> {
    load_npz::<f64>(FILE, name, &Device::Cpu)
}

fn cpu<T: cusci_core::Element>(x: &Array<T>) -> Array<T> {
    x.to_device(&Device::Cpu).unwrap()
}

#[test]
fn expm_and_inv_like_scipy() {
    for dev in devices() {
        let m = load_csr(FILE, "m", (N, N), &dev);
        let e = expm(&m).unwrap();
        assert_eq!(e.device(), &dev);
        assert_allclose(
            &cpu(&e.toarray().unwrap()),
            &golden("expm"),
            1e-12,
            1e-13,
            "expm",
        );
        let i = inv(&m).unwrap();
        assert_allclose(
            &cpu(&i.toarray().unwrap()),
            &golden("inv"),
            1e-11,
            1e-12,
            "inv",
        );
        // inv(A) A = I
        let p = cpu(&i.dot(&m.toarray().unwrap()).unwrap());
        let eye: Vec<f64> = (0..N * N)
            .map(|k| if k % (N + 1) == 0 { 1.0 } else { 0.0 })
            .collect();
        assert_allclose(
            &p,
            &Array::from_vec(eye, &[N, N], &Device::Cpu).unwrap(),
            1e-10,
            1e-10,
            "inv A",
        );
    }
}

#[test]
fn expm_multiply_like_scipy() {
    for dev in devices() {
        let m = load_csr(FILE, "m", (N, N), &dev);
        let d = ExpmMultiplyOptions::default();
        let b = load_npz::<f64>(FILE, "b", &dev);
        let bm = load_npz::<f64>(FILE, "bm", &dev);
        let y = expm_multiply(&m, &b, &d).unwrap();
        assert_allclose(
            &cpu(&y),
            &golden("em_b"),
            1e-12,
            1e-13,
            &format!("vector on {dev}"),
        );
        // against expm(A) b
        let e = expm(&m).unwrap();
        assert_allclose(&cpu(&y), &cpu(&e.dot(&b).unwrap()), 1e-12, 1e-13, "expm b");
        let y = expm_multiply(&m, &bm, &d).unwrap();
        assert_eq!(y.shape(), [N, 3]);
        assert_allclose(
            &cpu(&y),
            &golden("em_bm"),
            1e-12,
            1e-13,
            &format!("matrix on {dev}"),
        );
        let big = m.mul_scalar(20.0).unwrap();
        let y = expm_multiply(&big, &b, &d).unwrap();
        assert_allclose(
            &cpu(&y),
            &golden("em_big"),
            1e-10,
            1e-10,
            &format!("big on {dev}"),
        );
        // intervals
        let o = ExpmMultiplyOptions {
            start: Some(0.0),
            stop: Some(1.0),
            num: Some(5),
            endpoint: Some(true),
            ..Default::default()
        };
        let y = expm_multiply(&m, &b, &o).unwrap();
        assert_eq!(y.shape(), [5, N]);
        assert_allclose(
            &cpu(&y),
            &golden("em_int"),
            1e-12,
            1e-13,
            &format!("interval on {dev}"),
        );
        let o = ExpmMultiplyOptions {
            start: Some(0.5),
            stop: Some(2.0),
            num: Some(4),
            endpoint: Some(false),
            ..Default::default()
        };
        let y = expm_multiply(&m, &bm, &o).unwrap();
        assert_eq!(y.shape(), [4, N, 3]);
        assert_allclose(
            &cpu(&y),
            &golden("em_int2"),
            1e-12,
            1e-13,
            &format!("interval 2 on {dev}"),
        );
        // complex
        let mc = CsrMatrix::<c64>::new(
            load_npz(FILE, "mc_data", &dev),
            load_npz(FILE, "mc_indices", &dev),
            load_npz(FILE, "mc_indptr", &dev),
            (N, N),
        )
        .unwrap();
        let y = expm_multiply(
            &mc,
            &load_npz::<c64>(FILE, "bc", &dev),
            &ExpmMultiplyOptions::default(),
        )
        .unwrap();
        assert_allclose(
            &cpu(&y),
            &load_npz::<c64>(FILE, "em_c", &Device::Cpu),
            1e-12,
            1e-13,
            &format!("complex on {dev}"),
        );
    }
}

#[test]
fn expm_multiply_zero_and_f32() {
    for dev in devices() {
        let z = diags::<f64>(&[&[0.0; 5]], &[0], None, &dev).unwrap();
        let b = Array::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0], &[5], &dev).unwrap();
        let y = expm_multiply(&z, &b, &ExpmMultiplyOptions::default()).unwrap();
        assert_eq!(y.to_vec().unwrap(), b.to_vec().unwrap());
        let a = diags::<f32>(&[&[-1.0; 6], &[0.5; 5]], &[0, 1], None, &dev).unwrap();
        let b = Array::from_vec(vec![1.0f32; 6], &[6], &dev).unwrap();
        let y = expm_multiply(&a, &b, &ExpmMultiplyOptions::default()).unwrap();
        let e = expm(&a).unwrap().dot(&b).unwrap();
        assert_allclose(&cpu(&y), &cpu(&e), 1e-5, 1e-6, "f32");
    }
}

#[test]
fn onenormest_is_a_tight_lower_bound() {
    let want = golden("onenorm").to_vec().unwrap();
    for dev in devices() {
        let m = load_csr(FILE, "m", (N, N), &dev);
        let exact = onenormest(&m, &OnenormestOptions { t: N, itmax: 5 }).unwrap();
        assert!((exact.est - want[1]).abs() <= 1e-13 * want[1]);
        // w = A v
        let v: Vec<f64> = exact.v.iter().map(|z| z.re).collect();
        let av = m
            .dot(&Array::from_vec(v, &[N], &dev).unwrap())
            .unwrap()
            .to_vec()
            .unwrap();
        for (p, q) in av.iter().zip(&exact.w) {
            assert!((p - q.re).abs() < 1e-14);
        }
        let est = onenormest(&m, &OnenormestOptions::default()).unwrap().est;
        assert!(
            est <= want[0] * (1.0 + 1e-12) && est >= want[0] / 3.0,
            "{est} vs {}",
            want[0]
        );
        // a matrix whose 1-norm sits in one column: found exactly
        let d = diags::<f64>(
            &[&(1..=30).map(|k| k as f64).collect::<Vec<_>>()],
            &[0],
            None,
            &dev,
        )
        .unwrap();
        assert_eq!(
            onenormest(&d, &OnenormestOptions::default()).unwrap().est,
            30.0
        );
    }
}

#[test]
fn bandwidth_and_triangularity_like_scipy() {
    let want = load_npz::<i64>(FILE, "bands", &Device::Cpu)
        .to_vec()
        .unwrap();
    for dev in devices() {
        let m = load_csr(FILE, "m", (N, N), &dev);
        let ms = [
            m.clone(),
            tril(&m, 0).unwrap(),
            triu(&m, 1).unwrap(),
            diags::<f64>(&[&[1.0; N]], &[0], None, &dev).unwrap(),
        ];
        for (k, x) in ms.iter().enumerate() {
            let (lo, hi) = spbandwidth(x).unwrap();
            let (l, u) = is_sptriangular(x).unwrap();
            assert_eq!(
                [lo as i64, hi as i64, l as i64, u as i64],
                want[4 * k..4 * k + 4],
                "case {k} on {dev}"
            );
        }
        // no stored entries; a rectangular matrix; i64 indices
        let e = CsrMatrix::<f64>::from_dense(&Array::zeros(&[3, 4], &dev).unwrap()).unwrap();
        assert_eq!(spbandwidth(&e).unwrap(), (0, 0));
        assert_eq!(is_sptriangular(&e).unwrap(), (true, true));
        let r = CsrMatrix::<f64, i64>::from_dense_index(
            &Array::from_vec(vec![0.0, 0.0, 0.0, 5.0, 1.0, 0.0, 0.0, 0.0], &[2, 4], &dev).unwrap(),
        )
        .unwrap();
        assert_eq!(spbandwidth(&r).unwrap(), (1, 3));
        assert_eq!(is_sptriangular(&r).unwrap(), (false, false));
    }
}

#[test]
fn laplacian_nd_like_scipy() {
    for dev in devices() {
        for (name, bc) in [
            ("dirichlet", Boundary::Dirichlet),
            ("neumann", Boundary::Neumann),
            ("periodic", Boundary::Periodic),
        ] {
            let l = LaplacianNd::<f64>::new(&[3, 4], bc, &dev).unwrap();
            assert_eq!(l.shape(), (12, 12));
            let dense = golden(&format!("lap_{name}"));
            assert_eq!(
                cpu(&l.toarray().unwrap()).to_vec().unwrap(),
                dense.to_vec().unwrap()
            );
            assert_eq!(
                cpu(&l.tosparse().unwrap().toarray().unwrap())
                    .to_vec()
                    .unwrap(),
                dense.to_vec().unwrap()
            );
            let w = l.eigenvalues(None).unwrap();
            let gw = golden(&format!("lap_{name}_w")).to_vec().unwrap();
            assert!(
                w.iter().zip(&gw).all(|(p, q)| (p - q).abs() < 1e-13),
                "{name}"
            );
            let w3 = l.eigenvalues(Some(3)).unwrap();
            let gw3 = golden(&format!("lap_{name}_w3")).to_vec().unwrap();
            assert!(
                w3.iter().zip(&gw3).all(|(p, q)| (p - q).abs() < 1e-13),
                "{name} m=3"
            );
            // eigenpairs: L v = λ v
            let v = l.eigenvectors(Some(2)).unwrap();
            let w2 = l.eigenvalues(Some(2)).unwrap();
            for c in 0..2 {
                let col = cpu(&v)
                    .to_vec()
                    .unwrap()
                    .chunks(2)
                    .map(|r| r[c])
                    .collect::<Vec<_>>();
                let lv = l
                    .matvec(&Array::from_vec(col.clone(), &[12], &dev).unwrap())
                    .unwrap()
                    .to_vec()
                    .unwrap();
                for (p, q) in lv.iter().zip(&col) {
                    assert!((p - w2[c] * q).abs() < 1e-12, "{name} eigenpair {c}");
                }
            }
            if bc == Boundary::Dirichlet {
                assert_allclose(&cpu(&v), &golden("lap_dirichlet_v2"), 1e-13, 1e-14, "v2");
            }
        }
        // 1-point and 2-point periodic directions, as SciPy builds them
        let l = LaplacianNd::<f64>::new(&[1, 2], Boundary::Periodic, &dev).unwrap();
        assert_eq!(
            cpu(&l.toarray().unwrap()).to_vec().unwrap(),
            vec![-3.0, 2.0, 2.0, -3.0]
        );
    }
}

#[test]
fn bad_input_is_a_typed_error() {
    let dev = Device::Cpu;
    let rect = CsrMatrix::<f64>::from_dense(&Array::from_vec(vec![1.0; 6], &[2, 3], &dev).unwrap())
        .unwrap();
    assert!(matches!(expm(&rect), Err(Error::ShapeMismatch { .. })));
    assert!(matches!(inv(&rect), Err(Error::ShapeMismatch { .. })));
    let b2 = Array::from_vec(vec![1.0; 2], &[2], &dev).unwrap();
    let d = ExpmMultiplyOptions::default();
    assert!(matches!(
        expm_multiply(&rect, &b2, &d),
        Err(Error::ShapeMismatch { .. })
    ));
    let a = diags::<f64>(&[&[1.0; 3]], &[0], None, &dev).unwrap();
    assert!(matches!(
        expm_multiply(&a, &b2, &d),
        Err(Error::ShapeMismatch { .. })
    ));
    let b3 = Array::from_vec(vec![1.0; 3], &[3], &dev).unwrap();
    let only_start = ExpmMultiplyOptions {
        start: Some(0.0),
        ..Default::default()
    };
    assert!(matches!(
        expm_multiply(&a, &b3, &only_start),
        Err(Error::InvalidArgument { .. })
    ));
    let one_point = ExpmMultiplyOptions {
        start: Some(0.0),
        stop: Some(1.0),
        num: Some(1),
        ..Default::default()
    };
    assert!(matches!(
        expm_multiply(&a, &b3, &one_point),
        Err(Error::InvalidArgument { .. })
    ));
    let sing = diags::<f64>(&[&[1.0, 0.0, 1.0]], &[0], None, &dev).unwrap();
    assert!(matches!(inv(&sing), Err(Error::Singular { .. })));
    assert!(matches!(
        onenormest(&rect, &OnenormestOptions::default()),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        onenormest(&a, &OnenormestOptions { t: 0, itmax: 5 }),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        onenormest(&a, &OnenormestOptions { t: 2, itmax: 1 }),
        Err(Error::InvalidArgument { .. })
    ));
    // onenormest needs the adjoint when t < n
    let big = diags::<f64>(&[&[1.0; 8]], &[0], None, &dev).unwrap();
    let no_r = FnOperator::new((8, 8), |x: &Array<f64>| big.matvec(x));
    assert!(matches!(
        onenormest(&no_r, &OnenormestOptions::default()),
        Err(Error::NotImplemented { .. })
    ));
    assert!(matches!(
        LaplacianNd::<f64>::new(&[], Boundary::Neumann, &dev),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        LaplacianNd::<f64>::new(&[3, 0], Boundary::Neumann, &dev),
        Err(Error::InvalidArgument { .. })
    ));
    let l = LaplacianNd::<f64>::new(&[3], Boundary::Neumann, &dev).unwrap();
    assert!(matches!(
        l.eigenvalues(Some(0)),
        Err(Error::InvalidArgument { .. })
    ));
}
