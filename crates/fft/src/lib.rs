//! # cusci-fft
//!
//! `scipy.fft` for [`Array`]s: discrete Fourier transforms of complex and real data in one or
//! more dimensions ([`fft`], [`ifft`], [`rfft`], [`irfft`], [`hfft`], [`ihfft`], [`fftn`],
//! [`ifftn`], [`rfftn`], [`irfftn`] and their 2-D forms) and the helpers ([`fftfreq`],
//! [`rfftfreq`], [`fftshift`], [`ifftshift`], [`next_fast_len`], [`prev_fast_len`]), and the real-to-real
//! transforms ([`dct`], [`idct`], [`dst`], [`idst`], [`dctn`], [`idctn`], [`dstn`], [`idstn`];
//! options [`DctOptions`], [`DctnOptions`], [`DctType`]), the Hermitian n-d transforms
//! ([`hfft2`], [`hfftn`], [`ihfft2`], [`ihfftn`]), [`irfft_real`] (SciPy's `irfft` of real
//! input), the fast Hankel transform ([`fht`], [`ifht`], [`fhtoffset`]; [`FhtOptions`]) and an
//! explicit reusable plan ([`get_fft_plan`], [`get_fftn_plan`], [`FftPlan`], [`PlanKind`]; passed
//! as `plan:` in the options, CuPy's `plan=`), with SciPy's names, arguments
//! and defaults. SciPy's keyword arguments are the options structs [`FftOptions`] and
//! [`FftnOptions`]; `norm=` is [`Norm`].
//!
//! The CPU reference runs rustfft (complex) and realfft (real) plans, cached per precision,
//! in parallel over the transformed lanes with rayon; results do not depend on the thread count.
//! The CUDA side runs cuFFT plans (cached per device, bounded, thread-safe, see
//! [`clear_plan_cache`] and [`plan_cache_info`]) on the array's stream, with small NVRTC kernels
//! for cut / zero-pad copies, `fftshift` and the DCT/DST passes; it never synchronises.
//!
//! ```
//! use cusci_fft::{fft, ifft, FftOptions, Array, Device};
//! use cusci_core::c64;
//! let dev = Device::cpu();
//! let x = Array::from_vec(vec![c64::new(1.0, 0.0), c64::new(2.0, 0.0), c64::new(3.0, 0.0)], &[3], &dev).unwrap();
//! let y = fft(&x, &FftOptions::default()).unwrap();
//! assert!((y.to_vec().unwrap()[0] - c64::new(6.0, 0.0)).norm() < 1e-12);
//! let back = ifft(&y, &FftOptions::default()).unwrap().to_vec().unwrap();
//! assert!((back[2] - c64::new(3.0, 0.0)).norm() < 1e-12);
//! ```
//!
#![doc = include_str!("../README.md")]

mod args;
mod basic;
mod cpu;
mod cuda;
mod fftlog;
mod helper;
mod plan;
mod plan_cache;
mod realtransforms;

pub use args::DctType;
pub use basic::{
    fft, fft2, fftn, hfft, hfft2, hfftn, ifft, ifft2, ifftn, ihfft, ihfft2, ihfftn, irfft, irfft2,
    irfft_real, irfftn, rfft, rfft2, rfftn,
};
pub use cusci_core::{c32, c64, Array, Device, Error, Result};
pub use fftlog::{fht, fhtoffset, ifht, FhtOptions};
pub use helper::{fftfreq, fftshift, ifftshift, next_fast_len, prev_fast_len, rfftfreq};
pub use plan::{get_fft_plan, get_fftn_plan, FftPlan, PlanKind};
pub use realtransforms::{dct, dctn, dst, dstn, idct, idctn, idst, idstn, DctOptions, DctnOptions};

/// The NVRTC kernel modules of this crate, for the compile checks of its tests
/// ([`cusci_core::testing::compile_modules`]).
#[doc(hidden)]
pub fn kernel_modules() -> Vec<&'static cusci_core::KernelModule> {
    vec![&cuda::FFT_KERNELS]
}

/// Drops the cached transform plans of `dev`: on the CPU the rustfft/realfft plans of both
/// precisions, on a GPU that device's cuFFT plans. Plans are made again on demand. Both caches
/// are bounded: the CPU's starts afresh past 128 distinct lengths per precision and kind; a
/// GPU's keeps at most 64 plans and 1 GiB of work areas, least recently used first out
/// (see [`set_plan_cache_limits`]).
///
/// # Errors
/// Those of reaching the device (`Cuda`).
pub fn clear_plan_cache(dev: &Device) -> Result<()> {
    match dev {
        Device::Cpu => {
            cpu::clear_plans();
            Ok(())
        }
        Device::Cuda(d) => cuda::clear_plans(d),
    }
}

/// The state of a device's plan cache (CuPy's `get_plan_cache()` numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PlanCacheInfo {
    /// Plans held now (on the CPU: distinct (length, kind) plans, both precisions).
    pub plans: usize,
    /// Work-area bytes the held plans need (0 on the CPU, whose plans keep their own scratch).
    pub work_bytes: usize,
    /// Lookups that found a plan (GPU only; 0 on the CPU).
    pub hits: u64,
    /// Lookups that made a new plan (GPU only; 0 on the CPU).
    pub misses: u64,
}

/// The number of plans cached for `dev` and, on a GPU, their work-area bytes and the cache's
/// hits and misses.
///
/// # Errors
/// Those of reaching the device.
///
/// ```
/// use cusci_fft::{clear_plan_cache, plan_cache_info, fft, Array, Device, FftOptions};
/// let dev = Device::cpu();
/// clear_plan_cache(&dev).unwrap();
/// fft(&Array::<f64>::ones(&[12], &dev).unwrap(), &FftOptions::default()).unwrap();
/// assert!(plan_cache_info(&dev).unwrap().plans >= 1);
/// ```
pub fn plan_cache_info(dev: &Device) -> Result<PlanCacheInfo> {
    match dev {
        Device::Cpu => Ok(PlanCacheInfo {
            plans: cpu::plan_count(),
            ..Default::default()
        }),
        Device::Cuda(d) => {
            let (plans, work_bytes, hits, misses) = cuda::plan_stats(d)?;
            Ok(PlanCacheInfo {
                plans,
                work_bytes,
                hits,
                misses,
            })
        }
    }
}

/// Sets the bounds of a GPU's plan cache: at most `max_plans` plans needing at most `max_bytes`
/// of work area in all (least recently used plans are dropped first; a plan larger than
/// `max_bytes` alone is used and dropped). On the CPU this does nothing (its bound is fixed).
///
/// # Errors
/// Those of reaching the device.
pub fn set_plan_cache_limits(dev: &Device, max_plans: usize, max_bytes: usize) -> Result<()> {
    match dev {
        Device::Cpu => Ok(()),
        Device::Cuda(d) => cuda::set_plan_limits(d, max_plans, max_bytes),
    }
}

use cusci_core::dtype::{Element, Float, RealFloat};
use num_complex::Complex;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for super::c32 {}
    impl Sealed for super::c64 {}
}

/// The real element types the transforms accept: `f32` and `f64` (sealed).
pub trait FftReal: RealFloat + rustfft::FftNum + sealed::Sealed {
    /// The complex type of the same precision (`c32` for `f32`, `c64` for `f64`).
    type Complex: FftComplex<Real = Self>;
}

impl FftReal for f32 {
    type Complex = c32;
}
impl FftReal for f64 {
    type Complex = c64;
}

/// The complex element types the transforms accept: `c32` and `c64` (sealed).
pub trait FftComplex: Float<Real: FftReal<Complex = Self>> + sealed::Sealed {
    /// The value as the `num_complex` type rustfft works on (the identity).
    fn to_num(self) -> Complex<Self::Real>;
    /// The value from the `num_complex` type rustfft works on (the identity).
    fn from_num(c: Complex<Self::Real>) -> Self;
}

impl FftComplex for c32 {
    #[inline]
    fn to_num(self) -> Complex<f32> {
        self
    }
    #[inline]
    fn from_num(c: Complex<f32>) -> Self {
        c
    }
}
impl FftComplex for c64 {
    #[inline]
    fn to_num(self) -> Complex<f64> {
        self
    }
    #[inline]
    fn from_num(c: Complex<f64>) -> Self {
        c
    }
}

/// The element types the complex transforms ([`fft`], [`ifft`], [`fftn`], ...) accept, as
/// `scipy.fft` accepts real input there: `f32`, `f64` (converted to complex first) and `c32`,
/// `c64` (sealed).
pub trait FftInput: Element + sealed::Sealed {
    /// The complex type of the result (`c32` for `f32` and `c32`, `c64` for `f64` and `c64`).
    type Complex: FftComplex;
    /// `x` as a complex array (a new handle when already complex), on the same device.
    ///
    /// # Errors
    /// Those of the conversion on the device (allocation).
    fn to_complex(x: &Array<Self>) -> Result<Array<Self::Complex>>;
}

impl FftInput for f32 {
    type Complex = c32;
    fn to_complex(x: &Array<f32>) -> Result<Array<c32>> {
        x.astype()
    }
}
impl FftInput for f64 {
    type Complex = c64;
    fn to_complex(x: &Array<f64>) -> Result<Array<c64>> {
        x.astype()
    }
}
impl FftInput for c32 {
    type Complex = c32;
    fn to_complex(x: &Array<c32>) -> Result<Array<c32>> {
        Ok(x.clone())
    }
}
impl FftInput for c64 {
    type Complex = c64;
    fn to_complex(x: &Array<c64>) -> Result<Array<c64>> {
        Ok(x.clone())
    }
}

/// The normalisation mode, SciPy's `norm=` argument.
///
/// For a transform of `n` points: `Backward` scales the forward transform by 1 and the inverse
/// by `1/n`; `Ortho` scales both by `1/sqrt(n)` (the transforms become unitary); `Forward`
/// scales the forward transform by `1/n` and the inverse by 1. For n-dimensional transforms `n`
/// is the product of the transformed lengths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Norm {
    /// `norm="backward"` (SciPy's default): no scaling forward, `1/n` on the inverse.
    #[default]
    Backward,
    /// `norm="ortho"`: `1/sqrt(n)` both ways.
    Ortho,
    /// `norm="forward"`: `1/n` forward, no scaling on the inverse.
    Forward,
}

impl Norm {
    /// The factor applied to a transform of `n` points (`n` = the product of the transformed
    /// lengths) in the direction `forward`.
    pub fn factor(self, n: usize, forward: bool) -> f64 {
        let n = n as f64;
        match (self, forward) {
            (Norm::Backward, true) | (Norm::Forward, false) => 1.0,
            (Norm::Ortho, _) => 1.0 / n.sqrt(),
            (Norm::Backward, false) | (Norm::Forward, true) => 1.0 / n,
        }
    }
}

/// The optional arguments of the one-dimensional transforms (`n=`, `axis=`, `norm=`).
///
/// ```
/// use cusci_fft::{FftOptions, Norm};
/// let o = FftOptions { n: Some(16), norm: Norm::Ortho, ..Default::default() };
/// assert_eq!(o.axis, -1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FftOptions {
    /// The length of the transform along `axis`: the input is cut or zero-padded to `n` points
    /// (for [`irfft`]/[`hfft`], `n` is the length of the real output, default `2*(m-1)` for `m`
    /// input points). `None` (default): the input's length.
    pub n: Option<usize>,
    /// The axis to transform; negative counts from the end. Default `-1`.
    pub axis: isize,
    /// The normalisation mode. Default [`Norm::Backward`].
    pub norm: Norm,
    /// A plan made for this call's geometry ([`get_fft_plan`], [`get_fftn_plan`]; CuPy's
    /// `plan=`): checked against the call (`InvalidArgument` when it does not fit). `None`
    /// (default): the device's plan cache is used as always.
    pub plan: Option<FftPlan>,
}

impl Default for FftOptions {
    fn default() -> Self {
        FftOptions {
            n: None,
            axis: -1,
            norm: Norm::Backward,
            plan: None,
        }
    }
}

/// The optional arguments of the n-dimensional transforms (`s=`, `axes=`, `norm=`).
///
/// As in SciPy: with `axes` given, `s` (when given) has one length per axis; with only `s`
/// given, the axes are the last `s.len()` ones; with neither, all axes (the 2-D functions:
/// the last two).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FftnOptions {
    /// The transform lengths, one per transformed axis (the input is cut or zero-padded to
    /// them; for [`irfftn`], the last is the real output's length). `None`: the input's.
    pub s: Option<Vec<usize>>,
    /// The axes to transform (negative count from the end; no repeats). `None`: see above.
    pub axes: Option<Vec<isize>>,
    /// The normalisation mode. Default [`Norm::Backward`].
    pub norm: Norm,
    /// A plan made for this call's geometry (see [`FftOptions::plan`]).
    pub plan: Option<FftPlan>,
}
