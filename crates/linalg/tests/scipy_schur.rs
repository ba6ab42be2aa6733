//! hessenberg, schur (eigenvalues, sdim and the selected set of each sort), rsf2csf, cdf2rdf,
//! rq, solve_sylvester, solve_continuous_lyapunov, solve_discrete_lyapunov (both methods),
//! solve_continuous_are, solve_discrete_are (defaults, and with e and s), funm and the eigh
//! imaginary-diagonal rule against SciPy 1.17's results in `tests/data/scipy_linalg_schur.npz`
//! (`tests/golden/gen.py linalg_schur`), for f32, f64, c32 and c64: the CPU against SciPy, every
//! other device against the CPU.
//!
//! Tolerances relative to the largest expected magnitude: `1e-10` for f64/c64 and `2e-4` for
//! f32/c32 (inputs exactly representable in f32; SciPy's results in f64); `1e-8`/`2e-3` for the
//! Riccati solutions (condition-dependent). Hessenberg and RQ factors follow LAPACK's reflector
//! convention and are compared entry by entry; Schur forms are unique only up to order and
//! phases, so their eigenvalues are compared as sets.

use crate::common::npz::{check, dt, get, input, load, out, single, Data};
use cusci_core::c64;
use cusci_core::testing::devices;
use cusci_linalg::*;

const NPZ: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/scipy_linalg_schur.npz"
);

fn data() -> Data {
    load(NPZ)
}

fn tol<T: Scalar>() -> f64 {
    if single::<T>() {
        2e-4
    } else {
        1e-10
    }
}

/// Each expected value matched to the nearest unused one of `got` (a multiset comparison).
fn same_set(got: &[c64], want: &[c64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: counts {got:?} vs {want:?}");
    let scale = want.iter().map(|v| v.norm()).fold(1.0, f64::max);
    let mut used = vec![false; got.len()];
    for w in want {
        let (i, d) = got
            .iter()
            .enumerate()
            .filter(|(i, _)| !used[*i])
            .map(|(i, g)| (i, (g - w).norm()))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap();
        assert!(
            d <= tol * scale,
            "{what}: {w} unmatched (nearest at {d:e}) in {got:?}"
        );
        used[i] = true;
    }
}

/// Eigenvalues of the leading `k x k` part of a (quasi-)triangular `n x n` `t`.
fn t_eigs(t: &[c64], n: usize, k: usize) -> Vec<c64> {
    let mut w = Vec::new();
    let mut i = 0;
    while i < k {
        if i + 1 < n && t[(i + 1) * n + i] != c64::new(0.0, 0.0) {
            let (a, b, c, d) = (
                t[i * n + i],
                t[i * n + i + 1],
                t[(i + 1) * n + i],
                t[(i + 1) * n + i + 1],
            );
            let half = (a - d) * 0.5;
            let disc = (half * half + b * c).sqrt();
            w.push((a + d) * 0.5 + disc);
            w.push((a + d) * 0.5 - disc);
            i += 2;
        } else {
            w.push(t[i * n + i]);
            i += 1;
        }
    }
    w
}

fn hessenberg_rq_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    for n in [3, 5, 8] {
        let key = format!("in_H{n}_{t}");
        for (part, idx) in [("h", 0), ("q", 1)] {
            let (want, s) = get(&d, &format!("hess{n}_{t}_{part}"));
            check(
                &format!("hessenberg {n} {t} {part}"),
                &want,
                &s,
                tol::<T>(),
                |dev| {
                    let (h, q) = hessenberg(&input::<T>(&d, &key, dev), true).unwrap();
                    out(if idx == 0 { h } else { q.unwrap() })
                },
            );
        }
    }
    for case in ["w", "t", "s"] {
        let key = format!("in_RQ{case}_{t}");
        for (mode, name) in [(RqMode::Full, "full"), (RqMode::Economic, "economic")] {
            for (part, idx) in [("r", 0), ("q", 1)] {
                let (want, s) = get(&d, &format!("rq_{case}_{name}_{t}_{part}"));
                check(
                    &format!("rq {case} {name} {t} {part}"),
                    &want,
                    &s,
                    tol::<T>(),
                    |dev| {
                        let (r, q) = rq(&input::<T>(&d, &key, dev), mode).unwrap();
                        out(if idx == 0 { r } else { q.unwrap() })
                    },
                );
            }
        }
        let (want, s) = get(&d, &format!("rq_{case}_r_{t}_r"));
        check(&format!("rq {case} r {t}"), &want, &s, tol::<T>(), |dev| {
            out(rq(&input::<T>(&d, &key, dev), RqMode::R).unwrap().0)
        });
    }
}
all_types!(scipy_hessenberg_rq, hessenberg_rq_body);

fn schur_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    let key = format!("in_S7_{t}");
    let n = 7;
    for dev in devices() {
        let a = input::<T>(&d, &key, &dev);
        for complex in [false, true] {
            let name = if complex { "complex" } else { "real" };
            let (tt, _) = if complex {
                out(schur_complex(&a, None).unwrap().t)
            } else {
                out(schur(&a, None).unwrap().t)
            };
            let (want, _) = get(&d, &format!("schur_{name}_{t}_eigs"));
            same_set(
                &t_eigs(&tt, n, n),
                &want,
                tol::<T>() * 10.0,
                &format!("schur {name} {t} on {dev}"),
            );
            for (sort, sname) in [
                (SchurSort::Lhp, "lhp"),
                (SchurSort::Rhp, "rhp"),
                (SchurSort::Iuc, "iuc"),
                (SchurSort::Ouc, "ouc"),
            ] {
                let s = if complex {
                    let s = schur_complex(&a, Some(sort)).unwrap();
                    (out(s.t).0, s.sdim.unwrap()[0])
                } else {
                    let s = schur(&a, Some(sort)).unwrap();
                    (out(s.t).0, s.sdim.unwrap()[0])
                };
                let (sd, _) = get(&d, &format!("schur_{name}_{sname}_{t}_sdim"));
                assert_eq!(s.1, sd[0].re as usize, "sdim {name} {sname} {t} on {dev}");
                let (sel, _) = get(&d, &format!("schur_{name}_{sname}_{t}_sel"));
                same_set(
                    &t_eigs(&s.0, n, s.1),
                    &sel,
                    tol::<T>() * 10.0,
                    &format!("schur {name} {sname} {t} on {dev}"),
                );
            }
        }
    }
}
all_types!(scipy_schur, schur_body);

#[test]
fn scipy_rsf2csf_cdf2rdf() {
    let d = data();
    for part in ["tc", "zc"] {
        let (want, s) = get(&d, &format!("rsf_{part}"));
        check(&format!("rsf2csf {part}"), &want, &s, 1e-12, |dev| {
            let (tc, zc) = rsf2csf(
                &input::<f64>(&d, "rsf_t", dev),
                &input::<f64>(&d, "rsf_z", dev),
            )
            .unwrap();
            out(if part == "tc" { tc } else { zc })
        });
    }
    for part in ["wr", "vr"] {
        let (want, s) = get(&d, &format!("cdf_{part}"));
        check(&format!("cdf2rdf {part}"), &want, &s, 1e-14, |dev| {
            let (wr, vr) = cdf2rdf(
                &input::<c64>(&d, "cdf_w", dev),
                &input::<c64>(&d, "cdf_v", dev),
            )
            .unwrap();
            out(if part == "wr" { wr } else { vr })
        });
    }
    // eigh reads the real part of the diagonal only
    let (want, s) = get(&d, "eigh_imagdiag_w");
    check("eigh imaginary diagonal", &want, &s, 1e-12, |dev| {
        out(eigvalsh(&input::<c64>(&d, "in_EHN", dev), true).unwrap())
    });
    check("eigh imaginary diagonal c32", &want, &s, 2e-5, |dev| {
        out(eigvalsh(&input::<c32>(&d, "in_EHN", dev), false).unwrap())
    });
}

fn equations_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    let i = |k: &str, dev: &Device| input::<T>(&d, &format!("in_{k}_{t}"), dev);
    let (want, s) = get(&d, &format!("sylvester_{t}_x"));
    check(
        &format!("solve_sylvester {t}"),
        &want,
        &s,
        tol::<T>() * 10.0,
        |dev| out(solve_sylvester(&i("SA", dev), &i("SB", dev), &i("SQ", dev)).unwrap()),
    );
    let (want, s) = get(&d, &format!("lyap_{t}_x"));
    check(
        &format!("solve_continuous_lyapunov {t}"),
        &want,
        &s,
        tol::<T>() * 10.0,
        |dev| out(solve_continuous_lyapunov(&i("SA", dev), &i("LQ", dev)).unwrap()),
    );
    for (m, name) in [
        (DiscreteLyapunovMethod::Direct, "direct"),
        (DiscreteLyapunovMethod::Bilinear, "bilinear"),
    ] {
        let (want, s) = get(&d, &format!("dlyap_{name}_{t}_x"));
        check(
            &format!("solve_discrete_lyapunov {name} {t}"),
            &want,
            &s,
            tol::<T>() * 10.0,
            |dev| out(solve_discrete_lyapunov(&i("AD", dev), &i("LQ", dev), m).unwrap()),
        );
    }
    let rt = if single::<T>() { 2e-3 } else { 1e-8 };
    for (es, suffix) in [(false, ""), (true, "_es")] {
        let opts = |dev: &Device| AreOptions {
            e: es.then(|| i("REE", dev)),
            s: es.then(|| i("RSS", dev)),
        };
        let (want, s) = get(&d, &format!("care{suffix}_{t}_x"));
        check(
            &format!("solve_continuous_are{suffix} {t}"),
            &want,
            &s,
            rt,
            |dev| {
                out(solve_continuous_are(
                    &i("RA", dev),
                    &i("RB", dev),
                    &i("RQ", dev),
                    &i("RR", dev),
                    &opts(dev),
                )
                .unwrap())
            },
        );
        let (want, s) = get(&d, &format!("dare{suffix}_{t}_x"));
        check(
            &format!("solve_discrete_are{suffix} {t}"),
            &want,
            &s,
            rt,
            |dev| {
                out(solve_discrete_are(
                    &i("RA", dev),
                    &i("RB", dev),
                    &i("RQ", dev),
                    &i("RR", dev),
                    &opts(dev),
                )
                .unwrap())
            },
        );
    }
    let (want, s) = get(&d, &format!("funm_exp_{t}_f"));
    check(
        &format!("funm exp {t}"),
        &want,
        &s,
        tol::<T>() * 10.0,
        |dev| out(funm(&i("FM", dev), |z| z.exp()).unwrap().0),
    );
    let (want, s) = get(&d, &format!("funm_poly_{t}_f"));
    check(
        &format!("funm z²+sin z {t}"),
        &want,
        &s,
        tol::<T>() * 10.0,
        |dev| out(funm(&i("FM", dev), |z| z * z + z.sin()).unwrap().0),
    );
    // the error estimate: small for these well-separated spectra, as SciPy's
    let (e, _) = get(&d, &format!("funm_exp_{t}_err"));
    let err = funm(&i("FM", &Device::Cpu), |z| z.exp()).unwrap().1[0];
    assert!(
        err < 1e3 * T::eps() && e[0].re < 1e-10,
        "funm err {err} vs SciPy's {}",
        e[0].re
    );
}
all_types!(scipy_equations, equations_body);

fn banded_qrm_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    let ab = format!("in_BAND_{t}");
    for lower in [false, true] {
        let lo = if lower { "l" } else { "u" };
        let (want, s) = get(&d, &format!("eigb_{lo}_{t}_w"));
        check(
            &format!("eig_banded {lo} {t} w"),
            &want,
            &s,
            tol::<T>(),
            |dev| {
                out(
                    eig_banded(&input::<T>(&d, &ab, dev), lower, false, Select::All)
                        .unwrap()
                        .0,
                )
            },
        );
        let (want, s) = get(&d, &format!("eigb_{lo}_{t}_absv"));
        check(
            &format!("eig_banded {lo} {t} |v|"),
            &want,
            &s,
            tol::<T>() * 10.0,
            |dev| {
                let v = eig_banded(&input::<T>(&d, &ab, dev), lower, false, Select::All)
                    .unwrap()
                    .1
                    .unwrap();
                let (v, s) = out(v);
                (v.iter().map(|z| c64::new(z.norm(), 0.0)).collect(), s)
            },
        );
        for (sel, key) in [
            (Select::Index(2, 4), "wi"),
            (Select::Value(-1.0, 1.5), "wv"),
        ] {
            let (want, s) = get(&d, &format!("eigb_{lo}_{t}_{key}"));
            check(
                &format!("eigvals_banded {lo} {t} {key}"),
                &want,
                &s,
                tol::<T>(),
                |dev| out(eigvals_banded(&input::<T>(&d, &ab, dev), lower, sel).unwrap()),
            );
        }
    }
    for case in ["t", "w"] {
        let a = format!("in_QM{case}_{t}");
        let cr = format!("in_QMR{case}_{t}");
        let cl = format!("in_QML{case}_{t}");
        for conj in [false, true] {
            let cj = if conj { "c" } else { "n" };
            for (mode, name, ck) in [
                (QrMultiplyMode::Right, "right", &cr),
                (QrMultiplyMode::Left, "left", &cl),
            ] {
                let (want, s) = get(&d, &format!("qrm_{case}_{name}_{cj}_{t}"));
                check(
                    &format!("qr_multiply {case} {name} {cj} {t}"),
                    &want,
                    &s,
                    tol::<T>(),
                    |dev| {
                        out(qr_multiply(
                            &input::<T>(&d, &a, dev),
                            &input::<T>(&d, ck, dev),
                            mode,
                            conj,
                        )
                        .unwrap()
                        .0)
                    },
                );
            }
        }
        let (want, s) = get(&d, &format!("qrm_{case}_right1_{t}"));
        check(
            &format!("qr_multiply {case} right 1-D {t}"),
            &want,
            &s,
            tol::<T>(),
            |dev| {
                let c = input::<T>(&d, &cr, dev)
                    .slice_axis(0, Some(0), Some(1), 1)
                    .unwrap();
                let c = c.reshape(&[c.size() as isize]).unwrap();
                out(
                    qr_multiply(&input::<T>(&d, &a, dev), &c, QrMultiplyMode::Right, false)
                        .unwrap()
                        .0,
                )
            },
        );
        let (want, s) = get(&d, &format!("qrm_{case}_left1_{t}"));
        check(
            &format!("qr_multiply {case} left 1-D {t}"),
            &want,
            &s,
            tol::<T>(),
            |dev| {
                let c = input::<T>(&d, &cl, dev)
                    .slice_axis(1, Some(0), Some(1), 1)
                    .unwrap()
                    .copy()
                    .unwrap();
                let c = c.reshape(&[c.size() as isize]).unwrap();
                out(
                    qr_multiply(&input::<T>(&d, &a, dev), &c, QrMultiplyMode::Left, false)
                        .unwrap()
                        .0,
                )
            },
        );
        let (want, s) = get(&d, &format!("qrm_{case}_{t}_r"));
        check(
            &format!("qr_multiply {case} r {t}"),
            &want,
            &s,
            tol::<T>(),
            |dev| {
                out(qr_multiply(
                    &input::<T>(&d, &a, dev),
                    &input::<T>(&d, &cr, dev),
                    QrMultiplyMode::Right,
                    false,
                )
                .unwrap()
                .1)
            },
        );
    }
}
all_types!(scipy_banded_qr_multiply, banded_qrm_body);

#[test]
fn banded_qr_multiply_bad_input() {
    for dev in devices() {
        let a = Array::<f64>::eye(3, None, 0, &dev).unwrap();
        let c = Array::<f64>::zeros(&[2, 2], &dev).unwrap();
        let v = Array::<f64>::zeros(&[3], &dev).unwrap();
        assert!(matches!(
            qr_multiply(&a, &c, QrMultiplyMode::Right, false).unwrap_err(),
            Error::ShapeMismatch { .. }
        ));
        assert!(matches!(
            qr_multiply(&v, &c, QrMultiplyMode::Left, false).unwrap_err(),
            Error::InvalidArgument { .. }
        ));
        let mut nan = vec![0.0f64; 6];
        nan[2] = f64::NAN;
        let nan = Array::from_vec(nan, &[2, 3], &dev).unwrap();
        assert!(matches!(
            eig_banded(&nan, false, false, Select::All).unwrap_err(),
            Error::InvalidArgument { .. }
        ));
        assert!(matches!(
            eig_banded(&v, false, false, Select::All).unwrap_err(),
            Error::InvalidArgument { .. }
        ));
        let ab = Array::<f64>::ones(&[2, 3], &dev).unwrap();
        assert!(matches!(
            eigvals_banded(&ab, true, Select::Index(1, 3)).unwrap_err(),
            Error::InvalidArgument { .. }
        ));
        assert!(matches!(
            eigvals_banded(&ab, true, Select::Value(2.0, 1.0)).unwrap_err(),
            Error::InvalidArgument { .. }
        ));
        let e = Array::<f64>::zeros(&[1, 0], &dev).unwrap();
        assert_eq!(
            eigvals_banded(&e, false, Select::All).unwrap().shape(),
            &[0]
        );
    }
}

fn ldl_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    for case in ["r", "h", "z"] {
        let key = format!("in_LDL{case}_{t}");
        for lower in [true, false] {
            let herms: &[bool] = if T::DTYPE.is_complex() {
                &[true, false]
            } else {
                &[true]
            };
            for &herm in herms {
                let k = format!(
                    "ldl_{case}_{}_{}_{t}",
                    if lower { "l" } else { "u" },
                    if herm { "h" } else { "s" }
                );
                for (part, idx) in [("lu", 0), ("d", 1), ("perm", 2)] {
                    let (want, s) = get(&d, &format!("{k}_{part}"));
                    check(
                        &format!("{k} {part}"),
                        &want,
                        &s,
                        tol::<T>() * 10.0,
                        |dev| {
                            let (lu, dd, p) = ldl(&input::<T>(&d, &key, dev), lower, herm).unwrap();
                            match idx {
                                0 => out(lu),
                                1 => out(dd),
                                _ => out(p),
                            }
                        },
                    );
                }
            }
        }
    }
}
all_types!(scipy_ldl, ldl_body);
