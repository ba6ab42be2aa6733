//! Binary and grey morphology and the structure helpers against SciPy (golden file
//! `tests/data/ndimage_morphology.npz`, written by `tests/golden/gen.py ndimage_morphology`), on
//! every device; bad inputs give the same typed errors everywhere.
//!
//! Members: `<op>_<case>_{in,s,p,o,m,out}` for binary morphology (`p` = [iterations,
//! border_value], `o` the origin, `m` an optional mask); `<op>_<case>_<mode>_{p,size,fp,st,o,out}`
//! for grey morphology on `grey_in` (`p` = [mode index in reflect/constant/nearest/mirror/wrap,
//! cval]).

use cusci_core::npy::{load_npz, DynArray};
use cusci_core::testing::for_each_device;
use cusci_core::{Array, Device, Element, Error};
use cusci_ndimage::*;
use std::collections::BTreeMap;

const NPZ: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/ndimage_morphology.npz"
);

fn golden() -> BTreeMap<String, DynArray> {
    load_npz(NPZ, &Device::Cpu)
        .expect("golden file")
        .into_iter()
        .collect()
}

fn get<T: Element>(g: &BTreeMap<String, DynArray>, k: &str, dev: &Device) -> Array<T> {
    g.get(k)
        .unwrap_or_else(|| panic!("member {k}"))
        .clone()
        .into_array::<T>()
        .unwrap_or_else(|e| panic!("{k}: {e}"))
        .to_device(dev)
        .unwrap()
}

#[test]
fn structures() {
    let g = golden();
    for rank in 1..=3usize {
        for conn in 1..=3i64 {
            let s = generate_binary_structure(rank, conn, &Device::Cpu).unwrap();
            let e = get::<bool>(&g, &format!("gbs_r{rank}_c{conn}_out"), &Device::Cpu);
            assert_eq!(s.shape(), e.shape());
            assert_eq!(
                s.to_vec().unwrap(),
                e.to_vec().unwrap(),
                "rank {rank} conn {conn}"
            );
        }
    }
    for it in [2i64, 3] {
        let s = get::<bool>(&g, &format!("its_{it}_in"), &Device::Cpu);
        let (o, org) = iterate_structure(&s, it, Some(&[1, 0])).unwrap();
        let e = get::<bool>(&g, &format!("its_{it}_out"), &Device::Cpu);
        assert_eq!(o.shape(), e.shape());
        assert_eq!(o.to_vec().unwrap(), e.to_vec().unwrap());
        let eo = get::<i64>(&g, &format!("its_{it}_origin"), &Device::Cpu);
        assert_eq!(org.unwrap(), eo.to_vec().unwrap());
    }
    // iterations < 2: a copy
    let s = generate_binary_structure(2, 2, &Device::Cpu).unwrap();
    assert_eq!(
        iterate_structure(&s, 1, None).unwrap().0.to_vec().unwrap(),
        s.to_vec().unwrap()
    );
    // rank 0: a single true
    assert_eq!(
        generate_binary_structure(0, 1, &Device::Cpu)
            .unwrap()
            .to_vec()
            .unwrap(),
        vec![true]
    );
}

#[test]
fn binary_golden() {
    let g = golden();
    let cases: Vec<String> = g
        .keys()
        .filter(|k| k.starts_with("binary_") && k.ends_with("_out"))
        .map(|k| k.trim_end_matches("_out").to_string())
        .collect();
    assert_eq!(cases.len(), 40);
    for_each_device(|dev| {
        for c in &cases {
            let x = get::<bool>(&g, &format!("{c}_in"), dev);
            let s = get::<bool>(&g, &format!("{c}_s"), dev);
            let p = get::<i64>(&g, &format!("{c}_p"), dev).to_vec().unwrap();
            let o = get::<i64>(&g, &format!("{c}_o"), dev).to_vec().unwrap();
            let m = g
                .contains_key(&format!("{c}_m"))
                .then(|| get::<bool>(&g, &format!("{c}_m"), dev));
            let opts = BinaryOptions {
                structure: Some(&s),
                iterations: p[0],
                mask: m.as_ref(),
                border_value: p[1] != 0,
                origin: o,
                brute_force: false,
            };
            let r = if c.starts_with("binary_erosion") {
                binary_erosion(&x, &opts)
            } else if c.starts_with("binary_dilation") {
                binary_dilation(&x, &opts)
            } else if c.starts_with("binary_opening") {
                binary_opening(&x, &opts)
            } else {
                binary_closing(&x, &opts)
            }
            .unwrap_or_else(|e| panic!("{c}: {e}"));
            let e = get::<bool>(&g, &format!("{c}_out"), &Device::Cpu);
            assert_eq!(r.shape(), e.shape(), "{c}");
            assert_eq!(r.to_vec().unwrap(), e.to_vec().unwrap(), "{c} on {dev}");
        }
        for c in ["a", "b"] {
            let x = get::<bool>(&g, &format!("hit_or_miss_{c}_in"), dev);
            let r = binary_hit_or_miss(&x, None, None, &[], None).unwrap();
            let e = get::<bool>(&g, &format!("hit_or_miss_{c}_out"), &Device::Cpu);
            assert_eq!(r.to_vec().unwrap(), e.to_vec().unwrap(), "hit_or_miss {c}");
            let x = get::<bool>(&g, &format!("propagation_{c}_in"), dev);
            let m = get::<bool>(&g, &format!("propagation_{c}_m"), dev);
            let r = binary_propagation(
                &x,
                &BinaryOptions {
                    mask: Some(&m),
                    ..Default::default()
                },
            )
            .unwrap();
            let e = get::<bool>(&g, &format!("propagation_{c}_out"), &Device::Cpu);
            assert_eq!(r.to_vec().unwrap(), e.to_vec().unwrap(), "propagation {c}");
            let x = get::<bool>(&g, &format!("fill_holes_{c}_in"), dev);
            let r = binary_fill_holes(&x, None, &[]).unwrap();
            let e = get::<bool>(&g, &format!("fill_holes_{c}_out"), &Device::Cpu);
            assert_eq!(r.to_vec().unwrap(), e.to_vec().unwrap(), "fill_holes {c}");
        }
        let x = get::<bool>(&g, "hit_or_miss_c_in", dev);
        let s1 = get::<bool>(&g, "hit_or_miss_c_s1", dev);
        let s2 = get::<bool>(&g, "hit_or_miss_c_s2", dev);
        let r = binary_hit_or_miss(&x, Some(&s1), Some(&s2), &[], None).unwrap();
        let e = get::<bool>(&g, "hit_or_miss_c_out", &Device::Cpu);
        assert_eq!(r.to_vec().unwrap(), e.to_vec().unwrap(), "hit_or_miss c");
    });
}

#[test]
fn grey_golden() {
    let g = golden();
    let modes = [
        Mode::Reflect,
        Mode::Constant,
        Mode::Nearest,
        Mode::Mirror,
        Mode::Wrap,
    ];
    let cases: Vec<String> = g
        .keys()
        .filter(|k| {
            k.ends_with("_out")
                && !k.starts_with("binary")
                && g.contains_key(&k.replace("_out", "_p"))
                && !k.starts_with("hit")
        })
        .filter(|k| {
            ["grey_", "morphological_", "white_", "black_"]
                .iter()
                .any(|p| k.starts_with(p))
        })
        .map(|k| k.trim_end_matches("_out").to_string())
        .collect();
    assert!(cases.len() > 80, "{} grey cases", cases.len());
    for_each_device(|dev| {
        let x = get::<f64>(&g, "grey_in", dev);
        for c in &cases {
            let p = get::<f64>(&g, &format!("{c}_p"), dev).to_vec().unwrap();
            let size = g.contains_key(&format!("{c}_size")).then(|| {
                get::<i64>(&g, &format!("{c}_size"), dev)
                    .to_vec()
                    .unwrap()
                    .iter()
                    .map(|&v| v as usize)
                    .collect()
            });
            let fp = g
                .contains_key(&format!("{c}_fp"))
                .then(|| get::<bool>(&g, &format!("{c}_fp"), dev));
            let st = g
                .contains_key(&format!("{c}_st"))
                .then(|| get::<f64>(&g, &format!("{c}_st"), dev));
            let o = GreyOptions {
                size,
                footprint: fp.as_ref(),
                structure: st.as_ref(),
                mode: modes[p[0] as usize],
                cval: p[1],
                origin: get::<i64>(&g, &format!("{c}_o"), dev).to_vec().unwrap(),
            };
            let op = c.rsplitn(3, '_').last().unwrap();
            let r = match op {
                "grey_erosion" => grey_erosion(&x, &o),
                "grey_dilation" => grey_dilation(&x, &o),
                "grey_opening" => grey_opening(&x, &o),
                "grey_closing" => grey_closing(&x, &o),
                "morphological_gradient" => morphological_gradient(&x, &o),
                "morphological_laplace" => morphological_laplace(&x, &o),
                "white_tophat" => white_tophat(&x, &o),
                "black_tophat" => black_tophat(&x, &o),
                _ => panic!("unknown op {op} in {c}"),
            }
            .unwrap_or_else(|e| panic!("{c}: {e}"));
            let e = get::<f64>(&g, &format!("{c}_out"), &Device::Cpu);
            cusci_core::testing::assert_allclose(&r, &e, 1e-12, 1e-12, &format!("{c} on {dev}"));
        }
    });
}

#[test]
fn grey_integer_types_match_f64() {
    let x: Vec<i32> = (0..7 * 9).map(|i| ((i * 37) % 23) - 11).collect();
    for_each_device(|dev| {
        let xi = Array::from_vec(x.clone(), &[7, 9], dev).unwrap();
        let xf = xi.astype::<f64>().unwrap();
        for mode in [Mode::Reflect, Mode::Constant, Mode::Wrap] {
            let o = GreyOptions {
                size: Some(vec![3, 2]),
                mode,
                cval: 2.0,
                ..Default::default()
            };
            let a = grey_dilation(&xi, &o).unwrap().astype::<f64>().unwrap();
            let b = grey_dilation(&xf, &o).unwrap();
            assert_eq!(a.to_vec().unwrap(), b.to_vec().unwrap());
            let a = grey_erosion(&xi.astype::<u8>().unwrap(), &o)
                .unwrap()
                .astype::<f64>()
                .unwrap();
            let b = grey_erosion(&xi.astype::<u8>().unwrap().astype::<f64>().unwrap(), &o).unwrap();
            assert_eq!(a.to_vec().unwrap(), b.to_vec().unwrap());
        }
    });
}

/// Integer images as SciPy's C code treats them (values from SciPy 1.17.1): a structure's first
/// term added in double and the others cast to the element type and added there (u8 wraps),
/// `cval` read as the element type in the n-D window (`-2.0` is 254) but as a double in the
/// separable box (its passes stored into u8: `-2.0` stored as 254, `300.5` as 44).
#[test]
fn grey_integer_images_follow_scipys_casts() {
    for_each_device(|dev| {
        let o = |mode: Mode, cval: f64| GreyOptions {
            mode,
            cval,
            ..Default::default()
        };
        let x = Array::from_vec(vec![51i32, 90, -94, -72], &[4], dev).unwrap();
        let s = Array::from_vec(vec![-1.3, 0.9, 0.4], &[3], dev).unwrap();
        let so = GreyOptions {
            structure: Some(&s),
            ..o(Mode::Nearest, 0.0)
        };
        assert_eq!(
            grey_erosion(&x, &so).unwrap().to_vec().unwrap(),
            [51, -94, -94, -92]
        );
        assert_eq!(
            grey_dilation(&x, &so).unwrap().to_vec().unwrap(),
            [89, 90, 90, -72]
        );
        let u = Array::from_vec(vec![250u8, 10, 3, 200], &[4], dev).unwrap();
        let s2 = Array::from_vec(vec![0.0, 10.7, -3.2], &[3], dev).unwrap();
        let so = GreyOptions {
            structure: Some(&s2),
            ..o(Mode::Reflect, 0.0)
        };
        assert_eq!(
            grey_dilation(&u, &so).unwrap().to_vec().unwrap(),
            [246, 246, 200, 210]
        );
        assert_eq!(
            grey_erosion(&u, &so).unwrap().to_vec().unwrap(),
            [13, 0, 10, 3]
        );
        let boxed = GreyOptions {
            size: Some(vec![3]),
            ..o(Mode::Constant, -2.0)
        };
        assert_eq!(
            grey_erosion(&u, &boxed).unwrap().to_vec().unwrap(),
            [254, 3, 3, 254]
        );
        let fp = Array::from_vec(vec![true, false, true], &[3], dev).unwrap();
        let holed = GreyOptions {
            footprint: Some(&fp),
            ..o(Mode::Constant, -2.0)
        };
        assert_eq!(
            grey_erosion(&u, &holed).unwrap().to_vec().unwrap(),
            [10, 3, 10, 3]
        );
        let boxed = GreyOptions {
            size: Some(vec![3]),
            ..o(Mode::Constant, 300.5)
        };
        assert_eq!(
            grey_dilation(&u, &boxed).unwrap().to_vec().unwrap(),
            [44, 250, 200, 44]
        );
        let u2 = u.reshape(&[2, 2]).unwrap();
        let b2 = GreyOptions {
            size: Some(vec![2, 2]),
            ..o(Mode::Constant, -2.0)
        };
        assert_eq!(
            grey_erosion(&u2, &b2).unwrap().to_vec().unwrap(),
            [254, 254, 254, 3]
        );
        let b2 = GreyOptions {
            size: Some(vec![2, 2]),
            ..o(Mode::Constant, 300.5)
        };
        assert_eq!(
            grey_dilation(&u2, &b2).unwrap().to_vec().unwrap(),
            [250, 44, 44, 44]
        );
    });
}

/// Binary morphology on sizes around the warp and block edges, every device against the CPU.
#[test]
fn binary_edge_sizes_match_cpu() {
    for n in [0usize, 1, 2, 31, 32, 33, 257] {
        let x: Vec<bool> = (0..n * 3).map(|i| (i * 7919) % 5 < 3).collect();
        let cpu = Array::from_vec(x.clone(), &[n, 3], &Device::Cpu).unwrap();
        let s = generate_binary_structure(2, 2, &Device::Cpu).unwrap();
        let want_e = binary_erosion(
            &cpu,
            &BinaryOptions {
                structure: Some(&s),
                border_value: true,
                ..Default::default()
            },
        )
        .unwrap();
        let want_c = binary_closing(
            &cpu,
            &BinaryOptions {
                iterations: 2,
                ..Default::default()
            },
        )
        .unwrap();
        let want_f = binary_fill_holes(&cpu, None, &[]).unwrap();
        for_each_device(|dev| {
            let a = cpu.to_device(dev).unwrap();
            let s = s.to_device(dev).unwrap();
            let e = binary_erosion(
                &a,
                &BinaryOptions {
                    structure: Some(&s),
                    border_value: true,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(
                e.to_vec().unwrap(),
                want_e.to_vec().unwrap(),
                "erosion n={n}"
            );
            let c = binary_closing(
                &a,
                &BinaryOptions {
                    iterations: 2,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(
                c.to_vec().unwrap(),
                want_c.to_vec().unwrap(),
                "closing n={n}"
            );
            let f = binary_fill_holes(&a, None, &[]).unwrap();
            assert_eq!(f.to_vec().unwrap(), want_f.to_vec().unwrap(), "fill n={n}");
        });
    }
}

/// Binary erosion against a naive definition (AND over the structure, origin shift), with a
/// view as input.
#[test]
fn binary_erosion_naive_oracle_on_a_view() {
    let full: Vec<f32> = (0..12 * 10)
        .map(|i| if (i * 31) % 7 < 5 { 1.0 } else { 0.0 })
        .collect();
    let a = Array::from_vec(full, &[12, 10], &Device::Cpu)
        .unwrap()
        .slice_axis(1, Some(1), Some(9), 1)
        .unwrap();
    let x = a.to_vec().unwrap();
    let (h, w) = (12i64, 8i64);
    let want: Vec<bool> = (0..h * w)
        .map(|i| {
            let (r, c) = (i / w, i % w);
            // cross structure, origin (0, 1): reads (r + dr, c + dc - 1)
            [(-1, 0), (0, -1), (0, 0), (0, 1), (1, 0)]
                .iter()
                .all(|&(dr, dc)| {
                    let (rr, cc) = (r + dr, c + dc - 1);
                    rr >= 0 && rr < h && cc >= 0 && cc < w && x[(rr * w + cc) as usize] != 0.0
                })
        })
        .collect();
    for_each_device(|dev| {
        let a = a.to_device(dev).unwrap();
        let e = binary_erosion(
            &a,
            &BinaryOptions {
                origin: vec![0, 1],
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(e.to_vec().unwrap(), want);
    });
}

#[test]
fn bad_inputs_same_errors() {
    for_each_device(|dev| {
        let a = Array::<u8>::zeros(&[4, 5], dev).unwrap();
        let s1 = generate_binary_structure(1, 1, dev).unwrap();
        let e = binary_erosion(
            &a,
            &BinaryOptions {
                structure: Some(&s1),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
        let e = binary_dilation(
            &a,
            &BinaryOptions {
                origin: vec![2],
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
        let m = Array::<bool>::zeros(&[4, 4], dev).unwrap();
        let e = binary_erosion(
            &a,
            &BinaryOptions {
                mask: Some(&m),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
        let c = Array::<cusci_core::c64>::zeros(&[4], dev).unwrap();
        assert!(matches!(
            binary_erosion(&c, &BinaryOptions::default()).unwrap_err(),
            Error::UnsupportedDType { .. }
        ));
        let f = Array::<f64>::zeros(&[4, 5], dev).unwrap();
        let e = grey_erosion(&f, &GreyOptions::default()).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
        let e = grey_dilation(
            &f,
            &GreyOptions {
                footprint: Some(&s1),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
        let e = grey_dilation(
            &f,
            &GreyOptions {
                size: Some(vec![1, 2, 3]),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    });
}

#[test]
fn repeating_until_stable_without_the_origin_converges_or_errs() {
    // a structure without its origin: a step neither only removes nor only adds elements, so
    // iterations < 1 may cycle (SciPy loops forever); converging cases give SciPy's result
    for_each_device(|dev| {
        let st = Array::from_vec(vec![true, false, true], &[3], dev).unwrap();
        let x = Array::from_vec(vec![0u8, 0, 1, 0, 1, 1, 0], &[7], dev).unwrap();
        let o = BinaryOptions {
            structure: Some(&st),
            iterations: -1,
            ..Default::default()
        };
        // scipy.ndimage.binary_erosion / binary_dilation(x, [1, 0, 1], iterations=-1)
        let e = binary_erosion(&x, &o).unwrap();
        assert_eq!(e.to_vec().unwrap(), vec![false; 7], "{dev}");
        let d = binary_dilation(&x, &o).unwrap();
        assert_eq!(d.to_vec().unwrap(), vec![true; 7], "{dev}");
        // a cycle (SciPy hangs): erosion of this 6 x 3 image by [[1], [0], [1]] under a mask,
        // border 1, alternates between two states
        let st2 = Array::from_vec(vec![true, false, true], &[3, 1], dev).unwrap();
        let x2: Vec<u8> = vec![1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 0];
        let x2 = Array::from_vec(x2, &[6, 3], dev).unwrap();
        let m: Vec<bool> = [0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1]
            .iter()
            .map(|&v| v == 1)
            .collect();
        let m = Array::from_vec(m, &[6, 3], dev).unwrap();
        let o2 = BinaryOptions {
            structure: Some(&st2),
            iterations: -1,
            mask: Some(&m),
            border_value: true,
            ..Default::default()
        };
        let e = binary_erosion(&x2, &o2).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{dev}: {e}");
        // with a number of iterations it simply runs them
        let o3 = BinaryOptions {
            iterations: 5,
            ..o2.clone()
        };
        assert!(binary_erosion(&x2, &o3).is_ok(), "{dev}");
    });
}

/// `binary_hit_or_miss` on patterns that touch the array's edges, against SciPy
/// (`tests/data/hit_or_miss_edges.npz`, `tests/golden/gen.py ndimage_parity`): the miss half
/// counts the outside as background, the hit half does not (issue 32). Structures, origins
/// (one per half), 1-D to 3-D, even-shaped structures; every device, bool and f64 input.
#[test]
fn hit_or_miss_edges_golden() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/hit_or_miss_edges.npz"
    );
    let g: BTreeMap<String, DynArray> = load_npz(path, &Device::Cpu)
        .expect("golden file")
        .into_iter()
        .collect();
    let cases: Vec<String> = g
        .keys()
        .filter(|k| k.ends_with("_out"))
        .map(|k| {
            k.trim_start_matches("hom_")
                .trim_end_matches("_out")
                .to_string()
        })
        .collect();
    assert_eq!(cases.len(), 14, "{cases:?}");
    let mut trues = 0;
    for_each_device(|dev| {
        for c in &cases {
            let key = |m: &str| format!("hom_{c}_{m}");
            let x = get::<bool>(&g, &key("in"), dev);
            let s1 = g
                .contains_key(&key("s1"))
                .then(|| get::<bool>(&g, &key("s1"), dev));
            let s2 = g
                .contains_key(&key("s2"))
                .then(|| get::<bool>(&g, &key("s2"), dev));
            let o1 = get::<i64>(&g, &key("o1"), &Device::Cpu).to_vec().unwrap();
            let o2 = g
                .contains_key(&key("o2"))
                .then(|| get::<i64>(&g, &key("o2"), &Device::Cpu).to_vec().unwrap());
            let e = get::<bool>(&g, &key("out"), &Device::Cpu).to_vec().unwrap();
            let r = binary_hit_or_miss(&x, s1.as_ref(), s2.as_ref(), &o1, o2.as_deref())
                .unwrap_or_else(|err| panic!("{c} on {dev}: {err}"));
            assert_eq!(r.shape(), x.shape(), "{c} on {dev}");
            assert_eq!(r.to_vec().unwrap(), e, "hit_or_miss {c} on {dev}");
            // a numeric input: nonzero is foreground
            let xf = x.astype::<f64>().unwrap();
            let rf = binary_hit_or_miss(&xf, s1.as_ref(), s2.as_ref(), &o1, o2.as_deref()).unwrap();
            assert_eq!(rf.to_vec().unwrap(), e, "hit_or_miss {c} (f64) on {dev}");
            trues += e.iter().filter(|&&b| b).count();
        }
    });
    assert!(trues > 0, "every golden result is all false");
}

/// Binary erosion against the naive definition on shapes whose rows have interior segments
/// (the CPU's slice-by-slice path) and ends: a 3 x 3 (x 3) structure, origins, masks and both
/// border values; `x` reads `c + (k - 1) - origin`, outside is the border value, elements
/// outside the mask keep their value.
#[test]
fn binary_erosion_rows_naive_oracle() {
    for (si, shape) in [vec![37usize, 41], vec![6, 9, 70], vec![129]]
        .iter()
        .enumerate()
    {
        let nd = shape.len();
        let n: usize = shape.iter().product();
        let r: Vec<f64> = cusci_core::testing::randn_vec(n, 900 + si as u64);
        let x: Vec<bool> = r.iter().map(|&v| v > -0.8).collect();
        let mr: Vec<f64> = cusci_core::testing::randn_vec(n, 950 + si as u64);
        let m: Vec<bool> = mr.iter().map(|&v| v > -1.0).collect();
        let ns = 3usize.pow(nd as u32);
        let s: Vec<bool> = (0..ns).map(|k| (k * 7 + si) % 5 != 0).collect();
        let origin: Vec<i64> = (0..nd).map(|d| [0i64, 1, -1][(d + si) % 3]).collect();
        for border in [false, true] {
            for masked in [false, true] {
                let want: Vec<bool> = (0..n)
                    .map(|i| {
                        if masked && !m[i] {
                            return x[i];
                        }
                        let mut c = vec![0i64; nd];
                        let mut q = i;
                        for d in (0..nd).rev() {
                            c[d] = (q % shape[d]) as i64;
                            q /= shape[d];
                        }
                        (0..ns).filter(|&k| s[k]).all(|k| {
                            let mut j = 0usize;
                            let mut kk = k;
                            let mut off = vec![0i64; nd];
                            for d in (0..nd).rev() {
                                off[d] = (kk % 3) as i64 - 1;
                                kk /= 3;
                            }
                            for d in 0..nd {
                                let v = c[d] + off[d] - origin[d];
                                if v < 0 || v >= shape[d] as i64 {
                                    return border;
                                }
                                j = j * shape[d] + v as usize;
                            }
                            x[j]
                        })
                    })
                    .collect();
                for_each_device(|dev| {
                    let a = Array::from_vec(x.clone(), shape, dev).unwrap();
                    let sa = Array::from_vec(s.clone(), &vec![3; nd], dev).unwrap();
                    let ma = Array::from_vec(m.clone(), shape, dev).unwrap();
                    let e = binary_erosion(
                        &a,
                        &BinaryOptions {
                            structure: Some(&sa),
                            mask: masked.then_some(&ma),
                            border_value: border,
                            origin: origin.clone(),
                            ..Default::default()
                        },
                    )
                    .unwrap();
                    assert_eq!(
                        e.to_vec().unwrap(),
                        want,
                        "{shape:?} border {border} masked {masked} on {dev}"
                    );
                });
            }
        }
    }
}

/// Iterated dilation and erosion with a structure holding its origin: 2 to 16 iterations (the
/// CPU's whole-array steps) give the same result as that many single steps applied in turn,
/// and 17 (the CPU's frontier steps) as 17 single steps, with a mask and both border values.
#[test]
fn iterations_match_repeated_single_steps() {
    let shape = [23usize, 31];
    let n = shape[0] * shape[1];
    let r: Vec<f64> = cusci_core::testing::randn_vec(n, 321);
    let x: Vec<bool> = r.iter().map(|&v| v > 0.9).collect();
    let mr: Vec<f64> = cusci_core::testing::randn_vec(n, 322);
    let m: Vec<bool> = mr.iter().map(|&v| v > -1.2).collect();
    for_each_device(|dev| {
        let a = Array::from_vec(x.clone(), &shape, dev).unwrap();
        let ma = Array::from_vec(m.clone(), &shape, dev).unwrap();
        for dilate in [true, false] {
            for border in [false, true] {
                for it in [2i64, 5, 16, 17] {
                    let o = |iterations: i64| BinaryOptions {
                        iterations,
                        mask: Some(&ma),
                        border_value: border,
                        ..Default::default()
                    };
                    let op = |a: &Array<bool>, o: &BinaryOptions| {
                        if dilate {
                            binary_dilation(a, o).unwrap()
                        } else {
                            binary_erosion(a, o).unwrap()
                        }
                    };
                    let got = op(&a, &o(it));
                    let mut want = a.clone();
                    for _ in 0..it {
                        want = op(&want, &o(1));
                    }
                    assert_eq!(
                        got.to_vec().unwrap(),
                        want.to_vec().unwrap(),
                        "dilate {dilate} border {border} iterations {it} on {dev}"
                    );
                }
            }
        }
    });
}
