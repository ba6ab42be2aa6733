//! Helpers shared by the processing modules (filtering, convolution, spectral): the element
//! types they accept, axis bookkeeping, device pointers and kernel sources.

use cusci_core::error::make;
use cusci_core::{c32, c64, Array, DType, Device, Element, Float, Result};
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

/// The CUDA type name of `T` in kernel sources.
pub(crate) fn cuda_type<T: Element>() -> &'static str {
    match T::DTYPE {
        DType::F32 => "float",
        DType::F64 => "double",
        DType::C32 => "cplx32",
        DType::C64 => "cplx64",
        d => d.cuda_name(),
    }
}

/// Normalises `axis` for an array of `ndim` dimensions (negative counts from the end).
pub(crate) fn norm_axis(op: &str, axis: isize, ndim: usize) -> Result<usize> {
    let nd = ndim as isize;
    let a = if axis < 0 { axis + nd } else { axis };
    if ndim == 0 || a < 0 || a >= nd {
        return Err(make::arg(
            op,
            format!("axis {axis} is out of bounds for an array of {ndim} dimensions"),
        ));
    }
    Ok(a as usize)
}

/// `(outer, n, inner)`: the products of the dimensions before `axis`, its length, and the
/// product after it (a C-contiguous array seen as `outer` blocks of `n` rows of `inner`).
pub(crate) fn split_axis(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    (outer, shape[axis], inner)
}

/// The device address of a CUDA array's first element (0 on the CPU).
pub(crate) fn dptr<T: Element>(a: &Array<T>) -> u64 {
    a.cuda_view().map(|v| v.ptr).unwrap_or(0)
}

/// The host values of a (small) array, C order; synchronises when it lives on a GPU.
pub(crate) fn host<T: Element>(a: &Array<T>) -> Result<Vec<T>> {
    a.to_vec()
}

/// The contiguous data of a CPU array (a copy only when the array is a view).
pub(crate) fn cpu_contig<T: Element>(a: &Array<T>) -> Result<std::borrow::Cow<'_, [T]>> {
    if a.is_contiguous() {
        if let Some(d) = a.cpu_data() {
            // cpu_data runs to the end of the storage: a prefix view must stop at its size
            return Ok(std::borrow::Cow::Borrowed(&d[..a.size()]));
        }
    }
    Ok(std::borrow::Cow::Owned(a.to_vec()?))
}

/// Blocks for a grid-stride launch of `total` threads of `threads` per block (capped).
pub(crate) fn blocks_for(total: usize, threads: u32) -> u32 {
    total.div_ceil(threads as usize).clamp(1, 1 << 20) as u32
}

/// `Err(DeviceMismatch)` unless both devices are the same.
pub(crate) fn same_dev(op: &str, a: &Device, b: &Device) -> Result<()> {
    cusci_core::array::check_same_device(op, a, b)
}

/// Every NVRTC kernel source of the processing modules, one per (module, type, variant) that
/// the launchers can build, for compile checks without a GPU (`check_compiles`). Not part of the
/// API.
#[doc(hidden)]
pub fn processing_kernel_sources() -> Vec<(String, String)> {
    // one module per form and type; a second state count for f64 (the code paths are the same
    // for every count: NS only sizes the unrolled loops)
    let mut v = vec![
        crate::filter::iir_source::<f32>(false, 8),
        crate::filter::iir_source::<f64>(false, 1),
        crate::filter::iir_source::<f64>(false, 8),
        crate::filter::iir_source::<c32>(false, 2),
        crate::filter::iir_source::<c64>(false, 4),
        crate::filter::iir_source::<f32>(true, 16),
        crate::filter::iir_source::<f64>(true, 2),
        crate::filter::iir_source::<c64>(true, 4),
        crate::convolve::conv_source::<f32>(),
        crate::convolve::conv_source::<f64>(),
        crate::convolve::conv_source::<c32>(),
        crate::convolve::conv_source::<c64>(),
        crate::medfilt::medfilt_source::<f32>(7),
        crate::medfilt::medfilt_source::<f64>(3),
        crate::medfilt::medfilt_source::<f64>(33),
        crate::axisfir::axisfir_source::<f32>(),
        crate::axisfir::axisfir_source::<f64>(),
        crate::axisfir::axisfir_source::<c32>(),
        crate::axisfir::axisfir_source::<c64>(),
    ];
    v.extend(crate::rankfilt::rankfilt_sources());
    for double in [false, true] {
        let key = if double {
            "signal_hilbert_f64"
        } else {
            "signal_hilbert_f32"
        };
        v.push((
            key.to_string(),
            crate::hilbert::hilbert_kernel_source(double),
        ));
    }
    v
}

/// `v` as an element of `T` (real part for complex types).
pub(crate) fn from_f64<T: Element>(v: f64) -> T {
    T::from_c64(c64::new(v, 0.0))
}
