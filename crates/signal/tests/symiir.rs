//! symiirorder1 / symiirorder2: SciPy's golden values (f64, f32, complex, precision, omega 0 and
//! pi, negative r and z1), batching over leading axes equals row-by-row filtering, every device
//! against the CPU (a batch large enough for the GPU's block-tiled scan), typed errors on every
//! device.

use cusci_core::npy::load_npz_array;
use cusci_core::testing::{assert_allclose, devices, randn};
use cusci_core::{c32, c64, Array, Device, Element, Error};
use cusci_signal::*;

const NPZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/iir.npz");

fn golden<T: Element>(name: &str) -> Array<T> {
    load_npz_array::<T>(NPZ, name, &Device::cpu()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn symiirorder1_matches_scipy() {
    for dev in devices() {
        let x = golden::<f64>("s1_x").to_device(&dev).unwrap();
        let ctx = |n: &str| format!("{n} on {dev}");
        for (name, c0, z1, prec) in [
            ("sym1", 0.7, 0.4, -1.0),
            ("sym1_neg", 1.3, -0.6, -1.0),
            ("sym1_prec", 0.7, 0.4, 1e-3),
        ] {
            let y = symiirorder1(&x, c0, z1, prec).unwrap();
            assert_eq!(y.device(), &dev);
            assert_allclose(&y, &golden::<f64>(name), 1e-12, 1e-13, &ctx(name));
        }
        let x32 = x.astype::<f32>().unwrap();
        let y = symiirorder1(&x32, 0.7f32, 0.4f32, -1.0).unwrap();
        assert_allclose(&y, &golden::<f32>("sym1_f32"), 1e-5, 1e-6, &ctx("sym1_f32"));
        let xc = golden::<c64>("s1_c").to_device(&dev).unwrap();
        let y = symiirorder1(&xc, c64::new(0.5, 0.1), c64::new(0.3, 0.2), -1.0).unwrap();
        assert_allclose(&y, &golden::<c64>("sym1_c"), 1e-12, 1e-13, &ctx("sym1_c"));
        // Complex32 runs the same path in single precision
        let yc32 = symiirorder1(
            &xc.astype::<c32>().unwrap(),
            c32::new(0.5, 0.1),
            c32::new(0.3, 0.2),
            -1.0,
        )
        .unwrap();
        assert_allclose(
            &yc32.astype::<c64>().unwrap(),
            &golden::<c64>("sym1_c"),
            1e-5,
            1e-6,
            &ctx("sym1 c32"),
        );
    }
}

#[test]
fn symiirorder2_matches_scipy() {
    for dev in devices() {
        let x = golden::<f64>("s2_x").to_device(&dev).unwrap();
        let ctx = |n: &str| format!("{n} on {dev}");
        for (name, r, om, prec) in [
            ("sym2", 0.5, 0.6, -1.0),
            ("sym2_om0", 0.5, 0.0, -1.0),
            ("sym2_pi", 0.5, std::f64::consts::PI, -1.0),
            ("sym2_prec", 0.7, 1.1, 1e-4),
            ("sym2_negr", -0.4, 0.9, -1.0),
        ] {
            let y = symiirorder2(&x, r, om, prec).unwrap();
            assert_allclose(&y, &golden::<f64>(name), 1e-12, 1e-13, &ctx(name));
        }
        let y = symiirorder2(&x.astype::<f32>().unwrap(), 0.5, 0.6, -1.0).unwrap();
        assert_allclose(&y, &golden::<f32>("sym2_f32"), 1e-5, 1e-6, &ctx("sym2_f32"));
    }
}

/// Leading axes are independent signals: a (2, 3, n) batch equals its rows filtered one by one.
#[test]
fn batch_equals_rows() {
    let cpu = Device::cpu();
    let x = randn::<f64>(&[2, 3, 90], 7, &cpu).unwrap();
    let y1 = symiirorder1(&x, 0.9, 0.5, -1.0).unwrap().to_vec().unwrap();
    let y2 = symiirorder2(&x, 0.6, 0.8, -1.0).unwrap().to_vec().unwrap();
    for i in 0..2 {
        for j in 0..3 {
            let row = x.index_axis(0, i).unwrap().index_axis(0, j).unwrap();
            let off = (i as usize * 3 + j as usize) * 90;
            let r1 = symiirorder1(&row, 0.9, 0.5, -1.0)
                .unwrap()
                .to_vec()
                .unwrap();
            let r2 = symiirorder2(&row, 0.6, 0.8, -1.0)
                .unwrap()
                .to_vec()
                .unwrap();
            assert_eq!(&y1[off..off + 90], &r1[..], "symiirorder1 row ({i}, {j})");
            assert_eq!(&y2[off..off + 90], &r2[..], "symiirorder2 row ({i}, {j})");
        }
    }
}

/// Every device against the CPU on a batch that takes the GPU's block-tiled scan (≥ 128
/// contiguous signals of ≥ 4096 samples) and on a few short signals (one thread each). The
/// scan carries chunk states in another order than the serial recurrence: first- and
/// second-order filters agree to ~1e-14 relative; 1e-11 is the bound.
#[test]
fn devices_agree_with_cpu() {
    let cpu = Device::cpu();
    for shape in [&[130usize, 4100][..], &[3, 500][..]] {
        let x = randn::<f64>(shape, 21, &cpu).unwrap();
        let e1 = symiirorder1(&x, 0.8, 0.7, -1.0).unwrap();
        let e2 = symiirorder2(&x, 0.8, 0.4, -1.0).unwrap();
        for dev in devices() {
            let xd = x.to_device(&dev).unwrap();
            let ctx = format!("{shape:?} on {dev}");
            let y1 = symiirorder1(&xd, 0.8, 0.7, -1.0).unwrap();
            assert_allclose(&y1, &e1, 1e-11, 1e-12, &ctx);
            let y2 = symiirorder2(&xd, 0.8, 0.4, -1.0).unwrap();
            assert_allclose(&y2, &e2, 1e-11, 1e-12, &ctx);
        }
    }
}

#[test]
fn bad_input_same_typed_errors() {
    let is_arg = |e: &Error| matches!(e, Error::InvalidArgument { .. });
    for dev in devices() {
        let x = randn::<f64>(&[2, 30], 3, &dev).unwrap();
        // |z1| >= 1, r >= 1
        assert!(is_arg(&symiirorder1(&x, 1.0, 1.0, -1.0).unwrap_err()));
        assert!(is_arg(&symiirorder1(&x, 1.0, -1.5, -1.0).unwrap_err()));
        assert!(is_arg(&symiirorder2(&x, 1.0, 0.5, -1.0).unwrap_err()));
        // the boundary sums need more samples than the signal has (as SciPy: 0.9^k > 1e-11)
        assert!(is_arg(&symiirorder1(&x, 1.0, 0.9, -1.0).unwrap_err()));
        assert!(is_arg(&symiirorder2(&x, 0.9, 0.5, -1.0).unwrap_err()));
        // ... and a looser precision makes the same signal long enough
        assert!(symiirorder1(&x, 1.0, 0.9, 0.1).is_ok());
        // one sample never converges (SciPy's loop runs past the end)
        let one = randn::<f64>(&[1], 3, &dev).unwrap();
        assert!(is_arg(&symiirorder1(&one, 1.0, 0.1, -1.0).unwrap_err()));
        // 0-d input
        let s = Array::<f64>::scalar(1.0, &dev).unwrap();
        assert!(matches!(
            symiirorder1(&s, 1.0, 0.5, -1.0).unwrap_err(),
            Error::ShapeMismatch { .. }
        ));
        // symiirorder2 is real only (SciPy: TypeError)
        let xc = x.astype::<c64>().unwrap();
        assert!(matches!(
            symiirorder2(&xc, 0.5, 0.5, -1.0).unwrap_err(),
            Error::UnsupportedDType { .. }
        ));
    }
}
