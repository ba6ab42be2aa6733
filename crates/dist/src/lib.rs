//! # cusci-dist: scale-out
//!
//! Batch pipelines and Monte Carlo over several GPUs and several hosts, with results that do not
//! depend on how many there are.
//!
//! - [`Cluster`]: the workers. [`Cluster::local`] takes every visible GPU of the process (one
//!   worker thread each, with its own stream; the CPU when there is no GPU);
//!   [`Cluster::logical`] puts several workers on one device; `Cluster::from_env` (cargo feature
//!   `mpi`) joins the processes started by `mpirun`/`srun` — each rank picks its GPUs by local
//!   rank before any CUDA call — and is a world of one without a launcher.
//! - [`Grid`] and [`Chunk`]: a global batch cut into chunks that do not depend on the cluster;
//!   [`Chunk::generator`] gives random streams keyed by global item.
//! - [`Cluster::batch_map`] (outputs placed by global index) and [`Cluster::map_reduce`] (partial
//!   results folded in chunk order): **bit-identical for any number of workers and ranks**.
//! - [`Cluster::run`] (SPMD) and the [`Worker`] collectives: `gather`, `barrier`,
//!   [`Worker::all_reduce`], [`Worker::broadcast`], [`Worker::all_gather`] on per-worker arrays —
//!   NCCL when every worker has its own GPU and NCCL loads, host staging otherwise.
//! - An error on any worker of any rank returns the same `Err` on every rank; no rank is left
//!   waiting.
//! - [`workloads`]: the two workloads of the examples and benchmarks (a batched sosfilt + STFT
//!   pipeline, a Monte Carlo option price), written on the public API.
//!
//! ```
//! use cusci_dist::{Cluster, Grid};
//! let one = Cluster::logical(&cusci_core::Device::cpu(), 1).unwrap();
//! let four = Cluster::logical(&cusci_core::Device::cpu(), 4).unwrap();
//! let g = Grid::new(1000, 64).unwrap();
//! let f = |_: &cusci_dist::Worker, c: &cusci_dist::Chunk| Ok(c.range().map(|i| (i as f64).sqrt()).sum::<f64>());
//! let a = one.map_reduce(&g, 0.0, f, |x, y| x + y).unwrap();
//! let b = four.map_reduce(&g, 0.0, f, |x, y| x + y).unwrap();
//! assert_eq!(a.to_bits(), b.to_bits());
//! ```
//!
#![doc = include_str!("../README.md")]

mod cluster;
mod collective;
mod comm;
mod env;
mod grid;
mod group;
#[cfg(feature = "mpi")]
mod mpi_comm;
mod nccl;
mod wire;
pub mod workloads;

pub use cluster::{Cluster, LocalOptions, Worker};
pub use collective::{Collective, ReduceOp};
pub use comm::{RankComm, Solo, ThreadRanks};
pub use env::LaunchEnv;
pub use grid::{Chunk, Grid};
#[cfg(feature = "mpi")]
pub use mpi_comm::MpiComm;
pub use nccl::nccl_info;
pub use wire::{from_bytes, to_bytes, Wire};
