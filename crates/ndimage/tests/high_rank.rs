//! Arrays of more than 8 dimensions (issue 32): morphology, label, measurements, distance
//! transforms and the Fourier filters take up to 32 on the GPU (the core's kernels stop at 8),
//! any rank on the CPU. Each function on each side of the old limit (8 and 9 dimensions, and 12):
//! the CPU against the same function on the array without its trailing axis of length 1 (an
//! identity of every one of them), then every GPU against the CPU.

use cusci_core::testing::{devices, randn};
use cusci_ndimage::{
    binary_dilation, binary_erosion, center_of_mass, distance_transform_bf, distance_transform_cdt,
    distance_transform_edt, find_objects, fourier_gaussian, fourier_shift,
    generate_binary_structure, grey_dilation, label, maximum_position, median, sum, value_indices,
    Array, BfMetric, BinaryOptions, CdtMetric, Device, DistanceOptions, Error, GreyOptions, Mode,
};

/// Shapes of 8, 9 and 12 dimensions (576, 1152 and 4096 elements).
fn shapes() -> Vec<Vec<usize>> {
    vec![
        vec![2, 3, 2, 2, 3, 2, 2, 2],
        vec![2, 2, 3, 2, 2, 2, 3, 2, 2],
        vec![2; 12],
    ]
}

/// A seeded mask, about `p` of it true.
fn mask(shape: &[usize], seed: u64, p: f64) -> Array<bool> {
    let z: Vec<f64> = randn::<f64>(shape, seed, &Device::Cpu)
        .unwrap()
        .to_vec()
        .unwrap();
    // Φ^{-1}(p) roughly by a few points of the normal quantile: enough for a density
    let t = if p >= 0.5 { -0.25 } else { 0.5 };
    let v: Vec<bool> = z.iter().map(|&v| v > t).collect();
    Array::from_vec(v, shape, &Device::Cpu).unwrap()
}

fn values(shape: &[usize], seed: u64) -> Array<f64> {
    randn::<f64>(shape, seed, &Device::Cpu).unwrap()
}

/// `a` with a trailing axis of length 1.
fn grow<T: cusci_core::Element>(a: &Array<T>) -> Array<T> {
    let mut s = a.shape().to_vec();
    s.push(1);
    Array::from_vec(a.to_vec().unwrap(), &s, &Device::Cpu).unwrap()
}

/// The named results of the functions on `x` (a mask) and `v` (values), host data.
#[derive(Debug, PartialEq)]
struct All {
    dil: Vec<bool>,
    ero: Vec<bool>,
    grey: Vec<f64>,
    lab: Vec<i32>,
    nlab: usize,
    sums: Vec<f64>,
    med: Vec<f64>,
    com: Vec<Vec<f64>>,
    maxpos: Vec<Vec<usize>>,
    objs: Vec<Option<Vec<(usize, usize)>>>,
    vidx: Vec<(i64, Vec<Vec<usize>>)>,
    edt: Vec<f64>,
    edt_idx: Vec<i32>,
    cdt: Vec<i32>,
    bf: Vec<f64>,
    fg: Vec<f64>,
    fs: Vec<cusci_core::c64>,
}

fn all(x: &Array<bool>, v: &Array<f64>, chess: bool) -> All {
    let nd = x.ndim();
    let dev = x.device().clone();
    let st = generate_binary_structure(nd, 1, &dev).unwrap();
    let o = BinaryOptions {
        structure: Some(&st),
        ..Default::default()
    };
    let dil = binary_dilation(x, &o).unwrap().to_vec().unwrap();
    // erosion with the outside counted as foreground, so that a length-1 axis leaves it alone
    let ero = binary_erosion(
        x,
        &BinaryOptions {
            border_value: true,
            ..o.clone()
        },
    )
    .unwrap()
    .to_vec()
    .unwrap();
    let fp = generate_binary_structure(nd, 1, &dev).unwrap();
    let grey = grey_dilation(
        v,
        &GreyOptions {
            footprint: Some(&fp),
            mode: Mode::Nearest,
            ..Default::default()
        },
    )
    .unwrap()
    .to_vec()
    .unwrap();
    let (l, nlab) = label(x, None).unwrap();
    let idx: Vec<i64> = (0..=nlab.min(6) as i64).collect();
    let sums = sum(v, Some(&l), Some(&idx)).unwrap();
    let med = median(v, Some(&l), Some(&idx)).unwrap();
    let com = center_of_mass(v, Some(&l), Some(&idx)).unwrap();
    let maxpos = maximum_position(v, Some(&l), Some(&idx)).unwrap();
    let objs = find_objects(&l, None).unwrap();
    let vidx = value_indices(&l, Some(0))
        .unwrap()
        .into_iter()
        .filter(|(k, _)| *k <= 6)
        .collect();
    let (d, i) = distance_transform_edt(
        x,
        &DistanceOptions {
            return_indices: true,
            ..Default::default()
        },
    )
    .unwrap();
    let metric = if chess {
        CdtMetric::Chessboard
    } else {
        CdtMetric::Taxicab
    };
    let (cdt, _) = distance_transform_cdt(x, &metric, true, false).unwrap();
    let (bf, _) =
        distance_transform_bf(x, BfMetric::Euclidean, &DistanceOptions::default()).unwrap();
    let sig: Vec<f64> = (0..nd).map(|k| 0.5 + 0.25 * k as f64).collect();
    let fg = fourier_gaussian(v, &sig, None, -1)
        .unwrap()
        .to_vec()
        .unwrap();
    let vc: Vec<cusci_core::c64> = v
        .to_vec()
        .unwrap()
        .iter()
        .map(|&r| cusci_core::c64::new(r, -r))
        .collect();
    let vc = Array::from_vec(vc, v.shape(), &dev).unwrap();
    let fs = fourier_shift(&vc, &sig, None, -1)
        .unwrap()
        .to_vec()
        .unwrap();
    All {
        dil,
        ero,
        grey,
        lab: l.to_vec().unwrap(),
        nlab,
        sums,
        med,
        com,
        maxpos,
        objs,
        vidx,
        edt: d.unwrap().to_vec().unwrap(),
        edt_idx: i.unwrap().to_vec().unwrap(),
        cdt: cdt.unwrap().to_vec().unwrap(),
        bf: bf.unwrap().to_vec().unwrap(),
        fg,
        fs,
    }
}

fn close(a: &[f64], b: &[f64], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= 1e-12 * (1.0 + x.abs()) || (x.is_nan() && y.is_nan()),
            "{what}[{k}]: {x} vs {y}"
        );
    }
}

/// The CPU on an array with a trailing axis of length 1 equals the CPU on the array without it
/// (an axis of one element joins no neighbours and adds no distance; its Fourier factor is 1).
#[test]
fn trailing_unit_axis_changes_nothing_on_cpu() {
    for (k, s) in shapes().into_iter().take(2).enumerate() {
        let x = mask(&s, 10 + k as u64, 0.6);
        let v = values(&s, 20 + k as u64);
        let a = all(&x, &v, true);
        let b = all(&grow(&x), &grow(&v), true);
        assert_eq!(a.dil, b.dil, "dilation {s:?}");
        assert_eq!(a.ero, b.ero, "erosion {s:?}");
        assert_eq!(a.grey, b.grey, "grey_dilation {s:?}");
        assert_eq!((&a.lab, a.nlab), (&b.lab, b.nlab), "label {s:?}");
        close(&a.sums, &b.sums, "sum");
        close(&a.med, &b.med, "median");
        for (p, q) in a.com.iter().zip(&b.com) {
            close(p, &q[..p.len()], "center_of_mass");
            assert!(q[p.len()] == 0.0 || q[p.len()].is_nan());
        }
        for (p, q) in a.maxpos.iter().zip(&b.maxpos) {
            assert_eq!(p[..], q[..p.len()]);
        }
        for (p, q) in a.objs.iter().zip(&b.objs) {
            match (p, q) {
                (Some(p), Some(q)) => {
                    assert_eq!(p[..], q[..p.len()]);
                    assert_eq!(q[p.len()], (0, 1));
                }
                (None, None) => {}
                _ => panic!("find_objects {s:?}"),
            }
        }
        assert_eq!(a.vidx.len(), b.vidx.len());
        for ((ka, pa), (kb, pb)) in a.vidx.iter().zip(&b.vidx) {
            assert_eq!(ka, kb);
            assert_eq!(pa[..], pb[..pa.len()]);
        }
        close(&a.edt, &b.edt, "edt");
        assert_eq!(a.cdt, b.cdt, "cdt {s:?}");
        close(&a.bf, &b.bf, "bf");
        // the Fourier filters' sigma/shift of the unit axis is the next one's: its factor is 1
        close(&a.fg, &b.fg, "fourier_gaussian");
    }
}

/// The label of a 9-D array against a flood fill over the cross neighbourhood (an oracle).
#[test]
fn label_9d_matches_flood_fill() {
    let s = vec![2, 2, 3, 2, 2, 2, 3, 2, 2];
    let x = mask(&s, 31, 0.4).to_vec().unwrap();
    let n: usize = s.iter().product();
    let mut want = vec![0i32; n];
    let mut next = 0;
    let strides: Vec<usize> = (0..s.len()).map(|d| s[d + 1..].iter().product()).collect();
    for start in 0..n {
        if !x[start] || want[start] != 0 {
            continue;
        }
        next += 1;
        want[start] = next;
        let mut stack = vec![start];
        while let Some(p) = stack.pop() {
            for d in 0..s.len() {
                let c = (p / strides[d]) % s[d];
                for q in [
                    (c > 0).then(|| p - strides[d]),
                    (c + 1 < s[d]).then(|| p + strides[d]),
                ]
                .into_iter()
                .flatten()
                {
                    if x[q] && want[q] == 0 {
                        want[q] = next;
                        stack.push(q);
                    }
                }
            }
        }
    }
    for dev in devices() {
        let a = Array::from_vec(x.clone(), &s, &dev).unwrap();
        let (l, k) = label(&a, None).unwrap();
        assert_eq!(k, next as usize, "on {dev}");
        assert_eq!(l.to_vec().unwrap(), want, "on {dev}");
    }
}

/// Every GPU against the CPU at 8, 9 and 12 dimensions.
#[test]
fn gpu_matches_cpu_past_8_dimensions() {
    for (k, s) in shapes().into_iter().enumerate() {
        let x = mask(&s, 40 + k as u64, 0.6);
        let v = values(&s, 50 + k as u64);
        // the chessboard metric's 3^12 − 1 steps per element would be slow at 12 dimensions
        let chess = s.len() < 12;
        let want = all(&x, &v, chess);
        for dev in devices().into_iter().skip(1) {
            let got = all(
                &x.to_device(&dev).unwrap(),
                &v.to_device(&dev).unwrap(),
                chess,
            );
            assert_eq!(got.dil, want.dil, "dilation {s:?}");
            assert_eq!(got.ero, want.ero, "erosion {s:?}");
            assert_eq!(got.grey, want.grey, "grey_dilation {s:?}");
            assert_eq!((&got.lab, got.nlab), (&want.lab, want.nlab), "label {s:?}");
            close(&got.sums, &want.sums, "sum");
            close(&got.med, &want.med, "median");
            for (p, q) in got.com.iter().zip(&want.com) {
                close(p, q, "center_of_mass");
            }
            assert_eq!(got.maxpos, want.maxpos, "maximum_position {s:?}");
            assert_eq!(got.objs, want.objs, "find_objects {s:?}");
            assert_eq!(got.vidx, want.vidx, "value_indices {s:?}");
            assert_eq!(got.edt, want.edt, "edt {s:?}");
            assert_eq!(got.edt_idx, want.edt_idx, "edt indices {s:?}");
            assert_eq!(got.cdt, want.cdt, "cdt {s:?}");
            close(&got.bf, &want.bf, "bf");
            close(&got.fg, &want.fg, "fourier_gaussian");
            let re =
                |z: &[cusci_core::c64]| z.iter().flat_map(|c| [c.re, c.im]).collect::<Vec<_>>();
            close(&re(&got.fs), &re(&want.fs), "fourier_shift");
        }
    }
}

/// Past 32 dimensions the GPU kernels refuse with `NotImplemented` (the CPU takes any rank).
#[test]
fn more_than_32_dimensions() {
    let s = vec![1usize; 33];
    let x = Array::from_vec(vec![false], &s, &Device::Cpu).unwrap();
    let edt = |x: &Array<bool>| distance_transform_edt(x, &DistanceOptions::default());
    let (d, _) = edt(&x).unwrap();
    assert_eq!(d.unwrap().to_vec().unwrap(), vec![0.0]);
    for dev in devices().into_iter().skip(1) {
        let e = edt(&x.to_device(&dev).unwrap()).unwrap_err();
        assert!(matches!(e, Error::NotImplemented { .. }), "{e:?}");
    }
    // the Fourier filters take 1 to 32 dimensions on both devices
    let v = Array::from_vec(vec![1.0f64], &s, &Device::Cpu).unwrap();
    assert!(fourier_gaussian(&v, &[1.0], None, -1).is_err());
    let v32 = Array::from_vec(vec![1.0f64], &s[..32], &Device::Cpu).unwrap();
    for dev in devices() {
        let y = fourier_gaussian(&v32.to_device(&dev).unwrap(), &[1.0], None, -1).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![1.0], "on {dev}");
    }
}
