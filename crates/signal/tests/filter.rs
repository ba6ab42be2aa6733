//! lfilter, sosfilt, lfilter_zi, sosfilt_zi: the CPU against the naive recurrence and SciPy's
//! golden values, every device against the CPU, chunked filtering with carried states, and the
//! typed errors of bad input on every device.

use crate::common::with_zi;
use cusci_core::npy::load_npz_array;
use cusci_core::testing::{assert_allclose, assert_slices_close, devices, randn, randn_vec};
use cusci_core::{c64, Array, Device, Error};
use cusci_signal::*;

const NPZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/processing.npz");

fn golden(name: &str, dev: &Device) -> Array<f64> {
    load_npz_array::<f64>(NPZ, name, dev).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn arr(v: &[f64], dev: &Device) -> Array<f64> {
    Array::from_vec(v.to_vec(), &[v.len()], dev).unwrap()
}

/// The direct-form recurrence, the textbook definition.
fn naive_lfilter(b: &[f64], a: &[f64], x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; x.len()];
    for n in 0..x.len() {
        let mut acc = 0.0;
        for (k, &bk) in b.iter().enumerate() {
            if n >= k {
                acc += bk * x[n - k];
            }
        }
        for (k, &ak) in a.iter().enumerate().skip(1) {
            if n >= k {
                acc -= ak * y[n - k];
            }
        }
        y[n] = acc / a[0];
    }
    y
}

fn opts<'a>() -> FilterOptions<'a, f64> {
    FilterOptions::default()
}

#[test]
fn lfilter_matches_naive_recurrence() {
    let cpu = Device::cpu();
    let b = [0.2, -0.1, 0.35, 0.05];
    let a = [2.0, -0.4, 0.3];
    for n in [0usize, 1, 2, 3, 31, 32, 33, 257] {
        let x = randn_vec::<f64>(n, n as u64 + 1);
        let y = lfilter(&arr(&b, &cpu), &arr(&a, &cpu), &arr(&x, &cpu), &opts()).unwrap();
        let e = naive_lfilter(&b, &a, &x);
        assert_slices_close(
            &y.y.to_vec().unwrap(),
            &e,
            &[n],
            1e-13,
            1e-14,
            &format!("n={n}"),
        );
        assert!(y.zf.is_none());
    }
}

#[test]
fn lfilter_fir_and_pure_gain() {
    let cpu = Device::cpu();
    let x = randn_vec::<f64>(50, 3);
    // FIR (a = [1]) and a pure gain (no states)
    for (b, a) in [(vec![1.0, 2.0, -1.0], vec![1.0]), (vec![3.0], vec![2.0])] {
        let y = lfilter(&arr(&b, &cpu), &arr(&a, &cpu), &arr(&x, &cpu), &opts()).unwrap();
        let e = naive_lfilter(&b, &a, &x);
        assert_slices_close(&y.y.to_vec().unwrap(), &e, &[50], 1e-14, 1e-14, "fir");
    }
}

#[test]
fn golden_scipy() {
    let cpu = Device::cpu();
    let (b, a, sos, x) = (
        golden("ba_b", &cpu),
        golden("ba_a", &cpu),
        golden("sos", &cpu),
        golden("x", &cpu),
    );
    for dev in devices() {
        let xd = x.to_device(&dev).unwrap();
        let y = lfilter(&b, &a, &xd, &opts()).unwrap();
        assert_allclose(
            &y.y,
            &golden("lfilter_y", &cpu).to_device(&dev).unwrap(),
            1e-12,
            1e-13,
            "lfilter",
        );
        let zi = lfilter_zi(&b, &a).unwrap();
        assert_allclose(&zi, &golden("lfilter_zi", &cpu), 1e-12, 0.0, "lfilter_zi");
        // zi * x[:, :1], shape (3, 4)
        let xv = x.to_vec().unwrap();
        let ziv = zi.to_vec().unwrap();
        let mut zi2 = Vec::new();
        for r in 0..3 {
            zi2.extend(ziv.iter().map(|z| z * xv[r * 64]));
        }
        let zi2 = Array::from_vec(zi2, &[3, 4], &dev).unwrap();
        let o = with_zi(-1, &zi2);
        let r = lfilter(&b, &a, &xd, &o).unwrap();
        assert_allclose(
            &r.y,
            &golden("lfilter_zi_y", &cpu).to_device(&dev).unwrap(),
            1e-12,
            1e-13,
            "lfilter zi",
        );
        assert_allclose(
            r.zf.as_ref().unwrap(),
            &golden("lfilter_zi_zf", &cpu).to_device(&dev).unwrap(),
            1e-12,
            1e-13,
            "lfilter zf",
        );
        let s = sosfilt(&sos, &xd, &opts()).unwrap();
        assert_allclose(
            &s.y,
            &golden("sosfilt_y", &cpu).to_device(&dev).unwrap(),
            1e-11,
            1e-13,
            "sosfilt",
        );
        let xt = xd.t().contiguous().unwrap();
        let s0 = sosfilt(&sos, &xt, &FilterOptions { axis: 0, zi: None }).unwrap();
        assert_allclose(
            &s0.y,
            &golden("sosfilt_ax0_y", &cpu).to_device(&dev).unwrap(),
            1e-11,
            1e-13,
            "sosfilt axis 0",
        );
        let szi = sosfilt_zi(&sos).unwrap();
        assert_allclose(
            &szi,
            &golden("sosfilt_zi", &cpu),
            1e-12,
            1e-14,
            "sosfilt_zi",
        );
    }
}

#[test]
fn steady_state_from_zi() {
    // x = 1 from a steady-state start: y = the DC gain everywhere
    let cpu = Device::cpu();
    let (b, a, sos) = (
        golden("ba_b", &cpu),
        golden("ba_a", &cpu),
        golden("sos", &cpu),
    );
    let x = Array::<f64>::ones(&[40], &cpu).unwrap();
    let zi = lfilter_zi(&b, &a).unwrap();
    let y = lfilter(&b, &a, &x, &with_zi(-1, &zi)).unwrap();
    let gain: f64 =
        b.to_vec().unwrap().iter().sum::<f64>() / a.to_vec().unwrap().iter().sum::<f64>();
    for v in y.y.to_vec().unwrap() {
        assert!((v - gain).abs() < 1e-12, "{v} vs {gain}");
    }
    let zs = sosfilt_zi(&sos).unwrap().reshape(&[4, 2]).unwrap();
    let y = sosfilt(&sos, &x, &with_zi(-1, &zs)).unwrap();
    for v in y.y.to_vec().unwrap() {
        assert!((v - 1.0).abs() < 1e-10, "{v}");
    }
}

/// sosfilt equals lfilter section after section.
#[test]
fn sosfilt_is_a_cascade() {
    let cpu = Device::cpu();
    let sos = golden("sos", &cpu);
    let sv = sos.to_vec().unwrap();
    let x = randn_vec::<f64>(300, 9);
    let mut e = x.clone();
    for s in sv.chunks(6) {
        e = naive_lfilter(&s[..3], &s[3..], &e);
    }
    let y = sosfilt(&sos, &arr(&x, &cpu), &opts()).unwrap();
    assert_slices_close(&y.y.to_vec().unwrap(), &e, &[300], 1e-10, 1e-13, "cascade");
}

/// Filtering in pieces with the carried states equals filtering at once (bitwise on the CPU:
/// the same operations), and within a few ulps on the GPU's chunked scan.
#[test]
fn chunked_with_carried_state() {
    let cpu = Device::cpu();
    let (b, a, sos) = (
        golden("ba_b", &cpu),
        golden("ba_a", &cpu),
        golden("sos", &cpu),
    );
    for dev in devices() {
        let n = 5000;
        let x = randn::<f64>(&[2, n], 5, &dev).unwrap();
        let zl = Array::<f64>::zeros(&[2, 4], &dev).unwrap();
        let zs = Array::<f64>::zeros(&[4, 2, 2], &dev).unwrap();
        let full_l = lfilter(&b, &a, &x, &with_zi(-1, &zl)).unwrap();
        let full_s = sosfilt(&sos, &x, &with_zi(-1, &zs)).unwrap();
        let (mut zl, mut zs) = (zl, zs);
        let mut yl = Vec::new();
        let mut ys = Vec::new();
        let cuts = [0usize, 1, 700, 2048, 4999, n];
        for w in cuts.windows(2) {
            let part = x
                .slice_axis(1, Some(w[0] as isize), Some(w[1] as isize), 1)
                .unwrap();
            let r = lfilter(&b, &a, &part, &with_zi(1, &zl)).unwrap();
            yl.push(r.y.to_vec().unwrap());
            zl = r.zf.unwrap();
            let r = sosfilt(&sos, &part, &with_zi(1, &zs)).unwrap();
            ys.push(r.y.to_vec().unwrap());
            zs = r.zf.unwrap();
        }
        // reassemble row-major (2, n) from the pieces
        let join = |parts: &Vec<Vec<f64>>| -> Vec<f64> {
            let mut out = vec![0.0; 2 * n];
            for row in 0..2 {
                let mut t = 0;
                for (p, w) in parts.iter().zip(cuts.windows(2)) {
                    let len = w[1] - w[0];
                    out[row * n + t..row * n + t + len]
                        .copy_from_slice(&p[row * len..(row + 1) * len]);
                    t += len;
                }
            }
            out
        };
        // the GPU's chunk boundaries differ between the pieces and the whole: rounding of the
        // carried states (an absolute floor for outputs near zero)
        let tol = if dev.is_cuda() { 1e-12 } else { 0.0 };
        let atol = if dev.is_cuda() { 1e-12 } else { 1e-300 };
        let ctx = format!("{dev}");
        // 2 ulp in f64 on the CPU (here: exactly equal)
        assert_slices_close(
            &join(&yl),
            &full_l.y.to_vec().unwrap(),
            &[2, n],
            tol + 2.3e-16 * 2.0,
            atol,
            &ctx,
        );
        assert_slices_close(
            &join(&ys),
            &full_s.y.to_vec().unwrap(),
            &[2, n],
            tol + 2.3e-16 * 2.0,
            atol,
            &ctx,
        );
        assert_allclose(&zl, full_l.zf.as_ref().unwrap(), tol + 4.5e-16, atol, &ctx);
        assert_allclose(&zs, full_s.zf.as_ref().unwrap(), tol + 4.5e-16, atol, &ctx);
    }
}

/// Every device against the CPU: many short signals (one thread each), few long signals (the
/// block-parallel scan, two levels), other axes, f32 and complex. The scan carries chunk states
/// in another order than the serial recurrence: order-8 filters agree to ~1e-10 relative in f64
/// (measured on an H200: worst 5.9e-11), hence 1e-9.
#[test]
fn devices_agree_with_cpu() {
    let cpu = Device::cpu();
    let (b, a, sos) = (
        golden("ba_b", &cpu),
        golden("ba_a", &cpu),
        golden("sos", &cpu),
    );
    let shapes: [(&[usize], isize); 5] = [
        (&[33, 257], -1),
        (&[1, 70_001], -1),
        (&[3, 1000, 5], 1),
        (&[700, 3], 0),
        (&[2, 0], -1),
    ];
    for (shape, axis) in shapes {
        let x = randn::<f64>(shape, 11, &cpu).unwrap();
        let nzs = |s: &mut Vec<usize>, k: usize| {
            let ax = if axis < 0 { s.len() - 1 } else { axis as usize };
            s[ax] = k;
        };
        let mut zls = shape.to_vec();
        nzs(&mut zls, 4);
        let mut zss = shape.to_vec();
        nzs(&mut zss, 2);
        zss.insert(0, 4);
        let zl = randn::<f64>(&zls, 12, &cpu).unwrap();
        let zs = randn::<f64>(&zss, 13, &cpu).unwrap();
        let el = lfilter(&b, &a, &x, &with_zi(axis, &zl)).unwrap();
        let es = sosfilt(&sos, &x, &with_zi(axis, &zs)).unwrap();
        for dev in devices() {
            let xd = x.to_device(&dev).unwrap();
            let (zld, zsd) = (zl.to_device(&dev).unwrap(), zs.to_device(&dev).unwrap());
            let ctx = format!("{shape:?} axis {axis} on {dev}");
            let r = lfilter(&b, &a, &xd, &with_zi(axis, &zld)).unwrap();
            assert_allclose(&r.y, &el.y, 1e-9, 1e-10, &ctx);
            assert_allclose(
                r.zf.as_ref().unwrap(),
                el.zf.as_ref().unwrap(),
                1e-9,
                1e-12,
                &ctx,
            );
            let r = sosfilt(&sos, &xd, &with_zi(axis, &zsd)).unwrap();
            assert_allclose(&r.y, &es.y, 1e-9, 1e-10, &ctx);
            assert_allclose(
                r.zf.as_ref().unwrap(),
                es.zf.as_ref().unwrap(),
                1e-9,
                1e-12,
                &ctx,
            );
            let r = sosfilt(&sos, &xd, &opts()).unwrap();
            assert!(r.zf.is_none());
        }
    }
    // f32 and complex
    let x32 = randn::<f32>(&[4, 3000], 2, &cpu).unwrap();
    let sos32 = sos.astype::<f32>().unwrap();
    let e32 = sosfilt(&sos32, &x32, &FilterOptions::default()).unwrap();
    let xc = Array::from_vec(
        randn_vec::<f64>(4 * 3000, 3)
            .chunks(2)
            .map(|p| c64::new(p[0], p[1]))
            .collect(),
        &[2, 3000],
        &cpu,
    )
    .unwrap();
    let (bc, ac) = (b.astype::<c64>().unwrap(), a.astype::<c64>().unwrap());
    let ec = lfilter(&bc, &ac, &xc, &FilterOptions::default()).unwrap();
    // the complex filter equals the real filter on both parts
    let xre = Array::from_vec(
        xc.to_vec().unwrap().iter().map(|v| v.re).collect(),
        &[2, 3000],
        &cpu,
    )
    .unwrap();
    let yre = lfilter(&b, &a, &xre, &opts()).unwrap().y.to_vec().unwrap();
    let ecr: Vec<f64> = ec.y.to_vec().unwrap().iter().map(|v| v.re).collect();
    assert_slices_close(&ecr, &yre, &[2, 3000], 1e-13, 1e-14, "complex real part");
    for dev in devices() {
        let r = sosfilt(
            &sos32,
            &x32.to_device(&dev).unwrap(),
            &FilterOptions::default(),
        )
        .unwrap();
        assert_allclose(&r.y, &e32.y, 1e-4, 1e-5, &format!("f32 on {dev}"));
        let r = lfilter(
            &bc,
            &ac,
            &xc.to_device(&dev).unwrap(),
            &FilterOptions::default(),
        )
        .unwrap();
        assert_allclose(&r.y, &ec.y, 1e-9, 1e-10, &format!("c64 on {dev}"));
    }
}

fn is_arg(e: &Error) -> bool {
    matches!(e, Error::InvalidArgument { .. })
}
fn is_shape(e: &Error) -> bool {
    matches!(e, Error::ShapeMismatch { .. })
}

#[test]
fn bad_input_same_typed_errors() {
    let cpu = Device::cpu();
    let sos = golden("sos", &cpu);
    for dev in devices() {
        let x = randn::<f64>(&[2, 50], 1, &dev).unwrap();
        // a 1-D sos
        let flat = sos.reshape(&[-1]).unwrap();
        assert!(is_shape(&sosfilt(&flat, &x, &opts()).unwrap_err()));
        // a0 != 1 in a section
        let mut sv = sos.to_vec().unwrap();
        sv[3] = 0.0;
        let bad = Array::from_vec(sv, &[4, 6], &cpu).unwrap();
        assert!(is_arg(&sosfilt(&bad, &x, &opts()).unwrap_err()));
        // a zero leading denominator coefficient
        let e = lfilter(
            &arr(&[1.0, 1.0], &cpu),
            &arr(&[0.0, 1.0], &cpu),
            &x,
            &opts(),
        )
        .unwrap_err();
        assert!(is_arg(&e), "{e}");
        // NaN coefficients
        let e = lfilter(
            &arr(&[f64::NAN], &cpu),
            &arr(&[1.0, 0.5], &cpu),
            &x,
            &opts(),
        )
        .unwrap_err();
        assert!(is_arg(&e), "{e}");
        let mut sv = sos.to_vec().unwrap();
        sv[7] = f64::NAN;
        let bad = Array::from_vec(sv, &[4, 6], &cpu).unwrap();
        assert!(is_arg(&sosfilt(&bad, &x, &opts()).unwrap_err()));
        // zi of the wrong shape
        let zi = Array::<f64>::zeros(&[2, 2], &dev).unwrap();
        let o = with_zi(-1, &zi);
        assert!(is_shape(
            &lfilter(
                &arr(&[1.0, 0.1, 0.2], &cpu),
                &arr(&[1.0, 0.2, 0.1, 0.05], &cpu),
                &x,
                &o
            )
            .unwrap_err()
        ));
        assert!(is_shape(&sosfilt(&sos, &x, &o).unwrap_err()));
        // a bad axis
        let o = FilterOptions { axis: 2, zi: None };
        assert!(is_arg(&sosfilt(&sos, &x, &o).unwrap_err()));
        // lfilter_zi of a filter with a pole at 1
        let e = lfilter_zi(&arr(&[1.0, 0.0], &cpu), &arr(&[1.0, -1.0], &cpu)).unwrap_err();
        assert!(matches!(e, Error::Singular { .. }), "{e}");
    }
}
