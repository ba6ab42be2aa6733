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

type WinFn = Box<dyn Fn(usize, bool, &Device) -> cusci_core::Result<cusci_core::Array<f64>>>;
/// (golden file, key stem, function, lengths, forms: sym values)
type Row = (
    &'static str,
    String,
    WinFn,
    &'static [usize],
    &'static [bool],
);

/// SciPy's window functions by name (`scipy.signal.windows.<name>(M, ..., sym)`) against the
/// golden `get_window` values: `sym = true` against `winsym_`/`wxsym_`, false against
/// `win_`/`wx_`, every device. One table: (function, golden file, key stem, lengths, forms).
#[test]
fn window_functions_by_scipy_name() {
    use cusci_signal::windows as w;
    let plain: [(&str, WinFn); 16] = [
        ("hann", Box::new(w::hann)),
        ("hamming", Box::new(w::hamming)),
        ("blackman", Box::new(w::blackman)),
        ("bartlett", Box::new(w::bartlett)),
        ("boxcar", Box::new(w::boxcar)),
        ("triang", Box::new(w::triang)),
        ("flattop", Box::new(w::flattop)),
        ("parzen", Box::new(w::parzen)),
        ("bohman", Box::new(w::bohman)),
        ("blackmanharris", Box::new(w::blackmanharris)),
        ("nuttall", Box::new(w::nuttall)),
        ("barthann", Box::new(w::barthann)),
        ("cosine", Box::new(w::cosine)),
        (
            "exponential",
            Box::new(|m, s, d| w::exponential(m, None, 1.0, s, d)),
        ),
        ("tukey", Box::new(|m, s, d| w::tukey(m, 0.5, s, d))),
        ("lanczos", Box::new(w::lanczos)),
    ];
    let mut table: Vec<Row> = Vec::new();
    for (name, f) in plain {
        table.push((PROC, format!("_{name}_"), f, &[1, 2, 7, 16], &[false, true]));
    }
    // periodic only in processing.npz
    table.push((
        PROC,
        "_kaiser8_".into(),
        Box::new(|m, s, d| w::kaiser(m, 8.0, s, d)),
        &[1, 7, 16],
        &[false],
    ));
    table.push((
        PROC,
        "_gaussian2.5_".into(),
        Box::new(|m, s, d| w::gaussian(m, 2.5, s, d)),
        &[1, 7, 16],
        &[false],
    ));
    table.push((
        PROC,
        "_general_hamming0.7_".into(),
        Box::new(|m, s, d| w::general_hamming(m, 0.7, s, d)),
        &[1, 7, 16],
        &[false],
    ));
    let spec: [(&str, WinFn); 12] = [
        ("chebwin50", Box::new(|m, s, d| w::chebwin(m, 50.0, s, d))),
        ("chebwin100", Box::new(|m, s, d| w::chebwin(m, 100.0, s, d))),
        (
            "taylor",
            Box::new(|m, s, d| w::taylor(m, 4, 30.0, true, s, d)),
        ),
        (
            "taylor_6_40_nonorm",
            Box::new(|m, s, d| w::taylor(m, 6, 40.0, false, s, d)),
        ),
        (
            "general_cosine",
            Box::new(|m, s, d| w::general_cosine(m, &[0.5, 0.3, 0.2], s, d)),
        ),
        (
            "general_gaussian",
            Box::new(|m, s, d| w::general_gaussian(m, 1.5, 2.0, s, d)),
        ),
        (
            "exponential_tau3",
            Box::new(|m, s, d| w::exponential(m, None, 3.0, s, d)),
        ),
        ("tukey0", Box::new(|m, s, d| w::tukey(m, 0.0, s, d))),
        ("tukey1", Box::new(|m, s, d| w::tukey(m, 1.0, s, d))),
        ("tukey0.3", Box::new(|m, s, d| w::tukey(m, 0.3, s, d))),
        ("kaiser14", Box::new(|m, s, d| w::kaiser(m, 14.0, s, d))),
        ("gaussian1", Box::new(|m, s, d| w::gaussian(m, 1.0, s, d))),
    ];
    for (name, f) in spec {
        table.push((
            SPEC,
            format!("_{name}_"),
            f,
            &[1, 2, 7, 16, 33],
            &[false, true],
        ));
    }
    table.push((
        SPEC,
        "_kbd4_".into(),
        Box::new(|m, s, d| w::kaiser_bessel_derived(m, 4.0, s, d)),
        &[2, 8, 16],
        &[true],
    ));
    let mut checked = 0;
    for (file, stem, f, lengths, forms) in &table {
        for &n in *lengths {
            for &sym in *forms {
                let prefix = match (*file == PROC, sym) {
                    (true, false) => "win",
                    (true, true) => "winsym",
                    (false, false) => "wx",
                    (false, true) => "wxsym",
                };
                let key = format!("{prefix}{stem}{n}");
                let e = golden(file, &key);
                for d in devices() {
                    let a = f(n, sym, &d).unwrap_or_else(|err| panic!("{key}: {err}"));
                    assert_eq!(a.device(), &d);
                    assert_eq!(a.shape(), &[n]);
                    let v = a.to_vec().unwrap();
                    assert_slices_close(&v, &e, &[n], 1e-13, 1e-14, &format!("{key} on {d}"));
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 16 * 8 + 3 * 3 + 12 * 10 + 3);
    // SciPy's exponential(9, center=2.0, tau=1.5, sym=False); f32 rounding of the same values
    let e = golden(SPEC, "wx_exp_center_9");
    for d in devices() {
        let v = w::exponential::<f64>(9, Some(2.0), 1.5, false, &d)
            .unwrap()
            .to_vec()
            .unwrap();
        assert_slices_close(&v, &e, &[9], 1e-13, 1e-14, &format!("exp_center on {d}"));
        let v32 = w::hann::<f32>(16, true, &d).unwrap().to_vec().unwrap();
        let e32: Vec<f32> = golden(PROC, "winsym_hann_16")
            .iter()
            .map(|&x| x as f32)
            .collect();
        assert_eq!(v32, e32, "f32 hann on {d}");
        // SciPy's errors
        assert!(matches!(
            w::kaiser_bessel_derived::<f64>(7, 4.0, true, &d),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            w::kaiser_bessel_derived::<f64>(8, 4.0, false, &d),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            w::exponential::<f64>(9, Some(2.0), 1.5, true, &d),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(w::hann::<f64>(0, true, &d).unwrap().is_empty());
    }
}
