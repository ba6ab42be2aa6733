//! cusci-core's tests: one test executable for the crate (each module was a test file of its own).

mod array_ops;
mod bad_input;
mod device;
mod fuse;
mod fuzz;
mod fuzz_npy;
mod graph;
mod interop;
mod kernels_compile;
mod npy;
mod philox_cpu;
mod random;
mod reduce;
mod validate;
