//! The fft stage: the power spectra of a batch of noisy signals (each a sinusoid at its own
//! frequency plus Gaussian noise, f32) by one `rfft` call along the last axis on the chosen
//! device, the peak of each spectrum by `argmax`, and the check that every peak sits at the
//! planted frequency; a slice of the batch is transformed again on the CPU reference and the
//! spectra compared. On a GPU the batch is 1024 signals × 65536 samples; on the CPU-only path
//! it is scaled down to 64 × 4096 so that the stage takes a fraction of a second.

use super::{pretty_count, si, Check, DemoContext, StageReport, Timing};
use cusci::core::random::Generator;
use cusci::fft::{rfft, FftOptions};
use cusci::{Array, Device, Result};
use std::time::Instant;

/// Signals × samples on a GPU.
pub const GPU_SHAPE: (usize, usize) = (1024, 65536);
/// Signals × samples when only the CPU runs.
pub const CPU_SHAPE: (usize, usize) = (64, 4096);
/// Signals compared with the CPU reference.
pub const CHECK_ROWS: usize = 32;
/// Noise standard deviation (the sinusoid has amplitude 1).
pub const SIGMA: f32 = 2.0;
/// Largest difference between the GPU's and the CPU's power spectra, relative to the largest
/// power (f32 FFTs of 65536 points: errors near 1e-6).
pub const GPU_CPU_RTOL: f64 = 1e-4;

/// The planted frequency bin of signal `s` of `n` samples (1 ..= n/2 - 2, scattered).
pub fn planted(s: usize, n: usize) -> i64 {
    (1 + (s * 7919 + 13) % (n / 2 - 2)) as i64
}

/// The `rows × n` signals on `dev`: `sin(2π f_s t / n) + SIGMA · noise` (phases in f64).
fn signals(rows: usize, n: usize, seed: u64, dev: &Device) -> Result<Array<f32>> {
    let t = Array::<f64>::arange(0.0, n as f64, 1.0, dev)?.reshape(&[1, n as isize])?;
    let f: Vec<f64> = (0..rows).map(|s| planted(s, n) as f64).collect();
    let f = Array::from_vec(f, &[rows, 1], dev)?;
    let tone = t
        .mul(&f)?
        .mul_scalar(2.0 * std::f64::consts::PI / n as f64)?
        .sin()?
        .astype::<f32>()?;
    let noise = Generator::new(seed).standard_normal::<f32>(&[rows, n], dev)?;
    tone.add(&noise.mul_scalar(SIGMA)?)
}

/// Power spectra and their peaks.
fn spectrum(x: &Array<f32>) -> Result<(Array<f32>, Array<i64>)> {
    let p = rfft(x, &FftOptions::default())?.abs2()?;
    let peaks = p.argmax_axis(-1)?;
    Ok((p, peaks))
}

/// Runs the stage (see the module documentation).
pub fn run(ctx: &DemoContext) -> Result<StageReport> {
    let gpu = ctx.device.is_cuda();
    let (rows, n) = if gpu { GPU_SHAPE } else { CPU_SHAPE };
    println!(
        "  {rows} noisy signals × {} samples (f32), rfft along the last axis, peak per spectrum{}",
        pretty_count(n as u64),
        if gpu { "" } else { " (scaled down: CPU only)" }
    );
    let x = signals(rows, n, ctx.seed, &ctx.device)?;
    if gpu {
        // warm-up: plan creation and kernel compilation are not timed
        spectrum(&x.slice_axis(0, Some(0), Some(2), 1)?)?;
        spectrum(&x)?;
        ctx.device.synchronize()?;
    }
    let t0 = Instant::now();
    let (p, peaks) = spectrum(&x)?;
    ctx.device.synchronize()?;
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let samples = (rows * n) as f64;
    println!(
        "  {:<22} {ms:>10.3} ms  {}samples/s",
        if gpu {
            format!("{}", ctx.device)
        } else {
            "CPU".into()
        },
        si(samples / (ms / 1e3).max(1e-12))
    );
    let mut timings = vec![Timing {
        device: ctx.device.to_string(),
        ms,
        items: samples,
        unit: "samples",
    }];
    let mut checks = Vec::new();

    // every peak at its planted frequency
    let got = peaks.to_vec()?;
    let wrong: Vec<usize> = (0..rows).filter(|&s| got[s] != planted(s, n)).collect();
    let detail = format!(
        "{} of {rows} peaks at the planted frequency{}",
        rows - wrong.len(),
        wrong
            .first()
            .map(|&s| format!(" (signal {s}: bin {} instead of {})", got[s], planted(s, n)))
            .unwrap_or_default()
    );
    println!(
        "  peaks                  {detail}: {}",
        if wrong.is_empty() { "ok" } else { "FAILED" }
    );
    checks.push(Check {
        name: "peaks".into(),
        passed: wrong.is_empty(),
        counts: true,
        detail,
    });

    // the same spectra on the CPU reference, for a slice of the batch
    let k = CHECK_ROWS.min(rows);
    let xs = x
        .slice_axis(0, Some(0), Some(k as isize), 1)?
        .to_device(&Device::Cpu)?;
    let spinner = ctx.spinner(format!("CPU reference: rfft of {k} × {n}"));
    let t1 = Instant::now();
    let cpu = spectrum(&xs);
    let cpu_ms = t1.elapsed().as_secs_f64() * 1e3;
    spinner.finish_and_clear();
    let (cp, cpeaks) = cpu?;
    println!(
        "  {:<22} {cpu_ms:>10.3} ms  {}samples/s ({k} signals)",
        "CPU",
        si((k * n) as f64 / (cpu_ms / 1e3).max(1e-12))
    );
    timings.push(Timing {
        device: "cpu".into(),
        ms: cpu_ms,
        items: (k * n) as f64,
        unit: "samples",
    });
    let gp = p.slice_axis(0, Some(0), Some(k as isize), 1)?.to_vec()?;
    let cv = cp.to_vec()?;
    let max = cv.iter().fold(0.0f32, |m, &v| m.max(v)) as f64;
    let err = gp
        .iter()
        .zip(&cv)
        .map(|(a, b)| (*a as f64 - *b as f64).abs())
        .fold(0.0, f64::max);
    let rel = err / max.max(f64::MIN_POSITIVE);
    let same_peaks = cpeaks.to_vec()? == got[..k];
    let ok = rel <= GPU_CPU_RTOL && same_peaks;
    let detail = format!(
        "max |P_dev − P_CPU| / max P = {rel:.3e} (tolerance {GPU_CPU_RTOL:e}), peaks {}",
        if same_peaks { "identical" } else { "differ" }
    );
    println!(
        "  device vs CPU          {detail}: {}",
        if ok { "ok" } else { "FAILED" }
    );
    checks.push(Check {
        name: "device vs CPU".into(),
        passed: ok,
        counts: true,
        detail,
    });
    Ok(StageReport {
        name: "fft",
        timings,
        checks,
    })
}
