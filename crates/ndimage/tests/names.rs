//! Issue 32's last names of ndimage against SciPy (`names.npz`, `tests/golden/gen.py
//! ndimage_names`): geometric_transform with closures (every device) and CUDA mappings (the
//! GPU against the CPU), its equality with map_coordinates, bad inputs.

use cusci_core::npy::{load_npz, DynArray};
use cusci_core::testing::{assert_allclose, devices, gpu};
use cusci_ndimage::*;
use std::collections::HashMap;

fn names() -> HashMap<String, DynArray> {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/names.npz");
    load_npz(p, &Device::Cpu).unwrap().into_iter().collect()
}

type Case = (
    &'static str,
    &'static str,
    &'static MapFn,
    Option<&'static [usize]>,
    usize,
    Mode,
    bool,
    // the same mapping as CUDA source (function `m`)
    &'static str,
);

fn cases() -> Vec<Case> {
    vec![
        (
            "shift",
            "gt_x2",
            &|o: &[usize], c: &mut [f64]| {
                c[0] = o[0] as f64 - 0.5;
                c[1] = o[1] as f64 - 0.5;
            },
            None,
            3,
            Mode::Constant,
            true,
            "__device__ void m(const double* o, int r, double* c, int ir, const double* e, int ne) \
             { c[0] = o[0] - 0.5; c[1] = o[1] - 0.5; }",
        ),
        (
            "nl",
            "gt_x2",
            &|o: &[usize], c: &mut [f64]| {
                c[0] = o[0] as f64 * 0.8 + 0.1 * o[1] as f64;
                c[1] = (o[1] as f64).powf(1.1) * 0.9;
            },
            Some(&[5, 8]),
            1,
            Mode::Nearest,
            true,
            "__device__ void m(const double* o, int r, double* c, int ir, const double* e, int ne) \
             { c[0] = o[0] * 0.8 + 0.1 * o[1]; c[1] = pow(o[1], 1.1) * 0.9; }",
        ),
        (
            "rank",
            "gt_x1",
            &|o: &[usize], c: &mut [f64]| {
                c[0] = o[0] as f64 * 3.0 + o[1] as f64 * 0.7;
            },
            Some(&[3, 4]),
            2,
            Mode::Reflect,
            true,
            "__device__ void m(const double* o, int r, double* c, int ir, const double* e, int ne) \
             { c[0] = o[0] * 3.0 + o[1] * 0.7; }",
        ),
        (
            "wrap",
            "gt_x2",
            &|o: &[usize], c: &mut [f64]| {
                c[0] = o[0] as f64 + 10.3;
                c[1] = -(o[1] as f64);
            },
            None,
            0,
            Mode::GridWrap,
            true,
            "__device__ void m(const double* o, int r, double* c, int ir, const double* e, int ne) \
             { c[0] = o[0] + e[0]; c[1] = -o[1]; }",
        ),
        (
            "mirror",
            "gt_x2",
            &|o: &[usize], c: &mut [f64]| {
                c[0] = o[1] as f64 * 1.3 - 1.0;
                c[1] = o[0] as f64 * 0.6 + 0.25;
            },
            Some(&[6, 7]),
            3,
            Mode::Mirror,
            false,
            "__device__ void m(const double* o, int r, double* c, int ir, const double* e, int ne) \
             { c[0] = o[1] * 1.3 - 1.0; c[1] = o[0] * 0.6 + 0.25; }",
        ),
        (
            "o5",
            "gt_x2",
            &|o: &[usize], c: &mut [f64]| {
                c[0] = o[0] as f64 * 0.9 + 0.2;
                c[1] = o[1] as f64 * 1.05 - 0.1;
            },
            None,
            5,
            Mode::GridConstant,
            true,
            "__device__ void m(const double* o, int r, double* c, int ir, const double* e, int ne) \
             { c[0] = o[0] * 0.9 + 0.2; c[1] = o[1] * 1.05 - 0.1; }",
        ),
    ]
}

fn opts(order: usize, mode: Mode, prefilter: bool) -> InterpOptions {
    InterpOptions {
        order,
        mode,
        cval: 0.5,
        prefilter,
    }
}

/// SciPy's geometric_transform with the same mappings as closures, on every device; and the
/// result equals map_coordinates at the coordinates the mapping gives.
#[test]
fn geometric_transform_golden_scipy() {
    let g = names();
    for dev in devices() {
        for (name, xk, f, oshape, order, mode, pre, _) in cases() {
            let x = g[xk].as_array::<f64>().unwrap().to_device(&dev).unwrap();
            let want = g[&format!("gt_{name}")].as_array::<f64>().unwrap();
            let o = opts(order, mode, pre);
            let y = geometric_transform(&x, Mapping::Closure(f), oshape, &[], &o)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_allclose(
                &y.to_device(&Device::Cpu).unwrap(),
                want,
                1e-12,
                1e-12,
                &format!("{name} on {dev}"),
            );
            // map_coordinates at the same coordinates: identical
            let osh: Vec<usize> = oshape.map_or_else(|| x.shape().to_vec(), <[_]>::to_vec);
            let n: usize = osh.iter().product();
            let nd = x.ndim();
            let mut c = vec![0.0; nd * n];
            for i in 0..n {
                let mut idx = vec![0usize; osh.len()];
                let mut r = i;
                for d in (0..osh.len()).rev() {
                    idx[d] = r % osh[d];
                    r /= osh[d];
                }
                let mut ic = vec![0.0; nd];
                f(&idx, &mut ic);
                for d in 0..nd {
                    c[d * n + i] = ic[d];
                }
            }
            let mut cs = vec![nd];
            cs.extend(&osh);
            let c = Array::from_vec(c, &cs, &dev).unwrap();
            let m = map_coordinates(&x, &c, &o).unwrap();
            assert_eq!(m.to_vec().unwrap(), y.to_vec().unwrap(), "{name} on {dev}");
        }
    }
}

/// The CUDA mapping gives the closure's result (f64 and f32), and an empty output.
#[test]
fn geometric_transform_cuda_mapping() {
    let Some(dev) = gpu() else {
        eprintln!("no GPU: the CUDA mapping test is skipped");
        return;
    };
    let g = names();
    for (name, xk, f, oshape, order, mode, pre, src) in cases() {
        let x = g[xk].as_array::<f64>().unwrap();
        let o = opts(order, mode, pre);
        let extra = [10.3];
        let want = geometric_transform(x, Mapping::Closure(f), oshape, &[], &o).unwrap();
        let xd = x.to_device(&dev).unwrap();
        let m = Mapping::Cuda {
            source: src,
            name: "m",
        };
        let y = geometric_transform(&xd, m, oshape, &extra, &o)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_allclose(
            &y.to_device(&Device::Cpu).unwrap(),
            &want,
            1e-12,
            1e-12,
            &format!("{name} CUDA mapping"),
        );
        let x32 = x.astype::<f32>().unwrap();
        let w32 = geometric_transform(&x32, Mapping::Closure(f), oshape, &[], &o).unwrap();
        let y32 =
            geometric_transform(&x32.to_device(&dev).unwrap(), m, oshape, &extra, &o).unwrap();
        assert_allclose(
            &y32.to_device(&Device::Cpu).unwrap(),
            &w32,
            1e-4,
            1e-5,
            &format!("{name} CUDA mapping f32"),
        );
    }
    // an empty output
    let x = Array::<f64>::zeros(&[4, 4], &dev).unwrap();
    let m = Mapping::Cuda {
        source: cases()[0].7,
        name: "m",
    };
    let y = geometric_transform(&x, m, Some(&[0, 3]), &[], &InterpOptions::default()).unwrap();
    assert_eq!(y.shape(), &[0, 3]);
}

#[test]
fn geometric_transform_bad_input() {
    let x = Array::<f64>::zeros(&[4, 4], &Device::Cpu).unwrap();
    let f = |_: &[usize], _: &mut [f64]| {};
    let o = InterpOptions::default();
    let arg = |r: Result<Array<f64>>, what: &str| match r {
        Err(Error::InvalidArgument { .. }) | Err(Error::ShapeMismatch { .. }) => {}
        other => panic!("{what}: {other:?}"),
    };
    arg(
        geometric_transform(&x, Mapping::Closure(&f), Some(&[]), &[], &o),
        "0-d output",
    );
    let x0 = Array::<f64>::zeros(&[], &Device::Cpu).unwrap();
    arg(
        geometric_transform(&x0, Mapping::Closure(&f), Some(&[2]), &[], &o),
        "0-d input",
    );
    arg(
        geometric_transform(
            &x,
            Mapping::Closure(&f),
            None,
            &[],
            &InterpOptions { order: 6, ..o },
        ),
        "order 6",
    );
    let m = Mapping::Cuda {
        source: "__device__ void m(const double*, int, double*, int, const double*, int) {}",
        name: "m",
    };
    arg(
        geometric_transform(&x, m, None, &[], &o),
        "CUDA mapping on the CPU",
    );
    for bad in ["", "1m", "m;x"] {
        let m = Mapping::Cuda {
            source: "",
            name: bad,
        };
        arg(geometric_transform(&x, m, None, &[], &o), "bad name");
    }
    // an empty output shape along one axis: an empty result
    let y = geometric_transform(&x, Mapping::Closure(&f), Some(&[0, 2]), &[], &o).unwrap();
    assert_eq!(y.shape(), &[0, 2]);
}

fn ws_case<M: Marker>(g: &HashMap<String, DynArray>, name: &str, dev: &Device) {
    let get = |k: &str| g[&format!("ws_{name}_{k}")].clone();
    let img = get("img")
        .into_array::<u8>()
        .unwrap()
        .to_device(dev)
        .unwrap();
    let m = get("markers")
        .into_array::<M>()
        .unwrap()
        .to_device(dev)
        .unwrap();
    let st = get("structure")
        .into_array::<bool>()
        .unwrap()
        .to_device(dev)
        .unwrap();
    let want = get("out").into_array::<M>().unwrap();
    let l = watershed_ift(&img, &m, Some(&st)).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(l.device(), dev);
    assert_eq!(l.shape(), want.shape(), "{name}");
    assert_eq!(
        l.to_vec().unwrap(),
        want.to_vec().unwrap(),
        "ws {name} on {dev}"
    );
}

/// SciPy's labels exactly (queue order, ties, background markers, edge wrap), on every device.
#[test]
fn watershed_ift_golden_scipy() {
    let g = names();
    for dev in devices() {
        for name in ["ring", "ring8", "ties", "rand8", "edge"] {
            ws_case::<i32>(&g, name, &dev);
        }
        for name in ["d3", "line"] {
            ws_case::<i64>(&g, name, &dev);
        }
        // the default structure is connectivity 1
        let img = g["ws_ring_img"]
            .as_array::<u8>()
            .unwrap()
            .to_device(&dev)
            .unwrap();
        let m = g["ws_ring_markers"]
            .as_array::<i32>()
            .unwrap()
            .to_device(&dev)
            .unwrap();
        let l = watershed_ift(&img, &m, None).unwrap();
        assert_eq!(
            l.to_vec().unwrap(),
            g["ws_ring_out"]
                .as_array::<i32>()
                .unwrap()
                .to_vec()
                .unwrap()
        );
    }
}

#[test]
fn watershed_ift_bad_input() {
    let cpu = Device::Cpu;
    let img = Array::<u8>::zeros(&[4, 5], &cpu).unwrap();
    let m = Array::<i32>::zeros(&[4, 5], &cpu).unwrap();
    let bad = |r: Result<Array<i32>>, what: &str| match r {
        Err(Error::InvalidArgument { .. }) | Err(Error::ShapeMismatch { .. }) => {}
        other => panic!("{what}: {other:?}"),
    };
    let m2 = Array::<i32>::zeros(&[5, 4], &cpu).unwrap();
    bad(watershed_ift(&img, &m2, None), "markers shape");
    let s1 = generate_binary_structure(1, 1, &cpu).unwrap();
    bad(watershed_ift(&img, &m, Some(&s1)), "structure rank");
    let s5 = Array::<bool>::zeros(&[5, 5], &cpu).unwrap();
    bad(watershed_ift(&img, &m, Some(&s5)), "structure 5x5");
    let i0 = Array::<u8>::zeros(&[], &cpu).unwrap();
    let m0 = Array::<i32>::zeros(&[], &cpu).unwrap();
    bad(watershed_ift(&i0, &m0, None), "0-d");
    let i8d = Array::<u8>::zeros(&[1; 8], &cpu).unwrap();
    let m8d = Array::<i32>::zeros(&[1; 8], &cpu).unwrap();
    bad(watershed_ift(&i8d, &m8d, None), "8-D");
    // no markers: every label stays 0; an empty input: an empty output
    assert!(watershed_ift(&img, &m, None)
        .unwrap()
        .to_vec()
        .unwrap()
        .iter()
        .all(|&v| v == 0));
    let ie = Array::<u8>::zeros(&[0, 3], &cpu).unwrap();
    let me = Array::<i32>::zeros(&[0, 3], &cpu).unwrap();
    assert_eq!(watershed_ift(&ie, &me, None).unwrap().shape(), &[0, 3]);
}

/// SciPy's vectorized_filter with a position-weighted window sum (so the window order
/// matters): sizes, a footprint, every mode, origins, valid, axes, on every device.
#[test]
fn vectorized_filter_golden_scipy() {
    let g = names();
    let wsum = |w: &[f64], k: usize, out: &mut [f64]| {
        for (o, win) in out.iter_mut().zip(w.chunks(k)) {
            *o = win
                .iter()
                .enumerate()
                .map(|(j, v)| (j + 1) as f64 * v)
                .sum();
        }
    };
    let fp = Array::from_vec(
        vec![true, false, true, true, true, false],
        &[2, 3],
        &Device::Cpu,
    )
    .unwrap();
    let fpm = Footprint::Mask(fp);
    let size = |s: &[usize]| Footprint::Size(s.to_vec());
    let vo = |mode: VectorizedMode| VectorizedOptions {
        mode,
        ..Default::default()
    };
    use VectorizedMode as V;
    let cases: Vec<(&str, &str, Footprint, VectorizedOptions)> = vec![
        ("size", "vf_x2", size(&[2, 3]), vo(V::Reflect)),
        (
            "fp_nearest",
            "vf_x2",
            fpm.clone(),
            VectorizedOptions {
                origin: vec![0, 1],
                ..vo(V::Nearest)
            },
        ),
        (
            "mirror_o",
            "vf_x2",
            size(&[2, 3]),
            VectorizedOptions {
                origin: vec![-1, -1],
                ..vo(V::Mirror)
            },
        ),
        ("wrap", "vf_x2", size(&[3, 4]), vo(V::Wrap)),
        (
            "const",
            "vf_x2",
            size(&[3, 2]),
            VectorizedOptions {
                cval: Some(0.3),
                ..vo(V::Constant)
            },
        ),
        ("gridmirror", "vf_x2", size(&[3]), vo(V::GridMirror)),
        ("valid", "vf_x2", size(&[2, 3]), vo(V::Valid)),
        ("valid_fp", "vf_x2", fpm.clone(), vo(V::Valid)),
        (
            "axis1",
            "vf_x2",
            size(&[3]),
            VectorizedOptions {
                axes: Some(vec![1]),
                ..vo(V::Reflect)
            },
        ),
        (
            "axes10",
            "vf_x2",
            size(&[3, 2]),
            VectorizedOptions {
                axes: Some(vec![1, 0]),
                ..vo(V::Reflect)
            },
        ),
        (
            "d3",
            "vf_x3",
            fpm.clone(),
            VectorizedOptions {
                axes: Some(vec![0, 2]),
                ..vo(V::Nearest)
            },
        ),
        ("big", "vf_x2", size(&[9, 2]), vo(V::Reflect)),
    ];
    for dev in devices() {
        for (name, xk, fpt, o) in &cases {
            let x = g[*xk].as_array::<f64>().unwrap().to_device(&dev).unwrap();
            let want = g[&format!("vf_{name}")].as_array::<f64>().unwrap();
            let fpt = match fpt {
                Footprint::Mask(m) => Footprint::Mask(m.to_device(&dev).unwrap()),
                f => f.clone(),
            };
            let y = vectorized_filter(&x, &wsum, &fpt, o).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(y.device(), &dev);
            assert_allclose(
                &y.to_device(&Device::Cpu).unwrap(),
                want,
                1e-13,
                1e-13,
                &format!("vf {name} on {dev}"),
            );
            // small batches give the same result
            let y2 = vectorized_filter(
                &x,
                &wsum,
                &fpt,
                &VectorizedOptions {
                    batch_memory: 8 * 6 * 3,
                    ..o.clone()
                },
            )
            .unwrap();
            assert_eq!(y2.to_vec().unwrap(), y.to_vec().unwrap(), "{name} batched");
        }
    }
}

#[test]
fn vectorized_filter_bad_input() {
    let x = Array::<f64>::zeros(&[4, 5], &Device::Cpu).unwrap();
    let f = |_: &[f64], _: usize, _: &mut [f64]| {};
    let d = VectorizedOptions::default();
    let bad = |r: Result<Array<f64>>, what: &str| match r {
        Err(Error::InvalidArgument { .. }) | Err(Error::ShapeMismatch { .. }) => {}
        other => panic!("{what}: {other:?}"),
    };
    let s3 = Footprint::Size(vec![3]);
    bad(
        vectorized_filter(
            &x,
            &f,
            &s3,
            &VectorizedOptions {
                cval: Some(1.0),
                ..d.clone()
            },
        ),
        "cval with reflect",
    );
    bad(
        vectorized_filter(
            &x,
            &f,
            &s3,
            &VectorizedOptions {
                mode: VectorizedMode::Valid,
                origin: vec![1],
                ..d.clone()
            },
        ),
        "origin with valid",
    );
    bad(
        vectorized_filter(
            &x,
            &f,
            &s3,
            &VectorizedOptions {
                origin: vec![2],
                ..d.clone()
            },
        ),
        "origin beyond the window",
    );
    bad(
        vectorized_filter(&x, &f, &Footprint::Size(vec![3, 3, 3]), &d),
        "size rank",
    );
    bad(
        vectorized_filter(&x, &f, &Footprint::Size(vec![0, 3]), &d),
        "zero size",
    );
    bad(
        vectorized_filter(
            &x,
            &f,
            &Footprint::Size(vec![5, 3]),
            &VectorizedOptions {
                mode: VectorizedMode::Valid,
                ..d.clone()
            },
        ),
        "valid window larger than the input",
    );
    bad(
        vectorized_filter(
            &x,
            &f,
            &s3,
            &VectorizedOptions {
                batch_memory: 8,
                ..d.clone()
            },
        ),
        "batch_memory",
    );
    bad(
        vectorized_filter(
            &x,
            &f,
            &s3,
            &VectorizedOptions {
                axes: Some(vec![0, 0]),
                ..d.clone()
            },
        ),
        "repeated axes",
    );
}
