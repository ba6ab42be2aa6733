//! generic_filter and generic_filter1d: Rust closures against the built-in filters they
//! reproduce (every device: closures run on the host), CUDA device functions against the same
//! closures on the GPU, and typed errors (the generated kernels' compile checks: the
//! `ndimage_generic` module of `kernel_modules`, in filters_kernels_compile).

use cusci_core::testing::{assert_allclose, devices, randn};
use cusci_core::Error;
use cusci_ndimage::*;

fn opts(mode: Mode, origin: isize) -> FilterOptions {
    FilterOptions {
        mode,
        cval: -0.5,
        origin: vec![origin],
        ..Default::default()
    }
}

/// mean · extra[0] + extra[1]
fn mean_cpu(v: &[f64], e: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64 * e[0] + e[1]
}
const MEAN_CUDA: &str =
    "__device__ double mean_fn(const double* v, long long n, const double* e, int ne) {
  double s = 0.0;
  for (long long k = 0; k < n; ++k) s += v[k];
  return s / (double)n * e[0] + e[1];
}";

fn max_cpu(v: &[f64], _: &[f64]) -> f64 {
    v.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
}
const MAX_CUDA: &str =
    "__device__ double max_fn(const double* v, long long n, const double*, int) {
  double m = v[0];
  for (long long k = 1; k < n; ++k) m = v[k] > m ? v[k] : m;
  return m;
}";

/// out[i] = Σ_k w[k] · in[i + k] with the weights in `extra` (a correlation by lines).
fn corr_cpu(i: &[f64], o: &mut [f64], w: &[f64]) {
    for (k, v) in o.iter_mut().enumerate() {
        *v = w.iter().enumerate().map(|(j, wj)| wj * i[k + j]).sum();
    }
}
const CORR_CUDA: &str =
    "__device__ void corr_fn(const double* in, long long ni, double* out, long long no,
                        const double* w, int nw) {
  for (long long k = 0; k < no; ++k) {
    double s = 0.0;
    for (int j = 0; j < nw; ++j) s += w[j] * in[k + j];
    out[k] = s;
  }
}";

#[test]
fn closures_reproduce_the_builtin_filters_on_every_device() {
    for dev in devices() {
        for shape in [&[1usize][..], &[9], &[6, 7], &[3, 4, 5]] {
            let x = randn::<f64>(shape, 3, &dev).unwrap();
            for mode in Mode::ALL {
                for origin in [-1isize, 0, 1] {
                    let o = opts(mode, origin);
                    let ctx = format!("{mode} {shape:?} origin {origin} on {dev:?}");
                    // mean over a 3-box = uniform_filter(3) (extra: scale 2, offset 1)
                    let g = generic_filter(
                        &x,
                        GenericFunction::Closure(&mean_cpu),
                        &Footprint::Size(vec![3]),
                        &[2.0, 1.0],
                        &o,
                    )
                    .unwrap();
                    assert_eq!(g.device(), &dev);
                    let u = uniform_filter(&x, &[3], &o)
                        .unwrap()
                        .mul_scalar(2.0)
                        .unwrap()
                        .add_scalar(1.0)
                        .unwrap();
                    assert_allclose(&g, &u, 1e-12, 1e-12, &format!("mean {ctx}"));
                    // max over a mask = maximum_filter with that footprint
                    let nd = shape.len();
                    let mask = Array::from_vec(
                        (0..3usize.pow(nd as u32)).map(|i| i % 2 == 0).collect(),
                        &vec![3; nd],
                        &Device::Cpu,
                    )
                    .unwrap();
                    let fp = Footprint::Mask(mask);
                    let g = generic_filter(&x, GenericFunction::Closure(&max_cpu), &fp, &[], &o)
                        .unwrap();
                    let m = maximum_filter(&x, &fp, &o).unwrap();
                    assert_allclose(&g, &m, 0.0, 0.0, &format!("max {ctx}"));
                    // a 4-tap line correlation = correlate1d with the same origin
                    let w = [0.5, -1.0, 2.0, 0.25];
                    let g =
                        generic_filter1d(&x, GenericFunction1d::Closure(&corr_cpu), 4, 0, &w, &o)
                            .unwrap();
                    let c = correlate1d(&x, &w, 0, &o).unwrap();
                    assert_allclose(&g, &c, 1e-12, 1e-12, &format!("line {ctx}"));
                }
            }
        }
    }
}

#[test]
fn cuda_functions_match_the_closures() {
    for dev in devices().into_iter().skip(1) {
        for shape in [&[1usize][..], &[33], &[6, 7], &[3, 4, 5], &[70, 65]] {
            let xc = randn::<f64>(shape, 5, &Device::Cpu).unwrap();
            for mode in Mode::ALL {
                let o = opts(mode, 1);
                let ctx = format!("{mode} {shape:?}");
                let cuda = GenericFunction::Cuda {
                    source: MEAN_CUDA,
                    name: "mean_fn",
                };
                let fp = Footprint::Size(vec![3]);
                let want = generic_filter(
                    &xc,
                    GenericFunction::Closure(&mean_cpu),
                    &fp,
                    &[2.0, 1.0],
                    &o,
                )
                .unwrap();
                let xg = xc.to_device(&dev).unwrap();
                let got = generic_filter(&xg, cuda, &fp, &[2.0, 1.0], &o).unwrap();
                assert_eq!(got.device(), &dev);
                assert_allclose(
                    &got.to_device(&Device::Cpu).unwrap(),
                    &want,
                    1e-12,
                    1e-12,
                    &ctx,
                );
                // f32 input with a max: exact
                let x32 = xc.astype::<f32>().unwrap();
                let want =
                    generic_filter(&x32, GenericFunction::Closure(&max_cpu), &fp, &[], &o).unwrap();
                let got = generic_filter(
                    &x32.to_device(&dev).unwrap(),
                    GenericFunction::Cuda {
                        source: MAX_CUDA,
                        name: "max_fn",
                    },
                    &fp,
                    &[],
                    &o,
                )
                .unwrap();
                assert_allclose(&got.to_device(&Device::Cpu).unwrap(), &want, 0.0, 0.0, &ctx);
                // lines along the first and the last axis
                let w = [0.5, -1.0, 2.0];
                for axis in [0, -1] {
                    let want = generic_filter1d(
                        &xc,
                        GenericFunction1d::Closure(&corr_cpu),
                        3,
                        axis,
                        &w,
                        &o,
                    )
                    .unwrap();
                    let got = generic_filter1d(
                        &xg,
                        GenericFunction1d::Cuda {
                            source: CORR_CUDA,
                            name: "corr_fn",
                        },
                        3,
                        axis,
                        &w,
                        &o,
                    )
                    .unwrap();
                    assert_allclose(
                        &got.to_device(&Device::Cpu).unwrap(),
                        &want,
                        1e-12,
                        1e-12,
                        &format!("line axis {axis} {ctx}"),
                    );
                }
            }
        }
    }
}

#[test]
fn bad_inputs_give_the_same_typed_errors() {
    for dev in devices() {
        let x = randn::<f64>(&[5, 6], 1, &dev).unwrap();
        let f = GenericFunction::Closure(&max_cpu);
        let f1 = GenericFunction1d::Closure(&corr_cpu);
        let fo = FilterOptions::default();
        let bad = [
            generic_filter(
                &x,
                f,
                &Footprint::Size(vec![3]),
                &[],
                &opts(Mode::Reflect, 2),
            )
            .err(),
            generic_filter(&x, f, &Footprint::Size(vec![]), &[], &fo).err(),
            generic_filter(
                &x,
                f,
                &Footprint::Mask(Array::<bool>::ones(&[3], &Device::Cpu).unwrap()),
                &[],
                &fo,
            )
            .err(),
            generic_filter1d(&x, f1, 0, 0, &[], &fo).err(),
            generic_filter1d(&x, f1, 3, 2, &[], &fo).err(),
            generic_filter1d(&x, f1, 3, 0, &[], &opts(Mode::Reflect, -2)).err(),
            generic_filter(
                &x,
                GenericFunction::Cuda {
                    source: MAX_CUDA,
                    name: "max fn",
                },
                &Footprint::Size(vec![3]),
                &[],
                &fo,
            )
            .err(),
        ];
        for (k, e) in bad.into_iter().enumerate() {
            match e {
                Some(Error::InvalidArgument { .. }) | Some(Error::ShapeMismatch { .. }) => {}
                other => panic!("case {k} on {dev:?}: {other:?}"),
            }
        }
        // a CUDA function needs a CUDA input
        if !dev.is_cuda() {
            let e = generic_filter(
                &x,
                GenericFunction::Cuda {
                    source: MAX_CUDA,
                    name: "max_fn",
                },
                &Footprint::Size(vec![3]),
                &[],
                &fo,
            );
            assert!(matches!(e, Err(Error::InvalidArgument { .. })), "{e:?}");
        }
    }
}

/// A closure's value is stored with SciPy's C casts: u8 wraps, i32 takes the minimum out of range.
#[test]
fn closure_results_are_stored_as_scipy_casts_them() {
    let fo = FilterOptions::default();
    // v[0] − 2·v[−1] + extra
    let f = |v: &[f64], e: &[f64]| v[0] - 2.0 * v[v.len() - 1] + e.iter().sum::<f64>();
    let nan = |_: &[f64], _: &[f64]| f64::NAN;
    let pairs = |i: &[f64], o: &mut [f64], e: &[f64]| {
        for (k, v) in o.iter_mut().enumerate() {
            *v = i[k] - i[k + 2] + e.iter().sum::<f64>();
        }
    };
    for dev in devices() {
        let u: Vec<u8> = (0..12).map(|i| ((i * 7 + 3) % 13 * 20) as u8).collect();
        let x = Array::from_vec(u, &[3, 4], &dev).unwrap();
        // scipy.ndimage.generic_filter(x, f, size=2, extra_arguments=(0.25,))
        let y = generic_filter(
            &x,
            GenericFunction::Closure(&f),
            &Footprint::Size(vec![2]),
            &[0.25],
            &fo,
        )
        .unwrap();
        assert_eq!(
            y.to_vec().unwrap(),
            vec![197, 173, 40, 153, 117, 93, 217, 80, 77, 60, 177, 40],
            "on {dev}"
        );
        // scipy.ndimage.generic_filter1d(x, pairs, 3, -1, extra_arguments=(0.5,))
        let y =
            generic_filter1d(&x, GenericFunction1d::Closure(&pairs), 3, -1, &[0.5], &fo).unwrap();
        assert_eq!(
            y.to_vec().unwrap(),
            vec![117, 237, 237, 117, 117, 237, 240, 120, 120, 237, 237, 120],
            "on {dev}"
        );
        let xi = Array::from_vec(vec![1i32, 2, 3, 4], &[4], &dev).unwrap();
        let y = generic_filter(
            &xi,
            GenericFunction::Closure(&nan),
            &Footprint::Size(vec![2]),
            &[],
            &fo,
        )
        .unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![i32::MIN; 4], "on {dev}");
    }
}
