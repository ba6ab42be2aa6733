//! [`find_peaks_cwt`]: SciPy's wavelet-transform peak finder. The transform (one `'same'`
//! convolution per width, [`cwt`](crate::cwt)) runs on the vector's device; the ridge-line
//! tracking and the SNR filter are SciPy's sequential, data-dependent passes and run on the
//! host over the downloaded `(widths, n)` transform (a stated hybrid).

use crate::waveforms::{cwt, CwtWavelet};
use cusci_core::error::make;
use cusci_core::{Array, RealFloat, Result};

/// The keyword arguments of [`find_peaks_cwt`], SciPy's defaults.
#[derive(Clone, Debug)]
pub struct FindPeaksCwtOptions<'a> {
    /// The wavelet (SciPy's default: ricker). It must be real: SciPy compares the transform's
    /// values, which complex values do not allow.
    pub wavelet: CwtWavelet,
    /// The largest column step of a ridge line at each row, one per width (`None`:
    /// `widths / 4`).
    pub max_distances: Option<&'a [f64]>,
    /// The most rows a ridge line may skip (`None`: `ceil(widths[0])`).
    pub gap_thresh: Option<f64>,
    /// The fewest points of a kept ridge line (`None`: `ceil(widths.len() / 4)`).
    pub min_length: Option<f64>,
    /// The smallest signal-to-noise ratio of a kept peak (default 1).
    pub min_snr: f64,
    /// The percentile of the first transform row that is the noise floor (default 10).
    pub noise_perc: f64,
    /// The window of the noise percentile (`None`: `ceil(n / 20)`).
    pub window_size: Option<usize>,
}

impl Default for FindPeaksCwtOptions<'_> {
    fn default() -> Self {
        FindPeaksCwtOptions {
            wavelet: CwtWavelet::Ricker,
            max_distances: None,
            gap_thresh: None,
            min_length: None,
            min_snr: 1.0,
            noise_perc: 10.0,
            window_size: None,
        }
    }
}

struct Ridge {
    rows: Vec<usize>,
    cols: Vec<usize>,
    gap: usize,
}

/// `scipy.signal.find_peaks_cwt(vector, widths, wavelet, max_distances, gap_thresh,
/// min_length, min_snr, noise_perc, window_size)`: the indices (sorted) of the peaks of the
/// 1-D `vector` found as ridge lines of its continuous wavelet transform over `widths`, as an
/// `i64` array on `vector`'s device.
///
/// SciPy's algorithm step for step: relative maxima of every transform row (strictly greater
/// than both neighbours; the ends never count), ridge lines grown from the highest row with a
/// maximum down to row 0 (each maximum joins the nearest line, the first on ties, when within
/// `max_distances[row]`; a line whose gap exceeds `gap_thresh` is closed), lines shorter than
/// `min_length` or whose SNR (the transform at the line's last point over the
/// `noise_perc`-percentile of row 0 in a `window_size` window, SciPy's `scoreatpercentile`)
/// is below `min_snr` dropped. As SciPy, the peak of a line is its last point, and two lines
/// may end at the same column (the index then repeats).
///
/// Numerics: the transform in f64 (f32 input is widened, as SciPy converts); the comparisons
/// are exact, so the devices and SciPy agree unless two transform values tie to rounding.
///
/// Device: the transform on `vector`'s device, then copied to the host for the ridge lines
/// (a sequential pass); the indices are copied back.
///
/// # Errors
/// `InvalidArgument` for a vector that is not 1-D or is empty, empty or non-positive widths,
/// `max_distances` shorter than `widths` (SciPy: "Max_distances must have at least as many
/// rows as matr"), `noise_perc` outside `[0, 100]`, a `window_size` of 0, a non-finite
/// `gap_thresh` or `min_length`, or a complex wavelet.
///
/// ```
/// use cusci_signal::{find_peaks_cwt, Device, FindPeaksCwtOptions};
/// use cusci_core::Array;
/// let x: Vec<f64> = (0..200).map(|i| (i as f64 * 0.1).sin()).collect(); // peaks near 16, 79, 142
/// let x = Array::from_vec(x, &[200], &Device::cpu()).unwrap();
/// let widths: Vec<f64> = (1..10).map(|w| w as f64).collect();
/// let p = find_peaks_cwt(&x, &widths, &FindPeaksCwtOptions::default()).unwrap();
/// let p = p.to_vec().unwrap();
/// assert!(p.iter().any(|&i| (i - 16).abs() <= 2));
/// ```
pub fn find_peaks_cwt<T: RealFloat>(
    vector: &Array<T>,
    widths: &[f64],
    opts: &FindPeaksCwtOptions,
) -> Result<Array<i64>> {
    let op = "find_peaks_cwt";
    if vector.ndim() != 1 {
        return Err(make::arg(op, "`vector` must be a 1-D array"));
    }
    if matches!(opts.wavelet, CwtWavelet::Morlet2 { .. }) {
        return Err(make::arg(
            op,
            "a complex wavelet gives a complex transform, whose values cannot be compared",
        ));
    }
    if widths.is_empty() {
        return Err(make::arg(op, "widths is empty"));
    }
    let nw = widths.len();
    let quarter: Vec<f64>;
    let maxd: &[f64] = match opts.max_distances {
        Some(m) => m,
        None => {
            quarter = widths.iter().map(|w| w / 4.0).collect();
            &quarter
        }
    };
    if maxd.len() < nw {
        return Err(make::arg(
            op,
            "Max_distances must have at least as many rows as matr",
        ));
    }
    if !(0.0..=100.0).contains(&opts.noise_perc) {
        return Err(make::arg(op, "percentile must be in the range [0, 100]"));
    }
    if opts.window_size == Some(0) {
        return Err(make::arg(op, "window_size must be at least 1"));
    }
    let gap_thresh = opts.gap_thresh.unwrap_or_else(|| widths[0].ceil());
    let min_length = opts.min_length.unwrap_or((nw as f64 / 4.0).ceil());
    if gap_thresh.is_nan() || min_length.is_nan() || opts.min_snr.is_nan() {
        return Err(make::arg(
            op,
            "gap_thresh, min_length and min_snr must not be NaN",
        ));
    }
    let data = vector.astype::<f64>()?;
    let m = cwt(&data, &opts.wavelet, widths)?.to_vec()?;
    let n = vector.size();
    let at = |r: usize, c: usize| m[r * n + c];
    let relmax = |r: usize, c: usize| {
        c > 0 && c + 1 < n && at(r, c) > at(r, c - 1) && at(r, c) > at(r, c + 1)
    };

    // SciPy's _identify_ridge_lines
    let mut lines: Vec<Ridge> = Vec::new();
    let mut closed: Vec<Ridge> = Vec::new();
    if let Some(start) = (0..nw).rev().find(|&r| (0..n).any(|c| relmax(r, c))) {
        lines = (0..n)
            .filter(|&c| relmax(start, c))
            .map(|c| Ridge {
                rows: vec![start],
                cols: vec![c],
                gap: 0,
            })
            .collect();
        for row in (0..start).rev() {
            for l in lines.iter_mut() {
                l.gap += 1;
            }
            let prev: Vec<usize> = lines.iter().map(|l| *l.cols.last().unwrap_or(&0)).collect();
            for col in (0..n).filter(|&c| relmax(row, c)) {
                let mut best: Option<(usize, usize)> = None;
                for (k, &pc) in prev.iter().enumerate() {
                    let d = col.abs_diff(pc);
                    if best.is_none_or(|(_, bd)| d < bd) {
                        best = Some((k, d));
                    }
                }
                match best {
                    Some((k, d)) if d as f64 <= maxd[row] => {
                        let l = &mut lines[k];
                        l.cols.push(col);
                        l.rows.push(row);
                        l.gap = 0;
                    }
                    _ => lines.push(Ridge {
                        rows: vec![row],
                        cols: vec![col],
                        gap: 0,
                    }),
                }
            }
            for ind in (0..lines.len()).rev() {
                if lines[ind].gap as f64 > gap_thresh {
                    closed.push(lines.remove(ind));
                }
            }
        }
    }
    closed.extend(lines);

    // SciPy's _filter_ridge_lines
    let window = opts
        .window_size
        .unwrap_or((n as f64 / 20.0).ceil() as usize);
    let (hf, odd) = (window / 2, window % 2);
    let row0 = &m[..n];
    let noises: Vec<f64> = (0..n)
        .map(|i| {
            let lo = i.saturating_sub(hf);
            let hi = (i + hf + odd).min(n);
            percentile(&row0[lo..hi], opts.noise_perc)
        })
        .collect();
    let mut peaks: Vec<i64> = closed
        .iter()
        .filter(|l| {
            if (l.rows.len() as f64) < min_length {
                return false;
            }
            // SciPy's "sorted" line puts the last point found first
            let (r, c) = (*l.rows.last().unwrap_or(&0), *l.cols.last().unwrap_or(&0));
            let snr = (at(r, c) / noises[c]).abs();
            // NaN (0/0) passes, as in SciPy
            snr.is_nan() || snr >= opts.min_snr
        })
        .map(|l| *l.cols.last().unwrap_or(&0) as i64)
        .collect();
    peaks.sort_unstable();
    let len = peaks.len();
    Array::from_vec(peaks, &[len], vector.device())
}

/// `scipy.stats.scoreatpercentile(a, per)` (interpolation 'fraction'; NaN sorts last).
fn percentile(a: &[f64], per: f64) -> f64 {
    let mut s = a.to_vec();
    s.sort_by(|x, y| match (x.is_nan(), y.is_nan()) {
        (true, true) => std::cmp::Ordering::Equal,
        (true, false) => std::cmp::Ordering::Greater,
        (false, true) => std::cmp::Ordering::Less,
        _ => x.partial_cmp(y).unwrap_or(std::cmp::Ordering::Equal),
    });
    if s.is_empty() {
        return f64::NAN;
    }
    let idx = per / 100.0 * (s.len() - 1) as f64;
    let i = idx as usize;
    if i as f64 == idx {
        return s[i];
    }
    let (w0, w1) = ((i + 1) as f64 - idx, idx - i as f64);
    (s[i] * w0 + s[i + 1] * w1) / (w0 + w1)
}
