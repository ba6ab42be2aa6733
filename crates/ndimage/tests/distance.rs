//! Distance transforms against SciPy (golden), against brute-force oracles (distances exact;
//! indices must point at a background element at exactly that distance), every device against
//! the CPU, and the typed errors.

use cusci_core::npy::{load_npz, DynArray};
use cusci_core::testing::{assert_allclose, for_each_device};
use cusci_core::{Array, Device, Element, Error};
use cusci_ndimage::*;
use std::collections::BTreeMap;

const NPZ: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/ndimage_morphology.npz"
);

fn get<T: Element>(g: &BTreeMap<String, DynArray>, k: &str, dev: &Device) -> Array<T> {
    g[k].clone()
        .into_array::<T>()
        .unwrap()
        .to_device(dev)
        .unwrap()
}

/// Every index of `idx` points at a zero of `x` whose distance (with `smp`, metric `m`: 0
/// euclidean, 1 taxicab, 2 chessboard) equals `dist`.
fn check_indices(x: &[bool], shape: &[usize], idx: &[i32], dist: &[f64], smp: &[f64], m: u8) {
    let n = x.len();
    let nd = shape.len();
    for i in 0..n {
        let mut r = i;
        let mut c = vec![0usize; nd];
        for d in (0..nd).rev() {
            c[d] = r % shape[d];
            r /= shape[d];
        }
        let mut j = 0usize;
        let mut acc = 0.0f64;
        for d in 0..nd {
            let f = idx[d * n + i];
            assert!(
                f >= 0 && (f as usize) < shape[d],
                "index {f} out of range at {i}"
            );
            j = j * shape[d] + f as usize;
            let t = smp[d] * (c[d] as f64 - f as f64);
            match m {
                0 => acc += t * t,
                1 => acc += t.abs(),
                _ => acc = acc.max(t.abs()),
            }
        }
        assert!(
            !x[j],
            "element {i}: its index points at a foreground element"
        );
        let dd = if m == 0 { acc.sqrt() } else { acc };
        assert!(
            (dd - dist[i]).abs() <= 1e-12 * (1.0 + dd),
            "element {i}: {dd} vs {}",
            dist[i]
        );
    }
}

#[test]
fn golden_edt_cdt_bf() {
    let g: BTreeMap<String, DynArray> = load_npz(NPZ, &Device::Cpu).unwrap().into_iter().collect();
    for_each_device(|dev| {
        for c in ["a", "b", "c"] {
            let x = get::<bool>(&g, &format!("dist_{c}_in"), dev);
            let xv = x.to_vec().unwrap();
            let shape = x.shape().to_vec();
            let smp = get::<f64>(&g, &format!("edt_{c}_sampling"), &Device::Cpu)
                .to_vec()
                .unwrap();
            // unit sampling (the default), then the golden sampling
            for (sampling, key) in [(None, "out"), (Some(smp.clone()), "sampled")] {
                let o = DistanceOptions {
                    sampling: sampling.clone(),
                    return_indices: true,
                    ..Default::default()
                };
                let (d, i) = distance_transform_edt(&x, &o).unwrap();
                let d = d.unwrap();
                assert_allclose(
                    &d,
                    &get::<f64>(&g, &format!("edt_{c}_{key}"), &Device::Cpu),
                    1e-13,
                    0.0,
                    &format!("edt {key} {c} on {dev}"),
                );
                check_indices(
                    &xv,
                    &shape,
                    &i.unwrap().to_vec().unwrap(),
                    &d.to_vec().unwrap(),
                    &sampling.unwrap_or_else(|| vec![1.0; shape.len()]),
                    0,
                );
            }
            for (m, metric, code) in [
                ("chessboard", CdtMetric::Chessboard, 2u8),
                ("taxicab", CdtMetric::Taxicab, 1),
            ] {
                let (d, i) = distance_transform_cdt(&x, &metric, true, true).unwrap();
                let d = d.unwrap();
                let e = get::<i32>(&g, &format!("cdt_{c}_{m}"), &Device::Cpu);
                assert_eq!(
                    d.to_vec().unwrap(),
                    e.to_vec().unwrap(),
                    "cdt {m} {c} on {dev}"
                );
                let df: Vec<f64> = d.to_vec().unwrap().iter().map(|&v| v as f64).collect();
                check_indices(
                    &xv,
                    &shape,
                    &i.unwrap().to_vec().unwrap(),
                    &df,
                    &vec![1.0; shape.len()],
                    code,
                );
            }
            for (m, metric) in [
                ("euclidean", BfMetric::Euclidean),
                ("taxicab", BfMetric::Taxicab),
                ("chessboard", BfMetric::Chessboard),
            ] {
                let o = DistanceOptions {
                    sampling: Some(smp.clone()),
                    ..Default::default()
                };
                let (d, _) = distance_transform_bf(&x, metric, &o).unwrap();
                assert_allclose(
                    &d.unwrap(),
                    &get::<f64>(&g, &format!("bf_{c}_{m}"), &Device::Cpu),
                    1e-13,
                    0.0,
                    &format!("bf {m} {c} on {dev}"),
                );
            }
        }
    });
}

/// EDT against brute force on random masks of several shapes and densities; every device.
#[test]
fn edt_random_against_brute_force() {
    let shapes: [&[usize]; 5] = [&[1], &[33], &[31, 33], &[7, 5, 9], &[2, 3, 4, 5]];
    for (si, shape) in shapes.iter().enumerate() {
        let n: usize = shape.iter().product();
        for (k, thr) in [-1.0f64, 0.0, 1.5].iter().enumerate() {
            let r: Vec<f64> = cusci_core::testing::randn_vec(n, (si * 7 + k) as u64 + 100);
            let mut mask: Vec<u8> = r.iter().map(|&v| (v > *thr) as u8).collect();
            mask[n / 2] = 0; // at least one background element
            let smp: Vec<f64> = (0..shape.len()).map(|d| 0.5 + d as f64 * 0.75).collect();
            let x = Array::from_vec(mask.clone(), shape, &Device::Cpu).unwrap();
            let o = DistanceOptions {
                sampling: Some(smp.clone()),
                return_indices: true,
                ..Default::default()
            };
            let (want, _) = distance_transform_bf(
                &x,
                BfMetric::Euclidean,
                &DistanceOptions {
                    sampling: Some(smp.clone()),
                    ..Default::default()
                },
            )
            .unwrap();
            let want = want.unwrap();
            for_each_device(|dev| {
                let (d, i) = distance_transform_edt(&x.to_device(dev).unwrap(), &o).unwrap();
                let d = d.unwrap();
                assert_allclose(
                    &d,
                    &want,
                    1e-13,
                    0.0,
                    &format!("edt {shape:?} thr {thr} on {dev}"),
                );
                let xb: Vec<bool> = mask.iter().map(|&v| v != 0).collect();
                check_indices(
                    &xb,
                    shape,
                    &i.unwrap().to_vec().unwrap(),
                    &d.to_vec().unwrap(),
                    &smp,
                    0,
                );
            });
        }
    }
}

/// The GPU's EDT is bit-identical to the CPU's (distances and indices), with non-unit sampling,
/// for lines that take the shared-memory pass and lines too long for it (14000 > 13653 elements).
#[test]
fn edt_gpu_bit_identical_to_cpu() {
    let Some(g) = cusci_core::testing::gpu() else {
        return;
    };
    let shapes: [&[usize]; 5] = [&[64, 65], &[3, 14000], &[14000, 2], &[6, 7, 33], &[1, 45]];
    for (si, shape) in shapes.iter().enumerate() {
        let n: usize = shape.iter().product();
        for (k, thr) in [-1.0f64, 1.0].iter().enumerate() {
            let r: Vec<f64> = cusci_core::testing::randn_vec(n, (si * 5 + k) as u64 + 900);
            let mask: Vec<u8> = r.iter().map(|&v| (v > *thr) as u8).collect();
            let smp: Vec<f64> = (0..shape.len()).map(|d| 0.7 + d as f64 * 0.31).collect();
            let x = Array::from_vec(mask, shape, &Device::Cpu).unwrap();
            let o = DistanceOptions {
                sampling: Some(smp),
                return_indices: true,
                ..Default::default()
            };
            let (dc, ic) = distance_transform_edt(&x, &o).unwrap();
            let (dg, ig) = distance_transform_edt(&x.to_device(&g).unwrap(), &o).unwrap();
            let (dc, dg) = (dc.unwrap().to_vec().unwrap(), dg.unwrap().to_vec().unwrap());
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
            assert!(
                bits(&dc) == bits(&dg),
                "edt {shape:?} thr {thr}: distances differ"
            );
            assert_eq!(
                ic.unwrap().to_vec().unwrap(),
                ig.unwrap().to_vec().unwrap(),
                "edt {shape:?} thr {thr}: indices differ"
            );
        }
    }
}

#[test]
fn edt_without_background_and_empty() {
    for_each_device(|dev| {
        let x = Array::<f32>::ones(&[2, 3], dev).unwrap();
        let (d, i) = distance_transform_edt(
            &x,
            &DistanceOptions {
                return_indices: true,
                ..Default::default()
            },
        )
        .unwrap();
        // SciPy: indices (-1, 0) everywhere, distances from them
        assert_eq!(
            i.unwrap().to_vec().unwrap(),
            vec![-1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0]
        );
        let want = [
            1.0f64,
            2f64.sqrt(),
            5f64.sqrt(),
            2.0,
            5f64.sqrt(),
            8f64.sqrt(),
        ];
        assert_eq!(d.unwrap().to_vec().unwrap(), want.to_vec());
        let e = Array::<u8>::zeros(&[0, 4], dev).unwrap();
        let (d, i) = distance_transform_edt(
            &e,
            &DistanceOptions {
                return_indices: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(d.unwrap().shape(), &[0, 4]);
        assert_eq!(i.unwrap().shape(), &[2, 0, 4]);
        let (d, _) = distance_transform_cdt(&e, &CdtMetric::Chessboard, true, false).unwrap();
        assert_eq!(d.unwrap().size(), 0);
    });
}

#[test]
fn distance_bad_inputs_same_errors() {
    for_each_device(|dev| {
        let x = Array::<u8>::ones(&[4, 5], dev).unwrap();
        let o = DistanceOptions {
            sampling: Some(vec![1.0, 2.0, 3.0]),
            ..Default::default()
        };
        assert!(matches!(
            distance_transform_edt(&x, &o).unwrap_err(),
            Error::InvalidArgument { .. }
        ));
        let o = DistanceOptions {
            return_distances: false,
            return_indices: false,
            ..Default::default()
        };
        assert!(matches!(
            distance_transform_edt(&x, &o).unwrap_err(),
            Error::InvalidArgument { .. }
        ));
        assert!(matches!(
            distance_transform_bf(&x, BfMetric::Taxicab, &o).unwrap_err(),
            Error::InvalidArgument { .. }
        ));
        let s = generate_binary_structure(3, 1, dev).unwrap();
        assert!(matches!(
            distance_transform_cdt(&x, &CdtMetric::Structure(&s), true, false).unwrap_err(),
            Error::ShapeMismatch { .. }
        ));
        let c = Array::<cusci_core::c64>::zeros(&[3], dev).unwrap();
        assert!(matches!(
            distance_transform_edt(&c, &DistanceOptions::default()).unwrap_err(),
            Error::UnsupportedDType { .. }
        ));
    });
}

/// distance_transform_cdt without indices (the CPU's passes without the feature transform)
/// gives the distances of the call with indices, for every metric on 1-, 2- and 3-D inputs.
#[test]
fn cdt_distances_alone_match_with_indices() {
    for (si, shape) in [vec![97usize], vec![31, 45], vec![7, 12, 19]]
        .iter()
        .enumerate()
    {
        let n: usize = shape.iter().product();
        let r: Vec<f64> = cusci_core::testing::randn_vec(n, 40 + si as u64);
        let x: Vec<bool> = r.iter().map(|&v| v > -0.9).collect();
        for_each_device(|dev| {
            let a = Array::from_vec(x.clone(), shape, dev).unwrap();
            for m in [CdtMetric::Chessboard, CdtMetric::Taxicab] {
                let (d1, _) = distance_transform_cdt(&a, &m, true, false).unwrap();
                let (d2, i2) = distance_transform_cdt(&a, &m, true, true).unwrap();
                assert!(i2.is_some());
                assert_eq!(
                    d1.unwrap().to_vec().unwrap(),
                    d2.unwrap().to_vec().unwrap(),
                    "{shape:?} on {dev}"
                );
            }
        });
    }
}
