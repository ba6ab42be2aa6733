//! `cusci`: what this machine offers cusci (`cusci info`) and the end-to-end demo (`cusci demo`).
//!
//! Exit status: 0 on success, 1 when a validation of the demo failed, 2 on an error (a device
//! that cannot be opened, a failed computation, a bad argument).

use clap::{Parser, Subcommand};
use cusci_cli::{demo, info, pipeline_data, run};
use std::path::PathBuf;
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
    /// Runs a batch pipeline (a TOML description: input files, stages, outputs) over its files.
    Run(run::RunArgs),
    /// Writes the small deterministic data set of an example pipeline (audio or microscopy).
    Generate(GenerateArgs),
}

/// The arguments of `cusci generate`.
#[derive(clap::Args, Debug)]
struct GenerateArgs {
    /// Which data set: audio (two-channel WAV recordings) or microscopy (16-bit TIFF images).
    #[arg(value_parser = ["audio", "microscopy"])]
    kind: String,
    /// The folder to write into (created when missing).
    dir: PathBuf,
    /// How many files.
    #[arg(long, default_value_t = 16)]
    files: usize,
    /// The seed (the same files for the same seed).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Audio: channels per recording.
    #[arg(long, default_value_t = 2)]
    channels: usize,
    /// Microscopy: the images' side in pixels.
    #[arg(long, default_value_t = pipeline_data::IMAGE_SIDE)]
    side: usize,
}

fn generate(a: &GenerateArgs) -> ExitCode {
    let r = if a.kind == "audio" {
        pipeline_data::generate_audio(&a.dir, a.files, a.seed, a.channels).map(|v| v.len())
    } else {
        pipeline_data::generate_microscopy(&a.dir, a.files, a.seed, a.side).map(|v| v.len())
    };
    match r {
        Ok(n) => {
            println!("wrote {n} {} files into {}", a.kind, a.dir.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("cusci generate: {e}");
            ExitCode::from(2)
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Info => info::run(),
        Command::Demo(args) => demo::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Generate(args) => generate(&args),
    }
}
