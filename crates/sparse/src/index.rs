//! The index type of the sparse formats: [`SpIndex`], implemented for `i32` (SciPy's default,
//! the type every matrix has unless it says otherwise) and `i64` (for matrices whose
//! dimensions or number of stored entries pass `i32::MAX`, as SciPy switches to `int64`).

use cudarc::cusparse::sys::cusparseIndexType_t;
use cusci_core::{Numeric, Ordered};

mod sealed {
    pub trait Sealed {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
}

/// An index type of the sparse formats (`i32` or `i64`): the type of `indices`, `indptr`,
/// `row` and `col`. [`CsrMatrix<T>`](crate::CsrMatrix) means `CsrMatrix<T, i32>`; spell
/// `CsrMatrix<T, i64>` for 64-bit indices, and convert with `with_index::<J>()`.
pub trait SpIndex: Numeric + Ord + Ordered + sealed::Sealed {
    /// The largest dimension or entry count this type can index (`i32::MAX` or `i64::MAX`).
    const MAX: usize;
    /// The index as a `usize` (valid indices are non-negative).
    fn ix(self) -> usize;
    /// A `usize` as an index (the caller has checked it fits).
    fn of(v: usize) -> Self;
    /// The type's name in the CUDA kernels (`int` or `long long`).
    #[doc(hidden)]
    fn cuda_name() -> &'static str;
    /// cuSPARSE's index type.
    #[doc(hidden)]
    fn cusparse() -> cusparseIndexType_t;
}

/// `SpIndex` for `$t`: its `MAX`, the CUDA type name and cuSPARSE's index type.
macro_rules! sp_index {
    ($t:ty, $cuda:literal, $cusparse:ident) => {
        impl SpIndex for $t {
            const MAX: usize = <$t>::MAX as usize;
            #[inline]
            fn ix(self) -> usize {
                self as usize
            }
            #[inline]
            fn of(v: usize) -> Self {
                v as $t
            }
            fn cuda_name() -> &'static str {
                $cuda
            }
            fn cusparse() -> cusparseIndexType_t {
                cusparseIndexType_t::$cusparse
            }
        }
    };
}

sp_index!(i32, "int", CUSPARSE_INDEX_32I);
sp_index!(i64, "long long", CUSPARSE_INDEX_64I);
