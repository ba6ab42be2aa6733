//! cusci-fft against SciPy's own results, read from `tests/data/scipy_fft.npz` (written by
//! `tests/golden/gen.py fft`; see its `gen_fft` for the member names).
//!
//! Member `in_<key>` is an input; member `<op>_<key>_<tokens...>_out` is `scipy.fft.<op>` of
//! `in_<key>` with the options that the tokens spell: `backward`/`ortho`/`forward` (`norm=`),
//! `n<k>`, `s<a>x<b>...`, `ax<a>x<b>...` (`m<k>` is the axis -k), `type<k>`, `orthogF`/`orthogT`
//! (`orthogonalize=`). `fftfreq`/`rfftfreq` take no input: `<op>_n<k>_d<d>_out`.

use cusci_core::npy::{load_npz, DynArray};
use cusci_core::{c64, DType, Device};
use cusci_fft::*;
use std::collections::{BTreeMap, BTreeSet};

const NPZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/scipy_fft.npz");

/// Tolerances relative to the largest magnitude of SciPy's result.
const TOL_F64: f64 = 1e-12;
const TOL_F32: f64 = 1e-5;

/// One SciPy call, parsed from its member name.
#[derive(Debug, Default)]
struct Case {
    op: String,
    key: Option<String>,
    norm: Norm,
    n: Option<usize>,
    s: Option<Vec<usize>>,
    axes: Option<Vec<isize>>,
    kind: DctType,
    orthogonalize: Option<bool>,
    d: Option<f64>,
}

fn ints(list: &str) -> Vec<isize> {
    list.split('x')
        .map(|t| match t.strip_prefix('m') {
            Some(neg) => -neg.parse::<isize>().expect("an axis"),
            None => t.parse::<isize>().expect("an integer"),
        })
        .collect()
}

fn starts_with_digit(t: &str, prefix: &str) -> Option<String> {
    let rest = t.strip_prefix(prefix)?;
    rest.starts_with(|c: char| c.is_ascii_digit())
        .then(|| rest.to_string())
}

fn parse(name: &str) -> Case {
    let mut tokens = name.split('_');
    let op = tokens.next().expect("an op").to_string();
    let mut c = Case {
        key: if op.ends_with("freq") {
            None
        } else {
            Some(tokens.next().expect("an input key").to_string())
        },
        op,
        ..Default::default()
    };
    for t in tokens {
        match t {
            "backward" => c.norm = Norm::Backward,
            "ortho" => c.norm = Norm::Ortho,
            "forward" => c.norm = Norm::Forward,
            "orthogF" => c.orthogonalize = Some(false),
            "orthogT" => c.orthogonalize = Some(true),
            "type1" => c.kind = DctType::Type1,
            "type2" => c.kind = DctType::Type2,
            "type3" => c.kind = DctType::Type3,
            "type4" => c.kind = DctType::Type4,
            _ => {
                if let Some(v) = t.strip_prefix("ax") {
                    c.axes = Some(ints(v));
                } else if let Some(v) = starts_with_digit(t, "s") {
                    c.s = Some(ints(&v).into_iter().map(|k| k as usize).collect());
                } else if let Some(v) = starts_with_digit(t, "n") {
                    c.n = Some(v.parse().expect("n"));
                } else if let Some(v) = starts_with_digit(t, "d") {
                    c.d = Some(v.parse().expect("d"));
                } else {
                    panic!("{name}: unknown token {t:?}");
                }
            }
        }
    }
    c
}

impl Case {
    fn opts(&self) -> FftOptions {
        FftOptions {
            n: self.n,
            norm: self.norm,
            ..Default::default()
        }
    }
    fn nd(&self) -> FftnOptions {
        FftnOptions {
            s: self.s.clone(),
            axes: self.axes.clone(),
            norm: self.norm,
            plan: None,
        }
    }
    fn r2r(&self) -> DctOptions {
        DctOptions {
            kind: self.kind,
            n: self.n,
            norm: self.norm,
            orthogonalize: self.orthogonalize,
            ..Default::default()
        }
    }
    fn r2rn(&self) -> DctnOptions {
        DctnOptions {
            kind: self.kind,
            s: self.s.clone(),
            axes: self.axes.clone(),
            norm: self.norm,
            orthogonalize: self.orthogonalize,
        }
    }
}

/// `$f(a, $o)` for an input of any of the listed variants, as a `DynArray`.
macro_rules! call {
    ($x:expr, $f:ident, $o:expr, [$($v:ident),+]) => {
        match $x {
            $(DynArray::$v(a) => $f(a, $o).map(DynArray::from).map_err(|e| e.to_string()),)+
            other => Err(format!("no test dispatch for {} input", other.dtype())),
        }
    };
}

/// cusci's result for `c` (`x` is its input, `None` for the frequency helpers).
fn run(c: &Case, x: Option<&DynArray>, dev: &Device) -> Result<DynArray, String> {
    if c.op.ends_with("freq") {
        let n = c.n.expect("fftfreq: n");
        let d = c.d.expect("fftfreq: d");
        let r = match c.op.as_str() {
            "fftfreq" => fftfreq::<f64>(n, d, dev),
            "rfftfreq" => rfftfreq::<f64>(n, d, dev),
            op => return Err(format!("unknown op {op}")),
        };
        return r.map(DynArray::from).map_err(|e| e.to_string());
    }
    let x = x.expect("an input");
    let axes = c.axes.as_deref();
    match c.op.as_str() {
        "fft" => call!(x, fft, &c.opts(), [F32, F64, C32, C64]),
        "ifft" => call!(x, ifft, &c.opts(), [F32, F64, C32, C64]),
        "rfft" => call!(x, rfft, &c.opts(), [F32, F64]),
        "irfft" => call!(x, irfft, &c.opts(), [C32, C64]),
        "hfft" => call!(x, hfft, &c.opts(), [C32, C64]),
        "ihfft" => call!(x, ihfft, &c.opts(), [F32, F64]),
        "fftn" => call!(x, fftn, &c.nd(), [F32, F64, C32, C64]),
        "ifftn" => call!(x, ifftn, &c.nd(), [F32, F64, C32, C64]),
        "rfftn" => call!(x, rfftn, &c.nd(), [F32, F64]),
        "irfftn" => call!(x, irfftn, &c.nd(), [C32, C64]),
        "dct" => call!(x, dct, &c.r2r(), [F32, F64]),
        "idct" => call!(x, idct, &c.r2r(), [F32, F64]),
        "dst" => call!(x, dst, &c.r2r(), [F32, F64]),
        "idst" => call!(x, idst, &c.r2r(), [F32, F64]),
        "dctn" => call!(x, dctn, &c.r2rn(), [F32, F64]),
        "idctn" => call!(x, idctn, &c.r2rn(), [F32, F64]),
        "dstn" => call!(x, dstn, &c.r2rn(), [F32, F64]),
        "idstn" => call!(x, idstn, &c.r2rn(), [F32, F64]),
        "fftshift" => call!(x, fftshift, axes, [F32, F64, C32, C64]),
        "ifftshift" => call!(x, ifftshift, axes, [F32, F64, C32, C64]),
        op => Err(format!("unknown op {op}")),
    }
}

/// The values of a floating-point array as complex numbers.
fn values(a: &DynArray) -> Vec<c64> {
    match a {
        DynArray::F32(a) => a
            .to_vec()
            .expect("to_vec")
            .into_iter()
            .map(|x| c64::new(x as f64, 0.0))
            .collect(),
        DynArray::F64(a) => a
            .to_vec()
            .expect("to_vec")
            .into_iter()
            .map(|x| c64::new(x, 0.0))
            .collect(),
        DynArray::C32(a) => a
            .to_vec()
            .expect("to_vec")
            .into_iter()
            .map(|x| c64::new(x.re as f64, x.im as f64))
            .collect(),
        DynArray::C64(a) => a.to_vec().expect("to_vec"),
        other => panic!("not a floating-point array: {}", other.dtype()),
    }
}

/// Compares cusci's result with SciPy's; `Err` says how they differ.
fn compare(got: &DynArray, want: &DynArray) -> Result<(), String> {
    if got.dtype() != want.dtype() {
        return Err(format!("dtype {} (SciPy: {})", got.dtype(), want.dtype()));
    }
    if got.shape() != want.shape() {
        return Err(format!(
            "shape {:?} (SciPy: {:?})",
            got.shape(),
            want.shape()
        ));
    }
    let tol = match want.dtype() {
        DType::F32 | DType::C32 => TOL_F32,
        _ => TOL_F64,
    };
    let (g, w) = (values(got), values(want));
    let scale = w.iter().map(|v| v.norm()).fold(0.0, f64::max);
    let (mut worst, mut at) = (0.0f64, 0);
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let e = (a - b).norm();
        // a NaN error counts as the worst
        if e.is_nan() || e > worst {
            worst = e;
            at = i;
        }
    }
    if !worst.is_nan() && worst <= tol * scale {
        Ok(())
    } else {
        Err(format!(
            "max |error| {worst:.3e} > {tol:.0e} * max|SciPy| ({scale:.3e}); relative {:.3e}; \
             at flat index {at}: cusci {} vs SciPy {}",
            worst / scale,
            g[at],
            w[at]
        ))
    }
}

#[test]
fn scipy_golden() {
    let dev = Device::cpu();
    let members: BTreeMap<String, DynArray> = load_npz(NPZ, &dev)
        .unwrap_or_else(|e| panic!("loading {NPZ}: {e}"))
        .into_iter()
        .collect();
    let mut failures = Vec::new();
    let mut seen = BTreeSet::new();
    let mut count = 0;
    for (name, want) in &members {
        let Some(case_name) = name.strip_suffix("_out") else {
            continue;
        };
        let c = parse(case_name);
        let x = c.key.as_ref().map(|k| {
            members
                .get(&format!("in_{k}"))
                .unwrap_or_else(|| panic!("{case_name}: no input in_{k}"))
        });
        let r = run(&c, x, &dev).and_then(|got| compare(&got, want));
        if let Err(e) = r {
            failures.push(format!("{case_name}: {e}"));
        }
        seen.insert(c.op);
        count += 1;
    }
    let expected = [
        "fft",
        "ifft",
        "rfft",
        "irfft",
        "hfft",
        "ihfft",
        "fftn",
        "ifftn",
        "rfftn",
        "irfftn",
        "dct",
        "idct",
        "dst",
        "idst",
        "dctn",
        "idctn",
        "dstn",
        "idstn",
        "fftfreq",
        "rfftfreq",
        "fftshift",
        "ifftshift",
    ];
    for op in expected {
        assert!(seen.contains(op), "{NPZ} has no case for {op}");
    }
    assert!(count > 300, "only {count} cases in {NPZ}");
    assert!(
        failures.is_empty(),
        "{} of {count} SciPy golden cases disagree:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

#[test]
fn names_parse() {
    let c = parse("irfftn_h3d_s5x3_ax2x0_forward");
    assert_eq!(c.op, "irfftn");
    assert_eq!(c.key.as_deref(), Some("h3d"));
    assert_eq!(c.s, Some(vec![5, 3]));
    assert_eq!(c.axes, Some(vec![2, 0]));
    assert_eq!(c.norm, Norm::Forward);
    let c = parse("dct_d7_type4_ortho_orthogF");
    assert_eq!(
        (c.kind, c.norm, c.orthogonalize),
        (DctType::Type4, Norm::Ortho, Some(false))
    );
    let c = parse("fftshift_r3s_axm1");
    assert_eq!(c.axes, Some(vec![-1]));
    let c = parse("rfftfreq_n7_d0.25");
    assert_eq!((c.key, c.n, c.d), (None, Some(7), Some(0.25)));
}
