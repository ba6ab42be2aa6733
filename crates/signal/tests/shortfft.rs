//! ShortTimeFFT and closest_STFT_dual_window against SciPy (golden `shortfft.npz`, written by
//! `tests/golden/gen.py signal_shortfft`) on every device, round trips istft(stft(x)) = x,
//! f32 on the GPU against the CPU, and the typed errors of bad input.

use cusci_core::npy::load_npz_array;
use cusci_core::testing::{assert_slices_close, devices, randn};
use cusci_core::{c64, Array, Device, Error};
use cusci_signal::*;

const NPZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/shortfft.npz");

fn g(name: &str) -> Array<f64> {
    load_npz_array::<f64>(NPZ, name, &Device::Cpu).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn gv(name: &str) -> Vec<f64> {
    g(name).to_vec().unwrap()
}

fn gc(name: &str, dev: &Device) -> Array<c64> {
    let re = g(&format!("{name}_re"));
    let im = gv(&format!("{name}_im"));
    let v: Vec<c64> = re
        .to_vec()
        .unwrap()
        .iter()
        .zip(&im)
        .map(|(a, b)| c64::new(*a, *b))
        .collect();
    Array::from_vec(v, re.shape(), dev).unwrap()
}

fn close(a: &[f64], e: &[f64], what: &str) {
    assert_eq!(a.len(), e.len(), "{what}: length");
    assert_slices_close(a, e, &[a.len()], 1e-9, 1e-11, what);
}

fn close_c(a: &Array<c64>, key: &str, what: &str) {
    let e = gc(key, &Device::Cpu);
    assert_eq!(a.shape(), e.shape(), "{what}: shape");
    let (av, ev) = (a.to_vec().unwrap(), e.to_vec().unwrap());
    let re = |v: &[c64]| v.iter().map(|z| z.re).collect::<Vec<_>>();
    let im = |v: &[c64]| v.iter().map(|z| z.im).collect::<Vec<_>>();
    close(&re(&av), &re(&ev), &format!("{what} re"));
    close(&im(&av), &im(&ev), &format!("{what} im"));
}

struct Case {
    name: &'static str,
    hop: usize,
    fs: f64,
    opts: ShortTimeFftOptions,
    args: StftArgs,
    detr: Detrend,
    complex_win: bool,
    complex_x: bool,
    istft: bool,
}

fn cases() -> Vec<Case> {
    let d = ShortTimeFftOptions::default;
    vec![
        Case {
            name: "a",
            hop: 4,
            fs: 10.0,
            opts: d(),
            args: StftArgs::default(),
            detr: Detrend::None,
            complex_win: false,
            complex_x: false,
            istft: true,
        },
        Case {
            name: "b",
            hop: 5,
            fs: 2.0,
            opts: ShortTimeFftOptions {
                mfft: Some(32),
                fft_mode: FftMode::Centered,
                scale_to: Some(StftScaling::Magnitude),
                phase_shift: Some(3),
            },
            args: StftArgs {
                padding: StftPadding::Even,
                ..Default::default()
            },
            detr: Detrend::None,
            complex_win: false,
            complex_x: true,
            istft: true,
        },
        Case {
            name: "c",
            hop: 7,
            fs: 1.0,
            opts: ShortTimeFftOptions {
                fft_mode: FftMode::OneSided2X,
                scale_to: Some(StftScaling::Psd),
                ..d()
            },
            args: StftArgs {
                padding: StftPadding::Odd,
                axis: 0,
                ..Default::default()
            },
            detr: Detrend::Linear,
            complex_win: false,
            complex_x: false,
            istft: false,
        },
        Case {
            name: "d",
            hop: 3,
            fs: 4.0,
            opts: ShortTimeFftOptions {
                mfft: Some(24),
                fft_mode: FftMode::TwoSided,
                phase_shift: None,
                ..d()
            },
            args: StftArgs {
                padding: StftPadding::Edge,
                k_offset: 5,
                ..Default::default()
            },
            detr: Detrend::Constant,
            complex_win: false,
            complex_x: false,
            istft: false,
        },
        Case {
            name: "e",
            hop: 2,
            fs: 1.0,
            opts: ShortTimeFftOptions {
                fft_mode: FftMode::TwoSided,
                ..d()
            },
            args: StftArgs::default(),
            detr: Detrend::None,
            complex_win: true,
            complex_x: true,
            istft: true,
        },
        Case {
            name: "f",
            hop: 4,
            fs: 1.0,
            opts: ShortTimeFftOptions {
                fft_mode: FftMode::OneSided2X,
                scale_to: Some(StftScaling::Magnitude),
                phase_shift: Some(-5),
                ..d()
            },
            args: StftArgs {
                padding: StftPadding::Odd,
                ..Default::default()
            },
            detr: Detrend::None,
            complex_win: false,
            complex_x: false,
            istft: true,
        },
        Case {
            name: "g",
            hop: 4,
            fs: 1.0,
            opts: ShortTimeFftOptions {
                mfft: Some(20),
                ..d()
            },
            args: StftArgs {
                padding: StftPadding::Even,
                p0: Some(-1),
                p1: Some(4),
                ..Default::default()
            },
            detr: Detrend::Linear,
            complex_win: false,
            complex_x: false,
            istft: false,
        },
    ]
}

fn make(c: &Case) -> ShortTimeFft {
    if c.complex_win {
        let w = gc(&format!("{}_win", c.name), &Device::Cpu)
            .to_vec()
            .unwrap();
        ShortTimeFft::new_complex(&w, c.hop, c.fs, &c.opts).unwrap()
    } else {
        ShortTimeFft::new(&gv(&format!("{}_win", c.name)), c.hop, c.fs, &c.opts).unwrap()
    }
}

#[test]
fn properties_match_scipy() {
    for c in cases() {
        let s = make(&c);
        let x = g(&format!(
            "{}_x{}",
            c.name,
            if c.complex_x { "_re" } else { "" }
        ));
        let ax = if c.args.axis < 0 {
            x.ndim() - 1
        } else {
            c.args.axis as usize
        };
        let n = x.shape()[ax];
        let p = load_npz_array::<i64>(NPZ, &format!("{}_props", c.name), &Device::Cpu)
            .unwrap()
            .to_vec()
            .unwrap();
        let (lbe, ubb) = (s.lower_border_end(), s.upper_border_begin(n).unwrap());
        let got = vec![
            s.p_min(),
            s.p_max(n).unwrap(),
            s.k_min(),
            s.k_max(n).unwrap(),
            lbe.0,
            lbe.1,
            ubb.0,
            ubb.1,
            s.p_num(n).unwrap() as i64,
            s.f_pts() as i64,
        ];
        assert_eq!(got, p, "case {} properties", c.name);
        close(
            &s.f(),
            &gv(&format!("{}_f", c.name)),
            &format!("{} f", c.name),
        );
        let t = s.t(n, c.args.p0, c.args.p1, c.args.k_offset).unwrap();
        close(&t, &gv(&format!("{}_t", c.name)), &format!("{} t", c.name));
        let dual = s.dual_win().unwrap();
        if c.complex_win {
            let e = gc(&format!("{}_dual", c.name), &Device::Cpu)
                .to_vec()
                .unwrap();
            let re: Vec<f64> = dual.iter().map(|z| z.re).collect();
            let im: Vec<f64> = dual.iter().map(|z| z.im).collect();
            close(&re, &e.iter().map(|z| z.re).collect::<Vec<_>>(), "dual re");
            close(&im, &e.iter().map(|z| z.im).collect::<Vec<_>>(), "dual im");
        } else {
            let re: Vec<f64> = dual.iter().map(|z| z.re).collect();
            close(
                &re,
                &gv(&format!("{}_dual", c.name)),
                &format!("{} dual", c.name),
            );
        }
        assert!(s.invertible());
    }
}

#[test]
fn stft_spectrogram_istft_match_scipy() {
    for dev in devices() {
        for c in cases() {
            let s = make(&c);
            let what = format!("case {} on {dev}", c.name);
            let (sx, spec) = if c.complex_x {
                let x = gc(&format!("{}_x", c.name), &dev);
                (
                    s.stft_detrend(&x, c.detr, &c.args).unwrap(),
                    s.spectrogram(&x, c.detr, &c.args).unwrap(),
                )
            } else {
                let x = load_npz_array::<f64>(NPZ, &format!("{}_x", c.name), &dev).unwrap();
                (
                    s.stft_detrend(&x, c.detr, &c.args).unwrap(),
                    s.spectrogram(&x, c.detr, &c.args).unwrap(),
                )
            };
            close_c(&sx, &format!("{}_S", c.name), &format!("{what} stft"));
            let es = g(&format!("{}_spec", c.name));
            assert_eq!(spec.shape(), es.shape(), "{what} spectrogram shape");
            close(
                &spec.to_vec().unwrap(),
                &es.to_vec().unwrap(),
                &format!("{what} spectrogram"),
            );
            if c.istft {
                // istft of SciPy's own S
                let sg = gc(&format!("{}_S", c.name), &dev);
                let xs = g(&format!(
                    "{}_x{}",
                    c.name,
                    if c.complex_x { "_re" } else { "" }
                ));
                let n = *xs.shape().last().unwrap();
                let y = s
                    .istft(
                        &sg,
                        &IstftArgs {
                            k1: Some(n as i64),
                            ..Default::default()
                        },
                    )
                    .unwrap();
                match y {
                    StftSignal::Real(a) => {
                        let e = g(&format!("{}_istft", c.name));
                        assert_eq!(a.shape(), e.shape(), "{what} istft shape");
                        close(
                            &a.to_vec().unwrap(),
                            &e.to_vec().unwrap(),
                            &format!("{what} istft"),
                        );
                    }
                    StftSignal::Complex(a) => {
                        close_c(&a, &format!("{}_istft", c.name), &format!("{what} istft"))
                    }
                }
            }
        }
    }
}

#[test]
fn round_trip_and_axes() {
    for dev in devices() {
        // real, one-sided, axis 1 of a 3-D batch, zero-padded FFT
        let sft = ShortTimeFft::from_window(
            &Window::Hann,
            100.0,
            16,
            12,
            false,
            &ShortTimeFftOptions {
                mfft: Some(21),
                phase_shift: Some(2),
                ..Default::default()
            },
        )
        .unwrap();
        let x = randn::<f64>(&[2, 37, 3], 5, &dev).unwrap();
        let args = StftArgs {
            axis: 1,
            ..Default::default()
        };
        let s = sft.stft(&x, &args).unwrap();
        let pn = sft.p_num(37).unwrap();
        assert_eq!(s.shape(), &[2, sft.f_pts(), 3, pn]);
        let y = sft
            .istft(
                &s,
                &IstftArgs {
                    k1: Some(37),
                    f_axis: 1,
                    t_axis: -1,
                    ..Default::default()
                },
            )
            .unwrap()
            .real()
            .unwrap();
        assert_eq!(y.shape(), x.shape());
        close(
            &y.to_vec().unwrap(),
            &x.to_vec().unwrap(),
            &format!("round trip on {dev}"),
        );
        // complex, centered, k0 > 0
        let win = Window::Hamming.values(10, true).unwrap();
        let sft = ShortTimeFft::new(
            &win,
            3,
            1.0,
            &ShortTimeFftOptions {
                fft_mode: FftMode::Centered,
                ..Default::default()
            },
        )
        .unwrap();
        let xr = randn::<f64>(&[41], 6, &Device::Cpu)
            .unwrap()
            .to_vec()
            .unwrap();
        let xc: Vec<c64> = xr
            .iter()
            .enumerate()
            .map(|(i, v)| c64::new(*v, (i as f64 * 0.7).sin()))
            .collect();
        let x = Array::from_vec(xc.clone(), &[41], &dev).unwrap();
        let s = sft.stft(&x, &StftArgs::default()).unwrap();
        let y = sft
            .istft(
                &s,
                &IstftArgs {
                    k0: 4,
                    k1: Some(41),
                    ..Default::default()
                },
            )
            .unwrap()
            .complex()
            .unwrap()
            .to_vec()
            .unwrap();
        assert_eq!(y.len(), 37);
        for (a, b) in y.iter().zip(&xc[4..]) {
            assert!((a - b).norm() < 1e-12, "complex round trip on {dev}");
        }
    }
}

#[test]
fn gpu_f32_matches_cpu() {
    let devs = devices();
    let Some(gpu) = devs.iter().find(|d| !matches!(d, Device::Cpu)) else {
        return;
    };
    let sft = ShortTimeFft::from_window(
        &Window::Blackman,
        1.0,
        64,
        48,
        false,
        &ShortTimeFftOptions {
            fft_mode: FftMode::OneSided2X,
            scale_to: Some(StftScaling::Psd),
            ..Default::default()
        },
    )
    .unwrap();
    let xc = randn::<f32>(&[8, 1000], 9, &Device::Cpu).unwrap();
    let xg = xc.to_device(gpu).unwrap();
    for pad in [StftPadding::Zeros, StftPadding::Odd] {
        let a = StftArgs {
            padding: pad,
            ..Default::default()
        };
        let sc = sft.stft_detrend(&xc, Detrend::Linear, &a).unwrap();
        let sg = sft.stft_detrend(&xg, Detrend::Linear, &a).unwrap();
        let (vc, vg) = (
            sc.to_vec().unwrap(),
            sg.to_device(&Device::Cpu).unwrap().to_vec().unwrap(),
        );
        let mx = vc.iter().map(|z| z.norm()).fold(0.0f32, f32::max);
        for (p, q) in vc.iter().zip(&vg) {
            assert!((p - q).norm() <= 1e-4 * mx, "f32 stft gpu vs cpu");
        }
        let yc = sft
            .istft(&sc, &IstftArgs::default())
            .unwrap()
            .real()
            .unwrap();
        let yg = sft
            .istft(&sg, &IstftArgs::default())
            .unwrap()
            .real()
            .unwrap();
        let (yc, yg) = (
            yc.to_vec().unwrap(),
            yg.to_device(&Device::Cpu).unwrap().to_vec().unwrap(),
        );
        for (p, q) in yc.iter().zip(&yg) {
            assert!((p - q).abs() <= 1e-4, "f32 istft gpu vs cpu");
        }
    }
}

#[test]
fn closest_dual_matches_scipy() {
    for i in 0..4 {
        let win = gv(&format!("cd_{i}_win"));
        let des = gv(&format!("cd_{i}_des"));
        let hop = [6, 3, 3, 5][i];
        let scaled = i != 1;
        let (d, a) = closest_stft_dual_window(&win, hop, Some(&des), scaled).unwrap();
        close(
            &d,
            &gv(&format!("cd_{i}_dual")),
            &format!("closest dual {i}"),
        );
        close(&[a], &gv(&format!("cd_{i}_alpha")), &format!("alpha {i}"));
    }
    // the desired dual defaults to the rectangular window
    let win = gv("cd_0_win");
    let (d, a) = closest_stft_dual_window(&win, 6, None, true).unwrap();
    close(&d, &gv("cd_0_dual"), "closest dual default");
    close(&[a], &gv("cd_0_alpha"), "alpha default");
}

fn is_arg<T: std::fmt::Debug>(r: Result<T, Error>) -> bool {
    matches!(r, Err(Error::InvalidArgument { .. }))
}

#[test]
fn bad_input_gives_typed_errors() {
    let o = ShortTimeFftOptions::default;
    let w = Window::Hann.values(8, false).unwrap();
    assert!(is_arg(ShortTimeFft::new(&[], 1, 1.0, &o())));
    assert!(is_arg(ShortTimeFft::new(&w, 0, 1.0, &o())));
    assert!(is_arg(ShortTimeFft::new(&w, 2, 0.0, &o())));
    assert!(is_arg(ShortTimeFft::new(&[1.0, f64::NAN], 1, 1.0, &o())));
    assert!(is_arg(ShortTimeFft::new(
        &w,
        2,
        1.0,
        &ShortTimeFftOptions {
            mfft: Some(4),
            ..o()
        }
    )));
    assert!(is_arg(ShortTimeFft::new(
        &w,
        2,
        1.0,
        &ShortTimeFftOptions {
            fft_mode: FftMode::OneSided2X,
            ..o()
        }
    )));
    assert!(is_arg(ShortTimeFft::new(
        &w,
        2,
        1.0,
        &ShortTimeFftOptions {
            phase_shift: Some(8),
            ..o()
        }
    )));
    let cw = vec![c64::new(1.0, 1.0); 4];
    assert!(is_arg(ShortTimeFft::new_complex(&cw, 1, 1.0, &o())));
    assert!(is_arg(ShortTimeFft::with_dual(&w, &w[..4], 2, 1.0, &o())));
    // not invertible: hop longer than the window
    let s = ShortTimeFft::new(&w, 9, 1.0, &o()).unwrap();
    assert!(!s.invertible());
    assert!(is_arg(closest_stft_dual_window(&w, 0, None, true)));
    assert!(is_arg(closest_stft_dual_window(&w, 2, Some(&w[..3]), true)));
    let s = ShortTimeFft::new(&w, 2, 1.0, &o()).unwrap();
    for dev in devices() {
        // too short, complex input to a one-sided transform, bad slice range, bad axis
        let x = Array::<f64>::zeros(&[3], &dev).unwrap();
        assert!(is_arg(s.stft(&x, &StftArgs::default())));
        let xc = Array::<c64>::zeros(&[20], &dev).unwrap();
        assert!(is_arg(s.stft(&xc, &StftArgs::default())));
        let x = Array::<f64>::zeros(&[20], &dev).unwrap();
        let bad = StftArgs {
            p0: Some(3),
            p1: Some(3),
            ..Default::default()
        };
        assert!(is_arg(s.stft(&x, &bad)));
        let bad = StftArgs {
            axis: 1,
            ..Default::default()
        };
        assert!(is_arg(s.stft(&x, &bad)));
        let sx = s.stft(&x, &StftArgs::default()).unwrap();
        let same = IstftArgs {
            f_axis: 0,
            t_axis: 0,
            ..Default::default()
        };
        assert!(is_arg(s.istft(&sx, &same)));
        let far = IstftArgs {
            k1: Some(1000),
            ..Default::default()
        };
        assert!(is_arg(s.istft(&sx, &far)));
    }
}

#[test]
fn kernels_compile() {
    crate::processing_kernels_compile::compile_named(&["signal_shortfft", "signal_envelope"]);
}
