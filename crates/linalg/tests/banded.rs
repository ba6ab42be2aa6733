//! solve_banded, solveh_banded, cholesky_banded, cho_solve_banded, eigh_tridiagonal and
//! eigvalsh_tridiagonal against SciPy 1.17 (`tests/data/scipy_linalg_funcs.npz`) on the CPU,
//! every other device against the CPU; residuals of larger systems (wide bands, many right-hand
//! sides: the GPU kernels' thread loops), singular and indefinite matrices, and the errors.

use crate::matfuncs::{check, close, data, dt, get, input, out, single, tol, vals};
use cusci_core::testing::devices;
use cusci_core::{c32, c64};
use cusci_linalg::*;

/// A deterministic pseudo-random value in [-1, 1) (an LCG; the tests need no RNG crate).
fn lcg(state: &mut u64) -> f64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

fn rand<T: Scalar>(len: usize, seed: u64) -> Vec<T> {
    let mut s = seed;
    (0..len)
        .map(|_| {
            let re = lcg(&mut s);
            let im = lcg(&mut s);
            T::from_c64(c64::new(re, im))
        })
        .collect()
}

/// `a · x` for the band matrix of `ab` (SciPy's storage, one matrix) and `x` `(n, k)`.
fn band_matvec(ab: &[c64], l: usize, u: usize, n: usize, x: &[c64], k: usize) -> Vec<c64> {
    let mut y = vec![c64::new(0.0, 0.0); n * k];
    for j in 0..n {
        for i in j.saturating_sub(u)..(j + l + 1).min(n) {
            let a = ab[(u + i - j) * n + j];
            for q in 0..k {
                y[i * k + q] += a * x[j * k + q];
            }
        }
    }
    y
}

fn solve_banded_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    // f32: the random band matrices have condition numbers up to about 10³
    let tl = if single::<T>() { 5e-3 } else { 1e-10 };
    for (l, u) in [(1, 1), (2, 1), (0, 2), (3, 0), (2, 3)] {
        let case = format!("{l}{u}");
        for (bk, which) in [("B1", "1"), ("B2", "2")] {
            let (w, s) = get(&d, &format!("solve_banded_{case}_{which}_{t}"));
            check(
                &format!("solve_banded {case} b{which} {t}"),
                &w,
                &s,
                tl,
                |dev| {
                    let ab = input::<T>(&d, &format!("in_B_{case}_{t}"), dev);
                    let b = input::<T>(&d, &format!("in_{bk}_{case}_{t}"), dev);
                    out(solve_banded((l, u), &ab, &b).unwrap())
                },
            );
        }
        let (w, s) = get(&d, &format!("solve_banded_{case}_st_{t}"));
        check(
            &format!("solve_banded {case} stack {t}"),
            &w,
            &s,
            tl,
            |dev| {
                let ab = input::<T>(&d, &format!("in_BS_{case}_{t}"), dev);
                let b = input::<T>(&d, &format!("in_BSB_{case}_{t}"), dev);
                out(solve_banded((l, u), &ab, &b).unwrap())
            },
        );
    }
}
all_types!(solve_banded_golden, solve_banded_body);

/// Wide bands, many right-hand sides, a stack with a broadcast 1-D b: the residual on every
/// device and each device against the CPU.
fn solve_banded_residual_body<T: Scalar>() {
    for (l, u, n, k, count) in [
        (3usize, 2usize, 50usize, 1usize, 1usize),
        (12, 15, 90, 130, 1),
        (1, 1, 200, 3, 4),
        (0, 0, 9, 2, 1),
        (5, 0, 33, 1, 3),
    ] {
        let rows = l + u + 1;
        let mut abv = rand::<T>(count * rows * n, 7 + (l * 31 + u) as u64);
        // some diagonal weight, so that f32 stays accurate enough to check a residual
        for s in 0..count {
            for j in 0..n {
                let p = s * rows * n + u * n + j;
                abv[p] = abv[p] + T::from_c64(c64::new(2.0, 0.0));
            }
        }
        let bv = rand::<T>(count * n * k, 99 + n as u64);
        let mut cpu: Option<Vec<c64>> = None;
        for dev in devices() {
            let ab = Array::from_vec(abv.clone(), &[count, rows, n], &dev).unwrap();
            let b = Array::from_vec(bv.clone(), &[count, n, k], &dev).unwrap();
            let x = vals(&solve_banded((l, u), &ab, &b).unwrap());
            let what = format!("solve_banded ({l},{u}) n {n} k {k} x{count} on {dev}");
            let (abc, bc): (Vec<c64>, Vec<c64>) = (
                abv.iter().map(|v| v.to_c64()).collect(),
                bv.iter().map(|v| v.to_c64()).collect(),
            );
            for s in 0..count {
                let r = band_matvec(
                    &abc[s * rows * n..(s + 1) * rows * n],
                    l,
                    u,
                    n,
                    &x[s * n * k..(s + 1) * n * k],
                    k,
                );
                close(
                    &r,
                    &bc[s * n * k..(s + 1) * n * k],
                    50.0 * tol::<T>(),
                    &format!("{what}: residual"),
                );
            }
            match &cpu {
                None => cpu = Some(x),
                Some(c) => close(&x, c, 50.0 * tol::<T>(), &format!("{what} vs cpu")),
            }
            // a 1-D b broadcasts over the stack
            let b1 = Array::from_vec(bv[..n].to_vec(), &[n], &dev).unwrap();
            let x1 = solve_banded((l, u), &ab, &b1).unwrap();
            assert_eq!(x1.shape(), &[count, n]);
        }
    }
}
all_types!(solve_banded_residual, solve_banded_residual_body);

fn solve_banded_errors_body<T: Scalar>() {
    let f = |v: f64| T::from_c64(c64::new(v, 0.0));
    for dev in devices() {
        // a = [[1, 1, 0], [1, 1, 0], [0, 0, 1]]: the second pivot is exactly zero
        let ab = Array::from_vec(
            [0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0]
                .map(f)
                .to_vec(),
            &[3, 3],
            &dev,
        )
        .unwrap();
        let b = Array::from_vec([1.0, 2.0, 3.0].map(f).to_vec(), &[3], &dev).unwrap();
        assert!(
            matches!(
                solve_banded((1, 1), &ab, &b),
                Err(Error::Singular { index: 1, .. })
            ),
            "singular on {dev}"
        );
        // a stack: the second matrix is the singular one
        let good = [0.0, 1.0, 1.0, 2.0, 2.0, 2.0, 1.0, 1.0, 0.0].map(f);
        let bad = [0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0].map(f);
        let st = Array::from_vec([good, bad].concat(), &[2, 3, 3], &dev).unwrap();
        assert!(
            matches!(
                solve_banded((1, 1), &st, &b),
                Err(Error::Singular { index: 1, .. })
            ),
            "singular stack on {dev}"
        );
        // l + u + 1 != rows
        assert!(matches!(
            solve_banded((1, 2), &ab, &b),
            Err(Error::InvalidArgument { .. })
        ));
        // b's rows
        let b4 = Array::<T>::zeros(&[4], &dev).unwrap();
        assert!(matches!(
            solve_banded((1, 1), &ab, &b4),
            Err(Error::ShapeMismatch { .. })
        ));
        // NaN in b: an error, or NaN results without the check
        let bn = Array::from_vec([1.0, f64::NAN, 3.0].map(f).to_vec(), &[3], &dev).unwrap();
        let abg = Array::from_vec(good.to_vec(), &[3, 3], &dev).unwrap();
        assert!(matches!(
            solve_banded((1, 1), &abg, &bn),
            Err(Error::InvalidArgument { .. })
        ));
        let x = without_finite_check(|| solve_banded((1, 1), &abg, &bn)).unwrap();
        assert!(vals(&x).iter().any(|v| v.re.is_nan()));
        // N = 1 divides without a singularity check (SciPy's b / ab[u, 0])
        let one = Array::from_vec([5.0, 0.0, 7.0].map(f).to_vec(), &[3, 1], &dev).unwrap();
        let b1 = Array::from_vec(vec![f(2.0)], &[1], &dev).unwrap();
        let x = vals(&solve_banded((1, 1), &one, &b1).unwrap());
        assert!(
            !x[0].re.is_finite(),
            "1x1 with a zero diagonal on {dev}: {:?}",
            x
        );
        let one = Array::from_vec([5.0, 4.0, 7.0].map(f).to_vec(), &[3, 1], &dev).unwrap();
        assert_eq!(
            vals(&solve_banded((1, 1), &one, &b1).unwrap())[0],
            c64::new(0.5, 0.0)
        );
        // empty b: an empty x
        let b0 = Array::<T>::zeros(&[3, 0], &dev).unwrap();
        assert_eq!(solve_banded((1, 1), &ab, &b0).unwrap().shape(), &[3, 0]);
    }
}
all_types!(solve_banded_errors, solve_banded_errors_body);

fn hermitian_banded_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    for kd in [1, 2] {
        for (lower, side, store) in [(false, "u", "HU"), (true, "l", "HL")] {
            let ab = |dev: &Device| input::<T>(&d, &format!("in_{store}{kd}_{t}"), dev);
            for (bk, which) in [("HB1", "1"), ("HB2", "2")] {
                let (w, s) = get(&d, &format!("solveh_banded_{kd}{side}_{which}_{t}"));
                check(
                    &format!("solveh_banded kd {kd} {side} b{which} {t}"),
                    &w,
                    &s,
                    tol::<T>(),
                    |dev| {
                        let b = input::<T>(&d, &format!("in_{bk}_{kd}_{t}"), dev);
                        out(solveh_banded(&ab(dev), &b, lower).unwrap())
                    },
                );
            }
            let (w, s) = get(&d, &format!("cholesky_banded_{kd}{side}_{t}"));
            check(
                &format!("cholesky_banded kd {kd} {side} {t}"),
                &w,
                &s,
                tol::<T>(),
                |dev| out(cholesky_banded(&ab(dev), lower).unwrap()),
            );
            let (w, s) = get(&d, &format!("cho_solve_banded_{kd}{side}_{t}"));
            check(
                &format!("cho_solve_banded kd {kd} {side} {t}"),
                &w,
                &s,
                tol::<T>(),
                |dev| {
                    let c = cholesky_banded(&ab(dev), lower).unwrap();
                    let b = input::<T>(&d, &format!("in_HB2_{kd}_{t}"), dev);
                    out(cho_solve_banded((&c, lower), &b).unwrap())
                },
            );
        }
    }
}
all_types!(hermitian_banded_golden, hermitian_banded_body);

/// A larger Hermitian positive definite band stack (kd = 20 > the rows a warp covers), the
/// residual and each device against the CPU; indefinite matrices and the errors.
fn hermitian_banded_more_body<T: Scalar>() {
    let f = |v: f64| T::from_c64(c64::new(v, 0.0));
    let (n, kd, k, count) = (70usize, 20usize, 3usize, 2usize);
    let rows = kd + 1;
    // lower storage: off-diagonals random, the diagonal 2·kd + 2 (diagonally dominant)
    let mut lo = rand::<T>(count * rows * n, 5);
    for s in 0..count {
        for j in 0..n {
            lo[s * rows * n + j] = f(2.0 * kd as f64 + 2.0);
        }
    }
    // the same matrices in upper storage: up[kd - r, j + r] = conj(lo[r, j])
    let mut up = vec![T::zero(); count * rows * n];
    for s in 0..count {
        for r in 0..rows {
            for j in 0..n - r {
                up[s * rows * n + (kd - r) * n + j + r] = lo[s * rows * n + r * n + j].conj();
            }
        }
    }
    let bv = rand::<T>(count * n * k, 11);
    let mut cpu: Option<Vec<c64>> = None;
    for dev in devices() {
        for (lower, store) in [(true, &lo), (false, &up)] {
            let ab = Array::from_vec(store.clone(), &[count, rows, n], &dev).unwrap();
            let b = Array::from_vec(bv.clone(), &[count, n, k], &dev).unwrap();
            let x = vals(&solveh_banded(&ab, &b, lower).unwrap());
            // the residual through the general band storage: a[i, j] for |i - j| <= kd
            let (l, u) = (kd, kd);
            for s in 0..count {
                let mut gen = vec![c64::new(0.0, 0.0); (l + u + 1) * n];
                for j in 0..n {
                    for i in j.saturating_sub(kd)..(j + kd + 1).min(n) {
                        let a = if i >= j {
                            lo[s * rows * n + (i - j) * n + j].to_c64()
                        } else {
                            lo[s * rows * n + (j - i) * n + i].to_c64().conj()
                        };
                        gen[(u + i - j) * n + j] = a;
                    }
                }
                let r = band_matvec(&gen, l, u, n, &x[s * n * k..(s + 1) * n * k], k);
                let want: Vec<c64> = bv[s * n * k..(s + 1) * n * k]
                    .iter()
                    .map(|v| v.to_c64())
                    .collect();
                close(
                    &r,
                    &want,
                    50.0 * tol::<T>(),
                    &format!("solveh_banded residual lower={lower} on {dev}"),
                );
            }
            match &cpu {
                None => cpu = Some(x),
                Some(c) => close(&x, c, 50.0 * tol::<T>(), &format!("solveh_banded on {dev}")),
            }
        }
        // indefinite: the third leading minor fails
        let mut bad = vec![f(0.0); 2 * 4];
        for (j, v) in [4.0, 4.0, -1.0, 4.0].iter().enumerate() {
            bad[4 + j] = f(*v);
        }
        let ab = Array::from_vec(bad.clone(), &[2, 4], &dev).unwrap();
        assert!(
            matches!(
                cholesky_banded(&ab, false),
                Err(Error::NotPositiveDefinite { index: 2, .. })
            ),
            "indefinite on {dev}"
        );
        let b = Array::<T>::ones(&[4], &dev).unwrap();
        assert!(matches!(
            solveh_banded(&ab, &b, false),
            Err(Error::NotPositiveDefinite { index: 2, .. })
        ));
        let b5 = Array::<T>::ones(&[5], &dev).unwrap();
        assert!(matches!(
            solveh_banded(&ab, &b5, false),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            cho_solve_banded((&ab, false), &b5),
            Err(Error::ShapeMismatch { .. })
        ));
        let mut nan = bad;
        nan[5] = f(f64::NAN);
        let abn = Array::from_vec(nan, &[2, 4], &dev).unwrap();
        assert!(matches!(
            cholesky_banded(&abn, false),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            cho_solve_banded((&abn, false), &b),
            Err(Error::InvalidArgument { .. })
        ));
        let none = Array::<T>::zeros(&[0, 4], &dev).unwrap();
        assert!(matches!(
            cholesky_banded(&none, false),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
all_types!(hermitian_banded_more, hermitian_banded_more_body);

/// Each column's sign fixed so that its largest-magnitude component is positive.
fn fix_signs(v: &[c64], n: usize, m: usize) -> Vec<c64> {
    let mut o = v.to_vec();
    for j in 0..m {
        let (mut best, mut at) = (-1.0, 0);
        for i in 0..n {
            if v[i * m + j].norm() > best {
                best = v[i * m + j].norm();
                at = i;
            }
        }
        if v[at * m + j].re < 0.0 {
            for i in 0..n {
                o[i * m + j] = -o[i * m + j];
            }
        }
    }
    o
}

fn tridiagonal_body<T: Scalar<R = T>>() {
    let d = data();
    let tl = if single::<T>() { 2e-5 } else { 1e-12 };
    for (case, sel) in [
        ("all", Select::All),
        ("idx", Select::Index(2, 5)),
        ("val", Select::Value(-1.0, 1.0)),
    ] {
        let (ww, ws) = get(&d, &format!("eigh_tridiagonal_{case}_w"));
        let (wv, vs) = get(&d, &format!("eigh_tridiagonal_{case}_v"));
        let run = |dev: &Device| {
            eigh_tridiagonal(
                &input::<T>(&d, "in_T_d", dev),
                &input::<T>(&d, "in_T_e", dev),
                false,
                sel,
            )
            .unwrap()
        };
        check(&format!("eigh_tridiagonal {case} w"), &ww, &ws, tl, |dev| {
            out(run(dev).0)
        });
        let m = vs[1];
        check(
            &format!("eigh_tridiagonal {case} v"),
            &fix_signs(&wv, 9, m),
            &vs,
            100.0 * tl,
            |dev| {
                let v = run(dev).1.unwrap();
                (fix_signs(&vals(&v), 9, m), v.shape().to_vec())
            },
        );
    }
    for (case, sel) in [("all", Select::All), ("val", Select::Value(-1.0, 1.0))] {
        let (w, s) = get(&d, &format!("eigvalsh_tridiagonal_{case}"));
        check(&format!("eigvalsh_tridiagonal {case}"), &w, &s, tl, |dev| {
            out(eigvalsh_tridiagonal(
                &input::<T>(&d, "in_T_d", dev),
                &input::<T>(&d, "in_T_e", dev),
                sel,
            )
            .unwrap())
        });
    }
    let f = |v: f64| T::from_c64(c64::new(v, 0.0));
    for dev in devices() {
        let dd = input::<T>(&d, "in_T_d", &dev);
        let ee = input::<T>(&d, "in_T_e", &dev);
        // a stack (the same matrix twice, e broadcast) gives the matrix's values twice
        let ds = dd.expand_dims(0).unwrap().broadcast_to(&[2, 9]).unwrap();
        let w2 = eigvalsh_tridiagonal(&ds, &ee, Select::Index(0, 3)).unwrap();
        assert_eq!(w2.shape(), &[2, 4]);
        let w1 = vals(&eigvalsh_tridiagonal(&dd, &ee, Select::Index(0, 3)).unwrap());
        close(&vals(&w2)[4..], &w1, tl, "eigvalsh_tridiagonal stack");
        // an empty value range: no eigenvalues, (N, 0) vectors
        let (w, v) = eigh_tridiagonal(&dd, &ee, false, Select::Value(100.0, 200.0)).unwrap();
        assert_eq!(
            (w.shape(), v.unwrap().shape()),
            (&[0usize][..], &[9usize, 0][..])
        );
        // 1 x 1
        let d1 = Array::from_vec(vec![f(3.0)], &[1], &dev).unwrap();
        let e0 = Array::<T>::zeros(&[0], &dev).unwrap();
        let (w, v) = eigh_tridiagonal(&d1, &e0, false, Select::All).unwrap();
        assert_eq!((vals(&w)[0].re, vals(&v.unwrap())[0].re), (3.0, 1.0));
        // errors
        let e9 = Array::<T>::zeros(&[9], &dev).unwrap();
        let bad = |r: Result<Array<T>>| matches!(r, Err(Error::InvalidArgument { .. }));
        assert!(bad(eigvalsh_tridiagonal(&dd, &e9, Select::All)));
        assert!(bad(eigvalsh_tridiagonal(&dd, &ee, Select::Index(3, 2))));
        assert!(bad(eigvalsh_tridiagonal(&dd, &ee, Select::Index(0, 9))));
        assert!(bad(eigvalsh_tridiagonal(&dd, &ee, Select::Value(1.0, 0.0))));
        let mut dn = dd.to_vec().unwrap();
        dn[4] = f(f64::INFINITY);
        let dn = Array::from_vec(dn, &[9], &dev).unwrap();
        assert!(bad(eigvalsh_tridiagonal(&dn, &ee, Select::All)));
    }
}

#[test]
fn eigh_tridiagonal_golden() {
    tridiagonal_body::<f32>();
    tridiagonal_body::<f64>();
}
