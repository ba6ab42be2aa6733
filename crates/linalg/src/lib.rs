//! cusci-linalg: `numpy.linalg`/`cupy.linalg` and `scipy.linalg`/`cupyx.scipy.linalg` on CUDA
//! (cuBLAS, cuSOLVER) and on the CPU (faer, rayon).
//!
//! Every function takes `(..., M, N)` stacks of matrices (leading axes are batches, broadcast as
//! NumPy does) of `f32`, `f64`, [`c32`] or [`c64`], on the device the arrays live on. Two tiers:
//! the SciPy-style functions ([`solve`], [`lu_factor`], [`cholesky`], [`qr`], [`svd`], [`eigh`],
//! ...) and factor types ([`Lu`], [`Cholesky`], [`Qr`]) that factor once and solve many
//! right-hand sides.
//!
//! Errors are typed: a singular matrix passed to [`solve`] or [`inv`] is `Error::Singular`, a
//! matrix that is not positive definite `Error::NotPositiveDefinite` (never a matrix of NaN or
//! infinities); for a stack the error names the first failing matrix. The GPU functions that must
//! report such errors read cuSOLVER's `info` back, which synchronises the stream; their docs say so.
//!
//! Non-finite input is checked as SciPy's `check_finite=True` checks it: every function whose
//! SciPy counterpart checks by default (`solve`, `inv`, `det`, `lu`, `lu_factor`, `lu_solve`,
//! `cholesky`, `cho_solve`, `qr`, `svd`, `svdvals`, `eig`, `eigh`, `eigvalsh`, `pinv`, `pinvh`,
//! `lstsq`, `polar`, `null_space`, `orth`, `subspace_angles`, `solve_triangular`,
//! `solve_toeplitz`, `solve_banded`, `solveh_banded`, `cholesky_banded`, `cho_solve_banded`,
//! `eigh_tridiagonal`, `expm_frechet`, `expm_cond`, `signm`, `sqrtm` (SciPy's does not),
//! `matrix_balance`, `qr_update`, `qr_insert`, `qr_delete`, `qz_complex`, `ordqz_complex`, ...) returns `InvalidArgument`
//! ("array must not contain infs or NaNs") for NaN or infinity in its inputs;
//! [`without_finite_check`] skips the check as `check_finite=False` does. `expm`, the functions
//! built on it (`cosm`, ..., `tanhm`) and the NumPy-only functions (`slogdet`, `norm`,
//! `cond`) do not check, as in SciPy and NumPy.
//!
//! No TF32: cuBLAS runs in its default math mode with the plain compute types (`COMPUTE_32F`
//! for f32 and c32), which never use TF32.
//!
#![doc = include_str!("../README.md")]

mod balance;
mod band_cpu;
mod band_eig;
mod banded;
mod cossin;
mod cpu;
pub(crate) mod cuda;
mod decomp;
mod eig;
mod mateq;
mod matfuncs;
mod misc;
mod nonsym;
mod products;
mod qr_update;
mod qz;
mod scalar;
mod schur_cpu;
pub mod scipy;
mod shared;
mod sketch;
mod solve;
mod special;
mod structured;
mod subspace;
mod tensor;
mod tridiag;
mod util;
mod vecops;

pub use balance::{matrix_balance, matrix_balance_separate};
pub use band_eig::{eig_banded, eigvals_banded};
pub use banded::{cho_solve_banded, cholesky_banded, solve_banded, solveh_banded};
pub use cossin::{cossin, Cossin, CossinOptions};
pub use cusci_core::{c32, c64, Array, Device, Error, Result};
pub use decomp::{
    cho_factor, cho_solve, cholesky, eigh, eigvalsh, qr, qr_raw, solve_triangular, svd, Cholesky,
    QrRaw,
};
pub use eig::{eig, eigvals};
pub use mateq::{
    funm, solve_continuous_are, solve_continuous_lyapunov, solve_discrete_are,
    solve_discrete_lyapunov, solve_lyapunov, solve_sylvester, AreOptions, DiscreteLyapunovMethod,
};
pub use matfuncs::{
    coshm, cosm, expm_cond, expm_frechet, fractional_matrix_power, logm, signm, sinhm, sinm, sqrtm,
    tanhm, tanm, FrechetMethod, MATFUNC_MAX_ITER,
};
pub use misc::{
    cond, expm, khatri_rao, kron, lstsq, matrix_power, matrix_rank, norm, pinv, Lstsq, NormOrd,
};
pub use nonsym::{
    cdf2rdf, hessenberg, ldl, qr_multiply, rq, rsf2csf, schur, schur_complex, QrMultiplyMode,
    RqMode, Schur, SchurSort,
};
pub use products::{dot, inner, matmul, outer, tensordot, trace, vdot};
pub use qr_update::{qr_delete, qr_insert, qr_update, QrWhich};
pub use qz::{ordqz_complex, qz_complex, OrdQz, Qz, QzSort};
pub use scalar::Scalar;
pub use shared::{
    without_finite_check, Lu, Qr, QrMode, Svd, SvdOptions, TriangularOptions, BATCHED_LU_MAX_N,
};
pub use sketch::clarkson_woodruff_transform;
pub use solve::{det, inv, lu, lu_factor, lu_solve, slogdet, solve, LuFactorOptions};
pub use special::{
    bandwidth, block_diag, circulant, companion, convolution_matrix, dft, fiedler,
    fiedler_companion, hadamard, hankel, helmert, hilbert, invhilbert, invpascal, leslie, pascal,
    toeplitz, ConvMode, DftScale, PascalKind,
};
pub use structured::{
    matmul_toeplitz, solve_circulant, solve_toeplitz, CirculantSingular, SolveCirculantOptions,
};
pub use subspace::{
    diagsvd, null_space, orth, orthogonal_procrustes, pinvh, polar, subspace_angles, svdvals,
    PinvhOptions, PolarSide,
};
pub use tensor::{einsum, tensorinv, tensorsolve};
pub use tridiag::{eigh_tridiagonal, eigvalsh_tridiagonal, Select};
pub use vecops::{cross, ishermitian, issymmetric, matrix_transpose, vecdot};

/// The NVRTC kernel modules of this crate, for the compile checks of its tests
/// ([`cusci_core::testing::compile_modules`]).
#[doc(hidden)]
pub fn kernel_modules() -> Vec<&'static cusci_core::KernelModule> {
    vec![
        &cuda::kernels::KERNELS,
        &cuda::kernels::SMALL_SOLVE,
        &cuda::banded::BANDED,
    ]
}
