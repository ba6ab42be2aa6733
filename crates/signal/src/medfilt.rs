//! The median filter [`medfilt`] (SciPy's `scipy.signal.medfilt` along the last axis).

use crate::procutil::{blocks_for, cpu_contig, cuda_type, dptr};
use cusci_core::cuda::kernel::{Args, LaunchConfig};
use cusci_core::error::make;
use cusci_core::{Array, Device, Element, RealFloat, Result};
use rayon::prelude::*;

const SRC: &str = include_str!("medfilt.cu");

/// The kernel module of [`medfilt`] for `T` and kernel size `k`: (name prefix, source).
pub(crate) fn medfilt_source<T: Element>(k: usize) -> (String, String) {
    let prefix = format!("signal_medfilt_{}_k{k}", T::DTYPE.tag());
    let src = format!(
        "#define T {}\n#define K {k}\n#define NAME(x) {prefix}_##x\n{SRC}",
        cuda_type::<T>()
    );
    (prefix, src)
}

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
    match x.device() {
        Device::Cpu => {
            let xd = cpu_contig(x)?;
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
        Device::Cuda(d) => {
            let xc = x.contiguous()?;
            let y = Array::<T>::empty(x.shape(), x.device())?;
            if x.size() > 0 {
                let (key, src) = medfilt_source::<T>(k);
                let f = d.function(&key, || src, &[], &format!("{key}_medfilt"))?;
                let mut a = Args::new();
                a.push(dptr(&xc))
                    .push(dptr(&y))
                    .push(rows as i64)
                    .push(n as i64);
                f.launch(
                    d,
                    LaunchConfig::linear(blocks_for(x.size(), 256), 256),
                    &mut a,
                )?;
            }
            Ok(y)
        }
    }
}
