//! Small deterministic data sets for the example pipelines of `examples/pipelines/`
//! (`cusci generate audio|microscopy DIR`): the same files for the same arguments on every
//! machine, so that nothing large is committed.

use cusci::pipeline::io::{write_tiff_u16, write_wav_i16};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn uniform(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Roughly normal (the sum of four uniforms, scaled to unit variance).
    fn normal(&mut self) -> f64 {
        let s: f64 = (0..4).map(|_| self.uniform()).sum();
        (s - 2.0) * 3f64.sqrt()
    }
}

/// The sample rate of the audio set.
pub const AUDIO_FS: u32 = 8000;

/// Writes `files` 16-bit WAV recordings of `channels` channels, 1 s at 8 kHz, into `dir`
/// (`recNNN.wav`, written in parallel): a machine's vibration, a 1 kHz resonance struck by
/// impacts every 1/8 s (a bearing fault, with a per-file phase), a 120 Hz hum and noise; the
/// resonance is strongest on channel 0 (gain 0.6) and weakest on the last (0.35). The band-pass
/// + envelope chain of `examples/pipelines/audio.toml` finds the 8 impacts per channel.
///
/// # Errors
/// `channels` of 0; the file system's or the encoder's message.
pub fn generate_audio(
    dir: &Path,
    files: usize,
    seed: u64,
    channels: usize,
) -> Result<Vec<PathBuf>, String> {
    if channels == 0 || channels > u16::MAX as usize {
        return Err(format!("{channels} channels: use 1 to 65535"));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let fs = AUDIO_FS as f64;
    let n = AUDIO_FS as usize;
    let span = (channels.max(2) - 1) as f64;
    (0..files)
        .into_par_iter()
        .map(|k| {
            let mut rng = Rng(seed.wrapping_mul(1000).wrapping_add(k as u64));
            let phase = 0.02 + 0.06 * rng.uniform();
            let mut frames = Vec::with_capacity(channels * n);
            for i in 0..n {
                let t = i as f64 / fs;
                // time since the last impact
                let since = (t - phase).rem_euclid(0.125);
                let started = t >= phase;
                let ring = if started {
                    (-since * 120.0).exp() * (2.0 * std::f64::consts::PI * 1000.0 * since).sin()
                } else {
                    0.0
                };
                let hum = 0.3 * (2.0 * std::f64::consts::PI * 120.0 * t).sin();
                for c in 0..channels {
                    let f = c as f64 / span;
                    let v = (0.6 - 0.25 * f) * ring + hum * (1.0 - 0.3 * f) + 0.02 * rng.normal();
                    frames.push((v.clamp(-1.0, 1.0) * 32000.0).round() as i16);
                }
            }
            let p = dir.join(format!("rec{k:03}.wav"));
            write_wav_i16(&p, AUDIO_FS, channels as u16, &frames)?;
            Ok(p)
        })
        .collect()
}

/// The side of the example's microscopy images.
pub const IMAGE_SIDE: usize = 96;

/// Writes `files` `side` × `side` 16-bit grey TIFF images into `dir` (`cellsNNN.tif`, written in
/// parallel): round cells (Gaussian spots of radius 3–5 px, peak 2000–3000 counts above a
/// background of 1000) in the slots of a grid of 32-px squares, with jitter (so they never
/// touch), and noise. Of the 9 slots of a 96-px image 3 to 6 hold a cell; of a larger grid's
/// g² slots, g²/3 to 2g²/3. Returns the files and the number of cells in each.
///
/// # Errors
/// A side under 32; the file system's or the encoder's message.
pub fn generate_microscopy(
    dir: &Path,
    files: usize,
    seed: u64,
    side: usize,
) -> Result<Vec<(PathBuf, usize)>, String> {
    if !(32..=65535).contains(&side) {
        return Err(format!("side {side}: use 32 to 65535 pixels"));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let s = side;
    let g = s / 32;
    let slots_n = g * g;
    (0..files)
        .into_par_iter()
        .map(|k| {
            let mut rng = Rng(seed.wrapping_mul(7919).wrapping_add(k as u64));
            let cells = if slots_n == 9 {
                3 + (rng.next() % 4) as usize
            } else {
                (slots_n / 3).max(1) + (rng.next() % (slots_n / 3 + 1) as u64) as usize
            };
            // which slots hold a cell: the first `cells` of a shuffled 0..g²
            let mut slots: Vec<usize> = (0..slots_n).collect();
            for i in (1..slots_n).rev() {
                slots.swap(i, (rng.next() % (i as u64 + 1)) as usize);
            }
            let spots: Vec<(f64, f64, f64, f64)> = slots[..cells]
                .iter()
                .map(|&c| {
                    let (gy, gx) = ((c / g) as f64, (c % g) as f64);
                    let y = gy * 32.0 + 16.0 + (rng.uniform() - 0.5) * 8.0;
                    let x = gx * 32.0 + 16.0 + (rng.uniform() - 0.5) * 8.0;
                    let r = 3.0 + 2.0 * rng.uniform();
                    let a = 2000.0 + 1000.0 * rng.uniform();
                    (y, x, r, a)
                })
                .collect();
            let mut v: Vec<f64> = (0..s * s).map(|_| 1000.0 + 40.0 * rng.normal()).collect();
            // each spot within 8 radii (beyond, under 1e-10 counts)
            for &(cy, cx, r, a) in &spots {
                let w = 8.0 * r;
                let (y0, y1) = ((cy - w).max(0.0) as usize, ((cy + w) as usize).min(s - 1));
                let (x0, x1) = ((cx - w).max(0.0) as usize, ((cx + w) as usize).min(s - 1));
                for y in y0..=y1 {
                    for x in x0..=x1 {
                        let d2 = (y as f64 - cy).powi(2) + (x as f64 - cx).powi(2);
                        v[y * s + x] += a * (-d2 / (2.0 * r * r)).exp();
                    }
                }
            }
            let img: Vec<u16> = v
                .iter()
                .map(|p| p.round().clamp(0.0, 65535.0) as u16)
                .collect();
            let p = dir.join(format!("cells{k:03}.tif"));
            write_tiff_u16(&p, s as u32, s as u32, &img)?;
            Ok((p, cells))
        })
        .collect()
}
