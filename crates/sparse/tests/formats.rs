//! Formats, conversions and products: the CPU against dense oracles, every device against the CPU
//! (bit for bit where the algorithm fixes the order of the sums), edge sizes and bad input.

use cusci_core::testing::{assert_allclose, devices, randn_vec, rtol_for};
use cusci_core::{c32, c64, Array, Device, Error, Float};
use cusci_sparse::{diags, eye, identity, random, CooMatrix, CsrMatrix};

/// Deterministic triplets with many duplicates (and some empty rows when `m` is large).
fn triplets(m: usize, n: usize, nnz: usize, seed: u64) -> (Vec<i32>, Vec<i32>) {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = |k: usize| {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 33) as usize % k.max(1)) as i32
    };
    let mut r = Vec::new();
    let mut c = Vec::new();
    for _ in 0..nnz {
        // rows from the first 2/3 only: the last third stays empty
        r.push(next((2 * m).div_ceil(3)));
        c.push(next(n));
    }
    (r, c)
}

fn dense_of<T: Float>(m: usize, n: usize, r: &[i32], c: &[i32], v: &[T]) -> Vec<T> {
    let mut d = vec![T::zero(); m * n];
    for k in 0..v.len() {
        let i = r[k] as usize * n + c[k] as usize;
        d[i] = d[i].add(v[k]);
    }
    d
}

fn matmul<T: Float>(a: &[T], m: usize, n: usize, x: &[T], k: usize) -> Vec<T> {
    let mut y = vec![T::zero(); m * k];
    for i in 0..m {
        for j in 0..n {
            for l in 0..k {
                y[i * k + l] = y[i * k + l].add(a[i * n + j].mul(x[j * k + l]));
            }
        }
    }
    y
}

fn arr<T: cusci_core::Element>(v: Vec<T>, dev: &Device) -> Array<T> {
    let n = v.len();
    Array::from_vec(v, &[n], dev).unwrap()
}

fn coo<T: Float>(
    m: usize,
    n: usize,
    nnz: usize,
    seed: u64,
    dev: &Device,
) -> (CooMatrix<T>, Vec<T>) {
    let (r, c) = triplets(m, n, nnz, seed);
    let v = randn_vec::<T>(nnz, seed + 1);
    let dense = dense_of(m, n, &r, &c, &v);
    (
        CooMatrix::new(arr(v, dev), arr(r, dev), arr(c, dev), (m, n)).unwrap(),
        dense,
    )
}

const SIZES: [(usize, usize, usize); 8] = [
    (0, 0, 0),
    (1, 1, 1),
    (1, 1, 3),
    (2, 3, 0),
    (31, 33, 200),
    (33, 31, 40),
    (64, 1, 50),
    (257, 129, 3000),
];

fn coo_to_csr_case<T: Float>() {
    for (m, n, nnz) in SIZES {
        let (cpu_coo, dense) = coo::<T>(m, n, nnz, 7 + m as u64, &Device::Cpu);
        let cpu = cpu_coo.tocsr().unwrap();
        assert!(cpu.has_canonical_format());
        // canonical: strictly increasing indices in every row
        let ip = cpu.indptr().to_vec().unwrap();
        let ind = cpu.indices().to_vec().unwrap();
        for r in 0..m {
            for j in ip[r] as usize + 1..ip[r + 1] as usize {
                assert!(ind[j] > ind[j - 1], "row {r} not canonical");
            }
        }
        assert_allclose(
            &cpu.toarray().unwrap(),
            &Array::from_vec(dense.clone(), &[m, n], &Device::Cpu).unwrap(),
            rtol_for::<T>(nnz),
            0.0,
            "coo.tocsr CPU",
        );
        for dev in devices() {
            let (c, _) = coo::<T>(m, n, nnz, 7 + m as u64, &dev);
            let g = c.tocsr().unwrap();
            // the sums of duplicates run in the same order on every device: the same bits
            assert_eq!(g.indptr().to_vec().unwrap(), ip, "{dev} {m}x{n}");
            assert_eq!(g.indices().to_vec().unwrap(), ind, "{dev} {m}x{n}");
            assert_eq!(
                g.data().to_vec().unwrap(),
                cpu.data().to_vec().unwrap(),
                "{dev}"
            );
            assert_eq!(
                g.toarray().unwrap().to_vec().unwrap(),
                cpu.toarray().unwrap().to_vec().unwrap()
            );
            // tocsc of the COO: the transpose's CSR
            let csc = c.tocsc().unwrap();
            assert_eq!(csc.shape(), (m, n));
            assert_allclose(
                &csc.toarray().unwrap().to_device(&Device::Cpu).unwrap(),
                &Array::from_vec(dense.clone(), &[m, n], &Device::Cpu).unwrap(),
                rtol_for::<T>(nnz),
                0.0,
                "coo.tocsc",
            );
        }
    }
}

#[test]
fn coo_to_csr_all_types() {
    coo_to_csr_case::<f64>();
    coo_to_csr_case::<f32>();
    coo_to_csr_case::<c64>();
    coo_to_csr_case::<c32>();
}

fn products_case<T: Float>() {
    for (m, n, nnz) in SIZES {
        for dev in devices() {
            let (c, dense) = coo::<T>(m, n, nnz, 3 + n as u64, &dev);
            let a = c.tocsr().unwrap();
            // SpMV
            let x = randn_vec::<T>(n, 11);
            let y = a.dot(&arr(x.clone(), &dev)).unwrap();
            assert_eq!(y.shape(), &[m]);
            let want = matmul(&dense, m, n, &x, 1);
            assert_allclose(
                &y.to_device(&Device::Cpu).unwrap(),
                &arr(want, &Device::Cpu),
                rtol_for::<T>(n) * 10.0,
                rtol_for::<T>(n),
                &format!("spmv {m}x{n} on {dev}"),
            );
            // SpMM, k = 1, 5 and 0
            for k in [1usize, 5, 0] {
                let xm = randn_vec::<T>(n * k, 12);
                let ym = a
                    .dot(&Array::from_vec(xm.clone(), &[n, k], &dev).unwrap())
                    .unwrap();
                assert_eq!(ym.shape(), &[m, k]);
                let want = matmul(&dense, m, n, &xm, k);
                assert_allclose(
                    &ym.to_device(&Device::Cpu).unwrap(),
                    &Array::from_vec(want, &[m, k], &Device::Cpu).unwrap(),
                    rtol_for::<T>(n) * 10.0,
                    rtol_for::<T>(n),
                    &format!("spmm {m}x{n}x{k} on {dev}"),
                );
            }
            // SpMV through a strided (non-contiguous) x
            if n > 0 {
                let x2 = randn_vec::<T>(2 * n, 13);
                let xs = arr(x2.clone(), &dev).slice_axis(0, None, None, 2).unwrap();
                let xv: Vec<T> = x2.iter().step_by(2).copied().collect();
                let y = a.dot(&xs).unwrap();
                assert_allclose(
                    &y.to_device(&Device::Cpu).unwrap(),
                    &arr(matmul(&dense, m, n, &xv, 1), &Device::Cpu),
                    rtol_for::<T>(n) * 10.0,
                    rtol_for::<T>(n),
                    "spmv strided x",
                );
            }
        }
    }
}

#[test]
fn products_against_dense() {
    products_case::<f64>();
    products_case::<f32>();
    products_case::<c64>();
    products_case::<c32>();
}

fn transpose_case<T: Float>() {
    for (m, n, nnz) in SIZES {
        for dev in devices() {
            let (c, dense) = coo::<T>(m, n, nnz, 5, &dev);
            let a = c.tocsr().unwrap();
            let at = a.transpose().tocsr().unwrap();
            assert_eq!(at.shape(), (n, m));
            assert!(at.has_canonical_format());
            let mut dt = vec![T::zero(); m * n];
            for i in 0..m {
                for j in 0..n {
                    dt[j * m + i] = dense[i * n + j];
                }
            }
            assert_allclose(
                &at.toarray().unwrap().to_device(&Device::Cpu).unwrap(),
                &Array::from_vec(dt, &[n, m], &Device::Cpu).unwrap(),
                rtol_for::<T>(nnz),
                0.0,
                &format!("A.T.tocsr() {m}x{n} on {dev}"),
            );
            // indices sorted within rows of the transpose
            let ip = at.indptr().to_vec().unwrap();
            let ind = at.indices().to_vec().unwrap();
            for r in 0..n {
                for j in ip[r] as usize + 1..ip[r + 1] as usize {
                    assert!(ind[j] > ind[j - 1]);
                }
            }
            // round trips: csr -> csc -> csr, csr -> coo -> csr, dense -> csr
            let back = a.tocsc().unwrap().tocsr().unwrap();
            assert_eq!(
                back.indptr().to_vec().unwrap(),
                a.indptr().to_vec().unwrap()
            );
            assert_eq!(
                back.indices().to_vec().unwrap(),
                a.indices().to_vec().unwrap()
            );
            assert_eq!(back.data().to_vec().unwrap(), a.data().to_vec().unwrap());
            let back = a.tocoo().unwrap().tocsr().unwrap();
            assert_eq!(back.data().to_vec().unwrap(), a.data().to_vec().unwrap());
            let fd = CsrMatrix::from_dense(&a.toarray().unwrap()).unwrap();
            assert_eq!(
                fd.toarray().unwrap().to_vec().unwrap(),
                a.toarray().unwrap().to_vec().unwrap()
            );
            assert!(fd.nnz() <= a.nnz());
        }
    }
}

#[test]
fn transpose_and_round_trips() {
    transpose_case::<f64>();
    transpose_case::<c32>();
}

#[test]
fn conj_and_scalar() {
    for dev in devices() {
        let (c, dense) = coo::<c64>(9, 7, 30, 2, &dev);
        let a = c.tocsr().unwrap();
        let got = a.conj().unwrap().mul_scalar(c64::new(0.0, 2.0)).unwrap();
        let want: Vec<c64> = dense
            .iter()
            .map(|v| v.conj() * c64::new(0.0, 2.0))
            .collect();
        assert_allclose(
            &got.toarray().unwrap().to_device(&Device::Cpu).unwrap(),
            &Array::from_vec(want, &[9, 7], &Device::Cpu).unwrap(),
            1e-14,
            0.0,
            "conj * 2i",
        );
    }
}

fn kind(e: &Error) -> &'static str {
    match e {
        Error::ShapeMismatch { .. } => "shape",
        Error::InvalidArgument { .. } => "arg",
        Error::DeviceMismatch { .. } => "device",
        _ => "other",
    }
}

#[test]
fn invalid_structure_same_errors() {
    for dev in devices() {
        let mk = |d: Vec<f64>, i: Vec<i32>, p: Vec<i32>, s: (usize, usize)| {
            CsrMatrix::new(arr(d, &dev), arr(i, &dev), arr(p, &dev), s)
        };
        // a valid one, with unsorted indices: accepted, not canonical
        let a = mk(vec![1.0, 2.0], vec![2, 0], vec![0, 2, 2], (2, 3)).unwrap();
        assert!(!a.has_canonical_format());
        let s = a.sum_duplicates().unwrap();
        assert!(s.has_canonical_format());
        assert_eq!(s.indices().to_vec().unwrap(), vec![0, 2]);
        // indptr of the wrong length
        let e = mk(vec![1.0], vec![0], vec![0, 1], (2, 2)).unwrap_err();
        assert_eq!(kind(&e), "shape", "{dev}: {e}");
        // data and indices of different lengths
        let e = mk(vec![1.0, 2.0], vec![0], vec![0, 1, 1], (2, 2)).unwrap_err();
        assert_eq!(kind(&e), "shape", "{dev}: {e}");
        // decreasing indptr
        let e = mk(vec![1.0, 2.0], vec![0, 1], vec![0, 2, 1, 2], (3, 2)).unwrap_err();
        assert_eq!(kind(&e), "arg", "{dev}: {e}");
        // indptr not ending at nnz
        let e = mk(vec![1.0, 2.0], vec![0, 1], vec![0, 1, 1], (2, 2)).unwrap_err();
        assert_eq!(kind(&e), "arg", "{dev}: {e}");
        // column out of bounds, negative column
        let e = mk(vec![1.0], vec![2], vec![0, 1, 1], (2, 2)).unwrap_err();
        assert_eq!(kind(&e), "arg", "{dev}: {e}");
        let e = mk(vec![1.0], vec![-1], vec![0, 1, 1], (2, 2)).unwrap_err();
        assert_eq!(kind(&e), "arg", "{dev}: {e}");
        // COO: lengths and bounds
        let e = CooMatrix::new(
            arr(vec![1.0f64], &dev),
            arr(vec![0, 1], &dev),
            arr(vec![0], &dev),
            (2, 2),
        )
        .unwrap_err();
        assert_eq!(kind(&e), "shape");
        let e = CooMatrix::new(
            arr(vec![1.0f64], &dev),
            arr(vec![2], &dev),
            arr(vec![0], &dev),
            (2, 2),
        )
        .unwrap_err();
        assert_eq!(kind(&e), "arg");
        // product shape mismatch
        let a = identity::<f64>(3, &dev).unwrap();
        let e = a.dot(&arr(vec![1.0; 4], &dev)).unwrap_err();
        assert_eq!(kind(&e), "shape");
        let e = a
            .dot(&Array::from_vec(vec![1.0; 8], &[2, 4], &dev).unwrap())
            .unwrap_err();
        assert_eq!(kind(&e), "shape");
        // dense input of the wrong rank
        let e = CsrMatrix::from_dense(&arr(vec![1.0f64; 3], &dev)).unwrap_err();
        assert_eq!(kind(&e), "shape");
    }
    if let Some(g) = cusci_core::testing::gpu() {
        let a = identity::<f64>(3, &Device::Cpu).unwrap();
        let e = a.dot(&arr(vec![1.0; 3], &g)).unwrap_err();
        assert_eq!(kind(&e), "device");
    }
}

#[test]
fn constructors() {
    for dev in devices() {
        let e = eye::<f64>(3, 4, -1, &dev).unwrap();
        assert_eq!(
            e.toarray().unwrap().to_vec().unwrap(),
            vec![0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0.]
        );
        assert_eq!(eye::<f32>(2, 2, 5, &dev).unwrap().nnz(), 0);
        assert_eq!(identity::<c64>(0, &dev).unwrap().shape(), (0, 0));
        // diags with broadcast of a length-1 diagonal and a zero that is dropped
        let a = diags::<f64>(&[&[1.0, 0.0, 3.0], &[5.0]], &[0, 2], Some((3, 4)), &dev).unwrap();
        assert_eq!(
            a.toarray().unwrap().to_vec().unwrap(),
            vec![1., 0., 5., 0., 0., 0., 0., 5., 0., 0., 3., 0.]
        );
        assert_eq!(a.nnz(), 4);
        assert!(matches!(
            diags::<f64>(&[&[1.0], &[1.0]], &[0, 0], Some((2, 2)), &dev),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            diags::<f64>(&[&[1.0, 2.0]], &[0], Some((3, 3)), &dev),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            diags::<f64>(&[&[1.0]], &[4], Some((3, 3)), &dev),
            Err(Error::InvalidArgument { .. })
        ));
        // random: the count, distinct positions, the same matrix on every device
        let r = random::<f64>(40, 30, 0.25, 9, &dev).unwrap();
        assert_eq!(r.nnz(), 300);
        assert!(r.has_canonical_format());
        let rc = random::<f64>(40, 30, 0.25, 9, &Device::Cpu).unwrap();
        assert_eq!(r.data().to_vec().unwrap(), rc.data().to_vec().unwrap());
        assert_eq!(
            r.indices().to_vec().unwrap(),
            rc.indices().to_vec().unwrap()
        );
        let csr_again = CsrMatrix::new(
            r.data().clone(),
            r.indices().clone(),
            r.indptr().clone(),
            r.shape(),
        )
        .unwrap();
        assert!(csr_again.has_canonical_format());
        assert!(r
            .data()
            .to_vec()
            .unwrap()
            .iter()
            .all(|&v| (0.0..1.0).contains(&v)));
        assert_eq!(random::<c32>(5, 5, 1.0, 1, &dev).unwrap().nnz(), 25);
        assert!(random::<f64>(5, 5, 1.5, 1, &dev).is_err());
    }
}
