//! Maxima and minima of sparse matrices (SciPy's `max`/`min`, whole or along an axis), the
//! element-wise `power`, `astype` and `sort_indices`, and `scipy.sparse.linalg`'s [`norm`] and
//! [`matrix_power`]. Every one runs on the device holding the matrix: the per-row maxima and
//! minima with the `sp_row_minmax` kernel of `sparse.cu` (one thread per row), the rest through
//! the core's element-wise operations, the sparse sums (SpMV with a vector of ones), the
//! transpose and SpGEMM.

use crate::matrix::{hv, CsrMatrix};
use crate::SpIndex;
use cusci_core::array::layout::norm_axis as axis_of;
use cusci_core::error::make;
use cusci_core::{Array, Device, Float, RealFloat, Result};

/// Per-row maxima (`want_max`) or minima of `vals` (one value per stored entry of the canonical
/// matrix `a`), the implicit zeros counted where a row stores fewer than its `n` columns; NaN
/// propagates; a row without entries gives 0.
fn row_minmax<T: Float, I: SpIndex>(
    a: &CsrMatrix<T, I>,
    vals: &Array<T::Real>,
    want_max: bool,
) -> Result<Array<T::Real>> {
    let (m, n) = a.shape;
    match a.device() {
        Device::Cpu => {
            let (ip, v) = (hv(&a.indptr), hv(vals));
            let out: Vec<T::Real> = (0..m)
                .map(|r| {
                    let row = &v[ip[r].ix()..ip[r + 1].ix()];
                    if let Some(&x) = row.iter().find(|x| x.to_f64().is_nan()) {
                        return x;
                    }
                    let zero = <T::Real as RealFloat>::from_f64(0.0);
                    let pick = |acc: T::Real, x: T::Real| {
                        if (want_max && x > acc) || (!want_max && x < acc) {
                            x
                        } else {
                            acc
                        }
                    };
                    let mut it = row.iter().copied();
                    let acc = match it.next() {
                        Some(first) => it.fold(first, pick),
                        None => return zero,
                    };
                    if row.len() < n {
                        pick(acc, zero)
                    } else {
                        acc
                    }
                })
                .collect();
            Array::from_vec(out, &[m], &Device::Cpu)
        }
        Device::Cuda(d) => crate::cuda::ops::row_minmax(d, a, vals, want_max),
    }
}

/// The same structure with other values (no check: `data` has one value per stored entry).
fn with_data<T: Float, U: Float, I: SpIndex>(
    a: &CsrMatrix<T, I>,
    data: Array<U>,
) -> CsrMatrix<U, I> {
    CsrMatrix::from_parts(
        data,
        a.indices.clone(),
        a.indptr.clone(),
        a.shape,
        a.canonical,
    )
}

/// Per-row (`axis` 1 / −1) or per-column (`axis` 0 / −2) maxima or minima of `f(data)` of
/// the matrix with its duplicates summed.
fn axis_minmax<T: Float, I: SpIndex>(
    a: &CsrMatrix<T, I>,
    axis: isize,
    want_max: bool,
    op: &str,
    f: impl Fn(&Array<T>) -> Result<Array<T::Real>>,
) -> Result<Array<T::Real>> {
    let (m, n) = a.shape;
    let rows = axis_of(op, axis, 2)? == 1;
    if (rows && n == 0) || (!rows && m == 0) {
        return Err(make::arg(
            op,
            format!("zero-size array to reduction operation (shape ({m}, {n}), axis {axis})"),
        ));
    }
    let c = a.sum_duplicates()?;
    let c = if rows { c } else { c.transpose().tocsr()? };
    let vals = f(&c.data)?;
    row_minmax(&c, &vals, want_max)
}

/// The maximum or minimum of all m·n entries of `f(data)`, implicit zeros included.
fn all_minmax<T: Float, I: SpIndex>(
    a: &CsrMatrix<T, I>,
    want_max: bool,
    op: &str,
    f: impl Fn(&Array<T>) -> Result<Array<T::Real>>,
) -> Result<T::Real> {
    let (m, n) = a.shape;
    if m == 0 || n == 0 {
        return Err(make::arg(
            op,
            format!("zero-size array to reduction operation (shape ({m}, {n}))"),
        ));
    }
    let r = axis_minmax(a, 1, want_max, op, f)?;
    if want_max {
        r.max()
    } else {
        r.min()
    }
}

/// Maxima and minima of real matrices.
impl<T: RealFloat, I: SpIndex> CsrMatrix<T, I> {
    /// The largest of all m·n entries, the implicit zeros included (SciPy's `A.max()`);
    /// duplicates are summed first; any NaN gives NaN.
    ///
    /// ```
    /// use cusci_sparse::{CsrMatrix, Array, Device};
    /// let a = CsrMatrix::from_dense(&Array::from_vec(vec![-1.0f64, -2.0, 0.0, -3.0], &[2, 2], &Device::Cpu)?)?;
    /// assert_eq!(a.max()?, 0.0);
    /// assert_eq!(a.min()?, -3.0);
    /// # Ok::<(), cusci_sparse::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` for a matrix with no entries at all (m or n is 0), as NumPy's
    /// "zero-size array to reduction operation".
    pub fn max(&self) -> Result<T> {
        all_minmax(self, true, "max", |d| Ok(d.clone()))
    }

    /// The smallest of all m·n entries (SciPy's `A.min()`); see [`max`](Self::max).
    ///
    /// # Errors
    /// As [`max`](Self::max).
    pub fn min(&self) -> Result<T> {
        all_minmax(self, false, "min", |d| Ok(d.clone()))
    }

    /// Maxima along `axis` (0 or −2: one per column; 1 or −1: one per row), the implicit zeros
    /// included, as a dense 1-D array (SciPy returns a 1 x n or m x 1 `coo_matrix`); NaN
    /// propagates.
    ///
    /// ```
    /// use cusci_sparse::{CsrMatrix, Array, Device};
    /// let a = CsrMatrix::from_dense(&Array::from_vec(vec![-1.0f64, 2.0, -4.0, -3.0], &[2, 2], &Device::Cpu)?)?;
    /// assert_eq!(a.max_axis(0)?.to_vec()?, vec![-1.0, 2.0]);
    /// assert_eq!(a.min_axis(1)?.to_vec()?, vec![-1.0, -4.0]);
    /// # Ok::<(), cusci_sparse::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` for another axis, or for an axis whose reduced length is 0.
    pub fn max_axis(&self, axis: isize) -> Result<Array<T>> {
        axis_minmax(self, axis, true, "max", |d| Ok(d.clone()))
    }

    /// Minima along `axis`; see [`max_axis`](Self::max_axis).
    ///
    /// # Errors
    /// As [`max_axis`](Self::max_axis).
    pub fn min_axis(&self, axis: isize) -> Result<Array<T>> {
        axis_minmax(self, axis, false, "min", |d| Ok(d.clone()))
    }
}

impl<T: Float, I: SpIndex> CsrMatrix<T, I> {
    /// The element-wise power of the stored values (SciPy's `A.power(n)`): `data ** n`, the
    /// structure (and any duplicate entries) unchanged.
    ///
    /// ```
    /// use cusci_sparse::{identity, Device};
    /// let a = identity::<f64>(2, &Device::Cpu)?.mul_scalar(3.0)?;
    /// assert_eq!(a.power(2.0)?.toarray()?.to_vec()?, vec![9.0, 0.0, 0.0, 9.0]);
    /// # Ok::<(), cusci_sparse::Error>(())
    /// ```
    ///
    /// Numerics: `powf` of the element type on each device (CUDA's `pow` is within 2 ulp, so
    /// `power(2.0)` may differ from `x * x` in the last bit on a GPU).
    ///
    /// # Errors
    /// `NotImplemented` for `n == 0` (it would fill the implicit zeros with ones: SciPy's
    /// NotImplementedError).
    pub fn power(&self, n: T) -> Result<Self> {
        if n == T::zero() {
            return Err(make::not_implemented(
                "power: zero power (it would densify the matrix)",
                self.device(),
            ));
        }
        Ok(with_data(self, self.data.powf(n)?))
    }

    /// The matrix with its values converted to `U` (SciPy's `A.astype(dtype)`: complex to real
    /// keeps the real part, as NumPy's cast); the structure is shared.
    ///
    /// ```
    /// use cusci_sparse::{identity, Device};
    /// let a = identity::<f64>(2, &Device::Cpu)?.mul_scalar(0.1)?;
    /// assert_eq!(a.astype::<f32>()?.toarray()?.to_vec()?, vec![0.1f32, 0.0, 0.0, 0.1]);
    /// # Ok::<(), cusci_sparse::Error>(())
    /// ```
    ///
    /// # Errors
    /// Device errors only.
    pub fn astype<U: Float>(&self) -> Result<CsrMatrix<U, I>> {
        Ok(with_data(self, self.data.astype::<U>()?))
    }

    /// The matrix with the column indices of every row in increasing order (SciPy's
    /// `sort_indices`; duplicate entries are kept, not summed). Built as the transpose of the
    /// transpose, whose conversions write each row's entries in column order.
    ///
    /// ```
    /// use cusci_sparse::{Array, CsrMatrix, Device};
    /// let dev = Device::Cpu;
    /// // one row with its entries at columns 2, 0, 2 (unsorted, duplicated)
    /// let a = CsrMatrix::new(
    ///     Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3], &dev)?,
    ///     Array::from_vec(vec![2i32, 0, 2], &[3], &dev)?,
    ///     Array::from_vec(vec![0i32, 3], &[2], &dev)?,
    ///     (1, 3),
    /// )?;
    /// let s = a.sort_indices()?;
    /// assert_eq!(s.indices().to_vec()?, vec![0, 2, 2]);
    /// assert_eq!(s.toarray()?.to_vec()?, vec![2.0, 0.0, 4.0]);
    /// # Ok::<(), cusci_sparse::Error>(())
    /// ```
    ///
    /// # Errors
    /// Device errors only.
    pub fn sort_indices(&self) -> Result<Self> {
        let t = self.transpose().tocsr()?;
        let mut s = t.transpose().tocsr()?;
        s.canonical = self.canonical;
        Ok(s)
    }
}

/// The order of a sparse [`norm`]: SciPy's `ord` argument (`None` picks the Frobenius norm for
/// a matrix and the 2-norm for vectors along an axis).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NormOrd {
    /// `'fro'`: the square root of the sum of squared magnitudes (matrices only).
    Fro,
    /// A number: `1`, `-1`, `2`, `f64::INFINITY`, `f64::NEG_INFINITY` for matrices; any number
    /// for vectors along an axis (`0` counts the nonzero entries).
    P(f64),
}

/// The norm of a sparse matrix (`scipy.sparse.linalg.norm(A, ord)` with `axis=None`):
/// Frobenius (`None` or [`NormOrd::Fro`]), `1` (largest column sum of magnitudes), `-1`
/// (smallest), `inf` (largest row sum), `-inf` (smallest), `2` (the largest singular value, by
/// [`svds`](crate::linalg::svds) with k = 1). Duplicates are summed first; sums accumulate in
/// the element's real type, the row and column sums by SpMV with a vector of ones.
///
/// ```
/// use cusci_sparse::{CsrMatrix, Array, Device};
/// use cusci_sparse::linalg::{norm, NormOrd};
/// let b = Array::from_vec(vec![-4.0f64, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0], &[3, 3], &Device::Cpu)?;
/// let b = CsrMatrix::from_dense(&b)?;
/// assert!((norm(&b, None)? - 60f64.sqrt()).abs() < 1e-12);
/// assert_eq!(norm(&b, Some(NormOrd::P(f64::INFINITY)))?, 9.0);
/// assert_eq!(norm(&b, Some(NormOrd::P(-1.0)))?, 6.0);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `NotImplemented` for `ord = -2` (as SciPy); `InvalidArgument` for any other order (SciPy's
/// "Invalid norm order for matrices") and for the orders ±1, ±inf on a matrix with m or n 0;
/// svds's errors for `ord = 2`.
pub fn norm<T: Float, I: SpIndex>(a: &CsrMatrix<T, I>, ord: Option<NormOrd>) -> Result<T::Real> {
    let op = "norm";
    let c = a.sum_duplicates()?;
    let p = match ord {
        None | Some(NormOrd::Fro) => return Ok(Float::sqrt(c.data.abs2()?.sum()?)),
        Some(NormOrd::P(p)) => p,
    };
    if p == 2.0 {
        let r = crate::linalg::svds(
            &c,
            1,
            &crate::linalg::SvdsOptions {
                return_singular_vectors: crate::linalg::SingularVectors::None,
                ..Default::default()
            },
        )?;
        return Ok(<T::Real as RealFloat>::from_f64(r.s[0]));
    }
    if p == -2.0 {
        return Err(make::not_implemented("norm: ord = -2", a.device()));
    }
    let axis = match p {
        _ if p == 1.0 || p == -1.0 => 0,
        _ if p.is_infinite() => 1,
        _ => {
            return Err(make::arg(
                op,
                format!("invalid norm order {p} for matrices"),
            ))
        }
    };
    let (m, n) = c.shape;
    if m == 0 || n == 0 {
        return Err(make::arg(
            op,
            format!("zero-size array to reduction operation (shape ({m}, {n}))"),
        ));
    }
    let sums = with_data(&c, c.data.abs()?).sum_axis(axis)?;
    if p > 0.0 {
        sums.max()
    } else {
        sums.min()
    }
}

/// Vector norms along an axis (`scipy.sparse.linalg.norm(A, ord, axis)` with an integer
/// axis: 0 or −2 gives one norm per column, 1 or −1 one per row): `inf` and `-inf` the largest
/// and smallest magnitude (the implicit zeros included), `0` the number of nonzero entries,
/// `1` the sum of magnitudes, `None` or `2` the Euclidean norm, any other `p` the p-th root of
/// the sum of `|x|^p`. Duplicates are summed first.
///
/// ```
/// use cusci_sparse::{CsrMatrix, Array, Device};
/// use cusci_sparse::linalg::{norm_axis, NormOrd};
/// let b = CsrMatrix::from_dense(&Array::from_vec(vec![3.0f64, 0.0, -4.0, 1.0], &[2, 2], &Device::Cpu)?)?;
/// assert_eq!(norm_axis(&b, None, 0)?.to_vec()?, vec![5.0, 1.0]);
/// assert_eq!(norm_axis(&b, Some(NormOrd::P(f64::INFINITY)), 1)?.to_vec()?, vec![3.0, 4.0]);
/// assert_eq!(norm_axis(&b, Some(NormOrd::P(0.0)), 1)?.to_vec()?, vec![1.0, 2.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` for an axis other than 0, 1, −1, −2, for [`NormOrd::Fro`] (SciPy:
/// "Invalid norm order for vectors"), for a NaN order, and for ±inf along an axis of length 0.
pub fn norm_axis<T: Float, I: SpIndex>(
    a: &CsrMatrix<T, I>,
    ord: Option<NormOrd>,
    axis: isize,
) -> Result<Array<T::Real>> {
    let op = "norm";
    axis_of(op, axis, 2)?;
    let p = match ord {
        None => 2.0,
        Some(NormOrd::P(p)) if !p.is_nan() => p,
        Some(o) => {
            return Err(make::arg(
                op,
                format!("invalid norm order {o:?} for vectors"),
            ))
        }
    };
    if p.is_infinite() {
        return axis_minmax(a, axis, p > 0.0, op, |d| d.abs());
    }
    let c = a.sum_duplicates()?;
    // the sums run along `axis` itself: sum_axis(0) sums over the rows
    let rsum = |v: Array<T::Real>| with_data(&c, v).sum_axis(axis);
    let real = |v: f64| <T::Real as RealFloat>::from_f64(v);
    match p {
        _ if p == 0.0 => rsum(
            c.data
                .ne(&Array::full(&[c.nnz()], T::zero(), c.device())?)?
                .astype::<T::Real>()?,
        ),
        _ if p == 1.0 => rsum(c.data.abs()?),
        _ if p == 2.0 => rsum(c.data.abs2()?)?.sqrt(),
        _ => rsum(c.data.abs()?.powf(real(p))?)?.powf(real(1.0 / p)),
    }
}

/// `A` to the power `k` by repeated squaring with SpGEMM (`scipy.sparse.linalg.matrix_power`):
/// `k = 0` gives the identity, `k = 1` a copy.
///
/// ```
/// use cusci_sparse::{CsrMatrix, Array, Device};
/// use cusci_sparse::linalg::matrix_power;
/// let a = CsrMatrix::from_dense(&Array::from_vec(vec![1.0f64, 1.0, 0.0, 1.0], &[2, 2], &Device::Cpu)?)?;
/// assert_eq!(matrix_power(&a, 3)?.toarray()?.to_vec()?, vec![1.0, 3.0, 0.0, 1.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a matrix that is not square.
pub fn matrix_power<T: Float, I: SpIndex>(a: &CsrMatrix<T, I>, k: u32) -> Result<CsrMatrix<T, I>> {
    let (m, n) = a.shape;
    if m != n {
        return Err(make::shape(
            "matrix_power",
            format!("expected a square matrix, got ({m}, {n})"),
        ));
    }
    if k == 0 {
        return crate::construct::identity::<T>(n, a.device())?.with_index::<I>();
    }
    let mut result: Option<CsrMatrix<T, I>> = None;
    let mut base = a.clone();
    let mut e = k;
    loop {
        if e & 1 == 1 {
            result = Some(match result {
                None => base.clone(),
                Some(r) => r.matmul(&base)?,
            });
        }
        e >>= 1;
        if e == 0 {
            break;
        }
        base = base.matmul(&base)?;
    }
    Ok(result.unwrap_or_else(|| a.clone()))
}
