//! eigs (issue 31) and eigsh's `sigma` and `BE`: SciPy's eigenvalues
//! (`tests/data/scipy_sparse_eigs.npz`, section `sparse_eigs` of `tests/golden/gen.py`) for a
//! real non-symmetric and a complex matrix and every `which`, the dense spectrum for SM,
//! residuals `‖A v − λ v‖` and unit norms of the eigenvectors, f32 and c32, shift-invert on
//! both, the identity (an invariant subspace at once), operators, and GPU against CPU (the same
//! body on every device; the eigenvalues compared as sets).

use cusci_core::testing::devices;
use cusci_core::{c32, c64, Array, Device, Error, Float};
use cusci_sparse::linalg::{
    eigs, eigsh, splu, EigsOptions, EigsWhich, EigshOptions, FnOperator, LinearOperator, Which,
};
use cusci_sparse::{diags, CsrMatrix};

use crate::common::{load_csr, load_npz};

const FILE: &str = "scipy_sparse_eigs";

fn real_matrix(dev: &Device) -> CsrMatrix<f64> {
    load_csr(FILE, "r", (40, 40), dev)
}

fn complex_matrix(dev: &Device) -> CsrMatrix<c64> {
    CsrMatrix::new(
        load_npz::<c64>(FILE, "c_data", dev),
        load_npz(FILE, "c_indices", dev),
        load_npz(FILE, "c_indptr", dev),
        (30, 30),
    )
    .unwrap()
}

fn sym_matrix(dev: &Device) -> CsrMatrix<f64> {
    load_csr(FILE, "s", (30, 30), dev)
}

fn golden(name: &str) -> Vec<c64> {
    load_npz::<c64>(FILE, name, &Device::Cpu).to_vec().unwrap()
}

fn golden_f(name: &str) -> Vec<f64> {
    load_npz::<f64>(FILE, name, &Device::Cpu).to_vec().unwrap()
}

fn golden_k(name: &str) -> usize {
    load_npz::<i64>(FILE, &format!("{name}_k"), &Device::Cpu)
        .to_vec()
        .unwrap()[0] as usize
}

/// Every value of `want` matched by a distinct value of `got` within `tol · max(1, |w|)`.
fn same_set(got: &[c64], want: &[c64], tol: f64, ctx: &str) {
    assert_eq!(got.len(), want.len(), "{ctx}: {got:?} vs {want:?}");
    let mut used = vec![false; got.len()];
    for w in want {
        let j = (0..got.len())
            .filter(|&j| !used[j])
            .min_by(|&x, &y| (got[x] - w).norm().total_cmp(&(got[y] - w).norm()))
            .unwrap();
        assert!(
            (got[j] - w).norm() <= tol * w.norm().max(1.0),
            "{ctx}: {w} not in {got:?} (want {want:?})"
        );
        used[j] = true;
    }
}

/// max over the columns of ‖A v_i − w_i v_i‖ / max(1, |w_i|) and of |‖v_i‖ − 1|, on the host.
fn residual<T: Float, C: Float>(a: &CsrMatrix<T>, w: &[c64], v: &Array<C>) -> (f64, f64) {
    let n = a.shape().0;
    let k = w.len();
    assert_eq!(v.shape(), [n, k]);
    let ad: Vec<c64> = a
        .toarray()
        .unwrap()
        .to_vec()
        .unwrap()
        .iter()
        .map(|x| x.to_c64())
        .collect();
    let vv: Vec<c64> = v.to_vec().unwrap().iter().map(|x| x.to_c64()).collect();
    let (mut res, mut nrm) = (0.0f64, 0.0f64);
    for (c, &l) in w.iter().enumerate() {
        let x: Vec<c64> = (0..n).map(|r| vv[r * k + c]).collect();
        let mut r2 = 0.0;
        for i in 0..n {
            let ax: c64 = (0..n).map(|j| ad[i * n + j] * x[j]).sum();
            r2 += (ax - l * x[i]).norm_sqr();
        }
        res = res.max(r2.sqrt() / l.norm().max(1.0));
        let xn = x.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
        nrm = nrm.max((xn - 1.0).abs());
    }
    (res, nrm)
}

fn opts<T: Float>(which: EigsWhich) -> EigsOptions<'static, T> {
    EigsOptions {
        which,
        ..Default::default()
    }
}

const REAL_WHICH: [(EigsWhich, &str); 4] = [
    (EigsWhich::LM, "LM"),
    (EigsWhich::LR, "LR"),
    (EigsWhich::SR, "SR"),
    (EigsWhich::LI, "LI"),
];

#[test]
fn eigs_real_matches_scipy_for_every_which_and_devices_agree() {
    let mut cpu: Vec<Vec<c64>> = Vec::new();
    for dev in devices() {
        let a = real_matrix(&dev);
        for (t, (which, name)) in REAL_WHICH.iter().enumerate() {
            let key = format!("eigs_r_{name}");
            let k = golden_k(&key);
            let r = eigs(&a, k, &opts(*which)).unwrap();
            let ctx = format!("{dev} real {name}");
            same_set(&r.w, &golden(&key), 1e-8, &ctx);
            let (res, nrm) = residual(&a, &r.w, r.v.as_ref().unwrap());
            assert!(res < 1e-9 && nrm < 1e-12, "{ctx}: {res} {nrm}");
            // a conjugate pair comes out as a pair, a + bi first
            for p in r.w.windows(2) {
                if p[0].im > 0.0 {
                    assert_eq!(p[0], p[1].conj(), "{ctx}: {:?}", r.w);
                }
            }
            if dev == Device::Cpu {
                cpu.push(r.w.clone());
            } else {
                same_set(&r.w, &cpu[t], 1e-9, &format!("{ctx} vs CPU"));
            }
        }
    }
}

#[test]
fn eigs_complex_matches_scipy_for_every_which() {
    let mut cpu: Vec<Vec<c64>> = Vec::new();
    for dev in devices() {
        let a = complex_matrix(&dev);
        for (t, (which, name)) in REAL_WHICH
            .iter()
            .copied()
            .chain([(EigsWhich::SI, "SI")])
            .enumerate()
        {
            let key = format!("eigs_c_{name}");
            let k = golden_k(&key);
            let r = eigs(&a, k, &opts(which)).unwrap();
            let ctx = format!("{dev} complex {name}");
            same_set(&r.w, &golden(&key), 1e-8, &ctx);
            let (res, nrm) = residual(&a, &r.w, r.v.as_ref().unwrap());
            assert!(res < 1e-9 && nrm < 1e-12, "{ctx}: {res} {nrm}");
            if dev == Device::Cpu {
                cpu.push(r.w.clone());
            } else {
                same_set(&r.w, &cpu[t], 1e-9, &format!("{ctx} vs CPU"));
            }
        }
    }
}

/// SM against the dense spectrum: a convection–diffusion matrix (positive real spectrum, so the
/// smallest magnitudes are an end of it), and shift-invert at 0 on the real golden matrix (SciPy's
/// advice for SM; plain SM does not converge there, in SciPy either).
#[test]
fn eigs_smallest_magnitude_against_dense_spectrum() {
    for dev in devices() {
        let a = crate::common::convdiff::<f64>(8, 1.0, &dev);
        let n = 64;
        let d: Vec<f64> = a.toarray().unwrap().to_vec().unwrap();
        let m = faer::Mat::<f64>::from_fn(n, n, |i, j| d[i * n + j]);
        let mut all: Vec<c64> = m.eigenvalues().unwrap();
        all.sort_by(|x, y| x.norm().total_cmp(&y.norm()));
        let r = eigs(&a, 3, &opts(EigsWhich::SM)).unwrap();
        same_set(&r.w, &all[..3], 1e-8, &format!("{dev} SM"));
        // magnitudes ascending: the documented order
        for p in r.w.windows(2) {
            assert!(p[0].norm() <= p[1].norm() + 1e-12, "{dev}: {:?}", r.w);
        }
        let (res, _) = residual(&a, &r.w, r.v.as_ref().unwrap());
        assert!(res < 1e-9, "{dev} SM: {res}");

        let a = real_matrix(&dev);
        let mut all = golden("eigs_r_all");
        all.sort_by(|x, y| x.norm().total_cmp(&y.norm()));
        let k = if (all[2].norm() - all[3].norm()).abs() < 1e-8 {
            4
        } else {
            3
        };
        let r = eigs(
            &a,
            k,
            &EigsOptions {
                sigma: Some(c64::new(0.0, 0.0)),
                ..Default::default()
            },
        )
        .unwrap();
        same_set(&r.w, &all[..k], 1e-9, &format!("{dev} sigma 0"));
    }
}

#[test]
fn eigs_single_precision() {
    for dev in devices() {
        let a = real_matrix(&dev);
        let a32 = CsrMatrix::new(
            a.data().astype::<f32>().unwrap(),
            a.indices().clone(),
            a.indptr().clone(),
            (40, 40),
        )
        .unwrap();
        let k = golden_k("eigs_r_LM");
        let r = eigs(&a32, k, &opts::<f32>(EigsWhich::LM)).unwrap();
        same_set(&r.w, &golden("eigs_r_LM"), 1e-4, &format!("{dev} f32"));
        let v: &Array<c32> = r.v.as_ref().unwrap();
        let (res, nrm) = residual(&a32, &r.w, v);
        assert!(res < 1e-4 && nrm < 1e-5, "{dev} f32: {res} {nrm}");

        let c = complex_matrix(&dev);
        let c32m = CsrMatrix::new(
            c.data().astype::<c32>().unwrap(),
            c.indices().clone(),
            c.indptr().clone(),
            (30, 30),
        )
        .unwrap();
        let r = eigs(&c32m, 3, &opts::<c32>(EigsWhich::LR)).unwrap();
        same_set(&r.w, &golden("eigs_c_LR"), 1e-4, &format!("{dev} c32"));
        let (res, nrm) = residual(&c32m, &r.w, r.v.as_ref().unwrap());
        assert!(res < 1e-4 && nrm < 1e-5, "{dev} c32: {res} {nrm}");
    }
}

#[test]
fn eigs_shift_invert_real_and_complex() {
    for dev in devices() {
        let a = real_matrix(&dev);
        let r = eigs(
            &a,
            3,
            &EigsOptions {
                sigma: Some(c64::new(0.3, 0.0)),
                ..Default::default()
            },
        )
        .unwrap();
        same_set(
            &r.w,
            &golden("eigs_r_sigma"),
            1e-9,
            &format!("{dev} r sigma"),
        );
        let (res, _) = residual(&a, &r.w, r.v.as_ref().unwrap());
        assert!(res < 1e-9, "{dev}: {res}");
        // nearest sigma first
        for p in r.w.windows(2) {
            assert!((p[0] - 0.3).norm() <= (p[1] - 0.3).norm() + 1e-12);
        }
        let c = complex_matrix(&dev);
        let sigma = c64::new(0.5, 0.5);
        let r = eigs(
            &c,
            3,
            &EigsOptions {
                sigma: Some(sigma),
                ..Default::default()
            },
        )
        .unwrap();
        same_set(
            &r.w,
            &golden("eigs_c_sigma"),
            1e-9,
            &format!("{dev} c sigma"),
        );
        let (res, _) = residual(&c, &r.w, r.v.as_ref().unwrap());
        assert!(res < 1e-9, "{dev}: {res}");
    }
}

#[test]
fn eigs_identity_operator_and_no_vectors() {
    for dev in devices() {
        // the identity: the Krylov space is invariant after one step
        let e = diags::<f64>(&[&[1.0; 30]], &[0], None, &dev).unwrap();
        let r = eigs(&e, 3, &opts(EigsWhich::LM)).unwrap();
        same_set(
            &r.w,
            &[c64::new(1.0, 0.0); 3],
            1e-12,
            &format!("{dev} identity"),
        );
        let (res, nrm) = residual(&e, &r.w, r.v.as_ref().unwrap());
        assert!(res < 1e-12 && nrm < 1e-12, "{dev}: {res} {nrm}");
        // a closure operator gives the matrix's values; no vectors when not asked
        let a = real_matrix(&dev);
        let f = FnOperator::new((40, 40), |x: &Array<f64>| a.matvec(x));
        let v0 = Array::<f64>::ones(&[40], &dev).unwrap();
        let r = eigs(
            &f,
            golden_k("eigs_r_LR"),
            &EigsOptions {
                which: EigsWhich::LR,
                v0: Some(&v0),
                return_eigenvectors: false,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(r.v.is_none());
        same_set(
            &r.w,
            &golden("eigs_r_LR"),
            1e-8,
            &format!("{dev} FnOperator"),
        );
    }
}

#[test]
fn eigsh_both_ends_and_shift_invert_match_scipy() {
    for dev in devices() {
        let s = sym_matrix(&dev);
        let check = |w: &[f64], name: &str, tol: f64| {
            let want = golden_f(name);
            assert_eq!(w.len(), want.len(), "{dev} {name}");
            for (g, x) in w.iter().zip(&want) {
                assert!((g - x).abs() < tol, "{dev} {name}: {w:?} vs {want:?}");
            }
        };
        let r = eigsh(
            &s,
            5,
            &EigshOptions {
                which: Which::BE,
                ..Default::default()
            },
        )
        .unwrap();
        check(&r.w, "eigsh_be", 1e-9);
        let r = eigsh(
            &s,
            3,
            &EigshOptions {
                sigma: Some(1.1),
                ..Default::default()
            },
        )
        .unwrap();
        check(&r.w, "eigsh_sigma", 1e-9);
        // the vectors: residuals
        let w: Vec<c64> = r.w.iter().map(|&x| c64::new(x, 0.0)).collect();
        let (res, nrm) = residual(&s, &w, r.v.as_ref().unwrap());
        assert!(res < 1e-9 && nrm < 1e-12, "{dev}: {res} {nrm}");
        let r = eigsh(
            &s,
            4,
            &EigshOptions {
                sigma: Some(1.1),
                which: Which::BE,
                ..Default::default()
            },
        )
        .unwrap();
        check(&r.w, "eigsh_sigma_be", 1e-9);
        // a closure operator with the user's inverse (SciPy's OPinv)
        let shifted = s
            .sub(
                &cusci_sparse::eye::<f64>(30, 30, 0, &dev)
                    .unwrap()
                    .mul_scalar(1.1)
                    .unwrap(),
            )
            .unwrap();
        let lu = splu(&shifted).unwrap();
        let inv = FnOperator::new((30, 30), |x: &Array<f64>| lu.solve(x)).on(&dev);
        let f = FnOperator::new((30, 30), |x: &Array<f64>| s.matvec(x)).on(&dev);
        let r = eigsh(
            &f,
            3,
            &EigshOptions {
                sigma: Some(1.1),
                opinv: Some(&inv),
                ..Default::default()
            },
        )
        .unwrap();
        check(&r.w, "eigsh_sigma", 1e-9);
        // the whole spectrum's ends agree with the dense values
        let all = golden_f("eigsh_all");
        let r = eigsh(
            &s,
            2,
            &EigshOptions {
                which: Which::BE,
                ..Default::default()
            },
        )
        .unwrap();
        assert!((r.w[0] - all[0]).abs() < 1e-9 && (r.w[1] - all[29]).abs() < 1e-9);
    }
}

#[test]
fn eigs_and_eigsh_bad_input() {
    for dev in devices() {
        let a = real_matrix(&dev);
        let o = EigsOptions::<f64>::default();
        let arg = |r: Result<(), Error>| matches!(r, Err(Error::InvalidArgument { .. }));
        assert!(arg(eigs(&a, 0, &o).map(|_| ())));
        assert!(arg(eigs(&a, 39, &o).map(|_| ())), "k = n - 1");
        assert!(arg(eigs(&a, 40, &o).map(|_| ())));
        let ncv = EigsOptions::<f64> {
            ncv: Some(4),
            ..Default::default()
        };
        assert!(arg(eigs(&a, 3, &ncv).map(|_| ())), "ncv = k + 1");
        let tol = EigsOptions::<f64> {
            tol: -1.0,
            ..Default::default()
        };
        assert!(arg(eigs(&a, 3, &tol).map(|_| ())));
        let cs = EigsOptions::<f64> {
            sigma: Some(c64::new(0.0, 1.0)),
            ..Default::default()
        };
        assert!(arg(eigs(&a, 3, &cs).map(|_| ())), "complex sigma, real A");
        let nan = EigsOptions::<f64> {
            sigma: Some(c64::new(f64::NAN, 0.0)),
            ..Default::default()
        };
        assert!(arg(eigs(&a, 3, &nan).map(|_| ())));
        let f = FnOperator::new((40, 40), |x: &Array<f64>| a.matvec(x));
        let s1 = EigsOptions::<f64> {
            sigma: Some(c64::new(1.0, 0.0)),
            ..Default::default()
        };
        assert!(
            arg(eigs(&f, 3, &s1).map(|_| ())),
            "sigma, operator, no opinv"
        );
        let rect = CsrMatrix::from_dense(&Array::<f64>::zeros(&[3, 4], &dev).unwrap()).unwrap();
        assert!(matches!(
            eigs(&rect, 1, &o),
            Err(Error::ShapeMismatch { .. })
        ));
        let short = Array::<f64>::ones(&[5], &dev).unwrap();
        let sv0 = EigsOptions {
            v0: Some(&short),
            ..Default::default()
        };
        assert!(matches!(
            eigs(&a, 2, &sv0),
            Err(Error::ShapeMismatch { .. })
        ));
        // sigma on an eigenvalue: A − σI is singular
        let d = diags::<f64>(&[&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]], &[0], None, &dev).unwrap();
        let s2 = EigshOptions::<f64> {
            sigma: Some(2.0),
            ..Default::default()
        };
        assert!(matches!(eigsh(&d, 2, &s2), Err(Error::Singular { .. })));
        let sinf = EigshOptions::<f64> {
            sigma: Some(f64::INFINITY),
            ..Default::default()
        };
        assert!(matches!(
            eigsh(&d, 2, &sinf),
            Err(Error::InvalidArgument { .. })
        ));
        // not enough restarts
        let hard = EigsOptions::<f64> {
            which: EigsWhich::SM,
            ncv: Some(6),
            maxiter: Some(1),
            ..Default::default()
        };
        assert!(matches!(
            eigs(&a, 2, &hard),
            Err(Error::NoConvergence { .. })
        ));
    }
}

/// SciPy returns the identity's pairs through a rotation too: ±i of a 2 x 2 rotation block.
#[test]
fn eigs_rotation_gives_conjugate_pair() {
    for dev in devices() {
        let n = 12;
        let mut d = vec![0.0f64; n * n];
        d[1] = -1.0;
        d[n] = 1.0;
        for i in 2..n {
            d[i * n + i] = 0.1 * i as f64;
        }
        let a = CsrMatrix::from_dense(&Array::from_vec(d, &[n, n], &dev).unwrap()).unwrap();
        let r = eigs(&a, 2, &opts(EigsWhich::LI)).unwrap();
        assert!(
            (r.w[0] - c64::new(0.0, 1.0)).norm() < 1e-10
                && (r.w[1] - c64::new(0.0, -1.0)).norm() < 1e-10,
            "{dev}: {:?}",
            r.w
        );
        let (res, nrm) = residual(&a, &r.w, r.v.as_ref().unwrap());
        assert!(res < 1e-10 && nrm < 1e-12, "{dev}: {res} {nrm}");
        let _ = a.shape();
        let _: &dyn LinearOperator<f64> = &a;
    }
}

/// A small basis (ncv = k + 4) forces many Krylov–Schur restarts: real (conjugate pairs kept
/// together across restarts) and complex, against SciPy's values.
#[test]
fn eigs_small_basis_restarts() {
    for dev in devices() {
        let a = real_matrix(&dev);
        for (which, name) in REAL_WHICH {
            let key = format!("eigs_r_{name}");
            let k = golden_k(&key);
            let r = eigs(
                &a,
                k,
                &EigsOptions {
                    which,
                    ncv: Some(k + 4),
                    ..Default::default()
                },
            )
            .unwrap();
            let ctx = format!("{dev} real {name} ncv {}", k + 4);
            same_set(&r.w, &golden(&key), 1e-8, &ctx);
            let (res, _) = residual(&a, &r.w, r.v.as_ref().unwrap());
            assert!(res < 1e-9, "{ctx}: {res}");
        }
        let c = complex_matrix(&dev);
        for (which, name) in [(EigsWhich::LM, "LM"), (EigsWhich::SI, "SI")] {
            let key = format!("eigs_c_{name}");
            let k = golden_k(&key);
            let r = eigs(
                &c,
                k,
                &EigsOptions {
                    which,
                    ncv: Some(k + 4),
                    ..Default::default()
                },
            )
            .unwrap();
            let ctx = format!("{dev} complex {name}");
            same_set(&r.w, &golden(&key), 1e-8, &ctx);
            let (res, _) = residual(&c, &r.w, r.v.as_ref().unwrap());
            assert!(res < 1e-9, "{ctx}: {res}");
        }
    }
}

/// A larger non-symmetric operator (convection–diffusion on a 16 x 16 grid, n = 256): the
/// largest real parts against the dense spectrum of the same matrix.
#[test]
fn eigs_convection_diffusion_against_dense() {
    let dev = Device::Cpu;
    let a = crate::common::convdiff::<f64>(16, 1.5, &dev);
    let n = 256;
    let d: Vec<f64> = a.toarray().unwrap().to_vec().unwrap();
    let m = faer::Mat::<f64>::from_fn(n, n, |i, j| d[i * n + j]);
    let mut all: Vec<c64> = m.eigenvalues().unwrap();
    all.sort_by(|x, y| y.re.total_cmp(&x.re));
    for which in [EigsWhich::LR, EigsWhich::LM] {
        let r = eigs(&a, 4, &opts(which)).unwrap();
        let (res, _) = residual(&a, &r.w, r.v.as_ref().unwrap());
        assert!(res < 1e-9, "{which:?}: {res}");
        if which == EigsWhich::LR {
            for (g, w) in r.w.iter().zip(&all) {
                assert!((g.re - w.re).abs() < 1e-8, "{:?} vs {:?}", r.w, &all[..4]);
            }
        }
    }
}

/// eigsh's shift-invert on a complex Hermitian matrix and in f32, against the dense spectrum.
#[test]
fn eigsh_shift_invert_complex_hermitian_and_f32() {
    let n = 40;
    let d: Vec<c64> = (0..n)
        .map(|i| c64::new((i as f64 * 0.37).sin() * 3.0, 0.0))
        .collect();
    let up: Vec<c64> = cusci_core::testing::randn_vec::<c64>(n - 1, 9);
    let lo: Vec<c64> = up.iter().map(|v| v.conj()).collect();
    let sigma = 0.4;
    for dev in devices() {
        let h = diags(&[&d, &up, &lo], &[0, 1, -1], None, &dev).unwrap();
        let hd: Vec<c64> = h.toarray().unwrap().to_vec().unwrap();
        let m = faer::Mat::<c64>::from_fn(n, n, |i, j| hd[i * n + j]);
        let ev = m.self_adjoint_eigen(faer::Side::Lower).unwrap();
        let mut all: Vec<f64> = (0..n).map(|i| ev.S().column_vector()[i].re).collect();
        all.sort_by(|x, y| (x - sigma).abs().total_cmp(&(y - sigma).abs()));
        let mut want = all[..3].to_vec();
        want.sort_by(f64::total_cmp);
        let r = eigsh(
            &h,
            3,
            &EigshOptions {
                sigma: Some(sigma),
                ..Default::default()
            },
        )
        .unwrap();
        for (g, w) in r.w.iter().zip(&want) {
            assert!((g - w).abs() < 1e-9, "{dev}: {:?} vs {want:?}", r.w);
        }
        let w: Vec<c64> = r.w.iter().map(|&x| c64::new(x, 0.0)).collect();
        let (res, nrm) = residual(&h, &w, r.v.as_ref().unwrap());
        assert!(res < 1e-9 && nrm < 1e-12, "{dev}: {res} {nrm}");

        let s = sym_matrix(&dev);
        let s32 = CsrMatrix::new(
            s.data().astype::<f32>().unwrap(),
            s.indices().clone(),
            s.indptr().clone(),
            (30, 30),
        )
        .unwrap();
        let r = eigsh(
            &s32,
            3,
            &EigshOptions {
                sigma: Some(1.1),
                tol: 1e-5,
                ..Default::default()
            },
        )
        .unwrap();
        for (g, x) in r.w.iter().zip(golden_f("eigsh_sigma")) {
            assert!((g - x).abs() < 1e-4, "{dev} f32: {:?}", r.w);
        }
    }
}
