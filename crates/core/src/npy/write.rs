//! Writing `.npy` files and `.npz` archives (stored or deflated).

use super::{descr_of, with_dyn, Codec, Ctx, DynArray, NpyArray, CHUNK_BYTES};
use crate::array::Array;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use npyz::zip;
use npyz::WriterBuilder;
use std::borrow::Cow;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

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
