//! Every kernel module of cusci-sparse compiles with NVRTC for every specialisation its
//! launchers build (no GPU needed), and the sources refuse the specialisations they lack.

use cusci_core::{DType, KernelModule, Spec};

/// The module `name` of the crate's registry.
fn module(name: &str) -> &'static KernelModule {
    cusci_sparse::kernel_modules()
        .into_iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no kernel module {name}"))
}

#[test]
fn sparse_kernels_compile() {
    let modules = cusci_sparse::kernel_modules();
    let Some(failed) = cusci_core::testing::compile_modules(&modules, "compute_90") else {
        return;
    };
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn kernel_sources_refuse_other_specialisations() {
    let elements = [DType::F32, DType::F64, DType::C32, DType::C64];
    let indices = [DType::I32, DType::I64];
    for name in ["cusci_sparse", "cusci_sparse_formats"] {
        let m = module(name);
        for t in elements {
            for i in indices {
                assert!((m.source)(&Spec::of(&[t, i])).is_ok(), "{name} {t}/{i}");
            }
        }
        // an element type that is not a float, an index type that is not an integer
        assert!((m.source)(&Spec::of(&[DType::I32, DType::I32])).is_err());
        assert!((m.source)(&Spec::of(&[DType::F64, DType::F32])).is_err());
        // the samples: every (element, index) pair
        assert_eq!((m.samples)().len(), 8, "{name}");
    }
    let solvers = module("cusci_sparse_solvers");
    for t in elements {
        assert!((solvers.source)(&Spec::of(&[t])).is_ok(), "{t}");
    }
    assert!((solvers.source)(&Spec::of(&[DType::I32])).is_err());
    assert_eq!((solvers.samples)().len(), 4);
    // the SpMV module: one per rows-per-lane value that spmv.cu instantiates
    let spmv = module("cusci_sparse_spmv");
    let s = |r: i64| Spec::of(&[DType::F64, DType::I32]).with(&[r]);
    for r in [1, 2, 3, 4, 6, 8] {
        let src = (spmv.source)(&s(r)).unwrap();
        assert!(src.contains(&format!("SPMV_KERNELS({r})")));
    }
    assert!((spmv.source)(&s(5)).is_err());
    assert!((spmv.source)(&Spec::of(&[DType::F64, DType::F32]).with(&[1])).is_err());
    assert_eq!((spmv.samples)().len(), 8 * 6);
}
