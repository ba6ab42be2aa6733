//! [`LaplacianNd`]: SciPy's `sparse.linalg.LaplacianNd`, the grid Laplacian as a
//! [`LinearOperator`] with its sparse matrix, dense form and analytic eigenpairs.

use crate::linalg::LinearOperator;
use crate::{eye, kron, CooMatrix, CsrMatrix};
use cusci_core::error::make;
use cusci_core::{c64, Array, Device, Float, Result};

/// The boundary conditions of [`LaplacianNd`] (SciPy's `boundary_conditions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Boundary {
    /// Zero outside the grid: `-2` on the diagonal.
    Dirichlet,
    /// Zero normal derivative (SciPy's default): `-1` at the ends of each direction.
    #[default]
    Neumann,
    /// Wrapping around in each direction.
    Periodic,
}

/// The N-dimensional grid Laplacian (SciPy's `LaplacianNd(grid_shape, boundary_conditions)`):
/// the sum over the directions of `I ⊗ … ⊗ L₁ ⊗ … ⊗ I` with the 1-D second difference
/// `L₁ = tridiag(1, −2, 1)` (Neumann: `−1` at both ends of the diagonal; periodic: `1` added
/// at the corners), on the grid flattened in C order; negative semi-definite, as SciPy's.
/// The matrix is built once on the given device (`kron` and sums of sparse matrices) and
/// serves `matvec`/`rmatvec` (it is symmetric), [`tosparse`](Self::tosparse) and
/// [`toarray`](Self::toarray); [`eigenvalues`](Self::eigenvalues) and
/// [`eigenvectors`](Self::eigenvectors) are SciPy's closed forms (host values, the vectors
/// put on the device).
///
/// ```
/// use cusci_sparse::linalg::{Boundary, LaplacianNd, LinearOperator};
/// use cusci_sparse::Device;
/// let l = LaplacianNd::<f64>::new(&[2, 3], Boundary::Dirichlet, &Device::Cpu)?;
/// assert_eq!(l.shape(), (6, 6));
/// let d = l.toarray()?.to_vec()?;
/// assert_eq!((d[0], d[1], d[3]), (-4.0, 1.0, 1.0));
/// let w = l.eigenvalues(None)?;
/// assert!((w[5] - (-4.0 * (std::f64::consts::PI / 6.0).sin().powi(2)
///     - 4.0 * (std::f64::consts::PI / 8.0).sin().powi(2))).abs() < 1e-14);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
pub struct LaplacianNd<T: Float> {
    grid_shape: Vec<usize>,
    bc: Boundary,
    matrix: CsrMatrix<T>,
}

impl<T: Float> LaplacianNd<T> {
    /// The Laplacian of `grid_shape` with the boundary conditions `bc`, on `dev`.
    ///
    /// # Errors
    /// `InvalidArgument` for an empty `grid_shape`, a zero dimension, or a size that does not
    /// fit `i32` indices.
    pub fn new(grid_shape: &[usize], bc: Boundary, dev: &Device) -> Result<Self> {
        let op = "LaplacianNd";
        if grid_shape.is_empty() || grid_shape.contains(&0) {
            return Err(make::arg(
                op,
                format!("grid_shape must be non-empty with positive sizes, got {grid_shape:?}"),
            ));
        }
        let total = grid_shape
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .filter(|&p| p.checked_mul(5).is_some_and(|e| e <= i32::MAX as usize))
            .ok_or_else(|| make::arg(op, format!("grid {grid_shape:?} is too large")))?;
        let mut sum: Option<CsrMatrix<T>> = None;
        for (i, &dim) in grid_shape.iter().enumerate() {
            let mut li = one_dim::<T>(dim, bc, dev)?;
            for &d in grid_shape[..i].iter().rev() {
                li = kron(&eye::<T>(d, d, 0, dev)?, &li)?;
            }
            for &d in &grid_shape[i + 1..] {
                li = kron(&li, &eye::<T>(d, d, 0, dev)?)?;
            }
            sum = Some(match sum {
                None => li,
                Some(s) => s.add(&li)?,
            });
        }
        let matrix = match sum {
            Some(m) => m,
            None => return Err(make::arg(op, "empty grid")),
        };
        debug_assert_eq!(matrix.shape(), (total, total));
        Ok(LaplacianNd {
            grid_shape: grid_shape.to_vec(),
            bc,
            matrix,
        })
    }

    /// The grid shape.
    pub fn grid_shape(&self) -> &[usize] {
        &self.grid_shape
    }

    /// The boundary conditions.
    pub fn boundary_conditions(&self) -> Boundary {
        self.bc
    }

    /// The sparse matrix (SciPy's `tosparse()`; a CSR copy sharing the stored arrays).
    ///
    /// # Errors
    /// None in practice (the matrix exists already).
    pub fn tosparse(&self) -> Result<CsrMatrix<T>> {
        Ok(self.matrix.clone())
    }

    /// The dense matrix (SciPy's `toarray()`), on the operator's device.
    ///
    /// # Errors
    /// `OutOfMemory` when `N²` elements do not fit.
    pub fn toarray(&self) -> Result<Array<T>> {
        self.matrix.toarray()
    }

    /// The eigenvalues in ascending order (SciPy's `eigenvalues(m)`): all of them, or the `m`
    /// largest (those nearest zero; SciPy's code returns these, its docstring says
    /// "smallest"). From the closed forms of each direction (`−4 sin²(π(j+1)/(2(n+1)))`
    /// Dirichlet, `−4 sin²(πj/(2n))` Neumann, `−4 sin²(π⌊(j+1)/2⌋/n)` periodic), summed in
    /// f64 on the host. With `m`, the candidates are the multi-indices below `min(n_i, m)` in
    /// each direction (SciPy compares the tuples lexicographically; elementwise here, which
    /// gives the true eigenvalues where the two differ).
    ///
    /// # Errors
    /// `InvalidArgument` for `m = 0`.
    pub fn eigenvalues(&self, m: Option<usize>) -> Result<Vec<f64>> {
        Ok(self.ordering(m)?.into_iter().map(|(v, _)| v).collect())
    }

    /// The eigenvectors of [`eigenvalues`](Self::eigenvalues)`(m)` as the columns of an
    /// (N, k) array on the operator's device (SciPy's `eigenvectors(m)`: tensor products of
    /// the 1-D eigenvectors, entries below ε set to zero). Ties keep the multi-index order.
    ///
    /// # Errors
    /// `InvalidArgument` for `m = 0`.
    pub fn eigenvectors(&self, m: Option<usize>) -> Result<Array<T>> {
        let ord = self.ordering(m)?;
        let n: usize = self.grid_shape.iter().product();
        let k = ord.len();
        let mut out = vec![T::zero(); n * k];
        for (c, (_, idx)) in ord.iter().enumerate() {
            let phis: Vec<Vec<f64>> = idx
                .iter()
                .zip(&self.grid_shape)
                .map(|(&j, &d)| ev1d(self.bc, j, d))
                .collect();
            let mut v = vec![1.0f64];
            for p in &phis {
                v = v
                    .iter()
                    .flat_map(|&a| p.iter().map(move |&b| a * b))
                    .collect();
            }
            for (r, x) in v.into_iter().enumerate() {
                out[r * k + c] = T::from_c64(c64::new(x, 0.0));
            }
        }
        Array::from_vec(out, &[n, k], self.matrix.device())
    }

    /// (eigenvalue, multi-index) in ascending order (stable), the last `m` with `m`.
    fn ordering(&self, m: Option<usize>) -> Result<Vec<(f64, Vec<usize>)>> {
        if m == Some(0) {
            return Err(make::arg(
                "LaplacianNd.eigenvalues",
                "m must be a positive number",
            ));
        }
        let dims: Vec<usize> = self
            .grid_shape
            .iter()
            .map(|&d| m.map_or(d, |m| d.min(m)))
            .collect();
        let total: usize = dims.iter().product();
        let mut all = Vec::with_capacity(total);
        for flat in 0..total {
            let mut idx = vec![0usize; dims.len()];
            let mut r = flat;
            for a in (0..dims.len()).rev() {
                idx[a] = r % dims[a];
                r /= dims[a];
            }
            let mut v = 0.0;
            for (&j, &n) in idx.iter().zip(&self.grid_shape) {
                v += ev_1d(self.bc, j, n);
            }
            all.push((v, idx));
        }
        all.sort_by(|a, b| a.0.total_cmp(&b.0));
        if let Some(m) = m {
            let keep = all.len().saturating_sub(m);
            all.drain(..keep);
        }
        Ok(all)
    }
}

/// The `j`-th eigenvalue of the 1-D Laplacian of `n` points.
fn ev_1d(bc: Boundary, j: usize, n: usize) -> f64 {
    let pi = std::f64::consts::PI;
    let (j, n) = (j as f64, n as f64);
    let s = match bc {
        Boundary::Dirichlet => (pi * (j + 1.0) / (2.0 * (n + 1.0))).sin(),
        Boundary::Neumann => (pi * j / (2.0 * n)).sin(),
        Boundary::Periodic => (pi * ((j + 1.0) / 2.0).floor() / n).sin(),
    };
    -4.0 * s * s
}

/// The `j`-th eigenvector of the 1-D Laplacian of `n` points (SciPy's `_ev1d`).
fn ev1d(bc: Boundary, j: usize, n: usize) -> Vec<f64> {
    let pi = std::f64::consts::PI;
    let nf = n as f64;
    let jf = j as f64;
    let mut ev: Vec<f64> = (0..n)
        .map(|i| {
            let i = i as f64;
            match bc {
                Boundary::Dirichlet => {
                    (2.0 / (nf + 1.0)).sqrt() * (pi * (i + 1.0) / (nf + 1.0) * (jf + 1.0)).sin()
                }
                Boundary::Neumann => {
                    let w = if j == 0 { 1.0 } else { 2.0 };
                    (w / nf).sqrt() * (pi * (i + 0.5) / nf * jf).cos()
                }
                Boundary::Periodic => {
                    if j == 0 {
                        (1.0 / nf).sqrt()
                    } else if j + 1 == n && n % 2 == 0 {
                        (1.0 / nf).sqrt() * if i as usize % 2 == 0 { 1.0 } else { -1.0 }
                    } else if (j + 1) % 2 == 0 {
                        (2.0 / nf).sqrt() * (pi * (i + 0.5) / nf * (jf + 1.0)).sin()
                    } else {
                        (2.0 / nf).sqrt() * (pi * (i + 0.5) / nf * jf).cos()
                    }
                }
            }
        })
        .collect();
    for v in ev.iter_mut() {
        if v.abs() < f64::EPSILON {
            *v = 0.0;
        }
    }
    ev
}

/// The 1-D second difference of `dim` points with the boundary rule, as SciPy builds it
/// (a periodic corner of a 1-point grid is set once, not added twice).
fn one_dim<T: Float>(dim: usize, bc: Boundary, dev: &Device) -> Result<CsrMatrix<T>> {
    let mut r = Vec::new();
    let mut c = Vec::new();
    let mut v = Vec::new();
    let mut push = |i: usize, j: usize, x: f64| {
        r.push(i as i32);
        c.push(j as i32);
        v.push(T::from_c64(c64::new(x, 0.0)));
    };
    for i in 0..dim {
        let d = if bc == Boundary::Neumann && (i == 0 || i + 1 == dim) {
            -1.0
        } else {
            -2.0
        };
        push(i, i, d);
        if i + 1 < dim {
            push(i + 1, i, 1.0);
            push(i, i + 1, 1.0);
        }
    }
    if bc == Boundary::Periodic {
        push(dim - 1, 0, 1.0);
        if dim > 1 {
            push(0, dim - 1, 1.0);
        }
    }
    let nnz = v.len();
    CooMatrix::new(
        Array::from_vec(v, &[nnz], dev)?,
        Array::from_vec(r, &[nnz], dev)?,
        Array::from_vec(c, &[nnz], dev)?,
        (dim, dim),
    )?
    .tocsr()
}

impl<T: Float> LinearOperator<T> for LaplacianNd<T> {
    fn shape(&self) -> (usize, usize) {
        self.matrix.shape()
    }
    fn matvec(&self, x: &Array<T>) -> Result<Array<T>> {
        LinearOperator::matvec(&self.matrix, x)
    }
    /// The matrix is real and symmetric: the same product.
    fn rmatvec(&self, x: &Array<T>) -> Result<Array<T>> {
        LinearOperator::matvec(&self.matrix, x)
    }
    fn device(&self) -> Option<Device> {
        Some(self.matrix.device().clone())
    }
}
