//! Eigenvalues and right eigenvectors of general (non-Hermitian) matrices: faer on the CPU,
//! cuSOLVER's `Xgeev` on the GPU (CUDA 12.6 and later; with an older cuSOLVER the matrices are
//! solved on the host and the results copied back to the device).

use crate::util::{cat, check_finite, cpu_array, cpu_map, prod, square_dims};
use crate::{cpu, cuda, Scalar};
use cusci_core::{Array, Backend, Error, Float, Result};

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

pub(crate) fn no_conv(op: &str, info: i32) -> Error {
    // `residual` carries cuSOLVER's info (the number of eigenvalues that did not converge)
    Error::NoConvergence {
        op: op.into(),
        iterations: 0,
        residual: info as f64,
    }
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

/// `eig` on the CPU (faer) of the `count` matrices `n x n` of `a` (none empty).
#[allow(clippy::type_complexity)]
pub(crate) fn eig_cpu<T: Scalar>(
    op: &str,
    a: &Array<T>,
    vectors: bool,
    count: usize,
    n: usize,
    w_shape: &[usize],
    v_shape: &[usize],
) -> Result<(Array<T::C>, Option<Array<T::C>>)> {
    let av = a.to_vec()?;
    let c = |z: num_complex::Complex<<T as faer::traits::ComplexField>::Real>| {
        T::cplx(T::from_faer_real(z.re), T::from_faer_real(z.im))
    };
    let r = cpu_map(&av, count, n * n, |_, x| {
        let m = cpu::view(x, n, n);
        if !vectors {
            let w = m.eigenvalues().map_err(|_| no_conv(op, 1))?;
            return Ok((w.into_iter().map(c).collect::<Vec<_>>(), Vec::new()));
        }
        let e = m.eigen().map_err(|_| no_conv(op, 1))?;
        let w: Vec<T::C> = (0..n)
            .map(|i| c(e.S().column_vector()[i].clone()))
            .collect();
        let u = e.U();
        let mut v: Vec<T::C> = Vec::with_capacity(n * n);
        for i in 0..n {
            for j in 0..n {
                v.push(c(u[(i, j)].clone()));
            }
        }
        // unit 2-norm columns (LAPACK's normalisation; faer's may differ by a scale)
        for j in 0..n {
            let s: f64 = (0..n)
                .map(|i| {
                    let z = v[i * n + j];
                    let (re, im) = (re64::<T>(z.re()), re64::<T>(z.im()));
                    re * re + im * im
                })
                .sum::<f64>()
                .sqrt();
            if s > 0.0 {
                let inv: T::C = T::cplx(real::<T>(1.0 / s), real::<T>(0.0));
                for i in 0..n {
                    v[i * n + j] = v[i * n + j] * inv;
                }
            }
        }
        Ok((w, v))
    })?;
    let mut ws = Vec::with_capacity(count * n);
    let mut vs = Vec::with_capacity(if vectors { count * n * n } else { 0 });
    for (w, v) in r {
        ws.extend(w);
        vs.extend(v);
    }
    let v = if vectors {
        Some(cpu_array(vs, v_shape)?)
    } else {
        None
    };
    Ok((cpu_array(ws, w_shape)?, v))
}

fn re64<T: Scalar>(x: T::R) -> f64 {
    use cusci_core::RealFloat;
    x.to_f64()
}

fn real<T: Scalar>(x: f64) -> T::R {
    use cusci_core::RealFloat;
    <T::R as RealFloat>::from_f64(x)
}
