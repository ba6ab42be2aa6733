//! Reductions and scans: the CPU reference against naive loops (every axis combination, views,
//! NaN, ties, empty inputs, errors, determinism), then the GPU against the CPU on sizes that reach
//! every kernel path (warp, block, two-pass, column, copy; the three scan paths).

use cusci_core::testing::{assert_slices_close, randn_vec};
use cusci_core::{c32, c64, Array, Device, Element, Error, Float, Numeric, Ordered};

const SHAPES: [&[usize]; 7] = [&[], &[0], &[1], &[2, 3], &[31, 33], &[257], &[4, 5, 6]];

/// The GPU to test on, or `None` (with a note) when there is none; `CUSCI_REQUIRE_GPU=1` makes a
/// missing GPU a failure.
fn gpu() -> Option<Device> {
    match Device::cuda(0) {
        Ok(d) => Some(d),
        Err(e) => {
            if std::env::var("CUSCI_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("GPU required: {e}")
            }
            eprintln!("skipping GPU half: {e}");
            None
        }
    }
}

// ------------------------------------------------------------------------------------------------
// naive references
// ------------------------------------------------------------------------------------------------

fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = i % shape[d];
        i /= shape[d];
    }
    idx
}

/// For each output (C order over the kept axes), its reduced elements in C order.
fn groups<T: Copy>(x: &[T], shape: &[usize], red: &[usize]) -> (Vec<usize>, Vec<Vec<T>>) {
    let kept: Vec<usize> = (0..shape.len()).filter(|d| !red.contains(d)).collect();
    let oshape: Vec<usize> = kept.iter().map(|&d| shape[d]).collect();
    let nout: usize = oshape.iter().product();
    let mut g = vec![Vec::new(); nout];
    for (i, &v) in x.iter().enumerate() {
        let idx = unravel(i, shape);
        let o = kept.iter().fold(0, |o, &d| o * shape[d] + idx[d]);
        g[o].push(v);
    }
    (oshape, g)
}

fn norm_red(axes: &[isize], nd: usize) -> Vec<usize> {
    let mut r: Vec<usize> = axes
        .iter()
        .map(|&a| {
            if a < 0 {
                (a + nd as isize) as usize
            } else {
                a as usize
            }
        })
        .collect();
    r.sort_unstable();
    r
}

fn naive_sum<T: Numeric>(g: &[T]) -> T {
    if T::DTYPE.is_integer() {
        T::from_i64(g.iter().fold(0i64, |s, x| s.wrapping_add(x.to_i64())))
    } else {
        T::from_c64(g.iter().fold(c64::new(0.0, 0.0), |s, x| s + x.to_c64()))
    }
}

fn naive_mean_w<T: Element>(g: &[T]) -> c64 {
    g.iter().fold(c64::new(0.0, 0.0), |s, x| s + x.to_c64()) / g.len() as f64
}

fn naive_var<T: Float>(g: &[T], ddof: usize) -> f64 {
    let m = naive_mean_w(g);
    let s: f64 = g.iter().map(|x| (x.to_c64() - m).norm_sqr()).sum();
    s / (g.len() as f64 - ddof as f64).max(0.0)
}

fn is_nan<T: Element>(x: T) -> bool {
    x.is_nan()
}

fn naive_minmax<T: Ordered>(g: &[T], max: bool) -> T {
    let mut m = g[0];
    for &x in g {
        if is_nan(m) {
            break;
        }
        if is_nan(x) || (max && x > m) || (!max && x < m) {
            m = x;
        }
    }
    m
}

fn naive_arg<T: Ordered>(g: &[T], max: bool) -> i64 {
    if let Some(i) = g.iter().position(|&x| is_nan(x)) {
        return i as i64;
    }
    let mut b = 0;
    for (i, &x) in g.iter().enumerate() {
        if (max && x > g[b]) || (!max && x < g[b]) {
            b = i;
        }
    }
    b as i64
}

// ------------------------------------------------------------------------------------------------
// inputs: the same data as contiguous and non-contiguous views
// ------------------------------------------------------------------------------------------------

/// Views of `shape` on `dev`: contiguous, transposed, every-other element of the last axis,
/// reversed along axis 0. The same seed gives the same values on every device.
fn views<T: Element>(shape: &[usize], seed: u64, dev: &Device) -> Vec<(&'static str, Array<T>)> {
    let n: usize = shape.iter().product();
    let mut v = vec![(
        "contiguous",
        Array::from_vec(randn_vec::<T>(n, seed), shape, dev).unwrap(),
    )];
    if shape.len() >= 2 {
        let rs: Vec<usize> = shape.iter().rev().copied().collect();
        let t = Array::from_vec(randn_vec::<T>(n, seed + 1), &rs, dev)
            .unwrap()
            .t();
        v.push(("transposed", t));
    }
    if !shape.is_empty() {
        let mut big = shape.to_vec();
        let l = big.len() - 1;
        big[l] *= 2;
        let nb: usize = big.iter().product();
        let s = Array::from_vec(randn_vec::<T>(nb, seed + 2), &big, dev)
            .unwrap()
            .slice_axis(-1, None, None, 2)
            .unwrap();
        v.push(("step2", s));
        let r = Array::from_vec(randn_vec::<T>(n, seed + 3), shape, dev)
            .unwrap()
            .slice_axis(0, None, None, -1)
            .unwrap();
        v.push(("reversed", r));
    }
    v
}

fn subsets(nd: usize) -> Vec<Vec<isize>> {
    (0..1usize << nd)
        .map(|m| {
            (0..nd)
                .filter(|d| (m >> d) & 1 == 1)
                .map(|d| d as isize)
                .collect()
        })
        .collect()
}

/// An input of the naive checks: its shape, its view's label, the array and its elements in C order.
type Input<T> = (&'static [usize], &'static str, Array<T>, Vec<T>);

/// The inputs of the naive checks: each of [`SHAPES`] as its [`views`] on the CPU.
fn cpu_inputs<T: Element>(seed: u64) -> Vec<Input<T>> {
    let mut v = Vec::new();
    for shape in SHAPES {
        for (label, a) in views::<T>(shape, seed, &Device::Cpu) {
            let x = a.to_vec().unwrap();
            v.push((shape, label, a, x));
        }
    }
    v
}

/// One reduction of a naive check: the axes (`axes` as passed, `red` sorted and non-negative),
/// the output shape `os`, and each output's `n` elements (`g`, C order).
struct AxesCase<T> {
    axes: Vec<isize>,
    red: Vec<usize>,
    os: Vec<usize>,
    g: Vec<Vec<T>>,
    n: usize,
}

/// Every subset of the axes of `shape` as an [`AxesCase`] of the elements `x`.
fn axes_cases<T: Copy>(x: &[T], shape: &[usize]) -> Vec<AxesCase<T>> {
    let nd = shape.len();
    subsets(nd)
        .into_iter()
        .map(|axes| {
            let red = norm_red(&axes, nd);
            let (os, g) = groups(x, shape, &red);
            let n = g.first().map_or(0, |g| g.len());
            AxesCase {
                axes,
                red,
                os,
                g,
                n,
            }
        })
        .collect()
}

/// Float tolerance for a result of `n` inputs (f32 results are rounded once from f64 sums).
fn rtol<T: Element>(n: usize) -> f64 {
    let l = 1.0 + (n.max(1) as f64).log2();
    match T::DTYPE.name() {
        "float32" | "complex64" => 1e-5 * l,
        "float64" | "complex128" => 1e-12 * l,
        _ => 0.0,
    }
}

/// Absolute tolerance: `rtol` times the largest magnitude (for outputs that cancel to near zero).
fn atol_of<T: Element>(e: &[T], rtol: f64) -> f64 {
    rtol * e
        .iter()
        .map(|x| x.to_c64().norm())
        .filter(|x| x.is_finite())
        .fold(0.0, f64::max)
}

fn close<T: Element>(got: &[T], exp: &[T], shape: &[usize], n: usize, ctx: &str) {
    let r = rtol::<T>(n);
    assert_slices_close(got, exp, shape, r, atol_of(exp, r), ctx);
}

// ------------------------------------------------------------------------------------------------
// CPU against naive loops
// ------------------------------------------------------------------------------------------------

fn check_sum_mean<T: Numeric>(seed: u64) {
    for (shape, label, a, x) in cpu_inputs::<T>(seed) {
        let nd = shape.len();
        for AxesCase {
            axes,
            red,
            os,
            g,
            n,
        } in axes_cases(&x, shape)
        {
            let neg: Vec<isize> = axes.iter().map(|&d| d - nd as isize).collect();
            let ctx = format!("{} sum {label} {shape:?} axes {axes:?}", T::DTYPE);
            let exp: Vec<T> = g.iter().map(|g| naive_sum(g)).collect();
            let got = a.sum_axes(&axes).unwrap();
            assert_eq!(got.shape(), &os[..], "{ctx}");
            close(&got.to_vec().unwrap(), &exp, &os, n, &ctx);
            // negative axes give the same
            let got2 = a.sum_axes(&neg).unwrap();
            assert_eq!(
                got2.to_vec().unwrap(),
                got.to_vec().unwrap(),
                "{ctx} negative"
            );
            // keepdims
            let k = a.sum_axes_keepdims(&axes).unwrap();
            let ks: Vec<usize> = (0..nd)
                .map(|d| if red.contains(&d) { 1 } else { shape[d] })
                .collect();
            assert_eq!(k.shape(), &ks[..], "{ctx} keepdims");
            assert_eq!(k.to_vec().unwrap(), got.to_vec().unwrap(), "{ctx} keepdims");
        }
        // full sum
        let all: Vec<T> = vec![naive_sum(&x)];
        close(
            &[a.sum().unwrap()],
            &all,
            &[],
            x.len(),
            &format!("{label} sum()"),
        );
    }
}

#[test]
fn cpu_sum_matches_naive() {
    check_sum_mean::<f64>(1);
    check_sum_mean::<f32>(2);
    check_sum_mean::<c64>(3);
    check_sum_mean::<c32>(4);
    check_sum_mean::<i32>(5);
    check_sum_mean::<i64>(6);
    check_sum_mean::<u8>(7);
}

fn check_float_stats<T: Float>(seed: u64) {
    for (shape, label, a, x) in cpu_inputs::<T>(seed) {
        for AxesCase { axes, os, g, n, .. } in axes_cases(&x, shape) {
            let ctx = format!("{} {label} {shape:?} axes {axes:?}", T::DTYPE);
            // mean (empty axes: a copy)
            let exp: Vec<T> = g.iter().map(|g| T::from_c64(naive_mean_w(g))).collect();
            let got = a.mean_axes(&axes).unwrap().to_vec().unwrap();
            close(&got, &exp, &os, n, &format!("{ctx} mean"));
            // var / std with ddof 0 and 1
            for ddof in [0, 1] {
                let ev: Vec<T::Real> = g
                    .iter()
                    .map(|g| T::Real::from_c64(c64::new(naive_var(g, ddof), 0.0)))
                    .collect();
                let gv = a.var_axes(&axes, ddof).unwrap().to_vec().unwrap();
                close(&gv, &ev, &os, n, &format!("{ctx} var ddof {ddof}"));
                let es: Vec<T::Real> = g
                    .iter()
                    .map(|g| T::Real::from_c64(c64::new(naive_var(g, ddof).sqrt(), 0.0)))
                    .collect();
                let gs = a.std_axes(&axes, ddof).unwrap().to_vec().unwrap();
                close(&gs, &es, &os, n, &format!("{ctx} std ddof {ddof}"));
            }
            // norm
            let en: Vec<T::Real> = g
                .iter()
                .map(|g| {
                    let s: f64 = g.iter().map(|x| x.to_c64().norm_sqr()).sum();
                    T::Real::from_c64(c64::new(s.sqrt(), 0.0))
                })
                .collect();
            let gn = a.norm_axes(&axes).unwrap().to_vec().unwrap();
            close(&gn, &en, &os, n, &format!("{ctx} norm"));
        }
        // full reductions
        let m = a.mean().unwrap();
        if x.is_empty() {
            assert!(is_nan(m), "{label} mean of nothing is NaN");
            assert!(is_nan(a.var(0).unwrap()), "{label} var of nothing is NaN");
        } else {
            close(&[m], &[T::from_c64(naive_mean_w(&x))], &[], x.len(), label);
            let v = T::Real::from_c64(c64::new(naive_var(&x, 1), 0.0));
            close(&[a.var(1).unwrap()], &[v], &[], x.len(), label);
        }
    }
}

#[test]
fn cpu_float_stats_match_naive() {
    check_float_stats::<f64>(11);
    check_float_stats::<f32>(12);
    check_float_stats::<c64>(13);
    check_float_stats::<c32>(14);
}

fn check_minmax_arg<T: Ordered>(seed: u64) {
    for (shape, label, a, x) in cpu_inputs::<T>(seed) {
        let nd = shape.len();
        for AxesCase {
            axes, red, os, g, ..
        } in axes_cases(&x, shape)
        {
            let ctx = format!("{} {label} {shape:?} axes {axes:?}", T::DTYPE);
            let empty = red.iter().any(|&d| shape[d] == 0);
            for max in [false, true] {
                let got = if max {
                    a.max_axes(&axes)
                } else {
                    a.min_axes(&axes)
                };
                if empty && !axes.is_empty() {
                    assert!(
                        matches!(got, Err(Error::InvalidArgument { .. })),
                        "{ctx}: empty reduction must fail"
                    );
                    continue;
                }
                let got = got.unwrap();
                assert_eq!(got.shape(), &os[..], "{ctx}");
                let exp: Vec<T> = g.iter().map(|g| naive_minmax(g, max)).collect();
                assert_eq!(got.to_vec().unwrap(), exp, "{ctx} max={max}");
            }
        }
        for ax in 0..nd {
            let (os, g) = groups(&x, shape, &[ax]);
            for max in [false, true] {
                let got = if max {
                    a.argmax_axis(ax as isize)
                } else {
                    a.argmin_axis(ax as isize)
                };
                if shape[ax] == 0 {
                    assert!(matches!(got, Err(Error::InvalidArgument { .. })));
                    continue;
                }
                let got = got.unwrap();
                assert_eq!(got.shape(), &os[..]);
                let exp: Vec<i64> = g.iter().map(|g| naive_arg(g, max)).collect();
                assert_eq!(
                    got.to_vec().unwrap(),
                    exp,
                    "{label} {shape:?} arg axis {ax} max={max}"
                );
            }
        }
        if x.is_empty() {
            assert!(matches!(a.min(), Err(Error::InvalidArgument { .. })));
            assert!(matches!(a.argmax(), Err(Error::InvalidArgument { .. })));
        } else {
            assert_eq!(a.min().unwrap(), naive_minmax(&x, false));
            assert_eq!(a.max().unwrap(), naive_minmax(&x, true));
            assert_eq!(a.argmin().unwrap() as i64, naive_arg(&x, false));
            assert_eq!(a.argmax().unwrap() as i64, naive_arg(&x, true));
        }
    }
}

#[test]
fn cpu_min_max_arg_match_naive() {
    check_minmax_arg::<f64>(21);
    check_minmax_arg::<f32>(22);
    check_minmax_arg::<i32>(23);
    check_minmax_arg::<i64>(24);
    check_minmax_arg::<u8>(25);
    check_minmax_arg::<bool>(26);
}

fn check_cumsum<T: Numeric>(seed: u64) {
    let dev = Device::Cpu;
    for shape in SHAPES.iter().skip(1) {
        for (label, a) in views::<T>(shape, seed, &dev) {
            let x = a.to_vec().unwrap();
            for ax in 0..shape.len() {
                let got = a.cumsum(ax as isize).unwrap();
                assert_eq!(got.shape(), *shape);
                assert!(got.is_contiguous());
                let exp = naive_cumsum(&x, shape, ax);
                let ctx = format!("{} cumsum {label} {shape:?} axis {ax}", T::DTYPE);
                close(&got.to_vec().unwrap(), &exp, shape, shape[ax], &ctx);
                let neg = a.cumsum(ax as isize - shape.len() as isize).unwrap();
                assert_eq!(neg.to_vec().unwrap(), got.to_vec().unwrap(), "{ctx}");
            }
        }
    }
}

fn naive_cumsum<T: Numeric>(x: &[T], shape: &[usize], ax: usize) -> Vec<T> {
    let stride: usize = shape[ax + 1..].iter().product();
    let mut out = vec![T::zero(); x.len()];
    for (i, o) in out.iter_mut().enumerate() {
        let k = (i / stride) % shape[ax];
        let g: Vec<T> = (0..=k).map(|j| x[i - (k - j) * stride]).collect();
        *o = naive_sum(&g);
    }
    out
}

#[test]
fn cpu_cumsum_matches_naive() {
    check_cumsum::<f64>(31);
    check_cumsum::<f32>(32);
    check_cumsum::<c64>(33);
    check_cumsum::<i32>(34);
    check_cumsum::<u8>(35);
}

#[test]
fn nan_and_ties() {
    let nan = f64::NAN;
    for dev in std::iter::once(Device::Cpu).chain(gpu()) {
        let a = Array::from_vec(vec![3.0, nan, 1.0, nan, 1.0], &[5], &dev).unwrap();
        assert!(a.min().unwrap().is_nan());
        assert!(a.max().unwrap().is_nan());
        assert_eq!(a.argmin().unwrap(), 1, "first NaN wins");
        assert_eq!(a.argmax().unwrap(), 1);
        assert!(a.sum().unwrap().is_nan());
        let t = Array::from_vec(vec![2.0f32, 1.0, 5.0, 1.0, 5.0], &[5], &dev).unwrap();
        assert_eq!(t.argmin().unwrap(), 1, "first of ties");
        assert_eq!(t.argmax().unwrap(), 2);
        assert_eq!((t.min().unwrap(), t.max().unwrap()), (1.0, 5.0));
        // rows with and without NaN
        let m = Array::from_vec(
            vec![1.0, 2.0, 3.0, 4.0, nan, 0.0, 7.0, 7.0, -1.0, -1.0, 9.0, 9.0],
            &[3, 4],
            &dev,
        )
        .unwrap();
        let mx = m.max_axes(&[1]).unwrap().to_vec().unwrap();
        assert_eq!(mx[0], 4.0);
        assert!(mx[1].is_nan());
        assert_eq!(mx[2], 9.0);
        assert_eq!(m.argmax_axis(1).unwrap().to_vec().unwrap(), vec![3, 0, 2]);
        assert_eq!(m.argmin_axis(1).unwrap().to_vec().unwrap(), vec![0, 0, 0]);
        assert_eq!(
            m.argmin_axis(0).unwrap().to_vec().unwrap(),
            vec![1, 2, 0, 0],
            "column 0 holds a NaN"
        );
        // ±Inf
        let inf = Array::from_vec(vec![f64::INFINITY, 1.0, f64::NEG_INFINITY], &[3], &dev).unwrap();
        assert_eq!(inf.argmax().unwrap(), 0);
        assert_eq!(inf.argmin().unwrap(), 2);
        assert!(inf.sum().unwrap().is_nan());
        // all equal: index 0
        let z = Array::<i32>::zeros(&[4, 70], &dev).unwrap();
        assert_eq!(z.argmax_axis(1).unwrap().to_vec().unwrap(), vec![0; 4]);
        assert_eq!(z.argmin().unwrap(), 0);
    }
}

#[test]
fn empty_zero_d_and_errors() {
    for dev in std::iter::once(Device::Cpu).chain(gpu()) {
        let e = Array::<f64>::zeros(&[0], &dev).unwrap();
        assert_eq!(e.sum().unwrap(), 0.0);
        assert!(e.mean().unwrap().is_nan());
        assert_eq!(e.norm().unwrap(), 0.0);
        for r in [e.min(), e.max()] {
            assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}");
        }
        assert!(matches!(e.argmin(), Err(Error::InvalidArgument { .. })));
        assert!(matches!(
            e.argmax_axis(0),
            Err(Error::InvalidArgument { .. })
        ));
        // [0, 3]: reducing the non-empty axis gives an empty result, the empty one an error
        let e2 = Array::<f32>::zeros(&[0, 3], &dev).unwrap();
        assert_eq!(e2.max_axes(&[1]).unwrap().shape(), &[0]);
        assert_eq!(e2.argmin_axis(1).unwrap().shape(), &[0]);
        assert!(matches!(
            e2.max_axes(&[0]),
            Err(Error::InvalidArgument { .. })
        ));
        assert_eq!(e2.sum_axes(&[0]).unwrap().to_vec().unwrap(), vec![0.0; 3]);
        let m = e2.mean_axes(&[0]).unwrap().to_vec().unwrap();
        assert!(m.iter().all(|v| v.is_nan()));
        assert_eq!(e2.cumsum(1).unwrap().shape(), &[0, 3]);
        // 0-d
        let s = Array::scalar(2.5f64, &dev).unwrap();
        assert_eq!(s.sum().unwrap(), 2.5);
        assert_eq!(s.mean().unwrap(), 2.5);
        assert_eq!((s.min().unwrap(), s.max().unwrap()), (2.5, 2.5));
        assert_eq!(s.argmax().unwrap(), 0);
        assert_eq!(s.var(0).unwrap(), 0.0);
        assert_eq!(s.sum_axes(&[]).unwrap().shape(), &[] as &[usize]);
        assert!(matches!(s.cumsum(0), Err(Error::InvalidArgument { .. })));
        assert!(matches!(
            s.argmin_axis(0),
            Err(Error::InvalidArgument { .. })
        ));
        // ddof >= n: inf or NaN as NumPy
        let two = Array::from_vec(vec![1.0f64, 3.0], &[2], &dev).unwrap();
        assert_eq!(two.var(2).unwrap(), f64::INFINITY);
        assert_eq!(two.var(5).unwrap(), f64::INFINITY);
        let one = Array::from_vec(vec![1.0f64], &[1], &dev).unwrap();
        assert!(one.var(1).unwrap().is_nan());
        // bad axes: the same error on every device
        let a = Array::<f32>::ones(&[2, 3], &dev).unwrap();
        for axes in [&[2isize][..], &[-3], &[0, 0], &[1, -1]] {
            assert!(
                matches!(a.sum_axes(axes), Err(Error::InvalidArgument { .. })),
                "{axes:?}"
            );
            assert!(matches!(
                a.mean_axes(axes),
                Err(Error::InvalidArgument { .. })
            ));
            assert!(matches!(
                a.min_axes(axes),
                Err(Error::InvalidArgument { .. })
            ));
            assert!(matches!(
                a.var_axes(axes, 0),
                Err(Error::InvalidArgument { .. })
            ));
            assert!(matches!(
                a.norm_axes(axes),
                Err(Error::InvalidArgument { .. })
            ));
        }
        assert!(matches!(
            a.argmin_axis(2),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(a.cumsum(-3), Err(Error::InvalidArgument { .. })));
        // the same message on both devices
        let msg = |r: Result<f32, Error>| r.unwrap_err().to_string();
        let c = Array::<f32>::zeros(&[0], &Device::Cpu).unwrap();
        let d = Array::<f32>::zeros(&[0], &dev).unwrap();
        assert_eq!(msg(c.min()), msg(d.min()));
        // empty axes: a copy (NumPy's axis=())
        assert_eq!(a.sum_axes(&[]).unwrap().to_vec().unwrap(), vec![1.0; 6]);
        assert_eq!(a.var_axes(&[], 0).unwrap().to_vec().unwrap(), vec![0.0; 6]);
        assert_eq!(a.norm_axes(&[]).unwrap().to_vec().unwrap(), vec![1.0; 6]);
    }
}

#[test]
fn integer_sums_wrap() {
    for dev in std::iter::once(Device::Cpu).chain(gpu()) {
        let a = Array::from_vec(vec![i32::MAX, 1, 5], &[3], &dev).unwrap();
        assert_eq!(a.sum().unwrap(), i32::MIN.wrapping_add(5));
        let u = Array::from_vec(vec![200u8, 100, 1], &[3], &dev).unwrap();
        assert_eq!(u.sum().unwrap(), 45);
        assert_eq!(u.cumsum(0).unwrap().to_vec().unwrap(), vec![200, 44, 45]);
        let big = Array::from_vec(vec![i64::MAX, 2], &[2], &dev).unwrap();
        assert_eq!(big.sum().unwrap(), i64::MIN + 1);
    }
}

#[test]
fn cpu_large_and_deterministic() {
    // above the CPU chunk size: chunked folds combined in order
    let n = (1 << 20) + 3;
    let x = randn_vec::<f32>(n, 41);
    let a = Array::from_vec(x.clone(), &[n], &Device::Cpu).unwrap();
    let exp = naive_sum(&x);
    close(&[a.sum().unwrap()], &[exp], &[], n, "sum 2^20+3");
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                (
                    a.sum().unwrap().to_bits(),
                    a.mean().unwrap().to_bits(),
                    a.var(0).unwrap().to_bits(),
                    a.norm().unwrap().to_bits(),
                )
            })
    };
    assert_eq!(run(1), run(3), "independent of the thread count");
    assert_eq!(run(2), run(2), "the same on every run");
}

// ------------------------------------------------------------------------------------------------
// GPU against CPU
// ------------------------------------------------------------------------------------------------

fn gpu_vs_cpu_sum<T: Numeric>(g: &Device, shape: &[usize], axes_list: &[Vec<isize>], seed: u64) {
    let cv = views::<T>(shape, seed, &Device::Cpu);
    let gv = views::<T>(shape, seed, g);
    for ((label, c), (_, d)) in cv.iter().zip(&gv) {
        for axes in axes_list {
            let ctx = format!("{} gpu sum {label} {shape:?} axes {axes:?}", T::DTYPE);
            let red = norm_red(axes, shape.len());
            let n: usize = red.iter().map(|&d| shape[d]).product();
            let e = c.sum_axes(axes).unwrap();
            let r = d.sum_axes(axes).unwrap();
            assert_eq!(r.shape(), e.shape(), "{ctx}");
            assert!(r.device().is_cuda());
            close(
                &r.to_vec().unwrap(),
                &e.to_vec().unwrap(),
                e.shape(),
                n,
                &ctx,
            );
        }
        let n: usize = shape.iter().product();
        close(
            &[d.sum().unwrap()],
            &[c.sum().unwrap()],
            &[],
            n,
            &format!("{label} sum()"),
        );
    }
}

fn gpu_vs_cpu_float<T: Float>(g: &Device, shape: &[usize], axes_list: &[Vec<isize>], seed: u64) {
    let cv = views::<T>(shape, seed, &Device::Cpu);
    let gv = views::<T>(shape, seed, g);
    for ((label, c), (_, d)) in cv.iter().zip(&gv) {
        for axes in axes_list {
            let ctx = format!("{} gpu {label} {shape:?} axes {axes:?}", T::DTYPE);
            let red = norm_red(axes, shape.len());
            let n: usize = red.iter().map(|&d| shape[d]).product();
            let (e, r) = (c.mean_axes(axes).unwrap(), d.mean_axes(axes).unwrap());
            close(
                &r.to_vec().unwrap(),
                &e.to_vec().unwrap(),
                e.shape(),
                n,
                &format!("{ctx} mean"),
            );
            for ddof in [0, 1] {
                let (e, r) = (
                    c.var_axes(axes, ddof).unwrap(),
                    d.var_axes(axes, ddof).unwrap(),
                );
                close(
                    &r.to_vec().unwrap(),
                    &e.to_vec().unwrap(),
                    e.shape(),
                    n,
                    &format!("{ctx} var"),
                );
                let (e, r) = (
                    c.std_axes(axes, ddof).unwrap(),
                    d.std_axes(axes, ddof).unwrap(),
                );
                close(
                    &r.to_vec().unwrap(),
                    &e.to_vec().unwrap(),
                    e.shape(),
                    n,
                    &format!("{ctx} std"),
                );
            }
            let (e, r) = (c.norm_axes(axes).unwrap(), d.norm_axes(axes).unwrap());
            close(
                &r.to_vec().unwrap(),
                &e.to_vec().unwrap(),
                e.shape(),
                n,
                &format!("{ctx} norm"),
            );
        }
        let n: usize = shape.iter().product();
        close(
            &[d.mean().unwrap()],
            &[c.mean().unwrap()],
            &[],
            n,
            &format!("{label} mean()"),
        );
        close(
            &[d.var(0).unwrap()],
            &[c.var(0).unwrap()],
            &[],
            n,
            &format!("{label} var()"),
        );
        close(
            &[d.std(1).unwrap()],
            &[c.std(1).unwrap()],
            &[],
            n,
            &format!("{label} std()"),
        );
        close(
            &[d.norm().unwrap()],
            &[c.norm().unwrap()],
            &[],
            n,
            &format!("{label} norm()"),
        );
    }
}

fn gpu_vs_cpu_order<T: Ordered>(g: &Device, shape: &[usize], axes_list: &[Vec<isize>], seed: u64) {
    let cv = views::<T>(shape, seed, &Device::Cpu);
    let gv = views::<T>(shape, seed, g);
    for ((label, c), (_, d)) in cv.iter().zip(&gv) {
        let ctx = format!("{} gpu {label} {shape:?}", T::DTYPE);
        for axes in axes_list {
            let (e, r) = (c.min_axes(axes).unwrap(), d.min_axes(axes).unwrap());
            assert_eq!(
                r.to_vec().unwrap(),
                e.to_vec().unwrap(),
                "{ctx} min {axes:?}"
            );
            let (e, r) = (c.max_axes(axes).unwrap(), d.max_axes(axes).unwrap());
            assert_eq!(
                r.to_vec().unwrap(),
                e.to_vec().unwrap(),
                "{ctx} max {axes:?}"
            );
        }
        for ax in 0..shape.len() as isize {
            let (e, r) = (c.argmin_axis(ax).unwrap(), d.argmin_axis(ax).unwrap());
            assert_eq!(
                r.to_vec().unwrap(),
                e.to_vec().unwrap(),
                "{ctx} argmin axis {ax}"
            );
            let (e, r) = (c.argmax_axis(ax).unwrap(), d.argmax_axis(ax).unwrap());
            assert_eq!(
                r.to_vec().unwrap(),
                e.to_vec().unwrap(),
                "{ctx} argmax axis {ax}"
            );
        }
        assert_eq!(d.min().unwrap(), c.min().unwrap(), "{ctx} min()");
        assert_eq!(d.max().unwrap(), c.max().unwrap(), "{ctx} max()");
        assert_eq!(d.argmin().unwrap(), c.argmin().unwrap(), "{ctx} argmin()");
        assert_eq!(d.argmax().unwrap(), c.argmax().unwrap(), "{ctx} argmax()");
    }
}

/// Shapes and axes reaching each GPU path: groups of lanes per row (rows of at most 1024), a
/// block per row (longer rows, many of them or at most 2048 long), two passes (few long rows),
/// columns (reduced axis strided, outputs adjacent; with and without slices), and the copy path
/// (reduced axes that do not merge).
fn gpu_cases() -> Vec<(Vec<usize>, Vec<Vec<isize>>)> {
    vec![
        (vec![2, 3], subsets(2)),
        (vec![31, 33], subsets(2)),
        (vec![4, 5, 6], subsets(3)),
        (vec![257], vec![vec![0]]),
        (vec![(1 << 20) + 3], vec![vec![0]]), // two-pass, one row
        (vec![3, 100_003], vec![vec![1], vec![0]]), // two-pass rows; columns without slices
        (vec![1500, 1100], vec![vec![1], vec![0]]), // block per row; sliced columns
        (vec![3, 2000], vec![vec![1]]),       // block per row, few rows
        (vec![5000, 100], vec![vec![1], vec![0]]), // warp per row; columns
        (vec![40, 50, 60], vec![vec![0, 2], vec![1], vec![0, 1]]), // copy path; merged axes
    ]
}

#[test]
fn gpu_matches_cpu() {
    let Some(g) = gpu() else { return };
    for (i, (shape, axes)) in gpu_cases().into_iter().enumerate() {
        let s = 100 + 10 * i as u64;
        gpu_vs_cpu_sum::<f32>(&g, &shape, &axes, s);
        gpu_vs_cpu_sum::<f64>(&g, &shape, &axes, s + 1);
        gpu_vs_cpu_sum::<i32>(&g, &shape, &axes, s + 2);
        gpu_vs_cpu_float::<f32>(&g, &shape, &axes, s + 3);
        gpu_vs_cpu_float::<f64>(&g, &shape, &axes, s + 4);
        gpu_vs_cpu_order::<f32>(&g, &shape, &axes, s + 5);
        gpu_vs_cpu_order::<i32>(&g, &shape, &axes, s + 6);
        if shape.iter().product::<usize>() < 1 << 18 {
            gpu_vs_cpu_sum::<c32>(&g, &shape, &axes, s + 7);
            gpu_vs_cpu_sum::<c64>(&g, &shape, &axes, s + 8);
            gpu_vs_cpu_sum::<i64>(&g, &shape, &axes, s + 9);
            gpu_vs_cpu_sum::<u8>(&g, &shape, &axes, s + 10);
            gpu_vs_cpu_float::<c32>(&g, &shape, &axes, s + 11);
            gpu_vs_cpu_float::<c64>(&g, &shape, &axes, s + 12);
            gpu_vs_cpu_order::<f64>(&g, &shape, &axes, s + 13);
            gpu_vs_cpu_order::<i64>(&g, &shape, &axes, s + 14);
            gpu_vs_cpu_order::<u8>(&g, &shape, &axes, s + 15);
            gpu_vs_cpu_order::<bool>(&g, &shape, &axes, s + 16);
        }
    }
    // small shapes and every view on both devices
    for (k, shape) in SHAPES.iter().enumerate() {
        let axes = subsets(shape.len());
        let s = 500 + 20 * k as u64;
        gpu_vs_cpu_sum::<f32>(&g, shape, &axes, s);
        gpu_vs_cpu_sum::<i64>(&g, shape, &axes, s + 1);
        gpu_vs_cpu_float::<c64>(&g, shape, &axes, s + 2);
        if !shape.contains(&0) {
            gpu_vs_cpu_order::<f64>(&g, shape, &axes, s + 3);
            gpu_vs_cpu_order::<u8>(&g, shape, &axes, s + 4);
        }
    }
}

#[test]
fn gpu_nan_in_long_rows() {
    let Some(g) = gpu() else { return };
    // NaNs placed late in long rows (two-pass and block paths), with ties before them
    for (rows, len) in [
        (1usize, (1usize << 20) + 3),
        (3, 100_003),
        (1500, 1100),
        (2000, 40),
    ] {
        let mut x = vec![1.0f32; rows * len];
        for r in 0..rows {
            x[r * len + len / 3] = -5.0;
            x[r * len + len / 2] = -5.0;
            if r % 2 == 0 {
                x[r * len + len - 2] = f32::NAN;
                x[r * len + len - 1] = f32::NAN;
            }
        }
        let c = Array::from_vec(x.clone(), &[rows, len], &Device::Cpu).unwrap();
        let d = Array::from_vec(x, &[rows, len], &g).unwrap();
        for ax in [0isize, 1] {
            let (e, r) = (c.argmin_axis(ax).unwrap(), d.argmin_axis(ax).unwrap());
            assert_eq!(
                r.to_vec().unwrap(),
                e.to_vec().unwrap(),
                "argmin {rows}x{len} axis {ax}"
            );
            let (e, r) = (c.min_axes(&[ax]).unwrap(), d.min_axes(&[ax]).unwrap());
            let (e, r) = (e.to_vec().unwrap(), r.to_vec().unwrap());
            assert!(e
                .iter()
                .zip(&r)
                .all(|(a, b)| a == b || (a.is_nan() && b.is_nan())));
        }
        assert_eq!(d.argmin().unwrap(), c.argmin().unwrap());
        assert_eq!(d.argmax().unwrap(), c.argmax().unwrap());
        assert!(d.max().unwrap().is_nan());
    }
}

fn gpu_vs_cpu_cumsum<T: Numeric>(g: &Device, shape: &[usize], seed: u64) {
    let cv = views::<T>(shape, seed, &Device::Cpu);
    let gv = views::<T>(shape, seed, g);
    for ((label, c), (_, d)) in cv.iter().zip(&gv) {
        for ax in 0..shape.len() {
            let ctx = format!("{} gpu cumsum {label} {shape:?} axis {ax}", T::DTYPE);
            let (e, r) = (
                c.cumsum(ax as isize).unwrap(),
                d.cumsum(ax as isize).unwrap(),
            );
            assert_eq!(r.shape(), e.shape(), "{ctx}");
            close(
                &r.to_vec().unwrap(),
                &e.to_vec().unwrap(),
                shape,
                shape[ax],
                &ctx,
            );
        }
    }
}

#[test]
fn gpu_cumsum_matches_cpu() {
    let Some(g) = gpu() else { return };
    // warp per lane (<= 256), block per lane, three passes (few lanes longer than 16384)
    let shapes: [&[usize]; 8] = [
        &[1],
        &[257],
        &[31, 33],
        &[4, 5, 6],
        &[300, 40],
        &[3, 5000],
        &[2, 70_001],
        &[(1 << 20) + 3],
    ];
    for (i, shape) in shapes.iter().enumerate() {
        let s = 700 + 10 * i as u64;
        gpu_vs_cpu_cumsum::<f64>(&g, shape, s);
        gpu_vs_cpu_cumsum::<f32>(&g, shape, s + 1);
        gpu_vs_cpu_cumsum::<i32>(&g, shape, s + 2);
        if shape.iter().product::<usize>() < 1 << 18 {
            gpu_vs_cpu_cumsum::<c32>(&g, shape, s + 3);
            gpu_vs_cpu_cumsum::<c64>(&g, shape, s + 4);
            gpu_vs_cpu_cumsum::<i64>(&g, shape, s + 5);
            gpu_vs_cpu_cumsum::<u8>(&g, shape, s + 6);
        }
    }
}

#[test]
fn gpu_cumsum_2_26_lane() {
    let Some(g) = gpu() else { return };
    // one lane of 2^26 + 5 small integers: exact on both devices
    let n = (1usize << 26) + 5;
    let x: Vec<i32> = (0..n).map(|i| ((i * 7919) % 13) as i32 - 6).collect();
    let d = Array::from_vec(x.clone(), &[n], &g).unwrap();
    let r = d.cumsum(0).unwrap().to_vec().unwrap();
    let mut s = 0i32;
    for (i, (&v, &got)) in x.iter().zip(&r).enumerate() {
        s = s.wrapping_add(v);
        assert_eq!(got, s, "index {i}");
    }
    // and as f64 (exact: small integers)
    let f: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let d = Array::from_vec(f, &[n], &g).unwrap();
    let r = d.cumsum(0).unwrap().to_vec().unwrap();
    let mut s = 0.0f64;
    for (i, (&v, &got)) in x.iter().zip(&r).enumerate() {
        s += v as f64;
        assert_eq!(got, s, "f64 index {i}");
    }
}

#[test]
fn gpu_deterministic() {
    let Some(g) = gpu() else { return };
    for shape in [vec![(1usize << 22) + 7], vec![3, 100_003], vec![4096, 64]] {
        let n: usize = shape.iter().product();
        let a = Array::from_vec(randn_vec::<f32>(n, 9), &shape, &g).unwrap();
        let last = shape.len() as isize - 1;
        let once = || {
            let s: Vec<u32> = a
                .sum_axes(&[last])
                .unwrap()
                .to_vec()
                .unwrap()
                .iter()
                .map(|v| v.to_bits())
                .collect();
            let t: Vec<u32> = a
                .sum_axes(&[0])
                .unwrap()
                .to_vec()
                .unwrap()
                .iter()
                .map(|v| v.to_bits())
                .collect();
            let v = a.var(0).unwrap().to_bits();
            let c: Vec<u32> = a
                .cumsum(last)
                .unwrap()
                .to_vec()
                .unwrap()
                .iter()
                .map(|v| v.to_bits())
                .collect();
            (a.sum().unwrap().to_bits(), s, t, v, c)
        };
        assert!(once() == once(), "{shape:?}: two runs differ");
        let b =
            Array::from_vec(randn_vec::<c64>(n.min(1 << 20), 10), &[n.min(1 << 20)], &g).unwrap();
        assert_eq!(b.sum().unwrap(), b.sum().unwrap());
    }
}

/// Prints the time of `x.sum()` over f32[2^28] (the bench case `core.sum_f32_2^28`); run with
/// `--ignored` on a GPU. Target on an H200: under ~0.31 ms (>= 3.5 TB/s).
#[test]
#[ignore]
fn gpu_sum_f32_2_28_timing() {
    let Some(g) = gpu() else { return };
    let n = 1usize << 28;
    let x = Array::<f32>::ones(&[n], &g).unwrap();
    assert_eq!(x.sum().unwrap(), n as f32);
    let reps = 50;
    let t0 = std::time::Instant::now();
    for _ in 0..reps {
        std::hint::black_box(x.sum().unwrap());
    }
    let ms = t0.elapsed().as_secs_f64() * 1e3 / reps as f64;
    let tbs = (n * 4) as f64 / (ms * 1e-3) / 1e12;
    eprintln!("sum f32[2^28]: {ms:.4} ms per call, {tbs:.2} TB/s");
}

/// Prints the time of other GPU reductions and scans; run with `--ignored` on a GPU.
#[test]
#[ignore]
fn gpu_reduce_timings() {
    let Some(g) = gpu() else { return };
    let time = |what: &str, bytes: usize, f: &dyn Fn()| {
        f();
        g.synchronize().unwrap();
        let reps = 20;
        let t0 = std::time::Instant::now();
        for _ in 0..reps {
            f();
        }
        g.synchronize().unwrap();
        let ms = t0.elapsed().as_secs_f64() * 1e3 / reps as f64;
        eprintln!(
            "{what:<40} {ms:9.4} ms {:6.2} TB/s",
            bytes as f64 / (ms * 1e-3) / 1e12
        );
    };
    let n = 1usize << 28;
    let x = Array::<f32>::ones(&[n], &g).unwrap();
    time("max f32[2^28]", n * 4, &|| {
        x.max().unwrap();
    });
    time("argmax f32[2^28]", n * 4, &|| {
        x.argmax().unwrap();
    });
    time("var f32[2^28]", n * 8, &|| {
        x.var(0).unwrap();
    });
    time("cumsum f32[2^28]", n * 8, &|| {
        x.cumsum(0).unwrap();
    });
    let xd = Array::<f64>::ones(&[n / 2], &g).unwrap();
    time("sum f64[2^27]", n * 4, &|| {
        xd.sum().unwrap();
    });
    let m = Array::<f32>::ones(&[8192, 8192], &g).unwrap();
    let b = 8192 * 8192 * 4;
    time("sum axis 1 f32[8192,8192] (block)", b, &|| {
        m.sum_axes(&[1]).unwrap();
    });
    time("sum axis 0 f32[8192,8192] (col)", b, &|| {
        m.sum_axes(&[0]).unwrap();
    });
    time("cumsum axis 1 f32[8192,8192] (lane)", 2 * b, &|| {
        m.cumsum(1).unwrap();
    });
    time("cumsum axis 0 f32[8192,8192] (strided)", 2 * b, &|| {
        m.cumsum(0).unwrap();
    });
    let w = Array::<f32>::ones(&[1 << 20, 64], &g).unwrap();
    time("sum axis 1 f32[2^20,64] (warp)", b, &|| {
        w.sum_axes(&[1]).unwrap();
    });
    time("sum axis 0 f32[2^20,64] (col, slices)", b, &|| {
        w.sum_axes(&[0]).unwrap();
    });
    time("cumsum axis 1 f32[2^20,64] (warp)", 2 * b, &|| {
        w.cumsum(1).unwrap();
    });
}
