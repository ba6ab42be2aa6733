//! Batch pipelines over files (feature `pipeline`, on by default): a chain of SciPy functions
//! applied to every file matched by a glob, described in TOML (or built in Rust), checked before
//! any data moves, and run in batches on one device.
//!
//! A description has an `[input]` (a glob of `.npy`/`.npz`/`.wav`/PNG/TIFF files), a list of
//! `[[stage]]`s (each names a SciPy function in `fn` and gives its arguments, SciPy's names) and a
//! list of `[[output]]`s (which stage's result goes to which file format):
//!
//! ```toml
//! name = "vibration"
//! dtype = "float32"                       # the compute dtype: float32 (default) or float64
//!
//! [input]
//! glob = "data/audio/*.wav"               # relative to the TOML file's folder
//!
//! [[stage]]
//! fn = "sosfiltfilt"
//! name = "band"
//! filter = { design = "butter", N = 4, Wn = [500.0, 1500.0], btype = "bandpass", fs = 8000.0 }
//!
//! [[stage]]
//! fn = "envelope"
//!
//! [[stage]]
//! fn = "find_peaks"
//! height = 0.5
//! distance = 400
//!
//! [[output]]
//! from = "find_peaks"
//! format = "csv"
//! ```
//!
//! [`Pipeline::compile`] turns a description into a [`Plan`]: every stage's function, argument
//! names, types and ranges, and the kind of data that flows between stages (real, complex, mask,
//! labels, table) are checked there, and an error names the stage (index and function) and the
//! argument. [`Plan::probe`] then runs the chain on a zero array of a file's shape on the CPU:
//! the shapes of every stage (for `--dry-run`) and the errors a shape causes (a signal shorter than
//! the filter's padding, a sigma list of the wrong length), before any file is read.
//!
//! Files of one shape are stacked into one array with a leading batch axis, and every stage that
//! takes a batch axis (the signal functions along their `axis`, `gaussian_filter` and
//! `median_filter` with nothing across the batch axis, the element-wise stages, FFTs) runs once per
//! batch; the others (`label`, the per-label measurements, `distance_transform_edt`, `sobel`,
//! `zoom`, `rotate`, `find_peaks`) run once per file. Each stage calls the cusci function on the
//! device the batch lives on, but `find_peaks`: its result is a table on the host, so it copies
//! the file's rows to the host once and searches them there in parallel (on a GPU a search per
//! row of a few thousand samples costs more in launches and waits than the whole search on a
//! CPU core; the peaks are the same, the comparisons being exact).
//!
//! `sum`, `mean` and `center_of_mass` after `label` give one row per label (of the stage named by
//! `image`, default the file as read); on a real array they give one row for the whole array
//! (SciPy's scalar result). `find_peaks` runs along the last axis of every row (channel) and
//! gives `channel, index, [time,] value[, prominence, width]`.
//!
//! An output writes `OUT/<file stem>.<name>.<format>`: `npy` and `npz` (arrays; `npz` takes a list
//! of stages), `csv` and `json` (tables), `png` (a 2-D array scaled to grey, a mask, a label map in
//! colour) and `plot` (`OUT/<stem>.<name>.plot.png`, drawn with `plotters` on its bitmap backend
//! with an embedded font: no system fonts are needed). A plot is chosen by what `from` names:
//!
//! | `from` | the plot |
//! |---|---|
//! | a `spectrogram` (mode `psd` or `magnitude`) or `stft` stage | time × frequency per channel in dB (power `10 log10`, amplitude `20 log10`, 80 dB shown), axes in s and Hz, a colour bar |
//! | a `welch` stage | the PSD per channel on a log axis, in Hz and V²/Hz (V² with `scaling = "spectrum"`) |
//! | `[signal, peaks]`, `peaks` a `find_peaks` stage run on `signal` | the signal per channel with a marker on every peak, in s when `find_peaks` has `fs` |
//! | a label stage | the label map in colour, a legend of the labels and their count |
//! | a real array or mask | a trace when it is 1-D or has at most 8 rows (each at least 8 times as long as there are rows), else a grey image |
//! | 2 to 4 stages (`input` included) of real arrays (not spectral), masks or labels | 2-D images side by side, e.g. `["input", "denoise"]` (before/after) |
//!
//! Anything else (a table alone, complex data other than `stft`, a spectral stage along another
//! axis than the last, peaks found in another stage) is an error at compile time naming the
//! output and listing the plot kinds ([`PLOT_KINDS`]). Every output is written to a temporary file
//! and renamed: a file name appears only complete.
//!
//! The stages, their arguments and the kinds they take are listed in [`STAGES`]; the
//! readers and writers are in [`io`]. The `cusci run` command (crate `cusci-cli`) drives a plan
//! over files with reader threads, progress bars, `--resume`, `--validate` and a summary.

mod data;
pub mod io;
mod plot;
mod stage;

pub use plot::{PlotKind, PLOT_KINDS};

pub use data::{host_f64 as host_values, Data, Kind, Table};
pub use stage::{Op, STAGES};

use crate::core::npy::DynArray;
use crate::{Device, Error};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// A pipeline description: inputs, stages, outputs (the TOML file's contents).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pipeline {
    /// A name for messages.
    #[serde(default)]
    pub name: Option<String>,
    /// The compute dtype, `"float32"` (default) or `"float64"`: every file is converted to it.
    #[serde(default)]
    pub dtype: Option<String>,
    /// The input files.
    pub input: Input,
    /// The chain of stages, in order.
    #[serde(rename = "stage", default)]
    pub stages: Vec<StageSpec>,
    /// What is written for every file.
    #[serde(rename = "output", default)]
    pub outputs: Vec<OutputSpec>,
}

/// The input files of a pipeline.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// A glob pattern (`*`, `?`, `[..]`, `**`), relative to the description's folder when it was
    /// read from a file.
    pub glob: String,
    /// For `.npz` files: the member to read (default: the first).
    #[serde(default)]
    pub key: Option<String>,
    /// For `.wav` files: the sample rate every file must have.
    #[serde(default)]
    pub fs: Option<u32>,
    /// The shape every file must have (a file of another shape is reported and skipped).
    #[serde(default)]
    pub shape: Option<Vec<usize>>,
}

/// One stage: a function name, an optional name for later stages and outputs, an optional input
/// (an earlier stage's name, or `"input"` for the file as read; default the previous stage), and
/// the function's arguments (SciPy's names).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StageSpec {
    /// The SciPy function (see [`STAGES`]).
    #[serde(rename = "fn")]
    pub func: String,
    /// The stage's name (default: the function's name, `_2`, `_3`, ... when repeated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The stage whose result this stage takes (default: the previous one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// The function's arguments.
    #[serde(flatten)]
    pub args: toml::Table,
}

impl StageSpec {
    /// A stage calling `func` with no arguments yet.
    pub fn new(func: &str) -> StageSpec {
        StageSpec {
            func: func.to_string(),
            name: None,
            input: None,
            args: toml::Table::new(),
        }
    }

    /// Adds the argument `name = value`.
    pub fn arg(mut self, name: &str, value: impl Into<toml::Value>) -> StageSpec {
        self.args.insert(name.to_string(), value.into());
        self
    }

    /// Names the stage.
    pub fn named(mut self, name: &str) -> StageSpec {
        self.name = Some(name.to_string());
        self
    }

    /// Takes the result of the stage `name` (or `"input"`) instead of the previous one.
    pub fn from(mut self, name: &str) -> StageSpec {
        self.input = Some(name.to_string());
        self
    }
}

/// One or several stage names.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum OneOrMany {
    /// One name.
    One(String),
    /// Several names (an `.npz` output).
    Many(Vec<String>),
}

/// One output: the result of a stage (or several, for `npz`) written for every file as
/// `OUT/<file stem>.<name>.<format>`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// The stage (or stages, `npz` only) whose result is written; `"input"` is the file as read.
    pub from: OneOrMany,
    /// `npy`, `npz`, `csv`, `json`, `png` or `plot` (a PNG plot: see the module docs).
    pub format: String,
    /// The name in the file name (default: the stage's name).
    #[serde(default)]
    pub name: Option<String>,
}

/// An error of a pipeline: where (the stage, the argument, the file) and what.
#[derive(Clone, Debug, PartialEq)]
pub struct PipelineError {
    /// The stage's index (0-based) and function name, when a stage is concerned.
    pub stage: Option<(usize, String)>,
    /// The argument concerned.
    pub arg: Option<String>,
    /// The file concerned.
    pub file: Option<PathBuf>,
    /// What went wrong.
    pub message: String,
}

impl PipelineError {
    /// An error of no stage.
    pub fn msg(message: impl Into<String>) -> PipelineError {
        PipelineError {
            stage: None,
            arg: None,
            file: None,
            message: message.into(),
        }
    }

    /// An error of stage `i` (function `f`), argument `arg`.
    pub fn stage(i: usize, f: &str, arg: Option<&str>, message: impl Into<String>) -> Self {
        PipelineError {
            stage: Some((i, f.to_string())),
            arg: arg.map(str::to_string),
            file: None,
            message: message.into(),
        }
    }

    /// The same error, about `file`.
    pub fn with_file(mut self, file: &Path) -> Self {
        self.file = Some(file.to_path_buf());
        self
    }

    /// The stage's label as messages print it: `stage 2 (median_filter)`, or `read`, `write`.
    pub fn where_(&self) -> String {
        match &self.stage {
            Some((i, f)) if *i == usize::MAX => f.clone(),
            Some((i, f)) => format!("stage {i} ({f})"),
            None => "pipeline".into(),
        }
    }
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.file {
            write!(f, "{}: ", p.display())?;
        }
        if self.stage.is_some() {
            write!(f, "{}", self.where_())?;
            if let Some(a) = &self.arg {
                write!(f, ", argument `{a}`")?;
            }
            write!(f, ": ")?;
        } else if let Some(a) = &self.arg {
            write!(f, "argument `{a}`: ")?;
        }
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for PipelineError {}

impl From<PipelineError> for Error {
    fn from(e: PipelineError) -> Error {
        Error::InvalidArgument {
            op: "pipeline".into(),
            detail: e.to_string(),
        }
    }
}

/// A pseudo-stage index for the reading and writing steps (`PipelineError::where_` prints the
/// name alone).
pub const IO_STAGE: usize = usize::MAX;

/// The element type every file is converted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComputeDType {
    /// `float32` (default).
    F32,
    /// `float64`.
    F64,
}

/// A compiled stage: its function and arguments, checked.
#[derive(Clone, Debug)]
pub struct CompiledStage {
    /// The stage's name (unique in the plan).
    pub name: String,
    /// The function's name.
    pub func: String,
    /// The stage it takes its data from (`None`: the previous one; index into `stages`, or
    /// `usize::MAX` for the file as read).
    pub source: Option<usize>,
    /// The checked operation.
    pub op: Op,
    /// The kind of data it gives.
    pub kind: Kind,
}

/// A compiled output.
#[derive(Clone, Debug)]
pub struct CompiledOutput {
    /// The stages written (`usize::MAX`: the file as read).
    pub from: Vec<usize>,
    /// The format (`npy`, `npz`, `csv`, `json`, `png`, `plot`).
    pub format: String,
    /// The name in the file name.
    pub name: String,
    /// For `plot`: what is drawn.
    pub plot: Option<PlotKind>,
}

impl CompiledOutput {
    /// The file name's extension: the format's, `plot.png` for a plot.
    pub fn extension(&self) -> &str {
        if self.format == "plot" {
            "plot.png"
        } else {
            &self.format
        }
    }
}

/// A checked pipeline, ready to run.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The description it was compiled from.
    pub pipeline: Pipeline,
    /// The folder relative to which the glob is taken.
    pub base: PathBuf,
    /// The compute dtype.
    pub dtype: ComputeDType,
    /// The stages.
    pub stages: Vec<CompiledStage>,
    /// The outputs.
    pub outputs: Vec<CompiledOutput>,
}

/// The per-file shape and kind of one stage's result, from [`Plan::probe`].
#[derive(Clone, Debug, PartialEq)]
pub struct StageShape {
    /// The stage's name.
    pub name: String,
    /// Its kind.
    pub kind: Kind,
    /// The shape of one file's result (tables: `[rows, columns]`).
    pub shape: Vec<usize>,
    /// Bytes of one file's result.
    pub bytes: usize,
}

/// What [`Plan::apply`] gives: the batch as it came in, the stages' results, their times.
#[derive(Clone, Debug)]
pub struct Applied {
    /// The input batch.
    pub input: Data,
    /// Every stage's result that is kept (all with `trace`; else those read by a later stage
    /// other than the next, or by an output); `None` where dropped.
    pub vals: Vec<Option<Data>>,
    /// The seconds each stage took (the device synchronised after each).
    pub times: Vec<f64>,
}

impl Pipeline {
    /// Reads a description from TOML text.
    ///
    /// # Errors
    /// A [`PipelineError`] with TOML's message (line and column) for a syntax error or an unknown
    /// top-level, `[input]` or `[[output]]` key.
    ///
    /// ```
    /// let p = cusci::pipeline::Pipeline::from_toml_str(
    ///     "[input]\nglob = '*.npy'\n[[stage]]\nfn = 'abs'\n").unwrap();
    /// assert_eq!(p.stages[0].func, "abs");
    /// ```
    pub fn from_toml_str(s: &str) -> Result<Pipeline, PipelineError> {
        toml::from_str(s).map_err(|e| PipelineError::msg(format!("the pipeline's TOML: {e}")))
    }

    /// Reads a description from a TOML file; its glob is then relative to the file's folder.
    ///
    /// # Errors
    /// As [`Pipeline::from_toml_str`], and when the file cannot be read.
    pub fn from_file(path: &Path) -> Result<(Pipeline, PathBuf), PipelineError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| PipelineError::msg(format!("cannot read {}: {e}", path.display())))?;
        let p = Pipeline::from_toml_str(&text).map_err(|e| PipelineError {
            message: format!("{}: {}", path.display(), e.message),
            ..e
        })?;
        let base = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        Ok((p, base))
    }

    /// The description as TOML text.
    pub fn to_toml_string(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    /// Checks every stage and output (functions, argument names, types and ranges, the kinds
    /// that flow between stages, names) and returns the plan; the glob is taken relative to
    /// `base`.
    ///
    /// # Errors
    /// A [`PipelineError`] naming the stage (index and function) and the argument.
    ///
    /// ```
    /// use cusci::pipeline::{Pipeline, StageSpec, Input};
    /// let p = Pipeline {
    ///     input: Input { glob: "*.npy".into(), ..Default::default() },
    ///     stages: vec![StageSpec::new("gaussian_filter").arg("sigma", -1.0)],
    ///     ..Default::default()
    /// };
    /// let e = p.compile(".").unwrap_err();
    /// assert_eq!(e.stage, Some((0, "gaussian_filter".to_string())));
    /// assert_eq!(e.arg.as_deref(), Some("sigma"));
    /// ```
    pub fn compile(&self, base: impl AsRef<Path>) -> Result<Plan, PipelineError> {
        let dtype = match self.dtype.as_deref() {
            None | Some("float32") | Some("f32") => ComputeDType::F32,
            Some("float64") | Some("f64") => ComputeDType::F64,
            Some(o) => {
                return Err(PipelineError {
                    arg: Some("dtype".into()),
                    ..PipelineError::msg(format!("must be float32 or float64, got {o:?}"))
                })
            }
        };
        if self.input.glob.trim().is_empty() {
            return Err(PipelineError {
                arg: Some("input.glob".into()),
                ..PipelineError::msg("is empty")
            });
        }
        let mut names: HashMap<String, usize> = HashMap::new();
        let mut stages: Vec<CompiledStage> = Vec::new();
        let mut counts: HashMap<String, usize> = HashMap::new();
        for (i, s) in self.stages.iter().enumerate() {
            let c = counts.entry(s.func.clone()).or_insert(0);
            *c += 1;
            let name = match &s.name {
                Some(n) => n.clone(),
                None if *c == 1 => s.func.clone(),
                None => format!("{}_{}", s.func, c),
            };
            if name == "input" || names.contains_key(&name) {
                return Err(PipelineError::stage(
                    i,
                    &s.func,
                    Some("name"),
                    format!("the name {name:?} is already taken"),
                ));
            }
            let source = match &s.input {
                None => None,
                Some(n) if n == "input" => Some(usize::MAX),
                Some(n) => Some(*names.get(n).ok_or_else(|| {
                    PipelineError::stage(
                        i,
                        &s.func,
                        Some("input"),
                        format!("no earlier stage is named {n:?}"),
                    )
                })?),
            };
            let in_kind = match source {
                Some(usize::MAX) => Kind::Real,
                Some(j) => stages[j].kind,
                None => stages.last().map(|s| s.kind).unwrap_or(Kind::Real),
            };
            let op = Op::parse(i, &s.func, &s.args, &names, &stages)?;
            let kind = op
                .out_kind(in_kind)
                .map_err(|m| PipelineError::stage(i, &s.func, None, m))?;
            names.insert(name.clone(), i);
            stages.push(CompiledStage {
                name,
                func: s.func.clone(),
                source,
                op,
                kind,
            });
        }
        let mut outputs = Vec::new();
        for (k, o) in self.outputs.iter().enumerate() {
            let err = |arg: &str, m: String| PipelineError {
                arg: Some(format!("output[{k}].{arg}")),
                ..PipelineError::msg(m)
            };
            let list = match &o.from {
                OneOrMany::One(s) => vec![s.clone()],
                OneOrMany::Many(v) => v.clone(),
            };
            if list.is_empty() {
                return Err(err("from", "names no stage".into()));
            }
            let mut from = Vec::new();
            for n in &list {
                let j = if n == "input" {
                    usize::MAX
                } else if n == "last" && !stages.is_empty() {
                    stages.len() - 1
                } else {
                    *names
                        .get(n)
                        .ok_or_else(|| err("from", format!("no stage is named {n:?}")))?
                };
                from.push(j);
            }
            let kind_of = |j: usize| {
                if j == usize::MAX {
                    Kind::Real
                } else {
                    stages[j].kind
                }
            };
            let fmt = o.format.to_ascii_lowercase();
            let what = format!(
                "output[{k}] ({})",
                o.name.as_deref().unwrap_or(&list.join(", "))
            );
            let plot = if fmt == "plot" {
                Some(
                    plot::plot_kind(&from, &stages)
                        .map_err(|m| err("from", format!("{what}: {m}")))?,
                )
            } else {
                None
            };
            for &j in &from {
                if plot.is_some() {
                    break;
                }
                let k = kind_of(j);
                let ok = match fmt.as_str() {
                    "npy" | "npz" => k != Kind::Table,
                    "csv" | "json" => k == Kind::Table,
                    "png" => matches!(k, Kind::Real | Kind::Mask | Kind::Labels),
                    _ => {
                        return Err(err(
                            "format",
                            format!("{what}: {fmt:?}: use npy, npz, csv, json, png or plot"),
                        ))
                    }
                };
                if !ok {
                    return Err(err(
                        "format",
                        format!("a {k} result cannot be written as {fmt} (tables: csv or json; arrays: npy, npz, png)"),
                    ));
                }
            }
            if from.len() > 1 && fmt != "npz" && fmt != "plot" {
                return Err(err(
                    "from",
                    format!("several stages need format npz, not {fmt}"),
                ));
            }
            let name = o.name.clone().unwrap_or_else(|| {
                if from.len() == 1 {
                    list[0].clone()
                } else if fmt == "plot" {
                    list.join("-")
                } else {
                    "arrays".into()
                }
            });
            if name.contains(['/', '\\']) || name.is_empty() {
                return Err(err("name", format!("{name:?} is not a file name part")));
            }
            outputs.push(CompiledOutput {
                from,
                format: fmt,
                name,
                plot,
            });
        }
        let mut seen = std::collections::HashSet::new();
        for o in &outputs {
            if !seen.insert((o.name.clone(), o.format.clone())) {
                return Err(PipelineError {
                    arg: Some("output.name".into()),
                    ..PipelineError::msg(format!("two outputs write {}.{}", o.name, o.format))
                });
            }
        }
        Ok(Plan {
            pipeline: self.clone(),
            base: base.as_ref().to_path_buf(),
            dtype,
            stages,
            outputs,
        })
    }
}

/// One stage's failure on a batch: the stage and the library's error.
#[derive(Debug)]
pub struct StageFailure {
    /// The stage's index.
    pub stage: usize,
    /// The error.
    pub error: Error,
}

impl Plan {
    /// The input files matched by the glob, sorted.
    ///
    /// # Errors
    /// A bad pattern.
    pub fn files(&self) -> Result<Vec<PathBuf>, PipelineError> {
        let pat = Path::new(&self.pipeline.input.glob);
        let full = if pat.is_absolute() {
            pat.to_path_buf()
        } else {
            self.base.join(pat)
        };
        let s = full.to_string_lossy().to_string();
        let mut v: Vec<PathBuf> = glob::glob(&s)
            .map_err(|e| PipelineError {
                arg: Some("input.glob".into()),
                ..PipelineError::msg(format!("{s:?}: {e}"))
            })?
            .filter_map(|r| r.ok())
            .filter(|p| p.is_file())
            .collect();
        v.sort();
        Ok(v)
    }

    /// The stage label `stage i (fn)`.
    pub fn label(&self, i: usize) -> String {
        if i == usize::MAX {
            "input".into()
        } else {
            format!("stage {i} ({})", self.stages[i].func)
        }
    }

    /// Runs every stage on `batch` (one array of one or more files with a leading batch axis when
    /// `stacked`, else one file's array) on the device it lives on; with `trace` the result of
    /// every stage is kept (otherwise only those that outputs and later stages need).
    ///
    ///
    /// # Errors
    /// The first stage that fails, with the library's error.
    pub fn apply(
        &self,
        batch: DynArray,
        stacked: bool,
        trace: bool,
    ) -> Result<Applied, StageFailure> {
        let dev = batch.device().clone();
        let input = if stacked {
            Data::Stacked(batch)
        } else {
            Data::Parts(vec![batch])
        };
        let needed = self.needed();
        let mut vals: Vec<Option<Data>> = vec![None; self.stages.len()];
        let mut times = vec![0.0; self.stages.len()];
        let mut prev = input.clone();
        for (i, s) in self.stages.iter().enumerate() {
            let t0 = std::time::Instant::now();
            let x = match s.source {
                None => prev.clone(),
                Some(usize::MAX) => input.clone(),
                Some(j) => vals[j].clone().expect("kept: a later stage reads it"),
            };
            let y =
                s.op.apply(x, &input, &vals, self)
                    .map_err(|error| StageFailure { stage: i, error })?;
            if dev.is_cuda() {
                dev.synchronize()
                    .map_err(|error| StageFailure { stage: i, error })?;
            }
            times[i] = t0.elapsed().as_secs_f64();
            if trace || needed[i] {
                vals[i] = Some(y.clone());
            }
            prev = y;
        }
        Ok(Applied { input, vals, times })
    }

    /// Which stages' results are kept for the whole batch: read by a later stage (other than
    /// the next) or by an output.
    pub fn needed(&self) -> Vec<bool> {
        let mut n = vec![false; self.stages.len()];
        for s in &self.stages {
            if let Some(j) = s.source {
                if j != usize::MAX {
                    n[j] = true;
                }
            }
            for j in s.op.reads() {
                n[j] = true;
            }
        }
        for o in &self.outputs {
            for &j in &o.from {
                if j != usize::MAX {
                    n[j] = true;
                }
            }
        }
        n
    }

    /// Runs the chain on a zero array of one file's `shape` on the CPU: every stage's per-file
    /// shape, kind and bytes, or the first stage that cannot take that shape.
    ///
    /// # Errors
    /// A [`PipelineError`] naming the stage and the library's message.
    ///
    /// ```
    /// use cusci::pipeline::Pipeline;
    /// let p = Pipeline::from_toml_str(
    ///     "[input]\nglob = '*.npy'\n[[stage]]\nfn = 'rfft'\n").unwrap();
    /// let shapes = p.compile(".").unwrap().probe(&[3, 64]).unwrap();
    /// assert_eq!(shapes[0].shape, vec![3, 33]);
    /// ```
    pub fn probe(&self, shape: &[usize]) -> Result<Vec<StageShape>, PipelineError> {
        let dev = Device::cpu();
        let mut full = vec![1usize];
        full.extend_from_slice(shape);
        let x = match self.dtype {
            ComputeDType::F32 => DynArray::from(
                crate::Array::<f32>::zeros(&full, &dev)
                    .map_err(|e| PipelineError::msg(e.to_string()))?,
            ),
            ComputeDType::F64 => DynArray::from(
                crate::Array::<f64>::zeros(&full, &dev)
                    .map_err(|e| PipelineError::msg(e.to_string()))?,
            ),
        };
        let Applied { vals, .. } = self.apply(x, true, true).map_err(|f| {
            PipelineError::stage(
                f.stage,
                &self.stages[f.stage].func,
                None,
                format!("{} (for a file of shape {shape:?})", f.error),
            )
        })?;
        Ok(vals
            .into_iter()
            .zip(&self.stages)
            .map(|(v, s)| {
                let v = v.expect("traced");
                let (shape, bytes) = v.file_shape(0);
                StageShape {
                    name: s.name.clone(),
                    kind: s.kind,
                    shape,
                    bytes,
                }
            })
            .collect())
    }
}
