//! The two workloads of the scale-out examples and benchmarks, written on the public API: what a
//! user's own pipeline looks like. Both are bit-identical for any number of workers and ranks (on
//! one kind of device).

use crate::{Chunk, Cluster, Grid, Worker};
use cusci_core::error::make;
use cusci_core::random::montecarlo::{EuropeanCall, McResult};
use cusci_core::Array;
use cusci_core::Result;
use cusci_signal as sig;

/// A Monte Carlo price of a European call over a global grid of paths.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OptionJob {
    /// The option.
    pub option: EuropeanCall,
    /// Number of paths.
    pub paths: u64,
    /// Paths per chunk (the unit of work; results depend on it, never on the cluster).
    pub chunk: u64,
    /// Seed of the Philox stream: path `p` uses normal number `p` of stream 0.
    pub seed: u64,
}

impl Default for OptionJob {
    fn default() -> Self {
        OptionJob {
            option: EuropeanCall {
                s0: 100.0,
                strike: 105.0,
                rate: 0.05,
                sigma: 0.2,
                maturity: 1.0,
            },
            paths: 1 << 24,
            chunk: 1 << 22,
            seed: 7,
        }
    }
}

/// (Σ payoff, Σ payoff²) of one chunk of paths on the worker's device.
fn option_chunk(w: &Worker<'_>, c: &Chunk, job: &OptionJob) -> Result<(f64, f64)> {
    let o = &job.option;
    let drift = ((o.rate - 0.5 * o.sigma * o.sigma) * o.maturity) as f32;
    let vol = (o.sigma * o.maturity.sqrt()) as f32;
    let z = c
        .generator(job.seed, 0, 1)
        .standard_normal::<f32>(&[c.len as usize], w.device())?;
    let st = z
        .mul_scalar(vol)?
        .add_scalar(drift)?
        .exp()?
        .mul_scalar(o.s0 as f32)?;
    let pay = st
        .sub_scalar(o.strike as f32)?
        .maximum_scalar(0.0)?
        .astype::<f64>()?;
    Ok((pay.sum()?, pay.mul(&pay)?.sum()?))
}

/// Prices `job.option` with `job.paths` paths on `cluster` (every rank gets the result).
///
/// # Errors
/// `InvalidArgument` for zero paths or chunk, or option parameters that are not finite and
/// positive (volatility may be 0); any worker's failure.
///
/// ```
/// use cusci_dist::{Cluster, workloads::{option_price, OptionJob}};
/// let c = Cluster::logical(&cusci_core::Device::cpu(), 2).unwrap();
/// let r = option_price(&c, &OptionJob { paths: 1 << 12, chunk: 1 << 10, ..Default::default() }).unwrap();
/// assert!((r.price - 8.0214).abs() < 5.0 * r.std_error);
/// ```
pub fn option_price(cluster: &Cluster, job: &OptionJob) -> Result<McResult> {
    let o = &job.option;
    let ok = [o.s0, o.strike, o.rate, o.sigma, o.maturity]
        .iter()
        .all(|v| v.is_finite())
        && o.s0 > 0.0
        && o.strike > 0.0
        && o.maturity > 0.0
        && o.sigma >= 0.0;
    if !ok || job.paths == 0 {
        return Err(make::arg(
            "option_price",
            format!("{job:?}: need finite positive S0, K, T, sigma >= 0 and paths > 0"),
        ));
    }
    let grid = Grid::new(job.paths, job.chunk)?;
    let (s, s2) = cluster.map_reduce(
        &grid,
        (0.0f64, 0.0f64),
        |w, c| option_chunk(w, c, job),
        |a, b| (a.0 + b.0, a.1 + b.1),
    )?;
    let n = job.paths as f64;
    let mean = s / n;
    let var = if job.paths > 1 {
        ((s2 / n - mean * mean) * n / (n - 1.0)).max(0.0)
    } else {
        0.0
    };
    let disc = (-o.rate * o.maturity).exp();
    Ok(McResult {
        price: disc * mean,
        std_error: disc * (var / n).sqrt(),
        paths: job.paths,
    })
}

/// A batch of noisy signals, band-pass filtered (`sosfilt`, Butterworth order 4) and turned into
/// their mean STFT power per frequency.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpectralJob {
    /// Number of signals.
    pub signals: u64,
    /// Samples per signal.
    pub samples: usize,
    /// Signals per chunk.
    pub chunk: u64,
    /// Seed: sample `j` of signal `i` uses normal number `i·samples + j` of stream 0.
    pub seed: u64,
    /// STFT segment length (`noverlap = nperseg / 2`, Hann window).
    pub nperseg: usize,
    /// Sampling frequency in Hz.
    pub fs: f64,
    /// Pass band in Hz.
    pub band: [f64; 2],
}

impl Default for SpectralJob {
    fn default() -> Self {
        SpectralJob {
            signals: 1024,
            samples: 4096,
            chunk: 256,
            seed: 11,
            nperseg: 256,
            fs: 1000.0,
            band: [50.0, 150.0],
        }
    }
}

impl SpectralJob {
    /// Frequencies per output row: `nperseg / 2 + 1`.
    pub fn bins(&self) -> usize {
        self.nperseg / 2 + 1
    }
}

fn spectral_chunk(w: &Worker<'_>, c: &Chunk, job: &SpectralJob, sos: &[f32]) -> Result<Vec<f32>> {
    let dev = w.device();
    let n = job.samples;
    let sos = Array::from_slice(sos, &[sos.len() / 6, 6], dev)?;
    // two tones (one in the band, one outside) plus unit noise keyed by global signal
    let tone: Vec<f32> = (0..n)
        .map(|i| {
            let t = i as f64 / job.fs;
            ((2.0 * std::f64::consts::PI * 100.0 * t).sin()
                + (2.0 * std::f64::consts::PI * 300.0 * t).sin()) as f32
        })
        .collect();
    let tone = Array::from_vec(tone, &[1, n], dev)?;
    let x = c
        .generator(job.seed, 0, n as u64)
        .standard_normal::<f32>(&[c.len as usize, n], dev)?
        .add(&tone)?;
    let y = sig::sosfilt(&sos, &x, &sig::FilterOptions::default())?.y;
    let (_, _, z) = sig::stft(
        &y,
        &sig::StftOptions {
            fs: job.fs,
            nperseg: Some(job.nperseg),
            ..Default::default()
        },
    )?;
    z.abs2()?.mean_axes(&[-1])?.to_vec()
}

/// Runs the pipeline on `cluster`: returns `signals × bins()` mean powers, row `i` for signal
/// `i`, on every rank.
///
/// # Errors
/// `InvalidArgument` for zero samples or chunk, `nperseg` longer than the signals, a band outside
/// `(0, fs/2)`; any worker's failure.
pub fn spectral_pipeline(cluster: &Cluster, job: &SpectralJob) -> Result<Vec<f32>> {
    if job.samples == 0 || job.nperseg == 0 || job.nperseg > job.samples {
        return Err(make::arg(
            "spectral_pipeline",
            format!("{job:?}: need 0 < nperseg <= samples"),
        ));
    }
    let sos = sig::butter(
        4,
        &job.band,
        &sig::IirOptions {
            btype: sig::BType::Bandpass,
            output: sig::Output::Sos,
            fs: Some(job.fs),
            ..Default::default()
        },
    )?
    .into_sos()?;
    let sos: Vec<f32> = sos.iter().flatten().map(|&v| v as f32).collect();
    let grid = Grid::new(job.signals, job.chunk)?;
    cluster.batch_map(&grid, |w, c| spectral_chunk(w, c, job, &sos))
}
