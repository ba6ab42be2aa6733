//! Helpers the test modules share: the golden data of tests/golden/gen.py and its case names.

use cusci_core::npy::{load_npz, DynArray};
use cusci_core::testing::{assert_allclose, devices, randn};
use cusci_ndimage::{Array, Device, Mode, Real};
use std::collections::HashMap;

/// The arrays of `tests/data/<file>` (written by tests/golden/gen.py) by name.
pub fn golden(file: &str) -> HashMap<String, DynArray> {
    let p = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    load_npz(&p, &Device::Cpu).unwrap().into_iter().collect()
}

/// Comma-separated numbers (a golden case's list value).
pub fn nums<T: std::str::FromStr>(s: &str) -> Vec<T>
where
    T::Err: std::fmt::Debug,
{
    s.split(',').map(|v| v.parse().unwrap()).collect()
}

/// A golden case named `c<k>__<function>__<key>=<value>__...`: its name, the function and the
/// keyword values.
pub struct Case<'a> {
    pub name: &'a str,
    pub f: &'a str,
    pub kv: HashMap<&'a str, &'a str>,
}

/// The golden cases of `d` in name order (at least `min` of them).
pub fn cases(d: &HashMap<String, DynArray>, min: usize) -> Vec<Case<'_>> {
    let mut names: Vec<&String> = d
        .keys()
        .filter(|k| k.starts_with('c') && k.contains("__"))
        .collect();
    names.sort();
    assert!(names.len() >= min, "only {} golden cases", names.len());
    names
        .into_iter()
        .map(|name| {
            let parts: Vec<&str> = name.split("__").collect();
            let kv = parts[2..]
                .iter()
                .map(|p| p.split_once('=').unwrap())
                .collect();
            Case {
                name,
                f: parts[1],
                kv,
            }
        })
        .collect()
}

/// Inputs ~N(0, `sd`²) of `T` on the CPU (integer types: truncated).
pub fn input<T: Real>(shape: &[usize], seed: u64, sd: f64) -> Array<T> {
    let v: Vec<T> = randn::<f64>(shape, seed, &Device::Cpu)
        .unwrap()
        .to_vec()
        .unwrap()
        .iter()
        .map(|v| T::from_f(v * sd))
        .collect();
    Array::from_vec(v, shape, &Device::Cpu).unwrap()
}

/// Every GPU against the CPU: the named results of `filters` on `xc` (on the CPU) and on its
/// copy on the GPU, in every mode, within `rtol` / `atol`; the GPU's results stay there.
pub fn gpu_matches_cpu<T: Real, N: std::fmt::Display>(
    xc: &Array<T>,
    (rtol, atol): (f64, f64),
    filters: impl Fn(&Array<T>, Mode) -> Vec<(N, Array<T>)>,
) {
    let shape = xc.shape();
    for dev in devices().into_iter().skip(1) {
        let xg = xc.to_device(&dev).unwrap();
        for mode in Mode::ALL {
            let cpu = filters(xc, mode);
            let gpu = filters(&xg, mode);
            for ((n, a), (_, b)) in cpu.iter().zip(&gpu) {
                assert_eq!(b.device(), &dev);
                let b = b.to_device(&Device::Cpu).unwrap();
                let ctx = format!("{n} {mode} {shape:?} {} on {dev}", T::DTYPE);
                assert_allclose(&b, a, rtol, atol, &ctx);
            }
        }
    }
}

/// A 1-D weighted-sum pass along `axis` of a C-contiguous (rows, cols) array, as SciPy's
/// correlate1d: `out[i] = sum_k w[k] x[i + k - shift]`, outside positions mapped by `mode`.
pub fn naive_pass(
    x: &[f64],
    sh: [usize; 2],
    axis: usize,
    w: &[f64],
    shift: i64,
    mode: Mode,
    cval: f64,
) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    for i in 0..sh[0] {
        for j in 0..sh[1] {
            let mut acc = 0.0;
            for (k, wk) in w.iter().enumerate() {
                let d = k as i64 - shift;
                let (ii, jj) = if axis == 0 {
                    (i as i64 + d, j as i64)
                } else {
                    (i as i64, j as i64 + d)
                };
                let v = match (
                    mode.map_index(ii, sh[0] as i64),
                    mode.map_index(jj, sh[1] as i64),
                ) {
                    (Some(p), Some(q)) => x[p as usize * sh[1] + q as usize],
                    _ => cval,
                };
                acc += wk * v;
            }
            out[i * sh[1] + j] = acc;
        }
    }
    out
}
