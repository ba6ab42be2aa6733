//! Waveforms against SciPy (tests/data/analysis.npz) on every device, f32 against f64, bad
//! arguments.

use cusci_core::npy::{load_npz, DynArray};
use cusci_core::testing::{assert_allclose, for_each_device};
use cusci_core::{Array, Device, Error};
use cusci_signal::*;
use std::collections::BTreeMap;

const NPZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/analysis.npz");

fn golden() -> BTreeMap<String, DynArray> {
    load_npz(NPZ, &Device::cpu()).unwrap().into_iter().collect()
}
fn f(g: &BTreeMap<String, DynArray>, k: &str, dev: &Device) -> Array<f64> {
    g[k].as_array::<f64>()
        .unwrap_or_else(|| panic!("{k}"))
        .to_device(dev)
        .unwrap()
}

#[test]
fn chirps_and_sweep_poly_match_scipy() {
    let g = golden();
    for_each_device(|dev| {
        let t = f(&g, "t_chirp", dev);
        let cases = [
            ("chirp_linear", ChirpMethod::Linear, true),
            ("chirp_quadratic", ChirpMethod::Quadratic, true),
            ("chirp_quadratic_vz0", ChirpMethod::Quadratic, false),
            ("chirp_logarithmic", ChirpMethod::Logarithmic, true),
            ("chirp_hyperbolic", ChirpMethod::Hyperbolic, true),
        ];
        for (k, method, vz) in cases {
            let o = ChirpOptions {
                method,
                phi: 30.0,
                vertex_zero: vz,
            };
            let y = chirp(&t, 1.5, 2.0, 6.0, &o).unwrap();
            assert_eq!(y.device(), dev);
            assert_allclose(&y, &f(&g, k, dev), 1e-12, 1e-12, k);
        }
        let o = ChirpOptions {
            method: ChirpMethod::Logarithmic,
            ..Default::default()
        };
        let y = chirp(&t, 3.0, 2.0, 3.0, &o).unwrap();
        assert_allclose(
            &y,
            &f(&g, "chirp_log_const", dev),
            1e-12,
            1e-12,
            "log const",
        );
        let y = sweep_poly(&t, &[0.5, -1.0, 2.0, 3.0], 10.0).unwrap();
        assert_allclose(&y, &f(&g, "sweep_poly", dev), 1e-12, 1e-12, "sweep_poly");
        // f32 input: the same values rounded
        let t32 = t.astype::<f32>().unwrap();
        let y32 = chirp(&t32, 1.5, 2.0, 6.0, &ChirpOptions::default()).unwrap();
        let y64 = chirp(
            &t32.astype::<f64>().unwrap(),
            1.5,
            2.0,
            6.0,
            &ChirpOptions::default(),
        )
        .unwrap();
        assert_allclose(&y32, &y64.astype::<f32>().unwrap(), 1e-6, 1e-6, "f32");
    });
}

#[test]
fn gausspulse_sawtooth_square_match_scipy() {
    let g = golden();
    for_each_device(|dev| {
        let t = f(&g, "t_gauss", dev);
        let o = GaussPulseOptions {
            fc: 5000.0,
            bw: 0.6,
            bwr: -3.0,
            retquad: true,
            retenv: true,
        };
        let p = gausspulse(&t, &o).unwrap();
        assert_allclose(&p.yi, &f(&g, "gauss_yi", dev), 1e-12, 1e-14, "yi");
        assert_allclose(&p.yq.unwrap(), &f(&g, "gauss_yq", dev), 1e-12, 1e-14, "yq");
        assert_allclose(
            &p.yenv.unwrap(),
            &f(&g, "gauss_env", dev),
            1e-12,
            1e-14,
            "env",
        );
        let p = gausspulse(&t, &GaussPulseOptions::default()).unwrap();
        assert!(p.yq.is_none() && p.yenv.is_none());
        let ts = f(&g, "t_saw", dev);
        assert_allclose(
            &sawtooth(&ts, 0.3).unwrap(),
            &f(&g, "sawtooth_03", dev),
            1e-12,
            1e-12,
            "saw",
        );
        assert_allclose(
            &sawtooth(&ts, 1.0).unwrap(),
            &f(&g, "sawtooth_1", dev),
            1e-12,
            1e-12,
            "saw1",
        );
        assert_allclose(
            &square(&ts, 0.3).unwrap(),
            &f(&g, "square_03", dev),
            0.0,
            0.0,
            "square",
        );
        // width/duty outside [0, 1]: NaN everywhere
        assert!(sawtooth(&ts, 1.5)
            .unwrap()
            .to_vec()
            .unwrap()
            .iter()
            .all(|v| v.is_nan()));
        assert!(square(&ts, -0.1)
            .unwrap()
            .to_vec()
            .unwrap()
            .iter()
            .all(|v| v.is_nan()));
        // empty and 2-D inputs keep their shape
        let e = Array::<f32>::zeros(&[0], dev).unwrap();
        assert_eq!(square(&e, 0.5).unwrap().shape(), &[0]);
        let t2 = Array::<f64>::linspace(0.0, 7.0, 66, true, dev)
            .unwrap()
            .reshape(&[2, 33])
            .unwrap();
        let s2 = sawtooth(&t2, 0.5).unwrap();
        assert_eq!(s2.shape(), &[2, 33]);
        let s1 = sawtooth(&t2.reshape(&[66]).unwrap(), 0.5).unwrap();
        assert_eq!(s2.to_vec().unwrap(), s1.to_vec().unwrap());
    });
    let c = gausspulse_cutoff(1000.0, 0.5, -6.0, -60.0).unwrap();
    let want = g["gauss_cutoff"]
        .as_array::<f64>()
        .unwrap()
        .to_vec()
        .unwrap()[0];
    assert!((c - want).abs() <= 1e-15 * want, "{c} vs {want}");
}

#[test]
fn unit_impulse_and_max_len_seq() {
    for_each_device(|dev| {
        for n in [1usize, 2, 31, 32, 33, 257] {
            let y = unit_impulse::<f32>(&[n], &ImpulseIndex::Mid, dev).unwrap();
            let v = y.to_vec().unwrap();
            assert_eq!(v.iter().filter(|&&x| x != 0.0).count(), 1);
            assert_eq!(v[n / 2], 1.0);
        }
        let y = unit_impulse::<f64>(&[3, 4], &ImpulseIndex::At(vec![-1, 2]), dev).unwrap();
        let v = y.to_vec().unwrap();
        assert_eq!(v[2 * 4 + 2], 1.0);
        assert_eq!(v.iter().sum::<f64>(), 1.0);
        let y = unit_impulse::<f64>(&[3, 4], &ImpulseIndex::First, dev).unwrap();
        assert_eq!(y.to_vec().unwrap()[0], 1.0);
        for bad in [
            ImpulseIndex::At(vec![3, 0]),
            ImpulseIndex::At(vec![0]),
            ImpulseIndex::All(4),
        ] {
            let e = unit_impulse::<f64>(&[3, 4], &bad, dev).unwrap_err();
            assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
        }
    });
    let g = golden();
    let u8s = |k: &str| -> Vec<u8> {
        match &g[k] {
            DynArray::U8(a) => a.to_vec().unwrap(),
            _ => panic!("{k} is not u8"),
        }
    };
    let (s, st) = max_len_seq(5, None, None, None).unwrap();
    assert_eq!((s, st), (u8s("mls5_seq"), u8s("mls5_state")));
    let (s, st) =
        max_len_seq(4, Some(&[true, false, true, true]), Some(20), Some(&[3, 1])).unwrap();
    assert_eq!((s, st), (u8s("mls4_seq"), u8s("mls4_state")));
    for e in [
        max_len_seq(1, None, None, None).unwrap_err(),
        max_len_seq(4, Some(&[false; 4]), None, None).unwrap_err(),
        max_len_seq(4, Some(&[true; 3]), None, None).unwrap_err(),
        max_len_seq(4, None, None, Some(&[5])).unwrap_err(),
        max_len_seq(4, None, None, Some(&[])).unwrap_err(),
    ] {
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    }
}

#[test]
fn bad_waveform_arguments_are_typed_errors() {
    for_each_device(|dev| {
        let t = Array::<f64>::zeros(&[4], dev).unwrap();
        let log = ChirpOptions {
            method: ChirpMethod::Logarithmic,
            ..Default::default()
        };
        let hyp = ChirpOptions {
            method: ChirpMethod::Hyperbolic,
            ..Default::default()
        };
        let errs = [
            chirp(&t, -1.0, 1.0, 2.0, &log).unwrap_err(),
            chirp(&t, 0.0, 1.0, 2.0, &log).unwrap_err(),
            chirp(&t, 0.0, 1.0, 2.0, &hyp).unwrap_err(),
            gausspulse(
                &t,
                &GaussPulseOptions {
                    fc: -1.0,
                    ..Default::default()
                },
            )
            .unwrap_err(),
            gausspulse(
                &t,
                &GaussPulseOptions {
                    bw: 0.0,
                    ..Default::default()
                },
            )
            .unwrap_err(),
            gausspulse(
                &t,
                &GaussPulseOptions {
                    bwr: 0.0,
                    ..Default::default()
                },
            )
            .unwrap_err(),
        ];
        for e in errs {
            assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
        }
    });
    assert!(matches!(
        gausspulse_cutoff(1000.0, 0.5, -6.0, 0.0).unwrap_err(),
        Error::InvalidArgument { .. }
    ));
}
