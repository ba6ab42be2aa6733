//! `scipy.ndimage` interpolation: B-spline prefilters and geometric transforms
//! (`map_coordinates`, `affine_transform`, `shift`, `zoom`, `rotate`), spline orders 0–5, every
//! boundary mode.
//!
//! Each output element is interpolated independently from the (prefiltered) input: one kernel
//! launch on a CUDA device (64-bit indices, shapes as arguments), rayon over elements on the CPU.
//! Coordinates are computed in f64 on both devices. Integer outputs are rounded half away from
//! zero (as SciPy). Memory: the output plus, for orders ≥ 2 with `prefilter`, one prefiltered copy
//! of the input (padded by 12 on each side for `nearest` and `grid-constant`, as SciPy; the
//! `grid-constant` padding holds `cval` stored in the input's type, as SciPy's `np.pad`).
//!
//! SciPy's `output=` dtype: [`output`] (`*_as::<In, Out>`, computed in f64, stored with SciPy's
//! rounding and clamping rules).

use crate::filters::Real;
use crate::modes::{Mode, MODES_CUH};
use cpu::prepare_cpu;
use cuda::{prepare_cuda, DevWork};
use cusci_core::array::layout::{checked_shape, norm_axis};
use cusci_core::cuda::launch::{KernelModule, Spec};
use cusci_core::dtype::DType;
use cusci_core::error::make;
use cusci_core::{Array, Backend, Device, Result};

mod cpu;
mod cuda;
mod geometric;
pub mod output;
mod spline;
mod transforms;

use cpu::transform_cpu;
use cuda::transform_cuda;

pub(crate) use geometric::GEOMAP;
pub use geometric::{geometric_transform, MapFn, Mapping};
pub use transforms::{affine_transform, map_coordinates, rotate, shift, zoom, Matrix};

/// Options of the geometric transforms (SciPy's `order`, `mode`, `cval`, `prefilter`).
#[derive(Debug, Clone, Copy)]
pub struct InterpOptions {
    /// Spline order, 0–5 (default 3).
    pub order: usize,
    /// Boundary mode (default `Constant`).
    pub mode: Mode,
    pub cval: f64,
    /// Apply the spline prefilter for orders ≥ 2 (default true; false when the input already
    /// holds spline coefficients).
    pub prefilter: bool,
}

impl Default for InterpOptions {
    fn default() -> Self {
        InterpOptions {
            order: 3,
            mode: Mode::Constant,
            cval: 0.0,
            prefilter: true,
        }
    }
}

/// The interpolation kernels (`interp.cuh`, `interpolation.cu`) for element type `T` and
/// working type `W`: `Spec::of(&[T, W])`; with `.with(&[rank, order])` also the transform kernel
/// `ndi_transform_r{rank}o{order}` (an input of rank 1–3, one spline order on every axis).
pub(crate) static INTERP: KernelModule = KernelModule {
    name: "ndimage_interp",
    source: |spec| {
        let (t, w) = (spec.dtype(0)?, spec.dtype(1)?);
        let round = if t.is_integer() {
            "#define NDI_ROUND\n"
        } else {
            ""
        };
        let mut s = format!(
            "#define T {}\n#define W {}\n{round}{MODES_CUH}\n{}\n{}",
            t.cuda_name(),
            w.cuda_name(),
            include_str!("interp.cuh"),
            include_str!("interpolation.cu")
        );
        if !spec.ints.is_empty() {
            let (rank, order) = (spec.int(0)?, spec.int(1)?);
            s += &format!("\nNDI_TRANSFORM_FIXED({rank}, {order})\n");
        }
        Ok(s)
    },
    options: &[],
    samples: || {
        let reals = [DType::F32, DType::F64, DType::I32, DType::I64, DType::U8];
        let mut v: Vec<Spec> = reals
            .into_iter()
            .flat_map(|t| [DType::F32, DType::F64].map(|w| Spec::of(&[t, w])))
            .collect();
        // every rank and order for f32 (the benchmarked type); other type pairs on a few
        for r in 1..=3 {
            for o in 0..=5 {
                v.push(Spec::of(&[DType::F32, DType::F32]).with(&[r, o]));
            }
        }
        v.push(Spec::of(&[DType::F64, DType::F64]).with(&[2, 3]));
        v.push(Spec::of(&[DType::U8, DType::F64]).with(&[1, 5]));
        v.push(Spec::of(&[DType::I32, DType::F64]).with(&[3, 1]));
        v
    },
};

// ---------------------------------------------------------------- the working input

/// How a transform prepares its input (SciPy's `_prepad_for_spline_filter` and `spline_filter`):
/// `npad` elements of padding on each side (edge values when `nearest`, else `cval`), then the
/// spline prefilter of `order` in `mode` along `axes` when `filter`.
#[derive(Clone, Copy)]
struct Prep<'a> {
    npad: usize,
    cval: f64,
    nearest: bool,
    order: usize,
    mode: Mode,
    filter: bool,
    axes: &'a [usize],
}

impl Prep<'_> {
    /// The shape of the padded input.
    fn shape(&self, ishape: &[usize]) -> Vec<usize> {
        ishape.iter().map(|&s| s + 2 * self.npad).collect()
    }
}

/// How output elements find their input coordinates.
enum Coords<'a, C: Real> {
    /// `coordinates[d, i]`: an array whose leading axis is the input's rank, on the input's
    /// device (read as f64 on the CPU, in the working type on the GPU).
    List(&'a Array<C>),
    /// `c = offset + M · (o + h)`: M row-major irank × orank, then the offset (irank values),
    /// then `h` (orank values: 0, or ½ for `zoom`'s grid mode, SciPy's `(o + ½) · z − ½`). Each
    /// product rounded, then added in axis order (no fused multiply-add), on both devices.
    Affine(Vec<f64>),
}

/// `InvalidArgument` unless `lo <= order <= 5` (SciPy's "spline order not supported").
pub(crate) fn check_order(op: &str, order: usize, lo: usize) -> Result<()> {
    if order < lo || order > 5 {
        return Err(make::arg(
            op,
            format!("spline order must be {lo} to 5, got {order}"),
        ));
    }
    Ok(())
}

/// The common body of every geometric transform.
fn transform<T: Real, C: Real>(
    op: &str,
    x: &Array<T>,
    oshape: &[usize],
    coords: Coords<C>,
    o: &InterpOptions,
    pad: Option<f64>,
) -> Result<Array<T>> {
    let ords = vec![o.order; x.ndim()];
    transform_axes(op, x, oshape, coords, o, &ords, pad)
}

/// `cval` as NumPy stores it into an array of `dtype` (`np.pad(input, ..., constant_values=cval)`
/// in SciPy's `_prepad_for_spline_filter`): f32 rounded, integers by the C casts of
/// [`crate::filters`] ("Output types") (u8 wraps through i32), bool `cval != 0`.
fn pad_value(cval: f64, dtype: DType) -> f64 {
    use crate::filters::store::{t32, t64};
    match dtype {
        DType::F32 => cval as f32 as f64,
        DType::I32 => t32(cval) as f64,
        DType::I64 => t64(cval) as f64,
        DType::U8 => t32(cval) as u8 as f64,
        DType::Bool => (cval != 0.0) as u8 as f64,
        _ => cval,
    }
}

/// A transform's plan: the output shape, the spline order per input axis, the options, and the
/// input's preparation.
struct Plan<'a> {
    op: &'a str,
    oshape: &'a [usize],
    ords: &'a [usize],
    o: &'a InterpOptions,
    prep: Prep<'a>,
}

/// [`transform`] with a spline order per input axis (0 on the axes a rotation leaves alone,
/// which are then neither prefiltered nor interpolated, as SciPy rotates plane by plane).
/// `pad`: the value of the 12-element padding of `grid-constant` before the prefilter (SciPy pads
/// in the input's type; default `cval` stored in `T`).
fn transform_axes<T: Real, C: Real>(
    op: &str,
    x: &Array<T>,
    oshape: &[usize],
    coords: Coords<C>,
    o: &InterpOptions,
    ords: &[usize],
    pad: Option<f64>,
) -> Result<Array<T>> {
    check_order(op, o.order, 0)?;
    let irank = x.ndim();
    if irank == 0 || oshape.is_empty() {
        // SciPy: RuntimeError('input and output rank must be > 0')
        return Err(make::arg(op, "input and output rank must be > 0"));
    }
    if irank > 8 || oshape.len() > 8 {
        return Err(make::arg(op, "the input must have 1 to 8 dimensions"));
    }
    // the output's size checked here, for both devices: a shape past isize::MAX bytes is
    // InvalidArgument (SciPy: "array is too big"), not a wrapped product; its allocation (host or
    // device) then reports OutOfMemory (SciPy: MemoryError)
    let n = checked_shape(op, oshape, std::mem::size_of::<T>())?;
    if x.size() == 0 && n > 0 {
        // SciPy fills with cval in the constant modes; in the others it reads outside the empty
        // input (undefined values) or raises
        if !matches!(o.mode, Mode::Constant | Mode::GridConstant) {
            return Err(make::arg(
                op,
                "cannot interpolate an empty input in a mode other than constant",
            ));
        }
        let v = if T::DTYPE.is_integer() {
            if o.cval < 0.0 {
                o.cval - 0.5
            } else {
                o.cval + 0.5
            }
        } else {
            o.cval
        };
        return Array::from_vec(vec![T::from_f(v); n], oshape, &Device::Cpu)?.to_device(x.device());
    }
    let filter = o.prefilter && o.order > 1;
    // SciPy pads by 12 for mode nearest with the prefilter; padded with its edge values, the
    // input also serves without the prefilter (the stencil's clamped indices read the same
    // values), so it is padded for orders above 1 either way
    let npad =
        if (filter && o.mode == Mode::GridConstant) || (o.mode == Mode::Nearest && o.order > 1) {
            12
        } else {
            0
        };
    let axes: Vec<usize> = (0..irank).filter(|&a| ords[a] > 1).collect();
    if n == 0 {
        return Array::<T>::zeros(oshape, x.device());
    }
    let plan = Plan {
        op,
        oshape,
        ords,
        o,
        prep: Prep {
            npad,
            cval: pad.unwrap_or_else(|| pad_value(o.cval, T::DTYPE)),
            nearest: o.mode == Mode::Nearest,
            order: o.order,
            mode: o.mode,
            filter,
            axes: &axes,
        },
    };
    match x.backend() {
        Backend::Host(h) => {
            let xv: Vec<f64> = h.try_to_contiguous()?.iter().map(|v| v.to_f()).collect();
            let list: Option<Vec<f64>> = match coords {
                Coords::List(c) => Some(c.to_vec()?.into_iter().map(Real::to_f).collect()),
                Coords::Affine(_) => None,
            };
            let m = match &coords {
                Coords::Affine(m) => Some(&m[..]),
                Coords::List(_) => None,
            };
            transform_cpu::<T>(xv, x.shape(), list.as_deref(), m, &plan)
        }
        Backend::Cuda(c) => transform_cuda::<T, T::W, C>(c.dev(), x, &coords, &plan),
    }
}

// ---------------------------------------------------------------- spline prefilters

fn spline_out<T: Real>(
    op: &str,
    x: &Array<T>,
    order: usize,
    axes: &[usize],
    mode: Mode,
) -> Result<Array<f64>> {
    if !(2..=5).contains(&order) {
        check_order(op, order, 0)?;
        return x.astype::<f64>();
    }
    if x.size() == 0 {
        return x.astype::<f64>();
    }
    let prep = Prep {
        npad: 0,
        cval: 0.0,
        nearest: false,
        order,
        mode,
        filter: true,
        axes,
    };
    match x.backend() {
        Backend::Host(h) => {
            let xv: Vec<f64> = h.try_to_contiguous()?.iter().map(|v| v.to_f()).collect();
            let (v, shape) = prepare_cpu(xv, x.shape(), &prep);
            Array::from_vec(v, &shape, &Device::Cpu)
        }
        Backend::Cuda(c) => match prepare_cuda::<T, f64>(c.dev(), x, &prep)?.0 {
            DevWork::Own(a) => Ok(a),
            DevWork::Input(_) => x.astype::<f64>(),
        },
    }
}

/// One-dimensional B-spline prefilter along `axis` (`scipy.ndimage.spline_filter1d`): the
/// coefficients whose spline of `order` interpolates the input, with the boundary of `mode`
/// (SciPy's default `Mode::Mirror`). Orders 0 and 1 return the input as f64. The result is f64
/// (SciPy's default output).
///
/// # Errors
/// `InvalidArgument` for an order above 5 or a bad axis.
///
/// ```
/// use cusci_ndimage::{spline_filter1d, Array, Device, Mode};
/// let x = Array::from_vec(vec![1.0f64; 6], &[6], &Device::Cpu).unwrap();
/// let c = spline_filter1d(&x, 3, -1, Mode::Mirror).unwrap().to_vec().unwrap();
/// assert!(c.iter().all(|v| (v - 1.0).abs() < 1e-12)); // a constant is its own spline
/// ```
pub fn spline_filter1d<T: Real>(
    input: &Array<T>,
    order: usize,
    axis: isize,
    mode: Mode,
) -> Result<Array<f64>> {
    let op = "spline_filter1d";
    let a = norm_axis(op, axis, input.ndim())?;
    spline_out(op, input, order, &[a], mode)
}

/// Multidimensional B-spline prefilter (`scipy.ndimage.spline_filter`): [`spline_filter1d`]
/// along every axis.
///
/// # Errors
/// `InvalidArgument` for an order below 2 or above 5 (SciPy's "spline order not supported";
/// [`spline_filter1d`] accepts 0 and 1, as SciPy, and copies the input).
///
/// ```
/// use cusci_ndimage::{spline_filter, Array, Device, Mode};
/// let x = Array::from_vec(vec![2.0f32; 12], &[3, 4], &Device::Cpu).unwrap();
/// let c = spline_filter(&x, 5, Mode::Mirror).unwrap().to_vec().unwrap();
/// assert!(c.iter().all(|v| (v - 2.0).abs() < 1e-12));
/// ```
pub fn spline_filter<T: Real>(input: &Array<T>, order: usize, mode: Mode) -> Result<Array<f64>> {
    let op = "spline_filter";
    check_order(op, order, 2)?;
    let axes: Vec<usize> = (0..input.ndim()).collect();
    spline_out(op, input, order, &axes, mode)
}
