//! The cluster: local workers (one thread each, on its own device handle and stream) in one or
//! several ranks, and the global operations over them.

use crate::comm::{RankComm, Solo};
use crate::grid::{Chunk, Grid};
use crate::group::{decode_error, encode_error, Group, Round};
use crate::wire::{encode_slice, from_bytes, take, to_bytes, Wire};
use cusci_core::error::make;
use cusci_core::{Device, Error, Result};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// A set of workers in one or several processes.
///
/// Each local worker is a thread with its own [`Device`] handle: a GPU with a stream of its own
/// (library handles and plan caches are per GPU and safe to share between streams), or the CPU.
/// [`Cluster::run`] runs one closure on every worker of every rank (SPMD); [`batch_map`](Self::batch_map)
/// and [`map_reduce`](Self::map_reduce) spread a [`Grid`] of chunks over the workers.
///
/// **Determinism.** The grid does not depend on the cluster, each chunk is computed by one worker
/// as if alone, outputs are placed by chunk index and partial results are combined in chunk
/// order. So as long as every worker's device computes a chunk the same way (the CPU, or GPUs of
/// one model), results are bit-identical for any number of workers and ranks.
///
/// **Errors.** Every global step is a round in which each worker's error flag travels with its
/// data. An error on any worker of any rank makes that round, and the whole call, return the same
/// `Err` on every worker of every rank; nobody waits for a worker that has failed.
pub struct Cluster {
    devices: Vec<Device>,
    comm: Arc<dyn RankComm>,
    /// Workers per rank.
    world: Vec<usize>,
    nccl_mode: OnceLock<bool>,
    nccl: Vec<Mutex<Option<crate::nccl::Comm>>>,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster")
            .field("rank", &self.rank())
            .field("ranks", &self.ranks())
            .field("devices", &self.devices)
            .field("transport", &self.comm.name())
            .finish()
    }
}

/// Which devices a local cluster uses.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalOptions {
    /// The devices, one entry per device (an empty list means every visible GPU, or the CPU when
    /// there is none).
    pub devices: Vec<Device>,
    /// Workers per device (logical workers share the device, each on its own stream). Default 1.
    pub workers_per_device: usize,
}

impl Default for LocalOptions {
    fn default() -> Self {
        LocalOptions {
            devices: Vec::new(),
            workers_per_device: 1,
        }
    }
}

/// Opens one worker handle per (device, slot): its own stream on a GPU.
pub(crate) fn worker_devices(devices: &[Device], per: usize) -> Result<Vec<Device>> {
    if per == 0 {
        return Err(make::arg(
            "Cluster",
            "workers_per_device must be at least 1",
        ));
    }
    let mut out = Vec::new();
    for d in devices {
        for _ in 0..per {
            out.push(match d {
                Device::Cpu => Device::Cpu,
                Device::Cuda(c) => Device::Cuda(c.new_stream()?),
            });
        }
    }
    Ok(out)
}

fn visible_gpus() -> Vec<usize> {
    (0..Device::cuda_count()).collect()
}

fn gpu_devices(ordinals: &[usize]) -> Result<Vec<Device>> {
    ordinals.iter().map(|&o| Device::cuda(o)).collect()
}

impl Cluster {
    /// Every visible GPU of this process, one worker each (the CPU, one worker, when there is
    /// none); a world of one rank.
    ///
    /// # Errors
    /// A GPU that is listed but cannot be opened.
    ///
    /// ```
    /// let c = cusci_dist::Cluster::local().unwrap();
    /// assert!(c.local_workers() >= 1);
    /// ```
    pub fn local() -> Result<Cluster> {
        Cluster::with_options(&LocalOptions::default())
    }

    /// A local cluster on the devices of `opts` (a world of one rank).
    ///
    /// # Errors
    /// `InvalidArgument` for zero workers per device; a device that cannot be opened.
    pub fn with_options(opts: &LocalOptions) -> Result<Cluster> {
        let devices = if opts.devices.is_empty() {
            let g = gpu_devices(&visible_gpus())?;
            if g.is_empty() {
                vec![Device::Cpu]
            } else {
                g
            }
        } else {
            opts.devices.clone()
        };
        Cluster::assemble(
            worker_devices(&devices, opts.workers_per_device),
            Arc::new(Solo),
        )
    }

    /// The cluster of this job, for programs that run with or without a launcher: with the cargo
    /// feature `mpi`, `Cluster::from_env_with(opts)` (the processes `mpirun`/`srun` started, a
    /// world of one without a launcher; collective), without it
    /// [`with_options`](Self::with_options).
    ///
    /// # Errors
    /// As the constructor it calls.
    pub fn from_job(opts: &LocalOptions) -> Result<Cluster> {
        #[cfg(feature = "mpi")]
        return Cluster::from_env_with(opts);
        #[cfg(not(feature = "mpi"))]
        Cluster::with_options(opts)
    }

    /// `workers` logical workers on one device (each with its own stream on a GPU): what the
    /// tests use to show that results do not depend on the worker count.
    ///
    /// # Errors
    /// As [`with_options`](Self::with_options).
    pub fn logical(device: &Device, workers: usize) -> Result<Cluster> {
        Cluster::with_options(&LocalOptions {
            devices: vec![device.clone()],
            workers_per_device: workers,
        })
    }

    /// A cluster over an explicit transport: `devices` are this rank's workers. Collective: every
    /// rank of `comm` calls it. Used by `from_env` and by custom transports.
    ///
    /// # Errors
    /// A rank whose devices failed to open makes every rank return its error.
    pub fn with_comm(devices: Result<Vec<Device>>, comm: Arc<dyn RankComm>) -> Result<Cluster> {
        Cluster::assemble(devices, comm)
    }

    fn assemble(devices: Result<Vec<Device>>, comm: Arc<dyn RankComm>) -> Result<Cluster> {
        let mut blob = Vec::new();
        match &devices {
            Ok(d) if d.is_empty() => {
                blob.push(1);
                encode_error(&make::arg("Cluster", "a rank without workers"), &mut blob);
            }
            Ok(d) => {
                blob.push(0);
                d.len().encode(&mut blob);
            }
            Err(e) => {
                blob.push(1);
                encode_error(e, &mut blob);
            }
        }
        let all = comm.all_gather(blob)?;
        let mut world = Vec::with_capacity(all.len());
        for b in &all {
            let mut inp = b.get(1..).unwrap_or(&[]);
            if b.first() == Some(&1) {
                return Err(decode_error(&mut inp).unwrap_or_else(|e| e));
            }
            world.push(usize::decode(&mut inp)?);
        }
        let devices = devices?;
        let nccl = devices.iter().map(|_| Mutex::new(None)).collect();
        Ok(Cluster {
            devices,
            comm,
            world,
            nccl_mode: OnceLock::new(),
            nccl,
        })
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.comm.rank()
    }
    /// Number of ranks.
    pub fn ranks(&self) -> usize {
        self.world.len()
    }
    /// Workers of this rank.
    pub fn local_workers(&self) -> usize {
        self.devices.len()
    }
    /// Workers of every rank together.
    pub fn workers(&self) -> usize {
        self.world.iter().sum()
    }
    /// Workers of each rank.
    pub fn workers_per_rank(&self) -> &[usize] {
        &self.world
    }
    /// This rank's worker devices.
    pub fn devices(&self) -> &[Device] {
        &self.devices
    }
    /// The transport's name: `"solo"` (one process) or `"mpi"`.
    pub fn transport(&self) -> &'static str {
        self.comm.name()
    }
    /// Global index of this rank's first worker.
    fn first_worker(&self) -> usize {
        self.world[..self.rank()].iter().sum()
    }

    /// Runs `f` once on every worker of every rank (SPMD) and returns every worker's result, in
    /// global worker order, on every rank. Inside `f`, [`Worker`] offers the collectives.
    ///
    /// # Errors
    /// The error of the first failing worker (lowest global index of the round in which it
    /// failed), on every worker of every rank; a panic in `f` becomes an `InvalidArgument` error.
    ///
    /// ```
    /// use cusci_dist::Cluster;
    /// let c = Cluster::logical(&cusci_core::Device::cpu(), 3).unwrap();
    /// let ids = c.run(|w| Ok(w.index() as u32)).unwrap();
    /// assert_eq!(ids, vec![0, 1, 2]);
    /// ```
    pub fn run<R, F>(&self, f: F) -> Result<Vec<R>>
    where
        R: Wire,
        F: Fn(&Worker<'_>) -> Result<R> + Sync,
    {
        let round = self.run_raw(|w| f(w).map(|r| to_bytes(&r)))?;
        round.iter().map(|b| from_bytes(b)).collect()
    }

    /// `run` with byte results (the final round's blobs).
    fn run_raw<F>(&self, f: F) -> Result<Round>
    where
        F: Fn(&Worker<'_>) -> Result<Vec<u8>> + Sync,
    {
        let group = Group::new(self.devices.len(), self.comm.clone());
        let first = self.first_worker();
        let results: Vec<Result<Round>> = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .devices
                .iter()
                .enumerate()
                .map(|(i, dev)| {
                    let group = &group;
                    let f = &f;
                    s.spawn(move || {
                        let w = Worker {
                            cluster: self,
                            group,
                            local: i,
                            index: first + i,
                            device: dev.clone(),
                        };
                        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            if let Device::Cuda(d) = dev {
                                d.bind()?;
                            }
                            f(&w)
                        }))
                        .unwrap_or_else(|p| {
                            let msg = p
                                .downcast_ref::<&str>()
                                .map(|s| s.to_string())
                                .or_else(|| p.downcast_ref::<String>().cloned())
                                .unwrap_or_else(|| "panic".into());
                            Err(make::arg(
                                "cusci_dist worker",
                                format!("worker {} panicked: {msg}", first + i),
                            ))
                        });
                        // the closing round carries the result, or the error, to everyone
                        group.round(i, r)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(make::arg("cusci_dist", "worker thread died")))
                })
                .collect()
        });
        // every worker saw the same round; return the first
        results
            .into_iter()
            .next()
            .unwrap_or_else(|| Err(make::arg("cusci_dist", "no workers")))
    }

    /// The chunks of `grid` that this rank computes: a contiguous block, in proportion to its
    /// workers (the assignment affects only who computes a chunk, never its result).
    pub fn rank_chunks(&self, grid: &Grid) -> std::ops::Range<usize> {
        let n = grid.chunks() as u128;
        let w = self.workers().max(1) as u128;
        let a = self.first_worker() as u128;
        let b = a + self.local_workers() as u128;
        (n * a / w) as usize..(n * b / w) as usize
    }

    /// Runs `f` on every chunk of `grid` and returns the concatenation of the chunks' outputs in
    /// chunk order, on every rank: the output of item `i` is at the same place whatever the
    /// cluster (for `k` values per item, at `i·k .. (i+1)·k`). Workers of a rank take the rank's
    /// chunks in turn as they finish.
    ///
    /// # Errors
    /// The first error of any chunk on any rank, on every rank.
    ///
    /// ```
    /// use cusci_dist::{Cluster, Grid};
    /// let c = Cluster::logical(&cusci_core::Device::cpu(), 2).unwrap();
    /// let g = Grid::new(5, 2).unwrap();
    /// let v = c.batch_map(&g, |_, ch| Ok(ch.range().map(|i| i * i).collect())).unwrap();
    /// assert_eq!(v, vec![0u64, 1, 4, 9, 16]);
    /// ```
    pub fn batch_map<T, F>(&self, grid: &Grid, f: F) -> Result<Vec<T>>
    where
        T: Wire,
        F: Fn(&Worker<'_>, &Chunk) -> Result<Vec<T>> + Sync,
    {
        let parts = self.chunk_outputs(grid, |w, c| {
            let v = f(w, c)?;
            let mut out = Vec::new();
            v.len().encode(&mut out);
            encode_slice(&v, &mut out);
            Ok(out)
        })?;
        let mut all = Vec::new();
        for p in parts {
            let mut inp: &[u8] = &p;
            let n = usize::decode(&mut inp)?;
            all.reserve(n);
            for _ in 0..n {
                all.push(T::decode(&mut inp)?);
            }
        }
        Ok(all)
    }

    /// Maps every chunk of `grid` to a partial result and folds them **in chunk order**:
    /// `reduce(…reduce(reduce(init, p0), p1)…, p_last)`, the same on every rank.
    ///
    /// # Errors
    /// As [`batch_map`](Self::batch_map).
    ///
    /// (Example: the crate page.)
    pub fn map_reduce<A, F, R>(&self, grid: &Grid, init: A, map: F, reduce: R) -> Result<A>
    where
        A: Wire,
        F: Fn(&Worker<'_>, &Chunk) -> Result<A> + Sync,
        R: Fn(A, A) -> A,
    {
        let parts = self.chunk_outputs(grid, |w, c| map(w, c).map(|a| to_bytes(&a)))?;
        let mut acc = init;
        for p in parts {
            acc = reduce(acc, from_bytes(&p)?);
        }
        Ok(acc)
    }

    /// Each chunk's output bytes, in chunk order, on every rank.
    fn chunk_outputs<F>(&self, grid: &Grid, f: F) -> Result<Vec<Vec<u8>>>
    where
        F: Fn(&Worker<'_>, &Chunk) -> Result<Vec<u8>> + Sync,
    {
        let mine = self.rank_chunks(grid);
        let next = AtomicUsize::new(mine.start);
        let stop = AtomicBool::new(false);
        let round = self.run_raw(|w| {
            let mut out = Vec::new();
            loop {
                if stop.load(Ordering::Relaxed) {
                    // another local worker failed: its error goes to everyone in the closing round
                    break;
                }
                let c = next.fetch_add(1, Ordering::Relaxed);
                if c >= mine.end {
                    break;
                }
                let r = f(w, &grid.chunk(c));
                let bytes = match r {
                    Ok(b) => b,
                    Err(e) => {
                        stop.store(true, Ordering::Relaxed);
                        return Err(e);
                    }
                };
                (c as u64).encode(&mut out);
                bytes.len().encode(&mut out);
                out.extend_from_slice(&bytes);
            }
            Ok(out)
        })?;
        let n = grid.chunks();
        let mut parts: Vec<Option<Vec<u8>>> = (0..n).map(|_| None).collect();
        for b in round.iter() {
            let mut inp: &[u8] = b;
            while !inp.is_empty() {
                let c = u64::decode(&mut inp)? as usize;
                let len = usize::decode(&mut inp)?;
                let bytes = take(&mut inp, len)?;
                if let Some(slot) = parts.get_mut(c) {
                    *slot = Some(bytes.to_vec());
                }
            }
        }
        parts
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                p.ok_or_else(|| make::arg("cusci_dist", format!("chunk {i} was not computed")))
            })
            .collect()
    }
}

/// One worker inside [`Cluster::run`], [`Cluster::batch_map`] or [`Cluster::map_reduce`]: its
/// device and place, and the collectives over all workers of all ranks.
///
/// Every worker must call the same collectives in the same order (as with MPI and NCCL).
pub struct Worker<'a> {
    pub(crate) cluster: &'a Cluster,
    pub(crate) group: &'a Group,
    pub(crate) local: usize,
    pub(crate) index: usize,
    pub(crate) device: Device,
}

impl Worker<'_> {
    /// The worker's device (on a GPU: a handle with the worker's own stream).
    pub fn device(&self) -> &Device {
        &self.device
    }
    /// Global worker index (rank-major: rank 0's workers first).
    pub fn index(&self) -> usize {
        self.index
    }
    /// Number of workers of all ranks.
    pub fn workers(&self) -> usize {
        self.cluster.workers()
    }
    /// Index among this rank's workers.
    pub fn local_index(&self) -> usize {
        self.local
    }
    /// This worker's rank.
    pub fn rank(&self) -> usize {
        self.cluster.rank()
    }
    /// Number of ranks.
    pub fn ranks(&self) -> usize {
        self.cluster.ranks()
    }

    /// One round with a byte payload or this worker's error.
    pub(crate) fn round(&self, msg: Result<Vec<u8>>) -> Result<Round> {
        self.group.round(self.local, msg)
    }

    /// Every worker's `value`, in global worker order (a host all-gather).
    ///
    /// # Errors
    /// Any worker's failure (see [`Cluster::run`]).
    pub fn gather<T: Wire>(&self, value: &T) -> Result<Vec<T>> {
        let r = self.round(Ok(to_bytes(value)))?;
        r.iter().map(|b| from_bytes(b)).collect()
    }

    /// Waits for every worker of every rank.
    ///
    /// # Errors
    /// Any worker's failure.
    pub fn barrier(&self) -> Result<()> {
        self.round(Ok(Vec::new())).map(|_| ())
    }

    /// Reports `err` to every worker (they return it from their current or next collective) and
    /// returns it. What [`Cluster::run`] does with an `Err` from the closure.
    pub fn fail(&self, err: Error) -> Error {
        match self.round(Err(err.clone())) {
            Err(e) => e,
            Ok(_) => err,
        }
    }

    pub(crate) fn cluster_nccl_mode(&self) -> Option<bool> {
        self.cluster.nccl_mode.get().copied()
    }
    pub(crate) fn set_nccl_mode(&self, m: bool) {
        let _ = self.cluster.nccl_mode.set(m);
    }
    pub(crate) fn set_comm(&self, c: crate::nccl::Comm) {
        *self.comm_guard() = Some(c);
    }
    pub(crate) fn comm_guard(&self) -> std::sync::MutexGuard<'_, Option<crate::nccl::Comm>> {
        self.cluster.nccl[self.local]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// The group's failure, if a collective has already failed.
    pub fn failed(&self) -> Option<Error> {
        self.group.failed()
    }
}
