//! Helpers shared by the test modules: a naive product, the adjoint, and tolerances.

use cusci_core::Element;
use cusci_linalg::Scalar;

pub fn naive<T: Scalar>(a: &[T], b: &[T], m: usize, k: usize, n: usize) -> Vec<T> {
    let mut c = vec![T::zero(); m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = T::zero();
            for p in 0..k {
                s = s + a[i * k + p] * b[p * n + j];
            }
            c[i * n + j] = s;
        }
    }
    c
}

pub fn adjoint<T: Scalar>(a: &[T], m: usize, n: usize) -> Vec<T> {
    let mut t = vec![T::zero(); m * n];
    for i in 0..m {
        for j in 0..n {
            t[j * m + i] = a[i * n + j].conj();
        }
    }
    t
}

pub fn maxabs<T: Element>(a: &[T]) -> f64 {
    a.iter().map(|x| x.to_c64().norm()).fold(0.0, f64::max)
}

pub fn close<T: Element>(got: &[T], want: &[T], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    let scale = maxabs(want).max(1.0);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let d = (g.to_c64() - w.to_c64()).norm();
        assert!(
            d <= tol * scale,
            "{what}: index {i}: got {:?}, want {:?} (|d| {d:e}, tol {:e})",
            g.to_c64(),
            w.to_c64(),
            tol * scale
        );
    }
}

pub fn tol<T: Scalar>(n: usize) -> f64 {
    200.0 * T::eps() * (n.max(1) as f64)
}

pub fn eye<T: Scalar>(n: usize) -> Vec<T> {
    (0..n * n)
        .map(|i| if i / n == i % n { T::one() } else { T::zero() })
        .collect()
}

/// A test `$name` running `$body` for each element type (f32, f64, c32, c64; the calling module
/// imports `c32` and `c64`).
macro_rules! all_types {
    ($name:ident, $body:ident) => {
        #[test]
        fn $name() {
            $body::<f32>();
            $body::<f64>();
            $body::<c32>();
            $body::<c64>();
        }
    };
}
