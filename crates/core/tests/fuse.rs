//! Kernel fusion: the CPU against a naive per-element evaluation of the same formula (every
//! operation, NaN rules, broadcasting, shared sub-expressions, reductions, errors), then the GPU
//! against the CPU; the generated kernels compile with NVRTC wherever it loads.

use cusci_core::cuda::kernel::check_compiles;
use cusci_core::fuse::{fuse, Expr, Fused, Reduction};
use cusci_core::testing::randn_vec;
use cusci_core::{Array, Device, Error, RealFloat};

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

/// Every operation once: f(x, y) with x, y inputs.
fn every_op() -> Fused {
    fuse(2, |v| {
        let (x, y) = (&v[0], &v[1]);
        let a = (x * 2.0 - y / 3.0 + 1.0).abs().sqrt(); // ≥ 0
        let b = (-x).exp().ln() + y.sin() * y.cos() - x.tanh();
        let c = x.floor() + y.ceil() + a.pow(1.5);
        let m = x.maximum(y) - x.minimum(y) + x.clip(-0.5, 0.5);
        let cmp =
            x.lt(y) + x.le(0.0) * 2.0 + x.gt(y) * 4.0 + y.ge(0.0) * 8.0 + x.eq(x) * 16.0 - x.ne(y);
        x.gt(0.0).select(&a, &b) + c + m + cmp + 10.0 / (1.0 + a)
    })
    .unwrap()
}

/// The same formula per element in f64.
fn every_op_naive(x: f64, y: f64) -> f64 {
    let b2 = |c: bool| if c { 1.0 } else { 0.0 };
    let a = (x * 2.0 - y / 3.0 + 1.0).abs().sqrt();
    let b = (-x).exp().ln() + y.sin() * y.cos() - x.tanh();
    let c = x.floor() + y.ceil() + a.powf(1.5);
    let m = x.max(y) - x.min(y) + x.clamp(-0.5, 0.5);
    let cmp = b2(x < y)
        + b2(x <= 0.0) * 2.0
        + b2(x > y) * 4.0
        + b2(y >= 0.0) * 8.0
        + b2(!x.is_nan()) * 16.0
        - b2(x != y);
    (if x > 0.0 { a } else { b }) + c + m + cmp + 10.0 / (1.0 + a)
}

#[test]
fn cpu_map_and_reductions_match_a_naive_loop() {
    let f = every_op();
    assert_eq!(f.inputs(), 2);
    let cpu = Device::Cpu;
    for n in [1usize, 7, 4096, 4097, 10_000] {
        let xs = randn_vec::<f64>(n, 1);
        let ys = randn_vec::<f64>(n, 2);
        let x = Array::from_vec(xs.clone(), &[n], &cpu).unwrap();
        let y = Array::from_vec(ys.clone(), &[n], &cpu).unwrap();
        let want: Vec<f64> = xs
            .iter()
            .zip(&ys)
            .map(|(&a, &b)| every_op_naive(a, b))
            .collect();
        let got = f.map(&[&x, &y]).unwrap().to_vec().unwrap();
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (g - w).abs() <= 1e-12 * w.abs().max(1.0),
                "n {n} [{i}]: {g} vs {w}"
            );
        }
        let s: f64 = want.iter().sum();
        assert!((f.sum(&[&x, &y]).unwrap() - s).abs() <= 1e-10 * s.abs().max(1.0));
        assert!((f.mean(&[&x, &y]).unwrap() - s / n as f64).abs() <= 1e-10);
        let mx = want.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let mn = want.iter().cloned().fold(f64::INFINITY, f64::min);
        assert_eq!(f.max(&[&x, &y]).unwrap(), mx);
        assert_eq!(f.min(&[&x, &y]).unwrap(), mn);
    }
}

#[test]
fn nan_rules_follow_numpy() {
    let cpu = Device::Cpu;
    let nan = f64::NAN;
    let x = Array::from_vec(vec![nan, 1.0, 2.0, nan], &[4], &cpu).unwrap();
    let y = Array::from_vec(vec![0.0, nan, 1.0, nan], &[4], &cpu).unwrap();
    let mx = fuse(2, |v| v[0].maximum(&v[1]))
        .unwrap()
        .map(&[&x, &y])
        .unwrap();
    let mx = mx.to_vec().unwrap();
    assert!(mx[0].is_nan() && mx[1].is_nan() && mx[2] == 2.0 && mx[3].is_nan());
    let mn = fuse(2, |v| v[0].minimum(&v[1]))
        .unwrap()
        .map(&[&x, &y])
        .unwrap();
    let mn = mn.to_vec().unwrap();
    assert!(mn[0].is_nan() && mn[1].is_nan() && mn[2] == 1.0 && mn[3].is_nan());
    // clip passes NaN; comparisons with NaN are 0 (ne 1); select takes NaN as true
    let c = fuse(1, |v| v[0].clip(0.0, 1.5))
        .unwrap()
        .map(&[&x])
        .unwrap();
    let c = c.to_vec().unwrap();
    assert!(c[0].is_nan() && c[1] == 1.0 && c[2] == 1.5);
    let k = fuse(1, |v| {
        v[0].lt(5.0) + v[0].ne(5.0) * 2.0 + v[0].select(10.0, 20.0)
    })
    .unwrap();
    assert_eq!(k.map(&[&x]).unwrap().to_vec().unwrap()[0], 12.0);
    // reductions: NaN propagates through max, min and sum
    let id = fuse(1, |v| v[0].clone()).unwrap();
    assert!(id.max(&[&x]).unwrap().is_nan());
    assert!(id.min(&[&y]).unwrap().is_nan());
    assert!(id.sum(&[&x]).unwrap().is_nan());
}

#[test]
fn broadcasting_shared_subexpressions_and_errors() {
    let cpu = Device::Cpu;
    let x = Array::from_vec((0..6u8).map(f32::from).collect(), &[2, 3], &cpu).unwrap();
    let row = Array::from_vec(vec![10.0f32, 20.0, 30.0], &[3], &cpu).unwrap();
    let col = Array::from_vec(vec![1.0f32, -1.0], &[2, 1], &cpu).unwrap();
    // (x + row) * col; the shared `s` is one step
    let f = fuse(3, |v| {
        let s = &v[0] + &v[1];
        &s * &v[2] + &s - &s
    })
    .unwrap();
    let y = f.map(&[&x, &row, &col]).unwrap();
    assert_eq!(y.shape(), &[2, 3]);
    assert_eq!(
        y.to_vec().unwrap(),
        vec![10.0, 21.0, 32.0, -13.0, -24.0, -35.0]
    );
    assert_eq!(f.sum(&[&x, &row, &col]).unwrap(), 63.0 - 72.0);
    // a transposed (strided) input
    let xt = x.permute(&[1, 0]).unwrap();
    let g = fuse(1, |v| &v[0] * 2.0).unwrap();
    assert_eq!(
        g.map(&[&xt]).unwrap().to_vec().unwrap(),
        vec![0.0, 6.0, 2.0, 8.0, 4.0, 10.0]
    );
    // errors
    assert!(matches!(
        g.map(&[&x, &x]),
        Err(Error::InvalidArgument { .. })
    ));
    let bad = Array::from_vec(vec![1.0f32; 4], &[4], &cpu).unwrap();
    assert!(f.map(&[&x, &bad, &col]).is_err());
    assert!(fuse(1, |v| &v[0] + Expr::input(3)).is_err());
    let none: Array<f32> = Array::zeros(&[0, 3], &cpu).unwrap();
    assert_eq!(g.sum(&[&none]).unwrap(), 0.0);
    assert!(g.mean(&[&none]).unwrap().is_nan());
    assert!(matches!(
        g.max(&[&none]),
        Err(Error::InvalidArgument { .. })
    ));
    assert_eq!(g.map(&[&none]).unwrap().shape(), &[0, 3]);
    // a constant-only expression takes no inputs and cannot run
    let k = Fused::new(&Expr::constant(1.0)).unwrap();
    assert_eq!(k.inputs(), 0);
    assert!(k.map::<f32>(&[]).is_err());
    // a deep chain is refused, not a stack overflow
    let mut e = Expr::input(0);
    for _ in 0..5000 {
        e = e + 1.0;
    }
    assert!(matches!(Fused::new(&e), Err(Error::InvalidArgument { .. })));
}

/// The Monte Carlo payoff of a European call from normals z (the bench case's formula).
fn payoff() -> Fused {
    let (s0, k, r, q, sigma) = (100.0, 105.0, 0.05, 0.02, 0.2);
    let drift = r - q - 0.5 * sigma * sigma;
    fuse(1, |v| {
        ((((&v[0] * sigma) + drift).exp() * s0 - k).maximum(0.0)) * (-r).exp()
    })
    .unwrap()
}

fn gpu_matches<T: RealFloat>(
    f: &Fused,
    ins: &[Vec<T>],
    shapes: &[&[usize]],
    dev: &Device,
    tol: f64,
) {
    let cpu: Vec<Array<T>> = ins
        .iter()
        .zip(shapes)
        .map(|(v, s)| Array::from_vec(v.clone(), s, &Device::Cpu).unwrap())
        .collect();
    let gpu: Vec<Array<T>> = cpu.iter().map(|a| a.to_device(dev).unwrap()).collect();
    let rc: Vec<&Array<T>> = cpu.iter().collect();
    let rg: Vec<&Array<T>> = gpu.iter().collect();
    let want = f.map(&rc).unwrap().to_vec().unwrap();
    let got = f.map(&rg).unwrap().to_vec().unwrap();
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let (g, w) = (RealFloat::to_f64(*g), RealFloat::to_f64(*w));
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0) || (g.is_nan() && w.is_nan()),
            "[{i}] {g} vs {w}"
        );
    }
    for (name, a, b) in [
        ("sum", f.sum(&rg).unwrap(), f.sum(&rc).unwrap()),
        ("mean", f.mean(&rg).unwrap(), f.mean(&rc).unwrap()),
        ("max", f.max(&rg).unwrap(), f.max(&rc).unwrap()),
        ("min", f.min(&rg).unwrap(), f.min(&rc).unwrap()),
    ] {
        let (a, b) = (RealFloat::to_f64(a), RealFloat::to_f64(b));
        assert!(
            (a - b).abs() <= tol * b.abs().max(1.0),
            "{name}: {a} vs {b}"
        );
    }
    // deterministic on the device; the 0-d result stays there
    assert_eq!(f.sum(&rg).unwrap(), f.sum(&rg).unwrap());
    let m = f.reduce(Reduction::Mean, &rg).unwrap();
    assert!(m.shape().is_empty() && m.device() == dev);
}

#[test]
fn gpu_matches_the_cpu() {
    let Some(dev) = gpu() else {
        return;
    };
    let f = every_op();
    for n in [1usize, 3, 1000, 65_537, 1 << 20] {
        let ins = vec![randn_vec::<f64>(n, 5), randn_vec::<f64>(n, 6)];
        gpu_matches(&f, &ins, &[&[n], &[n]], &dev, 1e-12);
        let ins32: Vec<Vec<f32>> = ins
            .iter()
            .map(|v| v.iter().map(|&x| x as f32).collect())
            .collect();
        gpu_matches(&f, &ins32, &[&[n], &[n]], &dev, 2e-5);
    }
    // broadcast and strided inputs, the payoff
    let ins = vec![randn_vec::<f32>(6 * 1000, 7), randn_vec::<f32>(1000, 8)];
    gpu_matches(&every_op(), &ins, &[&[6, 1000], &[1000]], &dev, 2e-5);
    let z = vec![randn_vec::<f32>(1 << 18, 9)];
    // S − K cancels: an ulp of S (≈ 100 · 6e-8) is 6e-6 of a payoff near 1
    gpu_matches(&payoff(), &z, &[&[1 << 18]], &dev, 1e-4);
    // correctly rounded steps only: the CPU's bits
    let exact = fuse(2, |v| {
        (((&v[0] - 0.1) * 1.25).clip(-3.0, 3.0) * 2.5 + 1.0) / (v[1].abs() + 0.5)
            + v[0].gt(&v[1]).select(v[1].sqrt(), v[0].floor())
    })
    .unwrap();
    for n in [5usize, 70_001] {
        let (a, b) = (randn_vec::<f32>(n, 10), randn_vec::<f32>(n, 11));
        let ca = Array::from_vec(a, &[n], &Device::Cpu).unwrap();
        let cb = Array::from_vec(b, &[n], &Device::Cpu).unwrap();
        let (ga, gb) = (ca.to_device(&dev).unwrap(), cb.to_device(&dev).unwrap());
        let want = exact.map(&[&ca, &cb]).unwrap().to_vec().unwrap();
        let got = exact.map(&[&ga, &gb]).unwrap().to_vec().unwrap();
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                "[{i}] {g} vs {w}"
            );
        }
    }
}

#[test]
fn generated_kernels_compile() {
    if cusci_core::cuda::libs::probe("nvrtc").is_none() {
        eprintln!("note: NVRTC not found: fuse compile checks skipped");
        return;
    }
    for f in [every_op(), payoff()] {
        for (name, src) in f.kernel_sources() {
            check_compiles(&name, &src, &[], "compute_90")
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
