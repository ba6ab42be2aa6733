//! The CUDA half of the interpolation: the working input on the device and the transform
//! kernels' launches.

use super::spline::{poles, spline_chunk, spline_init, spline_warm};
use super::{Coords, Plan, Prep, INTERP};
use crate::cuda::{dims8, linear};
use crate::filters::Real;
use cusci_core::cuda::launch::Spec;
use cusci_core::dtype::Element;
use cusci_core::{Array, CudaDevice, DevPtr, Function, KernelParam, Result};

/// The GPU's working input in the working type `W`: the contiguous input itself where nothing is
/// to be done and it has that type already, else a padded, converted and prefiltered copy.
pub(super) enum DevWork<T: Element, W: Element> {
    Input(Array<T>),
    Own(Array<W>),
}

impl<T: Element, W: Element> DevWork<T, W> {
    /// The working data for a kernel that reads it.
    fn ptr(&self) -> Result<DevPtr<'_, W>> {
        match self {
            DevWork::Input(a) => a.dev_ptr()?.cast::<W>(),
            DevWork::Own(a) => a.dev_ptr(),
        }
    }
}

/// The interpolation kernel `name` for element type `T` and working type `W`.
pub(super) fn function<T: Element, W: Element>(d: &CudaDevice, name: &str) -> Result<Function> {
    INTERP.function(d, &Spec::of(&[T::DTYPE, W::DTYPE]), name)
}

/// The GPU's working input of `x` in the working type `W` (`ndi_pad`, then [`spline_cuda`]).
/// Returns it with its shape.
pub(super) fn prepare_cuda<T: Real, W: Element>(
    d: &CudaDevice,
    x: &Array<T>,
    p: &Prep,
) -> Result<(DevWork<T, W>, Vec<usize>)> {
    let shape = p.shape(x.shape());
    let n: usize = shape.iter().product();
    let xc = x.contiguous()?;
    if p.npad == 0 && !p.filter && T::DTYPE == W::DTYPE {
        // the input itself (no conversion copy: it has the working type already)
        return Ok((DevWork::Input(xc), shape));
    }
    let mut w = Array::<W>::empty(&shape, x.device())?;
    if n > 0 {
        let f = function::<T, W>(d, "ndi_pad")?;
        d.launch(&f, linear(n))
            .arg(xc.dev_ptr()?)
            .arg(w.dev_ptr_mut()?)
            .arg(n as i64)
            .arg(shape.len() as i32)
            .arg(dims8("spline prefilter", x.shape())?)
            .arg(dims8("spline prefilter", &shape)?)
            .arg(p.npad as i64)
            .arg(p.nearest as i32)
            .arg(p.cval)
            .run()?;
        if p.filter {
            spline_cuda::<T, W>(d, &mut w, &shape, p)?;
        }
    }
    Ok((DevWork::Own(w), shape))
}

/// The affine map by value (`NdiMat`: irank × orank matrix, the offset, then the output
/// coordinates' shift per output axis; at most 80 values).
#[repr(C)]
#[derive(Clone, Copy)]
struct Mat80([f64; 80]);

// SAFETY: plain data, the layout of interpolation.cu's `struct NdiMat { double m[80]; }`.
unsafe impl KernelParam for Mat80 {}

/// The GPU transform of `x` in the working type `W`: the coordinates from the list (the array
/// itself where it has the working type, else a converted copy) or the affine map (by value).
pub(super) fn transform_cuda<T: Real, W: Element, C: Real>(
    d: &CudaDevice,
    x: &Array<T>,
    coords: &Coords<C>,
    plan: &Plan,
) -> Result<Array<T>> {
    let Plan {
        op,
        oshape,
        ords,
        o,
        ..
    } = *plan;
    let irank = x.ndim();
    let orank = oshape.len();
    let n: usize = oshape.iter().product();
    let (work, ishape) = prepare_cuda::<T, W>(d, x, &plan.prep)?;
    // every element is written
    let mut out = Array::<T>::empty(oshape, x.device())?;
    // the coordinates as they are when they have the working type (no copy), else cast
    let (list, mat): (Option<Array<C>>, [f64; 80]) = match coords {
        Coords::List(c) => (Some(c.contiguous()?), [0.0; 80]),
        Coords::Affine(m) => {
            let mut mm = [0.0f64; 80];
            mm[..m.len()].copy_from_slice(m);
            (None, mm)
        }
    };
    let cast = match &list {
        Some(c) if C::DTYPE != W::DTYPE => Some(c.astype::<W>()?),
        _ => None,
    };
    let cptr = match (&cast, &list) {
        (Some(c), _) => Some(c.dev_ptr()?),
        (None, Some(c)) => Some(c.dev_ptr()?.cast::<W>()?),
        (None, None) => None,
    };
    // the padding shift is a kernel argument; the affine map is passed by value (no upload)
    let cshift = plan.prep.npad as f64;
    let fixed =
        irank <= 3 && ords.iter().all(|&k| k == o.order) && (list.is_some() || orank == irank);
    if fixed {
        let spec = Spec::of(&[T::DTYPE, W::DTYPE]).with(&[irank as i64, o.order as i64]);
        let f = INTERP.function(d, &spec, &format!("ndi_transform_r{irank}o{}", o.order))?;
        d.launch(&f, linear(n))
            .arg(work.ptr()?)
            .arg(out.dev_ptr_mut()?)
            .arg(n as i64)
            .arg(dims8(op, &ishape)?)
            .arg(dims8(op, oshape)?)
            .arg(cptr)
            .arg(cshift)
            .arg(Mat80(mat))
            .arg(o.mode.code())
            .arg(o.cval)
            .run()?;
    } else {
        let f = function::<T, W>(d, "ndi_transform")?;
        d.launch(&f, linear(n))
            .arg(work.ptr()?)
            .arg(out.dev_ptr_mut()?)
            .arg(n as i64)
            .arg(irank as i32)
            .arg(dims8(op, &ishape)?)
            .arg(orank as i32)
            .arg(dims8(op, oshape)?)
            .arg(cptr)
            .arg(cshift)
            .arg(Mat80(mat))
            .arg(dims8(op, ords)?)
            .arg(o.mode.code())
            .arg(o.cval)
            .run()?;
    }
    Ok(out)
}

/// The GPU spline prefilter of `work` (shape `shape`) along `p.axes` in place: per axis and pole
/// a causal pass into a scratch array and an anticausal pass back (chunked lines, see
/// `ndi_spline_causal`).
fn spline_cuda<T: Real, W: Element>(
    d: &CudaDevice,
    work: &mut Array<W>,
    shape: &[usize],
    p: &Prep,
) -> Result<()> {
    let n: usize = shape.iter().product();
    let mut scratch = Array::<W>::empty(shape, work.device())?;
    let poles = poles(p.order);
    let gain: f64 = poles.iter().map(|&z| (1.0 - z) * (1.0 - 1.0 / z)).product();
    let causal = function::<T, W>(d, "ndi_spline_causal")?;
    let anti = function::<T, W>(d, "ndi_spline_anticausal")?;
    let ch = spline_chunk(n);
    for &ax in p.axes {
        let len = shape[ax];
        if len <= 1 {
            continue;
        }
        let inner: usize = shape[ax + 1..].iter().product();
        let outer = n / (len * inner);
        let threads = outer * len.div_ceil(ch) * inner;
        let lc = linear(threads);
        for (k, &z) in poles.iter().enumerate() {
            let warm = spline_warm(z);
            let g = if k == 0 { gain } else { 1.0 };
            d.launch(&causal, lc)
                .arg(work.dev_ptr()?)
                .arg(scratch.dev_ptr_mut()?)
                .arg(outer as i64)
                .arg(len as i64)
                .arg(inner as i64)
                .arg(ch as i32)
                .arg(warm as i32)
                .arg(z)
                .arg(g)
                .arg(spline_init(p.mode))
                .run()?;
            d.launch(&anti, lc)
                .arg(scratch.dev_ptr()?)
                .arg(work.dev_ptr_mut()?)
                .arg(outer as i64)
                .arg(len as i64)
                .arg(inner as i64)
                .arg(ch as i32)
                .arg(warm as i32)
                .arg(z)
                .arg(spline_init(p.mode))
                .run()?;
        }
    }
    Ok(())
}
