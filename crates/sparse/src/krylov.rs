//! The engine shared by the device solvers (`bicgstab`, `cgs`): a solver is written once as a
//! sequence of vector and scalar steps on numbered vectors and numbered scalar slots; the engine
//! runs each step on the CPU (host vectors) or on a GPU (device vectors, scalars in a device
//! array, this crate's gated kernels). A status word (`flag`, iteration) ends the iteration: once
//! it is set every later step does nothing, on both devices, so reading it every
//! [`POLL`](crate::linalg::POLL) iterations on a GPU gives the same result as testing after every
//! step (SciPy's loops), with no host synchronisation in between.

use crate::cpu;
use crate::cuda::{grid, solver_fn, sparse_fn, NT};
use crate::linalg::{LinearOperator, POLL};
use cusci_core::{
    Array, CudaDevice, DevPtr, Device, Float, Function, LaunchConfig, RealFloat, Result,
};

/// Numbered scalar slots, as the `enum`s of `cuda/solvers.cu`: `slots!(first; A, B, C)` declares
/// `const A: usize = first`, then `B = A + 1`, `C = B + 1`.
macro_rules! slots {
    ($n:expr; $name:ident $(, $rest:ident)* $(,)?) => {
        const $name: usize = $n;
        $crate::krylov::slots!($name + 1; $($rest),*);
    };
    ($n:expr;) => {};
}
pub(crate) use slots;

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
                let g = grid(d, n).grid.0 as usize;
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
        self.product(src, dst, |x| crate::linalg::checked_matvec(op, x))
    }

    /// Vector `dst` = `op^H(vector src)` (the operator's `rmatvec`; on a GPU it runs even after
    /// the flag is set, as [`Engine::apply`]).
    pub(crate) fn rapply(
        &mut self,
        op: &dyn LinearOperator<T>,
        src: usize,
        dst: usize,
    ) -> Result<()> {
        self.product(src, dst, |x| crate::linalg::checked_rmatvec(op, x))
    }

    /// Vector `dst` = `f(vector src)`: on the CPU only while the flag is clear, on a GPU always.
    fn product(
        &mut self,
        src: usize,
        dst: usize,
        f: impl Fn(&Array<T>) -> Result<Array<T>>,
    ) -> Result<()> {
        match &mut self.store {
            Store::Cpu { v, flags, .. } => {
                if flags[2 * self.gate] != 0 {
                    return Ok(());
                }
                let x = Array::from_vec(v[src].clone(), &[v[src].len()], &Device::Cpu)?;
                v[dst] = f(&x)?.to_vec()?;
            }
            Store::Cuda { v, .. } => {
                let y = f(&v[src])?.contiguous()?;
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
        let gate = 2 * self.gate;
        match &mut self.store {
            Store::Cpu { v, s, .. } => {
                if live {
                    s[slot] = cpu::vdot(&v[x], &v[y]);
                }
            }
            Store::Cuda {
                d,
                v,
                st,
                ist,
                parts,
            } => {
                // one partial sum per block of the engine's fixed grid (the same bits every run)
                let g = parts.len();
                d.launch(
                    &kernel::<T>(d, "sp_dot_partial")?,
                    LaunchConfig::linear(g as u32, NT),
                )
                .arg(v[x].dev_ptr()?)
                .arg(v[y].dev_ptr()?)
                .arg(v[x].len() as i64)
                .arg(parts.dev_ptr_mut()?)
                .run()?;
                d.launch(&kernel::<T>(d, "sp_dot_store")?, single())
                    .arg(parts.dev_ptr()?)
                    .arg(g as i32)
                    .arg(st.dev_ptr_mut()?)
                    .arg(ist.dev_ptr()?.add(gate)?)
                    .arg(slot as i32)
                    .run()?;
            }
        }
        Ok(())
    }

    /// Scalar `dst` = `s[a] op s[b]`.
    pub(crate) fn scalar(&mut self, op: Sc, dst: usize, a: usize, b: usize) -> Result<()> {
        let live = self.cpu_live();
        let gate = 2 * self.gate;
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
            Store::Cuda { d, st, ist, .. } => d
                .launch(&kernel::<T>(d, "sp_scalar")?, single())
                .arg(st.dev_ptr_mut()?)
                .arg(ist.dev_ptr()?.add(gate)?)
                .arg(op as i32)
                .arg(dst as i32)
                .arg(a as i32)
                .arg(b as i32)
                .run()?,
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
        let gate = 2 * self.gate;
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
            Store::Cuda { d, st, ist, .. } => d
                .launch(&kernel::<T>(d, "sp_check")?, single())
                .arg(st.dev_ptr()?)
                .arg(ist.dev_ptr_mut()?.add(gate)?)
                .arg(slot as i32)
                .arg(tol)
                .arg(take_sqrt as i32)
                .arg(code)
                .arg(it as i32)
                .run()?,
        }
        Ok(())
    }

    /// Vector `y` += `coef · s[slot]` · vector `x` (`coef` alone when `slot` is `None`).
    pub(crate) fn axpy(&mut self, y: usize, x: usize, slot: Option<usize>, coef: T) -> Result<()> {
        let live = self.cpu_live();
        let gate = 2 * self.gate;
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
            Store::Cuda { d, v, st, ist, .. } => {
                let n = v[y].len();
                let (py, [px]) = in_place(v, y, [x])?;
                d.launch(&kernel::<T>(d, "sp_axpy")?, grid(d, n))
                    .arg(py)
                    .arg(px)
                    .arg(n as i64)
                    .arg(st.dev_ptr()?)
                    .arg(ist.dev_ptr()?.add(gate)?)
                    .arg(slot.map_or(-1, |k| k as i32))
                    .arg(coef)
                    .run()?
            }
        }
        Ok(())
    }

    /// Vector `y` = `s[slot]` · vector `y`.
    pub(crate) fn scal(&mut self, y: usize, slot: usize) -> Result<()> {
        let live = self.cpu_live();
        let gate = 2 * self.gate;
        match &mut self.store {
            Store::Cpu { v, s, .. } => {
                if live {
                    let c = s[slot];
                    for yi in v[y].iter_mut() {
                        *yi = c.mul(*yi);
                    }
                }
            }
            Store::Cuda { d, v, st, ist, .. } => {
                let n = v[y].len();
                d.launch(&kernel::<T>(d, "sp_scal")?, grid(d, n))
                    .arg(v[y].dev_ptr_mut()?)
                    .arg(n as i64)
                    .arg(st.dev_ptr()?)
                    .arg(ist.dev_ptr()?.add(gate)?)
                    .arg(slot as i32)
                    .run()?
            }
        }
        Ok(())
    }

    fn binary(&mut self, name: &str, out: usize, a: usize, b: usize, sign: f64) -> Result<()> {
        let live = self.cpu_live();
        let gate = 2 * self.gate;
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
            Store::Cuda { d, v, ist, .. } => {
                let n = v[out].len();
                let (po, [pa, pb]) = in_place(v, out, [a, b])?;
                d.launch(&self::kernel::<T>(d, name)?, grid(d, n))
                    .arg(pa)
                    .arg(pb)
                    .arg(po)
                    .arg(n as i64)
                    .arg(ist.dev_ptr()?.add(gate)?)
                    .run()?
            }
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
        let gate = 2 * self.gate;
        match &mut self.store {
            Store::Cpu { v, .. } => {
                if live {
                    v[dst] = v[src].clone();
                }
            }
            Store::Cuda { d, v, ist, .. } => {
                let n = v[dst].len();
                let (pd, [ps]) = in_place(v, dst, [src])?;
                d.launch(&kernel::<T>(d, "sp_copy_g")?, grid(d, n))
                    .arg(ps)
                    .arg(pd)
                    .arg(n as i64)
                    .arg(ist.dev_ptr()?.add(gate)?)
                    .run()?
            }
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
            Store::Cuda { d, st, ist, .. } => d
                .launch(&kernel::<T>(d, "sp_set_scalar")?, single())
                .arg(st.dev_ptr_mut()?)
                .arg(ist.dev_ptr_mut()?)
                .arg(slot as i32)
                .arg(v)
                .run()?,
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
                let f = self::kernel::<T>(d, kernel)?;
                scalar_step(d, &f, st, ist, ints, reals)?;
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
                let f = solver_fn::<T>(d, kernel)?;
                scalar_step(d, &f, st, ist, ints, reals)?;
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
            Store::Cuda { d, v, .. } => d
                .launch(&solver_fn::<T>(d, "sl_put_col")?, grid(d, n))
                .arg(v[i].dev_ptr()?)
                .arg(dst.dev_ptr_mut()?)
                .arg(n as i64)
                .arg(k as i64)
                .arg(c as i64)
                .run()?,
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

/// The kernel `name` of the vector and scalar steps (`sparse.cu`, 32-bit indices) for `T`.
fn kernel<T: Float>(d: &CudaDevice, name: &str) -> Result<Function> {
    sparse_fn::<T, i32>(d, name)
}

/// One block of [`NT`] threads (the single-thread steps).
fn single() -> LaunchConfig {
    LaunchConfig::linear(1, NT)
}

/// A single-thread scalar step `f(st, ist, ints.., reals..)`.
fn scalar_step<T: Float>(
    d: &CudaDevice,
    f: &Function,
    st: &mut Array<T>,
    ist: &mut Array<i32>,
    ints: &[i32],
    reals: &[f64],
) -> Result<()> {
    let mut l = d
        .launch(f, single())
        .arg(st.dev_ptr_mut()?)
        .arg(ist.dev_ptr_mut()?);
    for &i in ints {
        l = l.arg(i);
    }
    for &r in reals {
        l = l.arg(r);
    }
    l.run()
}

/// Typed pointers for a kernel that writes vector `out` of `v` in place and reads the vectors
/// `ins` (any of which may be `out` itself): the written vector is first made the engine's own
/// (copy-on-write, as [`Array::dev_ptr_mut`] does), so that the writes through its pointer
/// reach no other array; the kernel then reads and writes it through one pointer.
fn in_place<'v, T: Float, const N: usize>(
    v: &'v mut [Array<T>],
    out: usize,
    ins: [usize; N],
) -> Result<(DevPtr<'v, T>, [DevPtr<'v, T>; N])> {
    let _ = v[out].dev_ptr_mut()?;
    let v: &'v [Array<T>] = v;
    let w = v[out].dev_ptr()?;
    let mut r = [w; N];
    for (p, &i) in r.iter_mut().zip(&ins) {
        *p = v[i].dev_ptr()?;
    }
    Ok((w, r))
}

/// A real scalar as `T`.
pub(crate) fn re<T: Float>(v: f64) -> T {
    T::from_real(<T::Real as RealFloat>::from_f64(v))
}

/// The machine epsilon of `T`'s real part.
pub(crate) fn eps<T: Float>() -> f64 {
    <T::Real as RealFloat>::EPS.to_f64()
}

/// The 1-D `src` written as column `c` of the row-major (n, k) array `dst` (same device; the
/// kernel of [`Engine::put_col`]).
pub(crate) fn put_col<T: Float>(src: &Array<T>, dst: &mut Array<T>, c: usize) -> Result<()> {
    let (n, k) = (dst.shape()[0], dst.shape()[1]);
    let src = src.contiguous()?;
    match src.device() {
        Device::Cpu => {
            let s = src.to_vec()?;
            let mut d = dst.to_vec()?;
            for r in 0..n {
                d[r * k + c] = s[r];
            }
            *dst = Array::from_vec(d, &[n, k], &Device::Cpu)?;
        }
        Device::Cuda(d) => d
            .launch(&solver_fn::<T>(d, "sl_put_col")?, grid(d, n))
            .arg(src.dev_ptr()?)
            .arg(dst.dev_ptr_mut()?)
            .arg(n as i64)
            .arg(k as i64)
            .arg(c as i64)
            .run()?,
    }
    Ok(())
}
