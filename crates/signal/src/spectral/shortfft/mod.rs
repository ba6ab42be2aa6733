//! SciPy's `ShortTimeFFT` class (SciPy ≥ 1.12) and `closest_STFT_dual_window`.
//!
//! [`ShortTimeFft`] holds a window, its hop, the sampling frequency, the FFT mode and length, an
//! optional dual window, the scaling and the phase shift; its methods compute the STFT
//! ([`ShortTimeFft::stft`], [`ShortTimeFft::stft_detrend`]), spectrograms and the inverse STFT
//! ([`ShortTimeFft::istft`]) of arrays on either device, batched over every other axis, and
//! SciPy's bookkeeping properties (`p_min`, `p_max(n)`, `k_min`, `k_max(n)`, `f`, `t(n)`, ...).
//!
//! One pipeline on both devices: (1) `frames`: a `(rows, slices, mfft)` matrix of padded,
//! detrended slices multiplied by the conjugate window, zero-padded and rolled for the phase
//! shift (one block per slice on the GPU, `shortfft.cu`); (2) one batched `cusci_fft` transform
//! (`rfft` for the one-sided modes, `fft` otherwise); (3) `post`: `fftshift` (centered), the
//! doubling of `onesided2X` and the transposition to `(…, freq, slice)`. The inverse runs
//! `pre` (transposition, `ifftshift`, un-doubling), one batched `irfft`/`ifft` and an
//! overlap-add kernel (one thread per output sample, no atomics). Internal arithmetic is f64;
//! f32 inputs give c32 outputs.

mod dual;
mod options;
mod plan;
mod transform;

pub use dual::{closest_stft_dual_window, closest_stft_dual_window_complex};
pub use options::{
    FftMode, IstftArgs, ShortTimeFftOptions, StftArgs, StftPadding, StftScaling, StftSignal,
};
pub use plan::ShortTimeFft;
pub(crate) use transform::SHORTFFT;
