//! Bad and extreme inputs for cusci-linalg (issue 33): a table of cases, each asserting a typed
//! error variant or SciPy's value (scipy.linalg 1.17.1 / NumPy 2.4) where SciPy accepts the
//! input, run on every device in a child process (harness: `cusci_core::testing::bad_input`).
//! NaN and infinity follow SciPy's `check_finite=True` (an `InvalidArgument` from every function
//! whose SciPy counterpart checks); `without_finite_check` is `check_finite=False`. Huge sizes
//! come from broadcast views of a few bytes: nothing of their size may be allocated.

use cusci_core::testing::bad_input::{self as bi, f, fv, s1, shp, Kind::*, Table, V};
use cusci_core::{c64, Array, Device, Result};
use cusci_linalg::*;

const NAN: f64 = f64::NAN;
const INF: f64 = f64::INFINITY;

fn m(v: &[f64], r: usize, c: usize, d: &Device) -> Result<Array<f64>> {
    Array::from_slice(v, &[r, c], d)
}
fn vec1(v: &[f64], d: &Device) -> Result<Array<f64>> {
    Array::from_slice(v, &[v.len()], d)
}
/// SciPy's example: [[1, NaN], [0, 1]].
fn nanm(d: &Device) -> Result<Array<f64>> {
    m(&[1.0, NAN, 0.0, 1.0], 2, 2, d)
}
fn infm(d: &Device) -> Result<Array<f64>> {
    m(&[2.0, 1.0, 1.0, INF], 2, 2, d)
}
fn spd(d: &Device) -> Result<Array<f64>> {
    m(&[4.0, 2.0, 2.0, 5.0], 2, 2, d)
}
fn sing(d: &Device) -> Result<Array<f64>> {
    m(&[1.0, 2.0, 2.0, 4.0], 2, 2, d)
}
fn rect(d: &Device) -> Result<Array<f64>> {
    m(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 2, 3, d)
}
fn empty(d: &Device) -> Result<Array<f64>> {
    Array::<f64>::zeros(&[0, 0], d)
}
/// A (2^20, 2^20) f64 view of one element: 8 TiB if materialised.
fn huge(d: &Device) -> Result<Array<f64>> {
    Array::<f64>::ones(&[1, 1], d)?.broadcast_to(&[1 << 20, 1 << 20])
}
/// A (2^33, 2^33) view: the element count overflows nothing but the bytes pass 2^64.
fn huger(d: &Device) -> Result<Array<f64>> {
    Array::<f64>::ones(&[1, 1], d)?.broadcast_to(&[1 << 33, 1 << 33])
}
fn sh<T: cusci_core::Element>(a: &Array<T>) -> V {
    bi::shape_of(a)
}
fn n(x: usize) -> V {
    V::N(x as u64)
}

fn table(_dev: &Device) -> Table {
    let mut t = Table::new();

    // ---------- NaN / infinity: SciPy's check_finite ----------
    t.err("det NaN", Arg, |d| fv(det(&nanm(d)?)?));
    t.err("det inf", Arg, |d| fv(det(&infm(d)?)?));
    t.err("det complex NaN imag", Arg, |d| {
        let a = Array::from_vec(
            vec![
                c64::new(1.0, NAN),
                c64::new(0.0, 0.0),
                c64::new(0.0, 0.0),
                c64::new(1.0, 0.0),
            ],
            &[2, 2],
            d,
        )?;
        fv(det(&a)?)
    });
    t.err("det f32 NaN", Arg, |d| {
        fv(det(&Array::from_vec(
            vec![1.0f32, f32::NAN, 0.0, 1.0],
            &[2, 2],
            d,
        )?)?)
    });
    t.err("det NaN in a stack", Arg, |d| {
        let a = Array::from_vec(vec![1.0, 0.0, 0.0, 1.0, 1.0, NAN, 0.0, 1.0], &[2, 2, 2], d)?;
        fv(det(&a)?)
    });
    t.err("inv NaN", Arg, |d| fv(inv(&nanm(d)?)?));
    t.err("inv inf", Arg, |d| fv(inv(&infm(d)?)?));
    t.err("solve NaN in a", Arg, |d| {
        fv(solve(&nanm(d)?, &vec1(&[1.0, 1.0], d)?)?)
    });
    t.err("solve NaN in b", Arg, |d| {
        fv(solve(&spd(d)?, &vec1(&[1.0, NAN], d)?)?)
    });
    t.err("solve inf in b", Arg, |d| {
        fv(solve(&spd(d)?, &vec1(&[INF, 1.0], d)?)?)
    });
    t.err("qr NaN", Arg, |d| fv(qr(&nanm(d)?, QrMode::Reduced)?.r));
    t.err("qr inf mode R", Arg, |d| fv(qr(&infm(d)?, QrMode::R)?.r));
    t.err("qr_raw NaN", Arg, |d| fv(qr_raw(&nanm(d)?)?.r));
    t.err("svd NaN", Arg, |d| {
        fv(svd(&nanm(d)?, SvdOptions::default())?.s)
    });
    t.err("svd inf values only", Arg, |d| {
        let o = SvdOptions {
            full_matrices: false,
            compute_uv: false,
        };
        fv(svd(&infm(d)?, o)?.s)
    });
    t.err("svdvals NaN", Arg, |d| fv(svdvals(&nanm(d)?)?));
    t.err("eigh NaN", Arg, |d| fv(eigh(&nanm(d)?, true)?.0));
    t.err("eigh inf upper", Arg, |d| fv(eigh(&infm(d)?, false)?.0));
    t.err("eigvalsh NaN", Arg, |d| fv(eigvalsh(&nanm(d)?, true)?));
    t.err("eig NaN", Arg, |d| fv(eig(&nanm(d)?)?.0));
    t.err("eigvals inf", Arg, |d| fv(eigvals(&infm(d)?)?));
    t.err("cholesky NaN", Arg, |d| {
        fv(cholesky(&m(&[4.0, 0.0, NAN, 5.0], 2, 2, d)?)?)
    });
    t.err("cho_factor inf", Arg, |d| {
        fv(cho_factor(&infm(d)?, true)?.factor())
    });
    t.err("cho_solve NaN in b", Arg, |d| {
        fv(cho_factor(&spd(d)?, true)?.solve(&vec1(&[NAN, 1.0], d)?)?)
    });
    t.err("lu NaN", Arg, |d| fv(lu(&nanm(d)?)?.1));
    t.err("lu_factor NaN", Arg, |d| {
        fv(lu_factor(&nanm(d)?, LuFactorOptions::default())?.lu.clone())
    });
    t.err("lu_solve NaN in b", Arg, |d| {
        let f = lu_factor(&spd(d)?, LuFactorOptions::default())?;
        fv(lu_solve(&f, &vec1(&[1.0, NAN], d)?, 0)?)
    });
    t.err("lstsq NaN in a", Arg, |d| {
        fv(lstsq(&nanm(d)?, &vec1(&[1.0, 1.0], d)?, None)?.x)
    });
    t.err("lstsq inf in b", Arg, |d| {
        fv(lstsq(&spd(d)?, &vec1(&[1.0, INF], d)?, None)?.x)
    });
    t.err("pinv NaN", Arg, |d| fv(pinv(&nanm(d)?, None)?));
    t.err("pinvh NaN", Arg, |d| {
        fv(pinvh(&nanm(d)?, PinvhOptions::default())?)
    });
    t.err("polar NaN", Arg, |d| {
        fv(polar(&nanm(d)?, PolarSide::Right)?.0)
    });
    t.err("null_space NaN", Arg, |d| fv(null_space(&nanm(d)?, None)?));
    t.err("orth inf", Arg, |d| fv(orth(&infm(d)?, None)?));
    t.err("subspace_angles NaN", Arg, |d| {
        fv(subspace_angles(&nanm(d)?, &spd(d)?)?)
    });
    t.err("orthogonal_procrustes NaN", Arg, |d| {
        fv(orthogonal_procrustes(&nanm(d)?, &spd(d)?)?.0)
    });
    t.err("solve_triangular NaN in b", Arg, |d| {
        let o = TriangularOptions {
            lower: true,
            ..Default::default()
        };
        fv(solve_triangular(&spd(d)?, &vec1(&[NAN, 1.0], d)?, o)?)
    });
    // check_finite=False
    t.val("det inf without the check (SciPy: inf)", s1(INF), |d| {
        fv(without_finite_check(|| det(&m(&[INF], 1, 1, d)?))?)
    });
    t.val(
        "inv NaN 1x1 without the check (SciPy: NaN)",
        f(&[1, 1], &[NAN]),
        |d| fv(without_finite_check(|| inv(&m(&[NAN], 1, 1, d)?))?),
    );
    t.err("the check is back after without_finite_check", Arg, |d| {
        let _ = without_finite_check(|| det(&nanm(d)?));
        fv(det(&nanm(d)?)?)
    });
    t.val(
        "lu_factor check_finite=false keeps NaN",
        f(&[2], &[1.0, 1.0]),
        |d| {
            let f = lu_factor(
                &m(&[1.0, 0.0, 0.0, 1.0], 2, 2, d)?,
                LuFactorOptions {
                    check_finite: false,
                },
            )?;
            fv(f.solve(&vec1(&[1.0, 1.0], d)?, 0)?)
        },
    );
    // SciPy's expm does not check: NaN where the input has one
    t.val("expm NaN (SciPy: no check)", s1(NAN), |d| {
        let e = expm(&m(&[NAN], 1, 1, d)?)?;
        fv(e.reshape(&[])?)
    });

    // ---------- not square, wrong rank ----------
    t.err("det not square", Arg, |d| fv(det(&rect(d)?)?));
    t.err("det 1-D", Arg, |d| fv(det(&vec1(&[1.0, 2.0], d)?)?));
    t.err("det 0-d", Arg, |d| {
        fv(det(&Array::<f64>::full(&[], 2.0, d)?)?)
    });
    t.err("inv not square", Arg, |d| fv(inv(&rect(d)?)?));
    t.err("solve not square", Arg, |d| {
        fv(solve(&rect(d)?, &vec1(&[1.0, 1.0], d)?)?)
    });
    t.err("cholesky not square", Arg, |d| fv(cholesky(&rect(d)?)?));
    t.err("eigh not square", Arg, |d| fv(eigh(&rect(d)?, true)?.0));
    t.err("eig not square", Arg, |d| fv(eig(&rect(d)?)?.0));
    t.err("expm not square", Arg, |d| fv(expm(&rect(d)?)?));
    t.err("matrix_power not square", Arg, |d| {
        fv(matrix_power(&rect(d)?, 2)?)
    });
    t.err("svd 1-D", Arg, |d| {
        fv(svd(&vec1(&[1.0], d)?, SvdOptions::default())?.s)
    });
    t.err("qr 1-D", Arg, |d| {
        fv(qr(&vec1(&[1.0], d)?, QrMode::Reduced)?.r)
    });
    t.err("lstsq 3-D a", Arg, |d| {
        fv(lstsq(
            &Array::<f64>::ones(&[2, 2, 2], d)?,
            &vec1(&[1.0, 1.0], d)?,
            None,
        )?
        .x)
    });
    t.err("slogdet not square", Arg, |d| fv(slogdet(&rect(d)?)?.0));
    t.err("trace 1-D", Arg, |d| fv(trace(&vec1(&[1.0, 2.0], d)?, 0)?));
    t.err("norm 3-D with ord P(3)", Arg, |d| {
        fv(norm(&Array::<f64>::ones(&[2, 2], d)?, NormOrd::P(3.0))?)
    });
    t.err("tensorinv ind 0", Arg, |d| fv(tensorinv(&spd(d)?, 0)?));
    t.err("einsum bad subscripts", Arg, |d| {
        fv(einsum("ij,jk->q", &[&spd(d)?, &spd(d)?])?)
    });
    t.err("einsum operand count", Arg, |d| {
        fv(einsum("ij,jk->ik", &[&spd(d)?])?)
    });
    t.err("cross of length 4", Arg, |d| {
        fv(cross(&vec1(&[1.0; 4], d)?, &vec1(&[1.0; 4], d)?, -1)?)
    });

    // ---------- empty ----------
    t.val("det (0, 0) is 1", s1(1.0), |d| fv(det(&empty(d)?)?));
    t.val("inv (0, 0)", shp(&[0, 0]), |d| Ok(sh(&inv(&empty(d)?)?)));
    t.val("solve (0, 0)", shp(&[0]), |d| {
        Ok(sh(&solve(&empty(d)?, &vec1(&[], d)?)?))
    });
    t.val("cholesky (0, 0)", shp(&[0, 0]), |d| {
        Ok(sh(&cholesky(&empty(d)?)?))
    });
    t.val("eigh (0, 0)", shp(&[0]), |d| {
        Ok(sh(&eigh(&empty(d)?, true)?.0))
    });
    t.val("svd (0, 3) s", shp(&[0]), |d| {
        let a = Array::<f64>::zeros(&[0, 3], d)?;
        Ok(sh(&svd(&a, SvdOptions::default())?.s))
    });
    t.val("svd (0, 3) vh is 3x3", shp(&[3, 3]), |d| {
        let a = Array::<f64>::zeros(&[0, 3], d)?;
        Ok(sh(&svd(&a, SvdOptions::default())?.vh.ok_or_else(
            || cusci_core::error::make::arg("t", "no vh"),
        )?))
    });
    t.val("pinv (0, 3) is (3, 0)", shp(&[3, 0]), |d| {
        Ok(sh(&pinv(&Array::<f64>::zeros(&[0, 3], d)?, None)?))
    });
    t.val("qr (0, 0)", shp(&[0, 0]), |d| {
        Ok(sh(&qr(&empty(d)?, QrMode::Reduced)?.r))
    });
    t.val("expm (0, 0)", shp(&[0, 0]), |d| Ok(sh(&expm(&empty(d)?)?)));
    t.val("det of an empty stack", shp(&[0]), |d| {
        Ok(sh(&det(&Array::<f64>::zeros(&[0, 2, 2], d)?)?))
    });
    t.val(
        "matmul (2, 0) x (0, 3) is zeros",
        f(&[2, 3], &[0.0; 6]),
        |d| {
            fv(matmul(
                &Array::<f64>::zeros(&[2, 0], d)?,
                &Array::<f64>::zeros(&[0, 3], d)?,
            )?)
        },
    );

    // ---------- singular, indefinite ----------
    t.err("solve singular", Singular, |d| {
        fv(solve(&sing(d)?, &vec1(&[1.0, 1.0], d)?)?)
    });
    t.err("solve zero matrix", Singular, |d| {
        fv(solve(
            &Array::<f64>::zeros(&[3, 3], d)?,
            &vec1(&[1.0; 3], d)?,
        )?)
    });
    t.err("inv singular", Singular, |d| fv(inv(&sing(d)?)?));
    t.err("inv zero 1x1", Singular, |d| fv(inv(&m(&[0.0], 1, 1, d)?)?));
    t.val("det singular is 0", s1(0.0), |d| fv(det(&sing(d)?)?));
    t.err("lu_solve singular factor", Singular, |d| {
        let f = lu_factor(&sing(d)?, LuFactorOptions::default())?;
        fv(f.solve(&vec1(&[1.0, 1.0], d)?, 0)?)
    });
    t.close(
        "lu_factor singular (SciPy: a value)",
        f(&[2, 2], &[2.0, 4.0, 0.5, 0.0]),
        1e-15,
        |d| fv(lu_factor(&sing(d)?, LuFactorOptions::default())?.lu.clone()),
    );
    t.err("cholesky indefinite", NotPd, |d| {
        fv(cholesky(&m(&[1.0, 2.0, 2.0, 1.0], 2, 2, d)?)?)
    });
    t.err("cholesky negative diagonal", NotPd, |d| {
        fv(cholesky(&m(&[-1.0, 0.0, 0.0, 1.0], 2, 2, d)?)?)
    });
    t.err("cholesky zero matrix", NotPd, |d| {
        fv(cholesky(&Array::<f64>::zeros(&[2, 2], d)?)?)
    });
    t.err("cho_factor semidefinite", NotPd, |d| {
        fv(cho_factor(&sing(d)?, true)?.factor())
    });
    t.err("matrix_power -1 of singular", Singular, |d| {
        fv(matrix_power(&sing(d)?, -1)?)
    });
    t.err("solve_triangular zero diagonal", Singular, |d| {
        let o = TriangularOptions {
            lower: true,
            ..Default::default()
        };
        fv(solve_triangular(
            &m(&[0.0, 0.0, 1.0, 1.0], 2, 2, d)?,
            &vec1(&[1.0, 1.0], d)?,
            o,
        )?)
    });
    t.err("tensorsolve singular", Singular, |d| {
        fv(tensorsolve(&sing(d)?, &vec1(&[1.0, 1.0], d)?, None)?)
    });

    // ---------- mismatched shapes ----------
    t.err("solve b of another length", Shape, |d| {
        fv(solve(&spd(d)?, &vec1(&[1.0; 3], d)?)?)
    });
    t.err("solve b 0-d", Arg, |d| {
        fv(solve(&spd(d)?, &Array::<f64>::full(&[], 1.0, d)?)?)
    });
    t.err("matmul (2, 3) x (2, 3)", Shape, |d| {
        fv(matmul(&rect(d)?, &rect(d)?)?)
    });
    t.err("matmul batch mismatch", Shape, |d| {
        fv(matmul(
            &Array::<f64>::ones(&[2, 2, 2], d)?,
            &Array::<f64>::ones(&[3, 2, 2], d)?,
        )?)
    });
    t.err("dot (3,) . (2,)", Shape, |d| {
        fv(dot(&vec1(&[1.0; 3], d)?, &vec1(&[1.0; 2], d)?)?)
    });
    t.err("vdot of other sizes", Shape, |d| {
        fv(vdot(&vec1(&[1.0; 3], d)?, &vec1(&[1.0; 2], d)?)?)
    });
    t.err("inner of other lengths", Shape, |d| {
        fv(inner(&vec1(&[1.0; 3], d)?, &vec1(&[1.0; 2], d)?)?)
    });
    t.err("lstsq b rows", Shape, |d| {
        fv(lstsq(&spd(d)?, &vec1(&[1.0; 3], d)?, None)?.x)
    });
    t.err("cho_solve b rows", Shape, |d| {
        fv(cho_factor(&spd(d)?, true)?.solve(&vec1(&[1.0; 3], d)?)?)
    });
    t.err("lu_solve b rows", Shape, |d| {
        let f = lu_factor(&spd(d)?, LuFactorOptions::default())?;
        fv(f.solve(&vec1(&[1.0; 3], d)?, 0)?)
    });
    t.err("lu_solve trans 3", Arg, |d| {
        let f = lu_factor(&spd(d)?, LuFactorOptions::default())?;
        fv(f.solve(&vec1(&[1.0; 2], d)?, 3)?)
    });
    t.err("solve_triangular b rows", Shape, |d| {
        fv(solve_triangular(
            &spd(d)?,
            &vec1(&[1.0; 3], d)?,
            TriangularOptions::default(),
        )?)
    });
    t.err("subspace_angles rows", Shape, |d| {
        fv(subspace_angles(&spd(d)?, &matrix_transpose(&rect(d)?)?)?)
    });
    t.err("orthogonal_procrustes shapes", Shape, |d| {
        fv(orthogonal_procrustes(&spd(d)?, &rect(d)?)?.0)
    });
    t.err("tensordot axes mismatch", Shape, |d| {
        fv(tensordot(&rect(d)?, &rect(d)?, &[0], &[1])?)
    });

    // ---------- huge (views of a few bytes) ----------
    t.err("det of a (2^20, 2^20) view", Oom, |d| fv(det(&huge(d)?)?));
    t.err("inv of a (2^20, 2^20) view", Oom, |d| fv(inv(&huge(d)?)?));
    t.err("matmul of (2^20, 2^20) views", Oom, |d| {
        fv(matmul(&huge(d)?, &huge(d)?)?)
    });
    t.err("cholesky of a (2^20, 2^20) view", Oom, |d| {
        fv(cholesky(&huge(d)?)?)
    });
    t.err("det of a (2^33, 2^33) view", Arg, |d| fv(det(&huger(d)?)?));
    t.err("matmul of (2^33, 2^33) views", Arg, |d| {
        fv(matmul(&huger(d)?, &huger(d)?)?)
    });
    t.err("kron of (2^20, 2^20) and (2^20, 2^20)", Oom, |d| {
        fv(kron(&huge(d)?, &huge(d)?)?)
    });
    t.err("kron to 2^40 elements", Oom, |d| {
        let a = Array::<f64>::ones(&[1, 1], d)?.broadcast_to(&[1 << 20, 1])?;
        let b = Array::<f64>::ones(&[1, 1], d)?.broadcast_to(&[1, 1 << 20])?;
        fv(kron(&a, &b)?)
    });
    t.err("outer to 2^40 elements", Oom, |d| {
        let a = Array::<f64>::ones(&[1], d)?.broadcast_to(&[1 << 20])?;
        fv(outer(&a, &a)?)
    });
    // issue 30: banded, tridiagonal and matrix functions
    t.err("solve_banded of a (3, 2^40) band view", Oom, |d| {
        let ab = Array::<f64>::ones(&[1, 1], d)?.broadcast_to(&[3, 1 << 40])?;
        let b = Array::<f64>::ones(&[1], d)?.broadcast_to(&[1 << 40])?;
        fv(solve_banded((1, 1), &ab, &b)?)
    });
    t.err("solve_banded NaN", Arg, |d| {
        let ab = m(&[0.0, 1.0, 2.0, 2.0, 1.0, 0.0], 3, 2, d)?;
        fv(solve_banded((1, 1), &ab, &vec1(&[1.0, NAN], d)?)?)
    });
    t.err("solve_banded singular", Singular, |d| {
        // a = [[1, 1], [1, 1]]
        let ab = m(&[0.0, 1.0, 1.0, 1.0, 1.0, 0.0], 3, 2, d)?;
        fv(solve_banded((1, 1), &ab, &vec1(&[1.0, 1.0], d)?)?)
    });
    t.err("cholesky_banded indefinite", NotPd, |d| {
        fv(cholesky_banded(&m(&[0.0, 2.0, 1.0, 1.0], 2, 2, d)?, false)?)
    });
    t.err("eigh_tridiagonal of order 2^20 (dense 8 TiB)", Oom, |d| {
        let dd = Array::<f64>::ones(&[1], d)?.broadcast_to(&[1 << 20])?;
        let e = Array::<f64>::ones(&[1], d)?.broadcast_to(&[(1 << 20) - 1])?;
        fv(eigvalsh_tridiagonal(&dd, &e, Select::All)?)
    });
    t.err("expm_frechet NaN", Arg, |d| {
        fv(expm_frechet(&nanm(d)?, &spd(d)?, FrechetMethod::Sps)?.1)
    });
    t.err("sqrtm singular", Singular, |d| fv(sqrtm(&sing(d)?)?));
    t.err("hilbert 2^31 (bytes overflow)", Arg, |d| {
        fv(hilbert::<f64>(1 << 31, d)?)
    });
    t.err("hilbert 2^20 (8 TiB)", Oom, |d| {
        fv(hilbert::<f64>(1 << 20, d)?)
    });
    t.err("hilbert usize::MAX", Arg, |d| {
        fv(hilbert::<f64>(usize::MAX, d)?)
    });
    t.err("pascal 2^40", Arg, |d| {
        fv(pascal::<f64>(1 << 40, PascalKind::Symmetric, d)?)
    });
    t.err("dft usize::MAX", Arg, |d| {
        fv(dft::<c64>(usize::MAX, DftScale::None, d)?)
    });
    t.err("hadamard 2^62", Arg, |d| fv(hadamard::<f64>(1 << 62, d)?));
    t.err("helmert 2^33", Arg, |d| {
        fv(helmert::<f64>(1 << 33, true, d)?)
    });
    t.err("helmert 2^20", Oom, |d| {
        fv(helmert::<f64>(1 << 20, true, d)?)
    });
    t.err("dft 2^20", Oom, |d| {
        fv(dft::<c64>(1 << 20, DftScale::None, d)?)
    });
    t.err("invhilbert 2^40", Arg, |d| fv(invhilbert(1 << 40, d)?));
    t.err("matrix_power i64::MIN of singular", Singular, |d| {
        fv(matrix_power(&sing(d)?, i64::MIN)?)
    });

    // ---------- special matrices: SciPy's checks and values ----------
    t.err("hadamard 3", Arg, |d| fv(hadamard::<f64>(3, d)?));
    t.err("companion of one coefficient", Arg, |d| {
        fv(companion::<f64>(&[1.0], d)?)
    });
    t.err("companion leading zero", Arg, |d| {
        fv(companion::<f64>(&[0.0, 1.0], d)?)
    });
    t.err("leslie lengths", Shape, |d| {
        fv(leslie::<f64>(&[1.0, 2.0], &[1.0, 2.0], d)?)
    });
    t.val("toeplitz of nothing", shp(&[0, 0]), |d| {
        Ok(sh(&toeplitz::<f64>(&[], None, d)?))
    });
    t.val("circulant of nothing", shp(&[0, 0]), |d| {
        Ok(sh(&circulant::<f64>(&[], d)?))
    });
    t.val("pascal 0", shp(&[0, 0]), |d| {
        Ok(sh(&pascal::<f64>(0, PascalKind::Symmetric, d)?))
    });
    t.val("hilbert 0", shp(&[0, 0]), |d| {
        Ok(sh(&hilbert::<f64>(0, d)?))
    });
    t.val("invhilbert 0", shp(&[0, 0]), |d| Ok(sh(&invhilbert(0, d)?)));
    t.val("dft 0", shp(&[0, 0]), |d| {
        Ok(sh(&dft::<c64>(0, DftScale::None, d)?))
    });
    t.val("helmert 1 (not full) is (0, 1)", shp(&[0, 1]), |d| {
        Ok(sh(&helmert::<f64>(1, false, d)?))
    });
    t.val("block_diag of nothing is (1, 0)", shp(&[1, 0]), |d| {
        let _ = d;
        Ok(sh(&block_diag::<f64>(&[])?))
    });
    t.val("bandwidth of zeros", n(0), |d| {
        let (l, u) = bandwidth(&Array::<f64>::zeros(&[3, 3], d)?)?;
        Ok(n(l + u))
    });

    // ---------- matrix_balance, QR updates, sketches (issue 30) ----------
    t.err("matrix_balance NaN", Arg, |d| {
        fv(matrix_balance(&nanm(d)?, true, true)?.0)
    });
    t.err("matrix_balance not square", Arg, |d| {
        fv(matrix_balance(&rect(d)?, true, true)?.0)
    });
    t.err("matrix_balance 1-D", Arg, |d| {
        fv(matrix_balance(&vec1(&[1.0, 2.0], d)?, true, true)?.0)
    });
    t.val("matrix_balance (0, 0)", shp(&[0, 0]), |d| {
        Ok(sh(&matrix_balance(&empty(d)?, true, true)?.1))
    });
    t.err("qr_update NaN in u", Arg, |d| {
        let e = Array::<f64>::eye(2, None, 0, d)?;
        fv(qr_update(&e, &spd(d)?, &vec1(&[NAN, 1.0], d)?, &vec1(&[1.0, 1.0], d)?)?.0)
    });
    t.err("qr_update u of the wrong length", Shape, |d| {
        let e = Array::<f64>::eye(2, None, 0, d)?;
        fv(qr_update(
            &e,
            &spd(d)?,
            &vec1(&[1.0, 1.0, 1.0], d)?,
            &vec1(&[1.0, 1.0], d)?,
        )?
        .0)
    });
    t.err("qr_update incompatible q and r", Shape, |d| {
        fv(qr_update(
            &rect(d)?,
            &spd(d)?,
            &vec1(&[1.0, 1.0], d)?,
            &vec1(&[1.0, 1.0], d)?,
        )?
        .0)
    });
    t.err("qr_insert k out of bounds", Arg, |d| {
        let e = Array::<f64>::eye(2, None, 0, d)?;
        fv(qr_insert(&e, &spd(d)?, &vec1(&[1.0, 1.0], d)?, 3, QrWhich::Row, None)?.0)
    });
    t.err("qr_insert rcond with a full pair", Arg, |d| {
        let e = Array::<f64>::eye(2, None, 0, d)?;
        fv(qr_insert(
            &e,
            &spd(d)?,
            &vec1(&[1.0, 1.0], d)?,
            0,
            QrWhich::Col,
            Some(0.1),
        )?
        .0)
    });
    t.err(
        "qr_insert column in the span of an economic q",
        Singular,
        |d| {
            let q = m(&[1.0, 0.0, 0.0], 3, 1, d)?;
            let r = m(&[2.0], 1, 1, d)?;
            fv(qr_insert(&q, &r, &vec1(&[3.0, 0.0, 0.0], d)?, 1, QrWhich::Col, None)?.0)
        },
    );
    t.err("qr_delete p out of range", Arg, |d| {
        let e = Array::<f64>::eye(2, None, 0, d)?;
        fv(qr_delete(&e, &spd(d)?, 1, 2, QrWhich::Row)?.0)
    });
    t.err("qr_delete p = 0", Arg, |d| {
        let e = Array::<f64>::eye(2, None, 0, d)?;
        fv(qr_delete(&e, &spd(d)?, 0, 0, QrWhich::Col)?.0)
    });
    t.val(
        "qr_delete of every row is (0, 0), (0, N)",
        shp(&[0, 2]),
        |d| {
            let e = Array::<f64>::eye(2, None, 0, d)?;
            Ok(sh(&qr_delete(&e, &spd(d)?, 0, 2, QrWhich::Row)?.1))
        },
    );
    t.err("qz_complex NaN", Arg, |d| {
        fv(qz_complex(&nanm(d)?, &spd(d)?)?.aa)
    });
    t.err("qz_complex shapes differ", Shape, |d| {
        fv(qz_complex(&spd(d)?, &m(&[1.0], 1, 1, d)?)?.aa)
    });
    t.err("ordqz_complex not square", Arg, |d| {
        fv(ordqz_complex(&rect(d)?, &rect(d)?, QzSort::Lhp)?.aa)
    });
    t.val("qz_complex (0, 0)", shp(&[0, 0]), |d| {
        Ok(sh(&qz_complex(&empty(d)?, &empty(d)?)?.q))
    });
    t.err("clarkson_woodruff_transform sketch_size 0", Arg, |d| {
        fv(clarkson_woodruff_transform(&spd(d)?, 0, 1)?)
    });
    t.err("clarkson_woodruff_transform 1-D", Arg, |d| {
        fv(clarkson_woodruff_transform(&vec1(&[1.0, 2.0], d)?, 2, 1)?)
    });
    t
}

#[test]
fn bad_input_table() {
    bi::run_in_child("bad_input::bad_input_child", 600);
}

#[test]
fn bad_input_child() {
    bi::child("cusci-linalg", 120, table);
}
