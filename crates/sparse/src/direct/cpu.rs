//! The numeric sparse LU on the host (rayon): the column steps of `lu_factor`
//! (`cuda/splu.cu`) with the same roundings, scheduled by levels of the dependency graph, and
//! the dense tail.

use super::{
    csc_to_csr, failure, singular, tail_rowperm, tail_rows, Factors, Symbolic, FAIL_OVERFLOW,
    FAIL_PIVOTAL, FAIL_SINGULAR,
};
use crate::matrix::CsrMatrix;
use cusci_core::{Array, Device, Float, Numeric, RealFloat, Result};
use cusci_linalg::{lu_factor, LuFactorOptions, Scalar};
use rayon::prelude::*;

/// Both parts finite.
fn finite<T: Float>(v: T) -> bool {
    v.re().to_f64().is_finite() && v.im().to_f64().is_finite()
}

/// A worker's dense workspace in [`factor_cpu`] (`x` and `mark` zero between columns; `mark`:
/// 0 untouched, 1 touched, 2 touched and pivotal for a column of deps(j)).
struct Work<T> {
    x: Vec<T>,
    mark: Vec<u8>,
    list: Vec<usize>,
}

/// What [`factor_column`] reads: the input in CSC and the slots of the columns factored so far.
struct Done<'a, T> {
    acp: &'a [i32],
    ari: &'a [i32],
    av: &'a [T],
    lrow: &'a [i32],
    lval: &'a [T],
    lcnt: &'a [usize],
    piv: &'a [i32],
    pinv: &'a [i32],
}

/// One column of [`factor_cpu`]: its `L` and `U` entries in slot order and its pivot row (`-1`
/// for a tail column), or how it failed.
struct ColumnOut<T> {
    l: Vec<(i32, T)>,
    u: Vec<(i32, T)>,
    piv: i32,
    fail: usize,
}

/// Column `j` of `A Pc` as `lu_factor` computes it (`cuda/splu.cu`), with the same roundings:
/// its deps applied in ascending order, then (below the tail) the pivot and the multipliers, or
/// (in the tail) its candidate rows unscaled.
fn factor_column<T: Scalar>(
    sym: &Symbolic,
    j: usize,
    d: &Done<'_, T>,
    w: &mut Work<T>,
) -> ColumnOut<T> {
    let Work { x, mark, list } = w;
    list.clear();
    let c = sym.pc[j];
    for e in d.acp[c] as usize..d.acp[c + 1] as usize {
        let i = d.ari[e] as usize;
        x[i] = d.av[e];
        mark[i] = 1;
        list.push(i);
    }
    let mut out = ColumnOut {
        l: Vec::new(),
        u: Vec::new(),
        piv: -1,
        fail: 0,
    };
    for &k in &sym.didx[sym.dptr[j] as usize..sym.dend[j] as usize] {
        let k = k as usize;
        let pk = d.piv[k] as usize;
        let xr = x[pk];
        if mark[pk] != 0 {
            mark[pk] = 2;
        }
        if xr != T::zero() {
            out.u.push((k as i32, xr));
            let l0 = sym.loff[k] as usize;
            for t in l0..l0 + d.lcnt[k] {
                let i = d.lrow[t] as usize;
                if mark[i] == 0 {
                    mark[i] = 1;
                    list.push(i);
                }
                x[i] = Numeric::sub(x[i], Numeric::mul(d.lval[t], xr));
            }
        }
    }
    // the pivot (as lu_factor: largest modulus, ties to the smallest row); a tail column only
    // checks its candidates
    let (mut nan, mut pivotal) = (false, false);
    let mut best: Option<(f64, usize)> = None;
    for &i in list.iter() {
        if mark[i] != 1 {
            continue;
        }
        pivotal |= d.pinv[i] >= 0;
        let a = x[i].abs2().to_f64(); // exact for f32
        if a.is_nan() {
            nan = true;
        } else if a > 0.0 && best.is_none_or(|(bv, br)| a > bv || (a == bv && i < br)) {
            best = Some((a, i));
        }
    }
    let tail = j >= sym.tail;
    out.fail = if pivotal {
        FAIL_PIVOTAL
    } else if tail {
        0
    } else {
        match best {
            Some((_, r)) if !nan && finite(x[r]) => 0,
            _ => FAIL_SINGULAR,
        }
    };
    if out.fail == 0 {
        let prow = if tail {
            usize::MAX
        } else {
            best.map_or(0, |b| b.1)
        };
        let pv = if tail { T::one() } else { x[prow] };
        for &i in list.iter() {
            if mark[i] == 1 && i != prow && x[i] != T::zero() {
                let v = if tail { x[i] } else { Numeric::div(x[i], pv) };
                out.l.push((i as i32, v));
            }
        }
        if out.l.len() > (sym.loff[j + 1] - sym.loff[j]) as usize {
            out.fail = FAIL_OVERFLOW;
        } else if !tail {
            out.u.push((j as i32, pv));
            out.piv = prow as i32;
        }
    }
    for &i in list.iter() {
        x[i] = T::zero();
        mark[i] = 0;
    }
    out
}

/// The numeric factorisation on the host: the columns of `lu_factor` (`cuda/splu.cu`, see
/// [`factor_column`]), those of one level of the dependency graph in parallel (a column's level
/// is one more than its deps' highest), then the tail's columns (their deps all lie before the
/// tail) in parallel, then the dense tail. Each column computes what the serial loop would, so
/// the factors do not depend on the schedule; the failure reported is that of the first
/// failing column whose deps did not fail, i.e. the serial loop's. `at`: `A` in CSC (the CSR
/// of `Aᵀ`), canonical.
pub(super) fn factor_cpu<T: Scalar>(
    op: &str,
    sym: &Symbolic,
    at: &CsrMatrix<T>,
) -> Result<Factors<T>> {
    let n = sym.pc.len();
    let acp = at.indptr().to_vec()?;
    let ari = at.indices().to_vec()?;
    let av = at.data().to_vec()?;
    let (ltot, utot) = (sym.loff[n] as usize, sym.uoff[n] as usize);
    let mut lrow = vec![0i32; ltot];
    let mut lval = vec![T::zero(); ltot];
    let mut lcnt = vec![0usize; n];
    let mut urow = vec![0i32; utot];
    let mut uval = vec![T::zero(); utot];
    let mut ucnt = vec![0usize; n];
    let mut piv = vec![-1i32; n];
    let mut pinv = vec![-1i32; n];
    let deps = |j: usize| &sym.didx[sym.dptr[j] as usize..sym.dend[j] as usize];
    // the batches: the sparse columns by level (a counting sort), then the tail columns
    let t = sym.tail;
    let mut level = vec![0usize; t];
    for j in 0..t {
        level[j] = deps(j)
            .iter()
            .map(|&k| level[k as usize] + 1)
            .max()
            .unwrap_or(0);
    }
    let nlev = level.iter().max().map_or(0, |&l| l + 1);
    let mut start = vec![0usize; nlev + 1];
    for &l in &level {
        start[l + 1] += 1;
    }
    for l in 0..nlev {
        start[l + 1] += start[l];
    }
    let mut order = vec![0usize; n];
    let mut fill = start.clone();
    for (j, &l) in level.iter().enumerate() {
        order[fill[l]] = j;
        fill[l] += 1;
    }
    for (j, o) in order.iter_mut().enumerate().skip(t) {
        *o = j;
    }
    let batches = start
        .windows(2)
        .map(|w| w[0]..w[1])
        .chain((t < n).then_some(t..n));
    // one workspace per worker thread
    let pool: Vec<std::sync::Mutex<Work<T>>> = (0..rayon::current_num_threads())
        .map(|_| {
            std::sync::Mutex::new(Work {
                x: vec![T::zero(); n],
                mark: vec![0u8; n],
                list: Vec::new(),
            })
        })
        .collect();
    // bad[j]: column j failed or skipped (a dep failed); the first failure (column, kind)
    let mut bad = vec![false; n];
    let mut fail: Option<(usize, usize)> = None;
    for batch in batches {
        let cols = &order[batch];
        let d = Done {
            acp: &acp,
            ari: &ari,
            av: &av,
            lrow: &lrow,
            lval: &lval,
            lcnt: &lcnt,
            piv: &piv,
            pinv: &pinv,
        };
        let outs: Vec<Option<ColumnOut<T>>> = cols
            .par_iter()
            .map(|&j| {
                if fail.is_some() && deps(j).iter().any(|&k| bad[k as usize]) {
                    return None;
                }
                let slot = rayon::current_thread_index().unwrap_or(0) % pool.len();
                let mut w = pool[slot]
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                Some(factor_column(sym, j, &d, &mut w))
            })
            .collect();
        for (&j, o) in cols.iter().zip(outs) {
            let o = match o {
                Some(o) if o.fail == 0 => o,
                Some(o) => {
                    bad[j] = true;
                    if fail.is_none_or(|(f, _)| j < f) {
                        fail = Some((j, o.fail));
                    }
                    continue;
                }
                None => {
                    bad[j] = true;
                    continue;
                }
            };
            let l0 = sym.loff[j] as usize;
            for (e, &(r, v)) in o.l.iter().enumerate() {
                lrow[l0 + e] = r;
                lval[l0 + e] = v;
            }
            lcnt[j] = o.l.len();
            let u0 = sym.uoff[j] as usize;
            for (e, &(r, v)) in o.u.iter().enumerate() {
                urow[u0 + e] = r;
                uval[u0 + e] = v;
            }
            ucnt[j] = o.u.len();
            if o.piv >= 0 {
                piv[j] = o.piv;
                pinv[o.piv as usize] = j as i32;
            }
        }
    }
    if let Some((j, kind)) = fail {
        return Err(failure(op, kind, j));
    }
    if sym.tail < n {
        let mut t = TailSlots {
            lrow: &mut lrow,
            lval: &mut lval,
            lcnt: &mut lcnt,
            urow: &mut urow,
            uval: &mut uval,
            ucnt: &mut ucnt,
        };
        tail_cpu(op, sym, &mut t, &mut piv, &mut pinv)?;
    }
    // compaction into CSC (L: the unit diagonal first, rows in pivot order), then CSR
    let (mut lp, mut li, mut lv) = (vec![0i32; n + 1], Vec::new(), Vec::new());
    let (mut up, mut ui, mut uv) = (vec![0i32; n + 1], Vec::new(), Vec::new());
    for j in 0..n {
        li.push(j as i32);
        lv.push(T::one());
        let l0 = sym.loff[j] as usize;
        for t in l0..l0 + lcnt[j] {
            li.push(pinv[lrow[t] as usize]);
            lv.push(lval[t]);
        }
        lp[j + 1] = li.len() as i32;
        let u0 = sym.uoff[j] as usize;
        ui.extend_from_slice(&urow[u0..u0 + ucnt[j]]);
        uv.extend_from_slice(&uval[u0..u0 + ucnt[j]]);
        up[j + 1] = ui.len() as i32;
    }
    let dev = Device::Cpu;
    let (nl, nu) = (li.len(), ui.len());
    let l = csc_to_csr(
        Array::from_vec(lp, &[n + 1], &dev)?,
        Array::from_vec(li, &[nl], &dev)?,
        Array::from_vec(lv, &[nl], &dev)?,
        n,
    )?;
    let u = csc_to_csr(
        Array::from_vec(up, &[n + 1], &dev)?,
        Array::from_vec(ui, &[nu], &dev)?,
        Array::from_vec(uv, &[nu], &dev)?,
        n,
    )?;
    Ok(Factors {
        l,
        u,
        piv: Array::from_vec(piv, &[n], &dev)?,
        pinv,
    })
}

/// The slots of [`factor_cpu`].
struct TailSlots<'a, T> {
    lrow: &'a mut [i32],
    lval: &'a mut [T],
    lcnt: &'a mut [usize],
    urow: &'a mut [i32],
    uval: &'a mut [T],
    ucnt: &'a mut [usize],
}

/// The dense tail on the host: the block `S` (the Schur complement of the sparse columns on the
/// rows not yet pivotal, gathered from the tail columns' L slots; a non-finite entry makes its
/// column singular, as a NaN candidate does in the sparse loop), its LU factorisation with
/// partial pivoting (`cusci_linalg::lu_factor`), and its factors into the slots as `lu_tail_store`
/// (`cuda/splu.cu`) writes them.
fn tail_cpu<T: Scalar>(
    op: &str,
    sym: &Symbolic,
    s: &mut TailSlots<'_, T>,
    piv: &mut [i32],
    pinv: &mut [i32],
) -> Result<()> {
    let n = piv.len();
    let (t, m) = (sym.tail, n - sym.tail);
    let (rows, map) = tail_rows(op, sym, pinv)?;
    let mut dense = vec![T::zero(); m * m];
    // the first column of S with a non-finite entry (as lu_tail_gather flags it)
    let mut sbad = m;
    for c in 0..m {
        let l0 = sym.loff[t + c] as usize;
        for e in l0..l0 + s.lcnt[t + c] {
            if !finite(s.lval[e]) {
                sbad = sbad.min(c);
            }
            dense[map[s.lrow[e] as usize] as usize * m + c] = s.lval[e];
        }
    }
    let f = lu_factor(
        &Array::from_vec(dense, &[m, m], &Device::Cpu)?,
        LuFactorOptions {
            check_finite: false,
        },
    )?;
    let rowperm = tail_rowperm(&rows, &f.piv.to_vec()?);
    // column-major: g[c * m + r] = F(r, c)
    let g = f.lu.swapaxes(0, 1)?.contiguous()?.to_vec()?;
    for c in 0..m {
        let j = t + c;
        let col = &g[c * m..(c + 1) * m];
        let d = col[c];
        let bad = c == sbad || d == T::zero() || col.iter().any(|&v| !finite(v));
        let l0 = sym.loff[j] as usize;
        let mut lc = 0;
        for r in c + 1..m {
            if col[r] != T::zero() {
                s.lrow[l0 + lc] = rowperm[r];
                s.lval[l0 + lc] = col[r];
                lc += 1;
            }
        }
        let u0 = sym.uoff[j] as usize;
        let mut nu = s.ucnt[j];
        for (r, &v) in col[..c].iter().enumerate() {
            if v != T::zero() {
                s.urow[u0 + nu] = (t + r) as i32;
                s.uval[u0 + nu] = v;
                nu += 1;
            }
        }
        s.urow[u0 + nu] = j as i32;
        s.uval[u0 + nu] = d;
        s.ucnt[j] = nu + 1;
        s.lcnt[j] = lc;
        if bad {
            return Err(singular(op, j));
        }
        piv[j] = rowperm[c];
        pinv[rowperm[c] as usize] = j as i32;
    }
    Ok(())
}
