//! Eigenvalues and right eigenvectors of general (non-Hermitian) matrices: faer on the CPU,
//! cuSOLVER's `Xgeev` on the GPU (CUDA 12.6 and later; with an older cuSOLVER the matrices are
//! solved on the host and the results copied back to the device).

use crate::cpu::eig_cpu;
use crate::util::{cat, check_finite, prod, square_dims};
use crate::{cuda, Scalar};
use cusci_core::{Array, Backend, Result};

/// Eigenvalues and right eigenvectors of square matrices (NumPy's `linalg.eig`, SciPy's
/// `linalg.eig` with `left=False`): `w` (`(..., N)`) and `v` (`(..., N, N)`) with
/// `a @ v[:, i] = w[i] * v[:, i]`, always complex ([`Scalar::C`]). Each eigenvector has unit
/// 2-norm. The order of the eigenvalues is the solver's (LAPACK's on the GPU, faer's on the CPU):
/// it is not sorted, and the two devices may order them differently.
///
/// # Errors
/// `InvalidArgument` when not square or when `a` holds NaN or infinity (SciPy's `check_finite`);
/// `NoConvergence`. Synchronises on the GPU.
///
/// ```
/// use cusci_linalg::{eig, Array, Device};
/// let a = Array::from_vec(vec![0.0f64, -1.0, 1.0, 0.0], &[2, 2], &Device::Cpu)?;
/// let (w, _v) = eig(&a)?;
/// // the rotation by 90° has eigenvalues ±i
/// assert!(w.to_vec()?.iter().all(|z| z.re.abs() < 1e-12 && (z.im.abs() - 1.0).abs() < 1e-12));
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
#[allow(clippy::type_complexity)]
pub fn eig<T: Scalar>(a: &Array<T>) -> Result<(Array<T::C>, Array<T::C>)> {
    let (w, v) = eig_impl(a, true)?;
    let v = v.ok_or_else(|| cusci_core::error::make::arg("eig", "eigenvectors missing"))?;
    Ok((w, v))
}

/// Eigenvalues of square matrices (NumPy's `linalg.eigvals`), complex, in the solver's order.
///
/// # Errors
/// As [`eig`].
pub fn eigvals<T: Scalar>(a: &Array<T>) -> Result<Array<T::C>> {
    Ok(eig_impl(a, false)?.0)
}

#[allow(clippy::type_complexity)]
fn eig_impl<T: Scalar>(a: &Array<T>, vectors: bool) -> Result<(Array<T::C>, Option<Array<T::C>>)> {
    let op = if vectors { "eig" } else { "eigvals" };
    let (batch, n) = square_dims(op, a)?;
    let count = prod(&batch);
    let w_shape = cat(&batch, &[n]);
    let v_shape = cat(&batch, &[n, n]);
    if count == 0 || n == 0 {
        let v = if vectors {
            Some(Array::zeros(&v_shape, a.device())?)
        } else {
            None
        };
        return Ok((Array::zeros(&w_shape, a.device())?, v));
    }
    check_finite(op, a)?;
    match a.backend() {
        Backend::Host(_) => eig_cpu(op, a, vectors, count, n, &w_shape, &v_shape),
        Backend::Cuda(c) => cuda::eig::eig(c.dev(), op, a, vectors, &batch, n),
    }
}
