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
