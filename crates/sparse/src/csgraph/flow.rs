//! Flows and matchings: [`maximum_flow`] (Dinic, Edmonds–Karp) and
//! [`maximum_bipartite_matching`] (Hopcroft–Karp), SciPy's arguments and results.
//!
//! Both are sequential augmenting-path algorithms with a host reference. On a GPU they are
//! hybrids: the graph's three arrays are read to the host, the CPU algorithm runs there, and
//! the results are put back on the graph's device (stated in the rustdoc of each function and
//! in the crate README).

use crate::matrix::CsrMatrix;
use crate::SpIndex;
use cusci_core::error::make;
use cusci_core::{Array, Device, RealFloat, Result};
use std::collections::VecDeque;

/// The algorithm of [`maximum_flow`] (SciPy's `method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FlowMethod {
    /// Dinic's blocking flows on BFS level graphs (SciPy's default).
    #[default]
    Dinic,
    /// Edmonds–Karp: shortest augmenting paths by breadth-first search.
    EdmondsKarp,
}

/// The result of [`maximum_flow`] (SciPy's `MaximumFlowResult`).
#[derive(Debug, Clone)]
pub struct MaximumFlowResult<T: RealFloat, I: SpIndex> {
    /// The value of the maximum flow.
    pub flow_value: i64,
    /// The net flow `F[u, v] = f(u → v) − f(v → u)` (antisymmetric) at every position that
    /// holds an edge or the reverse of one, on the graph's device.
    pub flow: CsrMatrix<T, I>,
}

/// The graph's arrays on the host (a copy from the device on a GPU).
fn host<T: RealFloat, I: SpIndex>(g: &CsrMatrix<T, I>) -> Result<(Vec<I>, Vec<I>, Vec<T>)> {
    Ok((g.indptr.to_vec()?, g.indices.to_vec()?, g.data.to_vec()?))
}

/// The residual network: arcs in pairs (`a ^ 1` is the reverse of `a`).
struct Net {
    head: Vec<usize>,
    cap: Vec<i64>,
    /// arcs leaving each node, CSR
    start: Vec<usize>,
    arcs: Vec<usize>,
}

impl Net {
    fn new(n: usize, edges: &[(usize, usize, i64)]) -> Net {
        let mut head = Vec::with_capacity(2 * edges.len());
        let mut cap = Vec::with_capacity(2 * edges.len());
        let mut deg = vec![0usize; n + 1];
        for &(u, v, c) in edges {
            head.push(v);
            cap.push(c);
            head.push(u);
            cap.push(0);
            deg[u] += 1;
            deg[v] += 1;
        }
        let mut start = vec![0usize; n + 1];
        for i in 0..n {
            start[i + 1] = start[i] + deg[i];
        }
        let mut fill = start.clone();
        let mut arcs = vec![0usize; 2 * edges.len()];
        for (e, &(u, v, _)) in edges.iter().enumerate() {
            arcs[fill[u]] = 2 * e;
            fill[u] += 1;
            arcs[fill[v]] = 2 * e + 1;
            fill[v] += 1;
        }
        Net {
            head,
            cap,
            start,
            arcs,
        }
    }

    fn out(&self, u: usize) -> &[usize] {
        &self.arcs[self.start[u]..self.start[u + 1]]
    }

    /// BFS levels from `s` in the residual graph (`usize::MAX` unreached).
    fn levels(&self, s: usize) -> Vec<usize> {
        let n = self.start.len() - 1;
        let mut lev = vec![usize::MAX; n];
        lev[s] = 0;
        let mut q = VecDeque::from([s]);
        while let Some(u) = q.pop_front() {
            for &a in self.out(u) {
                let v = self.head[a];
                if self.cap[a] > 0 && lev[v] == usize::MAX {
                    lev[v] = lev[u] + 1;
                    q.push_back(v);
                }
            }
        }
        lev
    }

    fn dinic(&mut self, s: usize, t: usize) -> i64 {
        let n = self.start.len() - 1;
        let mut total = 0i64;
        loop {
            let lev = self.levels(s);
            if lev[t] == usize::MAX {
                return total;
            }
            let mut it: Vec<usize> = (0..n).map(|u| self.start[u]).collect();
            // iterative DFS for augmenting paths in the level graph
            loop {
                let mut path: Vec<usize> = Vec::new();
                let mut u = s;
                let found = loop {
                    if u == t {
                        break true;
                    }
                    let mut advanced = false;
                    while it[u] < self.start[u + 1] {
                        let a = self.arcs[it[u]];
                        let v = self.head[a];
                        if self.cap[a] > 0 && lev[v] == lev[u] + 1 && lev[v] != usize::MAX {
                            path.push(a);
                            u = v;
                            advanced = true;
                            break;
                        }
                        it[u] += 1;
                    }
                    if !advanced {
                        // dead end: retreat
                        match path.pop() {
                            None => break false,
                            Some(a) => {
                                u = self.head[a ^ 1];
                                it[u] += 1;
                            }
                        }
                    }
                };
                if !found {
                    break;
                }
                let f = path.iter().map(|&a| self.cap[a]).min().unwrap_or(0);
                for &a in &path {
                    self.cap[a] -= f;
                    self.cap[a ^ 1] += f;
                }
                total += f;
            }
        }
    }

    fn edmonds_karp(&mut self, s: usize, t: usize) -> i64 {
        let n = self.start.len() - 1;
        let mut total = 0i64;
        loop {
            let mut via = vec![usize::MAX; n];
            let mut seen = vec![false; n];
            seen[s] = true;
            let mut q = VecDeque::from([s]);
            while let Some(u) = q.pop_front() {
                if u == t {
                    break;
                }
                for &a in self.out(u) {
                    let v = self.head[a];
                    if self.cap[a] > 0 && !seen[v] {
                        seen[v] = true;
                        via[v] = a;
                        q.push_back(v);
                    }
                }
            }
            if !seen[t] {
                return total;
            }
            let mut f = i64::MAX;
            let mut v = t;
            while v != s {
                let a = via[v];
                f = f.min(self.cap[a]);
                v = self.head[a ^ 1];
            }
            let mut v = t;
            while v != s {
                let a = via[v];
                self.cap[a] -= f;
                self.cap[a ^ 1] += f;
                v = self.head[a ^ 1];
            }
            total += f;
        }
    }
}

/// The maximum flow from `source` to `sink` (SciPy's `maximum_flow(csgraph, source, sink,
/// method)`): every stored entry (u, v) with u ≠ v is an arc of capacity `value` (parallel
/// entries add up; self-loops carry nothing). Capacities must be non-negative integers (SciPy
/// requires an integer dtype; here the f32/f64 values must be integral and at most 2⁵³).
/// [`FlowMethod::Dinic`] (default) or [`FlowMethod::EdmondsKarp`]; both give the same
/// `flow_value`, the flows themselves may differ (a maximum flow is not unique).
///
/// The result's `flow` holds the net flow at each position of an edge or of its reverse,
/// one entry per position (SciPy keeps one per stored duplicate; `toarray()` agrees).
///
/// Devices: the CPU algorithm; on a GPU a hybrid (the graph is read to the host, the flow
/// computed there and put back on the device).
///
/// ```
/// use cusci_sparse::csgraph::{maximum_flow, FlowMethod};
/// use cusci_sparse::{CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let g = CsrMatrix::from_dense(&Array::from_vec(
///     vec![0.0f64, 5.0, 3.0, 0.0,  0.0, 0.0, 2.0, 4.0,  0.0, 0.0, 0.0, 6.0,  0.0, 0.0, 0.0, 0.0],
///     &[4, 4], &dev)?)?;
/// let r = maximum_flow(&g, 0, 3, FlowMethod::Dinic)?;
/// assert_eq!(r.flow_value, 8);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square graph; `InvalidArgument` for a source or sink out of
/// range, `source == sink`, or a capacity that is negative, not an integer or not finite.
pub fn maximum_flow<T: RealFloat, I: SpIndex>(
    graph: &CsrMatrix<T, I>,
    source: usize,
    sink: usize,
    method: FlowMethod,
) -> Result<MaximumFlowResult<T, I>> {
    let op = "maximum_flow";
    let (m, n) = graph.shape();
    if m != n {
        return Err(make::shape(
            op,
            format!("graph must be square, got ({m}, {n})"),
        ));
    }
    if source >= n {
        return Err(make::arg(
            op,
            format!("source value ({source}) must be below {n}"),
        ));
    }
    if sink >= n {
        return Err(make::arg(
            op,
            format!("sink value ({sink}) must be below {n}"),
        ));
    }
    if source == sink {
        return Err(make::arg(op, "source and sink vertices must differ"));
    }
    let (ip, ind, val) = host(graph)?;
    let mut edges = Vec::with_capacity(val.len());
    for u in 0..n {
        for k in ip[u].ix()..ip[u + 1].ix() {
            let c = val[k].to_f64();
            if !c.is_finite() || c.fract() != 0.0 {
                return Err(make::arg(op, "graph capacities must be integers"));
            }
            if c < 0.0 {
                return Err(make::arg(op, "graph capacities must be non-negative"));
            }
            if c > 9_007_199_254_740_992.0 {
                return Err(make::arg(op, "graph capacities must be at most 2^53"));
            }
            let v = ind[k].ix();
            if u != v {
                edges.push((u, v, c as i64));
            }
        }
    }
    let mut net = Net::new(n, &edges);
    let flow_value = match method {
        FlowMethod::Dinic => net.dinic(source, sink),
        FlowMethod::EdmondsKarp => net.edmonds_karp(source, sink),
    };
    // net flow per position: f(u → v) = cap₀ − cap of the forward arc
    let mut cells: Vec<(usize, usize, i64)> = Vec::with_capacity(2 * edges.len());
    for (e, &(u, v, c)) in edges.iter().enumerate() {
        let f = c - net.cap[2 * e];
        cells.push((u, v, f));
        cells.push((v, u, -f));
    }
    cells.sort_unstable_by_key(|&(u, v, _)| (u, v));
    let mut indptr = vec![I::of(0); n + 1];
    let mut indices: Vec<I> = Vec::new();
    let mut data: Vec<T> = Vec::new();
    let mut k = 0;
    while k < cells.len() {
        let (u, v, mut f) = cells[k];
        k += 1;
        while k < cells.len() && cells[k].0 == u && cells[k].1 == v {
            f += cells[k].2;
            k += 1;
        }
        indices.push(I::of(v));
        data.push(T::from_f64(f as f64));
        indptr[u + 1] = I::of(indptr[u + 1].ix() + 1);
    }
    for u in 0..n {
        indptr[u + 1] = I::of(indptr[u + 1].ix() + indptr[u].ix());
    }
    let nnz = data.len();
    let dev = graph.device();
    let flow = CsrMatrix::new(
        Array::from_vec(data, &[nnz], &Device::Cpu)?.to_device(dev)?,
        Array::from_vec(indices, &[nnz], &Device::Cpu)?.to_device(dev)?,
        Array::from_vec(indptr, &[n + 1], &Device::Cpu)?.to_device(dev)?,
        (n, n),
    )?;
    Ok(MaximumFlowResult { flow_value, flow })
}

/// Which side [`maximum_bipartite_matching`] reports (SciPy's `perm_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PermType {
    /// For each column, the row matched to it (SciPy's default `'row'`).
    #[default]
    Row,
    /// For each row, the column matched to it (`'column'`).
    Column,
}

/// A maximum matching of the bipartite graph whose biadjacency matrix is `graph` (rows one
/// side, columns the other; every stored entry an edge, explicit zeros too), SciPy's
/// `maximum_bipartite_matching(graph, perm_type)`: Hopcroft–Karp. With [`PermType::Row`] the
/// result has one entry per column, the matched row or −1; with [`PermType::Column`] one per
/// row. Any shape. A maximum matching is not unique: its size is SciPy's, the pairs may
/// differ.
///
/// Devices: the CPU algorithm; on a GPU a hybrid (the pattern is read to the host, the
/// matching computed there and put back on the device).
///
/// ```
/// use cusci_sparse::csgraph::{maximum_bipartite_matching, PermType};
/// use cusci_sparse::{CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let g = CsrMatrix::from_dense(&Array::from_vec(
///     vec![1.0f64, 1.0, 0.0,  1.0, 0.0, 0.0,  0.0, 0.0, 0.0,  0.0, 1.0, 0.0], &[4, 3], &dev)?)?;
/// let m = maximum_bipartite_matching(&g, PermType::Column)?.to_vec()?;
/// assert_eq!(m.iter().filter(|&&c| c >= 0).count(), 2);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` when a dimension does not fit `i32` (the result's type, as SciPy's).
pub fn maximum_bipartite_matching<T: RealFloat, I: SpIndex>(
    graph: &CsrMatrix<T, I>,
    perm_type: PermType,
) -> Result<Array<i32>> {
    let op = "maximum_bipartite_matching";
    let (m, n) = graph.shape();
    if m > i32::MAX as usize || n > i32::MAX as usize {
        return Err(make::arg(op, "dimensions must fit int32"));
    }
    let ip: Vec<usize> = graph.indptr.to_vec()?.iter().map(|v| v.ix()).collect();
    let ind: Vec<usize> = graph.indices.to_vec()?.iter().map(|v| v.ix()).collect();
    let (row_of, col_of) = hopcroft_karp(m, n, &ip, &ind);
    let out: Vec<i32> = match perm_type {
        PermType::Row => row_of.iter().map(|&r| r.map_or(-1, |r| r as i32)).collect(),
        PermType::Column => col_of.iter().map(|&c| c.map_or(-1, |c| c as i32)).collect(),
    };
    let len = out.len();
    Array::from_vec(out, &[len], &Device::Cpu)?.to_device(graph.device())
}

/// Hopcroft–Karp on rows 0..m (left) and columns 0..n (right): (row matched to each column,
/// column matched to each row).
fn hopcroft_karp(
    m: usize,
    n: usize,
    ip: &[usize],
    ind: &[usize],
) -> (Vec<Option<usize>>, Vec<Option<usize>>) {
    let mut row_of: Vec<Option<usize>> = vec![None; n];
    let mut col_of: Vec<Option<usize>> = vec![None; m];
    loop {
        // BFS layers from the free rows
        let mut dist = vec![usize::MAX; m];
        let mut q = VecDeque::new();
        for r in 0..m {
            if col_of[r].is_none() {
                dist[r] = 0;
                q.push_back(r);
            }
        }
        let mut found = false;
        while let Some(r) = q.pop_front() {
            for &c in &ind[ip[r]..ip[r + 1]] {
                match row_of[c] {
                    None => found = true,
                    Some(r2) => {
                        if dist[r2] == usize::MAX {
                            dist[r2] = dist[r] + 1;
                            q.push_back(r2);
                        }
                    }
                }
            }
        }
        if !found {
            break;
        }
        // vertex-disjoint shortest augmenting paths by iterative DFS
        let mut it: Vec<usize> = (0..m).map(|r| ip[r]).collect();
        for r0 in 0..m {
            if col_of[r0].is_some() {
                continue;
            }
            let mut stack = vec![r0];
            let mut cols: Vec<usize> = Vec::new();
            while let Some(&r) = stack.last() {
                let mut pushed = false;
                while it[r] < ip[r + 1] {
                    let c = ind[it[r]];
                    it[r] += 1;
                    match row_of[c] {
                        None => {
                            // augment along the stack
                            cols.push(c);
                            for (k, &rr) in stack.iter().enumerate() {
                                let cc = cols[k];
                                col_of[rr] = Some(cc);
                                row_of[cc] = Some(rr);
                            }
                            stack.clear();
                            pushed = true;
                            break;
                        }
                        Some(r2) if dist[r2] == dist[r] + 1 => {
                            cols.push(c);
                            stack.push(r2);
                            pushed = true;
                            break;
                        }
                        _ => {}
                    }
                }
                if !pushed {
                    dist[r] = usize::MAX;
                    stack.pop();
                    cols.pop();
                }
            }
        }
    }
    (row_of, col_of)
}

/// A minimum-weight full matching of the bipartite graph whose biadjacency matrix is `graph`
/// (SciPy's `min_weight_full_bipartite_matching(biadjacency_matrix, maximize)`): every row
/// matched when rows ≤ columns, else every column, with the smallest (`maximize`: largest)
/// sum of weights. Explicit zeros are not edges (SciPy removes them with a warning).
/// Returns `(row_ind, col_ind)`, the matched pairs by increasing row, on the graph's device.
///
/// Algorithm: successive shortest augmenting paths with potentials (the Hungarian method on
/// the sparse graph: one Dijkstra per row of the smaller side over the reduced costs, in f64);
/// SciPy uses LAPJVsp. The minimum weight is the same; with ties the pairs may differ.
///
/// Devices: the CPU algorithm; on a GPU a hybrid (the graph is read to the host, the
/// matching computed there and put back on the device).
///
/// ```
/// use cusci_sparse::csgraph::min_weight_full_bipartite_matching;
/// use cusci_sparse::{CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let g = CsrMatrix::from_dense(&Array::from_vec(
///     vec![3.0f64, 1.0, 0.0,  2.0, 0.0, 5.0], &[2, 3], &dev)?)?;
/// let (r, c) = min_weight_full_bipartite_matching(&g, false)?;
/// assert_eq!((r.to_vec()?, c.to_vec()?), (vec![0, 1], vec![1, 0]));
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` when no full matching exists (SciPy's "no full matching exists", also
/// for an empty matrix), for a NaN or infinite weight, or a dimension past `i32`.
pub fn min_weight_full_bipartite_matching<T: RealFloat, I: SpIndex>(
    graph: &CsrMatrix<T, I>,
    maximize: bool,
) -> Result<(Array<i32>, Array<i32>)> {
    let op = "min_weight_full_bipartite_matching";
    let (m, n) = graph.shape();
    if m > i32::MAX as usize || n > i32::MAX as usize {
        return Err(make::arg(op, "dimensions must fit int32"));
    }
    let (ip, ind, val) = host(graph)?;
    // adjacency of the smaller side (rows unless there are more rows than columns)
    let flip = m > n;
    let (ns, nl) = if flip { (n, m) } else { (m, n) };
    let mut adj: Vec<Vec<(usize, f64)>> = vec![Vec::new(); ns];
    for r in 0..m {
        for k in ip[r].ix()..ip[r + 1].ix() {
            let w = val[k].to_f64();
            if w == 0.0 {
                continue;
            }
            if !w.is_finite() {
                return Err(make::arg(op, "weights must be finite"));
            }
            let w = if maximize { -w } else { w };
            let c = ind[k].ix();
            if flip {
                adj[c].push((r, w));
            } else {
                adj[r].push((c, w));
            }
        }
    }
    if ns == 0 {
        return Err(make::arg(op, "no full matching exists"));
    }
    let none = make::arg(op, "no full matching exists");
    // potentials: the row minima and zero columns (the columns' potentials stay ≤ 0 and those
    // of free columns 0, the dual feasibility of the rectangular problem)
    let mut pu: Vec<f64> = adj
        .iter()
        .map(|e| e.iter().map(|&(_, w)| w).fold(f64::INFINITY, f64::min))
        .map(|v| if v.is_finite() { v } else { 0.0 })
        .collect();
    let mut pv = vec![0.0f64; nl];
    let mut match_l: Vec<Option<usize>> = vec![None; nl];
    let mut match_s: Vec<Option<usize>> = vec![None; ns];
    for root in 0..ns {
        // Dijkstra over the large side; rows reached through matched edges
        let mut dist_l = vec![f64::INFINITY; nl];
        let mut from = vec![usize::MAX; nl];
        let mut done_l = vec![false; nl];
        let mut dist_s = vec![f64::INFINITY; ns];
        dist_s[root] = 0.0;
        let mut heap = std::collections::BinaryHeap::new();
        let relax = |i: usize,
                     di: f64,
                     dist_l: &mut Vec<f64>,
                     from: &mut Vec<usize>,
                     heap: &mut std::collections::BinaryHeap<(std::cmp::Reverse<u64>, usize)>,
                     done_l: &Vec<bool>| {
            for &(j, w) in &adj[i] {
                if done_l[j] {
                    continue;
                }
                let d = di + (w - pu[i] - pv[j]).max(0.0);
                if d < dist_l[j] {
                    dist_l[j] = d;
                    from[j] = i;
                    heap.push((std::cmp::Reverse(d.to_bits()), j));
                }
            }
        };
        relax(root, 0.0, &mut dist_l, &mut from, &mut heap, &done_l);
        let mut end = None;
        let mut visited_l = Vec::new();
        while let Some((std::cmp::Reverse(bits), j)) = heap.pop() {
            let d = f64::from_bits(bits);
            if done_l[j] || d > dist_l[j] {
                continue;
            }
            done_l[j] = true;
            visited_l.push(j);
            match match_l[j] {
                None => {
                    end = Some((j, d));
                    break;
                }
                Some(i2) => {
                    dist_s[i2] = d;
                    relax(i2, d, &mut dist_l, &mut from, &mut heap, &done_l);
                }
            }
        }
        let (jend, dmax) = end.ok_or_else(|| none.clone())?;
        // potentials: u += D − d for reached rows, v −= D − d for finalized columns
        for i in 0..ns {
            if dist_s[i] < dmax {
                pu[i] += dmax - dist_s[i];
            }
        }
        for &j in &visited_l {
            if dist_l[j] < dmax {
                pv[j] -= dmax - dist_l[j];
            }
        }
        // augment
        let mut j = jend;
        loop {
            let i = from[j];
            let prev = match_s[i];
            match_s[i] = Some(j);
            match_l[j] = Some(i);
            match prev {
                None => break,
                Some(pj) => j = pj,
            }
        }
    }
    let mut pairs: Vec<(i32, i32)> = match_s
        .iter()
        .enumerate()
        .filter_map(|(i, &j)| {
            j.map(|j| {
                if flip {
                    (j as i32, i as i32)
                } else {
                    (i as i32, j as i32)
                }
            })
        })
        .collect();
    pairs.sort_unstable();
    let k = pairs.len();
    let rows: Vec<i32> = pairs.iter().map(|p| p.0).collect();
    let cols: Vec<i32> = pairs.iter().map(|p| p.1).collect();
    let dev = graph.device();
    Ok((
        Array::from_vec(rows, &[k], &Device::Cpu)?.to_device(dev)?,
        Array::from_vec(cols, &[k], &Device::Cpu)?.to_device(dev)?,
    ))
}
