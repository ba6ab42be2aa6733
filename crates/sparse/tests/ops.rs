//! eliminate_zeros, diagonal, sums and means, +/−, multiply and SpGEMM against dense oracles on
//! every device; SpGEMM bit for bit across devices.

use cusci_core::testing::{assert_allclose, devices, randn_vec, rtol_for};
use cusci_core::{c64, Array, Device, Error, Float};
use cusci_sparse::{random, CooMatrix, CsrMatrix};

fn host<T: Float>(a: &Array<T>) -> Array<T> {
    a.to_device(&Device::Cpu).unwrap()
}

fn dense<T: Float>(a: &CsrMatrix<T>) -> Vec<T> {
    a.toarray().unwrap().to_vec().unwrap()
}

fn mat<T: Float>(m: usize, n: usize, density: f64, seed: u64, dev: &Device) -> CsrMatrix<T> {
    let r = random::<T>(m, n, density, seed, &Device::Cpu).unwrap();
    // values from randn (signs mixed) on the random structure
    let v = randn_vec::<T>(r.nnz(), seed + 100);
    CsrMatrix::new(
        Array::from_vec(v, &[r.nnz()], &Device::Cpu).unwrap(),
        r.indices().clone(),
        r.indptr().clone(),
        (m, n),
    )
    .unwrap()
    .to_device(dev)
    .unwrap()
}

const SHAPES: [(usize, usize); 5] = [(0, 0), (1, 1), (7, 5), (33, 31), (64, 70)];

fn case<T: Float>() {
    for (m, n) in SHAPES {
        for dev in devices() {
            let a = mat::<T>(m, n, 0.2, 1 + m as u64, &dev);
            let b = mat::<T>(m, n, 0.3, 2 + m as u64, &dev);
            let (da, db) = (dense(&a), dense(&b));
            let tol = rtol_for::<T>(64) * 10.0;
            let full = |v: Vec<T>, s: &[usize]| Array::from_vec(v, s, &Device::Cpu).unwrap();
            // + and −
            let s = a.add(&b).unwrap();
            assert!(s.has_canonical_format());
            let want: Vec<T> = da.iter().zip(&db).map(|(x, y)| x.add(*y)).collect();
            assert_allclose(
                &host(&s.toarray().unwrap()),
                &full(want, &[m, n]),
                tol,
                tol,
                "add",
            );
            let d = a.sub(&b).unwrap();
            let want: Vec<T> = da.iter().zip(&db).map(|(x, y)| x.sub(*y)).collect();
            assert_allclose(
                &host(&d.toarray().unwrap()),
                &full(want, &[m, n]),
                tol,
                tol,
                "sub",
            );
            assert_eq!(a.sub(&a).unwrap().nnz(), 0, "A − A stores nothing");
            // multiply
            let p = a.multiply(&b).unwrap();
            let want: Vec<T> = da.iter().zip(&db).map(|(x, y)| x.mul(*y)).collect();
            assert_allclose(
                &host(&p.toarray().unwrap()),
                &full(want, &[m, n]),
                tol,
                0.0,
                "multiply",
            );
            // diagonal
            for k in [-2isize, -1, 0, 1, 3, 100] {
                let got = host(&a.diagonal(k).unwrap());
                let want: Vec<T> = (0..m as isize)
                    .filter_map(|r| {
                        let c = r + k;
                        (c >= 0 && c < n as isize).then(|| da[r as usize * n + c as usize])
                    })
                    .collect();
                let len = want.len();
                assert_eq!(
                    got.to_vec().unwrap(),
                    want,
                    "diagonal {k} of {m}x{n} on {dev} ({len})"
                );
            }
            // sums and means
            let total = da.iter().fold(T::zero(), |s, &v| s.add(v));
            assert!(
                a.sum().unwrap().sub(total).to_c64().norm() <= 1e-5 * (1.0 + total.to_c64().norm())
            );
            let rows: Vec<T> = (0..m)
                .map(|r| (0..n).fold(T::zero(), |s, c| s.add(da[r * n + c])))
                .collect();
            let cols: Vec<T> = (0..n)
                .map(|c| (0..m).fold(T::zero(), |s, r| s.add(da[r * n + c])))
                .collect();
            assert_allclose(
                &host(&a.sum_axis(1).unwrap()),
                &full(rows, &[m]),
                tol,
                tol,
                "sum axis 1",
            );
            assert_allclose(
                &host(&a.sum_axis(0).unwrap()),
                &full(cols.clone(), &[n]),
                tol,
                tol,
                "sum axis 0",
            );
            if m > 0 {
                let means: Vec<T> = cols
                    .iter()
                    .map(|&c| c.div(T::from_c64(c64::new(m as f64, 0.0))))
                    .collect();
                assert_allclose(
                    &host(&a.mean_axis(0).unwrap()),
                    &full(means, &[n]),
                    tol,
                    tol,
                    "mean axis 0",
                );
            }
            assert!(matches!(a.sum_axis(2), Err(Error::InvalidArgument { .. })));
            // eliminate_zeros after a product that makes zeros
            let z = CsrMatrix::new(
                Array::from_vec(vec![T::one(), T::zero(), T::one()], &[3], &dev).unwrap(),
                Array::from_vec(vec![0, 1, 1], &[3], &dev).unwrap(),
                Array::from_vec(vec![0, 2, 3], &[3], &dev).unwrap(),
                (2, 2),
            )
            .unwrap();
            let e = z.eliminate_zeros().unwrap();
            assert_eq!(e.nnz(), 2);
            assert_eq!(e.indices().to_vec().unwrap(), vec![0, 1]);
            assert_eq!(e.indptr().to_vec().unwrap(), vec![0, 1, 2]);
            // errors
            let other = mat::<T>(m + 1, n, 0.2, 3, &dev);
            assert!(matches!(a.add(&other), Err(Error::ShapeMismatch { .. })));
            assert!(matches!(
                a.multiply(&other),
                Err(Error::ShapeMismatch { .. })
            ));
        }
    }
}

#[test]
fn ops_f64_f32_c64() {
    case::<f64>();
    case::<f32>();
    case::<c64>();
}

fn spgemm_case<T: Float>() {
    for (m, k, n) in [(0, 0, 0), (1, 1, 1), (5, 7, 3), (33, 20, 31), (60, 64, 50)] {
        let cpu_a = mat::<T>(m, k, 0.25, 5 + m as u64, &Device::Cpu);
        let cpu_b = mat::<T>(k, n, 0.25, 6 + n as u64, &Device::Cpu);
        let cpu = cpu_a.matmul(&cpu_b).unwrap();
        assert!(cpu.has_canonical_format());
        let (da, db) = (dense(&cpu_a), dense(&cpu_b));
        let mut want = vec![T::zero(); m * n];
        for i in 0..m {
            for l in 0..k {
                for j in 0..n {
                    want[i * n + j] = want[i * n + j].add(da[i * k + l].mul(db[l * n + j]));
                }
            }
        }
        assert_allclose(
            &cpu.toarray().unwrap(),
            &Array::from_vec(want, &[m, n], &Device::Cpu).unwrap(),
            rtol_for::<T>(k) * 10.0,
            rtol_for::<T>(k) * 10.0,
            "spgemm",
        );
        for dev in devices() {
            let g = cpu_a
                .to_device(&dev)
                .unwrap()
                .matmul(&cpu_b.to_device(&dev).unwrap())
                .unwrap();
            assert_eq!(
                g.indptr().to_vec().unwrap(),
                cpu.indptr().to_vec().unwrap(),
                "{dev}"
            );
            assert_eq!(
                g.indices().to_vec().unwrap(),
                cpu.indices().to_vec().unwrap(),
                "{dev}"
            );
            // the same summation order; complex products may differ in the last bit (the GPU
            // compiler contracts a·b − c·d into an FMA)
            assert_allclose(
                &g.data().to_device(&Device::Cpu).unwrap(),
                cpu.data(),
                1e-14,
                1e-15,
                &format!("spgemm values on {dev}"),
            );
            let e = g.matmul(&g.to_device(&dev).unwrap());
            if m != n {
                assert!(matches!(e, Err(Error::ShapeMismatch { .. })));
            }
        }
    }
}

#[test]
fn spgemm_against_dense_and_across_devices() {
    spgemm_case::<f64>();
    spgemm_case::<f32>();
    spgemm_case::<c64>();
}

#[test]
fn coo_duplicates_then_products() {
    for dev in devices() {
        // duplicates in both operands are summed before the product
        let a = CooMatrix::new(
            Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3], &dev).unwrap(),
            Array::from_vec(vec![0, 0, 1], &[3], &dev).unwrap(),
            Array::from_vec(vec![1, 1, 0], &[3], &dev).unwrap(),
            (2, 2),
        )
        .unwrap()
        .tocsr()
        .unwrap();
        assert_eq!(dense(&a), vec![0.0, 3.0, 3.0, 0.0]);
        assert_eq!(dense(&a.matmul(&a).unwrap()), vec![9.0, 0.0, 0.0, 9.0]);
        assert_eq!(dense(&a.multiply(&a).unwrap()), vec![0.0, 9.0, 9.0, 0.0]);
    }
}
