//! The fused 2-D separable kernel (`ndi_sep2f*`, `sep2d.cu`) on every mode and plane size:
//! planes narrower than the halo or the tile (1×1, 1×37, 37×1, 2×3), planes just off the tile
//! sizes (63×65, 64×64, 65×130, 130×257), long single rows and columns, a 3-D stack; each
//! against the CPU reference (GPU half) and the CPU reference against naive sequential 1-D passes
//! in SciPy's order (both devices).
//!
//! SciPy's `sobel(x, axis)` runs `[-1, 0, 1]` along `axis` first, then `[1, 2, 1]` along the
//! others; in constant mode with `cval != 0` the order matters because the second pass reads
//! `cval` (not filtered `cval`) outside the plane. `cupyx.scipy.ndimage.sobel` runs the passes in
//! axis order 0, 1, …, so for `axis = 1` it differs from SciPy there: the pinned test below keeps
//! SciPy's result.

use crate::common::{gpu_matches_cpu, input, naive_pass};
use cusci_core::testing::{assert_allclose, devices};
use cusci_ndimage::*;

const CVAL: f64 = -0.5;

fn fopts(mode: Mode) -> FilterOptions {
    FilterOptions {
        mode,
        cval: CVAL,
        ..Default::default()
    }
}

fn gopts(mode: Mode) -> GaussianOptions {
    GaussianOptions {
        mode,
        cval: CVAL,
        ..Default::default()
    }
}

/// The filters whose two passes over the last two axes take the fused kernel (every tap bucket
/// 3, 5, 9, 17, 33 and both pass orders), named.
fn fused_filters<T: Real>(x: &Array<T>, mode: Mode) -> Vec<(&'static str, Array<T>)> {
    let nd = x.ndim() as isize;
    let o = fopts(mode);
    let g = gopts(mode);
    let last2 = Some(vec![nd - 2, nd - 1]);
    let r: Vec<(&'static str, Result<Array<T>>)> = vec![
        ("sobel -1", sobel(x, nd - 1, &o)),
        ("sobel -2", sobel(x, nd - 2, &o)),
        ("prewitt -1", prewitt(x, nd - 1, &o)),
        (
            "uniform 5x3 horizontal first",
            uniform_filter(
                x,
                &[3, 5],
                &FilterOptions {
                    axes: Some(vec![nd - 1, nd - 2]),
                    ..o.clone()
                },
            ),
        ),
        (
            "uniform 9",
            uniform_filter(
                x,
                &[9],
                &FilterOptions {
                    axes: last2.clone(),
                    ..o.clone()
                },
            ),
        ),
        (
            "gaussian 2 (17 taps)",
            gaussian_filter(
                x,
                &[2.0],
                &GaussianOptions {
                    axes: last2.clone(),
                    ..g.clone()
                },
            ),
        ),
        (
            "gaussian 4 (33 taps)",
            gaussian_filter(
                x,
                &[4.0],
                &GaussianOptions {
                    axes: last2,
                    ..g.clone()
                },
            ),
        ),
    ];
    r.into_iter()
        .map(|(n, a)| (n, a.unwrap_or_else(|e| panic!("{n}: {e}"))))
        .collect()
}

#[test]
fn fused_kernel_matches_the_cpu_in_every_mode_and_plane_size() {
    for shape in [
        &[1usize, 1][..],
        &[1, 37],
        &[37, 1],
        &[2, 3],
        &[3, 2],
        &[1, 200],
        &[200, 1],
        &[63, 65],
        &[64, 64],
        &[65, 130],
        &[130, 257],
        &[2, 9, 70],
    ] {
        let x = input::<f64>(shape, 21, 10.0);
        gpu_matches_cpu(&x, (1e-12, 1e-12), fused_filters);
        // f32 accumulates in f32 on the GPU, the CPU in f64: inputs are ~N(0, 10)
        let x = input::<f32>(shape, 22, 10.0);
        gpu_matches_cpu(&x, (1e-5, 2e-4), fused_filters);
    }
}

/// [`naive_pass`] with the tests' `cval`.
fn seq_pass(x: &[f64], sh: [usize; 2], axis: usize, w: &[f64], shift: i64, mode: Mode) -> Vec<f64> {
    naive_pass(x, sh, axis, w, shift, mode, CVAL)
}

/// One sequential pass: (axis, weights, shift).
type SeqPass = (usize, Vec<f64>, i64);

/// SciPy's normalised Gaussian of `sigma`, radius `trunc(4 sigma + 0.5)`.
fn gauss(sigma: f64) -> Vec<f64> {
    let r = (4.0 * sigma + 0.5) as i64;
    let p: Vec<f64> = (-r..=r)
        .map(|i| (-0.5 * (i * i) as f64 / (sigma * sigma)).exp())
        .collect();
    let s: f64 = p.iter().sum();
    p.iter().map(|v| v / s).collect()
}

#[test]
fn every_device_runs_scipys_sequential_passes_on_small_planes() {
    for (k, sh) in [[1usize, 1], [1, 37], [37, 1], [2, 3], [5, 7], [9, 4]]
        .into_iter()
        .enumerate()
    {
        let x = input::<f64>(&sh, 40 + k as u64, 10.0);
        let xv = x.to_vec().unwrap();
        for mode in Mode::ALL {
            let m = mode.for_filter();
            // (name, passes in SciPy's order as (axis, weights, shift))
            let u3 = vec![1.0 / 3.0; 3];
            let u4 = vec![0.25; 4];
            let g = gauss(1.5);
            let cases: Vec<(&str, Vec<SeqPass>)> = vec![
                (
                    "sobel 0",
                    vec![(0, vec![-1.0, 0.0, 1.0], 1), (1, vec![1.0, 2.0, 1.0], 1)],
                ),
                (
                    "sobel 1",
                    vec![(1, vec![-1.0, 0.0, 1.0], 1), (0, vec![1.0, 2.0, 1.0], 1)],
                ),
                ("uniform (3, 4)", vec![(0, u3, 1), (1, u4, 2)]),
                ("gaussian 1.5", vec![(0, g.clone(), 6), (1, g, 6)]),
            ];
            for dev in devices() {
                let xd = x.to_device(&dev).unwrap();
                let o = fopts(mode);
                for (name, passes) in &cases {
                    let mut want = xv.clone();
                    for (axis, w, shift) in passes {
                        want = seq_pass(&want, sh, *axis, w, *shift, m);
                    }
                    let y = match *name {
                        "sobel 0" => sobel(&xd, 0, &o),
                        "sobel 1" => sobel(&xd, 1, &o),
                        "uniform (3, 4)" => uniform_filter(&xd, &[3, 4], &o),
                        _ => gaussian_filter(&xd, &[1.5], &gopts(mode)),
                    }
                    .unwrap()
                    .to_device(&Device::Cpu)
                    .unwrap();
                    let want = Array::from_vec(want, &sh, &Device::Cpu).unwrap();
                    let ctx = format!("{name} {mode} {sh:?} on {dev}");
                    assert_allclose(&y, &want, 1e-12, 1e-12, &ctx);
                }
            }
        }
    }
}

#[test]
fn constant_mode_sobel_keeps_scipys_pass_order_not_cupyxs() {
    // 1 x 37, axis 1, cval -0.5 (the H200 check's case): SciPy = derivative along 1, then smooth
    // along 0, whose outside rows are cval: interior 2 d + 2 cval. Axis order (cupyx) = smooth
    // first (2 x + 2 cval), then the derivative: interior 2 d. They differ by 2 cval = -1.
    let sh = [1usize, 37];
    let x = input::<f64>(&sh, 7, 10.0);
    let xv = x.to_vec().unwrap();
    let m = Mode::Constant;
    let d = seq_pass(&xv, sh, 1, &[-1.0, 0.0, 1.0], 1, m);
    let scipy = seq_pass(&d, sh, 0, &[1.0, 2.0, 1.0], 1, m);
    let s = seq_pass(&xv, sh, 0, &[1.0, 2.0, 1.0], 1, m);
    let axis_order = seq_pass(&s, sh, 1, &[-1.0, 0.0, 1.0], 1, m);
    for j in 1..36 {
        assert!((scipy[j] - axis_order[j] - 2.0 * CVAL).abs() < 1e-12);
        assert!((scipy[j] - 2.0 * (xv[j + 1] - xv[j - 1]) - 2.0 * CVAL).abs() < 1e-12);
    }
    let want = Array::from_vec(scipy, &sh, &Device::Cpu).unwrap();
    for dev in devices() {
        let y = sobel(&x.to_device(&dev).unwrap(), 1, &fopts(m))
            .unwrap()
            .to_device(&Device::Cpu)
            .unwrap();
        assert_allclose(
            &y,
            &want,
            1e-13,
            1e-13,
            &format!("sobel 1 constant on {dev}"),
        );
        // f32 takes the fused kernel's f32 path on the GPU
        let xf =
            Array::from_vec(xv.iter().map(|&v| v as f32).collect(), &sh, &Device::Cpu).unwrap();
        let yf = sobel(&xf.to_device(&dev).unwrap(), 1, &fopts(m))
            .unwrap()
            .to_device(&Device::Cpu)
            .unwrap()
            .to_vec()
            .unwrap();
        let wf: Vec<f64> = want.to_vec().unwrap();
        for (a, b) in yf.iter().zip(&wf) {
            assert!(
                (*a as f64 - b).abs() <= 1e-4 * (1.0 + b.abs()),
                "f32 sobel 1 constant on {dev}: {a} vs {b}"
            );
        }
    }
}
