//! `scipy.sparse.csgraph`: [`connected_components`] (weak and strong connection).

use crate::cuda::{blocks, launch_fm, launch_ix, p};
use crate::matrix::CsrMatrix;
use crate::SpIndex;
use cusci_core::cuda::kernel::Args;
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
    if directed && connection == Connection::Strong {
        return strong(graph);
    }
    match graph.device() {
        Device::Cpu => {
            let ip = crate::matrix::hv(&graph.indptr);
            let ind = crate::matrix::hv(&graph.indices);
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
            Ok((k as usize, Array::from_vec(labels, &[n], &Device::Cpu)?))
        }
        Device::Cuda(d) => {
            let dev = graph.device();
            // node labels of the index type (the kernels of the graph's module)
            let label = Array::<I>::empty(&[n], dev)?;
            let nb = blocks(d, n);
            launch_ix::<T, I>(d, "cc_init", nb, Args::new().push(p(&label)).push(n as i64))?;
            loop {
                let flag = Array::<i32>::zeros(&[1], dev)?;
                launch_ix::<T, I>(
                    d,
                    "cc_hook",
                    nb,
                    Args::new()
                        .push(p(&graph.indptr))
                        .push(p(&graph.indices))
                        .push(n as i64)
                        .push(p(&label))
                        .push(p(&flag)),
                )?;
                launch_ix::<T, I>(d, "cc_jump", nb, Args::new().push(p(&label)).push(n as i64))?;
                if flag.item()? == 0 {
                    break;
                }
            }
            relabel_by_roots::<T, I>(d, nb, &label, n)
        }
    }
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

/// Sweeps of the GPU's strong-component loops queued between two reads of their flag.
const BATCH: usize = 8;

fn strong<T: Float, I: SpIndex>(graph: &CsrMatrix<T, I>) -> Result<(usize, Array<i32>)> {
    let n = graph.shape().0;
    let dev = graph.device();
    match dev {
        Device::Cpu => {
            let ip = crate::matrix::hv(&graph.indptr);
            let ind = crate::matrix::hv(&graph.indices);
            let (k, labels) = number_by_smallest(&tarjan(ip, ind));
            Ok((k, Array::from_vec(labels, &[n], dev)?))
        }
        Device::Cuda(d) => {
            if n == 0 {
                return Ok((0, Array::<i32>::zeros(&[0], dev)?));
            }
            let nb = blocks(d, n);
            let scc = Array::<i32>::full(&[n], -1, dev)?;
            let color = Array::<i32>::empty(&[n], dev)?;
            let mark = Array::<i32>::empty(&[n], dev)?;
            let (ip, ind) = (&graph.indptr, &graph.indices);
            let deg = Array::<i32>::empty(&[n], dev)?;
            // one sweep of `name` over the graph's edges with (scc, extra...) arguments; the
            // flag is read after BATCH sweeps (a batch without change means converged)
            let sweeps = |name: &str, extra: &[&Array<i32>]| -> Result<()> {
                loop {
                    let flag = Array::<i32>::zeros(&[1], dev)?;
                    for _ in 0..BATCH {
                        let mut a = Args::new();
                        a.push(p(ip)).push(p(ind)).push(n as i64).push(p(&scc));
                        for x in extra {
                            a.push(p(*x));
                        }
                        a.push(p(&flag));
                        launch_fm::<T, I>(d, name, nb, &mut a)?;
                    }
                    if flag.item()? == 0 {
                        return Ok(());
                    }
                }
            };
            loop {
                // trim nodes without an edge in or out (chains end here), BATCH sweeps a wait
                loop {
                    let flag = Array::<i32>::zeros(&[1], dev)?;
                    for _ in 0..BATCH {
                        launch_fm::<T, I>(
                            d,
                            "scc_clear",
                            nb,
                            Args::new().push(p(&deg)).push(n as i64),
                        )?;
                        launch_fm::<T, I>(
                            d,
                            "scc_deg",
                            nb,
                            Args::new()
                                .push(p(ip))
                                .push(p(ind))
                                .push(n as i64)
                                .push(p(&scc))
                                .push(p(&deg)),
                        )?;
                        launch_fm::<T, I>(
                            d,
                            "scc_trim",
                            nb,
                            Args::new()
                                .push(p(&deg))
                                .push(n as i64)
                                .push(p(&scc))
                                .push(p(&flag)),
                        )?;
                    }
                    if flag.item()? == 0 {
                        break;
                    }
                }
                launch_fm::<T, I>(
                    d,
                    "scc_init",
                    nb,
                    Args::new().push(p(&color)).push(p(&scc)).push(n as i64),
                )?;
                sweeps("scc_fwd", &[&color])?;
                launch_fm::<T, I>(
                    d,
                    "scc_root",
                    nb,
                    Args::new()
                        .push(p(&color))
                        .push(p(&scc))
                        .push(n as i64)
                        .push(p(&mark)),
                )?;
                sweeps("scc_bwd", &[&color, &mark])?;
                let left = Array::<i32>::zeros(&[1], dev)?;
                launch_fm::<T, I>(
                    d,
                    "scc_assign",
                    nb,
                    Args::new()
                        .push(p(&color))
                        .push(p(&mark))
                        .push(n as i64)
                        .push(p(&scc))
                        .push(p(&left)),
                )?;
                if left.item()? == 0 {
                    break;
                }
            }
            let minid = Array::<i32>::full(&[n], n as i32, dev)?;
            launch_fm::<T, I>(
                d,
                "scc_min",
                nb,
                Args::new().push(p(&scc)).push(n as i64).push(p(&minid)),
            )?;
            let label = Array::<i32>::empty(&[n], dev)?;
            launch_fm::<T, I>(
                d,
                "scc_label",
                nb,
                Args::new()
                    .push(p(&scc))
                    .push(p(&minid))
                    .push(n as i64)
                    .push(p(&label)),
            )?;
            relabel_by_roots::<T, i32>(d, nb, &label, n)
        }
    }
}

/// Component numbers 0..k from root labels (each node labelled by its component's root, the
/// smallest node): roots flagged, their ranks by a prefix sum, every node relabelled by its
/// root's rank. Returns k (one scalar read) and the labels.
fn relabel_by_roots<T: Float, L: SpIndex>(
    d: &cusci_core::CudaDevice,
    nb: u32,
    label: &Array<L>,
    n: usize,
) -> Result<(usize, Array<i32>)> {
    let dev = label.device();
    let roots = Array::<L>::zeros(&[n + 1], dev)?;
    launch_ix::<T, L>(
        d,
        "cc_roots",
        nb,
        Args::new().push(p(label)).push(n as i64).push(p(&roots)),
    )?;
    let rank = roots.cumsum(0)?;
    let k = crate::matrix::last(&rank)?;
    let out = Array::<i32>::empty(&[n], dev)?;
    launch_ix::<T, L>(
        d,
        "cc_relabel",
        nb,
        Args::new()
            .push(p(label))
            .push(p(&rank))
            .push(n as i64)
            .push(p(&out)),
    )?;
    Ok((k, out))
}
