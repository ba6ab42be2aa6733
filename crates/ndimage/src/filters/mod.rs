//! `scipy.ndimage` filters: correlation and convolution (1-D and n-D), Gaussian, uniform,
//! minimum/maximum, rank/median/percentile, Sobel, Prewitt, Laplace and their compositions.
//!
//! Separable filters run as one 1-D pass per axis; footprint filters as one n-D pass. Every
//! function accepts f32, f64, i32, i64 and u8 arrays ([`Real`]) of any layout on any device, and
//! returns an array of the input's type (SciPy's default `output`), on the input's device.
//! For SciPy's `output=` dtype, every non-complex input type and SciPy's exact integer results
//! (wrapping stores), see the `*_as` variants (`correlate_as::<I, O>`, `gaussian_filter_as`,
//! ...) and "Output types" below. Each SciPy name is one public function in the input's type
//! plus its `*_as` output variant, side by side in the module of its family; an integer input
//! runs as the output variant into its own type.
//!
//! # Output types
//!
//! The `*_as` filters take SciPy's `output=` dtype: every input type an [`Array`] holds but
//! complex (f32, f64, i32, i64, u8, bool) and any of those as the output type.
//!
//! `*_as::<I, O>` computes what `scipy.ndimage.<filter>(input, ..., output=O)` computes for an
//! input of type `I`; `*_as::<I, I>` is SciPy's default output (the input's type). SciPy reads the
//! input as double, computes every 1-D pass or n-D window in double and stores it into the output
//! array; a separable filter's later passes read that stored output. These functions do the same
//! on either device: the input is widened to f64, each pass runs through the f64 filters of this
//! module, and each pass's result is stored as SciPy stores it (below) before the next pass.
//!
//! SciPy's store of a double `v` into the output (C casts on x86-64, as SciPy 1.17 runs there):
//! - f64: `v`; f32: rounded to nearest (overflow to ±inf);
//! - i32, i64: truncated toward zero; NaN and values out of range give the type's minimum;
//! - u8 (and bool, whose storage is a byte): truncated to i32 as above, then wrapped modulo 256
//!   (`-3.7 → 253`, `300.2 → 44`), so an integer image whose Laplacian or Sobel goes negative
//!   wraps as in SciPy; bool is the stored byte `!= 0` (`0.3 → false`, `-2.0 → true`).
//!
//! Separable filters (Gaussian, uniform, Sobel, Prewitt, and minimum/maximum with a box or an
//! all-true footprint) store between passes, so e.g. `gaussian_filter_as::<u8, u8>` truncates
//! after each axis as SciPy does. [`laplace_as`] adds its per-axis second derivatives in the
//! output type (NumPy's `+=`: integers wrap, bool is logical or, f32 rounds each sum);
//! [`gaussian_laplace_as`] likewise, and [`gaussian_gradient_magnitude_as`] squares, adds and
//! takes the root in the output type as SciPy's `generic_gradient_magnitude` does.
//! Rank filters whose rank is the first or last of the footprint run as the minimum or maximum
//! filter (SciPy's route, separable for a box), others as one n-D selection.
//!
//! Where SciPy copies (a filter with no axis to filter: sizes of 1, sigmas of 0, `axes=[]`), the
//! copy follows NumPy's assignment casts instead: integers wrap into narrower integers
//! (`3_000_000_000i64 → -1_294_967_296` in i32) and anything nonzero is true. `cval` is read as
//! SciPy reads it: a double in the separable and correlation filters, the input's C type in
//! the n-D minimum/maximum (footprints other than boxes) and rank filters (`-2.0` is 254 for u8
//! and bool inputs, f32 rounds it), and through `numpy.int64` in SciPy's 1-D rank route (1-D
//! integer inputs, NaN refused, the i64 result copied with NumPy's casts).
//!
//! Differences from SciPy: (1) for a 1-D input, SciPy 1.17's rank and median filter with an output
//! type other than the input's return the output buffer reinterpreted (its fast 1-D path writes
//! the input's type into it); here they return the values stored as above, as SciPy does for every
//! other input. (2) An integer input is read as f64, as SciPy's n-D filters do, so i64 values
//! beyond 2^53 are rounded (SciPy's 1-D rank path keeps same-type i64 exact). (3) The CPU sums
//! 1-D windows in SciPy's order, so its f64 results are SciPy's bit for bit where the weights
//! are; the Gaussian weights may differ in the last bit where NumPy's `exp` does from the
//! platform's, uniform filters sum each window afresh where SciPy keeps a running sum, and
//! the GPU sums in its own order with fused multiply-adds. A result within such a difference
//! of an integer can truncate to the neighbouring integer. u16, i16, u32, u64 and i8 have no
//! [`Array`] element type yet.
//!
//! The plain filters on an integer input (`gaussian_filter::<u8>`, ...) return what
//! `*_as::<T, T>` returns: SciPy's default output, with these stores.

mod correlate;
mod derivatives;
mod engine;
mod footprint;
mod fused;
mod gaussian;
mod generic;
mod line;
mod rank;
pub(crate) mod store;
mod vectorized;
mod window;

pub use correlate::{
    convolve, convolve1d, convolve1d_as, convolve_as, correlate, correlate1d, correlate1d_as,
    correlate_as,
};
pub use derivatives::{
    gaussian_gradient_magnitude, gaussian_gradient_magnitude_as, gaussian_laplace,
    gaussian_laplace_as, generic_gradient_magnitude, generic_laplace, laplace, laplace_as, prewitt,
    prewitt_as, sobel, sobel_as,
};
pub use engine::Real;
#[doc(hidden)]
pub use fused::{plan_sum_passes, Pass, Step};
pub use gaussian::{
    gaussian_filter, gaussian_filter1d, gaussian_filter1d_as, gaussian_filter_as,
    gaussian_kernel1d, GaussianOptions,
};
pub use generic::{
    generic_filter, generic_filter1d, generic_filter1d_as, generic_filter_as, GenericFunction,
    GenericFunction1d,
};
pub use rank::{
    median_filter, median_filter_as, percentile_filter, percentile_filter_as, rank_filter,
    rank_filter_as,
};
pub use vectorized::{vectorized_filter, VectorizedMode, VectorizedOptions, WindowFn};
pub use window::{
    maximum_filter, maximum_filter1d, maximum_filter1d_as, maximum_filter_as, minimum_filter,
    minimum_filter1d, minimum_filter1d_as, minimum_filter_as, uniform_filter, uniform_filter1d,
    uniform_filter1d_as, uniform_filter_as,
};

pub(crate) use generic::GENERIC;
pub(crate) use store::STORE;

use crate::modes::{Mode, MODES_CUH};
use cusci_core::array::layout::{checked_mul, checked_numel, norm_axis};
use cusci_core::cuda::launch::{KernelModule, Spec};
use cusci_core::dtype::DType;
use cusci_core::error::make;
use cusci_core::{Array, Result};
use engine::Points;

/// The filter kernels (`filters.cu`, `sep2d.cu`, and for f32 `stream2d.cu` with its entry
/// points), built for one element type: `Spec::of(&[T])`.
pub(crate) static FILTERS: KernelModule = KernelModule {
    name: "ndimage_filters",
    source: filters_source,
    options: &[],
    samples: || crate::cuda::specs([DType::F32, DType::F64, DType::I32, DType::I64, DType::U8]),
};

fn filters_source(spec: &Spec) -> Result<String> {
    let dtype = spec.dtype(0)?;
    let w = if dtype == DType::F32 {
        "float"
    } else {
        "double"
    };
    let wf32 = match dtype {
        DType::F32 => "#define NDI_WF32\n#define NDI_FLOAT_T\n",
        // the fused separable kernels (sep2d.cu) serve f32 and f64 only
        DType::F64 => "#define NDI_FLOAT_T\n",
        _ => "",
    };
    // the streaming kernels (stream2d.cu, f32 only) and their entry points
    let stream2 = if dtype == DType::F32 {
        format!(
            "{}\n{}",
            include_str!("stream2d.cu"),
            fused::stream2_entries()
        )
    } else {
        String::new()
    };
    Ok(format!(
        "#define T {}\n#define W {w}\n{wf32}{MODES_CUH}\n{}\n{}\n{stream2}",
        dtype.cuda_name(),
        include_str!("filters.cu"),
        include_str!("sep2d.cu")
    ))
}

/// Options shared by the filters (SciPy's `mode`, `cval`, `origin`, `axes`).
///
/// `origin` is empty (0 on every axis), one value for every axis, or one per filtered axis;
/// `axes` (`None`: all) restricts the n-D filters to some axes (the others are filtered with a
/// window of one). Per-axis values (`origin`, sizes, `modes`) follow the order of `axes`. A
/// footprint array (the weights of [`correlate`] / [`convolve`], a [`Footprint::Mask`]) and the
/// size of the footprint filters ([`rank_filter`], [`median_filter`], [`percentile_filter`],
/// [`generic_filter`], and [`minimum_filter`] / [`maximum_filter`] with a mask that is not all
/// true) have their dimensions in increasing axis order, whatever the order of `axes`: SciPy
/// 1.17 inserts the unfiltered axes with `np.expand_dims` (scipy#22576); only the separable
/// filters take their sizes in the order of `axes`. Likewise the origin of these footprint
/// filters follows `axes` only when `axes` leaves some axis out: naming every axis, in any
/// order, gives the origins in input-axis order (SciPy's `_expand_origin`).
///
/// `modes` is SciPy's `mode` given as a sequence: one mode per filtered axis (per axis of the
/// input for [`sobel`] and [`prewitt`]), or a single mode for all; empty (the default) uses
/// `mode` everywhere. As in SciPy it is accepted by the separable filters ([`uniform_filter`],
/// [`minimum_filter`] / [`maximum_filter`] with a size or an all-true mask, [`sobel`],
/// [`prewitt`], [`laplace`], and [`rank_filter`] & co. where the rank is the footprint's first
/// or last and the footprint is a box) and refused (`InvalidArgument`, SciPy's RuntimeError)
/// by the others, the 1-D filters included.
///
/// ```
/// use cusci_ndimage::{uniform_filter, FilterOptions, Mode, Array, Device};
/// let x = Array::from_vec((0..6).map(f64::from).collect(), &[2, 3], &Device::Cpu).unwrap();
/// // scipy.ndimage.uniform_filter(x, 2, mode=["constant", "nearest"])
/// let o = FilterOptions { modes: vec![Mode::Constant, Mode::Nearest], ..Default::default() };
/// let y = uniform_filter(&x, &[2], &o).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![0.0, 0.25, 0.75, 1.5, 2.0, 3.0]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct FilterOptions {
    pub mode: Mode,
    pub cval: f64,
    pub origin: Vec<isize>,
    pub axes: Option<Vec<isize>>,
    /// One mode per filtered axis (SciPy's `mode` sequence); empty: `mode` on every axis.
    pub modes: Vec<Mode>,
}

/// The footprint of a rank, minimum or maximum filter: SciPy's `size` or `footprint`.
#[derive(Debug, Clone)]
pub enum Footprint {
    /// A box of this size: one value for every (filtered) axis, or one per axis.
    Size(Vec<usize>),
    /// A boolean mask with one dimension per filtered axis.
    Mask(Array<bool>),
}

/// The filtered axes, normalised, in the order given (`None`: every axis in order).
fn norm_axes(op: &str, axes: &Option<Vec<isize>>, ndim: usize) -> Result<Vec<usize>> {
    match axes {
        None => Ok((0..ndim).collect()),
        Some(v) => {
            let mut out = Vec::with_capacity(v.len());
            for &a in v {
                let a = norm_axis(op, a, ndim)?;
                if out.contains(&a) {
                    return Err(make::arg(op, "axes must be unique"));
                }
                out.push(a);
            }
            Ok(out)
        }
    }
}

fn per_axis<V: Clone>(op: &str, what: &str, v: &[V], n: usize, default: V) -> Result<Vec<V>> {
    match v.len() {
        0 => Ok(vec![default; n]),
        1 => Ok(vec![v[0].clone(); n]),
        k if k == n => Ok(v.to_vec()),
        k => Err(make::arg(op, format!("{what} has {k} values for {n} axes"))),
    }
}

fn check_origin(op: &str, origin: isize, len: usize) -> Result<i64> {
    let c = (len / 2) as isize + origin;
    if c < 0 || c >= len as isize {
        return Err(make::arg(
            op,
            format!("invalid origin {origin} for a filter of size {len}"),
        ));
    }
    Ok(c as i64)
}

/// The mode of each of `n` axes: `modes` (one for all or one per axis), else `mode` everywhere.
fn axis_modes(op: &str, mode: Mode, modes: &[Mode], n: usize) -> Result<Vec<Mode>> {
    per_axis(op, "mode", modes, n, mode)
}

/// `mode`, for the functions that take a single mode: a mode sequence is refused, as SciPy
/// refuses it (RuntimeError "A sequence of modes is not supported").
fn single_mode(op: &str, mode: Mode, modes: &[Mode]) -> Result<Mode> {
    if modes.is_empty() {
        Ok(mode)
    } else {
        Err(make::arg(
            op,
            "a sequence of modes is not supported here (SciPy accepts one only in the separable \
             filters)",
        ))
    }
}

/// `ShapeMismatch` unless a footprint (or weights array, `what`) of `rank` dimensions matches
/// the `naxes` filtered axes.
pub(crate) fn check_rank(op: &str, what: &str, rank: usize, naxes: usize) -> Result<()> {
    if rank == naxes {
        return Ok(());
    }
    Err(make::shape(
        op,
        format!("a {what} of {rank} dimensions for {naxes} filtered axes"),
    ))
}

// ---------------------------------------------------------------- n-D correlation

/// The input axis of each footprint dimension: the filtered axes in increasing order (SciPy
/// places a footprint with `np.expand_dims`, whatever the order of `axes`).
fn footprint_axes(axes: &[usize]) -> Vec<usize> {
    let mut f = axes.to_vec();
    f.sort_unstable();
    f
}

/// The input axis of per-filtered-axis value `k` (a footprint filter's origin, a sigma of
/// gaussian_laplace), as SciPy's `_expand_origin`: `axes[k]` when `axes` leaves an axis out,
/// but `k` when it names them all, whatever its order (scipy#22576).
fn value_axis(k: usize, axes: &[usize], ndim: usize) -> usize {
    if axes.len() == ndim {
        k
    } else {
        axes[k]
    }
}

/// Per-filtered-axis values (one per axis of `axes`) laid on the input's axes by
/// [`value_axis`]; `fill` on the axes left out.
fn expand_origin<T: Copy>(values: &[T], axes: &[usize], ndim: usize, fill: T) -> Vec<T> {
    let mut full = vec![fill; ndim];
    for (k, &v) in values.iter().enumerate() {
        full[value_axis(k, axes, ndim)] = v;
    }
    full
}

/// The points of a footprint of `fshape` (one dimension per filtered axis, in increasing axis
/// order, see [`footprint_axes`]) over an array of `ndim` dimensions; `origin` per filtered axis,
/// expanded by [`expand_origin`]; `keep(i)` says which flat footprint elements count and `w(i)`
/// their weight.
fn points(
    op: &str,
    ndim: usize,
    axes: &[usize],
    fshape: &[usize],
    origin: &[isize],
    keep: impl Fn(usize) -> bool,
    w: impl Fn(usize) -> f64,
) -> Result<Points> {
    check_rank(op, "footprint", fshape.len(), axes.len())?;
    let origin = per_axis(op, "origin", origin, axes.len(), 0)?;
    let axis_origin = expand_origin(&origin, axes, ndim, 0);
    let axes = footprint_axes(axes);
    let mut centre = Vec::with_capacity(axes.len());
    for (k, &len) in fshape.iter().enumerate() {
        if len == 0 {
            return Err(make::arg(op, "the footprint has a zero-length dimension"));
        }
        centre.push(check_origin(op, axis_origin[axes[k]], len)?);
    }
    // the footprint's size, checked, and its offsets allocated fallibly: a huge `size` is a typed
    // error (SciPy: MemoryError), not a wrapped product or an abort
    let total = checked_numel(op, fshape)?;
    let cap = checked_mul(op, total, ndim, "the footprint's offsets")?;
    let mut offs: Vec<i64> = cusci_core::host::try_with_capacity(op, cap)?;
    let mut ws: Vec<f64> = cusci_core::host::try_with_capacity(op, total)?;
    let mut c = vec![0usize; fshape.len()];
    for i in 0..total {
        let mut r = i;
        for d in (0..fshape.len()).rev() {
            c[d] = r % fshape[d];
            r /= fshape[d];
        }
        if !keep(i) {
            continue;
        }
        let mut full = vec![0i64; ndim];
        for (k, &a) in axes.iter().enumerate() {
            full[a] = c[k] as i64 - centre[k];
        }
        offs.extend(full);
        ws.push(w(i));
    }
    Ok(Points { offs, w: ws })
}
