//! The measurements that group by sorting (median, labeled_comprehension, value_indices):
//! against SciPy (golden, both of SciPy's median routes, NaN, f32 averaging, integers), and the
//! GPU (device sort) against the CPU reference on random labels with 1, 100 and 10^5 labels,
//! absent labels, empty regions, f32/f64/integer inputs.

use cusci_core::npy::{load_npz, DynArray};
use cusci_core::testing::{for_each_device, gpu, randn_vec};
use cusci_core::{c64, Array, Device, Element};
use cusci_ndimage::*;
use std::collections::BTreeMap;

const NPZ: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/ndimage_measurements.npz"
);

fn get<T: Element>(g: &BTreeMap<String, DynArray>, k: &str, dev: &Device) -> Array<T> {
    g[k].clone()
        .into_array::<T>()
        .unwrap()
        .to_device(dev)
        .unwrap()
}

fn host<T: Element>(g: &BTreeMap<String, DynArray>, k: &str) -> Vec<T> {
    get::<T>(g, k, &Device::Cpu).to_vec().unwrap()
}

/// Equal values (−0.0 == 0.0: SciPy orders equal values by position), NaN equal to NaN.
fn same(a: &[f64], b: &[f64], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
        assert!(
            x == y || (x.is_nan() && y.is_nan()),
            "{what}[{i}]: {x} vs {y}"
        );
    }
}

/// Bit-identical, except that any NaN equals any NaN.
fn bits(a: &[f64], b: &[f64], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
        assert!(
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
            "{what}[{i}]: {x:e} vs {y:e}"
        );
    }
}

/// The medians of `x` (golden `med_{t}`) against SciPy's: by the labels `lab` over the labels
/// `present`, without labels, and over every label > 0.
fn medians_match<T: Element>(
    g: &BTreeMap<String, DynArray>,
    x: &Array<T>,
    lab: &Array<i32>,
    present: &[i64],
    t: &str,
) {
    let none: Option<&Array<i32>> = None;
    for (l, p, case) in [
        (Some(lab), Some(present), "index"),
        (none, None, "nolabels"),
        (Some(lab), None, "noindex"),
    ] {
        let want = host(g, &format!("med_{t}_{case}"));
        same(&median(x, l, p).unwrap(), &want, &format!("{t} {case}"));
    }
}

#[test]
fn golden_median_comprehension_value_indices() {
    let g: BTreeMap<String, DynArray> = load_npz(NPZ, &Device::Cpu).unwrap().into_iter().collect();
    let present: Vec<i64> = host(&g, "med_present");
    let idx: Vec<i64> = host(&g, "med_index");
    for_each_device(|dev| {
        let lab = get::<i32>(&g, "med_labels", dev);
        let l = Some(&lab);
        let p = Some(present.as_slice());
        let x = get::<f64>(&g, "med_f64", dev);
        medians_match(&g, &x, &lab, &present, "f64");
        // an index list with a label that does not occur: NaN there (SciPy's value is not
        // meaningful), the others as SciPy
        let m = median(&x, l, Some(&idx)).unwrap();
        assert!(m[idx.len() - 1].is_nan(), "absent label on {dev}");
        same(
            &m[..idx.len() - 1],
            &host(&g, "med_f64_index"),
            "f64 full index",
        );
        medians_match(&g, &get::<f32>(&g, "med_f32", dev), &lab, &present, "f32");
        let big = get::<f32>(&g, "med_f32_big", dev);
        let bl = Array::from_vec(vec![1i32, 2, 2], &[3], dev).unwrap();
        same(
            &median(&big, Some(&bl), Some(&[1, 2])).unwrap(),
            &host(&g, "med_f32_big_index"),
            "f32 overflow",
        );
        let xi = get::<i64>(&g, "med_i64", dev);
        same(
            &median(&xi, l, p).unwrap(),
            &host(&g, "med_i64_index"),
            "i64 index",
        );
        same(
            &median(&xi, l, None).unwrap(),
            &host(&g, "med_i64_noindex"),
            "i64 noindex",
        );
        let xu = get::<u8>(&g, "med_u8", dev);
        same(
            &median(&xu, l, p).unwrap(),
            &host(&g, "med_u8_index"),
            "u8 index",
        );
        // labeled_comprehension (an order-independent function, as SciPy's order is unstable)
        let w = get::<f64>(&g, "lc_f64", dev);
        let f = |v: &[f64]| {
            let mx = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let mn = v.iter().cloned().fold(f64::INFINITY, f64::min);
            mx - mn + v.len() as f64
        };
        same(
            &labeled_comprehension(&w, l, &idx, f, -1.5).unwrap(),
            &host(&g, "lc_out"),
            "labeled_comprehension",
        );
        // value_indices
        let a3 = get::<i32>(&g, "vi_in", dev);
        for (name, ign) in [("all", None), ("ign", Some(0))] {
            let vi = value_indices(&a3, ign).unwrap();
            let vals: Vec<i64> = host(&g, &format!("vi_{name}_values"));
            let counts: Vec<i64> = host(&g, &format!("vi_{name}_counts"));
            let coords: Vec<i64> = host(&g, &format!("vi_{name}_coords"));
            let total: usize = counts.iter().map(|&c| c as usize).sum();
            assert_eq!(
                vi.keys().copied().collect::<Vec<_>>(),
                vals,
                "{name} on {dev}"
            );
            let mut off = 0usize;
            for (v, &c) in vals.iter().zip(&counts) {
                let c = c as usize;
                for (d, axis) in vi[v].iter().enumerate() {
                    let want: Vec<usize> = coords[d * total + off..d * total + off + c]
                        .iter()
                        .map(|&q| q as usize)
                        .collect();
                    assert_eq!(axis, &want, "value {v} axis {d} ({name}) on {dev}");
                }
                off += c;
            }
        }
    });
}

/// Labels in `1..=nl` (about one element in 8 in the background, label 0).
fn rand_labels(n: usize, nl: usize, seed: u64) -> Vec<i32> {
    let mut s = seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            if s % 8 == 0 {
                0
            } else {
                1 + ((s >> 8) % nl as u64) as i32
            }
        })
        .collect()
}

/// One input type: median (index list with absent labels, index None, no labels),
/// labeled_comprehension (an order-dependent function: the raster order within each region
/// must agree) and, for integer inputs, value_indices, GPU against the CPU, bit for bit.
fn gpu_vs_cpu<T: Element>(g: &Device, shape: &[usize], nl: usize, seed: u64, scale: f64) {
    let n: usize = shape.iter().product();
    let r: Vec<f64> = randn_vec(n, seed);
    let flt = T::DTYPE.is_real_float();
    let cv = |v: f64| {
        if flt {
            T::from_c64(c64::new(v, 0.0))
        } else {
            T::from_i64((v * scale) as i64)
        }
    };
    let mut xs: Vec<T> = r.iter().map(|&v| cv(v)).collect();
    if flt && n > 10 {
        xs[3] = cv(f64::NAN);
        xs[7] = cv(-0.0);
    }
    let labs = rand_labels(n, nl, seed + 1);
    // every label, three that do not occur, and label 0 (the background as a region)
    let mut index: Vec<i64> = (1..=nl as i64).collect();
    index.extend([nl as i64 + 5, nl as i64 + 1, 0]);
    let what = format!("{} {shape:?} {nl} labels", T::DTYPE.tag());
    let run = |dev: &Device| {
        let x = Array::from_vec(xs.clone(), shape, dev).unwrap();
        let l = Array::from_vec(labs.clone(), shape, dev).unwrap();
        let none: Option<&Array<i32>> = None;
        let f = |v: &[f64]| {
            v.iter()
                .enumerate()
                .fold(0.0, |a, (i, &y)| a * 0.5 + y * (i + 1) as f64)
        };
        let vi = if flt {
            BTreeMap::new()
        } else {
            value_indices(&x.astype::<i64>().unwrap(), Some(0)).unwrap()
        };
        (
            median(&x, Some(&l), Some(&index)).unwrap(),
            median(&x, Some(&l), None).unwrap(),
            median(&x, none, None).unwrap(),
            labeled_comprehension(&x, Some(&l), &index, f, -7.0).unwrap(),
            value_indices(&l, None).unwrap(),
            vi,
        )
    };
    let want = run(&Device::Cpu);
    let got = run(g);
    bits(&got.0, &want.0, &format!("median index {what}"));
    bits(&got.1, &want.1, &format!("median noindex {what}"));
    bits(&got.2, &want.2, &format!("median nolabels {what}"));
    bits(&got.3, &want.3, &format!("labeled_comprehension {what}"));
    assert!(got.4 == want.4, "value_indices of the labels {what}");
    assert!(got.5 == want.5, "value_indices of the input {what}");
}

#[test]
fn gpu_against_cpu_random_labels() {
    let Some(g) = gpu() else {
        return;
    };
    for (k, &(shape, nl)) in [
        (&[37usize, 41][..], 1usize),
        (&[64, 65][..], 100),
        (&[400, 300][..], 100_000),
        (&[6, 7, 8][..], 100),
    ]
    .iter()
    .enumerate()
    {
        let s = 100 + 10 * k as u64;
        gpu_vs_cpu::<f64>(&g, shape, nl, s, 1.0);
        gpu_vs_cpu::<f32>(&g, shape, nl, s + 1, 1.0);
        gpu_vs_cpu::<i32>(&g, shape, nl, s + 2, 1e6);
        gpu_vs_cpu::<i64>(&g, shape, nl, s + 3, 1e15);
        gpu_vs_cpu::<u8>(&g, shape, nl, s + 4, 60.0);
    }
}

/// Empty cases on every device: no labelled element, a zero-size image, an empty index list,
/// a region of one element; value_indices of constant and zero-size arrays.
#[test]
fn empty_and_tiny_regions() {
    for_each_device(|dev| {
        let x = Array::from_vec(vec![2.0f64, 4.0, 8.0, 1.0], &[2, 2], dev).unwrap();
        let z = Array::<i32>::zeros(&[2, 2], dev).unwrap();
        assert!(median(&x, Some(&z), None).unwrap()[0].is_nan());
        let m = median(&x, Some(&z), Some(&[1, 2])).unwrap();
        assert!(m.iter().all(|v| v.is_nan()), "{m:?} on {dev}");
        assert_eq!(median(&x, Some(&z), Some(&[])).unwrap(), Vec::<f64>::new());
        assert_eq!(
            labeled_comprehension(&x, Some(&z), &[1, 2], |v| v.len() as f64, 9.0).unwrap(),
            vec![9.0, 9.0]
        );
        assert_eq!(median(&x, Some(&z), Some(&[0])).unwrap(), vec![3.0]);
        let one = Array::from_vec(vec![0i32, 3, 0, 0], &[2, 2], dev).unwrap();
        assert_eq!(median(&x, Some(&one), Some(&[3])).unwrap(), vec![4.0]);
        let e = Array::<f32>::zeros(&[0, 3], dev).unwrap();
        let el = Array::<i32>::zeros(&[0, 3], dev).unwrap();
        assert!(median(&e, Some(&el), Some(&[1])).unwrap()[0].is_nan());
        assert!(median::<f32, i32>(&e, None, None).unwrap()[0].is_nan());
        assert_eq!(
            labeled_comprehension(&e, Some(&el), &[1], |v| v.len() as f64, -1.0).unwrap(),
            vec![-1.0]
        );
        assert!(value_indices(&el, None).unwrap().is_empty());
        let c = Array::<i64>::full(&[3, 2], i64::MIN, dev).unwrap();
        let vi = value_indices(&c, None).unwrap();
        assert_eq!(vi.len(), 1);
        assert_eq!(
            vi[&i64::MIN],
            vec![vec![0, 0, 1, 1, 2, 2], vec![0, 1, 0, 1, 0, 1]]
        );
        assert!(value_indices(&c, Some(i64::MIN)).unwrap().is_empty());
        // the widest span of values (64-bit keys)
        let w = Array::from_vec(vec![i64::MAX, i64::MIN, 0, i64::MAX], &[4], dev).unwrap();
        let vi = value_indices(&w, None).unwrap();
        assert_eq!(
            vi.into_iter().collect::<Vec<_>>(),
            vec![
                (i64::MIN, vec![vec![1]]),
                (0, vec![vec![2]]),
                (i64::MAX, vec![vec![0, 3]])
            ]
        );
        // bool is not an integer array for SciPy's value_indices (ValueError)
        let b = Array::from_vec(vec![true, false, true], &[3], dev).unwrap();
        assert!(matches!(
            value_indices(&b, None).unwrap_err(),
            Error::UnsupportedDType { .. }
        ));
    });
}
