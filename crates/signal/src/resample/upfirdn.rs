//! Polyphase resampling: [`upfirdn`] and [`resample_poly`] (`scipy.signal`'s), along any axis of
//! a batch. The GPU runs one thread per output sample with the filter taps staged in shared
//! memory; the CPU runs the same sums (rayon over output rows).

use crate::procutil::{
    each_dtype, host, host_elems, split_axis, typed_kernel, typed_source, SignalScalar, DEF_TMAKE,
    DEF_TZERO, SIGNAL_DTYPES,
};
use crate::{firwin, FirWindow, FirwinOptions};
use cusci_core::array::check_same_device;
use cusci_core::array::layout::{checked_add, checked_mul, norm_axis};
use cusci_core::error::make;
use cusci_core::{c64, Array, Backend, Element, KernelModule, LaunchConfig, Result};
use rayon::prelude::*;

const SRC: &str = include_str!("resample.cu");

/// How [`upfirdn`] extends the signal past its ends (`mode=`), as SciPy's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UpfirdnMode {
    /// The constant `cval` (SciPy's default, with `cval = 0`).
    #[default]
    Constant,
    /// The edge values repeated.
    Edge,
    /// The line through the first and last samples, extended.
    Line,
    /// Periodic.
    Wrap,
    /// Mirrored with the edge sample repeated (`d c b a | a b c d | d c b a`).
    Symmetric,
    /// Mirrored about the edge sample (`d c b | a b c d | c b a`).
    Reflect,
}

impl UpfirdnMode {
    fn code(self) -> i32 {
        match self {
            UpfirdnMode::Constant => 0,
            UpfirdnMode::Edge => 1,
            UpfirdnMode::Line => 2,
            UpfirdnMode::Wrap => 3,
            UpfirdnMode::Symmetric => 4,
            UpfirdnMode::Reflect => 5,
        }
    }
}

/// The optional arguments of [`upfirdn`].
///
/// ```
/// use cusci_signal::{UpfirdnOptions, UpfirdnMode};
/// let o = UpfirdnOptions::<f64>::default();
/// assert_eq!((o.axis, o.mode, o.cval), (-1, UpfirdnMode::Constant, 0.0));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct UpfirdnOptions<T> {
    /// The axis to resample (negative counts from the end). Default `-1`.
    pub axis: isize,
    /// The signal extension. Default [`UpfirdnMode::Constant`].
    pub mode: UpfirdnMode,
    /// The fill value of [`UpfirdnMode::Constant`]. Default 0.
    pub cval: T,
}

impl<T: Element> Default for UpfirdnOptions<T> {
    fn default() -> Self {
        UpfirdnOptions {
            axis: -1,
            mode: UpfirdnMode::Constant,
            cval: T::zero(),
        }
    }
}

/// SciPy's `_output_len`: the length of the full upfirdn output,
/// `ceil(((n - 1) * up + m) / down)`.
pub(crate) fn upfirdn_len(m: usize, n: usize, up: usize, down: usize) -> usize {
    ((n - 1) * up + m).div_ceil(down)
}

/// How [`upfirdn_core`] extends a signal: the mode, and the constant of
/// [`UpfirdnMode::Constant`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Extension<T> {
    pub(crate) mode: UpfirdnMode,
    pub(crate) cval: T,
}

/// The extension of a signal `x` (stride `inner` from `base`) at integer index `i`, minus `bg`.
#[inline]
fn xval<T: SignalScalar>(
    x: &[T],
    base: usize,
    inner: usize,
    n: usize,
    i: i64,
    ext: Extension<T>,
    bg: T,
) -> T {
    let Extension { mode, cval } = ext;
    let n64 = n as i64;
    let at = |j: i64| x[base + j as usize * inner] - bg;
    if i >= 0 && i < n64 {
        return at(i);
    }
    match mode {
        UpfirdnMode::Constant => cval,
        UpfirdnMode::Edge => at(if i < 0 { 0 } else { n64 - 1 }),
        UpfirdnMode::Line => {
            let (x0, xl) = (x[base], x[base + (n - 1) * inner]);
            let slope = if n > 1 {
                (xl - x0) * T::from_c64(c64::new(1.0 / (n - 1) as f64, 0.0))
            } else {
                T::zero()
            };
            let d = T::from_c64(c64::new(
                (if i < 0 { i } else { i - (n64 - 1) }) as f64,
                0.0,
            ));
            (if i < 0 { x0 } else { xl }) + d * slope - bg
        }
        UpfirdnMode::Wrap => at(i.rem_euclid(n64)),
        UpfirdnMode::Symmetric => {
            let j = i.rem_euclid(2 * n64);
            at(if j < n64 { j } else { 2 * n64 - 1 - j })
        }
        UpfirdnMode::Reflect => {
            if n == 1 {
                return at(0);
            }
            let j = i.rem_euclid(2 * n64 - 2);
            at(if j < n64 { j } else { 2 * n64 - 2 - j })
        }
    }
}

/// The resampling kernel (`resample.cu`), one module per element type.
pub(crate) static RESAMPLE: KernelModule = KernelModule {
    name: "signal_resample",
    source: |s| typed_source("signal_resample", s, &[DEF_TZERO, DEF_TMAKE], SRC),
    options: &[],
    samples: || each_dtype(&SIGNAL_DTYPES),
};

/// One [`upfirdn_core`] run along `axis`: the taps `h`, the rates, the extension, the outputs
/// `[start, start + nout)` of the full result, and an optional per-signal background `bg`
/// (shape: x's with the axis length 1) taken off the signal and added to the output.
pub(crate) struct Upfirdn<'a, T: Element> {
    pub(crate) h: &'a [T],
    pub(crate) up: usize,
    pub(crate) down: usize,
    pub(crate) axis: usize,
    pub(crate) ext: Extension<T>,
    pub(crate) start: usize,
    pub(crate) nout: usize,
    pub(crate) bg: Option<&'a Array<T>>,
}

/// The core of upfirdn: the run `u` on `x`.
pub(crate) fn upfirdn_core<T: SignalScalar>(x: &Array<T>, u: &Upfirdn<'_, T>) -> Result<Array<T>> {
    let Upfirdn {
        h,
        up,
        down,
        axis,
        ext,
        start,
        nout,
        bg,
    } = *u;
    let (outer, n, inner) = split_axis(x.shape(), axis);
    let mut oshape = x.shape().to_vec();
    oshape[axis] = nout;
    let m = h.len();
    let total = outer * nout * inner;
    match x.backend() {
        Backend::Host(hx) => {
            let xd = hx.try_to_contiguous()?;
            let bgd = match bg {
                Some(b) => Some(host_elems(b)?),
                None => None,
            };
            let mut y = vec![T::zero(); total];
            let row = (nout * inner).max(1);
            y.par_chunks_mut(row).enumerate().for_each(|(o, yo)| {
                for k in 0..nout {
                    let t = ((k + start) * down) as i64;
                    let ilo = (t - m as i64 + up as i64).div_euclid(up as i64);
                    let ihi = t.div_euclid(up as i64);
                    for i in 0..inner {
                        let b = bgd.as_ref().map_or(T::zero(), |v| v[o * inner + i]);
                        let base = o * n * inner + i;
                        let mut acc = T::zero();
                        for ii in ilo..=ihi {
                            acc += h[(t - ii * up as i64) as usize]
                                * xval(&xd, base, inner, n, ii, ext, b);
                        }
                        yo[k * inner + i] = acc + b;
                    }
                }
            });
            Array::from_vec(y, &oshape, x.device())
        }
        Backend::Cuda(c) => {
            let xc = x.contiguous()?;
            let mut y = Array::<T>::empty(&oshape, x.device())?;
            if total == 0 {
                return Ok(y);
            }
            let hd = Array::from_vec(h.to_vec(), &[m], x.device())?;
            let bgc = match bg {
                Some(b) => Some(b.contiguous()?),
                None => None,
            };
            let d = c.dev();
            let f = typed_kernel(&RESAMPLE, d, T::DTYPE, "upfirdn")?;
            let hbytes = std::mem::size_of_val(h);
            let hshared = hbytes <= 32 * 1024;
            let cv = ext.cval.to_c64();
            let cval_zero = ext.cval == T::zero();
            // a grid-stride kernel: at most 65536 blocks
            let blocks = total.div_ceil(256).clamp(1, 65536) as u32;
            let mut cfg = LaunchConfig::linear(blocks, 256);
            if hshared {
                cfg.shared_mem_bytes = hbytes as u32;
            }
            d.launch(&f, cfg)
                .arg(xc.dev_ptr()?)
                .arg(hd.dev_ptr()?)
                .arg(m as i64)
                .arg(y.dev_ptr_mut()?)
                .arg(outer as i64)
                .arg(n as i64)
                .arg(inner as i64)
                .arg(nout as i64)
                .arg(start as i64)
                .arg(up as i64)
                .arg(down as i64)
                .arg(ext.mode.code())
                .arg(cv.re)
                .arg(cv.im)
                .arg(cval_zero as i32)
                .arg(bgc.as_ref().map(Array::dev_ptr).transpose()?)
                .arg(hshared as i32)
                .run()?;
            Ok(y)
        }
    }
}

fn check_rates(op: &str, up: usize, down: usize) -> Result<()> {
    if up == 0 || down == 0 {
        return Err(make::arg(
            op,
            format!("up and down must be >= 1, got up={up}, down={down}"),
        ));
    }
    Ok(())
}

fn check_x<T: Element>(op: &str, x: &Array<T>, axis: isize) -> Result<usize> {
    let ax = norm_axis(op, axis, x.ndim())?;
    if x.shape()[ax] == 0 {
        return Err(make::arg(op, "x must not be empty along the axis"));
    }
    Ok(ax)
}

/// Upsamples, FIR-filters and downsamples, SciPy's
/// `scipy.signal.upfirdn(h, x, up, down, axis, mode, cval)`: zero-insert `up - 1` samples
/// between the samples of `x`, filter with `h`, keep every `down`-th sample. The output length
/// along the axis is SciPy's: `ceil(((n - 1) * up + len(h)) / down)`.
///
/// Every signal along `opts.axis` is resampled in one pass; the taps `h` (1-D) are read to the
/// host (a small copy) and staged in shared memory on the GPU.
///
/// # Errors
/// `InvalidArgument` for `up` or `down` 0, empty `h` or `x`, non-finite taps or a bad axis;
/// `ShapeMismatch` when `h` is not 1-D; `DeviceMismatch` when `h` and `x` are on different
/// devices.
///
/// ```
/// use cusci_signal::{upfirdn, UpfirdnOptions, Array, Device};
/// let d = Device::cpu();
/// let h = Array::from_vec(vec![1.0f64, 1.0], &[2], &d).unwrap();
/// let x = Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3], &d).unwrap();
/// let y = upfirdn(&h, &x, 2, 1, &UpfirdnOptions::default()).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![1.0, 1.0, 2.0, 2.0, 3.0, 3.0]);
/// ```
pub fn upfirdn<T: SignalScalar>(
    h: &Array<T>,
    x: &Array<T>,
    up: usize,
    down: usize,
    opts: &UpfirdnOptions<T>,
) -> Result<Array<T>> {
    let op = "upfirdn";
    check_rates(op, up, down)?;
    if h.ndim() != 1 {
        return Err(make::shape(
            op,
            format!("h must be one-dimensional, got shape {:?}", h.shape()),
        ));
    }
    check_same_device(op, h.device(), x.device())?;
    if h.is_empty() {
        return Err(make::arg(op, "h must not be empty"));
    }
    let ax = check_x(op, x, opts.axis)?;
    let hv = host(h)?;
    if hv.iter().any(|v| !v.is_finite_val()) {
        return Err(make::arg(op, "the filter taps must be finite"));
    }
    let nout = upfirdn_len(hv.len(), x.shape()[ax], up, down);
    let u = Upfirdn {
        h: &hv,
        up,
        down,
        axis: ax,
        ext: Extension {
            mode: opts.mode,
            cval: opts.cval,
        },
        start: 0,
        nout,
        bg: None,
    };
    upfirdn_core(x, &u)
}

/// The padding of [`resample_poly`] (`padtype=`), as SciPy's.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum PadType {
    /// A constant (`cval`, default 0). SciPy's default.
    #[default]
    Constant,
    /// The edge values repeated.
    Edge,
    /// The line through the first and last samples.
    Line,
    /// Periodic.
    Wrap,
    /// Mirrored with the edge sample repeated.
    Symmetric,
    /// Mirrored about the edge sample.
    Reflect,
    /// Zero padding of the signal minus its mean (the mean is added back).
    Mean,
    /// As `Mean` with the median (real types only).
    Median,
    /// As `Mean` with the maximum (real types only).
    Maximum,
    /// As `Mean` with the minimum (real types only).
    Minimum,
}

/// The FIR filter of [`resample_poly`] (`window=`).
#[derive(Debug, Clone, PartialEq)]
pub enum PolyWindow {
    /// `firwin(2 * 10 * max(up, down) + 1, 1 / max(up, down), window)`. The default is
    /// SciPy's `('kaiser', 5.0)`.
    Design(FirWindow),
    /// The FIR taps themselves (SciPy's array `window`), used as given (times `up`).
    Taps(Vec<f64>),
}

impl Default for PolyWindow {
    fn default() -> Self {
        PolyWindow::Design(FirWindow::Kaiser(5.0))
    }
}

/// The optional arguments of [`resample_poly`].
///
/// ```
/// use cusci_signal::{ResamplePolyOptions, PadType, PolyWindow, FirWindow};
/// let o = ResamplePolyOptions::default();
/// assert_eq!((o.axis, o.padtype), (0, PadType::Constant));
/// assert_eq!(o.window, PolyWindow::Design(FirWindow::Kaiser(5.0)));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ResamplePolyOptions {
    /// The axis to resample. Default `0` (SciPy's default for `resample_poly`).
    pub axis: isize,
    /// The anti-aliasing FIR filter. Default Kaiser, β = 5.
    pub window: PolyWindow,
    /// The padding. Default [`PadType::Constant`].
    pub padtype: PadType,
    /// The fill value of [`PadType::Constant`]. Default `None` (0).
    pub cval: Option<f64>,
}

impl Default for ResamplePolyOptions {
    fn default() -> Self {
        ResamplePolyOptions {
            axis: 0,
            window: PolyWindow::default(),
            padtype: PadType::Constant,
            cval: None,
        }
    }
}

/// Resamples along an axis by the rational factor `up / down` with a polyphase FIR filter,
/// SciPy's `scipy.signal.resample_poly(x, up, down, axis, window, padtype, cval)`.
///
/// `up` and `down` are reduced by their gcd; the output has `ceil(n * up / down)` samples
/// along the axis. The filter (designed in f64 on the host, SciPy's exact taps and delay
/// compensation) is applied by [`upfirdn`]'s kernel, which computes only the kept outputs.
/// With `up == down` the input is returned as a copy.
///
/// # Errors
/// `InvalidArgument` for `up` or `down` 0, an empty signal, empty or non-finite taps, a bad
/// axis; `UnsupportedDType` for `Median`/`Maximum`/`Minimum` padding of complex input.
///
/// ```
/// use cusci_signal::{resample_poly, ResamplePolyOptions, Array, Device};
/// let d = Device::cpu();
/// let x = Array::from_vec(vec![1.0f64; 8], &[8], &d).unwrap();
/// let y = resample_poly(&x, 3, 2, &ResamplePolyOptions::default()).unwrap();
/// assert_eq!(y.shape(), &[12]);
/// ```
pub fn resample_poly<T: SignalScalar>(
    x: &Array<T>,
    up: usize,
    down: usize,
    opts: &ResamplePolyOptions,
) -> Result<Array<T>> {
    let op = "resample_poly";
    check_rates(op, up, down)?;
    let ax = check_x(op, x, opts.axis)?;
    let g = gcd(up, down);
    let (up, down) = (up / g, down / g);
    let mut h = match &opts.window {
        PolyWindow::Taps(t) => {
            if t.is_empty() || t.iter().any(|v| !v.is_finite()) {
                return Err(make::arg(
                    op,
                    "the window taps must be finite and non-empty",
                ));
            }
            t.clone()
        }
        PolyWindow::Design(w) => {
            let max_rate = up.max(down);
            if max_rate == 1 {
                Vec::new()
            } else {
                // 2 · 10 · max_rate + 1 taps, checked: a huge rate is an error, not a wrap
                let numtaps = checked_mul(op, 20, max_rate, "filter length")
                    .and_then(|v| checked_add(op, v, 1, "filter length"))?;
                cusci_core::host::check_request(checked_mul(op, numtaps, 16, "filter bytes")?)?;
                firwin(
                    numtaps,
                    &[1.0 / max_rate as f64],
                    &FirwinOptions {
                        window: *w,
                        ..Default::default()
                    },
                )?
            }
        }
    };
    if up == 1 && down == 1 {
        return x.copy();
    }
    let half_len = (h.len() - 1) / 2;
    h.iter_mut().for_each(|v| *v *= up as f64);
    let n_in = x.shape()[ax];
    let n_out = checked_mul(op, n_in, up, "output length")?.div_ceil(down);
    // the output's bytes, checked before the padding loop and the allocation (on the host:
    // a GPU's allocation reports its own OutOfMemory)
    let batch = x.len() / n_in.max(1);
    let out_bytes = checked_mul(op, n_out, batch, "output length")
        .and_then(|v| checked_mul(op, v, std::mem::size_of::<T>(), "output bytes"))?;
    if !x.device().is_cuda() {
        cusci_core::host::check_request(out_bytes)?;
    }
    let n_pre_pad = down - half_len % down;
    let n_pre_remove = (half_len + n_pre_pad) / down;
    let mut n_post_pad = 0;
    while upfirdn_len(h.len() + n_pre_pad + n_post_pad, n_in, up, down) < n_out + n_pre_remove {
        n_post_pad += 1;
    }
    let mut taps = vec![T::zero(); n_pre_pad];
    taps.extend(h.iter().map(|&v| T::from_c64(c64::new(v, 0.0))));
    taps.extend(std::iter::repeat_n(T::zero(), n_post_pad));
    let (mode, cval, bg) = match opts.padtype {
        PadType::Constant => (
            UpfirdnMode::Constant,
            T::from_c64(c64::new(opts.cval.unwrap_or(0.0), 0.0)),
            None,
        ),
        PadType::Edge => (UpfirdnMode::Edge, T::zero(), None),
        PadType::Line => (UpfirdnMode::Line, T::zero(), None),
        PadType::Wrap => (UpfirdnMode::Wrap, T::zero(), None),
        PadType::Symmetric => (UpfirdnMode::Symmetric, T::zero(), None),
        PadType::Reflect => (UpfirdnMode::Reflect, T::zero(), None),
        p => (
            UpfirdnMode::Constant,
            T::zero(),
            Some(background(op, x, ax, p)?),
        ),
    };
    let u = Upfirdn {
        h: &taps,
        up,
        down,
        axis: ax,
        ext: Extension { mode, cval },
        start: n_pre_remove,
        nout: n_out,
        bg: bg.as_ref(),
    };
    upfirdn_core(x, &u)
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The per-signal background value (shape: x's with the axis length 1).
fn background<T: SignalScalar>(op: &str, x: &Array<T>, ax: usize, p: PadType) -> Result<Array<T>> {
    let axes = [ax as isize];
    match p {
        PadType::Mean => x.mean_axes_keepdims(&axes),
        _ if T::DTYPE.is_complex() => Err(cusci_core::Error::UnsupportedDType {
            op: op.into(),
            dtype: T::DTYPE,
        }),
        // real types only (checked above): through f64, exact for f32 and f64
        PadType::Maximum => x.astype::<f64>()?.max_axes_keepdims(&axes)?.astype::<T>(),
        PadType::Minimum => x.astype::<f64>()?.min_axes_keepdims(&axes)?.astype::<T>(),
        _ => {
            // the median: on the host (one copy of x), NumPy's mean of the two middle values
            let (outer, n, inner) = split_axis(x.shape(), ax);
            let xd = host(x)?;
            let mut med = vec![T::zero(); outer * inner];
            let mut buf = vec![0.0f64; n];
            for o in 0..outer {
                for i in 0..inner {
                    for t in 0..n {
                        buf[t] = xd[o * n * inner + t * inner + i].to_c64().re;
                    }
                    buf.sort_by(|a, b| a.total_cmp(b));
                    let v = if n % 2 == 1 {
                        buf[n / 2]
                    } else {
                        0.5 * (buf[n / 2 - 1] + buf[n / 2])
                    };
                    med[o * inner + i] = T::from_c64(c64::new(v, 0.0));
                }
            }
            let mut shape = x.shape().to_vec();
            shape[ax] = 1;
            Array::from_vec(med, &shape, x.device())
        }
    }
}
