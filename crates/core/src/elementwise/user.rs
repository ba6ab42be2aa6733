//! User kernels: [`ElementwiseKernel`] (typed parameters, a CUDA statement and its CPU twin, as
//! CuPy's) and [`RawKernel`] (hand-written CUDA, GPU only).

use super::{launch, EwSpec, Operand, Param, Scalar};
use crate::array::layout::broadcast_shapes;
use crate::array::{check_same_device, Array, Storage};
use crate::cuda::kernel::LaunchConfig;
use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};

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
        Ok(crate::cpu::gather(&b)?
            .into_iter()
            .map(Scalar::of)
            .collect())
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
