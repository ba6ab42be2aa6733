//! The median filter [`medfilt`] (SciPy's `scipy.signal.medfilt`: an N-D window, zero padding).
//! A window that is longer than 1 along one axis at most runs the 1-D kernel (`medfilt.cu`,
//! sorting networks in registers) along that axis; any other window is the N-D rank filter of
//! [`order_filter`](crate::order_filter) with a box domain and the middle rank.

use super::rankfilt::{box_offsets, nan_last, rank_filter};
use crate::procutil::{sized_kernel, sized_source};
use cusci_core::array::layout::checked_bytes;
use cusci_core::cuda::launch::i64_of;
use cusci_core::error::make;
use cusci_core::host::check_request;
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

/// The window of [`medfilt`]: SciPy's `kernel_size`, one odd size for every axis (a scalar) or
/// one odd size per axis. `3usize.into()`, `[3, 5].into()`, `vec![1, 3, 3].into()` and
/// `(&[3, 5][..]).into()` build it; SciPy's default (`None`) is `All(3)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelSize {
    /// The same size along every axis (SciPy's scalar `kernel_size`).
    All(usize),
    /// One size per axis (SciPy's sequence `kernel_size`); its length must be the input's rank.
    PerAxis(Vec<usize>),
}

impl Default for KernelSize {
    fn default() -> Self {
        KernelSize::All(3)
    }
}

impl From<usize> for KernelSize {
    fn from(k: usize) -> Self {
        KernelSize::All(k)
    }
}

impl From<Vec<usize>> for KernelSize {
    fn from(k: Vec<usize>) -> Self {
        KernelSize::PerAxis(k)
    }
}

impl From<&[usize]> for KernelSize {
    fn from(k: &[usize]) -> Self {
        KernelSize::PerAxis(k.to_vec())
    }
}

impl<const N: usize> From<[usize; N]> for KernelSize {
    fn from(k: [usize; N]) -> Self {
        KernelSize::PerAxis(k.to_vec())
    }
}

impl<const N: usize> From<&[usize; N]> for KernelSize {
    fn from(k: &[usize; N]) -> Self {
        KernelSize::PerAxis(k.to_vec())
    }
}

/// The median filter of SciPy's `scipy.signal.medfilt(volume, kernel_size)`: each output is the
/// median of the `kernel_size` box centred on it (any number of dimensions), the volume
/// zero-padded beyond its edges. `kernel_size` is one odd size for every axis or one per axis
/// ([`KernelSize`]; SciPy's default is 3 along every axis). A 0-d input is taken as shape `[1]`,
/// as SciPy's `atleast_1d` does. To filter a batch of signals along the last axis only, give
/// the other axes size 1: `medfilt(&x, [1, 7])`.
///
/// Numerics: the median is an element of the window (no arithmetic), so both devices return
/// identical values. NaN sorts above +∞ (NumPy's sort order) on both devices, so a window
/// holding NaN gives a defined result; SciPy's result for such a window is an artefact of its
/// selection algorithm's comparisons and can differ (windows without NaN match exactly).
///
/// Device paths: a window longer than 1 along one axis at most runs one GPU thread per output
/// that sorts its window in registers (sorting networks up to 31 points); other windows run the
/// N-D rank filter of [`order_filter`](crate::order_filter), whose GPU path takes windows of up
/// to 1024 points.
///
/// # Errors
/// `InvalidArgument` for an even or zero size (SciPy: "Each element of kernel_size should be
/// odd."), for a per-axis `kernel_size` whose length is not the input's rank, or for a window
/// whose point count or bytes overflow; `OutOfMemory` for a window the host cannot hold (SciPy:
/// MemoryError), on either device; `NotImplemented` on the GPU for an N-D window of more than 1024
/// points.
///
/// ```
/// use cusci_signal::{medfilt, Array, Device};
/// let d = Device::cpu();
/// let x = Array::from_vec(vec![1.0, 9.0, 2.0, 3.0, 8.0], &[5], &d).unwrap();
/// assert_eq!(medfilt(&x, 3).unwrap().to_vec().unwrap(), vec![1.0, 2.0, 3.0, 3.0, 3.0]);
/// // 2-D: a 3x3 window; the corner sees 4 values and 5 padding zeros
/// let img = Array::from_vec(vec![5.0f64; 9], &[3, 3], &d).unwrap();
/// let y = medfilt(&img, 3).unwrap().to_vec().unwrap();
/// assert_eq!((y[0], y[1], y[4]), (0.0, 5.0, 5.0));
/// ```
pub fn medfilt<T: RealFloat>(
    volume: &Array<T>,
    kernel_size: impl Into<KernelSize>,
) -> Result<Array<T>> {
    let op = "medfilt";
    let x = if volume.ndim() == 0 {
        volume.reshape(&[1])?
    } else {
        volume.clone()
    };
    let nd = x.ndim();
    let ks = match kernel_size.into() {
        KernelSize::All(k) => vec![k; nd],
        KernelSize::PerAxis(v) if v.len() == nd => v,
        KernelSize::PerAxis(v) => {
            return Err(make::arg(
                op,
                format!(
                    "kernel_size has {} entries for an input of {nd} dimensions",
                    v.len()
                ),
            ))
        }
    };
    if ks.iter().any(|&k| k % 2 != 1) {
        return Err(make::arg(
            op,
            format!("Each element of kernel_size should be odd, got {ks:?}"),
        ));
    }
    let long: Vec<usize> = (0..nd).filter(|&a| ks[a] > 1).collect();
    if long.len() <= 1 {
        let axis = long.first().copied().unwrap_or(nd - 1);
        let k = ks[axis];
        // the window of k values (one per CPU task; SciPy holds a domain of k points) checked
        // here, for both devices: past isize::MAX bytes InvalidArgument, past the host's memory
        // OutOfMemory (SciPy: MemoryError), not an abort
        let wbytes = checked_bytes(op, k, std::mem::size_of::<T>())?;
        check_request(wbytes.saturating_mul(rayon::current_num_threads()))?;
        return medfilt_axis(&x, axis, k);
    }
    let cnt = ks
        .iter()
        .try_fold(1usize, |a, &k| a.checked_mul(k))
        .ok_or_else(|| make::arg(op, format!("a window of {ks:?} points overflows")))?;
    let offs = box_offsets(op, &ks)?;
    rank_filter(op, &x, &offs, cnt / 2)
}

/// The median of `k` points along `axis` (odd `k`), zero padding: the other axes are a batch.
fn medfilt_axis<T: RealFloat>(x: &Array<T>, axis: usize, k: usize) -> Result<Array<T>> {
    let shape = x.shape();
    let n = shape[axis];
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    match x.backend() {
        Backend::Host(h) => {
            let xd = h.try_to_contiguous()?;
            let mut y = vec![<T as Element>::zero(); x.size()];
            if n > 0 && inner > 0 {
                // one chunk per index of the axes before `axis`: n * inner outputs
                y.par_chunks_mut(n * inner).enumerate().for_each(|(o, yo)| {
                    let xo = &xd[o * n * inner..(o + 1) * n * inner];
                    let mut w = vec![<T as Element>::zero(); k];
                    for (q, out) in yo.iter_mut().enumerate() {
                        let (t, i) = (q / inner, q % inner);
                        for (j, slot) in w.iter_mut().enumerate() {
                            let s = t as isize + j as isize - (k / 2) as isize;
                            *slot = if s >= 0 && (s as usize) < n {
                                xo[s as usize * inner + i]
                            } else {
                                <T as Element>::zero()
                            };
                        }
                        let (_, v, _) = w.select_nth_unstable_by(k / 2, nan_last);
                        *out = *v;
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
                let spec = Spec::of(&[T::DTYPE]).with(&[i64_of("medfilt", k)?]);
                let f = sized_kernel(&MEDFILT, d, &spec, "medfilt")?;
                d.launch(&f, LaunchConfig::cover(x.size(), 256)?)
                    .arg(xc.dev_ptr()?)
                    .arg(y.dev_ptr_mut()?)
                    .arg(i64_of("medfilt", outer)?)
                    .arg(i64_of("medfilt", n)?)
                    .arg(i64_of("medfilt", inner)?)
                    .run()?;
            }
            Ok(y)
        }
    }
}
