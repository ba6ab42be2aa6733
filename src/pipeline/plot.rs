//! `format = "plot"`: PNG plots drawn with `plotters` (bitmap backend, an embedded font: no
//! system fonts), chosen by what the output holds.

use super::data::{host_f64, Data};
use super::{io, Kind, Op};
use crate::core::npy::DynArray;
use crate::signal::{Scaling, SpectrogramMode};
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use std::sync::Once;

/// What a `format = "plot"` output draws (decided by [`Plan::compile`](super::Pipeline::compile)
/// from the stages it names).
#[derive(Clone, Debug, PartialEq)]
pub enum PlotKind {
    /// A `spectrogram` or `stft` result: a time × frequency image per channel in dB, axes in s and
    /// Hz, a colour bar.
    Spectrogram {
        /// The sample rate.
        fs: f64,
        /// The stage's `nperseg` (default 256).
        nperseg: usize,
        /// The stage's `noverlap` (`None`: the function's default).
        noverlap: Option<usize>,
        /// The stage's `nfft`.
        nfft: Option<usize>,
        /// `stft` (complex, magnitude in dB; segment times from 0) rather than `spectrogram`.
        stft: bool,
        /// Amplitudes (`20 log10`) rather than powers (`10 log10`).
        amplitude: bool,
    },
    /// A `welch` result: one line per channel on a log-y axis, in Hz and V²/Hz (V² for
    /// `scaling = "spectrum"`).
    Psd {
        /// The sample rate.
        fs: f64,
        /// `scaling = "density"`.
        density: bool,
    },
    /// A signal (one line per row, along the last axis), with `find_peaks` markers when the
    /// output names its peaks too; times in s when `find_peaks` has `fs`.
    Trace {
        /// The sample rate (of `find_peaks`), for a time axis.
        fs: Option<f64>,
        /// The output names the signal and its peaks.
        peaks: bool,
    },
    /// 2-D images side by side (grey, each scaled to its own range; label maps in colour).
    Panels,
    /// A label map in colour, with a legend of the count.
    Labels,
}

/// The plot kinds, for error messages.
pub const PLOT_KINDS: &str = "a spectrogram or stft stage (time x frequency in dB); a welch \
stage (PSD, log y); a real signal, or [signal, its find_peaks stage] (a trace with peak markers); \
[image, image, ...] (2-D images side by side, e.g. [\"input\", \"denoised\"]); a label stage \
(a label map in colour)";

/// The plot of an output naming `from` (stage indices, `usize::MAX` for the file as read).
pub(super) fn plot_kind(
    from: &[usize],
    stages: &[super::CompiledStage],
) -> Result<PlotKind, String> {
    let kind = |j: usize| {
        if j == usize::MAX {
            Kind::Real
        } else {
            stages[j].kind
        }
    };
    let op = |j: usize| (j != usize::MAX).then(|| &stages[j].op);
    let name = |j: usize| {
        if j == usize::MAX {
            "input".to_string()
        } else {
            stages[j].name.clone()
        }
    };
    let no = |what: String| {
        Err(format!(
            "{what}: no plot of that; a plot shows {PLOT_KINDS}"
        ))
    };
    let spectral_axis = |axis: isize, j: usize| {
        if axis == -1 {
            Ok(())
        } else {
            Err(format!(
                "{:?} runs along axis {axis}: a spectral plot needs axis = -1 (time last)",
                name(j)
            ))
        }
    };
    match from {
        [j] => match (op(*j), kind(*j)) {
            (Some(Op::Spectrogram(s, mode)), _) => {
                spectral_axis(s.axis, *j)?;
                if !matches!(mode, SpectrogramMode::Psd | SpectrogramMode::Magnitude) {
                    return no(format!("a spectrogram of mode {mode:?} ({:?})", name(*j)));
                }
                Ok(PlotKind::Spectrogram {
                    fs: s.fs,
                    nperseg: s.nperseg.unwrap_or(256),
                    noverlap: s.noverlap,
                    nfft: s.nfft,
                    stft: false,
                    amplitude: *mode == SpectrogramMode::Magnitude,
                })
            }
            (Some(Op::Stft(s)), _) => {
                spectral_axis(s.axis, *j)?;
                Ok(PlotKind::Spectrogram {
                    fs: s.fs,
                    nperseg: s.nperseg.unwrap_or(256),
                    noverlap: s.noverlap,
                    nfft: s.nfft,
                    stft: true,
                    amplitude: true,
                })
            }
            (Some(Op::Welch(s, _)), _) => {
                spectral_axis(s.axis, *j)?;
                Ok(PlotKind::Psd {
                    fs: s.fs,
                    density: s.scaling.unwrap_or(Scaling::Density) == Scaling::Density,
                })
            }
            (_, Kind::Labels) => Ok(PlotKind::Labels),
            (_, Kind::Real | Kind::Mask) => Ok(PlotKind::Panels),
            (_, k) => no(format!("a {k} result ({:?})", name(*j))),
        },
        [s, p] if matches!(op(*p), Some(Op::FindPeaks { .. })) => {
            let Some(Op::FindPeaks { fs, .. }) = op(*p) else {
                unreachable!()
            };
            // the signal must be the one find_peaks ran on
            let src = match stages[*p].source {
                None => p.wrapping_sub(1),
                Some(j) => j,
            };
            if src != *s {
                return Err(format!(
                    "the peaks {:?} were found in {:?}, not in {:?}",
                    name(*p),
                    name(src),
                    name(*s)
                ));
            }
            Ok(PlotKind::Trace {
                fs: *fs,
                peaks: true,
            })
        }
        many if (2..=4).contains(&many.len())
            && many.iter().all(|&j| {
                matches!(kind(j), Kind::Real | Kind::Mask | Kind::Labels)
                    && !matches!(
                        op(j),
                        Some(Op::Spectrogram(..) | Op::Stft(_) | Op::Welch(..))
                    )
            }) =>
        {
            Ok(PlotKind::Panels)
        }
        many => {
            let kinds: Vec<String> = many
                .iter()
                .map(|&j| format!("{:?} ({})", name(j), kind(j)))
                .collect();
            no(format!("[{}]", kinds.join(", ")))
        }
    }
}

static FONT: Once = Once::new();

/// Registers the embedded font as plotters' `sans-serif` (once).
fn font() {
    FONT.call_once(|| {
        // the font is compiled in: it parses
        let _ = register_font(
            "sans-serif",
            FontStyle::Normal,
            epaint_default_fonts::UBUNTU_LIGHT,
        );
    });
}

type E = String;

fn de<T: std::fmt::Debug>(e: T) -> String {
    format!("drawing the plot: {e:?}")
}

/// Draws output `plot` of file `i` of `vals` (its stages' values, named `names`) as a PNG
/// file's bytes.
pub(super) fn render(
    plot: &PlotKind,
    names: &[String],
    vals: &[&Data],
    i: usize,
) -> Result<Vec<u8>, E> {
    font();
    let arr = |k: usize| -> Result<(Vec<usize>, Vec<f64>), E> {
        let a = vals[k]
            .part(i)
            .map_err(|e| e.to_string())?
            .ok_or("a table cannot be plotted as an array")?;
        let shape = a.shape().to_vec();
        let mut v = host_f64(&a).map_err(|e| e.to_string())?;
        if matches!(a, DynArray::C32(_) | DynArray::C64(_)) {
            v = v.chunks(2).map(|c| c[0].hypot(c[1])).collect();
        }
        Ok((shape, v))
    };
    match plot {
        PlotKind::Spectrogram { .. } => {
            let (shape, v) = arr(0)?;
            spectrogram(plot, &names[0], &shape, &v)
        }
        PlotKind::Psd { fs, density } => {
            let (shape, v) = arr(0)?;
            psd(*fs, *density, &names[0], &shape, &v)
        }
        PlotKind::Trace { fs, peaks } => {
            let (shape, v) = arr(0)?;
            let pk: Vec<(usize, f64, f64)> = if *peaks {
                let t = vals[1].table(i).ok_or("the peaks are not a table")?;
                let col = |c: &str| t.columns.iter().position(|n| n == c);
                let (ch, ix, va) = (
                    col("channel").ok_or("no channel column")?,
                    col("index").ok_or("no index column")?,
                    col("value").ok_or("no value column")?,
                );
                t.rows
                    .iter()
                    .map(|r| (r[ch] as usize, r[ix], r[va]))
                    .collect()
            } else {
                Vec::new()
            };
            let title = if *peaks {
                format!("{} and {} ({} peaks)", names[0], names[1], pk.len())
            } else {
                names[0].clone()
            };
            trace(*fs, &title, &shape, &v, &pk)
        }
        PlotKind::Panels | PlotKind::Labels => {
            let mut imgs = Vec::new();
            for (k, d) in vals.iter().enumerate() {
                let (shape, v) = arr(k)?;
                let count = match d {
                    Data::Labels(l) => Some(l[i].1),
                    _ => None,
                };
                if vals.len() == 1 && count.is_none() && is_trace(&shape) {
                    return trace(None, &names[0], &shape, &v, &[]);
                }
                if shape.len() != 2 {
                    return Err(format!(
                        "{:?} has shape {shape:?}: an image plot needs a 2-D array",
                        names[k]
                    ));
                }
                imgs.push((names[k].clone(), shape, v, count));
            }
            panels(&imgs)
        }
    }
}

/// A one-dimensional real array plotted as a trace; a 2-D real array with few rows (at most 8,
/// each at least 8 times as long as there are rows) too; else as an image.
fn is_trace(shape: &[usize]) -> bool {
    match shape {
        [_] => true,
        [r, n] => *r <= 8 && *n >= 8 * *r,
        _ => false,
    }
}

/// Draws with `f` on a `w` x `h` RGB buffer and encodes it as PNG.
fn draw(
    w: u32,
    h: u32,
    f: impl FnOnce(&DrawingArea<BitMapBackend, plotters::coord::Shift>) -> Result<(), E>,
) -> Result<Vec<u8>, E> {
    let mut buf = vec![255u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
        root.fill(&WHITE).map_err(de)?;
        f(&root)?;
        root.present().map_err(de)?;
    }
    io::encode_png(w, h, 3, &buf)
}

/// A perceptually ordered colour map (dark blue, purple, orange, yellow) at `t` in [0, 1].
fn colour_map(t: f64) -> RGBColor {
    const STOPS: [[f64; 3]; 5] = [
        [13.0, 8.0, 135.0],
        [126.0, 3.0, 168.0],
        [204.0, 71.0, 120.0],
        [248.0, 149.0, 64.0],
        [240.0, 249.0, 33.0],
    ];
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    } * 4.0;
    let i = (t as usize).min(3);
    let f = t - i as f64;
    let c = |k: usize| (STOPS[i][k] + (STOPS[i + 1][k] - STOPS[i][k]) * f).round() as u8;
    RGBColor(c(0), c(1), c(2))
}

/// Rows of a `(..., n)` array: `(rows, n)`.
fn rows_of(shape: &[usize]) -> (usize, usize) {
    let n = *shape.last().unwrap_or(&1);
    let r = shape[..shape.len().saturating_sub(1)].iter().product();
    (r, n)
}

fn spectrogram(plot: &PlotKind, name: &str, shape: &[usize], v: &[f64]) -> Result<Vec<u8>, E> {
    let PlotKind::Spectrogram {
        fs,
        nperseg,
        noverlap,
        nfft,
        stft,
        amplitude,
    } = plot.clone()
    else {
        unreachable!()
    };
    if shape.len() < 2 {
        return Err(format!("a spectrogram of shape {shape:?}"));
    }
    let nf = shape[shape.len() - 2];
    let nt = shape[shape.len() - 1];
    let ch: usize = shape[..shape.len() - 2].iter().product();
    if nf == 0 || nt == 0 || ch == 0 {
        return Err(format!("an empty spectrogram (shape {shape:?})"));
    }
    // the FFT length: the stage's when it gives this many bins (nperseg may have been cut to a
    // short signal's length)
    let n_fft = nfft.unwrap_or(nperseg);
    let n_fft = if n_fft / 2 + 1 == nf {
        n_fft
    } else {
        2 * (nf - 1).max(1)
    };
    let nps = if nfft.is_none() { n_fft } else { nperseg };
    let nov = noverlap.unwrap_or(if stft { nps / 2 } else { nps / 8 });
    let step = nps.saturating_sub(nov).max(1) as f64;
    let t0 = if stft { 0.0 } else { nps as f64 / 2.0 };
    let time = |j: f64| (t0 + j * step) / fs;
    let df = fs / n_fft as f64;
    let db: Vec<f64> = v
        .iter()
        .map(|&x| {
            let x = x.abs().max(1e-30);
            if amplitude {
                20.0 * x.log10()
            } else {
                10.0 * x.log10()
            }
        })
        .collect();
    let hi = db.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let lo = db
        .iter()
        .cloned()
        .fold(f64::INFINITY, f64::min)
        .max(hi - 80.0);
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (hi - 1.0, hi + 1.0)
    };
    let shown = ch.min(4);
    let (w, h) = (900u32, 40 + 260 * shown as u32);
    let (x0, x1) = (time(-0.5), time(nt as f64 - 0.5));
    let (y0, y1) = (-0.5 * df, (nf as f64 - 0.5) * df);
    draw(w, h, |root| {
        let title = if ch > shown {
            format!("{name} (first {shown} of {ch} channels)")
        } else {
            name.to_string()
        };
        let root = root.titled(&title, ("sans-serif", 22)).map_err(de)?;
        let (main, bar) = root.split_horizontally(w - 110);
        for (c, area) in main.split_evenly((shown, 1)).iter().enumerate() {
            let mut chart = ChartBuilder::on(area)
                .margin(8)
                .caption(format!("channel {c}"), ("sans-serif", 15))
                .x_label_area_size(36)
                .y_label_area_size(64)
                .build_cartesian_2d(x0..x1, y0..y1)
                .map_err(de)?;
            chart
                .configure_mesh()
                .disable_mesh()
                .x_desc("time (s)")
                .y_desc("frequency (Hz)")
                .y_label_formatter(&|y| format!("{y:.0}"))
                .draw()
                .map_err(de)?;
            let base = c * nf * nt;
            chart
                .draw_series((0..nf).flat_map(|f| {
                    let db = &db;
                    (0..nt).map(move |j| {
                        let t = (db[base + f * nt + j] - lo) / (hi - lo);
                        Rectangle::new(
                            [
                                (time(j as f64 - 0.5), (f as f64 - 0.5) * df),
                                (time(j as f64 + 0.5), (f as f64 + 0.5) * df),
                            ],
                            colour_map(t).filled(),
                        )
                    })
                }))
                .map_err(de)?;
        }
        let mut cb = ChartBuilder::on(&bar)
            .margin(8)
            .margin_top(30)
            .caption("dB", ("sans-serif", 15))
            .y_label_area_size(56)
            .build_cartesian_2d(0.0..1.0, lo..hi)
            .map_err(de)?;
        cb.configure_mesh()
            .disable_mesh()
            .disable_x_axis()
            .y_label_style(("sans-serif", 13))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()
            .map_err(de)?;
        let steps = 100;
        cb.draw_series((0..steps).map(|i| {
            let a = lo + (hi - lo) * i as f64 / steps as f64;
            let b = lo + (hi - lo) * (i + 1) as f64 / steps as f64;
            Rectangle::new(
                [(0.0, a), (1.0, b)],
                colour_map((i as f64 + 0.5) / steps as f64).filled(),
            )
        }))
        .map_err(de)?;
        Ok(())
    })
}

fn line_colour(c: usize) -> RGBColor {
    const C: [RGBColor; 6] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(23, 190, 207),
    ];
    C[c % C.len()]
}

fn psd(fs: f64, density: bool, name: &str, shape: &[usize], v: &[f64]) -> Result<Vec<u8>, E> {
    let (rows, n) = rows_of(shape);
    if n < 2 || rows == 0 {
        return Err(format!("a PSD of shape {shape:?}"));
    }
    let df = fs / (2 * (n - 1)) as f64;
    let pos = v.iter().cloned().filter(|x| *x > 0.0 && x.is_finite());
    let hi = pos.clone().fold(f64::NEG_INFINITY, f64::max);
    let lo = pos.fold(f64::INFINITY, f64::min);
    let (lo, hi) = if hi.is_finite() && lo.is_finite() && hi > lo {
        (lo.max(hi * 1e-10) * 0.5, hi * 2.0)
    } else {
        (1e-12, 1.0)
    };
    let unit = if density {
        "PSD (V²/Hz)"
    } else {
        "power (V²)"
    };
    let shown = rows.min(6);
    draw(900, 520, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .caption(name, ("sans-serif", 22))
            .x_label_area_size(40)
            .y_label_area_size(80)
            .build_cartesian_2d(0.0..fs / 2.0, (lo..hi).log_scale())
            .map_err(de)?;
        chart
            .configure_mesh()
            .x_desc("frequency (Hz)")
            .y_desc(unit)
            .y_label_formatter(&|y| format!("{y:.0e}"))
            .draw()
            .map_err(de)?;
        for r in 0..shown {
            let c = line_colour(r);
            chart
                .draw_series(LineSeries::new(
                    (0..n).map(|k| (k as f64 * df, v[r * n + k].max(lo))),
                    c.stroke_width(2),
                ))
                .map_err(de)?
                .label(format!("channel {r}"))
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], c.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(de)?;
        Ok(())
    })
}

fn trace(
    fs: Option<f64>,
    title: &str,
    shape: &[usize],
    v: &[f64],
    peaks: &[(usize, f64, f64)],
) -> Result<Vec<u8>, E> {
    let (rows, n) = rows_of(shape);
    if n == 0 || rows == 0 {
        return Err(format!("an empty signal (shape {shape:?})"));
    }
    let shown = rows.min(8);
    let x = |i: f64| fs.map(|f| i / f).unwrap_or(i);
    let xdesc = if fs.is_some() { "time (s)" } else { "sample" };
    draw(900, 40 + 230 * shown as u32, |root| {
        let root = root.titled(title, ("sans-serif", 22)).map_err(de)?;
        for (r, area) in root.split_evenly((shown, 1)).iter().enumerate() {
            let row = &v[r * n..(r + 1) * n];
            let lo = row
                .iter()
                .cloned()
                .filter(|y| y.is_finite())
                .fold(f64::INFINITY, f64::min);
            let hi = row
                .iter()
                .cloned()
                .filter(|y| y.is_finite())
                .fold(f64::NEG_INFINITY, f64::max);
            let (lo, hi) = if hi > lo {
                let pad = 0.05 * (hi - lo);
                (lo - pad, hi + pad)
            } else if hi.is_finite() {
                (hi - 1.0, hi + 1.0)
            } else {
                (-1.0, 1.0)
            };
            let mut chart = ChartBuilder::on(area)
                .margin(8)
                .caption(format!("channel {r}"), ("sans-serif", 15))
                .x_label_area_size(36)
                .y_label_area_size(64)
                .build_cartesian_2d(x(0.0)..x((n - 1).max(1) as f64), lo..hi)
                .map_err(de)?;
            chart
                .configure_mesh()
                .x_desc(xdesc)
                .y_desc("value")
                .draw()
                .map_err(de)?;
            chart
                .draw_series(LineSeries::new(
                    row.iter()
                        .enumerate()
                        .filter(|(_, y)| y.is_finite())
                        .map(|(i, &y)| (x(i as f64), y)),
                    line_colour(0).stroke_width(1),
                ))
                .map_err(de)?;
            chart
                .draw_series(
                    peaks
                        .iter()
                        .filter(|p| p.0 == r)
                        .map(|p| Circle::new((x(p.1), p.2), 5, RED.stroke_width(2))),
                )
                .map_err(de)?;
        }
        Ok(())
    })
}

/// (name, shape, values, label count for a label map)
type Panel = (String, Vec<usize>, Vec<f64>, Option<usize>);

fn panels(imgs: &[Panel]) -> Result<Vec<u8>, E> {
    let hmax = imgs.iter().map(|p| p.1[0]).max().unwrap_or(1).max(1);
    let wmax = imgs.iter().map(|p| p.1[1]).max().unwrap_or(1).max(1);
    // each panel about 400 px on its longer side
    let scale = (400.0 / hmax.max(wmax) as f64).clamp(0.05, 8.0);
    let legend = imgs.iter().any(|p| p.3.is_some());
    let pw = (wmax as f64 * scale) as u32 + 90 + if legend { 120 } else { 0 };
    let ph = (hmax as f64 * scale) as u32 + 90;
    draw(pw * imgs.len() as u32, ph, |root| {
        for (area, (name, shape, v, count)) in root.split_evenly((1, imgs.len())).iter().zip(imgs) {
            let (h, w) = (shape[0], shape[1]);
            let (img_area, leg) = if legend {
                area.split_horizontally(pw - 120)
            } else {
                (area.clone(), area.clone())
            };
            let caption = match count {
                Some(c) => format!("{name}: {c} objects"),
                None => name.clone(),
            };
            let mut chart = ChartBuilder::on(&img_area)
                .margin(8)
                .caption(caption, ("sans-serif", 18))
                .x_label_area_size(40)
                .y_label_area_size(44)
                .build_cartesian_2d(0.0..w as f64, h as f64..0.0)
                .map_err(de)?;
            chart
                .configure_mesh()
                .disable_mesh()
                .x_desc("x (pixel)")
                .y_desc("y (pixel)")
                .x_label_formatter(&|x| format!("{x:.0}"))
                .y_label_formatter(&|y| format!("{y:.0}"))
                .draw()
                .map_err(de)?;
            let (lo, hi) = v
                .iter()
                .filter(|x| x.is_finite())
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &x| {
                    (l.min(x), h.max(x))
                });
            let span = if hi > lo { hi - lo } else { 1.0 };
            let colour = |x: f64| -> RGBColor {
                if count.is_some() {
                    let [r, g, b] = io::label_colour(x.max(0.0) as u32);
                    RGBColor(r, g, b)
                } else {
                    let g = if x.is_finite() {
                        (((x - lo) / span) * 255.0).round().clamp(0.0, 255.0) as u8
                    } else {
                        0
                    };
                    RGBColor(g, g, g)
                }
            };
            chart
                .draw_series((0..h).flat_map(|i| {
                    (0..w).map(move |j| {
                        Rectangle::new(
                            [(j as f64, i as f64), (j as f64 + 1.0, i as f64 + 1.0)],
                            colour(v[i * w + j]).filled(),
                        )
                    })
                }))
                .map_err(de)?;
            if let Some(c) = count {
                // the legend: a swatch per label (up to 12), then the count
                let style = ("sans-serif", 14).into_font();
                let shown = (*c).min(12);
                for l in 1..=shown {
                    let y = 40 + 20 * (l as i32 - 1);
                    let [r, g, b] = io::label_colour(l as u32);
                    leg.draw(&Rectangle::new(
                        [(8, y), (24, y + 14)],
                        RGBColor(r, g, b).filled(),
                    ))
                    .map_err(de)?;
                    leg.draw(&Text::new(format!("{l}"), (30, y), style.clone()))
                        .map_err(de)?;
                }
                let y = 44 + 20 * shown as i32;
                let more = if *c > shown { " in all" } else { "" };
                leg.draw(&Text::new(
                    format!("{c} labels{more}"),
                    (8, y),
                    style.clone(),
                ))
                .map_err(de)?;
            }
        }
        Ok(())
    })
}
