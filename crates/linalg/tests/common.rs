//! Helpers shared by the test modules: a naive product, the adjoint, tolerances, and (`npz`) the
//! readers and checks of the SciPy golden archives.

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

/// SciPy golden archives (`tests/data/*.npz`, written by `tests/golden/gen.py`): members as
/// complex vectors, inputs as arrays of any element type, and the CPU-against-SciPy, then
/// device-against-CPU check.
pub mod npz {
    use cusci_core::npy::{load_npz, DynArray};
    use cusci_core::testing::devices;
    use cusci_core::{c64, DType, Element};
    use cusci_linalg::{Array, Device, Scalar};
    use std::collections::BTreeMap;

    pub type Data = BTreeMap<String, DynArray>;

    /// Every member of the archive at `path`.
    pub fn load(path: &str) -> Data {
        load_npz(path, &Device::Cpu)
            .expect("golden file")
            .into_iter()
            .collect()
    }

    /// A member's values (f64, c128, i64 or bool) as complex numbers, and its shape.
    pub fn get(d: &Data, k: &str) -> (Vec<c64>, Vec<usize>) {
        let re = |v: Vec<f64>| v.into_iter().map(|x| c64::new(x, 0.0)).collect();
        match d.get(k).unwrap_or_else(|| panic!("member {k}")) {
            DynArray::F64(x) => (re(x.to_vec().unwrap()), x.shape().to_vec()),
            DynArray::C64(x) => (x.to_vec().unwrap(), x.shape().to_vec()),
            DynArray::I64(x) => (
                re(x.to_vec().unwrap().iter().map(|&v| v as f64).collect()),
                x.shape().to_vec(),
            ),
            DynArray::Bool(x) => (
                re(x.to_vec()
                    .unwrap()
                    .iter()
                    .map(|&v| v as u8 as f64)
                    .collect()),
                x.shape().to_vec(),
            ),
            _ => panic!("member {k}: unexpected type"),
        }
    }

    /// A member as an array of `T` on `dev`.
    pub fn input<T: Scalar>(d: &Data, k: &str, dev: &Device) -> Array<T> {
        let (v, s) = get(d, k);
        Array::from_vec(v.into_iter().map(T::from_c64).collect(), &s, dev).unwrap()
    }

    pub fn cplx<T: Scalar>() -> bool {
        matches!(T::DTYPE, DType::C32 | DType::C64)
    }

    /// The member suffix of `T`'s inputs: real types read the `d` cases, complex ones the `z`
    /// cases.
    pub fn dt<T: Scalar>() -> &'static str {
        if cplx::<T>() {
            "z"
        } else {
            "d"
        }
    }

    pub fn single<T: Scalar>() -> bool {
        matches!(T::DTYPE, DType::F32 | DType::C32)
    }

    pub fn vals<T: Element>(a: &Array<T>) -> Vec<c64> {
        a.to_vec().unwrap().iter().map(|x| x.to_c64()).collect()
    }

    /// An array's values (as c64) and shape.
    pub fn out<T: Element>(a: Array<T>) -> (Vec<c64>, Vec<usize>) {
        (vals(&a), a.shape().to_vec())
    }

    /// `|got - want| <= tol · max(1, max |want|)` elementwise (equal values pass, infinities
    /// too), with the worst index in the message.
    pub fn close(got: &[c64], want: &[c64], tol: f64, what: &str) {
        assert_eq!(got.len(), want.len(), "{what}: lengths");
        let scale = want.iter().map(|v| v.norm()).fold(1.0, f64::max);
        let (mut worst, mut wi) = (0.0, None);
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            let d = (g - w).norm();
            if g != w && (d > worst || d.is_nan()) {
                worst = d;
                wi = Some(i);
            }
        }
        if let Some(i) = wi {
            assert!(
                worst <= tol * scale,
                "{what}: index {i}: got {}, want {} (|d| {worst:e}, tol {:e})",
                got[i],
                want[i],
                tol * scale
            );
        }
    }

    /// Runs `f` on the CPU and compares with `want` (and `shape`), then on every other device
    /// and compares with the CPU's result.
    pub fn check(
        what: &str,
        want: &[c64],
        shape: &[usize],
        tol: f64,
        f: impl Fn(&Device) -> (Vec<c64>, Vec<usize>),
    ) {
        let mut cpu: Option<Vec<c64>> = None;
        for dev in devices() {
            let (got, s) = f(&dev);
            assert_eq!(s, shape, "{what} on {dev}: shape");
            match &cpu {
                None => {
                    close(&got, want, tol, &format!("{what} (cpu vs scipy)"));
                    cpu = Some(got);
                }
                Some(c) => close(&got, c, tol, &format!("{what} ({dev} vs cpu)")),
            }
        }
    }
}
