//! Products: `matmul`, `dot`, `vdot`, `inner`, `outer`, `tensordot`, `trace`.
//!
//! On the GPU every product is one cuBLAS `gemmStridedBatchedEx` call (compute type = element
//! type, `COMPUTE_32F` without TF32 for f32). Row-major `C = A B` is computed as the column-major
//! `Cᵀ = Bᵀ Aᵀ`, so no operand is transposed in memory; a 2-D operand that is a transposed view
//! (`a.t()`) is passed with the transpose flag instead of being copied; an operand whose batch is
//! one matrix is broadcast with a batch stride of zero.

use crate::util::{cat, cpu_array, mat_dims, prod, same_device};
use crate::{cpu, cuda, Scalar};
use cusci_core::array::layout::{broadcast_shapes, norm_axis};
use cusci_core::error::make;
use cusci_core::{Array, Backend, Result};
use rayon::prelude::*;

/// Matrix product of two arrays with NumPy's `matmul` rules (`a @ b`).
///
/// 1-D operands are promoted to a row (`a`) or a column (`b`) and the added axis is removed from
/// the result; the leading axes of `(..., M, K)` and `(..., K, N)` broadcast.
///
/// # Errors
/// `ShapeMismatch` when the inner dimensions differ or the batch shapes do not broadcast;
/// `InvalidArgument` for 0-d operands; `DeviceMismatch` for arrays on different devices.
///
/// # Numerics
/// Sums in the element type (cuBLAS's compute type is the element type; no TF32); the CPU
/// reference (faer) sums in a different order: agreement is to about `ε·K`.
///
/// ```
/// use cusci_linalg::{matmul, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2], &Device::Cpu)?;
/// let c = matmul(&a, &a)?;
/// assert_eq!(c.to_vec()?, vec![7.0, 10.0, 15.0, 22.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn matmul<T: Scalar>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    let op = "matmul";
    same_device(op, a, b)?;
    if a.ndim() == 0 || b.ndim() == 0 {
        return Err(make::arg(
            op,
            "matmul does not accept 0-d arrays (use multiply)",
        ));
    }
    let a2 = if a.ndim() == 1 {
        a.expand_dims(0)?
    } else {
        a.clone()
    };
    let b2 = if b.ndim() == 1 {
        b.expand_dims(1)?
    } else {
        b.clone()
    };
    let mut c = matmul_nd(op, &a2, &b2)?;
    if b.ndim() == 1 {
        c = c.index_axis(-1, 0)?;
    }
    if a.ndim() == 1 {
        let nd = c.ndim() as isize;
        c = c.index_axis(if b.ndim() == 1 { nd - 1 } else { nd - 2 }, 0)?;
    }
    Ok(c)
}

fn matmul_nd<T: Scalar>(op: &str, a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    let (ba, m, k) = mat_dims(op, a)?;
    let (bb, k2, n) = mat_dims(op, b)?;
    if k != k2 {
        return Err(make::shape(
            op,
            format!("inner dimensions differ: {:?} @ {:?}", a.shape(), b.shape()),
        ));
    }
    let batch = broadcast_shapes(op, &ba, &bb)?;
    let out_shape = cat(&batch, &[m, n]);
    let count = prod(&batch);
    if count == 0 || m == 0 || n == 0 || k == 0 {
        return Array::zeros(&out_shape, a.device());
    }
    match a.backend() {
        Backend::Host(_) => {
            let av = a.broadcast_to(&cat(&batch, &[m, k]))?.to_vec()?;
            let bv = b.broadcast_to(&cat(&batch, &[k, n]))?.to_vec()?;
            let mut c = vec![T::zero(); count * m * n];
            if count == 1 {
                // one product: row blocks in parallel (each element's sum is sequential)
                const RB: usize = 64;
                c.par_chunks_mut(RB * n).enumerate().for_each(|(i, cb)| {
                    let r0 = i * RB;
                    let rows = cb.len() / n;
                    cpu::matmul(&av[r0 * k..(r0 + rows) * k], &bv, rows, k, n, cb);
                });
            } else {
                c.par_chunks_mut(m * n).enumerate().for_each(|(i, cb)| {
                    cpu::matmul(
                        &av[i * m * k..(i + 1) * m * k],
                        &bv[i * k * n..(i + 1) * k * n],
                        m,
                        k,
                        n,
                        cb,
                    );
                });
            }
            cpu_array(c, &out_shape)
        }
        Backend::Cuda(c) => cuda::products::matmul(c.dev(), a, b, &batch),
    }
}

/// Dot product with NumPy's `dot` rules: 1-D·1-D is the inner product (a 0-d array), 2-D·2-D the
/// matrix product, N-D·1-D sums over the last axis of `a`, and N-D·M-D sums over the last axis of
/// `a` and the second-to-last of `b` (`tensordot(a, b, [-1], [-2])`).
///
/// # Errors
/// `ShapeMismatch` when the summed dimensions differ; `InvalidArgument` for 0-d operands.
///
/// ```
/// use cusci_linalg::{dot, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3], &Device::Cpu)?;
/// assert_eq!(dot(&x, &x)?.item()?, 14.0);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn dot<T: Scalar>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    let op = "dot";
    if a.ndim() == 0 || b.ndim() == 0 {
        return Err(make::arg(
            op,
            "0-d operands: use element-wise multiplication",
        ));
    }
    if b.ndim() == 1 {
        return tensordot(a, b, &[-1], &[0]);
    }
    tensordot(a, b, &[-1], &[-2])
}

/// `sum(conj(a) * b)` over the flattened arrays (NumPy's `vdot`), as a 0-d array.
///
/// # Errors
/// `ShapeMismatch` when the sizes differ.
///
/// ```
/// use cusci_linalg::{vdot, Array, Device, c64};
/// let x = Array::from_vec(vec![c64::new(0.0, 1.0)], &[1], &Device::Cpu)?;
/// assert_eq!(vdot(&x, &x)?.item()?, c64::new(1.0, 0.0));
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn vdot<T: Scalar>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    let op = "vdot";
    same_device(op, a, b)?;
    if a.size() != b.size() {
        return Err(make::shape(
            op,
            format!("sizes differ: {} and {}", a.size(), b.size()),
        ));
    }
    let x = a.conj()?.reshape(&[1, -1])?;
    let y = b.reshape(&[-1, 1])?;
    matmul(&x, &y)?.reshape(&[])
}

/// Inner product over the last axes (NumPy's `inner`): `tensordot(a, b, [-1], [-1])`.
///
/// # Errors
/// `ShapeMismatch` when the last dimensions differ.
///
/// ```
/// use cusci_linalg::{inner, Array, Device};
/// let x = Array::from_vec(vec![1.0f32, 2.0], &[2], &Device::Cpu)?;
/// assert_eq!(inner(&x, &x)?.item()?, 5.0);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn inner<T: Scalar>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    if a.ndim() == 0 || b.ndim() == 0 {
        return Err(make::arg(
            "inner",
            "0-d operands: use element-wise multiplication",
        ));
    }
    tensordot(a, b, &[-1], &[-1])
}

/// Outer product of the flattened arrays (NumPy's `outer`): `out[i, j] = a[i] * b[j]`.
///
/// ```
/// use cusci_linalg::{outer, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 2.0], &[2], &Device::Cpu)?;
/// assert_eq!(outer(&x, &x)?.to_vec()?, vec![1.0, 2.0, 2.0, 4.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn outer<T: Scalar>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    same_device("outer", a, b)?;
    let x = a.reshape(&[-1, 1])?;
    let y = b.reshape(&[1, -1])?;
    // a broadcast multiply is exact (no sums)
    x.mul(&y)
}

/// The axes normalised, in the order given (they pair with the other operand's), none repeated.
fn norm_axes(op: &str, axes: &[isize], nd: usize) -> Result<Vec<usize>> {
    let mut out = Vec::new();
    for &ax in axes {
        let a = norm_axis(op, ax, nd)?;
        if out.contains(&a) {
            return Err(make::arg(op, format!("repeated axis {ax}")));
        }
        out.push(a);
    }
    Ok(out)
}

/// Sum of products over the axes `axes_a` of `a` and `axes_b` of `b` (NumPy's `tensordot`); the
/// result's axes are the free axes of `a` followed by those of `b`. One GEMM on the GPU.
///
/// # Errors
/// `ShapeMismatch` when paired axes differ in length or the lists differ in length;
/// `InvalidArgument` for repeated or out-of-range axes.
///
/// ```
/// use cusci_linalg::{tensordot, Array, Device};
/// let a = Array::<f64>::ones(&[2, 3, 4], &Device::Cpu)?;
/// let b = Array::<f64>::ones(&[3, 4, 5], &Device::Cpu)?;
/// let c = tensordot(&a, &b, &[1, 2], &[0, 1])?;
/// assert_eq!(c.shape(), &[2, 5]);
/// assert_eq!(c.to_vec()?[0], 12.0);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn tensordot<T: Scalar>(
    a: &Array<T>,
    b: &Array<T>,
    axes_a: &[isize],
    axes_b: &[isize],
) -> Result<Array<T>> {
    let op = "tensordot";
    same_device(op, a, b)?;
    if axes_a.len() != axes_b.len() {
        return Err(make::shape(op, "axes lists of different lengths"));
    }
    let ca = norm_axes(op, axes_a, a.ndim())?;
    let cb = norm_axes(op, axes_b, b.ndim())?;
    for (&x, &y) in ca.iter().zip(&cb) {
        if a.shape()[x] != b.shape()[y] {
            return Err(make::shape(
                op,
                format!(
                    "axis {x} of {:?} and axis {y} of {:?} differ",
                    a.shape(),
                    b.shape()
                ),
            ));
        }
    }
    let fa: Vec<usize> = (0..a.ndim()).filter(|i| !ca.contains(i)).collect();
    let fb: Vec<usize> = (0..b.ndim()).filter(|i| !cb.contains(i)).collect();
    let m: usize = fa.iter().map(|&i| a.shape()[i]).product();
    let n: usize = fb.iter().map(|&i| b.shape()[i]).product();
    let k: usize = ca.iter().map(|&i| a.shape()[i]).product();
    let perm_a: Vec<isize> = fa.iter().chain(&ca).map(|&i| i as isize).collect();
    let perm_b: Vec<isize> = cb.iter().chain(&fb).map(|&i| i as isize).collect();
    let a2 = a
        .permute(&perm_a)?
        .contiguous()?
        .reshape(&[m as isize, k as isize])?;
    let b2 = b
        .permute(&perm_b)?
        .contiguous()?
        .reshape(&[k as isize, n as isize])?;
    let c = matmul(&a2, &b2)?;
    let shape: Vec<isize> = fa
        .iter()
        .map(|&i| a.shape()[i] as isize)
        .chain(fb.iter().map(|&i| b.shape()[i] as isize))
        .collect();
    c.reshape(&shape)
}

/// Sum along the `offset` diagonal of the first two axes (NumPy's `trace` with `axis1=0,
/// axis2=1`); the result has the remaining axes (0-d for a matrix).
///
/// # Errors
/// `InvalidArgument` for arrays of fewer than 2 dimensions.
///
/// ```
/// use cusci_linalg::{trace, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2], &Device::Cpu)?;
/// assert_eq!(trace(&a, 0)?.item()?, 5.0);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn trace<T: Scalar>(a: &Array<T>, offset: isize) -> Result<Array<T>> {
    let op = "trace";
    if a.ndim() < 2 {
        return Err(make::arg(op, "trace needs at least 2 dimensions"));
    }
    let (n, m) = (a.shape()[0], a.shape()[1]);
    let mut mask_shape: Vec<isize> = vec![n as isize, m as isize];
    mask_shape.extend(std::iter::repeat_n(1, a.ndim() - 2));
    let eye = Array::<T>::eye(n, Some(m), offset, a.device())?.reshape(&mask_shape)?;
    a.mul(&eye)?.sum_axes(&[0, 1])
}
