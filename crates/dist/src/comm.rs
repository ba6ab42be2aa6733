//! Rank-level transport: how the processes of a cluster exchange bytes.
//!
//! A [`RankComm`] is one rank's view of the process group. Everything the cluster does across
//! ranks is an all-gather of one byte blob per rank (the error flag travels in every blob), so a
//! transport needs nothing else. Without a launcher the group is a world of one ([`Solo`]); with
//! the `mpi` feature and a launcher it is MPI's `COMM_WORLD` (`crate::mpi_comm`).

use cusci_core::Result;

/// One rank's handle on the group of processes.
pub trait RankComm: Send + Sync {
    /// This process's rank.
    fn rank(&self) -> usize;
    /// The number of processes.
    fn size(&self) -> usize;
    /// Every rank's blob, in rank order (a collective call: every rank calls it once per round).
    ///
    /// # Errors
    /// A transport failure.
    fn all_gather(&self, blob: Vec<u8>) -> Result<Vec<Vec<u8>>>;
    /// A short name for reports ("solo", "mpi").
    fn name(&self) -> &'static str;
}

/// The world of one process.
#[derive(Debug, Default, Clone, Copy)]
pub struct Solo;

impl RankComm for Solo {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn all_gather(&self, blob: Vec<u8>) -> Result<Vec<Vec<u8>>> {
        Ok(vec![blob])
    }
    fn name(&self) -> &'static str {
        "solo"
    }
}

/// Ranks simulated by threads of one process: [`ThreadRanks::group`]`(n)` gives the `n` ranks'
/// transports, to hand one to each thread (with [`Cluster::with_comm`](crate::Cluster::with_comm)).
/// The same rounds as MPI, without MPI: what the tests use to check multi-rank behaviour (chunk
/// assignment, error agreement, bit identity) on any machine.
pub struct ThreadRanks {
    rank: usize,
    shared: std::sync::Arc<Shared>,
}

struct Shared {
    n: usize,
    st: std::sync::Mutex<RoundState>,
    cv: std::sync::Condvar,
}

struct RoundState {
    generation: u64,
    arrived: usize,
    slots: Vec<Vec<u8>>,
    result: std::sync::Arc<Vec<Vec<u8>>>,
}

impl ThreadRanks {
    /// The transports of `n` simulated ranks (rank `i` at index `i`).
    pub fn group(n: usize) -> Vec<std::sync::Arc<dyn RankComm>> {
        let shared = std::sync::Arc::new(Shared {
            n,
            st: std::sync::Mutex::new(RoundState {
                generation: 0,
                arrived: 0,
                slots: vec![Vec::new(); n],
                result: std::sync::Arc::new(Vec::new()),
            }),
            cv: std::sync::Condvar::new(),
        });
        (0..n)
            .map(|rank| {
                std::sync::Arc::new(ThreadRanks {
                    rank,
                    shared: shared.clone(),
                }) as std::sync::Arc<dyn RankComm>
            })
            .collect()
    }
}

impl RankComm for ThreadRanks {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.shared.n
    }
    fn all_gather(&self, blob: Vec<u8>) -> Result<Vec<Vec<u8>>> {
        let sh = &self.shared;
        let mut st = sh.st.lock().unwrap_or_else(|e| e.into_inner());
        st.slots[self.rank] = blob;
        st.arrived += 1;
        let gen = st.generation;
        if st.arrived == sh.n {
            st.result =
                std::sync::Arc::new(std::mem::replace(&mut st.slots, vec![Vec::new(); sh.n]));
            st.arrived = 0;
            st.generation += 1;
            sh.cv.notify_all();
        } else {
            while st.generation == gen {
                st = sh.cv.wait(st).unwrap_or_else(|e| e.into_inner());
            }
        }
        Ok(st.result.as_ref().clone())
    }
    fn name(&self) -> &'static str {
        "threads"
    }
}
