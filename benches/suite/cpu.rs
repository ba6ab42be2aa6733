//! The suite's CPU mode (`suite --device cpu`): the cases on the CPU device, timed with the host
//! clock; `benches/cpu_vs_scipy.py` runs it at one thread and at all cores beside SciPy/NumPy.
//!
//! - Every case of the suite runs with its inputs on [`Device::Cpu`] (same shapes, dtypes and
//!   calls as on the GPU). The case's check is skipped (it compares with the CPU path, which is
//!   now the one timed; `--cpu-check` runs it anyway).
//! - Timing: the first call is timed with [`Instant`]; under a second, two more warm-ups and
//!   then `n_repeat` (at least 5) timed calls as on the GPU; from a second up, no more warm-up
//!   and 5 timed calls. The median is recorded.
//! - Size rule: the cases in [`CPU_SCALED`] (cubic linalg at 4096–8192, the 512³ rfftn, the
//!   256³ 5³-kernel convolution: tens of seconds to minutes a call on a 2-core machine) are not
//!   run; each gets a `{"case", "impl": "cusci-cpu", "skipped": "scaled for the CPU: NAME"}`
//!   record and its scaled case (same call, smaller size, the size in its name) runs instead.
//!   `--cpu-full` runs them as they are. Any case whose first call takes more than `--cpu-max-s`
//!   seconds (default 20) is recorded as skipped with that call's time and not repeated.
//! - [`cpu_only_cases`] adds CPU-only cases: the scaled cases and the CPU's known gaps against
//!   SciPy (issue 34 §5: sosfiltfilt of long multichannel signals, label of a smooth field, an
//!   odd-sized gaussian, median 7, percentile 5, binary and grey morphology, cdt).
//!
//! Records: `{"case", "impl": "cusci-cpu", "median_ms", "bytes", "flops", "threads", "n"}`
//! (threads: `RAYON_NUM_THREADS`, else the machine's cores), or `"error"` / `"skipped"`.

use crate::{median, panic_text, Bench, BenchResult, Case, MIN_REPEAT, WARMUP};
use cusci::core::random::Generator;
use cusci::core::RealFloat;
use cusci::linalg::{self as la, LuFactorOptions, QrMode, SvdOptions};
use cusci::ndimage as ndi;
use cusci::signal as sig;
use cusci::{Array, Device};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

/// The CPU mode's switches.
pub struct CpuOptions {
    /// `--device cpu`
    pub on: bool,
    /// `--cpu-full`: run the cases of [`CPU_SCALED`] at their GPU size too
    pub full: bool,
    /// `--cpu-check`: run each case's check before timing
    pub check: bool,
    /// `--cpu-max-s`: a case whose first call takes longer is skipped
    pub max_s: f64,
}

impl Default for CpuOptions {
    fn default() -> Self {
        CpuOptions {
            on: false,
            full: false,
            check: false,
            max_s: 20.0,
        }
    }
}

/// Suite cases too big for a small CPU within a sane time, and the CPU-only case that replaces
/// each (the same call at a smaller size).
pub const CPU_SCALED: &[(&str, &str)] = &[
    ("linalg.matmul_f64_8192", "linalg.matmul_f64_2048"),
    ("linalg.matmul_f32_8192", "linalg.matmul_f32_2048"),
    ("linalg.solve_f64_8192", "linalg.solve_f64_2048"),
    ("linalg.cholesky_f64_8192", "linalg.cholesky_f64_2048"),
    ("linalg.qr_f64_4096", "linalg.qr_f64_1024"),
    ("linalg.svd_f32_4096", "linalg.svd_f32_1024"),
    ("linalg.eigh_f64_4096", "linalg.eigh_f64_1024"),
    ("linalg.inv_f64_4096", "linalg.inv_f64_1024"),
    ("linalg.lu_factor_f64_8192", "linalg.lu_factor_f64_2048"),
    ("fft.rfftn_f32_512^3", "fft.rfftn_f32_256^3"),
    (
        "ndimage.convolve_f32_256^3_k5",
        "ndimage.convolve_f32_128^3_k5",
    ),
];

/// The CPU mode's cases: the suite's, then the CPU-only ones.
pub fn cpu_set(mut all: Vec<Case>, _o: &CpuOptions) -> Vec<Case> {
    all.extend(cpu_only_cases());
    all
}

fn threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// How one case ended on the CPU.
enum Outcome {
    Timed { ms: f64, n: usize },
    TooLong(f64),
}

/// Sets up on the CPU, (optionally) checks, warms up and times one case with the host clock.
fn time_case_cpu(case: &Case, o: &CpuOptions) -> BenchResult<Outcome> {
    let mut bench = (case.setup)(&Device::Cpu)?;
    if o.check {
        bench.check().map_err(|e| format!("wrong result: {e}"))?;
    }
    let t = Instant::now();
    bench.run()?;
    let first = t.elapsed().as_secs_f64();
    if first > o.max_s {
        return Ok(Outcome::TooLong(first));
    }
    let (warm, reps) = if first < 1.0 {
        (WARMUP - 1, case.n_repeat.max(MIN_REPEAT))
    } else {
        (0, MIN_REPEAT)
    };
    for _ in 0..warm {
        bench.run()?;
    }
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        bench.run()?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(Outcome::Timed {
        ms: median(times),
        n: reps,
    })
}

/// The CPU mode's loop: one record per case through `write`.
pub fn run_cpu(cases: &[Case], o: &CpuOptions, mut write: impl FnMut(serde_json::Value)) {
    let th = threads();
    println!(
        "# cusci {} on the CPU, {th} thread(s) (RAYON_NUM_THREADS {}), host clock",
        env!("CARGO_PKG_VERSION"),
        std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "unset".into())
    );
    let base = |name: &str| serde_json::json!({"case": name, "impl": "cusci-cpu", "threads": th});
    for case in cases {
        let mut rec = base(case.name);
        if let Some((_, to)) = CPU_SCALED.iter().find(|(from, _)| *from == case.name) {
            if !o.full {
                println!("{:45} SKIPPED (scaled for the CPU: {to})", case.name);
                rec["skipped"] = format!("scaled for the CPU: {to}").into();
                write(rec);
                continue;
            }
        }
        match catch_unwind(AssertUnwindSafe(|| time_case_cpu(case, o))) {
            Ok(Ok(Outcome::Timed { ms, n })) => {
                let mut extra = String::new();
                if case.bytes > 0 {
                    extra += &format!("  {:8.1} GB/s", case.bytes as f64 / ms / 1e6);
                }
                if case.flops > 0 {
                    extra += &format!("  {:9.3} GFLOP/s", case.flops as f64 / ms / 1e6);
                }
                println!("{:45} {ms:10.3} ms{extra}", case.name);
                rec["median_ms"] = ((ms * 1e6).round() / 1e6).into();
                rec["bytes"] = case.bytes.into();
                rec["flops"] = case.flops.into();
                rec["n"] = n.into();
            }
            Ok(Ok(Outcome::TooLong(s))) => {
                let why = format!("one call took {s:.1} s (more than --cpu-max-s {})", o.max_s);
                println!("{:45} SKIPPED ({why})", case.name);
                rec["skipped"] = why.into();
            }
            Ok(Err(e)) => {
                let msg: String = e.to_string().chars().take(300).collect();
                println!("{:45} ERROR {msg}", case.name);
                rec["error"] = msg.into();
            }
            Err(p) => {
                let msg: String = format!("panic: {}", panic_text(p))
                    .chars()
                    .take(300)
                    .collect();
                println!("{:45} ERROR {msg}", case.name);
                rec["error"] = msg.into();
            }
        }
        write(rec);
    }
}

// ------------------------------------------------------------------------------------------
// the CPU-only cases
// ------------------------------------------------------------------------------------------

/// A case made of one closure (its inputs captured); no check (the CPU is the reference: the
/// crates' tests check it against SciPy).
struct Call<F>(F);

impl<F: FnMut() -> cusci::Result<()>> Bench for Call<F> {
    fn check(&mut self) -> BenchResult<()> {
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        (self.0)()
    }
}

fn call<F: FnMut() -> cusci::Result<()> + 'static>(f: F) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(Call(f)))
}

fn case(
    name: &'static str,
    n_repeat: usize,
    setup: fn(&Device) -> BenchResult<Box<dyn Bench>>,
) -> Case {
    Case {
        name,
        bytes: 0,
        flops: 0,
        n_repeat,
        setup,
    }
}

fn randn<T: RealFloat>(shape: &[usize], seed: u64, dev: &Device) -> BenchResult<Array<T>> {
    Ok(Generator::new(seed).standard_normal::<T>(shape, dev)?)
}

/// A smooth field (white noise through a σ = 4 Gaussian, scaled to unit deviation), the input
/// of the morphology and label gap cases (as the 2026-12-05d CPU measurement).
fn smooth(n: usize, dev: &Device) -> BenchResult<Array<f64>> {
    let x = randn::<f64>(&[n, n], 95, dev)?;
    let f = ndi::gaussian_filter(&x, &[4.0], &ndi::GaussianOptions::default())?;
    let s = f.std(0)?;
    Ok(f.div_scalar(s)?)
}

fn mask(n: usize, dev: &Device) -> BenchResult<Array<bool>> {
    Ok(smooth(n, dev)?.gt_scalar(0.2)?)
}

macro_rules! matmul_setup {
    ($t:ty, $n:expr) => {
        |d: &Device| -> BenchResult<Box<dyn Bench>> {
            let a = randn::<$t>(&[$n, $n], 1, d)?;
            let b = randn::<$t>(&[$n, $n], 2, d)?;
            call(move || la::matmul(&a, &b).map(drop))
        }
    };
}

const NO_CHECK: LuFactorOptions = LuFactorOptions {
    check_finite: false,
};

/// The CPU-only cases: the scaled cases of [`CPU_SCALED`], then the known gaps.
pub fn cpu_only_cases() -> Vec<Case> {
    vec![
        // ---- scaled suite cases (same calls as the suite's, smaller) ----
        case("linalg.matmul_f64_2048", 10, matmul_setup!(f64, 2048)),
        case("linalg.matmul_f32_2048", 10, matmul_setup!(f32, 2048)),
        case("linalg.solve_f64_2048", 10, |d| {
            let a = randn::<f64>(&[2048, 2048], 1, d)?;
            let b = randn::<f64>(&[2048, 16], 2, d)?;
            call(move || la::solve(&a, &b).map(drop))
        }),
        case("linalg.cholesky_f64_2048", 10, |d| {
            let m = randn::<f64>(&[2048, 2048], 1, d)?;
            let a =
                la::matmul(&m, &m.t())?.add(&Array::eye(2048, None, 0, d)?.mul_scalar(2048.0)?)?;
            call(move || la::cholesky(&a).map(drop))
        }),
        case("linalg.qr_f64_1024", 5, |d| {
            let a = randn::<f64>(&[1024, 1024], 1, d)?;
            call(move || la::qr(&a, QrMode::Reduced).map(drop))
        }),
        case("linalg.svd_f32_1024", 3, |d| {
            let a = randn::<f32>(&[1024, 1024], 1, d)?;
            call(move || la::svd(&a, SvdOptions::default()).map(drop))
        }),
        case("linalg.eigh_f64_1024", 3, |d| {
            let m = randn::<f64>(&[1024, 1024], 1, d)?;
            let a = m.add(&m.t())?;
            call(move || la::eigh(&a, true).map(drop))
        }),
        case("linalg.inv_f64_1024", 5, |d| {
            let a = randn::<f64>(&[1024, 1024], 1, d)?;
            call(move || la::inv(&a).map(drop))
        }),
        case("linalg.lu_factor_f64_2048", 5, |d| {
            let a = randn::<f64>(&[2048, 2048], 1, d)?;
            call(move || la::lu_factor(&a, NO_CHECK).map(drop))
        }),
        case("fft.rfftn_f32_256^3", 10, |d| {
            let x = randn::<f32>(&[256, 256, 256], 1, d)?;
            call(move || cusci::fft::rfftn(&x, &cusci::fft::FftnOptions::default()).map(drop))
        }),
        case("ndimage.convolve_f32_128^3_k5", 5, |d| {
            let x = randn::<f32>(&[128, 128, 128], 81, d)?;
            let k = randn::<f32>(&[5, 5, 5], 82, &Device::Cpu)?.astype::<f64>()?;
            call(move || ndi::convolve(&x, &k, &ndi::FilterOptions::default()).map(drop))
        }),
        // ---- the CPU's known gaps against SciPy (issue 34 §5) ----
        case("signal.sosfiltfilt_f64_64x65536_ord8", 5, |d| {
            let sos = sig::butter(
                8,
                &[0.1],
                &sig::IirOptions {
                    output: sig::Output::Sos,
                    ..Default::default()
                },
            )?
            .into_sos()?;
            let flat: Vec<f64> = sos.iter().flatten().copied().collect();
            let sos = Array::from_vec(flat, &[sos.len(), 6], &Device::Cpu)?;
            let x = randn::<f64>(&[64, 65536], 31, d)?;
            call(move || sig::sosfiltfilt(&sos, &x, &sig::FiltfiltOptions::default()).map(drop))
        }),
        case("ndimage.gaussian_filter_f32_2047_s4", 10, |d| {
            let x = randn::<f32>(&[2047, 2047], 81, d)?;
            call(move || {
                ndi::gaussian_filter(&x, &[4.0], &ndi::GaussianOptions::default()).map(drop)
            })
        }),
        case("ndimage.gaussian_filter_f64_1023_s3", 10, |d| {
            let x = randn::<f64>(&[1023, 1023], 81, d)?;
            call(move || {
                ndi::gaussian_filter(&x, &[3.0], &ndi::GaussianOptions::default()).map(drop)
            })
        }),
        case("ndimage.median_filter_f32_2048_s7", 5, |d| {
            let x = randn::<f32>(&[2048, 2048], 81, d)?;
            call(move || {
                ndi::median_filter(
                    &x,
                    &ndi::Footprint::Size(vec![7]),
                    &ndi::FilterOptions::default(),
                )
                .map(drop)
            })
        }),
        case("ndimage.percentile_filter_f64_1024_p30_s5", 5, |d| {
            let x = randn::<f64>(&[1024, 1024], 81, d)?;
            call(move || {
                ndi::percentile_filter(
                    &x,
                    30.0,
                    &ndi::Footprint::Size(vec![5]),
                    &ndi::FilterOptions::default(),
                )
                .map(drop)
            })
        }),
        case("ndimage.binary_erosion_1024", 10, |d| {
            let m = mask(1024, d)?;
            call(move || ndi::binary_erosion(&m, &ndi::BinaryOptions::default()).map(drop))
        }),
        case("ndimage.binary_dilation_1024_it5", 10, |d| {
            let m = mask(1024, d)?;
            call(move || {
                let o = ndi::BinaryOptions {
                    iterations: 5,
                    ..Default::default()
                };
                ndi::binary_dilation(&m, &o).map(drop)
            })
        }),
        case("ndimage.binary_fill_holes_1024", 10, |d| {
            let m = mask(1024, d)?;
            call(move || ndi::binary_fill_holes(&m, None, &[]).map(drop))
        }),
        case("ndimage.grey_dilation_f64_1024_s5", 10, |d| {
            let x = smooth(1024, d)?;
            call(move || {
                let o = ndi::GreyOptions {
                    size: Some(vec![5]),
                    ..Default::default()
                };
                ndi::grey_dilation(&x, &o).map(drop)
            })
        }),
        case("ndimage.white_tophat_f64_1024_s5", 10, |d| {
            let x = smooth(1024, d)?;
            call(move || {
                let o = ndi::GreyOptions {
                    size: Some(vec![5]),
                    ..Default::default()
                };
                ndi::white_tophat(&x, &o).map(drop)
            })
        }),
        case("ndimage.label_smooth_1024", 10, |d| {
            let m = mask(1024, d)?;
            call(move || ndi::label(&m, None).map(drop))
        }),
        case("ndimage.distance_transform_cdt_1024_chessboard", 10, |d| {
            let m = mask(1024, d)?;
            call(move || {
                ndi::distance_transform_cdt(&m, &ndi::CdtMetric::Chessboard, true, false).map(drop)
            })
        }),
    ]
}
