//! The DIA format: [`DiaMatrix`] (SciPy's `dia_matrix`), [`spdiags`] and
//! [`CsrMatrix::todia`](crate::CsrMatrix::todia).

use crate::cuda::formats as gpu;
use crate::matrix::{hv, CsrMatrix};
use crate::stack::build_rows;
pub(crate) use crate::storage::DiaMatrix;
use cusci_core::error::make;
use cusci_core::{Array, Device, Float, Result};

impl<T: Float> DiaMatrix<T> {
    /// `dia_matrix((data, offsets), shape)`: `data` is 2-D (nd x w; 1-D is taken as one row),
    /// one distinct offset per row of `data`.
    ///
    /// # Errors
    /// `ShapeMismatch` when `data` is not 1-D or 2-D or its row count differs from the number of
    /// offsets; `InvalidArgument` for repeated offsets (SciPy's "offset array contains duplicate
    /// values") or a shape past `i64`.
    pub fn new(data: Array<T>, offsets: &[isize], shape: (usize, usize)) -> Result<Self> {
        let op = "dia_matrix";
        let data = match data.ndim() {
            1 => {
                let w = data.len();
                data.reshape(&[1, w as isize])?
            }
            2 => data,
            _ => {
                return Err(make::shape(
                    op,
                    format!("data must be 1-D or 2-D, got shape {:?}", data.shape()),
                ))
            }
        };
        if data.shape()[0] != offsets.len() {
            return Err(make::shape(
                op,
                format!(
                    "number of diagonals ({}) does not match the number of offsets ({})",
                    data.shape()[0],
                    offsets.len()
                ),
            ));
        }
        let mut s: Vec<isize> = offsets.to_vec();
        s.sort_unstable();
        if s.windows(2).any(|w| w[0] == w[1]) {
            return Err(make::arg(op, "offset array contains duplicate values"));
        }
        crate::matrix::check_index_range::<i64>(op, shape.0, shape.1, 0)?;
        let offs: Vec<i64> = offsets.iter().map(|&k| k as i64).collect();
        let doffsets = Array::from_vec(offs.clone(), &[offs.len()], data.device())?;
        Ok(DiaMatrix {
            data: data.contiguous()?,
            offsets: offs,
            doffsets,
            shape,
        })
    }

    /// (rows, columns).
    pub fn shape(&self) -> (usize, usize) {
        self.shape
    }
    /// The nd x w diagonal data.
    pub fn data(&self) -> &Array<T> {
        &self.data
    }
    /// The offset of every row of `data` (k > 0 above the main diagonal).
    pub fn offsets(&self) -> &[i64] {
        &self.offsets
    }
    /// The device holding the data.
    pub fn device(&self) -> &Device {
        self.data.device()
    }
    /// The number of stored positions inside the matrix (SciPy's `dia_matrix.nnz`: explicit
    /// zeros counted).
    pub fn nnz(&self) -> usize {
        let (m, n) = (self.shape.0 as i64, self.shape.1 as i64);
        let w = self.data.shape()[1] as i64;
        self.offsets
            .iter()
            .map(|&k| {
                // columns j in [max(0, k), min(n, w, m + k))
                let lo = k.max(0);
                let hi = n.min(w).min(m + k);
                (hi - lo).max(0) as usize
            })
            .sum()
    }

    fn dims(&self) -> (usize, usize, usize, usize) {
        (
            self.shape.0,
            self.shape.1,
            self.data.shape()[0],
            self.data.shape()[1],
        )
    }

    /// The canonical CSR form (`tocsr()`): stored zeros dropped, as SciPy's conversion.
    ///
    /// # Errors
    /// `InvalidArgument` when the entries pass 32-bit indices; device errors.
    pub fn tocsr(&self) -> Result<CsrMatrix<T>> {
        let (m, n, nd, w) = self.dims();
        crate::matrix::check_index_range::<i32>("dia_matrix.tocsr", m, n, self.nnz())?;
        let mut order: Vec<usize> = (0..nd).collect();
        order.sort_by_key(|&d| self.offsets[d]);
        match self.device() {
            Device::Cpu => {
                let data = hv(&self.data);
                let offs = &self.offsets;
                let at = |r: usize, d: usize| -> Option<(usize, T)> {
                    let c = r as i64 + offs[d];
                    if c < 0 || c >= n as i64 || c >= w as i64 {
                        return None;
                    }
                    let v = data[d * w + c as usize];
                    (v != T::zero()).then_some((c as usize, v))
                };
                let (ip, ind, dat) = build_rows::<T, i32>(
                    m,
                    |r| (0..nd).filter(|&d| at(r, d).is_some()).count(),
                    |r, oi, ov| {
                        let mut o = 0;
                        for &d in &order {
                            if let Some((c, v)) = at(r, d) {
                                oi[o] = c as i32;
                                ov[o] = v;
                                o += 1;
                            }
                        }
                    },
                );
                CsrMatrix::from_host(ip, ind, dat, self.shape, true, &Device::Cpu)
            }
            Device::Cuda(d) => gpu::dia_to_csr(d, self, &order),
        }
    }

    /// The dense array.
    ///
    /// # Errors
    /// Device errors only.
    pub fn toarray(&self) -> Result<Array<T>> {
        self.tocsr()?.toarray()
    }

    /// `A @ x`: a 1-D `x` of length n gives the m-vector `y[r] = Σ_d data[d, r + k_d]·x[r + k_d]`
    /// summed in the stored order of the diagonals (a row-parallel kernel on the GPU, the same
    /// loop on the CPU); a 2-D `x` goes through the CSR form (SpMM).
    ///
    /// # Errors
    /// `ShapeMismatch` for an operand of another length, `DeviceMismatch`.
    pub fn dot(&self, x: &Array<T>) -> Result<Array<T>> {
        let op = "dia_matrix.dot";
        cusci_core::array::check_same_device(op, self.device(), x.device())?;
        let (m, n, _, w) = self.dims();
        if x.ndim() == 0 || x.ndim() > 2 || x.shape()[0] != n {
            return Err(make::shape(
                op,
                format!(
                    "matrix of shape ({m}, {n}) times an operand of shape {:?}",
                    x.shape()
                ),
            ));
        }
        if x.ndim() == 2 {
            return self.tocsr()?.dot(x);
        }
        let x = x.contiguous()?;
        match self.device() {
            Device::Cpu => {
                let (data, xs, offs) = (hv(&self.data), hv(&x), &self.offsets);
                let y: Vec<T> = (0..m)
                    .map(|r| {
                        let mut acc = T::zero();
                        for (d, &k) in offs.iter().enumerate() {
                            let c = r as i64 + k;
                            if c >= 0 && c < n as i64 && c < w as i64 {
                                acc = acc.add(data[d * w + c as usize].mul(xs[c as usize]));
                            }
                        }
                        acc
                    })
                    .collect();
                Array::from_vec(y, &[m], &Device::Cpu)
            }
            Device::Cuda(d) => gpu::dia_spmv(d, self, &x),
        }
    }
}

impl<T: Float, I: crate::SpIndex> CsrMatrix<T, I> {
    /// The DIA form (`todia()`): duplicates summed first; one row of `data` per diagonal holding
    /// a stored entry, offsets increasing, `data` of width `max column + 1` (SciPy's layout);
    /// an empty matrix gives 0 x 0 data.
    ///
    /// ```
    /// use cusci_sparse::{diags, Device};
    /// let a = diags::<f64>(&[&[1.0, 2.0], &[3.0]], &[0, 1], None, &Device::Cpu)?;
    /// let d = a.todia()?;
    /// assert_eq!(d.offsets(), &[0, 1]);
    /// assert_eq!(d.data().to_vec()?, vec![1.0, 2.0, 0.0, 3.0]);
    /// # Ok::<(), cusci_sparse::Error>(())
    /// ```
    ///
    /// # Errors
    /// Device errors only.
    pub fn todia(&self) -> Result<DiaMatrix<T>> {
        let a = self.sum_duplicates()?;
        let (m, n) = a.shape();
        let dev = a.device().clone();
        if a.nnz() == 0 {
            return DiaMatrix::new(Array::zeros(&[0, 0], &dev)?, &[], (m, n));
        }
        match &dev {
            Device::Cpu => {
                let (ip, ind, dat) = (hv(&a.indptr), hv(&a.indices), hv(&a.data));
                let mut present = vec![false; m + n - 1];
                let mut w = 0usize;
                for r in 0..m {
                    for j in ip[r].ix()..ip[r + 1].ix() {
                        present[ind[j].ix() + m - 1 - r] = true;
                        w = w.max(ind[j].ix() + 1);
                    }
                }
                let mut slot = vec![0usize; m + n - 1];
                let mut offs = Vec::new();
                for (i, &f) in present.iter().enumerate() {
                    if f {
                        slot[i] = offs.len();
                        offs.push(i as isize - (m as isize - 1));
                    }
                }
                let mut data = vec![T::zero(); offs.len() * w];
                for r in 0..m {
                    for j in ip[r].ix()..ip[r + 1].ix() {
                        let c = ind[j].ix();
                        data[slot[c + m - 1 - r] * w + c] = dat[j];
                    }
                }
                let nd = offs.len();
                DiaMatrix::new(Array::from_vec(data, &[nd, w], &dev)?, &offs, (m, n))
            }
            Device::Cuda(d) => gpu::csr_to_dia(d, &a),
        }
    }
}

/// `scipy.sparse.spdiags(data, diags, m, n)`: the DIA matrix whose diagonal `diags[d]` takes
/// row `d` of the 2-D `data` (`data[d, j]` at column `j`).
///
/// ```
/// use cusci_sparse::{spdiags, Device, Array};
/// let data = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2], &Device::Cpu)?;
/// let a = spdiags(data, &[0, -1], 2, 2)?;
/// assert_eq!(a.toarray()?.to_vec()?, vec![1.0, 0.0, 3.0, 2.0]);
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// As [`DiaMatrix::new`].
pub fn spdiags<T: Float>(
    data: Array<T>,
    diags: &[isize],
    m: usize,
    n: usize,
) -> Result<DiaMatrix<T>> {
    DiaMatrix::new(data, diags, (m, n))
}
