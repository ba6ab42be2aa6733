//! The streaming kernel (`ndi_stream2f{N}`, `filters/stream2d.cu`): f32, two weighted-sum
//! passes over the last two axes with the vertical (axis `nd - 2`) pass first, equal odd windows of
//! 3, 5, 7 or 9 taps, the centred horizontal shift. On the GPU each filter is checked against the
//! CPU reference (f32 accumulates in f32 there, the CPU in f64) and against the same call with the
//! streaming kernel disabled (`with_stream2_disabled`: `ndi_sep2f`), bit for bit for weighted sums
//! and within a few ulps for the unit variant (uniform filters: shared partial sums), in every mode
//! (constant modes with cval != 0), on shapes that take the kernel's fast body (interior warps and
//! strips), its general body (plane edges, planes shorter than a strip or narrower than a warp,
//! one row), batched planes, more strips than grid.y and more planes than grid.z, and the fallbacks (width not a multiple of
//! 4, horizontal pass first, even windows, off-centre horizontal origin). `stream2_launches`
//! tells which kernel ran.
//!
//! SciPy's `sobel(x, axis)` runs the derivative along `axis` first: `axis = nd - 2` is the
//! vertical-first order the streaming kernel takes; `axis = nd - 1` runs the horizontal pass
//! first and takes `ndi_sep2f`. `uniform_filter` and `gaussian_filter` run their passes in axis
//! order (vertical first).

use cusci_core::testing::{assert_allclose, devices, randn};
use cusci_ndimage::*;

const CVAL: f64 = -0.5;

/// Inputs ~N(0, 10), f32, on the CPU.
fn input(shape: &[usize], seed: u64) -> Array<f32> {
    let v: Vec<f32> = randn::<f64>(shape, seed, &Device::Cpu)
        .unwrap()
        .to_vec()
        .unwrap()
        .iter()
        .map(|v| (v * 10.0) as f32)
        .collect();
    Array::from_vec(v, shape, &Device::Cpu).unwrap()
}

/// A filter under test: its name, whether the streaming kernel applies to it (on a width that is
/// a multiple of 4), and the call.
type Case = (String, bool, Box<dyn Fn(&Array<f32>) -> Result<Array<f32>>>);

fn cases(nd: usize, mode: Mode) -> Vec<Case> {
    let nd = nd as isize;
    let o = FilterOptions {
        mode,
        cval: CVAL,
        ..Default::default()
    };
    let last2 = FilterOptions {
        axes: Some(vec![nd - 2, nd - 1]),
        ..o.clone()
    };
    let mut v: Vec<Case> = Vec::new();
    let (a, b) = (o.clone(), o.clone());
    v.push((
        "sobel -2".into(),
        nd == 2,
        Box::new(move |x| sobel(x, nd - 2, &a)),
    ));
    v.push((
        "sobel -1".into(),
        false,
        Box::new(move |x| sobel(x, nd - 1, &b)),
    ));
    let a = o.clone();
    v.push((
        "prewitt -2".into(),
        nd == 2,
        Box::new(move |x| prewitt(x, nd - 2, &a)),
    ));
    for n in [3usize, 5, 7, 9] {
        let a = last2.clone();
        v.push((
            format!("uniform {n}"),
            true,
            Box::new(move |x| uniform_filter(x, &[n], &a)),
        ));
    }
    // the vertical shift is a runtime argument: any origin along axis nd - 2 streams
    let a = FilterOptions {
        origin: vec![-2, 0],
        ..last2.clone()
    };
    v.push((
        "uniform 5 origin (-2, 0)".into(),
        true,
        Box::new(move |x| uniform_filter(x, &[5], &a)),
    ));
    let a = FilterOptions {
        origin: vec![0, 1],
        ..last2.clone()
    };
    v.push((
        "uniform 5 origin (0, 1)".into(),
        false,
        Box::new(move |x| uniform_filter(x, &[5], &a)),
    ));
    let a = last2.clone();
    v.push((
        "uniform 4".into(),
        false,
        Box::new(move |x| uniform_filter(x, &[4], &a)),
    ));
    let g = GaussianOptions {
        mode,
        cval: CVAL,
        axes: Some(vec![nd - 2, nd - 1]),
        ..Default::default()
    };
    v.push((
        "gaussian 1 (9 taps)".into(),
        true,
        Box::new(move |x| gaussian_filter(x, &[1.0], &g)),
    ));
    v
}

fn check(shape: &[usize], seed: u64, modes: &[Mode], only: Option<&str>) {
    let xc = input(shape, seed);
    let wd = shape[shape.len() - 1];
    for dev in devices().into_iter().skip(1) {
        let xg = xc.to_device(&dev).unwrap();
        for &mode in modes {
            for (name, streams, f) in cases(shape.len(), mode) {
                if only.is_some_and(|o| o != name) {
                    continue;
                }
                let ctx = format!("{name} {mode} {shape:?} on {dev}");
                let n0 = stream2_launches();
                let y = f(&xg).unwrap_or_else(|e| panic!("{ctx}: {e}"));
                let launched = stream2_launches() - n0;
                if !dev.is_cuda() {
                    // (the CPU computes every filter itself)
                } else if !streams {
                    assert_eq!(launched, 0, "{ctx}: the streaming kernel ran");
                } else if wd % 4 == 0 {
                    assert_eq!(launched, 1, "{ctx}: the streaming kernel did not run");
                } else {
                    // the scalar variant where compiled (STREAM2_SCALAR), else ndi_sep2f
                    assert!(launched <= 1, "{ctx}: {launched} launches");
                }
                let z = with_stream2_disabled(|| f(&xg)).unwrap();
                assert_eq!(stream2_launches() - n0, launched, "{ctx}: disabled");
                let (y, z) = (
                    y.to_device(&Device::Cpu).unwrap(),
                    z.to_device(&Device::Cpu).unwrap(),
                );
                let (yb, zb): (Vec<u32>, Vec<u32>) = (
                    y.to_vec().unwrap().iter().map(|v| v.to_bits()).collect(),
                    z.to_vec().unwrap().iter().map(|v| v.to_bits()).collect(),
                );
                if launched == 1 && name.starts_with("uniform") && wd % 4 == 0 {
                    // the unit variant shares sums between neighbouring outputs: the same
                    // values in another order (uniform 9 on ~N(0, 10) in f32: at most 1e-6
                    // apart in a NumPy emulation of both orders; a wrong row or column would
                    // be off by ~1)
                    assert_allclose(&y, &z, 1e-6, 1e-5, &format!("{ctx}: stream vs sep2f"));
                } else if let Some(i) = (0..yb.len()).find(|&i| yb[i] != zb[i]) {
                    panic!(
                        "{ctx}: stream {} != sep2f {} at flat index {i}",
                        f32::from_bits(yb[i]),
                        f32::from_bits(zb[i])
                    );
                }
                let want = f(&xc).unwrap();
                assert_allclose(&y, &want, 1e-5, 2e-4, &ctx);
            }
        }
    }
}

#[test]
fn stream2_matches_sep2f_and_the_cpu() {
    for (k, shape) in [
        &[64usize, 128][..],
        &[37, 256],
        &[5, 4096],
        &[1, 128],
        &[130, 132],
        &[200, 124],
        &[100, 512],
        &[3, 70, 260],
        &[2, 33, 70],
    ]
    .into_iter()
    .enumerate()
    {
        check(shape, 60 + k as u64, &Mode::ALL, None);
    }
}

#[test]
fn stream2_grid_strides_over_more_planes_than_grid_z() {
    // 66000 planes of one row: 66000 planes > 65535 blocks along grid.z
    check(&[66000, 1, 4], 80, &[Mode::Reflect], Some("uniform 3"));
}

#[test]
fn stream2_grid_strides_over_more_strips_than_grid_y() {
    // one plane of 2,200,008 rows: about 68,750 strips of 32 rows > 65535 blocks along grid.y
    check(&[2_200_008, 4], 81, &[Mode::Reflect], Some("uniform 3"));
}

#[test]
fn stream2_skips_unaligned_and_strided_inputs() {
    // a contiguous 1 x 128 view one element into its buffer (not 16-byte aligned: the 16-byte
    // variant must not run on it) and a transposed (strided) view: the fallbacks agree with the
    // CPU and, bit for bit, with the streaming kernel disabled
    let o = FilterOptions {
        mode: Mode::Reflect,
        ..Default::default()
    };
    let rowc = input(&[1, 129], 90);
    let sqc = input(&[36, 64], 91);
    for dev in devices() {
        let row = rowc.to_device(&dev).unwrap();
        let sq = sqc.to_device(&dev).unwrap();
        let views = [
            (
                "offset",
                row.slice_axis(1, Some(1), None, 1).unwrap(),
                rowc.slice_axis(1, Some(1), None, 1).unwrap(),
            ),
            (
                "transposed",
                sq.permute(&[1, 0]).unwrap(),
                sqc.permute(&[1, 0]).unwrap(),
            ),
        ];
        for (name, a, ac) in views {
            let ctx = format!("{name} on {dev}");
            let n0 = stream2_launches();
            let y = uniform_filter(&a, &[3], &o).unwrap();
            if name == "transposed" {
                assert_eq!(stream2_launches(), n0, "{ctx}");
            }
            let z = with_stream2_disabled(|| uniform_filter(&a, &[3], &o)).unwrap();
            let y = y.to_device(&Device::Cpu).unwrap();
            let z = z.to_device(&Device::Cpu).unwrap();
            let bits = |v: &Array<f32>| -> Vec<u32> {
                v.to_vec().unwrap().iter().map(|f| f.to_bits()).collect()
            };
            assert_eq!(bits(&y), bits(&z), "{ctx}: bits");
            let want = uniform_filter(&ac, &[3], &o).unwrap();
            assert_allclose(&y, &want, 1e-5, 2e-4, &ctx);
        }
    }
}
