//! The GPU side of the reductions and the scan: kernel modules built from `reduce.cu` (one per
//! operation group and element type), the read plan of an input, and the launches of each path
//! (warp, block, two-pass, column; the warp, lane and three-pass scans).

use super::{perm_to_end, rows_of};
use crate::array::layout::{c_strides, coalesce};
use crate::array::Array;
use crate::cuda::kernel::LaunchConfig;
use crate::cuda::launch::{DevPtr, DevPtrMut, KernelModule, KernelParam, Spec};
use crate::cuda::memory::DeviceBuffer;
use crate::device::CudaDevice;
use crate::dtype::{DType, Element, Numeric};
use crate::error::{Error, Result};

const SRC: &str = include_str!("reduce.cu");
const MAXD: usize = 8;
const THREADS: u32 = 256;
/// Rows up to this length are reduced by one warp (or a group of lanes) each.
const WARP_ROW_MAX: usize = 1024;
/// Elements per slice at least, in the two-pass reduction.
const MIN_SLICE: usize = 2048;
/// Elements per block-scan chunk (RD_SCAN_CHUNK in reduce.cu).
const SCAN_CHUNK: usize = 2048;
/// Lanes up to this length are scanned by one warp each.
const WARP_LANE_MAX: usize = 256;
/// The largest grid used with grid-stride loops.
const MAX_GRID: usize = 1 << 20;

/// The GPU operations (each a struct template of reduce.cu).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum GOp {
    Sum,
    Mean,
    MeanW,
    Norm,
    Var,
    Std,
    Min,
    Max,
    Argmin,
    Argmax,
}

const ALL_GOPS: [GOp; 10] = [
    GOp::Sum,
    GOp::Mean,
    GOp::MeanW,
    GOp::Norm,
    GOp::Var,
    GOp::Std,
    GOp::Min,
    GOp::Max,
    GOp::Argmin,
    GOp::Argmax,
];

impl GOp {
    fn name(self) -> &'static str {
        match self {
            GOp::Sum => "sum",
            GOp::Mean => "mean",
            GOp::MeanW => "meanw",
            GOp::Norm => "norm",
            GOp::Var => "var",
            GOp::Std => "std",
            GOp::Min => "min",
            GOp::Max => "max",
            GOp::Argmin => "argmin",
            GOp::Argmax => "argmax",
        }
    }
    fn strukt(self) -> &'static str {
        match self {
            GOp::Sum => "RdSum",
            GOp::Mean => "RdMean",
            GOp::MeanW => "RdMeanW",
            GOp::Norm => "RdNorm",
            GOp::Var => "RdVar",
            GOp::Std => "RdStd",
            GOp::Min => "RdMin",
            GOp::Max => "RdMax",
            GOp::Argmin => "RdArgmin",
            GOp::Argmax => "RdArgmax",
        }
    }
    /// The module (cache key part) and the operations compiled into it.
    fn module(self) -> (&'static str, &'static [GOp]) {
        match self {
            GOp::MeanW | GOp::Var | GOp::Std => ("var", &[GOp::MeanW, GOp::Var, GOp::Std]),
            GOp::Sum => ("sum", &[GOp::Sum]),
            GOp::Mean => ("mean", &[GOp::Mean]),
            GOp::Norm => ("norm", &[GOp::Norm]),
            GOp::Min => ("min", &[GOp::Min]),
            GOp::Max => ("max", &[GOp::Max]),
            GOp::Argmin => ("argmin", &[GOp::Argmin]),
            GOp::Argmax => ("argmax", &[GOp::Argmax]),
        }
    }
    /// Which element types the operation takes.
    fn accepts(self, t: DType) -> bool {
        match self {
            GOp::Sum => t != DType::Bool,
            GOp::Mean | GOp::MeanW | GOp::Norm | GOp::Var | GOp::Std => {
                t.is_real_float() || t.is_complex()
            }
            GOp::Min | GOp::Max | GOp::Argmin | GOp::Argmax => !t.is_complex(),
        }
    }
    /// The accumulator's CUDA type and size in bytes.
    fn acc(self, t: DType) -> (String, usize) {
        match self {
            GOp::Sum | GOp::Mean | GOp::MeanW => (wide(t).to_string(), wide_size(t)),
            GOp::Norm | GOp::Var | GOp::Std => ("double".into(), 8),
            GOp::Min | GOp::Max => match t {
                DType::U8 | DType::Bool => ("int".into(), 4),
                _ => (t.cuda_name().to_string(), t.size()),
            },
            GOp::Argmin | GOp::Argmax => (format!("RdPair<{}>", t.cuda_name()), 16),
        }
    }
    /// The output's CUDA type.
    fn out(self, t: DType) -> &'static str {
        match self {
            GOp::Sum | GOp::Mean | GOp::Min | GOp::Max => t.cuda_name(),
            GOp::MeanW => wide(t),
            GOp::Norm | GOp::Var | GOp::Std => match t {
                DType::F32 | DType::C32 => "float",
                _ => "double",
            },
            GOp::Argmin | GOp::Argmax => "i64",
        }
    }
}

/// The summation type of `t` in kernels (unsigned for integers: wrapping is defined there).
fn wide(t: DType) -> &'static str {
    match t {
        DType::F32 | DType::F64 => "double",
        DType::C32 | DType::C64 => "cplx64",
        DType::I64 => "u64",
        DType::I32 | DType::U8 | DType::Bool => "unsigned int",
    }
}

fn wide_size(t: DType) -> usize {
    match t {
        DType::F32 | DType::F64 | DType::I64 => 8,
        DType::C32 | DType::C64 => 16,
        DType::I32 | DType::U8 | DType::Bool => 4,
    }
}

fn sections() -> (&'static str, &'static str, &'static str) {
    let (lib, rest) = SRC.split_once("\n//@@REDUCE\n").unwrap_or((SRC, ""));
    let (red, scan) = rest.split_once("\n//@@SCAN\n").unwrap_or((rest, ""));
    (lib, red, scan)
}

fn substitute(section: &str, name: &str, op: &str, t: DType, acc: &str, out: &str) -> String {
    section
        .replace("{{NAME}}", name)
        .replace("{{OP}}", op)
        .replace("{{T}}", t.cuda_name())
        .replace("{{ACC}}", acc)
        .replace("{{OUT}}", out)
        .replace("{{W}}", wide(t))
        .replace("{{V}}", &(16 / t.size()).max(1).to_string())
}

fn kname(op: GOp, t: DType) -> String {
    format!("cusci_reduce_{}_{}", op.name(), t.tag())
}

fn reduce_source(ops: &[GOp], t: DType) -> String {
    let (lib, red, _) = sections();
    let mut s = lib.to_string();
    for &op in ops {
        let (acc, _) = op.acc(t);
        s.push_str(&substitute(
            red,
            &kname(op, t),
            op.strukt(),
            t,
            &acc,
            op.out(t),
        ));
    }
    s
}

fn scan_name(t: DType) -> String {
    format!("cusci_cumsum_{}", t.tag())
}

fn scan_source(t: DType) -> String {
    let (lib, _, scan) = sections();
    let mut s = lib.to_string();
    s.push_str(&substitute(
        scan,
        &scan_name(t),
        "",
        t,
        wide(t),
        t.cuda_name(),
    ));
    s
}

/// The reduction modules: one per operation group and element type (`Spec`: the element type,
/// and the index in `ALL_GOPS` of the group's first operation).
pub(crate) static REDUCE: KernelModule = KernelModule {
    name: "reduce",
    source: |s| {
        let op = usize::try_from(s.int(0)?)
            .ok()
            .and_then(|i| ALL_GOPS.get(i))
            .ok_or_else(|| Error::arg("reduce", "no such reduction group"))?;
        Ok(reduce_source(op.module().1, s.dtype(0)?))
    },
    options: &[],
    samples: || {
        let mut v = Vec::new();
        for t in DType::ALL {
            for op in ALL_GOPS {
                let spec = reduce_spec(op, t);
                if op.accepts(t) && !v.contains(&spec) {
                    v.push(spec);
                }
            }
        }
        v
    },
};

/// The cumulative-sum modules, one per element type (every type but bool).
pub(crate) static SCAN: KernelModule = KernelModule {
    name: "cumsum",
    source: |s| Ok(scan_source(s.dtype(0)?)),
    options: &[],
    samples: || {
        DType::ALL
            .iter()
            .filter(|&&t| t != DType::Bool)
            .map(|&t| Spec::of(&[t]))
            .collect()
    },
};

/// The specialisation of [`REDUCE`] that holds `op`'s kernels for `t`.
fn reduce_spec(op: GOp, t: DType) -> Spec {
    let first = op.module().1[0];
    let i = ALL_GOPS.iter().position(|&g| g == first).unwrap_or(0);
    Spec::of(&[t]).with(&[i as i64])
}

/// Outer dimensions as reduce.cu's `RdOuter`.
#[repr(C)]
#[derive(Clone, Copy)]
struct KOuter {
    ndim: i32,
    pad: i32,
    dims: [i64; MAXD],
    strides: [i64; MAXD],
}
// SAFETY: plain #[repr(C)] data laid out as reduce.cu's RdOuter (int, int, long long[], long long[]).
unsafe impl KernelParam for KOuter {}

fn kouter(dims: &[usize], strides: &[isize]) -> KOuter {
    let mut k = KOuter {
        ndim: dims.len() as i32,
        pad: 0,
        dims: [1; MAXD],
        strides: [0; MAXD],
    };
    for (i, (&d, &s)) in dims.iter().zip(strides).enumerate().take(MAXD) {
        k.dims[i] = d.max(1) as i64;
        k.strides[i] = s as i64;
    }
    k
}

/// How a reduction reads its input on the GPU: `nrows` rows of `r` elements, row `i` starting at
/// element offset `rd_off(outer, i)` from the first element of `src`, element `j` of a row at
/// `j * rs` from there.
struct GPlan<T: Element> {
    /// The input or a contiguous copy of it.
    src: Array<T>,
    outer: KOuter,
    nrows: usize,
    r: usize,
    rs: i64,
    /// Read as columns: one thread per output, outputs adjacent in memory.
    col: bool,
}

fn gplan<T: Element>(a: &Array<T>, red: &[usize]) -> Result<GPlan<T>> {
    let (nrows, r) = rows_of(&a.shape, red);
    let kept: Vec<usize> = (0..a.ndim()).filter(|d| !red.contains(d)).collect();
    let ks: Vec<usize> = kept.iter().map(|&d| a.shape[d]).collect();
    let kst: Vec<isize> = kept.iter().map(|&d| a.strides[d]).collect();
    let rsh: Vec<usize> = red.iter().map(|&d| a.shape[d]).collect();
    let rst: Vec<isize> = red.iter().map(|&d| a.strides[d]).collect();
    let (rd, rstr) = coalesce(&rsh, &[rst]);
    let (kd, kstr) = coalesce(&ks, &[kst]);
    if rd.len() == 1 && kd.len() <= MAXD {
        let rs = rstr[0][0] as i64;
        let kin = *kstr[0].last().unwrap_or(&0);
        let col = rs != 1 && r > 1 && kin == 1 && *kd.last().unwrap_or(&0) >= 32;
        return Ok(GPlan {
            src: a.clone(),
            outer: kouter(&kd, &kstr[0]),
            nrows,
            r,
            rs,
            col,
        });
    }
    // the reduced block is not one strided run (or too many outer dimensions): copy it so
    let c = a.permute(&perm_to_end(a.ndim(), red))?.contiguous()?;
    Ok(GPlan {
        src: c,
        outer: kouter(&[nrows], &[r as isize]),
        nrows,
        r,
        rs: 1,
        col: false,
    })
}

fn grid2(x: usize, y: usize) -> LaunchConfig {
    LaunchConfig {
        grid: (
            x.clamp(1, u32::MAX as usize) as u32,
            y.clamp(1, 65535) as u32,
            1,
        ),
        block: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Queues `op` over the rows of `p`, writing one output per row at `y` (`aux`: the per-row means of
/// var/std; `ddof`: their divisor's offset).
fn run_reduce<T: Element>(
    dev: &CudaDevice,
    op: GOp,
    p: &GPlan<T>,
    mut y: DevPtrMut<'_, u8>,
    aux: DevPtr<'_, u8>,
    ddof: usize,
) -> Result<()> {
    let t = T::DTYPE;
    let x = p.src.dev_ptr()?;
    if p.nrows == 0 {
        return Ok(());
    }
    if !op.accepts(t) {
        return Err(Error::dtype(op.name(), t));
    }
    let spec = reduce_spec(op, t);
    let name = kname(op, t);
    let get = |kind: &str| REDUCE.function(dev, &spec, &format!("{name}_{kind}"));
    let (_, acc_size) = op.acc(t);
    let sms = dev.props().multiprocessors.max(1);
    let (nrows, r) = (p.nrows as i64, p.r as i64);
    let ddof = ddof.min(i64::MAX as usize) as i64;

    if p.col {
        // one thread per output, blocks of THREADS / span slices of span outputs; the reduced axis
        // split into s slices of l when outputs are few
        let span = p.nrows.next_power_of_two().clamp(32, THREADS as usize);
        let per_block = THREADS as usize / span;
        let s0 = (sms * 2048)
            .div_ceil(p.nrows)
            .clamp(1, p.r.div_ceil(32).max(1))
            .min(65535 * per_block);
        let l = p.r.div_ceil(s0);
        let s = p.r.div_ceil(l);
        let gx = p.nrows.div_ceil(span).min(MAX_GRID);
        let f = get("col")?;
        let mut part = if s > 1 {
            Some(DeviceBuffer::alloc(dev, s * p.nrows * acc_size)?)
        } else {
            None
        };
        // many slices (few outputs): partials [nout, s], one block per output combines them;
        // else partials [s, nout], one thread per output
        let by_block = s > 64;
        let (ps, po) = if by_block { (1, s as i64) } else { (nrows, 1) };
        let launch = dev.launch(&f, grid2(gx, s.div_ceil(per_block))).arg(x);
        let launch = match part.as_mut() {
            Some(b) => launch.arg(b.dev_ptr_mut()),
            None => launch.arg(&mut y),
        };
        launch
            .arg(p.outer)
            .arg(nrows)
            .arg(r)
            .arg(p.rs)
            .arg(l as i64)
            .arg(s as i64)
            .arg(aux)
            .arg(ddof)
            .arg(span as i32)
            .arg(ps)
            .arg(po)
            .run()?;
        if let Some(part) = &part {
            let f = get(if by_block { "fin" } else { "colfin" })?;
            let g = if by_block {
                p.nrows.min(MAX_GRID)
            } else {
                p.nrows.div_ceil(THREADS as usize).min(MAX_GRID)
            };
            dev.launch(&f, grid2(g, 1))
                .arg(part.dev_ptr())
                .arg(y)
                .arg(nrows)
                .arg(s as i64)
                .arg(r)
                .arg(ddof)
                .run()?;
        }
        return Ok(());
    }

    if p.r <= WARP_ROW_MAX {
        // groups of g lanes per row, each lane with about 4 loads (vectors when contiguous)
        let v = if p.rs == 1 { 16 / t.size().max(1) } else { 1 };
        let g = p.r.div_ceil(v).div_ceil(4).next_power_of_two().clamp(1, 32);
        let f = get("warp")?;
        let rows_per_block = (THREADS as usize / 32) * (32 / g);
        let blocks = p.nrows.div_ceil(rows_per_block).min(sms * 64).min(MAX_GRID);
        return dev
            .launch(&f, grid2(blocks, 1))
            .arg(x)
            .arg(y)
            .arg(p.outer)
            .arg(nrows)
            .arg(r)
            .arg(p.rs)
            .arg(aux)
            .arg(ddof)
            .arg(g as i32)
            .run();
    }
    let fpart = get("part")?;
    let target = sms * fpart.occupancy(THREADS, 0)?.max(1) as usize;
    let s = if p.nrows >= target || p.nrows > 65535 {
        1
    } else {
        target.div_ceil(p.nrows).min(p.r.div_ceil(MIN_SLICE))
    };
    if s <= 1 {
        let f = get("block")?;
        return dev
            .launch(&f, grid2(p.nrows.min(MAX_GRID), 1))
            .arg(x)
            .arg(y)
            .arg(p.outer)
            .arg(nrows)
            .arg(r)
            .arg(p.rs)
            .arg(aux)
            .arg(ddof)
            .run();
    }
    // two passes: s slices of l elements per row (l a multiple of 64), then one block per row
    let l = p.r.div_ceil(s).div_ceil(64) * 64;
    let s = p.r.div_ceil(l);
    let mut part = DeviceBuffer::alloc(dev, s * p.nrows * acc_size)?;
    dev.launch(&fpart, grid2(s, p.nrows))
        .arg(x)
        .arg(part.dev_ptr_mut())
        .arg(p.outer)
        .arg(nrows)
        .arg(r)
        .arg(p.rs)
        .arg(l as i64)
        .arg(s as i64)
        .arg(aux)
        .run()?;
    let f = get("fin")?;
    dev.launch(&f, grid2(p.nrows.min(MAX_GRID), 1))
        .arg(part.dev_ptr())
        .arg(y)
        .arg(nrows)
        .arg(s as i64)
        .arg(r)
        .arg(ddof)
        .run()
}

pub(super) fn cumsum_cuda<T: Numeric>(
    dev: &CudaDevice,
    a: &Array<T>,
    axis: usize,
) -> Result<Array<T>> {
    let mut out = Array::<T>::alloc("cumsum", &a.shape, &a.device)?;
    if a.size() == 0 {
        return Ok(out);
    }
    let t = T::DTYPE;
    let cst = c_strides(&a.shape);
    let kept: Vec<usize> = (0..a.ndim()).filter(|&d| d != axis).collect();
    let ks: Vec<usize> = kept.iter().map(|&d| a.shape[d]).collect();
    let layout = |src: &Array<T>| {
        let ist: Vec<isize> = kept.iter().map(|&d| src.strides[d]).collect();
        let ost: Vec<isize> = kept.iter().map(|&d| cst[d]).collect();
        coalesce(&ks, &[ist, ost])
    };
    let mut src = a.clone();
    let (mut kd, mut kst) = layout(&src);
    if kd.len() > MAXD {
        src = a.contiguous()?;
        (kd, kst) = layout(&src);
    }
    let oin = kouter(&kd, &kst[0]);
    let oout = kouter(&kd, &kst[1]);
    let x = src.dev_ptr()?;
    let mut y = out.dev_ptr_mut()?;
    let l = a.shape[axis];
    let nl = a.size() / l;
    let (rs, os) = (src.strides[axis] as i64, cst[axis] as i64);
    let spec = Spec::of(&[t]);
    let name = scan_name(t);
    let get = |kind: &str| SCAN.function(dev, &spec, &format!("{name}_{kind}"));
    let sms = dev.props().multiprocessors.max(1);
    // the lanes' arguments, shared by the warp, lane and fix kernels
    let lanes = |f, cfg, y| {
        dev.launch(f, cfg)
            .arg(x)
            .arg(y)
            .arg(oin)
            .arg(oout)
            .arg(nl as i64)
            .arg(l as i64)
            .arg(rs)
            .arg(os)
    };
    if l <= WARP_LANE_MAX {
        let f = get("warp")?;
        let g = nl
            .div_ceil(THREADS as usize / 32)
            .min(sms * 64)
            .min(MAX_GRID);
        lanes(&f, grid2(g, 1), &mut y).run()?;
        return Ok(out);
    }
    if nl >= sms * 2 || l <= 8 * SCAN_CHUNK || nl > 65535 {
        let f = get("lane")?;
        lanes(&f, grid2(nl.min(MAX_GRID), 1), &mut y).run()?;
        return Ok(out);
    }
    // long lanes: chunk sums, their exclusive scan, then each chunk from its prefix
    let nch = l.div_ceil(SCAN_CHUNK);
    let mut sums = DeviceBuffer::alloc(dev, nl * nch * wide_size(t))?;
    let f = get("sums")?;
    dev.launch(&f, grid2(nch, nl))
        .arg(x)
        .arg(sums.dev_ptr_mut())
        .arg(oin)
        .arg(nl as i64)
        .arg(l as i64)
        .arg(rs)
        .arg(nch as i64)
        .run()?;
    let f = get("excl")?;
    dev.launch(&f, grid2(nl, 1))
        .arg(sums.dev_ptr_mut())
        .arg(nl as i64)
        .arg(nch as i64)
        .run()?;
    let f = get("fix")?;
    lanes(&f, grid2(nch, nl), &mut y)
        .arg(sums.dev_ptr())
        .arg(nch as i64)
        .run()?;
    Ok(out)
}

/// `op` over the axes `red` of `a` on its GPU, into a new array of `shape` (var and std first
/// reduce the per-row means).
pub(super) fn reduce_cuda<T: Element, O: Element>(
    dev: &CudaDevice,
    a: &Array<T>,
    op: GOp,
    red: &[usize],
    ddof: usize,
    shape: &[usize],
) -> Result<Array<O>> {
    let mut out = Array::<O>::alloc(op.name(), shape, &a.device)?;
    let plan = gplan(a, red)?;
    let y = out.dev_ptr_mut()?.untyped();
    if matches!(op, GOp::Var | GOp::Std) {
        let mut means = DeviceBuffer::alloc(dev, plan.nrows * wide_size(T::DTYPE))?;
        run_reduce(
            dev,
            GOp::MeanW,
            &plan,
            means.dev_ptr_mut(),
            DevPtr::null(),
            0,
        )?;
        run_reduce(dev, op, &plan, y, means.dev_ptr(), ddof)?;
    } else {
        run_reduce(dev, op, &plan, y, DevPtr::null(), ddof)?;
    }
    Ok(out)
}
