//! upfirdn and resample_poly: SciPy's golden values (every mode and padtype), a naive
//! zero-insert / convolve / decimate oracle, every device against the CPU, typed errors.

use cusci_core::npy::load_npz_array;
use cusci_core::testing::{assert_allclose, assert_slices_close, devices, randn_vec};
use cusci_core::{c64, Array, Device, Error};
use cusci_signal::*;

const NPZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/processing.npz");

fn golden(name: &str) -> Array<f64> {
    load_npz_array::<f64>(NPZ, name, &Device::cpu()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Zero-insert by `up`, full convolution with `h`, every `down`-th sample (SciPy's length).
fn naive(h: &[c64], x: &[c64], up: usize, down: usize) -> Vec<c64> {
    let mut xu = vec![c64::new(0.0, 0.0); (x.len() - 1) * up + 1];
    for (i, &v) in x.iter().enumerate() {
        xu[i * up] = v;
    }
    let mut full = vec![c64::new(0.0, 0.0); xu.len() + h.len() - 1];
    for (i, &v) in xu.iter().enumerate() {
        for (j, &w) in h.iter().enumerate() {
            full[i + j] += v * w;
        }
    }
    let nout = ((x.len() - 1) * up + h.len()).div_ceil(down);
    (0..nout)
        .map(|k| full.get(k * down).copied().unwrap_or(c64::new(0.0, 0.0)))
        .collect()
}

#[test]
fn upfirdn_golden_every_mode() {
    let modes = [
        ("edge", UpfirdnMode::Edge),
        ("line", UpfirdnMode::Line),
        ("wrap", UpfirdnMode::Wrap),
        ("symmetric", UpfirdnMode::Symmetric),
        ("reflect", UpfirdnMode::Reflect),
    ];
    for dev in devices() {
        let x = golden("ufd_x").to_device(&dev).unwrap();
        let h = golden("ufd_h").to_device(&dev).unwrap();
        for (up, down) in [(1, 1), (3, 2), (2, 3), (1, 4), (4, 1), (5, 3)] {
            let y = upfirdn(&h, &x, up, down, &UpfirdnOptions::default()).unwrap();
            let ctx = format!("{up}/{down} on {dev}");
            assert_allclose(
                &y,
                &golden(&format!("upfirdn_{up}_{down}")),
                1e-12,
                1e-13,
                &ctx,
            );
        }
        for (name, mode) in modes {
            let o = UpfirdnOptions {
                mode,
                ..Default::default()
            };
            let y = upfirdn(&h, &x, 3, 2, &o).unwrap();
            let ctx = format!("{name} on {dev}");
            assert_allclose(
                &y,
                &golden(&format!("upfirdn_3_2_{name}")),
                1e-12,
                1e-13,
                &ctx,
            );
        }
        let o = UpfirdnOptions {
            cval: 1.5,
            ..Default::default()
        };
        let y = upfirdn(&h, &x, 3, 2, &o).unwrap();
        assert_allclose(&y, &golden("upfirdn_3_2_cval"), 1e-12, 1e-13, "cval");
        let xt = x.t().contiguous().unwrap();
        let o = UpfirdnOptions {
            axis: 0,
            ..Default::default()
        };
        let y = upfirdn(&h, &xt, 2, 3, &o).unwrap();
        assert_allclose(&y, &golden("upfirdn_ax0"), 1e-12, 1e-13, "axis 0");
    }
}

#[test]
fn upfirdn_naive_sizes_complex_and_f32() {
    let cpu = Device::cpu();
    for (n, m, up, down) in [
        (1usize, 1usize, 1usize, 1usize),
        (2, 5, 3, 1),
        (31, 32, 2, 5),
        (33, 7, 7, 3),
        (257, 64, 4, 4),
        (100, 300, 1, 3),
    ] {
        let cx = |v: Vec<f64>| -> Vec<c64> { v.chunks(2).map(|p| c64::new(p[0], p[1])).collect() };
        let xv = cx(randn_vec::<f64>(2 * n, 7));
        let hv = cx(randn_vec::<f64>(2 * m, 8));
        let e = naive(&hv, &xv, up, down);
        for dev in devices() {
            let x = Array::from_vec(xv.clone(), &[n], &dev).unwrap();
            let h = Array::from_vec(hv.clone(), &[m], &dev).unwrap();
            let y = upfirdn(&h, &x, up, down, &UpfirdnOptions::default()).unwrap();
            let ctx = format!("n={n} m={m} {up}/{down} on {dev}");
            assert_slices_close(&y.to_vec().unwrap(), &e, &[e.len()], 1e-12, 1e-12, &ctx);
        }
        // f32, real parts, a batch of 3 signals: every device against the CPU
        let x32: Vec<f32> = randn_vec::<f32>(3 * n, 9);
        let h32: Vec<f32> = hv.iter().map(|v| v.re as f32).collect();
        let run = |dev: &Device| {
            let x = Array::from_vec(x32.clone(), &[3, n], dev).unwrap();
            let h = Array::from_vec(h32.clone(), &[m], dev).unwrap();
            upfirdn(&h, &x, up, down, &UpfirdnOptions::default())
                .unwrap()
                .to_device(&cpu)
                .unwrap()
        };
        let want = run(&cpu);
        let row0: Vec<c64> = x32[..n].iter().map(|&v| c64::new(v as f64, 0.0)).collect();
        let h64: Vec<c64> = h32.iter().map(|&v| c64::new(v as f64, 0.0)).collect();
        let e0: Vec<f32> = naive(&h64, &row0, up, down)
            .iter()
            .map(|v| v.re as f32)
            .collect();
        let got0 = want.to_vec().unwrap()[..e0.len()].to_vec();
        assert_slices_close(&got0, &e0, &[e0.len()], 1e-4, 1e-4, "f32 naive");
        for dev in devices() {
            assert_allclose(&run(&dev), &want, 1e-5, 1e-5, &format!("f32 on {dev}"));
        }
    }
}

#[test]
fn resample_poly_golden_every_padtype() {
    let pads = [
        ("constant", PadType::Constant),
        ("line", PadType::Line),
        ("mean", PadType::Mean),
        ("median", PadType::Median),
        ("maximum", PadType::Maximum),
        ("minimum", PadType::Minimum),
        ("edge", PadType::Edge),
        ("wrap", PadType::Wrap),
        ("symmetric", PadType::Symmetric),
        ("reflect", PadType::Reflect),
    ];
    for dev in devices() {
        let x = golden("rp_x").to_device(&dev).unwrap();
        for (up, down) in [(3, 2), (2, 3), (1, 2), (5, 1), (4, 6)] {
            for (name, padtype) in pads {
                let o = ResamplePolyOptions {
                    axis: -1,
                    padtype,
                    ..Default::default()
                };
                let y = resample_poly(&x, up, down, &o).unwrap();
                let ctx = format!("{up}/{down} {name} on {dev}");
                let want = golden(&format!("resample_poly_{up}_{down}_{name}"));
                assert_allclose(&y, &want, 1e-12, 1e-13, &ctx);
            }
        }
        let o = ResamplePolyOptions {
            cval: Some(2.0),
            ..Default::default()
        };
        let y = resample_poly(&x, 3, 2, &o).unwrap();
        assert_allclose(&y, &golden("resample_poly_cval"), 1e-12, 1e-13, "cval");
        let hann9: Vec<f64> = (0..9)
            .map(|k| 0.5 - 0.5 * (2.0 * std::f64::consts::PI * k as f64 / 9.0).cos())
            .collect();
        let o = ResamplePolyOptions {
            window: PolyWindow::Taps(hann9),
            ..Default::default()
        };
        let y = resample_poly(&x, 3, 2, &o).unwrap();
        assert_allclose(&y, &golden("resample_poly_taps"), 1e-12, 1e-13, "taps");
        let o = ResamplePolyOptions {
            window: PolyWindow::Design(FirWindow::Hamming),
            ..Default::default()
        };
        let y = resample_poly(&x, 2, 3, &o).unwrap();
        assert_allclose(
            &y,
            &golden("resample_poly_hamming"),
            1e-12,
            1e-13,
            "hamming",
        );
        // up == down: a copy; axis 0 (the default) equals the transpose of axis -1
        let y = resample_poly(&x, 4, 4, &ResamplePolyOptions::default()).unwrap();
        assert_allclose(&y, &x, 0.0, 0.0, "identity");
        let o = ResamplePolyOptions::default();
        let y0 = resample_poly(&x.t().contiguous().unwrap(), 3, 2, &o).unwrap();
        let want = golden("resample_poly_3_2_constant");
        assert_allclose(&y0.t().contiguous().unwrap(), &want, 1e-12, 1e-13, "axis 0");
    }
}

#[test]
fn resample_poly_f32_devices_agree() {
    let cpu = Device::cpu();
    let xv = randn_vec::<f32>(4 * 1000, 3);
    let run = |dev: &Device, pt: PadType| {
        let x = Array::from_vec(xv.clone(), &[4, 1000], dev).unwrap();
        let o = ResamplePolyOptions {
            axis: -1,
            padtype: pt,
            ..Default::default()
        };
        resample_poly(&x, 3, 2, &o)
            .unwrap()
            .to_device(&cpu)
            .unwrap()
    };
    for pt in [
        PadType::Constant,
        PadType::Mean,
        PadType::Line,
        PadType::Median,
    ] {
        let want = run(&cpu, pt);
        assert_eq!(want.shape(), &[4, 1500]);
        for dev in devices() {
            assert_allclose(
                &run(&dev, pt),
                &want,
                1e-5,
                1e-5,
                &format!("{pt:?} on {dev}"),
            );
        }
    }
}

#[test]
fn bad_input_same_typed_errors() {
    for dev in devices() {
        let x = Array::<f64>::ones(&[2, 8], &dev).unwrap();
        let h = Array::<f64>::ones(&[3], &dev).unwrap();
        let h2 = Array::<f64>::ones(&[3, 1], &dev).unwrap();
        let e = Array::<f64>::zeros(&[0], &dev).unwrap();
        let o = UpfirdnOptions::default();
        let arg = |r: Result<Array<f64>, Error>| matches!(r, Err(Error::InvalidArgument { .. }));
        assert!(arg(upfirdn(&h, &x, 0, 1, &o)));
        assert!(arg(upfirdn(&h, &x, 1, 0, &o)));
        assert!(arg(upfirdn(&e, &x, 1, 1, &o)));
        assert!(matches!(
            upfirdn(&h2, &x, 1, 1, &o),
            Err(Error::ShapeMismatch { .. })
        ));
        let bad_axis = UpfirdnOptions { axis: 2, ..o };
        assert!(arg(upfirdn(&h, &x, 1, 1, &bad_axis)));
        let nan = Array::from_vec(vec![1.0, f64::NAN], &[2], &dev).unwrap();
        assert!(arg(upfirdn(&nan, &x, 2, 1, &o)));
        let ro = ResamplePolyOptions::default();
        assert!(arg(resample_poly(&x, 0, 2, &ro)));
        assert!(arg(resample_poly(&x, 3, 0, &ro)));
        let xc = Array::<c64>::ones(&[8], &dev).unwrap();
        let med = ResamplePolyOptions {
            padtype: PadType::Median,
            ..Default::default()
        };
        assert!(matches!(
            resample_poly(&xc, 3, 2, &med),
            Err(Error::UnsupportedDType { .. })
        ));
    }
}
