//! Helpers shared by the test modules: SciPy's golden values (`tests/data/*.npz`), tolerance
//! checks, and IIR filter options.

use cusci_core::npy::{load_npz, DynArray};
use cusci_core::{c64, Array, Device, Element};
use cusci_signal::ltisys::Mat;
use cusci_signal::FilterOptions;
use std::collections::BTreeMap;

/// The arrays of one `tests/data` archive, by name.
pub(crate) struct Golden(pub(crate) BTreeMap<String, DynArray>);

impl Golden {
    /// The archive `tests/data/<file>`.
    pub(crate) fn load(file: &str) -> Self {
        let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
        Golden(
            load_npz(&path, &Device::cpu())
                .unwrap_or_else(|e| panic!("loading {path}: {e}"))
                .into_iter()
                .collect(),
        )
    }
    pub(crate) fn f(&self, name: &str) -> Vec<f64> {
        self.0
            .get(name)
            .unwrap_or_else(|| panic!("{name} missing"))
            .as_array::<f64>()
            .unwrap()
            .to_vec()
            .unwrap()
    }
    pub(crate) fn c(&self, name: &str) -> Vec<c64> {
        self.0[name].as_array::<c64>().unwrap().to_vec().unwrap()
    }
    pub(crate) fn i(&self, name: &str) -> Vec<i64> {
        self.0[name].as_array::<i64>().unwrap().to_vec().unwrap()
    }
    pub(crate) fn shape(&self, name: &str) -> Vec<usize> {
        self.0[name].shape().to_vec()
    }
    /// A matrix (a 1-D array is one row).
    pub(crate) fn mat(&self, name: &str) -> Mat {
        let s = self.shape(name);
        let (r, c) = match s.len() {
            1 => (1, s[0]),
            _ => (s[0], s[1]),
        };
        Mat::new(r, c, self.f(name)).unwrap()
    }
    /// The rows of a 2-D array.
    pub(crate) fn rows(&self, name: &str) -> Vec<Vec<f64>> {
        let s = self.shape(name);
        self.f(name).chunks(s[1]).map(|r| r.to_vec()).collect()
    }
    /// Entry `i` of a ragged list: the values of `name` between the offsets `name_off`.
    pub(crate) fn rag(&self, name: &str, i: usize) -> Vec<f64> {
        let off = self.i(&format!("{name}_off"));
        self.f(name)[off[i] as usize..off[i + 1] as usize].to_vec()
    }
    /// The same for complex values.
    pub(crate) fn ragc(&self, name: &str, i: usize) -> Vec<c64> {
        let off = self.i(&format!("{name}_off"));
        self.c(name)[off[i] as usize..off[i + 1] as usize].to_vec()
    }
}

/// Element-wise, relative to the largest magnitude of the expected vector.
pub(crate) fn close(got: &[f64], want: &[f64], rtol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= rtol * scale,
            "{what}[{i}]: {g} vs {w} (scale {scale:e})"
        );
    }
}

/// [`close`] for complex values.
pub(crate) fn closec(got: &[c64], want: &[c64], rtol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.norm())).max(1e-300);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).norm() <= rtol * scale,
            "{what}[{i}]: {g} vs {w} (scale {scale:e})"
        );
    }
}

/// Filter options with initial states `z` along `axis`.
pub(crate) fn with_zi<T: Element>(axis: isize, z: &Array<T>) -> FilterOptions<'_, T> {
    FilterOptions { axis, zi: Some(z) }
}
