//! Monte Carlo price of a European call over 2^34 paths on every GPU of the machine, or of the
//! job (cusci::dist). The result is bit-identical for any number of GPUs, workers and ranks.
//!
//! ```text
//! cargo run --release --example dist_option_price                      # 2^34 paths, all local GPUs
//! cargo run --release --example dist_option_price -- --paths-log2 24   # smaller
//! cargo run --release --example dist_option_price -- --workers-per-device 4
//! cargo build --release --features mpi --example dist_option_price
//! mpirun -np 4 target/release/examples/dist_option_price               # one rank per GPU
//! ```

use cusci::core::random::montecarlo::EuropeanCall;
use cusci::dist::workloads::{option_price, OptionJob};
use cusci::dist::{Cluster, LocalOptions};
use std::time::Instant;

#[path = "common/args.rs"]
mod args;
use args::num;

fn main() -> cusci::Result<()> {
    let c = Cluster::from_job(&LocalOptions {
        workers_per_device: num("--workers-per-device", 1) as usize,
        ..Default::default()
    })?;
    let on_cpu = c.devices().iter().all(|d| !d.is_cuda());
    // the full 2^34 on GPUs; 2^22 by default when only the CPU is there
    let paths_log2 = num("--paths-log2", if on_cpu { 22 } else { 34 });
    let chunk_log2 = num("--chunk-log2", 26.min(paths_log2));
    let job = OptionJob {
        option: EuropeanCall {
            s0: 100.0,
            strike: 105.0,
            rate: 0.05,
            sigma: 0.2,
            maturity: 1.0,
        },
        paths: 1 << paths_log2,
        chunk: 1 << chunk_log2,
        seed: num("--seed", 7),
    };
    // one small untimed run compiles the kernels on every worker
    option_price(
        &c,
        &OptionJob {
            paths: job.chunk.min(1 << 20) * c.workers() as u64,
            ..job
        },
    )?;
    let t = Instant::now();
    let r = option_price(&c, &job)?;
    let s = t.elapsed().as_secs_f64();
    if c.rank() == 0 {
        println!(
            "{} rank(s), {} worker(s) on {:?}",
            c.ranks(),
            c.workers(),
            c.devices()
        );
        println!(
            "2^{paths_log2} paths in chunks of 2^{chunk_log2}: price {:.6} ± {:.2e} (Black–Scholes 8.021352)",
            r.price, r.std_error
        );
        println!(
            "{s:.3} s, {:.3e} paths/s; result bits {:016x} {:016x}",
            job.paths as f64 / s,
            r.price.to_bits(),
            r.std_error.to_bits()
        );
    }
    Ok(())
}
