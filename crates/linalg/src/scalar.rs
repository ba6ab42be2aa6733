//! The element types of linear algebra: f32, f64, Complex32, Complex64.

use cudarc::cublas::sys as blas;
use cudarc::cusolver::sys as sol;
use cusci_core::{c32, c64, Float, RealFloat};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for super::c32 {}
    impl Sealed for super::c64 {}
}

/// The cuBLAS and cuSOLVER routines that exist once per element type, each signature given
/// once: `vendor_routines!(declare)` declares them in `Scalar`, `vendor_routines!(define
/// [names])` implements them for one type by forwarding to that type's routines (`names`, in
/// this order).
macro_rules! vendor_routines {
    ($then:ident $($names:tt)*) => {
        $then! {
            $($names)*
            /// cuBLAS `<t>getrfBatched`.
            fn getrf_batched(
                h: blas::cublasHandle_t,
                n: i32,
                a: *const *mut Self,
                lda: i32,
                piv: *mut i32,
                info: *mut i32,
                batch: i32,
            ) -> blas::cublasStatus_t;
            /// cuBLAS `<t>getrsBatched`.
            fn getrs_batched(
                h: blas::cublasHandle_t,
                trans: blas::cublasOperation_t,
                n: i32,
                nrhs: i32,
                a: *const *const Self,
                lda: i32,
                piv: *const i32,
                b: *const *mut Self,
                ldb: i32,
                info: *mut i32,
                batch: i32,
            ) -> blas::cublasStatus_t;
            /// cuSOLVER `<t>orgqr_bufferSize` / `<t>ungqr_bufferSize`.
            fn orgqr_buffer(
                h: sol::cusolverDnHandle_t,
                m: i32,
                n: i32,
                k: i32,
                a: *const Self,
                lda: i32,
                tau: *const Self,
                lwork: *mut i32,
            ) -> sol::cusolverStatus_t;
            /// cuSOLVER `<t>orgqr` / `<t>ungqr`.
            fn orgqr(
                h: sol::cusolverDnHandle_t,
                m: i32,
                n: i32,
                k: i32,
                a: *mut Self,
                lda: i32,
                tau: *const Self,
                work: *mut Self,
                lwork: i32,
                info: *mut i32,
            ) -> sol::cusolverStatus_t;
            /// cuSOLVER `<t>potrfBatched`.
            fn potrf_batched(
                h: sol::cusolverDnHandle_t,
                uplo: sol::cublasFillMode_t,
                n: i32,
                a: *mut *mut Self,
                lda: i32,
                info: *mut i32,
                batch: i32,
            ) -> sol::cusolverStatus_t;
            /// cuSOLVER `<t>syevjBatched_bufferSize` / `<t>heevjBatched_bufferSize`.
            fn syevj_batched_buffer(
                h: sol::cusolverDnHandle_t,
                jobz: sol::cusolverEigMode_t,
                uplo: sol::cublasFillMode_t,
                n: i32,
                a: *const Self,
                lda: i32,
                w: *const Self::R,
                lwork: *mut i32,
                params: sol::syevjInfo_t,
                batch: i32,
            ) -> sol::cusolverStatus_t;
            /// cuSOLVER `<t>syevjBatched` / `<t>heevjBatched`.
            fn syevj_batched(
                h: sol::cusolverDnHandle_t,
                jobz: sol::cusolverEigMode_t,
                uplo: sol::cublasFillMode_t,
                n: i32,
                a: *mut Self,
                lda: i32,
                w: *mut Self::R,
                work: *mut Self,
                lwork: i32,
                info: *mut i32,
                params: sol::syevjInfo_t,
                batch: i32,
            ) -> sol::cusolverStatus_t;
            /// cuSOLVER `<t>gesvdjBatched_bufferSize`.
            fn gesvdj_batched_buffer(
                h: sol::cusolverDnHandle_t,
                jobz: sol::cusolverEigMode_t,
                m: i32,
                n: i32,
                a: *const Self,
                lda: i32,
                s: *const Self::R,
                u: *const Self,
                ldu: i32,
                v: *const Self,
                ldv: i32,
                lwork: *mut i32,
                params: sol::gesvdjInfo_t,
                batch: i32,
            ) -> sol::cusolverStatus_t;
            /// cuSOLVER `<t>gesvdjBatched`.
            fn gesvdj_batched(
                h: sol::cusolverDnHandle_t,
                jobz: sol::cusolverEigMode_t,
                m: i32,
                n: i32,
                a: *mut Self,
                lda: i32,
                s: *mut Self::R,
                u: *mut Self,
                ldu: i32,
                v: *mut Self,
                ldv: i32,
                work: *mut Self,
                lwork: i32,
                info: *mut i32,
                params: sol::gesvdjInfo_t,
                batch: i32,
            ) -> sol::cusolverStatus_t;
            /// cuBLAS `<t>trsm_v2`.
            fn trsm(
                h: blas::cublasHandle_t,
                side: blas::cublasSideMode_t,
                uplo: blas::cublasFillMode_t,
                trans: blas::cublasOperation_t,
                diag: blas::cublasDiagType_t,
                m: i32,
                n: i32,
                alpha: *const Self,
                a: *const Self,
                lda: i32,
                b: *mut Self,
                ldb: i32,
            ) -> blas::cublasStatus_t;
        }
    };
}

/// The declarations of `vendor_routines` in the trait.
macro_rules! declare {
    ($($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty;)*) => {
        $(
            $(#[$doc])*
            #[doc(hidden)]
            #[allow(clippy::too_many_arguments)]
            unsafe fn $name($($arg: $ty),*) -> $ret;
        )*
    };
}

/// The implementations of `vendor_routines` for one type: each forwards to the vendor's routine
/// of its place in `names`, every argument cast with `as _` (a pointer to `Self` to the vendor's
/// element type of the same layout; everything else to itself).
macro_rules! define {
    (
        [$($vendor:path),* $(,)?]
        $($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty;)*
    ) => {
        $(
            unsafe fn $name($($arg: $ty),*) -> $ret {
                // SAFETY: the caller passes valid device pointers; the element layouts agree.
                unsafe { $vendor($($arg as _),*) }
            }
        )*
    };
}

/// An element type that every function of this crate accepts: `f32`, `f64`, [`c32`], [`c64`].
///
/// `Real` is the matching real type (singular values, eigenvalues of Hermitian matrices, norms).
pub trait Scalar:
    Float<Real = <Self as Scalar>::R>
    + faer::traits::ComplexField
    + sealed::Sealed
    + Send
    + Sync
    + 'static
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
    + PartialEq
{
    /// The real type of the same precision.
    type R: RealFloat + Scalar<R = Self::R>;
    /// The complex type of the same precision (eigenvalues of general matrices).
    type C: Scalar<R = Self::R, C = Self::C>;
    /// The complex number `re + i im`.
    #[doc(hidden)]
    fn cplx(re: Self::R, im: Self::R) -> Self::C;
    /// faer's real type to ours (the same type).
    #[doc(hidden)]
    fn from_faer_real(r: <Self as faer::traits::ComplexField>::Real) -> Self::R;
    /// Machine epsilon of the real type.
    fn eps() -> f64;
    #[doc(hidden)]
    fn blas_type() -> blas::cudaDataType;
    #[doc(hidden)]
    fn blas_compute() -> blas::cublasComputeType_t;
    #[doc(hidden)]
    fn solver_type() -> sol::cudaDataType;
    #[doc(hidden)]
    fn solver_real_type() -> sol::cudaDataType;
    vendor_routines!(declare);
}

/// `Scalar` for `$t`: its real and complex types, epsilon, the cuBLAS and cuSOLVER data types and
/// compute type, and its vendor routines (in the order of `vendor_routines`).
macro_rules! scalar {
    ($t:ty, $r:ty, $c:ty, $eps:expr, $bt:ident, $bc:ident, $st:ident, $sr:ident, $names:tt) => {
        impl Scalar for $t {
            type R = $r;
            type C = $c;
            #[inline]
            fn cplx(re: $r, im: $r) -> $c {
                <$c>::new(re, im)
            }
            #[inline]
            fn from_faer_real(r: $r) -> $r {
                r
            }
            fn eps() -> f64 {
                $eps
            }
            fn blas_type() -> blas::cudaDataType {
                blas::cudaDataType::$bt
            }
            fn blas_compute() -> blas::cublasComputeType_t {
                blas::cublasComputeType_t::$bc
            }
            fn solver_type() -> sol::cudaDataType {
                sol::cudaDataType::$st
            }
            fn solver_real_type() -> sol::cudaDataType {
                sol::cudaDataType::$sr
            }
            vendor_routines!(define $names);
        }
    };
}

scalar!(
    f32,
    f32,
    c32,
    f32::EPSILON as f64,
    CUDA_R_32F,
    CUBLAS_COMPUTE_32F,
    CUDA_R_32F,
    CUDA_R_32F,
    [
        blas::cublasSgetrfBatched,
        blas::cublasSgetrsBatched,
        sol::cusolverDnSorgqr_bufferSize,
        sol::cusolverDnSorgqr,
        sol::cusolverDnSpotrfBatched,
        sol::cusolverDnSsyevjBatched_bufferSize,
        sol::cusolverDnSsyevjBatched,
        sol::cusolverDnSgesvdjBatched_bufferSize,
        sol::cusolverDnSgesvdjBatched,
        blas::cublasStrsm_v2,
    ]
);
scalar!(
    f64,
    f64,
    c64,
    f64::EPSILON,
    CUDA_R_64F,
    CUBLAS_COMPUTE_64F,
    CUDA_R_64F,
    CUDA_R_64F,
    [
        blas::cublasDgetrfBatched,
        blas::cublasDgetrsBatched,
        sol::cusolverDnDorgqr_bufferSize,
        sol::cusolverDnDorgqr,
        sol::cusolverDnDpotrfBatched,
        sol::cusolverDnDsyevjBatched_bufferSize,
        sol::cusolverDnDsyevjBatched,
        sol::cusolverDnDgesvdjBatched_bufferSize,
        sol::cusolverDnDgesvdjBatched,
        blas::cublasDtrsm_v2,
    ]
);
scalar!(
    c32,
    f32,
    c32,
    f32::EPSILON as f64,
    CUDA_C_32F,
    CUBLAS_COMPUTE_32F,
    CUDA_C_32F,
    CUDA_R_32F,
    [
        blas::cublasCgetrfBatched,
        blas::cublasCgetrsBatched,
        sol::cusolverDnCungqr_bufferSize,
        sol::cusolverDnCungqr,
        sol::cusolverDnCpotrfBatched,
        sol::cusolverDnCheevjBatched_bufferSize,
        sol::cusolverDnCheevjBatched,
        sol::cusolverDnCgesvdjBatched_bufferSize,
        sol::cusolverDnCgesvdjBatched,
        blas::cublasCtrsm_v2,
    ]
);
scalar!(
    c64,
    f64,
    c64,
    f64::EPSILON,
    CUDA_C_64F,
    CUBLAS_COMPUTE_64F,
    CUDA_C_64F,
    CUDA_R_64F,
    [
        blas::cublasZgetrfBatched,
        blas::cublasZgetrsBatched,
        sol::cusolverDnZungqr_bufferSize,
        sol::cusolverDnZungqr,
        sol::cusolverDnZpotrfBatched,
        sol::cusolverDnZheevjBatched_bufferSize,
        sol::cusolverDnZheevjBatched,
        sol::cusolverDnZgesvdjBatched_bufferSize,
        sol::cusolverDnZgesvdjBatched,
        blas::cublasZtrsm_v2,
    ]
);
