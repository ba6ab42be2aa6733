//! The `core.*` cases of CASES.md (see `cupy_ref.py` for CuPy's side of each).

use crate::{blackscholes, host_range, randn_f32, same_bits, Bench, BenchResult, Case};
use cusci::core::elementwise::{Arg, Scalar};
use cusci::core::fuse::{fuse, Fused, Reduction};
use cusci::core::random::montecarlo::{price_european_call, EuropeanCall};
use cusci::core::random::Generator;
use cusci::core::ElementwiseKernel;
use cusci::{Array, Device};

const N28: usize = 1 << 28;
const F32: u64 = 4;
/// Elements copied back to the host for a check.
const CHECK_LEN: usize = 1 << 20;

/// The core cases, with bytes, flops and repeats as in cupy_ref.py.
pub fn cases() -> Vec<Case> {
    let n = N28 as u64;
    vec![
        Case {
            name: "core.copy_f32_2^28",
            bytes: 2 * n * F32,
            flops: 0,
            n_repeat: 20,
            setup: copy,
        },
        Case {
            name: "core.axpy_f32_2^28",
            bytes: 3 * n * F32,
            flops: 2 * n,
            n_repeat: 20,
            setup: axpy,
        },
        Case {
            name: "core.sum_f32_2^28",
            bytes: n * F32,
            flops: n,
            n_repeat: 20,
            setup: sum,
        },
        Case {
            name: "core.randn_f32_2^28",
            bytes: n * F32,
            flops: 0,
            n_repeat: 20,
            setup: randn,
        },
        Case {
            name: "core.montecarlo_call_f32_2^26",
            bytes: 0,
            flops: 0,
            n_repeat: 20,
            setup: montecarlo,
        },
        Case {
            name: "core.fuse_payoff_f32_2^26",
            bytes: (1u64 << 26) * F32,
            flops: 0,
            n_repeat: 20,
            setup: fuse_payoff,
        },
        Case {
            name: "core.fuse_normclip_f32_2^28",
            bytes: 2 * n * F32,
            flops: 0,
            n_repeat: 20,
            setup: fuse_normclip,
        },
    ]
}

/// Where the checks look: the start, the middle and the end of a 2^28 array (the end is past
/// 2^31 bytes, where 32-bit indexing would break).
fn check_starts() -> [usize; 3] {
    [0, N28 / 2 + 12_345, N28 - CHECK_LEN]
}

// ---------------- copy: y[...] = x ----------------

struct Copy {
    x: Array<f32>,
    y: Array<f32>,
}

fn copy(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(Copy {
        x: randn_f32(N28, 1, dev)?,
        y: Array::<f32>::zeros(&[N28], dev)?,
    }))
}

impl Bench for Copy {
    fn check(&mut self) -> BenchResult<()> {
        self.run()?;
        for s in check_starts() {
            let got = host_range(&self.y, s, CHECK_LEN)?;
            let want = host_range(&self.x, s, CHECK_LEN)?;
            same_bits("copy", &got, &want, s)?;
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        self.y.assign(&self.x)
    }
}

// ---------------- axpy: z = a * x + y (a user ElementwiseKernel, as CuPy's case) ----------------

struct Axpy {
    k: ElementwiseKernel,
    x: Array<f32>,
    y: Array<f32>,
    out: Array<f32>,
}

fn axpy(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    let k = ElementwiseKernel::new(
        "float32 a, float32 x, float32 y",
        "float32 z",
        "z = a * x + y",
        "axpy",
        |i, o| o[0] = Scalar::F32(i[0].to::<f32>() * i[1].to::<f32>() + i[2].to::<f32>()),
    )?;
    let mut g = Generator::new(2);
    Ok(Box::new(Axpy {
        k,
        x: g.standard_normal::<f32>(&[N28], dev)?,
        y: g.standard_normal::<f32>(&[N28], dev)?,
        out: Array::<f32>::zeros(&[N28], dev)?,
    }))
}

impl Bench for Axpy {
    fn check(&mut self) -> BenchResult<()> {
        self.run()?;
        for s in check_starts() {
            let x = host_range(&self.x, s, CHECK_LEN)?;
            let y = host_range(&self.y, s, CHECK_LEN)?;
            let z = host_range(&self.out, s, CHECK_LEN)?;
            for i in 0..z.len() {
                let (ax, yy) = (2.5 * x[i] as f64, y[i] as f64);
                let want = ax + yy;
                // one rounding (fused multiply-add) or two: within 2 ulps of the terms
                let tol = 2.0 * f32::EPSILON as f64 * (ax.abs() + yy.abs());
                if (z[i] as f64 - want).abs() > tol {
                    return Err(format!(
                        "axpy: element {} is {:e}, expected {want:e} (x {:e}, y {:e})",
                        s + i,
                        z[i],
                        x[i],
                        y[i]
                    )
                    .into());
                }
            }
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        let Axpy { k, x, y, out } = self;
        k.call(
            &[Arg::Scalar(Scalar::F32(2.5)), Arg::Array(x), Arg::Array(y)],
            &mut [out],
        )
    }
}

// ---------------- sum ----------------

struct Sum {
    x: Array<f32>,
}

fn sum(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(Sum {
        x: randn_f32(N28, 3, dev)?,
    }))
}

impl Bench for Sum {
    fn check(&mut self) -> BenchResult<()> {
        let got: f32 = self.x.sum()?;
        let dev_sum = self.x.sum_axes(&[0])?.item()?;
        if dev_sum.to_bits() != got.to_bits() {
            return Err(format!("sum_axes(&[0]) gives {dev_sum}, sum() gives {got}").into());
        }
        let host = self.x.to_vec()?;
        let (mut s, mut sq) = (0f64, 0f64);
        for &v in &host {
            s += v as f64;
            sq += (v as f64) * (v as f64);
        }
        // the sum accumulates in f64 and rounds once; allow far more than that (and than an f32
        // tree would err by, ~eps·sqrt(log n)·‖x‖₂), yet far less than a missing block of values
        let tol = 1e-4 * sq.sqrt() + 4.0 * f32::EPSILON as f64 * s.abs();
        if (got as f64 - s).abs() > tol {
            return Err(format!(
                "sum is {got}, the f64 sum of the same values is {s} (tolerance {tol:e})"
            )
            .into());
        }
        Ok(())
    }
    /// `sum_axes(&[0])`: the sum as a 0-d array on the device, which is what CuPy's `x.sum()`
    /// returns; `x.sum()` would add a copy to the host and a synchronisation (CASES.md: no host
    /// transfer) to the same two kernels.
    fn run(&mut self) -> cusci::Result<()> {
        self.x.sum_axes(&[0]).map(|_| ())
    }
}

// ---------------- randn: fill a preallocated array with standard normals ----------------

const RANDN_SEED: u64 = 7;

struct Randn {
    g: Generator,
    out: Array<f32>,
}

fn randn(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(Randn {
        g: Generator::new(RANDN_SEED),
        out: Array::<f32>::zeros(&[N28], dev)?,
    }))
}

impl Bench for Randn {
    fn check(&mut self) -> BenchResult<()> {
        // the first fill of a fresh generator: its values are Generator::new(7)'s first 2^28
        self.g = Generator::new(RANDN_SEED);
        self.run()?;
        let v = self.out.to_vec()?;
        let n = v.len() as f64;
        let mean = v.iter().map(|&x| x as f64).sum::<f64>() / n;
        let var = v.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n;
        // 6 standard deviations of the estimators
        if mean.abs() > 6.0 / n.sqrt() || (var - 1.0).abs() > 6.0 * (2.0 / n).sqrt() {
            return Err(format!("randn: mean {mean:e}, variance {var} of {n} values").into());
        }
        // the same numbers as the CPU generator, bit for bit, at the start and at the end
        const K: usize = 4096;
        for start in [0, N28 - K] {
            let mut g = Generator::new(RANDN_SEED);
            g.set_position(start as u64); // f32 draws take one word each
            let cpu = g.standard_normal::<f32>(&[K], &Device::Cpu)?.to_vec()?;
            same_bits(
                "randn vs the CPU generator",
                &v[start..start + K],
                &cpu,
                start,
            )?;
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        self.g.fill_standard_normal(&mut self.out)
    }
}

// ---------------- montecarlo: price a European call with 2^26 paths ----------------

const OPTION: EuropeanCall = EuropeanCall {
    s0: 100.0,
    strike: 105.0,
    rate: 0.05,
    sigma: 0.2,
    maturity: 1.0,
};
const MC_PATHS: u64 = 1 << 26;
const MC_SEED: u64 = 7;

struct MonteCarlo {
    dev: Device,
}

fn montecarlo(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(MonteCarlo { dev: dev.clone() }))
}

impl Bench for MonteCarlo {
    fn check(&mut self) -> BenchResult<()> {
        let o = &OPTION;
        let r = price_european_call(o, MC_PATHS, MC_SEED, &self.dev)?;
        let bs = blackscholes::call_price(o.s0, o.strike, o.rate, o.sigma, o.maturity);
        if (r.price - bs).abs() > 5.0 * r.std_error || r.paths != MC_PATHS {
            return Err(format!(
                "montecarlo: price {} ± {} over {} paths, Black–Scholes {bs}: more than 5 std errors apart",
                r.price, r.std_error, r.paths
            )
            .into());
        }
        // and the CPU reference on fewer paths: the same payoffs, so the same price to rounding
        let n = 1 << 20;
        let g = price_european_call(o, n, MC_SEED, &self.dev)?;
        let c = price_european_call(o, n, MC_SEED, &Device::Cpu)?;
        if (g.price - c.price).abs() > 1e-9 * c.price.abs() {
            return Err(format!(
                "montecarlo: {n} paths price {} on the GPU, {} on the CPU",
                g.price, c.price
            )
            .into());
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        price_european_call(&OPTION, MC_PATHS, MC_SEED, &self.dev).map(|_| ())
    }
}

// ---------------- fuse: one generated kernel for a chain of element-wise steps ----------------

/// The discounted call payoff of normals z, mean over all paths (CuPy: the same expression
/// under `cupy.fuse`), as `cusci::core::fuse` with a mean reduction: one pass over z.
fn payoff_expr() -> Fused {
    let o = &OPTION;
    let drift = (o.rate - 0.5 * o.sigma * o.sigma) * o.maturity;
    let vol = o.sigma * o.maturity.sqrt();
    let (s0, k, disc) = (o.s0, o.strike, (-o.rate * o.maturity).exp());
    fuse(1, |v| {
        (((&v[0] * vol + drift).exp() * s0 - k).maximum(0.0)) * disc
    })
    .expect("a fixed expression compiles")
}

struct FusePayoff {
    f: Fused,
    z: Array<f32>,
}

fn fuse_payoff(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(FusePayoff {
        f: payoff_expr(),
        z: randn_f32(1 << 26, 11, dev)?,
    }))
}

impl Bench for FusePayoff {
    fn check(&mut self) -> BenchResult<()> {
        let got = self.f.reduce(Reduction::Mean, &[&self.z])?.item()? as f64;
        let o = &OPTION;
        let drift = (o.rate - 0.5 * o.sigma * o.sigma) * o.maturity;
        let vol = o.sigma * o.maturity.sqrt();
        let disc = (-o.rate * o.maturity).exp();
        let z = self.z.to_vec()?;
        let want = z
            .iter()
            .map(|&z| ((vol * z as f64 + drift).exp() * o.s0 - o.strike).max(0.0) * disc)
            .sum::<f64>()
            / z.len() as f64;
        // f32 steps (expf to 2 ulp) against the f64 formula: 1e-5 relative is far above
        // rounding and far below any lost block of paths (1 / 2^14 of them moves it ~6e-5)
        if (got - want).abs() > 1e-5 * want {
            return Err(format!("fused payoff mean {got}, the f64 loop {want}").into());
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        self.f.reduce(Reduction::Mean, &[&self.z]).map(|_| ())
    }
}

/// y = clip((x − 0.1) · 1.25, −3, 3) · 2.5 + 1 (normalise with known statistics, clip, scale).
fn normclip_expr() -> Fused {
    fuse(1, |v| ((&v[0] - 0.1) * 1.25).clip(-3.0, 3.0) * 2.5 + 1.0)
        .expect("a fixed expression compiles")
}

struct FuseNormClip {
    f: Fused,
    x: Array<f32>,
}

fn fuse_normclip(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(FuseNormClip {
        f: normclip_expr(),
        x: randn_f32(N28, 12, dev)?,
    }))
}

impl Bench for FuseNormClip {
    fn check(&mut self) -> BenchResult<()> {
        let y = self.f.map(&[&self.x])?;
        for s in check_starts() {
            let got = host_range(&y, s, CHECK_LEN)?;
            let x = host_range(&self.x, s, CHECK_LEN)?;
            for (i, (&g, &x)) in got.iter().zip(&x).enumerate() {
                // the same f32 operations in the same order: bit for bit
                let want = ((x - 0.1f64 as f32) * 1.25).clamp(-3.0, 3.0) * 2.5 + 1.0;
                if g.to_bits() != want.to_bits() {
                    return Err(format!("normclip[{}] = {g}, want {want}", s + i).into());
                }
            }
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        self.f.map(&[&self.x]).map(|_| ())
    }
}
