//! The driver of the ndimage differential fuzz (`scripts/ndimage_fuzz/`): reads `DIR/cases.txt`
//! (one case a line: `INDEX FUNCTION key=value ...`, inputs in `DIR/in_INDEX.npy` and beside
//! it), runs each case on the CPU and writes `DIR/out_INDEX.npy` or `DIR/err_INDEX.txt` (the
//! error, or `PANIC`); the Python scripts generate the cases and compare with SciPy. A case with
//! `it=` (input type) runs the `*_as` function for the output type `ot=` (the input's when
//! absent); complex results come back as `[..., 2]`.
//!
//! `cargo run --release --example ndimage_fuzz -- DIR`
use cusci::core::npy::{load_npy, save_npy};
use cusci::core::Element;
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

/// The options of a filter or interpolation case line.
struct Opts {
    fo: FilterOptions,
    go: GaussianOptions,
    io: InterpOptions,
}

fn opts(p: &HashMap<String, String>) -> Opts {
    let g = |k: &str| p.get(k).map(|s| s.as_str());
    let mode: Mode = g("mode").unwrap_or("reflect").parse().unwrap();
    let modes: Vec<Mode> = g("modes")
        .map(|s| s.split(',').map(|m| m.parse().unwrap()).collect())
        .unwrap_or_default();
    let cval = g("cval").map(|s| s.parse().unwrap()).unwrap_or(0.0);
    let axes = g("axes").map(is);
    Opts {
        fo: FilterOptions {
            mode,
            cval,
            origin: g("origin").map(is).unwrap_or_default(),
            axes: axes.clone(),
            modes: modes.clone(),
        },
        go: GaussianOptions {
            order: g("order").map(us).unwrap_or_default(),
            truncate: g("truncate").map(|s| s.parse().unwrap()).unwrap_or(4.0),
            radius: g("radius").map(us),
            mode,
            cval,
            axes,
            modes,
        },
        io: InterpOptions {
            order: g("ord").map(|s| s.parse().unwrap()).unwrap_or(3),
            mode,
            cval,
            prefilter: g("prefilter") != Some("0"),
        },
    }
}

/// The case's footprint: the mask `w_I.npy` with `fp`, else `size`.
fn footprint(dir: &str, i: &str, p: &HashMap<String, String>) -> cusci::Result<Footprint> {
    Ok(if p.contains_key("fp") {
        Footprint::Mask(load_bool(dir, "w", i)?)
    } else {
        Footprint::Size(us(&p["size"]))
    })
}

/// The affine case's matrix: `diag` or `rows,cols,data...`.
fn matrix(p: &HashMap<String, String>) -> Matrix {
    let m = fl(&p["matrix"]);
    if p.contains_key("diag") {
        Matrix::Diagonal(m)
    } else {
        Matrix::Full {
            rows: m[0] as usize,
            cols: m[1] as usize,
            data: m[2..].to_vec(),
        }
    }
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
    let Opts { fo, go, io } = opts(p);
    let mode = io.mode;
    let fp = || footprint(dir, i, p);
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
            let mat = matrix(p);
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
        "spline1d" => {
            return spline_filter1d(&x, io.order, g("axis").unwrap().parse().unwrap(), mode)
        }
        "generic" => {
            let gf = GenericFunction::Closure(generic_fn(g("gf").unwrap()));
            let extra = g("extra").map(fl).unwrap_or_default();
            generic_filter(&x, gf, &fp()?, &extra, &fo)
        }
        "generic1d" => {
            let gf = GenericFunction1d::Closure(generic_fn1d(g("gf").unwrap()));
            let extra = g("extra").map(fl).unwrap_or_default();
            let size = g("size").unwrap().parse().unwrap();
            generic_filter1d(
                &x,
                gf,
                size,
                g("axis").unwrap().parse().unwrap(),
                &extra,
                &fo,
            )
        }
        _ => panic!("unknown {f}"),
    }?;
    y.astype::<f64>()
}

/// A generic_filter closure and a generic_filter1d one.
type Closure = dyn Fn(&[f64], &[f64]) -> f64 + Sync;
type LineClosure = dyn Fn(&[f64], &mut [f64], &[f64]) + Sync;

/// The generic_filter closures by name (`gf=`), as `dtypes.py` writes them in Python.
fn generic_fn(name: &str) -> &'static Closure {
    match name {
        "sum" => &|v: &[f64], _: &[f64]| v.iter().sum(),
        "range" => &|v: &[f64], _: &[f64]| {
            v.iter().cloned().fold(f64::MIN, f64::max) - v.iter().cloned().fold(f64::MAX, f64::min)
        },
        "lin" => &|v: &[f64], e: &[f64]| {
            let s: f64 = v.iter().enumerate().map(|(k, a)| a * (k + 1) as f64).sum();
            s * e[0] + e[1]
        },
        _ => &|v: &[f64], _: &[f64]| v[0],
    }
}

/// The generic_filter1d closures by name (`gf=`): `out[k]` from `inp[k..k + size]`.
fn generic_fn1d(name: &str) -> &'static LineClosure {
    match name {
        "diff" => &|a: &[f64], o: &mut [f64], e: &[f64]| {
            let s = a.len() - o.len();
            for (k, v) in o.iter_mut().enumerate() {
                *v = a[k + s] * e[0] - a[k] * 1.5 + 0.25;
            }
        },
        _ => &|a: &[f64], o: &mut [f64], _: &[f64]| {
            let s = a.len() - o.len() + 1;
            for (k, v) in o.iter_mut().enumerate() {
                *v = a[k..k + s].iter().sum::<f64>() / s as f64;
            }
        },
    }
}

/// A case with SciPy's `output=` (`it=` input type, `ot=` output type): the `*_as` functions.
fn run_as<I: Element, O: Element>(
    dir: &str,
    i: &str,
    f: &str,
    p: &HashMap<String, String>,
) -> cusci::Result<Array<f64>> {
    let x: Array<I> = load(dir, "in", i)?.astype::<I>()?;
    let g = |k: &str| p.get(k).map(|s| s.as_str());
    let Opts { fo, go, io } = opts(p);
    let fp = || footprint(dir, i, p);
    let axis = || g("axis").unwrap().parse::<isize>().unwrap();
    let size = || g("size").unwrap().parse::<usize>().unwrap();
    let extra = g("extra").map(fl).unwrap_or_default();
    let y: Array<O> = match f {
        "correlate" => correlate_as(&x, &load(dir, "w", i)?, &fo),
        "convolve" => convolve_as(&x, &load(dir, "w", i)?, &fo),
        "correlate1d" => correlate1d_as(&x, &load(dir, "w", i)?.to_vec()?, axis(), &fo),
        "convolve1d" => convolve1d_as(&x, &load(dir, "w", i)?.to_vec()?, axis(), &fo),
        "uniform" => uniform_filter_as(&x, &us(g("size").unwrap()), &fo),
        "uniform1d" => uniform_filter1d_as(&x, size(), axis(), &fo),
        "minimum1d" => minimum_filter1d_as(&x, size(), axis(), &fo),
        "maximum1d" => maximum_filter1d_as(&x, size(), axis(), &fo),
        "minimum" => minimum_filter_as(&x, &fp()?, &fo),
        "maximum" => maximum_filter_as(&x, &fp()?, &fo),
        "median" => median_filter_as(&x, &fp()?, &fo),
        "rank" => rank_filter_as(&x, g("rank").unwrap().parse().unwrap(), &fp()?, &fo),
        "percentile" => percentile_filter_as(&x, g("pct").unwrap().parse().unwrap(), &fp()?, &fo),
        "gaussian" => gaussian_filter_as(&x, &fl(g("sigma").unwrap()), &go),
        "gaussian1d" => gaussian_filter1d_as(&x, g("sigma").unwrap().parse().unwrap(), axis(), &go),
        "gaussian_laplace" => gaussian_laplace_as(&x, &fl(g("sigma").unwrap()), &go),
        "ggm" => gaussian_gradient_magnitude_as(&x, &fl(g("sigma").unwrap()), &go),
        "sobel" => sobel_as(&x, axis(), &fo),
        "prewitt" => prewitt_as(&x, axis(), &fo),
        "laplace" => laplace_as(&x, &fo),
        "generic" => {
            let gf = GenericFunction::Closure(generic_fn(g("gf").unwrap()));
            generic_filter_as(&x, gf, &fp()?, &extra, &fo)
        }
        "generic1d" => {
            let gf = GenericFunction1d::Closure(generic_fn1d(g("gf").unwrap()));
            generic_filter1d_as(&x, gf, size(), axis(), &extra, &fo)
        }
        "zoom" => zoom_as(&x, &fl(g("zoom").unwrap()), g("grid") == Some("1"), &io),
        "shift" => shift_as(&x, &fl(g("shift").unwrap()), &io),
        "rotate" => {
            let a = is(g("raxes").unwrap());
            let angle = g("angle").unwrap().parse().unwrap();
            rotate_as(&x, angle, (a[0], a[1]), g("reshape") == Some("1"), &io)
        }
        "affine" => {
            let os = g("oshape").map(us);
            let off = g("offset").map(fl).unwrap_or_default();
            affine_transform_as(&x, &matrix(p), &off, os.as_deref(), &io)
        }
        "map_coordinates" => map_coordinates_as::<I, O, f64>(&x, &load(dir, "c", i)?, &io),
        "spline" => spline_filter_as(&x, io.order, io.mode),
        "spline1d" => spline_filter1d_as(&x, io.order, axis(), io.mode),
        _ => panic!("unknown {f}"),
    }?;
    y.astype::<f64>()
}

/// A Fourier filter case with SciPy's result types: `fgauss`, `funiform`, `fellipsoid`, `fshift`
/// (`it=` input type; `cx` marks a complex input stored as `[..., 2]` and gives a complex
/// output; `fshift` of a real input gives a complex output too; `ot=f32` stores f32/c32).
/// Complex results come back as `[..., 2]`.
fn run_fourier_as<I: Element>(
    x: &Array<I>,
    f: &str,
    p: &HashMap<String, String>,
) -> cusci::Result<Array<f64>> {
    let v = fl(&p["sigma"]);
    let n = p.get("n").map(|s| s.parse().unwrap());
    let ax: isize = p["axis"].parse().unwrap();
    let single = p.get("ot").map(|s| s.as_str()) == Some("f32");
    let complex = f == "fshift" || I::DTYPE.is_complex();
    macro_rules! go {
        ($o:ty) => {{
            let y: Array<$o> = match f {
                "fgauss" => fourier_gaussian_as(x, &v, n, ax),
                "funiform" => fourier_uniform_as(x, &v, n, ax),
                "fellipsoid" => fourier_ellipsoid_as(x, &v, n, ax),
                _ => fourier_shift_as(x, &v, n, ax),
            }?;
            y
        }};
    }
    if complex {
        let mut shape = x.shape().to_vec();
        shape.push(2);
        let vals: Vec<f64> = if single {
            go!(cusci::core::c32)
                .to_vec()?
                .iter()
                .flat_map(|c| [c.re as f64, c.im as f64])
                .collect()
        } else {
            go!(cusci::core::c64)
                .to_vec()?
                .iter()
                .flat_map(|c| [c.re, c.im])
                .collect()
        };
        Array::from_vec(vals, &shape, &Device::Cpu)
    } else if single {
        go!(f32).astype::<f64>()
    } else {
        go!(f64).astype::<f64>()
    }
}

/// The input of a Fourier case as type `I` (complex from `[..., 2]` with `cx`).
fn fourier_case(
    dir: &str,
    i: &str,
    f: &str,
    p: &HashMap<String, String>,
) -> cusci::Result<Array<f64>> {
    let a = load(dir, "in", i)?;
    if p.contains_key("cx") {
        let v = a.to_vec()?;
        let shape = &a.shape()[..a.ndim() - 1];
        let z: Vec<cusci::core::c64> = v
            .chunks(2)
            .map(|c| cusci::core::c64::new(c[0], c[1]))
            .collect();
        if p.get("it").map(|s| s.as_str()) == Some("c32") {
            let z: Vec<cusci::core::c32> = z
                .iter()
                .map(|c| cusci::core::c32::new(c.re as f32, c.im as f32))
                .collect();
            return run_fourier_as(&Array::from_vec(z, shape, &Device::Cpu)?, f, p);
        }
        return run_fourier_as(&Array::from_vec(z, shape, &Device::Cpu)?, f, p);
    }
    match p["it"].as_str() {
        "bool" => run_fourier_as(&a.astype::<bool>()?, f, p),
        "u8" => run_fourier_as(&a.astype::<u8>()?, f, p),
        "i32" => run_fourier_as(&a.astype::<i32>()?, f, p),
        "i64" => run_fourier_as(&a.astype::<i64>()?, f, p),
        "f32" => run_fourier_as(&a.astype::<f32>()?, f, p),
        _ => run_fourier_as(&a, f, p),
    }
}

/// `run_as::<I, O>` for the case's `it=` and `ot=` (the output type defaults to the input's).
fn dispatch_as(
    dir: &str,
    i: &str,
    f: &str,
    p: &HashMap<String, String>,
) -> cusci::Result<Array<f64>> {
    macro_rules! out {
        ($in:ty) => {
            match p.get("ot").map(|s| s.as_str()).unwrap_or(&p["it"]) {
                "bool" => run_as::<$in, bool>(dir, i, f, p),
                "u8" => run_as::<$in, u8>(dir, i, f, p),
                "i32" => run_as::<$in, i32>(dir, i, f, p),
                "i64" => run_as::<$in, i64>(dir, i, f, p),
                "f32" => run_as::<$in, f32>(dir, i, f, p),
                _ => run_as::<$in, f64>(dir, i, f, p),
            }
        };
    }
    match p["it"].as_str() {
        "bool" => out!(bool),
        "u8" => out!(u8),
        "i32" => out!(i32),
        "i64" => out!(i64),
        "f32" => out!(f32),
        _ => out!(f64),
    }
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
        _ => match g("it") {
            Some("u8") => run_grey(&x.astype::<u8>()?, f, &go),
            Some("i32") => run_grey(&x.astype::<i32>()?, f, &go),
            Some("f32") => run_grey(&x.astype::<f32>()?, f, &go),
            _ => run_grey(&x, f, &go),
        },
    }
}

/// A grey morphology case on an input of type `T` (`it=`), the result as f64.
fn run_grey<T: cusci::core::Numeric + cusci::core::Ordered>(
    x: &Array<T>,
    f: &str,
    go: &GreyOptions,
) -> cusci::Result<Array<f64>> {
    match f {
        "g_erosion" => grey_erosion(x, go),
        "g_dilation" => grey_dilation(x, go),
        "g_opening" => grey_opening(x, go),
        "g_closing" => grey_closing(x, go),
        "m_gradient" => morphological_gradient(x, go),
        "m_laplace" => morphological_laplace(x, go),
        "w_tophat" => white_tophat(x, go),
        "b_tophat" => black_tophat(x, go),
        _ => panic!("unknown {f}"),
    }?
    .astype::<f64>()
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
    let x: Array<f64> = load(dir, "in", i)?;
    match p.get("it").map(|s| s.as_str()) {
        Some("bool") => meas(&x.astype::<bool>()?, dir, i, p),
        Some("u8") => meas(&x.astype::<u8>()?, dir, i, p),
        Some("i32") => meas(&x.astype::<i32>()?, dir, i, p),
        Some("i64") => meas(&x.astype::<i64>()?, dir, i, p),
        Some("f32") => meas(&x.astype::<f32>()?, dir, i, p),
        _ => meas(&x, dir, i, p),
    }
}

/// [`run_meas`] on an input of type `T` (`it=`).
fn meas<T: Element>(
    x: &Array<T>,
    dir: &str,
    i: &str,
    p: &HashMap<String, String>,
) -> cusci::Result<Array<f64>> {
    let cpu = Device::Cpu;
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
        "sum" => sum_labels(x, l, ix)?,
        "mean" => mean(x, l, ix)?,
        "variance" => variance(x, l, ix)?,
        "std" => standard_deviation(x, l, ix)?,
        "minimum" => minimum(x, l, ix)?,
        "maximum" => maximum(x, l, ix)?,
        "median" => median(x, l, ix)?,
        "minpos" => minimum_position(x, l, ix)?
            .into_iter()
            .flatten()
            .map(|v| v as f64)
            .collect(),
        "maxpos" => maximum_position(x, l, ix)?
            .into_iter()
            .flatten()
            .map(|v| v as f64)
            .collect(),
        "com" => center_of_mass(x, l, ix)?.into_iter().flatten().collect(),
        "hist" => histogram(x, -2.0, 2.0, 5, l, ix)?
            .into_iter()
            .flatten()
            .map(|v| v as f64)
            .collect(),
        "extrema" => {
            let (mn, mx, pmn, pmx) = extrema(x, l, ix)?;
            let pos = |p: Vec<Vec<usize>>| p.into_iter().flatten().map(|v| v as f64);
            mn.into_iter()
                .chain(mx)
                .chain(pos(pmn))
                .chain(pos(pmx))
                .collect()
        }
        // the mean of each region, SciPy's labeled_comprehension(x, labels, index, np.mean, float, -1.5)
        "lcomp" => labeled_comprehension(
            x,
            l,
            ix.unwrap_or(&[]),
            |v| v.iter().sum::<f64>() / v.len() as f64,
            -1.5,
        )?,
        // the labels' (the input's) values: each value, its count, then its flat positions
        "vindices" => {
            let shape = x.shape().to_vec();
            let mut out = vec![];
            for (k, idx) in value_indices(x, g("ignore").map(|s| s.parse().unwrap()))? {
                out.push(k as f64);
                out.push(idx[0].len() as f64);
                out.extend(
                    (0..idx[0].len())
                        .map(|j| (0..shape.len()).fold(0, |a, d| a * shape[d] + idx[d][j]) as f64),
                );
            }
            out
        }
        // per label 1..=max: (start, stop) per axis, -1s for an absent label
        "fobjects" => find_objects(x, g("maxl").map(|s| s.parse().unwrap()))?
            .into_iter()
            .flat_map(|o| match o {
                Some(sl) => sl
                    .into_iter()
                    .flat_map(|(a, b)| [a as f64, b as f64])
                    .collect(),
                None => vec![-1.0; 2 * x.ndim()],
            })
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
            } else if ["b_", "g_", "m_", "w_"].iter().any(|s| f.starts_with(s)) {
                run_morph(&dir, i, f, &p)
            } else if ["fgauss", "funiform", "fellipsoid", "fshift"].contains(&f)
                && p.contains_key("it")
            {
                fourier_case(&dir, i, f, &p)
            } else if p.contains_key("it") {
                dispatch_as(&dir, i, f, &p)
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
