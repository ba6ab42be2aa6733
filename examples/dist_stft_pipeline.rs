//! A batched signal pipeline over 10^5 signals on every GPU of the machine, or of the job
//! (cusci::dist): noise + two tones per signal (keyed by global signal index), a Butterworth
//! band-pass (`sosfilt`), the STFT, and the mean power per frequency, placed by signal index.
//! The output is bit-identical for any number of GPUs, workers and ranks (its hash is printed).
//!
//! ```text
//! cargo run --release --example dist_stft_pipeline                     # 10^5 × 4096 samples
//! cargo run --release --example dist_stft_pipeline -- --signals 2000
//! cargo build --release --features mpi --example dist_stft_pipeline
//! mpirun -np 4 target/release/examples/dist_stft_pipeline
//! ```

use cusci::dist::workloads::{spectral_pipeline, SpectralJob};
use cusci::dist::{Cluster, LocalOptions};
use std::time::Instant;

#[path = "common/args.rs"]
mod args;
use args::num;

/// FNV-1a over the output's bits: equal hashes mean bit-identical outputs.
fn hash(v: &[f32]) -> u64 {
    v.iter().fold(0xcbf29ce484222325u64, |h, x| {
        x.to_bits()
            .to_le_bytes()
            .iter()
            .fold(h, |h, &b| (h ^ b as u64).wrapping_mul(0x100000001b3))
    })
}

fn main() -> cusci::Result<()> {
    let c = Cluster::from_job(&LocalOptions {
        workers_per_device: num("--workers-per-device", 1) as usize,
        ..Default::default()
    })?;
    let on_cpu = c.devices().iter().all(|d| !d.is_cuda());
    let job = SpectralJob {
        signals: num("--signals", if on_cpu { 512 } else { 100_000 }),
        samples: num("--samples", 4096) as usize,
        chunk: num("--chunk", 1000),
        seed: num("--seed", 11),
        nperseg: num("--nperseg", 256) as usize,
        ..Default::default()
    };
    // compile kernels and plan FFTs on every worker, untimed
    spectral_pipeline(
        &c,
        &SpectralJob {
            signals: job.chunk * c.workers() as u64,
            ..job
        },
    )?;
    let t = Instant::now();
    let out = spectral_pipeline(&c, &job)?;
    let s = t.elapsed().as_secs_f64();
    if c.rank() == 0 {
        let bins = job.bins();
        let mean = |k: usize| {
            out.iter()
                .skip(k)
                .step_by(bins)
                .map(|&v| v as f64)
                .sum::<f64>()
                / job.signals as f64
        };
        let b100 = (100.0 / job.fs * job.nperseg as f64).round() as usize;
        let b300 = (300.0 / job.fs * job.nperseg as f64).round() as usize;
        println!(
            "{} rank(s), {} worker(s) on {:?}",
            c.ranks(),
            c.workers(),
            c.devices()
        );
        println!(
            "{} signals × {} samples (chunks of {}): mean power at 100 Hz {:.4e}, at 300 Hz {:.4e}",
            job.signals,
            job.samples,
            job.chunk,
            mean(b100),
            mean(b300)
        );
        println!(
            "{s:.3} s, {:.3e} signals/s, {:.3e} samples/s; output hash {:016x}",
            job.signals as f64 / s,
            job.signals as f64 * job.samples as f64 / s,
            hash(&out)
        );
    }
    Ok(())
}
