//! Random numbers that are the same on the CPU and on the GPU.
//!
//! [`Generator`] draws from the counter-based Philox4x32-10 generator, implemented once in Rust
//! ([`philox`]) and once in CUDA (`philox.cuh`). The same seed, stream and position give **the same
//! raw 32-bit words on both devices**, and every float derived from them (uniform, normal,
//! exponential, lognormal) is computed with correctly rounded IEEE operations only, in the same
//! order on both devices, so the floats are bit-identical too (the 2-ulp bound the issue allows is
//! not even used). Every output element is a pure function of (seed, stream, position), so a draw
//! can be split across threads, blocks or devices without changing a bit.
//!
//! Stream layout: the generator's position counts 32-bit words. f32 draws take one word per value,
//! f64 draws two; after each call the position advances past the words used, rounded up to a
//! multiple of 4 (one Philox block), so consecutive calls never share a block. See [`philox`] for
//! the counter and key layout and for which words each distribution uses.

pub mod montecarlo;
pub mod philox;
#[rustfmt::skip]
mod ziggurat_tables;

use crate::array::Array;
use crate::cuda::kernel::LaunchConfig;
use crate::cuda::launch::{KernelModule, Launch, Spec};
use crate::device::{CudaDevice, Device};
use crate::dtype::{DType, RealFloat};
use crate::elementwise::grid_for;
use crate::error::{Error, Result};
use rayon::prelude::*;

/// The CUDA twin of [`philox`], included by the kernels that draw random numbers.
pub const PHILOX_CUH: &str = concat!(include_str!("ziggurat.cuh"), include_str!("philox.cuh"));

/// Elements per CPU task (a multiple of 4, so tasks start on Philox block boundaries).
const CPU_CHUNK: usize = 1 << 14;

/// A Philox4x32-10 stream: a seed, a stream number (independent sub-sequences), and a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Generator {
    seed: u64,
    stream: u64,
    position: u64,
}

fn check_params(op: &str, ok: bool, detail: String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::arg(op, detail))
    }
}

impl Generator {
    /// Stream 0 of `seed`, at position 0.
    pub fn new(seed: u64) -> Generator {
        Generator::with_stream(seed, 0)
    }

    /// Stream `stream` of `seed`, at position 0. Different streams are independent sequences.
    pub fn with_stream(seed: u64, stream: u64) -> Generator {
        Generator {
            seed,
            stream,
            position: 0,
        }
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// The stream number.
    pub fn stream(&self) -> u64 {
        self.stream
    }
    /// The position (in 32-bit words) of the next draw.
    pub fn position(&self) -> u64 {
        self.position
    }
    /// Moves to `position` (in 32-bit words).
    pub fn set_position(&mut self, position: u64) {
        self.position = position;
    }

    /// Takes `words` words: returns the start position and advances past them (block aligned).
    fn take(&mut self, words: u64) -> u64 {
        let start = self.position;
        self.position = start.wrapping_add(words).wrapping_add(3) & !3u64;
        start
    }

    fn words_per<T: RealFloat>() -> u64 {
        if T::DTYPE == DType::F32 {
            1
        } else {
            2
        }
    }

    /// Takes the words of `n` values of `per` words each (1 or 2) and returns the fill that draws
    /// them: from value `start / per` (two-word value `i` uses half of Philox block `i / 2`).
    fn take_values(&mut self, n: usize, per: u64) -> Words {
        let start = self.take(n as u64 * per) / per;
        Words {
            n,
            seed: self.seed,
            stream: self.stream,
            start,
        }
    }

    /// Raw 32-bit Philox words, each stored bit for bit in an `i32` (use `as u32` to read them
    /// as unsigned).
    pub fn random_raw(&mut self, shape: &[usize], dev: &Device) -> Result<Array<i32>> {
        let mut out = Array::<i32>::alloc("random_raw", shape, dev)?;
        let n = out.size();
        let w = self.take_values(n, 1);
        match dev {
            Device::Cpu => cpu_fill(&mut out, |s, o: &mut [i32]| {
                let mut raw = vec![0u32; o.len()];
                philox::fill_raw(w.seed, w.stream, w.start + s as u64, &mut raw);
                o.iter_mut().zip(raw).for_each(|(o, r)| *o = r as i32);
            }),
            Device::Cuda(d) => launch(d, "cusci_random_raw_u32", &mut out, w, |l| l),
        }?;
        Ok(out)
    }

    /// Uniform values in the open interval (0, 1) (NumPy's `random`, but never exactly 0).
    pub fn random<T: RealFloat>(&mut self, shape: &[usize], dev: &Device) -> Result<Array<T>> {
        self.uniform(0.0, 1.0, shape, dev)
    }

    /// Uniform values in [low, high) computed as `low + (high − low)·u`, u in (0, 1).
    ///
    /// # Errors
    /// `InvalidArgument` for non-finite bounds or `high < low`.
    pub fn uniform<T: RealFloat>(
        &mut self,
        low: f64,
        high: f64,
        shape: &[usize],
        dev: &Device,
    ) -> Result<Array<T>> {
        check_params(
            "uniform",
            low.is_finite() && high.is_finite() && high >= low,
            format!("low={low}, high={high}: need finite low <= high"),
        )?;
        let mut out = Array::<T>::alloc("uniform", shape, dev)?;
        let w = self.take_values(out.size(), Self::words_per::<T>());
        let (seed, stream) = (self.seed, self.stream);
        let (lo, sc) = (T::from_f64(low), T::from_f64(high - low));
        match dev {
            Device::Cpu => cpu_fill(&mut out, |s, o: &mut [T]| {
                let first = w.start + s as u64;
                if T::DTYPE == DType::F32 {
                    let mut v = vec![0f32; o.len()];
                    philox::fill_uniform_f32(seed, stream, first, &mut v);
                    o.iter_mut()
                        .zip(v)
                        .for_each(|(o, v)| *o = lo + sc * T::from_f64(v as f64));
                } else {
                    let mut v = vec![0f64; o.len()];
                    philox::fill_uniform_f64(seed, stream, first, &mut v);
                    o.iter_mut()
                        .zip(v)
                        .for_each(|(o, v)| *o = lo + sc * T::from_f64(v));
                }
            }),
            Device::Cuda(d) => {
                let name = if T::DTYPE == DType::F32 {
                    "cusci_random_uniform_f32"
                } else {
                    "cusci_random_uniform_f64"
                };
                launch(d, name, &mut out, w, |l| l)?;
                if low != 0.0 || high != 1.0 {
                    out = out.mul_scalar(sc)?.add_scalar(lo)?;
                }
                Ok(())
            }
        }?;
        Ok(out)
    }

    /// Standard normal values (a ziggurat on Philox words, 2048 layers for f32 and 256 for f64;
    /// identical bits on both devices).
    pub fn standard_normal<T: RealFloat>(
        &mut self,
        shape: &[usize],
        dev: &Device,
    ) -> Result<Array<T>> {
        self.normal(0.0, 1.0, shape, dev)
    }

    /// Normal values `mean + std·z` (exactly z when mean = 0 and std = 1).
    ///
    /// # Errors
    /// `InvalidArgument` for a non-finite mean or a negative or non-finite std.
    pub fn normal<T: RealFloat>(
        &mut self,
        mean: f64,
        std: f64,
        shape: &[usize],
        dev: &Device,
    ) -> Result<Array<T>> {
        let mut out = Array::<T>::alloc("normal", shape, dev)?;
        self.fill_normal(mean, std, &mut out)?;
        Ok(out)
    }

    /// Fills `out` with standard normal values in place (no allocation when `out` owns
    /// contiguous storage).
    pub fn fill_standard_normal<T: RealFloat>(&mut self, out: &mut Array<T>) -> Result<()> {
        self.fill_normal(0.0, 1.0, out)
    }

    /// Fills `out` with `mean + std·z` in place.
    pub fn fill_normal<T: RealFloat>(
        &mut self,
        mean: f64,
        std: f64,
        out: &mut Array<T>,
    ) -> Result<()> {
        check_params(
            "normal",
            mean.is_finite() && std.is_finite() && std >= 0.0,
            format!("mean={mean}, std={std}: need finite mean and finite std >= 0"),
        )?;
        out.make_unique()?;
        let w = self.take_values(out.size(), Self::words_per::<T>());
        let (seed, stream) = (self.seed, self.stream);
        let (m, sd) = (mean as f32, std as f32);
        let dev = out.device().clone();
        match &dev {
            Device::Cpu => cpu_fill_float(
                out,
                w,
                |i, v| philox::fill_normal_f32_scaled(seed, stream, i, m, sd, v),
                |i, v| philox::fill_normal_f64_scaled(seed, stream, i, mean, std, v),
            ),
            Device::Cuda(d) if T::DTYPE == DType::F32 => normal_f32_cuda(d, out, w, m, sd),
            Device::Cuda(d) => launch(d, "cusci_random_normal_f64", out, w, |l| {
                l.arg(mean).arg(std)
            }),
        }
    }

    /// Exponential values with the given scale (mean): `−scale·ln(u)`.
    ///
    /// # Errors
    /// `InvalidArgument` for a negative or non-finite scale.
    pub fn exponential<T: RealFloat>(
        &mut self,
        scale: f64,
        shape: &[usize],
        dev: &Device,
    ) -> Result<Array<T>> {
        check_params(
            "exponential",
            scale.is_finite() && scale >= 0.0,
            format!("scale={scale}: need finite scale >= 0"),
        )?;
        let mut out = Array::<T>::alloc("exponential", shape, dev)?;
        let w = self.take_values(out.size(), Self::words_per::<T>());
        let (seed, stream) = (self.seed, self.stream);
        match dev {
            Device::Cpu => cpu_fill_float(
                &mut out,
                w,
                |i, v| philox::fill_exponential_f32(seed, stream, i, scale as f32, v),
                |i, v| philox::fill_exponential_f64(seed, stream, i, scale, v),
            ),
            Device::Cuda(d) if T::DTYPE == DType::F32 => {
                launch(d, "cusci_random_exponential_f32", &mut out, w, |l| {
                    l.arg(scale as f32)
                })
            }
            Device::Cuda(d) => launch(d, "cusci_random_exponential_f64", &mut out, w, |l| {
                l.arg(scale)
            }),
        }?;
        Ok(out)
    }

    /// Lognormal values `exp(mean + sigma·z)`.
    ///
    /// # Errors
    /// `InvalidArgument` for a non-finite mean or a negative or non-finite sigma.
    pub fn lognormal<T: RealFloat>(
        &mut self,
        mean: f64,
        sigma: f64,
        shape: &[usize],
        dev: &Device,
    ) -> Result<Array<T>> {
        check_params(
            "lognormal",
            mean.is_finite() && sigma.is_finite() && sigma >= 0.0,
            format!("mean={mean}, sigma={sigma}: need finite mean and finite sigma >= 0"),
        )?;
        let mut out = Array::<T>::alloc("lognormal", shape, dev)?;
        let w = self.take_values(out.size(), Self::words_per::<T>());
        let (seed, stream) = (self.seed, self.stream);
        let (m, s) = (mean as f32, sigma as f32);
        match dev {
            Device::Cpu => cpu_fill_float(
                &mut out,
                w,
                |i, v| philox::fill_lognormal_f32(seed, stream, i, m, s, v),
                |i, v| philox::fill_lognormal_f64(seed, stream, i, mean, sigma, v),
            ),
            Device::Cuda(d) if T::DTYPE == DType::F32 => {
                launch(d, "cusci_random_lognormal_f32", &mut out, w, |l| {
                    l.arg(m).arg(s)
                })
            }
            Device::Cuda(d) => launch(d, "cusci_random_lognormal_f64", &mut out, w, |l| {
                l.arg(mean).arg(sigma)
            }),
        }?;
        Ok(out)
    }

    /// Integers uniform in `[low, high)` (NumPy's `integers`), as i64.
    ///
    /// # Errors
    /// `InvalidArgument` when `high <= low`.
    pub fn integers(
        &mut self,
        low: i64,
        high: i64,
        shape: &[usize],
        dev: &Device,
    ) -> Result<Array<i64>> {
        check_params(
            "integers",
            high > low,
            format!("low={low}, high={high}: need low < high"),
        )?;
        let mut out = Array::<i64>::alloc("integers", shape, dev)?;
        let n = out.size();
        // ranges up to 2^32 use one word per value, wider ranges two (element i: block i/2)
        let per = if philox::integers_use_one_word(low, high) {
            1
        } else {
            2
        };
        let w = self.take_values(n, per);
        match dev {
            Device::Cpu => cpu_fill(&mut out, |s, o: &mut [i64]| {
                philox::fill_integers_i64(w.seed, w.stream, w.start + s as u64, low, high, o);
            }),
            Device::Cuda(d) => launch(d, "cusci_random_integers_i64", &mut out, w, |l| {
                l.arg(low).arg(high)
            }),
        }?;
        Ok(out)
    }

    /// Poisson counts with mean `lam` (multiplication method below 10, PTRS above), as i64.
    ///
    /// # Errors
    /// `InvalidArgument` for a negative or non-finite `lam`, or `lam > 1e10`.
    pub fn poisson(&mut self, lam: f64, shape: &[usize], dev: &Device) -> Result<Array<i64>> {
        check_params(
            "poisson",
            lam.is_finite() && (0.0..=1e10).contains(&lam),
            format!("lam={lam}: need 0 <= lam <= 1e10"),
        )?;
        let mut out = Array::<i64>::alloc("poisson", shape, dev)?;
        let n = out.size();
        let w = self.take_values(n, 1);
        match dev {
            Device::Cpu => cpu_fill(&mut out, |s, o: &mut [i64]| {
                philox::fill_poisson_i64(w.seed, w.stream, w.start + s as u64, lam, o);
            }),
            Device::Cuda(d) => launch(d, "cusci_random_poisson_i64", &mut out, w, |l| l.arg(lam)),
        }?;
        Ok(out)
    }
}

/// Fills a fresh contiguous CPU array in parallel chunks: `f(first_index, chunk)`.
fn cpu_fill<T: crate::dtype::Element>(
    out: &mut Array<T>,
    f: impl Fn(usize, &mut [T]) + Sync,
) -> Result<()> {
    let data = out
        .cpu_data_mut()
        .ok_or_else(|| Error::arg("random", "expected a CPU array"))?;
    data.par_chunks_mut(CPU_CHUNK)
        .enumerate()
        .for_each(|(c, o)| f(c * CPU_CHUNK, o));
    Ok(())
}

/// Fills a CPU float array with the values of `w` ([`Generator::take_values`]): philox's f32 fill
/// `f32s(first value, values)` or its f64 fill `f64s`, by precision, each value stored exactly.
fn cpu_fill_float<T: RealFloat>(
    out: &mut Array<T>,
    w: Words,
    f32s: impl Fn(u64, &mut [f32]) + Sync,
    f64s: impl Fn(u64, &mut [f64]) + Sync,
) -> Result<()> {
    cpu_fill(out, |s, o: &mut [T]| {
        let first = w.start + s as u64;
        if T::DTYPE == DType::F32 {
            let mut v = vec![0f32; o.len()];
            f32s(first, &mut v);
            o.iter_mut()
                .zip(v)
                .for_each(|(o, z)| *o = T::from_f64(z as f64));
        } else {
            let mut v = vec![0f64; o.len()];
            f64s(first, &mut v);
            o.iter_mut().zip(v).for_each(|(o, z)| *o = T::from_f64(z));
        }
    })
}

/// The random fill kernels (philox.cuh).
pub(crate) static RANDOM: KernelModule = KernelModule {
    name: "cusci_random",
    source: |_| Ok(PHILOX_CUH.to_string()),
    options: &[],
    samples: || vec![Spec::default()],
};

fn module(d: &CudaDevice, name: &str) -> Result<crate::cuda::kernel::Function> {
    RANDOM.function(d, &Spec::default(), name)
}

/// Where a fill's values come from: `n` values from Philox block `start` of `(seed, stream)`.
#[derive(Clone, Copy)]
struct Words {
    n: usize,
    seed: u64,
    stream: u64,
    start: u64,
}

/// The f32 normal fill (philox.cuh `cusci_normal_f32_fill`): one kernel whose blocks finish their
/// own ziggurat failures. A block gets at most 2^16 Philox blocks (its failure queue's bound); 32
/// blocks per SM otherwise (the H200 timing: 0.42 ms for 2^28 against 0.44 with 16 and 0.46 with 8).
/// The standard normal and the 32-bit counter (every block of the launch with the same counter
/// word 1) have their own instantiations.
fn normal_f32_cuda<T: crate::dtype::Element>(
    d: &CudaDevice,
    out: &mut Array<T>,
    Words {
        n,
        seed,
        stream,
        start,
    }: Words,
    mean: f32,
    std: f32,
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let first = start >> 2;
    let nb = ((start + n as u64 - 1) >> 2) - first + 1;
    let wide = (first >> 32) != ((first + nb - 1) >> 32);
    let name = match (mean == 0.0 && std == 1.0, wide) {
        (true, false) => "cusci_random_std_normal_f32",
        (true, true) => "cusci_random_std_normal_f32_wide",
        (false, false) => "cusci_random_normal_f32",
        (false, true) => "cusci_random_normal_f32_wide",
    };
    let f = module(d, name)?;
    let sms = d.props().multiprocessors.max(1) as u64;
    let grid = nb.div_ceil(256).min(32 * sms).max(nb.div_ceil(1 << 16));
    d.launch(
        &f,
        LaunchConfig::linear(grid.min(u32::MAX as u64) as u32, 256),
    )
    .arg(out.dev_ptr_mut()?)
    .arg(n as u64)
    .arg(seed)
    .arg(stream)
    .arg(start)
    .arg(mean)
    .arg(std)
    .run()
}

/// Launches one of philox.cuh's fill kernels: (out, n, seed, stream, start, extra...).
fn launch<T: crate::dtype::Element>(
    d: &CudaDevice,
    name: &str,
    out: &mut Array<T>,
    w: Words,
    extra: impl for<'a> FnOnce(Launch<'a>) -> Launch<'a>,
) -> Result<()> {
    if w.n == 0 {
        return Ok(());
    }
    let f = module(d, name)?;
    // one full wave of resident blocks (grid-stride loops): a grid of 8 blocks per SM would leave
    // a partial second wave for kernels whose registers allow fewer
    let resident =
        f.occupancy(256, 0).unwrap_or(8).max(1) * d.props().multiprocessors.max(1) as u32;
    let grid = grid_for(d, w.n.div_ceil(4)).min(resident);
    let l = d
        .launch(&f, LaunchConfig::linear(grid, 256))
        .arg(out.dev_ptr_mut()?)
        .arg(w.n as u64)
        .arg(w.seed)
        .arg(w.stream)
        .arg(w.start);
    extra(l).run()
}
