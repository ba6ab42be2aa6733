//! B-splines (cspline1d, qspline1d, cspline2d, qspline2d, spline_filter, the evaluations,
//! gauss_spline), wavelets (ricker, morlet, morlet2, cwt) and zoom_fft/ZoomFft against SciPy
//! (tests/data/splines.npz from tests/golden/gen.py's `signal_splines` section) on every
//! device, GPU against CPU on larger inputs, bad inputs with the same typed errors.

use cusci_core::npy::{load_npz, DynArray};
use cusci_core::testing::{assert_allclose, for_each_device, randn};
use cusci_core::{c32, c64, Array, Device, Error};
use cusci_signal::*;
use std::collections::BTreeMap;

const NPZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/splines.npz");

struct G(BTreeMap<String, DynArray>);
impl G {
    fn load() -> G {
        G(load_npz(NPZ, &Device::cpu()).unwrap().into_iter().collect())
    }
    fn f(&self, k: &str) -> Array<f64> {
        self.0[k]
            .as_array::<f64>()
            .unwrap_or_else(|| panic!("{k} is not f64"))
            .clone()
    }
    fn c(&self, k: &str) -> Array<c64> {
        self.0[k]
            .as_array::<c64>()
            .unwrap_or_else(|| panic!("{k} is not c128"))
            .clone()
    }
    fn f_on(&self, k: &str, dev: &Device) -> Array<f64> {
        self.f(k).to_device(dev).unwrap()
    }
    fn c_on(&self, k: &str, dev: &Device) -> Array<c64> {
        self.c(k).to_device(dev).unwrap()
    }
}

fn close<T: cusci_core::Element>(a: &Array<T>, e: &Array<T>, rtol: f64, atol: f64, what: &str) {
    assert_allclose(&a.to_device(&Device::cpu()).unwrap(), e, rtol, atol, what);
}

fn is_arg<T: std::fmt::Debug>(r: Result<T, Error>) -> bool {
    matches!(r, Err(Error::InvalidArgument { .. }))
}

#[test]
fn spline1d_golden() {
    let g = G::load();
    for_each_device(|dev| {
        let x = g.f_on("x", dev);
        for n in [1usize, 2, 3, 33] {
            let xs = x.slice_axis(0, Some(0), Some(n as isize), 1).unwrap();
            let c = cspline1d(&xs, 0.0).unwrap();
            close(
                &c,
                &g.f(&format!("cs1d_{n}")),
                1e-12,
                1e-13,
                &format!("cspline1d n={n} on {dev}"),
            );
            let q = qspline1d(&xs, 0.0).unwrap();
            close(
                &q,
                &g.f(&format!("qs1d_{n}")),
                1e-12,
                1e-13,
                &format!("qspline1d n={n} on {dev}"),
            );
            // f32: computed in f32 here, in f64 by SciPy
            let c32v = cspline1d(&xs.astype::<f32>().unwrap(), 0.0).unwrap();
            close(
                &c32v.astype::<f64>().unwrap(),
                &g.f(&format!("cs1d_{n}")),
                1e-5,
                1e-5,
                &format!("cspline1d f32 n={n} on {dev}"),
            );
        }
        for lam in ["0.5", "5.0"] {
            let c = cspline1d(&x, lam.parse().unwrap()).unwrap();
            close(
                &c,
                &g.f(&format!("cs1d_lam{lam}")),
                1e-11,
                1e-12,
                &format!("cspline1d lamb={lam} on {dev}"),
            );
        }
        let x3 = x.slice_axis(0, Some(0), Some(3), 1).unwrap();
        close(
            &cspline1d(&x3, 0.5).unwrap(),
            &g.f("cs1d_lam0.5_n3"),
            1e-11,
            1e-12,
            "cspline1d n=3 smooth",
        );
        let xc = g.c_on("xc", dev);
        close(
            &cspline1d(&xc, 0.0).unwrap(),
            &g.c("cs1d_c"),
            1e-12,
            1e-13,
            &format!("cspline1d complex on {dev}"),
        );
        close(
            &qspline1d(&xc, 0.0).unwrap(),
            &g.c("qs1d_c"),
            1e-12,
            1e-13,
            &format!("qspline1d complex on {dev}"),
        );
        let xc32 = xc.astype::<c32>().unwrap();
        close(
            &cspline1d(&xc32, 0.0).unwrap().astype::<c64>().unwrap(),
            &g.c("cs1d_c"),
            1e-5,
            1e-5,
            &format!("cspline1d c32 on {dev}"),
        );
    });
}

#[test]
fn spline1d_eval_golden() {
    let g = G::load();
    for_each_device(|dev| {
        let x = g.f_on("x", dev);
        let x33 = x.slice_axis(0, Some(0), Some(33), 1).unwrap();
        let newx = g.f_on("newx", dev);
        let cj = cspline1d(&x33, 0.0).unwrap();
        let y = cspline1d_eval(&cj, &newx, 0.7, -1.5).unwrap();
        close(
            &y,
            &g.f("cs1d_eval"),
            1e-12,
            1e-12,
            &format!("cspline1d_eval on {dev}"),
        );
        let y = cspline1d_eval(&cj, &newx, 1.0, 0.0).unwrap();
        close(
            &y,
            &g.f("cs1d_eval_plain"),
            1e-12,
            1e-12,
            &format!("cspline1d_eval plain on {dev}"),
        );
        let qj = qspline1d(&x33, 0.0).unwrap();
        let y = qspline1d_eval(&qj, &newx, 1.3, 2.0).unwrap();
        close(
            &y,
            &g.f("qs1d_eval"),
            1e-12,
            1e-12,
            &format!("qspline1d_eval on {dev}"),
        );
        // f32 coefficients at f32 points
        let y32 = cspline1d_eval(
            &cj.astype::<f32>().unwrap(),
            &newx.astype::<f32>().unwrap(),
            0.7,
            -1.5,
        )
        .unwrap();
        close(
            &y32.astype::<f64>().unwrap(),
            &g.f("cs1d_eval"),
            1e-5,
            1e-5,
            "cspline1d_eval f32",
        );
        // the spline interpolates its samples; one coefficient is a constant; empty points
        let at = Array::<f64>::arange(0.0, 33.0, 1.0, dev).unwrap();
        close(
            &cspline1d_eval(&cj, &at, 1.0, 0.0).unwrap(),
            &x33.to_device(&Device::cpu()).unwrap(),
            1e-12,
            1e-12,
            "interpolates",
        );
        close(
            &qspline1d_eval(&qj, &at, 1.0, 0.0).unwrap(),
            &x33.to_device(&Device::cpu()).unwrap(),
            1e-12,
            1e-12,
            "q interpolates",
        );
        let one = Array::from_vec(vec![2.5], &[1], dev).unwrap();
        let pts = Array::from_vec(vec![-3.0, 0.0, 0.4, 7.0], &[2, 2], dev).unwrap();
        let y = cspline1d_eval(&one, &pts, 1.0, 0.0).unwrap();
        assert_eq!(y.shape(), &[2, 2]);
        assert!(y
            .to_vec()
            .unwrap()
            .iter()
            .all(|v: &f64| (v - 2.5).abs() < 1e-14));
        let empty = Array::<f64>::zeros(&[0], dev).unwrap();
        assert_eq!(cspline1d_eval(&cj, &empty, 1.0, 0.0).unwrap().size(), 0);
        let nanp = Array::from_vec(vec![f64::NAN, f64::INFINITY], &[2], dev).unwrap();
        assert!(qspline1d_eval(&qj, &nanp, 1.0, 0.0)
            .unwrap()
            .to_vec()
            .unwrap()
            .iter()
            .all(|v| v.is_nan()));
        // errors
        assert!(is_arg(cspline1d_eval(&empty, &pts, 1.0, 0.0)));
        assert!(is_arg(cspline1d_eval(&cj, &pts, 0.0, 0.0)));
        let cj2 = Array::<f64>::zeros(&[2, 2], dev).unwrap();
        assert!(matches!(
            qspline1d_eval(&cj2, &pts, 1.0, 0.0),
            Err(Error::ShapeMismatch { .. })
        ));
    });
}

#[test]
fn spline2d_golden() {
    let g = G::load();
    for_each_device(|dev| {
        let img = g.f_on("img", dev);
        let d = Spline2dOptions::default();
        close(
            &cspline2d(&img, &d).unwrap(),
            &g.f("cs2d"),
            1e-12,
            1e-13,
            &format!("cspline2d on {dev}"),
        );
        let o = Spline2dOptions { lamb: 0.05, ..d };
        close(
            &cspline2d(&img, &o).unwrap(),
            &g.f("cs2d_lam"),
            1e-11,
            1e-12,
            &format!("cspline2d lamb on {dev}"),
        );
        let o = Spline2dOptions {
            precision: 1e-3,
            ..d
        };
        close(
            &cspline2d(&img, &o).unwrap(),
            &g.f("cs2d_prec"),
            1e-12,
            1e-13,
            &format!("cspline2d precision on {dev}"),
        );
        close(
            &qspline2d(&img, &d).unwrap(),
            &g.f("qs2d"),
            1e-12,
            1e-13,
            &format!("qspline2d on {dev}"),
        );
        let c = cspline2d(&img.astype::<f32>().unwrap(), &d).unwrap();
        close(
            &c.astype::<f64>().unwrap(),
            &g.f("cs2d_f32"),
            2e-5,
            2e-5,
            &format!("cspline2d f32 on {dev}"),
        );
        let imgc = g.c_on("imgc", dev);
        // SciPy computes complex128 in complex128 here (precision 1e-6)
        close(
            &cspline2d(&imgc, &d).unwrap(),
            &g.c("cs2d_c"),
            1e-12,
            1e-13,
            &format!("cspline2d complex on {dev}"),
        );

        let img2 = g.f_on("img2", dev);
        for (lmbda, key) in [(5.0, "sf"), (0.5, "sf_lam0.5")] {
            close(
                &spline_filter(&img2, lmbda).unwrap(),
                &g.f(key),
                1e-11,
                1e-12,
                &format!("spline_filter {lmbda} on {dev}"),
            );
        }
        let s = spline_filter(&img2.astype::<f32>().unwrap(), 5.0).unwrap();
        close(
            &s.astype::<f64>().unwrap(),
            &g.f("sf_f32"),
            2e-5,
            2e-5,
            &format!("spline_filter f32 on {dev}"),
        );
        // SciPy filters complex128 in complex64
        close(
            &spline_filter(&imgc, 0.0).unwrap(),
            &g.c("sf_c"),
            2e-5,
            2e-5,
            &format!("spline_filter complex on {dev}"),
        );

        // errors: too short to converge, bad lambda, bad shapes
        let small = randn::<f64>(&[11, 30], 3, dev).unwrap();
        assert!(matches!(
            cspline2d(&small, &d),
            Err(Error::NoConvergence { .. })
        ));
        assert!(cspline2d(&randn::<f64>(&[12, 12], 3, dev).unwrap(), &d).is_ok());
        assert!(matches!(
            spline_filter(&img, 5.0),
            Err(Error::NoConvergence { .. })
        ));
        assert!(is_arg(qspline2d(&img, &Spline2dOptions { lamb: 0.5, ..d })));
        let v = randn::<f64>(&[30], 3, dev).unwrap();
        assert!(matches!(
            spline_filter(&v, 5.0),
            Err(Error::ShapeMismatch { .. })
        ));
        let e = Array::<f64>::zeros(&[0, 4], dev).unwrap();
        assert!(is_arg(cspline2d(&e, &d)));
    });
}

#[test]
fn spline1d_errors() {
    for_each_device(|dev| {
        let x = randn::<f64>(&[10], 1, dev).unwrap();
        assert!(is_arg(cspline1d(&x, 0.005)));
        assert!(is_arg(cspline1d(&x, -1.0)));
        assert!(is_arg(cspline1d(&x, f64::NAN)));
        assert!(is_arg(qspline1d(&x, 0.5)));
        let x2 = randn::<f64>(&[2], 1, dev).unwrap();
        assert!(is_arg(cspline1d(&x2, 0.5)));
        let e = Array::<f64>::zeros(&[0], dev).unwrap();
        assert!(is_arg(cspline1d(&e, 0.0)));
        assert!(is_arg(qspline1d(&e, 0.0)));
        let m = randn::<f64>(&[3, 4], 1, dev).unwrap();
        assert!(matches!(
            cspline1d(&m, 0.0),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(is_arg(gauss_spline(&x, -1)));
    });
}

#[test]
fn gauss_spline_golden() {
    let g = G::load();
    for_each_device(|dev| {
        let t = g.f_on("tg", dev);
        close(
            &gauss_spline(&t, 0).unwrap(),
            &g.f("gs_0"),
            1e-14,
            1e-15,
            "gauss_spline 0",
        );
        close(
            &gauss_spline(&t, 3).unwrap(),
            &g.f("gs_3"),
            1e-14,
            1e-15,
            "gauss_spline 3",
        );
        let t32 = t.astype::<f32>().unwrap();
        close(
            &gauss_spline(&t32, 3).unwrap().astype::<f64>().unwrap(),
            &g.f("gs_3"),
            1e-6,
            1e-7,
            "gauss_spline f32",
        );
    });
}

/// The GPU against the CPU on inputs larger than the golden ones (long signals go through the
/// block-parallel scan there).
#[test]
fn splines_gpu_matches_cpu() {
    let Some(gpu) = cusci_core::testing::gpu() else {
        return;
    };
    let cpu = Device::cpu();
    let x = randn::<f64>(&[100_000], 7, &cpu).unwrap();
    for lam in [0.0, 2.0] {
        let a = cspline1d(&x, lam).unwrap();
        let b = cspline1d(&x.to_device(&gpu).unwrap(), lam).unwrap();
        close(&b, &a, 1e-9, 1e-10, &format!("cspline1d 1e5 lamb={lam}"));
    }
    let xf = x.astype::<f32>().unwrap();
    let a = qspline1d(&xf, 0.0).unwrap();
    let b = qspline1d(&xf.to_device(&gpu).unwrap(), 0.0).unwrap();
    close(&b, &a, 1e-4, 1e-4, "qspline1d f32 1e5");
    let img = randn::<f64>(&[300, 257], 8, &cpu).unwrap();
    let a = spline_filter(&img, 5.0).unwrap();
    let b = spline_filter(&img.to_device(&gpu).unwrap(), 5.0).unwrap();
    close(&b, &a, 1e-9, 1e-10, "spline_filter 300x257");
    let a = qspline2d(&img, &Spline2dOptions::default()).unwrap();
    let b = qspline2d(&img.to_device(&gpu).unwrap(), &Spline2dOptions::default()).unwrap();
    close(&b, &a, 1e-9, 1e-10, "qspline2d 300x257");
    let pts = Array::<f64>::linspace(-500.0, 100_500.0, 4099, true, &cpu).unwrap();
    let cj = cspline1d(&x, 0.0).unwrap();
    let a = cspline1d_eval(&cj, &pts, 1.0, 0.0).unwrap();
    let b = cspline1d_eval(
        &cj.to_device(&gpu).unwrap(),
        &pts.to_device(&gpu).unwrap(),
        1.0,
        0.0,
    )
    .unwrap();
    close(&b, &a, 1e-12, 1e-12, "cspline1d_eval 4099");
}

#[test]
fn spline_kernels_compile() {
    crate::processing_kernels_compile::compile_named(&["signal_splines"]);
}

#[test]
fn zoom_fft_golden() {
    let g = G::load();
    for_each_device(|dev| {
        let z = g.c_on("zx", dev);
        let d = ZoomFftOptions::default();
        let cases: Vec<(&str, (f64, f64), ZoomFftOptions)> = vec![
            ("zoom_a", (0.1, 0.6), ZoomFftOptions { m: Some(37), ..d }),
            (
                "zoom_b",
                (-0.3, 0.9),
                ZoomFftOptions {
                    m: Some(64),
                    fs: 3.0,
                    endpoint: true,
                },
            ),
            ("zoom_c", (0.0, 0.5), d),
            ("zoom_d", (0.2, 1.9), ZoomFftOptions { m: Some(80), ..d }),
        ];
        for (k, band, o) in cases {
            let y = zoom_fft(&z, band, &o, -1).unwrap();
            close(&y, &g.c(k), 1e-10, 1e-11, &format!("{k} on {dev}"));
            let t = ZoomFft::new(50, band, &o).unwrap();
            close(
                &t.apply(&z, 0).unwrap(),
                &g.c(k),
                1e-10,
                1e-11,
                &format!("ZoomFft {k} on {dev}"),
            );
        }
        let z2 = g.c_on("zx2", dev);
        let o = ZoomFftOptions { m: Some(11), ..d };
        let y = zoom_fft(&z2, (0.0, 0.25), &o, 0).unwrap();
        close(
            &y,
            &g.c("zoom_axis0"),
            1e-10,
            1e-11,
            &format!("zoom_fft axis 0 on {dev}"),
        );
        // the full band is the DFT (czt's default points)
        let full = zoom_fft(&z, (0.0, 2.0), &d, -1).unwrap();
        let dft = czt(&z, None, None, c64::new(1.0, 0.0), -1).unwrap();
        close(
            &full,
            &dft.to_device(&Device::cpu()).unwrap(),
            1e-10,
            1e-11,
            "zoom_fft full band",
        );
        // errors
        assert!(is_arg(zoom_fft(
            &z,
            (0.0, 1.0),
            &ZoomFftOptions { m: Some(0), ..d },
            -1
        )));
        assert!(is_arg(zoom_fft(
            &z,
            (0.0, 1.0),
            &ZoomFftOptions { fs: 0.0, ..d },
            -1
        )));
        assert!(is_arg(zoom_fft(
            &z,
            (0.0, 1.0),
            &ZoomFftOptions {
                m: Some(1),
                endpoint: true,
                ..d
            },
            -1
        )));
        assert!(is_arg(zoom_fft(&z, (0.0, 1.0), &d, 1)));
        assert!(is_arg(
            ZoomFft::new(40, (0.0, 1.0), &d).unwrap().apply(&z, -1)
        ));
        assert!(is_arg(ZoomFft::new(0, (0.0, 1.0), &d)));
    });
    let t = ZoomFft::new(10, (0.25, 0.75), &ZoomFftOptions::default()).unwrap();
    let p = t.points().unwrap();
    assert_eq!(p.len(), 10);
    assert!((p[0] - c64::from_polar(1.0, std::f64::consts::PI * 0.25)).norm() < 1e-14);
}

#[test]
fn wavelets_golden() {
    let g = G::load();
    for_each_device(|dev| {
        for (p, a) in [(1usize, "1.0"), (10, "4.0"), (33, "2.5")] {
            let w = ricker::<f64>(p, a.parse().unwrap(), dev).unwrap();
            close(
                &w,
                &g.f(&format!("ricker_{p}_{a}")),
                1e-14,
                1e-15,
                &format!("ricker {p} {a}"),
            );
        }
        let w32 = ricker::<f32>(33, 2.5, dev)
            .unwrap()
            .astype::<f64>()
            .unwrap();
        close(&w32, &g.f("ricker_33_2.5"), 1e-6, 1e-7, "ricker f32");
        let d = MorletOptions::default();
        close(
            &morlet(16, &d, dev).unwrap(),
            &g.c("morlet_16"),
            1e-13,
            1e-14,
            "morlet 16",
        );
        let o = MorletOptions {
            w: 3.0,
            s: 0.5,
            complete: false,
        };
        close(
            &morlet(17, &o, dev).unwrap(),
            &g.c("morlet_17_b"),
            1e-13,
            1e-14,
            "morlet 17",
        );
        close(
            &morlet(1, &d, dev).unwrap(),
            &g.c("morlet_1"),
            1e-13,
            1e-14,
            "morlet 1",
        );
        close(
            &morlet2(20, 3.0, 5.0, dev).unwrap(),
            &g.c("morlet2_20"),
            1e-13,
            1e-14,
            "morlet2 20",
        );
        close(
            &morlet2(7, 1.5, 6.0, dev).unwrap(),
            &g.c("morlet2_7"),
            1e-13,
            1e-14,
            "morlet2 7",
        );

        let x = g.f_on("cwt_x", dev);
        let y = cwt(&x, &CwtWavelet::Ricker, &[1.0, 2.0, 3.0, 5.0, 8.0, 0.75]).unwrap();
        close(
            &y,
            &g.f("cwt_ricker"),
            1e-12,
            1e-13,
            &format!("cwt ricker on {dev}"),
        );
        let y32 = cwt(
            &x.astype::<f32>().unwrap(),
            &CwtWavelet::Ricker,
            &[1.0, 2.0, 3.0, 5.0, 8.0, 0.75],
        )
        .unwrap();
        close(
            &y32.astype::<f64>().unwrap(),
            &g.f("cwt_ricker"),
            1e-5,
            1e-5,
            &format!("cwt ricker f32 on {dev}"),
        );
        let xc = x.astype::<c64>().unwrap();
        let y = cwt(&xc, &CwtWavelet::Morlet2 { w: 6.0 }, &[1.0, 2.0, 4.0]).unwrap();
        close(
            &y,
            &g.c("cwt_morlet2"),
            1e-12,
            1e-13,
            &format!("cwt morlet2 on {dev}"),
        );
        let x7 = x.slice_axis(0, Some(0), Some(7), 1).unwrap();
        let y = cwt(&x7, &CwtWavelet::Ricker, &[0.5, 1.0, 2.0]).unwrap();
        close(
            &y,
            &g.f("cwt_short"),
            1e-12,
            1e-13,
            &format!("cwt short on {dev}"),
        );
        // a custom wavelet equal to ricker gives the same rows
        fn rk(p: usize, a: f64) -> Vec<c64> {
            ricker::<f64>(p, a, &Device::cpu())
                .unwrap()
                .to_vec()
                .unwrap()
                .into_iter()
                .map(|v| c64::new(v, 0.0))
                .collect()
        }
        let y = cwt(&x, &CwtWavelet::Custom(rk), &[1.0, 2.0, 3.0, 5.0, 8.0]).unwrap();
        let e = g
            .f("cwt_ricker")
            .slice_axis(0, Some(0), Some(5), 1)
            .unwrap()
            .contiguous()
            .unwrap();
        close(&y, &e, 1e-12, 1e-13, "cwt custom");
        // errors
        assert!(is_arg(cwt(&x, &CwtWavelet::Morlet2 { w: 5.0 }, &[1.0])));
        assert!(is_arg(cwt(&x, &CwtWavelet::Ricker, &[])));
        assert!(is_arg(cwt(&x, &CwtWavelet::Ricker, &[0.0])));
        assert!(is_arg(cwt(&x, &CwtWavelet::Ricker, &[f64::NAN])));
        let e0 = Array::<f64>::zeros(&[0], dev).unwrap();
        assert!(is_arg(cwt(&e0, &CwtWavelet::Ricker, &[1.0])));
        let m = Array::<f64>::zeros(&[2, 3], dev).unwrap();
        assert!(matches!(
            cwt(&m, &CwtWavelet::Ricker, &[1.0]),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(is_arg(ricker::<f64>(4, 0.0, dev)));
        assert!(is_arg(morlet2(4, -1.0, 5.0, dev)));
    });
}

#[test]
fn cwt_gpu_matches_cpu() {
    let Some(gpu) = cusci_core::testing::gpu() else {
        return;
    };
    let cpu = Device::cpu();
    let widths: Vec<f64> = (1..=31).map(|w| w as f64).collect();
    let x = randn::<f32>(&[20_000], 11, &cpu).unwrap();
    let a = cwt(&x, &CwtWavelet::Ricker, &widths).unwrap();
    let b = cwt(&x.to_device(&gpu).unwrap(), &CwtWavelet::Ricker, &widths).unwrap();
    close(&b, &a, 1e-5, 1e-5, "cwt f32 20000x31");
    let xc = randn::<c64>(&[5_000], 12, &cpu).unwrap();
    let a = cwt(&xc, &CwtWavelet::Morlet2 { w: 5.0 }, &widths).unwrap();
    let b = cwt(
        &xc.to_device(&gpu).unwrap(),
        &CwtWavelet::Morlet2 { w: 5.0 },
        &widths,
    )
    .unwrap();
    close(&b, &a, 1e-12, 1e-12, "cwt c64 5000x31");
}

#[test]
fn wavelet_kernels_compile() {
    crate::processing_kernels_compile::compile_named(&["signal_wavelets"]);
}
