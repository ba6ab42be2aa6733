//! The real-to-real transforms of `scipy.fft`: the discrete cosine and sine transforms of
//! types 1 to 4 ([`dct`], [`idct`], [`dst`], [`idst`]) and their n-dimensional forms
//! ([`dctn`], [`idctn`], [`dstn`], [`idstn`]).
//!
//! Each public function checks its arguments once (with the checks of `basic.rs`), then runs
//! one normalised 1-D transform per axis through [`r2r_axis`], which dispatches on the array's
//! device (the CPU reference below; the CUDA side in `cuda/`: the same extended sequences built by
//! a pre-pass kernel, one batched cuFFT transform, and a post-pass kernel for the twiddles, the
//! sine mappings and the scaling).
//!
//! The CPU reference computes every type with one complex FFT (rustfft, through the crate's
//! plan cache) of a length-`2n` (type 1: `2(n-1)` for cosines, `2(n+1)` for sines) sequence
//! built from the lane, with O(n) twiddles before and after: O(n log n) per lane, in parallel
//! over the lanes with rayon. The sine transforms of types 2 to 4 are cosine transforms of the
//! reversed or sign-alternated input:
//! `DST-II(x)[k] = DCT-II((-1)^j x[j])[n-1-k]`, `DST-III(x)[k] = (-1)^k DCT-III(x[n-1-j])[k]`,
//! `DST-IV(x)[k] = (-1)^k DCT-IV(x[n-1-j])[k]`.

use crate::args::{bad_len, check_1d, check_nd, DctType, R2r};
use crate::{cpu, cuda, FftOptions, FftReal, FftnOptions, Norm};
use cusci_core::{Array, Backend, HostArray, RealFloat, Result};
use num_complex::Complex;
use rustfft::Fft;
use std::f64::consts::{FRAC_1_SQRT_2, PI, SQRT_2};
use std::sync::Arc;

/// The optional arguments of the 1-D real-to-real transforms (`type=`, `n=`, `axis=`, `norm=`,
/// `orthogonalize=`).
///
/// `orthogonalize = None` (the default) means SciPy's default: `true` exactly when
/// `norm` is [`Norm::Ortho`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DctOptions {
    /// The transform type (SciPy's `type=`). Default [`DctType::Type2`].
    pub kind: DctType,
    /// The length of the transform along `axis`: the input is cut or zero-padded to `n`
    /// points. `None` (default): the input's length.
    pub n: Option<usize>,
    /// The axis to transform; negative counts from the end. Default `-1`.
    pub axis: isize,
    /// The normalisation mode. Default [`Norm::Backward`].
    pub norm: Norm,
    /// Whether to scale the special first/last terms so that, with [`Norm::Ortho`], the
    /// transform matrix is orthogonal (SciPy's `orthogonalize=`). `None` (default): `true`
    /// with [`Norm::Ortho`], `false` otherwise.
    pub orthogonalize: Option<bool>,
}

impl Default for DctOptions {
    fn default() -> Self {
        DctOptions {
            kind: DctType::Type2,
            n: None,
            axis: -1,
            norm: Norm::Backward,
            orthogonalize: None,
        }
    }
}

/// The optional arguments of the n-D real-to-real transforms (`type=`, `s=`, `axes=`,
/// `norm=`, `orthogonalize=`).
///
/// `s` and `axes` work as in [`FftnOptions`]: with `axes` given, `s` (when given) has one length
/// per axis; with only `s`, the axes are the last `s.len()` ones; with neither, all axes. The
/// same `kind` is used along every axis.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DctnOptions {
    /// The transform type (SciPy's `type=`), the same along every axis. Default
    /// [`DctType::Type2`].
    pub kind: DctType,
    /// The transform lengths, one per transformed axis (the input is cut or zero-padded to
    /// them). `None`: the input's.
    pub s: Option<Vec<usize>>,
    /// The axes to transform (negative count from the end; no repeats). `None`: see above.
    pub axes: Option<Vec<isize>>,
    /// The normalisation mode. Default [`Norm::Backward`].
    pub norm: Norm,
    /// As [`DctOptions::orthogonalize`].
    pub orthogonalize: Option<bool>,
}

/// The length SciPy's normalisation counts for a transform of `n` points: `2(n-1)` for DCT-I,
/// `2(n+1)` for DST-I, `2n` otherwise.
fn logical_len(kind: DctType, cosine: bool, n: usize) -> usize {
    match (kind, cosine) {
        // saturating: a huge n gives usize::MAX, which the size checks then refuse
        (DctType::Type1, true) => n.saturating_sub(1).saturating_mul(2),
        (DctType::Type1, false) => n.saturating_add(1).saturating_mul(2),
        _ => n.saturating_mul(2),
    }
}

/// The minimum-length check of a transform of `n` points (DCT-I needs 2).
fn check_min(op: &str, kind: DctType, cosine: bool, n: usize) -> Result<()> {
    if cosine && kind == DctType::Type1 && n < 2 {
        return Err(bad_len(op, n));
    }
    Ok(())
}

/// The transform actually run for a forward (`dct`/`dst`) or inverse (`idct`/`idst`) call of
/// type `kind` on `n` points: the inverse runs the inverse type with the inverse scaling.
fn r2r_of(
    kind: DctType,
    cosine: bool,
    forward: bool,
    norm: Norm,
    orth: Option<bool>,
    n: usize,
) -> R2r {
    let run = if forward { kind } else { kind.inverse() };
    R2r {
        kind: run,
        cosine,
        ortho: orth.unwrap_or(norm == Norm::Ortho),
        fct: norm.factor(logical_len(kind, cosine, n), forward),
    }
}

// ---------- dispatch ----------

/// The normalised transform `t` of `n` points along `axis` (input cut or zero-padded).
fn r2r_axis<T: FftReal>(op: &str, x: &Array<T>, axis: usize, n: usize, t: R2r) -> Result<Array<T>> {
    match x.backend() {
        Backend::Host(h) => r2r_axis_cpu(op, &h, axis, n, t),
        Backend::Cuda(c) => {
            let m = ext_len(t.kind, t.cosine, n);
            cpu::check_size(op, x.shape(), axis, m)?;
            cuda::r2r_axis(c.dev(), x, axis, n, t, m)
        }
    }
}

/// The length of the complex FFT that computes a transform of `n` points (both devices).
fn ext_len(kind: DctType, cosine: bool, n: usize) -> usize {
    match (kind, cosine) {
        // saturating: a huge n gives usize::MAX, which the size checks then refuse
        (DctType::Type1, true) => n.saturating_sub(1).saturating_mul(2),
        (DctType::Type1, false) => n.saturating_add(1).saturating_mul(2),
        _ => n.saturating_mul(2),
    }
}

// ---------- the CPU reference ----------

/// The precomputed tables of one transform of `n` points on the CPU.
struct Tables<T: FftReal> {
    /// The complex FFT of the extended sequence.
    fft: Arc<dyn Fft<T>>,
    /// Its length.
    m: usize,
    /// `exp(-iπk/(2n))`, `k < n` (types 2, 3 and 4).
    tw: Vec<Complex<T>>,
    /// `exp(-iπ(2j+1)/(4n))`, `j < n` (type 4).
    pre: Vec<Complex<T>>,
}

fn cis<T: FftReal>(a: f64) -> Complex<T> {
    Complex::new(
        <T as RealFloat>::from_f64(a.cos()),
        <T as RealFloat>::from_f64(a.sin()),
    )
}

fn r2r_axis_cpu<T: FftReal>(
    op: &str,
    x: &HostArray<'_, T>,
    axis: usize,
    n: usize,
    t: R2r,
) -> Result<Array<T>> {
    let m = ext_len(t.kind, t.cosine, n);
    cpu::check_host_size(op, x.shape(), axis, m)?;
    let nf = n as f64;
    let tw = if t.kind == DctType::Type1 {
        Vec::new()
    } else {
        (0..n).map(|k| cis(-PI * k as f64 / (2.0 * nf))).collect()
    };
    let pre = if t.kind == DctType::Type4 {
        (0..n)
            .map(|j| cis(-PI * (2 * j + 1) as f64 / (4.0 * nf)))
            .collect()
    } else {
        Vec::new()
    };
    let tab = Tables {
        fft: cpu::complex_plan::<T>(m, true)?,
        m,
        tw,
        pre,
    };
    let scratch_len = tab.fft.get_inplace_scratch_len();
    let zero = Complex::<T>::default();
    cpu::for_lanes(
        x,
        axis,
        n,
        n,
        |v: T| v,
        || (vec![zero; tab.m], vec![zero; scratch_len]),
        |(buf, scratch), lane, out: &mut [T]| {
            lane_r2r(&tab, t, lane, out, buf, scratch);
            Ok(())
        },
    )
}

/// One lane: `x` (n points, overwritten) transformed into `out` (n points).
fn lane_r2r<T: FftReal>(
    tab: &Tables<T>,
    t: R2r,
    x: &mut [T],
    out: &mut [T],
    buf: &mut [Complex<T>],
    scratch: &mut [Complex<T>],
) {
    let n = x.len();
    let s2 = <T as RealFloat>::from_f64(SQRT_2);
    let two = <T as RealFloat>::from_f64(2.0);
    let zero = <T as RealFloat>::from_f64(0.0);
    let czero = Complex::<T>::default();
    // orthogonalisation of the special input terms
    if t.ortho {
        match (t.kind, t.cosine) {
            (DctType::Type1, true) => {
                x[0] = x[0] * s2;
                x[n - 1] = x[n - 1] * s2;
            }
            (DctType::Type3, true) => x[0] = x[0] * s2,
            (DctType::Type3, false) => x[n - 1] = x[n - 1] * s2,
            _ => {}
        }
    }
    // the sine transforms of types 2 to 4 as cosine transforms
    if !t.cosine {
        match t.kind {
            DctType::Type2 => x.iter_mut().skip(1).step_by(2).for_each(|v| *v = -*v),
            DctType::Type3 | DctType::Type4 => x.reverse(),
            DctType::Type1 => {}
        }
    }
    match (t.kind, t.cosine) {
        (DctType::Type1, true) => {
            // even extension [x0, ..., x(n-1), x(n-2), ..., x1]: the DCT-I is its real FFT
            for (j, &v) in x.iter().enumerate() {
                buf[j] = Complex::new(v, zero);
            }
            for j in 1..n - 1 {
                buf[tab.m - j] = Complex::new(x[j], zero);
            }
            tab.fft.process_with_scratch(buf, scratch);
            for (o, v) in out.iter_mut().zip(buf.iter()) {
                *o = v.re;
            }
        }
        (DctType::Type1, false) => {
            // odd extension [0, x0, ..., x(n-1), 0, -x(n-1), ..., -x0]: DST-I = -Im of the FFT
            buf.fill(czero);
            for (j, &v) in x.iter().enumerate() {
                buf[j + 1] = Complex::new(v, zero);
                buf[tab.m - 1 - j] = Complex::new(-v, zero);
            }
            tab.fft.process_with_scratch(buf, scratch);
            for (o, v) in out.iter_mut().zip(buf[1..].iter()) {
                *o = -v.im;
            }
        }
        (DctType::Type2, _) => {
            // [x, reversed x]: FFT[k] = exp(iπk/2n) · DCT-II[k]
            for (j, &v) in x.iter().enumerate() {
                buf[j] = Complex::new(v, zero);
                buf[2 * n - 1 - j] = Complex::new(v, zero);
            }
            tab.fft.process_with_scratch(buf, scratch);
            for ((o, v), w) in out.iter_mut().zip(buf.iter()).zip(tab.tw.iter()) {
                *o = (*v * *w).re;
            }
        }
        (DctType::Type3, _) => {
            // DCT-III[k] = 2·Re Σ_j x[j]·exp(-iπj/2n)·exp(-2πi jk/2n) - x[0]
            for ((b, &v), w) in buf.iter_mut().zip(x.iter()).zip(tab.tw.iter()) {
                *b = *w * v;
            }
            buf[n..].fill(czero);
            tab.fft.process_with_scratch(buf, scratch);
            let x0 = x[0];
            for (o, v) in out.iter_mut().zip(buf.iter()) {
                *o = two * v.re - x0;
            }
        }
        (DctType::Type4, _) => {
            // DCT-IV[k] = 2·Re exp(-iπk/2n) Σ_j x[j]·exp(-iπ(2j+1)/4n)·exp(-2πi jk/2n)
            for ((b, &v), w) in buf.iter_mut().zip(x.iter()).zip(tab.pre.iter()) {
                *b = *w * v;
            }
            buf[n..].fill(czero);
            tab.fft.process_with_scratch(buf, scratch);
            for ((o, v), w) in out.iter_mut().zip(buf.iter()).zip(tab.tw.iter()) {
                *o = two * (*v * *w).re;
            }
        }
    }
    if !t.cosine {
        match t.kind {
            DctType::Type2 => out.reverse(),
            DctType::Type3 | DctType::Type4 => {
                out.iter_mut().skip(1).step_by(2).for_each(|v| *v = -*v)
            }
            DctType::Type1 => {}
        }
    }
    // the overall factor, then the orthogonalisation of the special output terms
    if t.fct != 1.0 {
        let f = <T as RealFloat>::from_f64(t.fct);
        out.iter_mut().for_each(|o| *o = *o * f);
    }
    if t.ortho {
        let h = <T as RealFloat>::from_f64(FRAC_1_SQRT_2);
        match (t.kind, t.cosine) {
            (DctType::Type1, true) => {
                out[0] = out[0] * h;
                out[n - 1] = out[n - 1] * h;
            }
            (DctType::Type2, true) => out[0] = out[0] * h,
            (DctType::Type2, false) => out[n - 1] = out[n - 1] * h,
            _ => {}
        }
    }
}

// ---------- the public transforms ----------

fn r2r_1d<T: FftReal>(
    op: &str,
    x: &Array<T>,
    o: &DctOptions,
    cosine: bool,
    forward: bool,
) -> Result<Array<T>> {
    let fo = FftOptions {
        n: o.n,
        axis: o.axis,
        norm: o.norm,
        plan: None,
    };
    let (axis, n) = check_1d(op, x.shape(), &fo, false)?;
    check_min(op, o.kind, cosine, n)?;
    let t = r2r_of(o.kind, cosine, forward, o.norm, o.orthogonalize, n);
    r2r_axis(op, x, axis, n, t)
}

fn r2r_nd<T: FftReal>(
    op: &str,
    x: &Array<T>,
    o: &DctnOptions,
    cosine: bool,
    forward: bool,
) -> Result<Array<T>> {
    let fo = FftnOptions {
        s: o.s.clone(),
        axes: o.axes.clone(),
        norm: o.norm,
        plan: None,
    };
    let plan = check_nd(op, x.shape(), &fo, None, false)?;
    for &(_, n) in &plan {
        check_min(op, o.kind, cosine, n)?;
    }
    let mut y = x.clone();
    for &(axis, n) in plan.iter().rev() {
        let t = r2r_of(o.kind, cosine, forward, o.norm, o.orthogonalize, n);
        y = r2r_axis(op, &y, axis, n, t)?;
    }
    Ok(y)
}

/// The discrete cosine transform, `scipy.fft.dct(x, type, n, axis, norm, orthogonalize)`.
///
/// Along `opts.axis`, the input cut or zero-padded to `opts.n` points (default: its length),
/// unnormalised (`norm` backward) for `N` points:
///
/// * type 1: `y[k] = x[0] + (-1)^k x[N-1] + 2 Σ_{j=1}^{N-2} x[j] cos(πkj/(N-1))`
/// * type 2: `y[k] = 2 Σ_j x[j] cos(πk(2j+1)/(2N))`
/// * type 3: `y[k] = x[0] + 2 Σ_{j=1}^{N-1} x[j] cos(πj(2k+1)/(2N))`
/// * type 4: `y[k] = 2 Σ_j x[j] cos(π(2k+1)(2j+1)/(4N))`
///
/// `norm` scales by `1/sqrt(M)` (ortho) or `1/M` (forward), with `M = 2(N-1)` for type 1 and
/// `2N` otherwise. `orthogonalize` (default: with ortho) makes the matrix orthogonal as SciPy
/// does: type 1 multiplies `x[0]`, `x[N-1]` by √2 and divides `y[0]`, `y[N-1]` by √2; type 2
/// divides `y[0]` by √2; type 3 multiplies `x[0]` by √2; type 4 has no special terms.
///
/// # Errors
/// `InvalidArgument` for an axis out of range (also for a 0-d array), a transform length of 0,
/// or fewer than 2 points for type 1 ("invalid number of data points", as SciPy).
///
/// # Numerics
/// One complex FFT of `2N` (type 1: `2(N-1)`) points per lane with twiddles computed in f64:
/// errors grow like `ε·log2(N)` relative to the largest output.
pub fn dct<T: FftReal>(x: &Array<T>, opts: &DctOptions) -> Result<Array<T>> {
    r2r_1d("dct", x, opts, true, true)
}

/// The inverse discrete cosine transform, `scipy.fft.idct(x, type, n, axis, norm,
/// orthogonalize)`: the [`dct`] of the inverse type (1 → 1, 2 → 3, 3 → 2, 4 → 4) with the
/// inverse scaling (`1/M` by default, `M` as in [`dct`]), so that `idct(dct(x)) = x` for every
/// type and norm (with the same `orthogonalize`).
///
/// # Errors
/// As [`dct`].
///
/// ```
/// use cusci_fft::{dct, idct, DctOptions, DctType, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, -2.0, 0.5], &[3], &Device::cpu()).unwrap();
/// let o = DctOptions { kind: DctType::Type1, ..Default::default() };
/// let back = idct(&dct(&x, &o).unwrap(), &o).unwrap().to_vec().unwrap();
/// assert!((back[1] + 2.0).abs() < 1e-12);
/// ```
pub fn idct<T: FftReal>(x: &Array<T>, opts: &DctOptions) -> Result<Array<T>> {
    r2r_1d("idct", x, opts, true, false)
}

/// The discrete sine transform, `scipy.fft.dst(x, type, n, axis, norm, orthogonalize)`.
///
/// Along `opts.axis`, the input cut or zero-padded to `opts.n` points, unnormalised for `N`
/// points:
///
/// * type 1: `y[k] = 2 Σ_j x[j] sin(π(k+1)(j+1)/(N+1))`
/// * type 2: `y[k] = 2 Σ_j x[j] sin(π(k+1)(2j+1)/(2N))`
/// * type 3: `y[k] = (-1)^k x[N-1] + 2 Σ_{j=0}^{N-2} x[j] sin(π(2k+1)(j+1)/(2N))`
/// * type 4: `y[k] = 2 Σ_j x[j] sin(π(2k+1)(2j+1)/(4N))`
///
/// `norm` scales by `1/sqrt(M)` (ortho) or `1/M` (forward), with `M = 2(N+1)` for type 1 and
/// `2N` otherwise. `orthogonalize` (default: with ortho): type 2 divides `y[N-1]` by √2, type 3
/// multiplies `x[N-1]` by √2; types 1 and 4 have no special terms.
///
/// # Errors
/// `InvalidArgument` for an axis out of range or a transform length of 0.
///
/// # Numerics
/// As [`dct`] (type 1: one FFT of `2(N+1)` points).
pub fn dst<T: FftReal>(x: &Array<T>, opts: &DctOptions) -> Result<Array<T>> {
    r2r_1d("dst", x, opts, false, true)
}

/// The inverse discrete sine transform, `scipy.fft.idst(x, type, n, axis, norm,
/// orthogonalize)`: the [`dst`] of the inverse type with the inverse scaling, so that
/// `idst(dst(x)) = x` for every type and norm.
///
/// # Errors
/// As [`dst`].
pub fn idst<T: FftReal>(x: &Array<T>, opts: &DctOptions) -> Result<Array<T>> {
    r2r_1d("idst", x, opts, false, false)
}

/// The n-dimensional discrete cosine transform, `scipy.fft.dctn(x, type, s, axes, norm,
/// orthogonalize)`: [`dct`] of type `opts.kind` along each of the axes (see [`DctnOptions`] for
/// `s`/`axes` and their defaults), each normalised for its own length. With
/// `axes = Some(vec![])` the input is returned untransformed.
///
/// # Errors
/// `InvalidArgument` for axes out of range or repeated, transform lengths of 0, or fewer than 2
/// points along an axis for type 1; `ShapeMismatch` when `s` and `axes` differ in length, or
/// `s` alone has more entries than the array has dimensions.
pub fn dctn<T: FftReal>(x: &Array<T>, opts: &DctnOptions) -> Result<Array<T>> {
    r2r_nd("dctn", x, opts, true, true)
}

/// The n-dimensional inverse discrete cosine transform, `scipy.fft.idctn(x, type, s, axes,
/// norm, orthogonalize)`: [`idct`] along each of the axes.
///
/// # Errors
/// As [`dctn`].
pub fn idctn<T: FftReal>(x: &Array<T>, opts: &DctnOptions) -> Result<Array<T>> {
    r2r_nd("idctn", x, opts, true, false)
}

/// The n-dimensional discrete sine transform, `scipy.fft.dstn(x, type, s, axes, norm,
/// orthogonalize)`: [`dst`] along each of the axes.
///
/// # Errors
/// As [`dctn`] (no minimum length beyond 1).
pub fn dstn<T: FftReal>(x: &Array<T>, opts: &DctnOptions) -> Result<Array<T>> {
    r2r_nd("dstn", x, opts, false, true)
}

/// The n-dimensional inverse discrete sine transform, `scipy.fft.idstn(x, type, s, axes, norm,
/// orthogonalize)`: [`idst`] along each of the axes.
///
/// # Errors
/// As [`dstn`].
pub fn idstn<T: FftReal>(x: &Array<T>, opts: &DctnOptions) -> Result<Array<T>> {
    r2r_nd("idstn", x, opts, false, false)
}
