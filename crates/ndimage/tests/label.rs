//! `label` against SciPy (golden masks at several densities and connectivities, compared label by
//! label), against a flood-fill oracle that numbers components in raster order (SciPy's rule) on
//! random masks, every device against the CPU, edge sizes, and the typed errors.

use cusci_core::npy::{load_npz, DynArray};
use cusci_core::testing::{devices, for_each_device};
use cusci_core::{Array, Device, Element, Error};
use cusci_ndimage::*;
use std::collections::{BTreeMap, VecDeque};

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

/// Components numbered in raster order of their first element (breadth-first flood fill).
fn oracle(mask: &[bool], shape: &[usize], s: &[bool]) -> (Vec<i32>, usize) {
    let nd = shape.len();
    let n = mask.len();
    let offs: Vec<Vec<i64>> = (0..s.len())
        .filter(|&k| s[k])
        .map(|k| {
            let mut c = vec![0i64; nd];
            let mut r = k;
            for d in (0..nd).rev() {
                c[d] = (r % 3) as i64 - 1;
                r /= 3;
            }
            c
        })
        .collect();
    let coord = |i: usize| -> Vec<i64> {
        let mut c = vec![0i64; nd];
        let mut r = i;
        for d in (0..nd).rev() {
            c[d] = (r % shape[d]) as i64;
            r /= shape[d];
        }
        c
    };
    let mut out = vec![0i32; n];
    let mut count = 0;
    for i in 0..n {
        if !mask[i] || out[i] != 0 {
            continue;
        }
        count += 1;
        out[i] = count as i32;
        let mut q = VecDeque::from([i]);
        while let Some(p) = q.pop_front() {
            let c = coord(p);
            for o in &offs {
                let mut j = 0usize;
                let mut ok = true;
                for d in 0..nd {
                    let v = c[d] + o[d];
                    if v < 0 || v >= shape[d] as i64 {
                        ok = false;
                        break;
                    }
                    j = j * shape[d] + v as usize;
                }
                if ok && mask[j] && out[j] == 0 {
                    out[j] = count as i32;
                    q.push_back(j);
                }
            }
        }
    }
    (out, count)
}

#[test]
fn label_golden_scipy_numbering() {
    let g: BTreeMap<String, DynArray> = load_npz(NPZ, &Device::Cpu).unwrap().into_iter().collect();
    let cases: Vec<String> = g
        .keys()
        .filter(|k| k.starts_with("label_") && k.ends_with("_out"))
        .map(|k| k.trim_end_matches("_out").to_string())
        .collect();
    assert_eq!(cases.len(), 18);
    for_each_device(|dev| {
        for c in &cases {
            let x = get::<bool>(&g, &format!("{c}_in"), dev);
            let conn: i64 = c.rsplit('_').next().unwrap().parse().unwrap();
            let s = generate_binary_structure(x.ndim(), conn, dev).unwrap();
            let (l, n) = label(&x, Some(&s)).unwrap();
            let e = get::<i32>(&g, &format!("{c}_out"), &Device::Cpu)
                .to_vec()
                .unwrap();
            assert_eq!(l.shape(), x.shape());
            assert_eq!(l.to_vec().unwrap(), e, "{c} on {dev}");
            assert_eq!(n, *e.iter().max().unwrap() as usize);
        }
    });
}

#[test]
fn label_random_masks_against_flood_fill() {
    let shapes: [&[usize]; 4] = [&[61, 67], &[9, 10, 11], &[200], &[3, 4, 5, 6]];
    for (si, shape) in shapes.iter().enumerate() {
        let n: usize = shape.iter().product();
        for (pi, p) in [0.2f64, 0.45, 0.6, 0.85].iter().enumerate() {
            let r: Vec<f64> = cusci_core::testing::randn_vec(n, (si * 10 + pi) as u64);
            // uniform-ish from the normal's CDF sign trick: keep it simple, threshold on value
            let thr = match pi {
                0 => 0.84,
                1 => 0.13,
                2 => -0.25,
                _ => -1.04,
            };
            let _ = p;
            let mask: Vec<bool> = r.iter().map(|&v| v > thr).collect();
            for conn in 1..=shape.len() as i64 {
                let s = generate_binary_structure(shape.len(), conn, &Device::Cpu).unwrap();
                let (want, wn) = oracle(&mask, shape, &s.to_vec().unwrap());
                for_each_device(|dev| {
                    let x = Array::from_vec(mask.clone(), shape, dev).unwrap();
                    let sd = s.to_device(dev).unwrap();
                    let (l, k) = label(&x, Some(&sd)).unwrap();
                    assert_eq!(k, wn, "{shape:?} p{p} conn {conn}");
                    assert_eq!(
                        l.to_vec().unwrap(),
                        want,
                        "{shape:?} p{p} conn {conn} on {dev}"
                    );
                });
            }
        }
    }
}

/// The GPU's 64-bit forest (used from 2^31 elements) against the flood-fill oracle on sizes
/// that normally take the 32-bit one, and a large image with long components (deep trees).
#[test]
fn label_gpu_wide_indices_and_large() {
    let Some(g) = cusci_core::testing::gpu() else {
        return;
    };
    let cases: [(&[usize], f64); 3] = [
        (&[61, 67], 0.13),
        (&[9, 10, 11], -0.25),
        (&[700, 900], -0.3),
    ];
    for (ci, &(shape, thr)) in cases.iter().enumerate() {
        let n: usize = shape.iter().product();
        let r: Vec<f64> = cusci_core::testing::randn_vec(n, 300 + ci as u64);
        let mask: Vec<bool> = r.iter().map(|&v| v > thr).collect();
        let s = generate_binary_structure(shape.len(), shape.len() as i64, &Device::Cpu).unwrap();
        let (want, wn) = oracle(&mask, shape, &s.to_vec().unwrap());
        let x = Array::from_vec(mask, shape, &g).unwrap();
        let sd = s.to_device(&g).unwrap();
        for wide in [false, true] {
            let (l, k) = if wide {
                cusci_ndimage::label::label_with_wide_forest(&x, Some(&sd))
            } else {
                label(&x, Some(&sd))
            }
            .unwrap();
            assert_eq!(k, wn, "{shape:?} wide {wide}");
            assert!(l.to_vec().unwrap() == want, "{shape:?} wide {wide}");
        }
    }
}

#[test]
fn label_edge_sizes_types_and_views() {
    for n in [0usize, 1, 2, 31, 32, 33, 257, 1000] {
        let v: Vec<f32> = (0..n)
            .map(|i| if (i * 7 + i / 3) % 4 == 0 { 0.0 } else { 1.5 })
            .collect();
        let mask: Vec<bool> = v.iter().map(|&x| x != 0.0).collect();
        let (want, wn) = oracle(&mask, &[n], &[true, true, true]);
        for_each_device(|dev| {
            let x = Array::from_vec(v.clone(), &[n], dev).unwrap();
            let (l, k) = label(&x, None).unwrap();
            assert_eq!(
                (l.to_vec().unwrap(), k),
                (want.clone(), wn),
                "n={n} on {dev}"
            );
            let xi = x.astype::<i64>().unwrap();
            assert_eq!(label(&xi, None).unwrap().0.to_vec().unwrap(), want);
        });
    }
    // a transposed view
    let base: Vec<u8> = (0..12 * 9).map(|i| ((i * 13) % 5 > 1) as u8).collect();
    let a = Array::from_vec(base, &[12, 9], &Device::Cpu).unwrap().t();
    let m: Vec<bool> = a.to_vec().unwrap().iter().map(|&v| v != 0).collect();
    let (want, _) = oracle(
        &m,
        &[9, 12],
        &generate_binary_structure(2, 1, &Device::Cpu)
            .unwrap()
            .to_vec()
            .unwrap(),
    );
    for_each_device(|dev| {
        let (l, _) = label(&a.to_device(dev).unwrap(), None).unwrap();
        assert_eq!(l.to_vec().unwrap(), want);
    });
    // 0-d
    let z = Array::from_vec(vec![3i32], &[], &Device::Cpu).unwrap();
    let (l, k) = label(&z, None).unwrap();
    assert_eq!((l.shape().len(), l.to_vec().unwrap(), k), (0, vec![1], 1));
}

#[test]
fn label_bad_inputs_same_errors() {
    for_each_device(|dev| {
        let x = Array::<u8>::ones(&[4, 5], dev).unwrap();
        let s = generate_binary_structure(3, 1, dev).unwrap();
        assert!(matches!(
            label(&x, Some(&s)).unwrap_err(),
            Error::ShapeMismatch { .. }
        ));
        let s = Array::<bool>::ones(&[3, 5], dev).unwrap();
        assert!(matches!(
            label(&x, Some(&s)).unwrap_err(),
            Error::InvalidArgument { .. }
        ));
        let s = Array::from_vec(
            vec![true, true, false, false, true, false, false, false, false],
            &[3, 3],
            dev,
        )
        .unwrap();
        assert!(matches!(
            label(&x, Some(&s)).unwrap_err(),
            Error::InvalidArgument { .. }
        ));
        let c = Array::<cusci_core::c32>::zeros(&[4], dev).unwrap();
        assert!(matches!(
            label(&c, None).unwrap_err(),
            Error::UnsupportedDType { .. }
        ));
    });
}

/// 2-D structures that take the row-run forest on the CPU (horizontal neighbours joined, a
/// contiguous range of columns above: none, one side, all three) and ones that do not (no
/// horizontal link, a gap above), against the flood fill.
#[test]
fn label_2d_structures_against_flood_fill() {
    let structures: [[bool; 9]; 6] = [
        [false, false, false, true, true, true, false, false, false],
        [true, true, false, true, true, true, false, true, true],
        [false, true, true, true, true, true, true, true, false],
        [true, false, true, true, true, true, true, false, true],
        [false, true, false, false, true, false, false, true, false],
        [true, true, true, true, true, true, true, true, true],
    ];
    let shape = [73usize, 59];
    let n = shape[0] * shape[1];
    for (k, thr) in [0.9f64, 0.0, -0.7].iter().enumerate() {
        let r: Vec<f64> = cusci_core::testing::randn_vec(n, 700 + k as u64);
        let mask: Vec<bool> = r.iter().map(|&v| v > *thr).collect();
        for (si, s) in structures.iter().enumerate() {
            let (want, wn) = oracle(&mask, &shape, s);
            for_each_device(|dev| {
                let x = Array::from_vec(mask.clone(), &shape, dev).unwrap();
                let sd = Array::from_vec(s.to_vec(), &[3, 3], dev).unwrap();
                let (l, c) = label(&x, Some(&sd)).unwrap();
                assert_eq!(c, wn, "structure {si}, threshold {thr}");
                assert_eq!(
                    l.to_vec().unwrap(),
                    want,
                    "structure {si} thr {thr} on {dev}"
                );
            });
        }
    }
}

/// `label_as`: SciPy's `output=` types (checked with SciPy 1.17.1): the labels as the type,
/// "insufficient bit-depth" from 256 components in u8 and 255 in bool (SciPy keeps label bytes
/// 1..254 in a bool array, all reading true), any count in i64 and the floats, complex refused;
/// on every device, the labels staying there.
#[test]
fn label_as_follows_scipy_output_types() {
    use cusci_ndimage::label_as;
    // n isolated elements: labels 1..=n at the even positions
    let alt = |n: usize, dev: &Device| {
        let v: Vec<bool> = (0..2 * n).map(|i| i % 2 == 0).collect();
        Array::from_vec(v, &[2 * n], dev).unwrap()
    };
    for dev in devices() {
        let x = alt(5, &dev);
        let (l, n) = label_as::<bool, f32>(&x, None).unwrap();
        assert_eq!(n, 5);
        assert_eq!(l.device(), &dev);
        assert_eq!(
            l.to_vec().unwrap(),
            vec![1.0, 0.0, 2.0, 0.0, 3.0, 0.0, 4.0, 0.0, 5.0, 0.0],
            "on {dev}"
        );
        let (b, _) = label_as::<bool, bool>(&x, None).unwrap();
        let want: Vec<bool> = (0..10).map(|i| i % 2 == 0).collect();
        assert_eq!(b.to_vec().unwrap(), want, "on {dev}");
        let (w, _) = label_as::<bool, i64>(&x, None).unwrap();
        assert_eq!(w.to_vec().unwrap(), vec![1, 0, 2, 0, 3, 0, 4, 0, 5, 0]);
        let (d, _) = label_as::<bool, f64>(&x, None).unwrap();
        assert_eq!(d.to_vec().unwrap()[8], 5.0);
        // the bit-depth limits
        let (u, n) = label_as::<bool, u8>(&alt(255, &dev), None).unwrap();
        assert_eq!((n, u.to_vec().unwrap()[508]), (255, 255u8), "on {dev}");
        let e = label_as::<bool, u8>(&alt(256, &dev), None).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e:?}");
        assert!(label_as::<bool, bool>(&alt(254, &dev), None).is_ok());
        let e = label_as::<bool, bool>(&alt(255, &dev), None).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e:?}");
        let (u, n) = label_as::<bool, i64>(&alt(300, &dev), None).unwrap();
        assert_eq!((n, u.to_vec().unwrap()[598]), (300, 300i64));
        let e = label_as::<bool, cusci_core::c64>(&x, None).unwrap_err();
        assert!(matches!(e, Error::UnsupportedDType { .. }), "{e:?}");
    }
}
