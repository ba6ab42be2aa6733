//! The filters against SciPy (tests/golden/gen.py, section ndimage_filters): every function ×
//! every mode, on the CPU, and the same calls on the GPU when one is usable.

use crate::common::{cases, golden, nums};
use cusci_core::npy::DynArray;
use cusci_core::testing::{assert_allclose, devices};
use cusci_ndimage::*;
use std::collections::HashMap;

fn run(
    f: &str,
    kv: &HashMap<&str, &str>,
    d: &HashMap<String, DynArray>,
    dev: &Device,
) -> Array<f64> {
    let arr = |k: &str| d[k].as_array::<f64>().unwrap().to_device(dev).unwrap();
    let x = arr(kv["x"]);
    let mode: Mode = kv["mode"].parse().unwrap();
    let origin: Vec<isize> = kv.get("origin").map(|s| nums(s)).unwrap_or_default();
    let o = FilterOptions {
        mode,
        cval: 1.5,
        origin,
        axes: None,
        modes: Vec::new(),
    };
    let axis: isize = kv.get("axis").map(|s| s.parse().unwrap()).unwrap_or(-1);
    let sizes = || Footprint::Size(nums(kv["size"]));
    let fp = || match kv.get("fp") {
        Some(_) => Footprint::Mask(d["fp"].as_array::<bool>().unwrap().clone()),
        None => sizes(),
    };
    let g = GaussianOptions {
        order: kv.get("order").map(|s| nums(s)).unwrap_or_default(),
        truncate: kv
            .get("truncate")
            .map(|s| s.parse().unwrap())
            .unwrap_or(4.0),
        radius: kv.get("radius").map(|s| nums(s)),
        mode,
        cval: 1.5,
        axes: None,
        modes: Vec::new(),
    };
    let sig = || nums::<f64>(kv["sigma"]);
    let w = || kv.get("w").map(|s| s.to_string()).unwrap();
    let r = match f {
        "correlate1d" => correlate1d(&x, &nums::<f64>(&w()), axis, &o),
        "convolve1d" => convolve1d(&x, &nums::<f64>(&w()), axis, &o),
        "correlate" => correlate(&x, d[&w()].as_array::<f64>().unwrap(), &o),
        "convolve" => convolve(&x, d[&w()].as_array::<f64>().unwrap(), &o),
        "gaussian_filter" => gaussian_filter(&x, &sig(), &g),
        "gaussian_filter1d" => gaussian_filter1d(&x, sig()[0], axis, &g),
        "uniform_filter" => uniform_filter(&x, &nums::<usize>(kv["size"]), &o),
        "uniform_filter1d" => uniform_filter1d(&x, kv["size"].parse().unwrap(), axis, &o),
        "minimum_filter" => minimum_filter(&x, &fp(), &o),
        "maximum_filter" => maximum_filter(&x, &fp(), &o),
        "minimum_filter1d" => minimum_filter1d(&x, kv["size"].parse().unwrap(), axis, &o),
        "maximum_filter1d" => maximum_filter1d(&x, kv["size"].parse().unwrap(), axis, &o),
        "median_filter" => median_filter(&x, &fp(), &o),
        "rank_filter" => rank_filter(&x, kv["rank"].parse().unwrap(), &fp(), &o),
        "percentile_filter" => percentile_filter(&x, kv["percentile"].parse().unwrap(), &fp(), &o),
        "sobel" => sobel(&x, axis, &o),
        "prewitt" => prewitt(&x, axis, &o),
        "laplace" => laplace(&x, &o),
        "gaussian_laplace" => gaussian_laplace(&x, &sig(), &g),
        "gaussian_gradient_magnitude" => gaussian_gradient_magnitude(&x, &sig(), &g),
        other => panic!("unknown golden function {other}"),
    };
    r.unwrap_or_else(|e| panic!("{f} {kv:?}: {e}"))
}

#[test]
fn filters_match_scipy_on_every_device() {
    let d = golden("filters.npz");
    let cases = cases(&d, 200);
    let mut seen = std::collections::HashSet::new();
    for dev in devices() {
        for c in &cases {
            let (name, f) = (c.name, c.f);
            seen.insert(f.to_string());
            let y = run(f, &c.kv, &d, &dev);
            let want = d[name].as_array::<f64>().unwrap();
            assert_allclose(&y, want, 1e-12, 1e-12, &format!("{name} on {dev}"));
        }
    }
    assert_eq!(seen.len(), 20);
}
