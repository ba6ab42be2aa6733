//! The GPU's block-tiled IIR scan (many contiguous long signals: one block per signal, tiles of
//! TB x TL samples, chunk states combined through powers of the zero-input map) against the
//! CPU's serial recurrence: lfilter and sosfilt, with and without initial states (the final
//! states too), partial last tiles, f32, f64, Complex64, and the ill-conditioned order-8
//! Butterworth filter in ba form of the benchmark. On the CPU (no GPU here) the tests check
//! the CPU against itself and the naive recurrence only.
//!
//! Tolerances: the tiled scan rounds the carried states differently from the serial loop; the
//! chunk length is chosen so that the zero-input map has decayed (|M^TL| <= 1), which keeps
//! order-4 filters at ~1e-13 and butter(8, 0.1) in ba form (whose state map grows to 1.5e4
//! before it decays) at ~1e-10 relative to the output's scale in f64.

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
        let el = lfilter(
            &b,
            &a,
            &x,
            &FilterOptions {
                axis: -1,
                zi: Some(&zl),
            },
        )
        .unwrap();
        let es = sosfilt(
            &sos,
            &x,
            &FilterOptions {
                axis: -1,
                zi: Some(&zs),
            },
        )
        .unwrap();
        let e0 = lfilter(&b, &a, &x, &FilterOptions::default()).unwrap();
        for dev in devices() {
            let xd = x.to_device(&dev).unwrap();
            let (zld, zsd) = (zl.to_device(&dev).unwrap(), zs.to_device(&dev).unwrap());
            let ctx = format!("{shape:?} on {dev}");
            let r = lfilter(
                &b,
                &a,
                &xd,
                &FilterOptions {
                    axis: -1,
                    zi: Some(&zld),
                },
            )
            .unwrap();
            assert_allclose(&r.y, &el.y, 1e-11, 1e-12, &ctx);
            assert_allclose(
                r.zf.as_ref().unwrap(),
                el.zf.as_ref().unwrap(),
                1e-11,
                1e-12,
                &ctx,
            );
            let r = sosfilt(
                &sos,
                &xd,
                &FilterOptions {
                    axis: -1,
                    zi: Some(&zsd),
                },
            )
            .unwrap();
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

/// The benchmark's filter: butter(8, 0.1) in ba form and as sections on 128 x 4096 samples.
#[test]
fn tiled_scan_order8_benchmark_filter() {
    let cpu = Device::cpu();
    let (b, a) = butter_ba(8, 0.1);
    let sos = butter_sos(8, 0.1);
    let x = randn::<f64>(&[128, 4096], 41, &cpu).unwrap();
    let el = lfilter(&b, &a, &x, &FilterOptions::default()).unwrap().y;
    let es = sosfilt(&sos, &x, &FilterOptions::default()).unwrap().y;
    let scale = el
        .to_vec()
        .unwrap()
        .iter()
        .fold(0.0f64, |m, v| m.max(v.abs()));
    for dev in devices() {
        let xd = x.to_device(&dev).unwrap();
        let ctx = format!("order 8 on {dev}");
        let r = lfilter(&b, &a, &xd, &FilterOptions::default()).unwrap().y;
        // relative to the output's scale: ba form loses digits to its conditioning
        assert_allclose(&r, &el, 0.0, 1e-9 * scale, &ctx);
        let r = sosfilt(&sos, &xd, &FilterOptions::default()).unwrap().y;
        assert_allclose(&r, &es, 1e-10, 1e-12, &ctx);
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
