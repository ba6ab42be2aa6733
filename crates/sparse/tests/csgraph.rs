//! connected_components: union–find on the CPU as the oracle, the same labels on every device.

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
        let g = random::<f64>(n, n, density, seed, &Device::Cpu).unwrap();
        let coo = g.tocoo().unwrap();
        let (r, c) = (coo.row().to_vec().unwrap(), coo.col().to_vec().unwrap());
        let edges: Vec<(usize, usize)> = r
            .iter()
            .zip(&c)
            .map(|(&a, &b)| (a as usize, b as usize))
            .collect();
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
        let sq: CsrMatrix<f64> = random(3, 3, 0.5, 1, &dev).unwrap();
        assert!(matches!(
            connected_components(&sq, true, Connection::Strong),
            Err(Error::NotImplemented { .. })
        ));
    }
}
