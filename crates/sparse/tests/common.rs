//! Helpers shared by the test modules: the grid operators and their spectrum, the dense solve
//! oracle, and the golden files of `tests/data`.

use cusci_core::npy::load_npz_array;
use cusci_core::testing::{assert_allclose, devices, randn_vec};
use cusci_core::{c64, Array, Device, Element, Error, Float};
use cusci_sparse::linalg::{LinearOperator, Solution, SolverOptions};
use cusci_sparse::{diags, random, CsrMatrix, Result, SpIndex};

/// An iterative solver of `scipy.sparse.linalg`'s signature.
pub type Solver<T> =
    fn(&dyn LinearOperator<T>, &Array<T>, &SolverOptions<T>) -> Result<Solution<T>>;

/// `v` as an element of type `T`.
pub fn f<T: Float>(v: f64) -> T {
    T::from_c64(c64::new(v, 0.0))
}

/// The k x k grid Laplacian (5 points) plus `c` times an upwind convection term (non-symmetric
/// for c ≠ 0, diagonally dominant), `i32` indices.
pub fn convdiff<T: Float>(k: usize, c: f64, dev: &Device) -> CsrMatrix<T> {
    let n = k * k;
    let main = vec![f::<T>(4.0 + c); n];
    let side = |v: f64| -> Vec<T> {
        (0..n - 1)
            .map(|i| if (i + 1) % k == 0 { f(0.0) } else { f(v) })
            .collect()
    };
    let vert = vec![f::<T>(-1.0); n - k];
    diags(
        &[&main, &side(-1.0 - c), &side(-1.0), &vert, &vert],
        &[0, -1, 1, -(k as isize), k as isize],
        None,
        dev,
    )
    .unwrap()
}

/// The 5-point Laplacian of a k x k grid (Dirichlet), CSR.
pub fn laplacian<T: Float>(k: usize, dev: &Device) -> CsrMatrix<T> {
    convdiff(k, 0.0, dev)
}

/// The exact spectrum of the k x k grid Laplacian, ascending.
pub fn spectrum(k: usize) -> Vec<f64> {
    let h = std::f64::consts::PI / (k + 1) as f64;
    let mut w: Vec<f64> = (1..=k)
        .flat_map(|i| {
            (1..=k).map(move |j| 4.0 - 2.0 * (i as f64 * h).cos() - 2.0 * (j as f64 * h).cos())
        })
        .collect();
    w.sort_by(f64::total_cmp);
    w
}

/// Dense Gaussian elimination with partial pivoting (the oracle).
pub fn dense_solve(a: &[f64], b: &[f64]) -> Vec<f64> {
    let n = b.len();
    let mut m = a.to_vec();
    let mut x = b.to_vec();
    for k in 0..n {
        let p = (k..n)
            .max_by(|&i, &j| m[i * n + k].abs().total_cmp(&m[j * n + k].abs()))
            .unwrap();
        for j in 0..n {
            m.swap(k * n + j, p * n + j);
        }
        x.swap(k, p);
        for i in k + 1..n {
            let f = m[i * n + k] / m[k * n + k];
            for j in k..n {
                m[i * n + j] -= f * m[k * n + j];
            }
            x[i] -= f * x[k];
        }
    }
    for k in (0..n).rev() {
        let mut s = x[k];
        for j in k + 1..n {
            s -= m[k * n + j] * x[j];
        }
        x[k] = s / m[k * n + k];
    }
    x
}

/// The array `name` of `tests/data/{file}.npz`.
pub fn load_npz<T: Element>(file: &str, name: &str, dev: &Device) -> Array<T> {
    let path = format!("{}/tests/data/{file}.npz", env!("CARGO_MANIFEST_DIR"));
    load_npz_array::<T>(&path, name, dev).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The CSR matrix `{prefix}_data`, `{prefix}_indices`, `{prefix}_indptr` of
/// `tests/data/{file}.npz`.
pub fn load_csr(file: &str, prefix: &str, shape: (usize, usize), dev: &Device) -> CsrMatrix<f64> {
    CsrMatrix::new(
        load_npz(file, &format!("{prefix}_data"), dev),
        load_npz(file, &format!("{prefix}_indices"), dev),
        load_npz(file, &format!("{prefix}_indptr"), dev),
        shape,
    )
    .unwrap()
}

/// An lsqr or lsmr result (`name`) against SciPy's, `{name}{sfx}_out` and `{name}{sfx}_x` of
/// `tests/data/scipy_sparse_solvers.npz`: the stop reason, the iteration count (within one), x,
/// and each of `norms` (value, its index in the `_out` row, what) to a relative 1e-6.
pub fn lsq_like_scipy(
    name: &str,
    sfx: &str,
    (istop, itn, x): (i32, usize, &Array<f64>),
    norms: &[(f64, usize, &str)],
    dev: &Device,
    ctx: &str,
) {
    let file = "scipy_sparse_solvers";
    let want = load_npz::<f64>(file, &format!("{name}{sfx}_out"), &Device::Cpu)
        .to_vec()
        .unwrap();
    assert_eq!(istop as f64, want[0], "{name} istop {ctx}");
    assert!((itn as f64 - want[1]).abs() <= 1.0, "{name} itn {ctx}");
    assert_allclose(
        x,
        &load_npz::<f64>(file, &format!("{name}{sfx}_x"), dev),
        1e-7,
        1e-9,
        &format!("{name} x {ctx}"),
    );
    for &(got, i, what) in norms {
        let w = want[i];
        assert!(
            (got - w).abs() <= 1e-6 * w.abs(),
            "{name} {what} {ctx}: {got} vs {w}"
        );
    }
}

/// A random m x n matrix (randn values, signs mixed, on `random`'s structure) with `i32` indices
/// on `dev`.
pub fn randn_csr<T: Float>(
    m: usize,
    n: usize,
    density: f64,
    seed: u64,
    dev: &Device,
) -> CsrMatrix<T> {
    let r = random::<T>(m, n, density, seed, &Device::Cpu).unwrap();
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

/// The shapes of the structure operation tests.
pub const OP_SHAPES: [(usize, usize); 5] = [(0, 0), (1, 1), (7, 5), (33, 31), (64, 70)];

/// A product's operands: (m, k, n, A (m x k), B (k x n)).
pub type Operands<T> = (usize, usize, usize, CsrMatrix<T>, CsrMatrix<T>);

/// The SpGEMM tests' operands, on the CPU.
pub fn spgemm_operands<T: Float>() -> Vec<Operands<T>> {
    [(0, 0, 0), (1, 1, 1), (5, 7, 3), (33, 20, 31), (60, 64, 50)]
        .into_iter()
        .map(|(m, k, n)| {
            let a = randn_csr::<T>(m, k, 0.25, 5 + m as u64, &Device::Cpu);
            let b = randn_csr::<T>(k, n, 0.25, 6 + n as u64, &Device::Cpu);
            (m, k, n, a, b)
        })
        .collect()
}

/// `solve` (`name`) with `opts` (zero tolerances, `maxiter` set) runs exactly `maxiter` iterations
/// (info = maxiter) on `a` and `b`: on the CPU, then on every device to the CPU's x.
pub fn runs_maxiter(
    name: &str,
    solve: Solver<f64>,
    a: &CsrMatrix<f64>,
    b: &[f64],
    opts: &SolverOptions<f64>,
) {
    let it = opts.maxiter.unwrap();
    let n = b.len();
    let cpu = solve(
        a,
        &Array::from_vec(b.to_vec(), &[n], &Device::Cpu).unwrap(),
        opts,
    )
    .unwrap();
    assert_eq!((cpu.info, cpu.iterations), (it as i64, it), "{name}");
    for dev in devices() {
        let s = solve(
            &a.to_device(&dev).unwrap(),
            &Array::from_vec(b.to_vec(), &[n], &dev).unwrap(),
            opts,
        )
        .unwrap();
        assert_eq!((s.info, s.iterations), (it as i64, it), "{name} on {dev}");
        assert_allclose(
            &s.x.to_device(&Device::Cpu).unwrap(),
            &cpu.x,
            1e-10,
            1e-12,
            &format!("{name}: {it} iterations on {dev}"),
        );
    }
}

/// `a + other` and `a.multiply(other)` for an `other` of another shape: `ShapeMismatch`.
pub fn other_shape_refused<T: Float, I: SpIndex>(a: &CsrMatrix<T, I>, other: &CsrMatrix<T, I>) {
    assert!(matches!(a.add(other), Err(Error::ShapeMismatch { .. })));
    assert!(matches!(
        a.multiply(other),
        Err(Error::ShapeMismatch { .. })
    ));
}
