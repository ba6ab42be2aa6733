//! Interpolation on every device: GPU against CPU for every transform, mode and order (f64,
//! f32, integer types), identities, edge sizes, and the same typed errors everywhere.

use crate::common::{gpu_matches_cpu, input};
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

/// Every GPU against the CPU on an input ~N(0, 400) of `T`: every transform of [`all`] in every
/// order.
fn every_transform_matches<T: Real>(shape: &[usize], tol: f64) {
    let all_orders = |x: &Array<T>, mode: Mode| -> Vec<(String, Array<T>)> {
        (0..=5)
            .flat_map(|order| {
                let o = InterpOptions {
                    order,
                    mode,
                    cval: 0.5,
                    prefilter: true,
                };
                all(x, &o)
                    .into_iter()
                    .map(move |(k, a)| (format!("{k} order {order}"), a))
            })
            .collect()
    };
    gpu_matches_cpu(&input::<T>(shape, 3, 20.0), (tol, tol), all_orders);
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
        every_transform_matches::<f64>(shape, 1e-11);
        every_transform_matches::<f32>(shape, 2e-3);
    }
    every_transform_matches::<i32>(&[9, 10], 1.0);
    every_transform_matches::<u8>(&[33], 1.0);
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
                // zoom 1 returns the input itself, as SciPy (gh-20999), in every mode
                for grid in [false, true] {
                    let z = zoom(&x, &[1.0], grid, &o).unwrap().to_vec().unwrap();
                    assert_eq!(z, xv, "zoom 1 {mode} {order} on {dev}");
                }
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
        // ... stored as NumPy assigns (`output[...] = input`: floats truncated into integers,
        // wrapped into u8): SciPy's zoom(x, 1, output=int32 / uint8)
        let v = Array::from_vec(vec![2.7, -2.7, 300.7, -1.2, f64::NAN], &[5], &dev).unwrap();
        let o = InterpOptions::default();
        let y = zoom_as::<f64, i32>(&v, &[1.0], false, &o).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![2, -2, 300, -1, i32::MIN], "{dev}");
        let y = zoom_as::<f64, u8>(&v, &[1.0], false, &o).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![2, 254, 44, 255, 0], "{dev}");
        let y = zoom_as::<f64, f32>(&v, &[1.0], false, &o).unwrap();
        assert_eq!(
            y.to_vec().unwrap()[..4],
            [2.7f32, -2.7, 300.7, -1.2],
            "{dev}"
        );
        // without the prefilter the input is taken as spline coefficients: not a copy
        let o = InterpOptions {
            prefilter: false,
            ..Default::default()
        };
        let y = zoom(&x, &[1.0], false, &o).unwrap().to_vec().unwrap();
        assert!(
            y.iter().zip(&xv).any(|(a, b)| (a - b).abs() > 1e-3),
            "{dev}"
        );
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
        // scipy.ndimage.spline_filter(x, order=1): RuntimeError('spline order not supported')
        assert_eq!(kind(spline_filter(&x, 1, Mode::Mirror).unwrap_err()), "arg");
        assert_eq!(kind(spline_filter(&x, 0, Mode::Mirror).unwrap_err()), "arg");
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
        for a in [f64::NAN, f64::INFINITY] {
            assert_eq!(kind(rotate(&x, a, (1, 0), true, &o).unwrap_err()), "arg");
        }
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
        // an angle a hair below 0 is no quarter turn (it was: -1e-20 reduced to 360 degrees)
        let x = arr((0..12).map(f64::from).collect(), &[3, 4], &dev);
        let on = InterpOptions {
            mode: Mode::Nearest,
            ..o1
        };
        let y = rotate(&x, -1e-20, (1, 0), true, &on).unwrap();
        assert_eq!(y.shape(), &[3, 4]);
        assert_allclose(&y, &x, 1e-12, 1e-12, &format!("on {dev}"));
        if !dev.is_cuda() {
            // rotate(arange(12.).reshape(3, 4), -1e-20, order=1): the first row's coordinates
            // fall a hair outside (cval); the CPU follows SciPy's arithmetic
            let o0 = InterpOptions { cval: 0.0, ..o1 };
            let y = rotate(&x, -1e-20, (1, 0), true, &o0).unwrap();
            let want: Vec<f64> = (0..12)
                .map(|v| if v < 4 { 0.0 } else { v as f64 })
                .collect();
            assert_eq!(y.to_vec().unwrap(), want);
        }
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

// ---------------------------------------------------------------- output= dtype (`*_as`)

fn arr<T: cusci_core::dtype::Element>(v: Vec<T>, s: &[usize], dev: &Device) -> Array<T> {
    Array::from_vec(v, s, dev).unwrap()
}

fn close(got: &[f64], want: &[f64], rtol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= rtol * w.abs().max(1.0),
            "{what}: {got:?} vs {want:?}"
        );
    }
}

#[test]
fn as_functions_store_as_scipy_on_every_device() {
    let vals = vec![
        2.5,
        -2.5,
        1.5,
        -0.5,
        0.5,
        -1.5,
        0.49999999999999994,
        -0.49999999999999994,
        300.7,
        255.5,
        -0.6,
        256.4,
        2147483647.6,
        -2147483648.6,
        3e9,
        1e19,
        -1e19,
        f64::NAN,
        f64::INFINITY,
    ];
    let n = vals.len();
    for dev in devices() {
        let x = arr(vals.clone(), &[n], &dev);
        let c = arr((0..n).map(|i| i as f64).collect(), &[1, n], &dev);
        let o0 = InterpOptions {
            order: 0,
            ..Default::default()
        };
        // scipy.ndimage.map_coordinates(vals, [arange(n)], order=0, output=np.uint8 / int32 /
        // int64 / bool) (SciPy 1.17.1)
        let u8s = map_coordinates_as::<f64, u8, f64>(&x, &c, &o0).unwrap();
        assert_eq!(
            u8s.to_vec().unwrap(),
            vec![3, 0, 2, 0, 1, 0, 1, 0, 255, 255, 0, 255, 255, 0, 255, 255, 0, 0, 255]
        );
        let i32s = map_coordinates_as::<f64, i32, f64>(&x, &c, &o0).unwrap();
        let (mx, mn) = (i32::MAX, i32::MIN);
        assert_eq!(
            i32s.to_vec().unwrap(),
            vec![3, -3, 2, -1, 1, -2, 1, -1, 301, 256, -1, 256, mx, mn, mx, mx, mn, mn, mx]
        );
        let i64s = map_coordinates_as::<f64, i64, f64>(&x, &c, &o0).unwrap();
        let (mx, mn) = (i64::MAX, i64::MIN);
        assert_eq!(
            i64s.to_vec().unwrap(),
            vec![
                3,
                -3,
                2,
                -1,
                1,
                -2,
                1,
                -1,
                301,
                256,
                -1,
                256,
                2147483648,
                -2147483649,
                3000000000,
                mx,
                mn,
                mn,
                mx
            ]
        );
        let bools = map_coordinates_as::<f64, bool, f64>(&x, &c, &o0).unwrap();
        let b: Vec<u8> = bools.to_vec().unwrap().into_iter().map(u8::from).collect();
        assert_eq!(
            b,
            vec![1, 1, 1, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]
        );
        let f32s = map_coordinates_as::<f64, f32, f64>(&x, &c, &o0).unwrap();
        let want: Vec<f32> = vals.iter().map(|&v| v as f32).collect();
        let got = f32s.to_vec().unwrap();
        assert!(got
            .iter()
            .zip(&want)
            .all(|(g, w)| g == w || (g.is_nan() && w.is_nan())));

        // cval rounded too: shift([1, 2, 3], 1.5, order=1, cval=-2.5, output=...)
        let x3 = arr(vec![1.0, 2.0, 3.0], &[3], &dev);
        let oc = InterpOptions {
            order: 1,
            cval: -2.5,
            ..Default::default()
        };
        let y = shift_as::<f64, u8>(&x3, &[1.5], &oc).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![0, 0, 2]);
        let y = shift_as::<f64, i32>(&x3, &[1.5], &oc).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![-3, -3, 2]);

        // f32 input to f64 output is SciPy's double computation:
        // shift(np.float32([0.1, 0.7, 1.3, 2.9, -4.1]), 0.3, output=np.float64)
        let xf = arr(vec![0.1f32, 0.7, 1.3, 2.9, -4.1], &[5], &dev);
        let o3 = InterpOptions::default();
        let y = shift_as::<f32, f64>(&xf, &[0.3], &o3).unwrap();
        let want = [
            0.0,
            0.5404749990375712,
            0.7737249460248281,
            3.427625055863521,
            -2.8870248990049596,
        ];
        close(&y.to_vec().unwrap(), &want, 1e-13, "shift f32 -> f64");
        let y = shift_as::<f32, f32>(&xf, &[0.3], &o3)
            .unwrap()
            .to_vec()
            .unwrap();
        let want32: Vec<f32> = want.iter().map(|&v| v as f32).collect();
        assert_eq!(
            y, want32,
            "shift f32 -> f32 (double computation rounded once)"
        );

        // u8 input: shift(u8 [0, 10, 200, 255, 3], 0.3, output=...)
        let u = arr(vec![0u8, 10, 200, 255, 3], &[5], &dev);
        let y = shift_as::<u8, f64>(&u, &[0.3], &o3).unwrap();
        let want = [0.0, -6.51612499999999, 134.337125, 285.722625, 44.826375];
        close(&y.to_vec().unwrap(), &want, 1e-13, "shift u8 -> f64");
        let y = shift_as::<u8, u8>(&u, &[0.3], &o3).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![0, 0, 134, 255, 45]);
        let y = shift_as::<u8, i32>(&u, &[0.3], &o3).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![0, -7, 134, 286, 45]);

        // grid-constant pads in the input's type: shift(u8, 0.3, mode='grid-constant',
        // cval=2.7, output=np.float64) equals SciPy's result for cval=2.0 inside
        let ogc = InterpOptions {
            mode: Mode::GridConstant,
            cval: 2.7,
            ..Default::default()
        };
        let y = shift_as::<u8, f64>(&u, &[0.3], &ogc).unwrap();
        let want = [
            3.875523933617988,
            -9.153737465066417,
            136.80342592664732,
            278.49503375847644,
            71.27043903944724,
        ];
        close(&y.to_vec().unwrap(), &want, 1e-12, "grid-constant u8 pad");
        // shift(np.float32([...]), 0.3, mode='grid-constant', cval=0.1, output=np.float64)
        let ogc = InterpOptions {
            mode: Mode::GridConstant,
            cval: 0.1,
            ..Default::default()
        };
        let y = shift_as::<f32, f64>(&xf, &[0.3], &ogc).unwrap();
        let want = [
            0.026189957008568986,
            0.5812628330041907,
            0.7849586555602276,
            3.341902383755299,
            -2.5553679201074577,
        ];
        close(&y.to_vec().unwrap(), &want, 1e-12, "grid-constant f32 pad");

        // shift(int32 [-5, 7, 100000, -3], 0.5, order=1, output=int64 / uint8)
        let i3 = arr(vec![-5i32, 7, 100000, -3], &[4], &dev);
        let o1 = InterpOptions {
            order: 1,
            ..Default::default()
        };
        let y = shift_as::<i32, i64>(&i3, &[0.5], &o1).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![0, 1, 50004, 49999]);
        let y = shift_as::<i32, u8>(&i3, &[0.5], &o1).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![0, 1, 255, 255]);

        // zoom / rotate / affine_transform of [[0, 50, 100], [150, 200, 250]]
        let aa = arr(vec![0.0, 50.0, 100.0, 150.0, 200.0, 250.0], &[2, 3], &dev);
        // zoom(a, 1.5, output=np.uint8)
        let y = zoom_as::<f64, u8>(&aa, &[1.5], false, &o3).unwrap();
        assert_eq!(y.shape(), &[3, 4]);
        assert_eq!(
            y.to_vec().unwrap(),
            vec![0, 26, 74, 100, 75, 101, 149, 175, 150, 176, 224, 250]
        );
        // rotate(a, 30, order=1, output=np.int32)
        let y = rotate_as::<f64, i32>(&aa, 30.0, (1, 0), true, &o1).unwrap();
        assert_eq!(y.shape(), &[3, 4]);
        assert_eq!(
            y.to_vec().unwrap(),
            vec![0, 0, 0, 0, 0, 66, 184, 0, 0, 0, 0, 0]
        );
        // affine_transform(a, [0.7, 1.2], offset=[0.2, -0.4], order=2, mode='nearest',
        // output=np.uint8)
        let on2 = InterpOptions {
            order: 2,
            mode: Mode::Nearest,
            ..Default::default()
        };
        let m = Matrix::Diagonal(vec![0.7, 1.2]);
        let y = affine_transform_as::<f64, u8>(&aa, &m, &[0.2, -0.4], None, &on2).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![18, 61, 123, 136, 178, 240]);
    }
}

#[test]
fn spline_filter_as_stores_each_pass_as_scipy() {
    for dev in devices() {
        let x = arr(vec![0.5f32, 10.2, -7.7, 4.0], &[4], &dev);
        let m = Mode::Mirror;
        // spline_filter1d(np.float32([0.5, 10.2, -7.7, 4.0]), 2, output=...)
        let want = [
            -4.964285605294363,
            16.892856815883093,
            -14.792856815883091,
            10.264285605294361,
        ];
        let y = spline_filter1d_as::<f32, f64>(&x, 2, -1, m).unwrap();
        close(&y.to_vec().unwrap(), &want, 1e-13, "spline_filter1d f64");
        let y = spline_filter1d_as::<f32, u8>(&x, 2, -1, m).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![252, 16, 242, 10]);
        let y = spline_filter1d_as::<f32, i32>(&x, 2, -1, m).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![-4, 16, -14, 10]);
        // orders 0 and 1 copy the input into the output:
        // spline_filter1d([[0.6, -10.6, 200], [255, 3, 17]], 1, 0, output=np.uint8)
        let s = arr(vec![0.6, -10.6, 200.0, 255.0, 3.0, 17.0], &[2, 3], &dev);
        let y = spline_filter1d_as::<f64, u8>(&s, 1, 0, m).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![0, 246, 200, 255, 3, 17]);
        let y = spline_filter1d_as::<f64, i32>(&s, 0, 1, m).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![0, -10, 200, 255, 3, 17]);
        // spline_filter(u8 [[0, 10, 200], [255, 3, 17]], 3, output=np.float32): each pass
        // stored in f32
        let u = arr(vec![0u8, 10, 200, 255, 3, 17], &[2, 3], &dev);
        let y = spline_filter_as::<u8, f32>(&u, 3, m).unwrap();
        assert_eq!(
            y.to_vec().unwrap(),
            vec![-367.5, -30.0, 589.5, 855.0, -180.0, -159.0]
        );
        // the stored passes against spline_filter1d_as axis by axis (integer truncation between
        // the passes)
        let a0 = spline_filter1d_as::<u8, i64>(&u, 3, 0, m).unwrap();
        let want = spline_filter1d_as::<i64, i64>(&a0, 3, 1, m).unwrap();
        let got = spline_filter_as::<u8, i64>(&u, 3, m).unwrap();
        assert_eq!(got.to_vec().unwrap(), want.to_vec().unwrap());
        // the default output (float64) is spline_filter's
        let y = spline_filter_as::<u8, f64>(&u, 3, m)
            .unwrap()
            .to_vec()
            .unwrap();
        let z = spline_filter(&u, 3, m).unwrap().to_vec().unwrap();
        close(&y, &z, 1e-14, "spline_filter_as f64 vs spline_filter");
    }
}

#[test]
fn as_functions_match_the_same_type_functions_for_f64() {
    for dev in devices() {
        let x = randn::<f64>(&[9, 11], 7, &dev).unwrap();
        let o = InterpOptions::default();
        let a = shift_as::<f64, f64>(&x, &[0.3, -1.7], &o).unwrap();
        let b = shift(&x, &[0.3, -1.7], &o).unwrap();
        assert_allclose(&a, &b, 1e-14, 1e-14, "shift_as f64");
        let a = rotate_as::<f64, f64>(&x, 17.0, (1, 0), true, &o).unwrap();
        let b = rotate(&x, 17.0, (1, 0), true, &o).unwrap();
        assert_allclose(&a, &b, 1e-14, 1e-14, "rotate_as f64");
        let a = zoom_as::<f64, f64>(&x, &[1.3, 0.7], true, &o).unwrap();
        let b = zoom(&x, &[1.3, 0.7], true, &o).unwrap();
        assert_allclose(&a, &b, 1e-14, 1e-14, "zoom_as f64");
        // integer output: the f64 result rounded half away from zero and clamped
        let y = shift_as::<f64, i32>(&x.mul_scalar(100.0).unwrap(), &[0.3, -1.7], &o).unwrap();
        let f = shift(&x, &[0.3, -1.7], &o).unwrap().to_vec().unwrap();
        let y = y.to_vec().unwrap();
        for (k, (&g, &v)) in y.iter().zip(&f).enumerate() {
            let r = (v * 100.0).abs() + 0.5;
            let w = (r.trunc() * (v * 100.0).signum()) as i32;
            assert!((g - w).abs() <= 1, "element {k}: {g} vs {w}");
        }
    }
}

#[test]
fn as_functions_give_typed_errors_on_every_device() {
    use cusci_core::c64;
    for dev in devices() {
        let x = randn::<f64>(&[4, 5], 1, &dev).unwrap();
        let o = InterpOptions::default();
        let xc = x.astype::<c64>().unwrap();
        assert!(matches!(
            shift_as::<c64, f64>(&xc, &[0.5], &o),
            Err(Error::UnsupportedDType { .. })
        ));
        assert!(matches!(
            shift_as::<f64, c64>(&x, &[0.5], &o),
            Err(Error::UnsupportedDType { .. })
        ));
        assert!(matches!(
            spline_filter_as::<f64, c64>(&x, 3, Mode::Mirror),
            Err(Error::UnsupportedDType { .. })
        ));
        // SciPy: RuntimeError('spline order not supported') for spline_filter of order 0/1, > 5
        for order in [0, 1, 6] {
            let e = spline_filter_as::<f64, f64>(&x, order, Mode::Mirror).unwrap_err();
            assert_eq!(kind(e), "arg");
        }
        let e = spline_filter1d_as::<f64, f64>(&x, 6, 0, Mode::Mirror).unwrap_err();
        assert_eq!(kind(e), "arg");
        let e = spline_filter1d_as::<f64, u8>(&x, 3, 2, Mode::Mirror).unwrap_err();
        assert_eq!(kind(e), "arg");
        let c = randn::<f64>(&[3, 4], 2, &dev).unwrap();
        let e = map_coordinates_as::<f64, u8, f64>(&x, &c, &o).unwrap_err();
        assert_eq!(kind(e), "shape");
        let bad = InterpOptions { order: 6, ..o };
        let e = zoom_as::<f64, i32>(&x, &[2.0], false, &bad).unwrap_err();
        assert_eq!(kind(e), "arg");
        let e = rotate_as::<f64, i32>(&x, 10.0, (0, 5), false, &o).unwrap_err();
        assert_eq!(kind(e), "arg");
        let m = Matrix::Diagonal(vec![1.0]);
        let e = affine_transform_as::<f64, f32>(&x, &m, &[], None, &o).unwrap_err();
        assert_eq!(kind(e), "shape");
    }
}

#[test]
fn zoom_grid_mode_rounds_its_coordinates_as_scipy() {
    // SciPy computes (o + 0.5) * z - 0.5: at zoom 1.5 the coordinates 0.5, 4.5 and 6.5 are exact
    // halves (z * o + (0.5 z - 0.5) gives 0.49999999999999994 ...), and nearest rounds them up:
    // zoom(arange(8), 1.5, order=0, grid_mode=True, mode='grid-wrap')
    let want = [0.0, 1.0, 1.0, 2.0, 3.0, 3.0, 4.0, 5.0, 5.0, 6.0, 7.0, 7.0];
    for dev in devices() {
        let x = Array::from_vec((0..8).map(f64::from).collect(), &[8], &dev).unwrap();
        let o = InterpOptions {
            order: 0,
            mode: Mode::GridWrap,
            ..Default::default()
        };
        let y = zoom(&x, &[1.5], true, &o).unwrap();
        assert_eq!(y.to_vec().unwrap(), want, "{dev}");
        // the same along the first axis of a 2-D input (the n-D kernel on the GPU)
        let x2 =
            Array::from_vec((0..16).map(|v| f64::from(v / 2)).collect(), &[8, 2], &dev).unwrap();
        let y2 = zoom(&x2, &[1.5, 1.0], true, &o).unwrap().to_vec().unwrap();
        let col: Vec<f64> = y2.iter().step_by(2).copied().collect();
        assert_eq!(col, want, "{dev}");
    }
}

#[test]
fn nearest_clamps_stencil_indices_not_coordinates_as_scipy() {
    // beyond the prefilter's 12-element padding SciPy keeps the coordinate and clamps each
    // stencil index, so the value tends to the padded edge's spline coefficient:
    // map_coordinates([3, -1, 2, 0.5, 4], [[-1, -11.5, -12.5, -20, -30, 30]], order, 'nearest')
    let want = [
        (
            4,
            [
                2.9999999999999996,
                2.9999906255987185,
                3.00000822871141,
                3.0000104651088577,
                3.0000104651088577,
                4.0000088841557595,
            ],
        ),
        (
            5,
            [
                3.000000000000004,
                2.999927728718304,
                3.000089300773428,
                3.0001259855439626,
                3.0001259855439626,
                4.000108154420008,
            ],
        ),
    ];
    for dev in devices() {
        let x = Array::from_vec(vec![3.0, -1.0, 2.0, 0.5, 4.0], &[5], &dev).unwrap();
        let c =
            Array::from_vec(vec![-1.0, -11.5, -12.5, -20.0, -30.0, 30.0], &[1, 6], &dev).unwrap();
        for (order, w) in want {
            let o = InterpOptions {
                order,
                mode: Mode::Nearest,
                ..Default::default()
            };
            let y: Vec<f64> = map_coordinates(&x, &c, &o).unwrap().to_vec().unwrap();
            for (k, (a, b)) in y.iter().zip(w).enumerate() {
                assert!(
                    (a - b).abs() < 1e-12,
                    "order {order} point {k} on {dev}: {a} vs {b}"
                );
            }
        }
    }
}
