//! The ndimage stage: a batch of images smoothed (Gaussian), edge-detected (Sobel magnitude)
//! and rotated, in a few batched calls on the chosen device; the first images are run again
//! on the CPU reference and compared; a before/after PNG of the first image is written.
//!
//! Sizes: 64 images of 1024² on a GPU; 8 images of 128² when the stage runs on the CPU only
//! (so that `cargo test -p cusci-cli` stays quick).

use super::{si, Check, DemoContext, StageReport, Timing};
use cusci::core::random::Generator;
use cusci::ndimage::{self as ndi, FilterOptions, GaussianOptions, InterpOptions};
use cusci::{Array, Device, Result};
use std::time::Instant;

/// Images checked against the CPU.
const CHECK_IMAGES: usize = 2;
/// Largest |GPU − CPU| relative to the largest |CPU| value (f32 arithmetic on both sides).
const RTOL: f32 = 1e-4;
/// The before/after image's file name, written to `CUSCI_DEMO_DIR` (else the temporary folder).
pub const PNG_NAME: &str = "cusci_demo_ndimage.png";

/// The pipeline on a batch `[b, h, w]`: smooth, Sobel magnitude over the two image axes, rotate
/// by 30° (the batch axis untouched).
fn pipeline(x: &Array<f32>) -> Result<(Array<f32>, Array<f32>)> {
    let g = GaussianOptions {
        axes: Some(vec![1, 2]),
        ..Default::default()
    };
    let smooth = ndi::gaussian_filter(x, &[2.0], &g)?;
    let o = FilterOptions::default();
    // Sobel along each image axis, smoothing only along the other image axis
    let dy = ndi::correlate1d(
        &ndi::correlate1d(&smooth, &[-1.0, 0.0, 1.0], 1, &o)?,
        &[1.0, 2.0, 1.0],
        2,
        &o,
    )?;
    let dx = ndi::correlate1d(
        &ndi::correlate1d(&smooth, &[-1.0, 0.0, 1.0], 2, &o)?,
        &[1.0, 2.0, 1.0],
        1,
        &o,
    )?;
    let mag = dy.mul(&dy)?.add(&dx.mul(&dx)?)?.sqrt()?;
    let rot = ndi::rotate(
        &mag,
        30.0,
        (2, 1),
        false,
        &InterpOptions {
            order: 1,
            ..Default::default()
        },
    )?;
    Ok((smooth, rot))
}

/// Runs the stage (see the module documentation).
pub fn run(ctx: &DemoContext) -> Result<StageReport> {
    let (b, n) = if ctx.device.is_cuda() {
        (64usize, 1024usize)
    } else {
        (8, 128)
    };
    println!(
        "  {b} images of {n}×{n} f32: Gaussian σ=2, Sobel magnitude, rotation by 30° (order 1)"
    );
    // test images: smooth random blobs plus noise
    let mut gen = Generator::new(ctx.seed);
    let noise = gen.standard_normal::<f32>(&[b, n, n], &ctx.device)?;
    let blobs = ndi::gaussian_filter(
        &noise,
        &[0.0, n as f64 / 64.0, n as f64 / 64.0],
        &GaussianOptions::default(),
    )?;
    let x = blobs.mul_scalar(8.0)?.add(&noise.mul_scalar(0.2)?)?;
    let mut timings = Vec::new();
    let mut checks = Vec::new();

    let mut out = None;
    if ctx.device.is_cuda() {
        pipeline(&x.slice_axis(0, Some(0), Some(1), 1)?)?; // compile the kernels; not timed
        let t = Instant::now();
        let r = pipeline(&x)?;
        let _ = r.1.slice_axis(0, Some(0), Some(1), 1)?.to_vec()?; // wait for the device
        let ms = t.elapsed().as_secs_f64() * 1e3;
        println!(
            "  GPU {}: {ms:.2} ms, {}pixels/s",
            ctx.device,
            si((b * n * n) as f64 / (ms / 1e3))
        );
        timings.push(Timing {
            device: ctx.device.to_string(),
            ms,
            items: (b * n * n) as f64,
            unit: "pixels",
        });
        out = Some(r);
    }
    let k = if ctx.device.is_cuda() {
        CHECK_IMAGES
    } else {
        b
    };
    let xc = x
        .slice_axis(0, Some(0), Some(k as isize), 1)?
        .to_device(&Device::Cpu)?;
    let spinner = ctx.spinner(format!("CPU reference: {k} images"));
    let t = Instant::now();
    let cpu = pipeline(&xc);
    spinner.finish_and_clear();
    let cpu = cpu?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    println!(
        "  CPU, {} threads: {k} images in {ms:.2} ms",
        rayon::current_num_threads()
    );
    timings.push(Timing {
        device: "cpu".into(),
        ms,
        items: (k * n * n) as f64,
        unit: "pixels",
    });

    if let Some((_, rot)) = &out {
        let g = rot.slice_axis(0, Some(0), Some(k as isize), 1)?.to_vec()?;
        let c = cpu.1.to_vec()?;
        let scale = c
            .iter()
            .fold(0f32, |m, v| m.max(v.abs()))
            .max(f32::MIN_POSITIVE);
        let worst = g
            .iter()
            .zip(&c)
            .fold(0f32, |m, (a, b)| m.max((a - b).abs()));
        let ok = worst <= RTOL * scale;
        checks.push(Check {
            name: "gpu=cpu".into(),
            passed: ok,
            counts: true,
            detail: format!("first {k} images: max |GPU − CPU| = {worst:.3e} (scale {scale:.3e}, tolerance {RTOL:e} relative)"),
        });
    }
    // a rotation by 30° of a Sobel magnitude: the rotated edge energy stays close to the original
    // within the inscribed disc; as a sanity check, the output is finite and not all zero
    let res = out.as_ref().map(|o| &o.1).unwrap_or(&cpu.1);
    let first = res.slice_axis(0, Some(0), Some(1), 1)?.to_vec()?;
    let finite = first.iter().all(|v| v.is_finite()) && first.iter().any(|v| *v != 0.0);
    checks.push(Check {
        name: "finite".into(),
        passed: finite,
        counts: true,
        detail: "edges of image 0 are finite and not all zero".into(),
    });

    let before = x.slice_axis(0, Some(0), Some(1), 1)?.to_vec()?;
    let dir = std::env::var_os("CUSCI_DEMO_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let path = dir.join(PNG_NAME);
    match write_png(&path, &before, &first, n) {
        Ok(()) => println!("  before/after of image 0 written to {}", path.display()),
        Err(e) => println!("  could not write {}: {e}", path.display()),
    }
    Ok(StageReport {
        name: "ndimage",
        timings,
        checks,
    })
}

/// Two n×n grey images side by side (each scaled to 0..255) as an 8-bit PNG.
fn write_png(path: &std::path::Path, a: &[f32], b: &[f32], n: usize) -> std::io::Result<()> {
    let norm = |v: &[f32]| {
        let (lo, hi) = v
            .iter()
            .fold((f32::MAX, f32::MIN), |(l, h), &x| (l.min(x), h.max(x)));
        let s = if hi > lo { 255.0 / (hi - lo) } else { 0.0 };
        v.iter().map(|&x| ((x - lo) * s) as u8).collect::<Vec<u8>>()
    };
    let (a, b) = (norm(a), norm(b));
    let w = 2 * n;
    let mut raw = Vec::with_capacity(w * n);
    for r in 0..n {
        raw.extend_from_slice(&a[r * n..(r + 1) * n]);
        raw.extend_from_slice(&b[r * n..(r + 1) * n]);
    }
    super::write_grey_png(path, &raw, w, n)
}
