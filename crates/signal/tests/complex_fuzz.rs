//! The complex spectral differential fuzz (`scripts/signal_fuzz/complex_fuzz.py` writes the cases
//! and SciPy's outputs to `/tmp/cfuzz/SEED`; `CUSCI_CFUZZ=SEED`, default 1). Ignored by default:
//! `cargo test -p cusci-signal --test signal complex_fuzz -- --ignored --nocapture`.
use cusci_core::npy::load_npy;
use cusci_core::{c64, Array, Device, Result};
use cusci_signal::*;
use std::collections::HashMap;

type P = HashMap<String, String>;
fn get<'a>(p: &'a P, k: &str) -> Option<&'a str> {
    p.get(k).map(|s| s.as_str())
}
fn num<T: std::str::FromStr>(p: &P, k: &str) -> Option<T>
where
    T::Err: std::fmt::Debug,
{
    get(p, k).map(|s| s.parse().unwrap())
}
fn window(p: &P) -> WindowSpec {
    WindowSpec::Named(Window::from_name(get(p, "window").unwrap_or("hann")).unwrap())
}
fn wo(p: &P) -> WelchOptions {
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
        return_onesided: true,
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
fn c<T: cusci_core::Element>(a: Array<T>) -> Array<c64> {
    a.astype::<c64>().unwrap()
}
fn run(d: &str, i: &str, f: &str, p: &P, dev: &Device) -> Result<Vec<Array<c64>>> {
    let x: Array<c64> = load_npy(format!("{d}/x_{i}.npy"), dev)?;
    let y = || load_npy::<c64>(format!("{d}/y_{i}.npy"), dev);
    let w = wo(p);
    Ok(match f {
        "welch" => {
            let (a, b) = welch_complex::<f64>(&x, &w)?;
            vec![c(a), c(b)]
        }
        "periodogram" => {
            let (a, b) = periodogram_complex::<f64>(&x, Some(window(p)), &w)?;
            vec![c(a), c(b)]
        }
        "csd" => {
            let (a, b) = csd_complex::<f64>(&x, &y()?, &w)?;
            vec![c(a), b]
        }
        "coherence" => {
            let (a, b) = coherence_complex::<f64>(&x, &y()?, &w)?;
            vec![c(a), c(b)]
        }
        "spectrogram" => {
            let o = SpectrogramOptions {
                fs: w.fs,
                window: w.window,
                nperseg: w.nperseg,
                noverlap: w.noverlap,
                nfft: w.nfft,
                detrend: w.detrend,
                return_onesided: true,
                scaling: w.scaling,
                axis: w.axis,
                mode: match get(p, "smode").unwrap() {
                    "psd" => SpectrogramMode::Psd,
                    "complex" => SpectrogramMode::Complex,
                    "magnitude" => SpectrogramMode::Magnitude,
                    _ => SpectrogramMode::Phase,
                },
            };
            let (a, b, s) = spectrogram_complex::<f64>(&x, &o)?;
            let s = match s {
                Sxx::Real(r) => c(r),
                Sxx::Complex(z) => z,
            };
            vec![c(a), c(b), s]
        }
        "stft" => {
            let o = StftOptions {
                fs: w.fs,
                window: w.window,
                nperseg: w.nperseg,
                noverlap: w.noverlap,
                nfft: w.nfft,
                return_onesided: true,
                boundary: match get(p, "boundary").unwrap() {
                    "zeros" => Some(Boundary::Zeros),
                    "even" => Some(Boundary::Even),
                    "odd" => Some(Boundary::Odd),
                    "constant" => Some(Boundary::Constant),
                    _ => None,
                },
                padded: get(p, "padded") == Some("1"),
                axis: w.axis,
                scaling: w.scaling,
                ..Default::default()
            };
            let (a, b, z) = stft_complex::<f64>(&x, &o)?;
            vec![c(a), c(b), z]
        }
        "istft" => {
            let o = IstftOptions {
                fs: w.fs,
                window: w.window,
                nperseg: w.nperseg,
                noverlap: w.noverlap,
                nfft: w.nfft,
                boundary: get(p, "bnd") == Some("1"),
                scaling: w.scaling,
                ..Default::default()
            };
            let (a, b) = istft_complex(&x, &o)?;
            vec![c(a), b]
        }
        _ => panic!(),
    })
}

#[test]
#[ignore = "needs the cases of scripts/signal_fuzz/complex_fuzz.py"]
fn complex_spectral_fuzz() {
    let seed = std::env::var("CUSCI_CFUZZ").unwrap_or("1".into());
    let d = format!("/tmp/cfuzz/{seed}");
    let cases = std::fs::read_to_string(format!("{d}/cases.txt")).unwrap();
    let mut bad = 0;
    let mut n = 0;
    for dev in cusci_core::testing::devices() {
        for line in cases.lines() {
            n += 1;
            let mut it = line.split(' ');
            let (i, f) = (it.next().unwrap(), it.next().unwrap());
            let p: P = it
                .filter(|s| !s.is_empty())
                .map(|kv| {
                    let (k, v) = kv.split_once('=').unwrap();
                    (k.to_string(), v.to_string())
                })
                .collect();
            let serr = std::fs::read_to_string(format!("{d}/serr_{i}.txt")).ok();
            let got = std::panic::catch_unwind(|| run(&d, i, f, &p, &dev));
            let msg = match (got, serr) {
                (Err(_), _) => Some("PANIC".to_string()),
                (Ok(Err(e)), None) => Some(format!("we raised {e}")),
                (Ok(Ok(_)), Some(s)) => Some(format!("scipy raised {s}")),
                (Ok(Err(_)), Some(_)) => None,
                (Ok(Ok(outs)), None) => {
                    let mut m = None;
                    for (k, o) in outs.iter().enumerate() {
                        let w: Array<c64> =
                            load_npy(format!("{d}/want_{i}_{k}.npy"), &Device::Cpu).unwrap();
                        if o.shape() != w.shape() {
                            m = Some(format!("out {k} shape {:?} vs {:?}", o.shape(), w.shape()));
                            break;
                        }
                        let (ov, wv) = (o.to_vec().unwrap(), w.to_vec().unwrap());
                        let scale = wv.iter().fold(0.0f64, |a, v| a.max(v.norm())).max(1.0);
                        let err = ov
                            .iter()
                            .zip(&wv)
                            .map(|(a, b)| {
                                // SciPy's NaN: left out; our NaN where SciPy has a value: a
                                // difference
                                if b.re.is_nan() {
                                    0.0
                                } else {
                                    let e = (a - b).norm();
                                    if e.is_nan() {
                                        f64::INFINITY
                                    } else {
                                        e
                                    }
                                }
                            })
                            .fold(0.0f64, f64::max);
                        if err.is_nan() || err > 1e-9 * scale {
                            m = Some(format!("out {k} err {err:e} scale {scale:e}"));
                            break;
                        }
                    }
                    m
                }
            };
            if let Some(m) = msg {
                bad += 1;
                println!("BAD {dev} {line} :: {m}");
            }
        }
    }
    println!("{n} cases, {bad} bad");
    assert_eq!(bad, 0);
}
