//! The sparse stage: the 2-D Poisson problem −Δu = 1 on the unit square (5-point Laplacian,
//! Dirichlet boundaries) solved by conjugate gradients on the chosen device, and the same solve
//! on the CPU reference. On a GPU the grid is 1024 × 1024 (2^20 unknowns); on the CPU-only path
//! it is scaled down to 128 × 128 so that the stage takes well under a second.

use super::{si, Check, DemoContext, StageReport, Timing};
use cusci::sparse::linalg::{cg, Solution, SolverOptions};
use cusci::sparse::{diags, CsrMatrix};
use cusci::{Array, Device, Result};
use std::time::Instant;

/// Grid side on a GPU.
pub const GPU_GRID: usize = 1024;
/// Grid side when only the CPU runs.
pub const CPU_GRID: usize = 128;
/// Relative tolerance of the solve.
pub const RTOL: f64 = 1e-8;
/// Largest norm-wise relative difference between the GPU's and the CPU's solutions.
pub const GPU_CPU_RTOL: f64 = 1e-6;

/// The 5-point Laplacian of a `g` × `g` grid (no coupling across grid rows).
pub fn laplacian(g: usize, dev: &Device) -> Result<CsrMatrix<f64>> {
    let n = g * g;
    let main = vec![4.0; n];
    let side: Vec<f64> = (0..n - 1)
        .map(|i| if (i + 1) % g == 0 { 0.0 } else { -1.0 })
        .collect();
    let vert = vec![-1.0; n - g];
    diags(
        &[&main, &side, &side, &vert, &vert],
        &[0, -1, 1, -(g as isize), g as isize],
        None,
        dev,
    )
}

/// What [`solve`] returns: the solution, the seconds it took, the matrix and the right-hand side.
type Solved = (Solution<f64>, f64, CsrMatrix<f64>, Array<f64>);

fn solve(g: usize, dev: &Device) -> Result<Solved> {
    let a = laplacian(g, dev)?;
    // h² · f with f = 1
    let h2 = 1.0 / ((g + 1) * (g + 1)) as f64;
    let b = Array::full(&[g * g], h2, dev)?;
    let opts = SolverOptions {
        rtol: RTOL,
        maxiter: Some(20 * g),
        ..Default::default()
    };
    let t = Instant::now();
    let s = cg(&a, &b, &opts)?;
    dev.synchronize()?;
    Ok((s, t.elapsed().as_secs_f64() * 1e3, a, b))
}

/// ‖b − A x‖ / ‖b‖, computed on the CPU.
fn rel_residual(a: &CsrMatrix<f64>, b: &Array<f64>, x: &Array<f64>) -> Result<f64> {
    let a = a.to_device(&Device::Cpu)?;
    let ax = a.dot(&x.to_device(&Device::Cpu)?)?;
    let r = ax.sub(&b.to_device(&Device::Cpu)?)?.norm()?;
    Ok(r / b.to_device(&Device::Cpu)?.norm()?)
}

/// Runs the stage (see the module documentation).
pub fn run(ctx: &DemoContext) -> Result<StageReport> {
    let g = if ctx.device.is_cuda() {
        GPU_GRID
    } else {
        CPU_GRID
    };
    let n = g * g;
    println!(
        "  -Δu = 1 on a {g} × {g} grid ({n} unknowns, {} nonzeros), CG to rtol {RTOL:e}{}",
        5 * n - 4 * g,
        if ctx.device.is_cuda() {
            ""
        } else {
            " (grid scaled down: CPU only)"
        }
    );
    let mut timings = Vec::new();
    let mut checks = Vec::new();
    let line = |label: String, s: &Solution<f64>, ms: f64| {
        println!(
            "  {label:<22} {} iterations, info {}  {:>10.3} ms  {}iterations/s",
            s.iterations,
            s.info,
            ms,
            si(s.iterations as f64 / (ms / 1e3).max(1e-12))
        );
    };
    let gpu = if ctx.device.is_cuda() {
        // warm-up on a small grid: kernel compilation and library loading are not timed
        solve(16, &ctx.device)?;
        let (s, ms, a, b) = solve(g, &ctx.device)?;
        line(format!("GPU {}", ctx.device), &s, ms);
        timings.push(Timing {
            device: ctx.device.to_string(),
            ms,
            items: s.iterations as f64,
            unit: "iterations",
        });
        Some((s, a, b))
    } else {
        None
    };
    let spinner = ctx.spinner(format!("CPU reference: CG on {n} unknowns"));
    let cpu = solve(g, &Device::Cpu);
    spinner.finish_and_clear();
    let (c, cpu_ms, ca, cb) = cpu?;
    line("CPU".to_string(), &c, cpu_ms);
    timings.push(Timing {
        device: "cpu".into(),
        ms: cpu_ms,
        items: c.iterations as f64,
        unit: "iterations",
    });

    let (sol, a, b) = match &gpu {
        Some((s, a, b)) => (s, a, b),
        None => (&c, &ca, &cb),
    };
    let res = rel_residual(a, b, &sol.x)?;
    let ok = sol.info == 0 && res <= RTOL * 1.01;
    let detail = format!(
        "info {}, ‖b − A x‖/‖b‖ = {res:.3e} (tolerance {RTOL:e})",
        sol.info
    );
    println!(
        "  residual               {detail}: {}",
        if ok { "ok" } else { "FAILED" }
    );
    checks.push(Check {
        name: "residual".into(),
        passed: ok,
        counts: true,
        detail,
    });
    if let Some((s, _, _)) = &gpu {
        let gx = s.x.to_vec()?;
        let cx = c.x.to_vec()?;
        let (mut num, mut den) = (0.0f64, 0.0f64);
        for (u, v) in gx.iter().zip(&cx) {
            num += (u - v) * (u - v);
            den += v * v;
        }
        let rel = (num / den.max(f64::MIN_POSITIVE)).sqrt();
        let di = s.iterations.abs_diff(c.iterations);
        let ok = rel <= GPU_CPU_RTOL && di <= 2;
        let detail = format!(
            "‖x_GPU − x_CPU‖/‖x_CPU‖ = {rel:.3e} (tolerance {GPU_CPU_RTOL:e}), iterations {} vs {}",
            s.iterations, c.iterations
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
    } else {
        println!("  GPU vs CPU reference   not compared: no GPU run");
    }
    Ok(StageReport {
        name: "sparse",
        timings,
        checks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_stage_runs_and_passes() {
        let ctx = DemoContext {
            device: Device::Cpu,
            cpu_only_reason: Some("test".into()),
            paths: 1 << 10,
            seed: 7,
            progress: false,
        };
        let r = run(&ctx).unwrap();
        assert!(r.passed(), "{r:?}");
        assert_eq!(r.timings.len(), 1);
    }

    #[test]
    fn laplacian_has_no_coupling_across_rows() {
        let a = laplacian(3, &Device::Cpu)
            .unwrap()
            .toarray()
            .unwrap()
            .to_vec()
            .unwrap();
        // row 2 (end of the first grid row) does not touch unknown 3
        assert_eq!(a[2 * 9 + 3], 0.0);
        assert_eq!(a[2 * 9 + 1], -1.0);
        assert_eq!(a[2 * 9 + 5], -1.0);
    }
}
