//! The crate's own NVRTC kernels (`kernels.cu`, `small_solve.cu`) and their launchers: the passes
//! around the vendor calls (finiteness checks fused with copies, triangles, tiled transposes,
//! identities, diagonals) and the batched small-system LU solve.
//!
//! Nothing here synchronises: kernels that detect a problem write a device status word that the
//! caller reads once, with cuSOLVER's `info`, where it must return to the host anyway.

use crate::Scalar;
use cusci_core::cuda::kernel::{Args, Function, LaunchConfig};
use cusci_core::dtype::DType;
use cusci_core::{Array, CudaDevice, Device, Element, Result};

/// The source of the module of small kernels (every element type).
pub(crate) const KERNELS_CU: &str = include_str!("kernels.cu");
/// The batched small-system solver, before its `#define`s.
pub(crate) const SMALL_SOLVE_CU: &str = include_str!("small_solve.cu");
const KEY: &str = "cusci-linalg/kernels";

/// Largest order the small-system kernel handles (one warp holds a system).
pub(crate) const SMALL_MAX_N: usize = crate::BATCHED_LU_MAX_N;

/// The small-system solver's source for element type `t` and `w` lanes per system.
pub(crate) fn small_solve_source(t: DType, w: usize) -> String {
    let r = match t {
        DType::F32 | DType::C32 => "float",
        _ => "double",
    };
    format!(
        "#define LT {}\n#define LR {r}\n#define LW {w}\n{SMALL_SOLVE_CU}",
        t.cuda_name()
    )
}

/// The module sources of this crate with a name, for compile checks: the kernel module (every
/// type) and the small-system solver for every element type and every lane width, each width
/// with one type (the same template; the widest complex ones take seconds each to compile, and
/// the types all appear).
pub(crate) fn all_sources() -> Vec<(String, String)> {
    let mut v = vec![("linalg_kernels".to_string(), KERNELS_CU.to_string())];
    for (t, w) in [
        (DType::F32, 1usize),
        (DType::F64, 2),
        (DType::C32, 4),
        (DType::C64, 8),
        (DType::F64, 16),
        (DType::F32, 32),
    ] {
        v.push((
            format!("linalg_small_solve_{}_{w}", t.tag()),
            small_solve_source(t, w),
        ));
    }
    v
}

fn func<T: Element>(d: &CudaDevice, base: &str) -> Result<Function> {
    d.function(
        KEY,
        || KERNELS_CU.to_string(),
        &[],
        &format!("{base}_{}", T::DTYPE.tag()),
    )
}

fn grid(d: &CudaDevice, total: usize) -> LaunchConfig {
    let cap = (d.props().multiprocessors * 8).max(1);
    LaunchConfig::linear(total.div_ceil(256).clamp(1, cap) as u32, 256)
}

/// One block of 256 threads per matrix row at a time (row-wise kernels), at most 16 per SM.
fn row_grid(d: &CudaDevice, rows: usize) -> LaunchConfig {
    let cap = (d.props().multiprocessors * 16).max(1);
    LaunchConfig::linear(rows.clamp(1, cap) as u32, 256)
}

fn cuda<T: Element>(a: &Array<T>) -> &CudaDevice {
    a.device()
        .as_cuda()
        .expect("the CUDA kernels are only called for CUDA arrays")
}

/// Device address of the first element of a CUDA array (any element type).
pub(crate) fn addr<T: Element>(a: &Array<T>) -> u64 {
    a.cuda_view().map(|v| v.ptr).unwrap_or(0)
}

/// Copies the contiguous `src` into the contiguous `dst` (same size) when given, and sets the
/// device `i32` at `flag` to 1 when any element of `src` is not finite.
pub(crate) fn finite_copy<T: Scalar>(
    src: &Array<T>,
    dst: Option<&Array<T>>,
    flag: u64,
) -> Result<()> {
    let n = src.size();
    if n == 0 {
        return Ok(());
    }
    debug_assert!(src.is_contiguous());
    let d = cuda(src);
    let f = func::<T>(d, "la_finite_copy")?;
    let mut args = Args::new();
    args.push(addr(src))
        .push(dst.map(addr).unwrap_or(0))
        .push(n as i64)
        .push(flag);
    f.launch(d, grid(d, n), &mut args)
}

/// A contiguous copy of `a` that the caller may overwrite, and a device flag set by the copy when
/// any element is not finite (the copy and the check are one pass when `a` is contiguous). The
/// flag is the first element of `status` (an `i32` array of the caller, zeroed).
pub(crate) fn checked_copy<T: Scalar>(a: &Array<T>, status: &Array<i32>) -> Result<Array<T>> {
    if a.is_contiguous() {
        let out = Array::<T>::empty(a.shape(), a.device())?;
        finite_copy(a, Some(&out), addr(status))?;
        Ok(out)
    } else {
        let out = a.copy()?;
        finite_copy(&out, None, addr(status))?;
        Ok(out)
    }
}

/// Zeroes in place the part of every row-major `rows x cols` matrix of the contiguous `a` outside
/// the triangle (`keep_lower`: `j - i <= k` kept, else `j - i >= k`). `a` must own its storage.
pub(crate) fn tri_zero<T: Scalar>(a: &Array<T>, keep_lower: bool, k: isize) -> Result<()> {
    let nd = a.ndim();
    let (rows, cols) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let total = a.size();
    if total == 0 {
        return Ok(());
    }
    debug_assert!(a.is_contiguous());
    let d = cuda(a);
    let f = func::<T>(d, "la_tri_zero")?;
    let mut args = Args::new();
    let nrows = total / cols;
    args.push(addr(a))
        .push(rows as i64)
        .push(cols as i64)
        .push((total / (rows * cols)) as i64)
        .push(keep_lower as i32)
        .push(k as i64);
    f.launch(d, row_grid(d, nrows), &mut args)
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
        return tile_copy(&a.copy()?, mode, k, conj);
    };
    let out = Array::<T>::empty(a.shape(), a.device())?;
    if out.size() == 0 {
        return Ok(out);
    }
    let (gx, gy) = (cols.div_ceil(32), rows.div_ceil(32));
    if gy > 65535 || gx > u32::MAX as usize {
        // too many tile rows for the grid: the generic copy, then the triangle in place
        let c = if conj { a.conj()? } else { a.copy()? };
        if mode != 0 {
            tri_zero(&c, mode == 1, k)?;
        }
        return Ok(c);
    }
    let d = cuda(a);
    let f = func::<T>(d, "la_tile_copy")?;
    let cfg = LaunchConfig {
        grid: (gx as u32, gy as u32, count.clamp(1, 65535) as u32),
        block: (32, 8, 1),
        shared_mem_bytes: 0,
    };
    let mut args = Args::new();
    args.push(addr(a))
        .push(addr(&out))
        .push(rows as i64)
        .push(cols as i64)
        .push(count as i64)
        .push(sb as i64)
        .push(si as i64)
        .push(sj as i64)
        .push(mode)
        .push(k as i64)
        .push(conj as i32);
    f.launch(d, cfg, &mut args)?;
    Ok(out)
}

/// `count` identity matrices `n x n` (shape `[count, n, n]`) on `dev`, written by one kernel.
pub(crate) fn eye_batch<T: Scalar>(n: usize, count: usize, dev: &Device) -> Result<Array<T>> {
    let out = Array::<T>::empty(&[count, n, n], dev)?;
    let total = out.size();
    if total == 0 {
        return Ok(out);
    }
    let d = cuda(&out);
    let f = func::<T>(d, "la_eye")?;
    let mut args = Args::new();
    args.push(addr(&out)).push(n as i64).push(count as i64);
    f.launch(d, row_grid(d, n * count), &mut args)?;
    Ok(out)
}

/// The diagonals of the square matrices of `a` (any strides; shape `(..., n)`), and, when
/// `find_zero`, the first exact zero on them as `(matrix, position)` (reading it back
/// synchronises).
#[allow(clippy::type_complexity)]
pub(crate) fn diagonal<T: Scalar>(
    a: &Array<T>,
    want: bool,
    find_zero: bool,
) -> Result<(Option<Array<T>>, Option<(usize, usize)>)> {
    let nd = a.ndim();
    let n = a.shape()[nd - 1];
    let batch = &a.shape()[..nd - 2];
    let Some((count, sb)) = batch_stride(batch, &a.strides()[..nd - 2]) else {
        return diagonal(&a.copy()?, want, find_zero);
    };
    let mut shape = batch.to_vec();
    shape.push(n);
    let out = if want {
        Some(Array::<T>::empty(&shape, a.device())?)
    } else {
        None
    };
    if count * n == 0 {
        return Ok((out, None));
    }
    let first = if find_zero {
        Some(Array::<i64>::zeros(&[1], a.device())?)
    } else {
        None
    };
    let d = cuda(a);
    let f = func::<T>(d, "la_diag")?;
    let mut args = Args::new();
    args.push(addr(a))
        .push(out.as_ref().map(addr).unwrap_or(0))
        .push(n as i64)
        .push(count as i64)
        .push(sb as i64)
        .push(a.strides()[nd - 2] as i64)
        .push(a.strides()[nd - 1] as i64)
        .push(first.as_ref().map(addr).unwrap_or(0));
    f.launch(d, grid(d, count * n), &mut args)?;
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
    a: &Array<T>,
    b: Option<&Array<T>>,
    count: usize,
    n: usize,
    k: usize,
) -> Result<(Array<T>, SmallStatus)> {
    debug_assert!((1..=SMALL_MAX_N).contains(&n) && a.is_contiguous());
    let dev = a.device();
    let x = Array::<T>::empty(&[count, n, k], dev)?;
    let status = Array::<i64>::zeros(&[2], dev)?;
    let w = n.next_power_of_two();
    let d = cuda(a);
    let key = format!("cusci-linalg/small_solve|{}|{w}", T::DTYPE.tag());
    let f = d.function(
        &key,
        || small_solve_source(T::DTYPE, w),
        &[],
        "la_small_solve",
    )?;
    let threads = 128usize;
    let lanes = count * w; // one lane per row slot
    let blocks = lanes.div_ceil(threads).clamp(1, (u32::MAX / 2) as usize);
    let mut args = Args::new();
    args.push(addr(a))
        .push(b.map(addr).unwrap_or(0))
        .push(addr(&x))
        .push(count as i64)
        .push(n as i32)
        .push(k as i32)
        .push(b.is_none() as i32)
        .push(addr(&status));
    f.launch(
        d,
        LaunchConfig::linear(blocks as u32, threads as u32),
        &mut args,
    )?;
    let st = status.to_vec()?;
    Ok((
        x,
        SmallStatus {
            nonfinite: st[1] != 0,
            singular: decode_key(st[0]),
        },
    ))
}
