//! [`find_peaks`], [`peak_prominences`] and [`peak_widths`].

use super::common::{compact, grid, kernel, vf, vi, zeros_f, zeros_i};
use crate::procutil::host_elems;
use cusci_core::array::check_same_device;
use cusci_core::error::make;
use cusci_core::{Array, Backend, Element, RealFloat, Result};
use rayon::prelude::*;

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

/// SciPy's _local_maxima_1d: (midpoints, left edges, right edges).
fn local_maxima(x: &Array<f64>) -> Result<(Array<i64>, Array<i64>, Array<i64>)> {
    let dev = x.device();
    let n = x.size();
    match x.backend() {
        Backend::Host(h) => {
            let x = h.try_to_contiguous()?;
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
        Backend::Cuda(c) => {
            let d = c.dev();
            let mut flags = zeros_i(dev, n)?;
            if n > 0 {
                d.launch(&kernel::<f64>(d, "local_max")?, grid(n)?)
                    .arg(c.ptr())
                    .arg(n as i64)
                    .arg(flags.dev_ptr_mut()?)
                    .run()?;
            }
            let left = compact(&flags)?;
            let m = left.size();
            let mut right = zeros_i(dev, m)?;
            let mut mid = zeros_i(dev, m)?;
            if m > 0 {
                d.launch(&kernel::<f64>(d, "edges")?, grid(m)?)
                    .arg(c.ptr())
                    .arg(n as i64)
                    .arg(left.dev_ptr()?)
                    .arg(m as i64)
                    .arg(right.dev_ptr_mut()?)
                    .arg(mid.dev_ptr_mut()?)
                    .run()?;
            }
            Ok((mid, left, right))
        }
    }
}

/// `src[idx]` through the kernel `name` (`gather_i` or `gather_f`, by the element type).
fn gather<T: Element>(src: &Array<T>, idx: &Array<i64>, name: &str) -> Result<Array<T>> {
    let dev = src.device();
    let m = idx.size();
    match src.backend() {
        Backend::Host(h) => {
            let (s, i) = (h.try_to_contiguous()?, host_elems(idx)?);
            Array::from_vec(i.iter().map(|&k| s[k as usize]).collect(), &[m], dev)
        }
        Backend::Cuda(c) => {
            let d = c.dev();
            let mut out = Array::<T>::empty(&[m], dev)?;
            if m > 0 {
                d.launch(&kernel::<f64>(d, name)?, grid(m)?)
                    .arg(c.ptr())
                    .arg(idx.dev_ptr()?)
                    .arg(m as i64)
                    .arg(out.dev_ptr_mut()?)
                    .run()?;
            }
            Ok(out)
        }
    }
}

/// Heights, left/right thresholds and plateau sizes of every peak.
type Basic = (Array<f64>, Array<f64>, Array<f64>, Array<f64>);
fn basic(x: &Array<f64>, peaks: &Array<i64>, le: &Array<i64>, re: &Array<i64>) -> Result<Basic> {
    let dev = x.device();
    let m = peaks.size();
    match x.backend() {
        Backend::Host(h) => {
            let (xs, p, l, r) = (
                h.try_to_contiguous()?,
                host_elems(peaks)?,
                host_elems(le)?,
                host_elems(re)?,
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
        Backend::Cuda(c) => {
            let d = c.dev();
            let [mut h, mut lt, mut rt, mut ps] = [
                zeros_f(dev, m)?,
                zeros_f(dev, m)?,
                zeros_f(dev, m)?,
                zeros_f(dev, m)?,
            ];
            if m > 0 {
                d.launch(&kernel::<f64>(d, "basic")?, grid(m)?)
                    .arg(c.ptr())
                    .arg(peaks.dev_ptr()?)
                    .arg(le.dev_ptr()?)
                    .arg(re.dev_ptr()?)
                    .arg(m as i64)
                    .arg(h.dev_ptr_mut()?)
                    .arg(lt.dev_ptr_mut()?)
                    .arg(rt.dev_ptr_mut()?)
                    .arg(ps.dev_ptr_mut()?)
                    .run()?;
            }
            Ok((h, lt, rt, ps))
        }
    }
}

/// Flags of the peaks whose value (or NaN-propagating min/max of `a` and `b`) lies in `bd`.
fn bound_keep(a: &Array<f64>, b: Option<&Array<f64>>, bd: &Bound) -> Result<Array<i64>> {
    let dev = a.device();
    let m = a.size();
    match a.backend() {
        Backend::Host(h) => {
            let av = h.try_to_contiguous()?;
            let bv = b.map(host_elems).transpose()?;
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
        Backend::Cuda(c) => {
            let d = c.dev();
            let mut keep = zeros_i(dev, m)?;
            if m > 0 {
                d.launch(&kernel::<f64>(d, "bound")?, grid(m)?)
                    .arg(c.ptr())
                    .arg(b.map(Array::dev_ptr).transpose()?)
                    .arg(m as i64)
                    .arg(bd.min.is_some() as i32)
                    .arg(bd.min.unwrap_or(0.0))
                    .arg(bd.max.is_some() as i32)
                    .arg(bd.max.unwrap_or(0.0))
                    .arg(keep.dev_ptr_mut()?)
                    .run()?;
            }
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
    match x.backend() {
        Backend::Host(h) => {
            let (xs, p) = (h.try_to_contiguous()?, host_elems(peaks)?);
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
        Backend::Cuda(c) => {
            let d = c.dev();
            let mut prom = zeros_f(dev, m)?;
            let mut lb = zeros_i(dev, m)?;
            let mut rb = zeros_i(dev, m)?;
            let mut bad = Array::<i64>::full(&[1], i64::MAX, dev)?;
            if m > 0 {
                d.launch(&kernel::<f64>(d, "prominences")?, grid(m)?)
                    .arg(c.ptr())
                    .arg(n)
                    .arg(peaks.dev_ptr()?)
                    .arg(m as i64)
                    .arg(wlen)
                    .arg(prom.dev_ptr_mut()?)
                    .arg(lb.dev_ptr_mut()?)
                    .arg(rb.dev_ptr_mut()?)
                    .arg(bad.dev_ptr_mut()?)
                    .run()?;
            }
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
    match x.backend() {
        Backend::Host(h) => {
            let xs = h.try_to_contiguous()?;
            let p = host_elems(peaks)?;
            let pr = host_elems(&pd.prominences)?;
            let lb = host_elems(&pd.left_bases)?;
            let rb = host_elems(&pd.right_bases)?;
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
        Backend::Cuda(c) => {
            let d = c.dev();
            let [mut widths, mut width_heights, mut left_ips, mut right_ips] = [
                zeros_f(dev, m)?,
                zeros_f(dev, m)?,
                zeros_f(dev, m)?,
                zeros_f(dev, m)?,
            ];
            let mut flag = Array::<i64>::full(&[1], i64::MAX, dev)?;
            let (prc, lbc, rbc) = (
                pd.prominences.contiguous()?,
                pd.left_bases.contiguous()?,
                pd.right_bases.contiguous()?,
            );
            if m > 0 {
                d.launch(&kernel::<f64>(d, "widths")?, grid(m)?)
                    .arg(c.ptr())
                    .arg(n)
                    .arg(peaks.dev_ptr()?)
                    .arg(m as i64)
                    .arg(rel)
                    .arg(prc.dev_ptr()?)
                    .arg(lbc.dev_ptr()?)
                    .arg(rbc.dev_ptr()?)
                    .arg(widths.dev_ptr_mut()?)
                    .arg(width_heights.dev_ptr_mut()?)
                    .arg(left_ips.dev_ptr_mut()?)
                    .arg(right_ips.dev_ptr_mut()?)
                    .arg(flag.dev_ptr_mut()?)
                    .run()?;
            }
            let b = if check { flag.item()? } else { i64::MAX };
            if b != i64::MAX {
                return Err(bad(b as usize));
            }
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
    check_same_device(op, x.device(), peaks.device())?;
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
    check_same_device(op, x.device(), peaks.device())?;
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
        self.peaks = gather(&self.peaks, &idx, "gather_i")?;
        for c in self.cols_i.iter_mut().flatten() {
            *c = gather(c, &idx, "gather_i")?;
        }
        for c in self.cols_f.iter_mut().flatten() {
            *c = gather(c, &idx, "gather_f")?;
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
    let missing = || make::arg(op, "a peak property was not computed");
    let f = |st: &State, k: usize| st.cols_f[k].clone().ok_or_else(missing);
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
        keep = and(keep, bound_keep(&f(&st, F_PS)?, None, b)?)?;
    }
    if let Some(b) = &opts.height {
        keep = and(keep, bound_keep(&f(&st, F_H)?, None, b)?)?;
    }
    if let Some(b) = &opts.threshold {
        keep = and(keep, bound_keep(&f(&st, F_LT)?, Some(&f(&st, F_RT)?), b)?)?;
    }
    if let Some(k) = keep {
        st.select(&k)?;
    }
    if let Some(dd) = opts.distance {
        let keep = distance_keep(&st.peaks, &f(&st, F_H)?, dd)?;
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
        keep = and(keep, bound_keep(&f(&st, F_PROM)?, None, b)?)?;
    }
    if let Some(b) = &opts.width {
        let pd = Prominences {
            prominences: f(&st, F_PROM)?,
            left_bases: st.cols_i[I_LB].clone().ok_or_else(missing)?,
            right_bases: st.cols_i[I_RB].clone().ok_or_else(missing)?,
        };
        let w = widths_impl(&x, &st.peaks, opts.rel_height, &pd, false)?;
        st.cols_f[F_W] = Some(w.widths);
        st.cols_f[F_WH] = Some(w.width_heights);
        st.cols_f[F_LIP] = Some(w.left_ips);
        st.cols_f[F_RIP] = Some(w.right_ips);
        keep = and(keep, bound_keep(&f(&st, F_W)?, None, b)?)?;
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
