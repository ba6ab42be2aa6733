//! Windows: every window of `scipy.signal.windows` (but dpss) against SciPy's `get_window`
//! (periodic and symmetric, lengths 0, 1, 2, 7, 16, 33), returned on every device; bad
//! parameters give typed errors.

use cusci_core::npy::load_npz_array;
use cusci_core::testing::{assert_slices_close, devices};
use cusci_core::{Device, Error};
use cusci_signal::{get_window, Window};

const PROC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/processing.npz");
const SPEC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/spectral.npz");

fn golden(file: &str, name: &str) -> Vec<f64> {
    load_npz_array::<f64>(file, name, &Device::Cpu)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .to_vec()
        .unwrap()
}

fn check(file: &str, key: &str, w: &Window, n: usize, fftbins: bool) {
    let e = golden(file, key);
    for d in devices() {
        let a = get_window::<f64>(w, n, fftbins, &d).unwrap_or_else(|err| panic!("{key}: {err}"));
        assert_eq!(a.device(), &d);
        let v = a.to_vec().unwrap();
        assert_slices_close(&v, &e, &[n], 1e-13, 1e-14, &format!("{key} on {d}"));
    }
}

#[test]
fn named_windows_match_scipy() {
    for name in [
        "hann",
        "hamming",
        "blackman",
        "bartlett",
        "boxcar",
        "triang",
        "flattop",
        "parzen",
        "bohman",
        "blackmanharris",
        "nuttall",
        "barthann",
        "cosine",
        "exponential",
        "tukey",
        "lanczos",
    ] {
        let w = Window::from_name(name).unwrap();
        for n in [1usize, 2, 7, 16] {
            check(PROC, &format!("win_{name}_{n}"), &w, n, true);
            check(PROC, &format!("winsym_{name}_{n}"), &w, n, false);
        }
    }
    for n in [1usize, 7, 16] {
        check(
            PROC,
            &format!("win_kaiser8_{n}"),
            &Window::Kaiser(8.0),
            n,
            true,
        );
        check(
            PROC,
            &format!("win_gaussian2.5_{n}"),
            &Window::Gaussian(2.5),
            n,
            true,
        );
        check(
            PROC,
            &format!("win_general_hamming0.7_{n}"),
            &Window::GeneralHamming(0.7),
            n,
            true,
        );
    }
}

#[test]
fn parameterised_windows_match_scipy() {
    let cases: Vec<(&str, Window)> = vec![
        ("chebwin50", Window::Chebwin(50.0)),
        ("chebwin100", Window::Chebwin(100.0)),
        (
            "taylor",
            Window::Taylor {
                nbar: 4,
                sll: 30.0,
                norm: true,
            },
        ),
        (
            "taylor_6_40_nonorm",
            Window::Taylor {
                nbar: 6,
                sll: 40.0,
                norm: false,
            },
        ),
        ("general_cosine", Window::GeneralCosine(vec![0.5, 0.3, 0.2])),
        (
            "general_gaussian",
            Window::GeneralGaussian { p: 1.5, sig: 2.0 },
        ),
        (
            "exponential_tau3",
            Window::Exponential {
                center: None,
                tau: 3.0,
            },
        ),
        ("tukey0", Window::Tukey(0.0)),
        ("tukey1", Window::Tukey(1.0)),
        ("tukey0.3", Window::Tukey(0.3)),
        ("kaiser14", Window::Kaiser(14.0)),
        ("gaussian1", Window::Gaussian(1.0)),
    ];
    for (key, w) in &cases {
        for n in [1usize, 2, 7, 16, 33] {
            check(SPEC, &format!("wx_{key}_{n}"), w, n, true);
            check(SPEC, &format!("wxsym_{key}_{n}"), w, n, false);
        }
    }
    for n in [2usize, 8, 16] {
        check(
            SPEC,
            &format!("wxsym_kbd4_{n}"),
            &Window::KaiserBesselDerived(4.0),
            n,
            false,
        );
    }
    check(
        SPEC,
        "wx_exp_center_9",
        &Window::Exponential {
            center: Some(2.0),
            tau: 1.5,
        },
        9,
        true,
    );
}

#[test]
fn empty_and_f32_windows() {
    for d in devices() {
        assert_eq!(
            get_window::<f64>(&Window::Hann, 0, true, &d)
                .unwrap()
                .size(),
            0
        );
        let w32 = get_window::<f32>(&Window::Blackman, 16, true, &d)
            .unwrap()
            .to_vec()
            .unwrap();
        let w64 = Window::Blackman.values(16, false).unwrap();
        for (a, b) in w32.iter().zip(&w64) {
            assert!((*a as f64 - b).abs() < 1e-7);
        }
    }
}

#[test]
fn bad_window_parameters() {
    let arg = |r: cusci_core::Result<Vec<f64>>| matches!(r, Err(Error::InvalidArgument { .. }));
    assert!(arg(Window::KaiserBesselDerived(4.0).values(8, false)));
    assert!(arg(Window::KaiserBesselDerived(4.0).values(7, true)));
    assert!(arg(Window::Exponential {
        center: Some(1.0),
        tau: 1.0
    }
    .values(8, true)));
    assert!(arg(Window::Taylor {
        nbar: 0,
        sll: 30.0,
        norm: true
    }
    .values(8, true)));
    assert!(matches!(
        Window::from_name("kaiser"),
        Err(Error::InvalidArgument { .. })
    ));
    for d in devices() {
        assert!(matches!(
            get_window::<f64>(&Window::KaiserBesselDerived(1.0), 8, true, &d),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
