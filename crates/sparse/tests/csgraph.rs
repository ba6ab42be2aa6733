//! csgraph. connected_components: breadth-first searches as the oracles (weak: undirected BFS;
//! strong: mutual reachability), the same labels on every device. The conversions, laplacian,
//! shortest paths, construct_dist_matrix and reconstruct_path: SciPy's results
//! (`tests/data/scipy_csgraph.npz`, `tests/golden/gen.py sparse_csgraph`), naive oracles
//! (Floyd–Warshall's triple loop, a lexicographic Bellman–Ford for the predecessor rule), and
//! every device against the CPU bit for bit.

use crate::common::{load_csr, load_npz};
use cusci_core::testing::devices;
use cusci_core::{Array, Device, Element, Error};
use cusci_sparse::csgraph::{
    bellman_ford, connected_components, construct_dist_matrix, csgraph_from_dense,
    csgraph_to_dense, dijkstra, floyd_warshall, johnson, laplacian, reconstruct_path,
    shortest_path, Connection, LaplacianOptions, Method, PathOptions, ShortestPaths, NULL_IDX,
};
use cusci_sparse::{random, CooMatrix, CsrMatrix};

/// Components of an undirected edge list by a breadth-first search, numbered by smallest node.
fn bfs_labels(n: usize, edges: &[(usize, usize)]) -> (usize, Vec<i32>) {
    let mut adj = vec![Vec::new(); n];
    for &(a, b) in edges {
        adj[a].push(b);
        adj[b].push(a);
    }
    let mut lab = vec![-1i32; n];
    let mut k = 0;
    for s in 0..n {
        if lab[s] >= 0 {
            continue;
        }
        let mut q = vec![s];
        lab[s] = k;
        while let Some(u) = q.pop() {
            for &v in &adj[u] {
                if lab[v] < 0 {
                    lab[v] = k;
                    q.push(v);
                }
            }
        }
        k += 1;
    }
    (k as usize, lab)
}

/// A random n x n graph (on the CPU) and its edge list.
fn random_graph(n: usize, density: f64, seed: u64) -> (CsrMatrix<f64>, Vec<(usize, usize)>) {
    let g = random::<f64>(n, n, density, seed, &Device::Cpu).unwrap();
    let coo = g.tocoo().unwrap();
    let (r, c) = (coo.row().to_vec().unwrap(), coo.col().to_vec().unwrap());
    let edges = r
        .iter()
        .zip(&c)
        .map(|(&a, &b)| (a as usize, b as usize))
        .collect();
    (g, edges)
}

#[test]
fn weak_components_against_bfs() {
    for (n, density, seed) in [
        (0usize, 0.0, 1u64),
        (1, 0.0, 1),
        (1, 1.0, 2),
        (40, 0.02, 3),
        (300, 0.004, 4),
        (257, 0.0005, 5),
    ] {
        let (g, edges) = random_graph(n, density, seed);
        let (k, want) = bfs_labels(n, &edges);
        for dev in devices() {
            let gd = g.to_device(&dev).unwrap();
            for directed in [true, false] {
                let (kk, lab) = connected_components(&gd, directed, Connection::Weak).unwrap();
                assert_eq!(kk, k, "n={n} on {dev}");
                assert_eq!(lab.to_vec().unwrap(), want, "n={n} on {dev}");
            }
        }
    }
}

#[test]
fn a_long_path_and_errors() {
    // the path n-1 → n-2 → ... → 0 (the worst case for label propagation) plus isolated nodes
    let n = 2000;
    let rows: Vec<i32> = (1..n as i32 - 10).collect();
    let cols: Vec<i32> = (0..n as i32 - 11).collect();
    let vals = vec![1.0f64; rows.len()];
    for dev in devices() {
        let len = rows.len();
        let g = CooMatrix::new(
            Array::from_vec(vals.clone(), &[len], &dev).unwrap(),
            Array::from_vec(rows.clone(), &[len], &dev).unwrap(),
            Array::from_vec(cols.clone(), &[len], &dev).unwrap(),
            (n, n),
        )
        .unwrap()
        .tocsr()
        .unwrap();
        let (k, lab) = connected_components(&g, true, Connection::Weak).unwrap();
        assert_eq!(k, 11);
        let lab = lab.to_vec().unwrap();
        assert!(lab[..n - 10].iter().all(|&l| l == 0));
        assert_eq!(&lab[n - 10..], &(1..11).collect::<Vec<i32>>()[..]);
        let rect = random::<f64>(3, 4, 0.5, 1, &dev).unwrap();
        assert!(matches!(
            connected_components(&rect, false, Connection::Weak),
            Err(Error::ShapeMismatch { .. })
        ));
        let sq: CsrMatrix<f64> = random(3, 4, 0.5, 1, &dev).unwrap();
        assert!(matches!(
            connected_components(&sq, true, Connection::Strong),
            Err(Error::ShapeMismatch { .. })
        ));
        // strong: every node of the directed path is a component of its own
        let (k, lab) = connected_components(&g, true, Connection::Strong).unwrap();
        assert_eq!(k, n);
        assert_eq!(lab.to_vec().unwrap(), (0..n as i32).collect::<Vec<_>>());
    }
}

/// Strong components by mutual reachability (BFS from every node), numbered by smallest node.
fn strong_oracle(n: usize, edges: &[(usize, usize)]) -> (usize, Vec<i32>) {
    let mut adj = vec![Vec::new(); n];
    for &(a, b) in edges {
        adj[a].push(b);
    }
    let reach: Vec<Vec<bool>> = (0..n)
        .map(|s| {
            let mut seen = vec![false; n];
            seen[s] = true;
            let mut q = vec![s];
            while let Some(u) = q.pop() {
                for &v in &adj[u] {
                    if !seen[v] {
                        seen[v] = true;
                        q.push(v);
                    }
                }
            }
            seen
        })
        .collect();
    let mut lab = vec![-1i32; n];
    let mut k = 0;
    for s in 0..n {
        if lab[s] >= 0 {
            continue;
        }
        for v in s..n {
            if reach[s][v] && reach[v][s] {
                lab[v] = k;
            }
        }
        k += 1;
    }
    (k as usize, lab)
}

#[test]
fn strong_components_against_reachability() {
    for (n, density, seed) in [
        (0usize, 0.0, 1u64),
        (1, 1.0, 2),
        (2, 1.0, 3),
        (33, 0.05, 4),
        (120, 0.012, 5),
        (120, 0.03, 6),
        (257, 0.004, 7),
    ] {
        let (g, edges) = random_graph(n, density, seed);
        let (k, want) = strong_oracle(n, &edges);
        for dev in devices() {
            let gd = g.to_device(&dev).unwrap();
            let (kk, lab) = connected_components(&gd, true, Connection::Strong).unwrap();
            assert_eq!(kk, k, "n={n} density={density} on {dev}");
            assert_eq!(lab.to_vec().unwrap(), want, "n={n} on {dev}");
            // undirected: strong means weak
            let (kw, lw) = connected_components(&gd, false, Connection::Strong).unwrap();
            let (kw2, lw2) = connected_components(&gd, false, Connection::Weak).unwrap();
            assert_eq!((kw, lw.to_vec().unwrap()), (kw2, lw2.to_vec().unwrap()));
        }
    }
}

#[test]
fn strong_components_of_cycles_with_tails() {
    // a ring 0 → 1 → ... → 9 → 0, a tail 10 → 11 → 12 → 0, a second ring 13 ⇄ 14 fed by 9,
    // and a self loop at 15
    let mut e: Vec<(i32, i32)> = (0..10).map(|i| (i, (i + 1) % 10)).collect();
    e.extend([
        (10, 11),
        (11, 12),
        (12, 0),
        (13, 14),
        (14, 13),
        (9, 13),
        (15, 15),
    ]);
    let n = 16;
    let edges: Vec<(usize, usize)> = e.iter().map(|&(a, b)| (a as usize, b as usize)).collect();
    let (k, want) = strong_oracle(n, &edges);
    assert_eq!(k, 6);
    for dev in devices() {
        let len = e.len();
        let g = CooMatrix::new(
            Array::from_vec(vec![1.0f32; len], &[len], &dev).unwrap(),
            Array::from_vec(e.iter().map(|x| x.0).collect(), &[len], &dev).unwrap(),
            Array::from_vec(e.iter().map(|x| x.1).collect(), &[len], &dev).unwrap(),
            (n, n),
        )
        .unwrap()
        .tocsr()
        .unwrap();
        let (kk, lab) = connected_components(&g, true, Connection::Strong).unwrap();
        assert_eq!(kk, k);
        assert_eq!(lab.to_vec().unwrap(), want, "{dev}");
    }
}

// ------------------------------------------------------------------------------------------
// conversions, laplacian, shortest paths

const GOLD: &str = "scipy_csgraph";

/// A golden array as a host vector.
fn gold<T: Element>(name: &str) -> Vec<T> {
    load_npz::<T>(GOLD, name, &Device::Cpu).to_vec().unwrap()
}

/// The golden graph `prefix` (n x n) on `dev`.
fn ggraph(prefix: &str, n: usize, dev: &Device) -> CsrMatrix<f64> {
    load_csr(GOLD, prefix, (n, n), dev)
}

/// Equal within rtol (infinities equal, NaN equals NaN).
fn close(got: &[f64], want: &[f64], rtol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan())
            || g == w
            || (g.is_finite() && w.is_finite() && (g - w).abs() <= rtol * w.abs().max(1.0));
        assert!(ok, "{what}: element {i}: got {g}, want {w}");
    }
}

/// The same bits (NaN equals NaN).
fn same_bits(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "{what}: element {i}: got {g}, CPU {w}"
        );
    }
}

fn host<T: Element>(a: &Array<T>) -> Vec<T> {
    a.to_vec().unwrap()
}

/// The results of a search as host vectors (dist, pred, sources).
fn paths(r: &ShortestPaths<f64>) -> (Vec<f64>, Option<Vec<i32>>, Option<Vec<i32>>) {
    (
        host(&r.dist_matrix),
        r.predecessors.as_ref().map(host),
        r.sources.as_ref().map(host),
    )
}

fn opts() -> PathOptions {
    PathOptions::default()
}

fn with_pred() -> PathOptions {
    PathOptions {
        return_predecessors: true,
        ..PathOptions::default()
    }
}

#[test]
fn dense_conversions_match_scipy() {
    let f = gold::<f64>("F");
    for dev in devices() {
        let c = ggraph("C", 3, &dev);
        close(
            &host(&csgraph_to_dense(&c, f64::INFINITY).unwrap()),
            &gold("C_dense_inf"),
            0.0,
            &format!("to_dense(inf) on {dev}"),
        );
        close(
            &host(&csgraph_to_dense(&c, 0.0).unwrap()),
            &gold("C_dense_0"),
            0.0,
            &format!("to_dense(0) on {dev}"),
        );
        let fa = Array::from_vec(f.clone(), &[4, 4], &dev).unwrap();
        for (key, null, nan_null, inf_null) in [
            ("F1", 0.0, true, true),
            ("F2", f64::INFINITY, true, false),
            ("F3", 7.0, false, true),
        ] {
            let g = csgraph_from_dense(&fa, null, nan_null, inf_null).unwrap();
            let what = format!("from_dense {key} on {dev}");
            assert_eq!(
                host(g.indptr()),
                gold::<i32>(&format!("{key}_indptr")),
                "{what}"
            );
            assert_eq!(
                host(g.indices()),
                gold::<i32>(&format!("{key}_indices")),
                "{what}"
            );
            close(&host(g.data()), &gold(&format!("{key}_data")), 0.0, &what);
        }
        // non-square input is refused, as SciPy does
        let rect = Array::from_vec(vec![1.0f64; 6], &[2, 3], &dev).unwrap();
        assert!(matches!(
            csgraph_from_dense(&rect, 0.0, true, true),
            Err(Error::ShapeMismatch { .. })
        ));
        let r = random::<f64>(3, 4, 0.5, 1, &dev).unwrap();
        assert!(matches!(
            csgraph_to_dense(&r, 0.0),
            Err(Error::ShapeMismatch { .. })
        ));
    }
}

#[test]
fn dense_round_trip_of_random_graphs() {
    // csgraph_from_dense(csgraph_to_dense(g, inf), inf) is g without duplicates (lightest kept)
    for (n, density, seed) in [(1usize, 1.0, 1u64), (33, 0.1, 2), (70, 0.05, 3)] {
        let g = random::<f64>(n, n, density, seed, &Device::Cpu).unwrap();
        let want = host(&g.toarray().unwrap());
        for dev in devices() {
            let gd = g.to_device(&dev).unwrap();
            let d = csgraph_to_dense(&gd, f64::INFINITY).unwrap();
            let back = csgraph_from_dense(&d, f64::INFINITY, true, true).unwrap();
            assert_eq!(back.nnz(), g.nnz(), "n={n} on {dev}");
            same_bits(
                &host(&back.toarray().unwrap()),
                &want,
                &format!("n={n} on {dev}"),
            );
        }
    }
}

#[test]
fn laplacian_matches_scipy() {
    let n = 28;
    for dev in devices() {
        let g = ggraph("G", n, &dev);
        for (key, o) in [
            ("lap", LaplacianOptions::default()),
            (
                "lap_n",
                LaplacianOptions {
                    normed: true,
                    ..Default::default()
                },
            ),
            (
                "lap_o",
                LaplacianOptions {
                    use_out_degree: true,
                    ..Default::default()
                },
            ),
            (
                "lap_s",
                LaplacianOptions {
                    symmetrized: true,
                    ..Default::default()
                },
            ),
            (
                "lap_ns",
                LaplacianOptions {
                    normed: true,
                    symmetrized: true,
                    ..Default::default()
                },
            ),
        ] {
            let (l, d) = laplacian(&g, &o).unwrap();
            let what = format!("{key} on {dev}");
            assert!(l.has_canonical_format(), "{what}");
            close(&host(&l.toarray().unwrap()), &gold(key), 1e-14, &what);
            close(&host(&d), &gold(&format!("{key}_diag")), 1e-14, &what);
            // every diagonal entry is stored, as SciPy's setdiag stores it
            assert_eq!(host(&l.diagonal(0).unwrap()).len(), n);
        }
    }
}

#[test]
fn shortest_paths_match_scipy() {
    let n = 28;
    let cpu = ggraph("G", n, &Device::Cpu);
    let undirected = PathOptions {
        directed: false,
        ..with_pred()
    };
    let unweighted = PathOptions {
        unweighted: true,
        ..opts()
    };
    let lim = PathOptions {
        indices: Some(vec![0, 1, 2]),
        limit: 6.0,
        ..opts()
    };
    let minonly = PathOptions {
        indices: Some(vec![0, 5, 9]),
        min_only: true,
        ..with_pred()
    };
    for dev in devices() {
        let g = ggraph("G", n, &dev);
        let what = |k: &str| format!("{k} on {dev}");
        // dijkstra: continuous weights, so the paths are unique and the predecessors SciPy's
        for (key, o) in [("D", with_pred()), ("Du", undirected.clone())] {
            let (d, p, _) = paths(&dijkstra(&g, &o).unwrap());
            close(&d, &gold(&format!("{key}_dist")), 1e-12, &what(key));
            assert_eq!(
                p.unwrap(),
                gold::<i32>(&format!("{key}_pred")),
                "{}",
                what(key)
            );
            // every single-source method gives the same distances and predecessors
            for f in [bellman_ford::<f64, i32>, johnson::<f64, i32>] {
                let (d2, p2, _) = paths(&f(&g, &o).unwrap());
                close(&d2, &gold(&format!("{key}_dist")), 1e-12, &what(key));
                assert_eq!(
                    p2.unwrap(),
                    gold::<i32>(&format!("{key}_pred")),
                    "{}",
                    what(key)
                );
            }
        }
        let (d, _, _) = paths(&dijkstra(&g, &unweighted).unwrap());
        close(&d, &gold("Dw_dist"), 0.0, &what("unweighted"));
        let (d, p, _) = paths(&floyd_warshall(&g, &with_pred()).unwrap());
        close(&d, &gold("FW_dist"), 1e-12, &what("FW"));
        assert_eq!(p.unwrap(), gold::<i32>("FW_pred"), "{}", what("FW"));
        let fwu = PathOptions {
            directed: false,
            ..opts()
        };
        let (d, _, _) = paths(&floyd_warshall(&g, &fwu).unwrap());
        close(&d, &gold("FWu_dist"), 1e-12, &what("FWu"));
        let r = dijkstra(&g, &lim).unwrap();
        assert_eq!(r.dist_matrix.shape(), &[3, n]);
        close(
            &host(&r.dist_matrix),
            &gold("Dlim_dist"),
            1e-12,
            &what("limit"),
        );
        let r = dijkstra(&g, &minonly).unwrap();
        assert_eq!(r.dist_matrix.shape(), &[n]);
        let (d, p, s) = paths(&r);
        close(&d, &gold("Dmin_dist"), 1e-12, &what("min_only"));
        assert_eq!(p.unwrap(), gold::<i32>("Dmin_pred"), "{}", what("min_only"));
        assert_eq!(s.unwrap(), gold::<i32>("Dmin_src"), "{}", what("min_only"));
        // negative weights on a DAG
        let m = 20;
        let nn = ggraph("N", m, &dev);
        let (d, p, _) = paths(&bellman_ford(&nn, &with_pred()).unwrap());
        close(&d, &gold("BF_dist"), 1e-12, &what("BF"));
        assert_eq!(p.unwrap(), gold::<i32>("BF_pred"), "{}", what("BF"));
        let jo = PathOptions {
            indices: Some(vec![0, 3, 4]),
            ..with_pred()
        };
        let (d, p, _) = paths(&johnson(&nn, &jo).unwrap());
        close(&d, &gold("J_dist"), 1e-12, &what("J"));
        assert_eq!(p.unwrap(), gold::<i32>("J_pred"), "{}", what("J"));
        let (d, _, _) = paths(&shortest_path(&nn, Method::Auto, &opts()).unwrap());
        close(&d, &gold("auto_N_dist"), 1e-12, &what("auto"));
        for method in [
            Method::Auto,
            Method::FloydWarshall,
            Method::Dijkstra,
            Method::BellmanFord,
            Method::Johnson,
        ] {
            let (d, _, _) = paths(&shortest_path(&g, method, &opts()).unwrap());
            close(&d, &gold("D_dist"), 1e-12, &format!("{method:?} on {dev}"));
        }
        // the GPU against the CPU: the same bits
        if dev != Device::Cpu {
            for o in [
                with_pred(),
                undirected.clone(),
                unweighted.clone(),
                lim.clone(),
                minonly.clone(),
            ] {
                let (a, pa, sa) = paths(&dijkstra(&g, &o).unwrap());
                let (b, pb, sb) = paths(&dijkstra(&cpu, &o).unwrap());
                same_bits(&a, &b, &format!("dijkstra {o:?}"));
                assert_eq!((pa, sa), (pb, sb), "dijkstra {o:?}");
            }
            let (a, pa, _) = paths(&floyd_warshall(&g, &with_pred()).unwrap());
            let (b, pb, _) = paths(&floyd_warshall(&cpu, &with_pred()).unwrap());
            same_bits(&a, &b, "floyd_warshall");
            assert_eq!(pa, pb, "floyd_warshall predecessors");
        }
    }
}

#[test]
fn construct_dist_matrix_and_reconstruct_path_match_scipy() {
    let n = 28;
    let dpred = gold::<i32>("D_pred");
    let upred = gold::<i32>("Du_pred");
    for dev in devices() {
        let g = ggraph("G", n, &dev);
        let pd = Array::from_vec(dpred.clone(), &[n, n], &dev).unwrap();
        let pu = Array::from_vec(upred.clone(), &[n, n], &dev).unwrap();
        let what = |k: &str| format!("{k} on {dev}");
        let c = construct_dist_matrix(&g, &pd, true, f64::INFINITY).unwrap();
        close(&host(&c), &gold("cdm"), 1e-12, &what("cdm"));
        let c = construct_dist_matrix(&g, &pu, false, f64::INFINITY).unwrap();
        close(&host(&c), &gold("cdm_u"), 1e-12, &what("cdm_u"));
        let row0 = Array::from_vec(dpred[..n].to_vec(), &[n], &dev).unwrap();
        let t = reconstruct_path(&g, &row0, true).unwrap();
        close(&host(&t.toarray().unwrap()), &gold("rp"), 0.0, &what("rp"));
        let row2 = Array::from_vec(upred[2 * n..3 * n].to_vec(), &[n], &dev).unwrap();
        let t = reconstruct_path(&g, &row2, false).unwrap();
        close(
            &host(&t.toarray().unwrap()),
            &gold("rp_u"),
            0.0,
            &what("rp_u"),
        );
        // a cycle of predecessors ends as null instead of looping
        let cyc: Vec<i32> = (0..n as i32).map(|j| (j + 1) % n as i32).collect();
        let mut pc = vec![NULL_IDX; n * n];
        pc[n..2 * n].copy_from_slice(&cyc);
        pc[n + 1] = NULL_IDX;
        let pc = Array::from_vec(pc, &[n, n], &dev).unwrap();
        let c = host(&construct_dist_matrix(&g, &pc, true, -1.0).unwrap());
        assert_eq!(c[0], 0.0);
        assert_eq!(c[1], -1.0);
        // shapes and devices
        assert!(matches!(
            construct_dist_matrix(&g, &row0, true, 0.0),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            reconstruct_path(&g, &pd, true),
            Err(Error::ShapeMismatch { .. })
        ));
    }
}

/// A graph from weighted edges, on `dev`: CSR rows in edge order, duplicates kept (parallel
/// edges).
fn from_edges(n: usize, e: &[(i32, i32, f64)], dev: &Device) -> CsrMatrix<f64> {
    let mut ip = vec![0i32; n + 1];
    for &(a, _, _) in e {
        ip[a as usize + 1] += 1;
    }
    for i in 0..n {
        ip[i + 1] += ip[i];
    }
    let mut at: Vec<usize> = ip[..n].iter().map(|&x| x as usize).collect();
    let (mut ind, mut val) = (vec![0i32; e.len()], vec![0.0; e.len()]);
    for &(a, b, w) in e {
        let k = &mut at[a as usize];
        ind[*k] = b;
        val[*k] = w;
        *k += 1;
    }
    let k = e.len();
    CsrMatrix::new(
        Array::from_vec(val, &[k], dev).unwrap(),
        Array::from_vec(ind, &[k], dev).unwrap(),
        Array::from_vec(ip, &[n + 1], dev).unwrap(),
        (n, n),
    )
    .unwrap()
}

#[test]
fn negative_cycles_are_errors_on_every_device() {
    let e = [(0, 1, 1.0), (1, 2, 1.0), (2, 0, -3.0), (3, 0, 1.0)];
    let neg = |r: Result<ShortestPaths<f64>, Error>| matches!(r, Err(Error::NegativeCycle { .. }));
    for dev in devices() {
        let g = from_edges(4, &e, &dev);
        assert!(neg(bellman_ford(&g, &opts())), "{dev}");
        assert!(neg(johnson(&g, &opts())), "{dev}");
        assert!(neg(dijkstra(&g, &opts())), "{dev}");
        assert!(neg(floyd_warshall(&g, &opts())), "{dev}");
        assert!(neg(shortest_path(&g, Method::Auto, &opts())), "{dev}");
        // not reachable from node 3's... node 3 reaches the cycle; from no source: fine
        let only = PathOptions {
            indices: Some(vec![]),
            ..opts()
        };
        assert_eq!(
            bellman_ford(&g, &only).unwrap().dist_matrix.shape(),
            &[0, 4]
        );
        // undirected, any negative edge is a negative cycle
        let h = from_edges(3, &[(0, 1, 2.0), (1, 2, -1.0)], &dev);
        let und = PathOptions {
            directed: false,
            ..opts()
        };
        assert!(neg(bellman_ford(&h, &und)), "{dev}");
        assert!(neg(johnson(&h, &und)), "{dev}");
        // directed, no cycle: fine, and the same on all methods
        let (a, _, _) = paths(&bellman_ford(&h, &opts()).unwrap());
        let (b, _, _) = paths(&johnson(&h, &opts()).unwrap());
        let (c, _, _) = paths(&floyd_warshall(&h, &opts()).unwrap());
        assert_eq!(a[..3], [0.0, 2.0, 1.0]);
        assert_eq!(a, b);
        assert_eq!(a, c);
    }
}

#[test]
fn argument_errors() {
    for dev in devices() {
        let g = from_edges(3, &[(0, 1, 1.0)], &dev);
        let arg =
            |r: Result<ShortestPaths<f64>, Error>| matches!(r, Err(Error::InvalidArgument { .. }));
        assert!(arg(dijkstra(
            &g,
            &PathOptions {
                indices: Some(vec![3]),
                ..opts()
            }
        )));
        assert!(arg(dijkstra(
            &g,
            &PathOptions {
                limit: -1.0,
                ..opts()
            }
        )));
        assert!(arg(floyd_warshall(
            &g,
            &PathOptions {
                indices: Some(vec![0]),
                ..opts()
            }
        )));
        assert!(arg(bellman_ford(
            &g,
            &PathOptions {
                min_only: true,
                ..opts()
            }
        )));
        assert!(arg(johnson(
            &g,
            &PathOptions {
                limit: 1.0,
                ..opts()
            }
        )));
        assert!(arg(shortest_path(
            &g,
            Method::Dijkstra,
            &PathOptions {
                min_only: true,
                ..opts()
            }
        )));
        let r = random::<f64>(3, 4, 0.5, 1, &dev).unwrap();
        assert!(matches!(
            dijkstra(&r, &opts()),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            laplacian(&r, &LaplacianOptions::default()),
            Err(Error::ShapeMismatch { .. })
        ));
    }
}

/// The predecessor rule by a naive oracle: Bellman–Ford on (distance, edge count) pairs
/// (lexicographic), then the smallest u with a tight edge u → v one edge closer.
fn pred_oracle(
    n: usize,
    e: &[(i32, i32, f64)],
    src: &[usize],
    directed: bool,
) -> (Vec<f64>, Vec<i32>) {
    let mut edges: Vec<(usize, usize, f64)> = e
        .iter()
        .map(|&(a, b, w)| (a as usize, b as usize, w))
        .collect();
    if !directed {
        let rev: Vec<_> = edges.iter().map(|&(a, b, w)| (b, a, w)).collect();
        edges.extend(rev);
    }
    let mut d = vec![f64::INFINITY; n];
    let mut h = vec![usize::MAX; n];
    for &s in src {
        d[s] = 0.0;
        h[s] = 0;
    }
    for _ in 0..n {
        for &(a, b, w) in &edges {
            if d[a] < f64::INFINITY && d[a] + w < d[b] {
                d[b] = d[a] + w;
            }
        }
    }
    for _ in 0..n {
        for &(a, b, w) in &edges {
            if h[a] != usize::MAX && d[a] + w == d[b] && h[a] + 1 < h[b] && !src.contains(&b) {
                h[b] = h[a] + 1;
            }
        }
    }
    let mut p = vec![NULL_IDX; n];
    for &(a, b, w) in &edges {
        if h[a] != usize::MAX
            && h[b] != usize::MAX
            && h[b] == h[a] + 1
            && d[a] + w == d[b]
            && (p[b] == NULL_IDX || (a as i32) < p[b])
        {
            p[b] = a as i32;
        }
    }
    (d, p)
}

#[test]
fn predecessors_follow_the_tie_rule_on_every_device() {
    // a k x k grid with unit weights both ways (every node has many shortest paths), some
    // zero-weight shortcuts, parallel edges and a few negative edges on the way down
    let k = 9;
    let n = k * k;
    let mut e = Vec::new();
    for r in 0..k {
        for c in 0..k {
            let v = (r * k + c) as i32;
            if c + 1 < k {
                e.push((v, v + 1, 1.0));
                e.push((v + 1, v, 1.0));
            }
            if r + 1 < k {
                e.push((v, v + k as i32, 1.0));
                e.push((v + k as i32, v, 1.0));
            }
        }
    }
    e.extend([
        (10, 20, 0.0),
        (20, 10, 0.0),
        (40, 41, 0.0),
        (41, 40, 0.0),
        (3, 4, 2.0),
        (3, 4, 1.0),
    ]);
    let cpu = from_edges(n, &e, &Device::Cpu);
    for dev in devices() {
        let g = from_edges(n, &e, &dev);
        for s in [0usize, 40, 80, 13] {
            let (dw, pw) = pred_oracle(n, &e, &[s], true);
            let o = PathOptions {
                indices: Some(vec![s]),
                ..with_pred()
            };
            for f in [
                dijkstra::<f64, i32>,
                bellman_ford::<f64, i32>,
                johnson::<f64, i32>,
            ] {
                let (d, p, _) = paths(&f(&g, &o).unwrap());
                assert_eq!(d, dw, "source {s} on {dev}");
                assert_eq!(p.unwrap(), pw, "source {s} on {dev}");
            }
        }
        // several sources at once (min_only)
        let src = [0usize, 80, 44];
        let (dw, pw) = pred_oracle(n, &e, &src, true);
        let o = PathOptions {
            indices: Some(src.to_vec()),
            min_only: true,
            ..with_pred()
        };
        let (d, p, s) = paths(&dijkstra(&g, &o).unwrap());
        assert_eq!(d, dw, "min_only on {dev}");
        assert_eq!(p.clone().unwrap(), pw, "min_only on {dev}");
        // each node's source is that of its predecessor
        let (p, s) = (p.unwrap(), s.unwrap());
        for v in 0..n {
            if p[v] >= 0 {
                assert_eq!(s[v], s[p[v] as usize], "node {v} on {dev}");
            } else {
                assert!(src.contains(&v) && s[v] == v as i32, "node {v} on {dev}");
            }
        }
        // a negative edge (directed, no negative cycle)
        let mut e2 = e.clone();
        e2.retain(|&(a, b, _)| !(a == 51 && b == 50));
        e2.push((50, 51, -0.5));
        e2.retain(|&(a, b, _)| !(a == 51 && b == 50));
        let g2 = from_edges(n, &e2, &dev);
        let (dw, pw) = pred_oracle(n, &e2, &[0], true);
        let o = PathOptions {
            indices: Some(vec![0]),
            ..with_pred()
        };
        for f in [dijkstra::<f64, i32>, bellman_ford::<f64, i32>] {
            let (d, p, _) = paths(&f(&g2, &o).unwrap());
            assert_eq!(d, dw, "negative edge on {dev}");
            assert_eq!(p.unwrap(), pw, "negative edge on {dev}");
        }
        // undirected
        let (dw, pw) = pred_oracle(n, &e, &[7], false);
        let o = PathOptions {
            indices: Some(vec![7]),
            directed: false,
            ..with_pred()
        };
        let (d, p, _) = paths(&dijkstra(&g, &o).unwrap());
        assert_eq!(d, dw, "undirected on {dev}");
        assert_eq!(p.unwrap(), pw, "undirected on {dev}");
        if dev != Device::Cpu {
            let (a, pa, _) = paths(&floyd_warshall(&g, &with_pred()).unwrap());
            let (b, pb, _) = paths(&floyd_warshall(&cpu, &with_pred()).unwrap());
            same_bits(&a, &b, "floyd_warshall on the grid");
            assert_eq!(pa, pb, "floyd_warshall predecessors on the grid");
        }
    }
}

/// Floyd–Warshall's triple loop (the oracle): distances of a dense graph (inf: no edge).
fn fw_oracle(n: usize, mut d: Vec<f64>) -> Vec<f64> {
    for i in 0..n {
        d[i * n + i] = 0.0;
    }
    for k in 0..n {
        for i in 0..n {
            for j in 0..n {
                let c = d[i * n + k] + d[k * n + j];
                if c < d[i * n + j] {
                    d[i * n + j] = c;
                }
            }
        }
    }
    d
}

#[test]
fn floyd_warshall_over_several_tiles_against_the_triple_loop() {
    // 70 nodes: three tiles of 32, the last one partial
    for (n, density, seed, directed) in [
        (70usize, 0.04, 11u64, true),
        (70, 0.03, 12, false),
        (33, 0.1, 13, true),
    ] {
        let g = random::<f64>(n, n, density, seed, &Device::Cpu).unwrap();
        let dense = host(&csgraph_to_dense(&g, f64::INFINITY).unwrap());
        let start: Vec<f64> = (0..n * n)
            .map(|ij| {
                let (i, j) = (ij / n, ij % n);
                if directed {
                    dense[ij]
                } else {
                    dense[ij].min(dense[j * n + i])
                }
            })
            .collect();
        let want = fw_oracle(n, start);
        let o = PathOptions {
            directed,
            ..with_pred()
        };
        let (cd, cp, _) = paths(&floyd_warshall(&g, &o).unwrap());
        close(&cd, &want, 1e-12, &format!("n={n}"));
        // the predecessors lead back to the source along edges whose weights add up
        let (dd, _, _) = paths(&dijkstra(&g, &PathOptions { directed, ..opts() }).unwrap());
        close(&dd, &want, 1e-12, &format!("dijkstra n={n}"));
        let cp = cp.unwrap();
        for i in 0..n {
            for j in 0..n {
                let p = cp[i * n + j];
                if i == j || !cd[i * n + j].is_finite() {
                    assert_eq!(p, NULL_IDX);
                } else {
                    let p = p as usize;
                    let w = if directed {
                        dense[p * n + j]
                    } else {
                        dense[p * n + j].min(dense[j * n + p])
                    };
                    assert!(
                        (cd[i * n + p] + w - cd[i * n + j]).abs()
                            <= 1e-12 * cd[i * n + j].abs().max(1.0)
                    );
                }
            }
        }
        for dev in devices() {
            let gd = g.to_device(&dev).unwrap();
            let (d, p, _) = paths(&floyd_warshall(&gd, &o).unwrap());
            same_bits(&d, &cd, &format!("n={n} on {dev}"));
            assert_eq!(p.unwrap(), cp, "n={n} on {dev}");
            // f32 too
            let g32 = gd.astype::<f32>().unwrap();
            let r = floyd_warshall(&g32, &PathOptions { directed, ..opts() }).unwrap();
            let r0 = floyd_warshall(
                &g.astype::<f32>().unwrap(),
                &PathOptions { directed, ..opts() },
            )
            .unwrap();
            assert_eq!(
                host(&r.dist_matrix),
                host(&r0.dist_matrix),
                "f32 n={n} on {dev}"
            );
        }
    }
}

#[test]
fn traversals_match_scipy() {
    use cusci_sparse::csgraph::{
        breadth_first_order, breadth_first_tree, depth_first_order, depth_first_tree,
    };
    let n = 28;
    for dev in devices() {
        let g = ggraph("G", n, &dev);
        for s in [0usize, 3, 10, 25] {
            for (dn, directed) in [("d", true), ("u", false)] {
                let what = format!("start {s} {dn} on {dev}");
                let (o, p) = breadth_first_order(&g, s, directed, true).unwrap();
                assert_eq!(
                    host(&o),
                    gold::<i32>(&format!("bfo_{s}_{dn}")),
                    "bfs {what}"
                );
                assert_eq!(
                    host(&p.unwrap()),
                    gold::<i32>(&format!("bfp_{s}_{dn}")),
                    "bfs {what}"
                );
                let (o, p) = depth_first_order(&g, s, directed, true).unwrap();
                assert_eq!(
                    host(&o),
                    gold::<i32>(&format!("dfo_{s}_{dn}")),
                    "dfs {what}"
                );
                assert_eq!(
                    host(&p.unwrap()),
                    gold::<i32>(&format!("dfp_{s}_{dn}")),
                    "dfs {what}"
                );
                let (_, none) = depth_first_order(&g, s, directed, false).unwrap();
                assert!(none.is_none());
            }
        }
        let t = |m: CsrMatrix<f64>| host(&m.toarray().unwrap());
        close(
            &t(breadth_first_tree(&g, 0, true).unwrap()),
            &gold("bft_0"),
            0.0,
            "bft",
        );
        close(
            &t(depth_first_tree(&g, 0, true).unwrap()),
            &gold("dft_0"),
            0.0,
            "dft",
        );
        close(
            &t(breadth_first_tree(&g, 3, false).unwrap()),
            &gold("bft_3_u"),
            0.0,
            "bft u",
        );
        close(
            &t(depth_first_tree(&g, 3, false).unwrap()),
            &gold("dft_3_u"),
            0.0,
            "dft u",
        );
        assert!(matches!(
            breadth_first_order(&g, n, true, true),
            Err(Error::InvalidArgument { .. })
        ));
    }
}

/// Breadth-first order by a plain queue over an adjacency list (the oracle).
fn bfs_oracle(n: usize, adj: &[Vec<usize>], s: usize) -> (Vec<i32>, Vec<i32>) {
    let mut pred = vec![NULL_IDX; n];
    let mut seen = vec![false; n];
    let mut q = std::collections::VecDeque::from([s]);
    let mut order = Vec::new();
    seen[s] = true;
    while let Some(u) = q.pop_front() {
        order.push(u as i32);
        for &v in &adj[u] {
            if !seen[v] {
                seen[v] = true;
                pred[v] = u as i32;
                q.push_back(v);
            }
        }
    }
    (order, pred)
}

/// Recursive depth-first preorder (the oracle of SciPy's iterative loop).
fn dfs_oracle(
    adj: &[Vec<usize>],
    u: usize,
    seen: &mut [bool],
    order: &mut Vec<i32>,
    pred: &mut [i32],
) {
    seen[u] = true;
    order.push(u as i32);
    for &v in &adj[u] {
        if !seen[v] {
            pred[v] = u as i32;
            dfs_oracle(adj, v, seen, order, pred);
        }
    }
}

#[test]
fn traversals_of_random_graphs_with_duplicates_against_oracles() {
    use cusci_sparse::csgraph::{breadth_first_order, depth_first_order};
    // edges in random order with repeats: the CSR keeps them as given (unsorted rows)
    for (n, m, seed) in [
        (1usize, 0usize, 1u64),
        (50, 120, 2),
        (300, 900, 3),
        (300, 250, 4),
    ] {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = |k: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % k as u64) as usize
        };
        let e: Vec<(i32, i32, f64)> = (0..m)
            .map(|_| (next(n) as i32, next(n) as i32, 0.0))
            .collect();
        let mut fwd = vec![Vec::new(); n];
        let mut back = vec![Vec::new(); n];
        for &(a, b, _) in &e {
            fwd[a as usize].push(b as usize);
        }
        // the transpose's rows hold their entries by ascending row
        let mut sorted = e.clone();
        sorted.sort_by_key(|&(a, _, _)| a);
        for &(a, b, _) in &sorted {
            back[b as usize].push(a as usize);
        }
        let und: Vec<Vec<usize>> = (0..n)
            .map(|u| [fwd[u].clone(), back[u].clone()].concat())
            .collect();
        for dev in devices() {
            let g = from_edges(n, &e, &dev);
            for s in [0, n / 2, n - 1] {
                for (adj, directed) in [(&fwd, true), (&und, false)] {
                    let what = format!("n={n} s={s} directed={directed} on {dev}");
                    let (o, p) = breadth_first_order(&g, s, directed, true).unwrap();
                    let (wo, wp) = bfs_oracle(n, adj, s);
                    assert_eq!(host(&o), wo, "bfs {what}");
                    assert_eq!(host(&p.unwrap()), wp, "bfs {what}");
                    let (mut seen, mut wo, mut wp) =
                        (vec![false; n], Vec::new(), vec![NULL_IDX; n]);
                    dfs_oracle(adj, s, &mut seen, &mut wo, &mut wp);
                    let (o, p) = depth_first_order(&g, s, directed, true).unwrap();
                    assert_eq!(host(&o), wo, "dfs {what}");
                    assert_eq!(host(&p.unwrap()), wp, "dfs {what}");
                }
            }
        }
    }
}

#[test]
fn minimum_spanning_tree_matches_scipy_ties_included() {
    use cusci_sparse::csgraph::minimum_spanning_tree;
    let cpu_w = ggraph("W", 49, &Device::Cpu);
    for dev in devices() {
        for (key, n) in [("G", 28usize), ("W", 49), ("M", 5)] {
            let g = ggraph(key, n, &dev);
            let t = minimum_spanning_tree(&g).unwrap();
            let what = format!("mst {key} on {dev}");
            close(
                &host(&t.toarray().unwrap()),
                &gold(&format!("mst_{key}")),
                0.0,
                &what,
            );
            if key == "M" {
                // the zero-weight tree edge is dropped, as SciPy's eliminate_zeros drops it
                assert_eq!(t.nnz() as i32, gold::<i32>("mst_M_nnz")[0], "{what}");
            }
        }
        // the GPU's Borůvka against the CPU's Kruskal: the same arrays
        let t = minimum_spanning_tree(&ggraph("W", 49, &dev)).unwrap();
        let c = minimum_spanning_tree(&cpu_w).unwrap();
        assert_eq!(host(t.indptr()), host(c.indptr()), "{dev}");
        assert_eq!(host(t.indices()), host(c.indices()), "{dev}");
        same_bits(&host(t.data()), &host(c.data()), &format!("mst W on {dev}"));
    }
}

/// The weight and size of a minimum spanning forest by Prim's algorithm from every unvisited
/// node over the lightest entry between each pair (the oracle).
fn prim_oracle(n: usize, e: &[(i32, i32, f64)]) -> (f64, usize) {
    let mut w = vec![f64::INFINITY; n * n];
    for &(a, b, x) in e {
        let (a, b) = (a as usize, b as usize);
        if a != b && x < w[a * n + b] {
            w[a * n + b] = x;
            w[b * n + a] = x;
        }
    }
    let mut done = vec![false; n];
    let (mut total, mut edges) = (0.0, 0);
    for s in 0..n {
        if done[s] {
            continue;
        }
        let mut best = vec![f64::INFINITY; n];
        best[s] = 0.0;
        loop {
            let next = (0..n)
                .filter(|&v| !done[v] && best[v] < f64::INFINITY)
                .min_by(|&a, &b| best[a].total_cmp(&best[b]));
            let Some(u) = next else { break };
            done[u] = true;
            if u != s {
                total += best[u];
                edges += 1;
            }
            for v in 0..n {
                if !done[v] && w[u * n + v] < best[v] {
                    best[v] = w[u * n + v];
                }
            }
        }
    }
    (total, edges)
}

#[test]
fn minimum_spanning_forests_of_random_graphs_against_prim() {
    use cusci_sparse::csgraph::minimum_spanning_tree;
    for (n, m, seed) in [
        (1usize, 0usize, 1u64),
        (40, 60, 2),
        (150, 500, 3),
        (200, 120, 4),
    ] {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = |k: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % k
        };
        // small integer weights (ties everywhere), negatives, repeats, self loops
        let e: Vec<(i32, i32, f64)> = (0..m)
            .map(|_| {
                let a = next(n as u64) as i32;
                let b = next(n as u64) as i32;
                (a, b, next(7) as f64 - 2.0)
            })
            .collect();
        // zero weights would vanish from the result (SciPy's rule): shift them off 0 for the sums
        let e: Vec<(i32, i32, f64)> = e
            .into_iter()
            .map(|(a, b, w)| (a, b, if w == 0.0 { 0.5 } else { w }))
            .collect();
        let (want_w, want_k) = prim_oracle(n, &e);
        let cpu = minimum_spanning_tree(&from_edges(n, &e, &Device::Cpu)).unwrap();
        for dev in devices() {
            let t = minimum_spanning_tree(&from_edges(n, &e, &dev)).unwrap();
            let d = host(t.data());
            assert_eq!(t.nnz(), want_k, "n={n} on {dev}");
            assert_eq!(d.iter().sum::<f64>(), want_w, "n={n} on {dev}");
            assert_eq!(host(t.indptr()), host(cpu.indptr()), "n={n} on {dev}");
            assert_eq!(host(t.indices()), host(cpu.indices()), "n={n} on {dev}");
            same_bits(&d, &host(cpu.data()), &format!("n={n} on {dev}"));
        }
    }
}

#[test]
fn reverse_cuthill_mckee_matches_scipy() {
    use cusci_sparse::csgraph::reverse_cuthill_mckee;
    for dev in devices() {
        let q = ggraph("Q", 43, &dev);
        assert_eq!(
            host(&reverse_cuthill_mckee(&q, true).unwrap()),
            gold::<i32>("rcm_Q"),
            "{dev}"
        );
        let r = ggraph("R", 35, &dev);
        assert_eq!(
            host(&reverse_cuthill_mckee(&r, false).unwrap()),
            gold::<i32>("rcm_R"),
            "{dev}"
        );
        assert!(matches!(
            reverse_cuthill_mckee(&random::<f64>(3, 4, 0.5, 1, &dev).unwrap(), false),
            Err(Error::ShapeMismatch { .. })
        ));
    }
    // random graphs (several components, tied degrees, repeated entries): a permutation, and
    // the same on every device
    for (n, density, seed) in [(1usize, 1.0, 1u64), (60, 0.03, 2), (200, 0.01, 3)] {
        let g = random::<f64>(n, n, density, seed, &Device::Cpu).unwrap();
        for sym in [true, false] {
            let want = host(&reverse_cuthill_mckee(&g, sym).unwrap());
            let mut sorted = want.clone();
            sorted.sort();
            assert_eq!(sorted, (0..n as i32).collect::<Vec<_>>(), "n={n}");
            for dev in devices() {
                let p = reverse_cuthill_mckee(&g.to_device(&dev).unwrap(), sym).unwrap();
                assert_eq!(host(&p), want, "n={n} sym={sym} on {dev}");
            }
        }
    }
}

/// The size of a maximum matching by brute force over the rows' choices (the oracle; small
/// patterns only).
fn matching_oracle(rows: &[Vec<usize>], used: &mut Vec<bool>, r: usize) -> usize {
    if r == rows.len() {
        return 0;
    }
    let mut best = matching_oracle(rows, used, r + 1);
    for &c in &rows[r] {
        if !used[c] {
            used[c] = true;
            best = best.max(1 + matching_oracle(rows, used, r + 1));
            used[c] = false;
        }
    }
    best
}

#[test]
fn structural_rank_matches_scipy_and_brute_force() {
    use cusci_sparse::csgraph::structural_rank;
    let want = gold::<i64>("srank");
    for dev in devices() {
        let cases = [
            load_csr(GOLD, "G", (28, 28), &dev),
            load_csr(GOLD, "N", (20, 20), &dev),
            load_csr(GOLD, "S1", (30, 45), &dev),
            load_csr(GOLD, "S2", (45, 30), &dev),
        ];
        for (k, g) in cases.iter().enumerate() {
            assert_eq!(
                structural_rank(g).unwrap() as i64,
                want[k],
                "case {k} on {dev}"
            );
        }
        // small random patterns against brute force (explicit zeros are entries)
        for seed in 0..12u64 {
            let (m, n) = (3 + (seed as usize % 5), 2 + (seed as usize * 7 % 6));
            let g = random::<f64>(m, n, 0.3, seed + 100, &Device::Cpu).unwrap();
            let (ip, ind) = (host(g.indptr()), host(g.indices()));
            let rows: Vec<Vec<usize>> = (0..m)
                .map(|r| {
                    ind[ip[r] as usize..ip[r + 1] as usize]
                        .iter()
                        .map(|&c| c as usize)
                        .collect()
                })
                .collect();
            let want = matching_oracle(&rows, &mut vec![false; n], 0);
            let zeros = g.mul_scalar(0.0).unwrap();
            for x in [&g, &zeros] {
                assert_eq!(
                    structural_rank(&x.to_device(&dev).unwrap()).unwrap(),
                    want,
                    "seed {seed} on {dev}"
                );
            }
        }
        let empty = random::<f64>(0, 5, 0.5, 1, &dev).unwrap();
        assert_eq!(structural_rank(&empty).unwrap(), 0);
    }
}
