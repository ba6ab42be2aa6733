//! cusci-linalg's tests: one test executable for the crate (each module was a test file of its own).

#[macro_use]
mod common;

mod bad_input;
mod banded;
mod batched;
mod decompositions;
mod extras;
mod golden;
mod mateq;
mod matfuncs;
mod nonsym;
mod scipy_extra;
mod scipy_schur;
mod scipy_sem;
mod scipy_update;
