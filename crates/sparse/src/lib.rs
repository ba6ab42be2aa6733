//! cusci-sparse: `scipy.sparse`, `scipy.sparse.linalg` and `scipy.sparse.csgraph` on CUDA
//! (cuSPARSE's generic API and this crate's NVRTC kernels) and on the CPU (rayon loops).
//!
//! - Formats: [`CsrMatrix`], [`CscMatrix`], [`CooMatrix`] over core [`Array`]s (f32, f64, c32,
//!   c64 values; `i32` indices by default, `i64` through the [`SpIndex`] parameter, e.g.
//!   `CsrMatrix<f64, i64>`; the methods, the arithmetic, `csgraph` and the solvers take both,
//!   the GPU kernels are compiled for the matrix's index type), [`DiaMatrix`] and
//!   [`BsrMatrix`] (products through its CSR form); the host builders [`LilMatrix`] and
//!   [`DokMatrix`]; [`save_npz`] / [`load_npz`] in SciPy's file layout ([`SparseMatrix`]).
//! - Construction: [`CooMatrix::new`] (triplets, duplicates summed by conversions),
//!   [`CsrMatrix::new`] (checked arrays), [`CsrMatrix::from_dense`], [`eye`], [`identity`],
//!   [`diags`] ([`diags_array`]), [`spdiags`], [`random`] ([`random_array`]), [`bmat`],
//!   [`hstack`], [`vstack`], [`block_diag`], [`kron`], [`kronsum`], [`tril`], [`triu`],
//!   [`find`], and the array-API names [`eye_array`], [`block_array`], [`rand`].
//! - Conversions: `tocsr`, `tocsc`, `tocoo`, `todia`, `toarray`, `transpose` (no copy), `conj`,
//!   `sum_duplicates`, `eliminate_zeros`, `with_index` (index type).
//! - Reductions and structure: `sum`, `sum_axis`, `mean`, `mean_axis`, `diagonal`.
//! - Arithmetic: `mul_scalar`, `add`/`sub` between sparse matrices, element-wise `multiply`.
//! - Products: [`CsrMatrix::dot`] (SpMV and SpMM through cuSPARSE), [`CsrMatrix::matmul`]
//!   (SpGEMM, the same bits on both devices).
//! - [`linalg`]: the [`linalg::LinearOperator`] trait and the iterative solvers [`linalg::cg`],
//!   [`linalg::bicgstab`], [`linalg::cgs`], running entirely on the device (the convergence flag
//!   is read every [`linalg::POLL`] iterations).
//!   Also [`linalg::bicg`], [`linalg::qmr`], [`linalg::tfqmr`], [`linalg::lgmres`],
//!   [`linalg::gcrotmk`] (scalars read per step), [`linalg::expm_multiply`],
//!   [`linalg::onenormest`], [`linalg::expm`], [`linalg::inv`], [`linalg::spbandwidth`],
//!   [`linalg::is_sptriangular`], [`linalg::LaplacianNd`], [`linalg::funm_multiply_krylov`],
//!   the eigensolvers [`linalg::eigsh`]
//!   (Hermitian; shift-invert) and [`linalg::eigs`] (general; complex results, a GPU hybrid for
//!   the small projected problem); `COVERAGE.md` lists every SciPy name.
//! - [`csgraph`]: [`csgraph::connected_components`] (weak and strong connection),
//!   [`csgraph::csgraph_from_dense`], [`csgraph::csgraph_to_dense`], [`csgraph::laplacian`],
//!   the shortest paths ([`csgraph::shortest_path`], [`csgraph::floyd_warshall`],
//!   [`csgraph::dijkstra`], [`csgraph::bellman_ford`], [`csgraph::johnson`]),
//!   [`csgraph::construct_dist_matrix`], [`csgraph::reconstruct_path`], the traversals
//!   ([`csgraph::breadth_first_order`], [`csgraph::breadth_first_tree`],
//!   [`csgraph::depth_first_order`], [`csgraph::depth_first_tree`]),
//!   [`csgraph::minimum_spanning_tree`], [`csgraph::reverse_cuthill_mckee`],
//!   [`csgraph::structural_rank`], [`csgraph::maximum_flow`],
//!   [`csgraph::maximum_bipartite_matching`], [`csgraph::min_weight_full_bipartite_matching`],
//!   [`csgraph::yen`].
//!
//! Every public function validates its arguments once, then runs the CPU reference or the CUDA
//! implementation of the device holding its arrays.

mod arnoldi;
mod bsr;
mod builders;
mod construct;
mod cpu;
pub mod csgraph;
mod cuda;
mod dia;
mod direct;
mod eigen;
mod funm;
mod ilu;
mod index;
mod interop;
mod io;
mod isolve;
mod krylov;
mod laplacian_nd;
pub mod linalg;
mod lobpcg;
mod lsq;
mod matfuncs;
mod matrix;
mod minres;
mod operator;
mod ops;
mod reduce;
mod stack;
mod storage;
mod svds;

pub use builders::{DokMatrix, LilMatrix};
pub use construct::{diags, diags_array, eye, eye_array, identity, rand, random, random_array};
pub use cusci_core::{Array, Device, Error, Result};
pub use dia::spdiags;
pub use index::SpIndex;
pub use interop::SprsIndex;
pub use io::{load_npz, load_npz_index, save_npz, SaveNpz, SparseMatrix};
pub use stack::{block_array, block_diag, bmat, find, hstack, kron, kronsum, tril, triu, vstack};
pub use storage::{BsrMatrix, CooMatrix, CscMatrix, CsrMatrix, DiaMatrix};

/// Every NVRTC kernel module of the crate, with the specialisations its launchers build: for
/// compile checks without a GPU (`cusci_core::testing::compile_modules`).
#[doc(hidden)]
pub fn kernel_modules() -> Vec<&'static cusci_core::KernelModule> {
    vec![
        &cuda::SPARSE,
        &cuda::FORMATS,
        &cuda::spmv::SPMV,
        &cuda::SOLVERS,
        &csgraph::cuda::CSGRAPH,
    ]
}
