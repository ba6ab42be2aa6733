//! `scipy.sparse.csgraph`: [`connected_components`] (weak and strong connection).

use crate::cuda::csgraph as gpu;
use crate::matrix::{hv, CsrMatrix};
use crate::SpIndex;
use cusci_core::error::make;
use cusci_core::{Array, Device, Float, Result};

/// SciPy's `connection` argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Connection {
    /// Nodes joined by a path ignoring edge directions.
    #[default]
    Weak,
    /// Nodes joined by directed paths both ways.
    Strong,
}

/// `connected_components(csgraph, directed, connection)`: the number of components and the label
/// of every node. Every stored entry (i, j) is an edge i → j, whatever its value (call
/// `eliminate_zeros` first to drop stored zeros). Components are numbered by their smallest
/// node, as SciPy's traversal from node 0 numbers them.
/// With `directed = false` or [`Connection::Weak`] the weak components are returned; with
/// `directed = true` and [`Connection::Strong`] the strongly connected components (the same
/// partition as SciPy's; SciPy numbers strong components in the order its traversal closes
/// them, this function by their smallest node, as for weak ones).
///
/// Weak — GPU: min-label propagation with pointer jumping (this crate's kernels), one wait per
/// sweep; CPU: union–find. Strong — GPU: rounds of trimming (nodes without an edge in or out
/// of the remaining graph are components of their own), forward max-colour propagation and
/// backward reachability of each colour's root within its colour (the colouring algorithm);
/// every round settles at least one component, flags are read every 8 sweeps; CPU: Tarjan's
/// algorithm (iterative). Both devices give the same labels.
///
/// ```
/// use cusci_sparse::{csgraph::{connected_components, Connection}, CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// // edges 0→1 and 3→2: components {0, 1}, {2, 3}
/// let g = CsrMatrix::from_dense(&Array::from_vec(
///     vec![0.0f64, 1.0, 0.0, 0.0,  0.0, 0.0, 0.0, 0.0,  0.0, 0.0, 0.0, 0.0,  0.0, 0.0, 1.0, 0.0],
///     &[4, 4], &dev)?)?;
/// let (k, labels) = connected_components(&g, true, Connection::Weak)?;
/// assert_eq!(k, 2);
/// assert_eq!(labels.to_vec()?, vec![0, 0, 1, 1]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// Graphs with `i64` indices are taken too (the labels are `i32`, as SciPy's).
///
/// # Errors
/// `ShapeMismatch` for a non-square graph; `InvalidArgument` for more than `i32::MAX` nodes
/// (the labels are `i32`).
pub fn connected_components<T: Float, I: SpIndex>(
    graph: &CsrMatrix<T, I>,
    directed: bool,
    connection: Connection,
) -> Result<(usize, Array<i32>)> {
    let op = "connected_components";
    let (m, n) = graph.shape();
    if m != n {
        return Err(make::shape(
            op,
            format!("the graph must be square, got ({m}, {n})"),
        ));
    }
    if n > i32::MAX as usize {
        return Err(make::arg(
            op,
            format!("{n} nodes do not fit the int32 labels"),
        ));
    }
    let strong = directed && connection == Connection::Strong;
    match graph.device() {
        Device::Cpu if strong => {
            let (ip, ind) = (hv(&graph.indptr), hv(&graph.indices));
            let (k, labels) = number_by_smallest(&tarjan(ip, ind));
            Ok((k, Array::from_vec(labels, &[n], &Device::Cpu)?))
        }
        Device::Cpu => {
            let (k, labels) = union_find(hv(&graph.indptr), hv(&graph.indices));
            Ok((k, Array::from_vec(labels, &[n], &Device::Cpu)?))
        }
        Device::Cuda(d) if strong => gpu::strong(d, graph),
        Device::Cuda(d) => gpu::weak(d, graph),
    }
}

/// The weak components of the graph of the CSR structure (ip, ind) by union–find (the
/// smaller node is the root): the count and the labels, numbered by the smallest node.
fn union_find<I: SpIndex>(ip: &[I], ind: &[I]) -> (usize, Vec<i32>) {
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
fn number_by_smallest(rep: &[usize]) -> (usize, Vec<i32>) {
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
fn tarjan<I: SpIndex>(ip: &[I], ind: &[I]) -> Vec<usize> {
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
