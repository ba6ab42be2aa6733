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
    /// cuBLAS `<t>getrfBatched`.
    #[doc(hidden)]
    unsafe fn getrf_batched(
        h: blas::cublasHandle_t,
        n: i32,
        a: *const *mut Self,
        lda: i32,
        piv: *mut i32,
        info: *mut i32,
        batch: i32,
    ) -> blas::cublasStatus_t;
    /// cuBLAS `<t>getrsBatched`.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn getrs_batched(
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
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn orgqr_buffer(
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
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn orgqr(
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
    #[doc(hidden)]
    unsafe fn potrf_batched(
        h: sol::cusolverDnHandle_t,
        uplo: sol::cublasFillMode_t,
        n: i32,
        a: *mut *mut Self,
        lda: i32,
        info: *mut i32,
        batch: i32,
    ) -> sol::cusolverStatus_t;
    /// cuSOLVER `<t>syevjBatched_bufferSize` / `<t>heevjBatched_bufferSize`.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn syevj_batched_buffer(
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
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn syevj_batched(
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
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn gesvdj_batched_buffer(
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
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn gesvdj_batched(
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
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn trsm(
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

macro_rules! scalar {
    ($t:ty, $r:ty, $eps:expr, $bt:ident, $bc:ident, $st:ident, $sr:ident, $rf:ident, $rs:ident, $ct:ty, $ob:ident, $og:ident, $tr:ident, $sct:ty, $c:ty, $pb:ident, $eb:ident, $ebs:ident, $gb:ident, $gbs:ident) => {
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
            unsafe fn getrf_batched(
                h: blas::cublasHandle_t,
                n: i32,
                a: *const *mut Self,
                lda: i32,
                piv: *mut i32,
                info: *mut i32,
                batch: i32,
            ) -> blas::cublasStatus_t {
                // SAFETY: the caller passes valid device pointers; the element layouts agree.
                unsafe { blas::$rf(h, n, a as *const *mut $ct, lda, piv, info, batch) }
            }
            unsafe fn orgqr_buffer(
                h: sol::cusolverDnHandle_t,
                m: i32,
                n: i32,
                k: i32,
                a: *const Self,
                lda: i32,
                tau: *const Self,
                lwork: *mut i32,
            ) -> sol::cusolverStatus_t {
                // SAFETY: the caller passes valid device pointers; the element layouts agree.
                unsafe { sol::$ob(h, m, n, k, a as *const $sct, lda, tau as *const $sct, lwork) }
            }
            unsafe fn orgqr(
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
            ) -> sol::cusolverStatus_t {
                // SAFETY: as above.
                unsafe {
                    sol::$og(
                        h,
                        m,
                        n,
                        k,
                        a as *mut $sct,
                        lda,
                        tau as *const $sct,
                        work as *mut $sct,
                        lwork,
                        info,
                    )
                }
            }
            unsafe fn potrf_batched(
                h: sol::cusolverDnHandle_t,
                uplo: sol::cublasFillMode_t,
                n: i32,
                a: *mut *mut Self,
                lda: i32,
                info: *mut i32,
                batch: i32,
            ) -> sol::cusolverStatus_t {
                // SAFETY: the caller passes valid device pointers; the element layouts agree.
                unsafe { sol::$pb(h, uplo, n, a as *mut *mut $sct, lda, info, batch) }
            }
            unsafe fn syevj_batched_buffer(
                h: sol::cusolverDnHandle_t,
                jobz: sol::cusolverEigMode_t,
                uplo: sol::cublasFillMode_t,
                n: i32,
                a: *const Self,
                lda: i32,
                w: *const $r,
                lwork: *mut i32,
                params: sol::syevjInfo_t,
                batch: i32,
            ) -> sol::cusolverStatus_t {
                // SAFETY: as above.
                unsafe {
                    sol::$ebs(
                        h,
                        jobz,
                        uplo,
                        n,
                        a as *const $sct,
                        lda,
                        w,
                        lwork,
                        params,
                        batch,
                    )
                }
            }
            unsafe fn syevj_batched(
                h: sol::cusolverDnHandle_t,
                jobz: sol::cusolverEigMode_t,
                uplo: sol::cublasFillMode_t,
                n: i32,
                a: *mut Self,
                lda: i32,
                w: *mut $r,
                work: *mut Self,
                lwork: i32,
                info: *mut i32,
                params: sol::syevjInfo_t,
                batch: i32,
            ) -> sol::cusolverStatus_t {
                // SAFETY: as above.
                unsafe {
                    sol::$eb(
                        h,
                        jobz,
                        uplo,
                        n,
                        a as *mut $sct,
                        lda,
                        w,
                        work as *mut $sct,
                        lwork,
                        info,
                        params,
                        batch,
                    )
                }
            }
            unsafe fn gesvdj_batched_buffer(
                h: sol::cusolverDnHandle_t,
                jobz: sol::cusolverEigMode_t,
                m: i32,
                n: i32,
                a: *const Self,
                lda: i32,
                s: *const $r,
                u: *const Self,
                ldu: i32,
                v: *const Self,
                ldv: i32,
                lwork: *mut i32,
                params: sol::gesvdjInfo_t,
                batch: i32,
            ) -> sol::cusolverStatus_t {
                // SAFETY: as above.
                unsafe {
                    sol::$gbs(
                        h,
                        jobz,
                        m,
                        n,
                        a as *const $sct,
                        lda,
                        s,
                        u as *const $sct,
                        ldu,
                        v as *const $sct,
                        ldv,
                        lwork,
                        params,
                        batch,
                    )
                }
            }
            unsafe fn gesvdj_batched(
                h: sol::cusolverDnHandle_t,
                jobz: sol::cusolverEigMode_t,
                m: i32,
                n: i32,
                a: *mut Self,
                lda: i32,
                s: *mut $r,
                u: *mut Self,
                ldu: i32,
                v: *mut Self,
                ldv: i32,
                work: *mut Self,
                lwork: i32,
                info: *mut i32,
                params: sol::gesvdjInfo_t,
                batch: i32,
            ) -> sol::cusolverStatus_t {
                // SAFETY: as above.
                unsafe {
                    sol::$gb(
                        h,
                        jobz,
                        m,
                        n,
                        a as *mut $sct,
                        lda,
                        s,
                        u as *mut $sct,
                        ldu,
                        v as *mut $sct,
                        ldv,
                        work as *mut $sct,
                        lwork,
                        info,
                        params,
                        batch,
                    )
                }
            }
            unsafe fn trsm(
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
            ) -> blas::cublasStatus_t {
                // SAFETY: as above.
                unsafe {
                    blas::$tr(
                        h,
                        side,
                        uplo,
                        trans,
                        diag,
                        m,
                        n,
                        alpha as *const $ct,
                        a as *const $ct,
                        lda,
                        b as *mut $ct,
                        ldb,
                    )
                }
            }
            unsafe fn getrs_batched(
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
            ) -> blas::cublasStatus_t {
                // SAFETY: as above.
                unsafe {
                    blas::$rs(
                        h,
                        trans,
                        n,
                        nrhs,
                        a as *const *const $ct,
                        lda,
                        piv,
                        b as *const *mut $ct,
                        ldb,
                        info,
                        batch,
                    )
                }
            }
        }
    };
}

scalar!(
    f32,
    f32,
    f32::EPSILON as f64,
    CUDA_R_32F,
    CUBLAS_COMPUTE_32F,
    CUDA_R_32F,
    CUDA_R_32F,
    cublasSgetrfBatched,
    cublasSgetrsBatched,
    f32,
    cusolverDnSorgqr_bufferSize,
    cusolverDnSorgqr,
    cublasStrsm_v2,
    f32,
    c32,
    cusolverDnSpotrfBatched,
    cusolverDnSsyevjBatched,
    cusolverDnSsyevjBatched_bufferSize,
    cusolverDnSgesvdjBatched,
    cusolverDnSgesvdjBatched_bufferSize
);
scalar!(
    f64,
    f64,
    f64::EPSILON,
    CUDA_R_64F,
    CUBLAS_COMPUTE_64F,
    CUDA_R_64F,
    CUDA_R_64F,
    cublasDgetrfBatched,
    cublasDgetrsBatched,
    f64,
    cusolverDnDorgqr_bufferSize,
    cusolverDnDorgqr,
    cublasDtrsm_v2,
    f64,
    c64,
    cusolverDnDpotrfBatched,
    cusolverDnDsyevjBatched,
    cusolverDnDsyevjBatched_bufferSize,
    cusolverDnDgesvdjBatched,
    cusolverDnDgesvdjBatched_bufferSize
);
scalar!(
    c32,
    f32,
    f32::EPSILON as f64,
    CUDA_C_32F,
    CUBLAS_COMPUTE_32F,
    CUDA_C_32F,
    CUDA_R_32F,
    cublasCgetrfBatched,
    cublasCgetrsBatched,
    blas::cuComplex,
    cusolverDnCungqr_bufferSize,
    cusolverDnCungqr,
    cublasCtrsm_v2,
    sol::cuComplex,
    c32,
    cusolverDnCpotrfBatched,
    cusolverDnCheevjBatched,
    cusolverDnCheevjBatched_bufferSize,
    cusolverDnCgesvdjBatched,
    cusolverDnCgesvdjBatched_bufferSize
);
scalar!(
    c64,
    f64,
    f64::EPSILON,
    CUDA_C_64F,
    CUBLAS_COMPUTE_64F,
    CUDA_C_64F,
    CUDA_R_64F,
    cublasZgetrfBatched,
    cublasZgetrsBatched,
    blas::cuDoubleComplex,
    cusolverDnZungqr_bufferSize,
    cusolverDnZungqr,
    cublasZtrsm_v2,
    sol::cuDoubleComplex,
    c64,
    cusolverDnZpotrfBatched,
    cusolverDnZheevjBatched,
    cusolverDnZheevjBatched_bufferSize,
    cusolverDnZgesvdjBatched,
    cusolverDnZgesvdjBatched_bufferSize
);
