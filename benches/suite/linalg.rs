//! The `linalg.*` cases of CASES.md (see `cupy_ref.py` for CuPy's side of each).
//!
//! Each check verifies one call through an identity applied to a random vector on the device
//! (`C·x = A·(B·x)`, `A·x̂ = b`, `L·(Lᵀ·x) = A·x`, ...), so that no 8192² matrix goes to the host;
//! the batched solve is compared with the CPU on its first systems.

use crate::{Bench, BenchResult, Case};
use cusci::core::random::Generator;
use cusci::core::{Element, RealFloat};
use cusci::linalg::{self as la, LuFactorOptions, QrMode, SvdOptions};
use cusci::{Array, Device};

const F64: u64 = 8;
const F32: u64 = 4;

/// The linalg cases, with bytes, flops and repeats as in cupy_ref.py.
pub fn cases() -> Vec<Case> {
    let n8 = 8192u64;
    let n4 = 4096u64;
    vec![
        Case {
            name: "linalg.matmul_f64_8192",
            bytes: 3 * n8 * n8 * F64,
            flops: 2 * n8 * n8 * n8,
            n_repeat: 10,
            setup: matmul_f64,
        },
        Case {
            name: "linalg.matmul_f32_8192",
            bytes: 3 * n8 * n8 * F32,
            flops: 2 * n8 * n8 * n8,
            n_repeat: 10,
            setup: matmul_f32,
        },
        Case {
            name: "linalg.solve_f64_8192",
            bytes: n8 * n8 * F64,
            flops: 2 * n8 * n8 * n8 / 3,
            n_repeat: 10,
            setup: solve_f64,
        },
        Case {
            name: "linalg.cholesky_f64_8192",
            bytes: n8 * n8 * F64,
            flops: n8 * n8 * n8 / 3,
            n_repeat: 10,
            setup: cholesky_f64,
        },
        Case {
            name: "linalg.qr_f64_4096",
            bytes: n4 * n4 * F64,
            flops: 4 * n4 * n4 * n4 / 3,
            n_repeat: 5,
            setup: qr_f64,
        },
        Case {
            name: "linalg.svd_f32_4096",
            bytes: n4 * n4 * F32,
            flops: 0,
            n_repeat: 3,
            setup: svd_f32,
        },
        Case {
            name: "linalg.eigh_f64_4096",
            bytes: n4 * n4 * F64,
            flops: 0,
            n_repeat: 3,
            setup: eigh_f64,
        },
        Case {
            name: "linalg.inv_f64_4096",
            bytes: n4 * n4 * F64,
            flops: 2 * n4 * n4 * n4,
            n_repeat: 5,
            setup: inv_f64,
        },
        Case {
            name: "linalg.lu_factor_f64_8192",
            bytes: n8 * n8 * F64,
            flops: 2 * n8 * n8 * n8 / 3,
            n_repeat: 5,
            setup: lu_factor_f64,
        },
        Case {
            name: "linalg.batched_solve_f32_65536x8x8",
            bytes: 65536 * 72 * F32,
            flops: 0,
            n_repeat: 20,
            setup: batched_solve_f32,
        },
    ]
}

fn randn<T: RealFloat>(shape: &[usize], seed: u64, dev: &Device) -> BenchResult<Array<T>> {
    Ok(Generator::new(seed).standard_normal::<T>(shape, dev)?)
}

/// `max |x - y| / max(max |y|, tiny)` on the host (small vectors only).
fn rel_err<T: Element>(x: &Array<T>, y: &Array<T>) -> BenchResult<f64> {
    let (x, y) = (x.to_vec()?, y.to_vec()?);
    let scale = y.iter().map(|v| v.to_c64().norm()).fold(1e-300, f64::max);
    Ok(x.iter()
        .zip(&y)
        .map(|(a, b)| (a.to_c64() - b.to_c64()).norm())
        .fold(0.0, f64::max)
        / scale)
}

fn expect(what: &str, err: f64, tol: f64) -> BenchResult<()> {
    if err.is_finite() && err <= tol {
        Ok(())
    } else {
        Err(format!("{what}: relative error {err:e} above {tol:e}").into())
    }
}

// ---------------- matmul ----------------

struct Matmul<T: Element> {
    a: Array<T>,
    b: Array<T>,
    tol: f64,
}

fn matmul_f64(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(Matmul::<f64> {
        a: randn(&[8192, 8192], 1, dev)?,
        b: randn(&[8192, 8192], 2, dev)?,
        tol: 1e-11,
    }))
}
fn matmul_f32(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(Matmul::<f32> {
        a: randn(&[8192, 8192], 1, dev)?,
        b: randn(&[8192, 8192], 2, dev)?,
        tol: 2e-3,
    }))
}

macro_rules! matmul_bench {
    ($t:ty) => {
        impl Bench for Matmul<$t> {
            fn check(&mut self) -> BenchResult<()> {
                let c = la::matmul(&self.a, &self.b)?;
                let x = randn::<$t>(&[8192, 1], 3, self.a.device())?;
                let lhs = la::matmul(&c, &x)?;
                let rhs = la::matmul(&self.a, &la::matmul(&self.b, &x)?)?;
                expect("C·x = A·(B·x)", rel_err(&lhs, &rhs)?, self.tol)
            }
            fn run(&mut self) -> cusci::Result<()> {
                la::matmul(&self.a, &self.b).map(drop)
            }
        }
    };
}
matmul_bench!(f32);
matmul_bench!(f64);

// ---------------- solve ----------------

struct Solve {
    a: Array<f64>,
    b: Array<f64>,
}

fn solve_f64(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(Solve {
        a: randn(&[8192, 8192], 4, dev)?,
        b: randn(&[8192, 16], 5, dev)?,
    }))
}

impl Bench for Solve {
    fn check(&mut self) -> BenchResult<()> {
        let x = la::solve(&self.a, &self.b)?;
        // random matrices of this size have cond ~ 1e5
        expect(
            "A·x = b",
            rel_err(&la::matmul(&self.a, &x)?, &self.b)?,
            1e-6,
        )
    }
    fn run(&mut self) -> cusci::Result<()> {
        la::solve(&self.a, &self.b).map(drop)
    }
}

// ---------------- cholesky ----------------

struct Chol {
    a: Array<f64>,
}

fn spd(n: usize, seed: u64, dev: &Device) -> BenchResult<Array<f64>> {
    let m = randn::<f64>(&[n, n], seed, dev)?;
    let mmt = la::matmul(&m, &m.t())?;
    Ok(mmt.add(&Array::<f64>::eye(n, None, 0, dev)?.mul_scalar(n as f64)?)?)
}

fn cholesky_f64(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(Chol {
        a: spd(8192, 6, dev)?,
    }))
}

impl Bench for Chol {
    fn check(&mut self) -> BenchResult<()> {
        let l = la::cholesky(&self.a)?;
        let x = randn::<f64>(&[8192, 1], 7, self.a.device())?;
        let lhs = la::matmul(&l, &la::matmul(&l.t(), &x)?)?;
        expect(
            "L·(Lᵀ·x) = A·x",
            rel_err(&lhs, &la::matmul(&self.a, &x)?)?,
            1e-12,
        )
    }
    fn run(&mut self) -> cusci::Result<()> {
        la::cholesky(&self.a).map(drop)
    }
}

// ---------------- qr ----------------

struct QrB {
    a: Array<f64>,
}

fn qr_f64(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(QrB {
        a: randn(&[4096, 4096], 8, dev)?,
    }))
}

impl Bench for QrB {
    fn check(&mut self) -> BenchResult<()> {
        let f = la::qr(&self.a, QrMode::Reduced)?;
        let q = f.q.ok_or("no q")?;
        let x = randn::<f64>(&[4096, 1], 9, self.a.device())?;
        let lhs = la::matmul(&q, &la::matmul(&f.r, &x)?)?;
        expect(
            "Q·(R·x) = A·x",
            rel_err(&lhs, &la::matmul(&self.a, &x)?)?,
            1e-11,
        )?;
        let qx = la::matmul(&q, &x)?;
        expect("|Q·x| = |x|", (qx.norm()? / x.norm()? - 1.0).abs(), 1e-11)
    }
    fn run(&mut self) -> cusci::Result<()> {
        la::qr(&self.a, QrMode::Reduced).map(drop)
    }
}

// ---------------- svd ----------------

struct SvdB {
    a: Array<f32>,
}

fn svd_f32(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(SvdB {
        a: randn(&[4096, 4096], 10, dev)?,
    }))
}

impl Bench for SvdB {
    fn check(&mut self) -> BenchResult<()> {
        let r = la::svd(&self.a, SvdOptions::default())?;
        let (u, vh) = (r.u.ok_or("no u")?, r.vh.ok_or("no vh")?);
        let x = randn::<f32>(&[4096, 1], 11, self.a.device())?;
        let s = r.s.reshape(&[-1, 1])?;
        let lhs = la::matmul(&u, &s.mul(&la::matmul(&vh, &x)?)?)?;
        expect(
            "U·(S·(Vᴴ·x)) = A·x",
            rel_err(&lhs, &la::matmul(&self.a, &x)?)?,
            1e-3,
        )
    }
    fn run(&mut self) -> cusci::Result<()> {
        la::svd(&self.a, SvdOptions::default()).map(drop)
    }
}

// ---------------- eigh ----------------

struct Eigh {
    a: Array<f64>,
}

fn eigh_f64(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    let m = randn::<f64>(&[4096, 4096], 12, dev)?;
    Ok(Box::new(Eigh { a: m.add(&m.t())? }))
}

impl Bench for Eigh {
    fn check(&mut self) -> BenchResult<()> {
        let (w, v) = la::eigh(&self.a, true)?;
        let x = randn::<f64>(&[4096, 1], 13, self.a.device())?;
        // A·(V·x) = V·(Λ·x)
        let lhs = la::matmul(&self.a, &la::matmul(&v, &x)?)?;
        let rhs = la::matmul(&v, &w.reshape(&[-1, 1])?.mul(&x)?)?;
        expect("A·V·x = V·Λ·x", rel_err(&lhs, &rhs)?, 1e-10)
    }
    fn run(&mut self) -> cusci::Result<()> {
        la::eigh(&self.a, true).map(drop)
    }
}

// ---------------- inv ----------------

struct Inv {
    a: Array<f64>,
}

fn inv_f64(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(Inv {
        a: randn(&[4096, 4096], 14, dev)?,
    }))
}

impl Bench for Inv {
    fn check(&mut self) -> BenchResult<()> {
        let ai = la::inv(&self.a)?;
        let x = randn::<f64>(&[4096, 1], 15, self.a.device())?;
        expect(
            "A·(A⁻¹·x) = x",
            rel_err(&la::matmul(&self.a, &la::matmul(&ai, &x)?)?, &x)?,
            1e-7,
        )
    }
    fn run(&mut self) -> cusci::Result<()> {
        la::inv(&self.a).map(drop)
    }
}

// ---------------- lu_factor ----------------

struct LuF {
    a: Array<f64>,
}

fn lu_factor_f64(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    Ok(Box::new(LuF {
        a: randn(&[8192, 8192], 16, dev)?,
    }))
}

const NO_CHECK: LuFactorOptions = LuFactorOptions {
    check_finite: false,
};

impl Bench for LuF {
    fn check(&mut self) -> BenchResult<()> {
        let f = la::lu_factor(&self.a, NO_CHECK)?;
        let b = randn::<f64>(&[8192, 1], 17, self.a.device())?;
        let x = la::lu_solve(&f, &b, 0)?;
        expect(
            "A·lu_solve(b) = b",
            rel_err(&la::matmul(&self.a, &x)?, &b)?,
            1e-6,
        )
    }
    fn run(&mut self) -> cusci::Result<()> {
        la::lu_factor(&self.a, NO_CHECK).map(drop)
    }
}

// ---------------- batched solve ----------------

struct Batched {
    a: Array<f32>,
    b: Array<f32>,
}

fn batched_solve_f32(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    let a = randn::<f32>(&[65536, 8, 8], 18, dev)?
        .add(&Array::<f32>::eye(8, None, 0, dev)?.mul_scalar(8.0)?)?;
    Ok(Box::new(Batched {
        a,
        b: randn(&[65536, 8, 1], 19, dev)?,
    }))
}

impl Bench for Batched {
    fn check(&mut self) -> BenchResult<()> {
        let x = la::solve(&self.a, &self.b)?;
        let first = |v: &Array<f32>| v.slice_axis(0, Some(0), Some(256), 1);
        let (a, b) = (
            first(&self.a)?.to_device(&Device::Cpu)?,
            first(&self.b)?.to_device(&Device::Cpu)?,
        );
        let want = la::solve(&a, &b)?;
        expect(
            "first 256 systems against the CPU",
            rel_err(&first(&x)?.to_device(&Device::Cpu)?, &want)?,
            1e-4,
        )
    }
    fn run(&mut self) -> cusci::Result<()> {
        la::solve(&self.a, &self.b).map(drop)
    }
}
