//! The CUDA source of a generated element-wise kernel: from one description (typed parameters
//! and a statement) a strided entry point and two contiguous ones (scalar and vectorised).

use crate::dtype::DType;
use std::fmt::Write as _;

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
    pub(super) fn key(&self) -> String {
        format!(
            "{}|{:?}|{}|{}",
            self.name, self.params, self.body, self.preamble
        )
    }

    pub(super) fn vec_width(&self) -> usize {
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

    pub(crate) fn source(&self) -> String {
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
