//! Built-in GPU-against-CPU validation: run one computation on a CUDA device and on the CPU
//! reference, and report per output the largest absolute and relative error, the worst index and
//! each device's time.
//!
//! ```
//! use cusci_core::{validate::validate, Array, Device};
//! let r = validate("square", |dev: &Device| {
//!     let x = Array::<f64>::arange(0.0, 8.0, 1.0, dev)?;
//!     (&x * &x)
//! }).unwrap();
//! println!("{r}");
//! assert!(r.within(1e-12, 0.0)); // trivially true without a GPU: only the CPU ran
//! ```

use crate::array::Array;
use crate::device::Device;
use crate::dtype::{c64, Element};
use crate::error::Result;
use crate::testing::compare;
use std::fmt;
use std::time::Instant;

/// Something a validated computation returns: one or several arrays or host scalars.
pub trait Outputs {
    /// Each output as (name, values in C order), waiting for the device.
    fn collect(&self) -> Result<Vec<(String, Vec<c64>)>>;
}

impl<T: Element> Outputs for Array<T> {
    fn collect(&self) -> Result<Vec<(String, Vec<c64>)>> {
        Ok(vec![(
            "out".into(),
            self.to_vec()?.into_iter().map(Element::to_c64).collect(),
        )])
    }
}

macro_rules! scalar_outputs {
    ($($t:ty),*) => {$(
        impl Outputs for $t {
            fn collect(&self) -> Result<Vec<(String, Vec<c64>)>> {
                Ok(vec![("out".into(), vec![self.to_c64()])])
            }
        }
    )*};
}
scalar_outputs!(f32, f64, crate::dtype::c32, c64, i32, i64);

impl<A: Outputs, B: Outputs> Outputs for (A, B) {
    fn collect(&self) -> Result<Vec<(String, Vec<c64>)>> {
        let mut v = name("0", self.0.collect()?);
        v.extend(name("1", self.1.collect()?));
        Ok(v)
    }
}

impl<A: Outputs, B: Outputs, C: Outputs> Outputs for (A, B, C) {
    fn collect(&self) -> Result<Vec<(String, Vec<c64>)>> {
        let mut v = name("0", self.0.collect()?);
        v.extend(name("1", self.1.collect()?));
        v.extend(name("2", self.2.collect()?));
        Ok(v)
    }
}

impl<T: Outputs> Outputs for Vec<(String, T)> {
    fn collect(&self) -> Result<Vec<(String, Vec<c64>)>> {
        let mut v = Vec::new();
        for (n, o) in self {
            v.extend(name(n, o.collect()?));
        }
        Ok(v)
    }
}

fn name(prefix: &str, v: Vec<(String, Vec<c64>)>) -> Vec<(String, Vec<c64>)> {
    let single = v.len() == 1;
    v.into_iter()
        .map(|(n, x)| {
            (
                if single {
                    prefix.to_string()
                } else {
                    format!("{prefix}.{n}")
                },
                x,
            )
        })
        .collect()
}

/// Agreement of one output between the devices.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputReport {
    pub name: String,
    pub len: usize,
    /// Largest |gpu − cpu|.
    pub max_abs_err: f64,
    /// Largest |gpu − cpu| / |cpu| (elements with cpu ≠ 0).
    pub max_rel_err: f64,
    /// Largest |gpu − cpu| where the CPU value is 0, NaN or infinite (the elements `max_rel_err`
    /// cannot speak for); NaN against NaN and equal infinities count as 0, other mismatches as ∞.
    pub max_err_where_rel_undefined: f64,
    /// Index of the largest absolute error, with both values there.
    pub worst_index: Option<usize>,
    pub gpu_value: Option<c64>,
    pub cpu_value: Option<c64>,
}

/// The result of [`validate`].
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub name: String,
    /// The GPU that ran, or `None` when none is usable (only the CPU ran).
    pub gpu: Option<String>,
    pub cpu_ms: f64,
    pub gpu_ms: Option<f64>,
    pub outputs: Vec<OutputReport>,
}

impl Report {
    /// True when every element of every output agrees within `|gpu − cpu| <= atol` or
    /// `|gpu − cpu| <= rtol·|cpu|` (a sufficient test from the recorded maxima: all errors under
    /// `atol`, or all relative errors under `rtol` and every element where the relative error is
    /// undefined (CPU value 0, NaN or ±∞) under `atol`). Outputs of different lengths never agree. Vacuously true when no GPU ran.
    pub fn within(&self, rtol: f64, atol: f64) -> bool {
        self.gpu.is_none()
            || self.outputs.iter().all(|o| {
                o.max_abs_err <= atol
                    || (o.max_rel_err <= rtol && o.max_err_where_rel_undefined <= atol)
            })
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.gpu, self.gpu_ms) {
            (Some(g), Some(t)) => writeln!(
                f,
                "{}: {g} {t:.3} ms, cpu {:.3} ms ({:.1}x)",
                self.name,
                self.cpu_ms,
                self.cpu_ms / t.max(1e-9)
            )?,
            _ => writeln!(
                f,
                "{}: cpu {:.3} ms (no GPU: nothing to compare)",
                self.name, self.cpu_ms
            )?,
        }
        for o in &self.outputs {
            if self.gpu.is_some() {
                writeln!(
                    f,
                    "  {:<12} n={:<10} max abs err {:.3e}  max rel err {:.3e}  worst at {:?} (gpu {:?}, cpu {:?})",
                    o.name, o.len, o.max_abs_err, o.max_rel_err, o.worst_index, o.gpu_value, o.cpu_value
                )?;
            }
        }
        Ok(())
    }
}

/// Runs `f` on the CPU and, when one is usable, on the first CUDA device (or the one
/// `CUSCI_DEVICE` names), times both (wall clock, including waiting for the device), and compares
/// their outputs. A computation that fails on either device returns that error.
pub fn validate<O: Outputs>(name: &str, f: impl Fn(&Device) -> Result<O>) -> Result<Report> {
    let gpu = match Device::auto() {
        Ok(Device::Cuda(d)) => Some(Device::Cuda(d)),
        _ => Device::cuda(0).ok(),
    };
    validate_on(name, gpu.as_ref(), f)
}

/// [`validate`] with the GPU chosen by the caller (`None`: CPU only).
pub fn validate_on<O: Outputs>(
    name: &str,
    gpu: Option<&Device>,
    f: impl Fn(&Device) -> Result<O>,
) -> Result<Report> {
    let t = Instant::now();
    let cpu_out = f(&Device::Cpu)?.collect()?;
    let cpu_ms = t.elapsed().as_secs_f64() * 1e3;
    let Some(g) = gpu else {
        return Ok(Report {
            name: name.into(),
            gpu: None,
            cpu_ms,
            gpu_ms: None,
            outputs: cpu_out
                .into_iter()
                .map(|(n, v)| OutputReport {
                    name: n,
                    len: v.len(),
                    max_abs_err: 0.0,
                    max_rel_err: 0.0,
                    max_err_where_rel_undefined: 0.0,
                    worst_index: None,
                    gpu_value: None,
                    cpu_value: None,
                })
                .collect(),
        });
    };
    g.synchronize()?;
    let t = Instant::now();
    let out = f(g)?;
    g.synchronize()?;
    let gpu_ms = t.elapsed().as_secs_f64() * 1e3;
    let gpu_out = out.collect()?;
    let outputs = gpu_out
        .into_iter()
        .zip(cpu_out)
        .map(|((n, gv), (_, cv))| {
            if gv.len() != cv.len() {
                return OutputReport {
                    name: n,
                    len: gv.len(),
                    max_abs_err: f64::INFINITY,
                    max_rel_err: f64::INFINITY,
                    max_err_where_rel_undefined: f64::INFINITY,
                    worst_index: None,
                    gpu_value: None,
                    cpu_value: None,
                };
            }
            // with zero tolerances, compare's worst element is the largest absolute error
            let c = compare(&gv, &cv, 0.0, 0.0);
            let at_zero = gv
                .iter()
                .zip(&cv)
                .filter(|(_, c)| !(c.norm() > 0.0 && c.norm().is_finite()))
                .map(|(g, c)| compare(&[*g], &[*c], 0.0, 0.0).max_abs)
                .fold(0.0, f64::max);
            OutputReport {
                name: n,
                len: gv.len(),
                max_abs_err: c.max_abs,
                max_rel_err: c.max_rel,
                max_err_where_rel_undefined: at_zero,
                worst_index: c.worst,
                gpu_value: c.worst.map(|i| gv[i]),
                cpu_value: c.worst.map(|i| cv[i]),
            }
        })
        .collect();
    Ok(Report {
        name: name.into(),
        gpu: Some(g.to_string()),
        cpu_ms,
        gpu_ms: Some(gpu_ms),
        outputs,
    })
}
