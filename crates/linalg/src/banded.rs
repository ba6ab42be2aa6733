//! Banded systems in LAPACK's band storage (SciPy's `solve_banded`, `solveh_banded`,
//! `cholesky_banded`, `cho_solve_banded`): the front ends (validation, broadcasting of the
//! stacks, the one match on the device); the CPU reference is `band_cpu.rs`, the GPU kernels
//! `cuda/banded.rs`.

use crate::band_cpu;
use crate::shared::{finite_checks_on, nonfinite, not_pd, singular};
use crate::util::{cat, mat_dims, prod, same_device, which};
use crate::Scalar;
use cusci_core::array::layout::broadcast_shapes;
use cusci_core::error::make;
use cusci_core::{Array, Backend, Device, RealFloat, Result};
use rayon::prelude::*;

/// `b`'s batch shape, core shape, rows and columns: `(n,)` is one right-hand side, `(..., n,
/// k)` a stack of `k` columns each (SciPy's `'1|2'` core dimensions).
fn rhs_dims<T: Scalar>(op: &str, b: &Array<T>) -> Result<(Vec<usize>, Vec<usize>, usize, usize)> {
    let s = b.shape();
    match s.len() {
        0 => Err(make::arg(op, "b must be at least 1-D")),
        1 => Ok((vec![], s.to_vec(), s[0], 1)),
        d => Ok((s[..d - 2].to_vec(), s[d - 2..].to_vec(), s[d - 2], s[d - 1])),
    }
}

fn all_finite<T: Scalar>(v: &[T]) -> bool {
    v.iter()
        .all(|x| x.re().to_f64().is_finite() && x.im().to_f64().is_finite())
}

/// The validated shapes of a banded call: `(batch, out shape, n, k)`.
struct BandShapes {
    batch: Vec<usize>,
    out: Vec<usize>,
    n: usize,
    k: usize,
}

fn band_shapes<T: Scalar>(
    op: &str,
    what: &str,
    ab: &Array<T>,
    b: &Array<T>,
) -> Result<(BandShapes, usize)> {
    same_device(op, ab, b)?;
    let (abb, rows, n) = mat_dims(op, ab)?;
    let (bb, core, nb, k) = rhs_dims(op, b)?;
    if nb != n {
        return Err(make::shape(
            op,
            format!(
                "shapes of {what} and b are not compatible: {:?} and {:?}",
                ab.shape(),
                b.shape()
            ),
        ));
    }
    let batch = broadcast_shapes(op, &abb, &bb)?;
    let out = cat(&batch, &core);
    Ok((BandShapes { batch, out, n, k }, rows))
}

/// Solves `a x = b` for a band matrix `a` with `l` sub- and `u` superdiagonals (SciPy's
/// `linalg.solve_banded((l, u), ab, b)`), given in LAPACK's band storage: `ab` is
/// `(l + u + 1, N)` with `ab[u + i - j, j] == a[i, j]` (the entries of `ab` outside the matrix,
/// the top-left and bottom-right corners, are not used). `b` is `(N,)` or `(N, K)`; stacks
/// `(..., l + u + 1, N)` and `(..., N, K)` broadcast as SciPy's batching (a 1-D `b` is one
/// right-hand side for every matrix). `check_finite` is the crate's switch
/// ([`without_finite_check`](crate::without_finite_check)).
///
/// LU with partial pivoting in band storage (LAPACK's `gbtrf`/`gbtrs`, `O(N (l + u) l)` per
/// matrix): on the CPU written out (rayon over the stack), on the GPU the crate's kernel with one
/// block per matrix (threads across the band for the factorisation, one per column of `b` for the
/// substitutions). As SciPy, `N = 1` divides by the diagonal without a singularity check. The GPU
/// reads a 16-byte status back (synchronises).
///
/// # Errors
/// `ShapeMismatch` when `b`'s rows differ from `N` or the stacks do not broadcast;
/// `InvalidArgument` when `l + u + 1` differs from `ab`'s rows, for NaN or infinity in `ab` or
/// `b`, or fewer than 2 dimensions of `ab`; `Singular { index }` for an exactly zero pivot (the
/// column, or for a stack the matrix); `DeviceMismatch`.
///
/// ```
/// use cusci_linalg::{solve_banded, Array, Device};
/// // a = [[2, 1, 0], [1, 2, 1], [0, 1, 2]]: one sub- and one superdiagonal
/// let ab = Array::from_vec(vec![0.0f64, 1.0, 1.0, 2.0, 2.0, 2.0, 1.0, 1.0, 0.0], &[3, 3], &Device::Cpu)?;
/// let b = Array::from_vec(vec![3.0f64, 4.0, 3.0], &[3], &Device::Cpu)?;
/// let x = solve_banded((1, 1), &ab, &b)?.to_vec()?;
/// assert!(x.iter().all(|v| (v - 1.0).abs() < 1e-14));
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn solve_banded<T: Scalar>(
    l_and_u: (usize, usize),
    ab: &Array<T>,
    b: &Array<T>,
) -> Result<Array<T>> {
    let op = "solve_banded";
    let (l, u) = l_and_u;
    let (sh, rows) = band_shapes(op, "ab", ab, b)?;
    if l + u + 1 != rows {
        return Err(make::arg(
            op,
            format!(
                "invalid values for the number of lower and upper diagonals: l+u+1 ({}) does not equal ab.shape[0] ({rows})",
                l + u + 1
            ),
        ));
    }
    let BandShapes { batch, out, n, k } = sh;
    if prod(&out) == 0 {
        return Array::zeros(&out, b.device());
    }
    let count = prod(&batch);
    let batched = !batch.is_empty();
    let abc = ab.broadcast_to(&cat(&batch, &[rows, n]))?;
    let bc = b.broadcast_to(&out)?;
    match ab.backend() {
        Backend::Host(_) => {
            let av = abc.to_vec()?;
            let mut bv = bc.to_vec()?;
            if finite_checks_on() && !(all_finite(&av) && all_finite(&bv)) {
                return Err(nonfinite(op));
            }
            let per = rows * n;
            let r: Vec<Result<Option<usize>>> = bv
                .par_chunks_mut(n * k)
                .enumerate()
                .map(|(i, x)| band_cpu::gbsv(op, &av[i * per..(i + 1) * per], x, n, l, u, k))
                .collect();
            // the lowest failing matrix wins (independent of the thread count)
            for (i, r) in r.into_iter().enumerate() {
                if let Some(j) = r? {
                    return Err(singular(op, which(batched, i, j)));
                }
            }
            Array::from_vec(bv, &out, &Device::Cpu)
        }
        Backend::Cuda(c) => crate::cuda::banded::solve_banded(
            c.dev(),
            op,
            &abc.copy()?,
            &bc.copy()?,
            &out,
            (count, n, l, u, k),
            batched,
        ),
    }
}

/// The Hermitian (symmetric) band storage's bandwidth: `ab`'s rows less one.
fn hermitian_kd(op: &str, rows: usize) -> Result<usize> {
    rows.checked_sub(1)
        .ok_or_else(|| make::arg(op, "ab must have at least one row"))
}

/// Cholesky factor of a Hermitian positive definite band matrix (SciPy's
/// `linalg.cholesky_banded(ab, lower)`), in and out in LAPACK's band storage with `kd = rows - 1`
/// off-diagonals: upper (`lower = false`, SciPy's default) `ab[kd + i - j, j] == a[i, j]` for
/// `i <= j`, and the result `U` with `a = Uᴴ U`; lower `ab[i - j, j] == a[i, j]` for `i >= j`,
/// and `L` with `a = L Lᴴ`. Stacks `(..., kd + 1, N)`. Only the real part of the diagonal is
/// read; the unused corner of the storage is returned as given (as LAPACK's `pbtrf`).
///
/// `O(N kd²)` per matrix: on the CPU written out (rayon over the stack), on the GPU the crate's
/// kernel, one block per matrix with threads across the band. The GPU reads a 16-byte status
/// back (synchronises).
///
/// # Errors
/// `NotPositiveDefinite { index }` (the leading minor's order less one, or for a stack the
/// matrix); `InvalidArgument` for NaN or infinity, fewer than 2 dimensions or no rows.
///
/// ```
/// use cusci_linalg::{cholesky_banded, Array, Device};
/// // a = [[4, 2], [2, 5]] in upper storage: row 0 the superdiagonal, row 1 the diagonal
/// let ab = Array::from_vec(vec![0.0f64, 2.0, 4.0, 5.0], &[2, 2], &Device::Cpu)?;
/// let c = cholesky_banded(&ab, false)?.to_vec()?;
/// assert_eq!(&c[1..], &[1.0, 2.0, 2.0]); // U = [[2, 1], [0, 2]]
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn cholesky_banded<T: Scalar>(ab: &Array<T>, lower: bool) -> Result<Array<T>> {
    let op = "cholesky_banded";
    let (batch, rows, n) = mat_dims(op, ab)?;
    let kd = hermitian_kd(op, rows)?;
    if ab.is_empty() {
        return ab.copy();
    }
    let count = prod(&batch);
    let batched = !batch.is_empty();
    match ab.backend() {
        Backend::Host(_) => {
            let mut cv = ab.to_vec()?;
            if finite_checks_on() && !all_finite(&cv) {
                return Err(nonfinite(op));
            }
            factor_cpu(op, &mut cv, n, kd, lower, batched)?;
            Array::from_vec(cv, ab.shape(), &Device::Cpu)
        }
        Backend::Cuda(c) => {
            let mut cc = ab.copy()?;
            crate::cuda::banded::pbsv(
                c.dev(),
                op,
                &mut cc,
                None,
                (count, n, kd, 0),
                lower,
                batched,
            )?;
            Ok(cc)
        }
    }
}

fn factor_cpu<T: Scalar>(
    op: &str,
    cv: &mut [T],
    n: usize,
    kd: usize,
    lower: bool,
    batched: bool,
) -> Result<()> {
    let r: Vec<std::result::Result<(), (usize, usize)>> = cv
        .par_chunks_mut((kd + 1) * n)
        .enumerate()
        .map(|(i, c)| band_cpu::pbtrf(c, n, kd, lower).map_err(|j| (i, j)))
        .collect();
    if let Some(Err((i, j))) = r.into_iter().find(|v| v.is_err()) {
        return Err(not_pd(op, which(batched, i, j)));
    }
    Ok(())
}

fn solve_cpu<T: Scalar>(cv: &[T], bv: &mut [T], n: usize, kd: usize, k: usize, lower: bool) {
    let per = (kd + 1) * n;
    bv.par_chunks_mut(n * k)
        .enumerate()
        .for_each(|(i, x)| band_cpu::pbtrs(&cv[i * per..(i + 1) * per], x, n, kd, k, lower));
}

/// Solves `a x = b` for a Hermitian positive definite band matrix (SciPy's
/// `linalg.solveh_banded(ab, b, lower)`), `ab` in the band storage of [`cholesky_banded`]
/// (upper by default), `b` `(N,)` or `(N, K)`; stacks broadcast as [`solve_banded`]'s. The banded
/// Cholesky factorisation then the two triangular band solves (LAPACK's `pbsv`; SciPy's `ptsv`
/// for `kd = 1` is an `L D Lᴴ` variant with the same failures). The GPU runs both kernels and
/// reads one 16-byte status back (synchronises).
///
/// # Errors
/// `NotPositiveDefinite { index }` as [`cholesky_banded`]; `ShapeMismatch` when `b`'s rows
/// differ from `N`; `InvalidArgument` for NaN or infinity, or an `ab` of no rows.
///
/// ```
/// use cusci_linalg::{solveh_banded, Array, Device};
/// // a = [[4, 2], [2, 5]], upper storage
/// let ab = Array::from_vec(vec![0.0f64, 2.0, 4.0, 5.0], &[2, 2], &Device::Cpu)?;
/// let b = Array::from_vec(vec![6.0f64, 7.0], &[2], &Device::Cpu)?;
/// let x = solveh_banded(&ab, &b, false)?.to_vec()?;
/// assert!((x[0] - 1.0).abs() < 1e-14 && (x[1] - 1.0).abs() < 1e-14);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn solveh_banded<T: Scalar>(ab: &Array<T>, b: &Array<T>, lower: bool) -> Result<Array<T>> {
    let op = "solveh_banded";
    let (sh, rows) = band_shapes(op, "ab", ab, b)?;
    let kd = hermitian_kd(op, rows)?;
    let BandShapes { batch, out, n, k } = sh;
    if prod(&out) == 0 {
        return Array::zeros(&out, b.device());
    }
    let count = prod(&batch);
    let batched = !batch.is_empty();
    let abc = ab.broadcast_to(&cat(&batch, &[rows, n]))?;
    let bc = b.broadcast_to(&out)?;
    match ab.backend() {
        Backend::Host(_) => {
            let mut cv = abc.to_vec()?;
            let mut bv = bc.to_vec()?;
            if finite_checks_on() && !(all_finite(&cv) && all_finite(&bv)) {
                return Err(nonfinite(op));
            }
            factor_cpu(op, &mut cv, n, kd, lower, batched)?;
            solve_cpu(&cv, &mut bv, n, kd, k, lower);
            Array::from_vec(bv, &out, &Device::Cpu)
        }
        Backend::Cuda(c) => {
            let mut cc = abc.copy()?;
            let bcc = bc.copy()?;
            let x = crate::cuda::banded::pbsv(
                c.dev(),
                op,
                &mut cc,
                Some(&bcc),
                (count, n, kd, k),
                lower,
                batched,
            )?;
            x.ok_or_else(|| make::arg(op, "solution missing"))
        }
    }
}

/// Solves `a x = b` given the banded Cholesky factor of `a` (SciPy's
/// `linalg.cho_solve_banded((cb, lower), b)`): `cb` as [`cholesky_banded`] returns it, `lower`
/// the storage it is in; `b` `(N,)` or `(N, K)`; stacks broadcast as [`solve_banded`]'s. Two
/// triangular band solves (LAPACK's `pbtrs`) with the factor's diagonal as stored (a zero on it
/// gives infinities, as LAPACK). The GPU reads a 16-byte status back only for the finiteness
/// check.
///
/// # Errors
/// `ShapeMismatch` when `b`'s rows differ from `N` (SciPy: "shapes of cb and b are not
/// compatible"); `InvalidArgument` for NaN or infinity in `cb` or `b`, or a `cb` of no rows.
///
/// ```
/// use cusci_linalg::{cho_solve_banded, cholesky_banded, Array, Device};
/// let ab = Array::from_vec(vec![0.0f64, 2.0, 4.0, 5.0], &[2, 2], &Device::Cpu)?;
/// let cb = cholesky_banded(&ab, false)?;
/// let b = Array::from_vec(vec![6.0f64, 7.0], &[2], &Device::Cpu)?;
/// let x = cho_solve_banded((&cb, false), &b)?.to_vec()?;
/// assert!((x[0] - 1.0).abs() < 1e-14 && (x[1] - 1.0).abs() < 1e-14);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn cho_solve_banded<T: Scalar>(
    cb_and_lower: (&Array<T>, bool),
    b: &Array<T>,
) -> Result<Array<T>> {
    let op = "cho_solve_banded";
    let (cb, lower) = cb_and_lower;
    let (sh, rows) = band_shapes(op, "cb", cb, b)?;
    let kd = hermitian_kd(op, rows)?;
    let BandShapes { batch, out, n, k } = sh;
    if prod(&out) == 0 {
        return Array::zeros(&out, b.device());
    }
    let count = prod(&batch);
    let cbc = cb.broadcast_to(&cat(&batch, &[rows, n]))?;
    let bc = b.broadcast_to(&out)?;
    match cb.backend() {
        Backend::Host(_) => {
            let cv = cbc.to_vec()?;
            let mut bv = bc.to_vec()?;
            if finite_checks_on() && !(all_finite(&cv) && all_finite(&bv)) {
                return Err(nonfinite(op));
            }
            solve_cpu(&cv, &mut bv, n, kd, k, lower);
            Array::from_vec(bv, &out, &Device::Cpu)
        }
        Backend::Cuda(c) => crate::cuda::banded::cho_solve_banded(
            c.dev(),
            op,
            &cbc.copy()?,
            &bc.copy()?,
            (count, n, kd, k),
            lower,
        ),
    }
}
