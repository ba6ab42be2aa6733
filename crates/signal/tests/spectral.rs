//! Spectral analysis against SciPy (golden `spectral.npz`, f64 on every device), f32 on the GPU
//! against the CPU, batching along other axes, and the typed errors of bad input on every device.

use cusci_core::npy::load_npz_array;
use cusci_core::testing::{assert_slices_close, devices, randn};
use cusci_core::{c64, Array, Device, Error};
use cusci_signal::*;

const NPZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/spectral.npz");

fn g(name: &str, dev: &Device) -> Array<f64> {
    load_npz_array::<f64>(NPZ, name, dev).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn close(a: &Array<f64>, key: &str, d: &Device) {
    let e = g(key, &Device::Cpu);
    assert_eq!(a.shape(), e.shape(), "{key} on {d}: shape");
    assert_slices_close(
        &a.to_vec().unwrap(),
        &e.to_vec().unwrap(),
        a.shape(),
        1e-9,
        1e-12,
        &format!("{key} on {d}"),
    );
}

fn close_c(a: &Array<c64>, key: &str, d: &Device) {
    let v = a.to_vec().unwrap();
    let re: Vec<f64> = v.iter().map(|z| z.re).collect();
    let im: Vec<f64> = v.iter().map(|z| z.im).collect();
    for (part, vals) in [("re", re), ("im", im)] {
        let e = g(&format!("{key}_{part}"), &Device::Cpu);
        assert_eq!(a.shape(), e.shape(), "{key} on {d}: shape");
        assert_slices_close(
            &vals,
            &e.to_vec().unwrap(),
            a.shape(),
            1e-9,
            1e-12,
            &format!("{key}_{part} on {d}"),
        );
    }
}

fn named(n: &str) -> WindowSpec {
    WindowSpec::Named(Window::from_name(n).unwrap())
}

fn welch_cases() -> Vec<(&'static str, WelchOptions)> {
    let n = |v| Some(v);
    vec![
        (
            "default64",
            WelchOptions {
                nperseg: n(64),
                ..Default::default()
            },
        ),
        (
            "lin_spec",
            WelchOptions {
                nperseg: n(50),
                noverlap: n(10),
                nfft: n(64),
                window: named("hamming"),
                detrend: Detrend::Linear,
                scaling: Scaling::Spectrum,
                ..Default::default()
            },
        ),
        (
            "nodetrend_odd",
            WelchOptions {
                nperseg: n(33),
                detrend: Detrend::None,
                window: WindowSpec::Named(Window::Kaiser(6.0)),
                ..Default::default()
            },
        ),
        (
            "median",
            WelchOptions {
                nperseg: n(40),
                average: Average::Median,
                ..Default::default()
            },
        ),
        (
            "median_even",
            WelchOptions {
                nperseg: n(60),
                noverlap: n(0),
                average: Average::Median,
                ..Default::default()
            },
        ),
        (
            "twosided",
            WelchOptions {
                nperseg: n(32),
                return_onesided: false,
                ..Default::default()
            },
        ),
        (
            "fs",
            WelchOptions {
                nperseg: n(64),
                fs: 1000.0,
                ..Default::default()
            },
        ),
        (
            "long",
            WelchOptions {
                nperseg: n(512),
                ..Default::default()
            },
        ),
        (
            "array_win",
            WelchOptions {
                window: WindowSpec::Values((0..20).map(|i| 0.1 + 0.9 * i as f64 / 19.0).collect()),
                ..Default::default()
            },
        ),
    ]
}

#[test]
fn welch_matches_scipy() {
    for d in devices() {
        let x = g("x", &d);
        for (name, o) in welch_cases() {
            let (f, p) = welch(&x, &o).unwrap_or_else(|e| panic!("{name}: {e}"));
            close(&p, &format!("welch_{name}"), &d);
            close(&f, &format!("welch_{name}_f"), &d);
        }
        let xt = x.t().contiguous().unwrap();
        let (_, p) = welch(
            &xt,
            &WelchOptions {
                nperseg: Some(64),
                axis: 0,
                ..Default::default()
            },
        )
        .unwrap();
        close(&p, "welch_ax0", &d);
    }
}

#[test]
fn csd_coherence_periodogram_match_scipy() {
    for d in devices() {
        let (x, y) = (g("x", &d), g("y", &d));
        for (name, o) in welch_cases() {
            if ["default64", "median", "twosided", "lin_spec"].contains(&name) {
                let (_, p) = csd(&x, &y, &o).unwrap();
                close_c(&p, &format!("csd_{name}"), &d);
            }
        }
        let (_, c) = coherence(
            &x,
            &y,
            &WelchOptions {
                nperseg: Some(64),
                ..Default::default()
            },
        )
        .unwrap();
        close(&c, "coh_default64", &d);
        let cases: Vec<(&str, Option<WindowSpec>, WelchOptions)> = vec![
            ("default", None, WelchOptions::default()),
            (
                "nfft200",
                None,
                WelchOptions {
                    nfft: Some(200),
                    ..Default::default()
                },
            ),
            (
                "nfft400",
                None,
                WelchOptions {
                    nfft: Some(400),
                    ..Default::default()
                },
            ),
            (
                "hann_spec",
                Some(named("hann")),
                WelchOptions {
                    scaling: Scaling::Spectrum,
                    ..Default::default()
                },
            ),
            (
                "lin",
                None,
                WelchOptions {
                    detrend: Detrend::Linear,
                    ..Default::default()
                },
            ),
        ];
        for (name, w, o) in cases {
            let (_, p) = periodogram(&x, w, &o).unwrap();
            close(&p, &format!("per_{name}"), &d);
        }
    }
}

#[test]
fn spectrogram_matches_scipy() {
    for d in devices() {
        let x = g("x", &d);
        for (mode, key) in [
            (SpectrogramMode::Psd, "psd"),
            (SpectrogramMode::Complex, "complex"),
            (SpectrogramMode::Magnitude, "magnitude"),
            (SpectrogramMode::Angle, "angle"),
            (SpectrogramMode::Phase, "phase"),
        ] {
            let o = SpectrogramOptions {
                nperseg: Some(64),
                mode,
                ..Default::default()
            };
            let (_, t, s) = spectrogram(&x, &o).unwrap();
            close(&t, "spec_t", &d);
            match s {
                Sxx::Real(a) => close(&a, &format!("spec_{key}"), &d),
                Sxx::Complex(a) => close_c(&a, &format!("spec_{key}"), &d),
            }
        }
        let (_, _, s) = spectrogram(&x, &SpectrogramOptions::default()).unwrap();
        close(&s.real().unwrap(), "spec_default", &d);
        let xt = x.t().contiguous().unwrap();
        let o = SpectrogramOptions {
            nperseg: Some(64),
            axis: 0,
            ..Default::default()
        };
        close(
            &spectrogram(&xt, &o).unwrap().2.real().unwrap(),
            "spec_ax0",
            &d,
        );
    }
}

fn stft_cases() -> Vec<(&'static str, StftOptions)> {
    vec![
        (
            "default64",
            StftOptions {
                nperseg: Some(64),
                ..Default::default()
            },
        ),
        (
            "even",
            StftOptions {
                nperseg: Some(48),
                noverlap: Some(40),
                boundary: Some(Boundary::Even),
                ..Default::default()
            },
        ),
        (
            "odd",
            StftOptions {
                nperseg: Some(48),
                boundary: Some(Boundary::Odd),
                padded: false,
                ..Default::default()
            },
        ),
        (
            "constant",
            StftOptions {
                nperseg: Some(31),
                boundary: Some(Boundary::Constant),
                window: named("blackman"),
                ..Default::default()
            },
        ),
        (
            "none",
            StftOptions {
                nperseg: Some(64),
                boundary: None,
                padded: false,
                scaling: Scaling::Density,
                ..Default::default()
            },
        ),
        (
            "nopad",
            StftOptions {
                nperseg: Some(70),
                boundary: None,
                padded: true,
                detrend: Detrend::Linear,
                nfft: Some(80),
                ..Default::default()
            },
        ),
    ]
}

#[test]
fn stft_istft_match_scipy() {
    for d in devices() {
        let x = g("x", &d);
        for (name, o) in stft_cases() {
            let (_, t, z) = stft(&x, &o).unwrap_or_else(|e| panic!("{name}: {e}"));
            close_c(&z, &format!("stft_{name}"), &d);
            close(&t, &format!("stft_{name}_t"), &d);
        }
        let (_, _, z) = stft(
            &x,
            &StftOptions {
                nperseg: Some(64),
                ..Default::default()
            },
        )
        .unwrap();
        let (_, y) = istft(
            &z,
            &IstftOptions {
                nperseg: Some(64),
                ..Default::default()
            },
        )
        .unwrap();
        close(&y, "istft_default64", &d);
        let (_, y) = istft(
            &z,
            &IstftOptions {
                boundary: false,
                ..Default::default()
            },
        )
        .unwrap();
        close(&y, "istft_noboundary", &d);
        let so = StftOptions {
            nperseg: Some(48),
            noverlap: Some(40),
            window: named("hamming"),
            scaling: Scaling::Density,
            ..Default::default()
        };
        let (_, _, z) = stft(&x, &so).unwrap();
        let io = IstftOptions {
            nperseg: Some(48),
            noverlap: Some(40),
            window: named("hamming"),
            scaling: Scaling::Density,
            ..Default::default()
        };
        close(&istft(&z, &io).unwrap().1, "istft_ham48", &d);
    }
}

#[test]
fn cola_nola_match_scipy() {
    let e = g("cola_nola", &Device::Cpu).to_vec().unwrap();
    let cases = [
        ("hann", 256, 128),
        ("hann", 256, 0),
        ("boxcar", 64, 0),
        ("hamming", 64, 32),
        ("blackman", 90, 60),
        ("bartlett", 50, 25),
        ("hann", 99, 33),
    ];
    for (i, (w, n, ov)) in cases.iter().enumerate() {
        assert_eq!(
            check_cola(&named(w), *n, *ov, 1e-10).unwrap(),
            e[2 * i] != 0.0,
            "COLA {w} {n} {ov}"
        );
        assert_eq!(
            check_nola(&named(w), *n, *ov, 1e-10).unwrap(),
            e[2 * i + 1] != 0.0,
            "NOLA {w} {n} {ov}"
        );
    }
    assert!(matches!(
        check_cola(&named("hann"), 8, 8, 1e-10),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        check_nola(&named("hann"), 0, 0, 1e-10),
        Err(Error::InvalidArgument { .. })
    ));
}

/// f32 (and f64 batches of odd sizes) on every device against the CPU's f64 result.
#[test]
fn f32_and_batches_against_cpu() {
    let cpu = Device::Cpu;
    for d in devices() {
        for (shape, nper) in [
            (vec![3usize, 2, 257], 31usize),
            (vec![1usize, 1000], 256),
            (vec![33usize], 33),
        ] {
            let x64 = randn::<f64>(&shape, 7, &cpu).unwrap();
            let x32 = x64.astype::<f32>().unwrap().to_device(&d).unwrap();
            for avg in [Average::Mean, Average::Median] {
                let o = WelchOptions {
                    nperseg: Some(nper),
                    detrend: Detrend::Linear,
                    average: avg,
                    ..Default::default()
                };
                let (_, want) = welch(&x64, &o).unwrap();
                let (_, got) = welch(&x32, &o).unwrap();
                let got: Vec<f64> = got.to_vec().unwrap().iter().map(|&v| v as f64).collect();
                assert_slices_close(
                    &got,
                    &want.to_vec().unwrap(),
                    want.shape(),
                    2e-4,
                    1e-6,
                    &format!("welch f32 {shape:?} {avg:?} on {d}"),
                );
            }
            let so = StftOptions {
                nperseg: Some(nper),
                ..Default::default()
            };
            let (_, _, want) = stft(&x64, &so).unwrap();
            let (_, _, got) = stft(&x32, &so).unwrap();
            let got: Vec<c64> = got
                .to_vec()
                .unwrap()
                .iter()
                .map(|v| c64::new(v.re as f64, v.im as f64))
                .collect();
            assert_slices_close(
                &got,
                &want.to_vec().unwrap(),
                want.shape(),
                2e-4,
                1e-6,
                &format!("stft f32 {shape:?} on {d}"),
            );
            let (_, y) = istft(
                &want.to_device(&d).unwrap(),
                &IstftOptions {
                    nperseg: Some(nper),
                    ..Default::default()
                },
            )
            .unwrap();
            let y = y
                .slice_axis(-1, Some(0), Some(shape[shape.len() - 1] as isize), 1)
                .unwrap()
                .contiguous()
                .unwrap();
            assert_slices_close(
                &y.to_vec().unwrap(),
                &x64.to_vec().unwrap(),
                &shape,
                1e-9,
                1e-10,
                &format!("istft round trip {shape:?} on {d}"),
            );
        }
    }
}

#[test]
fn bad_inputs_same_error_on_every_device() {
    for d in devices() {
        let x = g("x", &d);
        let arg = |r: cusci_core::Result<(Array<f64>, Array<f64>)>| {
            matches!(r, Err(Error::InvalidArgument { .. }))
        };
        assert!(
            arg(welch(
                &x,
                &WelchOptions {
                    nperseg: Some(16),
                    noverlap: Some(16),
                    ..Default::default()
                }
            )),
            "noverlap on {d}"
        );
        assert!(
            arg(welch(
                &x,
                &WelchOptions {
                    nperseg: Some(16),
                    nfft: Some(8),
                    ..Default::default()
                }
            )),
            "nfft on {d}"
        );
        assert!(
            arg(welch(
                &x,
                &WelchOptions {
                    nperseg: Some(0),
                    ..Default::default()
                }
            )),
            "nperseg 0 on {d}"
        );
        assert!(
            arg(welch(
                &x,
                &WelchOptions {
                    axis: 2,
                    ..Default::default()
                }
            )),
            "axis on {d}"
        );
        assert!(
            arg(welch(
                &x,
                &WelchOptions {
                    fs: 0.0,
                    ..Default::default()
                }
            )),
            "fs on {d}"
        );
        assert!(
            arg(welch(
                &x,
                &WelchOptions {
                    window: WindowSpec::Values(vec![1.0; 300]),
                    ..Default::default()
                }
            )),
            "long window on {d}"
        );
        assert!(
            arg(welch(
                &x,
                &WelchOptions {
                    window: WindowSpec::Values(vec![1.0; 8]),
                    nperseg: Some(9),
                    ..Default::default()
                }
            )),
            "window length on {d}"
        );
        let short = Array::from_vec(vec![1.0f64; 4], &[4], &d).unwrap();
        // nperseg longer than the signal: cut to the signal (SciPy's warning)
        let (f, p) = welch(
            &short,
            &WelchOptions {
                nperseg: Some(16),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!((f.size(), p.size()), (3, 3));
        let y = Array::from_vec(vec![1.0f64; 5], &[5], &d).unwrap();
        assert!(matches!(
            csd(&short, &y, &WelchOptions::default()),
            Err(Error::ShapeMismatch { .. })
        ));
        let z = Array::<c64>::zeros(&[5], &d).unwrap();
        assert!(matches!(
            istft(&z, &IstftOptions::default()),
            Err(Error::InvalidArgument { .. })
        ));
        let z = Array::<c64>::zeros(&[5, 4], &d).unwrap();
        assert!(matches!(
            istft(
                &z,
                &IstftOptions {
                    noverlap: Some(8),
                    ..Default::default()
                }
            ),
            Err(Error::InvalidArgument { .. })
        ));
    }
}

#[test]
fn spectral_kernels_compile() {
    crate::processing_kernels_compile::compile_named(&["signal_spectral"]);
}
