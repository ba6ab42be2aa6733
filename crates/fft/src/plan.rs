//! An explicit, reusable transform plan (what CuPy's `cupyx.scipy.fft.get_fft_plan` gives).

use crate::basic::check_1d;
use crate::{cuda, fft, ifft, FftComplex, FftInput, FftOptions};
use cusci_core::error::make;
use cusci_core::{Array, DType, Device, Result};

/// A complex transform planned for one input geometry: shape, element type, device, axis,
/// length and normalisation, validated once. On a GPU the cuFFT plan is made when the
/// `FftPlan` is (so the first call pays nothing for planning) and held in the device's plan
/// cache, where every later call with this geometry finds it (a plan dropped from the bounded
/// cache is made again on demand). On the CPU the rustfft plan is cached the same way.
///
/// ```
/// use cusci_fft::{get_fft_plan, FftOptions, Array, Device, c64};
/// let x = Array::<c64>::ones(&[4, 8], &Device::cpu()).unwrap();
/// let plan = get_fft_plan(&x, &FftOptions::default()).unwrap();
/// let y = plan.execute(&x, true).unwrap();
/// let back = plan.execute(&y, false).unwrap().to_vec().unwrap();
/// assert!((back[3].re - 1.0).abs() < 1e-12);
/// ```
#[derive(Debug, Clone)]
pub struct FftPlan {
    shape: Vec<usize>,
    dtype: DType,
    device: Device,
    opts: FftOptions,
}

/// Plans the complex transform [`fft`]/[`ifft`] of arrays shaped and typed as `x`, on `x`'s
/// device, with `opts` (CuPy's `get_fft_plan(a, shape, axes)` for one axis).
///
/// # Errors
/// As [`fft`] for the options; `Cuda` when cuFFT refuses the plan.
pub fn get_fft_plan<C: FftComplex>(x: &Array<C>, opts: &FftOptions) -> Result<FftPlan> {
    let (axis, n) = check_1d("get_fft_plan", x.shape(), opts, false)?;
    match x.device() {
        Device::Cpu => {
            crate::cpu::complex_plan::<C::Real>(n, true);
            crate::cpu::complex_plan::<C::Real>(n, false);
        }
        Device::Cuda(d) => {
            let mut shape = x.shape().to_vec();
            shape[axis] = n;
            cuda::prepare_c2c(d, &shape, axis, n, C::DTYPE == DType::C64)?;
        }
    }
    Ok(FftPlan {
        shape: x.shape().to_vec(),
        dtype: C::DTYPE,
        device: x.device().clone(),
        opts: opts.clone(),
    })
}

impl FftPlan {
    /// The transform of `x` (forward: [`fft`], else [`ifft`]) with the planned options.
    ///
    /// # Errors
    /// `ShapeMismatch` when `x`'s shape, `UnsupportedDType` when its type, `DeviceMismatch`-like
    /// `InvalidArgument` when its device differs from the planned one.
    pub fn execute<C: FftComplex + FftInput<Complex = C>>(
        &self,
        x: &Array<C>,
        forward: bool,
    ) -> Result<Array<C>> {
        if x.shape() != self.shape.as_slice() {
            return Err(make::shape(
                "FftPlan::execute",
                format!("planned for shape {:?}, got {:?}", self.shape, x.shape()),
            ));
        }
        if C::DTYPE != self.dtype {
            return Err(make::dtype("FftPlan::execute", C::DTYPE));
        }
        if !cusci_core::array::same_device(x.device(), &self.device) {
            return Err(make::arg(
                "FftPlan::execute",
                format!(
                    "planned for {}, got an array on {}",
                    self.device,
                    x.device()
                ),
            ));
        }
        if forward {
            fft(x, &self.opts)
        } else {
            ifft(x, &self.opts)
        }
    }

    /// The options the plan was made with.
    pub fn options(&self) -> &FftOptions {
        &self.opts
    }
}
