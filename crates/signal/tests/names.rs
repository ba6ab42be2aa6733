//! Issue 32's last names against SciPy's golden values (`names.npz`, `tests/golden/gen.py
//! signal_names`): remez, firwin_2d, whittaker_henderson, find_peaks_cwt; their bad inputs.

#![allow(clippy::type_complexity)]

use crate::common::Golden;
use cusci_core::Error;
use cusci_signal::{remez, RemezOptions, RemezType};

fn names() -> Golden {
    Golden::load("names.npz")
}

#[test]
fn remez_golden_scipy() {
    let g = names();
    let cases: Vec<String> =
        g.0.keys()
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
        assert!(
            worst <= 1e-9,
            "{c}: max |h - scipy| = {worst:e}\n{h:?}\n{want:?}"
        );
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
    arg(
        remez(11, &[0.0, 0.1, 0.2, 0.6], &[1.0, 0.0], &d),
        "edge above fs/2",
    );
    arg(
        remez(11, &[0.0, 0.3, 0.2, 0.5], &[1.0, 0.0], &d),
        "not monotonic",
    );
    arg(
        remez(11, &[-0.1, 0.1, 0.2, 0.5], &[1.0, 0.0], &d),
        "negative",
    );
    arg(remez(11, &lp, &[1.0, 0.0, 1.0], &d), "desired length");
    arg(remez(11, &[0.0, 0.1, 0.2], &[1.0, 0.0], &d), "odd bands");
    arg(remez(1, &lp, &[1.0, 0.0], &d), "numtaps 1");
    arg(remez(0, &lp, &[1.0, 0.0], &d), "numtaps 0");
    arg(remez(11, &[], &[], &d), "no band");
    arg(
        remez(11, &[0.0, 0.1, 0.2, f64::NAN], &[1.0, 0.0], &d),
        "NaN band",
    );
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

#[test]
fn firwin_2d_golden_scipy() {
    use cusci_signal::{firwin_2d, FirWindow as W, Firwin2dWindow as F};
    let g = names();
    let cases: [(&str, [usize; 2], F, &[f64], f64); 8] = [
        (
            "sep55",
            [5, 5],
            F::Separable(W::Hamming, W::Hamming),
            &[0.1],
            2.0,
        ),
        (
            "sep47",
            [4, 7],
            F::Separable(W::Hann, W::Blackman),
            &[0.3],
            2.0,
        ),
        (
            "sep75bs",
            [7, 5],
            F::Separable(W::Kaiser(5.0), W::Boxcar),
            &[0.2, 0.5],
            2.0,
        ),
        (
            "sepfs",
            [9, 3],
            F::Separable(W::Hamming, W::Hann),
            &[2.5],
            10.0,
        ),
        ("circ55", [5, 5], F::Circular(W::Hamming), &[0.1], 2.0),
        ("circ46", [4, 6], F::Circular(W::Hann), &[0.3], 2.0),
        ("circ99", [9, 9], F::Circular(W::Kaiser(8.6)), &[0.5], 2.0),
        ("circ1", [1, 3], F::Circular(W::Blackman), &[0.4], 2.0),
    ];
    for (name, hs, w, fc, fs) in cases {
        let key = format!("f2d_{name}");
        let want = g.f(&key);
        let shape = g.shape(&key);
        let h = firwin_2d(hs, w, fc, fs).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(vec![h.rows, h.cols], shape, "{name}");
        crate::common::close(&h.data, &want, 1e-13, name);
    }
    // errors: no cutoff, firwin's (even length with a pass band at Nyquist, cutoff >= fs/2)
    let arg = |r: cusci_core::Result<cusci_signal::Mat>, what: &str| match r {
        Err(Error::InvalidArgument { .. }) => {}
        other => panic!("{what}: {other:?}"),
    };
    arg(firwin_2d([5, 5], F::Circular(W::Hann), &[], 2.0), "no fc");
    arg(
        firwin_2d([5, 5], F::Separable(W::Hann, W::Hann), &[], 2.0),
        "no fc",
    );
    arg(
        firwin_2d([4, 5], F::Separable(W::Hann, W::Hann), &[0.2, 0.5], 2.0),
        "even bandstop",
    );
    arg(
        firwin_2d([5, 5], F::Separable(W::Hann, W::Hann), &[1.0], 2.0),
        "cutoff at Nyquist",
    );
    arg(
        firwin_2d([0, 5], F::Circular(W::Hann), &[0.2], 2.0),
        "zero size",
    );
    arg(
        firwin_2d([0, 5], F::Separable(W::Hann, W::Hann), &[0.2], 2.0),
        "zero size",
    );
    arg(firwin_2d([5, 5], F::Circular(W::Hann), &[0.2], -1.0), "fs");
}

fn wh_case(
    g: &Golden,
    name: &str,
) -> (Vec<f64>, Vec<f64>, Vec<f64>, usize, Option<f64>, bool, f64) {
    let v = g.f(&format!("wh_{name}"));
    let n = v[0] as usize;
    let order = v[1] as usize;
    let lamb = if v[2] < 0.0 { None } else { Some(v[2]) };
    let weighted = v[3] != 0.0;
    let y = v[5..5 + n].to_vec();
    let w = v[5 + n..5 + 2 * n].to_vec();
    let x = v[5 + 2 * n..5 + 3 * n].to_vec();
    (y, w, x, order, lamb, weighted, v[4])
}

/// SciPy 1.18's definition (dense solves, REML by minimize_scalar, the polynomial limit) on
/// every device; f32 within f32 rounding.
#[test]
fn whittaker_henderson_golden() {
    use cusci_core::testing::devices;
    use cusci_core::Array;
    use cusci_signal::{whittaker_henderson, WhLamb, WhittakerOptions};
    let g = names();
    for name in [
        "fix2", "fix1", "fix3w", "reml2", "reml2w", "reml3", "huge", "short",
    ] {
        let (y, w, want, order, lamb, weighted, lamb_used) = wh_case(&g, name);
        let opts = WhittakerOptions {
            lamb: lamb.map_or(WhLamb::Reml, WhLamb::Value),
            order,
            weights: weighted.then_some(&w[..]),
        };
        let tol = if lamb.is_none() { 1e-6 } else { 1e-9 };
        for dev in devices() {
            let ya = Array::from_vec(y.clone(), &[y.len()], &dev).unwrap();
            let r = whittaker_henderson(&ya, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
            crate::common::close(
                &r.x.to_vec().unwrap(),
                &want,
                tol,
                &format!("{name} on {dev}"),
            );
            assert_eq!(r.lamb.len(), 1);
            assert!(
                (r.lamb[0] - lamb_used).abs() <= 1e-5 * lamb_used,
                "{name}: lamb {} vs {lamb_used}",
                r.lamb[0]
            );
            let y32: Vec<f32> = y.iter().map(|&v| v as f32).collect();
            let ya = Array::from_vec(y32, &[y.len()], &dev).unwrap();
            let r = whittaker_henderson(&ya, &opts).unwrap();
            let got: Vec<f64> = r.x.to_vec().unwrap().iter().map(|&v| v as f64).collect();
            crate::common::close(&got, &want, 1e-4, &format!("{name} f32 on {dev}"));
        }
    }
}

/// A batch (leading axes) equals the signals one by one; the GPU equals the CPU (fixed λ and
/// REML, a non-contiguous view).
#[test]
fn whittaker_henderson_batch_and_devices() {
    use cusci_core::testing::{devices, randn};
    use cusci_core::Device;
    use cusci_signal::{whittaker_henderson, WhLamb, WhittakerOptions};
    let cpu = Device::cpu();
    let x = randn::<f64>(&[3, 2, 33], 7, &cpu).unwrap();
    for lamb in [WhLamb::Value(25.0), WhLamb::Reml] {
        let o = WhittakerOptions {
            lamb,
            ..Default::default()
        };
        let r = whittaker_henderson(&x, &o).unwrap();
        assert_eq!(r.lamb.len(), 6);
        let all = r.x.to_vec().unwrap();
        let xs = x.to_vec().unwrap();
        for b in 0..6 {
            let one = cusci_core::Array::from_vec(xs[b * 33..(b + 1) * 33].to_vec(), &[33], &cpu)
                .unwrap();
            let r1 = whittaker_henderson(&one, &o).unwrap();
            assert_eq!(r1.x.to_vec().unwrap(), all[b * 33..(b + 1) * 33].to_vec());
        }
        for dev in devices() {
            let xd = x.to_device(&dev).unwrap();
            let rd = whittaker_henderson(&xd, &o).unwrap();
            crate::common::close(&rd.x.to_vec().unwrap(), &all, 1e-10, &format!("{dev}"));
            for (a, b) in rd.lamb.iter().zip(&r.lamb) {
                assert!((a - b).abs() <= 1e-8 * b, "{dev}: lamb {a} vs {b}");
            }
        }
    }
}

#[test]
fn whittaker_henderson_bad_input() {
    use cusci_core::testing::devices;
    use cusci_core::Array;
    use cusci_signal::{whittaker_henderson, WhLamb, WhittakerOptions};
    for dev in devices() {
        let y = Array::from_vec(vec![1.0f64, 2.0, 4.0, 3.0, 5.0], &[5], &dev).unwrap();
        let arg = |o: &WhittakerOptions, y: &Array<f64>, what: &str| match whittaker_henderson(y, o)
        {
            Err(Error::InvalidArgument { .. }) => {}
            other => panic!("{what} on {dev}: {other:?}"),
        };
        let d = WhittakerOptions::default();
        arg(
            &WhittakerOptions {
                order: 0,
                ..d.clone()
            },
            &y,
            "order 0",
        );
        arg(
            &WhittakerOptions {
                order: 5,
                ..d.clone()
            },
            &y,
            "n < order + 1",
        );
        arg(
            &WhittakerOptions {
                lamb: WhLamb::Value(-1.0),
                ..d.clone()
            },
            &y,
            "negative lamb",
        );
        arg(
            &WhittakerOptions {
                lamb: WhLamb::Value(f64::NAN),
                ..d.clone()
            },
            &y,
            "NaN lamb",
        );
        let w3 = [1.0; 3];
        arg(
            &WhittakerOptions {
                weights: Some(&w3),
                ..d.clone()
            },
            &y,
            "weights length",
        );
        let wn = [1.0, f64::NAN, 1.0, 1.0, 1.0];
        arg(
            &WhittakerOptions {
                weights: Some(&wn),
                ..d.clone()
            },
            &y,
            "NaN weight",
        );
        let yn = Array::from_vec(vec![1.0f64, f64::NAN, 4.0, 3.0, 5.0], &[5], &dev).unwrap();
        arg(&d, &yn, "NaN sample without weights");
        let w1 = [1.0, 1.0, 0.0, 1.0, 1.0];
        arg(
            &WhittakerOptions {
                weights: Some(&w1),
                ..d.clone()
            },
            &yn,
            "NaN sample with a nonzero weight",
        );
        let y0 = Array::from_vec(vec![1.0f64], &[1], &dev)
            .unwrap()
            .reshape(&[])
            .unwrap();
        arg(&d, &y0, "0-d");
        // a zero weight at the NaN: interpolated, finite
        let w2 = [1.0, 0.0, 1.0, 1.0, 1.0];
        let r = whittaker_henderson(
            &yn,
            &WhittakerOptions {
                lamb: WhLamb::Value(1.0),
                weights: Some(&w2),
                ..d.clone()
            },
        )
        .unwrap();
        assert!(r.x.to_vec().unwrap().iter().all(|v| v.is_finite()));
        // lamb = 0 returns the signal
        let r = whittaker_henderson(
            &y,
            &WhittakerOptions {
                lamb: WhLamb::Value(0.0),
                ..d.clone()
            },
        )
        .unwrap();
        assert_eq!(r.x.to_vec().unwrap(), y.to_vec().unwrap());
    }
}

#[test]
fn find_peaks_cwt_golden_scipy() {
    use cusci_core::testing::devices;
    use cusci_core::Array;
    use cusci_signal::{find_peaks_cwt, FindPeaksCwtOptions};
    let g = names();
    let r = |a: usize, b: usize| (a..b).map(|w| w as f64).collect::<Vec<f64>>();
    let md: Vec<f64> = r(1, 20).iter().map(|w| w / 2.0).collect();
    let opts = FindPeaksCwtOptions {
        max_distances: Some(&md),
        gap_thresh: Some(2.0),
        min_length: Some(3.0),
        min_snr: 2.0,
        noise_perc: 20.0,
        window_size: Some(15),
        ..Default::default()
    };
    let d = FindPeaksCwtOptions::default();
    let cases: Vec<(&str, &str, Vec<f64>, &FindPeaksCwtOptions)> = vec![
        ("sin", "sin", r(1, 10), &d),
        ("gauss", "gauss", r(1, 20), &d),
        ("opts", "gauss", r(1, 20), &opts),
        ("short", "short", vec![1.0, 2.0, 3.0], &d),
        ("frac", "gauss", vec![0.25, 0.5, 1.5, 2.5], &d),
        ("mono", "mono", r(1, 5), &d),
    ];
    for dev in devices() {
        for (name, xname, widths, o) in &cases {
            let x = g.f(&format!("fpc_{xname}_x"));
            let want = g.i(&format!("fpc_{name}_peaks"));
            let xa = Array::from_vec(x.clone(), &[x.len()], &dev).unwrap();
            let p = find_peaks_cwt(&xa, widths, o).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(p.device(), &dev);
            assert_eq!(p.to_vec().unwrap(), want, "{name} on {dev}");
        }
    }
}

#[test]
fn find_peaks_cwt_bad_input() {
    use cusci_core::Array;
    use cusci_core::Device;
    use cusci_signal::{find_peaks_cwt, CwtWavelet, FindPeaksCwtOptions};
    let cpu = Device::cpu();
    let x = Array::from_vec(vec![0.0f64, 1.0, 0.0, 2.0, 0.0], &[5], &cpu).unwrap();
    let d = FindPeaksCwtOptions::default();
    let bad = |r: cusci_core::Result<Array<i64>>, what: &str| match r {
        Err(Error::InvalidArgument { .. }) | Err(Error::ShapeMismatch { .. }) => {}
        other => panic!("{what}: {other:?}"),
    };
    bad(find_peaks_cwt(&x, &[], &d), "no widths");
    bad(find_peaks_cwt(&x, &[0.0], &d), "zero width");
    bad(find_peaks_cwt(&x, &[-1.0], &d), "negative width");
    let e = Array::<f64>::zeros(&[0], &cpu).unwrap();
    bad(find_peaks_cwt(&e, &[1.0], &d), "empty");
    let x2 = Array::<f64>::zeros(&[2, 3], &cpu).unwrap();
    bad(find_peaks_cwt(&x2, &[1.0], &d), "2-D");
    let md = [1.0];
    bad(
        find_peaks_cwt(
            &x,
            &[1.0, 2.0],
            &FindPeaksCwtOptions {
                max_distances: Some(&md),
                ..d.clone()
            },
        ),
        "max_distances",
    );
    bad(
        find_peaks_cwt(
            &x,
            &[1.0],
            &FindPeaksCwtOptions {
                noise_perc: 101.0,
                ..d.clone()
            },
        ),
        "noise_perc",
    );
    bad(
        find_peaks_cwt(
            &x,
            &[1.0],
            &FindPeaksCwtOptions {
                window_size: Some(0),
                ..d.clone()
            },
        ),
        "window_size",
    );
    bad(
        find_peaks_cwt(
            &x,
            &[1.0],
            &FindPeaksCwtOptions {
                wavelet: CwtWavelet::Morlet2 { w: 5.0 },
                ..d.clone()
            },
        ),
        "complex wavelet",
    );
    // f32 input: widened as SciPy converts
    let x32 = Array::from_vec(vec![0.0f32, 1.0, 0.0, 2.0, 0.0], &[5], &cpu).unwrap();
    assert!(find_peaks_cwt(&x32, &[1.0], &d).is_ok());
}

/// welch and csd of complex data (two-sided) against SciPy, c64 and c32, on every device.
#[test]
fn welch_csd_complex_golden_scipy() {
    use cusci_core::testing::devices;
    use cusci_core::{c32, c64, Array};
    use cusci_signal::{
        csd_complex, welch_complex, Detrend, Scaling, WelchOptions, Window, WindowSpec,
    };
    let g = names();
    let x = g.c("cx_x");
    let y = g.c("cx_y");
    let o32 = WelchOptions {
        nperseg: Some(32),
        ..Default::default()
    };
    let olin = WelchOptions {
        nperseg: Some(20),
        noverlap: Some(5),
        nfft: Some(24),
        detrend: Detrend::Linear,
        scaling: Scaling::Spectrum,
        ..Default::default()
    };
    let onone = WelchOptions {
        nperseg: Some(25),
        detrend: Detrend::None,
        window: WindowSpec::Named(Window::Hamming),
        ..Default::default()
    };
    let flat = |v: Vec<c64>| -> Vec<f64> { v.iter().flat_map(|c| [c.re, c.im]).collect() };
    for dev in devices() {
        let xa = Array::from_vec(x.clone(), &[2, 100], &dev).unwrap();
        let ya = Array::from_vec(y.clone(), &[100], &dev).unwrap();
        let x0 = Array::from_vec(x[..100].to_vec(), &[100], &dev).unwrap();
        let (f, p) = welch_complex::<f64>(&xa, &o32).unwrap();
        crate::common::close(&f.to_vec().unwrap(), &g.f("cx_welch_f"), 1e-14, "f");
        assert_eq!(p.shape(), &[2, 32]);
        crate::common::close(
            &p.to_vec().unwrap(),
            &g.f("cx_welch"),
            1e-12,
            &format!("welch {dev}"),
        );
        let (_, p) = welch_complex::<f64>(&xa, &olin).unwrap();
        crate::common::close(
            &p.to_vec().unwrap(),
            &g.f("cx_welch_lin"),
            1e-12,
            "welch linear",
        );
        // y broadcasts against x's leading axis as in SciPy
        let yb = Array::from_vec([y.clone(), y.clone()].concat(), &[2, 100], &dev).unwrap();
        let (_, pxy) = csd_complex::<f64>(&xa, &yb, &o32).unwrap();
        crate::common::close(
            &flat(pxy.to_vec().unwrap()),
            &flat(g.c("cx_csd")),
            1e-12,
            "csd",
        );
        let (_, pxy) = csd_complex::<f64>(&x0, &ya, &onone).unwrap();
        crate::common::close(
            &flat(pxy.to_vec().unwrap()),
            &flat(g.c("cx_csd_none")),
            1e-12,
            "csd none",
        );
        // c32
        let x32: Vec<c32> = x
            .iter()
            .map(|c| c32::new(c.re as f32, c.im as f32))
            .collect();
        let x32 = Array::from_vec(x32, &[2, 100], &dev).unwrap();
        let (_, p) = welch_complex::<f32>(&x32, &o32).unwrap();
        let p: Vec<f64> = p.to_vec().unwrap().iter().map(|&v| v as f64).collect();
        crate::common::close(&p, &g.f("cx_welch"), 1e-4, "welch c32");
        // the median average: tests/complexin.rs (SciPy golden)
    }
}

/// periodogram of complex data (two-sided) against SciPy, on every device.
#[test]
fn periodogram_complex_golden_scipy() {
    use cusci_core::testing::devices;
    use cusci_core::Array;
    use cusci_signal::{periodogram_complex, Scaling, WelchOptions, Window, WindowSpec};
    let g = names();
    let x = g.c("cx_x");
    for dev in devices() {
        let xa = Array::from_vec(x.clone(), &[2, 100], &dev).unwrap();
        let (f, p) = periodogram_complex::<f64>(&xa, None, &WelchOptions::default()).unwrap();
        assert_eq!((f.size(), p.shape()), (100, &[2usize, 100][..]));
        crate::common::close(&p.to_vec().unwrap(), &g.f("cx_per"), 1e-12, "periodogram");
        let x1 = Array::from_vec(x[100..].to_vec(), &[100], &dev).unwrap();
        let o = WelchOptions {
            nfft: Some(60),
            scaling: Scaling::Spectrum,
            ..Default::default()
        };
        let (_, p) =
            periodogram_complex::<f64>(&x1, Some(WindowSpec::Named(Window::Hann)), &o).unwrap();
        crate::common::close(&p.to_vec().unwrap(), &g.f("cx_per_cut"), 1e-12, "cut");
    }
}
