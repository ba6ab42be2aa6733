//! Toeplitz and circulant systems (SciPy's `solve_toeplitz`, `matmul_toeplitz`,
//! `solve_circulant`).
//!
//! cusci-linalg does not depend on cusci-fft (the layering keeps them siblings), so the FFTs that
//! SciPy uses become products with the Fourier matrix (`solve_circulant`) or with the Toeplitz
//! matrix itself (`matmul_toeplitz`), both run by [`matmul`] on the array's device. The Levinson
//! recursion of `solve_toeplitz` is sequential and O(n²): it runs on the host for both devices
//! (a documented hybrid on the GPU).

use crate::util::{cat, prod};
use crate::{matmul, Scalar};
use cusci_core::array::layout::{broadcast_shapes, norm_axis};
use cusci_core::error::make;
use cusci_core::{c64, where_, Array, DType, Device, Element, Error, RealFloat, Result};
use rayon::prelude::*;

/// `a` with axis `src` moved to position `dst` (NumPy's `moveaxis`; a view).
pub(crate) fn moveaxis<T: Scalar>(
    op: &str,
    a: &Array<T>,
    src: isize,
    dst: isize,
) -> Result<Array<T>> {
    let nd = a.ndim();
    let s = norm_axis(op, src, nd)?;
    let d = norm_axis(op, dst, nd)?;
    let mut order: Vec<isize> = (0..nd as isize).filter(|&i| i != s as isize).collect();
    order.insert(d, s as isize);
    a.permute(&order)
}

/// The last axis of `c` and `r` (default `conj(c)`): the Toeplitz generators, both at least 1-D.
fn generators<T: Scalar>(
    op: &str,
    c: &Array<T>,
    r: Option<&Array<T>>,
) -> Result<(Array<T>, Array<T>)> {
    let r = match r {
        Some(r) => {
            cusci_core::array::check_same_device(op, c.device(), r.device())?;
            r.clone()
        }
        None => c.conj()?,
    };
    if c.ndim() == 0 || r.ndim() == 0 {
        return Err(make::arg(op, "c and r must have at least 1 dimension"));
    }
    Ok((c.clone(), r))
}

fn last(a: &[usize]) -> usize {
    a[a.len() - 1]
}

/// `(batch shape, core shape)` of a right-hand side: `(n,)` is a vector, `(..., n, k)` a stack of
/// matrices (SciPy's `'1|2'` core dimensions).
fn rhs_split(b: &[usize]) -> (Vec<usize>, Vec<usize>) {
    if b.len() == 1 {
        (Vec::new(), b.to_vec())
    } else {
        (b[..b.len() - 2].to_vec(), b[b.len() - 2..].to_vec())
    }
}

/// The arithmetic of the recursion: f64 for real inputs, complex128 for complex ones (SciPy
/// computes in these types whatever the input precision).
trait Lev:
    Copy
    + Send
    + Sync
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + PartialEq
{
    const ZERO: Self;
    fn of(v: c64) -> Self;
    fn c(self) -> c64;
}

impl Lev for f64 {
    const ZERO: f64 = 0.0;
    fn of(v: c64) -> f64 {
        v.re
    }
    fn c(self) -> c64 {
        c64::new(self, 0.0)
    }
}

impl Lev for c64 {
    const ZERO: c64 = c64::new(0.0, 0.0);
    fn of(v: c64) -> c64 {
        v
    }
    fn c(self) -> c64 {
        self
    }
}

fn minor(op: &str, index: usize) -> Error {
    Error::Singular {
        op: op.into(),
        index,
    }
}

/// Levinson recursion for `T x = b` with `a` = `[r[n-1], ..., r[1], c[0], ..., c[n-1]]`
/// (`2n − 1` values), SciPy's `levinson` step for step (the same divisions, the same exact-zero
/// tests, so the same "singular principal minor" failures; `Singular { index }` names the order
/// of the failing minor).
fn levinson<F: Lev>(op: &str, a: &[F], b: &[F]) -> Result<Vec<F>> {
    let n = b.len();
    let mut x = vec![F::ZERO; n];
    let mut g = vec![F::ZERO; n];
    let mut h = vec![F::ZERO; n];
    if a[n - 1] == F::ZERO {
        return Err(minor(op, 0));
    }
    x[0] = b[0] / a[n - 1];
    if n == 1 {
        return Ok(x);
    }
    g[0] = a[n - 2] / a[n - 1];
    h[0] = a[n] / a[n - 1];
    for m in 1..n {
        let mut x_num = F::ZERO - b[m];
        let mut x_den = F::ZERO - a[n - 1];
        for j in 0..m {
            let nmj = n + m - (j + 1);
            x_num = x_num + a[nmj] * x[j];
            x_den = x_den + a[nmj] * g[m - j - 1];
        }
        if x_den == F::ZERO {
            return Err(minor(op, m));
        }
        x[m] = x_num / x_den;
        for j in 0..m {
            x[j] = x[j] - x[m] * g[m - j - 1];
        }
        if m == n - 1 {
            break;
        }
        let mut g_num = F::ZERO - a[n - m - 2];
        let mut h_num = F::ZERO - a[n + m];
        let mut g_den = F::ZERO - a[n - 1];
        for j in 0..m {
            g_num = g_num + a[n + j - m - 1] * g[j];
            h_num = h_num + a[n + m - j - 1] * h[j];
            g_den = g_den + a[n + j - m - 1] * h[m - j - 1];
        }
        if g_den == F::ZERO {
            return Err(minor(op, m));
        }
        g[m] = g_num / g_den;
        h[m] = h_num / x_den;
        let (c1, c2) = (g[m], h[m]);
        let mut k = m - 1;
        for j in 0..(m + 1) >> 1 {
            let (gj, gk, hj, hk) = (g[j], g[k], h[j], h[k]);
            g[j] = gj - c1 * hk;
            g[k] = gk - c1 * hj;
            h[j] = hj - c2 * gk;
            h[k] = hk - c2 * gj;
            k = k.wrapping_sub(1);
        }
    }
    Ok(x)
}

/// Solves `T x = b` for the Toeplitz matrix `T` with first column `c` and first row `r` (SciPy's
/// `linalg.solve_toeplitz((c, r), b)`; `r = None` is SciPy's `c_or_cr = c`, `r = conj(c)`;
/// `r[0]` is ignored) by Levinson–Durbin recursion.
///
/// Shapes (SciPy 1.17's batching): `c` and `r` are `(..., n)`; `b` is `(n,)` or `(..., n, k)`;
/// the leading axes broadcast and `x` has the broadcast batch followed by `b`'s core shape.
///
/// # Errors
/// `ShapeMismatch` when `c` and `r` differ in length, `b` does not have `n` rows, or the batches
/// do not broadcast; `InvalidArgument` for a NaN or infinity (SciPy's `check_finite`) or a 0-d
/// `c`/`r`; `Singular { index }` when a leading principal minor of order `index + 1` is exactly
/// singular (SciPy's `LinAlgError: Singular principal minor`; the recursion needs every leading
/// minor regular even when `T` itself is not singular); `DeviceMismatch`.
///
/// # Numerics
/// O(n²) per right-hand side, in f64 (complex128 for complex types) whatever `T` is, as SciPy;
/// the result is rounded to `T` once. Levinson is not backward stable for indefinite or
/// ill-conditioned `T`: its error can grow faster than `cond(T)·ε` (SciPy's note applies).
///
/// # GPU
/// A hybrid: the recursion is sequential, so on a CUDA device `c`, `r` and `b` are copied to the
/// host, solved there (rayon over the right-hand sides) and `x` is uploaded to the same device.
/// Synchronises.
///
/// ```
/// use cusci_linalg::{solve_toeplitz, Array, Device};
/// let dev = Device::Cpu;
/// let c = Array::from_vec(vec![1.0f64, 3.0, 6.0, 10.0], &[4], &dev)?;
/// let r = Array::from_vec(vec![1.0f64, -1.0, -2.0, -3.0], &[4], &dev)?;
/// let b = Array::from_vec(vec![1.0f64, 2.0, 2.0, 5.0], &[4], &dev)?;
/// let x = solve_toeplitz(&c, Some(&r), &b)?.to_vec()?;
/// let want = [5.0 / 3.0, -1.0, -8.0 / 3.0, 7.0 / 3.0];
/// assert!(x.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-12));
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn solve_toeplitz<T: Scalar>(
    c: &Array<T>,
    r: Option<&Array<T>>,
    b: &Array<T>,
) -> Result<Array<T>> {
    let op = "solve_toeplitz";
    let (c, r) = generators(op, c, r)?;
    cusci_core::array::check_same_device(op, c.device(), b.device())?;
    let n = last(c.shape());
    if b.ndim() == 0
        || last(r.shape()) != n
        || b.shape()[if b.ndim() == 1 { 0 } else { b.ndim() - 2 }] != n
    {
        return Err(make::shape(
            op,
            format!(
                "Incompatible dimensions: c {:?}, r {:?}, b {:?}",
                c.shape(),
                r.shape(),
                b.shape()
            ),
        ));
    }
    let (bb, core) = rhs_split(b.shape());
    let cb = &c.shape()[..c.ndim() - 1];
    let rb = &r.shape()[..r.ndim() - 1];
    let batch = broadcast_shapes(op, &broadcast_shapes(op, cb, rb)?, &bb)?;
    let out_shape = cat(&batch, &core);
    if prod(&out_shape) == 0 {
        return Array::zeros(&out_shape, b.device());
    }
    let k = if core.len() == 2 { core[1] } else { 1 };
    let count = prod(&batch);
    let cv = c.broadcast_to(&cat(&batch, &[n]))?.to_vec()?;
    let rv = r.broadcast_to(&cat(&batch, &[n]))?.to_vec()?;
    let bv = b.broadcast_to(&out_shape)?.to_vec()?;
    let finite = |v: &[T]| {
        v.iter()
            .all(|x| x.to_c64().re.is_finite() && x.to_c64().im.is_finite())
    };
    if crate::shared::finite_checks_on() && !(finite(&cv) && finite(&rv) && finite(&bv)) {
        return Err(crate::shared::nonfinite(op));
    }
    let complex = matches!(T::DTYPE, DType::C32 | DType::C64);
    // one system per (matrix, column); results are written back in b's layout
    let cols: Vec<Result<Vec<c64>>> = (0..count * k)
        .into_par_iter()
        .map(|t| {
            let (i, col) = (t / k, t % k);
            let vals: Vec<c64> = (1..n)
                .rev()
                .map(|j| rv[i * n + j].to_c64())
                .chain((0..n).map(|j| cv[i * n + j].to_c64()))
                .collect();
            let rhs: Vec<c64> = (0..n)
                .map(|j| bv[i * n * k + j * k + col].to_c64())
                .collect();
            if complex {
                levinson::<c64>(op, &vals, &rhs)
            } else {
                let a: Vec<f64> = vals.iter().map(|v| f64::of(*v)).collect();
                let y: Vec<f64> = rhs.iter().map(|v| f64::of(*v)).collect();
                Ok(levinson::<f64>(op, &a, &y)?
                    .into_iter()
                    .map(Lev::c)
                    .collect())
            }
        })
        .collect();
    let mut x = vec![T::zero(); count * n * k];
    for (t, col) in cols.into_iter().enumerate() {
        let (i, j) = (t / k, t % k);
        for (row, v) in col?.into_iter().enumerate() {
            x[i * n * k + row * k + j] = T::from_c64(v);
        }
    }
    Array::from_vec(x, &out_shape, b.device())
}

/// `T @ x` for the Toeplitz matrix `T` with first column `c` (`(..., m)`) and first row `r`
/// (`(..., n)`, default `conj(c)`; `r[0]` ignored) (SciPy's `linalg.matmul_toeplitz`). `x` is
/// `(n,)` or `(..., n, k)`; the result is `(..., m)` or `(..., m, k)`, leading axes broadcast.
///
/// # Errors
/// `ShapeMismatch` when `x` does not have `n` rows or the batches do not broadcast;
/// `InvalidArgument` for a 0-d `c`, `r` or `x`; `DeviceMismatch`. No finiteness check (SciPy's
/// default `check_finite=False`).
///
/// # Numerics
/// SciPy embeds `T` in a circulant matrix and multiplies through FFTs in f64; here `T` is formed
/// explicitly and multiplied by [`matmul`] in the element type (cuBLAS GEMM, faer on the CPU):
/// `O(m·n·k)` instead of `O((m+n)·log(m+n)·k)`, with the plain product's error (`≈ n·ε` relative
/// to `|T|·|x|`).
///
/// # GPU
/// `T` is built on the host from `c` and `r` (copied back: this synchronises) and uploaded once
/// (`m·n` elements per batch entry); the product is one batched GEMM on the device.
///
/// ```
/// use cusci_linalg::{matmul_toeplitz, Array, Device};
/// let dev = Device::Cpu;
/// let c = Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3], &dev)?;
/// let r = Array::from_vec(vec![1.0f64, 5.0], &[2], &dev)?;
/// let x = Array::from_vec(vec![1.0f64, 1.0], &[2], &dev)?;
/// assert_eq!(matmul_toeplitz(&c, Some(&r), &x)?.to_vec()?, vec![6.0, 3.0, 5.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn matmul_toeplitz<T: Scalar>(
    c: &Array<T>,
    r: Option<&Array<T>>,
    x: &Array<T>,
) -> Result<Array<T>> {
    let op = "matmul_toeplitz";
    let (c, r) = generators(op, c, r)?;
    cusci_core::array::check_same_device(op, c.device(), x.device())?;
    let (m, n) = (last(c.shape()), last(r.shape()));
    if x.ndim() == 0 || x.shape()[if x.ndim() == 1 { 0 } else { x.ndim() - 2 }] != n {
        return Err(make::shape(
            op,
            format!(
                "Incompatible dimensions: c {:?}, r {:?}, x {:?}",
                c.shape(),
                r.shape(),
                x.shape()
            ),
        ));
    }
    let cb = &c.shape()[..c.ndim() - 1];
    let rb = &r.shape()[..r.ndim() - 1];
    let tb = broadcast_shapes(op, cb, rb)?;
    broadcast_shapes(op, &tb, &rhs_split(x.shape()).0)?;
    let count = prod(&tb);
    let cv = c.broadcast_to(&cat(&tb, &[m]))?.to_vec()?;
    let rv = r.broadcast_to(&cat(&tb, &[n]))?.to_vec()?;
    let mut t = Vec::with_capacity(count * m * n);
    for b in 0..count {
        for i in 0..m {
            for j in 0..n {
                t.push(if i >= j {
                    cv[b * m + i - j]
                } else {
                    rv[b * n + j - i]
                });
            }
        }
    }
    let t = Array::from_vec(t, &cat(&tb, &[m, n]), x.device())?;
    matmul(&t, x)
}

/// What [`solve_circulant`] does with a (near) singular circulant matrix (SciPy's `singular`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CirculantSingular {
    /// Fail with `Error::Singular` (SciPy's `'raise'`, a `LinAlgError`).
    #[default]
    Raise,
    /// Least squares: the Fourier components of the near-zero eigenvalues are set to zero
    /// (SciPy's `'lstsq'`).
    Lstsq,
}

/// Options of [`solve_circulant`] (SciPy's keyword arguments and defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolveCirculantOptions {
    /// Near-singular handling (default [`CirculantSingular::Raise`]).
    pub singular: CirculantSingular,
    /// Eigenvalues with `|λ| ≤ tol` are near zero (default `max|λ| · n · ε_f64` per circulant).
    pub tol: Option<f64>,
    /// The axis of `c` holding the first column (default -1).
    pub caxis: isize,
    /// The axis of `b` holding the right-hand side (default 0).
    pub baxis: isize,
    /// The axis of the result holding the solution (default 0).
    pub outaxis: isize,
}

impl Default for SolveCirculantOptions {
    fn default() -> Self {
        SolveCirculantOptions {
            singular: CirculantSingular::Raise,
            tol: None,
            caxis: -1,
            baxis: 0,
            outaxis: 0,
        }
    }
}

/// The `n x n` Fourier matrix `F[j, k] = exp(-2πi jk / n)` (angles reduced mod `n` exactly).
fn fourier<C: Scalar>(n: usize, dev: &Device) -> Result<Array<C>> {
    let mut v = Vec::with_capacity(n * n);
    for j in 0..n {
        for k in 0..n {
            let t = -2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
            v.push(C::from_c64(c64::new(t.cos(), t.sin())));
        }
    }
    Array::from_vec(v, &[n, n], dev)
}

/// Solves `C x = b` for the circulant matrix `C` with first column `c` (SciPy's
/// `linalg.solve_circulant`): `x = ifft(fft(b) / fft(c))` along the chosen axes. `c`'s axis
/// `caxis` and `b`'s axis `baxis` hold the `n` values; the other axes broadcast (as SciPy's
/// `fft(b) / fft(c)` after moving those axes last), and the solution axis of the result is
/// `outaxis`. 0-d `c` or `b` count as 1-D.
///
/// Near-singular: an eigenvalue `fft(c)[k]` with `|λ| ≤ tol` (default `max|λ| · n · ε_f64` per
/// circulant, SciPy's rule) fails with [`CirculantSingular::Raise`], and with
/// [`CirculantSingular::Lstsq`] the matching components of the solution are zero (the
/// least-squares, minimum-norm solution). SciPy 1.17 forms that mask from `b`'s original shape,
/// which fails or misaligns when `b` is 2-D with `K ≠ n`; here the mask broadcasts along the
/// right-hand sides.
///
/// # Errors
/// `InvalidArgument` for an axis out of range; `ShapeMismatch` when the lengths differ or the
/// other axes do not broadcast; `Singular { index }` (the flat index of the first near-zero
/// eigenvalue) with `Raise`; `DeviceMismatch`. An empty `b` gives zeros of `b`'s shape.
///
/// # Numerics
/// No cusci-fft here: the transforms are products with the `n x n` Fourier matrix (built on the
/// host with exactly reduced angles, uploaded once) in the complex type of `T`, O(n²) per
/// right-hand side through [`matmul`] (cuBLAS on the GPU). Errors are those of a length-`n` dot
/// product (`≈ n·ε` relative) rather than an FFT's `log n·ε`. Real inputs give the real part.
/// Reads the near-zero mask back (synchronises).
///
/// ```
/// use cusci_linalg::{solve_circulant, SolveCirculantOptions, Array, Device};
/// let dev = Device::Cpu;
/// let c = Array::from_vec(vec![2.0f64, 1.0, 1.0], &[3], &dev)?;
/// let b = Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3], &dev)?;
/// let x = solve_circulant(&c, &b, SolveCirculantOptions::default())?.to_vec()?;
/// // C = [[2, 1, 1], [1, 2, 1], [1, 1, 2]]
/// let want = [-0.5, 0.5, 1.5];
/// assert!(x.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-12));
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn solve_circulant<T: Scalar>(
    c: &Array<T>,
    b: &Array<T>,
    opts: SolveCirculantOptions,
) -> Result<Array<T>> {
    let op = "solve_circulant";
    cusci_core::array::check_same_device(op, c.device(), b.device())?;
    let c = if c.ndim() == 0 {
        c.reshape(&[1])?
    } else {
        c.clone()
    };
    let b = if b.ndim() == 0 {
        b.reshape(&[1])?
    } else {
        b.clone()
    };
    let axis_err = |name: &str| make::arg(op, format!("'{name}' entry is out of bounds"));
    let ca = norm_axis(op, opts.caxis, c.ndim()).map_err(|_| axis_err("caxis"))?;
    let ba = norm_axis(op, opts.baxis, b.ndim()).map_err(|_| axis_err("baxis"))?;
    let (nc, nb) = (c.shape()[ca], b.shape()[ba]);
    if nc != nb {
        return Err(make::shape(
            op,
            format!(
                "Shapes of c {:?} and b {:?} are incompatible",
                c.shape(),
                b.shape()
            ),
        ));
    }
    let n = nc;
    let cm = moveaxis(op, &c, ca as isize, -1)?;
    let bm = moveaxis(op, &b, ba as isize, -1)?;
    if b.is_empty() {
        return Array::zeros(b.shape(), b.device());
    }
    let qshape = broadcast_shapes(op, cm.shape(), bm.shape())?;
    let dev = b.device();
    let f = fourier::<T::C>(n, dev)?;
    let fc = matmul(&cm.astype::<T::C>()?, &f)?;
    let afc = fc.abs()?;
    let tol = match opts.tol {
        Some(t) => Array::<T::R>::full(&[1], <T::R as RealFloat>::from_f64(t), dev)?,
        None => afc
            .max_axes_keepdims(&[-1])?
            .mul_scalar(<T::R as RealFloat>::from_f64(n as f64 * f64::EPSILON))?,
    };
    let near = afc.le(&tol)?;
    let near_host = near.to_vec()?;
    let first = near_host.iter().position(|&z| z);
    let mut fc = fc;
    if let Some(index) = first {
        if opts.singular == CirculantSingular::Raise {
            return Err(Error::Singular {
                op: op.into(),
                index,
            });
        }
        let one = Array::<T::C>::ones(fc.shape(), dev)?;
        fc = where_(&near, &one, &fc)?;
    }
    let fb = matmul(&bm.astype::<T::C>()?, &f)?;
    let mut q = fb.broadcast_to(&qshape)?.div(&fc.broadcast_to(&qshape)?)?;
    if first.is_some() {
        let zero = Array::<T::C>::zeros(&qshape, dev)?;
        q = where_(&near.broadcast_to(&qshape)?, &zero, &q)?;
    }
    let inv_n = T::C::from_c64(c64::new(1.0 / n as f64, 0.0));
    let xc = matmul(&q, &f.conj()?)?.mul_scalar(inv_n)?;
    let x: Array<T> = if matches!(T::DTYPE, DType::C32 | DType::C64) {
        xc.astype::<T>()?
    } else {
        xc.real()?.astype::<T>()?
    };
    let on = norm_axis(op, opts.outaxis, x.ndim())?;
    moveaxis(op, &x, -1, on as isize)?.contiguous()
}
