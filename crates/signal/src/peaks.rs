//! Peak finding (SciPy's `scipy.signal` peak functions): [`find_peaks`], [`peak_prominences`],
//! [`peak_widths`], [`argrelextrema`], [`argrelmin`], [`argrelmax`].
//!
//! find_peaks and its helpers work in `f64` (SciPy converts `x` to float64) on `x`'s device and
//! return index arrays of `i64` there. On the GPU, one kernel marks the starts of the local
//! maxima's plateaus, a prefix sum (the core's `cumsum`) compacts them, and every per-peak
//! property (heights, thresholds, plateau sizes, prominences, widths) and every selection is a
//! kernel over the peaks; only the `distance` selection (a sequential greedy pass in SciPy)
//! copies the peaks and their heights to the host and the kept mask back. Compactions read one
//! count back from the device (the output sizes are data-dependent).

use crate::procutil::{blocks_for, cpu_contig, cuda_type, dptr, norm_axis, split_axis};
use cusci_core::cuda::kernel::{Args, LaunchConfig};
use cusci_core::error::make;
use cusci_core::CudaDevice;
use cusci_core::{Array, Device, Element, RealFloat, Result};
use rayon::prelude::*;

const SRC: &str = include_str!("peaks.cu");

/// The peak kernel module for `T` (argrelextrema's data type; find_peaks uses the f64 module).
pub(crate) fn peaks_source<T: Element>() -> (String, String) {
    let prefix = format!("signal_peaks_{}", T::DTYPE.tag());
    let src = format!(
        "#define T {}\n#define NAME(x) {prefix}_##x\n{SRC}",
        cuda_type::<T>()
    );
    (prefix, src)
}

fn launch<T: Element>(d: &CudaDevice, name: &str, n: usize, a: &mut Args) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let (key, src) = peaks_source::<T>();
    let f = d.function(&key, || src, &[], &format!("{key}_{name}"))?;
    f.launch(d, LaunchConfig::linear(blocks_for(n, 256), 256), a)
}

/// A condition's interval (SciPy's number or `(min, max)` pair; `None` ends are open).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Bound {
    /// The smallest accepted value (inclusive).
    pub min: Option<f64>,
    /// The largest accepted value (inclusive).
    pub max: Option<f64>,
}

impl Bound {
    /// `[v, ∞)` (SciPy's scalar condition).
    pub fn min(v: f64) -> Bound {
        Bound {
            min: Some(v),
            max: None,
        }
    }
    /// `(-∞, v]` (SciPy's `(None, v)`).
    pub fn max(v: f64) -> Bound {
        Bound {
            min: None,
            max: Some(v),
        }
    }
    /// `[lo, hi]` (SciPy's `(lo, hi)`).
    pub fn range(lo: f64, hi: f64) -> Bound {
        Bound {
            min: Some(lo),
            max: Some(hi),
        }
    }
}

/// Options of [`find_peaks`] (SciPy's keyword arguments; scalar conditions only).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FindPeaksOptions {
    /// Required peak height.
    pub height: Option<Bound>,
    /// Required vertical distance to both neighbouring samples.
    pub threshold: Option<Bound>,
    /// Smallest horizontal distance (≥ 1) between peaks; smaller peaks go first.
    pub distance: Option<f64>,
    /// Required prominence.
    pub prominence: Option<Bound>,
    /// Required width (in samples) at `rel_height`.
    pub width: Option<Bound>,
    /// Window length (> 1) for the prominences; `None`: the whole signal.
    pub wlen: Option<f64>,
    /// Relative height at which widths are measured (default 0.5).
    pub rel_height: f64,
    /// Required plateau size in samples.
    pub plateau_size: Option<Bound>,
}

impl Default for FindPeaksOptions {
    fn default() -> Self {
        FindPeaksOptions {
            height: None,
            threshold: None,
            distance: None,
            prominence: None,
            width: None,
            wlen: None,
            rel_height: 0.5,
            plateau_size: None,
        }
    }
}

/// The properties [`find_peaks`] reports for the peaks it returns (SciPy's `properties` dict):
/// each is present exactly when SciPy's key is.
#[derive(Debug, Clone, Default)]
pub struct PeakProperties {
    /// With `plateau_size`: plateau sizes in samples.
    pub plateau_sizes: Option<Array<i64>>,
    /// With `plateau_size`: each plateau's first sample.
    pub left_edges: Option<Array<i64>>,
    /// With `plateau_size`: each plateau's last sample.
    pub right_edges: Option<Array<i64>>,
    /// With `height`: `x[peaks]`.
    pub peak_heights: Option<Array<f64>>,
    /// With `threshold`: `x[peaks] - x[peaks - 1]`.
    pub left_thresholds: Option<Array<f64>>,
    /// With `threshold`: `x[peaks] - x[peaks + 1]`.
    pub right_thresholds: Option<Array<f64>>,
    /// With `prominence` or `width`: as [`peak_prominences`].
    pub prominences: Option<Array<f64>>,
    /// With `prominence` or `width`.
    pub left_bases: Option<Array<i64>>,
    /// With `prominence` or `width`.
    pub right_bases: Option<Array<i64>>,
    /// With `width`: as [`peak_widths`].
    pub widths: Option<Array<f64>>,
    /// With `width`.
    pub width_heights: Option<Array<f64>>,
    /// With `width`.
    pub left_ips: Option<Array<f64>>,
    /// With `width`.
    pub right_ips: Option<Array<f64>>,
}

/// [`peak_prominences`]' result.
#[derive(Debug, Clone)]
pub struct Prominences {
    /// Each peak's prominence.
    pub prominences: Array<f64>,
    /// The lowest point's index left of each peak (within the window).
    pub left_bases: Array<i64>,
    /// The lowest point's index right of each peak.
    pub right_bases: Array<i64>,
}

/// [`peak_widths`]' result.
#[derive(Debug, Clone)]
pub struct Widths {
    /// `right_ips - left_ips`.
    pub widths: Array<f64>,
    /// The height at which each width was measured.
    pub width_heights: Array<f64>,
    /// Interpolated left intersection points.
    pub left_ips: Array<f64>,
    /// Interpolated right intersection points.
    pub right_ips: Array<f64>,
}

fn as_f64_1d<T: RealFloat>(op: &str, x: &Array<T>) -> Result<Array<f64>> {
    if x.ndim() != 1 {
        return Err(make::arg(op, "`x` must be a 1-D array"));
    }
    x.astype::<f64>()?.contiguous()
}

fn check_peaks(op: &str, peaks: &Array<i64>) -> Result<Array<i64>> {
    if peaks.ndim() != 1 {
        return Err(make::arg(op, "`peaks` must be a 1-D array"));
    }
    peaks.contiguous()
}

fn wlen_arg(op: &str, wlen: Option<f64>) -> Result<i64> {
    match wlen {
        None => Ok(-1),
        Some(w) if w > 1.0 => Ok(w.ceil() as i64),
        Some(_) => Err(make::arg(op, "wlen must be larger than 1")),
    }
}

fn zeros_i(dev: &Device, m: usize) -> Result<Array<i64>> {
    Array::<i64>::empty(&[m], dev)
}
fn zeros_f(dev: &Device, m: usize) -> Result<Array<f64>> {
    Array::<f64>::empty(&[m], dev)
}
fn vi(v: Vec<i64>, dev: &Device) -> Result<Array<i64>> {
    let n = v.len();
    Array::from_vec(v, &[n], dev)
}
fn vf(v: Vec<f64>, dev: &Device) -> Result<Array<f64>> {
    let n = v.len();
    Array::from_vec(v, &[n], dev)
}

/// SciPy's _local_maxima_1d: (midpoints, left edges, right edges).
fn local_maxima(x: &Array<f64>) -> Result<(Array<i64>, Array<i64>, Array<i64>)> {
    let dev = x.device();
    let n = x.size();
    match dev {
        Device::Cpu => {
            let x = cpu_contig(x)?;
            let (mut mid, mut le, mut re) = (Vec::new(), Vec::new(), Vec::new());
            let mut i = 1usize;
            let imax = n.saturating_sub(1);
            while i < imax {
                if x[i - 1] < x[i] {
                    let mut a = i + 1;
                    while a < imax && x[a] == x[i] {
                        a += 1;
                    }
                    if x[a] < x[i] {
                        le.push(i as i64);
                        re.push(a as i64 - 1);
                        mid.push(((i + a - 1) / 2) as i64);
                        i = a;
                    }
                }
                i += 1;
            }
            Ok((vi(mid, dev)?, vi(le, dev)?, vi(re, dev)?))
        }
        Device::Cuda(d) => {
            let flags = zeros_i(dev, n)?;
            let mut a = Args::new();
            a.push(dptr(x)).push(n as i64).push(dptr(&flags));
            launch::<f64>(d, "local_max", n, &mut a)?;
            let left = compact(&flags)?;
            let m = left.size();
            let right = zeros_i(dev, m)?;
            let mid = zeros_i(dev, m)?;
            let mut a = Args::new();
            a.push(dptr(x))
                .push(n as i64)
                .push(dptr(&left))
                .push(m as i64)
                .push(dptr(&right))
                .push(dptr(&mid));
            launch::<f64>(d, "edges", m, &mut a)?;
            Ok((mid, left, right))
        }
    }
}

/// The indices of the nonzero flags, in order (on the flags' device).
fn compact(flags: &Array<i64>) -> Result<Array<i64>> {
    let dev = flags.device();
    let n = flags.size();
    match dev {
        Device::Cpu => {
            let f = cpu_contig(flags)?;
            vi(
                (0..n).filter(|&i| f[i] != 0).map(|i| i as i64).collect(),
                dev,
            )
        }
        Device::Cuda(d) => {
            if n == 0 {
                return zeros_i(dev, 0);
            }
            let cs = flags.cumsum(0)?;
            let m = cs.index_axis(0, -1)?.item()? as usize;
            let out = zeros_i(dev, m)?;
            let mut a = Args::new();
            a.push(dptr(flags))
                .push(dptr(&cs))
                .push(n as i64)
                .push(dptr(&out));
            launch::<f64>(d, "scatter", n, &mut a)?;
            Ok(out)
        }
    }
}

fn gather_i(src: &Array<i64>, idx: &Array<i64>) -> Result<Array<i64>> {
    let dev = src.device();
    match dev {
        Device::Cpu => {
            let (s, i) = (cpu_contig(src)?, cpu_contig(idx)?);
            vi(i.iter().map(|&k| s[k as usize]).collect(), dev)
        }
        Device::Cuda(d) => {
            let m = idx.size();
            let out = zeros_i(dev, m)?;
            let mut a = Args::new();
            a.push(dptr(src))
                .push(dptr(idx))
                .push(m as i64)
                .push(dptr(&out));
            launch::<f64>(d, "gather_i", m, &mut a)?;
            Ok(out)
        }
    }
}

fn gather_f(src: &Array<f64>, idx: &Array<i64>) -> Result<Array<f64>> {
    let dev = src.device();
    match dev {
        Device::Cpu => {
            let (s, i) = (cpu_contig(src)?, cpu_contig(idx)?);
            vf(i.iter().map(|&k| s[k as usize]).collect(), dev)
        }
        Device::Cuda(d) => {
            let m = idx.size();
            let out = zeros_f(dev, m)?;
            let mut a = Args::new();
            a.push(dptr(src))
                .push(dptr(idx))
                .push(m as i64)
                .push(dptr(&out));
            launch::<f64>(d, "gather_f", m, &mut a)?;
            Ok(out)
        }
    }
}

/// Heights, left/right thresholds and plateau sizes of every peak.
type Basic = (Array<f64>, Array<f64>, Array<f64>, Array<f64>);
fn basic(x: &Array<f64>, peaks: &Array<i64>, le: &Array<i64>, re: &Array<i64>) -> Result<Basic> {
    let dev = x.device();
    let m = peaks.size();
    match dev {
        Device::Cpu => {
            let (xs, p, l, r) = (
                cpu_contig(x)?,
                cpu_contig(peaks)?,
                cpu_contig(le)?,
                cpu_contig(re)?,
            );
            let h: Vec<f64> = p.iter().map(|&k| xs[k as usize]).collect();
            let lt = p
                .iter()
                .map(|&k| xs[k as usize] - xs[k as usize - 1])
                .collect();
            let rt = p
                .iter()
                .map(|&k| xs[k as usize] - xs[k as usize + 1])
                .collect();
            let ps = l
                .iter()
                .zip(r.iter())
                .map(|(&a, &b)| (b - a + 1) as f64)
                .collect();
            Ok((vf(h, dev)?, vf(lt, dev)?, vf(rt, dev)?, vf(ps, dev)?))
        }
        Device::Cuda(d) => {
            let outs = [
                zeros_f(dev, m)?,
                zeros_f(dev, m)?,
                zeros_f(dev, m)?,
                zeros_f(dev, m)?,
            ];
            let mut a = Args::new();
            a.push(dptr(x))
                .push(dptr(peaks))
                .push(dptr(le))
                .push(dptr(re))
                .push(m as i64);
            for o in &outs {
                a.push(dptr(o));
            }
            launch::<f64>(d, "basic", m, &mut a)?;
            let [h, lt, rt, ps] = outs;
            Ok((h, lt, rt, ps))
        }
    }
}

/// Flags of the peaks whose value (or NaN-propagating min/max of `a` and `b`) lies in `bd`.
fn bound_keep(a: &Array<f64>, b: Option<&Array<f64>>, bd: &Bound) -> Result<Array<i64>> {
    let dev = a.device();
    let m = a.size();
    match dev {
        Device::Cpu => {
            let av = cpu_contig(a)?;
            let bv = b.map(cpu_contig).transpose()?;
            let keep = (0..m)
                .map(|k| {
                    let (mut lo, mut hi) = (av[k], av[k]);
                    if let Some(bv) = &bv {
                        let c = bv[k];
                        if lo.is_nan() || c.is_nan() {
                            lo = f64::NAN;
                            hi = f64::NAN;
                        } else {
                            lo = lo.min(c);
                            hi = hi.max(c);
                        }
                    }
                    let ok = bd.min.is_none_or(|v| v <= lo) && bd.max.is_none_or(|v| hi <= v);
                    ok as i64
                })
                .collect();
            vi(keep, dev)
        }
        Device::Cuda(d) => {
            let keep = zeros_i(dev, m)?;
            let mut ar = Args::new();
            ar.push(dptr(a))
                .push(b.map(dptr).unwrap_or(0))
                .push(m as i64)
                .push(bd.min.is_some() as i32)
                .push(bd.min.unwrap_or(0.0))
                .push(bd.max.is_some() as i32)
                .push(bd.max.unwrap_or(0.0))
                .push(dptr(&keep));
            launch::<f64>(d, "bound", m, &mut ar)?;
            Ok(keep)
        }
    }
}

/// SciPy's _select_by_peak_distance (on the host): flags of the peaks kept.
fn distance_keep(peaks: &Array<i64>, heights: &Array<f64>, distance: f64) -> Result<Array<i64>> {
    let p = peaks.to_vec()?;
    let h = heights.to_vec()?;
    let m = p.len();
    let dist = distance.ceil() as i64;
    let mut keep = vec![1i64; m];
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| h[a].total_cmp(&h[b]));
    for &j in order.iter().rev() {
        if keep[j] == 0 {
            continue;
        }
        let mut k = j;
        while k > 0 && p[j] - p[k - 1] < dist {
            keep[k - 1] = 0;
            k -= 1;
        }
        let mut k = j + 1;
        while k < m && p[k] - p[j] < dist {
            keep[k] = 0;
            k += 1;
        }
    }
    vi(keep, peaks.device())
}

/// `check`: read the kernel's invalid-peak flag back (a host synchronisation); find_peaks passes
/// false, its peaks are valid by construction.
fn prominences_impl(
    x: &Array<f64>,
    peaks: &Array<i64>,
    wlen: i64,
    check: bool,
) -> Result<Prominences> {
    let op = "peak_prominences";
    let dev = x.device();
    let n = x.size() as i64;
    let m = peaks.size();
    let bad_peak = |k: usize, p: i64| {
        make::arg(
            op,
            format!("peak {p} is not a valid index for `x` (peak number {k})"),
        )
    };
    match dev {
        Device::Cpu => {
            let (xs, p) = (cpu_contig(x)?, cpu_contig(peaks)?);
            if let Some(k) = p.iter().position(|&q| q < 0 || q >= n) {
                return Err(bad_peak(k, p[k]));
            }
            let r: Vec<(f64, i64, i64)> = p
                .par_iter()
                .map(|&pk| {
                    let (mut imin, mut imax) = (0i64, n - 1);
                    if wlen >= 2 {
                        imin = imin.max(pk - wlen / 2);
                        imax = imax.min(pk + wlen / 2);
                    }
                    let v = xs[pk as usize];
                    let (mut i, mut l, mut lmin) = (pk, pk, v);
                    while imin <= i && xs[i as usize] <= v {
                        if xs[i as usize] < lmin {
                            lmin = xs[i as usize];
                            l = i;
                        }
                        i -= 1;
                    }
                    let (mut i, mut r, mut rmin) = (pk, pk, v);
                    while i <= imax && xs[i as usize] <= v {
                        if xs[i as usize] < rmin {
                            rmin = xs[i as usize];
                            r = i;
                        }
                        i += 1;
                    }
                    (v - lmin.max(rmin), l, r)
                })
                .collect();
            Ok(Prominences {
                prominences: vf(r.iter().map(|t| t.0).collect(), dev)?,
                left_bases: vi(r.iter().map(|t| t.1).collect(), dev)?,
                right_bases: vi(r.iter().map(|t| t.2).collect(), dev)?,
            })
        }
        Device::Cuda(d) => {
            let prom = zeros_f(dev, m)?;
            let lb = zeros_i(dev, m)?;
            let rb = zeros_i(dev, m)?;
            let bad = Array::<i64>::full(&[1], i64::MAX, dev)?;
            let mut a = Args::new();
            a.push(dptr(x))
                .push(n)
                .push(dptr(peaks))
                .push(m as i64)
                .push(wlen)
                .push(dptr(&prom))
                .push(dptr(&lb))
                .push(dptr(&rb))
                .push(dptr(&bad));
            launch::<f64>(d, "prominences", m, &mut a)?;
            let b = if check { bad.item()? } else { i64::MAX };
            if b != i64::MAX {
                let k = b as usize;
                let p = peaks.index_axis(0, k as isize)?.item()?;
                return Err(bad_peak(k, p));
            }
            Ok(Prominences {
                prominences: prom,
                left_bases: lb,
                right_bases: rb,
            })
        }
    }
}

/// `check`: as in [`prominences_impl`] (find_peaks' prominence data is valid by construction).
fn widths_impl(
    x: &Array<f64>,
    peaks: &Array<i64>,
    rel: f64,
    pd: &Prominences,
    check: bool,
) -> Result<Widths> {
    let op = "peak_widths";
    if rel < 0.0 {
        return Err(make::arg(
            op,
            "`rel_height` must be greater or equal to 0.0",
        ));
    }
    let m = peaks.size();
    if pd.prominences.shape() != [m]
        || pd.left_bases.shape() != [m]
        || pd.right_bases.shape() != [m]
    {
        return Err(make::shape(
            op,
            "arrays in `prominence_data` must have the same shape as `peaks`",
        ));
    }
    let dev = x.device();
    let n = x.size() as i64;
    let bad = |k: usize| make::arg(op, format!("prominence data is invalid for peak {k}"));
    match dev {
        Device::Cpu => {
            let xs = cpu_contig(x)?;
            let p = cpu_contig(peaks)?;
            let pr = cpu_contig(&pd.prominences)?;
            let lb = cpu_contig(&pd.left_bases)?;
            let rb = cpu_contig(&pd.right_bases)?;
            let mut out = Vec::with_capacity(m);
            for k in 0..m {
                let (imin, imax, pk) = (lb[k], rb[k], p[k]);
                if !(0 <= imin && imin <= pk && pk <= imax && imax < n) {
                    return Err(bad(k));
                }
                let h = xs[pk as usize] - pr[k] * rel;
                let mut i = pk;
                while imin < i && h < xs[i as usize] {
                    i -= 1;
                }
                let mut l = i as f64;
                if xs[i as usize] < h {
                    l += (h - xs[i as usize]) / (xs[i as usize + 1] - xs[i as usize]);
                }
                let mut i = pk;
                while i < imax && h < xs[i as usize] {
                    i += 1;
                }
                let mut r = i as f64;
                if xs[i as usize] < h {
                    r -= (h - xs[i as usize]) / (xs[i as usize - 1] - xs[i as usize]);
                }
                out.push((r - l, h, l, r));
            }
            Ok(Widths {
                widths: vf(out.iter().map(|t| t.0).collect(), dev)?,
                width_heights: vf(out.iter().map(|t| t.1).collect(), dev)?,
                left_ips: vf(out.iter().map(|t| t.2).collect(), dev)?,
                right_ips: vf(out.iter().map(|t| t.3).collect(), dev)?,
            })
        }
        Device::Cuda(d) => {
            let o = [
                zeros_f(dev, m)?,
                zeros_f(dev, m)?,
                zeros_f(dev, m)?,
                zeros_f(dev, m)?,
            ];
            let flag = Array::<i64>::full(&[1], i64::MAX, dev)?;
            let (prc, lbc, rbc) = (
                pd.prominences.contiguous()?,
                pd.left_bases.contiguous()?,
                pd.right_bases.contiguous()?,
            );
            let mut a = Args::new();
            a.push(dptr(x))
                .push(n)
                .push(dptr(peaks))
                .push(m as i64)
                .push(rel)
                .push(dptr(&prc))
                .push(dptr(&lbc))
                .push(dptr(&rbc));
            for t in &o {
                a.push(dptr(t));
            }
            a.push(dptr(&flag));
            launch::<f64>(d, "widths", m, &mut a)?;
            let b = if check { flag.item()? } else { i64::MAX };
            if b != i64::MAX {
                return Err(bad(b as usize));
            }
            let [widths, width_heights, left_ips, right_ips] = o;
            Ok(Widths {
                widths,
                width_heights,
                left_ips,
                right_ips,
            })
        }
    }
}

/// The prominence of each peak of `x` at the indices `peaks` (SciPy's
/// `scipy.signal.peak_prominences(x, peaks, wlen)`), on `x`'s device.
///
/// # Errors
/// `InvalidArgument` for a non-1-D `x` or `peaks`, `wlen` ≤ 1, a peak outside `x`;
/// `DeviceMismatch` for arrays on different devices.
///
/// ```
/// use cusci_signal::{peak_prominences, Array, Device};
/// let d = Device::cpu();
/// let x = Array::from_vec(vec![0.0, 2.0, 1.0, 3.0, 0.0], &[5], &d).unwrap();
/// let p = Array::from_vec(vec![1i64, 3], &[2], &d).unwrap();
/// let r = peak_prominences(&x, &p, None).unwrap();
/// assert_eq!(r.prominences.to_vec().unwrap(), vec![1.0, 3.0]);
/// ```
pub fn peak_prominences<T: RealFloat>(
    x: &Array<T>,
    peaks: &Array<i64>,
    wlen: Option<f64>,
) -> Result<Prominences> {
    let op = "peak_prominences";
    let x = as_f64_1d(op, x)?;
    let peaks = check_peaks(op, peaks)?;
    crate::procutil::same_dev(op, x.device(), peaks.device())?;
    let w = wlen_arg(op, wlen)?;
    prominences_impl(&x, &peaks, w, true)
}

/// The width of each peak at `rel_height` of its prominence (SciPy's
/// `scipy.signal.peak_widths(x, peaks, rel_height, prominence_data, wlen)`), on `x`'s device;
/// the prominences are computed with `wlen` when `prominence_data` is `None`.
///
/// # Errors
/// As [`peak_prominences`]; `InvalidArgument` for `rel_height` < 0 or prominence data that
/// does not fit the peaks (`ShapeMismatch` for arrays of other lengths).
///
/// ```
/// use cusci_signal::{peak_widths, Array, Device};
/// let d = Device::cpu();
/// let x = Array::from_vec(vec![0.0, 1.0, 0.0], &[3], &d).unwrap();
/// let p = Array::from_vec(vec![1i64], &[1], &d).unwrap();
/// let w = peak_widths(&x, &p, 0.5, None, None).unwrap();
/// assert_eq!(w.widths.to_vec().unwrap(), vec![1.0]);
/// ```
pub fn peak_widths<T: RealFloat>(
    x: &Array<T>,
    peaks: &Array<i64>,
    rel_height: f64,
    prominence_data: Option<&Prominences>,
    wlen: Option<f64>,
) -> Result<Widths> {
    let op = "peak_widths";
    let x = as_f64_1d(op, x)?;
    let peaks = check_peaks(op, peaks)?;
    crate::procutil::same_dev(op, x.device(), peaks.device())?;
    if rel_height < 0.0 {
        return Err(make::arg(
            op,
            "`rel_height` must be greater or equal to 0.0",
        ));
    }
    let owned;
    let pd = match prominence_data {
        Some(p) => p,
        None => {
            owned = prominences_impl(&x, &peaks, wlen_arg(op, wlen)?, true)?;
            &owned
        }
    };
    widths_impl(&x, &peaks, rel_height, pd, true)
}

/// Keeps the entries of every present column whose flag is set.
struct State {
    peaks: Array<i64>,
    cols_i: Vec<Option<Array<i64>>>,
    cols_f: Vec<Option<Array<f64>>>,
}

impl State {
    fn select(&mut self, keep: &Array<i64>) -> Result<()> {
        let idx = compact(keep)?;
        self.peaks = gather_i(&self.peaks, &idx)?;
        for c in self.cols_i.iter_mut().flatten() {
            *c = gather_i(c, &idx)?;
        }
        for c in self.cols_f.iter_mut().flatten() {
            *c = gather_f(c, &idx)?;
        }
        Ok(())
    }
}

// column slots
const I_LE: usize = 0;
const I_RE: usize = 1;
const I_LB: usize = 2;
const I_RB: usize = 3;
const F_PS: usize = 0;
const F_H: usize = 1;
const F_LT: usize = 2;
const F_RT: usize = 3;
const F_PROM: usize = 4;
const F_W: usize = 5;
const F_WH: usize = 6;
const F_LIP: usize = 7;
const F_RIP: usize = 8;

/// The peaks of the 1-D signal `x` (local maxima, plateaus reported at their middle) that meet
/// every condition of `opts`, and their properties (SciPy's `scipy.signal.find_peaks`), on
/// `x`'s device. Conditions are applied in SciPy's order: plateau size, height, threshold,
/// distance, prominence, width.
///
/// `distance` keeps the highest peaks first; among equal heights the one SciPy's unstable
/// argsort visits last may differ (a stable sort is used here).
///
/// # Errors
/// `InvalidArgument` for a non-1-D `x`, `distance` < 1, `wlen` ≤ 1 or `rel_height` < 0 (the
/// latter two only when prominences or widths are needed, as in SciPy).
///
/// ```
/// use cusci_signal::{find_peaks, Array, Device, FindPeaksOptions};
/// let x = Array::from_vec(vec![0.0, 2.0, 0.0, 1.0, 1.0, 0.0], &[6], &Device::cpu()).unwrap();
/// let (p, _) = find_peaks(&x, &FindPeaksOptions::default()).unwrap();
/// assert_eq!(p.to_vec().unwrap(), vec![1, 3]);
/// ```
pub fn find_peaks<T: RealFloat>(
    x: &Array<T>,
    opts: &FindPeaksOptions,
) -> Result<(Array<i64>, PeakProperties)> {
    let op = "find_peaks";
    let x = as_f64_1d(op, x)?;
    if let Some(dd) = opts.distance {
        if dd.is_nan() || dd < 1.0 {
            return Err(make::arg(op, "`distance` must be greater or equal to 1"));
        }
    }
    let need_prom = opts.prominence.is_some() || opts.width.is_some();
    let wlen = if need_prom {
        wlen_arg(op, opts.wlen)?
    } else {
        -1
    };
    if opts.width.is_some() && opts.rel_height < 0.0 {
        return Err(make::arg(
            op,
            "`rel_height` must be greater or equal to 0.0",
        ));
    }
    let (peaks, le, re) = local_maxima(&x)?;
    let (h, lt, rt, ps) = basic(&x, &peaks, &le, &re)?;
    let mut st = State {
        peaks,
        cols_i: vec![Some(le), Some(re), None, None],
        cols_f: vec![
            Some(ps),
            Some(h),
            Some(lt),
            Some(rt),
            None,
            None,
            None,
            None,
            None,
        ],
    };
    let f = |st: &State, k: usize| st.cols_f[k].clone().expect("column present");
    // plateau size, height and threshold are conditions on each peak alone: their flags are
    // combined and the peaks compacted once (one host read of the count instead of three)
    let and = |k: Option<Array<i64>>, m: Array<i64>| -> Result<Option<Array<i64>>> {
        Ok(Some(match k {
            None => m,
            Some(k) => k.mul(&m)?,
        }))
    };
    let mut keep = None;
    if let Some(b) = &opts.plateau_size {
        keep = and(keep, bound_keep(&f(&st, F_PS), None, b)?)?;
    }
    if let Some(b) = &opts.height {
        keep = and(keep, bound_keep(&f(&st, F_H), None, b)?)?;
    }
    if let Some(b) = &opts.threshold {
        keep = and(keep, bound_keep(&f(&st, F_LT), Some(&f(&st, F_RT)), b)?)?;
    }
    if let Some(k) = keep {
        st.select(&k)?;
    }
    if let Some(dd) = opts.distance {
        let keep = distance_keep(&st.peaks, &f(&st, F_H), dd)?;
        st.select(&keep)?;
    }
    if need_prom {
        let pr = prominences_impl(&x, &st.peaks, wlen, false)?;
        st.cols_f[F_PROM] = Some(pr.prominences);
        st.cols_i[I_LB] = Some(pr.left_bases);
        st.cols_i[I_RB] = Some(pr.right_bases);
    }
    // prominence and width are per-peak conditions too (a peak's width depends only on its own
    // prominence data): widths are computed for every remaining peak, then one compaction
    let mut keep = None;
    if let Some(b) = &opts.prominence {
        keep = and(keep, bound_keep(&f(&st, F_PROM), None, b)?)?;
    }
    if let Some(b) = &opts.width {
        let pd = Prominences {
            prominences: f(&st, F_PROM),
            left_bases: st.cols_i[I_LB].clone().expect("bases"),
            right_bases: st.cols_i[I_RB].clone().expect("bases"),
        };
        let w = widths_impl(&x, &st.peaks, opts.rel_height, &pd, false)?;
        st.cols_f[F_W] = Some(w.widths);
        st.cols_f[F_WH] = Some(w.width_heights);
        st.cols_f[F_LIP] = Some(w.left_ips);
        st.cols_f[F_RIP] = Some(w.right_ips);
        keep = and(keep, bound_keep(&f(&st, F_W), None, b)?)?;
    }
    if let Some(k) = keep {
        st.select(&k)?;
    }
    let ci = |k: usize, on: bool| if on { st.cols_i[k].clone() } else { None };
    let cf = |k: usize, on: bool| if on { st.cols_f[k].clone() } else { None };
    let plat = opts.plateau_size.is_some();
    let thr = opts.threshold.is_some();
    let wid = opts.width.is_some();
    let props = PeakProperties {
        plateau_sizes: cf(F_PS, plat).map(|a| a.astype::<i64>()).transpose()?,
        left_edges: ci(I_LE, plat),
        right_edges: ci(I_RE, plat),
        peak_heights: cf(F_H, opts.height.is_some()),
        left_thresholds: cf(F_LT, thr),
        right_thresholds: cf(F_RT, thr),
        prominences: cf(F_PROM, need_prom),
        left_bases: ci(I_LB, need_prom),
        right_bases: ci(I_RB, need_prom),
        widths: cf(F_W, wid),
        width_heights: cf(F_WH, wid),
        left_ips: cf(F_LIP, wid),
        right_ips: cf(F_RIP, wid),
    };
    Ok((st.peaks, props))
}

/// The comparison of [`argrelextrema`] (NumPy's comparator ufuncs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparator {
    /// `np.greater` (maxima).
    Greater,
    /// `np.less` (minima).
    Less,
    /// `np.greater_equal`.
    GreaterEqual,
    /// `np.less_equal`.
    LessEqual,
}

/// How [`argrelextrema`] treats the edges (NumPy's `take` modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExtremaMode {
    /// Indices past the edge are clipped (an edge sample is compared with itself).
    #[default]
    Clip,
    /// Indices wrap around.
    Wrap,
}

fn cmp<T: RealFloat>(c: Comparator, a: T, b: T) -> bool {
    match c {
        Comparator::Greater => a > b,
        Comparator::Less => a < b,
        Comparator::GreaterEqual => a >= b,
        Comparator::LessEqual => a <= b,
    }
}

/// The relative extrema of `data` along `axis`: the elements for which `comparator(x, y)`
/// holds against every neighbour up to `order` samples away (SciPy's
/// `scipy.signal.argrelextrema(data, comparator, axis, order, mode)`). Returns one `i64` index
/// array per dimension (NumPy's `nonzero`), on `data`'s device; every lane along `axis` is
/// handled at once.
///
/// # Errors
/// `InvalidArgument` for `order` < 1, a 0-d array or an axis out of range.
///
/// ```
/// use cusci_signal::{argrelextrema, Array, Comparator, Device, ExtremaMode};
/// let x = Array::from_vec(vec![2.0, 1.0, 2.0, 3.0, 2.0, 0.0], &[6], &Device::cpu()).unwrap();
/// let i = argrelextrema(&x, Comparator::Greater, 0, 1, ExtremaMode::Clip).unwrap();
/// assert_eq!(i[0].to_vec().unwrap(), vec![3]);
/// ```
pub fn argrelextrema<T: RealFloat>(
    data: &Array<T>,
    comparator: Comparator,
    axis: isize,
    order: usize,
    mode: ExtremaMode,
) -> Result<Vec<Array<i64>>> {
    let op = "argrelextrema";
    if order < 1 {
        return Err(make::arg(op, "Order must be an int >= 1"));
    }
    let ax = norm_axis(op, axis, data.ndim())?;
    let (outer, n, inner) = split_axis(data.shape(), ax);
    let dev = data.device();
    let total = data.size();
    let wrap = mode == ExtremaMode::Wrap;
    let flags = match dev {
        Device::Cpu => {
            let d = cpu_contig(data)?;
            let f: Vec<i64> = (0..total)
                .into_par_iter()
                .map(|e| {
                    let (inn, j, o) = (e % inner, (e / inner) % n, e / (inner * n));
                    let at = |k: usize| d[o * n * inner + k * inner + inn];
                    let v = at(j);
                    let (j, n) = (j as i64, n as i64);
                    let mut ok = true;
                    for s in 1..=order as i64 {
                        let (a, b) = if wrap {
                            ((j + s).rem_euclid(n), (j - s).rem_euclid(n))
                        } else {
                            ((j + s).min(n - 1), (j - s).max(0))
                        };
                        ok = cmp(comparator, v, at(a as usize))
                            && cmp(comparator, v, at(b as usize));
                        if !ok {
                            break;
                        }
                    }
                    ok as i64
                })
                .collect();
            vi(f, dev)?
        }
        Device::Cuda(d) => {
            let dc = data.contiguous()?;
            let flags = zeros_i(dev, total)?;
            let c = match comparator {
                Comparator::Greater => 0i32,
                Comparator::Less => 1,
                Comparator::GreaterEqual => 2,
                Comparator::LessEqual => 3,
            };
            let mut a = Args::new();
            a.push(dptr(&dc))
                .push(outer as i64)
                .push(n as i64)
                .push(inner as i64)
                .push(order as i64)
                .push(c)
                .push(wrap as i32)
                .push(dptr(&flags));
            launch::<T>(d, "relext", total, &mut a)?;
            flags
        }
    };
    let flat = compact(&flags)?;
    let m = flat.size();
    let nd = data.ndim();
    match dev {
        Device::Cpu => {
            let f = cpu_contig(&flat)?;
            let mut outs = vec![Vec::with_capacity(m); nd];
            for &v in f.iter() {
                let mut r = v;
                for a in (0..nd).rev() {
                    outs[a].push(r % data.shape()[a] as i64);
                    r /= data.shape()[a] as i64;
                }
            }
            outs.into_iter().map(|v| vi(v, dev)).collect()
        }
        Device::Cuda(d) => {
            let shape: Vec<i64> = data.shape().iter().map(|&s| s as i64).collect();
            let sh = Array::from_vec(shape, &[nd], dev)?;
            let out = Array::<i64>::empty(&[nd, m], dev)?;
            let mut a = Args::new();
            a.push(dptr(&flat))
                .push(m as i64)
                .push(nd as i32)
                .push(dptr(&sh))
                .push(dptr(&out));
            launch::<T>(d, "unravel", m, &mut a)?;
            (0..nd)
                .map(|k| out.index_axis(0, k as isize)?.contiguous())
                .collect()
        }
    }
}

/// [`argrelextrema`] with `np.less` (SciPy's `scipy.signal.argrelmin`).
///
/// # Errors
/// As [`argrelextrema`].
pub fn argrelmin<T: RealFloat>(
    data: &Array<T>,
    axis: isize,
    order: usize,
    mode: ExtremaMode,
) -> Result<Vec<Array<i64>>> {
    argrelextrema(data, Comparator::Less, axis, order, mode)
}

/// [`argrelextrema`] with `np.greater` (SciPy's `scipy.signal.argrelmax`).
///
/// # Errors
/// As [`argrelextrema`].
pub fn argrelmax<T: RealFloat>(
    data: &Array<T>,
    axis: isize,
    order: usize,
    mode: ExtremaMode,
) -> Result<Vec<Array<i64>>> {
    argrelextrema(data, Comparator::Greater, axis, order, mode)
}

/// Every NVRTC kernel source of the waveform and peak modules (compile checks). Not API.
#[doc(hidden)]
pub fn analysis_kernel_sources() -> Vec<(String, String)> {
    vec![
        peaks_source::<f32>(),
        peaks_source::<f64>(),
        crate::waveforms::waveforms_source::<f32>(),
        crate::waveforms::waveforms_source::<f64>(),
    ]
}
