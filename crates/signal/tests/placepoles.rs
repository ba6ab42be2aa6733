//! `place_poles` against SciPy's results (`tests/data/lti2.npz`, the `signal_lti2` section of
//! `tests/golden/gen.py`): the SciPy documentation's system and random controllable systems, real
//! and complex poles, one and several inputs, both methods.
//!
//! Tolerances: the placed poles agree with the requested ones (and SciPy's computed ones) to
//! 1e-8 relative to the largest pole. Where the gain is unique (one input, or `rank(B) = n`) it
//! agrees with SciPy's to 1e-8 relative to its largest entry. A multi-input placement has many
//! solutions and the iterations are not SciPy's step for step, so there the robustness measure
//! `|det X|` (unit columns) must reach at least half of SciPy's, and `X` must be the closed-loop
//! eigenvector matrix: `(A - BK) X = X Λ`. Host data: there is no device half.

use crate::common::{closec, Golden};
use cusci_core::{c64, Error};
use cusci_signal::ltisys::Mat;
use cusci_signal::{place_poles, PlacePolesMethod, PlacePolesOptions};

fn sorted(p: &[c64]) -> Vec<c64> {
    let mut v = p.to_vec();
    v.sort_by(|a, b| a.re.total_cmp(&b.re).then(a.im.total_cmp(&b.im)));
    v
}

/// |det| of `x` with its columns scaled to unit norm (Gaussian elimination, partial pivoting).
fn abs_det_unit(x: &[c64], n: usize) -> f64 {
    let mut m = x.to_vec();
    for j in 0..n {
        let nrm = (0..n).map(|i| m[i * n + j].norm_sqr()).sum::<f64>().sqrt();
        for i in 0..n {
            m[i * n + j] /= nrm;
        }
    }
    let mut det = 1.0;
    for k in 0..n {
        let p = (k..n)
            .max_by(|&a, &b| m[a * n + k].norm().total_cmp(&m[b * n + k].norm()))
            .unwrap();
        if m[p * n + k].norm() == 0.0 {
            return 0.0;
        }
        if p != k {
            for j in 0..n {
                m.swap(k * n + j, p * n + j);
            }
        }
        det *= m[k * n + k].norm();
        for i in k + 1..n {
            let f = m[i * n + k] / m[k * n + k];
            for j in k..n {
                let v = m[k * n + j];
                m[i * n + j] -= f * v;
            }
        }
    }
    det
}

#[test]
fn place_poles_matches_scipy() {
    let g = Golden::load("lti2.npz");
    let dims = g.i("pp_dims");
    let ncases = dims.len() / 4;
    assert!(ncases >= 15);
    for k in 0..ncases {
        let (n, m) = (dims[4 * k] as usize, dims[4 * k + 1] as usize);
        let method = if dims[4 * k + 2] == 1 {
            PlacePolesMethod::Knv0
        } else {
            PlacePolesMethod::Yt
        };
        let unique = dims[4 * k + 3] == 1;
        let a = Mat::new(n, n, g.rag("pp_a", k)).unwrap();
        let b = Mat::new(n, m, g.rag("pp_b", k)).unwrap();
        let poles = g.ragc("pp_poles", k);
        let opts = PlacePolesOptions {
            method,
            ..Default::default()
        };
        let r = place_poles(&a, &b, &poles, &opts).unwrap();
        let what = format!("case {k} ({n} states, {m} inputs, {method:?})");
        closec(
            &r.requested_poles,
            &g.ragc("pp_requested", k),
            0.0,
            &format!("{what} requested order"),
        );
        closec(
            &sorted(&r.computed_poles),
            &sorted(&r.requested_poles),
            1e-8,
            &format!("{what} placed poles"),
        );
        closec(
            &sorted(&r.computed_poles),
            &sorted(&g.ragc("pp_computed", k)),
            1e-8,
            &format!("{what} vs SciPy's computed poles"),
        );
        assert_eq!((r.gain_matrix.rows, r.gain_matrix.cols), (m, n), "{what}");
        let want_det = g.f("pp_absdet")[k];
        let got_det = abs_det_unit(&r.x, n);
        let want_iter = g.i("pp_nb_iter")[k];
        if unique {
            let want = g.rag("pp_gain", k);
            let scale = want.iter().fold(0.0f64, |s, v| s.max(v.abs()));
            for (i, (x, w)) in r.gain_matrix.data.iter().zip(&want).enumerate() {
                assert!(
                    (x - w).abs() <= 1e-8 * scale,
                    "{what} gain[{i}]: {x} vs {w}"
                );
            }
            assert!(
                (got_det - want_det).abs() <= 1e-6 * want_det.max(1e-3),
                "{what}: det X {got_det} vs {want_det}"
            );
            match want_iter {
                -1 => assert!(r.nb_iter.is_none() && r.rtol.is_nan(), "{what}"),
                w => assert_eq!(r.nb_iter, Some(w as usize), "{what}"),
            }
        } else {
            assert!(
                got_det >= 0.5 * want_det,
                "{what}: |det X| {got_det} below half of SciPy's {want_det}"
            );
            let it = r.nb_iter.expect("iterated");
            assert!((1..=30).contains(&it), "{what}: {it} sweeps");
            assert!(r.converged && r.rtol < 1e-3, "{what}: rtol {}", r.rtol);
        }
        // X holds the closed-loop eigenvectors: (A - BK) X = X Λ (with rank(B) = n, X = I and
        // A - BK is the real block-diagonal form of the poles instead)
        if r.nb_iter.is_none() {
            continue;
        }
        for j in 0..n {
            let lam = r.requested_poles[j];
            for i in 0..n {
                let mut s = c64::new(0.0, 0.0);
                for t in 0..n {
                    let bk: f64 = (0..m).map(|q| b.at(i, q) * r.gain_matrix.at(q, t)).sum();
                    s += (a.at(i, t) - bk) * r.x[t * n + j];
                }
                let want = r.x[i * n + j] * lam;
                assert!(
                    (s - want).norm() <= 1e-7 * (1.0 + lam.norm()),
                    "{what}: eigenvector column {j} row {i}: {s} vs {want}"
                );
            }
        }
    }
}

#[test]
fn place_poles_options_and_small_systems() {
    // a double integrator with one input: K from (s + 1)(s + 2) = s² + 3s + 2
    let a = Mat::from_rows(&[&[0.0, 1.0], &[0.0, 0.0]]).unwrap();
    let b = Mat::from_rows(&[&[0.0], &[1.0]]).unwrap();
    let p = [c64::new(-2.0, 0.0), c64::new(-1.0, 0.0)];
    let r = place_poles(&a, &b, &p, &Default::default()).unwrap();
    assert!((r.gain_matrix.data[0] - 2.0).abs() < 1e-12);
    assert!((r.gain_matrix.data[1] - 3.0).abs() < 1e-12);
    assert_eq!(r.nb_iter, Some(0));
    assert_eq!(r.rtol, 0.0);
    // complex pair: s² + 2s + 5
    let p = [c64::new(-1.0, 2.0), c64::new(-1.0, -2.0)];
    let r = place_poles(&a, &b, &p, &Default::default()).unwrap();
    assert!((r.gain_matrix.data[0] - 5.0).abs() < 1e-12);
    assert!((r.gain_matrix.data[1] - 2.0).abs() < 1e-12);
    assert_eq!(r.requested_poles[0], c64::new(-1.0, -2.0));
    // rtol <= 0 runs maxiter sweeps
    let g = Golden::load("lti2.npz");
    let a4 = Mat::new(4, 4, g.rag("pp_a", 0)).unwrap();
    let b4 = Mat::new(4, 2, g.rag("pp_b", 0)).unwrap();
    let p4: Vec<c64> = [-0.2, -0.5, -5.0566, -8.6659]
        .iter()
        .map(|&v| c64::new(v, 0.0))
        .collect();
    for method in [PlacePolesMethod::Yt, PlacePolesMethod::Knv0] {
        let opts = PlacePolesOptions {
            method,
            rtol: -1.0,
            maxiter: 4,
        };
        let r = place_poles(&a4, &b4, &p4, &opts).unwrap();
        assert_eq!(r.nb_iter, Some(4));
        assert!(!r.converged);
        closec(&sorted(&r.computed_poles), &sorted(&p4), 1e-8, "rtol -1");
    }
}

#[test]
fn place_poles_errors_as_scipy() {
    let g = Golden::load("lti2.npz");
    let a = Mat::new(4, 4, g.rag("pp_a", 0)).unwrap();
    let b = Mat::new(4, 2, g.rag("pp_b", 0)).unwrap();
    let re = |v: &[f64]| v.iter().map(|&x| c64::new(x, 0.0)).collect::<Vec<_>>();
    let p = re(&[-0.2, -0.5, -5.0566, -8.6659]);
    let d = PlacePolesOptions::default();
    let arg = |r: cusci_core::Result<_>, what: &str| match r {
        Err(Error::InvalidArgument { .. }) => {}
        other => panic!("{what}: {other:?}"),
    };
    let shape = |r: cusci_core::Result<_>, what: &str| match r {
        Err(Error::ShapeMismatch { .. }) => {}
        other => panic!("{what}: {other:?}"),
    };
    arg(place_poles(&a, &b, &p[..3], &d), "too few poles");
    arg(
        place_poles(&a, &b, &re(&[-1.0, -2.0, -3.0, -4.0, -5.0]), &d),
        "too many",
    );
    arg(
        place_poles(&a, &b, &re(&[-1.0, -1.0, -1.0, -2.0]), &d),
        "repeated > rank",
    );
    let mut cp = re(&[-1.0, -2.0, -3.0, 0.0]);
    cp[3] = c64::new(-1.0, 1.0);
    arg(place_poles(&a, &b, &cp, &d), "lonely complex pole");
    cp[2] = c64::new(-1.0, 1.0);
    arg(
        place_poles(&a, &b, &cp, &d),
        "complex pole twice, no conjugate",
    );
    cp[2] = c64::new(-1.0, -1.0);
    assert!(place_poles(&a, &b, &cp, &d).is_ok());
    let knv0 = PlacePolesOptions {
        method: PlacePolesMethod::Knv0,
        ..d
    };
    arg(place_poles(&a, &b, &cp, &knv0), "KNV0 with complex poles");
    arg(
        place_poles(&a, &b, &p, &PlacePolesOptions { maxiter: 0, ..d }),
        "maxiter 0",
    );
    arg(
        place_poles(&a, &b, &p, &PlacePolesOptions { rtol: 2.0, ..d }),
        "rtol > 1",
    );
    let zero = Mat::zeros(4, 2);
    arg(
        place_poles(&a, &zero, &p, &d),
        "B = 0: every pole repeated > rank",
    );
    // rank(B) = 2 < 3 columns: Z is not invertible
    let mut b3 = Mat::zeros(4, 3);
    for i in 0..4 {
        for j in 0..2 {
            b3.data[i * 3 + j] = b.at(i, j);
        }
        b3.data[i * 3 + 2] = b.at(i, 0);
    }
    arg(place_poles(&a, &b3, &p, &d), "rank-deficient B");
    let a3 = Mat::zeros(3, 4);
    shape(place_poles(&a3, &b, &p, &d), "A not square");
    let b3r = Mat::zeros(3, 2);
    shape(place_poles(&a, &b3r, &p, &d), "B rows");
    let mut nan = p.clone();
    nan[0] = c64::new(f64::NAN, 0.0);
    arg(place_poles(&a, &b, &nan, &d), "NaN pole");
}
