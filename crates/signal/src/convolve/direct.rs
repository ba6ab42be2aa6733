//! The direct method of the 1-D and N-D convolution on the GPU (`convolve.cu`: one thread per
//! output) and on the CPU, and the reversed conjugate of a correlation's second input.

use crate::procutil::{
    each_dtype, host_elems, typed_kernel, typed_source, SignalScalar, DEF_TZERO, SIGNAL_DTYPES,
};
use cusci_core::cuda::launch::i32_of;
use cusci_core::{
    Array, Backend, CudaDevice, Element, Function, KernelModule, LaunchConfig, Result,
};
use rayon::prelude::*;

const SRC: &str = include_str!("convolve.cu");

/// The direct method's kernels (`convolve.cu`), one module per element type.
pub(crate) static CONVOLVE: KernelModule = KernelModule {
    name: "signal_convolve",
    source: |s| typed_source("signal_convolve", s, &[DEF_TZERO], SRC),
    options: &[],
    samples: || each_dtype(&SIGNAL_DTYPES),
};

fn kernel<T: Element>(d: &CudaDevice, name: &str) -> Result<Function> {
    typed_kernel(&CONVOLVE, d, T::DTYPE, name)
}

pub(super) fn revconj<T: SignalScalar>(v: &Array<T>) -> Result<Array<T>> {
    let m = v.size();
    match v.backend() {
        Backend::Host(h) => {
            let w: Vec<T> = h
                .try_to_contiguous()?
                .iter()
                .rev()
                .map(|x| x.conj())
                .collect();
            Array::from_vec(w, &[m], v.device())
        }
        Backend::Cuda(c) => {
            let vc = v.contiguous()?;
            let mut out = Array::<T>::empty(&[m], v.device())?;
            let d = c.dev();
            d.launch(&kernel::<T>(d, "revconj")?, LaunchConfig::cover(m, 256)?)
                .arg(vc.dev_ptr()?)
                .arg(out.dev_ptr_mut()?)
                .arg(m as i64)
                .run()?;
            Ok(out)
        }
    }
}

pub(super) fn direct<T: SignalScalar>(
    a: &Array<T>,
    v: &Array<T>,
    corr: bool,
    start: usize,
    len: usize,
) -> Result<Array<T>> {
    let (n, m) = (a.size(), v.size());
    match a.backend() {
        Backend::Host(h) => {
            let ad = h.try_to_contiguous()?;
            let vd = host_elems(v)?;
            let w: Vec<T> = if corr {
                vd.iter().rev().map(|x| x.conj()).collect()
            } else {
                vd.to_vec()
            };
            let mut out = vec![T::zero(); len];
            out.par_chunks_mut(4096).enumerate().for_each(|(c, chunk)| {
                for (o, slot) in chunk.iter_mut().enumerate() {
                    let k = start + c * 4096 + o;
                    let j0 = (k + 1).saturating_sub(n);
                    let j1 = k.min(m - 1);
                    let mut acc = T::zero();
                    for j in j0..=j1 {
                        acc += ad[k - j] * w[j];
                    }
                    *slot = acc;
                }
            });
            Array::from_vec(out, &[len], a.device())
        }
        Backend::Cuda(c) => {
            let (ac, vc) = (a.contiguous()?, v.contiguous()?);
            let mut out = Array::<T>::empty(&[len], a.device())?;
            let d = c.dev();
            d.launch(&kernel::<T>(d, "direct")?, LaunchConfig::cover(len, 256)?)
                .arg(ac.dev_ptr()?)
                .arg(n as i64)
                .arg(vc.dev_ptr()?)
                .arg(m as i64)
                .arg(corr as i32)
                .arg(out.dev_ptr_mut()?)
                .arg(start as i64)
                .arg(len as i64)
                .run()?;
            Ok(out)
        }
    }
}

/// The window `start[d] .. start[d] + len[d]` (per axis) of the full N-D convolution of `a` with
/// `w` (same number of axes, both non-empty), by the direct sum over `w`'s points: the direct
/// method of SciPy's `convolve` for inputs of three or more axes.
pub(super) fn direct_nd<T: SignalScalar>(
    a: &Array<T>,
    w: &Array<T>,
    start: &[usize],
    len: &[usize],
) -> Result<Array<T>> {
    let nd = a.ndim();
    let total = cusci_core::array::layout::checked_numel("convolve", len)?;
    let dims: Vec<i64> = [a.shape(), w.shape(), start, len]
        .concat()
        .into_iter()
        .map(|v| v as i64)
        .collect();
    match a.backend() {
        Backend::Host(h) => {
            let ad = h.try_to_contiguous()?;
            let wd = host_elems(w)?;
            let mut out = cusci_core::host::try_vec_zeroed::<T>("convolve", total)?;
            let (ash, wsh) = (&dims[..nd], &dims[nd..2 * nd]);
            let (st, ln) = (&dims[2 * nd..3 * nd], &dims[3 * nd..]);
            out.par_chunks_mut(1024).enumerate().for_each(|(c, chunk)| {
                for (o, slot) in chunk.iter_mut().enumerate() {
                    let idx = (c * 1024 + o) as i64;
                    let mut acc = T::zero();
                    'points: for (j, &wj) in wd.iter().enumerate() {
                        let (mut oi, mut jj, mut off, mut stride) = (idx, j as i64, 0i64, 1i64);
                        for d in (0..nd).rev() {
                            let x = oi % ln[d] + st[d] - jj % wsh[d];
                            oi /= ln[d];
                            jj /= wsh[d];
                            if x < 0 || x >= ash[d] {
                                continue 'points;
                            }
                            off += x * stride;
                            stride *= ash[d];
                        }
                        acc += ad[off as usize] * wj;
                    }
                    *slot = acc;
                }
            });
            Array::from_vec(out, len, a.device())
        }
        Backend::Cuda(c) => {
            let (ac, wc) = (a.contiguous()?, w.contiguous()?);
            let dims = Array::from_vec(dims, &[4 * nd], a.device())?;
            let mut out = Array::<T>::empty(len, a.device())?;
            if total == 0 {
                return Ok(out);
            }
            let d = c.dev();
            d.launch(&kernel::<T>(d, "direct_nd")?, d.grid_stride(total, 256, 8))
                .arg(ac.dev_ptr()?)
                .arg(wc.dev_ptr()?)
                .arg(dims.dev_ptr()?)
                .arg(i32_of("convolve", nd)?)
                .arg(out.dev_ptr_mut()?)
                .arg(total as i64)
                .arg(w.size() as i64)
                .run()?;
            Ok(out)
        }
    }
}
