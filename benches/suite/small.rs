//! The `small.*` and `odd.*` cases of issue 34 (§2): calls on small inputs, where the host time
//! per call and the launches count more than the bandwidth, and calls on prime or odd sizes,
//! where the fast paths for powers of two do not apply. They are not in CASES.md; CuPy's side of
//! each is in `benches/cupy_extra.py` (same names, shapes, dtypes and parameters), and
//! `benches/results/README.md` describes them in CASES.md's format.
//!
//! Checks: each case runs its call once on the GPU input and once on a CPU copy of it and
//! compares the whole outputs (the inputs are small, or the CPU is fast enough on them), with an
//! error relative to the largest output value; the SpMV checks each row against the stencil.

use crate::sparse_cases::{poisson2d, stencil};
use crate::{host_range, Bench, BenchResult, Case};
use cusci::core::random::Generator;
use cusci::core::{Element, RealFloat};
use cusci::fft::{self, FftOptions};
use cusci::linalg as la;
use cusci::ndimage::{self as ndi, Footprint, GaussianOptions};
use cusci::signal::{self as sig, FilterOptions, FiltfiltOptions, IirOptions, Output};
use cusci::sparse::CsrMatrix;
use cusci::{c32, Array, Device};

const F32: u64 = 4;
const F64: u64 = 8;
const C32B: u64 = 8;

/// Repeats of the small cases: cheap calls, so many, as the host times scatter more.
const SMALL_REPEAT: usize = 100;

/// The odd FFT length: a prime near 2·10^6 (cuFFT and rustfft take Bluestein's path).
const PRIME_N: usize = 2_000_003;

/// The small and odd cases, with bytes, flops and repeats as in `cupy_extra.py`.
pub fn cases() -> Vec<Case> {
    let img_odd = 2039u64 * 4093;
    vec![
        Case {
            name: "small.fft_c64_4096",
            bytes: 2 * 4096 * C32B,
            flops: 5 * 4096 * 12,
            n_repeat: SMALL_REPEAT,
            setup: |d| {
                let x = randn_c32(4096, 101, d)?;
                Ok(same(x, vec![], 1e-5, |x, _| {
                    fft::fft(x, &FftOptions::default())
                }))
            },
        },
        Case {
            name: "small.sosfilt_f64_8192_ord8",
            bytes: 2 * 8192 * F64,
            flops: 0,
            n_repeat: SMALL_REPEAT,
            setup: |d| {
                let x = randn::<f64>(&[8192], 102, d)?;
                Ok(same(x, vec![butter8_sos()?], 1e-10, |x, aux| {
                    Ok(sig::sosfilt(&aux[0], x, &FilterOptions::default())?.y)
                }))
            },
        },
        Case {
            name: "small.gaussian_filter_f32_512_s2",
            bytes: 2 * 512 * 512 * F32,
            flops: 0,
            n_repeat: SMALL_REPEAT,
            setup: |d| {
                let x = randn::<f32>(&[512, 512], 103, d)?;
                Ok(same(x, vec![], 1e-4, |x, _| {
                    ndi::gaussian_filter(x, &[2.0], &GaussianOptions::default())
                }))
            },
        },
        Case {
            name: "small.solve_f64_16",
            bytes: 0,
            flops: 0,
            n_repeat: SMALL_REPEAT,
            setup: |d| {
                let a = randn::<f64>(&[16, 16], 104, d)?;
                let b = randn::<f64>(&[16], 105, d)?;
                Ok(same(a, vec![b], 1e-8, |a, aux| la::solve(a, &aux[0])))
            },
        },
        Case {
            name: "small.sum_f32_10^4",
            bytes: 10_000 * F32,
            flops: 10_000,
            n_repeat: SMALL_REPEAT,
            // sum_axes(&[0]): the 0-d array on the device that CuPy's x.sum() returns (see
            // core.sum_f32_2^28)
            setup: |d| {
                let x = randn::<f32>(&[10_000], 106, d)?;
                Ok(same(x, vec![], 1e-5, |x, _| x.sum_axes(&[0])))
            },
        },
        Case {
            name: "small.welch_f32_65536_n1024",
            bytes: 0,
            flops: 0,
            n_repeat: SMALL_REPEAT,
            setup: |d| {
                let x = randn::<f32>(&[65536], 107, d)?;
                Ok(same(x, vec![], 1e-4, |x, _| {
                    let o = sig::WelchOptions {
                        nperseg: Some(1024),
                        ..Default::default()
                    };
                    Ok(sig::welch(x, &o)?.1)
                }))
            },
        },
        Case {
            name: "small.label_256",
            bytes: 0,
            flops: 0,
            n_repeat: SMALL_REPEAT,
            setup: |d| {
                let x = randn::<f32>(&[256, 256], 108, d)?.gt_scalar(0.5)?;
                Ok(same(x, vec![], 0.0, |x, _| Ok(ndi::label(x, None)?.0)))
            },
        },
        Case {
            name: "small.spmv_csr_f64_poisson100",
            bytes: 100 * 100 * (5 * 12 + 4 + 16),
            flops: 2 * 5 * 100 * 100,
            n_repeat: SMALL_REPEAT,
            setup: small_spmv,
        },
        Case {
            name: "odd.fft_c64_prime_2000003",
            bytes: 2 * PRIME_N as u64 * C32B,
            flops: 0,
            n_repeat: 20,
            setup: |d| {
                let x = randn_c32(PRIME_N, 109, d)?;
                // Bluestein's three transforms of 2^22 points in f32 on both sides
                Ok(same(x, vec![], 1e-4, |x, _| {
                    fft::fft(x, &FftOptions::default())
                }))
            },
        },
        Case {
            name: "odd.gaussian_filter_f32_2039x4093_s4",
            bytes: 2 * img_odd * F32,
            flops: 0,
            n_repeat: 10,
            setup: |d| {
                let x = randn::<f32>(&[2039, 4093], 110, d)?;
                Ok(same(x, vec![], 1e-4, |x, _| {
                    ndi::gaussian_filter(x, &[4.0], &GaussianOptions::default())
                }))
            },
        },
        Case {
            name: "odd.median_filter_f32_2039x4093_s5",
            bytes: 2 * img_odd * F32,
            flops: 0,
            n_repeat: 5,
            setup: |d| {
                let x = randn::<f32>(&[2039, 4093], 111, d)?;
                // a selection: the same values on both devices
                Ok(same(x, vec![], 0.0, |x, _| {
                    ndi::median_filter(x, &Footprint::Size(vec![5]), &ndi::FilterOptions::default())
                }))
            },
        },
        Case {
            name: "odd.sosfiltfilt_f64_500x20011_ord8",
            bytes: 0,
            flops: 0,
            n_repeat: 10,
            setup: |d| {
                let x = randn::<f64>(&[500, 20011], 112, d)?;
                // sosfiltfilt takes the sections on the input's device (as CuPy's)
                let sos = butter8_sos()?.to_device(d)?;
                Ok(same(x, vec![sos], 1e-9, |x, aux| {
                    sig::sosfiltfilt(&aux[0], x, &FiltfiltOptions::default())
                }))
            },
        },
        Case {
            name: "odd.svdvals_f64_2047",
            bytes: 2047 * 2047 * F64,
            flops: 0,
            n_repeat: 3,
            setup: |d| {
                let a = randn::<f64>(&[2047, 2047], 113, d)?;
                // each value to about ε·σ_max on both devices
                Ok(same(a, vec![], 1e-10, |a, _| la::svdvals(a)))
            },
        },
    ]
}

fn randn<T: RealFloat>(shape: &[usize], seed: u64, dev: &Device) -> BenchResult<Array<T>> {
    Ok(Generator::new(seed).standard_normal::<T>(shape, dev)?)
}

/// A complex64 (our c32) standard normal vector: real and imaginary parts from two streams.
fn randn_c32(n: usize, seed: u64, dev: &Device) -> BenchResult<Array<c32>> {
    let re = randn::<f32>(&[n], seed, dev)?;
    let im = randn::<f32>(&[n], seed + 1000, dev)?;
    Ok(re
        .astype::<c32>()?
        .add(&im.astype::<c32>()?.mul_scalar(c32::new(0.0, 1.0))?)?)
}

/// `butter(8, 0.1, output='sos')` as a (4, 6) array on the host (as in the `signal.sosfilt`
/// case: CuPy's moves it to the GPU; cusci reads the coefficients on the host either way).
pub(crate) fn butter8_sos() -> BenchResult<Array<f64>> {
    let sos = sig::butter(
        8,
        &[0.1],
        &IirOptions {
            output: Output::Sos,
            ..Default::default()
        },
    )?
    .into_sos()?;
    let flat: Vec<f64> = sos.iter().flatten().copied().collect();
    let nsec = sos.len();
    Ok(Array::from_vec(flat, &[nsec, 6], &Device::cpu())?)
}

// ---------------- one call, checked against the same call on a CPU copy ----------------

/// The call of a case: the input and the case's other arrays (on the input's device, or on the
/// host where the call reads them there).
type Call<T, U> = fn(&Array<T>, &[Array<T>]) -> cusci::Result<Array<U>>;

struct Same<T: Element, U: Element> {
    x: Array<T>,
    aux: Vec<Array<T>>,
    /// The largest difference allowed, relative to the largest |value| of the CPU's output
    /// (at least 1).
    tol: f64,
    f: Call<T, U>,
}

fn same<T: Element, U: Element>(
    x: Array<T>,
    aux: Vec<Array<T>>,
    tol: f64,
    f: Call<T, U>,
) -> Box<dyn Bench> {
    Box::new(Same { x, aux, tol, f })
}

impl<T: Element, U: Element> Bench for Same<T, U> {
    fn check(&mut self) -> BenchResult<()> {
        let got = (self.f)(&self.x, &self.aux)?;
        let cpu = Device::cpu();
        let xc = self.x.to_device(&cpu)?;
        let auxc = self
            .aux
            .iter()
            .map(|a| a.to_device(&cpu))
            .collect::<cusci::Result<Vec<_>>>()?;
        let want = (self.f)(&xc, &auxc)?;
        if got.shape() != want.shape() {
            return Err(format!("shape {:?}, the CPU's {:?}", got.shape(), want.shape()).into());
        }
        let (got, want) = (got.to_vec()?, want.to_vec()?);
        let scale = want.iter().map(|v| v.to_c64().norm()).fold(1.0, f64::max);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let err = (g.to_c64() - w.to_c64()).norm();
            if err.is_nan() || err > self.tol * scale {
                return Err(format!(
                    "element {i}: GPU {:?}, CPU {:?} (tolerance {:e} of {scale:e})",
                    g.to_c64(),
                    w.to_c64(),
                    self.tol
                )
                .into());
            }
        }
        Ok(())
    }

    fn run(&mut self) -> cusci::Result<()> {
        (self.f)(&self.x, &self.aux).map(drop)
    }
}

// ---------------- SpMV of the 5-point Laplacian on a 100 x 100 grid ----------------

struct SmallSpmv {
    a: CsrMatrix<f64>,
    x: Array<f64>,
}

fn small_spmv(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    let a = poisson2d::<f64>(100, dev)?;
    let x = randn::<f64>(&[a.shape().1], 114, dev)?;
    Ok(Box::new(SmallSpmv { a, x }))
}

impl Bench for SmallSpmv {
    fn check(&mut self) -> BenchResult<()> {
        let n = 100usize;
        let y = host_range(&self.a.dot(&self.x)?, 0, n * n)?;
        let xs = self.x.to_vec()?;
        for (i, &v) in y.iter().enumerate() {
            let want = stencil(n, &|j| xs[j], i);
            if (v - want).abs() > 1e-13 * (1.0 + want.abs()) {
                return Err(format!("row {i}: {v:e}, expected {want:e}").into());
            }
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        self.a.dot(&self.x).map(drop)
    }
}
