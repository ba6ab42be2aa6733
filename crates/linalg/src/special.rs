//! Special matrices (SciPy's `linalg.toeplitz`, `circulant`, `hankel`, `hadamard`, `companion`,
//! `helmert`, `hilbert`, `leslie`, `dft`, `fiedler`, `convolution_matrix`, `block_diag`,
//! `bandwidth`). The constructors build the matrix from small host inputs and place it on `dev`
//! (one upload); `block_diag` and `bandwidth` read their arrays back (they synchronise).

use crate::Scalar;
use cusci_core::error::make;
use cusci_core::{c64, Array, Device, Result};

/// `n · n` for an `n x n` matrix of `T` built on the host: `InvalidArgument` when the count or
/// its bytes overflow, `OutOfMemory` when the host cannot hold it (checked before allocating).
fn square<T: Scalar>(op: &str, n: usize) -> Result<usize> {
    let nn = cusci_core::array::layout::checked_numel(op, &[n, n])?;
    cusci_core::host::check_request(cusci_core::array::layout::checked_bytes(
        op,
        nn,
        std::mem::size_of::<T>(),
    )?)?;
    Ok(nn)
}

fn t<T: Scalar>(v: f64) -> T {
    T::from_c64(c64::new(v, 0.0))
}

/// Toeplitz matrix with first column `c` and first row `r` (default `conj(c)`; `r[0]` is ignored).
///
/// ```
/// use cusci_linalg::{toeplitz, Device};
/// let m = toeplitz(&[1.0f64, 2.0, 3.0], Some(&[1.0, 4.0]), &Device::Cpu)?;
/// assert_eq!(m.to_vec()?, vec![1.0, 4.0, 2.0, 1.0, 3.0, 2.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn toeplitz<T: Scalar>(c: &[T], r: Option<&[T]>, dev: &Device) -> Result<Array<T>> {
    let rr: Vec<T> = match r {
        Some(r) => r.to_vec(),
        None => c.iter().map(|v| v.conj()).collect(),
    };
    let (m, n) = (c.len(), rr.len());
    let mut v = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            v.push(if i >= j { c[i - j] } else { rr[j - i] });
        }
    }
    Array::from_vec(v, &[m, n], dev)
}

/// Circulant matrix whose first column is `c`.
///
/// ```
/// use cusci_linalg::{circulant, Device};
/// assert_eq!(circulant(&[1.0f64, 2.0, 3.0], &Device::Cpu)?.to_vec()?, vec![1.0, 3.0, 2.0, 2.0, 1.0, 3.0, 3.0, 2.0, 1.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn circulant<T: Scalar>(c: &[T], dev: &Device) -> Result<Array<T>> {
    let n = c.len();
    let v: Vec<T> = (0..square::<T>("circulant", n)?)
        .map(|k| c[(k / n + n - k % n) % n])
        .collect();
    Array::from_vec(v, &[n, n], dev)
}

/// Hankel matrix with first column `c` and last row `r` (default zeros; `r[0]` is ignored).
///
/// ```
/// use cusci_linalg::{hankel, Device};
/// assert_eq!(hankel(&[1.0f64, 2.0], None, &Device::Cpu)?.to_vec()?, vec![1.0, 2.0, 2.0, 0.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn hankel<T: Scalar>(c: &[T], r: Option<&[T]>, dev: &Device) -> Result<Array<T>> {
    let rr: Vec<T> = match r {
        Some(r) => r.to_vec(),
        None => vec![T::zero(); c.len()],
    };
    let (m, n) = (c.len(), rr.len());
    let mut v = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let k = i + j;
            v.push(if k < m { c[k] } else { rr[k - m + 1] });
        }
    }
    Array::from_vec(v, &[m, n], dev)
}

/// Sylvester's Hadamard matrix of order `n` (a power of 2).
///
/// # Errors
/// `InvalidArgument` unless `n` is a power of 2.
///
/// ```
/// use cusci_linalg::{hadamard, Device};
/// assert_eq!(hadamard::<f64>(2, &Device::Cpu)?.to_vec()?, vec![1.0, 1.0, 1.0, -1.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn hadamard<T: Scalar>(n: usize, dev: &Device) -> Result<Array<T>> {
    if !n.is_power_of_two() {
        return Err(make::arg(
            "hadamard",
            format!("n must be a positive power of 2, got {n}"),
        ));
    }
    let v: Vec<T> = (0..square::<T>("hadamard", n)?)
        .map(|k| {
            if ((k / n) & (k % n)).count_ones() % 2 == 0 {
                T::one()
            } else {
                -T::one()
            }
        })
        .collect();
    Array::from_vec(v, &[n, n], dev)
}

/// Companion matrix of the polynomial with coefficients `a` (highest degree first): first row
/// `-a[1..] / a[0]`, ones below the diagonal.
///
/// # Errors
/// `InvalidArgument` when `a` has fewer than 2 coefficients or `a[0]` is 0.
///
/// ```
/// use cusci_linalg::{companion, Device};
/// assert_eq!(companion(&[1.0f64, -3.0, 2.0], &Device::Cpu)?.to_vec()?, vec![3.0, -2.0, 1.0, 0.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn companion<T: Scalar>(a: &[T], dev: &Device) -> Result<Array<T>> {
    if a.len() < 2 {
        return Err(make::arg(
            "companion",
            "at least two coefficients are needed",
        ));
    }
    if a[0] == T::zero() {
        return Err(make::arg(
            "companion",
            "the first coefficient must not be zero",
        ));
    }
    let n = a.len() - 1;
    let mut v = vec![T::zero(); square::<T>("companion", n)?];
    for j in 0..n {
        v[j] = -(a[j + 1] / a[0]);
    }
    for i in 1..n {
        v[i * n + i - 1] = T::one();
    }
    Array::from_vec(v, &[n, n], dev)
}

/// Helmert matrix of order `n`: `(n-1) x n`, or `n x n` with the constant first row when `full`.
///
/// ```
/// use cusci_linalg::{helmert, Device};
/// let h = helmert::<f64>(2, true, &Device::Cpu)?.to_vec()?;
/// assert!((h[0] - 0.5f64.sqrt()).abs() < 1e-15 && (h[3] + 0.5f64.sqrt()).abs() < 1e-15);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn helmert<T: Scalar>(n: usize, full: bool, dev: &Device) -> Result<Array<T>> {
    let mut v = vec![T::zero(); square::<T>("helmert", n)?];
    for x in v.iter_mut().take(n) {
        *x = t((1.0 / n as f64).sqrt());
    }
    for i in 1..n {
        let d = ((i * (i + 1)) as f64).sqrt();
        for j in 0..i {
            v[i * n + j] = t(1.0 / d);
        }
        v[i * n + i] = t(-(i as f64) / d);
    }
    if full {
        Array::from_vec(v, &[n, n], dev)
    } else {
        Array::from_vec(v[n.min(v.len())..].to_vec(), &[n.saturating_sub(1), n], dev)
    }
}

/// Hilbert matrix of order `n`: `1 / (i + j + 1)`.
///
/// ```
/// use cusci_linalg::{hilbert, Device};
/// assert_eq!(hilbert::<f64>(2, &Device::Cpu)?.to_vec()?, vec![1.0, 0.5, 0.5, 1.0 / 3.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn hilbert<T: Scalar>(n: usize, dev: &Device) -> Result<Array<T>> {
    let v: Vec<T> = (0..square::<T>("hilbert", n)?)
        .map(|k| t(1.0 / ((k / n + k % n + 1) as f64)))
        .collect();
    Array::from_vec(v, &[n, n], dev)
}

/// Leslie matrix: fecundities `f` (first row, length `n`) and survival rates `s` (subdiagonal,
/// length `n - 1`).
///
/// # Errors
/// `ShapeMismatch` unless `s.len() + 1 == f.len()`; `InvalidArgument` for an empty `f`.
///
/// ```
/// use cusci_linalg::{leslie, Device};
/// assert_eq!(leslie(&[0.5f64, 2.0], &[0.8], &Device::Cpu)?.to_vec()?, vec![0.5, 2.0, 0.8, 0.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn leslie<T: Scalar>(f: &[T], s: &[T], dev: &Device) -> Result<Array<T>> {
    let n = f.len();
    if n == 0 {
        return Err(make::arg("leslie", "f must not be empty"));
    }
    if s.len() + 1 != n {
        return Err(make::shape(
            "leslie",
            format!("len(s) must be len(f) - 1: {} and {n}", s.len()),
        ));
    }
    let mut v = vec![T::zero(); square::<T>("leslie", n)?];
    v[..n].copy_from_slice(f);
    for i in 1..n {
        v[i * n + i - 1] = s[i - 1];
    }
    Array::from_vec(v, &[n, n], dev)
}

/// Scaling of [`dft`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DftScale {
    /// No scaling (SciPy's `None`).
    #[default]
    None,
    /// Divide by `n`.
    N,
    /// Divide by `sqrt(n)` (unitary).
    SqrtN,
}

/// The `n`-point DFT matrix `m[j, k] = exp(-2πi·jk/n)` (complex types only).
///
/// # Errors
/// `UnsupportedDType` for a real `T`.
///
/// ```
/// use cusci_linalg::{dft, DftScale, c64, Device};
/// let m = dft::<c64>(2, DftScale::None, &Device::Cpu)?.to_vec()?;
/// assert!((m[3] - c64::new(-1.0, 0.0)).norm() < 1e-15);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn dft<T: Scalar>(n: usize, scale: DftScale, dev: &Device) -> Result<Array<T>> {
    if !T::DTYPE.is_complex() {
        return Err(make::dtype("dft", T::DTYPE));
    }
    let sc = match scale {
        DftScale::None => 1.0,
        DftScale::N => 1.0 / n as f64,
        DftScale::SqrtN => 1.0 / (n as f64).sqrt(),
    };
    let v: Vec<T> = (0..square::<T>("dft", n)?)
        .map(|k| {
            // the exponent reduced modulo n first: exact angles for large j·k
            let e = ((k / n) * (k % n)) % n.max(1);
            let th = -2.0 * std::f64::consts::PI * e as f64 / n as f64;
            T::from_c64(c64::new(th.cos() * sc, th.sin() * sc))
        })
        .collect();
    Array::from_vec(v, &[n, n], dev)
}

/// Fiedler matrix: `|a[i] - a[j]|`.
///
/// ```
/// use cusci_linalg::{fiedler, Device};
/// assert_eq!(fiedler(&[1.0f64, 4.0], &Device::Cpu)?.to_vec()?, vec![0.0, 3.0, 3.0, 0.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn fiedler<T: Scalar>(a: &[T], dev: &Device) -> Result<Array<T>> {
    let n = a.len();
    let v: Vec<T> = (0..square::<T>("fiedler", n)?)
        .map(|k| T::from_real((a[k / n] - a[k % n]).abs()))
        .collect();
    Array::from_vec(v, &[n, n], dev)
}

/// Fiedler companion matrix of the polynomial with coefficients `a` (highest degree first), a
/// pentadiagonal matrix with the polynomial's roots as eigenvalues (SciPy's
/// `linalg.fiedler_companion`). Fewer than two coefficients give a `0 x 0` matrix (SciPy returns
/// an empty 1-D array).
///
/// # Errors
/// `InvalidArgument` when `a[0]` is 0.
///
/// ```
/// use cusci_linalg::{fiedler_companion, Device};
/// let c = fiedler_companion(&[1.0f64, -3.0, 2.0], &Device::Cpu)?.to_vec()?;
/// assert_eq!(c, vec![3.0, -2.0, 1.0, 0.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn fiedler_companion<T: Scalar>(a: &[T], dev: &Device) -> Result<Array<T>> {
    let op = "fiedler_companion";
    if a.len() < 2 {
        return Array::zeros(&[0, 0], dev);
    }
    if a[0] == T::zero() {
        return Err(make::arg(op, "the leading coefficient must not be zero"));
    }
    let a: Vec<T> = a.iter().map(|&v| v / a[0]).collect();
    let n = a.len() - 1;
    let mut c = vec![T::zero(); square::<T>("fiedler_companion", n)?];
    if n == 1 {
        c[0] = -a[1];
        return Array::from_vec(c, &[1, 1], dev);
    }
    // sub-diagonals: c[3::2, 1::2] ones on the second, -a[3::2] on the first
    for (i, j) in (3..n).step_by(2).zip((1..n.saturating_sub(2)).step_by(2)) {
        c[i * n + j] = T::one();
    }
    for ((i, j), &v) in (2..n)
        .step_by(2)
        .zip((1..n - 1).step_by(2))
        .zip(a.iter().skip(3).step_by(2))
    {
        c[i * n + j] = -v;
    }
    // super-diagonals
    for (i, j) in (0..n.saturating_sub(2)).step_by(2).zip((2..n).step_by(2)) {
        c[i * n + j] = T::one();
    }
    for ((i, j), &v) in (0..n - 1)
        .step_by(2)
        .zip((1..n).step_by(2))
        .zip(a.iter().skip(2).step_by(2))
    {
        c[i * n + j] = -v;
    }
    c[0] = -a[1];
    c[n] = T::one();
    Array::from_vec(c, &[n, n], dev)
}

/// Mode of [`convolution_matrix`] (as `numpy.convolve`'s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConvMode {
    /// `len(a) + n - 1` rows.
    #[default]
    Full,
    /// `max(len(a), n) - min(len(a), n) + 1` rows.
    Valid,
    /// `max(n, len(a))` rows, centred.
    Same,
}

/// The matrix `A` with `A @ v == numpy.convolve(a, v, mode)` for every `v` of length `n`.
///
/// # Errors
/// `InvalidArgument` for an empty `a` or `n == 0`.
///
/// ```
/// use cusci_linalg::{convolution_matrix, ConvMode, Device};
/// let m = convolution_matrix(&[1.0f64, 2.0], 2, ConvMode::Full, &Device::Cpu)?;
/// assert_eq!(m.to_vec()?, vec![1.0, 0.0, 2.0, 1.0, 0.0, 2.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn convolution_matrix<T: Scalar>(
    a: &[T],
    n: usize,
    mode: ConvMode,
    dev: &Device,
) -> Result<Array<T>> {
    let op = "convolution_matrix";
    if a.is_empty() || n == 0 {
        return Err(make::arg(op, "a must be non-empty and n positive"));
    }
    let m = a.len();
    let full_rows = m + n - 1;
    let (start, rows) = match mode {
        ConvMode::Full => (0, full_rows),
        ConvMode::Valid => (m.min(n) - 1, m.max(n) - m.min(n) + 1),
        ConvMode::Same => {
            let r = m.max(n);
            ((full_rows - r) / 2, r)
        }
    };
    let mut v = vec![T::zero(); rows * n];
    for r in 0..rows {
        let i = r + start;
        for j in 0..n {
            if i >= j && i - j < m {
                v[r * n + j] = a[i - j];
            }
        }
    }
    Array::from_vec(v, &[rows, n], dev)
}

/// Block-diagonal matrix of 2-D blocks (1-D blocks are rows), on the first block's device;
/// synchronises (the blocks are read back). No blocks give a `1 x 0` matrix, as SciPy.
///
/// # Errors
/// `InvalidArgument` for a block of more than 2 dimensions; `DeviceMismatch`.
///
/// ```
/// use cusci_linalg::{block_diag, Array, Device};
/// let a = Array::from_vec(vec![1.0], &[1, 1], &Device::Cpu)?;
/// let b = Array::from_vec(vec![2.0f64, 3.0], &[1, 2], &Device::Cpu)?;
/// assert_eq!(block_diag(&[&a, &b])?.to_vec()?, vec![1.0, 0.0, 0.0, 0.0, 2.0, 3.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn block_diag<T: Scalar>(blocks: &[&Array<T>]) -> Result<Array<T>> {
    let op = "block_diag";
    let Some(first) = blocks.first() else {
        return Array::zeros(&[1, 0], &Device::Cpu);
    };
    let mut dims = Vec::new();
    for b in blocks {
        cusci_core::array::check_same_device(op, first.device(), b.device())?;
        dims.push(match b.ndim() {
            0 => (1, 1),
            1 => (1, b.shape()[0]),
            2 => (b.shape()[0], b.shape()[1]),
            _ => return Err(make::arg(op, "blocks must have at most 2 dimensions")),
        });
    }
    let (m, n) = dims.iter().fold((0, 0), |(a, b), (r, c)| (a + r, b + c));
    let mut v = vec![T::zero(); m * n];
    let (mut r0, mut c0) = (0, 0);
    for (b, &(r, c)) in blocks.iter().zip(&dims) {
        let data = b.to_vec()?;
        for i in 0..r {
            v[(r0 + i) * n + c0..(r0 + i) * n + c0 + c].copy_from_slice(&data[i * c..(i + 1) * c]);
        }
        r0 += r;
        c0 += c;
    }
    Array::from_vec(v, &[m, n], first.device())
}

/// Lower and upper bandwidth of a 2-D array (SciPy's `linalg.bandwidth`): the largest `i - j`
/// and `j - i` with a non-zero `a[i, j]`. Host values; synchronises.
///
/// # Errors
/// `InvalidArgument` unless `a` is 2-D.
///
/// ```
/// use cusci_linalg::{bandwidth, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 2.0, 0.0, 3.0], &[2, 2], &Device::Cpu)?;
/// assert_eq!(bandwidth(&a)?, (0, 1));
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn bandwidth<T: Scalar>(a: &Array<T>) -> Result<(usize, usize)> {
    if a.ndim() != 2 {
        return Err(make::arg("bandwidth", "a must be 2-D"));
    }
    let (m, n) = (a.shape()[0], a.shape()[1]);
    let v = a.to_vec()?;
    let (mut lo, mut up) = (0, 0);
    for i in 0..m {
        for j in 0..n {
            if v[i * n + j] != T::zero() {
                if i > j {
                    lo = lo.max(i - j);
                } else {
                    up = up.max(j - i);
                }
            }
        }
    }
    Ok((lo, up))
}

/// Which Pascal matrix [`pascal`] and [`invpascal`] build (SciPy's `kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PascalKind {
    /// `P[i, j] = C(i + j, i)` (SciPy's default).
    #[default]
    Symmetric,
    /// `L[i, j] = C(i, j)` for `j ≤ i`.
    Lower,
    /// `Lᵀ`.
    Upper,
}

/// The `n x n` values of `f(i, j)` as `T`, or `InvalidArgument` when one does not fit `T`.
fn from_f64_table<T: Scalar>(op: &str, n: usize, v: Vec<f64>, dev: &Device) -> Result<Array<T>> {
    let mut out = Vec::with_capacity(v.len());
    for x in v {
        let y = T::from_c64(c64::new(x, 0.0));
        if !x.is_finite() || !y.to_c64().re.is_finite() {
            return Err(make::arg(
                op,
                format!("n = {n} is too large: the entries overflow the element type"),
            ));
        }
        out.push(y);
    }
    Array::from_vec(out, &[n, n], dev)
}

fn checked_square(op: &str, n: usize) -> Result<usize> {
    square::<f64>(op, n)
}

/// Pascal's triangle rows `0..rows` as f64: exact integers while they fit a u128, then continued
/// in f64 (each entry a sum of two rounded values: relative error below `row · ε`).
/// `visit(row, values)` sees each row.
fn pascal_rows(rows: usize, mut visit: impl FnMut(usize, &[f64])) {
    let mut exact: Option<Vec<u128>> = Some(vec![1]);
    let mut approx: Vec<f64> = vec![1.0];
    for r in 0..rows {
        if let Some(e) = &exact {
            approx = e.iter().map(|&v| v as f64).collect();
        }
        visit(r, &approx);
        // next row
        if let Some(e) = &exact {
            let mut next = Vec::with_capacity(e.len() + 1);
            next.push(1u128);
            let mut ok = true;
            for w in e.windows(2) {
                match w[0].checked_add(w[1]) {
                    Some(v) => next.push(v),
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            next.push(1);
            exact = if ok { Some(next) } else { None };
        }
        if exact.is_none() {
            let mut next = Vec::with_capacity(approx.len() + 1);
            next.push(1.0);
            next.extend(approx.windows(2).map(|w| w[0] + w[1]));
            next.push(1.0);
            approx = next;
        }
    }
}

/// The `n x n` Pascal matrix (SciPy's `linalg.pascal(n, kind, exact=False)`): binomial
/// coefficients, symmetric `C(i + j, i)`, lower `C(i, j)` or upper.
///
/// SciPy's default `exact=True` returns integers (`uint64`, or Python integers from `n = 35`);
/// here the entries are computed as exact integers while they fit 128 bits (through Pascal's
/// rule, O(n²)) and rounded once to `T`, so `f64` holds SciPy's exact values up to `2^53` and
/// their correctly rounded values beyond (relative error below `(i + j)·ε` once past 128 bits).
/// Built on the host and placed on `dev` (one upload).
///
/// # Errors
/// `InvalidArgument` when an entry overflows `T` (f32 from about `n = 66`, f64 from about
/// `n = 515` for the symmetric kind) or `n·n` overflows.
///
/// ```
/// use cusci_linalg::{pascal, PascalKind, Device};
/// let p = pascal::<f64>(3, PascalKind::Symmetric, &Device::Cpu)?;
/// assert_eq!(p.to_vec()?, vec![1.0, 1.0, 1.0, 1.0, 2.0, 3.0, 1.0, 3.0, 6.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn pascal<T: Scalar>(n: usize, kind: PascalKind, dev: &Device) -> Result<Array<T>> {
    let op = "pascal";
    let mut v = vec![0.0f64; checked_square(op, n)?];
    match kind {
        PascalKind::Symmetric => pascal_rows((2 * n).saturating_sub(1), |r, row| {
            for i in r.saturating_sub(n - 1)..=r.min(n - 1) {
                v[i * n + (r - i)] = row[i];
            }
        }),
        PascalKind::Lower | PascalKind::Upper => pascal_rows(n, |r, row| {
            for (j, &x) in row.iter().enumerate() {
                let at = if kind == PascalKind::Lower {
                    r * n + j
                } else {
                    j * n + r
                };
                v[at] = x;
            }
        }),
    }
    from_f64_table(op, n, v, dev)
}

/// The inverse of the `n x n` Pascal matrix (SciPy's `linalg.invpascal(n, kind, exact=False)`):
/// for `Lower`/`Upper`, `(-1)^(i-j) C(i, j)`; for `Symmetric`,
/// `(-1)^(i+j) Σ_{k ≥ max(i, j)} C(k, i) C(k, j)` (`P⁻¹ = L⁻ᵀ L⁻¹`).
///
/// The sums are exact 128-bit integers while they fit, else f64 sums of positive terms (relative
/// error below `n·ε`); each entry is rounded once to `T`. SciPy's `exact=True` integers equal
/// these values wherever `T` represents them. The symmetric kind costs O(n³) on the host; the
/// matrix is placed on `dev` (one upload).
///
/// # Errors
/// `InvalidArgument` when an entry overflows `T` or `n·n` overflows.
///
/// ```
/// use cusci_linalg::{invpascal, PascalKind, Device};
/// let p = invpascal::<f64>(3, PascalKind::Symmetric, &Device::Cpu)?;
/// assert_eq!(p.to_vec()?, vec![3.0, -3.0, 1.0, -3.0, 5.0, -2.0, 1.0, -2.0, 1.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn invpascal<T: Scalar>(n: usize, kind: PascalKind, dev: &Device) -> Result<Array<T>> {
    let op = "invpascal";
    let nn = checked_square(op, n)?;
    let sign = |i: usize, j: usize| if (i + j) % 2 == 0 { 1.0 } else { -1.0 };
    let mut v = vec![0.0f64; nn];
    if kind != PascalKind::Symmetric {
        pascal_rows(n, |r, row| {
            for (j, &x) in row.iter().enumerate() {
                let at = if kind == PascalKind::Lower {
                    r * n + j
                } else {
                    j * n + r
                };
                v[at] = sign(r, j) * x;
            }
        });
        return from_f64_table(op, n, v, dev);
    }
    // lower Pascal table C(k, i), k < n: exact u128 when every entry fits
    let mut exact: Vec<Option<u128>> = vec![Some(0); nn];
    let mut approx = vec![0.0f64; nn];
    let mut prev: Vec<Option<u128>> = Vec::new();
    for k in 0..n {
        let mut row = vec![Some(1u128); k + 1];
        for i in 1..k {
            row[i] = match (prev[i - 1], prev[i]) {
                (Some(a), Some(b)) => a.checked_add(b),
                _ => None,
            };
        }
        for i in 0..=k {
            exact[k * n + i] = row[i];
            approx[k * n + i] = match row[i] {
                Some(x) => x as f64,
                None => approx[(k - 1) * n + i - 1] + approx[(k - 1) * n + i],
            };
        }
        prev = row;
    }
    for i in 0..n {
        for j in 0..=i {
            let mut sum: Option<u128> = Some(0);
            let mut fsum = 0.0f64;
            for k in i..n {
                let (a, b) = (exact[k * n + i], exact[k * n + j]);
                sum = match (sum, a, b) {
                    (Some(s), Some(a), Some(b)) => a.checked_mul(b).and_then(|p| s.checked_add(p)),
                    _ => None,
                };
                fsum += approx[k * n + i] * approx[k * n + j];
            }
            let x = sign(i, j) * sum.map(|s| s as f64).unwrap_or(fsum);
            v[i * n + j] = x;
            v[j * n + i] = x;
        }
    }
    from_f64_table(op, n, v, dev)
}

/// `C(a, b)` as an exact 128-bit integer, or `None` when it (or a step of the product) overflows.
fn binom_exact(a: u64, b: u64) -> Option<u128> {
    if b > a {
        return Some(0);
    }
    let b = b.min(a - b);
    let mut r: u128 = 1;
    for t in 1..=b {
        r = r.checked_mul((a - b + t) as u128)? / t as u128;
    }
    Some(r)
}

/// `C(a, b)` in f64 (exact when it fits 128 bits, else a product of rounded ratios).
fn binom_f64(a: u64, b: u64) -> f64 {
    binom_exact(a, b).map(|v| v as f64).unwrap_or_else(|| {
        let b = b.min(a - b);
        (1..=b).fold(1.0, |r, t| r * (a - b + t) as f64 / t as f64)
    })
}

/// The inverse of the `n x n` Hilbert matrix, f64 (SciPy's `linalg.invhilbert(n)`):
/// `(-1)^(i+j) (i+j+1) C(n+i, n-j-1) C(n+j, n-i-1) C(i+j, i)²`.
///
/// Each entry is formed as an exact 128-bit integer when it fits (every entry up to `n = 13`
/// or so) and rounded once to f64, else as a product of the binomials in f64 (relative error a
/// few `ε`); SciPy's default `exact=False` multiplies floating binomials. SciPy's `exact=True`
/// (int64, or Python integers from `n = 15`) has no counterpart here: Rust has no arbitrary
/// precision integer array; compare against its values rounded to f64. Built on the host and
/// placed on `dev`.
///
/// # Errors
/// `InvalidArgument` when an entry overflows f64 or `n·n` overflows.
///
/// ```
/// use cusci_linalg::{invhilbert, Device};
/// assert_eq!(invhilbert(2, &Device::Cpu)?.to_vec()?, vec![4.0, -6.0, -6.0, 12.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn invhilbert(n: usize, dev: &Device) -> Result<Array<f64>> {
    let op = "invhilbert";
    let mut v = vec![0.0f64; checked_square(op, n)?];
    let nu = n as u64;
    for i in 0..nu {
        for j in 0..=i {
            let s = i + j;
            let sign = if s % 2 == 0 { 1.0 } else { -1.0 };
            let exact = (|| {
                let a = binom_exact(nu + i, nu - j - 1)?;
                let b = binom_exact(nu + j, nu - i - 1)?;
                let c = binom_exact(s, i)?;
                ((s + 1) as u128)
                    .checked_mul(a)?
                    .checked_mul(b)?
                    .checked_mul(c)?
                    .checked_mul(c)
            })();
            let x = match exact {
                Some(e) => e as f64,
                None => {
                    let c = binom_f64(s, i);
                    (s + 1) as f64
                        * binom_f64(nu + i, nu - j - 1)
                        * binom_f64(nu + j, nu - i - 1)
                        * c
                        * c
                }
            };
            let (iu, ju) = (i as usize, j as usize);
            v[iu * n + ju] = sign * x;
            v[ju * n + iu] = sign * x;
        }
    }
    from_f64_table(op, n, v, dev)
}
