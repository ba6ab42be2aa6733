//! Constructors: [`eye`], [`identity`], [`diags`], [`random`] (SciPy's functions of the same
//! names, CSR results). The structure is computed on the host from the arguments (which are host
//! values) and the arrays are created on the target device in one transfer each.

use crate::matrix::CsrMatrix;
use cusci_core::error::make;
use cusci_core::random::Generator;
use cusci_core::{Device, Float, RealFloat, Result};

/// `scipy.sparse.eye(m, n, k)`: ones on diagonal `k` (k > 0 above the main diagonal) of an
/// m x n matrix, CSR.
///
/// ```
/// let a = cusci_sparse::eye::<f64>(2, 3, 1, &cusci_sparse::Device::Cpu)?;
/// assert_eq!(a.toarray()?.to_vec()?, vec![0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` past 32-bit indices; device errors.
pub fn eye<T: Float>(m: usize, n: usize, k: isize, dev: &Device) -> Result<CsrMatrix<T>> {
    // the 32-bit index limit checked first: nothing of a huge shape is allocated (m + 1 fits)
    if m > i32::MAX as usize || n > i32::MAX as usize {
        return Err(make::arg(
            "eye",
            format!("shape ({m}, {n}) is past 32-bit indices"),
        ));
    }
    let len = diag_len(m, n, k);
    if len == 0 {
        return CsrMatrix::from_host(vec![0; m + 1], vec![], vec![], (m, n), true, dev);
    }
    diags_impl(&[vec![T::one(); len.max(1)]], &[k], (m, n), dev, true)
}

/// `scipy.sparse.identity(n)`: the n x n identity, CSR.
///
/// ```
/// let a = cusci_sparse::identity::<f32>(2, &cusci_sparse::Device::Cpu)?;
/// assert_eq!(a.nnz(), 2);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`eye`].
pub fn identity<T: Float>(n: usize, dev: &Device) -> Result<CsrMatrix<T>> {
    eye(n, n, 0, dev)
}

/// Length of diagonal `k` of an m x n matrix (0 when outside).
fn diag_len(m: usize, n: usize, k: isize) -> usize {
    // in i128: no overflow for any shape and offset
    let (m, n, k) = (m as i128, n as i128, k as i128);
    let l = if k >= 0 { m.min(n - k) } else { (m + k).min(n) };
    usize::try_from(l.max(0)).unwrap_or(usize::MAX)
}

/// `scipy.sparse.diags(diagonals, offsets, shape)`, CSR: `diagonals[i]` fills diagonal
/// `offsets[i]`; the entry at (r, c) of diagonal k is `diagonals[i][min(r, c)]`. A diagonal of
/// length 1 is broadcast along the whole diagonal; a longer one than the diagonal is truncated
/// (as SciPy). Without `shape` the matrix is square, of size `len(diagonals[0]) + |offsets[0]|`.
/// Zero values are not stored (SciPy goes through the DIA format, whose conversion drops them).
///
/// ```
/// use cusci_sparse::{diags, Device};
/// // the 1-D Laplacian [-1, 2, -1] on 3 points
/// let a = diags::<f64>(&[&[2.0; 3], &[-1.0; 2], &[-1.0; 2]], &[0, -1, 1], None, &Device::Cpu)?;
/// assert_eq!(a.toarray()?.to_vec()?, vec![2.0, -1.0, 0.0, -1.0, 2.0, -1.0, 0.0, -1.0, 2.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` for repeated offsets, a count of diagonals different from the count of
/// offsets, an offset outside the matrix, or a diagonal shorter than its place (and not 1).
pub fn diags<T: Float>(
    diagonals: &[&[T]],
    offsets: &[isize],
    shape: Option<(usize, usize)>,
    dev: &Device,
) -> Result<CsrMatrix<T>> {
    let op = "diags";
    if diagonals.len() != offsets.len() {
        return Err(make::arg(
            op,
            format!(
                "{} diagonals for {} offsets",
                diagonals.len(),
                offsets.len()
            ),
        ));
    }
    let shape = match shape {
        Some(s) => s,
        None => {
            let Some(d0) = diagonals.first() else {
                return Err(make::arg(op, "no diagonals and no shape"));
            };
            let n = d0.len() + offsets[0].unsigned_abs();
            (n, n)
        }
    };
    let owned: Vec<Vec<T>> = diagonals.iter().map(|d| d.to_vec()).collect();
    diags_impl(&owned, offsets, shape, dev, false)
}

fn diags_impl<T: Float>(
    diagonals: &[Vec<T>],
    offsets: &[isize],
    (m, n): (usize, usize),
    dev: &Device,
    keep_zeros: bool,
) -> Result<CsrMatrix<T>> {
    let op = "diags";
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_by_key(|&i| offsets[i]);
    for w in order.windows(2) {
        if offsets[w[0]] == offsets[w[1]] {
            return Err(make::arg(op, "repeated diagonal offsets"));
        }
    }
    for (i, (&k, d)) in offsets.iter().zip(diagonals).enumerate() {
        let len = diag_len(m, n, k);
        let outside = if k >= 0 {
            k as usize > n
        } else {
            k.unsigned_abs() > m
        };
        if outside {
            return Err(make::arg(
                op,
                format!("offset {k} (index {i}) out of bounds"),
            ));
        }
        if d.len() < len && d.len() != 1 {
            return Err(make::arg(
                op,
                format!(
                    "diagonal length (index {i}: {} at offset {k}) does not agree with matrix size ({m}, {n})",
                    d.len()
                ),
            ));
        }
    }
    let est: usize = offsets.iter().map(|&k| diag_len(m, n, k)).sum();
    if m > i32::MAX as usize || n > i32::MAX as usize || est > i32::MAX as usize {
        return Err(make::arg(
            op,
            "the matrix needs 64-bit indices, which are not supported",
        ));
    }
    let mut indptr = Vec::with_capacity(m + 1);
    let mut indices = Vec::with_capacity(est);
    let mut data = Vec::with_capacity(est);
    indptr.push(0i32);
    for r in 0..m as isize {
        for &i in &order {
            let k = offsets[i];
            let c = r + k;
            if c < 0 || c >= n as isize {
                continue;
            }
            let d = &diagonals[i];
            let v = if d.len() == 1 {
                d[0]
            } else {
                d[r.min(c) as usize]
            };
            if keep_zeros || v != T::zero() {
                indices.push(c as i32);
                data.push(v);
            }
        }
        indptr.push(indices.len() as i32);
    }
    CsrMatrix::from_host(indptr, indices, data, (m, n), true, dev)
}

/// `scipy.sparse.random(m, n, density)`, CSR (canonical): `round(density · m · n)` distinct
/// positions drawn with Floyd's algorithm and uniform [0, 1) values (complex types: real and
/// imaginary parts both uniform), all from the core's Philox [`Generator`] with `seed`, so the
/// matrix is the same on every device (it is not SciPy's stream of numbers).
///
/// ```
/// let a = cusci_sparse::random::<f64>(10, 20, 0.1, 7, &cusci_sparse::Device::Cpu)?;
/// assert_eq!(a.nnz(), 20);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` for a density outside [0, 1].
pub fn random<T: Float>(
    m: usize,
    n: usize,
    density: f64,
    seed: u64,
    dev: &Device,
) -> Result<CsrMatrix<T>> {
    let op = "random";
    if !(0.0..=1.0).contains(&density) {
        return Err(make::arg(op, format!("density {density} is not in [0, 1]")));
    }
    let total = (m as u128) * (n as u128);
    if total > u64::MAX as u128 / 2 {
        return Err(make::arg(op, "shape too large"));
    }
    let total = total as u64;
    let k = (density * total as f64).round() as u64;
    let k = k.min(total) as usize;
    if k > i32::MAX as usize {
        return Err(make::arg(
            op,
            "the matrix needs 64-bit indices, which are not supported",
        ));
    }
    let mut g = Generator::new(seed);
    let u: Vec<f64> = g.random::<f64>(&[k], &Device::Cpu)?.to_vec()?;
    let mut chosen = std::collections::HashSet::with_capacity(k);
    let mut picks = Vec::with_capacity(k);
    for (i, j) in (total - k as u64..total).enumerate() {
        let t = ((u[i] * (j + 1) as f64) as u64).min(j);
        let v = if chosen.insert(t) {
            t
        } else {
            chosen.insert(j);
            j
        };
        picks.push(v);
    }
    picks.sort_unstable();
    let re: Vec<T::Real> = g.random::<T::Real>(&[k], &Device::Cpu)?.to_vec()?;
    let im: Vec<T::Real> = if T::DTYPE.is_complex() {
        g.random::<T::Real>(&[k], &Device::Cpu)?.to_vec()?
    } else {
        vec![<T::Real as RealFloat>::from_f64(0.0); k]
    };
    let mut indptr = vec![0i32; m + 1];
    let mut indices = Vec::with_capacity(k);
    let mut data = Vec::with_capacity(k);
    for (i, &pos) in picks.iter().enumerate() {
        let (r, c) = ((pos / n as u64) as usize, (pos % n as u64) as i32);
        indptr[r + 1] += 1;
        indices.push(c);
        let z = cusci_core::c64::new(re[i].to_f64(), im[i].to_f64());
        data.push(<T as cusci_core::Element>::from_c64(z));
    }
    for r in 0..m {
        indptr[r + 1] += indptr[r];
    }
    CsrMatrix::from_host(indptr, indices, data, (m, n), true, dev)
}

/// `scipy.sparse.diags_array(diagonals, offsets=..., shape=...)`, SciPy's array-API name of
/// [`diags`] (same arguments, result and errors).
///
/// # Errors
/// As [`diags`].
pub fn diags_array<T: Float>(
    diagonals: &[&[T]],
    offsets: &[isize],
    shape: Option<(usize, usize)>,
    dev: &Device,
) -> Result<CsrMatrix<T>> {
    diags(diagonals, offsets, shape, dev)
}

/// `scipy.sparse.random_array(shape, density=..., random_state=seed)`: [`random`] with the
/// shape as a pair (SciPy's default density is 0.01).
///
/// # Errors
/// As [`random`].
pub fn random_array<T: Float>(
    shape: (usize, usize),
    density: f64,
    seed: u64,
    dev: &Device,
) -> Result<CsrMatrix<T>> {
    random(shape.0, shape.1, density, seed, dev)
}

/// `scipy.sparse.eye_array(m, n=None, k=0)`: [`eye`] with SciPy's array-API signature (`n`
/// defaults to `m`), CSR (SciPy's default format is DIA; convert with `todia()` where it
/// matters).
///
/// ```
/// let a = cusci_sparse::eye_array::<f32>(2, None, -1, &cusci_sparse::Device::Cpu)?;
/// assert_eq!(a.toarray()?.to_vec()?, vec![0.0, 0.0, 1.0, 0.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`eye`].
pub fn eye_array<T: Float>(
    m: usize,
    n: Option<usize>,
    k: isize,
    dev: &Device,
) -> Result<CsrMatrix<T>> {
    eye(m, n.unwrap_or(m), k, dev)
}

/// `scipy.sparse.rand(m, n, density)`: the same matrix as [`random`] (SciPy's `rand` is
/// `random` with uniform values), from the core's Philox generator with `seed`, identical on
/// every device.
///
/// ```
/// let dev = cusci_sparse::Device::Cpu;
/// let a = cusci_sparse::rand::<f64>(6, 5, 0.5, 3, &dev)?;
/// let b = cusci_sparse::random::<f64>(6, 5, 0.5, 3, &dev)?;
/// assert_eq!(a.toarray()?.to_vec()?, b.toarray()?.to_vec()?);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`random`].
pub fn rand<T: Float>(
    m: usize,
    n: usize,
    density: f64,
    seed: u64,
    dev: &Device,
) -> Result<CsrMatrix<T>> {
    random(m, n, density, seed, dev)
}
