//! An explicit, reusable transform plan (what CuPy's `cupyx.scipy.fft.get_fft_plan` gives):
//! complex, real-to-complex or complex-to-real, over one axis or several.

use crate::args::{check_1d, check_nd};
use crate::{cuda, FftComplex, FftOptions, FftnOptions, Norm};
use cusci_core::error::make;
use cusci_core::{Array, Backend, DType, Device, Element, Result};

/// The kind of transform a plan is for (CuPy's `value_type=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum PlanKind {
    /// `'C2C'` (default): [`fft`](crate::fft), [`ifft`](crate::ifft), [`fftn`], [`ifftn`],
    /// [`fft2`](crate::fft2), [`ifft2`](crate::ifft2) of a complex array.
    #[default]
    C2c,
    /// `'R2C'`: [`rfft`](crate::rfft), [`rfftn`](crate::rfftn), [`rfft2`](crate::rfft2) of a
    /// real array.
    R2c,
    /// `'C2R'`: [`irfft`](crate::irfft), [`irfftn`](crate::irfftn), [`irfft2`](crate::irfft2)
    /// of a complex array (the last length is the real output's).
    C2r,
}

/// A transform planned for one input geometry: kind, input shape and element type, device and
/// the (axis, length) pairs, validated once. On a GPU the cuFFT plans the transform will run are
/// made when the `FftPlan` is (so the first call pays nothing for planning) and held in the
/// device's plan cache, where every call with this geometry finds them (a plan dropped from the
/// bounded cache is made again on demand). On the CPU the rustfft/realfft plans are cached the
/// same way.
///
/// Pass it to a transform as `plan: Some(p)` in [`FftOptions`] / [`FftnOptions`] (CuPy's
/// `plan=`): the call checks that the plan fits it (kind, shape, type, device, axes and lengths)
/// and fails with `InvalidArgument` when it does not; or run it with [`FftPlan::execute`].
///
/// ```
/// use cusci_fft::{get_fft_plan, fft, FftOptions, Array, Device, c64};
/// let x = Array::<c64>::ones(&[4, 8], &Device::cpu()).unwrap();
/// let plan = get_fft_plan(&x, &FftOptions::default()).unwrap();
/// let o = FftOptions { plan: Some(plan.clone()), ..Default::default() };
/// let y = fft(&x, &o).unwrap();
/// let back = plan.execute(&y, false).unwrap().to_vec().unwrap();
/// assert!((back[3].re - 1.0).abs() < 1e-12);
/// ```
#[derive(Debug, Clone)]
pub struct FftPlan {
    kind: PlanKind,
    shape: Vec<usize>,
    dtype: DType,
    device: Device,
    axes: Vec<(usize, usize)>,
    norm: Norm,
}

impl PartialEq for FftPlan {
    fn eq(&self, o: &FftPlan) -> bool {
        self.kind == o.kind
            && self.shape == o.shape
            && self.dtype == o.dtype
            && cusci_core::array::same_device(&self.device, &o.device)
            && self.axes == o.axes
            && self.norm == o.norm
    }
}
impl Eq for FftPlan {}

/// Plans the complex transform [`fft`](crate::fft)/[`ifft`](crate::ifft) of arrays shaped and
/// typed as `x`, on `x`'s device, along `opts.axis` with `opts.n` points (CuPy's
/// `get_fft_plan(a, shape, axes)` for one axis); `opts.norm` is what [`FftPlan::execute`] uses.
///
/// # Errors
/// As [`fft`](crate::fft) for the options; `Cuda` when cuFFT refuses the plan.
pub fn get_fft_plan<C: FftComplex>(x: &Array<C>, opts: &FftOptions) -> Result<FftPlan> {
    let (axis, n) = check_1d("get_fft_plan", x.shape(), opts, false)?;
    make_plan(x, PlanKind::C2c, vec![(axis, n)], opts.norm)
}

/// Plans a transform of `kind` over several axes (or one) of arrays shaped and typed as `x`
/// (CuPy's `get_fft_plan(a, shape=s, axes=axes, value_type=kind)`): `opts.s`/`opts.axes` as in
/// [`fftn`] (for [`PlanKind::C2r`] the last length is the real output's, default `2(m-1)`).
///
/// # Errors
/// As [`fftn`] for the options; `UnsupportedDType` when `x` is real for a complex-input kind or
/// complex for [`PlanKind::R2c`]; `InvalidArgument` for no axes; `Cuda` when cuFFT refuses.
pub fn get_fftn_plan<X: Element>(
    x: &Array<X>,
    opts: &FftnOptions,
    kind: PlanKind,
) -> Result<FftPlan> {
    let op = "get_fftn_plan";
    let ok = match kind {
        PlanKind::R2c => matches!(X::DTYPE, DType::F32 | DType::F64),
        _ => matches!(X::DTYPE, DType::C32 | DType::C64),
    };
    if !ok {
        return Err(make::dtype(op, X::DTYPE));
    }
    let axes = check_nd(op, x.shape(), opts, None, kind == PlanKind::C2r)?;
    if axes.is_empty() {
        return Err(make::arg(op, "at least one axis must be transformed"));
    }
    make_plan(x, kind, axes, opts.norm)
}

fn make_plan<X: Element>(
    x: &Array<X>,
    kind: PlanKind,
    axes: Vec<(usize, usize)>,
    norm: Norm,
) -> Result<FftPlan> {
    let double = matches!(X::DTYPE, DType::F64 | DType::C64);
    // the sizes checked as the transforms check them, before any planner allocates
    for &(axis, n) in &axes {
        match x.backend() {
            Backend::Host(_) => crate::cpu::check_host_size("get_fft_plan", x.shape(), axis, n)?,
            Backend::Cuda(_) => crate::cpu::check_size("get_fft_plan", x.shape(), axis, n)?,
        }
    }
    match x.backend() {
        Backend::Host(_) => match kind {
            PlanKind::C2c => {
                for &(_, n) in &axes {
                    if double {
                        crate::cpu::complex_plan::<f64>(n, true)?;
                        crate::cpu::complex_plan::<f64>(n, false)?;
                    } else {
                        crate::cpu::complex_plan::<f32>(n, true)?;
                        crate::cpu::complex_plan::<f32>(n, false)?;
                    }
                }
            }
            // the real plans are made on the first call (and cached)
            PlanKind::R2c | PlanKind::C2r => {}
        },
        Backend::Cuda(c) => {
            let k = match kind {
                PlanKind::C2c => cuda::Kind::C2c,
                PlanKind::R2c => cuda::Kind::R2c,
                PlanKind::C2r => cuda::Kind::C2r,
            };
            cuda::prepare(c.dev(), k, double, x.shape(), &axes)?;
        }
    }
    Ok(FftPlan {
        kind,
        shape: x.shape().to_vec(),
        dtype: X::DTYPE,
        device: x.device().clone(),
        axes,
        norm,
    })
}

impl FftPlan {
    /// Checks that this plan fits a call of `op` (kind `kind`) on `x` (of type `dtype`; for the
    /// complex transforms of real input, the complex type) over `axes`.
    pub(crate) fn check_fits<X: Element>(
        &self,
        op: &str,
        kind: PlanKind,
        x: &Array<X>,
        dtype: DType,
        axes: &[(usize, usize)],
    ) -> Result<()> {
        let why = if kind != self.kind {
            Some(format!(
                "the plan is for {:?} transforms, not {kind:?}",
                self.kind
            ))
        } else if x.shape() != self.shape.as_slice() {
            Some(format!(
                "the plan is for shape {:?}, the input is {:?}",
                self.shape,
                x.shape()
            ))
        } else if dtype != self.dtype {
            Some(format!(
                "the plan is for {} input, the input is {dtype}",
                self.dtype
            ))
        } else if !cusci_core::array::same_device(x.device(), &self.device) {
            Some(format!(
                "the plan is for {}, the input is on {}",
                self.device,
                x.device()
            ))
        } else if axes != self.axes.as_slice() {
            Some(format!(
                "the plan is for (axis, length) {:?}, the call asks for {axes:?}",
                self.axes
            ))
        } else {
            None
        };
        match why {
            Some(w) => Err(make::arg(op, format!("the given plan does not fit: {w}"))),
            None => Ok(()),
        }
    }

    /// The kind of transform planned.
    pub fn kind(&self) -> PlanKind {
        self.kind
    }

    /// The planned (axis, length) pairs, in order.
    pub fn axes(&self) -> &[(usize, usize)] {
        &self.axes
    }

    /// The planned input shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The planned element type of the input.
    pub(crate) fn dtype(&self) -> DType {
        self.dtype
    }

    /// The normalisation given when planning.
    pub(crate) fn norm(&self) -> Norm {
        self.norm
    }
}
