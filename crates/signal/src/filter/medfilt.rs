//! The median filter [`medfilt`] (SciPy's `scipy.signal.medfilt` along the last axis).

use crate::procutil::{sized_kernel, sized_source};
use cusci_core::error::make;
use cusci_core::{
    Array, Backend, DType, Element, KernelModule, LaunchConfig, RealFloat, Result, Spec,
};
use rayon::prelude::*;

const SRC: &str = include_str!("medfilt.cu");

/// The median filter's kernel (`medfilt.cu`) for an element type and a kernel size `[k]`
/// (sorting networks up to 31 points, a selection beyond).
pub(crate) static MEDFILT: KernelModule = KernelModule {
    name: "signal_medfilt",
    source: |s| sized_source("signal_medfilt", "K", s, SRC),
    options: &[],
    samples: || {
        vec![
            Spec::of(&[DType::F32]).with(&[7]),
            Spec::of(&[DType::F64]).with(&[3]),
            Spec::of(&[DType::F64]).with(&[33]),
        ]
    },
};

/// Median-filters every row of `x` (the last axis) with a window of `kernel_size` points,
/// zero-padded at the edges, as SciPy's `scipy.signal.medfilt(x, kernel_size)` does for 1-D
/// input; leading axes are a batch of signals filtered independently.
///
/// On the GPU one thread computes one output; windows up to 31 points are sorted in registers
/// by a sorting network.
///
/// # Errors
/// `InvalidArgument` for an even or zero `kernel_size`, or a 0-d `x`.
///
/// ```
/// use cusci_signal::{medfilt, Array, Device};
/// let d = Device::cpu();
/// let x = Array::from_vec(vec![1.0, 9.0, 2.0, 3.0, 8.0], &[5], &d).unwrap();
/// assert_eq!(medfilt(&x, 3).unwrap().to_vec().unwrap(), vec![1.0, 2.0, 3.0, 3.0, 3.0]);
/// ```
pub fn medfilt<T: RealFloat>(x: &Array<T>, kernel_size: usize) -> Result<Array<T>> {
    let op = "medfilt";
    if kernel_size == 0 || kernel_size % 2 == 0 {
        return Err(make::arg(
            op,
            format!("kernel_size must be odd and positive, got {kernel_size}"),
        ));
    }
    if x.ndim() == 0 {
        return Err(make::arg(op, "x must have at least one dimension"));
    }
    let n = x.shape()[x.ndim() - 1];
    let rows = x.size().checked_div(n).unwrap_or(0);
    let k = kernel_size;
    match x.backend() {
        Backend::Host(h) => {
            let xd = h.try_to_contiguous()?;
            let mut y = vec![<T as Element>::zero(); x.size()];
            if n > 0 {
                y.par_chunks_mut(n).enumerate().for_each(|(r, yr)| {
                    let xr = &xd[r * n..(r + 1) * n];
                    let mut w = vec![<T as Element>::zero(); k];
                    for (t, out) in yr.iter_mut().enumerate() {
                        for (j, slot) in w.iter_mut().enumerate() {
                            let s = t as isize + j as isize - (k / 2) as isize;
                            *slot = if s >= 0 && (s as usize) < n {
                                xr[s as usize]
                            } else {
                                <T as Element>::zero()
                            };
                        }
                        w.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
                        *out = w[k / 2];
                    }
                });
            }
            Array::from_vec(y, x.shape(), x.device())
        }
        Backend::Cuda(c) => {
            let xc = x.contiguous()?;
            let mut y = Array::<T>::empty(x.shape(), x.device())?;
            if x.size() > 0 {
                let d = c.dev();
                let spec = Spec::of(&[T::DTYPE]).with(&[k as i64]);
                let f = sized_kernel(&MEDFILT, d, &spec, "medfilt")?;
                d.launch(&f, LaunchConfig::cover(x.size(), 256)?)
                    .arg(xc.dev_ptr()?)
                    .arg(y.dev_ptr_mut()?)
                    .arg(rows as i64)
                    .arg(n as i64)
                    .run()?;
            }
            Ok(y)
        }
    }
}
