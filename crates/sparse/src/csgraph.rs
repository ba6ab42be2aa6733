//! `scipy.sparse.csgraph`: [`connected_components`] (weak connection).

use crate::cuda::{blocks, launch, p};
use crate::matrix::CsrMatrix;
use cusci_core::cuda::kernel::Args;
use cusci_core::error::make;
use cusci_core::{Array, Device, Float, Result};

/// SciPy's `connection` argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Connection {
    /// Nodes joined by a path ignoring edge directions.
    #[default]
    Weak,
    /// Nodes joined by directed paths both ways (not implemented yet: `NotImplemented`).
    Strong,
}

/// `connected_components(csgraph, directed, connection)`: the number of components and the label
/// of every node. Every stored entry (i, j) is an edge i → j, whatever its value (call
/// `eliminate_zeros` first to drop stored zeros). Components are numbered by their smallest
/// node, as SciPy's traversal from node 0 numbers them.
/// With `directed = false` or [`Connection::Weak`] the weak components are returned.
///
/// GPU: min-label propagation with pointer jumping (this crate's kernels), one wait per sweep;
/// CPU: union–find. Both give the same labels.
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
/// # Errors
/// `ShapeMismatch` for a non-square graph; `NotImplemented` for strong components of a
/// directed graph.
pub fn connected_components<T: Float>(
    graph: &CsrMatrix<T>,
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
    if directed && connection == Connection::Strong {
        return Err(make::not_implemented(
            "connected_components(connection=strong)",
            graph.device(),
        ));
    }
    match graph.device() {
        Device::Cpu => {
            let ip = graph.indptr.cpu_data().unwrap_or(&[0]);
            let ind = graph.indices.cpu_data().unwrap_or(&[]);
            let mut parent: Vec<usize> = (0..n).collect();
            fn find(p: &mut [usize], mut x: usize) -> usize {
                while p[x] != x {
                    p[x] = p[p[x]];
                    x = p[x];
                }
                x
            }
            for r in 0..n {
                for &c in &ind[ip[r] as usize..ip[r + 1] as usize] {
                    let (a, b) = (find(&mut parent, r), find(&mut parent, c as usize));
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
            let label = Array::<i32>::empty(&[n], dev)?;
            let nb = blocks(d, n);
            launch::<T>(d, "cc_init", nb, Args::new().push(p(&label)).push(n as i64))?;
            loop {
                let flag = Array::<i32>::zeros(&[1], dev)?;
                launch::<T>(
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
                launch::<T>(d, "cc_jump", nb, Args::new().push(p(&label)).push(n as i64))?;
                if flag.item()? == 0 {
                    break;
                }
            }
            let roots = Array::<i32>::zeros(&[n + 1], dev)?;
            launch::<T>(
                d,
                "cc_roots",
                nb,
                Args::new().push(p(&label)).push(n as i64).push(p(&roots)),
            )?;
            let rank = roots.cumsum(0)?;
            let k = rank.index_axis(0, -1)?.item()? as usize;
            let out = Array::<i32>::empty(&[n], dev)?;
            launch::<T>(
                d,
                "cc_relabel",
                nb,
                Args::new()
                    .push(p(&label))
                    .push(p(&rank))
                    .push(n as i64)
                    .push(p(&out)),
            )?;
            Ok((k, out))
        }
    }
}
