//! Stacks of small matrices: the GPU's batched cuSOLVER routes (`potrfBatched` for Cholesky,
//! `syevjBatched`/`heevjBatched` for eigh/eigvalsh, `gesvdjBatched` for svd) and the per-matrix
//! routes next to them (a single matrix, orders above the batched limits), against identities
//! on every device (L·Lᴴ = A, A·V = V·Λ with Vᴴ·V = I, U·Σ·Vᴴ = A with orthonormal factors) and
//! the GPU against the CPU (the Cholesky factor, eigenvalues and singular values are unique).
//!
//! The counts cross the crossovers of `decomp::route` (a stack of one matrix, small stacks and
//! a few hundred matrices), the orders cross the batched routines' limits (31, 32, 33).
//!
//! Tolerances: `200·ε·n` relative to the largest magnitude of the expected values (the
//! Hermitian positive-definite inputs are shifted by `n·I`, the others are O(1) random: no
//! condition number enters the residual bounds); eigen-residuals get a factor 4 (Jacobi and
//! divide-and-conquer both have residuals of a few `ε·‖A‖·n`). Only small sizes run on the CPU.

use crate::common::*;
use cusci_core::testing::{devices, gpu, randn_vec};
use cusci_core::Element;
use cusci_linalg::*;

fn real<T: Scalar>(x: f64) -> T {
    T::from_c64(cusci_core::c64::new(x, 0.0))
}

/// `count` Hermitian positive-definite matrices `m·mᴴ + n·I`, back to back.
fn hpd_stack<T: Scalar>(n: usize, count: usize, seed: u64) -> Vec<T> {
    let mut out = Vec::with_capacity(count * n * n);
    for c in 0..count {
        let m: Vec<T> = randn_vec(n * n, seed + c as u64);
        let mut a = naive(&m, &adjoint(&m, n, n), n, n, n);
        for i in 0..n {
            a[i * n + i] = a[i * n + i] + real::<T>(n as f64);
        }
        out.extend(a);
    }
    out
}

/// `count` Hermitian (indefinite) matrices `m + mᴴ`, back to back.
fn herm_stack<T: Scalar>(n: usize, count: usize, seed: u64) -> Vec<T> {
    let m: Vec<T> = randn_vec(count * n * n, seed);
    let mut out = Vec::with_capacity(count * n * n);
    for c in 0..count {
        let x = &m[c * n * n..(c + 1) * n * n];
        out.extend(x.iter().zip(adjoint(x, n, n)).map(|(a, b)| *a + b));
    }
    out
}

/// The (order, count) pairs: every order at counts 1 and 3, two small orders also in a stack of
/// a few hundred and the largest Jacobi order in a stack of 40, and an order above 64 in a stack of 6 (potrf
/// goes batched from 4 matrices up to order 256) (the CPU reference is slow in
/// debug builds: the large stacks stay few).
fn cases() -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    for &n in &[1usize, 2, 3, 8, 31, 32, 33] {
        v.push((n, 1));
        v.push((n, 3));
    }
    v.extend([(2, 300), (8, 300), (32, 40), (70, 6)]);
    v
}

fn cholesky_body<T: Scalar>() {
    let mut cpu: Vec<Vec<T>> = Vec::new();
    for dev in devices() {
        for (case, &(n, count)) in cases().iter().enumerate() {
            let a = hpd_stack::<T>(n, count, 1000 + case as u64);
            let aa = Array::from_vec(a.clone(), &[count, n, n], &dev).unwrap();
            let what = format!("{} cholesky n={n} count={count} on {dev}", T::DTYPE);
            let l = cholesky(&aa).unwrap().to_vec().unwrap();
            let u = cho_factor(&aa, false).unwrap().factor().to_vec().unwrap();
            for c in 0..count {
                let lc = &l[c * n * n..(c + 1) * n * n];
                let uc = &u[c * n * n..(c + 1) * n * n];
                for i in 0..n {
                    for j in i + 1..n {
                        assert_eq!(lc[i * n + j], T::zero(), "{what}: upper part of L");
                        assert_eq!(uc[j * n + i], T::zero(), "{what}: lower part of U");
                    }
                }
                let ac = &a[c * n * n..(c + 1) * n * n];
                close(
                    &naive(lc, &adjoint(lc, n, n), n, n, n),
                    ac,
                    tol::<T>(n),
                    &format!("{what}: L·Lᴴ matrix {c}"),
                );
                close(
                    &naive(&adjoint(uc, n, n), uc, n, n, n),
                    ac,
                    tol::<T>(n),
                    &format!("{what}: Uᴴ·U matrix {c}"),
                );
            }
            // a batched factor solves (cho_solve against the stack)
            let b: Vec<T> = randn_vec(count * n * 2, 7);
            let f = cho_factor(&aa, true).unwrap();
            let x = cho_solve(
                &f,
                &Array::from_vec(b.clone(), &[count, n, 2], &dev).unwrap(),
            )
            .unwrap()
            .to_vec()
            .unwrap();
            for c in 0..count {
                close(
                    &naive(
                        &a[c * n * n..(c + 1) * n * n],
                        &x[c * n * 2..(c + 1) * n * 2],
                        n,
                        n,
                        2,
                    ),
                    &b[c * n * 2..(c + 1) * n * 2],
                    tol::<T>(n),
                    &format!("{what}: cho_solve matrix {c}"),
                );
            }
            if dev == Device::Cpu {
                cpu.push(l);
            } else {
                // the factor with a positive diagonal is unique
                close(
                    &l,
                    &cpu[case],
                    tol::<T>(n),
                    &format!("{what}: GPU against CPU"),
                );
            }
        }
    }
}

/// One matrix that is not positive definite in a stack: the error names that matrix, on every
/// route (small stack, a few hundred, above the batched order limit); NaN is `InvalidArgument`.
fn cholesky_errors_body<T: Scalar>() {
    for dev in devices() {
        for &(n, count, bad) in &[
            (4usize, 5usize, 3usize),
            (8, 300, 257),
            (2, 2, 0),
            (33, 3, 1),
            (70, 2, 1),
            (70, 5, 4),
        ] {
            let mut a = hpd_stack::<T>(n, count, 2000 + n as u64);
            // a negative pivot at order 3 (or 2 for n = 2) of matrix `bad`
            let p = 2.min(n - 1);
            a[bad * n * n + p * n + p] = real::<T>(-1e4);
            // a later matrix fails too: the first failing one is reported
            if bad + 1 < count {
                a[(count - 1) * n * n] = real::<T>(-1.0);
            }
            let aa = Array::from_vec(a.clone(), &[count, n, n], &dev).unwrap();
            for lower in [true, false] {
                let e = cho_factor(&aa, lower).unwrap_err();
                assert!(
                    matches!(e, Error::NotPositiveDefinite { index, .. } if index == bad),
                    "{} n={n} count={count} lower={lower} on {dev}: want matrix {bad}, got {e:?}",
                    T::DTYPE
                );
            }
            let mut nan = hpd_stack::<T>(n, count, 3000);
            nan[(count - 1) * n * n + (n - 1) * (n + 1)] = real::<T>(f64::NAN);
            let e = cholesky(&Array::from_vec(nan, &[count, n, n], &dev).unwrap()).unwrap_err();
            assert!(
                matches!(e, Error::InvalidArgument { .. }),
                "NaN on {dev}: {e:?}"
            );
        }
    }
}

fn eigh_body<T: Scalar>() {
    let mut cpu: Vec<Vec<T::R>> = Vec::new();
    for dev in devices() {
        let mut idx = 0;
        for (case, &(n, count)) in cases().iter().enumerate() {
            let a = herm_stack::<T>(n, count, 4000 + case as u64);
            for lower in [true, false] {
                // garbage in the unread triangle must not matter
                let mut g = a.clone();
                for c in 0..count {
                    for i in 0..n {
                        for j in 0..n {
                            if (lower && j > i) || (!lower && j < i) {
                                g[c * n * n + i * n + j] =
                                    T::from_c64(cusci_core::c64::new(1e3, 7.0));
                            }
                        }
                    }
                }
                let what = format!(
                    "{} eigh n={n} count={count} lower={lower} on {dev}",
                    T::DTYPE
                );
                let aa = Array::from_vec(g, &[count, n, n], &dev).unwrap();
                let (w, v) = eigh(&aa, lower).unwrap();
                assert_eq!(w.shape(), &[count, n][..]);
                assert_eq!(v.shape(), &[count, n, n][..]);
                let (w, v) = (w.to_vec().unwrap(), v.to_vec().unwrap());
                for c in 0..count {
                    let (wc, vc) = (&w[c * n..(c + 1) * n], &v[c * n * n..(c + 1) * n * n]);
                    assert!(
                        wc.windows(2).all(|p| p[0].to_c64().re <= p[1].to_c64().re),
                        "{what}: ascending, matrix {c}"
                    );
                    let ac = &a[c * n * n..(c + 1) * n * n];
                    let mut vl = vc.to_vec();
                    for i in 0..n {
                        for j in 0..n {
                            vl[i * n + j] = vl[i * n + j] * T::from_real(wc[j]);
                        }
                    }
                    close(
                        &naive(ac, vc, n, n, n),
                        &vl,
                        tol::<T>(n) * 4.0,
                        &format!("{what}: A·V = V·Λ matrix {c}"),
                    );
                    close(
                        &naive(&adjoint(vc, n, n), vc, n, n, n),
                        &eye::<T>(n),
                        tol::<T>(n),
                        &format!("{what}: VᴴV = I matrix {c}"),
                    );
                }
                let w2 = eigvalsh(&aa, lower).unwrap().to_vec().unwrap();
                close(&w2, &w, tol::<T>(n) * 4.0, &format!("{what}: eigvalsh"));
                if dev == Device::Cpu {
                    cpu.push(w);
                } else {
                    close(
                        &w,
                        &cpu[idx],
                        tol::<T>(n) * 4.0,
                        &format!("{what}: eigenvalues GPU against CPU"),
                    );
                }
                idx += 1;
            }
        }
    }
}

fn svd_body<T: Scalar>() {
    let mut shapes: Vec<(usize, usize, usize)> = cases().iter().map(|&(n, c)| (n, n, c)).collect();
    shapes.extend([
        (7, 4, 3),
        (4, 7, 40),
        (32, 5, 3),
        (5, 32, 3),
        (33, 5, 3),
        (5, 33, 2),
    ]);
    let mut cpu: Vec<Vec<T::R>> = Vec::new();
    for dev in devices() {
        for (case, &(m, n, count)) in shapes.iter().enumerate() {
            let a: Vec<T> = randn_vec(count * m * n, 5000 + case as u64);
            let aa = Array::from_vec(a.clone(), &[count, m, n], &dev).unwrap();
            let k = m.min(n);
            let mut s_full = Vec::new();
            for full in [true, false] {
                let what = format!(
                    "{} svd {m}x{n} count={count} full={full} on {dev}",
                    T::DTYPE
                );
                let r = svd(
                    &aa,
                    SvdOptions {
                        full_matrices: full,
                        compute_uv: true,
                    },
                )
                .unwrap();
                let (uc, vr) = if full { (m, n) } else { (k, k) };
                let (u, s, vh) = (r.u.unwrap(), r.s, r.vh.unwrap());
                assert_eq!(u.shape(), &[count, m, uc][..], "{what}");
                assert_eq!(s.shape(), &[count, k][..], "{what}");
                assert_eq!(vh.shape(), &[count, vr, n][..], "{what}");
                let (u, s, vh) = (
                    u.to_vec().unwrap(),
                    s.to_vec().unwrap(),
                    vh.to_vec().unwrap(),
                );
                for c in 0..count {
                    let uc_ = &u[c * m * uc..(c + 1) * m * uc];
                    let sc = &s[c * k..(c + 1) * k];
                    let vc = &vh[c * vr * n..(c + 1) * vr * n];
                    assert!(
                        sc.windows(2).all(|w| w[0].to_c64().re >= w[1].to_c64().re),
                        "{what}: descending, matrix {c}"
                    );
                    assert!(
                        sc.iter().all(|x| x.to_c64().re >= 0.0),
                        "{what}: nonnegative"
                    );
                    let mut sm = vec![T::zero(); uc * vr];
                    for i in 0..k {
                        sm[i * vr + i] = T::from_real(sc[i]);
                    }
                    let usv = naive(&naive(uc_, &sm, m, uc, vr), vc, m, vr, n);
                    close(
                        &usv,
                        &a[c * m * n..(c + 1) * m * n],
                        tol::<T>(m.max(n)),
                        &format!("{what}: U·Σ·Vᴴ matrix {c}"),
                    );
                    close(
                        &naive(&adjoint(uc_, m, uc), uc_, uc, m, uc),
                        &eye::<T>(uc),
                        tol::<T>(m.max(n)),
                        &format!("{what}: UᴴU = I matrix {c}"),
                    );
                    close(
                        &naive(vc, &adjoint(vc, vr, n), vr, n, vr),
                        &eye::<T>(vr),
                        tol::<T>(m.max(n)),
                        &format!("{what}: Vᴴ(Vᴴ)ᴴ = I matrix {c}"),
                    );
                }
                let s2 = svd(
                    &aa,
                    SvdOptions {
                        full_matrices: full,
                        compute_uv: false,
                    },
                )
                .unwrap();
                assert!(s2.u.is_none() && s2.vh.is_none());
                close(
                    &s2.s.to_vec().unwrap(),
                    &s,
                    tol::<T>(m.max(n)),
                    &format!("{what}: values only"),
                );
                s_full = s;
            }
            if dev == Device::Cpu {
                cpu.push(s_full);
            } else {
                close(
                    &s_full,
                    &cpu[case],
                    tol::<T>(m.max(n)),
                    &format!("{} svd {m}x{n} count={count}: GPU against CPU", T::DTYPE),
                );
            }
        }
    }
}

all_types!(batched_cholesky, cholesky_body);
all_types!(batched_cholesky_errors, cholesky_errors_body);
all_types!(batched_eigh, eigh_body);
all_types!(batched_svd, svd_body);

/// A stack of 4096 8x8 matrices on the GPU (the case the batched routines exist for): the
/// Cholesky factors, eigenvalues and singular values against the CPU's.
#[test]
fn batched_large_stack_gpu() {
    let Some(g) = gpu() else {
        return;
    };
    let (n, count) = (8, 4096);
    let spd = hpd_stack::<f64>(n, count, 6000);
    let her = herm_stack::<f64>(n, count, 6001);
    let run = |dev: &Device| {
        let a = Array::from_vec(spd.clone(), &[count, n, n], dev).unwrap();
        let h = Array::from_vec(her.clone(), &[count, n, n], dev).unwrap();
        (
            cholesky(&a).unwrap().to_vec().unwrap(),
            eigvalsh(&h, true).unwrap().to_vec().unwrap(),
            svd(
                &h,
                SvdOptions {
                    full_matrices: true,
                    compute_uv: false,
                },
            )
            .unwrap()
            .s
            .to_vec()
            .unwrap(),
        )
    };
    let (c, gg) = (run(&Device::Cpu), run(&g));
    close(&gg.0, &c.0, 1e-13, "cholesky GPU/CPU");
    close(&gg.1, &c.1, 1e-13, "eigvalsh GPU/CPU");
    close(&gg.2, &c.2, 1e-13, "singular values GPU/CPU");
}
