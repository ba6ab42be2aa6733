//! The host side of the IIR filters: the normalised forms ([`Iir`]) built from coefficients, one
//! step of the recurrence (the CPU reference's and the kernels' arithmetic), the zero-input state
//! map, and the steady-state initial states of `lfilter_zi`.

use crate::procutil::{host, SignalScalar};
use cusci_core::error::make;
use cusci_core::{Array, Element, Result};

/// A normalised IIR filter (a0 = 1).
#[derive(Debug, Clone)]
pub(crate) enum Iir<T> {
    /// Transposed direct form II: `c = [b_0..b_ns, a_0..a_ns]`, `ns` states.
    Ba { c: Vec<T>, ns: usize },
    /// Second-order sections: `c = [b0 b1 b2 a1 a2]` per section.
    Sos { c: Vec<T>, nsec: usize },
}

impl<T: SignalScalar> Iir<T> {
    pub(crate) fn states(&self) -> usize {
        match self {
            Iir::Ba { ns, .. } => *ns,
            Iir::Sos { nsec, .. } => 2 * nsec,
        }
    }

    /// One sample through the filter; the same operations, in the same order, as `iir.cu`.
    #[inline(always)]
    pub(crate) fn step(&self, z: &mut [T], mut v: T) -> T {
        match self {
            Iir::Ba { c, ns } => {
                let ns = *ns;
                let y = c[0] * v + z[0];
                for k in 0..ns - 1 {
                    z[k] = c[k + 1] * v - c[ns + 2 + k] * y + z[k + 1];
                }
                z[ns - 1] = c[ns] * v - c[2 * ns + 1] * y;
                y
            }
            Iir::Sos { c, nsec } => {
                for s in 0..*nsec {
                    let q = &c[5 * s..5 * s + 5];
                    let y = q[0] * v + z[2 * s];
                    z[2 * s] = q[1] * v - q[3] * y + z[2 * s + 1];
                    z[2 * s + 1] = q[2] * v - q[4] * y;
                    v = y;
                }
                v
            }
        }
    }

    /// The zero-input state map over `len` samples, `ns x ns` row-major (column k: the state
    /// reached from the unit state e_k).
    pub(super) fn zero_input_map(&self, len: usize) -> Vec<T> {
        let ns = self.states();
        let mut m = vec![T::zero(); ns * ns];
        let mut z = vec![T::zero(); ns];
        for k in 0..ns {
            z.iter_mut().for_each(|v| *v = T::zero());
            z[k] = T::one();
            for _ in 0..len {
                self.step(&mut z, T::zero());
            }
            for r in 0..ns {
                m[r * ns + k] = z[r];
            }
        }
        m
    }
}

/// Builds the lfilter form from host coefficients (validated).
pub(crate) fn ba_filter<T: SignalScalar>(op: &str, b: &[T], a: &[T]) -> Result<(Iir<T>, usize)> {
    if b.is_empty() || a.is_empty() {
        return Err(make::arg(op, "b and a must have at least one coefficient"));
    }
    if b.iter().chain(a).any(|v| !v.is_finite_val()) {
        return Err(make::arg(
            op,
            "the filter coefficients must be finite (NaN or inf found)",
        ));
    }
    let a0 = a[0];
    if a0 == T::zero() {
        return Err(make::arg(
            op,
            "the leading denominator coefficient a[0] is 0",
        ));
    }
    let nuser = a.len().max(b.len()) - 1;
    let ns = nuser.max(1);
    let mut c = vec![T::zero(); 2 * ns + 2];
    for (k, &v) in b.iter().enumerate() {
        c[k] = v / a0;
    }
    for (k, &v) in a.iter().enumerate() {
        c[ns + 1 + k] = v / a0;
    }
    Ok((Iir::Ba { c, ns }, nuser))
}

/// Builds the sos form from a host (n_sections, 6) table (validated).
pub(super) fn sos_filter<T: SignalScalar>(op: &str, sos: &Array<T>) -> Result<Iir<T>> {
    if sos.ndim() != 2 || sos.shape()[1] != 6 {
        return Err(make::shape(
            op,
            format!("sos must have shape (n_sections, 6), got {:?}", sos.shape()),
        ));
    }
    let nsec = sos.shape()[0];
    if nsec == 0 {
        return Err(make::arg(op, "sos must have at least one section"));
    }
    let v = host(sos)?;
    if v.iter().any(|v| !v.is_finite_val()) {
        return Err(make::arg(
            op,
            "the filter coefficients must be finite (NaN or inf found)",
        ));
    }
    let mut c = Vec::with_capacity(5 * nsec);
    for s in 0..nsec {
        let r = &v[6 * s..6 * s + 6];
        if r[3] != T::one() {
            return Err(make::arg(
                op,
                format!("sos[{s}, 3] (the section's leading denominator coefficient) must be 1"),
            ));
        }
        c.extend_from_slice(&[r[0], r[1], r[2], r[4], r[5]]);
    }
    Ok(Iir::Sos { c, nsec })
}

/// Solves the small dense system `m x = r` (n x n, row-major) by Gaussian elimination with
/// partial pivoting. `None` when singular.
fn solve_small<T: SignalScalar>(mut m: Vec<T>, mut r: Vec<T>, n: usize) -> Option<Vec<T>> {
    for col in 0..n {
        let piv = (col..n).max_by(|&i, &j| {
            m[i * n + col]
                .abs()
                .to_f64_lossy()
                .total_cmp(&m[j * n + col].abs().to_f64_lossy())
        })?;
        if m[piv * n + col] == T::zero() {
            return None;
        }
        if piv != col {
            for k in 0..n {
                m.swap(piv * n + k, col * n + k);
            }
            r.swap(piv, col);
        }
        let p = m[col * n + col];
        for i in col + 1..n {
            let f = m[i * n + col] / p;
            if f == T::zero() {
                continue;
            }
            for k in col..n {
                let v = m[col * n + k];
                m[i * n + k] -= f * v;
            }
            let rv = r[col];
            r[i] -= f * rv;
        }
    }
    let mut x = vec![T::zero(); n];
    for i in (0..n).rev() {
        let mut s = r[i];
        for k in i + 1..n {
            s -= m[i * n + k] * x[k];
        }
        x[i] = s / m[i * n + i];
    }
    Some(x)
}

trait ToF64Lossy {
    fn to_f64_lossy(self) -> f64;
}
impl<R: Element> ToF64Lossy for R {
    fn to_f64_lossy(self) -> f64 {
        self.to_c64().re
    }
}

/// `lfilter_zi` on host values: the steady-state initial states for a unit step input.
pub(crate) fn lfilter_zi_host<T: SignalScalar>(op: &str, b: &[T], a: &[T]) -> Result<Vec<T>> {
    if b.is_empty() || a.is_empty() {
        return Err(make::arg(op, "b and a must have at least one coefficient"));
    }
    if b.iter().chain(a).any(|v| !v.is_finite_val()) {
        return Err(make::arg(
            op,
            "the filter coefficients must be finite (NaN or inf found)",
        ));
    }
    // SciPy strips leading zeros of a, then requires a[0] != 0
    let first = a.iter().position(|&v| v != T::zero());
    let a = match first {
        Some(i) => &a[i..],
        None => {
            return Err(make::arg(
                op,
                "there must be at least one nonzero a coefficient",
            ))
        }
    };
    let n = a.len().max(b.len());
    let a0 = a[0];
    let mut aa = vec![T::zero(); n];
    let mut bb = vec![T::zero(); n];
    for (k, &v) in a.iter().enumerate() {
        aa[k] = v / a0;
    }
    for (k, &v) in b.iter().enumerate() {
        bb[k] = v / a0;
    }
    let m = n - 1;
    if m == 0 {
        return Ok(Vec::new());
    }
    // I - companion(a).T: column 0 holds a[1:], the superdiagonal -1, plus the identity
    let mut mat = vec![T::zero(); m * m];
    for i in 0..m {
        mat[i * m] = aa[i + 1];
        if i + 1 < m {
            mat[i * m + i + 1] -= T::one();
        }
        mat[i * m + i] += T::one();
    }
    let rhs: Vec<T> = (0..m).map(|i| bb[i + 1] - aa[i + 1] * bb[0]).collect();
    solve_small(mat, rhs, m).ok_or_else(|| cusci_core::Error::Singular {
        op: op.into(),
        index: 0,
    })
}
