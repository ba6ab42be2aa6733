//! medfilt: SciPy's golden values (1-D in `processing.npz`; 2-D and 3-D windows in `parity.npz`,
//! `tests/golden/gen.py signal_parity`), a sort-based N-D oracle, every device against the CPU,
//! NaN's order, errors.

use cusci_core::npy::{load_npz, load_npz_array, DynArray};
use cusci_core::testing::{assert_allclose, devices, randn};
use cusci_core::{Array, Device, Error, RealFloat};
use cusci_signal::{medfilt, medfilt2d, order_filter, KernelSize};
use std::collections::BTreeMap;

const NPZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/processing.npz");
const PARITY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/parity.npz");

#[test]
fn golden_scipy() {
    let cpu = Device::cpu();
    let x = load_npz_array::<f64>(NPZ, "med_x", &cpu).unwrap();
    for dev in devices() {
        for k in [1, 3, 5, 7] {
            let e = load_npz_array::<f64>(NPZ, &format!("medfilt_k{k}"), &cpu).unwrap();
            let y = medfilt(&x.to_device(&dev).unwrap(), k).unwrap();
            assert_allclose(&y, &e, 0.0, 0.0, &format!("k={k} on {dev}"));
        }
    }
}

/// The window of a golden case: one stored value is SciPy's scalar `kernel_size`.
fn kernel(k: &[i64]) -> KernelSize {
    let k: Vec<usize> = k.iter().map(|&v| v as usize).collect();
    if k.len() == 1 {
        KernelSize::All(k[0])
    } else {
        KernelSize::PerAxis(k)
    }
}

fn parity_case<T: RealFloat>(g: &BTreeMap<String, DynArray>, c: &str, dev: &Device) {
    let get = |m: &str| g[&format!("medfilt_{c}_{m}")].clone();
    let x = get("x").into_array::<T>().unwrap();
    let e = get("out").into_array::<T>().unwrap();
    let k = get("k").into_array::<i64>().unwrap().to_vec().unwrap();
    let y = medfilt(&x.to_device(dev).unwrap(), kernel(&k)).unwrap();
    assert_eq!(y.shape(), e.shape(), "{c} on {dev}");
    // the median is an element of the window: exact
    assert_allclose(&y, &e, 0.0, 0.0, &format!("medfilt {c} k={k:?} on {dev}"));
    if x.ndim() == 2 && k.len() == 1 {
        let y2 = medfilt2d(&x.to_device(dev).unwrap(), [k[0] as usize; 2]).unwrap();
        assert_allclose(&y2, &e, 0.0, 0.0, &format!("medfilt2d {c} on {dev}"));
    }
}

/// SciPy's N-D medfilt (issue 32: the window spans every axis, not the last one only): 2-D and
/// 3-D, per-axis sizes, windows beyond the input, the single-axis fast path along every axis.
#[test]
fn golden_scipy_nd() {
    let g: BTreeMap<String, DynArray> = load_npz(PARITY, &Device::cpu())
        .unwrap()
        .into_iter()
        .collect();
    let cases: Vec<String> = g
        .keys()
        .filter_map(|k| k.strip_prefix("medfilt_")?.strip_suffix("_out"))
        .map(str::to_string)
        .collect();
    assert_eq!(cases.len(), 14, "{cases:?}");
    for dev in devices() {
        for c in &cases {
            match g[&format!("medfilt_{c}_x")] {
                DynArray::F32(_) => parity_case::<f32>(&g, c, &dev),
                _ => parity_case::<f64>(&g, c, &dev),
            }
        }
    }
}

/// The median of the zero-padded `k` box around every element, by sorting (row-major).
fn oracle(x: &[f32], shape: &[usize], k: &[usize]) -> Vec<f32> {
    let nd = shape.len();
    let n: usize = shape.iter().product();
    let cnt: usize = k.iter().product();
    let mut out = vec![0.0f32; n];
    for (lin, o) in out.iter_mut().enumerate() {
        let mut idx = vec![0i64; nd];
        let mut r = lin;
        for d in (0..nd).rev() {
            idx[d] = (r % shape[d]) as i64;
            r /= shape[d];
        }
        let mut w = Vec::with_capacity(cnt);
        for m in 0..cnt {
            let mut r = m;
            let mut src = 0usize;
            let mut inside = true;
            for d in (0..nd).rev() {
                let q = idx[d] + (r % k[d]) as i64 - (k[d] / 2) as i64;
                r /= k[d];
                inside &= q >= 0 && q < shape[d] as i64;
                src += q.max(0) as usize * shape[d + 1..].iter().product::<usize>();
            }
            w.push(if inside { x[src] } else { 0.0 });
        }
        w.sort_by(|a, b| a.partial_cmp(b).unwrap());
        *o = w[cnt / 2];
    }
    out
}

#[test]
fn devices_agree_and_sizes() {
    let cpu = Device::cpu();
    for (shape, k) in [
        (&[0usize][..], &[3usize][..]),
        (&[1], &[5]),
        (&[3, 33], &[1, 7]),
        (&[2, 257], &[1, 31]),
        (&[4, 100], &[1, 33]),
        (&[33, 4], &[35, 1]),
        (&[5, 0, 3], &[3, 3, 3]),
        (&[7, 9], &[3, 5]),
        (&[3, 4, 5], &[3, 3, 3]),
        (&[2, 3, 17], &[1, 3, 9]),
        (&[6, 1, 5, 3], &[3, 1, 1, 3]),
    ] {
        let x = randn::<f32>(shape, 4, &cpu).unwrap();
        let e = medfilt(&x, k).unwrap();
        assert_eq!(e.shape(), shape);
        assert_eq!(
            e.to_vec().unwrap(),
            oracle(&x.to_vec().unwrap(), shape, k),
            "{shape:?} k={k:?}"
        );
        for dev in devices() {
            let y = medfilt(&x.to_device(&dev).unwrap(), k).unwrap();
            assert_allclose(&y, &e, 0.0, 0.0, &format!("{shape:?} k={k:?} on {dev}"));
            // a transposed (non-contiguous) view filters as its values say
            if shape.len() == 2 && x.size() > 0 {
                let xt = x.to_device(&dev).unwrap().t();
                let kt = [k[1], k[0]];
                let yt = medfilt(&xt, kt).unwrap();
                let et = medfilt(&xt.to_device(&cpu).unwrap().contiguous().unwrap(), kt).unwrap();
                assert_allclose(&yt, &et, 0.0, 0.0, &format!("{shape:?}ᵀ on {dev}"));
                assert_allclose(
                    &yt.t().contiguous().unwrap(),
                    &e,
                    0.0,
                    0.0,
                    &format!("{shape:?}ᵀ back on {dev}"),
                );
            }
        }
    }
}

/// A scalar size is the same size along every axis; a 0-d input is shape [1] (SciPy's
/// `atleast_1d`).
#[test]
fn scalar_size_and_0d() {
    let cpu = Device::cpu();
    let x = randn::<f64>(&[6, 7], 9, &cpu).unwrap();
    for dev in devices() {
        let xd = x.to_device(&dev).unwrap();
        let a = medfilt(&xd, 3).unwrap();
        let b = medfilt(&xd, [3, 3]).unwrap();
        assert_allclose(&a, &b, 0.0, 0.0, &format!("scalar on {dev}"));
        // not the old last-axis-only filter
        let c = medfilt(&xd, [1, 3]).unwrap();
        assert_ne!(a.to_vec().unwrap(), c.to_vec().unwrap());
        let s = Array::from_vec(vec![2.0f64], &[], &dev).unwrap();
        let y = medfilt(&s, 3).unwrap();
        assert_eq!(y.shape(), &[1]);
        assert_eq!(y.to_vec().unwrap(), vec![0.0]);
        assert_eq!(medfilt(&s, 1).unwrap().to_vec().unwrap(), vec![2.0]);
    }
}

/// NaN sorts above every number on both devices (NumPy's order), in the 1-D path, the N-D
/// path and order_filter.
#[test]
fn nan_sorts_last() {
    let cpu = Device::cpu();
    let nan = f64::NAN;
    let v = vec![1.0, nan, 3.0, 2.0, 5.0, 4.0, nan, nan, 7.0, -1.0, nan];
    let x = Array::from_vec(v.clone(), &[11], &cpu).unwrap();
    // oracle: sort with NaN last
    let want = |k: usize| -> Vec<f64> {
        (0..v.len())
            .map(|t| {
                let mut w: Vec<f64> = (0..k)
                    .map(|j| {
                        let s = t as isize + j as isize - (k / 2) as isize;
                        if s >= 0 && (s as usize) < v.len() {
                            v[s as usize]
                        } else {
                            0.0
                        }
                    })
                    .collect();
                w.sort_by(|a, b| a.total_cmp(b));
                w[k / 2]
            })
            .collect()
    };
    let same = |a: &[f64], b: &[f64]| {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(p, q)| (p.is_nan() && q.is_nan()) || p == q)
    };
    for dev in devices() {
        let xd = x.to_device(&dev).unwrap();
        for k in [3, 5, 33] {
            let y = medfilt(&xd, k).unwrap().to_vec().unwrap();
            assert!(same(&y, &want(k)), "k={k} on {dev}: {y:?}");
            // the same window through the N-D rank filter
            let dom = Array::<f64>::ones(&[k], &dev).unwrap();
            let z = order_filter(&xd, &dom, k / 2).unwrap().to_vec().unwrap();
            assert!(same(&z, &want(k)), "order_filter k={k} on {dev}: {z:?}");
        }
        // N-D path: a [1, 11] image with a [3, 3] window sees the row and two zero rows
        let x2 = xd.reshape(&[1, 11]).unwrap();
        let y2 = medfilt(&x2, 3).unwrap().to_vec().unwrap();
        let e2: Vec<f64> = (0..11)
            .map(|t| {
                let mut w = vec![0.0; 6];
                for j in 0..3 {
                    let s = t as isize + j - 1;
                    w.push(if (0..11).contains(&s) {
                        v[s as usize]
                    } else {
                        0.0
                    });
                }
                w.sort_by(|a, b| a.total_cmp(b));
                w[4]
            })
            .collect();
        assert!(same(&y2, &e2), "2-D on {dev}: {y2:?}");
    }
}

#[test]
fn bad_input() {
    for dev in devices() {
        let x = Array::<f64>::ones(&[5], &dev).unwrap();
        assert!(matches!(medfilt(&x, 4), Err(Error::InvalidArgument { .. })));
        assert!(matches!(medfilt(&x, 0), Err(Error::InvalidArgument { .. })));
        let x2 = Array::<f64>::ones(&[4, 5], &dev).unwrap();
        for k in [&[3usize][..], &[3, 3, 3], &[3, 2], &[0, 3]] {
            assert!(
                matches!(medfilt(&x2, k), Err(Error::InvalidArgument { .. })),
                "{k:?} on {dev}"
            );
        }
        assert!(matches!(
            medfilt(&x2, [usize::MAX, usize::MAX]),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
