//! The filters with SciPy's `output=` dtype (`*_as::<I, O>`, src/filters/output/):
//! every input type × every output type against SciPy (tests/golden/gen.py, section
//! ndimage_output) on each device, the GPU against the CPU on larger inputs, and the store rules
//! and errors on the CPU.

use crate::common::golden;
use cusci_core::dtype::{c64, DType, Element};
use cusci_core::npy::DynArray;
use cusci_core::testing::{devices, gpu, randn};
use cusci_ndimage::*;
use std::collections::HashMap;

fn opts(mode: &str, cval: f64) -> FilterOptions {
    FilterOptions {
        mode: mode.parse().unwrap(),
        cval,
        ..Default::default()
    }
}

/// The calls of gen.py's `cases`, with the same arguments.
fn run<I: Element, O: Element>(
    case: &str,
    x: &Array<I>,
    w: &Array<f64>,
    fp: &Array<bool>,
) -> Result<Array<O>> {
    let w = w.to_device(x.device())?;
    let mask = Footprint::Mask(fp.clone());
    let size = |s: &[usize]| Footprint::Size(s.to_vec());
    match case {
        "correlate1d" => correlate1d_as(x, &[0.3, -1.2, 2.5], 0, &opts("reflect", 0.0)),
        "correlate" => correlate_as(x, &w, &opts("nearest", 0.0)),
        "convolve" => convolve_as(x, &w, &opts("constant", 1.5)),
        "gaussian" => gaussian_filter_as(x, &[1.0, 1.5], &GaussianOptions::default()),
        "gaussian_order" => {
            let g = GaussianOptions {
                order: vec![0, 1],
                truncate: 3.0,
                mode: "mirror".parse().unwrap(),
                ..Default::default()
            };
            gaussian_filter_as(x, &[1.2, 0.9], &g)
        }
        "gaussian1d" => {
            let g = GaussianOptions {
                order: vec![1],
                ..Default::default()
            };
            gaussian_filter1d_as(x, 1.3, 0, &g)
        }
        "convolve1d" => convolve1d_as(x, &[0.5, -2.0, 1.25, 0.75], 1, &opts("wrap", 0.0)),
        "uniform1d" => {
            let o = FilterOptions {
                origin: vec![1],
                ..opts("reflect", 0.0)
            };
            uniform_filter1d_as(x, 4, 1, &o)
        }
        "minimum1d" => minimum_filter1d_as(x, 3, 0, &opts("constant", 1.5)),
        "maximum1d" => maximum_filter1d_as(x, 4, 1, &opts("nearest", 0.0)),
        "uniform" => uniform_filter_as(x, &[3, 4], &opts("mirror", 0.0)),
        "sobel" => sobel_as(x, 0, &opts("reflect", 0.0)),
        "prewitt" => prewitt_as(x, 1, &opts("nearest", 0.0)),
        "laplace" => laplace_as(x, &opts("reflect", 0.0)),
        "gaussian_laplace" => {
            let g = GaussianOptions {
                mode: "nearest".parse().unwrap(),
                ..Default::default()
            };
            gaussian_laplace_as(x, &[1.0, 0.8], &g)
        }
        "gradient_magnitude" => {
            gaussian_gradient_magnitude_as(x, &[0.9, 1.1], &GaussianOptions::default())
        }
        "minimum" => minimum_filter_as(x, &size(&[3, 2]), &opts("reflect", 0.0)),
        "maximum" => maximum_filter_as(x, &size(&[2, 3]), &opts("wrap", 0.0)),
        "maximum_fp" => maximum_filter_as(x, &mask, &opts("reflect", 0.0)),
        "median" => median_filter_as(x, &size(&[3, 3]), &opts("reflect", 0.0)),
        "rank_fp" => rank_filter_as(x, -2, &mask, &opts("mirror", 0.0)),
        "percentile" => percentile_filter_as(x, 30.0, &size(&[2, 3]), &opts("reflect", 0.0)),
        c => panic!("unknown case {c}"),
    }
}

/// The plain (same-type) filters of gen.py's `cases` that take bool input, with the same
/// arguments (None: a filter that needs a numeric type: laplace and the Gaussian derivatives).
fn run_plain(
    case: &str,
    x: &Array<bool>,
    w: &Array<f64>,
    fp: &Array<bool>,
) -> Option<Result<Array<bool>>> {
    let w = w.to_device(x.device()).unwrap();
    let mask = Footprint::Mask(fp.clone());
    let size = |s: &[usize]| Footprint::Size(s.to_vec());
    Some(match case {
        "correlate1d" => correlate1d(x, &[0.3, -1.2, 2.5], 0, &opts("reflect", 0.0)),
        "correlate" => correlate(x, &w, &opts("nearest", 0.0)),
        "convolve" => convolve(x, &w, &opts("constant", 1.5)),
        "gaussian" => gaussian_filter(x, &[1.0, 1.5], &GaussianOptions::default()),
        "gaussian_order" => {
            let g = GaussianOptions {
                order: vec![0, 1],
                truncate: 3.0,
                mode: "mirror".parse().unwrap(),
                ..Default::default()
            };
            gaussian_filter(x, &[1.2, 0.9], &g)
        }
        "gaussian1d" => {
            let g = GaussianOptions {
                order: vec![1],
                ..Default::default()
            };
            gaussian_filter1d(x, 1.3, 0, &g)
        }
        "convolve1d" => convolve1d(x, &[0.5, -2.0, 1.25, 0.75], 1, &opts("wrap", 0.0)),
        "uniform1d" => {
            let o = FilterOptions {
                origin: vec![1],
                ..opts("reflect", 0.0)
            };
            uniform_filter1d(x, 4, 1, &o)
        }
        "minimum1d" => minimum_filter1d(x, 3, 0, &opts("constant", 1.5)),
        "maximum1d" => maximum_filter1d(x, 4, 1, &opts("nearest", 0.0)),
        "uniform" => uniform_filter(x, &[3, 4], &opts("mirror", 0.0)),
        "sobel" => sobel(x, 0, &opts("reflect", 0.0)),
        "prewitt" => prewitt(x, 1, &opts("nearest", 0.0)),
        "laplace" | "gaussian_laplace" | "gradient_magnitude" => return None,
        "minimum" => minimum_filter(x, &size(&[3, 2]), &opts("reflect", 0.0)),
        "maximum" => maximum_filter(x, &size(&[2, 3]), &opts("wrap", 0.0)),
        "maximum_fp" => maximum_filter(x, &mask, &opts("reflect", 0.0)),
        "median" => median_filter(x, &size(&[3, 3]), &opts("reflect", 0.0)),
        "rank_fp" => rank_filter(x, -2, &mask, &opts("mirror", 0.0)),
        "percentile" => percentile_filter(x, 30.0, &size(&[2, 3]), &opts("reflect", 0.0)),
        c => panic!("unknown case {c}"),
    })
}

/// Linear cases whose weights are not binary fractions: their f64 sums may differ from SciPy's
/// (and the GPU's from the CPU's) in the last bit, which can move a truncation at an integer.
fn inexact(case: &str) -> bool {
    matches!(
        case,
        "correlate1d"
            | "gaussian"
            | "gaussian_laplace"
            | "gaussian_order"
            | "gaussian1d"
            | "gradient_magnitude"
    )
}

/// `got` against `exp`: floats within a few ulps of the output type, integers and bool exactly,
/// except (when `near` is given) where the f64 result `near[i]` lies within 1e-9 of an integer.
/// Returns a description of the failures, if any.
fn check<O: Element>(got: &Array<O>, exp: &Array<O>, near: Option<&[f64]>) -> Option<String> {
    assert_eq!(got.shape(), exp.shape());
    let g = got.astype::<f64>().unwrap().to_vec().unwrap();
    let e = exp.astype::<f64>().unwrap().to_vec().unwrap();
    let (gi, ei) = (got.to_vec().unwrap(), exp.to_vec().unwrap());
    let scale = e
        .iter()
        .filter(|v| v.is_finite())
        .fold(0.0f64, |m, v| m.max(v.abs()));
    let mut bad = Vec::new();
    for i in 0..g.len() {
        let ok = match O::DTYPE {
            DType::F64 => g[i] == e[i] || (g[i] - e[i]).abs() <= 1e-13 * scale,
            DType::F32 => g[i] == e[i] || (g[i] - e[i]).abs() <= 3e-7 * e[i].abs() + 1e-12 * scale,
            _ => gi[i] == ei[i],
        };
        let excused = near.is_some_and(|n| {
            let v = n[i];
            (v - v.round()).abs() <= 1e-9 * (1.0 + v.abs())
        });
        if !ok && !excused {
            bad.push(format!("[{i}] got {} expected {}", g[i], e[i]));
        }
    }
    if bad.is_empty() {
        None
    } else {
        Some(format!(
            "{} of {} differ: {}",
            bad.len(),
            g.len(),
            bad.into_iter().take(6).collect::<Vec<_>>().join(", ")
        ))
    }
}

fn golden_out<I: Element, O: Element>(
    d: &HashMap<String, DynArray>,
    case: &str,
    tin: &str,
    tout: &str,
    dev: &Device,
) -> Option<String> {
    let x = d[&format!("x_{tin}")]
        .as_array::<I>()
        .unwrap()
        .to_device(dev)
        .unwrap();
    let w = d["W"].as_array::<f64>().unwrap();
    let fp = d["FP"].as_array::<bool>().unwrap();
    let key = format!("{case}__{tin}__{tout}");
    let exp = d[&key].as_array::<O>().unwrap();
    let got = match run::<I, O>(case, &x, w, fp) {
        Ok(g) => g.to_device(&Device::Cpu).unwrap(),
        Err(e) => return Some(format!("{key} on {dev}: error {e}")),
    };
    // on the CPU every store must match SciPy; the GPU's FMA sums may move a truncation
    let near = if matches!(dev, Device::Cpu) || !inexact(case) {
        None
    } else {
        d.get(&format!("{case}__{tin}__f64"))
            .map(|a| a.as_array::<f64>().unwrap().to_vec().unwrap())
    };
    check(&got, exp, near.as_deref()).map(|m| format!("{key} on {dev}: {m}"))
}

macro_rules! by_out {
    ($i:ty, $d:expr, $case:expr, $tin:expr, $tout:expr, $dev:expr) => {
        match $tout {
            "f64" => golden_out::<$i, f64>($d, $case, $tin, $tout, $dev),
            "f32" => golden_out::<$i, f32>($d, $case, $tin, $tout, $dev),
            "i32" => golden_out::<$i, i32>($d, $case, $tin, $tout, $dev),
            "i64" => golden_out::<$i, i64>($d, $case, $tin, $tout, $dev),
            "u8" => golden_out::<$i, u8>($d, $case, $tin, $tout, $dev),
            "bool" => golden_out::<$i, bool>($d, $case, $tin, $tout, $dev),
            t => panic!("unknown output type {t}"),
        }
    };
}

/// Every (filter, input type, output type) SciPy computed, on each device.
#[test]
fn golden_every_input_and_output_type() {
    let d = golden("ndimage_output.npz");
    let mut keys: Vec<&String> = d.keys().filter(|k| k.contains("__")).collect();
    keys.sort();
    assert_eq!(keys.len(), CASES.len() * 6 * 6, "cases in the data");
    for dev in devices() {
        let mut fails = Vec::new();
        for k in &keys {
            let p: Vec<&str> = k.split("__").collect();
            let (case, tin, tout) = (p[0], p[1], p[2]);
            let r = match tin {
                "f64" => by_out!(f64, &d, case, tin, tout, &dev),
                "f32" => by_out!(f32, &d, case, tin, tout, &dev),
                "i32" => by_out!(i32, &d, case, tin, tout, &dev),
                "i64" => by_out!(i64, &d, case, tin, tout, &dev),
                "u8" => by_out!(u8, &d, case, tin, tout, &dev),
                "bool" => by_out!(bool, &d, case, tin, tout, &dev),
                t => panic!("unknown input type {t}"),
            };
            fails.extend(r);
        }
        assert!(
            fails.is_empty(),
            "{} of {} cases fail:\n{}",
            fails.len(),
            keys.len(),
            fails.join("\n")
        );
    }
}

const CASES: [&str; 22] = [
    "correlate1d",
    "correlate",
    "convolve",
    "gaussian",
    "gaussian_order",
    "gaussian1d",
    "convolve1d",
    "uniform1d",
    "minimum1d",
    "maximum1d",
    "uniform",
    "sobel",
    "prewitt",
    "laplace",
    "gaussian_laplace",
    "gradient_magnitude",
    "minimum",
    "maximum",
    "maximum_fp",
    "median",
    "rank_fp",
    "percentile",
];

fn gpu_vs_cpu<I: Element, O: Element>(x: &Array<I>, g: &Device) -> Vec<String> {
    let w = Array::from_vec(
        vec![0.25, -1.5, 0.0, 2.0, 0.75, -0.5, 0.0, 1.25, -2.0],
        &[3, 3],
        &Device::Cpu,
    )
    .unwrap();
    let fp = Array::from_vec(
        vec![true, false, true, false, true, true],
        &[2, 3],
        &Device::Cpu,
    )
    .unwrap();
    let xg = x.to_device(g).unwrap();
    let mut fails = Vec::new();
    for case in CASES {
        let cpu: Array<O> = run(case, x, &w, &fp).unwrap();
        let near = if inexact(case) {
            Some(run::<I, f64>(case, x, &w, &fp).unwrap().to_vec().unwrap())
        } else {
            None
        };
        match run::<I, O>(case, &xg, &w, &fp) {
            Ok(r) => {
                let r = r.to_device(&Device::Cpu).unwrap();
                if let Some(m) = check(&r, &cpu, near.as_deref()) {
                    fails.push(format!("{case} {:?} -> {:?}: {m}", I::DTYPE, O::DTYPE));
                }
            }
            Err(e) => fails.push(format!(
                "{case} {:?} -> {:?}: error {e}",
                I::DTYPE,
                O::DTYPE
            )),
        }
    }
    fails
}

/// The GPU against the CPU on a 70×90 image (the fused 2-D f64 kernels take planes of 64×64 and
/// more): u8, i32 and f32 inputs into u8, i32, i64, f32, f64 and bool outputs.
#[test]
fn gpu_matches_cpu_on_larger_images() {
    let Some(g) = gpu() else { return };
    let shape = [70, 90];
    let f = randn::<f64>(&shape, 11, &Device::Cpu).unwrap();
    let u8s = f
        .to_vec()
        .unwrap()
        .iter()
        .map(|v| (v * 60.0 + 128.0).clamp(0.0, 255.0) as u8)
        .collect();
    let xu = Array::from_vec(u8s, &shape, &Device::Cpu).unwrap();
    let xi = f.mul_scalar(1e4).unwrap().astype::<i32>().unwrap();
    let xf = f.mul_scalar(300.0).unwrap().astype::<f32>().unwrap();
    let mut fails = Vec::new();
    fails.extend(gpu_vs_cpu::<u8, u8>(&xu, &g));
    fails.extend(gpu_vs_cpu::<u8, f32>(&xu, &g));
    fails.extend(gpu_vs_cpu::<u8, f64>(&xu, &g));
    fails.extend(gpu_vs_cpu::<i32, i64>(&xi, &g));
    fails.extend(gpu_vs_cpu::<u8, bool>(&xu, &g));
    fails.extend(gpu_vs_cpu::<i32, i32>(&xi, &g));
    fails.extend(gpu_vs_cpu::<i32, u8>(&xi, &g));
    fails.extend(gpu_vs_cpu::<f32, u8>(&xf, &g));
    fails.extend(gpu_vs_cpu::<f32, i32>(&xf, &g));
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}

/// SciPy's stores of doubles (values printed by SciPy 1.17 on x86-64), on each device, through
/// the identity correlation.
#[test]
fn stores_of_doubles_match_scipy() {
    let v = vec![
        -3.7,
        300.2,
        1000.5,
        -1000.0,
        2.5,
        f64::NAN,
        f64::INFINITY,
        -1e12,
        5e9 + 7.0,
        0.3,
        -2.0,
    ];
    let n = v.len();
    let one = FilterOptions::default();
    for dev in devices() {
        let x = Array::from_vec(v.clone(), &[n], &dev).unwrap();
        let u: Array<u8> = correlate1d_as(&x, &[1.0], 0, &one).unwrap();
        assert_eq!(
            u.to_vec().unwrap(),
            vec![253, 44, 232, 24, 2, 0, 0, 0, 0, 0, 254],
            "u8 on {dev}"
        );
        let b: Array<bool> = correlate1d_as(&x, &[1.0], 0, &one).unwrap();
        let bv = b.to_vec().unwrap();
        assert_eq!(
            bv,
            vec![true, true, true, true, true, false, false, false, false, false, true],
            "bool on {dev}"
        );
        let i: Array<i32> = correlate1d_as(&x, &[1.0], 0, &one).unwrap();
        let m = i32::MIN;
        assert_eq!(
            i.to_vec().unwrap(),
            vec![-3, 300, 1000, -1000, 2, m, m, m, m, 0, -2],
            "i32 on {dev}"
        );
        let l: Array<i64> = correlate1d_as(&x, &[1.0], 0, &one).unwrap();
        let m = i64::MIN;
        assert_eq!(
            l.to_vec().unwrap(),
            vec![
                -3,
                300,
                1000,
                -1000,
                2,
                m,
                m,
                -1_000_000_000_000,
                5_000_000_007,
                0,
                -2
            ],
            "i64 on {dev}"
        );
        let big = Array::from_vec(vec![1e300, -1e300, 1.5], &[3], &dev).unwrap();
        let s: Array<f32> = correlate1d_as(&big, &[1.0], 0, &one).unwrap();
        assert_eq!(
            s.to_vec().unwrap(),
            vec![f32::INFINITY, f32::NEG_INFINITY, 1.5],
            "f32 on {dev}"
        );
    }
}

/// NumPy's integer `+=` of laplace: i32 sums wrap modulo 2^32 (SciPy:
/// `laplace(np.array([[2**31-1, 0], [0, 0]], np.int32))` is `[[2, 2147483647], [2147483647, 0]]`).
#[test]
fn laplace_sums_wrap_in_the_output_type() {
    for dev in devices() {
        let x = Array::from_vec(vec![i32::MAX, 0, 0, 0], &[2, 2], &dev).unwrap();
        let y: Array<i32> = laplace_as(&x, &FilterOptions::default()).unwrap();
        assert_eq!(
            y.to_vec().unwrap(),
            vec![2, i32::MAX, i32::MAX, 0],
            "on {dev}"
        );
        let z: Array<i64> = laplace_as(&x, &FilterOptions::default()).unwrap();
        let m = i32::MAX as i64;
        assert_eq!(z.to_vec().unwrap(), vec![-2 * m, m, m, 0], "on {dev}");
    }
}

#[test]
fn complex_types_and_bad_arguments_are_errors() {
    let x = Array::from_vec(vec![c64::new(1.0, 0.0); 4], &[4], &Device::Cpu).unwrap();
    let r: Result<Array<f64>> = gaussian_filter_as(&x, &[1.0], &GaussianOptions::default());
    assert!(matches!(r, Err(Error::UnsupportedDType { .. })), "{r:?}");
    let y = Array::from_vec(vec![1u8, 2, 3, 4], &[4], &Device::Cpu).unwrap();
    let r: Result<Array<c64>> = sobel_as(&y, 0, &FilterOptions::default());
    assert!(matches!(r, Err(Error::UnsupportedDType { .. })), "{r:?}");
    let fo = FilterOptions::default();
    let r: Result<Array<u8>> = median_filter_as(&y, &Footprint::Size(vec![]), &fo);
    assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}");
    let r: Result<Array<u8>> = rank_filter_as(&y, 3, &Footprint::Size(vec![3]), &fo);
    assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}");
    let r: Result<Array<u8>> = uniform_filter1d_as(&y, 0, 0, &fo);
    assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}");
    // scipy.ndimage.uniform_filter(np.array([1, 2, 3, 4], np.uint8), 0) is the input (SciPy
    // filters only the axes of size above 1)
    let r: Result<Array<u8>> = uniform_filter_as(&y, &[0], &fo);
    assert_eq!(r.unwrap().to_vec().unwrap(), vec![1, 2, 3, 4]);
    let r: Result<Array<u8>> = sobel_as(&y, 1, &fo);
    assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}");
    let r: Result<Array<u8>> = percentile_filter_as(&y, 101.0, &Footprint::Size(vec![3]), &fo);
    assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}");
}

/// `*_as::<f64, f64>` is the plain f64 filter, and with no axis to filter the input is stored.
#[test]
fn f64_output_is_the_plain_filter_and_empty_passes_store_the_input() {
    let x = randn::<f64>(&[6, 5], 3, &Device::Cpu)
        .unwrap()
        .mul_scalar(100.0)
        .unwrap();
    let g = GaussianOptions::default();
    let a: Array<f64> = gaussian_filter_as(&x, &[1.0, 0.7], &g).unwrap();
    let b = gaussian_filter(&x, &[1.0, 0.7], &g).unwrap();
    assert_eq!(a.to_vec().unwrap(), b.to_vec().unwrap());
    let c: Array<u8> = uniform_filter_as(&x, &[1], &FilterOptions::default()).unwrap();
    let d: Array<u8> = correlate1d_as(&x, &[1.0], 0, &FilterOptions::default()).unwrap();
    assert_eq!(c.to_vec().unwrap(), d.to_vec().unwrap());
    let e: Array<i32> = gaussian_filter_as(&x, &[0.0], &g).unwrap();
    let f: Array<i32> = correlate1d_as(&x, &[1.0], 0, &FilterOptions::default()).unwrap();
    assert_eq!(e.to_vec().unwrap(), f.to_vec().unwrap());
}

/// SciPy's `output=` filters with a mode per axis (`modes`): each stored pass in its own mode.
#[test]
fn output_types_with_mode_sequences_follow_scipy() {
    use Mode::*;
    for dev in devices() {
        let v: Vec<f64> = (0..60)
            .map(|f| {
                let (i, j, k) = (f / 20, f / 5 % 4, f % 5);
                ((i * 5 + j * 3 + k * 7 + i * k) % 13) as f64
            })
            .collect();
        let x3 = Array::from_vec(v.clone(), &[3, 4, 5], &dev).unwrap();
        // gaussian_filter(x3 * 3.3, [1, 0.5, 1.5], mode=["reflect", "constant", "wrap"],
        // cval=-1, output=np.int32): its first and last ten values
        let xs = Array::from_vec(v.iter().map(|t| t * 3.3).collect(), &[3, 4, 5], &dev).unwrap();
        let g = GaussianOptions {
            modes: vec![Reflect, Constant, Wrap],
            cval: -1.0,
            ..Default::default()
        };
        let y = gaussian_filter_as::<f64, i32>(&xs, &[1.0, 0.5, 1.5], &g)
            .unwrap()
            .to_vec()
            .unwrap();
        assert_eq!(y[..10], [12, 12, 12, 13, 12, 18, 18, 19, 19, 18], "{dev:?}");
        assert_eq!(y[50..], [17, 18, 18, 16, 16, 15, 16, 17, 17, 16], "{dev:?}");
        // sobel(x3.astype(np.uint8), 2, mode=["constant", "wrap", "nearest"], cval=1): u8 wraps
        let xu = x3.astype::<u8>().unwrap();
        let o = FilterOptions {
            modes: vec![Constant, Wrap, Nearest],
            cval: 1.0,
            ..Default::default()
        };
        let y = sobel(&xu, 2, &o).unwrap().to_vec().unwrap();
        assert_eq!(
            y[..10],
            [27, 24, 24, 11, 244, 14, 11, 24, 254, 231],
            "{dev:?}"
        );
        assert_eq!(y, sobel_as::<u8, u8>(&xu, 2, &o).unwrap().to_vec().unwrap());
        // rank_filter(x3 * 7.7 - 30, -1, size=[2, 3], axes=[2, 1], origin=[1, 0],
        // output=np.uint8) is the maximum over the box placed on axes (1, 2)
        let xr =
            Array::from_vec(v.iter().map(|t| t * 7.7 - 30.0).collect(), &[3, 4, 5], &dev).unwrap();
        let o = FilterOptions {
            axes: Some(vec![2, 1]),
            origin: vec![1, 0],
            ..Default::default()
        };
        let fp = Footprint::Size(vec![2, 3]);
        let y = rank_filter_as::<f64, u8>(&xr, -1, &fp, &o).unwrap();
        let o2 = FilterOptions {
            axes: Some(vec![1, 2]),
            origin: vec![0, 1],
            ..Default::default()
        };
        let e = maximum_filter_as::<f64, u8>(&xr, &Footprint::Size(vec![2, 3]), &o2).unwrap();
        assert_eq!(y.to_vec().unwrap(), e.to_vec().unwrap(), "{dev:?}");
        // laplace_as with a mode per axis of `axes` (the i32 sum of the two stored terms)
        let xi = x3.astype::<i32>().unwrap();
        let o = FilterOptions {
            axes: Some(vec![2, 0]),
            modes: vec![Constant, Wrap],
            cval: 3.0,
            ..Default::default()
        };
        let one = |ax: isize, m: Mode| {
            let o1 = FilterOptions {
                mode: m,
                cval: 3.0,
                ..Default::default()
            };
            correlate1d(&xi, &[1.0, -2.0, 1.0], ax, &o1).unwrap()
        };
        let e = one(2, Constant).add(&one(0, Wrap)).unwrap();
        assert_eq!(
            laplace(&xi, &o).unwrap().to_vec().unwrap(),
            e.to_vec().unwrap()
        );
    }
}

// ---------------------------------------------------------------- generic filters

#[test]
fn generic_filters_as_store_as_scipy_on_every_device() {
    let f = |v: &[f64], _: &[f64]| v.iter().sum::<f64>() / v.len() as f64 * 1.37 - 60.0;
    let f1 = |i: &[f64], o: &mut [f64], _: &[f64]| {
        for (k, v) in o.iter_mut().enumerate() {
            *v = i[k + 1] * 1.37 - i[k] * 2.5 - 0.3;
        }
    };
    for dev in devices() {
        let g = Array::from_vec(vec![0u8, 10, 200, 255, 3, 77], &[6], &dev).unwrap();
        let fp = Footprint::Size(vec![3]);
        let o = FilterOptions::default();
        let gf = GenericFunction::Closure(&f);
        // generic_filter(u8 [0, 10, 200, 255, 3, 77], lambda v: v.mean() * 1.37 - 60, size=3,
        // output=...) (SciPy 1.17.1): [-55.43, 35.9, 152.35, 149.15, 92.98, 11.70] in double
        let y = generic_filter_as::<u8, u8>(&g, gf, &fp, &[], &o).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![201, 35, 152, 149, 92, 11]);
        let y = generic_filter_as::<u8, i64>(&g, gf, &fp, &[], &o).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![-55, 35, 152, 149, 92, 11]);
        let y = generic_filter_as::<u8, bool>(&g, gf, &fp, &[], &o).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![true; 6]);
        let y = generic_filter_as::<u8, f64>(&g, gf, &fp, &[], &o).unwrap();
        let want = [
            -55.43333333333333,
            35.900000000000006,
            152.35000000000002,
            149.15333333333334,
            92.98333333333335,
            11.696666666666673,
        ];
        let got = y.to_vec().unwrap();
        assert!(got.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-12));
        let y = generic_filter_as::<u8, f32>(&g, gf, &fp, &[], &o).unwrap();
        let w32: Vec<f32> = want.iter().map(|&v| v as f32).collect();
        assert_eq!(y.to_vec().unwrap(), w32);
        // generic_filter1d(u8 input, f1, 2, output=...): [-0.3, 13.4, 248.7, -150.95, -633.69,
        // 97.69] in double
        let g1 = GenericFunction1d::Closure(&f1);
        let y = generic_filter1d_as::<u8, u8>(&g, g1, 2, -1, &[], &o).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![0, 13, 248, 106, 135, 97]);
        let y = generic_filter1d_as::<u8, i32>(&g, g1, 2, -1, &[], &o).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![0, 13, 248, -150, -633, 97]);
        // an f32 input is read as double: generic_filter(np.float32([0.1, 0.2, 0.7]),
        // lambda v: v.sum() / 3, size=2, output=np.float64)
        let x = Array::from_vec(vec![0.1f32, 0.2, 0.7], &[3], &dev).unwrap();
        let f3 = |v: &[f64], _: &[f64]| v.iter().sum::<f64>() / 3.0;
        let y = generic_filter_as::<f32, f64>(
            &x,
            GenericFunction::Closure(&f3),
            &Footprint::Size(vec![2]),
            &[],
            &o,
        )
        .unwrap();
        assert_eq!(
            y.to_vec().unwrap(),
            vec![
                0.06666666766007741,
                0.10000000149011612,
                0.29999999701976776
            ]
        );
        // errors: complex input or output; the generic filters' own checks
        let xc = g.astype::<c64>().unwrap();
        assert!(matches!(
            generic_filter_as::<c64, f64>(&xc, gf, &fp, &[], &o),
            Err(Error::UnsupportedDType { .. })
        ));
        assert!(matches!(
            generic_filter1d_as::<u8, c64>(&g, g1, 2, -1, &[], &o),
            Err(Error::UnsupportedDType { .. })
        ));
        assert!(matches!(
            generic_filter1d_as::<u8, u8>(&g, g1, 0, -1, &[], &o),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            generic_filter1d_as::<u8, u8>(&g, g1, 2, 1, &[], &o),
            Err(Error::InvalidArgument { .. })
        ));
    }
}

/// The CPU's 1-D sums are SciPy's bit for bit (`correlate1d`'s order: the centre, then the
/// symmetric or antisymmetric pairs from the outside in; otherwise the last tap first), so an
/// integer output truncates where SciPy's does: a flat u8 image of 23 stays 23 under a Gaussian
/// of sigma 1 (the taps summed in order give 22.999999999999996, stored as 22). Values from
/// SciPy 1.17.1. The GPU's sums (FMA, other orders) may differ in the last bit.
#[test]
fn cpu_sums_are_scipys_bit_for_bit() {
    let cpu = Device::Cpu;
    let o = FilterOptions::default();
    let x = Array::from_vec(vec![0.1, 0.7, -1.3, 2.9, 0.05, 3.3, -0.4], &[7], &cpu).unwrap();
    let cases: [(&[f64], [f64; 7]); 3] = [
        (
            &[0.3, 0.2, 0.3],
            [
                0.25999999999999995,
                -0.22,
                0.8199999999999998,
                0.20499999999999996,
                1.8699999999999997,
                0.555,
                0.79,
            ],
        ),
        (
            &[-0.3, 0.0, 0.3],
            [
                0.18,
                -0.42000000000000004,
                0.66,
                0.405,
                0.11999999999999997,
                -0.135,
                -1.1099999999999999,
            ],
        ),
        (
            &[0.1, 0.2, 0.3, 0.4],
            [0.4, -0.28, 0.9199999999999998, 0.7, 1.785, 1.13, 0.385],
        ),
    ];
    for (w, want) in cases {
        assert_eq!(
            correlate1d(&x, w, 0, &o).unwrap().to_vec().unwrap(),
            want,
            "{w:?}"
        );
    }
    let g = GaussianOptions::default();
    assert_eq!(
        gaussian_filter1d(&x, 1.5, 0, &g).unwrap().to_vec().unwrap(),
        [
            0.215072236615375,
            0.30336730013871666,
            0.5607959852583542,
            0.9333753697960797,
            1.1849217896563968,
            1.157160623273031,
            0.9953066952620464
        ]
    );
    // the derivative kernels too (order 2's polynomial with NumPy's BLAS fused multiply-add)
    let d = |order: usize| {
        let g = GaussianOptions {
            order: vec![order],
            ..Default::default()
        };
        gaussian_filter1d(&x, 1.0, 0, &g).unwrap().to_vec().unwrap()
    };
    assert_eq!(
        d(2),
        [
            -0.0744285424172752,
            0.23726580669570108,
            0.6640713913778609,
            -0.5202812377830721,
            -0.2778400935699705,
            -0.8391646127724233,
            0.8099920875440101
        ]
    );
    assert_eq!(
        d(3),
        [
            -0.19111520456427958,
            0.9600298658479072,
            -0.822453356045276,
            -0.41593539150542386,
            -0.1618745713087386,
            0.22386752714090202,
            1.9434051334016795
        ]
    );
    let flat = Array::from_vec(vec![23u8; 9], &[3, 3], &cpu).unwrap();
    let y: Array<u8> = gaussian_filter_as(&flat, &[1.0], &g).unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![23u8; 9]);
}

/// SciPy's n-D minimum/maximum (footprints that are not boxes) and rank filters read `cval` as
/// the input's C type (`(npy_uint8)-2.0 = 254`, bool a byte too), the separable ones as a
/// double; its 1-D rank route converts `cval` with `numpy.int64` (and refuses NaN) and copies the
/// i64 result with NumPy's casts. Values from SciPy 1.17.1.
#[test]
fn cval_is_read_as_scipy_reads_it() {
    let fp = Array::from_vec(vec![false, true, true], &[3], &Device::Cpu).unwrap();
    let box3 = Footprint::Size(vec![3]);
    let c = |cval: f64| opts("constant", cval);
    for dev in devices() {
        let x = Array::from_vec(vec![146u8, 84, 28], &[3], &dev).unwrap();
        let fpm = Footprint::Mask(fp.to_device(&dev).unwrap());
        let y: Array<i64> = maximum_filter_as(&x, &fpm, &c(-2.0)).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![146, 84, 254], "{dev}");
        // a box is separable: cval stays -2.0
        let y: Array<i64> = maximum_filter_as(&x, &box3, &c(-2.0)).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![146, 146, 84], "{dev}");
        let y: Array<f64> = minimum_filter_as(&x, &box3, &c(-2.0)).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![-2.0, 28.0, -2.0], "{dev}");
        // the n-D rank route: median of (254, 5, 9) is 9
        let m = Array::from_vec(vec![5u8, 9, 3, 7], &[1, 4], &dev).unwrap();
        let y: Array<u8> = median_filter_as(&m, &Footprint::Size(vec![1, 3]), &c(-2.0)).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![9, 5, 7, 7], "{dev}");
        // the 1-D route: cval -2 (median of (-2, 5, 9) is 5), the i64 result copied into u8
        let m1 = m.reshape(&[4]).unwrap();
        let y: Array<u8> = median_filter_as(&m1, &box3, &c(-2.0)).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![5, 5, 7, 3], "{dev}");
        let y: Array<u8> = rank_filter_as(&m1, 1, &box3, &c(-2.7)).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![5, 5, 7, 3], "{dev}");
        let y: Array<u8> = rank_filter_as(&m1, -2, &Footprint::Size(vec![4]), &c(-300.0)).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![5, 5, 7, 7], "{dev}");
        let r: Result<Array<u8>> = median_filter_as(&m1, &box3, &c(f64::NAN));
        assert!(
            matches!(r, Err(Error::InvalidArgument { .. })),
            "{r:?} {dev}"
        );
        // bool: -2.0 is the byte 254 in the n-D route; f32 rounds cval
        let b = Array::from_vec(vec![false, true, false, true], &[1, 4], &dev).unwrap();
        let y: Array<f64> =
            percentile_filter_as(&b, 40.0, &Footprint::Size(vec![1, 4]), &c(-2.0)).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![1.0, 0.0, 0.0, 1.0], "{dev}");
        let f = Array::from_vec(vec![0.5f32, 0.7], &[1, 2], &dev).unwrap();
        let fpm2 =
            Footprint::Mask(Array::from_vec(vec![true, false, true], &[1, 3], &dev).unwrap());
        let y: Array<f64> = minimum_filter_as(&f, &fpm2, &c(0.1)).unwrap();
        assert_eq!(
            y.to_vec().unwrap(),
            vec![0.1f32 as f64, 0.1f32 as f64],
            "{dev}"
        );
    }
}

/// Where a filter has no axis to filter, SciPy copies the input with NumPy's assignment casts:
/// integers wrap into narrower integers (not the C cast of a double), anything nonzero is true.
#[test]
fn empty_passes_copy_with_numpy_casts() {
    for dev in devices() {
        let x = Array::from_vec(vec![3_000_000_000i64, -5, 1 << 40, 256], &[4], &dev).unwrap();
        let y: Array<i32> = uniform_filter_as(&x, &[1], &FilterOptions::default()).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![-1294967296, -5, 0, 256], "{dev}");
        let y: Array<u8> = gaussian_filter_as(&x, &[0.0], &GaussianOptions::default()).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![0, 251, 0, 0], "{dev}");
        let y: Array<bool> =
            maximum_filter_as(&x, &Footprint::Size(vec![1]), &FilterOptions::default()).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![true; 4], "{dev}");
        let o = FilterOptions {
            axes: Some(vec![]),
            ..Default::default()
        };
        let f = Array::from_vec(vec![256.0f64, -2.0, 0.5, 3e9], &[4], &dev).unwrap();
        let y: Array<bool> = laplace_as(&f, &o).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![true; 4], "{dev}");
        let y: Array<u8> = laplace_as(&f, &o).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![0, 254, 0, 0], "{dev}");
    }
}

/// The plain filters on bool input keep bool with SciPy's values (issue 32): each filter of
/// gen.py's cases that takes bool, on every device, against SciPy's `<case>__bool__bool`.
#[test]
fn plain_filters_take_bool_as_scipy() {
    let d = golden("ndimage_output.npz");
    let w = d["W"].as_array::<f64>().unwrap();
    let fp = d["FP"].as_array::<bool>().unwrap();
    for dev in devices() {
        let x = d["x_bool"]
            .as_array::<bool>()
            .unwrap()
            .to_device(&dev)
            .unwrap();
        let mut n = 0;
        for case in CASES {
            let Some(got) = run_plain(case, &x, w, fp) else {
                continue;
            };
            let got = got.unwrap().to_device(&Device::Cpu).unwrap();
            let exp = d[&format!("{case}__bool__bool")]
                .as_array::<bool>()
                .unwrap();
            assert_eq!(got.shape(), exp.shape(), "{case} on {dev}");
            assert_eq!(
                got.to_vec().unwrap(),
                exp.to_vec().unwrap(),
                "{case} on {dev}"
            );
            n += 1;
        }
        assert_eq!(n, CASES.len() - 3);
    }
}
