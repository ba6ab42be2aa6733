//! The GPU side of the direct solvers (`direct.rs`, `ilu.rs`): the sync-free triangular solve,
//! the row gather of the permutations, and the numeric sparse LU (`lu_factor`, one persistent
//! kernel, then the dense tail, the compaction and the CSC → CSR conversions), with the
//! kernels of [`SOLVERS`](super::SOLVERS).

use super::last;
use super::{grid, solver_fn, NT, PER_SM};
use crate::direct::{csc_to_csr, failure, singular, tail_rowperm, tail_rows, Factors, Symbolic};
use crate::matrix::CsrMatrix;
use cusci_core::{Array, CudaDevice, Device, Float, LaunchConfig, Result};
use cusci_linalg::{lu_factor, LuFactorOptions, Scalar};

/// Solves `a x = b` for the triangular n x n `a` (`lower`: forward substitution, else back;
/// `unit`: the diagonal taken as ones) and the contiguous `b` of shape (n,) or (n, ncol): one
/// sync-free pass per column (rows handed out in solve order, each waiting only for the rows
/// it needs), one read of the zero-pivot flag at the end. `Singular` (named `op`) for the
/// first zero (or missing) diagonal entry in solve order.
pub(crate) fn trsv<T: Float>(
    op: &str,
    d: &CudaDevice,
    a: &CsrMatrix<T>,
    b: &Array<T>,
    (lower, unit): (bool, bool),
    ncol: usize,
) -> Result<Array<T>> {
    let dev = Device::Cuda(d.clone());
    let n = a.shape().0;
    let mut x = Array::<T>::empty(b.shape(), &dev)?;
    if n == 0 || ncol == 0 {
        return Ok(x);
    }
    let mut sing = Array::from_vec(vec![i32::MAX], &[1], &dev)?;
    // warps: 8 per block; enough blocks to fill the device, at most one warp per row
    let blocks = (n.div_ceil(8)).min(d.props().multiprocessors * 8).max(1) as u32;
    let f = solver_fn::<T>(d, "sl_trsv")?;
    for c in 0..ncol {
        // the rows' ready flags, then the ticket counter: one zeroed array of the launch's own,
        // both written through the pointer `dev_ptr_mut` gives
        let mut ready = Array::<i32>::zeros(&[n + 1], &dev)?;
        let ready = ready.dev_ptr_mut()?;
        let ready = ready.as_ptr();
        d.launch(&f, LaunchConfig::linear(blocks, NT))
            .arg(a.indptr().dev_ptr()?)
            .arg(a.indices().dev_ptr()?)
            .arg(a.data().dev_ptr()?)
            .arg(n as i64)
            .arg(b.dev_ptr()?.add(c)?)
            .arg(x.dev_ptr_mut()?.add(c)?)
            .arg(ncol as i64)
            .arg(ready)
            .arg(ready.add(n)?)
            .arg(lower as i32)
            .arg(unit as i32)
            .arg(sing.dev_ptr_mut()?)
            .run()?;
    }
    let s = sing.to_vec()?[0];
    if s != i32::MAX {
        // the first zero pivot in solve order, as on the CPU
        let t = s as usize;
        return Err(singular(op, if lower { t } else { n - 1 - t }));
    }
    Ok(x)
}

/// `out[k] = b[p[k]]` for the rows of the contiguous row-major (n, nc) `b`.
pub(crate) fn gather_rows<T: Float>(
    d: &CudaDevice,
    b: &Array<T>,
    p: &Array<i32>,
    nc: usize,
) -> Result<Array<T>> {
    let n = p.len();
    let mut out = Array::<T>::empty(b.shape(), b.device())?;
    if n * nc > 0 {
        d.launch(&solver_fn::<T>(d, "sl_gather_rows")?, grid(d, n * nc))
            .arg(b.dev_ptr()?)
            .arg(p.dev_ptr()?)
            .arg(n as i64)
            .arg(nc as i64)
            .arg(out.dev_ptr_mut()?)
            .run()?;
    }
    Ok(out)
}

/// `Err` for the first failed column that `lu_factor` or the tail kernels flagged (the flag
/// words 1..4 hold the first column of each kind of failure; one read of the device).
fn check_flags(op: &str, flags: &Array<i32>) -> Result<()> {
    let f = flags.to_vec()?;
    let (kind, j) = (1..4)
        .map(|k| (k, f[k]))
        .min_by_key(|&(_, j)| j)
        .unwrap_or((0, i32::MAX));
    if j != i32::MAX {
        return Err(failure(op, kind, j as usize));
    }
    Ok(())
}

/// The numeric factorisation on a GPU: `lu_factor` (one persistent kernel), then the
/// compaction of the slots (counts, scan, copy) and the CSC → CSR conversions, all on the
/// device; the host reads the four flag words, the two entry counts and `pinv`.
pub(crate) fn factor<T: Scalar>(
    op: &str,
    d: &CudaDevice,
    sym: &Symbolic,
    at: &CsrMatrix<T>,
) -> Result<Factors<T>> {
    let dev = Device::Cuda(d.clone());
    let n = sym.pc.len();
    let pc: Vec<i32> = sym.pc.iter().map(|&c| c as i32).collect();
    let pc = Array::from_vec(pc, &[n], &dev)?;
    let (ltot, utot) = (sym.loff[n] as usize, sym.uoff[n] as usize);
    let dptr = Array::from_vec(sym.dptr.clone(), &[n + 1], &dev)?;
    let dend = Array::from_vec(sym.dend.clone(), &[n], &dev)?;
    let didx = Array::from_vec(sym.didx.clone(), &[sym.didx.len()], &dev)?;
    let loff = Array::from_vec(sym.loff.clone(), &[n + 1], &dev)?;
    let uoff = Array::from_vec(sym.uoff.clone(), &[n + 1], &dev)?;
    let mut lrow = Array::<i32>::empty(&[ltot], &dev)?;
    let mut lval = Array::<T>::empty(&[ltot], &dev)?;
    let mut urow = Array::<i32>::empty(&[utot], &dev)?;
    let mut uval = Array::<T>::empty(&[utot], &dev)?;
    let mut lcnt = Array::<i32>::zeros(&[n], &dev)?;
    let mut ucnt = Array::<i32>::zeros(&[n], &dev)?;
    let mut piv = Array::<i32>::full(&[n], -1, &dev)?;
    let mut pinv = Array::<i32>::full(&[n], -1, &dev)?;
    if n > 0 {
        let mut done = Array::<i32>::zeros(&[n], &dev)?;
        let mut flags = Array::from_vec(vec![0, i32::MAX, i32::MAX, i32::MAX], &[4], &dev)?;
        // the shared-memory table: the largest power of two of slots whose table fits beside the
        // kernel's static shared memory, if a column needs one that large (else the smallest
        // that serves every column)
        let es = std::mem::size_of::<T>() + 5;
        let room = d
            .props()
            .max_shared_per_block_optin
            .saturating_sub(16 << 10);
        let need = (0..sym.tail)
            .map(|j| (sym.dend[j] - sym.dptr[j]) + (sym.loff[j + 1] - sym.loff[j]) + 1)
            .max()
            .unwrap_or(0) as usize;
        let mut hcap = 0usize;
        while (hcap.max(16) * 2) * es <= room && hcap * 3 < need * 4 {
            hcap = hcap.max(16) * 2;
        }
        let smem = hcap * es;
        let f = solver_fn::<T>(d, "lu_factor")?;
        let per_sm = f.occupancy(NT, smem)?.clamp(1, 4) as usize;
        // one global workspace (x, mark, list) per block for the columns beyond the table:
        // fewer blocks when memory is short
        let per_block = n * (std::mem::size_of::<T>() + 8);
        let mem = d.memory_info()?;
        let budget = (mem.free + mem.cached) / 4;
        let nb = n
            .min(d.props().multiprocessors.max(1) * per_sm)
            .min((budget / per_block).max(1));
        let mut xw = Array::<T>::zeros(&[nb * n], &dev)?;
        let mut mw = Array::<i32>::zeros(&[nb * n], &dev)?;
        let mut tw = Array::<i32>::empty(&[nb * n], &dev)?;
        let cfg = LaunchConfig {
            shared_mem_bytes: smem as u32,
            ..LaunchConfig::linear(nb as u32, NT)
        };
        d.launch(&f, cfg)
            .arg(n as i64)
            .arg(at.indptr().dev_ptr()?)
            .arg(at.indices().dev_ptr()?)
            .arg(at.data().dev_ptr()?)
            .arg(pc.dev_ptr()?)
            .arg(dptr.dev_ptr()?)
            .arg(dend.dev_ptr()?)
            .arg(didx.dev_ptr()?)
            .arg(sym.tail as i64)
            .arg(loff.dev_ptr()?)
            .arg(uoff.dev_ptr()?)
            .arg(lrow.dev_ptr_mut()?)
            .arg(lval.dev_ptr_mut()?)
            .arg(lcnt.dev_ptr_mut()?)
            .arg(urow.dev_ptr_mut()?)
            .arg(uval.dev_ptr_mut()?)
            .arg(ucnt.dev_ptr_mut()?)
            .arg(piv.dev_ptr_mut()?)
            .arg(pinv.dev_ptr_mut()?)
            .arg(done.dev_ptr_mut()?)
            .arg(flags.dev_ptr_mut()?)
            .arg(xw.dev_ptr_mut()?)
            .arg(mw.dev_ptr_mut()?)
            .arg(tw.dev_ptr_mut()?)
            .arg(hcap as i32)
            .run()?;
        check_flags(op, &flags)?;
        if sym.tail < n {
            // the dense tail: gather S, factor it (cuSOLVER getrf), store its factors
            let (t, m) = (sym.tail, n - sym.tail);
            let (rows, map) = tail_rows(op, sym, &pinv.to_vec()?)?;
            let map = Array::from_vec(map, &[n], &dev)?;
            let mut s = Array::<T>::zeros(&[m, m], &dev)?;
            d.launch(&solver_fn::<T>(d, "lu_tail_gather")?, grid(d, m * 32))
                .arg(n as i64)
                .arg(t as i64)
                .arg(loff.dev_ptr()?)
                .arg(lrow.dev_ptr()?)
                .arg(lval.dev_ptr()?)
                .arg(lcnt.dev_ptr()?)
                .arg(map.dev_ptr()?)
                .arg(s.dev_ptr_mut()?)
                .arg(flags.dev_ptr_mut()?)
                .run()?;
            let f = lu_factor(
                &s,
                LuFactorOptions {
                    check_finite: false,
                },
            )?;
            let rowperm = tail_rowperm(&rows, &f.piv.to_vec()?);
            let rowperm = Array::from_vec(rowperm, &[m], &dev)?;
            // column-major: the storage of cuSOLVER's factor
            let g = f.lu.swapaxes(0, 1)?.contiguous()?;
            let blocks = m.min(d.props().multiprocessors.max(1) * PER_SM as usize) as u32;
            d.launch(
                &solver_fn::<T>(d, "lu_tail_store")?,
                LaunchConfig::linear(blocks, NT),
            )
            .arg(n as i64)
            .arg(t as i64)
            .arg(g.dev_ptr()?)
            .arg(rowperm.dev_ptr()?)
            .arg(loff.dev_ptr()?)
            .arg(lrow.dev_ptr_mut()?)
            .arg(lval.dev_ptr_mut()?)
            .arg(lcnt.dev_ptr_mut()?)
            .arg(uoff.dev_ptr()?)
            .arg(urow.dev_ptr_mut()?)
            .arg(uval.dev_ptr_mut()?)
            .arg(ucnt.dev_ptr_mut()?)
            .arg(piv.dev_ptr_mut()?)
            .arg(pinv.dev_ptr_mut()?)
            .arg(flags.dev_ptr_mut()?)
            .run()?;
            check_flags(op, &flags)?;
        }
    }
    // compaction: counts, scan, copy (CSC), then CSR
    let mut lc = Array::<i32>::zeros(&[n + 1], &dev)?;
    let mut uc = Array::<i32>::zeros(&[n + 1], &dev)?;
    if n > 0 {
        d.launch(&solver_fn::<T>(d, "lu_counts")?, grid(d, n))
            .arg(n as i64)
            .arg(lcnt.dev_ptr()?)
            .arg(ucnt.dev_ptr()?)
            .arg(lc.dev_ptr_mut()?)
            .arg(uc.dev_ptr_mut()?)
            .run()?;
    }
    let lp = lc.cumsum(0)?;
    let up = uc.cumsum(0)?;
    let (nl, nu) = (last(&lp)?, last(&up)?);
    let mut li = Array::<i32>::empty(&[nl], &dev)?;
    let mut lv = Array::<T>::empty(&[nl], &dev)?;
    let mut ui = Array::<i32>::empty(&[nu], &dev)?;
    let mut uv = Array::<T>::empty(&[nu], &dev)?;
    if n > 0 {
        d.launch(&solver_fn::<T>(d, "lu_compact")?, grid(d, n * 32))
            .arg(n as i64)
            .arg(loff.dev_ptr()?)
            .arg(lrow.dev_ptr()?)
            .arg(lval.dev_ptr()?)
            .arg(lcnt.dev_ptr()?)
            .arg(uoff.dev_ptr()?)
            .arg(urow.dev_ptr()?)
            .arg(uval.dev_ptr()?)
            .arg(ucnt.dev_ptr()?)
            .arg(pinv.dev_ptr()?)
            .arg(lp.dev_ptr()?)
            .arg(li.dev_ptr_mut()?)
            .arg(lv.dev_ptr_mut()?)
            .arg(up.dev_ptr()?)
            .arg(ui.dev_ptr_mut()?)
            .arg(uv.dev_ptr_mut()?)
            .run()?;
    }
    let l = csc_to_csr(lp, li, lv, n)?;
    let u = csc_to_csr(up, ui, uv, n)?;
    let pinv_h = pinv.to_vec()?;
    Ok(Factors {
        l,
        u,
        piv,
        pinv: pinv_h,
    })
}
