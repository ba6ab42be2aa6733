//! The signal stage: a batch of noisy signals (three tones in white noise) band-pass filtered
//! (`sosfiltfilt`: zero phase, Butterworth order 4 around the middle tone), then their
//! Welch PSD and spectrogram, all batched on the chosen device; the first signals are run again
//! on the CPU reference and compared; PNGs of one PSD and one spectrogram are written.
//!
//! Sizes: 1024 signals of 65536 samples on a GPU; 16 signals of 8192 samples when the stage
//! runs on the CPU only (so that `cargo test -p cusci-cli` stays quick).

use super::{si, Check, DemoContext, StageReport, Timing};
use cusci::core::random::Generator;
use cusci::signal::{self as sig, BType, FiltfiltOptions, IirOptions, Output};
use cusci::{Array, Device, Result};
use std::time::Instant;

/// Signals checked against the CPU.
const CHECK_SIGNALS: usize = 2;
/// Largest |GPU − CPU| relative to the largest |CPU| value (f32 arithmetic on both sides).
const RTOL: f32 = 1e-3;
/// Sampling frequency (Hz) and the tones (Hz); the pass band is around the middle tone.
const FS: f64 = 1000.0;
const TONES: [f64; 3] = [50.0, 120.0, 300.0];
const BAND: [f64; 2] = [90.0, 150.0];
/// The PNG files written to `CUSCI_DEMO_DIR` (else the temporary folder).
pub const PSD_PNG: &str = "cusci_demo_signal_psd.png";
pub const SPEC_PNG: &str = "cusci_demo_signal_spectrogram.png";

struct Out {
    psd: Array<f32>,
    spec: Array<f32>,
}

fn pipeline(sos: &Array<f32>, x: &Array<f32>) -> Result<Out> {
    // zero-phase band-pass: forward and backward sosfilt with odd padding (SciPy's default)
    let y = sig::sosfiltfilt(sos, x, &FiltfiltOptions::default())?;
    let wo = sig::WelchOptions {
        fs: FS,
        nperseg: Some(1024),
        ..Default::default()
    };
    let (_, psd) = sig::welch(&y, &wo)?;
    let so = sig::SpectrogramOptions {
        fs: FS,
        nperseg: Some(256),
        noverlap: Some(192),
        ..Default::default()
    };
    let (_, _, spec) = sig::spectrogram(&y, &so)?;
    let spec = spec.real().ok_or_else(|| {
        cusci::core::error::make::arg("demo signal", "the PSD spectrogram is not real")
    })?;
    Ok(Out { psd, spec })
}

/// Runs the stage (see the module documentation).
pub fn run(ctx: &DemoContext) -> Result<StageReport> {
    let (b, n) = if ctx.device.is_cuda() {
        (1024usize, 65536usize)
    } else {
        (16, 8192)
    };
    println!(
        "  {b} signals × {n} f32 at {FS} Hz (tones {TONES:?} Hz + noise): sosfiltfilt band-pass \
         {BAND:?} Hz, Welch PSD (nperseg 1024), spectrogram (nperseg 256)"
    );
    let sos = sig::butter(
        4,
        &BAND,
        &IirOptions {
            btype: BType::Bandpass,
            output: Output::Sos,
            fs: Some(FS),
            ..Default::default()
        },
    )?
    .into_sos()?;
    let flat: Vec<f32> = sos.iter().flatten().map(|&v| v as f32).collect();
    let sos_d = Array::from_vec(flat.clone(), &[sos.len(), 6], &ctx.device)?;
    let sos_c = Array::from_vec(flat, &[sos.len(), 6], &Device::Cpu)?;
    // the tones on the host (small), the noise on the device
    let tone: Vec<f32> = (0..n)
        .map(|i| {
            let t = i as f64 / FS;
            TONES
                .iter()
                .map(|f| (2.0 * std::f64::consts::PI * f * t).sin())
                .sum::<f64>() as f32
        })
        .collect();
    let tone = Array::from_vec(tone, &[1, n], &ctx.device)?;
    let noise = Generator::new(ctx.seed).standard_normal::<f32>(&[b, n], &ctx.device)?;
    let x = noise.mul_scalar(2.0)?.add(&tone)?;
    let mut timings = Vec::new();
    let mut checks = Vec::new();

    let mut out = None;
    if ctx.device.is_cuda() {
        let x1 = x.slice_axis(0, Some(0), Some(1), 1)?.contiguous()?;
        pipeline(&sos_d, &x1)?; // compile the kernels and plan the FFTs; not timed
        let t = Instant::now();
        let r = pipeline(&sos_d, &x)?;
        let _ = r.spec.slice_axis(0, Some(0), Some(1), 1)?.to_vec()?; // wait for the device
        let ms = t.elapsed().as_secs_f64() * 1e3;
        println!(
            "  GPU {}: {ms:.2} ms, {}samples/s",
            ctx.device,
            si((b * n) as f64 / (ms / 1e3))
        );
        timings.push(Timing {
            device: ctx.device.to_string(),
            ms,
            items: (b * n) as f64,
            unit: "samples",
        });
        out = Some(r);
    }
    let k = if ctx.device.is_cuda() {
        CHECK_SIGNALS
    } else {
        b
    };
    let xc = x
        .slice_axis(0, Some(0), Some(k as isize), 1)?
        .to_device(&Device::Cpu)?;
    let spinner = ctx.spinner(format!("CPU reference: {k} signals"));
    let t = Instant::now();
    let cpu = pipeline(&sos_c, &xc);
    spinner.finish_and_clear();
    let cpu = cpu?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    println!(
        "  CPU, {} threads: {k} signals in {ms:.2} ms",
        rayon::current_num_threads()
    );
    timings.push(Timing {
        device: "cpu".into(),
        ms,
        items: (k * n) as f64,
        unit: "samples",
    });

    if let Some(g) = &out {
        for (what, ga, ca) in [
            ("PSD", &g.psd, &cpu.psd),
            ("spectrogram", &g.spec, &cpu.spec),
        ] {
            let gv = ga.slice_axis(0, Some(0), Some(k as isize), 1)?.to_vec()?;
            let cv = ca.to_vec()?;
            let scale = cv
                .iter()
                .fold(0f32, |m, v| m.max(v.abs()))
                .max(f32::MIN_POSITIVE);
            let worst = gv
                .iter()
                .zip(&cv)
                .fold(0f32, |m, (a, b)| m.max((a - b).abs()));
            checks.push(Check {
                name: format!("gpu=cpu {what}"),
                passed: gv.len() == cv.len() && worst <= RTOL * scale,
                counts: true,
                detail: format!("first {k} signals: max |GPU − CPU| = {worst:.3e} (scale {scale:.3e}, tolerance {RTOL:e} relative)"),
            });
        }
    }
    let res = out.as_ref().unwrap_or(&cpu);
    let psd0 = res.psd.slice_axis(0, Some(0), Some(1), 1)?.to_vec()?;
    let nf = psd0.len();
    let df = FS / (2 * (nf - 1)) as f64;
    let peak = psd0
        .iter()
        .enumerate()
        .fold(
            (0usize, f32::MIN),
            |m, (i, &v)| if v > m.1 { (i, v) } else { m },
        )
        .0 as f64
        * df;
    let ok = (peak - TONES[1]).abs() <= 2.0 * df;
    checks.push(Check {
        name: "pass band".into(),
        passed: ok,
        counts: true,
        detail: format!(
            "the PSD of signal 0 peaks at {peak:.1} Hz (the {} Hz tone in the pass band)",
            TONES[1]
        ),
    });

    let dir = std::env::var_os("CUSCI_DEMO_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    // PSD: log10 plotted as a white curve on black, 512 × 256
    let (w, h) = (512usize, 256usize);
    let logp: Vec<f32> = psd0.iter().map(|v| v.max(1e-20).log10()).collect();
    let (lo, hi) = minmax(&logp);
    let mut img = vec![0u8; w * h];
    for (c, col) in (0..w).map(|c| (c, c * (nf - 1) / (w - 1))) {
        let v = if hi > lo {
            (logp[col] - lo) / (hi - lo)
        } else {
            0.0
        };
        let r = ((1.0 - v) * (h - 1) as f32) as usize;
        for row in r..h {
            img[row * w + c] = if row == r { 255 } else { 60 };
        }
    }
    report_png(&dir.join(PSD_PNG), &img, w, h, "PSD of signal 0");
    // spectrogram: log10, frequency up, time right
    let s0 = res.spec.slice_axis(0, Some(0), Some(1), 1)?.to_vec()?;
    let (nfs, nt) = (res.spec.shape()[1], res.spec.shape()[2]);
    let logs: Vec<f32> = s0.iter().map(|v| v.max(1e-20).log10()).collect();
    let (lo, hi) = minmax(&logs);
    let mut img = vec![0u8; nfs * nt];
    for f in 0..nfs {
        for t in 0..nt {
            let v = if hi > lo {
                (logs[f * nt + t] - lo) / (hi - lo)
            } else {
                0.0
            };
            img[(nfs - 1 - f) * nt + t] = (v * 255.0) as u8;
        }
    }
    report_png(
        &dir.join(SPEC_PNG),
        &img,
        nt,
        nfs,
        "spectrogram of signal 0",
    );
    Ok(StageReport {
        name: "signal",
        timings,
        checks,
    })
}

fn minmax(v: &[f32]) -> (f32, f32) {
    v.iter()
        .fold((f32::MAX, f32::MIN), |(l, h), &x| (l.min(x), h.max(x)))
}

fn report_png(path: &std::path::Path, img: &[u8], w: usize, h: usize, what: &str) {
    match super::write_grey_png(path, img, w, h) {
        Ok(()) => println!("  {what} written to {}", path.display()),
        Err(e) => println!("  could not write {}: {e}", path.display()),
    }
}
