//! `validate`: the report of a GPU-against-CPU run, and its agreement test.

use cusci_core::validate::{validate_on, OutputReport, Report};
use cusci_core::{Array, Device};

fn report(abs: f64, rel: f64, undefined: f64) -> Report {
    Report {
        name: "t".into(),
        gpu: Some("cuda:0".into()),
        cpu_ms: 1.0,
        gpu_ms: Some(1.0),
        outputs: vec![OutputReport {
            name: "out".into(),
            len: 3,
            max_abs_err: abs,
            max_rel_err: rel,
            max_err_where_rel_undefined: undefined,
            worst_index: Some(0),
            gpu_value: None,
            cpu_value: None,
        }],
    }
}

#[test]
fn within_needs_every_element_covered() {
    assert!(report(1e-9, 0.5, 0.0).within(0.0, 1e-8)); // all absolute errors small
    assert!(report(10.0, 1e-7, 0.0).within(1e-6, 0.0)); // all relative errors small
                                                        // relative errors small, but an element where the CPU gives 0 (or NaN/inf) is off
    assert!(!report(10.0, 1e-7, 10.0).within(1e-6, 1e-3));
    assert!(!report(f64::INFINITY, f64::INFINITY, f64::INFINITY).within(1.0, 1.0));
    let mut no_gpu = report(10.0, 10.0, 10.0);
    no_gpu.gpu = None;
    assert!(no_gpu.within(0.0, 0.0));
}

#[test]
fn cpu_only_report_runs_the_cpu() {
    let r = validate_on("square", None, |d: &Device| {
        let x = Array::<f64>::arange(0.0, 8.0, 1.0, d)?;
        &x * &x
    })
    .unwrap();
    assert!(r.gpu.is_none() && r.cpu_ms >= 0.0);
    assert_eq!(r.outputs.len(), 1);
    assert!(r.within(0.0, 0.0));
    let r = validate_on(
        "fails",
        None,
        |_: &Device| -> cusci_core::Result<Array<f32>> {
            Err(cusci_core::error::make::arg("fails", "on purpose"))
        },
    );
    assert!(r.is_err());
}
