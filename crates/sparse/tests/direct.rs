//! spsolve_triangular, splu, spsolve, factorized: against dense substitution and dense products
//! (Pr A Pc = L U), residuals, both column orderings, singular matrices, GPU against CPU (the
//! same body on every device: factors, pivots and solutions), a stress loop over small random
//! matrices, bad input.

use cusci_core::testing::{assert_slices_close, devices, randn_vec};
use cusci_core::{c32, c64, Array, Device, Error, Float, RealFloat};
use cusci_sparse::linalg::{
    factorized, splu, splu_with, spsolve, spsolve_triangular, PermcSpec, Scalar, SpluOptions,
    SuperLu,
};
use cusci_sparse::{diags, CsrMatrix};

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

/// `Pr A Pc` as a dense row-major matrix: `(Pr A Pc)[perm_r[i], perm_c[j]] = A[i, j]`.
fn permuted<T: Float>(a: &[T], n: usize, perm_r: &[usize], perm_c: &[usize]) -> Vec<T> {
    let mut pa = vec![T::zero(); n * n];
    for i in 0..n {
        for j in 0..n {
            pa[perm_r[i] * n + perm_c[j]] = a[i * n + j];
        }
    }
    pa
}

/// Checks `Pr A Pc = L U` (within `tol` of max |A| per entry, scaled by n), `L` unit lower and
/// `U` upper triangular, and that both permutations are permutations.
fn check_factors<T: Float>(a: &[T], n: usize, lu: &SuperLu<T>, tol: f64, ctx: &str) {
    for p in [lu.perm_r(), lu.perm_c()] {
        let mut s = p.to_vec();
        s.sort_unstable();
        assert_eq!(s, (0..n).collect::<Vec<_>>(), "{ctx}: not a permutation");
    }
    let l = lu.l().toarray().unwrap().to_vec().unwrap();
    let u = lu.u().toarray().unwrap().to_vec().unwrap();
    for i in 0..n {
        assert_eq!(l[i * n + i], T::one(), "{ctx}: unit diagonal");
        for j in i + 1..n {
            assert_eq!(l[i * n + j], T::zero(), "{ctx}: L lower");
            assert_eq!(u[j * n + i], T::zero(), "{ctx}: U upper");
        }
    }
    let pa = permuted(a, n, lu.perm_r(), lu.perm_c());
    let lu_ = matmul(&l, &u, n);
    let scale = a.iter().fold(0.0f64, |m, v| m.max(v.abs().to_f64()));
    let err = pa
        .iter()
        .zip(&lu_)
        .fold(0.0f64, |m, (x, y)| m.max(x.sub(*y).abs().to_f64()));
    assert!(
        err <= tol * scale * (n as f64).max(1.0),
        "{ctx}: |Pr A Pc - L U| = {err:e} (max |A| {scale:e})"
    );
}

/// max |A x - b| / (max |A| max |x| n + max |b|) for a row-major (n, k) x and b.
fn residual<T: Float>(a: &CsrMatrix<T>, x: &Array<T>, b: &[T]) -> f64 {
    let r = a.dot(x).unwrap().to_vec().unwrap();
    let amax = a
        .data()
        .to_vec()
        .unwrap()
        .iter()
        .fold(0.0f64, |m, v| m.max(v.abs().to_f64()));
    let xmax = x
        .to_vec()
        .unwrap()
        .iter()
        .fold(0.0f64, |m, v| m.max(v.abs().to_f64()));
    let bmax = b.iter().fold(0.0f64, |m, v| m.max(v.abs().to_f64()));
    let err = r
        .iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max(x.sub(*y).abs().to_f64()));
    err / (amax * xmax * a.shape().0 as f64 + bmax)
}

const NATURAL: SpluOptions = SpluOptions {
    permc_spec: PermcSpec::Natural,
    dense_tail: true,
};
const COLAMD: SpluOptions = SpluOptions {
    permc_spec: PermcSpec::Colamd,
    dense_tail: true,
};

fn lu_case<T: Scalar>(tol: f64) {
    for n in [1usize, 2, 31, 120] {
        // a large anti-diagonal: partial pivoting has to leave the natural diagonal
        let a = dense::<T>(n, 3 + n as u64, 8, 3.0, true);
        let mut first: Option<Vec<T>> = None;
        for dev in devices() {
            let ad = csr(&a, n, &dev);
            for (name, opts) in [("NATURAL", NATURAL), ("COLAMD", COLAMD)] {
                let lu = splu_with(&ad, &opts).unwrap();
                let ctx = format!("{dev} n {n} {} {name}", T::DTYPE);
                check_factors(&a, n, &lu, tol, &ctx);
                if name == "NATURAL" {
                    assert_eq!(lu.perm_c(), (0..n).collect::<Vec<_>>(), "{ctx}");
                }
            }
            let ctx = format!("{dev} n {n} {}", T::DTYPE);
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

/// A deterministic generator (splitmix64) for the random patterns.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The diagonal of a random matrix.
#[derive(Clone, Copy, Debug)]
enum Diag {
    /// the random entries as they come
    Random,
    /// no diagonal entries at all (pivoting is needed in every column)
    Zero,
    /// diagonal entries 1e-8 times the others (the pivots must leave the diagonal)
    Tiny,
}

/// A random dense n x n host matrix with about `density` percent non-zeros, a random
/// permutation matrix added (nonsingular structure), and the given diagonal.
fn random_dense<T: Float>(n: usize, density: usize, diag: Diag, seed: u64) -> Vec<T> {
    let mut rng = Rng(seed);
    let vals = randn_vec::<T>(n * n + n, seed ^ 77);
    let mut a = vec![T::zero(); n * n];
    for (e, v) in a.iter_mut().enumerate() {
        if rng.below(100) < density {
            *v = vals[e];
        }
    }
    // a random cyclic permutation (no fixed point when n > 1, so it survives a zeroed
    // diagonal) of entries of magnitude about 1
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.below(i + 1));
    }
    let mut p = vec![0usize; n];
    for t in 0..n {
        p[order[t]] = order[(t + 1) % n];
    }
    for i in 0..n {
        let v = vals[n * n + i];
        a[i * n + p[i]] = v.add(T::from_c64(c64::new(
            if v.abs().to_f64() < 0.5 { 1.0 } else { 0.0 },
            0.0,
        )));
    }
    for i in 0..n {
        match diag {
            Diag::Random => {}
            Diag::Zero => a[i * n + i] = T::zero(),
            Diag::Tiny => {
                a[i * n + i] = T::from_c64(c64::new(1e-8 * (1.0 + (i % 3) as f64), 0.0));
            }
        }
    }
    a
}

fn random_case<T: Scalar>(tol: f64, rtol: f64) {
    let mut seed = 1u64;
    for n in [1usize, 2, 7, 60, 200] {
        for density in [3usize, 15, 50] {
            for diag in [Diag::Random, Diag::Zero, Diag::Tiny] {
                seed += 1;
                if n > 60 && density == 50 && !matches!(diag, Diag::Zero) {
                    continue; // keep the dense products of the largest case few
                }
                let a = random_dense::<T>(n, density, diag, seed);
                let ad = csr(&a, n, &Device::Cpu);
                let b = randn_vec::<T>(n * 3, seed);
                for (name, opts) in [("NATURAL", NATURAL), ("COLAMD", COLAMD)] {
                    let ctx = format!("n {n} density {density} {diag:?} {} {name}", T::DTYPE);
                    let lu = match splu_with(&ad, &opts) {
                        Ok(lu) => lu,
                        // a random matrix may be singular in f32; never an internal error
                        Err(Error::Singular { .. }) if n == 1 || T::DTYPE.tag().contains("32") => {
                            continue
                        }
                        Err(e) => panic!("{ctx}: {e}"),
                    };
                    check_factors(&a, n, &lu, tol, &ctx);
                    // 1-D and 2-D right-hand sides
                    let b1 = Array::from_vec(b[..n].to_vec(), &[n], &Device::Cpu).unwrap();
                    let x1 = lu.solve(&b1).unwrap();
                    assert!(residual(&ad, &x1, &b[..n]) < rtol, "{ctx}: 1-D residual");
                    let b3 = Array::from_vec(b.clone(), &[n, 3], &Device::Cpu).unwrap();
                    let x3 = lu.solve(&b3).unwrap();
                    assert_eq!(x3.shape(), &[n, 3]);
                    assert!(residual(&ad, &x3, &b) < rtol, "{ctx}: 2-D residual");
                }
            }
        }
    }
}

#[test]
fn splu_reconstructs_random_matrices_with_pivoting() {
    random_case::<f64>(1e-12, 1e-12);
    random_case::<c64>(1e-12, 1e-12);
    random_case::<f32>(2e-4, 2e-4);
    random_case::<c32>(2e-4, 2e-4);
}

/// The 2-D Poisson matrix of a k x k grid (5-point stencil).
fn poisson<T: Float>(k: usize, dev: &Device) -> CsrMatrix<T> {
    let n = k * k;
    let f = |v: f64| T::from_c64(c64::new(v, 0.0));
    let main = vec![f(4.0); n];
    let side: Vec<T> = (0..n - 1)
        .map(|i| if (i + 1) % k == 0 { T::zero() } else { f(-1.0) })
        .collect();
    let vert = vec![f(-1.0); n - k];
    let a = diags(
        &[&main, &side, &side, &vert, &vert],
        &[0, -1, 1, -(k as isize), k as isize],
        None,
        dev,
    )
    .unwrap();
    // drop the explicit zeros of the side diagonals
    CsrMatrix::from_dense(&a.toarray().unwrap()).unwrap()
}

#[test]
fn colamd_fills_less_than_natural_on_poisson() {
    for dev in devices() {
        let a = poisson::<f64>(30, &dev);
        let n = 900;
        let nat = splu_with(&a, &NATURAL).unwrap();
        let col = splu_with(&a, &COLAMD).unwrap();
        assert!(
            col.nnz() * 10 < nat.nnz() * 7,
            "{dev}: COLAMD {} NATURAL {}",
            col.nnz(),
            nat.nnz()
        );
        assert_ne!(col.perm_c(), (0..n).collect::<Vec<_>>());
        // SciPy's default is COLAMD
        assert_eq!(splu(&a).unwrap().nnz(), col.nnz());
        let b = randn_vec::<f64>(n, 3);
        let bd = Array::from_vec(b.clone(), &[n], &dev).unwrap();
        for lu in [&nat, &col] {
            let x = lu.solve(&bd).unwrap();
            assert!(residual(&a, &x, &b) < 1e-14, "{dev}");
        }
    }
}

#[test]
fn singular_matrices_give_the_same_index_on_every_device() {
    let nan = f64::NAN;
    // (matrix, n, expected index with NATURAL)
    let cases: Vec<(Vec<f64>, usize, Option<usize>)> = vec![
        // structurally singular: an empty column
        (
            vec![1.0, 0.0, 0.0, 2.0, 0.0, 1.0, 3.0, 0.0, 1.0],
            3,
            Some(1),
        ),
        // numerically singular: two equal rows
        (
            vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 1.0, 2.0, 3.0],
            3,
            Some(2),
        ),
        // structurally singular: three rows only in the first two columns
        (vec![1.0, 2.0, 0.0, 3.0, 1.0, 0.0, 5.0, 7.0, 0.0], 3, None),
        // a NaN
        (vec![1.0, 0.0, 0.0, nan, 2.0, 0.0, 0.0, 1.0, 3.0], 3, None),
        // a zero row and a zero column
        (
            vec![0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 0.0, 3.0, 4.0],
            3,
            Some(0),
        ),
        // two singular columns: 2 (after its deps 0 and 1) and 3 (empty, no deps): the first
        // in the column order is reported, though the CPU's level schedule meets 3 first
        (
            vec![
                1.0, 2.0, 3.0, 0.0, 0.0, //
                4.0, 5.0, 6.0, 0.0, 0.0, //
                1.0, 2.0, 3.0, 0.0, 0.0, //
                0.0, 0.0, 0.0, 0.0, 1.0, //
                0.0, 0.0, 0.0, 0.0, 2.0,
            ],
            5,
            Some(2),
        ),
    ];
    for (a, n, want) in cases {
        for (name, opts) in [("NATURAL", NATURAL), ("COLAMD", COLAMD)] {
            let mut first: Option<usize> = None;
            for dev in devices() {
                let ad = csr(&a, n, &dev);
                let ctx = format!("{dev} {name} {a:?}");
                let idx = match splu_with(&ad, &opts) {
                    Err(Error::Singular { index, .. }) => index,
                    r => panic!("{ctx}: {r:?}"),
                };
                assert!(idx < n, "{ctx}");
                if let (Some(w), "NATURAL") = (want, name) {
                    assert_eq!(idx, w, "{ctx}");
                }
                match first {
                    None => first = Some(idx),
                    Some(c) => assert_eq!(idx, c, "{ctx}: the CPU's index"),
                }
                let b = Array::from_vec(vec![1.0; n], &[n], &dev).unwrap();
                assert!(
                    matches!(spsolve(&ad, &b), Err(Error::Singular { .. })),
                    "{ctx}"
                );
            }
        }
    }
}

/// The GPU's factors against the CPU's on the same matrix. Without the dense tail: the same
/// pivots and entry counts, real factors bitwise (both devices round the same operations the
/// same way). With it (these matrices are dense enough to be one dense block): the same block,
/// solutions within tolerance.
fn gpu_cpu_case<T: Scalar>(tol: f64) {
    let n = 300;
    let mats = [
        random_dense::<T>(n, 2, Diag::Zero, 11),
        random_dense::<T>(n, 1, Diag::Tiny, 12),
    ];
    let real = !T::DTYPE.tag().starts_with('c');
    for (m, a) in mats.iter().enumerate() {
        for (name, spec) in [
            ("NATURAL", PermcSpec::Natural),
            ("COLAMD", PermcSpec::Colamd),
        ] {
            for dense_tail in [false, true] {
                let opts = SpluOptions {
                    permc_spec: spec,
                    dense_tail,
                };
                let b = randn_vec::<T>(n * 2, 5);
                let mut cpu: Option<(SuperLu<T>, Vec<T>)> = None;
                for dev in devices() {
                    let ctx = format!("{dev} matrix {m} {name} tail {dense_tail} {}", T::DTYPE);
                    let ad = csr(a, n, &dev);
                    let lu = splu_with(&ad, &opts).unwrap();
                    assert_eq!(lu.dense_columns() > 0, dense_tail, "{ctx}");
                    let bd = Array::from_vec(b.clone(), &[n, 2], &dev).unwrap();
                    let x = lu.solve(&bd).unwrap();
                    assert!(residual(&ad, &x, &b) < tol, "{ctx}: residual");
                    let xv = x.to_vec().unwrap();
                    let Some((c, cx)) = &cpu else {
                        cpu = Some((lu, xv));
                        continue;
                    };
                    assert_eq!(lu.perm_c(), c.perm_c(), "{ctx}: perm_c");
                    assert_eq!(lu.dense_columns(), c.dense_columns(), "{ctx}");
                    assert_slices_close(&xv, cx, &[n, 2], tol * 100.0, tol * 100.0, &ctx);
                    if dense_tail {
                        continue;
                    }
                    // the same pivots (complex too: the same roundings, see splu_with)
                    assert_eq!(lu.perm_r(), c.perm_r(), "{ctx}: perm_r");
                    assert_eq!(lu.nnz(), c.nnz(), "{ctx}: nnz");
                    if real {
                        for (g, h) in [(lu.l(), c.l()), (lu.u(), c.u())] {
                            assert_eq!(g.indptr().to_vec().unwrap(), h.indptr().to_vec().unwrap());
                            assert_eq!(
                                g.indices().to_vec().unwrap(),
                                h.indices().to_vec().unwrap()
                            );
                            assert_eq!(
                                g.data().to_vec().unwrap(),
                                h.data().to_vec().unwrap(),
                                "{ctx}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn splu_gpu_matches_cpu() {
    gpu_cpu_case::<f64>(1e-12);
    gpu_cpu_case::<f32>(1e-4);
    gpu_cpu_case::<c64>(1e-12);
    gpu_cpu_case::<c32>(1e-4);
    // a larger sparse problem on every device: Poisson 40 x 40, with its dense tail (a sparse
    // part, then a dense block) and without (the same entry count on every device)
    let a = poisson::<f64>(40, &Device::Cpu);
    let n = 1600;
    let b = randn_vec::<f64>(n, 9);
    let mut nnz = None;
    for dev in devices() {
        let ad = a.to_device(&dev).unwrap();
        let bd = Array::from_vec(b.clone(), &[n], &dev).unwrap();
        let lu = splu(&ad).unwrap();
        assert!(lu.dense_columns() > 0 && lu.dense_columns() < n, "{dev}");
        assert!(residual(&ad, &lu.solve(&bd).unwrap(), &b) < 1e-14, "{dev}");
        let opts = SpluOptions {
            dense_tail: false,
            ..SpluOptions::default()
        };
        let lu = splu_with(&ad, &opts).unwrap();
        assert!(residual(&ad, &lu.solve(&bd).unwrap(), &b) < 1e-14, "{dev}");
        match nnz {
            None => nnz = Some(lu.nnz()),
            Some(c) => assert_eq!(lu.nnz(), c, "{dev}"),
        }
    }
}

/// A singular matrix whose zero column lies in the dense tail (or is the whole of it) gives
/// `Singular` at that column on every device, as the sparse loop does; a NaN there too.
#[test]
fn singular_in_the_dense_tail() {
    let n = 200;
    let mut a = random_dense::<f64>(n, 3, Diag::Random, 21);
    for i in 0..n {
        a[i * n + 150] = 0.0;
    }
    let mut with_nan = random_dense::<f64>(n, 3, Diag::Random, 22);
    with_nan[170 * n + 170] = f64::NAN;
    for dev in devices() {
        for dense_tail in [false, true] {
            let opts = SpluOptions {
                permc_spec: PermcSpec::Natural,
                dense_tail,
            };
            let ctx = format!("{dev} tail {dense_tail}");
            match splu_with(&csr(&a, n, &dev), &opts) {
                Err(Error::Singular { index, .. }) => assert_eq!(index, 150, "{ctx}"),
                r => panic!("{ctx}: {r:?}"),
            }
            let r = splu_with(&csr(&with_nan, n, &dev), &opts);
            assert!(matches!(r, Err(Error::Singular { .. })), "{ctx}: {r:?}");
        }
    }
    // the same with a sparse part before the tail (Poisson 20 x 20, column 390 emptied)
    let p = poisson::<f64>(20, &Device::Cpu)
        .toarray()
        .unwrap()
        .to_vec()
        .unwrap();
    let mut p = p;
    for i in 0..400 {
        p[i * 400 + 390] = 0.0;
    }
    for dev in devices() {
        let opts = SpluOptions {
            permc_spec: PermcSpec::Natural,
            dense_tail: true,
        };
        let lu = splu_with(&csr(&p[..], 400, &dev), &opts);
        match lu {
            Err(Error::Singular { index, .. }) => assert_eq!(index, 390, "{dev}"),
            r => panic!("{dev}: {r:?}"),
        }
    }
}

/// Many small random matrices (some structurally or numerically singular, some with
/// duplicates) on the CPU: each factors with `Pr A Pc = L U` or is `Singular`, never an internal
/// error (a static structure too small).
#[test]
fn splu_stress_never_exceeds_the_static_structure() {
    let mut rng = Rng(2024);
    let (mut ok, mut sing) = (0, 0);
    for case in 0..200 {
        let n = 1 + rng.below(24);
        let density = 2 + rng.below(40);
        let mut a = vec![0.0f64; n * n];
        for v in a.iter_mut() {
            if rng.below(100) < density {
                // small integers: exact cancellations happen
                *v = rng.below(5) as f64 - 2.0;
            }
        }
        // sometimes: an empty row or column, two equal rows, a permutation to keep it regular
        match rng.below(4) {
            0 => {
                let r = rng.below(n);
                for j in 0..n {
                    a[r * n + j] = 0.0;
                }
            }
            1 if n > 1 => {
                let (r, s) = (rng.below(n), rng.below(n));
                for j in 0..n {
                    a[s * n + j] = a[r * n + j];
                }
            }
            2 => {
                for i in 0..n {
                    let j = (i * 7 + case) % n;
                    a[i * n + j] += 3.0;
                }
            }
            _ => {}
        }
        // a non-canonical copy: every entry stored twice (halves), rows reversed
        let mut ip = vec![0i32];
        let (mut ix, mut dv) = (Vec::new(), Vec::new());
        for i in 0..n {
            for j in (0..n).rev() {
                if a[i * n + j] != 0.0 {
                    for _ in 0..2 {
                        ix.push(j as i32);
                        dv.push(a[i * n + j] / 2.0);
                    }
                }
            }
            ip.push(ix.len() as i32);
        }
        let nnz = ix.len();
        let dev = Device::Cpu;
        let nc = CsrMatrix::new(
            Array::from_vec(dv, &[nnz], &dev).unwrap(),
            Array::from_vec(ix, &[nnz], &dev).unwrap(),
            Array::from_vec(ip, &[n + 1], &dev).unwrap(),
            (n, n),
        )
        .unwrap();
        for opts in [NATURAL, COLAMD] {
            let ctx = format!("case {case} n {n} {opts:?}");
            for ad in [csr(&a, n, &dev), nc.clone()] {
                match splu_with(&ad, &opts) {
                    Ok(lu) => {
                        check_factors(&a, n, &lu, 1e-12, &ctx);
                        ok += 1;
                    }
                    Err(Error::Singular { index, .. }) => {
                        assert!(index < n, "{ctx}");
                        sing += 1;
                    }
                    Err(e) => panic!("{ctx}: {e}"),
                }
            }
        }
    }
    // both outcomes are exercised
    assert!(ok > 100 && sing > 50, "ok {ok} singular {sing}");
}

#[test]
fn permc_spec_names() {
    assert_eq!("COLAMD".parse::<PermcSpec>().unwrap(), PermcSpec::Colamd);
    assert_eq!("NATURAL".parse::<PermcSpec>().unwrap(), PermcSpec::Natural);
    for s in ["MMD_ATA", "MMD_AT_PLUS_A", "colamd", ""] {
        assert!(
            matches!(s.parse::<PermcSpec>(), Err(Error::InvalidArgument { .. })),
            "{s}"
        );
    }
    assert_eq!(SpluOptions::default().permc_spec, PermcSpec::Colamd);
}

/// `perm_c` and `perm_r` have SciPy's meaning, checked on a small matrix by hand: with
/// `Pr[perm_r[i], i] = 1` and `Pc[i, perm_c[i]] = 1`, the dense product `Pr A Pc` equals `L U`.
#[test]
fn permutation_conventions_are_scipys() {
    let n = 4;
    #[rustfmt::skip]
    let a = vec![
        0.0, 0.0, 3.0, 1.0,
        2.0, 0.0, 0.0, 0.0,
        0.0, 5.0, 1.0, 0.0,
        1.0, 0.0, 0.0, 4.0,
    ];
    for dev in devices() {
        let lu = splu(&csr(&a, n, &dev)).unwrap();
        let mut pr = vec![0.0f64; n * n];
        let mut pcm = vec![0.0f64; n * n];
        for i in 0..n {
            pr[lu.perm_r()[i] * n + i] = 1.0;
            pcm[i * n + lu.perm_c()[i]] = 1.0;
        }
        let pap = matmul(&matmul(&pr, &a, n), &pcm, n);
        let l = lu.l().toarray().unwrap().to_vec().unwrap();
        let u = lu.u().toarray().unwrap().to_vec().unwrap();
        assert_slices_close(
            &matmul(&l, &u, n),
            &pap,
            &[n, n],
            1e-15,
            1e-15,
            &format!("{dev}"),
        );
    }
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
