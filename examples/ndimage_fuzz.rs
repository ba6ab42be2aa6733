//! The driver of the ndimage differential fuzz (`scripts/ndimage_fuzz/`): reads `DIR/cases.txt`
//! (one case a line: `INDEX FUNCTION key=value ...`, inputs in `DIR/in_INDEX.npy` and beside
//! it), runs each case on the CPU and writes `DIR/out_INDEX.npy` or `DIR/err_INDEX.txt` (the
//! error, or `PANIC`); the Python scripts generate the cases and compare with SciPy.
//!
//! `cargo run --release --example ndimage_fuzz -- DIR`
use cusci::core::npy::{load_npy, save_npy};
use cusci::ndimage::*;
use cusci::{Array, Device};
use std::collections::HashMap;

fn fl(s: &str) -> Vec<f64> {
    if s.is_empty() {
        return vec![];
    }
    s.split(',').map(|v| v.parse().unwrap()).collect()
}
fn us(s: &str) -> Vec<usize> {
    fl(s).iter().map(|&v| v as usize).collect()
}
fn is(s: &str) -> Vec<isize> {
    fl(s).iter().map(|&v| v as isize).collect()
}

/// `DIR/NAME_I.npy` (f64) on the CPU.
fn load(dir: &str, name: &str, i: &str) -> cusci::Result<Array<f64>> {
    load_npy(format!("{dir}/{name}_{i}.npy"), &Device::Cpu)
}

/// The same, nonzero as true.
fn load_bool(dir: &str, name: &str, i: &str) -> cusci::Result<Array<bool>> {
    let a = load(dir, name, i)?;
    let v: Vec<bool> = a.to_vec()?.iter().map(|&v| v != 0.0).collect();
    Array::from_vec(v, a.shape(), &Device::Cpu)
}

fn run<T: Real + cusci::core::dtype::Float + cusci::core::dtype::Numeric>(
    dir: &str,
    i: &str,
    f: &str,
    p: &HashMap<String, String>,
) -> cusci::Result<Array<f64>> {
    let x: Array<f64> = load(dir, "in", i)?;
    let x: Array<T> = x.astype::<T>()?;
    let g = |k: &str| p.get(k).map(|s| s.as_str());
    let mode: Mode = g("mode").unwrap_or("reflect").parse().unwrap();
    let modes: Vec<Mode> = g("modes")
        .map(|s| s.split(',').map(|m| m.parse().unwrap()).collect())
        .unwrap_or_default();
    let cval = g("cval").map(|s| s.parse().unwrap()).unwrap_or(0.0);
    let axes = g("axes").map(is);
    let fo = FilterOptions {
        mode,
        cval,
        origin: g("origin").map(is).unwrap_or_default(),
        axes: axes.clone(),
        modes: modes.clone(),
    };
    let go = GaussianOptions {
        order: g("order").map(us).unwrap_or_default(),
        truncate: g("truncate").map(|s| s.parse().unwrap()).unwrap_or(4.0),
        radius: g("radius").map(us),
        mode,
        cval,
        axes,
        modes,
    };
    let fp = || -> cusci::Result<Footprint> {
        Ok(if g("fp").is_some() {
            Footprint::Mask(load_bool(dir, "w", i)?)
        } else {
            Footprint::Size(us(g("size").unwrap()))
        })
    };
    let io = InterpOptions {
        order: g("ord").map(|s| s.parse().unwrap()).unwrap_or(3),
        mode,
        cval,
        prefilter: g("prefilter") != Some("0"),
    };
    let y: Array<T> = match f {
        "correlate" | "convolve" => {
            let w: Array<f64> = load(dir, "w", i)?;
            if f == "correlate" {
                correlate(&x, &w, &fo)
            } else {
                convolve(&x, &w, &fo)
            }
        }
        "uniform" => uniform_filter(&x, &us(g("size").unwrap()), &fo),
        "minimum" => minimum_filter(&x, &fp()?, &fo),
        "maximum" => maximum_filter(&x, &fp()?, &fo),
        "median" => median_filter(&x, &fp()?, &fo),
        "rank" => rank_filter(&x, g("rank").unwrap().parse().unwrap(), &fp()?, &fo),
        "percentile" => percentile_filter(&x, g("pct").unwrap().parse().unwrap(), &fp()?, &fo),
        "gaussian" => gaussian_filter(&x, &fl(g("sigma").unwrap()), &go),
        "gaussian_laplace" => gaussian_laplace(&x, &fl(g("sigma").unwrap()), &go),
        "ggm" => gaussian_gradient_magnitude(&x, &fl(g("sigma").unwrap()), &go),
        "sobel" => sobel(&x, g("axis").unwrap().parse().unwrap(), &fo),
        "prewitt" => prewitt(&x, g("axis").unwrap().parse().unwrap(), &fo),
        "laplace" => laplace(&x, &fo),
        "zoom" => zoom(&x, &fl(g("zoom").unwrap()), g("grid") == Some("1"), &io),
        "shift" => shift(&x, &fl(g("shift").unwrap()), &io),
        "rotate" => {
            let a = is(g("raxes").unwrap());
            rotate(
                &x,
                g("angle").unwrap().parse().unwrap(),
                (a[0], a[1]),
                g("reshape") == Some("1"),
                &io,
            )
        }
        "affine" => {
            let m = fl(g("matrix").unwrap());
            let mat = if g("diag").is_some() {
                Matrix::Diagonal(m)
            } else {
                Matrix::Full {
                    rows: m[0] as usize,
                    cols: m[1] as usize,
                    data: m[2..].to_vec(),
                }
            };
            let os = g("oshape").map(us);
            affine_transform(
                &x,
                &mat,
                &g("offset").map(fl).unwrap_or_default(),
                os.as_deref(),
                &io,
            )
        }
        "correlate1d" | "convolve1d" => {
            let w: Array<f64> = load(dir, "w", i)?;
            let w = w.to_vec()?;
            let ax = g("axis").unwrap().parse().unwrap();
            if f == "correlate1d" {
                correlate1d(&x, &w, ax, &fo)
            } else {
                convolve1d(&x, &w, ax, &fo)
            }
        }
        "gaussian1d" => gaussian_filter1d(
            &x,
            g("sigma").unwrap().parse().unwrap(),
            g("axis").unwrap().parse().unwrap(),
            &go,
        ),
        "uniform1d" | "minimum1d" | "maximum1d" => {
            let n = g("size").unwrap().parse().unwrap();
            let ax = g("axis").unwrap().parse().unwrap();
            match f {
                "uniform1d" => uniform_filter1d(&x, n, ax, &fo),
                "minimum1d" => minimum_filter1d(&x, n, ax, &fo),
                _ => maximum_filter1d(&x, n, ax, &fo),
            }
        }
        "fgauss" | "funiform" | "fellipsoid" => {
            let v = fl(g("sigma").unwrap());
            let n = g("n").map(|s| s.parse().unwrap());
            let ax = g("axis").unwrap().parse().unwrap();
            match f {
                "fgauss" => fourier_gaussian(&x, &v, n, ax),
                "funiform" => fourier_uniform(&x, &v, n, ax),
                _ => fourier_ellipsoid(&x, &v, n, ax),
            }
        }
        "map_coordinates" => {
            let c: Array<f64> = load(dir, "c", i)?;
            map_coordinates(&x, &c, &io)
        }
        "spline" => return spline_filter(&x, io.order, mode),
        _ => panic!("unknown {f}"),
    }?;
    y.astype::<f64>()
}

fn run_morph(
    dir: &str,
    i: &str,
    f: &str,
    p: &HashMap<String, String>,
) -> cusci::Result<Array<f64>> {
    let x: Array<f64> = load(dir, "in", i)?;
    let g = |k: &str| p.get(k).map(|s| s.as_str());
    let st = if g("st").is_some() {
        Some(load_bool(dir, "w", i)?)
    } else {
        None
    };
    let mk = if g("mask").is_some() {
        Some(load_bool(dir, "m", i)?)
    } else {
        None
    };
    let origin: Vec<i64> = g("origin")
        .map(|s| is(s).iter().map(|&v| v as i64).collect())
        .unwrap_or_default();
    let bo = BinaryOptions {
        structure: st.as_ref(),
        iterations: g("iter").map(|s| s.parse().unwrap()).unwrap_or(1),
        mask: mk.as_ref(),
        border_value: g("border") == Some("1"),
        origin: origin.clone(),
        ..Default::default()
    };
    let fp = if g("fp").is_some() {
        Some(load_bool(dir, "w", i)?)
    } else {
        None
    };
    let gs: Option<Array<f64>> = if g("gst").is_some() {
        Some(load(dir, "s", i)?)
    } else {
        None
    };
    let go = GreyOptions {
        size: g("size").map(us),
        footprint: fp.as_ref(),
        structure: gs.as_ref(),
        mode: g("mode").unwrap_or("reflect").parse().unwrap(),
        cval: g("cval").map(|s| s.parse().unwrap()).unwrap_or(0.0),
        origin,
    };
    let b = |r: cusci::Result<Array<bool>>| -> cusci::Result<Array<f64>> { r?.astype::<f64>() };
    match f {
        "b_erosion" => b(binary_erosion(&x, &bo)),
        "b_dilation" => b(binary_dilation(&x, &bo)),
        "b_opening" => b(binary_opening(&x, &bo)),
        "b_closing" => b(binary_closing(&x, &bo)),
        "b_propagation" => b(binary_propagation(&x, &bo)),
        "b_fill_holes" => b(binary_fill_holes(&x, st.as_ref(), &bo.origin)),
        "g_erosion" => grey_erosion(&x, &go),
        "g_dilation" => grey_dilation(&x, &go),
        "g_opening" => grey_opening(&x, &go),
        "g_closing" => grey_closing(&x, &go),
        "m_gradient" => morphological_gradient(&x, &go),
        "m_laplace" => morphological_laplace(&x, &go),
        "w_tophat" => white_tophat(&x, &go),
        "b_tophat" => black_tophat(&x, &go),
        _ => panic!("unknown {f}"),
    }
}

fn run_dist(dir: &str, i: &str, f: &str, p: &HashMap<String, String>) -> cusci::Result<Array<f64>> {
    let x: Array<f64> = load(dir, "in", i)?;
    let g = |k: &str| p.get(k).map(|s| s.as_str());
    let opts = DistanceOptions {
        sampling: g("sampling").map(fl),
        return_distances: true,
        return_indices: g("idx").is_some(),
    };
    let save_idx = |ix: Option<Array<i32>>| -> cusci::Result<()> {
        if let Some(ix) = ix {
            save_npy(format!("{dir}/idx_{i}.npy"), &ix.astype::<f64>()?)?;
        }
        Ok(())
    };
    match f {
        "edt" => {
            let (d, ix) = distance_transform_edt(&x, &opts)?;
            save_idx(ix)?;
            Ok(d.unwrap())
        }
        "bf" => {
            let m = match g("metric").unwrap() {
                "taxicab" => BfMetric::Taxicab,
                "chessboard" => BfMetric::Chessboard,
                _ => BfMetric::Euclidean,
            };
            let (d, ix) = distance_transform_bf(&x, m, &opts)?;
            save_idx(ix)?;
            Ok(d.unwrap())
        }
        "cdt" => {
            let st = if g("st").is_some() {
                Some(load_bool(dir, "w", i)?)
            } else {
                None
            };
            let m = match (g("metric").unwrap(), st.as_ref()) {
                (_, Some(s)) => CdtMetric::Structure(s),
                ("taxicab", _) => CdtMetric::Taxicab,
                _ => CdtMetric::Chessboard,
            };
            let (d, ix) = distance_transform_cdt(&x, &m, true, g("idx").is_some())?;
            save_idx(ix)?;
            d.unwrap().astype::<f64>()
        }
        "label" => {
            let st = if g("st").is_some() {
                Some(load_bool(dir, "w", i)?)
            } else {
                None
            };
            let (l, _) = label(&x, st.as_ref())?;
            l.astype::<f64>()
        }
        _ => panic!("unknown {f}"),
    }
}

/// The measurement functions: the results flattened (one row per index).
fn run_meas(dir: &str, i: &str, p: &HashMap<String, String>) -> cusci::Result<Array<f64>> {
    let cpu = Device::Cpu;
    let x: Array<f64> = load(dir, "in", i)?;
    let g = |k: &str| p.get(k).map(|s| s.as_str());
    let labels: Option<Array<i32>> = if g("labels").is_some() {
        let l: Array<f64> = load(dir, "l", i)?;
        Some(l.astype::<i32>()?)
    } else {
        None
    };
    let idx: Option<Vec<i64>> = g("index").map(|s| is(s).iter().map(|&v| v as i64).collect());
    let (l, ix) = (labels.as_ref(), idx.as_deref());
    let v: Vec<f64> = match g("fn").unwrap() {
        "sum" => sum_labels(&x, l, ix)?,
        "mean" => mean(&x, l, ix)?,
        "variance" => variance(&x, l, ix)?,
        "std" => standard_deviation(&x, l, ix)?,
        "minimum" => minimum(&x, l, ix)?,
        "maximum" => maximum(&x, l, ix)?,
        "median" => median(&x, l, ix)?,
        "minpos" => minimum_position(&x, l, ix)?
            .into_iter()
            .flatten()
            .map(|v| v as f64)
            .collect(),
        "maxpos" => maximum_position(&x, l, ix)?
            .into_iter()
            .flatten()
            .map(|v| v as f64)
            .collect(),
        "com" => center_of_mass(&x, l, ix)?.into_iter().flatten().collect(),
        "hist" => histogram(&x, -2.0, 2.0, 5, l, ix)?
            .into_iter()
            .flatten()
            .map(|v| v as f64)
            .collect(),
        f => panic!("unknown {f}"),
    };
    let n = v.len();
    Array::from_vec(v, &[n], &cpu)
}

fn main() {
    let dir = std::env::args().nth(1).unwrap();
    let cases = std::fs::read_to_string(format!("{dir}/cases.txt")).unwrap();
    for line in cases.lines() {
        let mut it = line.split(' ');
        let (i, f) = (it.next().unwrap(), it.next().unwrap());
        let p: HashMap<String, String> = it
            .filter(|s| !s.is_empty())
            .map(|kv| {
                let (k, v) = kv.split_once('=').unwrap();
                (k.to_string(), v.to_string())
            })
            .collect();
        let r = std::panic::catch_unwind(|| {
            if f == "meas" {
                run_meas(&dir, i, &p)
            } else if ["edt", "bf", "cdt", "label"].contains(&f) {
                run_dist(&dir, i, f, &p)
            } else if f.starts_with("b_")
                || f.starts_with("g_")
                || f.starts_with("m_")
                || f.starts_with("w_")
            {
                run_morph(&dir, i, f, &p)
            } else if p.get("dt").map(|s| s.as_str()) == Some("f32") {
                run::<f32>(&dir, i, f, &p)
            } else {
                run::<f64>(&dir, i, f, &p)
            }
        });
        match r {
            Ok(Ok(y)) => save_npy(format!("{dir}/out_{i}.npy"), &y).unwrap(),
            Ok(Err(e)) => std::fs::write(format!("{dir}/err_{i}.txt"), format!("{e}")).unwrap(),
            Err(_) => std::fs::write(format!("{dir}/err_{i}.txt"), "PANIC").unwrap(),
        }
    }
}
