//! Shapes of matrix stacks, batch broadcasting, and the CPU's per-matrix map.

use crate::shared::{finite_checks_on, nonfinite};
use crate::Scalar;
use cusci_core::error::make;
use cusci_core::{Array, Backend, Device, Result};
use rayon::prelude::*;

/// `(batch shape, rows, cols)` of an array of ndim ≥ 2.
pub(crate) fn mat_dims<T: Scalar>(op: &str, a: &Array<T>) -> Result<(Vec<usize>, usize, usize)> {
    let s = a.shape();
    if s.len() < 2 {
        return Err(make::arg(
            op,
            format!(
                "{}-dimensional array given, at least 2 dimensions needed",
                s.len()
            ),
        ));
    }
    Ok((s[..s.len() - 2].to_vec(), s[s.len() - 2], s[s.len() - 1]))
}

/// `(batch shape, n)` of a stack of square matrices.
pub(crate) fn square_dims<T: Scalar>(op: &str, a: &Array<T>) -> Result<(Vec<usize>, usize)> {
    let (b, m, n) = mat_dims(op, a)?;
    if m != n {
        return Err(make::arg(
            op,
            format!("last 2 dimensions must be square, got {m}x{n}"),
        ));
    }
    Ok((b, n))
}

pub(crate) fn prod(s: &[usize]) -> usize {
    s.iter().product()
}

pub(crate) fn cat(a: &[usize], b: &[usize]) -> Vec<usize> {
    let mut v = a.to_vec();
    v.extend_from_slice(b);
    v
}

/// The two arrays must live on the same device.
pub(crate) fn same_device<T: Scalar, U: Scalar>(
    op: &str,
    a: &Array<T>,
    b: &Array<U>,
) -> Result<()> {
    cusci_core::array::check_same_device(op, a.device(), b.device())
}

/// The error of a failed matrix of a stack: for a single matrix the failing pivot or minor, for a
/// stack the flat index of the matrix.
pub(crate) fn which(batched: bool, matrix: usize, inner: usize) -> usize {
    if batched {
        matrix
    } else {
        inner
    }
}

/// Runs `f` on every matrix of `data` (`count` matrices of `stride` elements) in parallel; the
/// error of the lowest failing matrix wins, so the result never depends on the thread count.
pub(crate) fn cpu_map<T: Scalar, O: Send>(
    data: &[T],
    count: usize,
    stride: usize,
    f: impl Fn(usize, &[T]) -> Result<O> + Sync + Send,
) -> Result<Vec<O>> {
    let r: Vec<Result<O>> = (0..count)
        .into_par_iter()
        .map(|i| f(i, &data[i * stride..(i + 1) * stride]))
        .collect();
    r.into_iter().collect()
}

/// An array from host data on the CPU.
pub(crate) fn cpu_array<T: cusci_core::Element>(data: Vec<T>, shape: &[usize]) -> Result<Array<T>> {
    Array::from_vec(data, shape, &Device::Cpu)
}

/// `InvalidArgument` unless every element is finite (SciPy's `check_finite`). On the GPU one
/// read-only kernel pass sets a device flag, and the flag (4 bytes) is read back (this
/// synchronises); callers that read other results anyway fold the check into their own status
/// read instead (`cuda::kernels::checked_copy`).
///
/// Every SciPy function with `check_finite=True` by default runs this check (or its fused GPU
/// form) on its inputs, with one error text; [`without_finite_check`] turns all of them off for a
/// closure, as `check_finite=False` does for one call.
pub(crate) fn check_finite<T: Scalar>(op: &str, a: &Array<T>) -> Result<()> {
    if !finite_checks_on() {
        return Ok(());
    }
    match a.backend() {
        Backend::Host(h) => {
            use cusci_core::RealFloat;
            let ok = h
                .try_to_contiguous()?
                .iter()
                .all(|s| s.re().to_f64().is_finite() && s.im().to_f64().is_finite());
            if !ok {
                return Err(nonfinite(op));
            }
            Ok(())
        }
        Backend::Cuda(c) => crate::cuda::kernels::check_finite(c.dev(), op, a),
    }
}

/// The `n x n` identity on `dev` (on the GPU written by a kernel, not uploaded).
pub(crate) fn eye<T: Scalar>(n: usize, dev: &Device) -> Result<Array<T>> {
    match dev {
        Device::Cpu => Array::<T>::eye(n, None, 0, dev),
        Device::Cuda(d) => {
            crate::cuda::kernels::eye_batch::<T>(d, n, 1)?.reshape(&[n as isize, n as isize])
        }
    }
}
