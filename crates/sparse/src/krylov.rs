//! The engine shared by the device solvers (`bicgstab`, `cgs`): a solver is written once as a
//! sequence of vector and scalar steps on numbered vectors and numbered scalar slots; the engine
//! runs each step on the CPU (host vectors) or on a GPU (device vectors, scalars in a device
//! array, this crate's gated kernels). A status word (`flag`, iteration) ends the iteration: once
//! it is set every later step does nothing, on both devices, so reading it every
//! [`POLL`](crate::linalg::POLL) iterations on a GPU gives the same result as testing after every
//! step (SciPy's loops), with no host synchronisation in between.

use crate::cpu;
use crate::cuda::{blocks, launch, module_source, p, NT};
use crate::linalg::{LinearOperator, POLL};
use cusci_core::cuda::kernel::Args;
use cusci_core::{Array, CudaDevice, DType, Device, Float, RealFloat, Result};

/// Status codes (SciPy's `info` of a breakdown is the negative code).
pub(crate) const CONVERGED: i32 = 1;
pub(crate) const BREAKDOWN_RHO: i32 = 10;
pub(crate) const BREAKDOWN_OMEGA: i32 = 11;

/// Scalar operations: `s[dst] = s[a] op s[b]`.
#[derive(Clone, Copy)]
pub(crate) enum Sc {
    Mul = 0,
    Div = 1,
    Copy = 4,
}

#[allow(clippy::large_enum_variant)] // one per solve
enum Store<T: Float> {
    Cpu {
        v: Vec<Vec<T>>,
        s: Vec<T>,
        /// [status, at] of the outer gate, then of the inner gate
        flags: [i32; 4],
    },
    Cuda {
        d: CudaDevice,
        v: Vec<Array<T>>,
        st: Array<T>,
        ist: Array<i32>,
        parts: Array<T>,
    },
}

pub(crate) struct Engine<T: Float> {
    store: Store<T>,
    /// The status word that gates the steps: 0 the solver's (outer), 1 an inner one (gmres'
    /// Arnoldi cycle), which the solver resets itself.
    gate: usize,
}

impl<T: Float> Engine<T> {
    /// `nvec` zero vectors of length `n` and `nscal` scalar slots on `dev`.
    pub(crate) fn new(dev: &Device, n: usize, nvec: usize, nscal: usize) -> Result<Self> {
        Self::with_lens(dev, &vec![n; nvec], nscal)
    }

    /// Zero vectors of the lengths `lens` (vector `i` has `lens[i]` entries; the steps between
    /// two vectors need equal lengths) and `nscal` scalar slots on `dev`.
    pub(crate) fn with_lens(dev: &Device, lens: &[usize], nscal: usize) -> Result<Self> {
        let n = lens.iter().copied().max().unwrap_or(0);
        let store = match dev {
            Device::Cpu => Store::Cpu {
                v: lens.iter().map(|&l| vec![T::zero(); l]).collect(),
                s: vec![T::zero(); nscal],
                flags: [0; 4],
            },
            Device::Cuda(d) => {
                let g = blocks(d, n).max(1) as usize;
                let mut v = Vec::with_capacity(lens.len());
                for &l in lens {
                    v.push(Array::<T>::zeros(&[l], dev)?);
                }
                Store::Cuda {
                    d: d.clone(),
                    v,
                    st: Array::<T>::zeros(&[nscal], dev)?,
                    ist: Array::<i32>::zeros(&[4], dev)?,
                    parts: Array::<T>::empty(&[g], dev)?,
                }
            }
        };
        Ok(Engine { store, gate: 0 })
    }

    fn cpu_live(&self) -> bool {
        match &self.store {
            Store::Cpu { flags, .. } => flags[2 * self.gate] == 0,
            Store::Cuda { .. } => true,
        }
    }

    /// The device address of the gating status word (0 on the CPU).
    fn gp(&self) -> u64 {
        match &self.store {
            Store::Cuda { ist, .. } => p(ist) + 8 * self.gate as u64,
            Store::Cpu { .. } => 0,
        }
    }

    /// Selects the status word that gates the following steps (0 outer, 1 inner).
    pub(crate) fn set_gate(&mut self, gate: usize) {
        self.gate = gate;
    }

    /// Vector `i` = `a` (a copy; not gated).
    pub(crate) fn load(&mut self, i: usize, a: &Array<T>) -> Result<()> {
        match &mut self.store {
            Store::Cpu { v, .. } => v[i] = a.to_vec()?,
            Store::Cuda { v, .. } => v[i] = a.contiguous()?.copy()?,
        }
        Ok(())
    }

    /// Vector `i` as an array.
    pub(crate) fn get(&self, i: usize) -> Result<Array<T>> {
        match &self.store {
            Store::Cpu { v, .. } => Array::from_vec(v[i].clone(), &[v[i].len()], &Device::Cpu),
            Store::Cuda { v, .. } => Ok(v[i].clone()),
        }
    }

    /// Vector `dst` = `op(vector src)`. On a GPU the product runs even after the flag is set
    /// (its result is then unused).
    pub(crate) fn apply(
        &mut self,
        op: &dyn LinearOperator<T>,
        src: usize,
        dst: usize,
    ) -> Result<()> {
        match &mut self.store {
            Store::Cpu { v, flags, .. } => {
                if flags[2 * self.gate] != 0 {
                    return Ok(());
                }
                let x = Array::from_vec(v[src].clone(), &[v[src].len()], &Device::Cpu)?;
                v[dst] = op.matvec(&x)?.to_vec()?;
            }
            Store::Cuda { v, .. } => {
                let y = op.matvec(&v[src])?.contiguous()?;
                v[dst] = y;
            }
        }
        Ok(())
    }

    /// Vector `dst` = `op^H(vector src)` (the operator's `rmatvec`; on a GPU it runs even after
    /// the flag is set, as [`Engine::apply`]).
    pub(crate) fn rapply(
        &mut self,
        op: &dyn LinearOperator<T>,
        src: usize,
        dst: usize,
    ) -> Result<()> {
        match &mut self.store {
            Store::Cpu { v, flags, .. } => {
                if flags[2 * self.gate] != 0 {
                    return Ok(());
                }
                let x = Array::from_vec(v[src].clone(), &[v[src].len()], &Device::Cpu)?;
                v[dst] = op.rmatvec(&x)?.to_vec()?;
            }
            Store::Cuda { v, .. } => {
                let y = op.rmatvec(&v[src])?.contiguous()?;
                v[dst] = y;
            }
        }
        Ok(())
    }

    /// Vector `dst` = `M(vector src)`, or a copy without a preconditioner.
    pub(crate) fn precond(
        &mut self,
        m: Option<&dyn LinearOperator<T>>,
        src: usize,
        dst: usize,
    ) -> Result<()> {
        match m {
            Some(m) => self.apply(m, src, dst),
            None => self.copy(dst, src),
        }
    }

    /// Scalar `slot` = `x^H y`.
    pub(crate) fn dot(&mut self, x: usize, y: usize, slot: usize) -> Result<()> {
        let live = self.cpu_live();
        let gp = self.gp();
        match &mut self.store {
            Store::Cpu { v, s, .. } => {
                if live {
                    s[slot] = cpu::vdot(&v[x], &v[y]);
                }
            }
            Store::Cuda {
                d, v, st, parts, ..
            } => {
                let g = parts.len();
                launch::<T>(
                    d,
                    "sp_dot_partial",
                    g as u32,
                    Args::new()
                        .push(p(&v[x]))
                        .push(p(&v[y]))
                        .push(v[x].len() as i64)
                        .push(p(parts)),
                )?;
                launch::<T>(
                    d,
                    "sp_dot_store",
                    1,
                    Args::new()
                        .push(p(parts))
                        .push(g as i32)
                        .push(p(st))
                        .push(gp)
                        .push(slot as i32),
                )?;
            }
        }
        Ok(())
    }

    /// Scalar `dst` = `s[a] op s[b]`.
    pub(crate) fn scalar(&mut self, op: Sc, dst: usize, a: usize, b: usize) -> Result<()> {
        let live = self.cpu_live();
        let gp = self.gp();
        match &mut self.store {
            Store::Cpu { s, .. } => {
                if live {
                    s[dst] = match op {
                        Sc::Mul => s[a].mul(s[b]),
                        Sc::Div => s[a].div(s[b]),
                        Sc::Copy => s[a],
                    };
                }
            }
            Store::Cuda { d, st, .. } => launch::<T>(
                d,
                "sp_scalar",
                1,
                Args::new()
                    .push(p(st))
                    .push(gp)
                    .push(op as i32)
                    .push(dst as i32)
                    .push(a as i32)
                    .push(b as i32),
            )?,
        }
        Ok(())
    }

    /// Sets the status to `code` at iteration `it` when `|s[slot]|` (its square root when
    /// `take_sqrt`: `slot` holds a squared norm) is below `tol`.
    pub(crate) fn check(
        &mut self,
        slot: usize,
        tol: f64,
        take_sqrt: bool,
        code: i32,
        it: usize,
    ) -> Result<()> {
        let gp = self.gp();
        match &mut self.store {
            Store::Cpu { s, flags, .. } => {
                let g = 2 * self.gate;
                if flags[g] == 0 {
                    let mut x = s[slot].abs().to_f64();
                    if take_sqrt {
                        x = x.sqrt();
                    }
                    if x < tol {
                        flags[g] = code;
                        flags[g + 1] = it as i32;
                    }
                }
            }
            Store::Cuda { d, st, .. } => launch::<T>(
                d,
                "sp_check",
                1,
                Args::new()
                    .push(p(st))
                    .push(gp)
                    .push(slot as i32)
                    .push(tol)
                    .push(take_sqrt as i32)
                    .push(code)
                    .push(it as i32),
            )?,
        }
        Ok(())
    }

    /// Vector `y` += `coef · s[slot]` · vector `x` (`coef` alone when `slot` is `None`).
    pub(crate) fn axpy(&mut self, y: usize, x: usize, slot: Option<usize>, coef: T) -> Result<()> {
        let live = self.cpu_live();
        let gp = self.gp();
        match &mut self.store {
            Store::Cpu { v, s, .. } => {
                if live {
                    let c = match slot {
                        Some(k) => coef.mul(s[k]),
                        None => coef,
                    };
                    let xv = v[x].clone();
                    for (yi, xi) in v[y].iter_mut().zip(xv) {
                        *yi = yi.add(c.mul(xi));
                    }
                }
            }
            Store::Cuda { d, v, st, .. } => launch::<T>(
                d,
                "sp_axpy",
                blocks(d, v[y].len()),
                Args::new()
                    .push(p(&v[y]))
                    .push(p(&v[x]))
                    .push(v[y].len() as i64)
                    .push(p(st))
                    .push(gp)
                    .push(slot.map_or(-1, |k| k as i32))
                    .push(coef),
            )?,
        }
        Ok(())
    }

    /// Vector `y` = `s[slot]` · vector `y`.
    pub(crate) fn scal(&mut self, y: usize, slot: usize) -> Result<()> {
        let live = self.cpu_live();
        let gp = self.gp();
        match &mut self.store {
            Store::Cpu { v, s, .. } => {
                if live {
                    let c = s[slot];
                    for yi in v[y].iter_mut() {
                        *yi = c.mul(*yi);
                    }
                }
            }
            Store::Cuda { d, v, st, .. } => launch::<T>(
                d,
                "sp_scal",
                blocks(d, v[y].len()),
                Args::new()
                    .push(p(&v[y]))
                    .push(v[y].len() as i64)
                    .push(p(st))
                    .push(gp)
                    .push(slot as i32),
            )?,
        }
        Ok(())
    }

    fn binary(&mut self, kernel: &str, out: usize, a: usize, b: usize, sign: f64) -> Result<()> {
        let live = self.cpu_live();
        let gp = self.gp();
        match &mut self.store {
            Store::Cpu { v, .. } => {
                if live {
                    let r: Vec<T> = v[a]
                        .iter()
                        .zip(&v[b])
                        .map(|(&x, &y)| if sign < 0.0 { x.sub(y) } else { x.add(y) })
                        .collect();
                    v[out] = r;
                }
            }
            Store::Cuda { d, v, .. } => launch::<T>(
                d,
                kernel,
                blocks(d, v[out].len()),
                Args::new()
                    .push(p(&v[a]))
                    .push(p(&v[b]))
                    .push(p(&v[out]))
                    .push(v[out].len() as i64)
                    .push(gp),
            )?,
        }
        Ok(())
    }

    /// Vector `out` = vector `a` − vector `b` (`out` may be `a` or `b`).
    pub(crate) fn sub(&mut self, out: usize, a: usize, b: usize) -> Result<()> {
        self.binary("sp_sub_g", out, a, b, -1.0)
    }

    /// Vector `out` = vector `a` + vector `b`.
    pub(crate) fn add(&mut self, out: usize, a: usize, b: usize) -> Result<()> {
        self.binary("sp_add_g", out, a, b, 1.0)
    }

    /// Vector `dst` = vector `src`.
    pub(crate) fn copy(&mut self, dst: usize, src: usize) -> Result<()> {
        let live = self.cpu_live();
        let gp = self.gp();
        match &mut self.store {
            Store::Cpu { v, .. } => {
                if live {
                    v[dst] = v[src].clone();
                }
            }
            Store::Cuda { d, v, .. } => launch::<T>(
                d,
                "sp_copy_g",
                blocks(d, v[dst].len()),
                Args::new()
                    .push(p(&v[src]))
                    .push(p(&v[dst]))
                    .push(v[dst].len() as i64)
                    .push(gp),
            )?,
        }
        Ok(())
    }

    /// True when the status is set, read after iteration `it` (1-based count of iterations
    /// done): on the CPU every time, on a GPU every [`POLL`] iterations (else false).
    pub(crate) fn poll(&self, it: usize) -> Result<bool> {
        match &self.store {
            Store::Cpu { flags, .. } => Ok(flags[0] != 0),
            Store::Cuda { ist, .. } => {
                if it % POLL == 0 {
                    Ok(ist.to_vec()?[0] != 0)
                } else {
                    Ok(false)
                }
            }
        }
    }

    /// Scalar `slot` = `v` (not gated).
    pub(crate) fn set_scalar(&mut self, slot: usize, v: T) -> Result<()> {
        match &mut self.store {
            Store::Cpu { s, .. } => s[slot] = v,
            Store::Cuda { d, st, ist, .. } => launch::<T>(
                d,
                "sp_set_scalar",
                1,
                Args::new()
                    .push(p(st))
                    .push(p(ist))
                    .push(slot as i32)
                    .push(v),
            )?,
        }
        Ok(())
    }

    /// A solver-specific scalar step: the single-thread kernel `kernel(st, ist, ints.., reals..)`
    /// on a GPU, `cpu(scalars, status words)` on the CPU (the same computation; both do their
    /// own gating).
    pub(crate) fn custom(
        &mut self,
        kernel: &str,
        ints: &[i32],
        reals: &[f64],
        cpu: impl FnOnce(&mut [T], &mut [i32; 4]),
    ) -> Result<()> {
        match &mut self.store {
            Store::Cpu { s, flags, .. } => cpu(s, flags),
            Store::Cuda { d, st, ist, .. } => {
                let mut a = Args::new();
                a.push(p(st)).push(p(ist));
                for &i in ints {
                    a.push(i);
                }
                for &r in reals {
                    a.push(r);
                }
                launch::<T>(d, kernel, 1, &mut a)?;
            }
        }
        Ok(())
    }

    /// As [`Engine::custom`], with the kernel taken from this crate's solver module
    /// (`cuda/solvers.cu`: minres, lsqr, lsmr).
    pub(crate) fn step(
        &mut self,
        kernel: &str,
        ints: &[i32],
        reals: &[f64],
        cpu: impl FnOnce(&mut [T], &mut [i32; 4]),
    ) -> Result<()> {
        match &mut self.store {
            Store::Cpu { s, flags, .. } => cpu(s, flags),
            Store::Cuda { d, st, ist, .. } => {
                let mut a = Args::new();
                a.push(p(st)).push(p(ist));
                for &i in ints {
                    a.push(i);
                }
                for &r in reals {
                    a.push(r);
                }
                launch_solver::<T>(d, kernel, 1, &mut a)?;
            }
        }
        Ok(())
    }

    /// The scalar slots on the host (a read of the device on a GPU).
    pub(crate) fn scalars_t(&self) -> Result<Vec<T>> {
        match &self.store {
            Store::Cpu { s, .. } => Ok(s.clone()),
            Store::Cuda { st, .. } => st.to_vec(),
        }
    }

    /// Vector `i` written as column `c` of the row-major (n, k) array `dst` (on its device).
    pub(crate) fn put_col(&self, i: usize, dst: &mut Array<T>, c: usize) -> Result<()> {
        let (n, k) = (dst.shape()[0], dst.shape()[1]);
        match &self.store {
            Store::Cpu { v, .. } => {
                let mut d = dst.to_vec()?;
                for r in 0..n {
                    d[r * k + c] = v[i][r];
                }
                *dst = Array::from_vec(d, &[n, k], &Device::Cpu)?;
            }
            Store::Cuda { d, v, .. } => launch_solver::<T>(
                d,
                "sl_put_col",
                blocks(d, n),
                Args::new()
                    .push(p(&v[i]))
                    .push(p(dst))
                    .push(n as i64)
                    .push(k as i64)
                    .push(c as i64),
            )?,
        }
        Ok(())
    }

    /// The real parts of the scalar slots, on the host (a read of the device on a GPU).
    pub(crate) fn scalars(&self) -> Result<Vec<f64>> {
        let s = match &self.store {
            Store::Cpu { s, .. } => s.clone(),
            Store::Cuda { st, .. } => st.to_vec()?,
        };
        Ok(s.iter().map(|v| v.re().to_f64()).collect())
    }

    /// True when the outer status is set (a read of the device every call).
    pub(crate) fn poll_now(&self) -> Result<bool> {
        match &self.store {
            Store::Cpu { flags, .. } => Ok(flags[0] != 0),
            Store::Cuda { ist, .. } => Ok(ist.to_vec()?[0] != 0),
        }
    }

    /// (status code, iteration at which it was set).
    pub(crate) fn status(&self) -> Result<(i32, usize)> {
        match &self.store {
            Store::Cpu { flags, .. } => Ok((flags[0], flags[1] as usize)),
            Store::Cuda { ist, .. } => {
                let f = ist.to_vec()?;
                Ok((f[0], f[1] as usize))
            }
        }
    }
}

/// The solver module's own kernels (minres, lsqr, lsmr), appended to the crate's module source.
const SOLVERS: &str = include_str!("cuda/solvers.cu");
const SPLU: &str = include_str!("cuda/splu.cu");

/// The full source of the solver module for `dtype` (sparse.cu's source, then solvers.cu and
/// splu.cu).
pub fn solvers_source(dtype: DType) -> Result<String> {
    Ok(format!("{}{}{}", module_source(dtype)?, SOLVERS, SPLU))
}

/// The kernel `name` of the solver module for `T`.
pub(crate) fn solver_function<T: Float>(
    d: &CudaDevice,
    name: &str,
) -> Result<cusci_core::cuda::kernel::Function> {
    let src = solvers_source(T::DTYPE)?;
    let key = format!("cusci_sparse_solvers_{}", T::DTYPE.tag());
    d.function(&key, move || src, &[], name)
}

pub(crate) fn launch_solver<T: Float>(
    d: &CudaDevice,
    name: &str,
    nb: u32,
    args: &mut Args,
) -> Result<()> {
    solver_function::<T>(d, name)?.launch(d, cusci_core::LaunchConfig::linear(nb, NT), args)
}

/// A real scalar as `T`.
pub(crate) fn re<T: Float>(v: f64) -> T {
    T::from_real(<T::Real as RealFloat>::from_f64(v))
}

/// The machine epsilon of `T`'s real part.
pub(crate) fn eps<T: Float>() -> f64 {
    <T::Real as RealFloat>::EPS.to_f64()
}
