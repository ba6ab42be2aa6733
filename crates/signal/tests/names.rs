//! Issue 32's last names against SciPy's golden values (`names.npz`, `tests/golden/gen.py
//! signal_names`): remez, firwin_2d, whittaker_henderson, find_peaks_cwt; their bad inputs.

use crate::common::Golden;
use cusci_core::Error;
use cusci_signal::{remez, RemezOptions, RemezType};

fn names() -> Golden {
    Golden::load("names.npz")
}

#[test]
fn remez_golden_scipy() {
    let g = names();
    let cases: Vec<String> = g
        .0
        .keys()
        .filter(|k| k.starts_with("remez_"))
        .cloned()
        .collect();
    assert_eq!(cases.len(), 18, "{cases:?}");
    for c in &cases {
        let v = g.f(c);
        let n = v[0] as usize;
        let kind = [
            RemezType::Bandpass,
            RemezType::Differentiator,
            RemezType::Hilbert,
        ][v[1] as usize];
        let nb = v[5] as usize;
        let bands = &v[6..6 + 2 * nb];
        let desired = &v[6 + 2 * nb..6 + 3 * nb];
        let weight = v[6 + 3 * nb..6 + 4 * nb].to_vec();
        let want = &v[6 + 4 * nb..];
        let opts = RemezOptions {
            weight: Some(weight),
            kind,
            grid_density: v[2] as usize,
            maxiter: v[3] as usize,
            fs: Some(v[4]),
        };
        let h = remez(n, bands, desired, &opts).unwrap_or_else(|e| panic!("{c}: {e}"));
        assert_eq!(h.len(), want.len(), "{c}");
        let worst = h
            .iter()
            .zip(want)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(worst <= 1e-9, "{c}: max |h - scipy| = {worst:e}\n{h:?}\n{want:?}");
    }
}

#[test]
fn remez_bad_input() {
    let d = RemezOptions::default();
    let arg = |r: cusci_core::Result<Vec<f64>>, what: &str| match r {
        Err(Error::InvalidArgument { .. }) => {}
        other => panic!("{what}: {other:?}"),
    };
    let lp = [0.0, 0.1, 0.2, 0.5];
    arg(remez(11, &[0.0, 0.1, 0.2, 0.6], &[1.0, 0.0], &d), "edge above fs/2");
    arg(remez(11, &[0.0, 0.3, 0.2, 0.5], &[1.0, 0.0], &d), "not monotonic");
    arg(remez(11, &[-0.1, 0.1, 0.2, 0.5], &[1.0, 0.0], &d), "negative");
    arg(remez(11, &lp, &[1.0, 0.0, 1.0], &d), "desired length");
    arg(remez(11, &[0.0, 0.1, 0.2], &[1.0, 0.0], &d), "odd bands");
    arg(remez(1, &lp, &[1.0, 0.0], &d), "numtaps 1");
    arg(remez(0, &lp, &[1.0, 0.0], &d), "numtaps 0");
    arg(remez(11, &[], &[], &d), "no band");
    arg(remez(11, &[0.0, 0.1, 0.2, f64::NAN], &[1.0, 0.0], &d), "NaN band");
    let w = RemezOptions {
        weight: Some(vec![1.0]),
        ..d.clone()
    };
    arg(remez(11, &lp, &[1.0, 0.0], &w), "weight length");
    for fs in [0.0, -1.0, f64::INFINITY, f64::NAN] {
        let o = RemezOptions {
            fs: Some(fs),
            ..d.clone()
        };
        arg(remez(11, &lp, &[1.0, 0.0], &o), "fs");
    }
    let o = RemezOptions {
        grid_density: 0,
        ..d.clone()
    };
    arg(remez(11, &lp, &[1.0, 0.0], &o), "grid_density 0");
    let o = RemezOptions {
        maxiter: 0,
        ..d.clone()
    };
    arg(remez(11, &lp, &[1.0, 0.0], &o), "maxiter 0");
    // SciPy: "Failure to converge at iteration 2" (a zero weight) and 8 (a NaN edge: refused
    // here as InvalidArgument above); a transition too narrow for the grid
    let o = RemezOptions {
        weight: Some(vec![0.0, 1.0]),
        ..d.clone()
    };
    match remez(11, &lp, &[1.0, 0.0], &o) {
        Err(Error::NoConvergence { iterations, .. }) => assert_eq!(iterations, 2),
        other => panic!("zero weight: {other:?}"),
    }
}
