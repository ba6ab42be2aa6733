//! The GPU side of `csgraph::connected_components`: weak components by min-label propagation
//! with pointer jumping (`cc_*` of `sparse.cu`), strong components by trimming and colouring
//! (`scc_*` of `formats.cu`), both numbered by their smallest node.

use crate::cuda::{formats_fn, grid, last, sparse_fn};
use crate::matrix::CsrMatrix;
use crate::SpIndex;
use cusci_core::{Array, CudaDevice, Float, Result};

/// Sweeps of the strong-component loops queued between two reads of their flag.
const BATCH: usize = 8;

/// The weak components of the n-node graph `g`: the count and the labels.
pub(crate) fn weak<T: Float, I: SpIndex>(
    d: &CudaDevice,
    g: &CsrMatrix<T, I>,
) -> Result<(usize, Array<i32>)> {
    let n = g.shape.0;
    let dev = g.device();
    // node labels of the index type (the kernels of the graph's module)
    let mut label = Array::<I>::empty(&[n], dev)?;
    let cfg = grid(d, n);
    let init = sparse_fn::<T, I>(d, "cc_init")?;
    let hook = sparse_fn::<T, I>(d, "cc_hook")?;
    let jump = sparse_fn::<T, I>(d, "cc_jump")?;
    d.launch(&init, cfg)
        .arg(label.dev_ptr_mut()?)
        .arg(n as i64)
        .run()?;
    loop {
        let mut flag = Array::<i32>::zeros(&[1], dev)?;
        d.launch(&hook, cfg)
            .arg(g.indptr.dev_ptr()?)
            .arg(g.indices.dev_ptr()?)
            .arg(n as i64)
            .arg(label.dev_ptr_mut()?)
            .arg(flag.dev_ptr_mut()?)
            .run()?;
        d.launch(&jump, cfg)
            .arg(label.dev_ptr_mut()?)
            .arg(n as i64)
            .run()?;
        if flag.item()? == 0 {
            break;
        }
    }
    relabel_by_roots::<T, I>(d, &label)
}

/// The strong components of the n-node graph `g`: rounds of trimming (nodes without an edge in
/// or out of the remaining graph are components of their own), forward max-colour propagation
/// and backward reachability of each colour's root within its colour, until every node is
/// assigned; the flags are read every [`BATCH`] sweeps.
pub(crate) fn strong<T: Float, I: SpIndex>(
    d: &CudaDevice,
    g: &CsrMatrix<T, I>,
) -> Result<(usize, Array<i32>)> {
    let n = g.shape.0;
    let dev = g.device();
    if n == 0 {
        return Ok((0, Array::<i32>::zeros(&[0], dev)?));
    }
    let cfg = grid(d, n);
    let kernel = |name: &str| formats_fn::<T, I>(d, name);
    let (clear, deg_k, trim) = (
        kernel("scc_clear")?,
        kernel("scc_deg")?,
        kernel("scc_trim")?,
    );
    let (init, root, assign) = (
        kernel("scc_init")?,
        kernel("scc_root")?,
        kernel("scc_assign")?,
    );
    let mut scc = Array::<i32>::full(&[n], -1, dev)?;
    let mut color = Array::<i32>::empty(&[n], dev)?;
    let mut mark = Array::<i32>::empty(&[n], dev)?;
    let mut deg = Array::<i32>::empty(&[n], dev)?;
    let (ip, ind) = (&g.indptr, &g.indices);
    loop {
        // trim nodes without an edge in or out (chains end here), BATCH sweeps a wait
        loop {
            let mut flag = Array::<i32>::zeros(&[1], dev)?;
            for _ in 0..BATCH {
                d.launch(&clear, cfg)
                    .arg(deg.dev_ptr_mut()?)
                    .arg(n as i64)
                    .run()?;
                d.launch(&deg_k, cfg)
                    .arg(ip.dev_ptr()?)
                    .arg(ind.dev_ptr()?)
                    .arg(n as i64)
                    .arg(scc.dev_ptr()?)
                    .arg(deg.dev_ptr_mut()?)
                    .run()?;
                d.launch(&trim, cfg)
                    .arg(deg.dev_ptr()?)
                    .arg(n as i64)
                    .arg(scc.dev_ptr_mut()?)
                    .arg(flag.dev_ptr_mut()?)
                    .run()?;
            }
            if flag.item()? == 0 {
                break;
            }
        }
        d.launch(&init, cfg)
            .arg(color.dev_ptr_mut()?)
            .arg(scc.dev_ptr()?)
            .arg(n as i64)
            .run()?;
        sweeps(d, g, "scc_fwd", &scc, None, &mut color)?;
        d.launch(&root, cfg)
            .arg(color.dev_ptr()?)
            .arg(scc.dev_ptr()?)
            .arg(n as i64)
            .arg(mark.dev_ptr_mut()?)
            .run()?;
        sweeps(d, g, "scc_bwd", &scc, Some(&color), &mut mark)?;
        let mut left = Array::<i32>::zeros(&[1], dev)?;
        d.launch(&assign, cfg)
            .arg(color.dev_ptr()?)
            .arg(mark.dev_ptr()?)
            .arg(n as i64)
            .arg(scc.dev_ptr_mut()?)
            .arg(left.dev_ptr_mut()?)
            .run()?;
        if left.item()? == 0 {
            break;
        }
    }
    let mut minid = Array::<i32>::full(&[n], n as i32, dev)?;
    d.launch(&kernel("scc_min")?, cfg)
        .arg(scc.dev_ptr()?)
        .arg(n as i64)
        .arg(minid.dev_ptr_mut()?)
        .run()?;
    let mut label = Array::<i32>::empty(&[n], dev)?;
    d.launch(&kernel("scc_label")?, cfg)
        .arg(scc.dev_ptr()?)
        .arg(minid.dev_ptr()?)
        .arg(n as i64)
        .arg(label.dev_ptr_mut()?)
        .run()?;
    relabel_by_roots::<T, i32>(d, &label)
}

/// Sweeps of the kernel `name` over the edges of `g` with the arguments (indptr, indices, n,
/// scc, `read` when given, `out`, flag) until a batch of [`BATCH`] sweeps changes nothing.
fn sweeps<T: Float, I: SpIndex>(
    d: &CudaDevice,
    g: &CsrMatrix<T, I>,
    name: &str,
    scc: &Array<i32>,
    read: Option<&Array<i32>>,
    out: &mut Array<i32>,
) -> Result<()> {
    let n = g.shape.0;
    let f = formats_fn::<T, I>(d, name)?;
    loop {
        let mut flag = Array::<i32>::zeros(&[1], g.device())?;
        for _ in 0..BATCH {
            let mut l = d
                .launch(&f, grid(d, n))
                .arg(g.indptr.dev_ptr()?)
                .arg(g.indices.dev_ptr()?)
                .arg(n as i64)
                .arg(scc.dev_ptr()?);
            if let Some(r) = read {
                l = l.arg(r.dev_ptr()?);
            }
            l.arg(out.dev_ptr_mut()?).arg(flag.dev_ptr_mut()?).run()?;
        }
        if flag.item()? == 0 {
            return Ok(());
        }
    }
}

/// Component numbers 0..k from root labels (each node labelled by its component's root, the
/// smallest node): roots flagged, their ranks by a prefix sum, every node relabelled by its
/// root's rank. Returns k (one scalar read) and the labels.
fn relabel_by_roots<T: Float, L: SpIndex>(
    d: &CudaDevice,
    label: &Array<L>,
) -> Result<(usize, Array<i32>)> {
    let n = label.len();
    let dev = label.device();
    let cfg = grid(d, n);
    let mut roots = Array::<L>::zeros(&[n + 1], dev)?;
    d.launch(&sparse_fn::<T, L>(d, "cc_roots")?, cfg)
        .arg(label.dev_ptr()?)
        .arg(n as i64)
        .arg(roots.dev_ptr_mut()?)
        .run()?;
    let rank = roots.cumsum(0)?;
    let k = last(&rank)?;
    let mut out = Array::<i32>::empty(&[n], dev)?;
    d.launch(&sparse_fn::<T, L>(d, "cc_relabel")?, cfg)
        .arg(label.dev_ptr()?)
        .arg(rank.dev_ptr()?)
        .arg(n as i64)
        .arg(out.dev_ptr_mut()?)
        .run()?;
    Ok((k, out))
}
