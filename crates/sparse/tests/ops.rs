//! eliminate_zeros, diagonal, sums and means, +/−, multiply and SpGEMM against dense oracles on
//! every device; SpGEMM bit for bit across devices; SpMV of every element and index type
//! against a stored-order oracle (and the CPU's bits for real short rows on the GPU).

use cusci_core::testing::{assert_allclose, devices, randn_vec, rtol_for};
use cusci_core::{c32, c64, Array, DType, Device, Error, Float};
use cusci_sparse::{CooMatrix, CsrMatrix, SpIndex};

use crate::common::{other_shape_refused, randn_csr, spgemm_operands, OP_SHAPES};

fn host<T: Float>(a: &Array<T>) -> Array<T> {
    a.to_device(&Device::Cpu).unwrap()
}

fn dense<T: Float>(a: &CsrMatrix<T>) -> Vec<T> {
    a.toarray().unwrap().to_vec().unwrap()
}

fn case<T: Float>() {
    for (m, n) in OP_SHAPES {
        for dev in devices() {
            let a = randn_csr::<T>(m, n, 0.2, 1 + m as u64, &dev);
            let b = randn_csr::<T>(m, n, 0.3, 2 + m as u64, &dev);
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
            other_shape_refused(&a, &randn_csr::<T>(m + 1, n, 0.2, 3, &dev));
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
    for (m, k, n, cpu_a, cpu_b) in spgemm_operands::<T>() {
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

// ------------------------------------------------------------------------------------ SpMV

/// A small deterministic generator for the SpMV structures.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, k: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % k.max(1)
    }
}

/// CSR arrays with the given row lengths (capped at n), sorted distinct columns per row.
fn structure(lens: &[usize], n: usize, seed: u64) -> (Vec<usize>, Vec<usize>) {
    let mut g = Lcg(seed);
    let mut indptr = vec![0usize];
    let mut cols = Vec::new();
    for &l in lens {
        let l = l.min(n);
        // l distinct random columns, sorted
        let mut row: Vec<usize> = if l == n {
            (0..n).collect()
        } else {
            let mut seen = std::collections::BTreeSet::new();
            while seen.len() < l {
                seen.insert(g.next(n));
            }
            seen.into_iter().collect()
        };
        row.sort_unstable();
        cols.extend(row);
        indptr.push(cols.len());
    }
    (indptr, cols)
}

/// (label, m, n, row lengths): empty rows, a long row among short ones (longer than a GPU
/// warp's chunk), n x 1, 1 x n, 0 x 0, average lengths on both sides of the short-row cutoff.
fn spmv_structures() -> Vec<(&'static str, usize, usize, Vec<usize>)> {
    let mut g = Lcg(11);
    let mut v = vec![
        ("0x0", 0, 0, vec![]),
        ("3x0", 3, 0, vec![0, 0, 0]),
        ("all rows empty", 40, 9, vec![0; 40]),
        (
            "n x 1",
            200,
            1,
            (0..200).map(|i| (i % 3 != 0) as usize).collect(),
        ),
        ("1 x n", 1, 700, vec![700]),
    ];
    let mut lens: Vec<usize> = (0..300).map(|_| g.next(9)).collect();
    for i in (0..300).step_by(7) {
        lens[i] = 0;
    }
    lens[130] = 1800;
    v.push(("one long row", 300, 2000, lens));
    v.push((
        "random short",
        1500,
        900,
        (0..1500).map(|_| g.next(9)).collect(),
    ));
    v.push((
        "five per row",
        2000,
        2000,
        (0..2000).map(|i| 3 + (i % 3)).collect(),
    ));
    v.push((
        "medium rows",
        60,
        300,
        (0..60).map(|_| 30 + g.next(30)).collect(),
    ));
    v
}

/// y = A x in stored order, the oracle (the CPU side's summation order).
fn spmv_oracle<T: Float>(indptr: &[usize], cols: &[usize], v: &[T], x: &[T]) -> Vec<T> {
    (0..indptr.len() - 1)
        .map(|r| {
            let mut acc = T::zero();
            for k in indptr[r]..indptr[r + 1] {
                acc = acc.add(v[k].mul(x[cols[k]]));
            }
            acc
        })
        .collect()
}

fn spmv_case<T: Float, I: SpIndex>() {
    for (label, m, n, lens) in spmv_structures() {
        let (indptr, cols) = structure(&lens, n, 3 + m as u64);
        let nnz = cols.len();
        let vals = randn_vec::<T>(nnz, 40 + m as u64);
        let xs = randn_vec::<T>(n, 50 + n as u64);
        let want = spmv_oracle(&indptr, &cols, &vals, &xs);
        let maxlen = lens.iter().copied().max().unwrap_or(0).min(n);
        let tol = rtol_for::<T>(maxlen.max(2)) * 10.0;
        let cpu_y: Vec<T>;
        {
            let dev = Device::Cpu;
            let a = CsrMatrix::<T, I>::new(
                Array::from_vec(vals.clone(), &[nnz], &dev).unwrap(),
                Array::from_vec(cols.iter().map(|&c| I::of(c)).collect(), &[nnz], &dev).unwrap(),
                Array::from_vec(indptr.iter().map(|&c| I::of(c)).collect(), &[m + 1], &dev)
                    .unwrap(),
                (m, n),
            )
            .unwrap();
            let y = a
                .dot(&Array::from_vec(xs.clone(), &[n], &dev).unwrap())
                .unwrap();
            assert_eq!(y.shape(), &[m]);
            cpu_y = y.to_vec().unwrap();
            // the CPU sums each row in stored order: exactly the oracle
            assert_eq!(cpu_y, want, "{label}: cpu");
        }
        for dev in devices().into_iter().skip(1) {
            // arrays that start on 16-byte boundaries and arrays that start one element into
            // their storage
            for shift in [0usize, 1] {
                let pad = |v: Vec<T>| {
                    let mut w = vec![T::zero(); shift];
                    w.extend(v);
                    let len = w.len();
                    Array::from_vec(w, &[len], &dev)
                        .unwrap()
                        .slice_axis(0, Some(shift as isize), None, 1)
                        .unwrap()
                };
                let mut ci: Vec<I> = vec![I::of(0); shift];
                ci.extend(cols.iter().map(|&c| I::of(c)));
                let ci = Array::from_vec(ci, &[nnz + shift], &dev)
                    .unwrap()
                    .slice_axis(0, Some(shift as isize), None, 1)
                    .unwrap();
                let a = CsrMatrix::<T, I>::new(
                    pad(vals.clone()),
                    ci,
                    Array::from_vec(indptr.iter().map(|&c| I::of(c)).collect(), &[m + 1], &dev)
                        .unwrap(),
                    (m, n),
                )
                .unwrap();
                let y = a.dot(&pad(xs.clone())).unwrap();
                assert_eq!(y.shape(), &[m]);
                let gy = y.to_vec().unwrap();
                let avg = nnz as f64 / m.max(1) as f64;
                let real = matches!(T::DTYPE, DType::F32 | DType::F64);
                if real && avg <= 32.0 && maxlen < 256 {
                    // the short-row kernel sums each row in stored order: the CPU's bits
                    assert_eq!(gy, cpu_y, "{label}: {dev} shift {shift}");
                } else {
                    assert_allclose(
                        &Array::from_vec(gy, &[m], &Device::Cpu).unwrap(),
                        &Array::from_vec(cpu_y.clone(), &[m], &Device::Cpu).unwrap(),
                        tol,
                        tol,
                        &format!("{label}: {dev} shift {shift}"),
                    );
                }
            }
        }
    }
}

#[test]
fn spmv_every_type_and_index_width_against_stored_order_oracle() {
    spmv_case::<f64, i32>();
    spmv_case::<f32, i32>();
    spmv_case::<c32, i32>();
    spmv_case::<c64, i32>();
    spmv_case::<f64, i64>();
    spmv_case::<f32, i64>();
    spmv_case::<c32, i64>();
    spmv_case::<c64, i64>();
}

#[test]
fn spmv_shape_errors() {
    for dev in devices() {
        let a = randn_csr::<f64>(4, 3, 0.5, 9, &dev);
        let bad = Array::from_vec(vec![1.0f64; 4], &[4], &dev).unwrap();
        assert!(matches!(a.dot(&bad), Err(Error::ShapeMismatch { .. })));
        let z = Array::from_vec(vec![1.0f64], &[], &dev).unwrap();
        assert!(matches!(a.dot(&z), Err(Error::ShapeMismatch { .. })));
    }
}
