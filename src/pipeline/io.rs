//! Reading the input files (`.npy`, `.npz`, `.wav`, PNG, TIFF) into arrays of the compute dtype,
//! and writing the outputs (`.npy`, `.npz`, CSV, JSON, PNG) atomically: a temporary file in the
//! same folder, renamed over the final name once complete, so an interrupted run never leaves a
//! half-written output (and `--resume` can trust every output that exists).
//!
//! Layouts: a mono WAV is `(n,)`, a multichannel one `(channels, n)` (time last, so the signal
//! stages' default `axis = -1` is time); integer WAV samples are scaled to `[-1, 1)`. A grey image
//! is `(height, width)`, a colour one `(height, width, channels)`; 8- and 16-bit values are kept
//! as they are (0..255, 0..65535), float TIFFs as stored.

use super::data::{host_f64, Data, Table};
use super::{CompiledOutput, ComputeDType, Input, PipelineError, IO_STAGE};
use crate::core::npy::{self, DynArray, NpyArray};
use crate::{Array, Device};
use std::fs::File;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};

/// What a reader learnt about a file besides its samples.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileInfo {
    /// A WAV file's sample rate.
    pub sample_rate: Option<u32>,
    /// The bytes of the file on disk.
    pub bytes: u64,
}

fn read_err(path: &Path, m: impl Into<String>) -> PipelineError {
    PipelineError::stage(IO_STAGE, "read", None, m).with_file(path)
}

fn write_err(path: &Path, m: impl Into<String>) -> PipelineError {
    PipelineError::stage(IO_STAGE, "write", None, m).with_file(path)
}

fn to_compute(v: Vec<f64>, shape: &[usize], cd: ComputeDType) -> crate::Result<DynArray> {
    let dev = Device::cpu();
    Ok(match cd {
        ComputeDType::F64 => DynArray::from(Array::from_vec(v, shape, &dev)?),
        ComputeDType::F32 => DynArray::from(Array::from_vec(
            v.into_iter().map(|x| x as f32).collect(),
            shape,
            &dev,
        )?),
    })
}

fn convert_dyn(a: DynArray, cd: ComputeDType) -> crate::Result<DynArray> {
    Ok(match (a, cd) {
        (DynArray::F32(x), ComputeDType::F32) => DynArray::from(x),
        (DynArray::F64(x), ComputeDType::F64) => DynArray::from(x),
        (DynArray::F32(x), ComputeDType::F64) => DynArray::from(x.astype::<f64>()?),
        (DynArray::F64(x), ComputeDType::F32) => DynArray::from(x.astype::<f32>()?),
        (o, cd) => {
            let shape = o.shape().to_vec();
            to_compute(host_f64(&o)?, &shape, cd)?
        }
    })
}

/// Reads one input file into a host array of the compute dtype.
///
/// # Errors
/// A [`PipelineError`] of the `read` step naming the file: it cannot be opened or decoded, its
/// dtype is complex, its sample rate or shape differs from the `[input]`'s.
pub fn read_file(
    path: &Path,
    input: &Input,
    cd: ComputeDType,
) -> Result<(DynArray, FileInfo), PipelineError> {
    let bytes = std::fs::metadata(path)
        .map_err(|e| read_err(path, format!("cannot open: {e}")))?
        .len();
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let mut info = FileInfo {
        sample_rate: None,
        bytes,
    };
    let dev = Device::cpu();
    let a = match ext.as_str() {
        "npy" => {
            let a = npy::load_npy_dyn(path, &dev).map_err(|e| read_err(path, e.to_string()))?;
            check_real(path, &a)?;
            convert_dyn(a, cd).map_err(|e| read_err(path, e.to_string()))?
        }
        "npz" => {
            let all = npy::load_npz(path, &dev).map_err(|e| read_err(path, e.to_string()))?;
            let a = match &input.key {
                Some(k) => all
                    .into_iter()
                    .find(|(n, _)| n == k)
                    .map(|(_, a)| a)
                    .ok_or_else(|| read_err(path, format!("the archive has no member {k:?}")))?,
                None => all
                    .into_iter()
                    .next()
                    .map(|(_, a)| a)
                    .ok_or_else(|| read_err(path, "the archive is empty"))?,
            };
            check_real(path, &a)?;
            convert_dyn(a, cd).map_err(|e| read_err(path, e.to_string()))?
        }
        "wav" => {
            let (v, shape, fs) = read_wav(path)?;
            info.sample_rate = Some(fs);
            if let Some(want) = input.fs {
                if want != fs {
                    return Err(read_err(
                        path,
                        format!("sample rate {fs} Hz, the pipeline's input.fs is {want} Hz"),
                    ));
                }
            }
            to_compute(v, &shape, cd).map_err(|e| read_err(path, e.to_string()))?
        }
        "png" => {
            let (v, shape) = read_png(path)?;
            to_compute(v, &shape, cd).map_err(|e| read_err(path, e.to_string()))?
        }
        "tif" | "tiff" => {
            let (v, shape) = read_tiff(path)?;
            to_compute(v, &shape, cd).map_err(|e| read_err(path, e.to_string()))?
        }
        o => {
            return Err(read_err(
                path,
                format!("unknown file type {o:?} (npy, npz, wav, png, tif, tiff)"),
            ))
        }
    };
    if let Some(s) = &input.shape {
        if a.shape() != s.as_slice() {
            return Err(read_err(
                path,
                format!("shape {:?}, the pipeline's input.shape is {s:?}", a.shape()),
            ));
        }
    }
    if a.size() == 0 {
        return Err(read_err(
            path,
            format!("the file holds no data (shape {:?})", a.shape()),
        ));
    }
    Ok((a, info))
}

fn check_real(path: &Path, a: &DynArray) -> Result<(), PipelineError> {
    if a.dtype().is_complex() {
        return Err(read_err(
            path,
            format!(
                "dtype {} is complex; the pipeline reads real data",
                a.dtype()
            ),
        ));
    }
    Ok(())
}

fn read_wav(path: &Path) -> Result<(Vec<f64>, Vec<usize>, u32), PipelineError> {
    let r = hound::WavReader::open(path).map_err(|e| read_err(path, format!("WAV: {e}")))?;
    let spec = r.spec();
    let ch = spec.channels as usize;
    let samples: Vec<f64> = match spec.sample_format {
        hound::SampleFormat::Float => r
            .into_samples::<f32>()
            .map(|s| s.map(f64::from))
            .collect::<Result<_, _>>(),
        hound::SampleFormat::Int => {
            let scale = 2f64.powi(spec.bits_per_sample as i32 - 1);
            r.into_samples::<i32>()
                .map(|s| s.map(|v| v as f64 / scale))
                .collect::<Result<_, _>>()
        }
    }
    .map_err(|e| read_err(path, format!("WAV: {e}")))?;
    if ch == 0 || samples.len() % ch != 0 {
        return Err(read_err(
            path,
            "WAV: the samples do not fill the last frame",
        ));
    }
    let n = samples.len() / ch;
    if ch == 1 {
        return Ok((samples, vec![n], spec.sample_rate));
    }
    // interleaved frames -> (channels, n)
    let mut out = vec![0.0; samples.len()];
    for (i, s) in samples.iter().enumerate() {
        out[(i % ch) * n + i / ch] = *s;
    }
    Ok((out, vec![ch, n], spec.sample_rate))
}

fn read_png(path: &Path) -> Result<(Vec<f64>, Vec<usize>), PipelineError> {
    let f = File::open(path).map_err(|e| read_err(path, format!("cannot open: {e}")))?;
    let mut d = png::Decoder::new(BufReader::new(f));
    d.set_transformations(png::Transformations::EXPAND);
    let mut r = d
        .read_info()
        .map_err(|e| read_err(path, format!("PNG: {e}")))?;
    let size = r
        .output_buffer_size()
        .ok_or_else(|| read_err(path, "PNG: the image is too large"))?;
    let mut buf = vec![0u8; size];
    let info = r
        .next_frame(&mut buf)
        .map_err(|e| read_err(path, format!("PNG: {e}")))?;
    let (h, w) = (info.height as usize, info.width as usize);
    let ch = info.color_type.samples();
    let v: Vec<f64> = match info.bit_depth {
        png::BitDepth::Sixteen => buf[..h * w * ch * 2]
            .chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]) as f64)
            .collect(),
        png::BitDepth::Eight => buf[..h * w * ch].iter().map(|&b| b as f64).collect(),
        d => {
            return Err(read_err(
                path,
                format!("PNG: bit depth {d:?} after expansion"),
            ))
        }
    };
    let shape = if ch == 1 { vec![h, w] } else { vec![h, w, ch] };
    Ok((v, shape))
}

fn read_tiff(path: &Path) -> Result<(Vec<f64>, Vec<usize>), PipelineError> {
    use tiff::decoder::DecodingResult as R;
    let f = File::open(path).map_err(|e| read_err(path, format!("cannot open: {e}")))?;
    let mut d = tiff::decoder::Decoder::new(BufReader::new(f))
        .map_err(|e| read_err(path, format!("TIFF: {e}")))?;
    let (w, h) = d
        .dimensions()
        .map_err(|e| read_err(path, format!("TIFF: {e}")))?;
    let ch = match d
        .colortype()
        .map_err(|e| read_err(path, format!("TIFF: {e}")))?
    {
        tiff::ColorType::Gray(_) => 1,
        tiff::ColorType::GrayA(_) => 2,
        tiff::ColorType::RGB(_) => 3,
        tiff::ColorType::RGBA(_) => 4,
        o => {
            return Err(read_err(
                path,
                format!("TIFF: colour type {o:?} is not read"),
            ))
        }
    };
    let img = d
        .read_image()
        .map_err(|e| read_err(path, format!("TIFF: {e}")))?;
    let v: Vec<f64> = match img {
        R::U8(v) => v.into_iter().map(f64::from).collect(),
        R::U16(v) => v.into_iter().map(f64::from).collect(),
        R::U32(v) => v.into_iter().map(f64::from).collect(),
        R::I8(v) => v.into_iter().map(f64::from).collect(),
        R::I16(v) => v.into_iter().map(f64::from).collect(),
        R::I32(v) => v.into_iter().map(f64::from).collect(),
        R::F32(v) => v.into_iter().map(f64::from).collect(),
        R::F64(v) => v,
        _ => return Err(read_err(path, "TIFF: sample format not read")),
    };
    let (h, w) = (h as usize, w as usize);
    if v.len() != h * w * ch {
        return Err(read_err(path, "TIFF: the strips do not fill the image"));
    }
    let shape = if ch == 1 { vec![h, w] } else { vec![h, w, ch] };
    Ok((v, shape))
}

/// The path of output `o` for input `file` under `out`: `OUT/<stem>.<name>.<format>`.
pub fn output_path(out: &Path, file: &Path, o: &CompiledOutput) -> PathBuf {
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "file".into());
    out.join(format!("{stem}.{}.{}", o.name, o.extension()))
}

/// Writes `path` through a temporary file in the same folder and a rename: the final name
/// appears only complete.
///
/// # Errors
/// A [`PipelineError`] of the `write` step naming the file.
pub fn write_atomic(
    path: &Path,
    body: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), PipelineError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    if let Err(m) = body(&tmp) {
        let _ = std::fs::remove_file(&tmp);
        return Err(write_err(path, m));
    }
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(write_err(
            path,
            format!("cannot move the finished file into place: {e}"),
        ));
    }
    Ok(())
}

fn write_bytes(tmp: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut f = File::create(tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
    f.write_all(bytes)
        .map_err(|e| format!("writing {}: {e}", tmp.display()))
}

/// Writes output `o` of one file: `vals[j]` is stage `j`'s value (`input` for the file as
/// read), `i` the file's index in the batch.
///
/// Returns the bytes written.
///
/// # Errors
/// A [`PipelineError`] of the `write` step naming the output file.
pub fn write_output(
    path: &Path,
    o: &CompiledOutput,
    names: &[String],
    vals: &[&Data],
    i: usize,
) -> Result<u64, PipelineError> {
    let part = |k: usize| -> Result<DynArray, PipelineError> {
        vals[k]
            .part(i)
            .map_err(|e| write_err(path, e.to_string()))?
            .ok_or_else(|| write_err(path, "a table cannot be written as an array"))
    };
    let bytes: Vec<u8> = match o.format.as_str() {
        "npy" => npy::to_npy_bytes(&part(0)?).map_err(|e| write_err(path, e.to_string()))?,
        "npz" => {
            let arrays: Vec<DynArray> = (0..vals.len()).map(part).collect::<Result<_, _>>()?;
            let list: Vec<(&str, &dyn NpyArray)> = names
                .iter()
                .map(String::as_str)
                .zip(arrays.iter().map(|a| a as &dyn NpyArray))
                .collect();
            let mut n = 0;
            write_atomic(path, |tmp| {
                npy::save_npz(tmp, &list).map_err(|e| e.to_string())?;
                n = std::fs::metadata(tmp).map(|m| m.len()).unwrap_or(0);
                Ok(())
            })?;
            return Ok(n);
        }
        "csv" | "json" => {
            let t: &Table = vals[0]
                .table(i)
                .ok_or_else(|| write_err(path, "an array cannot be written as a table"))?;
            if o.format == "csv" {
                t.to_csv().into_bytes()
            } else {
                t.to_json().into_bytes()
            }
        }
        "png" => {
            let labels = matches!(vals[0], Data::Labels(_));
            image_png(&part(0)?, labels).map_err(|m| write_err(path, m))?
        }
        "plot" => {
            let plot = o
                .plot
                .as_ref()
                .ok_or_else(|| write_err(path, "a plot output without its plot kind"))?;
            super::plot::render(plot, names, vals, i).map_err(|m| write_err(path, m))?
        }
        f => return Err(write_err(path, format!("unknown format {f:?}"))),
    };
    write_atomic(path, |tmp| write_bytes(tmp, &bytes))?;
    Ok(bytes.len() as u64)
}

/// Encodes 8-bit samples (`channels` 1 = grey, 3 = RGB, 4 = RGBA) as a PNG file's bytes.
///
/// # Errors
/// The encoder's message (a size that does not match).
pub fn encode_png(
    width: u32,
    height: u32,
    channels: usize,
    data: &[u8],
) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    {
        let mut e = png::Encoder::new(&mut out, width, height);
        e.set_color(match channels {
            1 => png::ColorType::Grayscale,
            2 => png::ColorType::GrayscaleAlpha,
            3 => png::ColorType::Rgb,
            4 => png::ColorType::Rgba,
            c => return Err(format!("{c} channels: PNG takes 1 to 4")),
        });
        e.set_depth(png::BitDepth::Eight);
        let mut w = e.write_header().map_err(|e| e.to_string())?;
        w.write_image_data(data).map_err(|e| e.to_string())?;
        w.finish().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// An array as a PNG: 2-D (grey) or `(h, w, 1..=4)`; real values scaled from their minimum to
/// their maximum onto 0..255, masks 0/255, labels (`labels`) in distinct colours (0 black).
fn image_png(a: &DynArray, labels: bool) -> Result<Vec<u8>, String> {
    let s = a.shape().to_vec();
    let (h, w, ch) = match s.len() {
        2 => (s[0], s[1], 1),
        3 if (1..=4).contains(&s[2]) => (s[0], s[1], s[2]),
        _ => {
            return Err(format!(
                "a PNG needs a 2-D array or (h, w, channels), got shape {s:?}"
            ))
        }
    };
    let v = host_f64(a).map_err(|e| e.to_string())?;
    if labels {
        let mut px = Vec::with_capacity(h * w * 3);
        for &l in &v {
            px.extend(label_colour(l as u32));
        }
        return encode_png(w as u32, h as u32, 3, &px);
    }
    let (lo, hi) = v
        .iter()
        .filter(|x| x.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &x| {
            (l.min(x), h.max(x))
        });
    let span = if hi > lo { hi - lo } else { 1.0 };
    let px: Vec<u8> = v
        .iter()
        .map(|&x| {
            if x.is_finite() {
                (((x - lo) / span) * 255.0).round().clamp(0.0, 255.0) as u8
            } else {
                0
            }
        })
        .collect();
    encode_png(w as u32, h as u32, ch, &px)
}

/// A label's colour: 0 black, the others spread over hues by the golden ratio.
pub fn label_colour(l: u32) -> [u8; 3] {
    if l == 0 {
        return [0, 0, 0];
    }
    let hue = (l as f64 * 0.618_033_988_75).fract() * 6.0;
    let x = 1.0 - (hue % 2.0 - 1.0).abs();
    let (r, g, b) = match hue as u32 {
        0 => (1.0, x, 0.0),
        1 => (x, 1.0, 0.0),
        2 => (0.0, 1.0, x),
        3 => (0.0, x, 1.0),
        4 => (x, 0.0, 1.0),
        _ => (1.0, 0.0, x),
    };
    let f = |c: f64| (55.0 + 200.0 * c) as u8;
    [f(r), f(g), f(b)]
}

/// Writes a WAV file of `channels` interleaved 16-bit channels (test data).
///
/// # Errors
/// The encoder's message.
pub fn write_wav_i16(path: &Path, fs: u32, channels: u16, frames: &[i16]) -> Result<(), String> {
    let spec = hound::WavSpec {
        channels,
        sample_rate: fs,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut w = hound::WavWriter::create(path, spec).map_err(|e| e.to_string())?;
    for &s in frames {
        w.write_sample(s).map_err(|e| e.to_string())?;
    }
    w.finalize().map_err(|e| e.to_string())
}

/// Writes a 16-bit grey TIFF (test data).
///
/// # Errors
/// The encoder's message.
pub fn write_tiff_u16(path: &Path, width: u32, height: u32, data: &[u16]) -> Result<(), String> {
    let f = File::create(path).map_err(|e| e.to_string())?;
    let mut e =
        tiff::encoder::TiffEncoder::new(std::io::BufWriter::new(f)).map_err(|e| e.to_string())?;
    e.write_image::<tiff::encoder::colortype::Gray16>(width, height, data)
        .map_err(|e| e.to_string())
}

/// Writes a 16-bit grey PNG (test data).
///
/// # Errors
/// The encoder's message.
pub fn write_png_u16(path: &Path, width: u32, height: u32, data: &[u16]) -> Result<(), String> {
    let mut out = Vec::new();
    {
        let mut e = png::Encoder::new(&mut out, width, height);
        e.set_color(png::ColorType::Grayscale);
        e.set_depth(png::BitDepth::Sixteen);
        let mut w = e.write_header().map_err(|e| e.to_string())?;
        let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_be_bytes()).collect();
        w.write_image_data(&bytes).map_err(|e| e.to_string())?;
        w.finish().map_err(|e| e.to_string())?;
    }
    std::fs::write(path, out).map_err(|e| e.to_string())
}
