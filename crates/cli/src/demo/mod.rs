//! `cusci demo`: a list of stages, each run on the chosen device, validated against the CPU
//! reference, and summarised in one table.
//!
//! A stage is a function from the [`DemoContext`] to a [`StageReport`]; [`stages()`] lists them in
//! the order they run. A domain crate adds its stage by writing a module beside `montecarlo.rs`
//! (its function, its checks, its timings) and one line in [`stages()`]. A stage's counted
//! checks decide the exit status: 0 when every one passed, 1 when one failed, 2 on an error.

pub mod fft;
pub mod linalg;
pub mod montecarlo;
pub mod ndimage;
pub mod segment;
pub mod signal;
pub mod sparse;

use cusci::{Device, Result};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `cusci demo`.
#[derive(clap::Args, Debug, Clone)]
pub struct DemoArgs {
    /// Monte Carlo paths: a number, `2^K` or `1<<K` (at least 2).
    #[arg(long, default_value = "2^24", value_parser = parse_count)]
    pub paths: u64,
    /// Seed of the random streams (the same seed gives the same numbers on every device).
    #[arg(long, default_value_t = 1234)]
    pub seed: u64,
    /// `cpu`, `cuda` or `cuda:N` [default: CUSCI_DEVICE, else the first GPU, else the CPU].
    #[arg(long)]
    pub device: Option<String>,
    /// Run only the named stage(s) (repeatable). Stages: montecarlo, fft, sparse, linalg,
    /// segment, ndimage, signal.
    #[arg(long = "stage", value_name = "NAME")]
    pub stages: Vec<String>,
}

/// Parses a count written `16777216`, `16_777_216`, `2^24` or `1<<24`; at least 2.
pub fn parse_count(s: &str) -> std::result::Result<u64, String> {
    let t: String = s.trim().chars().filter(|&c| c != '_').collect();
    let pow = |base: &str, exp: &str| -> std::result::Result<u64, String> {
        let b: u64 = base.parse().map_err(|_| format!("{s:?} is not a count"))?;
        let e: u32 = exp.parse().map_err(|_| format!("{s:?} is not a count"))?;
        b.checked_pow(e)
            .ok_or_else(|| format!("{s} does not fit in 64 bits"))
    };
    let v = if let Some((b, e)) = t.split_once('^') {
        pow(b, e)?
    } else if let Some((a, k)) = t.split_once("<<") {
        let a: u64 = a.parse().map_err(|_| format!("{s:?} is not a count"))?;
        let k: u32 = k.parse().map_err(|_| format!("{s:?} is not a count"))?;
        a.checked_mul(pow("2", &k.to_string())?)
            .ok_or_else(|| format!("{s} does not fit in 64 bits"))?
    } else {
        t.parse::<u64>()
            .map_err(|_| format!("{s:?} is not a count (write 16777216, 2^24 or 1<<24)"))?
    };
    if v < 2 {
        return Err(format!(
            "{s} paths: at least 2 are needed for a standard error"
        ));
    }
    Ok(v)
}

/// What every stage gets.
pub struct DemoContext {
    /// The device the stages run on (the CPU reference always runs too).
    pub device: Device,
    /// When `device` is the CPU: why (no GPU, or the user's choice).
    pub cpu_only_reason: Option<String>,
    pub paths: u64,
    pub seed: u64,
    /// Show spinners (standard output is a terminal).
    pub progress: bool,
}

impl DemoContext {
    /// A spinner with `msg` and the elapsed time, drawn on standard error; hidden when standard
    /// output is not a terminal. Call `finish_and_clear()` on it when the work is done.
    pub fn spinner(&self, msg: String) -> ProgressBar {
        if !self.progress {
            return ProgressBar::hidden();
        }
        let pb = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("  {spinner} {msg} [{elapsed}]") {
            pb.set_style(style);
        }
        pb.set_message(msg);
        pb.enable_steady_tick(Duration::from_millis(100));
        pb
    }
}

/// One device's run of a stage.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// `cuda:0`, `cpu`.
    pub device: String,
    /// Wall-clock milliseconds of the timed call (kernel compilation excluded).
    pub ms: f64,
    /// Work items done (paths, samples, elements), for the throughput column.
    pub items: f64,
    /// Their name, plural (`paths`).
    pub unit: &'static str,
}

/// A check a stage made.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// Short name for the summary (`gpu=cpu`).
    pub name: String,
    /// Whether it held.
    pub passed: bool,
    /// Whether a failure fails the demo (false for informational checks).
    pub counts: bool,
    /// The numbers behind it.
    pub detail: String,
}

/// What a stage reports: the lines it printed, its timings and its checks.
#[derive(Debug, Clone, PartialEq)]
pub struct StageReport {
    pub name: &'static str,
    pub timings: Vec<Timing>,
    pub checks: Vec<Check>,
}

impl StageReport {
    /// True when no counted check failed.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.passed || !c.counts)
    }
}

/// A demo stage.
pub struct Stage {
    pub name: &'static str,
    pub about: &'static str,
    /// Runs the stage, printing its details as it goes.
    pub run: fn(&DemoContext) -> Result<StageReport>,
}

/// Every stage, in the order they run. Domain crates add theirs here.
pub fn stages() -> Vec<Stage> {
    vec![
        Stage {
            name: "montecarlo",
            about: "European call by Monte Carlo, checked against the CPU and Black–Scholes",
            run: montecarlo::run,
        },
        Stage {
            name: "fft",
            about: "power spectra of 1024 noisy signals × 65536 samples in one rfft call, checked against the CPU",
            run: fft::run,
        },
        Stage {
            name: "sparse",
            about: "2-D Poisson problem solved by conjugate gradients, checked against the CPU",
            run: sparse::run,
        },
        Stage {
            name: "linalg",
            about: "65536 small dense linear systems solved in one batched call, checked against the CPU",
            run: linalg::run,
        },
        Stage {
            name: "segment",
            about: "a smoothed-noise image thresholded, opened, labelled and measured (areas, centres, EDT), checked against the CPU",
            run: segment::run,
        },
        Stage {
            name: "ndimage",
            about: "a batch of images smoothed, edge-detected (Sobel) and rotated, checked against the CPU, with a before/after PNG",
            run: ndimage::run,
        },
        Stage {
            name: "signal",
            about: "noisy signals band-pass filtered (sosfilt), their Welch PSD and spectrogram, checked against the CPU, with PNGs",
            run: signal::run,
        },
    ]
}

/// `1.36 G` style figure.
pub fn si(x: f64) -> String {
    let (v, p) = match x.abs() {
        a if a >= 1e12 => (x / 1e12, "T"),
        a if a >= 1e9 => (x / 1e9, "G"),
        a if a >= 1e6 => (x / 1e6, "M"),
        a if a >= 1e3 => (x / 1e3, "k"),
        _ => (x, ""),
    };
    format!("{v:.2} {p}")
}

/// `n` as `2^k` when it is a power of two, else as is.
pub fn pretty_count(n: u64) -> String {
    if n.is_power_of_two() && n >= 1024 {
        format!("{n} (2^{})", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

/// The device to run on and, for the CPU, why.
fn choose_device(arg: Option<&str>) -> Result<(Device, Option<String>)> {
    let dev = match arg {
        Some(s) => Device::parse(s.trim())?,
        None => Device::auto()?,
    };
    if dev.is_cuda() {
        return Ok((dev, None));
    }
    let reason = if Device::cuda_count() == 0 {
        "no GPU: CPU reference only".to_string()
    } else if arg.is_some() {
        "CPU only (--device cpu): no GPU run to compare".to_string()
    } else if std::env::var("CUSCI_DEVICE").is_ok_and(|v| !v.trim().is_empty()) {
        "CPU only (CUSCI_DEVICE=cpu): no GPU run to compare".to_string()
    } else {
        match Device::cuda(0) {
            Err(e) => format!("the GPU cannot be used ({e}): CPU reference only"),
            Ok(_) => "CPU only".to_string(),
        }
    };
    Ok((dev, Some(reason)))
}

fn describe(dev: &Device) -> String {
    match dev.as_cuda() {
        Some(d) => {
            let p = d.props();
            let (ma, mi) = p.compute_capability;
            format!("{dev} ({}, sm_{ma}{mi}, {} SMs)", p.name, p.multiprocessors)
        }
        None => format!("cpu ({} rayon threads)", rayon::current_num_threads()),
    }
}

fn print_summary(reports: &[StageReport]) {
    println!();
    println!(
        "{:<12} {:<8} {:>12} {:>20}  checks",
        "stage", "device", "time", "throughput"
    );
    for r in reports {
        let checks: Vec<String> = r
            .checks
            .iter()
            .map(|c| {
                let verdict = match (c.passed, c.counts) {
                    (true, _) => "ok",
                    (false, true) => "FAILED",
                    (false, false) => "off (not counted)",
                };
                format!("{} {verdict}", c.name)
            })
            .collect();
        for (i, t) in r.timings.iter().enumerate() {
            let rate = if t.ms > 0.0 {
                format!("{}{}/s", si(t.items / (t.ms / 1e3)), t.unit)
            } else {
                "-".into()
            };
            let line = format!(
                "{:<12} {:<8} {:>9.3} ms {:>20}  {}",
                if i == 0 { r.name } else { "" },
                t.device,
                t.ms,
                rate,
                if i == 0 {
                    checks.join(", ")
                } else {
                    String::new()
                }
            );
            println!("{}", line.trim_end());
        }
        if r.timings.is_empty() {
            println!(
                "{:<12} {:<8} {:>12} {:>20}  {}",
                r.name,
                "-",
                "-",
                "-",
                checks.join(", ")
            );
        }
    }
}

/// Runs the demo; see the module documentation for the exit status.
pub fn run(args: &DemoArgs) -> ExitCode {
    let all = stages();
    for s in &args.stages {
        if !all.iter().any(|st| st.name == s) {
            let names: Vec<&str> = all.iter().map(|st| st.name).collect();
            eprintln!("error: no demo stage {s:?} (stages: {})", names.join(", "));
            return ExitCode::from(2);
        }
    }
    let (device, cpu_only_reason) = match choose_device(args.device.as_deref()) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let ctx = DemoContext {
        device,
        cpu_only_reason,
        paths: args.paths,
        seed: args.seed,
        progress: std::io::stdout().is_terminal(),
    };
    println!("cusci demo");
    println!("device: {}", describe(&ctx.device));
    if let Some(r) = &ctx.cpu_only_reason {
        println!("{r}");
    }
    let mut reports = Vec::new();
    let mut failed = false;
    for st in all
        .iter()
        .filter(|st| args.stages.is_empty() || args.stages.iter().any(|s| s == st.name))
    {
        println!();
        println!("== {}: {}", st.name, st.about);
        match (st.run)(&ctx) {
            Ok(r) => {
                failed |= !r.passed();
                reports.push(r);
            }
            Err(e) => {
                eprintln!("error: stage {}: {e}", st.name);
                return ExitCode::from(2);
            }
        }
    }
    print_summary(&reports);
    for r in &reports {
        for c in r.checks.iter().filter(|c| !c.passed && c.counts) {
            println!("{} {}: {}", r.name, c.name, c.detail);
        }
    }
    if failed {
        println!("\nvalidation FAILED");
        ExitCode::from(1)
    } else {
        println!("\nall checks passed");
        ExitCode::SUCCESS
    }
}

/// An 8-bit grey image `w × h` (rows top to bottom) as a PNG (the `png` crate's encoder).
pub fn write_grey_png(
    path: &std::path::Path,
    img: &[u8],
    w: usize,
    h: usize,
) -> std::io::Result<()> {
    if img.len() != w * h {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} pixels for a {w} x {h} image", img.len()),
        ));
    }
    let png = cusci::pipeline::io::encode_png(w as u32, h as u32, 1, img)
        .map_err(std::io::Error::other)?;
    std::fs::write(path, png)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grey_png_round_trip() {
        let path = std::env::temp_dir().join(format!("cusci-png-{}.png", std::process::id()));
        let img: Vec<u8> = (0..6).collect();
        super::write_grey_png(&path, &img, 3, 2).unwrap();
        let f = std::fs::File::open(&path).unwrap();
        let mut r = png::Decoder::new(std::io::BufReader::new(f))
            .read_info()
            .unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        std::fs::remove_file(&path).ok();
        assert_eq!((info.width, info.height), (3, 2));
        assert_eq!(info.color_type, png::ColorType::Grayscale);
        assert_eq!(&buf[..6], &img[..]);
        assert!(super::write_grey_png(&path, &img, 4, 2).is_err());
    }

    #[test]
    fn counts_parse() {
        assert_eq!(parse_count("65536"), Ok(65536));
        assert_eq!(parse_count("16_777_216"), Ok(1 << 24));
        assert_eq!(parse_count("2^24"), Ok(1 << 24));
        assert_eq!(parse_count("1<<20"), Ok(1 << 20));
        assert_eq!(parse_count("3<<2"), Ok(12));
        assert!(parse_count("1").is_err());
        assert!(parse_count("0").is_err());
        assert!(parse_count("2^64").is_err());
        assert!(parse_count("many").is_err());
        assert!(parse_count("-5").is_err());
    }

    #[test]
    fn figures() {
        assert_eq!(si(1.36e9), "1.36 G");
        assert_eq!(si(512.0), "512.00 ");
        assert_eq!(pretty_count(1 << 24), "16777216 (2^24)");
        assert_eq!(pretty_count(1000), "1000");
    }

    #[test]
    fn report_passes_unless_a_counted_check_fails() {
        let mut r = StageReport {
            name: "x",
            timings: vec![],
            checks: vec![Check {
                name: "info".into(),
                passed: false,
                counts: false,
                detail: String::new(),
            }],
        };
        assert!(r.passed());
        r.checks.push(Check {
            name: "real".into(),
            passed: false,
            counts: true,
            detail: String::new(),
        });
        assert!(!r.passed());
    }

    #[test]
    fn stage_names_are_unique() {
        let s = stages();
        let mut names: Vec<&str> = s.iter().map(|s| s.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), s.len());
    }
}
