//! spsolve_triangular, splu, spsolve, factorized: against dense substitution and dense products
//! (Pr A = L U), residuals, GPU against CPU (the same body on every device), bad input.

use cusci_core::testing::{assert_slices_close, devices, randn_vec};
use cusci_core::{c64, Array, Device, Error, Float};
use cusci_sparse::linalg::{factorized, splu, spsolve, spsolve_triangular};
use cusci_sparse::CsrMatrix;

/// A dense n x n host matrix: about `keep` of the random entries kept, plus `diag` on the
/// diagonal (or on the anti-diagonal when `anti`).
fn dense<T: Float>(n: usize, seed: u64, keep: usize, diag: f64, anti: bool) -> Vec<T> {
    let r = randn_vec::<T>(n * n, seed);
    let mut a: Vec<T> = r
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            if (i * 2654435761usize) % 100 < keep {
                v
            } else {
                T::zero()
            }
        })
        .collect();
    for i in 0..n {
        let j = if anti { n - 1 - i } else { i };
        a[i * n + j] = a[i * n + j].add(T::from_c64(c64::new(diag, 0.0)));
    }
    a
}

fn csr<T: Float>(a: &[T], n: usize, dev: &Device) -> CsrMatrix<T> {
    CsrMatrix::from_dense(&Array::from_vec(a.to_vec(), &[n, n], dev).unwrap()).unwrap()
}

/// Dense triangular solve (the oracle), columns of a row-major (n, k) b.
fn dense_tri<T: Float>(a: &[T], n: usize, b: &[T], k: usize, lower: bool, unit: bool) -> Vec<T> {
    let mut x = b.to_vec();
    for c in 0..k {
        for t in 0..n {
            let i = if lower { t } else { n - 1 - t };
            let mut s = x[i * k + c];
            for j in 0..n {
                if (lower && j < i) || (!lower && j > i) {
                    s = s.sub(a[i * n + j].mul(x[j * k + c]));
                }
            }
            x[i * k + c] = if unit { s } else { s.div(a[i * n + i]) };
        }
    }
    x
}

fn tri_case<T: Float>(tol: f64) {
    for n in [1usize, 2, 33, 257] {
        let full = dense::<T>(n, 11 + n as u64, 30, 4.0, false);
        for lower in [true, false] {
            for unit in [false, true] {
                let tri: Vec<T> = (0..n * n)
                    .map(|e| {
                        let (i, j) = (e / n, e % n);
                        if i == j {
                            full[e]
                        } else if (lower && j < i) || (!lower && j > i) {
                            // small off-diagonal entries: no growth with a unit diagonal
                            full[e].mul(T::from_c64(c64::new(0.2, 0.0)))
                        } else {
                            T::zero()
                        }
                    })
                    .collect();
                for k in [0usize, 3] {
                    let kk = k.max(1);
                    let b = randn_vec::<T>(n * kk, 5);
                    let want = dense_tri(&tri, n, &b, kk, lower, unit);
                    for dev in devices() {
                        let a = csr(&tri, n, &dev);
                        let shape: Vec<usize> = if k == 0 { vec![n] } else { vec![n, k] };
                        let bd = Array::from_vec(b.clone(), &shape, &dev).unwrap();
                        let x = spsolve_triangular(&a, &bd, lower, unit).unwrap();
                        assert_eq!(x.shape(), &shape[..]);
                        let ctx = format!("{dev} n {n} lower {lower} unit {unit} k {k}");
                        assert_slices_close(&x.to_vec().unwrap(), &want, &shape, tol, tol, &ctx);
                    }
                }
            }
        }
    }
}

#[test]
fn spsolve_triangular_against_dense_substitution() {
    tri_case::<f64>(1e-10);
    tri_case::<c64>(1e-10);
    tri_case::<f32>(1e-3);
}

fn matmul<T: Float>(a: &[T], b: &[T], n: usize) -> Vec<T> {
    let mut c = vec![T::zero(); n * n];
    for i in 0..n {
        for k in 0..n {
            let v = a[i * n + k];
            if v != T::zero() {
                for j in 0..n {
                    c[i * n + j] = c[i * n + j].add(v.mul(b[k * n + j]));
                }
            }
        }
    }
    c
}

fn lu_case<T: Float>(tol: f64) {
    for n in [1usize, 2, 31, 120] {
        // a large anti-diagonal: partial pivoting has to leave the natural diagonal
        let a = dense::<T>(n, 3 + n as u64, 8, 3.0, true);
        let mut first: Option<Vec<T>> = None;
        for dev in devices() {
            let ad = csr(&a, n, &dev);
            let lu = splu(&ad).unwrap();
            let l = lu.l().toarray().unwrap().to_vec().unwrap();
            let u = lu.u().toarray().unwrap().to_vec().unwrap();
            // Pr A = L U, with (Pr A)[perm_r[i], :] = A[i, :]
            let mut pa = vec![T::zero(); n * n];
            for (i, &r) in lu.perm_r().iter().enumerate() {
                pa[r * n..(r + 1) * n].copy_from_slice(&a[i * n..(i + 1) * n]);
            }
            let ctx = format!("{dev} n {n} {}", T::DTYPE);
            assert_slices_close(&matmul(&l, &u, n), &pa, &[n, n], tol, tol, &ctx);
            for i in 0..n {
                assert_eq!(l[i * n + i], T::one(), "{ctx}: unit diagonal");
                for j in i + 1..n {
                    assert_eq!(l[i * n + j], T::zero(), "{ctx}: L lower");
                    assert_eq!(u[j * n + i], T::zero(), "{ctx}: U upper");
                }
            }
            assert_eq!(lu.perm_c(), (0..n).collect::<Vec<_>>());
            // solves: residuals, 1-D and 2-D, spsolve and factorized give the same
            let b = randn_vec::<T>(n * 2, 7);
            let b2 = Array::from_vec(b.clone(), &[n, 2], &dev).unwrap();
            let x2 = spsolve(&ad, &b2).unwrap();
            let r = ad.dot(&x2).unwrap().to_vec().unwrap();
            assert_slices_close(&r, &b, &[n, 2], tol, tol, &format!("{ctx} residual"));
            let b1 = Array::from_vec(b[..n].to_vec(), &[n], &dev).unwrap();
            let solve = factorized(&ad).unwrap();
            let x1 = solve(&b1).unwrap();
            let r = ad.dot(&x1).unwrap().to_vec().unwrap();
            assert_slices_close(&r, &b[..n], &[n], tol, tol, &format!("{ctx} 1-D"));
            let xv = x2.to_vec().unwrap();
            match &first {
                None => first = Some(xv),
                Some(c) => assert_slices_close(&xv, c, &[n, 2], tol, tol, "gpu vs cpu"),
            }
        }
    }
}

#[test]
fn splu_factors_and_solves() {
    lu_case::<f64>(1e-10);
    lu_case::<c64>(1e-10);
    lu_case::<f32>(2e-3);
}

#[test]
fn bad_input_gives_typed_errors() {
    for dev in devices() {
        // singular: a zero column
        let a = csr(&[1.0f64, 0.0, 1.0, 0.0], 2, &dev);
        let b = Array::from_vec(vec![1.0, 2.0], &[2], &dev).unwrap();
        assert!(matches!(splu(&a), Err(Error::Singular { index: 1, .. })));
        assert!(matches!(spsolve(&a, &b), Err(Error::Singular { .. })));
        // structurally fine but numerically singular (rank 1)
        let a = csr(&[1.0f64, 2.0, 2.0, 4.0], 2, &dev);
        assert!(matches!(spsolve(&a, &b), Err(Error::Singular { .. })));
        // zero diagonal in a triangular solve: the first in solve order
        let t = csr(&[1.0f64, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0], 3, &dev);
        let b3 = Array::from_vec(vec![1.0, 2.0, 3.0], &[3], &dev).unwrap();
        assert!(matches!(
            spsolve_triangular(&t, &b3, true, false),
            Err(Error::Singular { index: 1, .. })
        ));
        assert!(matches!(
            spsolve_triangular(&t, &b3, false, false),
            Err(Error::Singular { index: 2, .. })
        ));
        // unit_diagonal does not read the diagonal
        let x = spsolve_triangular(&t, &b3, true, true).unwrap();
        assert_eq!(x.to_vec().unwrap(), vec![1.0, 1.0, 1.0]);
        // shapes
        let rect = CsrMatrix::from_dense(&Array::<f64>::zeros(&[2, 3], &dev).unwrap()).unwrap();
        assert!(matches!(splu(&rect), Err(Error::ShapeMismatch { .. })));
        assert!(matches!(
            spsolve_triangular(&rect, &b, true, false),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            spsolve_triangular(&t, &b, true, false),
            Err(Error::ShapeMismatch { .. })
        ));
        let eye = csr(&[1.0f64, 0.0, 0.0, 1.0], 2, &dev);
        let lu = splu(&eye).unwrap();
        assert!(matches!(lu.solve(&b3), Err(Error::ShapeMismatch { .. })));
        let b22 = Array::<f64>::zeros(&[3, 2], &dev).unwrap();
        assert!(matches!(
            spsolve(&eye, &b22),
            Err(Error::ShapeMismatch { .. })
        ));
        // 0 x 0
        let e0 = CsrMatrix::from_dense(&Array::<f64>::zeros(&[0, 0], &dev).unwrap()).unwrap();
        let z = Array::<f64>::zeros(&[0], &dev).unwrap();
        assert_eq!(spsolve(&e0, &z).unwrap().len(), 0);
        assert_eq!(spsolve_triangular(&e0, &z, true, false).unwrap().len(), 0);
    }
}
