//! Symmetric tridiagonal eigenproblems (SciPy's `eigh_tridiagonal`, `eigvalsh_tridiagonal`),
//! composed: the dense tridiagonal matrix (built on the array's device: a kernel on the GPU)
//! handed to [`eigh`]/[`eigvalsh`], then SciPy's selection.

use crate::util::{cat, prod};
use crate::{eigh, eigvalsh, Scalar};
use cusci_core::array::layout::{broadcast_shapes, checked_shape};
use cusci_core::error::make;
use cusci_core::host::try_vec_zeroed;
use cusci_core::{Array, Backend, Device, Result};

/// Which eigenvalues [`eigh_tridiagonal`] returns (SciPy's `select` and `select_range`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Select {
    /// `select='a'`: all of them (the default).
    #[default]
    All,
    /// `select='v', select_range=(vl, vu)`: those in the half-open interval `(vl, vu]`.
    Value(f64, f64),
    /// `select='i', select_range=(lo, hi)`: the `lo`-th to the `hi`-th smallest, both included
    /// (0-based).
    Index(usize, usize),
}

/// The eigenvalues (ascending) and, unless `eigvals_only`, the eigenvectors (columns, `(..., N,
/// M)`) of the real symmetric tridiagonal matrices with diagonal `d` `(..., N)` and
/// off-diagonal `e` `(..., N - 1)` (SciPy's `linalg.eigh_tridiagonal(d, e, eigvals_only, select,
/// select_range)`; the stacks broadcast). Real types only, as SciPy (which raises a `TypeError`
/// for complex input; here the type bound says it). `check_finite` is the crate's switch;
/// SciPy's `tol` and `lapack_driver` choose among LAPACK's tridiagonal routines and have no
/// counterpart.
///
/// The dense `N × N` matrix is formed on the array's device (a kernel on the GPU) and
/// diagonalised by [`eigh`] (faer on the CPU, cuSOLVER on the GPU): `O(N³)`, where SciPy's
/// `stevd`/`stebz` are `O(N²)`, with the same backward stability (eigenvalue errors of order
/// `ε ‖T‖`; SciPy's bisection for `select` is accurate to the same order). An eigenvalue within
/// rounding of an end of a `Value` interval may be counted differently from SciPy's. Eigenvectors
/// are unique up to sign (for simple eigenvalues), and their signs may differ from SciPy's.
/// `Value` reads the eigenvalues back (synchronises); the matrices of a stack must then select
/// the same positions.
///
/// # Errors
/// `InvalidArgument` when `d` or `e` has no dimension, `e`'s length is not `N - 1` (SciPy: "d
/// (N) must have one more element than e (M)"), `Index` is decreasing or past `N - 1`
/// ("select_range out of bounds"), `Value` is decreasing, for NaN or infinity, or when a stack's
/// matrices select different positions; `ShapeMismatch` when the stacks do not broadcast.
///
/// ```
/// use cusci_linalg::{eigh_tridiagonal, Select, Array, Device};
/// let d = Array::from_vec(vec![2.0f64, 2.0, 2.0], &[3], &Device::Cpu)?;
/// let e = Array::from_vec(vec![-1.0f64, -1.0], &[2], &Device::Cpu)?;
/// let (w, v) = eigh_tridiagonal(&d, &e, false, Select::All)?;
/// let w = w.to_vec()?;
/// let s = 2f64.sqrt();
/// assert!((w[0] - (2.0 - s)).abs() < 1e-14 && (w[2] - (2.0 + s)).abs() < 1e-14);
/// assert_eq!(v.unwrap().shape(), &[3, 3]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
#[allow(clippy::type_complexity)]
pub fn eigh_tridiagonal<T: Scalar<R = T>>(
    d: &Array<T>,
    e: &Array<T>,
    eigvals_only: bool,
    select: Select,
) -> Result<(Array<T>, Option<Array<T>>)> {
    let op = "eigh_tridiagonal";
    cusci_core::array::check_same_device(op, d.device(), e.device())?;
    if d.ndim() == 0 || e.ndim() == 0 {
        return Err(make::arg(op, "expected a 1-D array"));
    }
    let n = d.shape()[d.ndim() - 1];
    let m = e.shape()[e.ndim() - 1];
    if n != m + 1 {
        return Err(make::arg(
            op,
            format!("d ({n}) must have one more element than e ({m})"),
        ));
    }
    check_select(op, select, n)?;
    crate::util::check_finite(op, d)?;
    crate::util::check_finite(op, e)?;
    let batch = broadcast_shapes(op, &d.shape()[..d.ndim() - 1], &e.shape()[..e.ndim() - 1])?;
    let count = prod(&batch);
    let dc = d.broadcast_to(&cat(&batch, &[n]))?;
    let ec = e.broadcast_to(&cat(&batch, &[m]))?;
    let dense = match d.backend() {
        Backend::Host(_) => {
            let (dv, ev) = (dc.to_vec()?, ec.to_vec()?);
            let shape = cat(&batch, &[n, n]);
            let len = checked_shape(op, &shape, std::mem::size_of::<T>())?;
            let mut a: Vec<T> = try_vec_zeroed(op, len)?;
            for s in 0..count {
                let t = &mut a[s * n * n..(s + 1) * n * n];
                for i in 0..n {
                    t[i * n + i] = dv[s * n + i];
                    if i + 1 < n {
                        t[i * n + i + 1] = ev[s * m + i];
                        t[(i + 1) * n + i] = ev[s * m + i];
                    }
                }
            }
            Array::from_vec(a, &shape, &Device::Cpu)?
        }
        Backend::Cuda(c) => {
            crate::cuda::banded::tridiag_dense(c.dev(), &dc.copy()?, &ec.copy()?, count, n)?
                .reshape(
                    &cat(&batch, &[n, n])
                        .iter()
                        .map(|&v| v as isize)
                        .collect::<Vec<_>>(),
                )?
        }
    };
    let (w, v) = if eigvals_only {
        (eigvalsh(&dense, true)?, None)
    } else {
        let (w, v) = eigh(&dense, true)?;
        (w, Some(v))
    };
    apply_select(op, w, v, select, count, n)
}

/// The eigenvalues (ascending) of real symmetric tridiagonal matrices (SciPy's
/// `linalg.eigvalsh_tridiagonal(d, e, select, select_range)`): [`eigh_tridiagonal`] with
/// `eigvals_only`. Errors and numerics as there.
///
/// ```
/// use cusci_linalg::{eigvalsh_tridiagonal, Select, Array, Device};
/// let d = Array::from_vec(vec![1.0f64, 3.0], &[2], &Device::Cpu)?;
/// let e = Array::from_vec(vec![0.0f64], &[1], &Device::Cpu)?;
/// let w = eigvalsh_tridiagonal(&d, &e, Select::Value(2.0, 5.0))?.to_vec()?;
/// assert_eq!(w, vec![3.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn eigvalsh_tridiagonal<T: Scalar<R = T>>(
    d: &Array<T>,
    e: &Array<T>,
    select: Select,
) -> Result<Array<T>> {
    Ok(eigh_tridiagonal(d, e, true, select)?.0)
}

/// SciPy's checks of `select_range` for `n` eigenvalues.
pub(crate) fn check_select(op: &str, select: Select, n: usize) -> Result<()> {
    match select {
        Select::All => {}
        Select::Value(vl, vu) => {
            if vu < vl || vl.is_nan() || vu.is_nan() {
                return Err(make::arg(
                    op,
                    "select_range must be a 2-element array-like in nondecreasing order",
                ));
            }
        }
        Select::Index(lo, hi) => {
            if hi < lo {
                return Err(make::arg(
                    op,
                    "select_range must be a 2-element array-like in nondecreasing order",
                ));
            }
            if hi >= n {
                return Err(make::arg(op, "select_range out of bounds"));
            }
        }
    }
    Ok(())
}

/// The selected eigenvalues (and eigenvector columns) of ascending `w` `(..., N)` and `v`
/// `(..., N, N)`. `Value` reads the eigenvalues back; the matrices of a stack must then select
/// the same positions.
#[allow(clippy::type_complexity)]
pub(crate) fn apply_select<R: Scalar, T: Scalar>(
    op: &str,
    w: Array<R>,
    v: Option<Array<T>>,
    select: Select,
    count: usize,
    n: usize,
) -> Result<(Array<R>, Option<Array<T>>)> {
    let (lo, hi) = match select {
        Select::All => return Ok((w, v)),
        Select::Index(lo, hi) => (lo, hi + 1),
        Select::Value(vl, vu) => {
            let wv = w.to_vec()?;
            let mut range = None;
            for s in 0..count {
                let ws = &wv[s * n..(s + 1) * n];
                let lo = ws.iter().filter(|x| x.to_c64().re <= vl).count();
                let hi = ws.iter().filter(|x| x.to_c64().re <= vu).count();
                match range {
                    None => range = Some((lo, hi)),
                    Some(r) if r != (lo, hi) => {
                        return Err(make::arg(
                            op,
                            "the matrices of the stack select different eigenvalue positions",
                        ))
                    }
                    Some(_) => {}
                }
            }
            range.unwrap_or((0, 0))
        }
    };
    let (lo, hi) = (lo as isize, hi as isize);
    let w = w.slice_axis(-1, Some(lo), Some(hi), 1)?.copy()?;
    let v = match v {
        Some(v) => Some(v.slice_axis(-1, Some(lo), Some(hi), 1)?.copy()?),
        None => None,
    };
    Ok((w, v))
}
