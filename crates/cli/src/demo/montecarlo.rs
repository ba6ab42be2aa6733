//! The Monte Carlo stage: a European call priced with `price_european_call` on the chosen device,
//! the same paths and seed on the CPU reference (the normals are bit-identical across devices, so
//! the prices agree to rounding), and the Black–Scholes closed form as an independent check.

use super::{pretty_count, si, Check, DemoContext, StageReport, Timing};
use crate::blackscholes;
use cusci::core::random::montecarlo::{price_european_call, EuropeanCall, McResult};
use cusci::{Device, Result};
use std::time::Instant;

/// The option of the demo: S0 = 100, K = 105, r = 0.05, σ = 0.2, T = 1.
pub const OPTION: EuropeanCall = EuropeanCall {
    s0: 100.0,
    strike: 105.0,
    rate: 0.05,
    sigma: 0.2,
    maturity: 1.0,
};

/// Largest relative difference between the GPU's and the CPU's price (and standard error). Each
/// path's payoff is the same bits on both devices; only the order of the f64 sums differs, so the
/// actual difference is near 1e-15.
pub const GPU_CPU_RTOL: f64 = 1e-6;

/// How many standard errors the Monte Carlo price may be from the closed form.
pub const BS_SIGMAS: f64 = 4.0;

/// Below this many paths the Black–Scholes check is shown but does not count (too few paths
/// for the normal approximation of the estimator).
pub const BS_MIN_PATHS: u64 = 10_000;

fn rel_diff(a: f64, b: f64) -> f64 {
    let d = (a - b).abs();
    if d == 0.0 {
        0.0
    } else {
        d / b.abs().max(f64::MIN_POSITIVE)
    }
}

fn timed(opt: &EuropeanCall, paths: u64, seed: u64, dev: &Device) -> Result<(McResult, f64)> {
    let t = Instant::now();
    let r = price_european_call(opt, paths, seed, dev)?;
    Ok((r, t.elapsed().as_secs_f64() * 1e3))
}

fn line(label: &str, r: &McResult, ms: f64) -> String {
    format!(
        "  {label:<22} price {:.7}  std error {:.7}  {:>10.3} ms  {}paths/s",
        r.price,
        r.std_error,
        ms,
        si(r.paths as f64 / (ms / 1e3).max(1e-12))
    )
}

/// Runs the stage (see the module documentation).
pub fn run(ctx: &DemoContext) -> Result<StageReport> {
    let o = &OPTION;
    println!(
        "  S0 = {}, K = {}, r = {}, sigma = {}, T = {}; {} paths, seed {}",
        o.s0,
        o.strike,
        o.rate,
        o.sigma,
        o.maturity,
        pretty_count(ctx.paths),
        ctx.seed
    );
    let mut timings = Vec::new();
    let mut checks = Vec::new();

    let gpu = if ctx.device.is_cuda() {
        // first call: compiles the kernel (or loads it from the disk cache); not timed
        let t = Instant::now();
        price_european_call(o, ctx.paths.min(1 << 16), ctx.seed, &ctx.device)?;
        let ready = t.elapsed().as_secs_f64() * 1e3;
        let (r, ms) = timed(o, ctx.paths, ctx.seed, &ctx.device)?;
        println!("{}", line(&format!("GPU {}", ctx.device), &r, ms));
        println!("  (first call, with the kernel's compilation or cache load: {ready:.1} ms)");
        timings.push(Timing {
            device: ctx.device.to_string(),
            ms,
            items: r.paths as f64,
            unit: "paths",
        });
        Some(r)
    } else {
        None
    };

    let threads = rayon::current_num_threads();
    let spinner = ctx.spinner(format!(
        "CPU reference: {} paths on {threads} threads",
        ctx.paths
    ));
    let cpu = timed(o, ctx.paths, ctx.seed, &Device::Cpu);
    spinner.finish_and_clear();
    let (c, cpu_ms) = cpu?;
    println!("{}", line(&format!("CPU, {threads} threads"), &c, cpu_ms));
    timings.push(Timing {
        device: "cpu".into(),
        ms: cpu_ms,
        items: c.paths as f64,
        unit: "paths",
    });

    match &gpu {
        Some(g) => {
            let (dp, rp) = ((g.price - c.price).abs(), rel_diff(g.price, c.price));
            let (ds, rs) = (
                (g.std_error - c.std_error).abs(),
                rel_diff(g.std_error, c.std_error),
            );
            let ok = rp <= GPU_CPU_RTOL && rs <= GPU_CPU_RTOL && g.paths == c.paths;
            let detail = format!(
                "price |GPU − CPU| = {dp:.3e} (relative {rp:.3e}), std error |GPU − CPU| = {ds:.3e} \
                 (relative {rs:.3e}); tolerance {GPU_CPU_RTOL:e} relative"
            );
            println!(
                "  GPU vs CPU reference   {detail}: {}",
                if ok { "ok" } else { "FAILED" }
            );
            checks.push(Check {
                name: "gpu=cpu".into(),
                passed: ok,
                counts: true,
                detail,
            });
        }
        None => println!("  GPU vs CPU reference   not compared: no GPU run"),
    }

    let mc = gpu.as_ref().unwrap_or(&c);
    let bs = blackscholes::call_price(o.s0, o.strike, o.rate, o.sigma, o.maturity);
    let diff = mc.price - bs;
    let sigmas = if mc.std_error > 0.0 {
        diff / mc.std_error
    } else if diff == 0.0 {
        0.0
    } else {
        f64::INFINITY
    };
    let within = sigmas.abs() <= BS_SIGMAS;
    let counts = ctx.paths >= BS_MIN_PATHS;
    let detail = format!(
        "closed form {bs:.7}, Monte Carlo − closed form = {diff:+.7} = {sigmas:+.2} std errors \
         (limit {BS_SIGMAS})"
    );
    println!(
        "  Black–Scholes          {detail}: {}{}",
        if within { "ok" } else { "FAILED" },
        if counts {
            ""
        } else {
            " (too few paths: not counted)"
        }
    );
    checks.push(Check {
        name: "black-scholes".into(),
        passed: within,
        counts,
        detail,
    });
    println!(
        "  price {:.6} ± {:.6} (1 std error), computed on {}",
        mc.price,
        mc.std_error,
        if gpu.is_some() {
            ctx.device.to_string()
        } else {
            "cpu".into()
        }
    );
    Ok(StageReport {
        name: "montecarlo",
        timings,
        checks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_difference() {
        assert_eq!(rel_diff(1.0, 1.0), 0.0);
        assert!((rel_diff(1.000001, 1.0) - 1e-6).abs() < 1e-12);
        assert!(rel_diff(1.0, 0.0).is_finite());
    }

    #[test]
    fn cpu_stage_runs_and_passes() {
        let ctx = DemoContext {
            device: Device::Cpu,
            cpu_only_reason: Some("test".into()),
            paths: 1 << 16,
            seed: 7,
            progress: false,
        };
        let r = run(&ctx).unwrap();
        assert_eq!(r.timings.len(), 1);
        assert_eq!(r.timings[0].device, "cpu");
        assert!(r.passed(), "{r:?}");
    }
}
