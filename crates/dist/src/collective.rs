//! Device collectives on per-worker arrays: NCCL when every worker has a GPU of its own and NCCL
//! loads, otherwise staged through the host and the rank group.
//!
//! Host staging combines the workers' arrays in global worker order (deterministic for a given
//! cluster); NCCL uses its own rings and trees (deterministic for a given topology and size). Each
//! NCCL call is preceded by a round that checks every worker's argument (shape, type, errors) and
//! followed by a round that checks every worker's enqueue status, so a failure anywhere returns
//! `Err` everywhere instead of leaving a peer inside NCCL.

use crate::cluster::Worker;
use crate::nccl;
use crate::wire::{from_bytes, to_bytes, Wire};
use cusci_core::error::make;
use cusci_core::{c32, c64, Array, Device, Element, Result};

/// The combining operation of [`Worker::all_reduce`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReduceOp {
    /// Sum (the default).
    #[default]
    Sum,
    /// Product.
    Prod,
    /// Maximum (real types).
    Max,
    /// Minimum (real types).
    Min,
}

impl ReduceOp {
    fn nccl(self) -> i32 {
        match self {
            ReduceOp::Sum => 0,
            ReduceOp::Prod => 1,
            ReduceOp::Max => 2,
            ReduceOp::Min => 3,
        }
    }
}

/// Element types of the device collectives.
pub trait Collective: Element + Wire {
    /// `op(a, b)`, or `None` when the type does not support `op`.
    fn combine(op: ReduceOp, a: Self, b: Self) -> Option<Self>;
    /// NCCL's type of one scalar part, and the number of parts per element.
    fn nccl_type() -> (i32, usize);
}

macro_rules! coll_real {
    ($($t:ty => $d:expr),*) => {$(
        impl Collective for $t {
            fn combine(op: ReduceOp, a: Self, b: Self) -> Option<Self> {
                Some(match op {
                    ReduceOp::Sum => cusci_core::Numeric::add(a, b),
                    ReduceOp::Prod => cusci_core::Numeric::mul(a, b),
                    ReduceOp::Max => if b > a { b } else { a },
                    ReduceOp::Min => if b < a { b } else { a },
                })
            }
            fn nccl_type() -> (i32, usize) {
                ($d, 1)
            }
        }
    )*};
}
coll_real!(f32 => nccl::dtype::F32, f64 => nccl::dtype::F64, i32 => nccl::dtype::I32, i64 => nccl::dtype::I64, u8 => nccl::dtype::U8);

macro_rules! coll_complex {
    ($($t:ty => $d:expr),*) => {$(
        impl Collective for $t {
            fn combine(op: ReduceOp, a: Self, b: Self) -> Option<Self> {
                match op {
                    ReduceOp::Sum => Some(a + b),
                    ReduceOp::Prod => Some(a * b),
                    _ => None,
                }
            }
            fn nccl_type() -> (i32, usize) {
                ($d, 2)
            }
        }
    )*};
}
coll_complex!(c32 => nccl::dtype::F32, c64 => nccl::dtype::F64);

fn shape_check(op: &str, shapes: &[Vec<usize>]) -> Result<()> {
    if let Some(s0) = shapes.first() {
        if let Some((i, s)) = shapes.iter().enumerate().find(|(_, s)| *s != s0) {
            return Err(make::shape(
                op,
                format!("worker 0 has shape {s0:?}, worker {i} {s:?}"),
            ));
        }
    }
    Ok(())
}

impl Worker<'_> {
    fn local_array<T: Element>(&self, op: &str, a: &Array<T>) -> Result<Array<T>> {
        let same = match (a.device(), &self.device) {
            (Device::Cpu, Device::Cpu) => true,
            (Device::Cuda(x), Device::Cuda(y)) => x == y,
            _ => false,
        };
        if !same {
            return Err(cusci_core::Error::DeviceMismatch {
                op: op.into(),
                left: a.device().to_string(),
                right: self.device.to_string(),
            });
        }
        // the worker's own stream, C-contiguous
        a.on_stream(&self.device)?.contiguous()
    }

    /// Whether the device collectives of this cluster go through NCCL (decided once, the same on
    /// every worker of every rank: every worker on a GPU of its own and NCCL loaded everywhere).
    ///
    /// # Errors
    /// Any worker's failure.
    pub fn uses_nccl(&self) -> Result<bool> {
        if let Some(m) = self.cluster_nccl_mode() {
            return Ok(m);
        }
        // (eligible, host + PCI location) of every worker
        let me: (bool, String) = match &self.device {
            Device::Cuda(d) if nccl::api().is_some() => (true, gpu_location(d)),
            _ => (false, String::new()),
        };
        let all = self.gather(&me)?;
        let mut locs: Vec<&String> = all.iter().map(|x| &x.1).collect();
        locs.sort();
        locs.dedup();
        let ok = all.iter().all(|x| x.0) && locs.len() == all.len() && all.len() > 1;
        if ok {
            // global worker 0 makes the id; it reaches every rank in one round (MPI's broadcast)
            let id: Vec<u8> = if self.index == 0 {
                match nccl::api().map(|a| a.unique_id()) {
                    Some(Ok(id)) => id.internal.iter().map(|&c| c as u8).collect(),
                    Some(Err(e)) => return Err(self.fail(e)),
                    None => Vec::new(),
                }
            } else {
                Vec::new()
            };
            let ids = self.gather(&id)?;
            let mut uid = nccl::UniqueId { internal: [0; 128] };
            for (d, s) in uid.internal.iter_mut().zip(ids[0].iter()) {
                *d = *s as std::ffi::c_char;
            }
            let comm = match nccl::api() {
                Some(api) => nccl::Comm::init(api, uid, self.workers(), self.index),
                None => Err(make::arg("nccl", "NCCL vanished")),
            };
            let comm = self.round(comm.map(|c| {
                self.set_comm(c);
                Vec::new()
            }));
            comm?;
        }
        self.set_nccl_mode(ok);
        Ok(ok)
    }

    /// The sum (or `op`) of every worker's `a`, on this worker's device.
    ///
    /// # Errors
    /// `DeviceMismatch` when `a` is not on the worker's device, `ShapeMismatch` when the workers'
    /// shapes differ, `InvalidArgument` for `Max`/`Min` of complex arrays: on every worker.
    ///
    /// ```
    /// use cusci_dist::{Cluster, ReduceOp};
    /// use cusci_core::Array;
    /// let c = Cluster::logical(&cusci_core::Device::cpu(), 2).unwrap();
    /// let s = c.run(|w| {
    ///     let a = Array::from_vec(vec![w.index() as f64 + 1.0; 3], &[3], w.device())?;
    ///     w.all_reduce(&a, ReduceOp::Sum)?.to_vec()
    /// }).unwrap();
    /// assert_eq!(s[1], vec![3.0; 3]);
    /// ```
    pub fn all_reduce<T: Collective>(&self, a: &Array<T>, op: ReduceOp) -> Result<Array<T>> {
        let name = "cusci_dist::all_reduce";
        let ok = if T::combine(op, T::zero(), T::one()).is_none() {
            Err(make::arg(
                name,
                format!("{op:?} is not defined for {}", T::DTYPE),
            ))
        } else {
            Ok(())
        };
        let nccl = self.uses_nccl()?;
        let a = ok.and_then(|_| self.local_array(name, a));
        if nccl {
            return self.nccl_step(
                name,
                a,
                |comm, a, out, dt, parts, stream| {
                    // SAFETY: a and out are contiguous device arrays of a.size() elements on this GPU
                    unsafe { comm.all_reduce(a, out, parts, dt, op.nccl(), stream) }
                },
                |s| s.to_vec(),
            );
        }
        let mine = a.and_then(|a| Ok((a.shape().to_vec(), a.to_vec()?)));
        let all = self.round(mine.map(|m| to_bytes(&m)))?;
        let all: Vec<(Vec<usize>, Vec<T>)> =
            all.iter().map(|b| from_bytes(b)).collect::<Result<_>>()?;
        let shapes: Vec<Vec<usize>> = all.iter().map(|x| x.0.clone()).collect();
        shape_check(name, &shapes)?;
        let mut acc = all[0].1.clone();
        for (_, v) in &all[1..] {
            for (x, y) in acc.iter_mut().zip(v) {
                *x = T::combine(op, *x, *y).unwrap_or(*x);
            }
        }
        Array::from_vec(acc, &shapes[0], &self.device)
    }

    /// Worker `root`'s `a` on every worker (every worker passes an array of the root's shape).
    ///
    /// # Errors
    /// `InvalidArgument` for a root out of range; as [`all_reduce`](Self::all_reduce).
    pub fn broadcast<T: Collective>(&self, a: &Array<T>, root: usize) -> Result<Array<T>> {
        let name = "cusci_dist::broadcast";
        let ok = if root >= self.workers() {
            Err(make::arg(
                name,
                format!("root {root} of {} workers", self.workers()),
            ))
        } else {
            Ok(())
        };
        let nccl = self.uses_nccl()?;
        let a = ok.and_then(|_| self.local_array(name, a));
        if nccl {
            return self.nccl_step(
                name,
                a,
                |comm, a, out, dt, parts, stream| {
                    // SAFETY: as all_reduce
                    unsafe { comm.broadcast(a, out, parts, dt, root, stream) }
                },
                |s| s.to_vec(),
            );
        }
        let me = self.index;
        let mine = a.and_then(|a| {
            let data = if me == root { a.to_vec()? } else { Vec::new() };
            Ok((a.shape().to_vec(), data))
        });
        let all = self.round(mine.map(|m| to_bytes(&m)))?;
        let all: Vec<(Vec<usize>, Vec<T>)> =
            all.iter().map(|b| from_bytes(b)).collect::<Result<_>>()?;
        let shapes: Vec<Vec<usize>> = all.iter().map(|x| x.0.clone()).collect();
        shape_check(name, &shapes)?;
        Array::from_vec(all[root].1.clone(), &shapes[0], &self.device)
    }

    /// Every worker's `a` stacked along a new leading axis (`[workers, a.shape...]`), in global
    /// worker order, on every worker.
    ///
    /// # Errors
    /// As [`all_reduce`](Self::all_reduce).
    pub fn all_gather<T: Collective>(&self, a: &Array<T>) -> Result<Array<T>> {
        let name = "cusci_dist::all_gather";
        let nccl = self.uses_nccl()?;
        let a = self.local_array(name, a);
        let n = self.workers();
        if nccl {
            return self.nccl_step(
                name,
                a,
                |comm, a, out, dt, parts, stream| {
                    // SAFETY: out holds workers · parts elements
                    unsafe { comm.all_gather(a, out, parts, dt, stream) }
                },
                |s| {
                    let mut v = vec![n];
                    v.extend_from_slice(s);
                    v
                },
            );
        }
        let mine = a.and_then(|a| Ok((a.shape().to_vec(), a.to_vec()?)));
        let all = self.round(mine.map(|m| to_bytes(&m)))?;
        let all: Vec<(Vec<usize>, Vec<T>)> =
            all.iter().map(|b| from_bytes(b)).collect::<Result<_>>()?;
        let shapes: Vec<Vec<usize>> = all.iter().map(|x| x.0.clone()).collect();
        shape_check(name, &shapes)?;
        let mut shape = vec![n];
        shape.extend_from_slice(&shapes[0]);
        let data: Vec<T> = all.into_iter().flat_map(|x| x.1).collect();
        Array::from_vec(data, &shape, &self.device)
    }

    /// check round → NCCL call on the worker's stream → status round.
    fn nccl_step<T: Collective>(
        &self,
        name: &str,
        a: Result<Array<T>>,
        call: impl FnOnce(&nccl::Comm, u64, u64, i32, usize, *mut std::ffi::c_void) -> Result<()>,
        out_shape: impl Fn(&[usize]) -> Vec<usize>,
    ) -> Result<Array<T>> {
        let shape = a
            .as_ref()
            .map(|a| a.shape().to_vec())
            .map_err(|e| e.clone());
        let all = self.round(shape.map(|s| to_bytes(&s)))?;
        let shapes: Vec<Vec<usize>> = all.iter().map(|b| from_bytes(b)).collect::<Result<_>>()?;
        shape_check(name, &shapes)?;
        let status = (|| -> Result<Array<T>> {
            let a = a?;
            let mut out = Array::<T>::empty(&out_shape(a.shape()), &self.device)?;
            let d = self
                .device
                .as_cuda()
                .ok_or_else(|| make::arg(name, "NCCL on a CPU worker"))?;
            let (dt, k) = T::nccl_type();
            // NCCL (a vendor call) takes the raw addresses; the borrows last through the call
            let src = a.dev_ptr()?;
            let dst = out.dev_ptr_mut()?;
            let guard = self.comm_guard();
            let comm = guard
                .as_ref()
                .ok_or_else(|| make::arg(name, "no NCCL communicator"))?;
            if a.size() > 0 {
                call(
                    comm,
                    src.addr(),
                    dst.addr(),
                    dt,
                    a.size() * k,
                    d.raw_stream() as *mut std::ffi::c_void,
                )?;
            }
            Ok(out)
        })();
        let flag = status.as_ref().map(|_| Vec::new()).map_err(|e| e.clone());
        self.round(flag)?;
        status
    }
}

/// "host:domain:bus:device" of a GPU, to tell GPUs apart across ranks.
fn gpu_location(d: &cusci_core::CudaDevice) -> String {
    use cudarc::driver::sys::CUdevice_attribute as A;
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let cu = d.context().cu_device();
    let get = |a| {
        // SAFETY: a valid device handle of an initialised driver
        unsafe { cudarc::driver::result::device::get_attribute(cu, a) }.unwrap_or(-1)
    };
    format!(
        "{host}:{}:{}:{}",
        get(A::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID),
        get(A::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
        get(A::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)
    )
}
