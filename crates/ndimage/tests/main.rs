//! cusci-ndimage's tests: one test executable for the crate (each module was a test file of its own).

mod bad_input;
mod common;
mod complex;
mod distance;
mod filter_output;
mod filters;
mod filters_fused;
mod filters_generic;
mod filters_golden;
mod filters_kernels_compile;
mod fourier;
mod high_rank;
mod interpolation;
mod interpolation_golden;
mod label;
mod measurements;
mod measurements_sorted;
mod morphology_golden;
mod names;
mod sep2d;
mod sort;
mod stream2;
