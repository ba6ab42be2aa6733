//! `watershed_ift`: SciPy's watershed by the image foresting transform, SciPy's algorithm step
//! for step (its bucket queues, their order and its edge handling), on the host. The queue
//! order decides every tie, so no parallel algorithm reproduces SciPy's labels: on the GPU the
//! input and markers are copied to the host, and the labels back (a stated hybrid).

use crate::structure::generate_binary_structure;
use cusci_core::error::make;
use cusci_core::{Array, Device, Element, Result};

/// The marker (and output) element types of [`watershed_ift`]: SciPy takes signed integers.
pub trait Marker: Element + Copy {
    #[doc(hidden)]
    fn marker_i64(self) -> i64;
    #[doc(hidden)]
    fn marker_from(v: i64) -> Self;
}

impl Marker for i32 {
    fn marker_i64(self) -> i64 {
        self as i64
    }
    fn marker_from(v: i64) -> Self {
        v as i32
    }
}

impl Marker for i64 {
    fn marker_i64(self) -> i64 {
        self
    }
    fn marker_from(v: i64) -> Self {
        v
    }
}

const NONE: usize = usize::MAX;

/// `scipy.ndimage.watershed_ift(input, markers, structure=None, output=None)`: labels every
/// element with the marker that reaches it along the path of least maximal step
/// `|input[p] − input[q]|` (the image foresting transform), on the `structure`'s neighbourhood
/// (default: connectivity 1); the output has the markers' type, on the input's device.
///
/// SciPy's algorithm exactly: one FIFO-like queue per cost level; markers enter level 0 in C
/// order, positive labels at the front, negative (background) labels at the back; a neighbour
/// whose cost drops is moved to the front of its new level (the back for a negative label). As
/// in SciPy, neighbours are the flat offsets of the structure inside the array's flat extent
/// (so a neighbour across an edge of the last axes wraps onto the next row), an element alone
/// in its queue is not unlinked when its cost drops (it is visited again at its old level),
/// and labels are read as C `int` (a marker beyond i32 is truncated). These are SciPy's
/// results, reproduced as they are.
///
/// Element types: input u8 (SciPy also takes u16, which the core's arrays do not have);
/// markers i32 or i64 (SciPy: any signed integer).
///
/// Device: the transform is sequential (every tie is decided by the queues' order): a CUDA
/// input and its markers are copied to the host and the labels back.
///
/// # Errors
/// `ShapeMismatch` for markers of another shape or a structure of another rank or not 3 along
/// every axis (SciPy: RuntimeError); `InvalidArgument` for a 0-d input or more than 7
/// dimensions (SciPy: "too many dimensions"); `DeviceMismatch` for arrays on different devices.
///
/// ```
/// use cusci_ndimage::{watershed_ift, Array, Device};
/// let img = Array::from_vec(vec![0u8, 0, 9, 0, 0], &[5], &Device::Cpu).unwrap();
/// let m = Array::from_vec(vec![1i32, 0, 0, 0, 2], &[5], &Device::Cpu).unwrap();
/// let l = watershed_ift(&img, &m, None).unwrap();
/// // SciPy's result: marker 2 (queued first, at the front) reaches the ridge first
/// assert_eq!(l.to_vec().unwrap(), vec![1, 1, 2, 2, 2]);
/// ```
pub fn watershed_ift<M: Marker>(
    input: &Array<u8>,
    markers: &Array<M>,
    structure: Option<&Array<bool>>,
) -> Result<Array<M>> {
    let op = "watershed_ift";
    cusci_core::array::check_same_device(op, input.device(), markers.device())?;
    let nd = input.ndim();
    if nd == 0 {
        return Err(make::arg(op, "input must have at least one dimension"));
    }
    if nd > 7 {
        return Err(make::arg(op, "too many dimensions"));
    }
    if markers.shape() != input.shape() {
        return Err(make::shape(op, "input and markers must have equal shape"));
    }
    let cpu = Device::Cpu;
    let st = match structure {
        Some(s) => s.to_device(&cpu)?,
        None => generate_binary_structure(nd, 1, &cpu)?,
    };
    if st.ndim() != nd {
        return Err(make::shape(op, "structure and input must have equal rank"));
    }
    if st.shape().iter().any(|&d| d != 3) {
        return Err(make::shape(op, "structure dimensions must be equal to 3"));
    }
    let ps = st.to_vec()?;
    let img = input.to_vec()?;
    let mk = markers.to_vec()?;
    let shape = input.shape().to_vec();
    let n = img.len();
    let mut out: Vec<M> = mk.clone();
    if n > 0 {
        let lab = ift(&img, &mk, &shape, &ps);
        for (o, l) in out.iter_mut().zip(lab) {
            *o = M::marker_from(l);
        }
    }
    Array::from_vec(out, &shape, input.device())
}

/// The transform on host data; returns the labels (SciPy's `int` values).
fn ift<M: Marker>(img: &[u8], mk: &[M], shape: &[usize], ps: &[bool]) -> Vec<i64> {
    let n = img.len();
    let nd = shape.len();
    let maxval = img.iter().copied().max().unwrap_or(0) as usize;
    let mut cost = vec![0u32; n];
    let mut done = vec![false; n];
    let mut next = vec![NONE; n];
    let mut prev = vec![NONE; n];
    let mut first = vec![NONE; maxval + 1];
    let mut last = vec![NONE; maxval + 1];
    let mut out = vec![0i64; n];
    for j in 0..n {
        let label = mk[j].marker_i64() as i32 as i64;
        out[j] = label;
        if label != 0 {
            cost[j] = 0;
            if first[0] == NONE {
                first[0] = j;
                last[0] = j;
            } else if label > 0 {
                next[j] = first[0];
                prev[first[0]] = j;
                first[0] = j;
            } else {
                prev[j] = last[0];
                next[last[0]] = j;
                last[0] = j;
            }
        } else {
            cost[j] = maxval as u32 + 1;
        }
    }
    // the structure's flat offsets in C order (centre and zero offsets left out)
    let mut strides = vec![1isize; nd];
    for l in (0..nd.saturating_sub(1)).rev() {
        strides[l] = shape[l + 1] as isize * strides[l + 1];
    }
    let mut offs: Vec<isize> = Vec::new();
    let mut c = vec![-1isize; nd];
    for &s in ps {
        if s {
            let o: isize = c.iter().zip(&strides).map(|(a, b)| a * b).sum();
            if o != 0 {
                offs.push(o);
            }
        }
        for l in (0..nd).rev() {
            if c[l] < 1 {
                c[l] += 1;
                break;
            }
            c[l] = -1;
        }
    }
    for level in 0..=maxval {
        while first[level] != NONE {
            let v = first[level];
            first[level] = next[v];
            if first[level] != NONE {
                prev[first[level]] = NONE;
            }
            prev[v] = NONE;
            next[v] = NONE;
            done[v] = true;
            for &o in &offs {
                let pi = v as isize + o;
                if pi < 0 || pi >= n as isize {
                    continue;
                }
                let p = pi as usize;
                if done[p] {
                    continue;
                }
                let wvp = (img[p] as i32 - img[v] as i32).unsigned_abs();
                let pcost = cost[p];
                let mx = cost[v].max(wvp);
                if mx < pcost {
                    cost[p] = mx;
                    let label = out[v];
                    out[p] = label;
                    if next[p] != NONE || prev[p] != NONE {
                        let (pp, nn) = (prev[p], next[p]);
                        let pc = pcost as usize;
                        if first[pc] == p {
                            first[pc] = nn;
                        }
                        if last[pc] == p {
                            last[pc] = pp;
                        }
                        if pp != NONE {
                            next[pp] = nn;
                        }
                        if nn != NONE {
                            prev[nn] = pp;
                        }
                    }
                    let m = mx as usize;
                    if label < 0 {
                        prev[p] = last[m];
                        next[p] = NONE;
                        if last[m] != NONE {
                            next[last[m]] = p;
                        }
                        last[m] = p;
                        if first[m] == NONE {
                            first[m] = p;
                        }
                    } else {
                        next[p] = first[m];
                        prev[p] = NONE;
                        if first[m] != NONE {
                            prev[first[m]] = p;
                        }
                        first[m] = p;
                        if last[m] == NONE {
                            last[m] = p;
                        }
                    }
                }
            }
        }
    }
    out
}
