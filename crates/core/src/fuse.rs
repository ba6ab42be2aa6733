//! Kernel fusion (CuPy's `cupy.fuse`): a chain of element-wise operations, optionally ending in a
//! reduction over all elements, written once as an expression ([`Expr`]) and run as one pass
//! over the inputs: one generated CUDA kernel on a GPU (no temporary arrays, one read of each
//! input), one chunked rayon pass on the CPU.
//!
//! ```
//! use cusci_core::fuse::{fuse, Expr};
//! use cusci_core::{Array, Device};
//! // y = clip((x - 1) * 2, 0, 3) + z
//! let f = fuse(2, |v| ((&v[0] - 1.0) * 2.0).clip(0.0, 3.0) + &v[1]).unwrap();
//! let dev = Device::cpu();
//! let x = Array::from_vec(vec![0.0f64, 1.5, 4.0], &[3], &dev).unwrap();
//! let z = Array::from_vec(vec![10.0f64], &[1], &dev).unwrap(); // broadcast
//! assert_eq!(f.map(&[&x, &z]).unwrap().to_vec().unwrap(), vec![10.0, 11.0, 13.0]);
//! assert_eq!(f.sum(&[&x, &z]).unwrap(), 34.0);
//! ```
//!
//! Values are computed in the inputs' type (f32 or f64) as NumPy does for arrays of one float
//! type with Python scalars: constants are rounded to that type once. `maximum`, `minimum` and
//! `clip` propagate NaN as NumPy's do; comparisons give 1 or 0 in the value type, and
//! [`Expr::select`] takes a nonzero condition as true. `+ − × ÷`, comparisons, selections,
//! `maximum`/`minimum`/`clip`, `abs`, `floor`, `ceil` and `sqrt` are correctly rounded on both
//! devices (no contraction into fused multiply-adds), so an expression of only those gives the
//! same bits on the GPU as on the CPU; the other math functions are CUDA's (`expf`, `exp`, ...)
//! on the GPU and Rust's on the CPU, which agree to a few ulp per operation. Reductions accumulate in f64 on both devices (per thread or per CPU chunk,
//! then fixed trees over the block and over the partials), so a reduction gives the same value
//! on every run of one device.

use crate::array::backend::{Backend, BackendMut};
use crate::array::layout::{broadcast_shapes, checked_numel};
use crate::array::{check_same_device, Array};
use crate::cuda::kernel::LaunchConfig;
use crate::device::{CudaDevice, Device};
use crate::dtype::{DType, RealFloat};
use crate::elementwise::{launch, EwSpec, Operand, Param};
use crate::error::{Error, Result};
use num_traits::Float as NF;
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::{Add, Div, Mul, Neg, Sub};
use std::sync::Arc;

/// Element-wise functions of one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Un {
    Neg,
    Abs,
    Exp,
    Log,
    Sqrt,
    Sin,
    Cos,
    Tanh,
    Floor,
    Ceil,
}

/// Element-wise functions of two values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Max,
    Min,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Debug)]
enum Node {
    Input(usize),
    Const(f64),
    Un(Un, Expr),
    Bin(Bin, Expr, Expr),
    Select(Expr, Expr, Expr),
}

/// A lazy element-wise expression over numbered inputs and constants. Build it with the
/// arithmetic operators (on `Expr`, `&Expr` and `f64`) and the methods below, then compile it
/// with [`Fused::new`] or [`fuse`]. A sub-expression used twice (a cloned `Expr`) is computed
/// once per element.
#[derive(Debug, Clone)]
pub struct Expr(Arc<Node>);

impl Expr {
    /// The `k`-th input array.
    pub fn input(k: usize) -> Expr {
        Expr(Arc::new(Node::Input(k)))
    }
    /// A constant (rounded to the inputs' type).
    pub fn constant(v: f64) -> Expr {
        Expr(Arc::new(Node::Const(v)))
    }
    fn un(&self, op: Un) -> Expr {
        Expr(Arc::new(Node::Un(op, self.clone())))
    }
    fn bin(&self, op: Bin, o: impl Into<Expr>) -> Expr {
        Expr(Arc::new(Node::Bin(op, self.clone(), o.into())))
    }
    /// |x|.
    pub fn abs(&self) -> Expr {
        self.un(Un::Abs)
    }
    /// e^x.
    pub fn exp(&self) -> Expr {
        self.un(Un::Exp)
    }
    /// Natural logarithm.
    pub fn ln(&self) -> Expr {
        self.un(Un::Log)
    }
    /// Square root.
    pub fn sqrt(&self) -> Expr {
        self.un(Un::Sqrt)
    }
    /// Sine.
    pub fn sin(&self) -> Expr {
        self.un(Un::Sin)
    }
    /// Cosine.
    pub fn cos(&self) -> Expr {
        self.un(Un::Cos)
    }
    /// Hyperbolic tangent.
    pub fn tanh(&self) -> Expr {
        self.un(Un::Tanh)
    }
    /// Largest integer not above x.
    pub fn floor(&self) -> Expr {
        self.un(Un::Floor)
    }
    /// Smallest integer not below x.
    pub fn ceil(&self) -> Expr {
        self.un(Un::Ceil)
    }
    /// x^e (`np.power` of floats).
    pub fn pow(&self, e: impl Into<Expr>) -> Expr {
        self.bin(Bin::Pow, e)
    }
    /// `np.maximum`: the larger value, NaN if either is NaN.
    pub fn maximum(&self, o: impl Into<Expr>) -> Expr {
        self.bin(Bin::Max, o)
    }
    /// `np.minimum`: the smaller value, NaN if either is NaN.
    pub fn minimum(&self, o: impl Into<Expr>) -> Expr {
        self.bin(Bin::Min, o)
    }
    /// `np.clip(x, lo, hi)` = `minimum(maximum(x, lo), hi)`.
    pub fn clip(&self, lo: impl Into<Expr>, hi: impl Into<Expr>) -> Expr {
        self.maximum(lo).minimum(hi)
    }
    /// 1 where x < o, else 0.
    pub fn lt(&self, o: impl Into<Expr>) -> Expr {
        self.bin(Bin::Lt, o)
    }
    /// 1 where x ≤ o, else 0.
    pub fn le(&self, o: impl Into<Expr>) -> Expr {
        self.bin(Bin::Le, o)
    }
    /// 1 where x > o, else 0.
    pub fn gt(&self, o: impl Into<Expr>) -> Expr {
        self.bin(Bin::Gt, o)
    }
    /// 1 where x ≥ o, else 0.
    pub fn ge(&self, o: impl Into<Expr>) -> Expr {
        self.bin(Bin::Ge, o)
    }
    /// 1 where x = o, else 0.
    pub fn eq(&self, o: impl Into<Expr>) -> Expr {
        self.bin(Bin::Eq, o)
    }
    /// 1 where x ≠ o (and where either is NaN), else 0.
    pub fn ne(&self, o: impl Into<Expr>) -> Expr {
        self.bin(Bin::Ne, o)
    }
    /// `np.where(self, a, b)`: `a` where this value is nonzero (NaN counts as nonzero), else `b`.
    pub fn select(&self, a: impl Into<Expr>, b: impl Into<Expr>) -> Expr {
        Expr(Arc::new(Node::Select(self.clone(), a.into(), b.into())))
    }
}

impl From<f64> for Expr {
    fn from(v: f64) -> Expr {
        Expr::constant(v)
    }
}

impl From<&Expr> for Expr {
    fn from(e: &Expr) -> Expr {
        e.clone()
    }
}

macro_rules! expr_op {
    ($tr:ident, $f:ident, $op:expr) => {
        impl<R: Into<Expr>> $tr<R> for Expr {
            type Output = Expr;
            fn $f(self, o: R) -> Expr {
                self.bin($op, o)
            }
        }
        impl<R: Into<Expr>> $tr<R> for &Expr {
            type Output = Expr;
            fn $f(self, o: R) -> Expr {
                self.bin($op, o)
            }
        }
        impl $tr<Expr> for f64 {
            type Output = Expr;
            fn $f(self, o: Expr) -> Expr {
                Expr::constant(self).bin($op, o)
            }
        }
        impl $tr<&Expr> for f64 {
            type Output = Expr;
            fn $f(self, o: &Expr) -> Expr {
                Expr::constant(self).bin($op, o)
            }
        }
    };
}
expr_op!(Add, add, Bin::Add);
expr_op!(Sub, sub, Bin::Sub);
expr_op!(Mul, mul, Bin::Mul);
expr_op!(Div, div, Bin::Div);

impl Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        self.un(Un::Neg)
    }
}

impl Neg for &Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        self.un(Un::Neg)
    }
}

/// One step of a compiled expression: its value goes to the register of its index.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Step {
    Input(usize),
    Const(f64),
    Un(Un, usize),
    Bin(Bin, usize, usize),
    Select(usize, usize, usize),
}

/// The whole-array reductions a fused expression can end in ([`Fused::reduce`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduction {
    /// `np.sum`.
    Sum,
    /// `np.mean`.
    Mean,
    /// `np.max` (NaN propagates).
    Max,
    /// `np.min` (NaN propagates).
    Min,
}

/// A compiled [`Expr`]: run it element-wise with [`map`](Self::map) or reduce it with
/// [`sum`](Self::sum), [`mean`](Self::mean), [`max`](Self::max) and [`min`](Self::min). The
/// GPU kernel is generated per element type on first use and cached per device (and on disk,
/// as every kernel of the crate).
#[derive(Debug, Clone)]
pub struct Fused {
    steps: Vec<Step>,
    nin: usize,
}

/// Compiles `f` applied to `nin` inputs (`Expr::input(0 .. nin)`), as `cupy.fuse` decorates a
/// function.
///
/// # Errors
/// As [`Fused::new`]; also `InvalidArgument` when the expression reads an input past `nin`.
pub fn fuse(nin: usize, f: impl FnOnce(&[Expr]) -> Expr) -> Result<Fused> {
    let ins: Vec<Expr> = (0..nin).map(Expr::input).collect();
    let mut k = Fused::new(&f(&ins))?;
    if k.nin > nin {
        return Err(Error::arg(
            "fuse",
            format!("the expression reads input {} of {nin}", k.nin - 1),
        ));
    }
    k.nin = nin;
    Ok(k)
}

/// Longest chain of steps a fused expression may have (the kernel's registers and the
/// compiler's time grow with it).
const MAX_STEPS: usize = 4096;

impl Fused {
    /// Compiles `expr` (common sub-expressions once: an `Expr` cloned into two places is one
    /// step). The inputs are `0 ..= the largest index read`.
    ///
    /// # Errors
    /// `InvalidArgument` for an expression of more than 4,096 steps.
    pub fn new(expr: &Expr) -> Result<Fused> {
        let mut steps = Vec::new();
        let mut seen: HashMap<*const Node, usize> = HashMap::new();
        // iterative post-order: (node, children done)
        let mut stack: Vec<(&Expr, bool)> = vec![(expr, false)];
        while let Some((e, done)) = stack.pop() {
            let key = Arc::as_ptr(&e.0);
            if seen.contains_key(&key) {
                continue;
            }
            let kids: Vec<&Expr> = match &*e.0 {
                Node::Input(_) | Node::Const(_) => vec![],
                Node::Un(_, a) => vec![a],
                Node::Bin(_, a, b) => vec![a, b],
                Node::Select(c, a, b) => vec![c, a, b],
            };
            if !done {
                stack.push((e, true));
                stack.extend(kids.into_iter().rev().map(|k| (k, false)));
                continue;
            }
            let r = |x: &Expr| seen[&Arc::as_ptr(&x.0)];
            let s = match &*e.0 {
                Node::Input(k) => Step::Input(*k),
                Node::Const(v) => Step::Const(*v),
                Node::Un(op, a) => Step::Un(*op, r(a)),
                Node::Bin(op, a, b) => Step::Bin(*op, r(a), r(b)),
                Node::Select(c, a, b) => Step::Select(r(c), r(a), r(b)),
            };
            seen.insert(key, steps.len());
            steps.push(s);
            if steps.len() > MAX_STEPS {
                return Err(Error::arg(
                    "fuse",
                    format!("more than {MAX_STEPS} operations in one expression"),
                ));
            }
        }
        let nin = steps
            .iter()
            .filter_map(|s| match s {
                Step::Input(k) => Some(k + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        Ok(Fused { steps, nin })
    }

    /// The number of input arrays the expression takes.
    pub fn inputs(&self) -> usize {
        self.nin
    }

    /// The expression at every element of the inputs broadcast together (NumPy's rules), in a
    /// new C-contiguous array on the inputs' device.
    ///
    /// # Errors
    /// `InvalidArgument` for a wrong number of inputs or none; `ShapeMismatch` when the shapes
    /// do not broadcast; `DeviceMismatch`; `OutOfMemory`.
    ///
    /// ```
    /// use cusci_core::fuse::{fuse, Expr};
    /// use cusci_core::{Array, Device};
    /// let relu = fuse(1, |v| v[0].maximum(0.0)).unwrap();
    /// let x = Array::from_vec(vec![-1.0f32, 2.0], &[2], &Device::cpu()).unwrap();
    /// assert_eq!(relu.map(&[&x]).unwrap().to_vec().unwrap(), vec![0.0, 2.0]);
    /// ```
    pub fn map<T: RealFloat>(&self, inputs: &[&Array<T>]) -> Result<Array<T>> {
        let (dev, shape) = self.check("fuse map", inputs)?;
        let mut out = Array::<T>::alloc("fuse map", &shape, &dev)?;
        match &dev {
            Device::Cpu => {
                let cols = host_columns(inputs, &shape)?;
                let BackendMut::Host(o) = out.backend_mut()? else {
                    return Err(Error::arg("fuse map", "the output is not a host array"));
                };
                o.par_chunks_mut(CHUNK).enumerate().for_each(|(c, oc)| {
                    oc.copy_from_slice(&self.eval_chunk(&cols, c * CHUNK, oc.len()));
                });
            }
            Device::Cuda(cd) => {
                let mut ops = inputs
                    .iter()
                    .map(|a| Operand::of(a, &shape))
                    .collect::<Result<Vec<_>>>()?;
                ops.push(Operand::of(&out, &shape)?);
                let spec = self.map_spec(T::DTYPE);
                launch(cd, &spec, &shape, &ops, &[])?;
            }
        }
        Ok(out)
    }

    /// The expression reduced over every element (`np.sum(f(...))` and friends, as
    /// `cupy.fuse` with a reduction), as a 0-d array on the inputs' device: no copy to the host
    /// and no wait on a GPU (two kernel launches: f64 partials per block, then their fold in a
    /// fixed order). Sums accumulate in f64 and round to `T` once (0 for no elements); the mean
    /// divides that f64 sum by the count (NaN for no elements, NumPy's value without its
    /// warning); max and min propagate NaN. On a GPU, inputs that are not C-contiguous of the
    /// broadcast shape are copied to that shape first.
    ///
    /// # Errors
    /// `InvalidArgument` for the max or min of no elements (NumPy's ValueError); as
    /// [`map`](Self::map) otherwise.
    ///
    /// ```
    /// use cusci_core::fuse::{fuse, Reduction};
    /// use cusci_core::{Array, Device};
    /// let sq = fuse(1, |v| &v[0] * &v[0]).unwrap();
    /// let x = Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3], &Device::cpu()).unwrap();
    /// let s = sq.reduce(Reduction::Sum, &[&x]).unwrap();
    /// assert_eq!((s.shape().len(), s.item().unwrap()), (0, 14.0));
    /// ```
    pub fn reduce<T: RealFloat>(&self, how: Reduction, inputs: &[&Array<T>]) -> Result<Array<T>> {
        let op = "fuse reduce";
        let (dev, shape) = self.check(op, inputs)?;
        let n: usize = shape.iter().product();
        let scalar = |v: f64| Array::from_vec(vec![T::from_f64(v)], &[], &dev);
        if n == 0 {
            return match how {
                Reduction::Sum => scalar(0.0),
                Reduction::Mean => scalar(f64::NAN),
                Reduction::Max | Reduction::Min => {
                    Err(Error::arg(op, "zero-size input has no maximum or minimum"))
                }
            };
        }
        match &dev {
            Device::Cpu => {
                let cols = host_columns(inputs, &shape)?;
                let parts: Vec<f64> = (0..n.div_ceil(CHUNK))
                    .into_par_iter()
                    .map(|c| {
                        self.eval_chunk(&cols, c * CHUNK, CHUNK.min(n - c * CHUNK))
                            .iter()
                            .fold(how.identity(), |a, &v| how.fold(a, v.to_f64()))
                    })
                    .collect();
                let v = parts
                    .into_iter()
                    .fold(how.identity(), |a, v| how.fold(a, v));
                scalar(if how == Reduction::Mean {
                    v / n as f64
                } else {
                    v
                })
            }
            Device::Cuda(cd) => self.reduce_cuda(cd, how, inputs, &shape, n),
        }
    }

    /// [`reduce`](Self::reduce) with [`Reduction::Sum`], returned to the host (waits for the
    /// device).
    ///
    /// # Errors
    /// As [`map`](Self::map).
    pub fn sum<T: RealFloat>(&self, inputs: &[&Array<T>]) -> Result<T> {
        self.reduce(Reduction::Sum, inputs)?.item()
    }

    /// [`reduce`](Self::reduce) with [`Reduction::Mean`], returned to the host.
    ///
    /// # Errors
    /// As [`map`](Self::map).
    pub fn mean<T: RealFloat>(&self, inputs: &[&Array<T>]) -> Result<T> {
        self.reduce(Reduction::Mean, inputs)?.item()
    }

    /// [`reduce`](Self::reduce) with [`Reduction::Max`], returned to the host.
    ///
    /// # Errors
    /// As [`reduce`](Self::reduce).
    pub fn max<T: RealFloat>(&self, inputs: &[&Array<T>]) -> Result<T> {
        self.reduce(Reduction::Max, inputs)?.item()
    }

    /// [`reduce`](Self::reduce) with [`Reduction::Min`], returned to the host.
    ///
    /// # Errors
    /// As [`reduce`](Self::reduce).
    pub fn min<T: RealFloat>(&self, inputs: &[&Array<T>]) -> Result<T> {
        self.reduce(Reduction::Min, inputs)?.item()
    }

    fn last(&self) -> usize {
        self.steps.len() - 1
    }

    /// A hash of the steps (the kernel's name; the cache key holds the whole source anyway).
    fn hash(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for s in &self.steps {
            format!("{s:?}").hash(&mut h);
        }
        h.finish()
    }

    fn check(&self, op: &str, inputs: &[&Array<impl RealFloat>]) -> Result<(Device, Vec<usize>)> {
        if inputs.len() != self.nin || inputs.is_empty() {
            return Err(Error::arg(
                op,
                format!(
                    "the expression takes {} input arrays (at least one), got {}",
                    self.nin,
                    inputs.len()
                ),
            ));
        }
        let dev = inputs[0].device().clone();
        let mut shape = inputs[0].shape().to_vec();
        for a in &inputs[1..] {
            check_same_device(op, a.device(), &dev)?;
            shape = broadcast_shapes(op, &shape, a.shape())?;
        }
        checked_numel(op, &shape)?;
        Ok((dev, shape))
    }

    fn reduce_cuda<T: RealFloat>(
        &self,
        cd: &CudaDevice,
        how: Reduction,
        inputs: &[&Array<T>],
        shape: &[usize],
        n: usize,
    ) -> Result<Array<T>> {
        // the kernel reads C-contiguous inputs of the full shape; others are broadcast and
        // copied first (a scalar or a row vector costs a full-size copy, as `reduce` says)
        let owned: Vec<Option<Array<T>>> = inputs
            .iter()
            .map(|a| {
                if a.shape() == shape && a.is_contiguous() {
                    Ok(None)
                } else {
                    a.broadcast_to(shape)?.copy().map(Some)
                }
            })
            .collect::<Result<_>>()?;
        let arrs: Vec<&Array<T>> = inputs
            .iter()
            .zip(&owned)
            .map(|(a, o)| o.as_ref().unwrap_or(a))
            .collect();
        let blocks = n.div_ceil(RED_THREADS * 8).clamp(1, RED_BLOCKS);
        let dev = Device::Cuda(cd.clone());
        let mut part = Array::<f64>::alloc("fuse reduce", &[blocks], &dev)?;
        let mut out = Array::<T>::alloc("fuse reduce", &[], &dev)?;
        let (name, src) = self.reduce_source(T::DTYPE, how);
        let key = format!("fuse|{src}");
        let f = cd.function(&key, || src.clone(), &[], &name)?;
        let fin = cd.function(&key, || src.clone(), &[], &format!("{name}_fin"))?;
        let cfg = |g: usize| LaunchConfig {
            grid: (g as u32, 1, 1),
            block: (RED_THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut l = cd.launch(&f, cfg(blocks)).arg(n as i64);
        for a in &arrs {
            l = l.arg(a.dev_ptr()?);
        }
        l.arg(part.dev_ptr_mut()?).run()?;
        let div = if how == Reduction::Mean {
            n as f64
        } else {
            1.0
        };
        cd.launch(&fin, cfg(1))
            .arg(part.dev_ptr()?)
            .arg(blocks as i32)
            .arg(out.dev_ptr_mut()?)
            .arg(div)
            .run()?;
        Ok(out)
    }

    /// The element-wise kernel of [`map`](Self::map) for element type `d`.
    fn map_spec(&self, d: DType) -> EwSpec {
        let mut params: Vec<Param> = (0..self.nin)
            .map(|k| Param::In(format!("x{k}"), d))
            .collect();
        params.push(Param::Out("y".into(), d));
        EwSpec {
            name: format!("cusci_fuse_{}_{:016x}", d.tag(), self.hash()),
            params,
            body: format!("{} y = t{}", self.cuda_body(d), self.last()),
            preamble: String::new(),
        }
    }

    /// The name and source of the reduction kernels for element type `d`: in `<name>` each
    /// thread folds its grid-stride elements in f64, a fixed shared-memory tree folds the
    /// block, and block `b` writes partial `b`; `<name>_fin` (one block) folds the partials the
    /// same way and writes the result, divided by `div`, rounded to `T`.
    fn reduce_source(&self, d: DType, how: Reduction) -> (String, String) {
        let t = d.cuda_name();
        let name = format!("cusci_fuse_{}_{:?}_{:016x}", d.tag(), how, self.hash()).to_lowercase();
        let ins: Vec<String> = (0..self.nin)
            .map(|k| format!("const {t}* __restrict__ p_x{k}"))
            .collect();
        let loads: String = (0..self.nin)
            .map(|k| format!("const {t} x{k} = p_x{k}[i]; "))
            .collect();
        let (id, fold) = match how {
            Reduction::Sum | Reduction::Mean => ("0.0", "acc + v"),
            Reduction::Max => (
                "-FUSE_INF",
                "(acc != acc) ? acc : ((v != v || v > acc) ? v : acc)",
            ),
            Reduction::Min => (
                "FUSE_INF",
                "(acc != acc) ? acc : ((v != v || v < acc) ? v : acc)",
            ),
        };
        let mut src = String::new();
        let _ = write!(
            src,
            "#define FUSE_INF __longlong_as_double(0x7ff0000000000000LL)\n\
             extern \"C\" __global__ void __launch_bounds__({RED_THREADS}) {name}(const i64 n, {}, double* __restrict__ part) {{\n\
             __shared__ double sm[{RED_THREADS}];\n\
             double acc = {id};\n\
             for (i64 i = (i64)blockIdx.x * {RED_THREADS} + threadIdx.x; i < n; i += (i64)gridDim.x * {RED_THREADS}) {{\n\
             {loads}{}\n const double v = (double)t{};\n acc = {fold};\n}}\n\
             sm[threadIdx.x] = acc;\n\
             for (int s = {RED_THREADS} / 2; s > 0; s >>= 1) {{ __syncthreads(); if (threadIdx.x < s) {{ const double v = sm[threadIdx.x + s]; acc = sm[threadIdx.x]; sm[threadIdx.x] = {fold}; }} }}\n\
             if (threadIdx.x == 0) part[blockIdx.x] = sm[0];\n}}\n\
             extern \"C\" __global__ void __launch_bounds__({RED_THREADS}) {name}_fin(const double* __restrict__ part, const int np, {t}* __restrict__ out, const double div) {{\n\
             __shared__ double sm[{RED_THREADS}];\n\
             double acc = {id};\n\
             for (int i = threadIdx.x; i < np; i += {RED_THREADS}) {{ const double v = part[i]; acc = {fold}; }}\n\
             sm[threadIdx.x] = acc;\n\
             for (int s = {RED_THREADS} / 2; s > 0; s >>= 1) {{ __syncthreads(); if (threadIdx.x < s) {{ const double v = sm[threadIdx.x + s]; acc = sm[threadIdx.x]; sm[threadIdx.x] = {fold}; }} }}\n\
             if (threadIdx.x == 0) out[0] = ({t})(sm[0] / div);\n}}\n",
            ins.join(", "),
            self.cuda_body(d),
            self.last(),
        );
        (name, src)
    }

    /// Every kernel this expression generates (map and the three reductions, f32 and f64), for
    /// compile checks without a GPU.
    #[doc(hidden)]
    pub fn kernel_sources(&self) -> Vec<(String, String)> {
        let mut v = Vec::new();
        for d in [DType::F32, DType::F64] {
            let m = self.map_spec(d);
            v.push((m.name.clone(), m.source()));
            for how in [Reduction::Sum, Reduction::Max, Reduction::Min] {
                v.push(self.reduce_source(d, how));
            }
        }
        v
    }

    /// The CUDA statements `const T t<k> = ...;` of every step (inputs are `x<k>`).
    fn cuda_body(&self, d: DType) -> String {
        let t = d.cuda_name();
        let f32 = d == DType::F32;
        // the rounded intrinsics: never contracted into a fused multiply-add, so + − × ÷ give
        // the CPU's bits
        let p = if f32 { "f" } else { "d" };
        let f = |name: &str| {
            if f32 {
                format!("{name}f")
            } else {
                name.to_string()
            }
        };
        let mut s = String::new();
        for (k, st) in self.steps.iter().enumerate() {
            let e = match *st {
                Step::Input(i) => format!("x{i}"),
                Step::Const(v) => {
                    format!("({t})__longlong_as_double(0x{:016x}LL)", v.to_bits())
                }
                Step::Un(op, a) => match op {
                    Un::Neg => format!("-t{a}"),
                    Un::Abs => format!("{}(t{a})", f("fabs")),
                    Un::Exp => format!("{}(t{a})", f("exp")),
                    Un::Log => format!("{}(t{a})", f("log")),
                    Un::Sqrt => format!("{}(t{a})", f("sqrt")),
                    Un::Sin => format!("{}(t{a})", f("sin")),
                    Un::Cos => format!("{}(t{a})", f("cos")),
                    Un::Tanh => format!("{}(t{a})", f("tanh")),
                    Un::Floor => format!("{}(t{a})", f("floor")),
                    Un::Ceil => format!("{}(t{a})", f("ceil")),
                },
                Step::Bin(op, a, b) => {
                    let cmp = |c: &str| format!("(t{a} {c} t{b}) ? ({t})1 : ({t})0");
                    match op {
                        Bin::Add => format!("__{p}add_rn(t{a}, t{b})"),
                        Bin::Sub => format!("__{p}sub_rn(t{a}, t{b})"),
                        Bin::Mul => format!("__{p}mul_rn(t{a}, t{b})"),
                        Bin::Div => format!("__{p}div_rn(t{a}, t{b})"),
                        Bin::Pow => format!("{}(t{a}, t{b})", f("pow")),
                        Bin::Max => format!(
                            "(t{a} != t{a}) ? t{a} : ((t{b} != t{b} || t{b} > t{a}) ? t{b} : t{a})"
                        ),
                        Bin::Min => format!(
                            "(t{a} != t{a}) ? t{a} : ((t{b} != t{b} || t{b} < t{a}) ? t{b} : t{a})"
                        ),
                        Bin::Lt => cmp("<"),
                        Bin::Le => cmp("<="),
                        Bin::Gt => cmp(">"),
                        Bin::Ge => cmp(">="),
                        Bin::Eq => cmp("=="),
                        Bin::Ne => cmp("!="),
                    }
                }
                Step::Select(c, a, b) => format!("(t{c} != ({t})0) ? t{a} : t{b}"),
            };
            let _ = write!(s, "const {t} t{k} = {e}; ");
        }
        s
    }

    /// The expression's values at elements `start .. start + len` of the broadcast inputs
    /// (`cols`: contiguous, full size), computed step by step in one register per step.
    fn eval_chunk<T: RealFloat>(&self, cols: &[Cow<'_, [T]>], start: usize, len: usize) -> Vec<T> {
        let mut regs = vec![vec![<T as num_traits::Zero>::zero(); len]; self.steps.len()];
        for (k, st) in self.steps.iter().enumerate() {
            let (done, rest) = regs.split_at_mut(k);
            let out = &mut rest[0];
            let r = |i: usize| &done[i][..];
            match *st {
                Step::Input(i) => out.copy_from_slice(&cols[i][start..start + len]),
                Step::Const(v) => out.fill(T::from_f64(v)),
                Step::Un(op, a) => {
                    let f: fn(T) -> T = match op {
                        Un::Neg => |x| -x,
                        Un::Abs => |x| NF::abs(x),
                        Un::Exp => |x| NF::exp(x),
                        Un::Log => |x| NF::ln(x),
                        Un::Sqrt => |x| NF::sqrt(x),
                        Un::Sin => |x| NF::sin(x),
                        Un::Cos => |x| NF::cos(x),
                        Un::Tanh => |x| NF::tanh(x),
                        Un::Floor => |x| NF::floor(x),
                        Un::Ceil => |x| NF::ceil(x),
                    };
                    for (o, &x) in out.iter_mut().zip(r(a)) {
                        *o = f(x);
                    }
                }
                Step::Bin(op, a, b) => {
                    let f: fn(T, T) -> T = match op {
                        Bin::Add => |x, y| x + y,
                        Bin::Sub => |x, y| x - y,
                        Bin::Mul => |x, y| x * y,
                        Bin::Div => |x, y| x / y,
                        Bin::Pow => |x, y| NF::powf(x, y),
                        Bin::Max => |x, y| {
                            if NF::is_nan(x) || NF::is_nan(y) {
                                if NF::is_nan(x) {
                                    x
                                } else {
                                    y
                                }
                            } else if y > x {
                                y
                            } else {
                                x
                            }
                        },
                        Bin::Min => |x, y| {
                            if NF::is_nan(x) || NF::is_nan(y) {
                                if NF::is_nan(x) {
                                    x
                                } else {
                                    y
                                }
                            } else if y < x {
                                y
                            } else {
                                x
                            }
                        },
                        Bin::Lt => |x, y| {
                            if x < y {
                                <T as num_traits::One>::one()
                            } else {
                                <T as num_traits::Zero>::zero()
                            }
                        },
                        Bin::Le => |x, y| {
                            if x <= y {
                                <T as num_traits::One>::one()
                            } else {
                                <T as num_traits::Zero>::zero()
                            }
                        },
                        Bin::Gt => |x, y| {
                            if x > y {
                                <T as num_traits::One>::one()
                            } else {
                                <T as num_traits::Zero>::zero()
                            }
                        },
                        Bin::Ge => |x, y| {
                            if x >= y {
                                <T as num_traits::One>::one()
                            } else {
                                <T as num_traits::Zero>::zero()
                            }
                        },
                        Bin::Eq => |x, y| {
                            if x == y {
                                <T as num_traits::One>::one()
                            } else {
                                <T as num_traits::Zero>::zero()
                            }
                        },
                        Bin::Ne => |x, y| {
                            if x != y {
                                <T as num_traits::One>::one()
                            } else {
                                <T as num_traits::Zero>::zero()
                            }
                        },
                    };
                    for ((o, &x), &y) in out.iter_mut().zip(r(a)).zip(r(b)) {
                        *o = f(x, y);
                    }
                }
                Step::Select(c, a, b) => {
                    for (((o, &c), &x), &y) in out.iter_mut().zip(r(c)).zip(r(a)).zip(r(b)) {
                        *o = if c != <T as num_traits::Zero>::zero() {
                            x
                        } else {
                            y
                        };
                    }
                }
            }
        }
        regs.swap_remove(self.last())
    }
}

/// Elements per CPU task (and per register of a task).
const CHUNK: usize = 4096;
/// Threads per block of the GPU reduction.
const RED_THREADS: usize = 256;
/// Most blocks of the GPU reduction (their partials are folded by the one-block `_fin` kernel).
const RED_BLOCKS: usize = 2048;

impl Reduction {
    fn identity(self) -> f64 {
        match self {
            Reduction::Sum | Reduction::Mean => 0.0,
            Reduction::Max => f64::NEG_INFINITY,
            Reduction::Min => f64::INFINITY,
        }
    }
    fn fold(self, acc: f64, v: f64) -> f64 {
        match self {
            Reduction::Sum | Reduction::Mean => acc + v,
            Reduction::Max => {
                if acc.is_nan() {
                    acc
                } else if v.is_nan() || v > acc {
                    v
                } else {
                    acc
                }
            }
            Reduction::Min => {
                if acc.is_nan() {
                    acc
                } else if v.is_nan() || v < acc {
                    v
                } else {
                    acc
                }
            }
        }
    }
}

/// Each CPU input as a contiguous slice of the broadcast shape (borrowed where it already is).
fn host_columns<'a, T: RealFloat>(
    inputs: &[&'a Array<T>],
    shape: &[usize],
) -> Result<Vec<Cow<'a, [T]>>> {
    inputs
        .iter()
        .map(|a| {
            if a.shape() == shape {
                if let Backend::Host(h) = a.backend() {
                    if let Some(s) = h.as_slice() {
                        return Ok(Cow::Borrowed(s));
                    }
                }
            }
            Ok(Cow::Owned(a.broadcast_to(shape)?.to_vec()?))
        })
        .collect()
}
