//! What the filter primitives share: the element types ([`Real`]), the kernels of the filter
//! module ([`super::FILTERS`]), weights as kernel arguments, and
//! footprints as lists of points. The primitives themselves: a 1-D window along one axis
//! ([`super::line`]), an n-D footprint ([`super::footprint`]), an n-D rank selection
//! ([`super::rank`]) and fused pairs of separable passes ([`super::fused`]). The CPU side
//! computes in f64 with rayon over lines or elements; the CUDA side runs the kernels.

use crate::cuda::{Taps, TAPS};
use crate::modes::Mode;
pub(crate) use crate::structure::unravel;
use cusci_core::cuda::launch::Spec;
use cusci_core::dtype::{DType, Element};
use cusci_core::{Array, Backend, CudaDevice, Device, Function, KernelParam, Result};
use rayon::prelude::*;

/// The element types the filters accept (SciPy's real types): f32, f64, i32, i64, u8, bool.
/// Results keep the input's type; values are computed in f64 on the CPU (f32 kernels accumulate
/// in f32 on the GPU, as CuPy) and cast back; integer and bool inputs run through the filters'
/// `*_as::<T, T>` forms, which store every pass with SciPy's C casts ([`stored`]).
pub trait Real: Element + PartialOrd {
    /// The kernels' working type: f32 for f32, f64 for the others.
    #[doc(hidden)]
    type W: Element + KernelParam;
    /// The value as f64.
    fn to_f(self) -> f64;
    /// The f64 value cast to the type (truncation toward zero and saturation for integers, NaN → 0).
    fn from_f(v: f64) -> Self;
    /// The f64 value in the working type.
    #[doc(hidden)]
    fn to_w(v: f64) -> Self::W;
}
macro_rules! real {
    ($($t:ty => $w:ty),*) => {$(
        impl Real for $t {
            type W = $w;
            #[inline]
            fn to_f(self) -> f64 { self as f64 }
            #[inline]
            fn from_f(v: f64) -> Self { v as $t }
            #[inline]
            fn to_w(v: f64) -> $w { v as $w }
        }
    )*};
}
real!(f32 => f32, f64 => f64, i32 => f64, i64 => f64, u8 => f64);

impl Real for bool {
    type W = f64;
    #[inline]
    fn to_f(self) -> f64 {
        self as u8 as f64
    }
    /// C's `(npy_bool)v`: nonzero (NaN too) is true.
    #[inline]
    fn from_f(v: f64) -> Self {
        v != 0.0
    }
    #[inline]
    fn to_w(v: f64) -> f64 {
        v
    }
}

/// Whether the plain filters run `T` as their `*_as::<T, T>` form (computed in f64 and stored
/// with SciPy's casts after every pass, SciPy's integer and bool results): the integer types and
/// bool.
#[inline]
pub(crate) fn stored<T: Element>() -> bool {
    T::DTYPE.is_integer() || T::DTYPE == DType::Bool
}

/// The operation of a window.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Op {
    Sum = 0,
    Min = 1,
    Max = 2,
}

/// An engine's body where `x` lives: an empty input is copied; otherwise the CPU body `cpu` on
/// the input's C-order values, or the CUDA body `cuda` on its device, each given the boundary
/// mode as the filters apply it ([`Mode::for_filter`]).
pub(crate) fn on_device<T: Real>(
    x: &Array<T>,
    mode: Mode,
    cpu: impl FnOnce(&[T], Mode) -> Vec<T>,
    cuda: impl FnOnce(&CudaDevice, Mode) -> Result<Array<T>>,
) -> Result<Array<T>> {
    if x.size() == 0 {
        return x.copy();
    }
    let mode = mode.for_filter();
    match x.backend() {
        Backend::Host(h) => {
            Array::from_vec(cpu(&h.try_to_contiguous()?, mode), x.shape(), &Device::Cpu)
        }
        Backend::Cuda(c) => cuda(c.dev(), mode),
    }
}

/// The filter kernel `name` for element type `T`.
pub(crate) fn function<T: Real>(d: &CudaDevice, name: &str) -> Result<Function> {
    super::FILTERS.function(d, &Spec::of(&[T::DTYPE]), name)
}

/// Weights (at most [`TAPS`]) as the by-value `NdiTaps` argument in the working type of `T`
/// (zeros after the last weight).
pub(crate) fn taps<T: Real>(w: &[f64]) -> Taps<T::W> {
    let mut t = [T::to_w(0.0); TAPS];
    for (a, &b) in t.iter_mut().zip(w) {
        *a = T::to_w(b);
    }
    Taps(t)
}

/// Weights (or any f64 table; one 0 for none) on `dev` in the working type of `T`.
pub(crate) fn table<T: Real>(v: &[f64], dev: &Device) -> Result<Array<T::W>> {
    let w: Vec<T::W> = if v.is_empty() {
        vec![T::to_w(0.0)]
    } else {
        v.iter().map(|&a| T::to_w(a)).collect()
    };
    let n = w.len();
    Array::from_vec(w, &[n], dev)
}

/// A window's weights for the kernels that take a table pointer and `NdiTaps`.
pub(crate) type Weights<W> = (Option<Array<W>>, Taps<W>);

/// Weights of a window for the kernels that take both a table pointer and `NdiTaps`: up to
/// [`TAPS`] weights by value and no table (no upload, so the call does not synchronise with the
/// host), else the table on `dev` and zero taps.
pub(crate) fn weights<T: Real>(w: &[f64], dev: &Device) -> Result<Weights<T::W>> {
    if w.len() <= TAPS {
        Ok((None, taps::<T>(w)))
    } else {
        Ok((Some(table::<T>(w, dev)?), taps::<T>(&[])))
    }
}

pub(crate) fn to_f64<T: Real>(x: &Array<T>) -> Result<Vec<f64>> {
    Ok(x.to_vec()?.into_iter().map(Real::to_f).collect())
}

pub(crate) fn from_f64<T: Real>(v: Vec<f64>, shape: &[usize]) -> Result<Array<T>> {
    let t: Vec<T> = v.into_par_iter().map(T::from_f).collect();
    Array::from_vec(t, shape, &Device::Cpu)
}

/// The contiguous input and a fresh output of its shape on its device (every element of which
/// the kernels write).
pub(crate) fn io<T: Element>(x: &Array<T>) -> Result<(Array<T>, Array<T>)> {
    let xc = x.contiguous()?;
    let out = Array::<T>::empty(x.shape(), x.device())?;
    Ok((xc, out))
}

/// A footprint as a list of points: `offs[p*ndim + d]` (relative to the output element, centre
/// and origin applied) and a weight per point.
pub(crate) struct Points {
    pub offs: Vec<i64>,
    pub w: Vec<f64>,
}

impl Points {
    pub fn len(&self) -> usize {
        self.w.len()
    }

    /// Per point the offset in the C-contiguous array of `shape`, and per axis the smallest and
    /// largest offset (the interior test of the GPU kernels).
    pub fn linear(&self, shape: &[usize]) -> (Vec<i64>, [i64; 8], [i64; 8]) {
        let nd = shape.len();
        let mut lo = [0i64; 8];
        let mut hi = [0i64; 8];
        let mut lin = Vec::with_capacity(self.len());
        for p in 0..self.len() {
            let o = &self.offs[p * nd..(p + 1) * nd];
            let mut l = 0i64;
            for d in 0..nd {
                l = l * shape[d] as i64 + o[d];
                if p == 0 || o[d] < lo[d] {
                    lo[d] = o[d];
                }
                if p == 0 || o[d] > hi[d] {
                    hi[d] = o[d];
                }
            }
            lin.push(l);
        }
        (lin, lo, hi)
    }
}

/// The values of the footprint `pts` around the element at coordinates `c` into `buf` (the
/// points in order, as f64): each point's coordinates mapped by the mode, `cval` where the mode
/// puts it outside.
pub(crate) fn window_at<T: Real>(
    xv: &[T],
    shape: &[usize],
    c: &[i64],
    pts: &Points,
    mode: Mode,
    cval: f64,
    buf: &mut [f64],
) {
    let nd = shape.len();
    if nd == 0 {
        // a 0-d array: every point is the element itself
        buf.fill(xv[0].to_f());
        return;
    }
    'points: for (off, b) in pts.offs.chunks_exact(nd).zip(buf.iter_mut()) {
        let mut lin = 0usize;
        for d in 0..nd {
            match mode.map_index(c[d] + off[d], shape[d] as i64) {
                Some(j) => lin = lin * shape[d] + j as usize,
                None => {
                    *b = cval;
                    continue 'points;
                }
            }
        }
        *b = xv[lin].to_f();
    }
}
