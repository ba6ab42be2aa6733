//! The GPU half of the banded family (`solve_banded`, `solveh_banded`, `cholesky_banded`,
//! `cho_solve_banded`) and the dense tridiagonal matrix of `eigh_tridiagonal`: the crate's own
//! kernels in `banded.cu`, one block per system of a stack. Each function queues its kernels and
//! reads one 16-byte status back (the one synchronisation), except `tridiag_dense` and
//! `cho_solve_banded` without a finiteness check, which read nothing.

use super::kernels::decode_key;
use crate::shared::{finite_checks_on, nonfinite, not_pd, singular};
use crate::util::which;
use crate::Scalar;
use cusci_core::cuda::launch::i64_of;
use cusci_core::dtype::DType;
use cusci_core::{Array, CudaDevice, Element, Function, KernelModule, LaunchConfig, Result, Spec};

/// The banded kernels, every element type in one module (kernel names end in the type's tag).
pub(crate) static BANDED: KernelModule = KernelModule {
    name: "linalg_banded",
    source: |_| Ok(include_str!("banded.cu").to_string()),
    options: &[],
    samples: || vec![Spec::default()],
};

const OP: &str = "linalg banded kernel";

fn func<T: Element>(d: &CudaDevice, base: &str) -> Result<Function> {
    BANDED.function(d, &Spec::default(), &format!("{base}_{}", T::DTYPE.tag()))
}

/// One block of 128 threads per system (at most 65535 blocks: a grid-stride loop over the rest).
fn per_system(count: usize) -> LaunchConfig {
    LaunchConfig::linear(count.clamp(1, 65535) as u32, 128)
}

/// The status read back: the non-finite flag (an error unless the checks are off) and the first
/// failing system and column.
fn read_status(status: &Array<i64>) -> Result<(bool, Option<(usize, usize)>)> {
    let st = status.to_vec()?;
    Ok(((st[1] & 0xffff_ffff) != 0, decode_key(st[0])))
}

fn is_real<T: Scalar>() -> bool {
    matches!(T::DTYPE, DType::F32 | DType::F64)
}

/// `x` for the `count` band systems: `ab` contiguous `[count, l + u + 1, n]`, `b` contiguous
/// `[count, n, k]`; `x` has `b`'s shape `out_shape`. Errors as the CPU's.
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_banded<T: Scalar>(
    d: &CudaDevice,
    op: &str,
    ab: &Array<T>,
    b: &Array<T>,
    out_shape: &[usize],
    dims: (usize, usize, usize, usize, usize),
    batched: bool,
) -> Result<Array<T>> {
    let (count, n, l, u, k) = dims;
    let dev = ab.device();
    let mut x = Array::<T>::empty(out_shape, dev)?;
    let mut work = Array::<T>::empty(&[count, n, 2 * l + u + 1], dev)?;
    let mut piv = Array::<i32>::empty(&[count, n], dev)?;
    let mut status = Array::<i64>::zeros(&[2], dev)?;
    let f = func::<T>(d, "la_gbsv")?;
    d.launch(&f, per_system(count))
        .arg(ab.dev_ptr()?)
        .arg(b.dev_ptr()?)
        .arg(x.dev_ptr_mut()?)
        .arg(work.dev_ptr_mut()?)
        .arg(piv.dev_ptr_mut()?)
        .arg(i64_of(OP, count)?)
        .arg(i64_of(OP, n)?)
        .arg(i64_of(OP, l)?)
        .arg(i64_of(OP, u)?)
        .arg(i64_of(OP, k)?)
        .arg(status.dev_ptr_mut()?)
        .run()?;
    let (bad, fail) = read_status(&status)?;
    if bad && finite_checks_on() {
        return Err(nonfinite(op));
    }
    if let Some((s, j)) = fail {
        return Err(singular(op, which(batched, s, j)));
    }
    Ok(x)
}

/// Factors in place the `count` Hermitian band matrices of `c` (contiguous `[count, kd + 1, n]`,
/// a copy of the input) with one kernel; `NotPositiveDefinite` names the failing minor (one
/// matrix) or matrix (a stack). With `b` (`[count, n, k]`), also solves and returns `x`.
pub(crate) fn pbsv<T: Scalar>(
    d: &CudaDevice,
    op: &str,
    c: &mut Array<T>,
    b: Option<&Array<T>>,
    dims: (usize, usize, usize, usize),
    lower: bool,
    batched: bool,
) -> Result<Option<Array<T>>> {
    let (count, n, kd, _) = dims;
    let dev = c.device().clone();
    let mut status = Array::<i64>::zeros(&[2], &dev)?;
    let f = func::<T>(d, "la_pbtrf")?;
    d.launch(&f, per_system(count))
        .arg(c.dev_ptr_mut()?)
        .arg(i64_of(OP, count)?)
        .arg(i64_of(OP, n)?)
        .arg(i64_of(OP, kd)?)
        .arg(lower as i32)
        .arg(status.dev_ptr_mut()?)
        .run()?;
    let x = match b {
        Some(b) => Some(pbtrs_launch(d, c, b, dims, lower, false, &mut status)?),
        None => None,
    };
    let (bad, fail) = read_status(&status)?;
    if bad && finite_checks_on() {
        return Err(nonfinite(op));
    }
    if let Some((s, j)) = fail {
        return Err(not_pd(op, which(batched, s, j)));
    }
    Ok(x)
}

fn pbtrs_launch<T: Scalar>(
    d: &CudaDevice,
    c: &Array<T>,
    b: &Array<T>,
    dims: (usize, usize, usize, usize),
    lower: bool,
    check_c: bool,
    status: &mut Array<i64>,
) -> Result<Array<T>> {
    let (count, n, kd, k) = dims;
    let mut x = Array::<T>::empty(b.shape(), b.device())?;
    let f = func::<T>(d, "la_pbtrs")?;
    d.launch(&f, per_system(count))
        .arg(c.dev_ptr()?)
        .arg(b.dev_ptr()?)
        .arg(x.dev_ptr_mut()?)
        .arg(i64_of(OP, count)?)
        .arg(i64_of(OP, n)?)
        .arg(i64_of(OP, kd)?)
        .arg(i64_of(OP, k)?)
        .arg(lower as i32)
        .arg(check_c as i32)
        .arg(status.dev_ptr_mut()?)
        .run()?;
    Ok(x)
}

/// Solves with given banded Cholesky factors `c` (`[count, kd + 1, n]`) for `b` (`[count, n,
/// k]`); reads the status back (synchronises) only when the finiteness check is on.
pub(crate) fn cho_solve_banded<T: Scalar>(
    d: &CudaDevice,
    op: &str,
    c: &Array<T>,
    b: &Array<T>,
    dims: (usize, usize, usize, usize),
    lower: bool,
) -> Result<Array<T>> {
    let check = finite_checks_on();
    let mut status = Array::<i64>::zeros(&[2], c.device())?;
    let x = pbtrs_launch(d, c, b, dims, lower, check, &mut status)?;
    if check && read_status(&status)?.0 {
        return Err(nonfinite(op));
    }
    Ok(x)
}

/// The dense `[count, n, n]` symmetric tridiagonal matrices of `d` (`[count, n]`) and `e`
/// (`[count, n - 1]`), both contiguous, written by one kernel (real types only: the caller's).
pub(crate) fn tridiag_dense<T: Scalar>(
    dv: &CudaDevice,
    d: &Array<T>,
    e: &Array<T>,
    count: usize,
    n: usize,
) -> Result<Array<T>> {
    debug_assert!(is_real::<T>());
    let mut out = Array::<T>::empty(&[count, n, n], d.device())?;
    if out.size() == 0 {
        return Ok(out);
    }
    let f = func::<T>(dv, "la_tridiag_dense")?;
    // an empty e (n = 1) still needs a valid pointer: pass d's, never read
    let l = dv
        .launch(&f, dv.grid_stride(out.size(), 256, 8))
        .arg(d.dev_ptr()?);
    let l = if e.size() == 0 {
        l.arg(d.dev_ptr()?)
    } else {
        l.arg(e.dev_ptr()?)
    };
    l.arg(out.dev_ptr_mut()?)
        .arg(i64_of(OP, n)?)
        .arg(i64_of(OP, count)?)
        .run()?;
    Ok(out)
}
