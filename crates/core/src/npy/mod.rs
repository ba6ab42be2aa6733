//! NumPy `.npy` and `.npz` files: [`save_npy`], [`load_npy`], [`save_npz`], [`load_npz`].
//!
//! Files are read and written with NumPy's own format (version 1.0, or 2.0 when a header needs
//! it); NumPy reads what cusci writes and cusci reads what `numpy.save`, `numpy.savez` and
//! `numpy.savez_compressed` write. The element types are cusci's eight ([`DType`]):
//!
//! | Rust | NumPy | written as |
//! |---|---|---|
//! | `f32` | float32 | `<f4` |
//! | `f64` | float64 | `<f8` |
//! | [`c32`] | complex64 | `<c8` |
//! | [`c64`] | complex128 | `<c16` |
//! | `i32` | int32 | `<i4` |
//! | `i64` | int64 | `<i8` |
//! | `u8` | uint8 | `\|u1` |
//! | `bool` | bool | `\|b1` |
//!
//! Writing always produces little-endian, C-order data; arrays on a GPU are copied to the host
//! first, views are written with their logical (C-order) layout. Reading accepts C and Fortran
//! order (Fortran data is transposed into C order) and both byte orders, and puts the array on
//! the requested device. A typed read ([`load_npy::<T>`](load_npy)) never converts: a file that
//! holds another element type gives [`Error::UnsupportedDType`]; [`load_npy_dyn`] reads whatever
//! of the eight types the file holds into a [`DynArray`].
//!
//! Every failure is an error, never a panic: a file that cannot be opened, read or written, and a
//! malformed file (no magic, a garbage or oversized header, data shorter than the header says,
//! a damaged zip archive) give [`Error::Io`] with the operation, the path and what went wrong;
//! a file whose element type is none of cusci's (int16, float16, strings, records, objects)
//! gives [`Error::Io`] too, naming the file's dtype.
//!
//! ```
//! use cusci_core::npy::{load_npy, save_npy};
//! use cusci_core::{Array, Device};
//! let dev = Device::cpu();
//! let path = std::env::temp_dir().join(format!("cusci_npy_mod_doc_{}.npy", std::process::id()));
//! let a = Array::<f64>::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], &dev).unwrap();
//! save_npy(&path, &a).unwrap();
//! let b = load_npy::<f64>(&path, &dev).unwrap();
//! assert_eq!(b.shape(), &[2, 3]);
//! assert_eq!(b.to_vec().unwrap(), a.to_vec().unwrap());
//! std::fs::remove_file(&path).unwrap();
//! ```

mod read;
mod write;

use crate::array::Array;
use crate::device::Device;
use crate::dtype::{c32, c64, DType, Element};
use crate::error::{Error, Result};
use npyz::zip;
use std::any::Any;
use std::fmt;
use std::path::Path;

pub use read::{
    from_npy_bytes, from_npy_bytes_dyn, load_npy, load_npy_dyn, load_npz, load_npz_array, npz_names,
};
pub use write::{save_npy, save_npy_dyn, save_npz, save_npz_compressed, to_npy_bytes};

/// Bytes moved per step when reading or writing element data.
const CHUNK_BYTES: usize = 1 << 20;

// ---------------------------------------------------------------------------------------------
// DynArray
// ---------------------------------------------------------------------------------------------

/// An array whose element type is known only at run time: what [`load_npy_dyn`] and
/// [`load_npz`] return, one variant per cusci element type.
///
/// ```
/// use cusci_core::npy::DynArray;
/// use cusci_core::{Array, DType, Device};
/// let a = Array::<i32>::from_vec(vec![1, 2, 3], &[3], &Device::cpu()).unwrap();
/// let d = DynArray::from(a);
/// assert_eq!(d.dtype(), DType::I32);
/// assert_eq!(d.shape(), &[3]);
/// assert!(d.clone().into_array::<f32>().is_err()); // no silent conversion
/// assert_eq!(d.into_array::<i32>().unwrap().to_vec().unwrap(), vec![1, 2, 3]);
/// ```
#[derive(Clone, Debug)]
pub enum DynArray {
    /// float32
    F32(Array<f32>),
    /// float64
    F64(Array<f64>),
    /// complex64
    C32(Array<c32>),
    /// complex128
    C64(Array<c64>),
    /// int32
    I32(Array<i32>),
    /// int64
    I64(Array<i64>),
    /// uint8
    U8(Array<u8>),
    /// bool
    Bool(Array<bool>),
}

/// Runs `$body` with `$a` bound to the typed array inside a [`DynArray`].
macro_rules! with_dyn {
    ($value:expr, $a:ident => $body:expr) => {
        match $value {
            DynArray::F32($a) => $body,
            DynArray::F64($a) => $body,
            DynArray::C32($a) => $body,
            DynArray::C64($a) => $body,
            DynArray::I32($a) => $body,
            DynArray::I64($a) => $body,
            DynArray::U8($a) => $body,
            DynArray::Bool($a) => $body,
        }
    };
}
// for read.rs and write.rs
use with_dyn;

impl DynArray {
    /// The element type.
    pub fn dtype(&self) -> DType {
        with_dyn!(self, a => a.dtype())
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        with_dyn!(self, a => a.shape())
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape().len()
    }

    /// Number of elements.
    pub fn size(&self) -> usize {
        self.shape().iter().product()
    }

    /// The device the array lives on.
    pub fn device(&self) -> &Device {
        with_dyn!(self, a => a.device())
    }

    /// The same array on `dev` (see [`Array::to_device`]).
    pub fn to_device(&self, dev: &Device) -> Result<DynArray> {
        Ok(with_dyn!(self, a => DynArray::from(a.to_device(dev)?)))
    }

    /// The typed array, when `T` is the element type.
    ///
    /// # Errors
    /// `UnsupportedDType` (carrying the array's dtype, with the requested one in `op`) when `T`
    /// is another type; nothing is converted.
    pub fn into_array<T: Element>(self) -> Result<Array<T>> {
        let held = self.dtype();
        let boxed: Box<dyn Any> = with_dyn!(self, a => Box::new(a) as Box<dyn Any>);
        boxed
            .downcast::<Array<T>>()
            .map(|b| *b)
            .map_err(|_| Error::UnsupportedDType {
                op: format!(
                    "DynArray::into_array: the array holds {held}, {} was requested",
                    T::DTYPE
                ),
                dtype: held,
            })
    }

    /// A reference to the typed array, or `None` when `T` is not the element type.
    ///
    /// ```
    /// use cusci_core::npy::DynArray;
    /// use cusci_core::{Array, Device};
    /// let d = DynArray::from(Array::<u8>::zeros(&[2], &Device::cpu()).unwrap());
    /// assert!(d.as_array::<u8>().is_some());
    /// assert!(d.as_array::<i64>().is_none());
    /// ```
    pub fn as_array<T: Element>(&self) -> Option<&Array<T>> {
        with_dyn!(self, a => (a as &dyn Any).downcast_ref::<Array<T>>())
    }
}

impl<T: Element> From<Array<T>> for DynArray {
    /// Wraps a typed array (no copy).
    fn from(a: Array<T>) -> DynArray {
        let b: Box<dyn Any> = Box::new(a);
        let b = match b.downcast::<Array<f32>>() {
            Ok(a) => return DynArray::F32(*a),
            Err(b) => b,
        };
        let b = match b.downcast::<Array<f64>>() {
            Ok(a) => return DynArray::F64(*a),
            Err(b) => b,
        };
        let b = match b.downcast::<Array<c32>>() {
            Ok(a) => return DynArray::C32(*a),
            Err(b) => b,
        };
        let b = match b.downcast::<Array<c64>>() {
            Ok(a) => return DynArray::C64(*a),
            Err(b) => b,
        };
        let b = match b.downcast::<Array<i32>>() {
            Ok(a) => return DynArray::I32(*a),
            Err(b) => b,
        };
        let b = match b.downcast::<Array<i64>>() {
            Ok(a) => return DynArray::I64(*a),
            Err(b) => b,
        };
        let b = match b.downcast::<Array<u8>>() {
            Ok(a) => return DynArray::U8(*a),
            Err(b) => b,
        };
        match b.downcast::<Array<bool>>() {
            Ok(a) => DynArray::Bool(*a),
            Err(_) => {
                unreachable!("Element is sealed: its eight types are the variants of DynArray")
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// NpyArray
// ---------------------------------------------------------------------------------------------

mod sealed {
    pub trait Sealed {
        /// A handle to the array (no copy) as a [`super::DynArray`].
        fn npy_dyn(&self) -> super::DynArray;
    }
}

/// An array that can be written to a `.npy` file or an `.npz` archive: every [`Array<T>`] and
/// [`DynArray`]. Object safe, so that arrays of different element types can be saved together
/// with [`save_npz`]. Sealed: it cannot be implemented outside cusci.
///
/// ```
/// use cusci_core::npy::NpyArray;
/// use cusci_core::{Array, DType, Device};
/// let dev = Device::cpu();
/// let a = Array::<f32>::zeros(&[2, 2], &dev).unwrap();
/// let m = Array::<bool>::ones(&[3], &dev).unwrap();
/// let list: [&dyn NpyArray; 2] = [&a, &m];
/// assert_eq!(list[1].dtype(), DType::Bool);
/// assert_eq!(list[0].shape(), &[2, 2]);
/// ```
pub trait NpyArray: sealed::Sealed {
    /// The element type.
    fn dtype(&self) -> DType;
    /// The shape.
    fn shape(&self) -> &[usize];
}

impl<T: Element> sealed::Sealed for Array<T> {
    fn npy_dyn(&self) -> DynArray {
        DynArray::from(self.clone())
    }
}

impl<T: Element> NpyArray for Array<T> {
    fn dtype(&self) -> DType {
        T::DTYPE
    }
    fn shape(&self) -> &[usize] {
        Array::shape(self)
    }
}

impl sealed::Sealed for DynArray {
    fn npy_dyn(&self) -> DynArray {
        self.clone()
    }
}

impl NpyArray for DynArray {
    fn dtype(&self) -> DType {
        DynArray::dtype(self)
    }
    fn shape(&self) -> &[usize] {
        DynArray::shape(self)
    }
}

// ---------------------------------------------------------------------------------------------
// Element codecs
// ---------------------------------------------------------------------------------------------

/// Byte encoding of one element type (private: the public API goes through [`DynArray`]).
trait Codec: Element {
    /// The dtype string written to files.
    const DESCR: &'static str;
    /// Appends the little-endian bytes of `self`.
    fn put(self, out: &mut Vec<u8>);
    /// Decodes little-endian bytes (`c.len()` is the element size).
    fn le(c: &[u8]) -> Self;
    /// Decodes big-endian bytes (`c.len()` is the element size).
    fn be(c: &[u8]) -> Self;
}

/// The first `N` bytes of `c` (callers pass chunks of exactly the element size).
#[inline]
fn bytes<const N: usize>(c: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&c[..N]);
    a
}

macro_rules! codec_real {
    ($t:ty, $n:expr, $descr:expr) => {
        impl Codec for $t {
            const DESCR: &'static str = $descr;
            #[inline]
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn le(c: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes::<$n>(c))
            }
            #[inline]
            fn be(c: &[u8]) -> Self {
                <$t>::from_be_bytes(bytes::<$n>(c))
            }
        }
    };
}
codec_real!(f32, 4, "<f4");
codec_real!(f64, 8, "<f8");
codec_real!(i32, 4, "<i4");
codec_real!(i64, 8, "<i8");
codec_real!(u8, 1, "|u1");

macro_rules! codec_complex {
    ($t:ty, $r:ty, $n:expr, $descr:expr) => {
        impl Codec for $t {
            const DESCR: &'static str = $descr;
            #[inline]
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.re.to_le_bytes());
                out.extend_from_slice(&self.im.to_le_bytes());
            }
            #[inline]
            fn le(c: &[u8]) -> Self {
                <$t>::new(
                    <$r>::from_le_bytes(bytes::<$n>(c)),
                    <$r>::from_le_bytes(bytes::<$n>(&c[$n..])),
                )
            }
            #[inline]
            fn be(c: &[u8]) -> Self {
                <$t>::new(
                    <$r>::from_be_bytes(bytes::<$n>(c)),
                    <$r>::from_be_bytes(bytes::<$n>(&c[$n..])),
                )
            }
        }
    };
}
codec_complex!(c32, f32, 4, "<c8");
codec_complex!(c64, f64, 8, "<c16");

impl Codec for bool {
    const DESCR: &'static str = "|b1";
    #[inline]
    fn put(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
    /// Any nonzero byte is true (NumPy's reading of a byte as bool).
    #[inline]
    fn le(c: &[u8]) -> Self {
        c[0] != 0
    }
    #[inline]
    fn be(c: &[u8]) -> Self {
        c[0] != 0
    }
}

/// The dtype string cusci writes for `d`.
fn descr_of(d: DType) -> &'static str {
    match d {
        DType::F32 => f32::DESCR,
        DType::F64 => f64::DESCR,
        DType::C32 => c32::DESCR,
        DType::C64 => c64::DESCR,
        DType::I32 => i32::DESCR,
        DType::I64 => i64::DESCR,
        DType::U8 => u8::DESCR,
        DType::Bool => bool::DESCR,
    }
}

// ---------------------------------------------------------------------------------------------
// Error context
// ---------------------------------------------------------------------------------------------

/// What is being done to which file, for error messages.
struct Ctx {
    op: &'static str,
    path: String,
    /// The archive member being read or written, if any.
    member: Option<String>,
}

impl Ctx {
    fn new(op: &'static str, path: &Path) -> Ctx {
        Ctx {
            op,
            path: path.display().to_string(),
            member: None,
        }
    }

    fn memory(op: &'static str) -> Ctx {
        Ctx {
            op,
            path: "<memory>".into(),
            member: None,
        }
    }

    fn with_member(&self, member: &str) -> Ctx {
        Ctx {
            op: self.op,
            path: self.path.clone(),
            member: Some(member.to_string()),
        }
    }

    fn io(&self, detail: impl fmt::Display) -> Error {
        let detail = match &self.member {
            Some(m) => format!("member {m:?}: {detail}"),
            None => detail.to_string(),
        };
        Error::Io {
            op: self.op.to_string(),
            path: self.path.clone(),
            detail,
        }
    }

    fn zip(&self, e: zip::result::ZipError) -> Error {
        match e {
            zip::result::ZipError::Io(e) => self.io(e),
            e => self.io(format!("not a valid .npz (zip) archive: {e}")),
        }
    }
}
