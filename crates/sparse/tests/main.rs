//! cusci-sparse's tests: one test executable for the crate (each module was a test file of its own).

mod bad_input;
mod bsr;
mod common;
mod construct;
mod csgraph;
mod direct;
mod eigen;
mod eigs;
mod flow;
mod formats;
mod fuzz;
mod golden;
mod ilu;
mod index64;
mod index64_linalg;
mod index64_ops;
mod interop;
mod io;
mod isolve;
mod kernels_compile;
mod linalg;
mod lsq;
mod matfuncs;
mod ops;
mod reduce;
mod solvers;
