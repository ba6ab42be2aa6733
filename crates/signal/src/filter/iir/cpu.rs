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

/// Signals one task of [`cpu_filtfilt`] runs side by side, their recurrences interleaved
/// sample by sample (each is a chain of dependent multiply-adds).
const ROW_GROUP: usize = 4;

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

/// The pad method of `sosfiltfilt` on the host in one pass per group of [`ROW_GROUP`] signals:
/// each signal extended by `edge` samples at each end (`mode` 0 odd, 1 even, 2 constant, as
/// `filtfilt.rs`'s `pad`), filtered forward from `zi * ext[0]`, backward from `zi * y[-1]`, the
/// extension dropped, in one buffer per signal instead of whole-array intermediates (the
/// extension, the forward output and two reversed copies). Each signal's operations and their
/// order are those of the array path, so the same bits.
#[allow(clippy::too_many_arguments)]
pub(crate) fn cpu_filtfilt<T: SignalScalar>(
    iir: &Iir<T>,
    x: &[T],
    outer: usize,
    n: usize,
    inner: usize,
    zi: &[T],
    edge: usize,
    mode: i32,
) -> Vec<T> {
    let ns = iir.states();
    let mut y = vec![T::zero(); x.len()];
    let signals = outer * inner;
    if signals == 0 || n == 0 {
        return y;
    }
    let ne = n + 2 * edge;
    let yp = SendPtr(y.as_mut_ptr());
    let groups = signals.div_ceil(ROW_GROUP);
    (0..groups).into_par_iter().for_each(|g| {
        // the whole wrapper into the closure (not its raw pointer field, which is not Send)
        #[allow(clippy::redundant_locals)]
        let yp = yp;
        let s0 = g * ROW_GROUP;
        let s1 = (s0 + ROW_GROUP).min(signals);
        let w = s1 - s0;
        let mut buf = vec![T::zero(); w * ne];
        for (j, b) in buf.chunks_mut(ne).enumerate() {
            let (o, i) = ((s0 + j) / inner, (s0 + j) % inner);
            let at = |k: usize| x[o * n * inner + k * inner + i];
            for (t, slot) in b.iter_mut().enumerate() {
                let s = t as i64 - edge as i64;
                *slot = if s >= 0 && (s as usize) < n {
                    at(s as usize)
                } else {
                    let pe = if s < 0 { 0 } else { n - 1 };
                    let k = if s < 0 {
                        (-s) as usize
                    } else {
                        (2 * (n as i64 - 1) - s) as usize
                    };
                    match mode {
                        0 => at(pe) + at(pe) - at(k),
                        1 => at(k),
                        _ => at(pe),
                    }
                };
            }
        }
        let mut z = vec![T::zero(); w * ns];
        // forward from the steady state times the first sample
        for j in 0..w {
            let x0 = buf[j * ne];
            for k in 0..ns {
                z[j * ns + k] = zi[k] * x0;
            }
        }
        for t in 0..ne {
            for j in 0..w {
                let v = iir.step(&mut z[j * ns..(j + 1) * ns], buf[j * ne + t]);
                buf[j * ne + t] = v;
            }
        }
        // backward from the steady state times the forward pass's last output
        for j in 0..w {
            let yl = buf[j * ne + ne - 1];
            for k in 0..ns {
                z[j * ns + k] = zi[k] * yl;
            }
        }
        for t in (0..ne).rev() {
            for j in 0..w {
                let v = iir.step(&mut z[j * ns..(j + 1) * ns], buf[j * ne + t]);
                buf[j * ne + t] = v;
            }
        }
        for (j, b) in buf.chunks(ne).enumerate() {
            let (o, i) = ((s0 + j) / inner, (s0 + j) % inner);
            for (k, &v) in b[edge..edge + n].iter().enumerate() {
                // SAFETY: signal (o, i) belongs to this task only; the index is < x.len().
                unsafe { *yp.0.add(o * n * inner + k * inner + i) = v };
            }
        }
    });
    y
}
