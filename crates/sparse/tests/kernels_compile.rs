//! Every kernel of cusci-sparse compiles with NVRTC for each element type (no GPU needed).

use cusci_core::cuda::kernel::check_compiles;
use cusci_core::cuda::libs;
use cusci_core::DType;

#[test]
fn sparse_kernels_compile() {
    if libs::probe("nvrtc").is_none() {
        if std::env::var("CUSCI_REQUIRE_GPU").as_deref() == Ok("1") {
            panic!("CUSCI_REQUIRE_GPU=1 but NVRTC does not load");
        }
        eprintln!("note: NVRTC not found: kernel compile checks skipped");
        return;
    }
    for dt in [DType::F32, DType::F64, DType::C32, DType::C64] {
        let src = cusci_sparse::cuda::module_source(dt).unwrap();
        check_compiles(
            &format!("cusci_sparse_{}", dt.tag()),
            &src,
            &[],
            "compute_90",
        )
        .unwrap_or_else(|e| panic!("{dt}: {e}"));
    }
    assert!(cusci_sparse::cuda::module_source(DType::I32).is_err());
}

#[test]
fn solver_kernels_compile() {
    if libs::probe("nvrtc").is_none() {
        if std::env::var("CUSCI_REQUIRE_GPU").as_deref() == Ok("1") {
            panic!("CUSCI_REQUIRE_GPU=1 but NVRTC does not load");
        }
        eprintln!("note: NVRTC not found: kernel compile checks skipped");
        return;
    }
    for dt in [DType::F32, DType::F64, DType::C32, DType::C64] {
        let src = cusci_sparse::cuda::solvers_source(dt).unwrap();
        check_compiles(
            &format!("cusci_sparse_solvers_{}", dt.tag()),
            &src,
            &[],
            "compute_90",
        )
        .unwrap_or_else(|e| panic!("{dt}: {e}"));
    }
}

#[test]
fn sparse_kernels_compile_for_64_bit_indices() {
    if libs::probe("nvrtc").is_none() {
        if std::env::var("CUSCI_REQUIRE_GPU").as_deref() == Ok("1") {
            panic!("CUSCI_REQUIRE_GPU=1 but NVRTC does not load");
        }
        eprintln!("note: NVRTC not found: kernel compile checks skipped");
        return;
    }
    for dt in [DType::F32, DType::F64, DType::C32, DType::C64] {
        let src = cusci_sparse::cuda::module_index_source(dt, DType::I64).unwrap();
        check_compiles(
            &format!("cusci_sparse_{}_i64", dt.tag()),
            &src,
            &[],
            "compute_90",
        )
        .unwrap_or_else(|e| panic!("{dt}/i64: {e}"));
    }
    // the i32 module is the default one
    assert_eq!(
        cusci_sparse::cuda::module_index_source(DType::F64, DType::I32).unwrap(),
        cusci_sparse::cuda::module_source(DType::F64).unwrap()
    );
    assert!(cusci_sparse::cuda::module_index_source(DType::F64, DType::F32).is_err());
}

#[test]
fn format_kernels_compile_for_both_index_types() {
    if libs::probe("nvrtc").is_none() {
        if std::env::var("CUSCI_REQUIRE_GPU").as_deref() == Ok("1") {
            panic!("CUSCI_REQUIRE_GPU=1 but NVRTC does not load");
        }
        eprintln!("note: NVRTC not found: kernel compile checks skipped");
        return;
    }
    for dt in [DType::F32, DType::F64, DType::C32, DType::C64] {
        for it in [DType::I32, DType::I64] {
            let src = cusci_sparse::cuda::formats_source(dt, it).unwrap();
            check_compiles(
                &format!("cusci_sparse_fm_{}_{}", dt.tag(), it.tag()),
                &src,
                &[],
                "compute_90",
            )
            .unwrap_or_else(|e| panic!("{dt}/{it}: {e}"));
        }
    }
    assert!(cusci_sparse::cuda::formats_source(DType::F64, DType::F32).is_err());
}
