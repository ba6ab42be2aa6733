//! The segment stage: a synthetic image (standard normal noise smoothed by `gaussian_filter`,
//! σ = 4) segmented as an image-analysis script would do it — threshold, `binary_opening`
//! (2 iterations), `label` — and measured: the count of objects, their areas (`sum_labels` of
//! ones), their centres of mass, and the largest inscribed radius (`distance_transform_edt`).
//! Everything runs on the chosen device, then on the CPU reference; the labels must be identical
//! and the measurements agree to rounding. On a GPU the image is 4096 × 4096; on the CPU-only path
//! it is scaled down to 512 × 512 so that the stage takes a fraction of a second.

use super::{pretty_count, si, Check, DemoContext, StageReport, Timing};
use cusci::core::random::Generator;
use cusci::ndimage::{
    binary_opening, center_of_mass, distance_transform_edt, gaussian_filter, label, sum_labels,
    BinaryOptions, DistanceOptions, GaussianOptions,
};
use cusci::{Array, Device, Result};
use std::time::Instant;

/// Image side on a GPU.
pub const GPU_SIDE: usize = 4096;
/// Image side when only the CPU runs.
pub const CPU_SIDE: usize = 512;
/// Smoothing of the noise.
pub const SIGMA: f64 = 4.0;
/// Threshold on the smoothed noise (its standard deviation is about 0.07).
pub const THRESHOLD: f32 = 0.1;
/// Largest relative difference between the devices' centres of mass (f64 sums in another order).
pub const COM_RTOL: f64 = 1e-9;

/// What the pipeline finds.
struct Found {
    labels: Vec<i32>,
    count: usize,
    areas: Vec<f64>,
    centres: Vec<Vec<f64>>,
    max_radius: f64,
    ms: f64,
}

fn pipeline(side: usize, seed: u64, dev: &Device) -> Result<Found> {
    let noise = Generator::new(seed).standard_normal::<f32>(&[side, side], dev)?;
    if let Device::Cuda(_) = dev {
        dev.synchronize()?;
    }
    let t = Instant::now();
    let smooth = gaussian_filter(&noise, &[SIGMA], &GaussianOptions::default())?;
    let mask = smooth.gt_scalar(THRESHOLD)?;
    let opened = binary_opening(
        &mask,
        &BinaryOptions {
            iterations: 2,
            ..Default::default()
        },
    )?;
    let (labels, count) = label(&opened, None)?;
    let index: Vec<i64> = (1..=count as i64).collect();
    let ones = Array::<f32>::ones(&[side, side], dev)?;
    let areas = sum_labels(&ones, Some(&labels), Some(&index))?;
    let centres = center_of_mass(&ones, Some(&labels), Some(&index))?;
    let (edt, _) = distance_transform_edt(&opened, &DistanceOptions::default())?;
    let max_radius = edt.map(|e| e.max()).transpose()?.unwrap_or(0.0);
    let ms = t.elapsed().as_secs_f64() * 1e3;
    Ok(Found {
        labels: labels.to_vec()?,
        count,
        areas,
        centres,
        max_radius,
        ms,
    })
}

/// Runs the stage (see the module documentation).
pub fn run(ctx: &DemoContext) -> Result<StageReport> {
    let side = if ctx.device.is_cuda() {
        GPU_SIDE
    } else {
        CPU_SIDE
    };
    let px = (side * side) as f64;
    println!(
        "  {side} × {side} image: noise smoothed (σ = {SIGMA}), > {THRESHOLD}, opening ×2, label, areas, centres, EDT{}",
        if ctx.device.is_cuda() { "" } else { " (scaled down: CPU only)" }
    );
    let mut timings = Vec::new();
    let mut checks = Vec::new();
    let gpu = if ctx.device.is_cuda() {
        // first run compiles the kernels (or loads them from the disk cache); not timed
        pipeline(256, ctx.seed, &ctx.device)?;
        let g = pipeline(side, ctx.seed, &ctx.device)?;
        println!(
            "  GPU {:<18} {:>10.3} ms  {}pixels/s",
            ctx.device.to_string(),
            g.ms,
            si(px / (g.ms / 1e3).max(1e-12))
        );
        timings.push(Timing {
            device: ctx.device.to_string(),
            ms: g.ms,
            items: px,
            unit: "pixels",
        });
        Some(g)
    } else {
        None
    };
    let threads = rayon::current_num_threads();
    let spinner = ctx.spinner(format!(
        "CPU reference: {side} × {side} on {threads} threads"
    ));
    let c = pipeline(side, ctx.seed, &Device::Cpu);
    spinner.finish_and_clear();
    let c = c?;
    println!(
        "  CPU, {threads} threads{:<8} {:>10.3} ms  {}pixels/s",
        "",
        c.ms,
        si(px / (c.ms / 1e3).max(1e-12))
    );
    timings.push(Timing {
        device: "cpu".into(),
        ms: c.ms,
        items: px,
        unit: "pixels",
    });
    let total: f64 = c.areas.iter().sum();
    let largest = c.areas.iter().cloned().fold(0.0, f64::max);
    println!(
        "  {} objects, {} pixels in objects ({:.1} %), largest {} pixels, largest inscribed radius {:.2}",
        pretty_count(c.count as u64),
        pretty_count(total as u64),
        100.0 * total / px,
        largest,
        c.max_radius
    );
    // the CPU's own consistency: areas add up to the labelled pixels, centres inside the image
    let labelled = c.labels.iter().filter(|&&l| l > 0).count() as f64;
    let inside = c
        .centres
        .iter()
        .flatten()
        .all(|&v| v >= 0.0 && v <= (side - 1) as f64);
    let detail = format!(
        "Σ areas = {total}, labelled pixels = {labelled}, centres inside the image: {inside}"
    );
    println!("  CPU: {detail}");
    checks.push(Check {
        name: "areas add up and centres lie in the image".into(),
        passed: total == labelled && inside && c.count > 0,
        counts: true,
        detail,
    });
    if let Some(g) = &gpu {
        let same_labels = g.count == c.count && g.labels == c.labels;
        let same_areas = g.areas == c.areas;
        let com = g
            .centres
            .iter()
            .flatten()
            .zip(c.centres.iter().flatten())
            .map(|(a, b)| (a - b).abs() / b.abs().max(1.0))
            .fold(0.0, f64::max);
        let ok = same_labels && same_areas && com <= COM_RTOL && g.max_radius == c.max_radius;
        let detail = format!(
            "labels identical: {same_labels} ({} vs {} objects), areas identical: {same_areas}, \
             centres max rel diff {com:.2e} (tolerance {COM_RTOL:e}), max radius {} vs {}",
            g.count, c.count, g.max_radius, c.max_radius
        );
        println!("  GPU against CPU: {detail}");
        checks.push(Check {
            name: "GPU segmentation matches the CPU".into(),
            passed: ok,
            counts: true,
            detail,
        });
    }
    Ok(StageReport {
        name: "segment",
        timings,
        checks,
    })
}
