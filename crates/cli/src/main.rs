//! `cusci`: what this machine offers cusci (`cusci info`) and the end-to-end demo (`cusci demo`).
//!
//! Exit status: 0 on success, 1 when a validation of the demo failed, 2 on an error (a device
//! that cannot be opened, a failed computation, a bad argument).

use clap::{Parser, Subcommand};
use cusci_cli::{demo, info};
use std::process::ExitCode;

/// cusci: SciPy's fft, linalg, signal, sparse and ndimage on NVIDIA GPUs, with a CPU reference.
#[derive(Parser, Debug)]
#[command(name = "cusci", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// The devices, the CUDA libraries found (version and path), NVRTC and the kernel cache.
    Info,
    /// Runs the demo stages (a Monte Carlo option price) on the GPU, validates them against the
    /// CPU reference and prints the timings.
    Demo(demo::DemoArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Info => info::run(),
        Command::Demo(args) => demo::run(&args),
    }
}
