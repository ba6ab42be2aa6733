//! Small deterministic data sets for the example pipelines of `examples/pipelines/`
//! (`cusci generate audio|microscopy DIR`): the same files for the same arguments on every
//! machine, so that nothing large is committed.

use cusci::pipeline::io::{write_tiff_u16, write_wav_i16};
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

/// Writes `files` two-channel 16-bit WAV recordings of 1 s at 8 kHz into `dir`: a machine's
/// vibration, a 1 kHz resonance struck by impacts every 1/8 s (a bearing fault, with a
/// per-file phase), a 120 Hz hum and noise. The band-pass + envelope chain of
/// `examples/pipelines/audio.toml` finds the 8 impacts per channel.
///
/// # Errors
/// The file system's or the encoder's message.
pub fn generate_audio(dir: &Path, files: usize, seed: u64) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let fs = AUDIO_FS as f64;
    let n = AUDIO_FS as usize;
    let mut out = Vec::new();
    for k in 0..files {
        let mut rng = Rng(seed.wrapping_mul(1000).wrapping_add(k as u64));
        let phase = 0.02 + 0.06 * rng.uniform();
        let mut frames = Vec::with_capacity(2 * n);
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
            for (c, gain) in [(0, 0.6), (1, 0.35)] {
                let v = gain * ring + hum * (1.0 - 0.3 * c as f64) + 0.02 * rng.normal();
                frames.push((v.clamp(-1.0, 1.0) * 32000.0).round() as i16);
            }
        }
        let p = dir.join(format!("rec{k:03}.wav"));
        write_wav_i16(&p, AUDIO_FS, 2, &frames)?;
        out.push(p);
    }
    Ok(out)
}

/// The side of the microscopy images.
pub const IMAGE_SIDE: usize = 96;

/// Writes `files` 96 × 96 16-bit grey TIFF images into `dir`: 3 to 6 round cells (Gaussian
/// spots of radius 3–5 px, peak 2000–3000 counts above a background of 1000) on a 3 × 3 grid
/// with jitter (so they never touch), with noise. Returns the files and the number of cells
/// in each.
///
/// # Errors
/// The file system's or the encoder's message.
pub fn generate_microscopy(
    dir: &Path,
    files: usize,
    seed: u64,
) -> Result<Vec<(PathBuf, usize)>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let s = IMAGE_SIDE;
    let mut out = Vec::new();
    for k in 0..files {
        let mut rng = Rng(seed.wrapping_mul(7919).wrapping_add(k as u64));
        let cells = 3 + (rng.next() % 4) as usize;
        // which grid cells hold a cell: the first `cells` of a shuffled 0..9
        let mut slots: Vec<usize> = (0..9).collect();
        for i in (1..9).rev() {
            slots.swap(i, (rng.next() % (i as u64 + 1)) as usize);
        }
        let spots: Vec<(f64, f64, f64, f64)> = slots[..cells]
            .iter()
            .map(|&c| {
                let (gy, gx) = ((c / 3) as f64, (c % 3) as f64);
                let y = gy * 32.0 + 16.0 + (rng.uniform() - 0.5) * 8.0;
                let x = gx * 32.0 + 16.0 + (rng.uniform() - 0.5) * 8.0;
                let r = 3.0 + 2.0 * rng.uniform();
                let a = 2000.0 + 1000.0 * rng.uniform();
                (y, x, r, a)
            })
            .collect();
        let mut img = vec![0u16; s * s];
        for y in 0..s {
            for x in 0..s {
                let mut v = 1000.0 + 40.0 * rng.normal();
                for &(cy, cx, r, a) in &spots {
                    let d2 = (y as f64 - cy).powi(2) + (x as f64 - cx).powi(2);
                    v += a * (-d2 / (2.0 * r * r)).exp();
                }
                img[y * s + x] = v.round().clamp(0.0, 65535.0) as u16;
            }
        }
        let p = dir.join(format!("cells{k:03}.tif"));
        write_tiff_u16(&p, s as u32, s as u32, &img)?;
        out.push((p, cells));
    }
    Ok(out)
}
