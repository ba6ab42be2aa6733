//! The linalg stage: a batch of small dense linear systems `A_i x_i = b_i` (8 × 8, f64, each
//! `A_i` = standard normal + 8·I) solved with one `linalg::solve` call on the chosen device
//! (cuBLAS's batched LU on a GPU), the same batch on the CPU reference, and the residuals
//! `‖A_i x_i − b_i‖` checked on the CPU. On a GPU the batch has 65536 systems; on the CPU-only
//! path it is scaled down to 8192 so that the stage takes a fraction of a second.

use super::{pretty_count, si, Check, DemoContext, StageReport, Timing};
use cusci::core::random::Generator;
use cusci::linalg::{matmul, solve};
use cusci::{Array, Device, Result};
use std::time::Instant;

/// Systems in the batch on a GPU.
pub const GPU_BATCH: usize = 65536;
/// Systems in the batch when only the CPU runs.
pub const CPU_BATCH: usize = 8192;
/// Order of each system.
pub const N: usize = 8;
/// Largest relative difference between the GPU's and the CPU's solutions (both are backward
/// stable LU solves of systems with condition numbers near 10: differences near 1e-15).
pub const GPU_CPU_RTOL: f64 = 1e-10;
/// Largest relative residual `max |A x − b| / max |b|`.
pub const RESIDUAL_RTOL: f64 = 1e-12;

fn inputs(batch: usize, seed: u64, dev: &Device) -> Result<(Array<f64>, Array<f64>)> {
    let mut g = Generator::new(seed);
    let a = g
        .standard_normal::<f64>(&[batch, N, N], dev)?
        .add(&Array::<f64>::eye(N, None, 0, dev)?.mul_scalar(N as f64)?)?;
    let b = g.standard_normal::<f64>(&[batch, N, 1], dev)?;
    Ok((a, b))
}

fn timed(a: &Array<f64>, b: &Array<f64>) -> Result<(Array<f64>, f64)> {
    let t = Instant::now();
    let x = solve(a, b)?;
    a.device().synchronize()?;
    Ok((x, t.elapsed().as_secs_f64() * 1e3))
}

fn max_rel(x: &[f64], y: &[f64]) -> f64 {
    let scale = y.iter().fold(f64::MIN_POSITIVE, |m, v| m.max(v.abs()));
    x.iter()
        .zip(y)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()))
        / scale
}

/// Runs the stage (see the module documentation).
pub fn run(ctx: &DemoContext) -> Result<StageReport> {
    let batch = if ctx.device.is_cuda() {
        GPU_BATCH
    } else {
        CPU_BATCH
    };
    println!(
        "  {} systems of order {N} (f64), seed {}{}",
        pretty_count(batch as u64),
        ctx.seed,
        if ctx.device.is_cuda() {
            ""
        } else {
            " (scaled down: CPU only)"
        }
    );
    let mut timings = Vec::new();
    let mut checks = Vec::new();
    let (a_cpu, b_cpu) = inputs(batch, ctx.seed, &Device::Cpu)?;

    let gpu = if ctx.device.is_cuda() {
        let (a, b) = (a_cpu.to_device(&ctx.device)?, b_cpu.to_device(&ctx.device)?);
        // first call: creates the library handles; not timed
        timed(&a, &b)?;
        let (x, ms) = timed(&a, &b)?;
        println!(
            "  GPU {:<18} {:>10.3} ms  {}systems/s",
            ctx.device.to_string(),
            ms,
            si(batch as f64 / (ms / 1e3).max(1e-12))
        );
        timings.push(Timing {
            device: ctx.device.to_string(),
            ms,
            items: batch as f64,
            unit: "systems",
        });
        Some(x.to_vec()?)
    } else {
        None
    };

    let threads = rayon::current_num_threads();
    let spinner = ctx.spinner(format!(
        "CPU reference: {batch} systems on {threads} threads"
    ));
    let cpu = timed(&a_cpu, &b_cpu);
    spinner.finish_and_clear();
    let (x_cpu, cpu_ms) = cpu?;
    println!(
        "  CPU, {threads} threads{:<8} {:>10.3} ms  {}systems/s",
        "",
        cpu_ms,
        si(batch as f64 / (cpu_ms / 1e3).max(1e-12))
    );
    timings.push(Timing {
        device: "cpu".into(),
        ms: cpu_ms,
        items: batch as f64,
        unit: "systems",
    });

    let xc = x_cpu.to_vec()?;
    if let Some(xg) = &gpu {
        let d = max_rel(xg, &xc);
        let ok = d <= GPU_CPU_RTOL;
        let detail =
            format!("max |x_GPU − x_CPU| / max |x_CPU| = {d:.3e}; tolerance {GPU_CPU_RTOL:e}");
        println!("  GPU against CPU: {detail}");
        checks.push(Check {
            name: "GPU solutions match the CPU".into(),
            passed: ok,
            counts: true,
            detail,
        });
    }
    let ax = matmul(&a_cpu, &x_cpu)?.to_vec()?;
    let r = max_rel(&ax, &b_cpu.to_vec()?);
    let detail = format!("max |A·x − b| / max |b| = {r:.3e}; tolerance {RESIDUAL_RTOL:e}");
    println!("  residual: {detail}");
    checks.push(Check {
        name: "residuals of the CPU solutions".into(),
        passed: r <= RESIDUAL_RTOL,
        counts: true,
        detail,
    });
    Ok(StageReport {
        name: "linalg",
        timings,
        checks,
    })
}
