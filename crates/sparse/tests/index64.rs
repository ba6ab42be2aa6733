//! 64-bit indices: construction, validation, conversions (formats and index types), `toarray`
//! and the products, against the `i32` matrices and dense oracles, on every device.

use cusci_core::testing::{assert_allclose, devices, randn_vec, rtol_for};
use cusci_core::{c64, Array, Device, Error, Float};
use cusci_sparse::{CooMatrix, CscMatrix, CsrMatrix, SpIndex};

fn arr<T: cusci_core::Element>(v: Vec<T>, dev: &Device) -> Array<T> {
    let n = v.len();
    Array::from_vec(v, &[n], dev).unwrap()
}

/// Triplets with duplicates, as i64.
fn triplets(m: usize, n: usize, nnz: usize, seed: u64) -> (Vec<i64>, Vec<i64>) {
    let mut s = seed
        .wrapping_mul(2862933555777941757)
        .wrapping_add(3037000493);
    let mut next = |k: usize| {
        s = s.wrapping_mul(2862933555777941757).wrapping_add(3037000493);
        ((s >> 33) as usize % k.max(1)) as i64
    };
    (0..nnz).map(|_| (next(m), next(n))).unzip()
}

fn dense_of<T: Float>(m: usize, n: usize, r: &[i64], c: &[i64], v: &[T]) -> Vec<T> {
    let mut d = vec![T::zero(); m * n];
    for k in 0..v.len() {
        let i = r[k] as usize * n + c[k] as usize;
        d[i] = d[i].add(v[k]);
    }
    d
}

fn ix<I: SpIndex>(a: &Array<I>) -> Vec<i64> {
    a.to_vec()
        .unwrap()
        .into_iter()
        .map(|v| v.to_i64())
        .collect()
}

const SIZES: [(usize, usize, usize); 6] = [
    (0, 0, 0),
    (1, 1, 3),
    (2, 3, 0),
    (31, 33, 200),
    (33, 32, 40),
    (257, 129, 2000),
];

fn case<T: Float>() {
    for (m, n, nnz) in SIZES {
        let (r, c) = triplets(m, n, nnz, m as u64 + 5);
        let v = randn_vec::<T>(nnz, 9);
        let dense = dense_of(m, n, &r, &c, &v);
        let want = Array::from_vec(dense.clone(), &[m, n], &Device::Cpu).unwrap();
        let r32: Vec<i32> = r.iter().map(|&x| x as i32).collect();
        let c32: Vec<i32> = c.iter().map(|&x| x as i32).collect();
        let ref32 = CooMatrix::new(
            arr(v.clone(), &Device::Cpu),
            arr(r32, &Device::Cpu),
            arr(c32, &Device::Cpu),
            (m, n),
        )
        .unwrap()
        .tocsr()
        .unwrap();
        for dev in devices() {
            let coo: CooMatrix<T, i64> = CooMatrix::new(
                arr(v.clone(), &dev),
                arr(r.clone(), &dev),
                arr(c.clone(), &dev),
                (m, n),
            )
            .unwrap();
            assert_allclose(
                &coo.toarray().unwrap().to_device(&Device::Cpu).unwrap(),
                &want,
                rtol_for::<T>(nnz),
                0.0,
                &format!("coo64.toarray {m}x{n} {dev}"),
            );
            let a: CsrMatrix<T, i64> = coo.tocsr().unwrap();
            assert!(a.has_canonical_format());
            // the same structure and bits as the i32 path
            assert_eq!(ix(a.indptr()), ix(ref32.indptr()), "{dev}");
            assert_eq!(ix(a.indices()), ix(ref32.indices()), "{dev}");
            assert_eq!(
                a.data().to_vec().unwrap(),
                ref32.data().to_vec().unwrap(),
                "{dev}"
            );
            // re-validated by the checked constructor
            let b = CsrMatrix::new(
                a.data().clone(),
                a.indices().clone(),
                a.indptr().clone(),
                (m, n),
            )
            .unwrap();
            assert!(b.has_canonical_format());
            // transposes: CSC of the CSR, CSR of the CSC, COO round trip
            let csc: CscMatrix<T, i64> = a.tocsc().unwrap();
            assert_eq!(
                csc.toarray().unwrap().to_vec().unwrap(),
                a.toarray().unwrap().to_vec().unwrap()
            );
            let back = csc.tocsr().unwrap();
            assert_eq!(ix(back.indptr()), ix(a.indptr()));
            assert_eq!(ix(back.indices()), ix(a.indices()));
            assert_eq!(back.data().to_vec().unwrap(), a.data().to_vec().unwrap());
            let t32 = ref32.tocsc().unwrap();
            assert_eq!(ix(csc.indptr()), ix(t32.indptr()), "tocsc {dev}");
            assert_eq!(ix(csc.indices()), ix(t32.indices()), "tocsc {dev}");
            assert_eq!(
                ix(a.tocoo().unwrap().row()),
                ix(ref32.tocoo().unwrap().row())
            );
            // index-type conversions both ways
            let n32 = a.with_index::<i32>().unwrap();
            assert_eq!(ix(n32.indptr()), ix(a.indptr()));
            assert_eq!(
                ix(n32.with_index::<i64>().unwrap().indices()),
                ix(a.indices())
            );
            assert_eq!(ix(coo.with_index::<i32>().unwrap().col()), c);
            // dense -> CSR with i64 indices
            let fd = CsrMatrix::<T, i64>::from_dense_index(&a.toarray().unwrap()).unwrap();
            assert_eq!(
                fd.toarray().unwrap().to_vec().unwrap(),
                a.toarray().unwrap().to_vec().unwrap()
            );
            // products: the same as the i32 matrix
            let x = randn_vec::<T>(n, 3);
            let y = a.dot(&arr(x.clone(), &dev)).unwrap();
            let y32 = ref32.dot(&arr(x, &Device::Cpu)).unwrap();
            assert_allclose(
                &y.to_device(&Device::Cpu).unwrap(),
                &y32,
                rtol_for::<T>(n) * 10.0,
                rtol_for::<T>(n),
                &format!("spmv64 {dev}"),
            );
            for k in [1usize, 4] {
                let xm = randn_vec::<T>(n * k, 4);
                let ym = a
                    .dot(&Array::from_vec(xm.clone(), &[n, k], &dev).unwrap())
                    .unwrap();
                let ym32 = ref32
                    .dot(&Array::from_vec(xm, &[n, k], &Device::Cpu).unwrap())
                    .unwrap();
                assert_allclose(
                    &ym.to_device(&Device::Cpu).unwrap(),
                    &ym32,
                    rtol_for::<T>(n) * 10.0,
                    rtol_for::<T>(n),
                    &format!("spmm64 {dev}"),
                );
                let yc = csc
                    .dot(&Array::from_vec(randn_vec::<T>(n * k, 5), &[n, k], &dev).unwrap())
                    .unwrap();
                assert_eq!(yc.shape(), &[m, k]);
            }
        }
    }
}

#[test]
fn i64_indices_like_i32_all_types() {
    case::<f64>();
    case::<f32>();
    case::<c64>();
}

#[test]
fn i64_bad_input_same_errors_everywhere() {
    for dev in devices() {
        // indptr not starting at 0
        let e = CsrMatrix::new(
            arr(vec![1.0f64], &dev),
            arr(vec![0i64], &dev),
            arr(vec![1i64, 1], &dev),
            (1, 1),
        );
        assert!(
            matches!(e, Err(Error::InvalidArgument { .. })),
            "{dev}: {e:?}"
        );
        // column out of bounds
        let e = CsrMatrix::new(
            arr(vec![1.0f64], &dev),
            arr(vec![3i64], &dev),
            arr(vec![0i64, 1], &dev),
            (1, 2),
        );
        assert!(
            matches!(e, Err(Error::InvalidArgument { .. })),
            "{dev}: {e:?}"
        );
        // negative COO index
        let e = CooMatrix::new(
            arr(vec![1.0f64], &dev),
            arr(vec![-1i64], &dev),
            arr(vec![0i64], &dev),
            (1, 1),
        );
        assert!(
            matches!(e, Err(Error::InvalidArgument { .. })),
            "{dev}: {e:?}"
        );
        // wrong indptr length
        let e = CsrMatrix::new(
            arr(vec![1.0f64], &dev),
            arr(vec![0i64], &dev),
            arr(vec![0i64, 1, 1], &dev),
            (1, 1),
        );
        assert!(
            matches!(e, Err(Error::ShapeMismatch { .. })),
            "{dev}: {e:?}"
        );
    }
    // a shape that needs 64-bit indices: fine with i64 (no storage for m x n), refused by i32
    let big = 3usize << 30;
    let a = CooMatrix::new(
        arr(vec![2.0f64], &Device::Cpu),
        arr(vec![big as i64 - 1], &Device::Cpu),
        arr(vec![5i64], &Device::Cpu),
        (big, 8),
    )
    .unwrap();
    let e = a.with_index::<i32>();
    assert!(matches!(e, Err(Error::InvalidArgument { .. })), "{e:?}");
    let e = CooMatrix::new(
        arr(vec![2.0f64], &Device::Cpu),
        arr(vec![0i32], &Device::Cpu),
        arr(vec![0i32], &Device::Cpu),
        (big, 8),
    );
    assert!(matches!(e, Err(Error::InvalidArgument { .. })), "{e:?}");
}

fn sums_case<T: Float>() {
    for (m, n, nnz) in SIZES {
        let (r, c) = triplets(m, n, nnz, m as u64 + 17);
        let v = randn_vec::<T>(nnz, 21);
        let dense = dense_of(m, n, &r, &c, &v);
        let row_sums: Vec<T> = (0..m)
            .map(|i| (0..n).fold(T::zero(), |acc, j| acc.add(dense[i * n + j])))
            .collect();
        let col_sums: Vec<T> = (0..n)
            .map(|j| (0..m).fold(T::zero(), |acc, i| acc.add(dense[i * n + j])))
            .collect();
        let total = v.iter().fold(T::zero(), |acc, &x| acc.add(x));
        let tol = rtol_for::<T>(nnz.max(2)) * 10.0;
        for dev in devices() {
            let a: CsrMatrix<T, i64> = CooMatrix::new(
                arr(v.clone(), &dev),
                arr(r.clone(), &dev),
                arr(c.clone(), &dev),
                (m, n),
            )
            .unwrap()
            .tocsr()
            .unwrap();
            let host = |x: Array<T>| x.to_device(&Device::Cpu).unwrap();
            for (axis, want) in [
                (1isize, &row_sums),
                (-1, &row_sums),
                (0, &col_sums),
                (-2, &col_sums),
            ] {
                assert_allclose(
                    &host(a.sum_axis(axis).unwrap()),
                    &arr(want.clone(), &Device::Cpu),
                    tol,
                    tol,
                    &format!("sum axis {axis} {m}x{n} {dev}"),
                );
            }
            let len = if m == 0 { 0 } else { n };
            let mean1: Vec<T> = row_sums
                .iter()
                .map(|&s| s.div(T::from_c64(c64::new(n as f64, 0.0))))
                .collect();
            if len > 0 {
                assert_allclose(
                    &host(a.mean_axis(1).unwrap()),
                    &arr(mean1, &Device::Cpu),
                    tol,
                    tol,
                    &format!("mean axis 1 {m}x{n} {dev}"),
                );
            }
            assert!(matches!(a.sum_axis(2), Err(Error::InvalidArgument { .. })));
            let s = a.sum().unwrap();
            assert_allclose(
                &arr(vec![s], &Device::Cpu),
                &arr(vec![total], &Device::Cpu),
                tol,
                tol,
                &format!("sum {m}x{n} {dev}"),
            );
            if m * n > 0 {
                let want = total.div(T::from_c64(c64::new((m * n) as f64, 0.0)));
                assert_allclose(
                    &arr(vec![a.mean().unwrap()], &Device::Cpu),
                    &arr(vec![want], &Device::Cpu),
                    tol,
                    tol,
                    &format!("mean {m}x{n} {dev}"),
                );
            }
        }
    }
}

#[test]
fn i64_sums_and_means() {
    sums_case::<f64>();
    sums_case::<f32>();
    sums_case::<c64>();
}
