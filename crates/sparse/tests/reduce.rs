//! max/min (whole and per axis), power, astype, sort_indices, setdiag, linalg::norm / norm_axis and
//! matrix_power against dense oracles computed here, on every device: matrices with empty rows,
//! full rows, duplicate entries (non-canonical CSR), NaN, negative values; bad input.

use cusci_core::testing::{assert_allclose, devices, randn_vec};
use cusci_core::{c64, Array, Device, Error, Float};
use cusci_sparse::linalg::{matrix_power, norm, norm_axis, NormOrd};
use cusci_sparse::{random, CsrMatrix};

/// A random m x n matrix whose rows 0 and 2 (when present) are full and whose row 1 is empty,
/// with one duplicated entry in row 3 (non-canonical: the column appears twice).
fn mat<T: Float>(m: usize, n: usize, seed: u64, dev: &Device) -> CsrMatrix<T> {
    let r = random::<f64>(m, n, 0.3, seed, &Device::Cpu).unwrap();
    let ip: Vec<i32> = r.indptr().to_vec().unwrap();
    let ix: Vec<i32> = r.indices().to_vec().unwrap();
    let (mut indptr, mut indices) = (vec![0i32], Vec::new());
    for row in 0..m {
        let cols: Vec<i32> = match row {
            0 | 2 => (0..n as i32).collect(),
            1 => vec![],
            3 if n > 1 => vec![n as i32 - 1, 0, n as i32 - 1],
            _ => ix[ip[row] as usize..ip[row + 1] as usize].to_vec(),
        };
        indices.extend(cols);
        indptr.push(indices.len() as i32);
    }
    let data = randn_vec::<T>(indices.len(), seed + 7);
    let nnz = indices.len();
    CsrMatrix::new(
        Array::from_vec(data, &[nnz], &Device::Cpu).unwrap(),
        Array::from_vec(indices, &[nnz], &Device::Cpu).unwrap(),
        Array::from_vec(indptr, &[m + 1], &Device::Cpu).unwrap(),
        (m, n),
    )
    .unwrap()
    .to_device(dev)
    .unwrap()
}

fn dense<T: Float>(a: &CsrMatrix<T>) -> Vec<T> {
    a.toarray().unwrap().to_vec().unwrap()
}

/// Per-row (axis 1) or per-column (axis 0) maxima / minima of a dense m x n matrix.
fn dense_minmax(d: &[f64], m: usize, n: usize, axis: isize, want_max: bool) -> Vec<f64> {
    let (outer, inner) = if axis == 1 { (m, n) } else { (n, m) };
    (0..outer)
        .map(|o| {
            let vals = (0..inner).map(|i| {
                if axis == 1 {
                    d[o * n + i]
                } else {
                    d[i * n + o]
                }
            });
            vals.fold(None, |acc: Option<f64>, x| {
                Some(match acc {
                    None => x,
                    Some(a) if a.is_nan() || x.is_nan() => f64::NAN,
                    Some(a) if want_max => a.max(x),
                    Some(a) => a.min(x),
                })
            })
            .unwrap()
        })
        .collect()
}

fn same(a: &[f64], b: &[f64], tol: f64, ctx: &str) {
    assert_eq!(a.len(), b.len(), "{ctx}");
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        let ok = (x.is_nan() && y.is_nan()) || (x - y).abs() <= tol * (1.0 + y.abs());
        assert!(ok, "{ctx}: element {k}: {x} against {y}");
    }
}

const SHAPES: [(usize, usize); 5] = [(1, 1), (4, 1), (7, 5), (33, 31), (64, 70)];

#[test]
fn max_min_whole_and_per_axis() {
    for (m, n) in SHAPES {
        for dev in devices() {
            for seed in [1u64, 2] {
                let a = mat::<f64>(m, n, seed + m as u64, &dev);
                let d = dense(&a);
                let ctx = format!("({m}, {n}) seed {seed} on {dev}");
                for want_max in [true, false] {
                    for axis in [0isize, 1, -1, -2] {
                        let got = if want_max {
                            a.max_axis(axis)
                        } else {
                            a.min_axis(axis)
                        }
                        .unwrap();
                        let ax = if axis < 0 { axis + 2 } else { axis };
                        let want = dense_minmax(&d, m, n, ax, want_max);
                        same(&got.to_vec().unwrap(), &want, 0.0, &ctx);
                    }
                    let all = if want_max { a.max() } else { a.min() }.unwrap();
                    let want =
                        dense_minmax(&dense_minmax(&d, m, n, 1, want_max), m, 1, 0, want_max);
                    same(&[all], &want, 0.0, &ctx);
                }
                // f32 agrees with f64's values cast
                let a32 = a.astype::<f32>().unwrap();
                let want: Vec<f64> = dense_minmax(
                    &dense(&a32).iter().map(|&v| v as f64).collect::<Vec<_>>(),
                    m,
                    n,
                    0,
                    true,
                );
                let got: Vec<f64> = a32
                    .max_axis(0)
                    .unwrap()
                    .to_vec()
                    .unwrap()
                    .iter()
                    .map(|&v| v as f64)
                    .collect();
                same(&got, &want, 0.0, &ctx);
            }
        }
    }
}

#[test]
fn max_min_nan_negative_and_bad_input() {
    for dev in devices() {
        // row 0 full and negative, row 1 has one negative entry (implicit zeros), row 2 a NaN
        let a = CsrMatrix::new(
            Array::from_vec(vec![-1.0f64, -2.0, -5.0, 3.0, f64::NAN], &[5], &Device::Cpu).unwrap(),
            Array::from_vec(vec![0i32, 1, 1, 0, 1], &[5], &Device::Cpu).unwrap(),
            Array::from_vec(vec![0i32, 2, 3, 5], &[4], &Device::Cpu).unwrap(),
            (3, 2),
        )
        .unwrap()
        .to_device(&dev)
        .unwrap();
        let row_max = a.max_axis(1).unwrap().to_vec().unwrap();
        assert_eq!(row_max[..2], [-1.0, 0.0], "{dev}");
        assert!(row_max[2].is_nan(), "{dev}");
        let row_min = a.min_axis(1).unwrap().to_vec().unwrap();
        assert_eq!(row_min[..2], [-2.0, -5.0], "{dev}");
        assert!(row_min[2].is_nan(), "{dev}");
        let col_max = a.max_axis(0).unwrap().to_vec().unwrap();
        assert_eq!(col_max[0], 3.0, "{dev}");
        assert!(col_max[1].is_nan(), "{dev}");
        assert!(a.max().unwrap().is_nan(), "{dev}");
        // a matrix of stored negatives with one implicit zero: max is 0
        let b = CsrMatrix::new(
            Array::from_vec(vec![-1.0f32, -2.0, -3.0], &[3], &Device::Cpu).unwrap(),
            Array::from_vec(vec![0i32, 1, 0], &[3], &Device::Cpu).unwrap(),
            Array::from_vec(vec![0i32, 2, 3], &[3], &Device::Cpu).unwrap(),
            (2, 2),
        )
        .unwrap()
        .to_device(&dev)
        .unwrap();
        assert_eq!(b.max().unwrap(), 0.0, "{dev}");
        assert_eq!(b.min().unwrap(), -3.0, "{dev}");
        // bad input: axis out of range, zero-size reductions
        assert!(
            matches!(a.max_axis(2), Err(Error::InvalidArgument { .. })),
            "{dev}"
        );
        let e = mat::<f64>(1, 1, 1, &dev).sum_duplicates().unwrap();
        assert_eq!(e.max().unwrap(), e.toarray().unwrap().to_vec().unwrap()[0]);
        let z = CsrMatrix::<f64>::new(
            Array::from_vec(vec![], &[0], &Device::Cpu).unwrap(),
            Array::from_vec(vec![], &[0], &Device::Cpu).unwrap(),
            Array::from_vec(vec![0i32; 4], &[4], &Device::Cpu).unwrap(),
            (3, 0),
        )
        .unwrap()
        .to_device(&dev)
        .unwrap();
        assert!(
            matches!(z.max(), Err(Error::InvalidArgument { .. })),
            "{dev}"
        );
        assert!(
            matches!(z.min_axis(1), Err(Error::InvalidArgument { .. })),
            "{dev}"
        );
        assert_eq!(z.max_axis(0).unwrap().len(), 0, "{dev}");
    }
}

#[test]
fn power_astype_sort_indices() {
    for dev in devices() {
        let a = mat::<f64>(9, 6, 3, &dev);
        let d = dense(&a);
        // power acts on the stored values: a duplicated entry is squared before it is summed
        // (x^2 by pow: CUDA's pow is within 2 ulp, not always the rounded x * x)
        let p = a.power(2.0).unwrap();
        let v: Vec<f64> = a.data().to_vec().unwrap();
        let sq = Array::from_vec(v.iter().map(|x| x * x).collect(), &[v.len()], &dev).unwrap();
        assert_allclose(p.data(), &sq, 1e-15, 0.0, &format!("power on {dev}"));
        assert!(
            matches!(a.power(0.0), Err(Error::NotImplemented { .. })),
            "{dev}"
        );
        // astype: f64 -> f32, complex -> real part
        let f = a.astype::<f32>().unwrap();
        let want: Vec<f32> = d.iter().map(|&x| x as f32).collect();
        assert_eq!(dense(&f), want, "{dev}");
        let c = a
            .astype::<c64>()
            .unwrap()
            .mul_scalar(c64::new(0.0, 1.0))
            .unwrap();
        assert!(
            dense(&c.astype::<f64>().unwrap()).iter().all(|&x| x == 0.0),
            "{dev}"
        );
        // sort_indices: the same matrix, each row's columns non-decreasing, duplicates kept
        let s = a.sort_indices().unwrap();
        assert_eq!(s.nnz(), a.nnz(), "{dev}");
        assert_eq!(dense(&s), d, "{dev}");
        let ip: Vec<i32> = s.indptr().to_vec().unwrap();
        let ix: Vec<i32> = s.indices().to_vec().unwrap();
        for r in 0..9 {
            let row = &ix[ip[r] as usize..ip[r + 1] as usize];
            assert!(
                row.windows(2).all(|w| w[0] <= w[1]),
                "row {r} on {dev}: {row:?}"
            );
        }
    }
}

/// The stored values of the matrix with duplicates summed, per row (axis 1) or per column.
fn stored_lines(a: &CsrMatrix<c64>, axis: isize) -> Vec<Vec<c64>> {
    let c = a.sum_duplicates().unwrap().to_device(&Device::Cpu).unwrap();
    let (m, n) = c.shape();
    let ip: Vec<i32> = c.indptr().to_vec().unwrap();
    let ix: Vec<i32> = c.indices().to_vec().unwrap();
    let v: Vec<c64> = c.data().to_vec().unwrap();
    let mut lines = vec![Vec::new(); if axis == 1 { m } else { n }];
    for r in 0..m {
        for k in ip[r] as usize..ip[r + 1] as usize {
            lines[if axis == 1 { r } else { ix[k] as usize }].push(v[k]);
        }
    }
    lines
}

#[test]
fn norms_against_dense_oracles() {
    for (m, n) in SHAPES {
        for dev in devices() {
            let a = mat::<c64>(m, n, 11 + m as u64, &dev);
            let ctx = format!("({m}, {n}) on {dev}");
            let d = dense(&a);
            let mag: Vec<f64> = d.iter().map(|z| z.norm()).collect();
            // matrix norms
            let fro = mag.iter().map(|x| x * x).sum::<f64>().sqrt();
            same(&[norm(&a, None).unwrap()], &[fro], 1e-13, &ctx);
            same(
                &[norm(&a, Some(NormOrd::Fro)).unwrap()],
                &[fro],
                1e-13,
                &ctx,
            );
            let rows: Vec<f64> = (0..m)
                .map(|r| mag[r * n..(r + 1) * n].iter().sum())
                .collect();
            let cols: Vec<f64> = (0..n)
                .map(|c| (0..m).map(|r| mag[r * n + c]).sum())
                .collect();
            let mx = |v: &[f64]| v.iter().cloned().fold(f64::MIN, f64::max);
            let mn = |v: &[f64]| v.iter().cloned().fold(f64::MAX, f64::min);
            for (p, want) in [
                (f64::INFINITY, mx(&rows)),
                (f64::NEG_INFINITY, mn(&rows)),
                (1.0, mx(&cols)),
                (-1.0, mn(&cols)),
            ] {
                let got = norm(&a, Some(NormOrd::P(p))).unwrap();
                same(&[got], &[want], 1e-13, &format!("{ctx} ord {p}"));
            }
            // vector norms along both axes, over the stored entries (SciPy: |x|^p of the data)
            for axis in [0isize, 1] {
                let lines = stored_lines(&a, axis);
                let dm = dense_minmax(&mag, m, n, axis, true);
                let dn = dense_minmax(&mag, m, n, axis, false);
                for p in [f64::INFINITY, f64::NEG_INFINITY, 0.0, 1.0, 2.0, 3.0, 0.5] {
                    let want: Vec<f64> = match p {
                        _ if p == f64::INFINITY => dm.clone(),
                        _ if p == f64::NEG_INFINITY => dn.clone(),
                        _ => lines
                            .iter()
                            .map(|l| {
                                if p == 0.0 {
                                    l.iter().filter(|z| z.norm() != 0.0).count() as f64
                                } else {
                                    l.iter()
                                        .map(|z| z.norm().powf(p))
                                        .sum::<f64>()
                                        .powf(1.0 / p)
                                }
                            })
                            .collect(),
                    };
                    let got = norm_axis(&a, Some(NormOrd::P(p)), axis)
                        .unwrap()
                        .to_vec()
                        .unwrap();
                    same(&got, &want, 1e-12, &format!("{ctx} axis {axis} ord {p}"));
                }
                let got = norm_axis(&a, None, axis - 2).unwrap().to_vec().unwrap();
                let want = norm_axis(&a, Some(NormOrd::P(2.0)), axis)
                    .unwrap()
                    .to_vec()
                    .unwrap();
                assert_eq!(got, want, "{ctx}");
            }
        }
    }
}

#[test]
fn norm_two_and_bad_orders() {
    for dev in devices() {
        // a rank-one matrix u v^T: the 2-norm is |u| |v|
        let (u, v) = (randn_vec::<f64>(12, 5), randn_vec::<f64>(9, 6));
        let d: Vec<f64> = u
            .iter()
            .flat_map(|a| v.iter().map(move |b| a * b))
            .collect();
        let a = CsrMatrix::from_dense(&Array::from_vec(d, &[12, 9], &dev).unwrap()).unwrap();
        let nu = u.iter().map(|x| x * x).sum::<f64>().sqrt();
        let nv = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        let got = norm(&a, Some(NormOrd::P(2.0))).unwrap();
        same(&[got], &[nu * nv], 1e-10, &format!("2-norm on {dev}"));
        assert!(matches!(
            norm(&a, Some(NormOrd::P(-2.0))),
            Err(Error::NotImplemented { .. })
        ));
        assert!(matches!(
            norm(&a, Some(NormOrd::P(3.0))),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            norm_axis(&a, Some(NormOrd::Fro), 0),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            norm_axis(&a, None, 2),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            norm_axis(&a, Some(NormOrd::P(f64::NAN)), 0),
            Err(Error::InvalidArgument { .. })
        ));
    }
}

#[test]
fn matrix_power_against_dense_products() {
    for dev in devices() {
        let n = 13;
        let a = mat::<f64>(n, n, 21, &dev).mul_scalar(0.5).unwrap();
        let d = dense(&a);
        let mut want: Vec<f64> = (0..n * n)
            .map(|k| if k % (n + 1) == 0 { 1.0 } else { 0.0 })
            .collect();
        for k in 0..6u32 {
            let got = dense(&matrix_power(&a, k).unwrap());
            let scale = want.iter().fold(1.0f64, |s, x| s.max(x.abs()));
            for (g, w) in got.iter().zip(&want) {
                assert!(
                    (g - w).abs() <= 1e-12 * scale,
                    "k = {k} on {dev}: {g} against {w}"
                );
            }
            want = (0..n * n)
                .map(|ij| {
                    (0..n)
                        .map(|l| want[(ij / n) * n + l] * d[l * n + ij % n])
                        .sum()
                })
                .collect();
        }
        let wide = mat::<f64>(3, 4, 1, &dev);
        assert!(
            matches!(matrix_power(&wide, 2), Err(Error::ShapeMismatch { .. })),
            "{dev}"
        );
        // 64-bit indices
        let a64 = a.with_index::<i64>().unwrap();
        assert_eq!(
            dense(&matrix_power(&a64, 3).unwrap().with_index::<i32>().unwrap()),
            dense(&matrix_power(&a, 3).unwrap())
        );
    }
}

#[test]
fn setdiag_against_dense() {
    for (m, n) in [(1usize, 1usize), (7, 5), (5, 9), (33, 31)] {
        for dev in devices() {
            let a = mat::<f64>(m, n, 31 + n as u64, &dev);
            let d = dense(&a);
            let ks: Vec<isize> = vec![0, 1, -1, n as isize - 4, 1 - m as isize, n as isize - 1];
            for k in ks
                .into_iter()
                .filter(|&k| k > -(m as isize) && k < n as isize)
            {
                let diag = if k >= 0 {
                    m.min(n - k as usize)
                } else {
                    (m - (-k) as usize).min(n)
                };
                for nv in [1usize, diag.saturating_sub(1).max(1), diag + 2] {
                    let mut vals = randn_vec::<f64>(nv, 40 + k.unsigned_abs() as u64);
                    vals[0] = 0.0;
                    if nv > 2 {
                        vals[2] = f64::NAN;
                    }
                    let v = Array::from_vec(vals.clone(), &[nv], &dev).unwrap();
                    let got = dense(&a.setdiag(&v, k).unwrap());
                    let mut want = d.clone();
                    for (i, &x) in vals.iter().enumerate().take(diag) {
                        let r = if k >= 0 { i } else { i + (-k) as usize };
                        want[r * n + (r as isize + k) as usize] = x;
                    }
                    let ctx = format!("({m}, {n}) k {k} {nv} values on {dev}");
                    same(&got, &want, 0.0, &ctx);
                }
            }
            let v = Array::from_vec(vec![1.0], &[1], &dev).unwrap();
            assert!(matches!(
                a.setdiag(&v, n as isize),
                Err(Error::InvalidArgument { .. })
            ));
            assert!(matches!(
                a.setdiag(&v, -(m as isize)),
                Err(Error::InvalidArgument { .. })
            ));
            let v2 = Array::from_vec(vec![1.0, 2.0], &[1, 2], &dev).unwrap();
            assert!(matches!(
                a.setdiag(&v2, 0),
                Err(Error::ShapeMismatch { .. })
            ));
        }
    }
}
