//! The `sparse.*` cases of CASES.md (see `cupy_ref.py` for CuPy's side of each; the Poisson
//! matrix is built the same way: `diags` with flat offsets 0, ±1, ±n).

use crate::{host_range, Bench, BenchResult, Case};
use cusci::core::random::Generator;
use cusci::sparse::linalg::{cg, splu, SolverOptions};
use cusci::sparse::{diags, CooMatrix, CsrMatrix};
use cusci::{Array, Device};

/// The sparse cases, with bytes, flops and repeats as in cupy_ref.py.
pub fn cases() -> Vec<Case> {
    let n4 = 4096u64 * 4096;
    let n2 = 2048u64 * 2048;
    vec![
        Case {
            name: "sparse.spmv_csr_f64_poisson4096",
            bytes: n4 * (5 * 12 + 4 + 16),
            flops: 2 * 5 * n4,
            n_repeat: 20,
            setup: spmv,
        },
        Case {
            name: "sparse.spmm_csr_f32_poisson2048_x64",
            bytes: n2 * (5 * 8 + 4 + 2 * 64 * 4),
            flops: 2 * 5 * n2 * 64,
            n_repeat: 10,
            setup: spmm,
        },
        Case {
            name: "sparse.cg_f64_poisson1024_200it",
            bytes: 0,
            flops: 0,
            n_repeat: 5,
            setup: cg_case,
        },
        Case {
            name: "sparse.coo_to_csr_f64_50M",
            bytes: 50_000_000 * (8 + 4 + 4) * 2,
            flops: 0,
            n_repeat: 5,
            setup: coo_to_csr,
        },
        Case {
            name: "sparse.csr_transpose_f64_poisson4096",
            bytes: 0,
            flops: 0,
            n_repeat: 10,
            setup: transpose,
        },
        // not in CASES.md (CuPy's splu factors on the host with SciPy): the device LU's time
        Case {
            name: "sparse.splu_f64_poisson256",
            bytes: 0,
            flops: 0,
            n_repeat: 3,
            setup: |dev| splu_case(256, dev),
        },
        Case {
            name: "sparse.splu_f64_poisson512",
            bytes: 0,
            flops: 0,
            n_repeat: 3,
            setup: |dev| splu_case(512, dev),
        },
    ]
}

/// The 5-point matrix of cupy_ref.py's `poisson2d(n)`: flat offsets 0, ±1, ±n (the ±1
/// diagonals run across grid rows, as there).
pub(crate) fn poisson2d<T: cusci::core::Float>(
    n: usize,
    dev: &Device,
) -> BenchResult<CsrMatrix<T>> {
    let nn = n * n;
    let four = T::from_c64(cusci::c64::new(4.0, 0.0));
    let m1 = T::from_c64(cusci::c64::new(-1.0, 0.0));
    let main = vec![four; nn];
    let off1 = vec![m1; nn - 1];
    let offn = vec![m1; nn - n];
    Ok(diags(
        &[&main, &off1, &off1, &offn, &offn],
        &[0, -1, 1, -(n as isize), n as isize],
        None,
        dev,
    )?)
}

/// Row `i` of poisson2d(n) times x, from the stencil.
pub(crate) fn stencil(n: usize, x: &dyn Fn(usize) -> f64, i: usize) -> f64 {
    let nn = n * n;
    let mut s = 4.0 * x(i);
    if i >= 1 {
        s -= x(i - 1);
    }
    if i + 1 < nn {
        s -= x(i + 1);
    }
    if i >= n {
        s -= x(i - n);
    }
    if i + n < nn {
        s -= x(i + n);
    }
    s
}

fn close(what: &str, got: f64, want: f64, rtol: f64) -> BenchResult<()> {
    if (got - want).abs() > rtol * (1.0 + want.abs()) {
        return Err(format!("{what}: {got:e}, expected {want:e}").into());
    }
    Ok(())
}

// ---------------- SpMV: y = A x ----------------

struct Spmv {
    a: CsrMatrix<f64>,
    x: Array<f64>,
}

fn spmv(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    let a = poisson2d::<f64>(4096, dev)?;
    let x = Generator::new(1).standard_normal::<f64>(&[a.shape().1], dev)?;
    Ok(Box::new(Spmv { a, x }))
}

impl Bench for Spmv {
    fn check(&mut self) -> BenchResult<()> {
        let n = 4096usize;
        let y = self.a.dot(&self.x)?;
        for start in [0, n * n / 2 - 777, n * n - 5000] {
            let lo = start.saturating_sub(n);
            let xs = host_range(&self.x, lo, 5000 + 2 * n)?;
            let ys = host_range(&y, start, 5000)?;
            let xf = |i: usize| xs[i - lo];
            for (k, &v) in ys.iter().enumerate() {
                close("spmv", v, stencil(n, &xf, start + k), 1e-13)?;
            }
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        self.a.dot(&self.x).map(drop)
    }
}

// ---------------- SpMM: Y = A X ----------------

struct Spmm {
    a: CsrMatrix<f32>,
    x: Array<f32>,
}

fn spmm(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    let a = poisson2d::<f32>(2048, dev)?;
    let x = Generator::new(2).standard_normal::<f32>(&[a.shape().1, 64], dev)?;
    Ok(Box::new(Spmm { a, x }))
}

impl Bench for Spmm {
    fn check(&mut self) -> BenchResult<()> {
        let (n, k) = (2048usize, 64usize);
        let y = self.a.dot(&self.x)?.reshape(&[-1])?;
        let xf = self.x.reshape(&[-1])?;
        for row in [0, n * n / 2 + 3, n * n - 300] {
            let lo = row.saturating_sub(n);
            let hi = (row + 300 + n).min(n * n);
            let xs = host_range(&xf, lo * k, (hi - lo) * k)?;
            let ys = host_range(&y, row * k, 300 * k)?;
            for (t, &v) in ys.iter().enumerate() {
                let (r, c) = (row + t / k, t % k);
                let xc = |i: usize| xs[(i - lo) * k + c] as f64;
                close("spmm", v as f64, stencil(n, &xc, r), 1e-5)?;
            }
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        self.a.dot(&self.x).map(drop)
    }
}

// ---------------- CG, 200 iterations ----------------

struct Cg {
    a: CsrMatrix<f64>,
    b: Array<f64>,
}

fn cg_case(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    let a = poisson2d::<f64>(1024, dev)?;
    let b = Generator::new(3).standard_normal::<f64>(&[a.shape().0], dev)?;
    Ok(Box::new(Cg { a, b }))
}

fn cg_opts() -> SolverOptions<'static, f64> {
    SolverOptions {
        rtol: 0.0,
        atol: 0.0,
        maxiter: Some(200),
        ..Default::default()
    }
}

impl Bench for Cg {
    fn check(&mut self) -> BenchResult<()> {
        let s = cg(&self.a, &self.b, &cg_opts())?;
        if s.info != 200 || s.iterations != 200 {
            return Err(format!("info {} after {} iterations", s.info, s.iterations).into());
        }
        // the CPU reference runs the same iteration
        let cpu = cg(
            &self.a.to_device(&Device::Cpu)?,
            &self.b.to_device(&Device::Cpu)?,
            &cg_opts(),
        )?;
        let g = s.x.to_vec()?;
        let c = cpu.x.to_vec()?;
        let (mut num, mut den) = (0.0f64, 0.0f64);
        for (u, v) in g.iter().zip(&c) {
            num += (u - v) * (u - v);
            den += v * v;
        }
        let rel = (num / den).sqrt();
        if rel.is_nan() || rel > 1e-8 {
            return Err(format!("x differs from the CPU's by {rel:e} (norm-wise)").into());
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        cg(&self.a, &self.b, &cg_opts()).map(drop)
    }
}

// ---------------- COO -> CSR, 5e7 entries with duplicates ----------------

struct CooToCsr {
    rows: Array<i32>,
    cols: Array<i32>,
    vals: Array<f64>,
    n: usize,
}

fn coo_to_csr(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    let (n, nnz) = (1usize << 22, 50_000_000usize);
    let mut g = Generator::new(4);
    let rows = g.integers(0, n as i64, &[nnz], dev)?.astype::<i32>()?;
    let cols = g.integers(0, n as i64, &[nnz], dev)?.astype::<i32>()?;
    let vals = g.standard_normal::<f64>(&[nnz], dev)?;
    Ok(Box::new(CooToCsr {
        rows,
        cols,
        vals,
        n,
    }))
}

impl CooToCsr {
    fn convert(&self) -> cusci::Result<CsrMatrix<f64>> {
        CooMatrix::new(
            self.vals.clone(),
            self.rows.clone(),
            self.cols.clone(),
            (self.n, self.n),
        )?
        .tocsr()
    }
}

impl Bench for CooToCsr {
    fn check(&mut self) -> BenchResult<()> {
        let got = self.convert()?;
        let cpu = CooMatrix::new(
            self.vals.to_device(&Device::Cpu)?,
            self.rows.to_device(&Device::Cpu)?,
            self.cols.to_device(&Device::Cpu)?,
            (self.n, self.n),
        )?
        .tocsr()?;
        // duplicates are summed in the same order on both devices: the same bits
        if got.indptr().to_vec()? != cpu.indptr().to_vec()? {
            return Err("indptr differs from the CPU's".into());
        }
        if got.indices().to_vec()? != cpu.indices().to_vec()? {
            return Err("indices differ from the CPU's".into());
        }
        let (gd, cd) = (got.data().to_vec()?, cpu.data().to_vec()?);
        if let Some(i) = gd
            .iter()
            .zip(&cd)
            .position(|(a, b)| a.to_bits() != b.to_bits())
        {
            return Err(format!("data[{i}] = {:e}, expected {:e}", gd[i], cd[i]).into());
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        self.convert().map(drop)
    }
}

// ---------------- CSR transpose: A.T.tocsr() ----------------

struct Transpose {
    a: CsrMatrix<f64>,
}

fn transpose(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(Transpose {
        a: poisson2d::<f64>(4096, dev)?,
    }))
}

impl Bench for Transpose {
    fn check(&mut self) -> BenchResult<()> {
        // the matrix is symmetric: its transpose has the same arrays
        let t = self.a.transpose().tocsr()?;
        if t.indptr().to_vec()? != self.a.indptr().to_vec()?
            || t.indices().to_vec()? != self.a.indices().to_vec()?
            || t.data().to_vec()? != self.a.data().to_vec()?
        {
            return Err("A.T differs from A for the symmetric Poisson matrix".into());
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        self.a.transpose().tocsr().map(drop)
    }
}

// ---------------- splu (COLAMD, partial pivoting) of the Poisson matrix ----------------

struct Splu {
    a: CsrMatrix<f64>,
    b: Array<f64>,
}

fn splu_case(n: usize, dev: &Device) -> BenchResult<Box<dyn Bench>> {
    let a = poisson2d::<f64>(n, dev)?;
    let b = Generator::new(3).standard_normal::<f64>(&[a.shape().0], dev)?;
    Ok(Box::new(Splu { a, b }))
}

impl Bench for Splu {
    /// The solve's relative residual, and the factor's size against the CPU twin's.
    fn check(&mut self) -> BenchResult<()> {
        let lu = splu(&self.a)?;
        let x = lu.solve(&self.b)?;
        let r = self.a.dot(&x)?.to_vec()?;
        let b = self.b.to_vec()?;
        let (mut num, mut den) = (0.0f64, 0.0f64);
        for (u, v) in r.iter().zip(&b) {
            num += (u - v) * (u - v);
            den += v * v;
        }
        let rel = (num / den).sqrt();
        if rel.is_nan() || rel > 1e-12 {
            return Err(format!("relative residual {rel:e}").into());
        }
        // the same factorisation size as the CPU twin (within 1%: the dense block's rounding
        // may turn a few entries into exact zeros on one device only)
        let cpu = splu(&self.a.to_device(&Device::Cpu)?)?;
        if cpu.dense_columns() != lu.dense_columns()
            || cpu.nnz().abs_diff(lu.nnz()) * 100 > cpu.nnz()
        {
            return Err(format!(
                "{} entries in the factors ({} dense columns), the CPU's have {} ({})",
                lu.nnz(),
                lu.dense_columns(),
                cpu.nnz(),
                cpu.dense_columns()
            )
            .into());
        }
        Ok(())
    }
    fn run(&mut self) -> cusci::Result<()> {
        splu(&self.a).map(drop)
    }
}
