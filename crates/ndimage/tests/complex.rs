//! Complex input (issue 32, src/complex.rs): the linear filters and the geometric transforms of
//! complex128 and complex64 arrays against SciPy (tests/golden/gen.py, section
//! ndimage_complex) on every device, every GPU against the CPU on a larger input, and the
//! errors.

use crate::common::golden;
use cusci_core::dtype::{c32, c64, Element, Float};
use cusci_core::npy::DynArray;
use cusci_core::testing::{devices, randn};
use cusci_core::Error;
use cusci_ndimage::*;
use std::collections::HashMap;

fn fo(mode: &str, cval: f64) -> FilterOptions {
    FilterOptions {
        mode: mode.parse().unwrap(),
        cval,
        ..Default::default()
    }
}

fn io(order: usize, mode: &str, cval: f64) -> InterpOptions {
    InterpOptions {
        order,
        mode: mode.parse().unwrap(),
        cval,
        ..Default::default()
    }
}

/// gen.py's cases, with the same arguments.
fn run<C>(case: &str, x: &Array<C>, d: &HashMap<String, DynArray>) -> Result<Array<C>>
where
    C: Float,
    C::Real: Real,
{
    let w = d["W"].as_array::<f64>().unwrap();
    let wc = d["WC"].as_array::<c64>().unwrap();
    let w1 = d["w1"].as_array::<f64>().unwrap().to_vec().unwrap();
    let w1c = d["w1c"].as_array::<c64>().unwrap().to_vec().unwrap();
    let coords = d["coords"]
        .as_array::<f64>()
        .unwrap()
        .to_device(x.device())?;
    match case {
        "correlate" => correlate_complex(x, w, &fo("nearest", 0.0)),
        "correlate_c" => correlate_complex(x, wc, &fo("constant", 1.5)),
        "convolve_c" => convolve_complex(x, wc, &fo("reflect", 0.0)),
        "correlate1d" => correlate1d_complex(x, &w1, 0, &fo("wrap", 0.0)),
        "correlate1d_c" => correlate1d_complex(x, &w1c, 1, &fo("mirror", 0.0)),
        "convolve1d_c" => convolve1d_complex(x, &w1c, 1, &fo("constant", -0.5)),
        "gaussian" => gaussian_filter_complex(x, &[1.0, 1.5], &GaussianOptions::default()),
        "gaussian1d" => {
            let g = GaussianOptions {
                order: vec![1],
                mode: Mode::Constant,
                cval: 2.0,
                ..Default::default()
            };
            gaussian_filter1d_complex(x, 1.3, 0, &g)
        }
        "uniform" => uniform_filter_complex(x, &[3, 4], &fo("mirror", 0.0)),
        "uniform1d" => uniform_filter1d_complex(x, 4, 1, &fo("constant", 2.0)),
        "map_coordinates" => map_coordinates_complex(x, &coords, &io(3, "nearest", 0.0)),
        "affine" => {
            let m = Matrix::Full {
                rows: 2,
                cols: 2,
                data: vec![0.9, 0.3, -0.2, 1.1],
            };
            affine_transform_complex(x, &m, &[0.5, -1.0], None, &io(1, "constant", 1.5))
        }
        "shift" => shift_complex(x, &[0.5, -1.25], &io(3, "reflect", 0.0)),
        "zoom" => zoom_complex(x, &[1.5, 0.8], true, &io(2, "nearest", 0.0)),
        "rotate" => rotate_complex(x, 30.0, (1, 0), true, &io(1, "constant", 0.5)),
        "sobel" => sobel_complex(x, 1, &fo("constant", 1.0)),
        "prewitt" => prewitt_complex(x, 0, &fo("nearest", 0.0)),
        "laplace" => laplace_complex(x, &fo("wrap", 0.0)),
        "gaussian_laplace" => {
            let g = GaussianOptions {
                mode: Mode::Constant,
                cval: -1.0,
                ..Default::default()
            };
            gaussian_laplace_complex(x, &[1.0, 0.7], &g)
        }
        c => panic!("unknown case {c}"),
    }
}

const CASES: [&str; 19] = [
    "correlate",
    "correlate_c",
    "convolve_c",
    "correlate1d",
    "correlate1d_c",
    "convolve1d_c",
    "gaussian",
    "gaussian1d",
    "uniform",
    "uniform1d",
    "map_coordinates",
    "affine",
    "shift",
    "zoom",
    "rotate",
    "sobel",
    "prewitt",
    "laplace",
    "gaussian_laplace",
];

/// `got` against `want` within `tol` of the largest |want|.
fn close<C: Element>(got: &Array<C>, want: &Array<C>, tol: f64, ctx: &str) {
    assert_eq!(got.shape(), want.shape(), "{ctx}");
    let g: Vec<c64> = got.to_vec().unwrap().iter().map(|v| v.to_c64()).collect();
    let w: Vec<c64> = want.to_vec().unwrap().iter().map(|v| v.to_c64()).collect();
    let scale = w.iter().fold(1.0f64, |m, v| m.max(v.norm()));
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        assert!(
            (a - b).norm() <= tol * scale,
            "{ctx}: [{i}] got {a} expected {b}"
        );
    }
}

#[test]
fn golden_complex_filters_and_transforms() {
    let d = golden("ndimage_complex.npz");
    for dev in devices() {
        let x128 = d["x_c128"]
            .as_array::<c64>()
            .unwrap()
            .to_device(&dev)
            .unwrap();
        let x64 = d["x_c64"]
            .as_array::<c32>()
            .unwrap()
            .to_device(&dev)
            .unwrap();
        for case in CASES {
            let got = run(case, &x128, &d).unwrap();
            assert_eq!(got.device(), &dev);
            let want = d[&format!("{case}__c128")].as_array::<c64>().unwrap();
            close(
                &got.to_device(&Device::Cpu).unwrap(),
                want,
                1e-12,
                &format!("{case} c128 on {dev}"),
            );
            let got = run(case, &x64, &d).unwrap();
            let want = d[&format!("{case}__c64")].as_array::<c32>().unwrap();
            close(
                &got.to_device(&Device::Cpu).unwrap(),
                want,
                2e-6,
                &format!("{case} c64 on {dev}"),
            );
        }
    }
}

/// Every GPU against the CPU on a 33 × 70 input (warp and block edges).
#[test]
fn gpu_matches_cpu_on_complex_input() {
    let d = golden("ndimage_complex.npz");
    let re = randn::<f64>(&[33, 70], 5, &Device::Cpu)
        .unwrap()
        .to_vec()
        .unwrap();
    let im = randn::<f64>(&[33, 70], 6, &Device::Cpu)
        .unwrap()
        .to_vec()
        .unwrap();
    let v: Vec<c64> = re.iter().zip(&im).map(|(&a, &b)| c64::new(a, b)).collect();
    let x = Array::from_vec(v, &[33, 70], &Device::Cpu).unwrap();
    let x32 = x.astype::<c32>().unwrap();
    for dev in devices().into_iter().skip(1) {
        for case in CASES {
            let want = run(case, &x, &d).unwrap();
            let got = run(case, &x.to_device(&dev).unwrap(), &d).unwrap();
            close(
                &got.to_device(&Device::Cpu).unwrap(),
                &want,
                1e-12,
                &format!("{case} c128 on {dev}"),
            );
            let want = run(case, &x32, &d).unwrap();
            let got = run(case, &x32.to_device(&dev).unwrap(), &d).unwrap();
            close(
                &got.to_device(&Device::Cpu).unwrap(),
                &want,
                2e-6,
                &format!("{case} c64 on {dev}"),
            );
        }
    }
}

/// The parts: a real cval extends only the real part; complex weights as SciPy combines them
/// (checked here against the product of a one-tap filter); real input refused; empty input.
#[test]
fn complex_edge_cases() {
    for dev in devices() {
        let x = Array::from_vec(
            vec![
                c64::new(1.0, 2.0),
                c64::new(-3.0, 0.5),
                c64::new(f64::INFINITY, 0.0),
            ],
            &[3],
            &dev,
        )
        .unwrap();
        // one complex tap: correlate multiplies by its conjugate, convolve by it
        let w = [c64::new(0.5, -2.0)];
        let y = correlate1d_complex(&x, &w, 0, &fo("reflect", 0.0))
            .unwrap()
            .to_vec()
            .unwrap();
        let z = convolve1d_complex(&x, &w, 0, &fo("reflect", 0.0))
            .unwrap()
            .to_vec()
            .unwrap();
        for k in 0..2 {
            let xv = x.to_vec().unwrap()[k];
            assert_eq!(y[k], xv * w[0].conj(), "on {dev}");
            assert_eq!(z[k], xv * w[0], "on {dev}");
        }
        // cval: the real part only
        let o = fo("constant", 4.0);
        let u = uniform_filter1d_complex(&x, 3, 0, &o)
            .unwrap()
            .to_vec()
            .unwrap();
        assert!(
            (u[0] - c64::new(2.0 / 3.0, 2.5 / 3.0)).norm() < 1e-15,
            "on {dev}"
        );
        // real input refused (the real functions take it)
        let r = Array::from_vec(vec![1.0f64, 2.0], &[2], &dev).unwrap();
        let e = gaussian_filter_complex(&r, &[1.0], &GaussianOptions::default()).unwrap_err();
        assert!(matches!(e, Error::UnsupportedDType { .. }), "{e:?}");
        // empty input: empty output
        let empty = Array::<c32>::from_vec(vec![], &[0, 4], &dev).unwrap();
        let y = uniform_filter_complex(&empty, &[3], &FilterOptions::default()).unwrap();
        assert_eq!(y.shape(), &[0, 4]);
    }
}

/// spline_filter(1d) of complex input: complex128 results (SciPy's float64 default promoted),
/// against SciPy on every device, c128 and c64 inputs.
#[test]
fn golden_complex_spline_filters() {
    let d = golden("ndimage_complex.npz");
    for dev in devices() {
        let x128 = d["x_c128"]
            .as_array::<c64>()
            .unwrap()
            .to_device(&dev)
            .unwrap();
        let x64 = d["x_c64"]
            .as_array::<c32>()
            .unwrap()
            .to_device(&dev)
            .unwrap();
        for (k, got) in [
            ("c128", spline_filter_complex(&x128, 3, Mode::Mirror)),
            ("c64", spline_filter_complex(&x64, 3, Mode::Mirror)),
        ] {
            let want = d[&format!("spline_filter__{k}")].as_array::<c64>().unwrap();
            let got = got.unwrap().to_device(&Device::Cpu).unwrap();
            close(&got, want, 1e-12, &format!("spline_filter {k} on {dev}"));
        }
        for (k, got) in [
            ("c128", spline_filter1d_complex(&x128, 4, 0, Mode::Nearest)),
            ("c64", spline_filter1d_complex(&x64, 4, 0, Mode::Nearest)),
        ] {
            let want = d[&format!("spline_filter1d__{k}")]
                .as_array::<c64>()
                .unwrap();
            let got = got.unwrap().to_device(&Device::Cpu).unwrap();
            close(&got, want, 1e-12, &format!("spline_filter1d {k} on {dev}"));
        }
    }
}
