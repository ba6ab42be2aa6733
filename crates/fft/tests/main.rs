//! cusci-fft's tests: one test executable for the crate (each module was a test file of its own).

mod bad_input;
mod cpu;
mod dct;
mod doc_examples;
mod extra;
mod golden;
mod gpu;
