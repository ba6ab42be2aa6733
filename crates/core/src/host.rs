//! Fallible host allocation: every CPU buffer whose size comes from the user is allocated here.
//!
//! A request the host cannot meet is `Error::OutOfMemory { requested, free }`, as on a GPU, and
//! never an abort ("memory allocation of N bytes failed"). Sizes are checked first
//! ([`checked_bytes`](crate::array::layout::checked_bytes): a byte count past `isize::MAX` is
//! `InvalidArgument`, as NumPy's "array is too big"). A request of at least [`LARGE_REQUEST`]
//! bytes is then compared with the memory the host can still give ([`available`]: Linux's
//! `MemAvailable` plus free swap), because with overcommit an allocation that succeeds may be
//! killed later when its pages are touched; a request past that is `OutOfMemory` at once. What
//! remains goes through `Vec::try_reserve_exact`, whose failure is `OutOfMemory` too.
//!
//! `free` in the error is [`available`] (0 where the host does not say, e.g. outside Linux).
//!
//! ```
//! use cusci_core::{host, Error};
//! let v: Vec<f64> = host::try_vec_zeroed("example", 4).unwrap();
//! assert_eq!(v, vec![0.0; 4]);
//! // 2^40 f64 (8 TiB): an error, not an abort
//! let e = host::try_vec_zeroed::<f64>("example", 1 << 40).unwrap_err();
//! assert!(matches!(e, Error::OutOfMemory { requested, .. } if requested == 8 << 40));
//! // a byte count past isize::MAX: too big for any address space
//! let e = host::try_vec_zeroed::<f64>("example", 1 << 61).unwrap_err();
//! assert!(matches!(e, Error::InvalidArgument { .. }));
//! ```

use crate::array::layout::checked_bytes;
use crate::dtype::Element;
use crate::error::{Error, Result};

/// Requests of at least this many bytes are compared with [`available`] before allocating.
pub const LARGE_REQUEST: usize = 64 << 20;

/// Bytes the host can still give: `MemAvailable + SwapFree` from `/proc/meminfo`, or `None`
/// where that file is missing or unreadable.
pub fn available() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(name))?;
        let kib: u64 = line[name.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        kib.checked_mul(1024)
    };
    let avail = field("MemAvailable:")?;
    let swap = field("SwapFree:").unwrap_or(0);
    usize::try_from(avail.saturating_add(swap)).ok()
}

fn out_of_memory(requested: usize) -> Error {
    Error::OutOfMemory {
        requested,
        free: available().unwrap_or(0),
    }
}

/// Checks that `bytes` can be allocated on the host now: `OutOfMemory` when a large request
/// exceeds [`available`] (small ones are left to the allocator).
///
/// # Errors
/// `OutOfMemory { requested: bytes, free }`.
pub fn check_request(bytes: usize) -> Result<()> {
    if bytes >= LARGE_REQUEST {
        if let Some(free) = available() {
            if bytes > free {
                return Err(Error::OutOfMemory {
                    requested: bytes,
                    free,
                });
            }
        }
    }
    Ok(())
}

/// An empty vector with room for exactly `n` elements of `T`.
///
/// # Errors
/// `InvalidArgument` when `n` elements of `T` exceed `isize::MAX` bytes; `OutOfMemory` when the
/// host cannot give them.
pub fn try_with_capacity<T>(op: &str, n: usize) -> Result<Vec<T>> {
    let bytes = checked_bytes(op, n, std::mem::size_of::<T>())?;
    check_request(bytes)?;
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| out_of_memory(bytes))?;
    Ok(v)
}

/// `n` zeros of `T` (fresh zeroed pages for large requests, as `vec![0; n]`).
///
/// # Errors
/// As [`try_with_capacity`].
pub fn try_vec_zeroed<T: Element>(op: &str, n: usize) -> Result<Vec<T>> {
    let bytes = checked_bytes(op, n, std::mem::size_of::<T>())?;
    check_request(bytes)?;
    if bytes == 0 || !zero_is_all_zero_bits::<T>() {
        return try_vec_filled(op, n, T::zero());
    }
    let layout = std::alloc::Layout::array::<T>(n).map_err(|_| {
        crate::error::make::arg(op, format!("{n} elements of {} are too many", T::DTYPE))
    })?;
    // SAFETY: `layout` has a non-zero size (bytes > 0 above). The memory is zeroed, and an
    // all-zero bit pattern is a valid `T` equal to `T::zero()` (checked just above; every element
    // type is plain data). The pointer comes from the global allocator with exactly the layout of
    // `n` elements of `T`, so `Vec::from_raw_parts` with length and capacity `n` may own it.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout) as *mut T;
        if p.is_null() {
            return Err(out_of_memory(bytes));
        }
        Ok(Vec::from_raw_parts(p, n, n))
    }
}

/// `n` copies of `v`.
///
/// # Errors
/// As [`try_with_capacity`].
pub fn try_vec_filled<T: Clone>(op: &str, n: usize, v: T) -> Result<Vec<T>> {
    let mut out = try_with_capacity(op, n)?;
    out.resize(n, v);
    Ok(out)
}

/// A copy of `s` in a vector of its own.
///
/// # Errors
/// `OutOfMemory` when the host cannot give the copy.
pub fn try_to_vec<T: Clone>(op: &str, s: &[T]) -> Result<Vec<T>> {
    let mut out = try_with_capacity(op, s.len())?;
    out.extend_from_slice(s);
    Ok(out)
}

/// The items of an iterator of known length `n` collected into a vector allocated up front
/// (the iterator must yield at most `n` items; more would grow the vector infallibly).
///
/// # Errors
/// As [`try_with_capacity`].
pub fn try_collect<T>(op: &str, n: usize, it: impl IntoIterator<Item = T>) -> Result<Vec<T>> {
    let mut out = try_with_capacity(op, n)?;
    out.extend(it.into_iter().take(n));
    Ok(out)
}

/// True when `T::zero()` is stored as all-zero bytes (so that zeroed memory holds zeros).
fn zero_is_all_zero_bits<T: Element>() -> bool {
    let z = T::zero();
    // SAFETY: T is plain data (sealed Element types: floats, complex floats, integers, bool);
    // reading its bytes is sound.
    let b = unsafe {
        std::slice::from_raw_parts(&z as *const T as *const u8, std::mem::size_of::<T>())
    };
    b.iter().all(|&x| x == 0)
}
