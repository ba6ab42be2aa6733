//! Property-based fuzzing of `.npy`/`.npz` reading (proptest, with shrinking): headers built
//! from a grammar of valid and broken pieces (dtype, fortran_order, shape, versions, lengths),
//! arbitrary and mutated bytes, archives with lying sizes. Every input gives an `Err` or an
//! array that agrees with a naive decoder of the bytes; none panics, and none makes a single
//! allocation much larger than the input (a per-thread allocation tracker checks).
//! Write-then-read round trips for every dtype. Case counts: see `crate::fuzz::config`.

use crate::fuzz::config;
use cusci_core::npy::{
    from_npy_bytes, from_npy_bytes_dyn, load_npz, load_npz_array, npz_names, save_npz,
    to_npy_bytes, DynArray, NpyArray,
};
use cusci_core::{c32, c64, Array, DType, Device, Element, Error};
use proptest::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Write;

// ------------------------------------------------------------------------------------------
// The largest single allocation of this thread
// ------------------------------------------------------------------------------------------

/// The system allocator, recording the largest request each thread makes (so that a parse can
/// be checked for huge allocations while other tests run on other threads).
struct Tracking;

thread_local! {
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    let _ = PEAK.try_with(|p| {
        if size > p.get() {
            p.set(size)
        }
    });
}

// SAFETY: every call forwards to the system allocator with the caller's arguments; the
// bookkeeping touches a const-initialised thread-local only (no allocation, no reentrancy).
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        note(l.size());
        // SAFETY: as the caller's contract.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        note(l.size());
        // SAFETY: as the caller's contract.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: as the caller's contract.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        note(new);
        // SAFETY: as the caller's contract.
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static ALLOC: Tracking = Tracking;

/// Runs `f` and returns its value with the largest single allocation it made on this thread.
fn peak_of<R>(f: impl FnOnce() -> R) -> (R, usize) {
    PEAK.with(|p| p.set(0));
    let r = f();
    (r, PEAK.with(|p| p.get()))
}

/// The most a parse of `len` input bytes may allocate at once: the output and one copy of it
/// (Fortran order), the header and the 1 MiB read buffer.
fn alloc_bound(len: usize) -> usize {
    (4 << 20) + 4 * len
}

// ------------------------------------------------------------------------------------------
// Headers from a grammar
// ------------------------------------------------------------------------------------------

/// A piece of a header: what it should parse as, or a broken form (`None`) that must be refused.
#[derive(Debug, Clone)]
struct Piece<T> {
    text: String,
    means: Option<T>,
    /// False for random text, which may happen to be valid.
    sure: bool,
}

fn piece<T>(text: impl Into<String>, means: Option<T>) -> Piece<T> {
    Piece {
        text: text.into(),
        means,
        sure: true,
    }
}

/// Random printable text as a piece whose meaning is not known.
fn random_piece<T: std::fmt::Debug>() -> impl Strategy<Value = Piece<T>> {
    "[ -~]{0,12}".prop_map(|t| Piece {
        text: t,
        means: None,
        sure: false,
    })
}

const DTYPES: [DType; 8] = [
    DType::F32,
    DType::F64,
    DType::C32,
    DType::C64,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::Bool,
];

/// The descr of a cusci dtype in a byte order.
fn descr(d: DType, big: bool) -> String {
    let o = if big { '>' } else { '<' };
    match d {
        DType::F32 => format!("{o}f4"),
        DType::F64 => format!("{o}f8"),
        DType::C32 => format!("{o}c8"),
        DType::C64 => format!("{o}c16"),
        DType::I32 => format!("{o}i4"),
        DType::I64 => format!("{o}i8"),
        DType::U8 => "|u1".into(),
        DType::Bool => "|b1".into(),
    }
}

fn descr_piece() -> impl Strategy<Value = Piece<(DType, bool)>> {
    let bad = prop::sample::select(vec![
        "'<f2'",
        "'<i2'",
        "'>u2'",
        "'|i1'",
        "'<U10'",
        "'|O'",
        "'|S5'",
        "'<M8[ns]'",
        "'<f16'",
        "'<c32'",
        "''",
        "'<'",
        "'<f'",
        "'<f99999999999999999999'",
        "[('a', '<f8'), ('b', '<i4')]",
        "[('a', '<f8', (2,))]",
        "None",
        "3",
        "{'names': ['a']}",
    ])
    .prop_map(|t| piece(t, None));
    prop_oneof![
        6 => (prop::sample::select(DTYPES.to_vec()), any::<bool>())
            .prop_map(|(d, big)| piece(format!("'{}'", descr(d, big)), Some((d, big && d.size() > 1 && d != DType::Bool && d != DType::U8)))),
        2 => bad,
        1 => random_piece(),
    ]
}

fn fortran_piece() -> impl Strategy<Value = Piece<bool>> {
    prop_oneof![
        4 => any::<bool>().prop_map(|f| piece(if f { "True" } else { "False" }, Some(f))),
        1 => prop::sample::select(vec!["'True'", "1", "None", "Tru", "[]", "()"])
            .prop_map(|t| piece(t, None)),
    ]
}

/// Dimensions for shapes: small, or huge.
fn shape_dim() -> impl Strategy<Value = u128> {
    prop_oneof![
        10 => 0u128..5,
        1 => Just(1u128 << 20),
        1 => Just(1u128 << 27),
        1 => Just(1u128 << 40),
        1 => Just(1u128 << 62),
        1 => Just(i64::MAX as u128),
        1 => Just(u64::MAX as u128),
        1 => Just(1u128 << 64),
        1 => Just(10u128.pow(30)),
    ]
}

fn shape_piece() -> impl Strategy<Value = Piece<Vec<u128>>> {
    let tuple = prop::collection::vec(shape_dim(), 0..4).prop_map(|dims| {
        let body: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
        let text = match body.len() {
            1 => format!("({},)", body[0]),
            _ => format!("({})", body.join(", ")),
        };
        piece(text, Some(dims))
    });
    let bad = prop::sample::select(vec![
        "(-1,)",
        "(3, -2)",
        "(1.5,)",
        "((1,),)",
        "(1, 2",
        "1, 2)",
        "('a',)",
        "None",
        "3",
        "(,)",
        "(1,,2)",
        "((((((((((((((((((((((((((((((((((((((1,))))))))))))))))))))))))))))))))))))))",
    ])
    .prop_map(|t| piece(t, None));
    prop_oneof![6 => tuple, 2 => bad, 1 => random_piece()]
}

/// A whole `.npy` file and what it should read as (`None`: it must be refused).
#[derive(Clone)]
struct NpyCase {
    bytes: Vec<u8>,
    want: Option<Want>,
    /// False when the outcome is not fixed (an extra key in an otherwise valid header: NumPy
    /// refuses it, a lenient reader may not; a header length off by a few bytes); only "no
    /// panic" is checked then.
    sure: bool,
}

impl std::fmt::Debug for NpyCase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text: String = self.bytes.escape_ascii().to_string();
        write!(
            f,
            "NpyCase {{ bytes: b\"{text}\", want: {:?}, sure: {} }}",
            self.want.as_ref().map(|w| (w.dtype, &w.shape)),
            self.sure
        )
    }
}

#[derive(Debug, Clone)]
struct Want {
    dtype: DType,
    shape: Vec<usize>,
    /// The elements in C order, little-endian (bool as 0 or 1).
    le: Vec<u8>,
}

/// The little-endian C-order elements of file data `data` in byte order `big` and order
/// `fortran`, decoded naively element by element.
fn naive_decode(dtype: DType, big: bool, fortran: bool, shape: &[usize], data: &[u8]) -> Vec<u8> {
    let size = dtype.size();
    let n: usize = shape.iter().product();
    let mut out = Vec::with_capacity(n * size);
    for k in 0..n {
        // the multi-index of C position k, and its position in the file
        let mut idx = vec![0usize; shape.len()];
        let mut r = k;
        for d in (0..shape.len()).rev() {
            idx[d] = r % shape[d];
            r /= shape[d];
        }
        let p = if fortran {
            let mut p = 0;
            for d in (0..shape.len()).rev() {
                p = p * shape[d] + idx[d];
            }
            p
        } else {
            k
        };
        let e = &data[p * size..(p + 1) * size];
        let parts = if matches!(dtype, DType::C32 | DType::C64) {
            2
        } else {
            1
        };
        for part in e.chunks(size / parts) {
            let mut v = part.to_vec();
            if big {
                v.reverse();
            }
            if dtype == DType::Bool {
                v[0] = (v[0] != 0) as u8;
            }
            out.extend_from_slice(&v);
        }
    }
    out
}

fn npy_case() -> impl Strategy<Value = NpyCase> {
    (
        descr_piece(),
        fortran_piece(),
        shape_piece(),
        prop::collection::vec(prop::sample::select(vec![0u8, 1, 2, 3]), 0..3), // key order, extras
        prop_oneof![8 => Just((1u8, 0u8)), 1 => Just((2, 0)), 1 => Just((3, 0)), 1 => any::<(u8, u8)>()],
        prop_oneof![8 => Just(0i64), 1 => -40i64..40, 1 => any::<u32>().prop_map(i64::from)], // header length error
        prop_oneof![8 => Just(0i64), 2 => -9i64..9], // data length error
        prop::collection::vec(any::<u8>(), 0..2048), // data bytes
    )
        .prop_map(|(d, f, s, keys, ver, hlen_err, dlen_err, pool)| {
            // the dict: the three keys in an order, maybe one left out or one added
            let mut items = vec![
                format!("'descr': {}", d.text),
                format!("'fortran_order': {}", f.text),
                format!("'shape': {}", s.text),
            ];
            let mut dict_ok = true;
            let mut extra = false;
            for &k in &keys {
                match k {
                    0 => items.rotate_left(1),
                    1 => match items.pop() {
                        Some(t) if t.starts_with("'extra'") => extra = false,
                        _ => dict_ok = false,
                    },
                    2 => {
                        items.push("'extra': 1".into());
                        extra = true;
                    }
                    _ => items.swap(0, 1),
                }
            }
            let mut text = format!("{{{}, }}", items.join(", "));
            let lenb = if ver.0 == 1 { 2 } else { 4 };
            // pad to a multiple of 64 with spaces and a newline, as NumPy writes
            while (10 + lenb - 2 + text.len() + 1) % 64 != 0 {
                text.push(' ');
            }
            text.push('\n');
            let mut bytes = b"\x93NUMPY".to_vec();
            bytes.extend([ver.0, ver.1]);
            let hlen = (text.len() as i64 + hlen_err).max(0) as u64;
            if lenb == 2 {
                bytes.extend_from_slice(&(hlen.min(u16::MAX as u64) as u16).to_le_bytes());
            } else {
                bytes.extend_from_slice(&(hlen.min(u32::MAX as u64) as u32).to_le_bytes());
            }
            bytes.extend_from_slice(text.as_bytes());
            let valid_ver = matches!(ver, (1, 0) | (2, 0) | (3, 0));
            // the data: as long as the header says when it fits in the pool, else the pool
            let (want, data_len) = match (&d.means, &f.means, &s.means) {
                (Some((dt, big)), Some(fo), Some(dims)) => {
                    let small = dims.iter().all(|&x| x < 5);
                    let n: u128 = dims.iter().fold(1u128, |a, &x| a.saturating_mul(x));
                    let need = n.saturating_mul(dt.size() as u128);
                    if small && need as usize <= pool.len() {
                        let len = (need as i64 + dlen_err).max(0) as usize;
                        let ok = dict_ok
                            && valid_ver
                            && hlen_err == 0
                            && (dlen_err >= 0 || need == 0); // trailing bytes are ignored
                        let shape: Vec<usize> = dims.iter().map(|&x| x as usize).collect();
                        let want = ok.then(|| Want {
                            dtype: *dt,
                            le: naive_decode(*dt, *big, *fo && shape.len() > 1, &shape, &pool[..need as usize]),
                            shape,
                        });
                        (want, len.min(pool.len()))
                    } else if n == 0 && dict_ok && valid_ver && hlen_err == 0 {
                        // zero elements, huge axes: empty when the shape fits, else refused
                        let fits = dims.iter().filter(|&&x| x != 0).try_fold(dt.size() as u128, |a, &x| a.checked_mul(x)).is_some_and(|b| b <= isize::MAX as u128);
                        let want = fits.then(|| Want { dtype: *dt, le: vec![], shape: dims.iter().map(|&x| x as usize).collect() });
                        (want, pool.len())
                    } else {
                        (None, pool.len())
                    }
                }
                _ => (None, pool.len()),
            };
            bytes.extend_from_slice(&pool[..data_len]);
            // a wrong header length may still parse (cutting trailing blanks, or taking data
            // bytes as blanks): only "no panic" is checked then
            let sure = hlen_err == 0 && (!extra || want.is_none()) && d.sure && f.sure && s.sure;
            NpyCase { bytes, want, sure }
        })
}

/// The little-endian C-order element bytes of a read array (through the writer, whose own
/// round trip is checked below).
fn le_bytes(d: &DynArray) -> Vec<u8> {
    let b = to_npy_bytes(d).unwrap();
    let (lenb, hl) = if b[6] == 1 {
        (2, u16::from_le_bytes([b[8], b[9]]) as usize)
    } else {
        (4, u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize)
    };
    b[8 + lenb + hl..].to_vec()
}

/// Reads `bytes` both ways (dynamic and typed as f64) and checks: no panic, no huge allocation,
/// and an array agreeing with `want` when given (`Some(None)`: must be refused).
fn check_read(bytes: &[u8], want: Option<&Option<Want>>) -> Result<(), TestCaseError> {
    let dev = Device::Cpu;
    let (r, peak) = peak_of(|| from_npy_bytes_dyn(bytes, &dev));
    prop_assert!(
        peak <= alloc_bound(bytes.len()),
        "{} bytes allocated at once for {} input bytes",
        peak,
        bytes.len()
    );
    let (rt, peak) = peak_of(|| from_npy_bytes::<f64>(bytes, &dev));
    prop_assert!(peak <= alloc_bound(bytes.len()));
    match &r {
        Ok(a) => {
            let nbytes = a.size() * a.dtype().size();
            prop_assert!(
                nbytes <= bytes.len(),
                "{} data bytes from {} input bytes",
                nbytes,
                bytes.len()
            );
            match &rt {
                Ok(t) => prop_assert!(a.dtype() == DType::F64 && t.shape() == a.shape()),
                Err(Error::UnsupportedDType { dtype, .. }) => prop_assert_eq!(*dtype, a.dtype()),
                Err(e) => prop_assert!(false, "dyn read ok, typed read: {}", e),
            }
        }
        Err(e) => {
            prop_assert!(matches!(e, Error::Io { .. }), "not an Io error: {}", e);
            prop_assert!(rt.is_err());
        }
    }
    match (want, r) {
        (None, _) => {}
        (Some(None), Ok(a)) => prop_assert!(false, "accepted: {:?} {:?}", a.dtype(), a.shape()),
        (Some(None), Err(_)) => {}
        (Some(Some(w)), Err(e)) => {
            prop_assert!(false, "refused ({}), wanted {:?} {:?}", e, w.dtype, w.shape)
        }
        (Some(Some(w)), Ok(a)) => {
            prop_assert_eq!(a.dtype(), w.dtype);
            prop_assert_eq!(a.shape(), &w.shape[..]);
            if a.size() <= 4096 {
                prop_assert_eq!(le_bytes(&a), w.le.clone());
            }
        }
    }
    Ok(())
}

/// Byte-level mutations of a file.
#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Truncate(usize),
    Insert(usize, Vec<u8>),
    Remove(usize, usize),
    /// A little-endian u32 written at a position (a length field, a size).
    Put32(usize, u32),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), 1u8..=255).prop_map(|(p, x)| Mutation::Flip(p, x)),
        2 => any::<usize>().prop_map(Mutation::Truncate),
        1 => (any::<usize>(), prop::collection::vec(any::<u8>(), 1..8)).prop_map(|(p, v)| Mutation::Insert(p, v)),
        1 => (any::<usize>(), 1usize..16).prop_map(|(p, k)| Mutation::Remove(p, k)),
        2 => (any::<usize>(), prop_oneof![any::<u32>(), Just(u32::MAX), Just(1 << 30), Just(0x7fff_ffff)])
            .prop_map(|(p, v)| Mutation::Put32(p, v)),
    ]
}

fn mutate(mut b: Vec<u8>, ms: &[Mutation]) -> Vec<u8> {
    for m in ms {
        if b.is_empty() {
            break;
        }
        let at = |p: usize| p % b.len();
        match m {
            Mutation::Flip(p, x) => {
                let i = at(*p);
                b[i] ^= x;
            }
            Mutation::Truncate(p) => b.truncate(at(*p)),
            Mutation::Insert(p, v) => {
                let i = at(*p);
                b.splice(i..i, v.iter().copied());
            }
            Mutation::Remove(p, k) => {
                let i = at(*p);
                let e = (i + k).min(b.len());
                b.drain(i..e);
            }
            Mutation::Put32(p, v) => {
                let i = at(*p).min(b.len().saturating_sub(4));
                let e = (i + 4).min(b.len());
                b[i..e].copy_from_slice(&v.to_le_bytes()[..e - i]);
            }
        }
    }
    b
}

// ------------------------------------------------------------------------------------------
// Archives
// ------------------------------------------------------------------------------------------

/// A fresh temporary path for this test thread, removed when dropped.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(tag: &str) -> TempFile {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        TempFile(std::env::temp_dir().join(format!(
            "cusci-fuzz-{tag}-{}-{}.npz",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        )))
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// An archive of the given members (name, bytes), stored or deflated.
fn zip_of(members: &[(String, Vec<u8>)], deflate: bool) -> Vec<u8> {
    use npyz::zip::{write::FileOptions, CompressionMethod, ZipWriter};
    let mut zw = ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let method = if deflate {
        CompressionMethod::Deflated
    } else {
        CompressionMethod::Stored
    };
    for (name, bytes) in members {
        zw.start_file(
            name.as_str(),
            FileOptions::default().compression_method(method),
        )
        .unwrap();
        zw.write_all(bytes).unwrap();
    }
    zw.finish().unwrap().into_inner()
}

/// Writes `v` into every uncompressed-size field of the archive (local and central headers).
fn lie_about_sizes(b: &mut [u8], v: u32) {
    for i in 0..b.len().saturating_sub(30) {
        let off = match &b[i..i + 4] {
            b"PK\x03\x04" => 22,
            b"PK\x01\x02" => 24,
            _ => continue,
        };
        b[i + off..i + off + 4].copy_from_slice(&v.to_le_bytes());
    }
}

/// Loads the archive `bytes` through every reader: no panic, no huge allocation, `Io` (or, for
/// a missing name or another dtype, `InvalidArgument`/`UnsupportedDType`) errors only. Returns
/// what `load_npz` read.
fn check_npz(bytes: &[u8], bound: usize) -> Result<Option<Vec<(String, DynArray)>>, TestCaseError> {
    let dev = Device::Cpu;
    let f = TempFile::new("npz");
    std::fs::write(&f.0, bytes).unwrap();
    let (r, peak) = peak_of(|| load_npz(&f.0, &dev));
    prop_assert!(
        peak <= bound,
        "load_npz allocated {} bytes at once for a {}-byte archive",
        peak,
        bytes.len()
    );
    let (names, peak) = peak_of(|| npz_names(&f.0));
    prop_assert!(peak <= bound, "npz_names allocated {} bytes at once", peak);
    if let Err(e) = &names {
        prop_assert!(matches!(e, Error::Io { .. }), "{}", e);
    }
    for name in names.unwrap_or_default().iter().take(4) {
        let (t, peak) = peak_of(|| load_npz_array::<f64>(&f.0, name, &dev));
        prop_assert!(
            peak <= bound,
            "load_npz_array allocated {} bytes at once",
            peak
        );
        if let Err(e) = t {
            prop_assert!(
                matches!(
                    e,
                    Error::Io { .. }
                        | Error::UnsupportedDType { .. }
                        | Error::InvalidArgument { .. }
                ),
                "{}",
                e
            );
        }
    }
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e) => {
            prop_assert!(matches!(e, Error::Io { .. }), "{}", e);
            Ok(None)
        }
    }
}

// ------------------------------------------------------------------------------------------
// Round trips
// ------------------------------------------------------------------------------------------

/// An array of dtype `d` and shape `shape` whose elements come from `pool` (any bit patterns,
/// NaNs included; bools from bytes), maybe as a transposed or reversed view.
fn array_of(d: DType, shape: &[usize], pool: &[u8], view: u8) -> DynArray {
    fn make<T: Element>(
        shape: &[usize],
        pool: &[u8],
        view: u8,
        f: impl Fn([u8; 8]) -> T,
    ) -> DynArray {
        let n: usize = shape.iter().product();
        let size = std::mem::size_of::<T>();
        let v: Vec<T> = (0..n)
            .map(|k| {
                let mut x = [0u8; 8];
                for (i, b) in x.iter_mut().enumerate() {
                    *b = pool[(k * size + i) % pool.len()];
                }
                f(x)
            })
            .collect();
        let mut a = Array::<T>::from_vec(v, shape, &Device::Cpu).unwrap();
        if view % 3 == 1 {
            a = a.t();
        } else if view % 3 == 2 && !shape.is_empty() {
            a = a.slice_axis(0, None, None, -1).unwrap();
        }
        DynArray::from(a)
    }
    let u = u64::from_le_bytes;
    match d {
        DType::F32 => make(shape, pool, view, |x| f32::from_bits(u(x) as u32)),
        DType::F64 => make(shape, pool, view, |x| f64::from_bits(u(x))),
        DType::C32 => make(shape, pool, view, |x| {
            c32::new(
                f32::from_bits(u(x) as u32),
                f32::from_bits((u(x) >> 32) as u32),
            )
        }),
        DType::C64 => make(shape, pool, view, |x| {
            c64::new(f64::from_bits(u(x)), f64::from_bits(u(x).rotate_left(17)))
        }),
        DType::I32 => make(shape, pool, view, |x| u(x) as i32),
        DType::I64 => make(shape, pool, view, |x| u(x) as i64),
        DType::U8 => make(shape, pool, view, |x| x[0]),
        DType::Bool => make(shape, pool, view, |x| x[0] & 1 == 1),
    }
}

/// The elements' bytes in C order, read from the array itself (not through the writer).
fn elem_bytes(d: &DynArray) -> Vec<u8> {
    fn go<T: Element>(a: &Array<T>, put: impl Fn(T, &mut Vec<u8>)) -> Vec<u8> {
        let mut out = Vec::new();
        for x in a.to_vec().unwrap() {
            put(x, &mut out);
        }
        out
    }
    match d {
        DynArray::F32(a) => go(a, |x, o| o.extend(x.to_bits().to_le_bytes())),
        DynArray::F64(a) => go(a, |x, o| o.extend(x.to_bits().to_le_bytes())),
        DynArray::C32(a) => go(a, |x, o| {
            o.extend(x.re.to_bits().to_le_bytes());
            o.extend(x.im.to_bits().to_le_bytes())
        }),
        DynArray::C64(a) => go(a, |x, o| {
            o.extend(x.re.to_bits().to_le_bytes());
            o.extend(x.im.to_bits().to_le_bytes())
        }),
        DynArray::I32(a) => go(a, |x, o| o.extend(x.to_le_bytes())),
        DynArray::I64(a) => go(a, |x, o| o.extend(x.to_le_bytes())),
        DynArray::U8(a) => go(a, |x, o| o.push(x)),
        DynArray::Bool(a) => go(a, |x, o| o.push(x as u8)),
    }
}

fn small_shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..5, 0..4)
}

proptest! {
    #![proptest_config(config(3000))]

    /// Headers from the grammar: a valid file reads as the naive decoder says, any broken
    /// piece is refused with `Io`.
    #[test]
    fn npy_headers_from_the_grammar(case in npy_case()) {
        check_read(&case.bytes, case.sure.then_some(&case.want))?;
    }

    /// Grammar files with byte mutations: an error or an array, never a panic or a huge
    /// allocation.
    #[test]
    fn npy_mutated_bytes(case in npy_case(), ms in prop::collection::vec(mutation(), 1..5)) {
        check_read(&mutate(case.bytes, &ms), None)?;
    }

    /// Arbitrary bytes, with and without the magic.
    #[test]
    fn npy_arbitrary_bytes(magic in any::<bool>(), tail in prop::collection::vec(any::<u8>(), 0..300)) {
        let mut b = if magic { b"\x93NUMPY".to_vec() } else { Vec::new() };
        b.extend(tail);
        check_read(&b, None)?;
    }

    /// write then read gives the same dtype, shape and element bits, for every dtype, views
    /// included.
    #[test]
    fn npy_round_trip(
        d in prop::sample::select(DTYPES.to_vec()),
        shape in small_shape(),
        pool in prop::collection::vec(any::<u8>(), 1..512),
        view in any::<u8>(),
    ) {
        let a = array_of(d, &shape, &pool, view);
        let bytes = to_npy_bytes(&a).unwrap();
        let b = from_npy_bytes_dyn(&bytes, &Device::Cpu).unwrap();
        prop_assert_eq!(b.dtype(), d);
        prop_assert_eq!(b.shape(), a.shape());
        prop_assert_eq!(elem_bytes(&b), elem_bytes(&a));
    }
}

proptest! {
    // archives go through files: fewer cases
    #![proptest_config(config(300))]

    /// save_npz then load_npz: every member back, in order, with its bits.
    #[test]
    fn npz_round_trip(
        members in prop::collection::vec((prop::sample::select(DTYPES.to_vec()), small_shape(), any::<u8>()), 0..4),
        pool in prop::collection::vec(any::<u8>(), 1..256),
        compressed in any::<bool>(),
    ) {
        let arrays: Vec<(String, DynArray)> = members
            .iter()
            .enumerate()
            .map(|(i, (d, s, v))| (format!("m{i}_{d}"), array_of(*d, s, &pool, *v)))
            .collect();
        let list: Vec<(&str, &dyn NpyArray)> = arrays.iter().map(|(n, a)| (n.as_str(), a as &dyn NpyArray)).collect();
        let f = TempFile::new("rt");
        if compressed {
            cusci_core::npy::save_npz_compressed(&f.0, &list).unwrap();
        } else {
            save_npz(&f.0, &list).unwrap();
        }
        let back = load_npz(&f.0, &Device::Cpu).unwrap();
        prop_assert_eq!(back.len(), arrays.len());
        for ((n, a), (m, b)) in arrays.iter().zip(&back) {
            prop_assert_eq!(n, m);
            prop_assert_eq!(a.dtype(), b.dtype());
            prop_assert_eq!(a.shape(), b.shape());
            prop_assert_eq!(elem_bytes(a), elem_bytes(b));
        }
    }

    /// Archives of grammar members (valid or not), stored or deflated, then mutated (byte flips,
    /// truncation, lying size fields): errors or arrays, never a panic or a huge allocation; an
    /// unmutated archive of valid members reads as the naive decoder says.
    #[test]
    fn npz_members_and_mutations(
        cases in prop::collection::vec(npy_case(), 0..3),
        deflate in any::<bool>(),
        ms in prop::collection::vec(mutation(), 0..4),
        garbage in prop::collection::vec(any::<u8>(), 0..64),
        odd_names in any::<bool>(),
        lie in prop::option::of(prop_oneof![any::<u32>(), Just(u32::MAX), Just(1 << 30), Just(1 << 26)]),
    ) {
        let mut members: Vec<(String, Vec<u8>)> = cases
            .iter()
            .enumerate()
            .map(|(i, c)| (format!("a{i}.npy"), c.bytes.clone()))
            .collect();
        if odd_names {
            members.push(("dir/".into(), vec![]));
            members.push(("notes.txt".into(), garbage.clone()));
        }
        let clean = zip_of(&members, deflate);
        let mut bytes = mutate(clean.clone(), &ms);
        if let Some(v) = lie {
            lie_about_sizes(&mut bytes, v);
        }
        // deflated members may legitimately expand: bound by the members' own sizes
        let total: usize = members.iter().map(|(_, b)| b.len()).sum();
        let got = check_npz(&bytes, alloc_bound(bytes.len() + total))?;
        if ms.is_empty() && lie.is_none() {
            let all_valid = cases.iter().all(|c| c.want.is_some());
            let sure = cases.iter().all(|c| c.sure);
            match got {
                _ if !sure => {}
                Some(v) => {
                    prop_assert!(all_valid, "an archive with a broken member was read");
                    prop_assert_eq!(v.len(), cases.len());
                    for ((_, a), c) in v.iter().zip(&cases) {
                        let w = c.want.as_ref().unwrap();
                        prop_assert_eq!(a.dtype(), w.dtype);
                        prop_assert_eq!(a.shape(), &w.shape[..]);
                        if a.size() <= 4096 {
                            prop_assert_eq!(le_bytes(a), w.le.clone());
                        }
                    }
                }
                None => prop_assert!(!all_valid, "a valid archive was refused"),
            }
        }
    }

    /// Arbitrary bytes as an archive, with and without a zip signature.
    #[test]
    fn npz_arbitrary_bytes(sig in any::<bool>(), tail in prop::collection::vec(any::<u8>(), 0..400)) {
        let mut b = if sig { b"PK\x03\x04".to_vec() } else { Vec::new() };
        b.extend(tail);
        check_npz(&b, alloc_bound(b.len()))?;
    }
}

// ------------------------------------------------------------------------------------------
// Regressions: the cases the fuzzers found, kept as plain tests
// ------------------------------------------------------------------------------------------

/// A small `.npy` file by hand (version 1.0, header padded to 64 bytes).
fn npy_file(header: &str, data: &[u8]) -> Vec<u8> {
    let mut text = header.to_string();
    while (10 + text.len() + 1) % 64 != 0 {
        text.push(' ');
    }
    text.push('\n');
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend_from_slice(&(text.len() as u16).to_le_bytes());
    b.extend_from_slice(text.as_bytes());
    b.extend_from_slice(data);
    b
}

/// A zero-size shape whose other axes pass `isize::MAX` bytes was refused by `from_vec` with
/// `InvalidArgument` instead of the reader's `Io` (the reader checked the element count only).
#[test]
fn npy_zero_size_shape_too_big_for_its_dtype_is_io() {
    let b = npy_file(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4611686018427387904), }",
        &[],
    );
    let e = from_npy_bytes_dyn(&b, &Device::Cpu).unwrap_err();
    assert!(matches!(e, Error::Io { .. }), "{e}");
    // one byte per element fits
    let b = npy_file(
        "{'descr': '|u1', 'fortran_order': False, 'shape': (0, 4611686018427387904), }",
        &[],
    );
    assert_eq!(
        from_npy_bytes_dyn(&b, &Device::Cpu).unwrap().shape(),
        &[0, 1 << 62]
    );
}

/// An archive member whose entry claims 1 GiB, holding a header that announces 8 MiB and a few
/// bytes of data, made the reader reserve the 8 MiB (up to 4 GiB for a claim of u32::MAX, from
/// a 2 KB file) before finding the data short: the claimed size is no longer trusted for the
/// reservation.
#[test]
fn npz_member_claiming_a_huge_size_allocates_little() {
    let member = npy_file(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1048576, 2), }",
        &[7u8; 100],
    );
    let mut z = zip_of(&[("a.npy".into(), member)], false);
    lie_about_sizes(&mut z, 1 << 30);
    let f = TempFile::new("lie");
    std::fs::write(&f.0, &z).unwrap();
    let (r, peak) = peak_of(|| load_npz(&f.0, &Device::Cpu));
    assert!(matches!(r, Err(Error::Io { .. })), "{r:?}");
    assert!(peak < 2 << 20, "{peak} bytes allocated at once");
    let (r, peak) = peak_of(|| load_npz_array::<f32>(&f.0, "a", &Device::Cpu));
    assert!(matches!(r, Err(Error::Io { .. })), "{r:?}");
    assert!(peak < 2 << 20, "{peak} bytes allocated at once");
}
