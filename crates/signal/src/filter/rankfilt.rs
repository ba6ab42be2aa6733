//! [`order_filter`] and [`medfilt2d`] (an N-D rank filter with zero padding: one CUDA thread per
//! output gathering its window and quickselecting, `rankfilt.cu`; rayon on the CPU),
//! [`wiener`] (local mean and variance through [`correlate`](crate::correlate), then the core's
//! element-wise ops) and [`hilbert2`] (`cusci_fft`'s 2-D transforms).

use crate::procutil::{from_f64, sized_kernel, sized_source, REAL_DTYPES};
use cusci_core::array::check_same_device;
use cusci_core::array::layout::{checked_bytes, checked_numel, norm_axis};
use cusci_core::error::make;
use cusci_core::host::{check_request, try_vec_filled, try_with_capacity};
use cusci_core::{Array, Backend, Element, KernelModule, LaunchConfig, RealFloat, Result, Spec};
use cusci_fft::{FftInput, FftReal, FftnOptions};
use rayon::prelude::*;

const SRC: &str = include_str!("rankfilt.cu");

/// Window capacities the kernel is compiled for.
const KMAX: [usize; 4] = [16, 64, 256, 1024];

/// The rank filter's kernel (`rankfilt.cu`) for a real type and a window capacity `[kmax]`.
pub(crate) static RANKFILT: KernelModule = KernelModule {
    name: "signal_rankfilt",
    source: |s| sized_source("signal_rankfilt", "KMAX", s, SRC),
    options: &[],
    samples: || {
        KMAX.iter()
            .flat_map(|&k| REAL_DTYPES.map(|t| Spec::of(&[t]).with(&[k as i64])))
            .collect()
    },
};

/// The order of the rank filters: the numbers' order with NaN above every number and NaNs equal
/// (NumPy's sort order, up to the sign of zero), the same as the kernels' `lt`.
pub(crate) fn nan_last<T: RealFloat>(a: &T, b: &T) -> std::cmp::Ordering {
    a.partial_cmp(b)
        .unwrap_or_else(|| Element::is_nan(*a).cmp(&Element::is_nan(*b)))
}

/// The rank-`rank` element of each window `offsets` (relative to the output) with zeros outside.
pub(crate) fn rank_filter<T: RealFloat>(
    op: &str,
    x: &Array<T>,
    offsets: &[Vec<i64>],
    rank: usize,
) -> Result<Array<T>> {
    let nd = x.ndim();
    let cnt = offsets.len();
    if x.is_empty() {
        return x.copy();
    }
    let shape: Vec<i64> = x.shape().iter().map(|&v| v as i64).collect();
    match x.backend() {
        Backend::Host(h) => {
            let xd = h.try_to_contiguous()?;
            let mut y = vec![<T as Element>::zero(); x.size()];
            y.par_chunks_mut(256).enumerate().for_each(|(c, chunk)| {
                let mut w = vec![<T as Element>::zero(); cnt];
                let mut idx = vec![0i64; nd];
                for (o, slot) in chunk.iter_mut().enumerate() {
                    let mut r = (c * 256 + o) as i64;
                    for d in (0..nd).rev() {
                        idx[d] = r % shape[d];
                        r /= shape[d];
                    }
                    for (k, off) in offsets.iter().enumerate() {
                        let mut lin = 0i64;
                        let mut inside = true;
                        for d in 0..nd {
                            let q = idx[d] + off[d];
                            inside &= q >= 0 && q < shape[d];
                            lin = lin * shape[d] + q;
                        }
                        w[k] = if inside {
                            xd[lin as usize]
                        } else {
                            <T as Element>::zero()
                        };
                    }
                    let (_, v, _) = w.select_nth_unstable_by(rank, nan_last);
                    *slot = *v;
                }
            });
            Array::from_vec(y, x.shape(), x.device())
        }
        Backend::Cuda(c) => {
            let kmax = KMAX.iter().copied().find(|&k| k >= cnt).ok_or_else(|| {
                make::not_implemented(
                    op,
                    format!("a domain of {cnt} elements on the GPU (at most 1024)"),
                )
            })?;
            if nd > 8 {
                return Err(make::not_implemented(
                    op,
                    "more than 8 dimensions on the GPU",
                ));
            }
            let xc = x.contiguous()?;
            let sh = Array::from_vec(shape.clone(), &[nd], x.device())?;
            let flat: Vec<i64> = offsets.iter().flatten().copied().collect();
            let off = Array::from_vec(flat, &[cnt * nd], x.device())?;
            let mut y = Array::<T>::empty(x.shape(), x.device())?;
            let d = c.dev();
            let spec = Spec::of(&[T::DTYPE]).with(&[kmax as i64]);
            let f = sized_kernel(&RANKFILT, d, &spec, "rank_filter")?;
            d.launch(&f, LaunchConfig::cover(x.size(), 128)?)
                .arg(xc.dev_ptr()?)
                .arg(y.dev_ptr_mut()?)
                .arg(sh.dev_ptr()?)
                .arg(off.dev_ptr()?)
                .arg(nd as i32)
                .arg(cnt as i32)
                .arg(rank as i32)
                .arg(x.size() as i64)
                .run()?;
            Ok(y)
        }
    }
}

/// Offsets of every element of a box of odd lengths `dshape`, centred.
pub(crate) fn box_offsets(op: &str, dshape: &[usize]) -> Result<Vec<Vec<i64>>> {
    let cnt = checked_numel(op, dshape)?;
    domain_offsets(op, dshape, &try_vec_filled(op, cnt, true)?)
}

/// Offsets of the true elements of a domain of `dshape` (odd lengths), centred; their memory
/// checked first (a huge window is OutOfMemory, SciPy's MemoryError, or InvalidArgument past
/// isize::MAX bytes, not an abort).
fn domain_offsets(op: &str, dshape: &[usize], mask: &[bool]) -> Result<Vec<Vec<i64>>> {
    let nd = dshape.len();
    let count = mask.iter().filter(|&&m| m).count();
    check_request(checked_bytes(op, count, 8 * nd)?)?;
    let mut out = try_with_capacity(op, count)?;
    for (lin, &m) in mask.iter().enumerate() {
        if !m {
            continue;
        }
        let mut r = lin;
        let mut off = vec![0i64; nd];
        for d in (0..nd).rev() {
            off[d] = (r % dshape[d]) as i64 - (dshape[d] / 2) as i64;
            r /= dshape[d];
        }
        out.push(off);
    }
    Ok(out)
}

/// The rank filter of SciPy's `scipy.signal.order_filter(a, domain, rank)`: each output is the
/// element of rank `rank` (0 = smallest) among the inputs under the non-zero elements of
/// `domain` centred on it, with zeros beyond the edges. Any number of dimensions
/// (`domain.ndim() == a.ndim()`); on the GPU the domain may hold up to 1024 non-zero elements.
///
/// Numerics: the result is an element of the window, identical on both devices. NaN sorts
/// above +∞ (NumPy's sort order) on both; SciPy's result for a window holding NaN depends on
/// its selection algorithm's comparisons and can differ (windows without NaN match exactly).
///
/// # Errors
/// `ShapeMismatch` when `domain` has another number of dimensions; `InvalidArgument` for even
/// domain lengths or `rank` not below the count of non-zero domain elements; `NotImplemented`
/// for a GPU domain of more than 1024 elements; `DeviceMismatch`.
///
/// ```
/// use cusci_signal::{order_filter, Array, Device};
/// let d = Device::cpu();
/// let x = Array::from_vec(vec![3.0f64, 1.0, 2.0, 5.0], &[4], &d).unwrap();
/// let dom = Array::from_vec(vec![1.0f64, 1.0, 1.0], &[3], &d).unwrap();
/// let y = order_filter(&x, &dom, 2).unwrap().to_vec().unwrap(); // running max
/// assert_eq!(y, vec![3.0, 3.0, 5.0, 5.0]);
/// ```
pub fn order_filter<T: RealFloat>(
    a: &Array<T>,
    domain: &Array<T>,
    rank: usize,
) -> Result<Array<T>> {
    let op = "order_filter";
    if domain.ndim() != a.ndim() || a.ndim() == 0 {
        return Err(make::shape(
            op,
            format!(
                "domain {:?} must have the dimensions of a {:?}",
                domain.shape(),
                a.shape()
            ),
        ));
    }
    check_same_device(op, a.device(), domain.device())?;
    if domain.shape().iter().any(|&s| s % 2 == 0) {
        return Err(make::arg(op, "each dimension of domain must be odd"));
    }
    let mask: Vec<bool> = domain
        .to_vec()?
        .into_iter()
        .map(|v| v != <T as Element>::zero())
        .collect();
    let offs = domain_offsets(op, domain.shape(), &mask)?;
    if rank >= offs.len() {
        return Err(make::arg(
            op,
            format!(
                "rank {rank} must be below the number of non-zero domain elements ({})",
                offs.len()
            ),
        ));
    }
    rank_filter(op, a, &offs, rank)
}

/// The 2-D median filter with zero padding, SciPy's `scipy.signal.medfilt2d(input,
/// kernel_size)`: [`order_filter`] with a `kernel_size` box and the middle rank.
/// The same as [`medfilt`](crate::medfilt) on 2-D input (SciPy's `_medfilt2d` and its
/// `medfilt` agree); NaN as in [`order_filter`].
///
/// # Errors
/// `ShapeMismatch` for input that is not 2-D; `InvalidArgument` for even or zero kernel sizes.
///
/// ```
/// use cusci_signal::{medfilt2d, Array, Device};
/// let x = Array::from_vec(vec![1.0f64; 9], &[3, 3], &Device::cpu()).unwrap();
/// let y = medfilt2d(&x, [3, 3]).unwrap().to_vec().unwrap();
/// assert_eq!(y[4], 1.0);
/// assert_eq!(y[0], 0.0); // 4 ones and 5 padding zeros
/// ```
pub fn medfilt2d<T: RealFloat>(input: &Array<T>, kernel_size: [usize; 2]) -> Result<Array<T>> {
    let op = "medfilt2d";
    if input.ndim() != 2 {
        return Err(make::shape(
            op,
            format!("a 2-D input expected, got {:?}", input.shape()),
        ));
    }
    if kernel_size.iter().any(|&k| k == 0 || k % 2 == 0) {
        return Err(make::arg(
            op,
            format!("kernel_size must be odd and positive, got {kernel_size:?}"),
        ));
    }
    let cnt = kernel_size[0]
        .checked_mul(kernel_size[1])
        .ok_or_else(|| make::arg(op, format!("a window of {kernel_size:?} points overflows")))?;
    rank_filter(op, input, &box_offsets(op, &kernel_size)?, cnt / 2)
}

/// The Wiener filter of SciPy's `scipy.signal.wiener(im, mysize, noise)`: with the local mean
/// `m` and variance `v` over a `mysize` window (`correlate(.., ones, 'same')`, zero padded),
/// `m + (1 - noise / v) (x - m)` where `v >= noise`, else `m`; `noise` defaults to the mean of
/// `v`. `mysize = None` is 3 along every axis. Any number of dimensions (1-D and 2-D windows by
/// the direct method, more by FFT).
///
/// # Errors
/// `InvalidArgument` for an empty input, a `mysize` of the wrong length or with zeros, or a
/// non-finite `noise`.
///
/// ```
/// use cusci_signal::{wiener, Array, Device};
/// let x = Array::from_vec(vec![2.0f64; 8], &[8], &Device::cpu()).unwrap();
/// let y = wiener(&x, Some(&[3]), None).unwrap().to_vec().unwrap();
/// assert!((y[3] - 2.0).abs() < 1e-12);
/// ```
pub fn wiener<T: RealFloat + crate::SignalScalar>(
    im: &Array<T>,
    mysize: Option<&[usize]>,
    noise: Option<f64>,
) -> Result<Array<T>> {
    let op = "wiener";
    let nd = im.ndim();
    if nd == 0 || im.is_empty() {
        return Err(make::arg(op, "im must be a non-empty array"));
    }
    let size: Vec<usize> = match mysize {
        None => vec![3; nd],
        Some(s) if s.len() == 1 => vec![s[0]; nd],
        Some(s) if s.len() == nd => s.to_vec(),
        Some(s) => {
            return Err(make::arg(
                op,
                format!("mysize has {} entries for {nd} dimensions", s.len()),
            ))
        }
    };
    if size.contains(&0) {
        return Err(make::arg(op, "mysize must be positive"));
    }
    if let Some(nz) = noise {
        if !nz.is_finite() {
            return Err(make::arg(op, "noise must be finite"));
        }
    }
    let count: usize = size.iter().product();
    let ones = Array::<T>::ones(&size, im.device())?;
    let o = crate::ConvOptions {
        mode: crate::ConvMode::Same,
        method: if nd <= 2 {
            crate::ConvMethod::Direct
        } else {
            crate::ConvMethod::Fft
        },
    };
    let inv = from_f64::<T>(1.0 / count as f64);
    let lmean = crate::correlate(im, &ones, &o)?.mul_scalar(inv)?;
    let lvar = crate::correlate(&im.mul(im)?, &ones, &o)?
        .mul_scalar(inv)?
        .sub(&lmean.mul(&lmean)?)?;
    let noise = match noise {
        Some(n) => from_f64::<T>(n),
        None => lvar.mean()?,
    };
    // res = (im - m) * (1 - noise / v) + m
    let res = im
        .sub(&lmean)?
        .mul(&lvar.rdiv_scalar(noise)?.rsub_scalar(from_f64::<T>(1.0))?)?
        .add(&lmean)?;
    let below = lvar.lt_scalar(noise)?;
    cusci_core::ops::where_(&below, &lmean, &res)
}

/// The 2-D analytic signal, SciPy 1.17's `scipy.signal.hilbert2(x, N, axes)`: `fft2(x, N)`
/// along `axes` (default the last two), bins `1..(N+1)/2` of each axis doubled and the upper
/// half (Nyquist included) zeroed, then `ifft2`. Other axes are a batch. `n = None` uses the
/// input's lengths along `axes`.
///
/// # Errors
/// `ShapeMismatch` for input of fewer than 2 dimensions; `InvalidArgument` for a zero `n`,
/// equal or bad axes; the FFT's.
///
/// ```
/// use cusci_signal::{hilbert2, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 0.0, -1.0, 0.0], &[1, 4], &Device::cpu()).unwrap();
/// let z = hilbert2(&x, None, None).unwrap();
/// assert_eq!(z.shape(), &[1, 4]);
/// ```
pub fn hilbert2<T>(
    x: &Array<T>,
    n: Option<[usize; 2]>,
    axes: Option<[isize; 2]>,
) -> Result<Array<<T as FftReal>::Complex>>
where
    T: FftReal + FftInput<Complex = <T as FftReal>::Complex>,
    <T as FftReal>::Complex: FftInput<Complex = <T as FftReal>::Complex>,
{
    let op = "hilbert2";
    if x.ndim() < 2 {
        return Err(make::shape(
            op,
            format!("x must have at least 2 dimensions, got {:?}", x.shape()),
        ));
    }
    let ax = axes.unwrap_or([-2, -1]);
    let a0 = norm_axis(op, ax[0], x.ndim())?;
    let a1 = norm_axis(op, ax[1], x.ndim())?;
    if a0 == a1 {
        return Err(make::arg(op, "axes must contain 2 distinct axes"));
    }
    let n = n.unwrap_or([x.shape()[a0], x.shape()[a1]]);
    if n.contains(&0) {
        return Err(make::arg(op, "N must be positive"));
    }
    let fo = FftnOptions {
        s: Some(n.to_vec()),
        axes: Some(vec![a0 as isize, a1 as isize]),
        ..Default::default()
    };
    let xf = cusci_fft::fft2(x, &fo)?;
    let mult = |m: usize| -> Vec<f64> {
        let k = m.div_ceil(2);
        (0..m)
            .map(|i| {
                if i == 0 {
                    1.0
                } else if i < k {
                    2.0
                } else {
                    0.0
                }
            })
            .collect()
    };
    let (h0, h1) = (mult(n[0]), mult(n[1]));
    let mut hshape = vec![1usize; x.ndim()];
    hshape[a0] = n[0];
    hshape[a1] = n[1];
    // C order over hshape: the slower of the two axes comes first
    let h: Vec<<T as FftReal>::Complex> = if a0 < a1 {
        h0.iter()
            .flat_map(|a| h1.iter().map(move |b| from_f64(a * b)))
            .collect()
    } else {
        h1.iter()
            .flat_map(|b| h0.iter().map(move |a| from_f64(a * b)))
            .collect()
    };
    let h = Array::from_vec(h, &hshape, x.device())?;
    let fo2 = FftnOptions {
        axes: Some(vec![a0 as isize, a1 as isize]),
        ..Default::default()
    };
    cusci_fft::ifft2(&xf.mul(&h)?, &fo2)
}
