//! Construction from other matrices (bmat, hstack, vstack, block_diag, kron, kronsum, tril,
//! triu, find) and the DIA format (DiaMatrix, spdiags, todia): the CPU against dense oracles,
//! every device against the CPU (structure bit for bit, values to a few ulp), bad input.

use cusci_core::testing::{devices, randn_vec, rtol_for};
use cusci_core::{c64, Array, Device, Error, Float, RealFloat};
use cusci_sparse::{
    block_diag, bmat, diags_array, find, hstack, identity, kron, kronsum, random, random_array,
    spdiags, tril, triu, vstack, CooMatrix, CsrMatrix, DiaMatrix,
};

fn dense<T: Float>(a: &CsrMatrix<T>) -> Vec<T> {
    a.toarray().unwrap().to_vec().unwrap()
}

/// The same matrix on every device: structure and values bit for bit.
fn same<T: Float>(a: &CsrMatrix<T>, b: &CsrMatrix<T>, what: &str) {
    assert_eq!(a.shape(), b.shape(), "{what}");
    assert_eq!(
        a.indptr().to_vec().unwrap(),
        b.indptr().to_vec().unwrap(),
        "{what}"
    );
    assert_eq!(
        a.indices().to_vec().unwrap(),
        b.indices().to_vec().unwrap(),
        "{what}"
    );
    near(
        &a.data().to_vec().unwrap(),
        &b.data().to_vec().unwrap(),
        what,
    );
}

/// Values equal to a few ulp of their type (the GPU kernels may fuse a multiply and an add where
/// the CPU rounds twice: complex products in kron, the DIA product's sums); zeros exactly.
fn near<T: Float>(a: &[T], b: &[T], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    let rtol = rtol_for::<T>(1);
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let (x, y) = (x.to_c64(), y.to_c64());
        let tol = rtol * x.norm().max(y.norm());
        assert!((x - y).norm() <= tol, "{what}: element {i}: {x} vs {y}");
    }
}

/// A random m x n matrix with some duplicates and one explicit zero (when nnz > 0).
fn mat<T: Float>(m: usize, n: usize, nnz: usize, seed: u64, dev: &Device) -> CsrMatrix<T> {
    let mut s = seed.wrapping_mul(0x9E3779B97F4A7C15) | 1;
    let mut next = |k: usize| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s % k.max(1) as u64) as i32
    };
    let (r, c): (Vec<i32>, Vec<i32>) = (0..nnz).map(|_| (next(m), next(n))).unzip();
    let mut v = randn_vec::<T>(nnz, seed);
    if nnz > 2 {
        v[1] = T::zero();
    }
    let a = |x: Vec<i32>| Array::from_vec(x, &[nnz], dev).unwrap();
    CooMatrix::new(Array::from_vec(v, &[nnz], dev).unwrap(), a(r), a(c), (m, n))
        .unwrap()
        .tocsr()
        .unwrap()
}

fn dense_block<T: Float>(
    d: &mut [T],
    ld: usize,
    r0: usize,
    c0: usize,
    b: &[T],
    bm: usize,
    bn: usize,
) {
    for i in 0..bm {
        for j in 0..bn {
            d[(r0 + i) * ld + c0 + j] = b[i * bn + j];
        }
    }
}

fn blocks_case<T: Float>() {
    for dims in [
        (3usize, 4usize, 2usize, 5usize),
        (1, 1, 1, 1),
        (0, 3, 2, 0),
        (31, 33, 17, 2),
    ] {
        let (m1, n1, m2, n2) = dims;
        let cpu = [
            mat::<T>(m1, n1, m1 * n1 / 2, 1, &Device::Cpu),
            mat::<T>(m1, n2, m1 * n2 / 2, 2, &Device::Cpu),
            mat::<T>(m2, n1, m2 * n1 / 2, 3, &Device::Cpu),
            mat::<T>(
                m2,
                n2,
                if m2 * n2 == 0 { 0 } else { m2 * n2 + 3 },
                4,
                &Device::Cpu,
            ),
        ];
        let d: Vec<Vec<T>> = cpu.iter().map(dense).collect();
        let (m, n) = (m1 + m2, n1 + n2);
        // bmat with a None block: [[A, B], [C, None]]
        let mut want = vec![T::zero(); m * n];
        dense_block(&mut want, n, 0, 0, &d[0], m1, n1);
        dense_block(&mut want, n, 0, n1, &d[1], m1, n2);
        dense_block(&mut want, n, m1, 0, &d[2], m2, n1);
        let b_cpu = bmat(&[
            vec![Some(&cpu[0]), Some(&cpu[1])],
            vec![Some(&cpu[2]), None],
        ])
        .unwrap();
        assert_eq!(b_cpu.shape(), (m, n));
        assert!(b_cpu.has_canonical_format());
        assert_eq!(dense(&b_cpu), want, "bmat {dims:?}");
        // hstack, vstack, block_diag
        let h_cpu = hstack(&[&cpu[0], &cpu[1]]).unwrap();
        let mut wh = vec![T::zero(); m1 * n];
        dense_block(&mut wh, n, 0, 0, &d[0], m1, n1);
        dense_block(&mut wh, n, 0, n1, &d[1], m1, n2);
        assert_eq!(dense(&h_cpu), wh);
        let v_cpu = vstack(&[&cpu[0], &cpu[2]]).unwrap();
        let mut wv = vec![T::zero(); m * n1];
        dense_block(&mut wv, n1, 0, 0, &d[0], m1, n1);
        dense_block(&mut wv, n1, m1, 0, &d[2], m2, n1);
        assert_eq!(dense(&v_cpu), wv);
        let bd_cpu = block_diag(&[&cpu[0], &cpu[3]]).unwrap();
        let mut wbd = vec![T::zero(); m * n];
        dense_block(&mut wbd, n, 0, 0, &d[0], m1, n1);
        dense_block(&mut wbd, n, m1, n1, &d[3], m2, n2);
        assert_eq!(dense(&bd_cpu), wbd);
        // kron against the definition
        let k_cpu = kron(&cpu[0], &cpu[3]).unwrap();
        assert_eq!(k_cpu.nnz(), cpu[0].nnz() * cpu[3].nnz());
        let (km, kn) = (m1 * m2, n1 * n2);
        let mut wk = vec![T::zero(); km * kn];
        for ia in 0..m1 {
            for ja in 0..n1 {
                for ib in 0..m2 {
                    for jb in 0..n2 {
                        wk[(ia * m2 + ib) * kn + ja * n2 + jb] =
                            d[0][ia * n1 + ja].mul(d[3][ib * n2 + jb]);
                    }
                }
            }
        }
        assert_eq!(dense(&k_cpu), wk, "kron {dims:?}");
        assert!(k_cpu.has_canonical_format());
        // tril / triu for several k
        for k in [-2isize, 0, 1, 3] {
            let lo = tril(&cpu[0], k).unwrap();
            let up = triu(&cpu[0], k).unwrap();
            let (dl, du) = (dense(&lo), dense(&up));
            for i in 0..m1 {
                for j in 0..n1 {
                    let x = d[0][i * n1 + j];
                    let dk = j as isize - i as isize;
                    assert_eq!(dl[i * n1 + j], if dk <= k { x } else { T::zero() });
                    assert_eq!(du[i * n1 + j], if dk >= k { x } else { T::zero() });
                }
            }
            // every stored entry lands in exactly one of tril(k) and triu(k + 1)
            assert_eq!(lo.nnz() + triu(&cpu[0], k + 1).unwrap().nnz(), cpu[0].nnz());
        }
        // find: nonzero entries in row-major order
        let (fr, fc, fv) = find(&cpu[3]).unwrap();
        let (fr, fc, fv) = (
            fr.to_vec().unwrap(),
            fc.to_vec().unwrap(),
            fv.to_vec().unwrap(),
        );
        let mut wf = Vec::new();
        for i in 0..m2 {
            for j in 0..n2 {
                if d[3][i * n2 + j] != T::zero() {
                    wf.push((i as i32, j as i32, d[3][i * n2 + j]));
                }
            }
        }
        let got: Vec<(i32, i32, T)> = (0..fr.len()).map(|t| (fr[t], fc[t], fv[t])).collect();
        assert_eq!(got, wf, "find {dims:?}");
        for dev in devices() {
            let g: Vec<CsrMatrix<T>> = cpu.iter().map(|a| a.to_device(&dev).unwrap()).collect();
            same(
                &bmat(&[vec![Some(&g[0]), Some(&g[1])], vec![Some(&g[2]), None]]).unwrap(),
                &b_cpu,
                "bmat",
            );
            same(&hstack(&[&g[0], &g[1]]).unwrap(), &h_cpu, "hstack");
            same(&vstack(&[&g[0], &g[2]]).unwrap(), &v_cpu, "vstack");
            same(&block_diag(&[&g[0], &g[3]]).unwrap(), &bd_cpu, "block_diag");
            same(&kron(&g[0], &g[3]).unwrap(), &k_cpu, "kron");
            for k in [-2isize, 0, 1, 3] {
                same(&tril(&g[0], k).unwrap(), &tril(&cpu[0], k).unwrap(), "tril");
                same(&triu(&g[0], k).unwrap(), &triu(&cpu[0], k).unwrap(), "triu");
            }
            let (r, c, v) = find(&g[3]).unwrap();
            assert_eq!(r.to_vec().unwrap(), fr);
            assert_eq!(c.to_vec().unwrap(), fc);
            assert_eq!(v.to_vec().unwrap(), fv);
        }
    }
}

#[test]
fn blocks_kron_tri_find_all_types() {
    blocks_case::<f64>();
    blocks_case::<f32>();
    blocks_case::<c64>();
}

#[test]
fn kronsum_is_the_sum_of_two_krons() {
    for dev in devices() {
        let a = mat::<f64>(3, 3, 6, 5, &dev);
        let b = mat::<f64>(4, 4, 7, 6, &dev);
        let ks = kronsum(&a, &b).unwrap();
        let want = kron(&identity(4, &dev).unwrap(), &a)
            .unwrap()
            .add(&kron(&b, &identity(3, &dev).unwrap()).unwrap())
            .unwrap();
        assert_eq!(ks.shape(), (12, 12));
        same(&ks, &want, "kronsum");
        // dense check: (I ⊗ A + B ⊗ I) x for x = e_0
        let da = dense(&a);
        let dk = dense(&ks);
        assert_eq!(dk[0], da[0] + dense(&b)[0]);
        let e = kronsum(&a, &mat::<f64>(2, 3, 2, 1, &dev));
        assert!(matches!(e, Err(Error::ShapeMismatch { .. })), "{e:?}");
    }
}

#[test]
fn block_errors_same_everywhere() {
    for dev in devices() {
        let a = mat::<f64>(2, 3, 3, 1, &dev);
        let b = mat::<f64>(3, 3, 3, 2, &dev);
        assert!(matches!(
            hstack(&[&a, &b]),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            vstack(&[&a, &mat::<f64>(2, 2, 1, 3, &dev)]),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            bmat::<f64, i32>(&[vec![None]]),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            bmat(&[vec![Some(&a)], vec![]]),
            Err(Error::ShapeMismatch { .. })
        ));
        // an all-None grid row has height 0
        let z = bmat(&[vec![Some(&a)], vec![None]]).unwrap();
        assert_eq!(z.shape(), (2, 3));
    }
}

#[test]
fn array_api_aliases() {
    let d = Device::Cpu;
    let a = diags_array::<f64>(&[&[1.0, 2.0], &[3.0]], &[0, 1], None, &d).unwrap();
    assert_eq!(dense(&a), vec![1.0, 3.0, 0.0, 2.0]);
    let r = random_array::<f32>((5, 8), 0.25, 3, &d).unwrap();
    same(
        &r,
        &random::<f32>(5, 8, 0.25, 3, &d).unwrap(),
        "random_array",
    );
}

fn dia_case<T: Float>() {
    for (m, n, w, offs) in [
        (4usize, 5usize, 5usize, vec![0isize, 1, -2]),
        (5, 3, 2, vec![-1, 2, 0]),
        (1, 1, 1, vec![0]),
        (33, 31, 40, vec![3, -5, 0, 1, -32, 30]),
        (3, 3, 3, vec![7, -7]),
    ] {
        let nd = offs.len();
        let mut raw = randn_vec::<T>(nd * w, m as u64);
        if raw.len() > 2 {
            raw[2] = T::zero();
        }
        // oracle: entry (j - k, j) = data[d, j]
        let mut want = vec![T::zero(); m * n];
        for (d, &k) in offs.iter().enumerate() {
            for j in 0..w.min(n) {
                let r = j as isize - k;
                if r >= 0 && (r as usize) < m {
                    want[r as usize * n + j] = raw[d * w + j];
                }
            }
        }
        let x = randn_vec::<T>(n, 4);
        let cpu = DiaMatrix::new(
            Array::from_vec(raw.clone(), &[nd, w], &Device::Cpu).unwrap(),
            &offs,
            (m, n),
        )
        .unwrap();
        let c = cpu.tocsr().unwrap();
        assert_eq!(dense(&c), want, "dia {m}x{n}");
        assert_eq!(c.nnz(), want.iter().filter(|v| **v != T::zero()).count());
        let y = cpu
            .dot(&Array::from_vec(x.clone(), &[n], &Device::Cpu).unwrap())
            .unwrap()
            .to_vec()
            .unwrap();
        let yc = c
            .dot(&Array::from_vec(x.clone(), &[n], &Device::Cpu).unwrap())
            .unwrap()
            .to_vec()
            .unwrap();
        for (a, b) in y.iter().zip(&yc) {
            assert!(
                a.sub(*b).abs().to_f64() <= 1e-5 * (1.0 + b.abs().to_f64()),
                "dia spmv"
            );
        }
        // todia: SciPy's layout (sorted offsets of stored entries, width max col + 1)
        let back = c.todia().unwrap();
        assert_eq!(dense(&back.tocsr().unwrap()), want);
        let mut ks: Vec<i64> = Vec::new();
        let (ip, ind) = (c.indptr().to_vec().unwrap(), c.indices().to_vec().unwrap());
        let mut wmax = 0;
        for r in 0..m {
            for &c in &ind[ip[r] as usize..ip[r + 1] as usize] {
                ks.push(c as i64 - r as i64);
                wmax = wmax.max(c as usize + 1);
            }
        }
        ks.sort_unstable();
        ks.dedup();
        assert_eq!(back.offsets(), &ks[..]);
        let want_shape = if ks.is_empty() {
            vec![0, 0]
        } else {
            vec![ks.len(), wmax]
        };
        assert_eq!(back.data().shape(), &want_shape[..]);
        // spdiags is the same matrix
        let s = spdiags(
            Array::from_vec(raw.clone(), &[nd, w], &Device::Cpu).unwrap(),
            &offs,
            m,
            n,
        )
        .unwrap();
        same(&s.tocsr().unwrap(), &c, "spdiags");
        for dev in devices() {
            let g = DiaMatrix::new(
                Array::from_vec(raw.clone(), &[nd, w], &dev).unwrap(),
                &offs,
                (m, n),
            )
            .unwrap();
            same(&g.tocsr().unwrap(), &c, "dia.tocsr");
            near(
                &g.dot(&Array::from_vec(x.clone(), &[n], &dev).unwrap())
                    .unwrap()
                    .to_vec()
                    .unwrap(),
                &y,
                &format!("dia.dot {dev}"),
            );
            let gd = c.to_device(&dev).unwrap().todia().unwrap();
            assert_eq!(gd.offsets(), back.offsets());
            assert_eq!(
                gd.data().to_vec().unwrap(),
                back.data().to_vec().unwrap(),
                "todia {dev}"
            );
            assert_eq!(g.nnz(), cpu.nnz());
        }
    }
}

#[test]
fn dia_format_all_types() {
    dia_case::<f64>();
    dia_case::<f32>();
    dia_case::<c64>();
}

#[test]
fn dia_bad_input() {
    for dev in devices() {
        let d = Array::<f64>::zeros(&[2, 3], &dev).unwrap();
        assert!(matches!(
            DiaMatrix::new(d.clone(), &[0], (3, 3)),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            DiaMatrix::new(d.clone(), &[1, 1], (3, 3)),
            Err(Error::InvalidArgument { .. })
        ));
        let a = DiaMatrix::new(d, &[0, 1], (3, 3)).unwrap();
        assert_eq!(a.nnz(), 5);
        let x = Array::<f64>::zeros(&[4], &dev).unwrap();
        assert!(matches!(a.dot(&x), Err(Error::ShapeMismatch { .. })));
    }
}
