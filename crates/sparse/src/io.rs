//! `scipy.sparse.save_npz` and `scipy.sparse.load_npz`: sparse matrices in SciPy's own `.npz`
//! layout, so that SciPy reads what cusci writes and cusci reads what SciPy writes.
//!
//! The archive holds one `.npy` member per array, as `numpy.savez` writes them:
//!
//! | member | csr / csc / bsr | coo | dia |
//! |---|---|---|---|
//! | `format` | `b'csr'`, `b'csc'`, `b'bsr'` (0-d `\|S3`) | `b'coo'` | `b'dia'` |
//! | `shape` | int64 `[m, n]` | same | same |
//! | `data` | 1-D (bsr: (nblocks, R, C)) | 1-D | 2-D (ndiag, width) |
//! | others | `indices`, `indptr` | `row`, `col` (or SciPy's `coords`, (2, nnz)) | `offsets` |
//! | `_is_array` | 0-d bool `True` (SciPy's `*_array` classes) | same | same |

use crate::matrix::hv;
use crate::{BsrMatrix, CooMatrix, CscMatrix, CsrMatrix, DiaMatrix, SpIndex};
use cusci_core::error::make;
use cusci_core::npy::{from_npy_bytes_dyn, to_npy_bytes, DynArray};
use cusci_core::{Array, DType, Device, Error, Float, Result};
use npyz::zip;
use std::io::{Read, Write};
use std::path::Path;

/// A sparse matrix in one of the formats that [`save_npz`] and [`load_npz`] handle (SciPy's
/// `csr`, `csc`, `coo`, `dia` and `bsr`): what [`load_npz`] returns.
#[derive(Clone, Debug)]
pub enum SparseMatrix<T: Float, I: SpIndex = i32> {
    /// `csr_array`
    Csr(CsrMatrix<T, I>),
    /// `csc_array`
    Csc(CscMatrix<T, I>),
    /// `coo_array`
    Coo(CooMatrix<T, I>),
    /// `dia_array`
    Dia(DiaMatrix<T>),
    /// `bsr_array`
    Bsr(BsrMatrix<T, I>),
}

impl<T: Float, I: SpIndex> SparseMatrix<T, I> {
    /// SciPy's `format` attribute: `"csr"`, `"csc"`, `"coo"`, `"dia"` or `"bsr"`.
    pub fn format(&self) -> &'static str {
        match self {
            SparseMatrix::Csr(_) => "csr",
            SparseMatrix::Csc(_) => "csc",
            SparseMatrix::Coo(_) => "coo",
            SparseMatrix::Dia(_) => "dia",
            SparseMatrix::Bsr(_) => "bsr",
        }
    }

    /// (rows, columns).
    pub fn shape(&self) -> (usize, usize) {
        match self {
            SparseMatrix::Csr(a) => a.shape(),
            SparseMatrix::Csc(a) => a.shape(),
            SparseMatrix::Coo(a) => a.shape(),
            SparseMatrix::Dia(a) => a.shape(),
            SparseMatrix::Bsr(a) => a.shape(),
        }
    }

    /// The device holding the arrays.
    pub fn device(&self) -> &Device {
        match self {
            SparseMatrix::Csr(a) => a.device(),
            SparseMatrix::Csc(a) => a.device(),
            SparseMatrix::Coo(a) => a.device(),
            SparseMatrix::Dia(a) => a.device(),
            SparseMatrix::Bsr(a) => a.device(),
        }
    }

    /// The CSR form (`tocsr()`), with indices of type `I`.
    ///
    /// # Errors
    /// `InvalidArgument` when a DIA matrix's entries do not fit its conversion's 32-bit indices;
    /// device errors.
    pub fn tocsr(&self) -> Result<CsrMatrix<T, I>> {
        match self {
            SparseMatrix::Csr(a) => Ok(a.clone()),
            SparseMatrix::Csc(a) => a.tocsr(),
            SparseMatrix::Coo(a) => a.tocsr(),
            SparseMatrix::Dia(a) => a.tocsr()?.with_index(),
            SparseMatrix::Bsr(a) => a.tocsr(),
        }
    }

    /// The dense array (`toarray()`).
    ///
    /// # Errors
    /// As [`tocsr`](Self::tocsr).
    pub fn toarray(&self) -> Result<Array<T>> {
        match self {
            SparseMatrix::Dia(a) => a.toarray(),
            _ => self.tocsr()?.toarray(),
        }
    }
}

macro_rules! from_format {
    ($t:ident, $v:ident) => {
        impl<T: Float, I: SpIndex> From<$t<T, I>> for SparseMatrix<T, I> {
            fn from(a: $t<T, I>) -> Self {
                SparseMatrix::$v(a)
            }
        }
    };
}
from_format!(CsrMatrix, Csr);
from_format!(CscMatrix, Csc);
from_format!(CooMatrix, Coo);
from_format!(BsrMatrix, Bsr);

impl<T: Float, I: SpIndex> From<DiaMatrix<T>> for SparseMatrix<T, I> {
    fn from(a: DiaMatrix<T>) -> Self {
        SparseMatrix::Dia(a)
    }
}

/// The members of a matrix's `.npz` file: its format name and its named arrays.
#[doc(hidden)]
pub struct NpzParts {
    format: &'static str,
    shape: (usize, usize),
    arrays: Vec<(&'static str, DynArray)>,
}

mod sealed {
    pub trait Sealed {}
}

/// A matrix that [`save_npz`] can write: [`CsrMatrix`], [`CscMatrix`], [`CooMatrix`],
/// [`DiaMatrix`], [`BsrMatrix`] and [`SparseMatrix`]. Sealed.
pub trait SaveNpz: sealed::Sealed {
    /// The format name and the arrays SciPy's `save_npz` writes for this matrix.
    #[doc(hidden)]
    fn npz_parts(&self) -> Result<NpzParts>;
}

impl<T: Float, I: SpIndex> sealed::Sealed for CsrMatrix<T, I> {}
impl<T: Float, I: SpIndex> SaveNpz for CsrMatrix<T, I> {
    fn npz_parts(&self) -> Result<NpzParts> {
        Ok(NpzParts {
            format: "csr",
            shape: self.shape(),
            arrays: vec![
                ("indices", self.indices().clone().into()),
                ("indptr", self.indptr().clone().into()),
                ("data", self.data().clone().into()),
            ],
        })
    }
}

impl<T: Float, I: SpIndex> sealed::Sealed for CscMatrix<T, I> {}
impl<T: Float, I: SpIndex> SaveNpz for CscMatrix<T, I> {
    fn npz_parts(&self) -> Result<NpzParts> {
        Ok(NpzParts {
            format: "csc",
            shape: self.shape(),
            arrays: vec![
                ("indices", self.indices().clone().into()),
                ("indptr", self.indptr().clone().into()),
                ("data", self.data().clone().into()),
            ],
        })
    }
}

impl<T: Float, I: SpIndex> sealed::Sealed for BsrMatrix<T, I> {}
impl<T: Float, I: SpIndex> SaveNpz for BsrMatrix<T, I> {
    fn npz_parts(&self) -> Result<NpzParts> {
        Ok(NpzParts {
            format: "bsr",
            shape: self.shape(),
            arrays: vec![
                ("indices", self.indices().clone().into()),
                ("indptr", self.indptr().clone().into()),
                ("data", self.data().clone().into()),
            ],
        })
    }
}

impl<T: Float, I: SpIndex> sealed::Sealed for CooMatrix<T, I> {}
impl<T: Float, I: SpIndex> SaveNpz for CooMatrix<T, I> {
    fn npz_parts(&self) -> Result<NpzParts> {
        Ok(NpzParts {
            format: "coo",
            shape: self.shape(),
            arrays: vec![
                ("row", self.row().clone().into()),
                ("col", self.col().clone().into()),
                ("data", self.data().clone().into()),
            ],
        })
    }
}

impl<T: Float> sealed::Sealed for DiaMatrix<T> {}
impl<T: Float> SaveNpz for DiaMatrix<T> {
    fn npz_parts(&self) -> Result<NpzParts> {
        let offs = self.offsets();
        let k = offs.len();
        // SciPy's offsets are int32 unless they need more
        let offsets: DynArray = if offs.iter().all(|&o| i32::try_from(o).is_ok()) {
            Array::from_vec(offs.iter().map(|&o| o as i32).collect(), &[k], &Device::Cpu)?.into()
        } else {
            Array::from_vec(offs.to_vec(), &[k], &Device::Cpu)?.into()
        };
        Ok(NpzParts {
            format: "dia",
            shape: self.shape(),
            arrays: vec![("offsets", offsets), ("data", self.data().clone().into())],
        })
    }
}

impl<T: Float, I: SpIndex> sealed::Sealed for SparseMatrix<T, I> {}
impl<T: Float, I: SpIndex> SaveNpz for SparseMatrix<T, I> {
    fn npz_parts(&self) -> Result<NpzParts> {
        match self {
            SparseMatrix::Csr(a) => a.npz_parts(),
            SparseMatrix::Csc(a) => a.npz_parts(),
            SparseMatrix::Coo(a) => a.npz_parts(),
            SparseMatrix::Dia(a) => a.npz_parts(),
            SparseMatrix::Bsr(a) => a.npz_parts(),
        }
    }
}

fn io_err(op: &str, path: &Path, detail: impl std::fmt::Display) -> Error {
    Error::Io {
        op: op.into(),
        path: path.display().to_string(),
        detail: detail.to_string(),
    }
}

/// The `.npy` bytes of a 0-d byte string (NumPy's `np.array(b'csr')`, dtype `|S3`).
fn npy_bytes_str(s: &str) -> Vec<u8> {
    let mut header = format!(
        "{{'descr': '|S{}', 'fortran_order': False, 'shape': (), }}",
        s.len()
    );
    // magic (6) + version (2) + length (2) + header + '\n', padded to 64 bytes as NumPy does
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(s.as_bytes());
    out
}

/// The string held by a 0-d `.npy` of a byte string (`|Sn`) or a unicode string (`<Un`), as
/// SciPy's `format` member; `None` for anything else.
fn npy_str(bytes: &[u8]) -> Option<String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return None;
    }
    let (hl, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10usize),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        _ => return None,
    };
    let header = std::str::from_utf8(bytes.get(start..start.checked_add(hl)?)?).ok()?;
    let body = &bytes[start + hl..];
    let descr = header.split("'descr':").nth(1)?.trim_start();
    let descr = descr.strip_prefix('\'')?.split('\'').next()?;
    let (kind, n) = descr.trim_start_matches(['|', '<', '>', '=']).split_at(1);
    let n: usize = n.parse().ok()?;
    if !header.replace(' ', "").contains("'shape':()") {
        return None;
    }
    match kind {
        "S" => {
            let raw = body.get(..n)?;
            let end = raw.iter().position(|&b| b == 0).unwrap_or(n);
            String::from_utf8(raw[..end].to_vec()).ok()
        }
        "U" => {
            let raw = body.get(..n.checked_mul(4)?)?;
            let big = descr.starts_with('>');
            let s: Option<String> = raw
                .chunks_exact(4)
                .map(|c| {
                    let c = [c[0], c[1], c[2], c[3]];
                    char::from_u32(if big {
                        u32::from_be_bytes(c)
                    } else {
                        u32::from_le_bytes(c)
                    })
                })
                .collect();
            Some(s?.trim_end_matches('\0').to_string())
        }
        _ => None,
    }
}

/// `scipy.sparse.save_npz(file, matrix, compressed)`: writes `matrix` to the `.npz` archive at
/// `path` in SciPy's layout (see the module table): `format`, `shape` (int64), `data`, the
/// format's index arrays with their own dtype (`int32` for `i32` indices, `int64` for `i64`),
/// and `_is_array = True`, so that `scipy.sparse.load_npz` returns the matching `*_array`.
/// `compressed` deflates every member (`numpy.savez_compressed`, SciPy's default `True`).
/// Unlike SciPy, `.npz` is not appended to a path without it. Arrays on the GPU are copied to
/// the host (this function synchronises).
///
/// ```
/// use cusci_sparse::{eye, load_npz, save_npz, Device};
/// let path = std::env::temp_dir().join(format!("cusci_save_npz_{}.npz", std::process::id()));
/// let a = eye::<f64>(3, 4, 1, &Device::Cpu)?;
/// save_npz(&path, &a, true)?;
/// let b = load_npz::<f64>(&path, &Device::Cpu)?;
/// assert_eq!(b.format(), "csr");
/// assert_eq!(b.toarray()?.to_vec()?, a.toarray()?.to_vec()?);
/// std::fs::remove_file(&path).unwrap();
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `Io` when the file cannot be written; device errors.
pub fn save_npz(path: impl AsRef<Path>, matrix: &dyn SaveNpz, compressed: bool) -> Result<()> {
    let op = "save_npz";
    let path = path.as_ref();
    let parts = matrix.npz_parts()?;
    let (m, n) = parts.shape;
    let shape = Array::from_vec(vec![m as i64, n as i64], &[2], &Device::Cpu)?;
    let is_array = Array::from_vec(vec![true], &[], &Device::Cpu)?;
    let mut members: Vec<(&str, Vec<u8>)> = Vec::with_capacity(parts.arrays.len() + 3);
    for (name, a) in &parts.arrays {
        members.push((name, to_npy_bytes(a)?));
    }
    members.push(("format", npy_bytes_str(parts.format)));
    members.push(("shape", to_npy_bytes(&shape)?));
    members.push(("_is_array", to_npy_bytes(&is_array)?));
    let file = std::fs::File::create(path).map_err(|e| io_err(op, path, e))?;
    let mut zw = zip::ZipWriter::new(std::io::BufWriter::new(file));
    let method = if compressed {
        zip::CompressionMethod::Deflated
    } else {
        zip::CompressionMethod::Stored
    };
    for (name, bytes) in &members {
        let options = zip::write::FileOptions::default()
            .compression_method(method)
            .large_file(bytes.len() as u64 >= u32::MAX as u64);
        zw.start_file(format!("{name}.npy"), options)
            .map_err(|e| io_err(op, path, e))?;
        zw.write_all(bytes).map_err(|e| io_err(op, path, e))?;
    }
    let mut w = zw.finish().map_err(|e| io_err(op, path, e))?;
    w.flush().map_err(|e| io_err(op, path, e))
}

/// The members of an `.npz` archive, read into memory: (name without `.npy`, bytes).
fn read_members(op: &str, path: &Path) -> Result<Vec<(String, Vec<u8>)>> {
    let file = std::fs::File::open(path).map_err(|e| io_err(op, path, e))?;
    let mut z =
        zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(|e| io_err(op, path, e))?;
    let mut out = Vec::with_capacity(z.len());
    for i in 0..z.len() {
        let mut f = z.by_index(i).map_err(|e| io_err(op, path, e))?;
        if f.is_dir() {
            continue;
        }
        let Some(stem) = f.name().strip_suffix(".npy").map(str::to_string) else {
            continue;
        };
        let mut bytes = Vec::with_capacity(f.size().min(1 << 30) as usize);
        f.read_to_end(&mut bytes)
            .map_err(|e| io_err(op, path, format!("{stem}.npy: {e}")))?;
        out.push((stem, bytes));
    }
    Ok(out)
}

/// An index array of the file (int32 or int64, any shape) as `I` on the host, checked to fit.
fn index_array<I: SpIndex>(op: &str, name: &str, a: DynArray) -> Result<Array<I>> {
    match a.dtype() {
        DType::I32 => {
            let a = a.into_array::<i32>()?;
            a.astype()
        }
        DType::I64 => {
            let a = a.into_array::<i64>()?;
            if hv(&a.contiguous()?)
                .iter()
                .any(|&v| v < 0 || v as u64 > I::MAX as u64)
            {
                return Err(make::arg(
                    op,
                    format!("{name} holds values that do not fit {} indices", I::DTYPE),
                ));
            }
            a.astype()
        }
        d => Err(make::arg(
            op,
            format!("{name} must be an integer array, the file holds {d}"),
        )),
    }
}

/// [`load_npz`] with indices of type `I` (`i32` or `i64`): the file's int32 or int64 index
/// arrays are converted (an int64 value that does not fit `I` is an `InvalidArgument`).
///
/// # Errors
/// As [`load_npz`].
pub fn load_npz_index<T: Float, I: SpIndex>(
    path: impl AsRef<Path>,
    dev: &Device,
) -> Result<SparseMatrix<T, I>> {
    let op = "load_npz";
    let path = path.as_ref();
    let mut members = read_members(op, path)?;
    let Some(fpos) = members.iter().position(|(n, _)| n == "format") else {
        return Err(make::arg(
            op,
            format!(
                "the file {} does not contain a sparse array or matrix",
                path.display()
            ),
        ));
    };
    let format = npy_str(&members[fpos].1).ok_or_else(|| {
        make::arg(
            op,
            format!("{}: the format member is not a 0-d string", path.display()),
        )
    })?;
    let has_coords = members.iter().any(|(n, _)| n == "coords");
    let mut take = |name: &str| -> Result<DynArray> {
        let pos = members.iter().position(|(n, _)| n == name).ok_or_else(|| {
            make::arg(
                op,
                format!(
                    "{}: a {format} matrix needs the member {name:?}",
                    path.display()
                ),
            )
        })?;
        let (_, bytes) = members.swap_remove(pos);
        from_npy_bytes_dyn(&bytes, &Device::Cpu).map_err(|e| match e {
            Error::Io { detail, .. } => io_err(op, path, format!("{name}.npy: {detail}")),
            e => e,
        })
    };
    let shape = index_array::<i64>(op, "shape", take("shape")?)?;
    let shape = shape.to_vec()?;
    if shape.len() != 2 {
        return Err(make::arg(
            op,
            format!("only 2-D sparse matrices are supported, shape is {shape:?}"),
        ));
    }
    let shape = (shape[0] as usize, shape[1] as usize);
    let data = take("data")?;
    let held = data.dtype();
    let data = data
        .into_array::<T>()
        .map_err(|_| Error::UnsupportedDType {
            op: format!(
                "load_npz: {} holds {held} data, {} was requested",
                path.display(),
                T::DTYPE
            ),
            dtype: held,
        })?;
    let data = data.to_device(dev)?;
    let ix = |a: Array<I>| a.to_device(dev);
    let m = match format.as_str() {
        "csr" | "csc" | "bsr" => {
            let indices = ix(index_array::<I>(op, "indices", take("indices")?)?)?;
            let indptr = ix(index_array::<I>(op, "indptr", take("indptr")?)?)?;
            match format.as_str() {
                "csr" => SparseMatrix::Csr(CsrMatrix::new(data, indices, indptr, shape)?),
                "csc" => SparseMatrix::Csc(CscMatrix::new(data, indices, indptr, shape)?),
                _ => SparseMatrix::Bsr(BsrMatrix::new(data, indices, indptr, shape)?),
            }
        }
        "coo" => {
            let (row, col) = if has_coords {
                let c = index_array::<I>(op, "coords", take("coords")?)?;
                if c.ndim() != 2 || c.shape()[0] != 2 {
                    return Err(make::arg(
                        op,
                        format!(
                            "coords of shape {:?}: only 2-D sparse matrices are supported",
                            c.shape()
                        ),
                    ));
                }
                let nnz = c.shape()[1];
                let v = c.to_vec()?;
                (
                    Array::from_vec(v[..nnz].to_vec(), &[nnz], &Device::Cpu)?,
                    Array::from_vec(v[nnz..].to_vec(), &[nnz], &Device::Cpu)?,
                )
            } else {
                (
                    index_array::<I>(op, "row", take("row")?)?,
                    index_array::<I>(op, "col", take("col")?)?,
                )
            };
            SparseMatrix::Coo(CooMatrix::new(data, ix(row)?, ix(col)?, shape)?)
        }
        "dia" => {
            let offsets = index_array::<i64>(op, "offsets", take("offsets")?)?;
            let offsets: Vec<isize> = offsets.to_vec()?.iter().map(|&o| o as isize).collect();
            SparseMatrix::Dia(DiaMatrix::new(data, &offsets, shape)?)
        }
        f => {
            return Err(make::arg(
                op,
                format!("{}: unknown sparse format {f:?}", path.display()),
            ))
        }
    };
    Ok(m)
}

/// `scipy.sparse.load_npz(file)`: the sparse matrix in the `.npz` archive at `path` (as SciPy's
/// [`save_npz`] or cusci's writes it, compressed or not), on `dev`, in its own format, with
/// `i32` indices ([`load_npz_index`] for `i64`). The file's data must hold `T` (no conversion:
/// a float32 file read as `f64` is `UnsupportedDType`); its index arrays may be int32 or int64.
/// The structure is checked as the format's constructor checks it. A file of SciPy's
/// `*_matrix` and of its `*_array` classes read the same. The whole file is read into memory
/// first.
///
/// ```
/// use cusci_sparse::{load_npz, save_npz, CooMatrix, Device, Array};
/// let dev = Device::Cpu;
/// let path = std::env::temp_dir().join(format!("cusci_load_npz_{}.npz", std::process::id()));
/// let a = CooMatrix::new(
///     Array::from_vec(vec![1.0f32, 2.0], &[2], &dev)?,
///     Array::from_vec(vec![0, 1], &[2], &dev)?,
///     Array::from_vec(vec![2, 0], &[2], &dev)?,
///     (2, 3),
/// )?;
/// save_npz(&path, &a, false)?;
/// let b = load_npz::<f32>(&path, &dev)?;
/// assert_eq!(b.format(), "coo");
/// assert_eq!(b.toarray()?.to_vec()?, vec![0.0, 0.0, 1.0, 2.0, 0.0, 0.0]);
/// std::fs::remove_file(&path).unwrap();
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `Io` when the file cannot be read or is not a valid `.npz` archive; `InvalidArgument` when
/// it holds no `format` member (SciPy's "does not contain a sparse array or matrix"), an
/// unknown format, a missing member, a shape that is not 2-D, or an invalid structure;
/// `ShapeMismatch` for arrays of wrong lengths; `UnsupportedDType` when its data is not `T`.
pub fn load_npz<T: Float>(path: impl AsRef<Path>, dev: &Device) -> Result<SparseMatrix<T>> {
    load_npz_index(path, dev)
}
