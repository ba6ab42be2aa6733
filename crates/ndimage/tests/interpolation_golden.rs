//! Interpolation against SciPy (tests/golden/gen.py, section ndimage_filters, interpolation.npz):
//! every transform × mode × order 0–5, on every device.

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
    let order: usize = kv["order"].parse().unwrap();
    let o = InterpOptions {
        order,
        mode,
        cval: 0.75,
        prefilter: true,
    };
    let r = match f {
        "map_coordinates" => map_coordinates(&x, &arr(kv["c"]), &o),
        "zoom" => zoom(&x, &nums::<f64>(kv["zoom"]), kv["grid"] == "1", &o),
        "shift" => shift(&x, &nums::<f64>(kv["shift"]), &o),
        "affine" => affine_transform(
            &x,
            &Matrix::Full {
                rows: 2,
                cols: 2,
                data: vec![0.9, -0.3, 0.4, 1.1],
            },
            &nums::<f64>(kv["offset"]),
            Some(&nums::<usize>(kv["oshape"])),
            &o,
        ),
        "rotate" => {
            let axes = if x.ndim() == 3 { (2, 0) } else { (1, 0) };
            rotate(
                &x,
                kv["angle"].parse().unwrap(),
                axes,
                kv["reshape"] == "1",
                &o,
            )
        }
        "spline_filter" => spline_filter(&x, order, mode),
        "spline_filter1d" => spline_filter1d(&x, order, kv["axis"].parse().unwrap(), mode),
        other => panic!("unknown golden function {other}"),
    };
    r.unwrap_or_else(|e| panic!("{f} {kv:?}: {e}"))
}

#[test]
fn interpolation_matches_scipy_on_every_device() {
    let d = golden("interpolation.npz");
    let cases = cases(&d, 400);
    for dev in devices() {
        let mut failed = Vec::new();
        for c in &cases {
            let name = c.name;
            let y = run(c.f, &c.kv, &d, &dev).to_device(&Device::Cpu).unwrap();
            let want = d[name].as_array::<f64>().unwrap();
            let c = cusci_core::testing::compare(
                &y.to_vec().unwrap(),
                &want.to_vec().unwrap(),
                1e-9,
                1e-9,
            );
            if y.shape() != want.shape() || c.failures > 0 {
                failed.push(format!(
                    "{name}: shape {:?} vs {:?}, {c:?}",
                    y.shape(),
                    want.shape()
                ));
            }
        }
        assert!(
            failed.is_empty(),
            "{} of {} failed on {dev}:\n{}",
            failed.len(),
            cases.len(),
            failed.join("\n")
        );
        let _ = assert_allclose::<f64>;
    }
}
