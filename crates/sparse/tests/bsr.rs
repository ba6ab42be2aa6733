//! `BsrMatrix` (bsr_array): SciPy's `tocsr` and products of a SciPy-written BSR file, `tobsr`
//! against a dense oracle on block and matrix sizes around the edges, the GPU against the CPU,
//! and the errors. Also the host builders (`LilMatrix`, `DokMatrix`) and the array-API names
//! (`eye_array`, `block_array`, `rand`).

use cusci_core::npy::load_npz_array;
use cusci_core::testing::{assert_allclose, devices, randn_vec};
use cusci_core::{c64, Array, Device, Element, Error};
use cusci_sparse::linalg::LinearOperator;
use cusci_sparse::{
    block_array, bmat, eye, eye_array, identity, load_npz, rand, random, BsrMatrix, CsrMatrix,
    DokMatrix, LilMatrix, SparseMatrix,
};

fn data(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn expect<T: Element>(name: &str) -> Array<T> {
    load_npz_array::<T>(data("scipy_io_expect.npz"), name, &Device::Cpu)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn host<T: Element>(a: &Array<T>) -> Vec<T> {
    a.to_vec().unwrap()
}

#[test]
fn bsr_matches_scipy() {
    for dev in devices() {
        let SparseMatrix::Bsr(b) = load_npz::<f64>(data("scipy_io_bsr.npz"), &dev).unwrap() else {
            panic!("not bsr")
        };
        assert_eq!(b.nblocks() as i64, host(&expect::<i64>("bsr_nblocks"))[0]);
        assert_eq!(b.nnz(), b.nblocks() * 6);
        let c = b.tocsr().unwrap();
        assert_eq!(host(c.indptr()), host(&expect::<i32>("bsr_csr_indptr")));
        assert_eq!(host(c.indices()), host(&expect::<i32>("bsr_csr_indices")));
        assert_eq!(host(c.data()), host(&expect::<f64>("bsr_csr_data")));
        let x = expect::<f64>("bsr_x").to_device(&dev).unwrap();
        let y = b.dot(&x).unwrap().to_device(&Device::Cpu).unwrap();
        assert_allclose(&y, &expect::<f64>("bsr_spmv"), 1e-13, 1e-13, "bsr spmv");
        let xm = Array::from_vec(
            host(&expect::<f64>("bsr_x"))
                .iter()
                .flat_map(|&v| [v, 2.0 * v])
                .collect(),
            &[9, 2],
            &dev,
        )
        .unwrap();
        let ym = b.dot(&xm).unwrap().to_device(&Device::Cpu).unwrap();
        assert_allclose(&ym, &expect::<f64>("bsr_spmm"), 1e-13, 1e-13, "bsr spmm");
        // the operator of the solvers
        let yo = b.matvec(&x).unwrap().to_device(&Device::Cpu).unwrap();
        assert_allclose(&yo, &expect::<f64>("bsr_spmv"), 1e-13, 1e-13, "matvec");
        let yr = b.rmatvec(&b.dot(&x).unwrap()).unwrap();
        let want = c.transpose().dot(&c.dot(&x).unwrap()).unwrap();
        assert_allclose(
            &yr.to_device(&Device::Cpu).unwrap(),
            &want.to_device(&Device::Cpu).unwrap(),
            1e-13,
            1e-13,
            "rmatvec",
        );
    }
}

/// A dense (m, n) matrix with about a third of its entries nonzero and some whole blocks empty.
fn sample(m: usize, n: usize, seed: u64) -> Vec<f64> {
    let v: Vec<f64> = randn_vec(m * n, seed);
    v.iter()
        .enumerate()
        .map(|(k, &x)| if x > 0.45 || (k / n) % 3 == 1 { 0.0 } else { x })
        .collect()
}

/// The blocks of the dense matrix that hold a nonzero (the oracle of `tobsr`'s structure).
fn oracle_blocks(d: &[f64], (m, n): (usize, usize), (r, c): (usize, usize)) -> Vec<Vec<usize>> {
    (0..m / r)
        .map(|i| {
            (0..n / c)
                .filter(|&j| (0..r).any(|a| (0..c).any(|b| d[(i * r + a) * n + j * c + b] != 0.0)))
                .collect()
        })
        .collect()
}

#[test]
fn tobsr_and_back_on_edge_sizes() {
    let cases = [
        ((0, 0), (1, 1)),
        ((0, 6), (2, 3)),
        ((3, 0), (3, 1)),
        ((1, 1), (1, 1)),
        ((6, 9), (2, 3)),
        ((9, 6), (3, 2)),
        ((33, 32), (11, 4)),
        ((32, 33), (1, 33)),
        ((64, 64), (4, 4)),
        ((35, 35), (5, 7)),
    ];
    for (k, &((m, n), bs)) in cases.iter().enumerate() {
        let d = sample(m, n, 100 + k as u64);
        let blocks = oracle_blocks(&d, (m, n), bs);
        let nb: usize = blocks.iter().map(Vec::len).sum();
        let mut cpu: Option<BsrMatrix<f64>> = None;
        for dev in devices() {
            let what = format!("{m}x{n} blocks {bs:?} on {dev:?}");
            let a = Array::from_vec(d.clone(), &[m, n], &dev).unwrap();
            let b = BsrMatrix::<f64>::from_dense(&a, bs).unwrap();
            assert_eq!(b.blocksize(), bs, "{what}");
            assert_eq!(b.nblocks(), nb, "{what}");
            assert!(b.has_canonical_format());
            let ip = host(b.indptr());
            let ind = host(b.indices());
            for (i, want) in blocks.iter().enumerate() {
                let got: Vec<usize> = ind[ip[i] as usize..ip[i + 1] as usize]
                    .iter()
                    .map(|&v| v as usize)
                    .collect();
                assert_eq!(&got, want, "{what} block row {i}");
            }
            assert_eq!(host(&b.toarray().unwrap()), d, "{what} toarray");
            let c = b.tocsr().unwrap();
            assert_eq!(c.nnz(), nb * bs.0 * bs.1, "{what}");
            assert!(c.has_canonical_format(), "{what}");
            assert_eq!(host(&b.tocsc().unwrap().toarray().unwrap()), d, "{what}");
            assert_eq!(host(&b.tocoo().unwrap().toarray().unwrap()), d, "{what}");
            // SpMV and SpMM against the dense product
            let x: Vec<f64> = randn_vec(n, 7);
            let y = host(
                &b.dot(&Array::from_vec(x.clone(), &[n], &dev).unwrap())
                    .unwrap(),
            );
            let yd: Vec<f64> = (0..m)
                .map(|i| (0..n).map(|j| d[i * n + j] * x[j]).sum())
                .collect();
            assert_allclose(
                &Array::from_vec(y, &[m], &Device::Cpu).unwrap(),
                &Array::from_vec(yd, &[m], &Device::Cpu).unwrap(),
                1e-12,
                1e-12,
                &what,
            );
            let xm = Array::from_vec(randn_vec::<f64>(n * 3, 8), &[n, 3], &dev).unwrap();
            let ym = b.dot(&xm).unwrap();
            assert_eq!(ym.shape(), &[m, 3]);
            // the GPU gives the CPU's structure and values exactly
            match &cpu {
                None => cpu = Some(b.clone()),
                Some(h) => {
                    assert_eq!(host(b.indptr()), host(h.indptr()), "{what}");
                    assert_eq!(host(b.indices()), host(h.indices()), "{what}");
                    assert_eq!(host(b.data()), host(h.data()), "{what}");
                    assert_eq!(
                        host(b.tocsr().unwrap().data()),
                        host(h.tocsr().unwrap().data()),
                        "{what}"
                    );
                }
            }
        }
    }
}

#[test]
fn tobsr_sums_duplicates_keeps_explicit_zeros_and_takes_i64_and_complex() {
    for dev in devices() {
        // (0,0) twice, an explicit zero at (3,3)
        let coo = cusci_sparse::CooMatrix::new(
            Array::from_vec(vec![1.0f64, 2.0, 0.0, 4.0], &[4], &dev).unwrap(),
            Array::from_vec(vec![0i64, 0, 3, 1], &[4], &dev).unwrap(),
            Array::from_vec(vec![0i64, 0, 3, 2], &[4], &dev).unwrap(),
            (4, 4),
        )
        .unwrap();
        // an unsorted CSR with a repeated entry
        let csr = CsrMatrix::<f64, i64>::new(
            Array::from_vec(vec![2.0, 1.0, 4.0, 0.0], &[4], &dev).unwrap(),
            Array::from_vec(vec![0i64, 0, 2, 3], &[4], &dev).unwrap(),
            Array::from_vec(vec![0i64, 2, 3, 3, 4], &[5], &dev).unwrap(),
            (4, 4),
        )
        .unwrap();
        for a in [coo.tocsr().unwrap(), csr] {
            let b = a.tobsr((2, 2)).unwrap();
            assert_eq!(b.nblocks(), 3, "the block of the explicit zero is stored");
            assert_eq!(
                host(&b.toarray().unwrap()),
                vec![
                    3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
                ]
            );
            assert_eq!(host(b.indptr()), vec![0i64, 2, 3]);
        }
        let z = Array::from_vec(
            (0..12)
                .map(|k| c64::new(k as f64 % 3.0, -(k as f64)))
                .collect(),
            &[3, 4],
            &dev,
        )
        .unwrap();
        let b = BsrMatrix::<c64>::from_dense(&z, (3, 2)).unwrap();
        assert_eq!(host(&b.toarray().unwrap()), host(&z));
        let b64 = b.with_index::<i64>().unwrap();
        assert_eq!(host(&b64.tocsr().unwrap().toarray().unwrap()), host(&z));
    }
}

#[test]
fn bsr_errors() {
    for dev in devices() {
        let arr = |v: Vec<i32>| {
            let n = v.len();
            Array::from_vec(v, &[n], &dev).unwrap()
        };
        let blocks = |nb: usize, r: usize, c: usize| Array::<f64>::ones(&[nb, r, c], &dev).unwrap();
        let arg = |r: cusci_sparse::Result<BsrMatrix<f64>>| {
            assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}")
        };
        let shp = |r: cusci_sparse::Result<BsrMatrix<f64>>| {
            assert!(matches!(r, Err(Error::ShapeMismatch { .. })), "{r:?}")
        };
        // zero block dimension, shape not a multiple of the blocksize
        arg(BsrMatrix::new(
            blocks(0, 0, 2),
            arr(vec![]),
            arr(vec![0, 0]),
            (0, 4),
        ));
        arg(BsrMatrix::new(
            blocks(1, 2, 2),
            arr(vec![0]),
            arr(vec![0, 1]),
            (2, 3),
        ));
        // indptr: wrong length, not ending at nblocks, a block column out of bounds
        shp(BsrMatrix::new(
            blocks(1, 2, 2),
            arr(vec![0]),
            arr(vec![0, 1, 1]),
            (2, 4),
        ));
        arg(BsrMatrix::new(
            blocks(1, 2, 2),
            arr(vec![0]),
            arr(vec![0, 0]),
            (2, 4),
        ));
        arg(BsrMatrix::new(
            blocks(1, 2, 2),
            arr(vec![2]),
            arr(vec![0, 1]),
            (2, 4),
        ));
        // data not 3-D, indices of another length
        shp(BsrMatrix::new(
            Array::<f64>::ones(&[4], &dev).unwrap(),
            arr(vec![0]),
            arr(vec![0, 1]),
            (2, 4),
        ));
        shp(BsrMatrix::new(
            blocks(1, 2, 2),
            arr(vec![0, 1]),
            arr(vec![0, 1]),
            (2, 4),
        ));
        // tobsr with a bad blocksize; dot of a wrong length
        let e = eye::<f64>(4, 6, 0, &dev).unwrap();
        assert!(matches!(
            e.tobsr((0, 1)),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            e.tobsr((3, 3)),
            Err(Error::InvalidArgument { .. })
        ));
        let b = e.tobsr((2, 3)).unwrap();
        assert!(matches!(
            b.dot(&Array::<f64>::ones(&[4], &dev).unwrap()),
            Err(Error::ShapeMismatch { .. })
        ));
        // unsorted block columns are accepted and flagged
        let u = BsrMatrix::new(blocks(2, 1, 1), arr(vec![1, 0]), arr(vec![0, 2]), (1, 2)).unwrap();
        assert!(!u.has_canonical_format());
        assert_eq!(host(&u.toarray().unwrap()), vec![1.0, 1.0]);
    }
}

#[test]
fn lil_and_dok_build_on_the_host_and_convert_on_every_device() {
    let (m, n) = (7, 33);
    let d = sample(m, n, 5);
    let mut lil = LilMatrix::<f64>::new((m, n));
    let mut dok = DokMatrix::<f64>::new((m, n));
    // fill in a scattered order, overwrite some, then zero some out
    for k in (0..m * n).rev().step_by(1) {
        let (i, j) = ((k * 5) % m, (k * 11) % n);
        let v = d[i * n + j];
        lil.set(i as isize, j as isize, v + 1.0).unwrap();
        dok.set(i as isize, j as isize, v + 1.0).unwrap();
    }
    for i in 0..m {
        for j in 0..n {
            let v = d[i * n + j];
            lil.set(i as isize, j as isize, v).unwrap();
            dok.set(-((m - i) as isize), j as isize, v).unwrap();
        }
    }
    let nnz = d.iter().filter(|&&v| v != 0.0).count();
    assert_eq!(lil.nnz(), nnz);
    assert_eq!(dok.nnz(), nnz);
    assert_eq!(lil.get(2, -1).unwrap(), d[2 * n + n - 1]);
    assert_eq!(dok.get(-1, 0).unwrap(), d[(m - 1) * n]);
    let (cols, vals) = lil.row(0).unwrap();
    let want: Vec<(usize, f64)> = (0..n).filter(|&j| d[j] != 0.0).map(|j| (j, d[j])).collect();
    assert_eq!(cols, want.iter().map(|e| e.0).collect::<Vec<_>>());
    assert_eq!(vals, want.iter().map(|e| e.1).collect::<Vec<_>>());
    assert_eq!(dok.keys().len(), nnz);
    for dev in devices() {
        for c in [lil.tocsr(&dev).unwrap(), dok.tocsr(&dev).unwrap()] {
            assert!(c.has_canonical_format());
            assert_eq!(c.nnz(), nnz);
            assert_eq!(host(&c.toarray().unwrap()), d);
        }
        assert_eq!(host(&lil.tocoo(&dev).unwrap().toarray().unwrap()), d);
        assert_eq!(host(&dok.toarray(&dev).unwrap()), d);
        // back from a matrix on the device: the same builders
        let c = lil.tocsr(&dev).unwrap();
        assert_eq!(c.tolil().unwrap(), lil);
        assert_eq!(c.todok().unwrap(), dok);
    }
    // set_row, removing by zero, errors
    let mut l = LilMatrix::<c64>::new((2, 3));
    l.set_row(
        1,
        &[c64::new(0.0, 0.0), c64::new(1.0, 1.0), c64::new(2.0, 0.0)],
    )
    .unwrap();
    assert_eq!(l.nnz(), 2);
    l.set(1, 1, c64::new(0.0, 0.0)).unwrap();
    assert_eq!(l.nnz(), 1);
    assert!(matches!(
        l.set(2, 0, c64::new(1.0, 0.0)),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(l.get(0, -4), Err(Error::InvalidArgument { .. })));
    assert!(matches!(
        l.set_row(0, &[c64::new(1.0, 0.0)]),
        Err(Error::ShapeMismatch { .. })
    ));
    let mut k = DokMatrix::<f32>::new((0, 2));
    assert!(matches!(
        k.set(0, 0, 1.0),
        Err(Error::InvalidArgument { .. })
    ));
    assert_eq!(k.tocsr(&Device::Cpu).unwrap().shape(), (0, 2));
}

#[test]
fn array_api_names_are_the_matrix_functions() {
    for dev in devices() {
        let a = eye_array::<f64>(4, Some(3), 1, &dev).unwrap();
        assert_eq!(
            host(&a.toarray().unwrap()),
            host(&eye::<f64>(4, 3, 1, &dev).unwrap().toarray().unwrap())
        );
        assert_eq!(eye_array::<f64>(5, None, 0, &dev).unwrap().shape(), (5, 5));
        let i = identity::<f64>(2, &dev).unwrap();
        let g = vec![vec![Some(&i), None], vec![None, Some(&i)]];
        assert_eq!(
            host(&block_array(&g).unwrap().toarray().unwrap()),
            host(&bmat(&g).unwrap().toarray().unwrap())
        );
        let r = rand::<f32>(9, 13, 0.3, 42, &dev).unwrap();
        let s = random::<f32>(9, 13, 0.3, 42, &Device::Cpu).unwrap();
        assert_eq!(host(&r.toarray().unwrap()), host(&s.toarray().unwrap()));
    }
}
