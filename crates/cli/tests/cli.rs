//! Runs the `cusci` binary: `info` and a small CPU demo.

use std::path::Path;
use std::process::{Command, Output};

/// Runs `cusci args...`, or returns `None` when the binary is not beside this test (the GPU
/// bundle carries test executables only).
fn cusci(args: &[&str]) -> Option<Output> {
    let exe = env!("CARGO_BIN_EXE_cusci");
    if !Path::new(exe).exists() {
        eprintln!("note: skipping: the cusci binary is not at {exe}");
        return None;
    }
    Some(
        Command::new(exe)
            .args(args)
            .env_remove("CUSCI_DEVICE")
            .output()
            .expect("the cusci binary runs"),
    )
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn info_lists_devices_libraries_and_cache() {
    let Some(o) = cusci(&["info"]) else { return };
    let (out, err) = text(&o);
    assert!(o.status.success(), "cusci info failed\n{out}\n{err}");
    assert!(out.contains("cpu"), "no CPU line:\n{out}");
    assert!(
        out.contains("cuda:0") || out.contains("no GPU"),
        "neither a GPU nor its absence:\n{out}"
    );
    assert!(out.contains("nvrtc"), "no NVRTC line:\n{out}");
    assert!(
        out.contains("kernel cache:"),
        "no kernel cache line:\n{out}"
    );
}

/// Every number that follows the word "price" in `out`.
fn prices(out: &str) -> Vec<f64> {
    let words: Vec<&str> = out.split_whitespace().collect();
    words
        .windows(2)
        .filter(|w| w[0] == "price")
        .filter_map(|w| w[1].parse::<f64>().ok())
        .collect()
}

#[test]
fn demo_on_the_cpu_prices_the_call() {
    let Some(o) = cusci(&["demo", "--paths", "65536", "--device", "cpu", "--seed", "3"]) else {
        return;
    };
    let (out, err) = text(&o);
    assert!(o.status.success(), "cusci demo failed\n{out}\n{err}");
    assert!(
        out.contains("device: cpu"),
        "the device is not named:\n{out}"
    );
    assert!(out.contains("Black–Scholes"), "no closed form:\n{out}");
    let p = prices(&out);
    assert!(!p.is_empty(), "no price in the output:\n{out}");
    // Black–Scholes gives 8.0214; 65536 paths have a standard error near 0.05
    for v in p {
        assert!((7.5..8.5).contains(&v), "price {v} out of range:\n{out}");
    }
    assert!(out.contains("all checks passed"), "{out}");
}

#[test]
fn demo_rejects_bad_arguments() {
    let Some(o) = cusci(&["demo", "--paths", "1"]) else {
        return;
    };
    assert!(!o.status.success());
    let Some(o) = cusci(&["demo", "--device", "tpu", "--paths", "1024"]) else {
        return;
    };
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    let Some(o) = cusci(&["demo", "--stage", "nope", "--paths", "1024"]) else {
        return;
    };
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
}
