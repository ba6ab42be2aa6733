//! Bad and extreme inputs for cusci-sparse (issue 33): a table of cases, each asserting a typed
//! error variant or SciPy's value (scipy.sparse 1.17.1) where SciPy accepts the input, run on
//! every device in a child process (harness: `cusci_core::testing::bad_input`): invalid CSR/CSC/
//! COO structure, mismatched shapes, huge shapes refused before allocation, iterative solvers
//! given operators whose products have the wrong length (SciPy checks `matvec`'s output shape),
//! and singular or zero matrices in the direct and incomplete factorisations ("Factor is exactly
//! singular" in SciPy).

use cusci_core::testing::bad_input::{self as bi, f, fv, shp, Kind::*, Table, V};
use cusci_core::{c64, Array, Device, Result};
use cusci_sparse::csgraph::{
    breadth_first_order, connected_components, construct_dist_matrix, dijkstra, floyd_warshall,
    laplacian, maximum_bipartite_matching, maximum_flow, min_weight_full_bipartite_matching,
    minimum_spanning_tree, yen, Connection, FlowMethod, LaplacianOptions, PathOptions, PermType,
    YenOptions,
};
use cusci_sparse::linalg::*;
use cusci_sparse::*;

fn vec1(v: &[f64], d: &Device) -> Result<Array<f64>> {
    Array::from_slice(v, &[v.len()], d)
}
fn idx(v: &[i32], d: &Device) -> Result<Array<i32>> {
    Array::from_slice(v, &[v.len()], d)
}
fn dense(v: &[f64], r: usize, c: usize, d: &Device) -> Result<CsrMatrix<f64>> {
    CsrMatrix::from_dense(&Array::from_slice(v, &[r, c], d)?)
}
/// The 4 x 4 tridiagonal [-1, 4, -1]: symmetric positive definite.
fn spd4(d: &Device) -> Result<CsrMatrix<f64>> {
    diags::<f64>(&[&[4.0; 4], &[-1.0; 3], &[-1.0; 3]], &[0, -1, 1], None, d)
}
fn csr(
    data: &[f64],
    indices: &[i32],
    indptr: &[i32],
    shape: (usize, usize),
    d: &Device,
) -> Result<V> {
    let a = CsrMatrix::new(vec1(data, d)?, idx(indices, d)?, idx(indptr, d)?, shape)?;
    fv(a.toarray()?)
}
fn csc(
    data: &[f64],
    indices: &[i32],
    indptr: &[i32],
    shape: (usize, usize),
    d: &Device,
) -> Result<V> {
    let a = CscMatrix::new(vec1(data, d)?, idx(indices, d)?, idx(indptr, d)?, shape)?;
    fv(a.toarray()?)
}
fn coo(data: &[f64], row: &[i32], col: &[i32], shape: (usize, usize), d: &Device) -> Result<V> {
    let a = CooMatrix::new(vec1(data, d)?, idx(row, d)?, idx(col, d)?, shape)?;
    fv(a.toarray()?)
}

/// An operator of shape (m, n) whose `matvec` returns `out` elements and `rmatvec` `rout` (a
/// correct operator has out = m, rout = n); `two_d` returns (out, 1) instead of (out,).
struct Bad {
    shape: (usize, usize),
    out: usize,
    rout: usize,
    two_d: bool,
}
impl LinearOperator<f64> for Bad {
    fn shape(&self) -> (usize, usize) {
        self.shape
    }
    fn matvec(&self, x: &Array<f64>) -> Result<Array<f64>> {
        let y = Array::<f64>::ones(&[self.out], x.device())?;
        if self.two_d {
            y.reshape(&[self.out as isize, 1])
        } else {
            Ok(y)
        }
    }
    fn rmatvec(&self, x: &Array<f64>) -> Result<Array<f64>> {
        Array::<f64>::ones(&[self.rout], x.device())
    }
}
fn bad(out: usize) -> Bad {
    Bad {
        shape: (4, 4),
        out,
        rout: 4,
        two_d: false,
    }
}
/// An operator returning its products on the CPU whatever the input's device.
struct OnHost;
impl LinearOperator<f64> for OnHost {
    fn shape(&self) -> (usize, usize) {
        (4, 4)
    }
    fn matvec(&self, x: &Array<f64>) -> Result<Array<f64>> {
        x.to_device(&Device::Cpu)
    }
}
fn b4(d: &Device) -> Result<Array<f64>> {
    vec1(&[1.0, 2.0, 3.0, 4.0], d)
}
fn x(s: Solution<f64>) -> Result<V> {
    fv(s.x)
}
type Solver =
    fn(&dyn LinearOperator<f64>, &Array<f64>, &SolverOptions<f64>) -> Result<Solution<f64>>;
fn solvers() -> Vec<(&'static str, Solver)> {
    vec![
        ("cg", cg::<f64>),
        ("bicgstab", bicgstab::<f64>),
        ("cgs", cgs::<f64>),
        ("gmres", gmres::<f64>),
        ("minres", minres::<f64>),
        ("bicg", bicg::<f64>),
        ("qmr", qmr::<f64>),
        ("tfqmr", tfqmr::<f64>),
        ("lgmres", lgmres::<f64>),
        ("gcrotmk", gcrotmk::<f64>),
    ]
}

fn table(dev: &Device) -> Table {
    let mut t = Table::new();

    // ---------- invalid CSR / CSC / COO structure ----------
    t.err("csr indptr too short", Shape, |d| {
        csr(&[1.0], &[0], &[0, 1], (2, 2), d)
    });
    t.err("csr indptr too long", Shape, |d| {
        csr(&[1.0], &[0], &[0, 1, 1, 1], (2, 2), d)
    });
    t.err("csr indptr not starting at 0", Arg, |d| {
        csr(&[1.0], &[0], &[1, 1, 1], (2, 2), d)
    });
    t.err("csr indptr decreasing", Arg, |d| {
        csr(&[1.0, 2.0], &[0, 1], &[0, 2, 1], (2, 2), d)
    });
    t.err("csr indptr last != nnz", Arg, |d| {
        csr(&[1.0, 2.0], &[0, 1], &[0, 1, 1], (2, 2), d)
    });
    t.err("csr indptr negative", Arg, |d| {
        csr(&[1.0], &[0], &[0, -1, 1], (2, 2), d)
    });
    t.err("csr index out of range", Arg, |d| {
        csr(&[1.0], &[5], &[0, 1, 1], (2, 2), d)
    });
    t.err("csr index = n", Arg, |d| {
        csr(&[1.0], &[2], &[0, 1, 1], (2, 2), d)
    });
    t.err("csr negative index", Arg, |d| {
        csr(&[1.0], &[-1], &[0, 1, 1], (2, 2), d)
    });
    t.err("csr data and indices lengths", Shape, |d| {
        csr(&[1.0, 2.0], &[0], &[0, 1, 1], (2, 2), d)
    });
    t.err("csr shape (usize::MAX, 2)", Shape, |d| {
        csr(&[], &[], &[0], (usize::MAX, 2), d)
    });
    t.err("csr shape (2^62, 2)", Shape, |d| {
        csr(&[], &[], &[0, 0, 0], (1 << 62, 2), d)
    });
    t.err("csr 2-D data", Shape, |d| {
        let a = CsrMatrix::new(
            Array::<f64>::ones(&[1, 1], d)?,
            idx(&[0], d)?,
            idx(&[0, 1, 1], d)?,
            (2, 2),
        )?;
        fv(a.toarray()?)
    });
    t.val(
        "csr duplicates are summed by toarray",
        f(&[2, 2], &[3.0, 0.0, 0.0, 0.0]),
        |d| csr(&[1.0, 2.0], &[0, 0], &[0, 2, 2], (2, 2), d),
    );
    t.val("csr (0, 0)", shp(&[0, 0]), |d| {
        let a = CsrMatrix::new(vec1(&[], d)?, idx(&[], d)?, idx(&[0], d)?, (0, 0))?;
        Ok(bi::shape_of(&a.toarray()?))
    });
    t.err("csc indptr too short", Shape, |d| {
        csc(&[1.0], &[0], &[0, 1], (2, 2), d)
    });
    t.err("csc indptr decreasing", Arg, |d| {
        csc(&[1.0, 2.0], &[0, 1], &[0, 2, 1], (2, 2), d)
    });
    t.err("csc index out of range", Arg, |d| {
        csc(&[1.0], &[3], &[0, 1, 1], (2, 2), d)
    });
    t.err("csc shape (2, usize::MAX)", Shape, |d| {
        csc(&[], &[], &[0, 0, 0], (2, usize::MAX), d)
    });
    t.err("coo row out of range", Arg, |d| {
        coo(&[1.0], &[2], &[0], (2, 2), d)
    });
    t.err("coo negative column", Arg, |d| {
        coo(&[1.0], &[0], &[-1], (2, 2), d)
    });
    t.err("coo lengths", Shape, |d| {
        coo(&[1.0, 2.0], &[0], &[0], (2, 2), d)
    });
    t.err("coo (2^40, 2^40) past int32 indices", Arg, |d| {
        coo(&[1.0], &[0], &[0], (1 << 40, 1 << 40), d)
    });
    t.err("from_dense 1-D", Shape, |d| {
        fv(CsrMatrix::from_dense(&vec1(&[1.0, 2.0], d)?)?.toarray()?)
    });
    t.err("from_dense 3-D", Shape, |d| {
        fv(CsrMatrix::from_dense(&Array::<f64>::ones(&[2, 2, 2], d)?)?.toarray()?)
    });

    // ---------- operations with mismatched shapes ----------
    t.err("dot x of another length", Shape, |d| {
        fv(spd4(d)?.dot(&vec1(&[1.0; 3], d)?)?)
    });
    t.err("dot 2-D x of other rows", Shape, |d| {
        fv(spd4(d)?.dot(&Array::<f64>::ones(&[3, 2], d)?)?)
    });
    t.err("add of other shapes", Shape, |d| {
        fv(spd4(d)?.add(&identity::<f64>(3, d)?)?.toarray()?)
    });
    t.err("sub of other shapes", Shape, |d| {
        fv(spd4(d)?.sub(&identity::<f64>(3, d)?)?.toarray()?)
    });
    t.err("multiply of other shapes", Shape, |d| {
        fv(spd4(d)?.multiply(&identity::<f64>(3, d)?)?.toarray()?)
    });
    t.err("matmul inner mismatch", Shape, |d| {
        fv(spd4(d)?.matmul(&identity::<f64>(3, d)?)?.toarray()?)
    });
    t.err("sum_axis 2", Arg, |d| fv(spd4(d)?.sum_axis(2)?));
    t.err("sum_axis -3", Arg, |d| fv(spd4(d)?.sum_axis(-3)?));
    t.val(
        "diagonal k beyond the matrix (SciPy: empty)",
        f(&[0], &[]),
        |d| fv(spd4(d)?.diagonal(5)?),
    );
    t.val(
        "diagonal k = isize::MIN (SciPy: empty)",
        f(&[0], &[]),
        |d| fv(spd4(d)?.diagonal(isize::MIN)?),
    );
    t.err("setdiag k beyond the matrix", Arg, |d| {
        fv(spd4(d)?.setdiag(&vec1(&[1.0], d)?, 4)?.toarray()?)
    });
    t.err("hstack rows mismatch", Shape, |d| {
        fv(hstack(&[&spd4(d)?, &identity::<f64>(3, d)?])?.toarray()?)
    });
    t.err("vstack columns mismatch", Shape, |d| {
        fv(vstack(&[&spd4(d)?, &identity::<f64>(3, d)?])?.toarray()?)
    });
    t.err("hstack of nothing", Arg, |_| {
        fv(hstack::<f64, i32>(&[])?.toarray()?)
    });
    t.err("kronsum of non-square", Shape, |d| {
        let r = dense(&[1.0, 2.0], 1, 2, d)?;
        fv(kronsum(&r, &spd4(d)?)?.toarray()?)
    });
    t.err("connected_components non-square", Shape, |d| {
        let r = dense(&[1.0, 2.0], 1, 2, d)?;
        Ok(V::N(
            connected_components(&r, false, Connection::Weak)?.0 as u64,
        ))
    });
    t.err("dijkstra non-square", Shape, |d| {
        let r = dense(&[1.0, 2.0], 1, 2, d)?;
        fv(dijkstra(&r, &PathOptions::default())?.dist_matrix)
    });
    t.err("dijkstra index usize::MAX", Arg, |d| {
        let o = PathOptions {
            indices: Some(vec![usize::MAX]),
            ..Default::default()
        };
        fv(dijkstra(&spd4(d)?, &o)?.dist_matrix)
    });
    t.err("dijkstra limit NaN", Arg, |d| {
        let o = PathOptions {
            limit: f64::NAN,
            ..Default::default()
        };
        fv(dijkstra(&spd4(d)?, &o)?.dist_matrix)
    });
    t.err("floyd_warshall negative cycle", NegCycle, |d| {
        // the tridiagonal [-1, 4, -1] has the negative 2-cycles i <-> i+1
        fv(floyd_warshall(&spd4(d)?, &PathOptions::default())?.dist_matrix)
    });
    t.err("dijkstra negative cycle", NegCycle, |d| {
        fv(dijkstra(&spd4(d)?, &PathOptions::default())?.dist_matrix)
    });
    t.err("breadth_first_order i_start = usize::MAX", Arg, |d| {
        fv(breadth_first_order(&spd4(d)?, usize::MAX, true, false)?.0)
    });
    t.err("laplacian non-square", Shape, |d| {
        let r = dense(&[1.0, 2.0], 1, 2, d)?;
        fv(laplacian(&r, &LaplacianOptions::default())?.1)
    });
    t.err("construct_dist_matrix predecessors (3,)", Shape, |d| {
        let p = Array::from_slice(&[0i32, 1, 2], &[3], d)?;
        fv(construct_dist_matrix(&spd4(d)?, &p, true, f64::INFINITY)?)
    });
    t.val("minimum_spanning_tree of (0, 0)", shp(&[0, 0]), |d| {
        let z = CsrMatrix::<f64>::new(vec1(&[], d)?, idx(&[], d)?, idx(&[0], d)?, (0, 0))?;
        Ok(bi::shape_of(&minimum_spanning_tree(&z)?.toarray()?))
    });

    // ---------- construction: huge and bad parameters ----------
    t.err("eye(usize::MAX, 1)", Arg, |d| {
        fv(eye::<f64>(usize::MAX, 1, 0, d)?.toarray()?)
    });
    t.err("eye(2^62, 2^62)", Arg, |d| {
        Ok(V::N(eye::<f64>(1 << 62, 1 << 62, 0, d)?.nnz() as u64))
    });
    t.err("eye(2^40, 2^40) (past 32-bit indices)", Arg, |d| {
        Ok(V::N(eye::<f64>(1 << 40, 1 << 40, 0, d)?.nnz() as u64))
    });
    t.err("identity(usize::MAX)", Arg, |d| {
        Ok(V::N(identity::<f64>(usize::MAX, d)?.nnz() as u64))
    });
    t.val("eye k beyond (SciPy: no entries)", V::N(0), |d| {
        Ok(V::N(eye::<f64>(3, 3, 5, d)?.nnz() as u64))
    });
    t.val("eye k = isize::MIN (SciPy: no entries)", V::N(0), |d| {
        Ok(V::N(eye::<f64>(3, 3, isize::MIN, d)?.nnz() as u64))
    });
    t.err("toarray of (2^20, 2^20)", Oom, |d| {
        fv(eye::<f64>(1 << 20, 1 << 20, 0, d)?.toarray()?)
    });
    t.err("diags counts mismatch", Arg, |d| {
        fv(diags::<f64>(&[&[1.0, 2.0]], &[0, 1], None, d)?.toarray()?)
    });
    t.err("diags duplicate offsets", Arg, |d| {
        fv(diags::<f64>(&[&[1.0, 2.0], &[1.0, 2.0]], &[0, 0], None, d)?.toarray()?)
    });
    t.val(
        "diags longer diagonal is truncated (SciPy)",
        f(&[2, 2], &[1.0, 0.0, 0.0, 2.0]),
        |d| fv(diags::<f64>(&[&[1.0, 2.0, 3.0]], &[0], Some((2, 2)), d)?.toarray()?),
    );
    t.err("random density 2", Arg, |d| {
        fv(random::<f64>(3, 3, 2.0, 0, d)?.toarray()?)
    });
    t.err("random density NaN", Arg, |d| {
        fv(random::<f64>(3, 3, f64::NAN, 0, d)?.toarray()?)
    });
    t.err("random (2^40, 2^40) density 1", Arg, |d| {
        Ok(V::N(
            random::<f64>(1 << 40, 1 << 40, 1.0, 0, d)?.nnz() as u64
        ))
    });
    t.err(
        "random (2^30, 2^30) density 0.5 (64-bit indices)",
        Arg,
        |d| {
            Ok(V::N(
                random::<f64>(1 << 30, 1 << 30, 0.5, 0, d)?.nnz() as u64
            ))
        },
    );
    t.err("kron to (2^40, 2^40) past int32 indices", Arg, |d| {
        let a = eye::<f64>(1 << 20, 1 << 20, 0, d)?;
        Ok(V::N(kron(&a, &a)?.nnz() as u64))
    });

    // ---------- iterative solvers: operators whose products have the wrong length ----------
    for (name, s) in solvers() {
        t.err(&format!("{name}: matvec returns 3 of 4"), Shape, move |d| {
            x(s(&bad(3), &b4(d)?, &SolverOptions::default())?)
        });
        t.err(&format!("{name}: matvec returns 5 of 4"), Shape, move |d| {
            x(s(&bad(5), &b4(d)?, &SolverOptions::default())?)
        });
        t.err(&format!("{name}: matvec returns 0"), Shape, move |d| {
            x(s(&bad(0), &b4(d)?, &SolverOptions::default())?)
        });
        t.err(&format!("{name}: matvec returns (4, 1)"), Shape, move |d| {
            let op = Bad {
                two_d: true,
                ..bad(4)
            };
            x(s(&op, &b4(d)?, &SolverOptions::default())?)
        });
        t.err(
            &format!("{name}: preconditioner returns 3"),
            Shape,
            move |d| {
                let m = bad(3);
                let o = SolverOptions {
                    m: Some(&m),
                    ..Default::default()
                };
                x(s(&spd4(d)?, &b4(d)?, &o)?)
            },
        );
        t.err(&format!("{name}: b of another length"), Shape, move |d| {
            x(s(
                &spd4(d)?,
                &vec1(&[1.0; 3], d)?,
                &SolverOptions::default(),
            )?)
        });
        t.err(&format!("{name}: x0 of another length"), Shape, move |d| {
            let x0 = vec1(&[0.0; 5], d)?;
            let o = SolverOptions {
                x0: Some(&x0),
                ..Default::default()
            };
            x(s(&spd4(d)?, &b4(d)?, &o)?)
        });
        t.err(&format!("{name}: non-square operator"), Shape, move |d| {
            let op = Bad {
                shape: (4, 3),
                out: 4,
                rout: 3,
                two_d: false,
            };
            x(s(&op, &b4(d)?, &SolverOptions::default())?)
        });
        t.val(
            &format!("{name}: zero right-hand side gives zeros"),
            f(&[4], &[0.0; 4]),
            move |d| {
                x(s(
                    &spd4(d)?,
                    &vec1(&[0.0; 4], d)?,
                    &SolverOptions::default(),
                )?)
            },
        );
        if dev.is_cuda() {
            t.err(
                &format!("{name}: operator answers on the host"),
                DevMismatch,
                move |d| x(s(&OnHost, &b4(d)?, &SolverOptions::default())?),
            );
        }
    }
    t.err("gmres restart 0", Arg, |d| {
        let o = SolverOptions {
            restart: Some(0),
            ..Default::default()
        };
        x(gmres(&spd4(d)?, &b4(d)?, &o)?)
    });
    t.err("lsqr: matvec returns 3 of 4", Shape, |d| {
        fv(lsqr(&bad(3), &b4(d)?, &LsqOptions::default())?.x)
    });
    t.err("lsqr: rmatvec returns 3 of 4", Shape, |d| {
        let op = Bad { rout: 3, ..bad(4) };
        fv(lsqr(&op, &b4(d)?, &LsqOptions::default())?.x)
    });
    t.err("lsqr: b of another length", Shape, |d| {
        fv(lsqr(&spd4(d)?, &vec1(&[1.0; 3], d)?, &LsqOptions::default())?.x)
    });
    t.err("lsmr: matvec returns 5 of 4", Shape, |d| {
        fv(lsmr(&bad(5), &b4(d)?, &LsqOptions::default())?.x)
    });
    t.err("lsmr: rmatvec returns 6 of 4", Shape, |d| {
        let op = Bad { rout: 6, ..bad(4) };
        fv(lsmr(&op, &b4(d)?, &LsqOptions::default())?.x)
    });
    t.err("eigsh: matvec returns 3 of 4", Shape, |d| {
        let v0 = b4(d)?;
        let o = EigshOptions {
            v0: Some(&v0),
            ..Default::default()
        };
        Ok(V::F(vec![1], eigsh(&bad(3), 1, &o)?.w))
    });
    t.err("eigsh: k = 0", Arg, |d| {
        Ok(V::F(
            vec![0],
            eigsh(&spd4(d)?, 0, &EigshOptions::default())?.w,
        ))
    });
    t.err("eigsh: k = n", Arg, |d| {
        Ok(V::F(
            vec![4],
            eigsh(&spd4(d)?, 4, &EigshOptions::default())?.w,
        ))
    });
    t.err("eigsh: k = usize::MAX", Arg, |d| {
        Ok(V::F(
            vec![1],
            eigsh(&spd4(d)?, usize::MAX, &EigshOptions::default())?.w,
        ))
    });
    t.err(
        "eigsh: sigma on an eigenvalue (A - sigma I singular)",
        Singular,
        |d| {
            let o = EigshOptions {
                sigma: Some(3.0),
                ..Default::default()
            };
            let a = diags::<f64>(&[&[1.0, 2.0, 3.0, 4.0, 5.0]], &[0], None, d)?;
            Ok(V::F(vec![2], eigsh(&a, 2, &o)?.w))
        },
    );
    t.err("eigsh: sigma = NaN", Arg, |d| {
        let o = EigshOptions {
            sigma: Some(f64::NAN),
            ..Default::default()
        };
        Ok(V::F(vec![1], eigsh(&spd4(d)?, 1, &o)?.w))
    });
    t.err("eigsh: sigma on an operator without opinv", Arg, |d| {
        let v0 = b4(d)?;
        let o = EigshOptions {
            sigma: Some(1.0),
            v0: Some(&v0),
            ..Default::default()
        };
        Ok(V::F(vec![1], eigsh(&bad(4), 1, &o)?.w))
    });
    t.err("eigs: k = n - 1", Arg, |d| {
        let w = eigs(&spd4(d)?, 3, &EigsOptions::default())?.w;
        Ok(V::F(vec![3], w.iter().map(|z| z.re).collect()))
    });
    t.err("eigs: k = 0", Arg, |d| {
        let w = eigs(&spd4(d)?, 0, &EigsOptions::default())?.w;
        Ok(V::F(vec![0], w.iter().map(|z| z.re).collect()))
    });
    t.err("eigs: non-square", Shape, |d| {
        let a = dense(&[1.0; 12], 3, 4, d)?;
        let w = eigs(&a, 1, &EigsOptions::default())?.w;
        Ok(V::F(vec![1], w.iter().map(|z| z.re).collect()))
    });
    t.err("eigs: matvec returns 3 of 4", Shape, |d| {
        let v0 = b4(d)?;
        let o = EigsOptions {
            v0: Some(&v0),
            ..Default::default()
        };
        let w = eigs(&bad(3), 1, &o)?.w;
        Ok(V::F(vec![1], w.iter().map(|z| z.re).collect()))
    });
    t.err("eigs: complex sigma on a real matrix", Arg, |d| {
        let o = EigsOptions {
            sigma: Some(c64::new(0.0, 1.0)),
            ..Default::default()
        };
        let w = eigs(&spd4(d)?, 1, &o)?.w;
        Ok(V::F(vec![1], w.iter().map(|z| z.re).collect()))
    });
    t.err("svds: rmatvec returns 3 of 4", Shape, |d| {
        let op = Bad { rout: 3, ..bad(4) };
        let _ = d;
        Ok(V::F(vec![1], svds(&op, 1, &SvdsOptions::default())?.s))
    });
    t.err("svds: k = 0", Arg, |d| {
        Ok(V::F(
            vec![0],
            svds(&spd4(d)?, 0, &SvdsOptions::default())?.s,
        ))
    });
    t.err("lobpcg: matvec returns 3 of 4", Shape, |d| {
        let x0 = Array::<f64>::ones(&[4, 1], d)?;
        Ok(V::F(
            vec![1],
            lobpcg(&bad(3), &x0, &LobpcgOptions::default())?.w,
        ))
    });
    t.err("lobpcg: X of other rows", Shape, |d| {
        let x0 = Array::<f64>::ones(&[3, 1], d)?;
        Ok(V::F(
            vec![1],
            lobpcg(&spd4(d)?, &x0, &LobpcgOptions::default())?.w,
        ))
    });

    // ---------- direct and incomplete factorisations: singular and zero matrices ----------
    let zero3 = |d: &Device| CsrMatrix::<f64>::from_dense(&Array::zeros(&[3, 3], d)?);
    t.err("splu of zeros", Singular, move |d| {
        Ok(V::N(splu(&zero3(d)?).map(|_| 0)?))
    });
    t.err("splu singular", Singular, |d| {
        Ok(V::N(
            splu(&dense(&[1.0, 2.0, 2.0, 4.0], 2, 2, d)?).map(|_| 0)?,
        ))
    });
    t.err("spilu of zeros", Singular, move |d| {
        Ok(V::N(spilu(&zero3(d)?, &IluOptions::default()).map(|_| 0)?))
    });
    t.err("spilu singular", Singular, |d| {
        let a = dense(&[1.0, 2.0, 2.0, 4.0], 2, 2, d)?;
        Ok(V::N(spilu(&a, &IluOptions::default()).map(|_| 0)?))
    });
    t.err("spilu zero column", Singular, |d| {
        let a = dense(&[1.0, 0.0, 1.0, 0.0], 2, 2, d)?;
        Ok(V::N(spilu(&a, &IluOptions::default()).map(|_| 0)?))
    });
    t.err("spilu zero diagonal block", Singular, |d| {
        let a = dense(&[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0], 3, 3, d)?;
        Ok(V::N(spilu(&a, &IluOptions::default()).map(|_| 0)?))
    });
    t.val("spilu of a tiny pivot (SciPy: a value)", V::N(1), |d| {
        let a = dense(&[1.0, 1e-12, 1e-12, 1e-30], 2, 2, d)?;
        Ok(V::N(spilu(&a, &IluOptions::default()).map(|_| 1)?))
    });
    t.err("spilu non-square", Shape, |d| {
        let a = dense(&[1.0, 2.0], 1, 2, d)?;
        Ok(V::N(spilu(&a, &IluOptions::default()).map(|_| 0)?))
    });
    t.err("spilu drop_tol -1", Arg, |d| {
        let o = IluOptions {
            drop_tol: Some(-1.0),
            ..Default::default()
        };
        Ok(V::N(spilu(&spd4(d)?, &o).map(|_| 0)?))
    });
    t.err("spilu fill_factor 0.5", Arg, |d| {
        let o = IluOptions {
            fill_factor: Some(0.5),
            ..Default::default()
        };
        Ok(V::N(spilu(&spd4(d)?, &o).map(|_| 0)?))
    });
    t.err("spilu diag_pivot_thresh 2", Arg, |d| {
        let o = IluOptions {
            diag_pivot_thresh: Some(2.0),
            ..Default::default()
        };
        Ok(V::N(spilu(&spd4(d)?, &o).map(|_| 0)?))
    });
    t.err("spsolve of zeros", Singular, move |d| {
        fv(spsolve(&zero3(d)?, &vec1(&[1.0; 3], d)?)?)
    });
    t.err("spsolve non-square", Shape, |d| {
        fv(spsolve(&dense(&[1.0, 2.0], 1, 2, d)?, &vec1(&[1.0], d)?)?)
    });
    t.err("spsolve b of another length", Shape, |d| {
        fv(spsolve(&spd4(d)?, &vec1(&[1.0; 3], d)?)?)
    });
    t.err("spsolve_triangular zero diagonal", Singular, |d| {
        let a = dense(&[1.0, 0.0, 1.0, 0.0], 2, 2, d)?;
        fv(spsolve_triangular(&a, &vec1(&[1.0, 1.0], d)?, true, false)?)
    });
    t.err("factorized singular", Singular, |d| {
        Ok(V::N(
            factorized(&dense(&[1.0, 2.0, 2.0, 4.0], 2, 2, d)?).map(|_| 0)?,
        ))
    });
    t.err("SuperLu solve b of another length", Shape, |d| {
        fv(splu(&spd4(d)?)?.solve(&vec1(&[1.0; 3], d)?)?)
    });

    // ---------- matrix functions, flows, matchings, k shortest paths ----------
    t.err("expm non-square", Shape, |d| {
        fv(expm(&dense(&[1.0, 2.0], 1, 2, d)?)?.toarray()?)
    });
    t.err("inv singular", Singular, |d| {
        fv(inv(&dense(&[1.0, 2.0, 2.0, 4.0], 2, 2, d)?)?.toarray()?)
    });
    t.err("expm_multiply B of another length", Shape, |d| {
        fv(expm_multiply(
            &spd4(d)?,
            &vec1(&[1.0; 3], d)?,
            &ExpmMultiplyOptions::default(),
        )?)
    });
    t.err("expm_multiply one time point", Arg, |d| {
        let o = ExpmMultiplyOptions {
            start: Some(0.0),
            stop: Some(1.0),
            num: Some(1),
            ..Default::default()
        };
        fv(expm_multiply(&spd4(d)?, &b4(d)?, &o)?)
    });
    t.err("onenormest itmax 1", Arg, |d| {
        let o = OnenormestOptions { t: 2, itmax: 1 };
        Ok(V::N(onenormest(&spd4(d)?, &o)?.est as u64))
    });
    t.err("maximum_flow source == sink", Arg, |d| {
        Ok(V::N(
            maximum_flow(&spd4(d)?, 1, 1, FlowMethod::Dinic)?.flow_value as u64,
        ))
    });
    t.err("maximum_flow negative capacity", Arg, |d| {
        Ok(V::N(
            maximum_flow(&spd4(d)?, 0, 3, FlowMethod::Dinic)?.flow_value as u64,
        ))
    });
    t.err("maximum_flow non-integer capacity", Arg, |d| {
        let g = dense(&[0.0, 1.5, 0.0, 0.0], 2, 2, d)?;
        Ok(V::N(
            maximum_flow(&g, 0, 1, FlowMethod::EdmondsKarp)?.flow_value as u64,
        ))
    });
    t.err("maximum_flow non-square", Shape, |d| {
        let g = dense(&[1.0, 2.0], 1, 2, d)?;
        Ok(V::N(
            maximum_flow(&g, 0, 1, FlowMethod::Dinic)?.flow_value as u64,
        ))
    });
    t.val("maximum_flow unreachable sink", V::N(0), |d| {
        let g = dense(&[0.0, 0.0, 3.0, 0.0], 2, 2, d)?;
        Ok(V::N(
            maximum_flow(&g, 0, 1, FlowMethod::Dinic)?.flow_value as u64,
        ))
    });
    t.val(
        "maximum_bipartite_matching of an empty pattern",
        V::N(0),
        |d| {
            let g = dense(&[0.0; 6], 2, 3, d)?;
            let m = maximum_bipartite_matching(&g, PermType::Row)?.to_vec()?;
            Ok(V::N(m.iter().filter(|&&v| v >= 0).count() as u64))
        },
    );
    t.err("min_weight_full_bipartite_matching without one", Arg, |d| {
        let g = dense(&[1.0, 0.0, 1.0, 0.0], 2, 2, d)?;
        Ok(V::N(
            min_weight_full_bipartite_matching(&g, false)?.0.len() as u64
        ))
    });
    t.err("yen sink out of range", Arg, |d| {
        Ok(V::N(
            yen(&spd4(d)?, 0, 4, 2, &YenOptions::default())?
                .dist_array
                .len() as u64,
        ))
    });
    t
}

#[test]
fn bad_input_table() {
    bi::run_in_child("bad_input::bad_input_child", 600);
}

#[test]
fn bad_input_child() {
    bi::child("cusci-sparse", 120, table);
}
