//! spilu: exact when nothing is dropped (the same solve as splu), fewer entries as drop_tol
//! grows, the fill limits, fewer Krylov iterations as a preconditioner on a non-symmetric
//! problem, zero pivots, complex and f32, the same factor on every device, bad input.

use cusci_core::testing::{devices, randn_vec};
use cusci_core::{c64, Array, Device, Error, Float};
use cusci_sparse::linalg::{
    bicgstab, gmres, spilu, splu_with, IluOptions, LinearOperator, PermcSpec, SolverOptions,
    SpluOptions,
};
use cusci_sparse::{diags, CsrMatrix};

/// A 2-D convection–diffusion operator on a k x k grid (upwinded convection `c`):
/// non-symmetric, an M-matrix.
fn convection_diffusion(k: usize, c: f64, dev: &Device) -> CsrMatrix<f64> {
    let n = k * k;
    let main = vec![4.0 + 2.0 * c; n];
    let west: Vec<f64> = (0..n - 1)
        .map(|i| if (i + 1) % k == 0 { 0.0 } else { -1.0 - c })
        .collect();
    let east: Vec<f64> = (0..n - 1)
        .map(|i| if (i + 1) % k == 0 { 0.0 } else { -1.0 })
        .collect();
    let south = vec![-1.0 - c; n - k];
    let north = vec![-1.0; n - k];
    diags(
        &[&main, &west, &east, &south, &north],
        &[0, -1, 1, -(k as isize), k as isize],
        None,
        dev,
    )
    .unwrap()
    .eliminate_zeros()
    .unwrap()
}

/// A random non-symmetric sparse matrix with a modest diagonal (pivoting happens).
fn random_general<T: Float>(n: usize, seed: u64, dev: &Device) -> CsrMatrix<T> {
    let vals: Vec<T> = randn_vec::<T>(n * n, seed);
    let mut d = vec![T::zero(); n * n];
    for i in 0..n {
        for j in 0..n {
            let h = (i * 7 + j * 13 + seed as usize) % 9;
            if i == j || h == 0 || j + 1 == i {
                d[i * n + j] = vals[i * n + j];
            }
        }
    }
    CsrMatrix::from_dense(&Array::from_vec(d, &[n, n], dev).unwrap()).unwrap()
}

fn max_diff<T: Float>(a: &Array<T>, b: &Array<T>) -> f64 {
    let (x, y) = (a.to_vec().unwrap(), b.to_vec().unwrap());
    x.iter()
        .zip(&y)
        .map(|(u, v)| (u.to_c64() - v.to_c64()).norm())
        .fold(0.0, f64::max)
}

const EXACT: IluOptions = IluOptions {
    drop_tol: Some(0.0),
    fill_factor: Some(1e9),
    drop_rule: None,
    permc_spec: Some("NATURAL"),
    diag_pivot_thresh: Some(1.0),
    relax: None,
    panel_size: None,
};

const NATURAL: SpluOptions = SpluOptions {
    permc_spec: PermcSpec::Natural,
    dense_tail: true,
};

#[test]
fn exact_without_dropping_equals_splu() {
    for dev in devices() {
        let a = random_general::<f64>(50, 3, &dev);
        let b = Array::from_vec(randn_vec::<f64>(50, 8), &[50], &dev).unwrap();
        let ilu = spilu(&a, &EXACT).unwrap();
        // spilu orders nothing (perm_c is the identity): compare with splu's NATURAL ordering
        let lu = splu_with(&a, &NATURAL).unwrap();
        let (xi, xl) = (ilu.solve(&b).unwrap(), lu.solve(&b).unwrap());
        let scale = xl
            .to_vec()
            .unwrap()
            .iter()
            .fold(0.0f64, |m, v| m.max(v.abs()));
        assert!(max_diff(&xi, &xl) < 1e-10 * scale, "{dev}");
        assert_eq!(ilu.nnz(), lu.nnz(), "{dev}");
        assert_eq!(ilu.perm_r(), lu.perm_r(), "{dev}");
        // 2-D right-hand side, complex
        let c = random_general::<c64>(30, 5, &dev);
        let bc = Array::from_vec(randn_vec::<c64>(60, 2), &[30, 2], &dev).unwrap();
        let xi = spilu(&c, &EXACT).unwrap().solve(&bc).unwrap();
        let xl = splu_with(&c, &NATURAL).unwrap().solve(&bc).unwrap();
        assert!(max_diff(&xi, &xl) < 1e-9, "{dev} complex");
        // f32
        let f = random_general::<f32>(30, 6, &dev);
        let bf = Array::from_vec(randn_vec::<f32>(30, 1), &[30], &dev).unwrap();
        let xi = spilu(&f, &EXACT).unwrap().solve(&bf).unwrap();
        let xl = splu_with(&f, &NATURAL).unwrap().solve(&bf).unwrap();
        let scale = xl
            .to_vec()
            .unwrap()
            .iter()
            .fold(0.0f32, |m, v| m.max(v.abs())) as f64;
        assert!(max_diff(&xi, &xl) < 1e-4 * scale, "{dev} f32");
    }
}

#[test]
fn larger_drop_tol_keeps_fewer_entries_and_fill_limits_hold() {
    let a = convection_diffusion(14, 0.5, &Device::Cpu);
    let nnz_a = a.nnz();
    let mut last = usize::MAX;
    let mut counts = Vec::new();
    for tol in [0.0, 1e-4, 1e-2, 1e-1, 0.3] {
        let f = spilu(
            &a,
            &IluOptions {
                drop_tol: Some(tol),
                fill_factor: Some(1e9),
                ..Default::default()
            },
        )
        .unwrap();
        assert!(f.nnz() <= last, "drop_tol {tol}: {} > {last}", f.nnz());
        last = f.nnz();
        counts.push(f.nnz());
    }
    assert!(counts[0] > counts[2] && counts[2] > counts[4], "{counts:?}");
    // area rule: at most γ nnz(A) entries (and the diagonals)
    let f = spilu(
        &a,
        &IluOptions {
            drop_tol: Some(0.0),
            fill_factor: Some(1.5),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(
        f.nnz() <= (1.5 * nnz_a as f64) as usize + 2 * 196,
        "{}",
        f.nnz()
    );
    assert!(f.nnz() < counts[0]);
    // column rule: each column of L at most ⌈γ nnz(A(:, j))⌉ below the diagonal
    let f = spilu(
        &a,
        &IluOptions {
            drop_tol: Some(0.0),
            fill_factor: Some(1.0),
            drop_rule: Some("basic,column"),
            ..Default::default()
        },
    )
    .unwrap();
    let at = a.transpose().tocsr().unwrap();
    let per_col: Vec<usize> = at
        .indptr()
        .to_vec()
        .unwrap()
        .windows(2)
        .map(|w| (w[1] - w[0]) as usize)
        .collect();
    let lt = f.l().transpose().tocsr().unwrap();
    let lcol: Vec<usize> = lt
        .indptr()
        .to_vec()
        .unwrap()
        .windows(2)
        .map(|w| (w[1] - w[0]) as usize - 1)
        .collect();
    for j in 0..196 {
        assert!(
            lcol[j] <= per_col[j],
            "column {j}: {} > {}",
            lcol[j],
            per_col[j]
        );
    }
}

#[test]
fn preconditioned_krylov_needs_fewer_iterations() {
    for dev in devices() {
        let a = convection_diffusion(20, 1.0, &dev);
        let n = 400;
        let b = Array::from_vec(randn_vec::<f64>(n, 4), &[n], &dev).unwrap();
        let ilu = spilu(
            &a,
            &IluOptions {
                drop_tol: Some(1e-2),
                ..Default::default()
            },
        )
        .unwrap();
        let o = SolverOptions {
            rtol: 1e-10,
            ..Default::default()
        };
        let om = SolverOptions {
            rtol: 1e-10,
            m: Some(&ilu),
            ..Default::default()
        };
        let bnorm = b
            .to_vec()
            .unwrap()
            .iter()
            .map(|v| v * v)
            .sum::<f64>()
            .sqrt();
        let res = |x: &Array<f64>| {
            let r = a.dot(x).unwrap().sub(&b).unwrap().to_vec().unwrap();
            r.iter().map(|v| v * v).sum::<f64>().sqrt() / bnorm
        };
        let p = bicgstab(&a, &b, &o).unwrap();
        let q = bicgstab(&a, &b, &om).unwrap();
        assert_eq!((p.info, q.info), (0, 0), "{dev}");
        assert!(res(&q.x) < 1e-9, "{dev}: {}", res(&q.x));
        assert!(
            q.iterations * 2 < p.iterations,
            "{dev}: bicgstab {} vs {}",
            q.iterations,
            p.iterations
        );
        let o = SolverOptions {
            rtol: 1e-10,
            restart: Some(10),
            ..Default::default()
        };
        let om = SolverOptions {
            rtol: 1e-10,
            restart: Some(10),
            m: Some(&ilu),
            ..Default::default()
        };
        let p = gmres(&a, &b, &o).unwrap();
        let q = gmres(&a, &b, &om).unwrap();
        assert_eq!((p.info, q.info), (0, 0), "{dev}");
        assert!(res(&q.x) < 1e-9, "{dev}: {}", res(&q.x));
        assert!(
            q.iterations * 2 < p.iterations,
            "{dev}: gmres {} vs {}",
            q.iterations,
            p.iterations
        );
        // the operator view is the solve
        let y = ilu.matvec(&b).unwrap();
        assert!(max_diff(&y, &ilu.solve(&b).unwrap()) == 0.0);
        assert_eq!(LinearOperator::shape(&ilu), (n, n));
    }
}

#[test]
fn zero_pivots_are_singular_and_devices_agree() {
    // a zero column and a zero row: SuperLU reports the column and SciPy raises ("matrix is
    // singular"), so spilu is Singular at that column on every device
    let d = vec![
        2.0, 0.0, 1.0, 0.0, //
        1.0, 0.0, 0.0, 0.0, //
        0.0, 0.0, 3.0, 1.0, //
        0.0, 0.0, 1.0, 4.0,
    ];
    for dev in devices() {
        let a = CsrMatrix::from_dense(&Array::from_vec(d.clone(), &[4, 4], &dev).unwrap()).unwrap();
        match spilu(&a, &IluOptions::default()) {
            Err(Error::Singular { index, .. }) => assert_eq!(index, 1, "{dev}"),
            r => panic!("{dev}: want Singular, got {:?}", r.map(|f| f.nnz())),
        }
    }
    // the same factor and solve on every device
    let cpu = convection_diffusion(10, 0.3, &Device::Cpu);
    let bc = Array::from_vec(randn_vec::<f64>(100, 5), &[100], &Device::Cpu).unwrap();
    let want = spilu(&cpu, &IluOptions::default())
        .unwrap()
        .solve(&bc)
        .unwrap();
    for dev in devices() {
        let a = convection_diffusion(10, 0.3, &dev);
        let f = spilu(&a, &IluOptions::default()).unwrap();
        assert_eq!(f.l().device(), &dev);
        let got = f.solve(&bc.to_device(&dev).unwrap()).unwrap();
        assert!(max_diff(&got, &want) < 1e-12, "{dev}");
    }
}

#[test]
fn bad_input_gives_typed_errors() {
    for dev in devices() {
        let a = convection_diffusion(4, 0.5, &dev);
        let rect = CsrMatrix::from_dense(&Array::<f64>::zeros(&[3, 4], &dev).unwrap()).unwrap();
        let d = IluOptions::default();
        assert!(matches!(spilu(&rect, &d), Err(Error::ShapeMismatch { .. })));
        for bad in [
            IluOptions {
                drop_tol: Some(-1.0),
                ..d
            },
            IluOptions {
                fill_factor: Some(0.5),
                ..d
            },
            IluOptions {
                diag_pivot_thresh: Some(2.0),
                ..d
            },
            IluOptions {
                permc_spec: Some("FOO"),
                ..d
            },
            IluOptions {
                drop_rule: Some("basic,bogus"),
                ..d
            },
        ] {
            assert!(
                matches!(spilu(&a, &bad), Err(Error::InvalidArgument { .. })),
                "{bad:?}"
            );
        }
        assert!(matches!(
            spilu(
                &a,
                &IluOptions {
                    drop_rule: Some("secondary"),
                    ..d
                }
            ),
            Err(Error::NotImplemented { .. })
        ));
        let f = spilu(&a, &d).unwrap();
        let short = Array::<f64>::zeros(&[3], &dev).unwrap();
        assert!(matches!(f.solve(&short), Err(Error::ShapeMismatch { .. })));
    }
}
