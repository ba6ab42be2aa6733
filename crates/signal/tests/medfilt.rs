//! medfilt: SciPy's golden values, a sort-based oracle, every device against the CPU, errors.

use cusci_core::npy::load_npz_array;
use cusci_core::testing::{assert_allclose, devices, randn};
use cusci_core::{Array, Device, Error};
use cusci_signal::medfilt;

const NPZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/processing.npz");

#[test]
fn golden_scipy() {
    let cpu = Device::cpu();
    let x = load_npz_array::<f64>(NPZ, "med_x", &cpu).unwrap();
    for dev in devices() {
        for k in [1, 3, 5, 7] {
            let e = load_npz_array::<f64>(NPZ, &format!("medfilt_k{k}"), &cpu).unwrap();
            let y = medfilt(&x.to_device(&dev).unwrap(), k).unwrap();
            assert_allclose(&y, &e, 0.0, 0.0, &format!("k={k} on {dev}"));
        }
    }
}

#[test]
fn devices_agree_and_sizes() {
    let cpu = Device::cpu();
    for (shape, k) in [
        (&[0usize][..], 3usize),
        (&[1], 5),
        (&[3, 33], 7),
        (&[2, 257], 31),
        (&[4, 100], 33),
    ] {
        let x = randn::<f32>(shape, 4, &cpu).unwrap();
        let e = medfilt(&x, k).unwrap();
        // oracle on the first row: a sorted zero-padded window
        if x.size() > 0 {
            let n = shape[shape.len() - 1];
            let xv = x.to_vec().unwrap();
            let ev = e.to_vec().unwrap();
            for (t, &got) in ev.iter().enumerate().take(n) {
                let mut w: Vec<f32> = (0..k)
                    .map(|j| {
                        let s = t as isize + j as isize - (k / 2) as isize;
                        if s >= 0 && (s as usize) < n {
                            xv[s as usize]
                        } else {
                            0.0
                        }
                    })
                    .collect();
                w.sort_by(|a, b| a.partial_cmp(b).unwrap());
                assert_eq!(got, w[k / 2]);
            }
        }
        for dev in devices() {
            let y = medfilt(&x.to_device(&dev).unwrap(), k).unwrap();
            assert_allclose(&y, &e, 0.0, 0.0, &format!("{shape:?} k={k} on {dev}"));
        }
    }
}

#[test]
fn bad_input() {
    for dev in devices() {
        let x = Array::<f64>::ones(&[5], &dev).unwrap();
        assert!(matches!(medfilt(&x, 4), Err(Error::InvalidArgument { .. })));
        assert!(matches!(medfilt(&x, 0), Err(Error::InvalidArgument { .. })));
    }
}
