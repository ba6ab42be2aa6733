//! The helpers of `scipy.fft`: sample frequencies, the zero-frequency shifts and fast lengths.

use crate::cpu;
use cusci_core::array::layout::norm_axis;
use cusci_core::error::make;
use cusci_core::{Array, Backend, Device, Element, RealFloat, Result};

fn check_freq(op: &str, n: usize, d: f64) -> Result<f64> {
    if n == 0 {
        return Err(make::arg(op, "n must be positive"));
    }
    if d == 0.0 {
        return Err(make::arg(op, "the sample spacing d must be non-zero"));
    }
    Ok(1.0 / (n as f64 * d))
}

/// The sample frequencies of [`fft`](crate::fft), `scipy.fft.fftfreq(n, d)`: for a window of
/// `n` samples spaced `d` apart, `[0, 1, ..., (n-1)/2, -(n/2), ..., -1] / (d·n)` (integer
/// divisions), in cycles per unit of `d`. The values are computed in f64 on the host and
/// rounded to `T`; the array is created on `dev` (either device).
///
/// # Errors
/// `InvalidArgument` for `n = 0` or `d = 0` (a division by zero in SciPy).
pub fn fftfreq<T: RealFloat>(n: usize, d: f64, dev: &Device) -> Result<Array<T>> {
    let val = check_freq("fftfreq", n, d)?;
    let half = n.div_ceil(2); // the non-negative terms 0..=(n-1)/2
                              // host memory checked first: a huge n is OutOfMemory, not an abort
    let v: Vec<T> = cusci_core::host::try_collect(
        "fftfreq",
        n,
        (0..n).map(|k| {
            let i = if k < half {
                k as f64
            } else {
                k as f64 - n as f64
            };
            T::from_f64(i * val)
        }),
    )?;
    Array::from_vec(v, &[n], dev)
}

/// The sample frequencies of [`rfft`](crate::rfft), `scipy.fft.rfftfreq(n, d)`:
/// `[0, 1, ..., n/2] / (d·n)`, `n/2+1` values. Computed in f64 on the host, created on `dev`.
///
/// # Errors
/// `InvalidArgument` for `n = 0` or `d = 0`.
pub fn rfftfreq<T: RealFloat>(n: usize, d: f64, dev: &Device) -> Result<Array<T>> {
    let val = check_freq("rfftfreq", n, d)?;
    let m = n / 2 + 1; // n ≥ 1 here: no overflow
    let v: Vec<T> =
        cusci_core::host::try_collect("rfftfreq", m, (0..m).map(|k| T::from_f64(k as f64 * val)))?;
    Array::from_vec(v, &[m], dev)
}

/// The per-dimension shifts of a roll of `axes` (all when `None`) by `len/2` (`inverse`: by
/// `len - len/2`, i.e. back), as `out[j] = x[(j + shift) mod len]`.
fn shifts(op: &str, shape: &[usize], axes: Option<&[isize]>, inverse: bool) -> Result<Vec<usize>> {
    let nd = shape.len();
    // how many times each dimension is rolled (NumPy's roll adds the shifts of a repeated axis)
    let mut count = vec![usize::from(axes.is_none()); nd];
    for &a in axes.unwrap_or(&[]) {
        count[norm_axis(op, a, nd)?] += 1;
    }
    Ok(shape
        .iter()
        .zip(count)
        .map(|(&len, c)| {
            if len == 0 {
                return 0;
            }
            let one = if inverse { len / 2 } else { len - len / 2 };
            (one % len) * (c % len) % len
        })
        .collect())
}

fn shift<T: Element>(
    op: &str,
    x: &Array<T>,
    axes: Option<&[isize]>,
    inverse: bool,
) -> Result<Array<T>> {
    let s = shifts(op, x.shape(), axes, inverse)?;
    match x.backend() {
        Backend::Host(h) => cpu::roll(&h, &s),
        Backend::Cuda(c) => crate::cuda::roll(c.dev(), x, &s),
    }
}

/// The zero-frequency term moved to the centre, `scipy.fft.fftshift(x, axes)`: `x` rolled by
/// `len/2` along each of `axes` (all axes when `None`; an axis listed twice is rolled twice, as NumPy's `roll`).
///
/// # Errors
/// `InvalidArgument` for an axis out of range.
///
/// ```
/// use cusci_fft::{fftfreq, fftshift, Device};
/// let f = fftfreq::<f64>(5, 0.2, &Device::cpu()).unwrap();
/// let s = fftshift(&f, None).unwrap().to_vec().unwrap();
/// assert_eq!(s, vec![-2.0, -1.0, 0.0, 1.0, 2.0]);
/// ```
pub fn fftshift<T: Element>(x: &Array<T>, axes: Option<&[isize]>) -> Result<Array<T>> {
    shift("fftshift", x, axes, false)
}

/// The inverse of [`fftshift`], `scipy.fft.ifftshift(x, axes)`: `x` rolled back by `len/2`
/// along each of `axes` (all when `None`); the same as [`fftshift`] for even lengths.
///
/// # Errors
/// As [`fftshift`].
pub fn ifftshift<T: Element>(x: &Array<T>, axes: Option<&[isize]>) -> Result<Array<T>> {
    shift("ifftshift", x, axes, true)
}

/// The previous fast transform length, `scipy.fft.prev_fast_len(target, real)`: the largest
/// number `<= target` whose prime factors are all at most 11 (complex transforms) or 5
/// (`real = true`: real transforms), as SciPy's pocketfft backend answers. `target = 0` gives 0
/// (as SciPy 1.17); every other `usize` has an answer (at least 1), so this never fails.
///
/// ```
/// use cusci_fft::prev_fast_len;
/// assert_eq!(prev_fast_len(1021, false), 1008); // 2^4 * 3^2 * 7
/// assert_eq!(prev_fast_len(1021, true), 1000); // 2^3 * 5^3
/// ```
pub fn prev_fast_len(target: usize, real: bool) -> usize {
    if target == 0 {
        return 0;
    }
    let odd: &[usize] = if real { &[3, 5] } else { &[3, 5, 7, 11] };
    // every odd smooth p <= target (depth-first, each prime index non-decreasing), times the
    // largest power of two that keeps it <= target
    fn search(p: usize, odd: &[usize], target: usize, best: &mut usize) {
        let twos = (target / p).ilog2();
        *best = (*best).max(p << twos);
        for (i, &q) in odd.iter().enumerate() {
            if let Some(v) = p.checked_mul(q).filter(|&v| v <= target) {
                search(v, &odd[i..], target, best);
            }
        }
    }
    let mut best = 1;
    search(1, odd, target, &mut best);
    best
}

/// The next fast transform length, `scipy.fft.next_fast_len(target, real)`: the smallest
/// number `>= target` whose prime factors are all at most 11 (complex transforms) or 5
/// (`real = true`: real transforms), as SciPy's pocketfft backend answers.
///
/// # Errors
/// `InvalidArgument` when no such number fits in `usize`. `target = 0` gives 0 (as SciPy 1.17).
///
/// ```
/// use cusci_fft::next_fast_len;
/// assert_eq!(next_fast_len(1021, false).unwrap(), 1024);
/// assert_eq!(next_fast_len(93059, true).unwrap(), 93312);
/// ```
pub fn next_fast_len(target: usize, real: bool) -> Result<usize> {
    if target == 0 {
        // SciPy 1.17: next_fast_len(0) == 0
        return Ok(0);
    }
    let primes: &[usize] = if real { &[2, 3, 5] } else { &[2, 3, 5, 7, 11] };
    let mut best: Option<usize> = None;
    // depth-first over products of the primes (each prime index non-decreasing), pruned at
    // the best candidate found so far
    fn search(p: usize, primes: &[usize], target: usize, best: &mut Option<usize>) {
        if p >= target {
            if best.is_none_or(|b| p < b) {
                *best = Some(p);
            }
            return;
        }
        for (i, &q) in primes.iter().enumerate() {
            match p.checked_mul(q) {
                Some(v) if best.is_none_or(|b| v < b) => search(v, &primes[i..], target, best),
                _ => {}
            }
        }
    }
    search(1, primes, target, &mut best);
    best.ok_or_else(|| {
        make::arg(
            "next_fast_len",
            format!("no fast length >= {target} fits in usize"),
        )
    })
}
