//! Helpers shared by the signal modules: the element types they accept, axis bookkeeping, the
//! pieces of kernel sources, host operands and optional launch arguments.

use cusci_core::array::check_same_device;
use cusci_core::error::make;
use cusci_core::{
    c32, c64, Array, Backend, CudaDevice, DType, Device, Element, Float, Function, KernelModule,
    Result, Spec,
};
use std::borrow::Cow;
use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

/// The element types of the filtering and convolution functions: `f32`, `f64`, `c32`, `c64`.
///
/// Implemented for exactly those four; the arithmetic is the ordinary one of each type.
pub trait SignalScalar:
    Float
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + Send
    + Sync
    + 'static
{
    /// Whether the value is finite (both parts for complex values).
    fn is_finite_val(self) -> bool;
    /// The full linear convolution of two contiguous 1-D arrays through `cusci_fft` (real
    /// transforms for real types), on their device.
    #[doc(hidden)]
    fn fft_convolve_full(a: &Array<Self>, b: &Array<Self>) -> Result<Array<Self>>;
    /// The full linear convolution along `axes` (other axes broadcast) through N-D transforms
    /// of lengths `fshape`, before cropping (the caller crops to the full size and the mode).
    #[doc(hidden)]
    fn fft_convolve_nd(
        a: &Array<Self>,
        b: &Array<Self>,
        axes: &[usize],
        fshape: &[usize],
    ) -> Result<Array<Self>>;
    /// The value as a complex double.
    fn c(self) -> c64 {
        self.to_c64()
    }
}

/// The `SignalScalar` impls of real types (`rfft`…) and of complex types (`fft`…, both parts
/// finite); the last arm is one impl: `$finite` tests a value `$v`, the convolutions use
/// `cusci_fft`'s transforms `$fft`… (`$real`: a real transform's fast lengths).
macro_rules! signal_scalar {
    (real: $($t:ty),*) => {
        $(signal_scalar!($t, |v| v.is_finite(), true, rfft, irfft, rfftn, irfftn);)*
    };
    (complex: $($t:ty),*) => {
        $(signal_scalar!(
            $t,
            |v| v.re.is_finite() && v.im.is_finite(),
            false,
            fft,
            ifft,
            fftn,
            ifftn
        );)*
    };
    ($t:ty, |$v:ident| $finite:expr, $real:literal, $fft:ident, $ifft:ident, $fftn:ident, $ifftn:ident) => {
        impl SignalScalar for $t {
            fn is_finite_val(self) -> bool {
                let $v = self;
                $finite
            }
            fn fft_convolve_full(a: &Array<Self>, b: &Array<Self>) -> Result<Array<Self>> {
                let full = a.size() + b.size() - 1;
                let nfft = cusci_fft::next_fast_len(full, $real)?;
                let o = cusci_fft::FftOptions {
                    n: Some(nfft),
                    ..Default::default()
                };
                let fa = cusci_fft::$fft(a, &o)?;
                let fb = cusci_fft::$fft(b, &o)?;
                let y = cusci_fft::$ifft(&fa.mul(&fb)?, &o)?;
                y.slice_axis(0, Some(0), Some(full as isize), 1)?
                    .contiguous()
            }
            fn fft_convolve_nd(
                a: &Array<Self>,
                b: &Array<Self>,
                axes: &[usize],
                fshape: &[usize],
            ) -> Result<Array<Self>> {
                let o = cusci_fft::FftnOptions {
                    s: Some(fshape.to_vec()),
                    axes: Some(axes.iter().map(|&v| v as isize).collect()),
                    ..Default::default()
                };
                let fa = cusci_fft::$fftn(a, &o)?;
                let fb = cusci_fft::$fftn(b, &o)?;
                cusci_fft::$ifftn(&fa.mul(&fb)?, &o)
            }
        }
    };
}
signal_scalar!(real: f32, f64);
signal_scalar!(complex: c32, c64);

/// The element types of the filtering and convolution kernels, in the samples' order.
pub(crate) const SIGNAL_DTYPES: [DType; 4] = [DType::F32, DType::F64, DType::C32, DType::C64];

/// The real element types (modules whose kernels take `float`/`double`).
pub(crate) const REAL_DTYPES: [DType; 2] = [DType::F32, DType::F64];

/// One sample specialisation per element type of `ts` (a module's `samples`).
pub(crate) fn each_dtype(ts: &[DType]) -> Vec<Spec> {
    ts.iter().map(|&t| Spec::of(&[t])).collect()
}

/// A line `#define KEY value` of a typed module's header ([`typed_source`]), its value computed
/// from the element type.
pub(crate) type Define = (&'static str, fn(DType) -> String);

/// `TZERO`: the element type's zero ([`zero_literal`]).
pub(crate) const DEF_TZERO: Define = ("TZERO", zero_literal);

/// `TMAKE(re, im)`: the element type from two doubles ([`tmake`]).
pub(crate) const DEF_TMAKE: Define = ("TMAKE(re, im)", |t| tmake(t).to_string());

/// `R`: the element type's real type ([`real_of`]).
pub(crate) const DEF_R: Define = ("R", |t| real_of(t).cuda_name().to_string());

/// `ACC`: the accumulator type (`double`, or `cplx64` for complex types).
pub(crate) const DEF_ACC: Define = ("ACC", |t| {
    match t {
        DType::C32 | DType::C64 => "cplx64",
        _ => "double",
    }
    .to_string()
});

/// The source of the module `module` for one element type `s = [t]`: `#define T <t>`, the
/// `defines` in order, `#define NAME(x) <module>_<tag>_##x` (the kernels' names, see
/// [`typed_kernel`]), then `src`.
pub(crate) fn typed_source(
    module: &str,
    s: &Spec,
    defines: &[Define],
    src: &str,
) -> Result<String> {
    let t = s.dtype(0)?;
    let mut out = format!("#define T {}\n", t.cuda_name());
    for (key, value) in defines {
        out.push_str(&format!("#define {key} {}\n", value(t)));
    }
    out.push_str(&format!("#define NAME(x) {module}_{}_##x\n{src}", t.tag()));
    Ok(out)
}

/// The kernel `name` of a module built by [`typed_source`], for the element type `t`.
pub(crate) fn typed_kernel(
    m: &KernelModule,
    d: &CudaDevice,
    t: DType,
    name: &str,
) -> Result<Function> {
    m.function(
        d,
        &Spec::of(&[t]),
        &format!("{}_{}_{name}", m.name, t.tag()),
    )
}

/// The kernels' name prefix of the module `module` for an element type and one size,
/// `s = [t][k]`: `<module>_<tag>_k<k>`.
fn sized_prefix(module: &str, s: &Spec) -> Result<String> {
    Ok(format!("{module}_{}_k{}", s.dtype(0)?.tag(), s.int(0)?))
}

/// The source of the module `module` for `s = [t][k]`: `#define T <t>`, `#define <key> <k>`,
/// `NAME(x)` with [`sized_prefix`], then `src`.
pub(crate) fn sized_source(module: &str, key: &str, s: &Spec, src: &str) -> Result<String> {
    Ok(format!(
        "#define T {}\n#define {key} {}\n#define NAME(x) {}_##x\n{src}",
        s.dtype(0)?.cuda_name(),
        s.int(0)?,
        sized_prefix(module, s)?
    ))
}

/// The kernel `name` of a module built by [`sized_source`], for the specialisation `s`.
pub(crate) fn sized_kernel(
    m: &KernelModule,
    d: &CudaDevice,
    s: &Spec,
    name: &str,
) -> Result<Function> {
    m.function(d, s, &format!("{}_{name}", sized_prefix(m.name, s)?))
}

/// The CUDA literal of `t`'s zero (`TZERO` in the kernel sources).
pub(crate) fn zero_literal(t: DType) -> String {
    match t {
        DType::C32 => "mk(0.0f, 0.0f)".into(),
        DType::C64 => "mk(0.0, 0.0)".into(),
        _ => format!("(({})0)", t.cuda_name()),
    }
}

/// The CUDA constructor `TMAKE(re, im)` of `t` from two doubles.
pub(crate) fn tmake(t: DType) -> &'static str {
    match t {
        DType::C32 => "mk((float)(re), (float)(im))",
        DType::C64 => "mk((double)(re), (double)(im))",
        DType::F32 => "((float)(re))",
        _ => "((double)(re))",
    }
}

/// The real type of `t` (itself for real types).
pub(crate) fn real_of(t: DType) -> DType {
    match t {
        DType::C32 => DType::F32,
        DType::C64 => DType::F64,
        t => t,
    }
}

/// `(outer, n, inner)`: the products of the dimensions before `axis`, its length, and the
/// product after it (a C-contiguous array seen as `outer` blocks of `n` rows of `inner`).
pub(crate) fn split_axis(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    (outer, shape[axis], inner)
}

/// The host values of a (small) array, C order; synchronises when it lives on a GPU.
pub(crate) fn host<T: Element>(a: &Array<T>) -> Result<Vec<T>> {
    a.to_vec()
}

/// The C-order elements of an operand that lives on the CPU beside the array a front end
/// matched on (borrowed when contiguous); `DeviceMismatch` for an array on a GPU.
pub(crate) fn host_elems<T: Element>(a: &Array<T>) -> Result<Cow<'_, [T]>> {
    match a.backend() {
        Backend::Host(h) => Ok(h.try_to_contiguous()?),
        Backend::Cuda(_) => {
            check_same_device("cusci_signal", &Device::Cpu, a.device())?;
            Err(make::arg("cusci_signal", "a CPU operand was expected"))
        }
    }
}

/// `v` as an element of `T` (real part for complex types).
pub(crate) fn from_f64<T: Element>(v: f64) -> T {
    T::from_c64(c64::new(v, 0.0))
}
