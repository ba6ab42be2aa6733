//! The separable filters whose last two passes run fused on the GPU (`ndi_sep2f*`: sobel, prewitt,
//! uniform, gaussian over the last two axes): every device against the CPU on edge shapes (1×N,
//! N×1, 3×3, odd sizes across tile edges, 3-D where the fused passes are the last two axes), every
//! mode, f32 and f64, both pass orders; and the CPU reference itself against naive sequential
//! 1-D passes (the constant modes depend on the pass order).

use crate::common::{gpu_matches_cpu, input, naive_pass};
use cusci_core::testing::{assert_allclose, devices, randn};
use cusci_ndimage::*;

fn opts(mode: Mode) -> FilterOptions {
    FilterOptions {
        mode,
        cval: -0.5,
        ..Default::default()
    }
}

fn gopts(mode: Mode) -> GaussianOptions {
    GaussianOptions {
        mode,
        cval: -0.5,
        ..Default::default()
    }
}

/// The separable filters of the fused kernel, named; 3-D inputs also by axes given explicitly.
fn separable<T: Real>(x: &Array<T>, mode: Mode) -> Vec<(String, Array<T>)> {
    let nd = x.ndim() as isize;
    let o = opts(mode);
    let g = gopts(mode);
    let mut v: Vec<(String, Result<Array<T>>)> = vec![
        ("sobel -2".into(), sobel(x, nd - 2, &o)),
        ("sobel -1".into(), sobel(x, nd - 1, &o)),
        ("prewitt -2".into(), prewitt(x, nd - 2, &o)),
        ("prewitt -1".into(), prewitt(x, nd - 1, &o)),
        ("uniform 9".into(), uniform_filter(x, &[9], &o)),
        ("uniform 4".into(), uniform_filter(x, &[4], &o)),
        (
            "uniform 3x7 origin".into(),
            uniform_filter(
                x,
                &[3, 7],
                &FilterOptions {
                    axes: Some(vec![-2, -1]),
                    origin: vec![1, -3],
                    ..o.clone()
                },
            ),
        ),
        ("gaussian 1".into(), gaussian_filter(x, &[1.0], &g)),
        ("gaussian 4".into(), gaussian_filter(x, &[4.0], &g)),
        (
            "gaussian (1.5, 0.7) orders (1, 2)".into(),
            gaussian_filter(
                x,
                &[1.5, 0.7],
                &GaussianOptions {
                    axes: Some(vec![-2, -1]),
                    order: vec![1, 2],
                    ..g.clone()
                },
            ),
        ),
        // 65 taps: the fused kernel's buckets end at 33, the previous fused path takes it
        ("gaussian 8".into(), gaussian_filter(x, &[8.0], &g)),
    ];
    if nd == 2 {
        // axes reversed: the horizontal pass first
        v.push((
            "uniform axes (1, 0)".into(),
            uniform_filter(
                x,
                &[5, 3],
                &FilterOptions {
                    axes: Some(vec![1, 0]),
                    ..o.clone()
                },
            ),
        ));
    }
    v.into_iter()
        .map(|(n, r)| {
            let a = r.unwrap_or_else(|e| panic!("{n}: {e}"));
            (n, a)
        })
        .collect()
}

#[test]
fn fused_separable_filters_match_the_cpu_on_edge_shapes() {
    for shape in [
        &[1usize, 37][..],
        &[37, 1],
        &[1, 1],
        &[3, 3],
        &[33, 65],
        &[257, 129],
        &[2, 5, 70],
        &[3, 40, 33],
    ] {
        gpu_matches_cpu(&input::<f64>(shape, 11, 10.0), (1e-12, 1e-12), separable);
        // f32 accumulates in f32 on the GPU (as CuPy), the CPU in f64: inputs are ~N(0, 10)
        gpu_matches_cpu(&input::<f32>(shape, 12, 10.0), (1e-5, 2e-4), separable);
    }
}

#[test]
fn separable_filters_are_sequential_passes_in_axis_order() {
    // the oracle of the fused kernel: SciPy's sobel(axis) = [-1, 0, 1] along axis, then [1, 2, 1]
    // along the other; in the constant modes the order of the passes changes the result
    // 9 columns: the CPU's line-by-line passes; 37: its row-by-row passes (axis 0)
    for sh in [[6usize, 9], [5, 37]] {
        let x = randn::<f64>(&sh, 5, &Device::Cpu).unwrap();
        let xv = x.to_vec().unwrap();
        for mode in Mode::ALL {
            let m = mode.for_filter();
            for axis in [0usize, 1] {
                let a = naive_pass(&xv, sh, axis, &[-1.0, 0.0, 1.0], 1, m, -0.5);
                let b = naive_pass(&a, sh, 1 - axis, &[1.0, 2.0, 1.0], 1, m, -0.5);
                let want = Array::from_vec(b, &sh, &Device::Cpu).unwrap();
                for dev in devices() {
                    let y = sobel(&x.to_device(&dev).unwrap(), axis as isize, &opts(mode)).unwrap();
                    let y = y.to_device(&Device::Cpu).unwrap();
                    assert_allclose(
                        &y,
                        &want,
                        1e-13,
                        1e-13,
                        &format!("sobel {axis} {mode} {dev}"),
                    );
                }
            }
            // uniform 3 x 4 with origin 1: divisors and shifts (size / 2 + origin) of both passes
            let a = naive_pass(&xv, sh, 0, &[1.0 / 3.0; 3], 2, m, -0.5);
            let b = naive_pass(&a, sh, 1, &[0.25; 4], 3, m, -0.5);
            let want = Array::from_vec(b, &sh, &Device::Cpu).unwrap();
            let o = FilterOptions {
                origin: vec![1, 1],
                ..opts(mode)
            };
            for dev in devices() {
                let y = uniform_filter(&x.to_device(&dev).unwrap(), &[3, 4], &o).unwrap();
                let y = y.to_device(&Device::Cpu).unwrap();
                assert_allclose(&y, &want, 1e-13, 1e-13, &format!("uniform {mode} {dev}"));
            }
        }
        // min/max along axis 0 (row by row for 37 columns) against a naive window
        for mode in Mode::ALL {
            let m = mode.for_filter();
            let o = FilterOptions {
                origin: vec![-1],
                ..opts(mode)
            };
            let mut want = vec![0.0; xv.len()];
            for i in 0..sh[0] {
                for j in 0..sh[1] {
                    // size 4, origin -1: positions i - 1 .. i + 2
                    want[i * sh[1] + j] = (-1..3)
                        .map(|d| match m.map_index(i as i64 + d, sh[0] as i64) {
                            Some(p) => xv[p as usize * sh[1] + j],
                            None => -0.5,
                        })
                        .fold(f64::NEG_INFINITY, f64::max);
                }
            }
            let want = Array::from_vec(want, &sh, &Device::Cpu).unwrap();
            for dev in devices() {
                let y = maximum_filter1d(&x.to_device(&dev).unwrap(), 4, 0, &o).unwrap();
                let y = y.to_device(&Device::Cpu).unwrap();
                assert_allclose(&y, &want, 0.0, 0.0, &format!("max {mode} {sh:?} {dev}"));
            }
        }
    }
}
