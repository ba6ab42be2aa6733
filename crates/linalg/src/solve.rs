//! LU-based functions: `solve`, `inv`, `det`, `slogdet`, `lu_factor`, `lu_solve`, `lu`, and the
//! factor type [`Lu`].
//!
//! GPU: `solve`/`inv` of order `n <= 32` (one matrix or a stack) are one kernel
//! (`cuda/small_solve.cu`: LU with partial pivoting in registers, checks included); larger ones
//! cuSOLVER's 64-bit `Xgetrf`/`Xgetrs` per matrix. A row-major matrix's storage is the
//! column-major transpose, so `solve` factors `Aᵀ` in place and solves with `trans = T`, and `inv`
//! solves `Aᵀ Y = I` with `trans = N`, whose result's storage is `A⁻¹` row-major (no transposes).
//! Finiteness flags and `info` are read back once, after all the work is queued (this
//! synchronises) and become `InvalidArgument` / `Error::Singular`.

use crate::shared::{singular, Lu};
use crate::util::{cat, cpu_array, cpu_map, mat_dims, prod, same_device, square_dims, which};
use crate::{cpu, cuda, Scalar};
use cusci_core::array::layout::broadcast_shapes;
use cusci_core::error::make;
use cusci_core::{Array, Backend, Device, Result};

/// Solves `a @ x = b` for `x` (NumPy's `linalg.solve`, NumPy 2 rules): `a` is `(..., N, N)`; `b`
/// is `(N,)` (one vector) or `(..., N, K)`; the leading axes broadcast.
///
/// # Errors
/// `InvalidArgument` when `a` is not square or `a` or `b` holds NaN or infinity (SciPy's
/// `check_finite`); `ShapeMismatch` when `b` does not match;
/// `Singular { index }` for a singular matrix (the zero pivot for one matrix, the index of the
/// first singular matrix in a stack). Synchronises on the GPU (to read `info`).
///
/// # Numerics
/// Gaussian elimination with partial pivoting: backward stable; the error of `x` grows with
/// `cond(a)·ε`.
///
/// ```
/// use cusci_linalg::{solve, Array, Device};
/// let a = Array::from_vec(vec![3.0f64, 1.0, 1.0, 2.0], &[2, 2], &Device::Cpu)?;
/// let b = Array::from_vec(vec![9.0f64, 8.0], &[2], &Device::Cpu)?;
/// let x = solve(&a, &b)?.to_vec()?;
/// assert!((x[0] - 2.0).abs() < 1e-12 && (x[1] - 3.0).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn solve<T: Scalar>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    let op = "solve";
    same_device(op, a, b)?;
    let (ba, n) = square_dims(op, a)?;
    let vector = b.ndim() == 1;
    let b2 = if vector { b.expand_dims(1)? } else { b.clone() };
    let (bb, nb, k) = mat_dims(op, &b2)?;
    if nb != n {
        return Err(make::shape(
            op,
            format!("a is {:?} but b is {:?}", a.shape(), b.shape()),
        ));
    }
    let batch = broadcast_shapes(op, &ba, &bb)?;
    let x = match a.backend() {
        Backend::Host(_) => {
            crate::util::check_finite(op, a)?;
            crate::util::check_finite(op, b)?;
            solve_cpu(op, a, Some(&b2), &batch, k)?
        }
        // the finiteness checks are part of the GPU's passes and status read
        Backend::Cuda(c) => cuda::solve::solve(c.dev(), op, a, Some(&b2), &batch, k)?,
    };
    if vector {
        return x.index_axis(-1, 0);
    }
    Ok(x)
}

/// Shared by `solve` and `inv` on the CPU: `a x = b` for `b` (`None`: the identity, `k = n`),
/// `a` and `b` broadcast to `batch`.
fn solve_cpu<T: Scalar>(
    op: &str,
    a: &Array<T>,
    b: Option<&Array<T>>,
    batch: &[usize],
    k: usize,
) -> Result<Array<T>> {
    let n = a.shape()[a.ndim() - 1];
    let count = prod(batch);
    let out_shape = cat(batch, &[n, k]);
    if count == 0 || n == 0 || k == 0 {
        return Array::zeros(&out_shape, a.device());
    }
    let batched = !batch.is_empty();
    let av = a.broadcast_to(&cat(batch, &[n, n]))?.to_vec()?;
    let bv = match b {
        Some(b) => b.broadcast_to(&out_shape)?.to_vec()?,
        None => Array::<T>::eye(n, None, 0, a.device())?
            .broadcast_to(&out_shape)?
            .to_vec()?,
    };
    let xs = cpu_map(&av, count, n * n, |i, m| {
        let mut lu = m.to_vec();
        let mut piv = vec![0; n];
        if let Some(z) = cpu::lu_inplace(&mut lu, n, n, &mut piv) {
            return Err(singular(op, which(batched, i, z)));
        }
        let mut x = bv[i * n * k..(i + 1) * n * k].to_vec();
        cpu::lu_solve_inplace(&lu, &piv, n, &mut x, k, 0);
        Ok(x)
    })?;
    cpu_array(xs.concat(), &out_shape)
}

/// Inverse of a square matrix or a stack of them (NumPy's `linalg.inv`).
///
/// # Errors
/// `InvalidArgument` when not square or for NaN/infinity in `a` (SciPy's `check_finite`);
/// `Singular { index }` for a singular matrix: never a
/// matrix of infinities (CuPy's default). Synchronises on the GPU.
///
/// ```
/// use cusci_linalg::{inv, Array, Device};
/// let a = Array::from_vec(vec![2.0f64, 0.0, 0.0, 4.0], &[2, 2], &Device::Cpu)?;
/// assert_eq!(inv(&a)?.to_vec()?, vec![0.5, 0.0, 0.0, 0.25]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn inv<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    let op = "inv";
    let (batch, n) = square_dims(op, a)?;
    match a.backend() {
        Backend::Host(_) => {
            crate::util::check_finite(op, a)?;
            solve_cpu(op, a, None, &batch, n)
        }
        Backend::Cuda(c) => cuda::solve::solve(c.dev(), op, a, None, &batch, n),
    }
}

/// Per-matrix LU diagonals and swap counts, the common part of `det` and `slogdet`.
#[allow(clippy::type_complexity)]
fn lu_diagonals<T: Scalar>(
    op: &str,
    a: &Array<T>,
) -> Result<(Vec<usize>, usize, Vec<T>, Vec<bool>)> {
    let (batch, n) = square_dims(op, a)?;
    let count = prod(&batch);
    if count == 0 || n == 0 {
        return Ok((batch, n, Vec::new(), vec![false; count]));
    }
    let (diag, odd) = match a.backend() {
        Backend::Host(_) => {
            let av = a.to_vec()?;
            let r = cpu_map(&av, count, n * n, |_, m| {
                let mut lu = m.to_vec();
                let mut piv = vec![0; n];
                cpu::lu_inplace(&mut lu, n, n, &mut piv);
                let diag: Vec<T> = (0..n).map(|i| lu[i * n + i]).collect();
                let odd = piv.iter().enumerate().filter(|(i, p)| *i != **p).count() % 2 == 1;
                Ok((diag, odd))
            })?;
            let odd = r.iter().map(|x| x.1).collect();
            let diag = r.into_iter().flat_map(|x| x.0).collect();
            (diag, odd)
        }
        Backend::Cuda(c) => cuda::solve::lu_diagonals(c.dev(), a, count, n)?,
    };
    Ok((batch, n, diag, odd))
}

/// Determinant of a square matrix or a stack (NumPy's `linalg.det`), through LU.
///
/// A singular matrix gives 0 (not an error, as NumPy). The result is on `a`'s device; the GPU
/// path synchronises (the diagonal's product is formed on the host).
///
/// # Errors
/// `InvalidArgument` when not square.
///
/// ```
/// use cusci_linalg::{det, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2], &Device::Cpu)?;
/// assert!((det(&a)?.item()? + 2.0).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn det<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    square_dims("det", a)?;
    crate::util::check_finite("det", a)?;
    let (batch, n, diag, odd) = lu_diagonals("det", a)?;
    let vals: Vec<T> = odd
        .iter()
        .enumerate()
        .map(|(i, &o)| {
            let p = diag[i * n..(i + 1) * n]
                .iter()
                .fold(T::one(), |acc, &x| acc * x);
            if o {
                -p
            } else {
                p
            }
        })
        .collect();
    Array::from_vec(vals, &batch, a.device())
}

/// Sign and natural log of the absolute determinant (NumPy's `linalg.slogdet`): `det = sign ·
/// exp(logabsdet)`, without overflow. A singular matrix gives sign 0 and `-inf`. For complex
/// input the sign is a unit complex number.
///
/// # Errors
/// `InvalidArgument` when not square. Synchronises on the GPU.
///
/// ```
/// use cusci_linalg::{slogdet, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2], &Device::Cpu)?;
/// let (s, l) = slogdet(&a)?;
/// assert_eq!(s.item()?, -1.0);
/// assert!((l.item()? - 2f64.ln()).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn slogdet<T: Scalar>(a: &Array<T>) -> Result<(Array<T>, Array<T::R>)> {
    use cusci_core::RealFloat;
    let (batch, n, diag, odd) = lu_diagonals("slogdet", a)?;
    let mut signs = Vec::with_capacity(odd.len());
    let mut logs = Vec::with_capacity(odd.len());
    for (i, &o) in odd.iter().enumerate() {
        let mut s = if o { -T::one() } else { T::one() };
        let mut l = 0.0f64;
        for &x in &diag[i * n..(i + 1) * n] {
            let m = x.abs().to_f64();
            if m == 0.0 {
                s = T::zero();
                l = f64::NEG_INFINITY;
                break;
            }
            s = s * (x / T::from_real(x.abs()));
            l += m.ln();
        }
        signs.push(s);
        logs.push(<T::R as RealFloat>::from_f64(l));
    }
    Ok((
        Array::from_vec(signs, &batch, a.device())?,
        Array::from_vec(logs, &batch, a.device())?,
    ))
}

/// Options of [`lu_factor`] (SciPy's keyword arguments).
#[derive(Debug, Clone, Copy)]
pub struct LuFactorOptions {
    /// Check the input for NaN and infinities (one more pass, and a synchronisation on the GPU).
    pub check_finite: bool,
}

impl Default for LuFactorOptions {
    fn default() -> Self {
        LuFactorOptions { check_finite: true }
    }
}

/// LU factorisation with partial pivoting (SciPy's `linalg.lu_factor`) of a `(..., M, N)` array.
///
/// A singular matrix is factored (it has a zero on `U`'s diagonal) and is not an error, as in
/// SciPy; [`lu_solve`] with it is. Synchronises on the GPU only with `check_finite`.
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions, or non-finite input with `check_finite`.
///
/// ```
/// use cusci_linalg::{lu_factor, lu_solve, Array, Device, LuFactorOptions};
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2], &Device::Cpu)?;
/// let f = lu_factor(&a, LuFactorOptions::default())?;
/// assert_eq!(f.piv.to_vec()?, vec![1, 1]);
/// let x = lu_solve(&f, &Array::from_vec(vec![5.0f64, 11.0], &[2], &Device::Cpu)?, 0)?.to_vec()?;
/// assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 2.0).abs() < 1e-12);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn lu_factor<T: Scalar>(a: &Array<T>, opts: LuFactorOptions) -> Result<Lu<T>> {
    let op = "lu_factor";
    let (batch, m, n) = mat_dims(op, a)?;
    if opts.check_finite {
        crate::util::check_finite(op, a)?;
    }
    let k = m.min(n);
    let count = prod(&batch);
    let piv_shape = cat(&batch, &[k]);
    if count == 0 || k == 0 {
        return Ok(Lu {
            lu: a.copy()?,
            piv: Array::zeros(&piv_shape, a.device())?,
            gpu: None,
        });
    }
    match a.backend() {
        Backend::Host(_) => {
            let av = a.to_vec()?;
            let r = cpu_map(&av, count, m * n, |_, x| {
                let mut lu = x.to_vec();
                let mut piv = vec![0; k];
                cpu::lu_inplace(&mut lu, m, n, &mut piv);
                Ok((lu, piv.into_iter().map(|p| p as i64).collect::<Vec<i64>>()))
            })?;
            let (lus, pivs): (Vec<_>, Vec<_>) = r.into_iter().unzip();
            Ok(Lu {
                lu: cpu_array(lus.concat(), a.shape())?,
                piv: cpu_array(pivs.concat(), &piv_shape)?,
                gpu: None,
            })
        }
        Backend::Cuda(c) => cuda::solve::lu_factor(c.dev(), a, count, &piv_shape),
    }
}

impl<T: Scalar> Lu<T> {
    /// Solves `op(a) x = b` with this factorisation (SciPy's `lu_solve`); `trans` 0: `a x = b`,
    /// 1: `aᵀ x = b`, 2: `aᴴ x = b`. `b` is `(N,)` or `(..., N, K)`, broadcast against the
    /// factor's batch.
    ///
    /// # Errors
    /// `ShapeMismatch` for a mismatched `b`, `InvalidArgument` for a non-square factor or `trans`
    /// outside 0..=2, `Singular { index }` when `U` has a zero on its diagonal (synchronises on
    /// the GPU).
    pub fn solve(&self, b: &Array<T>, trans: u8) -> Result<Array<T>> {
        let op = "lu_solve";
        same_device(op, &self.lu, b)?;
        crate::util::check_finite(op, b)?;
        if trans > 2 {
            return Err(make::arg(
                op,
                format!("trans must be 0, 1 or 2, got {trans}"),
            ));
        }
        let (batch_a, n) = square_dims(op, &self.lu)?;
        let vector = b.ndim() == 1;
        let b2 = if vector { b.expand_dims(1)? } else { b.clone() };
        let (bb, nb, k) = mat_dims(op, &b2)?;
        if nb != n {
            return Err(make::shape(
                op,
                format!("factor is {:?} but b is {:?}", self.lu.shape(), b.shape()),
            ));
        }
        let batch = broadcast_shapes(op, &batch_a, &bb)?;
        let count = prod(&batch);
        let out_shape = cat(&batch, &[n, k]);
        let batched = !batch.is_empty();
        let x = if count == 0 || n == 0 || k == 0 {
            Array::zeros(&out_shape, b.device())?
        } else {
            match b.backend() {
                Backend::Host(_) => {
                    let lu = self.lu.broadcast_to(&cat(&batch, &[n, n]))?.to_vec()?;
                    let pv = self.piv.broadcast_to(&cat(&batch, &[n]))?.to_vec()?;
                    let bv = b2.broadcast_to(&out_shape)?.to_vec()?;
                    let xs = cpu_map(&lu, count, n * n, |i, f| {
                        let piv: Vec<usize> =
                            pv[i * n..(i + 1) * n].iter().map(|&p| p as usize).collect();
                        if piv.iter().any(|&p| p >= n) {
                            return Err(make::arg(op, "pivot index out of range"));
                        }
                        if let Some(z) = (0..n).find(|&j| f[j * n + j] == T::zero()) {
                            return Err(singular(op, which(batched, i, z)));
                        }
                        let mut x = bv[i * n * k..(i + 1) * n * k].to_vec();
                        cpu::lu_solve_inplace(f, &piv, n, &mut x, k, trans);
                        Ok(x)
                    })?;
                    cpu_array(xs.concat(), &out_shape)?
                }
                Backend::Cuda(c) => cuda::solve::lu_solve(c.dev(), self, &b2, &batch, trans)?,
            }
        };
        if vector {
            return x.index_axis(-1, 0);
        }
        Ok(x)
    }
}

/// SciPy's `linalg.lu_solve`: [`Lu::solve`] on a factorisation from [`lu_factor`].
///
/// # Errors
/// As [`Lu::solve`].
pub fn lu_solve<T: Scalar>(lu: &Lu<T>, b: &Array<T>, trans: u8) -> Result<Array<T>> {
    lu.solve(b, trans)
}

impl<T: Scalar> Lu<T> {
    /// Builds a factorisation from SciPy's `(lu, piv)` pair (as `lu_factor` returns them).
    ///
    /// # Errors
    /// `ShapeMismatch` when `piv`'s shape is not `lu`'s batch plus `min(M, N)`.
    pub fn from_parts(lu: Array<T>, piv: Array<i64>) -> Result<Lu<T>> {
        let (batch, m, n) = mat_dims("Lu::from_parts", &lu)?;
        if piv.shape() != cat(&batch, &[m.min(n)]).as_slice() {
            return Err(make::shape(
                "Lu::from_parts",
                format!("lu {:?} and piv {:?}", lu.shape(), piv.shape()),
            ));
        }
        cusci_core::array::check_same_device("Lu::from_parts", lu.device(), piv.device())?;
        Ok(Lu { lu, piv, gpu: None })
    }
}

/// `true` where row `i`, column `j` of an `m x n` matrix is kept by `tril(k)` (or `triu(k)`).
pub(crate) fn tri_mask(
    m: usize,
    n: usize,
    k: isize,
    lower: bool,
    dev: &Device,
) -> Result<Array<bool>> {
    let mut v = vec![false; m * n];
    for i in 0..m {
        for j in 0..n {
            let d = j as isize - i as isize;
            v[i * n + j] = if lower { d <= k } else { d >= k };
        }
    }
    Array::from_vec(v, &[m, n], dev)
}

/// The lower (`lower`) or upper triangle of the last two axes, from diagonal `k`.
pub(crate) fn tri<T: Scalar>(a: &Array<T>, k: isize, lower: bool) -> Result<Array<T>> {
    if let Backend::Cuda(c) = a.backend() {
        // one tiled kernel: reads the (possibly transposed) view, writes zeros outside
        return cuda::kernels::tile_copy(c.dev(), a, if lower { 1 } else { 2 }, k, false);
    }
    let nd = a.ndim();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let mask = tri_mask(m, n, k, lower, a.device())?.broadcast_to(a.shape())?;
    let z = Array::<T>::zeros(a.shape(), a.device())?;
    cusci_core::where_(&mask, a, &z)
}

/// Pivoted LU decomposition `a = P L U` (SciPy's `linalg.lu`, `permute_l=False`): `P` is
/// `(..., M, M)`, `L` `(..., M, K)` unit lower trapezoidal, `U` `(..., K, N)` upper, with
/// `K = min(M, N)`. Synchronises on the GPU (the permutation is built from the pivots on the host).
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions.
///
/// ```
/// use cusci_linalg::{lu, matmul, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2], &Device::Cpu)?;
/// let (p, l, u) = lu(&a)?;
/// let back = matmul(&p, &matmul(&l, &u)?)?.to_vec()?;
/// assert!(back.iter().zip([1.0, 2.0, 3.0, 4.0]).all(|(x, y)| (x - y).abs() < 1e-12));
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn lu<T: Scalar>(a: &Array<T>) -> Result<(Array<T>, Array<T>, Array<T>)> {
    let op = "lu";
    let (batch, m, n) = mat_dims(op, a)?;
    crate::util::check_finite(op, a)?;
    let k = m.min(n);
    let f = lu_factor(
        a,
        LuFactorOptions {
            check_finite: false,
        },
    )?;
    let count = prod(&batch);
    let pv = f.piv.to_vec()?;
    let mut p = vec![T::zero(); count * m * m];
    for b in 0..count {
        let mut perm: Vec<usize> = (0..m).collect();
        for (i, &q) in pv[b * k..(b + 1) * k].iter().enumerate() {
            perm.swap(i, q as usize);
        }
        for (i, &r) in perm.iter().enumerate() {
            p[b * m * m + r * m + i] = T::one();
        }
    }
    let p = Array::from_vec(p, &cat(&batch, &[m, m]), a.device())?;
    let lk = f.lu.slice_axis(-1, Some(0), Some(k as isize), 1)?;
    let l = tri(&lk, -1, true)?.add(&Array::<T>::eye(m, Some(k), 0, a.device())?)?;
    let uk = f.lu.slice_axis(-2, Some(0), Some(k as isize), 1)?;
    let u = tri(&uk, 0, false)?;
    Ok((p, l, u))
}
