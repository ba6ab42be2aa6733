//! SpMV for CSR matrices with short rows (`spmv.cu`): each warp streams a contiguous range of
//! entries with coalesced loads and sums each row in stored order.

use super::{ffi, with_prelude};
use crate::matrix::CsrMatrix;
use crate::SpIndex;
use cusci_core::error::make;
use cusci_core::{Array, CudaDevice, Element, Float, KernelModule, LaunchConfig, Result, Spec};

/// The SpMV module for one rows-per-lane value: `spmv.cu` with only the kernel of that value
/// (`sp_spmv_r<rpt>`), so that a first call compiles one kernel, not all of them. `Spec`:
/// element type, index type, rows per lane (one of [`SPMV_RPTS`]).
pub(crate) static SPMV: KernelModule = KernelModule {
    name: "cusci_sparse_spmv",
    source: |s| {
        let rpt = s.int(0)?;
        if !SPMV_RPTS.iter().any(|&r| r as i64 == rpt) {
            return Err(make::arg(
                "cusci-sparse spmv",
                format!("rows per lane {rpt} is not one of {SPMV_RPTS:?}"),
            ));
        }
        Ok(format!(
            "#define SPMV_CUSTOM_INSTANCES\n{}SPMV_KERNELS({rpt})\n",
            with_prelude(s, include_str!("spmv.cu"))?
        ))
    },
    options: &[],
    samples: || {
        super::element_index_pairs()
            .into_iter()
            .flat_map(|s| SPMV_RPTS.iter().map(move |&r| s.clone().with(&[r as i64])))
            .collect()
    },
};

/// Resident blocks per SM asked of the compiler (`SPMV_MINB`); the grid is this many per SM.
const SPMV_MIN_BLOCKS_PER_SM: usize = 4;
/// Warps per block of the SpMV kernels (`SPMV_WARPS`).
const SPMV_WARPS: usize = 8;
/// The rows-per-lane values `spmv.cu` instantiates (`SPMV_KERNELS(R)`).
pub(crate) const SPMV_RPTS: [usize; 6] = [1, 2, 3, 4, 6, 8];
/// The largest average row length (nnz / rows) for which [`spmv_short_rows`] is used; longer
/// rows go to cuSPARSE's SpMV.
pub(crate) const SPMV_SHORT_ROW_MAX: f64 = 32.0;

/// Rows per lane for an average row length `avg`: `16 / avg` rounded, within 1..=3. Measured on
/// the H200 (2 KiB chunk, persistent grid): Poisson 4096² (5 per row) ran fastest with 3 rows
/// per lane, f64 0.372 ms (87.8 % of the copy roof, 1.53x cuSPARSE) and f32 0.257 ms (1.60x),
/// against 0.390 and 0.318 ms with 2; random columns with 8 per row: 2 and 1 within 3 %; 16 and
/// 32 per row: 1 best.
pub(crate) fn spmv_rows_per_lane(avg: f64) -> usize {
    (16.0 / avg.max(1e-9)).round().clamp(1.0, 3.0) as usize
}

/// `y = A x` with the short-row kernels of `spmv.cu` for an m-row CSR matrix with at least one
/// stored entry; every element of `y` (length m) is written. Any alignment of the arrays.
pub(crate) fn spmv_short_rows<T: Element, I: SpIndex>(
    dev: &CudaDevice,
    indptr: &Array<I>,
    indices: &Array<I>,
    data: &Array<T>,
    x: &Array<T>,
    y: &mut Array<T>,
) -> Result<()> {
    let m = indptr.len().saturating_sub(1);
    if m == 0 {
        return Ok(());
    }
    let rpt = spmv_rows_per_lane(data.len() as f64 / m as f64);
    let ntiles = m.div_ceil(32 * rpt);
    // a persistent grid: as many blocks as are resident at once (SPMV_MINB per SM), each warp
    // looping over tiles; on the H200 528 blocks ran 6 % faster than one tile per warp
    let resident = SPMV_MIN_BLOCKS_PER_SM * dev.props().multiprocessors.max(1);
    let blocks = u32::try_from(ntiles.div_ceil(SPMV_WARPS).min(resident))
        .map_err(|_| make::arg("cusci-sparse spmv", "too many blocks"))?;
    let spec = Spec::of(&[T::DTYPE, I::DTYPE]).with(&[rpt as i64]);
    let f = SPMV.function(dev, &spec, &format!("sp_spmv_r{rpt}"))?;
    dev.launch(&f, LaunchConfig::linear(blocks, (SPMV_WARPS * 32) as u32))
        .arg(indptr.dev_ptr()?)
        .arg(indices.dev_ptr()?)
        .arg(data.dev_ptr()?)
        .arg(x.dev_ptr()?)
        .arg(y.dev_ptr_mut()?)
        .arg(m as i64)
        .arg(ntiles as i64)
        .run()
}

/// `A @ x` ([`CsrMatrix::dot`]) on the GPU for a contiguous 1-D or 2-D `x`: SpMV of short rows
/// ([`SPMV_SHORT_ROW_MAX`]) or of more than 2^31 − 1 entries with [`spmv_short_rows`], longer
/// rows and SpMM with cuSPARSE. Both
/// routes write every element of the result: no fill pass.
pub(crate) fn dot<T: Float, I: SpIndex>(
    d: &CudaDevice,
    a: &CsrMatrix<T, I>,
    x: &Array<T>,
) -> Result<Array<T>> {
    let (m, n) = a.shape();
    let dev = a.device();
    let k = (x.ndim() == 2).then(|| x.shape()[1]);
    let shape = match k {
        None => vec![m],
        Some(k) => vec![m, k],
    };
    if m == 0 || n == 0 || k == Some(0) || a.nnz() == 0 {
        return Array::<T>::zeros(&shape, dev);
    }
    let mut y = Array::<T>::empty(&shape, dev)?;
    // cuSPARSE's SpMV fails past 2^31 stored entries (CUSPARSE_STATUS_INTERNAL_ERROR on an
    // H100, CUDA 13, i64 indices): the own kernel takes those at any row length
    let own = a.nnz() as f64 / m as f64 <= SPMV_SHORT_ROW_MAX || a.nnz() > i32::MAX as usize;
    if k.is_none() && own {
        spmv_short_rows(d, a.indptr(), a.indices(), a.data(), x, &mut y)?;
    } else {
        let sa = ffi::SpMat::csr(a)?;
        match k {
            None => ffi::spmv(d, &sa, x, &mut y)?,
            Some(_) => ffi::spmm(d, &sa, x, &mut y)?,
        }
    }
    Ok(y)
}
