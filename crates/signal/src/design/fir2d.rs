//! `firwin_2d`: a 2-D FIR filter built from 1-D [`firwin`] designs, as SciPy 1.15+ builds it
//! (the outer product of two 1-D filters, or a circularly symmetric filter interpolated from one
//! oversampled 1-D filter). Scalars in, a host matrix out.

use super::fir::{firwin, FirWindow, FirwinOptions};
use crate::ltisys::Mat;
use cusci_core::error::make;
use cusci_core::host::try_vec_zeroed;
use cusci_core::Result;

/// The window argument of [`firwin_2d`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Firwin2dWindow {
    /// SciPy's 2-tuple `window` (`circular=False`): the filter is the outer product of the
    /// row filter `firwin(hsize[0], fc, window=.0)` and the column filter
    /// `firwin(hsize[1], fc, window=.1)`.
    Separable(FirWindow, FirWindow),
    /// SciPy's single `window` with `circular=True`: a circularly symmetric filter.
    Circular(FirWindow),
}

/// `scipy.signal.firwin_2d(hsize, window, *, fc, fs=2, circular)`: a 2-D FIR filter from 1-D
/// window-method filters.
///
/// - `Separable(w0, w1)`: `outer(firwin(hsize[0], fc, w0, fs), firwin(hsize[1], fc, w1, fs))`,
///   an `hsize[0] × hsize[1]` matrix.
/// - `Circular(w)`: SciPy's construction: `h = firwin(8·max(hsize), fc, w, fs)` sampled on
///   `linspace(0, 1, 8·max(hsize))` and linearly interpolated (`np.interp`, clamped beyond 1) at
///   the radius `sqrt(f1² + f2²)` of `meshgrid(linspace(-1, 1, hsize[0]), linspace(-1, 1,
///   hsize[1]))`: an `hsize[1] × hsize[0]` matrix (NumPy's `meshgrid` order; square sizes are
///   the common case).
///
/// `pass_zero` and `scale` are not arguments: SciPy 1.15–1.17 accept them but do not pass them
/// on (every 1-D design uses firwin's defaults, a low-pass scaled to unit gain at DC); these
/// are SciPy's results.
///
/// Numerics: f64 on the host; equal to SciPy's within 1e-13 (tests).
///
/// # Errors
/// `InvalidArgument` for an empty `fc` (SciPy: "Cutoff frequency `fc` must be provided when
/// `circular` is True", and firwin's error otherwise), and every error of [`firwin`] (a zero
/// length, cutoffs outside `(0, fs/2)` or not increasing, an even length with a pass band at
/// Nyquist).
///
/// ```
/// use cusci_signal::{firwin_2d, FirWindow, Firwin2dWindow};
/// let w = Firwin2dWindow::Separable(FirWindow::Hamming, FirWindow::Hamming);
/// let h = firwin_2d([5, 5], w, &[0.1], 2.0).unwrap();
/// assert_eq!((h.rows, h.cols), (5, 5));
/// let dc: f64 = h.data.iter().sum();
/// assert!((dc - 1.0).abs() < 1e-12); // each 1-D filter has unit DC gain
/// ```
pub fn firwin_2d(hsize: [usize; 2], window: Firwin2dWindow, fc: &[f64], fs: f64) -> Result<Mat> {
    let op = "firwin_2d";
    if fc.is_empty() {
        return Err(make::arg(
            op,
            "Cutoff frequency `fc` must be provided (at least one cutoff)",
        ));
    }
    let opts = |w: FirWindow| FirwinOptions {
        window: w,
        fs,
        ..FirwinOptions::default()
    };
    match window {
        Firwin2dWindow::Separable(w0, w1) => {
            let r = firwin(hsize[0], fc, &opts(w0))?;
            let c = firwin(hsize[1], fc, &opts(w1))?;
            let n = hsize[0]
                .checked_mul(hsize[1])
                .ok_or_else(|| make::arg(op, "hsize[0] * hsize[1] overflows"))?;
            let mut data: Vec<f64> = try_vec_zeroed(op, n)?;
            for (i, row) in data.chunks_mut(hsize[1].max(1)).enumerate() {
                for (j, v) in row.iter_mut().enumerate() {
                    *v = r[i] * c[j];
                }
            }
            Mat::new(hsize[0], hsize[1], data)
        }
        Firwin2dWindow::Circular(w) => {
            if hsize[0] == 0 || hsize[1] == 0 {
                return Err(make::arg(op, "hsize must be positive"));
            }
            let n_r = hsize[0]
                .max(hsize[1])
                .checked_mul(8)
                .ok_or_else(|| make::arg(op, "hsize too large"))?;
            let win = firwin(n_r, fc, &opts(w))?;
            let xp = linspace(0.0, 1.0, n_r);
            let l0 = linspace(-1.0, 1.0, hsize[0]);
            let l1 = linspace(-1.0, 1.0, hsize[1]);
            let n = hsize[0]
                .checked_mul(hsize[1])
                .ok_or_else(|| make::arg(op, "hsize[0] * hsize[1] overflows"))?;
            let mut data: Vec<f64> = try_vec_zeroed(op, n)?;
            for (i, row) in data.chunks_mut(hsize[0]).enumerate() {
                for (j, v) in row.iter_mut().enumerate() {
                    let r = (l0[j] * l0[j] + l1[i] * l1[i]).sqrt();
                    *v = interp(r, &xp, &win);
                }
            }
            Mat::new(hsize[1], hsize[0], data)
        }
    }
}

/// NumPy's `linspace(a, b, n)` (the last point exactly `b`).
fn linspace(a: f64, b: f64, n: usize) -> Vec<f64> {
    if n == 1 {
        return vec![a];
    }
    let step = (b - a) / (n - 1) as f64;
    let mut v: Vec<f64> = (0..n).map(|i| a + i as f64 * step).collect();
    if let Some(l) = v.last_mut() {
        *l = b;
    }
    v
}

/// NumPy's `interp(x, xp, fp)` for increasing `xp`: linear between the nodes, clamped to the
/// end values outside.
fn interp(x: f64, xp: &[f64], fp: &[f64]) -> f64 {
    let n = xp.len();
    if x <= xp[0] {
        return fp[0];
    }
    if x >= xp[n - 1] {
        return fp[n - 1];
    }
    // the last node at or below x
    let j = xp.partition_point(|&v| v <= x) - 1;
    if xp[j] == x {
        return fp[j];
    }
    let slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
    slope * (x - xp[j]) + fp[j]
}
