//! Order selection, state-space conversions, LTI time and frequency responses and partial
//! fractions against SciPy's own results (`tests/data/lti.npz`, written by the `signal_lti`
//! section of `tests/golden/gen.py`), round trips, and the array functions on every device.

use crate::common::{close, closec, Golden};
use cusci_core::testing::{assert_slices_close, for_each_device};
use cusci_core::{c64, Array, Device, Error};
use cusci_signal::*;

/// Each expected (pole, residue) pair matched to a distinct computed pair (NumPy's sort may
/// order poles of equal magnitude differently).
fn pairs_match(gp: &[c64], gr: &[c64], wp: &[c64], wr: &[c64], tol: f64, what: &str) {
    assert_eq!(gp.len(), wp.len(), "{what}: pole count");
    let mut used = vec![false; gp.len()];
    for (p, r) in wp.iter().zip(wr) {
        let j = (0..gp.len())
            .filter(|&j| !used[j])
            .min_by(|&a, &b| {
                let da = (gp[a] - p).norm() + (gr[a] - r).norm();
                let db = (gp[b] - p).norm() + (gr[b] - r).norm();
                da.total_cmp(&db)
            })
            .unwrap();
        let s = 1.0 + p.norm() + r.norm();
        assert!(
            (gp[j] - p).norm() <= tol * s && (gr[j] - r).norm() <= tol * s,
            "{what}: expected pole {p} residue {r}, nearest {} {}",
            gp[j],
            gr[j]
        );
        used[j] = true;
    }
}

#[test]
fn order_selection_matches_scipy() {
    let g = Golden::load("lti.npz");
    let p = g.f("ord_params");
    let ncase = g.shape("ord_params")[0];
    let ns = g.i("ord_n");
    let wn = g.f("ord_wn");
    for i in 0..ncase {
        let r = &p[i * 10..(i + 1) * 10];
        let band = r[1] as usize;
        let (wp, ws) = if band >= 2 {
            (vec![r[3], r[4]], vec![r[5], r[6]])
        } else {
            (vec![r[3]], vec![r[5]])
        };
        let opts = OrdOptions {
            analog: r[2] != 0.0,
            fs: if r[9] != 0.0 { Some(r[9]) } else { None },
        };
        let f = [buttord, cheb1ord, cheb2ord, ellipord][r[0] as usize];
        let o = f(&wp, &ws, r[7], r[8], &opts).unwrap_or_else(|e| panic!("case {i} {r:?}: {e}"));
        assert_eq!(o.n as i64, ns[i], "case {i} {r:?}: order");
        let want: Vec<f64> = if band >= 2 {
            wn[2 * i..2 * i + 2].to_vec()
        } else {
            vec![wn[2 * i]]
        };
        // ellipord's band-stop edges come from a bounded Brent search whose parabolic steps
        // amplify last-ulp differences of the objective: SciPy's ellipk (cephes' polynomial
        // approximations) and ours (the AGM) differ by ~1 ulp, so the search stops at another
        // point within its xtol (1e-5): there the order agrees and the edges to 1e-5.
        let tol = if r[0] == 3.0 && band == 3 {
            1e-5
        } else {
            1e-10
        };
        for (a, b) in o.wn.iter().zip(&want) {
            assert!(
                (a - b).abs() <= tol * b.abs(),
                "case {i} {r:?}: wn {:?} vs {want:?}",
                o.wn
            );
        }
    }
    let bso = g.f("bso");
    let mut k = 0;
    for kind in [OrdKind::Butter, OrdKind::Cheby, OrdKind::Ellip] {
        for (wp, ind) in [(0.15, 0), (0.3, 0), (0.9, 1), (0.8, 1)] {
            let v = band_stop_obj(wp, ind, [0.1, 1.0], [0.4, 0.6], 1.0, 40.0, kind).unwrap();
            assert!(
                (v - bso[k]).abs() <= 1e-12 * bso[k].abs(),
                "band_stop_obj {kind:?} {wp}: {v} vs {}",
                bso[k]
            );
            k += 1;
        }
    }
}

#[test]
fn iirdesign_matches_scipy() {
    let g = Golden::load("lti.npz");
    let p = g.f("iird_params");
    for i in 0..g.shape("iird_params")[0] {
        let r = &p[i * 10..(i + 1) * 10];
        let (wp, ws) = if r[1] >= 2.0 {
            (vec![r[3], r[4]], vec![r[5], r[6]])
        } else {
            (vec![r[3]], vec![r[5]])
        };
        let opts = IirDesignOptions {
            ftype: [
                DesignType::Butter,
                DesignType::Cheby1,
                DesignType::Cheby2,
                DesignType::Ellip,
            ][r[0] as usize],
            analog: r[2] != 0.0,
            ..Default::default()
        };
        let ba = iirdesign(&wp, &ws, r[7], r[8], &opts)
            .unwrap()
            .into_ba()
            .unwrap();
        close(
            &ba.b,
            &g.rag("iird_b", i),
            1e-8,
            &format!("iirdesign {i} b"),
        );
        close(
            &ba.a,
            &g.rag("iird_a", i),
            1e-8,
            &format!("iirdesign {i} a"),
        );
    }
}

#[test]
fn order_selection_bad_inputs() {
    let o = OrdOptions::default();
    let arg = |r: cusci_core::Result<FilterOrder>| matches!(r, Err(Error::InvalidArgument { .. }));
    let shape = |r: cusci_core::Result<FilterOrder>| matches!(r, Err(Error::ShapeMismatch { .. }));
    assert!(arg(buttord(&[0.2], &[0.3], 0.0, 40.0, &o)));
    assert!(arg(buttord(&[0.2], &[0.3], 50.0, 40.0, &o)));
    assert!(arg(cheb1ord(&[1.2], &[0.3], 3.0, 40.0, &o)));
    assert!(arg(cheb2ord(&[-0.2], &[0.3], 3.0, 40.0, &o)));
    assert!(arg(ellipord(&[0.2, 0.5], &[0.3, 0.6], 3.0, 40.0, &o))); // bands do not nest
    assert!(shape(ellipord(&[0.2, 0.5], &[0.3], 3.0, 40.0, &o)));
    assert!(shape(buttord(&[], &[], 3.0, 40.0, &o)));
    let fs_analog = OrdOptions {
        analog: true,
        fs: Some(10.0),
    };
    assert!(arg(buttord(&[2.0], &[3.0], 3.0, 40.0, &fs_analog)));
    assert!(matches!(
        band_stop_obj(0.2, 2, [0.1, 1.0], [0.4, 0.6], 1.0, 40.0, OrdKind::Butter),
        Err(Error::InvalidArgument { .. })
    ));
}

#[test]
fn state_space_conversions_match_scipy() {
    let g = Golden::load("lti.npz");
    let n = g.i("tf2ss_num_off").len() - 1;
    for i in 0..n {
        let (b, a) = (g.rag("tf2ss_num", i), g.rag("tf2ss_den", i));
        let s = tf2ss(&b, &a).unwrap();
        for (nm, m) in [("a", &s.a), ("b", &s.b), ("c", &s.c), ("d", &s.d)] {
            close(
                &m.data,
                &g.rag(&format!("tf2ss_{nm}"), i),
                1e-13,
                &format!("tf2ss {i} {nm}"),
            );
        }
        // round trip: ss2tf gives back the normalised transfer function
        let (num, den) = ss2tf(&s, 0).unwrap();
        let nb = normalize(&b, &a).unwrap();
        let mut want = vec![0.0; den.len() - nb.b.len()];
        want.extend(&nb.b);
        close(&num[0], &want, 1e-10, &format!("tf2ss->ss2tf {i} num"));
        close(&den, &nb.a, 1e-10, &format!("tf2ss->ss2tf {i} den"));
    }
    let sys = abcd_normalize(
        Some(&g.mat("ss_a")),
        Some(&g.mat("ss_b")),
        Some(&g.mat("ss_c")),
        Some(&g.mat("ss_d")),
    )
    .unwrap();
    for input in 0..2 {
        let (num, den) = ss2tf(&sys, input).unwrap();
        close(
            &num.concat(),
            &g.f(&format!("ss2tf_num{input}")),
            1e-10,
            "ss2tf num",
        );
        close(&den, &g.f(&format!("ss2tf_den{input}")), 1e-10, "ss2tf den");
    }
    let lti = Lti::Ss(sys.clone());
    let methods = [
        ("zoh", Discretization::Zoh),
        ("foh", Discretization::Foh),
        ("bilinear", Discretization::Bilinear),
        ("euler", Discretization::Euler),
        ("backward_diff", Discretization::BackwardDiff),
        ("gbt", Discretization::Gbt { alpha: 0.3 }),
    ];
    for (nm, m) in methods {
        let Lti::Ss(d) = cont2discrete(&lti, 0.1, m).unwrap() else {
            panic!("state space expected")
        };
        assert_eq!(d.dt, Some(0.1));
        for (k, mm) in [("a", &d.a), ("b", &d.b), ("c", &d.c), ("d", &d.d)] {
            close(
                &mm.data,
                &g.f(&format!("c2d_{nm}_{k}")),
                1e-12,
                &format!("c2d {nm} {k}"),
            );
        }
    }
    let mut sp = sys.clone();
    sp.d = Mat::zeros(2, 2);
    let Lti::Ss(d) = cont2discrete(&Lti::Ss(sp), 0.1, Discretization::Impulse).unwrap() else {
        panic!()
    };
    for (k, mm) in [("a", &d.a), ("b", &d.b), ("c", &d.c), ("d", &d.d)] {
        close(
            &mm.data,
            &g.f(&format!("c2d_impulse_{k}")),
            1e-12,
            &format!("c2d impulse {k}"),
        );
    }
    // impulse invariance needs D = 0; alpha outside [0, 1]
    assert!(matches!(
        cont2discrete(&lti, 0.1, Discretization::Impulse),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        cont2discrete(&lti, 0.1, Discretization::Gbt { alpha: 1.5 }),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        cont2discrete(&lti, -0.1, Discretization::Zoh),
        Err(Error::InvalidArgument { .. })
    ));
    let tfd = cont2discrete(
        &Lti::tf(&[1.0, 2.0], &[1.0, 3.0, 2.0]).unwrap(),
        0.05,
        Default::default(),
    )
    .unwrap()
    .to_tf()
    .unwrap();
    let mut want_num = g.f("c2d_tf_num");
    let lead = want_num.iter().take_while(|v| v.abs() <= 1e-14).count();
    want_num.drain(..lead);
    close(&tfd.num[0], &want_num, 1e-10, "c2d tf num");
    close(&tfd.den, &g.f("c2d_tf_den"), 1e-10, "c2d tf den");
}

#[test]
fn representation_round_trips() {
    // zpk -> ss -> zpk keeps poles, zeros and gain
    let z = [
        c64::new(-0.5, 0.0),
        c64::new(-1.0, 2.0),
        c64::new(-1.0, -2.0),
    ];
    let p = [
        c64::new(-0.3, 0.0),
        c64::new(-0.7, 1.0),
        c64::new(-0.7, -1.0),
        c64::new(-2.0, 0.0),
    ];
    let ss = zpk2ss(&z, &p, 3.0).unwrap();
    let back = ss2zpk(&ss, 0).unwrap();
    assert!((back.k - 3.0).abs() < 1e-12);
    for (got, want) in [(&back.z, &z[..]), (&back.p, &p[..])] {
        for w in want {
            assert!(
                got.iter().any(|g| (g - w).norm() < 1e-9),
                "{w} not in {got:?}"
            );
        }
    }
    // Lti conversions agree with the free functions
    let sys = Lti::zpk(&z, &p, 3.0).unwrap();
    let tf = sys.to_tf().unwrap();
    let ba = zpk2tf(&z, &p, 3.0).unwrap();
    close(&tf.num[0], &ba.b, 1e-14, "to_tf num");
    let mut poles = Lti::Ss(sys.to_ss().unwrap()).poles().unwrap();
    poles.sort_by(|a, b| a.re.total_cmp(&b.re).then(a.im.total_cmp(&b.im)));
    let mut want = p.to_vec();
    want.sort_by(|a, b| a.re.total_cmp(&b.re).then(a.im.total_cmp(&b.im)));
    closec(&poles, &want, 1e-9, "ss poles");
    // abcd_normalize fills and checks
    let a = Mat::eye(2);
    let bad = Mat::zeros(3, 1);
    assert!(matches!(
        abcd_normalize(Some(&a), Some(&bad), Some(&Mat::zeros(1, 2)), None),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        abcd_normalize(None, None, None, Some(&a)),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        tf2ss(&[1.0, 2.0, 3.0], &[1.0, 2.0]),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(ss2tf(&ss, 1), Err(Error::InvalidArgument { .. })));
}

fn sys_tf(g: &Golden) -> Lti {
    Lti::tf(&g.f("sys_num"), &g.f("sys_den")).unwrap()
}

#[test]
fn continuous_responses_match_scipy_on_every_device() {
    let g = Golden::load("lti.npz");
    let sys = sys_tf(&g);
    let t = g.f("lsim_t");
    let u = g.f("lsim_u");
    let mimo = Lti::ss(
        &g.mat("ss_a"),
        &g.mat("ss_b"),
        &g.mat("ss_c"),
        &g.mat("ss_d"),
    )
    .unwrap();
    for_each_device(|dev| {
        let ua = Array::from_vec(u.clone(), &[u.len()], dev).unwrap();
        for interp in [false, true] {
            let o = LsimOptions {
                x0: Some(vec![0.5, -0.2, 0.1]),
                interp,
            };
            let r = lsim(&sys, &ua, &t, &o).unwrap();
            assert_eq!(r.y.shape(), &[t.len(), 1]);
            let ctx = format!("lsim interp={interp} on {dev:?}");
            close(
                &r.y.to_vec().unwrap(),
                &g.f(&format!("lsim_y_{}", interp as u8)),
                1e-10,
                &ctx,
            );
            close(
                &r.x.to_vec().unwrap(),
                &g.f(&format!("lsim_x_{}", interp as u8)),
                1e-10,
                &ctx,
            );
        }
        // MIMO, starting after 0 (the state moves forward to t[0])
        let t2 = g.f("lsim2_t");
        let u2 = Array::from_vec(g.f("lsim2_u"), &[t2.len(), 2], dev).unwrap();
        let r = lsim(&mimo, &u2, &t2, &LsimOptions::default()).unwrap();
        close(
            &r.y.to_vec().unwrap(),
            &g.f("lsim2_y"),
            1e-10,
            "lsim mimo y",
        );
        close(
            &r.x.to_vec().unwrap(),
            &g.f("lsim2_x"),
            1e-10,
            "lsim mimo x",
        );
        let r = impulse::<f64>(&sys, &Default::default(), dev).unwrap();
        close(&r.t, &g.f("impulse_t"), 1e-13, "impulse t");
        close(
            &r.y.to_vec().unwrap(),
            &g.f("impulse_y"),
            1e-10,
            "impulse y",
        );
        let r = step::<f64>(&sys, &Default::default(), dev).unwrap();
        close(&r.t, &g.f("step_t"), 1e-13, "step t");
        close(&r.y.to_vec().unwrap(), &g.f("step_y"), 1e-10, "step y");
        let o = ResponseOptions {
            x0: Some(vec![0.1, 0.2, 0.3]),
            n: Some(30),
            ..Default::default()
        };
        let r = step::<f64>(&sys, &o, dev).unwrap();
        close(&r.t, &g.f("step_x0_t"), 1e-13, "step x0 t");
        close(
            &r.y.to_vec().unwrap(),
            &g.f("step_x0_y"),
            1e-10,
            "step x0 y",
        );
        // f32 follows f64 (state stored in f32, sums in f64)
        let uf = Array::from_vec(u.iter().map(|&v| v as f32).collect(), &[u.len()], dev).unwrap();
        let r = lsim(&sys, &uf, &t, &LsimOptions::default()).unwrap();
        let y64: Vec<f64> = r.y.to_vec().unwrap().iter().map(|&v| v as f64).collect();
        let ua = Array::from_vec(u.clone(), &[u.len()], dev).unwrap();
        let want = lsim(&sys, &ua, &t, &LsimOptions::default())
            .unwrap()
            .y
            .to_vec()
            .unwrap();
        close(&y64, &want, 1e-5, "lsim f32");
    });
}

fn dsys(g: &Golden) -> Lti {
    let a = g.mat("ss_a");
    let a = Mat::new(
        3,
        3,
        a.data
            .iter()
            .enumerate()
            .map(|(i, v)| 0.5 * v * 0.3 + if i % 4 == 0 { 0.1 } else { 0.0 })
            .collect(),
    )
    .unwrap();
    Lti::dss(&a, &g.mat("ss_b"), &g.mat("ss_c"), &g.mat("ss_d"), 0.1).unwrap()
}

#[test]
fn discrete_responses_match_scipy_on_every_device() {
    let g = Golden::load("lti.npz");
    let sys = dsys(&g);
    let ud = g.f("dlsim_u");
    let nt = ud.len() / 2;
    for_each_device(|dev| {
        let u = Array::from_vec(ud.clone(), &[nt, 2], dev).unwrap();
        let r = dlsim(&sys, &u, None, Some(&[1.0, 0.0, -1.0])).unwrap();
        close(&r.t, &g.f("dlsim_t"), 1e-13, "dlsim t");
        close(&r.y.to_vec().unwrap(), &g.f("dlsim_y"), 1e-11, "dlsim y");
        close(&r.x.to_vec().unwrap(), &g.f("dlsim_x"), 1e-11, "dlsim x");
        let o = DResponseOptions {
            n: Some(40),
            ..Default::default()
        };
        for (nm, r) in [
            ("dimpulse", dimpulse::<f64>(&sys, &o, dev).unwrap()),
            ("dstep", dstep::<f64>(&sys, &o, dev).unwrap()),
        ] {
            let want_t = g.f(&format!("{nm}_t"));
            close(&r.t, &want_t, 1e-12, nm);
            assert_eq!(r.y.shape(), &[2, want_t.len(), 2], "{nm} shape");
            close(&r.y.to_vec().unwrap(), &g.f(&format!("{nm}_y")), 1e-10, nm);
        }
    });
}

#[test]
fn dlsim_batches_edges_and_errors_agree_across_devices() {
    let g = Golden::load("lti.npz");
    let sys = dsys(&g);
    for &nt in &[0usize, 1, 2, 31, 33, 257] {
        let data: Vec<f64> = (0..3 * nt * 2)
            .map(|i| ((i * 37 % 101) as f64 - 50.0) / 25.0)
            .collect();
        let cpu = Array::from_vec(data.clone(), &[3, nt, 2], &Device::Cpu).unwrap();
        let want = dlsim(&sys, &cpu, None, None).unwrap();
        // batch = the signals one at a time
        for b in 0..3 {
            let one = Array::from_vec(
                data[b * nt * 2..(b + 1) * nt * 2].to_vec(),
                &[nt, 2],
                &Device::Cpu,
            )
            .unwrap();
            let r = dlsim(&sys, &one, None, None).unwrap();
            let all = want.y.to_vec().unwrap();
            assert_eq!(
                r.y.to_vec().unwrap(),
                all[b * nt * 2..(b + 1) * nt * 2].to_vec()
            );
        }
        for_each_device(|dev| {
            let u = Array::from_vec(data.clone(), &[3, nt, 2], dev).unwrap();
            let r = dlsim(&sys, &u, None, None).unwrap();
            assert_eq!(r.y.shape(), &[3, nt, 2]);
            assert_eq!(r.x.shape(), &[3, nt, 3]);
            let ctx = format!("dlsim nt={nt} on {dev:?}");
            assert_slices_close(
                &r.y.to_vec().unwrap(),
                &want.y.to_vec().unwrap(),
                &[3, nt, 2],
                1e-12,
                1e-14,
                &ctx,
            );
            assert_slices_close(
                &r.x.to_vec().unwrap(),
                &want.x.to_vec().unwrap(),
                &[3, nt, 3],
                1e-12,
                1e-14,
                &ctx,
            );
        });
    }
    let cont = sys_tf(&g);
    for_each_device(|dev| {
        let u = Array::from_vec(vec![1.0f64; 20], &[10, 2], dev).unwrap();
        let u1 = Array::from_vec(vec![1.0f64; 10], &[10], dev).unwrap();
        let is_arg = |e: Error| matches!(e, Error::InvalidArgument { .. });
        let is_shape = |e: Error| matches!(e, Error::ShapeMismatch { .. });
        assert!(
            is_arg(dlsim(&cont, &u1, None, None).unwrap_err()),
            "continuous system in dlsim"
        );
        assert!(is_arg(
            lsim(&sys, &u, &[0.0; 10], &Default::default()).unwrap_err()
        ));
        assert!(
            is_shape(dlsim(&sys, &u1, None, None).unwrap_err()),
            "1 input column for 2 inputs"
        );
        assert!(
            is_shape(dlsim(&sys, &u, None, Some(&[1.0, 2.0])).unwrap_err()),
            "x0 length"
        );
        let t: Vec<f64> = (0..10).map(|i| i as f64 * 0.1).collect();
        assert!(is_shape(
            lsim(&cont, &u1, &t[..9], &Default::default()).unwrap_err()
        ));
        let mut uneven = t.clone();
        uneven[5] += 0.03;
        assert!(is_arg(
            lsim(&cont, &u1, &uneven, &Default::default()).unwrap_err()
        ));
        let neg: Vec<f64> = t.iter().map(|v| v - 1.0).collect();
        assert!(is_arg(
            lsim(&cont, &u1, &neg, &Default::default()).unwrap_err()
        ));
        assert!(is_arg(
            impulse::<f64>(&sys, &Default::default(), dev).unwrap_err()
        ));
        assert!(is_arg(
            dstep::<f64>(&cont, &Default::default(), dev).unwrap_err()
        ));
    });
}

#[test]
fn frequency_responses_match_scipy() {
    let g = Golden::load("lti.npz");
    let sys = sys_tf(&g);
    let w = g.f("fr_w");
    let forms = [
        ("tf", sys.clone()),
        ("zpk", Lti::Zpk(sys.to_zpk().unwrap())),
        ("ss", Lti::Ss(sys.to_ss().unwrap())),
    ];
    for (nm, s) in &forms {
        let r = freqresp(s, &WorN::Freqs(w.clone())).unwrap();
        closec(
            &r.h,
            &g.c(&format!("freqresp_{nm}")),
            1e-10,
            &format!("freqresp {nm}"),
        );
        let b = bode(s, &WorN::Freqs(w.clone())).unwrap();
        close(
            &b.mag,
            &g.f(&format!("bode_{nm}_mag")),
            1e-10,
            &format!("bode {nm} mag"),
        );
        close(
            &b.phase,
            &g.f(&format!("bode_{nm}_phase")),
            1e-10,
            &format!("bode {nm} phase"),
        );
    }
    let r = freqresp(&sys, &WorN::N(50)).unwrap();
    close(&r.w, &g.f("freqresp_n_w"), 1e-10, "freqresp n w");
    closec(&r.h, &g.c("freqresp_n_h"), 1e-10, "freqresp n h");
    let dtf = Lti::dtf(&[0.2, 0.1], &[1.0, -1.1, 0.5], 0.1).unwrap();
    let wd = g.f("dfr_w");
    let r = dfreqresp(&dtf, &WorN::Freqs(wd.clone()), false).unwrap();
    closec(&r.h, &g.c("dfreqresp_tf"), 1e-12, "dfreqresp tf");
    let r = dfreqresp(
        &Lti::Zpk(dtf.to_zpk().unwrap()),
        &WorN::Freqs(wd.clone()),
        false,
    )
    .unwrap();
    closec(&r.h, &g.c("dfreqresp_zpk"), 1e-12, "dfreqresp zpk");
    let r = dfreqresp(&Lti::Ss(dtf.to_ss().unwrap()), &WorN::Freqs(wd), false).unwrap();
    closec(&r.h, &g.c("dfreqresp_tf"), 1e-10, "dfreqresp ss");
    let r = dfreqresp(&dtf, &WorN::N(30), true).unwrap();
    close(&r.w, &g.f("dfreqresp_n_w"), 1e-13, "dfreqresp n w");
    closec(&r.h, &g.c("dfreqresp_n_h"), 1e-12, "dfreqresp n h");
    let b = dbode(&dtf, &WorN::N(30)).unwrap();
    close(&b.w, &g.f("dbode_w"), 1e-13, "dbode w");
    close(&b.mag, &g.f("dbode_mag"), 1e-11, "dbode mag");
    close(&b.phase, &g.f("dbode_phase"), 1e-11, "dbode phase");
    assert!(matches!(
        freqresp(&dtf, &WorN::N(5)),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        dbode(&sys, &WorN::N(5)),
        Err(Error::InvalidArgument { .. })
    ));
}

#[test]
fn partial_fractions_match_scipy() {
    let g = Golden::load("lti.npz");
    let n = g.i("res_b_off").len() - 1;
    for i in 0..n {
        let (b, a) = (g.rag("res_b", i), g.rag("res_a", i));
        let e = residue(&b, &a, 1e-3, RootType::Avg).unwrap();
        pairs_match(
            &e.p,
            &e.r,
            &g.ragc("res_p", i),
            &g.ragc("res_r", i),
            1e-7,
            &format!("residue {i}"),
        );
        close(&e.k, &g.rag("res_k", i), 1e-12, &format!("residue {i} k"));
        let ez = residuez(&b, &a, 1e-3, RootType::Avg).unwrap();
        pairs_match(
            &ez.p,
            &ez.r,
            &g.ragc("resz_p", i),
            &g.ragc("resz_r", i),
            1e-7,
            &format!("residuez {i}"),
        );
        close(
            &ez.k,
            &g.rag("resz_k", i),
            1e-12,
            &format!("residuez {i} k"),
        );
        // the inverses, from SciPy's own expansions (their order decides the grouping)
        let k: Vec<f64> = g.rag("res_k", i);
        let (nb, na) = invres(
            &g.ragc("res_r", i),
            &g.ragc("res_p", i),
            &k,
            1e-3,
            RootType::Avg,
        )
        .unwrap();
        closec(&nb, &g.ragc("invres_b", i), 1e-10, &format!("invres {i} b"));
        closec(&na, &g.ragc("invres_a", i), 1e-10, &format!("invres {i} a"));
        let kz: Vec<f64> = g.rag("resz_k", i);
        let (nb, na) = invresz(
            &g.ragc("resz_r", i),
            &g.ragc("resz_p", i),
            &kz,
            1e-3,
            RootType::Avg,
        )
        .unwrap();
        closec(
            &nb,
            &g.ragc("invresz_b", i),
            1e-10,
            &format!("invresz {i} b"),
        );
        closec(
            &na,
            &g.ragc("invresz_a", i),
            1e-10,
            &format!("invresz {i} a"),
        );
        // round trip through our own expansion
        let (nb, na) = invres(&e.r, &e.p, &e.k, 1e-3, RootType::Avg).unwrap();
        let an: Vec<f64> = a.iter().map(|v| v / a[0]).collect();
        close(
            &na.iter().map(|c| c.re).collect::<Vec<_>>(),
            &an,
            1e-8,
            &format!("invres(residue) {i} a"),
        );
        let bn: Vec<f64> = b.iter().map(|v| v / a[0]).collect();
        let got: Vec<f64> = nb.iter().map(|c| c.re).collect();
        let got = &got[got.len() - bn.len()..];
        close(got, &bn, 1e-7, &format!("invres(residue) {i} b"));
    }
    let p = g.c("ur_p");
    for (nm, rt) in [
        ("min", RootType::Min),
        ("max", RootType::Max),
        ("avg", RootType::Avg),
    ] {
        let (u, m) = unique_roots(&p, 1e-3, rt).unwrap();
        closec(
            &u,
            &g.c(&format!("ur_{nm}_u")),
            1e-14,
            &format!("unique_roots {nm}"),
        );
        assert_eq!(
            m.iter().map(|&v| v as i64).collect::<Vec<_>>(),
            g.i(&format!("ur_{nm}_m"))
        );
    }
    assert!(matches!(
        residue(&[1.0], &[0.0, 0.0], 1e-3, RootType::Avg),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        residuez(&[1.0], &[0.0, 1.0], 1e-3, RootType::Avg),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        invres(&[c64::new(1.0, 0.0)], &[], &[], 1e-3, RootType::Avg),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        unique_roots(&p, -1.0, RootType::Avg),
        Err(Error::InvalidArgument { .. })
    ));
}

#[test]
fn lti_kernels_compile() {
    crate::processing_kernels_compile::compile_named(&["signal_lsim"]);
}

/// numtaps, bands, desired, weight, fs.
type FirlsCase = (usize, Vec<f64>, Vec<f64>, Option<Vec<f64>>, Option<f64>);

#[test]
fn fir_designs_match_scipy() {
    let g = Golden::load("lti.npz");
    let w = |win: Option<FirWindow>| Firwin2Options {
        window: win,
        ..Default::default()
    };
    let cases: Vec<(usize, Vec<f64>, Vec<f64>, Firwin2Options)> = vec![
        (
            31,
            vec![0.0, 0.3, 0.5, 1.0],
            vec![1.0, 1.0, 0.0, 0.0],
            Default::default(),
        ),
        (
            30,
            vec![0.0, 0.4, 0.4, 1.0],
            vec![1.0, 1.0, 0.0, 0.0],
            w(Some(FirWindow::Hann)),
        ),
        (
            25,
            vec![0.0, 0.2, 0.6, 1.0],
            vec![0.0, 1.0, 1.0, 0.0],
            Firwin2Options {
                antisymmetric: true,
                window: None,
                ..Default::default()
            },
        ),
        (
            24,
            vec![0.0, 0.5, 1.0],
            vec![0.0, 0.5, 1.0],
            Firwin2Options {
                antisymmetric: true,
                nfreqs: Some(129),
                ..Default::default()
            },
        ),
        (
            17,
            vec![0.0, 100.0, 150.0, 250.0],
            vec![1.0, 0.7, 0.2, 0.0],
            Firwin2Options {
                fs: Some(500.0),
                window: Some(FirWindow::Blackman),
                ..Default::default()
            },
        ),
        (
            9,
            vec![0.0, 0.5, 0.5, 1.0],
            vec![1.0, 1.0, 0.0, 0.0],
            w(Some(FirWindow::Kaiser(4.0))),
        ),
    ];
    for (i, (n, f, gain, o)) in cases.iter().enumerate() {
        let h = firwin2(*n, f, gain, o).unwrap();
        close(&h, &g.rag("firwin2", i), 1e-12, &format!("firwin2 {i}"));
    }
    let fl: Vec<FirlsCase> = vec![
        (
            11,
            vec![0.0, 0.3, 0.5, 1.0],
            vec![1.0, 1.0, 0.0, 0.0],
            None,
            None,
        ),
        (
            31,
            vec![0.0, 0.2, 0.3, 0.6, 0.7, 1.0],
            vec![0.0, 0.0, 1.0, 1.0, 0.0, 0.0],
            Some(vec![1.0, 2.0, 1.0]),
            None,
        ),
        (
            21,
            vec![0.0, 50.0, 100.0, 250.0],
            vec![1.0, 0.5, 0.2, 0.0],
            Some(vec![3.0, 1.0]),
            Some(500.0),
        ),
        (1, vec![0.0, 1.0], vec![1.0, 1.0], None, None),
    ];
    for (i, (n, b, d, wt, fs)) in fl.iter().enumerate() {
        let h = firls(*n, b, d, wt.as_deref(), *fs).unwrap();
        close(&h, &g.rag("firls", i), 1e-9, &format!("firls {i}"));
    }
    let (h1, h2) = (g.rag("minphase_h", 0), g.rag("minphase_h", 1));
    let mp = [
        minimum_phase(&h1, MinPhaseMethod::Homomorphic, None, true),
        minimum_phase(&h1, MinPhaseMethod::Homomorphic, Some(256), false),
        minimum_phase(&h2, MinPhaseMethod::Homomorphic, None, true),
        minimum_phase(&h1, MinPhaseMethod::Hilbert, None, true),
        minimum_phase(&h2, MinPhaseMethod::Hilbert, Some(512), true),
    ];
    // case 3 (Hilbert method, 8192 points) is ill-conditioned: the magnitude touches zero, and
    // the log of sqrt(H - min H) + 1e-10 there turns FFT rounding into 1e-4 changes (SciPy's own
    // result moves by 1.4e-4 when numpy.fft replaces scipy.fft); the other cases agree to 1e-9
    let tols = [1e-9, 1e-9, 1e-9, 1e-3, 1e-9];
    for (i, h) in mp.into_iter().enumerate() {
        close(
            &h.unwrap(),
            &g.rag("minphase", i),
            tols[i],
            &format!("minimum_phase {i}"),
        );
    }
    let arg = |r: cusci_core::Result<Vec<f64>>| matches!(r, Err(Error::InvalidArgument { .. }));
    assert!(
        arg(firwin2(
            4,
            &[0.0, 0.5, 1.0],
            &[1.0, 1.0, 1.0],
            &Default::default()
        )),
        "type II gain at Nyquist"
    );
    assert!(
        arg(firwin2(
            5,
            &[0.1, 0.5, 1.0],
            &[1.0, 1.0, 0.0],
            &Default::default()
        )),
        "freq starts at 0"
    );
    assert!(arg(firwin2(
        5,
        &[0.0, 0.5, 0.5, 0.5, 1.0],
        &[1.0; 5],
        &Default::default()
    )));
    assert!(arg(firwin2(5, &[0.0, 1.0], &[1.0], &Default::default())));
    assert!(
        arg(firls(
            10,
            &[0.0, 0.3, 0.5, 1.0],
            &[1.0, 1.0, 0.0, 0.0],
            None,
            None
        )),
        "even numtaps"
    );
    assert!(
        arg(firls(
            11,
            &[0.0, 0.5, 0.3, 1.0],
            &[1.0, 1.0, 0.0, 0.0],
            None,
            None
        )),
        "overlap"
    );
    assert!(
        arg(firls(11, &[0.0, 0.3, 0.5], &[1.0, 1.0, 0.0], None, None)),
        "odd edges"
    );
    assert!(arg(firls(
        11,
        &[0.0, 0.3, 0.5, 1.0],
        &[1.0, 1.0, 0.0, 0.0],
        Some(&[1.0]),
        None
    )));
    assert!(arg(minimum_phase(
        &[1.0, 1.0],
        MinPhaseMethod::Homomorphic,
        None,
        true
    )));
    assert!(arg(minimum_phase(
        &h1,
        MinPhaseMethod::Hilbert,
        None,
        false
    )));
    assert!(arg(minimum_phase(
        &h1,
        MinPhaseMethod::Homomorphic,
        Some(8),
        true
    )));
}
