//! Matrix equations and funm: residuals on random input for every element type and device
//! (a x + x b = q, a x + x aᴴ = q, a x aᴴ - x + q = 0, the Riccati residuals), f(a) against
//! known functions, the GPU against the CPU, and the typed errors for bad input.
//!
//! Tolerances: residuals within `C·ε·n` of the element type relative to the norms of the terms
//! (the Schur kernels run in double; f32/c32 carry the f32 products of the composition).

use crate::common::*;
use cusci_core::testing::{devices, randn_vec};
use cusci_core::{c64, Element};
use cusci_linalg::*;

fn cv<T: Element>(a: &Array<T>) -> Vec<c64> {
    a.to_vec().unwrap().iter().map(|x| x.to_c64()).collect()
}

fn mm(a: &[c64], b: &[c64], m: usize, k: usize, n: usize) -> Vec<c64> {
    naive(a, b, m, k, n)
}

fn add(a: &[c64], b: &[c64]) -> Vec<c64> {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}

fn sub(a: &[c64], b: &[c64]) -> Vec<c64> {
    a.iter().zip(b).map(|(x, y)| x - y).collect()
}

fn maxn(a: &[c64]) -> f64 {
    a.iter().map(|x| x.norm()).fold(1.0, f64::max)
}

fn small(r: &[c64], scale: f64, tol: f64, what: &str) {
    let worst = r.iter().map(|x| x.norm()).fold(0.0, f64::max);
    assert!(
        worst <= tol * scale,
        "{what}: residual {worst:e} > {:e}",
        tol * scale
    );
}

fn arr<T: Scalar>(v: &[c64], shape: &[usize], dev: &Device) -> Array<T> {
    Array::from_vec(v.iter().map(|z| T::from_c64(*z)).collect(), shape, dev).unwrap()
}

/// A random matrix as `T` values (exactly representable), and its c64 copy.
fn rnd<T: Scalar>(n: usize, seed: u64) -> Vec<c64> {
    randn_vec::<T>(n, seed).iter().map(|x| x.to_c64()).collect()
}

fn sylvester_body<T: Scalar>() {
    let mut cpu: Vec<Vec<c64>> = Vec::new();
    for dev in devices() {
        let mut res = Vec::new();
        for &(m, n) in &[(0, 2), (1, 1), (2, 3), (5, 4), (17, 9)] {
            let a = rnd::<T>(2 * m * m, 10 + m as u64);
            let b = rnd::<T>(2 * n * n, 20 + n as u64);
            let q = rnd::<T>(2 * m * n, 30 + (m * n) as u64);
            let x = solve_sylvester(
                &arr::<T>(&a, &[2, m, m], &dev),
                &arr::<T>(&b, &[2, n, n], &dev),
                &arr::<T>(&q, &[2, m, n], &dev),
            )
            .unwrap();
            assert_eq!(x.shape(), &[2, m, n]);
            let xv = cv(&x);
            for s in 0..2 {
                let (am, bm) = (
                    &a[s * m * m..(s + 1) * m * m],
                    &b[s * n * n..(s + 1) * n * n],
                );
                let (xm, qm) = (
                    &xv[s * m * n..(s + 1) * m * n],
                    &q[s * m * n..(s + 1) * m * n],
                );
                let r = sub(&add(&mm(am, xm, m, m, n), &mm(xm, bm, m, n, n)), qm);
                let scale = maxn(xm) * (maxn(am) + maxn(bm)) * (m + n).max(1) as f64;
                small(
                    &r,
                    scale,
                    200.0 * T::eps(),
                    &format!("sylvester {m}x{n} on {dev}"),
                );
            }
            res.push(xv);
            // continuous Lyapunov on the same a
            let xl = solve_continuous_lyapunov(
                &arr::<T>(&a, &[2, m, m], &dev),
                &arr::<T>(&rnd::<T>(2 * m * m, 40), &[2, m, m], &dev),
            )
            .unwrap();
            let ql = rnd::<T>(2 * m * m, 40);
            let xlv = cv(&xl);
            for s in 0..2 {
                let am = &a[s * m * m..(s + 1) * m * m];
                let xm = &xlv[s * m * m..(s + 1) * m * m];
                let r = sub(
                    &add(&mm(am, xm, m, m, m), &mm(xm, &adjoint(am, m, m), m, m, m)),
                    &ql[s * m * m..(s + 1) * m * m],
                );
                let scale = maxn(xm) * maxn(am) * m.max(1) as f64;
                small(
                    &r,
                    scale,
                    400.0 * T::eps(),
                    &format!("lyapunov {m} on {dev}"),
                );
            }
            let xa = solve_lyapunov(
                &arr::<T>(&a, &[2, m, m], &dev),
                &arr::<T>(&ql, &[2, m, m], &dev),
            )
            .unwrap();
            close(&cv(&xa), &xlv, 0.0, "solve_lyapunov alias");
            res.push(xlv);
        }
        match cpu.is_empty() {
            true => cpu = res,
            false => {
                for (g, c) in res.iter().zip(&cpu) {
                    close(g, c, 1e3 * T::eps(), &format!("sylvester {dev} vs cpu"));
                }
            }
        }
    }
}
all_types!(sylvester_residuals, sylvester_body);

fn discrete_lyapunov_body<T: Scalar>() {
    for dev in devices() {
        for &n in &[1usize, 3, 9, 12] {
            // a stable a (spectral radius < 1): random / (2 sqrt(n))
            let s = 0.5 / (n as f64).sqrt();
            let a: Vec<c64> = rnd::<T>(n * n, 50 + n as u64)
                .iter()
                .map(|z| T::from_c64(z * s).to_c64())
                .collect();
            let q = rnd::<T>(n * n, 60 + n as u64);
            let mut sols = Vec::new();
            for method in [
                DiscreteLyapunovMethod::Auto,
                DiscreteLyapunovMethod::Direct,
                DiscreteLyapunovMethod::Bilinear,
            ] {
                let x = cv(&solve_discrete_lyapunov(
                    &arr::<T>(&a, &[n, n], &dev),
                    &arr::<T>(&q, &[n, n], &dev),
                    method,
                )
                .unwrap());
                let r = add(
                    &sub(&mm(&mm(&a, &x, n, n, n), &adjoint(&a, n, n), n, n, n), &x),
                    &q,
                );
                small(
                    &r,
                    maxn(&x) * n as f64,
                    500.0 * T::eps(),
                    &format!("discrete lyapunov n={n} {method:?} on {dev}"),
                );
                sols.push(x);
            }
            close(
                &sols[1],
                &sols[2],
                1e4 * T::eps() * n as f64,
                "direct vs bilinear",
            );
        }
    }
}
all_types!(discrete_lyapunov_residuals, discrete_lyapunov_body);

#[allow(clippy::too_many_arguments)]
fn care_residual(
    a: &[c64],
    b: &[c64],
    q: &[c64],
    r: &[c64],
    e: &[c64],
    s: &[c64],
    x: &[c64],
    n: usize,
    m: usize,
) -> Vec<c64> {
    // eᴴ x a + aᴴ x e - (eᴴ x b + s) r⁻¹ (bᴴ x e + sᴴ) + q
    let eh = adjoint(e, n, n);
    let t1 = mm(&mm(&eh, x, n, n, n), a, n, n, n);
    let t2 = mm(&mm(&adjoint(a, n, n), x, n, n, n), e, n, n, n);
    let l = add(&mm(&mm(&eh, x, n, n, n), b, n, n, m), s);
    let rinv = inv_small(r, m);
    let t3 = mm(&mm(&l, &rinv, n, m, m), &adjoint(&l, n, m), n, m, n);
    add(&sub(&add(&t1, &t2), &t3), q)
}

#[allow(clippy::too_many_arguments)]
fn dare_residual(
    a: &[c64],
    b: &[c64],
    q: &[c64],
    r: &[c64],
    e: &[c64],
    s: &[c64],
    x: &[c64],
    n: usize,
    m: usize,
) -> Vec<c64> {
    // aᴴ x a - eᴴ x e - (aᴴ x b + s)(r + bᴴ x b)⁻¹(bᴴ x a + sᴴ) + q
    let ah = adjoint(a, n, n);
    let t1 = mm(&mm(&ah, x, n, n, n), a, n, n, n);
    let t2 = mm(&mm(&adjoint(e, n, n), x, n, n, n), e, n, n, n);
    let l = add(&mm(&mm(&ah, x, n, n, n), b, n, n, m), s);
    let mid = add(r, &mm(&mm(&adjoint(b, n, m), x, m, n, n), b, m, n, m));
    let t3 = mm(
        &mm(&l, &inv_small(&mid, m), n, m, m),
        &adjoint(&l, n, m),
        n,
        m,
        n,
    );
    add(&sub(&sub(&t1, &t2), &t3), q)
}

/// Gauss–Jordan inverse (test oracle).
fn inv_small(a: &[c64], n: usize) -> Vec<c64> {
    let mut m = a.to_vec();
    let mut inv = eye::<c64>(n);
    for k in 0..n {
        let p = (k..n)
            .max_by(|&i, &j| m[i * n + k].norm().total_cmp(&m[j * n + k].norm()))
            .unwrap();
        for j in 0..n {
            m.swap(k * n + j, p * n + j);
            inv.swap(k * n + j, p * n + j);
        }
        let d = m[k * n + k];
        for j in 0..n {
            m[k * n + j] /= d;
            inv[k * n + j] /= d;
        }
        for i in 0..n {
            if i != k {
                let f = m[i * n + k];
                for j in 0..n {
                    m[i * n + j] = m[i * n + j] - f * m[k * n + j];
                    inv[i * n + j] = inv[i * n + j] - f * inv[k * n + j];
                }
            }
        }
    }
    inv
}

fn riccati_body<T: Scalar>() {
    let mut cpu: Vec<Vec<c64>> = Vec::new();
    for dev in devices() {
        let mut res = Vec::new();
        for &(n, m) in &[(1usize, 1usize), (3, 2), (6, 3), (11, 4)] {
            let seed = (n * 10 + m) as u64;
            let a = rnd::<T>(n * n, 100 + seed);
            let b = rnd::<T>(n * m, 110 + seed);
            let c = rnd::<T>(n * n, 120 + seed);
            // q = cᴴc + I (Hermitian positive definite), r = I + dᴴd
            let mut q = mm(&adjoint(&c, n, n), &c, n, n, n);
            for i in 0..n {
                q[i * n + i] += 1.0;
            }
            let d = rnd::<T>(m * m, 130 + seed);
            let mut r = mm(&adjoint(&d, m, m), &d, m, m, m);
            for i in 0..m {
                r[i * m + i] += 1.0;
            }
            let q = cv(&arr::<T>(&q, &[n, n], &Device::Cpu));
            let r = cv(&arr::<T>(&r, &[m, m], &Device::Cpu));
            let mut e = eye::<c64>(n);
            let ee = rnd::<T>(n * n, 140 + seed);
            for (x, y) in e.iter_mut().zip(&ee) {
                *x += y * 0.1;
            }
            let e = cv(&arr::<T>(&e, &[n, n], &Device::Cpu));
            let s: Vec<c64> = rnd::<T>(n * m, 150 + seed)
                .iter()
                .map(|z| T::from_c64(z * 0.1).to_c64())
                .collect();
            let zero_s = vec![c64::new(0.0, 0.0); n * m];
            let id = eye::<c64>(n);
            for (with_e, with_s) in [(false, false), (true, false), (false, true), (true, true)] {
                let opts = AreOptions {
                    e: with_e.then(|| arr::<T>(&e, &[n, n], &dev)),
                    s: with_s.then(|| arr::<T>(&s, &[n, m], &dev)),
                };
                let (ee, ss) = (
                    if with_e { &e } else { &id },
                    if with_s { &s } else { &zero_s },
                );
                let what = format!("n={n} m={m} e={with_e} s={with_s} on {dev}");
                let (ad, bd, qd, rd) = (
                    arr::<T>(&a, &[n, n], &dev),
                    arr::<T>(&b, &[n, m], &dev),
                    arr::<T>(&q, &[n, n], &dev),
                    arr::<T>(&r, &[m, m], &dev),
                );
                let x = cv(&solve_continuous_are(&ad, &bd, &qd, &rd, &opts).unwrap());
                let res1 = care_residual(&a, &b, &q, &r, ee, ss, &x, n, m);
                small(
                    &res1,
                    maxn(&x) * maxn(&a) * maxn(&b).powi(2) * (n * n) as f64,
                    2e3 * T::eps(),
                    &format!("care {what}"),
                );
                close(&x, &adjoint(&x, n, n), 0.0, "care: x Hermitian");
                res.push(x);
                // the discrete equation with a scaled into the unit disc's neighbourhood
                let x = cv(&solve_discrete_are(&ad, &bd, &qd, &rd, &opts).unwrap());
                let res2 = dare_residual(&a, &b, &q, &r, ee, ss, &x, n, m);
                small(
                    &res2,
                    maxn(&x) * maxn(&a).powi(2) * maxn(&b).powi(2) * (n * n) as f64,
                    2e4 * T::eps(),
                    &format!("dare {what}"),
                );
                res.push(x);
            }
        }
        match cpu.is_empty() {
            true => cpu = res,
            false => {
                for (g, c) in res.iter().zip(&cpu) {
                    // the residuals above are the check; the two devices' solutions differ
                    // by the equations' conditioning times rounding (up to 3.1e-11 of the
                    // largest entry seen in f64 on an H100, 1.4e5 ulps; f32 stays within 1e5)
                    let ulps = if T::eps() < 1e-10 { 1e6 } else { 1e5 };
                    close(g, c, ulps * T::eps(), &format!("riccati {dev} vs cpu"));
                }
            }
        }
    }
}
all_types!(riccati_residuals, riccati_body);

fn funm_body<T: Scalar>() {
    for dev in devices() {
        for &n in &[0usize, 1, 2, 5, 16] {
            let a = rnd::<T>(2 * n * n, 200 + n as u64);
            let ad = arr::<T>(&a, &[2, n, n], &dev);
            // f(z) = z²: a · a; f(z) = exp(z): expm
            let (f, err) = funm(&ad, |z| z * z).unwrap();
            assert_eq!(err.len(), 2);
            let f = cv(&f);
            for s in 0..2 {
                let am = &a[s * n * n..(s + 1) * n * n];
                let want = mm(am, am, n, n, n);
                close(
                    &f[s * n * n..(s + 1) * n * n],
                    &want,
                    1e4 * T::eps() * n.max(1) as f64,
                    &format!("funm z² n={n} on {dev}"),
                );
                assert!(err[s] <= 1.0 && err[s] >= 0.0);
            }
            let (fe, _) = funm(&ad, |z| z.exp()).unwrap();
            let want = cv(&expm(&ad.astype::<T::C>().unwrap()).unwrap());
            close(
                &cv(&fe),
                &want,
                1e5 * T::eps() * n.max(1) as f64,
                &format!("funm exp n={n} on {dev}"),
            );
        }
    }
}
all_types!(funm_known, funm_body);

#[test]
fn mateq_bad_input() {
    for dev in devices() {
        let sq = Array::<f64>::eye(2, None, 0, &dev).unwrap();
        let sq3 = Array::<f64>::eye(3, None, 0, &dev).unwrap();
        let rect = Array::<f64>::zeros(&[2, 3], &dev).unwrap();
        let mut nan = Array::<f64>::eye(2, None, 0, &dev)
            .unwrap()
            .to_vec()
            .unwrap();
        nan[1] = f64::NAN;
        let nan = Array::from_vec(nan, &[2, 2], &dev).unwrap();
        let is_arg = |e: Error| assert!(matches!(e, Error::InvalidArgument { .. }), "{e:?}");
        let is_shape = |e: Error| assert!(matches!(e, Error::ShapeMismatch { .. }), "{e:?}");
        is_arg(solve_sylvester(&rect, &sq, &sq).unwrap_err());
        is_shape(solve_sylvester(&sq, &sq3, &sq).unwrap_err());
        is_arg(solve_sylvester(&nan, &sq, &sq).unwrap_err());
        // a and -b share the eigenvalue 1: no unique solution
        let minus = sq.mul_scalar(-1.0).unwrap();
        assert!(matches!(
            solve_sylvester(&sq, &minus, &sq).unwrap_err(),
            Error::Singular { .. }
        ));
        is_arg(solve_continuous_lyapunov(&rect, &rect).unwrap_err());
        is_shape(solve_discrete_lyapunov(&sq, &sq3, DiscreteLyapunovMethod::Auto).unwrap_err());
        is_arg(solve_discrete_lyapunov(&nan, &sq, DiscreteLyapunovMethod::Direct).unwrap_err());
        let o = AreOptions::default();
        is_shape(solve_continuous_are(&sq, &sq3, &sq, &sq, &o).unwrap_err());
        is_arg(solve_continuous_are(&nan, &sq, &sq, &sq, &o).unwrap_err());
        is_arg(solve_discrete_are(&rect, &sq, &sq, &sq, &o).unwrap_err());
        let bad_e = AreOptions {
            e: Some(sq3.clone()),
            s: None,
        };
        is_shape(solve_discrete_are(&sq, &sq, &sq, &sq, &bad_e).unwrap_err());
        is_arg(funm(&rect, |z| z).unwrap_err());
        is_arg(funm(&nan, |z| z).unwrap_err());
        // empty
        let e0 = Array::<f64>::zeros(&[0, 0], &dev).unwrap();
        assert_eq!(solve_sylvester(&e0, &e0, &e0).unwrap().shape(), &[0, 0]);
        assert_eq!(funm(&e0, |z| z).unwrap().0.shape(), &[0, 0]);
    }
}
