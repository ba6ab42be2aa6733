//! maximum_flow and maximum_bipartite_matching against SciPy (`tests/data/scipy_flow.npz`, from
//! `tests/golden/gen.py sparse_flow`): flow values of both methods, flow conservation,
//! capacity limits and antisymmetry, matching size and validity; every device against the
//! CPU; bad input. Also yen (`tests/data/scipy_yen.npz`, `gen.py sparse_yen`): lengths, paths.

use cusci_core::testing::devices;
use cusci_core::{Array, Device, Error};
use cusci_sparse::csgraph::{
    maximum_bipartite_matching, maximum_flow, min_weight_full_bipartite_matching, FlowMethod,
    PermType,
};
use cusci_sparse::CsrMatrix;

use crate::common::{load_csr, load_npz};

const FILE: &str = "scipy_flow";

fn dense(a: &CsrMatrix<f64>) -> (usize, Vec<f64>) {
    let n = a.shape().0;
    (
        n,
        a.toarray()
            .unwrap()
            .to_device(&Device::Cpu)
            .unwrap()
            .to_vec()
            .unwrap(),
    )
}

/// Antisymmetry, capacity limits (the flow on u → v at most the capacity, the reverse flow
/// counted against the reverse edge) and conservation; returns the value leaving `s`.
fn check_flow(cap: &[f64], flow: &[f64], n: usize, s: usize, t: usize) -> f64 {
    for u in 0..n {
        for v in 0..n {
            let f = flow[u * n + v];
            assert_eq!(f, -flow[v * n + u], "antisymmetric at ({u}, {v})");
            if u != v {
                assert!(f <= cap[u * n + v], "capacity at ({u}, {v}): {f}");
            }
        }
        let net: f64 = (0..n).map(|v| flow[u * n + v]).sum();
        if u != s && u != t {
            assert_eq!(net, 0.0, "conservation at {u}");
        }
    }
    (0..n).map(|v| flow[s * n + v]).sum()
}

#[test]
fn maximum_flow_like_scipy() {
    let pairs = load_npz::<i64>(FILE, "pairs", &Device::Cpu)
        .to_vec()
        .unwrap();
    let want = load_npz::<i64>(FILE, "flow_values", &Device::Cpu)
        .to_vec()
        .unwrap();
    for dev in devices() {
        let g = load_csr(FILE, "g", (30, 30), &dev);
        let (n, cap) = dense(&g);
        for (k, st) in pairs.chunks(2).enumerate() {
            let (s, t) = (st[0] as usize, st[1] as usize);
            for (j, method) in [FlowMethod::Dinic, FlowMethod::EdmondsKarp]
                .into_iter()
                .enumerate()
            {
                let r = maximum_flow(&g, s, t, method).unwrap();
                assert_eq!(
                    r.flow_value,
                    want[2 * k + j],
                    "{s} -> {t} {method:?} on {dev}"
                );
                assert_eq!(r.flow.device(), &dev);
                let (_, f) = dense(&r.flow);
                assert_eq!(check_flow(&cap, &f, n, s, t), r.flow_value as f64);
            }
        }
    }
}

#[test]
fn flow_edge_cases() {
    for dev in devices() {
        // parallel edges add up, self-loops and explicit zeros carry nothing, f32, i64 indices
        let g = CsrMatrix::<f32, i64>::new(
            Array::from_vec(vec![2.0f32, 3.0, 7.0, 4.0, 0.0], &[5], &dev).unwrap(),
            Array::from_vec(vec![1i64, 1, 1, 2, 2], &[5], &dev).unwrap(),
            Array::from_vec(vec![0i64, 2, 4, 5], &[4], &dev).unwrap(),
            (3, 3),
        )
        .unwrap();
        for method in [FlowMethod::Dinic, FlowMethod::EdmondsKarp] {
            let r = maximum_flow(&g, 0, 2, method).unwrap();
            assert_eq!(r.flow_value, 4);
            // sink unreachable
            assert_eq!(maximum_flow(&g, 2, 0, method).unwrap().flow_value, 0);
        }
        let r = maximum_flow(&g, 0, 2, FlowMethod::Dinic).unwrap();
        let f = r
            .flow
            .toarray()
            .unwrap()
            .to_device(&Device::Cpu)
            .unwrap()
            .to_vec()
            .unwrap();
        assert_eq!(f, vec![0.0, 4.0, 0.0, -4.0, 0.0, 4.0, 0.0, -4.0, 0.0]);
    }
}

#[test]
fn bipartite_matching_like_scipy() {
    let want_row = load_npz::<i32>(FILE, "match_row", &Device::Cpu)
        .to_vec()
        .unwrap();
    let want_col = load_npz::<i32>(FILE, "match_col", &Device::Cpu)
        .to_vec()
        .unwrap();
    let size = want_row.iter().filter(|&&r| r >= 0).count();
    for dev in devices() {
        let b = load_csr(FILE, "b", (20, 15), &dev);
        let (_, d) = {
            let a = b
                .toarray()
                .unwrap()
                .to_device(&Device::Cpu)
                .unwrap()
                .to_vec()
                .unwrap();
            (20, a)
        };
        let row = maximum_bipartite_matching(&b, PermType::Row).unwrap();
        let col = maximum_bipartite_matching(&b, PermType::Column).unwrap();
        assert_eq!(row.device(), &dev);
        let (row, col) = (row.to_vec().unwrap(), col.to_vec().unwrap());
        assert_eq!((row.len(), col.len()), (want_row.len(), want_col.len()));
        assert_eq!(row.iter().filter(|&&r| r >= 0).count(), size, "on {dev}");
        assert_eq!(col.iter().filter(|&&c| c >= 0).count(), size, "on {dev}");
        // a matching of stored entries, the two views consistent
        for (c, &r) in row.iter().enumerate() {
            if r >= 0 {
                assert_ne!(d[r as usize * 15 + c], 0.0, "edge ({r}, {c})");
                assert_eq!(col[r as usize], c as i32);
            }
        }
        let mut used = [false; 15];
        for &c in col.iter().filter(|&&c| c >= 0) {
            assert!(!used[c as usize]);
            used[c as usize] = true;
        }
    }
    // a unique perfect matching: SciPy's exactly
    let g = CsrMatrix::<f64>::from_dense(
        &Array::from_vec(
            vec![1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0],
            &[3, 3],
            &Device::Cpu,
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        maximum_bipartite_matching(&g, PermType::Column)
            .unwrap()
            .to_vec()
            .unwrap(),
        vec![0, 1, 2]
    );
    // empty shapes
    let e = CsrMatrix::<f64>::from_dense(&Array::zeros(&[0, 4], &Device::Cpu).unwrap()).unwrap();
    assert_eq!(
        maximum_bipartite_matching(&e, PermType::Row)
            .unwrap()
            .to_vec()
            .unwrap(),
        vec![-1; 4]
    );
}

#[test]
fn bad_input_is_a_typed_error() {
    let dev = Device::Cpu;
    let m = |v: Vec<f64>, r: usize, c: usize| {
        CsrMatrix::<f64>::from_dense(&Array::from_vec(v, &[r, c], &dev).unwrap()).unwrap()
    };
    let d = FlowMethod::Dinic;
    let rect = m(vec![1.0; 6], 2, 3);
    assert!(matches!(
        maximum_flow(&rect, 0, 1, d),
        Err(Error::ShapeMismatch { .. })
    ));
    let g = m(vec![0.0, 1.0, 0.0, 0.0], 2, 2);
    assert!(matches!(
        maximum_flow(&g, 0, 0, d),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        maximum_flow(&g, 0, 2, d),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        maximum_flow(&g, 5, 1, d),
        Err(Error::InvalidArgument { .. })
    ));
    let neg = m(vec![0.0, -1.0, 0.0, 0.0], 2, 2);
    assert!(matches!(
        maximum_flow(&neg, 0, 1, d),
        Err(Error::InvalidArgument { .. })
    ));
    let frac = m(vec![0.0, 1.5, 0.0, 0.0], 2, 2);
    assert!(matches!(
        maximum_flow(&frac, 0, 1, d),
        Err(Error::InvalidArgument { .. })
    ));
    let inf = m(vec![0.0, f64::INFINITY, 0.0, 0.0], 2, 2);
    assert!(matches!(
        maximum_flow(&inf, 0, 1, d),
        Err(Error::InvalidArgument { .. })
    ));
    let nan = m(vec![0.0, f64::NAN, 0.0, 0.0], 2, 2);
    assert!(matches!(
        maximum_flow(&nan, 0, 1, d),
        Err(Error::InvalidArgument { .. })
    ));
}

#[test]
fn min_weight_full_matching_like_scipy() {
    for dev in devices() {
        let w = load_csr(FILE, "w", (12, 16), &dev);
        for (key, g) in [("w", w.clone()), ("wt", w.transpose().tocsr().unwrap())] {
            let (m, n) = g.shape();
            let d = g
                .toarray()
                .unwrap()
                .to_device(&Device::Cpu)
                .unwrap()
                .to_vec()
                .unwrap();
            for mx in [false, true] {
                let (r, c) = min_weight_full_bipartite_matching(&g, mx).unwrap();
                assert_eq!(r.device(), &dev);
                let (r, c) = (r.to_vec().unwrap(), c.to_vec().unwrap());
                assert_eq!(r.len(), m.min(n));
                assert!(r.windows(2).all(|p| p[0] < p[1]), "rows ascending");
                let mut used = vec![false; n];
                let mut total = 0.0;
                for (&i, &j) in r.iter().zip(&c) {
                    let v = d[i as usize * n + j as usize];
                    assert_ne!(v, 0.0, "({i}, {j}) is an edge");
                    assert!(!used[j as usize]);
                    used[j as usize] = true;
                    total += v;
                }
                let want = load_npz::<f64>(FILE, &format!("{key}_{}", mx as i32), &Device::Cpu)
                    .to_vec()
                    .unwrap()[0];
                assert!(
                    (total - want).abs() < 1e-9,
                    "{key} maximize={mx} on {dev}: {total} vs {want}"
                );
            }
        }
    }
    let dev = Device::Cpu;
    let m = |v: Vec<f64>, r: usize, c: usize| {
        CsrMatrix::<f64>::from_dense(&Array::from_vec(v, &[r, c], &dev).unwrap()).unwrap()
    };
    // no full matching; explicit zeros are not edges; non-finite weights; empty
    let e = |r: Result<(Array<i32>, Array<i32>), Error>| {
        matches!(r, Err(Error::InvalidArgument { .. }))
    };
    assert!(e(min_weight_full_bipartite_matching(
        &m(vec![1.0, 0.0, 1.0, 0.0], 2, 2),
        false
    )));
    let z = CsrMatrix::<f64>::new(
        Array::from_vec(vec![0.0, 2.0], &[2], &dev).unwrap(),
        Array::from_vec(vec![0, 1], &[2], &dev).unwrap(),
        Array::from_vec(vec![0, 1, 2], &[3], &dev).unwrap(),
        (2, 2),
    )
    .unwrap();
    assert!(e(min_weight_full_bipartite_matching(&z, false)));
    assert!(e(min_weight_full_bipartite_matching(
        &m(vec![f64::NAN, 1.0, 1.0, 1.0], 2, 2),
        false
    )));
    assert!(e(min_weight_full_bipartite_matching(
        &m(vec![], 0, 0),
        false
    )));
    // SciPy's examples
    let (r, c) =
        min_weight_full_bipartite_matching(&m(vec![3.0, 1.0, 2.0, 0.0, 0.0, 5.0], 3, 2), true)
            .unwrap();
    assert_eq!(
        (r.to_vec().unwrap(), c.to_vec().unwrap()),
        (vec![0, 2], vec![0, 1])
    );
}

/// Checks that each row of `pred` is a loopless path source → sink of length `dist[i]` (in
/// the weights `w`, dense n x n, the lightest of both directions when undirected) and that no
/// two rows are the same path.
fn check_paths(
    w: &[f64],
    n: usize,
    s: usize,
    t: usize,
    dist: &[f64],
    pred: &[i32],
    directed: bool,
) {
    let mut seen = std::collections::HashSet::new();
    for (i, &d) in dist.iter().enumerate() {
        let row = &pred[i * n..(i + 1) * n];
        let mut v = t;
        let mut len = 0.0;
        let mut path = vec![t];
        while v != s {
            let u = row[v];
            assert!(u >= 0, "path {i} breaks at {v}");
            let u = u as usize;
            let mut e = w[u * n + v];
            if !directed && (e == 0.0 || (w[v * n + u] != 0.0 && w[v * n + u] < e)) {
                e = w[v * n + u];
            }
            assert_ne!(e, 0.0, "({u}, {v}) is an edge");
            len += e;
            path.push(u);
            v = u;
            assert!(path.len() <= n, "loop in path {i}");
        }
        assert!((len - d).abs() < 1e-9, "path {i}: {len} vs {d}");
        assert!(seen.insert(path), "path {i} repeated");
    }
}

#[test]
fn yen_like_scipy() {
    use cusci_sparse::csgraph::{yen, YenOptions};
    let f = "scipy_yen";
    for dev in devices() {
        for (key, prefix, directed, unweighted) in [
            ("directed", "g", true, false),
            ("undirected", "g", false, false),
            ("unweighted", "g", true, true),
            ("negative", "n", true, false),
        ] {
            let g = load_csr(f, prefix, (15, 15), &dev);
            let r = yen(
                &g,
                0,
                14,
                8,
                &YenOptions {
                    directed,
                    unweighted,
                },
            )
            .unwrap();
            assert_eq!(r.dist_array.device(), &dev);
            let d = r.dist_array.to_vec().unwrap();
            let want = load_npz::<f64>(f, key, &Device::Cpu).to_vec().unwrap();
            assert_eq!(d.len(), want.len(), "{key} on {dev}");
            assert!(
                d.iter().zip(&want).all(|(p, q)| (p - q).abs() < 1e-9),
                "{key} on {dev}: {d:?}"
            );
            let (_, mut w) = dense(&g);
            if unweighted {
                w.iter_mut().filter(|v| **v != 0.0).for_each(|v| *v = 1.0);
            }
            assert_eq!(r.predecessors.shape(), [d.len(), 15]);
            check_paths(
                &w,
                15,
                0,
                14,
                &d,
                &r.predecessors.to_vec().unwrap(),
                directed,
            );
        }
    }
    let dev = Device::Cpu;
    let m = |v: Vec<f64>| {
        CsrMatrix::<f64>::from_dense(&Array::from_vec(v, &[3, 3], &dev).unwrap()).unwrap()
    };
    let g = m(vec![0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
    let o = YenOptions::default();
    // source == sink: one path of length 0; no path; K = 0
    let r = yen(&g, 1, 1, 3, &o).unwrap();
    assert_eq!(r.dist_array.to_vec().unwrap(), vec![0.0]);
    assert_eq!(r.predecessors.to_vec().unwrap(), vec![-9999; 3]);
    assert_eq!(yen(&g, 2, 0, 3, &o).unwrap().dist_array.len(), 0);
    assert_eq!(yen(&g, 0, 2, 0, &o).unwrap().predecessors.shape(), [0, 3]);
    // bad input and a negative cycle
    assert!(matches!(
        yen(&g, 0, 3, 1, &o),
        Err(Error::InvalidArgument { .. })
    ));
    let rect = CsrMatrix::<f64>::from_dense(&Array::from_vec(vec![1.0; 6], &[2, 3], &dev).unwrap())
        .unwrap();
    assert!(matches!(
        yen(&rect, 0, 1, 1, &o),
        Err(Error::ShapeMismatch { .. })
    ));
    let cyc = m(vec![0.0, 1.0, 0.0, 0.0, 0.0, -1.0, -1.0, 0.0, 0.0]);
    assert!(matches!(
        yen(&cyc, 0, 2, 2, &o),
        Err(Error::NegativeCycle { .. })
    ));
}
