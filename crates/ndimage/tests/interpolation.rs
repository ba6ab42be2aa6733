//! Interpolation on every device: GPU against CPU for every transform, mode and order (f64,
//! f32, integer types), identities, edge sizes, and the same typed errors everywhere.

use cusci_core::testing::{assert_allclose, devices, randn};
use cusci_core::Error;
use cusci_ndimage::*;

fn all<T: Real>(x: &Array<T>, o: &InterpOptions) -> Vec<(String, Array<T>)> {
    let nd = x.ndim();
    let dev = x.device().clone();
    let n = 23;
    let c: Vec<f64> = (0..nd * n)
        .map(|i| ((i * 37) % 41) as f64 * 0.37 - 3.1)
        .collect();
    let c = Array::from_vec(c, &[nd, n], &dev).unwrap();
    let mut v = vec![
        ("map_coordinates", map_coordinates(x, &c, o)),
        ("zoom", zoom(x, &[1.6], false, o)),
        ("zoom_grid", zoom(x, &[0.7], true, o)),
        ("shift", shift(x, &[0.4], o)),
    ];
    if nd >= 2 {
        v.push(("rotate", rotate(x, 33.0, (1, 0), true, o)));
        v.push(("rotate_noreshape", rotate(x, -120.0, (0, -1), false, o)));
    }
    v.drain(..)
        .map(|(k, r)| (k.to_string(), r.unwrap_or_else(|e| panic!("{k}: {e}"))))
        .collect()
}

fn gpu_matches_cpu<T: Real>(shape: &[usize], tol: f64) {
    let xs: Vec<T> = randn::<f64>(shape, 3, &Device::Cpu)
        .unwrap()
        .to_vec()
        .unwrap()
        .iter()
        .map(|v| T::from_f(v * 20.0))
        .collect();
    let xc = Array::from_vec(xs, shape, &Device::Cpu).unwrap();
    for dev in devices().into_iter().skip(1) {
        let xg = xc.to_device(&dev).unwrap();
        for mode in Mode::ALL {
            for order in 0..=5 {
                let o = InterpOptions {
                    order,
                    mode,
                    cval: 0.5,
                    prefilter: true,
                };
                for ((k, a), (_, b)) in all(&xc, &o).iter().zip(&all(&xg, &o)) {
                    let b = b.to_device(&Device::Cpu).unwrap();
                    assert_allclose(
                        &b,
                        a,
                        tol,
                        tol,
                        &format!("{k} {mode} order {order} {shape:?} {}", T::DTYPE),
                    );
                }
            }
        }
    }
}

#[test]
fn every_device_matches_the_cpu() {
    for shape in [
        &[1usize][..],
        &[2],
        &[31],
        &[33],
        &[2, 1],
        &[9, 10],
        &[3, 4, 5],
    ] {
        gpu_matches_cpu::<f64>(shape, 1e-11);
        gpu_matches_cpu::<f32>(shape, 2e-3);
    }
    gpu_matches_cpu::<i32>(&[9, 10], 1.0);
    gpu_matches_cpu::<u8>(&[33], 1.0);
}

#[test]
fn identities_on_every_device() {
    for dev in devices() {
        let x = randn::<f64>(&[6, 7], 5, &dev).unwrap();
        let xv = x.to_vec().unwrap();
        for order in 0..=5 {
            for mode in Mode::ALL {
                let o = InterpOptions {
                    order,
                    mode,
                    ..Default::default()
                };
                // integer shifts and zoom 1 reproduce the input (inside the image); SciPy's
                // reflect prefilter reads its own partial sum at the line's end (reproduced here),
                // so those modes are exact only up to about 1e-3 on short lines
                let tol = if order > 1 && matches!(mode, Mode::Reflect | Mode::GridMirror) {
                    1e-2
                } else {
                    1e-9
                };
                let y = shift(&x, &[0.0, 0.0], &o).unwrap().to_vec().unwrap();
                assert!(
                    y.iter().zip(&xv).all(|(a, b)| (a - b).abs() < tol),
                    "{mode} {order} on {dev}"
                );
                let z = zoom(&x, &[1.0], false, &o).unwrap().to_vec().unwrap();
                assert!(
                    z.iter().zip(&xv).all(|(a, b)| (a - b).abs() < tol),
                    "{mode} {order} on {dev}"
                );
                // four quarter turns come back
                let mut r = x.clone();
                for _ in 0..4 {
                    r = rotate(&r, 90.0, (1, 0), true, &o).unwrap();
                }
                let r = r.to_vec().unwrap();
                assert!(
                    r.iter().zip(&xv).all(|(a, b)| (a - b).abs() < tol),
                    "{mode} {order} on {dev}"
                );
            }
        }
        // a spline of a constant is the constant
        let c = Array::<f32>::full(&[5, 4], 3.0, &dev).unwrap();
        for order in 2..=5 {
            for v in spline_filter(&c, order, Mode::Mirror)
                .unwrap()
                .to_vec()
                .unwrap()
            {
                assert!((v - 3.0).abs() < 1e-5);
            }
        }
    }
}

fn kind(e: Error) -> &'static str {
    match e {
        Error::InvalidArgument { .. } => "arg",
        Error::ShapeMismatch { .. } => "shape",
        _ => "other",
    }
}

#[test]
fn bad_inputs_give_the_same_typed_errors_on_every_device() {
    for dev in devices() {
        let x = randn::<f32>(&[5, 6], 1, &dev).unwrap();
        let o6 = InterpOptions {
            order: 6,
            ..Default::default()
        };
        assert_eq!(kind(zoom(&x, &[2.0], false, &o6).unwrap_err()), "arg");
        assert_eq!(kind(spline_filter(&x, 6, Mode::Mirror).unwrap_err()), "arg");
        let o = InterpOptions::default();
        let c = Array::<f32>::zeros(&[3, 4], &dev).unwrap();
        assert_eq!(kind(map_coordinates(&x, &c, &o).unwrap_err()), "shape");
        assert_eq!(kind(zoom(&x, &[0.0], false, &o).unwrap_err()), "arg");
        assert_eq!(
            kind(zoom(&x, &[1.0, 2.0, 3.0], false, &o).unwrap_err()),
            "shape"
        );
        assert_eq!(kind(shift(&x, &[1.0, 2.0, 3.0], &o).unwrap_err()), "shape");
        assert_eq!(kind(rotate(&x, 10.0, (0, 0), true, &o).unwrap_err()), "arg");
        assert_eq!(kind(rotate(&x, 10.0, (0, 2), true, &o).unwrap_err()), "arg");
        let m = Matrix::Full {
            rows: 3,
            cols: 2,
            data: vec![0.0; 6],
        };
        assert_eq!(
            kind(affine_transform(&x, &m, &[], None, &o).unwrap_err()),
            "shape"
        );
        assert_eq!(
            kind(spline_filter1d(&x, 3, 2, Mode::Mirror).unwrap_err()),
            "arg"
        );
    }
}
