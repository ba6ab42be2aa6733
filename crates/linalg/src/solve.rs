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

use crate::cuda::{kernels, ptr, Bound};
use crate::util::{
    broadcast_shapes, cat, cpu_array, cpu_map, mat_dims, prod, same_device, square_dims,
    transposed_copy, which,
};
use crate::{cpu, Scalar};
use cusci_core::error::make;
use cusci_core::{Array, CudaDevice, Device, Error, Result};

/// Up to this order `solve` and `inv` run on the GPU as one kernel for the whole stack (LU with
/// partial pivoting in registers, a warp's lanes holding the rows) and `det`/`slogdet` of a stack
/// use cuBLAS's batched LU; above it, one cuSOLVER `Xgetrf` per matrix.
pub const BATCHED_LU_MAX_N: usize = 32;

fn singular(op: &str, index: usize) -> Error {
    Error::Singular {
        op: op.into(),
        index,
    }
}

/// The first zero pivot of a single singular matrix as the CPU's LU (of A, partial pivoting)
/// finds it: the GPU reports it too, on its error path only (the GPU factors the transposed
/// storage, or the rows in another order, whose first zero pivot can be another one), so that
/// the error is the same on both devices.
fn cpu_pivot<T: Scalar>(a: &Array<T>, n: usize) -> Result<usize> {
    let mut lu = a.to_vec()?;
    let mut piv = vec![0; n];
    Ok(cpu::lu_inplace(&mut lu, n, n, &mut piv).unwrap_or(0))
}

/// Pivots of a GPU LU of a stack: `Xgetrf`'s (i64, 1-based) or `getrfBatched`'s (i32, 1-based).
enum GpuPiv {
    X(Array<i64>),
    Batched(Array<i32>, Array<i64>),
}

/// LU-factors in place the `count` column-major `m x n` matrices stored back to back in `f`,
/// returns the pivots and the per-matrix `info` (read back: synchronises).
fn gpu_getrf<T: Scalar>(
    d: &CudaDevice,
    f: &Array<T>,
    count: usize,
    m: usize,
    n: usize,
) -> Result<(GpuPiv, Vec<i32>)> {
    let dev = Device::Cuda(d.clone());
    let bound = Bound::get(d)?;
    let h = bound.lock(d)?;
    let es = std::mem::size_of::<T>() as u64;
    if m == n && n <= BATCHED_LU_MAX_N && count > 1 {
        let base = ptr(f);
        let ptrs: Vec<i64> = (0..count)
            .map(|i| (base + (i * n * n) as u64 * es) as i64)
            .collect();
        let ptrs = Array::from_vec(ptrs, &[count], &dev)?;
        let piv = Array::<i32>::zeros(&[count, n], &dev)?;
        let info = Array::<i32>::zeros(&[count], &dev)?;
        h.getrf_batched::<T>(n, ptr_i64(&ptrs), ptr_i32(&piv), ptr_i32(&info), count)?;
        drop(h);
        let infos = info.to_vec()?;
        return Ok((GpuPiv::Batched(piv, ptrs), infos));
    }
    let k = m.min(n);
    let piv = Array::<i64>::zeros(&[count, k.max(1)], &dev)?;
    let info = Array::<i32>::zeros(&[count], &dev)?;
    for i in 0..count {
        h.getrf::<T>(
            m,
            n,
            ptr(f) + (i * m * n) as u64 * es,
            m,
            ptr_i64(&piv) + (i * k.max(1) * 8) as u64,
            ptr_i32(&info) + (i * 4) as u64,
        )?;
    }
    drop(h);
    let infos = info.to_vec()?;
    Ok((GpuPiv::X(piv), infos))
}

pub(crate) fn ptr_i64(a: &Array<i64>) -> u64 {
    a.cuda_view().map(|v| v.ptr).unwrap_or(0)
}
pub(crate) fn ptr_i32(a: &Array<i32>) -> u64 {
    a.cuda_view().map(|v| v.ptr).unwrap_or(0)
}

/// Solves with the factors of `gpu_getrf` (square `n`): `bt` holds `count` column-major `n x k`
/// right-hand sides, overwritten by the solutions. `trans`/`conj` apply to the factored matrix.
#[allow(clippy::too_many_arguments)]
fn gpu_getrs<T: Scalar>(
    d: &CudaDevice,
    f: &Array<T>,
    piv: &GpuPiv,
    count: usize,
    n: usize,
    bt: &Array<T>,
    k: usize,
    trans: bool,
    conj: bool,
) -> Result<()> {
    let dev = Device::Cuda(d.clone());
    let bound = Bound::get(d)?;
    let h = bound.lock(d)?;
    let es = std::mem::size_of::<T>() as u64;
    match piv {
        GpuPiv::Batched(p, aptrs) => {
            if conj && T::DTYPE.is_complex() {
                return Err(make::not_implemented("lu_solve (trans=2, batched)", &dev));
            }
            let base = ptr(bt);
            let bptrs: Vec<i64> = (0..count)
                .map(|i| (base + (i * n * k) as u64 * es) as i64)
                .collect();
            let bptrs = Array::from_vec(bptrs, &[count], &dev)?;
            h.getrs_batched::<T>(
                trans,
                n,
                k,
                ptr_i64(aptrs),
                ptr_i32(p),
                ptr_i64(&bptrs),
                count,
            )?;
            drop(h);
            // the pointer array must outlive the launch: it is freed stream-ordered after it
            drop(bptrs);
        }
        GpuPiv::X(p) => {
            let info = Array::<i32>::zeros(&[count], &dev)?;
            for i in 0..count {
                h.getrs::<T>(
                    trans,
                    conj,
                    n,
                    k,
                    ptr(f) + (i * n * n) as u64 * es,
                    n,
                    ptr_i64(p) + (i * n.max(1) * 8) as u64,
                    ptr(bt) + (i * n * k) as u64 * es,
                    n,
                    ptr_i32(&info) + (i * 4) as u64,
                )?;
            }
        }
    }
    Ok(())
}

fn first_singular(op: &str, infos: &[i32], batched: bool) -> Result<()> {
    for (i, &v) in infos.iter().enumerate() {
        if v > 0 {
            return Err(singular(op, which(batched, i, v as usize - 1)));
        }
        if v < 0 {
            return Err(make::arg(op, format!("cuSOLVER rejected argument {}", -v)));
        }
    }
    Ok(())
}

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
    if let Device::Cpu = a.device() {
        crate::util::check_finite(op, a)?;
        crate::util::check_finite(op, b)?;
    }
    // on the GPU the finiteness check is part of solve_impl's passes and status read
    let x = solve_impl(op, a, Some(&b2), &batch, n, k)?;
    if vector {
        return x.index_axis(-1, 0);
    }
    Ok(x)
}

/// Shared by solve and inv: `a x = b` for `b` (`None`: the identity, `k = n`). On the GPU this
/// also checks `a` and `b` for NaN and infinity (SciPy's `check_finite`), in the same passes, and
/// reads every status back once, after all the work is queued.
fn solve_impl<T: Scalar>(
    op: &str,
    a: &Array<T>,
    b: Option<&Array<T>>,
    batch: &[usize],
    n: usize,
    k: usize,
) -> Result<Array<T>> {
    let count = prod(batch);
    let out_shape = cat(batch, &[n, k]);
    if count == 0 || n == 0 || k == 0 {
        if let Device::Cuda(_) = a.device() {
            // the GPU's check is otherwise part of the work below: same errors as the CPU
            crate::util::check_finite(op, a)?;
            if let Some(b) = b {
                crate::util::check_finite(op, b)?;
            }
        }
        return Array::zeros(&out_shape, a.device());
    }
    let batched = !batch.is_empty();
    match a.device() {
        Device::Cpu => {
            let av = a.broadcast_to(&cat(batch, &[n, n]))?.to_vec()?;
            let bv = match b {
                Some(b) => b.broadcast_to(&out_shape)?.to_vec()?,
                None => crate::util::eye::<T>(n, a.device())?
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
        Device::Cuda(d) => {
            if n <= BATCHED_LU_MAX_N {
                // one kernel: LU in registers, substitutions, finiteness, singularity
                let ac = a.broadcast_to(&cat(batch, &[n, n]))?.contiguous()?;
                let bc = match b {
                    Some(b) => Some(b.broadcast_to(&out_shape)?.contiguous()?),
                    None => None,
                };
                let (x, st) = kernels::small_solve(&ac, bc.as_ref(), count, n, k)?;
                if st.nonfinite {
                    return Err(crate::util::nonfinite(op));
                }
                if let Some((s, z)) = st.singular {
                    let z = if batched { z } else { cpu_pivot(a, n)? };
                    return Err(singular(op, which(batched, s, z)));
                }
                return x.reshape(&out_shape.iter().map(|&v| v as isize).collect::<Vec<_>>());
            }
            // status: [non-finite flag, getrf info per matrix, getrs info per matrix]
            let status = Array::<i32>::zeros(&[1 + 2 * count], a.device())?;
            let f = kernels::checked_copy(&a.broadcast_to(&cat(batch, &[n, n]))?, &status)?;
            let info = kernels::addr(&status) + 4;
            let info_s = info + 4 * count as u64;
            let piv = Array::<i64>::empty(&[count, n], a.device())?;
            // b: the column-major right-hand sides. For the identity (inv) no transposes at all:
            // the storage of A is Aᵀ column-major, and solving Aᵀ Y = I (trans N) gives
            // Y = A⁻ᵀ column-major, whose storage read row-major is A⁻¹.
            let (bt, trans) = match b {
                Some(b) => {
                    let bt = transposed_copy(&b.broadcast_to(&out_shape)?)?;
                    kernels::finite_copy(&bt, None, kernels::addr(&status))?;
                    (bt, true)
                }
                None => (kernels::eye_batch::<T>(n, count, a.device())?, false),
            };
            {
                let bound = Bound::get(d)?;
                let h = bound.lock(d)?;
                let es = std::mem::size_of::<T>() as u64;
                for i in 0..count {
                    let fi = ptr(&f) + (i * n * n) as u64 * es;
                    let pi = ptr_i64(&piv) + (i * n * 8) as u64;
                    h.getrf::<T>(n, n, fi, n, pi, info + 4 * i as u64)?;
                    h.getrs::<T>(
                        trans,
                        false,
                        n,
                        k,
                        fi,
                        n,
                        pi,
                        ptr(&bt) + (i * n * k) as u64 * es,
                        n,
                        info_s + 4 * i as u64,
                    )?;
                }
            }
            // the one synchronisation: flag and infos together
            let st = status.to_vec()?;
            if st[0] != 0 {
                return Err(crate::util::nonfinite(op));
            }
            match first_singular(op, &st[1..1 + count], batched) {
                Err(Error::Singular { .. }) if !batched => {
                    return Err(singular(op, cpu_pivot(a, n)?));
                }
                r => r?,
            }
            let shape: Vec<isize> = out_shape.iter().map(|&v| v as isize).collect();
            if trans {
                transposed_copy(&bt)?.reshape(&shape)
            } else {
                bt.reshape(&shape)
            }
        }
    }
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
    if let Device::Cpu = a.device() {
        crate::util::check_finite(op, a)?;
    }
    solve_impl(op, a, None, &batch, n, n)
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
    match a.device() {
        Device::Cpu => {
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
            Ok((batch, n, diag, odd))
        }
        Device::Cuda(d) => {
            // det(Aᵀ) = det(A): factor the storage as it is
            let f = a.copy()?;
            let (piv, _) = gpu_getrf(d, &f, count, n, n)?;
            let diag = match kernels::diagonal(&f, true, false)?.0 {
                Some(v) => v.to_vec()?,
                None => Vec::new(),
            };
            let pv: Vec<i64> = match &piv {
                GpuPiv::X(p) => p.to_vec()?,
                GpuPiv::Batched(p, _) => p.to_vec()?.into_iter().map(|v| v as i64).collect(),
            };
            let odd = (0..count)
                .map(|i| {
                    pv[i * n..(i + 1) * n]
                        .iter()
                        .enumerate()
                        .filter(|(j, p)| **p != *j as i64 + 1)
                        .count()
                        % 2
                        == 1
                })
                .collect();
            Ok((batch, n, diag, odd))
        }
    }
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

/// LU factorisation with partial pivoting, factored once to solve many right-hand sides.
///
/// `lu` and `piv` are SciPy's (`lu_factor`): `lu` holds `L` (unit diagonal, below) and `U`
/// (on and above the diagonal) of `a` row-major; `piv[i]` is the row interchanged with row `i`
/// (0-based). On the GPU the column-major factor that cuSOLVER solves with is kept as well, so
/// [`Lu::solve`] costs one `getrs` and two transposes of the right-hand side.
#[derive(Debug, Clone)]
pub struct Lu<T: Scalar> {
    /// SciPy's packed factor, shape of `a`.
    pub lu: Array<T>,
    /// SciPy's pivots (0-based), shape `(..., min(M, N))`.
    pub piv: Array<i64>,
    gpu: Option<(Array<T>, Array<i64>)>,
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
    match a.device() {
        Device::Cpu => {
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
        Device::Cuda(d) => {
            // column-major A is the transposed copy's storage
            let f = transposed_copy(a)?;
            let (piv, _) = gpu_getrf_x(d, &f, count, m, n)?;
            // SciPy's row-major factor is a view of the column-major one (as CuPy's F-ordered
            // result): no copy
            let lu = f.swapaxes(-1, -2)?;
            let piv0 = piv.sub_scalar(1)?;
            Ok(Lu {
                lu,
                piv: piv0.reshape(&piv_shape.iter().map(|&v| v as isize).collect::<Vec<_>>())?,
                gpu: if m == n { Some((f, piv)) } else { None },
            })
        }
    }
}

/// `Xgetrf` on every matrix (no batched path: SciPy's pivots are wanted as i64), without
/// reading `info` (no synchronisation).
fn gpu_getrf_x<T: Scalar>(
    d: &CudaDevice,
    f: &Array<T>,
    count: usize,
    m: usize,
    n: usize,
) -> Result<(Array<i64>, Array<i32>)> {
    let dev = Device::Cuda(d.clone());
    let bound = Bound::get(d)?;
    let h = bound.lock(d)?;
    let es = std::mem::size_of::<T>() as u64;
    let k = m.min(n);
    let piv = Array::<i64>::empty(&[count, k], &dev)?;
    let info = Array::<i32>::empty(&[count], &dev)?;
    for i in 0..count {
        h.getrf::<T>(
            m,
            n,
            ptr(f) + (i * m * n) as u64 * es,
            m,
            ptr_i64(&piv) + (i * k * 8) as u64,
            ptr_i32(&info) + (i * 4) as u64,
        )?;
    }
    Ok((piv, info))
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
            match b.device() {
                Device::Cpu => {
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
                Device::Cuda(d) => {
                    let (f, p1) = match &self.gpu {
                        Some((f, p)) => (f.clone(), p.clone()),
                        None => (transposed_copy(&self.lu)?, self.piv.add_scalar(1)?),
                    };
                    let ab = prod(&batch_a);
                    let (f, p1) = if ab == count {
                        (f, p1)
                    } else {
                        (
                            f.broadcast_to(&cat(&batch, &[n, n]))?.copy()?,
                            p1.reshape(
                                &cat(&batch_a, &[n])
                                    .iter()
                                    .map(|&v| v as isize)
                                    .collect::<Vec<_>>(),
                            )?
                            .broadcast_to(&cat(&batch, &[n]))?
                            .copy()?,
                        )
                    };
                    // U's diagonal: a zero is a singular factor (one kernel, 8 bytes read)
                    if let (_, Some((mat, z))) = kernels::diagonal(&f, false, true)? {
                        return Err(singular(op, which(batched, mat, z)));
                    }
                    let bt = transposed_copy(&b2.broadcast_to(&out_shape)?)?;
                    let piv = GpuPiv::X(p1);
                    match trans {
                        0 => gpu_getrs(d, &f, &piv, count, n, &bt, k, false, false)?,
                        1 => gpu_getrs(d, &f, &piv, count, n, &bt, k, true, false)?,
                        _ => gpu_getrs(d, &f, &piv, count, n, &bt, k, true, true)?,
                    }
                    bt.swapaxes(-1, -2)?.contiguous()?
                }
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
    if let Device::Cuda(_) = a.device() {
        // one tiled kernel: reads the (possibly transposed) view, writes zeros outside
        return kernels::tile_copy(a, if lower { 1 } else { 2 }, k, false);
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
