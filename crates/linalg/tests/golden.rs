//! cusci-linalg against NumPy/SciPy's own results, read from `tests/data/scipy_linalg.npz`
//! (written by `tests/golden/gen.py linalg`; see `gen_linalg` for the member names), on every
//! device. Tolerance: `TOL·max|expected|` with `TOL` = 1e-10 (f64 and complex128 inputs of order
//! at most 8 with condition numbers below 1e3).

use cusci_core::npy::{load_npz, DynArray};
use cusci_core::testing::devices;
use cusci_core::{c64, Element};
use cusci_linalg::*;
use std::collections::BTreeMap;

const NPZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/scipy_linalg.npz");
const TOL: f64 = 1e-10;

fn data() -> BTreeMap<String, DynArray> {
    load_npz(NPZ, &Device::Cpu)
        .expect("golden file")
        .into_iter()
        .collect()
}

/// Values of a member as complex numbers, and its shape.
fn get(d: &BTreeMap<String, DynArray>, k: &str) -> (Vec<c64>, Vec<usize>) {
    let a = d.get(k).unwrap_or_else(|| panic!("member {k}"));
    match a {
        DynArray::F64(x) => (
            x.to_vec()
                .unwrap()
                .into_iter()
                .map(|v| c64::new(v, 0.0))
                .collect(),
            x.shape().to_vec(),
        ),
        DynArray::C64(x) => (x.to_vec().unwrap(), x.shape().to_vec()),
        DynArray::I64(x) => (
            x.to_vec()
                .unwrap()
                .into_iter()
                .map(|v| c64::new(v as f64, 0.0))
                .collect(),
            x.shape().to_vec(),
        ),
        _ => panic!("member {k}: unexpected type"),
    }
}

fn close<T: Element>(got: &[T], want: &[c64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    let scale = want.iter().map(|v| v.norm()).fold(1.0, f64::max);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let g = g.to_c64();
        let ok = (g - w).norm() <= TOL * scale || (g.re.is_infinite() && g == *w);
        assert!(ok, "{what}: index {i}: got {g}, want {w}");
    }
}

fn input<T: Scalar>(d: &BTreeMap<String, DynArray>, k: &str, dev: &Device) -> Array<T> {
    let (v, s) = get(d, k);
    Array::from_vec(v.into_iter().map(T::from_c64).collect(), &s, dev).unwrap()
}

fn square_cases<T: Scalar>(dt: &str) {
    let d = data();
    for dev in devices() {
        for n in [1, 2, 3, 5, 8] {
            let k = format!("{dt}{n}");
            let a = input::<T>(&d, &format!("A_{k}"), &dev);
            let h = input::<T>(&d, &format!("H_{k}"), &dev);
            let b = input::<T>(&d, &format!("B_{k}"), &dev);
            let w = |name: &str| get(&d, &format!("{name}_{k}")).0;
            let ctx = |f: &str| format!("{f} {k} on {dev}");
            close(&det(&a).unwrap().to_vec().unwrap(), &w("det"), &ctx("det"));
            let (s, l) = slogdet(&a).unwrap();
            close(
                &s.to_vec().unwrap(),
                &w("slogdet_sign"),
                &ctx("slogdet sign"),
            );
            close(&l.to_vec().unwrap(), &w("slogdet_log"), &ctx("slogdet log"));
            let f = lu_factor(&a, LuFactorOptions::default()).unwrap();
            close(
                &f.lu.to_vec().unwrap(),
                &w("lu_factor_lu"),
                &ctx("lu_factor lu"),
            );
            close(
                &f.piv.to_vec().unwrap(),
                &w("lu_factor_piv"),
                &ctx("lu_factor piv"),
            );
            close(
                &solve(&a, &b).unwrap().to_vec().unwrap(),
                &w("solve"),
                &ctx("solve"),
            );
            close(&inv(&a).unwrap().to_vec().unwrap(), &w("inv"), &ctx("inv"));
            let sv = svd(
                &a,
                SvdOptions {
                    full_matrices: true,
                    compute_uv: false,
                },
            )
            .unwrap()
            .s;
            close(&sv.to_vec().unwrap(), &w("svdvals"), &ctx("svd"));
            close(
                &eigvalsh(&h, true).unwrap().to_vec().unwrap(),
                &w("eigvalsh"),
                &ctx("eigvalsh"),
            );
            close(
                &cholesky(&h).unwrap().to_vec().unwrap(),
                &w("cholesky"),
                &ctx("cholesky"),
            );
            close(
                &pinv(&a, None).unwrap().to_vec().unwrap(),
                &w("pinv"),
                &ctx("pinv"),
            );
            let scaled = a
                .mul_scalar(T::from_c64(c64::new(1.0 / n as f64, 0.0)))
                .unwrap();
            close(
                &expm(&scaled).unwrap().to_vec().unwrap(),
                &w("expm"),
                &ctx("expm"),
            );
            close(
                &matrix_power(&a, 3).unwrap().to_vec().unwrap(),
                &w("matrix_power3"),
                &ctx("matrix_power 3"),
            );
            close(
                &matrix_power(&a, -2).unwrap().to_vec().unwrap(),
                &w("matrix_powerm2"),
                &ctx("matrix_power -2"),
            );
            for (name, ord) in [
                ("fro", NormOrd::Fro),
                ("nuc", NormOrd::Nuc),
                ("inf", NormOrd::Inf),
                ("minf", NormOrd::NegInf),
                ("1", NormOrd::P(1.0)),
                ("m1", NormOrd::P(-1.0)),
                ("2", NormOrd::P(2.0)),
                ("m2", NormOrd::P(-2.0)),
            ] {
                close(
                    &norm(&a, ord).unwrap().to_vec().unwrap(),
                    &w(&format!("norm_{name}")),
                    &ctx(&format!("norm {name}")),
                );
            }
            // eigenvalues of the general matrix as a multiset (SciPy's are sorted by real, then
            // imaginary part; the solvers' own order is not specified): match each to the
            // nearest one not yet taken
            let mut got: Vec<c64> = eigvals(&a)
                .unwrap()
                .to_vec()
                .unwrap()
                .iter()
                .map(|z| z.to_c64())
                .collect();
            let want = w("eigvals");
            assert_eq!(got.len(), want.len(), "{}", ctx("eigvals length"));
            let scale = want.iter().map(|v| v.norm()).fold(1.0, f64::max);
            for wv in &want {
                let (i, dist) = got
                    .iter()
                    .enumerate()
                    .map(|(i, g)| (i, (g - wv).norm()))
                    .fold((0, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a });
                assert!(dist <= 1e-9 * scale, "{}: {wv} missing", ctx("eigvals"));
                got.swap_remove(i);
            }
            let f = qr_raw(&a).unwrap();
            close(&f.h.to_vec().unwrap(), &w("qr_raw_h"), &ctx("qr raw h"));
            close(
                &f.tau.to_vec().unwrap(),
                &w("qr_raw_tau"),
                &ctx("qr raw tau"),
            );
            close(&f.r.to_vec().unwrap(), &w("qr_raw_r"), &ctx("qr raw r"));
            let b0 = b.index_axis(-1, 0).unwrap();
            close(
                &tensorsolve(&a, &b0, None).unwrap().to_vec().unwrap(),
                &w("tensorsolve"),
                &ctx("tensorsolve"),
            );
            close(
                &einsum("ij,kj->ik", &[&a, &h]).unwrap().to_vec().unwrap(),
                &w("einsum_bij"),
                &ctx("einsum"),
            );
            let c = cond(&a, NormOrd::Default).unwrap().to_vec().unwrap();
            let wc = w("cond");
            // cond is relative to its own size (up to 1e3)
            assert!(
                (c[0].to_c64() - wc[0]).norm() <= 1e-8 * wc[0].norm(),
                "{}",
                ctx("cond")
            );
        }
    }
}

#[test]
fn golden_f64() {
    square_cases::<f64>("d");
}

#[test]
fn golden_c64() {
    square_cases::<c64>("z");
}

#[test]
fn golden_rank_lstsq_vector_norms() {
    let d = data();
    for dev in devices() {
        let r = input::<f64>(&d, "R_rank", &dev);
        let y = input::<f64>(&d, "Y_rank", &dev);
        let wide = r.swapaxes(0, 1).unwrap().copy().unwrap();
        for (tag, x) in [("tall", &r), ("wide", &wide)] {
            let f = qr_raw(x).unwrap();
            for (got, field) in [(&f.h, "h"), (&f.tau, "tau"), (&f.r, "r")] {
                let (want, shape) = get(&d, &format!("qr_raw_{field}_{tag}"));
                assert_eq!(got.shape(), &shape[..], "qr raw {field} {tag} shape");
                // R_rank has rank 3: the reflectors after the third are made of rounding noise
                // (tiny in R, arbitrary in h and tau), so those are compared only for j < 3
                let cols = *shape.last().unwrap();
                let keep =
                    |i: usize| field == "r" || (if field == "tau" { i } else { i % cols }) < 3;
                let g: Vec<f64> = got
                    .to_vec()
                    .unwrap()
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| keep(*i))
                    .map(|(_, v)| v)
                    .collect();
                let w: Vec<c64> = want
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| keep(*i))
                    .map(|(_, v)| v)
                    .collect();
                close(&g, &w, &format!("qr raw {field} {tag} on {dev}"));
            }
        }
        assert_eq!(
            matrix_rank(&r, None).unwrap().item().unwrap(),
            get(&d, "matrix_rank_rank").0[0].re as i64
        );
        close(
            &pinv(&r, None).unwrap().to_vec().unwrap(),
            &get(&d, "pinv_rank").0,
            "pinv rank-deficient",
        );
        let l = lstsq(&r, &y, None).unwrap();
        assert_eq!(l.rank, 3);
        close(
            &l.x.to_vec().unwrap(),
            &get(&d, "lstsq_x_rank").0,
            "lstsq x",
        );
        close(
            &l.s.to_vec().unwrap(),
            &get(&d, "lstsq_sv_rank").0,
            "lstsq s",
        );
        let col = y
            .swapaxes(0, 1)
            .unwrap()
            .index_axis(0, 0)
            .unwrap()
            .contiguous()
            .unwrap();
        for (name, ord) in [
            ("2", NormOrd::Default),
            ("1", NormOrd::P(1.0)),
            ("inf", NormOrd::Inf),
            ("m1", NormOrd::P(-1.0)),
            ("0", NormOrd::P(0.0)),
            ("3", NormOrd::P(3.0)),
        ] {
            close(
                &norm(&col, ord).unwrap().to_vec().unwrap(),
                &get(&d, &format!("vnorm_{name}")).0,
                &format!("vector norm {name}"),
            );
        }
    }
}

#[test]
fn golden_special_matrices() {
    let d = data();
    let c = [1.0, 2.0, -3.0, 0.5];
    let r = [1.0, -1.0, 4.0];
    for dev in devices() {
        let chk = |got: Array<f64>, k: &str| {
            let (w, s) = get(&d, k);
            assert_eq!(got.shape(), &s[..], "{k} shape");
            close(&got.to_vec().unwrap(), &w, k);
        };
        chk(toeplitz(&c, None, &dev).unwrap(), "toeplitz_c");
        chk(toeplitz(&c, Some(&r), &dev).unwrap(), "toeplitz_cr");
        chk(circulant(&c, &dev).unwrap(), "circulant_c");
        chk(hankel(&c, None, &dev).unwrap(), "hankel_c");
        chk(hankel(&c, Some(&r), &dev).unwrap(), "hankel_cr");
        chk(hadamard(8, &dev).unwrap(), "hadamard_8");
        chk(companion(&c, &dev).unwrap(), "companion_c");
        chk(helmert(5, false, &dev).unwrap(), "helmert_5");
        chk(helmert(5, true, &dev).unwrap(), "helmert_5_full");
        chk(hilbert(5, &dev).unwrap(), "hilbert_5");
        chk(leslie(&c, &r, &dev).unwrap(), "leslie_c");
        chk(fiedler(&c, &dev).unwrap(), "fiedler_c");
        chk(fiedler_companion(&c, &dev).unwrap(), "fiedler_companion_c");
        for (m, k) in [
            (ConvMode::Full, "full"),
            (ConvMode::Valid, "valid"),
            (ConvMode::Same, "same"),
        ] {
            chk(
                convolution_matrix(&r, 5, m, &dev).unwrap(),
                &format!("convolution_matrix_{k}"),
            );
        }
        let b1 = Array::<f64>::ones(&[2, 2], &dev).unwrap();
        let b2 = Array::<f64>::full(&[1, 3], 2.0, &dev).unwrap();
        let b3 = Array::<f64>::full(&[1, 1], 5.0, &dev).unwrap();
        chk(block_diag(&[&b1, &b2, &b3]).unwrap(), "block_diag");
        let ka = Array::<f64>::arange(0.0, 6.0, 1.0, &dev)
            .unwrap()
            .reshape(&[2, 3])
            .unwrap();
        let kb = Array::<f64>::arange(0.0, 4.0, 1.0, &dev)
            .unwrap()
            .reshape(&[2, 2])
            .unwrap()
            .sub_scalar(1.0)
            .unwrap();
        chk(kron(&ka, &kb).unwrap(), "kron");
        let kc = Array::<f64>::arange(0.0, 9.0, 1.0, &dev)
            .unwrap()
            .reshape(&[3, 3])
            .unwrap();
        chk(khatri_rao(&ka, &kc).unwrap(), "khatri_rao");
        let band = input::<f64>(&d, "band_in", &dev);
        let bw = get(&d, "bandwidth_out").0;
        assert_eq!(
            bandwidth(&band).unwrap(),
            (bw[0].re as usize, bw[1].re as usize)
        );
        for (scale, k) in [
            (DftScale::None, "dft_5"),
            (DftScale::SqrtN, "dft_4_sqrtn"),
            (DftScale::N, "dft_4_n"),
        ] {
            let n = if k == "dft_5" { 5 } else { 4 };
            let (w, _) = get(&d, k);
            close(
                &dft::<c64>(n, scale, &dev).unwrap().to_vec().unwrap(),
                &w,
                k,
            );
        }
        assert!(matches!(
            dft::<f64>(4, DftScale::None, &dev),
            Err(Error::UnsupportedDType { .. })
        ));
    }
}
