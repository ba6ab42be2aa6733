//! The `signal.*` cases of CASES.md that cusci-signal implements so far (see `cupy_ref.py` for
//! CuPy's side of each): lfilter, sosfilt, fftconvolve, hilbert, medfilt.

use crate::{host_range, randn_f32, Bench, BenchResult, Case};
use cusci::core::random::Generator;
use cusci::signal::{self as sig, FilterOptions, IirOptions};
use cusci::{Array, Device};

const F64: u64 = 8;

/// The signal cases, with bytes, flops and repeats as in cupy_ref.py.
pub fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "signal.fftconvolve_f32_2^24_k4096",
            bytes: 0,
            flops: 0,
            n_repeat: 10,
            setup: fftconvolve,
        },
        Case {
            name: "signal.lfilter_f64_256x65536_ord8",
            bytes: 2 * 256 * 65536 * F64,
            flops: 0,
            n_repeat: 5,
            setup: lfilter,
        },
        Case {
            name: "signal.sosfilt_f64_256x65536_ord8",
            bytes: 2 * 256 * 65536 * F64,
            flops: 0,
            n_repeat: 5,
            setup: sosfilt,
        },
        Case {
            name: "signal.hilbert_f32_2^24",
            bytes: 0,
            flops: 0,
            n_repeat: 10,
            setup: hilbert,
        },
        Case {
            name: "signal.medfilt_f32_2^24_k7",
            bytes: 0,
            flops: 0,
            n_repeat: 5,
            setup: medfilt,
        },
        Case {
            name: "signal.resample_poly_f32_2^24_3over2",
            bytes: 0,
            flops: 0,
            n_repeat: 10,
            setup: resample_poly,
        },
        Case {
            name: "signal.convolve2d_f32_4096_k15",
            bytes: 2 * 4096 * 4096 * 4,
            flops: 2 * 225 * 4096 * 4096,
            n_repeat: 10,
            setup: convolve2d,
        },
        Case {
            name: "signal.welch_f32_2^26_n4096",
            bytes: 0,
            flops: 0,
            n_repeat: 10,
            setup: welch,
        },
        Case {
            name: "signal.stft_f32_2^24_n1024",
            bytes: 0,
            flops: 0,
            n_repeat: 10,
            setup: stft,
        },
    ]
}

/// Largest |got - want| relative to the largest |want|.
fn close(what: &str, got: &[f64], want: &[f64], rtol: f64) -> BenchResult<()> {
    if got.len() != want.len() {
        return Err(format!("{what}: {} values, expected {}", got.len(), want.len()).into());
    }
    let scale = want.iter().fold(0f64, |m, v| m.max(v.abs())).max(1e-300);
    let err = got
        .iter()
        .zip(want)
        .fold(0f64, |m, (a, b)| m.max((a - b).abs()));
    if err.is_nan() || err > rtol * scale {
        return Err(format!("{what}: max error {err:e} (scale {scale:e}, rtol {rtol:e})").into());
    }
    Ok(())
}

// ---------------- lfilter / sosfilt: butter(8, 0.1) on x f64[256, 65536] ----------------

struct Iir {
    x: Array<f64>,
    b: Array<f64>,
    a: Array<f64>,
    sos: Array<f64>,
    use_sos: bool,
}

fn iir(dev: &Device, use_sos: bool) -> BenchResult<Box<dyn Bench>> {
    let ba = sig::butter(8, &[0.1], &IirOptions::default())?.into_ba()?;
    Ok(Box::new(Iir {
        x: Generator::new(31).standard_normal::<f64>(&[256, 65536], dev)?,
        // coefficients live on the host (CuPy's case moves them to the GPU; cusci reads them on
        // the host either way)
        b: Array::from_vec(ba.b.clone(), &[ba.b.len()], &Device::cpu())?,
        a: Array::from_vec(ba.a.clone(), &[ba.a.len()], &Device::cpu())?,
        sos: crate::small_cases::butter8_sos()?,
        use_sos,
    }))
}

fn lfilter(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    iir(dev, false)
}

fn sosfilt(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    iir(dev, true)
}

impl Iir {
    fn call(&self, x: &Array<f64>) -> cusci::Result<Array<f64>> {
        let o = FilterOptions::default();
        Ok(if self.use_sos {
            sig::sosfilt(&self.sos, x, &o)?.y
        } else {
            sig::lfilter(&self.b, &self.a, x, &o)?.y
        })
    }
}

impl Bench for Iir {
    fn check(&mut self) -> BenchResult<()> {
        let y = self.call(&self.x)?;
        // rows 0, 1 and 255 on the CPU
        for r in [0usize, 1, 255] {
            let xr = self
                .x
                .index_axis(0, r as isize)?
                .to_device(&Device::cpu())?;
            let want = self.call(&xr)?.to_vec()?;
            let got = y.index_axis(0, r as isize)?.to_vec()?;
            // butter(8, 0.1) in ba form loses digits to its conditioning: relative 1e-7
            close(
                &format!("row {r}"),
                &got,
                &want,
                if self.use_sos { 1e-10 } else { 1e-7 },
            )?;
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        self.call(&self.x).map(drop)
    }
}

// ---------------- fftconvolve: x f32[2^24], h f32[4096], full ----------------

struct FftConv {
    x: Array<f32>,
    h: Array<f32>,
}

fn fftconvolve(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(FftConv {
        x: randn_f32(1 << 24, 41, dev)?,
        h: randn_f32(4096, 42, dev)?,
    }))
}

impl Bench for FftConv {
    fn check(&mut self) -> BenchResult<()> {
        let y = sig::fftconvolve(&self.x, &self.h, sig::ConvMode::Full)?;
        // outputs [s, s + 512) need inputs [s - 4095, s + 512): the direct sum on the CPU
        let h: Vec<f64> = self.h.to_vec()?.iter().map(|&v| v as f64).collect();
        for s in [0usize, 5_000_000, (1 << 24) + 4095 - 512] {
            let lo = s.saturating_sub(4095);
            let xs: Vec<f64> = host_range(&self.x, lo, s + 512 - lo)?
                .iter()
                .map(|&v| v as f64)
                .collect();
            let want: Vec<f64> = (s..s + 512)
                .map(|k| {
                    (0..4096)
                        .filter(|&j| k >= j && k - j >= lo && k - j < lo + xs.len())
                        .map(|j| xs[k - j - lo] * h[j])
                        .sum()
                })
                .collect();
            let got: Vec<f64> = host_range(&y, s, 512)?.iter().map(|&v| v as f64).collect();
            close(&format!("outputs from {s}"), &got, &want, 1e-4)?;
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        sig::fftconvolve(&self.x, &self.h, sig::ConvMode::Full).map(drop)
    }
}

// ---------------- hilbert: f32[2^24] ----------------

struct Hilbert {
    x: Array<f32>,
}

fn hilbert(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(Hilbert {
        x: randn_f32(1 << 24, 51, dev)?,
    }))
}

impl Bench for Hilbert {
    fn check(&mut self) -> BenchResult<()> {
        let z = sig::hilbert(&self.x, &sig::HilbertOptions::default())?;
        // the real part is the signal itself
        let got: Vec<f64> = host_range(&z, 1000, 4096)?
            .iter()
            .map(|v| v.re as f64)
            .collect();
        let want: Vec<f64> = host_range(&self.x, 1000, 4096)?
            .iter()
            .map(|&v| v as f64)
            .collect();
        close("real part", &got, &want, 1e-4)
    }
    fn run(&mut self) -> cusci::Result<()> {
        sig::hilbert(&self.x, &sig::HilbertOptions::default()).map(drop)
    }
}

// ---------------- medfilt: f32[2^24], kernel 7 ----------------

struct Medfilt {
    x: Array<f32>,
}

fn medfilt(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(Medfilt {
        x: randn_f32(1 << 24, 61, dev)?,
    }))
}

impl Bench for Medfilt {
    fn check(&mut self) -> BenchResult<()> {
        let y = sig::medfilt(&self.x, 7)?;
        for s in [0usize, 7_000_000, (1 << 24) - 4096] {
            let lo = s.saturating_sub(3);
            let hi = (s + 4096 + 3).min(1 << 24);
            let xs = Array::from_vec(
                host_range(&self.x, lo, hi - lo)?,
                &[hi - lo],
                &Device::cpu(),
            )?;
            let want = sig::medfilt(&xs, 7)?.to_vec()?;
            let got = host_range(&y, s, 4096)?;
            // interior outputs of the piece (its own zero padding differs at cut edges)
            let off = s - lo;
            let inner = |v: &[f32], o: usize| -> Vec<f64> {
                v[o + 3..o + 4096 - 3].iter().map(|&a| a as f64).collect()
            };
            close(
                &format!("from {s}"),
                &inner(&got, 0),
                &inner(&want, off),
                0.0,
            )?;
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        sig::medfilt(&self.x, 7).map(drop)
    }
}

// ---------------- welch: f32[2^26], nperseg 4096 (defaults otherwise) ----------------

struct Welch {
    x: Array<f32>,
}

fn welch(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(Welch {
        x: randn_f32(1 << 26, 71, dev)?,
    }))
}

fn welch_opts() -> sig::WelchOptions {
    sig::WelchOptions {
        nperseg: Some(4096),
        ..Default::default()
    }
}

impl Bench for Welch {
    fn check(&mut self) -> BenchResult<()> {
        // the whole signal: a one-sided density of unit-variance noise integrates to ~1
        let (_, p) = sig::welch(&self.x, &welch_opts())?;
        let p: Vec<f64> = p.to_vec()?.iter().map(|&v| v as f64).collect();
        if p.len() != 2049 {
            return Err(format!("{} frequencies, expected 2049", p.len()).into());
        }
        let power: f64 = p.iter().sum::<f64>() / 4096.0;
        if (power - 1.0).abs() > 0.01 {
            return Err(format!("integrated PSD {power}, expected ~1").into());
        }
        // a 2^20 prefix on this device against the CPU
        let n = 1 << 20;
        let xs = self
            .x
            .slice_axis(0, Some(0), Some(n as isize), 1)?
            .contiguous()?;
        let got: Vec<f64> = sig::welch(&xs, &welch_opts())?
            .1
            .to_vec()?
            .iter()
            .map(|&v| v as f64)
            .collect();
        let xc = Array::from_vec(host_range(&self.x, 0, n)?, &[n], &Device::cpu())?;
        let want: Vec<f64> = sig::welch(&xc, &welch_opts())?
            .1
            .to_vec()?
            .iter()
            .map(|&v| v as f64)
            .collect();
        close("welch of the 2^20 prefix", &got, &want, 1e-4)
    }
    fn run(&mut self) -> cusci::Result<()> {
        sig::welch(&self.x, &welch_opts()).map(drop)
    }
}

// ---------------- stft: f32[2^24], nperseg 1024 (defaults otherwise) ----------------

struct Stft {
    x: Array<f32>,
}

fn stft(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(Stft {
        x: randn_f32(1 << 24, 81, dev)?,
    }))
}

fn stft_opts() -> sig::StftOptions {
    sig::StftOptions {
        nperseg: Some(1024),
        ..Default::default()
    }
}

impl Bench for Stft {
    fn check(&mut self) -> BenchResult<()> {
        let (_, _, z) = sig::stft(&self.x, &stft_opts())?;
        if z.shape() != [513, (1 << 24) / 512 + 1] {
            return Err(format!("shape {:?}", z.shape()).into());
        }
        // segments k..k+8 cover x[(k - 1) 512, (k + 8) 512): the same segments of a CPU stft of
        // that piece without boundary extension or padding
        for k in [1usize, 12_345, (1 << 24) / 512 - 8] {
            let lo = (k - 1) * 512;
            let piece = host_range(&self.x, lo, 9 * 512)?;
            let xc = Array::from_vec(piece, &[9 * 512], &Device::cpu())?;
            let o = sig::StftOptions {
                boundary: None,
                padded: false,
                ..stft_opts()
            };
            let want = sig::stft(&xc, &o)?.2.to_vec()?;
            let got = z
                .slice_axis(1, Some(k as isize), Some(k as isize + 8), 1)?
                .to_vec()?;
            let flat = |v: &[cusci::core::c32]| -> Vec<f64> {
                v.iter().flat_map(|c| [c.re as f64, c.im as f64]).collect()
            };
            close(
                &format!("segments from {k}"),
                &flat(&got),
                &flat(&want),
                1e-4,
            )?;
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        sig::stft(&self.x, &stft_opts()).map(drop)
    }
}

// ---------------- resample_poly: f32[2^24], up 3, down 2 ----------------

struct ResamplePoly {
    x: Array<f32>,
}

fn resample_poly(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(ResamplePoly {
        x: randn_f32(1 << 24, 81, dev)?,
    }))
}

impl Bench for ResamplePoly {
    fn check(&mut self) -> BenchResult<()> {
        let o = sig::ResamplePolyOptions::default();
        let y = sig::resample_poly(&self.x, 3, 2, &o)?;
        if y.len() != 3 << 23 {
            return Err(format!("{} outputs, expected {}", y.len(), 3 << 23).into());
        }
        // pieces starting at even inputs resample to outputs 3/2 as far along; their interior
        // (away from the piece's own zero padding) equals the whole signal's
        for lo in [0usize, 5_000_000, (1 << 24) - 4096] {
            let xs = Array::from_vec(host_range(&self.x, lo, 4096)?, &[4096], &Device::cpu())?;
            let want = sig::resample_poly(&xs, 3, 2, &o)?.to_vec()?;
            let got = host_range(&y, lo * 3 / 2, 6144)?;
            let a = if lo == 0 { 0 } else { 64 };
            let b = if lo + 4096 == 1 << 24 {
                6144
            } else {
                6144 - 64
            };
            let f = |v: &[f32]| -> Vec<f64> { v[a..b].iter().map(|&t| t as f64).collect() };
            close(&format!("from input {lo}"), &f(&got), &f(&want), 1e-5)?;
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        sig::resample_poly(&self.x, 3, 2, &sig::ResamplePolyOptions::default()).map(drop)
    }
}

// ---------------- convolve2d: f32[4096, 4096], k f32[15, 15], same, zero fill ----------------

struct Conv2d {
    x: Array<f32>,
    k: Array<f32>,
}

fn convolve2d(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(Conv2d {
        x: Generator::new(91).standard_normal::<f32>(&[4096, 4096], dev)?,
        k: Generator::new(92).standard_normal::<f32>(&[15, 15], dev)?,
    }))
}

fn conv2d_same() -> sig::Conv2dOptions<f32> {
    sig::Conv2dOptions {
        mode: sig::ConvMode::Same,
        ..Default::default()
    }
}

impl Bench for Conv2d {
    fn check(&mut self) -> BenchResult<()> {
        let y = sig::convolve2d(&self.x, &self.k, &conv2d_same())?;
        let cpu = Device::cpu();
        let k = self.k.to_device(&cpu)?;
        // output rows [r0, r0 + 32) need input rows [r0 - 7, r0 + 32 + 7): the CPU on that band
        for r0 in [0usize, 2000, 4096 - 32] {
            let lo = r0.saturating_sub(7);
            let hi = (r0 + 32 + 7).min(4096);
            let band = self
                .x
                .slice_axis(0, Some(lo as isize), Some(hi as isize), 1)?
                .to_device(&cpu)?;
            let full = sig::convolve2d(&band, &k, &conv2d_same())?;
            let want: Vec<f64> = full
                .slice_axis(
                    0,
                    Some((r0 - lo) as isize),
                    Some((r0 - lo + 32) as isize),
                    1,
                )?
                .to_vec()?
                .iter()
                .map(|&v| v as f64)
                .collect();
            let got: Vec<f64> = y
                .slice_axis(0, Some(r0 as isize), Some(r0 as isize + 32), 1)?
                .to_vec()?
                .iter()
                .map(|&v| v as f64)
                .collect();
            close(&format!("rows from {r0}"), &got, &want, 1e-5)?;
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        sig::convolve2d(&self.x, &self.k, &conv2d_same()).map(drop)
    }
}
