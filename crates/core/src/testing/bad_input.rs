//! The harness of the bad-input tables (issue 33) that every domain crate's `tests/bad_input.rs`
//! fills: a [`Table`] of named cases, each a closure of the device returning a `Result<V>` and the
//! outcome it must have (a typed error of one [`Kind`], or SciPy's value where SciPy accepts the
//! input). [`run_in_child`] runs the table in a child process of the test executable with a time
//! limit, so that an abort or a hang fails that one test instead of ending the executable; each
//! case also runs under `catch_unwind`, so that a panic names its case and the others still run.
//!
//! A test file uses it as:
//!
//! ```text
//! #[test]
//! fn bad_input_table() { bad_input::run_in_child("bad_input::bad_input_child", 600); }
//! #[test]
//! fn bad_input_child() { bad_input::child("fft", 80, table); }
//! ```

use crate::array::Array;
use crate::device::Device;
use crate::dtype::Element;
use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The environment variable that marks the child process.
pub const CHILD_ENV: &str = "CUSCI_BAD_INPUT_CHILD";

/// A value a case returns: shape and elements (floats compared with NaN equal to NaN and a
/// relative tolerance, see [`Table::close`]), or one count.
#[derive(Debug, Clone)]
pub enum V {
    /// Real values (complex inputs pass their real parts through [`fv`], or both through [`cv`]).
    F(Vec<usize>, Vec<f64>),
    /// Integers.
    I(Vec<usize>, Vec<i64>),
    /// Booleans.
    B(Vec<usize>, Vec<bool>),
    /// One count (a length, a number of items).
    N(u64),
}

impl V {
    fn close(&self, o: &V, rtol: f64) -> bool {
        match (self, o) {
            (V::F(s, a), V::F(t, b)) => {
                s == t
                    && a.len() == b.len()
                    && a.iter().zip(b).all(|(&x, &y)| {
                        (x.is_nan() && y.is_nan())
                            || x == y
                            || (x - y).abs() <= rtol * y.abs().max(1.0)
                    })
            }
            (V::I(s, a), V::I(t, b)) => s == t && a == b,
            (V::B(s, a), V::B(t, b)) => s == t && a == b,
            (V::N(a), V::N(b)) => a == b,
            _ => false,
        }
    }
}

/// The error variants a case can expect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// `InvalidArgument`.
    Arg,
    /// `ShapeMismatch`.
    Shape,
    /// `OutOfMemory`.
    Oom,
    /// `UnsupportedDType`.
    DType,
    /// `DeviceMismatch`.
    DevMismatch,
    /// `Singular`.
    Singular,
    /// `NotPositiveDefinite`.
    NotPd,
    /// `NoConvergence`.
    NoConv,
    /// `NotImplemented`.
    NotImpl,
    /// `NegativeCycle`.
    NegCycle,
    /// `Io`.
    Io,
}

/// The [`Kind`] of an error (`None` for the variants no case expects: CUDA and compile failures).
pub fn kind(e: &Error) -> Option<Kind> {
    Some(match e {
        Error::InvalidArgument { .. } => Kind::Arg,
        Error::ShapeMismatch { .. } => Kind::Shape,
        Error::OutOfMemory { .. } => Kind::Oom,
        Error::UnsupportedDType { .. } => Kind::DType,
        Error::DeviceMismatch { .. } => Kind::DevMismatch,
        Error::Singular { .. } => Kind::Singular,
        Error::NotPositiveDefinite { .. } => Kind::NotPd,
        Error::NoConvergence { .. } => Kind::NoConv,
        Error::NotImplemented { .. } => Kind::NotImpl,
        Error::NegativeCycle { .. } => Kind::NegCycle,
        Error::Io { .. } => Kind::Io,
        _ => return None,
    })
}

enum Want {
    Err(Kind),
    Val(V, f64),
}

type Body = Box<dyn Fn(&Device) -> Result<V>>;

struct Case {
    name: String,
    want: Want,
    run: Body,
}

/// A table of cases for one device.
#[derive(Default)]
pub struct Table(Vec<Case>);

impl Table {
    /// An empty table.
    pub fn new() -> Table {
        Table(Vec::new())
    }
    /// A case that must fail with an error of kind `k`.
    pub fn err(&mut self, name: &str, k: Kind, f: impl Fn(&Device) -> Result<V> + 'static) {
        self.0.push(Case {
            name: name.into(),
            want: Want::Err(k),
            run: Box::new(f),
        });
    }
    /// A case that must return `v` (floats to 1e-12 relative).
    pub fn val(&mut self, name: &str, v: V, f: impl Fn(&Device) -> Result<V> + 'static) {
        self.close(name, v, 1e-12, f);
    }
    /// A case that must return `v`, floats to `rtol` relative (absolute below 1).
    pub fn close(
        &mut self,
        name: &str,
        v: V,
        rtol: f64,
        f: impl Fn(&Device) -> Result<V> + 'static,
    ) {
        self.0.push(Case {
            name: name.into(),
            want: Want::Val(v, rtol),
            run: Box::new(f),
        });
    }
    /// The number of cases.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Whether the table has no case.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

// ---------- value helpers ----------

/// The real parts of `a` with its shape.
pub fn fv<T: Element>(a: Array<T>) -> Result<V> {
    let v = a.to_vec()?;
    Ok(V::F(
        a.shape().to_vec(),
        v.into_iter().map(|x| x.to_c64().re).collect(),
    ))
}
/// Real and imaginary parts of `a`, interleaved, with its shape and a last axis of 2.
pub fn cv<T: Element>(a: Array<T>) -> Result<V> {
    let v = a.to_vec()?;
    let mut s = a.shape().to_vec();
    s.push(2);
    Ok(V::F(
        s,
        v.into_iter()
            .flat_map(|x| {
                let c = x.to_c64();
                [c.re, c.im]
            })
            .collect(),
    ))
}
/// Integer elements of `a` with its shape.
pub fn iv<T: Element>(a: Array<T>) -> Result<V> {
    let v = a.to_vec()?;
    Ok(V::I(
        a.shape().to_vec(),
        v.into_iter().map(|x| x.to_c64().re as i64).collect(),
    ))
}
/// Boolean elements of `a` with its shape.
pub fn bv(a: Array<bool>) -> Result<V> {
    Ok(V::B(a.shape().to_vec(), a.to_vec()?))
}
/// The shape of `a` alone.
pub fn shape_of<T: Element>(a: &Array<T>) -> V {
    V::I(a.shape().to_vec(), vec![])
}
/// A real value of `shape`.
pub fn f(shape: &[usize], v: &[f64]) -> V {
    V::F(shape.to_vec(), v.to_vec())
}
/// A shape alone (compare with [`shape_of`]).
pub fn shp(shape: &[usize]) -> V {
    V::I(shape.to_vec(), vec![])
}
/// A 0-d real value.
pub fn s1(x: f64) -> V {
    f(&[], &[x])
}
/// A host vector as a value.
pub fn hv(v: &[f64]) -> V {
    f(&[v.len()], v)
}

// ---------- running ----------

/// What one device's run of a table gave.
pub struct Summary {
    /// Cases that returned their typed error, per kind.
    pub errors: BTreeMap<Kind, usize>,
    /// Cases that returned their value.
    pub values: usize,
    /// Each failing case: the device, the name, what was wanted and what came.
    pub failures: Vec<String>,
}

/// Runs `table` on `dev`, each case under `catch_unwind` (a panic is a failure naming the case).
pub fn run_table(dev: &Device, table: Table) -> Summary {
    let mut s = Summary {
        errors: BTreeMap::new(),
        values: 0,
        failures: Vec::new(),
    };
    let mut names = std::collections::HashSet::new();
    for c in &table.0 {
        if !names.insert(c.name.clone()) {
            s.failures.push(format!("duplicate case name {}", c.name));
        }
        if std::env::var_os("CUSCI_BAD_INPUT_TRACE").is_some() {
            // names each case before it runs: the last one printed is the one that aborted
            eprintln!("bad-input case [{dev}] {}", c.name);
        }
        let t0 = Instant::now();
        let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (c.run)(dev)));
        let dt = t0.elapsed();
        let bad = match (&c.want, &got) {
            (_, Err(p)) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Some(format!("PANIC: {msg}"))
            }
            (Want::Err(k), Ok(Err(e))) if kind(e) == Some(*k) => {
                *s.errors.entry(*k).or_default() += 1;
                None
            }
            (Want::Val(v, rtol), Ok(Ok(g))) if g.close(v, *rtol) => {
                s.values += 1;
                None
            }
            (Want::Err(k), Ok(r)) => Some(format!("want {k:?}, got {r:?}")),
            (Want::Val(v, _), Ok(r)) => Some(format!("want {v:?}, got {r:?}")),
        };
        if let Some(b) = bad {
            s.failures.push(format!("[{dev}] {}: {b}", c.name));
        }
        if dt > Duration::from_secs(20) {
            s.failures.push(format!("[{dev}] {}: took {dt:?}", c.name));
        }
    }
    s
}

/// The parent half: runs the test `child_test` (its full path, `"bad_input::bad_input_child"`) of
/// the current test executable in a child process with [`CHILD_ENV`] set, kills it after
/// `limit_s` seconds, and panics (fails the calling test) unless the child passed. An abort in
/// the child shows as a signal in the message, with the child's output.
pub fn run_in_child(child_test: &str, limit_s: u64) {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => panic!("bad-input: no test executable path: {e}"),
    };
    let mut child = match std::process::Command::new(exe)
        .args(["--exact", child_test, "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => panic!("bad-input: cannot start the child: {e}"),
    };
    // read the pipes on threads, so that a child writing much cannot block on a full pipe
    let mut so_pipe = child.stdout.take();
    let mut se_pipe = child.stderr.take();
    let so_t = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(p) = so_pipe.as_mut() {
            let _ = std::io::Read::read_to_string(p, &mut s);
        }
        s
    });
    let se_t = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(p) = se_pipe.as_mut() {
            let _ = std::io::Read::read_to_string(p, &mut s);
        }
        s
    });
    let deadline = Instant::now() + Duration::from_secs(limit_s);
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) => {}
            Err(e) => panic!("bad-input: waiting for the child: {e}"),
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let so = so_t.join().unwrap_or_default();
    let se = se_t.join().unwrap_or_default();
    eprintln!("{se}");
    match status {
        None => panic!("the bad-input table hung (killed after {limit_s} s)\n{so}\n{se}"),
        Some(s) => assert!(
            s.success() && so.contains("1 passed"),
            "the bad-input child failed ({s}; a signal means an abort)\n{so}\n{se}"
        ),
    }
}

/// The child half: does nothing unless [`CHILD_ENV`] is set; otherwise builds `table` for every
/// device of [`super::devices`], runs it, prints a summary per device and class, and panics when
/// a case failed or a device's table has fewer than `min_cases` cases.
pub fn child(crate_name: &str, min_cases: usize, table: impl Fn(&Device) -> Table) {
    if std::env::var_os(CHILD_ENV).is_none() {
        return;
    }
    let mut all = Vec::new();
    for dev in super::devices() {
        let t = table(&dev);
        let n = t.len();
        let s = run_table(&dev, t);
        let nerr: usize = s.errors.values().sum();
        let classes: Vec<String> = s.errors.iter().map(|(k, v)| format!("{k:?} {v}")).collect();
        eprintln!(
            "bad-input summary for {crate_name} on {dev}: {n} cases: {nerr} typed errors ({}), {} values, {} failures",
            classes.join(", "),
            s.values,
            s.failures.len()
        );
        if n < min_cases {
            all.push(format!("[{dev}] only {n} cases (at least {min_cases})"));
        }
        all.extend(s.failures);
    }
    assert!(
        all.is_empty(),
        "{} failing cases:\n{}",
        all.len(),
        all.join("\n")
    );
}
