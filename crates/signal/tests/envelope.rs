//! envelope and lombscargle(normalize='amplitude') against SciPy (golden `envelope.npz`,
//! written by `tests/golden/gen.py signal_shortfft`) on every device, f32 on the GPU against
//! the CPU, and the typed errors of bad input.

use cusci_core::npy::load_npz_array;
use cusci_core::testing::{assert_slices_close, devices, randn};
use cusci_core::{c64, Array, Device, Error};
use cusci_signal::*;

const NPZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/envelope.npz");

fn g(name: &str, dev: &Device) -> Array<f64> {
    load_npz_array::<f64>(NPZ, name, dev).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn gc(name: &str, dev: &Device) -> Array<c64> {
    let re = g(&format!("{name}_re"), &Device::Cpu);
    let im = g(&format!("{name}_im"), &Device::Cpu).to_vec().unwrap();
    let v: Vec<c64> = re
        .to_vec()
        .unwrap()
        .iter()
        .zip(&im)
        .map(|(a, b)| c64::new(*a, *b))
        .collect();
    Array::from_vec(v, re.shape(), dev).unwrap()
}

fn close(a: &Array<f64>, e: &Array<f64>, what: &str) {
    assert_eq!(a.shape(), e.shape(), "{what}: shape");
    assert_slices_close(
        &a.to_vec().unwrap(),
        &e.to_vec().unwrap(),
        a.shape(),
        1e-9,
        1e-11,
        what,
    );
}

fn close_c(a: &Array<c64>, e: &Array<c64>, what: &str) {
    assert_eq!(a.shape(), e.shape(), "{what}: shape");
    let (av, ev) = (a.to_vec().unwrap(), e.to_vec().unwrap());
    for (p, q) in av.iter().zip(&ev) {
        assert!(
            (p - q).norm() <= 1e-9 * q.norm() + 1e-11,
            "{what}: {p} vs {q}"
        );
    }
}

#[allow(clippy::type_complexity)]
fn cases() -> Vec<(
    &'static str,
    bool,
    (Option<i64>, Option<i64>),
    Option<usize>,
    bool,
    Option<EnvelopeResidual>,
)> {
    use EnvelopeResidual::*;
    vec![
        ("def", false, (Some(1), None), None, false, Some(Lowpass)),
        (
            "band",
            false,
            (Some(3), Some(12)),
            None,
            false,
            Some(Lowpass),
        ),
        ("up", false, (Some(2), Some(20)), Some(100), true, Some(All)),
        (
            "down",
            false,
            (Some(1), Some(20)),
            Some(40),
            false,
            Some(Lowpass),
        ),
        ("odd", false, (Some(1), None), Some(33), false, Some(All)),
        ("none", false, (Some(0), Some(10)), None, false, None),
        (
            "neg",
            false,
            (Some(-5), Some(7)),
            Some(50),
            false,
            Some(Lowpass),
        ),
        ("c_def", true, (Some(1), None), None, false, Some(Lowpass)),
        (
            "c_neg",
            true,
            (Some(-10), Some(4)),
            Some(64),
            true,
            Some(All),
        ),
        (
            "c_negonly",
            true,
            (Some(-12), Some(-2)),
            Some(30),
            false,
            Some(Lowpass),
        ),
        (
            "c_down",
            true,
            (Some(-8), Some(8)),
            Some(36),
            false,
            Some(All),
        ),
    ]
}

#[test]
fn envelope_matches_scipy() {
    for dev in devices() {
        for (c, cplx, bp, n_out, squared, residual) in cases() {
            let o = EnvelopeOptions {
                bp_in: bp,
                n_out,
                squared,
                residual,
                axis: -1,
            };
            let what = format!("envelope {c} on {dev}");
            let e = g(&format!("env_{c}_env"), &Device::Cpu);
            if cplx {
                let z = gc("env_xc", &dev);
                let r = envelope(&z, &o).unwrap();
                close(&r.envelope, &e, &what);
                match r.residual {
                    Some(res) => close_c(&res, &gc(&format!("env_{c}_res"), &Device::Cpu), &what),
                    None => assert!(residual.is_none()),
                }
            } else {
                let z = g("env_x", &dev);
                let r = envelope(&z, &o).unwrap();
                close(&r.envelope, &e, &what);
                match r.residual {
                    Some(res) => close(&res, &g(&format!("env_{c}_res"), &Device::Cpu), &what),
                    None => assert!(residual.is_none()),
                }
            }
        }
        // axis 0 of the transposed signal
        let z = g("env_x", &dev).permute(&[1, 0]).unwrap();
        let o = EnvelopeOptions {
            bp_in: (Some(2), Some(25)),
            n_out: Some(70),
            axis: 0,
            ..Default::default()
        };
        let r = envelope(&z, &o).unwrap();
        close(
            &r.envelope,
            &g("env_ax0_env", &Device::Cpu),
            "axis 0 envelope",
        );
        close(
            &r.residual.unwrap(),
            &g("env_ax0_res", &Device::Cpu),
            "axis 0 residual",
        );
    }
}

#[test]
fn envelope_f32_gpu_matches_cpu() {
    let devs = devices();
    let Some(gpu) = devs.iter().find(|d| !matches!(d, Device::Cpu)) else {
        return;
    };
    let x = randn::<f32>(&[16, 500], 3, &Device::Cpu).unwrap();
    let o = EnvelopeOptions {
        bp_in: (Some(5), Some(120)),
        n_out: Some(333),
        residual: Some(EnvelopeResidual::All),
        ..Default::default()
    };
    let a = envelope(&x, &o).unwrap();
    let b = envelope(&x.to_device(gpu).unwrap(), &o).unwrap();
    for (p, q) in [
        (a.envelope, b.envelope),
        (a.residual.unwrap(), b.residual.unwrap()),
    ] {
        let (p, q) = (
            p.to_vec().unwrap(),
            q.to_device(&Device::Cpu).unwrap().to_vec().unwrap(),
        );
        for (u, v) in p.iter().zip(&q) {
            assert!((u - v).abs() <= 1e-4 * (1.0 + u.abs()), "f32 gpu vs cpu");
        }
    }
}

#[test]
fn lombscargle_amplitude_matches_scipy() {
    for dev in devices() {
        let (t, y, f, w) = (
            g("ls_t", &dev),
            g("ls_y", &dev),
            g("ls_f", &dev),
            g("ls_w", &dev),
        );
        let base = LombScargleOptions::default();
        let a = lombscargle_amplitude(&t, &y, &f, &base).unwrap();
        close_c(&a, &gc("ls_amp", &Device::Cpu), "amplitude");
        let fm = LombScargleOptions {
            floating_mean: true,
            ..Default::default()
        };
        let a = lombscargle_amplitude(&t, &y, &f, &fm).unwrap();
        close_c(
            &a,
            &gc("ls_amp_fm", &Device::Cpu),
            "amplitude floating mean",
        );
        let wo = LombScargleOptions {
            weights: Some(&w),
            ..Default::default()
        };
        let a = lombscargle_amplitude(&t, &y, &f, &wo).unwrap();
        close_c(&a, &gc("ls_amp_w", &Device::Cpu), "amplitude weights");
        // the real-valued entry point refuses the complex mode
        let am = LombScargleOptions {
            normalize: LombNormalize::Amplitude,
            ..Default::default()
        };
        assert!(matches!(
            lombscargle(&t, &y, &f, &am),
            Err(Error::InvalidArgument { .. })
        ));
    }
}

#[test]
fn envelope_bad_input() {
    for dev in devices() {
        let z = Array::<f64>::zeros(&[2, 16], &dev).unwrap();
        let bad =
            |o: EnvelopeOptions| matches!(envelope(&z, &o), Err(Error::InvalidArgument { .. }));
        let d = EnvelopeOptions::default;
        assert!(bad(EnvelopeOptions { axis: 2, ..d() }));
        assert!(bad(EnvelopeOptions {
            n_out: Some(0),
            ..d()
        }));
        assert!(bad(EnvelopeOptions {
            bp_in: (Some(5), Some(5)),
            ..d()
        }));
        assert!(bad(EnvelopeOptions {
            bp_in: (Some(-9), Some(3)),
            ..d()
        }));
        assert!(bad(EnvelopeOptions {
            bp_in: (Some(1), Some(9)),
            ..d()
        }));
        let e = Array::<f64>::zeros(&[2, 0], &dev).unwrap();
        assert!(matches!(
            envelope(&e, &d()),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
