//! The Fourier filters against SciPy (interpolation section of gen.py: fourier.npz), GPU against
//! CPU, and typed errors on every device.

use cusci_core::c64;
use cusci_core::npy::{load_npz, DynArray};
use cusci_core::testing::{assert_allclose, devices, randn};
use cusci_core::Error;
use cusci_ndimage::*;
use std::collections::HashMap;

fn data() -> HashMap<String, DynArray> {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/fourier.npz");
    load_npz(p, &Device::Cpu).unwrap().into_iter().collect()
}

#[test]
fn fourier_filters_match_scipy_on_every_device() {
    let d = data();
    let mut count = 0;
    for dev in devices() {
        for (name, want) in &d {
            if !name.starts_with("fourier_") {
                continue;
            }
            let p: Vec<&str> = name.split("__").collect();
            let x = d[p[1]].as_array::<c64>().unwrap().to_device(&dev).unwrap();
            let v = d[&format!("sizes__{}", p[1])]
                .as_array::<f64>()
                .unwrap()
                .to_vec()
                .unwrap();
            let n: i64 = p[2].trim_start_matches("n=").parse().unwrap();
            let n = if n < 0 { None } else { Some(n as usize) };
            let axis: isize = p[3].trim_start_matches("axis=").parse().unwrap();
            let y = match p[0] {
                "fourier_gaussian" => fourier_gaussian(&x, &v, n, axis),
                "fourier_uniform" => fourier_uniform(&x, &v, n, axis),
                "fourier_shift" => fourier_shift(&x, &v, n, axis),
                "fourier_ellipsoid" => fourier_ellipsoid(&x, &v, n, axis),
                f => panic!("{f}"),
            }
            .unwrap();
            let want = want.as_array::<c64>().unwrap();
            assert_allclose(
                &y.to_device(&Device::Cpu).unwrap(),
                want,
                1e-11,
                1e-11,
                &format!("{name} on {dev}"),
            );
            count += 1;
        }
    }
    assert!(count >= 20);
}

#[test]
fn real_and_f32_inputs_match_on_every_device() {
    let x = randn::<f64>(&[5, 8], 1, &Device::Cpu).unwrap();
    let xf = x.astype::<f32>().unwrap();
    let g = fourier_gaussian(&x, &[1.5], None, -1).unwrap();
    let u = fourier_uniform(&x, &[2.0, 3.0], Some(14), 1).unwrap();
    let e = fourier_ellipsoid(&x, &[2.0], None, 0).unwrap();
    for dev in devices() {
        let xd = x.to_device(&dev).unwrap();
        let xfd = xf.to_device(&dev).unwrap();
        let back = |a: Array<f64>| a.to_device(&Device::Cpu).unwrap();
        assert_allclose(
            &back(fourier_gaussian(&xd, &[1.5], None, -1).unwrap()),
            &g,
            1e-13,
            1e-13,
            "gaussian",
        );
        assert_allclose(
            &back(fourier_uniform(&xd, &[2.0, 3.0], Some(14), 1).unwrap()),
            &u,
            1e-13,
            1e-13,
            "uniform",
        );
        assert_allclose(
            &back(fourier_ellipsoid(&xd, &[2.0], None, 0).unwrap()),
            &e,
            1e-13,
            1e-13,
            "ellipsoid",
        );
        let gf = fourier_gaussian(&xfd, &[1.5], None, -1)
            .unwrap()
            .to_device(&Device::Cpu)
            .unwrap();
        assert_allclose(&gf.astype::<f64>().unwrap(), &g, 1e-6, 1e-6, "gaussian f32");
        // shifting by the period is the identity; shifting by 0 too
        let z = x.astype::<c64>().unwrap().to_device(&dev).unwrap();
        let s = fourier_shift(&z, &[5.0, 8.0], None, -1)
            .unwrap()
            .to_device(&Device::Cpu)
            .unwrap();
        assert_allclose(
            &s,
            &x.astype::<c64>().unwrap(),
            1e-12,
            1e-12,
            "full-period shift",
        );
    }
}

#[test]
fn bad_inputs_give_the_same_typed_errors_on_every_device() {
    for dev in devices() {
        let x = randn::<f64>(&[4, 4], 2, &dev).unwrap();
        assert!(matches!(
            fourier_shift(&x, &[1.0], None, -1),
            Err(Error::UnsupportedDType { .. })
        ));
        let i = Array::<i32>::zeros(&[4], &dev).unwrap();
        assert!(matches!(
            fourier_gaussian(&i, &[1.0], None, -1),
            Err(Error::UnsupportedDType { .. })
        ));
        // a negative sigma is accepted (as SciPy), NaN is refused
        assert!(matches!(
            fourier_gaussian(&x, &[f64::NAN], None, -1),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            fourier_uniform(&x, &[1.0, 2.0, 3.0], None, -1),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            fourier_gaussian(&x, &[1.0], None, 2),
            Err(Error::InvalidArgument { .. })
        ));
        let x4 = randn::<f64>(&[2, 2, 2, 2], 3, &dev).unwrap();
        assert!(matches!(
            fourier_ellipsoid(&x4, &[1.0], None, -1),
            Err(Error::InvalidArgument { .. })
        ));
    }
}

/// SciPy checks no sign: a negative sigma (or ellipsoid size) acts as its absolute value, and
/// fourier_uniform with a size ≤ 0 keeps only the zero frequency of that axis
/// (`fourier_uniform(np.ones(8, complex), -1.0)` is `[1, 0, ..., 0]`).
#[test]
fn negative_and_zero_sizes_follow_scipy() {
    for dev in devices() {
        let x = randn::<f64>(&[3, 4], 2, &dev).unwrap();
        let a = fourier_gaussian(&x, &[-1.0, 2.0], None, -1).unwrap();
        let b = fourier_gaussian(&x, &[1.0, 2.0], None, -1).unwrap();
        assert_allclose(&a, &b, 1e-14, 1e-14, &format!("on {dev}"));
        let a = fourier_ellipsoid(&x, &[-1.0, 2.0], None, -1).unwrap();
        let b = fourier_ellipsoid(&x, &[1.0, 2.0], None, -1).unwrap();
        assert_allclose(&a, &b, 1e-14, 1e-14, &format!("on {dev}"));
        let ones = Array::<f64>::ones(&[8], &dev).unwrap();
        let mut want = vec![0.0; 8];
        want[0] = 1.0;
        for s in [-1.0, 0.0] {
            let y = fourier_uniform(&ones, &[s], None, -1).unwrap();
            assert_eq!(y.to_vec().unwrap(), want, "size {s} on {dev}");
        }
        // one axis of size ≤ 0: fourier_uniform(np.ones((3, 4)), [-1, 2]) keeps row 0 only
        let y = fourier_uniform(
            &Array::<f64>::ones(&[3, 4], &dev).unwrap(),
            &[-1.0, 2.0],
            None,
            -1,
        )
        .unwrap()
        .to_vec()
        .unwrap();
        let s = 2.0 / std::f64::consts::PI; // sin(π/2)/(π/2)
        let want = [1.0, s, 0.0, s, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        for (a, b) in y.iter().zip(want) {
            assert!((a - b).abs() < 1e-12, "{y:?} on {dev}");
        }
    }
}
