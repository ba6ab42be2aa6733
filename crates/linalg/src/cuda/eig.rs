//! The GPU half of `eig`/`eigvals`: cuSOLVER's `Xgeev` (CUDA 12.6 and later) on the complex
//! matrices.

use super::kernels::transposed_copy;
use super::{has_xgeev, Addr, Bound};
use crate::cpu::eig_cpu;
use crate::shared::no_conv;
use crate::util::cat;
use crate::Scalar;
use cusci_core::{Array, CudaDevice, Device, Result};

/// Eigenvalues (`(batch..., n)`) and, when `vectors`, right eigenvectors (`(batch..., n, n)`) of
/// the `count` matrices `n x n` of `a` (none empty) by `Xgeev`; with an older cuSOLVER (no
/// `Xgeev`) the matrices are solved on the host and the results copied back to the device.
/// Synchronises (to read `info`).
#[allow(clippy::type_complexity)]
pub(crate) fn eig<T: Scalar>(
    d: &CudaDevice,
    op: &str,
    a: &Array<T>,
    vectors: bool,
    batch: &[usize],
    n: usize,
) -> Result<(Array<T::C>, Option<Array<T::C>>)> {
    let count: usize = batch.iter().product();
    let dev = a.device().clone();
    let bound = Bound::get(d)?;
    if !has_xgeev() {
        let (w_shape, v_shape) = (cat(batch, &[n]), cat(batch, &[n, n]));
        let host = a.to_device(&Device::Cpu)?;
        let (w, v) = eig_cpu(op, &host, vectors, count, n, &w_shape, &v_shape)?;
        let v = match v {
            Some(v) => Some(v.to_device(&dev)?),
            None => None,
        };
        return Ok((w.to_device(&dev)?, v));
    }
    // Xgeev on the complex matrix: real inputs are promoted (the eigenvectors of a real
    // matrix come back from LAPACK packed in real pairs; the complex solve returns them
    // as they are, with the same normalisation)
    let mut f = transposed_copy(d, &a.astype::<T::C>()?)?; // column-major A
    let mut w = Array::<T::C>::empty(&[count, n], &dev)?;
    let mut vr = if vectors {
        Array::<T::C>::empty(&[count, n, n], &dev)?
    } else {
        Array::<T::C>::empty(&[1], &dev)?
    };
    let mut info = Array::<i32>::zeros(&[count], &dev)?;
    let mut hosts = Vec::with_capacity(count);
    {
        let h = bound.lock(d)?;
        let (fp, wp) = (f.dev_ptr_mut()?, w.dev_ptr_mut()?);
        let (vp, ip) = (vr.dev_ptr_mut()?, info.dev_ptr_mut()?);
        for i in 0..count {
            hosts.push(h.geev::<T::C>(
                vectors,
                n,
                fp.at(i * n * n)?,
                wp.at(i * n)?,
                vp.at(if vectors { i * n * n } else { 0 })?,
                ip.at(i)?,
            )?);
        }
    }
    // one small read-back after all the work is queued (it synchronises the stream)
    let infos = info.to_vec()?;
    drop(hosts);
    if let Some(&v) = infos.iter().find(|&&v| v != 0) {
        return Err(if v > 0 {
            no_conv(op, v)
        } else {
            cusci_core::error::make::arg(op, format!("cuSOLVER rejected argument {}", -v))
        });
    }
    let shp = |v: &[usize]| v.iter().map(|&x| x as isize).collect::<Vec<_>>();
    let w = w.reshape(&shp(&cat(batch, &[n])))?;
    if !vectors {
        return Ok((w, None));
    }
    // column-major VR read row-major is VRᵀ
    let v = vr
        .reshape(&shp(&cat(batch, &[n, n])))?
        .swapaxes(-1, -2)?
        .copy()?;
    Ok((w, Some(v)))
}
