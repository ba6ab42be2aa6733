//! Devices: the CPU and CUDA GPUs, streams and events.
//!
//! [`Device::auto()`] picks the first CUDA device when the driver loads and a device exists, else the
//! CPU; `CUSCI_DEVICE=cpu|cuda|cuda:N` overrides the choice. A CUDA device handle carries the stream
//! that work submitted through it runs on; [`CudaDevice::new_stream`] gives a handle to the same GPU
//! with a fresh stream. Two handles to one GPU compare equal whatever their streams.

use crate::cuda::libs;
use crate::cuda::module::KernelCache;
use crate::error::{Error, Result};
use crate::graph::CaptureState;
use cudarc::driver::{result as cu, sys, CudaContext};
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Where arrays live and work runs.
#[derive(Clone, PartialEq)]
pub enum Device {
    /// The host, with rayon.
    Cpu,
    /// A CUDA GPU (and a stream on it).
    Cuda(CudaDevice),
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Device::Cpu => f.write_str("cpu"),
            Device::Cuda(d) => write!(f, "cuda:{}", d.ordinal()),
        }
    }
}

impl Device {
    /// The host CPU.
    pub fn cpu() -> Device {
        Device::Cpu
    }

    /// CUDA device `ordinal` (on its default stream).
    ///
    /// # Errors
    /// `CudaUnavailable` when the driver does not load or the device does not exist.
    pub fn cuda(ordinal: usize) -> Result<Device> {
        CudaDevice::get(ordinal).map(Device::Cuda)
    }

    /// The device to use: `CUSCI_DEVICE` when set (`cpu`, `cuda`, `cuda:N`), else the first CUDA
    /// device when one is usable, else the CPU.
    ///
    /// # Errors
    /// Only when `CUSCI_DEVICE` names a CUDA device that cannot be opened, or is malformed.
    pub fn auto() -> Result<Device> {
        match std::env::var("CUSCI_DEVICE") {
            Ok(v) if !v.trim().is_empty() => Device::parse(v.trim()),
            _ => Ok(Device::cuda(0).unwrap_or(Device::Cpu)),
        }
    }

    /// Parses `cpu`, `cuda` or `cuda:N`.
    pub fn parse(s: &str) -> Result<Device> {
        match s {
            "cpu" => Ok(Device::Cpu),
            "cuda" | "gpu" => Device::cuda(0),
            _ => match s.strip_prefix("cuda:").map(str::parse::<usize>) {
                Some(Ok(n)) => Device::cuda(n),
                _ => Err(Error::arg(
                    "Device::parse",
                    format!("{s:?} is not cpu, cuda or cuda:N"),
                )),
            },
        }
    }

    /// True for a CUDA device.
    pub fn is_cuda(&self) -> bool {
        matches!(self, Device::Cuda(_))
    }

    /// The CUDA device, if this is one.
    pub fn as_cuda(&self) -> Option<&CudaDevice> {
        match self {
            Device::Cuda(d) => Some(d),
            Device::Cpu => None,
        }
    }

    /// Waits for all work submitted through this handle's stream (no-op on the CPU).
    pub fn synchronize(&self) -> Result<()> {
        match self {
            Device::Cpu => Ok(()),
            Device::Cuda(d) => d.synchronize(),
        }
    }

    /// The number of CUDA devices the driver reports (0 when it does not load).
    pub fn cuda_count() -> usize {
        if libs::probe("cuda").is_none() {
            return 0;
        }
        if cu::init().is_err() {
            return 0;
        }
        cu::device::get_count()
            .map(|n| n.max(0) as usize)
            .unwrap_or(0)
    }
}

/// What a CUDA device is.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceProps {
    pub ordinal: usize,
    pub name: String,
    /// (major, minor)
    pub compute_capability: (i32, i32),
    pub multiprocessors: usize,
    pub total_memory: usize,
    pub l2_bytes: usize,
    pub max_shared_per_block_optin: usize,
    /// The driver's CUDA version, e.g. "13.0".
    pub driver_version: String,
}

pub(crate) struct Shared {
    pub(crate) props: DeviceProps,
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) pool: sys::CUmemoryPool,
    pub(crate) kernels: KernelCache,
    default_stream: OnceLock<Arc<StreamInner>>,
    /// Per-device caches of other crates (library handles, plans), keyed by a name.
    pub(crate) extensions: Mutex<HashMap<&'static str, Arc<dyn std::any::Any + Send + Sync>>>,
}

// SAFETY: the memory pool handle is a driver object usable from any thread of the process.
unsafe impl Send for Shared {}
// SAFETY: as above; all mutable state is behind mutexes.
unsafe impl Sync for Shared {}

pub(crate) struct StreamInner {
    pub(crate) raw: sys::CUstream,
    ctx: Arc<CudaContext>,
    /// Device blocks freed on this stream, kept for the next allocation of the same size here.
    blocks: Mutex<BlockCache>,
    /// The most bytes `blocks` keeps.
    block_cap: usize,
    /// Set while the stream is captured into a graph ([`crate::graph`]): allocations then bypass
    /// `blocks`, buffers freed are kept for the graph, and host uploads are staged in pinned
    /// memory that the graph keeps.
    capturing: AtomicBool,
    capture: Mutex<Option<CaptureState>>,
}

/// Freed device blocks by size (see [`StreamInner::take_block`]).
#[derive(Default)]
struct BlockCache {
    by_size: HashMap<usize, Vec<sys::CUdeviceptr>>,
    bytes: usize,
}

impl StreamInner {
    /// A block of exactly `bytes` freed earlier on this stream. Stream order makes it safe to hand
    /// out at once (the work queued before its free runs before anything queued after), so an
    /// allocation costs a lookup instead of the pool's call, as CuPy's per-stream pool does.
    pub(crate) fn take_block(&self, bytes: usize) -> Option<sys::CUdeviceptr> {
        if self.capturing() {
            return None;
        }
        let mut c = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
        let p = c.by_size.get_mut(&bytes)?.pop()?;
        c.bytes -= bytes;
        Some(p)
    }

    /// Keeps a freed block for [`take_block`](Self::take_block); false (the caller frees it)
    /// where the cache would pass `block_cap` bytes.
    pub(crate) fn keep_block(&self, ptr: sys::CUdeviceptr, bytes: usize) -> bool {
        if self.capturing() {
            return false;
        }
        let mut c = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
        if c.bytes + bytes > self.block_cap {
            return false;
        }
        c.bytes += bytes;
        c.by_size.entry(bytes).or_default().push(ptr);
        true
    }

    /// Frees the kept blocks into the pool, stream-ordered (the context bound by the caller).
    fn release_blocks(&self) {
        let mut c = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
        for (_, ptrs) in c.by_size.drain() {
            for p in ptrs {
                // SAFETY: each block came from the pool, was freed by its owner into this cache
                // and is freed once here, ordered on its stream.
                unsafe {
                    let _ = cu::free_async(p, self.raw);
                }
            }
        }
        c.bytes = 0;
    }

    fn kept_bytes(&self) -> usize {
        self.blocks.lock().unwrap_or_else(|e| e.into_inner()).bytes
    }

    /// True while the stream is being captured into a graph.
    pub(crate) fn capturing(&self) -> bool {
        self.capturing.load(Ordering::Acquire)
    }

    /// Starts collecting a capture's state (before the driver's capture begins).
    pub(crate) fn begin_capture(&self) -> Result<()> {
        let mut c = self.capture.lock().unwrap_or_else(|e| e.into_inner());
        if c.is_some() {
            return Err(Error::arg(
                "Graph::capture",
                "the stream is already being captured (a capture inside a captured body)",
            ));
        }
        *c = Some(CaptureState::default());
        self.capturing.store(true, Ordering::Release);
        Ok(())
    }

    /// Ends the capture and gives its state to the graph.
    pub(crate) fn end_capture(&self) -> CaptureState {
        self.capturing.store(false, Ordering::Release);
        let mut c = self.capture.lock().unwrap_or_else(|e| e.into_inner());
        c.take().unwrap_or_default()
    }

    /// Runs `f` on the capture's state; `None` when the stream is not being captured.
    pub(crate) fn with_capture<R>(&self, f: impl FnOnce(&mut CaptureState) -> R) -> Option<R> {
        if !self.capturing() {
            return None;
        }
        let mut c = self.capture.lock().unwrap_or_else(|e| e.into_inner());
        c.as_mut().map(f)
    }

    /// Keeps a buffer made before the capture and released during it for the graph (which may
    /// read it); gives it back when the stream is no longer being captured.
    pub(crate) fn keep_for_capture(
        &self,
        buf: crate::cuda::memory::DeviceBuffer,
    ) -> std::result::Result<(), crate::cuda::memory::DeviceBuffer> {
        let mut c = self.capture.lock().unwrap_or_else(|e| e.into_inner());
        match c.as_mut() {
            Some(state) => {
                state.released.push(buf);
                Ok(())
            }
            None => Err(buf),
        }
    }

    /// `InvalidArgument` for `op` when the stream is being captured (`op` waits for the device
    /// or reads its data on the host, which a graph cannot record).
    pub(crate) fn check_not_capturing(&self, op: &str) -> Result<()> {
        if self.capturing() {
            return Err(Error::arg(
                op,
                "waits for the device or reads device data on the host, which a graph capture \
                 cannot record (see cusci_core::graph)",
            ));
        }
        Ok(())
    }
}

// SAFETY: a CUstream may be used from any thread once its context is bound there.
unsafe impl Send for StreamInner {}
// SAFETY: as above.
unsafe impl Sync for StreamInner {}

impl Drop for StreamInner {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            self.release_blocks();
            // SAFETY: the stream was created by us and is destroyed once; pending work completes first.
            unsafe {
                let _ = cu::stream::synchronize(self.raw);
                let _ = cu::stream::destroy(self.raw);
            }
        }
    }
}

/// A CUDA GPU and the stream that work submitted through this handle runs on.
#[derive(Clone)]
pub struct CudaDevice {
    pub(crate) shared: Arc<Shared>,
    pub(crate) stream: Arc<StreamInner>,
}

thread_local! {
    /// The stream of the graph capture running on this thread (see [`Redirect`]).
    static REDIRECT: RefCell<Option<CudaDevice>> = const { RefCell::new(None) };
    /// Whether `REDIRECT` is set (the fast check on every call).
    static REDIRECTING: Cell<bool> = const { Cell::new(false) };
}

/// While alive, this thread's work on any handle of `cap`'s GPU goes to `cap`'s stream: a graph
/// body records everything it does, whichever handles its arrays carry, and other threads'
/// work on those handles' streams is neither recorded nor refused.
pub(crate) struct Redirect(());

impl Redirect {
    pub(crate) fn to(cap: &CudaDevice) -> Redirect {
        REDIRECT.with(|r| *r.borrow_mut() = Some(cap.clone()));
        REDIRECTING.with(|r| r.set(true));
        Redirect(())
    }
}

impl Drop for Redirect {
    fn drop(&mut self) {
        REDIRECTING.with(|r| r.set(false));
        REDIRECT.with(|r| r.borrow_mut().take());
    }
}

impl PartialEq for CudaDevice {
    fn eq(&self, o: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &o.shared)
    }
}

impl fmt::Debug for CudaDevice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cuda:{}", self.ordinal())
    }
}

fn registry() -> &'static Mutex<HashMap<usize, Arc<Shared>>> {
    static R: OnceLock<Mutex<HashMap<usize, Arc<Shared>>>> = OnceLock::new();
    R.get_or_init(|| Mutex::new(HashMap::new()))
}

fn drv(op: &str) -> impl Fn(cudarc::driver::DriverError) -> Error + '_ {
    move |e| Error::driver(op, e)
}

impl CudaDevice {
    /// The device `ordinal` on its default stream; opened once per process.
    pub fn get(ordinal: usize) -> Result<CudaDevice> {
        libs::require("cuda")?;
        let mut reg = registry().lock().unwrap_or_else(|e| e.into_inner());
        let shared = match reg.get(&ordinal) {
            Some(s) => s.clone(),
            None => {
                let s = Arc::new(Self::open(ordinal)?);
                reg.insert(ordinal, s.clone());
                s
            }
        };
        drop(reg);
        let stream = match shared.default_stream.get() {
            Some(s) => s.clone(),
            None => {
                let s = new_stream_inner(&shared.ctx, block_cap(shared.props.total_memory))?;
                shared.default_stream.get_or_init(|| s).clone()
            }
        };
        Ok(CudaDevice { shared, stream })
    }

    fn open(ordinal: usize) -> Result<Shared> {
        let op = "Device::cuda";
        cu::init().map_err(|e| Error::CudaUnavailable(format!("cuInit failed: {e:?}")))?;
        let count = cu::device::get_count().map_err(drv(op))?;
        if ordinal as i64 >= count as i64 {
            return Err(Error::CudaUnavailable(format!(
                "no CUDA device {ordinal}: the driver reports {count}"
            )));
        }
        let ctx = CudaContext::new(ordinal).map_err(drv(op))?;
        // cusci tracks its own buffers; cudarc's per-slice events are not used
        // SAFETY: called before any cudarc slice exists on this context.
        unsafe { ctx.disable_event_tracking() };
        let attr = |a| ctx.attribute(a).map(|v| v as usize).map_err(drv(op));
        use sys::CUdevice_attribute_enum as A;
        let mut dv = 0;
        // SAFETY: writes one int.
        unsafe { sys::cuDriverGetVersion(&mut dv) };
        let props = DeviceProps {
            ordinal,
            name: ctx.name().map_err(drv(op))?,
            compute_capability: ctx.compute_capability().map_err(drv(op))?,
            multiprocessors: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            total_memory: ctx.total_mem().map_err(drv(op))?,
            l2_bytes: attr(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?,
            max_shared_per_block_optin: attr(
                A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )?,
            driver_version: format!("{}.{}", dv / 1000, (dv % 1000) / 10),
        };
        if !ctx.has_async_alloc() {
            return Err(Error::CudaUnavailable(format!(
                "{} does not support stream-ordered memory pools",
                props.name
            )));
        }
        // SAFETY: the device handle comes from the live context; the pool attribute is a u64.
        let pool = unsafe {
            let pool = cu::device::get_default_mem_pool(ctx.cu_device()).map_err(drv(op))?;
            let mut thr: u64 = u64::MAX;
            cu::mem_pool::set_attribute(
                pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                &mut thr as *mut u64 as *mut _,
            )
            .map_err(drv(op))?;
            pool
        };
        Ok(Shared {
            kernels: KernelCache::new(props.compute_capability),
            props,
            ctx,
            pool,
            default_stream: OnceLock::new(),
            extensions: Mutex::new(HashMap::new()),
        })
    }

    /// The device's ordinal.
    pub fn ordinal(&self) -> usize {
        self.shared.props.ordinal
    }

    /// Name, compute capability, memory, multiprocessors, driver version.
    pub fn props(&self) -> &DeviceProps {
        &self.shared.props
    }

    /// Makes this device's context current on the calling thread (every cusci call does this).
    pub fn bind(&self) -> Result<()> {
        self.shared.ctx.bind_to_thread().map_err(drv("bind"))
    }

    /// The raw stream handle, for the domain crates' library calls: the handle's stream, or the
    /// stream of a graph capture running on this thread on the same GPU (see [`crate::graph`]).
    pub fn raw_stream(&self) -> sys::CUstream {
        self.effective().stream.raw
    }

    /// The handle this thread's work on `self` goes to: `self`, or, while a graph is being
    /// captured on this thread on the same GPU, the capture's stream ([`Redirect`]).
    pub(crate) fn effective(&self) -> Cow<'_, CudaDevice> {
        if !REDIRECTING.with(Cell::get) {
            return Cow::Borrowed(self);
        }
        REDIRECT
            .try_with(|r| match &*r.borrow() {
                Some(c) if Arc::ptr_eq(&c.shared, &self.shared) => Some(c.clone()),
                _ => None,
            })
            .ok()
            .flatten()
            .map_or(Cow::Borrowed(self), Cow::Owned)
    }

    /// cudarc's context, for the domain crates' library handles.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.shared.ctx
    }

    /// A handle to the same GPU with a new non-blocking stream.
    pub fn new_stream(&self) -> Result<CudaDevice> {
        Ok(CudaDevice {
            shared: self.shared.clone(),
            stream: new_stream_inner(&self.shared.ctx, block_cap(self.props().total_memory))?,
        })
    }

    /// True when both handles submit to the same stream.
    pub fn same_stream(&self, o: &CudaDevice) -> bool {
        Arc::ptr_eq(&self.stream, &o.stream)
    }

    /// Waits until all work on this handle's stream is done.
    pub fn synchronize(&self) -> Result<()> {
        let d = self.effective();
        d.stream.check_not_capturing("synchronize")?;
        self.bind()?;
        // SAFETY: the stream is alive while self is.
        unsafe { cu::stream::synchronize(d.stream.raw) }.map_err(drv("synchronize"))
    }

    /// Makes this handle's stream wait for `event` (recorded on any stream of this GPU).
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        self.bind()?;
        // SAFETY: both handles are alive.
        unsafe {
            cu::stream::wait_event(
                self.raw_stream(),
                event.raw,
                sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        }
        .map_err(drv("wait_event"))
    }

    /// A per-device value owned by another crate (its library handles or plan cache), created by
    /// `init` the first time `key` is asked for.
    pub fn extension<T: Send + Sync + 'static>(
        &self,
        key: &'static str,
        init: impl FnOnce() -> Result<T>,
    ) -> Result<Arc<T>> {
        let mut m = self
            .shared
            .extensions
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(v) = m.get(key) {
            return v.clone().downcast::<T>().map_err(|_| {
                Error::arg(
                    "CudaDevice::extension",
                    format!("key {key} holds another type"),
                )
            });
        }
        let v = Arc::new(init()?);
        m.insert(key, v.clone());
        Ok(v)
    }
}

/// The most bytes of freed blocks a stream keeps for reuse: an eighth of the device's memory, at
/// most 4 GiB.
fn block_cap(total_memory: usize) -> usize {
    (total_memory / 8).min(4 << 30)
}

fn new_stream_inner(ctx: &Arc<CudaContext>, block_cap: usize) -> Result<Arc<StreamInner>> {
    ctx.bind_to_thread().map_err(drv("new_stream"))?;
    let raw = cu::stream::create(cu::stream::StreamKind::NonBlocking).map_err(drv("new_stream"))?;
    Ok(Arc::new(StreamInner {
        raw,
        ctx: ctx.clone(),
        blocks: Mutex::new(BlockCache::default()),
        block_cap,
        capturing: AtomicBool::new(false),
        capture: Mutex::new(None),
    }))
}

/// A CUDA event, for ordering streams and timing work.
pub struct Event {
    raw: sys::CUevent,
    dev: CudaDevice,
}

// SAFETY: events are driver objects usable from any thread.
unsafe impl Send for Event {}
// SAFETY: as above.
unsafe impl Sync for Event {}

impl Drop for Event {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: created by us, destroyed once.
            unsafe {
                let _ = cu::event::destroy(self.raw);
            }
        }
    }
}

impl Event {
    /// Records a new timing event on `dev`'s stream.
    pub fn record(dev: &CudaDevice) -> Result<Event> {
        dev.bind()?;
        let raw = cu::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT).map_err(drv("Event"))?;
        let ev = Event {
            raw,
            dev: dev.clone(),
        };
        // SAFETY: both handles are alive.
        unsafe { cu::event::record(raw, dev.raw_stream()) }.map_err(drv("Event::record"))?;
        Ok(ev)
    }

    /// Records this event again, on `dev`'s stream.
    pub fn rerecord(&self, dev: &CudaDevice) -> Result<()> {
        dev.bind()?;
        // SAFETY: both handles are alive.
        unsafe { cu::event::record(self.raw, dev.raw_stream()) }.map_err(drv("Event::record"))
    }

    /// Waits for the event.
    pub fn synchronize(&self) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: the event is alive.
        unsafe { cu::event::synchronize(self.raw) }.map_err(drv("Event::synchronize"))
    }

    /// Milliseconds from `self` to `end` (waits for `end`).
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        end.synchronize()?;
        // SAFETY: both events are alive and recorded.
        unsafe { cu::event::elapsed(self.raw, end.raw) }.map_err(drv("Event::elapsed_ms"))
    }
}

/// Device memory of one GPU as the stream-ordered pool sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MemoryInfo {
    /// Bytes held by live allocations of this process.
    pub used: usize,
    /// Bytes the pool keeps for reuse beyond `used`.
    pub cached: usize,
    /// Bytes free on the device (all processes).
    pub free: usize,
    /// The device's memory.
    pub total: usize,
}

impl CudaDevice {
    /// This handle's stream and the default stream (once), whose freed blocks
    /// [`memory_info`](Self::memory_info) and [`free_cached`](Self::free_cached) see.
    fn kept_streams(&self) -> impl Iterator<Item = &StreamInner> {
        let dflt = self
            .shared
            .default_stream
            .get()
            .filter(|d| !Arc::ptr_eq(d, &self.stream));
        std::iter::once(&*self.stream).chain(dflt.map(|d| &**d))
    }

    /// Used, cached, free and total device memory.
    pub fn memory_info(&self) -> Result<MemoryInfo> {
        self.bind()?;
        let get = |a| -> Result<u64> {
            let mut v: u64 = 0;
            // SAFETY: the pool is alive and these attributes are u64.
            unsafe {
                cu::mem_pool::get_attribute(self.shared.pool, a, &mut v as *mut u64 as *mut _)
            }
            .map_err(drv("memory_info"))?;
            Ok(v)
        };
        use sys::CUmemPool_attribute as P;
        // blocks kept for reuse by this handle's stream and the default stream count as cached
        let kept = self.kept_streams().map(|st| st.kept_bytes()).sum::<usize>();
        let used = (get(P::CU_MEMPOOL_ATTR_USED_MEM_CURRENT)? as usize).saturating_sub(kept);
        let reserved = get(P::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)? as usize;
        let (free, total) = cu::mem_get_info().map_err(drv("memory_info"))?;
        Ok(MemoryInfo {
            used,
            cached: reserved.saturating_sub(used),
            free,
            total,
        })
    }

    /// Returns the pool's unused memory to the device (synchronises the device first), after
    /// giving the pool the freed blocks kept for reuse by this handle's stream and the default
    /// stream.
    pub fn free_cached(&self) -> Result<()> {
        self.effective().stream.check_not_capturing("free_cached")?;
        self.bind()?;
        for st in self.kept_streams() {
            st.release_blocks();
        }
        self.shared.ctx.synchronize().map_err(drv("free_cached"))?;
        // SAFETY: the pool is alive.
        unsafe { cu::mem_pool::trim_to(self.shared.pool, 0) }.map_err(drv("free_cached"))
    }

    /// Starts a new high-water mark of the device's pool memory in use (see
    /// [`peak_memory`](Self::peak_memory)): the mark restarts from the bytes in use now.
    ///
    /// It sets the pool's `CU_MEMPOOL_ATTR_USED_MEM_HIGH` to 0, which the driver allows as the
    /// only value. The mark is the device's (every stream and handle of this GPU in this
    /// process), not this handle's.
    ///
    /// # Errors
    /// A driver error (`Error::Cuda`) when the context cannot be bound or the attribute set.
    ///
    /// ```
    /// use cusci_core::{Array, Device};
    /// // without a GPU there is nothing to measure: the example runs where there is one
    /// if let Ok(Device::Cuda(d)) = Device::cuda(0) {
    ///     d.free_cached()?; // give back the blocks kept for reuse, so they do not count
    ///     d.reset_peak_memory()?;
    ///     let a = Array::<f64>::zeros(&[1 << 20], &Device::Cuda(d.clone()))?; // 8 MiB
    ///     assert!(d.peak_memory()? >= 8 << 20);
    ///     drop(a);
    /// }
    /// # Ok::<(), cusci_core::Error>(())
    /// ```
    pub fn reset_peak_memory(&self) -> Result<()> {
        self.bind()?;
        let mut zero: u64 = 0;
        // SAFETY: the pool is alive and the attribute is a u64.
        unsafe {
            cu::mem_pool::set_attribute(
                self.shared.pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_HIGH,
                &mut zero as *mut u64 as *mut _,
            )
        }
        .map_err(drv("reset_peak_memory"))
    }

    /// The most bytes of the device's pool that were in use at once since the last
    /// [`reset_peak_memory`](Self::reset_peak_memory) (or since the device was opened): the
    /// pool's `CU_MEMPOOL_ATTR_USED_MEM_HIGH`, the stream-ordered counterpart of
    /// `torch.cuda.max_memory_allocated`.
    ///
    /// What it counts: every block allocated from the pool and not yet freed into it, i.e. the
    /// live arrays and workspaces of every stream of this GPU in this process (cuFFT work areas
    /// included, as cusci gives them from the pool) **and the blocks each stream keeps for reuse**
    /// after their arrays dropped (up to an eighth of the device's memory per stream, see the
    /// crate README's "Memory"): to the pool those are still in use. So the mark is the memory
    /// cusci held, live or kept — the same measure as CuPy's `MemoryPool.total_bytes()` (used
    /// plus cached blocks), not the live arrays alone. Memory the pool reserves beyond that (its
    /// granularity, the cached memory [`memory_info`](Self::memory_info) calls `cached` that is
    /// not in a kept block) and memory that libraries allocate themselves (cuBLAS and cuSOLVER
    /// handles' internal buffers, the CUDA context) are not counted. Call
    /// [`free_cached`](Self::free_cached) before the reset to start from the live arrays only.
    ///
    /// # Errors
    /// A driver error (`Error::Cuda`) when the context cannot be bound or the attribute read.
    ///
    /// ```
    /// use cusci_core::Device;
    /// if let Ok(Device::Cuda(d)) = Device::cuda(0) {
    ///     d.reset_peak_memory()?;
    ///     let peak = d.peak_memory()?;
    ///     println!("{:.1} MiB", peak as f64 / (1 << 20) as f64);
    /// }
    /// # Ok::<(), cusci_core::Error>(())
    /// ```
    pub fn peak_memory(&self) -> Result<usize> {
        self.bind()?;
        let mut v: u64 = 0;
        // SAFETY: the pool is alive and the attribute is a u64.
        unsafe {
            cu::mem_pool::get_attribute(
                self.shared.pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_HIGH,
                &mut v as *mut u64 as *mut _,
            )
        }
        .map_err(drv("peak_memory"))?;
        Ok(v as usize)
    }
}

/// True when both handles name the same device (streams may differ).
pub fn same_device(a: &Device, b: &Device) -> bool {
    match (a, b) {
        (Device::Cpu, Device::Cpu) => true,
        (Device::Cuda(x), Device::Cuda(y)) => x == y,
        _ => false,
    }
}

pub(crate) fn device_mismatch(op: &str, a: &Device, b: &Device) -> Error {
    Error::DeviceMismatch {
        op: op.into(),
        left: a.to_string(),
        right: b.to_string(),
    }
}

/// `DeviceMismatch` unless both arrays' devices are the same.
pub fn check_same_device(op: &str, a: &Device, b: &Device) -> Result<()> {
    if same_device(a, b) {
        Ok(())
    } else {
        Err(device_mismatch(op, a, b))
    }
}
