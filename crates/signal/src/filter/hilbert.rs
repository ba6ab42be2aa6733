//! The analytic signal [`hilbert`] (SciPy's `scipy.signal.hilbert`), through `cusci_fft` on the
//! array's device.

use crate::procutil::{each_dtype, real_of, split_axis, REAL_DTYPES};
use cusci_core::array::layout::norm_axis;
use cusci_core::error::make;
use cusci_core::{Array, BackendMut, Element, KernelModule, LaunchConfig, Result, Spec};
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
    let prod = one_sided(xf, axis, n)?;
    cusci_fft::ifft(&prod, &fo)
}

/// Hilbert's spectral multiplier `h[k]` (1 at `k = 0` and, for even `n`, at `n/2`; 2 for
/// `0 < k < n/2`; 0 above): a real factor applied to both parts.
fn multiplier(k: usize, n: usize) -> f64 {
    if k == 0 || 2 * k == n {
        1.0
    } else if 2 * k < n {
        2.0
    } else {
        0.0
    }
}

/// The same multiplier on the GPU, in place on the `(outer, n, inner)` spectrum (reals `R`).
const HILBERT_SRC: &str = r#"
extern "C" __global__ void hilbert_h(R* z, long long total, long long n, long long inner) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const long long k = (i / inner) % n;
    const R h = (k == 0 || 2 * k == n) ? (R)1 : (2 * k < n ? (R)2 : (R)0);
    z[2 * i] *= h;
    z[2 * i + 1] *= h;
  }
}
"#;

/// The multiplier's kernel for the real type `R` of the spectrum (`float`/`double`).
pub(crate) static HILBERT: KernelModule = KernelModule {
    name: "signal_hilbert",
    source: |s| {
        Ok(format!(
            "typedef {} R;\n{HILBERT_SRC}",
            s.dtype(0)?.cuda_name()
        ))
    },
    options: &[],
    samples: || each_dtype(&REAL_DTYPES),
};

/// `xf` (the spectrum along `axis`, `n` points) times Hilbert's multiplier, in place: a kernel on
/// the GPU (no host-built multiplier array), the same real scaling on the CPU.
fn one_sided<C: Element>(mut xf: Array<C>, axis: usize, n: usize) -> Result<Array<C>> {
    let (_, _, inner) = split_axis(xf.shape(), axis);
    let size = xf.size();
    if size == 0 {
        return Ok(xf);
    }
    match xf.backend_mut()? {
        BackendMut::Host(v) => {
            let inner = inner.max(1);
            v.iter_mut().enumerate().for_each(|(i, z)| {
                let h = multiplier((i / inner) % n, n);
                let c = z.to_c64();
                *z = C::from_c64(cusci_core::c64::new(c.re * h, c.im * h));
            });
        }
        BackendMut::Cuda(d, z) => {
            let f = HILBERT.function(d, &Spec::of(&[real_of(C::DTYPE)]), "hilbert_h")?;
            d.launch(&f, LaunchConfig::cover(size, 256)?)
                .arg(z)
                .arg(size as i64)
                .arg(n as i64)
                .arg(inner.max(1) as i64)
                .run()?;
        }
    }
    Ok(xf)
}
