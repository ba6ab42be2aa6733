//! The `fft.*` cases of CASES.md (see `cupy_ref.py` for CuPy's side of each). CuPy's `c64` is
//! complex64 (our `c32`) and its `c128` is complex128 (our `c64`).
//!
//! Checks: the batched cases compare a few lanes with the CPU reference (rustfft); the big
//! single transforms check `inverse(forward(x)) = x` on the GPU and compare slices on the host,
//! with errors relative to the largest input value.

use crate::{BenchResult, Case};
use cusci::core::random::Generator;
use cusci::fft::{self, FftOptions, FftnOptions};
use cusci::{c32, c64, Array, Device};

const C32B: u64 = 8;
const C64B: u64 = 16;
const F32B: u64 = 4;

/// The fft cases, with bytes, flops and repeats as in cupy_ref.py.
pub fn cases() -> Vec<Case> {
    let b4096 = 4096u64 * 4096;
    vec![
        Case {
            name: "fft.c2c_c64_batch4096x4096",
            bytes: 2 * b4096 * C32B,
            flops: 5 * b4096 * 12,
            n_repeat: 20,
            setup: c2c_batch,
        },
        Case {
            name: "fft.rfft_f32_2^26",
            bytes: (1u64 << 26) * F32B + (1u64 << 25) * C32B,
            flops: (2.5 * (1u64 << 26) as f64 * 26.0) as u64,
            n_repeat: 20,
            setup: rfft_big,
        },
        Case {
            name: "fft.fft2_c64_4096x4096",
            bytes: 2 * b4096 * C32B,
            flops: 5 * b4096 * 24,
            n_repeat: 20,
            setup: fft2_big,
        },
        Case {
            name: "fft.c2c_c128_2^24",
            bytes: 2 * (1u64 << 24) * C64B,
            flops: 5 * (1u64 << 24) * 24,
            n_repeat: 20,
            setup: c2c_c128,
        },
        Case {
            name: "fft.rfftn_f32_512^3",
            bytes: 512u64.pow(3) * F32B + 512 * 512 * 257 * C32B,
            flops: (2.5 * 512f64.powi(3) * 27.0) as u64,
            n_repeat: 20,
            setup: rfftn_cube,
        },
    ]
}

/// A complex64 (our c32) standard normal array: real and imaginary parts from two streams.
fn randn_c32(shape: &[usize], seed: u64, dev: &Device) -> BenchResult<Array<c32>> {
    let re = Generator::new(seed).standard_normal::<f32>(shape, dev)?;
    let im = Generator::new(seed + 1).standard_normal::<f32>(shape, dev)?;
    Ok(re
        .astype::<c32>()?
        .add(&im.astype::<c32>()?.mul_scalar(c32::new(0.0, 1.0))?)?)
}

fn randn_c64(shape: &[usize], seed: u64, dev: &Device) -> BenchResult<Array<c64>> {
    let re = Generator::new(seed).standard_normal::<f64>(shape, dev)?;
    let im = Generator::new(seed + 1).standard_normal::<f64>(shape, dev)?;
    Ok(re
        .astype::<c64>()?
        .add(&im.astype::<c64>()?.mul_scalar(c64::new(0.0, 1.0))?)?)
}

/// `Ok` when `|got - want| <= tol·max|want|` everywhere.
fn close<T: cusci::core::Element>(what: &str, got: &[T], want: &[T], tol: f64) -> BenchResult<()> {
    if got.len() != want.len() {
        return Err(format!("{what}: {} values, expected {}", got.len(), want.len()).into());
    }
    let max = want.iter().map(|v| v.to_c64().norm()).fold(0.0, f64::max);
    let (i, err) = got
        .iter()
        .zip(want)
        .map(|(a, b)| (a.to_c64() - b.to_c64()).norm())
        .enumerate()
        .fold((0, 0.0), |acc, (i, e)| if e > acc.1 { (i, e) } else { acc });
    if err > tol * max.max(1e-30) {
        return Err(format!(
            "{what}: element {i} off by {err:e} (largest value {max:e}, tolerance {tol:e})"
        )
        .into());
    }
    Ok(())
}

/// Rows `rows` of a 2-d array, on the host.
fn rows<T: cusci::core::Element>(a: &Array<T>, r: &[usize]) -> BenchResult<Vec<T>> {
    let mut v = Vec::new();
    for &i in r {
        v.extend(a.index_axis(0, i as isize)?.to_vec()?);
    }
    Ok(v)
}

// ---------------- fft along the last axis of a 4096 x 4096 batch ----------------

struct C2cBatch {
    x: Array<c32>,
}

fn c2c_batch(dev: &Device) -> BenchResult<Box<dyn crate::Bench>> {
    Ok(Box::new(C2cBatch {
        x: randn_c32(&[4096, 4096], 11, dev)?,
    }))
}

impl crate::Bench for C2cBatch {
    fn check(&mut self) -> BenchResult<()> {
        let y = fft::fft(&self.x, &FftOptions::default())?;
        let pick = [0usize, 1, 2047, 4095];
        let xs = Array::from_vec(rows(&self.x, &pick)?, &[4, 4096], &Device::cpu())?;
        let want = fft::fft(&xs, &FftOptions::default())?.to_vec()?;
        close("fft rows", &rows(&y, &pick)?, &want, 1e-5)
    }
    fn run(&mut self) -> cusci::Result<()> {
        fft::fft(&self.x, &FftOptions::default()).map(drop)
    }
}

// ---------------- rfft of 2^26 points ----------------

struct RfftBig {
    x: Array<f32>,
}

fn rfft_big(dev: &Device) -> BenchResult<Box<dyn crate::Bench>> {
    Ok(Box::new(RfftBig {
        x: Generator::new(12).standard_normal::<f32>(&[1 << 26], dev)?,
    }))
}

/// `got` and `want` (1-D) compared on three slices of `len` elements.
fn slices_close<T: cusci::core::Element>(
    what: &str,
    got: &Array<T>,
    want: &Array<T>,
    tol: f64,
) -> BenchResult<()> {
    let n = want.len();
    let len = (1usize << 16).min(n);
    for s in [0, n / 2, n - len] {
        let g = crate::host_range(got, s, len)?;
        let w = crate::host_range(want, s, len)?;
        close(&format!("{what} at {s}"), &g, &w, tol)?;
    }
    Ok(())
}

impl crate::Bench for RfftBig {
    fn check(&mut self) -> BenchResult<()> {
        let y = fft::rfft(&self.x, &FftOptions::default())?;
        let back = fft::irfft(
            &y,
            &FftOptions {
                n: Some(1 << 26),
                ..Default::default()
            },
        )?;
        // the zero-frequency term is the sum (f64 on the host)
        let s: f64 = self.x.to_vec()?.iter().map(|&v| v as f64).sum();
        let y0 = crate::host_range(&y, 0, 1)?[0];
        if (y0.re as f64 - s).abs() > 1e-3 * (1u64 << 13) as f64 {
            return Err(format!("rfft[0] = {} but the sum is {s}", y0.re).into());
        }
        slices_close("irfft(rfft(x))", &back, &self.x, 1e-5)
    }
    fn run(&mut self) -> cusci::Result<()> {
        fft::rfft(&self.x, &FftOptions::default()).map(drop)
    }
}

// ---------------- fft2 of 4096 x 4096 ----------------

struct Fft2Big {
    x: Array<c32>,
}

fn fft2_big(dev: &Device) -> BenchResult<Box<dyn crate::Bench>> {
    Ok(Box::new(Fft2Big {
        x: randn_c32(&[4096, 4096], 13, dev)?,
    }))
}

impl crate::Bench for Fft2Big {
    fn check(&mut self) -> BenchResult<()> {
        let o = FftnOptions::default();
        let y = fft::fft2(&self.x, &o)?;
        let back = fft::ifft2(&y, &o)?;
        let pick = [0usize, 100, 4095];
        close(
            "ifft2(fft2(x))",
            &rows(&back, &pick)?,
            &rows(&self.x, &pick)?,
            1e-5,
        )?;
        // column 0 of fft2 = fft along axis 0 of the row sums' ... check one lane exactly:
        // y[:, 0] = fft(sum over columns of x) along axis 0
        let xs = self.x.to_device(&Device::cpu())?;
        let col = fft::fft(&xs.sum_axes(&[1])?, &FftOptions::default())?.to_vec()?;
        let got = y.to_device(&Device::cpu())?.index_axis(1, 0)?.to_vec()?;
        close("fft2 column 0", &got, &col, 1e-5)
    }
    fn run(&mut self) -> cusci::Result<()> {
        fft::fft2(&self.x, &FftnOptions::default()).map(drop)
    }
}

// ---------------- complex128 fft of 2^24 points ----------------

struct C2cC128 {
    x: Array<c64>,
}

fn c2c_c128(dev: &Device) -> BenchResult<Box<dyn crate::Bench>> {
    Ok(Box::new(C2cC128 {
        x: randn_c64(&[1 << 24], 14, dev)?,
    }))
}

impl crate::Bench for C2cC128 {
    fn check(&mut self) -> BenchResult<()> {
        let o = FftOptions::default();
        let y = fft::fft(&self.x, &o)?;
        let back = fft::ifft(&y, &o)?;
        slices_close("ifft(fft(x))", &back, &self.x, 1e-12)?;
        let xh = self.x.to_vec()?;
        let s: c64 = xh.iter().copied().sum();
        let y0 = crate::host_range(&y, 0, 1)?[0];
        close("fft[0] = sum", &[y0], &[s], 1e-10)
    }
    fn run(&mut self) -> cusci::Result<()> {
        fft::fft(&self.x, &FftOptions::default()).map(drop)
    }
}

// ---------------- rfftn of 512^3 ----------------

struct RfftnCube {
    x: Array<f32>,
}

fn rfftn_cube(dev: &Device) -> BenchResult<Box<dyn crate::Bench>> {
    Ok(Box::new(RfftnCube {
        x: Generator::new(15).standard_normal::<f32>(&[512, 512, 512], dev)?,
    }))
}

impl crate::Bench for RfftnCube {
    fn check(&mut self) -> BenchResult<()> {
        let y = fft::rfftn(&self.x, &FftnOptions::default())?;
        if y.shape() != [512, 512, 257] {
            return Err(format!("rfftn shape {:?}", y.shape()).into());
        }
        let back = fft::irfftn(
            &y,
            &FftnOptions {
                s: Some(vec![512, 512, 512]),
                ..Default::default()
            },
        )?;
        let pick = [0usize, 255, 511];
        for &p in &pick {
            let g = back.index_axis(0, p as isize)?.to_vec()?;
            let w = self.x.index_axis(0, p as isize)?.to_vec()?;
            close(&format!("irfftn(rfftn(x)) plane {p}"), &g, &w, 1e-5)?;
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        fft::rfftn(&self.x, &FftnOptions::default()).map(drop)
    }
}
