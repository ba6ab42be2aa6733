//! connected_components: breadth-first searches as the oracles (weak: undirected BFS; strong:
//! mutual reachability), the same labels on every device.

use cusci_core::testing::devices;
use cusci_core::{Array, Device, Error};
use cusci_sparse::csgraph::{connected_components, Connection};
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
