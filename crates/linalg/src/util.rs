//! Shapes of matrix stacks, batch broadcasting, and the CPU's per-matrix map.

use crate::Scalar;
use cusci_core::error::make;
use cusci_core::{Array, Device, Result};
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

/// NumPy's broadcast of two batch shapes.
pub(crate) fn broadcast_shapes(op: &str, a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let x = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let y = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = if x == y || y == 1 {
            x
        } else if x == 1 {
            y
        } else {
            return Err(make::shape(
                op,
                format!("batch shapes {a:?} and {b:?} do not broadcast"),
            ));
        };
    }
    Ok(out)
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
pub(crate) fn check_finite<T: Scalar>(op: &str, a: &Array<T>) -> Result<()> {
    if a.is_empty() {
        return Ok(());
    }
    let ok = match a.device() {
        Device::Cpu => {
            use cusci_core::RealFloat;
            a.to_vec()?
                .iter()
                .all(|s| s.re().to_f64().is_finite() && s.im().to_f64().is_finite())
        }
        Device::Cuda(_) => {
            let flag = Array::<i32>::zeros(&[1], a.device())?;
            let c = a.contiguous()?;
            crate::cuda::kernels::finite_copy(&c, None, crate::cuda::kernels::addr(&flag))?;
            flag.to_vec()?[0] == 0
        }
    };
    if !ok {
        return Err(nonfinite(op));
    }
    Ok(())
}

/// SciPy's `check_finite` error.
pub(crate) fn nonfinite(op: &str) -> cusci_core::Error {
    make::arg(op, "array must not contain infs or NaNs")
}

/// The transposed (last two axes) contiguous copy: the column-major storage of the matrices.
/// GPU: one tiled kernel (coalesced reads and writes).
pub(crate) fn transposed_copy<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    let t = a.swapaxes(-1, -2)?;
    match a.device() {
        Device::Cpu => t.copy(),
        Device::Cuda(_) => crate::cuda::kernels::tile_copy(&t, 0, 0, false),
    }
}

/// The `n x n` identity on `dev` (on the GPU written by a kernel, not uploaded).
pub(crate) fn eye<T: Scalar>(n: usize, dev: &Device) -> Result<Array<T>> {
    match dev {
        Device::Cpu => Array::<T>::eye(n, None, 0, dev),
        Device::Cuda(_) => {
            crate::cuda::kernels::eye_batch::<T>(n, 1, dev)?.reshape(&[n as isize, n as isize])
        }
    }
}
