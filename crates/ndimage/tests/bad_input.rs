//! Bad and extreme inputs for cusci-ndimage (issue 33): a table of cases, each asserting a typed
//! error variant or SciPy's value (scipy.ndimage 1.17.1) where SciPy accepts the input, run on
//! every device in a child process (harness: `cusci_core::testing::bad_input`): SciPy's
//! structure and footprint rules, sampling lengths, `generate_binary_structure`'s connectivity,
//! huge sizes refused before allocation.

use cusci_core::testing::bad_input::{self as bi, bv, fv, Kind::*, Table, V};
use cusci_core::{Array, Device, Result};
use cusci_ndimage::*;

fn img(d: &Device) -> Result<Array<f64>> {
    Array::from_vec((0..16).map(|v| v as f64).collect(), &[4, 4], d)
}
fn mask(d: &Device) -> Result<Array<bool>> {
    Array::from_vec(
        vec![
            false, true, true, false, //
            true, true, true, true, //
            false, true, true, false, //
            false, false, true, false,
        ],
        &[4, 4],
        d,
    )
}
fn falses(shape: &[usize], d: &Device) -> Result<Array<bool>> {
    Array::<bool>::zeros(shape, d)
}
fn samp(v: &[f64]) -> DistanceOptions {
    DistanceOptions {
        sampling: Some(v.to_vec()),
        ..Default::default()
    }
}
fn bin(s: &Array<bool>) -> BinaryOptions<'_> {
    BinaryOptions {
        structure: Some(s),
        ..Default::default()
    }
}
fn grey(fp: &Array<bool>) -> GreyOptions<'_> {
    GreyOptions {
        footprint: Some(fp),
        ..Default::default()
    }
}
fn dist(r: (Option<Array<f64>>, Option<Array<i32>>)) -> Result<V> {
    match r.0 {
        Some(a) => fv(a),
        None => Ok(V::N(0)),
    }
}

fn table(_dev: &Device) -> Table {
    let mut t = Table::new();

    // ---------- distance transforms: sampling of the input's rank ----------
    for (name, s) in [
        ("3 values for rank 2", vec![1.0, 2.0, 3.0]),
        ("0 values", vec![]),
        ("a zero", vec![1.0, 0.0]),
        ("a negative", vec![1.0, -1.0]),
        ("NaN", vec![f64::NAN, 1.0]),
        ("infinity", vec![f64::INFINITY, 1.0]),
    ] {
        let s2 = s.clone();
        t.err(
            &format!("distance_transform_edt sampling {name}"),
            Arg,
            move |d| dist(distance_transform_edt(&mask(d)?, &samp(&s2))?),
        );
        t.err(
            &format!("distance_transform_bf sampling {name}"),
            Arg,
            move |d| {
                dist(distance_transform_bf(
                    &mask(d)?,
                    BfMetric::Euclidean,
                    &samp(&s),
                )?)
            },
        );
    }
    t.err(
        "distance_transform_bf taxicab sampling of length 3",
        Arg,
        |d| {
            dist(distance_transform_bf(
                &mask(d)?,
                BfMetric::Taxicab,
                &samp(&[1.0, 1.0, 1.0]),
            )?)
        },
    );
    t.err("distance_transform_edt nothing returned", Arg, |d| {
        let o = DistanceOptions {
            return_distances: false,
            return_indices: false,
            ..Default::default()
        };
        dist(distance_transform_edt(&mask(d)?, &o)?)
    });
    t.err("distance_transform_cdt empty structure", Arg, |d| {
        let s = falses(&[0, 3], d)?;
        let r = distance_transform_cdt(&mask(d)?, &CdtMetric::Structure(&s), true, false)?;
        Ok(V::N(r.0.map_or(0, |a| a.len()) as u64))
    });
    t.err(
        "distance_transform_cdt structure of another rank",
        Shape,
        |d| {
            let s = falses(&[3], d)?;
            let r = distance_transform_cdt(&mask(d)?, &CdtMetric::Structure(&s), true, false)?;
            Ok(V::N(r.0.map_or(0, |a| a.len()) as u64))
        },
    );

    // ---------- binary morphology: SciPy's structure rules ----------
    t.err("binary_dilation zero-size structure", Arg, |d| {
        let s = falses(&[0, 3], d)?;
        bv(binary_dilation(&mask(d)?, &bin(&s))?)
    });
    t.err("binary_erosion zero-size structure", Arg, |d| {
        let s = falses(&[3, 0], d)?;
        bv(binary_erosion(&mask(d)?, &bin(&s))?)
    });
    // SciPy accepts an all-False structure: dilation gives all False, erosion all True
    t.val(
        "binary_dilation all-False structure (SciPy: all False)",
        V::B(vec![4, 4], vec![false; 16]),
        |d| {
            let s = falses(&[3, 3], d)?;
            bv(binary_dilation(&mask(d)?, &bin(&s))?)
        },
    );
    t.val(
        "binary_erosion all-False structure (SciPy: all True)",
        V::B(vec![4, 4], vec![true; 16]),
        |d| {
            let s = falses(&[3, 3], d)?;
            bv(binary_erosion(&mask(d)?, &bin(&s))?)
        },
    );
    t.err("binary_dilation structure of another rank", Shape, |d| {
        let s = Array::<bool>::ones(&[3], d)?;
        bv(binary_dilation(&mask(d)?, &bin(&s))?)
    });
    t.err("binary_dilation origin out of range", Arg, |d| {
        let s = Array::<bool>::ones(&[3, 3], d)?;
        let o = BinaryOptions {
            structure: Some(&s),
            origin: vec![2],
            ..Default::default()
        };
        bv(binary_dilation(&mask(d)?, &o)?)
    });
    t.err("label zero-size structure", Arg, |d| {
        let s = falses(&[0, 3], d)?;
        Ok(V::N(label(&mask(d)?, Some(&s))?.1 as u64))
    });

    // ---------- grey morphology: all-zero footprints ----------
    t.err("grey_dilation all-False footprint", Arg, |d| {
        let fp = falses(&[3, 3], d)?;
        fv(grey_dilation(&img(d)?, &grey(&fp))?)
    });
    t.err("grey_erosion all-False footprint", Arg, |d| {
        let fp = falses(&[3, 3], d)?;
        fv(grey_erosion(&img(d)?, &grey(&fp))?)
    });
    t.err("grey_dilation zero-size footprint", Arg, |d| {
        let fp = falses(&[0, 3], d)?;
        fv(grey_dilation(&img(d)?, &grey(&fp))?)
    });
    t.err("grey_erosion zero-size structure", Arg, |d| {
        let s = Array::<f64>::zeros(&[0, 3], d)?;
        let o = GreyOptions {
            structure: Some(&s),
            ..Default::default()
        };
        fv(grey_erosion(&img(d)?, &o)?)
    });
    t.err("grey_dilation nothing given", Arg, |d| {
        fv(grey_dilation(&img(d)?, &GreyOptions::default())?)
    });
    t.err("grey_dilation size 0", Arg, |d| {
        let o = GreyOptions {
            size: Some(vec![0]),
            ..Default::default()
        };
        fv(grey_dilation(&img(d)?, &o)?)
    });
    t.err("grey_dilation size (2^40, 2^40)", Arg, |d| {
        let o = GreyOptions {
            size: Some(vec![1 << 40, 1 << 40]),
            ..Default::default()
        };
        fv(grey_dilation(&img(d)?, &o)?)
    });
    t.err("grey_dilation size of 3 values for rank 2", Arg, |d| {
        let o = GreyOptions {
            size: Some(vec![3, 3, 3]),
            ..Default::default()
        };
        fv(grey_dilation(&img(d)?, &o)?)
    });

    // ---------- generate_binary_structure: SciPy's values ----------
    let cross = vec![false, true, false, true, true, true, false, true, false];
    for c in [-1i64, 0, i64::MIN, 1] {
        let v = cross.clone();
        t.val(
            &format!("generate_binary_structure(2, {c}) is the cross"),
            V::B(vec![3, 3], v),
            move |d| bv(generate_binary_structure(2, c, d)?),
        );
    }
    t.val(
        "generate_binary_structure(2, i64::MAX) is the square",
        V::B(vec![3, 3], vec![true; 9]),
        |d| bv(generate_binary_structure(2, i64::MAX, d)?),
    );
    t.val(
        "generate_binary_structure(0, 1) is 0-d true",
        V::B(vec![], vec![true]),
        |d| bv(generate_binary_structure(0, 1, d)?),
    );
    t.err("generate_binary_structure(33, 1)", Arg, |d| {
        bv(generate_binary_structure(33, 1, d)?)
    });
    t.err("generate_binary_structure(usize::MAX, 1)", Arg, |d| {
        bv(generate_binary_structure(usize::MAX, 1, d)?)
    });
    // ---------- find_objects: SciPy's list has max_label entries ----------
    let labels = |d: &Device| Array::from_vec(vec![1i32, 0, 2, 2], &[2, 2], d);
    t.val("find_objects max_label=3", V::N(3), move |d| {
        Ok(V::N(find_objects(&labels(d)?, Some(3))?.len() as u64))
    });
    // SciPy: MemoryError
    t.err("find_objects max_label=2^40", Oom, move |d| {
        find_objects(&labels(d)?, Some(1 << 40)).map(|v| V::N(v.len() as u64))
    });
    for (name, m) in [("2^62", 1usize << 62), ("usize::MAX", usize::MAX)] {
        t.err(&format!("find_objects max_label={name}"), Arg, move |d| {
            find_objects(&labels(d)?, Some(m)).map(|v| V::N(v.len() as u64))
        });
    }

    t
}

#[test]
fn bad_input_table() {
    bi::run_in_child("bad_input::bad_input_child", 600);
}

#[test]
fn bad_input_child() {
    bi::child("cusci-ndimage", 35, table);
}
