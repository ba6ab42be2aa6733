//! Overlap-add convolution, SciPy's `scipy.signal.oaconvolve`: the longer input is cut into
//! blocks, each block is convolved with the shorter input through batched FFTs of one block
//! length (`cusci_fft`'s N-D real or complex transforms on the arrays' device), and the block
//! results are added where they overlap (a small kernel on the GPU, a loop on the CPU).

use super::convnd::nd_conv;
use super::method::{ConvMethod, ConvMode};
use crate::procutil::{
    each_dtype, split_axis, typed_kernel, typed_source, SignalScalar, DEF_TZERO, SIGNAL_DTYPES,
};
use cusci_core::array::check_same_device;
use cusci_core::array::layout::norm_axis;
use cusci_core::error::make;
use cusci_core::{
    Array, Backend, CudaDevice, Element, Function, KernelModule, LaunchConfig, Result,
};
use rayon::prelude::*;

const SRC: &str = include_str!("oaconv.cu");

/// The overlap-add helpers' kernels (`oaconv.cu`), one module per element type.
pub(crate) static OACONV: KernelModule = KernelModule {
    name: "signal_oaconv",
    source: |s| typed_source("signal_oaconv", s, &[DEF_TZERO], SRC),
    options: &[],
    samples: || each_dtype(&SIGNAL_DTYPES),
};

fn kernel<T: Element>(d: &CudaDevice, name: &str) -> Result<Function> {
    typed_kernel(&OACONV, d, T::DTYPE, name)
}

/// The principal-branch-(-1) Lambert W, `w <= -1` with `w e^w = x`, for `-1/e < x < 0`
/// (Halley's iteration from the asymptotic start).
fn lambert_w_m1(x: f64) -> f64 {
    let l1 = (-x).ln();
    let l2 = (-l1).ln();
    let mut w = if x < -0.25 { -2.0 } else { l1 - l2 + l2 / l1 };
    for _ in 0..100 {
        let ew = w.exp();
        let f = w * ew - x;
        let d = ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0);
        let step = f / d;
        w -= step;
        if step.abs() <= 4.0 * f64::EPSILON * w.abs() {
            break;
        }
    }
    w
}

/// SciPy's `_calc_oa_lens`: (block size, overlap (None: one block), in1 step, in2 step).
fn calc_oa_lens(s1: usize, s2: usize) -> Result<(usize, Option<usize>, usize, usize)> {
    let fallback = (s1 + s2 - 1, None, s1, s2);
    if s1 == s2 || s1 == 1 || s2 == 1 {
        return Ok(fallback);
    }
    let (big, small, swapped) = if s2 > s1 {
        (s2, s1, true)
    } else {
        (s1, s2, false)
    };
    if 2 * small >= big {
        return Ok(fallback);
    }
    let overlap = small - 1;
    let k = overlap as f64;
    let opt = -k * lambert_w_m1(-1.0 / (2.0 * std::f64::consts::E * k));
    let block = cusci_fft::next_fast_len(opt.ceil() as usize, false)?;
    if block >= big {
        return Ok(fallback);
    }
    Ok(if swapped {
        (block, Some(overlap), small, block - small + 1)
    } else {
        (block, Some(overlap), block - small + 1, small)
    })
}

/// SciPy's `_init_freq_conv_axes`: the axes that need transforms (sorted, without axes of length
/// 1 in either input) and whether `Valid` mode swaps the inputs.
fn init_axes(
    op: &str,
    s1: &[usize],
    s2: &[usize],
    mode: ConvMode,
    axes: Option<&[isize]>,
) -> Result<(Vec<usize>, bool)> {
    let nd = s1.len();
    let mut ax: Vec<usize> = match axes {
        None => (0..nd).collect(),
        Some([]) => return Err(make::arg(op, "when provided, axes cannot be empty")),
        Some(a) => a
            .iter()
            .map(|&v| norm_axis(op, v, nd))
            .collect::<Result<_>>()?,
    };
    ax.sort_unstable();
    let n = ax.len();
    ax.dedup();
    if ax.len() != n {
        return Err(make::arg(op, "all axes must be unique"));
    }
    ax.retain(|&a| s1[a] != 1 && s2[a] != 1);
    for d in (0..nd).filter(|d| !ax.contains(d)) {
        if s1[d] != s2[d] && s1[d] != 1 && s2[d] != 1 {
            return Err(make::shape(
                op,
                format!("incompatible shapes for in1 and in2: {s1:?} and {s2:?}"),
            ));
        }
    }
    let mut swap = false;
    if mode == ConvMode::Valid {
        let ok1 = ax.iter().all(|&a| s1[a] >= s2[a]);
        let ok2 = ax.iter().all(|&a| s2[a] >= s1[a]);
        if !ok1 && !ok2 {
            return Err(make::arg(
                op,
                "for 'valid' mode, one must be at least as large as the other in every dimension",
            ));
        }
        swap = !ok1;
    }
    Ok((ax, swap))
}

/// SciPy's `_apply_conv_mode`: the crop of the full result `ret` for `mode`.
fn apply_mode<T: SignalScalar>(
    ret: Array<T>,
    s1: &[usize],
    s2: &[usize],
    mode: ConvMode,
    axes: &[usize],
) -> Result<Array<T>> {
    let want: Vec<usize> = match mode {
        ConvMode::Full => return ret.contiguous(),
        ConvMode::Same => s1.to_vec(),
        ConvMode::Valid => (0..s1.len())
            .map(|a| {
                if axes.contains(&a) {
                    s1[a] - s2[a] + 1
                } else {
                    ret.shape()[a]
                }
            })
            .collect(),
    };
    let mut y = ret;
    for (d, &w) in want.iter().enumerate() {
        let cur = y.shape()[d];
        if w != cur {
            let start = (cur - w) / 2;
            y = y.slice_axis(
                d as isize,
                Some(start as isize),
                Some((start + w) as isize),
                1,
            )?;
        }
    }
    y.contiguous()
}

/// A new array of `shape` written by the kernel `name` from `x` (made contiguous), one thread
/// per output element: `name(x, out, dims as 64-bit integers...)`.
fn launch_into<T: SignalScalar>(
    d: &CudaDevice,
    name: &str,
    x: &Array<T>,
    shape: &[usize],
    dims: &[usize],
) -> Result<Array<T>> {
    let xc = x.contiguous()?;
    let mut out = Array::<T>::empty(shape, x.device())?;
    let f = kernel::<T>(d, name)?;
    let mut launch = d
        .launch(&f, LaunchConfig::cover(out.size(), 256)?)
        .arg(xc.dev_ptr()?)
        .arg(out.dev_ptr_mut()?);
    for &v in dims {
        launch = launch.arg(v as i64);
    }
    launch.run()?;
    Ok(out)
}

/// Zero padding of contiguous `x` at the end of `axis` to length `npad`.
fn pad_axis<T: SignalScalar>(x: &Array<T>, axis: usize, npad: usize) -> Result<Array<T>> {
    let (outer, n, inner) = split_axis(x.shape(), axis);
    let mut shape = x.shape().to_vec();
    shape[axis] = npad;
    match x.backend() {
        Backend::Host(h) => {
            let src = h.try_to_contiguous()?;
            let mut out = vec![T::zero(); outer * npad * inner];
            if inner > 0 && n > 0 {
                out.par_chunks_mut(npad * inner)
                    .zip(src.par_chunks(n * inner))
                    .for_each(|(o, s)| o[..n * inner].copy_from_slice(s));
            }
            Array::from_vec(out, &shape, x.device())
        }
        Backend::Cuda(c) => launch_into(c.dev(), "pad", x, &shape, &[outer, n, npad, inner]),
    }
}

/// The overlap-add of contiguous `r` whose dimensions `split` and `split + 1` are (blocks,
/// block length): block `j` starts at `j * step`; the result has the two dimensions merged into
/// one of length `len` (at most blocks·step).
fn overlap_add<T: SignalScalar>(
    r: &Array<T>,
    split: usize,
    step: usize,
    len: usize,
) -> Result<Array<T>> {
    let sh = r.shape();
    let (nsteps, block) = (sh[split], sh[split + 1]);
    let overlap = block - step;
    let outer: usize = sh[..split].iter().product();
    let inner: usize = sh[split + 2..].iter().product();
    let mut shape: Vec<usize> = sh[..split].to_vec();
    shape.push(len);
    shape.extend_from_slice(&sh[split + 2..]);
    match r.backend() {
        Backend::Host(h) => {
            let src = h.try_to_contiguous()?;
            let mut out = vec![T::zero(); outer * len * inner];
            if inner > 0 && len > 0 {
                out.par_chunks_mut(len * inner)
                    .enumerate()
                    .for_each(|(o, dst)| {
                        let base = o * nsteps * block * inner;
                        for t in 0..len {
                            let (j, q) = (t / step, t % step);
                            let cur = base + (j * block + q) * inner;
                            let row = &mut dst[t * inner..(t + 1) * inner];
                            row.copy_from_slice(&src[cur..cur + inner]);
                            if q < overlap && j > 0 {
                                let prev = base + ((j - 1) * block + q + step) * inner;
                                for (y, &p) in row.iter_mut().zip(&src[prev..prev + inner]) {
                                    *y += p;
                                }
                            }
                        }
                    });
            }
            Array::from_vec(out, &shape, r.device())
        }
        Backend::Cuda(c) => launch_into(
            c.dev(),
            "oa",
            r,
            &shape,
            &[outer, nsteps, block, step, overlap, len, inner],
        ),
    }
}

/// Convolves two N-D arrays by the overlap-add method, SciPy's
/// `scipy.signal.oaconvolve(in1, in2, mode, axes)`; the result equals
/// [`fftconvolve_axes`](crate::fftconvolve_axes)'s up to rounding, faster when one input is
/// much longer than the other.
///
/// As SciPy: axes where either input has length 1 broadcast (no transform); along every other
/// axis of `axes` (`None`: all) the block length is SciPy's `_calc_oa_lens` (the minimiser of
/// the FFT work per output point, `-K·W₋₁(-1/(2eK))` for an overlap `K` = shorter length - 1,
/// rounded up to `next_fast_len`), the longer input is zero-padded and cut into blocks of
/// `block - K` points, all blocks are transformed, multiplied and inverse-transformed at once
/// (batched `rfftn`/`fftn` of the block shape), and the block results are added where they
/// overlap. An axis whose shorter input is at least half the longer one, or where one block
/// covers everything, is one plain FFT convolution (SciPy's fallback). Equal shapes, or no
/// blocking on any axis, are [`fftconvolve_axes`](crate::fftconvolve_axes) (SciPy's shortcut).
/// Empty inputs give an empty 1-D array (as SciPy).
///
/// # Errors
/// `ShapeMismatch` for inputs with different numbers of dimensions or non-broadcastable other
/// axes; `InvalidArgument` for an empty `axes`, bad or repeated axes, or `Valid` mode where
/// neither input is at least as large as the other along every axis; `DeviceMismatch`.
///
/// ```
/// use cusci_signal::{oaconvolve, ConvMode, Array, Device};
/// let d = Device::cpu();
/// let a = Array::from_vec((0..200).map(|i| i as f64).collect(), &[200], &d).unwrap();
/// let k = Array::from_vec(vec![0.25f64, 0.5, 0.25], &[3], &d).unwrap();
/// let y = oaconvolve(&a, &k, ConvMode::Valid, None).unwrap().to_vec().unwrap();
/// assert_eq!(y.len(), 198);
/// // a linear ramp smoothed by a symmetric kernel is the ramp
/// assert!(y.iter().enumerate().all(|(i, v)| (v - (i + 1) as f64).abs() < 1e-9));
/// ```
pub fn oaconvolve<T: SignalScalar>(
    in1: &Array<T>,
    in2: &Array<T>,
    mode: ConvMode,
    axes: Option<&[isize]>,
) -> Result<Array<T>> {
    let op = "oaconvolve";
    let nd = in1.ndim();
    if in2.ndim() != nd {
        return Err(make::shape(
            op,
            format!(
                "in1 and in2 should have the same dimensionality, got {:?} and {:?}",
                in1.shape(),
                in2.shape()
            ),
        ));
    }
    check_same_device(op, in1.device(), in2.device())?;
    if nd == 0 {
        return in1.mul(in2);
    }
    if in1.is_empty() || in2.is_empty() {
        return Array::zeros(&[0], in1.device());
    }
    let (axes, swap) = init_axes(op, in1.shape(), in2.shape(), mode, axes)?;
    let (p, q) = if swap { (in2, in1) } else { (in1, in2) };
    let (s1, s2) = (p.shape().to_vec(), q.shape().to_vec());
    // the plain FFT convolution of SciPy's shortcuts, cropped as SciPy's fftconvolve
    let plain = |p: &Array<T>, q: &Array<T>| -> Result<Array<T>> {
        if axes.is_empty() {
            return apply_mode(p.mul(q)?, &s1, &s2, mode, &axes);
        }
        let ax: Vec<isize> = axes.iter().map(|&a| a as isize).collect();
        let full = nd_conv(op, p, q, ConvMode::Full, Some(&ax), false, ConvMethod::Fft)?;
        apply_mode(full, &s1, &s2, mode, &axes)
    };
    if axes.is_empty() || s1 == s2 {
        return plain(p, q);
    }
    let mut lens = Vec::with_capacity(axes.len());
    for &a in &axes {
        lens.push(calc_oa_lens(s1[a], s2[a])?);
    }
    if lens
        .iter()
        .zip(&axes)
        .all(|(l, &a)| l.2 == s1[a] && l.3 == s2[a])
    {
        return plain(p, q);
    }
    // blocks per axis and the zero padding of each input
    let mut pp = p.contiguous()?;
    let mut qq = q.contiguous()?;
    let mut shape1 = Vec::new();
    let mut shape2 = Vec::new();
    let mut fft_axes = Vec::new();
    let mut blocks = Vec::new();
    let mut k = 0;
    for d in 0..nd {
        if k < axes.len() && axes[k] == d {
            let (block, overlap, st1, st2) = lens[k];
            let final_len = s1[d] + s2[d] - 1;
            let per = block - overlap.unwrap_or(0);
            let steps = |s: usize, st: usize| {
                if s > st {
                    let mut n = (s + 1).div_ceil(st);
                    if per * n < final_len {
                        n += 1;
                    }
                    n
                } else {
                    1
                }
            };
            let (n1, n2) = (steps(s1[d], st1), steps(s2[d], st2));
            if n1 * st1 != s1[d] {
                pp = pad_axis(&pp, d, n1 * st1)?;
            }
            if n2 * st2 != s2[d] {
                qq = pad_axis(&qq, d, n2 * st2)?;
            }
            shape1.extend([n1, st1]);
            shape2.extend([n2, st2]);
            fft_axes.push(shape1.len() - 1);
            blocks.push(block);
            k += 1;
        } else {
            shape1.push(s1[d]);
            shape2.push(s2[d]);
        }
    }
    let as_isize = |v: &[usize]| v.iter().map(|&x| x as isize).collect::<Vec<_>>();
    let pr = pp.reshape(&as_isize(&shape1))?;
    let qr = qq.reshape(&as_isize(&shape2))?;
    let mut ret = T::fft_convolve_nd(&pr, &qr, &fft_axes, &blocks)?.contiguous()?;
    // the overlap-add, last axis first (the split positions of earlier axes stay put)
    for k in (0..axes.len()).rev() {
        let d = axes[k];
        let (block, overlap, _, _) = lens[k];
        let split = fft_axes[k] - 1;
        let final_len = s1[d] + s2[d] - 1;
        ret = match overlap {
            Some(ov) => overlap_add(&ret, split, block - ov, final_len)?,
            None => {
                // one block of the full length: merge the (1, block) pair
                let mut sh = as_isize(ret.shape());
                sh.remove(split);
                ret.reshape(&sh)?
            }
        };
    }
    apply_mode(ret, &s1, &s2, mode, &axes)
}
