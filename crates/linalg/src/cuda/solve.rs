//! The GPU half of the LU family (`solve`, `inv`, `det`/`slogdet`, `lu_factor`, `lu_solve`):
//! the batched small-system kernel up to order [`BATCHED_LU_MAX_N`], cuSOLVER's `Xgetrf`/`Xgetrs`
//! above it, cuBLAS's batched LU for the determinants of stacks of small matrices.

use super::kernels::{self, transposed_copy};
use super::{Addr, Bound, Op};
use crate::cpu::cpu_pivot;
use crate::shared::{singular, Lu, BATCHED_LU_MAX_N};
use crate::util::{cat, prod, which};
use crate::Scalar;
use cusci_core::error::make;
use cusci_core::{Array, CudaDevice, Device, Error, Result};

/// Pivots of a GPU LU of a stack: `Xgetrf`'s (i64, 1-based) or `getrfBatched`'s (i32, 1-based,
/// with the device array of the matrices' addresses the batched solve needs again).
pub(crate) enum GpuPiv {
    X(Array<i64>),
    Batched(Array<i32>, Array<i64>),
}

/// LU-factors in place the `count` column-major `m x n` matrices stored back to back in `f`,
/// returns the pivots and the per-matrix `info` (read back: synchronises).
fn getrf<T: Scalar>(
    d: &CudaDevice,
    f: &mut Array<T>,
    count: usize,
    m: usize,
    n: usize,
) -> Result<(GpuPiv, Vec<i32>)> {
    let dev = Device::Cuda(d.clone());
    let bound = Bound::get(d)?;
    let h = bound.lock(d)?;
    if m == n && n <= BATCHED_LU_MAX_N && count > 1 {
        // the batched routine takes a device array of the matrices' addresses
        let fp = f.dev_ptr_mut()?;
        let ptrs = (0..count)
            .map(|i| Ok(fp.at(i * n * n)? as i64))
            .collect::<Result<Vec<i64>>>()?;
        let ptrs = Array::from_vec(ptrs, &[count], &dev)?;
        let mut piv = Array::<i32>::zeros(&[count, n], &dev)?;
        let mut info = Array::<i32>::zeros(&[count], &dev)?;
        h.getrf_batched::<T>(
            n,
            ptrs.dev_ptr()?.addr(),
            piv.dev_ptr_mut()?.addr(),
            info.dev_ptr_mut()?.addr(),
            count,
        )?;
        drop(h);
        let infos = info.to_vec()?;
        return Ok((GpuPiv::Batched(piv, ptrs), infos));
    }
    let k = m.min(n);
    let mut piv = Array::<i64>::zeros(&[count, k.max(1)], &dev)?;
    let mut info = Array::<i32>::zeros(&[count], &dev)?;
    {
        let (fp, pp, ip) = (f.dev_ptr_mut()?, piv.dev_ptr_mut()?, info.dev_ptr_mut()?);
        for i in 0..count {
            h.getrf::<T>(m, n, fp.at(i * m * n)?, m, pp.at(i * k.max(1))?, ip.at(i)?)?;
        }
    }
    drop(h);
    let infos = info.to_vec()?;
    Ok((GpuPiv::X(piv), infos))
}

/// Solves with the factors `f` of [`getrf`] (square `n`): `bt` holds the `count` column-major
/// `n x k` right-hand sides (shape `[.., k, n]`), overwritten by the solutions. `op` applies to
/// the factored matrices.
fn getrs<T: Scalar>(
    d: &CudaDevice,
    f: &Array<T>,
    piv: &GpuPiv,
    bt: &mut Array<T>,
    op: Op,
) -> Result<()> {
    let nd = bt.ndim();
    let (k, n) = (bt.shape()[nd - 2], bt.shape()[nd - 1]);
    let count = bt.size() / (n * k).max(1);
    let dev = Device::Cuda(d.clone());
    let bound = Bound::get(d)?;
    let h = bound.lock(d)?;
    match piv {
        GpuPiv::Batched(p, aptrs) => {
            if op == Op::C && T::DTYPE.is_complex() {
                return Err(make::not_implemented("lu_solve (trans=2, batched)", &dev));
            }
            let bp = bt.dev_ptr_mut()?;
            let bptrs = (0..count)
                .map(|i| Ok(bp.at(i * n * k)? as i64))
                .collect::<Result<Vec<i64>>>()?;
            let bptrs = Array::from_vec(bptrs, &[count], &dev)?;
            h.getrs_batched::<T>(
                if op == Op::N { Op::N } else { Op::T },
                n,
                k,
                aptrs.dev_ptr()?.addr(),
                p.dev_ptr()?.addr(),
                bptrs.dev_ptr()?.addr(),
                count,
            )?;
            drop(h);
            // the pointer array must outlive the launch: it is freed stream-ordered after it
            drop(bptrs);
        }
        GpuPiv::X(p) => {
            let mut info = Array::<i32>::zeros(&[count], &dev)?;
            let (fp, pp) = (f.dev_ptr()?, p.dev_ptr()?);
            let (bp, ip) = (bt.dev_ptr_mut()?, info.dev_ptr_mut()?);
            for i in 0..count {
                h.getrs::<T>(
                    op,
                    n,
                    k,
                    fp.at(i * n * n)?,
                    pp.at(i * n.max(1))?,
                    bp.at(i * n * k)?,
                    ip.at(i)?,
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

/// `solve` and `inv` on the GPU: `a x = b` for `b` (`None`: the identity, `k = n`), `a` and `b`
/// broadcast to `batch`. Also checks `a` and `b` for NaN and infinity (SciPy's `check_finite`),
/// in the same passes, and reads every status back once, after all the work is queued.
pub(crate) fn solve<T: Scalar>(
    d: &CudaDevice,
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
        // the check is otherwise part of the work below: the same errors as the CPU
        kernels::check_finite(d, op, a)?;
        if let Some(b) = b {
            kernels::check_finite(d, op, b)?;
        }
        return Array::zeros(&out_shape, a.device());
    }
    let batched = !batch.is_empty();
    let shape: Vec<isize> = out_shape.iter().map(|&v| v as isize).collect();
    if n <= BATCHED_LU_MAX_N {
        // one kernel: LU in registers, substitutions, finiteness, singularity
        let ac = a.broadcast_to(&cat(batch, &[n, n]))?.contiguous()?;
        let bc = match b {
            Some(b) => Some(b.broadcast_to(&out_shape)?.contiguous()?),
            None => None,
        };
        let (x, st) = kernels::small_solve(d, &ac, bc.as_ref(), count, n, k)?;
        if st.nonfinite && crate::shared::finite_checks_on() {
            return Err(crate::shared::nonfinite(op));
        }
        if let Some((s, z)) = st.singular {
            let z = if batched { z } else { cpu_pivot(a, n)? };
            return Err(singular(op, which(batched, s, z)));
        }
        return x.reshape(&shape);
    }
    // status: [non-finite flag, getrf info per matrix, getrs info per matrix]
    let mut status = Array::<i32>::zeros(&[1 + 2 * count], a.device())?;
    let mut f = kernels::checked_copy(d, &a.broadcast_to(&cat(batch, &[n, n]))?, &mut status)?;
    let mut piv = Array::<i64>::empty(&[count, n], a.device())?;
    // b: the column-major right-hand sides. For the identity (inv) no transposes at all: the
    // storage of A is Aᵀ column-major, and solving Aᵀ Y = I (trans N) gives Y = A⁻ᵀ
    // column-major, whose storage read row-major is A⁻¹.
    let (mut bt, trans) = match b {
        Some(b) => {
            let bt = transposed_copy(d, &b.broadcast_to(&out_shape)?)?;
            kernels::finite_copy(d, &bt, None, &mut status)?;
            (bt, Op::T)
        }
        None => (kernels::eye_batch::<T>(d, n, count)?, Op::N),
    };
    {
        let bound = Bound::get(d)?;
        let h = bound.lock(d)?;
        let (fp, pp) = (f.dev_ptr_mut()?, piv.dev_ptr_mut()?);
        let (bp, sp) = (bt.dev_ptr_mut()?, status.dev_ptr_mut()?);
        for i in 0..count {
            let (fi, pi) = (fp.at(i * n * n)?, pp.at(i * n)?);
            h.getrf::<T>(n, n, fi, n, pi, sp.at(1 + i)?)?;
            h.getrs::<T>(
                trans,
                n,
                k,
                fi,
                pi,
                bp.at(i * n * k)?,
                sp.at(1 + count + i)?,
            )?;
        }
    }
    // the one synchronisation: flag and infos together
    let st = status.to_vec()?;
    if st[0] != 0 && crate::shared::finite_checks_on() {
        return Err(crate::shared::nonfinite(op));
    }
    match first_singular(op, &st[1..1 + count], batched) {
        Err(Error::Singular { .. }) if !batched => {
            return Err(singular(op, cpu_pivot(a, n)?));
        }
        r => r?,
    }
    if trans == Op::T {
        transposed_copy(d, &bt)?.reshape(&shape)
    } else {
        bt.reshape(&shape)
    }
}

/// The LU diagonals of the `count` matrices `n x n` of `a` (flat) and whether each one's row
/// interchanges are odd: the GPU half of `det` and `slogdet` (reads back: synchronises).
pub(crate) fn lu_diagonals<T: Scalar>(
    d: &CudaDevice,
    a: &Array<T>,
    count: usize,
    n: usize,
) -> Result<(Vec<T>, Vec<bool>)> {
    // det(Aᵀ) = det(A): factor the storage as it is
    let mut f = a.copy()?;
    let (piv, _) = getrf(d, &mut f, count, n, n)?;
    let diag = match kernels::diagonal(d, &f, true, false)?.0 {
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
    Ok((diag, odd))
}

/// `lu_factor` on the GPU of the `count` matrices `m x n` of `a` (none empty): `Xgetrf` on every
/// matrix (no batched path: SciPy's pivots are wanted as i64), without reading `info` (no
/// synchronisation). SciPy's pivots have `piv_shape`.
pub(crate) fn lu_factor<T: Scalar>(
    d: &CudaDevice,
    a: &Array<T>,
    count: usize,
    piv_shape: &[usize],
) -> Result<Lu<T>> {
    let nd = a.ndim();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    // column-major A is the transposed copy's storage
    let mut f = transposed_copy(d, a)?;
    let dev = Device::Cuda(d.clone());
    let k = m.min(n);
    let mut piv = Array::<i64>::empty(&[count, k], &dev)?;
    let mut info = Array::<i32>::empty(&[count], &dev)?;
    {
        let bound = Bound::get(d)?;
        let h = bound.lock(d)?;
        let (fp, pp, ip) = (f.dev_ptr_mut()?, piv.dev_ptr_mut()?, info.dev_ptr_mut()?);
        for i in 0..count {
            h.getrf::<T>(m, n, fp.at(i * m * n)?, m, pp.at(i * k)?, ip.at(i)?)?;
        }
    }
    // SciPy's row-major factor is a view of the column-major one (as CuPy's F-ordered result):
    // no copy
    let lu = f.swapaxes(-1, -2)?;
    let piv0 = piv.sub_scalar(1)?;
    Ok(Lu {
        lu,
        piv: piv0.reshape(&piv_shape.iter().map(|&v| v as isize).collect::<Vec<_>>())?,
        gpu: if m == n { Some((f, piv)) } else { None },
    })
}

/// `Lu::solve` on the GPU: `op(a) x = b` for the `(..., N, K)` right-hand sides `b` broadcast
/// against the factor's batch to `batch` (none empty); `trans` is SciPy's (0, 1 or 2).
/// Synchronises (to check `U`'s diagonal).
pub(crate) fn lu_solve<T: Scalar>(
    d: &CudaDevice,
    lu: &Lu<T>,
    b: &Array<T>,
    batch: &[usize],
    trans: u8,
) -> Result<Array<T>> {
    let op = "lu_solve";
    let nd = lu.lu.ndim();
    let n = lu.lu.shape()[nd - 1];
    let batch_a = &lu.lu.shape()[..nd - 2];
    let k = b.shape()[b.ndim() - 1];
    let count = prod(batch);
    let out_shape = cat(batch, &[n, k]);
    let batched = !batch.is_empty();
    let (f, p1) = match &lu.gpu {
        Some((f, p)) => (f.clone(), p.clone()),
        None => (transposed_copy(d, &lu.lu)?, lu.piv.add_scalar(1)?),
    };
    let (f, p1) = if prod(batch_a) == count {
        (f, p1)
    } else {
        (
            f.broadcast_to(&cat(batch, &[n, n]))?.copy()?,
            p1.reshape(
                &cat(batch_a, &[n])
                    .iter()
                    .map(|&v| v as isize)
                    .collect::<Vec<_>>(),
            )?
            .broadcast_to(&cat(batch, &[n]))?
            .copy()?,
        )
    };
    // U's diagonal: a zero is a singular factor (one kernel, 8 bytes read)
    if let (_, Some((mat, z))) = kernels::diagonal(d, &f, false, true)? {
        return Err(singular(op, which(batched, mat, z)));
    }
    let mut bt = transposed_copy(d, &b.broadcast_to(&out_shape)?)?;
    let piv = GpuPiv::X(p1);
    let o = match trans {
        0 => Op::N,
        1 => Op::T,
        _ => Op::C,
    };
    getrs(d, &f, &piv, &mut bt, o)?;
    bt.swapaxes(-1, -2)?.contiguous()
}
