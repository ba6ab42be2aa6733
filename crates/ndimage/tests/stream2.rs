//! The streaming kernel (`ndi_stream2f{N}`, `filters/stream2d.cu`): f32, two weighted-sum
//! passes over the last two axes with the vertical (axis `nd - 2`) pass first, equal odd windows of
//! 3, 5, 7 or 9 taps, the centred horizontal shift. On the GPU each filter is checked against the
//! CPU reference (f32 accumulates in f32 there, the CPU in f64) and against the same call on a
//! strided view of the same values (`ndi_sep2f`), bit for bit for weighted sums
//! and within a few ulps for the unit variant (uniform filters: shared partial sums), in every mode
//! (constant modes with cval != 0), on shapes that take the kernel's fast body (interior warps and
//! strips), its general body (plane edges, planes shorter than a strip or narrower than a warp,
//! one row), batched planes, more strips than grid.y and more planes than grid.z, and the fallbacks (width not a multiple of
//! 4, horizontal pass first, even windows, off-centre horizontal origin). Which kernel runs is
//! the pure plan `plan_sum_passes`, checked for each filter's passes; the comparison runs the
//! same values as a strided view, which the streaming kernel does not take (`ndi_sep2f` then).
//!
//! SciPy's `sobel(x, axis)` runs the derivative along `axis` first: `axis = nd - 2` is the
//! vertical-first order the streaming kernel takes; `axis = nd - 1` runs the horizontal pass
//! first and takes `ndi_sep2f`. `uniform_filter` and `gaussian_filter` run their passes in axis
//! order (vertical first).

use cusci_core::testing::{assert_allclose, devices, randn};
use cusci_core::DType;
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

/// The same values as `x`, on its device, as a strided view (every other element of a buffer
/// twice as wide, NaN between), which the streaming kernel does not take: a fused pair of
/// passes over it runs `ndi_sep2f`, as over `x` with the streaming kernel left out.
fn strided(x: &Array<f32>) -> Array<f32> {
    let mut shape = x.shape().to_vec();
    let v: Vec<f32> = x
        .to_vec()
        .unwrap()
        .into_iter()
        .flat_map(|a| [a, f32::NAN])
        .collect();
    *shape.last_mut().unwrap() *= 2;
    let wide = Array::from_vec(v, &shape, &Device::Cpu)
        .unwrap()
        .to_device(x.device())
        .unwrap();
    wide.slice_axis(-1, None, None, 2).unwrap()
}

/// A pass of `n` taps `w` along `axis` with its `shift`, divided by `div`.
fn pass(axis: usize, w: Vec<f64>, shift: i64, div: f64, mode: Mode) -> Pass {
    Pass {
        axis,
        w,
        shift,
        div,
        mode,
    }
}

/// SciPy's sobel / prewitt passes along `axis` of an `nd`-D array: the derivative first, then
/// `smooth` along every other axis.
fn edge_passes(nd: usize, axis: usize, smooth: [f64; 3], mode: Mode) -> Vec<Pass> {
    let mut v = vec![pass(axis, vec![-1.0, 0.0, 1.0], 1, 1.0, mode)];
    v.extend(
        (0..nd)
            .filter(|&a| a != axis)
            .map(|a| pass(a, smooth.to_vec(), 1, 1.0, mode)),
    );
    v
}

/// A uniform filter of size `n` over the last two axes with origins `o`.
fn uniform_passes(nd: usize, n: usize, o: [i64; 2], mode: Mode) -> Vec<Pass> {
    (0..2)
        .map(|k| {
            pass(
                nd - 2 + k,
                vec![1.0; n],
                n as i64 / 2 + o[k],
                n as f64,
                mode,
            )
        })
        .collect()
}

/// The planned streaming steps of `passes` over an f32 array of `shape`: their `vec` flags.
fn planned(shape: &[usize], contiguous: bool, aligned: bool, passes: &[Pass]) -> Vec<bool> {
    plan_sum_passes(DType::F32, shape, contiguous, aligned, passes)
        .into_iter()
        .filter_map(|s| match s {
            Step::Stream2 { vec, .. } => Some(vec),
            _ => None,
        })
        .collect()
}

/// A filter under test: its name, whether the streaming kernel applies to it, the call, and
/// the weighted-sum passes it runs.
type Case = (
    String,
    bool,
    Box<dyn Fn(&Array<f32>) -> Result<Array<f32>>>,
    Vec<Pass>,
);

fn cases(ndu: usize, mode: Mode) -> Vec<Case> {
    let nd = ndu as isize;
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
        edge_passes(ndu, ndu - 2, [1.0, 2.0, 1.0], mode),
    ));
    v.push((
        "sobel -1".into(),
        false,
        Box::new(move |x| sobel(x, nd - 1, &b)),
        edge_passes(ndu, ndu - 1, [1.0, 2.0, 1.0], mode),
    ));
    let a = o.clone();
    v.push((
        "prewitt -2".into(),
        nd == 2,
        Box::new(move |x| prewitt(x, nd - 2, &a)),
        edge_passes(ndu, ndu - 2, [1.0, 1.0, 1.0], mode),
    ));
    for n in [3usize, 5, 7, 9] {
        let a = last2.clone();
        v.push((
            format!("uniform {n}"),
            true,
            Box::new(move |x| uniform_filter(x, &[n], &a)),
            uniform_passes(ndu, n, [0, 0], mode),
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
        uniform_passes(ndu, 5, [-2, 0], mode),
    ));
    let a = FilterOptions {
        origin: vec![0, 1],
        ..last2.clone()
    };
    v.push((
        "uniform 5 origin (0, 1)".into(),
        false,
        Box::new(move |x| uniform_filter(x, &[5], &a)),
        uniform_passes(ndu, 5, [0, 1], mode),
    ));
    let a = last2.clone();
    v.push((
        "uniform 4".into(),
        false,
        Box::new(move |x| uniform_filter(x, &[4], &a)),
        uniform_passes(ndu, 4, [0, 0], mode),
    ));
    let g = GaussianOptions {
        mode,
        cval: CVAL,
        axes: Some(vec![nd - 2, nd - 1]),
        ..Default::default()
    };
    // SciPy's weights of sigma 1 (radius 4), reversed as correlation weights
    let mut w = gaussian_kernel1d(1.0, 0, 4).unwrap();
    w.reverse();
    v.push((
        "gaussian 1 (9 taps)".into(),
        true,
        Box::new(move |x| gaussian_filter(x, &[1.0], &g)),
        (0..2)
            .map(|k| pass(ndu - 2 + k, w.clone(), 4, 1.0, mode))
            .collect(),
    ));
    v
}

fn check(shape: &[usize], seed: u64, modes: &[Mode], only: Option<&str>) {
    let xc = input(shape, seed);
    let wd = shape[shape.len() - 1];
    // the plan: the streaming kernel for the filters it applies to (16-byte accesses where the
    // width is a multiple of 4, else the scalar variant), never over a strided view
    for &mode in modes {
        for (name, streams, _, passes) in cases(shape.len(), mode) {
            if only.is_some_and(|o| o != name) {
                continue;
            }
            let ctx = format!("{name} {mode} {shape:?}");
            let want: Vec<bool> = if streams { vec![wd % 4 == 0] } else { vec![] };
            assert_eq!(planned(shape, true, true, &passes), want, "{ctx}: plan");
            assert_eq!(
                planned(shape, false, true, &passes),
                vec![],
                "{ctx}: strided plan"
            );
        }
    }
    for dev in devices().into_iter().skip(1) {
        let xg = xc.to_device(&dev).unwrap();
        let xs = strided(&xg);
        for &mode in modes {
            for (name, streams, f, _) in cases(shape.len(), mode) {
                if only.is_some_and(|o| o != name) {
                    continue;
                }
                let ctx = format!("{name} {mode} {shape:?} on {dev}");
                let y = f(&xg).unwrap_or_else(|e| panic!("{ctx}: {e}"));
                let z = f(&xs).unwrap_or_else(|e| panic!("{ctx}: strided: {e}"));
                let (y, z) = (
                    y.to_device(&Device::Cpu).unwrap(),
                    z.to_device(&Device::Cpu).unwrap(),
                );
                let (yb, zb): (Vec<u32>, Vec<u32>) = (
                    y.to_vec().unwrap().iter().map(|v| v.to_bits()).collect(),
                    z.to_vec().unwrap().iter().map(|v| v.to_bits()).collect(),
                );
                if streams && name.starts_with("uniform") && wd % 4 == 0 {
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
    // variant must not run on it, the scalar one does) and a transposed (strided) view (no
    // streaming kernel): both agree with the CPU and, bit for bit, with ndi_sep2f over a strided
    // view of the same values
    let o = FilterOptions {
        mode: Mode::Reflect,
        ..Default::default()
    };
    let u3 = uniform_passes(2, 3, [0, 0], Mode::Reflect);
    assert_eq!(
        planned(&[1, 128], true, false, &u3),
        vec![false],
        "offset plan"
    );
    assert_eq!(
        planned(&[64, 36], false, true, &u3),
        vec![],
        "transposed plan"
    );
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
            let y = uniform_filter(&a, &[3], &o).unwrap();
            let z = uniform_filter(&strided(&a), &[3], &o).unwrap();
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
