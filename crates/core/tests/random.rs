//! The random streams: identical raw words and identical floats on every device, parameter errors
//! the same everywhere, and the Monte Carlo pricer against Black–Scholes.

use cusci_core::elementwise::RawArg;
use cusci_core::random::montecarlo::{price_european_call, EuropeanCall};
use cusci_core::random::{philox, Generator, PHILOX_CUH};
use cusci_core::testing::devices;
use cusci_core::{Array, Device, Error, RawKernel};

const LENGTHS: [usize; 8] = [0, 1, 3, 5, 31, 257, 4099, 100_003];
const SEEDS: [(u64, u64); 4] = [(0, 0), (1234, 0), (1234, 7), (u64::MAX, u64::MAX - 1)];

fn bits<T: cusci_core::Element>(a: &Array<T>, f: impl Fn(T) -> u64) -> Vec<u64> {
    a.to_vec().unwrap().into_iter().map(f).collect()
}

/// Draws a sequence of calls (odd lengths, so later calls start mid-stream) on `dev`.
fn draws(dev: &Device, seed: u64, stream: u64, n: usize) -> Vec<Vec<u64>> {
    let mut g = Generator::with_stream(seed, stream);
    let mut out = Vec::new();
    out.push(bits(&g.random_raw(&[n], dev).unwrap(), |w| w as u32 as u64));
    out.push(bits(&g.standard_normal::<f32>(&[n], dev).unwrap(), |v| {
        v.to_bits() as u64
    }));
    out.push(bits(
        &g.standard_normal::<f64>(&[n], dev).unwrap(),
        f64::to_bits,
    ));
    out.push(bits(&g.normal::<f32>(1.5, 2.0, &[n], dev).unwrap(), |v| {
        v.to_bits() as u64
    }));
    out.push(bits(&g.random::<f32>(&[n], dev).unwrap(), |v| {
        v.to_bits() as u64
    }));
    out.push(bits(
        &g.uniform::<f64>(-3.0, 5.0, &[n], dev).unwrap(),
        f64::to_bits,
    ));
    out.push(bits(&g.exponential::<f32>(2.0, &[n], dev).unwrap(), |v| {
        v.to_bits() as u64
    }));
    out.push(bits(
        &g.exponential::<f64>(0.5, &[n], dev).unwrap(),
        f64::to_bits,
    ));
    out.push(bits(
        &g.lognormal::<f32>(0.1, 0.3, &[n], dev).unwrap(),
        |v| v.to_bits() as u64,
    ));
    out.push(bits(
        &g.lognormal::<f64>(0.1, 0.3, &[n], dev).unwrap(),
        f64::to_bits,
    ));
    out.push(bits(&g.integers(-5, 17, &[n], dev).unwrap(), |v| v as u64));
    out.push(bits(
        &g.integers(i64::MIN / 2, i64::MAX / 2, &[n], dev).unwrap(),
        |v| v as u64,
    ));
    out.push(bits(&g.poisson(3.5, &[n.min(4099)], dev).unwrap(), |v| {
        v as u64
    }));
    out.push(bits(&g.poisson(250.0, &[n.min(4099)], dev).unwrap(), |v| {
        v as u64
    }));
    // a draw into an existing, strided-then-copied array
    let mut a = Array::<f32>::zeros(&[n], dev).unwrap();
    g.fill_standard_normal(&mut a).unwrap();
    out.push(bits(&a, |v| v.to_bits() as u64));
    out
}

#[test]
fn cpu_stream_matches_the_element_wise_definition() {
    let mut g = Generator::with_stream(99, 3);
    let raw = g.random_raw(&[10], &Device::Cpu).unwrap().to_vec().unwrap();
    for (i, w) in raw.iter().enumerate() {
        assert_eq!(*w as u32, philox::raw_word(99, 3, i as u64));
    }
    // the next call starts at the next Philox block (position 12)
    assert_eq!(g.position(), 12);
    let z = g
        .standard_normal::<f32>(&[5], &Device::Cpu)
        .unwrap()
        .to_vec()
        .unwrap();
    for (i, v) in z.iter().enumerate() {
        assert_eq!(
            v.to_bits(),
            philox::normal_f32_at(99, 3, 12 + i as u64).to_bits()
        );
    }
    assert_eq!(g.position(), 20);
}

#[test]
fn every_device_draws_the_same_bits() {
    let devs = devices();
    for &(seed, stream) in &SEEDS {
        for &n in &LENGTHS {
            let want = draws(&Device::Cpu, seed, stream, n);
            for dev in devs.iter().skip(1) {
                let got = draws(dev, seed, stream, n);
                for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                    if let Some(i) = (0..g.len()).find(|&i| g[i] != w[i]) {
                        panic!(
                            "draw {k} differs on {dev} at index {i} (seed {seed}, stream {stream}, n {n}): gpu bits {:#x}, cpu bits {:#x}",
                            g[i], w[i]
                        );
                    }
                    assert_eq!(g.len(), w.len());
                }
            }
        }
    }
}

/// Long GPU fills: each block of the normal kernels queues its ziggurat rejections in shared
/// memory and finishes them mid-run once the queue fills (past ~1000 per block, which needs
/// about 2^27 draws on an H200) and once more at the end; both paths must give the CPU's bits.
/// GPU only (the CPU half alone would be slow on CI and checks nothing new).
#[test]
fn long_normal_fills_match_the_cpu_bit_for_bit() {
    let Some(gpu) = cusci_core::testing::gpu() else {
        return;
    };
    let n = 1usize << 27;
    for (seed, stream, start) in [(5u64, 0u64, 0u64), (6, 3, 1)] {
        let mut g = Generator::with_stream(seed, stream);
        g.set_position(start);
        let mut c = g;
        let ctx = format!("(seed {seed}, start {start})");
        same_normals::<f32>(&mut g, &mut c, &gpu, n, |v| v.to_bits() as u64, &ctx);
        same_normals::<f64>(&mut g, &mut c, &gpu, n, f64::to_bits, &ctx);
    }
}

/// `n` standard normals of `T` drawn by `g` on `gpu` and by `c` on the CPU have the same bits.
fn same_normals<T: cusci_core::RealFloat + std::fmt::Display>(
    g: &mut Generator,
    c: &mut Generator,
    gpu: &Device,
    n: usize,
    bits: impl Fn(T) -> u64,
    ctx: &str,
) {
    let a = g.standard_normal::<T>(&[n], gpu).unwrap().to_vec().unwrap();
    let b = c
        .standard_normal::<T>(&[n], &Device::Cpu)
        .unwrap()
        .to_vec()
        .unwrap();
    if let Some(i) = (0..n).find(|&i| bits(a[i]) != bits(b[i])) {
        panic!(
            "{} normal {i} {ctx}: gpu {} cpu {}",
            T::DTYPE.tag(),
            a[i],
            b[i]
        );
    }
}

#[test]
fn distributions_have_the_right_moments() {
    let mut g = Generator::new(2024);
    let n = 1 << 18;
    let z = g.standard_normal::<f64>(&[n], &Device::Cpu).unwrap();
    let v = z.to_vec().unwrap();
    let m = v.iter().sum::<f64>() / n as f64;
    let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n as f64;
    assert!(m.abs() < 5.0 / (n as f64).sqrt(), "mean {m}");
    assert!(
        (var - 1.0).abs() < 5.0 * (2.0 / n as f64).sqrt(),
        "var {var}"
    );
    let u = g
        .random::<f32>(&[n], &Device::Cpu)
        .unwrap()
        .to_vec()
        .unwrap();
    assert!(u.iter().all(|&x| x > 0.0 && x < 1.0));
    let p = g
        .poisson(7.0, &[n], &Device::Cpu)
        .unwrap()
        .to_vec()
        .unwrap();
    let pm = p.iter().sum::<i64>() as f64 / n as f64;
    assert!(
        (pm - 7.0).abs() < 5.0 * (7.0 / n as f64).sqrt(),
        "poisson mean {pm}"
    );
    let k = g
        .integers(3, 9, &[n], &Device::Cpu)
        .unwrap()
        .to_vec()
        .unwrap();
    assert!(k.iter().all(|&x| (3..9).contains(&x)));
    for v in 3..9 {
        let c = k.iter().filter(|&&x| x == v).count() as f64 / n as f64;
        assert!((c - 1.0 / 6.0).abs() < 0.01, "value {v}: frequency {c}");
    }
}

#[test]
fn bad_parameters_are_the_same_error_everywhere() {
    for dev in devices() {
        let mut g = Generator::new(1);
        assert!(matches!(
            g.uniform::<f32>(1.0, 0.0, &[3], &dev),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            g.normal::<f64>(0.0, -1.0, &[3], &dev),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            g.normal::<f64>(f64::NAN, 1.0, &[3], &dev),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            g.exponential::<f32>(-1.0, &[3], &dev),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            g.lognormal::<f32>(0.0, f64::INFINITY, &[3], &dev),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            g.integers(5, 5, &[3], &dev),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            g.poisson(-1.0, &[3], &dev),
            Err(Error::InvalidArgument { .. })
        ));
        // a failed call consumes nothing
        assert_eq!(g.position(), 0);
    }
}

fn black_scholes_call(o: &EuropeanCall) -> f64 {
    // Φ through erfc (libm-grade accuracy is plenty for a 5-sigma check)
    fn phi(x: f64) -> f64 {
        0.5 * erfc(-x / std::f64::consts::SQRT_2)
    }
    fn erfc(x: f64) -> f64 {
        // Numerical Recipes' erfc Chebyshev fit, relative error < 1.2e-7
        let z = x.abs();
        let t = 1.0 / (1.0 + 0.5 * z);
        let r = t
            * (-z * z - 1.26551223
                + t * (1.00002368
                    + t * (0.37409196
                        + t * (0.09678418
                            + t * (-0.18628806
                                + t * (0.27886807
                                    + t * (-1.13520398
                                        + t * (1.48851587
                                            + t * (-0.82215223 + t * 0.17087277)))))))))
                .exp();
        if x >= 0.0 {
            r
        } else {
            2.0 - r
        }
    }
    let st = o.sigma * o.maturity.sqrt();
    let d1 = ((o.s0 / o.strike).ln() + (o.rate + 0.5 * o.sigma * o.sigma) * o.maturity) / st;
    o.s0 * phi(d1) - o.strike * (-o.rate * o.maturity).exp() * phi(d1 - st)
}

#[test]
fn monte_carlo_call_agrees_across_devices_and_with_black_scholes() {
    let opt = EuropeanCall {
        s0: 100.0,
        strike: 105.0,
        rate: 0.05,
        sigma: 0.2,
        maturity: 1.0,
    };
    let bs = black_scholes_call(&opt);
    assert!((bs - 8.021352).abs() < 1e-5, "closed form {bs}");
    let paths = (1 << 18) + 3;
    let cpu = price_european_call(&opt, paths, 42, &Device::Cpu).unwrap();
    assert!(
        (cpu.price - bs).abs() < 5.0 * cpu.std_error,
        "{cpu:?} vs {bs}"
    );
    for dev in devices().into_iter().skip(1) {
        let gpu = price_european_call(&opt, paths, 42, &dev).unwrap();
        // the payoffs are the same bits; only the order of the f64 sums differs
        assert!(
            (gpu.price - cpu.price).abs() <= 1e-12 * cpu.price,
            "{gpu:?} vs {cpu:?}"
        );
        assert!((gpu.std_error - cpu.std_error).abs() <= 1e-9 * cpu.std_error);
        let again = price_european_call(&opt, paths, 42, &dev).unwrap();
        assert_eq!(again, gpu, "the GPU result is deterministic");
    }
    for dev in devices() {
        let bad = EuropeanCall { sigma: -0.1, ..opt };
        assert!(matches!(
            price_european_call(&bad, 10, 1, &dev),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            price_european_call(&opt, 0, 1, &dev),
            Err(Error::InvalidArgument { .. })
        ));
    }
}

/// The f32 normal fill's fallback: a block whose failure queue overflows (one block for 2^20 + 5
/// draws: about 2400 failures, the queue holds 1536) redoes its first tests and finishes every
/// failing element; a launch of 3 blocks (about 800 failures each) takes the queue path. Each
/// kernel (general and standard; 32-bit and 64-bit Philox counters) gives the CPU's bits.
#[test]
fn f32_normal_kernels_give_the_cpu_bits_on_their_overflow_and_queue_paths() {
    let n = (1usize << 20) + 5;
    for dev in devices().into_iter().filter(|d| d.is_cuda()) {
        // (kernel, mean, std, start): the wide kernels start 3 Philox blocks before 2^32
        let wide = ((1u64 << 32) - 3) * 4 + 1;
        for (name, mean, std, start) in [
            ("cusci_random_normal_f32", 0.5f32, 2.0f32, 7u64),
            ("cusci_random_std_normal_f32", 0.0, 1.0, 0),
            ("cusci_random_normal_f32_wide", -1.0, 0.25, wide),
            ("cusci_random_std_normal_f32_wide", 0.0, 1.0, wide + 2),
        ] {
            let (seed, stream) = (9u64, 4u64);
            let mut g = Generator::with_stream(seed, stream);
            g.set_position(start);
            let want = g
                .normal::<f32>(mean as f64, std as f64, &[n], &Device::Cpu)
                .unwrap()
                .to_vec()
                .unwrap();
            let k = RawKernel::new(PHILOX_CUH, name);
            for blocks in [1u32, 3] {
                let out = Array::<f32>::full(&[n], f32::NAN, &dev).unwrap();
                k.launch(
                    &dev,
                    (blocks, 1, 1),
                    (256, 1, 1),
                    0,
                    &[
                        RawArg::Array(&out),
                        RawArg::U64(n as u64),
                        RawArg::U64(seed),
                        RawArg::U64(stream),
                        RawArg::U64(start),
                        RawArg::F32(mean),
                        RawArg::F32(std),
                    ],
                )
                .unwrap();
                let got = out.to_vec().unwrap();
                if let Some(i) = (0..n).find(|&i| got[i].to_bits() != want[i].to_bits()) {
                    panic!(
                        "{name}, {blocks} blocks, element {i}: gpu {} cpu {}",
                        got[i], want[i]
                    );
                }
            }
        }
    }
}
