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

use crate::array::Array;
use crate::device::Device;
use crate::dtype::{c32, c64, DType, Element};
use crate::error::{Error, Result};
use npyz::zip;
use npyz::WriterBuilder;
use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

/// The largest header text accepted (NumPy itself refuses more than 10 000 bytes by default).
const MAX_HEADER_LEN: usize = 1 << 16;
/// The deepest bracket nesting accepted in a header (a plain dtype needs 2).
const MAX_HEADER_DEPTH: usize = 32;
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

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/// The data of `a` in C order on the host, borrowed when it is a contiguous CPU array.
fn host_data<T: Element>(a: &Array<T>) -> Result<Cow<'_, [T]>> {
    if a.is_contiguous() {
        if let Some(d) = a.cpu_data().and_then(|d| d.get(..a.size())) {
            return Ok(Cow::Borrowed(d));
        }
    }
    Ok(Cow::Owned(a.to_vec()?))
}

/// Bytes of a `.npy` file holding `a`, header included, for the zip entry's size flag.
fn npy_nbytes(a: &DynArray) -> u64 {
    let n = a
        .shape()
        .iter()
        .try_fold(1u64, |p, &d| p.checked_mul(d as u64));
    n.and_then(|n| n.checked_mul(a.dtype().size() as u64))
        .and_then(|n| n.checked_add(4096))
        .unwrap_or(u64::MAX)
}

fn write_header(w: &mut dyn Write, dtype: DType, shape: &[usize], ctx: &Ctx) -> Result<()> {
    let ty: npyz::TypeStr = descr_of(dtype)
        .parse()
        .map_err(|e| ctx.io(format!("dtype {}: {e}", descr_of(dtype))))?;
    let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    npyz::WriteOptions::new_header_only()
        .dtype(npyz::DType::Plain(ty))
        .shape(&shape)
        .writer(w)
        .write_header_only()
        .map_err(|e| ctx.io(format!("writing the header: {e}")))?;
    Ok(())
}

fn write_typed<T: Codec>(w: &mut dyn Write, a: &Array<T>, ctx: &Ctx) -> Result<()> {
    write_header(w, T::DTYPE, a.shape(), ctx)?;
    let data = host_data(a)?;
    let size = T::DTYPE.size();
    let per_chunk = (CHUNK_BYTES / size).max(1);
    let mut buf = Vec::with_capacity(per_chunk.min(data.len()) * size);
    for chunk in data.chunks(per_chunk) {
        buf.clear();
        for &x in chunk {
            x.put(&mut buf);
        }
        w.write_all(&buf)
            .map_err(|e| ctx.io(format!("writing the data: {e}")))?;
    }
    Ok(())
}

/// Writes `a` as a complete `.npy` stream (header and data).
fn write_npy(w: &mut dyn Write, a: &DynArray, ctx: &Ctx) -> Result<()> {
    with_dyn!(a, x => write_typed(w, x, ctx))
}

fn create(path: &Path, ctx: &Ctx) -> Result<BufWriter<File>> {
    File::create(path)
        .map(|f| BufWriter::with_capacity(CHUNK_BYTES, f))
        .map_err(|e| ctx.io(format!("cannot create the file: {e}")))
}

fn save_npy_impl(path: &Path, a: &DynArray, op: &'static str) -> Result<()> {
    let ctx = Ctx::new(op, path);
    let mut w = create(path, &ctx)?;
    write_npy(&mut w, a, &ctx)?;
    w.flush()
        .map_err(|e| ctx.io(format!("writing the data: {e}")))
}

/// Writes `a` to a `.npy` file at `path` (created or truncated): little-endian, C order, the
/// array's shape. An array on a GPU is copied to the host first; a view is written as the
/// array it shows.
///
/// # Errors
/// `Io` when the file cannot be created or written; device errors from the copy to the host.
///
/// ```
/// use cusci_core::npy::{load_npy, save_npy};
/// use cusci_core::{c32, Array, Device};
/// let dev = Device::cpu();
/// let path = std::env::temp_dir().join(format!("cusci_save_npy_doc_{}.npy", std::process::id()));
/// let z = Array::<c32>::from_vec(vec![c32::new(1.0, -1.0), c32::new(0.5, 2.0)], &[2], &dev).unwrap();
/// save_npy(&path, &z).unwrap(); // NumPy reads it as complex64 ('<c8')
/// assert_eq!(load_npy::<c32>(&path, &dev).unwrap().to_vec().unwrap(), z.to_vec().unwrap());
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn save_npy<T: Element>(path: impl AsRef<Path>, a: &Array<T>) -> Result<()> {
    save_npy_impl(path.as_ref(), &DynArray::from(a.clone()), "save_npy")
}

/// [`save_npy`] for an array of any element type: an [`Array<T>`], a [`DynArray`], or a
/// `&dyn NpyArray`.
///
/// ```
/// use cusci_core::npy::{load_npy_dyn, save_npy_dyn};
/// use cusci_core::{Array, Device};
/// let dev = Device::cpu();
/// let path = std::env::temp_dir().join(format!("cusci_save_npy_dyn_doc_{}.npy", std::process::id()));
/// save_npy_dyn(&path, &Array::<i64>::from_vec(vec![7], &[], &dev).unwrap()).unwrap();
/// let d = load_npy_dyn(&path, &dev).unwrap(); // a 0-d int64 array
/// assert_eq!(d.shape(), &[] as &[usize]);
/// save_npy_dyn(&path, &d).unwrap(); // a DynArray saves as it is
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn save_npy_dyn(path: impl AsRef<Path>, a: &dyn NpyArray) -> Result<()> {
    save_npy_impl(path.as_ref(), &a.npy_dyn(), "save_npy")
}

/// The bytes of a `.npy` file holding `a` (what [`save_npy`] writes), in memory.
///
/// ```
/// use cusci_core::npy::{from_npy_bytes, to_npy_bytes};
/// use cusci_core::{Array, Device};
/// let dev = Device::cpu();
/// let a = Array::<u8>::from_vec(vec![1, 2, 3, 4], &[2, 2], &dev).unwrap();
/// let bytes = to_npy_bytes(&a).unwrap();
/// assert!(bytes.starts_with(b"\x93NUMPY"));
/// let b = from_npy_bytes::<u8>(&bytes, &dev).unwrap();
/// assert_eq!(b.to_vec().unwrap(), vec![1, 2, 3, 4]);
/// ```
pub fn to_npy_bytes(a: &dyn NpyArray) -> Result<Vec<u8>> {
    let ctx = Ctx::memory("to_npy_bytes");
    let mut out = Vec::new();
    write_npy(&mut out, &a.npy_dyn(), &ctx)?;
    Ok(out)
}

fn check_npz_names(arrays: &[(&str, &dyn NpyArray)], ctx: &Ctx) -> Result<()> {
    for (i, (name, _)) in arrays.iter().enumerate() {
        if name.is_empty() {
            return Err(Error::InvalidArgument {
                op: ctx.op.into(),
                detail: format!("{}: array {i} has an empty name", ctx.path),
            });
        }
        if arrays[..i].iter().any(|(n, _)| n == name) {
            return Err(Error::InvalidArgument {
                op: ctx.op.into(),
                detail: format!("{}: the name {name:?} is used twice", ctx.path),
            });
        }
    }
    Ok(())
}

fn save_npz_impl(
    path: &Path,
    arrays: &[(&str, &dyn NpyArray)],
    method: zip::CompressionMethod,
    op: &'static str,
) -> Result<()> {
    let ctx = Ctx::new(op, path);
    check_npz_names(arrays, &ctx)?;
    let mut zw = zip::ZipWriter::new(create(path, &ctx)?);
    for (name, a) in arrays {
        let member = format!("{name}.npy");
        let mctx = ctx.with_member(&member);
        let a = a.npy_dyn();
        let options = zip::write::FileOptions::default()
            .compression_method(method)
            .large_file(npy_nbytes(&a) >= u32::MAX as u64);
        zw.start_file(member.as_str(), options)
            .map_err(|e| mctx.zip(e))?;
        write_npy(&mut zw, &a, &mctx)?;
    }
    let mut w = zw.finish().map_err(|e| ctx.zip(e))?;
    w.flush()
        .map_err(|e| ctx.io(format!("writing the archive: {e}")))
}

/// Writes `arrays` (name, array) to an uncompressed `.npz` archive at `path`, as
/// `numpy.savez(path, name=array, ...)` does: one `name.npy` member per array, in the order
/// given. Arrays of different element types and devices can be saved together.
///
/// # Errors
/// `InvalidArgument` for an empty or repeated name; `Io` when the file cannot be written.
///
/// ```
/// use cusci_core::npy::{load_npz, load_npz_array, save_npz, NpyArray};
/// use cusci_core::{Array, Device};
/// let dev = Device::cpu();
/// let path = std::env::temp_dir().join(format!("cusci_save_npz_doc_{}.npz", std::process::id()));
/// let x = Array::<f64>::from_vec(vec![0.5, 1.5], &[2], &dev).unwrap();
/// let labels = Array::<i32>::from_vec(vec![3, 1, 2], &[3], &dev).unwrap();
/// save_npz(&path, &[("x", &x as &dyn NpyArray), ("labels", &labels)]).unwrap();
/// let all = load_npz(&path, &dev).unwrap();
/// assert_eq!(all[0].0, "x");
/// assert_eq!(all[1].1.shape(), &[3]);
/// let l = load_npz_array::<i32>(&path, "labels", &dev).unwrap();
/// assert_eq!(l.to_vec().unwrap(), vec![3, 1, 2]);
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn save_npz(path: impl AsRef<Path>, arrays: &[(&str, &dyn NpyArray)]) -> Result<()> {
    save_npz_impl(
        path.as_ref(),
        arrays,
        zip::CompressionMethod::Stored,
        "save_npz",
    )
}

/// [`save_npz`] with each member deflate-compressed, as `numpy.savez_compressed` does.
///
/// ```
/// use cusci_core::npy::{load_npz_array, save_npz_compressed};
/// use cusci_core::{Array, Device};
/// let dev = Device::cpu();
/// let path = std::env::temp_dir().join(format!("cusci_savez_c_doc_{}.npz", std::process::id()));
/// let z = Array::<f32>::zeros(&[1000], &dev).unwrap();
/// save_npz_compressed(&path, &[("z", &z)]).unwrap();
/// assert!(std::fs::metadata(&path).unwrap().len() < 1000);
/// assert_eq!(load_npz_array::<f32>(&path, "z", &dev).unwrap().shape(), &[1000]);
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn save_npz_compressed(path: impl AsRef<Path>, arrays: &[(&str, &dyn NpyArray)]) -> Result<()> {
    save_npz_impl(
        path.as_ref(),
        arrays,
        zip::CompressionMethod::Deflated,
        "save_npz_compressed",
    )
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/// What a header says, in cusci's terms.
struct Header {
    dtype: DType,
    big_endian: bool,
    shape: Vec<usize>,
    fortran: bool,
    /// Bytes of the file before the data.
    len: u64,
}

/// Reads into `buf` until it is full or the stream ends; returns the bytes read.
fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Guards the header text before npyz parses it: bounded bracket nesting, and a shape whose
/// element count (zero-length axes counted as one) fits in 64 bits.
fn check_header_text(text: &str) -> std::result::Result<(), String> {
    let mut depth = 0usize;
    for b in text.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_HEADER_DEPTH {
                    return Err(format!(
                        "header nests deeper than {MAX_HEADER_DEPTH} brackets"
                    ));
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    for key in ["'shape'", "\"shape\""] {
        let mut from = 0;
        while let Some(p) = text[from..].find(key) {
            from += p + key.len();
            let Some(rest) = text[from..].trim_start().strip_prefix(':') else {
                continue;
            };
            let rest = rest.trim_start();
            let close = match rest.as_bytes().first() {
                Some(b'(') => ')',
                Some(b'[') => ']',
                _ => continue,
            };
            let Some(end) = rest.find(close) else {
                continue;
            };
            let mut count: u64 = 1;
            for tok in rest[1..end].split(',') {
                let t = tok.trim().trim_end_matches(['L', 'l']).replace('_', "");
                if t.is_empty() {
                    continue;
                }
                if !t.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(format!("shape entry {:?} is not a length", tok.trim()));
                }
                let d: u64 = t
                    .parse()
                    .map_err(|_| format!("shape entry {t} is too large"))?;
                count = count
                    .checked_mul(d.max(1))
                    .ok_or_else(|| format!("shape {} has too many elements", &rest[..=end]))?;
            }
        }
    }
    Ok(())
}

/// The cusci type and byte order of an npyz dtype, `None` when cusci has no such type.
fn map_dtype(d: &npyz::DType) -> Option<(DType, bool)> {
    use npyz::TypeChar as C;
    let npyz::DType::Plain(ts) = d else {
        return None;
    };
    let dtype = match (ts.type_char(), ts.size_field()) {
        (C::Float, 4) => DType::F32,
        (C::Float, 8) => DType::F64,
        (C::Complex, 8) => DType::C32,
        (C::Complex, 16) => DType::C64,
        (C::Int, 4) => DType::I32,
        (C::Int, 8) => DType::I64,
        (C::Uint, 1) => DType::U8,
        (C::Bool, 1) => DType::Bool,
        _ => return None,
    };
    Some((dtype, ts.endianness() == npyz::Endianness::Big))
}

fn read_header(r: &mut dyn Read, ctx: &Ctx) -> Result<Header> {
    let rd = |e: io::Error| ctx.io(format!("reading the header: {e}"));
    let mut pre = [0u8; 8];
    if read_full(r, &mut pre).map_err(rd)? < pre.len() || &pre[..6] != b"\x93NUMPY" {
        return Err(ctx.io("not an .npy file (no \\x93NUMPY magic)"));
    }
    let len_bytes = match (pre[6], pre[7]) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        (a, b) => return Err(ctx.io(format!("unsupported .npy format version {a}.{b}"))),
    };
    let mut lb = [0u8; 4];
    if read_full(r, &mut lb[..len_bytes]).map_err(rd)? < len_bytes {
        return Err(ctx.io("truncated header"));
    }
    let hlen = u32::from_le_bytes(lb) as usize;
    if hlen > MAX_HEADER_LEN {
        return Err(ctx.io(format!(
            "header of {hlen} bytes (more than {MAX_HEADER_LEN}): not a valid .npy file"
        )));
    }
    let mut all = Vec::with_capacity(8 + len_bytes + hlen);
    all.extend_from_slice(&pre);
    all.extend_from_slice(&lb[..len_bytes]);
    let start = all.len();
    all.resize(start + hlen, 0);
    if read_full(r, &mut all[start..]).map_err(rd)? < hlen {
        return Err(ctx.io(format!("truncated header (expected {hlen} bytes)")));
    }
    let text = std::str::from_utf8(&all[start..])
        .map_err(|_| ctx.io("malformed header: not UTF-8 text"))?;
    check_header_text(text).map_err(|e| ctx.io(format!("malformed header: {e}")))?;
    let h = npyz::NpyHeader::from_reader(&all[..])
        .map_err(|e| ctx.io(format!("malformed header: {e}")))?;
    let npy_dtype = h.dtype();
    let Some((dtype, big_endian)) = map_dtype(&npy_dtype) else {
        return Err(ctx.io(format!(
            "dtype {} is not one of cusci's (float32, float64, complex64, complex128, int32, \
             int64, uint8, bool)",
            npy_dtype.descr()
        )));
    };
    let shape = h
        .shape()
        .iter()
        .map(|&d| usize::try_from(d))
        .collect::<std::result::Result<Vec<usize>, _>>()
        .map_err(|_| ctx.io(format!("shape {:?} does not fit this machine", h.shape())))?;
    Ok(Header {
        dtype,
        big_endian,
        shape,
        fortran: h.order() == npyz::Order::Fortran,
        len: all.len() as u64,
    })
}

/// Reads `n` elements of `T` in the byte order `big_endian`.
fn read_elems<T: Codec>(
    r: &mut dyn Read,
    n: usize,
    big_endian: bool,
    avail: Option<u64>,
    ctx: &Ctx,
) -> Result<Vec<T>> {
    let size = T::DTYPE.size();
    let nbytes = n as u128 * size as u128;
    // reserve what the file can hold at most: a lying header allocates nothing large
    let cap = match avail {
        Some(a) => n.min((a / size as u64).try_into().unwrap_or(usize::MAX)),
        None => n.min(CHUNK_BYTES / size),
    };
    let mut out: Vec<T> = Vec::new();
    out.try_reserve_exact(cap)
        .map_err(|_| ctx.io(format!("cannot allocate {nbytes} bytes for the data")))?;
    let per_chunk = (CHUNK_BYTES / size).max(1);
    let mut buf = vec![0u8; per_chunk.min(n) * size];
    let mut left = n;
    while left > 0 {
        let k = left.min(per_chunk);
        let b = &mut buf[..k * size];
        let got = read_full(r, b).map_err(|e| ctx.io(format!("reading the data: {e}")))?;
        if got < b.len() {
            let total = (n - left) as u128 * size as u128 + got as u128;
            return Err(ctx.io(format!(
                "truncated data: the header announces {nbytes} bytes, the file holds {total}"
            )));
        }
        if big_endian {
            out.extend(b.chunks_exact(size).map(T::be));
        } else {
            out.extend(b.chunks_exact(size).map(T::le));
        }
        left -= k;
    }
    Ok(out)
}

/// Builds the array from data in the file's order.
fn finish<T: Codec>(data: Vec<T>, h: &Header, dev: &Device) -> Result<Array<T>> {
    if h.fortran && h.shape.len() > 1 {
        // Fortran data is the C-order data of the reversed shape; reverse the axes back
        let rev: Vec<usize> = h.shape.iter().rev().copied().collect();
        let c = Array::from_vec(data, &rev, &Device::Cpu)?
            .t()
            .contiguous()?;
        return c.to_device(dev);
    }
    Array::from_vec(data, &h.shape, dev)
}

fn read_typed<T: Codec>(
    r: &mut dyn Read,
    h: &Header,
    avail: Option<u64>,
    dev: &Device,
    ctx: &Ctx,
) -> Result<Array<T>> {
    let data = read_elems::<T>(r, h.shape.iter().product(), h.big_endian, avail, ctx)?;
    finish(data, h, dev)
}

/// Reads a whole `.npy` stream. `want` (a typed read) is checked before any data is read;
/// `avail` is the stream's length when known, for an early truncation check.
fn read_npy(
    r: &mut dyn Read,
    avail: Option<u64>,
    want: Option<DType>,
    dev: &Device,
    ctx: &Ctx,
) -> Result<DynArray> {
    let h = read_header(r, ctx)?;
    if let Some(w) = want {
        if w != h.dtype {
            let what = match &ctx.member {
                Some(m) => format!("{}[{m}]", ctx.path),
                None => ctx.path.clone(),
            };
            return Err(Error::UnsupportedDType {
                op: format!("{}: {what} holds {}, {w} was requested", ctx.op, h.dtype),
                dtype: h.dtype,
            });
        }
    }
    let n = crate::array::layout::checked_numel(ctx.op, &h.shape)
        .map_err(|_| ctx.io(format!("shape {:?} has too many elements", h.shape)))?;
    let nbytes = n as u128 * h.dtype.size() as u128;
    let avail = avail.map(|a| a.saturating_sub(h.len));
    if let Some(a) = avail {
        if (a as u128) < nbytes {
            return Err(ctx.io(format!(
                "truncated data: the header announces {nbytes} bytes, the file holds {a}"
            )));
        }
    }
    Ok(match h.dtype {
        DType::F32 => DynArray::F32(read_typed(r, &h, avail, dev, ctx)?),
        DType::F64 => DynArray::F64(read_typed(r, &h, avail, dev, ctx)?),
        DType::C32 => DynArray::C32(read_typed(r, &h, avail, dev, ctx)?),
        DType::C64 => DynArray::C64(read_typed(r, &h, avail, dev, ctx)?),
        DType::I32 => DynArray::I32(read_typed(r, &h, avail, dev, ctx)?),
        DType::I64 => DynArray::I64(read_typed(r, &h, avail, dev, ctx)?),
        DType::U8 => DynArray::U8(read_typed(r, &h, avail, dev, ctx)?),
        DType::Bool => DynArray::Bool(read_typed(r, &h, avail, dev, ctx)?),
    })
}

/// Opens `path` for reading; the length is known for regular files only (not for pipes).
fn open(path: &Path, ctx: &Ctx) -> Result<(BufReader<File>, Option<u64>)> {
    let f = File::open(path).map_err(|e| ctx.io(format!("cannot open the file: {e}")))?;
    let meta = f
        .metadata()
        .map_err(|e| ctx.io(format!("cannot read the file's metadata: {e}")))?;
    let len = meta.is_file().then_some(meta.len());
    let cap = len.unwrap_or(u64::MAX).clamp(1, CHUNK_BYTES as u64) as usize;
    Ok((BufReader::with_capacity(cap, f), len))
}

fn load_npy_impl(path: &Path, want: Option<DType>, dev: &Device) -> Result<DynArray> {
    let ctx = Ctx::new(
        if want.is_some() {
            "load_npy"
        } else {
            "load_npy_dyn"
        },
        path,
    );
    let (mut r, len) = open(path, &ctx)?;
    read_npy(&mut r, len, want, dev, &ctx)
}

/// Reads the `.npy` file at `path` into an array of `T` on `dev`: C- or Fortran-order data (the
/// result is always C-contiguous), either byte order.
///
/// # Errors
/// `UnsupportedDType` when the file holds another element type: its `dtype` is the file's, and
/// its `op` names the file and the requested type (nothing is converted; use [`load_npy_dyn`]
/// to read whatever the file holds). `Io` when the file cannot be read, is not a valid `.npy`
/// file, is truncated, or holds a type cusci does not have.
///
/// ```
/// use cusci_core::npy::{load_npy, save_npy};
/// use cusci_core::{Array, Device, Error};
/// let dev = Device::cpu();
/// let path = std::env::temp_dir().join(format!("cusci_load_npy_doc_{}.npy", std::process::id()));
/// save_npy(&path, &Array::<f32>::ones(&[4], &dev).unwrap()).unwrap();
/// assert_eq!(load_npy::<f32>(&path, &dev).unwrap().to_vec().unwrap(), vec![1.0; 4]);
/// assert!(matches!(load_npy::<f64>(&path, &dev), Err(Error::UnsupportedDType { .. })));
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn load_npy<T: Element>(path: impl AsRef<Path>, dev: &Device) -> Result<Array<T>> {
    load_npy_impl(path.as_ref(), Some(T::DTYPE), dev)?.into_array()
}

/// Reads the `.npy` file at `path`, whatever of cusci's element types it holds, onto `dev`.
///
/// # Errors
/// As [`load_npy`], without the type check.
///
/// ```
/// use cusci_core::npy::{load_npy_dyn, save_npy, DynArray};
/// use cusci_core::{Array, DType, Device};
/// let dev = Device::cpu();
/// let path = std::env::temp_dir().join(format!("cusci_load_dyn_doc_{}.npy", std::process::id()));
/// save_npy(&path, &Array::<bool>::from_vec(vec![true, false], &[2], &dev).unwrap()).unwrap();
/// match load_npy_dyn(&path, &dev).unwrap() {
///     DynArray::Bool(m) => assert_eq!(m.to_vec().unwrap(), vec![true, false]),
///     other => panic!("unexpected {:?}", other.dtype()),
/// }
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn load_npy_dyn(path: impl AsRef<Path>, dev: &Device) -> Result<DynArray> {
    load_npy_impl(path.as_ref(), None, dev)
}

/// Reads an array of `T` from the bytes of a `.npy` file (see [`to_npy_bytes`]).
///
/// # Errors
/// As [`load_npy`].
pub fn from_npy_bytes<T: Element>(bytes: &[u8], dev: &Device) -> Result<Array<T>> {
    let ctx = Ctx::memory("from_npy_bytes");
    let mut r = bytes;
    read_npy(&mut r, Some(bytes.len() as u64), Some(T::DTYPE), dev, &ctx)?.into_array()
}

/// Reads an array of whatever element type the bytes of a `.npy` file hold.
///
/// # Errors
/// As [`load_npy_dyn`].
///
/// ```
/// use cusci_core::npy::{from_npy_bytes_dyn, to_npy_bytes};
/// use cusci_core::{Array, DType, Device};
/// let dev = Device::cpu();
/// let bytes = to_npy_bytes(&Array::<i64>::zeros(&[0, 3], &dev).unwrap()).unwrap();
/// let d = from_npy_bytes_dyn(&bytes, &dev).unwrap();
/// assert_eq!((d.dtype(), d.shape()), (DType::I64, &[0usize, 3][..]));
/// ```
pub fn from_npy_bytes_dyn(bytes: &[u8], dev: &Device) -> Result<DynArray> {
    let ctx = Ctx::memory("from_npy_bytes_dyn");
    let mut r = bytes;
    read_npy(&mut r, Some(bytes.len() as u64), None, dev, &ctx)
}

fn open_npz(path: &Path, ctx: &Ctx) -> Result<zip::ZipArchive<BufReader<File>>> {
    let (r, _) = open(path, ctx)?;
    zip::ZipArchive::new(r).map_err(|e| ctx.zip(e))
}

/// Reads one member to its end (so that the archive checks its CRC) into an array.
fn read_member(
    f: &mut zip::read::ZipFile<'_>,
    want: Option<DType>,
    dev: &Device,
    ctx: &Ctx,
) -> Result<DynArray> {
    let size = f.size();
    let a = read_npy(f, Some(size), want, dev, ctx)?;
    io::copy(f, &mut io::sink()).map_err(|e| ctx.io(format!("reading the data: {e}")))?;
    Ok(a)
}

/// The names of the arrays in the `.npz` archive at `path`, in file order, without reading them
/// (members that are not `.npy` files are left out).
///
/// # Errors
/// `Io` when the file cannot be read or is not a zip archive.
pub fn npz_names(path: impl AsRef<Path>) -> Result<Vec<String>> {
    let path = path.as_ref();
    let ctx = Ctx::new("npz_names", path);
    let mut z = open_npz(path, &ctx)?;
    let mut names = Vec::with_capacity(z.len());
    for i in 0..z.len() {
        let f = z.by_index_raw(i).map_err(|e| ctx.zip(e))?;
        if let Some(stem) = f.name().strip_suffix(".npy") {
            if !f.is_dir() {
                names.push(stem.to_string());
            }
        }
    }
    Ok(names)
}

/// Reads every array of the `.npz` archive at `path` onto `dev`: (name, array) pairs in file
/// order, names without their `.npy` suffix. Members that are not `.npy` files are skipped.
/// Reads what `numpy.savez` and `numpy.savez_compressed` write.
///
/// # Errors
/// `Io` when the file cannot be read, is not a zip archive, or a member is not a valid `.npy`
/// file of one of cusci's element types.
pub fn load_npz(path: impl AsRef<Path>, dev: &Device) -> Result<Vec<(String, DynArray)>> {
    let path = path.as_ref();
    let ctx = Ctx::new("load_npz", path);
    let mut z = open_npz(path, &ctx)?;
    let mut out = Vec::with_capacity(z.len());
    for i in 0..z.len() {
        let mut f = z.by_index(i).map_err(|e| ctx.zip(e))?;
        if f.is_dir() {
            continue;
        }
        let member = f.name().to_string();
        let Some(stem) = member.strip_suffix(".npy") else {
            continue;
        };
        let a = read_member(&mut f, None, dev, &ctx.with_member(&member))?;
        out.push((stem.to_string(), a));
    }
    Ok(out)
}

/// Reads the array `name` of the `.npz` archive at `path` as an array of `T` on `dev`.
///
/// # Errors
/// `InvalidArgument` when the archive has no array `name`; `UnsupportedDType` when it holds
/// another element type (as [`load_npy`]); `Io` as [`load_npz`].
pub fn load_npz_array<T: Element>(
    path: impl AsRef<Path>,
    name: &str,
    dev: &Device,
) -> Result<Array<T>> {
    let path = path.as_ref();
    let ctx = Ctx::new("load_npz_array", path);
    let mut z = open_npz(path, &ctx)?;
    let member = format!("{name}.npy");
    let mut f = match z.by_name(&member) {
        Ok(f) => f,
        Err(zip::result::ZipError::FileNotFound) => {
            let names = npz_names(path).unwrap_or_default();
            return Err(Error::InvalidArgument {
                op: "load_npz_array".into(),
                detail: format!("{}: no array named {name:?} (it holds {names:?})", ctx.path),
            });
        }
        Err(e) => return Err(ctx.zip(e)),
    };
    read_member(&mut f, Some(T::DTYPE), dev, &ctx.with_member(&member))?.into_array()
}
