//! Scaling benchmark of cusci::dist: the throughput of both scale-out workloads (Monte Carlo
//! option price, batched sosfilt + STFT pipeline) against the number of workers, with a check
//! that every configuration's output is bit-identical to the first. Writes
//! `<out>.jsonl` (one line per workload and configuration) and `<out>.md` (the table).
//!
//! ```text
//! # every GPU count 1, 2, 4, ... up to the visible GPUs (one worker per GPU):
//! cargo run --release --example dist_scaling -- --out benches/results/2026-12-02-h200x8-dist
//! # logical workers on one GPU (1, 2, 4): the one-GPU bit-identity run
//! cargo run --release --example dist_scaling -- --logical 1,2,4 --out benches/results/2026-12-02-h200-dist-logical
//! # sizes: --paths-log2 (default 34 on GPUs), --signals (100000), --samples (4096), --repeat (3)
//! ```

use cusci::dist::workloads::{option_price, spectral_pipeline, OptionJob, SpectralJob};
use cusci::dist::{Cluster, LocalOptions};
use cusci::Device;
use std::io::Write;
use std::time::Instant;

#[path = "common/args.rs"]
mod args;
use args::{arg, num};

fn hash64(words: impl Iterator<Item = u64>) -> u64 {
    words.fold(0xcbf29ce484222325u64, |h, w| {
        w.to_le_bytes()
            .iter()
            .fold(h, |h, &b| (h ^ b as u64).wrapping_mul(0x100000001b3))
    })
}

struct Row {
    workload: &'static str,
    config: String,
    workers: usize,
    seconds: f64,
    items: f64,
    unit: &'static str,
    hash: u64,
}

fn best_of<T>(repeat: u64, mut f: impl FnMut() -> cusci::Result<T>) -> cusci::Result<(f64, T)> {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..repeat.max(1) {
        let t = Instant::now();
        let r = f()?;
        best = best.min(t.elapsed().as_secs_f64());
        out = Some(r);
    }
    Ok((best, out.expect("at least one run")))
}

fn main() -> cusci::Result<()> {
    let gpus = Device::cuda_count();
    let on_gpu = gpus > 0;
    // configurations: (label, devices, workers per device)
    let mut configs: Vec<(String, Vec<Device>, usize)> = Vec::new();
    if let Some(l) = arg("--logical") {
        let dev = if on_gpu {
            Device::cuda(0)?
        } else {
            Device::Cpu
        };
        for w in l.split(',').filter_map(|v| v.trim().parse::<usize>().ok()) {
            configs.push((format!("{dev} x{w} logical"), vec![dev.clone()], w));
        }
    } else if on_gpu {
        let mut k = 1;
        while k <= gpus {
            configs.push((
                format!("{k} GPU"),
                (0..k).map(Device::cuda).collect::<cusci::Result<_>>()?,
                1,
            ));
            k = if k * 2 > gpus && k < gpus {
                gpus
            } else {
                k * 2
            };
        }
    } else {
        for w in [1, 2] {
            configs.push((format!("cpu x{w}"), vec![Device::Cpu], w));
        }
    }
    let repeat = num("--repeat", 3);
    let opt = OptionJob {
        paths: 1 << num("--paths-log2", if on_gpu { 34 } else { 20 }),
        chunk: 1 << num("--chunk-log2", if on_gpu { 26 } else { 16 }),
        ..Default::default()
    };
    let spec = SpectralJob {
        signals: num("--signals", if on_gpu { 100_000 } else { 256 }),
        samples: num("--samples", 4096) as usize,
        chunk: num("--chunk", if on_gpu { 1000 } else { 32 }),
        ..Default::default()
    };
    let mut rows: Vec<Row> = Vec::new();
    for (label, devices, per) in &configs {
        let c = Cluster::with_options(&LocalOptions {
            devices: devices.clone(),
            workers_per_device: *per,
        })?;
        // warm-up: kernels compiled, plans made on every worker
        option_price(
            &c,
            &OptionJob {
                paths: opt.chunk * c.workers() as u64,
                ..opt
            },
        )?;
        spectral_pipeline(
            &c,
            &SpectralJob {
                signals: spec.chunk * c.workers() as u64,
                ..spec
            },
        )?;
        let (s, r) = best_of(repeat, || option_price(&c, &opt))?;
        rows.push(Row {
            workload: "option_price",
            config: label.clone(),
            workers: c.workers(),
            seconds: s,
            items: opt.paths as f64,
            unit: "paths",
            hash: hash64([r.price.to_bits(), r.std_error.to_bits()].into_iter()),
        });
        eprintln!("{label}: option_price {s:.3} s, price {:.6}", r.price);
        let (s, out) = best_of(repeat, || spectral_pipeline(&c, &spec))?;
        rows.push(Row {
            workload: "stft_pipeline",
            config: label.clone(),
            workers: c.workers(),
            seconds: s,
            items: spec.signals as f64,
            unit: "signals",
            hash: hash64(out.iter().map(|v| v.to_bits() as u64)),
        });
        eprintln!("{label}: stft_pipeline {s:.3} s");
    }
    let out = arg("--out").unwrap_or_else(|| "benches/results/dist-scaling".into());
    if let Some(dir) = std::path::Path::new(&out).parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let io = |e: std::io::Error| cusci::Error::Io {
        op: "dist_scaling".into(),
        path: out.clone(),
        detail: e.to_string(),
    };
    let mut j = std::fs::File::create(format!("{out}.jsonl")).map_err(io)?;
    let mut md = String::from(
        "| workload | configuration | workers | seconds | throughput | speed-up | efficiency | bits as the first |\n|---|---|---|---|---|---|---|---|\n",
    );
    for w in ["option_price", "stft_pipeline"] {
        let base = rows
            .iter()
            .find(|r| r.workload == w)
            .map(|r| (r.seconds, r.hash));
        for r in rows.iter().filter(|r| r.workload == w) {
            let (b, h) = base.unwrap_or((r.seconds, r.hash));
            let speed = b / r.seconds;
            let same = r.hash == h;
            let line = serde_json::json!({
                "workload": r.workload, "config": r.config, "workers": r.workers,
                "seconds": r.seconds, "throughput": r.items / r.seconds, "unit": r.unit,
                "speedup": speed, "hash": format!("{:016x}", r.hash), "bit_identical": same,
                "paths": opt.paths, "signals": spec.signals, "samples": spec.samples,
            });
            writeln!(j, "{line}").map_err(io)?;
            md.push_str(&format!(
                "| {} | {} | {} | {:.4} | {:.3e} {}/s | {:.2} | {:.2} | {} |\n",
                r.workload,
                r.config,
                r.workers,
                r.seconds,
                r.items / r.seconds,
                r.unit,
                speed,
                speed
                    / (r.workers as f64
                        / rows
                            .iter()
                            .find(|x| x.workload == w)
                            .map_or(1.0, |x| x.workers as f64)),
                if same { "yes" } else { "NO" }
            ));
        }
    }
    std::fs::write(format!("{out}.md"), &md).map_err(io)?;
    print!("{md}");
    if rows.iter().any(|r| {
        rows.iter()
            .find(|x| x.workload == r.workload)
            .is_some_and(|x| x.hash != r.hash)
    }) {
        eprintln!("outputs differ between configurations");
        std::process::exit(1);
    }
    Ok(())
}
