//! Issue 32 (task sig5) against SciPy's golden values (`complexin.npz`, `tests/golden/gen.py
//! signal_complexin`), on every device: complex input of spectrogram, stft/istft (two-sided) and
//! coherence; czt/zoom_fft of f32, f64, c32 and c64 input; dtype promotion of the IIR filters;
//! resample's `t` and `domain='freq'`; decimate with a dlti system; choose_conv_method's
//! `measure=True`.

use crate::common::{close, closec, Golden};
use cusci_core::testing::devices;
use cusci_core::{c32, c64, Array, Device, Error};
use cusci_signal::*;

fn gold() -> Golden {
    Golden::load("complexin.npz")
}

fn c32s(v: &[c64]) -> Vec<c32> {
    v.iter()
        .map(|c| c32::new(c.re as f32, c.im as f32))
        .collect()
}

fn widen(v: Vec<c32>) -> Vec<c64> {
    v.iter()
        .map(|c| c64::new(c.re as f64, c.im as f64))
        .collect()
}

fn f32s(v: Vec<f32>) -> Vec<f64> {
    v.into_iter().map(|x| x as f64).collect()
}

#[test]
fn spectrogram_complex_golden_scipy() {
    let g = gold();
    let x = g.c("x");
    for dev in devices() {
        let xa = Array::from_vec(x.clone(), &[2, 40], &dev).unwrap();
        let o = |mode| SpectrogramOptions {
            nperseg: Some(12),
            noverlap: Some(4),
            window: WindowSpec::Named(Window::Hann),
            mode,
            ..Default::default()
        };
        for (mode, key) in [
            (SpectrogramMode::Psd, "sp_psd"),
            (SpectrogramMode::Magnitude, "sp_magnitude"),
            (SpectrogramMode::Angle, "sp_angle"),
            (SpectrogramMode::Phase, "sp_phase"),
        ] {
            let (f, t, s) = spectrogram_complex::<f64>(&xa, &o(mode)).unwrap();
            close(&f.to_vec().unwrap(), &g.f("sp_f"), 1e-14, "f");
            close(&t.to_vec().unwrap(), &g.f("sp_t"), 1e-14, "t");
            let s = s.real().unwrap();
            assert_eq!(s.shape(), &g.shape(key)[..], "{key}");
            close(
                &s.to_vec().unwrap(),
                &g.f(key),
                1e-12,
                &format!("{key} {dev}"),
            );
        }
        let (_, _, s) = spectrogram_complex::<f64>(&xa, &o(SpectrogramMode::Complex)).unwrap();
        let s = s.complex().unwrap();
        closec(&s.to_vec().unwrap(), &g.c("sp_complex"), 1e-12, "complex");
        let ol = SpectrogramOptions {
            nperseg: Some(12),
            noverlap: Some(4),
            nfft: Some(14),
            detrend: Detrend::Linear,
            scaling: Scaling::Spectrum,
            ..Default::default()
        };
        let (f, _, s) = spectrogram_complex::<f64>(&xa, &ol).unwrap();
        assert_eq!(f.size(), 14);
        close(
            &s.real().unwrap().to_vec().unwrap(),
            &g.f("sp_lin"),
            1e-12,
            "linear",
        );
        // axis 0
        let xt = xa.permute(&[1, 0]).unwrap().contiguous().unwrap();
        let o0 = SpectrogramOptions {
            nperseg: Some(12),
            axis: 0,
            ..Default::default()
        };
        let (_, _, s) = spectrogram_complex::<f64>(&xt, &o0).unwrap();
        let s = s.real().unwrap();
        assert_eq!(s.shape(), &g.shape("sp_ax0")[..]);
        close(&s.to_vec().unwrap(), &g.f("sp_ax0"), 1e-12, "axis 0");
        // c32
        let x32 = Array::from_vec(c32s(&x), &[2, 40], &dev).unwrap();
        let (_, _, s) = spectrogram_complex::<f32>(&x32, &o(SpectrogramMode::Psd)).unwrap();
        close(
            &f32s(s.real().unwrap().to_vec().unwrap()),
            &g.f("sp_psd"),
            2e-5,
            "psd c32",
        );
        // the real route's errors
        let bad = SpectrogramOptions {
            nperseg: Some(12),
            noverlap: Some(12),
            ..Default::default()
        };
        assert!(matches!(
            spectrogram_complex::<f64>(&xa, &bad),
            Err(Error::InvalidArgument { .. })
        ));
    }
}

#[test]
fn stft_istft_complex_golden_scipy() {
    let g = gold();
    let x = g.c("x");
    for dev in devices() {
        let xa = Array::from_vec(x.clone(), &[2, 40], &dev).unwrap();
        let o = StftOptions {
            nperseg: Some(8),
            ..Default::default()
        };
        let (f, _, z) = stft_complex::<f64>(&xa, &o).unwrap();
        assert_eq!(f.size(), 8);
        assert_eq!(z.shape(), &g.shape("st")[..]);
        closec(
            &z.to_vec().unwrap(),
            &g.c("st"),
            1e-12,
            &format!("stft {dev}"),
        );
        let x0 = Array::from_vec(x[..40].to_vec(), &[40], &dev).unwrap();
        let oe = StftOptions {
            nperseg: Some(11),
            noverlap: Some(5),
            boundary: Some(Boundary::Even),
            padded: false,
            scaling: Scaling::Density,
            ..Default::default()
        };
        let (_, _, z2) = stft_complex::<f64>(&x0, &oe).unwrap();
        assert_eq!(z2.shape(), &g.shape("st_even")[..]);
        closec(&z2.to_vec().unwrap(), &g.c("st_even"), 1e-12, "stft even");
        // two-sided inverse: SciPy's istft(input_onesided=False)
        let (t, y) = istft_complex(&z, &IstftOptions::default()).unwrap();
        assert_eq!(y.shape(), &g.shape("ist")[..]);
        assert_eq!(t.size(), 2); // SciPy's arange(x.shape[0]) / fs: the batch axis
        closec(&y.to_vec().unwrap(), &g.c("ist"), 1e-12, "istft");
        closec(&y.to_vec().unwrap()[..40], &x[..40], 1e-12, "round trip");
        let zz = Array::from_vec(g.c("z"), &[8, 7], &dev).unwrap();
        let oi = IstftOptions {
            nperseg: Some(8),
            noverlap: Some(5),
            boundary: false,
            ..Default::default()
        };
        let (_, y) = istft_complex(&zz, &oi).unwrap();
        closec(&y.to_vec().unwrap(), &g.c("ist_z"), 1e-12, "istft z");
        // c32 both ways
        let x32 = Array::from_vec(c32s(&x), &[2, 40], &dev).unwrap();
        let (_, _, z32) = stft_complex::<f32>(&x32, &o).unwrap();
        closec(&widen(z32.to_vec().unwrap()), &g.c("st"), 2e-6, "stft c32");
        let (_, y32) = istft_complex(&z32, &IstftOptions::default()).unwrap();
        closec(
            &widen(y32.to_vec().unwrap()),
            &g.c("ist"),
            2e-6,
            "istft c32",
        );
        // errors as istft's
        let one = Array::from_vec(vec![c64::new(1.0, 0.0); 4], &[4], &dev).unwrap();
        assert!(matches!(
            istft_complex(&one, &IstftOptions::default()),
            Err(Error::InvalidArgument { .. })
        ));
        let short = IstftOptions {
            nperseg: Some(8),
            nfft: Some(6),
            ..Default::default()
        };
        assert!(matches!(
            istft_complex(&zz, &short),
            Err(Error::InvalidArgument { .. })
        ));
    }
}

#[test]
fn coherence_complex_golden_scipy() {
    let g = gold();
    let (x, y) = (g.c("x"), g.c("y"));
    for dev in devices() {
        let xa = Array::from_vec(x.clone(), &[2, 40], &dev).unwrap();
        let yb = Array::from_vec([y.clone(), y.clone()].concat(), &[2, 40], &dev).unwrap();
        let o = WelchOptions {
            nperseg: Some(12),
            ..Default::default()
        };
        let (f, c) = coherence_complex::<f64>(&xa, &yb, &o).unwrap();
        assert_eq!((f.size(), c.shape()), (12, &[2usize, 12][..]));
        close(
            &c.to_vec().unwrap(),
            &g.f("coh"),
            1e-12,
            &format!("coh {dev}"),
        );
        let x1 = Array::from_vec(x[40..].to_vec(), &[40], &dev).unwrap();
        let ya = Array::from_vec(y.clone(), &[40], &dev).unwrap();
        let oh = WelchOptions {
            nperseg: Some(15),
            window: WindowSpec::Named(Window::Hamming),
            detrend: Detrend::None,
            ..Default::default()
        };
        let (_, c) = coherence_complex::<f64>(&x1, &ya, &oh).unwrap();
        close(&c.to_vec().unwrap(), &g.f("coh_ham"), 1e-12, "coh hamming");
        let x32 = Array::from_vec(c32s(&x), &[2, 40], &dev).unwrap();
        let y32 = Array::from_vec(c32s(&[y.clone(), y.clone()].concat()), &[2, 40], &dev).unwrap();
        let (_, c) = coherence_complex::<f32>(&x32, &y32, &o).unwrap();
        close(&f32s(c.to_vec().unwrap()), &g.f("coh"), 1e-4, "coh c32");
        assert!(matches!(
            coherence_complex::<f64>(&xa, &ya, &o),
            Err(Error::ShapeMismatch { .. })
        ));
    }
}

/// welch and csd of complex data with SciPy's median average (the medians of the real and
/// imaginary parts).
#[test]
fn welch_csd_complex_median_golden_scipy() {
    let g = gold();
    let (x, y) = (g.c("x"), g.c("y"));
    for dev in devices() {
        let xa = Array::from_vec(x.clone(), &[2, 40], &dev).unwrap();
        let ya = Array::from_vec(y.clone(), &[40], &dev).unwrap();
        let yb = Array::from_vec([y.clone(), y.clone()].concat(), &[2, 40], &dev).unwrap();
        let o = WelchOptions {
            nperseg: Some(8),
            average: Average::Median,
            ..Default::default()
        };
        let (_, p) = welch_complex::<f64>(&xa, &o).unwrap();
        close(
            &p.to_vec().unwrap(),
            &g.f("med_welch"),
            1e-12,
            &format!("welch {dev}"),
        );
        let oc = WelchOptions {
            noverlap: Some(2),
            ..o.clone()
        };
        let (_, p) = csd_complex::<f64>(&xa, &yb, &oc).unwrap();
        closec(&p.to_vec().unwrap(), &g.c("med_csd"), 1e-12, "csd");
        let x32 = xa.astype::<c32>().unwrap();
        let (_, p) = welch_complex::<f32>(&x32, &o).unwrap();
        close(
            &f32s(p.to_vec().unwrap()),
            &g.f("med_welch"),
            1e-4,
            "welch c32",
        );
        assert!(matches!(
            csd_complex::<f64>(&xa, &ya, &o),
            Err(Error::ShapeMismatch { .. })
        ));
    }
}

#[test]
fn czt_zoom_fft_every_dtype_golden_scipy() {
    let g = gold();
    let r = g.f("r");
    let x = g.c("x");
    let w = c64::from_polar(1.0, -0.2);
    let a = c64::from_polar(1.1, 0.3);
    let zo = ZoomFftOptions {
        m: Some(30),
        ..Default::default()
    };
    let ze = ZoomFftOptions {
        m: Some(20),
        endpoint: true,
        ..Default::default()
    };
    for dev in devices() {
        let r64 = Array::from_vec(r.clone(), &[40], &dev).unwrap();
        let r32 = r64.astype::<f32>().unwrap();
        let x64 = Array::from_vec(x[..30].to_vec(), &[30], &dev).unwrap();
        let x32 = x64.astype::<c32>().unwrap();
        let xz = Array::from_vec(x[..40].to_vec(), &[40], &dev).unwrap();
        // f64 and c64: SciPy's values; f32 and c32: SciPy's complex128 result of the rounded input
        let y = czt(&r64, Some(15), Some(w), a, -1).unwrap();
        closec(
            &y.to_vec().unwrap(),
            &g.c("czt_r"),
            1e-12,
            &format!("czt f64 {dev}"),
        );
        let y = czt(&r32, Some(15), Some(w), a, -1).unwrap();
        closec(&y.to_vec().unwrap(), &g.c("czt_r"), 1e-6, "czt f32");
        let y = czt(&x64, None, None, c64::new(1.0, 0.0), -1).unwrap();
        closec(&y.to_vec().unwrap(), &g.c("czt_c"), 1e-12, "czt c64");
        let y = czt(&x32, None, None, c64::new(1.0, 0.0), -1).unwrap();
        closec(&y.to_vec().unwrap(), &g.c("czt_c"), 1e-6, "czt c32");
        let y = zoom_fft(&r64, (0.1, 0.6), &zo, -1).unwrap();
        closec(&y.to_vec().unwrap(), &g.c("zf_r"), 1e-12, "zoom f64");
        let y = zoom_fft(&r32, (0.1, 0.6), &zo, -1).unwrap();
        closec(&y.to_vec().unwrap(), &g.c("zf_r"), 1e-6, "zoom f32");
        let y = zoom_fft(&xz, (0.0, 0.5), &ze, -1).unwrap();
        closec(&y.to_vec().unwrap(), &g.c("zf_c"), 1e-12, "zoom c64");
        let y = ZoomFft::new(40, (0.0, 0.5), &ze)
            .unwrap()
            .apply(&xz.astype::<c32>().unwrap(), 0)
            .unwrap();
        closec(&y.to_vec().unwrap(), &g.c("zf_c"), 1e-6, "zoom c32");
        // f32 data is exactly the f32-rounded values: equal to the f64 route of those values
        let rr = r32.astype::<f64>().unwrap();
        let (y1, y2) = (
            czt(&r32, Some(15), Some(w), a, 0)
                .unwrap()
                .to_vec()
                .unwrap(),
            czt(&rr, Some(15), Some(w), a, 0).unwrap().to_vec().unwrap(),
        );
        assert_eq!(y1, y2, "f32 input = its f64 value");
    }
}

fn f32_arr(g: &Golden, name: &str, dev: &Device) -> Array<f32> {
    let a = g.0[name].as_array::<f32>().unwrap();
    Array::from_vec(a.to_vec().unwrap(), a.shape(), dev).unwrap()
}

#[test]
fn iir_dtype_promotion_golden_scipy() {
    let g = gold();
    for dev in devices() {
        let b = f32_arr(&g, "lf_b", &dev);
        let a = f32_arr(&g, "lf_a", &dev);
        let sos = f32_arr(&g, "sos32", &dev);
        let x = Array::from_vec(g.f("lf_x"), &[3, 50], &dev).unwrap();
        // f32 coefficients, f64 data: SciPy's float64 result
        let y: Array<f64> = lfilter_promote(&b, &a, &x, &FilterOptions::default())
            .unwrap()
            .y;
        close(
            &y.to_vec().unwrap(),
            &g.f("lf_y"),
            1e-12,
            &format!("lfilter {dev}"),
        );
        let y: Array<f64> = sosfilt_promote(&sos, &x, &FilterOptions::default())
            .unwrap()
            .y;
        close(&y.to_vec().unwrap(), &g.f("sos_y"), 1e-12, "sosfilt");
        // SciPy solves for the edge states in the coefficients' precision (lfilter_zi and
        // sosfilt_zi of float32 coefficients are float32), then filters in float64; here the
        // states are solved in float64: SciPy's values to the f32 rounding of those states
        let y: Array<f64> = filtfilt_promote(&b, &a, &x, &FiltfiltOptions::default()).unwrap();
        close(&y.to_vec().unwrap(), &g.f("ff_y"), 1e-6, "filtfilt");
        let want = filtfilt(
            &b.astype::<f64>().unwrap(),
            &a.astype::<f64>().unwrap(),
            &x,
            &FiltfiltOptions::default(),
        )
        .unwrap();
        assert_eq!(y.to_vec().unwrap(), want.to_vec().unwrap());
        let y: Array<f64> = sosfiltfilt_promote(&sos, &x, &FiltfiltOptions::default()).unwrap();
        close(&y.to_vec().unwrap(), &g.f("sff_y"), 1e-6, "sosfiltfilt");
        let want = sosfiltfilt(
            &sos.astype::<f64>().unwrap(),
            &x,
            &FiltfiltOptions::default(),
        )
        .unwrap();
        assert_eq!(y.to_vec().unwrap(), want.to_vec().unwrap());
        // f64 coefficients, f32 data: f64 as SciPy (the data widened exactly)
        let b64 = b.astype::<f64>().unwrap();
        let a64 = a.astype::<f64>().unwrap();
        let x32 = x.astype::<f32>().unwrap();
        let y: Array<f64> = lfilter_promote(&b64, &a64, &x32, &FilterOptions::default())
            .unwrap()
            .y;
        let want = lfilter(
            &b64,
            &a64,
            &x32.astype::<f64>().unwrap(),
            &FilterOptions::default(),
        )
        .unwrap()
        .y;
        assert_eq!(
            y.to_vec().unwrap(),
            want.to_vec().unwrap(),
            "f64 coef, f32 data"
        );
        // real coefficients, complex data (c32 with f64 -> c64), and zi of the promoted type
        let xc = x.astype::<c32>().unwrap();
        let zi = Array::from_vec(vec![c64::new(0.5, -0.5); 9], &[3, 3], &dev).unwrap();
        let yc = lfilter_promote(
            &b64,
            &a64,
            &xc,
            &FilterOptions {
                axis: -1,
                zi: Some(&zi),
            },
        )
        .unwrap();
        assert!(yc.zf.is_some());
        let yc: Array<c64> = yc.y;
        let re = lfilter(
            &b64,
            &a64,
            &x32.astype::<f64>().unwrap(),
            &FilterOptions {
                axis: -1,
                zi: Some(&zi.real().unwrap()),
            },
        )
        .unwrap()
        .y;
        let got: Vec<f64> = yc.to_vec().unwrap().iter().map(|c| c.re).collect();
        close(
            &got,
            &re.to_vec().unwrap(),
            1e-13,
            "complex promotion real part",
        );
        // same types: the plain function's result
        let y: Array<f32> = lfilter_promote(&b, &a, &x32, &FilterOptions::default())
            .unwrap()
            .y;
        let want = lfilter(&b, &a, &x32, &FilterOptions::default()).unwrap().y;
        assert_eq!(y.to_vec().unwrap(), want.to_vec().unwrap());
    }
}

#[test]
fn resample_t_and_freq_domain_golden_scipy() {
    let g = gold();
    let r = g.f("r");
    let x = g.c("x");
    for dev in devices() {
        let ra = Array::from_vec(r.clone(), &[40], &dev).unwrap();
        let t: Vec<f64> = (0..40).map(|k| 0.5 + 0.1 * k as f64).collect();
        let ta = Array::from_vec(t, &[40], &dev).unwrap();
        let (y, tr) = resample_t(&ra, 25, &ta, &ResampleOptions::default()).unwrap();
        close(&tr.to_vec().unwrap(), &g.f("rs_t"), 1e-14, "t");
        let want = resample(&ra, 25, &ResampleOptions::default()).unwrap();
        assert_eq!(y.to_vec().unwrap(), want.to_vec().unwrap());
        let one = Array::from_vec(vec![0.0], &[1], &dev).unwrap();
        assert!(matches!(
            resample_t(&ra, 25, &one, &ResampleOptions::default()),
            Err(Error::InvalidArgument { .. })
        ));
        // domain='freq': a real spectrum, the spectrum of r (down), of x[0] (up)
        let y = resample_freq(&ra, 30, &ResampleOptions::default()).unwrap();
        closec(
            &y.to_vec().unwrap(),
            &g.c("rs_freq_real"),
            1e-12,
            &format!("freq real {dev}"),
        );
        let fr = cusci_fft::fft(&ra, &Default::default()).unwrap();
        let y = resample_freq(&fr, 25, &ResampleOptions::default()).unwrap();
        closec(&y.to_vec().unwrap(), &g.c("rs_freq"), 1e-12, "freq down");
        let x0 = Array::from_vec(x[..40].to_vec(), &[40], &dev).unwrap();
        let fx = cusci_fft::fft(&x0, &Default::default()).unwrap();
        let y = resample_freq(&fx, 60, &ResampleOptions::default()).unwrap();
        closec(&y.to_vec().unwrap(), &g.c("rs_freq_up"), 1e-12, "freq up");
        let y = resample_freq(
            &fx.astype::<c32>().unwrap(),
            60,
            &ResampleOptions::default(),
        )
        .unwrap();
        closec(
            &widen(y.to_vec().unwrap()),
            &g.c("rs_freq_up"),
            1e-5,
            "freq up c32",
        );
        assert!(matches!(
            resample_freq(&fx, 0, &ResampleOptions::default()),
            Err(Error::InvalidArgument { .. })
        ));
    }
}

#[test]
fn decimate_dlti_golden_scipy() {
    let g = gold();
    // butter(4, 0.25): complex poles, SciPy's ba path
    let bb = [
        0.010209480791203138,
        0.04083792316481255,
        0.061256884747218826,
        0.04083792316481255,
        0.010209480791203138,
    ];
    let ab = [
        1.0,
        -1.9684277869385185,
        1.7358607092088867,
        -0.7244708295073626,
        0.12038959989624451,
    ];
    let sys_c = Lti::dtf(&bb, &ab, 1.0).unwrap();
    // real poles 0.5 and -0.3: the sos path
    let sys_r = Lti::dtf(&[0.3, 0.2], &[1.0, -0.2, -0.15], 1.0).unwrap();
    let taps = firwin(21, &[0.3], &Default::default()).unwrap();
    let sys_f = Lti::dtf(&taps, &[1.0], 1.0).unwrap();
    for dev in devices() {
        let x = Array::from_vec(g.f("lf_x"), &[3, 50], &dev).unwrap();
        for (name, sys) in [("c", &sys_c), ("r", &sys_r), ("f", &sys_f)] {
            for zp in [true, false] {
                let o = DecimateOptions {
                    zero_phase: zp,
                    ..Default::default()
                };
                let y = decimate_dlti(&x, 3, sys, &o).unwrap();
                let key = format!("dec_{name}_{}", zp as u8);
                assert_eq!(y.shape(), &g.shape(&key)[..], "{key}");
                close(
                    &y.to_vec().unwrap(),
                    &g.f(&key),
                    1e-9,
                    &format!("{key} {dev}"),
                );
            }
        }
        let cont = Lti::tf(&[1.0], &[1.0, 1.0]).unwrap();
        assert!(matches!(
            decimate_dlti(&x, 3, &cont, &DecimateOptions::default()),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            decimate_dlti(&x, 0, &sys_r, &DecimateOptions::default()),
            Err(Error::InvalidArgument { .. })
        ));
    }
}

#[test]
fn choose_conv_method_measure_times_both() {
    for dev in devices() {
        let a = Array::from_vec(vec![1.0f64; 200], &[200], &dev).unwrap();
        let k = Array::from_vec(vec![0.5f64; 7], &[7], &dev).unwrap();
        let t = choose_conv_method_measure(&a, &k, ConvMode::Same).unwrap();
        assert!(t.direct > 0.0 && t.fft > 0.0, "{t:?}");
        let faster = if t.fft < t.direct {
            ConvMethod::Fft
        } else {
            ConvMethod::Direct
        };
        assert_eq!(t.method, faster);
        // the rule's errors
        let k2 = Array::from_vec(vec![0.5f64; 4], &[2, 2], &dev).unwrap();
        assert!(matches!(
            choose_conv_method_measure(&a, &k2, ConvMode::Full),
            Err(Error::ShapeMismatch { .. })
        ));
    }
}

#[test]
fn convolution_dtype_promotion_golden_scipy() {
    let g = gold();
    for dev in devices() {
        let a = f32_arr(&g, "cv_a", &dev);
        let b = Array::from_vec(g.f("cv_b"), &[3, 3], &dev).unwrap();
        let chk = |y: Array<f64>, key: &str| {
            assert_eq!(y.shape(), &g.shape(key)[..], "{key}");
            close(
                &y.to_vec().unwrap(),
                &g.f(key),
                1e-12,
                &format!("{key} {dev}"),
            );
        };
        chk(
            convolve_promote(&a, &b, &ConvOptions::default()).unwrap(),
            "cv_conv",
        );
        let same = ConvOptions {
            mode: ConvMode::Same,
            ..Default::default()
        };
        chk(correlate_promote(&a, &b, &same).unwrap(), "cv_corr");
        // SciPy transforms a float32 operand in single precision (scipy.fft keeps float32), so
        // its FFT routes carry f32 rounding; here both operands are transformed in f64
        let a64 = a.astype::<f64>().unwrap();
        let y = fftconvolve_promote(&a, &b, ConvMode::Valid).unwrap();
        close(&y.to_vec().unwrap(), &g.f("cv_fft"), 1e-6, "cv_fft");
        let want = fftconvolve(&a64, &b, ConvMode::Valid).unwrap();
        assert_eq!(y.to_vec().unwrap(), want.to_vec().unwrap());
        let y = oaconvolve_promote(&a, &b, ConvMode::Full, None).unwrap();
        close(&y.to_vec().unwrap(), &g.f("cv_oa"), 1e-6, "cv_oa");
        let want = oaconvolve(&a64, &b, ConvMode::Full, None).unwrap();
        assert_eq!(y.to_vec().unwrap(), want.to_vec().unwrap());
        let wrap = Conv2dOptions {
            boundary: ConvBoundary::Wrap,
            ..Default::default()
        };
        chk(convolve2d_promote(&a, &b, &wrap).unwrap(), "cv_2d");
        let same2 = Conv2dOptions {
            mode: ConvMode::Same,
            ..Default::default()
        };
        chk(correlate2d_promote(&a, &b, &same2).unwrap(), "cv_c2d");
        let h = b
            .slice_axis(0, Some(0), Some(1), 1)
            .unwrap()
            .reshape(&[3])
            .unwrap();
        let x = a
            .slice_axis(0, Some(0), Some(1), 1)
            .unwrap()
            .reshape(&[9])
            .unwrap();
        chk(
            upfirdn_promote(&h, &x, 2, 3, &UpfirdnOptions::default()).unwrap(),
            "cv_up",
        );
        // complex128 with float32: complex128
        let av = g.0["cv_a"].as_array::<f32>().unwrap().to_vec().unwrap();
        let cz: Vec<c64> = (0..9)
            .map(|i| c64::new(av[i] as f64, av[9 + i] as f64))
            .collect();
        let cz = Array::from_vec(cz, &[9], &dev).unwrap();
        let k = Array::from_vec(av[18..27].to_vec(), &[9], &dev).unwrap();
        let y: Array<c64> = convolve_promote(&cz, &k, &ConvOptions::default()).unwrap();
        closec(
            &y.to_vec().unwrap(),
            &g.c("cv_cz"),
            1e-12,
            "complex with f32",
        );
    }
}

/// Two behaviours of SciPy's istft kept on every device: the times count the first axis of the
/// output (for a batch, not the time axis), and nperseg = 1 with the boundary gives an empty
/// signal (SciPy's cut `[0:-0]`).
#[test]
fn istft_scipy_times_and_nperseg_one() {
    for dev in devices() {
        let z: Vec<c64> = (0..24).map(|i| c64::new(i as f64, 1.0)).collect();
        let z = Array::from_vec(z, &[2, 4, 3], &dev).unwrap();
        let (t, x) = istft_complex(&z, &IstftOptions::default()).unwrap();
        assert_eq!((t.shape(), x.shape()), (&[2usize][..], &[2usize, 4][..]));
        let z0 = z
            .slice_axis(0, Some(0), Some(1), 1)
            .unwrap()
            .reshape(&[4, 3])
            .unwrap();
        let o1 = IstftOptions {
            nperseg: Some(1),
            ..Default::default()
        };
        let (t, x) = istft_complex(&z0, &o1).unwrap();
        assert_eq!((t.size(), x.size()), (0, 0));
        let (t, x) = istft(&z0, &o1).unwrap();
        assert_eq!((t.size(), x.size()), (0, 0));
    }
}
