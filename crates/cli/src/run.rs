//! `cusci run PIPELINE.toml`: a [`cusci::pipeline`] description run over its files.
//!
//! Reader threads (`--jobs`) read and decode the next files into a bounded channel while the
//! batches compute; the files of a batch (`--batch`) with one shape are stacked into one
//! array, moved to the device once and run through every stage (one call per stage where the
//! function takes a batch axis); the outputs are written atomically (temporary file + rename)
//! by a writer thread.
//!
//! The batches are spread over streams (`--streams`, two per GPU by default), each a thread
//! with its own CUDA stream and page-locked staging buffer: while one stream's batch is being
//! stacked, copied in or copied back, another's kernels run, so the GPU is not idle while data
//! moves. `--devices all` spreads the streams over every local GPU (a
//! [`cusci::dist::Cluster`]'s workers); which stream runs a file never changes its results.
//! A file that cannot be read, does not fit the pipeline or cannot be written is reported (file
//! and stage) and skipped; the run goes on, and the exit status is 1 when some file failed.

use cusci::core::cuda::memory::PinnedVec;
use cusci::core::npy::DynArray;
use cusci::core::{Backend, Element};
use cusci::pipeline::io::{output_path, read_file, write_output, FileInfo};
use cusci::pipeline::{CompiledOutput, Data, Pipeline, PipelineError, Plan};
use cusci::{Array, Device, Error};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Instant;

/// The arguments of `cusci run`.
#[derive(clap::Args, Debug, Clone)]
pub struct RunArgs {
    /// The pipeline description (TOML); its input glob is relative to its folder.
    pub pipeline: PathBuf,
    /// Where the computation runs: cpu, gpu or auto (the GPU when one is usable).
    #[arg(long, default_value = "auto")]
    pub device: String,
    /// Several GPUs: `all` (every visible GPU; the CPU when there is none) or their numbers
    /// (`0,1`). Overrides `--device`.
    #[arg(long)]
    pub devices: Option<String>,
    /// Streams per device, each running its own batch (one batch's copies overlap another's
    /// kernels). Default: 2 on a GPU, 1 on the CPU.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=16))]
    pub streams: Option<u64>,
    /// Files per batch: the same-shaped files of a batch run as one array. Default: on a GPU,
    /// what a sixth of its free memory holds of the largest stage result (1 to 256); on the CPU, 8.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub batch: Option<u64>,
    /// Reader threads that read and decode the next files while a batch computes.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: u64,
    /// The output folder (created when missing).
    #[arg(long, default_value = "out")]
    pub out: PathBuf,
    /// Re-runs K random files on the CPU reference and reports the largest differences per stage.
    #[arg(long, default_value_t = 0)]
    pub validate: usize,
    /// Prints the plan (stages, shapes, bytes per batch) and stops.
    #[arg(long)]
    pub dry_run: bool,
    /// Skips the files whose outputs all exist already.
    #[arg(long)]
    pub resume: bool,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
}

impl RunArgs {
    /// The arguments with their defaults for `pipeline`, writing to `out`.
    pub fn new(pipeline: &Path, out: &Path) -> RunArgs {
        RunArgs {
            pipeline: pipeline.to_path_buf(),
            device: "auto".into(),
            devices: None,
            streams: None,
            batch: None,
            jobs: 2,
            out: out.to_path_buf(),
            validate: 0,
            dry_run: false,
            resume: false,
            quiet: true,
        }
    }
}

/// A file that failed: where and why.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The input file.
    pub file: PathBuf,
    /// `read`, `write` or `stage i (fn)`.
    pub stage: String,
    /// The message.
    pub message: String,
}

/// One stage's largest GPU-against-CPU differences over the validated files.
#[derive(Clone, Debug, Default)]
pub struct StageDiff {
    /// The stage's name.
    pub stage: String,
    /// The largest absolute difference.
    pub max_abs: f64,
    /// The largest absolute difference over the largest reference magnitude.
    pub max_rel: f64,
    /// A structural difference (shape, number of rows), if any.
    pub mismatch: Option<String>,
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Files matched by the glob.
    pub files: usize,
    /// Files run and written.
    pub done: usize,
    /// Files skipped by `--resume` (outputs complete).
    pub skipped: usize,
    /// Files that failed.
    pub failed: Vec<Failure>,
    /// Bytes of the input files read.
    pub bytes_in: u64,
    /// Bytes written.
    pub bytes_out: u64,
    /// Seconds per stage (name, seconds), summed over batches (and over streams: with several
    /// streams the sum can exceed the wall-clock time).
    pub stage_s: Vec<(String, f64)>,
    /// Seconds stacking batches and moving them to the device and the results back.
    pub upload_s: f64,
    /// Seconds encoding and writing outputs (on the writer thread, beside the computation).
    pub write_s: f64,
    /// Wall-clock seconds.
    pub wall_s: f64,
    /// The device's description.
    pub device: String,
    /// The streams that ran batches (over every device).
    pub streams: usize,
    /// `--validate`'s per-stage differences.
    pub validation: Vec<StageDiff>,
    /// The validated files.
    pub validated: Vec<PathBuf>,
}

fn device(arg: &str) -> Result<Device, String> {
    match arg {
        "cpu" => Ok(Device::cpu()),
        "gpu" | "cuda" => Device::cuda(0).map_err(|e| format!("--device gpu: {e}")),
        "auto" => Device::auto().map_err(|e| format!("--device auto: {e}")),
        o => Err(format!("--device {o:?}: use cpu, gpu or auto")),
    }
}

/// The streams a run spreads its batches over: `--devices` (or `--device`) times `--streams`,
/// as the workers of a local [`cusci::dist::Cluster`] (each its own stream on a GPU).
fn streams(args: &RunArgs) -> Result<Vec<Device>, String> {
    let devices = match args.devices.as_deref() {
        None => vec![device(&args.device)?],
        Some("all") => Vec::new(),
        Some(list) => list
            .split(',')
            .map(|s| {
                let i: usize = s.trim().parse().map_err(|_| {
                    format!("--devices {list:?}: use all or GPU numbers such as 0,1")
                })?;
                Device::cuda(i).map_err(|e| format!("--devices: GPU {i}: {e}"))
            })
            .collect::<Result<_, _>>()?,
    };
    let gpu = devices
        .first()
        .map_or(Device::cuda_count() > 0, |d| d.is_cuda());
    let per = args.streams.unwrap_or(if gpu { 2 } else { 1 }) as usize;
    let c = cusci::dist::Cluster::with_options(&cusci::dist::LocalOptions {
        devices,
        workers_per_device: per,
    })
    .map_err(|e| format!("--devices: {e}"))?;
    Ok(c.devices().to_vec())
}

/// `cusci run`: runs and prints the summary; exit status 0 (every file done), 1 (some failed),
/// 2 (the pipeline or the command line is wrong, nothing was run).
pub fn run(args: &RunArgs) -> ExitCode {
    match execute(args) {
        Ok(None) => ExitCode::SUCCESS,
        Ok(Some(s)) => {
            print_summary(&s);
            if s.failed.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("cusci run: {e}");
            ExitCode::from(2)
        }
    }
}

/// Loads and checks the pipeline: the plan and its files.
pub fn load(path: &Path) -> Result<(Plan, Vec<PathBuf>), String> {
    let (p, base) = Pipeline::from_file(path).map_err(|e| e.to_string())?;
    let plan = p.compile(base).map_err(|e| e.to_string())?;
    let files = plan.files().map_err(|e| e.to_string())?;
    Ok((plan, files))
}

/// The run behind `cusci run`: `Ok(None)` after `--dry-run`, else the summary (files that failed
/// are in it); `Err` when nothing could be run (a wrong pipeline, no file, an output folder that
/// cannot be written, no device).
pub fn execute(args: &RunArgs) -> Result<Option<Summary>, String> {
    let t0 = Instant::now();
    let (plan, files) = load(&args.pipeline)?;
    if files.is_empty() {
        return Err(format!(
            "no file matches {:?} (relative to {})",
            plan.pipeline.input.glob,
            plan.base.display()
        ));
    }
    let lanes = streams(args)?;
    let dev = lanes[0].clone();
    // the chain on a zero array of a file's shape, before any data moves: the first readable
    // file's shape, or (when that shape cannot flow) the next of up to 4 distinct shapes; the
    // files of a shape that cannot flow are then reported one by one
    let mut tried: Vec<Vec<usize>> = Vec::new();
    let mut probed = None;
    let mut first_err = None;
    for f in &files {
        if tried.len() >= 4 {
            break;
        }
        let Ok((a, _)) = read_file(f, &plan.pipeline.input, plan.dtype) else {
            continue;
        };
        let shape = a.shape().to_vec();
        if tried.contains(&shape) {
            continue;
        }
        tried.push(shape.clone());
        match plan.probe(&shape) {
            Ok(s) => {
                probed = Some((shape, s));
                break;
            }
            Err(e) => {
                first_err.get_or_insert(format!("{}: {e}", f.display()));
            }
        }
    }
    let (shape, shapes) = match (probed, first_err) {
        (Some(p), _) => p,
        (None, Some(e)) => return Err(e),
        (None, None) => return Err("no input file can be read".to_string()),
    };
    let batch = match args.batch {
        Some(b) => b as usize,
        None => default_batch(&lanes, &shape, &shapes, plan.dtype),
    };
    if args.dry_run {
        print_plan(&plan, &files, &shape, &shapes, batch, &lanes);
        return Ok(None);
    }
    // the output folder: created, and shown writable before anything runs
    std::fs::create_dir_all(&args.out).map_err(|e| {
        format!(
            "the output folder {} cannot be created: {e}",
            args.out.display()
        )
    })?;
    let probe = args
        .out
        .join(format!(".cusci-write-test{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| {
        format!(
            "the output folder {} is not writable: {e}",
            args.out.display()
        )
    })?;
    let _ = std::fs::remove_file(&probe);
    remove_stale_temporaries(&plan, &args.out);

    let mut sum = Summary {
        files: files.len(),
        device: describe(&lanes),
        streams: lanes.len(),
        stage_s: plan.stages.iter().map(|s| (s.name.clone(), 0.0)).collect(),
        ..Default::default()
    };
    let todo: Vec<PathBuf> = files
        .iter()
        .filter(|f| {
            let done = args.resume
                && plan
                    .outputs
                    .iter()
                    .all(|o| output_path(&args.out, f, o).is_file());
            if done {
                sum.skipped += 1;
            }
            !done
        })
        .cloned()
        .collect();
    let total_bytes: u64 = todo
        .iter()
        .map(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0))
        .sum();
    let (bar_files, bar_bytes) = bars(args.quiet, todo.len() as u64, total_bytes);

    // reader threads: the next files, decoded, through a bounded channel
    let todo = Arc::new(todo);
    let next = Arc::new(AtomicUsize::new(0));
    type Msg = (usize, Result<(DynArray, FileInfo), PipelineError>);
    let (tx, rx) = mpsc::sync_channel::<Msg>(2 * batch);
    let mut readers = Vec::new();
    for _ in 0..args.jobs.min(todo.len().max(1) as u64) {
        let (todo, next, tx) = (todo.clone(), next.clone(), tx.clone());
        let input = plan.pipeline.input.clone();
        let cd = plan.dtype;
        readers.push(std::thread::spawn(move || loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= todo.len() {
                break;
            }
            let r = read_file(&todo[i], &input, cd);
            if tx.send((i, r)).is_err() {
                break;
            }
        }));
    }
    drop(tx);

    // the writer thread: encodes and writes while the next batch computes
    let (wtx, wrx) = mpsc::sync_channel::<WriteJob>(2 * batch);
    let wthread = std::thread::spawn(move || writer(wrx));
    // the streams: each takes the next batch, runs it and hands its outputs to the writer
    let (btx, brx) = mpsc::sync_channel::<Vec<(usize, DynArray)>>(lanes.len());
    let brx = std::sync::Mutex::new(brx);
    let plan = &plan;
    let parts = std::thread::scope(|s| {
        let handles: Vec<_> = lanes
            .iter()
            .map(|lane| {
                let (brx, bar) = (&brx, bar_files.clone());
                let mut lane = Lane {
                    plan,
                    dev: lane,
                    staging: Staging::default(),
                    todo: &todo[..],
                    out: &args.out,
                    writer: wtx.clone(),
                };
                s.spawn(move || {
                    let mut part = Summary {
                        stage_s: plan.stages.iter().map(|s| (s.name.clone(), 0.0)).collect(),
                        ..Default::default()
                    };
                    if let Some(d) = lane.dev.as_cuda() {
                        let _ = d.bind();
                    }
                    loop {
                        // the lock is held only while waiting for the next batch
                        let next = match brx.lock() {
                            Ok(rx) => rx.recv(),
                            Err(_) => break,
                        };
                        let Ok(b) = next else { break };
                        let n = b.len() as u64;
                        lane.run_batch(b, &mut part);
                        bar.inc(n);
                    }
                    part
                })
            })
            .collect();
        let mut pending: Vec<(usize, DynArray)> = Vec::new();
        let mut received = 0;
        while received < todo.len() {
            let Ok((i, r)) = rx.recv() else { break };
            received += 1;
            match r {
                Ok((a, info)) => {
                    sum.bytes_in += info.bytes;
                    bar_bytes.inc(info.bytes);
                    pending.push((i, a));
                }
                Err(e) => {
                    bar_bytes.inc(std::fs::metadata(&todo[i]).map(|m| m.len()).unwrap_or(0));
                    bar_files.inc(1);
                    sum.failed.push(failure(&todo[i], &e));
                }
            }
            let full = pending.len() >= batch || (received == todo.len() && !pending.is_empty());
            if full && btx.send(std::mem::take(&mut pending)).is_err() {
                break;
            }
        }
        drop(btx);
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .map_err(|_| "a stream's thread panicked".to_string())
            })
            .collect::<Result<Vec<Summary>, String>>()
    })?;
    for p in parts {
        for (k, (_, t)) in p.stage_s.iter().enumerate() {
            sum.stage_s[k].1 += t;
        }
        sum.upload_s += p.upload_s;
        sum.failed.extend(p.failed);
    }
    for r in readers {
        let _ = r.join();
    }
    drop(wtx);
    let w = wthread
        .join()
        .map_err(|_| "the writer thread panicked".to_string())?;
    sum.done += w.done;
    sum.failed.extend(w.failed);
    sum.bytes_out += w.bytes;
    sum.write_s += w.seconds;
    bar_files.finish_and_clear();
    bar_bytes.finish_and_clear();
    sum.failed.sort_by(|a, b| a.file.cmp(&b.file));
    if args.validate > 0 {
        let (v, f) = validate(plan, &dev, &files, &sum, args.validate)?;
        sum.validation = v;
        sum.validated = f;
    }
    sum.wall_s = t0.elapsed().as_secs_f64();
    Ok(Some(sum))
}

/// Removes the temporary files an interrupted run left (`.<stem>.<name>.<format>.tmp<pid>`,
/// for this pipeline's outputs only).
fn remove_stale_temporaries(plan: &Plan, out: &Path) {
    let suffixes: Vec<String> = plan
        .outputs
        .iter()
        .map(|o| format!(".{}.{}", o.name, o.extension()))
        .collect();
    let Ok(rd) = std::fs::read_dir(out) else {
        return;
    };
    for e in rd.flatten() {
        let n = e.file_name().to_string_lossy().to_string();
        let Some(rest) = n.strip_prefix('.') else {
            continue;
        };
        let Some(pos) = rest.rfind(".tmp") else {
            continue;
        };
        let (base, tail) = rest.split_at(pos);
        let pid = &tail[4..];
        if !pid.is_empty()
            && pid.chars().all(|c| c.is_ascii_digit())
            && suffixes.iter().any(|s| base.ends_with(s.as_str()))
            && e.path().is_file()
        {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// `--batch`'s default: on a GPU, a sixth of the free memory, shared by the streams on it, over
/// the largest per-file stage result (1 to 256 files); on the CPU, 8.
fn default_batch(
    lanes: &[Device],
    shape: &[usize],
    shapes: &[cusci::pipeline::StageShape],
    cd: cusci::pipeline::ComputeDType,
) -> usize {
    let el = match cd {
        cusci::pipeline::ComputeDType::F32 => 4,
        cusci::pipeline::ComputeDType::F64 => 8,
    };
    let peak = shapes
        .iter()
        .map(|s| s.bytes)
        .fold(shape.iter().product::<usize>() * el, usize::max)
        .max(1);
    let ordinal = |d: &Device| d.as_cuda().map(|c| c.ordinal());
    let per = lanes
        .iter()
        .filter(|d| ordinal(d) == ordinal(&lanes[0]))
        .count();
    match lanes[0].as_cuda().and_then(|d| d.memory_info().ok()) {
        Some(m) => (m.free / 6 / per / peak).clamp(1, 256),
        None => 8,
    }
}

fn failure(file: &Path, e: &PipelineError) -> Failure {
    Failure {
        file: file.to_path_buf(),
        stage: e.where_(),
        message: match &e.arg {
            Some(a) => format!("argument `{a}`: {}", e.message),
            None => e.message.clone(),
        },
    }
}

fn bars(quiet: bool, files: u64, bytes: u64) -> (ProgressBar, ProgressBar) {
    if quiet {
        return (ProgressBar::hidden(), ProgressBar::hidden());
    }
    let m = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
    let f = m.add(ProgressBar::new(files));
    f.set_style(
        ProgressStyle::with_template("files {bar:30} {pos}/{len} {per_sec} eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let b = m.add(ProgressBar::new(bytes));
    b.set_style(
        ProgressStyle::with_template("bytes {bar:30} {bytes}/{total_bytes} {bytes_per_sec}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    (f, b)
}

/// A stream's page-locked staging buffers (one per compute dtype, grown as needed): a batch is
/// stacked straight into one and copied to the device from there, at full bus speed.
#[derive(Default)]
struct Staging {
    f32: Option<PinnedVec<f32>>,
    f64: Option<PinnedVec<f64>>,
}

/// Stacks same-shaped host arrays into one `(k, ...)` array on `dev` (through `staging` on a GPU;
/// `None`: a plain host vector).
fn stack(
    parts: &[&DynArray],
    dev: &Device,
    staging: Option<&mut Staging>,
) -> cusci::Result<DynArray> {
    let mut shape = vec![parts.len()];
    shape.extend_from_slice(parts[0].shape());
    Ok(match parts[0] {
        DynArray::F32(_) => {
            DynArray::from(stack_as(parts, &shape, dev, staging.map(|s| &mut s.f32))?)
        }
        _ => DynArray::from(stack_as(parts, &shape, dev, staging.map(|s| &mut s.f64))?),
    })
}

fn arg_error(detail: &str) -> Error {
    Error::InvalidArgument {
        op: "cusci run".into(),
        detail: detail.into(),
    }
}

fn stack_as<T: Element>(
    parts: &[&DynArray],
    shape: &[usize],
    dev: &Device,
    slot: Option<&mut Option<PinnedVec<T>>>,
) -> cusci::Result<Array<T>> {
    let n: usize = shape.iter().product();
    let mut host: Vec<Cow<'_, [T]>> = Vec::with_capacity(parts.len());
    for p in parts {
        let a = p
            .as_array::<T>()
            .ok_or_else(|| arg_error("the files of a batch have one dtype"))?;
        match a.backend() {
            Backend::Host(h) => host.push(h.try_to_contiguous()?),
            Backend::Cuda(_) => return Err(arg_error("files are read on the host")),
        }
    }
    if let (Some(cuda), Some(slot)) = (dev.as_cuda(), slot) {
        if slot.as_ref().is_none_or(|b| b.len() < n) {
            *slot = None;
            // no page-locked memory to be had: the plain path below
            *slot = PinnedVec::zeroed(cuda, n).ok();
        }
        if let Some(buf) = slot.as_mut() {
            let mut off = 0;
            for h in &host {
                buf[off..off + h.len()].copy_from_slice(h);
                off += h.len();
            }
            return Array::from_slice(&buf[..n], shape, dev);
        }
    }
    let mut v: Vec<T> = Vec::with_capacity(n);
    for h in &host {
        v.extend_from_slice(h);
    }
    Array::from_vec(v, shape, &Device::cpu())?.to_device(dev)
}

/// One stream of a run: its device handle (its own CUDA stream), its staging buffers, and where
/// its outputs go.
struct Lane<'a> {
    plan: &'a Plan,
    dev: &'a Device,
    staging: Staging,
    todo: &'a [PathBuf],
    out: &'a Path,
    writer: mpsc::SyncSender<WriteJob>,
}

impl Lane<'_> {
    /// Runs one batch: groups by shape, one stacked run per group; a group that fails is run
    /// file by file so that the failure names its file.
    fn run_batch(&mut self, b: Vec<(usize, DynArray)>, sum: &mut Summary) {
        let mut groups: BTreeMap<Vec<usize>, Vec<(usize, DynArray)>> = BTreeMap::new();
        for (i, a) in b {
            groups.entry(a.shape().to_vec()).or_default().push((i, a));
        }
        for (_, g) in groups {
            if self.run_group(&g, sum).is_err() && g.len() > 1 {
                for one in &g {
                    let _ = self.run_group(std::slice::from_ref(one), sum);
                }
            }
        }
    }

    /// Runs one same-shaped group; records a failure only for a single file (a larger group
    /// that fails is retried file by file).
    fn run_group(&mut self, g: &[(usize, DynArray)], sum: &mut Summary) -> Result<(), ()> {
        let (plan, dev, todo, out, writer) =
            (self.plan, self.dev, self.todo, self.out, &self.writer);
        let t = Instant::now();
        let parts: Vec<&DynArray> = g.iter().map(|(_, a)| a).collect();
        let x = match stack(&parts, dev, Some(&mut self.staging)) {
            Ok(x) => x,
            Err(e) => {
                if g.len() == 1 {
                    sum.failed.push(Failure {
                        file: todo[g[0].0].clone(),
                        stage: "upload".into(),
                        message: e.to_string(),
                    });
                }
                return Err(());
            }
        };
        sum.upload_s += t.elapsed().as_secs_f64();
        let cusci::pipeline::Applied {
            input,
            vals: vals_st,
            times,
        } = match plan.apply(x, true, false) {
            Ok(r) => r,
            Err(f) => {
                if g.len() == 1 {
                    sum.failed.push(Failure {
                        file: todo[g[0].0].clone(),
                        stage: plan.label(f.stage),
                        message: f.error.to_string(),
                    });
                }
                return Err(());
            }
        };
        for (k, t) in times.iter().enumerate() {
            sum.stage_s[k].1 += t;
        }
        // each file's outputs, copied to the host here, encoded and written by the writer thread
        let t = Instant::now();
        for (pos, (i, _)) in g.iter().enumerate() {
            let file = &todo[*i];
            let mut job = WriteJob {
                file: file.clone(),
                outputs: Vec::new(),
            };
            let mut bad = None;
            for o in &plan.outputs {
                let mut vals = Vec::new();
                let mut names = Vec::new();
                for &j in &o.from {
                    let (d, n) = if j == usize::MAX {
                        (&input, "input".to_string())
                    } else {
                        (vals_all(&vals_st, j), plan.stages[j].name.clone())
                    };
                    match file_on_host(d, pos) {
                        Ok(h) => vals.push(h),
                        Err(e) => bad = Some(e.to_string()),
                    }
                    names.push(n);
                }
                job.outputs
                    .push((output_path(out, file, o), o.clone(), names, vals));
            }
            match bad {
                Some(m) => sum.failed.push(Failure {
                    file: file.clone(),
                    stage: "download".into(),
                    message: m,
                }),
                None => {
                    if writer.send(job).is_err() {
                        sum.failed.push(Failure {
                            file: file.clone(),
                            stage: "write".into(),
                            message: "the writer thread stopped".into(),
                        });
                    }
                }
            }
        }
        sum.upload_s += t.elapsed().as_secs_f64();
        Ok(())
    }
}

fn vals_all(vals: &[Option<Data>], j: usize) -> &Data {
    vals[j].as_ref().expect("outputs' stages are kept")
}

/// File `i`'s value as a one-file value on the host.
fn file_on_host(d: &Data, i: usize) -> cusci::Result<Data> {
    let cpu = Device::cpu();
    Ok(match d {
        Data::Labels(v) => Data::Labels(vec![(v[i].0.to_device(&cpu)?, v[i].1)]),
        Data::Tables(v) => Data::Tables(vec![v[i].clone()]),
        other => Data::Parts(vec![other.part(i)?.expect("an array").to_device(&cpu)?]),
    })
}

/// One file's outputs: (path, output, stage names, one-file host values).
struct WriteJob {
    file: PathBuf,
    outputs: Vec<(PathBuf, CompiledOutput, Vec<String>, Vec<Data>)>,
}

/// What the writer thread did.
#[derive(Default)]
struct Written {
    done: usize,
    failed: Vec<Failure>,
    bytes: u64,
    seconds: f64,
}

/// The writer thread: encodes and writes every job's outputs (atomically), in order.
fn writer(rx: mpsc::Receiver<WriteJob>) -> Written {
    let mut w = Written::default();
    for job in rx {
        let t = Instant::now();
        let mut ok = true;
        for (path, o, names, vals) in &job.outputs {
            let refs: Vec<&Data> = vals.iter().collect();
            match write_output(path, o, names, &refs, 0) {
                Ok(n) => w.bytes += n,
                Err(e) => {
                    let mut f = failure(&job.file, &e);
                    f.message = format!("{}: {}", path.display(), f.message);
                    w.failed.push(f);
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            w.done += 1;
        }
        w.seconds += t.elapsed().as_secs_f64();
    }
    w
}

/// The per-stage differences between `dev` and the CPU on up to `k` files that were done.
fn validate(
    plan: &Plan,
    dev: &Device,
    files: &[PathBuf],
    sum: &Summary,
    k: usize,
) -> Result<(Vec<StageDiff>, Vec<PathBuf>), String> {
    let ok: Vec<&PathBuf> = files
        .iter()
        .filter(|f| !sum.failed.iter().any(|x| &x.file == *f))
        .collect();
    // a fixed pseudo-random choice (the same files on every run of the same set)
    let mut idx: Vec<usize> = (0..ok.len()).collect();
    let mut s: u64 = 0x9E37_79B9_7F4A_7C15 ^ ok.len() as u64;
    for i in (1..idx.len()).rev() {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        idx.swap(i, (s >> 33) as usize % (i + 1));
    }
    let chosen: Vec<PathBuf> = idx.iter().take(k).map(|&i| ok[i].clone()).collect();
    let mut diffs: Vec<StageDiff> = plan
        .stages
        .iter()
        .map(|s| StageDiff {
            stage: s.name.clone(),
            ..Default::default()
        })
        .collect();
    let cpu = Device::cpu();
    for f in &chosen {
        let (a, _) = read_file(f, &plan.pipeline.input, plan.dtype).map_err(|e| e.to_string())?;
        let run = |d: &Device| -> Result<Vec<Option<Data>>, String> {
            let x = stack(&[&a], d, None).map_err(|e| e.to_string())?;
            plan.apply(x, true, true)
                .map(|r| r.vals)
                .map_err(|e| format!("{}: {}: {}", f.display(), plan.label(e.stage), e.error))
        };
        let on_dev = run(dev)?;
        let on_cpu = run(&cpu)?;
        for (k, (x, y)) in on_dev.iter().zip(&on_cpu).enumerate() {
            let (Some(x), Some(y)) = (x, y) else { continue };
            compare(x, y, &mut diffs[k]);
        }
    }
    Ok((diffs, chosen))
}

fn compare(x: &Data, y: &Data, d: &mut StageDiff) {
    let (a, b): (Vec<f64>, Vec<f64>) = match (x.table(0), y.table(0)) {
        (Some(tx), Some(ty)) => {
            if tx.rows.len() != ty.rows.len() {
                d.mismatch = Some(format!(
                    "{} rows against {} on the CPU",
                    tx.rows.len(),
                    ty.rows.len()
                ));
                return;
            }
            (tx.rows.concat(), ty.rows.concat())
        }
        _ => {
            let (Ok(Some(px)), Ok(Some(py))) = (x.part(0), y.part(0)) else {
                return;
            };
            if px.shape() != py.shape() {
                d.mismatch = Some(format!(
                    "shape {:?} against {:?} on the CPU",
                    px.shape(),
                    py.shape()
                ));
                return;
            }
            match (
                cusci::pipeline::host_values(&px),
                cusci::pipeline::host_values(&py),
            ) {
                (Ok(a), Ok(b)) => (a, b),
                _ => return,
            }
        }
    };
    let scale = b.iter().fold(
        0.0f64,
        |m, v| if v.is_finite() { m.max(v.abs()) } else { m },
    );
    for (p, q) in a.iter().zip(&b) {
        if p.is_nan() && q.is_nan() {
            continue;
        }
        let e = (p - q).abs();
        let e = if e.is_nan() { f64::INFINITY } else { e };
        d.max_abs = d.max_abs.max(e);
        if scale > 0.0 {
            d.max_rel = d.max_rel.max(e / scale);
        }
    }
}

/// The devices of a run and their streams, e.g. `cpu`, `cuda:0 (2 streams)`.
fn describe(lanes: &[Device]) -> String {
    let mut seen: Vec<(String, usize)> = Vec::new();
    for d in lanes {
        let name = match d.as_cuda() {
            Some(c) => format!("cuda:{}", c.ordinal()),
            None => "cpu".into(),
        };
        match seen.iter_mut().find(|(n, _)| *n == name) {
            Some((_, k)) => *k += 1,
            None => seen.push((name, 1)),
        }
    }
    seen.iter()
        .map(|(n, k)| match k {
            1 => n.clone(),
            k => format!("{n} ({k} streams)"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn human(b: f64) -> String {
    let u = ["B", "KB", "MB", "GB", "TB"];
    let mut v = b;
    let mut i = 0;
    while v >= 1000.0 && i + 1 < u.len() {
        v /= 1000.0;
        i += 1;
    }
    format!("{v:.1} {}", u[i])
}

fn print_plan(
    plan: &Plan,
    files: &[PathBuf],
    shape: &[usize],
    shapes: &[cusci::pipeline::StageShape],
    batch: usize,
    lanes: &[Device],
) {
    let name = plan
        .pipeline
        .name
        .clone()
        .unwrap_or_else(|| "pipeline".into());
    println!(
        "{name}: {} files, device {}, batch {batch}",
        files.len(),
        describe(lanes)
    );
    let el = match plan.dtype {
        cusci::pipeline::ComputeDType::F32 => 4,
        cusci::pipeline::ComputeDType::F64 => 8,
    };
    let in_bytes = shape.iter().product::<usize>() * el;
    println!(
        "     {:<36} {:<24} {:<14} {:>12} per file {:>12} per batch",
        "input (the file as read)",
        format!("{shape:?}"),
        "real",
        human(in_bytes as f64),
        human((in_bytes * batch) as f64)
    );
    let mut peak = in_bytes;
    for (k, (s, st)) in shapes.iter().zip(&plan.stages).enumerate() {
        peak = peak.max(s.bytes);
        println!(
            "  {k:>2} {:<36} {:<24} {:<14} {:>12} per file {:>12} per batch{}",
            format!("{} ({})", st.name, st.func),
            format!("{:?}", s.shape),
            s.kind.to_string(),
            human(s.bytes as f64),
            human((s.bytes * batch) as f64),
            if st.op.batched() { "" } else { "  (per file)" }
        );
    }
    // the results alive at once: the input, every result kept to the end, and a stage's input
    // and output
    let needed = plan.needed();
    let kept: usize = shapes
        .iter()
        .zip(&needed)
        .filter(|(_, n)| **n)
        .map(|(s, _)| s.bytes)
        .sum();
    let mut pair = 0;
    let mut prev = in_bytes;
    for s in shapes {
        pair = pair.max(prev + s.bytes);
        prev = s.bytes;
    }
    println!(
        "  largest stage result per batch: {}; estimated device memory per batch: at least {} (the results alive at once; the functions' work space comes on top)",
        human((peak * batch) as f64),
        human(((in_bytes + kept + pair) * batch) as f64)
    );
    for o in &plan.outputs {
        println!("  output  <stem>.{}.{}", o.name, o.extension());
    }
}

fn print_summary(s: &Summary) {
    println!("cusci run on {}", s.device);
    println!(
        "  files: {} ({} done, {} skipped as complete, {} failed)",
        s.files,
        s.done,
        s.skipped,
        s.failed.len()
    );
    println!(
        "  read {} , wrote {} , in {:.2} s: {:.1} files/s, {}/s",
        human(s.bytes_in as f64),
        human(s.bytes_out as f64),
        s.wall_s,
        s.done as f64 / s.wall_s.max(1e-9),
        human(s.bytes_in as f64 / s.wall_s.max(1e-9))
    );
    println!("  time per stage (s):");
    println!("    {:<28} {:>9.4}", "stack, upload, download", s.upload_s);
    for (n, t) in &s.stage_s {
        println!("    {n:<28} {t:>9.4}");
    }
    println!("    {:<28} {:>9.4}", "write (writer thread)", s.write_s);
    if !s.validation.is_empty() {
        if s.device == "cpu" {
            println!("  (the run's device is the CPU: --validate compares the CPU with itself)");
        }
        println!(
            "  validation against the CPU on {} file(s): largest |difference| (absolute, relative to the largest value)",
            s.validated.len()
        );
        for d in &s.validation {
            match &d.mismatch {
                Some(m) => println!("    {:<28} MISMATCH: {m}", d.stage),
                None => println!(
                    "    {:<28} {:>10.3e} {:>10.3e}",
                    d.stage, d.max_abs, d.max_rel
                ),
            }
        }
    }
    if !s.failed.is_empty() {
        println!("  failed:");
        for f in &s.failed {
            println!("    {}: {}: {}", f.file.display(), f.stage, f.message);
        }
    }
}
