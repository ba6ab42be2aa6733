//! The analytic signal [`hilbert`] (SciPy's `scipy.signal.hilbert`), through `cusci_fft` on the
//! array's device.

use crate::procutil::norm_axis;
use cusci_core::error::make;
use cusci_core::{Array, Element, Result};
use cusci_fft::{FftInput, FftOptions, FftReal};

/// The optional arguments of [`hilbert`] (`N=`, `axis=`).
///
/// ```
/// let o = cusci_signal::HilbertOptions::default();
/// assert_eq!((o.n, o.axis), (None, -1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HilbertOptions {
    /// The number of Fourier components (the input is cut or zero-padded to it). Default: the
    /// length of `axis`.
    pub n: Option<usize>,
    /// The axis. Default `-1`.
    pub axis: isize,
}

impl Default for HilbertOptions {
    fn default() -> Self {
        HilbertOptions { n: None, axis: -1 }
    }
}

/// The analytic signal of real `x` along `opts.axis`, SciPy's `scipy.signal.hilbert(x, N, axis)`:
/// `ifft(fft(x, N) * h)` with `h = [1, 2, ..., 2, 1 (N even), 0, ...]`; its real part is `x`
/// and its imaginary part the Hilbert transform of `x`. Every signal of the batch in one pair of
/// transforms.
///
/// # Errors
/// `InvalidArgument` for `N == 0` (or an empty axis without `N`) or a bad axis; the FFT's errors.
///
/// ```
/// use cusci_signal::{hilbert, HilbertOptions, Array, Device};
/// let d = Device::cpu();
/// let x = Array::from_vec(vec![1.0f64, 0.0, -1.0, 0.0], &[4], &d).unwrap(); // cos
/// let z = hilbert(&x, &HilbertOptions::default()).unwrap().to_vec().unwrap();
/// assert!((z[1].im - 1.0).abs() < 1e-12); // sin
/// ```
pub fn hilbert<T>(x: &Array<T>, opts: &HilbertOptions) -> Result<Array<<T as FftReal>::Complex>>
where
    T: FftReal + FftInput<Complex = <T as FftReal>::Complex>,
    <T as FftReal>::Complex: FftInput<Complex = <T as FftReal>::Complex>,
{
    let op = "hilbert";
    let axis = norm_axis(op, opts.axis, x.ndim())?;
    let n = opts.n.unwrap_or(x.shape()[axis]);
    if n == 0 {
        return Err(make::arg(op, "N must be positive"));
    }
    let fo = FftOptions {
        n: Some(n),
        axis: axis as isize,
        ..Default::default()
    };
    let xf = cusci_fft::fft(x, &fo)?;
    let mut h = vec![<T as FftReal>::Complex::zero(); n];
    let two = <T as FftReal>::Complex::from_c64(cusci_core::c64::new(2.0, 0.0));
    h[0] = <T as FftReal>::Complex::one();
    if n % 2 == 0 {
        h[n / 2] = <T as FftReal>::Complex::one();
        h[1..n / 2].iter_mut().for_each(|v| *v = two);
    } else {
        h[1..n.div_ceil(2)].iter_mut().for_each(|v| *v = two);
    }
    let mut hshape = vec![1usize; x.ndim()];
    hshape[axis] = n;
    let h = Array::from_vec(h, &hshape, x.device())?;
    let prod = xf.mul(&h)?;
    cusci_fft::ifft(&prod, &fo)
}
