//! The GPU half of the products: one cuBLAS `gemmStridedBatchedEx` call per product.

use super::{Bound, Gemm, Strided};
use crate::util::{cat, prod};
use crate::Scalar;
use cusci_core::{Array, CudaDevice, Result};

/// `a @ b` for `(..., M, K)` and `(..., K, N)` operands broadcast to `batch` (none empty). Row-major
/// `C = A B` is computed as the column-major `Cᵀ = Bᵀ Aᵀ`, so no operand is transposed in memory;
/// a 2-D operand that is a transposed view is passed with the transpose flag instead of being
/// copied; an operand whose batch is one matrix is broadcast with a batch stride of zero.
pub(crate) fn matmul<T: Scalar>(
    d: &CudaDevice,
    a: &Array<T>,
    b: &Array<T>,
    batch: &[usize],
) -> Result<Array<T>> {
    let (m, k) = (a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]);
    let n = b.shape()[b.ndim() - 1];
    let count = prod(batch);
    let (a_arr, a_t, sa) = operand(a, batch, m, k)?;
    let (b_arr, b_t, sb) = operand(b, batch, k, n)?;
    // every element is written by the GEMM (beta = 0): no fill pass
    let mut c = Array::<T>::empty(&cat(batch, &[m, n]), a.device())?;
    let bound = Bound::get(d)?;
    let h = bound.lock(d)?;
    // column-major: Cᵀ (n x m) = op(B') (n x k) · op(A') (k x m)
    h.gemm::<T>(&Gemm {
        m: n,
        n: m,
        k,
        batch: count,
        a: Strided {
            addr: b_arr.dev_ptr()?.addr(),
            ld: if b_t { k } else { n },
            stride: sb,
        },
        ta: b_t,
        b: Strided {
            addr: a_arr.dev_ptr()?.addr(),
            ld: if a_t { m } else { k },
            stride: sa,
        },
        tb: a_t,
        c: Strided {
            addr: c.dev_ptr_mut()?.addr(),
            ld: n,
            stride: m * n,
        },
    })?;
    Ok(c)
}

/// A GPU operand `(rows x cols)` of a batched product: the array whose storage is used, whether
/// that storage holds the matrix column-major (a transposed view), and the batch stride.
fn operand<T: Scalar>(
    x: &Array<T>,
    batch: &[usize],
    rows: usize,
    cols: usize,
) -> Result<(Array<T>, bool, usize)> {
    let xb = &x.shape()[..x.ndim() - 2];
    let nb = prod(xb);
    let st = x.strides();
    let nd = x.ndim();
    if nb == 1 {
        // one matrix: broadcast with stride 0; a transposed view is used as it is
        let col_major = rows > 1 && cols > 1 && st[nd - 2] == 1 && st[nd - 1] == rows as isize;
        if col_major {
            return Ok((x.clone(), true, 0));
        }
        return Ok((x.contiguous()?, false, 0));
    }
    let padded: Vec<usize> = std::iter::repeat_n(1, batch.len() - xb.len())
        .chain(xb.iter().copied())
        .collect();
    if padded == batch {
        return Ok((x.contiguous()?, false, rows * cols));
    }
    let full = x.broadcast_to(&cat(batch, &[rows, cols]))?.copy()?;
    Ok((full, false, rows * cols))
}
