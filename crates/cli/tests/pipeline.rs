//! `cusci run` and `cusci::pipeline`: the two example pipelines end to end on the CPU (and on
//! the GPU when there is one, compared with the CPU), the checks made before any data moves,
//! and bad input (a corrupt file, a wrong dtype, a shape that changes mid-batch, an argument out
//! of range, an output folder that cannot be written, a write error, `--resume`).

use cusci::core::npy::load_npy_dyn;
use cusci::pipeline::{host_values, Input, Pipeline, StageSpec};
use cusci::{Array, Device};
use cusci_cli::pipeline_data::{generate_audio, generate_microscopy};
use cusci_cli::run::{execute, RunArgs, Summary};
use std::path::{Path, PathBuf};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/pipelines")
}

/// A temporary folder holding a copy of the example `name`.toml.
fn setup(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let toml = dir.path().join(format!("{name}.toml"));
    std::fs::copy(examples().join(format!("{name}.toml")), &toml).unwrap();
    (dir, toml)
}

fn args(toml: &Path, out: &Path, device: &str, batch: u64) -> RunArgs {
    RunArgs {
        device: device.into(),
        batch: Some(batch),
        ..RunArgs::new(toml, out)
    }
}

fn run_ok(a: &RunArgs) -> Summary {
    let s = execute(a).unwrap().unwrap();
    assert!(s.failed.is_empty(), "failures: {:?}", s.failed);
    s
}

fn csv_rows(p: &Path) -> Vec<Vec<f64>> {
    let t = std::fs::read_to_string(p).unwrap();
    t.lines()
        .skip(1)
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect()
}

fn npy(p: &Path) -> (Vec<usize>, Vec<f64>) {
    let a = load_npy_dyn(p, &Device::cpu()).unwrap();
    (a.shape().to_vec(), host_values(&a).unwrap())
}

/// The largest difference over the largest magnitude of `b`.
fn rel_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    let scale = b.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-30);
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
        / scale
}

/// A plot's PNG: its width, height and how many distinct colours it has.
fn plot_png(p: &Path) -> (u32, u32, usize) {
    let f = std::fs::File::open(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let mut r = png::Decoder::new(std::io::BufReader::new(f))
        .read_info()
        .unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb, "{}", p.display());
    let colours: std::collections::HashSet<&[u8]> = buf[..info.buffer_size()].chunks(3).collect();
    (info.width, info.height, colours.len())
}

fn no_temp_files(out: &Path) {
    for e in std::fs::read_dir(out).unwrap() {
        let n = e.unwrap().file_name().to_string_lossy().to_string();
        assert!(!n.contains(".tmp"), "a temporary file was left: {n}");
    }
}

#[test]
fn audio_example_end_to_end() {
    let (dir, toml) = setup("audio");
    let files = generate_audio(&dir.path().join("data/audio"), 6, 1, 2).unwrap();
    let out = dir.path().join("out_cpu");
    // batches of 4 and 2: both stacked
    let s = run_ok(&RunArgs {
        validate: 1,
        ..args(&toml, &out, "cpu", 4)
    });
    assert_eq!((s.files, s.done, s.skipped), (6, 6, 0));
    assert!(s.bytes_in > 0 && s.bytes_out > 0);
    assert_eq!(s.validation.len(), 6);
    assert!(s.validation.iter().all(|d| d.max_abs == 0.0));
    for f in &files {
        let stem = f.file_stem().unwrap().to_string_lossy().to_string();
        // 8 impacts per channel, 125 ms apart
        let rows = csv_rows(&out.join(format!("{stem}.impacts.csv")));
        for ch in 0..2 {
            let t: Vec<f64> = rows
                .iter()
                .filter(|r| r[0] == ch as f64)
                .map(|r| r[2])
                .collect();
            assert_eq!(t.len(), 8, "{stem} channel {ch}: {rows:?}");
            for w in t.windows(2) {
                assert!(
                    (w[1] - w[0] - 0.125).abs() < 0.005,
                    "{stem}: impacts at {t:?}"
                );
            }
        }
        let (shape, _) = npy(&out.join(format!("{stem}.env_1k.npy")));
        assert_eq!(shape, vec![2, 1000]);
        let (shape, _) = npy(&out.join(format!("{stem}.spectrogram.npy")));
        assert_eq!(shape[..2], [2, 129]);
        let json = std::fs::read_to_string(out.join(format!("{stem}.impacts.json"))).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["rows"].as_array().unwrap().len(), 16);
        let z = cusci::core::npy::load_npz(out.join(format!("{stem}.spectra.npz")), &Device::cpu())
            .unwrap();
        assert_eq!(z[0].0, "band");
        assert_eq!(z[1].1.shape(), &[2, 257]);
        // the plots: two channels of spectrogram in a colour map, two PSD lines, the envelope
        // with red peak markers
        for (n, w, h, colours) in [
            ("spectrogram", 900, 560, 50),
            ("psd", 900, 520, 8),
            ("envelope_peaks", 900, 500, 8),
        ] {
            let (pw, ph, c) = plot_png(&out.join(format!("{stem}.{n}.plot.png")));
            assert_eq!((pw, ph), (w, h), "{stem}.{n}.plot.png");
            assert!(c >= colours, "{stem}.{n}.plot.png: {c} colours");
        }
    }
    no_temp_files(&out);
    // one file at a time gives the same results as the batches (f32: the same operations)
    let out1 = dir.path().join("out_one");
    run_ok(&args(&toml, &out1, "cpu", 1));
    for f in &files {
        let stem = f.file_stem().unwrap().to_string_lossy().to_string();
        let name = format!("{stem}.env_1k.npy");
        let (_, a) = npy(&out.join(&name));
        let (_, b) = npy(&out1.join(&name));
        assert!(
            rel_diff(&a, &b) < 1e-5,
            "{name}: batched against one by one"
        );
    }
    // the GPU, compared with the CPU: arrays within 1e-3 of their largest value (f32), the
    // same impacts
    if cusci::core::testing::gpu().is_some() {
        let outg = dir.path().join("out_gpu");
        let s = run_ok(&RunArgs {
            validate: 2,
            ..args(&toml, &outg, "gpu", 4)
        });
        for d in &s.validation {
            assert!(d.mismatch.is_none() && d.max_rel < 1e-3, "{d:?}");
        }
        for f in &files {
            let stem = f.file_stem().unwrap().to_string_lossy().to_string();
            for n in ["env_1k", "spectrogram"] {
                let name = format!("{stem}.{n}.npy");
                let (_, a) = npy(&outg.join(&name));
                let (_, b) = npy(&out.join(&name));
                assert!(rel_diff(&a, &b) < 1e-3, "{name}: GPU against CPU");
            }
            for n in ["spectrogram", "psd", "envelope_peaks"] {
                let name = format!("{stem}.{n}.plot.png");
                let (w, h, c) = plot_png(&outg.join(&name));
                let (wc, hc, _) = plot_png(&out.join(&name));
                assert_eq!((w, h), (wc, hc), "{name}");
                assert!(c >= 8, "{name}: {c} colours");
            }
            let name = format!("{stem}.impacts.csv");
            let a = csv_rows(&outg.join(&name));
            let b = csv_rows(&out.join(&name));
            let idx = |r: &Vec<Vec<f64>>| r.iter().map(|x| (x[0], x[1])).collect::<Vec<_>>();
            assert_eq!(idx(&a), idx(&b), "{name}: GPU against CPU");
        }
    }
}

#[test]
fn microscopy_example_end_to_end() {
    let (dir, toml) = setup("microscopy");
    let files = generate_microscopy(&dir.path().join("data/microscopy"), 5, 3, 96).unwrap();
    let out = dir.path().join("out_cpu");
    let s = run_ok(&args(&toml, &out, "cpu", 3));
    assert_eq!((s.files, s.done), (5, 5));
    for (f, cells) in &files {
        let stem = f.file_stem().unwrap().to_string_lossy().to_string();
        let sums = csv_rows(&out.join(format!("{stem}.sum.csv")));
        assert_eq!(sums.len(), *cells, "{stem}: one row per cell");
        let means = csv_rows(&out.join(format!("{stem}.mean.csv")));
        for r in &means {
            assert!(r[1] > 1800.0 && r[1] < 4500.0, "{stem}: mean {r:?}");
        }
        let json =
            std::fs::read_to_string(out.join(format!("{stem}.center_of_mass.json"))).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["columns"], serde_json::json!(["label", "c0", "c1"]));
        // the label map as a colour PNG a person can look at
        let png = std::fs::File::open(out.join(format!("{stem}.label.png"))).unwrap();
        let r = png::Decoder::new(std::io::BufReader::new(png))
            .read_info()
            .unwrap();
        assert_eq!((r.info().width, r.info().height), (96, 96));
        let (shape, labels) = npy(&out.join(format!("{stem}.label.npy")));
        assert_eq!(shape, vec![96, 96]);
        assert_eq!(
            labels.iter().fold(0.0f64, |m, &v| m.max(v)) as usize,
            *cells
        );
        let (_, d) = npy(&out.join(format!("{stem}.distance.npy")));
        assert!(d.iter().any(|&v| v >= 2.0) && d.contains(&0.0));
        // before/after panels (grey) and the label map in colour with its legend
        let (w, h, c) = plot_png(&out.join(format!("{stem}.before_after.plot.png")));
        assert_eq!((w, h), (2 * 490, 490), "{stem}.before_after.plot.png");
        assert!(c >= 50, "{stem}.before_after.plot.png: {c} colours");
        let (w, h, c) = plot_png(&out.join(format!("{stem}.label.plot.png")));
        assert_eq!((w, h), (610, 490), "{stem}.label.plot.png");
        assert!(c > *cells + 2, "{stem}.label.plot.png: {c} colours");
    }
    no_temp_files(&out);
    if cusci::core::testing::gpu().is_some() {
        let outg = dir.path().join("out_gpu");
        run_ok(&args(&toml, &outg, "gpu", 3));
        for (f, _) in &files {
            let stem = f.file_stem().unwrap().to_string_lossy().to_string();
            let name = format!("{stem}.smooth.npy");
            let (_, a) = npy(&outg.join(&name));
            let (_, b) = npy(&out.join(&name));
            assert!(rel_diff(&a, &b) < 1e-5, "{name}: GPU against CPU");
            for n in ["before_after.plot.png", "label.plot.png"] {
                let name = format!("{stem}.{n}");
                assert_eq!(
                    plot_png(&outg.join(&name)),
                    plot_png(&out.join(&name)),
                    "{name}"
                );
            }
            for n in ["label.npy", "distance.npy"] {
                let name = format!("{stem}.{n}");
                assert_eq!(npy(&outg.join(&name)), npy(&out.join(&name)), "{name}");
            }
            for n in ["sum", "mean"] {
                let name = format!("{stem}.{n}.csv");
                let a = csv_rows(&outg.join(&name));
                let b = csv_rows(&out.join(&name));
                assert_eq!(a.len(), b.len(), "{name}");
                assert!(rel_diff(&a.concat(), &b.concat()) < 1e-4, "{name}");
            }
        }
    }
}

fn npy_pipeline(stages: Vec<StageSpec>) -> Pipeline {
    Pipeline {
        input: Input {
            glob: "*.npy".into(),
            ..Default::default()
        },
        stages,
        ..Default::default()
    }
}

#[test]
fn stages_are_checked_before_any_data_moves() {
    let err = |p: Pipeline| p.compile(".").unwrap_err();
    // an unknown function
    let e = err(npy_pipeline(vec![
        StageSpec::new("abs"),
        StageSpec::new("gausian_filter"),
    ]));
    assert_eq!(e.stage, Some((1, "gausian_filter".into())));
    assert!(e.to_string().contains("unknown function"), "{e}");
    // a wrong argument name
    let e = err(npy_pipeline(vec![StageSpec::new("gaussian_filter")
        .arg("sigma", 1.0)
        .arg("sigam", 2.0)]));
    assert_eq!(e.arg.as_deref(), Some("sigam"));
    assert!(
        e.to_string()
            .contains("stage 0 (gaussian_filter), argument `sigam`"),
        "{e}"
    );
    // a wrong type
    let e = err(npy_pipeline(vec![
        StageSpec::new("decimate").arg("q", "four")
    ]));
    assert_eq!(e.arg.as_deref(), Some("q"));
    // a value out of range: a band edge above Nyquist
    let mut filt = toml::Table::new();
    filt.insert("N".into(), 4.into());
    filt.insert(
        "Wn".into(),
        toml::Value::Array(vec![100.0.into(), 5000.0.into()]),
    );
    filt.insert("btype".into(), "bandpass".into());
    filt.insert("fs".into(), 8000.0.into());
    let e = err(npy_pipeline(vec![
        StageSpec::new("abs"),
        StageSpec::new("sosfiltfilt").arg("filter", filt),
    ]));
    assert_eq!(e.stage, Some((1, "sosfiltfilt".into())));
    assert_eq!(e.arg.as_deref(), Some("filter.Wn"));
    assert!(e.message.contains("4000"), "{e}");
    for (f, a, v) in [
        ("median_filter", "size", toml::Value::from(0)),
        ("zoom", "zoom", (-2.0).into()),
        ("rotate", "order", 7.into()),
        ("find_peaks", "distance", 0.5.into()),
        ("welch", "fs", 0.0.into()),
    ] {
        let mut s = StageSpec::new(f).arg(a, v);
        if f == "rotate" {
            s = s.arg("angle", 10.0);
        }
        let e = err(npy_pipeline(vec![s]));
        assert_eq!(
            (e.stage.clone().unwrap().1.as_str(), e.arg.as_deref()),
            (f, Some(a)),
            "{e}"
        );
    }
    // a kind that cannot flow: a complex STFT into a Gaussian filter
    let e = err(npy_pipeline(vec![
        StageSpec::new("stft"),
        StageSpec::new("gaussian_filter").arg("sigma", 1.0),
    ]));
    assert_eq!(e.stage, Some((1, "gaussian_filter".into())));
    assert!(e.message.contains("complex array"), "{e}");
    // measurements take labels or a real array, and a named image
    let e = err(npy_pipeline(vec![
        StageSpec::new("threshold").arg("value", 0.5),
        StageSpec::new("mean"),
    ]));
    assert!(
        e.message.contains("label array") && e.message.contains("boolean mask"),
        "{e}"
    );
    let e = err(npy_pipeline(vec![
        StageSpec::new("label"),
        StageSpec::new("sum").arg("image", "nothing"),
    ]));
    assert_eq!(e.arg.as_deref(), Some("image"));
    // a table written as npy
    let e = Pipeline::from_toml_str(
        "[input]\nglob='*.npy'\n[[stage]]\nfn='find_peaks'\n[[output]]\nfrom='find_peaks'\nformat='npy'\n",
    )
    .unwrap()
    .compile(".")
    .unwrap_err();
    assert!(e.to_string().contains("output[0].format"), "{e}");
    // a shape that cannot flow, found by the probe on a zero array (no file read)
    let plan = npy_pipeline(vec![StageSpec::new("gaussian_filter")
        .arg("sigma", toml::Value::Array(vec![1.0.into(), 1.0.into()]))])
    .compile(".")
    .unwrap();
    assert_eq!(plan.probe(&[8, 8]).unwrap()[0].shape, vec![8, 8]);
    let e = plan.probe(&[2, 8, 8]).unwrap_err();
    assert!(
        e.to_string().contains("stage 0 (gaussian_filter)") && e.message.contains("sigma"),
        "{e}"
    );
    // a measurement of a whole array: one row per file (SciPy's scalar)
    let plan = npy_pipeline(vec![
        StageSpec::new("sum"),
        StageSpec::new("center_of_mass").from("input"),
    ])
    .compile(".")
    .unwrap();
    let x = Array::<f32>::from_vec((0..8).map(|v| v as f32).collect(), &[2, 4], &Device::cpu())
        .unwrap();
    let r = plan.apply(x.into(), true, true).unwrap();
    let sums = r.vals[0].as_ref().unwrap();
    assert_eq!(sums.table(0).unwrap().rows, vec![vec![6.0]]);
    assert_eq!(sums.table(1).unwrap().rows, vec![vec![22.0]]);
    let com = r.vals[1].as_ref().unwrap().table(0).unwrap();
    assert_eq!(com.columns, vec!["c0"]);
    assert!((com.rows[0][0] - 14.0 / 6.0).abs() < 1e-6);
    // the TOML round trip of a Rust-built pipeline
    let p = npy_pipeline(vec![StageSpec::new("scale")
        .arg("factor", 2.0)
        .named("twice")]);
    let q = Pipeline::from_toml_str(&p.to_toml_string()).unwrap();
    assert_eq!(q.stages[0].name.as_deref(), Some("twice"));
    assert_eq!(q.stages[0].args["factor"].as_float(), Some(2.0));
}

/// A pipeline over `dir/*.npy`: a Gaussian filter and a threshold-and-label count.
fn write_npy_pipeline(dir: &Path) -> PathBuf {
    let p = dir.join("p.toml");
    std::fs::write(
        &p,
        r#"
[input]
glob = "in/*.npy"

[[stage]]
fn = "gaussian_filter"
sigma = [1.0, 1.0]

[[stage]]
fn = "threshold"
value = 0.5

[[stage]]
fn = "label"

[[stage]]
fn = "sum"
image = "gaussian_filter"

[[output]]
from = "gaussian_filter"
format = "npy"
name = "smooth"

[[output]]
from = "sum"
format = "csv"
"#,
    )
    .unwrap();
    p
}

fn save(path: &Path, shape: &[usize], seed: u64) {
    let a = cusci::core::testing::randn::<f64>(shape, seed, &Device::cpu()).unwrap();
    cusci::core::npy::save_npy(path, &a).unwrap();
}

#[test]
fn bad_files_are_reported_and_skipped_and_resume_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let toml = write_npy_pipeline(dir.path());
    let inp = dir.path().join("in");
    std::fs::create_dir_all(&inp).unwrap();
    for k in 0..5 {
        save(&inp.join(format!("a{k}.npy")), &[16, 16], k);
    }
    // a corrupt file
    std::fs::write(
        inp.join("a5_corrupt.npy"),
        b"\x93NUMPY this is not an array",
    )
    .unwrap();
    // a wrong dtype: complex
    let z = Array::<cusci::c64>::zeros(&[16, 16], &Device::cpu()).unwrap();
    cusci::core::npy::save_npy(inp.join("a6_complex.npy"), &z).unwrap();
    // a shape that changes mid-batch: 3-D among 2-D (sigma has two values); first in order, so the
    // probe before the run falls back to the next shape
    save(&inp.join("0_volume.npy"), &[2, 16, 16], 9);
    let out = dir.path().join("out");
    // a write error: a folder where one output file goes
    std::fs::create_dir_all(out.join("a3.sum.csv")).unwrap();
    let s = execute(&args(&toml, &out, "cpu", 8)).unwrap().unwrap();
    let why = |stem: &str| {
        s.failed
            .iter()
            .find(|f| f.file.file_stem().unwrap() == stem)
            .unwrap_or_else(|| panic!("{stem} did not fail: {:?}", s.failed))
    };
    assert_eq!(s.failed.len(), 4, "{:?}", s.failed);
    assert_eq!(why("a5_corrupt").stage, "read");
    let f = why("a6_complex");
    assert_eq!(f.stage, "read");
    assert!(f.message.contains("complex"), "{f:?}");
    let f = why("0_volume");
    assert_eq!(f.stage, "stage 0 (gaussian_filter)");
    assert!(
        f.message.contains("sigma") && f.message.contains("3-D"),
        "{f:?}"
    );
    let f = why("a3");
    assert_eq!(f.stage, "write");
    assert!(f.message.contains("a3.sum.csv"), "{f:?}");
    assert_eq!(s.done, 4);
    // what was written stays, complete
    for k in [0, 1, 2, 4] {
        assert!(out.join(format!("a{k}.sum.csv")).is_file());
        assert_eq!(npy(&out.join(format!("a{k}.smooth.npy"))).0, vec![16, 16]);
    }
    no_temp_files(&out);
    // the write error goes away: --resume runs only what is missing; a temporary file left by
    // an interrupted run is removed, another file is not
    std::fs::remove_dir(out.join("a3.sum.csv")).unwrap();
    std::fs::write(out.join(".a3.smooth.npy.tmp4242"), b"half").unwrap();
    std::fs::write(out.join(".notes.tmp1"), b"mine").unwrap();
    let before = std::fs::metadata(out.join("a0.sum.csv"))
        .unwrap()
        .modified()
        .unwrap();
    let s = execute(&RunArgs {
        resume: true,
        ..args(&toml, &out, "cpu", 8)
    })
    .unwrap()
    .unwrap();
    assert_eq!(s.skipped, 4);
    assert_eq!(s.done, 1);
    assert_eq!(s.failed.len(), 3);
    assert!(out.join("a3.sum.csv").is_file());
    assert!(!out.join(".a3.smooth.npy.tmp4242").exists());
    assert!(out.join(".notes.tmp1").exists());
    std::fs::remove_file(out.join(".notes.tmp1")).unwrap();
    no_temp_files(&out);
    let after = std::fs::metadata(out.join("a0.sum.csv"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before, after, "a complete output was rewritten");
}

/// Every output file of `out` (name and bytes).
fn outputs(out: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let n = e.file_name().to_string_lossy().to_string();
            (n, std::fs::read(e.path()).unwrap())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn streams_and_devices_give_the_same_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let toml = write_npy_pipeline(dir.path());
    let inp = dir.path().join("in");
    std::fs::create_dir_all(&inp).unwrap();
    // 11 files, two shapes: batches of 3 over the streams, one group per shape
    for k in 0..11 {
        let shape = if k % 4 == 3 { [12, 20] } else { [16, 16] };
        save(&inp.join(format!("f{k:02}.npy")), &shape, 40 + k);
    }
    let run = |name: &str, device: &str, devices: Option<&str>, streams: u64| {
        let out = dir.path().join(name);
        let s = run_ok(&RunArgs {
            devices: devices.map(String::from),
            streams: Some(streams),
            ..args(&toml, &out, device, 3)
        });
        assert_eq!(s.done, 11, "{name}");
        assert_eq!(
            s.streams as u64,
            streams * devices.map_or(1, |d| d.split(',').count()) as u64
        );
        no_temp_files(&out);
        (s, outputs(&out))
    };
    // which stream runs a batch does not change a byte
    let (_, one) = run("cpu1", "cpu", None, 1);
    assert_eq!(one.len(), 22);
    let (s, three) = run("cpu3", "cpu", None, 3);
    assert_eq!(s.device, "cpu (3 streams)");
    assert!(one == three, "3 CPU streams against 1");
    if cusci::core::testing::gpu().is_some() {
        let (_, g1) = run("gpu1", "gpu", None, 1);
        let (s, g2) = run("gpu2", "gpu", Some("0,0"), 2);
        assert_eq!(s.device, "cuda:0 (4 streams)");
        assert!(g1 == g2, "4 GPU streams against 1");
        let all = execute(&RunArgs {
            devices: Some("all".into()),
            ..args(&toml, &dir.path().join("all"), "cpu", 3)
        })
        .unwrap()
        .unwrap();
        assert!(all.device.starts_with("cuda:0"), "{}", all.device);
        assert!(
            outputs(&dir.path().join("all")) == g1,
            "--devices all against one stream"
        );
        // the GPU's tables and arrays against the CPU's: the same labels, values within f32
        for ((n, a), (m, b)) in g1.iter().zip(&one) {
            assert_eq!(n, m);
            if n.ends_with(".npy") {
                let (_, x) = npy(&dir.path().join("gpu1").join(n));
                let (_, y) = npy(&dir.path().join("cpu1").join(n));
                assert!(rel_diff(&x, &y) < 1e-5, "{n}");
            } else {
                assert_eq!(a.is_empty(), b.is_empty(), "{n}");
            }
        }
    }
    // bad --devices: named before anything runs
    let bad = |d: &str| {
        execute(&RunArgs {
            devices: Some(d.into()),
            ..args(&toml, &dir.path().join("bad"), "cpu", 3)
        })
        .unwrap_err()
    };
    let e = bad("zero");
    assert!(e.contains("--devices") && e.contains("GPU numbers"), "{e}");
    let e = bad("99");
    assert!(e.contains("--devices") && e.contains("GPU 99"), "{e}");
    assert!(!dir.path().join("bad").exists());
}

#[test]
fn an_output_folder_that_cannot_be_written_stops_before_running() {
    let dir = tempfile::tempdir().unwrap();
    let toml = write_npy_pipeline(dir.path());
    std::fs::create_dir_all(dir.path().join("in")).unwrap();
    save(&dir.path().join("in/x.npy"), &[8, 8], 1);
    // a file where the folder should be (root ignores permission bits, so this is the test)
    let out = dir.path().join("taken");
    std::fs::write(&out, b"").unwrap();
    let e = execute(&args(&toml, &out, "cpu", 2)).unwrap_err();
    assert!(e.contains("output folder") && e.contains("taken"), "{e}");
    let e = execute(&args(&toml, &out.join("sub"), "cpu", 2)).unwrap_err();
    assert!(e.contains("output folder"), "{e}");
}

#[test]
fn images_of_every_format_read_alike() {
    use cusci::pipeline::io::{read_file, write_png_u16, write_tiff_u16};
    use cusci::pipeline::ComputeDType;
    let dir = tempfile::tempdir().unwrap();
    let data: Vec<u16> = (0..12u16).map(|v| v * 5000).collect();
    write_png_u16(&dir.path().join("a.png"), 4, 3, &data).unwrap();
    write_tiff_u16(&dir.path().join("a.tif"), 4, 3, &data).unwrap();
    let a = Array::<f64>::from_vec(
        data.iter().map(|&v| v as f64).collect(),
        &[3, 4],
        &Device::cpu(),
    )
    .unwrap();
    cusci::core::npy::save_npy(dir.path().join("a.npy"), &a).unwrap();
    let input = Input::default();
    let want: Vec<f64> = data.iter().map(|&v| v as f64).collect();
    for f in ["a.png", "a.tif", "a.npy"] {
        let (x, _) = read_file(&dir.path().join(f), &input, ComputeDType::F64).unwrap();
        assert_eq!(x.shape(), &[3, 4], "{f}");
        assert_eq!(host_values(&x).unwrap(), want, "{f}");
    }
    // 8-bit RGB PNG: (h, w, 3)
    let rgb = cusci::pipeline::io::encode_png(2, 1, 3, &[1, 2, 3, 4, 5, 6]).unwrap();
    std::fs::write(dir.path().join("c.png"), rgb).unwrap();
    let (x, _) = read_file(&dir.path().join("c.png"), &input, ComputeDType::F32).unwrap();
    assert_eq!(x.shape(), &[1, 2, 3]);
    assert_eq!(host_values(&x).unwrap(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    // mono and two-channel WAV, and input.fs
    let w = dir.path().join("m.wav");
    cusci::pipeline::io::write_wav_i16(&w, 8000, 1, &[0, 16384, -16384]).unwrap();
    let (x, info) = read_file(&w, &input, ComputeDType::F64).unwrap();
    assert_eq!((x.shape(), info.sample_rate), (&[3usize][..], Some(8000)));
    assert_eq!(host_values(&x).unwrap(), vec![0.0, 0.5, -0.5]);
    let w2 = dir.path().join("s.wav");
    cusci::pipeline::io::write_wav_i16(&w2, 8000, 2, &[1, 2, 3, 4, 5, 6]).unwrap();
    let (x, _) = read_file(&w2, &input, ComputeDType::F64).unwrap();
    assert_eq!(x.shape(), &[2, 3]);
    assert_eq!(
        host_values(&x).unwrap()[..3],
        [1.0 / 32768.0, 3.0 / 32768.0, 5.0 / 32768.0]
    );
    let e = read_file(
        &w2,
        &Input {
            fs: Some(16000),
            ..Input::default()
        },
        ComputeDType::F64,
    )
    .unwrap_err();
    assert!(e.to_string().contains("16000"), "{e}");
}

/// The binary: the exit status says some files failed (1) or the pipeline is wrong (2), and
/// `--dry-run` prints the plan.
#[test]
fn the_cusci_run_command() {
    let exe = env!("CARGO_BIN_EXE_cusci");
    if !Path::new(exe).exists() {
        eprintln!("note: skipping: the cusci binary is not at {exe}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let toml = write_npy_pipeline(dir.path());
    std::fs::create_dir_all(dir.path().join("in")).unwrap();
    save(&dir.path().join("in/x.npy"), &[8, 8], 1);
    let run = |extra: &[&str]| {
        let mut c = std::process::Command::new(exe);
        c.arg("run")
            .arg(&toml)
            .args(["--device", "cpu", "--quiet", "--out"]);
        c.arg(dir.path().join("out")).args(extra);
        c.output().unwrap()
    };
    let o = run(&["--dry-run"]);
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{text}");
    assert!(
        text.contains("gaussian_filter") && text.contains("[8, 8]") && text.contains("per batch"),
        "{text}"
    );
    assert!(!dir.path().join("out").exists(), "a dry run wrote");
    let o = run(&[]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("1 done"));
    std::fs::write(dir.path().join("in/y.npy"), b"junk").unwrap();
    let o = run(&["--resume"]);
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("y.npy: read"), "{text}");
    std::fs::write(
        &toml,
        "[input]\nglob = 'in/*.npy'\n[[stage]]\nfn = 'median_filter'\nsize = -1\n",
    )
    .unwrap();
    let o = run(&[]);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("stage 0 (median_filter), argument `size`"),
        "{err}"
    );
}

/// Every array stage on a stacked batch of 3 files gives what the cusci function gives on each
/// file alone (float64: within 1e-12 of the largest value); on the GPU, what the CPU gives
/// (within 1e-9).
#[test]
fn every_stage_on_a_batch_matches_its_function_per_file() {
    use cusci::fft::FftOptions;
    use cusci::ndimage as nd;
    use cusci::pipeline::Data;
    use cusci::signal as sg;
    type F = Box<dyn Fn(&Array<f64>) -> Vec<f64>>;
    let c = |v: Vec<cusci::c64>| {
        v.into_iter()
            .flat_map(|z| [z.re, z.im])
            .collect::<Vec<f64>>()
    };
    let sig: Vec<(StageSpec, F)> = vec![
        (
            StageSpec::new("resample_poly")
                .arg("up", 3)
                .arg("down", 2)
                .arg("axis", 1),
            Box::new(|x| {
                let o = sg::ResamplePolyOptions {
                    axis: 1,
                    ..Default::default()
                };
                sg::resample_poly(x, 3, 2, &o).unwrap().to_vec().unwrap()
            }),
        ),
        (
            StageSpec::new("hilbert"),
            Box::new(move |x| {
                c(sg::hilbert(x, &Default::default())
                    .unwrap()
                    .to_vec()
                    .unwrap())
            }),
        ),
        (
            StageSpec::new("stft").arg("nperseg", 16),
            Box::new(move |x| {
                let o = sg::StftOptions {
                    nperseg: Some(16),
                    ..Default::default()
                };
                c(sg::stft(x, &o).unwrap().2.to_vec().unwrap())
            }),
        ),
        (
            StageSpec::new("rfft").arg("n", 80),
            Box::new(move |x| {
                let o = FftOptions {
                    n: Some(80),
                    ..Default::default()
                };
                c(cusci::fft::rfft(x, &o).unwrap().to_vec().unwrap())
            }),
        ),
        (
            StageSpec::new("fft").arg("axis", 0),
            Box::new(move |x| {
                let o = FftOptions {
                    axis: 0,
                    ..Default::default()
                };
                c(cusci::fft::fft(x, &o).unwrap().to_vec().unwrap())
            }),
        ),
        (
            StageSpec::new("decimate").arg("q", 2).arg("ftype", "fir"),
            Box::new(|x| {
                let o = sg::DecimateOptions {
                    ftype: sg::DecimateFtype::Fir,
                    ..Default::default()
                };
                sg::decimate(x, 2, &o).unwrap().to_vec().unwrap()
            }),
        ),
        (
            StageSpec::new("clip").arg("a_min", -0.5).arg("a_max", 0.5),
            Box::new(|x| x.clip(-0.5, 0.5).unwrap().to_vec().unwrap()),
        ),
        (
            StageSpec::new("scale").arg("factor", 3),
            Box::new(|x| x.mul_scalar(3.0).unwrap().to_vec().unwrap()),
        ),
        (
            StageSpec::new("offset").arg("value", -1.5),
            Box::new(|x| x.add_scalar(-1.5).unwrap().to_vec().unwrap()),
        ),
        (
            StageSpec::new("abs"),
            Box::new(|x| x.abs().unwrap().to_vec().unwrap()),
        ),
        (
            StageSpec::new("astype").arg("dtype", "complex128"),
            Box::new(move |x| c(x.astype::<cusci::c64>().unwrap().to_vec().unwrap())),
        ),
    ];
    let img: Vec<(StageSpec, F)> = vec![
        (
            StageSpec::new("sobel").arg("axis", 0),
            Box::new(|x| {
                nd::sobel(x, 0, &Default::default())
                    .unwrap()
                    .to_vec()
                    .unwrap()
            }),
        ),
        (
            StageSpec::new("zoom").arg("zoom", 1.5),
            Box::new(|x| {
                nd::zoom(x, &[1.5], false, &Default::default())
                    .unwrap()
                    .to_vec()
                    .unwrap()
            }),
        ),
        (
            StageSpec::new("rotate")
                .arg("angle", 30.0)
                .arg("axes", toml::Value::Array(vec![0.into(), 1.into()])),
            Box::new(|x| {
                nd::rotate(x, 30.0, (0, 1), true, &Default::default())
                    .unwrap()
                    .to_vec()
                    .unwrap()
            }),
        ),
        (
            StageSpec::new("median_filter")
                .arg("size", toml::Value::Array(vec![3.into(), 1.into()])),
            Box::new(|x| {
                let f = nd::Footprint::Size(vec![3, 1]);
                nd::median_filter(x, &f, &Default::default())
                    .unwrap()
                    .to_vec()
                    .unwrap()
            }),
        ),
        (
            StageSpec::new("gaussian_filter")
                .arg("sigma", 1.5)
                .arg("mode", "nearest"),
            Box::new(|x| {
                let o = nd::GaussianOptions {
                    mode: nd::Mode::Nearest,
                    ..Default::default()
                };
                nd::gaussian_filter(x, &[1.5], &o)
                    .unwrap()
                    .to_vec()
                    .unwrap()
            }),
        ),
    ];
    let cpu = Device::cpu();
    for (shape, cases) in [(vec![2usize, 64], sig), (vec![12, 10], img)] {
        let files: Vec<Array<f64>> = (0..3)
            .map(|k| cusci::core::testing::randn::<f64>(&shape, 40 + k, &cpu).unwrap())
            .collect();
        let mut full = vec![3];
        full.extend(&shape);
        let flat: Vec<f64> = files.iter().flat_map(|a| a.to_vec().unwrap()).collect();
        for (spec, want) in cases {
            let f = spec.func.clone();
            let p = Pipeline {
                dtype: Some("float64".into()),
                ..npy_pipeline(vec![spec])
            };
            let plan = p.compile(".").unwrap();
            let mut devs = vec![cpu.clone()];
            devs.extend(cusci::core::testing::gpu());
            let mut on_cpu: Vec<Vec<f64>> = Vec::new();
            for d in &devs {
                let x = Array::from_vec(flat.clone(), &full, &cpu)
                    .unwrap()
                    .to_device(d)
                    .unwrap();
                let r = plan
                    .apply(x.into(), true, true)
                    .unwrap_or_else(|e| panic!("{f}: {:?}", e.error));
                let _ = r.input;
                let out: &Data = r.vals[0].as_ref().map(|v| v as &Data).unwrap_or_else(|| {
                    panic!("{f}: the last stage's value is kept only when read; apply with trace")
                });
                for (k, a) in files.iter().enumerate() {
                    let got = host_values(&out.part(k).unwrap().unwrap()).unwrap();
                    if d.is_cuda() {
                        assert!(
                            rel_diff(&got, &on_cpu[k]) < 1e-9,
                            "{f}: GPU against CPU, file {k}"
                        );
                    } else {
                        let w = want(a);
                        assert!(
                            rel_diff(&got, &w) < 1e-12,
                            "{f}: file {k} of the batch against the function"
                        );
                        on_cpu.push(got);
                    }
                }
            }
        }
    }
}

/// A pipeline of `stages` writing `outputs` (`(from, format, name)`), compiled.
fn with_outputs(
    stages: Vec<StageSpec>,
    outputs: &[(&[&str], &str, Option<&str>)],
) -> Result<cusci::pipeline::Plan, cusci::pipeline::PipelineError> {
    let mut p = npy_pipeline(stages);
    for (from, format, name) in outputs {
        p.outputs.push(cusci::pipeline::OutputSpec {
            from: if from.len() == 1 {
                cusci::pipeline::OneOrMany::One(from[0].into())
            } else {
                cusci::pipeline::OneOrMany::Many(from.iter().map(|s| s.to_string()).collect())
            },
            format: format.to_string(),
            name: name.map(str::to_string),
        });
    }
    p.compile(".")
}

#[test]
fn plot_outputs_are_checked() {
    use cusci::pipeline::PlotKind;
    let audio = || {
        vec![
            StageSpec::new("envelope").named("env"),
            StageSpec::new("find_peaks").named("pk").arg("height", 0.1),
            StageSpec::new("spectrogram")
                .from("input")
                .arg("fs", 8000.0)
                .arg("nperseg", 64),
            StageSpec::new("welch").from("input").arg("fs", 8000.0),
            StageSpec::new("rfft").from("input"),
            StageSpec::new("welch")
                .named("welch0")
                .from("input")
                .arg("axis", 0),
        ]
    };
    // what each output draws
    let plan = with_outputs(
        audio(),
        &[
            (&["spectrogram"], "plot", None),
            (&["welch"], "plot", None),
            (&["env", "pk"], "plot", None),
            (&["input", "env"], "plot", None),
            (&["env"], "plot", None),
        ],
    )
    .unwrap();
    let kinds: Vec<_> = plan
        .outputs
        .iter()
        .map(|o| o.plot.clone().unwrap())
        .collect();
    assert!(matches!(
        kinds[0],
        PlotKind::Spectrogram {
            nperseg: 64,
            stft: false,
            ..
        }
    ));
    assert!(matches!(kinds[1], PlotKind::Psd { density: true, .. }));
    assert_eq!(
        kinds[2],
        PlotKind::Trace {
            fs: None,
            peaks: true
        }
    );
    assert_eq!(kinds[3], PlotKind::Panels);
    assert_eq!(kinds[4], PlotKind::Panels);
    assert_eq!(plan.outputs[2].name, "env-pk");
    let out =
        cusci::pipeline::io::output_path(Path::new("o"), Path::new("a.npy"), &plan.outputs[0]);
    assert_eq!(out, Path::new("o/a.spectrogram.plot.png"));
    // bad combinations: an error naming the output and listing the plot kinds
    for (from, name, says) in [
        (&["pk"][..], "peaks_alone", "no plot of that"),
        (&["rfft"][..], "spectrum", "no plot of that"),
        (
            &["input", "pk"][..],
            "wrong_signal",
            "were found in \"env\", not in \"input\"",
        ),
        (
            &["spectrogram", "welch", "env"][..],
            "three",
            "no plot of that",
        ),
        (&["welch0"][..], "axis0", "axis = -1"),
        (&["input", "env", "rfft"][..], "complex", "no plot of that"),
    ] {
        let e = with_outputs(audio(), &[(from, "plot", Some(name))]).unwrap_err();
        let m = e.to_string();
        assert!(m.contains(&format!("output[0] ({name})")), "{m}");
        assert!(m.contains(says), "{m}");
        assert_eq!(e.arg.as_deref(), Some("output[0].from"), "{m}");
        if says == "no plot of that" {
            assert!(
                m.contains("spectrogram or stft") && m.contains("find_peaks"),
                "{m}"
            );
        }
    }
    // an unknown format lists plot among the formats
    let e = with_outputs(audio(), &[(&["env"], "plt", Some("x"))]).unwrap_err();
    assert!(e.to_string().contains("png or plot"), "{e}");
    // a plot of the same name as a png of the same stage: different files
    let plan = with_outputs(
        vec![StageSpec::new("abs")],
        &[(&["abs"], "png", None), (&["abs"], "plot", None)],
    )
    .unwrap();
    assert_eq!(plan.outputs[0].extension(), "png");
    assert_eq!(plan.outputs[1].extension(), "plot.png");
}

#[test]
fn plots_of_every_kind_render() {
    // a short run of every plot kind on tiny files, also odd shapes: one channel, a 1-D signal
    let dir = tempfile::tempdir().unwrap();
    let sig: Vec<f64> = (0..512)
        .map(|i| ((i as f64) * 0.3).sin() * (1.0 + (i as f64 * 0.01).cos()))
        .collect();
    let a = Array::from_vec(sig, &[512], &Device::cpu()).unwrap();
    cusci::core::npy::save_npy(dir.path().join("s.npy"), &a).unwrap();
    let mut p = npy_pipeline(vec![
        StageSpec::new("envelope").named("env"),
        StageSpec::new("find_peaks").named("pk").arg("distance", 20),
        StageSpec::new("stft")
            .from("input")
            .arg("fs", 100.0)
            .arg("nperseg", 32),
        StageSpec::new("spectrogram")
            .from("input")
            .arg("fs", 100.0)
            .arg("nperseg", 32)
            .arg("mode", "magnitude"),
        StageSpec::new("welch")
            .from("input")
            .arg("fs", 100.0)
            .arg("nperseg", 64)
            .arg("scaling", "spectrum"),
    ]);
    for (from, name) in [
        (&["stft"][..], "stft"),
        (&["spectrogram"][..], "spec"),
        (&["welch"][..], "psd"),
        (&["env", "pk"][..], "peaks"),
        (&["input"][..], "trace"),
    ] {
        p.outputs.push(cusci::pipeline::OutputSpec {
            from: if from.len() == 1 {
                cusci::pipeline::OneOrMany::One(from[0].into())
            } else {
                cusci::pipeline::OneOrMany::Many(from.iter().map(|s| s.to_string()).collect())
            },
            format: "plot".into(),
            name: Some(name.into()),
        });
    }
    let toml = dir.path().join("p.toml");
    std::fs::write(&toml, p.to_toml_string()).unwrap();
    let out = dir.path().join("out");
    run_ok(&args(&toml, &out, "cpu", 1));
    for n in ["stft", "spec", "psd", "peaks", "trace"] {
        let (w, h, c) = plot_png(&out.join(format!("s.{n}.plot.png")));
        assert!(w >= 500 && h >= 250, "{n}: {w} x {h}");
        assert!(c >= 5, "{n}: {c} colours");
    }
    no_temp_files(&out);
}
