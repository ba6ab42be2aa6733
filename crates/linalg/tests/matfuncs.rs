//! cosm, sinm, tanm, coshm, sinhm, tanhm, expm_frechet and expm_cond against SciPy 1.17's results
//! in `tests/data/scipy_linalg_funcs.npz` (`tests/golden/gen.py linalg_funcs`) on the CPU, every
//! other device against the CPU, for f32, f64, c32 and c64; identities (tan·cos = sin,
//! cosh² − sinh² = I, the Fréchet derivative against a central difference); the errors.

pub use crate::common::npz::{check, close, dt, get, input, single, vals};
use crate::common::npz::{load, Data};
use cusci_core::testing::devices;
use cusci_core::{c32, c64, Element};
use cusci_linalg::*;

const NPZ: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/scipy_linalg_funcs.npz"
);

pub fn data() -> Data {
    load(NPZ)
}

/// f32/c32 inputs are exact (rounded to f32 by the generator); SciPy's results are in f64.
pub fn tol<T: Scalar>() -> f64 {
    if single::<T>() {
        3e-4
    } else {
        1e-11
    }
}

pub fn out<T: Element>(a: Array<T>) -> (Vec<c64>, Vec<usize>) {
    (vals(&a), a.shape().to_vec())
}

type Fun<T> = fn(&Array<T>) -> Result<Array<T>>;

fn trig_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    let funs: [(&str, Fun<T>); 6] = [
        ("cosm", cosm::<T>),
        ("sinm", sinm::<T>),
        ("tanm", tanm::<T>),
        ("coshm", coshm::<T>),
        ("sinhm", sinhm::<T>),
        ("tanhm", tanhm::<T>),
    ];
    for case in ["m5", "st"] {
        let key = format!("in_F_{case}_{t}");
        for (name, f) in funs {
            let (w, s) = get(&d, &format!("{name}_{case}_{t}"));
            check(&format!("{name} {case} {t}"), &w, &s, tol::<T>(), |dev| {
                out(f(&input::<T>(&d, &key, dev)).unwrap())
            });
        }
    }
    // identities on every device: cos·tan = sin (cos and tan commute), cosh² − sinh² = I
    for dev in devices() {
        let a = input::<T>(&d, &format!("in_F_m5_{t}"), &dev);
        let (c, s, tn) = (cosm(&a).unwrap(), sinm(&a).unwrap(), tanm(&a).unwrap());
        let ct = matmul(&c, &tn).unwrap();
        close(&vals(&ct), &vals(&s), 10.0 * tol::<T>(), "cosm·tanm = sinm");
        let (ch, sh) = (coshm(&a).unwrap(), sinhm(&a).unwrap());
        let id = matmul(&ch, &ch)
            .unwrap()
            .sub(&matmul(&sh, &sh).unwrap())
            .unwrap();
        let eye: Vec<c64> = (0..25)
            .map(|i| c64::new(if i % 6 == 0 { 1.0 } else { 0.0 }, 0.0))
            .collect();
        close(&vals(&id), &eye, 10.0 * tol::<T>(), "coshm² − sinhm² = I");
        // errors: not square, 1-D
        let r = Array::<T>::zeros(&[2, 3], &dev).unwrap();
        for (name, f) in funs {
            assert!(
                matches!(f(&r), Err(Error::InvalidArgument { .. })),
                "{name} of 2x3 on {dev}"
            );
        }
        let v = Array::<T>::zeros(&[3], &dev).unwrap();
        assert!(matches!(cosm(&v), Err(Error::InvalidArgument { .. })));
        // empty: an empty result
        let e = Array::<T>::zeros(&[0, 0], &dev).unwrap();
        assert_eq!(tanm(&e).unwrap().shape(), &[0, 0]);
    }
}
all_types!(trig_functions, trig_body);

fn frechet_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    for case in ["small", "big", "st"] {
        for (mname, method) in [
            ("SPS", FrechetMethod::Sps),
            ("blockEnlarge", FrechetMethod::BlockEnlarge),
        ] {
            let run = |dev: &Device| {
                expm_frechet(
                    &input::<T>(&d, &format!("in_FA_{case}_{t}"), dev),
                    &input::<T>(&d, &format!("in_FE_{case}_{t}"), dev),
                    method,
                )
                .unwrap()
            };
            for (field, idx) in [("expm", 0), ("l", 1)] {
                let (w, s) = get(&d, &format!("frechet_{mname}_{case}_{t}_{field}"));
                check(
                    &format!("expm_frechet {mname} {case} {field} {t}"),
                    &w,
                    &s,
                    tol::<T>(),
                    |dev| {
                        let (x, l) = run(dev);
                        out(if idx == 0 { x } else { l })
                    },
                );
            }
        }
    }
    for dev in devices() {
        let a = input::<T>(&d, &format!("in_FA_small_{t}"), &dev);
        let e = input::<T>(&d, &format!("in_FE_small_{t}"), &dev);
        let bad = Array::<T>::zeros(&[3, 3], &dev).unwrap();
        assert!(matches!(
            expm_frechet(&a, &bad, FrechetMethod::Sps),
            Err(Error::ShapeMismatch { .. })
        ));
        let rect = Array::<T>::zeros(&[4, 3], &dev).unwrap();
        assert!(matches!(
            expm_frechet(&rect, &rect, FrechetMethod::Sps),
            Err(Error::InvalidArgument { .. })
        ));
        let mut v = a.to_vec().unwrap();
        v[5] = T::from_c64(c64::new(f64::NAN, 0.0));
        let an = Array::from_vec(v, &[4, 4], &dev).unwrap();
        assert!(matches!(
            expm_frechet(&an, &e, FrechetMethod::Sps),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(expm_cond(&an), Err(Error::InvalidArgument { .. })));
    }
}
all_types!(expm_frechet_golden, frechet_body);

/// L(A, E) against the central difference (expm(A + hE) − expm(A − hE)) / 2h in f64 and c64.
fn frechet_fd_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    for case in ["small", "big"] {
        let a = input::<T>(&d, &format!("in_FA_{case}_{t}"), &Device::Cpu);
        let e = input::<T>(&d, &format!("in_FE_{case}_{t}"), &Device::Cpu);
        let h = 1e-5;
        let he = e.mul_scalar(T::from_c64(c64::new(h, 0.0))).unwrap();
        let fd = expm(&a.add(&he).unwrap())
            .unwrap()
            .sub(&expm(&a.sub(&he).unwrap()).unwrap())
            .unwrap()
            .mul_scalar(T::from_c64(c64::new(0.5 / h, 0.0)))
            .unwrap();
        let (_, l) = expm_frechet(&a, &e, FrechetMethod::Sps).unwrap();
        close(
            &vals(&l),
            &vals(&fd),
            1e-7,
            &format!("L vs central difference {case}"),
        );
    }
}

#[test]
fn expm_frechet_finite_difference() {
    frechet_fd_body::<f64>();
    frechet_fd_body::<c64>();
}

fn cond_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    for case in ["c3", "c4"] {
        let (w, s) = get(&d, &format!("expm_cond_{case}_{t}"));
        check(
            &format!("expm_cond {case} {t}"),
            &w,
            &s,
            tol::<T>(),
            |dev| out(expm_cond(&input::<T>(&d, &format!("in_C_{case}_{t}"), dev)).unwrap()),
        );
    }
    // a stack of two gives the two values
    let (w3, _) = get(&d, &format!("expm_cond_c3_{t}"));
    for dev in devices() {
        let a = input::<T>(&d, &format!("in_C_c3_{t}"), &dev);
        let st = a.expand_dims(0).unwrap().broadcast_to(&[2, 3, 3]).unwrap();
        let k = expm_cond(&st.copy().unwrap()).unwrap();
        assert_eq!(k.shape(), &[2]);
        close(&vals(&k), &[w3[0], w3[0]], tol::<T>(), "expm_cond stack");
    }
}
all_types!(expm_cond_golden, cond_body);

/// The stacked expm: each matrix of a stack as the matrix alone.
fn expm_stack_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    for dev in devices() {
        let st = input::<T>(&d, &format!("in_F_st_{t}"), &dev);
        let all = vals(&expm(&st).unwrap());
        for i in 0..2 {
            let one = st.index_axis(0, i as isize).unwrap();
            let e = vals(&expm(&one.copy().unwrap()).unwrap());
            close(&all[i * 9..(i + 1) * 9], &e, tol::<T>(), "expm stack");
        }
    }
}
all_types!(expm_stacked, expm_stack_body);

fn sign_sqrt_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    // f32: the iterations stop at the f32 rounding floor, amplified by the conditioning
    let tl = if single::<T>() { 2e-3 } else { 1e-10 };
    for case in ["m5", "st"] {
        let (w, s) = get(&d, &format!("sqrtm_{case}_{t}"));
        check(&format!("sqrtm {case} {t}"), &w, &s, tl, |dev| {
            out(sqrtm(&input::<T>(&d, &format!("in_SQ_{case}_{t}"), dev)).unwrap())
        });
        let (w, s) = get(&d, &format!("signm_{case}_{t}"));
        check(&format!("signm {case} {t}"), &w, &s, tl, |dev| {
            out(signm(&input::<T>(&d, &format!("in_SG3_{case}_{t}"), dev)).unwrap())
        });
    }
    let f = |v: f64| T::from_c64(c64::new(v, 0.0));
    for dev in devices() {
        // identities: sqrtm(A)² = A, signm(A)² = I
        let a = input::<T>(&d, &format!("in_SQ_m5_{t}"), &dev);
        let r = sqrtm(&a).unwrap();
        close(
            &vals(&matmul(&r, &r).unwrap()),
            &vals(&a),
            10.0 * tol::<T>(),
            "sqrtm² = A",
        );
        let g = input::<T>(&d, &format!("in_SG3_m5_{t}"), &dev);
        let s = signm(&g).unwrap();
        let eye: Vec<c64> = (0..25)
            .map(|i| c64::new(if i % 6 == 0 { 1.0 } else { 0.0 }, 0.0))
            .collect();
        close(&vals(&matmul(&s, &s).unwrap()), &eye, tl, "signm² = I");
        // a singular matrix, a matrix without a sign (eigenvalues ±i)
        let z = Array::<T>::zeros(&[2, 2], &dev).unwrap();
        assert!(matches!(signm(&z), Err(Error::Singular { .. })));
        assert!(matches!(sqrtm(&z), Err(Error::Singular { .. })));
        let rot = Array::from_vec([0.0, 1.0, -1.0, 0.0].map(f).to_vec(), &[2, 2], &dev).unwrap();
        assert!(
            matches!(signm(&rot), Err(Error::NoConvergence { .. })),
            "signm of a rotation on {dev}"
        );
        // an eigenvalue on the negative real axis: no convergence in every type (the iterates of
        // a real-valued matrix stay real; SciPy's Schur route gives the complex root)
        let neg = Array::from_vec([-4.0, 0.0, 0.0, 1.0].map(f).to_vec(), &[2, 2], &dev).unwrap();
        assert!(
            matches!(sqrtm(&neg), Err(Error::NoConvergence { .. })),
            "sqrtm of a matrix with a negative eigenvalue on {dev}"
        );
        let nan =
            Array::from_vec([f64::NAN, 0.0, 0.0, 1.0].map(f).to_vec(), &[2, 2], &dev).unwrap();
        assert!(matches!(signm(&nan), Err(Error::InvalidArgument { .. })));
        let r = sqrtm(&nan);
        assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}");
        let rect = Array::<T>::zeros(&[2, 3], &dev).unwrap();
        assert!(matches!(sqrtm(&rect), Err(Error::InvalidArgument { .. })));
        assert!(matches!(signm(&rect), Err(Error::InvalidArgument { .. })));
    }
}
all_types!(signm_sqrtm, sign_sqrt_body);

fn log_power_body<T: Scalar>() {
    let d = data();
    let t = dt::<T>();
    let tl = if single::<T>() { 2e-3 } else { 1e-10 };
    for case in ["m5", "st"] {
        let key = format!("in_SQ_{case}_{t}");
        let (w, s) = get(&d, &format!("logm_{case}_{t}"));
        check(&format!("logm {case} {t}"), &w, &s, tl, |dev| {
            out(logm(&input::<T>(&d, &key, dev)).unwrap())
        });
        for (name, p) in [("p03", 0.3), ("pm15", -1.5), ("p3", 3.0)] {
            let (w, s) = get(&d, &format!("fmp_{name}_{case}_{t}"));
            check(
                &format!("fractional_matrix_power {name} {case} {t}"),
                &w,
                &s,
                tl,
                |dev| out(fractional_matrix_power(&input::<T>(&d, &key, dev), p).unwrap()),
            );
        }
    }
    let (w, s) = get(&d, &format!("logm_lg_{t}"));
    check(&format!("logm lg {t}"), &w, &s, tl, |dev| {
        out(logm(&input::<T>(&d, &format!("in_LG_{t}"), dev)).unwrap())
    });
    let f = |v: f64| T::from_c64(c64::new(v, 0.0));
    for dev in devices() {
        // expm(logm(A)) = A
        let a = input::<T>(&d, &format!("in_LG_{t}"), &dev);
        close(
            &vals(&expm(&logm(&a).unwrap()).unwrap()),
            &vals(&a),
            tl,
            "expm(logm(A)) = A",
        );
        let z = Array::<T>::zeros(&[2, 2], &dev).unwrap();
        assert!(matches!(logm(&z), Err(Error::Singular { .. })));
        let neg = Array::from_vec([-4.0, 0.0, 0.0, 1.0].map(f).to_vec(), &[2, 2], &dev).unwrap();
        assert!(matches!(logm(&neg), Err(Error::NoConvergence { .. })));
        assert!(matches!(
            fractional_matrix_power(&neg, 0.5),
            Err(Error::NoConvergence { .. })
        ));
        // an integer power is matrix_power: defined for the negative eigenvalue
        let sq = vals(&fractional_matrix_power(&neg, 2.0).unwrap());
        assert_eq!((sq[0].re, sq[3].re), (16.0, 1.0));
        assert!(matches!(
            fractional_matrix_power(&neg, f64::NAN),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
all_types!(logm_fractional_matrix_power, log_power_body);
