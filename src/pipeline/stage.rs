//! The stages: parsing and checking their arguments, the kinds they take and give, and running
//! them on a batch.

use super::data::{Data, Kind, Table};
use super::{CompiledStage, ComputeDType, PipelineError, Plan};
use crate::core::npy::DynArray;
use crate::ndimage::{self, FilterOptions, Footprint, GaussianOptions, InterpOptions, Mode};
use crate::signal::{self, Bound, Window, WindowSpec};
use crate::{Array, Error, Result};
use std::cell::RefCell;
use std::collections::HashMap;

/// Runs `$body` with `$x` the typed real array and `$T` its element type.
macro_rules! on_real {
    ($a:expr, $op:expr, |$x:ident, $T:ident| $body:expr) => {
        match $a {
            DynArray::F32($x) => {
                #[allow(dead_code)]
                type $T = f32;
                DynArray::from($body)
            }
            DynArray::F64($x) => {
                #[allow(dead_code)]
                type $T = f64;
                DynArray::from($body)
            }
            o => return Err(wrong($op, o)),
        }
    };
}
#[allow(unused_imports)]
use on_real;

/// Every stage function and its arguments (SciPy's names; `input` and `name` are taken by every
/// stage).
pub const STAGES: &[(&str, &[&str])] = &[
    ("sosfiltfilt", &["filter", "sos", "axis", "padlen"]),
    ("resample_poly", &["up", "down", "axis"]),
    ("decimate", &["q", "n", "ftype", "axis", "zero_phase"]),
    ("hilbert", &["N", "axis"]),
    ("envelope", &["N", "axis"]),
    (
        "stft",
        &["fs", "window", "nperseg", "noverlap", "nfft", "axis"],
    ),
    (
        "spectrogram",
        &[
            "fs", "window", "nperseg", "noverlap", "nfft", "axis", "mode", "scaling",
        ],
    ),
    (
        "welch",
        &[
            "fs", "window", "nperseg", "noverlap", "nfft", "axis", "scaling", "average",
        ],
    ),
    (
        "find_peaks",
        &[
            "height",
            "threshold",
            "distance",
            "prominence",
            "width",
            "wlen",
            "rel_height",
            "plateau_size",
            "fs",
        ],
    ),
    ("rfft", &["n", "axis"]),
    ("fft", &["n", "axis"]),
    ("gaussian_filter", &["sigma", "mode", "cval", "truncate"]),
    ("median_filter", &["size", "mode", "cval"]),
    ("sobel", &["axis", "mode", "cval"]),
    ("zoom", &["zoom", "order", "mode", "cval", "grid_mode"]),
    (
        "rotate",
        &["angle", "axes", "reshape", "order", "mode", "cval"],
    ),
    ("label", &[]),
    ("sum", &["image"]),
    ("mean", &["image"]),
    ("center_of_mass", &["image"]),
    ("distance_transform_edt", &["sampling"]),
    ("scale", &["factor"]),
    ("offset", &["value"]),
    ("abs", &[]),
    ("clip", &["a_min", "a_max"]),
    ("threshold", &["value", "op"]),
    ("astype", &["dtype"]),
];

/// A comparison of the `threshold` stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `x > value`
    Gt,
    /// `x >= value`
    Ge,
    /// `x < value`
    Lt,
    /// `x <= value`
    Le,
}

/// A per-label measurement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// `scipy.ndimage.sum`
    Sum,
    /// `scipy.ndimage.mean`
    Mean,
    /// `scipy.ndimage.center_of_mass`
    CenterOfMass,
}

/// The arguments shared by the spectral stages.
#[derive(Clone, Debug)]
pub struct Spectral {
    pub(super) fs: f64,
    window: Option<WindowSpec>,
    pub(super) nperseg: Option<usize>,
    pub(super) noverlap: Option<usize>,
    pub(super) nfft: Option<usize>,
    pub(super) axis: isize,
    /// `None`: the function's default (SciPy's: `density`, `spectrum` for `stft`).
    pub(super) scaling: Option<signal::Scaling>,
}

/// A checked stage operation.
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub enum Op {
    Sosfiltfilt {
        sos: Vec<[f64; 6]>,
        axis: isize,
        padlen: Option<usize>,
    },
    ResamplePoly {
        up: usize,
        down: usize,
        axis: isize,
    },
    Decimate {
        q: usize,
        opts: signal::DecimateOptions,
    },
    Hilbert {
        n: Option<usize>,
        axis: isize,
        envelope: bool,
    },
    Stft(Spectral),
    Spectrogram(Spectral, signal::SpectrogramMode),
    Welch(Spectral, signal::Average),
    FindPeaks {
        opts: signal::FindPeaksOptions,
        fs: Option<f64>,
    },
    Rfft {
        n: Option<usize>,
        axis: isize,
    },
    Fft {
        n: Option<usize>,
        axis: isize,
    },
    Gaussian {
        sigma: Vec<f64>,
        mode: Mode,
        cval: f64,
        truncate: f64,
    },
    Median {
        size: Vec<usize>,
        mode: Mode,
        cval: f64,
    },
    Sobel {
        axis: isize,
        mode: Mode,
        cval: f64,
    },
    Zoom {
        zoom: Vec<f64>,
        opts: InterpOptions,
        grid_mode: bool,
    },
    Rotate {
        angle: f64,
        axes: (isize, isize),
        reshape: bool,
        opts: InterpOptions,
    },
    Label,
    Measure {
        what: Measure,
        image: usize,
    },
    Edt {
        sampling: Option<Vec<f64>>,
    },
    Scale(f64),
    Offset(f64),
    Abs,
    Clip(f64, f64),
    Threshold(f64, Cmp),
    Astype(crate::DType),
}

/// Reads one stage's arguments, remembering which were used.
struct Args<'a> {
    i: usize,
    f: &'a str,
    t: &'a toml::Table,
    used: RefCell<Vec<String>>,
}

type PResult<T> = std::result::Result<T, PipelineError>;

impl<'a> Args<'a> {
    fn err(&self, arg: &str, m: impl Into<String>) -> PipelineError {
        PipelineError::stage(self.i, self.f, Some(arg), m)
    }
    fn get(&self, k: &str) -> Option<&'a toml::Value> {
        self.used.borrow_mut().push(k.to_string());
        self.t.get(k)
    }
    fn num(&self, k: &str, v: &toml::Value) -> PResult<f64> {
        match v {
            toml::Value::Integer(i) => Ok(*i as f64),
            toml::Value::Float(f) => Ok(*f),
            o => Err(self.err(k, format!("expects a number, got {} {o}", o.type_str()))),
        }
    }
    fn f64(&self, k: &str) -> PResult<Option<f64>> {
        self.get(k).map(|v| self.num(k, v)).transpose()
    }
    fn int(&self, k: &str, v: &toml::Value) -> PResult<i64> {
        match v {
            toml::Value::Integer(i) => Ok(*i),
            o => Err(self.err(k, format!("expects an integer, got {} {o}", o.type_str()))),
        }
    }
    fn usize(&self, k: &str) -> PResult<Option<usize>> {
        match self.get(k) {
            None => Ok(None),
            Some(v) => {
                let i = self.int(k, v)?;
                if i < 0 {
                    return Err(self.err(k, format!("must be >= 0, got {i}")));
                }
                Ok(Some(i as usize))
            }
        }
    }
    fn pos(&self, k: &str) -> PResult<Option<usize>> {
        match self.usize(k)? {
            Some(0) => Err(self.err(k, "must be >= 1, got 0")),
            o => Ok(o),
        }
    }
    fn isize(&self, k: &str, d: isize) -> PResult<isize> {
        match self.get(k) {
            None => Ok(d),
            Some(v) => Ok(self.int(k, v)? as isize),
        }
    }
    fn bool(&self, k: &str, d: bool) -> PResult<bool> {
        match self.get(k) {
            None => Ok(d),
            Some(toml::Value::Boolean(b)) => Ok(*b),
            Some(o) => Err(self.err(k, format!("expects true or false, got {o}"))),
        }
    }
    fn str(&self, k: &str) -> PResult<Option<&'a str>> {
        match self.get(k) {
            None => Ok(None),
            Some(toml::Value::String(s)) => Ok(Some(s.as_str())),
            Some(o) => Err(self.err(k, format!("expects a string, got {} {o}", o.type_str()))),
        }
    }
    fn f64s(&self, k: &str) -> PResult<Option<Vec<f64>>> {
        match self.get(k) {
            None => Ok(None),
            Some(toml::Value::Array(a)) => {
                if a.is_empty() {
                    return Err(self.err(k, "is an empty list"));
                }
                Ok(Some(
                    a.iter().map(|v| self.num(k, v)).collect::<PResult<_>>()?,
                ))
            }
            Some(v) => Ok(Some(vec![self.num(k, v)?])),
        }
    }
    fn usizes(&self, k: &str) -> PResult<Option<Vec<usize>>> {
        match self.get(k) {
            None => Ok(None),
            Some(toml::Value::Array(a)) => {
                if a.is_empty() {
                    return Err(self.err(k, "is an empty list"));
                }
                a.iter()
                    .map(|v| {
                        let i = self.int(k, v)?;
                        if i < 1 {
                            return Err(self.err(k, format!("must be >= 1, got {i}")));
                        }
                        Ok(i as usize)
                    })
                    .collect::<PResult<Vec<_>>>()
                    .map(Some)
            }
            Some(v) => {
                let i = self.int(k, v)?;
                if i < 1 {
                    return Err(self.err(k, format!("must be >= 1, got {i}")));
                }
                Ok(Some(vec![i as usize]))
            }
        }
    }
    fn bound(&self, k: &str) -> PResult<Option<Bound>> {
        match self.f64s(k)? {
            None => Ok(None),
            Some(v) if v.len() == 1 => Ok(Some(Bound::min(v[0]))),
            Some(v) if v.len() == 2 => Ok(Some(Bound {
                min: Some(v[0]),
                max: Some(v[1]),
            })),
            Some(v) => Err(self.err(
                k,
                format!("expects a number or [min, max], got {} values", v.len()),
            )),
        }
    }
    fn mode(&self, d: Mode) -> PResult<Mode> {
        match self.str("mode")? {
            None => Ok(d),
            Some(s) => Mode::ALL
                .iter()
                .copied()
                .find(|m| m.name() == s)
                .ok_or_else(|| {
                    self.err(
                        "mode",
                        format!("unknown mode {s:?} (reflect, constant, nearest, mirror, wrap, grid-constant, grid-mirror, grid-wrap)"),
                    )
                }),
        }
    }
    fn order(&self) -> PResult<usize> {
        let o = self.usize("order")?.unwrap_or(3);
        if o > 5 {
            return Err(self.err("order", format!("the spline order must be 0..=5, got {o}")));
        }
        Ok(o)
    }
    fn finish(self) -> PResult<()> {
        let allowed = STAGES
            .iter()
            .find(|(n, _)| *n == self.f)
            .map(|(_, a)| *a)
            .unwrap_or(&[]);
        let used = self.used.borrow();
        for k in self.t.keys() {
            if !used.contains(k) {
                return Err(self.err(
                    k,
                    format!(
                        "{} takes no argument {k:?} (it takes: {})",
                        self.f,
                        if allowed.is_empty() {
                            "none".to_string()
                        } else {
                            allowed.join(", ")
                        }
                    ),
                ));
            }
        }
        Ok(())
    }
    fn spectral(&self, default_window: WindowSpec) -> PResult<Spectral> {
        let fs = self.f64("fs")?.unwrap_or(1.0);
        if fs.is_nan() || fs <= 0.0 {
            return Err(self.err("fs", format!("must be > 0, got {fs}")));
        }
        let window = match self.str("window")? {
            None => Some(default_window),
            Some(w) => Some(WindowSpec::Named(
                Window::from_name(w).map_err(|e| self.err("window", e.to_string()))?,
            )),
        };
        let nperseg = self.pos("nperseg")?;
        let noverlap = self.usize("noverlap")?;
        if let (Some(p), Some(o)) = (nperseg, noverlap) {
            if o >= p {
                return Err(self.err(
                    "noverlap",
                    format!("must be less than nperseg ({p}), got {o}"),
                ));
            }
        }
        let nfft = self.pos("nfft")?;
        if let (Some(p), Some(n)) = (nperseg, nfft) {
            if n < p {
                return Err(self.err("nfft", format!("must be >= nperseg ({p}), got {n}")));
            }
        }
        let scaling = match self.str("scaling")? {
            None => None,
            Some("density") => Some(signal::Scaling::Density),
            Some("spectrum") => Some(signal::Scaling::Spectrum),
            Some(o) => return Err(self.err("scaling", format!("density or spectrum, got {o:?}"))),
        };
        Ok(Spectral {
            fs,
            window,
            nperseg,
            noverlap,
            nfft,
            axis: self.isize("axis", -1)?,
            scaling,
        })
    }
}

fn design_sos(a: &Args, v: &toml::Value) -> PResult<Vec<[f64; 6]>> {
    let t = match v {
        toml::Value::Table(t) => t,
        o => {
            return Err(a.err(
                "filter",
                format!(
                    "expects a table such as {{ design = \"butter\", N = 4, Wn = 0.1 }}, got {o}"
                ),
            ))
        }
    };
    let sub = Args {
        i: a.i,
        f: a.f,
        t,
        used: RefCell::new(Vec::new()),
    };
    let arg = |k: &str| format!("filter.{k}");
    let design = sub.str("design")?.unwrap_or("butter");
    if design != "butter" {
        return Err(a.err(
            &arg("design"),
            format!("only \"butter\" is designed here, got {design:?}"),
        ));
    }
    let n = sub
        .pos("N")
        .map_err(|e| PipelineError {
            arg: Some(arg("N")),
            ..e
        })?
        .ok_or_else(|| a.err(&arg("N"), "is required (the filter order)"))?;
    if n > 64 {
        return Err(a.err(&arg("N"), format!("must be at most 64, got {n}")));
    }
    let wn = sub
        .f64s("Wn")
        .map_err(|e| PipelineError {
            arg: Some(arg("Wn")),
            ..e
        })?
        .ok_or_else(|| a.err(&arg("Wn"), "is required (the critical frequencies)"))?;
    let btype = match sub.str("btype")?.unwrap_or("lowpass") {
        "lowpass" | "low" => signal::BType::Lowpass,
        "highpass" | "high" => signal::BType::Highpass,
        "bandpass" | "band" => signal::BType::Bandpass,
        "bandstop" | "stop" => signal::BType::Bandstop,
        o => {
            return Err(a.err(
                &arg("btype"),
                format!("lowpass, highpass, bandpass or bandstop, got {o:?}"),
            ))
        }
    };
    let want = if matches!(btype, signal::BType::Bandpass | signal::BType::Bandstop) {
        2
    } else {
        1
    };
    if wn.len() != want {
        return Err(a.err(
            &arg("Wn"),
            format!(
                "a {} filter needs {want} frequencies, got {}",
                sub.t
                    .get("btype")
                    .and_then(|v| v.as_str())
                    .unwrap_or("lowpass"),
                wn.len()
            ),
        ));
    }
    let fs = sub.f64("fs")?;
    let nyq = fs.map(|f| f / 2.0).unwrap_or(1.0);
    if let Some(f) = fs {
        if f.is_nan() || f <= 0.0 {
            return Err(a.err(&arg("fs"), format!("must be > 0, got {f}")));
        }
    }
    for &w in &wn {
        if w.is_nan() || w <= 0.0 || w >= nyq {
            return Err(a.err(
                &arg("Wn"),
                format!("every frequency must be in (0, {nyq}) (the Nyquist frequency), got {w}"),
            ));
        }
    }
    let unknown = sub
        .t
        .keys()
        .find(|k| !["design", "N", "Wn", "btype", "fs"].contains(&k.as_str()));
    if let Some(k) = unknown {
        return Err(a.err(&arg(k), "unknown (design, N, Wn, btype, fs)"));
    }
    let opts = signal::IirOptions {
        btype,
        output: signal::Output::Sos,
        fs,
        ..Default::default()
    };
    signal::butter(n, &wn, &opts)
        .and_then(|f| f.into_sos())
        .map_err(|e| a.err("filter", e.to_string()))
}

impl Op {
    /// Parses and checks stage `i` (function `f`, arguments `t`); `names` are the earlier stages.
    pub(crate) fn parse(
        i: usize,
        f: &str,
        t: &toml::Table,
        names: &HashMap<String, usize>,
        stages: &[CompiledStage],
    ) -> PResult<Op> {
        let a = Args {
            i,
            f,
            t,
            used: RefCell::new(Vec::new()),
        };
        let op = match f {
            "sosfiltfilt" => {
                let sos = match (a.get("filter"), a.get("sos")) {
                    (Some(v), None) => design_sos(&a, v)?,
                    (None, Some(toml::Value::Array(rows))) => {
                        let mut sos = Vec::new();
                        for r in rows {
                            let row = match r {
                                toml::Value::Array(x) if x.len() == 6 => x,
                                _ => return Err(a.err("sos", "every section must be a list of 6 numbers")),
                            };
                            let mut s = [0.0; 6];
                            for (k, v) in row.iter().enumerate() {
                                s[k] = a.num("sos", v)?;
                            }
                            sos.push(s);
                        }
                        if sos.is_empty() {
                            return Err(a.err("sos", "has no section"));
                        }
                        sos
                    }
                    (None, Some(_)) => return Err(a.err("sos", "expects a list of sections [b0, b1, b2, a0, a1, a2]")),
                    (Some(_), Some(_)) => return Err(a.err("sos", "give `filter` or `sos`, not both")),
                    (None, None) => return Err(a.err("filter", "is required: a design table such as { design = \"butter\", N = 4, Wn = 0.1 }, or `sos`")),
                };
                Op::Sosfiltfilt {
                    sos,
                    axis: a.isize("axis", -1)?,
                    padlen: a.usize("padlen")?,
                }
            }
            "resample_poly" => Op::ResamplePoly {
                up: a.pos("up")?.ok_or_else(|| a.err("up", "is required"))?,
                down: a.pos("down")?.ok_or_else(|| a.err("down", "is required"))?,
                axis: a.isize("axis", 0)?,
            },
            "decimate" => {
                let q = a.pos("q")?.ok_or_else(|| a.err("q", "is required"))?;
                let ftype = match a.str("ftype")?.unwrap_or("iir") {
                    "iir" => signal::DecimateFtype::Iir,
                    "fir" => signal::DecimateFtype::Fir,
                    o => return Err(a.err("ftype", format!("iir or fir, got {o:?}"))),
                };
                Op::Decimate {
                    q,
                    opts: signal::DecimateOptions {
                        n: a.pos("n")?,
                        ftype,
                        axis: a.isize("axis", -1)?,
                        zero_phase: a.bool("zero_phase", true)?,
                    },
                }
            }
            "hilbert" | "envelope" => Op::Hilbert {
                n: a.pos("N")?,
                axis: a.isize("axis", -1)?,
                envelope: f == "envelope",
            },
            "stft" => Op::Stft(a.spectral(WindowSpec::Named(Window::Hann))?),
            "spectrogram" => {
                let mode = match a.str("mode")?.unwrap_or("psd") {
                    "psd" => signal::SpectrogramMode::Psd,
                    "magnitude" => signal::SpectrogramMode::Magnitude,
                    o => return Err(a.err("mode", format!("psd or magnitude, got {o:?}"))),
                };
                Op::Spectrogram(a.spectral(WindowSpec::Named(Window::Tukey(0.25)))?, mode)
            }
            "welch" => {
                let average = match a.str("average")?.unwrap_or("mean") {
                    "mean" => signal::Average::Mean,
                    "median" => signal::Average::Median,
                    o => return Err(a.err("average", format!("mean or median, got {o:?}"))),
                };
                Op::Welch(a.spectral(WindowSpec::Named(Window::Hann))?, average)
            }
            "find_peaks" => {
                let distance = a.f64("distance")?;
                if let Some(d) = distance {
                    if d.is_nan() || d < 1.0 {
                        return Err(a.err("distance", format!("must be >= 1, got {d}")));
                    }
                }
                let wlen = a.f64("wlen")?;
                let rel_height = a.f64("rel_height")?.unwrap_or(0.5);
                if rel_height.is_nan() || rel_height < 0.0 {
                    return Err(a.err("rel_height", format!("must be >= 0, got {rel_height}")));
                }
                let fs = a.f64("fs")?;
                if let Some(f) = fs {
                    if f.is_nan() || f <= 0.0 {
                        return Err(a.err("fs", format!("must be > 0, got {f}")));
                    }
                }
                Op::FindPeaks {
                    opts: signal::FindPeaksOptions {
                        height: a.bound("height")?,
                        threshold: a.bound("threshold")?,
                        distance,
                        prominence: a.bound("prominence")?,
                        width: a.bound("width")?,
                        wlen,
                        rel_height,
                        plateau_size: a.bound("plateau_size")?,
                    },
                    fs,
                }
            }
            "rfft" => Op::Rfft {
                n: a.pos("n")?,
                axis: a.isize("axis", -1)?,
            },
            "fft" => Op::Fft {
                n: a.pos("n")?,
                axis: a.isize("axis", -1)?,
            },
            "gaussian_filter" => {
                let sigma = a
                    .f64s("sigma")?
                    .ok_or_else(|| a.err("sigma", "is required"))?;
                if let Some(s) = sigma.iter().find(|s| s.is_nan() || **s < 0.0) {
                    return Err(a.err("sigma", format!("must be >= 0, got {s}")));
                }
                let truncate = a.f64("truncate")?.unwrap_or(4.0);
                if truncate.is_nan() || truncate <= 0.0 {
                    return Err(a.err("truncate", format!("must be > 0, got {truncate}")));
                }
                Op::Gaussian {
                    sigma,
                    mode: a.mode(Mode::Reflect)?,
                    cval: a.f64("cval")?.unwrap_or(0.0),
                    truncate,
                }
            }
            "median_filter" => Op::Median {
                size: a
                    .usizes("size")?
                    .ok_or_else(|| a.err("size", "is required"))?,
                mode: a.mode(Mode::Reflect)?,
                cval: a.f64("cval")?.unwrap_or(0.0),
            },
            "sobel" => Op::Sobel {
                axis: a.isize("axis", -1)?,
                mode: a.mode(Mode::Reflect)?,
                cval: a.f64("cval")?.unwrap_or(0.0),
            },
            "zoom" => {
                let zoom = a
                    .f64s("zoom")?
                    .ok_or_else(|| a.err("zoom", "is required"))?;
                if let Some(z) = zoom.iter().find(|z| !z.is_finite() || **z <= 0.0) {
                    return Err(a.err("zoom", format!("every factor must be > 0, got {z}")));
                }
                Op::Zoom {
                    zoom,
                    opts: InterpOptions {
                        order: a.order()?,
                        mode: a.mode(Mode::Constant)?,
                        cval: a.f64("cval")?.unwrap_or(0.0),
                        prefilter: true,
                    },
                    grid_mode: a.bool("grid_mode", false)?,
                }
            }
            "rotate" => {
                let angle = a
                    .f64("angle")?
                    .ok_or_else(|| a.err("angle", "is required (degrees)"))?;
                if !angle.is_finite() {
                    return Err(a.err("angle", format!("must be finite, got {angle}")));
                }
                let axes = match a.get("axes") {
                    None => (1, 0),
                    Some(toml::Value::Array(v)) if v.len() == 2 => (
                        a.int("axes", &v[0])? as isize,
                        a.int("axes", &v[1])? as isize,
                    ),
                    Some(o) => {
                        return Err(a.err("axes", format!("expects two axes [a, b], got {o}")))
                    }
                };
                Op::Rotate {
                    angle,
                    axes,
                    reshape: a.bool("reshape", true)?,
                    opts: InterpOptions {
                        order: a.order()?,
                        mode: a.mode(Mode::Constant)?,
                        cval: a.f64("cval")?.unwrap_or(0.0),
                        prefilter: true,
                    },
                }
            }
            "label" => Op::Label,
            "sum" | "mean" | "center_of_mass" => {
                let image = match a.str("image")?.unwrap_or("input") {
                    "input" => usize::MAX,
                    n => {
                        let j = *names.get(n).ok_or_else(|| {
                            a.err("image", format!("no earlier stage is named {n:?}"))
                        })?;
                        if stages[j].kind != Kind::Real {
                            return Err(a.err(
                                "image",
                                format!("stage {n:?} gives a {}, not a real image", stages[j].kind),
                            ));
                        }
                        j
                    }
                };
                Op::Measure {
                    what: match f {
                        "sum" => Measure::Sum,
                        "mean" => Measure::Mean,
                        _ => Measure::CenterOfMass,
                    },
                    image,
                }
            }
            "distance_transform_edt" => {
                let sampling = a.f64s("sampling")?;
                if let Some(s) = sampling
                    .as_ref()
                    .and_then(|v| v.iter().find(|s| s.is_nan() || **s <= 0.0))
                {
                    return Err(a.err("sampling", format!("every spacing must be > 0, got {s}")));
                }
                Op::Edt { sampling }
            }
            "scale" => Op::Scale(
                a.f64("factor")?
                    .ok_or_else(|| a.err("factor", "is required"))?,
            ),
            "offset" => Op::Offset(
                a.f64("value")?
                    .ok_or_else(|| a.err("value", "is required"))?,
            ),
            "abs" => Op::Abs,
            "clip" => {
                let lo = a.f64("a_min")?.unwrap_or(f64::NEG_INFINITY);
                let hi = a.f64("a_max")?.unwrap_or(f64::INFINITY);
                if lo > hi {
                    return Err(a.err("a_max", format!("must be >= a_min ({lo}), got {hi}")));
                }
                Op::Clip(lo, hi)
            }
            "threshold" => {
                let v = a
                    .f64("value")?
                    .ok_or_else(|| a.err("value", "is required"))?;
                let c = match a.str("op")?.unwrap_or(">") {
                    ">" => Cmp::Gt,
                    ">=" => Cmp::Ge,
                    "<" => Cmp::Lt,
                    "<=" => Cmp::Le,
                    o => return Err(a.err("op", format!("one of >, >=, <, <=, got {o:?}"))),
                };
                Op::Threshold(v, c)
            }
            "astype" => {
                let d = a
                    .str("dtype")?
                    .ok_or_else(|| a.err("dtype", "is required"))?;
                Op::Astype(match d {
                    "float32" => crate::DType::F32,
                    "float64" => crate::DType::F64,
                    "complex64" => crate::DType::C32,
                    "complex128" => crate::DType::C64,
                    o => {
                        return Err(a.err(
                            "dtype",
                            format!("float32, float64, complex64 or complex128, got {o:?}"),
                        ))
                    }
                })
            }
            other => {
                let names: Vec<&str> = STAGES.iter().map(|(n, _)| *n).collect();
                return Err(PipelineError::stage(
                    i,
                    other,
                    None,
                    format!("unknown function {other:?} (known: {})", names.join(", ")),
                ));
            }
        };
        a.finish()?;
        Ok(op)
    }

    /// The kind of result for an input of kind `k`, or why the stage cannot take it.
    pub fn out_kind(&self, k: Kind) -> std::result::Result<Kind, String> {
        use Kind::*;
        let (accepts, out): (&[Kind], Kind) = match self {
            Op::Sosfiltfilt { .. }
            | Op::ResamplePoly { .. }
            | Op::Decimate { .. }
            | Op::Gaussian { .. }
            | Op::Median { .. }
            | Op::Sobel { .. }
            | Op::Zoom { .. }
            | Op::Rotate { .. }
            | Op::Scale(_)
            | Op::Offset(_)
            | Op::Clip(..)
            | Op::Spectrogram(..)
            | Op::Welch(..) => (&[Real], Real),
            Op::Hilbert { envelope, .. } => (&[Real], if *envelope { Real } else { Complex }),
            Op::Stft(_) | Op::Rfft { .. } => (&[Real], Complex),
            Op::Fft { .. } => (&[Real, Complex], Complex),
            Op::FindPeaks { .. } => (&[Real], Table),
            Op::Label => (&[Real, Mask], Labels),
            Op::Measure { .. } => (&[Labels, Real], Table),
            Op::Edt { .. } => (&[Real, Mask], Real),
            Op::Abs => (&[Real, Complex], Real),
            Op::Threshold(..) => (&[Real], Mask),
            Op::Astype(d) => {
                if d.is_complex() {
                    (&[Real, Complex], Complex)
                } else {
                    (&[Real], Real)
                }
            }
        };
        if accepts.contains(&k) {
            Ok(out)
        } else {
            let list: Vec<String> = accepts.iter().map(|k| k.to_string()).collect();
            Err(format!(
                "takes a {}, but its input is a {k}",
                list.join(" or ")
            ))
        }
    }

    /// The earlier stages this stage reads besides its input.
    pub(crate) fn reads(&self) -> Vec<usize> {
        match self {
            Op::Measure { image, .. } if *image != usize::MAX => vec![*image],
            _ => vec![],
        }
    }

    /// Whether one call takes a whole batch (a leading batch axis).
    pub fn batched(&self) -> bool {
        !matches!(
            self,
            Op::FindPeaks { .. }
                | Op::Sobel { .. }
                | Op::Zoom { .. }
                | Op::Rotate { .. }
                | Op::Label
                | Op::Measure { .. }
                | Op::Edt { .. }
        )
    }

    /// Runs the stage on `x` (the input batch is `input`, earlier results `vals`).
    pub(crate) fn apply(
        &self,
        x: Data,
        input: &Data,
        vals: &[Option<Data>],
        plan: &Plan,
    ) -> Result<Data> {
        if self.batched() {
            return match x {
                Data::Stacked(a) => Ok(Data::Stacked(self.array(&a, 1, plan.dtype)?)),
                Data::Parts(v) => Ok(Data::Parts(
                    v.iter()
                        .map(|a| self.array(a, 0, plan.dtype))
                        .collect::<Result<_>>()?,
                )),
                _ => Err(crate::core::error::make::arg(
                    "pipeline",
                    "this stage takes an array",
                )),
            };
        }
        match self {
            Op::Label => {
                let parts = x.into_parts()?;
                let mut out = Vec::with_capacity(parts.len());
                for p in &parts {
                    out.push(match p {
                        DynArray::F32(a) => ndimage::label(a, None)?,
                        DynArray::F64(a) => ndimage::label(a, None)?,
                        DynArray::Bool(a) => ndimage::label(a, None)?,
                        o => return Err(wrong("label", o)),
                    });
                }
                Ok(Data::Labels(out))
            }
            Op::Measure { what, image } => {
                let labels = match x {
                    Data::Labels(v) => v,
                    // no labels: the whole array, one row per file (SciPy's scalar result)
                    other => {
                        let mut tables = Vec::new();
                        for p in other.into_parts()? {
                            tables.push(measure_all(*what, &p)?);
                        }
                        return Ok(Data::Tables(tables));
                    }
                };
                let img = if *image == usize::MAX {
                    input
                } else {
                    vals[*image].as_ref().expect("kept for the measurement")
                };
                let mut tables = Vec::with_capacity(labels.len());
                for (i, (l, n)) in labels.iter().enumerate() {
                    let im = img.part(i)?.expect("an array");
                    let idx: Vec<i64> = (1..=*n as i64).collect();
                    tables.push(measure(*what, &im, l, &idx)?);
                }
                Ok(Data::Tables(tables))
            }
            Op::FindPeaks { opts, fs } => {
                let parts = x.into_parts()?;
                let mut tables = Vec::with_capacity(parts.len());
                for p in &parts {
                    tables.push(peaks(p, opts, *fs)?);
                }
                Ok(Data::Tables(tables))
            }
            _ => {
                let parts = x.into_parts()?;
                Ok(Data::Parts(
                    parts
                        .iter()
                        .map(|a| self.array(a, 0, plan.dtype))
                        .collect::<Result<_>>()?,
                ))
            }
        }
    }

    /// Runs an array stage on `a` whose first `off` axes are batch axes.
    fn array(&self, a: &DynArray, off: usize, cd: ComputeDType) -> Result<DynArray> {
        let ax = |axis: isize| if axis >= 0 { axis + off as isize } else { axis };
        let fnd = a.ndim().saturating_sub(off);
        Ok(match self {
            Op::Sosfiltfilt { sos, axis, padlen } => on_real!(a, "sosfiltfilt", |x, T| {
                let flat: Vec<T> = sos.iter().flatten().map(|&v| v as T).collect();
                let s = Array::from_vec(flat, &[sos.len(), 6], x.device())?;
                let o = signal::FiltfiltOptions {
                    axis: ax(*axis),
                    padlen: *padlen,
                    ..Default::default()
                };
                signal::sosfiltfilt(&s, x, &o)?
            }),
            Op::ResamplePoly { up, down, axis } => on_real!(a, "resample_poly", |x, _T| {
                let o = signal::ResamplePolyOptions {
                    axis: ax(*axis),
                    ..Default::default()
                };
                signal::resample_poly(x, *up, *down, &o)?
            }),
            Op::Decimate { q, opts } => on_real!(a, "decimate", |x, _T| {
                let o = signal::DecimateOptions {
                    axis: ax(opts.axis),
                    ..*opts
                };
                signal::decimate(x, *q, &o)?
            }),
            Op::Hilbert { n, axis, envelope } => on_real!(a, "hilbert", |x, _T| {
                let o = signal::HilbertOptions {
                    n: *n,
                    axis: ax(*axis),
                };
                let z = signal::hilbert(x, &o)?;
                if *envelope {
                    DynArray::from(z.abs()?)
                } else {
                    DynArray::from(z)
                }
            }),
            Op::Stft(s) => on_real!(a, "stft", |x, _T| {
                let o = signal::StftOptions {
                    fs: s.fs,
                    window: s.window.clone().unwrap_or(WindowSpec::Named(Window::Hann)),
                    nperseg: s.nperseg,
                    noverlap: s.noverlap,
                    nfft: s.nfft,
                    axis: ax(s.axis),
                    scaling: s.scaling.unwrap_or(signal::StftOptions::default().scaling),
                    ..Default::default()
                };
                signal::stft(x, &o)?.2
            }),
            Op::Spectrogram(s, mode) => on_real!(a, "spectrogram", |x, _T| {
                let o = signal::SpectrogramOptions {
                    fs: s.fs,
                    window: s
                        .window
                        .clone()
                        .unwrap_or(WindowSpec::Named(Window::Tukey(0.25))),
                    nperseg: s.nperseg,
                    noverlap: s.noverlap,
                    nfft: s.nfft,
                    axis: ax(s.axis),
                    scaling: s
                        .scaling
                        .unwrap_or(signal::SpectrogramOptions::default().scaling),
                    mode: *mode,
                    ..Default::default()
                };
                signal::spectrogram(x, &o)?.2.real().ok_or_else(|| {
                    crate::core::error::make::arg(
                        "spectrogram",
                        "a real mode gave a complex result",
                    )
                })?
            }),
            Op::Welch(s, average) => on_real!(a, "welch", |x, _T| {
                let o = signal::WelchOptions {
                    fs: s.fs,
                    window: s.window.clone().unwrap_or(WindowSpec::Named(Window::Hann)),
                    nperseg: s.nperseg,
                    noverlap: s.noverlap,
                    nfft: s.nfft,
                    axis: ax(s.axis),
                    scaling: s.scaling.unwrap_or(signal::WelchOptions::default().scaling),
                    average: *average,
                    ..Default::default()
                };
                signal::welch(x, &o)?.1
            }),
            Op::Rfft { n, axis } => on_real!(a, "rfft", |x, _T| {
                let o = crate::fft::FftOptions {
                    n: *n,
                    axis: ax(*axis),
                    ..Default::default()
                };
                crate::fft::rfft(x, &o)?
            }),
            Op::Fft { n, axis } => {
                let o = crate::fft::FftOptions {
                    n: *n,
                    axis: ax(*axis),
                    ..Default::default()
                };
                match a {
                    DynArray::F32(x) => DynArray::from(crate::fft::fft(x, &o)?),
                    DynArray::F64(x) => DynArray::from(crate::fft::fft(x, &o)?),
                    DynArray::C32(x) => DynArray::from(crate::fft::fft(x, &o)?),
                    DynArray::C64(x) => DynArray::from(crate::fft::fft(x, &o)?),
                    o => return Err(wrong("fft", o)),
                }
            }
            Op::Gaussian {
                sigma,
                mode,
                cval,
                truncate,
            } => on_real!(a, "gaussian_filter", |x, _T| {
                let mut s = vec![0.0; off];
                s.extend(per_file("gaussian_filter", "sigma", sigma, fnd)?);
                let o = GaussianOptions {
                    mode: *mode,
                    cval: *cval,
                    truncate: *truncate,
                    ..Default::default()
                };
                ndimage::gaussian_filter(x, &s, &o)?
            }),
            Op::Median { size, mode, cval } => on_real!(a, "median_filter", |x, _T| {
                let mut s = vec![1usize; off];
                s.extend(per_file("median_filter", "size", size, fnd)?);
                let o = FilterOptions {
                    mode: *mode,
                    cval: *cval,
                    ..Default::default()
                };
                ndimage::median_filter(x, &Footprint::Size(s), &o)?
            }),
            Op::Sobel { axis, mode, cval } => on_real!(a, "sobel", |x, _T| {
                let o = FilterOptions {
                    mode: *mode,
                    cval: *cval,
                    ..Default::default()
                };
                ndimage::sobel(x, ax(*axis), &o)?
            }),
            Op::Zoom {
                zoom,
                opts,
                grid_mode,
            } => on_real!(a, "zoom", |x, _T| {
                let mut z = vec![1.0; off];
                z.extend(per_file("zoom", "zoom", zoom, fnd)?);
                ndimage::zoom(x, &z, *grid_mode, opts)?
            }),
            Op::Rotate {
                angle,
                axes,
                reshape,
                opts,
            } => on_real!(a, "rotate", |x, _T| {
                ndimage::rotate(x, *angle, (ax(axes.0), ax(axes.1)), *reshape, opts)?
            }),
            Op::Edt { sampling } => {
                let o = ndimage::DistanceOptions {
                    sampling: sampling.clone(),
                    return_distances: true,
                    return_indices: false,
                };
                let d = match a {
                    DynArray::F32(x) => ndimage::distance_transform_edt(x, &o)?.0,
                    DynArray::F64(x) => ndimage::distance_transform_edt(x, &o)?.0,
                    DynArray::Bool(x) => ndimage::distance_transform_edt(x, &o)?.0,
                    o => return Err(wrong("distance_transform_edt", o)),
                }
                .ok_or_else(|| {
                    crate::core::error::make::arg("distance_transform_edt", "no distances")
                })?;
                match cd {
                    ComputeDType::F32 => DynArray::from(d.astype::<f32>()?),
                    ComputeDType::F64 => DynArray::from(d),
                }
            }
            Op::Scale(f) => on_real!(a, "scale", |x, T| x.mul_scalar(*f as T)?),
            Op::Offset(v) => on_real!(a, "offset", |x, T| x.add_scalar(*v as T)?),
            Op::Clip(lo, hi) => on_real!(a, "clip", |x, T| x.clip(*lo as T, *hi as T)?),
            Op::Abs => match a {
                DynArray::F32(x) => DynArray::from(x.abs()?),
                DynArray::F64(x) => DynArray::from(x.abs()?),
                DynArray::C32(x) => DynArray::from(x.abs()?),
                DynArray::C64(x) => DynArray::from(x.abs()?),
                o => return Err(wrong("abs", o)),
            },
            Op::Threshold(v, c) => on_real!(a, "threshold", |x, T| {
                let v = *v as T;
                match c {
                    Cmp::Gt => x.gt_scalar(v)?,
                    Cmp::Ge => x.ge_scalar(v)?,
                    Cmp::Lt => x.lt_scalar(v)?,
                    Cmp::Le => x.le_scalar(v)?,
                }
            }),
            Op::Astype(d) => {
                macro_rules! cast {
                    ($x:expr) => {
                        match d {
                            crate::DType::F32 => DynArray::from($x.astype::<f32>()?),
                            crate::DType::F64 => DynArray::from($x.astype::<f64>()?),
                            crate::DType::C32 => DynArray::from($x.astype::<crate::c32>()?),
                            _ => DynArray::from($x.astype::<crate::c64>()?),
                        }
                    };
                }
                match a {
                    DynArray::F32(x) => cast!(x),
                    DynArray::F64(x) => cast!(x),
                    DynArray::C32(x) => cast!(x),
                    DynArray::C64(x) => cast!(x),
                    o => return Err(wrong("astype", o)),
                }
            }
            Op::FindPeaks { .. } | Op::Label | Op::Measure { .. } => {
                return Err(crate::core::error::make::arg(
                    "pipeline",
                    "not an array stage",
                ))
            }
        })
    }
}

fn wrong(op: &str, a: &DynArray) -> Error {
    Error::UnsupportedDType {
        op: format!("{op} (in a pipeline)"),
        dtype: a.dtype(),
    }
}

/// One value for every axis of a file, or one each.
fn per_file<V: Copy + std::fmt::Debug>(op: &str, arg: &str, v: &[V], nd: usize) -> Result<Vec<V>> {
    match v.len() {
        1 => Ok(vec![v[0]; nd]),
        k if k == nd => Ok(v.to_vec()),
        k => Err(crate::core::error::make::arg(
            op,
            format!("`{arg}` has {k} values for a {nd}-D file (give one, or one per axis)"),
        )),
    }
}

fn measure(what: Measure, im: &DynArray, l: &Array<i32>, idx: &[i64]) -> Result<Table> {
    macro_rules! m {
        ($f:ident) => {
            match im {
                DynArray::F32(x) => ndimage::$f(x, Some(l), Some(idx))?,
                DynArray::F64(x) => ndimage::$f(x, Some(l), Some(idx))?,
                o => return Err(wrong(stringify!($f), o)),
            }
        };
    }
    if im.shape() != l.shape() {
        return Err(crate::core::error::make::arg(
            "pipeline",
            format!(
                "the image {:?} and the labels {:?} differ in shape",
                im.shape(),
                l.shape()
            ),
        ));
    }
    Ok(match what {
        Measure::Sum | Measure::Mean => {
            let v = if what == Measure::Sum {
                m!(sum)
            } else {
                m!(mean)
            };
            Table {
                columns: vec![
                    "label".into(),
                    if what == Measure::Sum { "sum" } else { "mean" }.into(),
                ],
                rows: idx.iter().zip(v).map(|(&i, v)| vec![i as f64, v]).collect(),
            }
        }
        Measure::CenterOfMass => {
            let v = m!(center_of_mass);
            let mut columns = vec!["label".to_string()];
            columns.extend((0..l.ndim()).map(|k| format!("c{k}")));
            Table {
                columns,
                rows: idx
                    .iter()
                    .zip(v)
                    .map(|(&i, c)| {
                        let mut r = vec![i as f64];
                        r.extend(c);
                        r
                    })
                    .collect(),
            }
        }
    })
}

/// A measurement of the whole array (no labels): one row.
fn measure_all(what: Measure, im: &DynArray) -> Result<Table> {
    macro_rules! m {
        ($f:ident) => {
            match im {
                DynArray::F32(x) => ndimage::$f::<f32, i32>(x, None, None)?,
                DynArray::F64(x) => ndimage::$f::<f64, i32>(x, None, None)?,
                o => return Err(wrong(stringify!($f), o)),
            }
        };
    }
    Ok(match what {
        Measure::Sum => Table {
            columns: vec!["sum".into()],
            rows: vec![m!(sum)],
        },
        Measure::Mean => Table {
            columns: vec!["mean".into()],
            rows: vec![m!(mean)],
        },
        Measure::CenterOfMass => Table {
            columns: (0..im.ndim()).map(|k| format!("c{k}")).collect(),
            rows: m!(center_of_mass),
        },
    })
}

fn peaks(p: &DynArray, opts: &signal::FindPeaksOptions, fs: Option<f64>) -> Result<Table> {
    use rayon::prelude::*;
    // the rows' peaks on the host, in parallel: the result is a table on the host, and on a GPU a
    // row of a few thousand samples costs more in launches and waits (one search per row) than
    // its whole search on a CPU core; the CPU's find_peaks gives the GPU's peaks (exact
    // comparisons), as the pipeline tests check
    let p = p.to_device(&cusci_core::Device::cpu())?;
    let n = *p.shape().last().unwrap_or(&0);
    let rows: usize = p.shape()[..p.ndim().saturating_sub(1)].iter().product();
    let mut columns = vec!["channel".to_string(), "index".to_string()];
    if fs.is_some() {
        columns.push("time".into());
    }
    columns.push("value".into());
    let with_prom = opts.prominence.is_some() || opts.width.is_some();
    if with_prom {
        columns.push("prominence".into());
    }
    if opts.width.is_some() {
        columns.push("width".into());
    }
    let one_row = |r: usize| -> Result<Vec<Vec<f64>>> {
        let (pk, props, vals) = match &p {
            DynArray::F32(x) => {
                let row = x
                    .reshape(&[rows as isize, n as isize])?
                    .index_axis(0, r as isize)?;
                let (a, b) = signal::find_peaks(&row, opts)?;
                (
                    a,
                    b,
                    row.to_vec()?.into_iter().map(f64::from).collect::<Vec<_>>(),
                )
            }
            DynArray::F64(x) => {
                let row = x
                    .reshape(&[rows as isize, n as isize])?
                    .index_axis(0, r as isize)?;
                let (a, b) = signal::find_peaks(&row, opts)?;
                (a, b, row.to_vec()?)
            }
            o => return Err(wrong("find_peaks", o)),
        };
        let pk = pk.to_vec()?;
        let prom = props.prominences.map(|a| a.to_vec()).transpose()?;
        let wid = props.widths.map(|a| a.to_vec()).transpose()?;
        let mut out = Vec::with_capacity(pk.len());
        for (k, &i) in pk.iter().enumerate() {
            let mut row = vec![r as f64, i as f64];
            if let Some(f) = fs {
                row.push(i as f64 / f);
            }
            row.push(vals[i as usize]);
            if with_prom {
                row.push(prom.as_ref().map(|v| v[k]).unwrap_or(f64::NAN));
            }
            if opts.width.is_some() {
                row.push(wid.as_ref().map(|v| v[k]).unwrap_or(f64::NAN));
            }
            out.push(row);
        }
        Ok(out)
    };
    let per_row: Vec<Vec<Vec<f64>>> = (0..rows)
        .into_par_iter()
        .map(one_row)
        .collect::<Result<_>>()?;
    Ok(Table {
        columns,
        rows: per_row.into_iter().flatten().collect(),
    })
}
