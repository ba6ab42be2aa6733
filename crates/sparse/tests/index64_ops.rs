//! 64-bit indices through the structure-changing operations (`eliminate_zeros`, `diagonal`,
//! `+`/`−`, `multiply`, SpGEMM, `todia`, `kronsum`, `find`): on every device an `i64` matrix
//! gives exactly what the same `i32` matrix gives on that device (the same kernels, compiled for
//! the other index type), and the GPU agrees with the CPU's `i32` result (structure exactly,
//! values to rounding), which the `i32` tests check against dense oracles.

use cusci_core::testing::{assert_allclose, devices};
use cusci_core::{c64, Array, Device, Error, Float};
use cusci_sparse::{find, kronsum, CooMatrix, CsrMatrix, SpIndex};

use crate::common::{other_shape_refused, randn_csr, spgemm_operands, OP_SHAPES};

fn host<U: cusci_core::Element>(a: &Array<U>) -> Vec<U> {
    a.to_vec().unwrap()
}

fn ix<I: SpIndex>(a: &Array<I>) -> Vec<i64> {
    host(a).into_iter().map(|v| v.to_i64()).collect()
}

/// `got` (i64 indices) is exactly `same` (i32 indices, same device) and close to `cpu` (i32, CPU).
fn check<T: Float>(
    what: &str,
    got: &CsrMatrix<T, i64>,
    same: &CsrMatrix<T>,
    cpu: &CsrMatrix<T>,
    dev: &Device,
) {
    assert_eq!(got.shape(), cpu.shape(), "{what} shape on {dev}");
    assert_eq!(
        got.has_canonical_format(),
        same.has_canonical_format(),
        "{what} canonical flag on {dev}"
    );
    assert_eq!(
        ix(got.indptr()),
        ix(same.indptr()),
        "{what} indptr on {dev}"
    );
    assert_eq!(
        ix(got.indices()),
        ix(same.indices()),
        "{what} indices on {dev}"
    );
    assert_eq!(host(got.data()), host(same.data()), "{what} data on {dev}");
    assert_eq!(
        ix(got.indptr()),
        ix(cpu.indptr()),
        "{what} indptr vs CPU on {dev}"
    );
    assert_eq!(
        ix(got.indices()),
        ix(cpu.indices()),
        "{what} indices vs CPU on {dev}"
    );
    // the same summation order on both devices; complex products may differ in the last bit
    // on the GPU (a·b − c·d contracted into an FMA)
    assert_allclose(
        &got.data().to_device(&Device::Cpu).unwrap(),
        cpu.data(),
        1e-5,
        1e-6,
        &format!("{what} values vs CPU on {dev}"),
    );
}

fn ops_case<T: Float>() {
    for (m, n) in OP_SHAPES {
        let ca = randn_csr::<T>(m, n, 0.2, 1 + m as u64, &Device::Cpu);
        let cb = randn_csr::<T>(m, n, 0.3, 2 + m as u64, &Device::Cpu);
        let cpu_sum = ca.add(&cb).unwrap();
        let cpu_diff = ca.sub(&cb).unwrap();
        let cpu_prod = ca.multiply(&cb).unwrap();
        for dev in devices() {
            let (a, b) = (ca.to_device(&dev).unwrap(), cb.to_device(&dev).unwrap());
            let (a64, b64) = (
                a.with_index::<i64>().unwrap(),
                b.with_index::<i64>().unwrap(),
            );
            check(
                "add",
                &a64.add(&b64).unwrap(),
                &a.add(&b).unwrap(),
                &cpu_sum,
                &dev,
            );
            check(
                "sub",
                &a64.sub(&b64).unwrap(),
                &a.sub(&b).unwrap(),
                &cpu_diff,
                &dev,
            );
            assert_eq!(a64.sub(&a64).unwrap().nnz(), 0, "A − A on {dev}");
            check(
                "multiply",
                &a64.multiply(&b64).unwrap(),
                &a.multiply(&b).unwrap(),
                &cpu_prod,
                &dev,
            );
            for k in [-2isize, -1, 0, 1, 3, 100] {
                let got = host(&a64.diagonal(k).unwrap());
                assert_eq!(got, host(&a.diagonal(k).unwrap()), "diagonal {k} on {dev}");
                assert_eq!(got, host(&ca.diagonal(k).unwrap()), "diagonal {k} vs CPU");
            }
            if m * n > 0 {
                let d64 = a64.todia().unwrap();
                let d32 = ca.todia().unwrap();
                assert_eq!(d64.offsets(), d32.offsets(), "todia offsets on {dev}");
                assert_eq!(host(d64.data()), host(d32.data()), "todia data on {dev}");
            }
            let (r, c, v) = find(&a64).unwrap();
            let (r32, c32, v32) = find(&ca).unwrap();
            assert_eq!(ix(&r), ix(&r32), "find rows on {dev}");
            assert_eq!(ix(&c), ix(&c32), "find cols on {dev}");
            assert_eq!(host(&v), host(&v32), "find values on {dev}");
            // errors as for i32
            let other = randn_csr::<T>(m + 1, n, 0.2, 3, &dev)
                .with_index::<i64>()
                .unwrap();
            other_shape_refused(&a64, &other);
        }
    }
}

#[test]
fn i64_add_sub_multiply_diagonal_todia_find_like_i32() {
    ops_case::<f64>();
    ops_case::<f32>();
    ops_case::<c64>();
}

fn spgemm_case<T: Float>() {
    for (m, _, n, ca, cb) in spgemm_operands::<T>() {
        let cpu = ca.matmul(&cb).unwrap();
        for dev in devices() {
            let (a, b) = (ca.to_device(&dev).unwrap(), cb.to_device(&dev).unwrap());
            let (a64, b64) = (
                a.with_index::<i64>().unwrap(),
                b.with_index::<i64>().unwrap(),
            );
            let g = a64.matmul(&b64).unwrap();
            assert!(g.has_canonical_format());
            check("matmul", &g, &a.matmul(&b).unwrap(), &cpu, &dev);
            let e = g.matmul(&g);
            if m != n {
                assert!(matches!(e, Err(Error::ShapeMismatch { .. })));
            }
        }
    }
}

#[test]
fn i64_spgemm_like_i32() {
    spgemm_case::<f64>();
    spgemm_case::<f32>();
    spgemm_case::<c64>();
}

#[test]
fn i64_kronsum_like_i32() {
    let ca = randn_csr::<f64>(4, 4, 0.5, 7, &Device::Cpu);
    let cb = randn_csr::<f64>(3, 3, 0.5, 8, &Device::Cpu);
    let cpu = kronsum(&ca, &cb).unwrap();
    for dev in devices() {
        let (a, b) = (ca.to_device(&dev).unwrap(), cb.to_device(&dev).unwrap());
        let got = kronsum(
            &a.with_index::<i64>().unwrap(),
            &b.with_index::<i64>().unwrap(),
        )
        .unwrap();
        check("kronsum", &got, &kronsum(&a, &b).unwrap(), &cpu, &dev);
    }
}

/// Unsorted columns, duplicates and explicit zeros (a non-canonical matrix) through
/// `eliminate_zeros`, `multiply` (which sums duplicates first) and `matmul`.
#[test]
fn i64_non_canonical_input() {
    let vals = vec![1.0f64, 0.0, 2.0, 3.0, -3.0, 4.0, 5.0];
    let cols = vec![2i64, 0, 2, 1, 1, 0, 3];
    let ptr = vec![0i64, 3, 5, 5, 7];
    // row 0: columns 2, 0, 2 (a duplicate and a zero); row 1: 3 − 3 at column 1; row 3: 4, 5
    let dense = vec![
        0.0, 0.0, 3.0, 0.0, //
        0.0, 0.0, 0.0, 0.0, //
        0.0, 0.0, 0.0, 0.0, //
        4.0, 0.0, 0.0, 5.0,
    ];
    for dev in devices() {
        let arr = |v: Vec<i64>| Array::from_vec(v.clone(), &[v.len()], &dev).unwrap();
        let a: CsrMatrix<f64, i64> = CsrMatrix::new(
            Array::from_vec(vals.clone(), &[7], &dev).unwrap(),
            arr(cols.clone()),
            arr(ptr.clone()),
            (4, 4),
        )
        .unwrap();
        assert!(!a.has_canonical_format());
        let e = a.eliminate_zeros().unwrap();
        assert_eq!(e.nnz(), 6, "{dev}");
        assert_eq!(ix(e.indices()), vec![2, 2, 1, 1, 0, 3], "{dev}");
        assert_eq!(ix(e.indptr()), vec![0, 2, 4, 4, 6], "{dev}");
        let sq = a.multiply(&a).unwrap();
        let want: Vec<f64> = dense.iter().map(|v| v * v).collect();
        assert_eq!(host(&sq.toarray().unwrap()), want, "{dev}");
        // (3 − 3) sums to a stored zero, which the product drops
        assert_eq!(sq.nnz(), 3, "{dev}");
        let mm = a.matmul(&a).unwrap();
        let mut want = vec![0.0; 16];
        for i in 0..4 {
            for l in 0..4 {
                for j in 0..4 {
                    want[i * 4 + j] += dense[i * 4 + l] * dense[l * 4 + j];
                }
            }
        }
        assert_eq!(host(&mm.toarray().unwrap()), want, "{dev}");
        assert_eq!(a.diagonal(0).unwrap().to_vec().unwrap()[3], 5.0);
        // COO triplets with duplicates, summed by the conversion, then +
        let coo: CooMatrix<f64, i64> = CooMatrix::new(
            Array::from_vec(vec![1.0, 2.0, 5.0], &[3], &dev).unwrap(),
            arr(vec![0, 1, 0]),
            arr(vec![1, 0, 1]),
            (2, 2),
        )
        .unwrap();
        let c = coo.tocsr().unwrap();
        assert_eq!(
            host(&c.add(&c).unwrap().toarray().unwrap()),
            vec![0.0, 12.0, 4.0, 0.0]
        );
    }
}

/// `connected_components` of i64 graphs: the same count and labels as the i32 graph, weak
/// and strong, on every device (the i32 tests check against BFS and reachability oracles).
#[test]
fn i64_connected_components_like_i32() {
    use cusci_sparse::csgraph::{connected_components, Connection};
    for (n, density) in [
        (0usize, 0.0),
        (1, 1.0),
        (12, 0.08),
        (70, 0.02),
        (150, 0.012),
    ] {
        let g = randn_csr::<f64>(n, n, density, 40 + n as u64, &Device::Cpu);
        for (directed, conn) in [
            (false, Connection::Weak),
            (true, Connection::Weak),
            (true, Connection::Strong),
        ] {
            let (k_cpu, l_cpu) = connected_components(&g, directed, conn).unwrap();
            for dev in devices() {
                let g32 = g.to_device(&dev).unwrap();
                let g64 = g32.with_index::<i64>().unwrap();
                let (k, l) = connected_components(&g64, directed, conn).unwrap();
                let (k32, l32) = connected_components(&g32, directed, conn).unwrap();
                let ctx = format!("n {n} {conn:?} directed {directed} on {dev}");
                assert_eq!(k, k32, "{ctx}");
                assert_eq!(k, k_cpu, "{ctx}");
                assert_eq!(host(&l), host(&l32), "{ctx}");
                assert_eq!(host(&l), host(&l_cpu), "{ctx}");
            }
        }
    }
    // a non-square graph: the same error as for i32
    let g = randn_csr::<f64>(3, 4, 0.5, 1, &Device::Cpu)
        .with_index::<i64>()
        .unwrap();
    assert!(matches!(
        connected_components(&g, true, Connection::Weak),
        Err(Error::ShapeMismatch { .. })
    ));
}
