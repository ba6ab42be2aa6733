//! Measurements over labels against SciPy (golden), against naive per-label loops with many
//! labels, every device against the CPU, and the typed errors.

use cusci_core::npy::{load_npz, DynArray};
use cusci_core::testing::for_each_device;
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

fn close(a: &[f64], b: &[f64], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
        let ok = x == y || (x.is_nan() && y.is_nan()) || (x - y).abs() <= 1e-12 * (1.0 + y.abs());
        assert!(ok, "{what}[{i}]: {x} vs {y}");
    }
}

#[test]
fn golden_measurements() {
    let g: BTreeMap<String, DynArray> = load_npz(NPZ, &Device::Cpu).unwrap().into_iter().collect();
    for_each_device(|dev| {
        let lab = get::<i32>(&g, "meas_labels", dev);
        let x = get::<f64>(&g, "meas_input", dev);
        let idx: Vec<i64> = get::<i32>(&g, "meas_index", dev)
            .to_vec()
            .unwrap()
            .iter()
            .map(|&v| v as i64)
            .collect();
        let l = Some(&lab);
        let i = Some(idx.as_slice());
        let e = |k: &str| {
            get::<f64>(&g, &format!("meas_{k}"), &Device::Cpu)
                .to_vec()
                .unwrap()
        };
        close(
            &sum_labels(&x, l, i).unwrap(),
            &e("sum_labels"),
            "sum_labels",
        );
        close(&mean(&x, l, i).unwrap(), &e("mean"), "mean");
        close(&variance(&x, l, i).unwrap(), &e("variance"), "variance");
        close(
            &standard_deviation(&x, l, i).unwrap(),
            &e("standard_deviation"),
            "std",
        );
        close(&minimum(&x, l, i).unwrap(), &e("minimum"), "minimum");
        close(&maximum(&x, l, i).unwrap(), &e("maximum"), "maximum");
        // SciPy's median of an absent label is not meaningful: compare the present ones
        let med = median(&x, l, i).unwrap();
        let em = e("median");
        close(&med[..med.len() - 1], &em[..em.len() - 1], "median");
        assert!(med[med.len() - 1].is_nan());
        let inner = &idx[1..idx.len() - 1];
        let flat = |v: Vec<Vec<usize>>| -> Vec<f64> {
            v.into_iter().flatten().map(|c| c as f64).collect()
        };
        close(
            &flat(minimum_position(&x, l, Some(inner)).unwrap()),
            &e("minimum_position"),
            "minimum_position",
        );
        close(
            &flat(maximum_position(&x, l, Some(inner)).unwrap()),
            &e("maximum_position"),
            "maximum_position",
        );
        let (mn, mx, pmn, pmx) = extrema(&x, l, Some(inner)).unwrap();
        close(&mn, &e("minimum")[1..idx.len() - 1], "extrema min");
        close(&mx, &e("maximum")[1..idx.len() - 1], "extrema max");
        close(&flat(pmn), &e("minimum_position"), "extrema pmin");
        close(&flat(pmx), &e("maximum_position"), "extrema pmax");
        let com: Vec<f64> = center_of_mass(&x, l, Some(inner))
            .unwrap()
            .into_iter()
            .flatten()
            .collect();
        close(&com, &e("center_of_mass"), "center_of_mass");
        let h: Vec<i64> = histogram(&x, -10.0, 10.0, 7, l, Some(inner))
            .unwrap()
            .into_iter()
            .flatten()
            .map(|v| v as i64)
            .collect();
        assert_eq!(
            h,
            get::<i64>(&g, "meas_histogram", &Device::Cpu)
                .to_vec()
                .unwrap()
        );
        let fo: Vec<i64> = find_objects(&lab, None)
            .unwrap()
            .into_iter()
            .flat_map(|o| {
                let o = o.unwrap();
                o.iter()
                    .map(|r| r.0 as i64)
                    .chain(o.iter().map(|r| r.1 as i64))
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(
            fo,
            get::<i64>(&g, "meas_find_objects", &Device::Cpu)
                .to_vec()
                .unwrap()
        );
        // without labels
        let all = e("sum_all");
        let none: Option<&Array<i32>> = None;
        close(&sum(&x, none, None).unwrap(), &all[0..1], "sum all");
        close(&mean(&x, none, None).unwrap(), &all[1..2], "mean all");
        close(&variance(&x, none, None).unwrap(), &all[2..3], "var all");
        close(&minimum(&x, none, None).unwrap(), &all[3..4], "min all");
        close(&maximum(&x, none, None).unwrap(), &all[4..5], "max all");
        close(&median(&x, none, None).unwrap(), &all[5..6], "median all");
        close(
            &center_of_mass(&x, none, None).unwrap()[0],
            &e("com_all"),
            "com all",
        );
    });
}

/// Many labels (one per element pair): every statistic against naive per-label loops; the GPU
/// against the same.
#[test]
fn many_labels_against_naive() {
    let (h, w) = (64usize, 50usize);
    let n = h * w;
    let x: Vec<f64> = cusci_core::testing::randn_vec(n, 5);
    let labs: Vec<i64> = (0..n).map(|i| ((i * 7919) % (n / 2)) as i64).collect();
    let nl = n / 2;
    let index: Vec<i64> = (0..nl as i64 + 3).collect();
    let mut want_sum = vec![0.0; index.len()];
    let mut want_cnt = vec![0usize; index.len()];
    let mut want_min = vec![f64::INFINITY; index.len()];
    for i in 0..n {
        let l = labs[i] as usize;
        want_sum[l] += x[i];
        want_cnt[l] += 1;
        want_min[l] = want_min[l].min(x[i]);
    }
    let want_mean: Vec<f64> = want_sum
        .iter()
        .zip(&want_cnt)
        .map(|(&s, &c)| s / c as f64)
        .collect();
    let want_min: Vec<f64> = want_min
        .iter()
        .map(|&v| if v.is_infinite() { 0.0 } else { v })
        .collect();
    for_each_device(|dev| {
        let xa = Array::from_vec(x.clone(), &[h, w], dev).unwrap();
        let la = Array::from_vec(labs.clone(), &[h, w], dev).unwrap();
        close(
            &sum_labels(&xa, Some(&la), Some(&index)).unwrap(),
            &want_sum,
            "sum",
        );
        close(
            &mean(&xa, Some(&la), Some(&index)).unwrap(),
            &want_mean,
            "mean",
        );
        close(
            &minimum(&xa, Some(&la), Some(&index)).unwrap(),
            &want_min,
            "min",
        );
        let cnt = labeled_comprehension(&xa, Some(&la), &index, |v| v.len() as f64, -1.0).unwrap();
        let wc: Vec<f64> = want_cnt
            .iter()
            .map(|&c| if c == 0 { -1.0 } else { c as f64 })
            .collect();
        assert_eq!(cnt, wc);
        let vi = value_indices(&la, None).unwrap();
        assert_eq!(vi.len(), nl);
        for (v, coords) in &vi {
            for k in 0..coords[0].len() {
                assert_eq!(labs[coords[0][k] * w + coords[1][k]], *v);
            }
        }
        let fo = find_objects(&la, Some(nl + 2)).unwrap();
        assert_eq!(fo.len(), nl + 2);
        assert!(fo[nl].is_none() && fo[nl + 1].is_none());
    });
}

/// GPU against the CPU for every statistic on f32 input with u8 labels.
#[test]
fn devices_agree_f32_u8() {
    let (h, w) = (33usize, 31usize);
    let x: Vec<f32> = cusci_core::testing::randn_vec(h * w, 9);
    let l: Vec<u8> = (0..h * w).map(|i| ((i * 31) % 11) as u8).collect();
    let idx: Vec<i64> = (0..12).collect();
    let run = |dev: &Device| {
        let xa = Array::from_vec(x.clone(), &[h, w], dev).unwrap();
        let la = Array::from_vec(l.clone(), &[h, w], dev).unwrap();
        let i = Some(idx.as_slice());
        (
            variance(&xa, Some(&la), i).unwrap(),
            median(&xa, Some(&la), i).unwrap(),
            maximum_position(&xa, Some(&la), i).unwrap(),
            center_of_mass(&xa, Some(&la), i).unwrap().concat(),
            histogram(&xa, -2.0, 2.0, 5, Some(&la), i).unwrap(),
        )
    };
    let want = run(&Device::Cpu);
    for_each_device(|dev| {
        let got = run(dev);
        close(&got.0, &want.0, "variance");
        close(&got.1, &want.1, "median");
        assert_eq!(got.2, want.2);
        close(&got.3, &want.3, "com");
        assert_eq!(got.4, want.4);
    });
}

/// Negative labels and index values, as SciPy takes them (values from SciPy 1.17.1): without an
/// index only labels > 0 count; an index entry selects its label whatever its sign.
#[test]
fn negative_labels_and_index_values() {
    for_each_device(|dev| {
        let x = Array::from_vec((0..6).map(|v| v as f64).collect(), &[6], dev).unwrap();
        let l = Array::from_vec(vec![-1i32, 0, 1, 1, -1, 2], &[6], dev).unwrap();
        let l = Some(&l);
        assert_eq!(sum_labels(&x, l, None).unwrap(), [10.0]);
        assert_eq!(
            sum_labels(&x, l, Some(&[-1, 0, 1, 5])).unwrap(),
            [4.0, 1.0, 5.0, 0.0]
        );
        assert_eq!(mean(&x, l, Some(&[-1, 2])).unwrap(), [2.0, 5.0]);
        assert_eq!(minimum(&x, l, Some(&[-1])).unwrap(), [0.0]);
        assert_eq!(maximum_position(&x, l, Some(&[-1, 1])).unwrap(), [[4], [3]]);
        assert_eq!(median(&x, l, Some(&[-1])).unwrap(), [2.0]);
        assert_eq!(center_of_mass(&x, l, Some(&[-1])).unwrap(), [[4.0]]);
        assert_eq!(
            histogram(&x, 0.0, 6.0, 3, l, Some(&[-1])).unwrap(),
            [[1, 0, 1]]
        );
    });
}

/// find_objects' `max_label` of 0 means every label (SciPy: below 1); value_indices refuses an
/// `ignore_value` outside the array type, as SciPy does.
#[test]
fn find_objects_and_value_indices_edges() {
    for_each_device(|dev| {
        let l = Array::from_vec(vec![0i32, 2, 2, 0], &[4], dev).unwrap();
        assert_eq!(
            find_objects(&l, Some(0)).unwrap(),
            [None, Some(vec![(1, 3)])]
        );
        assert_eq!(find_objects(&l, Some(1)).unwrap(), [None]);
        let u = Array::from_vec(vec![0u8, 3], &[2], dev).unwrap();
        assert!(matches!(
            value_indices(&u, Some(-1)).unwrap_err(),
            Error::InvalidArgument { .. }
        ));
        assert_eq!(value_indices(&u, Some(255)).unwrap().len(), 2);
    });
}

#[test]
fn measurement_bad_inputs_same_errors() {
    for_each_device(|dev| {
        let x = Array::<f64>::ones(&[4, 5], dev).unwrap();
        let lf = Array::<f32>::ones(&[4, 5], dev).unwrap();
        assert!(matches!(
            sum_labels(&x, Some(&lf), None).unwrap_err(),
            Error::UnsupportedDType { .. }
        ));
        let l = Array::<i32>::ones(&[4, 4], dev).unwrap();
        assert!(matches!(
            mean(&x, Some(&l), None).unwrap_err(),
            Error::ShapeMismatch { .. }
        ));
        let l = Array::<i32>::ones(&[4, 5], dev).unwrap();
        // a negative index value is a label like another (SciPy: [1, 0]); a span of index
        // values wider than the slot table is refused
        assert_eq!(maximum(&x, Some(&l), Some(&[1, -2])).unwrap(), [1.0, 0.0]);
        assert!(matches!(
            maximum(&x, Some(&l), Some(&[1, -(1 << 30)])).unwrap_err(),
            Error::InvalidArgument { .. }
        ));
        assert!(matches!(
            histogram(&x, 1.0, 1.0, 3, Some(&l), None).unwrap_err(),
            Error::InvalidArgument { .. }
        ));
        assert!(matches!(
            find_objects(&lf, None).unwrap_err(),
            Error::UnsupportedDType { .. }
        ));
        // no labelled element and no index: SciPy's minimum, maximum, positions and extrema
        // raise (a zero-size reduction); the sums give 0 and the means NaN
        let z = Array::<i32>::zeros(&[4, 5], dev).unwrap();
        for (what, r) in [
            ("minimum", minimum(&x, Some(&z), None).map(|_| ())),
            ("maximum", maximum(&x, Some(&z), None).map(|_| ())),
            (
                "minimum_position",
                minimum_position(&x, Some(&z), None).map(|_| ()),
            ),
            (
                "maximum_position",
                maximum_position(&x, Some(&z), None).map(|_| ()),
            ),
            ("extrema", extrema(&x, Some(&z), None).map(|_| ())),
        ] {
            assert!(
                matches!(r, Err(Error::InvalidArgument { .. })),
                "{what} on {dev}"
            );
        }
        assert_eq!(sum_labels(&x, Some(&z), None).unwrap(), vec![0.0]);
        assert!(mean(&x, Some(&z), None).unwrap()[0].is_nan());
        // with an index list an empty region gives 0, even when every region is empty
        assert_eq!(
            maximum(&x, Some(&l), Some(&[1, 3])).unwrap(),
            vec![1.0, 0.0]
        );
        assert_eq!(minimum(&x, Some(&z), Some(&[5])).unwrap(), vec![0.0]);
        assert_eq!(
            maximum_position(&x, Some(&z), Some(&[2, 5])).unwrap(),
            vec![vec![0, 0], vec![0, 0]]
        );
    });
}

#[test]
fn histogram_bins_are_scipys_linspace_edges() {
    // histogram(x, -2, 2, 5): the edges are linspace(-2, 2, 6) = [-2, -1.2, -0.3999999999999999,
    // 0.40000000000000036, 1.2000000000000002, 2], so 0.4 counts in bin 2 and -0.4 in bin 1
    // (SciPy: [0, 2, 2, 1, 1]), where (v - min) / width would put them one bin up
    for_each_device(|dev| {
        let x = Array::from_vec(vec![-0.4f64, 0.4, -1.2, 1.2, 0.0, 2.0], &[6], dev).unwrap();
        let h = histogram::<f64, i32>(&x, -2.0, 2.0, 5, None, None).unwrap();
        assert_eq!(h, vec![vec![0, 2, 2, 1, 1]], "{dev}");
    });
}

/// GPU sums are reproducible bit for bit (fixed-point accumulation) and agree with the CPU,
/// including values of very different magnitudes; NaN/±inf regions give IEEE's results on both
/// devices.
#[test]
fn sums_reproducible_and_nonfinite() {
    let (h, w) = (40usize, 37usize);
    let n = h * w;
    let r: Vec<f64> = cusci_core::testing::randn_vec(n, 77);
    let mut x: Vec<f64> = r
        .iter()
        .enumerate()
        .map(|(i, &v)| match i % 4 {
            0 => v * 1e6,
            1 => v * 1e-7,
            2 => -v,
            _ => v * 3.0,
        })
        .collect();
    let mut labs: Vec<i32> = (0..n).map(|i| ((i * 13) % 9) as i32).collect();
    // regions 10..=13: NaN, +inf, +inf and −inf, −inf
    let specials = [
        (10, f64::NAN),
        (11, f64::INFINITY),
        (12, f64::INFINITY),
        (12, f64::NEG_INFINITY),
        (13, f64::NEG_INFINITY),
    ];
    for (k, &(l, v)) in specials.iter().enumerate() {
        labs[k * 7 + 1] = l;
        x[k * 7 + 1] = v;
    }
    let idx: Vec<i64> = (0..14).collect();
    let run = |dev: &Device| {
        let xa = Array::from_vec(x.clone(), &[h, w], dev).unwrap();
        let la = Array::from_vec(labs.clone(), &[h, w], dev).unwrap();
        let i = Some(idx.as_slice());
        (
            sum_labels(&xa, Some(&la), i).unwrap(),
            variance(&xa, Some(&la), i).unwrap(),
            center_of_mass(&xa, Some(&la), i).unwrap().concat(),
        )
    };
    let want = run(&Device::Cpu);
    for (l, s) in want.0.iter().enumerate().skip(10) {
        let ok = match l {
            10 | 12 => s.is_nan(),
            11 => *s == f64::INFINITY,
            _ => *s == f64::NEG_INFINITY,
        };
        assert!(ok, "CPU sum of region {l}: {s}");
    }
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
    for_each_device(|dev| {
        let a = run(dev);
        close(&a.0, &want.0, "sum");
        close(&a.1, &want.1, "variance");
        close(&a.2, &want.2, "com");
        for _ in 0..2 {
            let b = run(dev);
            assert_eq!(bits(&a.0), bits(&b.0), "sum reproducible on {dev}");
            assert_eq!(bits(&a.1), bits(&b.1), "variance reproducible on {dev}");
            assert_eq!(bits(&a.2), bits(&b.2), "com reproducible on {dev}");
        }
    });
}
