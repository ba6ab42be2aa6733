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

    extra(&mut t);
    extra2(&mut t);
    t
}

fn x8(d: &Device) -> Result<Array<f64>> {
    Array::from_vec((0..8).map(|v| v as f64).collect(), &[8], d)
}
fn empty(d: &Device) -> Result<Array<f64>> {
    Array::<f64>::zeros(&[0], d)
}
fn scalar(d: &Device) -> Result<Array<f64>> {
    Array::from_vec(vec![3.0], &[], d)
}
fn fo(origin: isize) -> FilterOptions {
    FilterOptions {
        origin: vec![origin],
        ..Default::default()
    }
}
fn go(f: impl FnOnce(&mut GaussianOptions)) -> GaussianOptions {
    let mut o = GaussianOptions::default();
    f(&mut o);
    o
}
fn sz(v: &[usize]) -> Footprint {
    Footprint::Size(v.to_vec())
}
fn n(v: usize) -> Result<V> {
    Ok(V::N(v as u64))
}

type Filt = fn(&Array<f64>, usize, &FilterOptions) -> Result<Array<f64>>;

fn extra(t: &mut Table) {
    // ---------- box filters: sizes 0 and huge, origins outside the window ----------
    let filters: [(&str, Filt); 6] = [
        ("uniform_filter", |x, s, o| uniform_filter(x, &[s], o)),
        ("minimum_filter", |x, s, o| minimum_filter(x, &sz(&[s]), o)),
        ("maximum_filter", |x, s, o| maximum_filter(x, &sz(&[s]), o)),
        ("median_filter", |x, s, o| median_filter(x, &sz(&[s]), o)),
        ("uniform_filter1d", |x, s, o| uniform_filter1d(x, s, -1, o)),
        ("minimum_filter1d", |x, s, o| minimum_filter1d(x, s, -1, o)),
    ];
    for (name, f) in filters {
        if matches!(name, "uniform_filter" | "minimum_filter" | "maximum_filter") {
            // SciPy: a size below 2 leaves the axis alone
            t.val(
                &format!("{name} size 0 (SciPy: the input)"),
                V::F(vec![8], (0..8).map(|v| v as f64).collect()),
                move |d| fv(f(&x8(d)?, 0, &FilterOptions::default())?),
            );
        } else {
            t.err(&format!("{name} size 0"), Arg, move |d| {
                fv(f(&x8(d)?, 0, &FilterOptions::default())?)
            });
        }
        // SciPy: MemoryError at 2^40 (the window's buffers); at 2^62 a segfault (median:
        // MemoryError for a 4 EiB footprint, whose offsets here pass isize::MAX bytes), at
        // usize::MAX an OverflowError
        for (sn, s, k) in [
            ("2^40", 1usize << 40, Oom),
            ("2^62", 1 << 62, Arg),
            ("usize::MAX", usize::MAX, Arg),
        ] {
            t.err(&format!("{name} size {sn}"), k, move |d| {
                fv(f(&x8(d)?, s, &FilterOptions::default())?)
            });
        }
        t.err(&format!("{name} size 3 origin 2"), Arg, move |d| {
            fv(f(&x8(d)?, 3, &fo(2))?)
        });
        t.err(&format!("{name} size 3 origin -3"), Arg, move |d| {
            fv(f(&x8(d)?, 3, &fo(-3))?)
        });
        t.err(&format!("{name} origin isize::MIN"), Arg, move |d| {
            fv(f(&x8(d)?, 3, &fo(isize::MIN))?)
        });
        t.val(
            &format!("{name} of an empty array (SciPy: [])"),
            V::F(vec![0], vec![]),
            move |d| fv(f(&empty(d)?, 3, &FilterOptions::default())?),
        );
    }
    t.val(
        "median_filter size 2^20 on 8 elements (SciPy: all 4)",
        V::F(vec![8], vec![4.0; 8]),
        |d| {
            fv(median_filter(
                &x8(d)?,
                &sz(&[1 << 20]),
                &FilterOptions::default(),
            )?)
        },
    );
    t.err("rank_filter rank 3 of a window of 3", Arg, |d| {
        fv(rank_filter(
            &x8(d)?,
            3,
            &sz(&[3]),
            &FilterOptions::default(),
        )?)
    });
    t.err("rank_filter rank -4 of a window of 3", Arg, |d| {
        fv(rank_filter(
            &x8(d)?,
            -4,
            &sz(&[3]),
            &FilterOptions::default(),
        )?)
    });
    for p in [101.0, -101.0, f64::NAN] {
        t.err(
            &format!("percentile_filter percentile {p}"),
            Arg,
            move |d| {
                fv(percentile_filter(
                    &x8(d)?,
                    p,
                    &sz(&[3]),
                    &FilterOptions::default(),
                )?)
            },
        );
    }
    t.err("uniform_filter axes [1] on 1-d", Arg, |d| {
        let o = FilterOptions {
            axes: Some(vec![1]),
            ..Default::default()
        };
        fv(uniform_filter(&x8(d)?, &[3], &o)?)
    });
    t.err("uniform_filter axes [0, 0]", Arg, |d| {
        let o = FilterOptions {
            axes: Some(vec![0, 0]),
            ..Default::default()
        };
        fv(uniform_filter(&img(d)?, &[3], &o)?)
    });
    t.err("uniform_filter1d axis 1 on 1-d", Arg, |d| {
        fv(uniform_filter1d(&x8(d)?, 3, 1, &FilterOptions::default())?)
    });
    t.err("uniform_filter 3 modes for rank 2", Arg, |d| {
        let o = FilterOptions {
            modes: vec![Mode::Reflect; 3],
            ..Default::default()
        };
        fv(uniform_filter(&img(d)?, &[3], &o)?)
    });

    // ---------- correlate: weights ----------
    t.err("correlate1d empty weights", Arg, |d| {
        fv(correlate1d(&x8(d)?, &[], -1, &FilterOptions::default())?)
    });
    t.err("correlate weights of another rank", Shape, |d| {
        let w = Array::<f64>::ones(&[3], d)?;
        fv(correlate(&img(d)?, &w, &FilterOptions::default())?)
    });
    t.err("convolve zero-size weights", Arg, |d| {
        let w = Array::<f64>::ones(&[0, 3], d)?;
        fv(convolve(&img(d)?, &w, &FilterOptions::default())?)
    });
    t.err("correlate1d weights of 3, origin 2", Arg, |d| {
        fv(correlate1d(&x8(d)?, &[1.0, 1.0, 1.0], -1, &fo(2))?)
    });

    // ---------- Gaussian: sigma, truncate, radius ----------
    // SciPy's gaussian_filter skips the axes whose sigma is not above 1e-15 (NaN and -1 too)
    for (name, sg) in [("NaN", f64::NAN), ("-1", -1.0)] {
        t.val(
            &format!("gaussian_filter sigma {name} (SciPy: the input)"),
            V::F(vec![8], (0..8).map(|v| v as f64).collect()),
            move |d| {
                fv(gaussian_filter(
                    &x8(d)?,
                    &[sg],
                    &GaussianOptions::default(),
                )?)
            },
        );
    }
    // SciPy: OverflowError (the radius of an infinite sigma)
    t.err("gaussian_filter sigma infinity", Arg, |d| {
        fv(gaussian_filter(
            &x8(d)?,
            &[f64::INFINITY],
            &GaussianOptions::default(),
        )?)
    });
    for (name, sg) in [("NaN", f64::NAN), ("-1", -1.0), ("infinity", f64::INFINITY)] {
        t.err(&format!("gaussian_filter1d sigma {name}"), Arg, move |d| {
            fv(gaussian_filter1d(
                &x8(d)?,
                sg,
                -1,
                &GaussianOptions::default(),
            )?)
        });
    }
    t.err(
        "gaussian_filter sigma 1e18 (radius past memory)",
        Arg,
        |d| {
            fv(gaussian_filter(
                &x8(d)?,
                &[1e18],
                &GaussianOptions::default(),
            )?)
        },
    );
    t.err("gaussian_filter truncate 1e300", Arg, |d| {
        let o = go(|o| o.truncate = 1e300);
        fv(gaussian_filter(&x8(d)?, &[1.0], &o)?)
    });
    t.err("gaussian_filter truncate NaN", Arg, |d| {
        let o = go(|o| o.truncate = f64::NAN);
        fv(gaussian_filter(&x8(d)?, &[1.0], &o)?)
    });
    // SciPy: MemoryError (16 TiB of taps), RuntimeError, ValueError
    for (rn, r, k) in [
        ("2^40", 1usize << 40, Oom),
        ("2^62", 1 << 62, Arg),
        ("usize::MAX", usize::MAX, Arg),
    ] {
        t.err(&format!("gaussian_filter radius {rn}"), k, move |d| {
            let o = go(|o| o.radius = Some(vec![r]));
            fv(gaussian_filter(&x8(d)?, &[1.0], &o)?)
        });
    }
    t.err("gaussian_filter 3 sigmas for rank 2", Arg, |d| {
        fv(gaussian_filter(
            &img(d)?,
            &[1.0, 1.0, 1.0],
            &GaussianOptions::default(),
        )?)
    });
    t.val(
        "gaussian_filter of an empty array (SciPy: [])",
        V::F(vec![0], vec![]),
        |d| {
            fv(gaussian_filter(
                &empty(d)?,
                &[1.0],
                &GaussianOptions::default(),
            )?)
        },
    );

    // ---------- interpolation: zoom, shift, rotate, map_coordinates ----------
    for (name, z) in [("NaN", f64::NAN), ("-1", -1.0), ("infinity", f64::INFINITY)] {
        t.err(&format!("zoom {name}"), Arg, move |d| {
            fv(zoom(&x8(d)?, &[z], false, &InterpOptions::default())?)
        });
    }
    t.err("zoom 1e12 (SciPy: MemoryError)", Oom, |d| {
        fv(zoom(&x8(d)?, &[1e12], false, &InterpOptions::default())?)
    });
    t.val("zoom 0 (SciPy: [])", V::F(vec![0], vec![]), |d| {
        fv(zoom(&x8(d)?, &[0.0], false, &InterpOptions::default())?)
    });
    t.err("zoom 2 values for rank 1", Shape, |d| {
        fv(zoom(
            &x8(d)?,
            &[2.0, 2.0],
            false,
            &InterpOptions::default(),
        )?)
    });
    t.err("zoom order 6", Arg, |d| {
        let o = InterpOptions {
            order: 6,
            ..Default::default()
        };
        fv(zoom(&x8(d)?, &[2.0], false, &o)?)
    });
    t.val(
        "shift by NaN (SciPy: all cval)",
        V::F(vec![8], vec![0.0; 8]),
        |d| fv(shift(&x8(d)?, &[f64::NAN], &InterpOptions::default())?),
    );
    for (name, v) in [("NaN", f64::NAN), ("infinity", f64::INFINITY)] {
        t.err(&format!("rotate by {name}"), Arg, move |d| {
            fv(rotate(
                &img(d)?,
                v,
                (1, 0),
                true,
                &InterpOptions::default(),
            )?)
        });
    }
    t.err("shift 2 values for rank 1", Shape, |d| {
        fv(shift(&x8(d)?, &[1.0, 1.0], &InterpOptions::default())?)
    });
    t.err("rotate of a 1-d array", Arg, |d| {
        fv(rotate(
            &x8(d)?,
            10.0,
            (1, 0),
            true,
            &InterpOptions::default(),
        )?)
    });
    // SciPy accepts equal axes for a 2-D input (the rotation acts on axes (0, 1))
    t.val(
        "rotate axes (0, 0) (SciPy: rotated in (0, 1))",
        V::F(
            vec![5, 4],
            vec![
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                1.3050203761467094,
                3.1318433086278965,
                5.1923696502320595,
                0.0,
                5.734855121055627,
                7.5,
                9.265144878944374,
                0.0,
                9.80763034976794,
                11.868156691372105,
                13.694979623853294,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
        ),
        |d| {
            fv(rotate(
                &img(d)?,
                10.0,
                (0, 0),
                true,
                &InterpOptions::default(),
            )?)
        },
    );
    t.err("rotate axes (0, 5)", Arg, |d| {
        fv(rotate(
            &img(d)?,
            10.0,
            (0, 5),
            true,
            &InterpOptions::default(),
        )?)
    });
    // SciPy: RuntimeError("invalid shape for coordinate array")
    t.err(
        "map_coordinates coordinates of 3 rows for rank 2",
        Shape,
        |d| {
            let c = Array::<f64>::zeros(&[3, 4], d)?;
            fv(map_coordinates(&img(d)?, &c, &InterpOptions::default())?)
        },
    );
    t.err("map_coordinates 0-d coordinates", Shape, |d| {
        let c = Array::from_vec(vec![1.0], &[], d)?;
        fv(map_coordinates(&img(d)?, &c, &InterpOptions::default())?)
    });
    t.err("map_coordinates order 6", Arg, |d| {
        let c = Array::<f64>::zeros(&[2, 4], d)?;
        let o = InterpOptions {
            order: 6,
            ..Default::default()
        };
        fv(map_coordinates(&img(d)?, &c, &o)?)
    });
    t.val(
        "map_coordinates NaN coordinate (SciPy: cval 0)",
        V::F(vec![1], vec![0.0]),
        |d| {
            let c = Array::from_vec(vec![f64::NAN, 1.0], &[2, 1], d)?;
            let o = InterpOptions {
                order: 1,
                ..Default::default()
            };
            fv(map_coordinates(&img(d)?, &c, &o)?)
        },
    );
    t.err("spline_filter order 6", Arg, |d| {
        fv(spline_filter(&x8(d)?, 6, Mode::Mirror)?)
    });
    t.err("affine_transform output shape 2^62 x 2^62", Arg, |d| {
        let m = Matrix::Diagonal(vec![1.0, 1.0]);
        fv(affine_transform(
            &img(d)?,
            &m,
            &[0.0, 0.0],
            Some(&[1 << 62, 1 << 62]),
            &InterpOptions::default(),
        )?)
    });

    // ---------- labels and measurements ----------
    t.err("find_objects max_label 2^62", Arg, |d| {
        let l = Array::from_vec(vec![1i32, 0, 2, 2], &[4], d)?;
        n(find_objects(&l, Some(1 << 62))?.len())
    });
    t.err("find_objects max_label usize::MAX", Arg, |d| {
        let l = Array::from_vec(vec![1i32, 0, 2, 2], &[4], d)?;
        n(find_objects(&l, Some(usize::MAX))?.len())
    });
    t.val(
        "find_objects max_label 0 (SciPy: the labels' maximum, 2)",
        V::N(2),
        |d| {
            let l = Array::from_vec(vec![1i32, 0, 2, 2], &[4], d)?;
            n(find_objects(&l, Some(0))?.len())
        },
    );
    t.err("find_objects of float labels", DType, |d| {
        n(find_objects(&x8(d)?, None)?.len())
    });
    t.err("label structure 5x5", Arg, |d| {
        let s = Array::<bool>::ones(&[5, 5], d)?;
        n(label(&mask(d)?, Some(&s))?.1)
    });
    t.err("label structure not symmetric", Arg, |d| {
        let s = Array::from_vec(
            vec![true, false, false, false, true, false, false, false, false],
            &[3, 3],
            d,
        )?;
        n(label(&mask(d)?, Some(&s))?.1)
    });
    t.err("label structure of rank 1 for rank 2", Shape, |d| {
        let s = Array::<bool>::ones(&[3], d)?;
        n(label(&mask(d)?, Some(&s))?.1)
    });
    t.val(
        "label of an empty array (SciPy: 0 features)",
        V::N(0),
        |d| n(label(&Array::<bool>::zeros(&[0], d)?, None)?.1),
    );
    t.val("label of a 0-d true (SciPy: 1 feature)", V::N(1), |d| {
        n(label(&Array::from_vec(vec![true], &[], d)?, None)?.1)
    });
    t.err("sum labels of another shape", Shape, |d| {
        let l = Array::from_vec(vec![1i32, 2, 3], &[3], d)?;
        Ok(hv_(sum(&x8(d)?, Some(&l), None)?))
    });
    t.err("mean labels of another shape", Shape, |d| {
        let l = Array::<i32>::ones(&[4, 2], d)?;
        Ok(hv_(mean(&x8(d)?, Some(&l), None)?))
    });
    t.err("center_of_mass labels of another shape", Shape, |d| {
        let l = Array::<i32>::ones(&[3], d)?;
        Ok(V::N(center_of_mass(&x8(d)?, Some(&l), None)?.len() as u64))
    });
    t.err("histogram 0 bins", Arg, |d| {
        Ok(V::N(
            histogram::<f64, i32>(&x8(d)?, 0.0, 8.0, 0, None, None)?.len() as u64,
        ))
    });
    t.err("histogram 2^62 bins", Arg, |d| {
        Ok(V::N(
            histogram::<f64, i32>(&x8(d)?, 0.0, 8.0, 1 << 62, None, None)?.len() as u64,
        ))
    });
    t.val("sum of an empty array (SciPy: 0)", bi::hv(&[0.0]), |d| {
        Ok(hv_(sum::<f64, i32>(&empty(d)?, None, None)?))
    });
    t.val(
        "mean of an empty array (SciPy: NaN)",
        bi::hv(&[f64::NAN]),
        |d| Ok(hv_(mean::<f64, i32>(&empty(d)?, None, None)?)),
    );
    t.val("sum of a 0-d array (SciPy: 3)", bi::hv(&[3.0]), |d| {
        Ok(hv_(sum::<f64, i32>(&scalar(d)?, None, None)?))
    });

    // ---------- 0-d inputs ----------
    t.val(
        "uniform_filter of a 0-d array (SciPy: itself)",
        bi::s1(3.0),
        |d| {
            fv(uniform_filter(
                &scalar(d)?,
                &[3],
                &FilterOptions::default(),
            )?)
        },
    );
    t.val(
        "gaussian_filter of a 0-d array (SciPy: itself)",
        bi::s1(3.0),
        |d| {
            fv(gaussian_filter(
                &scalar(d)?,
                &[1.0],
                &GaussianOptions::default(),
            )?)
        },
    );
    t.err("uniform_filter1d of a 0-d array", Arg, |d| {
        fv(uniform_filter1d(
            &scalar(d)?,
            3,
            -1,
            &FilterOptions::default(),
        )?)
    });

    // ---------- distance transforms: empty and 0-d ----------
    t.val(
        "distance_transform_edt of an empty array (SciPy: [])",
        V::F(vec![0], vec![]),
        |d| {
            dist(distance_transform_edt(
                &Array::<bool>::zeros(&[0], d)?,
                &DistanceOptions::default(),
            )?)
        },
    );
    // SciPy: TypeError for a 0-d input, whatever the metric and value
    for (mn, m) in [
        ("chessboard", CdtMetric::Chessboard),
        ("taxicab", CdtMetric::Taxicab),
    ] {
        for v in [true, false] {
            let m = m.clone();
            t.err(
                &format!("distance_transform_cdt {mn} of a 0-d {v}"),
                Arg,
                move |d| {
                    let x = Array::from_vec(vec![v], &[], d)?;
                    let r = distance_transform_cdt(&x, &m, true, false)?;
                    Ok(V::N(r.0.map_or(0, |a| a.len()) as u64))
                },
            );
        }
    }
}

/// More huge sizes and non-finite coordinates (SciPy 1.17.1's outcome in each comment).
fn extra2(t: &mut Table) {
    // ---------- histogram bins ----------
    // SciPy: MemoryError (8 TiB of counts), ValueError
    for (bn, b, k) in [("2^40", 1usize << 40, Oom), ("usize::MAX", usize::MAX, Arg)] {
        t.err(&format!("histogram {bn} bins"), k, move |d| {
            Ok(V::N(
                histogram::<f64, i32>(&x8(d)?, 0.0, 8.0, b, None, None)?.len() as u64,
            ))
        });
    }

    // ---------- Gaussian: huge derivative orders, the public kernel ----------
    // SciPy: MemoryError (order + 1 coefficients), ValueError
    for (on, ord, k) in [("2^40", 1usize << 40, Oom), ("usize::MAX", usize::MAX, Arg)] {
        t.err(&format!("gaussian_filter1d order {on}"), k, move |d| {
            let o = go(|o| o.order = vec![ord]);
            fv(gaussian_filter1d(&x8(d)?, 1.0, -1, &o)?)
        });
    }
    for (rn, r, k) in [
        ("2^40", 1usize << 40, Oom),
        ("2^62", 1 << 62, Arg),
        ("usize::MAX", usize::MAX, Arg),
    ] {
        t.err(&format!("gaussian_kernel1d radius {rn}"), k, move |_| {
            n(gaussian_kernel1d(1.0, 0, r)?.len())
        });
    }
    t.val(
        "gaussian_kernel1d radius 0 (SciPy: [1])",
        bi::hv(&[1.0]),
        |_| Ok(bi::hv(&gaussian_kernel1d(1.0, 0, 0)?)),
    );

    // ---------- footprints past isize::MAX ----------
    // SciPy: ValueError ("array is too big") for a footprint of 2^80 points
    t.err("median_filter size 2^40 x 2^40", Arg, |d| {
        fv(median_filter(
            &img(d)?,
            &sz(&[1 << 40, 1 << 40]),
            &FilterOptions::default(),
        )?)
    });
    t.err("median_filter_as size 2^40 x 2^40", Arg, |d| {
        fv(median_filter_as::<f64, f64>(
            &img(d)?,
            &sz(&[1 << 40, 1 << 40]),
            &FilterOptions::default(),
        )?)
    });
    t.err("rank_filter size 2^40 x 2^40", Arg, |d| {
        fv(rank_filter(
            &img(d)?,
            1,
            &sz(&[1 << 40, 1 << 40]),
            &FilterOptions::default(),
        )?)
    });
    t.err("percentile_filter size 2^40", Oom, |d| {
        fv(percentile_filter(
            &x8(d)?,
            50.0,
            &sz(&[1 << 40]),
            &FilterOptions::default(),
        )?)
    });

    // ---------- output shapes of the transforms ----------
    // SciPy: MemoryError (8 TiB), ValueError ("array is too big")
    t.err("affine_transform output shape 2^40", Oom, |d| {
        fv(affine_transform(
            &x8(d)?,
            &Matrix::Diagonal(vec![1.0]),
            &[0.0],
            Some(&[1 << 40]),
            &InterpOptions::default(),
        )?)
    });
    t.err("affine_transform output shape 0 x 2^62", Arg, |d| {
        fv(affine_transform(
            &img(d)?,
            &Matrix::Diagonal(vec![1.0, 1.0]),
            &[0.0, 0.0],
            Some(&[0, 1 << 62]),
            &InterpOptions::default(),
        )?)
    });

    // ---------- non-finite coordinates: SciPy's cval where its test `c > -1` fails ----------
    let o = |order: usize, mode: Mode, cval: f64| InterpOptions {
        order,
        mode,
        cval,
        ..Default::default()
    };
    for (sn, sv) in [("NaN", f64::NAN), ("infinity", f64::INFINITY)] {
        for order in [0, 1, 3] {
            t.val(
                &format!("shift by {sn} order {order} cval 5 (SciPy: all 5)"),
                V::F(vec![8], vec![5.0; 8]),
                move |d| fv(shift(&x8(d)?, &[sv], &o(order, Mode::Constant, 5.0))?),
            );
        }
    }
    // SciPy: in mode nearest the NaN reaches the spline weights
    t.val(
        "shift by NaN order 1 mode nearest (SciPy: NaN)",
        V::F(vec![8], vec![f64::NAN; 8]),
        move |d| fv(shift(&x8(d)?, &[f64::NAN], &o(1, Mode::Nearest, 0.0))?),
    );
    for (mn, m, want) in [
        ("constant", Mode::Constant, 7.0),
        ("reflect", Mode::Reflect, 7.0),
        ("mirror", Mode::Mirror, 7.0),
        ("wrap", Mode::Wrap, 7.0),
        ("grid-wrap", Mode::GridWrap, 7.0),
        ("grid-mirror", Mode::GridMirror, 7.0),
        ("nearest", Mode::Nearest, f64::NAN),
        ("grid-constant", Mode::GridConstant, f64::NAN),
    ] {
        for order in [1, 3] {
            t.val(
                &format!("map_coordinates NaN order {order} mode {mn} cval 7 (SciPy: {want})"),
                V::F(vec![1], vec![want]),
                move |d| {
                    let c = Array::from_vec(vec![f64::NAN, 1.0], &[2, 1], d)?;
                    fv(map_coordinates(&img(d)?, &c, &o(order, m, 7.0))?)
                },
            );
        }
    }
    for (cn, c) in [
        ("infinity", f64::INFINITY),
        ("-infinity", f64::NEG_INFINITY),
    ] {
        t.val(
            &format!("map_coordinates {cn} order 1 (SciPy: cval 0)"),
            V::F(vec![1], vec![0.0]),
            move |d| {
                let c = Array::from_vec(vec![c, 1.0], &[2, 1], d)?;
                fv(map_coordinates(&img(d)?, &c, &o(1, Mode::Constant, 0.0))?)
            },
        );
    }
    t.val(
        "map_coordinates -infinity order 1 mode reflect (SciPy: cval 0)",
        V::F(vec![1], vec![0.0]),
        move |d| {
            let c = Array::from_vec(vec![f64::NEG_INFINITY, 1.0], &[2, 1], d)?;
            fv(map_coordinates(&img(d)?, &c, &o(1, Mode::Reflect, 0.0))?)
        },
    );
}

fn hv_(v: Vec<f64>) -> V {
    bi::hv(&v)
}

#[test]
fn bad_input_table() {
    bi::run_in_child("bad_input::bad_input_child", 600);
}

#[test]
fn bad_input_child() {
    bi::child("cusci-ndimage", 200, table);
}
