//! choose_conv_method (SciPy's CPU rule against SciPy, the CUDA rule against the H200
//! measurements it was fitted to), overlap-add oaconvolve (SciPy golden, every device against
//! the CPU) and dpss (SciPy golden, every device).

use cusci_core::npy::load_npz_array;
use cusci_core::testing::{assert_slices_close, devices};
use cusci_core::{c64, Array, Device, Error};
use cusci_signal::*;

const NPZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/convwin.npz");
const BENCH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/conv_method_h200.txt"
);

fn golden_f64(name: &str) -> Array<f64> {
    load_npz_array::<f64>(NPZ, name, &Device::Cpu).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn golden_i64(name: &str) -> (Vec<i64>, Vec<usize>) {
    let a = load_npz_array::<i64>(NPZ, name, &Device::Cpu).unwrap_or_else(|e| panic!("{e}"));
    (a.to_vec().unwrap(), a.shape().to_vec())
}

const MODES: [(ConvMode, &str); 3] = [
    (ConvMode::Full, "full"),
    (ConvMode::Same, "same"),
    (ConvMode::Valid, "valid"),
];

#[test]
fn choose_conv_method_cpu_matches_scipy() {
    let (v, sh) = golden_i64("ccm");
    let w = sh[1];
    for r in v.chunks(w) {
        let (n1, n2) = (r[0] as usize, r[1] as usize);
        let mode = MODES[r[2] as usize].0;
        let want = if r[3] == 1 {
            ConvMethod::Fft
        } else {
            ConvMethod::Direct
        };
        for (cplx, single) in [(false, false), (true, false), (false, true)] {
            let got = choose_conv_method_shapes(&[n1], &[n2], mode, cplx, single, false);
            assert_eq!(got, want, "1-D {n1} {n2} {mode:?}");
        }
    }
    let (v, sh) = golden_i64("ccm2");
    for r in v.chunks(sh[1]) {
        let s1 = [r[0] as usize, r[1] as usize];
        let s2 = [r[2] as usize, r[3] as usize];
        let mode = MODES[r[4] as usize].0;
        let want = if r[5] == 1 {
            ConvMethod::Fft
        } else {
            ConvMethod::Direct
        };
        let got = choose_conv_method_shapes(&s1, &s2, mode, false, false, false);
        assert_eq!(got, want, "2-D {s1:?} {s2:?} {mode:?}");
    }
    // the array form on the CPU: same answers, typed errors
    let d = Device::Cpu;
    let a = Array::<f64>::zeros(&[10000], &d).unwrap();
    let k = Array::<f64>::zeros(&[1000], &d).unwrap();
    assert_eq!(
        choose_conv_method(&a, &k, ConvMode::Full).unwrap(),
        ConvMethod::Fft
    );
    let k = Array::<f64>::zeros(&[8], &d).unwrap();
    assert_eq!(
        choose_conv_method(&a, &k, ConvMode::Full).unwrap(),
        ConvMethod::Direct
    );
    let k2 = Array::<f64>::zeros(&[8, 1], &d).unwrap();
    assert!(matches!(
        choose_conv_method(&a, &k2, ConvMode::Full),
        Err(Error::ShapeMismatch { .. })
    ));
    let e = Array::<f64>::zeros(&[0], &d).unwrap();
    assert!(matches!(
        choose_conv_method(&a, &e, ConvMode::Full),
        Err(Error::InvalidArgument { .. })
    ));
}

/// Every (dtype, n, m) row of the H200 measurements: the CUDA rule picks the method that was
/// faster there (our direct kernel against the cuFFT convolution).
#[test]
fn choose_conv_method_cuda_follows_h200_measurements() {
    let text = std::fs::read_to_string(BENCH).unwrap();
    let mut rows = 0;
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 6 || !(f[0] == "f32" || f[0] == "f64") {
            continue;
        }
        let (n, m): (usize, usize) = (f[1].parse().unwrap(), f[2].parse().unwrap());
        let (direct, fft): (f64, f64) = (f[3].parse().unwrap(), f[5].parse().unwrap());
        let want = if fft < direct {
            ConvMethod::Fft
        } else {
            ConvMethod::Direct
        };
        let got = choose_conv_method_shapes(&[n], &[m], ConvMode::Full, false, f[0] == "f32", true);
        assert_eq!(got, want, "{line}");
        rows += 1;
    }
    assert!(rows >= 80, "only {rows} measured rows parsed");
    // the crossovers of the brief, f32: n = 1e5 at m ~16384, 1e6 at ~1024, 1e7 at ~256
    let f32_rule = |n: usize, m: usize| {
        choose_conv_method_shapes(&[n], &[m], ConvMode::Full, false, true, true)
    };
    assert_eq!(f32_rule(100_000, 4096), ConvMethod::Direct);
    assert_eq!(f32_rule(100_000, 16384), ConvMethod::Fft);
    assert_eq!(f32_rule(1_000_000, 512), ConvMethod::Direct);
    assert_eq!(f32_rule(1_000_000, 1024), ConvMethod::Fft);
    assert_eq!(f32_rule(10_000_000, 128), ConvMethod::Direct);
    assert_eq!(f32_rule(10_000_000, 256), ConvMethod::Fft);
    // a short signal never pays for the FFT; the order of the inputs does not matter in full mode
    assert_eq!(f32_rule(1000, 1000), ConvMethod::Direct);
    assert_eq!(f32_rule(1024, 1_000_000), f32_rule(1_000_000, 1024));
    // valid mode with a long kernel: only 1001 outputs, but each thread of the direct kernel
    // loops over 999000 products (latency bound), so the FFT; a short kernel stays direct
    let valid = |n: usize, m: usize| {
        choose_conv_method_shapes(&[n], &[m], ConvMode::Valid, false, false, true)
    };
    assert_eq!(valid(1_000_000, 999_000), ConvMethod::Fft);
    assert_eq!(valid(1_000_000, 16), ConvMethod::Direct);
}

/// (case, axes) of the golden oaconvolve cases (see gen.py's `gen_signal_convwin`).
const OA_CASES: [(&str, Option<&[isize]>); 7] = [
    ("long", None),
    ("swap", None),
    ("fallback", None),
    ("f2d", None),
    ("bcast", Some(&[1])),
    ("axes02", Some(&[0, 2])),
    ("mixed", None),
];

#[test]
fn oaconvolve_matches_scipy_on_every_device() {
    for (case, axes) in OA_CASES {
        let a = golden_f64(&format!("oa_{case}_a"));
        let b = golden_f64(&format!("oa_{case}_b"));
        for (mode, mname) in MODES {
            let key = format!("oa_{case}_{mname}");
            // absent where SciPy raised (mixed shapes in valid mode)
            let want = load_npz_array::<f64>(NPZ, &key, &Device::Cpu).ok();
            assert_eq!(want.is_none(), key == "oa_mixed_valid", "{key}");
            let mut cpu: Option<Vec<f64>> = None;
            for d in devices() {
                let (ad, bd) = (a.to_device(&d).unwrap(), b.to_device(&d).unwrap());
                let got = oaconvolve(&ad, &bd, mode, axes);
                let Some(w) = &want else {
                    // SciPy refused it (valid mode with no input at least as large)
                    assert!(
                        matches!(got, Err(Error::InvalidArgument { .. })),
                        "{key} on {d}: {got:?}"
                    );
                    continue;
                };
                let got = got.unwrap_or_else(|e| panic!("{key} on {d}: {e}"));
                assert_eq!(got.device(), &d);
                assert_eq!(got.shape(), w.shape(), "{key} on {d}");
                let v = got.to_vec().unwrap();
                let tag = format!("{key} on {d}");
                assert_slices_close(&v, &w.to_vec().unwrap(), w.shape(), 1e-10, 1e-11, &tag);
                match &cpu {
                    None => cpu = Some(v),
                    Some(c) => assert_slices_close(&v, c, w.shape(), 1e-12, 1e-12, &tag),
                }
                // single precision: against the f64 golden at f32 accuracy
                let a32 = Array::from_vec(
                    a.to_vec().unwrap().iter().map(|&x| x as f32).collect(),
                    a.shape(),
                    &d,
                )
                .unwrap();
                let b32 = Array::from_vec(
                    b.to_vec().unwrap().iter().map(|&x| x as f32).collect(),
                    b.shape(),
                    &d,
                )
                .unwrap();
                let y32: Vec<f64> = oaconvolve(&a32, &b32, mode, axes)
                    .unwrap()
                    .to_vec()
                    .unwrap()
                    .iter()
                    .map(|&x| x as f64)
                    .collect();
                assert_slices_close(&y32, &w.to_vec().unwrap(), w.shape(), 1e-4, 1e-4, &tag);
            }
        }
    }
}

#[test]
fn oaconvolve_complex_matches_scipy_on_every_device() {
    let cplx = |name: &str| -> Vec<c64> {
        let re = golden_f64(&format!("{name}_re")).to_vec().unwrap();
        let im = golden_f64(&format!("{name}_im")).to_vec().unwrap();
        re.iter().zip(&im).map(|(&r, &i)| c64::new(r, i)).collect()
    };
    let (a, b) = (cplx("oa_cplx_a"), cplx("oa_cplx_b"));
    for d in devices() {
        let ad = Array::from_vec(a.clone(), &[a.len()], &d).unwrap();
        let bd = Array::from_vec(b.clone(), &[b.len()], &d).unwrap();
        for (mode, mname) in MODES {
            let w = cplx(&format!("oa_cplx_{mname}"));
            let y = oaconvolve(&ad, &bd, mode, None).unwrap().to_vec().unwrap();
            assert_slices_close(&y, &w, &[w.len()], 1e-10, 1e-11, &format!("{mname} on {d}"));
        }
    }
}

/// Against a naive double loop on long inputs with many blocks (both orders, odd lengths),
/// and the equal-to-fftconvolve identity; the edge cases of SciPy.
#[test]
fn oaconvolve_many_blocks_and_edges() {
    let x: Vec<f64> = (0..5003)
        .map(|i| ((i * 7919) % 1000) as f64 / 500.0 - 1.0)
        .collect();
    let h: Vec<f64> = (0..41)
        .map(|i| ((i * 31) % 17) as f64 / 8.0 - 1.0)
        .collect();
    let mut naive = vec![0.0; x.len() + h.len() - 1];
    for (i, &u) in x.iter().enumerate() {
        for (j, &v) in h.iter().enumerate() {
            naive[i + j] += u * v;
        }
    }
    for d in devices() {
        let xa = Array::from_vec(x.clone(), &[x.len()], &d).unwrap();
        let ha = Array::from_vec(h.clone(), &[h.len()], &d).unwrap();
        for (p, q) in [(&xa, &ha), (&ha, &xa)] {
            let y = oaconvolve(p, q, ConvMode::Full, None)
                .unwrap()
                .to_vec()
                .unwrap();
            assert_slices_close(&y, &naive, &[naive.len()], 1e-10, 1e-10, &format!("{d}"));
        }
        // valid mode swaps the inputs as SciPy
        let y = oaconvolve(&ha, &xa, ConvMode::Valid, None).unwrap();
        assert_eq!(y.shape(), &[x.len() - h.len() + 1]);
        let f = fftconvolve(&xa, &ha, ConvMode::Valid).unwrap();
        assert_slices_close(
            &y.to_vec().unwrap(),
            &f.to_vec().unwrap(),
            y.shape(),
            1e-10,
            1e-10,
            "valid",
        );
        // empty input: an empty array; 0-d: the product; errors
        let e = Array::<f64>::zeros(&[0], &d).unwrap();
        assert_eq!(
            oaconvolve(&e, &ha, ConvMode::Full, None).unwrap().shape(),
            &[0]
        );
        let m2 = Array::<f64>::zeros(&[2, 3], &d).unwrap();
        assert!(matches!(
            oaconvolve(&xa, &m2, ConvMode::Full, None),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            oaconvolve(&m2, &m2, ConvMode::Full, Some(&[])),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            oaconvolve(&m2, &m2, ConvMode::Full, Some(&[0, -2])),
            Err(Error::InvalidArgument { .. })
        ));
        let m3 = Array::<f64>::zeros(&[3, 2], &d).unwrap();
        assert!(matches!(
            oaconvolve(&m2, &m3, ConvMode::Full, Some(&[1])),
            Err(Error::ShapeMismatch { .. })
        ));
    }
}

#[test]
fn oaconvolve_kernels_compile() {
    crate::processing_kernels_compile::compile_named(&["signal_oaconv"]);
}

/// (golden case, M, NW, Kmax, sym, norm) as gen.py's `gen_signal_convwin`.
#[allow(clippy::type_complexity)]
const DPSS_CASES: [(&str, usize, f64, Option<usize>, bool, Option<DpssNorm>); 12] = [
    ("m64_nw3", 64, 3.0, None, true, None),
    ("m64_nw3_k5", 64, 3.0, Some(5), true, None),
    ("m65_nw2p5_k4_per", 65, 2.5, Some(4), false, None),
    (
        "m31_nw3_k3_approx",
        31,
        3.0,
        Some(3),
        true,
        Some(DpssNorm::Approximate),
    ),
    (
        "m32_nw3_k3_approx",
        32,
        3.0,
        Some(3),
        true,
        Some(DpssNorm::Approximate),
    ),
    (
        "m32_nw3_k3_sub",
        32,
        3.0,
        Some(3),
        true,
        Some(DpssNorm::Subsample),
    ),
    (
        "m33_nw3_k3_sub_per",
        33,
        3.0,
        Some(3),
        false,
        Some(DpssNorm::Subsample),
    ),
    ("m40_nw1_k2_l2", 40, 1.0, Some(2), true, Some(DpssNorm::L2)),
    ("m128_nw4_k7", 128, 4.0, Some(7), true, None),
    ("m512_nw2_k3_per", 512, 2.0, Some(3), false, None),
    ("m1_nw3_k1", 1, 3.0, Some(1), true, None),
    ("m5_nw2_k5", 5, 2.0, Some(5), true, None),
];

#[test]
fn dpss_matches_scipy_on_every_device() {
    for (case, m, nw, kmax, sym, norm) in DPSS_CASES {
        let want = golden_f64(&format!("dpss_{case}"));
        let want_r = golden_f64(&format!("dpss_{case}_ratios")).to_vec().unwrap();
        for d in devices() {
            let o = DpssOptions {
                kmax,
                sym,
                norm,
                return_ratios: true,
            };
            let r = dpss::<f64>(m, nw, &o, &d).unwrap_or_else(|e| panic!("{case}: {e}"));
            assert_eq!(r.windows.device(), &d);
            assert_eq!(r.windows.shape(), want.shape(), "{case}");
            let tag = format!("dpss {case} on {d}");
            let w = want.to_vec().unwrap();
            assert_slices_close(
                &r.windows.to_vec().unwrap(),
                &w,
                want.shape(),
                1e-9,
                1e-10,
                &tag,
            );
            let got_r = r.ratios.unwrap();
            assert_slices_close(&got_r, &want_r, &[want_r.len()], 1e-9, 1e-10, &tag);
            // without ratios: the same windows; f32 windows are the f64 ones rounded
            let o2 = DpssOptions {
                return_ratios: false,
                ..o
            };
            let r32 = dpss::<f32>(m, nw, &o2, &d).unwrap();
            assert!(r32.ratios.is_none());
            let v32: Vec<f64> = r32
                .windows
                .to_vec()
                .unwrap()
                .iter()
                .map(|&x| x as f64)
                .collect();
            assert_slices_close(&v32, &w, want.shape(), 1e-6, 1e-7, &tag);
        }
    }
}

#[test]
fn dpss_properties_and_errors() {
    let d = Device::Cpu;
    // orthonormal windows (L2 norm) whose ratios fall with the order
    let o = DpssOptions {
        kmax: Some(6),
        return_ratios: true,
        ..Default::default()
    };
    let r = dpss::<f64>(200, 4.0, &o, &d).unwrap();
    let w = r.windows.to_vec().unwrap();
    for i in 0..6 {
        for j in 0..6 {
            let dot: f64 = (0..200).map(|n| w[i * 200 + n] * w[j * 200 + n]).sum();
            let want = if i == j { 1.0 } else { 0.0 };
            assert!((dot - want).abs() < 1e-10, "({i}, {j}): {dot}");
        }
    }
    let ratios = r.ratios.unwrap();
    assert!(ratios.windows(2).all(|p| p[0] > p[1]) && ratios[0] < 1.0 && ratios[0] > 0.999);
    // M = 0 and 1: ones; errors as SciPy
    let z = dpss::<f64>(0, 1.0, &DpssOptions::default(), &d).unwrap();
    assert_eq!(z.windows.shape(), &[0]);
    let bad = |m: usize, nw: f64, kmax: Option<usize>| {
        let o = DpssOptions {
            kmax,
            ..Default::default()
        };
        matches!(
            dpss::<f64>(m, nw, &o, &d),
            Err(Error::InvalidArgument { .. })
        )
    };
    assert!(bad(16, 2.0, Some(0)));
    assert!(bad(16, 2.0, Some(17)));
    assert!(bad(16, 8.0, None));
    assert!(bad(16, 0.0, None));
    assert!(bad(16, f64::NAN, None));
    assert!(!bad(16, 2.0, Some(16)));
}

/// A long window set (M = 4096, 12 windows) against SciPy: every 97th point and the ratios.
#[test]
fn dpss_long_matches_scipy() {
    let want = golden_f64("dpss_big_cols97");
    let want_r = golden_f64("dpss_big_ratios").to_vec().unwrap();
    let o = DpssOptions {
        kmax: Some(12),
        return_ratios: true,
        ..Default::default()
    };
    let r = dpss::<f64>(4096, 6.0, &o, &Device::Cpu).unwrap();
    let w = r.windows.to_vec().unwrap();
    let cols = want.shape()[1];
    let got: Vec<f64> = (0..12)
        .flat_map(|k| (0..cols).map(move |c| (k, c)))
        .map(|(k, c)| w[k * 4096 + c * 97])
        .collect();
    assert_slices_close(
        &got,
        &want.to_vec().unwrap(),
        want.shape(),
        1e-8,
        1e-10,
        "big",
    );
    let rr = r.ratios.unwrap();
    assert_slices_close(&rr, &want_r, &[12], 1e-10, 1e-12, "big ratios");
}

/// `same` mode crops a broadcast axis outside `axes` to in1's length, as SciPy's `_centered`
/// (fftconvolve(a (1, 5), b (3, 4), 'same', axes=[1]) is (1, 5): the middle row of b).
#[test]
fn same_mode_crops_broadcast_axes() {
    for d in devices() {
        let a = Array::from_vec((0..5).map(|v| v as f64).collect(), &[1, 5], &d).unwrap();
        let b = Array::from_vec((0..12).map(|v| v as f64).collect(), &[3, 4], &d).unwrap();
        let want = [4.0, 13.0, 28.0, 50.0, 52.0];
        let y = fftconvolve_axes(&a, &b, ConvMode::Same, Some(&[1])).unwrap();
        assert_eq!(y.shape(), &[1, 5]);
        assert_slices_close(&y.to_vec().unwrap(), &want, &[1, 5], 1e-12, 1e-12, "fft");
        let y = oaconvolve(&a, &b, ConvMode::Same, Some(&[1])).unwrap();
        assert_eq!(y.shape(), &[1, 5]);
        assert_slices_close(&y.to_vec().unwrap(), &want, &[1, 5], 1e-12, 1e-12, "oa");
        let y = fftconvolve_axes(&a, &b, ConvMode::Full, Some(&[1])).unwrap();
        assert_eq!(y.shape(), &[3, 8]);
    }
}

/// get_window(('dpss', 3), n, fftbins) of SciPy: `Window::Dpss(3.0)`.
#[test]
fn get_window_dpss_matches_scipy() {
    for n in [1usize, 8, 33] {
        for (fftbins, tag) in [(true, "per"), (false, "sym")] {
            let want = golden_f64(&format!("win_dpss3_{n}_{tag}"))
                .to_vec()
                .unwrap();
            for d in devices() {
                let w = get_window::<f64>(&Window::Dpss(3.0), n, fftbins, &d).unwrap();
                assert_eq!(w.device(), &d);
                let ctx = format!("dpss3 {n} {tag} on {d}");
                assert_slices_close(&w.to_vec().unwrap(), &want, &[n], 1e-10, 1e-11, &ctx);
            }
        }
    }
    assert!(matches!(
        get_window::<f64>(&Window::Dpss(5.0), 8, true, &Device::Cpu),
        Err(Error::InvalidArgument { .. })
    ));
}
