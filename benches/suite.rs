//! The benchmark suite of `../shared/bench/CASES.md`: the project's side of the CuPy comparison.
//!
//! ```text
//! cargo bench --bench suite -- [--json PATH] [--filter SUBSTR] [--list] [--device cuda|cpu]
//! ```
//!
//! Each case builds its inputs on the GPU (random normal, from [`Generator`]), checks its own
//! result once against a CPU reference, runs the timed call three times to warm up (kernel
//! compilation and plan creation stay out), then times it `n_repeat` times between two CUDA
//! events recorded on the array's stream and keeps the median. Around each timed call it also
//! reads the host clock (`Instant` before and after `run()`, no synchronisation added: the time
//! the calling thread spends in the call, as `cupyx.profiler.benchmark`'s `cpu_times`) and keeps
//! its median, and it records the peak device memory of the case: the pool's high-water mark
//! ([`CudaDevice::peak_memory`]: live arrays plus the blocks the streams keep for reuse, as
//! CuPy's `MemoryPool.total_bytes()`) over the setup and over the warm-up and timed calls, the
//! check's own temporaries left out (the pool is emptied and the mark reset after the check).
//!
//! One JSON object per case is appended to `--json`:
//! `{"case", "impl": "cusci-cuda", "median_ms", "host_ms", "peak_bytes", "bytes", "flops"}`
//! (`median_ms` the GPU time, `host_ms` the host time per call, both medians in milliseconds;
//! `peak_bytes` the high-water mark in bytes, `null` where the driver does not give it; bytes and
//! flops as `cupy_ref.py` gives them), or `{"case", "impl", "error"}` when the case failed; the
//! run goes on. Without a GPU every selected case is recorded as an error, and the suite still
//! exits 0.
//!
//! `--device cpu` runs the cases on the CPU instead (`suite/cpu.rs`: inputs on the CPU device,
//! host-clock timing, `"impl": "cusci-cpu"`, the cubic linalg and 3-D cases scaled down, a
//! `--cpu-max-s` limit per call, CPU-only cases for the known gaps against SciPy);
//! `benches/cpu_vs_scipy.py` runs it at one thread and at all cores beside SciPy/NumPy.
//!
//! Adding a domain's cases: write `benches/suite/<domain>.rs` with `pub fn cases() -> Vec<Case>`
//! (one [`Case`] per line of CASES.md, each with a [`Bench`] implementation), declare it below
//! with `#[path]`, and extend [`all_cases`].

// the CLI's closed form, shared rather than copied (std only; its tests run with the CLI's)
#[path = "../crates/cli/src/blackscholes.rs"]
#[allow(dead_code, unused_imports)]
mod blackscholes;
#[path = "suite/core.rs"]
mod core_cases;
#[path = "suite/cpu.rs"]
mod cpu_cases;
#[path = "suite/fft.rs"]
mod fft_cases;
#[path = "suite/graph.rs"]
mod graph_cases;
#[path = "suite/linalg.rs"]
mod linalg_cases;
#[path = "suite/ndimage.rs"]
mod ndimage_cases;
#[path = "suite/signal.rs"]
mod signal_cases;
#[path = "suite/small.rs"]
mod small_cases;
#[path = "suite/sparse.rs"]
mod sparse_cases;

use cusci::core::random::Generator;
use cusci::core::{CudaDevice, Event};
use cusci::{Array, Device};
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

/// A case's error: a cusci error, or a failed check described in words.
pub type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// Warm-up calls before timing.
const WARMUP: usize = 3;
/// The least number of timed calls of any case.
const MIN_REPEAT: usize = 5;
/// Bytes in a MiB, for the printed peak.
const MIB: f64 = (1u64 << 20) as f64;

/// A case ready to run: inputs made, output preallocated.
pub trait Bench {
    /// Makes one call and checks its result against a reference (called once, before timing).
    fn check(&mut self) -> BenchResult<()>;
    /// The timed call: exactly what a user writes, output allocation included, no host transfer
    /// unless the call itself returns host data.
    fn run(&mut self) -> cusci::Result<()>;
}

/// One line of CASES.md.
pub struct Case {
    /// The case name, exactly as in CASES.md and cupy_ref.py.
    pub name: &'static str,
    /// Bytes the operation must move, as cupy_ref.py gives them (0 where it gives none).
    pub bytes: u64,
    /// Floating-point operations, as cupy_ref.py gives them (0 where it gives none).
    pub flops: u64,
    /// Timed calls (cupy_ref.py's `n_repeat` for the case, or more).
    pub n_repeat: usize,
    /// Makes the inputs on the device (not timed).
    pub setup: fn(&Device) -> BenchResult<Box<dyn Bench>>,
}

/// Every case of the suite, in CASES.md's order.
fn all_cases() -> Vec<Case> {
    // each domain crate appends its module's cases here
    let mut cases = core_cases::cases();
    cases.extend(fft_cases::cases());
    cases.extend(linalg_cases::cases());
    cases.extend(sparse_cases::cases());
    cases.extend(ndimage_cases::cases());
    cases.extend(ndimage_cases::morphology_cases());
    cases.extend(signal_cases::cases());
    // issue 34 (not in CASES.md; CuPy's side is benches/cupy_extra.py): small calls and odd
    // sizes, and a chain of calls replayed from a CUDA graph
    cases.extend(small_cases::cases());
    cases.extend(graph_cases::cases());
    cases
}

// ------------------------------------------------------------------------------------------
// helpers for the case modules
// ------------------------------------------------------------------------------------------

/// A standard normal f32 array of `n` elements on `dev`, from stream `seed` of the generator.
pub fn randn_f32(n: usize, seed: u64, dev: &Device) -> BenchResult<Array<f32>> {
    Ok(Generator::new(seed).standard_normal::<f32>(&[n], dev)?)
}

/// Elements `start..start + len` of a 1-D array, on the host.
pub fn host_range<T: cusci::core::Element>(
    a: &Array<T>,
    start: usize,
    len: usize,
) -> BenchResult<Vec<T>> {
    let end = (start + len).min(a.len());
    Ok(
        a.slice_axis(0, Some(start as isize), Some(end as isize), 1)?
            .to_vec()?,
    )
}

/// `Ok` when both slices hold the same bits; else where they first differ.
pub fn same_bits(what: &str, got: &[f32], want: &[f32], offset: usize) -> BenchResult<()> {
    if got.len() != want.len() {
        return Err(format!("{what}: {} values, expected {}", got.len(), want.len()).into());
    }
    match got
        .iter()
        .zip(want)
        .position(|(a, b)| a.to_bits() != b.to_bits())
    {
        None => Ok(()),
        Some(i) => Err(format!(
            "{what}: element {} is {:e}, expected {:e}",
            offset + i,
            got[i],
            want[i]
        )
        .into()),
    }
}

// ------------------------------------------------------------------------------------------
// the runner
// ------------------------------------------------------------------------------------------

struct Options {
    json: Option<String>,
    filter: Option<String>,
    list: bool,
    /// `--device cpu`: the CPU mode ([`cpu_cases`]); else CUDA
    cpu: cpu_cases::CpuOptions,
}

fn usage() -> ! {
    eprintln!(
        "usage: suite [--json PATH] [--filter SUBSTR] [--list] [--device cuda|cpu] \
         [--cpu-full] [--cpu-max-s S] [--cpu-check] [SUBSTR]"
    );
    std::process::exit(2)
}

fn parse_args() -> Options {
    let mut o = Options {
        json: None,
        filter: None,
        list: false,
        cpu: cpu_cases::CpuOptions::default(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--json" => o.json = Some(args.next().unwrap_or_else(|| usage())),
            "--filter" => o.filter = Some(args.next().unwrap_or_else(|| usage())),
            "--list" => o.list = true,
            "--device" => match args.next().as_deref() {
                Some("cpu") => o.cpu.on = true,
                Some("cuda") => o.cpu.on = false,
                _ => usage(),
            },
            "--cpu-full" => o.cpu.full = true,
            "--cpu-check" => o.cpu.check = true,
            "--cpu-max-s" => {
                o.cpu.max_s = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            // cargo bench passes --bench to harness-less targets
            "--bench" => {}
            "-h" | "--help" => usage(),
            s if s.starts_with("--json=") => o.json = Some(s["--json=".len()..].to_string()),
            s if s.starts_with("--filter=") => o.filter = Some(s["--filter=".len()..].to_string()),
            s if s.starts_with('-') => {
                eprintln!("suite: unknown option {s}");
                usage()
            }
            s => o.filter = Some(s.to_string()),
        }
    }
    o
}

/// Appends records to the `--json` file (if any).
struct Sink {
    file: Option<std::fs::File>,
}

impl Sink {
    fn write(&mut self, rec: serde_json::Value) {
        if let Some(f) = &mut self.file {
            if let Err(e) = writeln!(f, "{rec}").and_then(|_| f.flush()) {
                eprintln!("suite: cannot write the JSON record: {e}");
            }
        }
    }
}

fn error_record(case: &str, error: &str) -> serde_json::Value {
    serde_json::json!({"case": case, "impl": "cusci-cuda", "error": error})
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// What one case measured.
struct Timing {
    /// Median GPU time of a call (CUDA events), ms.
    gpu_ms: f64,
    /// Median host time of a call (the thread's wall clock around `run()`), ms.
    host_ms: f64,
    /// The pool's high-water mark over setup and calls, bytes (`None` where it cannot be read).
    peak_bytes: Option<usize>,
}

/// Sets up, checks, warms up and times one case.
fn time_case(case: &Case, dev: &Device, cuda: &CudaDevice) -> BenchResult<Timing> {
    // the mark of the setup: from an empty pool (the previous case's blocks given back)
    cuda.free_cached()?;
    let mut peak_ok = cuda.reset_peak_memory().is_ok();
    let mut bench = (case.setup)(dev)?;
    dev.synchronize()?;
    let setup_peak = cuda.peak_memory().ok();
    bench.check().map_err(|e| {
        // a cusci error (a kernel that does not compile, a device error) is reported as it is;
        // anything else is a result that the check found wrong
        if e.downcast_ref::<cusci::Error>().is_some() {
            e
        } else {
            format!("wrong result: {e}").into()
        }
    })?;
    // the check's temporaries (and the blocks kept from them) do not count: the mark of the
    // calls starts from the inputs alone
    cuda.free_cached()?;
    peak_ok &= cuda.reset_peak_memory().is_ok();
    for _ in 0..WARMUP {
        bench.run()?;
    }
    dev.synchronize()?;
    let start = Event::record(cuda)?;
    let end = Event::record(cuda)?;
    let n = case.n_repeat.max(MIN_REPEAT);
    let (mut times, mut host) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        start.rerecord(cuda)?;
        let t0 = Instant::now();
        bench.run()?;
        host.push(t0.elapsed().as_secs_f64() * 1e3);
        end.rerecord(cuda)?;
        times.push(start.elapsed_ms(&end)? as f64);
    }
    dev.synchronize()?;
    let run_peak = cuda.peak_memory().ok();
    let peak_bytes = match (peak_ok, setup_peak, run_peak) {
        (true, Some(a), Some(b)) => Some(a.max(b)),
        _ => None,
    };
    Ok(Timing {
        gpu_ms: median(times),
        host_ms: median(host),
        peak_bytes,
    })
}

/// Milliseconds rounded to a nanosecond, for the records.
fn round_ms(ms: f64) -> f64 {
    (ms * 1e6).round() / 1e6
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic".to_string()
    }
}

fn main() {
    let opts = parse_args();
    let all = if opts.cpu.on {
        cpu_cases::cpu_set(all_cases(), &opts.cpu)
    } else {
        all_cases()
    };
    let cases: Vec<Case> = all
        .into_iter()
        .filter(|c| opts.filter.as_deref().is_none_or(|f| c.name.contains(f)))
        .collect();
    if opts.list {
        for c in &cases {
            println!("{}", c.name);
        }
        return;
    }
    let mut sink = Sink {
        file: opts.json.as_ref().map(|p| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .unwrap_or_else(|e| {
                    eprintln!("suite: cannot open {p}: {e}");
                    std::process::exit(2)
                })
        }),
    };
    if cases.is_empty() {
        println!("# no case matches {:?}", opts.filter.unwrap_or_default());
        return;
    }
    if opts.cpu.on {
        cpu_cases::run_cpu(&cases, &opts.cpu, |rec| sink.write(rec));
        return;
    }

    let dev = match Device::auto() {
        Ok(Device::Cuda(d)) => Ok(d),
        Ok(Device::Cpu) => Err(match Device::cuda(0) {
            Err(e) => format!("no GPU: {e}"),
            Ok(_) => "no GPU: CUSCI_DEVICE chose the CPU".to_string(),
        }),
        Err(e) => Err(format!("no GPU: {e}")),
    };
    let cuda = match dev {
        Ok(d) => d,
        Err(why) => {
            println!(
                "# note: {why}; the suite times CUDA only, so every case is recorded as an error"
            );
            for c in &cases {
                println!("{:45} ERROR no GPU", c.name);
                sink.write(error_record(c.name, &why));
            }
            return;
        }
    };
    let p = cuda.props();
    println!(
        "# cusci {}, device {} (sm_{}{}, {} SMs), driver CUDA {}",
        env!("CARGO_PKG_VERSION"),
        p.name,
        p.compute_capability.0,
        p.compute_capability.1,
        p.multiprocessors,
        p.driver_version
    );
    let device = Device::Cuda(cuda.clone());
    println!(
        "{:45} {:>13} {:>13} {:>10}",
        "# case", "GPU (median)", "host (median)", "peak MiB"
    );
    for case in &cases {
        let res = catch_unwind(AssertUnwindSafe(|| time_case(case, &device, &cuda)));
        let rec = match res {
            Ok(Ok(t)) => {
                let ms = t.gpu_ms;
                let mut extra = String::new();
                if case.bytes > 0 {
                    extra += &format!("  {:8.1} GB/s", case.bytes as f64 / ms / 1e6);
                }
                if case.flops > 0 {
                    extra += &format!("  {:9.3} TFLOP/s", case.flops as f64 / ms / 1e9);
                }
                let peak = t
                    .peak_bytes
                    .map_or("-".to_string(), |b| format!("{:.2}", b as f64 / MIB));
                println!(
                    "{:45} {ms:10.3} ms {:10.4} ms {peak:>10}{extra}",
                    case.name, t.host_ms
                );
                serde_json::json!({
                    "case": case.name,
                    "impl": "cusci-cuda",
                    "median_ms": round_ms(ms),
                    "host_ms": round_ms(t.host_ms),
                    "peak_bytes": t.peak_bytes,
                    "bytes": case.bytes,
                    "flops": case.flops,
                })
            }
            Ok(Err(e)) => {
                let msg: String = e.to_string().chars().take(300).collect();
                println!("{:45} ERROR {msg}", case.name);
                error_record(case.name, &msg)
            }
            Err(p) => {
                let msg: String = format!("panic: {}", panic_text(p))
                    .chars()
                    .take(300)
                    .collect();
                println!("{:45} ERROR {msg}", case.name);
                error_record(case.name, &msg)
            }
        };
        sink.write(rec);
        // as CuPy frees its pool between cases: the next case starts with the memory free
        let _ = cuda.free_cached();
    }
}
