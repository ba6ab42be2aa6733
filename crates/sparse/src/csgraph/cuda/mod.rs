//! The GPU side of `csgraph`: the components (`components.rs`, kernels of the crate's shared
//! modules) and the launchers of `csgraph.cu` ([`CSGRAPH`]): the dense conversions, the
//! Laplacian's entries, path reconstruction, blocked Floyd–Warshall, the Bellman–Ford sweeps
//! with the predecessor levels that serve dijkstra, bellman_ford and johnson, the traversals,
//! Borůvka's spanning forest, reverse Cuthill–McKee and the matching of structural_rank.

mod components;

pub(crate) use components::{strong, weak};

use super::{inf, nan, Order, Searched, Sssp, SsspPlan};
use crate::cuda::{count_scan_write, grid, last, with_prelude, Arg};
use crate::matrix::CsrMatrix;
use crate::{CooMatrix, SpIndex};
use cusci_core::{
    Array, CudaDevice, DType, Function, KernelModule, LaunchConfig, RealFloat, Result, Spec,
};

/// The module of `csgraph.cu`; `Spec`: element type (f32, f64), index type (i32, i64).
pub(crate) static CSGRAPH: KernelModule = KernelModule {
    name: "cusci_sparse_csgraph",
    source: |s| with_prelude(s, include_str!("csgraph.cu")),
    options: &[],
    samples: || {
        [DType::F32, DType::F64]
            .iter()
            .flat_map(|&t| [DType::I32, DType::I64].map(|i| Spec::of(&[t, i])))
            .collect()
    },
};

/// Sweeps (and predecessor levels) queued between two reads of their flags.
const BATCH: usize = 8;
/// The side of the Floyd–Warshall tiles (`FWT` in the source, `cpu::FW_TILE`).
const TILE: usize = super::cpu::FW_TILE;

/// The kernel `name` for element type `T` and index type `I`.
fn f<T: RealFloat, I: SpIndex>(d: &CudaDevice, name: &str) -> Result<Function> {
    CSGRAPH.function(d, &crate::cuda::spec::<T, I>(), name)
}

/// `csgraph_to_dense`: NaN fill, the row minima, NaN → null.
pub(crate) fn to_dense<T: RealFloat, I: SpIndex>(
    d: &CudaDevice,
    g: &CsrMatrix<T, I>,
    null: T,
) -> Result<Array<T>> {
    let (m, n) = g.shape;
    let mut out = Array::<T>::empty(&[m, n], g.device())?;
    let len = m * n;
    if len == 0 {
        return Ok(out);
    }
    d.launch(&f::<T, I>(d, "cg_fill")?, grid(d, len))
        .arg(out.dev_ptr_mut()?)
        .arg(len as i64)
        .arg(nan::<T>())
        .run()?;
    d.launch(&f::<T, I>(d, "cg_to_dense_rows")?, grid(d, m))
        .arg(g.indptr.dev_ptr()?)
        .arg(g.indices.dev_ptr()?)
        .arg(g.data.dev_ptr()?)
        .arg(m as i64)
        .arg(n as i64)
        .arg(out.dev_ptr_mut()?)
        .run()?;
    d.launch(&f::<T, I>(d, "cg_nan_to")?, grid(d, len))
        .arg(out.dev_ptr_mut()?)
        .arg(len as i64)
        .arg(null)
        .run()?;
    Ok(out)
}

/// `csgraph_from_dense` of a contiguous m x n array: count, scan, write.
pub(crate) fn from_dense<T: RealFloat>(
    d: &CudaDevice,
    a: &Array<T>,
    null: T,
    nan_null: bool,
    inf_null: bool,
) -> Result<CsrMatrix<T>> {
    let (m, n) = (a.shape()[0], a.shape()[1]);
    let dev = a.device();
    if m == 0 {
        return CsrMatrix::from_host(vec![0], vec![], vec![], (m, n), true, dev);
    }
    let nullv = Array::from_vec(vec![null], &[1], dev)?;
    let args = [
        Arg::Val(a.dev_ptr()?),
        Arg::I64(n as i64),
        Arg::Val(nullv.dev_ptr()?),
        Arg::I32(nan_null as i32),
        Arg::I32(inf_null as i32),
    ];
    let (ip, ind, dat) = count_scan_write::<T, i32>(
        d,
        &CSGRAPH,
        m,
        ("cg_from_dense_count", &args),
        ("cg_from_dense_write", &args),
    )?;
    Ok(CsrMatrix::from_parts(dat, ind, ip, (m, n), true))
}

/// The Laplacian's entries of `a` with degrees `deg` (duplicates not summed yet) and its
/// returned diagonal.
pub(crate) fn laplacian<T: RealFloat, I: SpIndex>(
    d: &CudaDevice,
    a: &CsrMatrix<T, I>,
    deg: &Array<T>,
    normed: bool,
) -> Result<(CsrMatrix<T, I>, Array<T>)> {
    let n = a.shape.0;
    let dev = a.device();
    if n == 0 {
        let empty = CsrMatrix::from_host(vec![I::of(0)], vec![], vec![], (0, 0), true, dev)?;
        return Ok((empty, deg.clone()));
    }
    let deg = deg.contiguous()?;
    let (ip, ind, dat) = count_scan_write::<T, I>(
        d,
        &CSGRAPH,
        n,
        (
            "cg_lap_count",
            &[
                Arg::Idx(a.indptr.dev_ptr()?),
                Arg::Idx(a.indices.dev_ptr()?),
            ],
        ),
        (
            "cg_lap_write",
            &[
                Arg::Idx(a.indptr.dev_ptr()?),
                Arg::Idx(a.indices.dev_ptr()?),
                Arg::Val(a.data.dev_ptr()?),
                Arg::Val(deg.dev_ptr()?),
                Arg::I32(normed as i32),
            ],
        ),
    )?;
    let raw = CsrMatrix::from_parts(dat, ind, ip, (n, n), false);
    let diag = if normed {
        let mut s = Array::<T>::empty(&[n], dev)?;
        d.launch(&f::<T, I>(d, "cg_lap_diag")?, grid(d, n))
            .arg(deg.dev_ptr()?)
            .arg(n as i64)
            .arg(s.dev_ptr_mut()?)
            .run()?;
        s
    } else {
        deg
    };
    Ok((raw, diag))
}

/// `construct_dist_matrix` on the dense graph (`inf` where no edge) and contiguous n x n
/// predecessors.
pub(crate) fn dist_from_pred<T: RealFloat>(
    d: &CudaDevice,
    dense: &Array<T>,
    pred: &Array<i32>,
    directed: bool,
    null: T,
) -> Result<Array<T>> {
    let n = dense.shape()[0];
    let dev = dense.device();
    let mut out = Array::<T>::empty(&[n, n], dev)?;
    if n == 0 {
        return Ok(out);
    }
    let len = n * n;
    let sym = if directed {
        dense.clone()
    } else {
        let mut s = Array::<T>::empty(&[n, n], dev)?;
        d.launch(&f::<T, i32>(d, "cg_sym_min")?, grid(d, len))
            .arg(dense.dev_ptr()?)
            .arg(n as i64)
            .arg(s.dev_ptr_mut()?)
            .run()?;
        s
    };
    d.launch(&f::<T, i32>(d, "cg_dist_from_pred")?, grid(d, len))
        .arg(sym.dev_ptr()?)
        .arg(pred.dev_ptr()?)
        .arg(n as i64)
        .arg(null)
        .arg(out.dev_ptr_mut()?)
        .run()?;
    Ok(out)
}

/// `reconstruct_path`'s edges as COO arrays: flags, a scan (one wait for the count), a write.
pub(crate) fn tree_edges<T: RealFloat, I: SpIndex>(
    d: &CudaDevice,
    g: &CsrMatrix<T, I>,
    pred: &Array<i32>,
    directed: bool,
) -> Result<CooMatrix<T, I>> {
    let n = g.shape.0;
    let dev = g.device();
    let mut flags = Array::<I>::zeros(&[n + 1], dev)?;
    if n > 0 {
        d.launch(&f::<T, I>(d, "cg_tree_flag")?, grid(d, n))
            .arg(pred.dev_ptr()?)
            .arg(n as i64)
            .arg(flags.dev_ptr_mut()?)
            .run()?;
    }
    let pos = flags.cumsum(0)?;
    let k = last(&pos)?;
    let mut row = Array::<I>::empty(&[k], dev)?;
    let mut col = Array::<I>::empty(&[k], dev)?;
    let mut data = Array::<T>::empty(&[k], dev)?;
    if k > 0 {
        d.launch(&f::<T, I>(d, "cg_tree_write")?, grid(d, n))
            .arg(g.indptr.dev_ptr()?)
            .arg(g.indices.dev_ptr()?)
            .arg(g.data.dev_ptr()?)
            .arg(pred.dev_ptr()?)
            .arg(n as i64)
            .arg(directed as i32)
            .arg(pos.dev_ptr()?)
            .arg(row.dev_ptr_mut()?)
            .arg(col.dev_ptr_mut()?)
            .arg(data.dev_ptr_mut()?)
            .run()?;
    }
    Ok(CooMatrix {
        data,
        row,
        col,
        shape: (n, n),
    })
}

/// Blocked Floyd–Warshall on the dense graph: the start, then per diagonal tile the three
/// phases (one block; the tile row and column; the rest), then the negative-diagonal flag
/// (one wait). Returns the distances, the predecessors when wanted, and `false` for a
/// negative cycle.
pub(crate) fn floyd_warshall<T: RealFloat>(
    d: &CudaDevice,
    dense: &Array<T>,
    directed: bool,
    unweighted: bool,
    want_p: bool,
) -> Result<(Array<T>, Option<Array<i32>>, bool)> {
    let n = dense.shape()[0];
    let dev = dense.device();
    let mut dist = Array::<T>::empty(&[n, n], dev)?;
    let mut p = Array::<i32>::empty(&[if want_p { n * n } else { 1 }], dev)?;
    if n == 0 {
        let pred = if want_p {
            Some(p.reshape(&[0, 0])?)
        } else {
            None
        };
        return Ok((dist, pred, true));
    }
    let kernel = |name: &str| f::<T, i32>(d, name);
    d.launch(&kernel("cg_fw_init")?, grid(d, n * n))
        .arg(dense.dev_ptr()?)
        .arg(n as i64)
        .arg(directed as i32)
        .arg(unweighted as i32)
        .arg(want_p as i32)
        .arg(dist.dev_ptr_mut()?)
        .arg(p.dev_ptr_mut()?)
        .run()?;
    let nb = u32::try_from(n.div_ceil(TILE)).map_err(|_| {
        cusci_core::error::make::arg("floyd_warshall", format!("{n} nodes: too many tiles"))
    })?;
    let tile = (TILE as u32, TILE as u32, 1);
    let (p1, p2, p3) = (
        kernel("cg_fw_phase1")?,
        kernel("cg_fw_phase2")?,
        kernel("cg_fw_phase3")?,
    );
    for kb in 0..n.div_ceil(TILE) {
        let k0 = (kb * TILE) as i64;
        for (fun, g) in [(&p1, (1, 1, 1)), (&p2, (nb, 2, 1)), (&p3, (nb, nb, 1))] {
            let cfg = LaunchConfig {
                grid: g,
                block: tile,
                shared_mem_bytes: 0,
            };
            d.launch(fun, cfg)
                .arg(dist.dev_ptr_mut()?)
                .arg(p.dev_ptr_mut()?)
                .arg(n as i64)
                .arg(k0)
                .arg(want_p as i32)
                .run()?;
        }
    }
    let mut flag = Array::<i32>::zeros(&[1], dev)?;
    d.launch(&kernel("cg_fw_negdiag")?, grid(d, n))
        .arg(dist.dev_ptr()?)
        .arg(n as i64)
        .arg(flag.dev_ptr_mut()?)
        .run()?;
    let ok = flag.item()? == 0;
    let pred = if want_p {
        Some(p.reshape(&[n as isize, n as isize])?)
    } else {
        None
    };
    Ok((dist, pred, ok))
}

/// The edges of a search on the GPU: the transpose (in-edges) and, undirected, the graph
/// itself (its row v: edges v → u walked u → v); the weights' options.
struct Edges<'a, T: RealFloat, I: SpIndex> {
    t: &'a CsrMatrix<T, I>,
    g: &'a CsrMatrix<T, I>,
    two: bool,
    unweighted: bool,
    /// Johnson's potentials, or a one-element placeholder.
    h: &'a Array<T>,
    use_h: bool,
    n: usize,
}

/// Bellman–Ford sweeps of `rows` rows of `dist` until a sweep changes nothing: `false` when
/// n + 1 sweeps all change something (a negative cycle). The flags are read every [`BATCH`]
/// sweeps.
fn sweeps<T: RealFloat, I: SpIndex>(
    d: &CudaDevice,
    e: &Edges<'_, T, I>,
    limit: f64,
    dist: &mut Array<T>,
    rows: usize,
) -> Result<bool> {
    let total = rows * e.n;
    if total == 0 {
        return Ok(true);
    }
    let k = f::<T, I>(d, "cg_sssp_sweep")?;
    let mut changing = 0usize;
    loop {
        let mut flags = Array::<i32>::zeros(&[BATCH], e.g.device())?;
        for b in 0..BATCH {
            d.launch(&k, grid(d, total))
                .arg(e.t.indptr.dev_ptr()?)
                .arg(e.t.indices.dev_ptr()?)
                .arg(e.t.data.dev_ptr()?)
                .arg(e.g.indptr.dev_ptr()?)
                .arg(e.g.indices.dev_ptr()?)
                .arg(e.g.data.dev_ptr()?)
                .arg(e.two as i32)
                .arg(e.n as i64)
                .arg(rows as i64)
                .arg(e.unweighted as i32)
                .arg(e.h.dev_ptr()?)
                .arg(e.use_h as i32)
                .arg(limit)
                .arg(dist.dev_ptr_mut()?)
                .arg(flags.dev_ptr_mut()?.add(b)?)
                .run()?;
        }
        let fl = flags.to_vec()?;
        match fl.iter().position(|&x| x == 0) {
            Some(q) => {
                changing += q;
                return Ok(changing <= e.n);
            }
            None => {
                changing += BATCH;
                if changing > e.n {
                    return Ok(false);
                }
            }
        }
    }
}

/// The searches of a plan: Johnson's potentials (sweeps from every node at 0), the sweeps of
/// every row, the predecessor levels, Johnson's correction.
pub(crate) fn sssp<T: RealFloat, I: SpIndex>(
    d: &CudaDevice,
    g: &CsrMatrix<T, I>,
    p: &SsspPlan,
) -> Result<Searched<T>> {
    let n = p.n;
    let dev = g.device();
    let t = g.transposed()?;
    let rows = p.rows.len();
    let total = rows * n;
    let flat: Vec<i64> = p.rows.iter().flatten().map(|&s| s as i64).collect();
    let nsrc = flat.len();
    let sources = Array::<i64>::from_vec(flat, &[nsrc], dev)?;
    let placeholder = Array::<T>::zeros(&[1], dev)?;
    let mut e = Edges {
        t: &t,
        g,
        two: !p.directed,
        unweighted: p.unweighted,
        h: &placeholder,
        use_h: false,
        n,
    };
    let mut h = Array::<T>::zeros(&[n.max(1)], dev)?;
    if p.algo == Sssp::Johnson {
        if !sweeps(d, &e, f64::INFINITY, &mut h, 1)? {
            return Ok(None);
        }
        e.h = &h;
        e.use_h = true;
    }
    let mut dist = Array::<T>::full(&[total], inf::<T>(), dev)?;
    let one_row = p.min_only as i32;
    if nsrc > 0 && n > 0 {
        d.launch(&f::<T, I>(d, "cg_sssp_seed")?, grid(d, nsrc))
            .arg(dist.dev_ptr_mut()?)
            .arg(n as i64)
            .arg(sources.dev_ptr()?)
            .arg(nsrc as i64)
            .arg(one_row)
            .run()?;
    }
    if !sweeps(d, &e, p.limit, &mut dist, rows)? {
        return Ok(None);
    }
    let preds = if p.want_pred {
        let mut hops = Array::<i32>::full(&[total], -1, dev)?;
        let mut pred = Array::<i32>::full(&[total], super::NULL_IDX, dev)?;
        let mut src = Array::<i32>::full(&[total], super::NULL_IDX, dev)?;
        if nsrc > 0 && n > 0 {
            d.launch(&f::<T, I>(d, "cg_sssp_seed_hops")?, grid(d, nsrc))
                .arg(hops.dev_ptr_mut()?)
                .arg(src.dev_ptr_mut()?)
                .arg(n as i64)
                .arg(sources.dev_ptr()?)
                .arg(nsrc as i64)
                .arg(one_row)
                .run()?;
            let k = f::<T, I>(d, "cg_sssp_level")?;
            let mut level = 0i32;
            'levels: loop {
                let mut found = Array::<i32>::zeros(&[BATCH], dev)?;
                for b in 0..BATCH {
                    d.launch(&k, grid(d, total))
                        .arg(e.t.indptr.dev_ptr()?)
                        .arg(e.t.indices.dev_ptr()?)
                        .arg(e.t.data.dev_ptr()?)
                        .arg(e.g.indptr.dev_ptr()?)
                        .arg(e.g.indices.dev_ptr()?)
                        .arg(e.g.data.dev_ptr()?)
                        .arg(e.two as i32)
                        .arg(n as i64)
                        .arg(rows as i64)
                        .arg(e.unweighted as i32)
                        .arg(e.h.dev_ptr()?)
                        .arg(e.use_h as i32)
                        .arg(dist.dev_ptr()?)
                        .arg(hops.dev_ptr_mut()?)
                        .arg(pred.dev_ptr_mut()?)
                        .arg(src.dev_ptr_mut()?)
                        .arg(level + b as i32)
                        .arg(found.dev_ptr_mut()?.add(b)?)
                        .run()?;
                }
                level += BATCH as i32;
                if found.to_vec()?.contains(&0) || level as usize > n {
                    break 'levels;
                }
            }
        }
        Some((pred, src))
    } else {
        None
    };
    if e.use_h && total > 0 {
        d.launch(&f::<T, I>(d, "cg_johnson_fix")?, grid(d, total))
            .arg(dist.dev_ptr_mut()?)
            .arg(h.dev_ptr()?)
            .arg(sources.dev_ptr()?)
            .arg(n as i64)
            .arg(rows as i64)
            .run()?;
    }
    Ok(Some(match preds {
        Some((pr, sr)) => (dist, Some(pr), Some(sr)),
        None => (dist, None, None),
    }))
}

/// A traversal from `start` on the GPU (`t`: the transpose for an undirected graph): the order
/// (the nodes reached) and the predecessors. Breadth-first: claim, count, scan, write per
/// level, one wait per level; depth-first: one thread, one wait for the count.
pub(crate) fn traverse<T: RealFloat, I: SpIndex>(
    d: &CudaDevice,
    g: &CsrMatrix<T, I>,
    t: Option<&CsrMatrix<T, I>>,
    start: usize,
    order: Order,
) -> Result<(Array<i32>, Array<i32>)> {
    let n = g.shape.0;
    let dev = g.device();
    let (tt, two) = match t {
        Some(t) => (t, 1i32),
        None => (g, 0i32),
    };
    let mut ord = Array::<i32>::full(&[n], -1, dev)?;
    let mut pred = Array::<i32>::full(&[n], super::NULL_IDX, dev)?;
    let reached = match order {
        Order::Depth => {
            let mut seen = Array::<i32>::zeros(&[n], dev)?;
            let mut stack = Array::<i64>::empty(&[n], dev)?;
            let mut count = Array::<i64>::zeros(&[1], dev)?;
            d.launch(&f::<T, I>(d, "cg_dfs")?, LaunchConfig::linear(1, 1))
                .arg(g.indptr.dev_ptr()?)
                .arg(g.indices.dev_ptr()?)
                .arg(tt.indptr.dev_ptr()?)
                .arg(tt.indices.dev_ptr()?)
                .arg(two)
                .arg(n as i64)
                .arg(start as i64)
                .arg(seen.dev_ptr_mut()?)
                .arg(stack.dev_ptr_mut()?)
                .arg(ord.dev_ptr_mut()?)
                .arg(pred.dev_ptr_mut()?)
                .arg(count.dev_ptr_mut()?)
                .run()?;
            count.item()? as usize
        }
        Order::Breadth => {
            if g.nnz().saturating_mul(2) >= 1usize << 32 {
                return Err(cusci_core::error::make::arg(
                    "breadth_first_order",
                    "the GPU's claims hold a list position in 32 bits: at most 2^31 stored entries",
                ));
            }
            let mut level = Array::<i32>::full(&[n], -1, dev)?;
            // u64 keys, all ones (the largest) to start: an i64 array of -1
            let mut key = Array::<i64>::full(&[n], -1, dev)?;
            d.launch(&f::<T, I>(d, "cg_bfs_seed")?, LaunchConfig::linear(1, 1))
                .arg(ord.dev_ptr_mut()?)
                .arg(level.dev_ptr_mut()?)
                .arg(start as i64)
                .run()?;
            let (claim, count, write) = (
                f::<T, I>(d, "cg_bfs_claim")?,
                f::<T, I>(d, "cg_bfs_count")?,
                f::<T, I>(d, "cg_bfs_write")?,
            );
            let (mut f0, mut fr, mut lv) = (0usize, 1usize, 0i32);
            while fr > 0 {
                let cfg = grid(d, fr);
                d.launch(&claim, cfg)
                    .arg(ord.dev_ptr()?)
                    .arg(f0 as i64)
                    .arg(fr as i64)
                    .arg(g.indptr.dev_ptr()?)
                    .arg(g.indices.dev_ptr()?)
                    .arg(tt.indptr.dev_ptr()?)
                    .arg(tt.indices.dev_ptr()?)
                    .arg(two)
                    .arg(level.dev_ptr()?)
                    .arg(key.dev_ptr_mut()?)
                    .run()?;
                let mut counts = Array::<I>::zeros(&[fr + 1], dev)?;
                d.launch(&count, cfg)
                    .arg(ord.dev_ptr()?)
                    .arg(f0 as i64)
                    .arg(fr as i64)
                    .arg(g.indptr.dev_ptr()?)
                    .arg(g.indices.dev_ptr()?)
                    .arg(tt.indptr.dev_ptr()?)
                    .arg(tt.indices.dev_ptr()?)
                    .arg(two)
                    .arg(level.dev_ptr()?)
                    .arg(key.dev_ptr()?)
                    .arg(counts.dev_ptr_mut()?)
                    .run()?;
                let offs = counts.cumsum(0)?;
                let next = last(&offs)?;
                if next > 0 {
                    d.launch(&write, cfg)
                        .arg(ord.dev_ptr_mut()?)
                        .arg(f0 as i64)
                        .arg(fr as i64)
                        .arg(g.indptr.dev_ptr()?)
                        .arg(g.indices.dev_ptr()?)
                        .arg(tt.indptr.dev_ptr()?)
                        .arg(tt.indices.dev_ptr()?)
                        .arg(two)
                        .arg(level.dev_ptr_mut()?)
                        .arg(key.dev_ptr()?)
                        .arg(offs.dev_ptr()?)
                        .arg(pred.dev_ptr_mut()?)
                        .arg(lv + 1)
                        .run()?;
                }
                f0 += fr;
                fr = next;
                lv += 1;
            }
            f0
        }
    };
    let ord = ord
        .slice_axis(0, Some(0), Some(reached as isize), 1)?
        .contiguous()?;
    Ok((ord, pred))
}

/// Borůvka's minimum spanning forest under the order (weight key, position): rounds of
/// best-key, best-position, hook and jump kernels until a round adds no entry (one flag read
/// per round), then the kept nonzero entries by count, scan, write.
pub(crate) fn boruvka<T: RealFloat, I: SpIndex>(
    d: &CudaDevice,
    g: &CsrMatrix<T, I>,
) -> Result<CsrMatrix<T, I>> {
    let n = g.shape.0;
    let dev = g.device();
    let nnz = g.nnz();
    if n == 0 {
        return CsrMatrix::from_host(vec![I::of(0)], vec![], vec![], (0, 0), true, dev);
    }
    let mut rows = Array::<I>::empty(&[nnz.max(1)], dev)?;
    let mut comp = Array::<I>::empty(&[n], dev)?;
    let mut parent = Array::<I>::empty(&[n], dev)?;
    let mut intree = Array::<I>::zeros(&[nnz.max(1)], dev)?;
    let mut bw = Array::<i64>::empty(&[n], dev)?;
    let mut bp = Array::<i64>::empty(&[n], dev)?;
    let cfg = grid(d, n);
    let k = |name: &str| f::<T, I>(d, name);
    d.launch(&k("cg_mst_init")?, cfg)
        .arg(g.indptr.dev_ptr()?)
        .arg(n as i64)
        .arg(rows.dev_ptr_mut()?)
        .arg(comp.dev_ptr_mut()?)
        .arg(parent.dev_ptr_mut()?)
        .run()?;
    let (reset, minw, minp, hook, jump) = (
        k("cg_mst_reset")?,
        k("cg_mst_minw")?,
        k("cg_mst_minp")?,
        k("cg_mst_hook")?,
        k("cg_mst_jump")?,
    );
    loop {
        let mut flag = Array::<i32>::zeros(&[1], dev)?;
        d.launch(&reset, cfg)
            .arg(bw.dev_ptr_mut()?)
            .arg(bp.dev_ptr_mut()?)
            .arg(n as i64)
            .run()?;
        d.launch(&minw, cfg)
            .arg(g.indptr.dev_ptr()?)
            .arg(g.indices.dev_ptr()?)
            .arg(g.data.dev_ptr()?)
            .arg(n as i64)
            .arg(comp.dev_ptr()?)
            .arg(bw.dev_ptr_mut()?)
            .run()?;
        d.launch(&minp, cfg)
            .arg(g.indptr.dev_ptr()?)
            .arg(g.indices.dev_ptr()?)
            .arg(g.data.dev_ptr()?)
            .arg(n as i64)
            .arg(comp.dev_ptr()?)
            .arg(bw.dev_ptr()?)
            .arg(bp.dev_ptr_mut()?)
            .run()?;
        d.launch(&hook, cfg)
            .arg(rows.dev_ptr()?)
            .arg(g.indices.dev_ptr()?)
            .arg(n as i64)
            .arg(comp.dev_ptr()?)
            .arg(bp.dev_ptr()?)
            .arg(parent.dev_ptr_mut()?)
            .arg(intree.dev_ptr_mut()?)
            .arg(flag.dev_ptr_mut()?)
            .run()?;
        d.launch(&jump, cfg)
            .arg(comp.dev_ptr_mut()?)
            .arg(parent.dev_ptr()?)
            .arg(n as i64)
            .run()?;
        if flag.item()? == 0 {
            break;
        }
    }
    let (ip, ind, dat) = count_scan_write::<T, I>(
        d,
        &CSGRAPH,
        n,
        (
            "cg_mst_count",
            &[
                Arg::Idx(g.indptr.dev_ptr()?),
                Arg::Idx(intree.dev_ptr()?),
                Arg::Val(g.data.dev_ptr()?),
            ],
        ),
        (
            "cg_mst_write",
            &[
                Arg::Idx(g.indptr.dev_ptr()?),
                Arg::Idx(g.indices.dev_ptr()?),
                Arg::Val(g.data.dev_ptr()?),
                Arg::Idx(intree.dev_ptr()?),
            ],
        ),
    )?;
    Ok(CsrMatrix::from_parts(dat, ind, ip, (n, n), g.canonical))
}

/// Reverse Cuthill–McKee on the GPU: the degrees in parallel, then the one-thread kernel.
pub(crate) fn rcm<T: RealFloat, I: SpIndex>(
    d: &CudaDevice,
    g: &CsrMatrix<T, I>,
) -> Result<Array<i32>> {
    let n = g.shape.0;
    let dev = g.device();
    let mut order = Array::<i32>::zeros(&[n], dev)?;
    if n == 0 {
        return Ok(order);
    }
    let mut deg = Array::<i32>::empty(&[n], dev)?;
    d.launch(&f::<T, I>(d, "cg_rcm_degree")?, grid(d, n))
        .arg(g.indptr.dev_ptr()?)
        .arg(g.indices.dev_ptr()?)
        .arg(n as i64)
        .arg(deg.dev_ptr_mut()?)
        .run()?;
    // a degree is at most the row's length plus one
    let dmax = g.nnz() + 1;
    let mut cnt = Array::<i32>::zeros(&[dmax + 2], dev)?;
    let mut seeds = Array::<i32>::empty(&[n], dev)?;
    let mut seen = Array::<i32>::zeros(&[n], dev)?;
    d.launch(&f::<T, I>(d, "cg_rcm")?, LaunchConfig::linear(1, 1))
        .arg(g.indptr.dev_ptr()?)
        .arg(g.indices.dev_ptr()?)
        .arg(n as i64)
        .arg(deg.dev_ptr()?)
        .arg(dmax as i64)
        .arg(cnt.dev_ptr_mut()?)
        .arg(seeds.dev_ptr_mut()?)
        .arg(seen.dev_ptr_mut()?)
        .arg(order.dev_ptr_mut()?)
        .run()?;
    Ok(order)
}

/// The size of a maximum matching of the pattern (indptr, indices) with `ncols` columns: the
/// one-thread kernel, one read.
pub(crate) fn max_matching<I: SpIndex>(
    d: &CudaDevice,
    indptr: &Array<I>,
    indices: &Array<I>,
    ncols: usize,
) -> Result<usize> {
    let m = indptr.len() - 1;
    let dev = indptr.device();
    let mut matchc = Array::<i64>::full(&[ncols], -1, dev)?;
    let mut stamp = Array::<i64>::zeros(&[ncols], dev)?;
    let mut srow = Array::<i64>::empty(&[m.max(1)], dev)?;
    let mut spos = Array::<i64>::empty(&[m.max(1)], dev)?;
    let mut size = Array::<i64>::zeros(&[1], dev)?;
    d.launch(&f::<f64, I>(d, "cg_matching")?, LaunchConfig::linear(1, 1))
        .arg(indptr.dev_ptr()?)
        .arg(indices.dev_ptr()?)
        .arg(m as i64)
        .arg(matchc.dev_ptr_mut()?)
        .arg(stamp.dev_ptr_mut()?)
        .arg(srow.dev_ptr_mut()?)
        .arg(spos.dev_ptr_mut()?)
        .arg(size.dev_ptr_mut()?)
        .run()?;
    Ok(size.item()? as usize)
}
