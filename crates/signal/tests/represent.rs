//! Round trips between the filter representations, identities of the transforms, and the typed
//! errors of the design functions (host data: no device involved).

use cusci_core::{c64, Error};
use cusci_signal::*;

fn close(a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    let scale = b.iter().fold(1e-300f64, |m, v| m.max(v.abs()));
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= tol * scale, "{a:?} vs {b:?}");
    }
}

fn designs() -> Vec<(String, Zpk)> {
    let mut v = vec![];
    for n in [1usize, 2, 3, 6, 9] {
        for (name, ft) in [
            ("butter", FilterType::Butter),
            ("cheby1", FilterType::Cheby1 { rp: 1.0 }),
            ("cheby2", FilterType::Cheby2 { rs: 40.0 }),
            ("ellip", FilterType::Ellip { rp: 0.5, rs: 50.0 }),
            (
                "bessel",
                FilterType::Bessel {
                    norm: BesselNorm::Phase,
                },
            ),
        ] {
            for (bt, wn) in [
                (BType::Lowpass, vec![0.3]),
                (BType::Highpass, vec![0.6]),
                (BType::Bandpass, vec![0.2, 0.5]),
                (BType::Bandstop, vec![0.25, 0.7]),
            ] {
                let o = IirOptions {
                    btype: bt,
                    ..Default::default()
                };
                v.push((
                    format!("{name} {n} {bt:?}"),
                    iirfilter_zpk(n, &wn, ft, &o).unwrap(),
                ));
            }
        }
    }
    v
}

#[test]
fn zpk_tf_sos_round_trips_keep_the_response() {
    let fo = FreqzOptions {
        wor_n: WorN::N(50),
        ..Default::default()
    };
    for (name, zpk) in designs() {
        let h0 = freqz_zpk(&zpk.z, &zpk.p, zpk.k, &fo).unwrap().h;
        let sos = zpk2sos(&zpk.z, &zpk.p, zpk.k, Pairing::Auto, false).unwrap();
        let hs = sosfreqz(&sos, &fo).unwrap().h;
        let scale = h0.iter().fold(0.0f64, |m, v| m.max(v.norm()));
        for (a, b) in h0.iter().zip(&hs) {
            assert!(
                (a - b).norm() <= 1e-9 * scale,
                "{name}: sos response {a} vs {b}"
            );
        }
        // sos -> zpk -> sos gives the same sections
        let z2 = sos2zpk(&sos).unwrap();
        let sos2 = zpk2sos(&z2.z, &z2.p, z2.k, Pairing::Auto, false).unwrap();
        let hs2 = sosfreqz(&sos2, &fo).unwrap().h;
        for (a, b) in hs.iter().zip(&hs2) {
            assert!(
                (a - b).norm() <= 1e-8 * scale,
                "{name}: sos2zpk round trip {a} vs {b}"
            );
        }
        // tf -> sos (only low orders: the polynomial form of high orders is ill-conditioned)
        if zpk.p.len() <= 6 {
            let ba = zpk2tf(&zpk.z, &zpk.p, zpk.k).unwrap();
            let sos3 = tf2sos(&ba.b, &ba.a, Pairing::Auto, false).unwrap();
            let hs3 = sosfreqz(&sos3, &fo).unwrap().h;
            for (a, b) in h0.iter().zip(&hs3) {
                assert!((a - b).norm() <= 1e-7 * scale, "{name}: tf2sos {a} vs {b}");
            }
            // sos2tf keeps the padding of a first-order section: trailing zeros in b and a
            let ba2 = sos2tf(&sos).unwrap();
            let extra = ba2.a.len() - ba.a.len();
            assert!(ba2.a[ba.a.len()..].iter().all(|&v| v == 0.0));
            assert!(ba2.b[ba2.b.len() - extra..].iter().all(|&v| v == 0.0));
            close(&ba2.b[..ba2.b.len() - extra], &ba.b, 1e-9);
            close(&ba2.a[..ba.a.len()], &ba.a, 1e-9);
        }
    }
}

#[test]
fn tf2zpk_inverts_zpk2tf() {
    let z = [
        c64::new(1.0, 0.0),
        c64::new(-0.5, 0.7),
        c64::new(-0.5, -0.7),
    ];
    let p = [
        c64::new(0.3, 0.0),
        c64::new(0.1, 0.5),
        c64::new(0.1, -0.5),
        c64::new(-0.2, 0.0),
    ];
    let ba = zpk2tf(&z, &p, 2.5).unwrap();
    let zpk = tf2zpk(&ba.b, &ba.a).unwrap();
    assert!((zpk.k - 2.5).abs() < 1e-14);
    for r in &z {
        assert!(zpk.z.iter().any(|x| (x - r).norm() < 1e-12), "zero {r}");
    }
    for r in &p {
        assert!(zpk.p.iter().any(|x| (x - r).norm() < 1e-12), "pole {r}");
    }
    // trailing zeros of the polynomial are roots at 0; leading zeros are dropped
    let r = roots(&[0.0, 1.0, -3.0, 2.0, 0.0]).unwrap();
    let mut re: Vec<f64> = r.iter().map(|x| x.re).collect();
    re.sort_by(|a, b| a.partial_cmp(b).unwrap());
    close(&re, &[0.0, 1.0, 2.0], 1e-14);
}

#[test]
fn prototypes_and_transforms_identities() {
    // analog low-pass at wo = 1 is the prototype itself
    let o = IirOptions {
        analog: true,
        output: Output::Zpk,
        ..Default::default()
    };
    let z = butter(5, &[1.0], &o).unwrap().into_zpk().unwrap();
    assert_eq!(z, buttap(5).unwrap());
    // Butterworth analog magnitude is 1/sqrt(1 + w^(2N))
    let r = freqs_zpk(&z.z, &z.p, z.k, &WorN::Freqs(vec![0.5, 1.0, 2.0])).unwrap();
    for (w, h) in r.w.iter().zip(&r.h) {
        let want = 1.0 / (1.0 + w.powi(10)).sqrt();
        assert!((h.norm() - want).abs() < 1e-14);
    }
    // lp2hp then lp2hp again is the identity (zpk)
    let p = cheb1ap(4, 1.0).unwrap();
    let h = lp2hp_zpk(&p.z, &p.p, p.k, 2.0).unwrap();
    let back = lp2hp_zpk(&h.z[..0], &h.p, h.k, 2.0).unwrap();
    for (a, b) in back.p.iter().zip(&p.p) {
        assert!((a - b).norm() < 1e-14);
    }
    // bilinear of ba and of zpk agree
    let zb = bilinear_zpk(&p.z, &p.p, p.k, 3.0).unwrap();
    let ba = zpk2tf(&p.z, &p.p, p.k).unwrap();
    let bb = bilinear(&ba.b, &ba.a, 3.0).unwrap();
    let bz = zpk2tf(&zb.z, &zb.p, zb.k).unwrap();
    close(&bb.b, &bz.b, 1e-12);
    close(&bb.a, &bz.a, 1e-12);
    // a DC-normalised digital low-pass has |H(0)| = 1 (odd order Chebyshev I)
    let ba = cheby1(5, 1.0, &[0.3], &IirOptions::default())
        .unwrap()
        .into_ba()
        .unwrap();
    let h = freqz(
        &ba.b,
        &ba.a,
        &FreqzOptions {
            wor_n: WorN::N(1),
            ..Default::default()
        },
    )
    .unwrap()
    .h[0];
    assert!((h.norm() - 1.0).abs() < 1e-12);
}

#[test]
fn group_delay_of_delays_and_first_order() {
    let o = FreqzOptions {
        wor_n: WorN::N(16),
        ..Default::default()
    };
    let (_, gd) = group_delay(&[0.0, 0.0, 0.0, 2.0], &[1.0], &o).unwrap();
    assert!(gd.iter().all(|d| (d - 3.0).abs() < 1e-12));
    // H = 1 / (1 - a z^-1): gd = (a cos w - a^2) / (1 - 2 a cos w + a^2)
    let a = 0.6;
    let (w, gd) = group_delay(&[1.0], &[1.0, -a], &o).unwrap();
    for (w, d) in w.iter().zip(&gd) {
        let want = (a * w.cos() - a * a) / (1.0 - 2.0 * a * w.cos() + a * a);
        assert!((d - want).abs() < 1e-13, "{w}: {d} vs {want}");
    }
}

fn is_arg(r: Result<impl std::fmt::Debug, Error>) -> bool {
    matches!(r, Err(Error::InvalidArgument { .. }))
}

#[test]
fn bad_inputs_give_typed_errors() {
    let d = IirOptions::default();
    assert!(is_arg(butter(0, &[0.2], &d)));
    assert!(is_arg(butter(3, &[1.0], &d)));
    assert!(is_arg(butter(3, &[0.0], &d)));
    assert!(is_arg(butter(3, &[-0.2], &d)));
    assert!(is_arg(butter(3, &[f64::NAN], &d)));
    assert!(is_arg(cheby1(3, -1.0, &[0.2], &d)));
    assert!(is_arg(cheby2(3, 0.0, &[0.2], &d)));
    assert!(is_arg(ellip(3, 1.0, -40.0, &[0.2], &d)));
    let bp = IirOptions {
        btype: BType::Bandpass,
        ..d
    };
    assert!(matches!(
        butter(3, &[0.2], &bp),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        butter(3, &[0.2, 0.3], &d),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(is_arg(butter(3, &[0.5, 0.2], &bp)));
    // fs: frequencies must be below fs/2; fs with analog is refused
    let fs = IirOptions {
        fs: Some(100.0),
        ..d
    };
    assert!(butter(3, &[49.0], &fs).is_ok());
    assert!(is_arg(butter(3, &[50.0], &fs)));
    let an = IirOptions {
        analog: true,
        fs: Some(100.0),
        ..d
    };
    assert!(is_arg(butter(3, &[10.0], &an)));
    // analog frequencies may exceed 1
    let an = IirOptions { analog: true, ..d };
    assert!(butter(3, &[10.0], &an).is_ok());
    // representations
    assert!(is_arg(normalize(&[1.0], &[0.0, 0.0])));
    assert!(is_arg(zpk2tf(&[c64::new(0.0, 1.0)], &[], 1.0)));
    assert!(is_arg(bilinear_zpk(&[c64::new(1.0, 0.0)], &[], 1.0, 2.0)));
    assert!(is_arg(lp2lp_zpk(&[], &[c64::new(-1.0, 0.0)], 1.0, 0.0)));
    assert!(is_arg(zpk2sos(
        &[],
        &[c64::new(-1.0, 0.0)],
        1.0,
        Pairing::Nearest,
        true
    )));
    assert!(is_arg(sos2tf(&[])));
    assert!(is_arg(freqz(&[], &[1.0], &FreqzOptions::default())));
    assert!(is_arg(freqz(
        &[1.0],
        &[1.0],
        &FreqzOptions {
            fs: -1.0,
            ..Default::default()
        }
    )));
    // a filter asked for in one form and read in another
    assert!(is_arg(butter(2, &[0.2], &d).unwrap().into_sos()));
}
