//! The CPU reference of the IIR filters: the recurrence run serially per signal, rayon over
//! signals.

use super::form::Iir;
use crate::procutil::SignalScalar;
use rayon::prelude::*;

/// A raw pointer that rayon tasks writing disjoint elements may share.
#[derive(Clone, Copy)]
struct SendPtr<T>(*mut T);
// SAFETY: only used for writes to disjoint indices from different tasks.
unsafe impl<T> Send for SendPtr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for SendPtr<T> {}

/// Signals handled by one CPU task when the filtered axis is not the last.
const INNER_CHUNK: usize = 64;

fn zidx<T: SignalScalar>(
    iir: &Iir<T>,
    k: usize,
    o: usize,
    i: usize,
    outer: usize,
    inner: usize,
) -> usize {
    match iir {
        Iir::Ba { ns, .. } => o * ns * inner + k * inner + i,
        Iir::Sos { .. } => (k / 2) * outer * 2 * inner + o * 2 * inner + (k % 2) * inner + i,
    }
}

/// The CPU reference: `(y, zf)` with `zf` in the user layout (empty when `nuser == 0`).
pub(crate) fn cpu_apply<T: SignalScalar>(
    iir: &Iir<T>,
    x: &[T],
    outer: usize,
    n: usize,
    inner: usize,
    zi: Option<&[T]>,
    nuser: usize,
) -> (Vec<T>, Vec<T>) {
    let ns = iir.states();
    let mut y = vec![T::zero(); x.len()];
    let zlen = if nuser > 0 { outer * inner * ns } else { 0 };
    let mut zf = vec![T::zero(); zlen];
    if outer * inner == 0 {
        return (y, zf);
    }
    let yp = SendPtr(y.as_mut_ptr());
    let zp = SendPtr(zf.as_mut_ptr());
    let ic = INNER_CHUNK.min(inner);
    let tasks = outer * inner.div_ceil(ic);
    let per_inner = inner.div_ceil(ic);
    (0..tasks).into_par_iter().for_each(|task| {
        let (yp, zp) = (yp, zp);
        let o = task / per_inner;
        let i0 = (task % per_inner) * ic;
        let i1 = (i0 + ic).min(inner);
        let w = i1 - i0;
        let mut z = vec![T::zero(); w * ns];
        if let Some(zi) = zi {
            for (j, i) in (i0..i1).enumerate() {
                for k in 0..ns {
                    z[j * ns + k] = zi[zidx(iir, k, o, i, outer, inner)];
                }
            }
        }
        let base = o * n * inner;
        for t in 0..n {
            let row = base + t * inner;
            for (j, i) in (i0..i1).enumerate() {
                let v = iir.step(&mut z[j * ns..(j + 1) * ns], x[row + i]);
                // SAFETY: element (o, t, i) belongs to this task only; y has x.len() elements.
                unsafe { *yp.0.add(row + i) = v };
            }
        }
        if nuser > 0 {
            for (j, i) in (i0..i1).enumerate() {
                for k in 0..ns {
                    // SAFETY: state (k, o, i) belongs to this task only; index < zlen.
                    unsafe { *zp.0.add(zidx(iir, k, o, i, outer, inner)) = z[j * ns + k] };
                }
            }
        }
    });
    (y, zf)
}
