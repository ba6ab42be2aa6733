//! The GPU half of Cholesky, QR, SVD, the Hermitian eigensolver and the triangular solve:
//! cuSOLVER's 64-bit `Xpotrf`/`Xpotrs`, `Xgeqrf` (+ `orgqr`), `Xgesvd`, `Xsyevd`, the batched
//! routines for stacks of small matrices (see [`route`]), cuBLAS's `trsm`.

use super::kernels::{self, tile_copy, transposed_copy};
use super::{Addr, Bound, Op};
use crate::shared::{no_conv, not_pd, Qr, QrMode, Svd, SvdOptions, TriangularOptions};
use crate::solve::tri;
use crate::util::{cat, prod, which};
use crate::Scalar;
use cusci_core::error::make;
use cusci_core::{Array, CudaDevice, Error, Result};

/// Which GPU route a stack of `count` small matrices takes: one batched cuSOLVER call for the
/// whole stack, or one call per matrix. The batched routines (`potrfBatched`, `syevjBatched`,
/// `gesvdjBatched`) run the stack in one launch sequence; the per-matrix routines (`Xpotrf`,
/// `Xsyevd`, `Xgesvd`) cost a fixed launch and host overhead per matrix, which a batch of many
/// small matrices multiplies.
///
/// Measured on the H200 (cuSOLVER 12.0.4): the batched call beat the per-matrix loop at every
/// measured point (n 2..=32 for the Jacobi routines and 2..=256 for potrf; counts 16 to 65536),
/// by 1.6x (complex eigh n = 8, 16 matrices) up to thousands of times. A single per-matrix call
/// costs 17-19 us for potrf and 35-240 us for syevd/gesvd, while one batched call of 16 costs
/// 16-85 us, so the crossover is at a count of about 4 for potrf and 2 for the Jacobi routines.
pub(crate) mod route {
    /// The smallest stack that goes to `syevjBatched` or `gesvdjBatched`.
    pub(crate) const JACOBI_BATCHED_MIN_COUNT: usize = 2;
    /// The smallest stack that goes to `potrfBatched` (one `Xpotrf` is only ~17 us).
    pub(crate) const POTRF_BATCHED_MIN_COUNT: usize = 4;
    /// `potrfBatched` up to this order: the largest measured, still 5.5x the loop for 16
    /// matrices and 64x for 4096.
    pub(crate) const POTRF_BATCHED_MAX_N: usize = 256;
    /// `syevjBatched` and `gesvdjBatched` accept orders (rows and columns) up to 32 only.
    pub(crate) const JACOBI_BATCHED_MAX_N: usize = 32;

    /// `potrfBatched` for `count` matrices of order `n`.
    pub(crate) fn potrf_batched(n: usize, count: usize) -> bool {
        count >= POTRF_BATCHED_MIN_COUNT && n <= POTRF_BATCHED_MAX_N
    }

    /// `syevjBatched` for `count` Hermitian matrices of order `n`.
    pub(crate) fn syevj_batched(n: usize, count: usize) -> bool {
        count >= JACOBI_BATCHED_MIN_COUNT && n <= JACOBI_BATCHED_MAX_N
    }

    /// `gesvdjBatched` for `count` matrices `m x n`.
    pub(crate) fn gesvdj_batched(m: usize, n: usize, count: usize) -> bool {
        count >= JACOBI_BATCHED_MIN_COUNT && m <= JACOBI_BATCHED_MAX_N && n <= JACOBI_BATCHED_MAX_N
    }
}

fn shp(v: &[usize]) -> Vec<isize> {
    v.iter().map(|&x| x as isize).collect()
}

/// `info` of a Jacobi or per-matrix eigen/SVD routine: positive is `NoConvergence`, negative an
/// argument cuSOLVER rejected.
fn check_conv_infos(op: &str, infos: &[i32]) -> Result<()> {
    for &v in infos {
        if v > 0 {
            return Err(no_conv(op, v));
        }
        if v < 0 {
            return Err(make::arg(op, format!("cuSOLVER rejected argument {}", -v)));
        }
    }
    Ok(())
}

fn check_infos(op: &str, info: &Array<i32>) -> Result<()> {
    for &v in &info.to_vec()? {
        if v < 0 {
            return Err(make::arg(op, format!("cuSOLVER rejected argument {}", -v)));
        }
    }
    Ok(())
}

/// The Cholesky factor of the `(batch..., n, n)` matrices of `a` (none empty), from their
/// `lower` or upper triangle, with SciPy's `check_finite` fused into the copy that `potrf`
/// overwrites; the statuses are read back once at the end (synchronises).
pub(crate) fn cholesky<T: Scalar>(
    d: &CudaDevice,
    a: &Array<T>,
    lower: bool,
    batch: &[usize],
    n: usize,
) -> Result<Array<T>> {
    let op = "cholesky";
    let count = prod(batch);
    let batched = !batch.is_empty();
    // status: [non-finite flag, potrf info per matrix], read back once at the end
    let mut status = Array::<i32>::zeros(&[count + 1], a.device())?;
    let mut f = kernels::checked_copy(d, a, &mut status)?;
    // LAPACK's potrf reads only the real part of the diagonal (as the CPU side): drop it here
    kernels::diag_real(d, &mut f)?;
    {
        let bound = Bound::get(d)?;
        let h = bound.lock(d)?;
        let (fp, sp) = (f.dev_ptr_mut()?, status.dev_ptr_mut()?);
        // row-major lower = column-major upper of the storage (no transpose)
        if route::potrf_batched(n, count) {
            // the batched routine takes a device array of the matrices' addresses
            let ptrs = (0..count)
                .map(|i| Ok(fp.at(i * n * n)? as i64))
                .collect::<Result<Vec<i64>>>()?;
            let ptrs = Array::from_vec(ptrs, &[count], a.device())?;
            h.potrf_batched::<T>(lower, n, ptrs.dev_ptr()?.addr(), sp.at(1)?, count)?;
            drop(ptrs);
        } else {
            for i in 0..count {
                h.potrf::<T>(lower, n, fp.at(i * n * n)?, sp.at(1 + i)?)?;
            }
        }
    }
    // the other triangle still holds a's: zeros written in place (no read)
    kernels::tri_zero(d, &mut f, lower, 0)?;
    let st = status.to_vec()?;
    if st[0] != 0 && crate::shared::finite_checks_on() {
        return Err(crate::shared::nonfinite(op));
    }
    for (i, &v) in st[1..].iter().enumerate() {
        if v > 0 {
            return Err(not_pd(op, which(batched, i, v as usize)));
        }
    }
    Ok(f)
}

/// `cho_solve` on the GPU with the lower factor `l` (`a = L Lᴴ`): `a x = b` for the `(..., N, K)`
/// right-hand sides `b` broadcast to `batch` (none empty).
pub(crate) fn cho_solve<T: Scalar>(
    d: &CudaDevice,
    l: &Array<T>,
    b: &Array<T>,
    batch: &[usize],
) -> Result<Array<T>> {
    let n = l.shape()[l.ndim() - 1];
    let k = b.shape()[b.ndim() - 1];
    let count = prod(batch);
    let out_shape = cat(batch, &[n, k]);
    let f = l.broadcast_to(&cat(batch, &[n, n]))?.contiguous()?;
    // the storage of L is column-major Lᵀ = U' with U'ᴴ U' = conj(a):
    // solve conj(a) conj(x) = conj(b)
    let cplx = T::DTYPE.is_complex();
    let mut bt = transposed_copy(d, &b.broadcast_to(&out_shape)?)?;
    if cplx {
        bt = bt.conj()?;
    }
    let mut info = Array::<i32>::zeros(&[count], b.device())?;
    {
        let bound = Bound::get(d)?;
        let h = bound.lock(d)?;
        let fp = f.dev_ptr()?;
        let (bp, ip) = (bt.dev_ptr_mut()?, info.dev_ptr_mut()?);
        for i in 0..count {
            h.potrs::<T>(true, n, k, fp.at(i * n * n)?, bp.at(i * n * k)?, ip.at(i)?)?;
        }
    }
    if cplx {
        bt = bt.conj()?;
    }
    bt.swapaxes(-1, -2)?.contiguous()
}

/// `qr` on the GPU: cuSOLVER's `Xgeqrf` on the column-major copy of `a`, then `orgqr`/`ungqr` in
/// place; synchronises (to read `info`).
pub(crate) fn qr<T: Scalar>(
    d: &CudaDevice,
    a: &Array<T>,
    mode: QrMode,
    batch: &[usize],
    m: usize,
    n: usize,
) -> Result<Qr<T>> {
    let op = "qr";
    let dev = a.device().clone();
    let k = m.min(n);
    let count = prod(batch);
    if count == 0 || m == 0 || n == 0 {
        let (qc, rr) = match mode {
            QrMode::Complete => (m, m),
            _ => (k, k),
        };
        let q = Array::<T>::eye(m, Some(qc), 0, &dev)?
            .broadcast_to(&cat(batch, &[m, qc]))?
            .copy()?;
        return Ok(Qr {
            q: if mode == QrMode::R { None } else { Some(q) },
            r: Array::zeros(&cat(batch, &[rr, n]), &dev)?,
        });
    }
    // complete Q of a tall matrix: A is placed in an m x m buffer [A 0]
    let pad = mode == QrMode::Complete && m > n;
    let cols = if pad { m } else { n };
    // column-major A (or [A 0]) is the row-major storage of its transpose
    let mut f = if pad {
        crate::matmul(&Array::<T>::eye(m, Some(n), 0, &dev)?, &a.swapaxes(-1, -2)?)?
    } else {
        transposed_copy(d, a)?
    };
    // the reflectors of A's own n columns only (k of them); orgqr then builds all m columns of
    // Q from those k reflectors in the m x m buffer (LAPACK's dorgqr with N = m > K = n), so no
    // reflector is computed from the zero padding
    let kk = k;
    let mut tau = Array::<T>::zeros(&[count, kk.max(1)], &dev)?;
    let mut info = Array::<i32>::zeros(&[count], &dev)?;
    let bound = Bound::get(d)?;
    {
        let h = bound.lock(d)?;
        let (fp, tp, ip) = (f.dev_ptr_mut()?, tau.dev_ptr_mut()?, info.dev_ptr_mut()?);
        for i in 0..count {
            h.geqrf::<T>(m, n, fp.at(i * m * cols)?, tp.at(i * kk)?, ip.at(i)?)?;
        }
    }
    // R: the upper triangle of the first rr rows (of the first n columns)
    let rr = if mode == QrMode::Complete { m } else { k };
    let r = {
        // (views of f, dropped before orgqr writes f: f's storage stays its own)
        let fv = f.reshape(&shp(&cat(batch, &[cols, m])))?.swapaxes(-1, -2)?; // (.., m, cols)
        let rv = fv
            .slice_axis(-2, Some(0), Some(rr as isize), 1)?
            .slice_axis(-1, Some(0), Some(n as isize), 1)?;
        tri(&rv, 0, false)?
    };
    if mode == QrMode::R {
        check_infos(op, &info)?;
        return Ok(Qr { q: None, r });
    }
    let qc = if mode == QrMode::Complete { m } else { k };
    {
        let h = bound.lock(d)?;
        let tp = tau.dev_ptr()?;
        let (fp, ip) = (f.dev_ptr_mut()?, info.dev_ptr_mut()?);
        for i in 0..count {
            h.orgqr::<T>(m, qc, kk, fp.at(i * m * cols)?, tp.at(i * kk)?, ip.at(i)?)?;
        }
    }
    check_infos(op, &info)?;
    let q = tile_copy(
        d,
        &f.reshape(&shp(&cat(batch, &[cols, m])))?
            .slice_axis(-2, Some(0), Some(qc as isize), 1)?
            .swapaxes(-1, -2)?,
        0,
        0,
        false,
    )?;
    Ok(Qr { q: Some(q), r })
}

/// `svd` on the GPU of the `(batch..., m, n)` matrices of `a` (none empty): `gesvdjBatched` for
/// stacks of small matrices (see [`route`]), else `Xgesvd` per matrix. Synchronises (to read
/// `info`).
pub(crate) fn svd<T: Scalar>(
    d: &CudaDevice,
    a: &Array<T>,
    opts: SvdOptions,
    batch: &[usize],
    m: usize,
    n: usize,
) -> Result<Svd<T>> {
    let op = "svd";
    let count = prod(batch);
    if route::gesvdj_batched(m, n, count) {
        return svd_gesvdj_batched(d, a, opts, batch, m, n);
    }
    let k = m.min(n);
    let (uc, vr) = if opts.full_matrices { (m, n) } else { (k, k) };
    let dev = a.device().clone();
    let job = if !opts.compute_uv {
        b'N'
    } else if opts.full_matrices {
        b'A'
    } else {
        b'S'
    };
    let wide = n >= m;
    // column-major matrix handed to gesvd: rows cm >= cols cn
    let (mut f, cm, cn) = if wide {
        (a.copy()?, n, m)
    } else {
        (transposed_copy(d, a)?, m, n)
    };
    let ucols = if opts.full_matrices { cm } else { cn };
    let mut s = Array::<T::R>::zeros(&[count, cn], &dev)?;
    let mut uu = Array::<T>::zeros(&[count, ucols.max(1), cm], &dev)?; // column-major cm x ucols
    let mut vt = Array::<T>::zeros(&[count, cn, cn], &dev)?; // column-major cn x cn
    let mut info = Array::<i32>::zeros(&[count], &dev)?;
    {
        let bound = Bound::get(d)?;
        let h = bound.lock(d)?;
        let (fp, sp, ip) = (f.dev_ptr_mut()?, s.dev_ptr_mut()?, info.dev_ptr_mut()?);
        let (up, vp) = (uu.dev_ptr_mut()?, vt.dev_ptr_mut()?);
        for i in 0..count {
            h.gesvd::<T>(
                job,
                cm,
                cn,
                fp.at(i * m * n)?,
                sp.at(i * cn)?,
                up.at(i * ucols.max(1) * cm)?,
                vp.at(i * cn * cn)?,
                ip.at(i)?,
            )?;
        }
    }
    for &v in &info.to_vec()? {
        if v > 0 {
            return Err(no_conv(op, v));
        }
    }
    let s = s.reshape(&shp(&cat(batch, &[k])))?;
    if !opts.compute_uv {
        return Ok(Svd {
            u: None,
            s,
            vh: None,
        });
    }
    let (u_shape, vh_shape) = (cat(batch, &[m, uc]), cat(batch, &[vr, n]));
    let (u, vh) = if wide {
        // Aᵀ = U' S V'ᴴ: U = conj(V') is vt's storage read row-major; Vᴴ = U'ᵀ is uu's
        (vt.reshape(&shp(&u_shape))?, uu.reshape(&shp(&vh_shape))?)
    } else {
        // A = U S Vᴴ in column-major: transpose both back to row-major
        (
            transposed_copy(d, &uu)?.reshape(&shp(&u_shape))?,
            transposed_copy(d, &vt)?.reshape(&shp(&vh_shape))?,
        )
    };
    Ok(Svd {
        u: Some(u),
        s,
        vh: Some(vh),
    })
}

/// `svd` of a stack of small matrices (`m, n <= 32`, see [`route`]) by one `gesvdjBatched`
/// call. The storage of the row-major `A` is the column-major `X = Aᵀ` (`n x m`); with
/// `X = U' Σ V'ᴴ` (the routine returns `V'`, not `V'ᴴ`, and always the full square factors),
/// `A = conj(V') Σ U'ᵀ`: `vh = U'ᵀ` is `U'`'s storage read row-major (no copy for full
/// matrices; the first `K` rows otherwise) and `u = conj(V')` one tiled conjugating transpose of
/// `V'`'s storage (its first `K` columns for reduced matrices).
fn svd_gesvdj_batched<T: Scalar>(
    d: &CudaDevice,
    a: &Array<T>,
    opts: SvdOptions,
    batch: &[usize],
    m: usize,
    n: usize,
) -> Result<Svd<T>> {
    let op = "svd";
    let dev = a.device().clone();
    let k = m.min(n);
    let count = prod(batch);
    // the routine destroys its input: a contiguous copy (= column-major Aᵀ)
    let mut f = a.copy()?;
    let mut s = Array::<T::R>::zeros(&[count, k], &dev)?;
    // U' (n x n) and V' (m x m) per matrix, column-major; allocated without vectors too
    let mut up = Array::<T>::empty(&[count, n, n], &dev)?;
    let mut vp = Array::<T>::empty(&[count, m, m], &dev)?;
    let mut info = Array::<i32>::zeros(&[count], &dev)?;
    {
        let bound = Bound::get(d)?;
        let h = bound.lock(d)?;
        h.gesvdj_batched::<T>(
            opts.compute_uv,
            n,
            m,
            f.dev_ptr_mut()?.addr(),
            s.dev_ptr_mut()?.addr(),
            up.dev_ptr_mut()?.addr(),
            vp.dev_ptr_mut()?.addr(),
            info.dev_ptr_mut()?.addr(),
            count,
        )?;
    }
    check_conv_infos(op, &info.to_vec()?)?;
    let s = s.reshape(&shp(&cat(batch, &[k])))?;
    if !opts.compute_uv {
        return Ok(Svd {
            u: None,
            s,
            vh: None,
        });
    }
    let (uc, vr) = if opts.full_matrices { (m, n) } else { (k, k) };
    let vh = up.reshape(&shp(&cat(batch, &[n, n])))?;
    let vh = if vr == n {
        vh
    } else {
        tile_copy(
            d,
            &vh.slice_axis(-2, Some(0), Some(vr as isize), 1)?,
            0,
            0,
            false,
        )?
    };
    let vt = vp.reshape(&shp(&cat(batch, &[m, m])))?.swapaxes(-1, -2)?;
    let vt = if uc == m {
        vt
    } else {
        vt.slice_axis(-1, Some(0), Some(uc as isize), 1)?
    };
    let u = tile_copy(d, &vt, 0, 0, T::DTYPE.is_complex())?;
    Ok(Svd {
        u: Some(u),
        s,
        vh: Some(vh),
    })
}

/// `eigh`/`eigvalsh` on the GPU of the `(batch..., n, n)` matrices of `a` (none empty), from
/// their `lower` or upper triangle: `syevjBatched` for stacks of small matrices (see [`route`]),
/// else `Xsyevd` per matrix. Synchronises (to read `info`).
#[allow(clippy::type_complexity)]
pub(crate) fn eigh<T: Scalar>(
    d: &CudaDevice,
    a: &Array<T>,
    lower: bool,
    vectors: bool,
    batch: &[usize],
    n: usize,
) -> Result<(Array<T::R>, Option<Array<T>>)> {
    let op = if vectors { "eigh" } else { "eigvalsh" };
    let count = prod(batch);
    let dev = a.device().clone();
    let mut f = a.copy()?;
    // LAPACK reads only the real part of the diagonal (syevj need not: drop it here)
    kernels::diag_real(d, &mut f)?;
    let mut w = Array::<T::R>::zeros(&[count, n], &dev)?;
    let mut info = Array::<i32>::zeros(&[count], &dev)?;
    {
        let bound = Bound::get(d)?;
        let h = bound.lock(d)?;
        let (fp, wp, ip) = (f.dev_ptr_mut()?, w.dev_ptr_mut()?, info.dev_ptr_mut()?);
        // storage = conj(A) column-major; row-major lower = column-major upper; both routes
        // write ascending eigenvalues and the eigenvectors over the storage
        if route::syevj_batched(n, count) {
            h.syevj_batched::<T>(vectors, lower, n, fp.at(0)?, wp.at(0)?, ip.at(0)?, count)?;
        } else {
            for i in 0..count {
                h.syevd::<T>(
                    vectors,
                    lower,
                    n,
                    fp.at(i * n * n)?,
                    wp.at(i * n)?,
                    ip.at(i)?,
                )?;
            }
        }
    }
    check_conv_infos(op, &info.to_vec()?)?;
    let w = w.reshape(&shp(&cat(batch, &[n])))?;
    if !vectors {
        return Ok((w, None));
    }
    // the storage read row-major is Vᴴ
    // real: V is a view of the column-major result (as CuPy's F-ordered one), no copy;
    // complex: V = conj of the storage read row-major, one tiled pass
    let v = if T::DTYPE.is_complex() {
        tile_copy(d, &f.swapaxes(-1, -2)?, 0, 0, true)?
    } else {
        f.swapaxes(-1, -2)?
    };
    Ok((w, Some(v)))
}

/// `solve_triangular` on the GPU: `ab` is `a` broadcast to `(batch..., N, N)`, `b` the
/// `(..., N, K)` right-hand sides (none empty). A zero on the diagonal (unless
/// `opts.unit_diagonal`) is `Singular` (one kernel; synchronises); then cuBLAS `trsm` on the
/// storage of `a` (its column-major transpose: the other triangle with the transposed
/// operation, no copy of `a`).
pub(crate) fn solve_triangular<T: Scalar>(
    d: &CudaDevice,
    ab: &Array<T>,
    b: &Array<T>,
    batch: &[usize],
    opts: TriangularOptions,
) -> Result<Array<T>> {
    let op = "solve_triangular";
    let n = ab.shape()[ab.ndim() - 1];
    let k = b.shape()[b.ndim() - 1];
    let count = prod(batch);
    let out_shape = cat(batch, &[n, k]);
    if !opts.unit_diagonal {
        if let Some((mat, z)) = kernels::diagonal(d, ab, false, true)?.1 {
            return Err(Error::Singular {
                op: op.into(),
                index: which(!batch.is_empty(), mat, z),
            });
        }
    }
    let f = ab.contiguous()?;
    let mut bt = transposed_copy(d, &b.broadcast_to(&out_shape)?)?;
    // storage = column-major aᵀ: lower <-> upper, and op(a) = op'(aᵀ); aᴴ x = b is
    // conj(aᵀ) x = b, solved as aᵀ conj(x) = conj(b)
    let conj = opts.trans == 2;
    let o = if opts.trans == 0 { Op::T } else { Op::N };
    if conj {
        bt = bt.conj()?;
    }
    {
        let bound = Bound::get(d)?;
        let h = bound.lock(d)?;
        let (fp, bp) = (f.dev_ptr()?, bt.dev_ptr_mut()?);
        for i in 0..count {
            h.trsm::<T>(
                opts.lower,
                o,
                opts.unit_diagonal,
                n,
                k,
                fp.at(i * n * n)?,
                bp.at(i * n * k)?,
            )?;
        }
    }
    if conj {
        bt = bt.conj()?;
    }
    bt.swapaxes(-1, -2)?.contiguous()
}

/// `qr_raw` on the GPU: cuSOLVER's `Xgeqrf` on the column-major copy of `a` (none empty);
/// returns `(h, tau)` (`h` row-major `(..., M, N)`, `tau` `(count, K)`). Synchronises (to read
/// `info`).
pub(crate) fn qr_raw<T: Scalar>(
    d: &CudaDevice,
    a: &Array<T>,
    count: usize,
    m: usize,
    n: usize,
) -> Result<(Array<T>, Array<T>)> {
    let k = m.min(n);
    let dev = a.device().clone();
    let mut f = transposed_copy(d, a)?; // column-major A
    let mut tau = Array::<T>::zeros(&[count, k], &dev)?;
    let mut info = Array::<i32>::zeros(&[count], &dev)?;
    {
        let bound = Bound::get(d)?;
        let h = bound.lock(d)?;
        let (fp, tp, ip) = (f.dev_ptr_mut()?, tau.dev_ptr_mut()?, info.dev_ptr_mut()?);
        for i in 0..count {
            h.geqrf::<T>(m, n, fp.at(i * m * n)?, tp.at(i * k)?, ip.at(i)?)?;
        }
    }
    check_infos("qr", &info)?;
    let h = transposed_copy(d, &f)?;
    Ok((h, tau))
}
