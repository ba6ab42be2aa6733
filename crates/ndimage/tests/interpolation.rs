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
        // a zoom of 0 gives an empty output (SciPy); a negative length is an error
        assert_eq!(kind(zoom(&x, &[-1.0], false, &o).unwrap_err()), "arg");
        assert_eq!(
            kind(zoom(&x, &[1.0, 2.0, 3.0], false, &o).unwrap_err()),
            "shape"
        );
        assert_eq!(kind(shift(&x, &[1.0, 2.0, 3.0], &o).unwrap_err()), "shape");
        let x3 = randn::<f32>(&[2, 5, 6], 1, &dev).unwrap();
        assert_eq!(
            kind(rotate(&x3, 10.0, (0, 0), true, &o).unwrap_err()),
            "arg"
        );
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

/// The audit input `((i·7 + 3) mod 13) − 4.5` (the same array built in NumPy for the SciPy values).
fn audit_input(shape: &[usize], dev: &Device) -> Array<f64> {
    let n: usize = shape.iter().product();
    let v = (0..n).map(|i| ((i * 7 + 3) % 13) as f64 - 4.5).collect();
    Array::from_vec(v, shape, dev).unwrap()
}

#[test]
fn shapes_ranks_and_matrix_forms_follow_scipy() {
    let o1 = InterpOptions {
        order: 1,
        ..Default::default()
    };
    for dev in devices() {
        let x = audit_input(&[4, 5], &dev);
        // output lengths round half to even: zoom(x35, 1.5) is 4 × 6, zoom(x53, 0.5) 2 × 2
        let y = zoom(&audit_input(&[3, 4], &dev), &[1.5], false, &o1).unwrap();
        assert_eq!(y.shape(), &[4, 6], "on {dev}");
        let y = zoom(&audit_input(&[5, 3], &dev), &[0.5], false, &o1).unwrap();
        assert_eq!(y.shape(), &[2, 2], "on {dev}");
        // a zoom of 0 (or one rounding to -0) gives an empty axis; -1 raises
        let y = zoom(&x, &[0.0, 1.2], true, &o1).unwrap();
        assert_eq!(y.shape(), &[0, 6], "on {dev}");
        assert_eq!(zoom(&x, &[-0.05], false, &o1).unwrap().shape(), &[0, 0]);
        assert!(zoom(&x, &[-1.0], false, &o1).is_err());
        assert!(zoom(&x, &[f64::INFINITY], false, &o1).is_err());
        // 'input and output rank must be > 0'
        let c = Array::from_vec(vec![1.2, 2.1], &[2], &dev).unwrap();
        assert!(matches!(
            map_coordinates(&x, &c, &o1),
            Err(Error::ShapeMismatch { .. })
        ));
        let d = Matrix::Diagonal(vec![1.0, 1.0]);
        assert!(affine_transform(&x, &d, &[], Some(&[]), &o1).is_err());
        // homogeneous matrices need the bottom row [0, 0, 1]
        let full = |rows, cols, data: &[f64]| Matrix::Full {
            rows,
            cols,
            data: data.to_vec(),
        };
        let bad = full(3, 3, &[0.8, 0.1, 0.3, -0.2, 1.1, -0.2, 0.5, 0.0, 2.0]);
        assert!(matches!(
            affine_transform(&x, &bad, &[], None, &o1),
            Err(Error::InvalidArgument { .. })
        ));
        // nd × (nd + 1) is augmented whatever the output rank (SciPy: 'affine matrix has wrong
        // number of columns' for output_shape (2, 2, 2)); its offset column replaces `offset`,
        // which is then not checked
        let aug = full(2, 3, &[1.0, 0.5, 0.2, 0.0, 0.3, 1.0]);
        assert!(matches!(
            affine_transform(&x, &aug, &[], Some(&[2, 2, 2]), &o1),
            Err(Error::ShapeMismatch { .. })
        ));
        let a = affine_transform(&x, &aug, &[1.0, 2.0, 3.0], None, &o1).unwrap();
        let b = affine_transform(&x, &aug, &[], None, &o1).unwrap();
        assert_eq!(a.to_vec().unwrap(), b.to_vec().unwrap(), "on {dev}");
    }
}

#[test]
fn empty_inputs_equal_axes_and_unprefiltered_nearest_follow_scipy() {
    let o1 = InterpOptions {
        order: 1,
        cval: 0.5,
        ..Default::default()
    };
    for dev in devices() {
        // an empty input gives cval in the constant modes (rounded for integers), else an error
        let d = Matrix::Diagonal(vec![1.0, 1.0]);
        let z = Array::<f64>::zeros(&[0, 4], &dev).unwrap();
        for mode in [Mode::Constant, Mode::GridConstant] {
            let o = InterpOptions { mode, ..o1 };
            let y = affine_transform(&z, &d, &[], Some(&[2, 2]), &o).unwrap();
            assert_eq!(y.to_vec().unwrap(), vec![0.5; 4], "on {dev}");
        }
        let o = InterpOptions { cval: 2.5, ..o1 };
        let zu = Array::<u8>::zeros(&[0, 4], &dev).unwrap();
        let y = affine_transform(&zu, &d, &[], Some(&[2, 2]), &o).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![3; 4], "on {dev}");
        let o = InterpOptions { cval: -2.5, ..o1 };
        let zi = Array::<i32>::zeros(&[0, 4], &dev).unwrap();
        let y = affine_transform(&zi, &d, &[], Some(&[2, 2]), &o).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![-3; 4], "on {dev}");
        let o = InterpOptions {
            mode: Mode::Mirror,
            ..o1
        };
        assert!(affine_transform(&z, &d, &[], Some(&[2, 2]), &o).is_err());
        // scipy.ndimage.rotate(np.zeros((0, 4)), 45, order=1, cval=0.5): 3 × 3 of cval
        let y = rotate(&z, 45.0, (1, 0), true, &o1).unwrap();
        assert_eq!(y.shape(), &[3, 3]);
        assert_eq!(y.to_vec().unwrap(), vec![0.5; 9], "on {dev}");
        // equal axes: SciPy accepts them in 2-D,
        // rotate(x34, 30, axes=(1, 1), order=1, cval=0.5)
        let x = audit_input(&[3, 4], &dev);
        let y = rotate(&x, 30.0, (1, 1), true, &o1).unwrap();
        assert_eq!(y.shape(), &[3, 5]);
        let want = [
            0.5,
            0.5,
            0.5,
            0.5,
            0.5,
            0.5,
            4.964101615137755,
            0.7679491924311228,
            -3.428203230275508,
            0.5,
            0.5,
            4.937822173508927,
            2.25,
            1.3038475772933698,
            0.5,
        ];
        let e = Array::from_vec(want.to_vec(), &[3, 5], &dev).unwrap();
        assert_allclose(&y, &e, 1e-12, 1e-12, &format!("on {dev}"));
        // and raises for more dimensions ('output shape not correct')
        assert!(rotate(&audit_input(&[2, 3, 4], &dev), 30.0, (1, 1), true, &o1).is_err());
        // mode nearest without the prefilter: SciPy does not clamp the coordinate, only the
        // stencil: shift(x7, 0.25, order=3, mode='nearest', prefilter=False)
        let x7 = audit_input(&[7], &dev);
        let o = InterpOptions {
            order: 3,
            mode: Mode::Nearest,
            cval: 0.5,
            prefilter: false,
        };
        let y = shift(&x7, &[0.25], &o).unwrap();
        let want = [
            -1.0078124999999993,
            2.8541666666666665,
            1.8802083333333341,
            3.8697916666666665,
            2.8802083333333344,
            4.869791666666667,
            3.3880208333333335,
        ];
        let e = Array::from_vec(want.to_vec(), &[7], &dev).unwrap();
        assert_allclose(&y, &e, 1e-12, 1e-12, &format!("on {dev}"));
    }
}
