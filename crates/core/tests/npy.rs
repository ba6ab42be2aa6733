//! `.npy`/`.npz` I/O: round trips of every element type and shape on every device, golden files
//! written by NumPy (`tests/golden/gen.py`, section `core`), and malformed files that must give
//! errors, never panics.

use cusci_core::npy::{
    from_npy_bytes, from_npy_bytes_dyn, load_npy, load_npy_dyn, load_npz, load_npz_array,
    npz_names, save_npy, save_npy_dyn, save_npz, save_npz_compressed, to_npy_bytes, DynArray,
    NpyArray,
};
use cusci_core::testing::devices;
use cusci_core::{c32, c64, Array, DType, Device, Element, Error};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

const SHAPES: [&[usize]; 4] = [&[], &[0], &[3], &[2, 3, 4]];

/// A fresh folder under the system's temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let p = std::env::temp_dir().join(format!(
            "cusci-npy-{tag}-{}-{}-{nanos}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Distinct, exactly representable values of `T` for flat index i.
fn values<T: Element>(n: usize) -> Vec<T> {
    (0..n)
        .map(|i| {
            let i = i as i64;
            match T::DTYPE {
                DType::Bool => T::from_i64(i % 3),
                DType::U8 => T::from_i64(i * 37 + 5),
                DType::I32 => T::from_i64(i * 100_003 - 1_000_000),
                DType::I64 => T::from_i64(i * (1 << 40) - (1 << 45)),
                _ => T::from_c64(c64::new(i as f64 * 0.75 - 4.0, 2.5 - i as f64 * 0.125)),
            }
        })
        .collect()
}

fn is_io(e: &Error) -> bool {
    matches!(e, Error::Io { .. })
}

/// Asserts `r` is an `Error::Io` and returns its detail.
fn io_detail<T: std::fmt::Debug>(r: cusci_core::Result<T>) -> String {
    match r {
        Err(Error::Io { detail, .. }) => detail,
        other => panic!("expected Error::Io, got {other:?}"),
    }
}

// ------------------------------------------------------------------------------------------
// Round trips
// ------------------------------------------------------------------------------------------

fn round_trip_npy<T: Element>(dev: &Device, dir: &TempDir) {
    for shape in SHAPES {
        let n: usize = shape.iter().product();
        let a = Array::<T>::from_vec(values(n), shape, dev).unwrap();
        let p = dir.path(&format!("{}_{}.npy", T::DTYPE, shape.len()));
        save_npy(&p, &a).unwrap();
        let b = load_npy::<T>(&p, dev).unwrap();
        assert_eq!(b.shape(), shape, "{} {shape:?}", T::DTYPE);
        assert_eq!(b.device(), dev);
        assert_eq!(
            b.to_vec().unwrap(),
            a.to_vec().unwrap(),
            "{} {shape:?}",
            T::DTYPE
        );
        // dynamically typed read, and the in-memory form
        let d = load_npy_dyn(&p, dev).unwrap();
        assert_eq!((d.dtype(), d.shape()), (T::DTYPE, shape));
        let bytes = to_npy_bytes(&a).unwrap();
        assert_eq!(bytes, std::fs::read(&p).unwrap());
        let c = from_npy_bytes::<T>(&bytes, dev).unwrap();
        assert_eq!(c.to_vec().unwrap(), a.to_vec().unwrap());
        assert_eq!(from_npy_bytes_dyn(&bytes, dev).unwrap().dtype(), T::DTYPE);
        let e = d.into_array::<T>().unwrap();
        assert_eq!(e.to_vec().unwrap(), a.to_vec().unwrap());
    }
}

#[test]
fn npy_round_trip_every_dtype_and_shape() {
    let dir = TempDir::new("rt");
    for dev in devices() {
        eprintln!("-- on {dev}");
        round_trip_npy::<f32>(&dev, &dir);
        round_trip_npy::<f64>(&dev, &dir);
        round_trip_npy::<c32>(&dev, &dir);
        round_trip_npy::<c64>(&dev, &dir);
        round_trip_npy::<i32>(&dev, &dir);
        round_trip_npy::<i64>(&dev, &dir);
        round_trip_npy::<u8>(&dev, &dir);
        round_trip_npy::<bool>(&dev, &dir);
    }
}

/// Every dtype × shape in one archive, as (name, array).
fn archive_members(dev: &Device) -> Vec<(String, DynArray)> {
    fn add<T: Element>(out: &mut Vec<(String, DynArray)>, dev: &Device) {
        for (k, shape) in SHAPES.iter().enumerate() {
            let n: usize = shape.iter().product();
            let a = Array::<T>::from_vec(values(n), shape, dev).unwrap();
            out.push((format!("{}_s{k}", T::DTYPE), DynArray::from(a)));
        }
    }
    let mut out = Vec::new();
    add::<f32>(&mut out, dev);
    add::<f64>(&mut out, dev);
    add::<c32>(&mut out, dev);
    add::<c64>(&mut out, dev);
    add::<i32>(&mut out, dev);
    add::<i64>(&mut out, dev);
    add::<u8>(&mut out, dev);
    add::<bool>(&mut out, dev);
    out
}

fn same(a: &DynArray, b: &DynArray) -> bool {
    fn host<T: Element>(d: &DynArray) -> Option<Vec<T>> {
        d.as_array::<T>().map(|a| a.to_vec().unwrap())
    }
    a.dtype() == b.dtype()
        && a.shape() == b.shape()
        && match a.dtype() {
            DType::F32 => host::<f32>(a) == host::<f32>(b),
            DType::F64 => host::<f64>(a) == host::<f64>(b),
            DType::C32 => host::<c32>(a) == host::<c32>(b),
            DType::C64 => host::<c64>(a) == host::<c64>(b),
            DType::I32 => host::<i32>(a) == host::<i32>(b),
            DType::I64 => host::<i64>(a) == host::<i64>(b),
            DType::U8 => host::<u8>(a) == host::<u8>(b),
            DType::Bool => host::<bool>(a) == host::<bool>(b),
        }
}

#[test]
fn npz_round_trip_every_dtype_and_shape() {
    let dir = TempDir::new("npz");
    for dev in devices() {
        eprintln!("-- on {dev}");
        let members = archive_members(&dev);
        let list: Vec<(&str, &dyn NpyArray)> = members
            .iter()
            .map(|(n, a)| (n.as_str(), a as &dyn NpyArray))
            .collect();
        for compressed in [false, true] {
            let p = dir.path(&format!("all_{compressed}.npz"));
            if compressed {
                save_npz_compressed(&p, &list).unwrap();
            } else {
                save_npz(&p, &list).unwrap();
            }
            let back = load_npz(&p, &dev).unwrap();
            assert_eq!(back.len(), members.len());
            for ((n0, a0), (n1, a1)) in members.iter().zip(&back) {
                assert_eq!(n0, n1, "names come back in file order");
                assert!(
                    same(a0, a1),
                    "member {n0} differs (compressed={compressed})"
                );
                assert_eq!(a1.device(), &dev);
            }
            let names = npz_names(&p).unwrap();
            assert_eq!(
                names,
                members.iter().map(|m| m.0.clone()).collect::<Vec<_>>()
            );
            let x = load_npz_array::<c32>(&p, "complex64_s3", &dev).unwrap();
            assert_eq!(x.shape(), &[2, 3, 4]);
            assert_eq!(x.to_vec().unwrap(), values::<c32>(24));
        }
    }
}

#[test]
fn typed_arrays_mix_in_one_archive() {
    let dir = TempDir::new("mix");
    let dev = Device::cpu();
    let a = Array::<f32>::from_vec(vec![1.0, 2.0], &[2], &dev).unwrap();
    let m = Array::<bool>::from_vec(vec![true], &[], &dev).unwrap();
    let p = dir.path("mix.npz");
    save_npz(&p, &[("a", &a), ("mask", &m)]).unwrap();
    assert!(load_npz_array::<bool>(&p, "mask", &dev)
        .unwrap()
        .item()
        .unwrap());
    assert_eq!(
        load_npz_array::<f32>(&p, "a", &dev)
            .unwrap()
            .to_vec()
            .unwrap(),
        vec![1.0, 2.0]
    );
}

#[test]
fn views_are_written_in_logical_order() {
    let dir = TempDir::new("views");
    for dev in devices() {
        let a = Array::<f64>::from_vec(values(24), &[2, 3, 4], &dev).unwrap();
        let views = [
            a.t(),
            a.slice_axis(2, Some(1), Some(4), 2).unwrap(),
            a.index_axis(0, 1).unwrap(),
            Array::<f64>::from_vec(vec![5.0], &[1], &dev)
                .unwrap()
                .broadcast_to(&[3, 2])
                .unwrap(),
        ];
        for (k, v) in views.iter().enumerate() {
            let p = dir.path(&format!("view{k}.npy"));
            save_npy(&p, v).unwrap();
            let b = load_npy::<f64>(&p, &dev).unwrap();
            assert_eq!(b.shape(), v.shape());
            assert_eq!(
                b.to_vec().unwrap(),
                v.to_vec().unwrap(),
                "view {k} on {dev}"
            );
        }
    }
}

#[test]
fn special_floats_keep_their_bits() {
    let dev = Device::cpu();
    let f = vec![
        f32::NAN,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::from_bits(0x7fc0_1234),
        1e-45,
    ];
    let a = Array::<f32>::from_vec(f.clone(), &[6], &dev).unwrap();
    let b = from_npy_bytes::<f32>(&to_npy_bytes(&a).unwrap(), &dev)
        .unwrap()
        .to_vec()
        .unwrap();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&b), bits(&f));
    let z = vec![
        c64::new(f64::NAN, -0.0),
        c64::new(f64::NEG_INFINITY, f64::MIN_POSITIVE),
    ];
    let a = Array::<c64>::from_vec(z.clone(), &[2], &dev).unwrap();
    let b = from_npy_bytes::<c64>(&to_npy_bytes(&a).unwrap(), &dev)
        .unwrap()
        .to_vec()
        .unwrap();
    let bits = |v: &[c64]| {
        v.iter()
            .map(|x| (x.re.to_bits(), x.im.to_bits()))
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(&b), bits(&z));
}

#[test]
fn written_header_is_numpy_format() {
    let dev = Device::cpu();
    let cases: [(Box<dyn NpyArray>, &str, &str); 4] = [
        (
            Box::new(Array::<c32>::zeros(&[2, 3], &dev).unwrap()),
            "'<c8'",
            "(2, 3)",
        ),
        (
            Box::new(Array::<u8>::zeros(&[3], &dev).unwrap()),
            "'|u1'",
            "(3,)",
        ),
        (
            Box::new(Array::<bool>::zeros(&[], &dev).unwrap()),
            "'|b1'",
            "()",
        ),
        (
            Box::new(Array::<i64>::zeros(&[0, 2], &dev).unwrap()),
            "'<i8'",
            "(0, 2)",
        ),
    ];
    for (a, descr, shape) in cases {
        let b = to_npy_bytes(a.as_ref()).unwrap();
        assert_eq!(&b[..8], b"\x93NUMPY\x01\x00");
        let hlen = u16::from_le_bytes([b[8], b[9]]) as usize;
        assert_eq!((10 + hlen) % 16, 0, "data is aligned");
        let text = std::str::from_utf8(&b[10..10 + hlen]).unwrap();
        assert!(text.contains(&format!("'descr': {descr}")), "{text}");
        assert!(text.contains("'fortran_order': False"), "{text}");
        // NumPy writes (2, 3) and (3,); npyz (2, 3, ) and (3, ): the same Python tuples
        let norm = |s: &str| s.replace(' ', "").replace(",)", ")");
        assert!(
            norm(text).contains(&norm(&format!("'shape': {shape}"))),
            "{text}"
        );
        assert!(text.ends_with('\n'));
        let n = a.shape().iter().product::<usize>() * a.dtype().size();
        assert_eq!(b.len(), 10 + hlen + n);
    }
}

// ------------------------------------------------------------------------------------------
// Golden files written by NumPy
// ------------------------------------------------------------------------------------------

fn load_golden<T: Element>(name: &str, dev: &Device, shape: &[usize]) -> Vec<T> {
    let a = load_npy::<T>(data(name), dev).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(a.shape(), shape, "{name}");
    assert_eq!(a.device(), dev);
    assert!(a.is_contiguous());
    a.to_vec().unwrap()
}

fn idx(n: usize) -> impl Iterator<Item = f64> {
    (0..n).map(|i| i as f64)
}

#[test]
fn golden_one_file_per_dtype() {
    for dev in devices() {
        eprintln!("-- on {dev}");
        let want: Vec<f32> = idx(12).map(|i| (i * 0.5 - 2.0) as f32).collect();
        assert_eq!(load_golden::<f32>("npy_f32.npy", &dev, &[3, 4]), want);
        let want: Vec<f64> = idx(24).map(|i| i / 8.0 - 1.0).collect();
        assert_eq!(load_golden::<f64>("npy_f64.npy", &dev, &[2, 3, 4]), want);
        let want: Vec<c32> = idx(6)
            .map(|i| c32::new(i as f32, (-2.0 * i) as f32))
            .collect();
        assert_eq!(load_golden::<c32>("npy_c64.npy", &dev, &[2, 3]), want);
        let want: Vec<c64> = idx(5).map(|i| c64::new(i / 4.0, i + 0.5)).collect();
        assert_eq!(load_golden::<c64>("npy_c128.npy", &dev, &[5]), want);
        let want: Vec<i32> = (0..12).map(|i| (i - 6) * 1000).collect();
        assert_eq!(load_golden::<i32>("npy_i32.npy", &dev, &[4, 3]), want);
        let want: Vec<i64> = (0..10).map(|i| i * (1 << 40) - (1 << 42)).collect();
        assert_eq!(load_golden::<i64>("npy_i64.npy", &dev, &[10]), want);
        let want: Vec<u8> = (0..20u32).map(|i| (i * 13 % 256) as u8).collect();
        assert_eq!(load_golden::<u8>("npy_u8.npy", &dev, &[4, 5]), want);
        let want: Vec<bool> = (0..12).map(|i| i % 3 == 0).collect();
        assert_eq!(load_golden::<bool>("npy_bool.npy", &dev, &[3, 4]), want);
    }
}

#[test]
fn golden_layouts_byte_orders_and_edge_shapes() {
    for dev in devices() {
        eprintln!("-- on {dev}");
        // Fortran order comes back in C order
        let want: Vec<f64> = idx(24).collect();
        assert_eq!(
            load_golden::<f64>("npy_f64_fortran.npy", &dev, &[2, 3, 4]),
            want
        );
        let want: Vec<i32> = (0..15).map(|i| i * 7 - 50).collect();
        assert_eq!(
            load_golden::<i32>("npy_i32_fortran.npy", &dev, &[3, 5]),
            want
        );
        // big-endian
        let want: Vec<f64> = idx(7).map(|i| i * 1.5 - 3.0).collect();
        assert_eq!(load_golden::<f64>("npy_f64_be.npy", &dev, &[7]), want);
        let want: Vec<i32> = (0..6).map(|i| (i - 3) * 65537).collect();
        assert_eq!(load_golden::<i32>("npy_i32_be.npy", &dev, &[2, 3]), want);
        let want: Vec<c32> = idx(4)
            .map(|i| c32::new((i + 1.0) as f32, -i as f32))
            .collect();
        assert_eq!(load_golden::<c32>("npy_c64_be.npy", &dev, &[4]), want);
        // 0-d and empty
        assert_eq!(load_golden::<f64>("npy_f64_0d.npy", &dev, &[]), vec![3.25]);
        assert_eq!(
            load_golden::<c64>("npy_c128_0d.npy", &dev, &[]),
            vec![c64::new(-1.5, 2.0)]
        );
        assert!(load_golden::<f32>("npy_f32_empty.npy", &dev, &[0, 3]).is_empty());
    }
}

#[test]
fn golden_data_bytes_match_what_cusci_writes() {
    // the data section of a C-order little-endian NumPy file is byte-for-byte what cusci writes
    let dev = Device::cpu();
    for name in [
        "npy_f32.npy",
        "npy_f64.npy",
        "npy_c64.npy",
        "npy_c128.npy",
        "npy_i32.npy",
        "npy_i64.npy",
        "npy_u8.npy",
        "npy_bool.npy",
        "npy_f64_0d.npy",
    ] {
        let numpy = std::fs::read(data(name)).unwrap();
        let a = load_npy_dyn(data(name), &dev).unwrap();
        let ours = to_npy_bytes(&a).unwrap();
        let n = a.shape().iter().product::<usize>() * a.dtype().size();
        assert_eq!(&ours[ours.len() - n..], &numpy[numpy.len() - n..], "{name}");
    }
}

#[test]
fn golden_unsupported_dtype_is_an_error() {
    let dev = Device::cpu();
    let d = io_detail(load_npy_dyn(data("npy_i16.npy"), &dev));
    assert!(d.contains("<i2"), "{d}");
    assert!(is_io(
        &load_npy::<i32>(data("npy_i16.npy"), &dev).unwrap_err()
    ));
}

fn check_golden_npz(name: &str, dev: &Device) {
    let p = data(name);
    let all = load_npz(&p, dev).unwrap();
    let names: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "a",
            "b",
            "c",
            "d",
            "e",
            "f",
            "noise",
            "noise_sum",
            "noise_first"
        ],
        "{name}"
    );
    assert_eq!(npz_names(&p).unwrap(), names);
    let get = |k: &str| all.iter().find(|(n, _)| n == k).unwrap().1.clone();
    let a = get("a").into_array::<f32>().unwrap();
    assert_eq!(a.shape(), &[2, 3]);
    assert_eq!(
        a.to_vec().unwrap(),
        idx(6).map(|i| (i + 0.25) as f32).collect::<Vec<_>>()
    );
    let b = get("b").into_array::<i64>().unwrap();
    assert_eq!(b.to_vec().unwrap(), vec![0, -3, -6, -9]);
    let c = get("c").into_array::<c64>().unwrap();
    assert_eq!((c.ndim(), c.item().unwrap()), (0, c64::new(2.5, -0.5)));
    let d = get("d").into_array::<bool>().unwrap();
    assert_eq!(d.to_vec().unwrap(), vec![true, false, false, true]);
    let e = get("e").into_array::<u8>().unwrap();
    assert_eq!(e.shape(), &[0]);
    let f = get("f").into_array::<i32>().unwrap();
    assert_eq!(
        (f.shape(), f.to_vec().unwrap()),
        (&[2usize, 3][..], vec![0, 2, 4, 6, 8, 10])
    );
    let noise = get("noise").into_array::<f64>().unwrap().to_vec().unwrap();
    assert_eq!(noise.len(), 32);
    let sum = get("noise_sum")
        .into_array::<f64>()
        .unwrap()
        .item()
        .unwrap();
    assert!(
        (noise.iter().sum::<f64>() - sum).abs() <= 1e-12 * (1.0 + sum.abs()),
        "{name}"
    );
    let first = get("noise_first")
        .into_array::<f64>()
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(first, noise[..3]);
    // typed access to one member
    let a2 = load_npz_array::<f32>(&p, "a", dev).unwrap();
    assert_eq!(a2.to_vec().unwrap(), a.to_vec().unwrap());
    match load_npz_array::<f64>(&p, "a", dev) {
        Err(Error::UnsupportedDType { op, dtype }) => {
            assert_eq!(dtype, DType::F32);
            assert!(op.contains("float64") && op.contains("a.npy"), "{op}");
        }
        other => panic!("expected UnsupportedDType, got {other:?}"),
    }
    assert!(matches!(
        load_npz_array::<f32>(&p, "missing", dev),
        Err(Error::InvalidArgument { .. })
    ));
}

#[test]
fn golden_npz_stored_and_compressed() {
    for dev in devices() {
        eprintln!("-- on {dev}");
        check_golden_npz("npz_arrays.npz", &dev);
        check_golden_npz("npz_arrays_compressed.npz", &dev);
    }
}

// ------------------------------------------------------------------------------------------
// Errors: malformed files, wrong requests
// ------------------------------------------------------------------------------------------

#[test]
fn wrong_dtype_request_names_both_types() {
    let dev = Device::cpu();
    match load_npy::<f32>(data("npy_f64.npy"), &dev) {
        Err(Error::UnsupportedDType { op, dtype }) => {
            assert_eq!(dtype, DType::F64);
            assert!(op.contains("float32") && op.contains("npy_f64.npy"), "{op}");
        }
        other => panic!("expected UnsupportedDType, got {other:?}"),
    }
    let bytes = std::fs::read(data("npy_u8.npy")).unwrap();
    assert!(matches!(
        from_npy_bytes::<bool>(&bytes, &dev),
        Err(Error::UnsupportedDType {
            dtype: DType::U8,
            ..
        })
    ));
    let d = load_npy_dyn(data("npy_i64.npy"), &dev).unwrap();
    assert!(d.as_array::<i32>().is_none());
    assert!(matches!(
        d.into_array::<i32>(),
        Err(Error::UnsupportedDType {
            dtype: DType::I64,
            ..
        })
    ));
}

#[test]
fn missing_and_unwritable_paths_are_io_errors() {
    let dir = TempDir::new("paths");
    let dev = Device::cpu();
    match load_npy::<f64>(dir.path("nope.npy"), &dev) {
        Err(Error::Io { op, path, .. }) => {
            assert_eq!(op, "load_npy");
            assert!(path.ends_with("nope.npy"));
        }
        other => panic!("expected Io, got {other:?}"),
    }
    assert!(is_io(&load_npz(dir.path("nope.npz"), &dev).unwrap_err()));
    let a = Array::<f64>::zeros(&[2], &dev).unwrap();
    match save_npy(dir.path("no/such/dir/a.npy"), &a) {
        Err(Error::Io { op, .. }) => assert_eq!(op, "save_npy"),
        other => panic!("expected Io, got {other:?}"),
    }
    assert!(is_io(
        &save_npz(dir.path("no/such/dir/a.npz"), &[("a", &a)]).unwrap_err()
    ));
    // names
    assert!(matches!(
        save_npz(dir.path("dup.npz"), &[("a", &a), ("a", &a)]),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        save_npz(dir.path("empty.npz"), &[("", &a)]),
        Err(Error::InvalidArgument { .. })
    ));
}

#[test]
fn truncated_npy_files_are_errors() {
    let dir = TempDir::new("trunc");
    let dev = Device::cpu();
    let full = std::fs::read(data("npy_f64.npy")).unwrap();
    let header_end = full.len() - 24 * 8;
    for cut in [
        0,
        3,
        6,
        8,
        9,
        10,
        40,
        header_end - 1,
        header_end,
        header_end + 5,
        full.len() - 1,
    ] {
        let p = dir.path(&format!("cut{cut}.npy"));
        std::fs::write(&p, &full[..cut]).unwrap();
        let d = io_detail(load_npy::<f64>(&p, &dev));
        assert!(!d.is_empty());
        assert!(
            is_io(&from_npy_bytes_dyn(&full[..cut], &dev).unwrap_err()),
            "cut {cut}"
        );
    }
    let d = io_detail(from_npy_bytes::<f64>(&full[..full.len() - 1], &dev));
    assert!(d.contains("truncated"), "{d}");
}

/// A version 1.0 `.npy` stream with `header` (padded) and `data`.
fn npy_with_header(header: &str, data: &[u8]) -> Vec<u8> {
    let mut text = header.to_string();
    while (10 + text.len() + 1) % 64 != 0 {
        text.push(' ');
    }
    text.push('\n');
    let mut v = b"\x93NUMPY\x01\x00".to_vec();
    v.extend_from_slice(&(text.len() as u16).to_le_bytes());
    v.extend_from_slice(text.as_bytes());
    v.extend_from_slice(data);
    v
}

#[test]
fn malformed_headers_are_errors() {
    let dev = Device::cpu();
    // sanity: the helper makes valid files
    let ok = npy_with_header(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
        &[0; 16],
    );
    assert_eq!(
        from_npy_bytes::<f64>(&ok, &dev).unwrap().to_vec().unwrap(),
        vec![0.0, 0.0]
    );
    let bad_headers = [
        "hello",
        "{'descr': '<f8', 'fortran_order': False}",
        "{'descr': '<f8', 'shape': (2,)}",
        "{'descr': 'garbage', 'fortran_order': False, 'shape': (2,), }",
        "{'descr': '<f8', 'fortran_order': 'no', 'shape': (2,), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (-2,), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (2.5,), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 1099511627776, 1099511627776), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,), }",
        "{'descr': '<f8', 'fortran_order': True, 'shape': (4294967296, 4294967296), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }",
        "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }",
        "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }",
        "{'descr': [('x', '<f8')], 'fortran_order': False, 'shape': (2,), }",
        "{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }",
    ];
    for h in bad_headers {
        let f = npy_with_header(h, &[0; 16]);
        let r = from_npy_bytes_dyn(&f, &dev);
        assert!(matches!(r, Err(Error::Io { .. })), "{h}: {r:?}");
    }
    let deep = format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': {}2{}, }}",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    assert!(is_io(
        &from_npy_bytes_dyn(&npy_with_header(&deep, &[]), &dev).unwrap_err()
    ));
    // byte-level damage
    let mut wrong_magic = ok.clone();
    wrong_magic[1] = b'X';
    let mut bad_version = ok.clone();
    bad_version[6] = 9;
    let mut huge_len = ok.clone();
    huge_len[8] = 0xff;
    huge_len[9] = 0xff;
    let mut v2_huge = b"\x93NUMPY\x02\x00\xff\xff\xff\xff".to_vec();
    v2_huge.extend_from_slice(&[b' '; 32]);
    let mut non_utf8 = ok.clone();
    non_utf8[12] = 0xff;
    let garbage: Vec<u8> = (0..300u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    for (what, f) in [
        ("wrong magic", wrong_magic),
        ("bad version", bad_version),
        ("huge header length", huge_len),
        ("huge v2 header length", v2_huge),
        ("non-UTF-8 header", non_utf8),
        ("garbage", garbage),
        ("empty", Vec::new()),
    ] {
        let r = from_npy_bytes_dyn(&f, &dev);
        assert!(matches!(r, Err(Error::Io { .. })), "{what}: {r:?}");
    }
}

#[test]
fn malformed_npz_files_are_errors() {
    let dir = TempDir::new("badnpz");
    let dev = Device::cpu();
    let full = std::fs::read(data("npz_arrays.npz")).unwrap();
    // truncated archives and non-archives
    for cut in [0, 10, full.len() / 2, full.len() - 10] {
        let p = dir.path(&format!("cut{cut}.npz"));
        std::fs::write(&p, &full[..cut]).unwrap();
        assert!(is_io(&load_npz(&p, &dev).unwrap_err()), "cut {cut}");
        assert!(
            is_io(&load_npz_array::<f64>(&p, "noise", &dev).unwrap_err()),
            "cut {cut}"
        );
        assert!(is_io(&npz_names(&p).unwrap_err()), "cut {cut}");
    }
    let p = dir.path("not_a_zip.npz");
    std::fs::copy(data("npy_f64.npy"), &p).unwrap();
    assert!(is_io(&load_npz(&p, &dev).unwrap_err()));
    // a flipped byte inside a stored member's data fails the member's checksum
    let at = |hay: &[u8], needle: &[u8], from: usize| {
        from + hay[from..]
            .windows(needle.len())
            .position(|w| w == needle)
            .unwrap()
    };
    let member = at(&full, b"noise.npy", 0);
    let magic = at(&full, b"\x93NUMPY", member);
    let mut damaged = full.clone();
    damaged[magic + 128 + 100] ^= 0x55;
    let p = dir.path("damaged.npz");
    std::fs::write(&p, &damaged).unwrap();
    let d = io_detail(load_npz(&p, &dev));
    assert!(d.contains("noise.npy"), "{d}");
    // a member whose .npy data is truncated; a non-.npy member is skipped
    let p = dir.path("short_member.npz");
    {
        use npyz::zip::{write::FileOptions, ZipWriter};
        use std::io::Write;
        let mut z = ZipWriter::new(std::fs::File::create(&p).unwrap());
        z.start_file("README.txt", FileOptions::default()).unwrap();
        z.write_all(b"not an array").unwrap();
        let good = std::fs::read(data("npy_i32.npy")).unwrap();
        z.start_file("good.npy", FileOptions::default()).unwrap();
        z.write_all(&good).unwrap();
        z.start_file("short.npy", FileOptions::default()).unwrap();
        z.write_all(&good[..good.len() - 4]).unwrap();
        z.finish().unwrap();
    }
    assert_eq!(npz_names(&p).unwrap(), ["good", "short"]);
    let d = io_detail(load_npz(&p, &dev));
    assert!(d.contains("short.npy") && d.contains("truncated"), "{d}");
    assert_eq!(
        load_npz_array::<i32>(&p, "good", &dev).unwrap().shape(),
        &[4, 3]
    );
    assert!(is_io(
        &load_npz_array::<i32>(&p, "short", &dev).unwrap_err()
    ));
}

#[test]
fn dyn_arrays_save_and_move() {
    let dir = TempDir::new("dyn");
    for dev in devices() {
        let d = load_npy_dyn(data("npy_c128.npy"), &Device::cpu()).unwrap();
        let g = d.to_device(&dev).unwrap();
        assert_eq!(g.device(), &dev);
        assert_eq!((g.ndim(), g.size()), (1, 5));
        let p = dir.path("dyn.npy");
        save_npy_dyn(&p, &g).unwrap();
        assert!(same(
            &load_npy_dyn(&p, &dev).unwrap(),
            &d.to_device(&dev).unwrap()
        ));
    }
}
