//! SciPy's results for the Hermitian n-d transforms, `irfft` of real input and the fast Hankel
//! transform (`tests/data/scipy_fft_extra.npz`, written by `tests/golden/gen.py fft`; member
//! names described there), on the CPU; and the identities those transforms obey.

use cusci_core::npy::{load_npz, DynArray};
use cusci_core::testing::assert_slices_close;
use cusci_core::{c64, Array, Device, Element};
use cusci_fft::*;
use std::collections::BTreeMap;

const NPZ: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/scipy_fft_extra.npz"
);

fn members() -> BTreeMap<String, DynArray> {
    load_npz(NPZ, &Device::cpu())
        .expect("reading scipy_fft_extra.npz")
        .into_iter()
        .collect()
}

fn get<T: Element>(m: &BTreeMap<String, DynArray>, k: &str) -> Array<T> {
    m.get(k)
        .unwrap_or_else(|| panic!("member {k}"))
        .clone()
        .into_array::<T>()
        .unwrap_or_else(|e| panic!("{k}: {e}"))
}

/// `|a - e| <= tol·max|e|` (errors relative to the largest value).
fn check<T: Element>(a: &Array<T>, e: &Array<T>, tol: f64, ctx: &str) {
    assert_eq!(a.shape(), e.shape(), "{ctx}: shape");
    let (av, ev) = (a.to_vec().unwrap(), e.to_vec().unwrap());
    let max = ev.iter().map(|v| v.to_c64().norm()).fold(0.0, f64::max);
    assert_slices_close(&av, &ev, e.shape(), 0.0, tol * max.max(1e-300), ctx);
}

#[test]
fn hermitian_nd_and_irfft_of_real_match_scipy() {
    let m = members();
    let xc: Array<c64> = get(&m, "x_c");
    let xr: Array<f64> = get(&m, "x_r");
    let mut count = 0;
    for (norm, tag) in [
        (Norm::Backward, "backward"),
        (Norm::Ortho, "ortho"),
        (Norm::Forward, "forward"),
    ] {
        let d = FftnOptions {
            norm,
            ..Default::default()
        };
        let a0 = FftnOptions {
            axes: Some(vec![0]),
            norm,
            ..Default::default()
        };
        let f = |k: &str| format!("{k}_{tag}_out");
        // the Hermitian transforms of complex input, then the inverse ones of real input
        for (got, key, what) in [
            (hfftn(&xc, &d), "hfftn_c", "hfftn"),
            (hfft2(&xc, &d), "hfft2_c", "hfft2"),
            (hfftn(&xc, &a0), "hfftn_c_ax0", "hfftn ax0"),
        ] {
            check(&got.unwrap(), &get(&m, &f(key)), 1e-13, what);
        }
        for (got, key, what) in [
            (ihfftn(&xr, &d), "ihfftn_r", "ihfftn"),
            (ihfft2(&xr, &d), "ihfft2_r", "ihfft2"),
            (ihfftn(&xr, &a0), "ihfftn_r_ax0", "ihfftn ax0"),
        ] {
            check(&got.unwrap(), &get(&m, &f(key)), 1e-13, what);
        }
        let o = FftOptions {
            norm,
            ..Default::default()
        };
        check(
            &irfft_real(&xr, &o).unwrap(),
            &get(&m, &f("irfft_r")),
            1e-13,
            "irfft real",
        );
        // f32 gives the same within single precision
        let r32 = xr.astype::<f32>().unwrap();
        let e: Array<f64> = get(&m, &f("irfft_r"));
        check(
            &irfft_real(&r32, &o).unwrap(),
            &e.astype::<f32>().unwrap(),
            1e-5,
            "irfft f32",
        );
        count += 8;
    }
    assert_eq!(count, 24);
}

#[test]
fn fht_ifht_fhtoffset_match_scipy() {
    let m = members();
    let mut i = 0;
    while let Some(p) = m.get(&format!("fhtp_{i}")) {
        let p = p.clone().into_array::<f64>().unwrap().to_vec().unwrap();
        let (dln, mu, offset, bias, n) = (p[0], p[1], p[2], p[3], p[4] as usize);
        let x: Array<f64> = get(&m, &format!("x_fht{n}"));
        let o = FhtOptions { offset, bias };
        let ctx = format!("case {i}: n={n} dln={dln} mu={mu} offset={offset} bias={bias}");
        check(
            &fht(&x, dln, mu, &o).unwrap(),
            &get(&m, &format!("fht_{i}_out")),
            1e-11,
            &format!("fht {ctx}"),
        );
        check(
            &ifht(&x, dln, mu, &o).unwrap(),
            &get(&m, &format!("ifht_{i}_out")),
            1e-11,
            &format!("ifht {ctx}"),
        );
        let off = fhtoffset(dln, mu, offset, bias).unwrap();
        let want = get::<f64>(&m, &format!("fhtoffset_{i}_out"))
            .to_vec()
            .unwrap()[0];
        assert!(
            (off - want).abs() < 1e-12,
            "fhtoffset {ctx}: {off} vs {want}"
        );
        i += 1;
    }
    assert_eq!(i, 6, "every fht case read");
}

#[test]
fn fht_inverts_and_batches() {
    let dev = Device::cpu();
    let x = cusci_core::testing::randn::<f64>(&[4, 50], 3, &dev).unwrap();
    for (mu, bias) in [(0.0, 0.0), (0.5, 0.2), (1.5, -0.4)] {
        let o = FhtOptions {
            offset: fhtoffset(0.07, mu, 0.0, bias).unwrap(),
            bias,
        };
        let y = fht(&x, 0.07, mu, &o).unwrap();
        let back = ifht(&y, 0.07, mu, &o).unwrap();
        check(
            &back,
            &x,
            1e-10,
            &format!("ifht(fht(x)) mu={mu} bias={bias}"),
        );
        // each row of the batch is its own transform
        let row = fht(&x.index_axis(0, 2).unwrap(), 0.07, mu, &o).unwrap();
        check(
            &y.index_axis(0, 2).unwrap().contiguous().unwrap(),
            &row,
            1e-14,
            "batch row",
        );
    }
    let bad = fht(&x, 0.0, 0.5, &FhtOptions::default());
    assert!(
        matches!(bad, Err(cusci_core::Error::InvalidArgument { .. })),
        "{bad:?}"
    );
    let scalar = Array::<f64>::scalar(1.0, &dev).unwrap();
    assert!(fht(&scalar, 0.1, 0.0, &FhtOptions::default()).is_err());
}

#[test]
fn explicit_plan_checks_its_geometry() {
    let dev = Device::cpu();
    let x = cusci_core::testing::randn::<c64>(&[3, 10], 5, &dev).unwrap();
    let plan = get_fft_plan(
        &x,
        &FftOptions {
            axis: 0,
            ..Default::default()
        },
    )
    .unwrap();
    let y = plan.execute(&x, true).unwrap();
    let want = fft(
        &x,
        &FftOptions {
            axis: 0,
            ..Default::default()
        },
    )
    .unwrap();
    check(&y, &want, 1e-15, "plan = fft");
    let other = cusci_core::testing::randn::<c64>(&[3, 11], 5, &dev).unwrap();
    assert!(matches!(
        plan.execute(&other, true),
        Err(cusci_core::Error::ShapeMismatch { .. })
    ));
    let back = plan.execute(&y, false).unwrap();
    check(&back, &x, 1e-14, "plan inverse");
}

#[test]
fn plans_as_options_check_the_call() {
    let dev = Device::cpu();
    let x = cusci_core::testing::randn::<c64>(&[3, 8, 10], 6, &dev).unwrap();
    let r = cusci_core::testing::randn::<f64>(&[3, 8, 10], 7, &dev).unwrap();
    let bad = |e: cusci_core::Result<Array<c64>>, ctx: &str| {
        assert!(
            matches!(e, Err(cusci_core::Error::InvalidArgument { .. })),
            "{ctx}: {e:?}"
        )
    };
    // a 1-d C2c plan fits fft/ifft along its axis, and nothing else
    let p1 = get_fft_plan(&x, &FftOptions::default()).unwrap();
    assert_eq!(p1.kind(), PlanKind::C2c);
    assert_eq!(p1.axes(), &[(2, 10)]);
    let o = FftOptions {
        plan: Some(p1.clone()),
        ..Default::default()
    };
    check(
        &fft(&x, &o).unwrap(),
        &fft(&x, &FftOptions::default()).unwrap(),
        0.0,
        "fft with its plan",
    );
    bad(
        fft(
            &x,
            &FftOptions {
                axis: 1,
                ..o.clone()
            },
        ),
        "another axis",
    );
    bad(
        fft(
            &x,
            &FftOptions {
                n: Some(12),
                ..o.clone()
            },
        ),
        "another length",
    );
    bad(
        fft(&x.slice_axis(0, Some(0), Some(2), 1).unwrap(), &o),
        "another shape",
    );
    // (f64 input is converted to c64 first, so the c64 plan fits it)
    assert!(fft(&r.astype::<c64>().unwrap(), &o).is_ok());
    // kinds: an R2c plan for rfft(n), a C2r plan for irfft(n), not crossed
    let pr = get_fftn_plan(
        &r,
        &FftnOptions {
            axes: Some(vec![0, 2]),
            ..Default::default()
        },
        PlanKind::R2c,
    )
    .unwrap();
    let on = FftnOptions {
        axes: Some(vec![0, 2]),
        plan: Some(pr.clone()),
        ..Default::default()
    };
    let y = rfftn(&r, &on).unwrap();
    check(
        &y,
        &rfftn(
            &r,
            &FftnOptions {
                axes: Some(vec![0, 2]),
                ..Default::default()
            },
        )
        .unwrap(),
        0.0,
        "rfftn with its plan",
    );
    bad(fftn(&x, &on), "an R2c plan given to fftn");
    let pc = get_fftn_plan(
        &y,
        &FftnOptions {
            axes: Some(vec![0, 2]),
            s: Some(vec![3, 10]),
            ..Default::default()
        },
        PlanKind::C2r,
    )
    .unwrap();
    assert_eq!(pc.axes(), &[(0, 3), (2, 10)]);
    let back = irfftn(
        &y,
        &FftnOptions {
            axes: Some(vec![0, 2]),
            s: Some(vec![3, 10]),
            plan: Some(pc.clone()),
            ..Default::default()
        },
    )
    .unwrap();
    check(&back, &r, 1e-14, "irfftn(rfftn) with plans");
    // the Hermitian transforms take no plan; wrong kinds and types are refused when planning
    assert!(matches!(
        hfft(
            &x,
            &FftOptions {
                plan: Some(p1.clone()),
                ..Default::default()
            }
        ),
        Err(cusci_core::Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        get_fftn_plan(&r, &FftnOptions::default(), PlanKind::C2c),
        Err(cusci_core::Error::UnsupportedDType { .. })
    ));
    assert!(matches!(
        get_fftn_plan(&x, &FftnOptions::default(), PlanKind::R2c),
        Err(cusci_core::Error::UnsupportedDType { .. })
    ));
    // plans compare by what they plan
    assert_eq!(p1, get_fft_plan(&x, &FftOptions::default()).unwrap());
    assert_ne!(p1, pr);
    // execute runs C2c plans only
    assert!(pr.execute(&x, true).is_err());
}
