//! Linear time-invariant systems: state-space conversions (`tf2ss`, `ss2tf`, `zpk2ss`, `ss2zpk`,
//! `abcd_normalize`, `cont2discrete`), the system types (`lti`/`dlti` as [`Lti`] with
//! [`TransferFunction`], [`ZerosPolesGain`], [`StateSpace`]), frequency responses (`freqresp`,
//! `bode`, `dfreqresp`, `dbode`) and time responses (`lsim`, `dlsim`, `impulse`, `step`,
//! `dimpulse`, `dstep`).
//!
//! Systems are host data (a handful of coefficients). Matrix exponentials, eigenvalues and
//! solves go through `cusci-linalg` on the CPU (where the system lives). The time responses take
//! and return [`Array`](crate::Array)s and run on the array's device: the state recurrence
//! `x[i] = Ad·x[i-1] + Bd0·u[i-1] + Bd1·u[i]`, `y[i] = C·x[i] + D·u[i]` runs sequentially over time
//! with one GPU thread per signal of the batch (the leading axes of `u`), accumulating in `f64`;
//! the CPU runs the same recurrence, one rayon task per signal.

mod freq;
mod response;
mod systems;

pub use freq::{bode, dbode, dfreqresp, freqresp, Bode};
pub(crate) use response::LTI;
pub use response::{
    dimpulse, dlsim, dstep, impulse, lsim, step, DResponseOptions, LsimOptions, Response,
    ResponseOptions,
};
pub use systems::{
    abcd_normalize, cont2discrete, normalize_simo, ss2tf, ss2zpk, tf2ss, tf2ss_simo, zpk2ss,
    Discretization, Lti, Mat, StateSpace, TransferFunction, ZerosPolesGain,
};
