//! cusci-cli's tests: one test executable for the crate (each module was a test file of its own).

mod cli;
mod pipeline;
