//! hilbert: SciPy's definition checked through known transforms (cos -> sin), the real part
//! equal to the input, every device against the CPU, and errors.

use cusci_core::testing::{assert_allclose, devices, randn};
use cusci_core::{c64, Array, Device, Error};
use cusci_signal::{hilbert, HilbertOptions};

#[test]
fn cosine_to_sine_and_real_part() {
    let cpu = Device::cpu();
    for n in [8usize, 9, 64, 257] {
        // an integer number of periods: the transform is exact
        let k = 3.0;
        let x: Vec<f64> = (0..n)
            .map(|t| (2.0 * std::f64::consts::PI * k * t as f64 / n as f64).cos())
            .collect();
        let z = hilbert(
            &Array::from_vec(x.clone(), &[n], &cpu).unwrap(),
            &HilbertOptions::default(),
        )
        .unwrap();
        for (t, v) in z.to_vec().unwrap().iter().enumerate() {
            let s = (2.0 * std::f64::consts::PI * k * t as f64 / n as f64).sin();
            assert!(
                (v.re - x[t]).abs() < 1e-12 && (v.im - s).abs() < 1e-12,
                "n={n} t={t} {v}"
            );
        }
    }
}

#[test]
fn devices_agree_batch_axis() {
    let cpu = Device::cpu();
    let x = randn::<f64>(&[3, 50, 4], 7, &cpu).unwrap();
    for (axis, n) in [(1isize, None), (-1, Some(6)), (0, Some(2))] {
        let o = HilbertOptions { n, axis };
        let e = hilbert(&x, &o).unwrap();
        if n.is_none() {
            // real part equals x
            let re: Vec<f64> = e.to_vec().unwrap().iter().map(|v: &c64| v.re).collect();
            let xv = x.to_vec().unwrap();
            assert!(re.iter().zip(&xv).all(|(a, b)| (a - b).abs() < 1e-12));
        }
        for dev in devices() {
            let z = hilbert(&x.to_device(&dev).unwrap(), &o).unwrap();
            assert_allclose(&z, &e, 1e-12, 1e-12, &format!("axis {axis} on {dev}"));
        }
    }
}

#[test]
fn bad_input() {
    for dev in devices() {
        let x = Array::<f32>::ones(&[4], &dev).unwrap();
        let o = HilbertOptions {
            n: Some(0),
            axis: -1,
        };
        assert!(matches!(
            hilbert(&x, &o),
            Err(Error::InvalidArgument { .. })
        ));
        let o = HilbertOptions { n: None, axis: 1 };
        assert!(matches!(
            hilbert(&x, &o),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
