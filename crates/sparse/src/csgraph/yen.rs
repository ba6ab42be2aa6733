//! [`yen`]: the K shortest loopless paths between two nodes (SciPy's `csgraph.yen`).

use crate::matrix::CsrMatrix;
use crate::SpIndex;
use cusci_core::error::make;
use cusci_core::{Array, Device, Error, RealFloat, Result};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

/// Options of [`yen`] (SciPy's keyword arguments).
#[derive(Debug, Clone, Copy)]
pub struct YenOptions {
    /// Walk edges only from row to column (default true); false walks them both ways.
    pub directed: bool,
    /// Count edges instead of summing weights (default false).
    pub unweighted: bool,
}

impl Default for YenOptions {
    fn default() -> Self {
        YenOptions {
            directed: true,
            unweighted: false,
        }
    }
}

/// The result of [`yen`]: SciPy's `dist_array` and `predecessors` (`return_predecessors=True`).
#[derive(Debug, Clone)]
pub struct YenResult<T: RealFloat> {
    /// The lengths of the M ≤ K paths found, ascending.
    pub dist_array: Array<T>,
    /// (M, N): row i holds the predecessor of each node on path i, −9999 off the path.
    pub predecessors: Array<i32>,
}

/// `K` shortest loopless paths from `source` to `sink` (SciPy's `yen(csgraph, source, sink,
/// K, directed, return_predecessors, unweighted)`): Yen's algorithm with Dijkstra for each
/// spur path; negative weights are reweighted with Johnson's potentials (Bellman–Ford from a
/// virtual node), as SciPy does. The crate's graph conventions: every stored entry is an edge
/// (explicit zeros weigh 0), the lightest of parallel entries counts. Lengths are summed in
/// f64 along each path and returned in the graph's type. `source == sink` gives one path of
/// length 0. Paths of equal length may come in another order than SciPy's (its docstring says
/// the same of its own versions); the lengths are the same.
///
/// Devices: the CPU algorithm; on a GPU a hybrid (the graph is read to the host, the result
/// put back on the device).
///
/// ```
/// use cusci_sparse::csgraph::{yen, YenOptions};
/// use cusci_sparse::{CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let g = CsrMatrix::from_dense(&Array::from_vec(
///     vec![0.0f64, 1.0, 2.0, 0.0,  0.0, 0.0, 1.0, 3.0,  0.0, 0.0, 0.0, 1.0,  0.0, 0.0, 0.0, 0.0],
///     &[4, 4], &dev)?)?;
/// let r = yen(&g, 0, 3, 5, &YenOptions::default())?;
/// assert_eq!(r.dist_array.to_vec()?, vec![3.0, 3.0, 4.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square graph; `InvalidArgument` for a source or sink out of range
/// or a NaN weight; `NegativeCycle` when the graph has a negative cycle.
pub fn yen<T: RealFloat, I: SpIndex>(
    graph: &CsrMatrix<T, I>,
    source: usize,
    sink: usize,
    k: usize,
    opts: &YenOptions,
) -> Result<YenResult<T>> {
    let op = "yen";
    let (m, n) = graph.shape();
    if m != n {
        return Err(make::shape(
            op,
            format!("graph must be square, got ({m}, {n})"),
        ));
    }
    if source >= n || sink >= n {
        return Err(make::arg(
            op,
            format!("source {source} or sink {sink} out of range for {n} nodes"),
        ));
    }
    let ip = graph.indptr.to_vec()?;
    let ind = graph.indices.to_vec()?;
    let val = graph.data.to_vec()?;
    // the lightest weight of each directed pair
    let mut edges: Vec<(usize, usize, f64)> = Vec::with_capacity(2 * val.len());
    for u in 0..n {
        for q in ip[u].ix()..ip[u + 1].ix() {
            let w = val[q].to_f64();
            if w.is_nan() {
                return Err(make::arg(op, "NaN weight"));
            }
            let w = if opts.unweighted { 1.0 } else { w };
            let v = ind[q].ix();
            edges.push((u, v, w));
            if !opts.directed {
                edges.push((v, u, w));
            }
        }
    }
    edges.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(a.2.total_cmp(&b.2)));
    edges.dedup_by(|b, a| a.0 == b.0 && a.1 == b.1);
    let mut start = vec![0usize; n + 1];
    for &(u, _, _) in &edges {
        start[u + 1] += 1;
    }
    for u in 0..n {
        start[u + 1] += start[u];
    }
    // Johnson's potentials when a weight is negative
    let h = if edges.iter().any(|e| e.2 < 0.0) {
        let mut h = vec![0.0f64; n];
        let mut changed = true;
        let mut rounds = 0;
        while changed {
            changed = false;
            for &(u, v, w) in &edges {
                if h[u] + w < h[v] {
                    h[v] = h[u] + w;
                    changed = true;
                }
            }
            rounds += 1;
            if changed && rounds > n {
                return Err(Error::NegativeCycle { op: op.into() });
            }
        }
        h
    } else {
        vec![0.0; n]
    };
    let g = G { n, start, edges, h };
    let mut a: Vec<(f64, Vec<usize>)> = Vec::new();
    if k > 0 {
        if let Some(p) = g.dijkstra(source, sink, &HashSet::new(), &vec![false; n]) {
            a.push((g.length(&p), p));
        }
    }
    let mut b: Vec<(f64, Vec<usize>)> = Vec::new();
    while a.len() < k && !a.is_empty() {
        let last = a[a.len() - 1].1.clone();
        for i in 0..last.len().saturating_sub(1) {
            let spur = last[i];
            let root = &last[..=i];
            let mut banned_edges = HashSet::new();
            for (_, p) in &a {
                if p.len() > i + 1 && &p[..=i] == root {
                    banned_edges.insert((p[i], p[i + 1]));
                }
            }
            let mut banned = vec![false; n];
            for &r in &root[..i] {
                banned[r] = true;
            }
            if let Some(sp) = g.dijkstra(spur, sink, &banned_edges, &banned) {
                let mut path = root[..i].to_vec();
                path.extend(sp);
                if !b.iter().any(|(_, p)| *p == path) && !a.iter().any(|(_, p)| *p == path) {
                    b.push((g.length(&path), path));
                }
            }
        }
        if b.is_empty() {
            break;
        }
        let mut best = 0;
        for (j, c) in b.iter().enumerate() {
            if c.0 < b[best].0 {
                best = j;
            }
        }
        a.push(b.remove(best));
    }
    let mcount = a.len();
    let mut pred = vec![-9999i32; mcount * n];
    for (r, (_, p)) in a.iter().enumerate() {
        for w in p.windows(2) {
            pred[r * n + w[1]] = w[0] as i32;
        }
    }
    let dist: Vec<T> = a.iter().map(|(d, _)| T::from_f64(*d)).collect();
    let dev = graph.device();
    Ok(YenResult {
        dist_array: Array::from_vec(dist, &[mcount], &Device::Cpu)?.to_device(dev)?,
        predecessors: Array::from_vec(pred, &[mcount, n], &Device::Cpu)?.to_device(dev)?,
    })
}

struct G {
    n: usize,
    start: Vec<usize>,
    edges: Vec<(usize, usize, f64)>,
    h: Vec<f64>,
}

impl G {
    /// The length of a path in the original weights.
    fn length(&self, p: &[usize]) -> f64 {
        p.windows(2)
            .map(|w| {
                let row = &self.edges[self.start[w[0]]..self.start[w[0] + 1]];
                let k = row.partition_point(|e| e.1 < w[1]);
                row[k].2
            })
            .sum()
    }

    /// A shortest path s → t on the reduced weights avoiding the banned nodes and edges
    /// (ties: the first settled predecessor).
    fn dijkstra(
        &self,
        s: usize,
        t: usize,
        banned_edges: &HashSet<(usize, usize)>,
        banned: &[bool],
    ) -> Option<Vec<usize>> {
        let mut dist = vec![f64::INFINITY; self.n];
        let mut pred = vec![usize::MAX; self.n];
        let mut done = vec![false; self.n];
        dist[s] = 0.0;
        let mut heap = BinaryHeap::new();
        heap.push((Reverse(0u64), s));
        while let Some((Reverse(bits), u)) = heap.pop() {
            let d = f64::from_bits(bits);
            if done[u] || d > dist[u] {
                continue;
            }
            done[u] = true;
            if u == t {
                break;
            }
            for &(_, v, w) in &self.edges[self.start[u]..self.start[u + 1]] {
                if banned[v] || done[v] || banned_edges.contains(&(u, v)) {
                    continue;
                }
                let nd = d + (w + self.h[u] - self.h[v]).max(0.0);
                if nd < dist[v] {
                    dist[v] = nd;
                    pred[v] = u;
                    heap.push((Reverse(nd.to_bits()), v));
                }
            }
        }
        if !done[t] {
            return None;
        }
        let mut p = vec![t];
        let mut v = t;
        while v != s {
            v = pred[v];
            p.push(v);
        }
        p.reverse();
        Some(p)
    }
}
