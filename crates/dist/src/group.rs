//! The rank group: the worker threads of one process and, through a [`RankComm`], the other
//! processes. Every global step is one *round*: each local worker deposits a blob (or its error),
//! the last one to arrive sends the process's blobs to every rank in one all-gather, and every
//! worker of every rank receives the same list of blobs in global worker order — or the same
//! error, when any worker anywhere deposited one. After a failed round the group is failed: later
//! rounds return the error at once, so no worker waits for a peer that has given up.

use crate::comm::RankComm;
use crate::wire::{take, Wire};
use cusci_core::error::make;
use cusci_core::{DType, Error, Result};
use std::sync::{Arc, Condvar, Mutex};

/// The blobs of one round, in global worker order.
pub(crate) type Round = Arc<Vec<Vec<u8>>>;

struct State {
    generation: u64,
    arrived: usize,
    slots: Vec<Option<Result<Vec<u8>>>>,
    result: Option<Result<Round>>,
    failed: Option<Error>,
}

pub(crate) struct Group {
    local: usize,
    comm: Arc<dyn RankComm>,
    st: Mutex<State>,
    cv: Condvar,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Group {
    pub(crate) fn new(local: usize, comm: Arc<dyn RankComm>) -> Group {
        Group {
            local,
            comm,
            st: Mutex::new(State {
                generation: 0,
                arrived: 0,
                slots: (0..local).map(|_| None).collect(),
                result: None,
                failed: None,
            }),
            cv: Condvar::new(),
        }
    }

    /// True once a round has failed.
    pub(crate) fn failed(&self) -> Option<Error> {
        lock(&self.st).failed.clone()
    }

    /// One round: `msg` of local worker `me`; returns every worker's blob in global order.
    pub(crate) fn round(&self, me: usize, msg: Result<Vec<u8>>) -> Result<Round> {
        let mut st = lock(&self.st);
        if let Some(e) = &st.failed {
            return Err(e.clone());
        }
        st.slots[me] = Some(msg);
        st.arrived += 1;
        let gen = st.generation;
        if st.arrived < self.local {
            while st.generation == gen {
                st = self.cv.wait(st).unwrap_or_else(|e| e.into_inner());
            }
            return st
                .result
                .clone()
                .unwrap_or_else(|| Err(internal("missing round result")));
        }
        // the last to arrive talks to the other ranks (the others wait on the condition variable)
        let slots: Vec<Result<Vec<u8>>> = st
            .slots
            .iter_mut()
            .map(|s| s.take().unwrap_or_else(|| Err(internal("empty slot"))))
            .collect();
        drop(st);
        let blob = encode_process(slots);
        let res = self
            .comm
            .all_gather(blob)
            .and_then(|all| decode_world(&all));
        let mut st = lock(&self.st);
        if let Err(e) = &res {
            st.failed = Some(e.clone());
        }
        st.result = Some(res.clone());
        st.arrived = 0;
        st.generation += 1;
        drop(st);
        self.cv.notify_all();
        res
    }
}

fn internal(detail: &str) -> Error {
    make::arg("cusci_dist::Group", detail)
}

/// Process blob: 0 + count + blobs, or 1 + the first local error.
fn encode_process(slots: Vec<Result<Vec<u8>>>) -> Vec<u8> {
    let mut out = Vec::new();
    if let Some(Err(e)) = slots.iter().find(|s| s.is_err()) {
        out.push(1);
        encode_error(e, &mut out);
        return out;
    }
    out.push(0);
    slots.len().encode(&mut out);
    for s in slots.into_iter().flatten() {
        s.len().encode(&mut out);
        out.extend_from_slice(&s);
    }
    out
}

fn decode_world(all: &[Vec<u8>]) -> Result<Round> {
    // the error of the lowest failing rank wins, the same on every rank
    for b in all {
        if b.first() == Some(&1) {
            let mut inp = &b[1..];
            return Err(decode_error(&mut inp).unwrap_or_else(|e| e));
        }
    }
    let mut blobs = Vec::new();
    for b in all {
        let mut inp = b.get(1..).unwrap_or(&[]);
        let n = usize::decode(&mut inp)?;
        for _ in 0..n {
            let len = usize::decode(&mut inp)?;
            blobs.push(take(&mut inp, len)?.to_vec());
        }
    }
    Ok(Arc::new(blobs))
}

/// Errors cross ranks variant by variant, so that every rank returns the same `Error`.
pub(crate) fn encode_error(e: &Error, out: &mut Vec<u8>) {
    let s = |v: &str, out: &mut Vec<u8>| v.to_string().encode(out);
    match e {
        Error::ShapeMismatch { op, detail } => {
            out.push(0);
            s(op, out);
            s(detail, out);
        }
        Error::InvalidArgument { op, detail } => {
            out.push(1);
            s(op, out);
            s(detail, out);
        }
        Error::UnsupportedDType { op, dtype } => {
            out.push(2);
            s(op, out);
            (dtype_code(*dtype) as u8).encode(out);
        }
        Error::DeviceMismatch { op, left, right } => {
            out.push(3);
            s(op, out);
            s(left, out);
            s(right, out);
        }
        Error::OutOfMemory { requested, free } => {
            out.push(4);
            requested.encode(out);
            free.encode(out);
        }
        Error::Singular { op, index } => {
            out.push(5);
            s(op, out);
            index.encode(out);
        }
        Error::NotPositiveDefinite { op, index } => {
            out.push(6);
            s(op, out);
            index.encode(out);
        }
        Error::NoConvergence {
            op,
            iterations,
            residual,
        } => {
            out.push(7);
            s(op, out);
            iterations.encode(out);
            residual.encode(out);
        }
        Error::NotImplemented { op, device } => {
            out.push(8);
            s(op, out);
            s(device, out);
        }
        Error::Cuda {
            op,
            library,
            status,
        } => {
            out.push(9);
            s(op, out);
            s(library, out);
            s(status, out);
        }
        Error::CudaUnavailable(m) => {
            out.push(10);
            s(m, out);
        }
        Error::Compile { name, log } => {
            out.push(11);
            s(name, out);
            s(log, out);
        }
        Error::Io { op, path, detail } => {
            out.push(12);
            s(op, out);
            s(path, out);
            s(detail, out);
        }
        other => {
            out.push(1);
            s("cusci_dist", out);
            s(&other.to_string(), out);
        }
    }
}

const DTYPES: [DType; 8] = [
    DType::F32,
    DType::F64,
    DType::C32,
    DType::C64,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::Bool,
];

fn dtype_code(d: DType) -> usize {
    DTYPES.iter().position(|&x| x == d).unwrap_or(0)
}

fn library(name: &str) -> &'static str {
    // the library names are static strings on the rank that raised the error; map known ones
    const KNOWN: [&str; 12] = [
        "driver", "nvrtc", "cublas", "cublasLt", "curand", "cufft", "cusolver", "cusparse", "nccl",
        "mpi", "cuda", "cudart",
    ];
    KNOWN
        .iter()
        .find(|k| **k == name)
        .copied()
        .unwrap_or("remote")
}

pub(crate) fn decode_error(inp: &mut &[u8]) -> Result<Error> {
    let tag = u8::decode(inp)?;
    let s = |inp: &mut &[u8]| String::decode(inp);
    Ok(match tag {
        0 => Error::ShapeMismatch {
            op: s(inp)?,
            detail: s(inp)?,
        },
        1 => Error::InvalidArgument {
            op: s(inp)?,
            detail: s(inp)?,
        },
        2 => {
            let op = s(inp)?;
            let d = u8::decode(inp)? as usize;
            Error::UnsupportedDType {
                op,
                dtype: DTYPES.get(d).copied().unwrap_or(DType::F64),
            }
        }
        3 => Error::DeviceMismatch {
            op: s(inp)?,
            left: s(inp)?,
            right: s(inp)?,
        },
        4 => Error::OutOfMemory {
            requested: usize::decode(inp)?,
            free: usize::decode(inp)?,
        },
        5 => Error::Singular {
            op: s(inp)?,
            index: usize::decode(inp)?,
        },
        6 => Error::NotPositiveDefinite {
            op: s(inp)?,
            index: usize::decode(inp)?,
        },
        7 => Error::NoConvergence {
            op: s(inp)?,
            iterations: usize::decode(inp)?,
            residual: f64::decode(inp)?,
        },
        8 => Error::NotImplemented {
            op: s(inp)?,
            device: s(inp)?,
        },
        9 => Error::Cuda {
            op: s(inp)?,
            library: library(&s(inp)?),
            status: s(inp)?,
        },
        10 => Error::CudaUnavailable(s(inp)?),
        11 => Error::Compile {
            name: s(inp)?,
            log: s(inp)?,
        },
        12 => Error::Io {
            op: s(inp)?,
            path: s(inp)?,
            detail: s(inp)?,
        },
        _ => internal("unknown error tag"),
    })
}
