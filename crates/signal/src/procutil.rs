//! Helpers shared by the signal modules: the element types they accept, axis bookkeeping, the
//! pieces of kernel sources, host operands and optional launch arguments.

use cusci_core::array::check_same_device;
use cusci_core::error::make;
use cusci_core::{
    c32, c64, Array, Backend, DType, DevPtr, DevPtrMut, Device, Element, Float, Result, Spec,
};
use std::borrow::Cow;
use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

/// The element types of the filtering and convolution functions: `f32`, `f64`, `c32`, `c64`.
///
/// Implemented for exactly those four; the arithmetic is the ordinary one of each type.
pub trait SignalScalar:
    Float
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + Send
    + Sync
    + 'static
{
    /// Whether the value is finite (both parts for complex values).
    fn is_finite_val(self) -> bool;
    /// The full linear convolution of two contiguous 1-D arrays through `cusci_fft` (real
    /// transforms for real types), on their device.
    #[doc(hidden)]
    fn fft_convolve_full(a: &Array<Self>, b: &Array<Self>) -> Result<Array<Self>>;
    /// The full linear convolution along `axes` (other axes broadcast) through N-D transforms
    /// of lengths `fshape`, before cropping (the caller crops to the full size and the mode).
    #[doc(hidden)]
    fn fft_convolve_nd(
        a: &Array<Self>,
        b: &Array<Self>,
        axes: &[usize],
        fshape: &[usize],
    ) -> Result<Array<Self>>;
    /// The value as a complex double.
    fn c(self) -> c64 {
        self.to_c64()
    }
}

macro_rules! real_scalar {
    ($t:ty) => {
        impl SignalScalar for $t {
            fn is_finite_val(self) -> bool {
                self.is_finite()
            }
            fn fft_convolve_full(a: &Array<Self>, b: &Array<Self>) -> Result<Array<Self>> {
                let full = a.size() + b.size() - 1;
                let nfft = cusci_fft::next_fast_len(full, true)?;
                let o = cusci_fft::FftOptions {
                    n: Some(nfft),
                    ..Default::default()
                };
                let fa = cusci_fft::rfft(a, &o)?;
                let fb = cusci_fft::rfft(b, &o)?;
                let y = cusci_fft::irfft(&fa.mul(&fb)?, &o)?;
                y.slice_axis(0, Some(0), Some(full as isize), 1)?
                    .contiguous()
            }
            fn fft_convolve_nd(
                a: &Array<Self>,
                b: &Array<Self>,
                axes: &[usize],
                fshape: &[usize],
            ) -> Result<Array<Self>> {
                let o = cusci_fft::FftnOptions {
                    s: Some(fshape.to_vec()),
                    axes: Some(axes.iter().map(|&v| v as isize).collect()),
                    ..Default::default()
                };
                let fa = cusci_fft::rfftn(a, &o)?;
                let fb = cusci_fft::rfftn(b, &o)?;
                cusci_fft::irfftn(&fa.mul(&fb)?, &o)
            }
        }
    };
}
macro_rules! complex_scalar {
    ($t:ty) => {
        impl SignalScalar for $t {
            fn is_finite_val(self) -> bool {
                self.re.is_finite() && self.im.is_finite()
            }
            fn fft_convolve_full(a: &Array<Self>, b: &Array<Self>) -> Result<Array<Self>> {
                let full = a.size() + b.size() - 1;
                let nfft = cusci_fft::next_fast_len(full, false)?;
                let o = cusci_fft::FftOptions {
                    n: Some(nfft),
                    ..Default::default()
                };
                let fa = cusci_fft::fft(a, &o)?;
                let fb = cusci_fft::fft(b, &o)?;
                let y = cusci_fft::ifft(&fa.mul(&fb)?, &o)?;
                y.slice_axis(0, Some(0), Some(full as isize), 1)?
                    .contiguous()
            }
            fn fft_convolve_nd(
                a: &Array<Self>,
                b: &Array<Self>,
                axes: &[usize],
                fshape: &[usize],
            ) -> Result<Array<Self>> {
                let o = cusci_fft::FftnOptions {
                    s: Some(fshape.to_vec()),
                    axes: Some(axes.iter().map(|&v| v as isize).collect()),
                    ..Default::default()
                };
                let fa = cusci_fft::fftn(a, &o)?;
                let fb = cusci_fft::fftn(b, &o)?;
                cusci_fft::ifftn(&fa.mul(&fb)?, &o)
            }
        }
    };
}
real_scalar!(f32);
real_scalar!(f64);
complex_scalar!(c32);
complex_scalar!(c64);

/// The element types of the filtering and convolution kernels, in the samples' order.
pub(crate) const SIGNAL_DTYPES: [DType; 4] = [DType::F32, DType::F64, DType::C32, DType::C64];

/// The real element types (modules whose kernels take `float`/`double`).
pub(crate) const REAL_DTYPES: [DType; 2] = [DType::F32, DType::F64];

/// One sample specialisation per element type of `ts` (a module's `samples`).
pub(crate) fn each_dtype(ts: &[DType]) -> Vec<Spec> {
    ts.iter().map(|&t| Spec::of(&[t])).collect()
}

/// The CUDA literal of `t`'s zero (`TZERO` in the kernel sources).
pub(crate) fn zero_literal(t: DType) -> String {
    match t {
        DType::C32 => "mk(0.0f, 0.0f)".into(),
        DType::C64 => "mk(0.0, 0.0)".into(),
        _ => format!("(({})0)", t.cuda_name()),
    }
}

/// The CUDA constructor `TMAKE(re, im)` of `t` from two doubles.
pub(crate) fn tmake(t: DType) -> &'static str {
    match t {
        DType::C32 => "mk((float)(re), (float)(im))",
        DType::C64 => "mk((double)(re), (double)(im))",
        DType::F32 => "((float)(re))",
        _ => "((double)(re))",
    }
}

/// The real type of `t` (itself for real types).
pub(crate) fn real_of(t: DType) -> DType {
    match t {
        DType::C32 => DType::F32,
        DType::C64 => DType::F64,
        t => t,
    }
}

/// `(outer, n, inner)`: the products of the dimensions before `axis`, its length, and the
/// product after it (a C-contiguous array seen as `outer` blocks of `n` rows of `inner`).
pub(crate) fn split_axis(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    (outer, shape[axis], inner)
}

/// The host values of a (small) array, C order; synchronises when it lives on a GPU.
pub(crate) fn host<T: Element>(a: &Array<T>) -> Result<Vec<T>> {
    a.to_vec()
}

/// The C-order elements of an operand that lives on the CPU beside the array a front end
/// matched on (borrowed when contiguous); `DeviceMismatch` for an array on a GPU.
pub(crate) fn host_elems<T: Element>(a: &Array<T>) -> Result<Cow<'_, [T]>> {
    match a.backend() {
        Backend::Host(h) => Ok(h.to_contiguous()),
        Backend::Cuda(_) => {
            check_same_device("cusci_signal", &Device::Cpu, a.device())?;
            Err(make::arg("cusci_signal", "a CPU operand was expected"))
        }
    }
}

/// The pointer of an optional input array, or null where it is absent (the kernel's variant
/// then does not read it).
pub(crate) fn ptr_or_null<T: Element>(a: Option<&Array<T>>) -> Result<DevPtr<'_, T>> {
    a.map_or(Ok(DevPtr::null()), |a| a.dev_ptr())
}

/// The launch argument of an optional output pointer, or null where the output is absent (the
/// kernel skips a null output). The pointer stays borrowed from its array for the launch.
pub(crate) fn out_or_null<'a, T: Element>(p: &'a Option<DevPtrMut<'_, T>>) -> DevPtr<'a, T> {
    p.as_ref().map_or(DevPtr::null(), |p| p.as_ptr())
}

/// `v` as an element of `T` (real part for complex types).
pub(crate) fn from_f64<T: Element>(v: f64) -> T {
    T::from_c64(c64::new(v, 0.0))
}
