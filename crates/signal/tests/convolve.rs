//! convolve, correlate, fftconvolve: SciPy's golden values, a naive double loop, both methods,
//! every device against the CPU, and the typed errors.

use cusci_core::npy::load_npz_array;
use cusci_core::testing::{assert_allclose, assert_slices_close, devices, randn_vec};
use cusci_core::{c64, Array, Device, Error};
use cusci_signal::*;

const NPZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/processing.npz");

fn golden(name: &str, dev: &Device) -> Array<f64> {
    load_npz_array::<f64>(NPZ, name, dev).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn naive_full(a: &[c64], v: &[c64]) -> Vec<c64> {
    let mut y = vec![c64::new(0.0, 0.0); a.len() + v.len() - 1];
    for (i, &x) in a.iter().enumerate() {
        for (j, &w) in v.iter().enumerate() {
            y[i + j] += x * w;
        }
    }
    y
}

const MODES: [(ConvMode, &str); 3] = [
    (ConvMode::Full, "full"),
    (ConvMode::Same, "same"),
    (ConvMode::Valid, "valid"),
];

/// The FFT method needs cusci_fft on the device; until its CUDA side lands a GPU array gives
/// NotImplemented, which the tests accept there (and only there).
fn fft_ok<T: cusci_core::Element>(r: Result<Array<T>, Error>, dev: &Device) -> Option<Array<T>> {
    match r {
        Ok(v) => Some(v),
        Err(Error::NotImplemented { .. }) if dev.is_cuda() => {
            eprintln!("note: FFT not yet on {dev}: skipping the FFT method there");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn golden_scipy_both_methods() {
    let cpu = Device::cpu();
    for dev in devices() {
        let a = golden("cv_a", &cpu).to_device(&dev).unwrap();
        let v = golden("cv_v", &cpu).to_device(&dev).unwrap();
        for (mode, name) in MODES {
            for method in [ConvMethod::Direct, ConvMethod::Fft, ConvMethod::Auto] {
                let o = ConvOptions { mode, method };
                let ctx = format!("{name} {method:?} on {dev}");
                if let Some(y) = fft_ok(convolve(&a, &v, &o), &dev) {
                    assert_allclose(
                        &y,
                        &golden(&format!("convolve_{name}"), &cpu),
                        1e-12,
                        1e-13,
                        &ctx,
                    );
                }
                if let Some(y) = fft_ok(correlate(&a, &v, &o), &dev) {
                    assert_allclose(
                        &y,
                        &golden(&format!("correlate_{name}"), &cpu),
                        1e-12,
                        1e-13,
                        &ctx,
                    );
                }
            }
            if let Some(y) = fft_ok(fftconvolve(&a, &v, mode), &dev) {
                assert_allclose(
                    &y,
                    &golden(&format!("convolve_{name}"), &cpu),
                    1e-12,
                    1e-13,
                    "fftconvolve",
                );
            }
        }
    }
}

#[test]
fn naive_sizes_and_complex() {
    let cpu = Device::cpu();
    for (n, m) in [
        (1usize, 1usize),
        (2, 5),
        (31, 32),
        (33, 7),
        (257, 64),
        (100, 300),
    ] {
        let av: Vec<c64> = randn_vec::<f64>(2 * n, 1)
            .chunks(2)
            .map(|p| c64::new(p[0], p[1]))
            .collect();
        let vv: Vec<c64> = randn_vec::<f64>(2 * m, 2)
            .chunks(2)
            .map(|p| c64::new(p[0], p[1]))
            .collect();
        let full = naive_full(&av, &vv);
        let rev: Vec<c64> = vv.iter().rev().map(|x| x.conj()).collect();
        let cfull = naive_full(&av, &rev);
        let e_full = Array::from_vec(full.clone(), &[n + m - 1], &cpu).unwrap();
        for dev in devices() {
            let a = Array::from_vec(av.clone(), &[n], &dev).unwrap();
            let v = Array::from_vec(vv.clone(), &[m], &dev).unwrap();
            for method in [ConvMethod::Direct, ConvMethod::Fft] {
                let ctx = format!("n={n} m={m} {method:?} on {dev}");
                let o = ConvOptions {
                    mode: ConvMode::Full,
                    method,
                };
                if let Some(y) = fft_ok(convolve(&a, &v, &o), &dev) {
                    assert_allclose(&y, &e_full, 1e-12, 1e-12, &ctx);
                }
                let o = ConvOptions {
                    mode: ConvMode::Valid,
                    method,
                };
                if let Some(y) = fft_ok(correlate(&a, &v, &o), &dev) {
                    let len = n.max(m) - n.min(m) + 1;
                    let s = (n + m - 1 - len) / 2;
                    assert_slices_close(
                        &y.to_vec().unwrap(),
                        &cfull[s..s + len],
                        &[len],
                        1e-12,
                        1e-12,
                        &ctx,
                    );
                }
            }
        }
        // f32 direct against the f64 naive result
        let a32: Vec<f32> = av.iter().map(|x| x.re as f32).collect();
        let v32: Vec<f32> = vv.iter().map(|x| x.re as f32).collect();
        let re: Vec<c64> = av
            .iter()
            .map(|x| c64::new(x.re as f32 as f64, 0.0))
            .collect();
        let rv: Vec<c64> = vv
            .iter()
            .map(|x| c64::new(x.re as f32 as f64, 0.0))
            .collect();
        let e: Vec<f32> = naive_full(&re, &rv).iter().map(|x| x.re as f32).collect();
        for dev in devices() {
            let a = Array::from_vec(a32.clone(), &[n], &dev).unwrap();
            let v = Array::from_vec(v32.clone(), &[m], &dev).unwrap();
            let o = ConvOptions {
                mode: ConvMode::Full,
                method: ConvMethod::Direct,
            };
            let y = convolve(&a, &v, &o).unwrap();
            assert_slices_close(&y.to_vec().unwrap(), &e, &[n + m - 1], 1e-4, 1e-4, "f32");
        }
    }
}

#[test]
fn bad_input_same_typed_errors() {
    for dev in devices() {
        let a = Array::<f64>::ones(&[2, 3], &dev).unwrap();
        let v = Array::<f64>::ones(&[3], &dev).unwrap();
        let e = Array::<f64>::zeros(&[0], &dev).unwrap();
        let o = ConvOptions::default();
        assert!(matches!(
            convolve(&a, &v, &o),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            correlate(&e, &v, &o),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            fftconvolve(&v, &e, ConvMode::Full),
            Err(Error::InvalidArgument { .. })
        ));
    }
    let t = Array::<f64>::zeros(&[10], &Device::Cpu).unwrap();
    assert_eq!(
        choose_conv_method(&t, &t, ConvMode::Full).unwrap(),
        ConvMethod::Direct
    );
}

/// A naive N-D full convolution of C-contiguous arrays (the oracle of the N-D direct method).
fn naive_full_nd(a: &[f64], sa: &[usize], v: &[f64], sv: &[usize]) -> (Vec<f64>, Vec<usize>) {
    let so: Vec<usize> = sa.iter().zip(sv).map(|(x, y)| x + y - 1).collect();
    let coords = |mut i: usize, s: &[usize]| {
        let mut c = vec![0; s.len()];
        for d in (0..s.len()).rev() {
            c[d] = i % s[d];
            i /= s[d];
        }
        c
    };
    let flat = |c: &[usize], s: &[usize]| c.iter().zip(s).fold(0, |acc, (x, n)| acc * n + x);
    let mut y = vec![0.0; so.iter().product()];
    for (i, &x) in a.iter().enumerate() {
        let ci = coords(i, sa);
        for (j, &w) in v.iter().enumerate() {
            let cj = coords(j, sv);
            let co: Vec<usize> = ci.iter().zip(&cj).map(|(p, q)| p + q).collect();
            y[flat(&co, &so)] += x * w;
        }
    }
    (y, so)
}

#[test]
fn direct_method_of_three_and_more_axes_matches_a_naive_sum_and_the_fft() {
    for (sa, sv) in [
        (vec![4, 5, 6], vec![2, 3, 2]),
        (vec![3, 1, 7, 2], vec![2, 1, 3, 2]),
        (vec![2, 3, 4], vec![3, 4, 5]), // the kernel larger on every axis
    ] {
        let av = randn_vec::<f64>(sa.iter().product(), 5);
        let vv = randn_vec::<f64>(sv.iter().product(), 6);
        let (full, so) = naive_full_nd(&av, &sa, &vv, &sv);
        let full_cpu = Array::from_vec(full, &so, &Device::Cpu).unwrap();
        for dev in devices() {
            let a = Array::from_vec(av.clone(), &sa, &dev).unwrap();
            let v = Array::from_vec(vv.clone(), &sv, &dev).unwrap();
            for mode in [ConvMode::Full, ConvMode::Same, ConvMode::Valid] {
                let direct = ConvOptions {
                    mode,
                    method: ConvMethod::Direct,
                };
                let fft = ConvOptions {
                    mode,
                    method: ConvMethod::Fft,
                };
                let y = convolve(&a, &v, &direct).unwrap();
                let e = convolve(&a, &v, &fft).unwrap();
                assert_eq!(y.shape(), e.shape(), "{sa:?} {sv:?} {mode:?}");
                assert_allclose(
                    &y,
                    &e,
                    1e-12,
                    1e-12,
                    &format!("convolve {sa:?} {sv:?} {mode:?} on {dev}"),
                );
                let yc = correlate(&a, &v, &direct).unwrap();
                let ec = correlate(&a, &v, &fft).unwrap();
                assert_allclose(
                    &yc,
                    &ec,
                    1e-12,
                    1e-12,
                    &format!("correlate {sa:?} {sv:?} {mode:?} on {dev}"),
                );
                if mode == ConvMode::Full {
                    let y = y.to_device(&Device::Cpu).unwrap();
                    assert_allclose(
                        &y,
                        &full_cpu,
                        1e-12,
                        1e-12,
                        &format!("naive {sa:?} {sv:?} on {dev}"),
                    );
                }
            }
        }
    }
}

#[test]
fn fftconvolve_broadcasts_length_one_axes_as_scipy() {
    // SciPy's fftconvolve leaves the axes where either input has length 1 out of the transform
    // (a product there), so `valid` takes (5, 4, 1) with (2, 3, 6): (4, 2, 6)
    let av = randn_vec::<f64>(20, 7);
    let vv = randn_vec::<f64>(36, 8);
    for dev in devices() {
        let a = Array::from_vec(av.clone(), &[5, 4, 1], &dev).unwrap();
        let v = Array::from_vec(vv.clone(), &[2, 3, 6], &dev).unwrap();
        let y = fftconvolve(&a, &v, ConvMode::Valid).unwrap();
        assert_eq!(y.shape(), &[4, 2, 6]);
        let a2 = a.reshape(&[5, 4]).unwrap();
        for k in 0..6isize {
            let vk = v
                .slice_axis(2, Some(k), Some(k + 1), 1)
                .unwrap()
                .reshape(&[2, 3])
                .unwrap();
            let e = fftconvolve(&a2, &vk, ConvMode::Valid).unwrap();
            let yk = y
                .slice_axis(2, Some(k), Some(k + 1), 1)
                .unwrap()
                .reshape(&[4, 2])
                .unwrap();
            assert_allclose(&yk, &e, 1e-12, 1e-12, &format!("slice {k} on {dev}"));
        }
        // convolve compares every axis: neither input contains the other
        let o = ConvOptions {
            mode: ConvMode::Valid,
            method: ConvMethod::Fft,
        };
        assert!(matches!(
            convolve(&a, &v, &o),
            Err(Error::InvalidArgument { .. })
        ));
        // axes given but empty: SciPy's ValueError
        assert!(matches!(
            fftconvolve_axes(&a, &v, ConvMode::Full, Some(&[])),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
