//! filtfilt with method='gust' (Gustafsson's initial conditions): SciPy's golden values (whole
//! impulse response, irlen, axis 0, short signals, complex signals, another filter), the
//! defining property (forward-backward equals backward-forward from the chosen states), every
//! device against the CPU, typed errors.

use cusci_core::npy::load_npz_array;
use cusci_core::testing::{assert_allclose, devices, randn};
use cusci_core::{c64, Array, Device, Element, Error};
use cusci_signal::*;

const NPZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/iir.npz");

fn golden<T: Element>(name: &str) -> Array<T> {
    load_npz_array::<T>(NPZ, name, &Device::cpu()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn gust(irlen: Option<usize>, axis: isize) -> FiltfiltOptions {
    FiltfiltOptions {
        axis,
        method: FiltMethod::Gust,
        irlen,
        ..Default::default()
    }
}

#[test]
fn gust_matches_scipy() {
    for dev in devices() {
        let g = |n: &str| golden::<f64>(n).to_device(&dev).unwrap();
        let (b, a, x) = (g("g_b"), g("g_a"), g("g_x"));
        let ctx = |n: &str| format!("{n} on {dev}");
        let y = filtfilt(&b, &a, &x, &gust(None, -1)).unwrap();
        assert_eq!(y.device(), &dev);
        assert_allclose(&y, &golden::<f64>("gust"), 1e-10, 1e-12, &ctx("gust"));
        let y = filtfilt(&b, &a, &x, &gust(Some(30), -1)).unwrap();
        assert_allclose(
            &y,
            &golden::<f64>("gust_ir"),
            1e-10,
            1e-12,
            &ctx("irlen 30"),
        );
        // irlen >= n / 2 is the whole response, as SciPy
        let y = filtfilt(&b, &a, &x, &gust(Some(100), -1)).unwrap();
        assert_allclose(&y, &golden::<f64>("gust"), 1e-10, 1e-12, &ctx("irlen 100"));
        let xt = x.t().contiguous().unwrap();
        let y = filtfilt(&b, &a, &xt, &gust(None, 0)).unwrap();
        assert_allclose(&y, &golden::<f64>("gust_ax0"), 1e-10, 1e-12, &ctx("axis 0"));
        // a non-contiguous view along axis 0 gives the same
        let y = filtfilt(&b, &a, &x.t(), &gust(None, 0)).unwrap();
        assert_allclose(&y, &golden::<f64>("gust_ax0"), 1e-10, 1e-12, &ctx("view"));
        let xs = x.slice_axis(1, Some(0), Some(7), 1).unwrap();
        let y = filtfilt(&b, &a, &xs, &gust(None, -1)).unwrap();
        assert_allclose(&y, &golden::<f64>("gust_short"), 1e-9, 1e-11, &ctx("short"));
        let xc = golden::<c64>("g_c").to_device(&dev).unwrap();
        let (bc, ac) = (b.astype::<c64>().unwrap(), a.astype::<c64>().unwrap());
        let y = filtfilt(&bc, &ac, &xc, &gust(None, -1)).unwrap();
        assert_allclose(&y, &golden::<c64>("gust_c"), 1e-10, 1e-12, &ctx("complex"));
        let (b3, a3) = (g("g_b3"), g("g_a3"));
        let y = filtfilt(&b3, &a3, &x, &gust(Some(40), -1)).unwrap();
        assert_allclose(
            &y,
            &golden::<f64>("gust_cheb"),
            1e-10,
            1e-12,
            &ctx("cheby1"),
        );
    }
}

/// Gustafsson's states make the result a zero-phase filter that is also what backward-forward
/// filtering gives: filtering the reversed signal and reversing gives the same output.
#[test]
fn gust_is_time_reversal_symmetric() {
    let cpu = Device::cpu();
    let (b, a) = (golden::<f64>("g_b"), golden::<f64>("g_a"));
    let x = randn::<f64>(&[2, 300], 9, &cpu).unwrap();
    let y = filtfilt(&b, &a, &x, &gust(None, -1)).unwrap();
    let xr = x.slice_axis(-1, None, None, -1).unwrap();
    let yr = filtfilt(&b, &a, &xr, &gust(None, -1)).unwrap();
    let yrr = yr
        .slice_axis(-1, None, None, -1)
        .unwrap()
        .contiguous()
        .unwrap();
    assert_allclose(&yrr, &y, 1e-10, 1e-12, "reversal");
    // a pure gain is squared (order 0)
    let g = Array::from_vec(vec![3.0], &[1], &cpu).unwrap();
    let one = Array::from_vec(vec![2.0], &[1], &cpu).unwrap();
    let y = filtfilt(&g, &one, &x, &gust(None, -1)).unwrap();
    assert_allclose(&y, &x.mul_scalar(2.25).unwrap(), 1e-15, 0.0, "gain");
}

/// Every device against the CPU on a batch along the last axis (the GPU's block-tiled scan for
/// the four passes) and along axis 0 with a truncated impulse response.
#[test]
fn gust_devices_agree_with_cpu() {
    let cpu = Device::cpu();
    let (b, a) = (golden::<f64>("g_b"), golden::<f64>("g_a"));
    for (shape, axis, irlen) in [
        (&[130usize, 4100][..], -1isize, Some(200usize)),
        (&[600, 3][..], 0, None),
    ] {
        let x = randn::<f64>(shape, 4, &cpu).unwrap();
        let want = filtfilt(&b, &a, &x, &gust(irlen, axis)).unwrap();
        for dev in devices() {
            let y = filtfilt(&b, &a, &x.to_device(&dev).unwrap(), &gust(irlen, axis)).unwrap();
            assert_allclose(&y, &want, 1e-9, 1e-11, &format!("{shape:?} on {dev}"));
        }
    }
}

#[test]
fn gust_bad_input_typed_errors() {
    for dev in devices() {
        let x = randn::<c64>(&[40], 2, &dev).unwrap();
        let b = Array::from_vec(vec![c64::new(0.5, 0.1), c64::new(0.5, 0.0)], &[2], &dev).unwrap();
        let a = Array::from_vec(vec![c64::new(1.0, 0.0), c64::new(-0.5, 0.0)], &[2], &dev).unwrap();
        // complex coefficients: SciPy silently drops their imaginary parts; refused here
        assert!(matches!(
            filtfilt(&b, &a, &x, &gust(None, -1)),
            Err(Error::InvalidArgument { .. })
        ));
        let xr = randn::<f64>(&[40], 2, &dev).unwrap();
        let br = Array::from_vec(vec![0.5, 0.5], &[2], &dev).unwrap();
        let a0 = Array::from_vec(vec![0.0, 1.0], &[2], &dev).unwrap();
        assert!(matches!(
            filtfilt(&br, &a0, &xr, &gust(None, -1)),
            Err(Error::InvalidArgument { .. })
        ));
        // sosfiltfilt has no gust method
        let sos = Array::from_vec(vec![0.5, 0.5, 0.0, 1.0, -0.5, 0.0], &[1, 6], &dev).unwrap();
        assert!(matches!(
            sosfiltfilt(&sos, &xr, &gust(None, -1)),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
