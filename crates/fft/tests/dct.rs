//! The real-to-real transforms (DCT/DST types 1-4) on the CPU against naive O(n²) definitions,
//! identities, hand-computed SciPy values, and the argument checks.

use cusci_core::testing::randn_vec;
use cusci_core::{Array, Device, Error, Result};
use cusci_fft::*;
use std::f64::consts::{PI, SQRT_2};

const TYPES: [DctType; 4] = [
    DctType::Type1,
    DctType::Type2,
    DctType::Type3,
    DctType::Type4,
];
const NORMS: [Norm; 3] = [Norm::Backward, Norm::Ortho, Norm::Forward];
const ORTHS: [Option<bool>; 3] = [None, Some(false), Some(true)];

fn cpu() -> Device {
    Device::cpu()
}

fn arr<T: cusci_core::Element>(v: Vec<T>, shape: &[usize]) -> Array<T> {
    Array::from_vec(v, shape, &cpu()).unwrap()
}

fn min_len(kind: DctType, cosine: bool) -> usize {
    if cosine && kind == DctType::Type1 {
        2
    } else {
        1
    }
}

/// The unnormalised transform of SciPy's documentation, summed directly.
fn raw(x: &[f64], kind: DctType, cosine: bool) -> Vec<f64> {
    let n = x.len();
    let nf = n as f64;
    (0..n)
        .map(|k| {
            let kf = k as f64;
            let mut acc = 0.0;
            for (j, &v) in x.iter().enumerate() {
                let jf = j as f64;
                acc += match (kind, cosine) {
                    (DctType::Type1, true) => {
                        if j == 0 {
                            v
                        } else if j == n - 1 {
                            if k % 2 == 0 {
                                v
                            } else {
                                -v
                            }
                        } else {
                            2.0 * v * (PI * kf * jf / (nf - 1.0)).cos()
                        }
                    }
                    (DctType::Type2, true) => {
                        2.0 * v * (PI * kf * (2.0 * jf + 1.0) / (2.0 * nf)).cos()
                    }
                    (DctType::Type3, true) => {
                        if j == 0 {
                            v
                        } else {
                            2.0 * v * (PI * jf * (2.0 * kf + 1.0) / (2.0 * nf)).cos()
                        }
                    }
                    (DctType::Type4, true) => {
                        2.0 * v * (PI * (2.0 * kf + 1.0) * (2.0 * jf + 1.0) / (4.0 * nf)).cos()
                    }
                    (DctType::Type1, false) => {
                        2.0 * v * (PI * (kf + 1.0) * (jf + 1.0) / (nf + 1.0)).sin()
                    }
                    (DctType::Type2, false) => {
                        2.0 * v * (PI * (kf + 1.0) * (2.0 * jf + 1.0) / (2.0 * nf)).sin()
                    }
                    (DctType::Type3, false) => {
                        if j == n - 1 {
                            if k % 2 == 0 {
                                v
                            } else {
                                -v
                            }
                        } else {
                            2.0 * v * (PI * (2.0 * kf + 1.0) * (jf + 1.0) / (2.0 * nf)).sin()
                        }
                    }
                    (DctType::Type4, false) => {
                        2.0 * v * (PI * (2.0 * kf + 1.0) * (2.0 * jf + 1.0) / (4.0 * nf)).sin()
                    }
                };
            }
            acc
        })
        .collect()
}

/// SciPy's forward transform: the raw sum with the orthogonalisation of the special terms and
/// the normalisation (by `norm_kind`'s length `M`, in direction `forward`).
fn naive_run(
    x: &[f64],
    kind: DctType,
    cosine: bool,
    norm: Norm,
    orth: bool,
    norm_kind: DctType,
    forward: bool,
) -> Vec<f64> {
    let n = x.len();
    let mut x = x.to_vec();
    if orth {
        match (kind, cosine) {
            (DctType::Type1, true) => {
                x[0] *= SQRT_2;
                x[n - 1] *= SQRT_2;
            }
            (DctType::Type3, true) => x[0] *= SQRT_2,
            (DctType::Type3, false) => x[n - 1] *= SQRT_2,
            _ => {}
        }
    }
    let mut y = raw(&x, kind, cosine);
    if orth {
        match (kind, cosine) {
            (DctType::Type1, true) => {
                y[0] /= SQRT_2;
                y[n - 1] /= SQRT_2;
            }
            (DctType::Type2, true) => y[0] /= SQRT_2,
            (DctType::Type2, false) => y[n - 1] /= SQRT_2,
            _ => {}
        }
    }
    let m = match (norm_kind, cosine) {
        (DctType::Type1, true) => 2 * (n - 1),
        (DctType::Type1, false) => 2 * (n + 1),
        _ => 2 * n,
    };
    let f = norm.factor(m, forward);
    y.iter().map(|v| v * f).collect()
}

fn inverse_of(kind: DctType) -> DctType {
    match kind {
        DctType::Type2 => DctType::Type3,
        DctType::Type3 => DctType::Type2,
        t => t,
    }
}

fn naive(x: &[f64], kind: DctType, cosine: bool, norm: Norm, orth: Option<bool>) -> Vec<f64> {
    let o = orth.unwrap_or(norm == Norm::Ortho);
    naive_run(x, kind, cosine, norm, o, kind, true)
}

fn naive_inv(x: &[f64], kind: DctType, cosine: bool, norm: Norm, orth: Option<bool>) -> Vec<f64> {
    let o = orth.unwrap_or(norm == Norm::Ortho);
    naive_run(x, inverse_of(kind), cosine, norm, o, kind, false)
}

type Tf = fn(&Array<f64>, &DctOptions) -> Result<Array<f64>>;

fn fwd(cosine: bool) -> Tf {
    if cosine {
        dct::<f64>
    } else {
        dst::<f64>
    }
}

fn inv(cosine: bool) -> Tf {
    if cosine {
        idct::<f64>
    } else {
        idst::<f64>
    }
}

fn dopts(kind: DctType, norm: Norm, orth: Option<bool>) -> DctOptions {
    DctOptions {
        kind,
        norm,
        orthogonalize: orth,
        ..Default::default()
    }
}

fn assert_close(a: &[f64], b: &[f64], tol: f64, ctx: &str) {
    assert_eq!(a.len(), b.len(), "{ctx}: lengths");
    let scale = b.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    let e = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max);
    assert!(e <= tol * scale, "{ctx}: max error {e:e} (tol {tol:e})");
}

fn lengths() -> Vec<usize> {
    (1..=33).chain([64, 127, 256]).collect()
}

#[test]
fn against_naive_definitions() {
    for cosine in [true, false] {
        for kind in TYPES {
            for n in lengths()
                .into_iter()
                .filter(|&n| n >= min_len(kind, cosine))
            {
                let x = randn_vec::<f64>(n, 1000 + n as u64);
                let xa = arr(x.clone(), &[n]);
                for norm in NORMS {
                    for orth in ORTHS {
                        let o = dopts(kind, norm, orth);
                        let ctx = format!("cos={cosine} {kind:?} n={n} {norm:?} orth={orth:?}");
                        let y = fwd(cosine)(&xa, &o).unwrap().to_vec().unwrap();
                        assert_close(&y, &naive(&x, kind, cosine, norm, orth), 1e-12, &ctx);
                        let z = inv(cosine)(&xa, &o).unwrap().to_vec().unwrap();
                        let ctx = format!("inverse {ctx}");
                        assert_close(&z, &naive_inv(&x, kind, cosine, norm, orth), 1e-12, &ctx);
                    }
                }
            }
        }
    }
}

#[test]
fn inverse_identities() {
    for cosine in [true, false] {
        for kind in TYPES {
            for n in [1usize, 2, 3, 5, 8, 17, 100, 257] {
                if n < min_len(kind, cosine) {
                    continue;
                }
                let x = randn_vec::<f64>(3 * n, 7 + n as u64);
                let xa = arr(x.clone(), &[3, n]);
                for norm in NORMS {
                    for orth in ORTHS {
                        let o = dopts(kind, norm, orth);
                        let y = fwd(cosine)(&xa, &o).unwrap();
                        let back = inv(cosine)(&y, &o).unwrap().to_vec().unwrap();
                        let ctx = format!("cos={cosine} {kind:?} n={n} {norm:?} orth={orth:?}");
                        assert_close(&back, &x, 1e-12, &ctx);
                    }
                }
            }
        }
    }
}

#[test]
fn orthonormal_with_ortho() {
    for cosine in [true, false] {
        for kind in TYPES {
            for n in (1..=17usize).chain([64]) {
                if n < min_len(kind, cosine) {
                    continue;
                }
                // the rows of the transformed identity are the matrix's columns
                let mut eye = vec![0.0; n * n];
                for i in 0..n {
                    eye[i * n + i] = 1.0;
                }
                let o = dopts(kind, Norm::Ortho, None);
                let m = fwd(cosine)(&arr(eye, &[n, n]), &o)
                    .unwrap()
                    .to_vec()
                    .unwrap();
                for i in 0..n {
                    for j in 0..n {
                        let d: f64 = (0..n).map(|k| m[i * n + k] * m[j * n + k]).sum();
                        let want = if i == j { 1.0 } else { 0.0 };
                        assert!(
                            (d - want).abs() < 1e-12,
                            "cos={cosine} {kind:?} n={n}: <{i},{j}> = {d}"
                        );
                    }
                }
                // and norms are kept
                let x = randn_vec::<f64>(n, 3);
                let y = fwd(cosine)(&arr(x.clone(), &[n]), &o)
                    .unwrap()
                    .to_vec()
                    .unwrap();
                let nx: f64 = x.iter().map(|v| v * v).sum();
                let ny: f64 = y.iter().map(|v| v * v).sum();
                assert!((nx.sqrt() - ny.sqrt()).abs() < 1e-12 * nx.sqrt().max(1.0));
            }
        }
    }
}

#[test]
fn orthogonalize_off_is_not_orthogonal() {
    // DCT-II ortho without orthogonalize: y[0] is √2 larger than with it
    let x = arr(vec![1.0f64, 2.0, 3.0, 4.0], &[4]);
    let a = dct(&x, &dopts(DctType::Type2, Norm::Ortho, Some(true)))
        .unwrap()
        .to_vec()
        .unwrap();
    let b = dct(&x, &dopts(DctType::Type2, Norm::Ortho, Some(false)))
        .unwrap()
        .to_vec()
        .unwrap();
    assert!((b[0] - a[0] * SQRT_2).abs() < 1e-12);
    assert!((a[1] - b[1]).abs() < 1e-12);
    // orthogonalize with the backward norm still scales the special term
    let c = dct(&x, &dopts(DctType::Type2, Norm::Backward, Some(true)))
        .unwrap()
        .to_vec()
        .unwrap();
    assert!((c[0] - 20.0 / SQRT_2).abs() < 1e-12 && (c[1] + 6.308644059797899).abs() < 1e-12);
}

#[test]
fn known_scipy_values() {
    let x = arr(vec![1.0f64, 2.0, 3.0, 4.0], &[4]);
    let y = dct(&x, &DctOptions::default()).unwrap().to_vec().unwrap();
    assert_close(
        &y,
        &[20.0, -6.308644059797899, 0.0, -0.4483415291679655],
        1e-13,
        "dct 2",
    );
    let y = dct(&x, &dopts(DctType::Type2, Norm::Ortho, None))
        .unwrap()
        .to_vec()
        .unwrap();
    // 20/(√8·√2) = 5, -6.3086/√8
    assert_close(
        &y,
        &[5.0, -2.230442497387663, 0.0, -0.15851266778110726],
        1e-13,
        "dct 2 ortho",
    );
    let x3 = arr(vec![1.0f64, 2.0, 3.0], &[3]);
    // DCT-I: x0 + (-1)^k x2 + 2 x1 cos(πk/2)
    let y = dct(&x3, &dopts(DctType::Type1, Norm::Backward, None))
        .unwrap()
        .to_vec()
        .unwrap();
    assert_close(&y, &[8.0, -2.0, 0.0], 1e-13, "dct 1");
    // DST-I: 2 Σ x[j] sin(π(k+1)(j+1)/4)
    let y = dst(&x3, &dopts(DctType::Type1, Norm::Backward, None))
        .unwrap()
        .to_vec()
        .unwrap();
    let r = 2.0 * (0.5f64.sqrt() * 4.0 + 2.0);
    let r2 = 2.0 * (0.5f64.sqrt() * 4.0 - 2.0);
    assert_close(&y, &[r, -4.0, r2], 1e-13, "dst 1");
    // DCT-III of [1, 0, 0]: x0 everywhere; DST-III of [0, 0, 1]: (-1)^k
    let y = dct(
        &arr(vec![1.0f64, 0.0, 0.0], &[3]),
        &dopts(DctType::Type3, Norm::Backward, None),
    )
    .unwrap()
    .to_vec()
    .unwrap();
    assert_close(&y, &[1.0, 1.0, 1.0], 1e-14, "dct 3");
    let y = dst(
        &arr(vec![0.0f64, 0.0, 1.0], &[3]),
        &dopts(DctType::Type3, Norm::Backward, None),
    )
    .unwrap()
    .to_vec()
    .unwrap();
    assert_close(&y, &[1.0, -1.0, 1.0], 1e-14, "dst 3");
}

#[test]
fn f32_matches_f64() {
    for cosine in [true, false] {
        for kind in TYPES {
            for norm in NORMS {
                let n = 50;
                let x = randn_vec::<f64>(2 * n, 11);
                let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
                let o = dopts(kind, norm, None);
                let (a, b) = if cosine {
                    (
                        dct(&arr(x.clone(), &[2, n]), &o).unwrap(),
                        dct(&arr(x32, &[2, n]), &o).unwrap(),
                    )
                } else {
                    (
                        dst(&arr(x.clone(), &[2, n]), &o).unwrap(),
                        dst(&arr(x32, &[2, n]), &o).unwrap(),
                    )
                };
                let a = a.to_vec().unwrap();
                let b: Vec<f64> = b.to_vec().unwrap().iter().map(|&v| v as f64).collect();
                assert_close(&b, &a, 1e-5, &format!("f32 cos={cosine} {kind:?} {norm:?}"));
            }
        }
    }
}

/// The lane of a C-order array of `shape` through `(pre, post)` index (all `axis` entries).
fn lane(x: &[f64], shape: &[usize], axis: usize, pre: usize, post: usize) -> Vec<f64> {
    let len = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    (0..len)
        .map(|k| x[pre * len * inner + k * inner + post])
        .collect()
}

#[test]
fn axis_and_n() {
    let shape = [3usize, 5, 4];
    let x = randn_vec::<f64>(60, 21);
    let xa = arr(x.clone(), &shape);
    for cosine in [true, false] {
        for kind in TYPES {
            for axis in [0isize, 1, 2, -1, -2, -3] {
                let ax = axis.rem_euclid(3) as usize;
                for n in [None, Some(2usize), Some(7)] {
                    let o = DctOptions {
                        kind,
                        n,
                        axis,
                        norm: Norm::Ortho,
                        orthogonalize: None,
                    };
                    let y = fwd(cosine)(&xa, &o).unwrap();
                    let len = n.unwrap_or(shape[ax]);
                    let mut oshape = shape;
                    oshape[ax] = len;
                    assert_eq!(y.shape(), &oshape);
                    let y = y.to_vec().unwrap();
                    let outer: usize = shape[..ax].iter().product();
                    let inner: usize = shape[ax + 1..].iter().product();
                    for p in 0..outer {
                        for q in 0..inner {
                            let mut l = lane(&x, &shape, ax, p, q);
                            l.resize(len, 0.0);
                            let want = naive(&l, kind, cosine, Norm::Ortho, None);
                            let got = lane(&y, &oshape, ax, p, q);
                            let ctx = format!("cos={cosine} {kind:?} axis={axis} n={n:?}");
                            assert_close(&got, &want, 1e-12, &ctx);
                        }
                    }
                }
            }
        }
    }
    // a non-contiguous (transposed) input gives the same as its contiguous copy
    let t = xa.permute(&[2, 0, 1]).unwrap();
    let o = DctOptions {
        axis: 1,
        ..Default::default()
    };
    let a = dct(&t, &o).unwrap().to_vec().unwrap();
    let b = dct(&t.contiguous().unwrap(), &o).unwrap().to_vec().unwrap();
    assert_close(&a, &b, 1e-15, "transposed");
}

type Ndf = fn(&Array<f64>, &DctnOptions) -> Result<Array<f64>>;

/// (s, axes, the equivalent successive 1-D steps as (axis, n)).
type NdCase = (Option<Vec<usize>>, Option<Vec<isize>>, Vec<(isize, usize)>);

#[test]
fn nd_matches_successive_1d() {
    let shape = [4usize, 3, 6];
    let x = arr(randn_vec::<f64>(72, 5), &shape);
    let nds: [(Ndf, Tf); 4] = [
        (dctn::<f64>, dct::<f64>),
        (idctn::<f64>, idct::<f64>),
        (dstn::<f64>, dst::<f64>),
        (idstn::<f64>, idst::<f64>),
    ];
    for (nd, one) in nds {
        for kind in TYPES {
            for norm in NORMS {
                let cases: Vec<NdCase> = vec![
                    (None, None, vec![(0, 4), (1, 3), (2, 6)]),
                    (None, Some(vec![-1, 0]), vec![(-1, 6), (0, 4)]),
                    (Some(vec![5, 2]), None, vec![(1, 5), (2, 2)]),
                    (Some(vec![3, 8]), Some(vec![2, 0]), vec![(2, 3), (0, 8)]),
                ];
                for (s, axes, steps) in cases {
                    let o = DctnOptions {
                        kind,
                        s: s.clone(),
                        axes: axes.clone(),
                        norm,
                        orthogonalize: None,
                    };
                    let got = nd(&x, &o).unwrap();
                    let mut want = x.clone();
                    for &(axis, n) in &steps {
                        let o1 = DctOptions {
                            kind,
                            n: Some(n),
                            axis,
                            norm,
                            orthogonalize: None,
                        };
                        want = one(&want, &o1).unwrap();
                    }
                    assert_eq!(got.shape(), want.shape());
                    let ctx = format!("{kind:?} {norm:?} s={s:?} axes={axes:?}");
                    assert_close(&got.to_vec().unwrap(), &want.to_vec().unwrap(), 1e-12, &ctx);
                }
            }
        }
    }
    // inverse identity in n-D, and empty axes return the input
    let o = DctnOptions {
        kind: DctType::Type1,
        norm: Norm::Ortho,
        ..Default::default()
    };
    let back = idctn(&dctn(&x, &o).unwrap(), &o).unwrap();
    assert_close(
        &back.to_vec().unwrap(),
        &x.to_vec().unwrap(),
        1e-12,
        "idctn(dctn)",
    );
    let e = DctnOptions {
        axes: Some(vec![]),
        ..Default::default()
    };
    assert_eq!(dstn(&x, &e).unwrap().to_vec().unwrap(), x.to_vec().unwrap());
}

#[test]
fn error_cases() {
    let x = arr(vec![1.0f64, 2.0, 3.0], &[3]);
    let is_arg = |r: Result<Array<f64>>| matches!(r, Err(Error::InvalidArgument { .. }));
    let is_shape = |r: Result<Array<f64>>| matches!(r, Err(Error::ShapeMismatch { .. }));
    for f in [dct::<f64>, idct::<f64>, dst::<f64>, idst::<f64>] {
        let n0 = DctOptions {
            n: Some(0),
            ..Default::default()
        };
        assert!(is_arg(f(&x, &n0)));
        let bad_axis = DctOptions {
            axis: 1,
            ..Default::default()
        };
        assert!(is_arg(f(&x, &bad_axis)));
        let bad_axis = DctOptions {
            axis: -2,
            ..Default::default()
        };
        assert!(is_arg(f(&x, &bad_axis)));
        let scalar = arr(vec![1.0f64], &[]);
        assert!(is_arg(f(&scalar, &DctOptions::default())));
        let empty = arr(Vec::<f64>::new(), &[0]);
        assert!(is_arg(f(&empty, &DctOptions::default())));
    }
    // DCT-I needs 2 points, DST-I one
    let one = arr(vec![2.0f64], &[1]);
    let t1 = dopts(DctType::Type1, Norm::Backward, None);
    let r = dct(&one, &t1);
    assert!(is_arg(dct(&one, &t1)));
    assert!(format!("{}", r.unwrap_err()).contains("invalid number of data points (1)"));
    assert!(is_arg(idct(&one, &t1)));
    let cut = DctOptions {
        n: Some(1),
        ..t1.clone()
    };
    assert!(is_arg(dct(&x, &cut)));
    assert_eq!(dst(&one, &t1).unwrap().to_vec().unwrap(), vec![4.0]);
    // n-D
    let m = arr(vec![0.0f64; 6], &[2, 3]);
    let rep = DctnOptions {
        axes: Some(vec![0, -2]),
        ..Default::default()
    };
    assert!(is_arg(dctn(&m, &rep)));
    let out = DctnOptions {
        axes: Some(vec![2]),
        ..Default::default()
    };
    assert!(is_arg(dstn(&m, &out)));
    let mism = DctnOptions {
        s: Some(vec![2]),
        axes: Some(vec![0, 1]),
        ..Default::default()
    };
    assert!(is_shape(idctn(&m, &mism)));
    let long = DctnOptions {
        s: Some(vec![2, 2, 2]),
        ..Default::default()
    };
    assert!(is_shape(idstn(&m, &long)));
    let zero = DctnOptions {
        s: Some(vec![0, 2]),
        ..Default::default()
    };
    assert!(is_arg(dctn(&m, &zero)));
    let col = arr(vec![1.0f64, 2.0], &[2, 1]);
    let t1n = DctnOptions {
        kind: DctType::Type1,
        ..Default::default()
    };
    assert!(is_arg(dctn(&col, &t1n)));
    assert!(dstn(&col, &t1n).is_ok());
}
