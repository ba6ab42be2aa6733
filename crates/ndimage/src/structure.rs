//! Structuring elements (`generate_binary_structure`; `iterate_structure`, a dilation, is in
//! `morphology::binary`) and the helpers that the morphology, label, measurement and distance
//! modules share (flat offsets of a structure, coordinates, origins).

use cusci_core::error::make;
use cusci_core::{Array, Device, Element, Result};

/// `scipy.ndimage.generate_binary_structure(rank, connectivity)`: a `3 × … × 3` boolean array
/// (`rank` axes) whose element at offset `d` from the centre is true when
/// `Σ|d_i| ≤ connectivity`. Connectivity 1 gives the cross (no diagonals), `rank` or more the
/// full cube. `rank == 0` gives a 0-d `true`; `connectivity < 1` is taken as 1 (SciPy's
/// `if connectivity < 1: connectivity = 1`).
///
/// The array is made on `dev`.
///
/// ```
/// use cusci_ndimage::{generate_binary_structure, Device};
/// let s = generate_binary_structure(2, 1, &Device::Cpu).unwrap();
/// assert_eq!(s.to_vec().unwrap(), vec![false, true, false, true, true, true, false, true, false]);
/// ```
pub fn generate_binary_structure(
    rank: usize,
    connectivity: i64,
    dev: &Device,
) -> Result<Array<bool>> {
    if rank > 32 {
        return Err(make::arg(
            "generate_binary_structure",
            format!("rank {rank} is more than 32"),
        ));
    }
    let data = structure_data("generate_binary_structure", rank, connectivity)?;
    Array::from_vec(data, &vec![3usize; rank], dev)
}

/// The elements of `generate_binary_structure(rank, connectivity)` in C order.
/// `OutOfMemory` when the `3^rank` elements do not fit the host (rank ≤ 32, so no overflow).
fn structure_data(op: &str, rank: usize, connectivity: i64) -> Result<Vec<bool>> {
    let n = 3usize.pow(rank as u32);
    // SciPy: `if connectivity < 1: connectivity = 1`
    let conn = connectivity.max(1);
    cusci_core::host::try_collect(
        op,
        n,
        (0..n).map(|mut k| {
            let mut s = 0i64;
            for _ in 0..rank {
                s += ((k % 3) as i64 - 1).abs();
                k /= 3;
            }
            s <= conn
        }),
    )
}

/// A structuring element read to the host.
#[derive(Debug, Clone)]
pub(crate) struct Structure {
    pub shape: Vec<usize>,
    pub data: Vec<bool>,
}

impl Structure {
    /// `structure` (any element type: nonzero is true), which must have rank `ndim` and at least
    /// one element (`InvalidArgument`, SciPy's "structure must not be empty", otherwise).
    pub fn from_array<S: Element>(
        op: &str,
        structure: &Array<S>,
        ndim: usize,
    ) -> Result<Structure> {
        if structure.ndim() != ndim {
            return Err(make::shape(
                op,
                format!(
                    "structure and input must have equal rank ({} and {ndim})",
                    structure.ndim()
                ),
            ));
        }
        if structure.is_empty() {
            // SciPy: RuntimeError("structure must not be empty")
            return Err(make::arg(op, "structure must not be empty"));
        }
        let data = structure
            .to_vec()?
            .into_iter()
            .map(|v| v != S::zero())
            .collect();
        Ok(Structure {
            shape: structure.shape().to_vec(),
            data,
        })
    }
    /// `generate_binary_structure(ndim, connectivity)` on the host.
    ///
    /// # Errors
    /// `InvalidArgument` for more than 32 dimensions (as `generate_binary_structure`).
    pub fn default(op: &str, ndim: usize, connectivity: i64) -> Result<Structure> {
        if ndim > 32 {
            return Err(make::arg(op, format!("rank {ndim} is more than 32")));
        }
        Ok(Structure {
            shape: vec![3; ndim],
            data: structure_data(op, ndim, connectivity)?,
        })
    }
    /// Coordinates of the true elements relative to the centre `shape // 2 + origin`:
    /// the offsets `k - c - origin` of SciPy's erosion.
    pub fn erosion_offsets(&self, origin: &[i64]) -> Vec<Vec<i64>> {
        let nd = self.shape.len();
        let st = c_strides_u(&self.shape);
        let mut v = Vec::new();
        for (k, &b) in self.data.iter().enumerate() {
            if !b {
                continue;
            }
            v.push(
                (0..nd)
                    .map(|d| {
                        ((k / st[d]) % self.shape[d]) as i64
                            - (self.shape[d] / 2) as i64
                            - origin[d]
                    })
                    .collect(),
            );
        }
        v
    }
    /// The offsets SciPy's dilation uses: the structure reflected, origin negated (minus one on
    /// even axes), then read as an erosion.
    pub fn dilation_offsets(&self, origin: &[i64]) -> Vec<Vec<i64>> {
        let o: Vec<i64> = origin
            .iter()
            .zip(&self.shape)
            .map(|(&o, &d)| if d % 2 == 0 { -o - 1 } else { -o })
            .collect();
        self.reflected().erosion_offsets(&o)
    }
    /// The structure reversed along every axis.
    pub fn reflected(&self) -> Structure {
        let mut data = self.data.clone();
        data.reverse();
        Structure {
            shape: self.shape.clone(),
            data,
        }
    }
}

/// The coordinates `c` of flat index `i` in a C-contiguous array of `shape`.
pub(crate) fn unravel(mut i: usize, shape: &[usize], c: &mut [i64]) {
    for d in (0..shape.len()).rev() {
        c[d] = (i % shape[d]) as i64;
        i /= shape[d];
    }
}

/// Steps the coordinates `c` to the next element of `shape` in C order (the last axis fastest;
/// past the last element they wrap to zeros).
#[inline]
pub(crate) fn step_index(c: &mut [i64], shape: &[usize]) {
    for d in (0..c.len()).rev() {
        c[d] += 1;
        if c[d] < shape[d] as i64 {
            return;
        }
        c[d] = 0;
    }
}

/// Per point offset its flat offset in a C-contiguous array of `shape`.
pub(crate) fn deltas(shape: &[usize], offs: &[Vec<i64>]) -> Vec<i64> {
    let st = c_strides_u(shape);
    offs.iter()
        .map(|o| o.iter().zip(&st).map(|(&c, &s)| c * s as i64).sum())
        .collect()
}

/// Per axis the smallest and largest of the point offsets `offs` (0 when there are none): an
/// element `c` with `c + lo ≥ 0` and `c + hi < shape` on every axis has all its points inside.
pub(crate) fn offset_extent(offs: &[Vec<i64>], nd: usize) -> (Vec<i64>, Vec<i64>) {
    let (mut lo, mut hi) = (vec![0i64; nd], vec![0i64; nd]);
    for o in offs {
        for d in 0..nd {
            lo[d] = lo[d].min(o[d]);
            hi[d] = hi[d].max(o[d]);
        }
    }
    (lo, hi)
}

/// C-order strides (in elements) of `shape`.
pub(crate) fn c_strides_u(shape: &[usize]) -> Vec<usize> {
    let mut st = vec![1usize; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        st[d] = st[d + 1] * shape[d + 1];
    }
    st
}

/// Checks an `origin` argument: empty means zeros; one value is broadcast to every axis; each
/// value must keep the centre inside the structure (`-(d/2) ≤ o ≤ (d-1)/2`, SciPy's rule).
pub(crate) fn norm_origin(op: &str, origin: &[i64], shape: &[usize]) -> Result<Vec<i64>> {
    let nd = shape.len();
    let o = match origin.len() {
        0 => vec![0; nd],
        1 => vec![origin[0]; nd],
        l if l == nd => origin.to_vec(),
        l => {
            return Err(make::arg(
                op,
                format!("origin has {l} values for {nd} axes"),
            ))
        }
    };
    for (d, (&o, &s)) in o.iter().zip(shape).enumerate() {
        let s = s as i64;
        if o < -(s / 2) || o > (s - 1) / 2 {
            return Err(make::arg(
                op,
                format!("invalid origin {o} on axis {d} of a structure of length {s}"),
            ));
        }
    }
    Ok(o)
}

/// Rejects complex element types (the functions of this module order or test values).
pub(crate) fn real_only<T: Element>(op: &str) -> Result<()> {
    if T::DTYPE.is_complex() {
        return Err(make::dtype(op, T::DTYPE));
    }
    Ok(())
}

/// `Array::contiguous` on `a` (no copy when it already is).
pub(crate) fn contig<T: Element>(a: &Array<T>) -> Result<Array<T>> {
    if a.is_contiguous() && a.offset() == 0 {
        Ok(a.clone())
    } else {
        a.contiguous()
    }
}
