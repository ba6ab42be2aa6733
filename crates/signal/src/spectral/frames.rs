//! The framing, transforms and averages of the spectral functions: `spectral.cu` on the GPU,
//! rayon on the CPU.

use super::options::*;
use super::plan::*;
use crate::procutil::{each_dtype, host_elems, typed_kernel, typed_source, REAL_DTYPES};
use cusci_core::array::layout::checked_shape;
use cusci_core::host::try_vec_zeroed;
use cusci_core::{
    Array, Backend, CudaDevice, Element, Function, KernelModule, LaunchConfig, RealFloat, Result,
};
use cusci_fft::{FftComplex, FftOptions, FftReal};
use rayon::prelude::*;

const SRC: &str = concat!(include_str!("block_sum.cuh"), include_str!("spectral.cu"));

/// The spectral kernels (`spectral.cu`) for a real type (complex spectra are read as pairs).
pub(crate) static SPECTRAL: KernelModule = KernelModule {
    name: "signal_spectral",
    source: |s| typed_source("signal_spectral", s, &[], SRC),
    options: &[],
    samples: || each_dtype(&REAL_DTYPES),
};

/// The kernel `name` of [`SPECTRAL`] for the real type `T`.
pub(super) fn kernel_fn<T: Element>(d: &CudaDevice, name: &str) -> Result<Function> {
    typed_kernel(&SPECTRAL, d, T::DTYPE, name)
}

/// The sample at extended position `p` (see `sample` in spectral.cu).
fn sample<T: RealFloat>(x: &[T], p: usize, ext: usize, bnd: i32) -> f64 {
    let l = x.len();
    if p >= ext && p - ext < l {
        return x[p - ext].to_f64();
    }
    if p >= l + 2 * ext {
        return 0.0;
    }
    if p < ext {
        let r = ext - p;
        return match bnd {
            1 => x[r].to_f64(),
            2 => 2.0 * x[0].to_f64() - x[r].to_f64(),
            3 => x[0].to_f64(),
            _ => 0.0,
        };
    }
    let r = p - ext - (l - 1);
    match bnd {
        1 => x[l - 1 - r].to_f64(),
        2 => 2.0 * x[l - 1].to_f64() - x[l - 1 - r].to_f64(),
        3 => x[l - 1].to_f64(),
        _ => 0.0,
    }
}

/// The detrended, windowed, zero-padded frames `(rows * nseg, nfft)` of the rows of `xm`
/// (`(rows, len)` contiguous).
pub(super) fn frames<T: FftReal>(
    xm: &Array<T>,
    rows: usize,
    len: usize,
    pl: &Plan,
) -> Result<Array<T>> {
    // the frame matrix checked here, for both devices: past isize::MAX bytes InvalidArgument
    // (SciPy: "array is too big"), then allocated fallibly (OutOfMemory, SciPy's MemoryError)
    const OP: &str = "spectral frames";
    let shape = [rows, pl.nseg, pl.nfft];
    let size = checked_shape(OP, &shape, std::mem::size_of::<T>())?;
    let total = rows * pl.nseg;
    let det = match pl.detrend {
        Detrend::None => 0,
        Detrend::Constant => 1,
        Detrend::Linear => 2,
    };
    match xm.backend() {
        Backend::Host(h) => {
            let xd = h.try_to_contiguous()?;
            let mut out: Vec<T> = try_vec_zeroed(OP, size)?;
            let n = pl.nperseg;
            let tbar = 0.5 * (n as f64 - 1.0);
            out.par_chunks_mut(pl.nfft.max(1))
                .enumerate()
                .for_each(|(r, o)| {
                    let b = r / pl.nseg;
                    let s = r % pl.nseg;
                    let xb = &xd[b * len..(b + 1) * len];
                    let p0 = s * pl.step;
                    let vals: Vec<f64> =
                        (0..n).map(|j| sample(xb, p0 + j, pl.ext, pl.bnd)).collect();
                    let (mut mean, mut slope) = (0.0, 0.0);
                    if det != 0 {
                        mean = vals.iter().sum::<f64>() / n as f64;
                        let nf = n as f64;
                        let stt = nf * (nf * nf - 1.0) / 12.0;
                        if det == 2 && stt > 0.0 {
                            let s1: f64 = vals
                                .iter()
                                .enumerate()
                                .map(|(j, v)| (j as f64 - tbar) * v)
                                .sum();
                            slope = s1 / stt;
                        }
                    }
                    for j in 0..n {
                        let mut v = vals[j];
                        if det != 0 {
                            v -= mean + slope * (j as f64 - tbar);
                        }
                        o[j] = <T as RealFloat>::from_f64(v * pl.win[j]);
                    }
                });
            Array::from_vec(out, &shape, xm.device())
        }
        Backend::Cuda(c) => {
            let mut out = Array::<T>::empty(&shape, xm.device())?;
            if total == 0 || pl.nfft == 0 {
                return Ok(out);
            }
            let win = Array::from_vec(pl.win.clone(), &[pl.nperseg], xm.device())?;
            let d = c.dev();
            // one block per frame (at most 2^20 blocks, striding over the rest)
            let threads = if pl.nfft >= 256 { 256 } else { 64 };
            let cfg = LaunchConfig::linear(total.min(1 << 20) as u32, threads);
            d.launch(&kernel_fn::<T>(d, "frames")?, cfg)
                .arg(c.ptr())
                .arg(len as i64)
                .arg(total as i64)
                .arg(pl.nseg as i64)
                .arg(pl.step as i64)
                .arg(pl.nperseg as i64)
                .arg(pl.nfft as i64)
                .arg(pl.ext as i64)
                .arg(pl.bnd)
                .arg(det)
                .arg(win.dev_ptr()?)
                .arg(out.dev_ptr_mut()?)
                .run()?;
            Ok(out)
        }
    }
}

/// The transforms of the frames: `(rows, nseg, nfreq)` complex.
pub(super) fn transform<T>(fr: &Array<T>, pl: &Plan) -> Result<Array<<T as FftReal>::Complex>>
where
    T: FftReal + cusci_fft::FftInput<Complex = <T as FftReal>::Complex>,
{
    let o = FftOptions {
        n: Some(pl.nfft),
        axis: -1,
        ..Default::default()
    };
    if pl.onesided {
        cusci_fft::rfft(fr, &o)
    } else {
        cusci_fft::fft(fr, &o)
    }
}

pub(super) fn median_bias(n: usize) -> f64 {
    let m = (n - 1) / 2;
    1.0 + (1..=m)
        .map(|i| {
            let ii = 2.0 * i as f64;
            1.0 / (ii + 1.0) - 1.0 / ii
        })
        .sum::<f64>()
}

pub(super) fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// CPU averaging: returns (re, im) per (row, f).
fn average_cpu<C: FftComplex>(
    x: &[C],
    y: Option<&[C]>,
    rows: usize,
    pl: &Plan,
    avg: Average,
) -> Vec<(f64, f64)> {
    let (nseg, nfreq) = (pl.nseg, pl.nfreq);
    let bias = if avg == Average::Median && nseg > 1 {
        median_bias(nseg)
    } else {
        1.0
    };
    (0..rows * nfreq)
        .into_par_iter()
        .map(|idx| {
            let b = idx / nfreq;
            let f = idx % nfreq;
            let fac = pl.scale * pl.doubling(f);
            let val = |s: usize| -> (f64, f64) {
                let k = (b * nseg + s) * nfreq + f;
                let xv = x[k].to_c64();
                match y {
                    Some(y) => {
                        let yv = y[k].to_c64();
                        let p = xv.conj() * yv;
                        (p.re * fac, p.im * fac)
                    }
                    None => (xv.norm_sqr() * fac, 0.0),
                }
            };
            if avg == Average::Median && nseg > 1 {
                let (mut re, mut im): (Vec<f64>, Vec<f64>) = (0..nseg).map(val).unzip();
                (median(&mut re) / bias, median(&mut im) / bias)
            } else {
                let (mut re, mut im) = (0.0, 0.0);
                for s in 0..nseg {
                    let (a, b) = val(s);
                    re += a;
                    im += b;
                }
                (re / nseg as f64, im / nseg as f64)
            }
        })
        .collect()
}

/// The average over frames of `|X|²` (`y` None, real `E`) or `conj(X) Y` (complex `E`), scaled
/// and doubled: `(rows, nfreq)` on the frames' device.
pub(super) fn average<T: FftReal, E: Element>(
    x: &Array<<T as FftReal>::Complex>,
    y: Option<&Array<<T as FftReal>::Complex>>,
    rows: usize,
    pl: &Plan,
    avg: Average,
) -> Result<Array<E>> {
    let cplx = y.is_some();
    let shape = [rows, pl.nfreq];
    match x.backend() {
        Backend::Host(h) => {
            let xd = h.try_to_contiguous()?;
            let yd = match y {
                Some(y) => Some(host_elems(y)?),
                None => None,
            };
            let v = average_cpu(&xd, yd.as_deref(), rows, pl, avg);
            let out: Vec<E> = v
                .into_iter()
                .map(|(re, im)| E::from_c64(cusci_core::c64::new(re, im)))
                .collect();
            Array::from_vec(out, &shape, x.device())
        }
        Backend::Cuda(c) => {
            let d = c.dev();
            let mut out = Array::<E>::empty(&shape, x.device())?;
            if rows * pl.nfreq == 0 {
                return Ok(out);
            }
            if avg == Average::Median && pl.nseg > 1 {
                let mut sp: Array<E> =
                    spec_gpu::<T, E>(d, x, y, rows, pl, if cplx { 4 } else { 0 })?;
                let nrows = rows * pl.nfreq;
                d.launch(
                    &kernel_fn::<T>(d, "median_avg")?,
                    LaunchConfig::cover(nrows, 128)?,
                )
                .arg(sp.dev_ptr_mut()?)
                .arg(nrows as i64)
                .arg(pl.nseg as i64)
                .arg(cplx as i32)
                .arg(median_bias(pl.nseg))
                .arg(out.dev_ptr_mut()?)
                .run()?;
                return Ok(out);
            }
            // chunks of frames so that the partial sums keep the GPU busy
            let per = rows * pl.nfreq;
            let target = 1usize << 20;
            let nchunks = (target / per.max(1)).clamp(1, pl.nseg.div_ceil(16).max(1));
            let chunk = pl.nseg.div_ceil(nchunks);
            let nchunks = pl.nseg.div_ceil(chunk).max(1);
            let mut part = Array::<f64>::empty(&[rows, nchunks, pl.nfreq, 2], x.device())?;
            let tot = rows * nchunks * pl.nfreq;
            d.launch(
                &kernel_fn::<T>(d, "psd_partial")?,
                LaunchConfig::cover(tot, 256)?,
            )
            .arg(c.ptr())
            .arg(y.map(Array::dev_ptr).transpose()?)
            .arg(rows as i64)
            .arg(pl.nseg as i64)
            .arg(pl.nfreq as i64)
            .arg(chunk as i64)
            .arg(nchunks as i64)
            .arg(part.dev_ptr_mut()?)
            .run()?;
            d.launch(
                &kernel_fn::<T>(d, "psd_finish")?,
                LaunchConfig::cover(per, 256)?,
            )
            .arg(part.dev_ptr()?)
            .arg(rows as i64)
            .arg(nchunks as i64)
            .arg(pl.nfreq as i64)
            .arg(pl.scale / pl.nseg.max(1) as f64)
            .arg(pl.nfft as i64)
            .arg(pl.onesided as i32)
            .arg(cplx as i32)
            .arg(out.dev_ptr_mut()?)
            .run()?;
            Ok(out)
        }
    }
}

/// The `(rows, nfreq, nseg)` spectrogram on the GPU (see `spec` in spectral.cu for `mode`).
fn spec_gpu<T: FftReal, E: Element>(
    d: &CudaDevice,
    x: &Array<<T as FftReal>::Complex>,
    y: Option<&Array<<T as FftReal>::Complex>>,
    rows: usize,
    pl: &Plan,
    mode: i32,
) -> Result<Array<E>> {
    let mut out = Array::<E>::empty(&[rows, pl.nfreq, pl.nseg], x.device())?;
    let total = rows * pl.nfreq * pl.nseg;
    if total == 0 {
        return Ok(out);
    }
    d.launch(
        &kernel_fn::<T>(d, "spec")?,
        LaunchConfig::cover(total, 256)?,
    )
    .arg(x.dev_ptr()?)
    .arg(y.map(Array::dev_ptr).transpose()?)
    .arg(rows as i64)
    .arg(pl.nseg as i64)
    .arg(pl.nfreq as i64)
    .arg(pl.scale)
    .arg(pl.nfft as i64)
    .arg(pl.onesided as i32)
    .arg(mode)
    .arg(out.dev_ptr_mut()?)
    .run()?;
    Ok(out)
}

fn unwrap_col(v: &mut [f64]) {
    let pi = std::f64::consts::PI;
    let mut corr = 0.0;
    let mut prev = v.first().copied().unwrap_or(0.0);
    for item in v.iter_mut().skip(1) {
        let cur = *item;
        let dd = cur - prev;
        let mut ddmod = (dd + pi).rem_euclid(2.0 * pi) - pi;
        if ddmod == -pi && dd > 0.0 {
            ddmod = pi;
        }
        if dd.abs() >= pi {
            corr += ddmod - dd;
        }
        prev = cur;
        *item = cur + corr;
    }
}

/// The `(rows, nfreq, nseg)` spectrogram of mode 0 (psd), 1 (complex), 2 (magnitude),
/// 3 (angle), 5 (phase: angle unwrapped along frequency).
pub(super) fn spec<T: FftReal, E: Element>(
    x: &Array<<T as FftReal>::Complex>,
    rows: usize,
    pl: &Plan,
    mode: i32,
) -> Result<Array<E>> {
    let (nseg, nfreq) = (pl.nseg, pl.nfreq);
    match x.backend() {
        Backend::Host(h) => {
            let xd = h.try_to_contiguous()?;
            let mut out: Vec<E> = (0..rows * nfreq * nseg)
                .into_par_iter()
                .map(|idx| {
                    let s = idx % nseg;
                    let f = (idx / nseg) % nfreq;
                    let b = idx / (nseg * nfreq);
                    let xv = xd[(b * nseg + s) * nfreq + f].to_c64();
                    let v = match mode {
                        0 => cusci_core::c64::new(xv.norm_sqr() * pl.scale * pl.doubling(f), 0.0),
                        1 => xv * pl.scale,
                        2 => cusci_core::c64::new(xv.norm() * pl.scale, 0.0),
                        _ => cusci_core::c64::new(xv.im.atan2(xv.re), 0.0),
                    };
                    E::from_c64(v)
                })
                .collect();
            if mode == 5 {
                for b in 0..rows {
                    for s in 0..nseg {
                        let mut col: Vec<f64> = (0..nfreq)
                            .map(|f| out[(b * nfreq + f) * nseg + s].to_c64().re)
                            .collect();
                        unwrap_col(&mut col);
                        for (f, v) in col.into_iter().enumerate() {
                            out[(b * nfreq + f) * nseg + s] =
                                E::from_c64(cusci_core::c64::new(v, 0.0));
                        }
                    }
                }
            }
            Array::from_vec(out, &[rows, nfreq, nseg], x.device())
        }
        Backend::Cuda(c) => {
            let d = c.dev();
            let mut out = spec_gpu::<T, E>(d, x, None, rows, pl, mode.min(3))?;
            if mode == 5 && rows * nseg > 0 && nfreq > 1 {
                d.launch(
                    &kernel_fn::<T>(d, "unwrap")?,
                    LaunchConfig::cover(rows * nseg, 128)?,
                )
                .arg(out.dev_ptr_mut()?)
                .arg(rows as i64)
                .arg(nfreq as i64)
                .arg(nseg as i64)
                .run()?;
            }
            Ok(out)
        }
    }
}
