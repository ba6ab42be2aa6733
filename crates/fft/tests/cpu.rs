//! The CPU reference of cusci-fft against a naive O(n²) DFT, identities, and known values.

use cusci_core::testing::{gpu, randn_vec};
use cusci_core::{c32, c64, Array, Device, Error};
use cusci_fft::*;
use std::f64::consts::PI;

fn cpu() -> Device {
    Device::cpu()
}

/// The naive DFT of `x` with `n` points (cut or zero-padded), sign -1 forward, no scaling.
fn dft(x: &[c64], n: usize, forward: bool) -> Vec<c64> {
    let sign = if forward { -1.0 } else { 1.0 };
    (0..n)
        .map(|k| {
            let mut acc = c64::new(0.0, 0.0);
            for (j, &v) in x.iter().take(n).enumerate() {
                // reduce j*k mod n exactly before the angle, for accuracy at large n
                let ang = sign * 2.0 * PI * (((j * k) % n) as f64) / n as f64;
                acc += v * c64::new(ang.cos(), ang.sin());
            }
            acc
        })
        .collect()
}

fn max_err(a: &[c64], b: &[c64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).norm())
        .fold(0.0, f64::max)
}

fn max_abs(a: &[c64]) -> f64 {
    a.iter().map(|v| v.norm()).fold(1.0, f64::max)
}

fn cvec(n: usize, seed: u64) -> Vec<c64> {
    randn_vec::<c64>(n, seed)
}

fn arr<T: cusci_core::Element>(v: Vec<T>, shape: &[usize]) -> Array<T> {
    Array::from_vec(v, shape, &cpu()).unwrap()
}

fn opts(n: Option<usize>, axis: isize, norm: Norm) -> FftOptions {
    FftOptions {
        n,
        axis,
        norm,
        plan: None,
    }
}

fn assert_close(a: &[c64], b: &[c64], tol: f64, ctx: &str) {
    let e = max_err(a, b);
    assert!(
        e <= tol * max_abs(b),
        "{ctx}: max error {e:e} (tol {tol:e})"
    );
}

#[test]
fn fft_matches_naive_dft_for_all_small_lengths_and_primes() {
    let mut sizes: Vec<usize> = (1..=64).collect();
    sizes.extend([127, 257, 1009]);
    for &n in &sizes {
        let x = cvec(n, n as u64);
        let a = arr(x.clone(), &[n]);
        let d = FftOptions::default();
        let y = fft(&a, &d).unwrap().to_vec().unwrap();
        assert_close(
            &y,
            &dft(&x, n, true),
            1e-13 * (n as f64).log2().max(1.0),
            &format!("fft n={n}"),
        );
        let yi = ifft(&a, &d).unwrap().to_vec().unwrap();
        let mut e = dft(&x, n, false);
        e.iter_mut().for_each(|v| *v /= n as f64);
        assert_close(
            &yi,
            &e,
            1e-13 * (n as f64).log2().max(1.0),
            &format!("ifft n={n}"),
        );
        // real input: rfft = first n/2+1 of the DFT; fft of real input = the whole DFT
        let xr: Vec<f64> = x.iter().map(|v| v.re).collect();
        let xrc: Vec<c64> = xr.iter().map(|&v| c64::new(v, 0.0)).collect();
        let full = dft(&xrc, n, true);
        let r = rfft(&arr(xr.clone(), &[n]), &d).unwrap().to_vec().unwrap();
        assert_close(
            &r,
            &full[..n / 2 + 1],
            1e-13 * (n as f64).log2().max(1.0),
            &format!("rfft n={n}"),
        );
        let fr = fft(&arr(xr, &[n]), &d).unwrap().to_vec().unwrap();
        assert_close(
            &fr,
            &full,
            1e-13 * (n as f64).log2().max(1.0),
            &format!("fft(real) n={n}"),
        );
    }
}

#[test]
fn large_power_of_two_against_naive_dft() {
    for (n, seed) in [(1usize << 14, 7u64), (65537, 8)] {
        large_against_naive(n, seed);
    }
}

/// `fft` of `n` points against the naive DFT at a subset of frequencies (a prime `n` runs
/// rustfft's Rader / Bluestein paths).
fn large_against_naive(n: usize, seed: u64) {
    let x = cvec(n, seed);
    let y = fft(&arr(x.clone(), &[n]), &FftOptions::default())
        .unwrap()
        .to_vec()
        .unwrap();
    // the naive DFT at a subset of frequencies (all n² would be slow in debug)
    let naive = |k: usize| {
        let mut acc = c64::new(0.0, 0.0);
        for (j, &v) in x.iter().enumerate() {
            let ang = -2.0 * PI * (((j * k) % n) as f64) / n as f64;
            acc += v * c64::new(ang.cos(), ang.sin());
        }
        acc
    };
    let scale = (n as f64).sqrt();
    for k in (0..n).step_by(97).chain([1, n / 2, n - 1]) {
        let e = (y[k] - naive(k)).norm();
        assert!(e < 1e-11 * scale, "n={n} k={k}: error {e:e}");
    }
}

#[test]
fn single_precision_is_close_to_double() {
    for n in [1usize, 2, 3, 17, 64, 100, 257] {
        let x = cvec(n, 3 + n as u64);
        let x32: Vec<c32> = x
            .iter()
            .map(|v| c32::new(v.re as f32, v.im as f32))
            .collect();
        let y = fft(&arr(x32, &[n]), &FftOptions::default())
            .unwrap()
            .to_vec()
            .unwrap();
        let y: Vec<c64> = y
            .iter()
            .map(|v| c64::new(v.re as f64, v.im as f64))
            .collect();
        assert_close(&y, &dft(&x, n, true), 1e-5, &format!("c32 n={n}"));
        let xr: Vec<f32> = x.iter().map(|v| v.re as f32).collect();
        let back = irfft(
            &rfft(&arr(xr.clone(), &[n]), &FftOptions::default()).unwrap(),
            &opts(Some(n), -1, Norm::Backward),
        )
        .unwrap()
        .to_vec()
        .unwrap();
        for (a, b) in back.iter().zip(&xr) {
            assert!((a - b).abs() < 1e-5, "f32 irfft(rfft) n={n}");
        }
    }
}

#[test]
fn round_trips_and_parseval() {
    for n in [1usize, 2, 5, 8, 31, 32, 33, 100, 255, 256, 257] {
        let x = cvec(n, 100 + n as u64);
        let a = arr(x.clone(), &[n]);
        for norm in [Norm::Backward, Norm::Ortho, Norm::Forward] {
            let o = opts(None, -1, norm);
            let back = ifft(&fft(&a, &o).unwrap(), &o).unwrap().to_vec().unwrap();
            assert_close(&back, &x, 1e-13, &format!("ifft(fft) n={n} {norm:?}"));
        }
        // Parseval with the unitary normalisation
        let y = fft(&a, &opts(None, -1, Norm::Ortho))
            .unwrap()
            .to_vec()
            .unwrap();
        let ex: f64 = x.iter().map(|v| v.norm_sqr()).sum();
        let ey: f64 = y.iter().map(|v| v.norm_sqr()).sum();
        assert!((ex - ey).abs() < 1e-12 * ex, "Parseval n={n}: {ex} vs {ey}");
        // irfft(rfft(x), n) = x for even and odd n
        let xr: Vec<f64> = x.iter().map(|v| v.re).collect();
        for norm in [Norm::Backward, Norm::Ortho, Norm::Forward] {
            let o = opts(Some(n), -1, norm);
            let back = irfft(&rfft(&arr(xr.clone(), &[n]), &o).unwrap(), &o)
                .unwrap()
                .to_vec()
                .unwrap();
            let err = back
                .iter()
                .zip(&xr)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(err < 1e-12, "irfft(rfft) n={n} {norm:?}: {err:e}");
            // hfft / ihfft are inverse too
            let back = hfft(&ihfft(&arr(xr.clone(), &[n]), &o).unwrap(), &o)
                .unwrap()
                .to_vec()
                .unwrap();
            let err = back
                .iter()
                .zip(&xr)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(err < 1e-12, "hfft(ihfft) n={n} {norm:?}: {err:e}");
        }
    }
}

#[test]
fn real_input_spectrum_is_hermitian() {
    let n = 12;
    let xr = randn_vec::<f64>(n, 5);
    let y = fft(&arr(xr, &[n]), &FftOptions::default())
        .unwrap()
        .to_vec()
        .unwrap();
    for k in 1..n {
        assert!((y[k] - y[n - k].conj()).norm() < 1e-12, "k={k}");
    }
    assert!(y[0].im.abs() < 1e-14 && y[n / 2].im.abs() < 1e-13);
}

#[test]
fn hfft_and_ihfft_match_their_definitions() {
    // hfft(x, n) = n * irfft(conj(x), n) with the default norm; ihfft(x) = conj(rfft(x)) / n
    let m = 5;
    let x = cvec(m, 9);
    let n = 8;
    let h = hfft(&arr(x.clone(), &[m]), &opts(Some(n), -1, Norm::Backward))
        .unwrap()
        .to_vec()
        .unwrap();
    let xc: Vec<c64> = x.iter().map(|v| v.conj()).collect();
    let i = irfft(&arr(xc, &[m]), &opts(Some(n), -1, Norm::Backward))
        .unwrap()
        .to_vec()
        .unwrap();
    for (a, b) in h.iter().zip(&i) {
        assert!((a - b * n as f64).abs() < 1e-12);
    }
    // the full Hermitian signal's DFT is real and equals hfft
    let mut full = vec![c64::new(0.0, 0.0); n];
    for k in 0..=n / 2 {
        full[k] = x[k];
        if k > 0 && k < n / 2 {
            full[n - k] = x[k].conj();
        }
    }
    full[0].im = 0.0;
    full[n / 2].im = 0.0;
    let d = dft(&full, n, true);
    for (a, b) in h.iter().zip(&d) {
        assert!((a - b.re).abs() < 1e-12 && b.im.abs() < 1e-12);
    }
    let xr = randn_vec::<f64>(7, 11);
    let ih = ihfft(&arr(xr.clone(), &[7]), &FftOptions::default())
        .unwrap()
        .to_vec()
        .unwrap();
    let r = rfft(&arr(xr, &[7]), &FftOptions::default())
        .unwrap()
        .to_vec()
        .unwrap();
    for (a, b) in ih.iter().zip(&r) {
        assert!((a - b.conj() / 7.0).norm() < 1e-13);
    }
}

#[test]
fn norm_modes_scale_as_scipy() {
    let n = 16;
    let x = cvec(n, 21);
    let a = arr(x.clone(), &[n]);
    let base = dft(&x, n, true);
    let s = (n as f64).sqrt();
    for (norm, f) in [
        (Norm::Backward, 1.0),
        (Norm::Ortho, 1.0 / s),
        (Norm::Forward, 1.0 / n as f64),
    ] {
        let y = fft(&a, &opts(None, -1, norm)).unwrap().to_vec().unwrap();
        let e: Vec<c64> = base.iter().map(|v| v * f).collect();
        assert_close(&y, &e, 1e-13, &format!("{norm:?}"));
    }
    let inv = dft(&x, n, false);
    for (norm, f) in [
        (Norm::Backward, 1.0 / n as f64),
        (Norm::Ortho, 1.0 / s),
        (Norm::Forward, 1.0),
    ] {
        let y = ifft(&a, &opts(None, -1, norm)).unwrap().to_vec().unwrap();
        let e: Vec<c64> = inv.iter().map(|v| v * f).collect();
        assert_close(&y, &e, 1e-13, &format!("inverse {norm:?}"));
    }
    assert_eq!(Norm::default(), Norm::Backward);
}

#[test]
fn n_pads_and_truncates() {
    let x = cvec(10, 31);
    let a = arr(x.clone(), &[10]);
    for n in [1usize, 4, 10, 16, 23] {
        let y = fft(&a, &opts(Some(n), -1, Norm::Backward))
            .unwrap()
            .to_vec()
            .unwrap();
        assert_eq!(y.len(), n);
        assert_close(&y, &dft(&x, n, true), 1e-13, &format!("n={n}"));
        let xr: Vec<f64> = x.iter().map(|v| v.re).collect();
        let xrc: Vec<c64> = xr.iter().take(n).map(|&v| c64::new(v, 0.0)).collect();
        let r = rfft(&arr(xr, &[10]), &opts(Some(n), -1, Norm::Backward))
            .unwrap()
            .to_vec()
            .unwrap();
        assert_close(
            &r,
            &dft(&xrc, n, true)[..n / 2 + 1],
            1e-13,
            &format!("rfft n={n}"),
        );
    }
    // irfft's default n is 2*(m-1); a given n cuts or pads the spectrum to n/2+1 points
    let spec = arr(cvec(6, 4), &[6]);
    assert_eq!(irfft(&spec, &FftOptions::default()).unwrap().shape(), &[10]);
    assert_eq!(
        irfft(&spec, &opts(Some(3), -1, Norm::Backward))
            .unwrap()
            .shape(),
        &[3]
    );
    assert_eq!(
        irfft(&spec, &opts(Some(31), -1, Norm::Backward))
            .unwrap()
            .shape(),
        &[31]
    );
    assert_eq!(hfft(&spec, &FftOptions::default()).unwrap().shape(), &[10]);
}

/// Applies `f` to every 1-D lane of a C-order `shape` along `axis` (naively).
fn along_axis(x: &[c64], shape: &[usize], axis: usize, f: impl Fn(&[c64]) -> Vec<c64>) -> Vec<c64> {
    let m = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let mut out = vec![c64::new(0.0, 0.0); x.len()];
    for o in 0..outer {
        for i in 0..inner {
            let lane: Vec<c64> = (0..m).map(|k| x[o * m * inner + k * inner + i]).collect();
            for (k, v) in f(&lane).into_iter().enumerate() {
                out[o * m * inner + k * inner + i] = v;
            }
        }
    }
    out
}

#[test]
fn axes_other_than_the_last_and_negative_axes() {
    let shape = [3usize, 4, 5];
    let x = cvec(60, 41);
    let a = arr(x.clone(), &shape);
    for (axis, ax) in [(0isize, 0usize), (1, 1), (-3, 0), (-2, 1), (2, 2)] {
        let y = fft(&a, &opts(None, axis, Norm::Backward))
            .unwrap()
            .to_vec()
            .unwrap();
        let e = along_axis(&x, &shape, ax, |l| dft(l, l.len(), true));
        assert_close(&y, &e, 1e-13, &format!("axis {axis}"));
    }
    // a non-contiguous view (transposed) gives the transform of its elements
    let t = a.permute(&[2, 0, 1]).unwrap();
    let y = fft(&t, &opts(None, 0, Norm::Backward)).unwrap();
    assert_eq!(y.shape(), &[5, 3, 4]);
    let yc = fft(&t.contiguous().unwrap(), &opts(None, 0, Norm::Backward)).unwrap();
    assert_close(&y.to_vec().unwrap(), &yc.to_vec().unwrap(), 1e-15, "view");
    // rfft along axis 0 with padding
    let xr: Vec<f64> = x.iter().map(|v| v.re).collect();
    let r = rfft(&arr(xr.clone(), &shape), &opts(Some(6), 0, Norm::Backward)).unwrap();
    assert_eq!(r.shape(), &[4, 4, 5]);
    let back = irfft(&r, &opts(Some(6), 0, Norm::Backward)).unwrap();
    assert_eq!(back.shape(), &[6, 4, 5]);
    let b = back.to_vec().unwrap();
    for (i, &v) in xr.iter().enumerate() {
        assert!((b[i] - v).abs() < 1e-12, "padded rows come back at {i}");
    }
    assert!(
        b[60..].iter().all(|v| v.abs() < 1e-12),
        "zero padding comes back as zeros"
    );
}

#[test]
fn fftn_is_successive_1d_transforms() {
    let shape = [4usize, 3, 6];
    let x = cvec(72, 51);
    let a = arr(x.clone(), &shape);
    let all = fftn(&a, &FftnOptions::default()).unwrap().to_vec().unwrap();
    let mut e = x.clone();
    for ax in 0..3 {
        e = along_axis(&e, &shape, ax, |l| dft(l, l.len(), true));
    }
    assert_close(&all, &e, 1e-13, "fftn 3-d");
    let back = ifftn(
        &fftn(&a, &FftnOptions::default()).unwrap(),
        &FftnOptions::default(),
    )
    .unwrap()
    .to_vec()
    .unwrap();
    assert_close(&back, &x, 1e-13, "ifftn(fftn)");
    // fft2 = the last two axes
    let y2 = fft2(&a, &FftnOptions::default()).unwrap().to_vec().unwrap();
    let mut e2 = along_axis(&x, &shape, 2, |l| dft(l, l.len(), true));
    e2 = along_axis(&e2, &shape, 1, |l| dft(l, l.len(), true));
    assert_close(&y2, &e2, 1e-13, "fft2");
    let b2 = ifft2(
        &fft2(&a, &FftnOptions::default()).unwrap(),
        &FftnOptions::default(),
    )
    .unwrap();
    assert_close(&b2.to_vec().unwrap(), &x, 1e-13, "ifft2(fft2)");
    // chosen axes, with ortho norm
    let o = FftnOptions {
        axes: Some(vec![0, -1]),
        norm: Norm::Ortho,
        ..Default::default()
    };
    let y = fftn(&a, &o).unwrap().to_vec().unwrap();
    let mut e3 = along_axis(&x, &shape, 0, |l| dft(l, l.len(), true));
    e3 = along_axis(&e3, &shape, 2, |l| dft(l, l.len(), true));
    let f = 1.0 / (24f64).sqrt();
    let e3: Vec<c64> = e3.iter().map(|v| v * f).collect();
    assert_close(&y, &e3, 1e-13, "fftn axes (0,-1) ortho");
    // s pads: the last len(s) axes
    let o = FftnOptions {
        s: Some(vec![5, 8]),
        ..Default::default()
    };
    let y = fftn(&a, &o).unwrap();
    assert_eq!(y.shape(), &[4, 5, 8]);
    // 2-D real transforms against the complex ones
    let xr: Vec<f64> = x.iter().map(|v| v.re).collect();
    let ar = arr(xr.clone(), &shape);
    let r = rfftn(&ar, &FftnOptions::default()).unwrap();
    assert_eq!(r.shape(), &[4, 3, 4]);
    let full = fftn(&ar, &FftnOptions::default())
        .unwrap()
        .to_vec()
        .unwrap();
    let rv = r.to_vec().unwrap();
    for i in 0..12 {
        for k in 0..4 {
            assert!((rv[i * 4 + k] - full[i * 6 + k]).norm() < 1e-12);
        }
    }
    let back = irfftn(
        &r,
        &FftnOptions {
            s: Some(vec![4, 3, 6]),
            ..Default::default()
        },
    )
    .unwrap();
    let bv = back.to_vec().unwrap();
    assert!(
        bv.iter().zip(&xr).all(|(a, b)| (a - b).abs() < 1e-12),
        "irfftn(rfftn)"
    );
    let r2 = rfft2(&ar, &FftnOptions::default()).unwrap();
    assert_eq!(r2.shape(), &[4, 3, 4]);
    let b2 = irfft2(
        &r2,
        &FftnOptions {
            s: Some(vec![3, 6]),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(
        b2.to_vec()
            .unwrap()
            .iter()
            .zip(&xr)
            .all(|(a, b)| (a - b).abs() < 1e-12),
        "irfft2(rfft2)"
    );
    // odd last length needs s
    let odd = arr(randn_vec::<f64>(15, 3), &[3, 5]);
    let back = irfftn(
        &rfftn(&odd, &FftnOptions::default()).unwrap(),
        &FftnOptions::default(),
    )
    .unwrap();
    assert_eq!(back.shape(), &[3, 4]);
    // rfftn over axes (1, 0): the real transform runs along the last listed axis (0)
    let o = FftnOptions {
        axes: Some(vec![1, 0]),
        ..Default::default()
    };
    let r = rfftn(&odd, &o).unwrap();
    assert_eq!(r.shape(), &[2, 5]);
    let b = irfftn(
        &r,
        &FftnOptions {
            s: Some(vec![5, 3]),
            axes: Some(vec![1, 0]),
            ..Default::default()
        },
    )
    .unwrap();
    let ov = odd.to_vec().unwrap();
    assert!(b
        .to_vec()
        .unwrap()
        .iter()
        .zip(&ov)
        .all(|(a, b)| (a - b).abs() < 1e-12));
}

#[test]
fn empty_outer_dimensions_give_empty_results() {
    let a = Array::<c64>::zeros(&[0, 4], &cpu()).unwrap();
    assert_eq!(fft(&a, &FftOptions::default()).unwrap().shape(), &[0, 4]);
    let r = Array::<f32>::zeros(&[3, 0, 8], &cpu()).unwrap();
    assert_eq!(
        rfft(&r, &FftOptions::default()).unwrap().shape(),
        &[3, 0, 5]
    );
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let shape = [64usize, 48];
    let x = cvec(64 * 48, 61);
    let a = arr(x, &shape);
    let y1 = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| {
            fft(&a, &opts(None, 0, Norm::Ortho))
                .unwrap()
                .to_vec()
                .unwrap()
        });
    let y4 = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap()
        .install(|| {
            fft(&a, &opts(None, 0, Norm::Ortho))
                .unwrap()
                .to_vec()
                .unwrap()
        });
    assert_eq!(y1, y4);
}

#[test]
fn fftfreq_and_rfftfreq_known_values() {
    // scipy.fft.fftfreq(8, 0.1) = [0, 1.25, 2.5, 3.75, -5, -3.75, -2.5, -1.25]
    let f = fftfreq::<f64>(8, 0.1, &cpu()).unwrap().to_vec().unwrap();
    let e = [0.0, 1.25, 2.5, 3.75, -5.0, -3.75, -2.5, -1.25];
    assert!(f.iter().zip(e).all(|(a, b)| (a - b).abs() < 1e-12), "{f:?}");
    let f = fftfreq::<f64>(5, 1.0, &cpu()).unwrap().to_vec().unwrap();
    let e = [0.0, 0.2, 0.4, -0.4, -0.2];
    assert!(f.iter().zip(e).all(|(a, b)| (a - b).abs() < 1e-15), "{f:?}");
    assert_eq!(
        fftfreq::<f32>(1, 1.0, &cpu()).unwrap().to_vec().unwrap(),
        vec![0.0]
    );
    // rfftfreq(8, 0.1) = [0, 1.25, 2.5, 3.75, 5]; rfftfreq(7, 0.5) = [0, 2/7, 4/7, 6/7]
    let f = rfftfreq::<f64>(8, 0.1, &cpu()).unwrap().to_vec().unwrap();
    let e = [0.0, 1.25, 2.5, 3.75, 5.0];
    assert!(
        f.len() == 5 && f.iter().zip(e).all(|(a, b)| (a - b).abs() < 1e-12),
        "{f:?}"
    );
    let f = rfftfreq::<f64>(7, 0.5, &cpu()).unwrap().to_vec().unwrap();
    let e = [0.0, 2.0 / 7.0, 4.0 / 7.0, 6.0 / 7.0];
    assert!(
        f.len() == 4 && f.iter().zip(e).all(|(a, b)| (a - b).abs() < 1e-15),
        "{f:?}"
    );
    assert!(matches!(
        fftfreq::<f64>(0, 1.0, &cpu()),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        rfftfreq::<f64>(4, 0.0, &cpu()),
        Err(Error::InvalidArgument { .. })
    ));
}

#[test]
fn fftshift_and_ifftshift_known_values() {
    let v = |x: Vec<f64>, s: &[usize]| arr(x, s);
    // fftshift(fftfreq(10, 0.1)) = [-5, -4, ..., 4]
    let f = fftfreq::<f64>(10, 0.1, &cpu()).unwrap();
    let s = fftshift(&f, None).unwrap().to_vec().unwrap();
    let e: Vec<f64> = (-5..5).map(f64::from).collect();
    assert!(
        s.iter().zip(&e).all(|(a, b)| (a - b).abs() < 1e-12),
        "{s:?}"
    );
    // odd lengths: fftshift([0,1,2,3,4]) = [3,4,0,1,2]; ifftshift = [2,3,4,0,1]
    let x = v(vec![0.0, 1.0, 2.0, 3.0, 4.0], &[5]);
    assert_eq!(
        fftshift(&x, None).unwrap().to_vec().unwrap(),
        vec![3.0, 4.0, 0.0, 1.0, 2.0]
    );
    assert_eq!(
        ifftshift(&x, None).unwrap().to_vec().unwrap(),
        vec![2.0, 3.0, 4.0, 0.0, 1.0]
    );
    // 2-D, SciPy's example: freqs = fftfreq(9, 1/9).reshape(3, 3) = [[0,1,2],[3,4,-4],[-3,-2,-1]]
    let freqs = v(
        vec![0.0, 1.0, 2.0, 3.0, 4.0, -4.0, -3.0, -2.0, -1.0],
        &[3, 3],
    );
    let s = fftshift(&freqs, Some(&[1])).unwrap().to_vec().unwrap();
    assert_eq!(s, vec![2.0, 0.0, 1.0, -4.0, 3.0, 4.0, -1.0, -3.0, -2.0]);
    let s = fftshift(&freqs, None).unwrap().to_vec().unwrap();
    assert_eq!(s, vec![-1.0, -3.0, -2.0, 2.0, 0.0, 1.0, -4.0, 3.0, 4.0]);
    let back = ifftshift(&fftshift(&freqs, None).unwrap(), None).unwrap();
    assert_eq!(back.to_vec().unwrap(), freqs.to_vec().unwrap());
    // negative axes, 3-d with an even axis, a non-contiguous view, complex elements
    let c = arr(cvec(24, 3), &[2, 3, 4]);
    let a = fftshift(&c, Some(&[-1, 0])).unwrap();
    let b = ifftshift(&a, Some(&[2, -3])).unwrap();
    assert_eq!(b.to_vec().unwrap(), c.to_vec().unwrap());
    let t = c.permute(&[2, 1, 0]).unwrap();
    assert_eq!(
        fftshift(&t, None).unwrap().to_vec().unwrap(),
        fftshift(&t.contiguous().unwrap(), None)
            .unwrap()
            .to_vec()
            .unwrap()
    );
    assert!(matches!(
        fftshift(&x, Some(&[1])),
        Err(Error::InvalidArgument { .. })
    ));
}

#[test]
fn next_fast_len_known_values() {
    assert_eq!(next_fast_len(1021, false).unwrap(), 1024);
    assert_eq!(next_fast_len(1021, true).unwrap(), 1024);
    assert_eq!(next_fast_len(93059, true).unwrap(), 93312); // SciPy's docs: 2^7·3^6
    assert_eq!(next_fast_len(13, false).unwrap(), 14); // 2·7
    assert_eq!(next_fast_len(13, true).unwrap(), 15); // 3·5
    assert_eq!(next_fast_len(11, false).unwrap(), 11);
    assert_eq!(next_fast_len(11, true).unwrap(), 12);
    assert_eq!(next_fast_len(1, true).unwrap(), 1);
    assert_eq!(next_fast_len(7, true).unwrap(), 8);
    assert_eq!(next_fast_len(97, false).unwrap(), 98); // 2·7²
    assert_eq!(next_fast_len(97, true).unwrap(), 100);
    assert_eq!(next_fast_len(1025, false).unwrap(), 1029); // 3·7³
    assert_eq!(next_fast_len(1025, true).unwrap(), 1080); // 2³·3³·5
                                                          // the brute-force answer for every target up to 2000
    for t in 1..=2000usize {
        for (real, maxp) in [(false, 11usize), (true, 5)] {
            let smooth = |mut v: usize| {
                for p in [2, 3, 5, 7, 11].into_iter().filter(|&p| p <= maxp) {
                    while v % p == 0 {
                        v /= p;
                    }
                }
                v == 1
            };
            let e = (t..).find(|&v| smooth(v)).unwrap();
            assert_eq!(next_fast_len(t, real).unwrap(), e, "target {t} real {real}");
        }
    }
    // SciPy 1.17: next_fast_len(0) == 0
    assert_eq!(next_fast_len(0, false).unwrap(), 0);
    assert!(next_fast_len(usize::MAX, true).is_err());
}

#[test]
fn prev_fast_len_known_values() {
    // SciPy 1.17.1's answers
    let scipy = [
        (0, 0, 0),
        (1, 1, 1),
        (2, 2, 2),
        (7, 7, 6),
        (11, 11, 10),
        (13, 12, 12),
        (97, 96, 96),
        (1000, 1000, 1000),
        (1021, 1008, 1000),
        ((1 << 20) + 1, 1 << 20, 1 << 20),
    ];
    for (t, complex, real) in scipy {
        assert_eq!(prev_fast_len(t, false), complex, "target {t}");
        assert_eq!(prev_fast_len(t, true), real, "target {t} real");
    }
    // the brute-force answer for every target up to 2000, and next_fast_len's fixed points
    for t in 1..=2000usize {
        for (real, maxp) in [(false, 11usize), (true, 5)] {
            let smooth = |mut v: usize| {
                for p in [2, 3, 5, 7, 11].into_iter().filter(|&p| p <= maxp) {
                    while v % p == 0 {
                        v /= p;
                    }
                }
                v == 1
            };
            let e = (1..=t).rev().find(|&v| smooth(v)).unwrap();
            assert_eq!(prev_fast_len(t, real), e, "target {t} real {real}");
        }
    }
    // the largest targets: an answer that divides into small primes, no overflow
    for real in [false, true] {
        let p = prev_fast_len(usize::MAX, real);
        assert!(p > usize::MAX / 2, "{p}");
        assert_eq!(next_fast_len(p, real).unwrap(), p);
    }
}

#[test]
fn bad_inputs_give_typed_errors() {
    let x = arr(cvec(8, 1), &[2, 4]);
    let xr = arr(randn_vec::<f64>(8, 1), &[2, 4]);
    let is_arg = |r: Result<Array<c64>>| matches!(r, Err(Error::InvalidArgument { .. }));
    let is_arg_r = |r: Result<Array<f64>>| matches!(r, Err(Error::InvalidArgument { .. }));
    let d = FftOptions::default();
    // n = 0, axis out of range
    assert!(is_arg(fft(
        &x,
        &FftOptions {
            n: Some(0),
            ..d.clone()
        }
    )));
    let e = fft(
        &x,
        &FftOptions {
            n: Some(0),
            ..d.clone()
        },
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("invalid number of data points"),
        "{e}"
    );
    assert!(is_arg(fft(
        &x,
        &FftOptions {
            axis: 2,
            ..d.clone()
        }
    )));
    assert!(is_arg(ifft(
        &x,
        &FftOptions {
            axis: -3,
            ..d.clone()
        }
    )));
    assert!(is_arg(rfft(
        &xr,
        &FftOptions {
            axis: 5,
            ..d.clone()
        }
    )));
    assert!(is_arg_r(irfft(
        &x,
        &FftOptions {
            n: Some(0),
            ..d.clone()
        }
    )));
    // an empty axis without n
    let empty = Array::<c64>::zeros(&[3, 0], &cpu()).unwrap();
    assert!(is_arg(fft(&empty, &d)));
    assert!(fft(
        &empty,
        &FftOptions {
            n: Some(4),
            ..d.clone()
        }
    )
    .is_ok());
    // irfft of one point has default n = 0
    assert!(is_arg_r(irfft(&arr(cvec(1, 2), &[1]), &d)));
    assert!(is_arg_r(hfft(&arr(cvec(1, 2), &[1]), &d)));
    // 0-d input
    let s = Array::<c64>::scalar(c64::new(1.0, 0.0), &cpu()).unwrap();
    assert!(is_arg(fft(&s, &d)));
    // n-d: repeated and out-of-range axes, s/axes mismatch, too long s, zero lengths, no axes
    let n = FftnOptions::default();
    assert!(is_arg(fftn(
        &x,
        &FftnOptions {
            axes: Some(vec![0, -2]),
            ..n.clone()
        }
    )));
    assert!(is_arg(fftn(
        &x,
        &FftnOptions {
            axes: Some(vec![2]),
            ..n.clone()
        }
    )));
    let shape_err = |r: Result<Array<c64>>| matches!(r, Err(Error::ShapeMismatch { .. }));
    assert!(shape_err(fftn(
        &x,
        &FftnOptions {
            s: Some(vec![2]),
            axes: Some(vec![0, 1]),
            ..n.clone()
        }
    )));
    assert!(shape_err(fftn(
        &x,
        &FftnOptions {
            s: Some(vec![2, 2, 2]),
            ..n.clone()
        }
    )));
    assert!(is_arg(fftn(
        &x,
        &FftnOptions {
            s: Some(vec![2, 0]),
            ..n.clone()
        }
    )));
    assert!(is_arg(rfftn(
        &xr,
        &FftnOptions {
            axes: Some(vec![]),
            ..n.clone()
        }
    )));
    assert!(is_arg_r(irfftn(
        &x,
        &FftnOptions {
            axes: Some(vec![1, 1]),
            ..n.clone()
        }
    )));
    assert!(is_arg(fft2(&arr(cvec(4, 1), &[4]), &n)));
    // fftn over no axes returns the input unchanged
    let same = fftn(
        &x,
        &FftnOptions {
            axes: Some(vec![]),
            ..n.clone()
        },
    )
    .unwrap();
    assert_eq!(same.to_vec().unwrap(), x.to_vec().unwrap());
}

#[test]
fn cuda_arrays_check_arguments_first_and_freqs_upload() {
    let Some(dev) = gpu() else { return };
    let x = Array::from_vec(cvec(8, 1), &[8], &dev).unwrap();
    let d = FftOptions::default();
    // invalid arguments are reported before the device is considered
    assert!(matches!(
        fft(
            &x,
            &FftOptions {
                n: Some(0),
                ..d.clone()
            }
        ),
        Err(Error::InvalidArgument { .. })
    ));
    // the result stays on the device
    assert!(fft(&x, &d).unwrap().device().is_cuda());
    // the frequencies are computed on the host and uploaded
    assert_eq!(
        fftfreq::<f64>(4, 1.0, &dev).unwrap().to_vec().unwrap(),
        vec![0.0, 0.25, -0.5, -0.25]
    );
}

#[test]
fn huge_lengths_are_refused_and_plan_cache_is_bounded() {
    let x = arr(cvec(4, 1), &[4]);
    let r = fft(&x, &opts(Some(usize::MAX / 8), -1, Norm::Backward));
    assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}");
    // more distinct lengths than the cache holds, then a clear: results stay right
    let d = FftOptions::default();
    for n in 1..=300usize {
        let y = fft(&x, &opts(Some(n), -1, Norm::Backward)).unwrap();
        assert_eq!(y.shape(), &[n]);
    }
    clear_plan_cache(&Device::cpu()).unwrap();
    let y = fft(&x, &d).unwrap().to_vec().unwrap();
    assert_close(
        &y,
        &dft(&x.to_vec().unwrap(), 4, true),
        1e-14,
        "after clear",
    );
}
