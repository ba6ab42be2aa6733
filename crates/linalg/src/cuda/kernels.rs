//! The crate's own NVRTC kernels (`kernels.cu`, `small_solve.cu`) and their launchers: the passes
//! around the vendor calls (finiteness checks fused with copies, triangles, tiled transposes,
//! identities, diagonals) and the batched small-system LU solve.
//!
//! Nothing here synchronises, except where a function says it reads a result back: kernels that
//! detect a problem write a device status word that the caller reads once, with cuSOLVER's
//! `info`, where it must return to the host anyway.

use crate::Scalar;
use cusci_core::cuda::launch::{i32_of, i64_of, DevPtr, KernelArg, Launch};
use cusci_core::dtype::DType;
use cusci_core::{
    Array, CudaDevice, Device, Element, Function, KernelModule, LaunchConfig, Result, Spec,
};

/// The small kernels, every element type in one module (kernel names end in the type's tag).
pub(crate) static KERNELS: KernelModule = KernelModule {
    name: "linalg_kernels",
    source: |_| Ok(include_str!("kernels.cu").to_string()),
    options: &[],
    samples: || vec![Spec::default()],
};

/// The batched small-system solver, one module per element type (`dtypes[0]`) and lane width
/// (`ints[0]`: lanes per system, a power of two up to 32).
pub(crate) static SMALL_SOLVE: KernelModule = KernelModule {
    name: "linalg_small_solve",
    source: small_solve_source,
    options: &[],
    // every element type and every lane width, each width with one type (the same template;
    // the widest complex ones take seconds each to compile, and the types all appear)
    samples: || {
        [
            (DType::F32, 1),
            (DType::F64, 2),
            (DType::C32, 4),
            (DType::C64, 8),
            (DType::F64, 16),
            (DType::F32, 32),
        ]
        .iter()
        .map(|&(t, w)| Spec::of(&[t]).with(&[w]))
        .collect()
    },
};

/// The operation named in the errors of the counts passed to the kernels (none overflows: they
/// count elements of arrays).
const OP: &str = "linalg kernel";

/// Largest order the small-system kernel handles (one warp holds a system).
pub(crate) const SMALL_MAX_N: usize = crate::BATCHED_LU_MAX_N;

/// The small-system solver's source for the element type and lane width of `spec`.
fn small_solve_source(spec: &Spec) -> Result<String> {
    let t = spec.dtype(0)?;
    let w = spec.int(0)?;
    let r = match t {
        DType::F32 | DType::C32 => "float",
        _ => "double",
    };
    Ok(format!(
        "#define LT {}\n#define LR {r}\n#define LW {w}\n{}",
        t.cuda_name(),
        include_str!("small_solve.cu")
    ))
}

fn func<T: Element>(d: &CudaDevice, base: &str) -> Result<Function> {
    KERNELS.function(d, &Spec::default(), &format!("{base}_{}", T::DTYPE.tag()))
}

/// Grid-stride kernels: blocks of 256 threads, at most 8 per SM.
fn grid(d: &CudaDevice, total: usize) -> LaunchConfig {
    d.grid_stride(total, 256, 8)
}

/// Row-wise kernels: one block of 256 threads per matrix row at a time, at most 16 per SM.
fn row_grid(d: &CudaDevice, rows: usize) -> LaunchConfig {
    d.grid_stride(rows.saturating_mul(256), 256, 16)
}

/// `p`, or a null pointer where the kernel is given none.
fn arg_or_null<'a, A: KernelArg<'a>>(l: Launch<'a>, p: Option<A>) -> Launch<'a> {
    match p {
        Some(p) => l.arg(p),
        None => l.arg(DevPtr::<u8>::null()),
    }
}

/// Copies the contiguous `src` into the contiguous `dst` (same size) when given, and sets the
/// first element of `flag` to 1 when any element of `src` is not finite.
pub(crate) fn finite_copy<T: Scalar>(
    d: &CudaDevice,
    src: &Array<T>,
    dst: Option<&mut Array<T>>,
    flag: &mut Array<i32>,
) -> Result<()> {
    let n = src.size();
    if n == 0 {
        return Ok(());
    }
    debug_assert!(src.is_contiguous());
    let f = func::<T>(d, "la_finite_copy")?;
    let l = d.launch(&f, grid(d, n)).arg(src.dev_ptr()?);
    let out = match dst {
        Some(o) => Some(o.dev_ptr_mut()?),
        None => None,
    };
    arg_or_null(l, out)
        .arg(i64_of(OP, n)?)
        .arg(flag.dev_ptr_mut()?)
        .run()
}

/// A contiguous copy of `a` that the caller may overwrite, and a device flag set by the copy when
/// any element is not finite (the copy and the check are one pass when `a` is contiguous). The
/// flag is the first element of `status` (an `i32` array of the caller, zeroed).
pub(crate) fn checked_copy<T: Scalar>(
    d: &CudaDevice,
    a: &Array<T>,
    status: &mut Array<i32>,
) -> Result<Array<T>> {
    if a.is_contiguous() {
        let mut out = Array::<T>::empty(a.shape(), a.device())?;
        finite_copy(d, a, Some(&mut out), status)?;
        Ok(out)
    } else {
        let out = a.copy()?;
        finite_copy(d, &out, None, status)?;
        Ok(out)
    }
}

/// `InvalidArgument` unless every element of `a` is finite: one read-only pass sets a device
/// flag, which is read back (4 bytes; this synchronises).
pub(crate) fn check_finite<T: Scalar>(d: &CudaDevice, op: &str, a: &Array<T>) -> Result<()> {
    if a.is_empty() || !crate::shared::finite_checks_on() {
        return Ok(());
    }
    let mut flag = Array::<i32>::zeros(&[1], a.device())?;
    let c = a.contiguous()?;
    finite_copy(d, &c, None, &mut flag)?;
    if flag.to_vec()?[0] != 0 {
        return Err(crate::shared::nonfinite(op));
    }
    Ok(())
}

/// Zeroes in place the part of every row-major `rows x cols` matrix of `a` outside the triangle
/// (`keep_lower`: `j - i <= k` kept, else `j - i >= k`). `a` is made its storage's own and
/// contiguous first (a fresh array already is).
pub(crate) fn tri_zero<T: Scalar>(
    d: &CudaDevice,
    a: &mut Array<T>,
    keep_lower: bool,
    k: isize,
) -> Result<()> {
    let nd = a.ndim();
    let (rows, cols) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let total = a.size();
    if total == 0 {
        return Ok(());
    }
    let f = func::<T>(d, "la_tri_zero")?;
    d.launch(&f, row_grid(d, total / cols))
        .arg(a.dev_ptr_mut()?)
        .arg(i64_of(OP, rows)?)
        .arg(i64_of(OP, cols)?)
        .arg(i64_of(OP, total / (rows * cols))?)
        .arg(keep_lower as i32)
        .arg(k as i64)
        .run()
}

/// `(count, stride)` when the batch axes of a view are one arithmetic progression of matrices.
fn batch_stride(shape: &[usize], strides: &[isize]) -> Option<(usize, isize)> {
    let mut count = 1usize;
    let mut step: Option<isize> = None;
    for (&d, &s) in shape.iter().zip(strides).rev() {
        if d == 1 {
            continue;
        }
        match step {
            None => {
                step = Some(s);
                count = d;
            }
            Some(st) => {
                if s != st * count as isize {
                    return None;
                }
                count *= d;
            }
        }
    }
    Some((count, step.unwrap_or(0)))
}

/// A contiguous copy of the (possibly strided, e.g. transposed) matrices of `a`, conjugated when
/// `conj`, with the part outside a triangle zeroed (`mode` 0: none; 1: `j - i <= k` kept; 2:
/// `j - i >= k` kept). Tiled through shared memory: coalesced for transposed inputs too.
pub(crate) fn tile_copy<T: Scalar>(
    d: &CudaDevice,
    a: &Array<T>,
    mode: i32,
    k: isize,
    conj: bool,
) -> Result<Array<T>> {
    let nd = a.ndim();
    let (rows, cols) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let (si, sj) = (a.strides()[nd - 2], a.strides()[nd - 1]);
    let Some((count, sb)) = batch_stride(&a.shape()[..nd - 2], &a.strides()[..nd - 2]) else {
        // batch axes that no single stride describes: make them contiguous first
        return tile_copy(d, &a.copy()?, mode, k, conj);
    };
    let mut out = Array::<T>::empty(a.shape(), a.device())?;
    if out.size() == 0 {
        return Ok(out);
    }
    let (gx, gy) = (cols.div_ceil(32), rows.div_ceil(32));
    if gy > 65535 || gx > u32::MAX as usize {
        // too many tile rows for the grid: the generic copy, then the triangle in place
        let mut c = if conj { a.conj()? } else { a.copy()? };
        if mode != 0 {
            tri_zero(d, &mut c, mode == 1, k)?;
        }
        return Ok(c);
    }
    let f = func::<T>(d, "la_tile_copy")?;
    let cfg = LaunchConfig {
        grid: (gx as u32, gy as u32, count.clamp(1, 65535) as u32),
        block: (32, 8, 1),
        shared_mem_bytes: 0,
    };
    d.launch(&f, cfg)
        .arg(a.dev_ptr()?)
        .arg(out.dev_ptr_mut()?)
        .arg(i64_of(OP, rows)?)
        .arg(i64_of(OP, cols)?)
        .arg(i64_of(OP, count)?)
        .arg(sb as i64)
        .arg(si as i64)
        .arg(sj as i64)
        .arg(mode)
        .arg(k as i64)
        .arg(conj as i32)
        .run()?;
    Ok(out)
}

/// The transposed (last two axes) contiguous copy of `a`: the column-major storage of its
/// matrices, by one tiled kernel (coalesced reads and writes).
pub(crate) fn transposed_copy<T: Scalar>(d: &CudaDevice, a: &Array<T>) -> Result<Array<T>> {
    tile_copy(d, &a.swapaxes(-1, -2)?, 0, 0, false)
}

/// Drops, in place, the imaginary part of the diagonal of every matrix of the contiguous `a`
/// (`(..., n, n)`), as LAPACK's Hermitian routines ignore it; nothing for real types.
pub(crate) fn diag_real<T: Scalar>(d: &CudaDevice, a: &mut Array<T>) -> Result<()> {
    if !T::DTYPE.is_complex() || a.size() == 0 {
        return Ok(());
    }
    let n = a.shape()[a.ndim() - 1];
    let count = a.size() / (n * n);
    let f = func::<T>(d, "la_diag_real")?;
    d.launch(&f, grid(d, count * n))
        .arg(a.dev_ptr_mut()?)
        .arg(i64_of(OP, n)?)
        .arg(i64_of(OP, count)?)
        .run()
}

/// `count` identity matrices `n x n` (shape `[count, n, n]`) on `d`, written by one kernel.
pub(crate) fn eye_batch<T: Scalar>(d: &CudaDevice, n: usize, count: usize) -> Result<Array<T>> {
    let mut out = Array::<T>::empty(&[count, n, n], &Device::Cuda(d.clone()))?;
    if out.size() == 0 {
        return Ok(out);
    }
    let f = func::<T>(d, "la_eye")?;
    d.launch(&f, row_grid(d, n * count))
        .arg(out.dev_ptr_mut()?)
        .arg(i64_of(OP, n)?)
        .arg(i64_of(OP, count)?)
        .run()?;
    Ok(out)
}

/// The diagonals of the square matrices of `a` (any strides; shape `(..., n)`), and, when
/// `find_zero`, the first exact zero on them as `(matrix, position)` (reading it back
/// synchronises).
#[allow(clippy::type_complexity)]
pub(crate) fn diagonal<T: Scalar>(
    d: &CudaDevice,
    a: &Array<T>,
    want: bool,
    find_zero: bool,
) -> Result<(Option<Array<T>>, Option<(usize, usize)>)> {
    let nd = a.ndim();
    let n = a.shape()[nd - 1];
    let batch = &a.shape()[..nd - 2];
    let Some((count, sb)) = batch_stride(batch, &a.strides()[..nd - 2]) else {
        return diagonal(d, &a.copy()?, want, find_zero);
    };
    let mut shape = batch.to_vec();
    shape.push(n);
    let mut out = if want {
        Some(Array::<T>::empty(&shape, a.device())?)
    } else {
        None
    };
    if count * n == 0 {
        return Ok((out, None));
    }
    let mut first = if find_zero {
        Some(Array::<i64>::zeros(&[1], a.device())?)
    } else {
        None
    };
    let f = func::<T>(d, "la_diag")?;
    let l = d.launch(&f, grid(d, count * n)).arg(a.dev_ptr()?);
    let l = arg_or_null(l, out.as_mut().map(|o| o.dev_ptr_mut()).transpose()?)
        .arg(i64_of(OP, n)?)
        .arg(i64_of(OP, count)?)
        .arg(sb as i64)
        .arg(a.strides()[nd - 2] as i64)
        .arg(a.strides()[nd - 1] as i64);
    arg_or_null(l, first.as_mut().map(|z| z.dev_ptr_mut()).transpose()?).run()?;
    let zero = match first {
        Some(z) => decode_key(z.to_vec()?[0]),
        None => None,
    };
    Ok((out, zero))
}

/// A status word written as `max(~(matrix << 32 | index))` (0: nothing found).
pub(crate) fn decode_key(v: i64) -> Option<(usize, usize)> {
    if v == 0 {
        return None;
    }
    let key = !(v as u64);
    Some(((key >> 32) as usize, (key & 0xffff_ffff) as usize))
}

/// What [`small_solve`] found, read back once.
pub(crate) struct SmallStatus {
    /// Some input element is NaN or infinite.
    pub nonfinite: bool,
    /// The first singular system and its first zero pivot.
    pub singular: Option<(usize, usize)>,
}

/// Solves the `count` systems `a_i x_i = b_i` (order `n <= 32`; `a` contiguous `[count, n, n]`,
/// `b` contiguous `[count, n, k]`, or the identity with `k = n` when `b` is `None`) with one
/// kernel: LU with partial pivoting in registers, a warp's lanes holding the rows. Returns `x`
/// (`[count, n, k]`) and the status (reading it synchronises).
pub(crate) fn small_solve<T: Scalar>(
    d: &CudaDevice,
    a: &Array<T>,
    b: Option<&Array<T>>,
    count: usize,
    n: usize,
    k: usize,
) -> Result<(Array<T>, SmallStatus)> {
    debug_assert!((1..=SMALL_MAX_N).contains(&n) && a.is_contiguous());
    let dev = a.device();
    let mut x = Array::<T>::empty(&[count, n, k], dev)?;
    let mut status = Array::<i64>::zeros(&[2], dev)?;
    let w = n.next_power_of_two();
    let spec = Spec::of(&[T::DTYPE]).with(&[w as i64]);
    let f = SMALL_SOLVE.function(d, &spec, "la_small_solve")?;
    let threads = 128usize;
    let lanes = count * w; // one lane per row slot
    let blocks = lanes.div_ceil(threads).clamp(1, (u32::MAX / 2) as usize);
    let l = d
        .launch(&f, LaunchConfig::linear(blocks as u32, threads as u32))
        .arg(a.dev_ptr()?);
    arg_or_null(l, b.map(|b| b.dev_ptr()).transpose()?)
        .arg(x.dev_ptr_mut()?)
        .arg(i64_of(OP, count)?)
        .arg(i32_of(OP, n)?)
        .arg(i32_of(OP, k)?)
        .arg(b.is_none() as i32)
        .arg(status.dev_ptr_mut()?)
        .run()?;
    let st = status.to_vec()?;
    Ok((
        x,
        SmallStatus {
            nonfinite: st[1] != 0,
            singular: decode_key(st[0]),
        },
    ))
}
