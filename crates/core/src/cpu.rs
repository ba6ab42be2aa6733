//! The CPU reference's element-wise machinery: strided gathers and maps with rayon.
//!
//! Work is split into fixed-size chunks of the output (independent of the thread count), so
//! results never depend on how many threads run.

use crate::array::layout::{c_strides, coalesce};
use crate::array::{Array, Storage};
use crate::device::Device;
use crate::dtype::Element;
use crate::error::Result;
use crate::host::try_vec_zeroed;
use rayon::prelude::*;

/// Elements per parallel task.
pub(crate) const CHUNK: usize = 1 << 15;

/// Host storage of a CPU array (panics only on internal misuse: callers dispatch on the device).
pub(crate) fn host<T: Element>(a: &Array<T>) -> &[T] {
    match &*a.storage {
        Storage::Cpu(v) => v,
        Storage::Cuda(_) => unreachable!("host() called on a device array"),
    }
}

/// Calls `f(start, len, offsets)` for runs of the output in C order: `len` consecutive output
/// elements starting at linear index `start`, with each operand's element offset at the run's first
/// element (operands advance by `inner_strides[k]` per element).
struct Plan {
    dims: Vec<usize>,
    strides: Vec<Vec<isize>>,
    bases: Vec<isize>,
}

impl Plan {
    fn new(shape: &[usize], ops: &[(&[isize], usize)]) -> Plan {
        let st: Vec<Vec<isize>> = ops.iter().map(|(s, _)| s.to_vec()).collect();
        let mut with_out = st.clone();
        with_out.push(c_strides(shape));
        let (dims, mut strides) = coalesce(shape, &with_out);
        strides.pop();
        Plan {
            dims,
            strides,
            bases: ops.iter().map(|(_, o)| *o as isize).collect(),
        }
    }
    fn inner(&self) -> usize {
        *self.dims.last().unwrap_or(&1)
    }
    /// Offsets of each operand at output linear index `i`.
    fn offsets(&self, mut i: usize, out: &mut [isize]) {
        out.copy_from_slice(&self.bases);
        for d in (0..self.dims.len()).rev() {
            let n = self.dims[d].max(1);
            let c = (i % n) as isize;
            i /= n;
            for (k, o) in out.iter_mut().enumerate() {
                *o += c * self.strides[k][d];
            }
        }
    }
}

/// Fills `out` (C order of `shape`) with `f(k, offsets, j)` for each element, in parallel chunks:
/// `offsets` hold operand offsets of the current element.
fn drive<O: Element, F>(shape: &[usize], ops: &[(&[isize], usize)], out: &mut [O], f: F)
where
    F: Fn(&[isize]) -> O + Sync,
{
    let plan = Plan::new(shape, ops);
    let inner = plan.inner().max(1);
    let k = ops.len();
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(c, chunk)| {
            let mut offs = vec![0isize; k];
            let mut cur = vec![0isize; k];
            let start = c * CHUNK;
            let mut i = 0;
            while i < chunk.len() {
                let g = start + i;
                plan.offsets(g, &mut offs);
                let run = (inner - g % inner).min(chunk.len() - i);
                for j in 0..run {
                    for (q, o) in cur.iter_mut().enumerate() {
                        *o = offs[q] + j as isize * plan.strides[q][plan.dims.len() - 1];
                    }
                    chunk[i + j] = f(&cur);
                }
                i += run;
            }
        });
}

/// The elements of `a` in C order (`OutOfMemory` when the host cannot hold them).
pub(crate) fn gather<T: Element>(a: &Array<T>) -> Result<Vec<T>> {
    let src = host(a);
    let n = a.size();
    if a.is_contiguous() {
        return crate::host::try_to_vec("gather", &src[a.offset..a.offset + n]);
    }
    let mut out = try_vec_zeroed("gather", n)?;
    drive(&a.shape, &[(&a.strides, a.offset)], &mut out, |o| {
        src[o[0] as usize]
    });
    Ok(out)
}

/// Reads runs of a strided CPU array's elements in C order without gathering the whole array
/// (the reductions stream huge views, broadcasts included, through it).
pub(crate) struct StridedReader<'a, T> {
    src: &'a [T],
    plan: Plan,
}

impl<'a, T: Element> StridedReader<'a, T> {
    /// A reader of the layout (`shape`, `strides`, `offset`) over the storage `src`.
    pub(crate) fn from_layout(
        src: &'a [T],
        shape: &[usize],
        strides: &[isize],
        offset: usize,
    ) -> Self {
        StridedReader {
            src,
            plan: Plan::new(shape, &[(strides, offset)]),
        }
    }

    /// Fills `out` with the elements at C-order indices `start..start + out.len()`.
    pub(crate) fn read(&self, start: usize, out: &mut [T]) {
        let inner = self.plan.inner().max(1);
        let last = self.plan.strides[0].last().copied().unwrap_or(0);
        let mut off = [0isize];
        let mut i = 0;
        while i < out.len() {
            let g = start + i;
            self.plan.offsets(g, &mut off);
            let run = (inner - g % inner).min(out.len() - i);
            for (j, o) in out[i..i + run].iter_mut().enumerate() {
                *o = self.src[(off[0] + j as isize * last) as usize];
            }
            i += run;
        }
    }
}

/// `f` applied to every element of `a` (a new contiguous CPU array).
pub(crate) fn map1<A: Element, O: Element>(
    a: &Array<A>,
    f: impl Fn(A) -> O + Sync,
) -> Result<Array<O>> {
    let src = host(a);
    let n = a.size();
    let mut out = try_vec_zeroed("map", n)?;
    if a.is_contiguous() {
        let s = &src[a.offset..a.offset + n];
        out.par_chunks_mut(CHUNK)
            .zip(s.par_chunks(CHUNK))
            .for_each(|(o, i)| o.iter_mut().zip(i).for_each(|(o, &x)| *o = f(x)));
    } else {
        drive(&a.shape, &[(&a.strides, a.offset)], &mut out, |o| {
            f(src[o[0] as usize])
        });
    }
    Ok(Array::from_storage(
        Storage::Cpu(out),
        a.shape.clone(),
        Device::Cpu,
    ))
}

/// `f(a, b)` over the broadcast `shape` (a and b already broadcast to it).
pub(crate) fn map2<A: Element, B: Element, O: Element>(
    a: &Array<A>,
    b: &Array<B>,
    shape: &[usize],
    f: impl Fn(A, B) -> O + Sync,
) -> Result<Array<O>> {
    let (sa, sb) = (host(a), host(b));
    let n = crate::array::layout::checked_numel("map", shape)?;
    let mut out = try_vec_zeroed("map", n)?;
    if a.is_contiguous() && b.is_contiguous() && a.shape == shape && b.shape == shape {
        let (xa, xb) = (&sa[a.offset..a.offset + n], &sb[b.offset..b.offset + n]);
        out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, o)| {
            let s = c * CHUNK;
            for (j, o) in o.iter_mut().enumerate() {
                *o = f(xa[s + j], xb[s + j]);
            }
        });
    } else {
        drive(
            shape,
            &[(&a.strides, a.offset), (&b.strides, b.offset)],
            &mut out,
            |o| f(sa[o[0] as usize], sb[o[1] as usize]),
        );
    }
    Ok(Array::from_storage(
        Storage::Cpu(out),
        shape.to_vec(),
        Device::Cpu,
    ))
}

/// `f(a, b, c)` over the broadcast `shape`.
pub(crate) fn map3<A: Element, B: Element, C: Element, O: Element>(
    a: &Array<A>,
    b: &Array<B>,
    c: &Array<C>,
    shape: &[usize],
    f: impl Fn(A, B, C) -> O + Sync,
) -> Result<Array<O>> {
    let (sa, sb, sc) = (host(a), host(b), host(c));
    let n = crate::array::layout::checked_numel("map", shape)?;
    let mut out = try_vec_zeroed("map", n)?;
    drive(
        shape,
        &[
            (&a.strides, a.offset),
            (&b.strides, b.offset),
            (&c.strides, c.offset),
        ],
        &mut out,
        |o| f(sa[o[0] as usize], sb[o[1] as usize], sc[o[2] as usize]),
    );
    Ok(Array::from_storage(
        Storage::Cpu(out),
        shape.to_vec(),
        Device::Cpu,
    ))
}
