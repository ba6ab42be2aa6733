//! The filters on every device: the CPU against naive loops, every device against the CPU
//! (edge sizes, integer types, NaN, non-contiguous views), and the same typed errors everywhere.

use crate::common::{gpu_matches_cpu, input};
use cusci_core::testing::{assert_allclose, devices, randn};
use cusci_core::Error;
use cusci_ndimage::*;

fn opts(mode: Mode) -> FilterOptions {
    FilterOptions {
        mode,
        cval: -0.5,
        ..Default::default()
    }
}

/// Naive 2-D correlation with explicit index mapping.
fn naive_correlate2(
    x: &[f64],
    sh: [usize; 2],
    w: &[f64],
    wsh: [usize; 2],
    org: [isize; 2],
    mode: Mode,
    cval: f64,
) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    for i in 0..sh[0] {
        for j in 0..sh[1] {
            let mut acc = 0.0;
            for a in 0..wsh[0] {
                for b in 0..wsh[1] {
                    let wv = w[a * wsh[1] + b];
                    if wv == 0.0 {
                        continue;
                    }
                    let ii = i as i64 + a as i64 - (wsh[0] / 2) as i64 - org[0] as i64;
                    let jj = j as i64 + b as i64 - (wsh[1] / 2) as i64 - org[1] as i64;
                    let v = match (
                        mode.map_index(ii, sh[0] as i64),
                        mode.map_index(jj, sh[1] as i64),
                    ) {
                        (Some(p), Some(q)) => x[p as usize * sh[1] + q as usize],
                        _ => cval,
                    };
                    acc += wv * v;
                }
            }
            out[i * sh[1] + j] = acc;
        }
    }
    out
}

#[test]
fn correlate_matches_naive_loops_in_every_mode() {
    let x = randn::<f64>(&[7, 9], 1, &Device::Cpu).unwrap();
    let xv = x.to_vec().unwrap();
    let w = randn::<f64>(&[4, 3], 2, &Device::Cpu).unwrap();
    for mode in Mode::ALL {
        for org in [[0, 0], [1, -1], [-2, 1]] {
            let o = FilterOptions {
                origin: org.to_vec(),
                ..opts(mode)
            };
            let y = correlate(&x, &w, &o).unwrap();
            let want = naive_correlate2(&xv, [7, 9], &w.to_vec().unwrap(), [4, 3], org, mode, -0.5);
            let want = Array::from_vec(want, &[7, 9], &Device::Cpu).unwrap();
            assert_allclose(&y, &want, 1e-13, 1e-13, &format!("{mode} {org:?}"));
        }
    }
}

#[test]
fn rank_filter_matches_naive_sort() {
    let x = randn::<f64>(&[6, 11], 3, &Device::Cpu).unwrap();
    let xv = x.to_vec().unwrap();
    for mode in [
        Mode::Reflect,
        Mode::Constant,
        Mode::Wrap,
        Mode::Mirror,
        Mode::Nearest,
    ] {
        for rank in [0isize, 4, 7, -1] {
            let y = rank_filter(&x, rank, &Footprint::Size(vec![3, 3]), &opts(mode))
                .unwrap()
                .to_vec()
                .unwrap();
            for i in 0..6i64 {
                for j in 0..11i64 {
                    let mut v = Vec::new();
                    for a in -1..=1 {
                        for b in -1..=1 {
                            v.push(
                                match (mode.map_index(i + a, 6), mode.map_index(j + b, 11)) {
                                    (Some(p), Some(q)) => xv[p as usize * 11 + q as usize],
                                    _ => -0.5,
                                },
                            );
                        }
                    }
                    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
                    let r = if rank < 0 { 9 + rank } else { rank } as usize;
                    assert_eq!(
                        y[(i * 11 + j) as usize],
                        v[r],
                        "{mode} rank {rank} at {i},{j}"
                    );
                }
            }
        }
    }
}

/// Every filter of the crate on one input, as a list of (name, result).
fn all_filters<T: Real + cusci_core::dtype::Numeric>(
    x: &Array<T>,
    mode: Mode,
) -> Vec<(String, Array<T>)> {
    let o = opts(mode);
    let g = GaussianOptions {
        mode,
        cval: -0.5,
        ..Default::default()
    };
    let nd = x.ndim();
    let w = randn::<f64>(&vec![3; nd], 9, &Device::Cpu).unwrap();
    let mask = Array::from_vec(
        (0..3usize.pow(nd as u32)).map(|i| i % 3 != 1).collect(),
        &vec![3; nd],
        &Device::Cpu,
    )
    .unwrap();
    let mut v = vec![
        (
            "correlate1d",
            correlate1d(x, &[0.5, -1.0, 2.0, 0.25], 0, &o),
        ),
        ("convolve1d", convolve1d(x, &[0.5, -1.0, 2.0], -1, &o)),
        ("correlate", correlate(x, &w, &o)),
        ("convolve", convolve(x, &w, &o)),
        ("gaussian_filter", gaussian_filter(x, &[1.2], &g)),
        (
            "gaussian_filter1d_o2",
            gaussian_filter1d(
                x,
                0.9,
                -1,
                &GaussianOptions {
                    order: vec![2],
                    ..g.clone()
                },
            ),
        ),
        ("uniform_filter", uniform_filter(x, &[3], &o)),
        ("uniform_filter1d", uniform_filter1d(x, 4, 0, &o)),
        (
            "minimum_filter",
            minimum_filter(x, &Footprint::Size(vec![3]), &o),
        ),
        (
            "maximum_filter_fp",
            maximum_filter(x, &Footprint::Mask(mask.clone()), &o),
        ),
        (
            "median_filter",
            median_filter(x, &Footprint::Size(vec![3]), &o),
        ),
        (
            "median_filter_large",
            median_filter(x, &Footprint::Size(vec![if nd == 1 { 81 } else { 9 }]), &o),
        ),
        ("rank_filter", rank_filter(x, 1, &Footprint::Mask(mask), &o)),
        (
            "percentile_filter",
            percentile_filter(x, 70.0, &Footprint::Size(vec![2]), &o),
        ),
        ("sobel", sobel(x, 0, &o)),
        ("prewitt", prewitt(x, -1, &o)),
        ("laplace", laplace(x, &o)),
        ("gaussian_laplace", gaussian_laplace(x, &[1.0], &g)),
    ];
    v.drain(..)
        .map(|(n, r)| (n.to_string(), r.unwrap_or_else(|e| panic!("{n}: {e}"))))
        .collect()
}

/// Every GPU against the CPU on an input ~N(0, 100) of `T`: every filter of [`all_filters`].
fn every_filter_matches<T: Real + cusci_core::dtype::Numeric>(
    shape: &[usize],
    seed: u64,
    tol: f64,
) {
    gpu_matches_cpu(&input::<T>(shape, seed, 10.0), (tol, tol), all_filters);
}

#[test]
fn every_device_matches_the_cpu() {
    for shape in [
        &[1usize][..],
        &[2],
        &[31],
        &[33],
        &[257],
        &[2, 1],
        &[5, 33],
        &[31, 2],
        &[4, 5, 6],
    ] {
        every_filter_matches::<f64>(shape, 7, 1e-12);
        every_filter_matches::<f32>(shape, 8, 2e-4);
    }
    // integer types: exact sums of integers, same truncation on both devices
    every_filter_matches::<i32>(&[9, 10], 4, 1.0);
    every_filter_matches::<u8>(&[33], 5, 1.0);
    every_filter_matches::<i64>(&[3, 4, 5], 6, 1.0);
}

#[test]
fn windows_larger_than_the_image() {
    for dev in devices() {
        let x = randn::<f64>(&[3, 2], 11, &dev).unwrap();
        let xc = x.to_device(&Device::Cpu).unwrap();
        for mode in Mode::ALL {
            let a = uniform_filter(&x, &[7], &opts(mode))
                .unwrap()
                .to_vec()
                .unwrap();
            let b = uniform_filter(&xc, &[7], &opts(mode))
                .unwrap()
                .to_vec()
                .unwrap();
            assert!(
                a.iter().zip(&b).all(|(p, q)| (p - q).abs() < 1e-12),
                "{mode} on {dev}"
            );
            let m = median_filter(&x, &Footprint::Size(vec![5, 9]), &opts(mode))
                .unwrap()
                .to_vec()
                .unwrap();
            let mc = median_filter(&xc, &Footprint::Size(vec![5, 9]), &opts(mode))
                .unwrap()
                .to_vec()
                .unwrap();
            assert_eq!(m, mc, "{mode} on {dev}");
        }
        // a constant image stays constant under every normalised filter, whatever the size
        let c = Array::<f64>::full(&[4, 3], 2.5, &dev).unwrap();
        for v in gaussian_filter(&c, &[5.0], &GaussianOptions::default())
            .unwrap()
            .to_vec()
            .unwrap()
        {
            assert!((v - 2.5).abs() < 1e-12);
        }
    }
}

#[test]
fn nan_and_views_on_every_device() {
    for dev in devices() {
        let mut v = randn::<f64>(&[8, 12], 12, &Device::Cpu)
            .unwrap()
            .to_vec()
            .unwrap();
        v[13] = f64::NAN;
        let x = Array::from_vec(v, &[8, 12], &dev).unwrap();
        let y = uniform_filter(&x, &[3], &FilterOptions::default())
            .unwrap()
            .to_vec()
            .unwrap();
        // NaN spreads over the 3×3 neighbourhood of (1, 1) and nowhere else
        for i in 0..8 {
            for j in 0..12 {
                assert_eq!(y[i * 12 + j].is_nan(), i <= 2 && j <= 2, "{i},{j} on {dev}");
            }
        }
        // NaN sorts last in rank filters: the minimum ignores it, the maximum returns it
        let mn = minimum_filter(
            &x,
            &Footprint::Mask(Array::<bool>::ones(&[3, 3], &Device::Cpu).unwrap()),
            &FilterOptions::default(),
        )
        .unwrap()
        .to_vec()
        .unwrap();
        let rk = rank_filter(&x, -1, &Footprint::Size(vec![3]), &FilterOptions::default())
            .unwrap()
            .to_vec()
            .unwrap();
        assert!(
            rk[0].is_nan() && rk[13].is_nan() && !rk[40].is_nan(),
            "on {dev}"
        );
        let _ = mn;
        // a transposed, sliced view gives what its contiguous copy gives
        let view = x.t().slice_axis(0, Some(1), Some(11), 2).unwrap();
        let a = gaussian_filter(&view, &[1.0, 0.5], &GaussianOptions::default())
            .unwrap()
            .to_vec()
            .unwrap();
        let b = gaussian_filter(
            &view.contiguous().unwrap(),
            &[1.0, 0.5],
            &GaussianOptions::default(),
        )
        .unwrap()
        .to_vec()
        .unwrap();
        assert_eq!(a.len(), b.len());
        assert!(
            a.iter()
                .zip(&b)
                .all(|(p, q)| p == q || (p.is_nan() && q.is_nan())),
            "on {dev}"
        );
        // empty input
        let e = Array::<f32>::zeros(&[0, 4], &dev).unwrap();
        assert_eq!(
            sobel(&e, 0, &FilterOptions::default()).unwrap().shape(),
            &[0, 4]
        );
    }
}

fn kind(e: Error) -> &'static str {
    match e {
        Error::InvalidArgument { .. } => "arg",
        Error::ShapeMismatch { .. } => "shape",
        _ => "other",
    }
}

#[test]
fn bad_inputs_give_the_same_typed_errors_on_every_device() {
    for dev in devices() {
        let x = randn::<f32>(&[5, 6], 13, &dev).unwrap();
        let o = FilterOptions::default();
        let w3 = Array::<f64>::ones(&[3, 3, 3], &Device::Cpu).unwrap();
        assert_eq!(kind(correlate(&x, &w3, &o).unwrap_err()), "shape");
        let fp = Array::<bool>::ones(&[3], &Device::Cpu).unwrap();
        assert_eq!(
            kind(median_filter(&x, &Footprint::Mask(fp), &o).unwrap_err()),
            "shape"
        );
        let g = GaussianOptions::default();
        // SciPy: radius int(4 · -1 + 0.5) < 0 raises; sigma 0 divides by zero (gaussian_filter
        // skips both, and accepts any order)
        assert_eq!(kind(gaussian_filter1d(&x, -1.0, 0, &g).unwrap_err()), "arg");
        assert_eq!(kind(gaussian_filter1d(&x, 0.0, 0, &g).unwrap_err()), "arg");
        let bad_origin = FilterOptions {
            origin: vec![2],
            ..Default::default()
        };
        assert_eq!(
            kind(correlate1d(&x, &[1.0, 2.0, 3.0], 0, &bad_origin).unwrap_err()),
            "arg"
        );
        assert_eq!(
            kind(uniform_filter(&x, &[3], &bad_origin).unwrap_err()),
            "arg"
        );
        assert_eq!(kind(correlate1d(&x, &[], 0, &o).unwrap_err()), "arg");
        assert_eq!(kind(sobel(&x, 2, &o).unwrap_err()), "arg");
        assert_eq!(
            kind(rank_filter(&x, 9, &Footprint::Size(vec![3]), &o).unwrap_err()),
            "arg"
        );
        assert_eq!(
            kind(percentile_filter(&x, 101.0, &Footprint::Size(vec![3]), &o).unwrap_err()),
            "arg"
        );
        assert_eq!(kind(uniform_filter(&x, &[3, 3, 3], &o).unwrap_err()), "arg");
        assert_eq!(kind(minimum_filter1d(&x, 0, 0, &o).unwrap_err()), "arg");
        let empty = Array::<bool>::zeros(&[2, 2], &Device::Cpu).unwrap();
        assert_eq!(
            kind(maximum_filter(&x, &Footprint::Mask(empty), &o).unwrap_err()),
            "arg"
        );
        assert!("bogus".parse::<Mode>().is_err());
    }
}

/// The GPU's tiled 1-D kernel (several tiles along the line and across 32-column strips, halos
/// crossing tile edges) and its register rank networks (5, 7 and 25 points) against the CPU.
#[test]
fn tiled_windows_and_small_rank_networks_match_the_cpu() {
    // the CPU too: the arguments are valid and the body runs everywhere
    for dev in devices() {
        for shape in [&[3usize, 70, 40][..], &[2, 4500], &[70, 65]] {
            let xc = randn::<f64>(shape, 21, &Device::Cpu).unwrap();
            let xg = xc.to_device(&dev).unwrap();
            for mode in [Mode::Reflect, Mode::Constant, Mode::Wrap, Mode::Mirror] {
                let o = opts(mode);
                let g = GaussianOptions {
                    mode,
                    cval: -0.5,
                    ..Default::default()
                };
                let nd = shape.len();
                let run = |x: &Array<f64>| -> Vec<(&str, Array<f64>)> {
                    let mut v = vec![
                        ("gaussian_filter", gaussian_filter(x, &[2.0], &g)),
                        ("uniform_filter1d", uniform_filter1d(x, 4, 0, &o)),
                        ("uniform_filter", uniform_filter(x, &[9], &o)),
                        ("sobel", sobel(x, 0, &o)),
                        (
                            "maximum_filter",
                            maximum_filter(x, &Footprint::Size(vec![3]), &o),
                        ),
                        (
                            "median25",
                            median_filter(
                                x,
                                &Footprint::Size(vec![5]),
                                &FilterOptions {
                                    axes: Some(vec![-2, -1]),
                                    ..o.clone()
                                },
                            ),
                        ),
                        (
                            "median5",
                            median_filter(
                                x,
                                &Footprint::Size(vec![5]),
                                &FilterOptions {
                                    axes: Some(vec![0]),
                                    ..o.clone()
                                },
                            ),
                        ),
                        (
                            "rank7",
                            rank_filter(
                                x,
                                -2,
                                &Footprint::Size(vec![7]),
                                &FilterOptions {
                                    axes: Some(vec![-1]),
                                    ..o.clone()
                                },
                            ),
                        ),
                    ];
                    if nd == 2 {
                        v.push((
                            "correlate",
                            correlate(x, &Array::ones(&[3, 4], &Device::Cpu).unwrap(), &o),
                        ));
                        v.push(("median9", median_filter(x, &Footprint::Size(vec![3]), &o)));
                    } else {
                        // the tiled 3-D correlation: a 5x5x5 random kernel, an origin
                        let k = randn::<f64>(&[5, 5, 5], 23, &Device::Cpu).unwrap();
                        let oo = FilterOptions {
                            origin: vec![1, 0, -1],
                            ..o.clone()
                        };
                        v.push(("convolve3d", convolve(x, &k, &oo)));
                        v.push(("median27", median_filter(x, &Footprint::Size(vec![3]), &o)));
                    }
                    v.into_iter()
                        .map(|(n, r)| (n, r.unwrap_or_else(|e| panic!("{n}: {e}"))))
                        .collect()
                };
                let (cpu, gpu) = (run(&xc), run(&xg));
                for ((n, a), (_, b)) in cpu.iter().zip(&gpu) {
                    let b = b.to_device(&Device::Cpu).unwrap();
                    assert_allclose(&b, a, 1e-12, 1e-12, &format!("{n} {mode} {shape:?}"));
                }
            }
        }
    }
}

/// Integer inputs give SciPy's integer results (computed in f64, cast after every pass with
/// SciPy's C cast: u8 wraps), on every device. Values from SciPy 1.17.
#[test]
fn integer_filters_wrap_like_scipy() {
    let o = FilterOptions::default();
    for dev in devices() {
        let a = Array::from_vec(vec![0u8, 0, 200, 0], &[1, 4], &dev).unwrap();
        assert_eq!(
            sobel(&a, 1, &o).unwrap().to_vec().unwrap(),
            [0, 32, 0, 224],
            "{dev}"
        );
        assert_eq!(
            laplace(&a, &o).unwrap().to_vec().unwrap(),
            [0, 200, 112, 200],
            "{dev}"
        );
        let b = Array::from_vec(vec![250u8, 251, 255, 3], &[1, 4], &dev).unwrap();
        let u = uniform_filter(&b, &[3], &o).unwrap();
        assert_eq!(u.to_vec().unwrap(), [250, 252, 169, 87], "{dev}");
        let c = Array::from_vec(vec![0i32, 0, 200, 0], &[1, 4], &dev).unwrap();
        assert_eq!(
            sobel(&c, 1, &o).unwrap().to_vec().unwrap(),
            [0, 800, 0, -800],
            "{dev}"
        );
    }
}

/// Rank filters of box footprints over more than 64 points (the radix-selection kernel on a
/// GPU), of a 69-point disk and of a 1-D window wider than the line (the block-per-output
/// kernel) against the CPU, bit for bit: 1-D to 3-D,
/// every mode, origins, ranks 0 / median / last / a percentile, ties and NaN, f32 and f64.
#[test]
fn large_box_rank_filters_match_the_cpu() {
    let disk: Vec<bool> = (0..81)
        .map(|k| {
            let (r, c) = (k / 9 - 4, k % 9 - 4);
            r * r + c * c <= 20
        })
        .collect();
    let disk = Array::from_vec(disk, &[9, 9], &Device::Cpu).unwrap();
    assert!(disk.to_vec().unwrap().iter().filter(|&&b| b).count() > 64);
    for dev in devices() {
        for shape in [&[300usize][..], &[37, 45], &[2, 30, 41]] {
            let nd = shape.len();
            // ties (values rounded to halves) and a NaN
            let mut v: Vec<f64> = randn::<f64>(shape, 71, &Device::Cpu)
                .unwrap()
                .to_vec()
                .unwrap()
                .iter()
                .map(|x| (x * 2.0).round() / 2.0)
                .collect();
            v[7] = f64::NAN;
            let xc = Array::from_vec(v, shape, &Device::Cpu).unwrap();
            let last2 = if nd == 1 { vec![-1] } else { vec![-2, -1] };
            let mut cases: Vec<(&str, Footprint, Vec<isize>, Vec<isize>)> = vec![(
                "size 65 along the last axis",
                Footprint::Size(vec![65]),
                vec![-1],
                vec![3],
            )];
            if nd == 1 {
                cases.push((
                    "size 5001, wider than the line",
                    Footprint::Size(vec![5001]),
                    vec![-1],
                    vec![-7],
                ));
            }
            if nd >= 2 {
                cases.push(("9x9", Footprint::Size(vec![9]), last2.clone(), vec![0, 0]));
                cases.push((
                    "11x7",
                    Footprint::Size(vec![11, 7]),
                    last2.clone(),
                    vec![-2, 3],
                ));
                cases.push((
                    "disk",
                    Footprint::Mask(disk.clone()),
                    last2.clone(),
                    vec![1, 0],
                ));
            }
            for (name, fp, axes, origin) in cases {
                for mode in Mode::ALL {
                    let o = FilterOptions {
                        mode,
                        cval: 0.25,
                        axes: Some(axes.clone()),
                        origin: origin.clone(),
                        modes: Vec::new(),
                    };
                    let run = |x: &Array<f64>| -> Vec<Array<f64>> {
                        vec![
                            median_filter(x, &fp, &o).unwrap(),
                            rank_filter(x, 0, &fp, &o).unwrap(),
                            rank_filter(x, -1, &fp, &o).unwrap(),
                            percentile_filter(x, 30.0, &fp, &o).unwrap(),
                        ]
                    };
                    let want = run(&xc);
                    let got = run(&xc.to_device(&dev).unwrap());
                    let ctx = format!("{name} {mode} {shape:?} on {dev}");
                    for (g, w) in got.iter().zip(&want) {
                        assert_allclose(&g.to_device(&Device::Cpu).unwrap(), w, 0.0, 0.0, &ctx);
                    }
                    // f32: the same values (halves are exact)
                    let x32 = xc.astype::<f32>().unwrap();
                    let w32 = median_filter(&x32, &fp, &o).unwrap();
                    let g32 = median_filter(&x32.to_device(&dev).unwrap(), &fp, &o).unwrap();
                    assert_allclose(&g32.to_device(&Device::Cpu).unwrap(), &w32, 0.0, 0.0, &ctx);
                }
            }
        }
    }
}

/// Rank filters over footprints on each side of the GPU's former 1,024-element limit (issue 32):
/// 1,024 and 1,025 points as boxes (the shared-memory radix kernel) and as masks with holes (the
/// block-per-output kernel), 2-D, against a naive sort on the CPU, then every device against the
/// CPU bit for bit.
#[test]
fn rank_filters_past_1024_points() {
    let (h, w) = (23usize, 37usize);
    let xc = randn::<f64>(&[h, w], 81, &Device::Cpu).unwrap();
    let xv = xc.to_vec().unwrap();
    // a 33 x 33 box with `holes` of its points removed (a column band off the centre)
    let holed = |holes: usize| {
        let mut m = vec![true; 33 * 33];
        for k in 0..holes {
            m[(k % 33) * 33 + 2 + k / 33] = false;
        }
        Array::from_vec(m, &[33, 33], &Device::Cpu).unwrap()
    };
    let fps: Vec<(&str, Footprint, usize)> = vec![
        ("box 32x32", Footprint::Size(vec![32, 32]), 1024),
        ("box 25x41", Footprint::Size(vec![25, 41]), 1025),
        ("mask 1024", Footprint::Mask(holed(65)), 1024),
        ("mask 1025", Footprint::Mask(holed(64)), 1025),
    ];
    for (name, fp, npts) in &fps {
        let (fh, fw, m) = match fp {
            Footprint::Size(s) => (s[0], s[1], vec![true; s[0] * s[1]]),
            Footprint::Mask(m) => (m.shape()[0], m.shape()[1], m.to_vec().unwrap()),
        };
        assert_eq!(m.iter().filter(|&&b| b).count(), *npts, "{name}");
        for mode in [Mode::Reflect, Mode::Constant, Mode::Wrap] {
            let o = opts(mode);
            for rank in [0isize, (*npts / 2) as isize, -1] {
                let y = rank_filter(&xc, rank, fp, &o).unwrap();
                let yv = y.to_vec().unwrap();
                // naive: gather the window (centre fh/2, fw/2), sort, pick
                for i in (0..h as i64).step_by(5) {
                    for j in (0..w as i64).step_by(3) {
                        let mut v = Vec::with_capacity(*npts);
                        for a in 0..fh as i64 {
                            for b in 0..fw as i64 {
                                if !m[a as usize * fw + b as usize] {
                                    continue;
                                }
                                let (p, q) = (i + a - fh as i64 / 2, j + b - fw as i64 / 2);
                                v.push(
                                    match (mode.map_index(p, h as i64), mode.map_index(q, w as i64))
                                    {
                                        (Some(p), Some(q)) => xv[p as usize * w + q as usize],
                                        _ => -0.5,
                                    },
                                );
                            }
                        }
                        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
                        let r = if rank < 0 {
                            *npts as isize + rank
                        } else {
                            rank
                        } as usize;
                        assert_eq!(
                            yv[i as usize * w + j as usize],
                            v[r],
                            "{name} {mode} rank {rank} at {i},{j}"
                        );
                    }
                }
                for dev in devices().into_iter().skip(1) {
                    let g = rank_filter(&xc.to_device(&dev).unwrap(), rank, fp, &o).unwrap();
                    let ctx = format!("{name} {mode} rank {rank} on {dev}");
                    assert_allclose(&g.to_device(&Device::Cpu).unwrap(), &y, 0.0, 0.0, &ctx);
                    let g32 = median_filter(
                        &xc.astype::<f32>().unwrap().to_device(&dev).unwrap(),
                        fp,
                        &o,
                    )
                    .unwrap();
                    let w32 = median_filter(&xc.astype::<f32>().unwrap(), fp, &o).unwrap();
                    assert_allclose(&g32.to_device(&Device::Cpu).unwrap(), &w32, 0.0, 0.0, &ctx);
                }
            }
        }
    }
}

/// The audit input `((i·7 + 3) mod 13) − 4.5` (the same array built in NumPy for the SciPy values).
fn audit_input(shape: &[usize], dev: &Device) -> Array<f64> {
    let n: usize = shape.iter().product();
    let v = (0..n).map(|i| ((i * 7 + 3) % 13) as f64 - 4.5).collect();
    Array::from_vec(v, shape, dev).unwrap()
}

#[test]
fn gaussian_sigma_order_and_radius_edge_cases_follow_scipy() {
    let g = GaussianOptions::default();
    for dev in devices() {
        let x = audit_input(&[7], &dev);
        let xv = x.to_vec().unwrap();
        // gaussian_filter1d(x, 0) raises ZeroDivisionError; sigma -1 gives radius -3 (ValueError)
        assert!(gaussian_filter1d(&x, 0.0, 0, &g).is_err(), "on {dev}");
        assert!(gaussian_filter1d(&x, -1.0, 0, &g).is_err(), "on {dev}");
        let r0 = GaussianOptions {
            radius: Some(vec![2]),
            ..Default::default()
        };
        assert!(gaussian_filter1d(&x, 0.0, 0, &r0).is_err(), "on {dev}");
        // radius int(-0.1 · 4 + 0.5) = 0, or truncate -0.1 / -1: the identity in SciPy
        let t = |truncate| GaussianOptions {
            truncate,
            ..Default::default()
        };
        for (s, o) in [(-0.1, g.clone()), (1.0, t(-0.1)), (1.0, t(-1.0))] {
            let y = gaussian_filter1d(&x, s, 0, &o).unwrap();
            assert_eq!(y.to_vec().unwrap(), xv, "sigma {s} on {dev}");
        }
        // gaussian_filter skips the axes whose sigma is not above 1e-15 (negative ones too)
        let x2 = audit_input(&[3, 4], &dev);
        let y = gaussian_filter(&x2, &[-1.0], &g).unwrap();
        assert_eq!(y.to_vec().unwrap(), x2.to_vec().unwrap(), "on {dev}");
        // a negative sigma with an explicit radius acts as |sigma|
        // (gaussian_filter1d(x, -1.0, radius=2) == gaussian_filter1d(x, 1.0, radius=2))
        let a = gaussian_filter1d(&x, -1.0, 0, &r0).unwrap();
        let b = gaussian_filter1d(&x, 1.0, 0, &r0).unwrap();
        assert_allclose(&a, &b, 1e-15, 1e-15, &format!("on {dev}"));
        // orders above 3: scipy.ndimage.gaussian_filter1d(x9, 1.5, order=4)
        let x9 = audit_input(&[9], &dev);
        let o4 = GaussianOptions {
            order: vec![4],
            ..Default::default()
        };
        let y = gaussian_filter1d(&x9, 1.5, 0, &o4).unwrap();
        let want = [
            -0.6094914892554009,
            0.322429288836049,
            0.15286324715179614,
            -0.23604194006793122,
            0.28995559832790724,
            1.0189941763117965,
            -0.288075418438228,
            -1.2178462772690057,
            0.554501137129544,
        ];
        let e = Array::from_vec(want.to_vec(), &[9], &dev).unwrap();
        assert_allclose(&y, &e, 1e-12, 1e-12, &format!("on {dev}"));
    }
}

#[test]
fn box_filters_leave_axes_of_size_0_and_1_alone_as_scipy() {
    let fo = FilterOptions::default();
    for dev in devices() {
        let x = audit_input(&[3, 4], &dev);
        let xv = x.to_vec().unwrap();
        // scipy.ndimage.uniform_filter(x, [0, 3])
        let y = uniform_filter(&x, &[0, 3], &fo).unwrap();
        let want = [
            0.8333333333333334,
            1.1666666666666667,
            3.8333333333333335,
            4.166666666666667,
            2.8333333333333335,
            3.1666666666666665,
            1.5,
            -2.5,
            0.5,
            0.8333333333333334,
            -0.8333333333333334,
            -0.5,
        ];
        let e = Array::from_vec(want.to_vec(), &[3, 4], &dev).unwrap();
        assert_allclose(&y, &e, 1e-12, 1e-12, &format!("on {dev}"));
        // scipy.ndimage.maximum_filter(x, [0, 2])
        let y = maximum_filter(&x, &Footprint::Size(vec![0, 2]), &fo).unwrap();
        assert_eq!(
            y.to_vec().unwrap(),
            vec![-1.5, 5.5, 5.5, 6.5, 0.5, 7.5, 7.5, 1.5, 2.5, 2.5, 3.5, 3.5],
            "on {dev}"
        );
        // size 0 / 1 with an origin outside it: the input, unchecked (minimum_filter(x, 0,
        // origin=3), uniform_filter(x, 1, origin=3))
        let o3 = FilterOptions {
            origin: vec![3],
            ..Default::default()
        };
        let y = minimum_filter(&x, &Footprint::Size(vec![0]), &o3).unwrap();
        assert_eq!(y.to_vec().unwrap(), xv, "on {dev}");
        let y = uniform_filter(&x, &[1], &o3).unwrap();
        assert_eq!(y.to_vec().unwrap(), xv, "on {dev}");
        // the 1-D filters and the rank filters still refuse size 0
        assert!(uniform_filter1d(&x, 0, 0, &fo).is_err());
        assert!(median_filter(&x, &Footprint::Size(vec![0]), &fo).is_err());
    }
}

// ---------------------------------------------------------------- SciPy API parity: per-axis
// modes (`modes`), `axes` on the derivative filters, footprint placement for unsorted axes

/// The 4 × 5 and 3 × 4 × 5 test images of the parity checks (small integers, asymmetric).
fn parity_x2(dev: &Device) -> Array<f64> {
    let v: Vec<f64> = (0..4)
        .flat_map(|i| (0..5).map(move |j| ((i * 7 + j * 3 + (i * j) % 5) % 11) as f64))
        .collect();
    Array::from_vec(v, &[4, 5], dev).unwrap()
}

fn parity_x3(dev: &Device) -> Array<f64> {
    let v: Vec<f64> = (0..60)
        .map(|f| {
            let (i, j, k) = (f / 20, f / 5 % 4, f % 5);
            ((i * 5 + j * 3 + k * 7 + i * k) % 13) as f64
        })
        .collect();
    Array::from_vec(v, &[3, 4, 5], dev).unwrap()
}

/// One 1-D pass of a test's expected composition: `(array, axis, mode)`.
type AxisPass<'a> = dyn Fn(&Array<f32>, usize, Mode) -> Array<f32> + 'a;

fn one_mode(mode: Mode, cval: f64) -> FilterOptions {
    FilterOptions {
        mode,
        cval,
        ..Default::default()
    }
}

#[test]
fn mode_sequences_run_one_pass_per_axis_in_its_mode() {
    use Mode::*;
    for dev in devices() {
        let ctx = format!("{dev:?}");
        let x3 = parity_x3(&dev);
        // a 2-D f32 plane large enough for the GPU's fused two-pass kernels: with two different
        // modes on the last two axes the passes must not be fused (the kernels take one mode)
        let xf = randn::<f32>(&[37, 70], 5, &dev).unwrap();
        for (mode_pair, cval) in [([Constant, Wrap], 1.5), ([Nearest, Nearest], 0.0)] {
            let o = FilterOptions {
                modes: mode_pair.to_vec(),
                cval,
                ..Default::default()
            };
            let expect = |f: &AxisPass<'_>| f(&f(&xf, 0, mode_pair[0]), 1, mode_pair[1]);
            let u = expect(&|a, ax, m| {
                uniform_filter1d(a, 5, ax as isize, &one_mode(m, cval)).unwrap()
            });
            assert_allclose(
                &uniform_filter(&xf, &[5], &o).unwrap(),
                &u,
                1e-6,
                1e-6,
                &ctx,
            );
            let g = GaussianOptions {
                modes: mode_pair.to_vec(),
                cval,
                ..Default::default()
            };
            let gs = expect(&|a, ax, m| {
                let g1 = GaussianOptions {
                    mode: m,
                    cval,
                    ..Default::default()
                };
                gaussian_filter1d(a, 1.0, ax as isize, &g1).unwrap()
            });
            assert_allclose(
                &gaussian_filter(&xf, &[1.0], &g).unwrap(),
                &gs,
                1e-6,
                1e-6,
                &ctx,
            );
            // sobel along axis 0: the derivative pass first, then the smoothing
            let so = expect(&|a, ax, m| {
                let w: &[f64] = if ax == 0 {
                    &[-1.0, 0.0, 1.0]
                } else {
                    &[1.0, 2.0, 1.0]
                };
                correlate1d(a, w, ax as isize, &one_mode(m, cval)).unwrap()
            });
            assert_allclose(&sobel(&xf, 0, &o).unwrap(), &so, 1e-6, 1e-6, &ctx);
            let mn = expect(&|a, ax, m| {
                minimum_filter1d(a, 3, ax as isize, &one_mode(m, cval)).unwrap()
            });
            let fp = Footprint::Mask(Array::<bool>::ones(&[3, 3], &Device::Cpu).unwrap());
            assert_allclose(&minimum_filter(&xf, &fp, &o).unwrap(), &mn, 0.0, 0.0, &ctx);
            assert_allclose(
                &rank_filter(&xf, 0, &Footprint::Size(vec![3]), &o).unwrap(),
                &mn,
                0.0,
                0.0,
                &ctx,
            );
        }
        // 3-D, a mode per axis of `axes`, the sizes and origins in that order:
        // scipy.ndimage.uniform_filter(x3, size=[3, 2, 4], mode=["constant", "wrap", "mirror"],
        // cval=1.5, origin=[1, -1, 1]) and
        // scipy.ndimage.gaussian_filter(x3, [1, 0.5, 1.5], order=[0, 1, 0],
        // mode=["reflect", "constant", "wrap"], cval=-1), checked against these compositions
        let o = FilterOptions {
            modes: vec![Constant, Wrap, Mirror],
            cval: 1.5,
            origin: vec![1, -1, 1],
            ..Default::default()
        };
        let mut e = x3.clone();
        for (ax, (s, (m, org))) in [(3, (Constant, 1)), (2, (Wrap, -1)), (4, (Mirror, 1))]
            .into_iter()
            .enumerate()
        {
            let o1 = FilterOptions {
                origin: vec![org],
                ..one_mode(m, 1.5)
            };
            e = uniform_filter1d(&e, s, ax as isize, &o1).unwrap();
        }
        let y = uniform_filter(&x3, &[3, 2, 4], &o).unwrap();
        assert_allclose(&y, &e, 1e-12, 1e-12, &ctx);
        // SciPy's values
        let yv = y.to_vec().unwrap();
        assert!(
            (yv[0] - 17.0 / 6.0).abs() < 1e-12 && (yv[59] - 149.0 / 24.0).abs() < 1e-12,
            "{yv:?}"
        );
        let g = GaussianOptions {
            order: vec![0, 1, 0],
            modes: vec![Reflect, Constant, Wrap],
            cval: -1.0,
            ..Default::default()
        };
        let mut e = x3.clone();
        for (ax, (s, (m, ord))) in [(1.0, (Reflect, 0)), (0.5, (Constant, 1)), (1.5, (Wrap, 0))]
            .into_iter()
            .enumerate()
        {
            let g1 = GaussianOptions {
                order: vec![ord],
                mode: m,
                cval: -1.0,
                ..Default::default()
            };
            e = gaussian_filter1d(&e, s, ax as isize, &g1).unwrap();
        }
        assert_allclose(
            &gaussian_filter(&x3, &[1.0, 0.5, 1.5], &g).unwrap(),
            &e,
            1e-12,
            1e-12,
            &ctx,
        );
        // a mode per axis of `axes` (uniform_filter(x3, 3, mode=["nearest", "constant"],
        // axes=[2, 0], cval=2))
        let o = FilterOptions {
            modes: vec![Nearest, Constant],
            cval: 2.0,
            axes: Some(vec![2, 0]),
            ..Default::default()
        };
        let e = uniform_filter1d(&x3, 3, 2, &one_mode(Nearest, 2.0)).unwrap();
        let e = uniform_filter1d(&e, 3, 0, &one_mode(Constant, 2.0)).unwrap();
        assert_allclose(
            &uniform_filter(&x3, &[3], &o).unwrap(),
            &e,
            1e-12,
            1e-12,
            &ctx,
        );
        // rank 0 of a box with a mode per axis: SciPy's separable minimum route, the box on the
        // filtered axes in increasing order (rank_filter(x3, 0, size=[2, 3], axes=[2, 0],
        // mode=["constant", "wrap"], origin=[1, 0], cval=-2); first row of SciPy's result below)
        let o = FilterOptions {
            modes: vec![Constant, Wrap],
            cval: -2.0,
            origin: vec![1, 0],
            axes: Some(vec![2, 0]),
            ..Default::default()
        };
        let y = rank_filter(&x3, 0, &Footprint::Size(vec![2, 3]), &o).unwrap();
        assert_eq!(
            y.to_vec().unwrap()[..10],
            [-2.0, -2.0, 0.0, 1.0, 1.0, -2.0, -2.0, 0.0, 1.0, 1.0]
        );
        // sequences where SciPy refuses them (RuntimeError)
        let seq = FilterOptions {
            modes: vec![Constant, Wrap, Nearest],
            ..Default::default()
        };
        let w = Array::<f64>::ones(&[2, 2, 2], &Device::Cpu).unwrap();
        assert_eq!(kind(correlate(&x3, &w, &seq).unwrap_err()), "arg");
        assert_eq!(kind(convolve(&x3, &w, &seq).unwrap_err()), "arg");
        assert_eq!(
            kind(correlate1d(&x3, &[1.0, 2.0], 0, &seq).unwrap_err()),
            "arg"
        );
        assert_eq!(kind(uniform_filter1d(&x3, 2, 0, &seq).unwrap_err()), "arg");
        let fp3 = Footprint::Size(vec![3]);
        assert_eq!(kind(median_filter(&x3, &fp3, &seq).unwrap_err()), "arg");
        assert_eq!(kind(rank_filter(&x3, 1, &fp3, &seq).unwrap_err()), "arg");
        let holes = Array::from_vec(
            vec![true, false, true, true, true, true, true, true],
            &[2, 2, 2],
            &Device::Cpu,
        )
        .unwrap();
        assert_eq!(
            kind(maximum_filter(&x3, &Footprint::Mask(holes.clone()), &seq).unwrap_err()),
            "arg"
        );
        assert_eq!(
            kind(rank_filter(&x3, 0, &Footprint::Mask(holes), &seq).unwrap_err()),
            "arg"
        );
        let g1 = GaussianOptions {
            modes: vec![Nearest],
            ..Default::default()
        };
        assert_eq!(
            kind(gaussian_filter1d(&x3, 1.0, 0, &g1).unwrap_err()),
            "arg"
        );
        // a wrong number of modes
        let two = FilterOptions {
            modes: vec![Constant, Wrap],
            ..Default::default()
        };
        assert_eq!(kind(uniform_filter(&x3, &[3], &two).unwrap_err()), "arg");
        assert_eq!(kind(sobel(&x3, 0, &two).unwrap_err()), "arg");
    }
}

#[test]
fn derivative_filters_take_axes_and_modes_as_scipy() {
    use Mode::*;
    for dev in devices() {
        let ctx = format!("{dev:?}");
        let x = parity_x2(&dev);
        let x3 = parity_x3(&dev);
        // scipy.ndimage.laplace(x, axes=[0])
        let o = FilterOptions {
            axes: Some(vec![0]),
            ..Default::default()
        };
        let y = laplace(&x, &o).unwrap().to_vec().unwrap();
        let want = [
            7, -3, -2, -1, 0, -11, 11, 0, -5, 6, 11, -11, 6, 5, -11, -7, 3, -4, 1, 5,
        ];
        assert_eq!(y, want.map(f64::from).to_vec(), "{ctx}");
        let xf = x.astype::<f32>().unwrap();
        let yf = laplace(&xf, &o).unwrap().to_vec().unwrap();
        assert_eq!(yf, want.map(|v| v as f32).to_vec(), "{ctx}");
        // laplace(x3, mode=["constant", "wrap"], axes=[2, 0], cval=3)
        let o = FilterOptions {
            axes: Some(vec![2, 0]),
            modes: vec![Constant, Wrap],
            cval: 3.0,
            ..Default::default()
        };
        let d2 = |ax: isize, m: Mode| {
            correlate1d(&x3, &[1.0, -2.0, 1.0], ax, &one_mode(m, 3.0)).unwrap()
        };
        let e = d2(2, Constant).add(&d2(0, Wrap)).unwrap();
        assert_allclose(&laplace(&x3, &o).unwrap(), &e, 0.0, 0.0, &ctx);
        // gaussian_laplace(x, 1.0, axes=[1]) and gaussian_gradient_magnitude(x, 1.0, axes=[0]):
        // SciPy's values (the Laplacian smooths only along axis 1, the gradient along both)
        let g = GaussianOptions {
            axes: Some(vec![1]),
            ..Default::default()
        };
        let y = gaussian_laplace(&x, &[1.0], &g).unwrap().to_vec().unwrap();
        for (i, v) in [(0, 2.009658428), (7, -0.0002880006917), (19, 0.7560424502)] {
            assert!(
                (y[i] - v).abs() < 1e-9,
                "{ctx}: gaussian_laplace {i}: {}",
                y[i]
            );
        }
        let g = GaussianOptions {
            axes: Some(vec![0]),
            ..Default::default()
        };
        let y = gaussian_gradient_magnitude(&x, &[1.0], &g)
            .unwrap()
            .to_vec()
            .unwrap();
        for (i, v) in [(0, 0.8555932127), (12, 0.02432047503), (19, 0.5844676566)] {
            assert!(
                (y[i] - v).abs() < 1e-9,
                "{ctx}: gaussian_gradient_magnitude {i}: {}",
                y[i]
            );
        }
        // naming every axis, in any order, gives the sigmas in input-axis order (SciPy expands
        // them only when `axes` leaves an axis out): gaussian_laplace(x3, [1, 0.5, 2], axes=[2, 0, 1])
        let g = GaussianOptions {
            axes: Some(vec![2, 0, 1]),
            ..Default::default()
        };
        let y = gaussian_laplace(&x3, &[1.0, 0.5, 2.0], &g)
            .unwrap()
            .to_vec()
            .unwrap();
        let want = [2.3574804456198475, 1.8134176097120895, 0.9662329041314761];
        for (i, v) in want.into_iter().enumerate() {
            assert!(
                (y[i] - v).abs() < 1e-12,
                "{ctx}: gaussian_laplace {i}: {}",
                y[i]
            );
        }
        // with a mode per axis of `axes`: each axis's term in its mode
        // (gaussian_laplace(x3, [1.0, 0.7], mode=["constant", "nearest"], axes=[0, 2], cval=0.5))
        let g = GaussianOptions {
            axes: Some(vec![0, 2]),
            modes: vec![Constant, Nearest],
            cval: 0.5,
            ..Default::default()
        };
        let y = gaussian_laplace(&x3, &[1.0, 0.7], &g).unwrap();
        let term = |ord: [usize; 3], m: Mode| {
            let gt = GaussianOptions {
                order: ord.to_vec(),
                mode: m,
                cval: 0.5,
                ..Default::default()
            };
            gaussian_filter(&x3, &[1.0, 0.0, 0.7], &gt).unwrap()
        };
        let e = term([2, 0, 0], Constant)
            .add(&term([0, 0, 2], Nearest))
            .unwrap();
        assert_allclose(&y, &e, 1e-12, 1e-12, &ctx);
        let yv = y.to_vec().unwrap();
        assert!((yv[0] - 2.391243873).abs() < 1e-8, "{ctx}: {}", yv[0]);
        // gaussian_gradient_magnitude(x3, 0.8, mode=["wrap", "constant"], axes=[1, 2])
        let g = GaussianOptions {
            axes: Some(vec![1, 2]),
            modes: vec![Wrap, Constant],
            ..Default::default()
        };
        let y = gaussian_gradient_magnitude(&x3, &[0.8], &g)
            .unwrap()
            .to_vec()
            .unwrap();
        for (i, v) in [(0, 1.370057208), (4, 1.750910402), (29, 2.475892043)] {
            assert!(
                (y[i] - v).abs() < 1e-8,
                "{ctx}: gaussian_gradient_magnitude {i}: {}",
                y[i]
            );
        }
        // sobel with a mode per input axis (prewitt(x, mode=["wrap", "constant"]))
        let o = FilterOptions {
            modes: vec![Wrap, Constant],
            ..Default::default()
        };
        let e = correlate1d(&x, &[-1.0, 0.0, 1.0], 1, &one_mode(Constant, 0.0)).unwrap();
        let e = correlate1d(&e, &[1.0, 1.0, 1.0], 0, &one_mode(Wrap, 0.0)).unwrap();
        assert_allclose(&prewitt(&x, -1, &o).unwrap(), &e, 0.0, 0.0, &ctx);
    }
}

#[test]
fn footprints_lie_on_the_filtered_axes_in_increasing_order_as_scipy() {
    for dev in devices() {
        let ctx = format!("{dev:?}");
        let x3 = parity_x3(&dev);
        let with = |axes: Vec<isize>, origin: Vec<isize>| FilterOptions {
            axes: Some(axes),
            origin,
            ..Default::default()
        };
        // SciPy 1.17 places a footprint (or the box of a size) with np.expand_dims: its
        // dimensions follow the filtered axes in increasing order, the origins follow `axes`
        // when it leaves an axis out (scipy#22576). median_filter(x3, size=[2, 3], axes=[2, 1], origin=[1, 0]):
        let fp = Footprint::Size(vec![2, 3]);
        let y = median_filter(&x3, &fp, &with(vec![2, 1], vec![1, 0])).unwrap();
        let e = median_filter(&x3, &fp, &with(vec![1, 2], vec![0, 1])).unwrap();
        assert_allclose(&y, &e, 0.0, 0.0, &ctx);
        assert_eq!(
            y.to_vec().unwrap()[..8],
            [0.0, 0.0, 1.0, 7.0, 2.0, 3.0, 3.0, 4.0]
        );
        // convolve(x3, [[1, 2, 3], [0, -1, 2]], axes=[2, 0], origin=[1, -1]): the weights on
        // axes (0, 2), origins mirrored by the weights' length on their own axis
        let w =
            Array::from_vec(vec![1.0, 2.0, 3.0, 0.0, -1.0, 2.0], &[2, 3], &Device::Cpu).unwrap();
        let y = convolve(&x3, &w, &with(vec![2, 0], vec![1, -1])).unwrap();
        let e = convolve(&x3, &w, &with(vec![0, 2], vec![-1, 1])).unwrap();
        assert_allclose(&y, &e, 0.0, 0.0, &ctx);
        assert_eq!(
            y.to_vec().unwrap()[..6],
            [8.0, 44.0, 15.0, 44.0, 20.0, 29.0]
        );
        let y = correlate(&x3, &w, &with(vec![2, 0], vec![1, -1])).unwrap();
        let e = correlate(&x3, &w, &with(vec![0, 2], vec![-1, 1])).unwrap();
        assert_allclose(&y, &e, 0.0, 0.0, &ctx);
        // the last rank of a box: the same placement (SciPy's maximum route)
        let y = rank_filter(&x3, -1, &fp, &with(vec![2, 1], vec![1, 0])).unwrap();
        let e = maximum_filter(
            &x3,
            &Footprint::Size(vec![2, 3]),
            &with(vec![1, 2], vec![0, 1]),
        )
        .unwrap();
        assert_allclose(&y, &e, 0.0, 0.0, &ctx);
        // naming every axis, in any order, gives the origins in input-axis order (SciPy's
        // _expand_origin): median_filter(x3, size=[2, 3, 2], axes=[2, 0, 1], origin=[-1, 1, 0])
        let fp3 = Footprint::Size(vec![2, 3, 2]);
        let y = median_filter(&x3, &fp3, &with(vec![2, 0, 1], vec![-1, 1, 0])).unwrap();
        let e = median_filter(&x3, &fp3, &with(vec![0, 1, 2], vec![-1, 1, 0])).unwrap();
        assert_allclose(&y, &e, 0.0, 0.0, &ctx);
        assert_eq!(
            y.to_vec().unwrap()[..10],
            [5.0, 5.0, 7.0, 8.0, 6.0, 5.0, 5.0, 7.0, 8.0, 6.0]
        );
        // convolve(x3, w2, axes=[1, 2, 0], origin=[-1, 0, 0]), the origins mirrored by the
        // weights' length on their own axis
        let w2 = Array::from_vec(
            vec![1.0, 2.0, 0.0, -1.0, 3.0, 0.0, 1.0, 1.0],
            &[2, 2, 2],
            &Device::Cpu,
        )
        .unwrap();
        let y = convolve(&x3, &w2, &with(vec![1, 2, 0], vec![-1, 0, 0])).unwrap();
        assert_eq!(
            y.to_vec().unwrap()[..10],
            [53.0, 37.0, 60.0, 44.0, 32.0, 22.0, 32.0, 29.0, 39.0, 53.0]
        );
        // maximum_filter(x3, footprint=m, axes=[2, 1, 0], origin=[0, -1, 0]) (not all true)
        let m = Array::from_vec(
            vec![true, false, true, true, false, true, true, false],
            &[2, 2, 2],
            &Device::Cpu,
        )
        .unwrap();
        let y = maximum_filter(
            &x3,
            &Footprint::Mask(m),
            &with(vec![2, 1, 0], vec![0, -1, 0]),
        )
        .unwrap();
        assert_eq!(
            y.to_vec().unwrap()[..10],
            [3.0, 10.0, 10.0, 11.0, 11.0, 6.0, 10.0, 10.0, 11.0, 11.0]
        );
        // the separable filters take their sizes in the order of `axes`, an all-true mask too
        let ones = Footprint::Mask(Array::<bool>::ones(&[1, 3], &Device::Cpu).unwrap());
        let y = minimum_filter(&x3, &ones, &with(vec![2, 1], vec![])).unwrap();
        let e = minimum_filter1d(&x3, 3, 1, &FilterOptions::default()).unwrap();
        assert_allclose(&y, &e, 0.0, 0.0, &ctx);
    }
}
