//! czt / CZT / czt_points against the direct sum Σ x_j z_k^-j on every device, batched along
//! an axis, and bad inputs.

use cusci_core::testing::{assert_allclose, for_each_device, randn_vec};
use cusci_core::{c64, Array, Error};
use cusci_signal::*;

fn direct(x: &[c64], z: &[c64]) -> Vec<c64> {
    z.iter()
        .map(|&zk| {
            x.iter()
                .enumerate()
                .map(|(j, &v)| v * zk.powf(-(j as f64)))
                .sum()
        })
        .collect()
}

#[test]
fn czt_matches_the_direct_sum() {
    for_each_device(|dev| {
        for (n, m, w, a) in [
            (1usize, None, None, c64::new(1.0, 0.0)),
            (7, None, None, c64::new(1.0, 0.0)),
            (
                33,
                Some(20),
                Some(c64::from_polar(0.999, -0.07)),
                c64::from_polar(1.01, 0.3),
            ),
            (
                16,
                Some(40),
                Some(c64::from_polar(1.0, -0.05)),
                c64::new(0.9, 0.1),
            ),
        ] {
            let xv: Vec<c64> = randn_vec(n, n as u64);
            let x = Array::from_vec(xv.clone(), &[n], dev).unwrap();
            let y = czt(&x, m, w, a, -1).unwrap();
            let z = czt_points(m.unwrap_or(n), w, a).unwrap();
            let want = Array::from_vec(direct(&xv, &z), &[z.len()], dev).unwrap();
            assert_allclose(&y, &want, 1e-10, 1e-10, &format!("n={n}"));
        }
        // batched along axis 0 of a (9, 3) array
        let xv: Vec<c64> = randn_vec(27, 5);
        let x = Array::from_vec(xv.clone(), &[9, 3], dev).unwrap();
        let c = Czt::new(
            9,
            Some(4),
            Some(c64::from_polar(1.0, -0.3)),
            c64::new(1.0, 0.0),
        )
        .unwrap();
        let y = c.apply(&x, 0).unwrap();
        assert_eq!(y.shape(), &[4, 3]);
        let yv = y.to_vec().unwrap();
        let z = c.points().unwrap();
        for col in 0..3 {
            let xc: Vec<c64> = (0..9).map(|r| xv[r * 3 + col]).collect();
            for (k, w) in direct(&xc, &z).iter().enumerate() {
                assert!((yv[k * 3 + col] - w).norm() < 1e-10, "col {col} k {k}");
            }
        }
        let e = c
            .apply(&Array::<c64>::zeros(&[8, 3], dev).unwrap(), 0)
            .unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    });
    assert!(matches!(
        Czt::new(0, None, None, c64::new(1.0, 0.0)).unwrap_err(),
        Error::InvalidArgument { .. }
    ));
    assert!(matches!(
        czt_points(0, None, c64::new(1.0, 0.0)).unwrap_err(),
        Error::InvalidArgument { .. }
    ));
}
