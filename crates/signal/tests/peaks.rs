//! find_peaks, peak_prominences, peak_widths and argrelextrema against SciPy
//! (tests/data/analysis.npz) on every device, GPU against CPU on a larger signal, bad inputs.

use crate::common::Golden;
use cusci_core::npy::DynArray;
use cusci_core::testing::{assert_allclose, for_each_device, randn};
use cusci_core::{Array, Device, Error};
use cusci_signal::*;

/// The comma-separated names stored as `fp_<case>_keys`.
fn keys(g: &Golden, case: &str) -> Vec<String> {
    let b: Vec<u8> = match &g.0[&format!("fp_{case}_keys")] {
        DynArray::U8(a) => a.to_vec().unwrap(),
        _ => panic!("keys"),
    };
    let s = String::from_utf8(b).unwrap();
    s.split(',')
        .filter(|k| !k.is_empty())
        .map(String::from)
        .collect()
}

fn cases() -> Vec<(&'static str, &'static str, FindPeaksOptions)> {
    let d = FindPeaksOptions::default;
    vec![
        ("plain", "fp_x", d()),
        (
            "plateau",
            "fp_x",
            FindPeaksOptions {
                plateau_size: Some(Bound::min(2.0)),
                ..d()
            },
        ),
        (
            "height",
            "fp_x",
            FindPeaksOptions {
                height: Some(Bound::range(0.0, 2.0)),
                ..d()
            },
        ),
        (
            "thr",
            "fp_x",
            FindPeaksOptions {
                threshold: Some(Bound::min(0.2)),
                ..d()
            },
        ),
        (
            "dist",
            "fp_xd",
            FindPeaksOptions {
                distance: Some(5.5),
                ..d()
            },
        ),
        (
            "prom",
            "fp_x",
            FindPeaksOptions {
                prominence: Some(Bound::min(1.0)),
                wlen: Some(21.0),
                ..d()
            },
        ),
        (
            "width",
            "fp_x",
            FindPeaksOptions {
                width: Some(Bound::range(1.0, 5.0)),
                rel_height: 0.7,
                ..d()
            },
        ),
        (
            "all",
            "fp_xd",
            FindPeaksOptions {
                height: Some(Bound::min(-0.5)),
                threshold: Some(Bound::min(0.05)),
                distance: Some(3.0),
                prominence: Some(Bound::range(0.3, 3.0)),
                width: Some(Bound::min(1.0)),
                wlen: Some(31.5),
                rel_height: 0.4,
                plateau_size: Some(Bound::min(1.0)),
            },
        ),
    ]
}

fn props_present(p: &PeakProperties) -> Vec<(&'static str, Option<Vec<f64>>)> {
    let fi = |a: &Option<Array<i64>>| {
        a.as_ref()
            .map(|a| a.to_vec().unwrap().iter().map(|&v| v as f64).collect())
    };
    let ff = |a: &Option<Array<f64>>| a.as_ref().map(|a| a.to_vec().unwrap());
    vec![
        ("left_bases", fi(&p.left_bases)),
        ("left_edges", fi(&p.left_edges)),
        ("left_ips", ff(&p.left_ips)),
        ("left_thresholds", ff(&p.left_thresholds)),
        ("peak_heights", ff(&p.peak_heights)),
        ("plateau_sizes", fi(&p.plateau_sizes)),
        ("prominences", ff(&p.prominences)),
        ("right_bases", fi(&p.right_bases)),
        ("right_edges", fi(&p.right_edges)),
        ("right_ips", ff(&p.right_ips)),
        ("right_thresholds", ff(&p.right_thresholds)),
        ("width_heights", ff(&p.width_heights)),
        ("widths", ff(&p.widths)),
    ]
}

#[test]
fn find_peaks_matches_scipy() {
    let g = Golden::load("analysis.npz");
    for_each_device(|dev| {
        for (case, sig, o) in cases() {
            let x = Array::from_vec(g.f(sig), &[400], dev).unwrap();
            let (p, props) = find_peaks(&x, &o).unwrap();
            assert_eq!(p.device(), dev);
            assert_eq!(
                p.to_vec().unwrap(),
                g.i(&format!("fp_{case}_peaks")),
                "{case}"
            );
            let keys = keys(&g, case);
            for (k, v) in props_present(&props) {
                assert_eq!(
                    v.is_some(),
                    keys.iter().any(|kk| kk == k),
                    "{case}: {k} presence"
                );
                if let Some(v) = v {
                    let key = format!("fp_{case}_{k}");
                    let want: Vec<f64> = match &g.0[&key] {
                        DynArray::I64(a) => a.to_vec().unwrap().iter().map(|&v| v as f64).collect(),
                        DynArray::F64(a) => a.to_vec().unwrap(),
                        _ => panic!("{key}"),
                    };
                    assert_eq!(v.len(), want.len(), "{key}");
                    for (a, b) in v.iter().zip(&want) {
                        assert!(
                            (a - b).abs() <= 1e-12 * b.abs().max(1.0),
                            "{key}: {a} vs {b}"
                        );
                    }
                }
            }
        }
        // f32 input is converted to f64 as SciPy does
        let x32 = Array::from_vec(g.f("fp_x"), &[400], dev)
            .unwrap()
            .astype::<f32>()
            .unwrap();
        let (p, _) = find_peaks(&x32, &FindPeaksOptions::default()).unwrap();
        assert_eq!(p.to_vec().unwrap(), g.i("fp_plain_peaks"));
        // tiny signals have no peaks
        for n in [0usize, 1, 2] {
            let x = Array::<f64>::ones(&[n], dev).unwrap();
            assert_eq!(
                find_peaks(&x, &FindPeaksOptions::default())
                    .unwrap()
                    .0
                    .size(),
                0
            );
        }
    });
}

#[test]
fn prominences_and_widths_helpers() {
    let g = Golden::load("analysis.npz");
    for_each_device(|dev| {
        let x = Array::from_vec(g.f("fp_x"), &[400], dev).unwrap();
        let peaks =
            Array::from_vec(g.i("fp_width_peaks"), &[g.i("fp_width_peaks").len()], dev).unwrap();
        let pr = peak_prominences(&x, &peaks, None).unwrap();
        let m = peaks.size();
        let wp = |k: &str| Array::from_vec(g.f(&format!("fp_width_{k}")), &[m], dev).unwrap();
        assert_allclose(&pr.prominences, &wp("prominences"), 1e-14, 1e-14, "prom");
        assert_eq!(pr.left_bases.to_vec().unwrap(), g.i("fp_width_left_bases"));
        let w = peak_widths(&x, &peaks, 0.7, Some(&pr), None).unwrap();
        assert_allclose(&w.widths, &wp("widths"), 1e-13, 1e-13, "widths");
        assert_allclose(&w.left_ips, &wp("left_ips"), 1e-13, 1e-13, "lips");
        let w2 = peak_widths(&x, &peaks, 0.7, None, None).unwrap();
        assert_eq!(
            w2.right_ips.to_vec().unwrap(),
            w.right_ips.to_vec().unwrap()
        );
        // bad inputs: same typed errors on every device
        let outside = Array::from_vec(vec![3i64, 400], &[2], dev).unwrap();
        let e = peak_prominences(&x, &outside, None).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
        let e = peak_prominences(&x, &peaks, Some(1.0)).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
        let e = peak_widths(&x, &peaks, -0.1, None, None).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
        let bad = Prominences {
            prominences: pr.prominences.clone(),
            left_bases: pr.right_bases.clone(),
            right_bases: pr.left_bases.clone(),
        };
        let e = peak_widths(&x, &peaks, 0.5, Some(&bad), None).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
        let x2 = Array::<f64>::zeros(&[2, 3], dev).unwrap();
        let e = find_peaks(&x2, &FindPeaksOptions::default()).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
        let o = FindPeaksOptions {
            distance: Some(0.5),
            ..Default::default()
        };
        assert!(matches!(
            find_peaks(&x, &o).unwrap_err(),
            Error::InvalidArgument { .. }
        ));
        let o = FindPeaksOptions {
            prominence: Some(Bound::min(0.0)),
            wlen: Some(0.5),
            ..Default::default()
        };
        assert!(matches!(
            find_peaks(&x, &o).unwrap_err(),
            Error::InvalidArgument { .. }
        ));
    });
}

#[test]
fn find_peaks_gpu_matches_cpu_on_a_long_signal() {
    let cpu = Device::cpu();
    let x = randn::<f64>(&[20_000], 7, &cpu).unwrap();
    let o = FindPeaksOptions {
        height: Some(Bound::min(0.1)),
        distance: Some(4.0),
        prominence: Some(Bound::min(0.2)),
        width: Some(Bound::min(1.0)),
        wlen: Some(101.0),
        ..Default::default()
    };
    let (pc, propc) = find_peaks(&x, &o).unwrap();
    assert!(pc.size() > 100);
    for_each_device(|dev| {
        let (p, prop) = find_peaks(&x.to_device(dev).unwrap(), &o).unwrap();
        assert_eq!(p.to_vec().unwrap(), pc.to_vec().unwrap());
        assert_eq!(
            prop.widths.unwrap().to_vec().unwrap(),
            propc.widths.clone().unwrap().to_vec().unwrap()
        );
    });
}

#[test]
fn argrelextrema_matches_scipy() {
    let g = Golden::load("analysis.npz");
    let a = g.f("ar_a");
    let want = |k: &str| -> Vec<Vec<i64>> {
        let v = g.i(k);
        let nd = g.0[k].shape()[0];
        v.chunks(v.len() / nd.max(1)).map(|c| c.to_vec()).collect()
    };
    let got =
        |r: Vec<Array<i64>>| -> Vec<Vec<i64>> { r.iter().map(|a| a.to_vec().unwrap()).collect() };
    for_each_device(|dev| {
        let x = Array::from_vec(a.clone(), &[3, 40], dev).unwrap();
        assert_eq!(
            got(argrelmax(&x, 1, 2, ExtremaMode::Clip).unwrap()),
            want("ar_max_ax1_o2")
        );
        assert_eq!(
            got(argrelmin(&x, 0, 1, ExtremaMode::Wrap).unwrap()),
            want("ar_min_ax0_wrap")
        );
        assert_eq!(
            got(argrelextrema(&x, Comparator::GreaterEqual, -1, 3, ExtremaMode::Clip).unwrap()),
            want("ar_ge_ax1_o3")
        );
        let x0 = x.index_axis(0, 0).unwrap().astype::<f32>().unwrap();
        assert_eq!(
            got(argrelmax(&x0, 0, 3, ExtremaMode::Wrap).unwrap()),
            want("ar_max_1d_wrap")
        );
        for (ax, ord) in [(0isize, 0usize), (2, 1)] {
            let e = argrelmax(&x, ax, ord, ExtremaMode::Clip).unwrap_err();
            assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
        }
    });
}
