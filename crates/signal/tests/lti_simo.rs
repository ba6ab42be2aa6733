//! dlsim's `t` argument and single-input multiple-output transfer functions against SciPy
//! (`tests/data/lti2.npz`, the `signal_lti2` section of `tests/golden/gen.py`), on every device.

use crate::common::{close, Golden};
use cusci_core::testing::{assert_slices_close, for_each_device};
use cusci_core::{Array, Device, Error};
use cusci_signal::ltisys::{normalize_simo, ss2tf, tf2ss_simo};
use cusci_signal::*;

fn dsys(g: &Golden) -> Lti {
    Lti::dss(
        &g.mat("dlsimt_a"),
        &g.mat("dlsimt_b"),
        &g.mat("dlsimt_c"),
        &g.mat("dlsimt_d"),
        0.1,
    )
    .unwrap()
}

#[test]
fn dlsim_with_t_matches_scipy_on_every_device() {
    let g = Golden::load("lti2.npz");
    let sys = dsys(&g);
    let x0 = [0.3, -0.2, 0.5];
    for k in 0..4 {
        let t = g.f(&format!("dlsimt_t{k}"));
        let ud = g.f(&format!("dlsimt_u{k}"));
        let want_t = g.f(&format!("dlsimt_tout{k}"));
        let nout = want_t.len();
        // the CPU result, then the same on every device (and as f32 within f32 accuracy)
        let cpu = Array::from_vec(ud.clone(), &[t.len(), 2], &Device::Cpu).unwrap();
        let want = dlsim(&sys, &cpu, Some(&t), Some(&x0)).unwrap();
        close(&want.t, &want_t, 1e-14, &format!("case {k} t"));
        assert_eq!(want.y.shape(), &[nout, 2]);
        close(
            &want.y.to_vec().unwrap(),
            &g.f(&format!("dlsimt_y{k}")),
            1e-12,
            &format!("case {k} y"),
        );
        close(
            &want.x.to_vec().unwrap(),
            &g.f(&format!("dlsimt_x{k}")),
            1e-12,
            &format!("case {k} x"),
        );
        for_each_device(|dev| {
            // a batch of 3: the golden signal and two scaled copies
            let mut data = ud.clone();
            data.extend(ud.iter().map(|v| 2.0 * v));
            data.extend(ud.iter().map(|v| -v));
            let u = Array::from_vec(data, &[3, t.len(), 2], dev).unwrap();
            let r = dlsim(&sys, &u, Some(&t), Some(&x0)).unwrap();
            assert_eq!(r.y.shape(), &[3, nout, 2]);
            assert_eq!(r.x.shape(), &[3, nout, 3]);
            let y = r.y.to_vec().unwrap();
            let ctx = format!("dlsim t case {k} on {dev:?}");
            assert_slices_close(
                &y[..nout * 2],
                &want.y.to_vec().unwrap(),
                &[nout, 2],
                1e-12,
                1e-14,
                &ctx,
            );
            let uf: Vec<f32> = ud.iter().map(|&v| v as f32).collect();
            let u32a = Array::from_vec(uf, &[t.len(), 2], dev).unwrap();
            let r32 = dlsim(&sys, &u32a, Some(&t), Some(&x0)).unwrap();
            let y32: Vec<f64> = r32.y.to_vec().unwrap().iter().map(|&v| v as f64).collect();
            close(&y32, &want.y.to_vec().unwrap(), 1e-5, &ctx);
        });
    }
}

#[test]
fn dlsim_t_errors_as_scipy() {
    let g = Golden::load("lti2.npz");
    let sys = dsys(&g);
    for_each_device(|dev| {
        let u = Array::from_vec(vec![1.0f64; 10], &[5, 2], dev).unwrap();
        let arg = |r: cusci_core::Result<_>, what: &str| match r {
            Err(Error::InvalidArgument { .. }) => {}
            other => panic!(
                "{what}: {:?}",
                other.map(|_: cusci_signal::ltisys::Response<f64>| ())
            ),
        };
        let shape = |r: cusci_core::Result<_>, what: &str| match r {
            Err(Error::ShapeMismatch { .. }) => {}
            other => panic!(
                "{what}: {:?}",
                other.map(|_: cusci_signal::ltisys::Response<f64>| ())
            ),
        };
        shape(
            dlsim(&sys, &u, Some(&[0.0, 0.1, 0.2, 0.3]), None),
            "4 times for 5 steps",
        );
        arg(
            dlsim(&sys, &u, Some(&[0.0, 0.2, 0.1, 0.3, 0.4]), None),
            "decreasing",
        );
        arg(
            dlsim(&sys, &u, Some(&[0.0, 0.1, 0.1, 0.3, 0.4]), None),
            "duplicate",
        );
        arg(
            dlsim(&sys, &u, Some(&[0.0, 0.1, 0.2, 0.3, f64::NAN]), None),
            "NaN",
        );
        arg(
            dlsim(&sys, &u, Some(&[-0.5, -0.4, -0.3, -0.2, -0.01]), None),
            "t[-1] < 0",
        );
        let u1 = Array::from_vec(vec![1.0f64; 2], &[1, 2], dev).unwrap();
        arg(dlsim(&sys, &u1, Some(&[0.0]), None), "one time");
        // t[-1] = 0: one sample
        let r = dlsim(&sys, &u, Some(&[-0.5, -0.4, -0.3, -0.2, 0.0]), None).unwrap();
        assert_eq!(r.t, vec![0.0]);
        assert_eq!(r.y.shape(), &[1, 2]);
    });
}

#[test]
fn simo_transfer_functions_match_scipy() {
    let g = Golden::load("lti2.npz");
    let num = g.rows("simo_num");
    let den = g.f("simo_den");
    let ss = tf2ss_simo(&num, &den).unwrap();
    for (nm, m) in [("a", &ss.a), ("b", &ss.b), ("c", &ss.c), ("d", &ss.d)] {
        let want = g.mat(&format!("simo_{nm}"));
        assert_eq!((m.rows, m.cols), (want.rows, want.cols), "tf2ss {nm} shape");
        close(&m.data, &want.data, 1e-14, &format!("tf2ss {nm}"));
    }
    let (n2, d2) = ss2tf(&ss, 0).unwrap();
    let want = g.rows("simo_ss2tf_num");
    assert_eq!(n2.len(), 2);
    for (r, w) in n2.iter().zip(&want) {
        close(r, w, 1e-12, "ss2tf num");
    }
    close(&d2, &g.f("simo_ss2tf_den"), 1e-12, "ss2tf den");
    // leading all-zero columns are stripped, as SciPy's normalize
    let ss0 = tf2ss_simo(&g.rows("simo0_num"), &den).unwrap();
    close(&ss0.c.data, &g.f("simo0_c"), 1e-14, "tf2ss stripped c");
    close(&ss0.d.data, &g.f("simo0_d"), 1e-14, "tf2ss stripped d");
    // the Lti round trips: tf -> ss -> tf
    let sys = Lti::tf_simo(&num, &den).unwrap();
    let back = Lti::Ss(sys.to_ss().unwrap()).to_tf().unwrap();
    let (nn, dn) = normalize_simo(&num, &den).unwrap();
    assert_eq!(back.num.len(), 2);
    for (r, w) in back.num.iter().zip(&nn) {
        close(r, w, 1e-12, "round trip num");
    }
    close(&back.den, &dn, 1e-12, "round trip den");
    // SISO-only operations refuse two outputs
    assert!(matches!(sys.to_zpk(), Err(Error::InvalidArgument { .. })));
    assert!(matches!(
        freqresp(&sys, &WorN::Freqs(vec![1.0])),
        Err(Error::InvalidArgument { .. })
    ));
    // poles are the denominator's roots
    let mut p: Vec<f64> = sys.poles().unwrap().iter().map(|z| z.norm()).collect();
    p.sort_by(f64::total_cmp);
    let mut q: Vec<f64> = Lti::Ss(ss.clone())
        .poles()
        .unwrap()
        .iter()
        .map(|z| z.norm())
        .collect();
    q.sort_by(f64::total_cmp);
    close(&p, &q, 1e-10, "poles");
    // rows of different lengths
    assert!(matches!(
        tf2ss_simo(&[vec![1.0], vec![1.0, 2.0]], &den),
        Err(Error::ShapeMismatch { .. })
    ));
    // improper
    assert!(matches!(
        tf2ss_simo(&[vec![1.0, 2.0, 3.0], vec![1.0, 2.0, 3.0]], &[1.0, 1.0]),
        Err(Error::InvalidArgument { .. })
    ));
}

#[test]
fn simo_lsim_and_discretisation() {
    let g = Golden::load("lti2.npz");
    let sys = Lti::tf_simo(&g.rows("simo_num"), &g.f("simo_den")).unwrap();
    let t = g.f("simo_lsim_t");
    let ud = g.f("simo_lsim_u");
    let want = g.f("simo_lsim_y");
    for_each_device(|dev| {
        let u = Array::from_vec(ud.clone(), &[ud.len()], dev).unwrap();
        let r = lsim(&sys, &u, &t, &Default::default()).unwrap();
        assert_eq!(r.y.shape(), &[t.len(), 2]);
        close(
            &r.y.to_vec().unwrap(),
            &want,
            1e-10,
            &format!("simo lsim on {dev:?}"),
        );
    });
    // cont2discrete keeps both outputs: the discrete tf equals the discretised state space's
    let d = cont2discrete(&sys, 0.1, Discretization::Zoh).unwrap();
    let dtf = d.to_tf().unwrap();
    assert_eq!(dtf.num.len(), 2);
    let dss = cont2discrete(&Lti::Ss(sys.to_ss().unwrap()), 0.1, Discretization::Zoh)
        .unwrap()
        .to_tf()
        .unwrap();
    for (r, w) in dtf.num.iter().zip(&dss.num) {
        close(r, w, 1e-10, "c2d simo num");
    }
    close(&dtf.den, &dss.den, 1e-10, "c2d simo den");
}
