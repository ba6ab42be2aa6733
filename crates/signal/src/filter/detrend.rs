//! [`detrend`]: SciPy's `scipy.signal.detrend` (constant, linear, piecewise linear with
//! breakpoints), composed from the core's broadcast arithmetic and axis reductions, so it runs on
//! the array's device (GPU kernels of the core, rayon on the CPU) with every signal of the batch in
//! the same passes.

use crate::procutil::{from_f64, SignalScalar};
use cusci_core::array::layout::norm_axis;
use cusci_core::error::make;
use cusci_core::{Array, Result};

/// The trend [`detrend`] removes (`type=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DetrendType {
    /// `'linear'`: the least-squares line of each piece between breakpoints (SciPy's default).
    #[default]
    Linear,
    /// `'constant'`: the mean.
    Constant,
}

/// The optional arguments of [`detrend`].
///
/// ```
/// let o = cusci_signal::DetrendOptions::default();
/// assert_eq!((o.axis, o.kind, o.bp.len()), (-1, cusci_signal::DetrendType::Linear, 0));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetrendOptions {
    /// The axis. Default `-1`.
    pub axis: isize,
    /// The trend. Default [`DetrendType::Linear`].
    pub kind: DetrendType,
    /// Breakpoints of the piecewise linear fit (indices along the axis; sorted and de-duplicated
    /// as SciPy does, `0` and the length are added). Ignored for [`DetrendType::Constant`].
    pub bp: Vec<usize>,
}

impl Default for DetrendOptions {
    fn default() -> Self {
        DetrendOptions {
            axis: -1,
            kind: DetrendType::Linear,
            bp: Vec::new(),
        }
    }
}

/// Removes a linear (or constant) trend along an axis, SciPy's
/// `scipy.signal.detrend(data, axis, type, bp)`.
///
/// Linear: each piece `bp[k]..bp[k+1]` of every signal loses its least-squares line. The fit is
/// the projection on an orthonormal basis `{1, t - mean(t)}` of the piece (the same line SciPy's
/// `lstsq` finds; a one-point piece becomes 0, as in SciPy), computed with broadcast products and
/// axis sums, two per basis vector.
///
/// # Errors
/// `InvalidArgument` for a bad axis, an empty axis (linear), or a breakpoint beyond the length
/// of the axis.
///
/// ```
/// use cusci_signal::{detrend, DetrendOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 3.0, 5.0, 7.0], &[4], &Device::cpu()).unwrap();
/// let y = detrend(&x, &DetrendOptions::default()).unwrap().to_vec().unwrap();
/// assert!(y.iter().all(|v| v.abs() < 1e-12));
/// ```
pub fn detrend<T: SignalScalar>(x: &Array<T>, opts: &DetrendOptions) -> Result<Array<T>> {
    let op = "detrend";
    let axis = norm_axis(op, opts.axis, x.ndim())?;
    let n = x.shape()[axis];
    if opts.kind == DetrendType::Constant {
        if n == 0 {
            return x.copy();
        }
        return x.sub(&x.mean_axes_keepdims(&[axis as isize])?);
    }
    if let Some(&b) = opts.bp.iter().find(|&&b| b > n) {
        return Err(make::arg(
            op,
            format!("breakpoint {b} is beyond the length {n} of the axis"),
        ));
    }
    if n == 0 {
        return Err(make::arg(op, "the axis must not be empty"));
    }
    let mut bp = opts.bp.clone();
    bp.push(0);
    bp.push(n);
    bp.sort_unstable();
    bp.dedup();
    let mut bshape = vec![1usize; x.ndim()];
    bshape[axis] = n;
    let ax = [axis as isize];
    let mut fit: Option<Array<T>> = None;
    for w in bp.windows(2) {
        for q in basis(w[0], w[1], n) {
            let qa = Array::from_vec(
                q.into_iter().map(from_f64::<T>).collect(),
                &bshape,
                x.device(),
            )?;
            let c = x.mul(&qa)?.sum_axes_keepdims(&ax)?;
            let term = c.mul(&qa)?;
            fit = Some(match fit {
                None => term,
                Some(f) => f.add(&term)?,
            });
        }
    }
    match fit {
        Some(f) => x.sub(&f),
        None => x.copy(),
    }
}

/// The orthonormal basis of the lines on `lo..hi` (zero elsewhere), as full-length vectors:
/// one vector for a one-point piece, two otherwise.
fn basis(lo: usize, hi: usize, n: usize) -> Vec<Vec<f64>> {
    let m = hi - lo;
    let mut q0 = vec![0.0; n];
    let c = 1.0 / (m as f64).sqrt();
    q0[lo..hi].iter_mut().for_each(|v| *v = c);
    if m < 2 {
        return vec![q0];
    }
    let mean = (m as f64 + 1.0) / 2.0;
    let mut q1 = vec![0.0; n];
    for (j, v) in q1[lo..hi].iter_mut().enumerate() {
        *v = j as f64 + 1.0 - mean;
    }
    let norm = q1.iter().map(|v| v * v).sum::<f64>().sqrt();
    q1.iter_mut().for_each(|v| *v /= norm);
    vec![q0, q1]
}
