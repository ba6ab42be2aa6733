//! Interop with the array crates users already hold: `ndarray` views and owned arrays without a
//! copy on the CPU, and `approx`'s comparisons (`assert_relative_eq!` and friends) on arrays of
//! either device.

use super::backend::Backend;
use super::Array;
use crate::device::Device;
use crate::dtype::Element;
use crate::error::Result;

impl<T: Element> Array<T> {
    /// A borrowed `ndarray` view of a CPU array, no copy: its shape, strides and offset as they
    /// are (views, transposes and broadcasts included). `None` for a GPU array and for layouts
    /// `ndarray` cannot borrow (negative strides); use [`to_ndarray`](Self::to_ndarray) then.
    ///
    /// ```
    /// use cusci_core::{Array, Device};
    /// let a = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], &Device::cpu()).unwrap();
    /// let t = a.permute(&[1, 0]).unwrap();
    /// let v = t.as_ndarray().unwrap();
    /// assert_eq!(v.shape(), &[3, 2]);
    /// assert_eq!(v[[2, 1]], 6.0);
    /// ```
    pub fn as_ndarray(&self) -> Option<ndarray::ArrayViewD<'_, T>> {
        let Backend::Host(h) = self.backend() else {
            return None;
        };
        let strides: Vec<usize> = h
            .strides()
            .iter()
            .map(|&s| usize::try_from(s).ok())
            .collect::<Option<_>>()?;
        let shape =
            ndarray::ShapeBuilder::strides(ndarray::IxDyn(h.shape()), ndarray::IxDyn(&strides));
        ndarray::ArrayViewD::from_shape(shape, h.data()).ok()
    }

    /// Takes an owned `ndarray` array onto `dev`. On the CPU an array in standard (C) layout
    /// that is its whole buffer is moved in without a copy; a standard-layout part of a buffer
    /// is copied out of it, any other layout copied in C order
    /// ([`from_ndarray`](Self::from_ndarray)).
    ///
    /// # Errors
    /// `OutOfMemory` when a copy cannot be allocated; device errors.
    ///
    /// ```
    /// use cusci_core::{Array, Device};
    /// let n = ndarray::Array2::from_shape_vec((2, 2), vec![1.0f64, 2.0, 3.0, 4.0]).unwrap();
    /// let a = Array::from_ndarray_owned(n, &Device::cpu()).unwrap();
    /// assert_eq!(a.to_vec().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
    /// ```
    pub fn from_ndarray_owned<D: ndarray::Dimension>(
        a: ndarray::Array<T, D>,
        dev: &Device,
    ) -> Result<Self> {
        if a.is_standard_layout() {
            let shape = a.shape().to_vec();
            let n = a.len();
            // a standard-layout array's elements are its buffer's `off .. off + n`
            let (mut v, off) = a.into_raw_vec_and_offset();
            let o = off.unwrap_or(0);
            if o != 0 || v.len() != n {
                v = v[o..o + n].to_vec();
            }
            return Self::from_vec(v, &shape, dev);
        }
        Self::from_ndarray(&a, dev)
    }
}

/// Equal shapes and equal elements (read back from a device; `NaN != NaN`, as for floats). A
/// device error reads as "not equal".
impl<T: Element + PartialEq> PartialEq for Array<T> {
    fn eq(&self, other: &Self) -> bool {
        self.shape() == other.shape()
            && matches!((self.to_vec(), other.to_vec()), (Ok(a), Ok(b)) if a == b)
    }
}

/// The element-wise comparison of two arrays of one shape, each pair compared as `T` does.
fn all_pairs<T: Element>(a: &Array<T>, b: &Array<T>, f: impl Fn(&T, &T) -> bool) -> bool {
    a.shape() == b.shape()
        && match (a.to_vec(), b.to_vec()) {
            (Ok(x), Ok(y)) => x.iter().zip(&y).all(|(p, q)| f(p, q)),
            _ => false,
        }
}

/// `approx::abs_diff_eq!` on arrays: equal shapes and every pair within `epsilon`.
impl<T: Element + approx::AbsDiffEq> approx::AbsDiffEq for Array<T>
where
    T::Epsilon: Copy,
{
    type Epsilon = T::Epsilon;
    fn default_epsilon() -> T::Epsilon {
        T::default_epsilon()
    }
    fn abs_diff_eq(&self, other: &Self, epsilon: T::Epsilon) -> bool {
        all_pairs(self, other, |p, q| p.abs_diff_eq(q, epsilon))
    }
}

/// `approx::assert_relative_eq!` on arrays: equal shapes and every pair relatively close.
impl<T: Element + approx::RelativeEq> approx::RelativeEq for Array<T>
where
    T::Epsilon: Copy,
{
    fn default_max_relative() -> T::Epsilon {
        T::default_max_relative()
    }
    fn relative_eq(&self, other: &Self, epsilon: T::Epsilon, max_relative: T::Epsilon) -> bool {
        all_pairs(self, other, |p, q| p.relative_eq(q, epsilon, max_relative))
    }
}

/// `approx::assert_ulps_eq!` on arrays: equal shapes and every pair within `max_ulps`.
impl<T: Element + approx::UlpsEq> approx::UlpsEq for Array<T>
where
    T::Epsilon: Copy,
{
    fn default_max_ulps() -> u32 {
        T::default_max_ulps()
    }
    fn ulps_eq(&self, other: &Self, epsilon: T::Epsilon, max_ulps: u32) -> bool {
        all_pairs(self, other, |p, q| p.ulps_eq(q, epsilon, max_ulps))
    }
}
