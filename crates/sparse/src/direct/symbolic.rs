//! The symbolic analysis of [`splu_with`](super::splu_with) (host, pattern only): the column
//! ordering, the column elimination tree, the static structure of `L` and `U` and the dense
//! tail.

use super::{internal, PermcSpec, SpluOptions};
use cusci_core::error::make;
use cusci_core::{Error, Result};
use rayon::prelude::*;

/// The symbolic analysis of [`splu_with`](super::splu_with) (host, pattern only).
pub(crate) struct Symbolic {
    /// `pc[j]`: the column of `A` at position `j` of `A Pc`
    pub(crate) pc: Vec<usize>,
    /// deps(j) = `didx[dptr[j]..dptr[j + 1]]`, ascending
    pub(crate) dptr: Vec<i64>,
    /// the deps applied by the sparse loop: `didx[dptr[j]..dend[j]]` (those before the tail)
    pub(crate) dend: Vec<i64>,
    pub(crate) didx: Vec<i32>,
    /// the slots of `L(:, j)`: `loff[j]..loff[j + 1]`
    pub(crate) loff: Vec<i64>,
    /// the slots of `U(:, j)`: `uoff[j]..uoff[j + 1]` (`|deps(j)| + 1`)
    pub(crate) uoff: Vec<i64>,
    /// the first column of the dense tail (`n`: none)
    pub(crate) tail: usize,
}

/// The ordering, the column elimination tree and the static structure of `A Pc` from the CSR
/// pattern of `A` (`i32`, in range; duplicates allowed).
pub(super) fn analyse(
    op: &str,
    n: usize,
    ip: &[i32],
    ix: &[i32],
    opts: &SpluOptions,
) -> Result<Symbolic> {
    const NONE: usize = usize::MAX;
    // the CSC pattern: rows ascending within each column, duplicates dropped
    let mut cp = vec![0usize; n + 1];
    for &c in ix {
        cp[c as usize + 1] += 1;
    }
    for c in 0..n {
        cp[c + 1] += cp[c];
    }
    let mut fill = cp.clone();
    let mut ri = vec![0usize; ix.len()];
    for i in 0..n {
        for &c in &ix[ip[i] as usize..ip[i + 1] as usize] {
            ri[fill[c as usize]] = i;
            fill[c as usize] += 1;
        }
    }
    let mut colp = vec![0usize; n + 1];
    let mut rows: Vec<usize> = Vec::with_capacity(ri.len());
    for c in 0..n {
        let s = rows.len();
        for &r in &ri[cp[c]..cp[c + 1]] {
            if rows.len() == s || rows[rows.len() - 1] != r {
                rows.push(r);
            }
        }
        colp[c + 1] = rows.len();
    }
    drop(ri);
    // the column ordering
    let pc: Vec<usize> = match opts.permc_spec {
        PermcSpec::Colamd if n > 0 => {
            use faer::sparse::linalg::colamd;
            let sym = faer::sparse::SymbolicSparseColMatRef::new_checked(n, n, &colp, None, &rows);
            let mut fwd = vec![0usize; n];
            let mut inv = vec![0usize; n];
            let req = colamd::order_scratch::<usize>(n, n, rows.len());
            let mut mem =
                faer::dyn_stack::MemBuffer::try_new(req).map_err(|_| Error::OutOfMemory {
                    requested: req.size_bytes(),
                    free: 0,
                })?;
            colamd::order(
                &mut fwd,
                &mut inv,
                sym,
                colamd::Control::default(),
                faer::dyn_stack::MemStack::new(&mut mem),
            )
            .map_err(|e| internal(op, format!("COLAMD failed: {e:?}")))?;
            fwd
        }
        _ => (0..n).collect(),
    };
    let col = |j: usize| &rows[colp[pc[j]]..colp[pc[j] + 1]];
    // first(i): the first column of A Pc holding row i; the column elimination tree (Liu's
    // algorithm on the rows: each row links its previous column to the current one)
    let mut first = vec![NONE; n];
    let mut prev = vec![NONE; n];
    let mut parent = vec![NONE; n];
    let mut anc = vec![NONE; n];
    for j in 0..n {
        for &i in col(j) {
            if first[i] == NONE {
                first[i] = j;
            }
            let mut k = prev[i];
            while k != NONE && k < j {
                let next = anc[k];
                anc[k] = j;
                if next == NONE {
                    parent[k] = j;
                    break;
                }
                k = next;
            }
            prev[i] = j;
        }
    }
    // deps(j): the union of the tree paths from first(i) up to j over the rows i of column j;
    // the columns are independent, so blocks of them run in parallel (the later columns have
    // the longer lists: many small blocks)
    let block = (n / (64 * rayon::current_num_threads())).clamp(64, 4096);
    let parts = (0..n.div_ceil(block))
        .into_par_iter()
        .map_init(
            || vec![NONE; n],
            |mark, b| -> Result<(Vec<i64>, Vec<i32>)> {
                let js = b * block..(b * block + block).min(n);
                let (mut len, mut idx) = (Vec::with_capacity(js.len()), Vec::new());
                for j in js {
                    let s = idx.len();
                    for &i in col(j) {
                        let mut k = first[i];
                        while k != j {
                            if k == NONE || k > j {
                                return Err(internal(op, format!("column {j} is not an ancestor")));
                            }
                            if mark[k] == j {
                                break;
                            }
                            mark[k] = j;
                            idx.push(k as i32);
                            k = parent[k];
                        }
                    }
                    idx[s..].sort_unstable();
                    len.push((idx.len() - s) as i64);
                }
                Ok((len, idx))
            },
        )
        .collect::<Result<Vec<_>>>()?;
    let mut dptr = Vec::with_capacity(n + 1);
    dptr.push(0i64);
    let mut didx: Vec<i32> = Vec::with_capacity(parts.iter().map(|p| p.1.len()).sum());
    for (len, idx) in parts {
        for l in len {
            dptr.push(dptr[dptr.len() - 1] + l);
        }
        didx.extend_from_slice(&idx);
    }
    // L capacities: the candidate rows of column k lie among the rows whose first column is in
    // the subtree T(k), less the pivots of the other columns of T(k), so
    // |L(:, k)| <= rows(T(k)) - |T(k)| (this also holds for a structurally singular matrix;
    // for a nonsingular one it is at most |R(k, k+1..)|, George and Ng's bound)
    let mut rows_t = vec![0i64; n];
    let mut size_t = vec![1i64; n];
    for &f in &first {
        if f != NONE {
            rows_t[f] += 1;
        }
    }
    let tail = if opts.dense_tail {
        dense_tail(n, &didx)
    } else {
        n
    };
    let m = (n - tail) as i64;
    let mut loff = vec![0i64; n + 1];
    let mut uoff = vec![0i64; n + 1];
    let mut dend = dptr[1..].to_vec();
    for k in 0..n {
        // the children of k (all < k) have been added
        let lcap = (rows_t[k] - size_t[k]).max(0);
        if k < tail {
            loff[k + 1] = loff[k] + lcap;
            uoff[k + 1] = uoff[k] + (dptr[k + 1] - dptr[k]) + 1;
        } else {
            // a tail column: its deps before the tail, its candidates (at most lcap + 1 + c:
            // the c tail columns before it pivot on none of them) and then its dense L part;
            // U(0..tail, k) and a dense U(tail..=k, k)
            let c = (k - tail) as i64;
            let ds = &didx[dptr[k] as usize..dptr[k + 1] as usize];
            dend[k] = dptr[k] + ds.partition_point(|&d| (d as usize) < tail) as i64;
            loff[k + 1] = loff[k] + (lcap + 1 + c).max(m - 1 - c);
            uoff[k + 1] = uoff[k] + (dend[k] - dptr[k]) + c + 1;
        }
        if parent[k] != NONE {
            rows_t[parent[k]] += rows_t[k];
            size_t[parent[k]] += size_t[k];
        }
    }
    if loff[n] > i32::MAX as i64 || uoff[n] > i32::MAX as i64 {
        return Err(make::arg(
            op,
            format!(
                "the static structure ({} + {} entries) does not fit i32 indices",
                loff[n], uoff[n]
            ),
        ));
    }
    Ok(Symbolic {
        pc,
        dptr,
        dend,
        didx,
        loff,
        uoff,
        tail,
    })
}

/// The smallest and the largest dense tail ([`analyse`]).
const TAIL_MIN: usize = 64;
const TAIL_MAX: usize = 4096;

/// The first column of the dense tail: the last `m` columns are factored as one dense block when
/// the static structure of `U` within them is at least 40% full (`m` the largest such in
/// `TAIL_MIN..=TAIL_MAX`); `n` when no such block exists.
fn dense_tail(n: usize, didx: &[i32]) -> usize {
    let mut outdeg = vec![0u64; n];
    for &k in didx {
        outdeg[k as usize] += 1;
    }
    // the entries of the static U strictly above the diagonal of the last m columns
    let (mut d, mut best) = (0u64, 0);
    for m in 1..=n.min(TAIL_MAX) {
        d += outdeg[n - m];
        let full = (m * (m - 1) / 2) as u64;
        if m >= TAIL_MIN && 5 * d >= 2 * full {
            best = m;
        }
    }
    n - best
}
