//! cusci-dist's tests: one test executable for the crate (each module was a test file of its own).

mod cluster;
