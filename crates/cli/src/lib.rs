//! The library behind the `cusci` command: `cusci info` ([`info`]) and `cusci demo` ([`demo`],
//! whose stages later crates extend), and the Black–Scholes closed form the demo checks against
//! ([`blackscholes`]).
//!
#![doc = include_str!("../README.md")]

pub mod blackscholes;
pub mod demo;
pub mod info;
pub mod pipeline_data;
pub mod run;

// The README's Rust example is compiled and run as a doctest of this crate, so it stays true.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
