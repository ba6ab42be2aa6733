//! convolve2d, correlate2d: SciPy's golden values (modes x boundaries), a naive quadruple loop
//! (complex, odd and even kernels, kernels larger than the image), every device against the
//! CPU (including the untiled GPU kernel for large kernels), typed errors.

use cusci_core::npy::load_npz_array;
use cusci_core::testing::{assert_allclose, assert_slices_close, devices, randn_vec};
use cusci_core::{c64, Array, Device, Error};
use cusci_signal::*;

const NPZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/processing.npz");

fn golden(name: &str) -> Array<f64> {
    load_npz_array::<f64>(NPZ, name, &Device::cpu()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

const MODES: [(ConvMode, &str); 3] = [
    (ConvMode::Full, "full"),
    (ConvMode::Same, "same"),
    (ConvMode::Valid, "valid"),
];

#[test]
fn golden_scipy_modes_and_boundaries() {
    for dev in devices() {
        let a = golden("cv2_a").to_device(&dev).unwrap();
        let k = golden("cv2_k").to_device(&dev).unwrap();
        for (mode, mname) in MODES {
            for (boundary, bname) in [
                (ConvBoundary::Fill, "fill"),
                (ConvBoundary::Wrap, "wrap"),
                (ConvBoundary::Symm, "symm"),
            ] {
                let o = Conv2dOptions {
                    mode,
                    boundary,
                    fillvalue: 0.0,
                };
                let y = convolve2d(&a, &k, &o).unwrap();
                let ctx = format!("{mname} {bname} on {dev}");
                let want = golden(&format!("convolve2d_{mname}_{bname}"));
                assert_allclose(&y, &want, 1e-12, 1e-13, &ctx);
            }
            let o = Conv2dOptions {
                mode,
                ..Default::default()
            };
            let y = correlate2d(&a, &k, &o).unwrap();
            let want = golden(&format!("correlate2d_{mname}_fill"));
            assert_allclose(&y, &want, 1e-12, 1e-13, &format!("corr {mname} on {dev}"));
        }
    }
}

/// The full convolution with fill value `fv`, then the window [r0, r0+om) x [c0, c0+on).
#[allow(clippy::too_many_arguments)]
fn naive(
    a: &[c64],
    (m, n): (usize, usize),
    k: &[c64],
    (p, q): (usize, usize),
    fv: c64,
    (r0, c0): (usize, usize),
    (om, on): (usize, usize),
) -> Vec<c64> {
    let mut out = vec![c64::new(0.0, 0.0); om * on];
    for r in 0..om {
        for c in 0..on {
            let mut s = c64::new(0.0, 0.0);
            for pi in 0..p {
                for qi in 0..q {
                    let (ar, ac) = ((r + r0) as i64 - pi as i64, (c + c0) as i64 - qi as i64);
                    let v = if ar >= 0 && ac >= 0 && (ar as usize) < m && (ac as usize) < n {
                        a[ar as usize * n + ac as usize]
                    } else {
                        fv
                    };
                    s += k[pi * q + qi] * v;
                }
            }
            out[r * on + c] = s;
        }
    }
    out
}

fn cvec(len: usize, seed: u64) -> Vec<c64> {
    randn_vec::<f64>(2 * len, seed)
        .chunks(2)
        .map(|p| c64::new(p[0], p[1]))
        .collect()
}

#[test]
fn naive_complex_fill_value_and_sizes() {
    let fv = c64::new(0.5, -0.25);
    for (m, n, p, q) in [
        (1usize, 1usize, 1usize, 1usize),
        (5, 7, 2, 2),
        (33, 31, 4, 5),
        (40, 70, 15, 15),
        (3, 4, 6, 9),
    ] {
        let av = cvec(m * n, 11);
        let kv = cvec(p * q, 12);
        let full = naive(&av, (m, n), &kv, (p, q), fv, (0, 0), (m + p - 1, n + q - 1));
        let same = naive(
            &av,
            (m, n),
            &kv,
            (p, q),
            fv,
            ((p - 1) / 2, (q - 1) / 2),
            (m, n),
        );
        // correlation: convolution with the flipped conjugate kernel, centred at p/2
        let kf: Vec<c64> = kv.iter().rev().map(|v| v.conj()).collect();
        let csame = naive(&av, (m, n), &kf, (p, q), fv, (p / 2, q / 2), (m, n));
        for dev in devices() {
            let a = Array::from_vec(av.clone(), &[m, n], &dev).unwrap();
            let k = Array::from_vec(kv.clone(), &[p, q], &dev).unwrap();
            let ctx = format!("{m}x{n} * {p}x{q} on {dev}");
            let mut o = Conv2dOptions {
                fillvalue: fv,
                ..Default::default()
            };
            let y = convolve2d(&a, &k, &o).unwrap().to_vec().unwrap();
            assert_slices_close(&y, &full, &[full.len()], 1e-12, 1e-12, &ctx);
            o.mode = ConvMode::Same;
            let y = convolve2d(&a, &k, &o).unwrap().to_vec().unwrap();
            assert_slices_close(&y, &same, &[same.len()], 1e-12, 1e-12, &ctx);
            let y = correlate2d(&a, &k, &o).unwrap().to_vec().unwrap();
            assert_slices_close(&y, &csame, &[csame.len()], 1e-12, 1e-12, &ctx);
        }
    }
}

#[test]
fn devices_agree_f32_large_kernels_and_valid_swap() {
    let cpu = Device::cpu();
    // a 100x100 f32 second input: too large for the shared-memory tile (the untiled kernel)
    // (in1 = the small p x q array, in2 = the m x n one: Valid swaps them)
    for (m, n, p, q, big) in [
        (64usize, 80usize, 15usize, 15usize, false),
        (100, 100, 10, 10, true),
    ] {
        let av = randn_vec::<f32>(m * n, 21);
        let kv = randn_vec::<f32>(p * q, 22);
        for (mode, _) in MODES {
            if big && mode == ConvMode::Full {
                continue; // slow on the CPU in the dev profile
            }
            for boundary in [ConvBoundary::Fill, ConvBoundary::Wrap, ConvBoundary::Symm] {
                let o = Conv2dOptions {
                    mode,
                    boundary,
                    fillvalue: 0.0,
                };
                let run = |dev: &Device, corr: bool| {
                    let a = Array::from_vec(av.clone(), &[m, n], dev).unwrap();
                    let k = Array::from_vec(kv.clone(), &[p, q], dev).unwrap();
                    let y = if corr {
                        correlate2d(&k, &a, &o)
                    } else {
                        convolve2d(&k, &a, &o)
                    };
                    y.unwrap().to_device(&cpu).unwrap()
                };
                for corr in [false, true] {
                    let want = run(&cpu, corr);
                    for dev in devices() {
                        let ctx = format!("{mode:?} {boundary:?} corr={corr} {p}x{q} on {dev}");
                        assert_allclose(&run(&dev, corr), &want, 1e-4, 1e-4, &ctx);
                    }
                }
            }
        }
    }
}

#[test]
fn bad_input_same_typed_errors() {
    for dev in devices() {
        let a = Array::<f64>::ones(&[4, 5], &dev).unwrap();
        let k1 = Array::<f64>::ones(&[3], &dev).unwrap();
        let k3 = Array::<f64>::ones(&[2, 2, 2], &dev).unwrap();
        let kx = Array::<f64>::ones(&[2, 6], &dev).unwrap();
        let e = Array::<f64>::zeros(&[0, 3], &dev).unwrap();
        let o = Conv2dOptions::default();
        let shape = |r: Result<Array<f64>, Error>| matches!(r, Err(Error::ShapeMismatch { .. }));
        assert!(shape(convolve2d(&a, &k1, &o)));
        assert!(shape(correlate2d(&a, &k3, &o)));
        assert!(matches!(
            convolve2d(&e, &a, &o),
            Err(Error::InvalidArgument { .. })
        ));
        let v = Conv2dOptions {
            mode: ConvMode::Valid,
            ..o
        };
        // neither input is at least as large as the other in every dimension
        assert!(shape(convolve2d(&a, &kx, &v)));
        assert!(shape(correlate2d(&kx, &a, &v)));
    }
}
