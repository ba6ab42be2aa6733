//! SciPy's window functions by name (`scipy.signal.windows.hann(M, sym=True)`, ...): thin
//! front ends over [`Window::values`], so each gives exactly `get_window`'s values.

use super::*;

/// `window`'s `m` points (`sym`: symmetric, else periodic) as `T` on `dev`.
fn on_device<T: RealFloat>(window: &Window, m: usize, sym: bool, dev: &Device) -> Result<Array<T>> {
    get_window(window, m, !sym, dev)
}

/// A parameter-free window of `scipy.signal.windows`, with its doc and an example that checks
/// the symmetric form's centre (1 for every one of them) and its symmetry.
macro_rules! plain_window {
    ($name:ident, $variant:expr, $what:literal) => {
        #[doc = concat!("The ", $what, " window of `m` points, SciPy's `scipy.signal.windows.",
                        stringify!($name), "(M, sym)`: `sym = true` (SciPy's default) gives the ",
                        "symmetric form (filter design), false the periodic one (spectral ",
                        "analysis, `get_window`'s default).")]
        ///
        /// Numerics: SciPy's formula evaluated on the host in f64, then rounded to `T` and
        /// placed on `dev` (the same values as [`get_window`]). `m = 0` gives an empty array,
        /// `m = 1` a single 1.
        ///
        /// # Errors
        /// The copy to `dev`'s errors.
        ///
        /// ```
        #[doc = concat!("use cusci_signal::{windows::", stringify!($name), ", Device};")]
        #[doc = concat!("let w = ", stringify!($name), "::<f64>(7, true, &Device::cpu()).unwrap();")]
        /// let v = w.to_vec().unwrap();
        /// assert_eq!(v.len(), 7);
        /// assert!((v[3] - 1.0).abs() < 1e-8); // the centre
        /// assert!((v[1] - v[5]).abs() < 1e-15); // symmetric
        /// ```
        pub fn $name<T: RealFloat>(m: usize, sym: bool, dev: &Device) -> Result<Array<T>> {
            on_device(&$variant, m, sym, dev)
        }
    };
}

plain_window!(hann, Window::Hann, "Hann (raised cosine, `0.5 - 0.5 cos`)");
plain_window!(hamming, Window::Hamming, "Hamming (`0.54 - 0.46 cos`)");
plain_window!(
    blackman,
    Window::Blackman,
    "Blackman (`[0.42, 0.50, 0.08]`)"
);
plain_window!(
    bartlett,
    Window::Bartlett,
    "Bartlett (triangular, zero end points)"
);
plain_window!(cosine, Window::Cosine, "cosine (sine)");
plain_window!(boxcar, Window::Boxcar, "boxcar (rectangular, all ones)");
plain_window!(triang, Window::Triang, "triangular (non-zero end points)");
plain_window!(parzen, Window::Parzen, "Parzen");
plain_window!(bohman, Window::Bohman, "Bohman");
plain_window!(
    nuttall,
    Window::Nuttall,
    "Nuttall (minimum 4-term Blackman-Harris)"
);
plain_window!(
    blackmanharris,
    Window::Blackmanharris,
    "minimum 4-term Blackman-Harris"
);
plain_window!(flattop, Window::Flattop, "flat top (5 terms)");
plain_window!(barthann, Window::Barthann, "modified Bartlett-Hann");
plain_window!(lanczos, Window::Lanczos, "Lanczos (sinc)");

/// The Kaiser window of `m` points with shape `beta`, SciPy's
/// `scipy.signal.windows.kaiser(M, beta, sym)`: `I0(β sqrt(1 - (2n/(M-1) - 1)²)) / I0(β)`;
/// `sym = false` the periodic form.
///
/// Numerics: on the host in f64 (the crate's `I0`), rounded to `T` (as [`get_window`]).
///
/// # Errors
/// The copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::kaiser, Device};
/// let v = kaiser::<f64>(9, 8.6, true, &Device::cpu()).unwrap().to_vec().unwrap();
/// assert!((v[4] - 1.0).abs() < 1e-15 && v[0] < 2e-3 && v[0] > 1e-3);
/// ```
pub fn kaiser<T: RealFloat>(m: usize, beta: f64, sym: bool, dev: &Device) -> Result<Array<T>> {
    on_device(&Window::Kaiser(beta), m, sym, dev)
}

/// The Gaussian window of `m` points with standard deviation `std` (in samples), SciPy's
/// `scipy.signal.windows.gaussian(M, std, sym)`.
///
/// Numerics: on the host in f64, rounded to `T` (as [`get_window`]).
///
/// # Errors
/// The copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::gaussian, Device};
/// let v = gaussian::<f64>(5, 1.0, true, &Device::cpu()).unwrap().to_vec().unwrap();
/// assert!((v[3] - (-0.5f64).exp()).abs() < 1e-15);
/// ```
pub fn gaussian<T: RealFloat>(m: usize, std: f64, sym: bool, dev: &Device) -> Result<Array<T>> {
    on_device(&Window::Gaussian(std), m, sym, dev)
}

/// The Tukey (tapered cosine) window of `m` points with taper fraction `alpha` (0: boxcar,
/// 1: Hann; SciPy's default 0.5), SciPy's `scipy.signal.windows.tukey(M, alpha, sym)`.
///
/// Numerics: on the host in f64, rounded to `T` (as [`get_window`]).
///
/// # Errors
/// The copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::tukey, Device};
/// let v = tukey::<f64>(9, 0.5, true, &Device::cpu()).unwrap().to_vec().unwrap();
/// assert_eq!((v[0], v[4]), (0.0, 1.0));
/// ```
pub fn tukey<T: RealFloat>(m: usize, alpha: f64, sym: bool, dev: &Device) -> Result<Array<T>> {
    on_device(&Window::Tukey(alpha), m, sym, dev)
}

/// The exponential (Poisson) window of `m` points, `exp(-|n - center| / tau)`, SciPy's
/// `scipy.signal.windows.exponential(M, center, tau, sym)` (`center = None`: the middle,
/// `(M-1)/2`; SciPy's default `tau` is 1).
///
/// Numerics: on the host in f64, rounded to `T` (as [`get_window`]).
///
/// # Errors
/// `InvalidArgument` for a `center` with `sym = true` (SciPy's "If sym==True, center must be
/// None."); the copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::exponential, Device};
/// let v = exponential::<f64>(5, None, 1.0, true, &Device::cpu()).unwrap().to_vec().unwrap();
/// assert!((v[0] - (-2.0f64).exp()).abs() < 1e-15 && v[2] == 1.0);
/// assert!(exponential::<f64>(5, Some(1.0), 1.0, true, &Device::cpu()).is_err());
/// ```
pub fn exponential<T: RealFloat>(
    m: usize,
    center: Option<f64>,
    tau: f64,
    sym: bool,
    dev: &Device,
) -> Result<Array<T>> {
    on_device(&Window::Exponential { center, tau }, m, sym, dev)
}

/// The generalised cosine window of `m` points, `Σ_k (-1)^k a[k] cos(2πkn/(M-1))`, SciPy's
/// `scipy.signal.windows.general_cosine(M, a, sym)`.
///
/// Numerics: on the host in f64, rounded to `T` (as [`get_window`]).
///
/// # Errors
/// The copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::{general_cosine, hann}, Device};
/// let d = Device::cpu();
/// let g = general_cosine::<f64>(8, &[0.5, 0.5], true, &d).unwrap().to_vec().unwrap();
/// let h = hann::<f64>(8, true, &d).unwrap().to_vec().unwrap();
/// assert!(g.iter().zip(&h).all(|(a, b)| (a - b).abs() < 1e-15));
/// ```
pub fn general_cosine<T: RealFloat>(
    m: usize,
    a: &[f64],
    sym: bool,
    dev: &Device,
) -> Result<Array<T>> {
    on_device(&Window::GeneralCosine(a.to_vec()), m, sym, dev)
}

/// The generalised Hamming window of `m` points, `alpha - (1 - alpha) cos(2πn/(M-1))`, SciPy's
/// `scipy.signal.windows.general_hamming(M, alpha, sym)`.
///
/// Numerics: on the host in f64, rounded to `T` (as [`get_window`]).
///
/// # Errors
/// The copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::general_hamming, Device};
/// let v = general_hamming::<f64>(5, 0.54, true, &Device::cpu()).unwrap().to_vec().unwrap();
/// assert!((v[0] - 0.08).abs() < 1e-15 && (v[2] - 1.0).abs() < 1e-15);
/// ```
pub fn general_hamming<T: RealFloat>(
    m: usize,
    alpha: f64,
    sym: bool,
    dev: &Device,
) -> Result<Array<T>> {
    on_device(&Window::GeneralHamming(alpha), m, sym, dev)
}

/// The generalised Gaussian window of `m` points, `exp(-0.5 |n/sig|^(2p))` about the middle,
/// SciPy's `scipy.signal.windows.general_gaussian(M, p, sig, sym)`.
///
/// Numerics: on the host in f64, rounded to `T` (as [`get_window`]).
///
/// # Errors
/// The copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::{gaussian, general_gaussian}, Device};
/// let d = Device::cpu();
/// let a = general_gaussian::<f64>(9, 1.0, 2.0, true, &d).unwrap().to_vec().unwrap();
/// let b = gaussian::<f64>(9, 2.0, true, &d).unwrap().to_vec().unwrap();
/// assert!(a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-15)); // p = 1 is the Gaussian
/// ```
pub fn general_gaussian<T: RealFloat>(
    m: usize,
    p: f64,
    sig: f64,
    sym: bool,
    dev: &Device,
) -> Result<Array<T>> {
    on_device(&Window::GeneralGaussian { p, sig }, m, sym, dev)
}

/// The Dolph-Chebyshev window of `m` points with side lobes `at` dB below the main lobe, SciPy's
/// `scipy.signal.windows.chebwin(M, at, sym)`.
///
/// Numerics: SciPy's construction (the Chebyshev polynomial's samples, an inverse DFT, scaled to
/// a maximum of 1) on the host in f64, rounded to `T` (as [`get_window`]).
///
/// # Errors
/// The copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::chebwin, Device};
/// let v = chebwin::<f64>(11, 100.0, true, &Device::cpu()).unwrap().to_vec().unwrap();
/// assert!((v[5] - 1.0).abs() < 1e-12 && (v[0] - v[10]).abs() < 1e-12);
/// ```
pub fn chebwin<T: RealFloat>(m: usize, at: f64, sym: bool, dev: &Device) -> Result<Array<T>> {
    on_device(&Window::Chebwin(at), m, sym, dev)
}

/// The Taylor window of `m` points with `nbar` nearly constant side lobes `sll` dB down, scaled
/// so that its centre is 1 when `norm`, SciPy's
/// `scipy.signal.windows.taylor(M, nbar, sll, norm, sym)` (defaults 4, 30, true, true).
///
/// Numerics: on the host in f64, rounded to `T` (as [`get_window`]).
///
/// # Errors
/// `InvalidArgument` for `nbar = 0`; the copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::taylor, Device};
/// let v = taylor::<f64>(9, 4, 30.0, true, true, &Device::cpu()).unwrap().to_vec().unwrap();
/// assert!((v[4] - 1.0).abs() < 1e-12);
/// ```
pub fn taylor<T: RealFloat>(
    m: usize,
    nbar: usize,
    sll: f64,
    norm: bool,
    sym: bool,
    dev: &Device,
) -> Result<Array<T>> {
    on_device(&Window::Taylor { nbar, sll, norm }, m, sym, dev)
}

/// The Kaiser-Bessel derived window of `m` points (even `m`) with shape `beta`, SciPy's
/// `scipy.signal.windows.kaiser_bessel_derived(M, beta, sym=True)` (symmetric only, as SciPy).
///
/// Numerics: on the host in f64, rounded to `T` (as [`get_window`]).
///
/// # Errors
/// `InvalidArgument` for `sym = false` or an odd `m`, as SciPy; the copy to `dev`'s errors.
///
/// ```
/// use cusci_signal::{windows::kaiser_bessel_derived, Device};
/// let v = kaiser_bessel_derived::<f64>(8, 4.0, true, &Device::cpu()).unwrap().to_vec().unwrap();
/// // the Princen-Bradley condition: w[n]² + w[n + M/2]² = 1
/// assert!((v[1] * v[1] + v[5] * v[5] - 1.0).abs() < 1e-12);
/// assert!(kaiser_bessel_derived::<f64>(7, 4.0, true, &Device::cpu()).is_err());
/// ```
pub fn kaiser_bessel_derived<T: RealFloat>(
    m: usize,
    beta: f64,
    sym: bool,
    dev: &Device,
) -> Result<Array<T>> {
    on_device(&Window::KaiserBesselDerived(beta), m, sym, dev)
}
