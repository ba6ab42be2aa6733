//! eig/eigvals, einsum, tensorsolve, tensorinv and fiedler_companion on every device: eigenpairs
//! by the residual `A·V − V·Λ` (relative to `‖A‖`, `C·ε·n`) and unit columns, einsum against
//! naive loops, the tensor solvers by their defining products; the GPU against the CPU and the
//! same typed errors everywhere.

use cusci_core::testing::{devices, randn_vec};
use cusci_core::Element;
use cusci_linalg::*;

fn c(v: &[impl Element]) -> Vec<c64> {
    v.iter().map(|x| x.to_c64()).collect()
}

fn close(got: &[c64], want: &[c64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    let scale = want.iter().map(|v| v.norm()).fold(1.0, f64::max);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).norm() <= tol * scale,
            "{what}: index {i}: got {g}, want {w}"
        );
    }
}

/// Each of `want` matched to the nearest unused value of `got`.
fn same_multiset(got: &[c64], want: &[c64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    let scale = want.iter().map(|v| v.norm()).fold(1.0, f64::max);
    let mut g = got.to_vec();
    for w in want {
        let (i, d) = g
            .iter()
            .enumerate()
            .map(|(i, x)| (i, (x - w).norm()))
            .fold((0, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a });
        assert!(d <= tol * scale, "{what}: {w} missing (nearest at {d:e})");
        g.swap_remove(i);
    }
}

fn eig_body<T: Scalar>() {
    let mut cpu_w: Vec<Vec<c64>> = Vec::new();
    for (di, dev) in devices().into_iter().enumerate() {
        for (si, &(bt, n)) in [(1, 0), (1, 1), (1, 2), (1, 3), (3, 9), (1, 33)]
            .iter()
            .enumerate()
        {
            let av: Vec<T> = randn_vec(bt * n * n, 7 + n as u64);
            let shape = if bt == 1 { vec![n, n] } else { vec![bt, n, n] };
            let a = Array::from_vec(av.clone(), &shape, &dev).unwrap();
            let (w, v) = eig(&a).unwrap();
            let mut ws = shape.clone();
            ws.pop();
            assert_eq!(w.shape(), &ws[..]);
            assert_eq!(v.shape(), &shape[..]);
            let (w, v) = (c(&w.to_vec().unwrap()), c(&v.to_vec().unwrap()));
            let a64 = c(&av);
            let tol = 500.0 * T::eps() * (n.max(1) as f64);
            for b in 0..bt {
                let am = &a64[b * n * n..(b + 1) * n * n];
                let norm_a = am.iter().map(|x| x.norm()).fold(1.0, f64::max) * n as f64;
                for j in 0..n {
                    let col: Vec<c64> = (0..n).map(|i| v[b * n * n + i * n + j]).collect();
                    let len: f64 = col.iter().map(|x| x.norm_sqr()).sum::<f64>().sqrt();
                    assert!(
                        (len - 1.0).abs() < tol,
                        "eig {dev} n={n}: column norm {len}"
                    );
                    for i in 0..n {
                        let av: c64 = (0..n).map(|k| am[i * n + k] * col[k]).sum();
                        let r = (av - w[b * n + j] * col[i]).norm();
                        assert!(
                            r <= tol * norm_a,
                            "eig {dev} n={n}: residual {r:e} at ({i}, {j})"
                        );
                    }
                }
            }
            let w2 = c(&eigvals(&a).unwrap().to_vec().unwrap());
            same_multiset(&w2, &w, tol, &format!("eigvals vs eig {dev} n={n}"));
            if di == 0 {
                cpu_w.push(w);
            } else {
                same_multiset(&w, &cpu_w[si], tol, &format!("eig gpu/cpu n={n}"));
            }
        }
        // a real matrix with complex eigenvalues (rotation) and a defective one
        let r = Array::from_vec(
            vec![T::zero(), -T::one(), T::one(), T::zero()],
            &[2, 2],
            &dev,
        )
        .unwrap();
        let w = c(&eigvals(&r).unwrap().to_vec().unwrap());
        same_multiset(
            &w,
            &[c64::new(0.0, 1.0), c64::new(0.0, -1.0)],
            1e-5,
            "rotation",
        );
        // errors: not square, NaN
        let ns = Array::<T>::zeros(&[2, 3], &dev).unwrap();
        assert!(matches!(eig(&ns), Err(Error::InvalidArgument { .. })));
        let mut bad: Vec<T> = randn_vec(4, 1);
        bad[3] = T::from_c64(c64::new(f64::NAN, 0.0));
        let bad = Array::from_vec(bad, &[2, 2], &dev).unwrap();
        assert!(matches!(eigvals(&bad), Err(Error::InvalidArgument { .. })));
    }
}
all_types!(eig_identities, eig_body);

/// Naive einsum for tests: loops over every assignment of every letter.
fn naive_einsum(spec: &str, ops: &[(&[c64], &[usize])]) -> (Vec<c64>, Vec<usize>) {
    let (lhs, out) = spec.split_once("->").unwrap();
    let terms: Vec<Vec<char>> = lhs.split(',').map(|t| t.chars().collect()).collect();
    let mut letters: Vec<char> = terms.iter().flatten().copied().collect();
    letters.sort_unstable();
    letters.dedup();
    let size = |ch: char| {
        for (t, (_, s)) in terms.iter().zip(ops) {
            if let Some(k) = t.iter().position(|&x| x == ch) {
                return s[k];
            }
        }
        unreachable!()
    };
    let sizes: Vec<usize> = letters.iter().map(|&ch| size(ch)).collect();
    let out: Vec<char> = out.chars().collect();
    let oshape: Vec<usize> = out.iter().map(|&ch| size(ch)).collect();
    let mut res = vec![c64::new(0.0, 0.0); oshape.iter().product()];
    let total: usize = sizes.iter().product();
    for flat in 0..total {
        let mut idx = vec![0; letters.len()];
        let mut f = flat;
        for k in (0..letters.len()).rev() {
            idx[k] = f % sizes[k];
            f /= sizes[k];
        }
        let val = |ch: char| idx[letters.iter().position(|&x| x == ch).unwrap()];
        let mut p = c64::new(1.0, 0.0);
        for (t, (d, s)) in terms.iter().zip(ops) {
            let mut off = 0;
            for (k, &ch) in t.iter().enumerate() {
                off = off * s[k] + val(ch);
            }
            p *= d[off];
        }
        let mut o = 0;
        for (k, &ch) in out.iter().enumerate() {
            o = o * oshape[k] + val(ch);
        }
        res[o] += p;
    }
    (res, oshape)
}

fn einsum_body<T: Scalar>() {
    let cases: &[(&str, &[&[usize]])] = &[
        ("ij,jk->ik", &[&[3, 4], &[4, 5]]),
        ("bij,bjk->bik", &[&[2, 3, 4], &[2, 4, 2]]),
        ("bij,bkj->bki", &[&[2, 3, 4], &[2, 5, 4]]),
        ("ii->", &[&[4, 4]]),
        ("ii->i", &[&[3, 3]]),
        ("bii->b", &[&[2, 3, 3]]),
        ("i,j->ij", &[&[3], &[4]]),
        ("ij->ji", &[&[3, 5]]),
        ("ijk->kij", &[&[2, 3, 4]]),
        ("ij->", &[&[3, 5]]),
        ("ij->j", &[&[3, 5]]),
        ("i,i->", &[&[6], &[6]]),
        ("ij,j->i", &[&[4, 3], &[3]]),
        ("ij,kl->ijkl", &[&[2, 3], &[2, 2]]),
        ("ijk,jl->il", &[&[2, 3, 4], &[3, 2]]),
        ("ij,ij->i", &[&[3, 4], &[3, 4]]),
        ("ij,jk->", &[&[0, 2], &[2, 3]]),
    ];
    for dev in devices() {
        for (ci, (spec, shapes)) in cases.iter().enumerate() {
            let data: Vec<Vec<T>> = shapes
                .iter()
                .enumerate()
                .map(|(k, s)| randn_vec(s.iter().product(), (ci * 10 + k) as u64))
                .collect();
            let arrays: Vec<Array<T>> = data
                .iter()
                .zip(shapes.iter())
                .map(|(d, s)| Array::from_vec(d.clone(), s, &dev).unwrap())
                .collect();
            let refs: Vec<&Array<T>> = arrays.iter().collect();
            let got = einsum(spec, &refs).unwrap();
            let d64: Vec<Vec<c64>> = data.iter().map(|d| c(d)).collect();
            let ops: Vec<(&[c64], &[usize])> = d64
                .iter()
                .zip(shapes.iter())
                .map(|(d, s)| (&d[..], &s[..]))
                .collect();
            let (want, wshape) = naive_einsum(spec, &ops);
            assert_eq!(got.shape(), &wshape[..], "einsum {spec} shape on {dev}");
            close(
                &c(&got.to_vec().unwrap()),
                &want,
                50.0 * T::eps() * 8.0,
                &format!("einsum {spec} on {dev}"),
            );
        }
        // implicit mode: letters that appear once, sorted
        let a = Array::from_vec(randn_vec::<T>(6, 3), &[2, 3], &dev).unwrap();
        let t = einsum("ji", &[&a]).unwrap();
        assert_eq!(t.shape(), &[3, 2]);
        assert_eq!(
            t.to_vec().unwrap(),
            a.swapaxes(0, 1).unwrap().copy().unwrap().to_vec().unwrap()
        );
        let m = einsum("ij,jk", &[&a, &a.swapaxes(0, 1).unwrap()]).unwrap();
        assert_eq!(m.shape(), &[2, 2]);
        // errors
        let bad = |r: Result<Array<T>>| matches!(r, Err(Error::InvalidArgument { .. }));
        assert!(bad(einsum("ij->k", &[&a])));
        assert!(bad(einsum("ijk->", &[&a])));
        let a3 = Array::from_vec(randn_vec::<T>(12, 4), &[2, 2, 3], &dev).unwrap();
        assert!(bad(einsum("...ij->ij", &[&a3])));
        assert!(bad(einsum("...i...->i", &[&a3])));
        // `...`: the same results as the letters it stands for, broadcast as NumPy does
        let b3 = Array::from_vec(randn_vec::<T>(24, 5), &[2, 3, 4], &dev).unwrap();
        let same = |x: Array<T>, y: Array<T>, what: &str| {
            assert_eq!(x.shape(), y.shape(), "{what} shape on {dev}");
            close(
                &c(&x.to_vec().unwrap()),
                &c(&y.to_vec().unwrap()),
                50.0 * T::eps() * 8.0,
                what,
            );
        };
        same(
            einsum("...ij,...jk->...ik", &[&a3, &b3]).unwrap(),
            einsum("bij,bjk->bik", &[&a3, &b3]).unwrap(),
            "...ij,...jk->...ik",
        );
        same(
            einsum("...ij,...jk", &[&a3, &b3]).unwrap(),
            einsum("bij,bjk->bik", &[&a3, &b3]).unwrap(),
            "...ij,...jk (implicit)",
        );
        let sq = Array::from_vec(randn_vec::<T>(18, 6), &[2, 3, 3], &dev).unwrap();
        same(
            einsum("...ii->...i", &[&sq]).unwrap(),
            einsum("bii->bi", &[&sq]).unwrap(),
            "...ii->...i",
        );
        // broadcast ellipsis axes: (5, 1) against (4,)
        let p = Array::from_vec(randn_vec::<T>(30, 7), &[5, 1, 2, 3], &dev).unwrap();
        let q = Array::from_vec(randn_vec::<T>(24, 8), &[4, 3, 2], &dev).unwrap();
        let pb = p.broadcast_to(&[5, 4, 2, 3]).unwrap().copy().unwrap();
        let qb = q.broadcast_to(&[5, 4, 3, 2]).unwrap().copy().unwrap();
        same(
            einsum("...ij,...jk", &[&p, &q]).unwrap(),
            einsum("abij,abjk->abik", &[&pb, &qb]).unwrap(),
            "broadcast ...ij,...jk",
        );
        let v = Array::from_vec(randn_vec::<T>(6, 9), &[3, 2], &dev).unwrap();
        let w = Array::from_vec(randn_vec::<T>(3, 10), &[3, 1], &dev).unwrap();
        let wb = w.broadcast_to(&[3, 2]).unwrap().copy().unwrap();
        same(
            einsum("i...,i...->...", &[&v, &w]).unwrap(),
            einsum("ij,ij->j", &[&v, &wb]).unwrap(),
            "i...,i...->...",
        );
        assert!(matches!(
            einsum("...ij,...jk", &[&a3, &q]),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(bad(einsum("ij,jk->ik", &[&a])));
        assert!(bad(einsum("i1->i", &[&a])));
        assert!(matches!(
            einsum("ij,jk->ik", &[&a, &a]),
            Err(Error::ShapeMismatch { .. })
        ));
    }
}
all_types!(einsum_patterns, einsum_body);

fn tensor_body<T: Scalar>() {
    for dev in devices() {
        // a: (2, 3, 6), b: (2, 3) -> x: (6,)
        let mut av: Vec<T> = randn_vec(36, 5);
        for i in 0..6 {
            av[i * 6 + i] = av[i * 6 + i] + T::from_c64(c64::new(6.0, 0.0));
        }
        let a = Array::from_vec(av.clone(), &[2, 3, 6], &dev).unwrap();
        let bv: Vec<T> = randn_vec(6, 6);
        let b = Array::from_vec(bv.clone(), &[2, 3], &dev).unwrap();
        let x = tensorsolve(&a, &b, None).unwrap();
        assert_eq!(x.shape(), &[6]);
        let xv = c(&x.to_vec().unwrap());
        let a64 = c(&av);
        let ax: Vec<c64> = (0..6)
            .map(|i| (0..6).map(|k| a64[i * 6 + k] * xv[k]).sum())
            .collect();
        close(&ax, &c(&bv), 100.0 * T::eps() * 6.0, "tensorsolve");
        // axes: move axis 0 of a (6, 2, 3)-shaped tensor to the end
        let a2 = a.permute(&[2, 0, 1]).unwrap().contiguous().unwrap();
        // with axis 0 of a2 (6, 2, 3) moved to the end it is a again: the same solution
        let x2 = tensorsolve(&a2, &b, Some(&[0])).unwrap();
        assert_eq!(x2.shape(), &[6]);
        close(
            &c(&x2.to_vec().unwrap()),
            &xv,
            100.0 * T::eps() * 6.0,
            "tensorsolve with axes",
        );
        assert!(matches!(
            tensorsolve(&a, &Array::<T>::zeros(&[3, 2], &dev).unwrap(), None),
            Err(Error::ShapeMismatch { .. })
        ));
        // tensorinv: (4, 6, 8, 3) with ind 2 -> (8, 3, 4, 6)
        let n = 24;
        let mut tv: Vec<T> = randn_vec(n * n, 8);
        for i in 0..n {
            tv[i * n + i] = tv[i * n + i] + T::from_c64(c64::new(n as f64, 0.0));
        }
        let t = Array::from_vec(tv.clone(), &[4, 6, 8, 3], &dev).unwrap();
        let ti = tensorinv(&t, 2).unwrap();
        assert_eq!(ti.shape(), &[8, 3, 4, 6]);
        let tiv = c(&ti.to_vec().unwrap());
        let t64 = c(&tv);
        for i in 0..n {
            for j in 0..n {
                let s: c64 = (0..n).map(|k| t64[i * n + k] * tiv[k * n + j]).sum();
                let want = if i == j { 1.0 } else { 0.0 };
                assert!(
                    (s - c64::new(want, 0.0)).norm() < 200.0 * T::eps() * n as f64,
                    "tensorinv on {dev}: ({i}, {j}) = {s}"
                );
            }
        }
        assert!(matches!(
            tensorinv(&t, 0),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(tensorinv(&t, 1), Err(Error::ShapeMismatch { .. })));
    }
}
all_types!(tensor_solvers, tensor_body);

#[test]
fn fiedler_companion_roots() {
    // the roots of (x - 1)(x - 2)...(x - 6) are the eigenvalues of both companion forms
    let mut p = vec![1.0f64];
    for r in 1..=6 {
        let mut q = vec![0.0; p.len() + 1];
        for (i, &v) in p.iter().enumerate() {
            q[i] += v;
            q[i + 1] -= v * r as f64;
        }
        p = q;
    }
    for dev in devices() {
        let f = fiedler_companion(&p, &dev).unwrap();
        assert_eq!(f.shape(), &[6, 6]);
        let w = c(&eigvals(&f).unwrap().to_vec().unwrap());
        let want: Vec<c64> = (1..=6).map(|r| c64::new(r as f64, 0.0)).collect();
        same_multiset(&w, &want, 1e-8, "fiedler_companion roots");
        // pentadiagonal
        let fv = f.to_vec().unwrap();
        for i in 0..6usize {
            for j in 0..6usize {
                if i.abs_diff(j) > 2 {
                    assert_eq!(fv[i * 6 + j], 0.0);
                }
            }
        }
        assert_eq!(
            fiedler_companion(&[2.0f64, 4.0], &dev)
                .unwrap()
                .to_vec()
                .unwrap(),
            vec![-2.0]
        );
        assert_eq!(
            fiedler_companion::<f64>(&[1.0], &dev).unwrap().shape(),
            &[0, 0]
        );
        assert!(matches!(
            fiedler_companion(&[0.0f64, 1.0, 2.0], &dev),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
