//! Hermitian band eigenproblems (SciPy's `eig_banded`, `eigvals_banded`), composed: the dense
//! Hermitian matrix is formed from LAPACK's band storage (host-built: the band is `O(N·u)`
//! numbers) on the array's device and handed to [`eigh`]/[`eigvalsh`] (faer on the CPU,
//! cuSOLVER on the GPU), then SciPy's selection.

use crate::tridiag::{apply_select, check_select};
use crate::util::{cat, check_finite, mat_dims, prod};
use crate::{eigh, eigvalsh, Scalar, Select};
use cusci_core::{Array, Result};

/// The eigenvalues (ascending) and, unless `eigvals_only`, eigenvectors (columns, `(..., N,
/// M)`) of Hermitian band matrices given in LAPACK's band storage (SciPy's
/// `linalg.eig_banded(a_band, lower, eigvals_only, select, select_range)`): `a_band` is
/// `(..., u + 1, N)` with `a_band[u + i - j, j] = a[i, j]` (upper, `lower = false`, SciPy's
/// default) or `a_band[i - j, j] = a[i, j]` (`lower`). The imaginary part of the diagonal is
/// ignored (as LAPACK's `hbevd`). `select` as in [`eigh_tridiagonal`](crate::eigh_tridiagonal):
/// all, the half-open value interval `(vl, vu]`, or the inclusive index range. SciPy's `max_ev`
/// only sizes LAPACK's workspace and has no counterpart.
///
/// Numerics: the dense matrix diagonalised by [`eigh`]: `O(N³)` where LAPACK's `sbevd` is
/// `O(N² u)`, with the same backward stability (eigenvalue errors of order `ε ‖A‖`).
/// Eigenvectors are unique up to a phase (sign), which may differ from SciPy's.
///
/// GPU: composed (host-built dense matrix, cuSOLVER's `syevd`/`heevd`).
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions, NaN or infinity (SciPy's `check_finite`), or
/// a bad `select` range; `NoConvergence`.
///
/// ```
/// use cusci_linalg::{eig_banded, Select, Array, Device};
/// // upper band storage of [[2, -1, 0], [-1, 2, -1], [0, -1, 2]]
/// let ab = Array::from_vec(vec![0.0f64, -1.0, -1.0, 2.0, 2.0, 2.0], &[2, 3], &Device::Cpu)?;
/// let (w, v) = eig_banded(&ab, false, false, Select::All)?;
/// let w = w.to_vec()?;
/// assert!((w[1] - 2.0).abs() < 1e-14 && (w[0] - (2.0 - 2f64.sqrt())).abs() < 1e-14);
/// assert_eq!(v.unwrap().shape(), &[3, 3]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
#[allow(clippy::type_complexity)]
pub fn eig_banded<T: Scalar>(
    a_band: &Array<T>,
    lower: bool,
    eigvals_only: bool,
    select: Select,
) -> Result<(Array<T::R>, Option<Array<T>>)> {
    let op = if eigvals_only {
        "eigvals_banded"
    } else {
        "eig_banded"
    };
    let (batch, rows, n) = mat_dims(op, a_band)?;
    check_select(op, select, n)?;
    check_finite(op, a_band)?;
    let count = prod(&batch);
    let dev = a_band.device();
    let shape = cat(&batch, &[n, n]);
    let u = rows.saturating_sub(1);
    let band = a_band.to_vec()?;
    let mut dense = vec![T::zero(); prod(&shape)];
    for s in 0..count {
        let ab = &band[s * rows * n..(s + 1) * rows * n];
        let a = &mut dense[s * n * n..(s + 1) * n * n];
        for j in 0..n {
            for d in 0..=u.min(n - 1) {
                // a[i, j] with i = j + d (lower) or i = j - d (upper)
                let v = if lower {
                    if j + d >= n {
                        continue;
                    }
                    ab[d * n + j]
                } else {
                    if d > j {
                        continue;
                    }
                    ab[(u - d) * n + j]
                };
                let (i, jj) = if lower { (j + d, j) } else { (j - d, j) };
                // store the lower triangle (row i >= column) and its mirror
                let (r, c, x) = if lower { (i, jj, v) } else { (jj, i, v.conj()) };
                a[r * n + c] = x;
                a[c * n + r] = x.conj();
            }
        }
    }
    let dense = Array::from_vec(dense, &shape, dev)?;
    let (w, v) = if eigvals_only {
        (eigvalsh(&dense, true)?, None)
    } else {
        let (w, v) = eigh(&dense, true)?;
        (w, Some(v))
    };
    apply_select(op, w, v, select, count, n)
}

/// The eigenvalues (ascending) of Hermitian band matrices (SciPy's `linalg.eigvals_banded(a_band,
/// lower, select, select_range)`): [`eig_banded`] with `eigvals_only`.
///
/// # Errors
/// As [`eig_banded`].
///
/// ```
/// use cusci_linalg::{eigvals_banded, Select, Array, Device};
/// // lower band storage of diag(1, 2, 3) plus a zero subdiagonal
/// let ab = Array::from_vec(vec![1.0f64, 2.0, 3.0, 0.0, 0.0, 0.0], &[2, 3], &Device::Cpu)?;
/// assert_eq!(eigvals_banded(&ab, true, Select::Index(1, 2))?.to_vec()?, vec![2.0, 3.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn eigvals_banded<T: Scalar>(
    a_band: &Array<T>,
    lower: bool,
    select: Select,
) -> Result<Array<T::R>> {
    Ok(eig_banded(a_band, lower, true, select)?.0)
}
