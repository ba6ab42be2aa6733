//! Every NVRTC kernel module of the crate compiles (sm_90 PTX) for every specialisation its
//! launchers build (the registry's samples), checked without a GPU wherever NVRTC loads.

#[test]
fn every_kernel_module_compiles() {
    let modules = cusci_ndimage::kernel_modules();
    let Some(failures) = cusci_core::testing::compile_modules(&modules, "compute_90") else {
        return;
    };
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn kernel_modules_are_unique_and_sampled() {
    let modules = cusci_ndimage::kernel_modules();
    // every specialisation the old per-file source hooks listed: filters 5, interpolation 10
    // plus 21 fixed transforms, Fourier 4, generic 6, store 1, binary 6, grey 5, label 12,
    // measurements 6, distance 6, sort 4
    let total: usize = modules.iter().map(|m| (m.samples)().len()).sum();
    assert!(total >= 86, "{total} samples");
    let mut names: Vec<&str> = modules.iter().map(|m| m.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), modules.len(), "duplicate module names");
    for m in &modules {
        let srcs = m
            .sample_sources()
            .unwrap_or_else(|e| panic!("{}: {e}", m.name));
        assert!(!srcs.is_empty(), "{} has no sample", m.name);
    }
}
