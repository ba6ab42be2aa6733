//! cusci-sparse against SciPy's own results (`tests/data/scipy_sparse.npz`, written by
//! `tests/golden/gen.py sparse`), on every device.

use cusci_core::npy::load_npz_array;
use cusci_core::testing::{assert_allclose, devices};
use cusci_core::{Array, Device, Element};
use cusci_sparse::linalg::{cg, SolverOptions};
use cusci_sparse::{diags, CooMatrix, CsrMatrix};

const NPZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/scipy_sparse.npz");

fn load<T: Element>(name: &str, dev: &Device) -> Array<T> {
    load_npz_array::<T>(NPZ, name, dev).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn csr(prefix: &str, shape: (usize, usize), dev: &Device) -> CsrMatrix<f64> {
    crate::common::load_csr("scipy_sparse", prefix, shape, dev)
}

fn same(a: &CsrMatrix<f64>, b: &CsrMatrix<f64>, what: &str) {
    assert_eq!(a.shape(), b.shape(), "{what}");
    assert_eq!(
        a.indptr().to_vec().unwrap(),
        b.indptr().to_vec().unwrap(),
        "{what} indptr"
    );
    assert_eq!(
        a.indices().to_vec().unwrap(),
        b.indices().to_vec().unwrap(),
        "{what} indices"
    );
    assert_eq!(
        a.data().to_vec().unwrap(),
        b.data().to_vec().unwrap(),
        "{what} data"
    );
}

#[test]
fn constructions_conversions_products_match_scipy() {
    for dev in devices() {
        let coo = CooMatrix::new(
            load("val", &dev),
            load("row", &dev),
            load("col", &dev),
            (9, 7),
        )
        .unwrap();
        let want = csr("csr", (9, 7), &dev);
        let a = coo.tocsr().unwrap();
        same(&a, &want, "coo.tocsr()");
        same(
            &a.transpose().tocsr().unwrap(),
            &csr("t", (7, 9), &dev),
            "A.T.tocsr()",
        );
        let y = a.dot(&load("x", &dev)).unwrap();
        assert_allclose(
            &y.to_device(&Device::Cpu).unwrap(),
            &load::<f64>("spmv", &Device::Cpu),
            1e-13,
            1e-13,
            "spmv",
        );
        let ym = a.dot(&load("xm", &dev)).unwrap();
        assert_allclose(
            &ym.to_device(&Device::Cpu).unwrap(),
            &load::<f64>("spmm", &Device::Cpu),
            1e-13,
            1e-13,
            "spmm",
        );
        let d = diags::<f64>(
            &[
                &[1.0, 2.0, 3.0, 4.0, 5.0],
                &[-1.0, -2.0, -3.0, -4.0],
                &[7.0],
            ],
            &[0, -1, 2],
            Some((5, 6)),
            &dev,
        )
        .unwrap();
        same(&d, &csr("diags", (5, 6), &dev), "diags");
        let b2 = csr("b2", (7, 5), &dev);
        same(&a.matmul(&b2).unwrap(), &csr("prod", (9, 5), &dev), "A @ B");
    }
}

#[test]
fn cg_matches_scipy_on_poisson() {
    let k = 16;
    let n = k * k;
    let side: Vec<f64> = (0..n - 1)
        .map(|i| if (i + 1) % k == 0 { 0.0 } else { -1.0 })
        .collect();
    let want_its = load::<i64>("cg_iterations", &Device::Cpu).to_vec().unwrap()[0] as usize;
    assert_eq!(load::<i64>("cg_info", &Device::Cpu).to_vec().unwrap()[0], 0);
    for dev in devices() {
        let a = diags::<f64>(
            &[
                &vec![4.0; n],
                &side,
                &side,
                &vec![-1.0; n - k],
                &vec![-1.0; n - k],
            ],
            &[0, -1, 1, -(k as isize), k as isize],
            None,
            &dev,
        )
        .unwrap();
        let s = cg(
            &a,
            &load("cg_b", &dev),
            &SolverOptions {
                rtol: 1e-8,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(s.info, 0);
        assert!(
            s.iterations.abs_diff(want_its) <= 1,
            "{} iterations, SciPy {want_its}",
            s.iterations
        );
        assert_allclose(
            &s.x.to_device(&Device::Cpu).unwrap(),
            &load::<f64>("cg_x", &Device::Cpu),
            1e-7,
            1e-9,
            "cg x",
        );
    }
}
