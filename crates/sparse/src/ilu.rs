//! `spilu`: an incomplete LU factorisation with threshold dropping and a fill limit (ILUT in
//! SuperLU's terms), as a preconditioner for the Krylov solvers.
//!
//! Route: the factorisation runs on the host on both devices (a left-looking sparse LU that
//! drops small entries as it goes; unlike [`splu`](crate::linalg::splu), which factors on the
//! device); on a GPU the matrix is read to the host once and `L`, `U` go back to the device,
//! where every [`SuperLuIlu::solve`] runs (a row gather and two sync-free triangular solve
//! kernels).

use crate::direct::spsolve_triangular;
use crate::linalg::LinearOperator;
use crate::matrix::{as_i32, CsrMatrix};
use crate::SpIndex;
use cusci_core::error::make;
use cusci_core::{Array, Device, Float, RealFloat, Result};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Options of [`spilu`] (SciPy's keyword arguments; `None` is SciPy's default).
#[derive(Clone, Copy, Debug, Default)]
pub struct IluOptions<'a> {
    /// Drop threshold τ (default 1e-4): an entry of `U(:, j)` or of `L(:, j)` (before the
    /// division by the pivot) below `τ ‖A(:, j)‖∞` in magnitude is dropped (rule `basic`).
    pub drop_tol: Option<f64>,
    /// Fill limit γ ≥ 1 (default 10): with rule `area` the factors hold at most
    /// `γ · nnz(A(:, 0..=j))` entries after column j; with rule `column` each of `L(:, j)` and
    /// `U(:, j)` holds at most `⌈γ · nnz(A(:, j))⌉` off-diagonal entries. The largest entries
    /// are kept.
    pub fill_factor: Option<f64>,
    /// SuperLU's drop rules, comma-separated (default `"basic,area"`): `basic` (threshold),
    /// `area`, `column` (fill limits). The secondary schemes (`prows`, `secondary`, `dynamic`,
    /// `interp`) are not implemented.
    pub drop_rule: Option<&'a str>,
    /// Column ordering name (`NATURAL`, `MMD_ATA`, `MMD_AT_PLUS_A`, `COLAMD`; default
    /// `COLAMD`): accepted, but the factorisation always uses the natural order (`perm_c` is the
    /// identity; an ordering changes only the fill, not the solution).
    pub permc_spec: Option<&'a str>,
    /// Threshold pivoting (default 0.1, in `[0, 1]`): the diagonal entry is the pivot when
    /// `|a_jj| ≥ thresh · max_i |a_ij|` over the candidate rows, else the largest entry.
    pub diag_pivot_thresh: Option<f64>,
    /// SuperLU's supernode relaxation: accepted for compatibility, no effect (no supernodes).
    pub relax: Option<usize>,
    /// SuperLU's panel size: accepted for compatibility, no effect (no panels).
    pub panel_size: Option<usize>,
}

/// An incomplete factorisation `Pr A ≈ L U` (SciPy's `SuperLU` object returned by `spilu`):
/// [`solve`](SuperLuIlu::solve) applies `(L U)⁻¹ Pr`, and the object is a
/// [`LinearOperator`] whose `matvec` is that solve, so it can be passed as the preconditioner
/// `M` of the Krylov solvers. `L` (unit lower triangular, diagonal stored) and `U` live on the
/// device of the factored matrix.
#[derive(Debug, Clone)]
pub struct SuperLuIlu<T: Float> {
    l: CsrMatrix<T>,
    u: CsrMatrix<T>,
    perm_r: Vec<usize>,
    /// `p[k]`: the original row of pivot `k`, on the device
    p: Array<i32>,
}

impl<T: Float> SuperLuIlu<T> {
    /// The unit lower triangular factor (SciPy's `L`).
    pub fn l(&self) -> &CsrMatrix<T> {
        &self.l
    }
    /// The upper triangular factor (SciPy's `U`).
    pub fn u(&self) -> &CsrMatrix<T> {
        &self.u
    }
    /// SciPy's `perm_r`: row `i` of `A` is row `perm_r[i]` of `Pr A`.
    pub fn perm_r(&self) -> &[usize] {
        &self.perm_r
    }
    /// SciPy's `perm_c` (the identity: natural order).
    pub fn perm_c(&self) -> Vec<usize> {
        (0..self.perm_r.len()).collect()
    }
    /// (n, n).
    pub fn shape(&self) -> (usize, usize) {
        self.l.shape()
    }
    /// Stored entries of `L` and `U` (SciPy's `nnz`, the unit diagonal of `L` included).
    pub fn nnz(&self) -> usize {
        self.l.nnz() + self.u.nnz()
    }

    /// Solves `L U x = Pr b` (SciPy's `SuperLU.solve(b)`) for a 1-D `b` or each column of a 2-D
    /// (n, k) `b`, on the factors' device.
    ///
    /// # Errors
    /// `ShapeMismatch` for a `b` whose first dimension is not n, `DeviceMismatch`.
    pub fn solve(&self, b: &Array<T>) -> Result<Array<T>> {
        let op = "SuperLU.solve";
        let n = self.perm_r.len();
        cusci_core::array::check_same_device(op, self.l.device(), b.device())?;
        let nc = match b.shape() {
            [m] if *m == n => 1,
            [m, k] if *m == n => *k,
            s => {
                return Err(make::shape(
                    op,
                    format!("b of shape {s:?} for a factor with {n} rows"),
                ))
            }
        };
        let b = b.contiguous()?;
        let pb = crate::direct::gather_rows(&b, &self.p, nc)?;
        let y = spsolve_triangular(&self.l, &pb, true, true)?;
        spsolve_triangular(&self.u, &y, false, false)
    }
}

impl<T: Float> LinearOperator<T> for SuperLuIlu<T> {
    fn shape(&self) -> (usize, usize) {
        SuperLuIlu::shape(self)
    }
    fn matvec(&self, x: &Array<T>) -> Result<Array<T>> {
        self.solve(x)
    }
    fn device(&self) -> Option<Device> {
        Some(self.l.device().clone())
    }
}

/// Keeps the `keep` entries of largest magnitude (ties: the earlier entry), in their order.
fn keep_largest<T: Float>(v: &mut Vec<(usize, T)>, keep: usize) {
    if v.len() <= keep {
        return;
    }
    let mut ix: Vec<usize> = (0..v.len()).collect();
    ix.sort_by(|&a, &b| {
        let (x, y) = (v[a].1.abs().to_f64(), v[b].1.abs().to_f64());
        y.total_cmp(&x).then(a.cmp(&b))
    });
    let mut flag = vec![false; v.len()];
    for &i in &ix[..keep] {
        flag[i] = true;
    }
    let mut i = 0;
    v.retain(|_| {
        let f = flag[i];
        i += 1;
        f
    });
}

/// An incomplete LU factorisation of a square sparse matrix (SciPy's `spilu`): SuperLU's ILUTP
/// as documented for its `drop_tol`, `fill_factor`, `drop_rule` and `diag_pivot_thresh` options,
/// on a left-looking sparse LU (each column from a sparse triangular solve with the previous
/// columns of `L`, visited in pivot order). Entries of `U(:, j)` below the drop threshold are
/// dropped before they update the rest of the column, small entries of `L(:, j)` after; a fill
/// limit keeps the largest entries. A column left without a non-zero (or with a NaN) pivot
/// candidate is `Singular { index: j }`: SuperLU replaces such a pivot but reports the column,
/// and SciPy raises ("Factor is exactly singular"). With `drop_tol = 0`, a large `fill_factor` and
/// `diag_pivot_thresh = 1` it is the complete LU of [`splu_with`](crate::linalg::splu_with)
/// with `PermcSpec::Natural` (spilu orders no columns). Results
/// match SciPy's only loosely (SuperLU orders columns with COLAMD and adds secondary dropping).
///
/// Runs on the host on both devices (see the module doc); the factors and every solve are on
/// `A`'s device.
///
/// ```
/// use cusci_sparse::{diags, Device, Array, linalg::{spilu, IluOptions}};
/// let dev = Device::Cpu;
/// let a = diags::<f64>(&[&[4.0; 5], &[-1.0; 4], &[-2.0; 4]], &[0, -1, 1], None, &dev)?;
/// let ilu = spilu(&a, &IluOptions::default())?; // tridiagonal: no fill, exact
/// let x = ilu.solve(&a.dot(&Array::from_vec(vec![1.0; 5], &[5], &dev)?)?)?;
/// assert!(x.to_vec()?.iter().all(|v| (v - 1.0).abs() < 1e-12));
/// # Ok::<(), cusci_sparse::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for a non-square matrix; `Singular { index }` for a column without a
/// non-zero pivot (a zero or singular matrix, as SciPy); `InvalidArgument` for a negative or NaN `drop_tol`,
/// a `fill_factor` below 1, a `diag_pivot_thresh` outside `[0, 1]`, an unknown `permc_spec` or
/// drop rule; `NotImplemented` for the secondary drop rules; `InvalidArgument` for an `i64`
/// matrix whose shape or number of entries does not fit `i32` (as [`splu`](crate::linalg::splu)).
pub fn spilu<T: Float, I: SpIndex>(
    a: &CsrMatrix<T, I>,
    opts: &IluOptions,
) -> Result<SuperLuIlu<T>> {
    let op = "spilu";
    let (m0, n) = a.shape();
    if m0 != n {
        return Err(make::shape(
            op,
            format!("expected a square matrix, got ({m0}, {n})"),
        ));
    }
    let a = as_i32(op, a)?;
    let a = &*a;
    let tau = opts.drop_tol.unwrap_or(1e-4);
    if tau.is_nan() || tau < 0.0 {
        return Err(make::arg(op, "drop_tol must be non-negative"));
    }
    let gamma = opts.fill_factor.unwrap_or(10.0);
    if gamma.is_nan() || gamma < 1.0 {
        return Err(make::arg(op, "fill_factor must be at least 1"));
    }
    let thresh = opts.diag_pivot_thresh.unwrap_or(0.1);
    if !(0.0..=1.0).contains(&thresh) {
        return Err(make::arg(op, "diag_pivot_thresh must be in [0, 1]"));
    }
    if let Some(s) = opts.permc_spec {
        if !matches!(s, "NATURAL" | "MMD_ATA" | "MMD_AT_PLUS_A" | "COLAMD") {
            return Err(make::arg(op, format!("unknown permc_spec {s:?}")));
        }
    }
    let (mut basic, mut area, mut column) = (false, false, false);
    for tok in opts.drop_rule.unwrap_or("basic,area").split(',') {
        match tok.trim() {
            "basic" => basic = true,
            "area" => area = true,
            "column" => column = true,
            "" => {}
            t @ ("prows" | "secondary" | "dynamic" | "interp") => {
                return Err(make::not_implemented(
                    &format!("spilu drop_rule {t:?}"),
                    a.device(),
                ))
            }
            t => return Err(make::arg(op, format!("unknown drop rule {t:?}"))),
        }
    }
    let ip = a.indptr().to_vec()?;
    let ix = a.indices().to_vec()?;
    let dv = a.data().to_vec()?;
    let mut cols: Vec<Vec<(usize, T)>> = vec![Vec::new(); n];
    for i in 0..n {
        for k in ip[i] as usize..ip[i + 1] as usize {
            cols[ix[k] as usize].push((i, dv[k]));
        }
    }
    const NONE: usize = usize::MAX;
    let mut lcols: Vec<Vec<(usize, T)>> = Vec::with_capacity(n);
    let mut ucols: Vec<Vec<(usize, T)>> = Vec::with_capacity(n);
    let mut p = vec![NONE; n];
    let mut pinv = vec![NONE; n];
    let mut x = vec![T::zero(); n];
    let mut inpat = vec![false; n];
    let mut inheap = vec![false; n];
    let mut pat: Vec<usize> = Vec::new();
    let mut heap: BinaryHeap<Reverse<usize>> = BinaryHeap::new();
    let (mut nnz_a, mut nnz_f) = (0usize, 0usize);
    for (j, col) in cols.iter().enumerate() {
        let mut anorm = 0.0f64;
        let mut acount = 0usize;
        for &(i, v) in col {
            x[i] = x[i].add(v);
            if !inpat[i] {
                inpat[i] = true;
                pat.push(i);
                acount += 1;
                if pinv[i] != NONE && !inheap[pinv[i]] {
                    inheap[pinv[i]] = true;
                    heap.push(Reverse(pinv[i]));
                }
            }
        }
        for &i in &pat {
            anorm = anorm.max(x[i].abs().to_f64());
        }
        nnz_a += acount;
        let drop = if basic { tau * anorm } else { 0.0 };
        let mut ucol = Vec::new();
        while let Some(Reverse(k)) = heap.pop() {
            inheap[k] = false;
            let xr = x[p[k]];
            if xr == T::zero() || xr.abs().to_f64() < drop {
                continue;
            }
            ucol.push((k, xr));
            for &(i, l) in &lcols[k] {
                if !inpat[i] {
                    inpat[i] = true;
                    pat.push(i);
                    if pinv[i] != NONE && !inheap[pinv[i]] {
                        inheap[pinv[i]] = true;
                        heap.push(Reverse(pinv[i]));
                    }
                }
                x[i] = x[i].sub(l.mul(xr));
            }
        }
        // threshold pivoting among the unpivoted rows
        let mut best = NONE;
        let mut bmax = 0.0f64;
        for &i in &pat {
            if pinv[i] == NONE {
                let v = x[i].abs().to_f64();
                if v > bmax {
                    bmax = v;
                    best = i;
                }
            }
        }
        if best != NONE && pinv[j] == NONE && inpat[j] {
            let d = x[j].abs().to_f64();
            if d > 0.0 && d >= thresh * bmax {
                best = j;
            }
        }
        if best == NONE || bmax == 0.0 || bmax.is_nan() {
            // no usable pivot: SuperLU replaces it but reports the column (info > 0), which
            // SciPy raises as "Factor is exactly singular" (or "matrix is singular")
            return Err(crate::direct::singular(op, j));
        }
        let piv = x[best];
        p[j] = best;
        pinv[best] = j;
        let mut lcol = Vec::new();
        for &i in &pat {
            if pinv[i] == NONE && x[i] != T::zero() && {
                let v = x[i].abs().to_f64();
                v >= drop || v.is_nan()
            } {
                lcol.push((i, x[i].div(piv)));
            }
        }
        for &i in &pat {
            x[i] = T::zero();
            inpat[i] = false;
        }
        pat.clear();
        if column {
            let lfil = (gamma * acount as f64).ceil() as usize;
            keep_largest(&mut lcol, lfil);
            keep_largest(&mut ucol, lfil);
        }
        if area {
            // budget for the off-diagonal entries of this column (the two diagonals always stay)
            let budget = ((gamma * nnz_a as f64).floor() as usize).saturating_sub(nnz_f + 2);
            if lcol.len() + ucol.len() > budget {
                let mut all: Vec<(usize, T)> = ucol
                    .iter()
                    .map(|&(k, v)| (k, v))
                    .chain(lcol.iter().map(|&(i, v)| (n + i, v.mul(piv))))
                    .collect();
                keep_largest(&mut all, budget);
                ucol = all.iter().filter(|e| e.0 < n).copied().collect();
                lcol = all
                    .iter()
                    .filter(|e| e.0 >= n)
                    .map(|&(i, v)| (i - n, v.div(piv)))
                    .collect();
            }
        }
        ucol.push((j, piv));
        nnz_f += lcol.len() + ucol.len() + 1;
        lcols.push(lcol);
        ucols.push(ucol);
    }
    let mut lt: Vec<(usize, usize, T)> = Vec::new();
    for (k, col) in lcols.iter().enumerate() {
        lt.push((k, k, T::one()));
        for &(i, v) in col {
            lt.push((pinv[i], k, v));
        }
    }
    let mut ut: Vec<(usize, usize, T)> = Vec::new();
    for (j, col) in ucols.iter().enumerate() {
        for &(k, v) in col {
            ut.push((k, j, v));
        }
    }
    let dev = a.device();
    let pd: Vec<i32> = p.iter().map(|&r| r as i32).collect();
    Ok(SuperLuIlu {
        l: csr_from_triplets(lt, n, dev)?,
        u: csr_from_triplets(ut, n, dev)?,
        perm_r: pinv,
        p: Array::from_vec(pd, &[n], dev)?,
    })
}

/// A canonical CSR matrix from distinct (row, col, value) triplets, on `dev`.
fn csr_from_triplets<T: Float>(
    mut t: Vec<(usize, usize, T)>,
    n: usize,
    dev: &Device,
) -> Result<CsrMatrix<T>> {
    t.sort_unstable_by_key(|&(r, c, _)| (r, c));
    let mut indptr = vec![0i32; n + 1];
    for &(r, _, _) in &t {
        indptr[r + 1] += 1;
    }
    for i in 0..n {
        indptr[i + 1] += indptr[i];
    }
    let indices: Vec<i32> = t.iter().map(|&(_, c, _)| c as i32).collect();
    let data: Vec<T> = t.iter().map(|&(_, _, v)| v).collect();
    let nnz = data.len();
    CsrMatrix::new(
        Array::from_vec(data, &[nnz], dev)?,
        Array::from_vec(indices, &[nnz], dev)?,
        Array::from_vec(indptr, &[n + 1], dev)?,
        (n, n),
    )
}
