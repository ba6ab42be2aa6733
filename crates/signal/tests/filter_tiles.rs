//! The GPU's block-tiled IIR scan (many contiguous long signals: one block per signal, tiles of
//! TB x TL samples, chunk states combined through powers of the zero-input map) against the
//! CPU's serial recurrence: lfilter and sosfilt, with and without initial states (the final
//! states too, which the tiled kernel writes from the thread that filters the last sample),
//! partial last tiles, f32, f64, Complex64, and the ill-conditioned order-8 Butterworth filter in
//! ba form of the benchmark. On the CPU (no GPU here) the tests check the CPU against itself and
//! the naive recurrence only; `tile_plan`'s choices have unit tests in
//! `src/filter/iir/cuda/mod.rs`.
//!
//! Tolerances: the tiled scan rounds the carried states differently from the serial loop. The
//! chunk length is the shortest whose carry growth stays <= 64 (see `tile_plan`): order-4 filters
//! and sections stay at ~1e-13, while butter(8, 0.1) in ba form takes 128-sample chunks and lands
//! at ~1e-10 relative to the output's scale in f64 (1.1e-10 against SciPy in a CPU emulation of
//! the kernel; 6e-10 on an H200 before the maps' powers were squared in double-double; CuPy's
//! lfilter: 3.5e-7), hence 1e-9 of the scale there.

use crate::common::with_zi;
use cusci_core::testing::{assert_allclose, devices, randn};
use cusci_core::{c64, Array, Device};
use cusci_signal::*;

fn host(v: &[f64]) -> Array<f64> {
    Array::from_vec(v.to_vec(), &[v.len()], &Device::cpu()).unwrap()
}

fn butter_ba(order: usize, wn: f64) -> (Array<f64>, Array<f64>) {
    let ba = butter(order, &[wn], &IirOptions::default())
        .unwrap()
        .into_ba()
        .unwrap();
    (host(&ba.b), host(&ba.a))
}

fn butter_sos(order: usize, wn: f64) -> Array<f64> {
    let sos = butter(
        order,
        &[wn],
        &IirOptions {
            output: Output::Sos,
            ..Default::default()
        },
    )
    .unwrap()
    .into_sos()
    .unwrap();
    let flat: Vec<f64> = sos.iter().flatten().copied().collect();
    Array::from_vec(flat, &[sos.len(), 6], &Device::cpu()).unwrap()
}

/// lfilter and sosfilt with states on shapes that take the tiled kernel on the GPU: full tiles
/// only (128 x 4096), a partial last tile (128 x 4500), and every device against the CPU.
#[test]
fn tiled_scan_agrees_with_cpu() {
    let cpu = Device::cpu();
    let (b, a) = butter_ba(4, 0.15);
    let sos = butter_sos(6, 0.1);
    for shape in [[128usize, 4096], [128, 4500]] {
        let x = randn::<f64>(&shape, 31, &cpu).unwrap();
        let zl = randn::<f64>(&[shape[0], 4], 32, &cpu).unwrap();
        let zs = randn::<f64>(&[3, shape[0], 2], 33, &cpu).unwrap();
        let el = lfilter(&b, &a, &x, &with_zi(-1, &zl)).unwrap();
        let es = sosfilt(&sos, &x, &with_zi(-1, &zs)).unwrap();
        let e0 = lfilter(&b, &a, &x, &FilterOptions::default()).unwrap();
        for dev in devices() {
            let xd = x.to_device(&dev).unwrap();
            let (zld, zsd) = (zl.to_device(&dev).unwrap(), zs.to_device(&dev).unwrap());
            let ctx = format!("{shape:?} on {dev}");
            let r = lfilter(&b, &a, &xd, &with_zi(-1, &zld)).unwrap();
            assert_allclose(&r.y, &el.y, 1e-11, 1e-12, &ctx);
            assert_allclose(
                r.zf.as_ref().unwrap(),
                el.zf.as_ref().unwrap(),
                1e-11,
                1e-12,
                &ctx,
            );
            let r = sosfilt(&sos, &xd, &with_zi(-1, &zsd)).unwrap();
            assert_allclose(&r.y, &es.y, 1e-11, 1e-12, &ctx);
            assert_allclose(
                r.zf.as_ref().unwrap(),
                es.zf.as_ref().unwrap(),
                1e-11,
                1e-12,
                &ctx,
            );
            let r = lfilter(&b, &a, &xd, &FilterOptions::default()).unwrap();
            assert_allclose(&r.y, &e0.y, 1e-11, 1e-12, &ctx);
            assert!(r.zf.is_none());
        }
    }
}

/// The benchmark's filter: butter(8, 0.1) in ba form (128-sample chunks) and as sections
/// (32-sample chunks) on 128 x 4096 samples, without and with initial states.
#[test]
fn tiled_scan_order8_benchmark_filter() {
    let cpu = Device::cpu();
    let (b, a) = butter_ba(8, 0.1);
    let sos = butter_sos(8, 0.1);
    let x = randn::<f64>(&[128, 4096], 41, &cpu).unwrap();
    let zl = randn::<f64>(&[128, 8], 42, &cpu).unwrap();
    let zs = randn::<f64>(&[4, 128, 2], 43, &cpu).unwrap();
    let el = lfilter(&b, &a, &x, &FilterOptions::default()).unwrap().y;
    let es = sosfilt(&sos, &x, &FilterOptions::default()).unwrap().y;
    let elz = lfilter(&b, &a, &x, &with_zi(-1, &zl)).unwrap();
    let esz = sosfilt(&sos, &x, &with_zi(-1, &zs)).unwrap();
    let amax = |v: &Array<f64>| {
        v.to_vec()
            .unwrap()
            .iter()
            .fold(0.0f64, |m, v| m.max(v.abs()))
    };
    let scale = amax(&el);
    // with random initial states: relative to the scales of y (its zi transient) and of zf
    let zscale = amax(elz.zf.as_ref().unwrap());
    for dev in devices() {
        let xd = x.to_device(&dev).unwrap();
        let ctx = format!("order 8 on {dev}");
        let r = lfilter(&b, &a, &xd, &FilterOptions::default()).unwrap().y;
        // relative to the output's scale: ba form loses digits to its conditioning
        assert_allclose(&r, &el, 0.0, 1e-9 * scale, &ctx);
        let r = sosfilt(&sos, &xd, &FilterOptions::default()).unwrap().y;
        assert_allclose(&r, &es, 1e-10, 1e-12, &ctx);
        let (zld, zsd) = (zl.to_device(&dev).unwrap(), zs.to_device(&dev).unwrap());
        let r = lfilter(&b, &a, &xd, &with_zi(-1, &zld)).unwrap();
        let yscale = amax(&elz.y);
        assert_allclose(&r.y, &elz.y, 0.0, 1e-9 * yscale.max(scale), &ctx);
        assert_allclose(
            r.zf.as_ref().unwrap(),
            elz.zf.as_ref().unwrap(),
            0.0,
            1e-9 * zscale,
            &ctx,
        );
        let r = sosfilt(&sos, &xd, &with_zi(-1, &zsd)).unwrap();
        assert_allclose(&r.y, &esz.y, 1e-10, 1e-12, &ctx);
        assert_allclose(
            r.zf.as_ref().unwrap(),
            esz.zf.as_ref().unwrap(),
            1e-10,
            1e-12,
            &ctx,
        );
    }
}

/// f32 and Complex64 through the tiled kernel.
#[test]
fn tiled_scan_other_types() {
    let cpu = Device::cpu();
    let (b, a) = butter_ba(3, 0.2);
    let x32 = randn::<f32>(&[128, 4200], 51, &cpu).unwrap();
    let (b32, a32) = (b.astype::<f32>().unwrap(), a.astype::<f32>().unwrap());
    let e32 = lfilter(&b32, &a32, &x32, &FilterOptions::default())
        .unwrap()
        .y;
    let xc = randn::<c64>(&[128, 4100], 52, &cpu).unwrap();
    let (bc, ac) = (b.astype::<c64>().unwrap(), a.astype::<c64>().unwrap());
    let ec = lfilter(&bc, &ac, &xc, &FilterOptions::default()).unwrap().y;
    for dev in devices() {
        let r = lfilter(
            &b32,
            &a32,
            &x32.to_device(&dev).unwrap(),
            &FilterOptions::default(),
        );
        assert_allclose(&r.unwrap().y, &e32, 1e-4, 1e-5, &format!("f32 on {dev}"));
        let r = lfilter(
            &bc,
            &ac,
            &xc.to_device(&dev).unwrap(),
            &FilterOptions::default(),
        );
        assert_allclose(&r.unwrap().y, &ec, 1e-11, 1e-12, &format!("c64 on {dev}"));
    }
}

/// Initial and final states through the tiled kernel in the other types and layouts: f32 and
/// Complex64 sections and ba forms with zi, a 3-D batch (2 x 64 signals, filtered axis last, an
/// exact multiple of every tile: 8192 samples), and a middle axis of length n with a trailing
/// axis of length 1 (still contiguous signals, zi of shape (128, k, 1)).
#[test]
fn tiled_scan_states_types_and_layouts() {
    let cpu = Device::cpu();
    let (b, a) = butter_ba(4, 0.15);
    let sos = butter_sos(6, 0.1);
    // f32 sections with zi
    let x32 = randn::<f32>(&[128, 4321], 61, &cpu).unwrap();
    let z32 = randn::<f32>(&[3, 128, 2], 62, &cpu).unwrap();
    let sos32 = sos.astype::<f32>().unwrap();
    let e32 = sosfilt(&sos32, &x32, &with_zi(-1, &z32)).unwrap();
    // f32 rounding is relative to the largest values a row has carried, not to each element:
    // the random initial states drive later sections (DC gains in the hundreds) to values of
    // about 2e3 that decay, and the rounding of those transients (a few eps of that scale, by
    // any order of summation: a chunked f32 scan and the sequential one both differ from the
    // f64 result by ~4e-7 of it in a NumPy emulation) stays in the small values that follow
    let scale32 = e32
        .y
        .to_vec()
        .unwrap()
        .iter()
        .fold(0f32, |m, v| m.max(v.abs())) as f64;
    let atol32 = 32.0 * f32::EPSILON as f64 * scale32;
    // Complex64 ba form with zi
    let xc = randn::<c64>(&[128, 4097], 63, &cpu).unwrap();
    let zc = randn::<c64>(&[128, 4], 64, &cpu).unwrap();
    let (bc, ac) = (b.astype::<c64>().unwrap(), a.astype::<c64>().unwrap());
    let ec = lfilter(&bc, &ac, &xc, &with_zi(-1, &zc)).unwrap();
    // 3-D batch, 8192 samples
    let x3 = randn::<f64>(&[2, 64, 8192], 65, &cpu).unwrap();
    let z3 = randn::<f64>(&[3, 2, 64, 2], 66, &cpu).unwrap();
    let e3 = sosfilt(&sos, &x3, &with_zi(-1, &z3)).unwrap();
    // middle axis, trailing axis of length 1
    let xm = randn::<f64>(&[128, 4100, 1], 67, &cpu).unwrap();
    let zm = randn::<f64>(&[128, 4, 1], 68, &cpu).unwrap();
    let em = lfilter(&b, &a, &xm, &with_zi(1, &zm)).unwrap();
    for dev in devices() {
        let to = |v: &Array<f64>| v.to_device(&dev).unwrap();
        let (x32d, z32d) = (x32.to_device(&dev).unwrap(), z32.to_device(&dev).unwrap());
        let (xcd, zcd) = (xc.to_device(&dev).unwrap(), zc.to_device(&dev).unwrap());
        let (x3d, z3d, xmd, zmd) = (to(&x3), to(&z3), to(&xm), to(&zm));
        let r = sosfilt(&sos32, &x32d, &with_zi(-1, &z32d)).unwrap();
        let ctx = format!("f32 sos on {dev}");
        assert_allclose(&r.y, &e32.y, 1e-4, atol32, &ctx);
        assert_allclose(
            r.zf.as_ref().unwrap(),
            e32.zf.as_ref().unwrap(),
            1e-4,
            atol32,
            &ctx,
        );
        let r = lfilter(&bc, &ac, &xcd, &with_zi(-1, &zcd)).unwrap();
        let ctx = format!("c64 ba on {dev}");
        assert_allclose(&r.y, &ec.y, 1e-11, 1e-12, &ctx);
        assert_allclose(
            r.zf.as_ref().unwrap(),
            ec.zf.as_ref().unwrap(),
            1e-11,
            1e-12,
            &ctx,
        );
        let r = sosfilt(&sos, &x3d, &with_zi(-1, &z3d)).unwrap();
        let ctx = format!("3-D sos on {dev}");
        assert_allclose(&r.y, &e3.y, 1e-11, 1e-12, &ctx);
        assert_allclose(
            r.zf.as_ref().unwrap(),
            e3.zf.as_ref().unwrap(),
            1e-11,
            1e-12,
            &ctx,
        );
        let r = lfilter(&b, &a, &xmd, &with_zi(1, &zmd)).unwrap();
        let ctx = format!("middle axis on {dev}");
        assert_allclose(&r.y, &em.y, 1e-11, 1e-12, &ctx);
        assert_allclose(
            r.zf.as_ref().unwrap(),
            em.zf.as_ref().unwrap(),
            1e-11,
            1e-12,
            &ctx,
        );
    }
    // the CPU's final states continue the filter: a split signal gives the whole one
    let whole = lfilter(&b, &a, &xm, &with_zi(1, &zm)).unwrap();
    let xv = xm.to_vec().unwrap();
    let (h1, h2): (Vec<f64>, Vec<f64>) = {
        let mut h1 = Vec::new();
        let mut h2 = Vec::new();
        for row in xv.chunks(4100) {
            h1.extend_from_slice(&row[..1000]);
            h2.extend_from_slice(&row[1000..]);
        }
        (h1, h2)
    };
    let p1 = Array::from_vec(h1, &[128, 1000, 1], &cpu).unwrap();
    let p2 = Array::from_vec(h2, &[128, 3100, 1], &cpu).unwrap();
    let r1 = lfilter(&b, &a, &p1, &with_zi(1, &zm)).unwrap();
    let r2 = lfilter(&b, &a, &p2, &with_zi(1, r1.zf.as_ref().unwrap())).unwrap();
    assert_allclose(
        r2.zf.as_ref().unwrap(),
        whole.zf.as_ref().unwrap(),
        1e-12,
        1e-14,
        "split",
    );
}
