//! detrend, resample (FFT), decimate, and the later processing functions: SciPy's golden values
//! (processing2.npz), naive oracles, every device against the CPU, typed errors.

use cusci_core::npy::load_npz_array;
use cusci_core::testing::{assert_allclose, devices, randn};
use cusci_core::{c64, Array, Device, Error};
use cusci_signal::*;

const NPZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/processing2.npz");

fn golden(name: &str) -> Array<f64> {
    load_npz_array::<f64>(NPZ, name, &Device::cpu()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn golden_c(name: &str) -> Array<c64> {
    load_npz_array::<c64>(NPZ, name, &Device::cpu()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn is_arg<T: std::fmt::Debug>(r: Result<T, Error>, ctx: &str) {
    match r {
        Err(Error::InvalidArgument { .. }) => {}
        other => panic!("{ctx}: expected InvalidArgument, got {other:?}"),
    }
}

#[test]
fn detrend_golden() {
    for dev in devices() {
        let x = golden("dt_x").to_device(&dev).unwrap();
        let ctx = |s: &str| format!("{s} on {dev}");
        let y = detrend(&x, &DetrendOptions::default()).unwrap();
        assert_allclose(&y, &golden("detrend_linear"), 1e-10, 1e-11, &ctx("linear"));
        let o = DetrendOptions {
            kind: DetrendType::Constant,
            ..Default::default()
        };
        let y = detrend(&x, &o).unwrap();
        assert_allclose(
            &y,
            &golden("detrend_constant"),
            1e-10,
            1e-11,
            &ctx("constant"),
        );
        let o = DetrendOptions {
            bp: vec![30, 10, 10],
            ..Default::default()
        };
        let y = detrend(&x, &o).unwrap();
        assert_allclose(&y, &golden("detrend_bp"), 1e-10, 1e-11, &ctx("bp"));
        let o = DetrendOptions {
            bp: vec![49],
            ..Default::default()
        };
        let y = detrend(&x, &o).unwrap();
        assert_allclose(&y, &golden("detrend_bp_1pt"), 1e-10, 1e-11, &ctx("bp 1pt"));
        let xt = x.t().contiguous().unwrap();
        let o = DetrendOptions {
            axis: 0,
            ..Default::default()
        };
        let y = detrend(&xt, &o).unwrap();
        assert_allclose(&y, &golden("detrend_ax0"), 1e-10, 1e-11, &ctx("axis 0"));
        // f32 and complex: a line plus i * another line detrends to 0
        let n = 33;
        let v: Vec<c64> = (0..n)
            .map(|i| c64::new(2.0 * i as f64 - 3.0, 0.5 * i as f64 + 1.0))
            .collect();
        let c = Array::from_vec(v, &[n], &dev).unwrap();
        let y = detrend(&c, &DetrendOptions::default()).unwrap();
        let z = Array::<c64>::zeros(&[n], &Device::cpu()).unwrap();
        assert_allclose(&y, &z, 0.0, 1e-11, &ctx("complex line"));
        let f: Array<f32> = golden("dt_x")
            .astype::<f32>()
            .unwrap()
            .to_device(&dev)
            .unwrap();
        let y = detrend(&f, &DetrendOptions::default()).unwrap();
        let e = golden("detrend_linear").astype::<f32>().unwrap();
        assert_allclose(&y, &e, 1e-4, 1e-4, &ctx("f32"));
        // bad input
        let o = DetrendOptions {
            bp: vec![51],
            ..Default::default()
        };
        is_arg(detrend(&x, &o), "bp beyond n");
        let o = DetrendOptions {
            axis: 2,
            ..Default::default()
        };
        is_arg(detrend(&x, &o), "axis");
    }
}

#[test]
fn resample_golden() {
    for dev in devices() {
        let x = golden("rs_x").to_device(&dev).unwrap();
        let c = golden_c("rs_c").to_device(&dev).unwrap();
        for num in [7usize, 12, 24, 31, 48] {
            let o = ResampleOptions {
                axis: -1,
                ..Default::default()
            };
            let y = resample(&x, num, &o).unwrap();
            let ctx = format!("real {num} on {dev}");
            assert_allclose(&y, &golden(&format!("resample_{num}")), 1e-11, 1e-12, &ctx);
            let y = resample(&c, num, &ResampleOptions::default()).unwrap();
            let ctx = format!("complex {num} on {dev}");
            assert_allclose(
                &y,
                &golden_c(&format!("resample_c_{num}")),
                1e-11,
                1e-12,
                &ctx,
            );
        }
        // window: fftshift(hann(24))
        let h = Window::Hann.values(24, false).unwrap();
        let w: Vec<f64> = (0..24).map(|i| h[(i + 12) % 24]).collect();
        let o = ResampleOptions {
            axis: -1,
            window: Some(w),
        };
        let y = resample(&x, 16, &o).unwrap();
        assert_allclose(&y, &golden("resample_win"), 1e-11, 1e-12, "window");
        // axis 0 equals axis 1 on the transpose; f32
        let xt = x.t().contiguous().unwrap();
        let y0 = resample(&xt, 31, &ResampleOptions::default()).unwrap();
        let e = golden("resample_31").t().contiguous().unwrap();
        assert_allclose(&y0, &e, 1e-11, 1e-12, "axis 0");
        let xf = x.astype::<f32>().unwrap();
        let o = ResampleOptions {
            axis: 1,
            ..Default::default()
        };
        let yf = resample(&xf, 12, &o).unwrap();
        let e = golden("resample_12").astype::<f32>().unwrap();
        assert_allclose(&yf, &e, 1e-4, 1e-5, "f32");
        is_arg(resample(&x, 0, &o), "num 0");
        let o = ResampleOptions {
            axis: 1,
            window: Some(vec![1.0; 5]),
        };
        is_arg(resample(&x, 10, &o), "window length");
    }
}

#[test]
fn decimate_golden() {
    for dev in devices() {
        let x = golden("dc_x").to_device(&dev).unwrap();
        for q in [2usize, 5] {
            let y = decimate(&x, q, &DecimateOptions::default()).unwrap();
            let ctx = format!("iir {q} on {dev}");
            assert_allclose(&y, &golden(&format!("decimate_iir_{q}")), 1e-9, 1e-11, &ctx);
            let o = DecimateOptions {
                ftype: DecimateFtype::Fir,
                ..Default::default()
            };
            let y = decimate(&x, q, &o).unwrap();
            let ctx = format!("fir {q} on {dev}");
            assert_allclose(
                &y,
                &golden(&format!("decimate_fir_{q}")),
                1e-10,
                1e-12,
                &ctx,
            );
        }
        let o = DecimateOptions {
            zero_phase: false,
            ..Default::default()
        };
        let y = decimate(&x, 3, &o).unwrap();
        assert_allclose(&y, &golden("decimate_iir_nzp_3"), 1e-9, 1e-11, "iir nzp");
        let o = DecimateOptions {
            zero_phase: false,
            ftype: DecimateFtype::Fir,
            ..Default::default()
        };
        let y = decimate(&x, 3, &o).unwrap();
        assert_allclose(&y, &golden("decimate_fir_nzp_3"), 1e-10, 1e-12, "fir nzp");
        is_arg(decimate(&x, 0, &DecimateOptions::default()), "q 0");
        let r = randn::<f64>(&[3], 1, &dev).unwrap();
        assert!(decimate(&r, 2, &DecimateOptions::default()).is_err());
    }
}

#[test]
fn savgol_golden() {
    for (w, p) in [(5usize, 2usize), (5, 3), (7, 2), (7, 3), (11, 2), (11, 3)] {
        let c = savgol_coeffs(w, p, &SavgolCoeffsOptions::default()).unwrap();
        let e = golden(&format!("savgol_coeffs_{w}_{p}")).to_vec().unwrap();
        cusci_core::testing::assert_slices_close(&c, &e, &[w], 1e-12, 1e-14, "coeffs");
    }
    let o = SavgolCoeffsOptions {
        deriv: 1,
        delta: 0.5,
        ..Default::default()
    };
    let c = savgol_coeffs(7, 3, &o).unwrap();
    let e = golden("savgol_coeffs_d1").to_vec().unwrap();
    cusci_core::testing::assert_slices_close(&c, &e, &[7], 1e-12, 1e-13, "deriv");
    let o = SavgolCoeffsOptions {
        pos: Some(1.0),
        use_dot: true,
        ..Default::default()
    };
    let c = savgol_coeffs(7, 2, &o).unwrap();
    let mut e = golden("savgol_coeffs_pos").to_vec().unwrap();
    e.reverse(); // the golden is use='conv'

    cusci_core::testing::assert_slices_close(&c, &e, &[7], 1e-12, 1e-14, "pos dot");
    let o = SavgolCoeffsOptions {
        pos: Some(1.0),
        ..Default::default()
    };
    let c = savgol_coeffs(7, 2, &o).unwrap();
    let e = golden("savgol_coeffs_conv").to_vec().unwrap();
    cusci_core::testing::assert_slices_close(&c, &e, &[7], 1e-12, 1e-14, "pos conv");
    assert!(savgol_coeffs(5, 5, &Default::default()).is_err());
    let z = savgol_coeffs(
        5,
        2,
        &SavgolCoeffsOptions {
            deriv: 3,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(z.iter().all(|v| *v == 0.0));
    let modes = [
        ("interp", SavgolMode::Interp),
        ("mirror", SavgolMode::Mirror),
        ("constant", SavgolMode::Constant),
        ("nearest", SavgolMode::Nearest),
        ("wrap", SavgolMode::Wrap),
    ];
    for dev in devices() {
        let x = golden("sg_x").to_device(&dev).unwrap();
        for (name, mode) in modes {
            let o = SavgolOptions {
                mode,
                ..Default::default()
            };
            let y = savgol_filter(&x, 11, 3, &o).unwrap();
            let ctx = format!("{name} on {dev}");
            assert_allclose(&y, &golden(&format!("savgol_{name}")), 1e-11, 1e-12, &ctx);
        }
        let o = SavgolOptions {
            mode: SavgolMode::Constant,
            cval: 1.5,
            ..Default::default()
        };
        let y = savgol_filter(&x, 11, 3, &o).unwrap();
        assert_allclose(&y, &golden("savgol_cval"), 1e-11, 1e-12, "cval");
        let o = SavgolOptions {
            deriv: 2,
            delta: 0.25,
            ..Default::default()
        };
        let y = savgol_filter(&x, 9, 4, &o).unwrap();
        assert_allclose(&y, &golden("savgol_d2"), 1e-10, 1e-10, "deriv 2");
        let xt = x.t().contiguous().unwrap();
        let o = SavgolOptions {
            axis: 0,
            ..Default::default()
        };
        let y = savgol_filter(&xt, 7, 2, &o).unwrap();
        assert_allclose(&y, &golden("savgol_ax0"), 1e-11, 1e-12, "axis 0");
        let xf = x.astype::<f32>().unwrap();
        let y = savgol_filter(&xf, 11, 3, &SavgolOptions::default()).unwrap();
        let e = golden("savgol_interp").astype::<f32>().unwrap();
        assert_allclose(&y, &e, 1e-4, 1e-4, "f32");
        // even window: a quadratic is reproduced by a quadratic fit; the centre taps evaluate
        // it half a sample later (pos = 2.5 of 6), the interp edges at the sample itself
        let f = |t: f64| (t - 7.0).powi(2) * 0.1;
        let q: Vec<f64> = (0..20).map(|i| f(i as f64)).collect();
        let qa = Array::from_vec(q, &[20], &dev).unwrap();
        let y = savgol_filter(&qa, 6, 2, &SavgolOptions::default())
            .unwrap()
            .to_vec()
            .unwrap();
        for (i, a) in y.iter().enumerate() {
            let t = if (3..17).contains(&i) {
                i as f64 + 0.5
            } else {
                i as f64
            };
            assert!(
                (a - f(t)).abs() < 1e-10,
                "even window at {i}: {a} vs {}",
                f(t)
            );
        }

        is_arg(
            savgol_filter(&x, 41, 3, &SavgolOptions::default()),
            "interp too long",
        );
        is_arg(
            savgol_filter(&x, 5, 5, &SavgolOptions::default()),
            "polyorder",
        );
    }
}

#[test]
fn sepfir2d_golden() {
    for dev in devices() {
        let x = golden("m2_x").to_device(&dev).unwrap();
        let hr = golden("sep_hr").to_device(&dev).unwrap();
        let hc = golden("sep_hc").to_device(&dev).unwrap();
        let y = sepfir2d(&x, &hr, &hc).unwrap();
        let ctx = format!("sepfir2d on {dev}");
        assert_allclose(&y, &golden("sepfir2d"), 1e-12, 1e-12, &ctx);
        // complex: real and imaginary parts filter separately with real taps
        let s = c64::new(1.0, -2.0);
        let xc = x.astype::<c64>().unwrap().mul_scalar(s).unwrap();
        let hrc = hr.astype::<c64>().unwrap();
        let hcc = hc.astype::<c64>().unwrap();
        let yc = sepfir2d(&xc, &hrc, &hcc).unwrap();
        let e = golden("sepfir2d")
            .astype::<c64>()
            .unwrap()
            .mul_scalar(s)
            .unwrap();
        assert_allclose(&yc, &e, 1e-12, 1e-12, "complex");
        let h4 = Array::from_vec(vec![1.0; 4], &[4], &dev).unwrap();
        is_arg(sepfir2d(&x, &h4, &hc), "even taps");
    }
}
