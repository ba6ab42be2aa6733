//! Element-wise kernels: the generator behind every built-in element-wise operation and behind
//! the user-facing [`ElementwiseKernel`], plus [`RawKernel`] for hand-written CUDA.
//!
//! A kernel is described by typed parameters (arrays in, arrays out, scalars) and a CUDA
//! statement that computes the outputs from the inputs, as in CuPy's `ElementwiseKernel`. From one
//! description the generator emits three entry points: a vectorised one for contiguous operands
//! (16-byte loads and stores when every pointer is aligned), a scalar contiguous one, and a strided
//! one for views and broadcasts (up to 8 dimensions after merging). Shapes are arguments, so a new
//! shape never compiles anything.
//!
//! The files: this one holds the built-in operations' dispatch (CPU map or generated kernel), the
//! launch of a generated kernel and [`Scalar`]; `codegen.rs` writes a kernel's CUDA source from its
//! description; `user.rs` holds the user kernels ([`ElementwiseKernel`], [`RawKernel`]).

mod codegen;
mod user;

use crate::array::layout::{broadcast_shapes, broadcast_strides, checked_numel, coalesce};
use crate::array::{check_same_device, Array};
use crate::cuda::kernel::LaunchConfig;
use crate::cuda::launch::{DevPtr, KernelParam, Launch};
use crate::device::{CudaDevice, Device};
use crate::dtype::{c32, c64, DType, Element};
use crate::error::{Error, Result};
pub(crate) use codegen::{EwSpec, Param};

pub use codegen::sample_sources;
pub use user::{AnyArray, AnyArrayMut, Arg, CpuBody, ElementwiseKernel, RawArg, RawKernel};

const MAXD: usize = 8;
const THREADS: u32 = 256;

/// A value for a scalar parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    F32(f32),
    F64(f64),
    C32(c32),
    C64(c64),
    I32(i32),
    I64(i64),
    U8(u8),
    Bool(bool),
}

impl Scalar {
    /// The scalar's type.
    pub fn dtype(&self) -> DType {
        match self {
            Scalar::F32(_) => DType::F32,
            Scalar::F64(_) => DType::F64,
            Scalar::C32(_) => DType::C32,
            Scalar::C64(_) => DType::C64,
            Scalar::I32(_) => DType::I32,
            Scalar::I64(_) => DType::I64,
            Scalar::U8(_) => DType::U8,
            Scalar::Bool(_) => DType::Bool,
        }
    }
    /// The value converted to `T` with NumPy's casting rules.
    pub fn to<T: Element>(&self) -> T {
        match *self {
            Scalar::F32(v) => v.cast(),
            Scalar::F64(v) => v.cast(),
            Scalar::C32(v) => v.cast(),
            Scalar::C64(v) => v.cast(),
            Scalar::I32(v) => v.cast(),
            Scalar::I64(v) => v.cast(),
            Scalar::U8(v) => v.cast(),
            Scalar::Bool(v) => v.cast(),
        }
    }
    /// A scalar of `T`'s type holding `v`.
    pub fn of<T: Element>(v: T) -> Scalar {
        match T::DTYPE {
            DType::F32 => Scalar::F32(v.cast()),
            DType::F64 => Scalar::F64(v.cast()),
            DType::C32 => Scalar::C32(v.cast()),
            DType::C64 => Scalar::C64(v.cast()),
            DType::I32 => Scalar::I32(v.cast()),
            DType::I64 => Scalar::I64(v.cast()),
            DType::U8 => Scalar::U8(v.cast()),
            DType::Bool => Scalar::Bool(v.cast()),
        }
    }
    fn cast_to(&self, d: DType) -> Scalar {
        match d {
            DType::F32 => Scalar::F32(self.to()),
            DType::F64 => Scalar::F64(self.to()),
            DType::C32 => Scalar::C32(self.to()),
            DType::C64 => Scalar::C64(self.to()),
            DType::I32 => Scalar::I32(self.to()),
            DType::I64 => Scalar::I64(self.to()),
            DType::U8 => Scalar::U8(self.to()),
            DType::Bool => Scalar::Bool(self.to()),
        }
    }
    fn arg<'a>(&self, l: Launch<'a>) -> Launch<'a> {
        match *self {
            Scalar::F32(v) => l.arg(v),
            Scalar::F64(v) => l.arg(v),
            Scalar::C32(v) => l.arg(v),
            Scalar::C64(v) => l.arg(v),
            Scalar::I32(v) => l.arg(v),
            Scalar::I64(v) => l.arg(v),
            Scalar::U8(v) => l.arg(v),
            Scalar::Bool(v) => l.arg(v),
        }
    }
}

#[repr(C)]
#[derive(Clone, Copy)]
struct KShape {
    n: i64,
    ndim: i32,
    _pad: i32,
    dims: [i64; MAXD],
}

#[repr(C)]
#[derive(Clone, Copy)]
struct KStrides {
    s: [i64; MAXD],
}

// SAFETY: plain #[repr(C)] data laid out as the kernels' shape and stride structs.
unsafe impl KernelParam for KShape {}
// SAFETY: as above.
unsafe impl KernelParam for KStrides {}

/// A device operand: the element at the view's offset (borrowed from its array), strides over
/// the launch shape.
#[doc(hidden)]
pub struct Operand<'a> {
    pub ptr: DevPtr<'a, u8>,
    pub strides: Vec<isize>,
    pub elem: usize,
}

impl<'a> Operand<'a> {
    pub(crate) fn of<T: Element>(a: &'a Array<T>, shape: &[usize]) -> Result<Operand<'a>> {
        Ok(Operand {
            ptr: a.dev_ptr()?.untyped(),
            strides: broadcast_strides("elementwise", &a.shape, &a.strides, shape)?,
            elem: std::mem::size_of::<T>(),
        })
    }
}

pub(crate) fn grid_for(dev: &CudaDevice, work: usize) -> u32 {
    let cap = (dev.props().multiprocessors.max(1) * 8) as u64;
    (work as u64).div_ceil(THREADS as u64).clamp(1, cap) as u32
}

/// Launches `spec` over `shape`: `arrays` in the order of the array parameters, `scalars` in the
/// order of the scalar parameters (already of the declared types).
pub(crate) fn launch(
    dev: &CudaDevice,
    spec: &EwSpec,
    shape: &[usize],
    arrays: &[Operand],
    scalars: &[Scalar],
) -> Result<()> {
    let n = checked_numel(&spec.name, shape)?;
    if n == 0 {
        return Ok(());
    }
    let strides: Vec<Vec<isize>> = arrays.iter().map(|o| o.strides.clone()).collect();
    let (dims, st) = coalesce(shape, &strides);
    let contiguous = dims.len() == 1 && st.iter().all(|s| s[0] == 1);
    let key = spec.key();
    let v = spec.vec_width();
    let aligned = arrays
        .iter()
        .all(|o| o.ptr.addr() % (o.elem * v) as u64 == 0);
    let entry = if contiguous {
        if aligned && v > 1 {
            "v"
        } else {
            "c"
        }
    } else {
        "s"
    };
    if !contiguous && dims.len() > MAXD {
        return Err(Error::arg(
            &spec.name,
            format!(
                "{} dimensions that cannot be merged (at most {MAXD})",
                dims.len()
            ),
        ));
    }
    let f = dev.function(
        &key,
        || spec.source(),
        &[],
        &format!("{}_{entry}", spec.name),
    )?;
    let work = if entry == "v" { n / v } else { n };
    let mut l = dev.launch(&f, LaunchConfig::linear(grid_for(dev, work), THREADS));
    if contiguous {
        l = l.arg(n as i64);
    } else {
        let mut ks = KShape {
            n: n as i64,
            ndim: dims.len() as i32,
            _pad: 0,
            dims: [1; MAXD],
        };
        for (i, &d) in dims.iter().enumerate() {
            ks.dims[i] = d as i64;
        }
        l = l.arg(ks);
    }
    let (mut ai, mut si) = (0, 0);
    for p in &spec.params {
        match p {
            Param::In(..) | Param::Out(..) => {
                l = l.arg(arrays[ai].ptr);
                if !contiguous {
                    let mut ks = KStrides { s: [0; MAXD] };
                    for (i, &s) in st[ai].iter().enumerate() {
                        ks.s[i] = s as i64;
                    }
                    l = l.arg(ks);
                }
                ai += 1;
            }
            Param::Scalar(..) => {
                l = scalars[si].arg(l);
                si += 1;
            }
        }
    }
    l.run()
}

/// Launches the built-in kernel `name` over `shape` into a new array of `O`: the array inputs are
/// the parameters `a`, `b`, `c` (in order), `scalar` (if any) is `s`, the output is `o`.
fn builtin<O: Element>(
    device: &Device,
    name: String,
    inputs: Vec<(DType, Operand<'_>)>,
    scalar: Option<Scalar>,
    body: &str,
    shape: &[usize],
) -> Result<Array<O>> {
    let dev = cuda_of(device)?;
    let out = Array::<O>::alloc(&name, shape, device)?;
    let mut params = Vec::new();
    let mut arrays = Vec::new();
    for ((d, op), n) in inputs.into_iter().zip(["a", "b", "c"]) {
        params.push(Param::In(n.into(), d));
        arrays.push(op);
    }
    if let Some(s) = &scalar {
        params.push(Param::Scalar("s".into(), s.dtype()));
    }
    params.push(Param::Out("o".into(), O::DTYPE));
    arrays.push(Operand::of(&out, shape)?);
    let spec = EwSpec {
        name,
        params,
        body: body.into(),
        preamble: String::new(),
    };
    launch(dev, &spec, shape, &arrays, scalar.as_slice())?;
    Ok(out)
}

fn input<'a, T: Element>(a: &'a Array<T>, shape: &[usize]) -> Result<(DType, Operand<'a>)> {
    Ok((T::DTYPE, Operand::of(a, shape)?))
}

/// A new CUDA array of `U` holding `a`'s elements cast (also the strided-to-contiguous copy).
pub(crate) fn cast_cuda<T: Element, U: Element>(a: &Array<T>) -> Result<Array<U>> {
    let body = if T::DTYPE == U::DTYPE {
        "o = a".to_string()
    } else {
        format!("o = cusci_cast({}, a)", U::DTYPE.cuda_name())
    };
    let name = format!("cusci_cast_{}_{}", T::DTYPE.tag(), U::DTYPE.tag());
    builtin(
        &a.device,
        name,
        vec![input(a, &a.shape)?],
        None,
        &body,
        &a.shape,
    )
}

/// Sets every element of a unique contiguous CUDA array to `v`.
pub(crate) fn fill_cuda<T: Element>(a: &Array<T>, v: T) -> Result<()> {
    let dev = cuda_of(&a.device)?;
    let spec = EwSpec {
        name: format!("cusci_fill_{}", T::DTYPE.tag()),
        params: vec![
            Param::Scalar("v".into(), T::DTYPE),
            Param::Out("o".into(), T::DTYPE),
        ],
        body: "o = v".into(),
        preamble: String::new(),
    };
    launch(
        dev,
        &spec,
        &a.shape,
        &[Operand::of(a, &a.shape)?],
        &[Scalar::of(v)],
    )
}

/// `dst[...] = src` on the device (src already broadcast to dst's shape; dst unique).
pub(crate) fn assign_cuda<T: Element>(dst: &Array<T>, src: &Array<T>) -> Result<()> {
    let dev = cuda_of(&dst.device)?;
    let (d, s) = (dst.dev_ptr()?, src.dev_ptr()?);
    let n = dst.size();
    if n > 0 && dst.is_contiguous() && src.is_contiguous() && src.shape == dst.shape {
        dev.bind()?;
        // SAFETY: both ranges hold n elements of T on this device; the copy is stream-ordered.
        return unsafe {
            cudarc::driver::result::memcpy_dtod_async(
                d.addr(),
                s.addr(),
                n * std::mem::size_of::<T>(),
                dev.raw_stream(),
            )
        }
        .map_err(|e| Error::driver("assign", e));
    }
    let spec = EwSpec {
        name: format!("cusci_copy_{}", T::DTYPE.tag()),
        params: vec![
            Param::In("a".into(), T::DTYPE),
            Param::Out("o".into(), T::DTYPE),
        ],
        body: "o = a".into(),
        preamble: String::new(),
    };
    launch(
        dev,
        &spec,
        &dst.shape,
        &[Operand::of(src, &dst.shape)?, Operand::of(dst, &dst.shape)?],
        &[],
    )
}

pub(crate) fn cuda_of(d: &Device) -> Result<&CudaDevice> {
    d.as_cuda()
        .ok_or_else(|| Error::arg("elementwise", "expected a CUDA device"))
}

/// A built-in unary operation: `body` computes `o` from `a` on the device, `f` on the CPU.
pub(crate) fn unary<A: Element, O: Element>(
    op: &str,
    a: &Array<A>,
    body: &str,
    f: impl Fn(A) -> O + Sync,
) -> Result<Array<O>> {
    match &a.device {
        Device::Cpu => crate::cpu::map1(a, f),
        Device::Cuda(_) => {
            let name = format!("cusci_{op}_{}_{}", A::DTYPE.tag(), O::DTYPE.tag());
            builtin(
                &a.device,
                name,
                vec![input(a, &a.shape)?],
                None,
                body,
                &a.shape,
            )
        }
    }
}

/// A built-in unary operation with one scalar parameter `s` of `a`'s type.
pub(crate) fn unary_scalar<A: Element, O: Element>(
    op: &str,
    a: &Array<A>,
    s: A,
    body: &str,
    f: impl Fn(A, A) -> O + Sync,
) -> Result<Array<O>> {
    match &a.device {
        Device::Cpu => crate::cpu::map1(a, |x| f(x, s)),
        Device::Cuda(_) => {
            let name = format!("cusci_{op}_s_{}_{}", A::DTYPE.tag(), O::DTYPE.tag());
            let inputs = vec![input(a, &a.shape)?];
            builtin(&a.device, name, inputs, Some(Scalar::of(s)), body, &a.shape)
        }
    }
}

/// A built-in binary operation with NumPy broadcasting.
pub(crate) fn binary<A: Element, B: Element, O: Element>(
    op: &str,
    a: &Array<A>,
    b: &Array<B>,
    body: &str,
    f: impl Fn(A, B) -> O + Sync,
) -> Result<Array<O>> {
    check_same_device(op, &a.device, &b.device)?;
    let shape = broadcast_shapes(op, &a.shape, &b.shape)?;
    match &a.device {
        Device::Cpu => {
            let (ab, bb) = (a.broadcast_to(&shape)?, b.broadcast_to(&shape)?);
            crate::cpu::map2(&ab, &bb, &shape, f)
        }
        Device::Cuda(_) => {
            let name = format!(
                "cusci_{op}_{}_{}_{}",
                A::DTYPE.tag(),
                B::DTYPE.tag(),
                O::DTYPE.tag()
            );
            let inputs = vec![input(a, &shape)?, input(b, &shape)?];
            builtin(&a.device, name, inputs, None, body, &shape)
        }
    }
}

/// A built-in ternary operation with NumPy broadcasting.
pub(crate) fn ternary<A: Element, B: Element, C: Element, O: Element>(
    op: &str,
    a: &Array<A>,
    b: &Array<B>,
    c: &Array<C>,
    body: &str,
    f: impl Fn(A, B, C) -> O + Sync,
) -> Result<Array<O>> {
    check_same_device(op, &a.device, &b.device)?;
    check_same_device(op, &a.device, &c.device)?;
    let shape = broadcast_shapes(op, &broadcast_shapes(op, &a.shape, &b.shape)?, &c.shape)?;
    match &a.device {
        Device::Cpu => {
            let (ab, bb, cb) = (
                a.broadcast_to(&shape)?,
                b.broadcast_to(&shape)?,
                c.broadcast_to(&shape)?,
            );
            crate::cpu::map3(&ab, &bb, &cb, &shape, f)
        }
        Device::Cuda(_) => {
            let name = format!(
                "cusci_{op}_{}_{}_{}_{}",
                A::DTYPE.tag(),
                B::DTYPE.tag(),
                C::DTYPE.tag(),
                O::DTYPE.tag()
            );
            let inputs = vec![input(a, &shape)?, input(b, &shape)?, input(c, &shape)?];
            builtin(&a.device, name, inputs, None, body, &shape)
        }
    }
}
