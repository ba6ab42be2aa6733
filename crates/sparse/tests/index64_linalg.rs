//! 64-bit index matrices as operators of `scipy.sparse.linalg`: `matvec`/`rmatvec` of CSR and CSC
//! against dense products (and exactly the `i32` matrix's on the same device), the Krylov
//! solvers (cg, bicgstab, cgs, gmres, minres) like the `i32` matrix and to their tolerance,
//! lsqr/lsmr and svds against SciPy's results (the golden files of the `i32` tests), eigsh and
//! lobpcg against the Laplacian's exact spectrum; on every device.

use cusci_core::testing::{assert_allclose, devices, randn_vec};
use cusci_core::{c64, Array, Device, Float};
use cusci_sparse::linalg::{
    bicgstab, cg, cgs, eigsh, gmres, lobpcg, lsmr, lsqr, minres, svds, EigshOptions,
    LinearOperator, LobpcgOptions, LsqOptions, SolverOptions, SvdsOptions, Which,
};
use cusci_sparse::{diags, random, CscMatrix, CsrMatrix};

use crate::common::{
    convdiff as grid, f, load_csr, load_npz as load, lsq_like_scipy, spectrum, Solver,
};

fn host<T: Float>(a: &Array<T>) -> Vec<T> {
    a.to_vec().unwrap()
}

/// y = op(A) x for a dense row-major m x n `a` (op: none, or the conjugate transpose).
fn dense_mv<T: Float>(a: &[T], m: usize, n: usize, x: &[T], adjoint: bool) -> Vec<T> {
    if adjoint {
        (0..n)
            .map(|c| (0..m).fold(T::zero(), |s, r| s.add(a[r * n + c].conj().mul(x[r]))))
            .collect()
    } else {
        (0..m)
            .map(|r| (0..n).fold(T::zero(), |s, c| s.add(a[r * n + c].mul(x[c]))))
            .collect()
    }
}

fn operator_case<T: Float>() {
    for (m, n) in [(1, 1), (7, 5), (33, 40), (64, 9)] {
        let r = random::<T>(m, n, 0.3, 11 + m as u64, &Device::Cpu).unwrap();
        let v = randn_vec::<T>(r.nnz(), 12);
        let cpu32 = CsrMatrix::new(
            Array::from_vec(v, &[r.nnz()], &Device::Cpu).unwrap(),
            r.indices().clone(),
            r.indptr().clone(),
            (m, n),
        )
        .unwrap();
        let dense = host(&cpu32.toarray().unwrap());
        let xs = randn_vec::<T>(n, 13);
        let ys = randn_vec::<T>(m, 14);
        let tol = cusci_core::testing::rtol_for::<T>(m.max(n)) * 10.0;
        let want_mv = Array::from_vec(dense_mv(&dense, m, n, &xs, false), &[m], &Device::Cpu);
        let want_rmv = Array::from_vec(dense_mv(&dense, m, n, &ys, true), &[n], &Device::Cpu);
        let (want_mv, want_rmv) = (want_mv.unwrap(), want_rmv.unwrap());
        for dev in devices() {
            let a32 = cpu32.to_device(&dev).unwrap();
            let a64 = a32.with_index::<i64>().unwrap();
            // the CSC form of the same matrix, both index types
            let c32: CscMatrix<T> = a32.tocsc().unwrap();
            let c64m: CscMatrix<T, i64> = a64.tocsc().unwrap();
            let x = Array::from_vec(xs.clone(), &[n], &dev).unwrap();
            let y = Array::from_vec(ys.clone(), &[m], &dev).unwrap();
            let ops: [(&str, &dyn LinearOperator<T>, &dyn LinearOperator<T>); 2] =
                [("csr", &a64, &a32), ("csc", &c64m, &c32)];
            for (what, op64, op32) in ops {
                assert_eq!(op64.shape(), (m, n));
                assert_eq!(op64.device(), Some(dev.clone()));
                // twice: a second call (cached structures) gives the same bits
                for round in 0..2 {
                    let ctx = format!("{what} {m}x{n} {dev} round {round}");
                    let mv = op64.matvec(&x).unwrap();
                    assert_eq!(mv.device(), &dev);
                    assert_eq!(host(&mv), host(&op32.matvec(&x).unwrap()), "matvec {ctx}");
                    assert_allclose(
                        &mv.to_device(&Device::Cpu).unwrap(),
                        &want_mv,
                        tol,
                        tol,
                        &format!("matvec {ctx}"),
                    );
                    let rmv = op64.rmatvec(&y).unwrap();
                    assert_eq!(
                        host(&rmv),
                        host(&op32.rmatvec(&y).unwrap()),
                        "rmatvec {ctx}"
                    );
                    assert_allclose(
                        &rmv.to_device(&Device::Cpu).unwrap(),
                        &want_rmv,
                        tol,
                        tol,
                        &format!("rmatvec {ctx}"),
                    );
                }
                // shape errors as for i32
                assert!(op64.matvec(&y).is_err() || m == n);
                let x2 = Array::from_vec(xs.clone(), &[n, 1], &dev).unwrap();
                assert!(op64.matvec(&x2).is_err());
            }
        }
    }
}

#[test]
fn i64_matvec_rmatvec_csr_csc_like_dense_and_i32() {
    operator_case::<f64>();
    operator_case::<f32>();
    operator_case::<c64>();
}

/// ‖A x − b‖ / ‖b‖ on the host (f64 accumulation).
fn rel_residual<T: Float>(a: &CsrMatrix<T>, x: &Array<T>, b: &[T]) -> f64 {
    let ax = host(&a.dot(x).unwrap());
    let num: f64 = ax
        .iter()
        .zip(b)
        .map(|(p, q)| (p.to_c64() - q.to_c64()).norm_sqr())
        .sum();
    let den: f64 = b.iter().map(|q| q.to_c64().norm_sqr()).sum();
    (num / den).sqrt()
}

fn krylov_case<T: Float>(rtol: f64) {
    let k = 8;
    let n = k * k;
    let bs = randn_vec::<T>(n, 21);
    let cases: [(&str, Solver<T>, f64); 5] = [
        ("cg", cg::<T>, 0.0),
        ("minres", minres::<T>, 0.0),
        ("bicgstab", bicgstab::<T>, 0.5),
        ("cgs", cgs::<T>, 0.5),
        ("gmres", gmres::<T>, 0.5),
    ];
    for dev in devices() {
        let b = Array::from_vec(bs.clone(), &[n], &dev).unwrap();
        for (name, solve, conv) in cases {
            let a32 = grid::<T>(k, conv, &dev);
            let a64 = a32.with_index::<i64>().unwrap();
            let o = SolverOptions {
                rtol,
                ..Default::default()
            };
            let ctx = format!("{name} {} {dev}", T::DTYPE);
            let s64 = solve(&a64, &b, &o).unwrap();
            let s32 = solve(&a32, &b, &o).unwrap();
            assert_eq!(s64.info, 0, "{ctx} converges");
            assert_eq!(s64.info, s32.info, "{ctx} info");
            assert_eq!(s64.iterations, s32.iterations, "{ctx} iterations");
            assert_eq!(s64.x.device(), &dev);
            assert_eq!(host(&s64.x), host(&s32.x), "{ctx} same bits as i32");
            // minres stops on SciPy's ‖r‖ / (‖A‖ ‖x‖ + ‖b‖), the others on ‖r‖ / ‖b‖
            let bound = if name == "minres" { 100.0 } else { 1.5 } * rtol;
            let res = rel_residual(&a32, &s64.x, &bs);
            assert!(res <= bound, "{ctx}: residual {res} > {bound}");
            // a preconditioner given as an i64 matrix (the inverse diagonal)
            let dinv = diags::<T>(&[&vec![f::<T>(1.0 / (4.0 + conv)); n]], &[0], None, &dev)
                .unwrap()
                .with_index::<i64>()
                .unwrap();
            let o = SolverOptions {
                rtol,
                m: Some(&dinv),
                ..Default::default()
            };
            let sp = solve(&a64, &b, &o).unwrap();
            assert_eq!(sp.info, 0, "{ctx} preconditioned");
            let res = rel_residual(&a32, &sp.x, &bs);
            assert!(res <= bound, "{ctx} preconditioned: residual {res}");
        }
    }
}

#[test]
fn i64_krylov_solvers_like_i32() {
    krylov_case::<f64>(1e-10);
    krylov_case::<c64>(1e-10);
    krylov_case::<f32>(1e-4);
}

#[test]
fn i64_lsqr_lsmr_like_scipy() {
    let file = "scipy_sparse_solvers";
    for dev in devices() {
        let l = load_csr(file, "l", (40, 15), &dev)
            .with_index::<i64>()
            .unwrap();
        let b = load::<f64>(file, "l_b", &dev);
        for damp in [0.0, 0.7] {
            let o = LsqOptions {
                damp,
                atol: 1e-10,
                btol: 1e-10,
                ..Default::default()
            };
            let sfx = if damp > 0.0 { "_damp" } else { "" };
            let ctx = format!("{dev} damp {damp}");
            let r = lsqr(&l, &b, &o).unwrap();
            lsq_like_scipy("lsqr", sfx, (r.istop, r.itn, &r.x), &[], &dev, &ctx);
            let r = lsmr(&l, &b, &o).unwrap();
            lsq_like_scipy("lsmr", sfx, (r.istop, r.itn, &r.x), &[], &dev, &ctx);
        }
        // the CSC form (the transpose's arrays) gives the same solution
        let r = lsqr(&l.tocsc().unwrap(), &b, &LsqOptions::default()).unwrap();
        let r2 = lsqr(&l, &b, &LsqOptions::default()).unwrap();
        assert_allclose(&r.x, &r2.x, 1e-10, 1e-12, &format!("lsqr csc vs csr {dev}"));
    }
}

#[test]
fn i64_svds_like_scipy() {
    let file = "scipy_sparse_eigen";
    for dev in devices() {
        let a = load_csr(file, "s", (40, 25), &dev)
            .with_index::<i64>()
            .unwrap();
        let at = a.transpose().tocsr().unwrap();
        for (mat, k, which, key) in [
            (&a, 4, Which::LM, "svds_lm"),
            (&a, 3, Which::SM, "svds_sm"),
            (&at, 4, Which::LM, "svds_lm_t"),
        ] {
            let want = host(&load::<f64>(file, key, &Device::Cpu));
            let r = svds(
                mat,
                k,
                &SvdsOptions {
                    which,
                    ..Default::default()
                },
            )
            .unwrap();
            for (g, w) in r.s.iter().zip(&want) {
                assert!((g - w).abs() < 1e-10, "{dev} {key}: {:?} vs {want:?}", r.s);
            }
            assert_eq!(r.u.as_ref().unwrap().device(), &dev);
        }
    }
}

#[test]
fn i64_eigsh_and_lobpcg_laplacian_spectrum() {
    let k = 9;
    let ex = spectrum(k);
    let n = k * k;
    for dev in devices() {
        let a = grid::<f64>(k, 0.0, &dev).with_index::<i64>().unwrap();
        for (which, want) in [
            (Which::LA, ex[n - 4..].to_vec()),
            (Which::SA, ex[..4].to_vec()),
        ] {
            let r = eigsh(
                &a,
                want.len(),
                &EigshOptions {
                    which,
                    ..Default::default()
                },
            )
            .unwrap();
            for (g, w) in r.w.iter().zip(&want) {
                assert!((g - w).abs() < 1e-9, "{dev} {which:?}: {:?}", r.w);
            }
            assert_eq!(r.v.as_ref().unwrap().device(), &dev);
        }
        // the CSC form is the same operator (symmetric matrix)
        let r = eigsh(&a.tocsc().unwrap(), 2, &EigshOptions::default()).unwrap();
        for (g, w) in r.w.iter().zip(&ex[n - 2..]) {
            assert!((g - w).abs() < 1e-9, "{dev} csc: {:?}", r.w);
        }
        let x = cusci_core::testing::randn::<f64>(&[n, 3], 5, &dev).unwrap();
        let r = lobpcg(
            &a,
            &x,
            &LobpcgOptions {
                tol: Some(1e-9),
                maxiter: 400,
                largest: false,
                ..Default::default()
            },
        )
        .unwrap();
        for (g, w) in r.w.iter().zip(&ex[..3]) {
            assert!((g - w).abs() < 1e-9, "{dev} lobpcg: {:?}", r.w);
        }
    }
}

/// The transpose kept by `rmatvec` (CSR) and `matvec`/`dot` (CSC) belongs to one matrix:
/// matrices derived from it (scaled, conjugated, moved, converted) get their own, clones share
/// it, and every product matches the dense oracle.
#[test]
fn kept_transposes_follow_their_matrix() {
    let (m, n) = (9, 6);
    let r = random::<c64>(m, n, 0.5, 31, &Device::Cpu).unwrap();
    let v = randn_vec::<c64>(r.nnz(), 32);
    let cpu = CsrMatrix::new(
        Array::from_vec(v, &[r.nnz()], &Device::Cpu).unwrap(),
        r.indices().clone(),
        r.indptr().clone(),
        (m, n),
    )
    .unwrap();
    let dense = host(&cpu.toarray().unwrap());
    let ys = randn_vec::<c64>(m, 33);
    let xs = randn_vec::<c64>(n, 34);
    let cx = |v: Vec<c64>, len: usize| Array::from_vec(v, &[len], &Device::Cpu).unwrap();
    for dev in devices() {
        let a = cpu.to_device(&dev).unwrap();
        let y = Array::from_vec(ys.clone(), &[m], &dev).unwrap();
        let x = Array::from_vec(xs.clone(), &[n], &dev).unwrap();
        let check = |got: Array<c64>, want: Vec<c64>, what: &str| {
            let len = want.len();
            assert_allclose(
                &got.to_device(&Device::Cpu).unwrap(),
                &cx(want, len),
                1e-13,
                1e-13,
                &format!("{what} on {dev}"),
            );
        };
        check(
            a.rmatvec(&y).unwrap(),
            dense_mv(&dense, m, n, &ys, true),
            "A^H y",
        );
        // a clone shares the kept transpose and gives the same bits
        let b = a.clone();
        assert_eq!(host(&b.rmatvec(&y).unwrap()), host(&a.rmatvec(&y).unwrap()));
        // derived matrices: 2A, conj(A), A with i64 indices, A on the CPU
        let two = a.mul_scalar(c64::new(2.0, 0.0)).unwrap();
        let d2: Vec<c64> = dense.iter().map(|v| v * 2.0).collect();
        check(
            two.rmatvec(&y).unwrap(),
            dense_mv(&d2, m, n, &ys, true),
            "(2A)^H y",
        );
        let cj = a.conj().unwrap();
        let dc: Vec<c64> = dense.iter().map(|v| v.conj()).collect();
        check(
            cj.rmatvec(&y).unwrap(),
            dense_mv(&dc, m, n, &ys, true),
            "conj(A)^H y",
        );
        check(
            a.with_index::<i64>().unwrap().rmatvec(&y).unwrap(),
            dense_mv(&dense, m, n, &ys, true),
            "A64^H y",
        );
        // the CSC form: dot (SpMV and SpMM) twice, then the adjoint
        let c = a.tocsc().unwrap();
        for _ in 0..2 {
            check(
                c.dot(&x).unwrap(),
                dense_mv(&dense, m, n, &xs, false),
                "csc A x",
            );
        }
        let xm = Array::from_vec(xs.clone(), &[n, 1], &dev).unwrap();
        check(
            c.dot(&xm).unwrap().reshape(&[m as isize]).unwrap(),
            dense_mv(&dense, m, n, &xs, false),
            "csc A X",
        );
        check(
            c.rmatvec(&y).unwrap(),
            dense_mv(&dense, m, n, &ys, true),
            "csc A^H y",
        );
        // the transpose of A (a CSC view of A's arrays) as an operator: Aᵀ y = conj(conj(A)ᴴ y)
        let at = a.transpose();
        check(
            at.matvec(&y).unwrap(),
            dense_mv(&dc, m, n, &ys, true),
            "A^T y",
        );
        // wrong lengths and ranks: typed errors
        assert!(matches!(
            a.rmatvec(&x),
            Err(cusci_core::Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            c.rmatvec(&xm),
            Err(cusci_core::Error::ShapeMismatch { .. })
        ));
    }
}

/// The direct solvers take i64 matrices (converted to the 32-bit indices of their kernels and
/// factors, as SciPy's SuperLU downcasts): the same results as the i32 matrix, small residuals.
#[test]
fn i64_direct_solvers_like_i32() {
    use cusci_sparse::linalg::{factorized, spilu, splu, spsolve, spsolve_triangular, IluOptions};
    use cusci_sparse::tril;
    let k = 6;
    let n = k * k;
    let bs = randn_vec::<f64>(n, 51);
    for dev in devices() {
        let a32 = grid::<f64>(k, 0.5, &dev);
        let a64 = a32.with_index::<i64>().unwrap();
        let b = Array::from_vec(bs.clone(), &[n], &dev).unwrap();
        let x = spsolve(&a64, &b).unwrap();
        assert_eq!(x.device(), &dev);
        assert_eq!(host(&x), host(&spsolve(&a32, &b).unwrap()), "spsolve {dev}");
        let res = rel_residual(&a32, &x, &bs);
        assert!(res < 1e-13, "spsolve {dev}: {res}");
        let lu = splu(&a64).unwrap();
        assert_eq!(host(&lu.solve(&b).unwrap()), host(&x), "splu {dev}");
        let solve = factorized(&a64).unwrap();
        assert_eq!(host(&solve(&b).unwrap()), host(&x), "factorized {dev}");
        // lower triangle: forward substitution against the i32 matrix and the residual
        let l64 = tril(&a64, 0).unwrap();
        let l32 = tril(&a32, 0).unwrap();
        let y = spsolve_triangular(&l64, &b, true, false).unwrap();
        assert_eq!(
            host(&y),
            host(&spsolve_triangular(&l32, &b, true, false).unwrap()),
            "spsolve_triangular {dev}"
        );
        let res = rel_residual(&l32, &y, &bs);
        assert!(res < 1e-13, "spsolve_triangular {dev}: {res}");
        // ILU as a preconditioner of gmres with the i64 matrix
        let ilu = spilu(&a64, &IluOptions::default()).unwrap();
        let ilu32 = spilu(&a32, &IluOptions::default()).unwrap();
        assert_eq!(
            host(&ilu.solve(&b).unwrap()),
            host(&ilu32.solve(&b).unwrap()),
            "spilu {dev}"
        );
        let s = gmres(
            &a64,
            &b,
            &SolverOptions {
                rtol: 1e-10,
                m: Some(&ilu),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(s.info, 0);
        assert!(rel_residual(&a32, &s.x, &bs) < 2e-10, "gmres + spilu {dev}");
        // a non-square i64 matrix: the same error as for i32
        let r = a64.transpose().tocsr().unwrap();
        let rect = cusci_sparse::hstack(&[&r, &r]).unwrap();
        assert!(matches!(
            spsolve(&rect, &b),
            Err(cusci_core::Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            splu(&rect),
            Err(cusci_core::Error::ShapeMismatch { .. })
        ));
    }
}
