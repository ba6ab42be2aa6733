//! Helpers for the tests of every cusci crate: the devices to test on, one test body run on each,
//! seeded random inputs, and [`assert_allclose`] with per-dtype tolerances and a useful failure
//! message.
//!
//! Without a GPU, the GPU half of a test is skipped and says so on standard error; with
//! `CUSCI_REQUIRE_GPU=1` a missing GPU fails the test instead.

pub mod bad_input;

use crate::array::Array;
use crate::device::Device;
use crate::dtype::{c64, DType, Element};
use crate::error::Result;

/// The CUDA device to test on, or `None` (with a message) when there is none. Panics when
/// `CUSCI_REQUIRE_GPU=1` and no GPU opens: that is the test failing, as asked.
pub fn gpu() -> Option<Device> {
    match Device::cuda(0) {
        Ok(d) => Some(d),
        Err(e) => {
            if std::env::var("CUSCI_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("CUSCI_REQUIRE_GPU=1 but no GPU is usable: {e}");
            }
            eprintln!("note: skipping the GPU half of this test: {e}");
            None
        }
    }
}

/// The CPU, then the GPU when one is usable.
pub fn devices() -> Vec<Device> {
    let mut v = vec![Device::Cpu];
    v.extend(gpu());
    v
}

/// Runs `body` on every device of [`devices()`], naming the device in a failure.
pub fn for_each_device(mut body: impl FnMut(&Device)) {
    for d in devices() {
        eprintln!("-- on {d}");
        body(&d);
    }
}

/// Default relative tolerance for results of `T` computed from `n` inputs: a few ulps scaled by
/// log2(n) (f32: 4e-6·(1+log2 n), f64: 1e-14·(1+log2 n); exact for integers and bool).
pub fn rtol_for<T: Element>(n: usize) -> f64 {
    let l = 1.0 + (n.max(1) as f64).log2();
    match T::DTYPE {
        DType::F32 | DType::C32 => 4e-6 * l,
        DType::F64 | DType::C64 => 1e-14 * l,
        _ => 0.0,
    }
}

/// Seeded standard-normal-ish values (a simple SplitMix64 + Box–Muller, for test inputs only).
pub fn randn_vec<T: Element>(n: usize, seed: u64) -> Vec<T> {
    let mut s = seed ^ 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut u = move || ((next() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    (0..n)
        .map(|_| {
            let (u1, u2) = (u(), u());
            let r = (-2.0 * u1.ln()).sqrt();
            let re = r * (2.0 * std::f64::consts::PI * u2).cos();
            let im = r * (2.0 * std::f64::consts::PI * u2).sin();
            match T::DTYPE {
                DType::I32 | DType::I64 => T::from_i64((re * 100.0) as i64),
                DType::U8 => T::from_i64(((re * 40.0) as i64).rem_euclid(256)),
                DType::Bool => T::from_i64((re > 0.0) as i64),
                _ => T::from_c64(c64::new(re, im)),
            }
        })
        .collect()
}

/// A seeded random array of `shape` on `dev` (see [`randn_vec`]).
pub fn randn<T: Element>(shape: &[usize], seed: u64, dev: &Device) -> Result<Array<T>> {
    let n = shape.iter().product();
    Array::from_vec(randn_vec(n, seed), shape, dev)
}

/// Where two arrays differ most.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Largest |actual − expected|.
    pub max_abs: f64,
    /// Largest |actual − expected| / |expected| over elements with expected ≠ 0.
    pub max_rel: f64,
    /// Index (C order) of the element that fails the tolerance worst, or of the largest error.
    pub worst: Option<usize>,
    /// Elements failing `|a − e| <= atol + rtol·|e|` (NaN matches NaN, ±Inf must match exactly).
    pub failures: usize,
}

/// Compares `actual` to `expected` element by element (complex values by modulus of the
/// difference) with NumPy's `allclose` rule.
pub fn compare<T: Element>(actual: &[T], expected: &[T], rtol: f64, atol: f64) -> Comparison {
    let mut c = Comparison {
        max_abs: 0.0,
        max_rel: 0.0,
        worst: None,
        failures: 0,
    };
    let mut worst_excess = f64::NEG_INFINITY;
    for (i, (&a, &e)) in actual.iter().zip(expected).enumerate() {
        let (a, e) = (a.to_c64(), e.to_c64());
        let a_nan = a.re.is_nan() || a.im.is_nan();
        let e_nan = e.re.is_nan() || e.im.is_nan();
        let (err, ok) = if a_nan || e_nan {
            (
                if a_nan == e_nan { 0.0 } else { f64::INFINITY },
                a_nan == e_nan,
            )
        } else if !(e.re.is_finite() && e.im.is_finite() && a.re.is_finite() && a.im.is_finite()) {
            let same = a == e;
            (if same { 0.0 } else { f64::INFINITY }, same)
        } else {
            let d = (a - e).norm();
            (d, d <= atol + rtol * e.norm())
        };
        c.max_abs = c.max_abs.max(err);
        if e.norm() > 0.0 {
            c.max_rel = c.max_rel.max(err / e.norm());
        }
        let excess = err - (atol + rtol * e.norm());
        if !ok {
            c.failures += 1;
        }
        if excess > worst_excess {
            worst_excess = excess;
            c.worst = Some(i);
        }
    }
    c
}

fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        let n = shape[d].max(1);
        idx[d] = i % n;
        i /= n;
    }
    idx
}

/// Asserts that `actual` and `expected` have the same shape and agree within
/// `|a − e| <= atol + rtol·|e|` everywhere (NaN matches NaN; ±Inf must match). On failure, panics
/// with the shape, the count of failing elements, the worst element's index, both values, the
/// absolute and relative errors, and `context` (put the seed and the device there).
pub fn assert_allclose<T: Element>(
    actual: &Array<T>,
    expected: &Array<T>,
    rtol: f64,
    atol: f64,
    context: &str,
) {
    assert_eq!(
        actual.shape(),
        expected.shape(),
        "{context}: shapes differ (actual {:?}, expected {:?})",
        actual.shape(),
        expected.shape()
    );
    let a = actual
        .to_vec()
        .unwrap_or_else(|e| panic!("{context}: reading actual: {e}"));
    let e = expected
        .to_vec()
        .unwrap_or_else(|e| panic!("{context}: reading expected: {e}"));
    assert_slices_close(&a, &e, actual.shape(), rtol, atol, context);
}

/// [`assert_allclose`] on host slices laid out with `shape`.
pub fn assert_slices_close<T: Element>(
    a: &[T],
    e: &[T],
    shape: &[usize],
    rtol: f64,
    atol: f64,
    context: &str,
) {
    assert_eq!(a.len(), e.len(), "{context}: lengths differ");
    let c = compare(a, e, rtol, atol);
    if c.failures > 0 {
        let w = c.worst.unwrap_or(0);
        let (av, ev) = (a[w].to_c64(), e[w].to_c64());
        panic!(
            "{context}: {} of {} elements differ (dtype {}, shape {shape:?}, rtol {rtol:e}, atol {atol:e})\n  \
             worst at index {w} {:?}: actual {:?}, expected {:?}, abs err {:e}, rel err {:e}\n  \
             max abs err {:e}, max rel err {:e}",
            c.failures,
            a.len(),
            T::DTYPE,
            unravel(w, shape),
            a[w],
            e[w],
            (av - ev).norm(),
            if ev.norm() > 0.0 { (av - ev).norm() / ev.norm() } else { f64::INFINITY },
            c.max_abs,
            c.max_rel
        );
    }
}

/// Compiles every sample specialisation of `modules` with NVRTC for `arch` (e.g. `compute_90`)
/// without a GPU; returns the failures as `key: error` lines, or `None` when NVRTC does not load
/// (the check is then skipped, unless `CUSCI_REQUIRE_GPU=1`, which panics).
pub fn compile_modules(
    modules: &[&crate::cuda::launch::KernelModule],
    arch: &str,
) -> Option<Vec<String>> {
    if crate::cuda::libs::probe("nvrtc").is_none() {
        if std::env::var("CUSCI_REQUIRE_GPU").as_deref() == Ok("1") {
            panic!("CUSCI_REQUIRE_GPU=1 but NVRTC does not load");
        }
        eprintln!("note: NVRTC not found: kernel compile checks skipped");
        return None;
    }
    let mut failed = Vec::new();
    for m in modules {
        match m.sample_sources() {
            Ok(srcs) => {
                assert!(!srcs.is_empty(), "module {} has no sample", m.name);
                for (key, src) in srcs {
                    if let Err(e) = crate::cuda::kernel::check_compiles(&key, &src, m.options, arch)
                    {
                        failed.push(format!("{key}: {e}"));
                    }
                }
            }
            Err(e) => failed.push(format!("{}: {e}", m.name)),
        }
    }
    Some(failed)
}
