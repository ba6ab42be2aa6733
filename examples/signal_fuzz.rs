//! The driver of the signal differential fuzz (`scripts/signal_fuzz/`): reads `DIR/cases.txt`
//! (one case a line: `INDEX FUNCTION key=value ...`; the arrays in `DIR/NAME_INDEX.npy`, f64),
//! runs each case on the CPU and writes its results as `DIR/out_INDEX_K.npy` (K = 0, 1, ...:
//! the function's outputs in SciPy's order; complex arrays as `[..., 2]`) or `DIR/err_INDEX.txt`
//! (the error, or `PANIC`); `fuzz.py` generates the cases and compares with SciPy.
//!
//! `cargo run --release --example signal_fuzz -- DIR`
use cusci::core::npy::{load_npy, save_npy};
use cusci::signal::*;
use cusci::{c64, Array, Device, Result};
use std::collections::HashMap;

type P = HashMap<String, String>;

fn list<T: std::str::FromStr>(s: &str) -> Vec<T>
where
    T::Err: std::fmt::Debug,
{
    s.split(',')
        .filter(|v| !v.is_empty())
        .map(|v| v.parse().unwrap())
        .collect()
}

/// `DIR/NAME_I.npy` (f64) on the CPU.
fn load(dir: &str, name: &str, i: &str) -> Result<Array<f64>> {
    load_npy(format!("{dir}/{name}_{i}.npy"), &Device::Cpu)
}

/// A complex array as real `[..., 2]`.
fn split(z: &Array<c64>) -> Result<Array<f64>> {
    let mut shape = z.shape().to_vec();
    shape.push(2);
    let v: Vec<f64> = z.to_vec()?.iter().flat_map(|c| [c.re, c.im]).collect();
    Array::from_vec(v, &shape, &Device::Cpu)
}

fn get<'a>(p: &'a P, k: &str) -> Option<&'a str> {
    p.get(k).map(|s| s.as_str())
}
fn num<T: std::str::FromStr>(p: &P, k: &str) -> Option<T>
where
    T::Err: std::fmt::Debug,
{
    get(p, k).map(|s| s.parse().unwrap())
}

fn conv_mode(p: &P) -> ConvMode {
    match get(p, "mode").unwrap_or("full") {
        "full" => ConvMode::Full,
        "same" => ConvMode::Same,
        "valid" => ConvMode::Valid,
        m => panic!("mode {m}"),
    }
}

fn window(p: &P) -> WindowSpec {
    WindowSpec::Named(Window::from_name(get(p, "window").unwrap_or("hann")).unwrap())
}

fn welch_opts(p: &P) -> WelchOptions {
    WelchOptions {
        fs: num(p, "fs").unwrap_or(1.0),
        window: window(p),
        nperseg: num(p, "nperseg"),
        noverlap: num(p, "noverlap"),
        nfft: num(p, "nfft"),
        detrend: match get(p, "detrend").unwrap_or("constant") {
            "constant" => Detrend::Constant,
            "linear" => Detrend::Linear,
            _ => Detrend::None,
        },
        return_onesided: num::<u8>(p, "onesided").unwrap_or(1) == 1,
        scaling: match get(p, "scaling").unwrap_or("density") {
            "density" => Scaling::Density,
            _ => Scaling::Spectrum,
        },
        axis: num(p, "axis").unwrap_or(-1),
        average: match get(p, "average").unwrap_or("mean") {
            "mean" => Average::Mean,
            _ => Average::Median,
        },
    }
}

fn filtfilt_opts(p: &P) -> FiltfiltOptions {
    FiltfiltOptions {
        axis: num(p, "axis").unwrap_or(-1),
        padtype: match get(p, "padtype").unwrap_or("odd") {
            "odd" => Some(FiltPad::Odd),
            "even" => Some(FiltPad::Even),
            "constant" => Some(FiltPad::Constant),
            _ => None,
        },
        padlen: num(p, "padlen"),
        method: match get(p, "method").unwrap_or("pad") {
            "pad" => FiltMethod::Pad,
            _ => FiltMethod::Gust,
        },
        irlen: None,
    }
}

fn pad_type(s: &str) -> PadType {
    match s {
        "constant" => PadType::Constant,
        "edge" => PadType::Edge,
        "line" => PadType::Line,
        "wrap" => PadType::Wrap,
        "symmetric" => PadType::Symmetric,
        "reflect" => PadType::Reflect,
        "mean" => PadType::Mean,
        "median" => PadType::Median,
        "maximum" => PadType::Maximum,
        "minimum" => PadType::Minimum,
        t => panic!("padtype {t}"),
    }
}

fn upfirdn_mode(s: &str) -> UpfirdnMode {
    match s {
        "constant" => UpfirdnMode::Constant,
        "edge" => UpfirdnMode::Edge,
        "line" => UpfirdnMode::Line,
        "wrap" => UpfirdnMode::Wrap,
        "symmetric" => UpfirdnMode::Symmetric,
        "reflect" => UpfirdnMode::Reflect,
        m => panic!("upfirdn mode {m}"),
    }
}

/// SciPy's condition: `v` (a minimum) or `lo:hi` (either end may be empty).
fn bound(p: &P, k: &str) -> Option<Bound> {
    let s = get(p, k)?;
    Some(match s.split_once(':') {
        None => Bound::min(s.parse().unwrap()),
        Some((lo, hi)) => Bound {
            min: (!lo.is_empty()).then(|| lo.parse().unwrap()),
            max: (!hi.is_empty()).then(|| hi.parse().unwrap()),
        },
    })
}

fn run(dir: &str, i: &str, f: &str, p: &P) -> Result<Vec<Array<f64>>> {
    let x = || load(dir, "x", i);
    let axis: isize = num(p, "axis").unwrap_or(-1);
    Ok(match f {
        "lfilter" => {
            let o = FilterOptions { axis, zi: None };
            vec![lfilter(&load(dir, "b", i)?, &load(dir, "a", i)?, &x()?, &o)?.y]
        }
        "sosfilt" => {
            let o = FilterOptions { axis, zi: None };
            vec![sosfilt(&load(dir, "sos", i)?, &x()?, &o)?.y]
        }
        "filtfilt" => vec![filtfilt(
            &load(dir, "b", i)?,
            &load(dir, "a", i)?,
            &x()?,
            &filtfilt_opts(p),
        )?],
        "sosfiltfilt" => vec![sosfiltfilt(
            &load(dir, "sos", i)?,
            &x()?,
            &filtfilt_opts(p),
        )?],
        "medfilt" => {
            let ks: Vec<usize> = list(get(p, "ks").unwrap());
            let ks = if ks.len() == 1 {
                KernelSize::All(ks[0])
            } else {
                KernelSize::PerAxis(ks)
            };
            vec![medfilt(&x()?, ks)?]
        }
        "wiener" => {
            let size: Option<Vec<usize>> = get(p, "mysize").map(list);
            vec![wiener(&x()?, size.as_deref(), num(p, "noise"))?]
        }
        "savgol" => {
            let o = SavgolOptions {
                deriv: num(p, "deriv").unwrap_or(0),
                delta: num(p, "delta").unwrap_or(1.0),
                axis,
                mode: match get(p, "mode").unwrap_or("interp") {
                    "interp" => SavgolMode::Interp,
                    "mirror" => SavgolMode::Mirror,
                    "constant" => SavgolMode::Constant,
                    "nearest" => SavgolMode::Nearest,
                    _ => SavgolMode::Wrap,
                },
                cval: num(p, "cval").unwrap_or(0.0),
            };
            vec![savgol_filter(
                &x()?,
                num(p, "wl").unwrap(),
                num(p, "po").unwrap(),
                &o,
            )?]
        }
        "convolve" | "correlate" => {
            let o = ConvOptions {
                mode: conv_mode(p),
                method: match get(p, "method").unwrap_or("auto") {
                    "direct" => ConvMethod::Direct,
                    "fft" => ConvMethod::Fft,
                    _ => ConvMethod::Auto,
                },
            };
            let v = load(dir, "v", i)?;
            vec![if f == "convolve" {
                convolve(&x()?, &v, &o)?
            } else {
                correlate(&x()?, &v, &o)?
            }]
        }
        "fftconvolve" => vec![fftconvolve(&x()?, &load(dir, "v", i)?, conv_mode(p))?],
        "oaconvolve" => {
            let axes: Option<Vec<isize>> = get(p, "axes").map(list);
            vec![oaconvolve(
                &x()?,
                &load(dir, "v", i)?,
                conv_mode(p),
                axes.as_deref(),
            )?]
        }
        "convolve2d" | "correlate2d" => {
            let o = Conv2dOptions {
                mode: conv_mode(p),
                boundary: match get(p, "boundary").unwrap_or("fill") {
                    "fill" => ConvBoundary::Fill,
                    "wrap" => ConvBoundary::Wrap,
                    _ => ConvBoundary::Symm,
                },
                fillvalue: num(p, "fillvalue").unwrap_or(0.0),
            };
            let v = load(dir, "v", i)?;
            vec![if f == "convolve2d" {
                convolve2d(&x()?, &v, &o)?
            } else {
                correlate2d(&x()?, &v, &o)?
            }]
        }
        "welch" => {
            let (fr, pxx) = welch(&x()?, &welch_opts(p))?;
            vec![fr, pxx]
        }
        "periodogram" => {
            let w = get(p, "window").map(|_| window(p));
            let (fr, pxx) = periodogram(&x()?, w, &welch_opts(p))?;
            vec![fr, pxx]
        }
        "csd" => {
            let (fr, pxy) = csd(&x()?, &load(dir, "y", i)?, &welch_opts(p))?;
            vec![fr, split(&pxy)?]
        }
        "coherence" => {
            let (fr, c) = coherence(&x()?, &load(dir, "y", i)?, &welch_opts(p))?;
            vec![fr, c]
        }
        "spectrogram" => {
            let w = welch_opts(p);
            let o = SpectrogramOptions {
                fs: w.fs,
                window: w.window,
                nperseg: w.nperseg,
                noverlap: w.noverlap,
                nfft: w.nfft,
                detrend: w.detrend,
                return_onesided: w.return_onesided,
                scaling: w.scaling,
                axis: w.axis,
                mode: match get(p, "smode").unwrap_or("psd") {
                    "psd" => SpectrogramMode::Psd,
                    "complex" => SpectrogramMode::Complex,
                    "magnitude" => SpectrogramMode::Magnitude,
                    _ => SpectrogramMode::Angle,
                },
            };
            let (fr, t, s) = spectrogram(&x()?, &o)?;
            let s = match s {
                Sxx::Real(a) => a,
                Sxx::Complex(z) => split(&z)?,
            };
            vec![fr, t, s]
        }
        "resample" => {
            let o = ResampleOptions {
                axis,
                ..Default::default()
            };
            vec![resample(&x()?, num(p, "num").unwrap(), &o)?]
        }
        "resample_poly" => {
            let o = ResamplePolyOptions {
                axis,
                padtype: pad_type(get(p, "padtype").unwrap_or("constant")),
                cval: num(p, "cval"),
                ..Default::default()
            };
            vec![resample_poly(
                &x()?,
                num(p, "up").unwrap(),
                num(p, "down").unwrap(),
                &o,
            )?]
        }
        "upfirdn" => {
            let o = UpfirdnOptions {
                axis,
                mode: upfirdn_mode(get(p, "mode").unwrap_or("constant")),
                cval: num(p, "cval").unwrap_or(0.0),
            };
            vec![upfirdn(
                &load(dir, "h", i)?,
                &x()?,
                num(p, "up").unwrap(),
                num(p, "down").unwrap(),
                &o,
            )?]
        }
        "decimate" => {
            let o = DecimateOptions {
                n: num(p, "n"),
                ftype: match get(p, "ftype").unwrap_or("iir") {
                    "iir" => DecimateFtype::Iir,
                    _ => DecimateFtype::Fir,
                },
                axis,
                zero_phase: num::<u8>(p, "zero_phase").unwrap_or(1) == 1,
            };
            vec![decimate(&x()?, num(p, "q").unwrap(), &o)?]
        }
        "find_peaks" => {
            let o = FindPeaksOptions {
                height: bound(p, "height"),
                threshold: bound(p, "threshold"),
                distance: num(p, "distance"),
                prominence: bound(p, "prominence"),
                width: bound(p, "width"),
                wlen: num(p, "wlen"),
                rel_height: num(p, "rel_height").unwrap_or(0.5),
                plateau_size: bound(p, "plateau_size"),
            };
            let (peaks, props) = find_peaks(&x()?, &o)?;
            let mut out = vec![peaks.astype::<f64>()?];
            // the properties SciPy returns for these conditions, in a fixed order
            let ints = [
                ("plateau_sizes", props.plateau_sizes),
                ("left_bases", props.left_bases),
                ("right_bases", props.right_bases),
            ];
            let floats = [
                ("peak_heights", props.peak_heights),
                ("prominences", props.prominences),
                ("widths", props.widths),
                ("left_ips", props.left_ips),
                ("right_ips", props.right_ips),
            ];
            for (_, a) in ints {
                out.extend(a.map(|a| a.astype::<f64>()).transpose()?);
            }
            for (_, a) in floats {
                out.extend(a);
            }
            out
        }
        f => panic!("unknown {f}"),
    })
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: signal_fuzz DIR");
    let cases = std::fs::read_to_string(format!("{dir}/cases.txt")).unwrap();
    for line in cases.lines() {
        let mut it = line.split(' ');
        let (i, f) = (it.next().unwrap(), it.next().unwrap());
        let p: P = it
            .filter(|s| !s.is_empty())
            .map(|kv| {
                let (k, v) = kv.split_once('=').unwrap();
                (k.to_string(), v.to_string())
            })
            .collect();
        match std::panic::catch_unwind(|| run(&dir, i, f, &p)) {
            Ok(Ok(ys)) => {
                for (k, y) in ys.iter().enumerate() {
                    save_npy(format!("{dir}/out_{i}_{k}.npy"), y).unwrap();
                }
            }
            Ok(Err(e)) => std::fs::write(format!("{dir}/err_{i}.txt"), format!("{e}")).unwrap(),
            Err(_) => std::fs::write(format!("{dir}/err_{i}.txt"), "PANIC").unwrap(),
        }
    }
}
