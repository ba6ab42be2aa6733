//! CUDA graphs of cusci calls: capture a sequence of calls once, replay it with new inputs.
//!
//! A pipeline of many small calls spends its time on the host (argument checks, kernel lookups,
//! launches), not on the GPU. [`Graph::capture`] records everything a closure queues on a device
//! handle's stream into a CUDA graph; [`Graph::run`] copies new inputs of the same shapes into the
//! graph's input buffers and replays the whole sequence with one launch.
//!
//! How capture works: the closure runs on a private stream of the handle's GPU, to which all of
//! the capturing thread's work on that GPU goes while it runs (whichever handles its arrays
//! carry); other threads' work on the handle's own stream is neither recorded nor refused.
//! 1. the closure runs once eagerly on copies of the inputs (kernels compile, library plans are
//!    made, the output shapes become known);
//! 2. it runs again while the stream is captured: every kernel launch, library call and copy is
//!    recorded, the arrays it allocates become the graph's own memory (allocation and free nodes
//!    of the stream-ordered pool; the stream's cache of freed blocks is bypassed during capture),
//!    and host data uploaded inside the closure (filter coefficients, shapes) is staged in pinned
//!    memory that the graph keeps;
//! 3. the closure's outputs are copied into buffers that the graph owns.
//!
//! [`Graph::run`] launches the graph on the handle's stream, after the work queued there.
//!
//! What a captured closure must not do: read device data on the host (`to_vec`, scalar results,
//! status checks of a factorization) or synchronise — that is an `InvalidArgument` error naming
//! the graph; queue work on another GPU; keep arrays it made alive past its return other than
//! through its outputs. Random numbers drawn inside the closure are the same on every replay
//! (the generator's counter is read at capture).
//!
//! On the CPU there is nothing to capture: [`Graph::run`] calls the closure, so code written
//! with graphs runs on both devices.

use crate::array::{Array, Storage};
use crate::cuda::memory::{DeviceBuffer, PinnedVec};
use crate::device::{CudaDevice, Device, Redirect};
use crate::dtype::Element;
use crate::error::{Error, Result};
use cudarc::driver::{result as cu, sys};
use std::sync::Arc;

/// What a stream collects while it is being captured (see [`crate::device`]'s `StreamInner`).
#[derive(Default)]
pub(crate) struct CaptureState {
    /// Pinned copies of the host data uploaded during capture; the graph's copy nodes read them.
    pub(crate) staging: Vec<PinnedVec<u8>>,
    /// Buffers made before the capture and released during it: the graph may read them.
    pub(crate) released: Vec<DeviceBuffer>,
    /// Allocations made during the capture and not yet released.
    pub(crate) live: usize,
}

/// The closure a graph replays.
type Body<'a, T, U> = Box<dyn Fn(&[Array<T>]) -> Result<Vec<Array<U>>> + 'a>;

/// A captured sequence of cusci calls, replayed with new inputs of the same shapes (as
/// `torch.cuda.CUDAGraph` or a captured `cupy.cuda.Graph`; SciPy has none).
///
/// Inputs are arrays of `T`, outputs arrays of `U`. The graph owns one buffer per input and per
/// output; [`run`](Self::run) copies the new inputs in, replays the graph and returns the outputs,
/// which the next run overwrites: `copy()` an output to keep it past the next run.
///
/// # Example
/// ```
/// use cusci_core::{graph::Graph, Array, Device};
/// let dev = Device::cpu();
/// let x = Array::<f32>::from_vec(vec![1.0, 2.0, 3.0], &[3], &dev)?;
/// // y = 2 x + 1, then its sum along the axis
/// let mut g = Graph::capture(&dev, &[&x], |ins| {
///     let y = ins[0].mul_scalar(2.0)?.add_scalar(1.0)?;
///     Ok(vec![y.sum_axes(&[0])?])
/// })?;
/// let x2 = Array::<f32>::from_vec(vec![0.0, 0.0, 1.0], &[3], &dev)?;
/// let out = g.run(&[&x2])?;
/// assert_eq!(out[0].to_vec()?, vec![5.0]);
/// # Ok::<(), cusci_core::Error>(())
/// ```
pub struct Graph<'a, T: Element, U: Element> {
    // first: the graph is destroyed (after its last replay) before the buffers it reads
    exec: Option<Exec>,
    dev: Device,
    body: Body<'a, T, U>,
    inputs: Vec<Array<T>>,
    outputs: Vec<Array<U>>,
}

/// An instantiated CUDA graph and what it reads.
struct Exec {
    dev: CudaDevice,
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
    // the memory the graph's nodes read; dropped after the graph (see Drop)
    _keep: CaptureState,
}

impl Drop for Exec {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: created once by capture(); no launch may use them after this; the stream
            // is synchronised first so the buffers kept for the graph outlive its last replay.
            unsafe {
                let _ = cu::stream::synchronize(self.dev.raw_stream());
                let _ = cu::graph::exec_destroy(self.exec);
                let _ = cu::graph::destroy(self.graph);
            }
        }
    }
}

impl<'a, T: Element, U: Element> Graph<'a, T, U> {
    /// Captures what `body` does with `inputs` on `dev` (a CUDA device handle: its stream) into a
    /// graph, after one eager call; on the CPU, keeps `body` to call in [`run`](Self::run).
    ///
    /// # Errors
    /// `DeviceMismatch` when an input or an output is not on `dev`'s GPU;
    /// `InvalidArgument` when the body cannot be captured (it reads device data on the host or
    /// synchronises, its outputs change shape between calls, or it keeps arrays it made alive
    /// outside its outputs); any error of the body itself.
    pub fn capture<F>(dev: &Device, inputs: &[&Array<T>], body: F) -> Result<Self>
    where
        F: Fn(&[Array<T>]) -> Result<Vec<Array<U>>> + 'a,
    {
        let mut own = Vec::with_capacity(inputs.len());
        for x in inputs {
            crate::array::check_same_device("Graph::capture", dev, x.device())?;
            own.push(owned_copy(x, dev)?);
        }
        // the eager call: compiles, plans, and gives the outputs' shapes
        // the eager call: compiles, plans, and gives the outputs' shapes; on a GPU on the
        // capture's private stream, after the inputs' copies
        let cap = match dev {
            Device::Cuda(d) => {
                let c = d.new_stream()?;
                d.synchronize()?;
                Some(c)
            }
            Device::Cpu => None,
        };
        let first = {
            let _r = cap.as_ref().map(Redirect::to);
            body(&own)?
        };
        if let Some(c) = &cap {
            c.synchronize()?;
        }
        let mut outputs = Vec::with_capacity(first.len());
        for o in &first {
            if !crate::device::same_device(o.device(), dev) {
                return Err(Error::DeviceMismatch {
                    op: "Graph::capture (an output)".into(),
                    left: dev.to_string(),
                    right: o.device().to_string(),
                });
            }
            outputs.push(owned_copy(o, dev)?);
        }
        drop(first);
        let mut g = Graph {
            dev: dev.clone(),
            body: Box::new(body),
            inputs: own,
            outputs,
            exec: None,
        };
        if let (Device::Cuda(d), Some(c)) = (dev, &cap) {
            g.exec = Some(g.record(c, d)?);
        }
        Ok(g)
    }

    /// Runs the body under capture of `d`'s (private) stream and instantiates the graph, to be
    /// launched on `launch`'s stream.
    fn record(&mut self, d: &CudaDevice, launch: &CudaDevice) -> Result<Exec> {
        launch.synchronize()?;
        d.synchronize()?;
        d.stream.begin_capture()?;
        // SAFETY: the stream is alive. Relaxed mode: the pinned staging of uploads allocates
        // host memory during the capture, which the stricter modes refuse.
        if let Err(e) = unsafe {
            cu::stream::begin_capture(
                d.raw_stream(),
                sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED,
            )
        } {
            let _ = d.stream.end_capture();
            return Err(Error::driver("Graph::capture", e));
        }
        let redirect = Redirect::to(d);
        let body_result = (self.body)(&self.inputs).and_then(|outs| {
            if outs.len() != self.outputs.len() {
                return Err(Error::arg(
                    "Graph::capture",
                    format!(
                        "the body returned {} outputs, then {}",
                        self.outputs.len(),
                        outs.len()
                    ),
                ));
            }
            for (own, o) in self.outputs.iter_mut().zip(&outs) {
                if own.shape() != o.shape() {
                    return Err(Error::arg(
                        "Graph::capture",
                        format!(
                            "an output has shape {:?}, then {:?}: a graph needs fixed shapes",
                            own.shape(),
                            o.shape()
                        ),
                    ));
                }
                own.assign(o)?;
            }
            Ok(())
        });
        // SAFETY: capture was begun on this stream by this thread.
        drop(redirect);
        let ended = unsafe { cu::stream::end_capture(d.raw_stream()) };
        let state = d.stream.end_capture();
        let graph = match (body_result, ended) {
            (Ok(()), Ok(g)) => g,
            (Err(e), Ok(g)) => {
                // SAFETY: the graph was made by end_capture and is not instantiated.
                unsafe {
                    let _ = cu::graph::destroy(g);
                }
                return Err(e);
            }
            (Err(e), Err(_)) => return Err(e),
            (Ok(()), Err(e)) => return Err(Error::driver("Graph::capture", e)),
        };
        let fail = |why: Error| {
            // SAFETY: as above.
            unsafe {
                let _ = cu::graph::destroy(graph);
            }
            Err(why)
        };
        if state.live > 0 {
            return fail(Error::arg(
                "Graph::capture",
                format!(
                    "{} arrays made inside the body outlive it (a graph can only return its \
                     outputs)",
                    state.live
                ),
            ));
        }
        // SAFETY: the graph is complete; default flags.
        let exec = match unsafe { cu::graph::instantiate(graph, sys::CUgraphInstantiate_flags(0)) }
        {
            Ok(x) => x,
            Err(e) => return fail(Error::driver("Graph::capture", e)),
        };
        Ok(Exec {
            dev: launch.clone(),
            graph,
            exec,
            _keep: state,
        })
    }

    /// Copies `inputs` into the graph's input buffers, replays the graph and returns its outputs
    /// (on the CPU: calls the body). The outputs are overwritten by the next run.
    ///
    /// # Errors
    /// `InvalidArgument` when the number of inputs differs from the capture's or an output of
    /// the previous run is still shared (a clone kept: `copy()` it instead); `ShapeMismatch` when
    /// an input's shape differs; `DeviceMismatch` when an input is on another device.
    pub fn run(&mut self, inputs: &[&Array<T>]) -> Result<&[Array<U>]> {
        if inputs.len() != self.inputs.len() {
            return Err(Error::arg(
                "Graph::run",
                format!(
                    "{} inputs given, the graph was captured with {}",
                    inputs.len(),
                    self.inputs.len()
                ),
            ));
        }
        for (own, x) in self.inputs.iter().zip(inputs) {
            crate::array::check_same_device("Graph::run", &self.dev, x.device())?;
            if own.shape() != x.shape() {
                return Err(Error::shape(
                    "Graph::run",
                    format!(
                        "an input has shape {:?}, the graph was captured with {:?}",
                        x.shape(),
                        own.shape()
                    ),
                ));
            }
        }
        let Some(exec) = &self.exec else {
            // the CPU: call the body (on handles to the inputs: it cannot write into them)
            let xs: Vec<Array<T>> = inputs.iter().map(|x| (*x).clone()).collect();
            self.outputs = (self.body)(&xs)?;
            return Ok(&self.outputs);
        };
        if self.inputs.iter().any(|a| !unique(&a.storage))
            || self.outputs.iter().any(|a| !unique(&a.storage))
        {
            return Err(Error::arg(
                "Graph::run",
                "an output of the previous run is still shared (a clone of it is alive): copy() \
                 outputs that must outlive the next run",
            ));
        }
        for (own, x) in self.inputs.iter_mut().zip(inputs) {
            // an input queued on another stream of the GPU: the copy waits for its work
            if let Device::Cuda(xd) = x.device() {
                if !xd.same_stream(&exec.dev) {
                    exec.dev.wait_event(&crate::device::Event::record(xd)?)?;
                }
            }
            // unique storage: written in place, where the graph reads it
            own.assign(x)?;
        }
        exec.dev.bind()?;
        // SAFETY: the graph and the buffers its nodes use are alive (owned by self).
        unsafe { cu::graph::launch(exec.exec, exec.dev.raw_stream()) }
            .map_err(|e| Error::driver("Graph::run", e))?;
        Ok(&self.outputs)
    }

    /// The outputs of the last run (of the eager call at capture before the first run).
    pub fn outputs(&self) -> &[Array<U>] {
        &self.outputs
    }

    /// The device the graph runs on.
    pub fn device(&self) -> &Device {
        &self.dev
    }
}

/// A contiguous copy of `x` with storage of its own, on `dev`'s stream.
fn owned_copy<T: Element>(x: &Array<T>, dev: &Device) -> Result<Array<T>> {
    let mut own = Array::<T>::alloc("Graph", x.shape(), dev)?;
    own.assign(x)?;
    Ok(own)
}

fn unique<T>(s: &Arc<Storage<T>>) -> bool {
    Arc::strong_count(s) == 1 && Arc::weak_count(s) == 0
}
