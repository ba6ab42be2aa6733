//! Reading `.npy` files and `.npz` archives: the header checked before it is parsed, C or Fortran
//! order, either byte order.

use super::{Codec, Ctx, DynArray, CHUNK_BYTES};
use crate::array::Array;
use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use npyz::zip;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;

/// The largest header text accepted (NumPy itself refuses more than 10 000 bytes by default).
const MAX_HEADER_LEN: usize = 1 << 16;
/// The deepest bracket nesting accepted in a header (a plain dtype needs 2).
const MAX_HEADER_DEPTH: usize = 32;

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
    // reserve what the file can hold at most: a lying header allocates nothing large (and a
    // length that is not trusted reserves one chunk, see `Length::Claimed`)
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
        // growth past the reservation (a length not known or not trusted) is fallible too
        out.try_reserve(k)
            .map_err(|_| ctx.io(format!("cannot allocate {nbytes} bytes for the data")))?;
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

/// Where the length of a `.npy` stream comes from.
#[derive(Clone, Copy)]
enum Length {
    /// Not known (a pipe).
    Unknown,
    /// Known: a regular file's or a byte slice's length. The data's memory is reserved at once.
    Known(u64),
    /// What an archive's entry claims (its uncompressed size field): enough for an early
    /// truncation check, but not trusted for a reservation, since a 2 KB archive can claim 4 GB
    /// for a member whose header announces as much (the memory then grows with the data read).
    Claimed(u64),
}

/// Reads a whole `.npy` stream. `want` (a typed read) is checked before any data is read;
/// `len` is the stream's length when known, for an early truncation check.
fn read_npy(
    r: &mut dyn Read,
    len: Length,
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
    // the shape must fit as an array of its dtype, zero-length axes included (a (0, 2**62)
    // float32 header passed an element count check and failed later in from_vec, not as Io)
    let n = crate::array::layout::checked_shape(ctx.op, &h.shape, h.dtype.size())
        .map_err(|_| ctx.io(format!("shape {:?} has too many elements", h.shape)))?;
    let nbytes = n as u128 * h.dtype.size() as u128;
    let (avail, trusted) = match len {
        Length::Unknown => (None, false),
        Length::Known(a) => (Some(a.saturating_sub(h.len)), true),
        Length::Claimed(a) => (Some(a.saturating_sub(h.len)), false),
    };
    if let Some(a) = avail {
        if (a as u128) < nbytes {
            return Err(ctx.io(format!(
                "truncated data: the header announces {nbytes} bytes, the file holds {a}"
            )));
        }
    }
    // the reservation trusts a known length only
    let avail = avail.filter(|_| trusted);
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
    let len = len.map_or(Length::Unknown, Length::Known);
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

/// Reads an array of `T` from the bytes of a `.npy` file (see
/// [`to_npy_bytes`](super::to_npy_bytes)).
///
/// # Errors
/// As [`load_npy`].
pub fn from_npy_bytes<T: Element>(bytes: &[u8], dev: &Device) -> Result<Array<T>> {
    let ctx = Ctx::memory("from_npy_bytes");
    let mut r = bytes;
    read_npy(
        &mut r,
        Length::Known(bytes.len() as u64),
        Some(T::DTYPE),
        dev,
        &ctx,
    )?
    .into_array()
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
    read_npy(&mut r, Length::Known(bytes.len() as u64), None, dev, &ctx)
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
    let a = read_npy(f, Length::Claimed(size), want, dev, ctx)?;
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
