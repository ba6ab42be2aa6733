//! Bad and extreme inputs for core (issue 33): a table of cases, each a closure returning a
//! `Result` and the outcome it must have: a typed error of one variant, or NumPy's value where
//! NumPy accepts the input. The table runs on every device (the GPU half skips without a GPU) in
//! a child process with a time limit, so that an abort or a hang is a failure of this test rather
//! than the end of the test executable. No case allocates more than a few tens of MiB: requests
//! past the host's memory must be refused before anything is touched.

use cusci_core::array::layout;
use cusci_core::npy::{from_npy_bytes, from_npy_bytes_dyn, load_npy, load_npz, load_npz_array};
use cusci_core::random::montecarlo::{price_european_call, EuropeanCall};
use cusci_core::random::Generator;
use cusci_core::testing::bad_input::{self as bi, bv, f, fv, iv, s1, shp, Kind::*, Table, V};
use cusci_core::{host, where_, Array, Device, Element, Error, Result};

/// [`bi::shape_of`] of an owned result, for `.and_then(shape_of)`.
fn shape_of<T: Element>(a: Array<T>) -> Result<V> {
    Ok(bi::shape_of(&a))
}
fn a5(d: &Device) -> Result<Array<f64>> {
    Array::arange(0.0, 5.0, 1.0, d)
}
fn vec64(v: &[f64], d: &Device) -> Result<Array<f64>> {
    Array::from_slice(v, &[v.len()], d)
}
/// A (2^30, 1024) f64 view of 0..1024 broadcast along axis 0: 2^40 elements, 8 KiB of data.
fn huge_view(d: &Device) -> Result<Array<f64>> {
    Array::arange(0.0, 1024.0, 1.0, d)?.broadcast_to(&[1 << 30, 1024])
}

/// The bytes of a version 1.0 `.npy` file with header text `dict` (padded as NumPy pads).
fn npy(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut h = dict.to_string();
    while (10 + h.len() + 1) % 64 != 0 {
        h.push(' ');
    }
    h.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(h.len() as u16).to_le_bytes());
    out.extend_from_slice(h.as_bytes());
    out.extend_from_slice(data);
    out
}
fn npy_f8(shape: &str, n: usize) -> Vec<u8> {
    let data: Vec<u8> = (0..n).flat_map(|i| (i as f64).to_le_bytes()).collect();
    npy(
        &format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}"),
        &data,
    )
}
fn npy_read(bytes: Vec<u8>) -> impl Fn(&Device) -> Result<V> {
    move |d| fv(from_npy_bytes::<f64>(&bytes, d)?)
}
fn tmp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("cusci_bad_input_{}_{name}", std::process::id()))
}

const G40: usize = 1 << 40;
const G61: usize = 1 << 61;
const G62: usize = 1 << 62;

fn table(dev: &Device) -> Table {
    let mut t = Table::new();

    // ---------- constructors: huge, overflowing, empty, 0-d ----------
    t.err("zeros f64 2^40 (8 TiB)", Oom, |d| {
        fv(Array::<f64>::zeros(&[G40], d)?)
    });
    t.err("zeros f64 2^61 (bytes overflow)", Arg, |d| {
        fv(Array::<f64>::zeros(&[G61], d)?)
    });
    t.err("zeros usize::MAX", Arg, |d| {
        fv(Array::<u8>::zeros(&[usize::MAX], d)?)
    });
    t.err("zeros u8 2^62", Oom, |d| fv(Array::<u8>::zeros(&[G62], d)?));
    t.err("zeros 2^32 x 2^32", Arg, |d| {
        fv(Array::<u8>::zeros(&[1 << 32, 1 << 32], d)?)
    });
    t.err("zeros f64 2^31 x 2^31", Arg, |d| {
        fv(Array::<f64>::zeros(&[1 << 31, 1 << 31], d)?)
    });
    t.err("zeros f64 2^20 x 2^20", Oom, |d| {
        fv(Array::<f64>::zeros(&[1 << 20, 1 << 20], d)?)
    });
    t.err("zeros c64 2^40", Oom, |d| {
        fv(Array::<cusci_core::c64>::zeros(&[G40], d)?)
    });
    t.err("zeros c64 2^59 (bytes overflow)", Arg, |d| {
        fv(Array::<cusci_core::c64>::zeros(&[1 << 59], d)?)
    });
    t.err("ones f32 2^40", Oom, |d| fv(Array::<f32>::ones(&[G40], d)?));
    t.err("full i64 2^40", Oom, |d| {
        fv(Array::<i64>::full(&[G40], 7, d)?)
    });
    t.err("full i32 2^62 (bytes overflow)", Arg, |d| {
        fv(Array::<i32>::full(&[G62], 7, d)?)
    });
    t.err("empty f64 2^40", Oom, |d| {
        fv(Array::<f64>::empty(&[G40], d)?)
    });
    t.err("empty f64 2^61", Arg, |d| {
        fv(Array::<f64>::empty(&[G61], d)?)
    });
    t.err("empty bool 2^45", Oom, |d| {
        bv(Array::<bool>::empty(&[1 << 45], d)?)
    });
    t.err("zeros (0, 2^62) f64: too big as NumPy", Arg, |d| {
        shape_of(Array::<f64>::zeros(&[0, G62], d)?)
    });
    t.val("zeros (0, 2^62) u8", shp(&[0, G62]), |d| {
        shape_of(Array::<u8>::zeros(&[0, G62], d)?)
    });
    t.err("zeros (0, usize::MAX)", Arg, |d| {
        shape_of(Array::<u8>::zeros(&[0, usize::MAX], d)?)
    });
    t.err("zeros (0, 2^40, 2^40)", Arg, |d| {
        shape_of(Array::<u8>::zeros(&[0, G40, G40], d)?)
    });
    t.val("zeros 0-d", s1(0.0), |d| fv(Array::<f64>::zeros(&[], d)?));
    t.val("zeros (0,)", f(&[0], &[]), |d| {
        fv(Array::<f64>::zeros(&[0], d)?)
    });
    t.val("ones (2, 0, 3)", f(&[2, 0, 3], &[]), |d| {
        fv(Array::<f64>::ones(&[2, 0, 3], d)?)
    });
    t.val("full NaN", f(&[2], &[f64::NAN, f64::NAN]), |d| {
        fv(Array::<f64>::full(&[2], f64::NAN, d)?)
    });
    t.val("full -inf f32", f(&[1], &[f64::NEG_INFINITY]), |d| {
        fv(Array::<f32>::full(&[1], f32::NEG_INFINITY, d)?)
    });
    t.err("eye 2^20 (8 TiB)", Oom, |d| {
        fv(Array::<f64>::eye(1 << 20, None, 0, d)?)
    });
    t.err("eye usize::MAX x 1", Arg, |d| {
        fv(Array::<f64>::eye(usize::MAX, Some(1), 0, d)?)
    });
    t.err("eye 2^62 x 0 f64 (too big)", Arg, |d| {
        shape_of(Array::<f64>::eye(G62, Some(0), 0, d)?)
    });
    t.val("eye 2^20 x 0 u8", shp(&[1 << 20, 0]), |d| {
        shape_of(Array::<u8>::eye(1 << 20, Some(0), 0, d)?)
    });
    t.val("eye 3 x 0", f(&[3, 0], &[]), |d| {
        fv(Array::<f64>::eye(3, Some(0), 0, d)?)
    });
    t.val("eye 0", f(&[0, 0], &[]), |d| {
        fv(Array::<f64>::eye(0, None, 0, d)?)
    });
    t.val("eye k = 5 past the matrix", f(&[2, 2], &[0.0; 4]), |d| {
        fv(Array::<f64>::eye(2, None, 5, d)?)
    });
    t.val("eye k = -5", f(&[2, 2], &[0.0; 4]), |d| {
        fv(Array::<f64>::eye(2, None, -5, d)?)
    });
    t.val("eye k = isize::MIN", f(&[2, 2], &[0.0; 4]), |d| {
        fv(Array::<f64>::eye(2, None, isize::MIN, d)?)
    });
    t.val("eye k = isize::MAX", f(&[2, 2], &[0.0; 4]), |d| {
        fv(Array::<f64>::eye(2, None, isize::MAX, d)?)
    });
    t.val(
        "eye 2 x 3 k = 1",
        f(&[2, 3], &[0.0, 1.0, 0.0, 0.0, 0.0, 1.0]),
        |d| fv(Array::<f64>::eye(2, Some(3), 1, d)?),
    );
    t.val(
        "eye 3 x 2 k = -1",
        f(&[3, 2], &[0.0, 0.0, 1.0, 0.0, 0.0, 1.0]),
        |d| fv(Array::<f64>::eye(3, Some(2), -1, d)?),
    );
    t.err("from_vec length mismatch", Shape, |d| {
        fv(Array::from_vec(vec![1.0f64; 3], &[2, 2], d)?)
    });
    t.err("from_vec 2^32 x 2^32", Arg, |d| {
        fv(Array::<f64>::from_vec(vec![], &[1 << 32, 1 << 32], d)?)
    });
    t.err("from_vec f64 shape (0, 2^62)", Arg, |d| {
        fv(Array::<f64>::from_vec(vec![], &[0, G62], d)?)
    });
    t.val("from_vec (0, 5)", f(&[0, 5], &[]), |d| {
        fv(Array::<f64>::from_vec(vec![], &[0, 5], d)?)
    });
    t.err("from_slice mismatch", Shape, |d| {
        fv(Array::from_slice(&[1.0f64, 2.0], &[3], d)?)
    });
    t.val("scalar item", s1(2.5), |d| {
        Ok(s1(Array::scalar(2.5f64, d)?.item()?))
    });
    t.err("item of 2 elements", Arg, |d| Ok(s1(a5(d)?.item()?)));
    t.err("item of empty", Arg, |d| {
        Ok(s1(Array::<f64>::zeros(&[0], d)?.item()?))
    });
    t.val("to_ndarray 0-d", s1(3.0), |d| {
        let n = Array::scalar(3.0f64, d)?.to_ndarray()?;
        Ok(f(n.shape(), &n.iter().copied().collect::<Vec<_>>()))
    });
    t.val("from_ndarray empty", f(&[0, 4], &[]), |d| {
        fv(Array::from_ndarray(
            &ndarray::Array2::<f64>::zeros((0, 4)),
            d,
        )?)
    });

    // ---------- arange and linspace ----------
    t.err("arange(0, 1e300)", Arg, |d| {
        fv(Array::<f64>::arange(0.0, 1e300, 1.0, d)?)
    });
    t.err("arange step 0", Arg, |d| {
        fv(Array::<f64>::arange(0.0, 10.0, 0.0, d)?)
    });
    t.err("arange start NaN", Arg, |d| {
        fv(Array::<f64>::arange(f64::NAN, 1.0, 1.0, d)?)
    });
    t.err("arange stop inf", Arg, |d| {
        fv(Array::<f64>::arange(0.0, f64::INFINITY, 1.0, d)?)
    });
    t.err("arange step NaN", Arg, |d| {
        fv(Array::<f64>::arange(0.0, 1.0, f64::NAN, d)?)
    });
    t.err("arange step -inf", Arg, |d| {
        fv(Array::<f64>::arange(0.0, 1.0, f64::NEG_INFINITY, d)?)
    });
    t.err("arange(-1e308, 1e308): the span overflows", Arg, |d| {
        fv(Array::<f64>::arange(-1e308, 1e308, 1.0, d)?)
    });
    t.err("arange(0, 1, 1e-300)", Arg, |d| {
        fv(Array::<f64>::arange(0.0, 1.0, 1e-300, d)?)
    });
    t.err("arange(0, 2^40) f64", Oom, |d| {
        fv(Array::<f64>::arange(0.0, G40 as f64, 1.0, d)?)
    });
    t.err("arange(0, 2^40) i32", Oom, |d| {
        fv(Array::<i32>::arange(0.0, G40 as f64, 1.0, d)?)
    });
    t.err("arange(0, 2^62) f64 (bytes overflow)", Arg, |d| {
        fv(Array::<f64>::arange(0.0, G62 as f64, 1.0, d)?)
    });
    t.val("arange(5, 0)", f(&[0], &[]), |d| {
        fv(Array::<f64>::arange(5.0, 0.0, 1.0, d)?)
    });
    t.val("arange(0, 5, -1)", f(&[0], &[]), |d| {
        fv(Array::<f64>::arange(0.0, 5.0, -1.0, d)?)
    });
    t.val("arange(0, 3)", f(&[3], &[0.0, 1.0, 2.0]), |d| {
        fv(Array::<f64>::arange(0.0, 3.0, 1.0, d)?)
    });
    t.val("arange(0, 1, 0.3)", f(&[4], &[0.0, 0.3, 0.6, 0.9]), |d| {
        fv(Array::<f64>::arange(0.0, 1.0, 0.3, d)?)
    });
    t.val("arange(10, 0, -3)", f(&[4], &[10.0, 7.0, 4.0, 1.0]), |d| {
        fv(Array::<f64>::arange(10.0, 0.0, -3.0, d)?)
    });
    t.val("arange(0, 0)", f(&[0], &[]), |d| {
        fv(Array::<f64>::arange(0.0, 0.0, 1.0, d)?)
    });
    t.val("linspace num 0", f(&[0], &[]), |d| {
        fv(Array::<f64>::linspace(0.0, 1.0, 0, true, d)?)
    });
    t.val("linspace num 1", f(&[1], &[0.0]), |d| {
        fv(Array::<f64>::linspace(0.0, 1.0, 1, true, d)?)
    });
    t.val("linspace num 1 no endpoint", f(&[1], &[0.0]), |d| {
        fv(Array::<f64>::linspace(0.0, 1.0, 1, false, d)?)
    });
    t.val("linspace 5", f(&[5], &[0.0, 0.25, 0.5, 0.75, 1.0]), |d| {
        fv(Array::<f64>::linspace(0.0, 1.0, 5, true, d)?)
    });
    t.val(
        "linspace 4 no endpoint",
        f(&[4], &[0.0, 0.25, 0.5, 0.75]),
        |d| fv(Array::<f64>::linspace(0.0, 1.0, 4, false, d)?),
    );
    t.val(
        "linspace start NaN",
        f(&[3], &[f64::NAN, f64::NAN, 1.0]),
        |d| fv(Array::<f64>::linspace(f64::NAN, 1.0, 3, true, d)?),
    );
    t.val("linspace start = stop", f(&[3], &[5.0; 3]), |d| {
        fv(Array::<f64>::linspace(5.0, 5.0, 3, true, d)?)
    });
    t.err("linspace 2^40", Oom, |d| {
        fv(Array::<f64>::linspace(0.0, 1.0, G40, true, d)?)
    });
    t.err("linspace usize::MAX", Arg, |d| {
        fv(Array::<f64>::linspace(0.0, 1.0, usize::MAX, true, d)?)
    });
    t.err("linspace 2^61 f64", Arg, |d| {
        fv(Array::<f64>::linspace(0.0, 1.0, G61, true, d)?)
    });

    // ---------- views: slices, indices, axes, reshape, broadcast ----------
    let sl = |st: Option<isize>, sp: Option<isize>, step: isize| {
        move |d: &Device| fv(a5(d)?.slice_axis(0, st, sp, step)?)
    };
    t.val(
        "slice step isize::MAX",
        f(&[1], &[0.0]),
        sl(None, None, isize::MAX),
    );
    t.val(
        "slice step -isize::MAX",
        f(&[1], &[4.0]),
        sl(None, None, -isize::MAX),
    );
    t.val(
        "slice step isize::MIN",
        f(&[1], &[4.0]),
        sl(None, None, isize::MIN),
    );
    t.val(
        "slice 2:: step isize::MAX",
        f(&[1], &[2.0]),
        sl(Some(2), None, isize::MAX),
    );
    t.err("slice step 0", Arg, sl(None, None, 0));
    t.val(
        "slice isize::MIN..isize::MAX",
        f(&[5], &[0.0, 1.0, 2.0, 3.0, 4.0]),
        sl(Some(isize::MIN), Some(isize::MAX), 1),
    );
    t.val(
        "slice start isize::MAX",
        f(&[0], &[]),
        sl(Some(isize::MAX), None, 1),
    );
    t.val("slice 3:1", f(&[0], &[]), sl(Some(3), Some(1), 1));
    t.val(
        "slice ::-1",
        f(&[5], &[4.0, 3.0, 2.0, 1.0, 0.0]),
        sl(None, None, -1),
    );
    t.val("slice ::2", f(&[3], &[0.0, 2.0, 4.0]), sl(None, None, 2));
    t.val("slice ::-2", f(&[3], &[4.0, 2.0, 0.0]), sl(None, None, -2));
    t.val(
        "slice -100:100:3",
        f(&[2], &[0.0, 3.0]),
        sl(Some(-100), Some(100), 3),
    );
    t.val(
        "slice 100:-100:-3",
        f(&[2], &[4.0, 1.0]),
        sl(Some(100), Some(-100), -3),
    );
    t.val("slice -1:-1", f(&[0], &[]), sl(Some(-1), Some(-1), 1));
    t.err("slice axis 5 of 1-d", Arg, |d| {
        fv(a5(d)?.slice_axis(5, None, None, 1)?)
    });
    t.err("slice axis -2 of 1-d", Arg, |d| {
        fv(a5(d)?.slice_axis(-2, None, None, 1)?)
    });
    t.err("slice axis isize::MIN", Arg, |d| {
        fv(a5(d)?.slice_axis(isize::MIN, None, None, 1)?)
    });
    t.err("slice 0-d", Arg, |d| {
        fv(Array::scalar(1.0f64, d)?.slice_axis(0, None, None, 1)?)
    });
    t.val("slice zero-length axis", f(&[0, 2], &[]), |d| {
        fv(Array::<f64>::zeros(&[0, 2], d)?.slice_axis(0, Some(1), None, 1)?)
    });
    t.val(
        "slice of a broadcast view, step isize::MAX",
        f(&[1, 3], &[0.0, 1.0, 2.0]),
        |d| {
            let b = Array::<f64>::arange(0.0, 3.0, 1.0, d)?.broadcast_to(&[1 << 20, 3])?;
            fv(b.slice_axis(0, None, None, isize::MAX)?)
        },
    );
    let ix = |i: isize| move |d: &Device| fv(a5(d)?.index_axis(0, i)?);
    t.err("index 5 of 5", Arg, ix(5));
    t.err("index -6 of 5", Arg, ix(-6));
    t.err("index isize::MIN", Arg, ix(isize::MIN));
    t.err("index isize::MAX", Arg, ix(isize::MAX));
    t.val("index -1", s1(4.0), ix(-1));
    t.err("index of zero-length axis", Arg, |d| {
        fv(Array::<f64>::zeros(&[0], d)?.index_axis(0, 0)?)
    });
    t.err("index axis of 0-d", Arg, |d| {
        fv(Array::scalar(1.0f64, d)?.index_axis(0, 0)?)
    });
    let m23 = |d: &Device| Array::<f64>::arange(0.0, 6.0, 1.0, d)?.reshape(&[2, 3]);
    t.err("permute too few axes", Arg, move |d| {
        fv(m23(d)?.permute(&[0])?)
    });
    t.err("permute repeated axis", Arg, move |d| {
        fv(m23(d)?.permute(&[0, 0])?)
    });
    t.err("permute axis out of range", Arg, move |d| {
        fv(m23(d)?.permute(&[0, 2])?)
    });
    t.err("permute -3", Arg, move |d| fv(m23(d)?.permute(&[-3, 0])?));
    t.val(
        "permute [-1, 0]",
        f(&[3, 2], &[0.0, 3.0, 1.0, 4.0, 2.0, 5.0]),
        move |d| fv(m23(d)?.permute(&[-1, 0])?),
    );
    t.err("swapaxes 2", Arg, move |d| fv(m23(d)?.swapaxes(0, 2)?));
    t.err("swapaxes isize::MIN", Arg, move |d| {
        fv(m23(d)?.swapaxes(isize::MIN, 0)?)
    });
    t.err("expand_dims 2 of 1-d", Arg, |d| fv(a5(d)?.expand_dims(2)?));
    t.err("expand_dims isize::MAX", Arg, |d| {
        fv(a5(d)?.expand_dims(isize::MAX)?)
    });
    t.val(
        "expand_dims -1",
        f(&[5, 1], &[0.0, 1.0, 2.0, 3.0, 4.0]),
        |d| fv(a5(d)?.expand_dims(-1)?),
    );
    t.val("squeeze to 0-d", s1(7.0), |d| {
        fv(Array::from_vec(vec![7.0f64], &[1, 1, 1], d)?.squeeze())
    });
    let rs = |s: &'static [isize]| move |d: &Device| fv(a5(d)?.reshape(s)?);
    t.err("reshape two -1", Arg, rs(&[-1, -1]));
    t.err("reshape -2", Arg, rs(&[-2, 5]));
    t.err("reshape isize::MIN", Arg, rs(&[isize::MIN]));
    t.err("reshape 5 to 3", Shape, rs(&[3]));
    t.err("reshape 5 to (2, -1)", Shape, rs(&[2, -1]));
    t.err("reshape 2^32 x 2^32", Arg, rs(&[1 << 32, 1 << 32]));
    t.err("reshape isize::MAX x 2", Arg, rs(&[isize::MAX, 2]));
    t.err("reshape 5 to 0-d", Shape, rs(&[]));
    t.val(
        "reshape (5, -1)",
        f(&[5, 1], &[0.0, 1.0, 2.0, 3.0, 4.0]),
        rs(&[5, -1]),
    );
    t.err("reshape empty to (0, -1)", Shape, |d| {
        fv(Array::<f64>::zeros(&[0], d)?.reshape(&[0, -1])?)
    });
    t.val("reshape empty to (3, 0)", f(&[3, 0], &[]), |d| {
        fv(Array::<f64>::zeros(&[0], d)?.reshape(&[3, 0])?)
    });
    t.val("reshape 0-d to (1, 1, 1)", f(&[1, 1, 1], &[2.0]), |d| {
        fv(Array::scalar(2.0f64, d)?.reshape(&[1, 1, 1])?)
    });
    let bc =
        |s: &'static [usize]| move |d: &Device| shape_of(a5(d)?.expand_dims(0)?.broadcast_to(s)?);
    t.err("broadcast_to 2^33 x 2^33", Arg, |d| {
        shape_of(Array::scalar(1.0f64, d)?.broadcast_to(&[1 << 33, 1 << 33])?)
    });
    t.err("broadcast_to f64 2^31 x 2^30 (bytes)", Arg, |d| {
        shape_of(Array::scalar(1.0f64, d)?.broadcast_to(&[1 << 31, 1 << 30])?)
    });
    t.err("broadcast_to usize::MAX", Arg, |d| {
        shape_of(Array::scalar(1.0f64, d)?.broadcast_to(&[usize::MAX])?)
    });
    t.val(
        "broadcast_to u8 2^31 x 2^30 (a view)",
        shp(&[1 << 31, 1 << 30]),
        |d| shape_of(Array::scalar(1u8, d)?.broadcast_to(&[1 << 31, 1 << 30])?),
    );
    t.val(
        "broadcast_to 2^20 x 5",
        shp(&[1 << 20, 5]),
        bc(&[1 << 20, 5]),
    );
    t.err("broadcast_to (1, 3)", Shape, bc(&[1, 3]));
    t.err("broadcast_to fewer dims", Shape, bc(&[5]));
    t.val("broadcast_to (0, 5)", shp(&[0, 5]), bc(&[0, 5]));
    t.val("broadcast 0-d to (0,)", f(&[0], &[]), |d| {
        fv(Array::scalar(1.0f64, d)?.broadcast_to(&[0])?)
    });
    t.err("broadcast_to 0-d", Shape, |d| {
        shape_of(a5(d)?.broadcast_to(&[])?)
    });

    // ---------- element-wise with broadcasting ----------
    t.err("add (3) + (4)", Shape, |d| {
        fv(Array::<f64>::zeros(&[3], d)?.add(&Array::zeros(&[4], d)?)?)
    });
    t.err("mul (2^32, 1) * (1, 2^32)", Arg, |d| {
        let a = Array::scalar(1u8, d)?.broadcast_to(&[1 << 32, 1])?;
        let b = Array::scalar(1u8, d)?.broadcast_to(&[1, 1 << 32])?;
        shape_of(a.mul(&b)?)
    });
    t.err("add of two views with a 2^40 result", Oom, |d| {
        let a = Array::scalar(1.0f64, d)?.broadcast_to(&[1 << 30, 1])?;
        let b = Array::arange(0.0, 1024.0, 1.0, d)?.expand_dims(0)?;
        shape_of(a.add(&b)?)
    });
    t.val("add 0-d + (0,)", f(&[0], &[]), |d| {
        fv(Array::scalar(1.0f64, d)?.add(&Array::zeros(&[0], d)?)?)
    });
    t.val("add (0, 3) + (3,)", f(&[0, 3], &[]), |d| {
        fv(Array::<f64>::zeros(&[0, 3], d)?.add(&Array::ones(&[3], d)?)?)
    });
    t.err("where_ shape mismatch", Shape, |d| {
        let c = Array::<bool>::zeros(&[2], d)?;
        fv(where_(
            &c,
            &Array::<f64>::zeros(&[3], d)?,
            &Array::zeros(&[3], d)?,
        )?)
    });
    t.val(
        "sqrt(-1), log(0), log(-1)",
        f(&[3], &[f64::NAN, f64::NEG_INFINITY, f64::NAN]),
        |d| {
            let s = vec64(&[-1.0], d)?.sqrt()?;
            let l = vec64(&[0.0, -1.0], d)?.log()?;
            Ok(f(&[3], &[s.to_vec()?, l.to_vec()?].concat()))
        },
    );
    t.val("inf - inf, 0 * inf", f(&[2], &[f64::NAN, f64::NAN]), |d| {
        let a = vec64(&[f64::INFINITY, 0.0], d)?;
        let b = vec64(&[f64::INFINITY, f64::INFINITY], d)?;
        let s = a.sub(&b)?.to_vec()?[0];
        let m = a.mul(&b)?.to_vec()?[1];
        Ok(f(&[2], &[s, m]))
    });
    t.val("isfinite", V::B(vec![3], vec![false, false, true]), |d| {
        bv(vec64(&[f64::NAN, f64::NEG_INFINITY, 1.0], d)?.isfinite()?)
    });
    t.val("integer division by zero", V::I(vec![2], vec![0, 3]), |d| {
        let a = Array::from_vec(vec![5i64, 6], &[2], d)?;
        iv(a.div(&Array::from_vec(vec![0i64, 2], &[2], d)?)?)
    });
    t.err("astype of a 2^40 view", Oom, |d| {
        fv(huge_view(d)?.astype::<f32>()?)
    });
    t.err("copy of a 2^40 view", Oom, |d| fv(huge_view(d)?.copy()?));
    t.err("to_vec of a 2^40 view", Oom, |d| {
        Ok(V::N(huge_view(d)?.to_vec()?.len() as u64))
    });
    t.err("contiguous of a 2^40 view", Oom, |d| {
        fv(huge_view(d)?.contiguous()?)
    });
    t.err("assign shape mismatch", Shape, |d| {
        let mut a = Array::<f64>::zeros(&[3], d)?;
        a.assign(&Array::zeros(&[2], d)?)?;
        fv(a)
    });
    t.val("assign broadcast", f(&[2, 2], &[1.0, 2.0, 1.0, 2.0]), |d| {
        let mut a = Array::<f64>::zeros(&[2, 2], d)?;
        a.assign(&vec64(&[1.0, 2.0], d)?)?;
        fv(a)
    });

    // ---------- reductions ----------
    let e0 = |d: &Device| Array::<f64>::zeros(&[0], d);
    t.val("sum of empty", s1(0.0), move |d| Ok(s1(e0(d)?.sum()?)));
    t.val("mean of empty", s1(f64::NAN), move |d| {
        Ok(s1(e0(d)?.mean()?))
    });
    t.val("var of empty", s1(f64::NAN), move |d| {
        Ok(s1(e0(d)?.var(0)?))
    });
    t.val("std of empty", s1(f64::NAN), move |d| {
        Ok(s1(e0(d)?.std(0)?))
    });
    t.val("norm of empty", s1(0.0), move |d| Ok(s1(e0(d)?.norm()?)));
    t.err("min of empty", Arg, move |d| Ok(s1(e0(d)?.min()?)));
    t.err("max of empty", Arg, move |d| Ok(s1(e0(d)?.max()?)));
    t.err("argmin of empty", Arg, move |d| {
        Ok(V::N(e0(d)?.argmin()? as u64))
    });
    t.err("argmax of empty", Arg, move |d| {
        Ok(V::N(e0(d)?.argmax()? as u64))
    });
    t.err("max of (3, 0)", Arg, |d| {
        Ok(s1(Array::<f64>::zeros(&[3, 0], d)?.max()?))
    });
    t.val("sum of 0-d", s1(2.5), |d| {
        Ok(s1(Array::scalar(2.5f64, d)?.sum()?))
    });
    t.val("max of 0-d", s1(2.5), |d| {
        Ok(s1(Array::scalar(2.5f64, d)?.max()?))
    });
    t.val("argmax of 0-d", V::N(0), |d| {
        Ok(V::N(Array::scalar(2.5f64, d)?.argmax()? as u64))
    });
    t.val("var of one element, ddof 1", s1(f64::NAN), |d| {
        Ok(s1(vec64(&[1.0], d)?.var(1)?))
    });
    t.val("var ddof past n", s1(f64::INFINITY), |d| {
        Ok(s1(vec64(&[1.0, 2.0], d)?.var(5)?))
    });
    t.val("var ddof usize::MAX", s1(f64::INFINITY), |d| {
        Ok(s1(vec64(&[1.0, 2.0], d)?.var(usize::MAX)?))
    });
    let m = |d: &Device| Array::<f64>::ones(&[2, 3], d);
    t.err("sum_axes repeated", Arg, move |d| {
        fv(m(d)?.sum_axes(&[0, 0])?)
    });
    t.err("sum_axes repeated via negative", Arg, move |d| {
        fv(m(d)?.sum_axes(&[1, -1])?)
    });
    t.err("sum_axes 2", Arg, move |d| fv(m(d)?.sum_axes(&[2])?));
    t.err("sum_axes -3", Arg, move |d| fv(m(d)?.sum_axes(&[-3])?));
    t.err("sum_axes isize::MIN", Arg, move |d| {
        fv(m(d)?.sum_axes(&[isize::MIN])?)
    });
    t.err("mean_axes 5", Arg, move |d| fv(m(d)?.mean_axes(&[5])?));
    t.err("var_axes repeated", Arg, move |d| {
        fv(m(d)?.var_axes(&[0, 0], 0)?)
    });
    t.err("std_axes 2", Arg, move |d| fv(m(d)?.std_axes(&[2], 0)?));
    t.err("norm_axes -3", Arg, move |d| fv(m(d)?.norm_axes(&[-3])?));
    t.err("min_axes repeated", Arg, move |d| {
        fv(m(d)?.min_axes(&[1, 1])?)
    });
    t.err("max_axes_keepdims 2", Arg, move |d| {
        fv(m(d)?.max_axes_keepdims(&[2])?)
    });
    t.err("sum_axes_keepdims -3", Arg, move |d| {
        fv(m(d)?.sum_axes_keepdims(&[-3])?)
    });
    t.err("argmax_axis 2", Arg, move |d| iv(m(d)?.argmax_axis(2)?));
    t.err("argmin_axis isize::MAX", Arg, move |d| {
        iv(m(d)?.argmin_axis(isize::MAX)?)
    });
    t.val("sum_axes [] copies", f(&[2, 3], &[1.0; 6]), move |d| {
        fv(m(d)?.sum_axes(&[])?)
    });
    t.val("min_axes [] copies", f(&[2, 3], &[1.0; 6]), move |d| {
        fv(m(d)?.min_axes(&[])?)
    });
    t.err("sum_axes of (0, 2^62) u8: a 2^62-byte result", Oom, |d| {
        fv(Array::<u8>::zeros(&[0, G62], d)?.sum_axes(&[0])?)
    });
    t.err("sum_axes of (0, 2^62) f64: too big to exist", Arg, |d| {
        fv(Array::<f64>::zeros(&[0, G62], d)?.sum_axes(&[0])?)
    });
    t.err("mean_axes of (0, 2^40) f64", Oom, |d| {
        fv(Array::<f64>::zeros(&[0, G40], d)?.mean_axes(&[0])?)
    });
    t.val("sum_axes of (0, 2^62) u8 over axis 1", shp(&[0]), |d| {
        shape_of(Array::<u8>::zeros(&[0, G62], d)?.sum_axes(&[1])?)
    });
    t.val("sum_axes (0, 5) axis 0", f(&[5], &[0.0; 5]), |d| {
        fv(Array::<f64>::zeros(&[0, 5], d)?.sum_axes(&[0])?)
    });
    t.val("sum_axes (0, 5) axis 1", f(&[0], &[]), |d| {
        fv(Array::<f64>::zeros(&[0, 5], d)?.sum_axes(&[1])?)
    });
    t.val("mean_axes (0, 3) axis 0", f(&[3], &[f64::NAN; 3]), |d| {
        fv(Array::<f64>::zeros(&[0, 3], d)?.mean_axes(&[0])?)
    });
    t.err("min_axes (0, 3) axis 0", Arg, |d| {
        fv(Array::<f64>::zeros(&[0, 3], d)?.min_axes(&[0])?)
    });
    t.val("min_axes (0, 3) axis 1", f(&[0], &[]), |d| {
        fv(Array::<f64>::zeros(&[0, 3], d)?.min_axes(&[1])?)
    });
    t.err("argmax_axis (3, 0) axis 1", Arg, |d| {
        iv(Array::<f64>::zeros(&[3, 0], d)?.argmax_axis(1)?)
    });
    t.val("argmax_axis (0, 3) axis 1", V::I(vec![0], vec![]), |d| {
        iv(Array::<f64>::zeros(&[0, 3], d)?.argmax_axis(1)?)
    });
    t.val("max with NaN", s1(f64::NAN), |d| {
        Ok(s1(vec64(&[1.0, f64::NAN, 3.0], d)?.max()?))
    });
    t.val("min with NaN", s1(f64::NAN), |d| {
        Ok(s1(vec64(&[1.0, 2.0, f64::NAN], d)?.min()?))
    });
    t.val("argmax: the first NaN", V::N(1), |d| {
        Ok(V::N(
            vec64(&[1.0, f64::NAN, 9.0, f64::NAN], d)?.argmax()? as u64
        ))
    });
    t.val("argmin: the first NaN", V::N(2), |d| {
        Ok(V::N(vec64(&[1.0, -5.0, f64::NAN], d)?.argmin()? as u64))
    });
    t.val("min with -inf", s1(f64::NEG_INFINITY), |d| {
        Ok(s1(vec64(&[1.0, f64::NEG_INFINITY], d)?.min()?))
    });
    t.val("sum inf + -inf", s1(f64::NAN), |d| {
        Ok(s1(vec64(&[f64::INFINITY, f64::NEG_INFINITY], d)?.sum()?))
    });
    t.val("sum with NaN", s1(f64::NAN), |d| {
        Ok(s1(vec64(&[f64::NAN, 1.0], d)?.sum()?))
    });
    t.val("mean with inf", s1(f64::INFINITY), |d| {
        Ok(s1(vec64(&[f64::INFINITY, 1.0], d)?.mean()?))
    });
    t.val("norm of inf", s1(f64::INFINITY), |d| {
        Ok(s1(vec64(&[f64::INFINITY, 1.0], d)?.norm()?))
    });
    t.val("norm overflows as NumPy's", s1(f64::INFINITY), |d| {
        Ok(s1(vec64(&[1e200, 1e200], d)?.norm()?))
    });
    t.val("var with NaN", s1(f64::NAN), |d| {
        Ok(s1(vec64(&[f64::NAN, 1.0], d)?.var(0)?))
    });
    t.val(
        "i64 sum wraps (documented)",
        V::I(vec![], vec![i64::MIN]),
        |d| iv(Array::from_vec(vec![i64::MAX, 1], &[2], d)?.sum_axes(&[0])?),
    );
    t.val("u8 sum wraps (documented)", V::N(44), |d| {
        Ok(V::N(
            Array::from_vec(vec![200u8, 100], &[2], d)?.sum()? as u64
        ))
    });
    t.err("cumsum axis 1 of 1-d", Arg, |d| fv(a5(d)?.cumsum(1)?));
    t.err("cumsum of 0-d", Arg, |d| {
        fv(Array::scalar(1.0f64, d)?.cumsum(0)?)
    });
    t.val("cumsum of empty", f(&[0], &[]), move |d| {
        fv(e0(d)?.cumsum(0)?)
    });
    t.val(
        "cumsum inf, -inf",
        f(&[3], &[f64::INFINITY, f64::NAN, f64::NAN]),
        |d| fv(vec64(&[f64::INFINITY, f64::NEG_INFINITY, 1.0], d)?.cumsum(0)?),
    );
    // views of 2^40 elements: reductions that need one copy of the broadcast axis are exact and
    // fast; nothing is materialised
    t.val("max of a 2^40 view", s1(1023.0), |d| {
        Ok(s1(huge_view(d)?.max()?))
    });
    t.val("min of a 2^40 view", s1(0.0), |d| {
        Ok(s1(huge_view(d)?.min()?))
    });
    t.val("argmax of a 2^40 view", V::N(1023), |d| {
        Ok(V::N(huge_view(d)?.argmax()? as u64))
    });
    t.val("argmin of a reversed 2^40 view", V::N(1023), |d| {
        let v = huge_view(d)?.slice_axis(1, None, None, -1)?;
        Ok(V::N(v.argmin()? as u64))
    });
    t.val(
        "argmax of a (4, 2^30, 4) view: the first maximum",
        V::N(3),
        |d| {
            // every row repeats [1, 2, 3, 9] and so does every block: the first 9 is at index 3
            let base = Array::from_vec(vec![1.0f64, 2.0, 3.0, 9.0], &[4], d)?;
            Ok(V::N(base.broadcast_to(&[4, 1 << 30, 4])?.argmax()? as u64))
        },
    );
    t.val(
        "argmin of a (3, 2^30) view of a column: its first minimum",
        V::N(1 << 31),
        |d| {
            // rows 5, 7, -1, each repeated 2^30 times: the first -1 is element 2 * 2^30
            let base = Array::from_vec(vec![5.0f64, 7.0, -1.0], &[3, 1], d)?;
            Ok(V::N(base.broadcast_to(&[3, 1 << 30])?.argmin()? as u64))
        },
    );
    t.val("max_axes of a 2^40 view over axis 0", V::N(1024), |d| {
        let r = huge_view(d)?.max_axes(&[0])?;
        let v = r.to_vec()?;
        let ok = v.iter().enumerate().all(|(i, &x)| x == i as f64);
        Ok(V::N(if ok { v.len() as u64 } else { u64::MAX }))
    });
    t.val("argmax_axis of a 2^40 view over axis 0", V::N(0), |d| {
        let r = huge_view(d)?.argmax_axis(0)?.to_vec()?;
        Ok(V::N(
            r.iter().map(|&i| i as u64).sum::<u64>() + (r.len() != 1024) as u64,
        ))
    });
    t.val(
        "sum of a 2^24 broadcast view (streamed)",
        s1((1u64 << 24) as f64),
        |d| {
            let v = Array::scalar(1.0f64, d)?.broadcast_to(&[1 << 12, 1 << 12])?;
            Ok(s1(v.sum()?))
        },
    );
    t.val("mean of a 2^24 broadcast view", s1(511.5), |d| {
        let v = Array::arange(0.0, 1024.0, 1.0, d)?.broadcast_to(&[1 << 14, 1024])?;
        Ok(s1(v.mean()?))
    });
    t.val(
        "sum_axes of a broadcast view over axis 0",
        V::N(4096),
        |d| {
            let v = Array::scalar(1.0f64, d)?.broadcast_to(&[1 << 12, 1 << 12])?;
            let r = v.sum_axes(&[0])?.to_vec()?;
            let ok = r.iter().all(|&x| x == 4096.0);
            Ok(V::N(if ok { r.len() as u64 } else { 0 }))
        },
    );

    // ---------- random arrays ----------
    t.err("random f64 2^40", Oom, |d| {
        fv(Generator::new(1).random::<f64>(&[G40], d)?)
    });
    t.err("standard_normal f32 2^61 (bytes)", Arg, |d| {
        fv(Generator::new(1).standard_normal::<f32>(&[G61], d)?)
    });
    t.err("random_raw 2^62 (bytes)", Arg, |d| {
        fv(Generator::new(1).random_raw(&[G62], d)?)
    });
    t.err("random (0, 2^62) f64 (too big)", Arg, |d| {
        fv(Generator::new(1).random::<f64>(&[0, G62], d)?)
    });
    t.err("integers 2^40", Oom, |d| {
        iv(Generator::new(1).integers(0, 10, &[G40], d)?)
    });
    t.err("poisson 2^40", Oom, |d| {
        iv(Generator::new(1).poisson(1.0, &[G40], d)?)
    });
    t.err("exponential 2^40", Oom, |d| {
        fv(Generator::new(1).exponential::<f64>(1.0, &[G40], d)?)
    });
    t.err("uniform high < low", Arg, |d| {
        fv(Generator::new(1).uniform::<f64>(1.0, 0.0, &[2], d)?)
    });
    t.err("uniform NaN", Arg, |d| {
        fv(Generator::new(1).uniform::<f64>(f64::NAN, 1.0, &[2], d)?)
    });
    t.err("uniform inf", Arg, |d| {
        fv(Generator::new(1).uniform::<f64>(0.0, f64::INFINITY, &[2], d)?)
    });
    t.err("normal std -1", Arg, |d| {
        fv(Generator::new(1).normal::<f64>(0.0, -1.0, &[2], d)?)
    });
    t.err("normal mean inf", Arg, |d| {
        fv(Generator::new(1).normal::<f32>(f64::INFINITY, 1.0, &[2], d)?)
    });
    t.err("exponential scale -1", Arg, |d| {
        fv(Generator::new(1).exponential::<f64>(-1.0, &[2], d)?)
    });
    t.err("lognormal sigma NaN", Arg, |d| {
        fv(Generator::new(1).lognormal::<f64>(0.0, f64::NAN, &[2], d)?)
    });
    t.err("integers high = low", Arg, |d| {
        iv(Generator::new(1).integers(3, 3, &[2], d)?)
    });
    t.val("integers over the whole i64 range", shp(&[4]), |d| {
        shape_of(Generator::new(1).integers(i64::MIN, i64::MAX, &[4], d)?)
    });
    t.err("poisson lam -1", Arg, |d| {
        iv(Generator::new(1).poisson(-1.0, &[2], d)?)
    });
    t.err("poisson lam 1e11", Arg, |d| {
        iv(Generator::new(1).poisson(1e11, &[2], d)?)
    });
    t.err("poisson lam NaN", Arg, |d| {
        iv(Generator::new(1).poisson(f64::NAN, &[2], d)?)
    });
    t.val("poisson of shape (0,)", V::I(vec![0], vec![]), |d| {
        iv(Generator::new(1).poisson(1.0, &[0], d)?)
    });
    t.val("random 0-d", V::N(1), |d| {
        let x = Generator::new(1).random::<f64>(&[], d)?.item()?;
        Ok(V::N((x > 0.0 && x < 1.0) as u64))
    });
    let opt = EuropeanCall {
        s0: 100.0,
        strike: 100.0,
        rate: 0.05,
        sigma: 0.2,
        maturity: 1.0,
    };
    let mc = move |paths: u64, o: EuropeanCall| {
        move |d: &Device| Ok(s1(price_european_call(&o, paths, 1, d)?.price))
    };
    t.err("price_european_call 0 paths", Arg, mc(0, opt));
    t.err("price_european_call u64::MAX paths", Arg, mc(u64::MAX, opt));
    t.err(
        "price_european_call 2^53 + 1 paths",
        Arg,
        mc((1 << 53) + 1, opt),
    );
    t.err(
        "price_european_call sigma NaN",
        Arg,
        mc(
            16,
            EuropeanCall {
                sigma: f64::NAN,
                ..opt
            },
        ),
    );
    t.err(
        "price_european_call s0 -1",
        Arg,
        mc(16, EuropeanCall { s0: -1.0, ..opt }),
    );
    t.err(
        "price_european_call maturity inf",
        Arg,
        mc(
            16,
            EuropeanCall {
                maturity: f64::INFINITY,
                ..opt
            },
        ),
    );

    // ---------- .npy bytes ----------
    t.err("npy: no bytes", Io, npy_read(vec![]));
    t.err(
        "npy: wrong magic",
        Io,
        npy_read(b"\x93NUMPX\x01\x00\x10\x00".to_vec()),
    );
    t.err("npy: magic only", Io, npy_read(b"\x93NUMPY".to_vec()));
    t.err(
        "npy: version 9.9",
        Io,
        npy_read(b"\x93NUMPY\x09\x09\x10\x00".to_vec()),
    );
    t.err("npy: header longer than the file", Io, {
        let mut b = npy_f8("(2,)", 2);
        b.truncate(30);
        npy_read(b)
    });
    t.err("npy: v2 header of 4 GiB announced", Io, {
        npy_read(b"\x93NUMPY\x02\x00\xff\xff\xff\xff{".to_vec())
    });
    t.err(
        "npy: header not a dict",
        Io,
        npy_read(npy("[1, 2, 3]", &[])),
    );
    t.err("npy: header without shape", Io, {
        npy_read(npy("{'descr': '<f8', 'fortran_order': False, }", &[]))
    });
    t.err("npy: header without descr", Io, {
        npy_read(npy("{'fortran_order': False, 'shape': (1,), }", &[0; 8]))
    });
    t.err("npy: bad dtype string", Io, {
        npy_read(npy(
            "{'descr': '<q9', 'fortran_order': False, 'shape': (1,), }",
            &[0; 8],
        ))
    });
    t.err("npy: int16 is not a cusci type", Io, {
        npy_read(npy(
            "{'descr': '<i2', 'fortran_order': False, 'shape': (1,), }",
            &[0; 2],
        ))
    });
    t.err("npy: unicode dtype", Io, {
        npy_read(npy(
            "{'descr': '<U4', 'fortran_order': False, 'shape': (1,), }",
            &[0; 16],
        ))
    });
    t.err("npy: structured dtype", Io, {
        npy_read(npy(
            "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,), }",
            &[0; 8],
        ))
    });
    t.err(
        "npy: data shorter than the shape",
        Io,
        npy_read(npy_f8("(3,)", 2)),
    );
    t.err("npy: data missing", Io, npy_read(npy_f8("(1,)", 0)));
    t.err("npy: negative shape", Io, npy_read(npy_f8("(-1,)", 1)));
    t.err(
        "npy: shape 2^62",
        Io,
        npy_read(npy_f8("(4611686018427387904,)", 1)),
    );
    t.err("npy: shape 2^40 x 2^40", Io, {
        npy_read(npy_f8("(1099511627776, 1099511627776)", 1))
    });
    t.err("npy: shape entry past u64", Io, {
        npy_read(npy_f8("(99999999999999999999999,)", 1))
    });
    t.err("npy: shape of floats", Io, npy_read(npy_f8("(2.5,)", 2)));
    t.err("npy: shape a string", Io, npy_read(npy_f8("'abc'", 2)));
    t.err("npy: fortran_order not a bool", Io, {
        npy_read(npy(
            "{'descr': '<f8', 'fortran_order': 'maybe', 'shape': (1,), }",
            &[0; 8],
        ))
    });
    t.err("npy: brackets nested 100 deep", Io, {
        let deep = format!("{}{}", "(".repeat(100), ")".repeat(100));
        npy_read(npy_f8(&deep, 1))
    });
    t.err("npy: header not UTF-8", Io, {
        let mut b = npy_f8("(1,)", 1);
        b[12] = 0xff;
        npy_read(b)
    });
    t.err("npy: typed read of another dtype", DType, |d| {
        let b = npy(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
            &[0; 4],
        );
        fv(from_npy_bytes::<f64>(&b, d)?)
    });
    t.val("npy: 0-d", s1(0.0), npy_read(npy_f8("()", 1)));
    t.val(
        "npy: (0, 3)",
        f(&[0, 3], &[]),
        npy_read(npy_f8("(0, 3)", 0)),
    );
    t.val("npy: (0, 2^62) u8 (no data, valid)", shp(&[0, G62]), |d| {
        let b = npy(
            "{'descr': '|u1', 'fortran_order': False, 'shape': (0, 4611686018427387904), }",
            &[],
        );
        shape_of(from_npy_bytes::<u8>(&b, d)?)
    });
    t.val(
        "npy: trailing bytes after the data are ignored",
        f(&[2], &[0.0, 1.0]),
        {
            let mut b = npy_f8("(2,)", 2);
            b.extend_from_slice(&[1, 2, 3]);
            npy_read(b)
        },
    );
    t.val("npy: Fortran order", f(&[2, 2], &[0.0, 2.0, 1.0, 3.0]), {
        let data: Vec<u8> = (0..4).flat_map(|i| (i as f64).to_le_bytes()).collect();
        npy_read(npy(
            "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }",
            &data,
        ))
    });
    t.val("npy: big-endian", f(&[1], &[1.5]), {
        npy_read(npy(
            "{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }",
            &1.5f64.to_be_bytes(),
        ))
    });
    t.val(
        "npy: NaN and inf data",
        f(&[2], &[f64::NAN, f64::NEG_INFINITY]),
        {
            let data: Vec<u8> = [f64::NAN, f64::NEG_INFINITY]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect();
            npy_read(npy(
                "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
                &data,
            ))
        },
    );
    t.val(
        "npy: bool byte 2 reads as True",
        V::B(vec![2], vec![true, false]),
        |d| {
            let b = npy(
                "{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }",
                &[2, 0],
            );
            bv(from_npy_bytes::<bool>(&b, d)?)
        },
    );
    t.val("npy: dyn read of i64", V::I(vec![1], vec![-7]), |d| {
        let b = npy(
            "{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }",
            &(-7i64).to_le_bytes(),
        );
        iv(from_npy_bytes_dyn(&b, d)?.into_array::<i64>()?)
    });
    t.err("npy: dyn read of a truncated file", Io, |d| {
        let mut b = npy_f8("(4,)", 4);
        b.truncate(b.len() - 1);
        Ok(V::N(from_npy_bytes_dyn(&b, d)?.size() as u64))
    });

    // ---------- files and .npz archives ----------
    t.err("load_npy: missing file", Io, |d| {
        fv(load_npy::<f64>(tmp("does_not_exist.npy"), d)?)
    });
    t.err("load_npy: a directory", Io, |d| {
        fv(load_npy::<f64>(std::env::temp_dir(), d)?)
    });
    t.err("load_npz: not a zip", Io, |d| {
        let p = tmp(&format!("notzip_{}.npz", !d.is_cuda()));
        std::fs::write(&p, b"this is not a zip archive").map_err(|e| io_err(&p, e))?;
        let r = load_npz(&p, d);
        let _ = std::fs::remove_file(&p);
        Ok(V::N(r?.len() as u64))
    });
    t.err("load_npz: truncated archive", Io, |d| {
        let p = tmp(&format!("trunc_{}.npz", !d.is_cuda()));
        let a = Array::<f64>::ones(&[64], d)?;
        cusci_core::npy::save_npz(&p, &[("a", &a)])?;
        let mut b = std::fs::read(&p).map_err(|e| io_err(&p, e))?;
        b.truncate(b.len() / 2);
        std::fs::write(&p, &b).map_err(|e| io_err(&p, e))?;
        let r = load_npz(&p, d);
        let _ = std::fs::remove_file(&p);
        Ok(V::N(r?.len() as u64))
    });
    t.err("load_npz_array: no such member", Arg, |d| {
        let p = tmp(&format!("member_{}.npz", !d.is_cuda()));
        let a = Array::<f64>::ones(&[2], d)?;
        cusci_core::npy::save_npz(&p, &[("a", &a)])?;
        let r = load_npz_array::<f64>(&p, "b", d);
        let _ = std::fs::remove_file(&p);
        fv(r?)
    });
    t.err("load_npz_array: another dtype", DType, |d| {
        let p = tmp(&format!("dtype_{}.npz", !d.is_cuda()));
        let a = Array::<f64>::ones(&[2], d)?;
        cusci_core::npy::save_npz(&p, &[("a", &a)])?;
        let r = load_npz_array::<f32>(&p, "a", d);
        let _ = std::fs::remove_file(&p);
        fv(r?)
    });
    t.err("to_npy_bytes of a 2^40 view", Oom, |d| {
        Ok(V::N(
            cusci_core::npy::to_npy_bytes(&huge_view(d)?)?.len() as u64
        ))
    });

    // ---------- the size helpers and the host allocator themselves ----------
    t.val("checked_numel (0, 2^62)", V::N(0), |_| {
        Ok(V::N(layout::checked_numel("t", &[0, G62])? as u64))
    });
    t.err("checked_numel (0, 2^63)", Arg, |_| {
        Ok(V::N(layout::checked_numel("t", &[0, 1 << 63])? as u64))
    });
    t.val("checked_numel 0-d", V::N(1), |_| {
        Ok(V::N(layout::checked_numel("t", &[])? as u64))
    });
    t.err("checked_bytes 2^62 x 2", Arg, |_| {
        Ok(V::N(layout::checked_bytes("t", G62, 2)? as u64))
    });
    t.err("checked_mul overflow", Arg, |_| {
        Ok(V::N(
            layout::checked_mul("t", usize::MAX, 2, "length")? as u64
        ))
    });
    t.err("checked_add overflow", Arg, |_| {
        Ok(V::N(
            layout::checked_add("t", usize::MAX, 1, "length")? as u64
        ))
    });
    t.err("len_from_f64 NaN", Arg, |_| {
        Ok(V::N(layout::len_from_f64("t", f64::NAN)? as u64))
    });
    t.val("len_from_f64 -inf", V::N(0), |_| {
        Ok(V::N(layout::len_from_f64("t", f64::NEG_INFINITY)? as u64))
    });
    t.err("len_from_f64 1e300", Arg, |_| {
        Ok(V::N(layout::len_from_f64("t", 1e300)? as u64))
    });
    t.val(
        "slice_range step isize::MAX",
        V::I(vec![2], vec![0, 1]),
        |_| {
            let (s, l) = layout::slice_range(usize::MAX >> 1, None, None, isize::MAX);
            Ok(V::I(vec![2], vec![s as i64, l as i64]))
        },
    );
    t.err("host: 2^40 f64", Oom, |_| {
        Ok(V::N(host::try_vec_zeroed::<f64>("t", G40)?.len() as u64))
    });
    t.err("host: usize::MAX bytes", Arg, |_| {
        Ok(V::N(
            host::try_with_capacity::<u8>("t", usize::MAX)?.capacity() as u64,
        ))
    });
    t.err("host: twice the available memory", Oom, |_| {
        // without /proc/meminfo, 2^46 bytes (64 TiB) stands for "more than there is"
        let n = host::available().map_or(1 << 46, |a| a.saturating_mul(2).max(1 << 27));
        Ok(V::N(host::try_vec_zeroed::<u8>("t", n)?.len() as u64))
    });
    t.val("host: zeros are zeros", V::N(0), |_| {
        let v = host::try_vec_zeroed::<cusci_core::c64>("t", 1000)?;
        Ok(V::N(
            v.iter().filter(|x| x.re != 0.0 || x.im != 0.0).count() as u64,
        ))
    });
    t.val("host: filled", V::N(3), |_| {
        Ok(V::N(
            host::try_vec_filled("t", 3, 7u8)?
                .iter()
                .map(|&x| x as u64)
                .sum::<u64>()
                / 7,
        ))
    });

    // ---------- devices ----------
    if !dev.is_cuda() {
        t.val("same device", f(&[1], &[2.0]), |d| {
            fv(vec64(&[1.0], d)?.add(&vec64(&[1.0], &Device::Cpu)?)?)
        });
    } else {
        t.err("arrays on two devices", DevMismatch, |d| {
            fv(vec64(&[1.0], d)?.add(&vec64(&[1.0], &Device::Cpu)?)?)
        });
    }
    t
}

fn io_err(p: &std::path::Path, e: std::io::Error) -> Error {
    Error::Io {
        op: "bad_input test".into(),
        path: p.display().to_string(),
        detail: e.to_string(),
    }
}

#[test]
fn bad_input_table() {
    // in a child process with a time limit: an abort or a hang fails this test with the child's
    // output instead of ending the whole test executable
    bi::run_in_child("bad_input::bad_input_child", 600);
}

#[test]
fn bad_input_child() {
    // the child half of bad_input_table
    bi::child("cusci-core", 150, table);
}
