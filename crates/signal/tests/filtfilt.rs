//! filtfilt, sosfiltfilt, lfiltic: SciPy's golden values (every padtype, padlen, axis), every
//! device against the CPU, identities (lfiltic reproduces a continued filter), typed errors.

use cusci_core::npy::load_npz_array;
use cusci_core::testing::{assert_allclose, devices, randn_vec};
use cusci_core::{Array, Device, Error};
use cusci_signal::*;

const NPZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/processing.npz");

fn golden(name: &str) -> Array<f64> {
    load_npz_array::<f64>(NPZ, name, &Device::cpu()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

const PADS: [(Option<FiltPad>, &str); 4] = [
    (Some(FiltPad::Odd), "odd"),
    (Some(FiltPad::Even), "even"),
    (Some(FiltPad::Constant), "constant"),
    (None, "None"),
];

#[test]
fn golden_scipy_every_padtype() {
    for dev in devices() {
        let g = |n: &str| golden(n).to_device(&dev).unwrap();
        let (b, a, sos, x) = (g("ba_b"), g("ba_a"), g("sos"), g("x"));
        for (padtype, name) in PADS {
            let o = FiltfiltOptions {
                padtype,
                ..Default::default()
            };
            let ctx = format!("{name} on {dev}");
            let y = filtfilt(&b, &a, &x, &o).unwrap();
            assert_allclose(&y, &golden(&format!("filtfilt_{name}")), 1e-10, 1e-12, &ctx);
            let y = sosfiltfilt(&sos, &x, &o).unwrap();
            assert_allclose(
                &y,
                &golden(&format!("sosfiltfilt_{name}")),
                1e-10,
                1e-12,
                &ctx,
            );
        }
        let o = FiltfiltOptions {
            padlen: Some(5),
            ..Default::default()
        };
        let y = filtfilt(&b, &a, &x, &o).unwrap();
        assert_allclose(&y, &golden("filtfilt_padlen5"), 1e-10, 1e-12, "padlen 5");
        let o = FiltfiltOptions {
            axis: 0,
            ..Default::default()
        };
        let y = filtfilt(&b, &a, &x.t().contiguous().unwrap(), &o).unwrap();
        assert_allclose(&y, &golden("filtfilt_ax0"), 1e-10, 1e-12, "axis 0");
        let yv = Array::from_vec(vec![0.5, -1.0, 2.0], &[3], &dev).unwrap();
        let xv = Array::from_vec(vec![1.0, 0.3], &[2], &dev).unwrap();
        let zi = lfiltic(&b, &a, &yv, Some(&xv)).unwrap();
        assert_allclose(&zi, &golden("lfiltic_zi"), 1e-12, 1e-14, "lfiltic");
    }
}

#[test]
fn devices_agree_long_and_batched_f32() {
    let cpu = Device::cpu();
    let sos = butter(
        6,
        &[0.05, 0.2],
        &IirOptions {
            btype: BType::Bandpass,
            output: Output::Sos,
            ..Default::default()
        },
    )
    .unwrap()
    .into_sos()
    .unwrap();
    let flat: Vec<f32> = sos.iter().flatten().map(|&v| v as f32).collect();
    let nsec = sos.len();
    // one long signal (the GPU's chunked scan) and a batch along axis 0
    for shape in [vec![20_000usize], vec![300, 5]] {
        let len: usize = shape.iter().product();
        let xv = randn_vec::<f32>(len, 5);
        let axis = if shape.len() == 2 { 0 } else { -1 };
        let run = |dev: &Device| {
            let s = Array::from_vec(flat.clone(), &[nsec, 6], dev).unwrap();
            let x = Array::from_vec(xv.clone(), &shape, dev).unwrap();
            let o = FiltfiltOptions {
                axis,
                ..Default::default()
            };
            sosfiltfilt(&s, &x, &o).unwrap().to_device(&cpu).unwrap()
        };
        let want = run(&cpu);
        for dev in devices() {
            assert_allclose(
                &run(&dev),
                &want,
                1e-4,
                1e-4,
                &format!("{shape:?} on {dev}"),
            );
        }
    }
}

#[test]
fn lfiltic_continues_a_filter() {
    // filtering x[..40] then x[40..] from lfiltic(past outputs, past inputs) equals one pass
    let cpu = Device::cpu();
    let bv = vec![0.2, 0.3, -0.1, 0.05];
    let av = vec![1.5, -0.4, 0.2];
    let xv = randn_vec::<f64>(80, 4);
    let b = Array::from_vec(bv, &[4], &cpu).unwrap();
    let a = Array::from_vec(av, &[3], &cpu).unwrap();
    let x = Array::from_vec(xv.clone(), &[80], &cpu).unwrap();
    let whole = lfilter(&b, &a, &x, &FilterOptions::default()).unwrap().y;
    let w = whole.to_vec().unwrap();
    let past_y: Vec<f64> = (0..2).map(|k| w[39 - k]).collect();
    let past_x: Vec<f64> = (0..3).map(|k| xv[39 - k]).collect();
    let zi = lfiltic(
        &b,
        &a,
        &Array::from_vec(past_y, &[2], &cpu).unwrap(),
        Some(&Array::from_vec(past_x, &[3], &cpu).unwrap()),
    )
    .unwrap();
    let tail = Array::from_vec(xv[40..].to_vec(), &[40], &cpu).unwrap();
    let o = FilterOptions {
        axis: -1,
        zi: Some(&zi),
    };
    let y2 = lfilter(&b, &a, &tail, &o).unwrap().y;
    let want = Array::from_vec(w[40..].to_vec(), &[40], &cpu).unwrap();
    assert_allclose(&y2, &want, 1e-12, 1e-13, "continued");
}

#[test]
fn bad_input_same_typed_errors() {
    for dev in devices() {
        let b = Array::from_vec(vec![0.5, 0.5], &[2], &dev).unwrap();
        let a = Array::from_vec(vec![1.0, -0.5], &[2], &dev).unwrap();
        let a0 = Array::from_vec(vec![0.0, 1.0], &[2], &dev).unwrap();
        let x = Array::<f64>::ones(&[2, 10], &dev).unwrap();
        let o = FiltfiltOptions::default();
        let arg = |r: Result<Array<f64>, Error>| matches!(r, Err(Error::InvalidArgument { .. }));
        // padlen too large: 3 * 2 = 6 < 10 is fine, 10 is not
        assert!(filtfilt(&b, &a, &x, &o).is_ok());
        let big = FiltfiltOptions {
            padlen: Some(10),
            ..o
        };
        assert!(arg(filtfilt(&b, &a, &x, &big)));
        assert!(arg(filtfilt(&b, &a0, &x, &o)));
        let b2 = Array::<f64>::ones(&[2, 2], &dev).unwrap();
        assert!(matches!(
            filtfilt(&b2, &a, &x, &o),
            Err(Error::ShapeMismatch { .. })
        ));
        let sos1 = Array::<f64>::ones(&[6], &dev).unwrap();
        assert!(matches!(
            sosfiltfilt(&sos1, &x, &o),
            Err(Error::ShapeMismatch { .. })
        ));
        let sos = Array::from_vec(vec![0.5, 0.5, 0.0, 1.0, -0.5, 0.0], &[1, 6], &dev).unwrap();
        // ntaps = 3 - min(1, 1) = 2 -> padlen 6; 6 samples are too few
        let x6 = Array::<f64>::ones(&[6], &dev).unwrap();
        assert!(arg(sosfiltfilt(&sos, &x6, &o)));
        assert!(arg(lfiltic(&b, &a0, &b, None)));
        let nan = Array::from_vec(vec![1.0, f64::NAN], &[2], &dev).unwrap();
        assert!(filtfilt(&nan, &a, &x, &o).is_err());
    }
}

/// The CPU's one-buffer sosfiltfilt: a 1-D signal gives the bits of the composed array path
/// (odd extension, sosfilt from `zi * x0`, reversed, sosfilt from `zi * y[-1]`, reversed,
/// trimmed); a `[22, 25, 30]` batch along each axis, with every padtype and a short padlen,
/// gives each signal's own 1-D result (groups of four with a partial last group, strided
/// signals; a sample of the signals checked).
#[test]
fn cpu_sosfiltfilt_matches_the_composed_passes_and_single_signals() {
    let cpu = Device::cpu();
    let sos = butter(
        6,
        &[0.15],
        &IirOptions {
            output: Output::Sos,
            ..Default::default()
        },
    )
    .unwrap()
    .into_sos()
    .unwrap();
    let flat: Vec<f64> = sos.iter().flatten().copied().collect();
    let sos = Array::from_vec(flat, &[sos.len(), 6], &cpu).unwrap();
    // 1-D against the composition
    let n = 200usize;
    let xv: Vec<f64> = randn_vec(n, 77);
    let x = Array::from_vec(xv.clone(), &[n], &cpu).unwrap();
    let edge = 3 * (2 * sos.shape()[0] + 1);
    let mut ext = Vec::with_capacity(n + 2 * edge);
    for k in (1..=edge).rev() {
        ext.push(xv[0] + xv[0] - xv[k]);
    }
    ext.extend_from_slice(&xv);
    for k in 1..=edge {
        ext.push(xv[n - 1] + xv[n - 1] - xv[n - 1 - k]);
    }
    let zi = sosfilt_zi(&sos).unwrap().to_vec().unwrap();
    let ns = zi.len();
    let z1: Vec<f64> = zi.iter().map(|&z| z * ext[0]).collect();
    let z1 = Array::from_vec(z1, &[ns / 2, 2], &cpu).unwrap();
    let e = Array::from_vec(ext.clone(), &[ext.len()], &cpu).unwrap();
    let y = sosfilt(
        &sos,
        &e,
        &FilterOptions {
            axis: -1,
            zi: Some(&z1),
        },
    )
    .unwrap()
    .y
    .to_vec()
    .unwrap();
    let yl = *y.last().unwrap();
    let z2: Vec<f64> = zi.iter().map(|&z| z * yl).collect();
    let z2 = Array::from_vec(z2, &[ns / 2, 2], &cpu).unwrap();
    let yr: Vec<f64> = y.iter().rev().copied().collect();
    let yr = Array::from_vec(yr, &[y.len()], &cpu).unwrap();
    let y2 = sosfilt(
        &sos,
        &yr,
        &FilterOptions {
            axis: -1,
            zi: Some(&z2),
        },
    )
    .unwrap()
    .y
    .to_vec()
    .unwrap();
    let want: Vec<f64> = y2.iter().rev().skip(edge).take(n).copied().collect();
    let got = sosfiltfilt(&sos, &x, &FiltfiltOptions::default())
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(got, want, "1-D against the composed passes");
    // batches against single signals
    let shape = [22usize, 25, 30];
    let total: usize = shape.iter().product();
    let xv: Vec<f64> = randn_vec(total, 78);
    let x = Array::from_vec(xv, &shape, &cpu).unwrap();
    for axis in 0..3usize {
        for (padtype, padlen) in [
            (Some(FiltPad::Odd), None),
            (Some(FiltPad::Even), Some(2)),
            (Some(FiltPad::Constant), None),
            (None, None),
        ] {
            let o = FiltfiltOptions {
                axis: axis as isize,
                padtype,
                padlen,
                ..Default::default()
            };
            let y = sosfiltfilt(&sos, &x, &o).unwrap();
            let o1 = FiltfiltOptions { axis: -1, ..o };
            // every signal along `axis`: fix the other two coordinates
            let others: Vec<usize> = (0..3).filter(|&a| a != axis).collect();
            let sample = |len: usize| [0, 1, 3, 5, len - 1];
            for i in sample(shape[others[0]]) {
                for j in sample(shape[others[1]]) {
                    let pick = |a: &Array<f64>| {
                        a.index_axis(others[1] as isize, j as isize)
                            .unwrap()
                            .index_axis(others[0] as isize, i as isize)
                            .unwrap()
                            .contiguous()
                            .unwrap()
                    };
                    let single = sosfiltfilt(&sos, &pick(&x), &o1).unwrap();
                    assert_eq!(
                        pick(&y).to_vec().unwrap(),
                        single.to_vec().unwrap(),
                        "axis {axis} {padtype:?} signal ({i}, {j})"
                    );
                }
            }
        }
    }
}
