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

mod argrel;
mod common;
mod cwt;
mod find;

pub use argrel::{argrelextrema, argrelmax, argrelmin, Comparator, ExtremaMode};
pub(crate) use common::PEAKS;
pub use cwt::{find_peaks_cwt, FindPeaksCwtOptions};
pub use find::{
    find_peaks, peak_prominences, peak_widths, Bound, FindPeaksOptions, PeakProperties,
    Prominences, Widths,
};
