//! MPI transport (cargo feature `mpi`): the ranks of `MPI_COMM_WORLD`, through the `mpi` crate
//! (MPICH or Open MPI).

use crate::comm::RankComm;
use crate::env::LaunchEnv;
use crate::{Cluster, LocalOptions};
use cusci_core::error::make;
use cusci_core::{Device, Error, Result};
use mpi::datatype::PartitionMut;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Count;
use std::sync::{Arc, Mutex, Weak};

/// `MPI_COMM_WORLD`. MPI is initialised (with `MPI_THREAD_MULTIPLE` when offered, at least
/// `MPI_THREAD_SERIALIZED`) by the first [`Cluster::from_env`] and finalised when the last cluster
/// using it is dropped; calls are serialised by a mutex.
pub struct MpiComm {
    world: Mutex<SimpleCommunicator>,
    rank: usize,
    size: usize,
    _universe: mpi::environment::Universe,
}

// SAFETY: every MPI call goes through the mutex, and MPI was initialised with at least
// MPI_THREAD_SERIALIZED, which allows calls from any thread one at a time.
unsafe impl Send for MpiComm {}
// SAFETY: as above.
unsafe impl Sync for MpiComm {}

fn mpi_err(detail: impl Into<String>) -> Error {
    Error::Cuda {
        op: "cusci_dist::mpi".into(),
        library: "mpi",
        status: detail.into(),
    }
}

impl MpiComm {
    /// The process's world communicator, initialising MPI on first use.
    ///
    /// # Errors
    /// When MPI was finalised already, or offers less than `MPI_THREAD_SERIALIZED`.
    pub fn world() -> Result<Arc<MpiComm>> {
        static WORLD: Mutex<Weak<MpiComm>> = Mutex::new(Weak::new());
        let mut w = WORLD.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = w.upgrade() {
            return Ok(c);
        }
        if mpi::environment::is_finalized() {
            return Err(mpi_err(
                "MPI was finalised when the last Cluster::from_env was dropped; keep one cluster for the program's life",
            ));
        }
        let (universe, level) = mpi::initialize_with_threading(mpi::Threading::Multiple)
            .ok_or_else(|| mpi_err("MPI was initialised outside cusci-dist"))?;
        if level < mpi::Threading::Serialized {
            return Err(mpi_err(format!(
                "MPI offers thread level {level:?}; cusci-dist needs Serialized or Multiple"
            )));
        }
        let world = universe.world();
        let c = Arc::new(MpiComm {
            rank: world.rank() as usize,
            size: world.size() as usize,
            world: Mutex::new(world),
            _universe: universe,
        });
        *w = Arc::downgrade(&c);
        Ok(c)
    }
}

impl RankComm for MpiComm {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.size
    }
    fn all_gather(&self, blob: Vec<u8>) -> Result<Vec<Vec<u8>>> {
        let world = self.world.lock().unwrap_or_else(|e| e.into_inner());
        let mine = Count::try_from(blob.len()).map_err(|_| {
            mpi_err(format!(
                "a blob of {} bytes exceeds MPI's 2^31-1 count",
                blob.len()
            ))
        })?;
        let mut counts = vec![0 as Count; self.size];
        world.all_gather_into(&mine, &mut counts[..]);
        let mut displs = Vec::with_capacity(self.size);
        let mut total: i64 = 0;
        for &c in &counts {
            displs.push(Count::try_from(total).map_err(|_| {
                mpi_err("the gathered blobs exceed MPI's 2^31-1 displacement; use smaller chunks per call")
            })?);
            total += c as i64;
        }
        let mut buf = vec![0u8; total as usize];
        {
            let mut part = PartitionMut::new(&mut buf[..], &counts[..], &displs[..]);
            world.all_gather_varcount_into(&blob[..], &mut part);
        }
        Ok(counts
            .iter()
            .zip(&displs)
            .map(|(&c, &d)| buf[d as usize..(d + c) as usize].to_vec())
            .collect())
    }
    fn name(&self) -> &'static str {
        "mpi"
    }
}

impl Cluster {
    /// The cluster of a job started by `mpirun`/`mpiexec` (Open MPI, MPICH) or `srun`: reads the
    /// launcher's variables ([`LaunchEnv`]) first, opens this rank's share of the host's GPUs
    /// (split by local rank; the CPU when there is none) with one worker each, then joins
    /// `MPI_COMM_WORLD`. Without a launcher, a world of one (MPI is not initialised). Collective:
    /// every rank calls it.
    ///
    /// # Errors
    /// MPI failures; a rank whose devices failed to open makes every rank return its error.
    pub fn from_env() -> Result<Cluster> {
        Cluster::from_env_with(&LocalOptions::default())
    }

    /// [`from_env`](Self::from_env) with explicit devices for this rank (empty: by local rank)
    /// and workers per device.
    ///
    /// # Errors
    /// As [`from_env`](Self::from_env).
    pub fn from_env_with(opts: &LocalOptions) -> Result<Cluster> {
        let env = LaunchEnv::detect();
        let devices = if opts.devices.is_empty() {
            let gpus = env.gpus(Device::cuda_count());
            gpus.iter()
                .map(|&o| Device::cuda(o))
                .collect::<Result<Vec<_>>>()
                .map(|g| if g.is_empty() { vec![Device::Cpu] } else { g })
        } else {
            Ok(opts.devices.clone())
        };
        let workers =
            devices.and_then(|d| crate::cluster::worker_devices(&d, opts.workers_per_device));
        if env.launcher.is_none() {
            return Cluster::with_comm(workers, Arc::new(crate::Solo));
        }
        let comm = MpiComm::world()?;
        if comm.size() != env.size || comm.rank() != env.rank {
            // the launcher's variables and MPI disagree (a nested launch): trust MPI
            let _ = make::arg("from_env", "launcher environment differs from MPI's world");
        }
        Cluster::with_comm(workers, comm)
    }
}
