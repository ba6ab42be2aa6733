//! The peak kernels (`peaks.cu`) and the helpers that every peak function shares: index and
//! value arrays, and the compaction of flags to indices.

use crate::procutil::{each_dtype, typed_kernel, typed_source, REAL_DTYPES};
use cusci_core::{
    Array, Backend, CudaDevice, Device, Element, Function, KernelModule, LaunchConfig, Result,
};

const SRC: &str = include_str!("peaks.cu");

/// The peak kernels (`peaks.cu`) for an element type (argrelextrema's data type; find_peaks and
/// its helpers use the f64 module).
pub(crate) static PEAKS: KernelModule = KernelModule {
    name: "signal_peaks",
    source: |s| typed_source("signal_peaks", s, &[], SRC),
    options: &[],
    samples: || each_dtype(&REAL_DTYPES),
};

/// The kernel `name` of [`PEAKS`] for `T`.
pub(super) fn kernel<T: Element>(d: &CudaDevice, name: &str) -> Result<Function> {
    typed_kernel(&PEAKS, d, T::DTYPE, name)
}

/// One thread per item (`n > 0`).
pub(super) fn grid(n: usize) -> Result<LaunchConfig> {
    LaunchConfig::cover(n, 256)
}

pub(super) fn zeros_i(dev: &Device, m: usize) -> Result<Array<i64>> {
    Array::<i64>::empty(&[m], dev)
}
pub(super) fn zeros_f(dev: &Device, m: usize) -> Result<Array<f64>> {
    Array::<f64>::empty(&[m], dev)
}
pub(super) fn vi(v: Vec<i64>, dev: &Device) -> Result<Array<i64>> {
    let n = v.len();
    Array::from_vec(v, &[n], dev)
}
pub(super) fn vf(v: Vec<f64>, dev: &Device) -> Result<Array<f64>> {
    let n = v.len();
    Array::from_vec(v, &[n], dev)
}

/// The indices of the nonzero flags, in order (on the flags' device).
pub(super) fn compact(flags: &Array<i64>) -> Result<Array<i64>> {
    let dev = flags.device();
    let n = flags.size();
    match flags.backend() {
        Backend::Host(h) => {
            let f = h.try_to_contiguous()?;
            vi(
                (0..n).filter(|&i| f[i] != 0).map(|i| i as i64).collect(),
                dev,
            )
        }
        Backend::Cuda(c) => {
            if n == 0 {
                return zeros_i(dev, 0);
            }
            let d = c.dev();
            let cs = flags.cumsum(0)?;
            let m = cs.index_axis(0, -1)?.item()? as usize;
            let mut out = zeros_i(dev, m)?;
            d.launch(&kernel::<f64>(d, "scatter")?, grid(n)?)
                .arg(c.ptr())
                .arg(cs.dev_ptr()?)
                .arg(n as i64)
                .arg(out.dev_ptr_mut()?)
                .run()?;
            Ok(out)
        }
    }
}
