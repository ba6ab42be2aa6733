//! The CPU side of `csgraph`: union–find and Tarjan's components, the dense conversions, the
//! Laplacian's entries, path reconstruction, and the shortest paths (blocked Floyd–Warshall,
//! label-correcting Dijkstra, Bellman–Ford sweeps, the predecessor rule). Every routine gives
//! the same bits as the GPU's kernels: the same operations on the same operands in the same
//! order (additions, subtractions and comparisons only, no fused multiply–add).

use super::{inf, is_inf, is_nan, nan, one, zero, NULL_IDX as NULL};
use crate::SpIndex;
use cusci_core::RealFloat;
use rayon::prelude::*;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// The weak components of the graph of the CSR structure (ip, ind) by union–find (the
/// smaller node is the root): the count and the labels, numbered by the smallest node.
pub(crate) fn union_find<I: SpIndex>(ip: &[I], ind: &[I]) -> (usize, Vec<i32>) {
    let n = ip.len().saturating_sub(1);
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for r in 0..n {
        for &c in &ind[ip[r].ix()..ip[r + 1].ix()] {
            let (a, b) = (find(&mut parent, r), find(&mut parent, c.ix()));
            // the smaller index is the root: roots are the components' smallest nodes
            if a < b {
                parent[b] = a;
            } else if b < a {
                parent[a] = b;
            }
        }
    }
    let mut id = vec![-1i32; n];
    let mut k = 0;
    let mut labels = vec![0i32; n];
    for (i, l) in labels.iter_mut().enumerate() {
        let r = find(&mut parent, i);
        if id[r] < 0 {
            id[r] = k;
            k += 1;
        }
        *l = id[r];
    }
    (k as usize, labels)
}

/// Numbers the components given by a representative per node (`rep[v]`, any node of v's
/// component) by their smallest node: the count and the labels.
pub(crate) fn number_by_smallest(rep: &[usize]) -> (usize, Vec<i32>) {
    let n = rep.len();
    let mut min = vec![usize::MAX; n];
    for (v, &r) in rep.iter().enumerate() {
        min[r] = min[r].min(v);
    }
    let mut id = vec![-1i32; n];
    let mut k = 0;
    let labels = rep
        .iter()
        .map(|&r| {
            let s = min[r];
            if id[s] < 0 {
                id[s] = k;
                k += 1;
            }
            id[s]
        })
        .collect();
    (k as usize, labels)
}

/// Tarjan's strongly connected components, iterative: the representative of every node.
pub(crate) fn tarjan<I: SpIndex>(ip: &[I], ind: &[I]) -> Vec<usize> {
    let n = ip.len() - 1;
    const NONE: usize = usize::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0usize; n];
    let mut on = vec![false; n];
    let mut stack = Vec::new();
    let mut rep = vec![NONE; n];
    let mut next = 0usize;
    // call stack of (node, next edge position)
    let mut calls: Vec<(usize, usize)> = Vec::new();
    for s in 0..n {
        if index[s] != NONE {
            continue;
        }
        calls.push((s, ip[s].ix()));
        index[s] = next;
        low[s] = next;
        next += 1;
        stack.push(s);
        on[s] = true;
        while let Some(&mut (v, ref mut e)) = calls.last_mut() {
            if *e < ip[v + 1].ix() {
                let w = ind[*e].ix();
                *e += 1;
                if index[w] == NONE {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on[w] = true;
                    calls.push((w, ip[w].ix()));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                calls.pop();
                if let Some(&(u, _)) = calls.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on[w] = false;
                        rep[w] = v;
                        if w == v {
                            break;
                        }
                    }
                }
            }
        }
    }
    rep
}

/// `csgraph_to_dense` of an `m x n` CSR structure: at each position with stored entries the
/// smallest of ∞ and their values (NaN values never win; of equal values the first is kept),
/// `null` where none is stored. Each row starts as NaN ("no entry yet"), which no written value
/// can be.
pub(crate) fn to_dense<T: RealFloat, I: SpIndex>(
    n: usize,
    ip: &[I],
    ind: &[I],
    val: &[T],
    null: T,
) -> Vec<T> {
    let mut out = vec![nan::<T>(); ip.len().saturating_sub(1) * n];
    if n == 0 {
        return out;
    }
    out.par_chunks_mut(n).enumerate().for_each(|(r, row)| {
        for e in ip[r].ix()..ip[r + 1].ix() {
            let (c, v) = (ind[e].ix(), val[e]);
            // the first entry of a position starts it at inf; NaN values never lower it
            let cur = if is_nan(row[c]) { inf::<T>() } else { row[c] };
            row[c] = if v < cur { v } else { cur };
        }
        for x in row.iter_mut() {
            if is_nan(*x) {
                *x = null;
            }
        }
    });
    out
}

/// Whether a dense value is a non-edge for `csgraph_from_dense`.
#[inline]
pub(crate) fn is_null<T: RealFloat>(x: T, null: T, nan_null: bool, inf_null: bool) -> bool {
    x == null || (nan_null && is_nan(x)) || (inf_null && is_inf(x))
}

/// `csgraph_from_dense` of a row-major `m x n` array: the CSR arrays of its edges (row by row,
/// columns ascending).
pub(crate) fn from_dense<T: RealFloat, I: SpIndex>(
    n: usize,
    a: &[T],
    null: T,
    nan_null: bool,
    inf_null: bool,
) -> (Vec<I>, Vec<I>, Vec<T>) {
    let rows: Vec<&[T]> = if n == 0 {
        Vec::new()
    } else {
        a.chunks(n).collect()
    };
    let counts: Vec<usize> = rows
        .par_iter()
        .map(|r| {
            r.iter()
                .filter(|&&x| !is_null(x, null, nan_null, inf_null))
                .count()
        })
        .collect();
    let mut ip = Vec::with_capacity(rows.len() + 1);
    let mut acc = 0usize;
    ip.push(I::of(0));
    for c in &counts {
        acc += c;
        ip.push(I::of(acc));
    }
    let (mut ind, mut dat) = (Vec::with_capacity(acc), Vec::with_capacity(acc));
    for r in rows {
        for (j, &x) in r.iter().enumerate() {
            if !is_null(x, null, nan_null, inf_null) {
                ind.push(I::of(j));
                dat.push(x);
            }
        }
    }
    (ip, ind, dat)
}

/// The entries of the Laplacian of the CSR structure (ip, ind, val) with degrees `w`, row by
/// row: each off-diagonal entry negated (normed: divided by s[row], then by s[col], then
/// negated, with s = 1 where w = 0 and √w elsewhere), then the diagonal entry (w; normed: 1, or
/// 0 where w = 0). Stored diagonal entries are dropped (SciPy's `setdiag` replaces them).
/// Returns the CSR arrays (duplicates not summed yet).
pub(crate) fn laplacian_entries<T: RealFloat, I: SpIndex>(
    ip: &[I],
    ind: &[I],
    val: &[T],
    w: &[T],
    normed: bool,
) -> (Vec<I>, Vec<I>, Vec<T>) {
    let n = w.len();
    let s = |x: T| {
        if x == zero::<T>() {
            one::<T>()
        } else {
            cusci_core::Float::sqrt(x)
        }
    };
    let mut oip = Vec::with_capacity(n + 1);
    let mut oind = Vec::with_capacity(val.len() + n);
    let mut odat = Vec::with_capacity(val.len() + n);
    oip.push(I::of(0));
    for r in 0..n {
        for e in ip[r].ix()..ip[r + 1].ix() {
            let c = ind[e].ix();
            if c == r {
                continue;
            }
            let v = if normed {
                -((val[e] / s(w[r])) / s(w[c]))
            } else {
                -val[e]
            };
            oind.push(I::of(c));
            odat.push(v);
        }
        oind.push(I::of(r));
        odat.push(match (normed, w[r] == zero::<T>()) {
            (true, true) => zero::<T>(),
            (true, false) => one::<T>(),
            (false, _) => w[r],
        });
        oip.push(I::of(oind.len()));
    }
    (oip, oind, odat)
}

/// `construct_dist_matrix`: each distance summed from j back to i along the predecessors
/// (SciPy's loop) over the dense graph `g` (`inf` where no edge; undirected: zeros made `inf`,
/// then the smaller of `g[i, j]` and `g[j, i]`). `null` where the walk meets a predecessor
/// outside 0..n (-9999 in particular) or does not reach i within n steps.
pub(crate) fn dist_from_pred<T: RealFloat>(
    n: usize,
    g: &[T],
    pred: &[i32],
    directed: bool,
    null: T,
) -> Vec<T> {
    let sym = if directed {
        g.to_vec()
    } else {
        let z = |x: T| if x == zero::<T>() { inf::<T>() } else { x };
        (0..n * n)
            .map(|ij| {
                let (i, j) = (ij / n, ij % n);
                let (a, b) = (z(g[ij]), z(g[j * n + i]));
                if b <= a {
                    b
                } else {
                    a
                }
            })
            .collect()
    };
    let mut out = vec![zero::<T>(); n * n];
    if n == 0 {
        return out;
    }
    out.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
        for (j, o) in row.iter_mut().enumerate() {
            let mut acc = zero::<T>();
            let mut k2 = j;
            let mut steps = 0;
            while k2 != i {
                let k1 = pred[i * n + k2];
                if k1 < 0 || k1 as usize >= n || steps == n {
                    acc = null;
                    break;
                }
                let k1 = k1 as usize;
                acc = acc + sym[k1 * n + k2];
                k2 = k1;
                steps += 1;
            }
            *o = acc;
        }
    });
    out
}

/// The sum of the entries stored at (u, j) of a CSR structure (0 when none), in stored order.
#[inline]
pub(crate) fn entry<T: RealFloat, I: SpIndex>(
    ip: &[I],
    ind: &[I],
    val: &[T],
    u: usize,
    j: usize,
) -> T {
    let mut acc = zero::<T>();
    for e in ip[u].ix()..ip[u + 1].ix() {
        if ind[e].ix() == j {
            acc = acc + val[e];
        }
    }
    acc
}

/// `reconstruct_path`: the tree edges (pred[j], j) for every j whose predecessor is in 0..n, in
/// the order of j, as COO triplets, with SciPy's weights: `csgraph[pred[j], j]` (duplicates
/// summed, 0 when not stored); undirected: the smaller of that and `csgraph[j, pred[j]]`, each
/// taken as `inf` when 0.
pub(crate) fn tree_edges<T: RealFloat, I: SpIndex>(
    ip: &[I],
    ind: &[I],
    val: &[T],
    pred: &[i32],
    directed: bool,
) -> (Vec<I>, Vec<I>, Vec<T>) {
    let n = pred.len();
    let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    for (j, &p) in pred.iter().enumerate() {
        if p < 0 || p as usize >= n {
            continue;
        }
        let u = p as usize;
        let d1 = entry(ip, ind, val, u, j);
        let w = if directed {
            d1
        } else {
            let z = |x: T| if x == zero::<T>() { inf::<T>() } else { x };
            let (a, b) = (z(d1), z(entry(ip, ind, val, j, u)));
            if b < a {
                b
            } else {
                a
            }
        };
        r.push(I::of(u));
        c.push(I::of(j));
        v.push(w);
    }
    (r, c, v)
}

// ------------------------------------------------------------------------------------------
// Shortest paths

/// One CSR structure on the host.
#[derive(Clone, Copy)]
pub(crate) struct Csr<'a, T, I> {
    pub ip: &'a [I],
    pub ind: &'a [I],
    pub val: &'a [T],
}

/// The graph of a shortest-path search on the host: the edges u → v of `fwd`, with
/// undirected graphs also those of `rev` (the transpose: its row u holds the edges v → u,
/// walked from u to v); the weight of an entry w is 1 when `unweighted`, then
/// `w + (h[u] − h[v])` with Johnson's potentials `h`. Candidates above `limit` are refused.
pub(crate) struct Graph<'a, T, I> {
    pub n: usize,
    pub fwd: Csr<'a, T, I>,
    pub rev: Option<Csr<'a, T, I>>,
    pub unweighted: bool,
    pub h: Option<&'a [T]>,
    pub limit: f64,
}

impl<T: RealFloat, I: SpIndex> Graph<'_, T, I> {
    /// The weight of a stored value w on the walk u → v.
    #[inline]
    fn weight(&self, w: T, u: usize, v: usize) -> T {
        let x = if self.unweighted { one::<T>() } else { w };
        match self.h {
            Some(h) => x + (h[u] - h[v]),
            None => x,
        }
    }

    /// `f(v, weight)` for every edge out of u (parallel edges each once).
    #[inline]
    fn out_edges(&self, u: usize, mut f: impl FnMut(usize, T)) {
        for part in std::iter::once(&self.fwd).chain(self.rev.as_ref()) {
            for e in part.ip[u].ix()..part.ip[u + 1].ix() {
                let v = part.ind[e].ix();
                f(v, self.weight(part.val[e], u, v));
            }
        }
    }

    /// Whether a candidate distance is accepted (better, and within the limit).
    #[inline]
    fn accept(&self, cand: T, cur: T) -> bool {
        cand < cur && cand.to_f64() <= self.limit
    }

    fn edges(&self) -> usize {
        self.fwd.val.len() + self.rev.map_or(0, |r| r.val.len())
    }
}

/// A node on the heap, ordered by distance (smallest first), then by node.
struct Item<T>(T, usize);

impl<T: RealFloat> PartialEq for Item<T> {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl<T: RealFloat> Eq for Item<T> {}
impl<T: RealFloat> PartialOrd for Item<T> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<T: RealFloat> Ord for Item<T> {
    fn cmp(&self, o: &Self) -> Ordering {
        // reversed: BinaryHeap is a max-heap
        o.0.partial_cmp(&self.0)
            .unwrap_or(Ordering::Equal)
            .then(o.1.cmp(&self.1))
    }
}

/// Bellman–Ford sweeps (Gauss–Seidel: nodes in order, each relaxing its out-edges) from the
/// current distances until a sweep changes nothing. `false` when the n + 1-th sweep still
/// changes something: a negative cycle reachable from the sources.
pub(crate) fn sweeps<T: RealFloat, I: SpIndex>(g: &Graph<'_, T, I>, dist: &mut [T]) -> bool {
    for _ in 0..=g.n {
        let mut changed = false;
        for u in 0..g.n {
            let du = dist[u];
            if du.partial_cmp(&inf::<T>()) != Some(Ordering::Less) {
                continue;
            }
            g.out_edges(u, |v, w| {
                let cand = du + w;
                if g.accept(cand, dist[v]) {
                    dist[v] = cand;
                    changed = true;
                }
            });
        }
        if !changed {
            return true;
        }
    }
    false
}

/// Label-correcting Dijkstra from the current distances (sources at 0): a binary heap, stale
/// entries skipped, a node pushed again whenever it improves (so negative edges give the exact
/// distances too). After 8 (n + edges) + 64 pops it finishes with [`sweeps`] (which detect
/// negative cycles). Both reach the unique fixed point: for each node the smallest
/// floating-point sum, added from the source, over the walks whose every prefix is within the
/// limit. `false` for a negative cycle.
pub(crate) fn label_correcting<T: RealFloat, I: SpIndex>(
    g: &Graph<'_, T, I>,
    dist: &mut [T],
) -> bool {
    let mut heap: BinaryHeap<Item<T>> = dist
        .iter()
        .enumerate()
        .filter(|(_, d)| **d < inf::<T>())
        .map(|(u, &d)| Item(d, u))
        .collect();
    let mut budget = 8 * (g.n + g.edges()) + 64;
    while let Some(Item(d, u)) = heap.pop() {
        if budget == 0 {
            return sweeps(g, dist);
        }
        budget -= 1;
        if d > dist[u] {
            continue;
        }
        g.out_edges(u, |v, w| {
            let cand = d + w;
            if g.accept(cand, dist[v]) {
                dist[v] = cand;
                heap.push(Item(cand, v));
            }
        });
    }
    true
}

/// The predecessors (and, for several sources, the source of each node) of final distances:
/// the breadth-first levels of the tight edges (u → v with `dist[u] + w == dist[v]`) from the
/// sources give each reached node its fewest edges among its shortest paths, h(v); the
/// predecessor of v is the smallest u with a tight edge u → v and h(u) = h(v) − 1. The
/// predecessors form a tree (h falls along it) and the rule does not depend on the order of
/// any loop, so the GPU's level kernel gives the same.
pub(crate) fn predecessors<T: RealFloat, I: SpIndex>(
    g: &Graph<'_, T, I>,
    dist: &[T],
    sources: &[usize],
    pred: &mut [i32],
    src: &mut [i32],
) {
    let n = g.n;
    let mut hops = vec![-1i64; n];
    pred.fill(NULL);
    src.fill(NULL);
    let mut frontier = Vec::new();
    for &s in sources {
        if hops[s] < 0 {
            hops[s] = 0;
            src[s] = s as i32;
            frontier.push(s);
        }
    }
    let mut level = 0i64;
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for &u in &frontier {
            let du = dist[u];
            g.out_edges(u, |v, w| {
                if (hops[v] == -1 || hops[v] == level + 1)
                    && dist[v] < inf::<T>()
                    && du + w == dist[v]
                {
                    if hops[v] == -1 {
                        hops[v] = level + 1;
                        pred[v] = u as i32;
                        next.push(v);
                    } else if (u as i32) < pred[v] {
                        pred[v] = u as i32;
                    }
                }
            });
        }
        for &v in &next {
            src[v] = src[pred[v] as usize];
        }
        frontier = next;
        level += 1;
    }
}

/// The side of the tiles of the blocked Floyd–Warshall (the GPU's thread blocks are 32 x 32).
pub(crate) const FW_TILE: usize = 32;

/// Blocked Floyd–Warshall in place on the row-major n x n distances `d` (and predecessors `p`
/// when `want_p`): for each diagonal tile, (1) the tile itself, (2) its tile row and column,
/// (3) every other tile, each element relaxed through the tile's k in ascending order —
/// exactly the GPU's phases, so both give the same bits. A relaxation replaces d[i, j] (and
/// takes p[k, j]) only when d[i, k] + d[k, j] is strictly smaller. Returns `false` when a
/// diagonal element ends negative (a negative cycle).
pub(crate) fn floyd_warshall<T: RealFloat>(
    n: usize,
    d: &mut [T],
    p: &mut [i32],
    want_p: bool,
) -> bool {
    let b = FW_TILE;
    for k0 in (0..n).step_by(b) {
        let k1 = (k0 + b).min(n);
        let mut relax = |i: usize, j: usize, k: usize| {
            let cand = d[i * n + k] + d[k * n + j];
            if cand < d[i * n + j] {
                d[i * n + j] = cand;
                if want_p {
                    p[i * n + j] = p[k * n + j];
                }
            }
        };
        // phase 1: the diagonal tile
        for k in k0..k1 {
            for i in k0..k1 {
                for j in k0..k1 {
                    relax(i, j, k);
                }
            }
        }
        // phase 2, row tiles: rows k0..k1, the other columns, through the final diagonal tile
        for k in k0..k1 {
            for i in k0..k1 {
                for j in (0..k0).chain(k1..n) {
                    relax(i, j, k);
                }
            }
        }
        // the rows k0..k1 are final for this round: copy them, then the other rows in parallel
        let top: Vec<T> = d[k0 * n..k1 * n].to_vec();
        let ptop: Vec<i32> = if want_p {
            p[k0 * n..k1 * n].to_vec()
        } else {
            Vec::new()
        };
        type Row<'r, T> = (usize, (&'r mut [T], &'r mut [i32]));
        let rows: Vec<Row<'_, T>> = if want_p {
            d.chunks_mut(n.max(1))
                .zip(p.chunks_mut(n.max(1)))
                .enumerate()
                .filter(|(i, _)| *i < k0 || *i >= k1)
                .collect()
        } else {
            d.chunks_mut(n.max(1))
                .zip(std::iter::repeat_with(|| &mut [][..]))
                .enumerate()
                .filter(|(i, _)| *i < k0 || *i >= k1)
                .collect()
        };
        rows.into_par_iter().for_each(|(_, (row, prow))| {
            // phase 2, column tile: columns k0..k1 through the diagonal tile
            for k in k0..k1 {
                let dik = row[k];
                let rk = &top[(k - k0) * n..(k - k0 + 1) * n];
                for j in k0..k1 {
                    let cand = dik + rk[j];
                    if cand < row[j] {
                        row[j] = cand;
                        if want_p {
                            prow[j] = ptop[(k - k0) * n + j];
                        }
                    }
                }
            }
            // phase 3: the other columns, tile by tile
            for j0 in (0..n).step_by(b).filter(|&j0| j0 != k0) {
                let j1 = (j0 + b).min(n);
                for k in k0..k1 {
                    let dik = row[k];
                    let rk = &top[(k - k0) * n..(k - k0 + 1) * n];
                    for j in j0..j1 {
                        let cand = dik + rk[j];
                        if cand < row[j] {
                            row[j] = cand;
                            if want_p {
                                prow[j] = ptop[(k - k0) * n + j];
                            }
                        }
                    }
                }
            }
        });
    }
    (0..n).all(|i| d[i * n + i].partial_cmp(&zero::<T>()) != Some(Ordering::Less))
}

/// Floyd–Warshall's start: `a` (the dense graph, `inf` where no edge), undirected: the smaller
/// of a[i, j] and a[j, i]; unweighted: every value that is not infinite becomes 1; the
/// diagonal 0. Predecessors: i where a finite edge i → j exists (i ≠ j), else -9999.
pub(crate) fn fw_init<T: RealFloat>(
    n: usize,
    a: &[T],
    directed: bool,
    unweighted: bool,
    want_p: bool,
) -> (Vec<T>, Vec<i32>) {
    let d: Vec<T> = (0..n * n)
        .into_par_iter()
        .map(|ij| {
            let (i, j) = (ij / n, ij % n);
            fw_start(a[ij], a[j * n + i], i == j, directed, unweighted)
        })
        .collect();
    let p = if want_p {
        (0..n * n)
            .into_par_iter()
            .map(|ij| {
                let (i, j) = (ij / n, ij % n);
                if i != j && d[ij] < inf::<T>() {
                    i as i32
                } else {
                    NULL
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    (d, p)
}

/// One element of [`fw_init`]: x = a[i, j], y = a[j, i].
#[inline]
fn fw_start<T: RealFloat>(x: T, y: T, diag: bool, directed: bool, unweighted: bool) -> T {
    if diag {
        return zero::<T>();
    }
    let v = if !directed && y < x { y } else { x };
    if unweighted && !is_inf(v) {
        one::<T>()
    } else {
        v
    }
}

// ------------------------------------------------------------------------------------------
// Traversals

/// The neighbours of u in SciPy's order: its row of `fwd`, then (undirected) its row of `rev`,
/// each in stored order.
#[inline]
fn neighbours<'a, I: SpIndex>(
    fwd: (&'a [I], &'a [I]),
    rev: Option<(&'a [I], &'a [I])>,
    u: usize,
) -> impl Iterator<Item = usize> + 'a {
    let a = fwd.1[fwd.0[u].ix()..fwd.0[u + 1].ix()].iter();
    let b = rev
        .map(|(ip, ind)| &ind[ip[u].ix()..ip[u + 1].ix()])
        .unwrap_or(&[])
        .iter();
    a.chain(b).map(|x| x.ix())
}

/// Breadth-first order from `start` (a queue; neighbours in SciPy's order): the nodes reached
/// and the predecessors (the first node to reach each).
pub(crate) fn bfs<I: SpIndex>(
    n: usize,
    fwd: (&[I], &[I]),
    rev: Option<(&[I], &[I])>,
    start: usize,
) -> (Vec<i32>, Vec<i32>) {
    let mut pred = vec![NULL; n];
    let mut seen = vec![false; n];
    let mut order = vec![start as i32];
    seen[start] = true;
    let mut head = 0;
    while head < order.len() {
        let u = order[head] as usize;
        head += 1;
        for v in neighbours(fwd, rev, u) {
            if !seen[v] {
                seen[v] = true;
                pred[v] = u as i32;
                order.push(v as i32);
            }
        }
    }
    (order, pred)
}

/// Depth-first order from `start`, SciPy's loop: the top of the stack descends to its first
/// unvisited neighbour (SciPy's order), or is popped when it has none.
pub(crate) fn dfs<I: SpIndex>(
    n: usize,
    fwd: (&[I], &[I]),
    rev: Option<(&[I], &[I])>,
    start: usize,
) -> (Vec<i32>, Vec<i32>) {
    let mut pred = vec![NULL; n];
    let mut seen = vec![false; n];
    let mut order = vec![start as i32];
    let mut stack = vec![start];
    seen[start] = true;
    while let Some(&u) = stack.last() {
        match neighbours(fwd, rev, u).find(|&v| !seen[v]) {
            Some(v) => {
                seen[v] = true;
                pred[v] = u as i32;
                order.push(v as i32);
                stack.push(v);
            }
            None => {
                stack.pop();
            }
        }
        if order.len() == n {
            break;
        }
    }
    (order, pred)
}

// ------------------------------------------------------------------------------------------
// Minimum spanning tree

/// The order of a weight in the spanning tree's sort, as a `u64` (the GPU's key): -0 as +0,
/// every NaN as one NaN above +∞, then the sign-magnitude bits made monotone.
#[inline]
pub(crate) fn weight_key<T: RealFloat>(w: T) -> u64 {
    let x = w.to_f64();
    let x = if x == 0.0 {
        0.0
    } else if x.is_nan() {
        f64::NAN
    } else {
        x
    };
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// SciPy's Kruskal: the stored entries taken by (weight, position) — a stable sort of the
/// values — each kept when its ends are not joined yet; stops after n − 1. Returns which
/// entries are kept.
pub(crate) fn kruskal<T: RealFloat, I: SpIndex>(ip: &[I], ind: &[I], val: &[T]) -> Vec<bool> {
    let n = ip.len() - 1;
    let mut rows = vec![0usize; val.len()];
    for r in 0..n {
        rows[ip[r].ix()..ip[r + 1].ix()].fill(r);
    }
    let mut order: Vec<usize> = (0..val.len()).collect();
    order.par_sort_by_key(|&e| (weight_key(val[e]), e));
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mut keep = vec![false; val.len()];
    let mut taken = 0usize;
    for e in order {
        if taken + 1 >= n {
            break;
        }
        let (a, b) = (find(&mut parent, rows[e]), find(&mut parent, ind[e].ix()));
        if a != b {
            parent[a.max(b)] = a.min(b);
            keep[e] = true;
            taken += 1;
        }
    }
    keep
}

// ------------------------------------------------------------------------------------------
// Reverse Cuthill–McKee

/// SciPy's node degrees for RCM: the stored entries of the row, plus one when the row stores
/// its diagonal.
#[inline]
pub(crate) fn rcm_degree<I: SpIndex>(ip: &[I], ind: &[I], i: usize) -> usize {
    let row = &ind[ip[i].ix()..ip[i + 1].ix()];
    row.len() + row.iter().any(|&j| j.ix() == i) as usize
}

/// SciPy's reverse Cuthill–McKee on the CSR structure (ip, ind): each component from its
/// lowest-degree node (ties: the smallest index), breadth-first, the nodes each node adds
/// sorted by degree (stable), the whole order reversed.
pub(crate) fn rcm<I: SpIndex>(ip: &[I], ind: &[I]) -> Vec<i32> {
    let n = ip.len() - 1;
    let deg: Vec<usize> = (0..n).map(|i| rcm_degree(ip, ind, i)).collect();
    let mut seeds: Vec<usize> = (0..n).collect();
    seeds.sort_by_key(|&v| deg[v]);
    let mut seen = vec![false; n];
    let mut order: Vec<usize> = Vec::with_capacity(n);
    for &s in &seeds {
        if seen[s] {
            continue;
        }
        seen[s] = true;
        order.push(s);
        let (mut start, mut end) = (order.len() - 1, order.len());
        while start < end {
            for at in start..end {
                let i = order[at];
                let old = order.len();
                for &j in &ind[ip[i].ix()..ip[i + 1].ix()] {
                    let j = j.ix();
                    if !seen[j] {
                        seen[j] = true;
                        order.push(j);
                    }
                }
                order[old..].sort_by_key(|&v| deg[v]);
            }
            start = end;
            end = order.len();
        }
        if order.len() == n {
            break;
        }
    }
    order.iter().rev().map(|&v| v as i32).collect()
}

// ------------------------------------------------------------------------------------------
// Structural rank

/// The size of a maximum matching between the rows and the columns of the pattern (ip, ind)
/// with `ncols` columns: Kuhn's augmenting paths from each row in turn, depth-first with an
/// explicit stack, columns stamped per search (the GPU's kernel runs the same loop).
pub(crate) fn max_matching<I: SpIndex>(ip: &[I], ind: &[I], ncols: usize) -> usize {
    let m = ip.len() - 1;
    let mut matchc = vec![usize::MAX; ncols];
    let mut stamp = vec![usize::MAX; ncols];
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut size = 0;
    for r0 in 0..m {
        stack.clear();
        stack.push((r0, ip[r0].ix()));
        while let Some(&(r, e)) = stack.last() {
            if e == ip[r + 1].ix() {
                stack.pop();
                continue;
            }
            if let Some(top) = stack.last_mut() {
                top.1 = e + 1;
            }
            let c = ind[e].ix();
            if stamp[c] == r0 {
                continue;
            }
            stamp[c] = r0;
            if matchc[c] == usize::MAX {
                // augment: each row on the stack takes the column of its last tried entry
                for &(rr, pos) in stack.iter() {
                    matchc[ind[pos - 1].ix()] = rr;
                }
                size += 1;
                break;
            }
            let next = matchc[c];
            stack.push((next, ip[next].ix()));
        }
    }
    size
}
