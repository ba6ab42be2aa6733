//! What an MPI launcher or Slurm tells a process about its place, read from the environment
//! before any CUDA or MPI call (so that each rank opens only the GPUs it is given).

/// A process's place in a launched job, as the launcher's environment gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchEnv {
    /// The launcher that set the variables ("openmpi", "mpich", "slurm"), or `None` without one.
    pub launcher: Option<&'static str>,
    /// Global rank.
    pub rank: usize,
    /// Number of ranks.
    pub size: usize,
    /// Rank among the processes of this host.
    pub local_rank: usize,
    /// Number of processes on this host.
    pub local_size: usize,
}

impl LaunchEnv {
    /// Reads the current process's environment.
    ///
    /// Open MPI: `OMPI_COMM_WORLD_{RANK,SIZE,LOCAL_RANK,LOCAL_SIZE}`; MPICH/Hydra (and Intel MPI):
    /// `PMI_RANK`, `PMI_SIZE`, `MPI_LOCALRANKID`, `MPI_LOCALNRANKS`; Slurm (`srun`):
    /// `SLURM_PROCID`, `SLURM_NTASKS`, `SLURM_LOCALID`, `SLURM_NTASKS_PER_NODE`. Without any, a world
    /// of one.
    pub fn detect() -> LaunchEnv {
        Self::from_lookup(|k| std::env::var(k).ok())
    }

    /// [`detect`](Self::detect) over any variable lookup (for tests).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> LaunchEnv {
        let num = |k: &str| -> Option<usize> {
            // Slurm writes per-node counts as "4(x2),3": the first number is this layout's
            get(k).and_then(|v| {
                let d: String = v
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_digit())
                    .collect();
                d.parse().ok()
            })
        };
        let sets: [(&'static str, [&str; 4]); 3] = [
            (
                "openmpi",
                [
                    "OMPI_COMM_WORLD_RANK",
                    "OMPI_COMM_WORLD_SIZE",
                    "OMPI_COMM_WORLD_LOCAL_RANK",
                    "OMPI_COMM_WORLD_LOCAL_SIZE",
                ],
            ),
            (
                "mpich",
                ["PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"],
            ),
            (
                "slurm",
                [
                    "SLURM_PROCID",
                    "SLURM_NTASKS",
                    "SLURM_LOCALID",
                    "SLURM_NTASKS_PER_NODE",
                ],
            ),
        ];
        for (name, [r, s, lr, ls]) in sets {
            if let (Some(rank), Some(size)) = (num(r), num(s)) {
                if size == 0 || rank >= size {
                    continue;
                }
                let local_rank = num(lr).unwrap_or(rank);
                let local_size = num(ls).unwrap_or(size).max(local_rank + 1);
                return LaunchEnv {
                    launcher: Some(name),
                    rank,
                    size,
                    local_rank,
                    local_size,
                };
            }
        }
        LaunchEnv {
            launcher: None,
            rank: 0,
            size: 1,
            local_rank: 0,
            local_size: 1,
        }
    }

    /// The GPU ordinals this rank takes out of `visible` GPUs: the host's GPUs are split evenly
    /// between its ranks (`visible / local_size` each, at least one; ranks share GPUs round-robin
    /// when there are more ranks than GPUs). Empty when `visible` is 0.
    pub fn gpus(&self, visible: usize) -> Vec<usize> {
        if visible == 0 {
            return Vec::new();
        }
        let per = (visible / self.local_size.max(1)).max(1);
        (0..per)
            .map(|k| (self.local_rank * per + k) % visible)
            .collect()
    }
}
