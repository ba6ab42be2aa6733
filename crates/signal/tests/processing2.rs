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

#[test]
fn nd_convolution_golden() {
    let modes = [
        ("full", ConvMode::Full),
        ("same", ConvMode::Same),
        ("valid", ConvMode::Valid),
    ];
    for dev in devices() {
        let a = golden("nd_a").to_device(&dev).unwrap();
        let b = golden("nd_b").to_device(&dev).unwrap();
        let b1 = golden("nd_b1").to_device(&dev).unwrap();
        for (name, mode) in modes {
            let ctx = format!("{name} on {dev}");
            let y = fftconvolve(&a, &b, mode).unwrap();
            assert_allclose(
                &y,
                &golden(&format!("fftconvolve_nd_{name}")),
                1e-11,
                1e-12,
                &ctx,
            );
            let y = fftconvolve_axes(&a, &b1, mode, Some(&[0, -1])).unwrap();
            assert_allclose(
                &y,
                &golden(&format!("fftconvolve_ax_{name}")),
                1e-11,
                1e-12,
                &ctx,
            );
            let o = ConvOptions {
                mode,
                ..Default::default()
            };
            let y = convolve(&a, &b, &o).unwrap();
            assert_allclose(
                &y,
                &golden(&format!("convolve_nd_{name}")),
                1e-11,
                1e-12,
                &ctx,
            );
            let y = correlate(&a, &b, &o).unwrap();
            assert_allclose(
                &y,
                &golden(&format!("correlate_nd_{name}")),
                1e-11,
                1e-12,
                &ctx,
            );
            // valid with the inputs swapped gives the same (convolution commutes)
            if mode == ConvMode::Valid {
                let y = fftconvolve(&b, &a, mode).unwrap();
                assert_allclose(&y, &golden("fftconvolve_nd_valid"), 1e-11, 1e-12, &ctx);
            }
            let oa = golden("oa_a").to_device(&dev).unwrap();
            let ob = golden("oa_b").to_device(&dev).unwrap();
            let y = oaconvolve(&oa, &ob, mode, None).unwrap();
            assert_allclose(
                &y,
                &golden(&format!("oaconvolve_{name}")),
                1e-11,
                1e-12,
                &ctx,
            );
        }
        // 2-D direct through convolve2d equals the FFT
        let a2 = a.index_axis(0, 0).unwrap().contiguous().unwrap();
        let b2 = b.index_axis(0, 1).unwrap().contiguous().unwrap();
        let d = ConvOptions {
            mode: ConvMode::Same,
            method: ConvMethod::Direct,
        };
        let f = ConvOptions {
            mode: ConvMode::Same,
            method: ConvMethod::Fft,
        };
        let yd = correlate(&a2, &b2, &d).unwrap();
        let yf = correlate(&a2, &b2, &f).unwrap();
        assert_allclose(&yd, &yf, 1e-11, 1e-12, "2-D direct vs fft");
        // complex N-D: f32 and c64 against the f64 golden
        let ac = a.astype::<c64>().unwrap();
        let bc = b.astype::<c64>().unwrap();
        let y = fftconvolve(&ac, &bc, ConvMode::Same).unwrap();
        let e = golden("fftconvolve_nd_same").astype::<c64>().unwrap();
        assert_allclose(&y, &e, 1e-11, 1e-12, "complex");
        let af = a.astype::<f32>().unwrap();
        let bf = b.astype::<f32>().unwrap();
        let y = fftconvolve(&af, &bf, ConvMode::Full).unwrap();
        let e = golden("fftconvolve_nd_full").astype::<f32>().unwrap();
        assert_allclose(&y, &e, 1e-4, 1e-4, "f32");
        // bad input
        let b3 = Array::<f64>::zeros(&[3, 2, 9], &dev).unwrap();
        is_arg(fftconvolve(&a, &b3, ConvMode::Valid), "valid not nested");
        let bb = Array::<f64>::zeros(&[2, 2, 4], &dev).unwrap();
        assert!(matches!(
            fftconvolve_axes(&a, &bb, ConvMode::Full, Some(&[2])),
            Err(Error::ShapeMismatch { .. })
        ));
        // the direct method on 3 axes (a direct sum over b's points) gives SciPy's values
        let o = ConvOptions {
            method: ConvMethod::Direct,
            ..Default::default()
        };
        let y = convolve(&a, &b, &o).unwrap();
        assert_allclose(
            &y,
            &golden("fftconvolve_nd_full"),
            1e-12,
            1e-12,
            "direct 3-D",
        );
    }
}

#[test]
fn lags_and_deconvolve() {
    // correlation_lags: the full lags by definition; same/valid as SciPy 1.17 prints them
    for (n1, n2) in [
        (1usize, 1usize),
        (5, 3),
        (3, 5),
        (8, 8),
        (7, 2),
        (2, 7),
        (6, 3),
    ] {
        let full: Vec<i64> = (0..n1 + n2 - 1)
            .map(|j| j as i64 - (n2 as i64 - 1))
            .collect();
        assert_eq!(correlation_lags(n1, n2, ConvMode::Full).unwrap(), full);
        let v = correlation_lags(n1, n2, ConvMode::Valid).unwrap();
        assert_eq!(v.len(), n1.max(n2) - n1.min(n2) + 1);
    }
    let same: [(usize, usize, Vec<i64>); 7] = [
        (1, 1, vec![0]),
        (5, 3, vec![-1, 0, 1, 2, 3]),
        (3, 5, vec![-2, -1, 0]),
        (8, 8, vec![-4, -3, -2, -1, 0, 1, 2, 3]),
        (7, 2, vec![0, 1, 2, 3, 4, 5, 6]),
        (2, 7, vec![-3, -2]),
        (6, 3, vec![-1, 0, 1, 2, 3, 4]),
    ];
    for (n1, n2, e) in same {
        assert_eq!(
            correlation_lags(n1, n2, ConvMode::Same).unwrap(),
            e,
            "{n1} {n2}"
        );
    }
    assert_eq!(
        correlation_lags(4, 2, ConvMode::Same).unwrap(),
        vec![-1, 0, 1, 2]
    );
    assert_eq!(
        correlation_lags(2, 4, ConvMode::Valid).unwrap(),
        vec![-2, -1, 0]
    );
    for dev in devices() {
        let s = golden("dcv_sig").to_device(&dev).unwrap();
        let d = golden("dcv_div").to_device(&dev).unwrap();
        let (q, r) = deconvolve(&s, &d).unwrap();
        assert_allclose(&q, &golden("deconvolve_q"), 1e-11, 1e-12, "quotient");
        assert_allclose(&r, &golden("deconvolve_r"), 1e-11, 1e-12, "remainder");
        let (q, r) = deconvolve(&d, &s).unwrap();
        assert_eq!(q.shape(), &[0]);
        assert_allclose(&r, &d, 0.0, 0.0, "long divisor");
        let z = Array::from_vec(vec![0.0, 1.0], &[2], &dev).unwrap();
        assert!(deconvolve(&s, &z).is_err());
    }
}

/// Naive rank filter with zero padding (2-D, centred odd domain).
fn naive_rank(
    x: &[f64],
    r: usize,
    c: usize,
    dom: &[bool],
    dr: usize,
    dc: usize,
    rank: usize,
) -> Vec<f64> {
    let mut out = vec![0.0; r * c];
    for i in 0..r {
        for j in 0..c {
            let mut w = Vec::new();
            for a in 0..dr {
                for b in 0..dc {
                    if !dom[a * dc + b] {
                        continue;
                    }
                    let (p, q) = (
                        i as i64 + a as i64 - (dr / 2) as i64,
                        j as i64 + b as i64 - (dc / 2) as i64,
                    );
                    let inside = p >= 0 && q >= 0 && (p as usize) < r && (q as usize) < c;
                    w.push(if inside {
                        x[p as usize * c + q as usize]
                    } else {
                        0.0
                    });
                }
            }
            w.sort_by(|a, b| a.partial_cmp(b).unwrap());
            out[i * c + j] = w[rank];
        }
    }
    out
}

#[test]
fn rank_filters_golden() {
    for dev in devices() {
        let x = golden("m2_x").to_device(&dev).unwrap();
        let y = medfilt2d(&x, [3, 3]).unwrap();
        assert_allclose(
            &y,
            &golden("medfilt2d_3x3"),
            0.0,
            0.0,
            &format!("medfilt2d on {dev}"),
        );
        let y = medfilt2d(&x, [5, 3]).unwrap();
        assert_allclose(&y, &golden("medfilt2d_5x3"), 0.0, 0.0, "medfilt2d 5x3");
        let ones = Array::<f64>::ones(&[3, 3], &dev).unwrap();
        for rk in [0usize, 4, 8] {
            let y = order_filter(&x, &ones, rk).unwrap();
            assert_allclose(
                &y,
                &golden(&format!("order_filter_{rk}")),
                0.0,
                0.0,
                "order",
            );
        }
        let cross = Array::from_vec(
            vec![0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0],
            &[3, 3],
            &dev,
        )
        .unwrap();
        let y = order_filter(&x, &cross, 2).unwrap();
        assert_allclose(&y, &golden("order_filter_cross"), 0.0, 0.0, "cross");
        // f32, a large domain (quickselect, the 1024 bucket) against the naive sort
        let (r, c) = (13usize, 17usize);
        let xr = randn::<f64>(&[r, c], 7, &Device::cpu())
            .unwrap()
            .to_vec()
            .unwrap();
        let dom: Vec<bool> = (0..21 * 21).map(|i| i % 3 != 1).collect();
        let cnt = dom.iter().filter(|&&v| v).count();
        let rank = cnt / 3;
        let e = naive_rank(&xr, r, c, &dom, 21, 21, rank);
        let d = Array::from_vec(
            dom.iter().map(|&v| v as i32 as f32).collect(),
            &[21, 21],
            &dev,
        )
        .unwrap();
        let xf = Array::from_vec(xr.iter().map(|&v| v as f32).collect(), &[r, c], &dev).unwrap();
        let y = order_filter(&xf, &d, rank).unwrap();
        let ef = Array::from_vec(
            e.iter().map(|&v| v as f32).collect(),
            &[r, c],
            &Device::cpu(),
        )
        .unwrap();
        assert_allclose(&y, &ef, 0.0, 0.0, "large domain f32");
        // 1-D and 3-D
        let x1 = Array::from_vec(vec![3.0, -1.0, 2.0, 7.0, 0.5], &[5], &dev).unwrap();
        let d1 = Array::from_vec(vec![1.0; 3], &[3], &dev).unwrap();
        assert_eq!(
            order_filter(&x1, &d1, 1).unwrap().to_vec().unwrap(),
            vec![0.0, 2.0, 2.0, 2.0, 0.5]
        );
        let x3 = randn::<f64>(&[4, 5, 6], 3, &dev).unwrap();
        let d3 = Array::<f64>::ones(&[1, 1, 3], &dev).unwrap();
        let y3 = order_filter(&x3, &d3, 2).unwrap();
        let x2 = x3.reshape(&[20isize, 6]).unwrap();
        let y2 = order_filter(&x2, &Array::<f64>::ones(&[1, 3], &dev).unwrap(), 2).unwrap();
        assert_allclose(&y3.reshape(&[20isize, 6]).unwrap(), &y2, 0.0, 0.0, "3-D");
        // bad input
        is_arg(medfilt2d(&x, [2, 3]), "even kernel");
        is_arg(order_filter(&x, &ones, 9), "rank");
        let even = Array::<f64>::ones(&[2, 3], &dev).unwrap();
        is_arg(order_filter(&x, &even, 0), "even domain");
    }
}

#[test]
fn wiener_and_hilbert2_golden() {
    for dev in devices() {
        let x = golden("m2_x").to_device(&dev).unwrap();
        let y = wiener(&x, None, None).unwrap();
        assert_allclose(
            &y,
            &golden("wiener_3x3"),
            1e-10,
            1e-12,
            &format!("wiener on {dev}"),
        );
        let y = wiener(&x, Some(&[5]), None).unwrap();
        assert_allclose(&y, &golden("wiener_5x5"), 1e-10, 1e-12, "wiener 5");
        let y = wiener(&x, Some(&[3, 5]), Some(0.5)).unwrap();
        assert_allclose(&y, &golden("wiener_noise"), 1e-10, 1e-12, "wiener noise");
        let x0 = x.index_axis(0, 0).unwrap().contiguous().unwrap();
        let y = wiener(&x0, Some(&[5]), None).unwrap();
        assert_allclose(&y, &golden("wiener_1d"), 1e-10, 1e-12, "wiener 1-D");
        is_arg(wiener(&x, Some(&[3, 3, 3]), None), "mysize length");
        let h = golden("h2_x").to_device(&dev).unwrap();
        let z = hilbert2(&h, None, None).unwrap();
        assert_allclose(&z, &golden_c("hilbert2"), 1e-12, 1e-13, "hilbert2");
        let hf = h.astype::<f32>().unwrap();
        let z = hilbert2(&hf, None, None).unwrap();
        let e = golden_c("hilbert2").astype::<cusci_core::c32>().unwrap();
        assert_allclose(&z, &e, 1e-5, 1e-5, "hilbert2 f32");
        assert!(matches!(
            hilbert2(&x0, None, None),
            Err(Error::ShapeMismatch { .. })
        ));
        // axes (1, 0) on the transpose is the transpose; a batch axis in front
        let ht = h.t().contiguous().unwrap();
        let zt = hilbert2(&ht, None, Some([1, 0])).unwrap();
        let e = golden_c("hilbert2").t().contiguous().unwrap();
        assert_allclose(&zt, &e, 1e-12, 1e-13, "hilbert2 axes");
        let hb = h.reshape(&[1isize, 6, 8]).unwrap();
        let zb = hilbert2(&hb, None, None).unwrap();
        let e = golden_c("hilbert2").reshape(&[1isize, 6, 8]).unwrap();
        assert_allclose(&zb, &e, 1e-12, 1e-13, "hilbert2 batch");
    }
}

#[test]
fn lombscargle_and_vectorstrength_golden() {
    for dev in devices() {
        let t = golden("ls_t").to_device(&dev).unwrap();
        let y = golden("ls_y").to_device(&dev).unwrap();
        let f = golden("ls_f").to_device(&dev).unwrap();
        let w = golden("ls_w").to_device(&dev).unwrap();
        let p = lombscargle(&t, &y, &f, &LombScargleOptions::default()).unwrap();
        assert_allclose(
            &p,
            &golden("lombscargle"),
            1e-10,
            1e-12,
            &format!("ls on {dev}"),
        );
        let o = LombScargleOptions {
            normalize: LombNormalize::Normalize,
            ..Default::default()
        };
        let p = lombscargle(&t, &y, &f, &o).unwrap();
        assert_allclose(&p, &golden("lombscargle_norm"), 1e-10, 1e-12, "normalize");
        let o = LombScargleOptions {
            precenter: true,
            ..Default::default()
        };
        let p = lombscargle(&t, &y, &f, &o).unwrap();
        assert_allclose(&p, &golden("lombscargle_pre"), 1e-10, 1e-12, "precenter");
        let o = LombScargleOptions {
            floating_mean: true,
            ..Default::default()
        };
        let p = lombscargle(&t, &y, &f, &o).unwrap();
        assert_allclose(&p, &golden("lombscargle_fm"), 1e-10, 1e-12, "floating mean");
        let o = LombScargleOptions {
            weights: Some(&w),
            ..Default::default()
        };
        let p = lombscargle(&t, &y, &f, &o).unwrap();
        assert_allclose(&p, &golden("lombscargle_w"), 1e-10, 1e-12, "weights");
        let neg = w.mul_scalar(-1.0).unwrap();
        let o = LombScargleOptions {
            weights: Some(&neg),
            ..Default::default()
        };
        is_arg(lombscargle(&t, &y, &f, &o), "negative weights");
        let y5 = y.slice_axis(0, Some(0), Some(5), 1).unwrap();
        assert!(lombscargle(&t, &y5, &f, &Default::default()).is_err());
        let e = golden("vs_e").to_device(&dev).unwrap();
        let per = golden("vs_p").to_device(&dev).unwrap();
        let (s, ph) = vectorstrength(&e, &per).unwrap();
        assert_allclose(&s, &golden("vs_strength"), 1e-12, 1e-13, "strength");
        assert_allclose(&ph, &golden("vs_phase"), 1e-11, 1e-12, "phase");
        let bad = Array::from_vec(vec![1.0, 0.0], &[2], &dev).unwrap();
        is_arg(vectorstrength(&e, &bad), "period 0");
    }
}
