//! Array-API functions of `cupy.linalg` / `numpy.linalg` (`cross`, `vecdot`,
//! `matrix_transpose`) and SciPy's structure tests `issymmetric` / `ishermitian`.
//!
//! All are composed from cusci-core's views and element-wise operations and reductions, so they
//! run on the device the arrays live on; nothing here reads data back.

use crate::structured::moveaxis;
use crate::util::{cat, mat_dims, prod, same_device};
use crate::Scalar;
use cusci_core::array::layout::{broadcast_shapes, norm_axis};
use cusci_core::error::make;
use cusci_core::{where_, Array, DType, RealFloat, Result};

/// Cross product of 3-element vectors along `axis` (NumPy's and CuPy's `linalg.cross(x1, x2,
/// axis=-1)`): `axis` is taken in each input (its own number of dimensions), the other axes
/// broadcast, and the result holds the vectors along `axis`. No conjugation for complex input
/// (as NumPy).
///
/// # Errors
/// `InvalidArgument` for 0-d input, an axis out of range, or a length other than 3 along
/// `axis` (NumPy's `linalg.cross` takes only 3-element vectors); `ShapeMismatch` when the
/// other axes do not broadcast; `DeviceMismatch`.
///
/// ```
/// use cusci_linalg::{cross, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 0.0, 0.0], &[3], &Device::Cpu)?;
/// let y = Array::from_vec(vec![0.0f64, 1.0, 0.0], &[3], &Device::Cpu)?;
/// assert_eq!(cross(&x, &y, -1)?.to_vec()?, vec![0.0, 0.0, 1.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn cross<T: Scalar>(x1: &Array<T>, x2: &Array<T>, axis: isize) -> Result<Array<T>> {
    let op = "cross";
    same_device(op, x1, x2)?;
    if x1.ndim() == 0 || x2.ndim() == 0 {
        return Err(make::arg(op, "x1 and x2 must be at least 1-dimensional"));
    }
    let a1 = norm_axis(op, axis, x1.ndim())?;
    let a2 = norm_axis(op, axis, x2.ndim())?;
    if x1.shape()[a1] != 3 || x2.shape()[a2] != 3 {
        return Err(make::arg(
            op,
            format!(
                "both input arrays must be (arrays of) 3-dimensional vectors, got {} and {} along axis {axis}",
                x1.shape()[a1],
                x2.shape()[a2]
            ),
        ));
    }
    let a = moveaxis(op, x1, a1 as isize, -1)?;
    let b = moveaxis(op, x2, a2 as isize, -1)?;
    let batch = broadcast_shapes(op, &a.shape()[..a.ndim() - 1], &b.shape()[..b.ndim() - 1])?;
    let ca = |k: isize| a.index_axis(-1, k);
    let cb = |k: isize| b.index_axis(-1, k);
    let comp = |i: isize, j: isize| -> Result<Array<T>> {
        ca(i)?.mul(&cb(j)?)?.sub(&ca(j)?.mul(&cb(i)?)?)
    };
    let parts = [comp(1, 2)?, comp(2, 0)?, comp(0, 1)?];
    let shape = cat(&batch, &[3]);
    let mut out = Array::<T>::zeros(&shape, x1.device())?;
    for (k, p) in parts.iter().enumerate() {
        let mut m = [false; 3];
        m[k] = true;
        let mask = Array::from_vec(m.to_vec(), &[3], x1.device())?;
        out = where_(&mask, &p.expand_dims(-1)?, &out)?;
    }
    let dst = norm_axis(op, axis, out.ndim())?;
    moveaxis(op, &out, -1, dst as isize)?.contiguous()
}

/// Vector dot product along `axis` with the first argument conjugated (NumPy's and CuPy's
/// `linalg.vecdot(x1, x2, axis=-1)`: `Σ conj(x1)·x2`); `axis` is taken in each input, the other
/// axes broadcast and the result has the broadcast shape.
///
/// # Errors
/// `InvalidArgument` for 0-d input or an axis out of range; `ShapeMismatch` when the lengths
/// along `axis` differ or the other axes do not broadcast; `DeviceMismatch`.
///
/// # Numerics
/// cusci-core's deterministic reduction in the element type (the same order on both devices is
/// not promised: agreement to about `ε·log n`).
///
/// ```
/// use cusci_linalg::{vecdot, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], &Device::Cpu)?;
/// let y = Array::from_vec(vec![1.0f64, 0.0, -1.0], &[3], &Device::Cpu)?;
/// assert_eq!(vecdot(&x, &y, -1)?.to_vec()?, vec![-2.0, -2.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn vecdot<T: Scalar>(x1: &Array<T>, x2: &Array<T>, axis: isize) -> Result<Array<T>> {
    let op = "vecdot";
    same_device(op, x1, x2)?;
    if x1.ndim() == 0 || x2.ndim() == 0 {
        return Err(make::arg(op, "x1 and x2 must be at least 1-dimensional"));
    }
    let a1 = norm_axis(op, axis, x1.ndim())?;
    let a2 = norm_axis(op, axis, x2.ndim())?;
    if x1.shape()[a1] != x2.shape()[a2] {
        return Err(make::shape(
            op,
            format!(
                "x1 {:?} and x2 {:?} differ in length along axis {axis}",
                x1.shape(),
                x2.shape()
            ),
        ));
    }
    let a = moveaxis(op, x1, a1 as isize, -1)?.conj()?;
    let b = moveaxis(op, x2, a2 as isize, -1)?;
    a.mul(&b)?.sum_axes(&[-1])
}

/// The last two axes swapped (NumPy's and CuPy's `linalg.matrix_transpose`; no conjugation): a
/// view sharing `x`'s storage.
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions.
///
/// ```
/// use cusci_linalg::{matrix_transpose, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], &Device::Cpu)?;
/// let t = matrix_transpose(&x)?;
/// assert_eq!(t.shape(), &[3, 2]);
/// assert_eq!(t.to_vec()?, vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn matrix_transpose<T: Scalar>(x: &Array<T>) -> Result<Array<T>> {
    mat_dims("matrix_transpose", x)?;
    x.swapaxes(-1, -2)
}

fn real<T: Scalar>(v: f64) -> T::R {
    <T::R as RealFloat>::from_f64(v)
}

fn structure_test<T: Scalar>(
    op: &str,
    a: &Array<T>,
    atol: Option<f64>,
    rtol: Option<f64>,
    hermitian: bool,
) -> Result<Array<bool>> {
    if a.ndim() < 2 {
        return Err(make::arg(op, "Input array must be a 2D NumPy array."));
    }
    let (batch, m, n) = mat_dims(op, a)?;
    if m != n {
        return Err(make::arg(op, "Input array must be square."));
    }
    if !batch.is_empty() && prod(&batch) == 0 {
        return Err(make::arg(
            op,
            format!("`{op}` does not support zero-size batches."),
        ));
    }
    if n == 0 {
        return Array::full(&batch, true, a.device());
    }
    let complex = matches!(T::DTYPE, DType::C32 | DType::C64);
    let at = a.swapaxes(-1, -2)?;
    let at = if hermitian { at.conj()? } else { at };
    let (atol, rtol) = (atol.unwrap_or(0.0), rtol.unwrap_or(0.0));
    let one = real::<T>(1.0);
    let bad: Array<T::R> = if atol != 0.0 || rtol != 0.0 {
        // numpy.allclose(a, at): |a - at| <= atol + rtol |at| with at finite, or a == at
        let diff = a.sub(&at)?.abs()?;
        let lim = at
            .abs()?
            .mul_scalar(real::<T>(rtol))?
            .add_scalar(real::<T>(atol))?;
        let finite = at
            .real()?
            .isfinite()?
            .astype::<T::R>()?
            .mul(&at.imag()?.isfinite()?.astype::<T::R>()?)?;
        let close = diff.le(&lim)?.astype::<T::R>()?.mul(&finite)?;
        let equal = a.eq(&at)?.astype::<T::R>()?;
        close.maximum(&equal)?.rsub_scalar(one)?
    } else {
        // exact: the strict triangles (the diagonal too for complex Hermitian: it must be real)
        let ne = a.ne(&at)?.astype::<T::R>()?;
        if hermitian && complex {
            ne
        } else {
            let off: Vec<bool> = (0..n * n).map(|i| i / n != i % n).collect();
            let off = Array::from_vec(off, &[n, n], a.device())?;
            // a NaN on the diagonal is not scanned (SciPy)
            let zero = Array::<T::R>::zeros(&[n, n], a.device())?;
            where_(&off, &ne, &zero)?
        }
    };
    bad.max_axes(&[-2, -1])?.eq_scalar(real::<T>(0.0))
}

/// Whether square `(..., N, N)` matrices are symmetric, `a == aᵀ` (SciPy's
/// `linalg.issymmetric(a, atol, rtol)`; complex input is tested for symmetry, not Hermitian
/// symmetry). Returns a `bool` array of the batch's shape (0-d for one matrix; `.item()` reads
/// it) on `a`'s device.
///
/// Without tolerances (both `None` or 0) the comparison is exact and the diagonal is not scanned
/// (NaN there is ignored, NaN elsewhere is never symmetric, equal infinities are equal). With
/// `atol` or `rtol` the test is `numpy.allclose(a, aᵀ, rtol, atol)` (the other one 0):
/// `|a − aᵀ| ≤ atol + rtol·|aᵀ|` with `aᵀ` finite, or equal, on every element.
/// Empty matrices are symmetric.
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions ("Input array must be a 2D NumPy array."), a
/// non-square matrix ("Input array must be square.") or a zero-size batch (SciPy's batching
/// refuses those too).
///
/// ```
/// use cusci_linalg::{issymmetric, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 2.0, 2.0, 5.0], &[2, 2], &Device::Cpu)?;
/// assert!(issymmetric(&a, None, None)?.item()?);
/// let b = Array::from_vec(vec![1.0f64, 2.0, 2.001, 5.0], &[2, 2], &Device::Cpu)?;
/// assert!(!issymmetric(&b, None, None)?.item()?);
/// assert!(issymmetric(&b, Some(0.01), None)?.item()?);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn issymmetric<T: Scalar>(
    a: &Array<T>,
    atol: Option<f64>,
    rtol: Option<f64>,
) -> Result<Array<bool>> {
    structure_test("issymmetric", a, atol, rtol, false)
}

/// Whether square `(..., N, N)` matrices are Hermitian, `a == aᴴ` (SciPy's
/// `linalg.ishermitian(a, atol, rtol)`); for real input the same test as [`issymmetric`]. For
/// complex input the exact test includes the diagonal (its imaginary parts must be 0, a NaN
/// there fails). Tolerances and the result as in [`issymmetric`], with `aᴴ` for `aᵀ`.
///
/// # Errors
/// As [`issymmetric`].
///
/// ```
/// use cusci_linalg::{ishermitian, c64, Array, Device};
/// let a = Array::from_vec(
///     vec![c64::new(1.0, 0.0), c64::new(2.0, 3.0), c64::new(2.0, -3.0), c64::new(4.0, 0.0)],
///     &[2, 2],
///     &Device::Cpu,
/// )?;
/// assert!(ishermitian(&a, None, None)?.item()?);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn ishermitian<T: Scalar>(
    a: &Array<T>,
    atol: Option<f64>,
    rtol: Option<f64>,
) -> Result<Array<bool>> {
    structure_test("ishermitian", a, atol, rtol, true)
}
