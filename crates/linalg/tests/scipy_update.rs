//! matrix_balance (both return forms), qr_update, qr_insert, qr_delete against SciPy 1.17's
//! results in `tests/data/scipy_linalg_update.npz` (`tests/golden/gen.py linalg_update`) and
//! against identities (`q1 r1` is the changed matrix, `q1` orthonormal, `r1` upper triangular,
//! `b = t⁻¹ a t`), for f32, f64, c32 and c64: the CPU against SciPy, every other device against
//! the CPU. qz_complex and ordqz_complex (every sort, a singular `b`) against SciPy's
//! eigenvalues (as sets) and the pair's invariants. clarkson_woodruff_transform (its random
//! stream is not NumPy's) against its own sketch matrix and its defining properties.
//!
//! Tolerances relative to the largest expected magnitude: `1e-12` for f64/c64 and `2e-5` for
//! f32/c32 (inputs exactly representable in f32; SciPy's results in f64). The balanced matrix
//! is exact (powers of two) and compared exactly. QR factors after an update are unique up to
//! a unimodular factor per row of `r1`, so `|r1|` is compared with SciPy's.

use crate::common::npz::{check, dt, get, input, load, out, single, vals, Data};
use cusci_core::testing::devices;
use cusci_core::{c32, c64};
use cusci_linalg::*;

const NPZ: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/scipy_linalg_update.npz"
);

fn data() -> Data {
    load(NPZ)
}

fn tol<T: Scalar>() -> f64 {
    if single::<T>() {
        2e-5
    } else {
        1e-12
    }
}

fn balance_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    for (case, key) in [("bal", "BAL"), ("red", "BRED"), ("st", "BST")] {
        let key = format!("in_{key}_{t}");
        for (perm, scale, tag) in [(true, true, "ps"), (true, false, "p"), (false, true, "s")] {
            let k = format!("mb_{case}_{tag}_{t}");
            // b is exact: scaling by powers of two
            for (part, idx) in [("b", 0), ("scale", 1), ("perm", 2)] {
                let (want, s) = get(&d, &format!("{k}_{part}"));
                check(&format!("{k} {part}"), &want, &s, 0.0, |dev| {
                    let (b, sc, p) =
                        matrix_balance_separate(&input::<T>(&d, &key, dev), perm, scale).unwrap();
                    match idx {
                        0 => out(b),
                        1 => out(sc),
                        _ => out(p),
                    }
                });
            }
        }
        let (want, s) = get(&d, &format!("mb_{case}_ps_{t}_t"));
        check(
            &format!("matrix_balance {case} {t} t"),
            &want,
            &s,
            0.0,
            |dev| {
                out(matrix_balance(&input::<T>(&d, &key, dev), true, true)
                    .unwrap()
                    .1)
            },
        );
        let (want, s) = get(&d, &format!("mb_{case}_ps_{t}_b"));
        check(
            &format!("matrix_balance {case} {t} b"),
            &want,
            &s,
            0.0,
            |dev| {
                out(matrix_balance(&input::<T>(&d, &key, dev), true, true)
                    .unwrap()
                    .0)
            },
        );
    }
    // the similarity: t b = a t
    for dev in devices() {
        let a = input::<T>(&d, &format!("in_BAL_{t}"), &dev);
        let (b, tt) = matrix_balance(&a, true, true).unwrap();
        let tt = tt.astype::<T>().unwrap();
        let l = vals(&matmul(&tt, &b).unwrap());
        let r = vals(&matmul(&a, &tt).unwrap());
        crate::common::npz::close(&l, &r, tol::<T>(), &format!("t b = a t on {dev}"));
    }
}
all_types!(scipy_matrix_balance, balance_body);

#[allow(clippy::too_many_arguments)]
/// `q` `(m, c)` orthonormal columns, `r` upper triangular, `q r ≈ a1`, `|r| ≈ absr`.
fn check_factors(
    what: &str,
    q: &[c64],
    r: &[c64],
    qs: &[usize],
    rs: &[usize],
    d: &Data,
    key: &str,
    tol: f64,
) {
    let (a1, a1s) = get(d, &format!("{key}_a1"));
    let (absr, absrs) = get(d, &format!("{key}_absr"));
    let (qshape, _) = get(d, &format!("{key}_qshape"));
    let want_q: Vec<usize> = qshape.iter().map(|x| x.re as usize).collect();
    assert_eq!(qs, &want_q[..], "{what}: q shape");
    assert_eq!(rs, &absrs[..], "{what}: r shape");
    let (m, c, n) = (qs[0], qs[1], rs[1]);
    // q r
    let mut qr = vec![c64::new(0.0, 0.0); m * n];
    for i in 0..m {
        for j in 0..n {
            qr[i * n + j] = (0..c).map(|p| q[i * c + p] * r[p * n + j]).sum();
        }
    }
    assert_eq!(a1s, [m, n], "{what}: a1 shape");
    crate::common::npz::close(&qr, &a1, tol, &format!("{what}: q r"));
    // qᴴ q = I
    let mut g = vec![c64::new(0.0, 0.0); c * c];
    for i in 0..c {
        for j in 0..c {
            g[i * c + j] = (0..m).map(|p| q[p * c + i].conj() * q[p * c + j]).sum();
        }
    }
    let eye: Vec<c64> = (0..c * c)
        .map(|i| c64::new(if i / c == i % c { 1.0 } else { 0.0 }, 0.0))
        .collect();
    crate::common::npz::close(&g, &eye, tol, &format!("{what}: qᴴ q"));
    // triangular, and |r| as SciPy's
    for i in 0..rs[0] {
        for j in 0..i.min(n) {
            assert_eq!(r[i * n + j], c64::new(0.0, 0.0), "{what}: r[{i}, {j}]");
        }
    }
    let ar: Vec<c64> = r.iter().map(|x| c64::new(x.norm(), 0.0)).collect();
    crate::common::npz::close(&ar, &absr, tol, &format!("{what}: |r|"));
}

enum Op {
    Upd(&'static str, &'static str),
    Ins(&'static str, isize, QrWhich),
    Del(isize, usize, QrWhich),
}

fn qr_update_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    let i = |k: &str, dev: &Device| input::<T>(&d, &format!("in_{k}_{t}"), dev);
    use Op::{Del, Ins, Upd};
    use QrWhich::{Col, Row};
    let cases: Vec<(&str, &str, Op)> = vec![
        ("upd_f", "F", Upd("U5", "V3")),
        ("upd_e", "E", Upd("U5", "V3")),
        ("updk_f", "F", Upd("U52", "V32")),
        ("updk_e", "E", Upd("U52", "V32")),
        ("upd_w", "WF", Upd("U3", "V5")),
        ("insr_f", "F", Ins("ROW1", 2, Row)),
        ("insr_e", "E", Ins("ROW1", 0, Row)),
        ("insr2_f", "F", Ins("ROW2", 5, Row)),
        ("insr2_e", "E", Ins("ROW2", -2, Row)),
        ("insr_w", "WF", Ins("ROWW", 1, Row)),
        ("insc_f", "F", Ins("COL1", 1, Col)),
        ("insc_e", "E", Ins("COL1", 3, Col)),
        ("insc3_f", "F", Ins("COL3", 0, Col)),
        ("insc3_e", "E", Ins("COL3", 1, Col)),
        ("insc_w", "WF", Ins("COLW", 4, Col)),
        ("delr_f", "F", Del(2, 1, Row)),
        ("delr3_f", "F", Del(-3, 3, Row)),
        ("delr_e", "E", Del(4, 1, Row)),
        ("delr3_e", "E", Del(1, 3, Row)),
        ("delr_w", "WF", Del(0, 2, Row)),
        ("delc_f", "F", Del(0, 2, Col)),
        ("delc_e", "E", Del(1, 1, Col)),
        ("delc_w", "WF", Del(1, 3, Col)),
    ];
    for (name, pair, op) in &cases {
        let key = format!("{name}_{t}");
        let mut cpu: Option<(Vec<c64>, Vec<c64>)> = None;
        for dev in devices() {
            let q = i(&format!("Q{pair}"), &dev);
            let r = i(&format!("R{pair}"), &dev);
            let (q1, r1) = match *op {
                Upd(uk, vk) => qr_update(&q, &r, &i(uk, &dev), &i(vk, &dev)),
                Ins(uk, k, w) => qr_insert(&q, &r, &i(uk, &dev), k, w, None),
                Del(k, p, w) => qr_delete(&q, &r, k, p, w),
            }
            .unwrap();
            let (qv, qs) = out(q1);
            let (rv, rs) = out(r1);
            let what = format!("{name} {t} on {dev}");
            check_factors(&what, &qv, &rv, &qs, &rs, &d, &key, tol::<T>() * 10.0);
            match &cpu {
                None => cpu = Some((qv, rv)),
                Some((cq, cr)) => {
                    crate::common::npz::close(&qv, cq, tol::<T>(), &format!("{what} q vs cpu"));
                    crate::common::npz::close(&rv, cr, tol::<T>(), &format!("{what} r vs cpu"));
                }
            }
        }
    }
}
all_types!(scipy_qr_update, qr_update_body);

#[test]
fn qr_update_errors() {
    let d = data();
    for dev in devices() {
        let q = input::<f64>(&d, "in_QF_d", &dev);
        let r = input::<f64>(&d, "in_RF_d", &dev);
        let qe = input::<f64>(&d, "in_QE_d", &dev);
        let re = input::<f64>(&d, "in_RE_d", &dev);
        let u5 = input::<f64>(&d, "in_U5_d", &dev);
        let v3 = input::<f64>(&d, "in_V3_d", &dev);
        let arg = |e: Error| assert!(matches!(e, Error::InvalidArgument { .. }), "{e:?}");
        let shape = |e: Error| assert!(matches!(e, Error::ShapeMismatch { .. }), "{e:?}");
        shape(qr_update(&q, &r, &v3, &v3).unwrap_err());
        shape(qr_update(&q, &r, &u5, &u5).unwrap_err());
        shape(qr_update(&qe, &r, &u5, &v3).unwrap_err());
        arg(qr_update(&u5, &r, &u5, &v3).unwrap_err());
        // an "economic" q with fewer rows than columns: an error, not a panic
        let wide_q = Array::<f64>::zeros(&[2, 3], &dev).unwrap();
        let r3 = Array::<f64>::eye(3, None, 0, &dev).unwrap();
        let u2 = Array::<f64>::zeros(&[2], &dev).unwrap();
        arg(qr_update(&wide_q, &r3, &u2, &v3).unwrap_err());
        arg(qr_insert(&wide_q, &r3, &u2, 0, QrWhich::Col, None).unwrap_err());
        arg(qr_delete(&wide_q, &r3, 0, 1, QrWhich::Row).unwrap_err());
        let nan = Array::from_vec(vec![f64::NAN; 5], &[5], &dev).unwrap();
        arg(qr_update(&q, &r, &nan, &v3).unwrap_err());
        arg(qr_insert(&q, &r, &v3, 6, QrWhich::Row, None).unwrap_err());
        arg(qr_insert(&q, &r, &v3, -6, QrWhich::Row, None).unwrap_err());
        arg(qr_insert(&q, &r, &u5, 4, QrWhich::Col, None).unwrap_err());
        arg(qr_insert(&q, &r, &u5, 1, QrWhich::Col, Some(1e-3)).unwrap_err());
        arg(qr_insert(&qe, &re, &v3, 1, QrWhich::Row, Some(1e-3)).unwrap_err());
        shape(qr_insert(&q, &r, &u5, 1, QrWhich::Row, None).unwrap_err());
        arg(qr_delete(&q, &r, 5, 1, QrWhich::Row).unwrap_err());
        arg(qr_delete(&q, &r, 4, 2, QrWhich::Row).unwrap_err());
        arg(qr_delete(&q, &r, 0, 0, QrWhich::Row).unwrap_err());
        arg(qr_delete(&q, &r, -4, 1, QrWhich::Col).unwrap_err());
        // a column in the span of an economic q: SciPy's LinAlgError
        let a = input::<f64>(&d, "in_QA_d", &dev);
        let col0 = Array::from_vec(
            a.to_vec().unwrap().iter().step_by(3).copied().collect(),
            &[5],
            &dev,
        )
        .unwrap();
        let e = qr_insert(&qe, &re, &col0, 1, QrWhich::Col, None).unwrap_err();
        assert!(matches!(e, Error::Singular { index: 0, .. }), "{e:?}");
        // ... which a full pair takes
        let (q1, r1) = qr_insert(&q, &r, &col0, 1, QrWhich::Col, None).unwrap();
        assert_eq!(
            (q1.shape(), r1.shape()),
            (&[5usize, 5][..], &[5usize, 4][..])
        );
        // deleting every row / column
        let (q1, r1) = qr_delete(&q, &r, 0, 5, QrWhich::Row).unwrap();
        assert_eq!(
            (q1.shape(), r1.shape()),
            (&[0usize, 0][..], &[0usize, 3][..])
        );
        let (q1, r1) = qr_delete(&qe, &re, 0, 3, QrWhich::Col).unwrap();
        assert_eq!(
            (q1.shape(), r1.shape()),
            (&[5usize, 0][..], &[0usize, 0][..])
        );
        // an empty insertion changes nothing
        let none = Array::<f64>::zeros(&[5, 0], &dev).unwrap();
        let (q1, _) = qr_insert(&q, &r, &none, 1, QrWhich::Col, None).unwrap();
        assert_eq!(vals(&q1), vals(&q));
    }
}

#[test]
fn matrix_balance_edges() {
    for dev in devices() {
        // empty
        let e = Array::<f64>::zeros(&[0, 0], &dev).unwrap();
        let (b, t) = matrix_balance(&e, true, true).unwrap();
        assert_eq!((b.shape(), t.shape()), (&[0usize, 0][..], &[0usize, 0][..]));
        // 1 x 1
        let one = Array::from_vec(vec![c32::new(5.0, 1.0)], &[1, 1], &dev).unwrap();
        let (b, t, p) = matrix_balance_separate(&one, true, true).unwrap();
        assert_eq!(vals(&b), vec![c64::new(5.0, 1.0)]);
        assert_eq!(
            (t.to_vec().unwrap(), p.to_vec().unwrap()),
            (vec![1.0], vec![0])
        );
        // neither permutation nor scaling: b = a, t = I
        let a = Array::from_vec(vec![1.0f64, 1e6, 1e-6, 1.0], &[2, 2], &dev).unwrap();
        let (b, t) = matrix_balance(&a, false, false).unwrap();
        assert_eq!(b.to_vec().unwrap(), a.to_vec().unwrap());
        assert_eq!(t.to_vec().unwrap(), vec![1.0, 0.0, 0.0, 1.0]);
        // errors
        let rect = Array::<f64>::zeros(&[2, 3], &dev).unwrap();
        assert!(matches!(
            matrix_balance(&rect, true, true),
            Err(Error::InvalidArgument { .. })
        ));
        let nan = Array::from_vec(vec![f64::NAN, 0.0, 0.0, 1.0], &[2, 2], &dev).unwrap();
        assert!(matches!(
            matrix_balance(&nan, true, true),
            Err(Error::InvalidArgument { .. })
        ));
        let v = Array::<f64>::zeros(&[3], &dev).unwrap();
        assert!(matches!(
            matrix_balance(&v, true, true),
            Err(Error::InvalidArgument { .. })
        ));
    }
}

fn cwt_body<T: Scalar>() {
    let (n, dd, k, seed) = (37usize, 5usize, 7usize, 1234u64);
    let mut cpu: Option<Vec<c64>> = None;
    for dev in devices() {
        // the sketch matrix itself: clarkson_woodruff_transform(I)
        let s = clarkson_woodruff_transform(&Array::<T>::eye(n, None, 0, &dev).unwrap(), k, seed)
            .unwrap();
        assert_eq!(s.shape(), &[k, n]);
        let sv = vals(&s);
        for j in 0..n {
            let nz: Vec<c64> = (0..k)
                .map(|i| sv[i * n + j])
                .filter(|x| x.norm() != 0.0)
                .collect();
            assert_eq!(nz.len(), 1, "column {j} of s on {dev}");
            assert!(nz[0] == c64::new(1.0, 0.0) || nz[0] == c64::new(-1.0, 0.0));
        }
        // a stack (2, n, dd): s @ a with the same s for both
        let a = cusci_core::testing::randn::<T>(&[2, n, dd], 7, &dev).unwrap();
        let got = clarkson_woodruff_transform(&a, k, seed).unwrap();
        assert_eq!(got.shape(), &[2, k, dd]);
        let av = vals(&a);
        let mut want = vec![c64::new(0.0, 0.0); 2 * k * dd];
        for b in 0..2 {
            for i in 0..k {
                for j in 0..dd {
                    want[(b * k + i) * dd + j] = (0..n)
                        .map(|p| sv[i * n + p] * av[(b * n + p) * dd + j])
                        .sum();
                }
            }
        }
        let gv = vals(&got);
        crate::common::npz::close(&gv, &want, tol::<T>() * 10.0, &format!("cwt on {dev}"));
        match &cpu {
            None => cpu = Some(gv),
            Some(c) => {
                crate::common::npz::close(&gv, c, tol::<T>() * 10.0, &format!("cwt {dev} vs cpu"))
            }
        }
        // another seed, another sketch; no rows gives zeros; sketch_size 0 is an error
        let s2 =
            clarkson_woodruff_transform(&Array::<T>::eye(n, None, 0, &dev).unwrap(), k, seed + 1)
                .unwrap();
        assert_ne!(vals(&s2), sv);
        let z = clarkson_woodruff_transform(&Array::<T>::zeros(&[0, 3], &dev).unwrap(), k, seed)
            .unwrap();
        assert_eq!(
            (z.shape(), vals(&z)),
            (&[k, 3][..], vec![c64::new(0.0, 0.0); 3 * k])
        );
        assert!(matches!(
            clarkson_woodruff_transform(&a, 0, seed),
            Err(Error::InvalidArgument { .. })
        ));
        let v = Array::<T>::zeros(&[4], &dev).unwrap();
        assert!(matches!(
            clarkson_woodruff_transform(&v, 2, seed),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
all_types!(clarkson_woodruff, cwt_body);

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

/// `q x zᴴ` of `n x n` matrices.
fn qxz(q: &[c64], x: &[c64], z: &[c64], n: usize) -> Vec<c64> {
    let mut t = vec![c64::new(0.0, 0.0); n * n];
    for i in 0..n {
        for j in 0..n {
            t[i * n + j] = (0..n).map(|p| q[i * n + p] * x[p * n + j]).sum();
        }
    }
    let mut o = vec![c64::new(0.0, 0.0); n * n];
    for i in 0..n {
        for j in 0..n {
            o[i * n + j] = (0..n).map(|p| t[i * n + p] * z[j * n + p].conj()).sum();
        }
    }
    o
}

/// The pair's invariants: `a = q aa zᴴ`, `b = q bb zᴴ`, `q`, `z` unitary, `aa`, `bb` upper
/// triangular, `bb`'s diagonal real and non-negative; returns the finite eigenvalues in
/// diagonal order and the number of infinite ones.
#[allow(clippy::too_many_arguments)]
fn check_pair(
    what: &str,
    a: &[c64],
    b: &[c64],
    aa: &[c64],
    bb: &[c64],
    q: &[c64],
    z: &[c64],
    n: usize,
    tol: f64,
) -> (Vec<c64>, usize) {
    crate::common::npz::close(&qxz(q, aa, z, n), a, tol, &format!("{what}: q aa zᴴ"));
    crate::common::npz::close(&qxz(q, bb, z, n), b, tol, &format!("{what}: q bb zᴴ"));
    let eye: Vec<c64> = (0..n * n)
        .map(|i| c64::new(if i / n == i % n { 1.0 } else { 0.0 }, 0.0))
        .collect();
    crate::common::npz::close(&qxz(q, &eye, q, n), &eye, tol, &format!("{what}: q qᴴ"));
    crate::common::npz::close(&qxz(z, &eye, z, n), &eye, tol, &format!("{what}: z zᴴ"));
    let bmax = bb.iter().map(|x| x.norm()).fold(0.0, f64::max);
    let (mut w, mut ninf) = (Vec::new(), 0);
    for i in 0..n {
        for j in 0..i {
            assert_eq!(aa[i * n + j], c64::new(0.0, 0.0), "{what}: aa[{i}, {j}]");
            assert_eq!(bb[i * n + j], c64::new(0.0, 0.0), "{what}: bb[{i}, {j}]");
        }
        let d = bb[i * n + i];
        assert!(d.im == 0.0 && d.re >= 0.0, "{what}: bb[{i}, {i}] = {d}");
        if d.norm() > 1e-10 * bmax {
            w.push(aa[i * n + i] / d);
        } else {
            ninf += 1;
        }
    }
    (w, ninf)
}

fn qz_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    let n = 5;
    let tl = tol::<T>() * 10.0;
    for (case, bk) in [("g", "QZB"), ("s", "QZS")] {
        let mut cpu: Option<Vec<c64>> = None;
        for dev in devices() {
            let a = input::<T>(&d, &format!("in_QZA_{t}"), &dev);
            let b = input::<T>(&d, &format!("in_{bk}_{t}"), &dev);
            let (av, bv) = (vals(&a), vals(&b));
            let s = qz_complex(&a, &b).unwrap();
            let what = format!("qz {case} {t} on {dev}");
            let (w, ninf) = check_pair(
                &what,
                &av,
                &bv,
                &vals(&s.aa),
                &vals(&s.bb),
                &vals(&s.q),
                &vals(&s.z),
                n,
                tl,
            );
            let (want, _) = get(&d, &format!("qz_{case}_{t}_eigs"));
            let (wi, _) = get(&d, &format!("qz_{case}_{t}_ninf"));
            assert_eq!(ninf, wi[0].re as usize, "{what}: infinite eigenvalues");
            same_set(&w, &want, tl * 10.0, &what);
            let all = vals(&s.aa);
            match &cpu {
                None => cpu = Some(all),
                Some(c) => {
                    crate::common::npz::close(&all, c, tol::<T>(), &format!("{what} vs cpu"))
                }
            }
            for (sort, sname) in [
                (QzSort::Lhp, "lhp"),
                (QzSort::Rhp, "rhp"),
                (QzSort::Iuc, "iuc"),
                (QzSort::Ouc, "ouc"),
            ] {
                let o = ordqz_complex(&a, &b, sort).unwrap();
                let what = format!("ordqz {case} {sname} {t} on {dev}");
                let (aa, bb) = (vals(&o.aa), vals(&o.bb));
                check_pair(&what, &av, &bv, &aa, &bb, &vals(&o.q), &vals(&o.z), n, tl);
                let (al, be) = (vals(&o.alpha), vals(&o.beta));
                for j in 0..n {
                    assert_eq!(
                        (al[j], be[j]),
                        (aa[j * n + j], bb[j * n + j]),
                        "{what}: alpha, beta"
                    );
                }
                let (k, _) = get(&d, &format!("ordqz_{case}_{sname}_{t}_k"));
                let k = k[0].re as usize;
                let (sel, _) = get(&d, &format!("ordqz_{case}_{sname}_{t}_sel"));
                let bmax = be.iter().map(|x| x.norm()).fold(0.0, f64::max);
                let lead: Vec<c64> = (0..k)
                    .filter(|&j| be[j].norm() > 1e-10 * bmax)
                    .map(|j| al[j] / be[j])
                    .collect();
                same_set(&lead, &sel, tl * 10.0, &what);
            }
        }
    }
    // a custom sort on (alpha, beta), and the errors
    let dev = cusci_core::Device::Cpu;
    let a = input::<T>(&d, &format!("in_QZA_{t}"), &dev);
    let b = input::<T>(&d, &format!("in_QZB_{t}"), &dev);
    let o = ordqz_complex(
        &a,
        &b,
        QzSort::Custom(std::sync::Arc::new(|al: c64, be: c64| (al / be).re > 1.0)),
    )
    .unwrap();
    let w: Vec<c64> = vals(&o.alpha)
        .iter()
        .zip(vals(&o.beta))
        .map(|(a, b)| a / b)
        .collect();
    let k = w.iter().filter(|x| x.re > 1.0).count();
    assert!(
        k > 0 && w[..k].iter().all(|x| x.re > 1.0),
        "custom sort: {w:?}"
    );
    let rect = Array::<T>::zeros(&[2, 3], &dev).unwrap();
    assert!(matches!(
        qz_complex(&rect, &rect),
        Err(Error::InvalidArgument { .. })
    ));
    let small = Array::<T>::zeros(&[2, 2], &dev).unwrap();
    assert!(matches!(
        qz_complex(&a, &small),
        Err(Error::ShapeMismatch { .. })
    ));
    let mut v = vals(&a);
    v[3] = c64::new(f64::NAN, 0.0);
    let nan = Array::from_vec(v.into_iter().map(T::from_c64).collect(), &[n, n], &dev).unwrap();
    assert!(matches!(
        qz_complex(&nan, &b),
        Err(Error::InvalidArgument { .. })
    ));
    let e = Array::<T>::zeros(&[0, 0], &dev).unwrap();
    assert_eq!(qz_complex(&e, &e).unwrap().aa.shape(), &[0, 0]);
    // degenerate pencils: b = 0 (every eigenvalue infinite), a = 0, a = b = I, a = b = 0, 1 x 1
    let r = vals(&a);
    let zero = vec![c64::new(0.0, 0.0); n * n];
    let eye: Vec<c64> = (0..n * n)
        .map(|i| c64::new(if i / n == i % n { 1.0 } else { 0.0 }, 0.0))
        .collect();
    let arr = |v: &[c64], m: usize| {
        Array::from_vec(v.iter().map(|&x| T::from_c64(x)).collect(), &[m, m], &dev).unwrap()
    };
    for (name, x, y, ninf) in [
        ("b = 0", &r, &zero, n),
        ("a = 0", &zero, &eye, 0),
        ("a = b = I", &eye, &eye, 0),
        ("a = b = 0", &zero, &zero, n),
    ] {
        let s = qz_complex(&arr(x, n), &arr(y, n)).unwrap();
        let what = format!("qz {name} {t}");
        let (w, ni) = check_pair(
            &what,
            x,
            y,
            &vals(&s.aa),
            &vals(&s.bb),
            &vals(&s.q),
            &vals(&s.z),
            n,
            tl,
        );
        assert_eq!(ni, ninf, "{what}: infinite eigenvalues");
        assert_eq!(w.len(), n - ninf, "{what}");
        let o = ordqz_complex(&arr(x, n), &arr(y, n), QzSort::Ouc).unwrap();
        assert_eq!(o.aa.shape(), &[n, n]);
    }
    let s = qz_complex(
        &arr(&[c64::new(3.0, 0.0)], 1),
        &arr(&[c64::new(-2.0, 0.0)], 1),
    )
    .unwrap();
    assert_eq!(vals(&s.bb), vec![c64::new(2.0, 0.0)]); // made non-negative
    assert_eq!(vals(&s.aa), vec![c64::new(-3.0, 0.0)]);
    // a stack of two pairs is decomposed pair by pair
    let st = Array::from_vec(
        [vals(&a), vals(&b)]
            .concat()
            .into_iter()
            .map(T::from_c64)
            .collect(),
        &[2, n, n],
        &dev,
    )
    .unwrap();
    let sb = Array::from_vec(
        [vals(&b), vals(&a)]
            .concat()
            .into_iter()
            .map(T::from_c64)
            .collect(),
        &[2, n, n],
        &dev,
    )
    .unwrap();
    let s = qz_complex(&st, &sb).unwrap();
    assert_eq!(s.aa.shape(), &[2, n, n]);
    let one = qz_complex(&a, &b).unwrap();
    assert_eq!(vals(&s.aa)[..n * n], vals(&one.aa)[..]);
}
all_types!(scipy_qz, qz_body);
