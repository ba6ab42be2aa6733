//! Filter design, conversions and frequency responses against SciPy's own results, read from
//! `tests/data/design.npz` (written by the `signal_design` section of
//! `tests/golden/gen.py`).

use crate::common::Golden;
use cusci_core::c64;
use cusci_signal::*;

/// Every expected root matched to a distinct computed root within `rtol·max(1, |root|)`.
fn roots_match(got: &[c64], want: &[c64], rtol: f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} roots, expected {}", got.len(), want.len()));
    }
    let mut used = vec![false; got.len()];
    for w in want {
        let mut best = None;
        for (j, g) in got.iter().enumerate() {
            if used[j] {
                continue;
            }
            let d = (g - w).norm();
            if best.is_none_or(|(_, bd)| d < bd) {
                best = Some((j, d));
            }
        }
        let (j, d) = best.unwrap();
        if d > rtol * w.norm().max(1.0) {
            return Err(format!("root {w} nearest {} (|diff| {d:e})", got[j]));
        }
        used[j] = true;
    }
    Ok(())
}

/// Element-wise, relative to the largest magnitude of the expected vector.
fn vec_match(got: &[f64], want: &[f64], rtol: f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("length {}, expected {}", got.len(), want.len()));
    }
    let scale = want
        .iter()
        .fold(0.0f64, |m, v| m.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if (g - w).abs() > rtol * scale {
            return Err(format!("[{i}] = {g}, expected {w} (scale {scale:e})"));
        }
    }
    Ok(())
}

fn cvec_match(got: &[c64], want: &[c64], rtol: f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("length {}, expected {}", got.len(), want.len()));
    }
    let scale = want
        .iter()
        .fold(0.0f64, |m, v| m.max(v.norm()))
        .max(f64::MIN_POSITIVE);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if (g - w).norm() > rtol * scale {
            return Err(format!("[{i}] = {g}, expected {w} (scale {scale:e})"));
        }
    }
    Ok(())
}

fn ftype_of(p: &[f64]) -> FilterType {
    match p[0] as i64 {
        0 => FilterType::Butter,
        1 => FilterType::Cheby1 { rp: p[6] },
        2 => FilterType::Cheby2 { rs: p[7] },
        3 => FilterType::Ellip { rp: p[6], rs: p[7] },
        _ => FilterType::Bessel {
            norm: [BesselNorm::Phase, BesselNorm::Delay, BesselNorm::Mag][p[8] as usize],
        },
    }
}

fn opts_of(p: &[f64], output: Output) -> (usize, Vec<f64>, IirOptions) {
    let btype = [
        BType::Lowpass,
        BType::Highpass,
        BType::Bandpass,
        BType::Bandstop,
    ][p[2] as usize];
    let wn = if btype.is_band() {
        vec![p[4], p[5]]
    } else {
        vec![p[4]]
    };
    (
        p[1] as usize,
        wn,
        IirOptions {
            btype,
            analog: p[3] != 0.0,
            output,
            fs: None,
        },
    )
}

const RTOL: f64 = 1e-10;

#[test]
fn iir_designs_match_scipy() {
    let g = Golden::load("design.npz");
    let params = g.f("iir_params");
    let ncase = g.shape("iir_params")[0];
    let ks = g.f("iir_k");
    let mut failures = Vec::new();
    for i in 0..ncase {
        let p = &params[i * 9..(i + 1) * 9];
        let ft = ftype_of(p);
        let (n, wn, o) = opts_of(p, Output::Zpk);
        let name = format!(
            "case {i}: {ft:?} N={n} {:?} analog={} Wn={wn:?}",
            o.btype, o.analog
        );
        let zpk = match iirfilter_zpk(n, &wn, ft, &o) {
            Ok(z) => z,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let mut check = |what: &str, r: Result<(), String>| {
            if let Err(e) = r {
                failures.push(format!("{name}: {what}: {e}"));
            }
        };
        check("z", roots_match(&zpk.z, &g.ragc("iir_z", i), RTOL));
        check("p", roots_match(&zpk.p, &g.ragc("iir_p", i), RTOL));
        let kw = ks[i];
        check(
            "k",
            if (zpk.k - kw).abs() <= RTOL * kw.abs() {
                Ok(())
            } else {
                Err(format!("{} expected {kw}", zpk.k))
            },
        );
        let ba = iirfilter(
            n,
            &wn,
            ft,
            &IirOptions {
                output: Output::Ba,
                ..o
            },
        )
        .and_then(|f| f.into_ba())
        .unwrap();
        check("b", vec_match(&ba.b, &g.rag("iir_b", i), RTOL));
        check("a", vec_match(&ba.a, &g.rag("iir_a", i), RTOL));
        if !o.analog {
            let sos = iirfilter(
                n,
                &wn,
                ft,
                &IirOptions {
                    output: Output::Sos,
                    ..o
                },
            )
            .and_then(|f| f.into_sos())
            .unwrap();
            let want = g.rag("iir_sos", i);
            let got: Vec<f64> = sos.iter().flatten().copied().collect();
            if got.len() != want.len() {
                check(
                    "sos",
                    Err(format!("{} values, expected {}", got.len(), want.len())),
                );
            } else {
                for (r, (gr, wr)) in got.chunks(6).zip(want.chunks(6)).enumerate() {
                    check(&format!("sos row {r}"), vec_match(gr, wr, RTOL));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures of {ncase} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{ncase} IIR designs match SciPy");
}

/// SciPy's own (b, a), sos and (z, p, k) of case `i`: the response functions are tested on
/// SciPy's coefficients, so that the comparison measures the evaluation only.
fn design_ba_sos(g: &Golden, i: usize) -> (Ba, Sos, Zpk) {
    let ba = Ba {
        b: g.rag("iir_b", i),
        a: g.rag("iir_a", i),
    };
    let sos = g
        .rag("iir_sos", i)
        .chunks(6)
        .map(|r| [r[0], r[1], r[2], r[3], r[4], r[5]])
        .collect();
    let zpk = Zpk {
        z: g.ragc("iir_z", i),
        p: g.ragc("iir_p", i),
        k: g.f("iir_k")[i],
    };
    (ba, sos, zpk)
}

#[test]
fn frequency_responses_match_scipy() {
    let g = Golden::load("design.npz");
    let cases = g.i("fz_case");
    let (fzw, fzh) = (g.f("fz_w"), g.c("fz_h"));
    let (fsw, fsh) = (g.f("fzsos_w"), g.c("fzsos_h"));
    let (gdw, gdv) = (g.f("gd_w"), g.f("gd"));
    for (c, &i) in cases.iter().enumerate() {
        let (ba, sos, _) = design_ba_sos(&g, i as usize);
        let o = FreqzOptions {
            wor_n: WorN::N(64),
            ..Default::default()
        };
        let r = freqz(&ba.b, &ba.a, &o).unwrap();
        vec_match(&r.w, &fzw[c * 64..(c + 1) * 64], 1e-15).unwrap();
        cvec_match(&r.h, &fzh[c * 64..(c + 1) * 64], 1e-8)
            .unwrap_or_else(|e| panic!("freqz case {i}: {e}"));
        let o = FreqzOptions {
            wor_n: WorN::N(64),
            whole: true,
            ..Default::default()
        };
        let r = sosfreqz(&sos, &o).unwrap();
        vec_match(&r.w, &fsw[c * 64..(c + 1) * 64], 1e-15).unwrap();
        cvec_match(&r.h, &fsh[c * 64..(c + 1) * 64], 1e-10)
            .unwrap_or_else(|e| panic!("sosfreqz case {i}: {e}"));
        let o = FreqzOptions {
            wor_n: WorN::N(32),
            ..Default::default()
        };
        let (w, gd) = group_delay(&ba.b, &ba.a, &o).unwrap();
        vec_match(&w, &gdw[c * 32..(c + 1) * 32], 1e-15).unwrap();
        // against the exact delays (60 digits) where |H| > 1e-3 (gd's w[j] is freqz's w[2j]);
        // where the response vanishes the delay is 0/0, rounding noise. SciPy's own formula is
        // off by up to 2e-3 relative on these order-16 filters (1e-8 at order 8), so it is
        // compared only on the orders ≤ 4, to 1e-6.
        let gde = g.f("gd_exact");
        let keep: Vec<usize> = (0..32)
            .filter(|&j| fzh[c * 64 + 2 * j].norm() > 1e-3)
            .collect();
        let pick = |v: &[f64]| -> Vec<f64> { keep.iter().map(|&j| v[j]).collect() };
        vec_match(&pick(&gd), &pick(&gde[c * 32..(c + 1) * 32]), 1e-8)
            .unwrap_or_else(|e| panic!("group_delay case {i} (exact): {e}"));
        if g.f("iir_params")[i as usize * 9 + 1] <= 4.0 {
            vec_match(&pick(&gd), &pick(&gdv[c * 32..(c + 1) * 32]), 1e-6)
                .unwrap_or_else(|e| panic!("group_delay case {i} (SciPy): {e}"));
        }
    }
    // freqz with fs and explicit frequencies; include_nyquist
    let (ba, _, _) = design_ba_sos(&g, cases[1] as usize);
    let o = FreqzOptions {
        wor_n: WorN::Freqs(vec![0.0, 10.0, 100.0, 333.0, 499.0]),
        fs: 1000.0,
        ..Default::default()
    };
    let r = freqz(&ba.b, &ba.a, &o).unwrap();
    vec_match(&r.w, &g.f("fz_fs_w"), 1e-15).unwrap();
    cvec_match(&r.h, &g.c("fz_fs_h"), 1e-9).unwrap();
    let o = FreqzOptions {
        wor_n: WorN::N(33),
        include_nyquist: true,
        ..Default::default()
    };
    let r = freqz(&ba.b, &ba.a, &o).unwrap();
    vec_match(&r.w, &g.f("fz_nyq_w"), 1e-15).unwrap();
    cvec_match(&r.h, &g.c("fz_nyq_h"), 1e-9).unwrap();
    // freqz_zpk
    let (_, _, zpk) = design_ba_sos(&g, g.i("fzz_case")[0] as usize);
    let o = FreqzOptions {
        wor_n: WorN::N(40),
        whole: true,
        ..Default::default()
    };
    let r = freqz_zpk(&zpk.z, &zpk.p, zpk.k, &o).unwrap();
    vec_match(&r.w, &g.f("fzz_w"), 1e-15).unwrap();
    cvec_match(&r.h, &g.c("fzz_h"), 1e-10).unwrap();
    // freqs / freqs_zpk with findfreqs
    let an = g.i("fs_case");
    let (fw, fh) = (g.f("fs_w"), g.c("fs_h"));
    let (zw, zh) = (g.f("fszpk_w"), g.c("fszpk_h"));
    for (c, &i) in an.iter().enumerate() {
        let (ba, _, zpk) = design_ba_sos(&g, i as usize);
        let r = freqs(&ba.b, &ba.a, &WorN::N(50)).unwrap();
        vec_match(&r.w, &fw[c * 50..(c + 1) * 50], 1e-13)
            .unwrap_or_else(|e| panic!("freqs w case {i}: {e}"));
        cvec_match(&r.h, &fh[c * 50..(c + 1) * 50], 1e-9)
            .unwrap_or_else(|e| panic!("freqs h case {i}: {e}"));
        let r = freqs_zpk(&zpk.z, &zpk.p, zpk.k, &WorN::N(50)).unwrap();
        vec_match(&r.w, &zw[c * 50..(c + 1) * 50], 1e-13)
            .unwrap_or_else(|e| panic!("freqs_zpk w case {i}: {e}"));
        cvec_match(&r.h, &zh[c * 50..(c + 1) * 50], 1e-9)
            .unwrap_or_else(|e| panic!("freqs_zpk h case {i}: {e}"));
    }
}

#[test]
fn polynomial_transforms_match_scipy() {
    let g = Golden::load("design.npz");
    let tb = [0.5, 1.0, 2.0];
    let ta = [1.0, 0.7, 1.3, 0.4];
    let lens = g.i("tr_lens");
    let got = [
        lp2lp(&tb, &ta, 2.5).unwrap(),
        lp2hp(&tb, &ta, 2.5).unwrap(),
        lp2bp(&tb, &ta, 2.5, 0.8).unwrap(),
        lp2bs(&tb, &ta, 2.5, 0.8).unwrap(),
        bilinear(&tb, &ta, 3.0).unwrap(),
    ];
    let names = ["lp2lp", "lp2hp", "lp2bp", "lp2bs", "bilinear"];
    for (j, (ba, name)) in got.iter().zip(names).enumerate() {
        let want = g.f(&format!("tr_{name}"));
        let nb = lens[2 * j] as usize;
        assert_eq!(ba.b.len(), nb, "{name}: b length");
        assert_eq!(ba.a.len(), lens[2 * j + 1] as usize, "{name}: a length");
        vec_match(&ba.b, &want[..nb], 1e-13).unwrap_or_else(|e| panic!("{name} b: {e}"));
        vec_match(&ba.a, &want[nb..], 1e-13).unwrap_or_else(|e| panic!("{name} a: {e}"));
    }
}

#[test]
fn fir_and_notch_designs_match_scipy() {
    let g = Golden::load("design.npz");
    let d = FirwinOptions::default();
    let cases: Vec<(usize, Vec<f64>, FirwinOptions)> = vec![
        (31, vec![0.3], d),
        (32, vec![0.3], d),
        (1, vec![0.5], d),
        (
            33,
            vec![0.2, 0.5],
            FirwinOptions {
                pass_zero: false,
                ..d
            },
        ),
        (33, vec![0.2, 0.5], d),
        (
            41,
            vec![0.4],
            FirwinOptions {
                pass_zero: false,
                ..d
            },
        ),
        (25, vec![0.1, 0.3, 0.6], d),
        (
            51,
            vec![0.25],
            FirwinOptions {
                width: Some(0.1),
                ..d
            },
        ),
        (30, vec![100.0], FirwinOptions { fs: 1000.0, ..d }),
        (
            21,
            vec![0.3],
            FirwinOptions {
                window: FirWindow::Hann,
                ..d
            },
        ),
        (
            21,
            vec![0.3],
            FirwinOptions {
                window: FirWindow::Blackman,
                ..d
            },
        ),
        (
            21,
            vec![0.3],
            FirwinOptions {
                window: FirWindow::Boxcar,
                scale: false,
                ..d
            },
        ),
        (
            21,
            vec![0.3],
            FirwinOptions {
                window: FirWindow::Kaiser(5.5),
                ..d
            },
        ),
        (
            35,
            vec![0.2, 0.7],
            FirwinOptions {
                pass_zero: false,
                window: FirWindow::Hann,
                ..d
            },
        ),
    ];
    for (j, (n, c, o)) in cases.iter().enumerate() {
        let h = firwin(*n, c, o).unwrap();
        vec_match(&h, &g.f(&format!("fir_{j}")), 1e-13)
            .unwrap_or_else(|e| panic!("firwin case {j}: {e}"));
    }
    let betas: Vec<f64> = [10.0, 21.0, 30.0, 50.0, 65.0, 120.0]
        .iter()
        .map(|&a| kaiser_beta(a))
        .collect();
    vec_match(&betas, &g.f("kaiser_beta"), 1e-15).unwrap();
    let att = [
        kaiser_atten(11, 0.1),
        kaiser_atten(101, 0.05),
        kaiser_atten(2, 0.3),
    ];
    vec_match(&att, &g.f("kaiser_atten"), 1e-15).unwrap();
    let ko = g.f("kaiserord");
    for (j, (r, w)) in [(65.0, 0.05), (8.5, 0.3), (120.0, 0.01)].iter().enumerate() {
        let (n, b) = kaiserord(*r, *w).unwrap();
        assert_eq!(n as f64, ko[2 * j]);
        assert!((b - ko[2 * j + 1]).abs() <= 1e-15 * b.abs());
    }
    let cat = |ba: Ba| [ba.b, ba.a].concat();
    vec_match(
        &cat(iirnotch(60.0, 30.0, 1000.0).unwrap()),
        &g.f("iirnotch"),
        1e-15,
    )
    .unwrap();
    vec_match(
        &cat(iirpeak(0.3, 5.0, 2.0).unwrap()),
        &g.f("iirpeak"),
        1e-15,
    )
    .unwrap();
    vec_match(
        &cat(iircomb(20.0, 30.0, CombType::Notch, 200.0, false).unwrap()),
        &g.f("iircomb_notch"),
        1e-15,
    )
    .unwrap();
    vec_match(
        &cat(iircomb(250.0, 30.0, CombType::Peak, 1000.0, true).unwrap()),
        &g.f("iircomb_peak"),
        1e-15,
    )
    .unwrap();
    // qmf left SciPy in 1.17 (CuPy keeps it): its definition, g[k] = (-1)^k h[N-k]
    assert_eq!(
        qmf(&[0.1, 0.4, 0.9, -0.3, 0.2]),
        vec![0.2, 0.3, 0.9, -0.4, 0.1]
    );
    let gf = gammatone(
        440.0,
        GammatoneType::Fir {
            order: 4,
            numtaps: Some(16),
        },
        16000.0,
    )
    .unwrap();
    vec_match(&cat(gf), &g.f("gammatone_fir"), 1e-13).unwrap();
    let gf = gammatone(
        0.2,
        GammatoneType::Fir {
            order: 3,
            numtaps: None,
        },
        2.0,
    )
    .unwrap();
    vec_match(&cat(gf), &g.f("gammatone_fir_default"), 1e-13).unwrap();
    let gi = gammatone(440.0, GammatoneType::Iir, 16000.0).unwrap();
    vec_match(&cat(gi), &g.f("gammatone_iir"), 1e-12).unwrap();
    assert!(gammatone(0.0, GammatoneType::Iir, 2.0).is_err());
    assert!(gammatone(
        0.2,
        GammatoneType::Fir {
            order: 25,
            numtaps: None
        },
        2.0
    )
    .is_err());
    // errors
    let bad = |r: cusci_core::Result<Vec<f64>>| {
        assert!(matches!(r, Err(cusci_core::Error::InvalidArgument { .. })))
    };
    bad(firwin(0, &[0.3], &d));
    bad(firwin(10, &[1.0], &d));
    bad(firwin(10, &[0.5, 0.2], &d));
    bad(firwin(10, &[], &d));
    bad(firwin(
        10,
        &[0.3],
        &FirwinOptions {
            pass_zero: false,
            ..d
        },
    ));
    assert!(kaiserord(5.0, 0.1).is_err());
    assert!(iirnotch(600.0, 30.0, 1000.0).is_err());
    assert!(iircomb(30.0, 30.0, CombType::Notch, 200.0, false).is_err());
}
