//! `save_npz` / `load_npz` in SciPy's layout: files written by `scipy.sparse.save_npz`
//! (`tests/data/scipy_io_*.npz`, made by `tests/golden/gen.py sparse_io`) load on every device,
//! and the members of cusci's files are those SciPy's `load_npz` reads (names, dtypes, shapes,
//! the `format` string), checked without SciPy. Set `CUSCI_KEEP_NPZ=<dir>` to keep cusci's
//! files there and check them with SciPy:
//! `python3 -c "import scipy.sparse as s, glob; [print(f, s.load_npz(f).toarray()) for f in glob.glob('<dir>/*.npz')]"`.

use cusci_core::npy::{load_npz as load_raw, load_npz_array, DynArray};
use cusci_core::testing::devices;
use cusci_core::{c64, Array, DType, Device, Element, Error};
use cusci_sparse::{
    load_npz, load_npz_index, save_npz, BsrMatrix, CooMatrix, CsrMatrix, DiaMatrix, SaveNpz,
    SparseMatrix,
};
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/{name}"))
}

fn expect<T: Element>(name: &str) -> Array<T> {
    load_npz_array::<T>(data("scipy_io_expect.npz"), name, &Device::Cpu)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Bitwise the same array (shape and elements).
fn eq<T: Element + PartialEq + std::fmt::Debug>(a: &Array<T>, b: &Array<T>) {
    assert_eq!(a.shape(), b.shape());
    assert_eq!(a.to_vec().unwrap(), b.to_vec().unwrap());
}

fn dense<T: cusci_core::Float>(m: &SparseMatrix<T>) -> Array<T> {
    m.toarray().unwrap().to_device(&Device::Cpu).unwrap()
}

/// A file of the test, in `CUSCI_KEEP_NPZ` when set, else in the temporary folder.
fn out_path(name: &str) -> PathBuf {
    match std::env::var_os("CUSCI_KEEP_NPZ") {
        Some(d) => PathBuf::from(d).join(format!("{name}.npz")),
        None => std::env::temp_dir().join(format!("cusci_io_{}_{name}.npz", std::process::id())),
    }
}

fn cleanup(p: &PathBuf) {
    if std::env::var_os("CUSCI_KEEP_NPZ").is_none() {
        let _ = std::fs::remove_file(p);
    }
}

#[test]
fn scipy_files_load_on_every_device() {
    for dev in devices() {
        let csr = load_npz::<f64>(data("scipy_io_csr.npz"), &dev).unwrap();
        assert_eq!(csr.format(), "csr");
        assert_eq!(csr.shape(), (5, 7));
        assert_eq!(csr.device(), &dev);
        eq(&dense(&csr), &expect::<f64>("csr"));

        let csc = load_npz::<f32>(data("scipy_io_csc_f32.npz"), &dev).unwrap();
        assert_eq!(csc.format(), "csc");
        eq(&dense(&csc), &expect::<f32>("csc_f32"));

        let coo = load_npz::<c64>(data("scipy_io_coo.npz"), &dev).unwrap();
        assert_eq!(coo.format(), "coo");
        let SparseMatrix::Coo(c) = &coo else {
            panic!("not coo")
        };
        assert_eq!(c.nnz(), 4); // the repeated position is kept, as SciPy's coo
        eq(&dense(&coo), &expect::<c64>("coo"));

        let dia = load_npz::<f64>(data("scipy_io_dia.npz"), &dev).unwrap();
        assert_eq!(dia.format(), "dia");
        let SparseMatrix::Dia(d) = &dia else {
            panic!("not dia")
        };
        assert_eq!(d.offsets(), &[-1, 0, 2]);
        eq(&dense(&dia), &expect::<f64>("dia"));

        let bsr = load_npz::<f64>(data("scipy_io_bsr.npz"), &dev).unwrap();
        assert_eq!(bsr.format(), "bsr");
        let SparseMatrix::Bsr(b) = &bsr else {
            panic!("not bsr")
        };
        assert_eq!(b.blocksize(), (2, 3));
        eq(&dense(&bsr), &expect::<f64>("bsr"));

        // int64 indices: read as i32 (they fit) and as i64
        let w = load_npz::<f64>(data("scipy_io_csr_i64.npz"), &dev).unwrap();
        eq(&dense(&w), &expect::<f64>("csr_i64"));
        let w64 = load_npz_index::<f64, i64>(data("scipy_io_csr_i64.npz"), &dev).unwrap();
        let SparseMatrix::Csr(w64) = w64 else {
            panic!("not csr")
        };
        assert_eq!(w64.indptr().dtype(), DType::I64);
        eq(
            &w64.toarray().unwrap().to_device(&Device::Cpu).unwrap(),
            &expect::<f64>("csr_i64"),
        );
    }
}

#[test]
fn load_npz_errors() {
    let dev = Device::Cpu;
    // data of another type: no conversion
    assert!(matches!(
        load_npz::<f64>(data("scipy_io_csc_f32.npz"), &dev),
        Err(Error::UnsupportedDType { .. })
    ));
    // an archive without `format` (SciPy: "does not contain a sparse array or matrix")
    assert!(matches!(
        load_npz::<f64>(data("scipy_io_expect.npz"), &dev),
        Err(Error::InvalidArgument { .. })
    ));
    // not an archive, no file
    assert!(matches!(
        load_npz::<f64>(data("../io.rs"), &dev),
        Err(Error::Io { .. })
    ));
    assert!(matches!(
        load_npz::<f64>(data("no_such_file.npz"), &dev),
        Err(Error::Io { .. })
    ));
}

/// The members of a cusci file: name -> array, and the `format` string read from its raw bytes.
fn members(p: &PathBuf) -> Vec<(String, DynArray)> {
    // the `format` member is a byte string, which the core reader refuses: read the others
    let z = std::fs::read(p).unwrap();
    assert!(z.starts_with(b"PK"), "not a zip archive");
    let names = cusci_core::npy::npz_names(p).unwrap();
    assert!(names.iter().any(|n| n == "format"), "{names:?}");
    assert!(names.iter().any(|n| n == "_is_array"), "{names:?}");
    // the core reader stops at `format`; the raw bytes of that member hold b"csr" etc.
    match load_raw(p, &Device::Cpu) {
        Err(Error::Io { detail, .. }) => assert!(detail.contains("S3"), "{detail}"),
        other => panic!("the core reader read a string member: {other:?}"),
    }
    names
        .into_iter()
        .filter(|n| n != "format")
        .map(|n| {
            let a = match n.as_str() {
                "_is_array" => load_npz_array::<bool>(p, &n, &Device::Cpu).map(DynArray::from),
                "shape" => load_npz_array::<i64>(p, &n, &Device::Cpu).map(DynArray::from),
                _ => load_npz_array::<i32>(p, &n, &Device::Cpu)
                    .map(DynArray::from)
                    .or_else(|_| load_npz_array::<f64>(p, &n, &Device::Cpu).map(DynArray::from))
                    .or_else(|_| load_npz_array::<f32>(p, &n, &Device::Cpu).map(DynArray::from))
                    .or_else(|_| load_npz_array::<c64>(p, &n, &Device::Cpu).map(DynArray::from))
                    .or_else(|_| load_npz_array::<i64>(p, &n, &Device::Cpu).map(DynArray::from)),
            }
            .unwrap_or_else(|e| panic!("{n}: {e}"));
            (n, a)
        })
        .collect()
}

/// Checks the layout SciPy's `load_npz` expects: the named members with their dtypes and
/// shapes, `shape` int64 [m, n], `_is_array` a 0-d True, the `format` string.
fn check_layout(
    p: &PathBuf,
    format: &str,
    shape: (usize, usize),
    want: &[(&str, DType, &[usize])],
) {
    // the `format` member: a 0-d `|S3` byte string holding the format's name
    let mut z = npyz::zip::ZipArchive::new(std::fs::File::open(p).unwrap()).unwrap();
    let mut f = z.by_name("format.npy").unwrap();
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut f, &mut bytes).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.starts_with("\u{FFFD}NUMPY"), "{text}");
    assert!(
        text.contains(&format!("'descr': '|S{}'", format.len())),
        "{text}"
    );
    assert!(text.contains("'shape': ()"), "{text}");
    assert!(bytes.ends_with(format!("\n{format}").as_bytes()), "{text}");
    assert_eq!(
        (bytes.len() - format.len()) % 64,
        0,
        "header not 64-aligned"
    );
    let ms = members(p);
    let get = |n: &str| {
        ms.iter()
            .find(|(k, _)| k == n)
            .unwrap_or_else(|| panic!("no member {n}"))
            .1
            .clone()
    };
    let s = get("shape");
    assert_eq!(s.dtype(), DType::I64);
    assert_eq!(
        s.into_array::<i64>().unwrap().to_vec().unwrap(),
        vec![shape.0 as i64, shape.1 as i64]
    );
    let ia = get("_is_array");
    assert_eq!(ia.shape(), &[] as &[usize]);
    assert!(ia.into_array::<bool>().unwrap().item().unwrap());
    for &(n, dt, sh) in want {
        let a = get(n);
        assert_eq!(a.dtype(), dt, "{n}");
        assert_eq!(a.shape(), sh, "{n}");
    }
    assert_eq!(
        ms.len(),
        want.len() + 2,
        "members {:?}",
        ms.iter().map(|m| &m.0).collect::<Vec<_>>()
    );
}

fn roundtrip<T: cusci_core::Float>(
    m: &dyn SaveNpz,
    name: &str,
    compressed: bool,
    dev: &Device,
) -> SparseMatrix<T> {
    let p = out_path(name);
    save_npz(&p, m, compressed).unwrap();
    let back = load_npz::<T>(&p, dev).unwrap();
    cleanup(&p);
    back
}

#[test]
fn cusci_files_have_scipy_layout_and_round_trip() {
    for dev in devices() {
        let tag = if matches!(dev, Device::Cpu) {
            "cpu"
        } else {
            "gpu"
        };
        let a = load_npz::<f64>(data("scipy_io_csr.npz"), &dev)
            .unwrap()
            .tocsr()
            .unwrap();
        let want = a.toarray().unwrap().to_device(&Device::Cpu).unwrap();
        let nnz = a.nnz();

        let p = out_path(&format!("csr_{tag}"));
        save_npz(&p, &a, true).unwrap();
        check_layout(
            &p,
            "csr",
            (5, 7),
            &[
                ("indices", DType::I32, &[nnz]),
                ("indptr", DType::I32, &[6]),
                ("data", DType::F64, &[nnz]),
            ],
        );
        let back = load_npz::<f64>(&p, &dev).unwrap();
        assert_eq!(back.format(), "csr");
        eq(&dense(&back), &want);
        cleanup(&p);

        let csc = a.tocsc().unwrap();
        let p = out_path(&format!("csc_{tag}"));
        save_npz(&p, &csc, false).unwrap();
        check_layout(
            &p,
            "csc",
            (5, 7),
            &[
                ("indices", DType::I32, &[nnz]),
                ("indptr", DType::I32, &[8]),
                ("data", DType::F64, &[nnz]),
            ],
        );
        cleanup(&p);
        let back = roundtrip::<f64>(&csc, &format!("csc2_{tag}"), false, &dev);
        assert_eq!(back.format(), "csc");
        eq(&dense(&back), &want);

        let coo = a.tocoo().unwrap().with_index::<i64>().unwrap();
        let p = out_path(&format!("coo_{tag}"));
        save_npz(&p, &coo, true).unwrap();
        check_layout(
            &p,
            "coo",
            (5, 7),
            &[
                ("row", DType::I64, &[nnz]),
                ("col", DType::I64, &[nnz]),
                ("data", DType::F64, &[nnz]),
            ],
        );
        cleanup(&p);
        let back = roundtrip::<f64>(&coo, &format!("coo2_{tag}"), true, &dev);
        assert_eq!(back.format(), "coo");
        eq(&dense(&back), &want);

        let dia = DiaMatrix::new(
            Array::from_vec((0..10).map(|v| v as f64).collect(), &[2, 5], &dev).unwrap(),
            &[-2, 1],
            (4, 5),
        )
        .unwrap();
        let p = out_path(&format!("dia_{tag}"));
        save_npz(&p, &dia, true).unwrap();
        check_layout(
            &p,
            "dia",
            (4, 5),
            &[("offsets", DType::I32, &[2]), ("data", DType::F64, &[2, 5])],
        );
        cleanup(&p);
        let back = roundtrip::<f64>(&dia, &format!("dia2_{tag}"), true, &dev);
        assert_eq!(back.format(), "dia");
        eq(
            &dense(&back),
            &dia.toarray().unwrap().to_device(&Device::Cpu).unwrap(),
        );

        let bsr = a.tobsr((5, 1)).unwrap();
        let nb = bsr.nblocks();
        let p = out_path(&format!("bsr_{tag}"));
        save_npz(&p, &bsr, true).unwrap();
        check_layout(
            &p,
            "bsr",
            (5, 7),
            &[
                ("indices", DType::I32, &[nb]),
                ("indptr", DType::I32, &[2]),
                ("data", DType::F64, &[nb, 5, 1]),
            ],
        );
        cleanup(&p);
        let back = roundtrip::<f64>(&bsr, &format!("bsr2_{tag}"), false, &dev);
        assert_eq!(back.format(), "bsr");
        eq(&dense(&back), &want);

        // complex and single precision, an empty matrix
        let z = CooMatrix::new(
            Array::from_vec(vec![c64::new(1.0, -2.0)], &[1], &dev).unwrap(),
            Array::from_vec(vec![2i32], &[1], &dev).unwrap(),
            Array::from_vec(vec![0i32], &[1], &dev).unwrap(),
            (3, 1),
        )
        .unwrap();
        let back = roundtrip::<c64>(&z, &format!("cplx_{tag}"), true, &dev);
        assert_eq!(
            back.toarray().unwrap().to_vec().unwrap(),
            vec![c64::new(0.0, 0.0), c64::new(0.0, 0.0), c64::new(1.0, -2.0)]
        );
        let e = CsrMatrix::<f32>::from_dense(&Array::zeros(&[0, 3], &dev).unwrap()).unwrap();
        let back = roundtrip::<f32>(&e, &format!("empty_{tag}"), true, &dev);
        assert_eq!(back.shape(), (0, 3));
        // a SparseMatrix saves as its format
        let s: SparseMatrix<f64> =
            BsrMatrix::<f64>::from_dense(&want.to_device(&dev).unwrap(), (1, 7))
                .unwrap()
                .into();
        let back = roundtrip::<f64>(&s, &format!("enum_{tag}"), true, &dev);
        assert_eq!(back.format(), "bsr");
        eq(&dense(&back), &want);
    }
}
