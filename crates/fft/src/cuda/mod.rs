//! The CUDA side: cuFFT plans (a thin safe wrapper over cudarc's `cufft::sys`), the per-device
//! plan cache, the transforms along one axis or over trailing axes, and the NVRTC kernels around
//! them (`fft.cu`: cut / zero-pad copies, the C2R input copy, the roll of `fftshift`, the DCT/DST
//! pre and post passes).
//!
//! # Layouts
//! Every transform runs on a C-contiguous array seen as `(outer, len, inner)` around the
//! transformed axis. With `inner == 1` (the last axis) it is one cuFFT call over `outer` lanes
//! (`istride = 1`, `idist = len`), no copy. Otherwise cuFFT's advanced layout describes the lanes
//! (`istride = inner`) but has one batch dimension only, so one of the two others is looped over
//! with the same plan: either `batch = inner` lanes (`idist = 1`) per call and one call per outer
//! index, or `batch = outer` lanes (`idist = len·inner`) and one call per inner index, whichever
//! makes fewer calls (a middle axis of a 3-d array: min(outer, inner) calls, no transpose). The
//! trailing axes of a contiguous array, two or three of them, with no cut or padding, are one
//! rank-2/3 plan (c2c and r2c); c2r transforms always go axis by axis, as pocketfft does, so that
//! a non-Hermitian input gives SciPy's answer (the imaginary parts of the zero-frequency and
//! Nyquist terms of each last-axis lane are dropped, which a rank-n C2R would not do).
//!
//! # Plans and memory
//! Plans are made with `cufftCreate`, `cufftSetAutoAllocation(0)` and `cufftMakePlanMany64`
//! (64-bit sizes): cuFFT allocates no work area of its own, so making a plan does not call
//! `cudaMalloc` (which would synchronise the device). Each execution takes a work area of the
//! plan's size from the device's stream-ordered pool (`cuMemAllocAsync` on the array's stream,
//! freed stream-ordered right after the call), binds the plan to the stream
//! (`cufftSetStream`) and runs. Plans live in a per-device [`LruCache`] (key: type, lengths,
//! layout, batch) bounded by count and by work-area bytes, taken out of it while they run, so
//! one plan never runs on two streams at once.

use crate::args::Post;
use crate::args::R2r;
use crate::plan_cache::LruCache;
use crate::{FftComplex, FftReal};
use cudarc::cufft::sys as cf;
use cudarc::driver::{result as drv, sys as dsys};
use cusci_core::cuda::launch::{i32_of, i64_of};
use cusci_core::cuda::libs;
use cusci_core::{
    Array, CudaDevice, DType, DevPtr, DevPtrMut, Device, Element, Error, Function, KernelModule,
    KernelParam, LaunchConfig, Result, Spec,
};
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

/// The kernels of this crate (`fft.cu`): one module, no specialisation (the element types are
/// in the kernel names).
pub(crate) static FFT_KERNELS: KernelModule = KernelModule {
    name: "fft_kernels",
    source: |_| Ok(include_str!("fft.cu").to_string()),
    options: &[],
    samples: || vec![Spec::default()],
};

/// Default bounds of a device's plan cache: 64 plans, 1 GiB of work areas.
pub(crate) const DEFAULT_MAX_PLANS: usize = 64;
pub(crate) const DEFAULT_MAX_BYTES: usize = 1 << 30;

// ---------- cuFFT: status, plans ----------

/// `Ok` for `CUFFT_SUCCESS`, else `Error::Cuda` with cuFFT's status name.
fn check(op: &str, r: cf::cufftResult) -> Result<()> {
    if r == cf::cufftResult::CUFFT_SUCCESS {
        Ok(())
    } else {
        Err(Error::Cuda {
            op: op.to_string(),
            library: "cufft",
            status: format!("{r:?}"),
        })
    }
}

/// The cuFFT transform type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    C2c,
    R2c,
    C2r,
}

/// cuFFT's advanced layout: (inembed, istride, idist, onembed, ostride, odist).
type Layout = (Vec<i64>, i64, i64, Vec<i64>, i64, i64);

/// What identifies a plan: transform type (with precision), lengths, advanced layout, batch.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct PlanKey {
    ty: u32,
    n: Vec<i64>,
    /// `Some((inembed, istride, idist, onembed, ostride, odist))` for the advanced layout.
    layout: Option<Layout>,
    batch: i64,
}

/// One cuFFT plan (destroyed on drop) and the size of the work area it needs.
pub(crate) struct Plan {
    handle: cf::cufftHandle,
    work: usize,
}

// SAFETY: a cuFFT handle may be used from any thread; the cache hands each plan to one user at
// a time.
unsafe impl Send for Plan {}

impl Drop for Plan {
    fn drop(&mut self) {
        // SAFETY: the handle was created by cufftCreate and is destroyed once.
        unsafe {
            let _ = cf::cufftDestroy(self.handle);
        }
    }
}

impl Plan {
    fn new(op: &str, key: &PlanKey) -> Result<Plan> {
        let mut handle: cf::cufftHandle = 0;
        // SAFETY: writes one handle.
        check(op, unsafe { cf::cufftCreate(&mut handle) })?;
        let mut plan = Plan { handle, work: 0 };
        // SAFETY: a live handle; 0 = the caller provides the work area.
        check(op, unsafe { cf::cufftSetAutoAllocation(handle, 0) })?;
        let ty = match key.ty {
            x if x == cf::cufftType::CUFFT_C2C as u32 => cf::cufftType::CUFFT_C2C,
            x if x == cf::cufftType::CUFFT_Z2Z as u32 => cf::cufftType::CUFFT_Z2Z,
            x if x == cf::cufftType::CUFFT_R2C as u32 => cf::cufftType::CUFFT_R2C,
            x if x == cf::cufftType::CUFFT_D2Z as u32 => cf::cufftType::CUFFT_D2Z,
            x if x == cf::cufftType::CUFFT_C2R as u32 => cf::cufftType::CUFFT_C2R,
            _ => cf::cufftType::CUFFT_Z2D,
        };
        let mut n = key.n.clone();
        let mut work = 0usize;
        let r = match &key.layout {
            None => {
                // SAFETY: n holds `rank` lengths; null embeds select the basic layout.
                unsafe {
                    cf::cufftMakePlanMany64(
                        handle,
                        n.len() as i32,
                        n.as_mut_ptr(),
                        std::ptr::null_mut(),
                        1,
                        0,
                        std::ptr::null_mut(),
                        1,
                        0,
                        ty,
                        key.batch,
                        &mut work,
                    )
                }
            }
            Some((ie, is, id, oe, os, od)) => {
                let (mut ie, mut oe) = (ie.clone(), oe.clone());
                // SAFETY: n, ie, oe hold `rank` entries each.
                unsafe {
                    cf::cufftMakePlanMany64(
                        handle,
                        n.len() as i32,
                        n.as_mut_ptr(),
                        ie.as_mut_ptr(),
                        *is,
                        *id,
                        oe.as_mut_ptr(),
                        *os,
                        *od,
                        ty,
                        key.batch,
                        &mut work,
                    )
                }
            }
        };
        check(op, r)?;
        // (not `Plan { work, ..plan }`: that would copy the handle out and drop, i.e. destroy, it)
        plan.work = work;
        Ok(plan)
    }
}

/// A device's plans.
pub(crate) struct DevicePlans {
    cache: Mutex<LruCache<PlanKey, Plan>>,
}

fn lock<P>(m: &Mutex<P>) -> std::sync::MutexGuard<'_, P> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn plans(dev: &CudaDevice) -> Result<Arc<DevicePlans>> {
    dev.extension("cusci-fft.plans", || {
        Ok(DevicePlans {
            cache: Mutex::new(LruCache::new(DEFAULT_MAX_PLANS, DEFAULT_MAX_BYTES)),
        })
    })
}

/// Drops the cached plans of `dev` (destroyed outside the lock).
pub(crate) fn clear_plans(dev: &CudaDevice) -> Result<()> {
    let p = plans(dev)?;
    let dropped = lock(&p.cache).clear();
    dev.bind()?;
    drop(dropped);
    Ok(())
}

/// (entries, work-area bytes, hits, misses) of `dev`'s cache.
pub(crate) fn plan_stats(dev: &CudaDevice) -> Result<(usize, usize, u64, u64)> {
    let p = plans(dev)?;
    let c = lock(&p.cache);
    Ok((c.len(), c.bytes(), c.hits, c.misses))
}

/// Sets the bounds of `dev`'s cache.
pub(crate) fn set_plan_limits(dev: &CudaDevice, count: usize, bytes: usize) -> Result<()> {
    let p = plans(dev)?;
    let dropped = lock(&p.cache).set_limits(count, bytes);
    dev.bind()?;
    drop(dropped);
    Ok(())
}

/// A work area from the device's stream-ordered pool, freed (stream-ordered) on drop.
struct Work {
    ptr: dsys::CUdeviceptr,
    stream: dsys::CUstream,
}

impl Work {
    fn new(dev: &CudaDevice, bytes: usize) -> Result<Work> {
        let stream = dev.raw_stream();
        if bytes == 0 {
            return Ok(Work { ptr: 0, stream });
        }
        // SAFETY: the stream is alive while dev is; the memory is only cuFFT's scratch.
        match unsafe { drv::malloc_async(stream, bytes) } {
            Ok(ptr) => Ok(Work { ptr, stream }),
            Err(e) if e.0 == dsys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                let _ = dev.free_cached();
                // SAFETY: as above.
                match unsafe { drv::malloc_async(stream, bytes) } {
                    Ok(ptr) => Ok(Work { ptr, stream }),
                    Err(_) => Err(Error::OutOfMemory {
                        requested: bytes,
                        free: dev.memory_info().map(|m| m.free).unwrap_or(0),
                    }),
                }
            }
            Err(e) => Err(Error::Cuda {
                op: "fft work area".into(),
                library: "driver",
                status: format!("{:?}", e.0),
            }),
        }
    }
}

impl Drop for Work {
    fn drop(&mut self) {
        if self.ptr != 0 {
            // SAFETY: allocated on this stream; freed once, after the work queued before it.
            unsafe {
                let _ = drv::free_async(self.ptr, self.stream);
            }
        }
    }
}

/// One call (input offset, output offset, both in elements of their types).
type Call = (usize, usize);

/// The buffers of a cuFFT execution: raw addresses (cuFFT takes them) with their element sizes,
/// borrowing the arrays they come from until the execution is queued.
struct Io<'a> {
    inp: u64,
    in_size: usize,
    out: u64,
    out_size: usize,
    _arrays: PhantomData<&'a ()>,
}

impl<'a> Io<'a> {
    /// `inp` transformed into `out`.
    fn new<I, O>(inp: DevPtr<'a, I>, out: DevPtrMut<'a, O>) -> Io<'a> {
        Io {
            inp: inp.addr(),
            in_size: std::mem::size_of::<I>(),
            out: out.addr(),
            out_size: std::mem::size_of::<O>(),
            _arrays: PhantomData,
        }
    }
    /// `buf` transformed in place.
    fn in_place<E>(buf: DevPtrMut<'a, E>) -> Io<'a> {
        let sz = std::mem::size_of::<E>();
        Io {
            inp: buf.addr(),
            in_size: sz,
            out: buf.addr(),
            out_size: sz,
            _arrays: PhantomData,
        }
    }
}

/// Runs the plan `key` on `dev`'s stream for each call: input at `io.inp + off_in·in_size`,
/// output at `io.out + off_out·out_size`. `inverse` picks the direction of complex transforms.
fn execute(
    op: &str,
    dev: &CudaDevice,
    key: PlanKey,
    io: Io<'_>,
    calls: &[Call],
    inverse: bool,
) -> Result<()> {
    libs::require("cufft")?;
    dev.bind()?;
    let cache = plans(dev)?;
    let taken = lock(&cache.cache).take(&key);
    let plan = match taken {
        Some(p) => p,
        None => Plan::new(op, &key)?,
    };
    let res = (|| -> Result<()> {
        let work = Work::new(dev, plan.work)?;
        // SAFETY: live handle and stream (cudarc's two CUstream_st types are the same driver
        // object); the work area holds plan.work bytes and lives until after the calls (its
        // free is queued after them on the same stream).
        unsafe {
            check(
                op,
                cf::cufftSetStream(plan.handle, dev.raw_stream() as cf::cudaStream_t),
            )?;
            if plan.work > 0 {
                check(
                    op,
                    cf::cufftSetWorkArea(plan.handle, work.ptr as *mut std::ffi::c_void),
                )?;
            }
        }
        let dir = if inverse { 1 } else { -1 };
        for &(oi, oo) in calls {
            let i = io.inp + (oi * io.in_size) as u64;
            let o = io.out + (oo * io.out_size) as u64;
            // SAFETY: the callers size the buffers for the plan's layout at these offsets.
            let r = unsafe {
                match key.ty {
                    x if x == cf::cufftType::CUFFT_C2C as u32 => {
                        cf::cufftExecC2C(plan.handle, i as *mut _, o as *mut _, dir)
                    }
                    x if x == cf::cufftType::CUFFT_Z2Z as u32 => {
                        cf::cufftExecZ2Z(plan.handle, i as *mut _, o as *mut _, dir)
                    }
                    x if x == cf::cufftType::CUFFT_R2C as u32 => {
                        cf::cufftExecR2C(plan.handle, i as *mut _, o as *mut _)
                    }
                    x if x == cf::cufftType::CUFFT_D2Z as u32 => {
                        cf::cufftExecD2Z(plan.handle, i as *mut _, o as *mut _)
                    }
                    x if x == cf::cufftType::CUFFT_C2R as u32 => {
                        cf::cufftExecC2R(plan.handle, i as *mut _, o as *mut _)
                    }
                    _ => cf::cufftExecZ2D(plan.handle, i as *mut _, o as *mut _),
                }
            };
            check(op, r)?;
        }
        Ok(())
    })();
    let work = plan.work;
    let dropped = lock(&cache.cache).put(key, plan, work);
    drop(dropped);
    res
}

fn cufft_type(kind: Kind, double: bool) -> u32 {
    (match (kind, double) {
        (Kind::C2c, false) => cf::cufftType::CUFFT_C2C,
        (Kind::C2c, true) => cf::cufftType::CUFFT_Z2Z,
        (Kind::R2c, false) => cf::cufftType::CUFFT_R2C,
        (Kind::R2c, true) => cf::cufftType::CUFFT_D2Z,
        (Kind::C2r, false) => cf::cufftType::CUFFT_C2R,
        (Kind::C2r, true) => cf::cufftType::CUFFT_Z2D,
    }) as u32
}

/// The plan key and the calls of a 1-D transform of `n` points along the middle axis of
/// `(outer, len_in, inner)` into `(outer, len_out, inner)` (see the module documentation).
fn axis_layout(
    kind: Kind,
    double: bool,
    n: usize,
    outer: usize,
    len_in: usize,
    len_out: usize,
    inner: usize,
) -> (PlanKey, Vec<Call>) {
    let ty = cufft_type(kind, double);
    let (n64, li, lo, inr) = (n as i64, len_in as i64, len_out as i64, inner as i64);
    if inner == 1 {
        let key = PlanKey {
            ty,
            n: vec![n64],
            layout: Some((vec![li], 1, li, vec![lo], 1, lo)),
            batch: outer as i64,
        };
        return (key, vec![(0, 0)]);
    }
    // real transforms: cuFFT rejects (CUFFT_INVALID_VALUE) real or complex pointers that are not
    // aligned to the complex element, so the per-inner-index offsets of the other layout are out
    if outer <= inner || kind != Kind::C2c {
        // batch over the inner lanes, one call per outer index
        let key = PlanKey {
            ty,
            n: vec![n64],
            layout: Some((vec![li], inr, 1, vec![lo], inr, 1)),
            batch: inr,
        };
        let calls = (0..outer)
            .map(|o| (o * len_in * inner, o * len_out * inner))
            .collect();
        (key, calls)
    } else {
        // batch over the outer lanes, one call per inner index
        let key = PlanKey {
            ty,
            n: vec![n64],
            layout: Some((vec![li], inr, li * inr, vec![lo], inr, lo * inr)),
            batch: outer as i64,
        };
        let calls = (0..inner).map(|i| (i, i)).collect();
        (key, calls)
    }
}

// ---------- kernels ----------

fn function(dev: &CudaDevice, name: &str) -> Result<Function> {
    FFT_KERNELS.function(dev, &Spec::default(), name)
}

/// The grid of every kernel here: grid-stride loops, 256 threads, at most 8 blocks per SM.
fn grid(dev: &CudaDevice, total: usize) -> LaunchConfig {
    dev.grid_stride(total, 256, 8)
}

/// (product before `axis`, length of `axis`, product after).
fn split(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    (
        shape[..axis].iter().product(),
        shape[axis],
        shape[axis + 1..].iter().product(),
    )
}

/// A new C-contiguous array of `shape` on `x`'s device, every element of which the caller
/// writes completely: [`Array::empty`], no fill pass.
fn alloc_out<T: Element>(shape: &[usize], dev: &Device) -> Result<Array<T>> {
    Array::empty(shape, dev)
}

/// The kernel-name suffix of an element type (`f32`, `f64`, `c32`, `c64`).
fn sfx(d: DType) -> &'static str {
    match d {
        DType::F32 => "f32",
        DType::F64 => "f64",
        DType::C32 => "c32",
        _ => "c64",
    }
}

/// `x` (contiguous) cut or zero-padded to `n` points along `axis`, into a new array, each value
/// multiplied by `post.scale` and (complex) conjugated when `post.conj`: the normalisation of
/// the transform that follows, folded into the copy.
fn resize<E: Element>(
    d: &CudaDevice,
    x: &Array<E>,
    axis: usize,
    n: usize,
    post: Post,
) -> Result<Array<E>> {
    let (outer, m, inner) = split(x.shape(), axis);
    let mut shape = x.shape().to_vec();
    shape[axis] = n;
    let mut out = alloc_out::<E>(&shape, x.device())?;
    let total = outer * n * inner;
    if total == 0 {
        return Ok(out);
    }
    let f = function(d, &format!("fft_resize_{}", sfx(E::DTYPE)))?;
    d.launch(&f, grid(d, total))
        .arg(x.dev_ptr()?)
        .arg(out.dev_ptr_mut()?)
        .arg(i64_of("fft", outer)?)
        .arg(i64_of("fft", m)?)
        .arg(i64_of("fft", n)?)
        .arg(i64_of("fft", inner)?)
        .arg(post.scale)
        .arg(post.conj as i32)
        .run()?;
    Ok(out)
}

/// `post` applied in place to the fresh contiguous array `x` (one vectorised pass; nothing when
/// `post` is the identity): the normalisation of a transform no copy ran before.
fn post_inplace<E: Element>(d: &CudaDevice, x: &mut Array<E>, post: Post) -> Result<()> {
    if post.is_identity() || x.size() == 0 {
        return Ok(());
    }
    let (name, reals) = match E::DTYPE {
        DType::F32 => ("fft_scale_f32", x.size()),
        DType::F64 => ("fft_scale_f64", x.size()),
        DType::C32 => ("fft_scale_f32", 2 * x.size()),
        _ => ("fft_scale_f64", 2 * x.size()),
    };
    // the conjugation only concerns complex arrays (odd reals are the imaginary parts)
    let conj = post.conj && E::DTYPE.is_complex();
    let width = if matches!(E::DTYPE, DType::F32 | DType::C32) {
        4
    } else {
        2
    };
    let f = function(d, name)?;
    // the kernel reads a complex array as its `reals` real and imaginary parts
    d.launch(&f, grid(d, reals.div_ceil(width)))
        .arg(x.dev_ptr_mut()?)
        .arg(i64_of("fft", reals)?)
        .arg(post.scale)
        .arg(conj as i32)
        .run()
}

/// The plan key of a 1-D transform of `kind` of `n` points along `axis` of a contiguous array
/// of `shape` (input side), as the transforms below make it; `None` when there are no lanes.
fn axis_key(kind: Kind, double: bool, shape: &[usize], axis: usize, n: usize) -> Option<PlanKey> {
    let (mut outer, _, mut inner) = split(shape, axis);
    if outer * inner == 0 {
        return None;
    }
    let (li, lo) = match kind {
        Kind::C2c => (n, n),
        Kind::R2c => (n, n / 2 + 1),
        Kind::C2r => (n / 2 + 1, n),
    };
    if kind != Kind::C2c && !real_offsets_aligned(outer, li, lo, inner) {
        // the transform runs on a copy with the axis moved last (see `r2c_axis`)
        (outer, inner) = (outer * inner, 1);
    }
    Some(axis_layout(kind, double, n, outer, li, lo, inner).0)
}

/// True when every call of a real transform's layout (one per outer index, at offsets
/// `o·len·inner`) starts at an even element offset on both sides, i.e. aligned to the complex
/// element as cuFFT requires; otherwise the transform runs with the axis moved last.
fn real_offsets_aligned(outer: usize, li: usize, lo: usize, inner: usize) -> bool {
    inner == 1 || outer == 1 || ((li * inner) % 2 == 0 && (lo * inner) % 2 == 0)
}

/// Makes (and caches) every cuFFT plan the transform of `kind` over `plan` ((axis, length)
/// pairs) of an array of `shape` will run, in the order `basic.rs` runs them, so that its first
/// call finds them ([`crate::FftPlan`]).
pub(crate) fn prepare(
    dev: &CudaDevice,
    kind: Kind,
    double: bool,
    shape: &[usize],
    plan: &[(usize, usize)],
) -> Result<()> {
    let mut keys = Vec::new();
    let mut shape = shape.to_vec();
    let size: usize = shape.iter().product();
    let trailing = kind != Kind::C2r && trailing_fits(&shape, plan);
    if trailing {
        let key = trailing_key(kind, double, plan, size);
        if key.batch > 0 {
            keys.push(key);
        }
    } else if let Some((&(last, nl), rest)) = plan.split_last() {
        match kind {
            Kind::C2c => {
                for &(a, n) in plan.iter().rev() {
                    keys.extend(axis_key(Kind::C2c, double, &shape, a, n));
                    shape[a] = n;
                }
            }
            Kind::R2c => {
                keys.extend(axis_key(Kind::R2c, double, &shape, last, nl));
                shape[last] = nl / 2 + 1;
                for &(a, n) in rest.iter().rev() {
                    keys.extend(axis_key(Kind::C2c, double, &shape, a, n));
                    shape[a] = n;
                }
            }
            Kind::C2r => {
                for &(a, n) in rest {
                    keys.extend(axis_key(Kind::C2c, double, &shape, a, n));
                    shape[a] = n;
                }
                keys.extend(axis_key(Kind::C2r, double, &shape, last, nl));
            }
        }
    }
    if keys.is_empty() {
        return Ok(());
    }
    libs::require("cufft")?;
    dev.bind()?;
    let cache = plans(dev)?;
    for key in keys {
        let have = lock(&cache.cache).take(&key);
        let plan = match have {
            Some(p) => p,
            None => Plan::new("get_fft_plan", &key)?,
        };
        let work = plan.work;
        let dropped = lock(&cache.cache).put(key, plan, work);
        drop(dropped);
    }
    Ok(())
}

// ---------- transforms along one axis ----------

/// Complex transform of `n` points along `axis` (input cut or zero-padded), `post` applied to
/// the result: folded into the cut/pad copy when there is one (a conjugated output is the
/// transform of the other direction of the conjugated input), else one in-place pass.
pub(crate) fn c2c_axis<C: FftComplex>(
    d: &CudaDevice,
    x: &Array<C>,
    axis: usize,
    n: usize,
    forward: bool,
    post: Post,
) -> Result<Array<C>> {
    let xc = x.contiguous()?;
    let (outer, m, inner) = split(xc.shape(), axis);
    let double = C::DTYPE == DType::C64;
    if m != n {
        // a fresh buffer (cut / padded, `post` applied) transformed in place
        let mut r = resize(d, &xc, axis, n, post)?;
        if outer * inner == 0 {
            return Ok(r);
        }
        let (key, calls) = axis_layout(Kind::C2c, double, n, outer, n, n, inner);
        let io = Io::in_place(r.dev_ptr_mut()?);
        execute("fft", d, key, io, &calls, forward == post.conj)?;
        return Ok(r);
    }
    let mut out = alloc_out::<C>(xc.shape(), x.device())?;
    if outer * inner == 0 {
        return Ok(out);
    }
    let (key, calls) = axis_layout(Kind::C2c, double, n, outer, n, n, inner);
    let io = Io::new(xc.dev_ptr()?, out.dev_ptr_mut()?);
    execute("fft", d, key, io, &calls, !forward)?;
    post_inplace(d, &mut out, post)?;
    Ok(out)
}

/// Real-to-complex transform of `n` points along `axis` (`n/2+1` outputs), `post` applied to
/// the result (the scale folded into the cut/pad copy when there is one).
pub(crate) fn r2c_axis<T: FftReal>(
    d: &CudaDevice,
    x: &Array<T>,
    axis: usize,
    n: usize,
    post: Post,
) -> Result<Array<T::Complex>> {
    let mut xc = x.contiguous()?;
    let mut pending = post;
    if xc.shape()[axis] != n {
        xc = resize(d, &xc, axis, n, post)?;
        pending = Post {
            scale: 1.0,
            conj: post.conj,
        };
    }
    let (outer, _, inner) = split(xc.shape(), axis);
    let h = n / 2 + 1;
    if !real_offsets_aligned(outer, n, h, inner) {
        let last = xc.ndim() as isize - 1;
        let moved = xc.swapaxes(axis as isize, last)?;
        let y = r2c_axis(d, &moved, last as usize, n, pending)?;
        return y.swapaxes(axis as isize, last)?.contiguous();
    }
    let mut shape = xc.shape().to_vec();
    shape[axis] = h;
    let mut out = alloc_out::<T::Complex>(&shape, x.device())?;
    if outer * inner == 0 {
        return Ok(out);
    }
    let (key, calls) = axis_layout(Kind::R2c, T::DTYPE == DType::F64, n, outer, n, h, inner);
    let io = Io::new(xc.dev_ptr()?, out.dev_ptr_mut()?);
    execute("rfft", d, key, io, &calls, false)?;
    post_inplace(d, &mut out, pending)?;
    Ok(out)
}

/// Complex-to-real transform with `n` real outputs along `axis` (input cut or zero-padded to
/// `n/2+1` points, copied first since C2R overwrites its input; the imaginary parts of the
/// zero-frequency and, for even `n`, Nyquist terms dropped as on the CPU). `post` applies to
/// the *input* in that copy (scale: the same as on the output; `conj`: the input conjugated,
/// as `hfft` needs), so it costs nothing.
pub(crate) fn c2r_axis<C: FftComplex>(
    d: &CudaDevice,
    x: &Array<C>,
    axis: usize,
    n: usize,
    post: Post,
) -> Result<Array<C::Real>> {
    let xc = x.contiguous()?;
    let (outer, m, inner) = split(xc.shape(), axis);
    let h = n / 2 + 1;
    if !real_offsets_aligned(outer, h, n, inner) {
        let last = xc.ndim() as isize - 1;
        let moved = xc.swapaxes(axis as isize, last)?;
        let y = c2r_axis(d, &moved, last as usize, n, post)?;
        return y.swapaxes(axis as isize, last)?.contiguous();
    }
    let mut hshape = xc.shape().to_vec();
    hshape[axis] = h;
    let mut tmp = alloc_out::<C>(&hshape, x.device())?;
    let mut oshape = xc.shape().to_vec();
    oshape[axis] = n;
    let mut out = alloc_out::<C::Real>(&oshape, x.device())?;
    let lanes = outer * inner;
    if lanes == 0 {
        return Ok(out);
    }
    let double = C::DTYPE == DType::C64;
    let f = function(
        d,
        if double {
            "fft_c2r_prep_c64"
        } else {
            "fft_c2r_prep_c32"
        },
    )?;
    d.launch(&f, grid(d, lanes * h))
        .arg(xc.dev_ptr()?)
        .arg(tmp.dev_ptr_mut()?)
        .arg(i64_of("fft", outer)?)
        .arg(i64_of("fft", m)?)
        .arg(i64_of("fft", n)?)
        .arg(i64_of("fft", inner)?)
        .arg(post.scale)
        .arg(post.conj as i32)
        .run()?;
    let (key, calls) = axis_layout(Kind::C2r, double, n, outer, h, n, inner);
    // (cuFFT's C2R overwrites its input: tmp is this call's own copy)
    let io = Io::new(tmp.dev_ptr()?, out.dev_ptr_mut()?);
    execute("irfft", d, key, io, &calls, true)?;
    Ok(out)
}

// ---------- transforms over trailing axes (one rank-2/3 plan) ----------

/// True when `plan` (axis, length) pairs are the last `k` axes of `shape` in order, 2 ≤ k ≤ 3,
/// with no cut or padding (`last_out`: for r2c, the last length is the real length).
pub(crate) fn trailing_fits(shape: &[usize], plan: &[(usize, usize)]) -> bool {
    let k = plan.len();
    let nd = shape.len();
    (2..=3).contains(&k)
        && k <= nd
        && plan
            .iter()
            .enumerate()
            .all(|(i, &(a, n))| a == nd - k + i && shape[a] == n && n > 0)
}

/// The plan key of a rank-k transform over the trailing axes of `plan` of a contiguous array of
/// `size` elements (input side: for r2c, the real lengths).
fn trailing_key(kind: Kind, double: bool, plan: &[(usize, usize)], size: usize) -> PlanKey {
    let per: usize = plan.iter().map(|&(_, n)| n).product();
    PlanKey {
        ty: cufft_type(kind, double),
        n: plan.iter().map(|&(_, n)| n as i64).collect(),
        layout: None,
        batch: (size / per.max(1)) as i64,
    }
}

/// Complex transform over the trailing axes of `plan` (see [`trailing_fits`]), `post` applied
/// to the result in one in-place pass.
pub(crate) fn c2c_trailing<C: FftComplex>(
    d: &CudaDevice,
    x: &Array<C>,
    plan: &[(usize, usize)],
    forward: bool,
    post: Post,
) -> Result<Array<C>> {
    let xc = x.contiguous()?;
    let mut out = alloc_out::<C>(xc.shape(), x.device())?;
    let key = trailing_key(Kind::C2c, C::DTYPE == DType::C64, plan, xc.size());
    if key.batch == 0 {
        return Ok(out);
    }
    let io = Io::new(xc.dev_ptr()?, out.dev_ptr_mut()?);
    execute("fftn", d, key, io, &[(0, 0)], !forward)?;
    post_inplace(d, &mut out, post)?;
    Ok(out)
}

/// Real-to-complex transform over the trailing axes of `plan` (the last one holds `n/2+1`
/// outputs), `post` applied to the result in one in-place pass.
pub(crate) fn r2c_trailing<T: FftReal>(
    d: &CudaDevice,
    x: &Array<T>,
    plan: &[(usize, usize)],
    post: Post,
) -> Result<Array<T::Complex>> {
    let xc = x.contiguous()?;
    let mut shape = xc.shape().to_vec();
    let nd = shape.len();
    shape[nd - 1] = shape[nd - 1] / 2 + 1;
    let mut out = alloc_out::<T::Complex>(&shape, x.device())?;
    let key = trailing_key(Kind::R2c, T::DTYPE == DType::F64, plan, xc.size());
    if key.batch == 0 {
        return Ok(out);
    }
    let io = Io::new(xc.dev_ptr()?, out.dev_ptr_mut()?);
    execute("rfftn", d, key, io, &[(0, 0)], false)?;
    post_inplace(d, &mut out, post)?;
    Ok(out)
}

// ---------- fftshift ----------

/// The shape argument of the roll kernel (`CusciShape`: at most 8 dimensions).
#[repr(C)]
#[derive(Clone, Copy)]
struct RollShape {
    n: i64,
    ndim: i32,
    dims: [i64; 8],
}

/// The shifts argument of the roll kernel (`CusciStrides`).
#[repr(C)]
#[derive(Clone, Copy)]
struct RollShifts {
    s: [i64; 8],
}

// SAFETY: plain integers laid out as the kernels' `CusciShape` (i64, int, padding, i64[8]).
unsafe impl KernelParam for RollShape {}
// SAFETY: plain integers laid out as the kernels' `CusciStrides` (i64[8]).
unsafe impl KernelParam for RollShifts {}

/// `x` rolled by `shift[d]` along each dimension (`out[j] = x[(j + shift) mod len]`).
pub(crate) fn roll<T: Element>(d: &CudaDevice, x: &Array<T>, shift: &[usize]) -> Result<Array<T>> {
    let xc = x.contiguous()?;
    let shape = xc.shape().to_vec();
    let mut out = alloc_out::<T>(&shape, x.device())?;
    let total = xc.size();
    if total == 0 || shape.is_empty() {
        return if shape.is_empty() { xc.copy() } else { Ok(out) };
    }
    // coalesce: drop dimensions of length 1 (their shift is 0); at most 8 remain or fail
    let dims: Vec<(usize, usize)> = shape
        .iter()
        .zip(shift)
        .filter(|(&l, _)| l != 1)
        .map(|(&l, &s)| (l, s))
        .collect();
    if dims.len() > 8 {
        return Err(cusci_core::error::make::arg(
            "fftshift",
            format!(
                "arrays of more than 8 dimensions longer than 1 are not supported on CUDA (shape {shape:?})"
            ),
        ));
    }
    let mut s = RollShape {
        n: i64_of("fftshift", total)?,
        ndim: i32_of("fftshift", dims.len())?,
        dims: [1; 8],
    };
    let mut sh = RollShifts { s: [0; 8] };
    for (i, &(l, k)) in dims.iter().enumerate() {
        s.dims[i] = i64_of("fftshift", l)?;
        sh.s[i] = i64_of("fftshift", k)?;
    }
    let name = match std::mem::size_of::<T>() {
        1 => "fft_roll_b1",
        4 => "fft_roll_b4",
        8 => "fft_roll_b8",
        16 => "fft_roll_b16",
        _ => return Err(cusci_core::error::make::dtype("fftshift", T::DTYPE)),
    };
    let f = function(d, name)?;
    d.launch(&f, grid(d, total))
        .arg(xc.dev_ptr()?)
        .arg(out.dev_ptr_mut()?)
        .arg(s)
        .arg(sh)
        .run()?;
    Ok(out)
}

// ---------- DCT / DST ----------

/// The parameters of one real-to-real transform (the kernels' `R2rParams`).
#[repr(C)]
#[derive(Clone, Copy)]
struct R2rParams {
    outer: i64,
    m: i64,
    n: i64,
    inner: i64,
    big_m: i64,
    kind: i32,
    cosine: i32,
    ortho: i32,
    fct: f64,
}

// SAFETY: plain numbers laid out as the kernels' `R2rParams` (5 × i64, 3 × int, padding, double).
unsafe impl KernelParam for R2rParams {}

/// The normalised real-to-real transform `t` of `n` points along `axis`, through one batched
/// complex FFT of length `big_m` of the extended lanes (as the CPU reference).
pub(crate) fn r2r_axis<T: FftReal>(
    d: &CudaDevice,
    x: &Array<T>,
    axis: usize,
    n: usize,
    t: R2r,
    big_m: usize,
) -> Result<Array<T>> {
    let xc = x.contiguous()?;
    let (outer, m, inner) = split(xc.shape(), axis);
    let mut shape = xc.shape().to_vec();
    shape[axis] = n;
    let mut out = alloc_out::<T>(&shape, x.device())?;
    let lanes = outer * inner;
    if lanes == 0 {
        return Ok(out);
    }
    let mut buf = alloc_out::<T::Complex>(&[lanes, big_m], x.device())?;
    let p = R2rParams {
        outer: i64_of("dct", outer)?,
        m: i64_of("dct", m)?,
        n: i64_of("dct", n)?,
        inner: i64_of("dct", inner)?,
        big_m: i64_of("dct", big_m)?,
        kind: t.kind.number() as i32,
        cosine: t.cosine as i32,
        ortho: t.ortho as i32,
        fct: t.fct,
    };
    let double = T::DTYPE == DType::F64;
    let sfx = if double { "f64" } else { "f32" };
    let pre = function(d, &format!("fft_r2r_pre_{sfx}"))?;
    d.launch(&pre, grid(d, lanes * big_m))
        .arg(xc.dev_ptr()?)
        .arg(buf.dev_ptr_mut()?)
        .arg(p)
        .run()?;
    let (key, calls) = axis_layout(Kind::C2c, double, big_m, lanes, big_m, big_m, 1);
    execute(
        "dct",
        d,
        key,
        Io::in_place(buf.dev_ptr_mut()?),
        &calls,
        false,
    )?;
    let post = function(d, &format!("fft_r2r_post_{sfx}"))?;
    d.launch(&post, grid(d, lanes * n))
        .arg(xc.dev_ptr()?)
        .arg(buf.dev_ptr()?)
        .arg(out.dev_ptr_mut()?)
        .arg(p)
        .run()?;
    Ok(out)
}
