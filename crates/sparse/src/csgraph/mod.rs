//! `scipy.sparse.csgraph` on both devices: [`connected_components`] (weak and strong
//! connection); the conversions [`csgraph_from_dense`] and [`csgraph_to_dense`]; [`laplacian`];
//! the shortest paths [`shortest_path`], [`floyd_warshall`], [`dijkstra`], [`bellman_ford`],
//! [`johnson`]; [`construct_dist_matrix`] and [`reconstruct_path`] on their predecessors; the
//! traversals [`breadth_first_order`], [`breadth_first_tree`], [`depth_first_order`],
//! [`depth_first_tree`]; [`minimum_spanning_tree`]; [`reverse_cuthill_mckee`];
//! [`structural_rank`]; [`maximum_flow`], [`maximum_bipartite_matching`] and
//! [`min_weight_full_bipartite_matching`] (`flow.rs`) and [`yen`] (`yen.rs`) (on a GPU these
//! four are hybrids: the graph is read to the host).
//!
//! Conventions (SciPy's, for sparse input): a graph is a square [`CsrMatrix`]; every stored
//! entry (i, j) is an edge i → j of its value's weight, explicit zeros included (zero-weight
//! edges); positions not stored are not edges; duplicates at one position are parallel edges
//! (the lightest counts, as SciPy's routines read them). `directed = false` walks every edge
//! both ways. Unreachable nodes get an infinite distance and the predecessor
//! [`NULL_IDX`] (-9999). A negative cycle where shortest paths are asked for is
//! `Error::NegativeCycle` (SciPy's `NegativeCycleError`). Graph values are f32 or f64 (SciPy
//! computes in f64; an f32 graph is computed in f32); predecessors are `i32`, as SciPy's.
//!
//! Layout: this file holds the front ends (validation, then one match on the device),
//! `cpu.rs` the CPU reference (rayon), `cuda/` the launchers and `csgraph.cu`'s kernels.

mod cpu;
pub(crate) mod cuda;
mod flow;
mod yen;

pub use flow::{
    maximum_bipartite_matching, maximum_flow, min_weight_full_bipartite_matching, FlowMethod,
    MaximumFlowResult, PermType,
};
pub use yen::{yen, YenOptions, YenResult};

use crate::matrix::{check_index_range, hv, CsrMatrix};
use crate::{CooMatrix, SpIndex};
use cpu::{Csr, Graph};
use cuda as gpu;
use cusci_core::error::make;
use cusci_core::{Array, Device, Error, Float, RealFloat, Result};
use rayon::prelude::*;

/// 0 of a real type.
#[inline]
pub(crate) fn zero<T: RealFloat>() -> T {
    <T as cusci_core::Element>::zero()
}
/// 1 of a real type.
#[inline]
pub(crate) fn one<T: RealFloat>() -> T {
    <T as cusci_core::Element>::one()
}
/// +∞ of a real type.
#[inline]
pub(crate) fn inf<T: RealFloat>() -> T {
    T::from_f64(f64::INFINITY)
}
/// NaN of a real type.
#[inline]
pub(crate) fn nan<T: RealFloat>() -> T {
    T::from_f64(f64::NAN)
}
/// Whether x is NaN.
#[inline]
#[allow(clippy::eq_op)]
pub(crate) fn is_nan<T: RealFloat>(x: T) -> bool {
    x != x
}
/// Whether x is ±∞.
#[inline]
pub(crate) fn is_inf<T: RealFloat>(x: T) -> bool {
    x == inf::<T>() || x == -inf::<T>()
}

/// SciPy's `NULL_IDX`: the predecessor of a node that has none (a source, or unreachable).
pub const NULL_IDX: i32 = -9999;

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
            let (k, labels) = cpu::number_by_smallest(&cpu::tarjan(ip, ind));
            Ok((k, Array::from_vec(labels, &[n], &Device::Cpu)?))
        }
        Device::Cpu => {
            let (k, labels) = cpu::union_find(hv(&graph.indptr), hv(&graph.indices));
            Ok((k, Array::from_vec(labels, &[n], &Device::Cpu)?))
        }
        Device::Cuda(d) if strong => gpu::strong(d, graph),
        Device::Cuda(d) => gpu::weak(d, graph),
    }
}

/// The number of nodes of a square graph whose node indices fit `i32` (predecessors and labels
/// are `i32`, as SciPy's).
fn nodes<T: Float, I: SpIndex>(op: &str, g: &CsrMatrix<T, I>) -> Result<usize> {
    let (m, n) = g.shape();
    if m != n {
        return Err(make::shape(
            op,
            format!("the graph must be square, got ({m}, {n})"),
        ));
    }
    if n > i32::MAX as usize {
        return Err(make::arg(
            op,
            format!("{n} nodes do not fit the int32 predecessors"),
        ));
    }
    Ok(n)
}

/// `DeviceMismatch` unless `a` lives on the graph's device.
fn same_device<U: cusci_core::Element>(op: &str, dev: &Device, a: &Array<U>) -> Result<()> {
    if a.device() != dev {
        return Err(Error::DeviceMismatch {
            op: op.into(),
            left: dev.to_string(),
            right: a.device().to_string(),
        });
    }
    Ok(())
}

/// `csgraph_to_dense(csgraph, null_value)`: the dense n x n form of a square graph. As SciPy:
/// a position with stored entries holds the smallest of ∞ and their values (duplicates are
/// parallel edges; a NaN value never wins, so a position storing only NaN holds ∞),
/// `null_value` a position without; explicit zeros stay 0 (edges of weight 0), so pass
/// `f64::INFINITY` to tell them from non-edges.
///
/// GPU: a NaN fill ("no entry yet"), one thread per row for the minima (the first of equal
/// values kept, in stored order, as on the CPU), the positions left NaN set to `null_value`:
/// the same bits on both devices.
///
/// ```
/// use cusci_sparse::{csgraph::csgraph_to_dense, CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// // an edge 0 → 1 of weight 0 (stored) and one 1 → 0 of weight 2
/// let g = CsrMatrix::new(
///     Array::from_vec(vec![0.0f64, 2.0], &[2], &dev)?,
///     Array::from_vec(vec![1, 0], &[2], &dev)?,
///     Array::from_vec(vec![0, 1, 2], &[3], &dev)?,
///     (2, 2),
/// )?;
/// let d = csgraph_to_dense(&g, f64::INFINITY)?;
/// assert_eq!(d.to_vec()?, vec![f64::INFINITY, 0.0, 2.0, f64::INFINITY]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square graph (as SciPy); `InvalidArgument` for more than
/// `i32::MAX` nodes.
pub fn csgraph_to_dense<T: RealFloat, I: SpIndex>(
    csgraph: &CsrMatrix<T, I>,
    null_value: T,
) -> Result<Array<T>> {
    let n = nodes("csgraph_to_dense", csgraph)?;
    let m = n;
    match csgraph.device() {
        Device::Cpu => {
            let g = csgraph;
            let out = cpu::to_dense(n, hv(&g.indptr), hv(&g.indices), hv(&g.data), null_value);
            Array::from_vec(out, &[m, n], &Device::Cpu)
        }
        Device::Cuda(d) => gpu::to_dense(d, csgraph, null_value),
    }
}

/// `csgraph_from_dense(graph, null_value, nan_null, infinity_null)`: the CSR graph of a square
/// dense array (SciPy's defaults: `null_value = 0`, `nan_null = true`, `infinity_null = true`).
/// An element is a non-edge when it equals `null_value`, or is NaN with `nan_null`, or is ±∞
/// with `infinity_null` (as SciPy, a NaN `null_value` implies `nan_null` and an infinite one,
/// of either sign, `infinity_null`); every other element is stored, zeros too when `null_value` is not 0.
/// Rows in order, columns ascending (canonical). GPU: count, scan, write kernels.
///
/// ```
/// use cusci_sparse::{csgraph::csgraph_from_dense, Device, Array};
/// let a = Array::from_vec(vec![0.0f64, 1.0, f64::INFINITY, 0.0], &[2, 2], &Device::Cpu)?;
/// let g = csgraph_from_dense(&a, 0.0, true, true)?;
/// assert_eq!(g.nnz(), 1);
/// let g = csgraph_from_dense(&a, f64::INFINITY, true, false)?; // zeros are edges now
/// assert_eq!(g.data().to_vec()?, vec![0.0, 1.0, 0.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` when `graph` is not a square 2-D array (as SciPy); `InvalidArgument` when
/// its size does not fit the `i32` indices.
pub fn csgraph_from_dense<T: RealFloat>(
    graph: &Array<T>,
    null_value: T,
    nan_null: bool,
    infinity_null: bool,
) -> Result<CsrMatrix<T>> {
    let op = "csgraph_from_dense";
    if graph.ndim() != 2 {
        return Err(make::shape(
            op,
            format!("the graph must be 2-D, got shape {:?}", graph.shape()),
        ));
    }
    let (m, n) = (graph.shape()[0], graph.shape()[1]);
    if m != n {
        return Err(make::shape(
            op,
            format!("graph should be a square array, got ({m}, {n})"),
        ));
    }
    check_index_range::<i32>(op, m, n, m.saturating_mul(n))?;
    // as SciPy: a NaN null value means nan_null, an infinite one infinity_null (both signs)
    let nan_null = nan_null || is_nan(null_value);
    let infinity_null = infinity_null || is_inf(null_value);
    let a = graph.contiguous()?;
    match a.device() {
        Device::Cpu => {
            let (ip, ind, dat) = cpu::from_dense(n, hv(&a), null_value, nan_null, infinity_null);
            CsrMatrix::from_host(ip, ind, dat, (m, n), true, &Device::Cpu)
        }
        Device::Cuda(d) => gpu::from_dense(d, &a, null_value, nan_null, infinity_null),
    }
}

/// The options of [`laplacian`] (SciPy's keyword arguments; `Default` gives SciPy's
/// defaults, all `false`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LaplacianOptions {
    /// `normed`: the symmetrically normalised Laplacian `I − D^-½ A D^-½`.
    pub normed: bool,
    /// `use_out_degree`: degrees from the rows (out-degree) instead of the columns.
    pub use_out_degree: bool,
    /// `symmetrized`: the Laplacian of `A + Aᵀ`.
    pub symmetrized: bool,
}

/// `laplacian(csgraph, normed, return_diag=True, use_out_degree, symmetrized)`: the graph
/// Laplacian `L = D − A` of a square graph (in-degrees, the column sums, unless
/// `use_out_degree`), and its diagonal (`return_diag`; normed: the square roots of the
/// degrees, 1 for isolated nodes). As SciPy: the degree of node i is its column (row) sum minus
/// `A[i, i]`; the stored diagonal of A is replaced; off-diagonal entries are negated (normed:
/// divided by s[i], then by s[j], then negated, s = √degree, 1 where the degree is 0) and
/// stored ones stay stored, zeros too; the diagonal is stored for every node (normed: 1, or 0
/// for an isolated node). The result is canonical (duplicates summed, columns sorted), where
/// SciPy returns a COO matrix with the same values.
///
/// `form`: only SciPy's `"array"`. Its `"function"` and `"lo"` forms are matrix-free
/// operators; here the returned [`CsrMatrix`] serves as one (it implements
/// [`linalg::LinearOperator`](crate::linalg::LinearOperator)). `dtype`: that of the graph
/// (convert with `astype`).
///
/// Degrees: `sum_axis` minus `diagonal` (SpMV with ones) on either device; the entries: one
/// pass over the rows (the GPU's count, scan, write kernels), then `sum_duplicates`.
///
/// ```
/// use cusci_sparse::{csgraph::{laplacian, LaplacianOptions}, CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let a = CsrMatrix::from_dense(&Array::from_vec(
///     vec![0.0f64, 2.0, 0.0,  0.0, 0.0, 3.0,  4.0, 0.0, 0.0], &[3, 3], &dev)?)?;
/// let (l, d) = laplacian(&a, &LaplacianOptions::default())?;
/// assert_eq!(l.toarray()?.to_vec()?, vec![4.0, -2.0, 0.0,  0.0, 2.0, -3.0,  -4.0, 0.0, 3.0]);
/// assert_eq!(d.to_vec()?, vec![4.0, 2.0, 3.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square graph.
pub fn laplacian<T: RealFloat, I: SpIndex>(
    csgraph: &CsrMatrix<T, I>,
    options: &LaplacianOptions,
) -> Result<(CsrMatrix<T, I>, Array<T>)> {
    let op = "laplacian";
    let (m, n) = csgraph.shape();
    if m != n {
        return Err(make::shape(
            op,
            format!("csgraph must be a square matrix, got ({m}, {n})"),
        ));
    }
    let a = if options.symmetrized {
        csgraph.add(&csgraph.transposed()?)?
    } else {
        csgraph.clone()
    };
    let axis = if options.use_out_degree { 1 } else { 0 };
    let deg = a.sum_axis(axis)?.sub(&a.diagonal(0)?)?;
    let (raw, diag) = match a.device() {
        Device::Cpu => {
            let w = hv(&deg);
            let (ip, ind, dat) = cpu::laplacian_entries(
                hv(&a.indptr),
                hv(&a.indices),
                hv(&a.data),
                w,
                options.normed,
            );
            let raw = CsrMatrix::from_host(ip, ind, dat, (n, n), false, &Device::Cpu)?;
            let diag = if options.normed {
                let s: Vec<T> = w
                    .iter()
                    .map(|&x| {
                        if x == zero::<T>() {
                            one::<T>()
                        } else {
                            cusci_core::Float::sqrt(x)
                        }
                    })
                    .collect();
                Array::from_vec(s, &[n], &Device::Cpu)?
            } else {
                deg.clone()
            };
            (raw, diag)
        }
        Device::Cuda(d) => gpu::laplacian(d, &a, &deg, options.normed)?,
    };
    Ok((raw.sum_duplicates()?, diag))
}

/// `construct_dist_matrix(graph, predecessors, directed, null_value)`: the n x n distances
/// along the paths that an n x n predecessor matrix describes (SciPy's default `null_value` is
/// `f64::INFINITY`). As SciPy: distance (i, j) is summed from j back to i, adding
/// `graph[pred[i, k], k]` at each step, over the dense form of the graph (the lightest of
/// duplicates; undirected: zero weights count as no edge, then the lighter direction); 0 on the
/// diagonal; `null_value` where the walk meets a predecessor outside 0..n (-9999 in
/// particular). Where SciPy would loop forever (a cycle of predecessors) the walk stops after n
/// steps with `null_value`. GPU: one thread per (i, j), the same sums.
///
/// ```
/// use cusci_sparse::csgraph::{construct_dist_matrix, dijkstra, PathOptions};
/// use cusci_sparse::{CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let g = CsrMatrix::from_dense(&Array::from_vec(
///     vec![0.0f64, 1.0, 5.0,  0.0, 0.0, 2.0,  0.0, 0.0, 0.0], &[3, 3], &dev)?)?;
/// let opts = PathOptions { return_predecessors: true, ..Default::default() };
/// let r = dijkstra(&g, &opts)?;
/// let d = construct_dist_matrix(&g, r.predecessors.as_ref().unwrap(), true, f64::INFINITY)?;
/// assert_eq!(d.to_vec()?, r.dist_matrix.to_vec()?);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square graph or predecessors of another shape than (n, n);
/// `DeviceMismatch` when they live on another device.
pub fn construct_dist_matrix<T: RealFloat, I: SpIndex>(
    graph: &CsrMatrix<T, I>,
    predecessors: &Array<i32>,
    directed: bool,
    null_value: T,
) -> Result<Array<T>> {
    let op = "construct_dist_matrix";
    let n = nodes(op, graph)?;
    if predecessors.shape() != [n, n] {
        return Err(make::shape(
            op,
            format!(
                "graph and predecessors must have the same shape: ({n}, {n}) and {:?}",
                predecessors.shape()
            ),
        ));
    }
    same_device(op, graph.device(), predecessors)?;
    let dense = csgraph_to_dense(graph, inf::<T>())?;
    let pred = predecessors.contiguous()?;
    match graph.device() {
        Device::Cpu => {
            let out = cpu::dist_from_pred(n, hv(&dense), hv(&pred), directed, null_value);
            Array::from_vec(out, &[n, n], &Device::Cpu)
        }
        Device::Cuda(d) => gpu::dist_from_pred(d, &dense, &pred, directed, null_value),
    }
}

/// `reconstruct_path(csgraph, predecessors, directed)`: the tree of one row of predecessors
/// (length n) as an n x n graph: an edge pred[j] → j for every j whose predecessor is in 0..n,
/// weighted as SciPy weights it: `csgraph[pred[j], j]` (duplicates summed; 0, stored, when the
/// graph has no such entry); undirected: the smaller of that and `csgraph[j, pred[j]]`, each
/// taken as ∞ when 0. Canonical CSR. GPU: a flag pass, a scan and a write kernel, then COO →
/// CSR.
///
/// ```
/// use cusci_sparse::csgraph::{reconstruct_path, NULL_IDX};
/// use cusci_sparse::{CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let g = CsrMatrix::from_dense(&Array::from_vec(
///     vec![0.0f64, 1.0, 5.0,  0.0, 0.0, 2.0,  0.0, 0.0, 0.0], &[3, 3], &dev)?)?;
/// let pred = Array::from_vec(vec![NULL_IDX, 0, 1], &[3], &dev)?;
/// let t = reconstruct_path(&g, &pred, true)?;
/// assert_eq!(t.toarray()?.to_vec()?, vec![0.0, 1.0, 0.0,  0.0, 0.0, 2.0,  0.0, 0.0, 0.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square graph or predecessors of another shape than (n,);
/// `DeviceMismatch` when they live on another device.
pub fn reconstruct_path<T: RealFloat, I: SpIndex>(
    csgraph: &CsrMatrix<T, I>,
    predecessors: &Array<i32>,
    directed: bool,
) -> Result<CsrMatrix<T, I>> {
    let op = "reconstruct_path";
    let n = nodes(op, csgraph)?;
    if predecessors.shape() != [n] {
        return Err(make::shape(
            op,
            format!(
                "predecessors must have shape ({n},), got {:?}",
                predecessors.shape()
            ),
        ));
    }
    same_device(op, csgraph.device(), predecessors)?;
    let pred = predecessors.contiguous()?;
    let coo = match csgraph.device() {
        Device::Cpu => {
            let g = csgraph;
            let (r, c, v) = cpu::tree_edges::<T, I>(
                hv(&g.indptr),
                hv(&g.indices),
                hv(&g.data),
                hv(&pred),
                directed,
            );
            let k = v.len();
            let dev = Device::Cpu;
            CooMatrix {
                data: Array::from_vec(v, &[k], &dev)?,
                row: Array::from_vec(r, &[k], &dev)?,
                col: Array::from_vec(c, &[k], &dev)?,
                shape: (n, n),
            }
        }
        Device::Cuda(d) => gpu::tree_edges(d, csgraph, &pred, directed)?,
    };
    coo.tocsr()
}

// ------------------------------------------------------------------------------------------
// Shortest paths

/// SciPy's `method` of [`shortest_path`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    /// `'auto'`: SciPy's rule — Johnson when indices are given or the graph has fewer than n²/4
    /// stored entries and some stored weight is negative, Dijkstra when so and none is,
    /// Floyd–Warshall otherwise.
    #[default]
    Auto,
    /// `'FW'`: [`floyd_warshall`].
    FloydWarshall,
    /// `'D'`: [`dijkstra`].
    Dijkstra,
    /// `'BF'`: [`bellman_ford`].
    BellmanFord,
    /// `'J'`: [`johnson`].
    Johnson,
}

/// The keyword arguments of the shortest-path functions, with SciPy's defaults
/// (`directed = true`, `limit = ∞`, the rest off). `limit` and `min_only` are [`dijkstra`]'s
/// only; `indices` is not taken by [`floyd_warshall`].
#[derive(Debug, Clone, PartialEq)]
pub struct PathOptions {
    /// `directed`: walk edges i → j only (else both ways).
    pub directed: bool,
    /// `indices`: the sources (rows of the result); `None`: every node. SciPy's scalar index
    /// (a 1-D result) is `Some(vec![i])` here, with a result of shape (1, n).
    pub indices: Option<Vec<usize>>,
    /// `return_predecessors`.
    pub return_predecessors: bool,
    /// `unweighted`: every edge weighs 1 (explicit zeros too).
    pub unweighted: bool,
    /// `limit` (dijkstra): distances above it are not computed (∞, predecessor -9999).
    pub limit: f64,
    /// `min_only` (dijkstra): one row, the distance from the nearest of the sources, with each
    /// node's source in [`ShortestPaths::sources`].
    pub min_only: bool,
}

impl Default for PathOptions {
    fn default() -> Self {
        PathOptions {
            directed: true,
            indices: None,
            return_predecessors: false,
            unweighted: false,
            limit: f64::INFINITY,
            min_only: false,
        }
    }
}

/// What the shortest-path functions return (SciPy's tuple).
#[derive(Debug, Clone)]
pub struct ShortestPaths<T: Float> {
    /// `dist_matrix`: (sources, n); with `min_only`, (n,). ∞ where unreachable.
    pub dist_matrix: Array<T>,
    /// `predecessors` (when asked for): the same shape, `i32`, -9999 for sources and
    /// unreachable nodes.
    pub predecessors: Option<Array<i32>>,
    /// `sources` (dijkstra with `min_only` and `return_predecessors`): the source whose tree
    /// holds each node, -9999 where none.
    pub sources: Option<Array<i32>>,
}

/// The single-source algorithm of a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sssp {
    Dijkstra,
    BellmanFord,
    Johnson,
}

/// A validated single-source search: the rows' sources (one row of all sources with
/// `min_only`), the options.
pub(crate) struct SsspPlan {
    pub n: usize,
    pub rows: Vec<Vec<usize>>,
    pub algo: Sssp,
    pub directed: bool,
    pub unweighted: bool,
    pub limit: f64,
    pub min_only: bool,
    pub want_pred: bool,
}

fn no_dijkstra_only(op: &str, o: &PathOptions) -> Result<()> {
    if o.min_only || o.limit != f64::INFINITY {
        return Err(make::arg(op, "limit and min_only are dijkstra's arguments"));
    }
    Ok(())
}

/// The rows of a search from `indices` (every node when `None`), checked against n.
fn plan<T: Float, I: SpIndex>(
    op: &str,
    g: &CsrMatrix<T, I>,
    o: &PathOptions,
    algo: Sssp,
) -> Result<SsspPlan> {
    let n = nodes(op, g)?;
    if is_nan(o.limit) || o.limit < 0.0 {
        return Err(make::arg(
            op,
            format!("limit must be >= 0, got {}", o.limit),
        ));
    }
    let idx: Vec<usize> = match &o.indices {
        Some(v) => {
            if let Some(&bad) = v.iter().find(|&&i| i >= n) {
                return Err(make::arg(
                    op,
                    format!("indices out of range 0...N: {bad} with N = {n}"),
                ));
            }
            v.clone()
        }
        None => (0..n).collect(),
    };
    let rows = if o.min_only {
        vec![idx]
    } else {
        idx.into_iter().map(|i| vec![i]).collect()
    };
    Ok(SsspPlan {
        n,
        rows,
        // unweighted graphs have no negative weights: SciPy's johnson runs dijkstra
        algo: if algo == Sssp::Johnson && o.unweighted {
            Sssp::Dijkstra
        } else {
            algo
        },
        directed: o.directed,
        unweighted: o.unweighted,
        limit: o.limit,
        min_only: o.min_only,
        want_pred: o.return_predecessors,
    })
}

/// `dijkstra(csgraph, directed, indices, return_predecessors, unweighted, limit, min_only)`:
/// shortest paths from the sources.
///
/// CPU: a label-correcting Dijkstra per source (binary heap; a node improved again is pushed
/// again, so negative weights give exact distances where SciPy warns and may be wrong; after
/// 8 (n + edges) + 64 pops it finishes with Bellman–Ford sweeps). GPU: Bellman–Ford sweeps,
/// one thread per (source, node) pulling over its in-edges (the graph's transpose, built once
/// and cached with the matrix) in place, a flag per sweep read every 8 sweeps. Both stop at
/// the same fixed point — each distance is the smallest floating-point sum, added from the
/// source along the walk, over the walks whose every prefix is within `limit` — so the
/// distances are bitwise equal on both devices (and equal SciPy's up to rounding: SciPy adds
/// in the same order, the path chosen among near-ties may differ).
///
/// Predecessors (deterministic, the same on both devices): among the edges u → v that are
/// tight (`dist[u] + w == dist[v]`), the smallest u that is one edge closer to the source
/// than v in the fewest-edges count of shortest paths (the breadth-first levels of the tight
/// edges). Where shortest paths are unique this is SciPy's predecessor; on ties SciPy's
/// choice depends on its heap.
///
/// ```
/// use cusci_sparse::csgraph::{dijkstra, PathOptions, NULL_IDX};
/// use cusci_sparse::{CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let g = CsrMatrix::from_dense(&Array::from_vec(
///     vec![0.0f64, 1.0, 5.0,  0.0, 0.0, 2.0,  0.0, 0.0, 0.0], &[3, 3], &dev)?)?;
/// let opts = PathOptions { indices: Some(vec![0]), return_predecessors: true, ..Default::default() };
/// let r = dijkstra(&g, &opts)?;
/// assert_eq!(r.dist_matrix.to_vec()?, vec![0.0, 1.0, 3.0]);
/// assert_eq!(r.predecessors.unwrap().to_vec()?, vec![NULL_IDX, 0, 1]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square graph; `InvalidArgument` for an index ≥ n or a negative or
/// NaN limit; `NegativeCycle` when a negative cycle is reachable from a source.
pub fn dijkstra<T: RealFloat, I: SpIndex>(
    csgraph: &CsrMatrix<T, I>,
    options: &PathOptions,
) -> Result<ShortestPaths<T>> {
    let p = plan("dijkstra", csgraph, options, Sssp::Dijkstra)?;
    run_sssp("dijkstra", csgraph, &p)
}

/// `bellman_ford(csgraph, directed, indices, return_predecessors, unweighted)`: shortest paths
/// from the sources, negative weights allowed. CPU: Gauss–Seidel sweeps (nodes in order,
/// relaxing their out-edges) per source; GPU: the sweeps of [`dijkstra`]. The distances and
/// predecessors are those of [`dijkstra`] (the same fixed point and rule), on both devices.
///
/// ```
/// use cusci_sparse::csgraph::{bellman_ford, PathOptions};
/// use cusci_sparse::{CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let g = CsrMatrix::from_dense(&Array::from_vec(
///     vec![0.0f64, 4.0, 1.0,  0.0, 0.0, 0.0,  0.0, -2.0, 0.0], &[3, 3], &dev)?)?;
/// let r = bellman_ford(&g, &PathOptions { indices: Some(vec![0]), ..Default::default() })?;
/// assert_eq!(r.dist_matrix.to_vec()?, vec![0.0, -1.0, 1.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`dijkstra`]; `InvalidArgument` when `limit` or `min_only` is set.
pub fn bellman_ford<T: RealFloat, I: SpIndex>(
    csgraph: &CsrMatrix<T, I>,
    options: &PathOptions,
) -> Result<ShortestPaths<T>> {
    let op = "bellman_ford";
    no_dijkstra_only(op, options)?;
    let p = plan(op, csgraph, options, Sssp::BellmanFord)?;
    run_sssp(op, csgraph, &p)
}

/// `johnson(csgraph, directed, indices, return_predecessors, unweighted)`: Johnson's
/// algorithm, as SciPy: potentials h by Bellman–Ford from a virtual node joined to every node
/// by a zero edge (all h = 0 when no weight is negative), each edge reweighted to
/// `w + (h[u] − h[v])`, the searches of [`dijkstra`] on the reweighted graph (their
/// predecessors by its rule there), then `dist = (dist + h[v]) − h[source]`. `unweighted` runs
/// [`dijkstra`], as SciPy. The same arithmetic on both devices.
///
/// ```
/// use cusci_sparse::csgraph::{johnson, PathOptions};
/// use cusci_sparse::{CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let g = CsrMatrix::from_dense(&Array::from_vec(
///     vec![0.0f64, 4.0, 1.0,  0.0, 0.0, 0.0,  0.0, -2.0, 0.0], &[3, 3], &dev)?)?;
/// let r = johnson(&g, &PathOptions::default())?;
/// assert_eq!(r.dist_matrix.to_vec()?[..3], [0.0, -1.0, 1.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`bellman_ford`]; `NegativeCycle` for a negative cycle anywhere in the graph.
pub fn johnson<T: RealFloat, I: SpIndex>(
    csgraph: &CsrMatrix<T, I>,
    options: &PathOptions,
) -> Result<ShortestPaths<T>> {
    let op = "johnson";
    no_dijkstra_only(op, options)?;
    let p = plan(op, csgraph, options, Sssp::Johnson)?;
    run_sssp(op, csgraph, &p)
}

/// `floyd_warshall(csgraph, directed, return_predecessors, unweighted)`: all-pairs shortest
/// paths on the dense n x n form (the lightest of duplicates; undirected: the lighter
/// direction; the diagonal 0, as SciPy). Blocked Floyd–Warshall in 32 x 32 tiles on both
/// devices — per diagonal tile: the tile, its tile row and column, every other tile, each
/// element relaxed through the tile's nodes in ascending order — the GPU with one thread
/// block per tile and shared memory, the CPU with the same phases and order, so the distances
/// and predecessors are bitwise equal. A predecessor changes only on a strict improvement
/// (to that of the intermediate node); where shortest paths are unique it is SciPy's.
///
/// ```
/// use cusci_sparse::csgraph::{floyd_warshall, PathOptions};
/// use cusci_sparse::{CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let g = CsrMatrix::from_dense(&Array::from_vec(
///     vec![0.0f64, 1.0, 5.0,  0.0, 0.0, 2.0,  0.0, 0.0, 0.0], &[3, 3], &dev)?)?;
/// let r = floyd_warshall(&g, &PathOptions { directed: false, ..Default::default() })?;
/// assert_eq!(r.dist_matrix.to_vec()?, vec![0.0, 1.0, 3.0,  1.0, 0.0, 2.0,  3.0, 2.0, 0.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square graph; `InvalidArgument` when `indices`, `limit` or
/// `min_only` is set; `NegativeCycle` when a diagonal distance ends negative.
pub fn floyd_warshall<T: RealFloat, I: SpIndex>(
    csgraph: &CsrMatrix<T, I>,
    options: &PathOptions,
) -> Result<ShortestPaths<T>> {
    let op = "floyd_warshall";
    no_dijkstra_only(op, options)?;
    if options.indices.is_some() {
        return Err(make::arg(op, "Cannot specify indices with method == 'FW'."));
    }
    let n = nodes(op, csgraph)?;
    let dense = csgraph_to_dense(csgraph, inf::<T>())?;
    let (dw, dirr, want) = (
        options.unweighted,
        options.directed,
        options.return_predecessors,
    );
    let (dist, pred, ok) = match csgraph.device() {
        Device::Cpu => {
            let (mut d, mut p) = cpu::fw_init(n, hv(&dense), dirr, dw, want);
            let ok = cpu::floyd_warshall(n, &mut d, &mut p, want);
            let dev = Device::Cpu;
            let pred = if want {
                Some(Array::from_vec(p, &[n, n], &dev)?)
            } else {
                None
            };
            (Array::from_vec(d, &[n, n], &dev)?, pred, ok)
        }
        Device::Cuda(d) => gpu::floyd_warshall(d, &dense, dirr, dw, want)?,
    };
    if !ok {
        return Err(Error::NegativeCycle { op: op.into() });
    }
    Ok(ShortestPaths {
        dist_matrix: dist,
        predecessors: pred,
        sources: None,
    })
}

/// `shortest_path(csgraph, method, directed, return_predecessors, unweighted, indices)`: the
/// function of `method`; [`Method::Auto`] chooses as SciPy (`nnz < n²/4` or indices given:
/// Johnson when a stored weight is negative, else Dijkstra; otherwise Floyd–Warshall; the
/// sign test reads one value from the device).
///
/// ```
/// use cusci_sparse::csgraph::{shortest_path, Method, PathOptions};
/// use cusci_sparse::{CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let g = CsrMatrix::from_dense(&Array::from_vec(
///     vec![0.0f64, 1.0, 5.0,  0.0, 0.0, 2.0,  0.0, 0.0, 0.0], &[3, 3], &dev)?)?;
/// let r = shortest_path(&g, Method::Auto, &PathOptions::default())?;
/// assert_eq!(r.dist_matrix.to_vec()?[..3], [0.0, 1.0, 3.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// Those of the method; `InvalidArgument` when `limit` or `min_only` is set, or for indices
/// with Floyd–Warshall.
pub fn shortest_path<T: RealFloat, I: SpIndex>(
    csgraph: &CsrMatrix<T, I>,
    method: Method,
    options: &PathOptions,
) -> Result<ShortestPaths<T>> {
    let op = "shortest_path";
    no_dijkstra_only(op, options)?;
    let n = nodes(op, csgraph)?;
    let method = match method {
        Method::Auto => {
            if options.indices.is_some() || (csgraph.nnz() as f64) < (n as f64) * (n as f64) / 4.0 {
                // implicit zeros do not lower the minimum below 0
                if csgraph.nnz() > 0 && csgraph.min()? < zero::<T>() {
                    Method::Johnson
                } else {
                    Method::Dijkstra
                }
            } else {
                Method::FloydWarshall
            }
        }
        m => m,
    };
    match method {
        Method::FloydWarshall => floyd_warshall(csgraph, options),
        Method::Dijkstra => dijkstra(csgraph, options),
        Method::BellmanFord => bellman_ford(csgraph, options),
        _ => johnson(csgraph, options),
    }
}

/// The searches of a plan on the graph's device, then the output arrays.
fn run_sssp<T: RealFloat, I: SpIndex>(
    op: &str,
    g: &CsrMatrix<T, I>,
    p: &SsspPlan,
) -> Result<ShortestPaths<T>> {
    let res = match g.device() {
        Device::Cpu => sssp_cpu(g, p)?,
        Device::Cuda(d) => gpu::sssp(d, g, p)?,
    };
    let Some((dist, pred, src)) = res else {
        return Err(Error::NegativeCycle { op: op.into() });
    };
    let shape: Vec<usize> = if p.min_only {
        vec![p.n]
    } else {
        vec![p.rows.len(), p.n]
    };
    let shape_i: Vec<isize> = shape.iter().map(|&x| x as isize).collect();
    Ok(ShortestPaths {
        dist_matrix: dist.reshape(&shape_i)?,
        predecessors: match pred {
            Some(a) if p.want_pred => Some(a.reshape(&shape_i)?),
            _ => None,
        },
        sources: match src {
            Some(a) if p.want_pred && p.min_only => Some(a.reshape(&shape_i)?),
            _ => None,
        },
    })
}

/// The flat (rows · n) distances, predecessors and sources of a search; `None` for a negative
/// cycle.
pub(crate) type Searched<T> = Option<(Array<T>, Option<Array<i32>>, Option<Array<i32>>)>;

/// The CPU searches: Johnson's potentials first, then each row in parallel.
fn sssp_cpu<T: RealFloat, I: SpIndex>(g: &CsrMatrix<T, I>, p: &SsspPlan) -> Result<Searched<T>> {
    let n = p.n;
    let t = if p.directed {
        None
    } else {
        Some(g.transposed()?)
    };
    let fwd = Csr {
        ip: hv(&g.indptr),
        ind: hv(&g.indices),
        val: hv(&g.data),
    };
    let rev = t.as_ref().map(|t| Csr {
        ip: hv(&t.indptr),
        ind: hv(&t.indices),
        val: hv(&t.data),
    });
    let mut base = Graph {
        n,
        fwd,
        rev,
        unweighted: p.unweighted,
        h: None,
        limit: p.limit,
    };
    // Johnson's potentials: sweeps from the virtual node (every node at 0)
    let h = if p.algo == Sssp::Johnson && fwd.val.iter().any(|&w| w < zero::<T>()) {
        let mut h = vec![zero::<T>(); n];
        if !cpu::sweeps(&base, &mut h) {
            return Ok(None);
        }
        Some(h)
    } else {
        None
    };
    base.h = h.as_deref();
    let k = p.rows.len();
    let mut dist = vec![inf::<T>(); k * n];
    let mut pred = vec![NULL_IDX; if p.want_pred { k * n } else { 0 }];
    let mut src = vec![NULL_IDX; if p.want_pred { k * n } else { 0 }];
    if n > 0 {
        let ok = dist
            .par_chunks_mut(n)
            .zip(p.rows.par_iter())
            .map(|(row, sources)| {
                for &s in sources {
                    row[s] = zero::<T>();
                }
                match p.algo {
                    Sssp::BellmanFord => cpu::sweeps(&base, row),
                    _ => cpu::label_correcting(&base, row),
                }
            })
            .collect::<Vec<bool>>();
        if ok.iter().any(|&o| !o) {
            return Ok(None);
        }
        if p.want_pred {
            dist.par_chunks(n)
                .zip(pred.par_chunks_mut(n).zip(src.par_chunks_mut(n)))
                .zip(p.rows.par_iter())
                .for_each(|((row, (pr, sr)), sources)| {
                    cpu::predecessors(&base, row, sources, pr, sr)
                });
        }
        if let Some(h) = base.h {
            dist.par_chunks_mut(n)
                .zip(p.rows.par_iter())
                .for_each(|(row, sources)| {
                    let hs = h[sources[0]];
                    for (v, d) in row.iter_mut().enumerate() {
                        if *d < inf::<T>() {
                            *d = (*d + h[v]) - hs;
                        }
                    }
                });
        }
    }
    let dev = Device::Cpu;
    let flat = [k * n];
    Ok(Some((
        Array::from_vec(dist, &flat, &dev)?,
        if p.want_pred {
            Some(Array::from_vec(pred, &flat, &dev)?)
        } else {
            None
        },
        if p.want_pred {
            Some(Array::from_vec(src, &flat, &dev)?)
        } else {
            None
        },
    )))
}

// ------------------------------------------------------------------------------------------
// Traversals

/// The traversal of [`traverse`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    Breadth,
    Depth,
}

/// The order and the predecessors of a traversal from `start`, on the graph's device.
fn traverse<T: RealFloat, I: SpIndex>(
    op: &str,
    g: &CsrMatrix<T, I>,
    start: usize,
    directed: bool,
    order: Order,
) -> Result<(Array<i32>, Array<i32>)> {
    let n = nodes(op, g)?;
    if start >= n {
        return Err(make::arg(
            op,
            format!("i_start = {start} is out of range for {n} nodes"),
        ));
    }
    let t = if directed {
        None
    } else {
        Some(g.transposed()?)
    };
    match g.device() {
        Device::Cpu => {
            let fwd = (hv(&g.indptr), hv(&g.indices));
            let rev = t.as_ref().map(|t| (hv(&t.indptr), hv(&t.indices)));
            let (o, p) = match order {
                Order::Breadth => cpu::bfs(n, fwd, rev, start),
                Order::Depth => cpu::dfs(n, fwd, rev, start),
            };
            let dev = Device::Cpu;
            let k = o.len();
            Ok((
                Array::from_vec(o, &[k], &dev)?,
                Array::from_vec(p, &[n], &dev)?,
            ))
        }
        Device::Cuda(d) => gpu::traverse(d, g, t.as_ref(), start, order),
    }
}

/// `breadth_first_order(csgraph, i_start, directed, return_predecessors)`: the nodes reachable
/// from `i_start` in breadth-first order, and (when asked for) each node's predecessor in the
/// breadth-first tree (-9999 for `i_start` and unreached nodes), as SciPy: a queue, each node's
/// neighbours in stored order (its row; undirected, then its column, i.e. its row of the
/// transpose, by ascending row), every stored entry an edge (explicit zeros too).
///
/// GPU: level-synchronous frontiers that keep SciPy's order: each frontier node claims its
/// unvisited neighbours with a 64-bit `atomicMin` of (its rank in the frontier, the neighbour's
/// position in its list), so each node goes to the earliest claim — the one SciPy's queue
/// makes; each frontier node then counts and, after a scan, writes the nodes it won in list
/// order. One wait per level (the next frontier's size).
///
/// ```
/// use cusci_sparse::csgraph::{breadth_first_order, NULL_IDX};
/// use cusci_sparse::{CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let g = CsrMatrix::from_dense(&Array::from_vec(
///     vec![0.0f64, 1.0, 1.0,  0.0, 0.0, 0.0,  1.0, 0.0, 0.0], &[3, 3], &dev)?)?;
/// let (order, pred) = breadth_first_order(&g, 2, true, true)?;
/// assert_eq!(order.to_vec()?, vec![2, 0, 1]);
/// assert_eq!(pred.unwrap().to_vec()?, vec![2, 0, NULL_IDX]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square graph; `InvalidArgument` for `i_start` ≥ n.
pub fn breadth_first_order<T: RealFloat, I: SpIndex>(
    csgraph: &CsrMatrix<T, I>,
    i_start: usize,
    directed: bool,
    return_predecessors: bool,
) -> Result<(Array<i32>, Option<Array<i32>>)> {
    let (o, p) = traverse(
        "breadth_first_order",
        csgraph,
        i_start,
        directed,
        Order::Breadth,
    )?;
    Ok((o, return_predecessors.then_some(p)))
}

/// `depth_first_order(csgraph, i_start, directed, return_predecessors)`: the nodes reachable
/// from `i_start` in SciPy's depth-first order (the node on top of the stack descends to its
/// first unvisited neighbour, in the order of [`breadth_first_order`], or is popped), and the
/// predecessors. GPU: a one-thread kernel running the same loop (depth-first order is
/// sequential by nature); it reads nothing back but the count.
///
/// ```
/// use cusci_sparse::csgraph::depth_first_order;
/// use cusci_sparse::{CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let g = CsrMatrix::from_dense(&Array::from_vec(
///     vec![0.0f64, 1.0, 1.0,  0.0, 0.0, 1.0,  0.0, 0.0, 0.0], &[3, 3], &dev)?)?;
/// let (order, _) = depth_first_order(&g, 0, true, false)?;
/// assert_eq!(order.to_vec()?, vec![0, 1, 2]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`breadth_first_order`].
pub fn depth_first_order<T: RealFloat, I: SpIndex>(
    csgraph: &CsrMatrix<T, I>,
    i_start: usize,
    directed: bool,
    return_predecessors: bool,
) -> Result<(Array<i32>, Option<Array<i32>>)> {
    let (o, p) = traverse(
        "depth_first_order",
        csgraph,
        i_start,
        directed,
        Order::Depth,
    )?;
    Ok((o, return_predecessors.then_some(p)))
}

/// `breadth_first_tree(csgraph, i_start, directed)`: the breadth-first tree as an n x n graph,
/// as SciPy: [`reconstruct_path`] of [`breadth_first_order`]'s predecessors.
///
/// ```
/// use cusci_sparse::csgraph::breadth_first_tree;
/// use cusci_sparse::{CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let g = CsrMatrix::from_dense(&Array::from_vec(
///     vec![0.0f64, 1.0, 4.0,  0.0, 0.0, 2.0,  0.0, 0.0, 0.0], &[3, 3], &dev)?)?;
/// let t = breadth_first_tree(&g, 0, true)?;
/// assert_eq!(t.toarray()?.to_vec()?, vec![0.0, 1.0, 4.0,  0.0, 0.0, 0.0,  0.0, 0.0, 0.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`breadth_first_order`].
pub fn breadth_first_tree<T: RealFloat, I: SpIndex>(
    csgraph: &CsrMatrix<T, I>,
    i_start: usize,
    directed: bool,
) -> Result<CsrMatrix<T, I>> {
    let (_, p) = traverse(
        "breadth_first_tree",
        csgraph,
        i_start,
        directed,
        Order::Breadth,
    )?;
    reconstruct_path(csgraph, &p, directed)
}

/// `depth_first_tree(csgraph, i_start, directed)`: the depth-first tree as an n x n graph, as
/// SciPy: [`reconstruct_path`] of [`depth_first_order`]'s predecessors.
///
/// ```
/// use cusci_sparse::csgraph::depth_first_tree;
/// use cusci_sparse::{CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let g = CsrMatrix::from_dense(&Array::from_vec(
///     vec![0.0f64, 1.0, 4.0,  0.0, 0.0, 2.0,  0.0, 0.0, 0.0], &[3, 3], &dev)?)?;
/// let t = depth_first_tree(&g, 0, true)?;
/// assert_eq!(t.toarray()?.to_vec()?, vec![0.0, 1.0, 0.0,  0.0, 0.0, 2.0,  0.0, 0.0, 0.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`breadth_first_order`].
pub fn depth_first_tree<T: RealFloat, I: SpIndex>(
    csgraph: &CsrMatrix<T, I>,
    i_start: usize,
    directed: bool,
) -> Result<CsrMatrix<T, I>> {
    let (_, p) = traverse("depth_first_tree", csgraph, i_start, directed, Order::Depth)?;
    reconstruct_path(csgraph, &p, directed)
}

// ------------------------------------------------------------------------------------------
// Spanning trees

/// `minimum_spanning_tree(csgraph)`: a minimum spanning forest of the graph taken as
/// undirected, as SciPy computes it: every stored entry (i, j) is an edge between i and j
/// (both directions and duplicates are separate candidates), taken in the order of a stable
/// sort of the values (ties by stored position; NaN last), each kept when it joins two
/// subtrees; the result holds the kept entries at their own positions, zeros dropped (SciPy's
/// `eliminate_zeros`: a zero-weight tree edge does not appear). The order (value, position) is
/// total, so the forest is unique: ties give SciPy's tree on both devices.
///
/// CPU: Kruskal (a parallel sort, union–find). GPU: Borůvka — each component picks its lightest
/// outgoing entry under the same order (an `atomicMin` of the value's ordered bits, then of the
/// position among entries of that value), hooks to the other end's component (a pair that
/// chose each other keeps the smaller root), pointer jumping; one flag read per round (at most
/// log₂ n + 1 rounds); the kept entries are written by a count, scan, write pass.
///
/// ```
/// use cusci_sparse::csgraph::minimum_spanning_tree;
/// use cusci_sparse::{CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let g = CsrMatrix::from_dense(&Array::from_vec(vec![
///     0.0f64, 8.0, 0.0, 3.0,
///     0.0, 0.0, 2.0, 5.0,
///     0.0, 0.0, 0.0, 6.0,
///     0.0, 0.0, 0.0, 0.0], &[4, 4], &dev)?)?;
/// let t = minimum_spanning_tree(&g)?;
/// assert_eq!(t.toarray()?.to_vec()?, vec![
///     0.0, 0.0, 0.0, 3.0,
///     0.0, 0.0, 2.0, 5.0,
///     0.0, 0.0, 0.0, 0.0,
///     0.0, 0.0, 0.0, 0.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square graph.
pub fn minimum_spanning_tree<T: RealFloat, I: SpIndex>(
    csgraph: &CsrMatrix<T, I>,
) -> Result<CsrMatrix<T, I>> {
    let n = nodes("minimum_spanning_tree", csgraph)?;
    let g = csgraph;
    match g.device() {
        Device::Cpu => {
            let (ip, ind, val) = (hv(&g.indptr), hv(&g.indices), hv(&g.data));
            let keep = cpu::kruskal(ip, ind, val);
            let mut oip = Vec::with_capacity(n + 1);
            let (mut oind, mut oval) = (Vec::new(), Vec::new());
            oip.push(I::of(0));
            for r in 0..n {
                for e in ip[r].ix()..ip[r + 1].ix() {
                    if keep[e] && val[e] != zero::<T>() {
                        oind.push(ind[e]);
                        oval.push(val[e]);
                    }
                }
                oip.push(I::of(oind.len()));
            }
            CsrMatrix::from_host(oip, oind, oval, (n, n), g.canonical, &Device::Cpu)
        }
        Device::Cuda(d) => gpu::boruvka(d, g),
    }
}

// ------------------------------------------------------------------------------------------
// Reordering

/// `reverse_cuthill_mckee(graph, symmetric_mode)`: SciPy's reverse Cuthill–McKee permutation
/// (`i32`). Unless `symmetric_mode`, the pattern of `graph + graphᵀ` is used (zeros of the sum
/// dropped, as SciPy's sum drops them); with it, the graph's rows as stored. As SciPy: the
/// degree of a node is its row's stored entries, plus one when the row stores its diagonal;
/// each component starts from its lowest-degree unvisited node; breadth-first, the nodes that
/// each node adds are sorted by degree (stable insertion sort); the whole order is reversed.
/// SciPy picks the seeds with NumPy's unstable `argsort`, so among seeds of equal degree its
/// choice depends on the platform's sort; this function takes the smallest index (the result
/// is SciPy's wherever the seeds' degrees differ).
///
/// GPU: the degrees by a parallel kernel, then one thread runs the same loop (a stable counting
/// sort of the seeds, the levels, the insertion sorts): Cuthill–McKee's order is sequential.
///
/// ```
/// use cusci_sparse::csgraph::reverse_cuthill_mckee;
/// use cusci_sparse::{CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// // the path 0 - 2 - 1
/// let g = CsrMatrix::from_dense(&Array::from_vec(
///     vec![0.0f64, 0.0, 1.0,  0.0, 0.0, 1.0,  1.0, 1.0, 0.0], &[3, 3], &dev)?)?;
/// assert_eq!(reverse_cuthill_mckee(&g, true)?.to_vec()?, vec![1, 2, 0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square graph.
pub fn reverse_cuthill_mckee<T: RealFloat, I: SpIndex>(
    graph: &CsrMatrix<T, I>,
    symmetric_mode: bool,
) -> Result<Array<i32>> {
    let n = nodes("reverse_cuthill_mckee", graph)?;
    let g = if symmetric_mode {
        graph.clone()
    } else {
        graph
            .add(&graph.transposed()?)?
            .eliminate_zeros()?
            .sum_duplicates()?
    };
    match g.device() {
        Device::Cpu => {
            let p = cpu::rcm(hv(&g.indptr), hv(&g.indices));
            Array::from_vec(p, &[n], &Device::Cpu)
        }
        Device::Cuda(d) => gpu::rcm(d, &g),
    }
}

/// `structural_rank(graph)`: the largest rank any matrix of this sparsity pattern can have —
/// the size of a maximum matching between rows and columns, every stored entry counting
/// (explicit zeros too, as SciPy). Any shape. CPU: Kuhn's augmenting paths (depth-first, an
/// explicit stack, O(rows · entries) at worst). GPU: the same loop in one thread (augmenting
/// paths are sequential), then one read of the count.
///
/// ```
/// use cusci_sparse::csgraph::structural_rank;
/// use cusci_sparse::{CsrMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let g = CsrMatrix::from_dense(&Array::from_vec(
///     vec![1.0f64, 1.0, 0.0,  1.0, 0.0, 0.0,  1.0, 0.0, 0.0], &[3, 3], &dev)?)?;
/// assert_eq!(structural_rank(&g)?, 2);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// Device errors only.
pub fn structural_rank<T: Float, I: SpIndex>(graph: &CsrMatrix<T, I>) -> Result<usize> {
    let (m, n) = graph.shape();
    if m == 0 || n == 0 {
        return Ok(0);
    }
    match graph.device() {
        Device::Cpu => Ok(cpu::max_matching(hv(&graph.indptr), hv(&graph.indices), n)),
        Device::Cuda(d) => gpu::max_matching(d, &graph.indptr, &graph.indices, n),
    }
}
