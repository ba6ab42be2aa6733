//! The Fourier filters against SciPy (interpolation section of gen.py: fourier.npz), GPU against
//! CPU, and typed errors on every device.

use crate::common::golden;
use cusci_core::c64;
use cusci_core::testing::{assert_allclose, devices, randn};
use cusci_core::Error;
use cusci_ndimage::*;

#[test]
fn fourier_filters_match_scipy_on_every_device() {
    let d = golden("fourier.npz");
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
        // n = 0 (the real transform's length): SciPy gives NaN factors, refused here
        assert!(matches!(
            fourier_uniform(&x, &[1.0], Some(0), -1),
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

// ---------------------------------------------------------------- SciPy's result types (`*_as`)

fn close(got: &[f64], want: &[f64], rtol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= rtol * w.abs().max(1e-300),
            "{what}: {got:?} vs {want:?}"
        );
    }
}

#[test]
fn as_functions_give_scipys_result_types_on_every_device() {
    use cusci_core::c32;
    for dev in devices() {
        let xr = Array::from_vec(vec![1i32, 2, 3, 4, 5, 6, 7, 9], &[2, 4], &dev).unwrap();
        // fourier_gaussian(int32 [[1, 2, 3, 4], [5, 6, 7, 9]], 1.0) (SciPy 1.17.1: float64)
        let g = [
            1.0,
            0.5824258664280417,
            0.021575650067479104,
            1.1648517328560835,
            0.035959416779131836,
            0.012566216684299754,
            0.00036206230342668635,
            0.01884932502644963,
        ];
        let y = fourier_gaussian_as::<i32, f64>(&xr, &[1.0], None, -1).unwrap();
        close(&y.to_vec().unwrap(), &g, 1e-13, "gaussian i32");
        // fourier_gaussian(uint8 input, 1.0, n=5, axis=0)
        let x8 = xr.astype::<u8>().unwrap();
        let y = fourier_gaussian_as::<u8, f64>(&x8, &[1.0], Some(5), 0).unwrap();
        let want = [
            1.0,
            0.5824258664280417,
            0.021575650067479104,
            1.1648517328560835,
            2.2702036936362253,
            0.7933352119405316,
            0.02285785622203708,
            1.1900028179107973,
        ];
        close(&y.to_vec().unwrap(), &want, 1e-13, "gaussian u8 n=5");
        // output=np.complex64: the double product rounded, zero imaginary part
        let y = fourier_gaussian_as::<i32, c32>(&xr, &[1.0], None, -1).unwrap();
        let want: Vec<c32> = g.iter().map(|&v| c32::new(v as f32, 0.0)).collect();
        assert_eq!(y.to_vec().unwrap(), want);
        // fourier_uniform(int32 input, 2.0)
        let y = fourier_uniform_as::<i32, f64>(&xr, &[2.0], None, -1).unwrap();
        let want = [
            1.0,
            1.2732395447351628,
            1.1694515497558127e-16,
            2.5464790894703255,
            1.9490859162596877e-16,
            1.4889919588009214e-16,
            1.0637020545093227e-32,
            2.233487938201382e-16,
        ];
        close(&y.to_vec().unwrap(), &want, 1e-12, "uniform i32");
        // fourier_ellipsoid(int32 input, 1.5)
        let y = fourier_ellipsoid_as::<i32, f64>(&xr, &[1.5], None, -1).unwrap();
        let want = [
            1.0,
            1.6725171294843981,
            1.3476994550836865,
            3.3450342589687962,
            2.2461657584728107,
            2.1005021527124175,
            0.8713955143522959,
            3.150753229068626,
        ];
        close(&y.to_vec().unwrap(), &want, 1e-13, "ellipsoid i32");
        // fourier_gaussian(np.float32(x) * np.float32(1.1), 1.0, output=np.float64): the input
        // read as double
        let x32 = xr.astype::<f32>().unwrap().mul_scalar(1.1).unwrap();
        let y = fourier_gaussian_as::<f32, f64>(&x32, &[1.0], None, -1).unwrap();
        let want = [
            1.100000023841858,
            0.6406684669569607,
            0.0237332164459699,
            1.2813369339139213,
            0.039555358457045026,
            0.01382283915166827,
            0.00039826854856747727,
            0.020734258727502404,
        ];
        close(&y.to_vec().unwrap(), &want, 1e-13, "gaussian f32 -> f64");
        // bool input gives float64: fourier_gaussian([True, False, True], 1.0)
        let b = Array::from_vec(vec![true, false, true], &[3], &dev).unwrap();
        let y = fourier_gaussian_as::<bool, f64>(&b, &[1.0], None, -1).unwrap();
        close(
            &y.to_vec().unwrap(),
            &[1.0, 0.0, 0.11155412024665476],
            1e-13,
            "gaussian bool",
        );

        // fourier_shift(int32 input, [0.5, 1.0]) is complex128
        let y = fourier_shift_as::<i32, c64>(&xr, &[0.5, 1.0], None, -1).unwrap();
        let want = [
            (1.0, 0.0),
            (0.0, -2.0),
            (-3.0, 0.0),
            (0.0, 4.0),
            (0.0, 5.0),
            (6.0, 0.0),
            (0.0, -7.0),
            (-9.0, 0.0),
        ];
        for (g, w) in y.to_vec().unwrap().iter().zip(want) {
            assert!((g - c64::new(w.0, w.1)).norm() < 1e-14, "{g} vs {w:?}");
        }
        // fourier_shift(int32 input, 0.7, n=6, axis=1)
        let y = fourier_shift_as::<i32, c64>(&xr, &[0.7], Some(6), 1).unwrap();
        let want = [
            (1.0, 0.0),
            (1.4862896509547885, -1.3382612127177165),
            (0.31358538980296036, -2.9835656861048196),
            (-2.351141009169892, -3.23606797749979),
            (-2.938926261462365, 4.045084971874737),
            (0.627170779605922, 5.967131372209639),
            (5.202013778341761, 4.683914244512007),
            (9.0, 0.0),
        ];
        for (g, w) in y.to_vec().unwrap().iter().zip(want) {
            assert!((g - c64::new(w.0, w.1)).norm() < 1e-13, "{g} vs {w:?}");
        }
        // complex input into complex64: fourier_shift(x * 1.1 + 0.3j, [0.5, 1], output=complex64)
        let xc = xr
            .astype::<c64>()
            .unwrap()
            .mul_scalar(c64::new(1.1, 0.0))
            .unwrap()
            .add_scalar(c64::new(0.0, 0.3))
            .unwrap();
        let y = fourier_shift_as::<c64, c32>(&xc, &[0.5, 1.0], None, -1).unwrap();
        let z = fourier_shift(&xc, &[0.5, 1.0], None, -1).unwrap();
        let zz: Vec<c32> = z
            .to_vec()
            .unwrap()
            .iter()
            .map(|v| c32::new(v.re as f32, v.im as f32))
            .collect();
        let yv = y.to_vec().unwrap();
        for (a, b) in yv.iter().zip(&zz) {
            assert!((a - b).norm() <= 1e-6 * b.norm().max(1e-6), "{a} vs {b}");
        }
        // the *_as of an input's own type is the plain function's (f64)
        let xf = randn::<f64>(&[6, 5], 3, &dev).unwrap();
        let a = fourier_uniform_as::<f64, f64>(&xf, &[2.0, 1.5], Some(9), 1).unwrap();
        let b = fourier_uniform(&xf, &[2.0, 1.5], Some(9), 1).unwrap();
        assert_allclose(&a, &b, 1e-14, 1e-14, "uniform_as f64");
    }
}

#[test]
fn as_functions_give_typed_errors_on_every_device() {
    for dev in devices() {
        let xr = Array::from_vec(vec![1i32, 2, 3, 4], &[4], &dev).unwrap();
        let xc = xr.astype::<c64>().unwrap();
        // SciPy: RuntimeError('output type not supported') / ('data type not supported')
        let e = fourier_gaussian_as::<i32, i32>(&xr, &[1.0], None, -1).unwrap_err();
        assert!(matches!(e, Error::UnsupportedDType { .. }));
        let e = fourier_uniform_as::<c64, f64>(&xc, &[1.0], None, -1).unwrap_err();
        assert!(matches!(e, Error::UnsupportedDType { .. }));
        let e = fourier_shift_as::<i32, f64>(&xr, &[1.0], None, -1).unwrap_err();
        assert!(matches!(e, Error::UnsupportedDType { .. }));
        let e = fourier_ellipsoid_as::<i32, f64>(&xr, &[1.0], None, 3).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }));
        let e = fourier_shift_as::<i32, c64>(&xr, &[1.0, 2.0], None, -1).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }));
        let x4 = Array::from_vec(vec![1.0f64; 16], &[2, 2, 2, 2], &dev).unwrap();
        let e = fourier_ellipsoid_as::<f64, f64>(&x4, &[1.0], None, -1).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }));
    }
}

/// The CPU's Gaussian and uniform factors are SciPy's bit for bit: per axis `exp(p·f·f)` with
/// `p = −2(σπ/n)²`, exactly 0 where `|p·f·f| > 50` (index 4 here), multiplied axis by axis.
/// Values from SciPy 1.17.1; the GPU within a few ulps.
#[test]
fn cpu_factors_are_scipys_bit_for_bit() {
    let v = vec![0.5, -1.25, 2.0, 0.75, -0.3, 1.1, 0.9, -2.2];
    for dev in cusci_core::testing::devices() {
        let x = Array::from_vec(v.clone(), &[8], &dev).unwrap();
        let g = fourier_gaussian(&x, &[4.0], None, -1)
            .unwrap()
            .to_vec()
            .unwrap();
        let u = fourier_uniform(&x, &[3.0], None, -1)
            .unwrap()
            .to_vec()
            .unwrap();
        let want_g: [f64; 8] = [
            0.5,
            -0.008989854194782959,
            5.350575982148486e-09,
            3.860512638372274e-20,
            -0.0,
            5.662085202946003e-20,
            2.4077591919668186e-09,
            -0.01582214338281801,
        ];
        let want_u: [f64; 8] = [
            0.5,
            -0.9802666294706714,
            0.6002108774380708,
            -0.08120794653370271,
            0.06366197723675814,
            -0.11910498824943065,
            0.27009489484713184,
            -1.7252692678683819,
        ];
        if dev.is_cuda() {
            for (a, b) in g.iter().zip(&want_g).chain(u.iter().zip(&want_u)) {
                assert!((a - b).abs() <= 1e-14 * b.abs(), "{a} {b} on {dev}");
            }
        } else {
            assert_eq!(g, want_g);
            assert_eq!(u, want_u);
        }
        assert_eq!(g[4], 0.0, "the cut-off factor on {dev}");
    }
}
