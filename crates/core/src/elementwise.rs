//! Element-wise kernels: the generator behind every built-in element-wise operation and behind
//! the user-facing [`ElementwiseKernel`], plus [`RawKernel`] for hand-written CUDA.
//!
//! A kernel is described by typed parameters (arrays in, arrays out, scalars) and a CUDA
//! statement that computes the outputs from the inputs, as in CuPy's `ElementwiseKernel`. From one
//! description the generator emits three entry points: a vectorised one for contiguous operands
//! (16-byte loads and stores when every pointer is aligned), a scalar contiguous one, and a strided
//! one for views and broadcasts (up to 8 dimensions after merging). Shapes are arguments, so a new
//! shape never compiles anything.

use crate::array::layout::{broadcast_shapes, broadcast_strides, checked_numel, coalesce};
use crate::array::{check_same_device, Array, Storage};
use crate::cuda::kernel::LaunchConfig;
use crate::cuda::launch::{DevPtr, KernelParam, Launch};
use crate::device::{CudaDevice, Device};
use crate::dtype::{c32, c64, DType, Element};
use crate::error::{Error, Result};
use std::fmt::Write as _;

const MAXD: usize = 8;
const THREADS: u32 = 256;

/// One parameter of an element-wise kernel.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Param {
    In(String, DType),
    Out(String, DType),
    Scalar(String, DType),
}

/// A generated element-wise kernel: name, parameters and body.
#[derive(Debug, Clone)]
pub(crate) struct EwSpec {
    pub name: String,
    pub params: Vec<Param>,
    pub body: String,
    pub preamble: String,
}

impl EwSpec {
    fn key(&self) -> String {
        format!(
            "{}|{:?}|{}|{}",
            self.name, self.params, self.body, self.preamble
        )
    }

    fn vec_width(&self) -> usize {
        let m = self
            .params
            .iter()
            .filter_map(|p| match p {
                Param::In(_, d) | Param::Out(_, d) => Some(d.size()),
                Param::Scalar(..) => None,
            })
            .max()
            .unwrap_or(16);
        (16 / m).max(1)
    }

    fn source(&self) -> String {
        let n = &self.name;
        let mut s = String::new();
        let _ = writeln!(s, "{}", self.preamble);
        // parameter lists
        let mut ps = vec!["const CusciShape sh".to_string()];
        let mut pc = vec!["const i64 n".to_string()];
        let mut args_c = vec!["n".to_string()];
        for p in &self.params {
            match p {
                Param::In(x, d) => {
                    let t = d.cuda_name();
                    ps.push(format!(
                        "const {t}* __restrict__ p_{x}, const CusciStrides st_{x}"
                    ));
                    pc.push(format!("const {t}* __restrict__ p_{x}"));
                    args_c.push(format!("p_{x}"));
                }
                Param::Out(x, d) => {
                    let t = d.cuda_name();
                    ps.push(format!(
                        "{t}* __restrict__ p_{x}, const CusciStrides st_{x}"
                    ));
                    pc.push(format!("{t}* __restrict__ p_{x}"));
                    args_c.push(format!("p_{x}"));
                }
                Param::Scalar(x, d) => {
                    let t = d.cuda_name();
                    ps.push(format!("const {t} {x}"));
                    pc.push(format!("const {t} {x}"));
                    args_c.push(x.clone());
                }
            }
        }
        let arrays: Vec<(&String, DType, bool)> = self
            .params
            .iter()
            .filter_map(|p| match p {
                Param::In(x, d) => Some((x, *d, false)),
                Param::Out(x, d) => Some((x, *d, true)),
                Param::Scalar(..) => None,
            })
            .collect();
        let body = &self.body;
        // element statement given a load expression per array
        let element = |load: &dyn Fn(&str) -> String, store: &dyn Fn(&str) -> String| {
            let mut e = String::from("{ ");
            for (x, d, out) in &arrays {
                let t = d.cuda_name();
                if *out {
                    let _ = write!(e, "{t} {x} = {t}(); ");
                } else {
                    let _ = write!(e, "{t} {x} = {}; ", load(x));
                }
            }
            let _ = write!(e, "{{ {body}; }} ");
            for (x, _, out) in &arrays {
                if *out {
                    let _ = write!(e, "{}; ", store(x));
                }
            }
            e.push('}');
            e
        };
        // strided
        let _ = writeln!(
            s,
            "extern \"C\" __global__ void {n}_s({}) {{",
            ps.join(", ")
        );
        let _ = writeln!(s, "  const i64 gs = (i64)gridDim.x * blockDim.x;");
        let _ = writeln!(
            s,
            "  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < sh.n; i += gs) {{"
        );
        let offs: Vec<String> = arrays
            .iter()
            .map(|(x, _, _)| format!("o_{x} = 0"))
            .collect();
        let _ = writeln!(s, "    i64 rem = i; i64 {};", offs.join(", "));
        let _ = writeln!(s, "    for (int d = sh.ndim - 1; d > 0; --d) {{ const i64 c = rem % sh.dims[d]; rem /= sh.dims[d];");
        for (x, _, _) in &arrays {
            let _ = writeln!(s, "      o_{x} += c * st_{x}.s[d];");
        }
        let _ = writeln!(s, "    }}");
        for (x, _, _) in &arrays {
            let _ = writeln!(s, "    o_{x} += rem * st_{x}.s[0];");
        }
        let _ = writeln!(
            s,
            "    {}",
            element(&|x| format!("p_{x}[o_{x}]"), &|x| format!(
                "p_{x}[o_{x}] = {x}"
            ))
        );
        let _ = writeln!(s, "  }}\n}}");
        // contiguous, V elements per step
        let _ = writeln!(
            s,
            "template <int V> __device__ __forceinline__ void {n}_cb({}) {{",
            pc.join(", ")
        );
        let _ = writeln!(s, "  const i64 gs = (i64)gridDim.x * blockDim.x;");
        let _ = writeln!(
            s,
            "  const i64 t0 = (i64)blockIdx.x * blockDim.x + threadIdx.x;"
        );
        let _ = writeln!(s, "  const i64 nv = n / V;");
        let _ = writeln!(s, "  for (i64 j = t0; j < nv; j += gs) {{");
        for (x, d, out) in &arrays {
            let t = d.cuda_name();
            if *out {
                let _ = writeln!(s, "    CusciVec<{t}, V> v_{x};");
            } else {
                let _ = writeln!(s, "    const CusciVec<{t}, V> v_{x} = reinterpret_cast<const CusciVec<{t}, V>*>(p_{x})[j];");
            }
        }
        let _ = writeln!(s, "    #pragma unroll\n    for (int k = 0; k < V; ++k) {{ const i64 i = j * V + k; (void)i;");
        let _ = writeln!(
            s,
            "      {}",
            element(&|x| format!("v_{x}.v[k]"), &|x| format!("v_{x}.v[k] = {x}"))
        );
        let _ = writeln!(s, "    }}");
        for (x, d, out) in &arrays {
            if *out {
                let t = d.cuda_name();
                let _ = writeln!(
                    s,
                    "    reinterpret_cast<CusciVec<{t}, V>*>(p_{x})[j] = v_{x};"
                );
            }
        }
        let _ = writeln!(s, "  }}");
        let _ = writeln!(s, "  for (i64 i = nv * V + t0; i < n; i += gs) {{");
        let _ = writeln!(
            s,
            "    {}",
            element(&|x| format!("p_{x}[i]"), &|x| format!("p_{x}[i] = {x}"))
        );
        let _ = writeln!(s, "  }}\n}}");
        let v = self.vec_width();
        let _ = writeln!(
            s,
            "extern \"C\" __global__ void {n}_c({}) {{ {n}_cb<1>({}); }}",
            pc.join(", "),
            args_c.join(", ")
        );
        let _ = writeln!(
            s,
            "extern \"C\" __global__ void {n}_v({}) {{ {n}_cb<{v}>({}); }}",
            pc.join(", "),
            args_c.join(", ")
        );
        s
    }
}

/// Sources of a sample of the built-in element-wise kernels (every element type through casts,
/// and the arithmetic, math and comparison bodies), for compile checks without a GPU.
#[doc(hidden)]
pub fn sample_sources() -> Vec<(String, String)> {
    let all = DType::ALL;
    let mut v = Vec::new();
    let mut push = |name: String, params: Vec<Param>, body: &str| {
        let spec = EwSpec {
            name,
            params,
            body: body.into(),
            preamble: String::new(),
        };
        v.push((spec.name.clone(), spec.source()));
    };
    for a in all {
        for b in all {
            push(
                format!("cast_{}_{}", a.tag(), b.tag()),
                vec![Param::In("a".into(), a), Param::Out("o".into(), b)],
                &format!("o = cusci_cast({}, a)", b.cuda_name()),
            );
        }
        push(
            format!("fill_{}", a.tag()),
            vec![Param::Scalar("v".into(), a), Param::Out("o".into(), a)],
            "o = v",
        );
        push(
            format!("eq_{}", a.tag()),
            vec![
                Param::In("a".into(), a),
                Param::In("b".into(), a),
                Param::Out("o".into(), DType::Bool),
            ],
            "o = a == b",
        );
        push(
            format!("where_{}", a.tag()),
            vec![
                Param::In("a".into(), DType::Bool),
                Param::In("b".into(), a),
                Param::In("c".into(), a),
                Param::Out("o".into(), a),
            ],
            "o = a ? b : c",
        );
    }
    for a in [
        DType::F32,
        DType::F64,
        DType::C32,
        DType::C64,
        DType::I32,
        DType::I64,
        DType::U8,
    ] {
        for op in ["add", "sub", "mul", "div"] {
            push(
                format!("{op}_{}", a.tag()),
                vec![
                    Param::In("a".into(), a),
                    Param::Scalar("s".into(), a),
                    Param::Out("o".into(), a),
                ],
                &format!("o = cusci_{op}(a, s)"),
            );
        }
        push(
            format!("neg_{}", a.tag()),
            vec![Param::In("a".into(), a), Param::Out("o".into(), a)],
            "o = cusci_sub(decltype(a)(), a)",
        );
    }
    for (a, r) in [
        (DType::F32, DType::F32),
        (DType::F64, DType::F64),
        (DType::C32, DType::F32),
        (DType::C64, DType::F64),
    ] {
        for f in ["exp", "log", "sqrt", "sin", "cos", "tanh", "conj"] {
            push(
                format!("{f}_{}", a.tag()),
                vec![Param::In("a".into(), a), Param::Out("o".into(), a)],
                &format!("o = cusci_{f}(a)"),
            );
        }
        for f in ["abs", "abs2", "real", "imag"] {
            push(
                format!("{f}_{}", a.tag()),
                vec![Param::In("a".into(), a), Param::Out("o".into(), r)],
                &format!("o = cusci_{f}(a)"),
            );
        }
        push(
            format!("pow_{}", a.tag()),
            vec![
                Param::In("a".into(), a),
                Param::In("b".into(), a),
                Param::Out("o".into(), a),
            ],
            "o = cusci_pow(a, b)",
        );
        push(
            format!("isnan_{}", a.tag()),
            vec![
                Param::In("a".into(), a),
                Param::Out("o".into(), DType::Bool),
            ],
            "o = cusci_isnan(a)",
        );
    }
    for a in [
        DType::F32,
        DType::F64,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::Bool,
    ] {
        push(
            format!("max_{}", a.tag()),
            vec![
                Param::In("a".into(), a),
                Param::In("b".into(), a),
                Param::Out("o".into(), a),
            ],
            "o = cusci_max(a, b)",
        );
        push(
            format!("lt_{}", a.tag()),
            vec![
                Param::In("a".into(), a),
                Param::Scalar("s".into(), a),
                Param::Out("o".into(), DType::Bool),
            ],
            "o = a < s",
        );
    }
    for a in [DType::F32, DType::F64] {
        push(
            format!("isfinite_{}", a.tag()),
            vec![
                Param::In("a".into(), a),
                Param::Out("o".into(), DType::Bool),
            ],
            "o = isfinite(a)",
        );
    }
    v
}

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
        Device::Cpu => Ok(crate::cpu::map1(a, f)),
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
        Device::Cpu => Ok(crate::cpu::map1(a, |x| f(x, s))),
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
            Ok(crate::cpu::map2(&ab, &bb, &shape, f))
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
            Ok(crate::cpu::map3(&ab, &bb, &cb, &shape, f))
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

// ----------------------------------------------------------------------------------------------
// User kernels
// ----------------------------------------------------------------------------------------------

/// An array of any element type, for [`ElementwiseKernel`] arguments.
pub trait AnyArray {
    /// The element type.
    fn any_dtype(&self) -> DType;
    /// The shape.
    fn any_shape(&self) -> &[usize];
    /// The device.
    fn any_device(&self) -> &Device;
    #[doc(hidden)]
    fn operand<'a>(&'a self, shape: &[usize]) -> Result<Operand<'a>>;
    #[doc(hidden)]
    fn read(&self, shape: &[usize]) -> Result<Vec<Scalar>>;
}

impl<T: Element> AnyArray for Array<T> {
    fn any_dtype(&self) -> DType {
        T::DTYPE
    }
    fn any_shape(&self) -> &[usize] {
        &self.shape
    }
    fn any_device(&self) -> &Device {
        &self.device
    }
    fn operand<'a>(&'a self, shape: &[usize]) -> Result<Operand<'a>> {
        Operand::of(self, shape)
    }
    fn read(&self, shape: &[usize]) -> Result<Vec<Scalar>> {
        let b = self.broadcast_to(shape)?;
        Ok(crate::cpu::gather(&b).into_iter().map(Scalar::of).collect())
    }
}

/// An input argument of an [`ElementwiseKernel`] call: an array or a scalar.
pub enum Arg<'a> {
    Array(&'a dyn AnyArray),
    Scalar(Scalar),
}

/// The CPU body of an [`ElementwiseKernel`]: inputs in declaration order, outputs to set.
pub type CpuBody = dyn Fn(&[Scalar], &mut [Scalar]) + Send + Sync;

/// A user element-wise kernel, as CuPy's `ElementwiseKernel`: typed inputs and outputs, a CUDA
/// statement, and a Rust closure that computes the same on the CPU.
///
/// Parameter lists use CuPy's syntax: `"float32 a, float32 x, float32 y"` and `"float32 z"`.
/// Type names: float32, float64, complex64, complex128, int32, int64, uint8, bool. An input
/// parameter receives an array (broadcast with the others) or a [`Scalar`] (converted to the
/// declared type). In the CUDA statement each parameter name is the element's value, outputs are
/// assigned, and `i` is the element's linear index.
///
/// ```
/// use cusci_core::{Array, Device, ElementwiseKernel, elementwise::{Arg, Scalar}};
/// let k = ElementwiseKernel::new(
///     "float32 a, float32 x, float32 y", "float32 z", "z = a * x + y", "axpy",
///     |i, o| o[0] = Scalar::F32(i[0].to::<f32>() * i[1].to::<f32>() + i[2].to::<f32>()),
/// ).unwrap();
/// let dev = Device::cpu();
/// let x = Array::from_vec(vec![1.0f32, 2.0], &[2], &dev).unwrap();
/// let y = Array::from_vec(vec![10.0f32, 20.0], &[2], &dev).unwrap();
/// let mut z = Array::<f32>::zeros(&[2], &dev).unwrap();
/// k.call(&[Arg::Scalar(Scalar::F32(2.0)), Arg::Array(&x), Arg::Array(&y)], &mut [&mut z]).unwrap();
/// assert_eq!(z.to_vec().unwrap(), vec![12.0, 24.0]);
/// ```
pub struct ElementwiseKernel {
    name: String,
    inputs: Vec<(String, DType)>,
    outputs: Vec<(String, DType)>,
    body: String,
    preamble: String,
    cpu: Box<CpuBody>,
}

fn parse_dtype(op: &str, s: &str) -> Result<DType> {
    Ok(match s {
        "float32" | "float" => DType::F32,
        "float64" | "double" => DType::F64,
        "complex64" => DType::C32,
        "complex128" => DType::C64,
        "int32" | "int" => DType::I32,
        "int64" => DType::I64,
        "uint8" => DType::U8,
        "bool" => DType::Bool,
        _ => return Err(Error::arg(op, format!("unknown type name {s:?}"))),
    })
}

fn parse_params(op: &str, s: &str) -> Result<Vec<(String, DType)>> {
    let mut out: Vec<(String, DType)> = Vec::new();
    for p in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let mut it = p.split_whitespace();
        let (Some(ty), Some(name), None) = (it.next(), it.next(), it.next()) else {
            return Err(Error::arg(
                op,
                format!("parameter {p:?} is not `type name`"),
            ));
        };
        let ok = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && name != "i";
        if !ok || out.iter().any(|(n, _)| n == name) {
            return Err(Error::arg(
                op,
                format!("bad or repeated parameter name {name:?}"),
            ));
        }
        out.push((name.to_string(), parse_dtype(op, ty)?));
    }
    Ok(out)
}

impl ElementwiseKernel {
    /// Declares a kernel. `cpu` receives the inputs (converted to their declared types) and sets
    /// the outputs (each converted to its declared type afterwards).
    ///
    /// # Errors
    /// `InvalidArgument` for malformed parameter lists or names.
    pub fn new(
        in_params: &str,
        out_params: &str,
        operation: &str,
        name: &str,
        cpu: impl Fn(&[Scalar], &mut [Scalar]) + Send + Sync + 'static,
    ) -> Result<ElementwiseKernel> {
        let op = "ElementwiseKernel";
        let inputs = parse_params(op, in_params)?;
        let outputs = parse_params(op, out_params)?;
        if outputs.is_empty() {
            return Err(Error::arg(op, "at least one output parameter is needed"));
        }
        if inputs
            .iter()
            .any(|(n, _)| outputs.iter().any(|(m, _)| m == n))
        {
            return Err(Error::arg(op, "a name is both an input and an output"));
        }
        if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || name.is_empty() {
            return Err(Error::arg(op, format!("bad kernel name {name:?}")));
        }
        Ok(ElementwiseKernel {
            name: format!("user_{name}"),
            inputs,
            outputs,
            body: operation.to_string(),
            preamble: String::new(),
            cpu: Box::new(cpu),
        })
    }

    /// CUDA code placed before the kernel (device functions the statement calls).
    pub fn with_preamble(mut self, preamble: &str) -> Self {
        self.preamble = preamble.to_string();
        self
    }

    /// Runs the kernel: `inputs` in declaration order, results written into `outputs` (whose shape
    /// is the broadcast shape of the array inputs; outputs must have exactly that shape).
    ///
    /// # Errors
    /// `InvalidArgument` for a wrong number of arguments, `UnsupportedDType` when an array's type
    /// differs from its declaration, `ShapeMismatch`, `DeviceMismatch`.
    pub fn call(&self, inputs: &[Arg<'_>], outputs: &mut [&mut dyn AnyArrayMut]) -> Result<()> {
        let op = self.name.as_str();
        if inputs.len() != self.inputs.len() || outputs.len() != self.outputs.len() {
            return Err(Error::arg(
                op,
                format!(
                    "expected {} inputs and {} outputs, got {} and {}",
                    self.inputs.len(),
                    self.outputs.len(),
                    inputs.len(),
                    outputs.len()
                ),
            ));
        }
        let dev = outputs[0].any_device().clone();
        let mut shape: Vec<usize> = outputs[0].any_shape().to_vec();
        for (a, (n, d)) in inputs.iter().zip(&self.inputs) {
            if let Arg::Array(a) = a {
                if a.any_dtype() != *d {
                    return Err(Error::UnsupportedDType {
                        op: format!("{op} (parameter {n} is {d})"),
                        dtype: a.any_dtype(),
                    });
                }
                check_same_device(op, a.any_device(), &dev)?;
                shape = broadcast_shapes(op, &shape, a.any_shape())?;
            }
        }
        for (o, (n, d)) in outputs.iter().zip(&self.outputs) {
            if o.any_dtype() != *d {
                return Err(Error::UnsupportedDType {
                    op: format!("{op} (parameter {n} is {d})"),
                    dtype: o.any_dtype(),
                });
            }
            check_same_device(op, o.any_device(), &dev)?;
            if o.any_shape() != shape.as_slice() {
                return Err(Error::shape(
                    op,
                    format!(
                        "output {n} has shape {:?}, the inputs broadcast to {shape:?}",
                        o.any_shape()
                    ),
                ));
            }
        }
        for o in outputs.iter_mut() {
            o.prepare_write()?;
        }
        match &dev {
            Device::Cpu => self.call_cpu(inputs, outputs, &shape),
            Device::Cuda(cd) => {
                let mut params = Vec::new();
                let mut arrays = Vec::new();
                let mut scalars = Vec::new();
                for (a, (n, d)) in inputs.iter().zip(&self.inputs) {
                    match a {
                        Arg::Array(a) => {
                            params.push(Param::In(n.clone(), *d));
                            arrays.push(a.operand(&shape)?);
                        }
                        Arg::Scalar(s) => {
                            params.push(Param::Scalar(n.clone(), *d));
                            scalars.push(s.cast_to(*d));
                        }
                    }
                }
                for (o, (n, d)) in outputs.iter().zip(&self.outputs) {
                    params.push(Param::Out(n.clone(), *d));
                    arrays.push(o.operand(&shape)?);
                }
                let spec = EwSpec {
                    name: self.name.clone(),
                    params,
                    body: self.body.clone(),
                    preamble: self.preamble.clone(),
                };
                launch(cd, &spec, &shape, &arrays, &scalars)
            }
        }
    }

    fn call_cpu(
        &self,
        inputs: &[Arg<'_>],
        outputs: &mut [&mut dyn AnyArrayMut],
        shape: &[usize],
    ) -> Result<()> {
        let n: usize = shape.iter().product();
        let cols: Vec<Option<Vec<Scalar>>> = inputs
            .iter()
            .map(|a| match a {
                Arg::Array(a) => a.read(shape).map(Some),
                Arg::Scalar(_) => Ok(None),
            })
            .collect::<Result<_>>()?;
        let fixed: Vec<Option<Scalar>> = inputs
            .iter()
            .zip(&self.inputs)
            .map(|(a, (_, d))| match a {
                Arg::Scalar(s) => Some(s.cast_to(*d)),
                Arg::Array(_) => None,
            })
            .collect();
        let mut res: Vec<Vec<Scalar>> = self
            .outputs
            .iter()
            .map(|(_, d)| vec![Scalar::Bool(false).cast_to(*d); n])
            .collect();
        let mut ins = vec![Scalar::Bool(false); inputs.len()];
        let mut outs: Vec<Scalar> = self
            .outputs
            .iter()
            .map(|(_, d)| Scalar::Bool(false).cast_to(*d))
            .collect();
        for i in 0..n {
            for (k, v) in ins.iter_mut().enumerate() {
                *v = match (&cols[k], fixed[k]) {
                    (Some(c), _) => c[i],
                    (None, Some(s)) => s,
                    (None, None) => unreachable!("each input is an array or a scalar"),
                };
            }
            (self.cpu)(&ins, &mut outs);
            for (k, o) in outs.iter().enumerate() {
                res[k][i] = o.cast_to(self.outputs[k].1);
            }
        }
        for (o, r) in outputs.iter_mut().zip(res) {
            o.write_all(&r)?;
        }
        Ok(())
    }
}

/// A writable array of any element type (the outputs of [`ElementwiseKernel::call`]).
pub trait AnyArrayMut: AnyArray {
    #[doc(hidden)]
    fn prepare_write(&mut self) -> Result<()>;
    #[doc(hidden)]
    fn write_all(&mut self, v: &[Scalar]) -> Result<()>;
}

impl<T: Element> AnyArrayMut for Array<T> {
    fn prepare_write(&mut self) -> Result<()> {
        self.make_unique()
    }
    fn write_all(&mut self, v: &[Scalar]) -> Result<()> {
        let vals: Vec<T> = v.iter().map(|s| s.to::<T>()).collect();
        let off = self.offset;
        match std::sync::Arc::get_mut(&mut self.storage) {
            Some(Storage::Cpu(d)) => {
                d[off..off + vals.len()].copy_from_slice(&vals);
                Ok(())
            }
            _ => Err(Error::arg(
                "ElementwiseKernel",
                "output is not a unique CPU array",
            )),
        }
    }
}

/// A hand-written CUDA kernel (CuPy's `RawKernel`): source, entry name and NVRTC options.
///
/// The source is compiled on first launch on each device (and cached in memory and on disk).
/// It runs only on CUDA devices: there is no CPU twin of arbitrary CUDA code, so launching on
/// the CPU is `NotImplemented`.
pub struct RawKernel {
    source: String,
    name: String,
    options: Vec<String>,
}

/// One argument of a [`RawKernel`] launch.
pub enum RawArg<'a> {
    /// An array's device address (the element at its offset).
    Array(&'a dyn AnyArray),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F32(f32),
    F64(f64),
}

impl RawKernel {
    /// A kernel named `name` (declared `extern "C" __global__`) in `source`.
    pub fn new(source: &str, name: &str) -> RawKernel {
        RawKernel {
            source: source.to_string(),
            name: name.to_string(),
            options: Vec::new(),
        }
    }

    /// Extra NVRTC options (e.g. `-DN=4`).
    pub fn with_options(mut self, options: &[&str]) -> Self {
        self.options = options.iter().map(|s| s.to_string()).collect();
        self
    }

    /// Launches on `dev` with `grid` blocks of `block` threads and `shared_mem` bytes of dynamic
    /// shared memory. The kernel may write through any array it is given; arrays alias as their
    /// storage does (views share it).
    ///
    /// # Errors
    /// `NotImplemented` on the CPU; `Compile` with NVRTC's log; `DeviceMismatch` for an array on
    /// another device; `Cuda` for a launch the driver refuses.
    pub fn launch(
        &self,
        dev: &Device,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        shared_mem: u32,
        args: &[RawArg<'_>],
    ) -> Result<()> {
        let Device::Cuda(cd) = dev else {
            return Err(Error::NotImplemented {
                op: format!("RawKernel {}", self.name),
                device: dev.to_string(),
            });
        };
        let key = format!("raw|{}|{:?}|{}", self.name, self.options, self.source);
        let opts: Vec<&str> = self.options.iter().map(String::as_str).collect();
        let f = cd.function(&key, || self.source.clone(), &opts, &self.name)?;
        let ops = args
            .iter()
            .map(|arg| match arg {
                RawArg::Array(x) => {
                    check_same_device("RawKernel", x.any_device(), dev)?;
                    x.operand(x.any_shape()).map(Some)
                }
                _ => Ok(None),
            })
            .collect::<Result<Vec<_>>>()?;
        let cfg = LaunchConfig {
            grid,
            block,
            shared_mem_bytes: shared_mem,
        };
        let mut l = cd.launch(&f, cfg);
        for (arg, op) in args.iter().zip(&ops) {
            l = match (arg, op) {
                (_, Some(op)) => l.arg(op.ptr),
                (RawArg::I32(v), _) => l.arg(*v),
                (RawArg::U32(v), _) => l.arg(*v),
                (RawArg::I64(v), _) => l.arg(*v),
                (RawArg::U64(v), _) => l.arg(*v),
                (RawArg::F32(v), _) => l.arg(*v),
                (RawArg::F64(v), _) => l.arg(*v),
                (RawArg::Array(_), None) => unreachable!("every array has its operand"),
            };
        }
        l.run()
    }
}
